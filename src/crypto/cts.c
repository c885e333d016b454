/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3962 5 CBC with ciphertext stealing (and RFC 3961 CBC for DES3) over
 * scattered segments, in place, on a keyed CBC: AES-NI round keys
 * (fast/aesni.c), OpenSSL's low-level Camellia (fast/camellia.c)
 * or an OpenSSL CBC context.  The OpenSSL contexts are keyed once per ukey
 * and not re-initialised per message (EVP_CipherInit_ex2 per message would
 * cost as much as ciphering a few hundred bytes): each message starts from
 * the chaining value the context is known to hold (struct gk5i_cbc_pass).
 * The stealing itself is done here over CBC, not with OpenSSL's CTS
 * ciphers, which need the whole message in one call and a
 * re-initialisation per message.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* Whether Camellia runs on OpenSSL's low-level API (the seam). */
static bool use_lowlevel_camellia(const gk5_ukey *uk)
{
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    return uk->camellia && gk5i_fastpaths_on();
#else
    (void)uk;
    return false;
#endif
}

/* (The two seams above and below differ in their build option and
 * key; alike in shape only.) */
/* Whether the cipher runs on AES-NI: an AES key, the CPU, the seam. */
bool gk5i_use_aesni(const gk5_ukey *uk)
{
#ifdef GK5_HAVE_ONEPASS
    return uk->aes && gk5i_onepass_available();
#else
    (void)uk;
    return false;
#endif
}

/* Keys Ke for one direction on first use: on AES-NI, or in OpenSSL. */
static GK5_WUR uint32_t need_cipher(gk5_ukey *uk, bool encrypt)
{
    const struct gk5i_subkeys *sk = uk->sk;
    EVP_CIPHER_CTX **ctx = encrypt ? &uk->cbc_enc : &uk->cbc_dec;

    if (sk->ke_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
#ifdef GK5_HAVE_ONEPASS
    if (gk5i_use_aesni(uk)) {
        struct gk5i_aes_key **k = encrypt ? &uk->aes_enc : &uk->aes_dec;

        return *k != NULL ? GK5_OK
                          : gk5i_aes_key_new(sk->ke, sk->ke_len, !encrypt, k);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (use_lowlevel_camellia(uk)) {
        return uk->cam != NULL
                   ? GK5_OK
                   : gk5i_camellia_key_new(sk->ke, sk->ke_len, &uk->cam);
    }
#endif
    if (*ctx != NULL) {
        return GK5_OK;
    }
    if (encrypt) {
        uk->enc_chain_known = false;
    } else {
        uk->dec_chain_known = false;
    }
    return gk5i_cipher_ctx_new(uk->et->cipher, sk->ke, sk->ke_len,
                               encrypt ? 1 : 0, ctx);
}

/* One in-place update of a run of whole blocks. */
static GK5_WUR bool cipher_update(EVP_CIPHER_CTX *ctx, uint8_t *p, size_t len)
{
    int outl = 0;

    return EVP_CipherUpdate(ctx, p, &outl, p, (int)len) && (size_t)outl == len;
}

static void xor_block(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] ^= src[i];
    }
}

#if defined(GK5_HAVE_ONEPASS) || defined(GK5_HAVE_LOWLEVEL_CAMELLIA)
/* A pass on a key schedule of gk5's own (low-level Camellia, AES-NI; have:
 * the ukey holds one): the chaining value lives in the pass, from iv. */
static inline GK5_WUR uint32_t own_schedule(struct gk5i_cbc_pass *cp, bool have,
                                            const uint8_t *iv)
{
    cp->ctx = NULL;
    cp->chain = cp->own_chain;
    cp->known = &cp->own_known;
    memcpy(cp->chain, iv, cp->bs);
    memset(cp->fix, 0, sizeof(cp->fix));
    return have && cp->bs == 16 ? GK5_OK : GK5_ERR_CRYPTO_BACKEND;
}
#endif

/* Keys Ke for the direction if this is its first use. */
uint32_t gk5i_cbc_begin(struct gk5i_cbc_pass *cp, gk5_ukey *uk, bool encrypt,
                        const uint8_t *iv)
{
    uint32_t ret = need_cipher(uk, encrypt);

    if (ret != GK5_OK) {
        return ret;
    }
    cp->encrypt = encrypt;
    cp->first = true;
    cp->bs = uk->et->block_bytes;
#ifdef GK5_HAVE_ONEPASS
    cp->aes = NULL;
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    cp->cam = NULL;
    if (use_lowlevel_camellia(uk)) {
        cp->cam = uk->cam;
        return own_schedule(cp, cp->cam != NULL, iv);
    }
#endif
#ifdef GK5_HAVE_ONEPASS
    if (gk5i_use_aesni(uk)) {
        cp->aes = encrypt ? uk->aes_enc : uk->aes_dec;
        return own_schedule(cp, cp->aes != NULL, iv);
    }
#endif
    cp->ctx = encrypt ? uk->cbc_enc : uk->cbc_dec;
    cp->chain = encrypt ? uk->enc_chain : uk->dec_chain;
    cp->known = encrypt ? &uk->enc_chain_known : &uk->dec_chain_known;
    if (cp->ctx == NULL) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    if (!*cp->known) {
        if (!EVP_CipherInit_ex2(cp->ctx, NULL, NULL, iv, encrypt ? 1 : 0,
                                NULL)) {
            return GK5_ERR_CRYPTO_BACKEND;
        }
        memcpy(cp->chain, iv, cp->bs);
    }
    memcpy(cp->fix, iv, cp->bs);
    xor_block(cp->fix, cp->chain, cp->bs);
    /* Unknown until the pass ends well: a failure half-way leaves the
     * context in a state the next message must not rely on. */
    *cp->known = false;
    return GK5_OK;
}

/* CBC over k bytes (whole blocks) in place. */
static GK5_WUR bool cbc_blocks(struct gk5i_cbc_pass *cp, uint8_t *p, size_t k)
{
    uint8_t last[GK5_MAX_BLOCK_BYTES];
    size_t bs = cp->bs;

#ifdef GK5_HAVE_ONEPASS
    if (cp->aes != NULL) {
        gk5i_aes_cbc(cp->aes, cp->chain, p, k / bs);
        cp->first = false;
        return true;
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cp->cam != NULL) {
        gk5i_camellia_cbc(cp->cam, cp->chain, p, k, cp->encrypt);
        cp->first = false;
        return true;
    }
#endif
    if (!cp->encrypt) {
        memcpy(last, p + k - bs, bs);
    } else if (cp->first) {
        xor_block(p, cp->fix, bs);
    }
    if (!cipher_update(cp->ctx, p, k)) {
        return false;
    }
    if (!cp->encrypt && cp->first) {
        xor_block(p, cp->fix, bs);
    }
    cp->first = false;
    memcpy(cp->chain, cp->encrypt ? p + k - bs : last, bs);
    return true;
}

void gk5i_cbc_end(struct gk5i_cbc_pass *cp)
{
    *cp->known = true;
    zap(cp->fix, sizeof(cp->fix));
    zap(cp->own_chain, sizeof(cp->own_chain));
}

/* CBC over len bytes (whole blocks) from the cursor: runs of whole blocks
 * inside a segment are ciphered where they lie; a block that straddles
 * segments is gathered into blk, ciphered, and scattered back. */
bool gk5i_cbc_run(struct gk5i_cbc_pass *cp, struct gk5i_cursor *c, size_t len,
                  uint8_t *blk)
{
    size_t bs = cp->bs;

    while (len > 0) {
        size_t avail;
        uint8_t *p = gk5i_cursor_peek(c, &avail);

        if (p == NULL) {
            return false;
        }
        if (avail >= bs) {
            size_t k = avail < len ? avail : len;

            if (k > GK5_MAX_SLICE) {
                k = GK5_MAX_SLICE;
            }
            k -= k % bs;
            if (!cbc_blocks(cp, p, k)) {
                return false;
            }
            c->off += k;
            len -= k;
        } else {
            struct gk5i_cursor at = *c;

            gk5i_cursor_copy(c, blk, bs, true);
            if (!cbc_blocks(cp, blk, bs)) {
                return false;
            }
            gk5i_cursor_copy(&at, blk, bs, false);
            len -= bs;
        }
    }
    return true;
}

/*
 * RFC 3962 5 ciphertext stealing (CS3) of the last bs + d bytes
 * (0 < d <= bs), continuing the CBC pass.  With P = P(n-1) | P(n):
 *   encrypt: X = E(P(n-1) ^ chain), Y = E((P(n) | zeros) ^ X) -- plain CBC
 *            of the zero-padded tail -- and the output is Y | X[0..d);
 *   decrypt: Z = D(Y), X = C(n)[0..d) | Z[d..bs), P(n) = Z[0..d) ^ C(n),
 *            P(n-1) = D(X) ^ chain.
 * Y, the first ciphertext block of the tail, is the cipher state that
 * follows (RFC 3962 B's "next IV").
 */
bool gk5i_cts_tail(struct gk5i_cbc_pass *cp, uint8_t *t, size_t tail_len,
                   const uint8_t *iv, uint8_t *next)
{
    uint8_t b[2 * GK5_MAX_BLOCK_BYTES], prev[GK5_MAX_BLOCK_BYTES];
    size_t bs = cp->bs, d = tail_len - bs;
    bool ok = false;

    if (cp->encrypt) {
        memcpy(b, t, tail_len);
        memset(b + tail_len, 0, 2 * bs - tail_len);
        if (!cbc_blocks(cp, b, 2 * bs)) {
            goto cleanup;
        }
        memcpy(t, b + bs, bs);
        memcpy(t + bs, b, d);
        memcpy(next, b + bs, bs);
    } else {
        /* The chaining value P(n-1) is XORed with: the IV when the tail is
         * the whole message, else the block before the tail. */
        memcpy(prev, cp->first ? iv : cp->chain, bs);
        memcpy(next, t, bs);
        memcpy(b, t, bs);
        if (!cbc_blocks(cp, b, bs)) { /* b = D(Y) ^ prev */
            goto cleanup;
        }
        xor_block(b, prev, bs); /* Z */
        memcpy(b + bs, t + bs, d);
        memcpy(b + bs + d, b + d, bs - d); /* X */
        xor_block(b, b + bs, d);           /* P(n) = Z[0..d) ^ C(n) */
        memcpy(t + bs, b, d);
        memcpy(t, b + bs, bs);
        if (!cbc_blocks(cp, t, bs)) { /* D(X) ^ Y */
            goto cleanup;
        }
        xor_block(t, next, bs);
        xor_block(t, prev, bs); /* P(n-1) */
    }
    ok = true;

cleanup:
    zap(b, sizeof(b));
    zap(prev, sizeof(prev));
    return ok;
}

/*
 * RFC 3962 5 (and RFC 6803 6, RFC 8009 5): CBC with ciphertext stealing,
 * the last two blocks swapped; exactly one block is plain CBC.  CBC runs
 * over the segments in place up to the final 16 < n <= 32 bytes, which are
 * gathered and stolen by cts_tail.  Without CTS (DES3, RFC 3961 6.3) it is
 * CBC throughout.
 */
uint32_t gk5i_cts_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                               size_t stream_len, const uint8_t *iv,
                               bool encrypt, uint8_t *next_iv)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    uint8_t chain[GK5_MAX_BLOCK_BYTES];
    uint8_t tail[2 * GK5_MAX_BLOCK_BYTES];
    struct gk5i_cbc_pass cp;
    struct gk5i_cursor c = {.iov = iov, .n = n, .mask = GK5I_STREAM_TYPES};
    size_t bs = uk->et->block_bytes;
    size_t cbc_len, tail_len;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (bs == 0 || bs > sizeof(blk)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (iv == NULL) {
        iv = zero_iv;
    }
    if (stream_len < bs) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    if (uk->et->cts_cipher != NULL) {
        size_t blocks = (stream_len + bs - 1) / bs;

        cbc_len = blocks <= 2 ? 0 : (blocks - 2) * bs;
        if (stream_len == bs) {
            cbc_len = bs;
        }
        tail_len = stream_len - cbc_len;
    } else {
        if (stream_len % bs != 0) {
            return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
        }
        cbc_len = stream_len;
        tail_len = 0;
    }

    ret = gk5i_cbc_begin(&cp, uk, encrypt, iv);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    if (!gk5i_cbc_run(&cp, &c, cbc_len, blk)) {
        goto cleanup;
    }
    /* The cipher state after a CBC message: its last ciphertext block. */
    memcpy(chain, cbc_len != 0 ? cp.chain : iv, bs);
    if (tail_len != 0) {
        struct gk5i_cursor at = c;

        gk5i_cursor_copy(&c, tail, tail_len, true);
        if (!gk5i_cts_tail(&cp, tail, tail_len, iv, chain)) {
            goto cleanup;
        }
        gk5i_cursor_copy(&at, tail, tail_len, false);
    }
    gk5i_cbc_end(&cp);
    if (next_iv != NULL) {
        memcpy(next_iv, chain, bs);
    }
    ret = GK5_OK;

cleanup:
    zap(blk, sizeof(blk));
    zap(tail, sizeof(tail));
    zap(chain, sizeof(chain));
    return ret;
}

/* RFC 1964 raw CBC over total bytes of DATA segments (checked by ukey.c)
 * from iv, on the CBC pass. */
uint32_t gk5i_cts_raw_cbc(gk5_ukey *uk, const uint8_t *iv, gk5_crypto_iov *iov,
                          size_t n, size_t total, bool encrypt)
{
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor c = {
        .iov = iov, .n = n, .mask = GK5I_TYPE_BIT(GK5_CRYPTO_IOV_DATA)};
    struct gk5i_cbc_pass cp;
    uint32_t ret;

    ret = gk5i_cbc_begin(&cp, uk, encrypt, iv);
    if (ret == GK5_OK && !gk5i_cbc_run(&cp, &c, total, blk)) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK) {
        gk5i_cbc_end(&cp);
    }
    zap(blk, sizeof(blk));
    return ret;
}
