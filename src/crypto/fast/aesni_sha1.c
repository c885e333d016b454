/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3962 (aes128/aes256-cts-hmac-sha1-96) sealing and unsealing in one
 * pass: AES-CBC encryption (decryption) and the SHA-1 compression of
 * HMAC-SHA1 over the same 64-byte pieces of plaintext, read once, on
 * AES-NI and SHA-NI; and AES-CBC on AES-NI alone for every AES enctype.
 *
 * RFC 3961 5.3 MACs the plaintext that CBC then encrypts.  Done one after
 * the other (OpenSSL has no such combined primitive outside its TLS record
 * code) the two are each bound by a dependency chain: CBC encryption by the
 * latency of the AES rounds, one block after the other, SHA-1 by its
 * rounds.  The chains are independent, so one loop running both keeps the
 * execution units busy with the other's work while each waits: close to the
 * cost of the slower of the two instead of their sum.
 *
 * Only whole 64-byte SHA-1 blocks at 64-byte offsets of the MAC input go
 * through here; onepass.c does the rest (the confounder's first block, the
 * ciphertext stealing at the end, the HMAC's padding and outer hash) with
 * OpenSSL, and checks the result against the serial path in the tests.
 * x86-64 only; elsewhere, or without the CPU features, gk5 stays serial.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "../crypto_int.h"
#include "../internal.h"

#ifdef GK5_HAVE_ONEPASS

#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>

#define ONEPASS_TARGET __attribute__((target("aes,sha,ssse3,sse4.1")))

/* AES round keys (FIPS 197 5.2), 11 for AES-128, 15 for AES-256; for
 * decryption, the Equivalent Inverse Cipher's (FIPS 197 5.3.5). */
struct gk5i_aes_key {
    __m128i rk[15];
    int rounds; /* Nr: 10 or 14 */
    bool decrypt;
};

static bool cpu_has_onepass(void)
{
    unsigned int a, b, c, d;

    /* CPUID 1: ECX bit 25 AES-NI, bit 19 SSE4.1, bit 9 SSSE3; CPUID 7.0:
     * EBX bit 29 SHA extensions. */
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 25)) == 0 ||
        (c & (1u << 19)) == 0 || (c & (1u << 9)) == 0) {
        return false;
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0 || (b & (1u << 29)) == 0) {
        return false;
    }
    return true;
}

/* CPUID once: under a hypervisor each CPUID is a trap to it, which cost
 * more than the rest of a context import. */
static bool cpu_onepass(void)
{
    static atomic_int cached; /* 0 unknown, 1 yes, 2 no */
    int v = atomic_load_explicit(&cached, memory_order_relaxed);

    if (v == 0) {
        v = cpu_has_onepass() ? 1 : 2;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v == 1;
}

bool gk5i_onepass_available(void)
{
    return cpu_onepass() && gk5i_fastpaths_on();
}

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
    if (!cpu_onepass()) {
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

/*
 * FIPS 180-4 6.1.2: the SHA-1 compression of one 64-byte block with the
 * SHA extensions.  abcd holds A in its top lane down to D in the bottom,
 * e holds E in the top lane; m0..m3 the block's 16 words (top lane first).
 * Each sha1rnds4 does four rounds with the function and constant of its
 * 20-round stage (the immediate 0..3); sha1nexte adds the next E (A rotated
 * by 30) to the next four schedule words; sha1msg1, XOR and sha1msg2 build
 * W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) four words at a time.
 */
ONEPASS_TARGET static inline void sha1_block(__m128i *abcd_io, __m128i *e_io,
                                             __m128i m0, __m128i m1, __m128i m2,
                                             __m128i m3)
{
    __m128i abcd = *abcd_io, e0 = *e_io, e1;
    const __m128i abcd_in = abcd, e_in = e0;

    /* Written out, not looped: sha1rnds4's function selector (0..3) must be
     * an immediate at every optimisation level, and the m0..m3 roles
     * rotate; each group of five reads against one FIPS 180-4 stage. */
    /* Rounds 0-19 (Ch, K = 0x5a827999). */
    e0 = _mm_add_epi32(e0, m0);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);

    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
    m0 = _mm_sha1msg1_epu32(m0, m1);

    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    m1 = _mm_sha1msg1_epu32(m1, m2);
    m0 = _mm_xor_si128(m0, m2);

    e1 = _mm_sha1nexte_epu32(e1, m3);
    e0 = abcd;
    m0 = _mm_sha1msg2_epu32(m0, m3);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
    m2 = _mm_sha1msg1_epu32(m2, m3);
    m1 = _mm_xor_si128(m1, m3);

    e0 = _mm_sha1nexte_epu32(e0, m0);
    e1 = abcd;
    m1 = _mm_sha1msg2_epu32(m1, m0);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    m3 = _mm_sha1msg1_epu32(m3, m0);
    m2 = _mm_xor_si128(m2, m0);

    /* Rounds 20-39 (Parity, K = 0x6ed9eba1). */
    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    m2 = _mm_sha1msg2_epu32(m2, m1);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    m0 = _mm_sha1msg1_epu32(m0, m1);
    m3 = _mm_xor_si128(m3, m1);

    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    m3 = _mm_sha1msg2_epu32(m3, m2);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 1);
    m1 = _mm_sha1msg1_epu32(m1, m2);
    m0 = _mm_xor_si128(m0, m2);

    e1 = _mm_sha1nexte_epu32(e1, m3);
    e0 = abcd;
    m0 = _mm_sha1msg2_epu32(m0, m3);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    m2 = _mm_sha1msg1_epu32(m2, m3);
    m1 = _mm_xor_si128(m1, m3);

    e0 = _mm_sha1nexte_epu32(e0, m0);
    e1 = abcd;
    m1 = _mm_sha1msg2_epu32(m1, m0);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 1);
    m3 = _mm_sha1msg1_epu32(m3, m0);
    m2 = _mm_xor_si128(m2, m0);

    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    m2 = _mm_sha1msg2_epu32(m2, m1);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    m0 = _mm_sha1msg1_epu32(m0, m1);
    m3 = _mm_xor_si128(m3, m1);

    /* Rounds 40-59 (Maj, K = 0x8f1bbcdc). */
    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    m3 = _mm_sha1msg2_epu32(m3, m2);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    m1 = _mm_sha1msg1_epu32(m1, m2);
    m0 = _mm_xor_si128(m0, m2);

    e1 = _mm_sha1nexte_epu32(e1, m3);
    e0 = abcd;
    m0 = _mm_sha1msg2_epu32(m0, m3);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 2);
    m2 = _mm_sha1msg1_epu32(m2, m3);
    m1 = _mm_xor_si128(m1, m3);

    e0 = _mm_sha1nexte_epu32(e0, m0);
    e1 = abcd;
    m1 = _mm_sha1msg2_epu32(m1, m0);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    m3 = _mm_sha1msg1_epu32(m3, m0);
    m2 = _mm_xor_si128(m2, m0);

    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    m2 = _mm_sha1msg2_epu32(m2, m1);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 2);
    m0 = _mm_sha1msg1_epu32(m0, m1);
    m3 = _mm_xor_si128(m3, m1);

    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    m3 = _mm_sha1msg2_epu32(m3, m2);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    m1 = _mm_sha1msg1_epu32(m1, m2);
    m0 = _mm_xor_si128(m0, m2);

    /* Rounds 60-79 (Parity, K = 0xca62c1d6). */
    e1 = _mm_sha1nexte_epu32(e1, m3);
    e0 = abcd;
    m0 = _mm_sha1msg2_epu32(m0, m3);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
    m2 = _mm_sha1msg1_epu32(m2, m3);
    m1 = _mm_xor_si128(m1, m3);

    e0 = _mm_sha1nexte_epu32(e0, m0);
    e1 = abcd;
    m1 = _mm_sha1msg2_epu32(m1, m0);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);
    m3 = _mm_sha1msg1_epu32(m3, m0);
    m2 = _mm_xor_si128(m2, m0);

    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    m2 = _mm_sha1msg2_epu32(m2, m1);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
    m3 = _mm_xor_si128(m3, m1);

    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    m3 = _mm_sha1msg2_epu32(m3, m2);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);

    e1 = _mm_sha1nexte_epu32(e1, m3);
    e0 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);

    /* Add the block's input state back (FIPS 180-4 6.1.2 step 4). */
    *e_io = _mm_sha1nexte_epu32(e0, e_in);
    *abcd_io = _mm_add_epi32(abcd, abcd_in);
}

/* The SHA-1 state h0..h4 (FIPS 180-4 order) to and from the registers the
 * SHA extensions take: ABCD with A in the top lane, E in the top lane. */
ONEPASS_TARGET static inline void sha1_state_load(const uint32_t h[5],
                                                  __m128i *abcd, __m128i *e)
{
    *abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h),
                              0x1b);
    *e = _mm_set_epi32((int)h[4], 0, 0, 0);
}

ONEPASS_TARGET static inline void sha1_state_store(uint32_t h[5], __m128i abcd,
                                                   __m128i e)
{
    _mm_storeu_si128((__m128i *)(void *)h, _mm_shuffle_epi32(abcd, 0x1b));
    h[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

/* One 64-byte piece x0..x3 into the SHA-1 state.  Byte order: the SHA
 * extensions take the block's first big-endian word in the top lane, so
 * each 16 bytes are reversed whole. */
ONEPASS_TARGET static inline void sha1_piece(__m128i *abcd, __m128i *e,
                                             __m128i x0, __m128i x1, __m128i x2,
                                             __m128i x3)
{
    const __m128i flip =
        _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);

    sha1_block(abcd, e, _mm_shuffle_epi8(x0, flip), _mm_shuffle_epi8(x1, flip),
               _mm_shuffle_epi8(x2, flip), _mm_shuffle_epi8(x3, flip));
}

/*
 * In place over blocks x 64 bytes at p: SHA-1 (state h, FIPS 180-4 order
 * h0..h4) absorbs each 64-byte piece of plaintext, and CBC encryption
 * (FIPS 197, nr rounds, SP 800-38A 6.2) from the chaining value chain
 * turns it into ciphertext; chain ends as the last ciphertext block.
 * The round keys are copied to the stack so that the compiler knows the
 * stores to p cannot change them.
 */
ONEPASS_TARGET static inline void cbc_sha1(const struct gk5i_aes_key *k,
                                           uint8_t chain[16], uint32_t h[5],
                                           uint8_t *p, size_t blocks,
                                           const int nr)
{
    __m128i rk[15], abcd, e;
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)chain);

    sha1_state_load(h, &abcd, &e);
    rk_load(rk, k, nr);
    for (size_t b = 0; b < blocks; b++, p += 64) {
        __m128i *q = (__m128i *)(void *)p;
        __m128i p0 = _mm_loadu_si128(q), p1 = _mm_loadu_si128(q + 1);
        __m128i p2 = _mm_loadu_si128(q + 2), p3 = _mm_loadu_si128(q + 3);

        /* The two chains below share nothing but the loads above. */
        c = aes_block(rk, _mm_xor_si128(p0, c), nr);
        _mm_storeu_si128(q, c);
        c = aes_block(rk, _mm_xor_si128(p1, c), nr);
        _mm_storeu_si128(q + 1, c);
        c = aes_block(rk, _mm_xor_si128(p2, c), nr);
        _mm_storeu_si128(q + 2, c);
        c = aes_block(rk, _mm_xor_si128(p3, c), nr);
        _mm_storeu_si128(q + 3, c);
        sha1_piece(&abcd, &e, p0, p1, p2, p3);
    }
    _mm_storeu_si128((__m128i *)(void *)chain, c);
    sha1_state_store(h, abcd, e);
    wipe_m128(rk, nr + 1);
}

/*
 * In place over blocks x 64 bytes at p: CBC-decrypt (four blocks side by
 * side) from chain, which ends as the last ciphertext block, while SHA-1
 * (state h) absorbs the plaintext each 64-byte piece decrypts to.  The
 * loop is software-pipelined: it decrypts piece i + 1 before it hashes
 * piece i, so that the AES rounds of the one and the SHA-1 rounds of the
 * other, which depend on nothing of each other's, are in flight together.
 */
ONEPASS_TARGET static inline void cbc_dec_sha1(const struct gk5i_aes_key *k,
                                               uint8_t chain[16], uint32_t h[5],
                                               uint8_t *p, size_t blocks,
                                               const int nr)
{
    __m128i rk[15], c[4], x[4], y[4], abcd, e;
    __m128i prev = _mm_loadu_si128((const __m128i *)(const void *)chain);
    __m128i *q = (__m128i *)(void *)p;

    sha1_state_load(h, &abcd, &e);
    rk_load(rk, k, nr);
    for (int i = 0; i < 4; i++) {
        c[i] = _mm_loadu_si128(q + i);
    }
    dec4(rk, c, prev, x, nr);
    prev = c[3];
    for (size_t b = 1; b < blocks; b++) {
        __m128i *nq = q + 4;

        for (int i = 0; i < 4; i++) {
            c[i] = _mm_loadu_si128(nq + i);
        }
        dec4(rk, c, prev, y, nr);
        prev = c[3];
        for (int i = 0; i < 4; i++) {
            _mm_storeu_si128(q + i, x[i]);
        }
        sha1_piece(&abcd, &e, x[0], x[1], x[2], x[3]);
        for (int i = 0; i < 4; i++) {
            x[i] = y[i];
        }
        q = nq;
    }
    for (int i = 0; i < 4; i++) {
        _mm_storeu_si128(q + i, x[i]);
    }
    sha1_piece(&abcd, &e, x[0], x[1], x[2], x[3]);
    _mm_storeu_si128((__m128i *)(void *)chain, prev);
    sha1_state_store(h, abcd, e);
    wipe_m128(rk, nr + 1);
    wipe_m128(x, 4);
    wipe_m128(y, 4);
}

ONEPASS_TARGET void gk5i_onepass_cbc_dec_sha1(const struct gk5i_aes_key *k,
                                              uint8_t chain[16], uint32_t h[5],
                                              uint8_t *p, size_t blocks)
{
    BY_ROUNDS(k, cbc_dec_sha1, k, chain, h, p, blocks);
}

/* FIPS 180-4 4.2.2: the SHA-256 round constants. */
static const uint32_t sha256_k[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/*
 * FIPS 180-4 6.2.2: the SHA-256 compression of one 64-byte block with the
 * SHA extensions.  The state is held as ABEF and CDGH (the order
 * sha256rnds2 takes); m[0..3] are the block's 16 words, each 32-bit lane
 * already big-endian-loaded.  Each group of four rounds adds four
 * constants to four schedule words and runs sha256rnds2 twice; from group
 * 4 on, sha256msg1, an alignr-XOR and sha256msg2 build the next four
 * words, W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16].
 */
ONEPASS_TARGET static inline void sha256_block(__m128i *abef_io,
                                               __m128i *cdgh_io, __m128i m0,
                                               __m128i m1, __m128i m2,
                                               __m128i m3)
{
    __m128i abef = *abef_io, cdgh = *cdgh_io, w[4] = {m0, m1, m2, m3};

#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
        __m128i *cur = &w[g % 4];
        __m128i t = _mm_add_epi32(
            *cur,
            _mm_load_si128((const __m128i *)(const void *)&sha256_k[4 * g]));

        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, t);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(t, 0x0e));
        if (g < 12) {
            /* Words 4(g+4)..4(g+4)+3 replace w[g % 4]. */
            __m128i n = _mm_sha256msg1_epu32(*cur, w[(g + 1) % 4]);

            n = _mm_add_epi32(
                n, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
            *cur = _mm_sha256msg2_epu32(n, w[(g + 3) % 4]);
        }
    }
    *abef_io = _mm_add_epi32(abef, *abef_io);
    *cdgh_io = _mm_add_epi32(cdgh, *cdgh_io);
}

/* The SHA-256 state h0..h7 (A..H, lane 0 first) to and from the
 * registers sha256rnds2 takes: ABEF (lanes F E B A) and CDGH (lanes
 * H G D C). */
ONEPASS_TARGET static inline void
sha256_state_load(const uint32_t h[8], __m128i *abef, __m128i *cdgh)
{
    __m128i t = _mm_loadu_si128((const __m128i *)(const void *)h);
    __m128i u = _mm_loadu_si128((const __m128i *)(const void *)(h + 4));

    t = _mm_shuffle_epi32(t, 0xb1);      /* B A D C */
    u = _mm_shuffle_epi32(u, 0x1b);      /* H G F E */
    *abef = _mm_alignr_epi8(t, u, 8);    /* F E B A */
    *cdgh = _mm_blend_epi16(u, t, 0xf0); /* H G D C */
}

ONEPASS_TARGET static inline void sha256_state_store(uint32_t h[8],
                                                     __m128i abef, __m128i cdgh)
{
    __m128i t = _mm_shuffle_epi32(abef, 0x1b); /* A B E F */

    cdgh = _mm_shuffle_epi32(cdgh, 0xb1); /* G H C D */
    _mm_storeu_si128((__m128i *)(void *)h,
                     _mm_blend_epi16(t, cdgh, 0xf0)); /* A B C D */
    _mm_storeu_si128((__m128i *)(void *)(h + 4),
                     _mm_alignr_epi8(cdgh, t, 8)); /* E F G H */
}

/* One 64-byte piece x[0..3] into the SHA-256 state, each 32-bit word
 * big-endian. */
ONEPASS_TARGET static inline void sha256_piece(__m128i *abef, __m128i *cdgh,
                                               const __m128i x[4])
{
    const __m128i bswap =
        _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

    sha256_block(abef, cdgh, _mm_shuffle_epi8(x[0], bswap),
                 _mm_shuffle_epi8(x[1], bswap), _mm_shuffle_epi8(x[2], bswap),
                 _mm_shuffle_epi8(x[3], bswap));
}

/*
 * RFC 8009 sealing in one pass, for aes128-cts-hmac-sha256-128: in place
 * over blocks x 64 bytes at p, CBC-encrypt from chain (which ends as the
 * last ciphertext block) while the SHA-256 state h (h0..h7) absorbs the
 * ciphertext -- the encrypt-then-MAC order.  Each 64-byte piece is hashed
 * one iteration after it is encrypted, so that its SHA-256 rounds run
 * beside the next piece's AES rounds instead of waiting on them.
 */
ONEPASS_TARGET static inline void cbc_sha256(const struct gk5i_aes_key *k,
                                             uint8_t chain[16], uint32_t h[8],
                                             uint8_t *p, size_t blocks,
                                             const int nr)
{
    __m128i rk[15], abef, cdgh;
    __m128i x[4] = {_mm_setzero_si128(), _mm_setzero_si128(),
                    _mm_setzero_si128(), _mm_setzero_si128()};
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)chain);
    __m128i *q = (__m128i *)(void *)p;

    sha256_state_load(h, &abef, &cdgh);
    rk_load(rk, k, nr);
    for (size_t b = 0; b <= blocks; b++) {
        __m128i y[4];

        if (b < blocks) {
            for (int i = 0; i < 4; i++) {
                __m128i in = _mm_loadu_si128(q + 4 * b + i);

                c = aes_block(rk, _mm_xor_si128(in, c), nr);
                y[i] = c;
                _mm_storeu_si128(q + 4 * b + i, c);
            }
        }
        if (b > 0) {
            sha256_piece(&abef, &cdgh, x);
        }
        if (b < blocks) {
            for (int i = 0; i < 4; i++) {
                x[i] = y[i];
            }
        }
    }
    _mm_storeu_si128((__m128i *)(void *)chain, c);
    sha256_state_store(h, abef, cdgh);
    wipe_m128(rk, nr + 1);
}

/*
 * RFC 8009 unsealing in one pass: in place over blocks x 64 bytes at p,
 * the SHA-256 state h absorbs each 64-byte piece of ciphertext and CBC
 * decrypts it (four blocks side by side) from chain, which ends as the
 * last ciphertext block.  The hash and the decryption read the same
 * ciphertext and depend on nothing of each other's.
 */
ONEPASS_TARGET static inline void cbc_dec_sha256(const struct gk5i_aes_key *k,
                                                 uint8_t chain[16],
                                                 uint32_t h[8], uint8_t *p,
                                                 size_t blocks, const int nr)
{
    __m128i rk[15], c[4], x[4], abef, cdgh;
    __m128i prev = _mm_loadu_si128((const __m128i *)(const void *)chain);
    __m128i *q = (__m128i *)(void *)p;

    sha256_state_load(h, &abef, &cdgh);
    rk_load(rk, k, nr);
    for (size_t b = 0; b < blocks; b++, q += 4) {
        for (int i = 0; i < 4; i++) {
            c[i] = _mm_loadu_si128(q + i);
        }
        dec4(rk, c, prev, x, nr);
        prev = c[3];
        sha256_piece(&abef, &cdgh, c);
        for (int i = 0; i < 4; i++) {
            _mm_storeu_si128(q + i, x[i]);
        }
    }
    _mm_storeu_si128((__m128i *)(void *)chain, prev);
    sha256_state_store(h, abef, cdgh);
    wipe_m128(rk, nr + 1);
    wipe_m128(x, 4);
}

ONEPASS_TARGET void gk5i_onepass_cbc_dec_sha256(const struct gk5i_aes_key *k,
                                                uint8_t chain[16],
                                                uint32_t h[8], uint8_t *p,
                                                size_t blocks)
{
    BY_ROUNDS(k, cbc_dec_sha256, k, chain, h, p, blocks);
}

ONEPASS_TARGET void gk5i_onepass_cbc_sha256(const struct gk5i_aes_key *k,
                                            uint8_t chain[16], uint32_t h[8],
                                            uint8_t *p, size_t blocks)
{
    BY_ROUNDS(k, cbc_sha256, k, chain, h, p, blocks);
}

ONEPASS_TARGET void gk5i_onepass_cbc_sha1(const struct gk5i_aes_key *k,
                                          uint8_t chain[16], uint32_t h[5],
                                          uint8_t *p, size_t blocks)
{
    BY_ROUNDS(k, cbc_sha1, k, chain, h, p, blocks);
}

bool gk5i_onepass_cpu(void)
{
    return cpu_onepass();
}

#endif /* GK5_HAVE_ONEPASS */
