/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2743 3.1 token framing (gss_framing.h): the one place it is built
 * and checked.
 */
#include <string.h>

#include "gss_framing.h"

/* RFC 2743 3.1: the [APPLICATION 0] tag that starts a framed token. */
#define FRAME_TAG 0x60u

/* RFC 1964 1: the mech OID 1.2.840.113554.1.2.2, DER. */
static const uint8_t krb5_oid_der[GK5I_FRAME_OID_BYTES] = {
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02};
/* Microsoft's krb5 OID, 1.2.840.48018.1.2.2: Windows initiators frame
 * their AP-REQs with it, and MIT's acceptor takes it too. */
static const uint8_t ms_krb5_oid_der[GK5I_FRAME_OID_BYTES] = {
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x82, 0xf7, 0x12, 0x01, 0x02, 0x02};

static const uint8_t *mech_oid_der(enum gk5i_frame_mech mech)
{
    return mech == GK5I_MECH_MS_KRB5 ? ms_krb5_oid_der : krb5_oid_der;
}

enum gk5i_der_status gk5i_der_get_length(struct gk5i_rd *r, size_t max_octets,
                                         struct gk5i_der_len *out)
{
    const uint8_t *lo;
    uint8_t first;
    size_t k;

    memset(out, 0, sizeof(*out));
    first = gk5i_get_u8(r);
    if (r->bad) {
        return GK5I_DER_TRUNCATED;
    }
    if (first < 0x80) {
        out->len = first;
        out->octets = 1;
        out->minimal = true;
        return GK5I_DER_OK;
    }
    k = first & 0x7fu;
    out->octets = 1 + k;
    if (k == 0) {
        return GK5I_DER_INDEFINITE;
    }
    if (k > max_octets) {
        return GK5I_DER_TOO_LONG;
    }
    lo = gk5i_get_bytes(r, k);
    if (lo == NULL) {
        return GK5I_DER_TRUNCATED;
    }
    for (size_t i = 0; i < k; i++) {
        out->len = out->len << 8 | lo[i];
    }
    /* The shortest form: no leading zero octet, and the long form only
     * for 0x80 and up. */
    out->minimal = lo[0] != 0 && out->len >= 0x80;
    return GK5I_DER_OK;
}

/* The DER length octets for len. */
static size_t der_length_bytes(size_t len)
{
    size_t n = 1;

    if (len >= 0x80) {
        for (size_t l = len; l != 0; l >>= 8) {
            n++;
        }
    }
    return n;
}

size_t gk5i_frame_token_bytes(size_t inner)
{
    size_t len;

    if (inner > GK5I_FRAME_DER_LEN_MAX - GK5I_FRAME_OID_BYTES) {
        return 0;
    }
    len = GK5I_FRAME_OID_BYTES + inner;
    return 1 + der_length_bytes(len) + len;
}

size_t gk5i_frame_max_inner(size_t out_max)
{
    /* 0x60, one length octet and the OID: the least framing there is. */
    const size_t min_framing = 2 + GK5I_FRAME_OID_BYTES;
    size_t inner;

    if (out_max < min_framing) {
        return 0;
    }
    /* Start from one length octet and give back what longer DER lengths
     * take (at most four more). */
    inner = out_max - min_framing;
    if (inner > GK5I_FRAME_DER_LEN_MAX - GK5I_FRAME_OID_BYTES) {
        inner = GK5I_FRAME_DER_LEN_MAX - GK5I_FRAME_OID_BYTES;
    }
    while (inner > 0 && gk5i_frame_token_bytes(inner) > out_max) {
        inner--;
    }
    return inner;
}

size_t gk5i_frame_put(uint8_t *p, size_t inner)
{
    return gk5i_frame_put_mech(p, inner, GK5I_MECH_KRB5);
}

size_t gk5i_frame_put_mech(uint8_t *p, size_t inner, enum gk5i_frame_mech mech)
{
    size_t len = GK5I_FRAME_OID_BYTES + inner;
    size_t nlen = der_length_bytes(len);
    struct gk5i_wr w;

    gk5i_wr_init(&w, p, 1 + nlen + GK5I_FRAME_OID_BYTES);
    gk5i_put_u8(&w, FRAME_TAG);
    if (nlen == 1) {
        gk5i_put_u8(&w, (uint8_t)len);
    } else {
        gk5i_put_u8(&w, (uint8_t)(0x80u | (nlen - 1)));
        for (size_t i = nlen - 1; i > 0; i--) {
            gk5i_put_u8(&w, (uint8_t)(len >> (8 * (i - 1))));
        }
    }
    gk5i_put_bytes(&w, mech_oid_der(mech), GK5I_FRAME_OID_BYTES);
    return (size_t)(w.p - p);
}

uint32_t gk5i_frame_parse(const uint8_t *p, size_t avail, size_t total,
                          size_t *inner)
{
    enum gk5i_frame_mech mech;
    uint32_t ret = gk5i_frame_parse_mech(p, avail, total, inner, &mech);

    if (ret == GK5_OK && mech != GK5I_MECH_KRB5) {
        *inner = 0;
        return GK5_ERR_TOKEN_FRAMING;
    }
    return ret;
}

uint32_t gk5i_frame_parse_mech(const uint8_t *p, size_t avail, size_t total,
                               size_t *inner, enum gk5i_frame_mech *mech)
{
    struct gk5i_rd r;
    struct gk5i_der_len dl;
    const uint8_t *oid;
    size_t off;

    *inner = 0;
    *mech = GK5I_MECH_KRB5;
    if (avail < 2) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    gk5i_rd_init(&r, p, avail);
    if (gk5i_get_u8(&r) != FRAME_TAG) {
        return GK5_ERR_TOKEN_FRAMING;
    }
    switch (gk5i_der_get_length(&r, 4, &dl)) {
    case GK5I_DER_OK:
        break;
    case GK5I_DER_TRUNCATED:
        return GK5_ERR_TOKEN_TRUNCATED;
    case GK5I_DER_INDEFINITE:
    case GK5I_DER_TOO_LONG:
    default:
        return GK5_ERR_TOKEN_FRAMING;
    }
    if (!dl.minimal) {
        return GK5_ERR_TOKEN_FRAMING;
    }
    off = 1 + dl.octets;
    if (dl.len > total - off) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    if (dl.len < total - off) {
        return GK5_ERR_TOKEN_TRAILING;
    }
    oid = gk5i_get_bytes(&r, GK5I_FRAME_OID_BYTES);
    if (dl.len < GK5I_FRAME_OID_BYTES || oid == NULL) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    /* Public bytes (the mechanism OID), not a secret: plain memcmp. */
    if (memcmp(oid, krb5_oid_der, GK5I_FRAME_OID_BYTES) == 0) {
        *mech = GK5I_MECH_KRB5;
    } else if (memcmp(oid, ms_krb5_oid_der, GK5I_FRAME_OID_BYTES) == 0) {
        *mech = GK5I_MECH_MS_KRB5;
    } else {
        return GK5_ERR_TOKEN_FRAMING;
    }
    *inner = off + GK5I_FRAME_OID_BYTES;
    return GK5_OK;
}
