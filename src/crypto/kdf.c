/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Key derivation on OpenSSL's KDFs (KRB5KDF, KBKDF, PBKDF2) and the
 * per-usage subkeys Ke, Ki, Kc every profile derives the same way; a
 * context import's many subkeys on one keyed base key where kdf_batch.c
 * (the fast paths) can.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "crypto_int.h"
#include "internal.h"

/* MIT's implementation limit on PBKDF2 iterations: larger counts are
 * refused rather than spending minutes on them. */
#define GK5_S2K_MAX_ITER 0xffffffu

/* Runs the named OpenSSL KDF with params into out. */
static GK5_WUR uint32_t run_kdf(const char *name, const OSSL_PARAM *params,
                                uint8_t *out, size_t out_len)
{
    EVP_KDF *kdf = NULL;
    EVP_KDF_CTX *kctx = NULL;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    kdf = gk5i_kdf_get(name, &owned);
    if (kdf == NULL) {
        goto cleanup;
    }
    kctx = EVP_KDF_CTX_new(kdf);
    if (kctx == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    if (EVP_KDF_derive(kctx, out, out_len, params) <= 0) {
        zap(out, out_len);
        goto cleanup;
    }
    ret = GK5_OK;

cleanup:
    EVP_KDF_CTX_free(kctx);
    if (owned) {
        EVP_KDF_free(kdf);
    }
    return ret;
}

/*
 * RFC 3961 5.1: DK(Key, Constant) = random-to-key(DR(Key, Constant)),
 * DR = the key's cipher run over n-fold(Constant) and its own output until
 * there is enough.  OpenSSL's KRB5KDF does DR and, for DES-EDE3-CBC, the
 * RFC 3961 6.3.1 random-to-key with parity itself (checked against RFC 3961
 * A.3 and MIT's DERIVE vectors).  KRB5KDF refuses constants longer than a
 * block, so the constant is n-folded here first; n-fold of a block-sized
 * string is the string itself, so KRB5KDF's own fold then changes nothing.
 */
uint32_t gk5i_kdf_rfc3961(const struct gk5_enctype *et, const uint8_t *key,
                          size_t key_len, const uint8_t *constant,
                          size_t constant_len, uint8_t *out, size_t out_len)
{
    uint8_t folded[GK5_MAX_BLOCK_BYTES];
    OSSL_PARAM params[4];
    uint32_t ret;

    if (key_len != et->key_bytes || out_len != et->key_bytes ||
        constant_len == 0 || et->block_bytes > sizeof(folded) ||
        !gk5i_nfold_constant(constant, constant_len, folded, et->block_bytes)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(
        OSSL_KDF_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
    params[1] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)key, key_len);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_CONSTANT,
                                                  folded, et->block_bytes);
    params[3] = OSSL_PARAM_construct_end();
    ret = run_kdf(OSSL_KDF_NAME_KRB5KDF, params, out, out_len);
    zap(folded, sizeof(folded));
    return ret;
}

/*
 * RFC 8009 3: KDF-HMAC-SHA2(key, label, [context,] k) = k-truncate(K1),
 * K1 = HMAC-SHA-256/384(key, 00000001 | label | 0x00 | context | k):
 * NIST SP 800-108 counter mode, which is OpenSSL's KBKDF "COUNTER" with its
 * defaults (32-bit counter, separator byte, 32-bit length L).
 */
uint32_t gk5i_kdf_hmac_counter(const struct gk5_enctype *et, const uint8_t *key,
                               size_t key_len, const uint8_t *label,
                               size_t label_len, const uint8_t *context,
                               size_t context_len, uint8_t *out, size_t out_len)
{
    OSSL_PARAM params[7];
    size_t i = 0;

    if (et->digest == NULL || key_len == 0 || out_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    params[i++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
                                                   (char *)"COUNTER", 0);
    params[i++] =
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, (char *)"HMAC", 0);
    params[i++] = OSSL_PARAM_construct_utf8_string(
        OSSL_KDF_PARAM_DIGEST, (char *)(uintptr_t)et->digest, 0);
    params[i++] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)key, key_len);
    params[i++] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_SALT, (void *)(uintptr_t)label, label_len);
    if (context_len != 0) {
        params[i++] = OSSL_PARAM_construct_octet_string(
            OSSL_KDF_PARAM_INFO, (void *)(uintptr_t)context, context_len);
    }
    params[i] = OSSL_PARAM_construct_end();
    return run_kdf(OSSL_KDF_NAME_KBKDF, params, out, out_len);
}

/*
 * RFC 6803 3: KDF-FEEDBACK-CMAC(key, constant) = k-truncate(K(1) | K(2) |
 * ...), K(i) = CMAC(key, K(i-1) | i | constant | 0x00 | k), K(0) = zero
 * block: NIST SP 800-108 feedback mode, OpenSSL's KBKDF "FEEDBACK" with the
 * zero block as its seed (IV).
 */
uint32_t gk5i_kdf_cmac_feedback(const struct gk5_enctype *et,
                                const uint8_t *key, size_t key_len,
                                const uint8_t *label, size_t label_len,
                                uint8_t *out, size_t out_len)
{
    static const uint8_t zero_block[GK5_MAX_BLOCK_BYTES];
    OSSL_PARAM params[7];

    if (et->digest != NULL || key_len == 0 || out_len == 0 ||
        et->block_bytes > sizeof(zero_block)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
                                                 (char *)"FEEDBACK", 0);
    params[1] =
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, (char *)"CMAC", 0);
    params[2] = OSSL_PARAM_construct_utf8_string(
        OSSL_KDF_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
    params[3] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)key, key_len);
    params[4] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_SALT, (void *)(uintptr_t)label, label_len);
    params[5] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_SEED, (void *)(uintptr_t)zero_block, et->block_bytes);
    params[6] = OSSL_PARAM_construct_end();
    return run_kdf(OSSL_KDF_NAME_KBKDF, params, out, out_len);
}

/* RFC 2898 PBKDF2 with HMAC(digest); the SP 800-132 lower-bound checks are
 * off (pkcs5 = 1): Kerberos salts and RFC test counts are below them. */
uint32_t gk5i_pbkdf2(const char *digest, const uint8_t *pw, size_t pw_len,
                     const uint8_t *salt, size_t salt_len, uint32_t iter,
                     uint8_t *out, size_t out_len)
{
    static const uint8_t empty[1];
    OSSL_PARAM params[6];
    unsigned int iterations = iter;
    int pkcs5 = 1;

    if (iter == 0 || out_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
                                                 (char *)(uintptr_t)digest, 0);
    params[1] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_PASSWORD, (void *)(uintptr_t)(pw != NULL ? pw : empty),
        pw_len);
    params[2] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_SALT, (void *)(uintptr_t)(salt != NULL ? salt : empty),
        salt_len);
    params[3] = OSSL_PARAM_construct_uint(OSSL_KDF_PARAM_ITER, &iterations);
    params[4] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_PKCS5, &pkcs5);
    params[5] = OSSL_PARAM_construct_end();
    return run_kdf(OSSL_KDF_NAME_PBKDF2, params, out, out_len);
}

/* RFC 3962 4: s2kparams is a 4-byte big-endian iteration count, absent =
 * the enctype's default (RFC 3962 4: 4096; RFC 6803 4 and RFC 8009 4:
 * 32768).
 * Zero would mean 2^32 (RFC 3962), above the GK5_S2K_MAX_ITER limit. */
uint32_t gk5i_s2k_iterations(const struct gk5_enctype *et,
                             const uint8_t *params, size_t params_len,
                             uint32_t *iter)
{
    uint32_t n;

    *iter = 0;
    if (params == NULL || params_len == 0) {
        *iter = et->s2k_default_iter;
        return GK5_OK;
    }
    if (params_len != 4) {
        return GK5_ERR_BAD_S2K_PARAMS;
    }
    n = load_be32(params);
    if (n == 0 || n > GK5_S2K_MAX_ITER) {
        return GK5_ERR_BAD_S2K_PARAMS;
    }
    *iter = n;
    return GK5_OK;
}

/* RFC 6803 4 and RFC 8009 4: saltp = enctype-name | 0x00 | salt. */
uint32_t gk5i_saltp(const struct gk5_enctype *et, const uint8_t *salt,
                    size_t salt_len, uint8_t **out, size_t *out_len)
{
    size_t name_len = strlen(et->name);
    uint8_t *buf = NULL;

    *out = NULL;
    *out_len = 0;
    if (salt_len > SIZE_MAX - name_len - 1) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    buf = OPENSSL_malloc(name_len + 1 + salt_len);
    if (buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(buf, et->name, name_len);
    buf[name_len] = 0x00;
    if (salt_len != 0) {
        memcpy(buf + name_len + 1, salt, salt_len);
    }
    *out = buf;
    *out_len = name_len + 1 + salt_len;
    return GK5_OK;
}

/* The PBKDF2 step every string-to-key but DES3's shares (RFC 3962 4,
 * RFC 6803 4, RFC 8009 4): tkey = PBKDF2-HMAC-digest(passphrase, salt,
 * iter_count from s2kparams, keylength), the salt first prefixed with the
 * enctype name and a zero byte (saltp) when prefixed. */
uint32_t gk5i_s2k_tkey(const struct gk5_enctype *et, const char *digest,
                       bool prefixed, const uint8_t *pw, size_t pw_len,
                       const uint8_t *salt, size_t salt_len,
                       const uint8_t *params, size_t params_len, uint8_t *tkey,
                       size_t key_len)
{
    uint8_t *saltp = NULL;
    size_t saltp_len = 0;
    uint32_t iter = 0;
    uint32_t ret;

    ret = gk5i_s2k_iterations(et, params, params_len, &iter);
    if (ret != GK5_OK) {
        return ret;
    }
    if (prefixed) {
        ret = gk5i_saltp(et, salt, salt_len, &saltp, &saltp_len);
        if (ret != GK5_OK) {
            return ret;
        }
        salt = saltp;
        salt_len = saltp_len;
    }
    ret = gk5i_pbkdf2(digest, pw, pw_len, salt, salt_len, iter, tkey, key_len);
    OPENSSL_clear_free(saltp, saltp_len);
    return ret;
}

/* ---- Subkeys ---- */

/* Any usage number: the lengths do not depend on it. */
#define KG_USAGE_ANY 24

/* RFC 3961 5.3 / RFC 8009 5: usage constant = usage (32-bit big-endian) |
 * one byte: 0x99 Kc, 0xAA Ke, 0x55 Ki. */
static GK5_WUR uint32_t derive_usage_key(const struct gk5_enctype *et,
                                         struct gk5i_kdf_base *base,
                                         const uint8_t *key, size_t key_len,
                                         uint32_t usage, uint8_t which,
                                         uint8_t *out, size_t *out_len)
{
    uint8_t constant[5];
    size_t len;
    uint32_t ret;

    *out_len = 0;
    store_be32(constant, usage);
    constant[4] = which;
    len = et->profile->derive_length(et, constant, sizeof(constant));
    if (len == 0 || len > GK5_MAX_KEY_BYTES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (base != NULL) {
        ret = gk5i_kdf_base_derive(base, constant, sizeof(constant), out, len);
    } else {
        ret = et->profile->derive(et, key, key_len, constant, sizeof(constant),
                                  out, len);
    }
    if (ret != GK5_OK) {
        return ret;
    }
    *out_len = len;
    return GK5_OK;
}

/* The base key every derivation checks first: GK5_ERR_INVALID_ARGUMENT
 * without an enctype (with a profile) or a key, GK5_ERR_BAD_KEY_LENGTH
 * unless key_len is the enctype's key length and at most max. */
static GK5_WUR uint32_t check_base_key(const struct gk5_enctype *et,
                                       const uint8_t *key, size_t key_len,
                                       size_t max)
{
    if (et == NULL || et->profile == NULL || key == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (key_len != et->key_bytes || key_len > max) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    return GK5_OK;
}

/* The end of a subkey derivation: sk handed to *out if ret is GK5_OK, else
 * *out wiped; sk wiped either way.  No out is GK5_ERR_INVALID_ARGUMENT. */
static GK5_WUR uint32_t subkeys_out(uint32_t ret, struct gk5i_subkeys *sk,
                                    struct gk5i_subkeys *out)
{
    if (out == NULL) {
        ret = GK5_ERR_INVALID_ARGUMENT;
    } else if (ret == GK5_OK) {
        *out = *sk;
    } else {
        gk5i_subkeys_wipe(out);
    }
    gk5i_subkeys_wipe(sk);
    return ret;
}

/*
 * RFC 3961 5.3 (and RFC 6803 6, RFC 8009 5): Ke = DK(key, usage | 0xAA),
 * Ki = DK(key, usage | 0x55), Kc = DK(key, usage | 0x99).  RFC 8009 gives
 * Ki and Kc the MAC's length and Ke the key's; the profile's derive_length
 * says which.  *out is written only at the end, so a key that lives in *out
 * (re-deriving from a kept subkey) is read before it is overwritten; on
 * failure *out is wiped.
 */
static GK5_WUR uint32_t derive_subkeys(const struct gk5_enctype *et,
                                       struct gk5i_kdf_base *base,
                                       const uint8_t *key, size_t key_len,
                                       uint32_t usage, struct gk5i_subkeys *out)
{
    struct gk5i_subkeys sk;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    memset(&sk, 0, sizeof(sk));
    ret = check_base_key(et, key, key_len, SIZE_MAX);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = derive_usage_key(et, base, key, key_len, usage, 0xAA, sk.ke,
                           &sk.ke_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = derive_usage_key(et, base, key, key_len, usage, 0x55, sk.ki,
                           &sk.ki_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = derive_usage_key(et, base, key, key_len, usage, 0x99, sk.kc,
                           &sk.kc_len);

cleanup:
    return subkeys_out(ret, &sk, out);
}

uint32_t gk5i_derive_subkeys(const struct gk5_enctype *et, const uint8_t *key,
                             size_t key_len, uint32_t usage,
                             struct gk5i_subkeys *out)
{
    return derive_subkeys(et, NULL, key, key_len, usage, out);
}

uint32_t gk5i_derive_subkeys_many(const struct gk5_enctype *et,
                                  const uint8_t *key, size_t key_len,
                                  const uint32_t *usages, size_t n,
                                  struct gk5i_subkeys *out)
{
    struct gk5i_kdf_base base;
    bool batched = false;
    uint32_t ret;

    memset(&base, 0, sizeof(base));
    if (out == NULL || usages == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = check_base_key(et, key, key_len, SIZE_MAX);
    if (ret == GK5_OK) {
        ret = gk5i_kdf_base_init(&base, et, key, key_len, &batched);
    }
    for (size_t i = 0; i < n && ret == GK5_OK; i++) {
        struct gk5i_kdf_base *b = batched ? &base : NULL;

        ret = derive_subkeys(et, b, key, key_len, usages[i], &out[i]);
    }
    if (ret != GK5_OK) {
        for (size_t i = 0; i < n; i++) {
            gk5i_subkeys_wipe(&out[i]);
        }
    }
    gk5i_kdf_base_free(&base);
    return ret;
}

/* RFC 1964 with DES3 as MIT does it: sealing and the sequence number use
 * the session key itself (Ke, raw), the checksum HMAC-SHA1-DES3-KD uses
 * Kc = DK(key, usage | 0x99).  There is no Ki. */
uint32_t gk5i_derive_subkeys_raw(const struct gk5_enctype *et,
                                 const uint8_t *key, size_t key_len,
                                 uint32_t usage, struct gk5i_subkeys *out)
{
    struct gk5i_subkeys sk;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    memset(&sk, 0, sizeof(sk));
    ret = check_base_key(et, key, key_len, sizeof(sk.ke));
    if (ret != GK5_OK) {
        goto cleanup;
    }
    memcpy(sk.ke, key, key_len);
    sk.ke_len = key_len;
    sk.raw = true;
    ret = derive_usage_key(et, NULL, key, key_len, usage, 0x99, sk.kc,
                           &sk.kc_len);

cleanup:
    return subkeys_out(ret, &sk, out);
}

void gk5i_subkeys_shape(const struct gk5_enctype *et, bool raw,
                        struct gk5i_subkeys *shape)
{
    uint8_t constant[5];

    memset(shape, 0, sizeof(*shape));
    store_be32(constant, KG_USAGE_ANY);
    shape->raw = raw;
    constant[4] = 0x99;
    shape->kc_len = et->profile->derive_length(et, constant, sizeof(constant));
    if (raw) {
        shape->ke_len = et->key_bytes;
        return;
    }
    constant[4] = 0xAA;
    shape->ke_len = et->profile->derive_length(et, constant, sizeof(constant));
    constant[4] = 0x55;
    shape->ki_len = et->profile->derive_length(et, constant, sizeof(constant));
}

void gk5i_subkeys_wipe(struct gk5i_subkeys *sk)
{
    zap(sk, sk != NULL ? sizeof(*sk) : 0);
}
