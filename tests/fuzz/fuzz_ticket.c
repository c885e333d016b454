/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: Ticket and EncTicketPart (RFC 4120 5.3),
 * gk5i_decode_ticket and gk5i_decode_enc_tkt_part on the same input
 * (src/der/rfc4120_decode_ap.c).  Their application tags differ, so at most
 * one may take it.  A decoded message must lie inside the input and
 * re-encode to the input's bytes (fuzz_krb.h); an EncTicketPart's
 * AuthorizationData must walk (gk5i_authz_next) and its HostAddresses
 * must be a well-formed SEQUENCE OF.
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
    union fk_msg t, e;
    uint32_t rt, re;

    rt = fk_decode_checked(FK_TICKET, p, size, &t);
    re = fk_decode_checked(FK_ENC_TKT_PART, p, size, &e);
    if (rt == GK5_OK && re == GK5_OK) {
        fuzz_fail("ticket: one input is both a Ticket and an EncTicketPart", 0,
                  0);
    }
    if (re == GK5_OK) {
        (void)fk_walk_authz(e.enc_tkt_part.authorization_data, true, 4);
    }
    free(p);
    return 0;
}
