/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * GK5_TRACE lines about contexts (import, export, free) and the outcome of
 * per-message calls.  The token layers and the receive window write their
 * own lines where they see the values (header fields, lengths, key usage,
 * the number against the window); src/common/trace.c writes them out.
 *
 * What a line may show: enctype, role and flags, counters, endtime, the
 * window, status names and words.  Never a key, never message bytes.
 * Every function here is called only when GK5_TRACE_ON() (trace.h), so
 * none of this is on the path of a traced-off process.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "mech_int.h"

void gk5i_trace_words(uint32_t err, char *buf, size_t len)
{
    uint32_t code = GK5_ERR_CODE(err);

    if (code == GK5_ERR_ENCTYPE_UNKNOWN || code == GK5_ERR_ENCTYPE_REJECTED ||
        code == GK5_ERR_ENCTYPE_NOT_BUILT) {
        gk5i_enctype_error_words(err, buf, len);
    } else if (code < GK5I_ERR_COUNT) {
        /* Static text for every code but the enctype ones. */
        snprintf(buf, len, "%s", gk5_strerror(err));
    } else {
        snprintf(buf, len, "unknown gk5 error code %u", (unsigned)err);
    }
}

/* endtime and how far it is from now. */
static void add_endtime(struct gk5i_trace_buf *b, uint32_t endtime)
{
    time_t now = time(NULL);

    if (endtime == 0) {
        gk5i_trace_buf_add(b, "endtime none");
    } else if (now >= 0 && (uint64_t)now < endtime) {
        gk5i_trace_buf_add(b, "endtime %u (in %lld s)", (unsigned)endtime,
                           (long long)endtime - (long long)now);
    } else {
        gk5i_trace_buf_add(b, "endtime %u (expired %lld s ago)",
                           (unsigned)endtime,
                           (long long)now - (long long)endtime);
    }
}

/* The receive window: not started (rpc.gssd buffers), waiting for its
 * first number (lucid), or running. */
static void add_window(struct gk5i_trace_buf *b, const gk5_ctx *ctx)
{
    struct gk5_seqstate *recv = (struct gk5_seqstate *)(uintptr_t)&ctx->recv;
    bool started;
    uint64_t next;
    uint64_t bitmap;

    gk5i_seq_get(recv, &started, &next, &bitmap);
    if (!started) {
        gk5i_trace_buf_add(b, "receive window starts at the first token");
    } else if (bitmap == 0) {
        gk5i_trace_buf_add(b, "receive window expects %" PRIu64, next);
    } else {
        gk5i_trace_buf_add(b, "receive window next expected %" PRIu64, next);
    }
}

static void add_options(struct gk5i_trace_buf *b, const gk5_ctx *ctx)
{
    uint32_t options =
        atomic_load_explicit(&ctx->options, memory_order_relaxed);

    /* Every gk5 context can seal and sign: conf and integ always hold. */
    gk5i_trace_buf_add(b, "flags conf+integ%s%s",
                       (options & GK5_CTX_REPLAY) != 0 ? "+replay" : "",
                       (options & GK5_CTX_SEQUENCE) != 0 ? "+sequence" : "");
}

static uint64_t send_seq(const gk5_ctx *ctx)
{
    return atomic_load_explicit(&ctx->send_seq, memory_order_relaxed);
}

/* "enctype NAME (N), initiator|acceptor, RFC 4121|RFC 1964, [no] acceptor
 * subkey, flags ..., send seq S, endtime E, receive window ..." */
static void add_ctx(struct gk5i_trace_buf *b, const gk5_ctx *ctx)
{
    gk5i_trace_buf_add(
        b, "enctype %s (%d), %s, %s, %s, ", ctx->et->name, (int)ctx->et->num,
        (ctx->ctxflags & GK5_CTXF_INITIATOR) != 0 ? "initiator" : "acceptor",
        (ctx->ctxflags & GK5_CTXF_CFX) != 0 ? "RFC 4121" : "RFC 1964",
        (ctx->ctxflags & GK5_CTXF_ACCEPTOR_SUBKEY) != 0 ? "acceptor subkey"
                                                        : "no acceptor subkey");
    add_options(b, ctx);
    gk5i_trace_buf_add(b, ", send seq %" PRIu64 ", ", send_seq(ctx));
    add_endtime(b, ctx->endtime);
    gk5i_trace_buf_add(b, ", ");
    add_window(b, ctx);
}

/* A major status as names: the routine (or calling) error, else each
 * supplementary bit. */
static void add_major(struct gk5i_trace_buf *b, uint32_t major)
{
    const char *sep = "";

    if (GK5_ERROR(major) != 0 || GK5_SUPPLEMENTARY_INFO(major) == 0) {
        gk5i_trace_buf_add(b, "%s", gk5_major_name(major));
        return;
    }
    for (uint32_t bit = 1; bit <= GK5_SUPPLEMENTARY_INFO(major); bit <<= 1) {
        if ((GK5_SUPPLEMENTARY_INFO(major) & bit) != 0) {
            gk5i_trace_buf_add(b, "%s%s", sep, gk5_major_name(bit));
            sep = "+";
        }
    }
}

void gk5i_trace_import(const char *source, const gk5_ctx *ctx, uint32_t err,
                       size_t len)
{
    struct gk5i_trace_buf b;
    char words[256];
    uint32_t minor = 0;

    gk5i_trace_buf_init(&b);
    if (err != GK5_OK || ctx == NULL) {
        gk5i_trace_words(err, words, sizeof(words));
        gk5i_trace_buf_add(&b, "%s: refused: ", source);
        add_major(&b, gk5i_status(&minor, err));
        gk5i_trace_buf_add(&b, ": %s", words);
        if (len != 0) {
            gk5i_trace_buf_add(&b, " (%zu bytes)", len);
        }
    } else {
        gk5i_trace_buf_add(&b, "ctx %u: %s: ", ctx->trace_id, source);
        add_ctx(&b, ctx);
    }
    gk5i_trace("%s", b.text);
}

void gk5i_trace_ctx(const gk5_ctx *ctx, const char *what)
{
    struct gk5i_trace_buf b;

    gk5i_trace_buf_init(&b);
    gk5i_trace_buf_add(
        &b, "ctx %u: %s: send seq %" PRIu64 "%s, ", ctx->trace_id, what,
        send_seq(ctx),
        atomic_load_explicit(&ctx->send_exhausted, memory_order_relaxed)
            ? " (all sent)"
            : "");
    add_window(&b, ctx);
    gk5i_trace("%s", b.text);
}

void gk5i_trace_outcome(const gk5_ctx *ctx, const char *op, uint32_t major,
                        const uint32_t *minor)
{
    struct gk5i_trace_buf b;
    char words[256];

    /* Success, or only supplementary bits: the window said why. */
    if (GK5_ERROR(major) == 0) {
        return;
    }
    gk5i_trace_buf_init(&b);
    if (ctx != NULL) {
        gk5i_trace_buf_add(&b, "ctx %u: ", ctx->trace_id);
    }
    gk5i_trace_buf_add(&b, "%s: ", op);
    add_major(&b, major);
    if (minor != NULL && *minor != GK5_OK) {
        gk5i_trace_words(*minor, words, sizeof(words));
        gk5i_trace_buf_add(&b, ": %s", words);
    }
    gk5i_trace("%s", b.text);
}
