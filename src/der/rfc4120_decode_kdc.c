/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 decoders of the KDC exchanges (5.4, 5.2.7): PA-DATA and
 * METHOD-DATA, AS-REP and TGS-REP, EncASRepPart and EncTGSRepPart,
 * ETYPE-INFO2, and the walks over PA-DATA and ETYPE-INFO2.  The rules
 * they follow (depth, the order of answers) head rfc4120_decode_fields.c.
 */
#include <string.h>

#include "rfc4120_int.h"

/* LastReq (RFC 4120 5.4.2): SEQUENCE OF SEQUENCE { lr-type [0] Int32,
 * lr-value [1] KerberosTime }, checked and returned whole.  LEVELS 4 (the
 * time's [1] inside the element inside the SEQUENCE OF). */
static uint32_t decode_last_req_field(struct gk5i_rd *r, unsigned depth,
                                      unsigned n, struct gk5i_view *whole)
{
    struct gk5i_rd f, list, elem;
    const uint8_t *at;

    if (gk5i_dec_too_deep(depth, 4)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    at = f.p;
    gk5i_der_enter(&f, GK5I_DER_SEQUENCE, &list);
    while (gk5i_rd_left(&list) > 0) {
        gk5i_der_enter(&list, GK5I_DER_SEQUENCE, &elem);
        (void)gk5i_dec_int32_field(&elem, 0);
        (void)gk5i_dec_time_field(&elem, 1);
        gk5i_der_leave(&list, &elem);
    }
    gk5i_der_leave(&f, &list);
    if (!f.bad) {
        whole->p = at;
        whole->len = (size_t)(f.p - at);
    }
    gk5i_der_leave(r, &f);
    return gk5i_dec_finish(r, GK5_OK);
}

/*
 * The nonce (RFC 4120 5.4.1) is a UInt32, but MIT's KDC reads and echoes
 * it as an Int32 (krb5_int32): a nonce of 2^31 or more, should a client
 * send one, comes back negative.  Read as the seq-number is: the UInt32
 * with the same 32 bits.
 */
static uint32_t get_nonce_field(struct gk5i_rd *r, unsigned n)
{
    return gk5i_dec_seq_number_field(r, n);
}

/* The [APPLICATION n] of a reply that is not the one expected: a
 * well-formed value of another message (a KRB-ERROR, the other reply) is
 * GK5_ERR_KRB_MSG_TYPE, anything else bad DER. */
static uint32_t other_message(struct gk5i_rd *r)
{
    uint8_t tag = gk5i_rd_left(r) > 0 ? r->p[0] : 0;
    struct gk5i_rd in;

    if ((tag & 0xe0) != 0x60 || (tag & 0x1f) == 0x1f) {
        gk5i_der_refuse(r);
        return gk5i_dec_finish(r, GK5_OK);
    }
    gk5i_der_enter(r, tag, &in);
    return gk5i_dec_finish(r, GK5_ERR_KRB_MSG_TYPE);
}

/* AS-REP / TGS-REP (RFC 4120 5.4.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_kdc_rep(struct gk5i_rd *r, unsigned depth,
                               int32_t msg_type, struct gk5i_krb_kdc_rep *out)
{
    struct gk5i_rd app, seq, f;
    const uint8_t *at;
    uint32_t ret, tret;

    if (!gk5i_der_peek(r, GK5I_DER_APP(msg_type))) {
        return other_message(r);
    }
    gk5i_der_enter(r, GK5I_DER_APP(msg_type), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0, GK5I_KRB_PVNO);
    ret = gk5i_dec_worst(ret, gk5i_dec_check_int_field(&seq, 1, msg_type));
    out->msg_type = msg_type;
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        ret = gk5i_dec_worst(
            ret, gk5i_dec_list_field(&seq, depth + 2, 2, 1, &out->padata));
    }
    out->crealm = gk5i_dec_prim_field(&seq, 3, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 4, &out->cname));
    gk5i_der_enter(&seq, GK5I_DER_CTX(5), &f);
    at = f.p;
    tret = gk5i_dec_ticket(&f, depth + 3, &out->ticket);
    if (tret == GK5_OK || tret == GK5_ERR_KRB_MSG_TYPE) {
        out->ticket_der.p = at;
        out->ticket_der.len = (size_t)(f.p - at);
    }
    ret = gk5i_dec_worst(ret, tret);
    gk5i_der_leave(&seq, &f);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_enc_data_field(&seq, depth + 2, 6, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* EncASRepPart / EncTGSRepPart (RFC 4120 5.4.2; encrypted-pa-data [12],
 * RFC 6806 11).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_kdc_rep_part(struct gk5i_rd *r, unsigned depth,
                                        struct gk5i_krb_enc_kdc_rep_part *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    out->tag = gk5i_der_peek(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_TGS_REP_PART))
                   ? GK5I_KRB_TAG_ENC_TGS_REP_PART
                   : GK5I_KRB_TAG_ENC_AS_REP_PART;
    gk5i_der_enter(r, GK5I_DER_APP(out->tag), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_key_field(&seq, depth + 2, 0, &out->key);
    ret = gk5i_dec_worst(
        ret, decode_last_req_field(&seq, depth + 2, 1, &out->last_req));
    out->nonce = get_nonce_field(&seq, 2);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_key_expiration = true;
        out->key_expiration = gk5i_dec_time_field(&seq, 3);
    }
    out->flags = gk5i_dec_flags_field(&seq, 4);
    out->authtime = gk5i_dec_time_field(&seq, 5);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(6))) {
        out->has_starttime = true;
        out->starttime = gk5i_dec_time_field(&seq, 6);
    }
    out->endtime = gk5i_dec_time_field(&seq, 7);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        out->has_renew_till = true;
        out->renew_till = gk5i_dec_time_field(&seq, 8);
    }
    out->srealm = gk5i_dec_prim_field(&seq, 9, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 10, &out->sname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(11))) {
        ret = gk5i_dec_worst(
            ret, gk5i_dec_list_field(&seq, depth + 2, 11, 0, &out->caddr));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(12))) {
        ret = gk5i_dec_worst(ret, gk5i_dec_list_field(&seq, depth + 2, 12, 1,
                                                      &out->encrypted_pa_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* ETYPE-INFO2-ENTRY (RFC 4120 5.2.7.5).  LEVELS 2. */
static uint32_t decode_etype_info2_entry(struct gk5i_rd *r, unsigned depth,
                                         struct gk5i_krb_etype_info2 *out)
{
    struct gk5i_rd seq;

    if (gk5i_dec_too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->etype = gk5i_dec_int32_field(&seq, 0);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(1))) {
        out->has_salt = true;
        out->salt = gk5i_dec_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_s2kparams = true;
        out->s2kparams = gk5i_dec_prim_field(&seq, 2, GK5I_DER_OCTET_STRING);
    }
    gk5i_der_leave(r, &seq);
    return gk5i_dec_finish(r, GK5_OK);
}

/* ---- entry points ---- */

uint32_t gk5i_decode_kdc_rep(const uint8_t *in, size_t len, int32_t msg_type,
                             struct gk5i_krb_kdc_rep *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    if (ret == GK5_OK && msg_type != GK5I_KRB_TAG_AS_REP &&
        msg_type != GK5I_KRB_TAG_TGS_REP) {
        ret = GK5_ERR_INVALID_ARGUMENT;
    }
    return ret != GK5_OK
               ? ret
               : gk5i_dec_end(&r, decode_kdc_rep(&r, 0, msg_type, out), out,
                              sizeof(*out));
}

uint32_t gk5i_decode_enc_kdc_rep_part(const uint8_t *in, size_t len,
                                      struct gk5i_krb_enc_kdc_rep_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, decode_enc_kdc_rep_part(&r, 0, out),
                                        out, sizeof(*out));
}

/* ---- the walks over PA-DATA and ETYPE-INFO2 ---- */

/* RFC 4120 5.2.7: METHOD-DATA ::= SEQUENCE OF PA-DATA, and a KDC-REP's
 * padata; an empty SEQUENCE OF walks to its end at once. */
uint32_t gk5i_padata_next(struct gk5i_view seq, size_t *pos, bool *more,
                          int32_t *type, struct gk5i_view *value)
{
    return gk5i_dec_pair_next(seq, pos, 1, more, type, value);
}

/* RFC 4120 5.2.7.5: ETYPE-INFO2 ::= SEQUENCE SIZE (1..MAX) OF
 * ETYPE-INFO2-ENTRY, so an empty one is refused (on the first call). */
uint32_t gk5i_etype_info2_next(struct gk5i_view seq, size_t *pos, bool *more,
                               struct gk5i_krb_etype_info2 *entry)
{
    struct gk5i_rd elem;
    bool at_end;
    uint32_t ret;

    if (more != NULL) {
        *more = false;
    }
    if (entry != NULL) {
        memset(entry, 0, sizeof(*entry));
    }
    if (pos == NULL || more == NULL || entry == NULL ||
        (seq.p == NULL && seq.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = gk5i_dec_seq_of_next(seq, pos, &elem, &at_end);
    if (ret != GK5_OK) {
        return ret;
    }
    if (at_end) {
        /* At its start, the walk is at its end only when it is empty. */
        return *pos == 0 ? GK5_ERR_DER : GK5_OK;
    }
    ret = decode_etype_info2_entry(&elem, 1, entry);
    if (ret != GK5_OK) {
        zap(entry, sizeof(*entry));
        return ret;
    }
    *pos = (size_t)(elem.p - seq.p);
    *more = true;
    return GK5_OK;
}
