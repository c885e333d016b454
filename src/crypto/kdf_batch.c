/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Many derivations from one base key (kdf.c's gk5i_derive_subkeys_many).
 *
 * A context derives twelve subkeys (Ke, Ki, Kc for four usages) from one
 * session key.  OpenSSL's KDFs take the key with every call and key a
 * cipher or MAC for it each time, which made the derivations most of a
 * context import.  A gk5i_kdf_base keys the base key's primitive once and runs
 * the same constructions on it: RFC 3961 5.1 DR on the CBC cipher (on
 * AES-NI where the CPU has it), RFC 8009
 * KDF-HMAC-SHA2 on precomputed HMAC pads, RFC 6803 KDF-FEEDBACK-CMAC on a
 * keyed CMAC.  The KDF functions of kdf.c stay the reference: the tests
 * compare the two for every enctype and many keys and usages.  A
 * -Dfastpath=false build has none of this: every subkey comes from
 * OpenSSL's KDFs, one call each.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "crypto_int.h"
#include "internal.h"

void gk5i_kdf_base_free(struct gk5i_kdf_base *b)
{
#ifdef GK5_HAVE_ONEPASS
    gk5i_aes_key_free(b->aes);
#endif
    EVP_CIPHER_CTX_free(b->cbc);
    EVP_MAC_CTX_free(b->cmac);
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    gk5i_camellia_cmac_free(b->ccmac);
#endif
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    gk5i_hmac_free(b->hmac);
#endif
    zap(b, sizeof(*b));
}

uint32_t gk5i_kdf_base_init(struct gk5i_kdf_base *b,
                            const struct gk5_enctype *et, const uint8_t *key,
                            size_t key_len, bool *batched)
{
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    memset(b, 0, sizeof(*b));
    b->et = et;
    *batched = true;
#ifdef GK5_HAVE_ONEPASS
    if (et->family == GK5I_FAMILY_AES_SHA1 && gk5i_onepass_available()) {
        ret = gk5i_aes_key_new(key, key_len, false, &b->aes);
    } else
#endif
        if (et->family == GK5I_FAMILY_AES_SHA1) {
        EVP_CIPHER *cipher = gk5i_cipher_get(et->cipher, &owned);

        b->cbc = EVP_CIPHER_CTX_new();
        if (cipher != NULL && b->cbc != NULL &&
            EVP_CipherInit_ex2(b->cbc, cipher, key, NULL, 1, NULL) &&
            EVP_CIPHER_CTX_set_padding(b->cbc, 0) &&
            (size_t)EVP_CIPHER_CTX_get_key_length(b->cbc) == key_len) {
            ret = GK5_OK;
        }
        if (owned) {
            EVP_CIPHER_free(cipher);
        }
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    } else if (et->family == GK5I_FAMILY_CAMELLIA && gk5i_fastpaths_on() &&
               !gk5i_openssl_only_on()) {
        ret = gk5i_camellia_cmac_new(key, key_len, &b->ccmac);
#endif
    } else if (et->family == GK5I_FAMILY_CAMELLIA) {
        EVP_MAC *mac = gk5i_mac_get("CMAC", &owned);
        OSSL_PARAM params[2];

        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
        params[1] = OSSL_PARAM_construct_end();
        b->cmac = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
        if (b->cmac != NULL && EVP_MAC_init(b->cmac, key, key_len, params)) {
            ret = GK5_OK;
        }
        if (owned) {
            EVP_MAC_free(mac);
        }
    } else if (et->family == GK5I_FAMILY_AES_SHA2) {
#ifdef GK5_HAVE_LOWLEVEL_HMAC
        ret = gk5i_hmac_new(et->digest, key, key_len, &b->hmac);
#else
        *batched = false;
        ret = GK5_OK;
#endif
    } else {
        *batched = false;
        ret = GK5_OK;
    }
    if (ret != GK5_OK || !*batched) {
        *batched = false;
        gk5i_kdf_base_free(b);
    }
    return ret;
}

/* RFC 3961 5.1 DR with a keyed CBC context: K1 = E(n-fold(constant)),
 * K(i+1) = E(K(i)) -- CBC from a zero IV over n-fold(constant) and zero
 * blocks -- truncated to out_len (AES: random-to-key is the identity). */
static GK5_WUR uint32_t base_dr(struct gk5i_kdf_base *b,
                                const uint8_t *constant, size_t constant_len,
                                uint8_t *out, size_t out_len)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t buf[2 * GK5_MAX_KEY_BYTES];
    size_t bs = b->et->block_bytes, len = (out_len + bs - 1) / bs * bs;
    int outl = 0;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (bs == 0 || bs > sizeof(zero_iv) || len > sizeof(buf)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(buf, 0, sizeof(buf));
    if (constant_len == 0 ||
        !gk5i_nfold_constant(constant, constant_len, buf, bs)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
#ifdef GK5_HAVE_ONEPASS
    if (b->aes != NULL) {
        uint8_t chain[16] = {0};

        gk5i_aes_cbc(b->aes, chain, buf, len / bs);
        memcpy(out, buf, out_len);
        zap(buf, sizeof(buf));
        return GK5_OK;
    }
#endif
    if (EVP_CipherInit_ex2(b->cbc, NULL, NULL, zero_iv, 1, NULL) &&
        EVP_CipherUpdate(b->cbc, buf, &outl, buf, (int)len) &&
        (size_t)outl == len) {
        memcpy(out, buf, out_len);
        ret = GK5_OK;
    }
    zap(buf, sizeof(buf));
    return ret;
}

/* RFC 6803 3: K(i) = CMAC(key, K(i-1) | i | constant | 0x00 | k), K(0) a
 * zero block, i and k (bits) 32-bit big-endian; out = K(1) | K(2) ...
 * truncated. */
static GK5_WUR uint32_t base_cmac(struct gk5i_kdf_base *b,
                                  const uint8_t *constant, size_t constant_len,
                                  uint8_t *out, size_t out_len)
{
    uint8_t k_prev[GK5_MAX_MAC_BYTES], tail[5], num[4];
    size_t bs = b->et->block_bytes, done = 0, got = 0;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (bs == 0 || bs > sizeof(k_prev) || out_len > (size_t)UINT32_MAX / 8) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(k_prev, 0, sizeof(k_prev));
    tail[0] = 0x00;
    store_be32(tail + 1, (uint32_t)(out_len * 8));
    for (uint32_t i = 1; done < out_len; i++) {
        size_t k;

        store_be32(num, i);
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
        if (b->ccmac != NULL) {
            gk5i_camellia_cmac_init(b->ccmac);
            gk5i_camellia_cmac_update(b->ccmac, k_prev, bs);
            gk5i_camellia_cmac_update(b->ccmac, num, sizeof(num));
            gk5i_camellia_cmac_update(b->ccmac, constant, constant_len);
            gk5i_camellia_cmac_update(b->ccmac, tail, sizeof(tail));
            gk5i_camellia_cmac_final(b->ccmac, k_prev);
            k = out_len - done < bs ? out_len - done : bs;
            memcpy(out + done, k_prev, k);
            done += k;
            continue;
        }
#endif
        if (!EVP_MAC_init(b->cmac, NULL, 0, NULL) ||
            !EVP_MAC_update(b->cmac, k_prev, bs) ||
            !EVP_MAC_update(b->cmac, num, sizeof(num)) ||
            (constant_len != 0 &&
             !EVP_MAC_update(b->cmac, constant, constant_len)) ||
            !EVP_MAC_update(b->cmac, tail, sizeof(tail)) ||
            !EVP_MAC_final(b->cmac, k_prev, &got, sizeof(k_prev)) ||
            got != bs) {
            goto cleanup;
        }
        k = out_len - done < bs ? out_len - done : bs;
        memcpy(out + done, k_prev, k);
        done += k;
    }
    ret = GK5_OK;

cleanup:
    zap(k_prev, sizeof(k_prev));
    return ret;
}

#ifdef GK5_HAVE_LOWLEVEL_HMAC
/* RFC 8009 3: K1 = HMAC(key, 00000001 | label | 0x00 | k), k in bits,
 * 32-bit big-endian, truncated to out_len (at most one HMAC output: Kerberos
 * keys are never longer). */
static GK5_WUR uint32_t base_hmac(struct gk5i_kdf_base *b, const uint8_t *label,
                                  size_t label_len, uint8_t *out,
                                  size_t out_len)
{
    static const uint8_t one[4] = {0, 0, 0, 1};
    uint8_t mac[GK5_MAX_MAC_BYTES], tail[5];
    size_t got = 0;
    uint32_t ret;

    if (out_len > gk5i_hmac_length(b->hmac) || out_len > sizeof(mac) ||
        out_len > (size_t)UINT32_MAX / 8) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    tail[0] = 0x00;
    store_be32(tail + 1, (uint32_t)(out_len * 8));
    gk5i_hmac_init(b->hmac);
    ret = gk5i_hmac_update(b->hmac, one, sizeof(one));
    if (ret == GK5_OK && label_len != 0) {
        ret = gk5i_hmac_update(b->hmac, label, label_len);
    }
    if (ret == GK5_OK) {
        ret = gk5i_hmac_update(b->hmac, tail, sizeof(tail));
    }
    /* Final even after a failed update: it wipes the running state. */
    if (gk5i_hmac_final(b->hmac, mac, &got) != GK5_OK && ret == GK5_OK) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK) {
        memcpy(out, mac, out_len);
    }
    zap(mac, sizeof(mac));
    return ret;
}
#endif

uint32_t gk5i_kdf_base_derive(struct gk5i_kdf_base *b, const uint8_t *constant,
                              size_t constant_len, uint8_t *out, size_t out_len)
{
#ifdef GK5_HAVE_ONEPASS
    if (b->aes != NULL) {
        return base_dr(b, constant, constant_len, out, out_len);
    }
#endif
    if (b->cbc != NULL) {
        return base_dr(b, constant, constant_len, out, out_len);
    }
    if (b->cmac != NULL
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
        || b->ccmac != NULL
#endif
    ) {
        return base_cmac(b, constant, constant_len, out, out_len);
    }
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (b->hmac != NULL) {
        return base_hmac(b, constant, constant_len, out, out_len);
    }
#endif
    return GK5_ERR_INVALID_ARGUMENT;
}
