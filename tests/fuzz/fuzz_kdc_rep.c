/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the KDC's replies (RFC 4120 5.4.2) as a client reads
 * them, gk5i_decode_kdc_rep (AS-REP, TGS-REP) and
 * gk5i_decode_enc_kdc_rep_part (either tag) on the same input
 * (src/der/rfc4120_decode_kdc.c).  Their application tags differ, so at most
 * one may take it.  A decoded message must lie inside the input and
 * re-encode to the input's bytes (fuzz_krb.h; a negative nonce re-encodes
 * as the UInt32 it reads as); its padata and encrypted-pa-data must walk
 * (gk5i_padata_next), each padata-value tried as ETYPE-INFO2
 * (gk5i_etype_info2_next), and its HostAddresses must walk too.  The
 * input is also walked as a SEQUENCE OF PA-DATA and as ETYPE-INFO2 on its
 * own, as a KRB-ERROR's e-data and a PA-ETYPE-INFO2 value arrive.
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
    struct gk5i_view all = {p, size};
    union fk_msg as, tgs, part;
    uint32_t ras, rtgs, rpart;

    ras = fk_decode_checked(FK_AS_REP, p, size, &as);
    rtgs = fk_decode_checked(FK_TGS_REP, p, size, &tgs);
    rpart = fk_decode_checked(FK_ENC_KDC_REP_PART, p, size, &part);
    if ((ras == GK5_OK) + (rtgs == GK5_OK) + (rpart == GK5_OK) > 1) {
        fuzz_fail("kdc_rep: one input is two kinds of message", 0, 0);
    }
    /* The other reply's decoder sees another message, not bad DER. */
    if ((ras == GK5_OK && rtgs != GK5_ERR_KRB_MSG_TYPE) ||
        (rtgs == GK5_OK && ras != GK5_ERR_KRB_MSG_TYPE)) {
        fuzz_fail("kdc_rep: a reply is not another message to the other", 0, 0);
    }
    if (ras == GK5_OK) {
        (void)fk_walk_padata(as.kdc_rep.padata, true);
    }
    if (rtgs == GK5_OK) {
        (void)fk_walk_padata(tgs.kdc_rep.padata, true);
    }
    if (rpart == GK5_OK) {
        (void)fk_walk_padata(part.enc_kdc_rep_part.encrypted_pa_data, true);
        (void)fk_walk_authz(part.enc_kdc_rep_part.caddr, true, 0);
    }
    if (size <= GK5I_KRB_MAX_MESSAGE) {
        (void)fk_walk_padata(all, false);
        (void)fk_walk_etype_info2(all);
    }
    free(p);
    return 0;
}
