/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3961 5.1 n-fold: OpenSSL has no public n-fold (KRB5KDF folds its
 * constant internally), so this one is by hand.
 */
#include <string.h>

#include "crypto_int.h"

static size_t gcd(size_t a, size_t b)
{
    while (b != 0) {
        size_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

/* The replicated string read byte by byte, without a division per byte:
 * copy r of the input (rotated right by 13 * r bits), byte b of it, whose
 * first bit is bit src of the input. */
struct rep_walk {
    const uint8_t *in;
    size_t k, bits, r, b, src;
};

static void walk_copy(struct rep_walk *w)
{
    w->b = 0;
    w->src = (w->bits - (13 * w->r) % w->bits) % w->bits;
}

static uint8_t walk_next(struct rep_walk *w)
{
    size_t byte = w->src / 8;
    unsigned off = (unsigned)(w->src % 8);
    uint8_t v =
        off == 0
            ? w->in[byte]
            : (uint8_t)((w->in[byte] << off) |
                        (w->in[byte + 1 == w->k ? 0 : byte + 1] >> (8 - off)));

    w->src += 8;
    if (w->src >= w->bits) {
        w->src -= w->bits;
    }
    if (++w->b == w->k) {
        w->r++;
        walk_copy(w);
    }
    return v;
}

/* Adds the big-endian number add (len bytes) into out with ones'-complement
 * (end-around carry) addition: the bit that falls off the top re-enters at
 * the bottom, possibly rippling again. */
static void add_ones_complement(uint8_t *out, const uint8_t *add, size_t len)
{
    unsigned carry = 0;

    for (size_t i = len; i-- > 0;) {
        unsigned sum = out[i] + add[i] + carry;

        out[i] = (uint8_t)sum;
        carry = sum >> 8;
    }
    while (carry != 0) {
        for (size_t i = len; i-- > 0 && carry != 0;) {
            unsigned sum = out[i] + carry;

            out[i] = (uint8_t)sum;
            carry = sum >> 8;
        }
    }
}

/*
 * RFC 3961 5.1: n-fold(in) to out_len bytes.  The replicated string (each
 * copy of the input rotated 13 bits further right) is cut into
 * out_len-byte big-endian numbers which are added with ones'-complement
 * addition; it is walked once, a chunk at a time.
 */
bool gk5i_nfold(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
    uint8_t chunk_buf[GK5_NFOLD_MAX];
    struct rep_walk w = {.in = in, .k = in_len, .bits = 8 * in_len};
    size_t lcm;

    if (out == NULL || out_len == 0 || out_len > sizeof(chunk_buf) ||
        in_len > SIZE_MAX / 8 / out_len) {
        return false;
    }
    memset(out, 0, out_len);
    if (in == NULL || in_len == 0) {
        return true; /* nothing to add: zero */
    }
    lcm = in_len / gcd(in_len, out_len) * out_len;
    walk_copy(&w);
    for (size_t chunk = 0; chunk < lcm; chunk += out_len) {
        for (size_t i = 0; i < out_len; i++) {
            chunk_buf[i] = walk_next(&w);
        }
        add_ones_complement(out, chunk_buf, out_len);
    }
    zap(chunk_buf, sizeof(chunk_buf));
    return true;
}

/* Remembered folds: a direct-mapped table per thread (no locks), indexed
 * by the constant's bytes.  Constants are public, so nothing here needs
 * wiping. */
#define MEMO_SLOTS 64
#define MEMO_IN_MAX 8
#define MEMO_OUT_MAX 16
struct nfold_memo {
    uint8_t in_len, out_len; /* in_len 0: empty slot */
    uint8_t in[MEMO_IN_MAX];
    uint8_t out[MEMO_OUT_MAX];
};
static _Thread_local struct nfold_memo t_memo[MEMO_SLOTS];

bool gk5i_nfold_constant(const uint8_t *in, size_t in_len, uint8_t *out,
                         size_t out_len)
{
    struct nfold_memo *m;
    unsigned h = (unsigned)in_len * 31u + (unsigned)out_len;

    if (in == NULL || in_len == 0 || in_len > MEMO_IN_MAX || out_len == 0 ||
        out_len > MEMO_OUT_MAX) {
        return gk5i_nfold(in, in_len, out, out_len);
    }
    for (size_t i = 0; i < in_len; i++) {
        h = h * 131u + in[i];
    }
    m = &t_memo[h % MEMO_SLOTS];
    /* Public bytes (a key usage constant), not a secret: plain memcmp. */
    if (m->in_len == in_len && m->out_len == out_len &&
        memcmp(m->in, in, in_len) == 0) {
        memcpy(out, m->out, out_len);
        return true;
    }
    if (!gk5i_nfold(in, in_len, out, out_len)) {
        return false;
    }
    memcpy(m->in, in, in_len);
    memcpy(m->out, out, out_len);
    m->in_len = (uint8_t)in_len;
    m->out_len = (uint8_t)out_len;
    return true;
}
