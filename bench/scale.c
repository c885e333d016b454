/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench --scale: one context shared by N threads against one context
 * per thread.  An NFS server's worker threads all serve one client's
 * context, so what a context's shared state (its lanes, send counter and
 * receive window) costs when threads share it is the question; crypto is
 * the same on both sides.
 *
 * No KDC and no file: each context pair (initiator and acceptor) is made
 * from a fixed session key, as rpc.gssd hands one to the kernel, so a copy
 * of gk5-bench and its libraries runs this on any machine.  For each
 * enctype, size and operation (get_mic, verify_mic, wrap sealed, unwrap)
 * and each thread count, the threads start together and run the operation
 * for --min-time seconds; aggregate calls per second and MB/s are counted
 * over --rounds rounds (best and worst), first with one shared context,
 * then with one per thread.
 *
 * verify_mic and unwrap take fresh tokens, made beforehand by the matching
 * initiator, each recorded by the receive window as new: the path a
 * server's workers take, where every message writes the window.  The
 * tokens come in passes of PASS_BYTES per thread: with one shared context
 * the threads take them in order from one pool (numbers 0, 1, 2, ...)
 * through a shared cursor, a few at a time, as workers take calls from
 * one connection; with one context per thread each thread walks its own
 * pool.  After each pass the threads meet, the windows are set back to
 * expect number 0, and the next pass begins (the meeting is inside the
 * timed round for both).  Tokens the window records as duplicates or too
 * old (a thread held up while the others moved 64 numbers on) write
 * nothing; a line under the row gives their share when there are any.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "mech/mech_int.h"

enum scale_op { S_GET_MIC, S_VERIFY_MIC, S_WRAP, S_UNWRAP, S__COUNT };
static const char *const scale_op_names[S__COUNT] = {"get_mic", "verify_mic",
                                                     "wrap", "unwrap"};

#define SCALE_MAX_THREADS 64
#define SCALE_MAX_COUNTS 8
/* Tokens per thread and pass for verify_mic and unwrap: about 8 MiB of
 * them (a pass of a few milliseconds at every size, so that the meeting
 * between passes costs about 1 %). */
#define PASS_BYTES (8u << 20)
#define PASS_MIN 256
#define PASS_MAX 32768
/* Tokens a thread takes from the shared cursor at once: 32 / N, so that
 * the numbers the threads hold at once span half the window. */
#define BATCH_SPAN 32
#define BATCH_MAX 16

struct pair {
    gk5_ctx *init, *acc;
};

/* Each thread's own line: calls and stale are written every call, and a
 * neighbour's counters on the same line would move it between the CPUs
 * with every call of either (the benchmark's own false sharing, which
 * cost the shared mode most). */
struct scale_thread {
    _Alignas(64) pthread_t tid;
    gk5_ctx *send, *recv; /* the contexts this thread works on */
    const uint8_t *msg;
    size_t size;
    enum scale_op op;
    gk5_buffer *pool; /* tokens for verify_mic / unwrap (shared: one pool) */
    size_t npool;
    unsigned long calls;
    unsigned long stale; /* tokens recorded as duplicates or too old */
    bool failed;
    struct scale_run *run;
};

struct scale_run {
    pthread_barrier_t start;
    _Atomic bool stop;
    /* verify_mic and unwrap: passes over the pools */
    bool shared;
    pthread_barrier_t pass;
    size_t batch;
    double deadline;     /* no pass starts after it */
    _Atomic bool failed; /* a call failed: every thread stops at the pass */
    gk5_ctx *recv[SCALE_MAX_THREADS];
    int nrecv;
    /* Next token of the shared pool: taken by every thread, a batch at a
     * time (as workers take calls from one connection), on a line of its
     * own so that reading the flags above does not fetch it. */
    _Alignas(64) _Atomic size_t cursor;
};

/* Both ends of a context from one fixed key (initiator and acceptor). */
static int make_pair(int32_t et, size_t key_len, struct pair *p)
{
    uint8_t key[64];

    for (size_t i = 0; i < sizeof(key); i++) {
        key[i] = (uint8_t)(0x5a ^ (i * 29));
    }
    p->init = p->acc = NULL;
    if (gk5i_ctx_new(et, GK5_CTXF_INITIATOR | GK5_CTXF_CFX, 0, 0, key, key_len,
                     &p->init) != GK5_OK ||
        gk5i_ctx_new(et, GK5_CTXF_CFX, 0, 0, key, key_len, &p->acc) != GK5_OK) {
        gk5_ctx_free(p->init);
        return -1;
    }
    return 0;
}

static void free_pair(struct pair *p)
{
    gk5_ctx_free(p->init);
    gk5_ctx_free(p->acc);
    p->init = p->acc = NULL;
}

/* One call; false if it failed.  *major: its status. */
static bool one_call(struct scale_thread *t, size_t i, uint32_t *major_out)
{
    gk5_buffer in = {t->size, (void *)(uintptr_t)t->msg}, out = {0, NULL};
    uint32_t major = 0, minor = 0, qop = 0;
    int conf = 0;

    switch (t->op) {
    case S_GET_MIC:
        major = gk5_get_mic(&minor, t->send, 0, &in, &out);
        break;
    case S_WRAP:
        major = gk5_wrap(&minor, t->send, 1, 0, &in, &conf, &out);
        break;
    case S_VERIFY_MIC:
        major = gk5_verify_mic(&minor, t->recv, &in, &t->pool[i], &qop);
        break;
    case S_UNWRAP:
        major = gk5_unwrap(&minor, t->recv, &t->pool[i], &out, &conf, &qop);
        break;
    default:
        return false;
    }
    gk5_buffer_release(&out);
    *major_out = major;
    /* A token out of order is answered with supplementary bits only. */
    return GK5_ERROR(major) == 0;
}

/* get_mic and wrap: until the main thread says stop. */
static void *send_main(struct scale_thread *t)
{
    uint32_t major;

    while (!atomic_load_explicit(&t->run->stop, memory_order_relaxed)) {
        /* Check the clock's flag every few calls only. */
        for (int k = 0; k < 16; k++) {
            if (!one_call(t, 0, &major)) {
                t->failed = true;
                return NULL;
            }
            t->calls++;
        }
    }
    return NULL;
}

/* The next tokens [*i, *end) of this pass: from the shared cursor, or
 * from the thread's own pool in order.  false: the pass is over. */
static bool take_tokens(struct scale_thread *t, size_t *own, size_t *i,
                        size_t *end)
{
    struct scale_run *run = t->run;

    *i = run->shared ? atomic_fetch_add_explicit(&run->cursor, run->batch,
                                                 memory_order_relaxed)
                     : *own;
    if (*i >= t->npool) {
        return false;
    }
    *end = *i + run->batch < t->npool ? *i + run->batch : t->npool;
    *own = *end;
    return true;
}

/* The end of a pass: every thread waits for the others; one sets the
 * windows back to expect number 0, the cursor to the start, and says
 * whether another pass begins.  true: stop. */
static bool pass_end(struct scale_run *run)
{
    if (pthread_barrier_wait(&run->pass) == PTHREAD_BARRIER_SERIAL_THREAD) {
        for (int k = 0; k < run->nrecv; k++) {
            gk5i_seq_set(&run->recv[k]->recv, true, 0, 0);
        }
        atomic_store_explicit(&run->cursor, 0, memory_order_relaxed);
        atomic_store_explicit(
            &run->stop, now_s() >= run->deadline || atomic_load(&run->failed),
            memory_order_relaxed);
    }
    (void)pthread_barrier_wait(&run->pass);
    return atomic_load_explicit(&run->stop, memory_order_relaxed);
}

/* verify_mic and unwrap: passes over the pool until the deadline. */
static void *recv_main(struct scale_thread *t)
{
    const uint32_t stale = GK5_S_DUPLICATE_TOKEN | GK5_S_OLD_TOKEN;
    uint32_t major;
    size_t own, i, end;

    do {
        own = 0;
        while (!atomic_load_explicit(&t->run->failed, memory_order_relaxed) &&
               take_tokens(t, &own, &i, &end)) {
            for (; i < end; i++) {
                if (!one_call(t, i, &major)) {
                    t->failed = true;
                    atomic_store(&t->run->failed, true);
                    break;
                }
                t->calls++;
                t->stale += (major & stale) != 0;
            }
        }
    } while (!pass_end(t->run));
    return NULL;
}

static void *scale_main(void *arg)
{
    struct scale_thread *t = arg;

    (void)pthread_barrier_wait(&t->run->start);
    return t->npool != 0 ? recv_main(t) : send_main(t);
}

/* The pools: one shared by all threads (shared) or one per thread. */
static void free_pools(struct scale_thread *t, int n, bool shared)
{
    for (int k = 0; k < (shared ? 1 : n); k++) {
        if (t[k].pool != NULL) {
            for (size_t i = 0; i < t[k].npool; i++) {
                gk5_buffer_release(&t[k].pool[i]);
            }
            free(t[k].pool);
        }
    }
    for (int k = 0; k < n; k++) {
        t[k].pool = NULL;
        t[k].npool = 0;
    }
}

/* npool tokens from t's sender, numbers in order. */
static int make_pool(struct scale_thread *t, size_t npool)
{
    t->pool = calloc(npool, sizeof(*t->pool));
    if (t->pool == NULL) {
        return -1;
    }
    for (size_t i = 0; i < npool; i++) {
        gk5_buffer in = {t->size, (void *)(uintptr_t)t->msg};
        uint32_t major, minor = 0;
        int conf = 0;

        major = t->op == S_VERIFY_MIC
                    ? gk5_get_mic(&minor, t->send, 0, &in, &t->pool[i])
                    : gk5_wrap(&minor, t->send, 1, 0, &in, &conf, &t->pool[i]);
        if (major != GK5_S_COMPLETE) {
            return -1;
        }
        t->npool = i + 1;
    }
    return 0;
}

/* Each thread's tokens: per pass, per_thread of them for each thread,
 * in one pool all threads take from (shared) or one pool each. */
static int make_pools(struct scale_thread *t, int n, bool shared,
                      size_t per_thread)
{
    if (shared) {
        if (make_pool(&t[0], per_thread * (size_t)n) != 0) {
            return -1;
        }
        for (int k = 1; k < n; k++) {
            t[k].pool = t[0].pool;
            t[k].npool = t[0].npool;
        }
        return 0;
    }
    for (int k = 0; k < n; k++) {
        if (make_pool(&t[k], per_thread) != 0) {
            return -1;
        }
    }
    return 0;
}

/* One round of n threads: aggregate calls per second, or a negative
 * number when a call failed.  *stale: tokens not recorded as new. */
static double one_round(struct scale_thread *t, int n, bool shared,
                        double seconds, unsigned long *stale)
{
    struct scale_run run;
    unsigned long calls = 0;
    double t0, t1;
    bool failed = false, passes = t[0].npool != 0;
    int started = 0;

    if (pthread_barrier_init(&run.start, NULL, (unsigned)n + 1) != 0) {
        return -1;
    }
    if (pthread_barrier_init(&run.pass, NULL, (unsigned)n) != 0) {
        (void)pthread_barrier_destroy(&run.start);
        return -1;
    }
    atomic_init(&run.stop, false);
    atomic_init(&run.failed, false);
    atomic_init(&run.cursor, 0);
    run.shared = shared;
    run.batch = (size_t)(BATCH_SPAN / n);
    run.batch = run.batch < 1           ? 1
                : run.batch > BATCH_MAX ? BATCH_MAX
                                        : run.batch;
    run.deadline = now_s() + seconds;
    run.nrecv = shared ? 1 : n;
    for (int k = 0; k < run.nrecv; k++) {
        run.recv[k] = t[k].recv;
        gk5i_seq_set(&t[k].recv->recv, true, 0, 0);
    }
    for (; started < n; started++) {
        t[started].run = &run;
        t[started].calls = 0;
        t[started].stale = 0;
        t[started].failed = false;
        if (pthread_create(&t[started].tid, NULL, scale_main, &t[started]) !=
            0) {
            break;
        }
    }
    if (started < n) {
        /* The barrier can never open: the threads that did start are
         * stuck in it, so there is no safe way back. */
        fprintf(stderr, "gk5 bench: --scale: cannot start %d threads\n", n);
        exit(1);
    }
    (void)pthread_barrier_wait(&run.start);
    t0 = now_s();
    /* The receiving threads stop themselves at the end of a pass. */
    if (!passes) {
        while (now_s() - t0 < seconds) {
            usleep(2000);
        }
        atomic_store(&run.stop, true);
    }
    *stale = 0;
    for (int k = 0; k < n; k++) {
        (void)pthread_join(t[k].tid, NULL);
        calls += t[k].calls;
        *stale += t[k].stale;
        failed |= t[k].failed;
    }
    t1 = now_s();
    (void)pthread_barrier_destroy(&run.start);
    (void)pthread_barrier_destroy(&run.pass);
    return failed ? -1 : (double)calls / (t1 - t0);
}

struct cell {
    double best, worst;  /* calls per second */
    unsigned long calls; /* over all rounds */
    unsigned long stale; /* of them, tokens not recorded as new */
};

/* rounds rounds of n threads on op: shared (one pair) or own (n pairs). */
static int measure(const struct config *cfg, int32_t et, size_t key_len,
                   enum scale_op op, size_t size, const uint8_t *msg, int n,
                   bool shared, struct cell *out)
{
    struct scale_thread t[SCALE_MAX_THREADS];
    struct pair pairs[SCALE_MAX_THREADS];
    int npairs = shared ? 1 : n, made = 0, ret = -1;
    size_t npool = 0;

    memset(t, 0, sizeof(t));
    for (; made < npairs; made++) {
        if (make_pair(et, key_len, &pairs[made]) != 0) {
            goto cleanup;
        }
    }
    for (int k = 0; k < n; k++) {
        struct pair *p = &pairs[shared ? 0 : k];

        t[k].send = p->init;
        t[k].recv = p->acc;
        t[k].msg = msg;
        t[k].size = size;
        t[k].op = op;
    }
    if (op == S_VERIFY_MIC || op == S_UNWRAP) {
        npool = PASS_BYTES / (size + 64);
        npool = npool < PASS_MIN   ? PASS_MIN
                : npool > PASS_MAX ? PASS_MAX
                                   : npool;
        if (make_pools(t, n, shared, npool) != 0) {
            goto cleanup;
        }
    }
    out->best = 0;
    out->worst = 0;
    out->calls = 0;
    out->stale = 0;
    for (int r = 0; r < cfg->rounds; r++) {
        unsigned long stale = 0;
        double v = one_round(t, n, shared, cfg->min_time, &stale);

        if (v < 0) {
            goto cleanup;
        }
        for (int k = 0; k < n; k++) {
            out->calls += t[k].calls;
        }
        out->stale += stale;
        if (r == 0 || v > out->best) {
            out->best = v;
        }
        if (r == 0 || v < out->worst) {
            out->worst = v;
        }
    }
    ret = 0;

cleanup:
    free_pools(t, n, shared);
    for (int k = 0; k < made; k++) {
        free_pair(&pairs[k]);
    }
    return ret;
}

/* What it costs here to move one cache line from one CPU to another: two
 * threads take turns writing one word (each waits until the other has
 * written, then writes), so every write fetches the line from the other
 * thread's CPU.  A message that writes a line another thread wrote last
 * (the send counter, the receive window) pays about this once, and at
 * 64 B it is what separates one shared context from one per thread.  ns
 * per trip, or a negative number when the two threads did not run at
 * once (a busy machine) or could not be started. */
#define TRIP_TURNS 200000
#define TRIP_SECONDS 0.2
#define TRIP_RUNS 5

struct trip_run {
    _Alignas(64) _Atomic unsigned long turn;
    _Alignas(64) _Atomic bool give_up;
    double deadline;
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The thread of parity `me` writes turns me, me + 2, ...; 0 on time. */
static int trip_turns(struct trip_run *r, unsigned long me)
{
    unsigned long spins = 0;

    for (unsigned long t = me; t < TRIP_TURNS; t += 2) {
        while (atomic_load_explicit(&r->turn, memory_order_acquire) != t) {
            if (atomic_load_explicit(&r->give_up, memory_order_relaxed)) {
                return -1;
            }
            if (++spins % 4096 == 0 && now_s() > r->deadline) {
                atomic_store(&r->give_up, true);
                return -1;
            }
            cpu_relax();
        }
        atomic_store_explicit(&r->turn, t + 1, memory_order_release);
    }
    return 0;
}

static void *trip_main(void *arg)
{
    return trip_turns(arg, 1) == 0 ? arg : NULL;
}

static double line_trip_ns(void)
{
    struct trip_run r;
    pthread_t tid;
    void *other = NULL;
    double t0, t1;
    int mine;

    atomic_init(&r.turn, 0);
    atomic_init(&r.give_up, false);
    t0 = now_s();
    r.deadline = t0 + TRIP_SECONDS;
    if (pthread_create(&tid, NULL, trip_main, &r) != 0) {
        return -1;
    }
    mine = trip_turns(&r, 0);
    (void)pthread_join(tid, &other);
    t1 = now_s();
    if (mine != 0 || other == NULL) {
        return -1;
    }
    return (t1 - t0) * 1e9 / TRIP_TURNS;
}

/* The thread counts: the list given (default 1,2,4,8,16), those above the
 * CPU count dropped and the CPU count added in their place. */
static size_t thread_counts(const char *arg, int ncpu, int *counts,
                            bool *capped)
{
    static const int dflt[] = {1, 2, 4, 8, 16};
    int want[SCALE_MAX_COUNTS];
    size_t nwant = 0, n = 0;

    *capped = false;
    if (arg == NULL) {
        memcpy(want, dflt, sizeof(dflt));
        nwant = GK5_ARRAY_SIZE(dflt);
    } else {
        char *copy = strdup(arg), *save = NULL;

        if (copy == NULL) {
            return 0;
        }
        for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
             tok = strtok_r(NULL, ",", &save)) {
            char *end;
            long v = strtol(tok, &end, 10);

            if (*end != '\0' || v < 1 || v > SCALE_MAX_THREADS ||
                nwant == SCALE_MAX_COUNTS) {
                free(copy);
                return 0;
            }
            want[nwant++] = (int)v;
        }
        free(copy);
    }
    for (size_t i = 0; i < nwant; i++) {
        int v = want[i];

        if (v > ncpu) {
            *capped = true;
            v = ncpu;
        }
        if (n > 0 && counts[n - 1] >= v) {
            continue; /* ascending, once each */
        }
        counts[n++] = v;
    }
    return n;
}

/* Under a verify_mic or unwrap row: the share of tokens the window did
 * not record as new (they cost no write), when there were any. */
static void print_stale(const struct cell *sh, const struct cell *own)
{
    if (sh->stale == 0 && own->stale == 0) {
        return;
    }
    printf("         (tokens not recorded as new, old or duplicates: "
           "shared %.2f %%, own %.2f %%)\n",
           sh->calls != 0 ? 100.0 * (double)sh->stale / (double)sh->calls : 0,
           own->calls != 0 ? 100.0 * (double)own->stale / (double)own->calls
                           : 0);
}

int bench_scale(const struct config *cfg, const char *threads_arg)
{
    static const size_t dflt_sizes[] = {64, 1024, 16384};
    int counts[SCALE_MAX_COUNTS];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t ncounts, nsizes, max_size = 0;
    const size_t *sizes;
    uint8_t *msg;
    bool capped = false;
    int failed = 0;

    if (ncpu < 1) {
        ncpu = 1;
    }
    if (ncpu > SCALE_MAX_THREADS) {
        ncpu = SCALE_MAX_THREADS;
    }
    ncounts = thread_counts(threads_arg, (int)ncpu, counts, &capped);
    if (ncounts == 0) {
        fprintf(stderr,
                "gk5 bench: --scale takes thread counts from 1 to %d, "
                "e.g. --scale=1,2,4 (at most %d of them)\n",
                SCALE_MAX_THREADS, SCALE_MAX_COUNTS);
        return 2;
    }
    sizes = cfg->n_sizes != 0 ? cfg->sizes : dflt_sizes;
    nsizes = cfg->n_sizes != 0 ? cfg->n_sizes : GK5_ARRAY_SIZE(dflt_sizes);
    for (size_t i = 0; i < nsizes; i++) {
        max_size = sizes[i] > max_size ? sizes[i] : max_size;
    }
    msg = malloc(max_size);
    if (msg == NULL) {
        fprintf(stderr, "gk5 bench: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < max_size; i++) {
        msg[i] = (uint8_t)(i * 131);
    }
    printf("One context shared by N threads against one context per thread "
           "(fixed keys, no KDC):\naggregate calls/s and MB/s, best of %d "
           "rounds of %.2f s (worst in brackets); %ld CPUs online",
           cfg->rounds, cfg->min_time, ncpu);
    if (capped) {
        printf(", thread counts above %ld shown as %ld", ncpu, ncpu);
    }
    printf(".\n");
    if (ncpu > 1) {
        /* A few times: a trip slows when the hypervisor or another
         * process takes one of the CPUs; the fastest is the hardware's. */
        double trip = -1, slowest = -1;

        for (int k = 0; k < TRIP_RUNS; k++) {
            double v = line_trip_ns();

            if (v > 0 && (trip < 0 || v < trip)) {
                trip = v;
            }
            slowest = v > slowest ? v : slowest;
        }
        if (trip > 0) {
            printf("A cache line moved between two threads' CPUs: %.0f ns "
                   "(slowest of %d tries %.0f): what a\ncall pays for each "
                   "line another thread wrote last, one per message sent or "
                   "received\non a shared context.\n",
                   trip, TRIP_RUNS, slowest);
        } else {
            printf("A cache line moved between two threads' CPUs: not "
                   "measured (no two threads took\n%d turns within %.1f s "
                   "in %d tries: a busy machine, or no second thread).\n",
                   TRIP_TURNS, TRIP_SECONDS, TRIP_RUNS);
        }
    }
    for (size_t e = 0; e < cfg->n_enctypes; e++) {
        const struct gk5_enctype *row = NULL;
        int32_t et = cfg->enctypes[e];

        if (gk5i_enctype_usable(et, &row) != GK5_OK || row->rfc1964) {
            printf("\n%d: not measured (--scale takes RFC 4121 enctypes)\n",
                   et);
            continue;
        }
        printf("\n%s (%d)\n", row->name, et);
        printf("  %-6s %-10s %3s  %-26s %-26s %s\n", "size", "op", "N",
               "shared calls/s [worst]", "own calls/s [worst]",
               "MB/s shared/own  shared/own");
        for (size_t si = 0; si < nsizes; si++) {
            for (int op = 0; op < S__COUNT; op++) {
                for (size_t ci = 0; ci < ncounts; ci++) {
                    struct cell sh, own;
                    char a[32], b[32];

                    if (measure(cfg, et, row->key_bytes, (enum scale_op)op,
                                sizes[si], msg, counts[ci], true, &sh) != 0 ||
                        measure(cfg, et, row->key_bytes, (enum scale_op)op,
                                sizes[si], msg, counts[ci], false, &own) != 0) {
                        printf("  %-6zu %-10s %3d  FAILED (a call was "
                               "refused)\n",
                               sizes[si], scale_op_names[op], counts[ci]);
                        failed++;
                        continue;
                    }
                    snprintf(a, sizeof(a), "%.0f [%.0f]", sh.best, sh.worst);
                    snprintf(b, sizeof(b), "%.0f [%.0f]", own.best, own.worst);
                    printf(
                        "  %-6zu %-10s %3d  %-26s %-26s %7.0f/%-7.0f %5.2f\n",
                        sizes[si], scale_op_names[op], counts[ci], a, b,
                        sh.best * (double)sizes[si] / 1e6,
                        own.best * (double)sizes[si] / 1e6,
                        own.best > 0 ? sh.best / own.best : 0.0);
                    print_stale(&sh, &own);
                    fflush(stdout);
                }
            }
        }
    }
    free(msg);
    return failed == 0 ? 0 : 1;
}
