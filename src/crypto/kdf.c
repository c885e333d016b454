/*
 * Key derivation on OpenSSL's KDFs (KRB5KDF, KBKDF, PBKDF2) and the
 * per-usage subkeys Ke, Ki, Kc every profile derives the same way.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "crypto_int.h"
#include "profile.h"

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
        constant_len == 0 || et->block_bytes > sizeof(folded)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_nfold(constant, constant_len, folded, et->block_bytes);
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

/* ---- Subkeys ---- */

/* RFC 3961 5.3 / RFC 8009 5: usage constant = usage (32-bit big-endian) |
 * one byte: 0x99 Kc, 0xAA Ke, 0x55 Ki. */
static GK5_WUR uint32_t derive_usage_key(const struct gk5_enctype *et,
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
    ret = et->profile->derive(et, key, key_len, constant, sizeof(constant), out,
                              len);
    if (ret != GK5_OK) {
        return ret;
    }
    *out_len = len;
    return GK5_OK;
}

/*
 * RFC 3961 5.3 (and RFC 6803 6, RFC 8009 5): Ke = DK(key, usage | 0xAA),
 * Ki = DK(key, usage | 0x55), Kc = DK(key, usage | 0x99).  RFC 8009 gives
 * Ki and Kc the MAC's length and Ke the key's; the profile's derive_length
 * says which.  *out is written only at the end, so a key that lives in *out
 * (re-deriving from a kept subkey) is read before it is overwritten; on
 * failure *out is wiped.
 */
uint32_t gk5i_derive_subkeys(const struct gk5_enctype *et, const uint8_t *key,
                             size_t key_len, uint32_t usage,
                             struct gk5i_subkeys *out)
{
    struct gk5i_subkeys sk;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    memset(&sk, 0, sizeof(sk));
    if (et == NULL || et->profile == NULL || key == NULL) {
        goto cleanup;
    }
    if (key_len != et->key_bytes) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    ret = derive_usage_key(et, key, key_len, usage, 0xAA, sk.ke, &sk.ke_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = derive_usage_key(et, key, key_len, usage, 0x55, sk.ki, &sk.ki_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = derive_usage_key(et, key, key_len, usage, 0x99, sk.kc, &sk.kc_len);

cleanup:
    if (out != NULL) {
        if (ret == GK5_OK) {
            *out = sk;
        } else {
            gk5i_subkeys_wipe(out);
        }
    } else {
        ret = GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_subkeys_wipe(&sk);
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
    if (et == NULL || et->profile == NULL || key == NULL) {
        goto cleanup;
    }
    if (key_len != et->key_bytes || key_len > sizeof(sk.ke)) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    memcpy(sk.ke, key, key_len);
    sk.ke_len = key_len;
    sk.raw = true;
    ret = derive_usage_key(et, key, key_len, usage, 0x99, sk.kc, &sk.kc_len);

cleanup:
    if (out != NULL) {
        if (ret == GK5_OK) {
            *out = sk;
        } else {
            gk5i_subkeys_wipe(out);
        }
    } else {
        ret = GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_subkeys_wipe(&sk);
    return ret;
}

void gk5i_subkeys_wipe(struct gk5i_subkeys *sk)
{
    zap(sk, sk != NULL ? sizeof(*sk) : 0);
}
