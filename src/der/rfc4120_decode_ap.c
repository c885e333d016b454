/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 decoders of a ticket and the AP exchange: Ticket and
 * EncTicketPart (5.3), Authenticator, AP-REQ, AP-REP and EncAPRepPart
 * (5.5), KRB-ERROR (5.9.1), the walk over AuthorizationData (5.2.6) and
 * RFC 4537's EtypeList.  The rules they follow (depth, the order of
 * answers) head rfc4120_decode_fields.c.
 */
#include <string.h>

#include "rfc4120_int.h"

/* Ticket (RFC 4120 5.3).  LEVELS 3, the sub-types below. */
uint32_t gk5i_dec_ticket(struct gk5i_rd *r, unsigned depth,
                         struct gk5i_krb_ticket *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    if (gk5i_dec_too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_TICKET), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0, GK5I_KRB_PVNO); /* tkt-vno */
    out->realm = gk5i_dec_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 2, &out->sname));
    ret = gk5i_dec_worst(
        ret, gk5i_dec_enc_data_field(&seq, depth + 2, 3, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* EncTicketPart (RFC 4120 5.3).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_tkt_part(struct gk5i_rd *r, unsigned depth,
                                    struct gk5i_krb_enc_tkt_part *out)
{
    struct gk5i_rd app, seq, f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_TKT_PART), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    out->flags = gk5i_dec_flags_field(&seq, 0);
    ret = gk5i_dec_key_field(&seq, depth + 2, 1, &out->key);
    out->crealm = gk5i_dec_prim_field(&seq, 2, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 3, &out->cname));
    gk5i_der_enter(&seq, GK5I_DER_CTX(4), &f);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_type_and_octets(&f, depth + 3, 0, &out->transited_type,
                                      &out->transited_contents));
    gk5i_der_leave(&seq, &f);
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
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(9))) {
        ret = gk5i_dec_worst(
            ret, gk5i_dec_list_field(&seq, depth + 2, 9, 0, &out->caddr));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(10))) {
        ret =
            gk5i_dec_worst(ret, gk5i_dec_list_field(&seq, depth + 2, 10, 0,
                                                    &out->authorization_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* Authenticator (RFC 4120 5.5.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_authenticator(struct gk5i_rd *r, unsigned depth,
                                     struct gk5i_krb_authenticator *out)
{
    struct gk5i_rd app, seq, f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AUTHENTICATOR), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0,
                                   GK5I_KRB_PVNO); /* authenticator-vno */
    out->crealm = gk5i_dec_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 2, &out->cname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_cksum = true;
        gk5i_der_enter(&seq, GK5I_DER_CTX(3), &f);
        ret = gk5i_dec_worst(ret, gk5i_dec_type_and_octets(
                                      &f, depth + 3, 0, &out->cksum.cksumtype,
                                      &out->cksum.value));
        gk5i_der_leave(&seq, &f);
    }
    out->cusec = gk5i_dec_usec_field(&seq, 4);
    out->ctime = gk5i_dec_time_field(&seq, 5);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(6))) {
        out->has_subkey = true;
        ret = gk5i_dec_worst(
            ret, gk5i_dec_key_field(&seq, depth + 2, 6, &out->subkey));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(7))) {
        out->has_seq_number = true;
        out->seq_number = gk5i_dec_seq_number_field(&seq, 7);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        ret =
            gk5i_dec_worst(ret, gk5i_dec_list_field(&seq, depth + 2, 8, 0,
                                                    &out->authorization_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* AP-REQ (RFC 4120 5.5.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_ap_req(struct gk5i_rd *r, unsigned depth,
                              struct gk5i_krb_ap_req *out)
{
    struct gk5i_rd app, seq, f;
    const uint8_t *start;
    uint32_t ret, tret;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AP_REQ), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0, GK5I_KRB_PVNO);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_check_int_field(&seq, 1, GK5I_KRB_TAG_AP_REQ));
    out->ap_options = gk5i_dec_flags_field(&seq, 2);
    gk5i_der_enter(&seq, GK5I_DER_CTX(3), &f);
    start = f.p;
    tret = gk5i_dec_ticket(&f, depth + 3, &out->ticket);
    if (tret == GK5_OK || tret == GK5_ERR_KRB_MSG_TYPE) {
        out->ticket_der.p = start;
        out->ticket_der.len = (size_t)(f.p - start);
    }
    ret = gk5i_dec_worst(ret, tret);
    gk5i_der_leave(&seq, &f);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_enc_data_field(&seq, depth + 2, 4, &out->authenticator));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* AP-REP (RFC 4120 5.5.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_ap_rep(struct gk5i_rd *r, unsigned depth,
                              struct gk5i_krb_ap_rep *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AP_REP), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0, GK5I_KRB_PVNO);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_check_int_field(&seq, 1, GK5I_KRB_TAG_AP_REP));
    ret = gk5i_dec_worst(
        ret, gk5i_dec_enc_data_field(&seq, depth + 2, 2, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* EncAPRepPart (RFC 4120 5.5.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_ap_rep_part(struct gk5i_rd *r, unsigned depth,
                                       struct gk5i_krb_enc_ap_rep_part *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret = GK5_OK;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_AP_REP_PART), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    out->ctime = gk5i_dec_time_field(&seq, 0);
    out->cusec = gk5i_dec_usec_field(&seq, 1);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_subkey = true;
        ret = gk5i_dec_key_field(&seq, depth + 2, 2, &out->subkey);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_seq_number = true;
        out->seq_number = gk5i_dec_seq_number_field(&seq, 3);
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* KRB-ERROR (RFC 4120 5.9.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_krb_error(struct gk5i_rd *r, unsigned depth,
                                 struct gk5i_krb_error *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ERROR), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = gk5i_dec_check_int_field(&seq, 0, GK5I_KRB_PVNO);
    ret = gk5i_dec_worst(ret,
                         gk5i_dec_check_int_field(&seq, 1, GK5I_KRB_TAG_ERROR));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_ctime = true;
        out->ctime = gk5i_dec_time_field(&seq, 2);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_cusec = true;
        out->cusec = gk5i_dec_usec_field(&seq, 3);
    }
    out->stime = gk5i_dec_time_field(&seq, 4);
    out->susec = gk5i_dec_usec_field(&seq, 5);
    out->error_code = gk5i_dec_int32_field(&seq, 6);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(7))) {
        out->has_crealm = true;
        out->crealm = gk5i_dec_prim_field(&seq, 7, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        out->has_cname = true;
        ret = gk5i_dec_worst(
            ret, gk5i_dec_principal_field(&seq, depth + 2, 8, &out->cname));
    }
    out->realm = gk5i_dec_prim_field(&seq, 9, GK5I_DER_GENERAL_STRING);
    ret = gk5i_dec_worst(
        ret, gk5i_dec_principal_field(&seq, depth + 2, 10, &out->sname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(11))) {
        out->has_e_text = true;
        out->e_text = gk5i_dec_prim_field(&seq, 11, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(12))) {
        out->has_e_data = true;
        out->e_data = gk5i_dec_prim_field(&seq, 12, GK5I_DER_OCTET_STRING);
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return gk5i_dec_finish(r, ret);
}

/* ---- entry points ---- */

uint32_t gk5i_decode_ticket(const uint8_t *in, size_t len,
                            struct gk5i_krb_ticket *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, gk5i_dec_ticket(&r, 0, out), out,
                                        sizeof(*out));
}

uint32_t gk5i_decode_enc_tkt_part(const uint8_t *in, size_t len,
                                  struct gk5i_krb_enc_tkt_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, decode_enc_tkt_part(&r, 0, out),
                                        out, sizeof(*out));
}

uint32_t gk5i_decode_authenticator(const uint8_t *in, size_t len,
                                   struct gk5i_krb_authenticator *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, decode_authenticator(&r, 0, out),
                                        out, sizeof(*out));
}

uint32_t gk5i_decode_ap_req(const uint8_t *in, size_t len,
                            struct gk5i_krb_ap_req *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : gk5i_dec_end(&r, decode_ap_req(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_ap_rep(const uint8_t *in, size_t len,
                            struct gk5i_krb_ap_rep *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : gk5i_dec_end(&r, decode_ap_rep(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_enc_ap_rep_part(const uint8_t *in, size_t len,
                                     struct gk5i_krb_enc_ap_rep_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, decode_enc_ap_rep_part(&r, 0, out),
                                        out, sizeof(*out));
}

uint32_t gk5i_decode_krb_error(const uint8_t *in, size_t len,
                               struct gk5i_krb_error *out)
{
    struct gk5i_rd r;
    uint32_t ret = gk5i_dec_start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : gk5i_dec_end(&r, decode_krb_error(&r, 0, out), out,
                                        sizeof(*out));
}

/* ---- AuthorizationData (RFC 4120 5.2.6) and EtypeList (RFC 4537) ---- */

uint32_t gk5i_authz_next(struct gk5i_view ad, size_t *pos, bool *more,
                         int32_t *ad_type, struct gk5i_view *ad_data)
{
    return gk5i_dec_pair_next(ad, pos, 0, more, ad_type, ad_data);
}

/* RFC 4537 2: EtypeList ::= SEQUENCE OF Int32, the whole of in. */
uint32_t gk5i_decode_etype_list(struct gk5i_view in, int32_t *out, size_t max,
                                size_t *n)
{
    struct gk5i_rd r, seq;
    uint32_t ret = GK5_OK;
    size_t count = 0;

    if (n != NULL) {
        *n = 0;
    }
    if (n == NULL || (out == NULL && max != 0) ||
        (in.p == NULL && in.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (in.len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(&r, in.p, in.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &seq);
    while (gk5i_rd_left(&seq) > 0) {
        int32_t e = (int32_t)gk5i_der_get_int(&seq, INT32_MIN, INT32_MAX);

        if (count == max) {
            ret = GK5_ERR_DER_LIMIT;
            break;
        }
        out[count++] = e;
    }
    gk5i_der_leave(&r, &seq);
    ret = gk5i_dec_end(&r, gk5i_dec_finish(&r, ret), out, max * sizeof(*out));
    if (ret == GK5_OK) {
        *n = count;
    }
    return ret;
}
