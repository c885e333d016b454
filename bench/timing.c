/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench: the CPU clock, timed rounds and the figures' statistics, for
 * one thread and for N threads on one context.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* How much of a CPU the timing thread got while timing single-threaded
 * rounds: on a shared machine the figures are only as good as this. */
static struct {
    double cpu, wall, min_share;
    unsigned long rounds;
} g_share;

static double thread_cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note_share(double cpu, double wall)
{
    double share = wall > 0 ? cpu / wall : 1.0;

    if (g_share.rounds == 0 || share < g_share.min_share) {
        g_share.min_share = share;
    }
    g_share.cpu += cpu;
    g_share.wall += wall;
    g_share.rounds++;
}

/* The clock single-thread rounds are timed by: CLOCK_MONOTONIC, or with
 * --cpu-clock the thread's CPU time. */
static bool g_cpu_clock;

void timing_use_cpu_clock(bool on)
{
    g_cpu_clock = on;
}

bool timing_cpu_share(double *share, double *min_share)
{
    if (g_share.rounds == 0 || g_share.wall <= 0) {
        return false;
    }
    *share = g_share.cpu / g_share.wall;
    *min_share = g_share.min_share;
    return true;
}

static double round_clock(void)
{
    return g_cpu_clock ? thread_cpu_s() : now_s();
}

/* Runs fn for at least min_time seconds; *mbps = size bytes per call. */
static bool time_round(op_fn fn, struct worker *w, size_t size, double min_time,
                       double *mbps)
{
    unsigned long calls = 0, batch = 1;
    double c0 = thread_cpu_s(), w0 = now_s(), t0 = round_clock(), t = t0;

    do {
        double b0 = t;

        for (unsigned long i = 0; i < batch; i++) {
            if (!fn(w)) {
                return false;
            }
        }
        calls += batch;
        t = round_clock();
        /* Read the clock about every millisecond, not every call. */
        if (t - b0 < 0.001 && batch < (1ul << 20)) {
            batch *= 2;
        }
    } while (t - t0 < min_time);
    *mbps = (double)calls * (double)size / (t - t0) / 1e6;
    note_share(thread_cpu_s() - c0, now_s() - w0);
    return true;
}

/* Heap allocations per call, over a few calls after the warm-up. */
static double count_allocs(op_fn fn, struct worker *w)
{
    const unsigned long calls = 16;
    unsigned long n;

    if (!alloc_count_available()) {
        return -1.0;
    }
    alloc_count_start();
    for (unsigned long i = 0; i < calls; i++) {
        if (!fn(w)) {
            (void)alloc_count_stop();
            return -1.0;
        }
    }
    n = alloc_count_stop();
    return (double)n / (double)calls;
}

double spread_pct(const struct figure *f)
{
    return f->have && f->best > 0 ? 100.0 * (f->best - f->worst) / f->best
                                  : 0.0;
}

static void figure_add(struct figure *f, double mbps)
{
    if (f->rounds == 0 || mbps > f->best) {
        f->best = mbps;
    }
    if (f->rounds == 0 || mbps < f->worst) {
        f->worst = mbps;
    }
    f->rounds++;
    f->have = true;
}

/* The in-place IOV unwrap less the time of restoring its token (both per
 * call, from rates over the same size). */
static void subtract_restore(struct figure *f, const struct figure *restore)
{
    if (!f->have || !restore->have || restore->best <= 0) {
        return;
    }
    double t_r = 1.0 / restore->best;
    double tb = 1.0 / f->best - t_r, tw = 1.0 / f->worst - t_r;

    if (tb > 0 && tw > 0) {
        f->best = 1.0 / tb;
        f->worst = 1.0 / tw;
    }
}

/* The figures of one row with their rounds interleaved (MIT, gk5,
 * gk5-iov, floor, then the next round), so that a change in the machine's
 * load falls on all of them alike and the ratios hold up better than the
 * absolute figures do. */
bool measure_row_timed(const struct config *cfg, struct worker *w,
                       struct row_result *r, char *why, size_t why_len)
{
    op_fn fns[IMPL__COUNT + 1];
    struct figure *figs[IMPL__COUNT + 1];
    const char *names[IMPL__COUNT + 1];
    double mbps = 0;
    int n = 0;

    for (int im = 0; im < IMPL__COUNT; im++) {
        fns[n] = op_table[r->op][im];
        figs[n] = &r->fig[im];
        names[n++] = impl_names[im];
    }
    if (r->op == OP_UNWRAP) {
        fns[n] = iov_restore_once;
        figs[n] = &r->restore;
        names[n++] = "restore";
    }
    for (int i = 0; i < n; i++) {
        memset(figs[i], 0, sizeof(*figs[i]));
        figs[i]->allocs = -1.0;
        if (!time_round(fns[i], w, r->size, cfg->warmup, &mbps)) {
            snprintf(why, why_len, "%s %s failed", names[i], op_names[r->op]);
            return false;
        }
    }
    for (int round = 0; round < cfg->rounds; round++) {
        for (int i = 0; i < n; i++) {
            if (!time_round(fns[i], w, r->size, cfg->min_time, &mbps)) {
                snprintf(why, why_len, "%s %s failed while timing", names[i],
                         op_names[r->op]);
                return false;
            }
            figure_add(figs[i], mbps);
        }
    }
    for (int im = IMPL_GK5; im < IMPL__COUNT; im++) {
        r->fig[im].allocs = count_allocs(op_table[r->op][im], w);
    }
    if (r->op == OP_UNWRAP) {
        subtract_restore(&r->fig[IMPL_IOV], &r->restore);
    }
    return true;
}

/* ---- Threads: N workers on one context ---- */

struct thr_group {
    atomic_int ready;
    atomic_bool go, stop;
};

static void *thr_main(void *arg)
{
    struct thr *t = arg;

    double c0;

    atomic_fetch_add(&t->grp->ready, 1);
    while (!atomic_load(&t->grp->go)) {
        sched_yield();
    }
    c0 = thread_cpu_s();
    while (!atomic_load_explicit(&t->grp->stop, memory_order_relaxed)) {
        if (!t->fn(&t->w)) {
            t->ok = false;
            break;
        }
        t->calls++;
    }
    t->cpu = thread_cpu_s() - c0;
    return NULL;
}

/* One round with n threads started together: aggregate MB/s by the wall
 * clock, and MB per second of CPU time the threads used (*cpu_mbps). */
static bool thr_round(struct thr *t, int n, op_fn fn, size_t size, double secs,
                      double *mbps, double *cpu_mbps)
{
    struct thr_group grp;
    struct timespec ts;
    unsigned long calls = 0;
    double cpu = 0;
    bool ok = true;
    int started = 0;
    double t0, t1;

    atomic_init(&grp.ready, 0);
    atomic_init(&grp.go, false);
    atomic_init(&grp.stop, false);
    for (int i = 0; i < n; i++) {
        t[i].grp = &grp;
        t[i].fn = fn;
        t[i].calls = 0;
        t[i].cpu = 0;
        t[i].ok = true;
        if (pthread_create(&t[i].tid, NULL, thr_main, &t[i]) != 0) {
            ok = false;
            break;
        }
        started++;
    }
    if (ok) {
        while (atomic_load(&grp.ready) < n) {
            sched_yield();
        }
    } else {
        atomic_store(&grp.stop, true);
    }
    t0 = now_s();
    atomic_store(&grp.go, true);
    if (ok) {
        ts.tv_sec = (time_t)secs;
        ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        atomic_store(&grp.stop, true);
    }
    for (int i = 0; i < started; i++) {
        pthread_join(t[i].tid, NULL);
        calls += t[i].calls;
        cpu += t[i].cpu;
        ok = ok && t[i].ok;
    }
    t1 = now_s();
    *mbps = (double)calls * (double)size / (t1 - t0) / 1e6;
    *cpu_mbps = cpu > 0 ? (double)calls * (double)size / cpu / 1e6 : 0;
    return ok;
}

/* 1 thread and n threads, rounds interleaved; fig[0], fig[1]: wall-clock
 * MB/s of 1 and n threads; fig[2], fig[3]: MB per CPU second. */
bool thr_measure(const struct config *cfg, struct thr *t, int n, op_fn fn,
                 size_t size, struct figure fig[4])
{
    double mbps = 0, cpu_mbps = 0;

    memset(fig, 0, 4 * sizeof(fig[0]));
    for (int i = 0; i < 4; i++) {
        fig[i].allocs = -1.0;
    }
    if (!thr_round(t, n, fn, size, cfg->warmup, &mbps, &cpu_mbps)) {
        return false;
    }
    for (int r = 0; r < cfg->rounds; r++) {
        for (int k = 0; k < 2; k++) {
            if (!thr_round(t, k == 0 ? 1 : n, fn, size, cfg->min_time, &mbps,
                           &cpu_mbps)) {
                return false;
            }
            figure_add(&fig[k], mbps);
            figure_add(&fig[2 + k], cpu_mbps);
        }
    }
    return true;
}
