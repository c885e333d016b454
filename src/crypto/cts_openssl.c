/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The cipher on OpenSSL's own modes, nothing by hand: RFC 3962 5 CBC with
 * ciphertext stealing is OpenSSL's CTS cipher ("AES-128-CBC-CTS",
 * "CAMELLIA-256-CBC-CTS", ...) in CS3 mode, the Kerberos variant (the
 * last two blocks swapped; exactly one block is plain CBC), and DES3
 * (RFC 3961 6.3) is "DES-EDE3-CBC".  It is all a -Dfastpath=false build
 * has, and in the default build the reference that the hand-written CTS of
 * cts.c is held to (gk5i_openssl_only_set, tests/unit/test_fastpath_diff.c).
 *
 * OpenSSL's CTS ciphers take a message in one EVP_CipherUpdate call: a
 * stream in several segments is gathered into a scratch buffer (wiped and
 * freed after), ciphered, and scattered back; correctness over speed.  The
 * context is keyed once per ukey and direction, and given each message's
 * IV (and the CS3 mode) with EVP_CipherInit_ex2.  One call takes an int
 * length, so a CTS stream is at most INT_MAX bytes here.
 */
#include <limits.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "crypto_int.h"
#include "internal.h"

/* Ke keyed for the direction on first use: the CTS cipher, or for DES3
 * (no CTS) the CBC one. */
static GK5_WUR uint32_t need_ctx(gk5_ukey *uk, bool encrypt,
                                 EVP_CIPHER_CTX **out)
{
    const struct gk5i_subkeys *sk = uk->sk;
    EVP_CIPHER_CTX **ctx = encrypt ? &uk->cbc_enc : &uk->cbc_dec;
    const char *name =
        uk->et->cts_cipher != NULL ? uk->et->cts_cipher : uk->et->cipher;
    uint32_t ret = GK5_OK;

    *out = NULL;
    if (sk->ke_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (*ctx == NULL) {
        ret =
            gk5i_cipher_ctx_new(name, sk->ke, sk->ke_len, encrypt ? 1 : 0, ctx);
    }
    *out = *ctx;
    return ret;
}

/*
 * One message's cipher over the segments c selects (len bytes), in place:
 * from iv, in one update (CTS needs it; CBC takes slices).  Where the
 * stream is one segment it is ciphered where it lies, else through a
 * scratch copy.  state (may be NULL) receives the ciphertext block at
 * state_off: the cipher state RFC 3962 B lists as "next IV".
 */
static GK5_WUR uint32_t run_cipher(EVP_CIPHER_CTX *ctx, bool cts,
                                   struct gk5i_cursor c, size_t len,
                                   const uint8_t *iv, bool encrypt,
                                   size_t state_off, uint8_t *state, size_t bs)
{
    OSSL_PARAM params[2];
    struct gk5i_cursor at = c;
    uint8_t *buf = NULL, *scratch = NULL, fin[GK5_MAX_BLOCK_BYTES];
    size_t avail = 0, done = 0;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    int outl = 0;

    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
                                                 (char *)"CS3", 0);
    params[1] = OSSL_PARAM_construct_end();
    if (len == 0) {
        return GK5_OK;
    }
    if (cts && len > INT_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    buf = gk5i_cursor_peek(&at, &avail);
    if (buf == NULL || avail < len) {
        scratch = OPENSSL_malloc(len);
        if (scratch == NULL) {
            return GK5_ERR_NOMEM;
        }
        at = c;
        gk5i_cursor_copy(&at, scratch, len, true);
        buf = scratch;
    }
    if (!encrypt && state != NULL) {
        memcpy(state, buf + state_off, bs);
    }
    if (!EVP_CipherInit_ex2(ctx, NULL, NULL, iv, encrypt ? 1 : 0,
                            cts ? params : NULL)) {
        goto cleanup;
    }
    while (done < len) {
        size_t k = len - done < GK5_MAX_SLICE ? len - done : GK5_MAX_SLICE;

        if (cts) {
            k = len;
        }
        if (!EVP_CipherUpdate(ctx, buf + done, &outl, buf + done, (int)k) ||
            (size_t)outl != k) {
            goto cleanup;
        }
        done += k;
    }
    if (!EVP_CipherFinal_ex(ctx, fin, &outl) || outl != 0) {
        goto cleanup;
    }
    if (encrypt && state != NULL) {
        memcpy(state, buf + state_off, bs);
    }
    if (scratch != NULL) {
        at = c;
        gk5i_cursor_copy(&at, scratch, len, false);
    }
    ret = GK5_OK;

cleanup:
    if (scratch != NULL) {
        OPENSSL_clear_free(scratch, len);
    }
    return ret;
}

/* RFC 3962 5 (RFC 6803 6, RFC 8009 5): CTS over HEADER, DATA and PADDING;
 * DES3 (RFC 3961 6.3): CBC over them.  The same contract as cts.c's. */
uint32_t gk5i_evp_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                               size_t stream_len, const uint8_t *iv,
                               bool encrypt, uint8_t *next_iv)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    struct gk5i_cursor c = {.iov = iov, .n = n, .mask = GK5I_STREAM_TYPES};
    uint8_t state[GK5_MAX_BLOCK_BYTES];
    EVP_CIPHER_CTX *ctx = NULL;
    size_t bs = uk->et->block_bytes, off;
    bool cts = uk->et->cts_cipher != NULL;
    uint32_t ret;

    if (bs == 0 || bs > sizeof(state)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (iv == NULL) {
        iv = zero_iv;
    }
    if (stream_len < bs || (!cts && stream_len % bs != 0)) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    /* The state that follows: the last block of plain CBC; with CS3 the
     * last full block, which the swap puts second to last (the first, when
     * the message is one or two blocks long). */
    if (!cts) {
        off = stream_len - bs;
    } else {
        size_t blocks = (stream_len + bs - 1) / bs;

        off = blocks <= 2 ? 0 : (blocks - 2) * bs;
    }
    ret = need_ctx(uk, encrypt, &ctx);
    if (ret == GK5_OK) {
        ret = run_cipher(ctx, cts, c, stream_len, iv, encrypt, off, state, bs);
    }
    if (ret == GK5_OK && next_iv != NULL) {
        memcpy(next_iv, state, bs);
    }
    zap(state, sizeof(state));
    return ret;
}

/* RFC 1964 raw CBC over total bytes of DATA segments (checked by ukey.c)
 * from iv: plain CBC with Ke. */
uint32_t gk5i_evp_raw_cbc(gk5_ukey *uk, const uint8_t *iv, gk5_crypto_iov *iov,
                          size_t n, size_t total, bool encrypt)
{
    struct gk5i_cursor c = {
        .iov = iov, .n = n, .mask = GK5I_TYPE_BIT(GK5_CRYPTO_IOV_DATA)};
    EVP_CIPHER_CTX *ctx = NULL, *own = NULL;
    uint32_t ret;

    if (uk->sk->ke_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    /* The ukey's context is the CBC one only without CTS (DES3, the one
     * family with raw tokens); any other key gets a CBC context here. */
    if (uk->et->cts_cipher == NULL) {
        ret = need_ctx(uk, encrypt, &ctx);
    } else {
        ret = gk5i_cipher_ctx_new(uk->et->cipher, uk->sk->ke, uk->sk->ke_len,
                                  encrypt ? 1 : 0, &own);
        ctx = own;
    }
    if (ret == GK5_OK) {
        ret = run_cipher(ctx, false, c, total, iv, encrypt, 0, NULL,
                         uk->et->block_bytes);
    }
    EVP_CIPHER_CTX_free(own);
    return ret;
}
