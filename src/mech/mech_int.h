/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Internal shape of a gk5 context, shared by the files of src/mech.
 *
 * Files and what they own:
 *   context.c        gk5i_ctx_new (derive subkeys, lane 0, wipe key),
 *                    lanes, gk5_ctx_free/inquire/set_flags, expiry
 *   import_gssd.c    gk5_ctx_import_gssd, gk5_ctx_import_lucid
 *   export.c         gk5_ctx_export, gk5_ctx_import (own format)
 *   seqstate.c       the receive window (RFC 2743 1.2.3 / 4121 4.2.6)
 *   status.c         errors become major/minor pairs (gk5i_status, on
 *                    src/errors' table); gk5_display_status, gk5_major_name
 *   iov.c            public IOV API: validate buffers, ALLOCATE, dispatch;
 *                    contiguous gk5_wrap/... wrappers, gk5_wrap_size_limit
 *   rfc4121_tokens.c RFC 4121 MIC and Wrap tokens
 *   rfc1964_tokens.c RFC 1964 MIC and Wrap tokens for DES3 (-Ddes3=true)
 *   gss_framing.c    RFC 2743 3.1 framing (gss_framing.h; built always:
 *                    `gk5 inspect` reads framed tokens without DES3)
 *   token_header.h   the RFC 4121 and RFC 1964 token headers, read and
 *                    written field by field (also for `gk5 inspect`)
 * Bytes are read and written through src/common/bytes.h.
 *   mech_trace.c     GK5_TRACE lines about contexts and call outcomes
 *                    (the sink is src/common/trace.c)
 */
#ifndef GK5_MECH_INT_H
#define GK5_MECH_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <gk5/gk5.h>
#include "../common/trace.h"
#include "../crypto/crypto_int.h"

/* RFC 4121 2: key usage numbers. */
#define KG_USAGE_ACCEPTOR_SEAL 22
#define KG_USAGE_ACCEPTOR_SIGN 23
#define KG_USAGE_INITIATOR_SEAL 24
#define KG_USAGE_INITIATOR_SIGN 25
/* RFC 1964 DES3 (MIT): the checksum is HMAC-SHA1-DES3-KD with usage 23. */
#define KG_USAGE_V1_SIGN 23

/* Which prepared key.  RFC 4121: SEAL = our/peer's seal usage (Ke, Ki for
 * sealed Wrap; Kc for integrity-only Wrap), SIGN = sign usage (Kc for MIC).
 * RFC 1964 DES3 contexts populate only UK_SEND_SEAL, from
 * gk5i_derive_subkeys_raw(key, KG_USAGE_V1_SIGN): its Ke is the raw session
 * key (sealing and sequence numbers, both directions) and its Kc is
 * DK(key, 23|0x99) for the checksum; the other slots stay NULL. */
enum gk5_uk_slot {
    UK_SEND_SEAL,
    UK_SEND_SIGN,
    UK_RECV_SEAL,
    UK_RECV_SIGN,
    UK__COUNT
};

/* Threads sharing a context must not write to a cache line another of
 * them reads or writes for every message: the fields written per message
 * (each lane's busy flag, the send counter, the receive window) each start
 * a line of their own.  The context and its extra lanes are allocated
 * aligned to it (context.c). */
#define GK5_CACHE_LINE 64

/* A lane: one set of prepared keys, used by one thread at a time, on a
 * cache line of its own: a thread that keeps using the lane it used last
 * (context.c) writes only that line to take and give it back.  Lane 0 is
 * part of the context; the others (made only when several threads work
 * on one context at once) live in an array allocated the first time a
 * second lane is needed.  A ukey keys its state on its first message, so
 * the steady state allocates nothing per message. */
#define GK5_LANES_MAX 32
struct gk5_lane {
    _Alignas(GK5_CACHE_LINE) _Atomic uint32_t busy; /* 1: a thread holds it */
    uint32_t index;                                 /* its number */
    gk5_ukey *uk[UK__COUNT];
};

/* Receive window: RFC 2743 1.2.3 semantics over a 64-entry bitmap.
 * `next` and `bitmap` form one 16-byte word: where the processor can
 * compare-and-swap 16 bytes (x86-64 with CMPXCHG16B, checked at run
 * time) a verdict reads the word, computes the new one and swaps it in,
 * retrying if another thread changed it first, so threads never wait on
 * each other and every verdict is the one a single thread would have
 * given in the order the swaps took effect; elsewhere the word is guarded
 * by `lock`.  `lock` also orders the window's start (the first
 * authenticated token, when an import carried no receive number), which
 * happens once. */
#define GK5_SEQ_WINDOW 64
__extension__ typedef unsigned __int128 gk5i_u128;
/* Laid out for the context (gk5_ctx.recv): the flags, read by every
 * message and written once, first, so that they can end the context's
 * read-mostly line; the word every new number writes, and the lock beside
 * it (taken per message only where there is no swap), from the next. */
struct gk5_seqstate {
    _Atomic bool started; /* false until the first authenticated token */
    bool wide;            /* 64-bit numbers (RFC 4121) vs 32-bit (RFC 1964) */
    bool lockfree;        /* the word is swapped, not locked */
    _Alignas(16) gk5i_u128 word; /* next | bitmap << 64 */
    pthread_mutex_t lock;
};

/* Flags of a context (gk5_ctx.flags). */
#define GK5_CTXF_INITIATOR 0x01u
#define GK5_CTXF_CFX 0x02u             /* RFC 4121 tokens */
#define GK5_CTXF_ACCEPTOR_SUBKEY 0x04u /* keyed with the acceptor's subkey */

struct gk5_ctx {
    /* Read by every message, written at import (and options by
     * gk5_ctx_set_flags, lane_count when a lane is added, send_near_end
     * once, near the counter's end). */
    const struct gk5_enctype *et;
    uint32_t trace_id;           /* "ctx N" in GK5_TRACE lines (from 1) */
    uint32_t ctxflags;           /* GK5_CTXF_* (fixed at import) */
    _Atomic uint32_t options;    /* GK5_CTX_REPLAY | GK5_CTX_SEQUENCE */
    uint32_t endtime;            /* 0: no expiry */
    _Atomic uint32_t lane_count; /* lanes 0..count-1 are valid */
    /* The send counter is near its end: numbers are taken by compare-
     * and-swap (set once, by the thread that first takes such a number;
     * context.c, gk5i_ctx_next_seq). */
    _Atomic bool send_near_end;
    /* Lanes 1..GK5_LANES_MAX-1, allocated with lane 1 (under lane_lock;
     * published by lane_count); more_mem is the allocation. */
    struct gk5_lane *more;
    void *more_mem;

    /* The receive window straddles two lines: its flags (`started` is
     * read by every message received and written once) end the line
     * above; its word (written by every new number received) and its lock
     * begin the next.  A thread's read of the flags then never fetches
     * the line another thread's number last wrote (a load that costs a
     * trip between the CPUs, and then the swap another; context.c checks
     * the lines when it is built). */
    struct gk5_seqstate recv;

    /* Written by every message sent: one atomic add. */
    _Alignas(GK5_CACHE_LINE) _Atomic uint64_t send_seq; /* next to send */
    /* RFC 4121: the last number, 2^64 - 1, has been sent (send_seq cannot
     * count past it); RFC 1964 contexts stop at send_seq == 2^32 instead. */
    _Atomic bool send_exhausted;
    /* Taken only to add a lane, and the allocation the context lies in
     * (read when it is freed): cold, on this line because it has room (a
     * context's size counts: servers hold many). */
    pthread_mutex_t lane_lock;
    void *mem;

    struct gk5_lane lane0;

    /* Cold: derived subkeys, kept only for gk5_ctx_export(); indexed by
     * slot.  The session key itself is never kept (except that RFC 1964
     * DES3 seals with it: sk[UK_SEND_SEAL].ke). */
    struct gk5i_subkeys sk[UK__COUNT];
};

/* A call that sends asks for the send counter's line as it starts, with a
 * prefetch for writing: where threads share the context the line is then
 * on its way while the call checks its arguments, allocates and borrows a
 * lane, and the counter's atomic add (gk5i_ctx_next_seq) waits less or not
 * at all.  A hint only: it changes nothing a thread can see.  A receiving
 * call does not do the same for the window's word: that line is written
 * at the end of the call, after the checksum, and a line fetched at the
 * start is mostly taken back by another thread before then (measured:
 * verify_mic and unwrap lost 0.03 of shared/own with it). */
static inline void gk5i_ctx_prefetch_send(const gk5_ctx *ctx)
{
    __builtin_prefetch(&ctx->send_seq, 1, 3);
}

/* Lane i (i < lane_count). */
static inline struct gk5_lane *gk5i_lane_at(gk5_ctx *ctx, uint32_t i)
{
    return i == 0 ? &ctx->lane0 : &ctx->more[i - 1];
}

/* ---- context.c ---- */
/* Make a context from a session (or acceptor sub-) key: derives the four
 * slots' subkeys for the role, prepares lane 0, then wipes nothing of the
 * caller's (the caller wipes its copy).  Returns a gk5 error code. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ctx_new(int32_t enctype, uint32_t ctxflags,
                                         uint32_t endtime, uint64_t send_seq,
                                         const uint8_t *key, size_t key_len,
                                         gk5_ctx **out);
/* Make a context from already derived subkeys (gk5_ctx_import). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ctx_new_from_subkeys(
    const struct gk5_enctype *et, uint32_t ctxflags, uint32_t endtime,
    uint64_t send_seq, const struct gk5i_subkeys sk[UK__COUNT], gk5_ctx **out);
/* Borrow a lane for one message; never blocks for long, allocates only when
 * every existing lane is busy.  NULL only if out of memory. */
GK5_HIDDEN struct gk5_lane *gk5i_lane_acquire(gk5_ctx *ctx, uint32_t *err);
GK5_HIDDEN void gk5i_lane_release(gk5_ctx *ctx, struct gk5_lane *lane);
/* 0 or GK5_ERR_CTX_EXPIRED (time(NULL) >= endtime, endtime != 0). */
GK5_HIDDEN uint32_t gk5i_ctx_check_expiry(const gk5_ctx *ctx);
/* Take the next send sequence number (atomic; never reused). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ctx_next_seq(gk5_ctx *ctx, uint64_t *seq);
/* Give back seq, taken by gk5i_ctx_next_seq for a token that was not made
 * (a failure after the number was taken: out of memory, OpenSSL): the
 * counter goes back if seq is still the last number given out.  If another
 * thread has taken a later one meanwhile, seq stays unused (a gap the peer
 * may report; no number is ever sent twice). */
GK5_HIDDEN void gk5i_ctx_return_seq(gk5_ctx *ctx, uint64_t seq);

/* ---- seqstate.c ---- */
GK5_HIDDEN void gk5i_seq_init(struct gk5_seqstate *st, bool wide);
/* For tests: guard the word with the lock even where it could be swapped
 * (call right after gk5i_seq_init). */
GK5_HIDDEN void gk5i_seq_use_lock(struct gk5_seqstate *st);
GK5_HIDDEN void gk5i_seq_destroy(struct gk5_seqstate *st);
/* Call ONLY after the token passed decryption and the integrity check.
 * Records seq and returns the supplementary status bits
 * (GK5_S_DUPLICATE_TOKEN, GK5_S_OLD_TOKEN, GK5_S_UNSEQ_TOKEN,
 * GK5_S_GAP_TOKEN) as filtered by options (GK5_CTX_REPLAY /
 * GK5_CTX_SEQUENCE). */
GK5_HIDDEN uint32_t gk5i_seq_check(struct gk5_seqstate *st, uint32_t options,
                                   uint64_t seq);
/* The same on a context's window with its options, tracing any verdict
 * other than "in order" as operation op ("unwrap", "verify_mic"). */
GK5_HIDDEN uint32_t gk5i_seq_check_ctx(gk5_ctx *ctx, const char *op,
                                       uint64_t seq);
/* Snapshot/restore for export. */
GK5_HIDDEN void gk5i_seq_get(struct gk5_seqstate *st, bool *started,
                             uint64_t *next, uint64_t *bitmap);
GK5_HIDDEN void gk5i_seq_set(struct gk5_seqstate *st, bool started,
                             uint64_t next, uint64_t bitmap);

/* ---- mech_trace.c (call only when GK5_TRACE_ON()) ---- */
/* "ctx N: SOURCE: ..." for an import (source "import_gssd", ...): the
 * context's enctype, role, flags, counters and window; or, when err is not
 * 0 (ctx NULL), the refusal in gk5_strerror's words.  len: the buffer's
 * length, 0 when there is none (lucid). */
GK5_HIDDEN void gk5i_trace_import(const char *source, const gk5_ctx *ctx,
                                  uint32_t err, size_t len);
/* "ctx N: WHAT: send seq S, receive window ...": export, free. */
GK5_HIDDEN void gk5i_trace_ctx(const gk5_ctx *ctx, const char *what);
/* "ctx N: OP: MAJOR_NAME: minor words" for a per-message call that did not
 * return plain GSS_S_COMPLETE (supplementary-only answers are traced by the
 * window, not here).  minor may be NULL. */
GK5_HIDDEN void gk5i_trace_outcome(const gk5_ctx *ctx, const char *op,
                                   uint32_t major, const uint32_t *minor);
/* gk5_strerror's words for err, into buf (gk5_strerror's thread-local
 * buffer, which a caller may still hold, is left alone). */
GK5_HIDDEN void gk5i_trace_words(uint32_t err, char *buf, size_t len);
/* RFC 4121 2: the key usage a slot holds for this context's role. */
GK5_HIDDEN uint32_t gk5i_slot_usage(const gk5_ctx *ctx, enum gk5_uk_slot slot);

/* ---- status.c ---- */
/* The translation point: a gk5 error code -> major status, *minor = err. */
GK5_HIDDEN uint32_t gk5i_status(uint32_t *minor, uint32_t err);

/* The most buffers one IOV call takes (iov.c refuses more with
 * GK5_ERR_BAD_IOV): the token layers translate them into crypto segments in
 * a stack array of this size plus a few, so that no message allocates. */
#define GK5I_IOV_MAX 128

/* ---- token layers (called by iov.c with a validated iov array and a
 * borrowed lane; they return a major status and set *minor via
 * gk5i_status) ----
 * What iov.c has checked: at most GK5I_IOV_MAX buffers, all of known types,
 * at most one each of HEADER, TRAILER, PADDING, STREAM and MIC_TOKEN;
 * wrap_iov/wrap_iov_length: a HEADER, no STREAM or MIC_TOKEN; unwrap_iov:
 * a HEADER, or a STREAM with exactly one DATA and no HEADER/TRAILER/PADDING
 * (the layer points that DATA into the STREAM: gk5_unwrap relies on it);
 * get_mic_iov/verify_mic_iov: a MIC_TOKEN and no HEADER, TRAILER, PADDING or
 * STREAM.  ALLOCATE is done before the call: a buffer the layer writes holds
 * its capacity in buffer.length (an allocated MIC_TOKEN has
 * GK5I_MIC_TOKEN_MAX bytes) and the layer sets the length it used.  Buffers
 * that may be written have non-NULL values whenever their length is not 0. */
/* Capacity iov.c allocates for a MIC_TOKEN with the ALLOCATE flag: more than
 * any MIC gk5 makes (RFC 4121: 16 + a checksum of at most 24 bytes; RFC 1964
 * DES3: 13 bytes of framing + 22 + 20). */
#define GK5I_MIC_TOKEN_MAX 64
struct gk5_tok_ops {
    uint32_t (*wrap_iov)(uint32_t *minor, gk5_ctx *ctx, struct gk5_lane *lane,
                         int conf_req, int *conf_state, gk5_iov_buffer *iov,
                         int iov_count);
    uint32_t (*unwrap_iov)(uint32_t *minor, gk5_ctx *ctx, struct gk5_lane *lane,
                           int *conf_state, gk5_iov_buffer *iov, int iov_count);
    uint32_t (*wrap_iov_length)(uint32_t *minor, const gk5_ctx *ctx,
                                int conf_req, int *conf_state,
                                gk5_iov_buffer *iov, int iov_count);
    uint32_t (*get_mic_iov)(uint32_t *minor, gk5_ctx *ctx,
                            struct gk5_lane *lane, gk5_iov_buffer *iov,
                            int iov_count);
    uint32_t (*verify_mic_iov)(uint32_t *minor, gk5_ctx *ctx,
                               struct gk5_lane *lane, gk5_iov_buffer *iov,
                               int iov_count);
    uint32_t (*wrap_size_limit)(uint32_t *minor, const gk5_ctx *ctx,
                                int conf_req, size_t out_max, size_t *in_max);
    /* Optional (NULL: gk5_unwrap copies the token into its output and
     * unwraps it there as a STREAM): unwrap the whole token in[0..in_len)
     * into out (room for in_len bytes), the message at out[0], without
     * writing to in; *out_len = the message's length.  Statuses as
     * unwrap_iov; on failure out may hold anything (the caller wipes). */
    uint32_t (*unwrap_to)(uint32_t *minor, gk5_ctx *ctx, struct gk5_lane *lane,
                          const uint8_t *in, size_t in_len, uint8_t *out,
                          size_t *out_len, int *conf_state);
};
GK5_HIDDEN extern const struct gk5_tok_ops gk5i_rfc4121_ops;
#ifdef GK5_WITH_DES3
GK5_HIDDEN extern const struct gk5_tok_ops gk5i_rfc1964_ops;
#endif

#endif /* GK5_MECH_INT_H */
