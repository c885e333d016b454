/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Prepared keys (gk5_ukey): making, copying and freeing them, keying their
 * MAC states on first use (gk5i_ukey_need; the cipher is keyed by the
 * engine that runs it, cts.c), and the one place a message's cipher is
 * sent to its engine (cts.c or cts_openssl.c).  Which paths a ukey runs on
 * is paths.c's (the OpenSSL-only switch) and fast/switch.c's; the families
 * call down into this file, and crypto_api.c hands a ukey to its family.
 *
 * Per message nothing is keyed again and, after a key's first message,
 * nothing allocates, in gk5 or in OpenSSL: the CBC/CTS engine (cts.c)
 * carries its contexts' chaining values from message to message, the MAC
 * states (mac.c) restart without re-keying, confounders come from a
 * per-thread pool (confounder.c).  Where the CPU allows, AES runs on AES-NI
 * with hand-scheduled keys and AES-SHA1 and AES-SHA256 sealing run the CBC
 * and the HMAC in one pass (onepass.c over the AES-NI loops of fast/).
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* The ukey's state, none of it keyed yet: sk is borrowed (it must outlive
 * the ukey) or, with own, copied. */
static GK5_WUR uint32_t ukey_make(const struct gk5_enctype *et,
                                  const struct gk5i_subkeys *sk, bool own,
                                  gk5_ukey **out)
{
    gk5_ukey *uk = NULL;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (et == NULL || et->profile == NULL || sk == NULL ||
        et->state != GK5_ENCTYPE_SUPPORTED) {
        goto cleanup;
    }
    if (sk->ke_len > sizeof(sk->ke) || sk->ki_len > sizeof(sk->ki) ||
        sk->kc_len > sizeof(sk->kc) ||
        (sk->ke_len == 0 && sk->ki_len == 0 && sk->kc_len == 0)) {
        goto cleanup;
    }
    if (sk->ke_len != 0 && sk->ke_len != et->key_bytes) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    /* (The allocate-or-NOMEM idiom, as ctx_alloc in mech/context.c.) */
    uk = OPENSSL_zalloc(sizeof(*uk));
    if (uk == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    uk->et = et;
    uk->sk = sk;
    uk->aes = et->family == GK5I_FAMILY_AES_SHA1 ||
              et->family == GK5I_FAMILY_AES_SHA2;
    uk->camellia = et->family == GK5I_FAMILY_CAMELLIA;
    uk->openssl_only = gk5i_openssl_only_on();
    if (own) {
        uk->sk_own = OPENSSL_malloc(sizeof(*uk->sk_own));
        if (uk->sk_own == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        *uk->sk_own = *sk;
        uk->sk = uk->sk_own;
    }
    *out = uk;
    uk = NULL;
    ret = GK5_OK;

cleanup:
    gk5i_ukey_free(uk);
    return ret;
}

uint32_t gk5i_ukey_new(const struct gk5_enctype *et,
                       const struct gk5i_subkeys *sk, gk5_ukey **out)
{
    return ukey_make(et, sk, true, out);
}

uint32_t gk5i_ukey_new_borrowed(const struct gk5_enctype *et,
                                const struct gk5i_subkeys *sk, gk5_ukey **out)
{
    return ukey_make(et, sk, false, out);
}

/* Another ukey for another thread, from the same subkeys: it keys its own
 * state on first use (the state is not copied: its confounders, chaining
 * values and MAC states belong to one thread). */
uint32_t gk5i_ukey_dup(const gk5_ukey *src, gk5_ukey **out)
{
    if (out != NULL) {
        *out = NULL;
    }
    if (src == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    uint32_t ret = ukey_make(src->et, src->sk, true, out);

    if (ret == GK5_OK) {
        (*out)->openssl_only = src->openssl_only;
    }
    return ret;
}

/* OpenSSL's free functions cleanse the key schedules and MAC states. */
void gk5i_ukey_free(gk5_ukey *uk)
{
    if (uk == NULL) {
        return;
    }
    EVP_CIPHER_CTX_free(uk->cbc_enc);
    EVP_CIPHER_CTX_free(uk->cbc_dec);
    gk5i_mac_clear(&uk->ki);
    gk5i_mac_clear(&uk->kc);
#ifdef GK5_HAVE_ONEPASS
    gk5i_aes_key_free(uk->aes_enc);
    gk5i_aes_key_free(uk->aes_dec);
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    gk5i_camellia_key_free(uk->cam);
#endif
    if (uk->sk_own != NULL) {
        OPENSSL_clear_free(uk->sk_own, sizeof(*uk->sk_own));
    }
    OPENSSL_clear_free(uk, sizeof(*uk));
}

uint32_t gk5i_ukey_need(gk5_ukey *uk, unsigned what)
{
    const struct gk5i_subkeys *sk;
    uint32_t ret = GK5_OK;

    if (uk == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    sk = uk->sk;
    if ((what & GK5I_NEED_KI) != 0 &&
        !gk5i_mac_ready(uk->et, gk5i_ukey_fast(uk), &uk->ki)) {
        ret = sk->ki_len == 0 ? GK5_ERR_INVALID_ARGUMENT
                              : gk5i_mac_key(uk->et, gk5i_ukey_fast(uk), sk->ki,
                                             sk->ki_len, &uk->ki);
    }
    if (ret == GK5_OK && (what & GK5I_NEED_KC) != 0 &&
        !gk5i_mac_ready(uk->et, gk5i_ukey_fast(uk), &uk->kc)) {
        ret = sk->kc_len == 0 ? GK5_ERR_INVALID_ARGUMENT
                              : gk5i_mac_key(uk->et, gk5i_ukey_fast(uk), sk->kc,
                                             sk->kc_len, &uk->kc);
    }
    return ret;
}

const struct gk5_enctype *gk5i_ukey_enctype(const gk5_ukey *uk)
{
    return uk != NULL ? uk->et : NULL;
}

/* ---- Per-message operations ---- */

/* The one place a message's cipher is sent to its engine. */
uint32_t gk5i_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                           size_t stream_len, const uint8_t *iv, bool encrypt,
                           uint8_t *next_iv)
{
#ifdef GK5_FASTPATH
    if (gk5i_ukey_fast(uk)) {
        return gk5i_cts_crypt_stream(uk, iov, n, stream_len, iv, encrypt,
                                     next_iv);
    }
#endif
    return gk5i_evp_crypt_stream(uk, iov, n, stream_len, iv, encrypt, next_iv);
}

/*
 * RFC 1964 1.2.2 / 1.2.1.3 as MIT does DES3: raw CBC with Ke (the session
 * key), no confounder or MAC, over the DATA segments (whole blocks in
 * total) with the given IV (NULL: zero).  Other segment types are ignored.
 */
static GK5_WUR uint32_t raw_cbc(gk5_ukey *uk, const uint8_t *iv,
                                gk5_crypto_iov *iov, size_t n, bool encrypt)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    size_t total = 0, bs;

    if (uk == NULL || iov == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    bs = uk->et->block_bytes;
    if (bs == 0 || bs > GK5_MAX_BLOCK_BYTES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].length != 0 && iov[i].data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        if (iov[i].flags == GK5_CRYPTO_IOV_DATA &&
            !gk5i_add_len(&total, iov[i].length)) {
            return GK5_ERR_BAD_IOV;
        }
    }
    if (total % bs != 0) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    if (iv == NULL) {
        iv = zero_iv;
    }
#ifdef GK5_FASTPATH
    if (gk5i_ukey_fast(uk)) {
        return gk5i_cts_raw_cbc(uk, iv, iov, n, total, encrypt);
    }
#endif
    return gk5i_evp_raw_cbc(uk, iv, iov, n, total, encrypt);
}

uint32_t gk5i_raw_encrypt_iov(gk5_ukey *uk, const uint8_t *iv,
                              gk5_crypto_iov *iov, size_t n)
{
    return raw_cbc(uk, iv, iov, n, true);
}

uint32_t gk5i_raw_decrypt_iov(gk5_ukey *uk, const uint8_t *iv,
                              gk5_crypto_iov *iov, size_t n)
{
    return raw_cbc(uk, iv, iov, n, false);
}
