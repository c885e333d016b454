/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's rooms (tcp_*.c, docs/design.md "The TCP server under
 * a hostile network") and what they share: the limits and defaults, a
 * connection, a job, the server, and each room's calls.  Nothing outside
 * src/rpcsec/tcp_*.c includes this.
 */
#ifndef GK5_RPCSEC_TCP_INT_H
#define GK5_RPCSEC_TCP_INT_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gk5/rpcsec.h>

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

static inline uint64_t mono_ms(void)
{
    struct timespec t;

    (void)clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static inline void wake_run(gk5_rpc_tcp_server *ts)
{
    int saved = errno;
    char b = 'w';

    /* Non-blocking: a full pipe already holds a wake-up. */
    (void)!write(ts->wake[1], &b, 1);
    errno = saved;
}

/* ---- tcp_log.c ---- */

void gk5i_tcp_log_event(gk5_rpc_tcp_server *ts, unsigned cause,
                        gk5_rpc_verdict verdict, int code, uint32_t auth_stat,
                        const char *text);
void gk5i_tcp_log_call(gk5_rpc_tcp_server *ts, gk5_rpc_verdict verdict,
                       const gk5_rpc_error *err);
__attribute__((format(printf, 4, 5))) void
gk5i_tcp_log_conn(gk5_rpc_tcp_server *ts, unsigned cause, const struct conn *c,
                  const char *fmt, ...);
void gk5i_tcp_log_flush(gk5_rpc_tcp_server *ts, uint64_t now, bool force);

/* ---- tcp_workers.c ---- */

bool gk5i_tcp_reply_take(gk5_rpc_tcp_server *ts, size_t n, bool force);
void gk5i_tcp_reply_give(gk5_rpc_tcp_server *ts, size_t n);
void *gk5i_tcp_worker_main(void *p);

/* ---- tcp_conn.c ---- */

void gk5i_tcp_addr_key(const struct sockaddr_storage *ss, uint8_t key[16],
                       bool *ok);
struct addr_slot *gk5i_tcp_addr_get(gk5_rpc_tcp_server *ts, const uint8_t *key);
void gk5i_tcp_addr_put(gk5_rpc_tcp_server *ts, struct addr_slot *s);
void gk5i_tcp_set_events(gk5_rpc_tcp_server *ts, struct conn *c);
void gk5i_tcp_drop_record(gk5_rpc_tcp_server *ts, struct conn *c);
void gk5i_tcp_conn_close(gk5_rpc_tcp_server *ts, struct conn *c);
void gk5i_tcp_free_dead(gk5_rpc_tcp_server *ts);
void gk5i_tcp_set_authenticated(gk5_rpc_tcp_server *ts, struct conn *c);
bool gk5i_tcp_unauth_take(gk5_rpc_tcp_server *ts, struct conn *c, size_t n);

/* ---- tcp_write.c ---- */

bool gk5i_tcp_conn_flush(gk5_rpc_tcp_server *ts, struct conn *c);
void gk5i_tcp_conn_reply(gk5_rpc_tcp_server *ts, struct conn *c,
                         gk5_buffer *reply, size_t charge);

/* ---- tcp_read.c ---- */

void gk5i_tcp_record_reset(gk5_rpc_tcp_server *ts, struct conn *c);
bool gk5i_tcp_conn_quiet(const struct conn *c);
bool gk5i_tcp_conn_full(const gk5_rpc_tcp_server *ts, const struct conn *c);
void gk5i_tcp_stash_feed(gk5_rpc_tcp_server *ts, struct conn *c);
void gk5i_tcp_conn_readable(gk5_rpc_tcp_server *ts, struct conn *c);

/* ---- tcp_accept.c ---- */

int gk5i_tcp_on_accept(gk5_rpc_tcp_server *ts, gk5_rpc_error *err);

#endif
