/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's workers and the reply budget: a bounded pool taking
 * complete records from the job queue, running gk5_rpc_server_process,
 * the program and gk5_rpc_server_reply, and handing each job back on the
 * done queue.  Workers never touch a socket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rpcsec/tcp_int.h"

/* Takes n of the reply budget; force for replies that always fit. */
bool gk5i_tcp_reply_take(gk5_rpc_tcp_server *ts, size_t n, bool force)
{
    size_t cur = atomic_load(&ts->reply_used);

    for (;;) {
        if (!force && (n > ts->reply_budget || cur > ts->reply_budget - n)) {
            return false;
        }
        if (atomic_compare_exchange_weak(&ts->reply_used, &cur, cur + n)) {
            return true;
        }
    }
}

void gk5i_tcp_reply_give(gk5_rpc_tcp_server *ts, size_t n)
{
    atomic_fetch_sub(&ts->reply_used, n);
}

static void wipe_buffer(gk5_buffer *b)
{
    zap(b->value, b->length);
    free(b->value);
    b->value = NULL;
    b->length = 0;
}

/* One call: process, dispatch, reply; j->reply is what to send (empty:
 * nothing). */
static void serve_job(gk5_rpc_tcp_server *ts, struct job *j)
{
    gk5_rpc_call *call = NULL;
    gk5_buffer results = {0, NULL};
    uint32_t accept_stat = GK5_RPC_SYSTEM_ERR;
    gk5_rpc_verdict verdict;
    gk5_rpc_error err;
    size_t real;

    gk5i_rpc_err_clear(&err);
    verdict =
        gk5_rpc_server_process(ts->srv, j->msg, j->len, &call, &j->reply, &err);
    if (verdict != GK5_RPC_CALL_DISPATCH && err.code != GK5_RPC_OK) {
        /* Drops and refusals: what an operator needs to see (a replay, a
         * forged header, an rc4 session key at INIT...). */
        gk5i_tcp_log_call(ts, verdict, &err);
    }
    if (verdict == GK5_RPC_CALL_DISPATCH) {
        j->auth = gk5_rpc_call_flavor(call) == GK5_RPC_FLAVOR_RPCSEC_GSS;
        if (ts->dispatch(ts->arg, call, &accept_stat, &results) != 0) {
            gk5_rpc_call_free(call);
            wipe_buffer(&results);
            j->close = true;
            return;
        }
        /* Only SUCCESS carries results (PROG_MISMATCH's are mismatch_info,
         * which the program may give). */
        if (accept_stat != GK5_RPC_SUCCESS &&
            accept_stat != GK5_RPC_PROG_MISMATCH) {
            wipe_buffer(&results);
        }
        if (results.length > SIZE_MAX - REPLY_SLACK ||
            !gk5i_tcp_reply_take(ts, results.length + REPLY_SLACK,
                                 results.length + REPLY_SLACK <= SMALL_REPLY)) {
            char why[160];

            (void)snprintf(why, sizeof(why),
                           "a %zu-byte reply does not fit the reply budget "
                           "(%zu bytes): answered SYSTEM_ERR",
                           results.length, ts->reply_budget);
            gk5i_tcp_log_event(ts, C_REPLY, GK5_RPC_CALL_REPLY,
                               GK5_RPC_E_TOO_BIG, 0, why);
            wipe_buffer(&results);
            accept_stat = GK5_RPC_SYSTEM_ERR;
        } else {
            j->reply_charge = results.length + REPLY_SLACK;
        }
        /* Frees call whatever happens. */
        gk5i_rpc_err_clear(&err);
        if (gk5_rpc_server_reply(ts->srv, call, accept_stat, results.value,
                                 results.length, &j->reply, &err) != 0) {
            gk5i_tcp_log_call(ts, GK5_RPC_CALL_DROP, &err);
        } else if (err.code != GK5_RPC_OK) {
            gk5i_tcp_log_call(ts, GK5_RPC_CALL_REPLY, &err);
        }
        /* The reply holds them now (sealed or copied). */
        wipe_buffer(&results);
    }
    /* The charge becomes the reply's own size (mark included). */
    real = j->reply.length != 0 ? j->reply.length + 4 : 0;
    if (real > j->reply_charge) {
        (void)gk5i_tcp_reply_take(ts, real - j->reply_charge, true);
    } else {
        gk5i_tcp_reply_give(ts, j->reply_charge - real);
    }
    j->reply_charge = real;
}

void *gk5i_tcp_worker_main(void *p)
{
    gk5_rpc_tcp_server *ts = p;

    for (;;) {
        struct job *j;
        bool was_empty;
        uint64_t one = 1;

        (void)pthread_mutex_lock(&ts->qlock);
        while (ts->qhead == NULL && !ts->qstop) {
            (void)pthread_cond_wait(&ts->qcond, &ts->qlock);
        }
        j = ts->qhead;
        if (j == NULL) {
            (void)pthread_mutex_unlock(&ts->qlock);
            break;
        }
        ts->qhead = j->next;
        if (ts->qhead == NULL) {
            ts->qtail = NULL;
        }
        (void)pthread_mutex_unlock(&ts->qlock);

        if (!atomic_load(&j->c->closed)) {
            serve_job(ts, j);
        }
        /* Privacy bodies were decrypted in place. */
        zap(j->msg, j->len);
        free(j->msg);
        j->msg = NULL;
        j->next = NULL;

        (void)pthread_mutex_lock(&ts->dlock);
        was_empty = ts->dhead == NULL;
        if (ts->dtail != NULL) {
            ts->dtail->next = j;
        } else {
            ts->dhead = j;
        }
        ts->dtail = j;
        (void)pthread_mutex_unlock(&ts->dlock);
        if (was_empty) {
            (void)!write(ts->done_fd, &one, sizeof(one));
        }
    }
    return NULL;
}
