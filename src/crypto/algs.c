/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * OpenSSL algorithm objects, fetched once per process.  EVP_*_fetch walks
 * OpenSSL's method store under its locks; a server importing thousands of
 * contexts fetched the same few ciphers, MACs and KDFs for every key it
 * derived and prepared.  Each name is fetched the first time it is asked
 * for and kept (with OpenSSL's reference) for the life of the process.
 */
#include <pthread.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "crypto_int.h"
#include "internal.h"

enum alg_kind { ALG_CIPHER, ALG_MAC, ALG_KDF };

/* Enough for every cipher, MAC and KDF the enctype table names. */
#define GK5_ALGS_MAX 24

static struct {
    enum alg_kind kind;
    const char *name; /* a string literal or an enctype row's: static */
    void *alg;
} g_algs[GK5_ALGS_MAX];
static size_t g_n_algs;
static pthread_mutex_t g_algs_lock = PTHREAD_MUTEX_INITIALIZER;

static void *fetch(enum alg_kind kind, const char *name)
{
    switch (kind) {
    case ALG_CIPHER:
        return EVP_CIPHER_fetch(NULL, name, NULL);
    case ALG_MAC:
        return EVP_MAC_fetch(NULL, name, NULL);
    case ALG_KDF:
        return EVP_KDF_fetch(NULL, name, NULL);
    }
    return NULL;
}

/* The cached object, or a fresh fetch the caller frees (*owned) when the
 * table is full; NULL when OpenSSL has no such algorithm. */
static void *lookup(enum alg_kind kind, const char *name, bool *owned)
{
    void *alg = NULL;

    *owned = false;
    pthread_mutex_lock(&g_algs_lock);
    for (size_t i = 0; i < g_n_algs; i++) {
        if (g_algs[i].kind == kind && strcmp(g_algs[i].name, name) == 0) {
            alg = g_algs[i].alg;
            goto done;
        }
    }
    alg = fetch(kind, name);
    if (alg == NULL) {
        goto done;
    }
    if (g_n_algs < GK5_ALGS_MAX) {
        g_algs[g_n_algs].kind = kind;
        g_algs[g_n_algs].name = name;
        g_algs[g_n_algs].alg = alg;
        g_n_algs++;
    } else {
        *owned = true;
    }

done:
    pthread_mutex_unlock(&g_algs_lock);
    return alg;
}

EVP_CIPHER *gk5i_cipher_get(const char *name, bool *owned)
{
    return lookup(ALG_CIPHER, name, owned);
}

EVP_MAC *gk5i_mac_get(const char *name, bool *owned)
{
    return lookup(ALG_MAC, name, owned);
}

EVP_KDF *gk5i_kdf_get(const char *name, bool *owned)
{
    return lookup(ALG_KDF, name, owned);
}

uint32_t gk5i_sha256(const void *in, size_t len, uint8_t out[GK5_SHA256_BYTES])
{
    unsigned int n = 0;

    if (!EVP_Digest(in, len, out, &n, EVP_sha256(), NULL) ||
        n != GK5_SHA256_BYTES) {
        zap(out, GK5_SHA256_BYTES);
        return GK5_ERR_CRYPTO_BACKEND;
    }
    return GK5_OK;
}

uint32_t gk5i_md5(const struct gk5i_md5_seg *seg, size_t n,
                  uint8_t out[GK5_MD5_BYTES])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int len = 0;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (md == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (!EVP_DigestInit_ex(md, EVP_md5(), NULL)) {
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        if (seg[i].len != 0 && !EVP_DigestUpdate(md, seg[i].p, seg[i].len)) {
            goto cleanup;
        }
    }
    if (!EVP_DigestFinal_ex(md, out, &len) || len != GK5_MD5_BYTES) {
        goto cleanup;
    }
    ret = GK5_OK;
cleanup:
    EVP_MD_CTX_free(md);
    if (ret != GK5_OK) {
        zap(out, GK5_MD5_BYTES);
    }
    return ret;
}

bool gk5i_equal_ct(const void *a, const void *b, size_t len)
{
    return CRYPTO_memcmp(a, b, len) == 0;
}

void *gk5i_zalloc(size_t n)
{
    return OPENSSL_zalloc(n);
}

void gk5i_free(void *p)
{
    OPENSSL_free(p);
}

void gk5i_clear_free(void *p, size_t n)
{
    OPENSSL_clear_free(p, n);
}

/* ---- Keyed cipher contexts (the CBC engine; derivation and PRF) ---- */

/* A cipher context of the named cipher keyed with key for one direction,
 * padding off, zero IV. */
/* (Fetch, new, init, hand over: the same OpenSSL idiom as new_mac_ctx in
 * mac.c and run_kdf in kdf.c, on EVP_CIPHER, EVP_MAC and EVP_KDF, three
 * types with their own calls, so written three times.) */
uint32_t gk5i_cipher_ctx_new(const char *name, const uint8_t *key,
                             size_t key_len, int enc, EVP_CIPHER_CTX **out)
{
    EVP_CIPHER *cipher = NULL;
    EVP_CIPHER_CTX *ctx = NULL;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    *out = NULL;
    cipher = gk5i_cipher_get(name, &owned);
    if (cipher == NULL) {
        goto cleanup;
    }
    if ((size_t)EVP_CIPHER_get_key_length(cipher) != key_len) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    if (!EVP_CipherInit_ex2(ctx, cipher, key, NULL, enc, NULL) ||
        !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
        goto cleanup;
    }
    *out = ctx;
    ctx = NULL;
    ret = GK5_OK;

cleanup:
    EVP_CIPHER_CTX_free(ctx);
    if (owned) {
        EVP_CIPHER_free(cipher);
    }
    return ret;
}

uint32_t gk5i_cbc_encrypt_zero_iv(const char *cipher, const uint8_t *key,
                                  size_t key_len, const uint8_t *in, size_t len,
                                  uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = NULL;
    int outl = 0;
    uint32_t ret;

    if (len > INT_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = gk5i_cipher_ctx_new(cipher, key, key_len, 1, &ctx);
    if (ret != GK5_OK) {
        return ret;
    }
    /* new_cipher_ctx leaves the IV zero (none was given). */
    if (!EVP_CipherUpdate(ctx, out, &outl, in, (int)len) ||
        (size_t)outl != len) {
        zap(out, len);
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    EVP_CIPHER_CTX_free(ctx);
    return ret;
}
