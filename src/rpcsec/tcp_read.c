/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's reading: RFC 5531 11 record marking on non-blocking
 * sockets, each record's first bytes checked (gk5i_rpc_server_precheck)
 * before its body is taken, complete records to the workers, read-ahead
 * kept while a connection is at max_inflight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpcsec/tcp_int.h"

void gk5i_tcp_record_reset(gk5_rpc_tcp_server *ts, struct conn *c)
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

bool gk5i_tcp_conn_quiet(const struct conn *c)
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
    if (c->charged && !gk5i_tcp_unauth_take(ts, c, want - c->cap)) {
        return false;
    }
    bigger = realloc(c->buf, want);
    if (bigger == NULL) {
        if (c->charged) {
            ts->unauth_used -= want - c->cap;
        }
        gk5i_tcp_log_conn(ts, C_NOMEM, c, "out of memory for a %zu-byte record",
                          want);
        gk5i_tcp_conn_close(ts, c);
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
        __attribute__((fallthrough)); /* then read the body as the others */
    case GK5I_RPC_PRE_INIT:
    case GK5I_RPC_PRE_UNAUTH:
        c->mode = RM_BODY;
        c->limit = limit;
        if (c->len + c->frag_left > c->limit) {
            gk5i_tcp_log_conn(
                ts, C_TOO_BIG, c,
                "a record of more than the %zu bytes its call may "
                "have",
                c->limit);
            gk5i_tcp_conn_close(ts, c);
            return false;
        }
        return true;
    case GK5I_RPC_PRE_REPLY:
    case GK5I_RPC_PRE_DROP:
        break;
    }
    gk5i_tcp_log_call(
        ts, pre == GK5I_RPC_PRE_REPLY ? GK5_RPC_CALL_REPLY : GK5_RPC_CALL_DROP,
        &err);
    gk5i_tcp_drop_record(ts, c);
    c->mode = RM_DISCARD;
    if (reply.length != 0) {
        size_t charge = reply.length + 4;

        (void)gk5i_tcp_reply_take(ts, charge, true); /* small: a rejection */
        gk5i_tcp_conn_reply(ts, c, &reply, charge);
    }
    return !atomic_load(&c->closed);
}

/* The record is complete: to the workers (or thrown away). */
static void record_done(gk5_rpc_tcp_server *ts, struct conn *c)
{
    struct job *j;

    if (c->mode == RM_DISCARD) {
        gk5i_tcp_record_reset(ts, c);
        return;
    }
    j = calloc(1, sizeof(*j));
    if (j == NULL || (c->buf == NULL && (c->buf = malloc(1)) == NULL)) {
        free(j);
        gk5i_tcp_log_conn(ts, C_NOMEM, c, "out of memory for a call");
        gk5i_tcp_conn_close(ts, c);
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
    gk5i_tcp_record_reset(ts, c);

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
bool gk5i_tcp_conn_full(const gk5_rpc_tcp_server *ts, const struct conn *c)
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
        if (!c->has_bytes && gk5i_tcp_conn_full(ts, c)) {
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
                gk5i_tcp_log_conn(ts, C_TOO_BIG, c,
                                  "a record of more than the %zu bytes allowed",
                                  c->limit);
                gk5i_tcp_conn_close(ts, c);
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
    if (!gk5i_tcp_unauth_take(ts, c, n)) {
        return false;
    }
    c->stash = malloc(n);
    if (c->stash == NULL) {
        ts->unauth_used -= n;
        gk5i_tcp_log_conn(ts, C_NOMEM, c, "out of memory for read-ahead");
        gk5i_tcp_conn_close(ts, c);
        return false;
    }
    memcpy(c->stash, p, n);
    c->stash_len = n;
    c->stash_off = 0;
    c->stash_held = n;
    return true;
}

/* The read-ahead first, if c has room for it. */
void gk5i_tcp_stash_feed(gk5_rpc_tcp_server *ts, struct conn *c)
{
    size_t used;

    if (c->stash == NULL || gk5i_tcp_conn_full(ts, c)) {
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

void gk5i_tcp_conn_readable(gk5_rpc_tcp_server *ts, struct conn *c)
{
    size_t budget = READ_BURST;

    while (budget > 0 && !atomic_load(&c->closed) && c->stash == NULL &&
           !gk5i_tcp_conn_full(ts, c)) {
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
            if (c->has_bytes || gk5i_tcp_conn_quiet(c)) {
                gk5i_tcp_conn_close(ts, c);
            } else {
                c->eof = true;
            }
            return;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            gk5i_tcp_conn_close(ts, c);
        }
        return;
    }
}
