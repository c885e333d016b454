/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client: the reader.  Whoever waits reads: one waiter at a
 * time holds the socket, hands every record it reads to the call whose XID
 * it carries (strays are dropped), and passes the socket on once its own
 * reply is in.
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

static void deadline_ts(long long deadline_ms, struct timespec *ts)
{
    ts->tv_sec = (time_t)(deadline_ms / 1000);
    ts->tv_nsec = (long)(deadline_ms % 1000) * 1000000L;
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
    struct call *call =
        len >= 4 ? gk5i_clnt_find_call(c, gk5i_get32(rec)) : NULL;
    if (call != NULL && !call->done) {
        call->rec = rec;
        call->rec_len = len;
        call->done = true;
        rec = NULL;
        gk5i_clnt_call_ended(c, call);
        if (call->abandoned) {
            gk5i_clnt_unlink_call(c, call);
            gk5i_clnt_call_free(call);
        }
        (void)pthread_cond_broadcast(&c->cond);
    }
    (void)pthread_mutex_unlock(&c->lock);
    free(rec); /* a reply to no call of ours: dropped */
    return 0;

broken:
    (void)pthread_mutex_lock(&c->lock);
    gk5i_clnt_set_broken(c, &err);
    (void)pthread_mutex_unlock(&c->lock);
    return -1;
}

/* Wait until ready(c, arg) or deadline, reading when no one else is: every
 * waiter may be the one whose reading lets the others on.  Under lock
 * (released while reading or waiting).  0 when ready, -1 at the deadline
 * or when the connection is broken. */
int gk5i_clnt_wait_until(gk5_rpc_clnt *c, long long deadline,
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
GK5I_RPC_WUR int gk5i_clnt_collect(gk5_rpc_clnt *c, struct call *call,
                                   gk5_rpc_error *err)
{
    (void)pthread_mutex_lock(&c->lock);
    if (gk5i_clnt_wait_until(c, call->deadline, call_done, call) != 0 &&
        !call->done) {
        if (c->broken) {
            call->done = call->failed = true;
        } else {
            /* Given up: its room and number go back now, the reply is
             * dropped if it comes. */
            call->abandoned = true;
            gk5i_clnt_call_ended(c, call);
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
    gk5i_clnt_unlink_call(c, call);
    if (call->failed) {
        if (err != NULL) {
            *err = c->why;
        }
        (void)pthread_mutex_unlock(&c->lock);
        gk5i_clnt_call_free(call);
        return -1;
    }
    (void)pthread_mutex_unlock(&c->lock);
    return 0;
}
