/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 4121 per-message tokens: MIC (4.2.6.1) and Wrap (4.2.6.2), built and
 * checked in place over the caller's IOV buffers.
 *
 * Buffer layouts are MIT krb5's gss_wrap_iov ones, so that IOV callers
 * written for MIT work unchanged:
 *   sealed Wrap with a TRAILER buffer (RRC 0)
 *     HEADER  = token header (16) | confounder
 *     DATA... encrypted in place; SIGN_ONLY... covered by the MAC, not sent
 *     TRAILER = EC filler | E(header copy) (16) | MAC
 *   sealed Wrap without a TRAILER: the trailer is rotated into the HEADER,
 *     HEADER  = token header | EC filler | E(header copy) | MAC | confounder
 *     with RRC = EC + 16 + MAC length (RFC 4121 4.2.5)
 *   integrity-only Wrap: HEADER = token header, TRAILER = checksum; without
 *     a TRAILER the checksum follows the header and RRC = its length
 *   MIC: MIC_TOKEN = token header | checksum
 * A whole Wrap token in one STREAM buffer is un-rotated in place (any RRC)
 * and then split into that layout.  We send EC 0 (every RFC 4121 enctype
 * gk5 has is a CTS or counter-free cipher needing no padding) and RRC 0
 * unless the caller's layout asks for the rotation.
 *
 * Crypto segments are built in a stack array: nothing here allocates.
 */
#include <stdarg.h>
#include <string.h>

#include "mech_int.h"
#include "token_header.h"

/* The caller's buffers plus confounder, header copy and MAC (or header and
 * checksum). */
#define SEG_MAX (GK5I_IOV_MAX + 3)

/* The parts of a Wrap token once its layout is known. */
struct cfx_parts {
    const uint8_t *hdr; /* the 16-octet header */
    uint8_t *conf;      /* sealed: the confounder (crypto HEADER) */
    uint8_t *tail;      /* sealed: EC filler | header copy | MAC;
                           integrity-only: the checksum */
};

static bool is_initiator(const gk5_ctx *ctx)
{
    return (ctx->ctxflags & GK5_CTXF_INITIATOR) != 0;
}

/* RFC 4121 4.2.2: the flags of a token we send. */
static uint8_t send_flags(const gk5_ctx *ctx, bool sealed)
{
    uint8_t flags = 0;

    if (!is_initiator(ctx)) {
        flags |= CFX_FLAG_SENT_BY_ACCEPTOR;
    }
    if (sealed) {
        flags |= CFX_FLAG_SEALED;
    }
    if ((ctx->ctxflags & GK5_CTXF_ACCEPTOR_SUBKEY) != 0) {
        flags |= CFX_FLAG_ACCEPTOR_SUBKEY;
    }
    return flags;
}

/* Sealed Wrap: EC filler | header copy | MAC. */
static size_t sealed_tail_len(const struct gk5_enctype *et, size_t ec)
{
    return ec + CFX_HDR_LEN + et->mac_bytes;
}

static gk5_iov_buffer *find_iov(gk5_iov_buffer *iov, int iov_count,
                                uint32_t type)
{
    for (int i = 0; i < iov_count; i++) {
        if (GK5_IOV_BUFFER_TYPE(iov[i].type) == type) {
            return &iov[i];
        }
    }
    return NULL;
}

static gk5_crypto_iov seg(uint32_t flags, void *data, size_t length)
{
    gk5_crypto_iov s = {.flags = flags, .data = data, .length = length};

    return s;
}

/* Appends the message: the caller's DATA (crypto DATA: encrypted when
 * sealing) and SIGN_ONLY buffers, in array order, as RFC 4121 4.2.4 has the
 * checksum "calculated first over the to-be-signed plaintext data". */
static size_t add_message(gk5_crypto_iov *segs, size_t k,
                          const gk5_iov_buffer *iov, int iov_count)
{
    for (int i = 0; i < iov_count; i++) {
        uint32_t type = GK5_IOV_BUFFER_TYPE(iov[i].type);

        if (iov[i].buffer.length == 0) {
            continue;
        }
        if (type == GK5_IOV_BUFFER_TYPE_DATA) {
            segs[k++] = seg(GK5_CRYPTO_IOV_DATA, iov[i].buffer.value,
                            iov[i].buffer.length);
        } else if (type == GK5_IOV_BUFFER_TYPE_SIGN_ONLY) {
            segs[k++] = seg(GK5_CRYPTO_IOV_SIGN_ONLY, iov[i].buffer.value,
                            iov[i].buffer.length);
        }
    }
    return k;
}

/* No plaintext may leave a failed unwrap. */
static void wipe_data(gk5_iov_buffer *iov, int iov_count)
{
    for (int i = 0; i < iov_count; i++) {
        if (GK5_IOV_BUFFER_TYPE(iov[i].type) == GK5_IOV_BUFFER_TYPE_DATA) {
            zap(iov[i].buffer.value, iov[i].buffer.length);
        }
    }
}

/* One answer for every failed integrity check (MAC, checksum, CTS length,
 * padding): only a broken backend or memory is reported as itself. */
static GK5_WUR uint32_t integrity_failure(uint32_t err)
{
    if (err == GK5_ERR_NOMEM || err == GK5_ERR_CRYPTO_BACKEND) {
        return err;
    }
    return GK5_ERR_INTEGRITY;
}

/* ---- tracing (called only when GK5_TRACE_ON()) ----
 * Header fields are public (they travel in clear); nothing after the
 * header is ever shown. */

static const char *op_name(uint16_t tok_id)
{
    return tok_id == TOK_ID_CFX_MIC ? "verify_mic" : "unwrap";
}

/* "ctx N: OP: TEXT (flags 0x03 SentByAcceptor Sealed, EC 0, RRC 0,
 * SND_SEQ 5)": a token whose header parsed. */
static void __attribute__((cold, format(printf, 4, 5)))
trace_tok(const gk5_ctx *ctx, uint16_t tok_id, const struct gk5i_cfx_header *h,
          const char *fmt, ...)
{
    struct gk5i_trace_buf b;
    va_list ap;

    gk5i_trace_buf_init(&b);
    gk5i_trace_buf_add(&b, "ctx %u: %s: ", ctx->trace_id, op_name(tok_id));
    va_start(ap, fmt);
    gk5i_trace_buf_vadd(&b, fmt, ap);
    va_end(ap);
    gk5i_trace_buf_add(
        &b, " (TOK_ID %02x %02x, flags 0x%02x%s%s%s", tok_id >> 8,
        tok_id & 0xff, h->flags,
        (h->flags & CFX_FLAG_SENT_BY_ACCEPTOR) ? " SentByAcceptor" : "",
        (h->flags & CFX_FLAG_SEALED) ? " Sealed" : "",
        (h->flags & CFX_FLAG_ACCEPTOR_SUBKEY) ? " AcceptorSubkey" : "");
    if (tok_id == TOK_ID_CFX_WRAP) {
        gk5i_trace_buf_add(&b, ", EC %u, RRC %u", h->ec, h->rrc);
    }
    gk5i_trace_buf_add(&b, ", SND_SEQ %llu)", (unsigned long long)h->seq);
    gk5i_trace("%s", b.text);
}

/* A header parse_header refused: what was wrong, against what this
 * context wants, and the header bytes that arrived (at most 16). */
static void __attribute__((cold))
trace_bad_header(const gk5_ctx *ctx, const uint8_t *p, size_t len,
                 uint16_t tok_id, uint32_t err)
{
    bool initiator = is_initiator(ctx);
    bool subkey = (ctx->ctxflags & GK5_CTXF_ACCEPTOR_SUBKEY) != 0;
    struct gk5i_trace_buf b;
    char words[256];

    gk5i_trace_words(err, words, sizeof(words));
    gk5i_trace_buf_init(&b);
    gk5i_trace_buf_add(&b, "ctx %u: %s: token header: %s", ctx->trace_id,
                       op_name(tok_id), words);
    switch (GK5_ERR_CODE(err)) {
    case GK5_ERR_TOKEN_ID:
        gk5i_trace_buf_add(&b, "; want TOK_ID %02x %02x", tok_id >> 8,
                           tok_id & 0xff);
        break;
    case GK5_ERR_TOKEN_DIRECTION:
        gk5i_trace_buf_add(&b, "; we are the %s: want SentByAcceptor %s",
                           initiator ? "initiator" : "acceptor",
                           initiator ? "set" : "clear");
        break;
    case GK5_ERR_TOKEN_SUBKEY_FLAG:
        gk5i_trace_buf_add(&b,
                           "; the context has %s acceptor subkey: want "
                           "AcceptorSubkey %s",
                           subkey ? "an" : "no", subkey ? "set" : "clear");
        break;
    case GK5_ERR_TOKEN_FLAGS:
        gk5i_trace_buf_add(&b, "; a MIC is never Sealed");
        break;
    default:
        break;
    }
    gk5i_trace_buf_add(&b, " (%zu bytes%s", len, len != 0 ? ":" : "");
    for (size_t i = 0; i < len && i < CFX_HDR_LEN; i++) {
        gk5i_trace_buf_add(&b, " %02x", p[i]);
    }
    gk5i_trace_buf_add(&b, ")");
    gk5i_trace("%s", b.text);
}

/* A failed decryption or checksum: one answer whatever failed (MAC,
 * padding, header copy), with the key usage it was checked under. */
static void __attribute__((cold))
trace_integrity(const gk5_ctx *ctx, uint16_t tok_id,
                const struct gk5i_cfx_header *h, enum gk5_uk_slot slot,
                uint32_t err)
{
    char words[256];

    if (err == GK5_ERR_INTEGRITY) {
        trace_tok(ctx, tok_id, h, "integrity check failed: %s, key usage %u",
                  tok_id == TOK_ID_CFX_MIC            ? "MIC"
                  : (h->flags & CFX_FLAG_SEALED) != 0 ? "sealed"
                                                      : "integrity only",
                  (unsigned)gk5i_slot_usage(ctx, slot));
    } else {
        gk5i_trace_words(err, words, sizeof(words));
        trace_tok(ctx, tok_id, h, "%s", words);
    }
}

/* RFC 4121 4.2.6.1 / 4.2.6.2: the 16-octet header.  A MIC has five filler
 * octets where a Wrap has filler, EC and RRC. */
static inline void put_header(uint8_t *p, uint16_t tok_id, uint8_t flags,
                              uint16_t ec, uint16_t rrc, uint64_t seq)
{
    struct gk5i_cfx_header h = {
        .tok_id = tok_id,
        .flags = flags,
        .filler = 0xff,
        .ec = tok_id == TOK_ID_CFX_MIC ? 0xffff : ec,
        .rrc = tok_id == TOK_ID_CFX_MIC ? 0xffff : rrc,
        .seq = seq,
    };
    struct gk5i_wr w;

    gk5i_wr_init(&w, p, CFX_HDR_LEN);
    gk5i_cfx_put_header(&w, &h);
}

/*
 * RFC 4121 4.2.2, 4.2.6: the receiver's header checks, in order: token ID,
 * flags (SentByAcceptor must name the peer: a token in our own direction is
 * reflected; AcceptorSubkey must match the key we hold; a MIC is never
 * Sealed), filler.  Unknown flag bits are ignored ("The receiver MUST
 * ignore unknown flags"); in a sealed token they are still checked through
 * the encrypted header copy.
 */
static GK5_WUR uint32_t check_header(const gk5_ctx *ctx, const uint8_t *p,
                                     size_t len, uint16_t tok_id,
                                     struct gk5i_cfx_header *h)
{
    uint8_t want_dir = is_initiator(ctx) ? CFX_FLAG_SENT_BY_ACCEPTOR : 0;
    uint8_t want_subkey = (ctx->ctxflags & GK5_CTXF_ACCEPTOR_SUBKEY) != 0
                              ? CFX_FLAG_ACCEPTOR_SUBKEY
                              : 0;
    struct gk5i_rd r;

    if (len < 2) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    if (load_be16(p) != tok_id) {
        return GK5_ERR_TOKEN_ID;
    }
    if (len < CFX_HDR_LEN) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    /* A reader of constant length: the header is 16 plain loads. */
    gk5i_rd_init(&r, p, CFX_HDR_LEN);
    gk5i_cfx_get_header(&r, h);
    if ((h->flags & CFX_FLAG_SENT_BY_ACCEPTOR) != want_dir) {
        return GK5_ERR_TOKEN_DIRECTION;
    }
    if ((h->flags & CFX_FLAG_ACCEPTOR_SUBKEY) != want_subkey) {
        return GK5_ERR_TOKEN_SUBKEY_FLAG;
    }
    if (tok_id == TOK_ID_CFX_MIC) {
        if ((h->flags & CFX_FLAG_SEALED) != 0) {
            return GK5_ERR_TOKEN_FLAGS;
        }
        /* Filler octets 3..7 (where a Wrap has filler, EC and RRC). */
        if (h->filler != 0xff || h->ec != 0xffff || h->rrc != 0xffff) {
            return GK5_ERR_TOKEN_FILLER;
        }
    } else if (h->filler != 0xff) {
        return GK5_ERR_TOKEN_FILLER;
    }
    return GK5_OK;
}

static GK5_WUR uint32_t parse_header(const gk5_ctx *ctx, const uint8_t *p,
                                     size_t len, uint16_t tok_id,
                                     struct gk5i_cfx_header *h)
{
    uint32_t err = check_header(ctx, p, len, tok_id, h);

    if (err != GK5_OK && GK5_TRACE_ON()) {
        trace_bad_header(ctx, p, len, tok_id, err);
    }
    return err;
}

/* Rotates p[0..n) left by r (r < n) in place: three reversals, no
 * scratch. */
static void reverse(uint8_t *p, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        uint8_t t = p[i];

        p[i] = p[j - 1];
        p[j - 1] = t;
    }
}

static void rotate_left(uint8_t *p, size_t n, size_t r)
{
    if (n == 0 || r == 0) {
        return;
    }
    reverse(p, r);
    reverse(p + r, n - r);
    reverse(p, n);
}

/* Lengths of the HEADER and TRAILER buffers of our Wrap token and the RRC
 * that layout means. */
static void wrap_lengths(const struct gk5_enctype *et, bool sealed,
                         bool have_trailer, size_t *header_len,
                         size_t *trailer_len, uint16_t *rrc)
{
    size_t front = CFX_HDR_LEN + (sealed ? et->conf_bytes : 0);
    size_t tail = sealed ? sealed_tail_len(et, 0) : et->cksum_bytes;

    if (have_trailer) {
        *header_len = front;
        *trailer_len = tail;
        *rrc = 0;
    } else {
        *header_len = front + tail;
        *trailer_len = 0;
        *rrc = (uint16_t)tail;
    }
}

/*
 * RFC 4121 4.2.6.2 (Wrap), 4.2.4: with confidentiality the plaintext is
 * the data, EC filler octets (none: EC 0) and a copy of the header with
 * RRC 0, encrypted with the sender's seal usage; without it the checksum
 * (Kc of the seal usage) covers the data and then the header with EC and
 * RRC zero, and EC then carries the checksum length.
 */
static GK5_WUR uint32_t cfx_wrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                     struct gk5_lane *lane, int conf_req,
                                     int *conf_state, gk5_iov_buffer *iov,
                                     int iov_count)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_crypto_iov segs[SEG_MAX];
    gk5_iov_buffer *header, *trailer, *padding;
    bool sealed = conf_req != 0;
    size_t header_len, trailer_len, k = 0;
    uint8_t *hdr, *tail;
    uint16_t rrc;
    uint64_t seq;
    uint32_t err;

    if (conf_state != NULL) {
        *conf_state = 0;
    }
    header = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_HEADER);
    trailer = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_TRAILER);
    padding = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_PADDING);
    /* iov.c has checked the layout (mech_int.h): the HEADER is there. */
    wrap_lengths(et, sealed, trailer != NULL, &header_len, &trailer_len, &rrc);
    if (header->buffer.length < header_len ||
        (trailer != NULL && trailer->buffer.length < trailer_len)) {
        err = GK5_ERR_BUFFER_TOO_SMALL;
        goto cleanup;
    }
    err = gk5i_ctx_next_seq(ctx, &seq);
    if (err != GK5_OK) {
        goto cleanup;
    }
    hdr = header->buffer.value;
    tail = trailer != NULL ? trailer->buffer.value : hdr + CFX_HDR_LEN;
    /* EC and RRC are zero in what is encrypted or checksummed (4.2.4). */
    put_header(hdr, TOK_ID_CFX_WRAP, send_flags(ctx, sealed), 0, 0, seq);

    if (sealed) {
        memcpy(tail, hdr, CFX_HDR_LEN);
        segs[k++] = seg(GK5_CRYPTO_IOV_HEADER,
                        hdr + header_len - et->conf_bytes, et->conf_bytes);
        k = add_message(segs, k, iov, iov_count);
        segs[k++] = seg(GK5_CRYPTO_IOV_DATA, tail, CFX_HDR_LEN);
        segs[k++] =
            seg(GK5_CRYPTO_IOV_TRAILER, tail + CFX_HDR_LEN, et->mac_bytes);
        err = gk5i_encrypt_iov(lane->uk[UK_SEND_SEAL], NULL, segs, k);
    } else {
        k = add_message(segs, k, iov, iov_count);
        segs[k++] = seg(GK5_CRYPTO_IOV_SIGN_ONLY, hdr, CFX_HDR_LEN);
        segs[k++] = seg(GK5_CRYPTO_IOV_CHECKSUM, tail, et->cksum_bytes);
        err = gk5i_checksum_iov(lane->uk[UK_SEND_SEAL], segs, k);
        store_be16(hdr + 4, (uint16_t)et->cksum_bytes);
    }
    if (err != GK5_OK) {
        gk5i_ctx_return_seq(ctx, seq); /* no token made */
        goto cleanup;
    }
    store_be16(hdr + 6, rrc);

    header->buffer.length = header_len;
    if (trailer != NULL) {
        trailer->buffer.length = trailer_len;
    }
    if (padding != NULL) {
        padding->buffer.length = 0;
    }
    if (conf_state != NULL) {
        *conf_state = sealed;
    }

cleanup:
    return gk5i_status(minor, err);
}

static GK5_WUR uint32_t cfx_wrap_iov_length(uint32_t *minor, const gk5_ctx *ctx,
                                            int conf_req, int *conf_state,
                                            gk5_iov_buffer *iov, int iov_count)
{
    gk5_iov_buffer *header, *trailer, *padding;
    size_t header_len, trailer_len;
    uint16_t rrc;

    header = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_HEADER);
    trailer = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_TRAILER);
    padding = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_PADDING);
    /* iov.c has checked the layout (mech_int.h): the HEADER is there. */
    wrap_lengths(ctx->et, conf_req != 0, trailer != NULL, &header_len,
                 &trailer_len, &rrc);
    header->buffer.length = header_len;
    if (trailer != NULL) {
        trailer->buffer.length = trailer_len;
    }
    if (padding != NULL) {
        padding->buffer.length = 0;
    }
    if (conf_state != NULL) {
        *conf_state = conf_req != 0;
    }
    return gk5i_status(minor, GK5_OK);
}

/*
 * After the header and lengths have passed: decrypt and verify (sealed) or
 * verify the checksum, then compare the header copy, then and only then
 * record the sequence number (RFC 4121 4.2.6.2, 4.2.4; RFC 2743 1.2.3).
 * Nothing changes in the context unless every check held.
 */
static GK5_WUR uint32_t unwrap_parts(gk5_ctx *ctx, struct gk5_lane *lane,
                                     const struct gk5i_cfx_header *h,
                                     const struct cfx_parts *parts,
                                     gk5_iov_buffer *iov, int iov_count,
                                     uint32_t *supplementary)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_crypto_iov segs[SEG_MAX];
    uint8_t hdr0[CFX_HDR_LEN];
    size_t k = 0;
    uint32_t err;

    if ((h->flags & CFX_FLAG_SEALED) != 0) {
        const uint8_t *copy = parts->tail + h->ec;

        segs[k++] = seg(GK5_CRYPTO_IOV_HEADER, parts->conf, et->conf_bytes);
        k = add_message(segs, k, iov, iov_count);
        segs[k++] =
            seg(GK5_CRYPTO_IOV_DATA, parts->tail, (size_t)h->ec + CFX_HDR_LEN);
        segs[k++] = seg(GK5_CRYPTO_IOV_TRAILER,
                        parts->tail + h->ec + CFX_HDR_LEN, et->mac_bytes);
        err = gk5i_decrypt_iov(lane->uk[UK_RECV_SEAL], segs, k);
        if (err != GK5_OK) {
            err = integrity_failure(err);
            goto cleanup;
        }
        /* The decrypted copy must repeat TOK_ID, flags, filler, EC and
         * SND_SEQ; only RRC may differ (the sender rotated after
         * encrypting).  The outer EC, flags and SND_SEQ of a sealed token
         * are protected only through this copy, so a mismatch is an
         * integrity failure like any other: one answer (BAD_SIG), whatever
         * was tampered with. */
        if (!gk5i_equal_ct(copy, parts->hdr, 6) ||
            !gk5i_equal_ct(copy + 8, parts->hdr + 8, 8)) {
            wipe_data(iov, iov_count);
            zap(parts->tail, (size_t)h->ec + CFX_HDR_LEN);
            err = GK5_ERR_INTEGRITY;
            goto cleanup;
        }
    } else {
        memcpy(hdr0, parts->hdr, CFX_HDR_LEN);
        store_be16(hdr0 + 4, 0);
        store_be16(hdr0 + 6, 0);
        k = add_message(segs, k, iov, iov_count);
        segs[k++] = seg(GK5_CRYPTO_IOV_SIGN_ONLY, hdr0, CFX_HDR_LEN);
        segs[k++] = seg(GK5_CRYPTO_IOV_CHECKSUM, parts->tail, et->cksum_bytes);
        err = gk5i_verify_checksum_iov(lane->uk[UK_RECV_SEAL], segs, k);
        if (err != GK5_OK) {
            err = integrity_failure(err);
            goto cleanup;
        }
    }
    *supplementary = gk5i_seq_check_ctx(ctx, "unwrap", h->seq);

cleanup:
    if (err != GK5_OK && GK5_TRACE_ON()) {
        trace_integrity(ctx, TOK_ID_CFX_WRAP, h, UK_RECV_SEAL, err);
    }
    return err;
}

/* Lengths of a Wrap token whose payload (after the header) is
 * payload_len octets: EC against the real lengths (MIT's CVE-2024-37370
 * and -37371 trusted it).  *tail_len: what follows the data. */
static GK5_WUR uint32_t wrap_lengths_fit(const struct gk5_enctype *et,
                                         const struct gk5i_cfx_header *h,
                                         size_t payload_len, size_t *tail_len)
{
    if ((h->flags & CFX_FLAG_SEALED) != 0) {
        size_t least = et->conf_bytes + sealed_tail_len(et, 0);

        if (payload_len < least) {
            return GK5_ERR_TOKEN_TRUNCATED;
        }
        if (h->ec > payload_len - least) {
            return GK5_ERR_TOKEN_EC;
        }
        *tail_len = sealed_tail_len(et, h->ec);
    } else {
        /* RFC 4121 4.2.4: EC is the checksum length. */
        if (h->ec != et->cksum_bytes) {
            return GK5_ERR_TOKEN_EC;
        }
        if (payload_len < et->cksum_bytes) {
            return GK5_ERR_TOKEN_TRUNCATED;
        }
        *tail_len = et->cksum_bytes;
    }
    return GK5_OK;
}

/* The same, tracing a refusal with the lengths behind it; room names
 * what payload_len counts. */
static GK5_WUR uint32_t check_wrap_lengths(const gk5_ctx *ctx,
                                           const struct gk5i_cfx_header *h,
                                           size_t payload_len, const char *room,
                                           size_t *tail_len)
{
    const struct gk5_enctype *et = ctx->et;
    uint32_t err = wrap_lengths_fit(et, h, payload_len, tail_len);

    if (err == GK5_OK || !GK5_TRACE_ON()) {
        return err;
    }
    if ((h->flags & CFX_FLAG_SEALED) != 0) {
        trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                  "sealed token: %zu bytes %s cannot hold the confounder "
                  "(%zu), EC filler (%u), header copy (%u) and MAC (%zu)",
                  payload_len, room, et->conf_bytes, h->ec, CFX_HDR_LEN,
                  et->mac_bytes);
    } else if (h->ec != et->cksum_bytes) {
        trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                  "integrity-only token: EC %u is not the checksum length %zu",
                  h->ec, et->cksum_bytes);
    } else {
        trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                  "integrity-only token: %zu bytes %s cannot hold the "
                  "checksum (%zu)",
                  payload_len, room, et->cksum_bytes);
    }
    return err;
}

/* RFC 4121 4.2.5: a whole token in one STREAM buffer, any RRC.  The
 * payload is rotated back in place, then the one DATA buffer is pointed at
 * the plaintext inside the STREAM. */
static GK5_WUR uint32_t unwrap_stream(gk5_ctx *ctx, struct gk5_lane *lane,
                                      gk5_iov_buffer *stream,
                                      gk5_iov_buffer *iov, int iov_count,
                                      struct gk5i_cfx_header *h,
                                      uint32_t *supplementary)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_iov_buffer *data = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_DATA);
    gk5_buffer saved;
    struct cfx_parts parts;
    uint8_t *p = stream->buffer.value;
    size_t len = stream->buffer.length, payload_len, tail_len = 0, front;
    uint32_t err;

    /* A STREAM comes with exactly one DATA (iov.c, or gk5_unwrap's own
     * two buffers). */
    err = parse_header(ctx, p, len, TOK_ID_CFX_WRAP, h);
    if (err != GK5_OK) {
        goto cleanup;
    }
    payload_len = len - CFX_HDR_LEN;
    err =
        check_wrap_lengths(ctx, h, payload_len, "after the header", &tail_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    /* Any RRC, also one larger than the payload or not a multiple of the
     * block size: rotating by the payload length is no rotation. */
    rotate_left(p + CFX_HDR_LEN, payload_len,
                payload_len == 0 ? 0 : h->rrc % payload_len);
    store_be16(p + 6, 0);

    front =
        CFX_HDR_LEN + ((h->flags & CFX_FLAG_SEALED) != 0 ? et->conf_bytes : 0);
    parts.hdr = p;
    parts.conf = p + CFX_HDR_LEN;
    parts.tail = p + len - tail_len;
    saved = data->buffer;
    data->buffer.value = p + front;
    data->buffer.length = len - front - tail_len;
    err = unwrap_parts(ctx, lane, h, &parts, iov, iov_count, supplementary);
    if (err != GK5_OK) {
        data->buffer = saved;
    }

cleanup:
    return err;
}

/* The caller split the token into HEADER, DATA... and maybe TRAILER as
 * gk5_wrap_iov (and MIT's gss_wrap_iov) lay it out; RRC must be the one
 * that layout means (use a STREAM buffer for any other). */
static GK5_WUR uint32_t unwrap_split(gk5_ctx *ctx, struct gk5_lane *lane,
                                     gk5_iov_buffer *iov, int iov_count,
                                     struct gk5i_cfx_header *h,
                                     uint32_t *supplementary)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_iov_buffer *header =
        find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_HEADER);
    gk5_iov_buffer *trailer =
        find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_TRAILER);
    gk5_iov_buffer *padding =
        find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_PADDING);
    struct cfx_parts parts;
    size_t front, tail_len = 0, have_tail, least_tail;
    bool sealed;
    uint8_t *p;
    uint32_t err;

    /* iov.c has checked the layout: without a STREAM there is a HEADER. */
    if (padding != NULL && padding->buffer.length != 0) {
        err = GK5_ERR_BAD_IOV;
        goto cleanup;
    }
    p = header->buffer.value;
    err = parse_header(ctx, p, header->buffer.length, TOK_ID_CFX_WRAP, h);
    if (err != GK5_OK) {
        goto cleanup;
    }
    sealed = (h->flags & CFX_FLAG_SEALED) != 0;
    front = CFX_HDR_LEN + (sealed ? et->conf_bytes : 0);
    least_tail = sealed ? sealed_tail_len(et, 0) : et->cksum_bytes;

    if (trailer != NULL) {
        if (header->buffer.length != front) {
            err = header->buffer.length < front ? GK5_ERR_TOKEN_TRUNCATED
                                                : GK5_ERR_BAD_IOV;
            if (GK5_TRACE_ON()) {
                trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                          "HEADER buffer is %zu bytes, want %zu with a "
                          "TRAILER buffer",
                          header->buffer.length, front);
            }
            goto cleanup;
        }
        have_tail = trailer->buffer.length;
    } else {
        if (header->buffer.length < front + least_tail) {
            err = GK5_ERR_TOKEN_TRUNCATED;
            if (GK5_TRACE_ON()) {
                trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                          "HEADER buffer is %zu bytes, at least %zu without "
                          "a TRAILER buffer",
                          header->buffer.length, front + least_tail);
            }
            goto cleanup;
        }
        have_tail = header->buffer.length - front;
    }
    /* EC is checked against what the confounder and tail can hold (the
     * data's length does not matter to it). */
    err = check_wrap_lengths(ctx, h, have_tail + (sealed ? et->conf_bytes : 0),
                             "beside the data", &tail_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (have_tail != tail_len) {
        err = sealed ? GK5_ERR_TOKEN_EC : GK5_ERR_BAD_IOV;
        if (GK5_TRACE_ON()) {
            trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                      "the %s holds %zu bytes of trailer, the header says %zu",
                      trailer != NULL ? "TRAILER buffer" : "HEADER buffer",
                      have_tail, tail_len);
        }
        goto cleanup;
    }
    if (h->rrc != (trailer != NULL ? 0 : have_tail)) {
        err = GK5_ERR_BAD_IOV;
        if (GK5_TRACE_ON()) {
            trace_tok(ctx, TOK_ID_CFX_WRAP, h,
                      "RRC %u does not match the buffers: want %zu %s a "
                      "TRAILER buffer (a STREAM buffer takes any RRC)",
                      h->rrc, trailer != NULL ? (size_t)0 : have_tail,
                      trailer != NULL ? "with" : "without");
        }
        goto cleanup;
    }

    parts.hdr = p;
    if (trailer != NULL) {
        parts.conf = p + CFX_HDR_LEN;
        parts.tail = trailer->buffer.value;
    } else {
        parts.conf = p + CFX_HDR_LEN + tail_len;
        parts.tail = p + CFX_HDR_LEN;
    }
    err = unwrap_parts(ctx, lane, h, &parts, iov, iov_count, supplementary);

cleanup:
    return err;
}

static GK5_WUR uint32_t cfx_unwrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                       struct gk5_lane *lane, int *conf_state,
                                       gk5_iov_buffer *iov, int iov_count)
{
    gk5_iov_buffer *stream;
    struct gk5i_cfx_header h;
    uint32_t supplementary = 0, major, err;

    if (conf_state != NULL) {
        *conf_state = 0;
    }
    stream = find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_STREAM);
    if (stream != NULL) {
        err = unwrap_stream(ctx, lane, stream, iov, iov_count, &h,
                            &supplementary);
    } else {
        err = unwrap_split(ctx, lane, iov, iov_count, &h, &supplementary);
    }
    if (err == GK5_OK && conf_state != NULL) {
        *conf_state = (h.flags & CFX_FLAG_SEALED) != 0;
    }
    major = gk5i_status(minor, err);
    return err == GK5_OK ? major | supplementary : major;
}

/* The most a tail (EC filler, header copy and MAC) may take to go through
 * cfx_unwrap_to's stack scratch; EC is 0 from gk5, MIT and Windows. */
#define TAIL_SCRATCH 256
/* The largest confounder (one AES or Camellia block). */
#define CONF_SCRATCH 16

/*
 * RFC 4121 4.2.6.2 for gk5_unwrap: the token is read where it lies and
 * only the message is copied, to the start of out, where it is unwrapped
 * in place; confounder and tail go through stack scratch.  So the
 * plaintext needs no move afterwards.  A rotated token (RRC, 4.2.5) or an
 * unusually long tail is copied whole and unwrapped as a STREAM instead.
 */
static GK5_WUR uint32_t cfx_unwrap_to(uint32_t *minor, gk5_ctx *ctx,
                                      struct gk5_lane *lane, const uint8_t *in,
                                      size_t in_len, uint8_t *out,
                                      size_t *out_len, int *conf_state)
{
    const struct gk5_enctype *et = ctx->et;
    uint8_t conf[CONF_SCRATCH], tail[TAIL_SCRATCH];
    gk5_iov_buffer iov[2];
    struct cfx_parts parts;
    struct gk5i_cfx_header h;
    size_t payload_len, tail_len = 0, front;
    uint32_t supplementary = 0, major, err;

    *out_len = 0;
    if (conf_state != NULL) {
        *conf_state = 0;
    }
    err = parse_header(ctx, in, in_len, TOK_ID_CFX_WRAP, &h);
    if (err != GK5_OK) {
        goto cleanup;
    }
    payload_len = in_len - CFX_HDR_LEN;
    err =
        check_wrap_lengths(ctx, &h, payload_len, "after the header", &tail_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if ((payload_len != 0 && h.rrc % payload_len != 0) ||
        tail_len > sizeof(tail) || et->conf_bytes > sizeof(conf)) {
        memcpy(out, in, in_len);
        iov[0].type = GK5_IOV_BUFFER_TYPE_STREAM;
        iov[0].buffer.value = out;
        iov[0].buffer.length = in_len;
        iov[1].type = GK5_IOV_BUFFER_TYPE_DATA;
        iov[1].buffer.value = NULL;
        iov[1].buffer.length = 0;
        err = unwrap_stream(ctx, lane, &iov[0], iov, 2, &h, &supplementary);
        if (err == GK5_OK) {
            memmove(out, iov[1].buffer.value, iov[1].buffer.length);
            *out_len = iov[1].buffer.length;
        }
        goto cleanup;
    }
    front =
        CFX_HDR_LEN + ((h.flags & CFX_FLAG_SEALED) != 0 ? et->conf_bytes : 0);
    memcpy(conf, in + CFX_HDR_LEN, front - CFX_HDR_LEN);
    memcpy(tail, in + in_len - tail_len, tail_len);
    memcpy(out, in + front, in_len - front - tail_len);
    parts.hdr = in;
    parts.conf = conf;
    parts.tail = tail;
    iov[0].type = GK5_IOV_BUFFER_TYPE_DATA;
    iov[0].buffer.value = out;
    iov[0].buffer.length = in_len - front - tail_len;
    err = unwrap_parts(ctx, lane, &h, &parts, iov, 1, &supplementary);
    if (err == GK5_OK) {
        *out_len = iov[0].buffer.length;
    }

cleanup:
    zap(conf, sizeof(conf));
    zap(tail, tail_len < sizeof(tail) ? tail_len : sizeof(tail));
    if (err == GK5_OK && conf_state != NULL) {
        *conf_state = (h.flags & CFX_FLAG_SEALED) != 0;
    }
    major = gk5i_status(minor, err);
    return err == GK5_OK ? major | supplementary : major;
}

/* RFC 4121 4.2.6.1: what a MIC token's checksum covers, the message and
 * then the 16-octet header at p, and where it goes (after the header);
 * returns the segment count. */
static inline size_t mic_segs(gk5_crypto_iov segs[SEG_MAX], gk5_iov_buffer *iov,
                              int iov_count, uint8_t *p, size_t cksum_bytes)
{
    size_t k = add_message(segs, 0, iov, iov_count);

    segs[k++] = seg(GK5_CRYPTO_IOV_SIGN_ONLY, p, CFX_HDR_LEN);
    segs[k++] = seg(GK5_CRYPTO_IOV_CHECKSUM, p + CFX_HDR_LEN, cksum_bytes);
    return k;
}

/* RFC 4121 4.2.6.1: the checksum (Kc of the sender's sign usage) covers
 * the message and then the 16-octet header. */
static GK5_WUR uint32_t cfx_get_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                        struct gk5_lane *lane,
                                        gk5_iov_buffer *iov, int iov_count)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_iov_buffer *token =
        find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_MIC_TOKEN);
    gk5_crypto_iov segs[SEG_MAX];
    size_t need = CFX_HDR_LEN + et->cksum_bytes, k = 0;
    uint64_t seq;
    uint8_t *p;
    uint32_t err;

    /* iov.c has checked the layout (mech_int.h): the MIC_TOKEN is there. */
    if (token->buffer.length < need) {
        err = GK5_ERR_BUFFER_TOO_SMALL;
        goto cleanup;
    }
    err = gk5i_ctx_next_seq(ctx, &seq);
    if (err != GK5_OK) {
        goto cleanup;
    }
    p = token->buffer.value;
    put_header(p, TOK_ID_CFX_MIC, send_flags(ctx, false), 0, 0, seq);
    k = mic_segs(segs, iov, iov_count, p, et->cksum_bytes);
    err = gk5i_checksum_iov(lane->uk[UK_SEND_SIGN], segs, k);
    if (err != GK5_OK) {
        gk5i_ctx_return_seq(ctx, seq); /* no token made */
        goto cleanup;
    }
    token->buffer.length = need;

cleanup:
    return gk5i_status(minor, err);
}

/* RFC 4121 4.2.6.1, receiver: header, exact length, checksum, and then the
 * sequence number. */
/* (Its locals and token lookup match cfx_get_mic_iov's; the segments are
 * mic_segs(); the rest runs the other way.) */
static GK5_WUR uint32_t cfx_verify_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                           struct gk5_lane *lane,
                                           gk5_iov_buffer *iov, int iov_count)
{
    const struct gk5_enctype *et = ctx->et;
    gk5_iov_buffer *token =
        find_iov(iov, iov_count, GK5_IOV_BUFFER_TYPE_MIC_TOKEN);
    gk5_crypto_iov segs[SEG_MAX];
    size_t need = CFX_HDR_LEN + et->cksum_bytes, k = 0;
    struct gk5i_cfx_header h;
    uint32_t supplementary = 0, major, err;
    uint8_t *p;

    /* iov.c has checked the layout (mech_int.h): the MIC_TOKEN is there. */
    p = token->buffer.value;
    err = parse_header(ctx, p, token->buffer.length, TOK_ID_CFX_MIC, &h);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (token->buffer.length != need) {
        err = token->buffer.length < need ? GK5_ERR_TOKEN_TRUNCATED
                                          : GK5_ERR_TOKEN_TRAILING;
        if (GK5_TRACE_ON()) {
            trace_tok(ctx, TOK_ID_CFX_MIC, &h,
                      "MIC token is %zu bytes, want %zu (header 16, checksum "
                      "%zu)",
                      token->buffer.length, need, et->cksum_bytes);
        }
        goto cleanup;
    }
    k = mic_segs(segs, iov, iov_count, p, et->cksum_bytes);
    err = gk5i_verify_checksum_iov(lane->uk[UK_RECV_SIGN], segs, k);
    if (err != GK5_OK) {
        err = integrity_failure(err);
        if (GK5_TRACE_ON()) {
            trace_integrity(ctx, TOK_ID_CFX_MIC, &h, UK_RECV_SIGN, err);
        }
        goto cleanup;
    }
    supplementary = gk5i_seq_check_ctx(ctx, "verify_mic", h.seq);

cleanup:
    major = gk5i_status(minor, err);
    return err == GK5_OK ? major | supplementary : major;
}

/* RFC 4121 4.2.6.2: the token is the header, the data and (sealed) the
 * confounder, header copy and MAC, or (integrity only) the checksum. */
static GK5_WUR uint32_t cfx_wrap_size_limit(uint32_t *minor, const gk5_ctx *ctx,
                                            int conf_req, size_t out_max,
                                            size_t *in_max)
{
    const struct gk5_enctype *et = ctx->et;
    size_t overhead =
        conf_req != 0 ? CFX_HDR_LEN + et->conf_bytes + sealed_tail_len(et, 0)
                      : CFX_HDR_LEN + et->cksum_bytes;

    *in_max = out_max > overhead ? out_max - overhead : 0;
    return gk5i_status(minor, GK5_OK);
}

/* RFC 4121's token layer, as iov.c calls it (tok_ops()). */
const struct gk5_tok_ops gk5i_rfc4121_ops = {
    .wrap_iov = cfx_wrap_iov,
    .unwrap_iov = cfx_unwrap_iov,
    .wrap_iov_length = cfx_wrap_iov_length,
    .get_mic_iov = cfx_get_mic_iov,
    .verify_mic_iov = cfx_verify_mic_iov,
    .wrap_size_limit = cfx_wrap_size_limit,
    .unwrap_to = cfx_unwrap_to,
};
