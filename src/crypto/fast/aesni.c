/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * AES on AES-NI (FIPS 197, SP 800-38A CBC): keys scheduled by hand, for
 * one direction each, and CBC in place; what cts.c runs AES on where the
 * CPU has the instructions and the switch is on, and what kdf.c derives a
 * context's AES subkeys with.  No OpenSSL cipher context per key: about
 * 1 KiB each, and most of a context import's cost.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "fast.h"

#ifdef GK5_HAVE_ONEPASS
#include "aesni.h"

/* FIPS 197 5.2: w[i] = w[i-Nk] ^ t for the four words of a round key at
 * once; t already holds SubWord/RotWord/Rcon (aeskeygenassist) spread
 * over all four lanes. */
ONEPASS_TARGET static __m128i expand_xor(__m128i prev, __m128i t)
{
    prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
    prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
    prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
    return _mm_xor_si128(prev, t);
}

/* aeskeygenassist takes Rcon as an immediate: one line per round. */
ONEPASS_TARGET static void expand128(__m128i *rk)
{
    rk[1] = expand_xor(
        rk[0], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[0], 0x01), 0xff));
    rk[2] = expand_xor(
        rk[1], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[1], 0x02), 0xff));
    rk[3] = expand_xor(
        rk[2], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[2], 0x04), 0xff));
    rk[4] = expand_xor(
        rk[3], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[3], 0x08), 0xff));
    rk[5] = expand_xor(
        rk[4], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[4], 0x10), 0xff));
    rk[6] = expand_xor(
        rk[5], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[5], 0x20), 0xff));
    rk[7] = expand_xor(
        rk[6], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[6], 0x40), 0xff));
    rk[8] = expand_xor(
        rk[7], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[7], 0x80), 0xff));
    rk[9] = expand_xor(
        rk[8], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[8], 0x1b), 0xff));
    rk[10] = expand_xor(
        rk[9], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[9], 0x36), 0xff));
}

/* AES-256 (Nk = 8): even round keys take RotWord, SubWord and Rcon of the
 * last word (lane 3), odd ones SubWord alone (lane 2, no Rcon). */
ONEPASS_TARGET static __m128i even256(__m128i prev2, __m128i t)
{
    return expand_xor(prev2, _mm_shuffle_epi32(t, 0xff));
}

ONEPASS_TARGET static __m128i odd256(__m128i prev2, __m128i prev1)
{
    return expand_xor(
        prev2, _mm_shuffle_epi32(_mm_aeskeygenassist_si128(prev1, 0), 0xaa));
}

ONEPASS_TARGET static void expand256(__m128i *rk)
{
    rk[2] = even256(rk[0], _mm_aeskeygenassist_si128(rk[1], 0x01));
    rk[3] = odd256(rk[1], rk[2]);
    rk[4] = even256(rk[2], _mm_aeskeygenassist_si128(rk[3], 0x02));
    rk[5] = odd256(rk[3], rk[4]);
    rk[6] = even256(rk[4], _mm_aeskeygenassist_si128(rk[5], 0x04));
    rk[7] = odd256(rk[5], rk[6]);
    rk[8] = even256(rk[6], _mm_aeskeygenassist_si128(rk[7], 0x08));
    rk[9] = odd256(rk[7], rk[8]);
    rk[10] = even256(rk[8], _mm_aeskeygenassist_si128(rk[9], 0x10));
    rk[11] = odd256(rk[9], rk[10]);
    rk[12] = even256(rk[10], _mm_aeskeygenassist_si128(rk[11], 0x20));
    rk[13] = odd256(rk[11], rk[12]);
    rk[14] = even256(rk[12], _mm_aeskeygenassist_si128(rk[13], 0x40));
}

ONEPASS_TARGET static void expand_key(struct gk5i_aes_key *k,
                                      const uint8_t *key, size_t key_len)
{
    k->rk[0] = _mm_loadu_si128((const __m128i *)(const void *)key);
    if (key_len == 16) {
        k->rounds = 10;
        expand128(k->rk);
    } else {
        k->rounds = 14;
        k->rk[1] = _mm_loadu_si128((const __m128i *)(const void *)(key + 16));
        expand256(k->rk);
    }
}

/* FIPS 197 5.3.5: the decryption round keys are the encryption ones in
 * reverse order, InvMixColumns applied to all but the first and last. */
ONEPASS_TARGET static void invert_key(struct gk5i_aes_key *k)
{
    __m128i ek[15];
    int nr = k->rounds;

    for (int r = 0; r < 15; r++) {
        ek[r] = k->rk[r];
    }
    k->rk[0] = ek[nr];
    for (int r = 1; r < nr; r++) {
        k->rk[r] = _mm_aesimc_si128(ek[nr - r]);
    }
    k->rk[nr] = ek[0];
    for (int r = 0; r < 15; r++) {
        ek[r] = _mm_setzero_si128();
    }
    __asm__ __volatile__("" : : "r"(ek) : "memory"); /* keep the wipe */
}

uint32_t gk5i_aes_key_new(const uint8_t *key, size_t key_len, bool decrypt,
                          struct gk5i_aes_key **out)
{
    struct gk5i_aes_key *k = NULL;

    *out = NULL;
    if (key_len != 16 && key_len != 32) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    if (!gk5i_onepass_cpu()) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    /* __m128i wants 16-byte alignment, which malloc gives on x86-64. */
    k = OPENSSL_zalloc(sizeof(*k));
    if (k == NULL) {
        return GK5_ERR_NOMEM;
    }
    expand_key(k, key, key_len);
    k->decrypt = decrypt;
    if (decrypt) {
        invert_key(k);
    }
    *out = k;
    return GK5_OK;
}

void gk5i_aes_key_free(struct gk5i_aes_key *k)
{
    OPENSSL_clear_free(k, sizeof(*k));
}

/* SP 800-38A 6.2 CBC encryption in place, one block after the other (each
 * block's input needs the one before's output). */
ONEPASS_TARGET static inline void cbc_enc(const struct gk5i_aes_key *k,
                                          uint8_t chain[16], uint8_t *p,
                                          size_t blocks, const int nr)
{
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)chain);

    for (size_t b = 0; b < blocks; b++, p += 16) {
        __m128i *q = (__m128i *)(void *)p;

        c = aes_block(k->rk, _mm_xor_si128(_mm_loadu_si128(q), c), nr);
        _mm_storeu_si128(q, c);
    }
    _mm_storeu_si128((__m128i *)(void *)chain, c);
}

/* SP 800-38A 6.2 CBC decryption in place.  Every block's decryption is
 * independent of the others', so four run side by side to fill the AES
 * unit's pipeline; only the XOR with the ciphertext before them chains. */
ONEPASS_TARGET static inline void cbc_dec(const struct gk5i_aes_key *k,
                                          uint8_t chain[16], uint8_t *p,
                                          size_t blocks, const int nr)
{
    const __m128i *rk = k->rk;
    __m128i prev = _mm_loadu_si128((const __m128i *)(const void *)chain);
    size_t b = 0;

    for (; b + 4 <= blocks; b += 4, p += 64) {
        __m128i *q = (__m128i *)(void *)p;
        __m128i c[4], x[4];

        for (int i = 0; i < 4; i++) {
            c[i] = _mm_loadu_si128(q + i);
        }
        dec4(rk, c, prev, x, nr);
        for (int i = 0; i < 4; i++) {
            _mm_storeu_si128(q + i, x[i]);
        }
        prev = c[3];
    }
    for (; b < blocks; b++, p += 16) {
        __m128i *q = (__m128i *)(void *)p;
        __m128i c = _mm_loadu_si128(q);

        _mm_storeu_si128(q, _mm_xor_si128(aes_unblock(rk, c, nr), prev));
        prev = c;
    }
    _mm_storeu_si128((__m128i *)(void *)chain, prev);
}

ONEPASS_TARGET void gk5i_aes_cbc(const struct gk5i_aes_key *k,
                                 uint8_t chain[16], uint8_t *p, size_t blocks)
{
    if (k->decrypt) {
        BY_ROUNDS(k, cbc_dec, k, chain, p, blocks);
    } else {
        BY_ROUNDS(k, cbc_enc, k, chain, p, blocks);
    }
}

#endif /* GK5_HAVE_ONEPASS */
