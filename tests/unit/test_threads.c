/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Many threads on one context (docs/design.md, "Context lifecycle and
 * threads"): 2, 4, 8 and 16 threads wrap and make MICs on one initiator at
 * once; every sequence number is used exactly once, 0..N-1 with none
 * missing; then as many threads unwrap them all at once on one acceptor,
 * which sees each number exactly once (never a duplicate), and a second
 * pass finds every one recorded.  Built for ThreadSanitizer runs: no
 * sleeps, plain pthreads.
 */
#include <pthread.h>

#include "tokutil.h"

#define PER_THREAD 200
#define MAX_THREADS 16
#define MSG_LEN 48

struct shared {
    gk5_ctx *ctx;
    gk5_buffer tok[MAX_THREADS * PER_THREAD];
    bool mic[MAX_THREADS * PER_THREAD];
    uint8_t msg[MAX_THREADS * PER_THREAD][MSG_LEN];
    uint32_t major[MAX_THREADS * PER_THREAD];
    size_t total; /* tokens made */
    int nthreads;
};

struct worker {
    struct shared *sh;
    int id;
};

static void message_for(uint8_t *msg, size_t slot)
{
    tok_fill(msg, MSG_LEN, (uint32_t)slot * 2654435761u);
}

/* Slot id*PER_THREAD + i: a sealed Wrap for even i, a MIC for odd i. */
static void *wrap_worker(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;

    for (int i = 0; i < PER_THREAD; i++) {
        size_t slot = (size_t)w->id * PER_THREAD + (size_t)i;
        gk5_buffer in = {MSG_LEN, sh->msg[slot]};
        uint32_t minor = 0;

        message_for(sh->msg[slot], slot);
        sh->mic[slot] = (i % 2) != 0;
        if (sh->mic[slot]) {
            sh->major[slot] =
                gk5_get_mic(&minor, sh->ctx, 0, &in, &sh->tok[slot]);
        } else {
            sh->major[slot] =
                gk5_wrap(&minor, sh->ctx, 1, 0, &in, NULL, &sh->tok[slot]);
        }
    }
    return NULL;
}

/* Thread id takes every nthreads-th slot, so the receiver sees the tokens
 * interleaved and out of order. */
static void *unwrap_worker(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;

    for (size_t slot = (size_t)w->id; slot < sh->total;
         slot += (size_t)sh->nthreads) {
        gk5_buffer in = {MSG_LEN, sh->msg[slot]}, out = {0, NULL};
        uint32_t minor = 0;

        if (sh->mic[slot]) {
            sh->major[slot] =
                gk5_verify_mic(&minor, sh->ctx, &in, &sh->tok[slot], NULL);
        } else {
            sh->major[slot] =
                gk5_unwrap(&minor, sh->ctx, &sh->tok[slot], &out, NULL, NULL);
            if (!GK5_ERROR(sh->major[slot]) &&
                (out.length != MSG_LEN ||
                 memcmp(out.value, sh->msg[slot], MSG_LEN) != 0)) {
                sh->major[slot] = GK5_S_FAILURE;
            }
            gk5_buffer_release(&out);
        }
    }
    return NULL;
}

static void run_threads(struct shared *sh, void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    struct worker w[MAX_THREADS];

    for (int i = 0; i < sh->nthreads; i++) {
        w[i].sh = sh;
        w[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, fn, &w[i]), 0);
    }
    for (int i = 0; i < sh->nthreads; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
    }
}

static void threads_on_one_context(int32_t enctype, int nthreads)
{
    struct shared *sh = calloc(1, sizeof(*sh));
    size_t total = (size_t)nthreads * PER_THREAD;
    uint8_t *seen = calloc(total, 1);
    gk5_ctx *init, *acc;

    assert_non_null(sh);
    assert_non_null(seen);
    tok_pair(enctype, true, 0, &init, &acc);
    sh->nthreads = nthreads;
    sh->total = total;

    /* Many senders on one context: every number once. */
    sh->ctx = init;
    run_threads(sh, wrap_worker);
    for (size_t slot = 0; slot < total; slot++) {
        const uint8_t *t = sh->tok[slot].value;
        uint64_t seq;

        tok_assert_major(sh->major[slot], GK5_S_COMPLETE, 0);
        assert_true(sh->tok[slot].length >= 16);
        seq = load_be64(t + 8);
        if (seq >= total || seen[seq]) {
            fail_msg("%d threads: sequence number %llu %s", nthreads,
                     (unsigned long long)seq,
                     seq >= total ? "out of range" : "used twice");
        }
        seen[seq] = 1;
    }

    /* Many receivers on one context: each number once, never a
     * duplicate; late ones may be out of sequence or old. */
    sh->ctx = acc;
    run_threads(sh, unwrap_worker);
    for (size_t slot = 0; slot < total; slot++) {
        uint32_t major = sh->major[slot];

        if (GK5_ERROR(major) != 0 || (major & GK5_S_DUPLICATE_TOKEN) != 0) {
            fail_msg("%d threads: token in slot %zu: 0x%08x (%s)", nthreads,
                     slot, (unsigned)major, gk5_display_status(major, 0));
        }
    }

    /* All of them are recorded now: a replay is a duplicate, or too old to
     * tell. */
    sh->nthreads = 1;
    run_threads(sh, unwrap_worker);
    for (size_t slot = 0; slot < total; slot++) {
        uint32_t major = sh->major[slot];

        if (GK5_ERROR(major) != 0 ||
            (major & (GK5_S_DUPLICATE_TOKEN | GK5_S_OLD_TOKEN)) == 0) {
            fail_msg("%d threads: replayed slot %zu: 0x%08x (%s)", nthreads,
                     slot, (unsigned)major, gk5_display_status(major, 0));
        }
    }

    for (size_t slot = 0; slot < total; slot++) {
        gk5_buffer_release(&sh->tok[slot]);
    }
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
    free(seen);
    free(sh);
}

static void test_2_threads(void **state)
{
    (void)state;
    threads_on_one_context(18, 2);
}

static void test_4_threads(void **state)
{
    (void)state;
    threads_on_one_context(20, 4);
}

static void test_8_threads(void **state)
{
    (void)state;
    threads_on_one_context(17, 8);
    threads_on_one_context(26, 8);
}

static void test_16_threads(void **state)
{
    (void)state;
    threads_on_one_context(18, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2_threads),
        cmocka_unit_test(test_4_threads),
        cmocka_unit_test(test_8_threads),
        cmocka_unit_test(test_16_threads),
    };

    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
