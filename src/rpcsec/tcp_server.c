/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A small TCP server over gk5_rpc_server: RFC 5531 11 record marking, a
 * thread per connection, the program's dispatch callback for each call.
 *
 * run() polls the listening socket and a self-pipe.  stop() only stores a
 * flag and writes a byte to the pipe (both async-signal-safe); connection
 * threads write a byte too when they end, so run() joins them promptly.
 * On stop, run() shuts every connection down (which wakes a thread blocked
 * reading it), joins every thread, and only then closes the sockets, so a
 * descriptor is never closed under a thread still using it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/util.h"
#include "rpcsec/rpcsec_int.h"

/* Connections served at once; one more is accepted and closed at once, so
 * its client sees the refusal instead of hanging in the backlog. */
#define MAX_CONNECTIONS 1024u
/* After EMFILE and the like, wait this long before accepting again. */
#define ACCEPT_BACKOFF_MS 100

struct conn {
    gk5_rpc_tcp_server *ts;
    int fd;
    pthread_t thread;
    bool finished; /* ts->lock */
    struct conn *next;
    struct conn *prev;
};

struct gk5_rpc_tcp_server {
    gk5_rpc_server *srv;
    int listen_fd;
    gk5_rpc_dispatch_fn dispatch;
    void *arg;
    size_t max_record;
    int idle_ms; /* a connection silent this long is closed */

    int wake[2];        /* self-pipe: [0] polled by run, [1] written */
    atomic_int stopped; /* lock-free: stop() may run in a signal handler */
    atomic_bool running;

    pthread_mutex_t lock;
    struct conn *conns;
    size_t nconns;
    unsigned long refused; /* connections over MAX_CONNECTIONS */

    gk5_rpc_log_fn log; /* calls gk5 refused or dropped, and why */
    void *log_arg;
};

static void wake_run(gk5_rpc_tcp_server *ts)
{
    int saved = errno;
    char b = 'w';

    /* Non-blocking: a full pipe already holds a wake-up. */
    (void)!write(ts->wake[1], &b, 1);
    errno = saved;
}

/* One call: process, dispatch, reply.  0 to go on reading; -1 to close
 * the connection (the program asked, or a reply could not be sent). */
GK5I_RPC_WUR static int serve_one(gk5_rpc_tcp_server *ts, int fd, uint8_t *msg,
                                  size_t len)
{
    gk5_rpc_call *call = NULL;
    gk5_buffer reply = {0, NULL};
    gk5_buffer results = {0, NULL};
    uint32_t accept_stat = GK5_RPC_SYSTEM_ERR;
    gk5_rpc_verdict verdict;
    int rc = -1;

    gk5_rpc_error err;

    gk5i_rpc_err_clear(&err);
    verdict = gk5_rpc_server_process(ts->srv, msg, len, &call, &reply, &err);
    if (ts->log != NULL && verdict != GK5_RPC_CALL_DISPATCH &&
        err.code != GK5_RPC_OK) {
        /* Drops and refusals: what an operator needs to see (a replay, a
         * forged header, an rc4 session key at INIT...). */
        ts->log(ts->log_arg, verdict, &err);
    }
    if (verdict == GK5_RPC_CALL_DROP) {
        return 0; /* RFC 2203 5.3.3.1: nothing is sent */
    }
    if (verdict == GK5_RPC_CALL_DISPATCH) {
        if (ts->dispatch(ts->arg, call, &accept_stat, &results) != 0) {
            gk5_rpc_call_free(call);
            goto cleanup;
        }
        if (accept_stat != GK5_RPC_SUCCESS) {
            /* Only SUCCESS carries results (PROG_MISMATCH's are
             * mismatch_info, which the program may give). */
            if (accept_stat != GK5_RPC_PROG_MISMATCH) {
                zap(results.value, results.length);
                free(results.value);
                results.value = NULL;
                results.length = 0;
            }
        }
        /* Frees call whatever happens. */
        gk5i_rpc_err_clear(&err);
        if (gk5_rpc_server_reply(ts->srv, call, accept_stat, results.value,
                                 results.length, &reply, &err) != 0) {
            if (ts->log != NULL) {
                ts->log(ts->log_arg, GK5_RPC_CALL_DROP, &err);
            }
            goto cleanup;
        }
        if (ts->log != NULL && err.code != GK5_RPC_OK) {
            ts->log(ts->log_arg, GK5_RPC_CALL_REPLY, &err);
        }
    }
    {
        struct iovec iov = {.iov_base = reply.value, .iov_len = reply.length};

        if (gk5i_rpc_write_record(fd, &iov, 1, NULL) != 0) {
            goto cleanup;
        }
    }
    rc = 0;
cleanup:
    /* Results and unprotected replies may be plaintext. */
    zap(results.value, results.length);
    free(results.value);
    gk5_buffer_release(&reply);
    return rc;
}

static void *conn_main(void *p)
{
    struct conn *c = p;
    gk5_rpc_tcp_server *ts = c->ts;

    for (;;) {
        uint8_t *msg = NULL;
        size_t len = 0;
        int rc;

        if (gk5i_rpc_read_record(c->fd, ts->max_record, ts->idle_ms, &msg, &len,
                                 NULL) != 0) {
            break; /* end of stream, error, too big, idle: close */
        }
        rc = serve_one(ts, c->fd, msg, len);
        /* Privacy bodies were decrypted in place. */
        zap(msg, len);
        free(msg);
        if (rc != 0) {
            break;
        }
    }
    /* Tell the peer at once; run() closes the descriptor after joining. */
    (void)shutdown(c->fd, SHUT_RDWR);
    (void)pthread_mutex_lock(&ts->lock);
    c->finished = true;
    (void)pthread_mutex_unlock(&ts->lock);
    wake_run(ts);
    return NULL;
}

/* Unlinks from a doubly linked list, as lru_unlink in server.c does from
 * another (a different struct in another file, with a counter to keep). */
/* ts->lock held. */
static void conn_unlink(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        ts->conns = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    }
    ts->nconns--;
}

/* Join and free the connections whose threads have ended (all of them
 * when all is set, after shutting them down). */
static void reap(gk5_rpc_tcp_server *ts, bool all)
{
    for (;;) {
        struct conn *c;

        (void)pthread_mutex_lock(&ts->lock);
        c = ts->conns;
        while (c != NULL && !all && !c->finished) {
            c = c->next;
        }
        if (c != NULL) {
            conn_unlink(ts, c);
        }
        (void)pthread_mutex_unlock(&ts->lock);
        if (c == NULL) {
            return;
        }
        (void)pthread_join(c->thread, NULL);
        (void)close(c->fd);
        free(c);
    }
}

/* A new connection: a thread for it, or closed at once over the limit.
 * 0, or -1 with err when no thread could be made. */
GK5I_RPC_WUR static int start_conn(gk5_rpc_tcp_server *ts, int fd,
                                   gk5_rpc_error *err)
{
    struct conn *c;
    int e;

    (void)pthread_mutex_lock(&ts->lock);
    if (ts->nconns >= MAX_CONNECTIONS) {
        ts->refused++;
        (void)pthread_mutex_unlock(&ts->lock);
        (void)close(fd);
        return 0;
    }
    (void)pthread_mutex_unlock(&ts->lock);
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        (void)close(fd);
        return 0; /* this client loses; the server goes on */
    }
    c->ts = ts;
    c->fd = fd;
    (void)pthread_mutex_lock(&ts->lock);
    c->next = ts->conns;
    if (ts->conns != NULL) {
        ts->conns->prev = c;
    }
    ts->conns = c;
    ts->nconns++;
    e = pthread_create(&c->thread, NULL, conn_main, c);
    if (e != 0) {
        conn_unlink(ts, c);
    }
    (void)pthread_mutex_unlock(&ts->lock);
    if (e != 0) {
        (void)close(fd);
        free(c);
        if (e != EAGAIN) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_create: %s",
                         strerror(e));
            return -1;
        }
    }
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
    (void)pthread_mutex_init(&ts->lock, NULL);
    atomic_init(&ts->stopped, 0);
    atomic_init(&ts->running, false);
    ts->srv = srv;
    ts->listen_fd = listen_fd;
    ts->dispatch = dispatch;
    ts->arg = arg;
    gk5i_rpc_server_limits(srv, &ts->max_record, &idle);
    ts->idle_ms = idle > INT32_MAX / 1000 ? -1 : (int)(idle * 1000u);
    *out = ts;
    return 0;
}

int gk5_rpc_tcp_server_run(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    bool backoff = false;
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
    for (;;) {
        struct pollfd pfd[2] = {
            {.fd = ts->wake[0], .events = POLLIN},
            {.fd = ts->listen_fd, .events = backoff ? 0 : POLLIN},
        };
        int n;
        int fd;

        if (atomic_load(&ts->stopped)) {
            break;
        }
        n = poll(pfd, 2, backoff ? ACCEPT_BACKOFF_MS : -1);
        if (n < 0 && errno != EINTR) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "poll: %s", strerror(errno));
            goto cleanup;
        }
        backoff = false;
        if (n > 0 && (pfd[0].revents & POLLIN) != 0) {
            char buf[64];

            while (read(ts->wake[0], buf, sizeof(buf)) > 0) {
            }
        }
        reap(ts, false);
        if (n <= 0 || atomic_load(&ts->stopped)) {
            continue;
        }
        if ((pfd[1].revents & (POLLERR | POLLNVAL)) != 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "the listening socket failed");
            goto cleanup;
        }
        if ((pfd[1].revents & POLLIN) == 0) {
            continue;
        }
        fd = accept4(ts->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            switch (errno) {
            case EMFILE:
            case ENFILE:
            case ENOBUFS:
            case ENOMEM:
                /* Out of descriptors: the pending connection would keep
                 * poll ringing; wait for some to close. */
                backoff = true;
                continue;
            case EBADF:
            case EINVAL:
            case ENOTSOCK:
            case EOPNOTSUPP:
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "accept: %s",
                             strerror(errno));
                goto cleanup;
            default:
                continue; /* EINTR, ECONNABORTED, EPROTO...: that one */
            }
        }
        if (start_conn(ts, fd, err) != 0) {
            goto cleanup;
        }
    }
    rc = 0;
cleanup:
    /* Wake every reader (shutdown makes a blocked read return), then
     * join them all before closing anything. */
    (void)pthread_mutex_lock(&ts->lock);
    for (struct conn *c = ts->conns; c != NULL; c = c->next) {
        (void)shutdown(c->fd, SHUT_RDWR);
    }
    (void)pthread_mutex_unlock(&ts->lock);
    reap(ts, true);
    atomic_store(&ts->stopped, 0);
    atomic_store(&ts->running, false);
    return rc;
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
    (void)pthread_mutex_destroy(&ts->lock);
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
