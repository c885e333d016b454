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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/util.h"
#include "rpcsec/rpcsec_int.h"

/* Defaults (gk5_rpc_tcp_options). */
#define DEF_MAX_CONNECTIONS 1024u
#define DEF_MAX_PER_ADDRESS 64u
#define DEF_MAX_INFLIGHT 128u
#define DEF_UNAUTH_BUDGET ((size_t)16 * 1024 * 1024)
#define DEF_REPLY_BUDGET ((size_t)256 * 1024 * 1024)
#define DEF_FIRST_RECORD_MS 10000u
#define DEF_IDLE_MS 300000u
#define DEF_SEND_MS 30000u
#define DEF_LOG_INTERVAL_MS 10000u
#define MAX_THREADS 1024u
#define MIN_BUDGET ((size_t)64 * 1024)

/* After EMFILE and the like, wait this long before accepting again. */
#define ACCEPT_BACKOFF_MS 100
/* Connections accepted per wake-up, so reading goes on under a flood. */
#define ACCEPT_BURST 64
/* Bytes one connection may read per wake-up, so others get their turn. */
#define READ_BURST ((size_t)1024 * 1024)
/* Read-ahead of an authenticated connection (one read); others read at
 * most GK5I_RPC_HEADER_MAX at a time. */
#define READ_AHEAD ((size_t)64 * 1024)
/* A body fragment with this much left is read straight into the record. */
#define DIRECT_MIN ((size_t)16 * 1024)
/* Replies this small always fit the reply budget (max_inflight bounds
 * them); room beyond the program's results for the reply's header,
 * verifier and wrap token framing. */
#define SMALL_REPLY ((size_t)1024)
#define REPLY_SLACK ((size_t)4096)
/* The deadline sweep, and how often coalesced log lines are flushed. */
#define SWEEP_MS 250
/* writev pieces per send: a mark and a reply each. */
#define SEND_IOV 16

#define LAST_FRAGMENT 0x80000000u
#define FRAGMENT_LEN 0x7fffffffu

/* ---- Log causes: connection events, then calls (verdict x code) ---- */

enum cause {
    C_EVICTED,      /* closed to admit a newcomer */
    C_FULL,         /* newcomer closed: every connection authenticated */
    C_PER_ADDRESS,  /* newcomer closed: max_per_address */
    C_FIRST_RECORD, /* unauthenticated: first_record_timeout */
    C_IDLE,         /* authenticated: idle_timeout */
    C_SEND,         /* send_timeout */
    C_UNAUTH,       /* unauth_budget */
    C_REPLY,        /* reply_budget */
    C_TOO_BIG,      /* a record over its limit */
    C_ACCEPT,       /* accept failed (out of descriptors...) */
    C_NOMEM,        /* out of memory for a connection */
    C_CONN_COUNT,
    C_CALLS = C_CONN_COUNT /* + verdict(0 REPLY, 1 DROP) * COUNT + code */
};
#define N_CAUSES (C_CALLS + 2 * GK5_RPC_E__COUNT)

struct logslot {
    uint64_t next_ok;    /* ms: the next line may be written from then */
    uint64_t since;      /* ms: when the events counted began */
    unsigned long count; /* events not yet in a line */
    gk5_rpc_verdict verdict;
    int code;
    uint32_t auth_stat;
    char text[320]; /* the last event's words */
};

/* ---- Connections ---- */

struct out {
    struct out *next;
    uint8_t mark[4];
    uint8_t *data;
    size_t len;
    size_t off;    /* of mark + data, written */
    size_t charge; /* of reply_used */
};

enum rmode {
    RM_HEAD,   /* the first bytes, before the check */
    RM_BODY,   /* checked: up to limit */
    RM_DISCARD /* refused: read and thrown away */
};

struct addr_slot {
    struct addr_slot *next;
    uint8_t key[16];
    size_t count;
};

struct conn {
    int fd;
    atomic_bool closed; /* workers read it */
    struct addr_slot *addr;
    char peer[64];

    struct conn *prev, *next;   /* ts->oldest..newest: every open one */
    struct conn *uprev, *unext; /* ts->uoldest..unewest: unauthenticated */
    bool authenticated;
    struct conn *dead_next;

    uint32_t events; /* registered with epoll */
    bool eof;        /* the peer shut its side: close once quiet */

    /* The record being read. */
    uint8_t mark[4];
    unsigned mark_have;
    bool in_frag;
    bool last;
    size_t frag_left;
    enum rmode mode;
    size_t limit; /* bytes the whole record may have */
    bool charged; /* its bytes count in unauth_used */
    uint8_t *buf;
    size_t len, cap;
    size_t held;    /* of unauth_used, for buf */
    bool has_bytes; /* a byte of it (mark included) arrived */
    uint64_t rec_start;

    /* Read-ahead that came after a record while the connection is at
     * max_inflight. */
    uint8_t *stash;
    size_t stash_len, stash_off;
    size_t stash_held;

    unsigned inflight; /* jobs out with the workers */
    struct out *out_head, *out_tail;
    size_t nout;
    uint64_t send_start;
};

struct job {
    struct job *next;
    struct conn *c;
    uint8_t *msg;
    size_t len;
    size_t unauth; /* of unauth_used */
    gk5_buffer reply;
    size_t reply_charge;
    bool auth;  /* an RPCSEC_GSS call was dispatched */
    bool close; /* the program asked */
};

struct gk5_rpc_tcp_server {
    gk5_rpc_server *srv;
    int listen_fd;
    gk5_rpc_dispatch_fn dispatch;
    void *arg;
    size_t max_record;

    /* Options, defaults resolved. */
    unsigned threads;
    size_t max_connections;
    size_t max_per_address;
    size_t max_inflight;
    size_t unauth_budget;
    size_t reply_budget;
    uint64_t first_record_ms;
    uint64_t idle_ms;
    uint64_t send_ms;
    uint64_t log_interval_ms;

    int wake[2];        /* self-pipe: [0] in epoll, [1] written by stop */
    atomic_int stopped; /* lock-free: stop() may run in a signal handler */
    atomic_bool running;

    gk5_rpc_log_fn log;
    void *log_arg;
    pthread_mutex_t log_lock;
    struct logslot logs[N_CAUSES];

    /* Run state: the loop's, except where a lock says. */
    int ep;
    int done_fd; /* eventfd: workers -> loop */
    pthread_t *workers;
    unsigned nworkers;
    pthread_mutex_t qlock; /* the job queue */
    pthread_cond_t qcond;
    struct job *qhead, *qtail;
    bool qstop;
    pthread_mutex_t dlock; /* the done queue */
    struct job *dhead, *dtail;

    struct conn *oldest, *newest;
    struct conn *uoldest, *unewest;
    size_t nconns;
    struct conn *dead;
    size_t unauth_used;
    _Atomic size_t reply_used;
    struct addr_slot **abuckets;
    size_t nabuckets;
    uint64_t aseed;
    uint8_t *scratch;
    uint64_t now; /* ms, refreshed once per wake-up */
};

static uint64_t mono_ms(void)
{
    struct timespec t;

    (void)clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void wake_run(gk5_rpc_tcp_server *ts)
{
    int saved = errno;
    char b = 'w';

    /* Non-blocking: a full pipe already holds a wake-up. */
    (void)!write(ts->wake[1], &b, 1);
    errno = saved;
}

/* ------------------------------------------------------------------ */
/* Rate-limited, coalesced log lines                                    */
/* ------------------------------------------------------------------ */

/* log_lock held.  Writes slot's line: its last words and, when it stands
 * for more than one event, how many. */
static void log_emit_locked(gk5_rpc_tcp_server *ts, struct logslot *ls,
                            uint64_t now)
{
    gk5_rpc_error e;

    memset(&e, 0, sizeof(e));
    e.code = ls->code;
    e.auth_stat = ls->auth_stat;
    if (ls->count > 1) {
        uint64_t secs = (now - ls->since + 999) / 1000;

        (void)snprintf(e.text, sizeof(e.text),
                       "%s (%lu like this in the last %llu s)", ls->text,
                       ls->count, (unsigned long long)(secs ? secs : 1));
    } else {
        (void)snprintf(e.text, sizeof(e.text), "%s", ls->text);
    }
    ls->count = 0;
    ls->next_ok = now + ts->log_interval_ms;
    ts->log(ts->log_arg, ls->verdict, &e);
}

static void log_event(gk5_rpc_tcp_server *ts, unsigned cause,
                      gk5_rpc_verdict verdict, int code, uint32_t auth_stat,
                      const char *text)
{
    struct logslot *ls;
    uint64_t now;

    if (ts->log == NULL || cause >= N_CAUSES) {
        return;
    }
    now = mono_ms();
    (void)pthread_mutex_lock(&ts->log_lock);
    ls = &ts->logs[cause];
    if (ls->count == 0) {
        ls->since = now;
    }
    ls->count++;
    ls->verdict = verdict;
    ls->code = code;
    ls->auth_stat = auth_stat;
    (void)snprintf(ls->text, sizeof(ls->text), "%s", text);
    if (now >= ls->next_ok) {
        log_emit_locked(ts, ls, now);
    }
    (void)pthread_mutex_unlock(&ts->log_lock);
}

/* A call gk5 refused or dropped. */
static void log_call(gk5_rpc_tcp_server *ts, gk5_rpc_verdict verdict,
                     const gk5_rpc_error *err)
{
    int code = err->code >= 0 && err->code < GK5_RPC_E__COUNT ? err->code : 0;
    unsigned cause = C_CALLS +
                     (verdict == GK5_RPC_CALL_DROP ? GK5_RPC_E__COUNT : 0) +
                     (unsigned)code;

    log_event(ts, cause, verdict, err->code, err->auth_stat,
              err->text[0] != '\0' ? err->text : gk5_rpc_strerror(code));
}

/* A connection a limit or deadline closed (or refused). */
__attribute__((format(printf, 4, 5))) static void
log_conn(gk5_rpc_tcp_server *ts, unsigned cause, const struct conn *c,
         const char *fmt, ...)
{
    char why[200];
    char text[320];
    va_list ap;

    if (ts->log == NULL) {
        return;
    }
    va_start(ap, fmt);
    (void)vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    (void)snprintf(text, sizeof(text), "closed a connection%s%s: %s",
                   c != NULL && c->peer[0] != '\0' ? " from " : "",
                   c != NULL ? c->peer : "", why);
    log_event(ts, cause, GK5_RPC_CALL_DROP, GK5_RPC_E_TRANSPORT, 0, text);
}

/* The lines whose interval has passed with events still counted (all of
 * them with force). */
static void log_flush(gk5_rpc_tcp_server *ts, uint64_t now, bool force)
{
    if (ts->log == NULL) {
        return;
    }
    (void)pthread_mutex_lock(&ts->log_lock);
    for (unsigned i = 0; i < N_CAUSES; i++) {
        struct logslot *ls = &ts->logs[i];

        if (ls->count != 0 && (force || now >= ls->next_ok)) {
            log_emit_locked(ts, ls, now);
        }
    }
    (void)pthread_mutex_unlock(&ts->log_lock);
}

/* ------------------------------------------------------------------ */
/* Budgets                                                              */
/* ------------------------------------------------------------------ */

/* Takes n of the reply budget; force for replies that always fit. */
static bool reply_take(gk5_rpc_tcp_server *ts, size_t n, bool force)
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

static void reply_give(gk5_rpc_tcp_server *ts, size_t n)
{
    atomic_fetch_sub(&ts->reply_used, n);
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

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
        log_call(ts, verdict, &err);
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
            !reply_take(ts, results.length + REPLY_SLACK,
                        results.length + REPLY_SLACK <= SMALL_REPLY)) {
            char why[160];

            (void)snprintf(why, sizeof(why),
                           "a %zu-byte reply does not fit the reply budget "
                           "(%zu bytes): answered SYSTEM_ERR",
                           results.length, ts->reply_budget);
            log_event(ts, C_REPLY, GK5_RPC_CALL_REPLY, GK5_RPC_E_TOO_BIG, 0,
                      why);
            wipe_buffer(&results);
            accept_stat = GK5_RPC_SYSTEM_ERR;
        } else {
            j->reply_charge = results.length + REPLY_SLACK;
        }
        /* Frees call whatever happens. */
        gk5i_rpc_err_clear(&err);
        if (gk5_rpc_server_reply(ts->srv, call, accept_stat, results.value,
                                 results.length, &j->reply, &err) != 0) {
            log_call(ts, GK5_RPC_CALL_DROP, &err);
        } else if (err.code != GK5_RPC_OK) {
            log_call(ts, GK5_RPC_CALL_REPLY, &err);
        }
        /* The reply holds them now (sealed or copied). */
        wipe_buffer(&results);
    }
    /* The charge becomes the reply's own size (mark included). */
    real = j->reply.length != 0 ? j->reply.length + 4 : 0;
    if (real > j->reply_charge) {
        (void)reply_take(ts, real - j->reply_charge, true);
    } else {
        reply_give(ts, j->reply_charge - real);
    }
    j->reply_charge = real;
}

static void *worker_main(void *p)
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

/* ------------------------------------------------------------------ */
/* The connection table                                                 */
/* ------------------------------------------------------------------ */

static void addr_key(const struct sockaddr_storage *ss, uint8_t key[16],
                     bool *ok)
{
    *ok = true;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

        /* As IPv4-mapped IPv6, so both spellings count together. */
        memset(key, 0, 10);
        key[10] = 0xff;
        key[11] = 0xff;
        memcpy(key + 12, &a->sin_addr, 4);
    } else if (ss->ss_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
    } else {
        *ok = false; /* UNIX sockets: one "address", not counted */
    }
}

static size_t addr_bucket(const gk5_rpc_tcp_server *ts, const uint8_t *key)
{
    /* FNV-1a from a random seed: a peer choosing its addresses cannot
     * aim them at one chain. */
    uint64_t h = 0xcbf29ce484222325ull ^ ts->aseed;

    for (int i = 0; i < 16; i++) {
        h = (h ^ key[i]) * 0x100000001b3ull;
    }
    return (size_t)(h ^ (h >> 29)) & (ts->nabuckets - 1);
}

/* The slot of key, made if need be (NULL: no memory). */
static struct addr_slot *addr_get(gk5_rpc_tcp_server *ts, const uint8_t *key)
{
    size_t b = addr_bucket(ts, key);
    struct addr_slot *s = ts->abuckets[b];

    while (s != NULL && memcmp(s->key, key, 16) != 0) {
        s = s->next;
    }
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL) {
            return NULL;
        }
        memcpy(s->key, key, 16);
        s->next = ts->abuckets[b];
        ts->abuckets[b] = s;
    }
    return s;
}

static void addr_put(gk5_rpc_tcp_server *ts, struct addr_slot *s)
{
    struct addr_slot **pp;

    if (s == NULL || --s->count != 0) {
        return;
    }
    pp = &ts->abuckets[addr_bucket(ts, s->key)];
    while (*pp != s) {
        pp = &(*pp)->next;
    }
    *pp = s->next;
    free(s);
}

static void unauth_unlink(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (c->uprev != NULL) {
        c->uprev->unext = c->unext;
    } else {
        ts->uoldest = c->unext;
    }
    if (c->unext != NULL) {
        c->unext->uprev = c->uprev;
    } else {
        ts->unewest = c->uprev;
    }
    c->uprev = c->unext = NULL;
}

static void set_events(gk5_rpc_tcp_server *ts, struct conn *c)
{
    uint32_t want = 0;
    struct epoll_event ev;

    if (atomic_load(&c->closed)) {
        return;
    }
    if (!c->eof && c->stash == NULL &&
        c->inflight + c->nout < ts->max_inflight) {
        want |= EPOLLIN;
    }
    if (c->out_head != NULL) {
        want |= EPOLLOUT;
    }
    if (want == c->events) {
        return;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = want;
    ev.data.ptr = c;
    if (epoll_ctl(ts->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0) {
        c->events = want;
    }
}

static void free_outs(gk5_rpc_tcp_server *ts, struct conn *c)
{
    while (c->out_head != NULL) {
        struct out *o = c->out_head;

        c->out_head = o->next;
        reply_give(ts, o->charge);
        zap(o->data, o->len); /* unprotected replies may be plaintext */
        free(o->data);
        free(o);
    }
    c->out_tail = NULL;
    c->nout = 0;
}

static void drop_record(gk5_rpc_tcp_server *ts, struct conn *c)
{
    zap(c->buf, c->len);
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
    ts->unauth_used -= c->held;
    c->held = 0;
}

/* Closes c's socket and lets go of everything it holds but the jobs out
 * with the workers; c itself goes on the dead list once none is. */
static void conn_close(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (atomic_load(&c->closed)) {
        return;
    }
    atomic_store(&c->closed, true);
    (void)epoll_ctl(ts->ep, EPOLL_CTL_DEL, c->fd, NULL);
    (void)close(c->fd);
    c->fd = -1;
    drop_record(ts, c);
    free(c->stash);
    c->stash = NULL;
    ts->unauth_used -= c->stash_held;
    c->stash_held = 0;
    free_outs(ts, c);
    if (!c->authenticated) {
        unauth_unlink(ts, c);
    }
    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        ts->oldest = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    } else {
        ts->newest = c->prev;
    }
    ts->nconns--;
    addr_put(ts, c->addr);
    c->addr = NULL;
    if (c->inflight == 0) {
        c->dead_next = ts->dead;
        ts->dead = c;
    }
}

static void free_dead(gk5_rpc_tcp_server *ts)
{
    while (ts->dead != NULL) {
        struct conn *c = ts->dead;

        ts->dead = c->dead_next;
        free(c);
    }
}

static void set_authenticated(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (!c->authenticated) {
        c->authenticated = true;
        unauth_unlink(ts, c);
    }
}

/* n more bytes of the unauthenticated budget for c.  When it is full, the
 * oldest unauthenticated connections holding some (not c) are closed to
 * make room; if that is not enough, c is.  false when c was closed. */
static bool unauth_take(gk5_rpc_tcp_server *ts, struct conn *c, size_t n)
{
    while (n > ts->unauth_budget || ts->unauth_used > ts->unauth_budget - n) {
        struct conn *v = ts->uoldest;

        while (v != NULL && (v == c || v->held + v->stash_held == 0)) {
            v = v->unext;
        }
        if (v == NULL || n > ts->unauth_budget) {
            log_conn(ts, C_UNAUTH, c,
                     "the budget for unauthenticated records (%zu bytes) "
                     "is spent",
                     ts->unauth_budget);
            conn_close(ts, c);
            return false;
        }
        log_conn(ts, C_UNAUTH, v,
                 "the budget for unauthenticated records (%zu bytes) is "
                 "spent: the oldest unauthenticated connection holding "
                 "some goes",
                 ts->unauth_budget);
        conn_close(ts, v);
    }
    ts->unauth_used += n;
    return true;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */
/* ------------------------------------------------------------------ */

/* Writes what c's queue holds until the socket is full.  false when c was
 * closed (the peer went away). */
static bool conn_flush(gk5_rpc_tcp_server *ts, struct conn *c)
{
    while (c->out_head != NULL) {
        struct iovec iov[SEND_IOV];
        struct msghdr mh;
        int n = 0;
        ssize_t sent;
        size_t left;

        for (struct out *o = c->out_head; o != NULL && n + 2 <= SEND_IOV;
             o = o->next) {
            size_t off = o->off;

            if (off < 4) {
                iov[n].iov_base = o->mark + off;
                iov[n].iov_len = 4 - off;
                n++;
                off = 4;
            }
            if (o->len > off - 4) {
                iov[n].iov_base = o->data + (off - 4);
                iov[n].iov_len = o->len - (off - 4);
                n++;
            }
        }
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        sent = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0 && errno == ENOTSOCK) {
            sent = writev(c->fd, iov, n);
        }
        if (sent < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                break;
            }
            conn_close(ts, c);
            return false;
        }
        left = (size_t)sent;
        while (left > 0 && c->out_head != NULL) {
            struct out *o = c->out_head;
            size_t rest = 4 + o->len - o->off;

            if (left < rest) {
                o->off += left;
                break;
            }
            left -= rest;
            c->out_head = o->next;
            if (c->out_head == NULL) {
                c->out_tail = NULL;
            }
            c->nout--;
            /* Released as soon as written. */
            reply_give(ts, o->charge);
            zap(o->data, o->len);
            free(o->data);
            free(o);
            c->send_start = ts->now; /* the next one starts now */
        }
    }
    return true;
}

/* Queues reply (taken over, charge included) on c and writes what fits. */
static void conn_reply(gk5_rpc_tcp_server *ts, struct conn *c,
                       gk5_buffer *reply, size_t charge)
{
    struct out *o = calloc(1, sizeof(*o));

    if (o == NULL) {
        reply_give(ts, charge);
        gk5_buffer_release(reply);
        return; /* as a drop: the client retries */
    }
    gk5i_put32(o->mark, LAST_FRAGMENT | (uint32_t)reply->length);
    o->data = reply->value;
    o->len = reply->length;
    o->charge = charge;
    reply->value = NULL;
    reply->length = 0;
    if (c->out_tail != NULL) {
        c->out_tail->next = o;
    } else {
        c->out_head = o;
        c->send_start = ts->now;
    }
    c->out_tail = o;
    c->nout++;
    (void)conn_flush(ts, c);
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */
/* ------------------------------------------------------------------ */

static void record_reset(gk5_rpc_tcp_server *ts, struct conn *c)
{
    c->mark_have = 0;
    c->in_frag = false;
    c->last = false;
    c->frag_left = 0;
    c->mode = RM_HEAD;
    c->limit = ts->max_record;
    c->charged = true;
    c->has_bytes = false;
    c->rec_start = ts->now;
}

static bool quiet(const struct conn *c)
{
    return c->inflight == 0 && c->out_head == NULL;
}

/* Room for n more bytes of the record: grows geometrically with what
 * arrived, never to the length the record declares.  false when c was
 * closed (budget, memory). */
static bool record_room(gk5_rpc_tcp_server *ts, struct conn *c, size_t n)
{
    size_t want;
    uint8_t *bigger;

    if (c->cap - c->len >= n) {
        return true;
    }
    if (c->cap == 0) {
        /* A small record gets what it declares, a large one its first
         * bytes' worth: most calls fit in one allocation. */
        want = c->frag_left < GK5I_RPC_HEADER_MAX ? c->frag_left
                                                  : GK5I_RPC_HEADER_MAX;
        if (want < n) {
            want = n;
        }
    } else {
        want = c->cap;
        while (want - c->len < n) {
            want *= 2;
        }
    }
    if (want > c->limit) {
        want = c->limit > c->len + n ? c->limit : c->len + n;
    }
    if (c->charged && !unauth_take(ts, c, want - c->cap)) {
        return false;
    }
    bigger = realloc(c->buf, want);
    if (bigger == NULL) {
        if (c->charged) {
            ts->unauth_used -= want - c->cap;
        }
        log_conn(ts, C_NOMEM, c, "out of memory for a %zu-byte record", want);
        conn_close(ts, c);
        return false;
    }
    if (c->charged) {
        c->held += want - c->cap;
    }
    c->buf = bigger;
    c->cap = want;
    return true;
}

/* The first bytes are in: what do they earn?  false when c was closed. */
static bool record_check(gk5_rpc_tcp_server *ts, struct conn *c)
{
    gk5_buffer reply = {0, NULL};
    gk5_rpc_error err;
    size_t limit = 0;
    enum gk5i_rpc_pre pre;

    pre =
        gk5i_rpc_server_precheck(ts->srv, c->buf, c->len, &limit, &reply, &err);
    switch (pre) {
    case GK5I_RPC_PRE_AUTH:
        /* Authenticated: the body is not the unauthenticated budget's. */
        ts->unauth_used -= c->held;
        c->held = 0;
        c->charged = false;
        /* fall through */
    case GK5I_RPC_PRE_INIT:
    case GK5I_RPC_PRE_UNAUTH:
        c->mode = RM_BODY;
        c->limit = limit;
        if (c->len + c->frag_left > c->limit) {
            log_conn(ts, C_TOO_BIG, c,
                     "a record of more than the %zu bytes its call may "
                     "have",
                     c->limit);
            conn_close(ts, c);
            return false;
        }
        return true;
    case GK5I_RPC_PRE_REPLY:
    case GK5I_RPC_PRE_DROP:
        break;
    }
    log_call(ts,
             pre == GK5I_RPC_PRE_REPLY ? GK5_RPC_CALL_REPLY : GK5_RPC_CALL_DROP,
             &err);
    drop_record(ts, c);
    c->mode = RM_DISCARD;
    if (reply.length != 0) {
        size_t charge = reply.length + 4;

        (void)reply_take(ts, charge, true); /* small: a rejection */
        conn_reply(ts, c, &reply, charge);
    }
    return !atomic_load(&c->closed);
}

/* The record is complete: to the workers (or thrown away). */
static void record_done(gk5_rpc_tcp_server *ts, struct conn *c)
{
    struct job *j;

    if (c->mode == RM_DISCARD) {
        record_reset(ts, c);
        return;
    }
    j = calloc(1, sizeof(*j));
    if (j == NULL || (c->buf == NULL && (c->buf = malloc(1)) == NULL)) {
        free(j);
        log_conn(ts, C_NOMEM, c, "out of memory for a call");
        conn_close(ts, c);
        return;
    }
    j->c = c;
    j->msg = c->buf;
    j->len = c->len;
    j->unauth = c->held; /* the loop gives it back with the job */
    c->buf = NULL;
    c->len = c->cap = 0;
    c->held = 0;
    c->inflight++;
    record_reset(ts, c);

    (void)pthread_mutex_lock(&ts->qlock);
    if (ts->qtail != NULL) {
        ts->qtail->next = j;
    } else {
        ts->qhead = j;
    }
    ts->qtail = j;
    (void)pthread_cond_signal(&ts->qcond);
    (void)pthread_mutex_unlock(&ts->qlock);
}

/* At max_inflight: no more records until some are answered. */
static bool full(const gk5_rpc_tcp_server *ts, const struct conn *c)
{
    return c->inflight + c->nout >= ts->max_inflight;
}

/* Feeds n received bytes through the record state machine.  Returns how
 * many it took: all of them, unless c filled up at a record's end (the
 * rest is read-ahead for later) or was closed. */
static size_t feed(gk5_rpc_tcp_server *ts, struct conn *c, const uint8_t *p,
                   size_t n)
{
    size_t used = 0;

    while (used < n) {
        size_t take;

        if (atomic_load(&c->closed)) {
            return n;
        }
        if (!c->has_bytes && full(ts, c)) {
            return used;
        }
        c->has_bytes = true;
        if (!c->in_frag) {
            uint32_t word;

            take = 4 - c->mark_have;
            if (take > n - used) {
                take = n - used;
            }
            memcpy(c->mark + c->mark_have, p + used, take);
            c->mark_have += (unsigned)take;
            used += take;
            if (c->mark_have < 4) {
                continue;
            }
            word = gk5i_get32(c->mark);
            c->mark_have = 0;
            c->in_frag = true;
            c->last = (word & LAST_FRAGMENT) != 0;
            c->frag_left = word & FRAGMENT_LEN;
            if (c->mode != RM_DISCARD &&
                (c->frag_left > c->limit || c->len > c->limit - c->frag_left)) {
                log_conn(ts, C_TOO_BIG, c,
                         "a record of more than the %zu bytes allowed",
                         c->limit);
                conn_close(ts, c);
                return n;
            }
        } else {
            take = c->frag_left < n - used ? c->frag_left : n - used;
            if (c->mode == RM_HEAD && take > GK5I_RPC_HEADER_MAX - c->len) {
                take = GK5I_RPC_HEADER_MAX - c->len;
            }
            if (c->mode != RM_DISCARD) {
                if (!record_room(ts, c, take)) {
                    return n;
                }
                memcpy(c->buf + c->len, p + used, take);
                c->len += take;
            }
            used += take;
            c->frag_left -= take;
        }
        if (c->in_frag && c->frag_left == 0) {
            c->in_frag = false;
            if (c->last) {
                record_done(ts, c);
                continue;
            }
        }
        if (c->mode == RM_HEAD && c->len == GK5I_RPC_HEADER_MAX &&
            !record_check(ts, c)) {
            return n;
        }
    }
    return used;
}

/* Keeps what feed left over (c is full) for when c has room again. */
static bool stash_rest(gk5_rpc_tcp_server *ts, struct conn *c, const uint8_t *p,
                       size_t n)
{
    if (!unauth_take(ts, c, n)) {
        return false;
    }
    c->stash = malloc(n);
    if (c->stash == NULL) {
        ts->unauth_used -= n;
        log_conn(ts, C_NOMEM, c, "out of memory for read-ahead");
        conn_close(ts, c);
        return false;
    }
    memcpy(c->stash, p, n);
    c->stash_len = n;
    c->stash_off = 0;
    c->stash_held = n;
    return true;
}

/* The read-ahead first, if c has room for it. */
static void stash_feed(gk5_rpc_tcp_server *ts, struct conn *c)
{
    size_t used;

    if (c->stash == NULL || full(ts, c)) {
        return;
    }
    used = feed(ts, c, c->stash + c->stash_off, c->stash_len - c->stash_off);
    if (atomic_load(&c->closed)) {
        return;
    }
    c->stash_off += used;
    if (c->stash_off == c->stash_len) {
        free(c->stash);
        c->stash = NULL;
        ts->unauth_used -= c->stash_held;
        c->stash_held = 0;
    }
}

static void conn_readable(gk5_rpc_tcp_server *ts, struct conn *c)
{
    size_t budget = READ_BURST;

    while (budget > 0 && !atomic_load(&c->closed) && c->stash == NULL &&
           !full(ts, c)) {
        ssize_t got;

        if (c->in_frag && c->mode == RM_BODY && c->frag_left >= DIRECT_MIN) {
            /* A large body: straight into the record. */
            size_t want = c->frag_left < budget ? c->frag_left : budget;

            if (!record_room(ts, c, want < DIRECT_MIN ? want : DIRECT_MIN)) {
                return;
            }
            if (want > c->cap - c->len) {
                want = c->cap - c->len;
            }
            got = read(c->fd, c->buf + c->len, want);
            if (got > 0) {
                c->len += (size_t)got;
                c->frag_left -= (size_t)got;
                budget -= (size_t)got < budget ? (size_t)got : budget;
                if (c->frag_left == 0) {
                    c->in_frag = false;
                    if (c->last) {
                        record_done(ts, c);
                    }
                }
                continue;
            }
        } else {
            size_t want = c->authenticated ? READ_AHEAD : GK5I_RPC_HEADER_MAX;
            size_t used;

            got = read(c->fd, ts->scratch, want);
            if (got > 0) {
                budget -= (size_t)got < budget ? (size_t)got : budget;
                used = feed(ts, c, ts->scratch, (size_t)got);
                if (!atomic_load(&c->closed) && used < (size_t)got) {
                    (void)stash_rest(ts, c, ts->scratch + used,
                                     (size_t)got - used);
                }
                continue;
            }
        }
        if (got == 0) {
            /* The peer shut its side: mid-record that is the end; else
             * the replies still owed go out first. */
            if (c->has_bytes || quiet(c)) {
                conn_close(ts, c);
            } else {
                c->eof = true;
            }
            return;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            conn_close(ts, c);
        }
        return;
    }
}

/* ------------------------------------------------------------------ */
/* Accepting                                                            */
/* ------------------------------------------------------------------ */

static void peer_text(const struct sockaddr_storage *ss, char *out, size_t n)
{
    char host[INET6_ADDRSTRLEN];

    out[0] = '\0';
    if (ss->ss_family == AF_INET &&
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, host,
                  sizeof(host)) != NULL) {
        (void)snprintf(out, n, "%s:%u", host,
                       ntohs(((const struct sockaddr_in *)ss)->sin_port));
    } else if (ss->ss_family == AF_INET6 &&
               inet_ntop(AF_INET6,
                         &((const struct sockaddr_in6 *)ss)->sin6_addr, host,
                         sizeof(host)) != NULL) {
        (void)snprintf(out, n, "[%s]:%u", host,
                       ntohs(((const struct sockaddr_in6 *)ss)->sin6_port));
    }
}

/* A new connection: in the table, evicting the oldest unauthenticated one
 * when it is full, or closed at once. */
static void admit(gk5_rpc_tcp_server *ts, int fd,
                  const struct sockaddr_storage *ss)
{
    struct conn *c;
    struct addr_slot *slot = NULL;
    uint8_t key[16];
    bool keyed;
    char peer[64];
    struct epoll_event ev;
    int one = 1;

    peer_text(ss, peer, sizeof(peer));
    addr_key(ss, key, &keyed);
    if (keyed) {
        slot = addr_get(ts, key);
        if (slot == NULL) {
            (void)close(fd);
            return;
        }
        if (slot->count >= ts->max_per_address) {
            struct conn tmp;

            memset(&tmp, 0, sizeof(tmp));
            memcpy(tmp.peer, peer, sizeof(peer));
            log_conn(ts, C_PER_ADDRESS, &tmp,
                     "%zu connections from this address already "
                     "(max_per_address)",
                     slot->count);
            (void)close(fd);
            return;
        }
        slot->count++; /* held while we decide */
    }
    if (ts->nconns >= ts->max_connections) {
        if (ts->uoldest == NULL) {
            struct conn tmp;

            memset(&tmp, 0, sizeof(tmp));
            memcpy(tmp.peer, peer, sizeof(peer));
            log_conn(ts, C_FULL, &tmp,
                     "%zu connections, all authenticated (max_connections)",
                     ts->nconns);
            (void)close(fd);
            addr_put(ts, slot);
            return;
        }
        log_conn(ts, C_EVICTED, ts->uoldest,
                 "%zu connections (max_connections): the oldest "
                 "unauthenticated one goes for a new one",
                 ts->nconns);
        conn_close(ts, ts->uoldest);
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        (void)close(fd);
        addr_put(ts, slot);
        return;
    }
    /* Replies go out whole, at once: Nagle would only hold the last
     * segment of each.  (Fails harmlessly on UNIX sockets.) */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    atomic_init(&c->closed, false);
    c->addr = slot;
    memcpy(c->peer, peer, sizeof(peer));
    record_reset(ts, c);
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(ts->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        (void)close(fd);
        addr_put(ts, slot);
        free(c);
        return;
    }
    c->events = EPOLLIN;
    c->prev = ts->newest;
    if (ts->newest != NULL) {
        ts->newest->next = c;
    } else {
        ts->oldest = c;
    }
    ts->newest = c;
    c->uprev = ts->unewest;
    if (ts->unewest != NULL) {
        ts->unewest->unext = c;
    } else {
        ts->uoldest = c;
    }
    ts->unewest = c;
    ts->nconns++;
}

/* Accepts what is pending.  0; 1 to back off (out of descriptors); -1 with
 * err when the listening socket failed. */
static int on_accept(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    for (int i = 0; i < ACCEPT_BURST; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd;

        memset(&ss, 0, sizeof(ss));
        fd = accept4(ts->listen_fd, (struct sockaddr *)&ss, &sl,
                     SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            admit(ts, fd, &ss);
            continue;
        }
        switch (errno) {
        case EAGAIN:
#if EWOULDBLOCK != EAGAIN
        case EWOULDBLOCK:
#endif
            return 0;
        case EMFILE:
        case ENFILE:
        case ENOBUFS:
        case ENOMEM:
            /* Out of descriptors: the pending connection would keep epoll
             * ringing; wait for some to close. */
            log_conn(ts, C_ACCEPT, NULL, "accept: %s", strerror(errno));
            return 1;
        case EBADF:
        case EINVAL:
        case ENOTSOCK:
        case EOPNOTSUPP:
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "accept: %s",
                         strerror(errno));
            return -1;
        default:
            continue; /* EINTR, ECONNABORTED, EPROTO...: that one */
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The loop                                                             */
/* ------------------------------------------------------------------ */

/* A job back from a worker. */
static void on_done(gk5_rpc_tcp_server *ts, struct job *j)
{
    struct conn *c = j->c;

    c->inflight--;
    ts->unauth_used -= j->unauth;
    if (atomic_load(&c->closed)) {
        reply_give(ts, j->reply_charge);
        gk5_buffer_release(&j->reply);
        if (c->inflight == 0) {
            c->dead_next = ts->dead;
            ts->dead = c;
        }
        free(j);
        return;
    }
    if (j->close) {
        reply_give(ts, j->reply_charge);
        gk5_buffer_release(&j->reply);
        free(j);
        conn_close(ts, c);
        return;
    }
    if (j->auth) {
        set_authenticated(ts, c);
    }
    if (j->reply.length != 0) {
        conn_reply(ts, c, &j->reply, j->reply_charge);
    } else {
        reply_give(ts, j->reply_charge);
    }
    free(j);
}

/* After anything happened to c: read-ahead, quiet, events. */
static void conn_settle(gk5_rpc_tcp_server *ts, struct conn *c, bool was_full)
{
    if (atomic_load(&c->closed)) {
        return;
    }
    if (was_full && !full(ts, c)) {
        /* The pause was ours: the next record's time starts now. */
        if (!c->has_bytes) {
            c->rec_start = ts->now;
        }
        stash_feed(ts, c);
        if (atomic_load(&c->closed)) {
            return;
        }
    }
    if (quiet(c) && !c->has_bytes) {
        if (c->eof) {
            conn_close(ts, c);
            return;
        }
        c->rec_start = ts->now;
    }
    set_events(ts, c);
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
        bool was_full = full(ts, c) || c->stash != NULL;

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
            log_conn(ts, C_SEND, c,
                     "a reply not drained in %llu ms (send_timeout)",
                     (unsigned long long)ts->send_ms);
            conn_close(ts, c);
        } else if ((quiet(c) || c->has_bytes) && c->stash == NULL &&
                   ts->now - c->rec_start > limit) {
            if (c->authenticated) {
                log_conn(ts, C_IDLE, c, "%s in %llu ms (idle_timeout)",
                         c->has_bytes ? "a record not complete" : "no record",
                         (unsigned long long)limit);
            } else {
                log_conn(ts, C_FIRST_RECORD, c,
                         "%s in %llu ms, unauthenticated "
                         "(first_record_timeout)",
                         c->has_bytes ? "a record not complete" : "no record",
                         (unsigned long long)limit);
            }
            conn_close(ts, c);
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
        if (pthread_create(&ts->workers[i], NULL, worker_main, ts) != 0) {
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
        conn_close(ts, ts->oldest);
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
    free_dead(ts);
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
    log_flush(ts, mono_ms(), true);
}

int gk5_rpc_tcp_server_run(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
{
    struct epoll_event evs[64];
    uint64_t next_sweep;
    uint64_t backoff_until = 0;
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
    if (run_setup(ts, err) != 0) {
        goto cleanup;
    }
    ts->now = mono_ms();
    next_sweep = ts->now + SWEEP_MS;
    for (;;) {
        int n;
        int timeout;

        if (atomic_load(&ts->stopped)) {
            break;
        }
        ts->now = mono_ms();
        timeout = next_sweep > ts->now ? (int)(next_sweep - ts->now) : 0;
        n = epoll_wait(ts->ep, evs, (int)GK5_ARRAY_SIZE(evs), timeout);
        if (n < 0 && errno != EINTR) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "epoll_wait: %s",
                         strerror(errno));
            goto cleanup;
        }
        ts->now = mono_ms();
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            uint32_t e = evs[i].events;

            if (p == &mark_wake) {
                char buf[64];

                while (read(ts->wake[0], buf, sizeof(buf)) > 0) {
                }
            } else if (p == &mark_done) {
                drain_done(ts);
            } else if (p == &mark_listen) {
                int a;

                if ((e & (EPOLLERR | EPOLLHUP)) != 0) {
                    gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                                 "the listening socket failed");
                    goto cleanup;
                }
                a = on_accept(ts, err);
                if (a < 0) {
                    goto cleanup;
                }
                if (a > 0) {
                    (void)epoll_ctl(ts->ep, EPOLL_CTL_DEL, ts->listen_fd, NULL);
                    backoff_until = ts->now + ACCEPT_BACKOFF_MS;
                }
            } else {
                struct conn *c = p;
                bool was_full;

                if (atomic_load(&c->closed)) {
                    continue;
                }
                was_full = full(ts, c) || c->stash != NULL;
                if ((e & (EPOLLERR | EPOLLHUP)) != 0) {
                    conn_close(ts, c);
                    continue;
                }
                if ((e & EPOLLOUT) != 0 && !conn_flush(ts, c)) {
                    continue;
                }
                if ((e & EPOLLIN) != 0) {
                    conn_readable(ts, c);
                }
                conn_settle(ts, c, was_full);
            }
        }
        free_dead(ts);
        if (backoff_until != 0 && ts->now >= backoff_until) {
            struct epoll_event ev;

            memset(&ev, 0, sizeof(ev));
            ev.events = EPOLLIN;
            ev.data.ptr = &mark_listen;
            (void)epoll_ctl(ts->ep, EPOLL_CTL_ADD, ts->listen_fd, &ev);
            backoff_until = 0;
        }
        if (ts->now >= next_sweep) {
            sweep(ts);
            free_dead(ts);
            log_flush(ts, ts->now, false);
            next_sweep = ts->now + SWEEP_MS;
        }
    }
    rc = 0;
cleanup:
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
