/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server over gk5_rpc_server: RFC 5531 11 record marking, one
 * event loop, a pool of workers (docs/design.md, "The TCP server under a
 * hostile network").
 *
 * The loop (the thread in gk5_rpc_tcp_server_run) owns every connection
 * and every socket: it accepts, reads records from non-blocking sockets,
 * checks each record's first bytes before it takes the body
 * (gk5i_rpc_server_precheck), writes the queued replies, runs the
 * deadlines (a sweep every SWEEP_MS over the table) and closes.  Workers
 * take complete records from the job queue, run gk5_rpc_server_process,
 * the program and gk5_rpc_server_reply, and hand the job back with its
 * reply on the done queue (an eventfd wakes the loop); they never touch a
 * socket.  A closed connection stays allocated (off every list) while a
 * worker holds one of its calls; the loop frees it after the last comes
 * back, and frees nothing in the middle of a batch of epoll events (the
 * dead list), since a later event of the batch may name it.
 *
 * stop() only stores a flag and writes a byte to a self-pipe (both
 * async-signal-safe).
 *
 * Accounting: unauth_used (loop only) counts the bytes held for records
 * not authenticated: a connection's record before and after its check
 * (c->held), its read-ahead (c->stash_held), and the jobs of such records
 * until the loop gets them back (j->unauth).  reply_used (atomic: workers
 * charge it, the loop releases it) counts replies from when they are built
 * until their last byte is written or the connection goes.
 *
 * Here: the loop, and making, options and stopping.  The rooms under it:
 * tcp_accept.c (admitting), tcp_conn.c (connection records and limits),
 * tcp_read.c (records in), tcp_write.c (replies out), tcp_workers.c (the
 * pool and the reply budget), tcp_log.c (coalesced log lines); what they
 * share is in tcp_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/util.h"
#include "rpcsec/tcp_int.h"

/* A job back from a worker. */
static void on_done(gk5_rpc_tcp_server *ts, struct job *j)
{
    struct conn *c = j->c;

    c->inflight--;
    ts->unauth_used -= j->unauth;
    if (atomic_load(&c->closed)) {
        gk5i_tcp_reply_give(ts, j->reply_charge);
        gk5_buffer_release(&j->reply);
        if (c->inflight == 0) {
            c->dead_next = ts->dead;
            ts->dead = c;
        }
        free(j);
        return;
    }
    if (j->close) {
        gk5i_tcp_reply_give(ts, j->reply_charge);
        gk5_buffer_release(&j->reply);
        free(j);
        gk5i_tcp_conn_close(ts, c);
        return;
    }
    if (j->auth) {
        gk5i_tcp_set_authenticated(ts, c);
    }
    if (j->reply.length != 0) {
        gk5i_tcp_conn_reply(ts, c, &j->reply, j->reply_charge);
    } else {
        gk5i_tcp_reply_give(ts, j->reply_charge);
    }
    free(j);
}

/* After anything happened to c: read-ahead, quiet, events. */
static void conn_settle(gk5_rpc_tcp_server *ts, struct conn *c, bool was_full)
{
    if (atomic_load(&c->closed)) {
        return;
    }
    if (was_full && !gk5i_tcp_conn_full(ts, c)) {
        /* The pause was ours: the next record's time starts now. */
        if (!c->has_bytes) {
            c->rec_start = ts->now;
        }
        gk5i_tcp_stash_feed(ts, c);
        if (atomic_load(&c->closed)) {
            return;
        }
    }
    if (gk5i_tcp_conn_quiet(c) && !c->has_bytes) {
        if (c->eof) {
            gk5i_tcp_conn_close(ts, c);
            return;
        }
        c->rec_start = ts->now;
    }
    gk5i_tcp_set_events(ts, c);
}

static void drain_done(gk5_rpc_tcp_server *ts)
{
    struct job *list;
    uint64_t v;

    (void)!read(ts->done_fd, &v, sizeof(v));
    (void)pthread_mutex_lock(&ts->dlock);
    list = ts->dhead;
    ts->dhead = ts->dtail = NULL;
    (void)pthread_mutex_unlock(&ts->dlock);
    while (list != NULL) {
        struct job *j = list;
        struct conn *c = j->c;
        bool was_full = gk5i_tcp_conn_full(ts, c) || c->stash != NULL;

        list = j->next;
        on_done(ts, j);
        conn_settle(ts, c, was_full);
    }
}

/* The deadlines, every SWEEP_MS. */
static void sweep(gk5_rpc_tcp_server *ts)
{
    struct conn *c = ts->oldest;

    while (c != NULL) {
        struct conn *next = c->next;
        uint64_t limit = c->authenticated ? ts->idle_ms : ts->first_record_ms;

        if (c->out_head != NULL && ts->now - c->send_start > ts->send_ms) {
            gk5i_tcp_log_conn(ts, C_SEND, c,
                              "a reply not drained in %llu ms (send_timeout)",
                              (unsigned long long)ts->send_ms);
            gk5i_tcp_conn_close(ts, c);
        } else if ((gk5i_tcp_conn_quiet(c) || c->has_bytes) &&
                   c->stash == NULL && ts->now - c->rec_start > limit) {
            if (c->authenticated) {
                gk5i_tcp_log_conn(ts, C_IDLE, c, "%s in %llu ms (idle_timeout)",
                                  c->has_bytes ? "a record not complete"
                                               : "no record",
                                  (unsigned long long)limit);
            } else {
                gk5i_tcp_log_conn(ts, C_FIRST_RECORD, c,
                                  "%s in %llu ms, unauthenticated "
                                  "(first_record_timeout)",
                                  c->has_bytes ? "a record not complete"
                                               : "no record",
                                  (unsigned long long)limit);
            }
            gk5i_tcp_conn_close(ts, c);
        }
        c = next;
    }
}

static char mark_listen, mark_wake, mark_done;

/* Starts the workers and the epoll set.  0, or -1 with err. */
static int run_setup(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    struct epoll_event ev;
    size_t nb = 64;

    ts->ep = epoll_create1(EPOLL_CLOEXEC);
    ts->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ts->ep < 0 || ts->done_fd < 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "epoll/eventfd: %s",
                     strerror(errno));
        return -1;
    }
    while (nb < ts->max_connections && nb < ((size_t)1 << 20)) {
        nb *= 2;
    }
    ts->nabuckets = nb;
    ts->abuckets = calloc(nb, sizeof(*ts->abuckets));
    ts->scratch = malloc(READ_AHEAD);
    ts->workers = calloc(ts->threads, sizeof(*ts->workers));
    if (ts->abuckets == NULL || ts->scratch == NULL || ts->workers == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    if (getrandom(&ts->aseed, sizeof(ts->aseed), GRND_NONBLOCK) !=
        (ssize_t)sizeof(ts->aseed)) {
        ts->aseed = (uint64_t)mono_ms() * 0x9e3779b97f4a7c15ull;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.ptr = &mark_wake;
    if (epoll_ctl(ts->ep, EPOLL_CTL_ADD, ts->wake[0], &ev) != 0) {
        goto fail;
    }
    ev.data.ptr = &mark_done;
    if (epoll_ctl(ts->ep, EPOLL_CTL_ADD, ts->done_fd, &ev) != 0) {
        goto fail;
    }
    ev.data.ptr = &mark_listen;
    if (epoll_ctl(ts->ep, EPOLL_CTL_ADD, ts->listen_fd, &ev) != 0) {
        goto fail;
    }
    ts->qstop = false;
    for (unsigned i = 0; i < ts->threads; i++) {
        if (pthread_create(&ts->workers[i], NULL, gk5i_tcp_worker_main, ts) !=
            0) {
            break;
        }
        ts->nworkers++;
    }
    if (ts->nworkers == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "no worker thread could start");
        return -1;
    }
    return 0;
fail:
    gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "epoll_ctl: %s", strerror(errno));
    return -1;
}

/* Closes everything, stops the workers, gives every job back. */
static void run_teardown(gk5_rpc_tcp_server *ts)
{
    while (ts->oldest != NULL) {
        gk5i_tcp_conn_close(ts, ts->oldest);
    }
    (void)pthread_mutex_lock(&ts->qlock);
    ts->qstop = true;
    (void)pthread_cond_broadcast(&ts->qcond);
    (void)pthread_mutex_unlock(&ts->qlock);
    for (unsigned i = 0; i < ts->nworkers; i++) {
        (void)pthread_join(ts->workers[i], NULL);
    }
    ts->nworkers = 0;
    /* Workers leave at once when told (queue empty); jobs left in it
     * belong to closed connections. */
    while (ts->qhead != NULL) {
        struct job *j = ts->qhead;

        ts->qhead = j->next;
        zap(j->msg, j->len);
        free(j->msg);
        j->msg = NULL;
        j->next = ts->dhead;
        ts->dhead = j;
    }
    ts->qtail = NULL;
    if (ts->dhead == NULL) {
        ts->dtail = NULL;
    }
    if (ts->done_fd >= 0) {
        while (ts->dhead != NULL) {
            struct job *j = ts->dhead;

            ts->dhead = j->next;
            on_done(ts, j);
        }
        ts->dtail = NULL;
    }
    gk5i_tcp_free_dead(ts);
    if (ts->abuckets != NULL) {
        for (size_t i = 0; i < ts->nabuckets; i++) {
            while (ts->abuckets[i] != NULL) {
                struct addr_slot *s = ts->abuckets[i];

                ts->abuckets[i] = s->next;
                free(s);
            }
        }
    }
    free(ts->abuckets);
    ts->abuckets = NULL;
    free(ts->scratch);
    ts->scratch = NULL;
    free(ts->workers);
    ts->workers = NULL;
    if (ts->ep >= 0) {
        (void)close(ts->ep);
    }
    if (ts->done_fd >= 0) {
        (void)close(ts->done_fd);
    }
    ts->ep = ts->done_fd = -1;
    ts->unauth_used = 0;
    atomic_store(&ts->reply_used, 0);
    gk5i_tcp_log_flush(ts, mono_ms(), true);
}

/* An event on a connection: errors close it, then writing, then reading;
 * a connection closed earlier in the batch is left alone. */
static void on_conn_event(gk5_rpc_tcp_server *ts, struct conn *c, uint32_t e)
{
    bool was_full;

    if (atomic_load(&c->closed)) {
        return;
    }
    was_full = gk5i_tcp_conn_full(ts, c) || c->stash != NULL;
    if ((e & (EPOLLERR | EPOLLHUP)) != 0) {
        gk5i_tcp_conn_close(ts, c);
        return;
    }
    if ((e & EPOLLOUT) != 0 && !gk5i_tcp_conn_flush(ts, c)) {
        return;
    }
    if ((e & EPOLLIN) != 0) {
        gk5i_tcp_conn_readable(ts, c);
    }
    conn_settle(ts, c, was_full);
}

/* An event on the listening socket: newcomers accepted, or accepting
 * paused for ACCEPT_BACKOFF_MS (*backoff_until) when the process is out of
 * descriptors.  0, or -1 with err when the socket failed. */
static int on_listen_event(gk5_rpc_tcp_server *ts, uint32_t e,
                           uint64_t *backoff_until, gk5_rpc_error *err)
{
    int a;

    if ((e & (EPOLLERR | EPOLLHUP)) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "the listening socket failed");
        return -1;
    }
    a = gk5i_tcp_on_accept(ts, err);
    if (a < 0) {
        return -1;
    }
    if (a > 0) {
        (void)epoll_ctl(ts->ep, EPOLL_CTL_DEL, ts->listen_fd, NULL);
        *backoff_until = ts->now + ACCEPT_BACKOFF_MS;
    }
    return 0;
}

/* After a pause, the listening socket back in the epoll set. */
static void listen_resume(gk5_rpc_tcp_server *ts, uint64_t *backoff_until)
{
    struct epoll_event ev;

    if (*backoff_until == 0 || ts->now < *backoff_until) {
        return;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.ptr = &mark_listen;
    (void)epoll_ctl(ts->ep, EPOLL_CTL_ADD, ts->listen_fd, &ev);
    *backoff_until = 0;
}

/* The loop, until stop() (0) or a failure of epoll or the listening
 * socket (-1 with err). */
static int run_loop(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    struct epoll_event evs[64];
    uint64_t next_sweep;
    uint64_t backoff_until = 0;

    ts->now = mono_ms();
    next_sweep = ts->now + SWEEP_MS;
    for (;;) {
        int n;
        int timeout;

        if (atomic_load(&ts->stopped)) {
            return 0;
        }
        ts->now = mono_ms();
        timeout = next_sweep > ts->now ? (int)(next_sweep - ts->now) : 0;
        n = epoll_wait(ts->ep, evs, (int)GK5_ARRAY_SIZE(evs), timeout);
        if (n < 0 && errno != EINTR) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "epoll_wait: %s",
                         strerror(errno));
            return -1;
        }
        ts->now = mono_ms();
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;

            if (p == &mark_wake) {
                char buf[64];

                while (read(ts->wake[0], buf, sizeof(buf)) > 0) {
                }
            } else if (p == &mark_done) {
                drain_done(ts);
            } else if (p == &mark_listen) {
                if (on_listen_event(ts, evs[i].events, &backoff_until, err) !=
                    0) {
                    return -1;
                }
            } else {
                on_conn_event(ts, p, evs[i].events);
            }
        }
        gk5i_tcp_free_dead(ts);
        listen_resume(ts, &backoff_until);
        if (ts->now >= next_sweep) {
            sweep(ts);
            gk5i_tcp_free_dead(ts);
            gk5i_tcp_log_flush(ts, ts->now, false);
            next_sweep = ts->now + SWEEP_MS;
        }
    }
}

int gk5_rpc_tcp_server_run(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    int lflags;
    int rc = -1;

    gk5i_rpc_err_clear(err);
    if (ts == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "gk5_rpc_tcp_server_run: NULL");
        return -1;
    }
    if (atomic_exchange(&ts->running, true)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_tcp_server_run: already running");
        return -1;
    }
    ts->ep = ts->done_fd = -1;
    /* The listening socket is the caller's: non-blocking while we run. */
    lflags = fcntl(ts->listen_fd, F_GETFL);
    if (lflags < 0 || fcntl(ts->listen_fd, F_SETFL, lflags | O_NONBLOCK) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "the listening socket: %s",
                     strerror(errno));
        atomic_store(&ts->running, false);
        return -1;
    }
    if (run_setup(ts, err) == 0) {
        rc = run_loop(ts, err);
    }
    run_teardown(ts);
    (void)fcntl(ts->listen_fd, F_SETFL, lflags);
    atomic_store(&ts->stopped, 0);
    atomic_store(&ts->running, false);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Making, options, stopping                                            */
/* ------------------------------------------------------------------ */

static unsigned default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    if (n < 2) {
        return 2;
    }
    return n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

int gk5_rpc_tcp_server_set_options(gk5_rpc_tcp_server *ts,
                                   const gk5_rpc_tcp_options *opts,
                                   gk5_rpc_error *err)
{
    static const gk5_rpc_tcp_options defaults;

    gk5i_rpc_err_clear(err);
    if (ts == NULL || atomic_load(&ts->running)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_tcp_server_set_options: %s",
                     ts == NULL ? "NULL server" : "the server is running");
        return -1;
    }
    if (opts == NULL) {
        opts = &defaults;
    }
    if (opts->threads > MAX_THREADS) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "threads %u: at most %u",
                     opts->threads, MAX_THREADS);
        return -1;
    }
    if ((opts->unauth_budget != 0 && opts->unauth_budget < MIN_BUDGET) ||
        (opts->reply_budget != 0 && opts->reply_budget < MIN_BUDGET)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "unauth_budget and reply_budget: at least %zu bytes",
                     MIN_BUDGET);
        return -1;
    }
    ts->threads = opts->threads != 0 ? opts->threads : default_threads();
    ts->max_connections = opts->max_connections != 0 ? opts->max_connections
                                                     : DEF_MAX_CONNECTIONS;
    ts->max_per_address = opts->max_per_address != 0 ? opts->max_per_address
                                                     : DEF_MAX_PER_ADDRESS;
    ts->max_inflight =
        opts->max_inflight != 0 ? opts->max_inflight : DEF_MAX_INFLIGHT;
    ts->unauth_budget =
        opts->unauth_budget != 0 ? opts->unauth_budget : DEF_UNAUTH_BUDGET;
    ts->reply_budget =
        opts->reply_budget != 0 ? opts->reply_budget : DEF_REPLY_BUDGET;
    ts->first_record_ms = opts->first_record_timeout_ms != 0
                              ? opts->first_record_timeout_ms
                              : DEF_FIRST_RECORD_MS;
    ts->idle_ms =
        opts->idle_timeout_ms != 0 ? opts->idle_timeout_ms : DEF_IDLE_MS;
    ts->send_ms =
        opts->send_timeout_ms != 0 ? opts->send_timeout_ms : DEF_SEND_MS;
    ts->log_interval_ms = opts->log_interval_ms != 0 ? opts->log_interval_ms
                                                     : DEF_LOG_INTERVAL_MS;
    return 0;
}

int gk5_rpc_tcp_server_create(gk5_rpc_server *srv, int listen_fd,
                              gk5_rpc_dispatch_fn dispatch, void *arg,
                              gk5_rpc_tcp_server **out, gk5_rpc_error *err)
{
    gk5_rpc_tcp_server *ts = NULL;
    uint32_t idle = 0;

    gk5i_rpc_err_clear(err);
    if (out == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_tcp_server_create: out is NULL");
        return -1;
    }
    *out = NULL;
    if (srv == NULL || listen_fd < 0 || dispatch == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_tcp_server_create: needs a server, a "
                     "listening socket and a dispatch function");
        return -1;
    }
    ts = calloc(1, sizeof(*ts));
    if (ts == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    if (pipe2(ts->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "pipe2: %s", strerror(errno));
        free(ts);
        return -1;
    }
    (void)pthread_mutex_init(&ts->log_lock, NULL);
    (void)pthread_mutex_init(&ts->qlock, NULL);
    (void)pthread_mutex_init(&ts->dlock, NULL);
    (void)pthread_cond_init(&ts->qcond, NULL);
    atomic_init(&ts->stopped, 0);
    atomic_init(&ts->running, false);
    atomic_init(&ts->reply_used, 0);
    ts->ep = ts->done_fd = -1;
    ts->srv = srv;
    ts->listen_fd = listen_fd;
    ts->dispatch = dispatch;
    ts->arg = arg;
    gk5i_rpc_server_limits(srv, &ts->max_record, &idle);
    if (gk5_rpc_tcp_server_set_options(ts, NULL, NULL) != 0) {
        /* Not reached: the defaults are valid and ts is not running. */
    }
    *out = ts;
    return 0;
}

void gk5_rpc_tcp_server_stop(gk5_rpc_tcp_server *ts)
{
    if (ts == NULL) {
        return;
    }
    atomic_store(&ts->stopped, 1);
    wake_run(ts);
}

void gk5_rpc_tcp_server_free(gk5_rpc_tcp_server *ts)
{
    if (ts == NULL) {
        return;
    }
    (void)close(ts->wake[0]);
    (void)close(ts->wake[1]);
    (void)pthread_mutex_destroy(&ts->log_lock);
    (void)pthread_mutex_destroy(&ts->qlock);
    (void)pthread_mutex_destroy(&ts->dlock);
    (void)pthread_cond_destroy(&ts->qcond);
    free(ts);
}

void gk5_rpc_tcp_server_set_log(gk5_rpc_tcp_server *ts, gk5_rpc_log_fn log,
                                void *arg)
{
    if (ts == NULL) {
        return;
    }
    ts->log = log;
    ts->log_arg = arg;
}
