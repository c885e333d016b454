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
#include <string.h>

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

/* Whether the windows made here are guarded by the lock even where the
 * processor can swap the word (the path of machines without a 16-byte
 * compare-and-swap): every test runs both ways. */
static bool use_lock;

static void seq_init(struct gk5_seqstate *st, bool wide)
{
    gk5i_seq_init(st, wide);
    if (use_lock) {
        gk5i_seq_use_lock(st);
    }
}

static int swapped(void **state)
{
    (void)state;
    use_lock = false;
    return 0;
}

static int locked(void **state)
{
    (void)state;
    use_lock = true;
    return 0;
}

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

    seq_init(&st, sc->wide);
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
    seq_init(&st, true);
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
    seq_init(&st, true);
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
    seq_init(&a, true);
    seq_init(&b, true);
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
    seq_init(&st, false);
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
    seq_init(&st, true);
    run_workers(&st, false);
    gk5i_seq_get(&st, &started, &next, &bitmap);
    assert_true(started);
    assert_int_equal(next, (uint64_t)THREADS * PER_THREAD);
    run_workers(&st, true);
    gk5i_seq_destroy(&st);
}

/* ---- 16 threads in rounds: each round's 64 numbers, each sent by
 * several threads, plus numbers two rounds old, all shuffled; whatever
 * order the threads' verdicts take effect in, each number of the round is
 * new exactly once and a duplicate every other time, and the old ones are
 * OLD (nothing below the round can be within the window once the round
 * before it is complete).  A lost update shows as a number new twice or
 * never. ---- */

#define R_THREADS 16
#define R_ROUNDS 40
#define R_COPIES 3 /* threads sending each number */
#define R_OLD 4    /* old numbers per thread per round */
#define R_PER (GK5_SEQ_WINDOW * R_COPIES / R_THREADS + R_OLD)

struct rounds {
    struct gk5_seqstate st;
    pthread_barrier_t barrier;
    _Atomic unsigned fresh[R_ROUNDS][GK5_SEQ_WINDOW];
    _Atomic unsigned dups, olds, wrong;
};

struct rounds_worker {
    struct rounds *r;
    unsigned id;
};

static uint32_t rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void *rounds_main(void *arg)
{
    struct rounds_worker *w = arg;
    struct rounds *r = w->r;
    uint32_t x = 2463534242u + w->id * 7919u;

    for (unsigned round = 0; round < R_ROUNDS; round++) {
        uint64_t base = (uint64_t)round * GK5_SEQ_WINDOW + 1000;
        uint64_t mine[R_PER];
        size_t n = 0;

        /* This thread's share of the copies: copy c of number i goes to
         * thread (i * R_COPIES + c) % R_THREADS. */
        for (unsigned i = 0; i < GK5_SEQ_WINDOW; i++) {
            for (unsigned c = 0; c < R_COPIES; c++) {
                if ((i * R_COPIES + c) % R_THREADS == w->id) {
                    mine[n++] = base + i;
                }
            }
        }
        for (unsigned k = 0; k < R_OLD && round >= 2; k++) {
            mine[n++] = base - 2 * GK5_SEQ_WINDOW + rnd(&x) % GK5_SEQ_WINDOW;
        }
        for (size_t i = n; i > 1; i--) {
            size_t j = rnd(&x) % i;
            uint64_t t = mine[i - 1];

            mine[i - 1] = mine[j];
            mine[j] = t;
        }
        (void)pthread_barrier_wait(&r->barrier);
        for (size_t i = 0; i < n; i++) {
            uint32_t got = gk5i_seq_check(&r->st, GK5_CTX_REPLAY, mine[i]);

            if (mine[i] < base) {
                atomic_fetch_add(got == OLD ? &r->olds : &r->wrong, 1);
            } else if (got == DUP) {
                atomic_fetch_add(&r->dups, 1);
            } else if (got == 0) {
                atomic_fetch_add(&r->fresh[round][mine[i] - base], 1);
            } else {
                atomic_fetch_add(&r->wrong, 1);
            }
        }
        (void)pthread_barrier_wait(&r->barrier);
    }
    return NULL;
}

static void test_threads_in_rounds(void **state)
{
    static struct rounds r;
    struct rounds_worker w[R_THREADS];
    pthread_t tid[R_THREADS];
    bool started;
    uint64_t next, bitmap;

    (void)state;
    memset(&r, 0, sizeof(r));
    seq_init(&r.st, true);
    assert_int_equal(pthread_barrier_init(&r.barrier, NULL, R_THREADS), 0);
    for (unsigned t = 0; t < R_THREADS; t++) {
        w[t] = (struct rounds_worker){.r = &r, .id = t};
        assert_int_equal(pthread_create(&tid[t], NULL, rounds_main, &w[t]), 0);
    }
    for (unsigned t = 0; t < R_THREADS; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
    }
    for (unsigned round = 0; round < R_ROUNDS; round++) {
        for (unsigned i = 0; i < GK5_SEQ_WINDOW; i++) {
            assert_int_equal(atomic_load(&r.fresh[round][i]), 1);
        }
    }
    assert_int_equal(atomic_load(&r.wrong), 0);
    assert_int_equal(atomic_load(&r.dups),
                     R_ROUNDS * GK5_SEQ_WINDOW * (R_COPIES - 1));
    assert_int_equal(atomic_load(&r.olds), (R_ROUNDS - 2) * R_THREADS * R_OLD);
    /* The window the last round leaves, whatever the order. */
    gk5i_seq_get(&r.st, &started, &next, &bitmap);
    assert_true(started);
    assert_int_equal(next, 1000 + (uint64_t)R_ROUNDS * GK5_SEQ_WINDOW);
    assert_true(bitmap == UINT64_MAX);
    (void)pthread_barrier_destroy(&r.barrier);
    gk5i_seq_destroy(&r.st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_table_no_options, swapped),
        cmocka_unit_test_setup(test_table_replay, swapped),
        cmocka_unit_test_setup(test_table_sequence, swapped),
        cmocka_unit_test_setup(test_table_both, swapped),
        cmocka_unit_test_setup(test_state_kept_without_options, swapped),
        cmocka_unit_test_setup(test_duplicate_and_old_change_nothing, swapped),
        cmocka_unit_test_setup(test_get_set_round_trip, swapped),
        cmocka_unit_test_setup(test_set_not_started, swapped),
        cmocka_unit_test_setup(test_concurrent_checks, swapped),
        cmocka_unit_test_setup(test_threads_in_rounds, swapped),
        cmocka_unit_test_setup(test_table_no_options, locked),
        cmocka_unit_test_setup(test_table_replay, locked),
        cmocka_unit_test_setup(test_table_sequence, locked),
        cmocka_unit_test_setup(test_table_both, locked),
        cmocka_unit_test_setup(test_state_kept_without_options, locked),
        cmocka_unit_test_setup(test_duplicate_and_old_change_nothing, locked),
        cmocka_unit_test_setup(test_get_set_round_trip, locked),
        cmocka_unit_test_setup(test_set_not_started, locked),
        cmocka_unit_test_setup(test_concurrent_checks, locked),
        cmocka_unit_test_setup(test_threads_in_rounds, locked),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
