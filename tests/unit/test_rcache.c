/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The replay cache (src/krb5/rcache.c) against RFC 4120 3.2.3: a tag is
 * accepted once while it lives (ctime + skew) and again after; tags are
 * cut or padded to 16 bytes; a full table refuses rather than forgets; a
 * memory-only cache refuses authenticators from before it began for one
 * skew; the file keeps what was accepted across a restart and between
 * caches (processes) sharing it, survives a cut-short append, refuses a
 * file that is not a replay cache, and compacts itself; threads store
 * concurrently, each tag accepted exactly once.  Built for ThreadSanitizer
 * runs: plain pthreads, no sleeps.
 */
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "krb5/krb5_int.h"

#define T0 1700000000
#define SKEW 300
#define TAG_LEN 12 /* the HMAC-SHA1-96 checksum of the aes-sha1 enctypes */

/* A tag standing for authenticator (a, b): 12 bytes, distinct for each. */
static void tag_for(uint8_t *tag, uint32_t a, uint32_t b)
{
    uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15u + 1;

    for (size_t i = 0; i < TAG_LEN; i++) {
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9u;
        tag[i] = (uint8_t)(x >> 56);
    }
}

static uint32_t store(struct gk5i_rcache *rc, uint32_t a, uint32_t b,
                      int64_t ctime, time_t now)
{
    uint8_t tag[TAG_LEN];

    tag_for(tag, a, b);
    return gk5i_rcache_check_store(rc, tag, sizeof(tag), ctime, 0, now);
}

static struct gk5i_rcache *mem_cache(size_t max_entries)
{
    struct gk5i_rcache_opts o = {.skew = SKEW, .max_entries = max_entries};
    struct gk5i_rcache *rc = NULL;

    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_OK);
    assert_non_null(rc);
    return rc;
}

/* ---- files ---- */

struct dir {
    char path[64];
    char file[96];
};

static void dir_make(struct dir *d)
{
    snprintf(d->path, sizeof(d->path), "/tmp/gk5-test-rcache-XXXXXX");
    assert_non_null(mkdtemp(d->path));
    snprintf(d->file, sizeof(d->file), "%s/rcache", d->path);
}

static void dir_remove(struct dir *d)
{
    unlink(d->file);
    assert_int_equal(rmdir(d->path), 0);
}

static struct gk5i_rcache *file_cache(const struct dir *d, size_t max,
                                      uint32_t skew, time_t now)
{
    struct gk5i_rcache_opts o = {
        .skew = skew, .max_entries = max, .path = d->file};
    struct gk5i_rcache *rc = NULL;

    assert_int_equal(gk5i_rcache_new(&o, now, 0, &rc), GK5_OK);
    assert_non_null(rc);
    return rc;
}

static off_t file_size(const struct dir *d)
{
    struct stat st;

    assert_int_equal(stat(d->file, &st), 0);
    return st.st_size;
}

static void file_write(const struct dir *d, const void *p, size_t len,
                       int flags)
{
    int fd = open(d->file, O_WRONLY | O_CREAT | flags, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, len), (ssize_t)len);
    close(fd);
}

/* ---- memory ---- */

static void test_store_and_repeat(void **state)
{
    struct gk5i_rcache *rc = mem_cache(0);

    (void)state;
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 1), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 200), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 2, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 2, 1, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(gk5i_rcache_count(rc, T0 + 1), 3);
    assert_int_equal(store(rc, 2, 1, T0 + 1, T0 + 2), GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
    gk5i_rcache_free(NULL);
}

static void test_arguments(void **state)
{
    struct gk5i_rcache_opts o = {.max_entries = 16};
    struct gk5i_rcache *rc = NULL;
    uint8_t tag[TAG_LEN] = {0};

    (void)state;
    assert_int_equal(gk5i_rcache_new(NULL, T0, 0, &rc),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    o.max_entries = (size_t)1 << 40;
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_ERR_INVALID_ARGUMENT);
    assert_null(rc);
    rc = mem_cache(16);
    assert_int_equal(gk5i_rcache_check_store(rc, NULL, 12, T0 + 1, 0, T0 + 1),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_rcache_check_store(rc, tag, 0, T0 + 1, 0, T0 + 1),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_rcache_check_store(NULL, tag, 12, T0 + 1, 0, T0 + 1),
                     GK5_ERR_INVALID_ARGUMENT);
    gk5i_rcache_free(rc);
}

/* Live through ctime + skew, free at ctime + skew + 1; with one slot the
 * dead entry's slot is the one reused. */
static void test_expiry_reuses_slot(void **state)
{
    struct gk5i_rcache *rc = mem_cache(1);
    int64_t c = T0 + 10;

    (void)state;
    assert_int_equal(store(rc, 1, 1, c, c), GK5_OK);
    assert_int_equal(store(rc, 2, 2, c, c), GK5_ERR_RCACHE_FULL);
    assert_int_equal(store(rc, 1, 1, c, c + SKEW), GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_count(rc, c + SKEW), 1);
    assert_int_equal(gk5i_rcache_count(rc, c + SKEW + 1), 0);
    assert_int_equal(store(rc, 1, 1, c, c + SKEW + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 1, c, c + SKEW + 1), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 2, 2, c + SKEW, c + SKEW + 1),
                     GK5_ERR_RCACHE_FULL);
    /* The second life lasts from the clamp (a stale ctime is kept for the
     * second it arrived in). */
    assert_int_equal(store(rc, 2, 2, c + SKEW, c + SKEW + 2), GK5_OK);
    assert_int_equal(store(rc, 2, 2, c + SKEW, c + 2 * SKEW),
                     GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_count(rc, c + 2 * SKEW), 1);
    gk5i_rcache_free(rc);
}

/* A ctime ahead of the clock is kept for its whole ctime + skew. */
static void test_future_ctime_kept(void **state)
{
    struct gk5i_rcache *rc = mem_cache(16);
    int64_t c = T0 + 10 * SKEW;

    (void)state;
    assert_int_equal(store(rc, 1, 1, c, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 1, c, c + SKEW), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 1, c, c + SKEW + 1), GK5_OK);
    assert_int_equal(store(rc, 3, 3, INT64_MAX, T0 + 1), GK5_OK);
    /* Far ahead: kept for as long as the entry's 32 bits reach (136
     * years). */
    assert_int_equal(store(rc, 3, 3, INT64_MAX, T0 + 3000000000),
                     GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
}

/* Only the first 16 bytes count; shorter tags are zero-padded. */
static void test_tag_lengths(void **state)
{
    struct gk5i_rcache *rc = mem_cache(64);
    uint8_t long_tag[24], short_tag[16] = {0xaa, 0xbb, 0xcc};
    int64_t c = T0 + 1;

    (void)state;
    for (size_t i = 0; i < sizeof(long_tag); i++) {
        long_tag[i] = (uint8_t)(i + 1);
    }
    assert_int_equal(gk5i_rcache_check_store(rc, long_tag, 24, c, 0, c),
                     GK5_OK);
    long_tag[23] ^= 1; /* past the 16 kept */
    assert_int_equal(gk5i_rcache_check_store(rc, long_tag, 24, c, 0, c),
                     GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_check_store(rc, long_tag, 16, c, 0, c),
                     GK5_ERR_AP_REPEAT);
    long_tag[15] ^= 1;
    assert_int_equal(gk5i_rcache_check_store(rc, long_tag, 24, c, 0, c),
                     GK5_OK);

    assert_int_equal(gk5i_rcache_check_store(rc, short_tag, 3, c, 0, c),
                     GK5_OK);
    assert_int_equal(gk5i_rcache_check_store(rc, short_tag, 16, c, 0, c),
                     GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_check_store(rc, short_tag, 12, c, 0, c),
                     GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_check_store(rc, short_tag, 2, c, 0, c),
                     GK5_OK);
    assert_int_equal(gk5i_rcache_count(rc, c), 4);
    gk5i_rcache_free(rc);
}

/* Sixteen entries make one shard of sixteen slots, all in one probe
 * window: exactly sixteen fit. */
static void test_full(void **state)
{
    struct gk5i_rcache *rc = mem_cache(16);
    int64_t c = T0 + 5;

    (void)state;
    for (uint32_t i = 0; i < 16; i++) {
        assert_int_equal(store(rc, 7, i, c + i, c + i), GK5_OK);
    }
    assert_int_equal(store(rc, 7, 16, c + 16, c + 16), GK5_ERR_RCACHE_FULL);
    for (uint32_t i = 0; i < 16; i++) {
        assert_int_equal(store(rc, 7, i, c + i, c + 16), GK5_ERR_AP_REPEAT);
    }
    assert_int_equal(gk5i_rcache_count(rc, c + 16), 16);
    /* The first entry dies at c + SKEW + 1: one slot free again. */
    assert_int_equal(store(rc, 7, 16, c + SKEW, c + SKEW), GK5_ERR_RCACHE_FULL);
    assert_int_equal(store(rc, 7, 16, c + SKEW, c + SKEW + 1), GK5_OK);
    assert_int_equal(store(rc, 7, 17, c + SKEW, c + SKEW + 1),
                     GK5_ERR_RCACHE_FULL);
    assert_int_equal(store(rc, 7, 1, c + SKEW, c + SKEW + 1),
                     GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
}

/* Resident pages of this process (/proc/self/statm's second field). */
static long resident_pages(void)
{
    long size = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");

    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld %ld", &size, &resident), 2);
    fclose(f);
    return resident;
}

static long minor_faults(void)
{
    struct rusage ru;

    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_minflt;
}

/* A fresh table is untouched zero pages: each page the stores reach costs
 * one fault, the write that makes it resident, not a read fault (the
 * shared zero page) and then a copy-on-write fault (which, in a process
 * with threads on other CPUs, also interrupts each of them to flush the
 * old mapping).  Counted as minor faults against the pages made resident.
 * Not under a sanitizer, whose shadow memory faults too. */
static void test_fresh_pages_written_first(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    skip();
#endif
#endif
    /* The table (65,536 slots, 1.25 MiB) from its own mmap, as a large
     * one is (a fixed threshold: earlier tests' frees would raise it). */
    assert_int_equal(mallopt(M_MMAP_THRESHOLD, 64 * 1024), 1);
    long before = resident_pages();
    struct gk5i_rcache *rc = mem_cache(65536);
    long res0 = resident_pages(), flt0 = minor_faults();
    if (res0 - before >= 200) {
        /* The allocator wrote the table (valgrind's calloc does): no page
         * is left to fault in. */
        gk5i_rcache_free(rc);
        skip();
    }
    for (uint32_t i = 0; i < 4000; i++) {
        assert_int_equal(store(rc, 9, i, T0 + 5, T0 + 5), GK5_OK);
    }
    long res = resident_pages() - res0, flt = minor_faults() - flt0;
    /* 4,000 stores reach nearly all of the table's 320 pages.  Read
     * first, each would cost two faults; the margin allows for faults
     * elsewhere and for the kernel's per-CPU batching of the resident
     * count (up to 31 pages a CPU not yet added in). */
    assert_true(res >= 200);
    if (flt > res + res / 4 + 32) {
        fail_msg("%ld minor faults for %ld pages made resident: pages were "
                 "read before they were written",
                 flt, res);
    }
    gk5i_rcache_free(rc);
}

/* A sharded table: it fills (some shard first), never forgets, never
 * holds more than max_entries. */
static void test_full_sharded(void **state)
{
    struct gk5i_rcache *rc = mem_cache(1024);
    int64_t c = T0 + 5;
    uint32_t stored = 0, i;
    uint32_t ret = GK5_OK;

    (void)state;
    for (i = 0; i < 4096; i++) {
        ret = store(rc, 9, i, c, c);
        if (ret != GK5_OK) {
            break;
        }
        stored++;
    }
    assert_int_equal(ret, GK5_ERR_RCACHE_FULL);
    assert_true(stored > 256 && stored <= 1024);
    assert_int_equal(gk5i_rcache_count(rc, c), stored);
    for (uint32_t j = 0; j < stored; j++) {
        assert_int_equal(store(rc, 9, j, c, c + 1), GK5_ERR_AP_REPEAT);
    }
    assert_int_equal(store(rc, 9, i, c, c + SKEW + 1), GK5_OK);
    assert_int_equal(gk5i_rcache_count(rc, c + SKEW + 1), 1);
    gk5i_rcache_free(rc);
}

/* A memory-only cache refuses, for one skew, ctime more than a second
 * before its start. */
static void test_restart_guard(void **state)
{
    struct gk5i_rcache *rc = mem_cache(64);

    (void)state;
    assert_int_equal(store(rc, 1, 1, T0 - 10, T0), GK5_ERR_AP_BEFORE_START);
    assert_int_equal(store(rc, 1, 2, T0 - 2, T0 + 5), GK5_ERR_AP_BEFORE_START);
    assert_int_equal(store(rc, 1, 3, T0 - 2, T0 + SKEW),
                     GK5_ERR_AP_BEFORE_START);
    /* Within the second of slack (a client on the KDC's clock). */
    assert_int_equal(store(rc, 1, 6, T0 - 1, T0 + 5), GK5_OK);
    assert_int_equal(store(rc, 1, 7, T0, T0 + 5), GK5_OK);
    assert_int_equal(store(rc, 1, 4, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 5, T0 - 1, T0 + SKEW + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 5, T0 - 1, T0 + SKEW + 1), GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_count(rc, T0 + SKEW + 1), 2);
    gk5i_rcache_free(rc);
}

/* The guard goes to the microsecond: one second before the start is the
 * line. */
static void test_restart_guard_usec(void **state)
{
    struct gk5i_rcache_opts o = {.skew = SKEW, .max_entries = 64};
    struct gk5i_rcache *rc = NULL;
    uint8_t tag[12] = {1, 2, 3};

    (void)state;
    assert_int_equal(gk5i_rcache_new(&o, T0, 500000, &rc), GK5_OK);
    assert_int_equal(
        gk5i_rcache_check_store(rc, tag, sizeof(tag), T0 - 1, 499999, T0),
        GK5_ERR_AP_BEFORE_START);
    assert_int_equal(
        gk5i_rcache_check_store(rc, tag, sizeof(tag), T0 - 1, 500000, T0),
        GK5_OK);
    assert_int_equal(
        gk5i_rcache_check_store(rc, tag, sizeof(tag), T0 - 1, 500000, T0),
        GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
}

/* ---- the file ---- */

static void test_file_persists(void **state)
{
    struct dir d;
    struct gk5i_rcache *rc;

    (void)state;
    dir_make(&d);
    rc = file_cache(&d, 1024, SKEW, T0);
    /* A new file: no guard (the file is all the cache accepted), so an
     * authenticator made just before the first use is taken. */
    assert_int_equal(store(rc, 1, 0, T0 - 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 1, 2, T0 + 2, T0 + 2), GK5_OK);
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 2), GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
    assert_int_equal(file_size(&d), 16 + 3 * 24);

    /* The restart: what was accepted is refused, and a file that was read
     * needs no guard. */
    rc = file_cache(&d, 1024, SKEW, T0 + 3);
    assert_int_equal(gk5i_rcache_count(rc, T0 + 3), 3);
    assert_int_equal(store(rc, 1, 0, T0 - 1, T0 + 3), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 1, T0 + 1, T0 + 3), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 2, T0 + 2, T0 + 3), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 1, 3, T0 - 5, T0 + 3), GK5_OK);
    gk5i_rcache_free(rc);

    /* Dead records are not read in. */
    rc = file_cache(&d, 1024, SKEW, T0 + SKEW + 2);
    assert_int_equal(gk5i_rcache_count(rc, T0 + SKEW + 2), 1);
    assert_int_equal(store(rc, 1, 1, T0 + SKEW, T0 + SKEW + 2), GK5_OK);
    assert_int_equal(store(rc, 1, 2, T0 + SKEW, T0 + SKEW + 2),
                     GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
    dir_remove(&d);
}

/* Two caches on one file, as two `gk5 accept --rcache` processes: each
 * sees what the other appended. */
static void test_file_shared(void **state)
{
    struct dir d;
    struct gk5i_rcache *a, *b;

    (void)state;
    dir_make(&d);
    a = file_cache(&d, 1024, SKEW, T0);
    b = file_cache(&d, 1024, SKEW, T0);
    assert_int_equal(store(a, 2, 1, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(b, 2, 1, T0 + 1, T0 + 1), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(b, 2, 2, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(a, 2, 2, T0 + 1, T0 + 1), GK5_ERR_AP_REPEAT);
    for (uint32_t i = 3; i < 40; i++) {
        struct gk5i_rcache *first = i % 2 ? a : b, *second = i % 2 ? b : a;

        assert_int_equal(store(first, 2, i, T0 + 2, T0 + 2), GK5_OK);
        assert_int_equal(store(second, 2, i, T0 + 2, T0 + 2),
                         GK5_ERR_AP_REPEAT);
    }
    assert_int_equal(gk5i_rcache_count(a, T0 + 2), 39);
    gk5i_rcache_free(a);
    gk5i_rcache_free(b);
    assert_int_equal(file_size(&d), 16 + 39 * 24);
    dir_remove(&d);
}

static void test_file_corrupt(void **state)
{
    static const uint8_t bad_magic[16] = "gk5Q\0\0\0\1\0\0\0\0\0\0\0\1";
    static const uint8_t bad_version[16] = "gk5R\0\0\0\2\0\0\0\0\0\0\0\1";
    static const uint8_t short_header[5] = "gk5R\0";
    struct gk5i_rcache_opts o = {.skew = SKEW, .max_entries = 1024};
    struct gk5i_rcache *rc = NULL;
    struct dir d;

    (void)state;
    dir_make(&d);
    o.path = d.file;
    file_write(&d, bad_magic, sizeof(bad_magic), O_TRUNC);
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_ERR_RCACHE_IO);
    assert_null(rc);
    file_write(&d, bad_version, sizeof(bad_version), O_TRUNC);
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_ERR_RCACHE_IO);
    file_write(&d, short_header, sizeof(short_header), O_TRUNC);
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_ERR_RCACHE_IO);
    assert_null(rc);
    unlink(d.file);

    /* A directory is no cache either. */
    assert_int_equal(mkdir(d.file, 0700), 0);
    assert_int_equal(gk5i_rcache_new(&o, T0, 0, &rc), GK5_ERR_RCACHE_IO);
    assert_int_equal(rmdir(d.file), 0);
    dir_remove(&d);
}

/* An append a crash cut short is dropped, and the next append lines up. */
static void test_file_partial_record(void **state)
{
    static const uint8_t junk[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    struct dir d;
    struct gk5i_rcache *rc;

    (void)state;
    dir_make(&d);
    rc = file_cache(&d, 1024, SKEW, T0);
    assert_int_equal(store(rc, 3, 1, T0 + 1, T0 + 1), GK5_OK);
    assert_int_equal(store(rc, 3, 2, T0 + 1, T0 + 1), GK5_OK);
    gk5i_rcache_free(rc);
    file_write(&d, junk, sizeof(junk), O_APPEND);

    rc = file_cache(&d, 1024, SKEW, T0 + 2);
    assert_int_equal(gk5i_rcache_count(rc, T0 + 2), 2);
    assert_int_equal(store(rc, 3, 1, T0 + 1, T0 + 2), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 3, 3, T0 + 2, T0 + 2), GK5_OK);
    /* The same from a cache already open when the junk appears. */
    file_write(&d, junk, sizeof(junk), O_APPEND);
    assert_int_equal(store(rc, 3, 4, T0 + 2, T0 + 2), GK5_OK);
    gk5i_rcache_free(rc);
    assert_int_equal(file_size(&d), 16 + 4 * 24);

    rc = file_cache(&d, 1024, SKEW, T0 + 3);
    assert_int_equal(gk5i_rcache_count(rc, T0 + 3), 4);
    assert_int_equal(store(rc, 3, 3, T0 + 2, T0 + 3), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(rc, 3, 4, T0 + 2, T0 + 3), GK5_ERR_AP_REPEAT);
    gk5i_rcache_free(rc);
    dir_remove(&d);
}

/* More live records than the table holds: refused at creation rather than
 * some forgotten. */
static void test_file_too_many(void **state)
{
    struct gk5i_rcache_opts o = {.skew = SKEW, .max_entries = 16};
    struct gk5i_rcache *rc;
    struct dir d;

    (void)state;
    dir_make(&d);
    rc = file_cache(&d, 1024, SKEW, T0);
    for (uint32_t i = 0; i < 17; i++) {
        assert_int_equal(store(rc, 4, i, T0 + 1, T0 + 1), GK5_OK);
    }
    gk5i_rcache_free(rc);
    o.path = d.file;
    rc = NULL;
    assert_int_equal(gk5i_rcache_new(&o, T0 + 2, 0, &rc), GK5_ERR_RCACHE_IO);
    assert_null(rc);
    /* Once some have died, it fits. */
    assert_int_equal(gk5i_rcache_new(&o, T0 + SKEW + 2, 0, &rc), GK5_OK);
    gk5i_rcache_free(rc);
    dir_remove(&d);
}

/* Thousands of short-lived entries: the file is compacted, and a cache
 * that had it open (another process) reads it again from the start. */
static void test_file_compaction(void **state)
{
    struct dir d;
    struct gk5i_rcache *a, *b;
    const uint32_t n = 6000;
    int64_t now = T0 + 1;

    (void)state;
    dir_make(&d);
    a = file_cache(&d, 256, 1, T0);
    b = file_cache(&d, 256, 1, T0);
    for (uint32_t i = 0; i < n; i++) {
        now = T0 + 1 + i / 10;
        assert_int_equal(store(a, 5, i, now, now), GK5_OK);
    }
    /* Ten a second, each live two seconds. */
    assert_true(file_size(&d) < 16 + 4096 * 24);
    assert_true(file_size(&d) >= 16 + 20 * 24);
    assert_int_equal(store(b, 5, n - 1, now, now), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(b, 5, n - 11, now - 1, now), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(b, 5, n, now, now), GK5_OK);
    assert_int_equal(store(a, 5, n, now, now), GK5_ERR_AP_REPEAT);
    assert_int_equal(gk5i_rcache_count(b, now), gk5i_rcache_count(a, now));
    gk5i_rcache_free(a);
    gk5i_rcache_free(b);

    a = file_cache(&d, 256, 1, now);
    assert_int_equal(store(a, 5, n - 1, now, now), GK5_ERR_AP_REPEAT);
    assert_int_equal(store(a, 5, n - 1, now, now + 2), GK5_OK);
    gk5i_rcache_free(a);
    dir_remove(&d);
}

/* Real processes on one file: each tag accepted by exactly one.  A
 * child's exit status is how many it accepted; if one tag went to two,
 * the sum would only reach the count with another tag accepted by none,
 * which the last pass finds still free. */
static void test_file_processes(void **state)
{
    enum { NPROC = 4, NTAGS = 100 };
    struct dir d;
    struct gk5i_rcache *rc;
    pid_t pid[NPROC];
    int sum = 0;

    (void)state;
    dir_make(&d);
    rc = file_cache(&d, 1024, SKEW, T0);
    gk5i_rcache_free(rc);
    for (int p = 0; p < NPROC; p++) {
        pid[p] = fork();
        assert_true(pid[p] >= 0);
        if (pid[p] == 0) {
            struct gk5i_rcache_opts o = {
                .skew = SKEW, .max_entries = 1024, .path = d.file};
            int ok = 0;

            rc = NULL;
            if (gk5i_rcache_new(&o, T0 + 1, 0, &rc) != GK5_OK) {
                _exit(255);
            }
            for (uint32_t i = 0; i < NTAGS; i++) {
                uint32_t t = (i + (uint32_t)p * 29) % NTAGS;

                ok += store(rc, 6, t, T0 + 1, T0 + 1) == GK5_OK;
            }
            gk5i_rcache_free(rc);
            _exit(ok);
        }
    }
    for (int p = 0; p < NPROC; p++) {
        int st = 0;

        assert_int_equal(waitpid(pid[p], &st, 0), pid[p]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 255);
        sum += WEXITSTATUS(st);
    }
    assert_int_equal(sum, NTAGS);
    rc = file_cache(&d, 1024, SKEW, T0 + 2);
    for (uint32_t t = 0; t < NTAGS; t++) {
        assert_int_equal(store(rc, 6, t, T0 + 1, T0 + 2), GK5_ERR_AP_REPEAT);
    }
    gk5i_rcache_free(rc);
    assert_int_equal(file_size(&d), 16 + NTAGS * 24);
    dir_remove(&d);
}

/* ---- threads ---- */

#define NTHREADS 8
#define PER_THREAD 300
#define SHARED 300

struct race {
    struct gk5i_rcache *rc;
    int id;
    uint32_t own[PER_THREAD];
    uint32_t shared[SHARED];
};

static void *race_run(void *arg)
{
    struct race *r = arg;

    for (uint32_t i = 0; i < PER_THREAD || i < SHARED; i++) {
        /* Each thread takes the shared tags in its own order. */
        uint32_t s = (i * 7 + (uint32_t)r->id * 37) % SHARED;

        if (i < PER_THREAD) {
            r->own[i] = store(r->rc, 100 + (uint32_t)r->id, i, T0 + 1, T0 + 1);
        }
        if (i < SHARED) {
            r->shared[s] = store(r->rc, 99, s, T0 + 1, T0 + 1);
        }
    }
    return NULL;
}

static void race(struct gk5i_rcache *rc)
{
    static struct race r[NTHREADS];
    pthread_t th[NTHREADS];

    for (int t = 0; t < NTHREADS; t++) {
        r[t].rc = rc;
        r[t].id = t;
        assert_int_equal(pthread_create(&th[t], NULL, race_run, &r[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
    }
    for (int t = 0; t < NTHREADS; t++) {
        for (uint32_t i = 0; i < PER_THREAD; i++) {
            assert_int_equal(r[t].own[i], GK5_OK);
        }
    }
    for (uint32_t s = 0; s < SHARED; s++) {
        int ok = 0;

        for (int t = 0; t < NTHREADS; t++) {
            if (r[t].shared[s] == GK5_OK) {
                ok++;
            } else {
                assert_int_equal(r[t].shared[s], GK5_ERR_AP_REPEAT);
            }
        }
        assert_int_equal(ok, 1);
    }
    assert_int_equal(gk5i_rcache_count(rc, T0 + 1),
                     NTHREADS * PER_THREAD + SHARED);
}

static void test_threads_memory(void **state)
{
    struct gk5i_rcache *rc = mem_cache(1u << 14);

    (void)state;
    race(rc);
    gk5i_rcache_free(rc);
}

static void test_threads_file(void **state)
{
    struct dir d;
    struct gk5i_rcache *rc;

    (void)state;
    dir_make(&d);
    rc = file_cache(&d, 1u << 14, SKEW, T0);
    race(rc);
    gk5i_rcache_free(rc);
    rc = file_cache(&d, 1u << 14, SKEW, T0 + 2);
    assert_int_equal(gk5i_rcache_count(rc, T0 + 2),
                     NTHREADS * PER_THREAD + SHARED);
    gk5i_rcache_free(rc);
    dir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_and_repeat),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_expiry_reuses_slot),
        cmocka_unit_test(test_future_ctime_kept),
        cmocka_unit_test(test_tag_lengths),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_fresh_pages_written_first),
        cmocka_unit_test(test_full_sharded),
        cmocka_unit_test(test_restart_guard),
        cmocka_unit_test(test_restart_guard_usec),
        cmocka_unit_test(test_file_persists),
        cmocka_unit_test(test_file_shared),
        cmocka_unit_test(test_file_corrupt),
        cmocka_unit_test(test_file_partial_record),
        cmocka_unit_test(test_file_too_many),
        cmocka_unit_test(test_file_compaction),
        cmocka_unit_test(test_file_processes),
        cmocka_unit_test(test_threads_memory),
        cmocka_unit_test(test_threads_file),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
