/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the Authenticator (RFC 4120 5.5.1),
 * gk5i_decode_authenticator, and its AuthorizationData: every element
 * walked with gk5i_authz_next, each element's ad-data read as an RFC 4537
 * EtypeList with gk5i_decode_etype_list (and AD-IF-RELEVANT's as nested
 * AuthorizationData), src/der/rfc4120_decode_ap.c.  A decoded authenticator
 * must lie inside the input and re-encode to the input's bytes; a decoded
 * etype list must come back through gk5i_encode_etype_list_ad (fuzz_krb.h).
 *
 * The input is also read as AuthorizationData on its own, and as an
 * EtypeList, so that those readers are fuzzed without the authenticator
 * around them.
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
    struct gk5i_view whole = {p, size};
    union fk_msg m;

    if (fk_decode_checked(FK_AUTHENTICATOR, p, size, &m) == GK5_OK) {
        (void)fk_walk_authz(m.authenticator.authorization_data, true, 4);
    } else {
        (void)fk_walk_authz(whole, false, 4);
    }
    free(p);
    return 0;
}
