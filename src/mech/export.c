/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own context format: everything a context is, so that it can move
 * between processes (or survive between CLI calls) and carry on exactly
 * where it was, receive window included.
 *
 * All integers big-endian, no padding, version 2:
 *
 *   offset  size  field
 *        0     4  magic "gk5C"
 *        4     4  version (2; version 1 had no digest and is refused)
 *        8     4  enctype (the table's number; DES3 is 16)
 *       12     4  ctxflags: 0x1 initiator, 0x2 CFX (RFC 4121), 0x4
 *                 keyed with the acceptor's subkey
 *       16     4  options: GK5_CTX_REPLAY 0x4 | GK5_CTX_SEQUENCE 0x8
 *       20     4  endtime (seconds since the epoch; 0 = none)
 *       24     8  send_seq: the next number to send
 *       32     4  state: 0x1 the receive window has started, 0x2 every
 *                 send number is used (RFC 4121: 2^64 - 1 was sent)
 *       36     8  receive window: next (one past the highest received)
 *       44     8  receive window: bitmap (bit i: next - 1 - i received)
 *       52        four key slots in enum gk5_uk_slot order (send seal,
 *                 send sign, receive seal, receive sign), each:
 *                   1  raw (1: Ke is the session key itself, RFC 1964)
 *                   1  Ke length, then Ke
 *                   1  Ki length, then Ki
 *                   1  Kc length, then Kc
 *                 RFC 1964 contexts fill only the first slot; the others
 *                 are all zero lengths.
 *
 *   then  32  SHA-256 of every byte before it
 *
 * The buffer ends after the digest.  The digest catches a buffer changed
 * or damaged at rest (a rewound send counter would send numbers twice); it
 * is not a seal against someone who can write the buffer, who can also
 * recompute it.  The buffer holds keys: store it as one stores a keytab.
 * Export a context while no other thread is using it: the counter and the
 * window are each read atomically, but not together.
 * Import checks the magic and version, then the digest (GK5_ERR_IMPORT_DIGEST),
 * then every field, and answers with its own minor code: magic or
 * version (GK5_ERR_IMPORT_VERSION), short (TRUNCATED), long (TOO_LONG),
 * unknown flag bits (FLAGS), fields that do not fit the enctype's protocol
 * (PROTOCOL), key lengths that are not the enctype's (KEY_LENGTH), and the
 * enctype itself through the table.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/bytes.h"
#include "mech_int.h"

#define EXPORT_MAGIC "gk5C"
#define EXPORT_MAGIC_LEN 4
#define EXPORT_VERSION 2u
#define EXPORT_PREFIX_LEN 8 /* magic and version: read before the digest */
#define EXPORT_HEADER_LEN 52

#define STATE_RECV_STARTED 0x1u
#define STATE_SEND_EXHAUSTED 0x2u
#define STATE_KNOWN (STATE_RECV_STARTED | STATE_SEND_EXHAUSTED)

#define CTXF_KNOWN                                                             \
    (GK5_CTXF_INITIATOR | GK5_CTXF_CFX | GK5_CTXF_ACCEPTOR_SUBKEY)
#define OPTIONS_KNOWN (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)

#define SEQ32_LIMIT ((uint64_t)1 << 32)

/* ---- writing ---- */

static void put_key(struct gk5i_wr *w, const uint8_t *key, size_t len)
{
    gk5i_put_u8(w, (uint8_t)len);
    gk5i_put_bytes(w, key, len);
}

static size_t slot_length(const struct gk5i_subkeys *sk)
{
    return 4 + sk->ke_len + sk->ki_len + sk->kc_len;
}

GK5_EXPORT uint32_t gk5_ctx_export(uint32_t *minor, const gk5_ctx *ctx,
                                   gk5_buffer *out)
{
    /* The window's lock is the only thing a snapshot changes; the context
     * is not const in memory, only in this interface. */
    struct gk5_seqstate *recv = NULL;
    uint8_t *buf = NULL;
    uint8_t *digest;
    struct gk5i_wr w;
    size_t len = EXPORT_HEADER_LEN + GK5_SHA256_BYTES;
    bool started;
    uint64_t next;
    uint64_t bitmap;
    uint32_t state = 0;
    uint32_t err = GK5_OK;

    if (out != NULL) {
        out->length = 0;
        out->value = NULL;
    }
    if (ctx == NULL) {
        err = GK5_ERR_CTX_NO_CONTEXT;
        goto cleanup;
    }
    if (out == NULL || minor == NULL) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        len += slot_length(&ctx->sk[slot]);
    }
    buf = malloc(len);
    if (buf == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }

    recv = (struct gk5_seqstate *)(uintptr_t)&ctx->recv;
    gk5i_seq_get(recv, &started, &next, &bitmap);
    if (started) {
        state |= STATE_RECV_STARTED;
    }
    if (atomic_load_explicit(&ctx->send_exhausted, memory_order_relaxed)) {
        state |= STATE_SEND_EXHAUSTED;
    }

    gk5i_wr_init(&w, buf, len);
    gk5i_put_bytes(&w, EXPORT_MAGIC, EXPORT_MAGIC_LEN);
    gk5i_put_u32be(&w, EXPORT_VERSION);
    gk5i_put_u32be(&w, (uint32_t)ctx->et->num);
    gk5i_put_u32be(&w, ctx->ctxflags);
    gk5i_put_u32be(&w,
                   atomic_load_explicit(&ctx->options, memory_order_relaxed));
    gk5i_put_u32be(&w, ctx->endtime);
    gk5i_put_u64be(&w,
                   atomic_load_explicit(&ctx->send_seq, memory_order_relaxed));
    gk5i_put_u32be(&w, state);
    gk5i_put_u64be(&w, next);
    gk5i_put_u64be(&w, bitmap);
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        const struct gk5i_subkeys *sk = &ctx->sk[slot];

        gk5i_put_u8(&w, sk->raw ? 1 : 0);
        put_key(&w, sk->ke, sk->ke_len);
        put_key(&w, sk->ki, sk->ki_len);
        put_key(&w, sk->kc, sk->kc_len);
    }
    digest = gk5i_wr_reserve(&w, GK5_SHA256_BYTES);
    /* len counted every field: the writer ends exactly at the end. */
    if (w.bad || w.left != 0) {
        err = GK5_ERR_BUFFER_TOO_SMALL;
        goto cleanup;
    }
    err = gk5i_sha256(buf, (size_t)(digest - buf), digest);
    if (err != GK5_OK) {
        goto cleanup;
    }
    out->value = buf;
    out->length = len;
    buf = NULL;
    if (GK5_TRACE_ON()) {
        gk5i_trace_ctx(ctx, "export");
    }

cleanup:
    if (buf != NULL) {
        zap(buf, len);
        free(buf);
    }
    return gk5i_status(minor, err);
}

/* ---- reading ---- */

/* One key: its length byte must be the expected one, then its bytes. */
static GK5_WUR uint32_t get_key(struct gk5i_rd *r, size_t want, uint8_t *key,
                                size_t *key_len)
{
    const uint8_t *at;
    size_t len = gk5i_get_u8(r);

    if (r->bad) {
        return GK5_ERR_IMPORT_TRUNCATED;
    }
    if (len != want || len > GK5_MAX_KEY_BYTES) {
        return GK5_ERR_IMPORT_KEY_LENGTH;
    }
    at = gk5i_get_bytes(r, len);
    if (at == NULL) {
        return GK5_ERR_IMPORT_TRUNCATED;
    }
    memcpy(key, at, len);
    *key_len = len;
    return GK5_OK;
}

/* One slot, against the probe (or against "empty" for the slots RFC 1964
 * contexts leave unused). */
static GK5_WUR uint32_t get_slot(struct gk5i_rd *r,
                                 const struct gk5i_subkeys *want,
                                 struct gk5i_subkeys *sk)
{
    uint8_t raw = gk5i_get_u8(r);
    uint32_t err;

    if (r->bad) {
        return GK5_ERR_IMPORT_TRUNCATED;
    }
    if (raw > 1 || (raw == 1) != want->raw) {
        return GK5_ERR_IMPORT_PROTOCOL;
    }
    sk->raw = raw == 1;
    err = get_key(r, want->ke_len, sk->ke, &sk->ke_len);
    if (err == GK5_OK) {
        err = get_key(r, want->ki_len, sk->ki, &sk->ki_len);
    }
    if (err == GK5_OK) {
        err = get_key(r, want->kc_len, sk->kc, &sk->kc_len);
    }
    return err;
}

/* Fields that must agree with the enctype's token family and with each
 * other (the window's invariants included). */
static GK5_WUR uint32_t check_consistency(const struct gk5_enctype *et,
                                          uint32_t ctxflags, uint64_t send_seq,
                                          uint32_t state, uint64_t next,
                                          uint64_t bitmap)
{
    bool started = (state & STATE_RECV_STARTED) != 0;

    if (et->rfc1964) {
        if ((ctxflags & (GK5_CTXF_CFX | GK5_CTXF_ACCEPTOR_SUBKEY)) != 0 ||
            send_seq > SEQ32_LIMIT || next >= SEQ32_LIMIT ||
            (state & STATE_SEND_EXHAUSTED) != 0) {
            return GK5_ERR_IMPORT_PROTOCOL;
        }
    } else {
        if ((ctxflags & GK5_CTXF_CFX) == 0) {
            return GK5_ERR_IMPORT_PROTOCOL;
        }
        if ((state & STATE_SEND_EXHAUSTED) != 0 && send_seq != UINT64_MAX) {
            return GK5_ERR_IMPORT_PROTOCOL;
        }
    }
    /* A window that has not started has recorded nothing. */
    if (!started && (next != 0 || bitmap != 0)) {
        return GK5_ERR_IMPORT_PROTOCOL;
    }
    return GK5_OK;
}

/* The last 32 bytes are the SHA-256 of the rest; the reader then stops
 * before them.  The digest is of public-format bytes, compared in constant
 * time all the same (they hold keys). */
static GK5_WUR uint32_t check_digest(const uint8_t *buf, size_t len,
                                     struct gk5i_rd *r)
{
    uint8_t want[GK5_SHA256_BYTES];
    uint32_t err;

    if (len < EXPORT_PREFIX_LEN + GK5_SHA256_BYTES) {
        return GK5_ERR_IMPORT_TRUNCATED;
    }
    err = gk5i_sha256(buf, len - GK5_SHA256_BYTES, want);
    if (err == GK5_OK &&
        !gk5i_equal_ct(want, buf + len - GK5_SHA256_BYTES, GK5_SHA256_BYTES)) {
        err = GK5_ERR_IMPORT_DIGEST;
    }
    gk5i_rd_trim(r, GK5_SHA256_BYTES);
    return err;
}

GK5_EXPORT uint32_t gk5_ctx_import(uint32_t *minor, const void *buf, size_t len,
                                   gk5_ctx **ctx)
{
    struct gk5i_rd r;
    struct gk5i_subkeys sk[UK__COUNT];
    struct gk5i_subkeys probe;
    const struct gk5i_subkeys empty = {.raw = false};
    const struct gk5_enctype *et = NULL;
    const uint8_t *magic;
    gk5_ctx *made = NULL;
    int32_t enctype;
    uint32_t ctxflags, options, endtime, state;
    uint64_t send_seq, next, bitmap;
    uint32_t err;

    memset(sk, 0, sizeof(sk));
    memset(&probe, 0, sizeof(probe));
    if (ctx != NULL) {
        *ctx = NULL;
    }
    /* Nothing is made when the status cannot be reported (minor NULL). */
    if (minor == NULL || ctx == NULL || (buf == NULL && len != 0)) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }

    gk5i_rd_init(&r, buf, len);
    magic = gk5i_get_bytes(&r, EXPORT_MAGIC_LEN);
    if (magic == NULL) {
        err = GK5_ERR_IMPORT_TRUNCATED;
        goto cleanup;
    }
    /* Public bytes (the format's magic), not a secret: plain memcmp. */
    if (memcmp(magic, EXPORT_MAGIC, EXPORT_MAGIC_LEN) != 0) {
        err = GK5_ERR_IMPORT_VERSION;
        goto cleanup;
    }
    if (gk5i_get_u32be(&r) != EXPORT_VERSION) {
        err = r.bad ? GK5_ERR_IMPORT_TRUNCATED : GK5_ERR_IMPORT_VERSION;
        goto cleanup;
    }
    err = check_digest(buf, len, &r);
    if (err != GK5_OK) {
        goto cleanup;
    }
    enctype = (int32_t)gk5i_get_u32be(&r);
    ctxflags = gk5i_get_u32be(&r);
    options = gk5i_get_u32be(&r);
    endtime = gk5i_get_u32be(&r);
    send_seq = gk5i_get_u64be(&r);
    state = gk5i_get_u32be(&r);
    next = gk5i_get_u64be(&r);
    bitmap = gk5i_get_u64be(&r);
    if (r.bad) {
        err = GK5_ERR_IMPORT_TRUNCATED;
        goto cleanup;
    }

    err = gk5i_enctype_usable(enctype, &et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if ((ctxflags & ~CTXF_KNOWN) != 0 || (options & ~OPTIONS_KNOWN) != 0 ||
        (state & ~STATE_KNOWN) != 0) {
        err = GK5_ERR_IMPORT_FLAGS;
        goto cleanup;
    }
    err = check_consistency(et, ctxflags, send_seq, state, next, bitmap);
    if (err != GK5_OK) {
        goto cleanup;
    }

    gk5i_subkeys_shape(et, et->rfc1964, &probe);
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        bool used = !et->rfc1964 || slot == UK_SEND_SEAL;

        err = get_slot(&r, used ? &probe : &empty, &sk[slot]);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    if (gk5i_rd_left(&r) != 0) {
        err = GK5_ERR_IMPORT_TOO_LONG;
        goto cleanup;
    }

    err = gk5i_ctx_new_from_subkeys(et, ctxflags, endtime, send_seq, sk, &made);
    if (err != GK5_OK) {
        goto cleanup;
    }
    atomic_store_explicit(&made->options, options, memory_order_relaxed);
    atomic_store_explicit(&made->send_exhausted,
                          (state & STATE_SEND_EXHAUSTED) != 0,
                          memory_order_relaxed);
    gk5i_seq_set(&made->recv, (state & STATE_RECV_STARTED) != 0, next, bitmap);
    *ctx = made;
    made = NULL;

cleanup:
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        gk5i_subkeys_wipe(&sk[slot]);
    }
    gk5i_subkeys_wipe(&probe);
    gk5_ctx_free(made);
    if (GK5_TRACE_ON()) {
        gk5i_trace_import("import", err == GK5_OK ? *ctx : NULL, err, len);
    }
    return gk5i_status(minor, err);
}
