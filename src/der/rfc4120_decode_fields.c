/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Strict DER decoders for the RFC 4120 messages of rfc4120.h: what the
 * decoders share (rfc4120_int.h).  The messages are in
 * rfc4120_decode_ap.c (Ticket, the AP exchange, KRB-ERROR) and
 * rfc4120_decode_kdc.c (the KDC exchanges).
 *
 * One decoder per type, each reading one value of its type from a bounded
 * reader.  `depth` is the number of constructed values around the one the
 * decoder reads; each decoder knows how deep its own type goes (the
 * LEVELS it opens on its deepest path).  A decoder that other decoders
 * enter (a sub-type, and Ticket) refuses, before reading, when its LEVELS
 * would pass GK5I_DER_MAX_DEPTH; a message's own decoder is entered only
 * by its entry point, at depth 0, where its LEVELS cannot pass it, and
 * checks nothing.  RFC 4120 gives these types a fixed shape, so the depth
 * of a message is bounded by its type (an AP-REQ reaches 9); the checks
 * keep the bound stated, should a recursive type ever be added.
 *
 * Malformed DER sets the reader's sticky `bad` (der.h); a decoder turns
 * that into GK5_ERR_DER when it returns.  The other answers travel as
 * return values and are combined with gk5i_dec_worst(): a limit passed is the
 * cause of whatever went wrong after it, and a wrong pvno, msg-type or
 * vno is reported only for a message that is otherwise well-formed.
 */
#include <string.h>

#include "rfc4120_int.h"

bool gk5i_dec_too_deep(unsigned depth, unsigned levels)
{
    return depth + levels > GK5I_DER_MAX_DEPTH;
}

static int rank(uint32_t ret)
{
    switch (ret) {
    case GK5_OK:
        return 0;
    case GK5_ERR_KRB_MSG_TYPE:
        return 1;
    case GK5_ERR_DER:
        return 2;
    default: /* GK5_ERR_DER_LIMIT */
        return 3;
    }
}

uint32_t gk5i_dec_worst(uint32_t a, uint32_t b)
{
    return rank(b) > rank(a) ? b : a;
}

/* The answer of a decoder whose reader is r: ret, unless r went bad. */
uint32_t gk5i_dec_finish(const struct gk5i_rd *r, uint32_t ret)
{
    return gk5i_dec_worst(ret, r->bad ? GK5_ERR_DER : GK5_OK);
}

/* ---- fields ---- */

static int64_t get_int_field(struct gk5i_rd *r, unsigned n, int64_t min,
                             int64_t max)
{
    struct gk5i_rd f;
    int64_t v;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    v = gk5i_der_get_int(&f, min, max);
    gk5i_der_leave(r, &f);
    return v;
}

/* RFC 4120 5.2.4: Int32. */
int32_t gk5i_dec_int32_field(struct gk5i_rd *r, unsigned n)
{
    return (int32_t)get_int_field(r, n, INT32_MIN, INT32_MAX);
}

/* RFC 4120 5.2.4: UInt32 (kvno). */
static uint32_t get_uint32_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)get_int_field(r, n, 0, UINT32_MAX);
}

uint32_t gk5i_dec_usec_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)get_int_field(r, n, 0, GK5I_KRB_USEC_MAX);
}

/* seq-number is a UInt32 (RFC 4120 5.5.1), but old Heimdal and Windows
 * send it as an Int32, negative from 2^31 on; MIT reads those as the
 * UInt32 with the same 32 bits, and so does gk5. */
uint32_t gk5i_dec_seq_number_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)(int64_t)get_int_field(r, n, INT32_MIN, UINT32_MAX);
}

struct gk5i_view gk5i_dec_prim_field(struct gk5i_rd *r, unsigned n, uint8_t tag)
{
    struct gk5i_rd f;
    struct gk5i_view v;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    v.p = gk5i_der_get_prim(&f, tag, &v.len);
    gk5i_der_leave(r, &f);
    return v;
}

gk5i_krb_time gk5i_dec_time_field(struct gk5i_rd *r, unsigned n)
{
    struct gk5i_view v = gk5i_dec_prim_field(r, n, GK5I_DER_GENERALIZED_TIME);
    gk5i_krb_time t = 0;

    if (!r->bad && gk5i_krb_time_parse(v.p, v.len, &t) != GK5_OK) {
        gk5i_der_refuse(r);
    }
    return t;
}

/*
 * KerberosFlags (RFC 4120 5.2.8): BIT STRING (SIZE (32..MAX)), "no fewer
 * than 32" bits.  MIT, Heimdal (its compiler's rfc1510 bit string option)
 * and Windows all send exactly 32: 05 contents octets, 00 unused bits.
 * gk5 takes what the RFC allows, 32 bits or more, and refuses fewer, which
 * no known peer sends.  The unused-bits octet is 0..7 and the bits it
 * covers are zero (X.690 11.2.1); bits past the 32nd name no flag gk5
 * knows and are dropped, so a longer string re-encodes as 32 bits.
 */
uint32_t gk5i_dec_flags_field(struct gk5i_rd *r, unsigned n)
{
    struct gk5i_view v = gk5i_dec_prim_field(r, n, GK5I_DER_BIT_STRING);
    unsigned unused;

    if (r->bad || v.len < 5) {
        gk5i_der_refuse(r);
        return 0;
    }
    unused = v.p[0];
    if (unused > 7 || (v.len - 1) * 8 - unused < 32 ||
        (v.p[v.len - 1] & ((1u << unused) - 1)) != 0) {
        gk5i_der_refuse(r);
        return 0;
    }
    return load_be32(v.p + 1);
}

/* ---- types ---- */

/*
 * The shape RFC 4120 gives six types: SEQUENCE { [first] Int32,
 * [first + 1] OCTET STRING } is, with first 0, EncryptionKey and Checksum
 * (5.2.9), TransitedEncoding (5.3), HostAddress (5.2.5) and an
 * AuthorizationData element (5.2.6); with first 1, PA-DATA (5.2.7).
 * LEVELS 2.
 */
uint32_t gk5i_dec_type_and_octets(struct gk5i_rd *r, unsigned depth,
                                  unsigned first, int32_t *type,
                                  struct gk5i_view *value)
{
    struct gk5i_rd seq;

    if (gk5i_dec_too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    *type = gk5i_dec_int32_field(&seq, first);
    *value = gk5i_dec_prim_field(&seq, first + 1, GK5I_DER_OCTET_STRING);
    gk5i_der_leave(r, &seq);
    return gk5i_dec_finish(r, GK5_OK);
}

/* HostAddresses (5.2.5), AuthorizationData (5.2.6) and METHOD-DATA
 * (5.2.7): a SEQUENCE OF that shape (gk5i_dec_type_and_octets, its first
 * tag first), checked and returned whole (tag and length included).  Empty
 * is allowed: the ASN.1 gives no SIZE.  LEVELS 3. */
static uint32_t decode_type_and_octets_list(struct gk5i_rd *r, unsigned depth,
                                            unsigned first,
                                            struct gk5i_view *whole)
{
    const uint8_t *start = r->p;
    struct gk5i_rd seq;
    uint32_t ret = GK5_OK;

    if (gk5i_dec_too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    while (ret == GK5_OK && gk5i_rd_left(&seq) > 0) {
        int32_t type;
        struct gk5i_view value;

        ret = gk5i_dec_type_and_octets(&seq, depth + 1, first, &type, &value);
    }
    gk5i_der_leave(r, &seq);
    ret = gk5i_dec_finish(r, ret);
    if (ret == GK5_OK) {
        whole->p = start;
        whole->len = (size_t)(r->p - start);
    }
    return ret;
}

/* PrincipalName (RFC 4120 5.2.2).  LEVELS 3. */
static uint32_t decode_principal(struct gk5i_rd *r, unsigned depth,
                                 struct gk5i_krb_principal *out)
{
    struct gk5i_rd seq, f, names;
    uint32_t ret = GK5_OK;

    if (gk5i_dec_too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->name_type = gk5i_dec_int32_field(&seq, 0);
    gk5i_der_enter(&seq, GK5I_DER_CTX(1), &f);
    gk5i_der_enter(&f, GK5I_DER_SEQUENCE, &names);
    while (gk5i_rd_left(&names) > 0) {
        struct gk5i_view *c;

        if (out->ncomp == GK5I_KRB_MAX_COMPONENTS) {
            ret = GK5_ERR_DER_LIMIT;
            break;
        }
        c = &out->comp[out->ncomp++];
        c->p = gk5i_der_get_prim(&names, GK5I_DER_GENERAL_STRING, &c->len);
    }
    gk5i_der_leave(&f, &names);
    gk5i_der_leave(&seq, &f);
    gk5i_der_leave(r, &seq);
    return gk5i_dec_finish(r, ret);
}

/* EncryptedData (RFC 4120 5.2.9).  LEVELS 2. */
static uint32_t decode_enc_data(struct gk5i_rd *r, unsigned depth,
                                struct gk5i_krb_enc_data *out)
{
    struct gk5i_rd seq;

    if (gk5i_dec_too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->etype = gk5i_dec_int32_field(&seq, 0);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(1))) {
        out->has_kvno = true;
        out->kvno = get_uint32_field(&seq, 1);
    }
    out->cipher = gk5i_dec_prim_field(&seq, 2, GK5I_DER_OCTET_STRING);
    gk5i_der_leave(r, &seq);
    return gk5i_dec_finish(r, GK5_OK);
}

/* The [n] EXPLICIT around a sub-type: opens f, the decoder reads inside. */
uint32_t gk5i_dec_key_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                            struct gk5i_krb_key *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret =
        gk5i_dec_type_and_octets(&f, depth + 1, 0, &out->keytype, &out->value);
    gk5i_der_leave(r, &f);
    return ret;
}

uint32_t gk5i_dec_principal_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                                  struct gk5i_krb_principal *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_principal(&f, depth + 1, out);
    gk5i_der_leave(r, &f);
    return ret;
}

uint32_t gk5i_dec_enc_data_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                                 struct gk5i_krb_enc_data *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_enc_data(&f, depth + 1, out);
    gk5i_der_leave(r, &f);
    return ret;
}

uint32_t gk5i_dec_list_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                             unsigned first, struct gk5i_view *whole)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_type_and_octets_list(&f, depth + 1, first, whole);
    gk5i_der_leave(r, &f);
    return ret;
}

/* INTEGER (5) or (msg-type): a wrong value, well-formed, is a message of
 * another kind or version (GK5_ERR_KRB_MSG_TYPE), not bad DER -- also one
 * outside Int32 (up to 64 bits), which MIT's decoders read and ignore for
 * msg-type. */
uint32_t gk5i_dec_check_int_field(struct gk5i_rd *r, unsigned n, int32_t want)
{
    int64_t v = get_int_field(r, n, INT64_MIN, INT64_MAX);

    return !r->bad && v != want ? GK5_ERR_KRB_MSG_TYPE : GK5_OK;
}

/* ---- entry points ---- */

/* The whole of in[0..len) is one message: the size limit first, then
 * nothing may follow it.  *out (size bytes) is zeroed first. */
uint32_t gk5i_dec_start(struct gk5i_rd *r, const uint8_t *in, size_t len,
                        void *out, size_t size)
{
    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    zap(out, size); /* zeroed: the outputs start empty */
    if (in == NULL && len != 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(r, in, len);
    return GK5_OK;
}

/* The decoder's verdict, refused too if bytes follow the message; on
 * failure *out (size bytes) holds nothing to rely on. */
uint32_t gk5i_dec_end(const struct gk5i_rd *r, uint32_t ret, void *out,
                      size_t size)
{
    ret = gk5i_dec_worst(ret, gk5i_rd_at_end(r) ? GK5_OK : GK5_ERR_DER);
    if (ret != GK5_OK) {
        zap(out, size);
    }
    return ret;
}

/* ---- the walk over a SEQUENCE OF carried whole ---- */

/*
 * The walks over a SEQUENCE OF carried whole (AuthorizationData, PA-DATA,
 * ETYPE-INFO2).  *pos 0 is before the SEQUENCE OF header (which is at
 * least two octets, so no element starts there) and afterwards the offset
 * of the next element.  The header is read again on every call: it is a
 * few octets, and no state beyond *pos is needed.
 *
 * gk5i_dec_seq_of_next checks the view, its header and *pos and, unless the
 * walk is at its end (GK5_OK, *at_end true), gives a reader over the rest from
 * the next element on; the caller reads one element from it and moves *pos
 * to where the reader stopped.
 */
uint32_t gk5i_dec_seq_of_next(struct gk5i_view seq, const size_t *pos,
                              struct gk5i_rd *elem, bool *at_end)
{
    struct gk5i_rd r, in;
    size_t first, offset;

    *at_end = true;
    if (seq.len == 0) {
        return GK5_OK;
    }
    if (seq.len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(&r, seq.p, seq.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &in);
    if (!gk5i_rd_at_end(&r) || in.bad) {
        return GK5_ERR_DER;
    }
    first = (size_t)(in.p - seq.p);
    offset = *pos == 0 ? first : *pos;
    if (offset < first || offset > seq.len) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (offset == seq.len) {
        return GK5_OK;
    }
    *at_end = false;
    gk5i_rd_init(elem, seq.p + offset, seq.len - offset);
    return GK5_OK;
}

uint32_t gk5i_dec_pair_next(struct gk5i_view seq, size_t *pos, unsigned first,
                            bool *more, int32_t *type, struct gk5i_view *value)
{
    struct gk5i_rd elem;
    bool at_end;
    uint32_t ret;

    if (more != NULL) {
        *more = false;
    }
    if (type != NULL) {
        *type = 0;
    }
    if (value != NULL) {
        memset(value, 0, sizeof(*value));
    }
    if (pos == NULL || more == NULL || type == NULL || value == NULL ||
        (seq.p == NULL && seq.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = gk5i_dec_seq_of_next(seq, pos, &elem, &at_end);
    if (ret != GK5_OK || at_end) {
        return ret;
    }
    ret = gk5i_dec_type_and_octets(&elem, 1, first, type, value);
    if (ret != GK5_OK) {
        *type = 0;
        zap(value, sizeof(*value));
        return ret;
    }
    *pos = (size_t)(elem.p - seq.p);
    *more = true;
    return GK5_OK;
}
