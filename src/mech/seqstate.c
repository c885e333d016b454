/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The receive window: replay and sequence detection with the semantics of
 * RFC 2743 1.2.3 over the last 64 sequence numbers.
 *
 * State: `next` is one past the highest number recorded and bit i of
 * `bitmap` says whether number next-1-i has been received.  Bit 0 is clear
 * only in a window started from a lucid context's recv_seq that has not
 * yet received next - 1 or anything after it: it still expects `next`.
 *
 * Number spaces: RFC 1964 sequence numbers are 32 bits and wrap (MIT
 * wraps them), so they compare modulo 2^32 as serial numbers (RFC 1982):
 * within 2^31 ahead is ahead.  RFC 4121 4.2.6 numbers are 64 bits and a
 * sender never wraps them (gk5's refuses with GK5_ERR_CTX_SEQ_EXHAUSTED), so
 * they compare as plain integers: a number below the window is OLD even
 * when the window sits at 2^64 - 1.
 *
 * Callers run gk5i_seq_check only for a token that passed decryption and
 * the integrity check, so a forged token never moves the window.
 *
 * Threads: a verdict is a pure function of the window and the number
 * (classify_and_record on a copy), so the shared window is one 16-byte
 * word replaced by compare-and-swap where the processor has one, the
 * copy computed again from what another thread left when the swap fails:
 * the verdicts are those of one thread taking the numbers in the order
 * the swaps succeeded, and no thread waits for another.  A duplicate or
 * an old number changes nothing and writes nothing.  Without a 16-byte
 * swap the same function runs under the mutex.
 */
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "mech_int.h"

#define SEQ32_MASK 0xffffffffu

/* Classification of a number against the window. */
enum seq_verdict { SEQ_IN_ORDER, SEQ_GAP, SEQ_DUPLICATE, SEQ_OLD, SEQ_LATE };

/* The window as numbers: a copy of the shared word. */
struct window {
    uint64_t next;   /* one past the highest number seen */
    uint64_t bitmap; /* bit i set: number (next - 1 - i) seen */
    bool wide;
};

static gk5i_u128 pack(const struct window *w)
{
    return (gk5i_u128)w->next | ((gk5i_u128)w->bitmap << 64);
}

static struct window unpack(gk5i_u128 word, bool wide)
{
    struct window w = {(uint64_t)word, (uint64_t)(word >> 64), wide};

    return w;
}

#if defined(__x86_64__)
/* CPUID once per process: under a hypervisor each CPUID traps to it (a
 * few microseconds), and every context's window asks. */
static bool swap16_available(void)
{
    static atomic_int cached; /* 0 unknown, 1 yes, 2 no */
    int v = atomic_load_explicit(&cached, memory_order_relaxed);

    if (v == 0) {
        unsigned a, b, c, d;

        v = __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_CMPXCHG16B) != 0
                ? 1
                : 2;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v == 1;
}

/* The word at p if it equals old, replaced by new; returns what was
 * there (old: swapped).  Called only where swap16_available().  Not
 * inlined: clang would inline it into callers built without CMPXCHG16B
 * and call a __sync_val_compare_and_swap_16 no library has. */
__attribute__((target("cx16"), noinline)) static gk5i_u128
swap16(gk5i_u128 *p, gk5i_u128 old, gk5i_u128 new)
{
    return __sync_val_compare_and_swap(p, old, new);
}
#else
static bool swap16_available(void)
{
    return false;
}

static gk5i_u128 swap16(gk5i_u128 *p, gk5i_u128 old, gk5i_u128 new)
{
    (void)p;
    (void)old;
    (void)new;
    abort(); /* unreachable: lockfree is never set */
}
#endif

/* The word, read whole: a swap of 0 for 0 where it is swapped (an x86
 * 16-byte load is not atomic), else under the lock. */
static gk5i_u128 word_load(struct gk5_seqstate *st)
{
    return st->lockfree ? swap16(&st->word, 0, 0) : st->word;
}

static void word_store(struct gk5_seqstate *st, gk5i_u128 v)
{
    gk5i_u128 old, got;

    if (!st->lockfree) {
        st->word = v;
        return;
    }
    old = swap16(&st->word, 0, 0);
    while ((got = swap16(&st->word, old, v)) != old) {
        old = got;
    }
}

void gk5i_seq_init(struct gk5_seqstate *st, bool wide)
{
    /* With default attributes pthread_mutex_init cannot fail on Linux. */
    (void)pthread_mutex_init(&st->lock, NULL);
    atomic_init(&st->started, false);
    st->wide = wide;
    st->lockfree = swap16_available();
    st->word = 0;
}

void gk5i_seq_use_lock(struct gk5_seqstate *st)
{
    st->lockfree = false;
}

void gk5i_seq_destroy(struct gk5_seqstate *st)
{
    if (st == NULL) {
        return;
    }
    (void)pthread_mutex_destroy(&st->lock);
}

/* Is seq at or after the expected number `next`?  Sets *ahead (seq - next)
 * and *behind (how far below next - 1, the window's top entry). */
static bool is_ahead(const struct window *st, uint64_t seq, uint64_t *ahead,
                     uint64_t *behind)
{
    bool fwd;

    if (st->wide) {
        /* Plain 64-bit order.  next == 0 is either "expecting 0" (top
         * entry not received) or "received 2^64 - 1" (top entry set). */
        fwd = (st->bitmap & 1) == 0 ? seq >= st->next : seq > st->next - 1;
        *ahead = seq - st->next;
        *behind = st->next - 1 - seq;
    } else {
        uint32_t diff = (uint32_t)(seq - st->next);

        fwd = diff < 0x80000000u;
        *ahead = diff;
        *behind = (uint32_t)(st->next - 1 - seq);
    }
    return fwd;
}

/* No receive number was carried (rpc.gssd buffer): the window starts at
 * the first authenticated token. */
static void window_start(struct window *st, uint64_t seq)
{
    if (!st->wide) {
        seq &= SEQ32_MASK;
    }
    st->next = st->wide ? seq + 1 : (seq + 1) & SEQ32_MASK;
    st->bitmap = 1;
}

/* RFC 2743 1.2.3 (with RFC 4121 4.2.6.1 and RFC 1964 1.2.1.2 sequence
 * numbers): classify seq against a started window and record it when it
 * is new. */
static enum seq_verdict classify_and_record(struct window *st, uint64_t seq)
{
    uint64_t ahead = 0;
    uint64_t behind = 0;
    uint64_t bit;

    if (!st->wide) {
        seq &= SEQ32_MASK;
    }
    if (is_ahead(st, seq, &ahead, &behind)) {
        /* Slide the window so that seq is its highest entry.  A shift by
         * 64 or more is undefined in C (MIT's window trips on exactly
         * this): everything old falls out, so the bitmap is cleared. */
        uint64_t shift = ahead + 1;

        st->bitmap = shift >= GK5_SEQ_WINDOW ? 0 : st->bitmap << shift;
        st->bitmap |= 1;
        st->next = st->wide ? seq + 1 : (seq + 1) & SEQ32_MASK;
        return ahead == 0 ? SEQ_IN_ORDER : SEQ_GAP;
    }

    if (behind >= GK5_SEQ_WINDOW) {
        return SEQ_OLD;
    }
    bit = (uint64_t)1 << behind;
    if (st->bitmap & bit) {
        return SEQ_DUPLICATE;
    }
    st->bitmap |= bit;
    return SEQ_LATE;
}

/*
 * RFC 2743 1.2.3: what each verdict reports under each option set.  Both
 * services list DUPLICATE and OLD among their answers; UNSEQ and GAP belong
 * to sequencing alone.  A duplicate is always recognisable here (the
 * window remembers it), so it is DUPLICATE under either service.
 *
 *   verdict     none   replay      sequence    replay+sequence
 *   in order    -      -           -           -
 *   gap         -      -           GAP         GAP
 *   duplicate   -      DUPLICATE   DUPLICATE   DUPLICATE
 *   old         -      OLD         OLD         OLD
 *   late        -      -           UNSEQ       UNSEQ
 *
 * MIT krb5 differs in two cells: it checks duplicates only with replay
 * detection on (sequence alone: UNSEQ), and answers UNSEQ where RFC 2743
 * has OLD when sequencing is on.  gk5_mech.so maps OLD to UNSEQ for the
 * MIT applications it serves (src/interposer/permsg.c); libgk5 follows the
 * RFC.
 */
static GK5_WUR uint32_t report(enum seq_verdict v, uint32_t options)
{
    bool replay = (options & GK5_CTX_REPLAY) != 0;
    bool sequence = (options & GK5_CTX_SEQUENCE) != 0;

    switch (v) {
    case SEQ_IN_ORDER:
        return 0;
    case SEQ_GAP:
        return sequence ? GK5_S_GAP_TOKEN : 0;
    case SEQ_DUPLICATE:
        return (replay || sequence) ? GK5_S_DUPLICATE_TOKEN : 0;
    case SEQ_OLD:
        return (replay || sequence) ? GK5_S_OLD_TOKEN : 0;
    case SEQ_LATE:
        return sequence ? GK5_S_UNSEQ_TOKEN : 0;
    }
    return 0;
}

/* The window as a verdict found it, for the trace line. */
struct seq_before {
    bool started;
    bool wide;
    uint64_t next;
};

/*
 * Tracing: one line for a verdict other than "in order", with the number
 * against the window as it stood (next expected, base = the lowest number
 * it can still tell apart, size), and what was reported.
 */
static void __attribute__((cold))
trace_verdict(const gk5_ctx *ctx, const char *op, uint64_t seq,
              enum seq_verdict v, const struct seq_before *w, uint32_t supp)
{
    uint64_t mask = w->wide ? UINT64_MAX : SEQ32_MASK;
    uint64_t base;
    char what[64];
    const char *off = "not reported (replay and sequence detection are off)";

    if (!w->wide) {
        seq &= SEQ32_MASK;
    }
    if (!w->started) {
        gk5i_trace("ctx %u: %s: receive window starts at sequence %llu (the "
                   "first authenticated token)",
                   ctx->trace_id, op, (unsigned long long)seq);
        return;
    }
    switch (v) {
    case SEQ_GAP:
        snprintf(what, sizeof(what), "leaves a gap of %llu",
                 (unsigned long long)((seq - w->next) & mask));
        off = "not reported (sequence detection is off)";
        break;
    case SEQ_DUPLICATE:
        snprintf(what, sizeof(what), "is a duplicate");
        break;
    case SEQ_OLD:
        snprintf(what, sizeof(what),
                 "is too old to be checked for duplication");
        break;
    case SEQ_LATE:
        snprintf(what, sizeof(what),
                 "is out of sequence: a later one was received");
        off = "not reported (sequence detection is off)";
        break;
    case SEQ_IN_ORDER:
    default:
        return;
    }
    /* 64-bit numbers do not wrap: the window cannot reach below 0. */
    base = w->wide && w->next < GK5_SEQ_WINDOW
               ? 0
               : (w->next - GK5_SEQ_WINDOW) & mask;
    gk5i_trace("ctx %u: %s: sequence %llu %s (window base %llu, size %u, "
               "next expected %llu): %s",
               ctx->trace_id, op, (unsigned long long)seq, what,
               (unsigned long long)base, (unsigned)GK5_SEQ_WINDOW,
               (unsigned long long)w->next,
               supp != 0 ? gk5_major_name(supp) : off);
}

/* The first authenticated token of a window that has not started: under
 * the lock, so that it happens once.  false: another thread started it
 * first (seq then takes the common path). */
static bool seq_start(struct gk5_seqstate *st, uint64_t seq,
                      struct seq_before *w)
{
    struct window win;
    bool first = false;

    pthread_mutex_lock(&st->lock);
    if (!atomic_load_explicit(&st->started, memory_order_relaxed)) {
        win = unpack(word_load(st), st->wide);
        w->started = false;
        w->wide = st->wide;
        w->next = win.next;
        window_start(&win, seq);
        word_store(st, pack(&win));
        atomic_store_explicit(&st->started, true, memory_order_release);
        first = true;
    }
    pthread_mutex_unlock(&st->lock);
    return first;
}

/* seq against a started window: swapped in, or under the lock. */
static enum seq_verdict seq_record(struct gk5_seqstate *st, uint64_t seq,
                                   struct seq_before *w)
{
    enum seq_verdict v;
    struct window win;
    gk5i_u128 old, got;

    w->started = true;
    w->wide = st->wide;
    if (!st->lockfree) {
        pthread_mutex_lock(&st->lock);
        win = unpack(st->word, st->wide);
        w->next = win.next;
        v = classify_and_record(&win, seq);
        st->word = pack(&win);
        pthread_mutex_unlock(&st->lock);
        return v;
    }
    old = swap16(&st->word, 0, 0);
    for (;;) {
        win = unpack(old, st->wide);
        w->next = win.next;
        v = classify_and_record(&win, seq);
        if (v == SEQ_DUPLICATE || v == SEQ_OLD) {
            return v; /* nothing recorded: the read was the verdict */
        }
        got = swap16(&st->word, old, pack(&win));
        if (got == old) {
            return v;
        }
        old = got; /* another thread moved the window: again from there */
    }
}

static GK5_WUR uint32_t seq_check(struct gk5_seqstate *st, uint32_t options,
                                  uint64_t seq, const gk5_ctx *ctx,
                                  const char *op)
{
    struct seq_before w;
    enum seq_verdict v;
    uint32_t supp;

    if (!atomic_load_explicit(&st->started, memory_order_acquire) &&
        seq_start(st, seq, &w)) {
        v = SEQ_IN_ORDER;
    } else {
        v = seq_record(st, seq, &w);
    }
    supp = report(v, options);
    if ((v != SEQ_IN_ORDER || !w.started) && ctx != NULL && GK5_TRACE_ON()) {
        trace_verdict(ctx, op, seq, v, &w, supp);
    }
    return supp;
}

uint32_t gk5i_seq_check(struct gk5_seqstate *st, uint32_t options, uint64_t seq)
{
    return seq_check(st, options, seq, NULL, NULL);
}

uint32_t gk5i_seq_check_ctx(gk5_ctx *ctx, const char *op, uint64_t seq)
{
    return seq_check(&ctx->recv, atomic_load(&ctx->options), seq, ctx, op);
}

void gk5i_seq_get(struct gk5_seqstate *st, bool *started, uint64_t *next,
                  uint64_t *bitmap)
{
    struct window win;

    pthread_mutex_lock(&st->lock);
    *started = atomic_load_explicit(&st->started, memory_order_relaxed);
    win = unpack(word_load(st), st->wide);
    pthread_mutex_unlock(&st->lock);
    *next = win.next;
    *bitmap = win.bitmap;
}

void gk5i_seq_set(struct gk5_seqstate *st, bool started, uint64_t next,
                  uint64_t bitmap)
{
    struct window win;

    pthread_mutex_lock(&st->lock);
    win.wide = st->wide;
    win.next = st->wide ? next : next & SEQ32_MASK;
    win.bitmap = started ? bitmap : 0;
    word_store(st, pack(&win));
    atomic_store_explicit(&st->started, started, memory_order_release);
    pthread_mutex_unlock(&st->lock);
}
