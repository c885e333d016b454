/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The receive window (src/mech/seqstate.c) against RFC 2743 1.2.3: in
 * order, duplicate, late inside the window, older than the window, gap,
 * jumps of 63, 64 and 100, 32-bit wraparound (RFC 1964), numbers near
 * 2^64 (RFC 4121), a window started from a lucid recv_seq — each under
 * every combination of the replay and sequence options.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "mech/mech_int.h"

#define DUP GK5_S_DUPLICATE_TOKEN
#define OLD GK5_S_OLD_TOKEN
#define UNSEQ GK5_S_UNSEQ_TOKEN
#define GAP GK5_S_GAP_TOKEN

/* Expected bits under each option set, in this order. */
static const uint32_t option_sets[4] = {
    0,
    GK5_CTX_REPLAY,
    GK5_CTX_SEQUENCE,
    GK5_CTX_REPLAY | GK5_CTX_SEQUENCE,
};

/* What a number is to the window. */
enum verdict { V_IN_ORDER, V_GAP, V_DUP, V_OLD, V_LATE };

/* RFC 2743 1.2.3: what each verdict reports under each option set
 * {none, replay, sequence, both} (the table in seqstate.c).  DUPLICATE and
 * OLD belong to both services, UNSEQ and GAP to sequencing alone. */
static const uint32_t reported[][4] = {
    [V_IN_ORDER] = {0, 0, 0, 0},     [V_GAP] = {0, 0, GAP, GAP},
    [V_DUP] = {0, DUP, DUP, DUP},    [V_OLD] = {0, OLD, OLD, OLD},
    [V_LATE] = {0, 0, UNSEQ, UNSEQ},
};

struct step {
    uint64_t seq;
    enum verdict v;
};

struct scenario {
    const char *name;
    bool wide;
    bool lucid; /* window started expecting `recv_seq` */
    uint64_t recv_seq;
    size_t nsteps;
    const struct step *steps;
};

#define STEPS(...) ((const struct step[]){__VA_ARGS__})
#define NSTEPS(...)                                                            \
    (sizeof((const struct step[]){__VA_ARGS__}) / sizeof(struct step))
#define SCENARIO(nm, w, luc, rs, ...)                                          \
    {                                                                          \
        .name = nm, .wide = w, .lucid = luc, .recv_seq = rs,                   \
        .nsteps = NSTEPS(__VA_ARGS__), .steps = STEPS(__VA_ARGS__)             \
    }

static const struct scenario scenarios[] = {
    SCENARIO("in order", true, false, 0, {0, V_IN_ORDER}, {1, V_IN_ORDER},
             {2, V_IN_ORDER}, {3, V_IN_ORDER}),
    SCENARIO("first token anywhere (rpc.gssd start)", true, false, 0,
             {1000, V_IN_ORDER}, {1001, V_IN_ORDER}, {999, V_LATE},
             {1000, V_DUP}),
    SCENARIO("duplicate", true, false, 0, {0, V_IN_ORDER}, {1, V_IN_ORDER},
             {2, V_IN_ORDER}, {2, V_DUP}, {1, V_DUP}, {0, V_DUP},
             {3, V_IN_ORDER}),
    SCENARIO("late inside the window", true, false, 0, {0, V_IN_ORDER},
             {2, V_GAP}, {1, V_LATE}, {1, V_DUP}, {3, V_IN_ORDER}),
    SCENARIO("older than the window", true, false, 0, {10, V_IN_ORDER},
             {74, V_GAP}, {10, V_OLD}, {9, V_OLD}, {11, V_LATE}, {11, V_DUP},
             {74, V_DUP}),
    SCENARIO("gap", true, false, 0, {0, V_IN_ORDER}, {5, V_GAP},
             {6, V_IN_ORDER}, {3, V_LATE}, {4, V_LATE}, {5, V_DUP}, {1, V_LATE},
             {2, V_LATE}, {0, V_DUP}),
    SCENARIO("jump of 63 keeps the oldest entry", true, false, 0,
             {0, V_IN_ORDER}, {63, V_GAP}, {0, V_DUP}, {1, V_LATE},
             {62, V_LATE}, {62, V_DUP}),
    SCENARIO("jump of exactly 64", true, false, 0, {0, V_IN_ORDER}, {64, V_GAP},
             {0, V_OLD}, {1, V_LATE}, {1, V_DUP}, {63, V_LATE}, {64, V_DUP},
             {65, V_IN_ORDER}, {1, V_OLD}, {2, V_LATE}),
    /* A shift by 64 that kept the old bits would call #64 seen. */
    SCENARIO("jump of exactly 64 clears the window", true, false, 0,
             {0, V_IN_ORDER}, {1, V_IN_ORDER}, {65, V_GAP}, {64, V_LATE},
             {63, V_LATE}, {2, V_LATE}, {1, V_OLD}),
    /* MIT shifts by 100 here (undefined) and calls #64 a duplicate. */
    SCENARIO("jump of 100 then a late one", true, false, 0, {0, V_IN_ORDER},
             {100, V_GAP}, {64, V_LATE}, {64, V_DUP}, {63, V_LATE},
             {65, V_LATE}, {37, V_LATE}, {36, V_OLD}, {0, V_OLD}, {99, V_LATE},
             {101, V_IN_ORDER}, {37, V_OLD}, {38, V_LATE}),
    SCENARIO("jump of 2^32 is a gap, not a 32-bit wrap (RFC 4121)", true, false,
             0, {5, V_IN_ORDER}, {5 + ((uint64_t)1 << 32), V_GAP}, {5, V_OLD},
             {6, V_OLD}),
    SCENARIO("32-bit wraparound (RFC 1964)", false, false, 0,
             {0xfffffffeu, V_IN_ORDER}, {0xffffffffu, V_IN_ORDER},
             {0, V_IN_ORDER}, {1, V_IN_ORDER}, {0xffffffffu, V_DUP},
             {0xfffffffdu, V_LATE}, {0xffffffc2u, V_LATE}, {0xffffffc1u, V_OLD},
             {2, V_IN_ORDER}),
    SCENARIO("32-bit gap across the wrap", false, false, 0,
             {0xfffffff0u, V_IN_ORDER}, {0x10, V_GAP}, {0xfffffff5u, V_LATE},
             {0xfffffff0u, V_DUP}, {0xffffffd0u, V_OLD}, {0xffffffd1u, V_LATE}),
    SCENARIO("32-bit half-space boundary", false, false, 0, {10, V_IN_ORDER},
             {11 + 0x80000000u, V_OLD}, {10 + 0x80000000u, V_GAP}, {11, V_OLD}),
    SCENARIO("32-bit numbers ignore bits above 32", false, false, 0,
             {1, V_IN_ORDER}, {((uint64_t)1 << 32) | 2, V_IN_ORDER}, {2, V_DUP},
             {((uint64_t)7 << 32) | 1, V_DUP}),
    SCENARIO("64-bit near 2^64 (RFC 4121 never wraps)", true, false, 0,
             {UINT64_MAX - 2, V_IN_ORDER}, {UINT64_MAX - 1, V_IN_ORDER},
             {UINT64_MAX, V_IN_ORDER}, {UINT64_MAX - 3, V_LATE},
             {UINT64_MAX - 1, V_DUP}, {UINT64_MAX, V_DUP},
             {UINT64_MAX - 63, V_LATE}, {UINT64_MAX - 64, V_OLD}, {0, V_OLD},
             {1, V_OLD}),
    SCENARIO("64-bit gap up to 2^64 - 1", true, false, 0,
             {UINT64_MAX - 100, V_IN_ORDER}, {UINT64_MAX, V_GAP},
             {UINT64_MAX - 100, V_OLD}, {UINT64_MAX - 50, V_LATE}),
    SCENARIO("lucid start: in order from recv_seq", true, true, 1000,
             {1000, V_IN_ORDER}, {1001, V_IN_ORDER}, {1000, V_DUP}),
    SCENARIO("lucid start: the first token is late", true, true, 1000,
             {1002, V_GAP}, {1000, V_LATE}, {1001, V_LATE}, {1003, V_IN_ORDER},
             {1002, V_DUP}),
    SCENARIO("lucid start: numbers below recv_seq", true, true, 1000,
             {935, V_OLD}, {936, V_LATE}, {999, V_LATE}, {1000, V_IN_ORDER},
             {999, V_DUP}),
    SCENARIO("lucid start at 0 (RFC 4121)", true, true, 0, {0, V_IN_ORDER},
             {1, V_IN_ORDER}, {0, V_DUP}),
    SCENARIO("lucid start at 0, then a gap (RFC 4121)", true, true, 0,
             {5, V_GAP}, {0, V_LATE}, {0, V_DUP}),
    SCENARIO("lucid start at 0 (RFC 1964)", false, true, 0,
             {0xffffffffu, V_LATE}, {0, V_IN_ORDER}, {0xffffffffu, V_DUP}),
};

static void run_scenario(const struct scenario *sc, size_t opt)
{
    struct gk5_seqstate st;

    gk5i_seq_init(&st, sc->wide);
    if (sc->lucid) {
        gk5i_seq_set(&st, true, sc->recv_seq, 0);
    }
    for (size_t i = 0; i < sc->nsteps; i++) {
        uint32_t got = gk5i_seq_check(&st, option_sets[opt], sc->steps[i].seq);
        uint32_t want = reported[sc->steps[i].v][opt];

        if (got != want) {
            fail_msg("%s, options 0x%x, step %zu (seq %llu): got 0x%x, "
                     "want 0x%x",
                     sc->name, (unsigned)option_sets[opt], i,
                     (unsigned long long)sc->steps[i].seq, (unsigned)got,
                     (unsigned)want);
        }
    }
    gk5i_seq_destroy(&st);
}

static void test_table_no_options(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        run_scenario(&scenarios[i], 0);
    }
}

static void test_table_replay(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        run_scenario(&scenarios[i], 1);
    }
}

static void test_table_sequence(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        run_scenario(&scenarios[i], 2);
    }
}

static void test_table_both(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        run_scenario(&scenarios[i], 3);
    }
}

/* The options only filter what is reported: the window moves the same,
 * so switching them on later reports what was recorded under none. */
static void test_state_kept_without_options(void **state)
{
    struct gk5_seqstate st;
    const uint32_t both = GK5_CTX_REPLAY | GK5_CTX_SEQUENCE;

    (void)state;
    gk5i_seq_init(&st, true);
    assert_int_equal(gk5i_seq_check(&st, 0, 0), 0);
    assert_int_equal(gk5i_seq_check(&st, 0, 100), 0);
    assert_int_equal(gk5i_seq_check(&st, 0, 70), 0);
    assert_int_equal(gk5i_seq_check(&st, both, 70), DUP);
    assert_int_equal(gk5i_seq_check(&st, both, 100), DUP);
    assert_int_equal(gk5i_seq_check(&st, both, 0), OLD);
    assert_int_equal(gk5i_seq_check(&st, both, 101), 0);
    gk5i_seq_destroy(&st);
}

/* A duplicate or an old token changes nothing. */
static void test_duplicate_and_old_change_nothing(void **state)
{
    struct gk5_seqstate st;
    bool started;
    uint64_t next, bitmap, next2, bitmap2;

    (void)state;
    gk5i_seq_init(&st, true);
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_REPLAY, 100), 0);
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_REPLAY, 102), 0);
    gk5i_seq_get(&st, &started, &next, &bitmap);
    assert_true(started);
    assert_int_equal(next, 103);
    assert_int_equal(bitmap, 0x5); /* 102 and 100 */
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_REPLAY, 100), DUP);
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_REPLAY, 30), OLD);
    gk5i_seq_get(&st, &started, &next2, &bitmap2);
    assert_int_equal(next2, next);
    assert_int_equal(bitmap2, bitmap);
    gk5i_seq_destroy(&st);
}

/* Snapshot and restore (export/import): the copy carries on identically. */
static void test_get_set_round_trip(void **state)
{
    struct gk5_seqstate a, b;
    const uint32_t both = GK5_CTX_REPLAY | GK5_CTX_SEQUENCE;
    const uint64_t probes[] = {0, 3, 36, 37, 64, 99, 100, 101, 140};
    bool started;
    uint64_t next, bitmap;

    (void)state;
    gk5i_seq_init(&a, true);
    gk5i_seq_init(&b, true);
    gk5i_seq_get(&a, &started, &next, &bitmap);
    assert_false(started);
    assert_int_equal(next, 0);
    assert_int_equal(bitmap, 0);

    assert_int_equal(gk5i_seq_check(&a, both, 0), 0);
    assert_int_equal(gk5i_seq_check(&a, both, 100), GAP);
    assert_int_equal(gk5i_seq_check(&a, both, 64), UNSEQ);
    gk5i_seq_get(&a, &started, &next, &bitmap);
    gk5i_seq_set(&b, started, next, bitmap);
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        assert_int_equal(gk5i_seq_check(&a, both, probes[i]),
                         gk5i_seq_check(&b, both, probes[i]));
    }
    gk5i_seq_destroy(&a);
    gk5i_seq_destroy(&b);
}

/* A restored window that had not started still starts at the first token. */
static void test_set_not_started(void **state)
{
    struct gk5_seqstate st;

    (void)state;
    gk5i_seq_init(&st, false);
    gk5i_seq_set(&st, false, 0, 0);
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_SEQUENCE, 77777), 0);
    assert_int_equal(gk5i_seq_check(&st, GK5_CTX_SEQUENCE, 77779), GAP);
    gk5i_seq_destroy(&st);
}

/* ---- concurrency: each number once from several threads, never a
 * duplicate; then every one again, never accepted as new ---- */

#define THREADS 4
#define PER_THREAD 500

struct worker {
    struct gk5_seqstate *st;
    unsigned id;
    unsigned dups;  /* first pass: DUPLICATE seen (must stay 0) */
    unsigned fresh; /* second pass: reported as new (must stay 0) */
    bool replay;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;

    for (unsigned i = 0; i < PER_THREAD; i++) {
        uint64_t seq = (uint64_t)i * THREADS + w->id;
        uint32_t got = gk5i_seq_check(w->st, GK5_CTX_REPLAY, seq);

        if (!w->replay && got == DUP) {
            w->dups++;
        }
        if (w->replay && got != DUP && got != OLD) {
            w->fresh++;
        }
    }
    return NULL;
}

static void run_workers(struct gk5_seqstate *st, bool replay)
{
    pthread_t tid[THREADS];
    struct worker w[THREADS];

    for (unsigned t = 0; t < THREADS; t++) {
        w[t] = (struct worker){.st = st, .id = t, .replay = replay};
        assert_int_equal(pthread_create(&tid[t], NULL, worker_main, &w[t]), 0);
    }
    for (unsigned t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
        assert_int_equal(w[t].dups, 0);
        assert_int_equal(w[t].fresh, 0);
    }
}

static void test_concurrent_checks(void **state)
{
    struct gk5_seqstate st;
    bool started;
    uint64_t next, bitmap;

    (void)state;
    gk5i_seq_init(&st, true);
    run_workers(&st, false);
    gk5i_seq_get(&st, &started, &next, &bitmap);
    assert_true(started);
    assert_int_equal(next, (uint64_t)THREADS * PER_THREAD);
    run_workers(&st, true);
    gk5i_seq_destroy(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_no_options),
        cmocka_unit_test(test_table_replay),
        cmocka_unit_test(test_table_sequence),
        cmocka_unit_test(test_table_both),
        cmocka_unit_test(test_state_kept_without_options),
        cmocka_unit_test(test_duplicate_and_old_change_nothing),
        cmocka_unit_test(test_get_set_round_trip),
        cmocka_unit_test(test_set_not_started),
        cmocka_unit_test(test_concurrent_checks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
