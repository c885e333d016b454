/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client (RFC 5531) on one stream connection, with
 * RPCSEC_GSS (RFC 2203) from client_ctx.c, AUTH_SYS or AUTH_NONE.
 *
 * Many calls are out at once, from one thread (send, then wait) or from
 * many.  Each call is built and sealed on its caller's thread and sent
 * whole under the send lock; replies are matched to their calls by XID.
 * Whoever waits reads: one waiter at a time holds the socket (the reader)
 * and hands every reply it reads to the call it answers, then, once its
 * own has come, passes the socket to another waiter.  A reply is checked
 * (verifier, body) on its own caller's thread, so crypto runs in parallel.
 *
 * Sequence numbers come from the context's flow (gk5i_flow_take), which
 * keeps every call in flight inside the server's window; a call's number
 * ends (gk5i_flow_done) when its reply has been checked, or when it is
 * given up.  Control calls (the INIT legs of a new context) go through the
 * same table, so a context can be remade while other calls are out.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/client_int.h"
#include "rpcsec/rpcsec_int.h"

#define DEFAULT_INFLIGHT 16u
#define MAX_INFLIGHT 1024u
/* RFC 5531 appendix A: machinename<255>, gids<16>. */
#define SYS_NAME_MAX 255u
#define SYS_GIDS_MAX 16u
/* The call header: xid, type, rpcvers, prog, vers, proc; credential and
 * verifier, each a flavour and opaque<400>. */
#define CALL_HEADER_MAX (6 * 4 + 2 * (8 + GK5I_RPC_MAX_AUTH_BYTES))

/* One call between send and wait. */
struct call {
    struct call *next, *prev; /* the client's list of calls not collected */
    uint32_t xid;
    uint32_t proc;
    bool done;      /* rec holds the reply, or failed says why not */
    bool failed;    /* the connection broke */
    bool abandoned; /* its waiter gave up: free it when the reply comes */
    bool control;   /* an INIT leg */
    bool counted;   /* counted in outstanding: sent, no reply yet */
    uint8_t *rec;   /* the reply record */
    size_t rec_len;
    long long deadline;
    /* RPCSEC_GSS: the context, number and service the call was made with
     * (cc NULL for other flavours and for control calls); the number's
     * flow ends when the reply comes or the call is given up. */
    struct gk5i_cctx *cc;
    uint32_t seq;
    gk5_rpc_service svc;
    bool flow_ended;
};

struct gk5_rpc_clnt {
    int fd;
    uint32_t flavor;
    uint32_t max_inflight;
    unsigned call_timeout_ms;
    _Atomic uint32_t next_xid;
    /* AUTH_SYS / AUTH_NONE: the credential body, made once. */
    uint8_t cred[GK5I_RPC_MAX_AUTH_BYTES];
    size_t cred_len;
    /* RPCSEC_GSS: options, the current context and who remakes it. */
    struct gk5i_rpc_est est;
    pthread_mutex_t estab_lock;
    struct gk5i_cctx *cur; /* under lock */
    /* The calls sent and not yet collected, and how many of them have no
     * reply yet (at most max_inflight, one more for a control call). */
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a reply came, room freed, the reader left */
    struct call *calls;
    uint32_t outstanding;
    bool reading; /* a waiter holds the socket */
    bool broken;  /* the connection is unusable: why says so */
    gk5_rpc_error why;
    pthread_mutex_t send_lock;
};

static void deadline_ts(long long deadline_ms, struct timespec *ts)
{
    ts->tv_sec = (time_t)(deadline_ms / 1000);
    ts->tv_nsec = (long)(deadline_ms % 1000) * 1000000L;
}

static GK5I_RPC_WUR int reestablish(gk5_rpc_clnt *c, uint32_t seen_gen,
                                    gk5_rpc_error *err);

/* ---- The table of calls ---- */

/* Under lock. */
static struct call *find_call(gk5_rpc_clnt *c, uint32_t xid)
{
    for (struct call *call = c->calls; call != NULL; call = call->next) {
        if (call->xid == xid) {
            return call;
        }
    }
    return NULL;
}

/* Under lock. */
static void link_call(gk5_rpc_clnt *c, struct call *call)
{
    call->prev = NULL;
    call->next = c->calls;
    if (c->calls != NULL) {
        c->calls->prev = call;
    }
    c->calls = call;
}

/* Under lock. */
static void unlink_call(gk5_rpc_clnt *c, struct call *call)
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
static void call_ended(gk5_rpc_clnt *c, struct call *call)
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
static void call_free(struct call *call)
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
static void set_broken(gk5_rpc_clnt *c, const gk5_rpc_error *why)
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
            call_ended(c, call);
        }
    }
    (void)pthread_cond_broadcast(&c->cond);
}

/* ---- Receiving ---- */

/* As the reader: wait for the socket to be readable until deadline, then
 * read one whole record and hand it to its call.  *timed_out when nothing
 * came in time; -1 when the connection broke.  Called without the lock. */
static int read_one(gk5_rpc_clnt *c, long long deadline, bool *timed_out)
{
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    gk5_rpc_error err;
    uint8_t *rec = NULL;
    size_t len = 0;

    *timed_out = false;
    gk5i_rpc_err_clear(&err);
    long long left = deadline - gk5i_rpc_now_ms();
    if (left <= 0) {
        *timed_out = true;
        return 0;
    }
    int r = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
    if (r < 0 && errno == EINTR) {
        return 0;
    }
    if (r == 0) {
        *timed_out = true;
        return 0;
    }
    if (r < 0) {
        gk5i_rpc_err(&err, GK5_RPC_E_TRANSPORT, "poll: %s", strerror(errno));
        goto broken;
    }
    /* Bytes have come: the rest of the record must follow within the
     * connection's timeout, or the stream is out of step for good. */
    r = gk5i_rpc_read_record(c->fd, c->est.max_body + 4096,
                             (int)c->est.timeout_ms, &rec, &len, &err);
    if (r == 1) {
        gk5i_rpc_err(&err, GK5_RPC_E_TRANSPORT,
                     "the server closed the connection");
    }
    if (r != 0) {
        goto broken;
    }
    (void)pthread_mutex_lock(&c->lock);
    struct call *call = len >= 4 ? find_call(c, gk5i_get32(rec)) : NULL;
    if (call != NULL && !call->done) {
        call->rec = rec;
        call->rec_len = len;
        call->done = true;
        rec = NULL;
        call_ended(c, call);
        if (call->abandoned) {
            unlink_call(c, call);
            call_free(call);
        }
        (void)pthread_cond_broadcast(&c->cond);
    }
    (void)pthread_mutex_unlock(&c->lock);
    free(rec); /* a reply to no call of ours: dropped */
    return 0;

broken:
    (void)pthread_mutex_lock(&c->lock);
    set_broken(c, &err);
    (void)pthread_mutex_unlock(&c->lock);
    return -1;
}

/* Wait until ready(c, arg) or deadline, reading when no one else is: every
 * waiter may be the one whose reading lets the others on.  Under lock
 * (released while reading or waiting).  0 when ready, -1 at the deadline
 * or when the connection is broken. */
static int wait_until(gk5_rpc_clnt *c, long long deadline,
                      bool (*ready)(gk5_rpc_clnt *c, void *arg), void *arg)
{
    struct timespec until;

    deadline_ts(deadline, &until);
    while (!ready(c, arg)) {
        if (c->broken) {
            return -1;
        }
        if (!c->reading) {
            bool timed_out = false;
            c->reading = true;
            (void)pthread_mutex_unlock(&c->lock);
            (void)read_one(c, deadline, &timed_out);
            (void)pthread_mutex_lock(&c->lock);
            c->reading = false;
            (void)pthread_cond_broadcast(&c->cond); /* another may read */
            if (timed_out && !ready(c, arg)) {
                return -1;
            }
            continue;
        }
        if (pthread_cond_timedwait(&c->cond, &c->lock, &until) == ETIMEDOUT &&
            !ready(c, arg)) {
            return -1;
        }
    }
    return 0;
}

static bool call_done(gk5_rpc_clnt *c, void *arg)
{
    (void)c;
    return ((struct call *)arg)->done;
}

/* Wait for call's reply and take it out of the list: 0 with the record in
 * call->rec, or -1 with err, call freed (or left to the reader, which
 * frees it when its reply comes). */
static GK5I_RPC_WUR int collect(gk5_rpc_clnt *c, struct call *call,
                                gk5_rpc_error *err)
{
    (void)pthread_mutex_lock(&c->lock);
    if (wait_until(c, call->deadline, call_done, call) != 0 && !call->done) {
        if (c->broken) {
            call->done = call->failed = true;
        } else {
            /* Given up: its room and number go back now, the reply is
             * dropped if it comes. */
            call->abandoned = true;
            call_ended(c, call);
            (void)pthread_mutex_unlock(&c->lock);
            if (call->control) {
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                             "timed out after %u ms waiting for the server's "
                             "answer to an RPCSEC_GSS_INIT call (xid %08x)",
                             c->est.timeout_ms, call->xid);
            } else {
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                             "timed out after %u ms waiting for the reply to "
                             "procedure %u (xid %08x)",
                             c->call_timeout_ms, call->proc, call->xid);
            }
            if (err != NULL) {
                err->rpc_stat = GK5I_CLNT_TIMEDOUT;
            }
            return -1;
        }
    }
    unlink_call(c, call);
    if (call->failed) {
        if (err != NULL) {
            *err = c->why;
        }
        (void)pthread_mutex_unlock(&c->lock);
        call_free(call);
        return -1;
    }
    (void)pthread_mutex_unlock(&c->lock);
    return 0;
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
        set_broken(c, err);
        (void)pthread_mutex_unlock(&c->lock);
    }
    return r;
}

/* Take room for call (and, for a data call, its context and number, so
 * that no two calls out leave the server's window); the call is in the
 * list from here on.  -1 with err when the connection broke or no room
 * came before the call's deadline. */
static GK5I_RPC_WUR int admit(gk5_rpc_clnt *c, struct call *call, bool gss,
                              gk5_rpc_error *err)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        struct room rm = {.control = call->control, .cc = NULL};
        (void)pthread_mutex_lock(&c->lock);
        if (gss) {
            rm.cc = c->cur;
            atomic_fetch_add(&rm.cc->refs, 1);
        }
        int r = wait_until(c, call->deadline, has_room, &rm);
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
            link_call(c, call);
            (void)pthread_mutex_unlock(&c->lock);
            return 0;
        }
    renew:
        (void)pthread_mutex_unlock(&c->lock);
        /* At MAXSEQ (RFC 2203 5.3.3.1) or expiry: a new context first. */
        uint32_t gen = rm.cc->gen;
        gk5i_cctx_release(rm.cc);
        if (reestablish(c, gen, err) != 0) {
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
static GK5I_RPC_WUR int post(gk5_rpc_clnt *c, struct call *call,
                             const struct iovec *iov, int n, gk5_rpc_error *err)
{
    if (send_record(c, iov, n, err) != 0) {
        (void)pthread_mutex_lock(&c->lock);
        call_ended(c, call);
        unlink_call(c, call);
        (void)pthread_mutex_unlock(&c->lock);
        return -1;
    }
    return 0;
}

/* ---- RPCSEC_GSS contexts ---- */

static struct gk5i_cctx *cctx_get(gk5_rpc_clnt *c)
{
    (void)pthread_mutex_lock(&c->lock);
    struct gk5i_cctx *cc = c->cur;
    atomic_fetch_add(&cc->refs, 1);
    (void)pthread_mutex_unlock(&c->lock);
    return cc;
}

/* A leg of gk5i_rpc_establish on the client's own connection, through the
 * table like any call. */
static GK5I_RPC_WUR int conn_leg(void *arg, const gk5i_rpc_cred *cred,
                                 const gk5_buffer *tok, const char *what,
                                 struct gk5i_leg_reply *leg, gk5_rpc_error *err)
{
    gk5_rpc_clnt *c = arg;
    struct call *call = NULL;
    uint8_t *msg = NULL;
    size_t msg_len = 0;
    int ret = -1;

    call = calloc(1, sizeof(*call));
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    call->xid = atomic_fetch_add(&c->next_xid, 1);
    call->control = true;
    call->deadline = gk5i_rpc_now_ms() + c->est.timeout_ms;
    if (gk5i_rpc_control_call(&c->est, NULL, call->xid, cred, tok, &msg,
                              &msg_len, err) != 0) {
        goto cleanup;
    }
    struct iovec iov = {.iov_base = msg, .iov_len = msg_len};
    if (admit(c, call, false, err) != 0) {
        goto cleanup;
    }
    if (post(c, call, &iov, 1, err) != 0) {
        goto cleanup;
    }
    if (collect(c, call, err) != 0) {
        call = NULL; /* freed, or left to the reader */
        goto cleanup;
    }
    if (gk5i_rpc_leg_reply(call->rec, call->rec_len, call->xid, what, leg,
                           err) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(msg);
    call_free(call);
    return ret;
}

/* Replace the context unless another thread did since seen_gen. */
static GK5I_RPC_WUR int reestablish(gk5_rpc_clnt *c, uint32_t seen_gen,
                                    gk5_rpc_error *err)
{
    struct gk5i_cctx *fresh = NULL, *old = NULL;
    int ret = -1;

    (void)pthread_mutex_lock(&c->estab_lock);
    (void)pthread_mutex_lock(&c->lock);
    uint32_t gen = c->cur->gen;
    (void)pthread_mutex_unlock(&c->lock);
    if (gen != seen_gen) {
        ret = 0;
        goto cleanup;
    }
    if (gk5i_rpc_establish(&c->est, gen + 1, conn_leg, c, &fresh, err) != 0) {
        goto cleanup;
    }
    (void)pthread_mutex_lock(&c->lock);
    old = c->cur;
    c->cur = fresh;
    (void)pthread_mutex_unlock(&c->lock);
    ret = 0;

cleanup:
    (void)pthread_mutex_unlock(&c->estab_lock);
    gk5i_cctx_release(old); /* calls still out hold their own references */
    return ret;
}

/* ---- Calls ---- */

/* The call header through the verifier (RFC 5531 9; RFC 2203 5.3.1):
 * into hdr (CALL_HEADER_MAX), *len its length. */
static GK5I_RPC_WUR int call_header(gk5_rpc_clnt *c, const struct call *call,
                                    uint8_t *hdr, size_t *len,
                                    gk5_rpc_error *err)
{
    struct gk5i_wr w;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t body_len = 0, mic_len = 0;

    gk5i_wr_init(&w, hdr, CALL_HEADER_MAX);
    gk5i_xdr_put_u32(&w, call->xid);
    gk5i_xdr_put_u32(&w, GK5I_RPC_MSG_CALL);
    gk5i_xdr_put_u32(&w, 2); /* rpcvers */
    gk5i_xdr_put_u32(&w, c->est.prog);
    gk5i_xdr_put_u32(&w, c->est.vers);
    gk5i_xdr_put_u32(&w, call->proc);
    if (call->cc == NULL) {
        gk5i_xdr_put_u32(&w, c->flavor);
        gk5i_xdr_put_opaque(&w, c->cred, c->cred_len);
        gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_NONE);
        gk5i_xdr_put_u32(&w, 0);
        *len = CALL_HEADER_MAX - w.left;
        return w.bad ? -1 : 0;
    }
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DATA,
        .seq = call->seq,
        .service = (uint32_t)call->svc,
        .handle = call->cc->handle,
        .handle_len = call->cc->handle_len,
    };
    body_len = gk5i_rpc_cred_encode(&cred, body, sizeof(body));
    gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(&w, body, body_len);
    if (body_len == 0 || w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the RPCSEC_GSS credential does not fit 400 bytes");
        return -1;
    }
    if (gk5i_rpc_mic(call->cc->gss, hdr, CALL_HEADER_MAX - w.left, mic,
                     sizeof(mic), &mic_len, err) != 0) {
        return -1;
    }
    gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(&w, mic, mic_len);
    *len = CALL_HEADER_MAX - w.left;
    return w.bad ? -1 : 0;
}

/* Build, seal and send one call; *out is the call in the table. */
static GK5I_RPC_WUR int start_call(gk5_rpc_clnt *c, uint32_t proc,
                                   const gk5_buffer *args, struct call **out,
                                   gk5_rpc_error *err)
{
    struct call *call = NULL;
    uint8_t hdr[CALL_HEADER_MAX];
    uint8_t *buf = NULL;
    size_t hdr_len = 0, head = 0, tail = 0, cap = 0, off = 0, out_len = 0;
    size_t alen = args != NULL ? args->length : 0;
    bool admitted = false;
    int ret = -1;

    *out = NULL;
    if (alen > 0 && args->value == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "arguments without bytes");
        return -1;
    }
    if (alen > c->est.max_body) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "arguments of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     alen, c->est.max_body);
        return -1;
    }
    call = calloc(1, sizeof(*call));
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    call->proc = proc;
    call->xid = atomic_fetch_add(&c->next_xid, 1);
    call->deadline = gk5i_rpc_now_ms() + c->call_timeout_ms;
    bool gss = c->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS;
    if (admit(c, call, gss, err) != 0) {
        goto cleanup;
    }
    admitted = true;
    if (gss) {
        call->svc = (gk5_rpc_service)atomic_load(&c->est.service);
        if (gk5i_rpc_body_room(call->cc->gss, call->svc, 4 + alen, &head, &tail,
                               err) != 0) {
            goto cleanup;
        }
    }
    /* [head][seq][args][tail]: sealed in place; for other flavours and
     * krb5 the arguments go as they are. */
    cap = head + 4 + alen + tail;
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte call body", cap);
        goto cleanup;
    }
    gk5i_put32(buf + head, call->seq);
    if (alen > 0) {
        memcpy(buf + head + 4, args->value, alen);
    }
    if (call->cc != NULL) {
        if (gk5i_rpc_body_seal(call->cc->gss, call->svc, buf, head, 4 + alen,
                               cap, &off, &out_len, err) != 0) {
            goto cleanup;
        }
    } else {
        off = head + 4;
        out_len = alen;
    }
    if (call_header(c, call, hdr, &hdr_len, err) != 0) {
        goto cleanup;
    }
    struct iovec iov[2] = {{.iov_base = hdr, .iov_len = hdr_len},
                           {.iov_base = buf + off, .iov_len = out_len}};
    if (post(c, call, iov, 2, err) != 0) {
        goto cleanup;
    }
    *out = call;
    call = NULL;
    ret = 0;

cleanup:
    if (buf != NULL) {
        zap(buf, cap); /* the arguments, if sealing stopped half-way */
        free(buf);
    }
    if (call != NULL && admitted) {
        /* Admitted and never sent: its room and number go back. */
        (void)pthread_mutex_lock(&c->lock);
        call_ended(c, call);
        unlink_call(c, call);
        (void)pthread_mutex_unlock(&c->lock);
    }
    call_free(call);
    return ret;
}

/* The reply to call, checked, into results; call freed.  *retry set when
 * the server asked for a new context (RPCSEC_GSS_CREDPROBLEM or
 * CTXPROBLEM, RFC 2203 5.3.3.3) and one has been made. */
static GK5I_RPC_WUR int finish_call(gk5_rpc_clnt *c, struct call *call,
                                    gk5_buffer *results, bool *retry,
                                    gk5_rpc_error *err)
{
    struct gk5i_rpc_reply rep;
    uint8_t *data = NULL;
    size_t data_len = 0, used = 0;
    int ret = -1;

    *retry = false;
    if (collect(c, call, err) != 0) {
        return -1; /* call freed, or left to the reader */
    }
    if (gk5i_rpc_reply_decode(call->rec, call->rec_len, call->xid, &rep, err) !=
        0) {
        goto cleanup;
    }
    if (rep.reply_stat == GK5I_RPC_MSG_DENIED &&
        rep.stat == GK5I_RPC_REJECT_AUTH_ERROR && call->cc != NULL &&
        (rep.why == GK5I_RPCSEC_GSS_CREDPROBLEM ||
         rep.why == GK5I_RPCSEC_GSS_CTXPROBLEM)) {
        int rejected = gk5i_rpc_reply_ok(&rep, "the call", err); /* -1 */
        (void)rejected;
        if (reestablish(c, call->cc->gen, err) == 0) {
            *retry = true;
        }
        goto cleanup;
    }
    if (gk5i_rpc_reply_ok(&rep, "the call", err) != 0) {
        goto cleanup;
    }
    if (call->cc == NULL) {
        data = (uint8_t *)(uintptr_t)rep.res;
        data_len = rep.res_len;
    } else {
        /* RFC 2203 5.3.3.2: the verifier is the MIC of the call's number. */
        if (rep.verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
            gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                         "the reply's verifier is of flavour %u, not "
                         "RPCSEC_GSS (RFC 2203 5.3.3.2)",
                         rep.verf_flavor);
            goto cleanup;
        }
        if (gk5i_rpc_verify_u32(call->cc->gss, call->seq, rep.verf,
                                rep.verf_len, err) != 0) {
            if (err != NULL) {
                char words[sizeof(err->text)];
                memcpy(words, err->text, sizeof(words));
                (void)snprintf(err->text, sizeof(err->text),
                               "the reply's verifier is not the MIC of the "
                               "call's sequence number %u (RFC 2203 "
                               "5.3.3.2): %.400s",
                               call->seq, words);
            }
            goto cleanup;
        }
        if (call->svc == GK5_RPC_SVC_NONE) {
            data = (uint8_t *)(uintptr_t)rep.res;
            data_len = rep.res_len;
        } else if (gk5i_rpc_body_open(call->cc->gss, call->svc, call->seq,
                                      (uint8_t *)(uintptr_t)rep.res,
                                      rep.res_len, c->est.max_body, &data,
                                      &data_len, &used, err) != 0) {
            goto cleanup;
        } else if (used != rep.res_len) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "%zu bytes follow the reply's %s body",
                         rep.res_len - used, gk5_rpc_service_name(call->svc));
            goto cleanup;
        }
    }
    if (data_len > c->est.max_body) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "results of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     data_len, c->est.max_body);
        goto cleanup;
    }
    /* The results move to the front of the record, which becomes theirs. */
    memmove(call->rec, data, data_len);
    zap(call->rec + data_len, call->rec_len - data_len);
    results->value = call->rec;
    results->length = data_len;
    call->rec = NULL;
    ret = 0;

cleanup:
    call_free(call);
    return ret;
}

/* ---- The API ---- */

int gk5_rpc_clnt_send(gk5_rpc_clnt *c, uint32_t proc, const gk5_buffer *args,
                      uint64_t *id, gk5_rpc_error *err)
{
    struct call *call = NULL;

    gk5i_rpc_err_clear(err);
    if (id != NULL) {
        *id = 0;
    }
    if (c == NULL || id == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_send: a client and an id are needed");
        return -1;
    }
    if (start_call(c, proc, args, &call, err) != 0) {
        return -1;
    }
    *id = call->xid;
    return 0;
}

int gk5_rpc_clnt_wait(gk5_rpc_clnt *c, uint64_t id, gk5_buffer *results,
                      gk5_rpc_error *err)
{
    struct call *call = NULL;
    bool retry = false;

    gk5i_rpc_err_clear(err);
    if (results != NULL) {
        results->value = NULL;
        results->length = 0;
    }
    if (c == NULL || results == NULL || id > UINT32_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_wait: a client, a call id and results "
                     "are needed");
        return -1;
    }
    (void)pthread_mutex_lock(&c->lock);
    call = find_call(c, (uint32_t)id);
    if (call != NULL && call->abandoned) {
        call = NULL;
    }
    (void)pthread_mutex_unlock(&c->lock);
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_wait: no call %llu is out",
                     (unsigned long long)id);
        return -1;
    }
    return finish_call(c, call, results, &retry, err);
}

int gk5_rpc_clnt_call(gk5_rpc_clnt *c, uint32_t proc, const gk5_buffer *args,
                      gk5_buffer *results, gk5_rpc_error *err)
{
    gk5i_rpc_err_clear(err);
    if (results != NULL) {
        results->value = NULL;
        results->length = 0;
    }
    if (c == NULL || results == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_call: a client and results are needed");
        return -1;
    }
    /* Sent once more after the server asked for a new context. */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct call *call = NULL;
        bool retry = false;
        if (start_call(c, proc, args, &call, err) != 0) {
            return -1;
        }
        if (finish_call(c, call, results, &retry, err) == 0) {
            return 0;
        }
        if (!retry) {
            return -1;
        }
    }
    return -1;
}

int gk5_rpc_clnt_set_service(gk5_rpc_clnt *c, gk5_rpc_service service)
{
    if (c == NULL || c->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        !gk5i_rpc_service_valid(service)) {
        return -1;
    }
    atomic_store(&c->est.service, (int)service);
    return 0;
}

int gk5_rpc_clnt_inquire(gk5_rpc_clnt *c, gk5_rpc_auth_info *info)
{
    if (info != NULL) {
        memset(info, 0, sizeof(*info));
    }
    if (c == NULL || info == NULL || c->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        return -1;
    }
    struct gk5i_cctx *cc = cctx_get(c);
    gk5i_cctx_describe(cc, (gk5_rpc_service)atomic_load(&c->est.service), info);
    gk5i_cctx_release(cc);
    return 0;
}

/* ---- Creation ---- */

/* authsys_parms (RFC 5531 appendix A). */
static GK5I_RPC_WUR int
sys_cred(gk5_rpc_clnt *c, const gk5_rpc_clnt_options *opts, gk5_rpc_error *err)
{
    char host[SYS_NAME_MAX + 1];
    const char *name = opts->machinename;
    struct gk5i_wr w;

    if (name == NULL) {
        if (gethostname(host, sizeof(host)) != 0) {
            host[0] = '\0';
        }
        host[sizeof(host) - 1] = '\0';
        name = host;
    }
    if (strlen(name) > SYS_NAME_MAX || opts->n_gids > SYS_GIDS_MAX ||
        (opts->n_gids > 0 && opts->gids == NULL)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_create: AUTH_SYS takes a machine name of "
                     "at most %u bytes and at most %u gids",
                     SYS_NAME_MAX, SYS_GIDS_MAX);
        return -1;
    }
    gk5i_wr_init(&w, c->cred, sizeof(c->cred));
    gk5i_xdr_put_u32(&w, (uint32_t)time(NULL)); /* stamp */
    gk5i_xdr_put_string(&w, name);
    gk5i_xdr_put_u32(&w, opts->uid);
    gk5i_xdr_put_u32(&w, opts->gid);
    gk5i_xdr_put_u32(&w, (uint32_t)opts->n_gids);
    for (size_t i = 0; i < opts->n_gids; i++) {
        gk5i_xdr_put_u32(&w, opts->gids[i]);
    }
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the AUTH_SYS credential does not fit 400 bytes");
        return -1;
    }
    c->cred_len = sizeof(c->cred) - w.left;
    return 0;
}

static GK5I_RPC_WUR int random_start(_Atomic uint32_t *xid, gk5_rpc_error *err)
{
    uint32_t v = 0;

    if (gk5i_rpc_random_xid(&v, err) != 0) {
        return -1;
    }
    atomic_init(xid, v);
    return 0;
}

/* A client with its locks, options and credential, not yet connected
 * (fd -1); NULL with err. */
static GK5I_RPC_WUR int clnt_new(uint32_t flavor, const char *target,
                                 gk5_rpc_service service,
                                 const gk5_rpc_clnt_options *opts,
                                 gk5_rpc_clnt **out, gk5_rpc_error *err)
{
    gk5_rpc_clnt *c = NULL;

    *out = NULL;
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    c->fd = -1;
    c->flavor = flavor;
    c->max_inflight =
        opts->max_inflight != 0 ? opts->max_inflight : DEFAULT_INFLIGHT;
    c->call_timeout_ms = opts->call_timeout_ms != 0
                             ? opts->call_timeout_ms
                             : GK5I_RPC_DEFAULT_TIMEOUT_MS;
    if (c->call_timeout_ms > INT_MAX) {
        c->call_timeout_ms = INT_MAX;
    }
    if (pthread_mutex_init(&c->lock, NULL) != 0 ||
        pthread_mutex_init(&c->send_lock, NULL) != 0 ||
        pthread_mutex_init(&c->estab_lock, NULL) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        free(c); /* a failed init leaves nothing to destroy on Linux */
        return -1;
    }
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&c->cond, &ca) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_cond_init failed");
        (void)pthread_mutex_destroy(&c->lock);
        (void)pthread_mutex_destroy(&c->send_lock);
        (void)pthread_mutex_destroy(&c->estab_lock);
        free(c);
        return -1;
    }
    (void)pthread_condattr_destroy(&ca);
    if (gk5i_rpc_est_init(&c->est, "gk5_rpc_clnt_create",
                          flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? target : NULL,
                          service, &opts->gss, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    if (flavor == GK5_RPC_FLAVOR_SYS && sys_cred(c, opts, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    if (random_start(&c->next_xid, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

int gk5_rpc_clnt_create(const struct sockaddr *addr, socklen_t addr_len,
                        uint32_t prog, uint32_t vers, const char *target,
                        gk5_rpc_service service,
                        const gk5_rpc_clnt_options *opts, gk5_rpc_clnt **out,
                        gk5_rpc_error *err)
{
    static const gk5_rpc_clnt_options no_opts;
    gk5_rpc_clnt *c = NULL;
    int ret = -1;

    gk5i_rpc_err_clear(err);
    if (out != NULL) {
        *out = NULL;
    }
    if (opts == NULL) {
        opts = &no_opts;
    }
    uint32_t flavor = opts->flavor;
    if (flavor == 0 && target != NULL) {
        flavor = GK5_RPC_FLAVOR_RPCSEC_GSS;
    }
    if (out == NULL || addr == NULL || addr_len == 0 ||
        addr_len > sizeof(struct sockaddr_storage) ||
        (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
         addr->sa_family != AF_UNIX) ||
        (flavor == GK5_RPC_FLAVOR_RPCSEC_GSS &&
         (target == NULL || target[0] == '\0' ||
          !gk5i_rpc_service_valid(service))) ||
        (flavor != GK5_RPC_FLAVOR_RPCSEC_GSS && flavor != GK5_RPC_FLAVOR_SYS &&
         flavor != GK5_RPC_FLAVOR_NONE) ||
        opts->max_inflight > MAX_INFLIGHT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_create: a TCP or UNIX address, and for "
                     "RPCSEC_GSS a target \"service@host\" and a service "
                     "(krb5, krb5i, krb5p), are needed; the flavour is "
                     "RPCSEC_GSS, AUTH_SYS or AUTH_NONE, max_inflight at "
                     "most %u",
                     MAX_INFLIGHT);
        return -1;
    }
    if (clnt_new(flavor, target, service, opts, &c, err) != 0) {
        return -1;
    }
    memcpy(&c->est.peer, addr, addr_len);
    c->est.peer_len = addr_len;
    c->est.prog = prog;
    c->est.vers = vers;
    if (gk5i_rpc_connect(addr, addr_len, (int)c->est.timeout_ms, &c->fd, err) !=
        0) {
        goto cleanup;
    }
    if (addr->sa_family != AF_UNIX) {
        /* Calls are records sent whole, each waited for. */
        const int one = 1;
        (void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    /* Replies are waited for with poll; sends time out (SO_SNDTIMEO). */
    if (flavor == GK5_RPC_FLAVOR_RPCSEC_GSS &&
        gk5i_rpc_establish(&c->est, 1, conn_leg, c, &c->cur, err) != 0) {
        goto cleanup;
    }
    *out = c;
    c = NULL;
    ret = 0;

cleanup:
    gk5_rpc_clnt_free(c);
    return ret;
}

void gk5_rpc_clnt_free(gk5_rpc_clnt *c)
{
    if (c == NULL) {
        return;
    }
    if (c->cur != NULL && c->fd >= 0 && !c->broken) {
        /* RFC 2203 5.4, a courtesy: on our connection, briefly. */
        gk5i_rpc_destroy_exchange(&c->est, c->cur, c->fd);
    }
    while (c->calls != NULL) {
        struct call *call = c->calls; /* given up, its reply never came */
        unlink_call(c, call);
        call_free(call);
    }
    gk5i_cctx_release(c->cur);
    gk5i_rpc_est_clear(&c->est);
    if (c->fd >= 0) {
        (void)close(c->fd);
    }
    (void)pthread_mutex_destroy(&c->lock);
    (void)pthread_mutex_destroy(&c->send_lock);
    (void)pthread_mutex_destroy(&c->estab_lock);
    (void)pthread_cond_destroy(&c->cond);
    zap(c, sizeof(*c));
    free(c);
}

/* ---- Test seam (tests/fuzz/fuzz_rpc_clnt.c; not exported) ---- */

int gk5i_rpc_clnt_adopt(int fd, gk5_ctx *gss, const uint8_t *handle,
                        size_t handle_len, uint32_t window, gk5_rpc_service svc,
                        size_t max_body, unsigned call_timeout_ms,
                        gk5_rpc_clnt **out, gk5_rpc_error *err)
{
    gk5_rpc_clnt_options opts = {.flavor = GK5_RPC_FLAVOR_RPCSEC_GSS,
                                 .call_timeout_ms = call_timeout_ms};
    gk5_rpc_clnt *c = NULL;

    opts.gss.max_body = max_body;
    gk5i_rpc_err_clear(err);
    *out = NULL;
    if (fd < 0 || !gk5i_rpc_service_valid(svc) ||
        clnt_new(GK5_RPC_FLAVOR_RPCSEC_GSS, "", svc, &opts, &c, err) != 0) {
        gk5_ctx_free(gss);
        return -1;
    }
    if (gk5i_cctx_adopt(gss, handle, handle_len, window, &c->cur, err) != 0) {
        gk5_rpc_clnt_free(c); /* fd is the caller's until here */
        return -1;
    }
    c->fd = fd;
    *out = c;
    return 0;
}
