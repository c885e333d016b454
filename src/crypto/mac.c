/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Keyed MAC states (struct gk5i_mac: Ki and Kc of a ukey) and the MAC of
 * IOV segments on them (an encryption's MAC; a checksum's, for
 * checksum.c), and the one-shot MAC that key derivation and PRFs use.
 * HMAC starts from its precomputed pad states (fast/rfc2104_hmac.c:
 * OpenSSL 3.0's EVP_MAC HMAC would allocate twice per restart); Camellia's
 * CMAC runs on the low-level Camellia (fast/camellia.c) while the fast
 * paths are on; otherwise EVP_MAC, restarted with EVP_MAC_init() and a
 * NULL key, which keeps the key.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "crypto_int.h"
#include "internal.h"

/* HMAC with the row's digest, or CMAC with its CBC cipher, keyed. */
static GK5_WUR uint32_t new_mac_ctx(const struct gk5_enctype *et,
                                    const uint8_t *key, size_t key_len,
                                    EVP_MAC_CTX **out)
{
    EVP_MAC *mac = NULL;
    EVP_MAC_CTX *ctx = NULL;
    OSSL_PARAM params[2];
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    *out = NULL;
    if (et->digest != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_DIGEST, (char *)(uintptr_t)et->digest, 0);
    } else {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
    }
    params[1] = OSSL_PARAM_construct_end();
    mac = gk5i_mac_get(et->digest != NULL ? "HMAC" : "CMAC", &owned);
    if (mac == NULL) {
        goto cleanup;
    }
    ctx = EVP_MAC_CTX_new(mac);
    if (ctx == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    if (!EVP_MAC_init(ctx, key, key_len, params)) {
        goto cleanup;
    }
    *out = ctx;
    ctx = NULL;
    ret = GK5_OK;

cleanup:
    EVP_MAC_CTX_free(ctx);
    if (owned) {
        EVP_MAC_free(mac);
    }
    return ret;
}

#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
/* Whether Camellia's CMAC runs on the low-level Camellia now (a ukey on
 * the fast paths, and the fast-path seam) rather than through EVP_MAC. */
static bool cmac_lowlevel(const struct gk5_enctype *et, bool fast)
{
    return fast && et->family == GK5I_FAMILY_CAMELLIA && gk5i_fastpaths_on();
}
#endif

/* Keyed in the form a message would use now. */
bool gk5i_mac_ready(const struct gk5_enctype *et, bool fast,
                    const struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (m->hmac != NULL) {
        return true;
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cmac_lowlevel(et, fast)) {
        return m->cmac != NULL;
    }
#else
    (void)et;
    (void)fast;
#endif
    return m->evp != NULL;
}

void gk5i_mac_clear(struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    gk5i_hmac_free(m->hmac);
    m->hmac = NULL;
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    gk5i_camellia_cmac_free(m->cmac);
    m->cmac = NULL;
#endif
    EVP_MAC_CTX_free(m->evp);
    m->evp = NULL;
}

/* An HMAC keyed by hand is ready whatever the seam says (the seam switches
 * only the cipher and CMAC); a ukey off the fast paths never has one. */
uint32_t gk5i_mac_key(const struct gk5_enctype *et, bool fast,
                      const uint8_t *key, size_t key_len, struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (fast && et->digest != NULL) {
        return gk5i_hmac_new(et->digest, key, key_len, &m->hmac);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cmac_lowlevel(et, fast)) {
        return gk5i_camellia_cmac_new(key, key_len, &m->cmac);
    }
#endif
    return new_mac_ctx(et, key, key_len, &m->evp);
}

/* ---- MACs over IOVs ---- */

#ifdef GK5_HAVE_LOWLEVEL_HMAC
static GK5_WUR uint32_t hmac_iov(struct gk5i_hmac *h, const uint8_t *prefix,
                                 size_t prefix_len, const gk5_crypto_iov *iov,
                                 size_t n, uint8_t out[GK5_MAX_MAC_BYTES],
                                 size_t *out_len)
{
    uint32_t ret = GK5_OK, fin;

    if (gk5i_hmac_length(h) > GK5_MAX_MAC_BYTES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_hmac_init(h);
    if (prefix_len != 0) {
        ret = gk5i_hmac_update(h, prefix, prefix_len);
    }
    for (size_t i = 0; i < n && ret == GK5_OK; i++) {
        if (gk5i_in_mac(iov[i].flags) && iov[i].length != 0) {
            ret = gk5i_hmac_update(h, iov[i].data, iov[i].length);
        }
    }
    /* Final also when an update failed: it wipes the running state. */
    fin = gk5i_hmac_final(h, out, out_len);
    if (ret != GK5_OK || fin != GK5_OK) {
        zap(out, GK5_MAX_MAC_BYTES);
        *out_len = 0;
    }
    return ret != GK5_OK ? ret : fin;
}
#endif

uint32_t gk5i_mac_iov(struct gk5i_mac *mac, const uint8_t *prefix,
                      size_t prefix_len, const gk5_crypto_iov *iov, size_t n,
                      uint8_t out[GK5_MAX_MAC_BYTES], size_t *out_len)
{
    *out_len = 0;
    if (mac == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (mac->hmac != NULL) {
        return hmac_iov(mac->hmac, prefix, prefix_len, iov, n, out, out_len);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (mac->cmac != NULL && (gk5i_fastpaths_on() || mac->evp == NULL)) {
        gk5i_camellia_cmac_init(mac->cmac);
        if (prefix_len != 0) {
            gk5i_camellia_cmac_update(mac->cmac, prefix, prefix_len);
        }
        for (size_t i = 0; i < n; i++) {
            if (gk5i_in_mac(iov[i].flags) && iov[i].length != 0) {
                gk5i_camellia_cmac_update(mac->cmac, iov[i].data,
                                          iov[i].length);
            }
        }
        gk5i_camellia_cmac_final(mac->cmac, out);
        *out_len = 16;
        return GK5_OK;
    }
#endif
    if (mac->evp == NULL || !EVP_MAC_init(mac->evp, NULL, 0, NULL)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    if (prefix_len != 0 && !EVP_MAC_update(mac->evp, prefix, prefix_len)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    for (size_t i = 0; i < n; i++) {
        if (gk5i_in_mac(iov[i].flags) && iov[i].length != 0 &&
            !EVP_MAC_update(mac->evp, iov[i].data, iov[i].length)) {
            return GK5_ERR_CRYPTO_BACKEND;
        }
    }
    if (!EVP_MAC_final(mac->evp, out, out_len, GK5_MAX_MAC_BYTES)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    return GK5_OK;
}

uint32_t gk5i_mac_oneshot(const struct gk5_enctype *et, const uint8_t *key,
                          size_t key_len, const uint8_t *in, size_t in_len,
                          uint8_t out[GK5_MAX_MAC_BYTES], size_t *out_len)
{
    EVP_MAC_CTX *ctx = NULL;
    uint32_t ret;

    *out_len = 0;
    ret = new_mac_ctx(et, key, key_len, &ctx);
    if (ret != GK5_OK) {
        return ret;
    }
    if ((in_len != 0 && !EVP_MAC_update(ctx, in, in_len)) ||
        !EVP_MAC_final(ctx, out, out_len, GK5_MAX_MAC_BYTES)) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    EVP_MAC_CTX_free(ctx);
    return ret;
}
