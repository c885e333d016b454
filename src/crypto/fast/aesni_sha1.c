/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3962 (aes128/aes256-cts-hmac-sha1-96) sealing and unsealing in one
 * pass: AES-CBC encryption (decryption) and the SHA-1 compression of
 * HMAC-SHA1 over the same 64-byte pieces of plaintext, read once, on
 * AES-NI and SHA-NI (the AES rounds are aesni.h's, the key schedule
 * aesni.c's).
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
 * ciphertext stealing at the end, the HMAC's padding and outer hash), and
 * the tests hold the result to the serial path.  x86-64 only; elsewhere,
 * or without the CPU features, gk5 stays serial.
 */
#include <string.h>

#include "fast.h"

#ifdef GK5_HAVE_ONEPASS
#include "aesni.h"

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
ONEPASS_TARGET void gk5i_onepass_cbc_sha1(const struct gk5i_aes_key *k,
                                          uint8_t chain[16], uint32_t h[5],
                                          uint8_t *p, size_t blocks)
{
    BY_ROUNDS(k, cbc_sha1, k, chain, h, p, blocks);
}

#endif /* GK5_HAVE_ONEPASS */
