/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Deterministic pseudo-random test data (xorshift32), for the unit tests
 * that cut messages into random pieces: the same sequence on every run, so
 * a failure reproduces.  Define XORSHIFT_SEED (not 0) before including.
 */
#ifndef GK5_TESTS_XORSHIFT_H
#define GK5_TESTS_XORSHIFT_H

#include <stddef.h>
#include <stdint.h>

static uint32_t rng_state = XORSHIFT_SEED;

static inline uint32_t rnd(void)
{
    uint32_t x = rng_state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return x;
}

static inline void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)rnd();
    }
}

#endif /* GK5_TESTS_XORSHIFT_H */
