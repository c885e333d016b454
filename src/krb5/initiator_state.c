/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The pending state, for a caller that finishes in another process
 * (`gk5 init`): gk5_initiator_save and gk5_initiator_load
 * (include/gk5/tickets.h).
 *
 * A gk5_initiator waiting for the AP-REP, as bytes; all integers
 * big-endian, no padding:
 *
 *   0   4  magic "gk5I"
 *   4   4  version, 1
 *   8   4  the session key's enctype
 *  12   4  the 0x8003 flags sent
 *  16   4  context options (GK5_CTX_REPLAY, GK5_CTX_SEQUENCE)
 *  20   4  endtime
 *  24   8  ctime (signed)
 *  32   4  cusec
 *  36   4  our initial sequence number
 *  40   1  the session key's usage-12 subkeys: raw flag, then Ke, Ki, Kc
 *          each as a length byte and the key
 *  ..   1+ our subkey: a length byte and the key
 *  ..   1  how many enctypes we offered (at most 16), then each in 4
 *  end-32  SHA-256 of everything before it
 *
 * It holds keys (the AP-REP's and our subkey): store it as a keytab.  The
 * digest catches a file damaged at rest, as gk5_ctx_export's does; it is
 * not a seal.  Not the session key nor the ticket: only the second leg
 * can be run from it. */
#include <stdlib.h>
#include <string.h>

#include <gk5/tickets.h>

#include "../common/bytes.h"
#include "../mech/mech_int.h"
#include "initiator_int.h"

#define STATE_MAGIC "gk5I"
#define STATE_VERSION 1u
#define STATE_MAX 512

static void put_key(uint8_t *p, size_t *off, const uint8_t *k, size_t n)
{
    p[(*off)++] = (uint8_t)n;
    memcpy(p + *off, k, n);
    *off += n;
}

static uint32_t pending_save(const gk5_initiator *init, uint8_t **out,
                             size_t *out_len)
{
    const struct gk5i_subkeys *sk;
    uint8_t *p;
    size_t off = 0;
    uint32_t err;

    if (out == NULL || out_len == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    *out_len = 0;
    if (init == NULL || init->state != ST_WAIT_REP) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    sk = &init->ses_sk[1];
    p = malloc(STATE_MAX);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(p, STATE_MAGIC, 4);
    store_be32(p + 4, STATE_VERSION);
    store_be32(p + 8, (uint32_t)init->ses_et->num);
    store_be32(p + 12, init->cksum_flags);
    store_be32(p + 16, init->ctx_options);
    store_be32(p + 20, init->endtime);
    store_be64(p + 24, (uint64_t)init->ctime);
    store_be32(p + 32, init->cusec);
    store_be32(p + 36, init->seq);
    off = 40;
    p[off++] = sk->raw ? 1 : 0;
    put_key(p, &off, sk->ke, sk->ke_len);
    put_key(p, &off, sk->ki, sk->ki_len);
    put_key(p, &off, sk->kc, sk->kc_len);
    put_key(p, &off, init->subkey, init->ses_et->key_bytes);
    p[off++] = (uint8_t)init->n_etypes;
    for (size_t i = 0; i < init->n_etypes; i++) {
        store_be32(p + off, (uint32_t)init->etypes[i]);
        off += 4;
    }
    err = gk5i_sha256(p, off, p + off);
    if (err != GK5_OK) {
        zap(p, STATE_MAX);
        free(p);
        return err;
    }
    *out = p;
    *out_len = off + GK5_SHA256_BYTES;
    return GK5_OK;
}

/* A key of exactly want bytes (want 0: any up to GK5_MAX_KEY_BYTES). */
static bool get_key(struct gk5i_rd *r, uint8_t *k, size_t *n, size_t want)
{
    const uint8_t *len = gk5i_get_bytes(r, 1), *b;

    if (len == NULL || *len > GK5_MAX_KEY_BYTES ||
        (want != 0 && *len != want)) {
        return false;
    }
    b = gk5i_get_bytes(r, *len);
    if (b == NULL) {
        return false;
    }
    memcpy(k, b, *len);
    *n = *len;
    return true;
}

static uint32_t pending_load(const uint8_t *in, size_t len, gk5_initiator **out)
{
    uint8_t digest[GK5_SHA256_BYTES];
    struct gk5i_subkeys shape;
    gk5_initiator *init = NULL;
    struct gk5i_rd r;
    const uint8_t *h, *n;
    size_t key_n = 0;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    /* The magic is public: a plain compare. */
    if (in == NULL || len < 40 + GK5_SHA256_BYTES ||
        memcmp(in, STATE_MAGIC, 4) != 0) {
        return GK5_ERR_IMPORT_VERSION;
    }
    if (load_be32(in + 4) != STATE_VERSION) {
        return GK5_ERR_IMPORT_VERSION;
    }
    err = gk5i_sha256(in, len - GK5_SHA256_BYTES, digest);
    if (err != GK5_OK) {
        return err;
    }
    if (!gk5i_equal_ct(digest, in + len - GK5_SHA256_BYTES, GK5_SHA256_BYTES)) {
        return GK5_ERR_IMPORT_DIGEST;
    }
    init = gk5i_zalloc(sizeof(*init));
    if (init == NULL) {
        return GK5_ERR_NOMEM;
    }
    gk5i_rd_init(&r, in, len - GK5_SHA256_BYTES);
    h = gk5i_get_bytes(&r, 40);
    err = gk5i_enctype_usable((int32_t)load_be32(h + 8), &init->ses_et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    init->cksum_flags = load_be32(h + 12);
    init->ctx_options = load_be32(h + 16);
    init->endtime = load_be32(h + 20);
    init->ctime = (int64_t)load_be64(h + 24);
    init->cusec = load_be32(h + 32);
    init->seq = load_be32(h + 36);
    init->mutual = true;
    err = GK5_ERR_IMPORT_KEY_LENGTH;
    gk5i_subkeys_shape(init->ses_et, false, &shape);
    n = gk5i_get_bytes(&r, 1);
    if (n == NULL || *n != 0 ||
        !get_key(&r, init->ses_sk[1].ke, &init->ses_sk[1].ke_len,
                 shape.ke_len) ||
        !get_key(&r, init->ses_sk[1].ki, &init->ses_sk[1].ki_len,
                 shape.ki_len) ||
        !get_key(&r, init->ses_sk[1].kc, &init->ses_sk[1].kc_len,
                 shape.kc_len) ||
        !get_key(&r, init->subkey, &key_n, init->ses_et->key_bytes)) {
        goto cleanup;
    }
    n = gk5i_get_bytes(&r, 1);
    if (n == NULL || *n > ETYPES_MAX) {
        goto cleanup;
    }
    init->n_etypes = *n;
    for (size_t i = 0; i < init->n_etypes; i++) {
        const uint8_t *e = gk5i_get_bytes(&r, 4);

        if (e == NULL) {
            goto cleanup;
        }
        init->etypes[i] = (int32_t)load_be32(e);
    }
    if (!gk5i_rd_at_end(&r)) {
        goto cleanup;
    }
    init->state = ST_WAIT_REP;
    *out = init;
    init = NULL;
    err = GK5_OK;
cleanup:
    gk5_initiator_free(init);
    return err;
}

/* include/gk5/tickets.h: the pending state above, as public calls. */
GK5_EXPORT uint32_t gk5_initiator_save(uint32_t *minor,
                                       const gk5_initiator *init,
                                       gk5_buffer *out)
{
    uint8_t *p = NULL;
    size_t n = 0;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    out->length = 0;
    out->value = NULL;
    err = pending_save(init, &p, &n);
    if (err == GK5_OK) {
        out->value = p;
        out->length = n;
    }
    return gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_initiator_load(uint32_t *minor, const void *buf,
                                       size_t len, gk5_initiator **out)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    return gk5i_status(minor, pending_load(buf, len, out));
}
