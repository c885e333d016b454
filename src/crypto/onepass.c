/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The one-pass drivers: RFC 3962 sealing and unsealing (AES with
 * HMAC-SHA1) and RFC 8009 aes128-cts-hmac-sha256-128 each way, the CBC/CTS
 * and the HMAC over the same stream in one walk, on the AES-NI/SHA-NI
 * loops of fast/aesni_sha1.c and fast/aesni_sha256.c where both stand at a
 * 64-byte boundary and on cts.c's engine and the HMAC's own update around them.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* ---- One-pass RFC 3962 sealing ---- */

#ifdef GK5_HAVE_ONEPASS_DRIVERS

/* Shorter messages gain too little to leave the serial path. */
#define ONEPASS_MIN_STREAM 128
#define SHA1_BLOCK 64

/* RFC 3962's AES with HMAC-SHA1 on AES-NI and SHA-NI, a stream long
 * enough to gain, and a MAC input that is the cipher stream (no SIGN_ONLY
 * data). */
static bool onepass_applies(const gk5_ukey *uk, const gk5_crypto_iov *iov,
                            size_t n, size_t stream_len)
{
    if (!gk5i_ukey_fast(uk) || !gk5i_use_aesni(uk) || uk->ki.hmac == NULL ||
        uk->et->cts_cipher == NULL || uk->et->block_bytes != 16 ||
        stream_len < ONEPASS_MIN_STREAM ||
        uk->et->onepass != GK5I_ONEPASS_MTE_SHA1 ||
        !gk5i_hmac_sha1_can(uk->ki.hmac)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].flags == GK5_CRYPTO_IOV_SIGN_ONLY && iov[i].length != 0) {
            return false;
        }
    }
    return true;
}

/* The start every one-pass walk shares: RFC 3962 5's split of the stream
 * into CBC up to the last 16 < t <= 32 bytes (*cbc_len) and the stolen
 * tail (*tail_len), and Ke keyed for the direction on AES-NI. */
static GK5_WUR uint32_t onepass_begin(struct gk5i_cbc_pass *cp, gk5_ukey *uk,
                                      bool encrypt, size_t stream_len,
                                      size_t *cbc_len, size_t *tail_len)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    size_t bs = uk->et->block_bytes;
    uint32_t ret;

    *cbc_len = ((stream_len + bs - 1) / bs - 2) * bs;
    *tail_len = stream_len - *cbc_len;
    ret = gk5i_cbc_begin(cp, uk, encrypt, zero_iv);
    if (ret == GK5_OK && cp->aes == NULL) {
        ret = GK5_ERR_CRYPTO_BACKEND; /* gk5i_use_aesni() changed (the seam) */
    }
    return ret;
}

/* The stolen tail of a one-pass walk, ciphered in place where the cursor
 * stands (the cipher pass began from a zero IV). */
static GK5_WUR bool onepass_tail(struct gk5i_cbc_pass *cp,
                                 struct gk5i_cursor *c, size_t tail_len)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t tail[2 * GK5_MAX_BLOCK_BYTES], next[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor at = *c;
    bool ok;

    gk5i_cursor_copy(c, tail, tail_len, true);
    ok = gk5i_cts_tail(cp, tail, tail_len, zero_iv, next);
    if (ok) {
        gk5i_cursor_copy(&at, tail, tail_len, false);
    }
    zap(tail, sizeof(tail));
    zap(next, sizeof(next));
    return ok;
}

/* Feeds len stream bytes from the cursor to the HMAC. */
static GK5_WUR uint32_t hmac_cursor(struct gk5i_hmac *h, struct gk5i_cursor *c,
                                    size_t len)
{
    while (len > 0) {
        size_t avail;
        uint8_t *p = gk5i_cursor_peek(c, &avail);
        size_t k = avail < len ? avail : len;
        uint32_t ret;

        if (p == NULL) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        ret = gk5i_hmac_update(h, p, k);
        if (ret != GK5_OK) {
            return ret;
        }
        c->off += k;
        len -= k;
    }
    return GK5_OK;
}

/* The start of every one-pass walk: nothing done (*done false, so the
 * caller takes the serial path) unless the walk applies; else the HMAC (Ki)
 * begun and returned. */
static inline struct gk5i_hmac *onepass_start(gk5_ukey *uk, bool applies,
                                              size_t *mac_len, bool *done)
{
    *done = applies;
    *mac_len = 0;
    if (!applies) {
        return NULL;
    }
    gk5i_hmac_init(uk->ki.hmac);
    return uk->ki.hmac;
}

/* How many bytes of whole 64-byte pieces the AES-NI/SHA-NI loop can take
 * at the cursor c, which stands pos bytes into a cipher pass of end bytes:
 * 0 unless both passes stand level at a SHA block boundary (level) and the
 * segment there holds a whole piece; *p the first of them. */
static inline size_t whole_pieces(struct gk5i_cursor *c, bool level, size_t pos,
                                  size_t end, uint8_t **p)
{
    size_t avail = 0, k;

    *p = level ? gk5i_cursor_peek(c, &avail) : NULL;
    if (*p == NULL) {
        return 0;
    }
    k = avail < end - pos ? avail : end - pos;
    return k - k % SHA1_BLOCK;
}

/* After the loop took k bytes: the cipher cursor past them, the MAC cursor
 * level with it, and the chaining value no longer the IV's. */
static inline void pieces_taken(struct gk5i_cbc_pass *cp, struct gk5i_cursor *c,
                                struct gk5i_cursor *mc, size_t k)
{
    cp->first = false;
    c->off += k;
    *mc = *c;
}

/* The end every walk shares: the MAC out, then the cipher pass closed. */
static inline GK5_WUR uint32_t onepass_end(struct gk5i_hmac *h,
                                           struct gk5i_cbc_pass *cp,
                                           uint8_t mac[GK5_MAX_MAC_BYTES],
                                           size_t *mac_len)
{
    uint32_t ret = gk5i_hmac_final(h, mac, mac_len);

    if (ret == GK5_OK) {
        gk5i_cbc_end(cp);
    }
    return ret;
}

/*
 * RFC 3961 5.3 / RFC 3962 sealing, the HMAC (Ki) and the CTS encryption
 * (Ke, zero IV) of the same stream, in one walk over it: macked is how far
 * the HMAC has read, enc how far CBC has written (never past macked: the
 * plaintext is MACed before it is overwritten).  Where both stand at the
 * same 64-byte boundary and a segment holds whole 64-byte pieces, the
 * AES-NI/SHA-NI loop does both at once.  Around it the pieces go through
 * the serial path's code, on the same AES-NI key and chaining value.
 */
uint32_t gk5i_mte_seal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                               size_t stream_len,
                               uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                               bool *done)
{
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor mc = {.iov = iov, .n = n, .mask = GK5I_STREAM_TYPES};
    struct gk5i_cursor ec = mc;
    struct gk5i_hmac *h;
    struct gk5i_cbc_pass cp;
    size_t bs = uk->et->block_bytes, cbc_len, tail_len, macked = 0, enc = 0;
    uint32_t st[5], ret = GK5_ERR_CRYPTO_BACKEND;

    h = onepass_start(uk, onepass_applies(uk, iov, n, stream_len), mac_len,
                      done);
    if (h == NULL) {
        return GK5_OK;
    }
    ret = onepass_begin(&cp, uk, true, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (enc < cbc_len) {
        size_t k, to, upto;
        uint8_t *p;

        k = whole_pieces(&ec, macked == enc && macked % SHA1_BLOCK == 0, enc,
                         cbc_len, &p);
        if (k != 0 && gk5i_hmac_sha1_take(h, st)) {
            gk5i_onepass_cbc_sha1(cp.aes, cp.chain, st, p, k / SHA1_BLOCK);
            gk5i_hmac_sha1_give(h, st, k);
            pieces_taken(&cp, &ec, &mc, k);
            enc += k;
            macked = enc;
            continue;
        }
        /* MAC up to the next 64-byte boundary, then CBC as far as that. */
        to = (macked / SHA1_BLOCK + 1) * SHA1_BLOCK;
        if (to > stream_len) {
            to = stream_len;
        }
        ret = hmac_cursor(h, &mc, to - macked);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
        macked = to;
        upto = macked - macked % bs;
        if (upto > cbc_len) {
            upto = cbc_len;
        }
        if (upto > enc) {
            if (!gk5i_cbc_run(&cp, &ec, upto - enc, blk)) {
                goto cleanup;
            }
            enc = upto;
        }
    }
    ret = hmac_cursor(h, &mc, stream_len - macked);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    if (!onepass_tail(&cp, &ec, tail_len)) {
        goto cleanup;
    }
    ret = onepass_end(h, &cp, mac, mac_len);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

/*
 * (The walk below mirrors the sealing one; their shared steps are the
 * helpers above.  The loops stay two: unsealing must decrypt before it
 * MACs, sealing MAC before it encrypts, and the AES-NI call differs.)
 *
 * RFC 3961 5.3 / RFC 3962 unsealing, the CTS decryption (Ke, zero IV) and
 * the HMAC (Ki) of the plaintext, in one walk: dec is how far CBC has
 * decrypted, macked how far the HMAC has read (never past dec: only
 * plaintext is MACed).  Where both stand at the same 64-byte boundary and
 * a segment holds whole 64-byte pieces, the AES-NI/SHA-NI loop does both
 * at once; elsewhere a piece is decrypted, then MACed.  The stolen tail
 * is decrypted as on the serial path and MACed last.
 */
uint32_t gk5i_mte_unseal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                                 size_t stream_len,
                                 uint8_t mac[GK5_MAX_MAC_BYTES],
                                 size_t *mac_len, bool *done)
{
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor mc = {.iov = iov, .n = n, .mask = GK5I_STREAM_TYPES};
    struct gk5i_cursor dc = mc;
    struct gk5i_hmac *h;
    struct gk5i_cbc_pass cp;
    size_t cbc_len, tail_len, macked = 0, dec = 0;
    uint32_t st[5], ret = GK5_ERR_CRYPTO_BACKEND;

    h = onepass_start(uk, onepass_applies(uk, iov, n, stream_len), mac_len,
                      done);
    if (h == NULL) {
        return GK5_OK;
    }
    ret = onepass_begin(&cp, uk, false, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (dec < cbc_len) {
        size_t k, to;
        uint8_t *p;

        k = whole_pieces(&dc, macked == dec && dec % SHA1_BLOCK == 0, dec,
                         cbc_len, &p);
        if (k != 0 && gk5i_hmac_sha1_take(h, st)) {
            gk5i_onepass_cbc_dec_sha1(cp.aes, cp.chain, st, p, k / SHA1_BLOCK);
            gk5i_hmac_sha1_give(h, st, k);
            pieces_taken(&cp, &dc, &mc, k);
            dec += k;
            macked = dec;
            continue;
        }
        /* Decrypt up to the next 64-byte boundary, then MAC as far. */
        to = (dec / SHA1_BLOCK + 1) * SHA1_BLOCK;
        if (to > cbc_len) {
            to = cbc_len;
        }
        if (!gk5i_cbc_run(&cp, &dc, to - dec, blk)) {
            goto cleanup;
        }
        dec = to;
        ret = hmac_cursor(h, &mc, dec - macked);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
        macked = dec;
    }
    if (!onepass_tail(&cp, &dc, tail_len)) {
        goto cleanup;
    }
    ret = hmac_cursor(h, &mc, stream_len - macked);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = onepass_end(h, &cp, mac, mac_len);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

/* RFC 8009's aes128-cts-hmac-sha256-128 on AES-NI and SHA-NI, long
 * enough to gain, and a MAC input that is the zero IV and the cipher stream
 * (no SIGN_ONLY data). */
static bool etm_onepass_applies(const gk5_ukey *uk, const gk5_crypto_iov *iov,
                                size_t n, size_t stream_len)
{
    if (!gk5i_ukey_fast(uk) || !gk5i_use_aesni(uk) || uk->ki.hmac == NULL ||
        uk->et->onepass != GK5I_ONEPASS_ETM_SHA256 ||
        uk->et->block_bytes != 16 || stream_len < ONEPASS_MIN_STREAM ||
        !gk5i_hmac_sha256_can(uk->ki.hmac)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].flags == GK5_CRYPTO_IOV_SIGN_ONLY && iov[i].length != 0) {
            return false;
        }
    }
    return true;
}

/* The MAC offset of stream byte s is s + 16 (the zero IV comes first), so
 * SHA-256 blocks start at stream offsets 48 + 64 i. */
#define ETM_PHASE 48

/*
 * RFC 8009 5 in one walk over the stream: pos is how far both the cipher
 * and the HMAC have gone.  At a SHA-256 block boundary, in a segment that
 * holds whole 64-byte pieces, the AES-NI/SHA-NI loop does both at once;
 * elsewhere a piece is ciphered and MACed one after the other, the MAC
 * always over ciphertext (after encrypting, before decrypting).  The
 * stolen tail is done as on the serial path.
 */
uint32_t gk5i_etm_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                          size_t stream_len, bool encrypt,
                          uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                          bool *done)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor mc = {.iov = iov, .n = n, .mask = GK5I_STREAM_TYPES};
    struct gk5i_cursor cc = mc;
    struct gk5i_hmac *h;
    struct gk5i_cbc_pass cp;
    size_t bs = uk->et->block_bytes, cbc_len, tail_len, pos = 0;
    uint32_t st[8], ret = GK5_ERR_CRYPTO_BACKEND;

    h = onepass_start(uk, etm_onepass_applies(uk, iov, n, stream_len), mac_len,
                      done);
    if (h == NULL) {
        return GK5_OK;
    }
    ret = gk5i_hmac_update(h, zero_iv, bs);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = onepass_begin(&cp, uk, encrypt, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (pos < cbc_len) {
        size_t k, to;
        uint8_t *p;

        k = whole_pieces(&cc, pos % SHA1_BLOCK == ETM_PHASE, pos, cbc_len, &p);
        if (k != 0 && gk5i_hmac_sha256_take(h, st)) {
            if (encrypt) {
                gk5i_onepass_cbc_sha256(cp.aes, cp.chain, st, p,
                                        k / SHA1_BLOCK);
            } else {
                gk5i_onepass_cbc_dec_sha256(cp.aes, cp.chain, st, p,
                                            k / SHA1_BLOCK);
            }
            gk5i_hmac_sha256_give(h, st, k);
            pieces_taken(&cp, &cc, &mc, k);
            pos += k;
            continue;
        }
        /* Up to the next SHA-256 block boundary (a whole number of cipher
         * blocks: 48 and 64 are multiples of 16). */
        to = pos - pos % SHA1_BLOCK + ETM_PHASE;
        if (to <= pos) {
            to += SHA1_BLOCK;
        }
        if (to > cbc_len) {
            to = cbc_len;
        }
        if (!encrypt) {
            ret = hmac_cursor(h, &mc, to - pos);
            if (ret != GK5_OK) {
                goto cleanup;
            }
            ret = GK5_ERR_CRYPTO_BACKEND;
        }
        if (!gk5i_cbc_run(&cp, &cc, to - pos, blk)) {
            goto cleanup;
        }
        if (encrypt) {
            ret = hmac_cursor(h, &mc, to - pos);
            if (ret != GK5_OK) {
                goto cleanup;
            }
            ret = GK5_ERR_CRYPTO_BACKEND;
        }
        pos = to;
    }
    if (!encrypt) {
        ret = hmac_cursor(h, &mc, tail_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (!onepass_tail(&cp, &cc, tail_len)) {
        goto cleanup;
    }
    if (encrypt) {
        ret = hmac_cursor(h, &mc, tail_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    ret = onepass_end(h, &cp, mac, mac_len);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

#endif /* GK5_HAVE_ONEPASS_DRIVERS */
