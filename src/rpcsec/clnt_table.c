/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client: the table of calls sent and not yet collected,
 * and admission: a new call waits for room among the calls out and, with
 * RPCSEC_GSS, for a number inside the server's window; then its record
 * goes out whole under the send lock.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/clnt_int.h"

/* ---- The table of calls ---- */

/* Under lock. */
struct call *gk5i_clnt_find_call(gk5_rpc_clnt *c, uint32_t xid)
{
    for (struct call *call = c->calls; call != NULL; call = call->next) {
        if (call->xid == xid) {
            return call;
        }
    }
    return NULL;
}

/* Under lock. */
void gk5i_clnt_link_call(gk5_rpc_clnt *c, struct call *call)
{
    call->prev = NULL;
    call->next = c->calls;
    if (c->calls != NULL) {
        c->calls->prev = call;
    }
    c->calls = call;
}

/* Under lock. */
void gk5i_clnt_unlink_call(gk5_rpc_clnt *c, struct call *call)
{
    if (call->prev != NULL) {
        call->prev->next = call->next;
    } else if (c->calls == call) {
        c->calls = call->next;
    }
    if (call->next != NULL) {
        call->next->prev = call->prev;
    }
    call->next = call->prev = NULL;
}

/* The call is no longer out (its reply came, it was given up, or it was
 * never sent): its room and its number's flow are free.  Under lock. */
void gk5i_clnt_call_ended(gk5_rpc_clnt *c, struct call *call)
{
    if (call->counted) {
        call->counted = false;
        c->outstanding--;
        (void)pthread_cond_broadcast(&c->cond);
    }
    if (call->cc != NULL && !call->flow_ended) {
        call->flow_ended = true;
        gk5i_flow_done(call->cc, call->seq);
    }
}

/* Not in the list any more. */
void gk5i_clnt_call_free(struct call *call)
{
    if (call == NULL) {
        return;
    }
    if (call->cc != NULL) {
        if (!call->flow_ended) {
            gk5i_flow_done(call->cc, call->seq);
        }
        gk5i_cctx_release(call->cc);
    }
    if (call->rec != NULL) {
        zap(call->rec, call->rec_len); /* may be sealed plaintext's home */
        free(call->rec);
    }
    free(call);
}

/* The connection cannot go on (a record cut short, the peer gone): every
 * call out fails with why.  Under lock. */
void gk5i_clnt_set_broken(gk5_rpc_clnt *c, const gk5_rpc_error *why)
{
    if (!c->broken) {
        c->broken = true;
        c->why = *why;
        c->why.code = GK5_RPC_E_TRANSPORT;
    }
    for (struct call *call = c->calls; call != NULL; call = call->next) {
        if (!call->done) {
            call->done = true;
            call->failed = true;
            gk5i_clnt_call_ended(c, call);
        }
    }
    (void)pthread_cond_broadcast(&c->cond);
}

/* ---- Sealing buffers ---- */

/* A kept buffer of at least cap bytes: one that is large enough, else one
 * grown (once: it keeps its new size), else a new one.  The first calls
 * pay for the memory, later ones of the same size none. */
struct kept_buf *gk5i_clnt_buf_take(gk5_rpc_clnt *c, size_t cap,
                                    gk5_rpc_error *err)
{
    struct kept_buf *b, **at;

    (void)pthread_mutex_lock(&c->lock);
    for (at = &c->kept; *at != NULL && (*at)->cap < cap; at = &(*at)->next) {
    }
    if (*at == NULL) {
        at = &c->kept; /* none large enough: grow the first */
    }
    b = *at;
    if (b != NULL) {
        *at = b->next;
        b->next = NULL;
    }
    (void)pthread_mutex_unlock(&c->lock);
    if (b == NULL) {
        b = calloc(1, sizeof(*b));
        if (b == NULL) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
            return NULL;
        }
    }
    if (b->cap < cap) {
        /* What it holds is ciphertext or wiped: nothing to keep. */
        free(b->p);
        b->cap = 0;
        b->p = calloc(1, cap); /* no byte of it left undefined */
        if (b->p == NULL) {
            free(b);
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                         "out of memory for a %zu-byte call body", cap);
            return NULL;
        }
        b->cap = cap;
    }
    return b;
}

void gk5i_clnt_buf_give(gk5_rpc_clnt *c, struct kept_buf *b)
{
    if (b == NULL) {
        return;
    }
    if (b->cap > KEPT_MAX) {
        free(b->p); /* ciphertext, or wiped */
        free(b);
        return;
    }
    (void)pthread_mutex_lock(&c->lock);
    b->next = c->kept;
    c->kept = b;
    (void)pthread_mutex_unlock(&c->lock);
}

void gk5i_clnt_bufs_free(gk5_rpc_clnt *c)
{
    while (c->kept != NULL) {
        struct kept_buf *b = c->kept;
        c->kept = b->next;
        zap(b->p, b->cap);
        free(b->p);
        free(b);
    }
}

/* ---- Sending ---- */

/* What a new call waits for: room among the calls out and, for a data
 * call, a number inside the server's window (gk5i_flow_ready). */
struct room {
    bool control;
    struct gk5i_cctx *cc;
};

static bool has_room(gk5_rpc_clnt *c, void *arg)
{
    const struct room *rm = arg;
    uint32_t limit = c->max_inflight + (rm->control ? 1u : 0u);

    return c->broken || (c->outstanding < limit &&
                         (rm->cc == NULL || gk5i_flow_ready(rm->cc)));
}

static GK5I_RPC_WUR int send_record(gk5_rpc_clnt *c, const struct iovec *iov,
                                    int n, gk5_rpc_error *err)
{
    int r;

    (void)pthread_mutex_lock(&c->send_lock);
    r = gk5i_rpc_write_record(c->fd, iov, n, err);
    (void)pthread_mutex_unlock(&c->send_lock);
    if (r != 0) {
        /* Part of a record may have gone: nothing after it would parse. */
        (void)pthread_mutex_lock(&c->lock);
        gk5i_clnt_set_broken(c, err);
        (void)pthread_mutex_unlock(&c->lock);
    }
    return r;
}

/* Take room for call (and, for a data call, its context and number, so
 * that no two calls out leave the server's window); the call is in the
 * list from here on.  -1 with err when the connection broke or no room
 * came before the call's deadline. */
GK5I_RPC_WUR int gk5i_clnt_admit(gk5_rpc_clnt *c, struct call *call, bool gss,
                                 gk5_rpc_error *err)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        struct room rm = {.control = call->control, .cc = NULL};
        (void)pthread_mutex_lock(&c->lock);
        if (gss) {
            rm.cc = c->cur;
            atomic_fetch_add(&rm.cc->refs, 1);
        }
        int r = gk5i_clnt_wait_until(c, call->deadline, has_room, &rm);
        if (r != 0 || c->broken) {
            if (c->broken) {
                if (err != NULL) {
                    *err = c->why;
                }
            } else {
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                             "timed out waiting for room among the %u calls "
                             "in flight",
                             c->max_inflight);
            }
            (void)pthread_mutex_unlock(&c->lock);
            gk5i_cctx_release(rm.cc);
            return -1;
        }
        if (rm.cc == NULL ||
            (!gk5i_cctx_expired(rm.cc) &&
             atomic_load(&rm.cc->next_seq) < GK5I_RPC_DATA_SEQ_END)) {
            if (rm.cc != NULL) {
                /* Inside the window (has_room): this does not wait. */
                uint64_t n = gk5i_flow_take(rm.cc);
                if (n >= GK5I_RPC_DATA_SEQ_END) {
                    goto renew;
                }
                call->cc = rm.cc;
                call->seq = (uint32_t)n;
            }
            call->counted = true;
            c->outstanding++;
            gk5i_clnt_link_call(c, call);
            (void)pthread_mutex_unlock(&c->lock);
            return 0;
        }
    renew:
        (void)pthread_mutex_unlock(&c->lock);
        /* At MAXSEQ (RFC 2203 5.3.3.1) or expiry: a new context first. */
        uint32_t gen = rm.cc->gen;
        gk5i_cctx_release(rm.cc);
        if (gk5i_clnt_reestablish(c, gen, err) != 0) {
            return -1;
        }
    }
    gk5i_rpc_err(err, GK5_RPC_E_EXPIRED,
                 "every new RPCSEC_GSS context for %s was expired or used up "
                 "at once",
                 c->est.target);
    return -1;
}

/* Send call's record; on failure the call is taken back out (not freed). */
GK5I_RPC_WUR int gk5i_clnt_post(gk5_rpc_clnt *c, struct call *call,
                                const struct iovec *iov, int n,
                                gk5_rpc_error *err)
{
    if (send_record(c, iov, n, err) != 0) {
        (void)pthread_mutex_lock(&c->lock);
        gk5i_clnt_call_ended(c, call);
        gk5i_clnt_unlink_call(c, call);
        (void)pthread_mutex_unlock(&c->lock);
        return -1;
    }
    return 0;
}
