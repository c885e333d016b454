/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: AP-REP and EncAPRepPart (RFC 4120 5.5.2),
 * gk5i_decode_ap_rep and gk5i_decode_enc_ap_rep_part on the same input
 * (src/der/rfc4120_decode_ap.c).  An input that starts with 0x60 is an RFC
 * 2743 3.1 framed token with TOK_ID 02 00 (RFC 1964 1.1.2) around the
 * AP-REP.  A decoded message must lie inside the input and re-encode to
 * the input's bytes (fuzz_krb.h); the AP-REP's ciphertext is also read as
 * the EncAPRepPart it would decrypt to.
 */
#include <stdlib.h>

#include "fuzz_common.h"
#include "fuzz_krb.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = fuzz_dup(data, size);
    const uint8_t *msg;
    size_t len;
    union fk_msg m, e;
    uint32_t ra, re;

    if (fk_unframe(p, size, 0x02, &msg, &len)) {
        ra = fk_decode_checked(FK_AP_REP, msg, len, &m);
        re = fk_decode_checked(FK_ENC_AP_REP_PART, msg, len, &e);
        if (ra == GK5_OK && re == GK5_OK) {
            fuzz_fail("ap-rep: one input is both AP-REP and EncAPRepPart", 0,
                      0);
        }
        if (ra == GK5_OK) {
            struct gk5i_view c = m.ap_rep.enc_part.cipher;

            (void)fk_decode_checked(FK_ENC_AP_REP_PART, c.p, c.len, &e);
        }
    }
    free(p);
    return 0;
}
