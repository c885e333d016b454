/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 encoders of the KDC exchanges (5.4, 5.2.7): PA-DATA,
 * KDC-REQ and its body, PA-ENC-TS-ENC, AS-REP and TGS-REP, EncASRepPart
 * and EncTGSRepPart.  How they write heads rfc4120_encode_fields.c.
 */
#include <string.h>

#include "rfc4120_int.h"

/* PA-DATA (RFC 4120 5.2.7): the tags start at 1. */
static uint32_t put_pa_data(struct gk5i_bwr *w,
                            const struct gk5i_krb_pa_data *pa)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = gk5i_enc_prim_field(w, 2, GK5I_DER_OCTET_STRING, pa->value);
    gk5i_enc_int_field(w, 1, pa->type);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return ret;
}

/* A SEQUENCE OF PA-DATA carried whole (a KDC-REP's padata, RFC 6806's
 * encrypted-pa-data): it goes out only if it walks as one. */
static uint32_t put_pa_data_list_field(struct gk5i_bwr *w, unsigned n,
                                       struct gk5i_view whole)
{
    size_t mark = w->len;
    size_t pos = 0;
    bool more = true;

    if (!gk5i_enc_view_ok(whole) || whole.len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    while (more) {
        int32_t type;
        struct gk5i_view value;

        if (gk5i_padata_next(whole, &pos, &more, &type, &value) != GK5_OK) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
    }
    gk5i_bwr_put_bytes(w, whole.p, whole.len);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

/* LastReq (RFC 4120 5.4.2), carried whole: SEQUENCE OF SEQUENCE
 * { lr-type [0] Int32, lr-value [1] KerberosTime }, read here as the
 * decoder reads it. */
static bool last_req_ok(struct gk5i_view whole)
{
    struct gk5i_rd r, list, elem, f;
    gk5i_krb_time t;

    gk5i_rd_init(&r, whole.p, whole.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &list);
    while (gk5i_rd_left(&list) > 0) {
        struct gk5i_view v;

        gk5i_der_enter(&list, GK5I_DER_SEQUENCE, &elem);
        gk5i_der_enter(&elem, GK5I_DER_CTX(0), &f);
        (void)gk5i_der_get_int(&f, INT32_MIN, INT32_MAX);
        gk5i_der_leave(&elem, &f);
        gk5i_der_enter(&elem, GK5I_DER_CTX(1), &f);
        v.p = gk5i_der_get_prim(&f, GK5I_DER_GENERALIZED_TIME, &v.len);
        if (!f.bad && gk5i_krb_time_parse(v.p, v.len, &t) != GK5_OK) {
            gk5i_der_refuse(&f);
        }
        gk5i_der_leave(&elem, &f);
        gk5i_der_leave(&list, &elem);
    }
    gk5i_der_leave(&r, &list);
    return gk5i_rd_at_end(&r);
}

/* An empty last_req goes out as the empty LastReq (a KDC with nothing to
 * report); a decoded one is never empty. */
static uint32_t put_last_req_field(struct gk5i_bwr *w, unsigned n,
                                   struct gk5i_view whole)
{
    size_t mark = w->len;

    if (!gk5i_enc_view_ok(whole) || (whole.len != 0 && !last_req_ok(whole))) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (whole.len == 0) {
        gk5i_der_put_header(w, GK5I_DER_SEQUENCE, 0);
    } else {
        gk5i_bwr_put_bytes(w, whole.p, whole.len);
    }
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

/*
 * The nonce (RFC 4120 5.4.1) is a UInt32 and goes out as one.  In a
 * request gk5 keeps it below 2^31: MIT's KDC reads it as an Int32 and
 * refuses the five-octet INTEGER of a larger one.
 */
static uint32_t put_req_nonce_field(struct gk5i_bwr *w, unsigned n,
                                    uint32_t nonce)
{
    if (nonce > INT32_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_enc_int_field(w, n, nonce);
    return GK5_OK;
}

/* KDC-REQ-BODY (RFC 4120 5.4.1), without addresses [9],
 * enc-authorization-data [10] and additional-tickets [11]. */
static uint32_t put_kdc_req_body(struct gk5i_bwr *w,
                                 const struct gk5i_krb_kdc_req_body *m)
{
    size_t mark = w->len;
    size_t etypes;
    uint32_t ret;

    if (m->n_etypes == 0 || m->n_etypes > GK5I_KRB_MAX_ETYPES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    etypes = w->len;
    for (size_t i = m->n_etypes; i-- > 0;) {
        gk5i_der_put_int(w, m->etypes[i]);
    }
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, etypes);
    gk5i_der_put_close(w, GK5I_DER_CTX(8), etypes);
    ret = put_req_nonce_field(w, 7, m->nonce);
    if (ret == GK5_OK && m->has_rtime) {
        ret = gk5i_enc_time_field(w, 6, m->rtime);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 5, m->till);
    }
    if (ret == GK5_OK && m->has_from) {
        ret = gk5i_enc_time_field(w, 4, m->from);
    }
    if (ret == GK5_OK && m->has_sname) {
        ret = gk5i_enc_principal_field(w, 3, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 2, GK5I_DER_GENERAL_STRING, m->realm);
    }
    if (ret == GK5_OK && m->has_cname) {
        ret = gk5i_enc_principal_field(w, 1, &m->cname);
    }
    gk5i_enc_flags_field(w, 0, m->kdc_options);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return ret;
}

/* Bytes the caller encoded before (the body a TGS-REQ's authenticator
 * checksummed): one SEQUENCE, nothing after it. */
static bool one_sequence(struct gk5i_view v)
{
    struct gk5i_rd r, in;

    gk5i_rd_init(&r, v.p, v.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &in);
    return !in.bad && gk5i_rd_at_end(&r);
}

/* AS-REQ / TGS-REQ (RFC 4120 5.4.1): pvno [1], msg-type [2], padata [3],
 * req-body [4] -- the tags start at 1. */
static uint32_t put_kdc_req(struct gk5i_bwr *w,
                            const struct gk5i_krb_kdc_req *m)
{
    size_t mark = w->len;
    size_t field;
    uint32_t ret = GK5_OK;

    if ((m->msg_type != GK5I_KRB_TAG_AS_REQ &&
         m->msg_type != GK5I_KRB_TAG_TGS_REQ) ||
        m->n_padata > GK5I_KRB_MAX_PADATA) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    field = w->len;
    if (m->body_der.len != 0) {
        if (!gk5i_enc_view_ok(m->body_der) || !one_sequence(m->body_der)) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        gk5i_bwr_put_bytes(w, m->body_der.p, m->body_der.len);
    } else {
        ret = put_kdc_req_body(w, &m->body);
    }
    gk5i_der_put_close(w, GK5I_DER_CTX(4), field);
    if (ret == GK5_OK && m->n_padata != 0) {
        field = w->len;
        for (size_t i = m->n_padata; ret == GK5_OK && i-- > 0;) {
            ret = put_pa_data(w, &m->padata[i]);
        }
        gk5i_der_put_close(w, GK5I_DER_SEQUENCE, field);
        gk5i_der_put_close(w, GK5I_DER_CTX(3), field);
    }
    gk5i_enc_int_field(w, 2, m->msg_type);
    gk5i_enc_int_field(w, 1, GK5I_KRB_PVNO);
    gk5i_enc_message_close(w, (unsigned)m->msg_type, mark);
    return ret;
}

/* The Ticket field of a message: ticket_der, when not empty, copied in
 * if it is a Ticket gk5 would take; otherwise ticket encoded. */
static uint32_t put_ticket_field(struct gk5i_bwr *w, unsigned n,
                                 const struct gk5i_krb_ticket *ticket,
                                 struct gk5i_view ticket_der)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (ticket_der.len != 0) {
        struct gk5i_krb_ticket check;

        if (!gk5i_enc_view_ok(ticket_der) ||
            gk5i_decode_ticket(ticket_der.p, ticket_der.len, &check) !=
                GK5_OK) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        gk5i_bwr_put_bytes(w, ticket_der.p, ticket_der.len);
    } else {
        ret = gk5i_enc_ticket(w, ticket);
    }
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return ret;
}

/* AS-REP / TGS-REP (RFC 4120 5.4.2). */
static uint32_t put_kdc_rep(struct gk5i_bwr *w,
                            const struct gk5i_krb_kdc_rep *m)
{
    size_t mark = w->len;
    uint32_t ret;

    if (m->msg_type != GK5I_KRB_TAG_AS_REP &&
        m->msg_type != GK5I_KRB_TAG_TGS_REP) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = gk5i_enc_enc_data_field(w, 6, &m->enc_part);
    if (ret == GK5_OK) {
        ret = put_ticket_field(w, 5, &m->ticket, m->ticket_der);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 4, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 3, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK && m->padata.len != 0) {
        ret = put_pa_data_list_field(w, 2, m->padata);
    }
    gk5i_enc_int_field(w, 1, m->msg_type);
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO);
    gk5i_enc_message_close(w, (unsigned)m->msg_type, mark);
    return ret;
}

/* EncASRepPart / EncTGSRepPart (RFC 4120 5.4.2, RFC 6806 11). */
static uint32_t put_enc_kdc_rep_part(struct gk5i_bwr *w,
                                     const struct gk5i_krb_enc_kdc_rep_part *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->tag != GK5I_KRB_TAG_ENC_AS_REP_PART &&
        m->tag != GK5I_KRB_TAG_ENC_TGS_REP_PART) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (m->encrypted_pa_data.len != 0) {
        ret = put_pa_data_list_field(w, 12, m->encrypted_pa_data);
    }
    if (ret == GK5_OK && m->caddr.len != 0) {
        ret = gk5i_enc_list_field(w, 11, m->caddr);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 10, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 9, GK5I_DER_GENERAL_STRING, m->srealm);
    }
    if (ret == GK5_OK && m->has_renew_till) {
        ret = gk5i_enc_time_field(w, 8, m->renew_till);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 7, m->endtime);
    }
    if (ret == GK5_OK && m->has_starttime) {
        ret = gk5i_enc_time_field(w, 6, m->starttime);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 5, m->authtime);
    }
    if (ret == GK5_OK) {
        gk5i_enc_flags_field(w, 4, m->flags);
        if (m->has_key_expiration) {
            ret = gk5i_enc_time_field(w, 3, m->key_expiration);
        }
    }
    if (ret == GK5_OK) {
        gk5i_enc_int_field(w, 2, m->nonce); /* the UInt32, as the seq-number */
        ret = put_last_req_field(w, 1, m->last_req);
    }
    if (ret == GK5_OK) {
        ret =
            gk5i_enc_type_and_octets_field(w, 0, m->key.keytype, m->key.value);
    }
    gk5i_enc_message_close(w, (unsigned)m->tag, mark);
    return ret;
}

/* ---- entry points ---- */

uint32_t gk5i_encode_kdc_req_body(const struct gk5i_krb_kdc_req_body *m,
                                  uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_kdc_req_body(&w, m), out, cap, len);
}

uint32_t gk5i_encode_kdc_req(const struct gk5i_krb_kdc_req *m, uint8_t *out,
                             size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : gk5i_enc_end(&w, put_kdc_req(&w, m), out, cap, len);
}

/* RFC 4120 5.2.7.2: PA-ENC-TS-ENC ::= SEQUENCE { patimestamp [0]
 * KerberosTime, pausec [1] Microseconds OPTIONAL }; pausec always goes
 * out (MIT and Heimdal clients send it too). */
uint32_t gk5i_encode_pa_enc_ts_enc(gk5i_krb_time patimestamp, uint32_t pausec,
                                   uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret;

    if (len != NULL) {
        *len = 0;
    }
    if (len == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_bwr_init(&w, out, cap);
    ret = gk5i_enc_usec_field(&w, 1, pausec);
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(&w, 0, patimestamp);
    }
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, 0);
    return gk5i_enc_end(&w, ret, out, cap, len);
}

uint32_t gk5i_encode_enc_kdc_rep_part(const struct gk5i_krb_enc_kdc_rep_part *m,
                                      uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_enc_kdc_rep_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_kdc_rep(const struct gk5i_krb_kdc_rep *m, uint8_t *out,
                             size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : gk5i_enc_end(&w, put_kdc_rep(&w, m), out, cap, len);
}
