/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Confounders (RFC 3961 5.3): a given one (the test seam), or random bytes
 * from a per-thread pool of RAND_bytes output.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/rand.h>

#include "crypto_int.h"
#include "internal.h"

uint32_t gk5i_fill_confounder(uint8_t *dst, size_t len, const uint8_t *given)
{
    if (given != NULL) {
        memcpy(dst, given, len);
        return GK5_OK;
    }
    if (len > INT_MAX || RAND_bytes(dst, (int)len) != 1) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    return GK5_OK;
}

/*
 * Confounders come from a pool of RAND_bytes output per thread (one
 * RAND_bytes call costs about as much as encrypting 1 KiB; a pool per key
 * would cost every context half a KiB).  Each confounder is wiped from the
 * pool as it is taken, and the pool is wiped when its thread ends.  A
 * forked child must not hand out the confounders its parent holds: every
 * fork moves the generation on, and a pool filled in an older generation
 * is thrown away (OpenSSL's DRBG reseeds in the child by itself).  Without
 * the fork handler or the thread key, confounders come straight from
 * RAND_bytes.
 */
#define CONF_POOL_BYTES 512
struct conf_pool {
    uint8_t bytes[CONF_POOL_BYTES];
    size_t left; /* unused bytes at the end of bytes */
    uint64_t fork_gen;
    bool registered; /* the thread key holds it: wiped at thread exit */
};
static _Thread_local struct conf_pool t_pool;
static atomic_uint_fast64_t g_fork_gen;
static atomic_bool g_pool_ok;
static pthread_key_t g_pool_key;
static pthread_once_t g_pool_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&g_fork_gen, 1, memory_order_relaxed);
}

static void pool_thread_end(void *p)
{
    struct conf_pool *pool = p;

    zap(pool->bytes, sizeof(pool->bytes));
    pool->left = 0;
    pool->registered = false;
}

static void pool_setup(void)
{
    atomic_store(&g_pool_ok,
                 pthread_atfork(NULL, NULL, on_fork_child) == 0 &&
                     pthread_key_create(&g_pool_key, pool_thread_end) == 0);
}

uint32_t gk5i_pooled_confounder(uint8_t *dst, size_t len, const uint8_t *given)
{
    struct conf_pool *pool = &t_pool;
    uint64_t gen;
    uint8_t *p;

    if (given != NULL || len > sizeof(pool->bytes) ||
        pthread_once(&g_pool_once, pool_setup) != 0 ||
        !atomic_load_explicit(&g_pool_ok, memory_order_relaxed)) {
        return gk5i_fill_confounder(dst, len, given);
    }
    if (!pool->registered) {
        if (pthread_setspecific(g_pool_key, pool) != 0) {
            return gk5i_fill_confounder(dst, len, NULL);
        }
        pool->registered = true;
    }
    gen = atomic_load_explicit(&g_fork_gen, memory_order_relaxed);
    if (gen != pool->fork_gen) {
        zap(pool->bytes, sizeof(pool->bytes));
        pool->left = 0;
        pool->fork_gen = gen;
    }
    if (pool->left < len) {
        if (RAND_bytes(pool->bytes, (int)sizeof(pool->bytes)) != 1) {
            pool->left = 0;
            return GK5_ERR_CRYPTO_BACKEND;
        }
        pool->left = sizeof(pool->bytes);
    }
    p = pool->bytes + sizeof(pool->bytes) - pool->left;
    memcpy(dst, p, len);
    zap(p, len);
    pool->left -= len;
    return GK5_OK;
}
