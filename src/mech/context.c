/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Contexts: made once from a session key (or an acceptor subkey) by
 * deriving every subkey the role needs and keying OpenSSL through the
 * crypto layer; after that a message costs no key setup and no allocation.
 *
 * Concurrency: the send counter is taken with one atomic add (a
 * compare-and-swap near its end), so no number is used twice.  Keyed
 * OpenSSL state is not shareable between threads, so a context holds
 * "lanes", each a full set of prepared keys used by one thread at a time.
 * Lane 0 is made at import; a thread that finds every lane busy adds one
 * (rarely, under lane_lock), up to GK5_LANES_MAX, and past that waits for
 * one to come free.  A thread remembers the lane it last used on a
 * context and tries it first: threads sharing a context settle each on a
 * lane of its own, and taking and giving it back writes only that lane's
 * cache line.  The fields each message writes sit on separate lines
 * (mech_int.h), so the context and its extra lanes are allocated aligned
 * to a line.
 */
#include <sched.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "mech_int.h"

/* RFC 1964 sequence numbers are 32 bits: 2^32 of them, then none. */
#define SEQ32_LIMIT ((uint64_t)1 << 32)

/* RFC 4121 2: which key usage each slot takes, by role. */
static const uint32_t usage_initiator[UK__COUNT] = {
    [UK_SEND_SEAL] = KG_USAGE_INITIATOR_SEAL,
    [UK_SEND_SIGN] = KG_USAGE_INITIATOR_SIGN,
    [UK_RECV_SEAL] = KG_USAGE_ACCEPTOR_SEAL,
    [UK_RECV_SIGN] = KG_USAGE_ACCEPTOR_SIGN,
};
static const uint32_t usage_acceptor[UK__COUNT] = {
    [UK_SEND_SEAL] = KG_USAGE_ACCEPTOR_SEAL,
    [UK_SEND_SIGN] = KG_USAGE_ACCEPTOR_SIGN,
    [UK_RECV_SEAL] = KG_USAGE_INITIATOR_SEAL,
    [UK_RECV_SIGN] = KG_USAGE_INITIATOR_SIGN,
};

/* Far enough below a counter's end that concurrent adds cannot pass it
 * (there are fewer threads than this): below it a number is taken with
 * one atomic add. */
#define SEQ_ADD_MARGIN ((uint64_t)1 << 20)

/* The counter's limit: RFC 1964's 2^32, or RFC 4121's 2^64 - 1 (the
 * last number itself goes through send_exhausted). */
static uint64_t seq_limit(const struct gk5_enctype *et)
{
    return et->rfc1964 ? SEQ32_LIMIT : UINT64_MAX;
}

/* Whether numbers from v on are near enough to the limit that they are
 * taken by compare-and-swap (twice the margin: see gk5i_ctx_next_seq). */
static bool seq_near_end(const struct gk5_enctype *et, uint64_t v)
{
    return v >= seq_limit(et) - 2 * SEQ_ADD_MARGIN;
}

/* The lane this thread last took, per context (a few contexts at once,
 * by address): only a hint, checked by taking the lane's busy flag. */
#define LANE_HINTS 8
static _Thread_local struct {
    const gk5_ctx *ctx;
    uint32_t lane;
} lane_hint[LANE_HINTS];

/* What zalloc_line allocates beyond n: malloc's memory is aligned for
 * max_align_t already. */
#define LINE_SLACK (GK5_CACHE_LINE - alignof(max_align_t))

/* n zeroed bytes at an address aligned to GK5_CACHE_LINE, from
 * gk5i_zalloc (so allocation failures are testable as everywhere else);
 * *mem is what to give gk5i_clear_free with n + LINE_SLACK.  NULL also
 * for memory less aligned than malloc's. */
static void *zalloc_line(size_t n, void **mem)
{
    uint8_t *p = gk5i_zalloc(n + LINE_SLACK);
    uintptr_t off, pad;

    *mem = p;
    if (p == NULL) {
        return NULL;
    }
    off = (uintptr_t)p % GK5_CACHE_LINE;
    pad = off != 0 ? GK5_CACHE_LINE - off : 0;
    if (pad > LINE_SLACK) {
        gk5i_free(p);
        *mem = NULL;
        return NULL;
    }
    return p + pad;
}

/* Numbers for "ctx N" in GK5_TRACE lines. */
static _Atomic uint32_t trace_ids;

uint32_t gk5i_slot_usage(const gk5_ctx *ctx, enum gk5_uk_slot slot)
{
    if (ctx->et->rfc1964) {
        return KG_USAGE_V1_SIGN;
    }
    return (ctx->ctxflags & GK5_CTXF_INITIATOR) ? usage_initiator[slot]
                                                : usage_acceptor[slot];
}

/* RFC 1964 DES3 contexts use the UK_SEND_SEAL slot only (mech_int.h). */
static bool slot_used(const struct gk5_enctype *et, enum gk5_uk_slot slot)
{
    return !et->rfc1964 || slot == UK_SEND_SEAL;
}

/* Flags and counter that fit the enctype's token family. */
static GK5_WUR uint32_t check_shape(const struct gk5_enctype *et,
                                    uint32_t ctxflags, uint64_t send_seq)
{
    const uint32_t known =
        GK5_CTXF_INITIATOR | GK5_CTXF_CFX | GK5_CTXF_ACCEPTOR_SUBKEY;

    if ((ctxflags & ~known) != 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (et->rfc1964) {
        /* RFC 1964 has no acceptor subkey; 2^32 means "used up". */
        if ((ctxflags & (GK5_CTXF_CFX | GK5_CTXF_ACCEPTOR_SUBKEY)) != 0 ||
            send_seq > SEQ32_LIMIT) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
    } else if ((ctxflags & GK5_CTXF_CFX) == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return GK5_OK;
}

static void lane_clear(struct gk5_lane *lane)
{
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        gk5i_ukey_free(lane->uk[slot]);
        lane->uk[slot] = NULL;
    }
}

/* A lane's ukeys over the context's subkeys (they key themselves on first
 * use).  The subkeys never change after the context is made, so this is
 * safe while other lanes are in use. */
static GK5_WUR uint32_t lane_build(const gk5_ctx *ctx, struct gk5_lane *lane)
{
    uint32_t err = GK5_OK;

    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        if (!slot_used(ctx->et, (enum gk5_uk_slot)slot)) {
            continue;
        }
        err = gk5i_ukey_new_borrowed(ctx->et, &ctx->sk[slot], &lane->uk[slot]);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }

cleanup:
    if (err != GK5_OK) {
        lane_clear(lane);
    }
    return err;
}

/* A zeroed context with its locks, window and counters set; no keys. */
static GK5_WUR uint32_t ctx_alloc(const struct gk5_enctype *et,
                                  uint32_t ctxflags, uint32_t endtime,
                                  uint64_t send_seq, gk5_ctx **out)
{
    gk5_ctx *ctx = NULL;
    void *mem = NULL;
    uint32_t err;

    *out = NULL;
    err = check_shape(et, ctxflags, send_seq);
    if (err != GK5_OK) {
        goto cleanup;
    }
    _Static_assert(alignof(gk5_ctx) == GK5_CACHE_LINE,
                   "the context is laid out in cache lines");
#define CTX_LINE(f) (offsetof(gk5_ctx, f) / GK5_CACHE_LINE)
    _Static_assert(CTX_LINE(recv.started) == CTX_LINE(et) &&
                       CTX_LINE(recv.lockfree) == CTX_LINE(et),
                   "the window's flags are on the read-mostly line");
    _Static_assert(CTX_LINE(recv.word) != CTX_LINE(et) &&
                       CTX_LINE(recv.word) ==
                           (offsetof(gk5_ctx, recv.word) + 15) /
                               GK5_CACHE_LINE &&
                       CTX_LINE(recv.word) != CTX_LINE(send_seq) &&
                       CTX_LINE(recv.word) != CTX_LINE(lane0),
                   "the window's word has a line of its own");
#undef CTX_LINE
    ctx = zalloc_line(sizeof(*ctx), &mem);
    if (ctx == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    ctx->mem = mem;
    ctx->et = et;
    ctx->trace_id =
        atomic_fetch_add_explicit(&trace_ids, 1, memory_order_relaxed) + 1;
    ctx->ctxflags = ctxflags;
    ctx->endtime = endtime;
    atomic_init(&ctx->options, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE);
    atomic_init(&ctx->send_seq, send_seq);
    atomic_init(&ctx->send_exhausted, false);
    atomic_init(&ctx->send_near_end, seq_near_end(et, send_seq));
    atomic_init(&ctx->lane0.busy, 0);
    atomic_init(&ctx->lane_count, 0);
    gk5i_seq_init(&ctx->recv, !et->rfc1964);
    (void)pthread_mutex_init(&ctx->lane_lock, NULL);
    *out = ctx;

cleanup:
    return err;
}

/* The end of making a context: if err is GK5_OK, lane 0 built, the context
 * ready and handed to *out; on any failure ctx (may be NULL) freed. */
static GK5_WUR uint32_t ctx_deliver(gk5_ctx *ctx, uint32_t err, gk5_ctx **out)
{
    if (err == GK5_OK) {
        err = lane_build(ctx, &ctx->lane0);
    }
    if (err != GK5_OK) {
        gk5_ctx_free(ctx);
        return err;
    }
    atomic_store_explicit(&ctx->lane_count, 1, memory_order_release);
    *out = ctx;
    return GK5_OK;
}

/* RFC 4121 2 (key usages by direction) and RFC 1964 as MIT does DES3:
 * derive every slot's subkeys from the session key once. */
uint32_t gk5i_ctx_new(int32_t enctype, uint32_t ctxflags, uint32_t endtime,
                      uint64_t send_seq, const uint8_t *key, size_t key_len,
                      gk5_ctx **out)
{
    const struct gk5_enctype *et = NULL;
    const uint32_t *usage;
    gk5_ctx *ctx = NULL;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    /* The table first: rc4, single DES, unknown and not-built enctypes get
     * the table's refusal whatever else is wrong. */
    err = gk5i_enctype_usable(enctype, &et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (key == NULL || key_len != et->key_bytes) {
        err = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    err = ctx_alloc(et, ctxflags, endtime, send_seq, &ctx);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (et->rfc1964) {
        err = gk5i_derive_subkeys_raw(et, key, key_len, KG_USAGE_V1_SIGN,
                                      &ctx->sk[UK_SEND_SEAL]);
        if (err != GK5_OK) {
            goto cleanup;
        }
    } else {
        usage =
            (ctxflags & GK5_CTXF_INITIATOR) ? usage_initiator : usage_acceptor;
        err = gk5i_derive_subkeys_many(et, key, key_len, usage, UK__COUNT,
                                       ctx->sk);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
cleanup:
    return ctx_deliver(ctx, err, out);
}

uint32_t gk5i_ctx_new_from_subkeys(const struct gk5_enctype *et,
                                   uint32_t ctxflags, uint32_t endtime,
                                   uint64_t send_seq,
                                   const struct gk5i_subkeys sk[UK__COUNT],
                                   gk5_ctx **out)
{
    gk5_ctx *ctx = NULL;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (et == NULL || sk == NULL || et->state != GK5_ENCTYPE_SUPPORTED) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    err = ctx_alloc(et, ctxflags, endtime, send_seq, &ctx);
    if (err != GK5_OK) {
        goto cleanup;
    }
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        if (slot_used(et, (enum gk5_uk_slot)slot)) {
            ctx->sk[slot] = sk[slot];
        }
    }
cleanup:
    return ctx_deliver(ctx, err, out);
}

/* Add lane number `seen` (the count this thread saw) and hand it over
 * already marked busy; NULL with *err == 0 if another thread added a lane
 * meanwhile (the caller scans again). */
static struct gk5_lane *lane_add(gk5_ctx *ctx, uint32_t seen, uint32_t *err)
{
    struct gk5_lane *lane = NULL;
    uint32_t count;

    pthread_mutex_lock(&ctx->lane_lock);
    count = atomic_load_explicit(&ctx->lane_count, memory_order_relaxed);
    if (count != seen || count >= GK5_LANES_MAX) {
        goto cleanup;
    }
    if (ctx->more == NULL) {
        ctx->more = zalloc_line((GK5_LANES_MAX - 1) * sizeof(*ctx->more),
                                &ctx->more_mem);
        if (ctx->more == NULL) {
            *err = GK5_ERR_NOMEM;
            goto cleanup;
        }
        for (uint32_t i = 1; i < GK5_LANES_MAX; i++) {
            ctx->more[i - 1].index = i;
            atomic_init(&ctx->more[i - 1].busy, 0);
        }
    }
    *err = lane_build(ctx, gk5i_lane_at(ctx, count));
    if (*err != GK5_OK) {
        goto cleanup;
    }
    /* Busy before it is published: no other thread can take it first. */
    atomic_store_explicit(&gk5i_lane_at(ctx, count)->busy, 1,
                          memory_order_relaxed);
    atomic_store_explicit(&ctx->lane_count, count + 1, memory_order_release);
    lane = gk5i_lane_at(ctx, count);

cleanup:
    pthread_mutex_unlock(&ctx->lane_lock);
    return lane;
}

/* Lane i taken if it was free (a load first: a busy lane's line is not
 * written). */
static bool lane_try(gk5_ctx *ctx, uint32_t i)
{
    struct gk5_lane *lane = gk5i_lane_at(ctx, i);
    uint32_t free_ = 0;

    return atomic_load_explicit(&lane->busy, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(&lane->busy, &free_, 1,
                                                   memory_order_acquire,
                                                   memory_order_relaxed);
}

static unsigned hint_slot(const gk5_ctx *ctx)
{
    return (unsigned)(((uintptr_t)ctx / GK5_CACHE_LINE) % LANE_HINTS);
}

struct gk5_lane *gk5i_lane_acquire(gk5_ctx *ctx, uint32_t *err)
{
    unsigned h = hint_slot(ctx);
    struct gk5_lane *lane = NULL;
    uint32_t count, i;

    *err = GK5_OK;
    count = atomic_load_explicit(&ctx->lane_count, memory_order_acquire);
    if (lane_hint[h].ctx == ctx && lane_hint[h].lane < count &&
        lane_try(ctx, lane_hint[h].lane)) {
        return gk5i_lane_at(ctx, lane_hint[h].lane);
    }
    for (;;) {
        for (i = 0; i < count; i++) {
            if (lane_try(ctx, i)) {
                lane = gk5i_lane_at(ctx, i);
                break;
            }
        }
        if (lane == NULL && count < GK5_LANES_MAX) {
            lane = lane_add(ctx, count, err);
            if (lane == NULL && *err != GK5_OK) {
                return NULL;
            }
        } else if (lane == NULL) {
            sched_yield();
        }
        if (lane != NULL) {
            lane_hint[h].ctx = ctx;
            lane_hint[h].lane = lane->index;
            return lane;
        }
        count = atomic_load_explicit(&ctx->lane_count, memory_order_acquire);
    }
}

void gk5i_lane_release(gk5_ctx *ctx, struct gk5_lane *lane)
{
    if (ctx == NULL || lane == NULL) {
        return;
    }
    atomic_store_explicit(&lane->busy, 0, memory_order_release);
}

/* RFC 4121 4.2.6 / RFC 1964 1.2.1.2: every token gets a new number and
 * numbers never wrap.  RFC 1964's 2^32 numbers end when the counter reads
 * 2^32; RFC 4121's 2^64 cannot all be counted in 64 bits, so the last one,
 * 2^64 - 1, is handed out once through send_exhausted.
 *
 * Far from the end a number costs one atomic add and nothing else on the
 * counter's line (a load before the add would fetch the line once to read
 * and once more to write).  The flag send_near_end, on the line every
 * message reads, says when that stops: the thread whose add returns a
 * number within twice the margin of the limit sets it, and from then on
 * numbers are taken by compare-and-swap against the limit.  Each thread
 * adds at most once more after such a number (its own store then reads
 * back), so the adds end below limit - margin. */
uint32_t gk5i_ctx_next_seq(gk5_ctx *ctx, uint64_t *seq)
{
    uint64_t limit = seq_limit(ctx->et);
    uint64_t v;

    if (!atomic_load_explicit(&ctx->send_near_end, memory_order_relaxed)) {
        *seq =
            atomic_fetch_add_explicit(&ctx->send_seq, 1, memory_order_relaxed);
        if (seq_near_end(ctx->et, *seq)) {
            atomic_store_explicit(&ctx->send_near_end, true,
                                  memory_order_relaxed);
        }
        return GK5_OK;
    }
    *seq = 0;
    v = atomic_load_explicit(&ctx->send_seq, memory_order_relaxed);
    while (v < limit) {
        if (atomic_compare_exchange_weak_explicit(&ctx->send_seq, &v, v + 1,
                                                  memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *seq = v;
            return GK5_OK;
        }
    }
    if (!ctx->et->rfc1964 &&
        !atomic_exchange_explicit(&ctx->send_exhausted, true,
                                  memory_order_relaxed)) {
        *seq = UINT64_MAX;
        return GK5_OK;
    }
    return GK5_ERR_CTX_SEQ_EXHAUSTED;
}

void gk5i_ctx_return_seq(gk5_ctx *ctx, uint64_t seq)
{
    uint64_t next = seq + 1;

    if (seq == UINT64_MAX) {
        /* The last number (RFC 4121 only) is handed out by the flag. */
        atomic_store_explicit(&ctx->send_exhausted, false,
                              memory_order_relaxed);
        return;
    }
    (void)atomic_compare_exchange_strong_explicit(
        &ctx->send_seq, &next, seq, memory_order_relaxed, memory_order_relaxed);
}

uint32_t gk5i_ctx_check_expiry(const gk5_ctx *ctx)
{
    time_t now;

    if (ctx->endtime == 0) {
        return GK5_OK;
    }
    now = time(NULL);
    /* A clock that cannot be read, or reads before 1970, fails closed. */
    if (now < 0 || (uint64_t)now >= ctx->endtime) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("ctx %u: expired: endtime %u, now %lld", ctx->trace_id,
                       (unsigned)ctx->endtime, (long long)now);
        }
        return GK5_ERR_CTX_EXPIRED;
    }
    return GK5_OK;
}

GK5_EXPORT void gk5_ctx_free(gk5_ctx *ctx)
{
    uint32_t count;

    if (ctx == NULL) {
        return;
    }
    if (GK5_TRACE_ON()) {
        gk5i_trace_ctx(ctx, "free");
    }
    count = atomic_load_explicit(&ctx->lane_count, memory_order_acquire);
    for (uint32_t i = 0; i < count; i++) {
        lane_clear(gk5i_lane_at(ctx, i));
    }
    if (ctx->more_mem != NULL) {
        gk5i_free(ctx->more_mem); /* cleared lane by lane above */
    }
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        gk5i_subkeys_wipe(&ctx->sk[slot]);
    }
    gk5i_seq_destroy(&ctx->recv);
    (void)pthread_mutex_destroy(&ctx->lane_lock);
    gk5i_clear_free(ctx->mem, sizeof(*ctx) + LINE_SLACK);
}

/* (Copies the context's fields out one by one, as export.c does into its
 * own layout: the same idiom on different structs.) */
GK5_EXPORT uint32_t gk5_ctx_inquire(uint32_t *minor, const gk5_ctx *ctx,
                                    gk5_ctx_info *info)
{
    uint32_t err = GK5_OK;

    if (info != NULL) {
        memset(info, 0, sizeof(*info));
    }
    if (ctx == NULL) {
        err = GK5_ERR_CTX_NO_CONTEXT;
        goto cleanup;
    }
    if (info == NULL || minor == NULL) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    info->enctype = ctx->et->num;
    info->enctype_name = ctx->et->name;
    info->initiator = (ctx->ctxflags & GK5_CTXF_INITIATOR) != 0;
    info->cfx = (ctx->ctxflags & GK5_CTXF_CFX) != 0;
    info->acceptor_subkey = (ctx->ctxflags & GK5_CTXF_ACCEPTOR_SUBKEY) != 0;
    info->endtime = ctx->endtime;
    info->flags = atomic_load_explicit(&ctx->options, memory_order_relaxed);
    info->send_seq = atomic_load_explicit(&ctx->send_seq, memory_order_relaxed);

cleanup:
    return gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_ctx_inquire_window(uint32_t *minor, const gk5_ctx *ctx,
                                           gk5_ctx_window *window)
{
    uint32_t err = GK5_OK;
    bool started = false;

    if (window != NULL) {
        memset(window, 0, sizeof(*window));
    }
    if (ctx == NULL) {
        err = GK5_ERR_CTX_NO_CONTEXT;
        goto cleanup;
    }
    if (window == NULL || minor == NULL) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    /* The window's lock is all a snapshot changes (as in gk5_ctx_export):
     * the context is const in this interface, not in memory. */
    gk5i_seq_get((struct gk5_seqstate *)(uintptr_t)&ctx->recv, &started,
                 &window->next, &window->bitmap);
    if (started) {
        window->started = 1;
    } else {
        window->next = 0;
        window->bitmap = 0;
    }

cleanup:
    return gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_ctx_set_flags(uint32_t *minor, gk5_ctx *ctx,
                                      uint32_t flags)
{
    uint32_t err = GK5_OK;

    if (ctx == NULL) {
        err = GK5_ERR_CTX_NO_CONTEXT;
        goto cleanup;
    }
    /* No change when the status cannot be reported (minor NULL). */
    if (minor == NULL || (flags & ~(GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)) != 0) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    atomic_store_explicit(&ctx->options, flags, memory_order_relaxed);

cleanup:
    return gk5i_status(minor, err);
}
