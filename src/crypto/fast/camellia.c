/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Camellia-CBC and Camellia-CMAC on OpenSSL's low-level (deprecated)
 * Camellia, for RFC 6803's enctypes while the switch is on: cts.c ciphers
 * on the key schedule, mac.c and kdf.c MAC with the CMAC.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <string.h>

#include "fast.h"

#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
#include <openssl/camellia.h>
#include <openssl/crypto.h>

/*
 * Camellia-CBC on OpenSSL's low-level (deprecated) Camellia: one key
 * schedule (280 bytes) serves both directions, where an EVP cipher context
 * per direction costs 672 bytes each -- the difference that keeps a
 * camellia context under 4 KiB.  It runs OpenSSL's own Camellia code;
 * the EVP path stays beside it (gk5i_onepass_set_enabled(false)) as the
 * tests' oracle and for OpenSSL builds without the deprecated API.
 */
struct gk5i_camellia_key {
    CAMELLIA_KEY ks;
};

uint32_t gk5i_camellia_key_new(const uint8_t *key, size_t key_len,
                               struct gk5i_camellia_key **out)
{
    struct gk5i_camellia_key *k;

    *out = NULL;
    if (key_len != 16 && key_len != 32) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    k = OPENSSL_zalloc(sizeof(*k));
    if (k == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (Camellia_set_key(key, (int)key_len * 8, &k->ks) != 0) {
        OPENSSL_clear_free(k, sizeof(*k));
        return GK5_ERR_CRYPTO_BACKEND;
    }
    *out = k;
    return GK5_OK;
}

void gk5i_camellia_key_free(struct gk5i_camellia_key *k)
{
    OPENSSL_clear_free(k, sizeof(*k));
}

void gk5i_camellia_cbc(const struct gk5i_camellia_key *k, uint8_t chain[16],
                       uint8_t *p, size_t len, bool encrypt)
{
    Camellia_cbc_encrypt(p, p, len, &k->ks, chain,
                         encrypt ? CAMELLIA_ENCRYPT : CAMELLIA_DECRYPT);
}

/*
 * CMAC (NIST SP 800-38B, RFC 4493's construction) on the same low-level
 * Camellia, for RFC 6803's checksums and Ki: an EVP_MAC CMAC context
 * costs 911 bytes, two allocations to free and a provider call per
 * update, which left camellia contexts over their memory and free-time
 * targets and small camellia MICs below the floor.  EVP_MAC's CMAC stays
 * beside it (gk5i_onepass_set_enabled(false)) as the tests' oracle.
 */
struct gk5i_camellia_cmac {
    CAMELLIA_KEY ks;
    uint8_t k1[16], k2[16]; /* SP 800-38B 6.1 subkeys */
    uint8_t x[16];          /* the CBC-MAC chaining value */
    uint8_t last[16];       /* the input's last block, held back */
    size_t last_len;
};

/* SP 800-38B 6.1: doubling in GF(2^128), Rb = 0x87. */
static void cmac_double(const uint8_t in[16], uint8_t out[16])
{
    uint8_t carry = (uint8_t)(in[0] >> 7);

    for (size_t i = 0; i < 15; i++) {
        out[i] = (uint8_t)((in[i] << 1) | (in[i + 1] >> 7));
    }
    out[15] = (uint8_t)((in[15] << 1) ^ (0x87 & (0 - carry)));
}

/* Its start is gk5i_camellia_key_new's (length check, zeroed allocation,
 * Camellia_set_key) for a different struct; sharing it would mean casting
 * between the two, so it is written out. */
uint32_t gk5i_camellia_cmac_new(const uint8_t *key, size_t key_len,
                                struct gk5i_camellia_cmac **out)
{
    struct gk5i_camellia_cmac *m;
    uint8_t l[16] = {0};

    *out = NULL;
    if (key_len != 16 && key_len != 32) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    m = OPENSSL_zalloc(sizeof(*m));
    if (m == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (Camellia_set_key(key, (int)key_len * 8, &m->ks) != 0) {
        OPENSSL_clear_free(m, sizeof(*m));
        return GK5_ERR_CRYPTO_BACKEND;
    }
    Camellia_encrypt(l, l, &m->ks);
    cmac_double(l, m->k1);
    cmac_double(m->k1, m->k2);
    zap(l, sizeof(l));
    *out = m;
    return GK5_OK;
}

void gk5i_camellia_cmac_free(struct gk5i_camellia_cmac *m)
{
    OPENSSL_clear_free(m, sizeof(*m));
}

void gk5i_camellia_cmac_init(struct gk5i_camellia_cmac *m)
{
    memset(m->x, 0, sizeof(m->x));
    m->last_len = 0;
}

/* Every full block but the last is chained now; the last waits for
 * final, which treats it with K1 (or pads it, with K2). */
void gk5i_camellia_cmac_update(struct gk5i_camellia_cmac *m, const uint8_t *p,
                               size_t n)
{
    while (n > 0) {
        size_t k;

        if (m->last_len == 16) {
            for (size_t i = 0; i < 16; i++) {
                m->x[i] ^= m->last[i];
            }
            Camellia_encrypt(m->x, m->x, &m->ks);
            m->last_len = 0;
        }
        k = 16 - m->last_len < n ? 16 - m->last_len : n;
        memcpy(m->last + m->last_len, p, k);
        m->last_len += k;
        p += k;
        n -= k;
    }
}

/* SP 800-38B 6.2: M_n ^ K1 if complete, else (M_n | 10...0) ^ K2. */
void gk5i_camellia_cmac_final(struct gk5i_camellia_cmac *m, uint8_t out[16])
{
    const uint8_t *k = m->last_len == 16 ? m->k1 : m->k2;

    if (m->last_len < 16) {
        m->last[m->last_len] = 0x80;
        memset(m->last + m->last_len + 1, 0, 15 - m->last_len);
    }
    for (size_t i = 0; i < 16; i++) {
        m->x[i] ^= m->last[i] ^ k[i];
    }
    Camellia_encrypt(m->x, out, &m->ks);
    zap(m->x, sizeof(m->x));
    zap(m->last, sizeof(m->last));
    m->last_len = 0;
}
#endif /* GK5_HAVE_LOWLEVEL_CAMELLIA */
