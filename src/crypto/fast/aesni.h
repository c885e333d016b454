/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the AES-NI files of the floor share, private to src/crypto/fast:
 * the key schedule's layout and the inlined AES rounds, so that the CBC
 * loops of aesni.c and the one-pass loops of aesni_sha1.c and
 * aesni_sha256.c each unroll their own copy.  Included only where
 * GK5_HAVE_ONEPASS (fast.h) holds.
 */
#ifndef GK5_CRYPTO_FAST_AESNI_H
#define GK5_CRYPTO_FAST_AESNI_H

#include <immintrin.h>

#include "fast.h"

#define ONEPASS_TARGET __attribute__((target("aes,sha,ssse3,sse4.1")))

/* AES round keys (FIPS 197 5.2), 11 for AES-128, 15 for AES-256; for
 * decryption, the Equivalent Inverse Cipher's (FIPS 197 5.3.5). */
struct gk5i_aes_key {
    __m128i rk[15];
    int rounds; /* Nr: 10 or 14 */
    bool decrypt;
};

/* FIPS 197 5.1: one block, nr rounds (a constant where it is inlined, so
 * that the rounds unroll). */
ONEPASS_TARGET static inline __m128i aes_block(const __m128i *rk, __m128i x,
                                               const int nr)
{
    x = _mm_xor_si128(x, rk[0]);
#pragma GCC unroll 14
    for (int r = 1; r < nr; r++) {
        x = _mm_aesenc_si128(x, rk[r]);
    }
    return _mm_aesenclast_si128(x, rk[nr]);
}

/* FIPS 197 5.3.5: the Equivalent Inverse Cipher on one block. */
ONEPASS_TARGET static inline __m128i aes_unblock(const __m128i *rk, __m128i x,
                                                 const int nr)
{
    x = _mm_xor_si128(x, rk[0]);
#pragma GCC unroll 14
    for (int r = 1; r < nr; r++) {
        x = _mm_aesdec_si128(x, rk[r]);
    }
    return _mm_aesdeclast_si128(x, rk[nr]);
}

/*
 * The entry points below run their loop with nr a compile-time constant,
 * one inlined copy for AES-128 (10 rounds) and one for AES-256 (14), so
 * that the rounds unroll; this is the one place that chooses.
 */
#define BY_ROUNDS(k, fn, ...)                                                  \
    do {                                                                       \
        if ((k)->rounds == 10) {                                               \
            fn(__VA_ARGS__, 10);                                               \
        } else {                                                               \
            fn(__VA_ARGS__, 14);                                               \
        }                                                                      \
    } while (0)

/* The round keys on the stack, so that the compiler knows the stores to
 * the data cannot change them. */
ONEPASS_TARGET static inline void
rk_load(__m128i rk[15], const struct gk5i_aes_key *k, const int nr)
{
    for (int r = 0; r <= nr; r++) {
        rk[r] = k->rk[r];
    }
}

/* Wipes n vectors of key or plaintext material off the stack; the empty
 * asm keeps the compiler from dropping the stores as dead. */
ONEPASS_TARGET static inline void wipe_m128(__m128i *v, int n)
{
    for (int i = 0; i < n; i++) {
        v[i] = _mm_setzero_si128();
    }
    __asm__ __volatile__("" : : "r"(v) : "memory");
}

/* Four CBC blocks decrypted side by side: x[i] = D(c[i]) ^ (the block
 * before), prev the ciphertext block before c[0]. */
ONEPASS_TARGET static inline void dec4(const __m128i *rk, const __m128i *c,
                                       __m128i prev, __m128i *x, const int nr)
{
    __m128i x0 = _mm_xor_si128(c[0], rk[0]), x1 = _mm_xor_si128(c[1], rk[0]);
    __m128i x2 = _mm_xor_si128(c[2], rk[0]), x3 = _mm_xor_si128(c[3], rk[0]);

#pragma GCC unroll 14
    for (int r = 1; r < nr; r++) {
        x0 = _mm_aesdec_si128(x0, rk[r]);
        x1 = _mm_aesdec_si128(x1, rk[r]);
        x2 = _mm_aesdec_si128(x2, rk[r]);
        x3 = _mm_aesdec_si128(x3, rk[r]);
    }
    x[0] = _mm_xor_si128(_mm_aesdeclast_si128(x0, rk[nr]), prev);
    x[1] = _mm_xor_si128(_mm_aesdeclast_si128(x1, rk[nr]), c[0]);
    x[2] = _mm_xor_si128(_mm_aesdeclast_si128(x2, rk[nr]), c[1]);
    x[3] = _mm_xor_si128(_mm_aesdeclast_si128(x3, rk[nr]), c[2]);
}

#endif /* GK5_CRYPTO_FAST_AESNI_H */
