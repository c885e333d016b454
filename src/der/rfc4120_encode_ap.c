/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 encoders of a ticket and the AP exchange: Ticket and
 * EncTicketPart (5.3), Authenticator, AP-REQ, AP-REP and EncAPRepPart
 * (5.5), KRB-ERROR (5.9.1), and RFC 4537's EtypeList inside its
 * AuthorizationData.  How they write heads rfc4120_encode_fields.c.
 */
#include <string.h>

#include "rfc4120_int.h"

/* Ticket (RFC 4120 5.3). */
uint32_t gk5i_enc_ticket(struct gk5i_bwr *w, const struct gk5i_krb_ticket *m)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = gk5i_enc_enc_data_field(w, 3, &m->enc_part);
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 2, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 1, GK5I_DER_GENERAL_STRING, m->realm);
    }
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO); /* tkt-vno */
    gk5i_enc_message_close(w, GK5I_KRB_TAG_TICKET, mark);
    return ret;
}

/* EncTicketPart (RFC 4120 5.3). */
static uint32_t put_enc_tkt_part(struct gk5i_bwr *w,
                                 const struct gk5i_krb_enc_tkt_part *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->authorization_data.len != 0) {
        ret = gk5i_enc_list_field(w, 10, m->authorization_data);
    }
    if (ret == GK5_OK && m->caddr.len != 0) {
        ret = gk5i_enc_list_field(w, 9, m->caddr);
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
        ret = gk5i_enc_type_and_octets_field(w, 4, m->transited_type,
                                             m->transited_contents);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 3, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 2, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK) {
        ret =
            gk5i_enc_type_and_octets_field(w, 1, m->key.keytype, m->key.value);
    }
    gk5i_enc_flags_field(w, 0, m->flags);
    gk5i_enc_message_close(w, GK5I_KRB_TAG_ENC_TKT_PART, mark);
    return ret;
}

/*
 * seq-number (RFC 4120 5.5.1) is a UInt32 and goes out as one: a
 * non-negative INTEGER of up to five octets.  MIT writes it so; the
 * decoders also take the negative Int32 form old Heimdal and Windows send.
 */
static void put_seq_number_field(struct gk5i_bwr *w, unsigned n, uint32_t seq)
{
    gk5i_enc_int_field(w, n, seq);
}

/* Authenticator (RFC 4120 5.5.1). */
static uint32_t put_authenticator(struct gk5i_bwr *w,
                                  const struct gk5i_krb_authenticator *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->authorization_data.len != 0) {
        ret = gk5i_enc_list_field(w, 8, m->authorization_data);
    }
    if (ret == GK5_OK && m->has_seq_number) {
        put_seq_number_field(w, 7, m->seq_number);
    }
    if (ret == GK5_OK && m->has_subkey) {
        ret = gk5i_enc_type_and_octets_field(w, 6, m->subkey.keytype,
                                             m->subkey.value);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 5, m->ctime);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_usec_field(w, 4, m->cusec);
    }
    if (ret == GK5_OK && m->has_cksum) {
        ret = gk5i_enc_type_and_octets_field(w, 3, m->cksum.cksumtype,
                                             m->cksum.value);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 2, &m->cname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 1, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO); /* authenticator-vno */
    gk5i_enc_message_close(w, GK5I_KRB_TAG_AUTHENTICATOR, mark);
    return ret;
}

/* AP-REQ (RFC 4120 5.5.1). */
static uint32_t put_ap_req(struct gk5i_bwr *w, const struct gk5i_krb_ap_req *m)
{
    size_t mark = w->len;
    size_t ticket;
    uint32_t ret;

    ret = gk5i_enc_enc_data_field(w, 4, &m->authenticator);
    ticket = w->len;
    if (ret == GK5_OK && m->ticket_der.len != 0) {
        struct gk5i_krb_ticket check;

        /* Bytes a KDC gave the initiator: sent only if they are a Ticket
         * the acceptor's decoder (gk5's own, at least) will take. */
        if (!gk5i_enc_view_ok(m->ticket_der) ||
            gk5i_decode_ticket(m->ticket_der.p, m->ticket_der.len, &check) !=
                GK5_OK) {
            ret = GK5_ERR_INVALID_ARGUMENT;
        } else {
            gk5i_bwr_put_bytes(w, m->ticket_der.p, m->ticket_der.len);
        }
    } else if (ret == GK5_OK) {
        ret = gk5i_enc_ticket(w, &m->ticket);
    }
    gk5i_der_put_close(w, GK5I_DER_CTX(3), ticket);
    gk5i_enc_flags_field(w, 2, m->ap_options);
    gk5i_enc_int_field(w, 1, GK5I_KRB_TAG_AP_REQ);
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO);
    gk5i_enc_message_close(w, GK5I_KRB_TAG_AP_REQ, mark);
    return ret;
}

/* AP-REP (RFC 4120 5.5.2). */
static uint32_t put_ap_rep(struct gk5i_bwr *w, const struct gk5i_krb_ap_rep *m)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = gk5i_enc_enc_data_field(w, 2, &m->enc_part);
    gk5i_enc_int_field(w, 1, GK5I_KRB_TAG_AP_REP);
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO);
    gk5i_enc_message_close(w, GK5I_KRB_TAG_AP_REP, mark);
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
        ret = gk5i_enc_type_and_octets_field(w, 2, m->subkey.keytype,
                                             m->subkey.value);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_usec_field(w, 1, m->cusec);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 0, m->ctime);
    }
    gk5i_enc_message_close(w, GK5I_KRB_TAG_ENC_AP_REP_PART, mark);
    return ret;
}

/* KRB-ERROR (RFC 4120 5.9.1). */
static uint32_t put_krb_error(struct gk5i_bwr *w,
                              const struct gk5i_krb_error *m)
{
    size_t mark = w->len;
    uint32_t ret = GK5_OK;

    if (m->has_e_data) {
        ret = gk5i_enc_prim_field(w, 12, GK5I_DER_OCTET_STRING, m->e_data);
    }
    if (ret == GK5_OK && m->has_e_text) {
        ret = gk5i_enc_prim_field(w, 11, GK5I_DER_GENERAL_STRING, m->e_text);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_principal_field(w, 10, &m->sname);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_prim_field(w, 9, GK5I_DER_GENERAL_STRING, m->realm);
    }
    if (ret == GK5_OK && m->has_cname) {
        ret = gk5i_enc_principal_field(w, 8, &m->cname);
    }
    if (ret == GK5_OK && m->has_crealm) {
        ret = gk5i_enc_prim_field(w, 7, GK5I_DER_GENERAL_STRING, m->crealm);
    }
    if (ret == GK5_OK) {
        gk5i_enc_int_field(w, 6, m->error_code);
        ret = gk5i_enc_usec_field(w, 5, m->susec);
    }
    if (ret == GK5_OK) {
        ret = gk5i_enc_time_field(w, 4, m->stime);
    }
    if (ret == GK5_OK && m->has_cusec) {
        ret = gk5i_enc_usec_field(w, 3, m->cusec);
    }
    if (ret == GK5_OK && m->has_ctime) {
        ret = gk5i_enc_time_field(w, 2, m->ctime);
    }
    gk5i_enc_int_field(w, 1, GK5I_KRB_TAG_ERROR);
    gk5i_enc_int_field(w, 0, GK5I_KRB_PVNO);
    gk5i_enc_message_close(w, GK5I_KRB_TAG_ERROR, mark);
    return ret;
}

/* ---- entry points ---- */

uint32_t gk5i_encode_ticket(const struct gk5i_krb_ticket *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, gk5i_enc_ticket(&w, m), out, cap, len);
}

uint32_t gk5i_encode_enc_tkt_part(const struct gk5i_krb_enc_tkt_part *m,
                                  uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_enc_tkt_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_authenticator(const struct gk5i_krb_authenticator *m,
                                   uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_authenticator(&w, m), out, cap, len);
}

uint32_t gk5i_encode_ap_req(const struct gk5i_krb_ap_req *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : gk5i_enc_end(&w, put_ap_req(&w, m), out, cap, len);
}

uint32_t gk5i_encode_ap_rep(const struct gk5i_krb_ap_rep *m, uint8_t *out,
                            size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : gk5i_enc_end(&w, put_ap_rep(&w, m), out, cap, len);
}

uint32_t gk5i_encode_enc_ap_rep_part(const struct gk5i_krb_enc_ap_rep_part *m,
                                     uint8_t *out, size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_enc_ap_rep_part(&w, m), out, cap, len);
}

uint32_t gk5i_encode_krb_error(const struct gk5i_krb_error *m, uint8_t *out,
                               size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK
               ? ret
               : gk5i_enc_end(&w, put_krb_error(&w, m), out, cap, len);
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
    gk5i_enc_int_field(&w, 0, GK5I_AD_GSS_API_ETYPE_NEGOTIATION);
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* its element */
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* AuthorizationData */
    gk5i_der_put_close(&w, GK5I_DER_OCTET_STRING, mark);
    gk5i_der_put_close(&w, GK5I_DER_CTX(1), mark);
    gk5i_enc_int_field(&w, 0, GK5I_AD_IF_RELEVANT);
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* its element */
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, mark); /* AuthorizationData */
    return gk5i_enc_end(&w, GK5_OK, out, cap, len);
}
