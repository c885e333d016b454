/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: KRB-ERROR (RFC 4120 5.9.1), gk5i_decode_krb_error
 * (src/der/rfc4120_decode_ap.c).  An input that starts with 0x60 is an RFC
 * 2743 3.1 framed token with TOK_ID 03 00 (RFC 1964 1.1.3: what an
 * acceptor sends when it refuses an AP-REQ) around the KRB-ERROR.  A
 * decoded message must lie inside the input and re-encode to the input's
 * bytes (fuzz_krb.h).
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
    union fk_msg m;

    if (fk_unframe(p, size, 0x03, &msg, &len)) {
        (void)fk_decode_checked(FK_KRB_ERROR, msg, len, &m);
    }
    free(p);
    return 0;
}
