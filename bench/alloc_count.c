/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench's heap allocation counter.
 *
 * malloc, calloc and realloc defined here forward to glibc's __libc_*
 * functions: they replace the allocator's entry points for the whole
 * gk5-bench program (and for OpenSSL and MIT inside it) but only count
 * while a measurement asks them to.  That is why the bench is a program of
 * its own: the gk5 command defines no allocator.  Under a sanitizer, which
 * brings its own allocator, they are left out and no counts are printed.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_NO_COUNTER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define BENCH_NO_COUNTER 1
#endif
#endif

static atomic_bool g_counting;
static atomic_ulong g_allocs;

#ifndef BENCH_NO_COUNTER
/* glibc's allocator under its exported internal names. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

static inline void count_alloc(void)
{
    if (atomic_load_explicit(&g_counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size)
{
    count_alloc();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    count_alloc();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    count_alloc();
    return __libc_realloc(p, size);
}
#endif

bool alloc_count_available(void)
{
#ifndef BENCH_NO_COUNTER
    return true;
#else
    return false;
#endif
}

void alloc_count_start(void)
{
    atomic_store(&g_allocs, 0);
    atomic_store(&g_counting, true);
}

unsigned long alloc_count_stop(void)
{
    atomic_store(&g_counting, false);
    return atomic_load(&g_allocs);
}
