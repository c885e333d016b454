/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * DER encoders for the RFC 4120 messages of rfc4120.h: what the encoders
 * share (rfc4120_int.h), and EncryptedData.  The messages are in
 * rfc4120_encode_ap.c (Ticket, the AP exchange, KRB-ERROR) and
 * rfc4120_encode_kdc.c (the KDC exchanges).
 *
 * Each writes its type backwards (the last field first, a header once its
 * contents are counted) through the writer of src/common/bytes.h, which
 * counts when it has no buffer: the walk that measures is the walk that
 * writes.  An encoder refuses (GK5_ERR_INVALID_ARGUMENT) any field the
 * decoders would refuse, so that what gk5 sends it would also accept.
 */
#include <string.h>

#include "rfc4120_int.h"

/* A view the caller filled: p NULL is allowed only with len 0. */
bool gk5i_enc_view_ok(struct gk5i_view v)
{
    return v.p != NULL || v.len == 0;
}

/* ---- fields: [n] EXPLICIT around a primitive ---- */

void gk5i_enc_int_field(struct gk5i_bwr *w, unsigned n, int64_t v)
{
    size_t mark = w->len;

    gk5i_der_put_int(w, v);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
}

uint32_t gk5i_enc_usec_field(struct gk5i_bwr *w, unsigned n, uint32_t usec)
{
    if (usec > GK5I_KRB_USEC_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_enc_int_field(w, n, usec);
    return GK5_OK;
}

uint32_t gk5i_enc_prim_field(struct gk5i_bwr *w, unsigned n, uint8_t tag,
                             struct gk5i_view v)
{
    size_t mark = w->len;

    if (!gk5i_enc_view_ok(v)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_der_put_prim(w, tag, v.p, v.len);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return GK5_OK;
}

uint32_t gk5i_enc_time_field(struct gk5i_bwr *w, unsigned n, gk5i_krb_time t)
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
void gk5i_enc_flags_field(struct gk5i_bwr *w, unsigned n, uint32_t flags)
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

    ret = gk5i_enc_prim_field(w, 1, GK5I_DER_OCTET_STRING, value);
    if (ret != GK5_OK) {
        return ret;
    }
    gk5i_enc_int_field(w, 0, type);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return GK5_OK;
}

uint32_t gk5i_enc_type_and_octets_field(struct gk5i_bwr *w, unsigned n,
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
uint32_t gk5i_enc_list_field(struct gk5i_bwr *w, unsigned n,
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
uint32_t gk5i_enc_principal_field(struct gk5i_bwr *w, unsigned n,
                                  const struct gk5i_krb_principal *p)
{
    size_t mark = w->len;
    size_t names;

    if (p->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    names = w->len;
    for (size_t i = p->ncomp; i-- > 0;) {
        if (!gk5i_enc_view_ok(p->comp[i])) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        gk5i_der_put_prim(w, GK5I_DER_GENERAL_STRING, p->comp[i].p,
                          p->comp[i].len);
    }
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, names);
    gk5i_der_put_close(w, GK5I_DER_CTX(1), names);
    gk5i_enc_int_field(w, 0, p->name_type);
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

    ret = gk5i_enc_prim_field(w, 2, GK5I_DER_OCTET_STRING, e->cipher);
    if (ret != GK5_OK) {
        return ret;
    }
    if (e->has_kvno) {
        gk5i_enc_int_field(w, 1, e->kvno);
    }
    gk5i_enc_int_field(w, 0, e->etype);
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    return GK5_OK;
}

uint32_t gk5i_enc_enc_data_field(struct gk5i_bwr *w, unsigned n,
                                 const struct gk5i_krb_enc_data *e)
{
    size_t mark = w->len;
    uint32_t ret;

    ret = put_enc_data(w, e);
    gk5i_der_put_close(w, GK5I_DER_CTX(n), mark);
    return ret;
}

/* Closes a message: its SEQUENCE, then its [APPLICATION n]. */
void gk5i_enc_message_close(struct gk5i_bwr *w, unsigned app, size_t mark)
{
    gk5i_der_put_close(w, GK5I_DER_SEQUENCE, mark);
    gk5i_der_put_close(w, GK5I_DER_APP(app), mark);
}

/* ---- entry points ---- */

uint32_t gk5i_enc_start(struct gk5i_bwr *w, const void *m, uint8_t *out,
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
uint32_t gk5i_enc_end(struct gk5i_bwr *w, uint32_t ret, uint8_t *out,
                      size_t cap, size_t *len)
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

uint32_t gk5i_encode_enc_data(const struct gk5i_krb_enc_data *m, uint8_t *out,
                              size_t cap, size_t *len)
{
    struct gk5i_bwr w;
    uint32_t ret = gk5i_enc_start(&w, m, out, cap, len);

    return ret != GK5_OK ? ret
                         : gk5i_enc_end(&w, put_enc_data(&w, m), out, cap, len);
}
