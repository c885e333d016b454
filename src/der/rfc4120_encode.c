/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * DER encoders for the RFC 4120 messages of rfc4120.h.
 *
 * Each writes its type backwards (the last field first, a header once its
 * contents are counted) through the writer of src/common/bytes.h, which
 * counts when it has no buffer: the walk that measures is the walk that
 * writes.  An encoder refuses (GK5_ERR_INVALID_ARGUMENT) any field the
 * decoders would refuse, so that what gk5 sends it would also accept.
 */
#include <string.h>

#include "der.h"
#include "rfc4120.h"

#define KRB_USEC_MAX 999999
#define KRB_PVNO 5

/* A view the caller filled: p NULL is allowed only with len 0. */
static bool view_ok(struct gk5i_view v)
{
    return v.p != NULL || v.len == 0;
}

/* ---- fields: [n] EXPLICIT around a primitive ---- */

static void put_int_field(struct gk5i_bwr *w, unsigned n, int64_t v)
{
    size_t mark = w->len;

    gk5i_der_put_int(w, v);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
}

static uint32_t put_usec_field(struct gk5i_bwr *w, unsigned n, uint32_t usec)
{
    if (usec > KRB_USEC_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    put_int_field(w, n, usec);
    return GK5_OK;
}

static uint32_t put_prim_field(struct gk5i_bwr *w, unsigned n, uint8_t tag,
                               struct gk5i_view v)
{
    size_t mark = w->len;

    if (!view_ok(v)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_der_put_prim(w, tag, v.p, v.len);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

static uint32_t put_time_field(struct gk5i_bwr *w, unsigned n, gk5i_krb_time t)
{
    uint8_t s[15];
    size_t mark = w->len;
    uint32_t ret;

    ret = gk5i_krb_time_format(t, s);
    if (ret != GK5_OK) {
        return ret;
    }
    gk5i_der_put_prim(w, GK5I_DER_GENERALIZED_TIME, s, sizeof(s));
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

/* KerberosFlags (RFC 4120 5.2.8): the 32 bits every known peer sends,
 * no unused bits. */
static void put_flags_field(struct gk5i_bwr *w, unsigned n, uint32_t flags)
{
    uint8_t c[5] = {0};
    size_t mark = w->len;

    store_be32(c + 1, flags);
    gk5i_der_put_prim(w, GK5I_DER_BIT_STRING, c, sizeof(c));
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
}

/* ---- types ---- */

/* SEQUENCE { [0] Int32, [1] OCTET STRING }: EncryptionKey, Checksum
 * (RFC 4120 5.2.9), TransitedEncoding (5.3), AuthorizationData elements
 * (5.2.6). */
static uint32_t put_type_and_octets(struct gk5i_bwr *w, int32_t type,
                                    struct gk5i_view value)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_prim_field(w, 1, GK5I_DER_OCTET_STRING, value);
    if (ret != GK5_OK) {
        return ret;
    }
    put_int_field(w, 0, type);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return GK5_OK;
}

static uint32_t put_type_and_octets_field(struct gk5i_bwr *w, unsigned n,
                                          int32_t type, struct gk5i_view value)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_type_and_octets(w, type, value);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return ret;
}

/* HostAddresses and AuthorizationData are carried whole (rfc4120.h); they
 * go out only if they are what the decoder checks them to be: one
 * SEQUENCE OF SEQUENCE { [0] Int32, [1] OCTET STRING }, nothing after. */
static uint32_t put_list_field(struct gk5i_bwr *w, unsigned n,
                               struct gk5i_view whole)
{
    size_t mark = w->len;
    size_t pos = 0;
    bool more = true;

    if (!view_ok(whole) || whole.len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    while (more) {
        int32_t type;
        struct gk5i_view data;

        if (gk5i_authz_next(whole, &pos, &more, &type, &data) != GK5_OK) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
    }
    gk5i_bwr_put_bytes(w, whole.p, whole.len);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

/* PrincipalName (RFC 4120 5.2.2). */
static uint32_t put_principal_field(struct gk5i_bwr *w, unsigned n,
                                    const struct gk5i_krb_principal *p)
{
    size_t mark = w->len;
    size_t names;

    if (p->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    names = w->len;
    for (size_t i = p->ncomp; i-- > 0;) {
        if (!view_ok(p->comp[i])) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        gk5i_der_put_prim(w, GK5I_DER_GENERAL_STRING, p->comp[i].p,
                          p->comp[i].len);
    }
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, names);
    gk5i_der_put_close(w, GK5I_DER_CTX(1), names);
    put_int_field(w, 0, p->name_type);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

/* EncryptedData (RFC 4120 5.2.9). */
static uint32_t put_enc_data(struct gk5i_bwr *w,
                             const struct gk5i_krb_enc_data *e)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_prim_field(w, 2, GK5I_DER_OCTET_STRING, e->cipher);
    if (ret != GK5_OK) {
        return ret;
    }
    if (e->has_kvno) {
        put_int_field(w, 1, e->kvno);
    }
    put_int_field(w, 0, e->etype);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return GK5_OK;
}

static uint32_t put_enc_data_field(struct gk5i_bwr *w, unsigned n,
                                   const struct gk5i_krb_enc_data *e)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_enc_data(w, e);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return ret;
}

/* Closes a message: its SEQUENCE, then its [APPLICATION n]. */
static void put_message_close(struct gk5i_bwr *w, unsigned app, size_t mark)
{
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    gk5i_der_put_close(w, GK5I_DER_APP(app), mark);
}

/* Ticket (RFC 4120 5.3). */
static uint32_t put_ticket(struct gk5i_bwr *w, const struct gk5i_krb_ticket *m)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_enc_data_field(w, 3, &m->enc_part);
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 2, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 1, GK5I_DER_GENERAL_STRING, m->realm);
    }
    put_int_field(w, 0, KRB_PVNO); /* tkt-vno */
    put_message_close(w, GK5I_KRB_TAG_TICKET, mark);
    return ret;
}

/* EncTicketPart (RFC 4120 5.3). */
static uint32_t put_enc_tkt_part(struct gk5i_bwr *w,
                                 const struct gk5i_krb_enc_tkt_part *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->authorization_data.len != 0) {
        ret = put_list_field(w, 10, m->authorization_data);
    }
    if (ret == GK5_OK && m->caddr.len != 0) {
        ret = put_list_field(w, 9, m->caddr);
    }
    if (ret == GK5_OK && m->has_renew_till) {
        ret = put_time_field(w, 8, m->renew_till);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 7, m->endtime);
    }
    if (ret == GK5_OK && m->has_starttime) {
        ret = put_time_field(w, 6, m->starttime);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 5, m->authtime);
    }
    if (ret == GK5_OK) {
        ret = put_type_and_octets_field(w, 4, m->transited_type,
                                        m->transited_contents);
    }
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 3, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 2, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK) {
        ret = put_type_and_octets_field(w, 1, m->key.keytype, m->key.value);
    }
    put_flags_field(w, 0, m->flags);
    put_message_close(w, GK5I_KRB_TAG_ENC_TKT_PART, mark);
    return ret;
}

/*
 * seq-number (RFC 4120 5.5.1) is a UInt32 and goes out as one: a
 * non-negative INTEGER of up to five octets.  MIT writes it so; the
 * decoders also take the negative Int32 form old Heimdal and Windows send.
 */
static void put_seq_number_field(struct gk5i_bwr *w, unsigned n, uint32_t seq)
{
    put_int_field(w, n, seq);
}

/* Authenticator (RFC 4120 5.5.1). */
static uint32_t put_authenticator(struct gk5i_bwr *w,
                                  const struct gk5i_krb_authenticator *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->authorization_data.len != 0) {
        ret = put_list_field(w, 8, m->authorization_data);
    }
    if (ret == GK5_OK && m->has_seq_number) {
        put_seq_number_field(w, 7, m->seq_number);
    }
    if (ret == GK5_OK && m->has_subkey) {
        ret =
            put_type_and_octets_field(w, 6, m->subkey.keytype, m->subkey.value);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 5, m->ctime);
    }
    if (ret == GK5_OK) {
        ret = put_usec_field(w, 4, m->cusec);
    }
    if (ret == GK5_OK && m->has_cksum) {
        ret =
            put_type_and_octets_field(w, 3, m->cksum.cksumtype, m->cksum.value);
    }
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 2, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 1, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    put_int_field(w, 0, KRB_PVNO); /* authenticator-vno */
    put_message_close(w, GK5I_KRB_TAG_AUTHENTICATOR, mark);
    return ret;
}

/* AP-REQ (RFC 4120 5.5.1). */
static uint32_t put_ap_req(struct gk5i_bwr *w, const struct gk5i_krb_ap_req *m)
{
    size_t mark = w->len;
    size_t ticket;
    uint32_t ret;

    ret = put_enc_data_field(w, 4, &m->authenticator);
    ticket = w->len;
    if (ret == GK5_OK && m->ticket_der.len != 0) {
        struct gk5i_krb_ticket check;

        /* Bytes a KDC gave the initiator: sent only if they are a Ticket
         * the acceptor's decoder (gk5's own, at least) will take. */
        if (!view_ok(m->ticket_der) ||
            gk5i_decode_ticket(m->ticket_der.p, m->ticket_der.len, &check) !=
                GK5_OK) {
            ret = GK5_ERR_INVALID_ARGUMENT;
        } else {
            gk5i_bwr_put_bytes(w, m->ticket_der.p, m->ticket_der.len);
        }
    } else if (ret == GK5_OK) {
        ret = put_ticket(w, &m->ticket);
    }
    gk5i_der_put_close(w, GK5I_DER_CTX(3), ticket);
    put_flags_field(w, 2, m->ap_options);
    put_int_field(w, 1, GK5I_KRB_TAG_AP_REQ);
    put_int_field(w, 0, KRB_PVNO);
    put_message_close(w, GK5I_KRB_TAG_AP_REQ, mark);
    return ret;
}

/* AP-REP (RFC 4120 5.5.2). */
static uint32_t put_ap_rep(struct gk5i_bwr *w, const struct gk5i_krb_ap_rep *m)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_enc_data_field(w, 2, &m->enc_part);
    put_int_field(w, 1, GK5I_KRB_TAG_AP_REP);
    put_int_field(w, 0, KRB_PVNO);
    put_message_close(w, GK5I_KRB_TAG_AP_REP, mark);
    return ret;
}

/* EncAPRepPart (RFC 4120 5.5.2). */
static uint32_t put_enc_ap_rep_part(struct gk5i_bwr *w,
                                    const struct gk5i_krb_enc_ap_rep_part *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->has_seq_number) {
        put_seq_number_field(w, 3, m->seq_number);
    }
    if (m->has_subkey) {
        ret =
            put_type_and_octets_field(w, 2, m->subkey.keytype, m->subkey.value);
    }
    if (ret == GK5_OK) {
        ret = put_usec_field(w, 1, m->cusec);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 0, m->ctime);
    }
    put_message_close(w, GK5I_KRB_TAG_ENC_AP_REP_PART, mark);
    return ret;
}

/* KRB-ERROR (RFC 4120 5.9.1). */
static uint32_t put_krb_error(struct gk5i_bwr *w,
                              const struct gk5i_krb_error *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->has_e_data) {
        ret = put_prim_field(w, 12, GK5I_DER_OCTET_STRING, m->e_data);
    }
    if (ret == GK5_OK && m->has_e_text) {
        ret = put_prim_field(w, 11, GK5I_DER_GENERAL_STRING, m->e_text);
    }
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 10, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 9, GK5I_DER_GENERAL_STRING, m->realm);
    }
    if (ret == GK5_OK && m->has_cname) {
        ret = put_principal_field(w, 8, &m->cname);
    }
    if (ret == GK5_OK && m->has_crealm) {
        ret = put_prim_field(w, 7, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK) {
        put_int_field(w, 6, m->error_code);
        ret = put_usec_field(w, 5, m->susec);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 4, m->stime);
    }
    if (ret == GK5_OK && m->has_cusec) {
        ret = put_usec_field(w, 3, m->cusec);
    }
    if (ret == GK5_OK && m->has_ctime) {
        ret = put_time_field(w, 2, m->ctime);
    }
    put_int_field(w, 1, GK5I_KRB_TAG_ERROR);
    put_int_field(w, 0, KRB_PVNO);
    put_message_close(w, GK5I_KRB_TAG_ERROR, mark);
    return ret;
}

/* ---- the KDC exchanges (RFC 4120 5.4, 5.2.7) ---- */

/* PA-DATA (RFC 4120 5.2.7): the tags start at 1. */
static uint32_t put_pa_data(struct gk5i_bwr *w,
                            const struct gk5i_krb_pa_data *pa)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_prim_field(w, 2, GK5I_DER_OCTET_STRING, pa->value);
    put_int_field(w, 1, pa->type);
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

    if (!view_ok(whole) || whole.len == 0) {
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

    if (!view_ok(whole) || (whole.len != 0 && !last_req_ok(whole))) {
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
    put_int_field(w, n, nonce);
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
        ret = put_time_field(w, 6, m->rtime);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 5, m->till);
    }
    if (ret == GK5_OK && m->has_from) {
        ret = put_time_field(w, 4, m->from);
    }
    if (ret == GK5_OK && m->has_sname) {
        ret = put_principal_field(w, 3, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 2, GK5I_DER_GENERAL_STRING, m->realm);
    }
    if (ret == GK5_OK && m->has_cname) {
        ret = put_principal_field(w, 1, &m->cname);
    }
    put_flags_field(w, 0, m->kdc_options);
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
        if (!view_ok(m->body_der) || !one_sequence(m->body_der)) {
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
    put_int_field(w, 2, m->msg_type);
    put_int_field(w, 1, KRB_PVNO);
    put_message_close(w, (unsigned)m->msg_type, mark);
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

        if (!view_ok(ticket_der) ||
            gk5i_decode_ticket(ticket_der.p, ticket_der.len, &check) !=
                GK5_OK) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        gk5i_bwr_put_bytes(w, ticket_der.p, ticket_der.len);
    } else {
        ret = put_ticket(w, ticket);
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
    ret = put_enc_data_field(w, 6, &m->enc_part);
    if (ret == GK5_OK) {
        ret = put_ticket_field(w, 5, &m->ticket, m->ticket_der);
    }
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 4, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 3, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK && m->padata.len != 0) {
        ret = put_pa_data_list_field(w, 2, m->padata);
    }
    put_int_field(w, 1, m->msg_type);
    put_int_field(w, 0, KRB_PVNO);
    put_message_close(w, (unsigned)m->msg_type, mark);
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
        ret = put_list_field(w, 11, m->caddr);
    }
    if (ret == GK5_OK) {
        ret = put_principal_field(w, 10, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = put_prim_field(w, 9, GK5I_DER_GENERAL_STRING, m->srealm);
    }
    if (ret == GK5_OK && m->has_renew_till) {
        ret = put_time_field(w, 8, m->renew_till);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 7, m->endtime);
    }
    if (ret == GK5_OK && m->has_starttime) {
        ret = put_time_field(w, 6, m->starttime);
    }
    if (ret == GK5_OK) {
        ret = put_time_field(w, 5, m->authtime);
    }
    if (ret == GK5_OK) {
        put_flags_field(w, 4, m->flags);
        if (m->has_key_expiration) {
            ret = put_time_field(w, 3, m->key_expiration);
        }
    }
    if (ret == GK5_OK) {
        put_int_field(w, 2, m->nonce); /* the UInt32, as the seq-number */
        ret = put_last_req_field(w, 1, m->last_req);
    }
    if (ret == GK5_OK) {
        ret = put_type_and_octets_field(w, 0, m->key.keytype, m->key.value);
    }
    put_message_close(w, (unsigned)m->tag, mark);
    return ret;
}

/* ---- entry points ---- */

static uint32_t start(struct gk5i_bwr *w, const void *m, uint8_t *out,
                      size_t cap, size_t *len)
{
    if (len != NULL) {
        *len = 0;
    }
    if (m == NULL || len == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_bwr_init(w, out, cap);
    return GK5_OK;
}

/* What the walk found: the length (needed, or written), the encoding moved
 * to the front of out.  A failed walk may have put the tail of a message,
 * key bytes among them, into out: it is wiped. */
static uint32_t end(struct gk5i_bwr *w, uint32_t ret, uint8_t *out, size_t cap,
                    size_t *len)
{
    if (ret == GK5_OK && w->len > GK5I_KRB_MAX_MESSAGE) {
        ret = GK5_ERR_DER_LIMIT;
    }
    if (ret == GK5_OK && out != NULL && w->bad) {
        ret = GK5_ERR_BUFFER_TOO_SMALL;
        *len = w->len;
    }
    if (ret != GK5_OK) {
        zap(out, cap);
        return ret;
    }
    *len = w->len;
    if (out != NULL) {
        memmove(out, gk5i_bwr_data(w), w->len);
    }
    return GK5_OK;
}

uint32_t gk5i_encode_ticket(const struct gk5i_krb_ticket *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_ticket(&w, m), out, cap, len);
}

uint32_t gk5i_encode_enc_tkt_part(const struct gk5i_krb_enc_tkt_part *m,
                                  uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : end(&w, put_enc_tkt_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_authenticator(const struct gk5i_krb_authenticator *m,
                                   uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : end(&w, put_authenticator(&w, m), out, cap, len);
}

uint32_t gk5i_encode_ap_req(const struct gk5i_krb_ap_req *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_ap_req(&w, m), out, cap, len);
}

uint32_t gk5i_encode_ap_rep(const struct gk5i_krb_ap_rep *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_ap_rep(&w, m), out, cap, len);
}

uint32_t gk5i_encode_enc_ap_rep_part(const struct gk5i_krb_enc_ap_rep_part *m,
                                     uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : end(&w, put_enc_ap_rep_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_krb_error(const struct gk5i_krb_error *m, uint8_t *out,
                               size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_krb_error(&w, m), out, cap, len);
}

uint32_t gk5i_encode_kdc_req_body(const struct gk5i_krb_kdc_req_body *m,
                                  uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : end(&w, put_kdc_req_body(&w, m), out, cap, len);
}

uint32_t gk5i_encode_kdc_req(const struct gk5i_krb_kdc_req *m, uint8_t *out,
                             size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_kdc_req(&w, m), out, cap, len);
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
    ret = put_usec_field(&w, 1, pausec);
    if (ret == GK5_OK) {
        ret = put_time_field(&w, 0, patimestamp);
    }
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, 0);
    return end(&w, ret, out, cap, len);
}

uint32_t gk5i_encode_enc_data(const struct gk5i_krb_enc_data *m, uint8_t *out,
                              size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_enc_data(&w, m), out, cap, len);
}

uint32_t gk5i_encode_enc_kdc_rep_part(const struct gk5i_krb_enc_kdc_rep_part *m,
                                      uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : end(&w, put_enc_kdc_rep_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_kdc_rep(const struct gk5i_krb_kdc_rep *m, uint8_t *out,
                             size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret : end(&w, put_kdc_rep(&w, m), out, cap, len);
}

/*
 * RFC 4537 2: the EtypeList goes in an AD-GSS-API-ETYPE-NEGOTIATION
 * element, itself inside AD-IF-RELEVANT (RFC 4120 5.2.6.1) so that an
 * acceptor that does not know it ignores it:
 *   AuthorizationData { { 1, AuthorizationData { { 129, EtypeList } } } }
 */
uint32_t gk5i_encode_etype_list_ad(const int32_t *etypes, size_t n,
                                   uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    size_t mark;

    if (len != NULL) {
        *len = 0;
    }
    if (len == NULL || (etypes == NULL && n != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_bwr_init(&w, out, cap);
    /* Every value below closes around all that was put before it. */
    mark = w.len;
    for (size_t i = n; i-- > 0;) {
        gk5i_der_put_int(&w, etypes[i]);
    }
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* EtypeList */
    gk5i_der_put_close(&w, GK5I_DER_OCTET_STRING, mark);
    gk5i_der_put_close(&w, GK5I_DER_CTX(1), mark);
    put_int_field(&w, 0, GK5I_AD_GSS_API_ETYPE_NEGOTIATION);
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* its element */
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* AuthorizationData */
    gk5i_der_put_close(&w, GK5I_DER_OCTET_STRING, mark);
    gk5i_der_put_close(&w, GK5I_DER_CTX(1), mark);
    put_int_field(&w, 0, GK5I_AD_IF_RELEVANT);
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* its element */
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* AuthorizationData */
    return end(&w, GK5_OK, out, cap, len);
}
