/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench: the floor, the same crypto over the same bytes with OpenSSL
 * EVP contexts keyed once: encrypt + MAC (wrap-sealed), decrypt + MAC and
 * the compare (unwrap), MAC alone (wrap-integ, get_mic, verify_mic).  What
 * gk5 spends beyond it is framing, key schedules and copies.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "bench.h"
#include "common/util.h"

static const uint8_t zero_iv[EVP_MAX_IV_LENGTH];

static bool floor_mac(EVP_MAC_CTX *mac, const uint8_t *prefix,
                      size_t prefix_len, const uint8_t *p, size_t n,
                      uint8_t *tag, size_t *tag_len)
{
    return EVP_MAC_init(mac, NULL, 0, NULL) &&
           (prefix_len == 0 || EVP_MAC_update(mac, prefix, prefix_len)) &&
           EVP_MAC_update(mac, p, n) &&
           EVP_MAC_final(mac, tag, tag_len, EVP_MAX_MD_SIZE);
}

static bool floor_cipher(EVP_CIPHER_CTX *c, const uint8_t *in, uint8_t *out,
                         size_t n)
{
    int outl = 0;

    return EVP_CipherInit_ex2(c, NULL, NULL, zero_iv, -1, NULL) &&
           EVP_CipherUpdate(c, out, &outl, in, (int)n) && (size_t)outl == n;
}

/* encrypt + MAC: MtE MACs the plaintext, EtM the IV and ciphertext. */
bool floor_seal(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    if (s->fam == FAM_MTE) {
        return floor_mac(w->fk.ki, NULL, 0, s->f_plain, s->f_len, tag,
                         &tag_len) &&
               floor_cipher(w->fk.enc, s->f_plain, w->f_out, s->f_len);
    }
    return floor_cipher(w->fk.enc, s->f_plain, w->f_out, s->f_len) &&
           floor_mac(w->fk.ki, zero_iv, s->row->block_bytes, w->f_out, s->f_len,
                     tag, &tag_len);
}

/* decrypt + MAC (and the compare) over the pristine ciphertext. */
bool floor_open(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    if (s->fam == FAM_MTE) {
        return floor_cipher(w->fk.dec, s->f_ct, w->f_out, s->f_len) &&
               floor_mac(w->fk.ki, NULL, 0, w->f_out, s->f_len, tag,
                         &tag_len) &&
               CRYPTO_memcmp(tag, s->f_tag, s->row->mac_bytes) == 0;
    }
    return floor_mac(w->fk.ki, zero_iv, s->row->block_bytes, s->f_ct, s->f_len,
                     tag, &tag_len) &&
           CRYPTO_memcmp(tag, s->f_tag, s->row->mac_bytes) == 0 &&
           floor_cipher(w->fk.dec, s->f_ct, w->f_out, s->f_len);
}

/* MAC alone (Kc) over message | header. */
bool floor_mac_alone(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    return floor_mac(w->fk.kc, NULL, 0, s->f_plain, s->f_mac_len, tag,
                     &tag_len);
}

void floor_keys_free(struct floor_keys *fk)
{
    EVP_CIPHER_CTX_free(fk->enc);
    EVP_CIPHER_CTX_free(fk->dec);
    EVP_MAC_CTX_free(fk->ki);
    EVP_MAC_CTX_free(fk->kc);
    memset(fk, 0, sizeof(*fk));
}

static EVP_CIPHER_CTX *floor_cipher_new(const struct gk5_enctype *row,
                                        const uint8_t *key, int enc)
{
    const char *name = row->cts_cipher != NULL ? row->cts_cipher : row->cipher;
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
                                         (char *)(uintptr_t) "CS3", 0),
        OSSL_PARAM_construct_end(),
    };
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, name, NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    bool ok = cipher != NULL && ctx != NULL &&
              EVP_CipherInit_ex2(ctx, cipher, key, zero_iv, enc,
                                 row->cts_cipher != NULL ? params : NULL) &&
              EVP_CIPHER_CTX_set_padding(ctx, 0);

    EVP_CIPHER_free(cipher);
    if (!ok) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static EVP_MAC_CTX *floor_mac_new(const struct gk5_enctype *row,
                                  const uint8_t *key, size_t key_len)
{
    OSSL_PARAM params[2];
    EVP_MAC *mac;
    EVP_MAC_CTX *ctx = NULL;

    if (row->digest != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_DIGEST, (char *)(uintptr_t)row->digest, 0);
    } else {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)row->cipher, 0);
    }
    params[1] = OSSL_PARAM_construct_end();
    mac = EVP_MAC_fetch(NULL, row->digest != NULL ? "HMAC" : "CMAC", NULL);
    if (mac != NULL) {
        ctx = EVP_MAC_CTX_new(mac);
    }
    if (ctx != NULL && !EVP_MAC_init(ctx, key, key_len, params)) {
        EVP_MAC_CTX_free(ctx);
        ctx = NULL;
    }
    EVP_MAC_free(mac);
    return ctx;
}

/* Random keys of the enctype's lengths: the speed does not depend on the
 * key, only on the algorithms and lengths. */
int floor_keys_new(const struct gk5_enctype *row, enum family fam,
                   struct floor_keys *fk)
{
    uint8_t ke[GK5_MAX_KEY_BYTES], kmac[GK5_MAX_KEY_BYTES];
    size_t mac_key_len = fam == FAM_ETM ? row->mac_bytes : row->key_bytes;
    int ret = -1;

    memset(fk, 0, sizeof(*fk));
    if (row->key_bytes > sizeof(ke) || mac_key_len > sizeof(kmac) ||
        RAND_bytes(ke, (int)row->key_bytes) != 1 ||
        RAND_bytes(kmac, (int)mac_key_len) != 1) {
        goto cleanup;
    }
    fk->enc = floor_cipher_new(row, ke, 1);
    fk->dec = floor_cipher_new(row, ke, 0);
    fk->ki = floor_mac_new(row, kmac, mac_key_len);
    fk->kc = floor_mac_new(row, kmac, mac_key_len);
    if (fk->enc != NULL && fk->dec != NULL && fk->ki != NULL &&
        fk->kc != NULL) {
        ret = 0;
    }

cleanup:
    if (ret != 0) {
        floor_keys_free(fk);
    }
    zap(ke, sizeof(ke));
    zap(kmac, sizeof(kmac));
    return ret;
}

int floor_keys_dup(const struct floor_keys *src, struct floor_keys *fk)
{
    memset(fk, 0, sizeof(*fk));
    fk->enc = EVP_CIPHER_CTX_new();
    fk->dec = EVP_CIPHER_CTX_new();
    if (fk->enc == NULL || fk->dec == NULL ||
        !EVP_CIPHER_CTX_copy(fk->enc, src->enc) ||
        !EVP_CIPHER_CTX_copy(fk->dec, src->dec)) {
        floor_keys_free(fk);
        return -1;
    }
    fk->ki = EVP_MAC_CTX_dup(src->ki);
    fk->kc = EVP_MAC_CTX_dup(src->kc);
    if (fk->ki == NULL || fk->kc == NULL) {
        floor_keys_free(fk);
        return -1;
    }
    return 0;
}

/* The floor's bytes for this size, and a pristine ciphertext and tag. */
int floor_prepare(struct shared *s)
{
    const struct gk5_enctype *row = s->row;
    size_t pad = 0;
    struct worker w;
    int ret = -1;

    if (row->rfc1964) {
        /* RFC 1964 1.2.2.3: 1..8 pad bytes after confounder | message. */
        pad = row->block_bytes - s->size % row->block_bytes;
        s->f_len = row->conf_bytes + s->size + pad;
        s->f_mac_len = 8 + s->size;
    } else {
        s->f_len = row->conf_bytes + s->size + 16;
        s->f_mac_len = s->size + 16;
    }
    s->f_plain = malloc(s->f_len);
    s->f_ct = malloc(s->f_len);
    if (s->f_plain == NULL || s->f_ct == NULL ||
        RAND_bytes(s->f_plain, (int)s->f_len) != 1) {
        return -1;
    }
    if (worker_init(&w, s) != 0) {
        return -1;
    }
    /* The pristine ciphertext and tag floor_open checks. */
    if (s->fam == FAM_MTE) {
        if (floor_mac(w.fk.ki, NULL, 0, s->f_plain, s->f_len, s->f_tag,
                      &s->f_tag_len) &&
            floor_cipher(w.fk.enc, s->f_plain, s->f_ct, s->f_len)) {
            ret = 0;
        }
    } else if (floor_cipher(w.fk.enc, s->f_plain, s->f_ct, s->f_len) &&
               floor_mac(w.fk.ki, zero_iv, row->block_bytes, s->f_ct, s->f_len,
                         s->f_tag, &s->f_tag_len)) {
        ret = 0;
    }
    if (ret == 0 && !floor_open(&w)) {
        ret = -1;
    }
    worker_free(&w);
    return ret;
}
