/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 8009 (aes128-cts-hmac-sha256-128) sealing and unsealing in one
 * pass: AES-CBC encryption (decryption) and the SHA-256 compression of
 * HMAC-SHA-256 over the same 64-byte pieces of ciphertext, read once, on
 * AES-NI and SHA-NI.  RFC 8009 MACs the ciphertext, so sealing hashes
 * what CBC has just written and unsealing hashes before it decrypts; the
 * two dependency chains are independent as in aesni_sha1.c, and one loop
 * runs both.  Only whole 64-byte blocks go through here; onepass.c does
 * the rest (the HMAC's first block of IV, the stealing, the padding and
 * the outer hash).
 */
#include <string.h>

#include "fast.h"

#ifdef GK5_HAVE_ONEPASS
#include "aesni.h"

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

#endif /* GK5_HAVE_ONEPASS */
