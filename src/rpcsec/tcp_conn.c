/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's connection records and their limits: the per-address
 * table (max_per_address), the list of unauthenticated connections and
 * their budget (unauth_budget), closing a connection and freeing it once
 * no worker holds one of its calls.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "rpcsec/tcp_int.h"

void gk5i_tcp_addr_key(const struct sockaddr_storage *ss, uint8_t key[16],
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
struct addr_slot *gk5i_tcp_addr_get(gk5_rpc_tcp_server *ts, const uint8_t *key)
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

void gk5i_tcp_addr_put(gk5_rpc_tcp_server *ts, struct addr_slot *s)
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

void gk5i_tcp_set_events(gk5_rpc_tcp_server *ts, struct conn *c)
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
        gk5i_tcp_reply_give(ts, o->charge);
        zap(o->data, o->len); /* unprotected replies may be plaintext */
        free(o->data);
        free(o);
    }
    c->out_tail = NULL;
    c->nout = 0;
}

void gk5i_tcp_drop_record(gk5_rpc_tcp_server *ts, struct conn *c)
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
void gk5i_tcp_conn_close(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (atomic_load(&c->closed)) {
        return;
    }
    atomic_store(&c->closed, true);
    (void)epoll_ctl(ts->ep, EPOLL_CTL_DEL, c->fd, NULL);
    (void)close(c->fd);
    c->fd = -1;
    gk5i_tcp_drop_record(ts, c);
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
    gk5i_tcp_addr_put(ts, c->addr);
    c->addr = NULL;
    if (c->inflight == 0) {
        c->dead_next = ts->dead;
        ts->dead = c;
    }
}

void gk5i_tcp_free_dead(gk5_rpc_tcp_server *ts)
{
    while (ts->dead != NULL) {
        struct conn *c = ts->dead;

        ts->dead = c->dead_next;
        free(c);
    }
}

void gk5i_tcp_set_authenticated(gk5_rpc_tcp_server *ts, struct conn *c)
{
    if (!c->authenticated) {
        c->authenticated = true;
        unauth_unlink(ts, c);
    }
}

/* n more bytes of the unauthenticated budget for c.  When it is full, the
 * oldest unauthenticated connections holding some (not c) are closed to
 * make room; if that is not enough, c is.  false when c was closed. */
bool gk5i_tcp_unauth_take(gk5_rpc_tcp_server *ts, struct conn *c, size_t n)
{
    while (n > ts->unauth_budget || ts->unauth_used > ts->unauth_budget - n) {
        struct conn *v = ts->uoldest;

        while (v != NULL && (v == c || v->held + v->stash_held == 0)) {
            v = v->unext;
        }
        if (v == NULL || n > ts->unauth_budget) {
            gk5i_tcp_log_conn(
                ts, C_UNAUTH, c,
                "the budget for unauthenticated records (%zu bytes) "
                "is spent",
                ts->unauth_budget);
            gk5i_tcp_conn_close(ts, c);
            return false;
        }
        gk5i_tcp_log_conn(
            ts, C_UNAUTH, v,
            "the budget for unauthenticated records (%zu bytes) is "
            "spent: the oldest unauthenticated connection holding "
            "some goes",
            ts->unauth_budget);
        gk5i_tcp_conn_close(ts, v);
    }
    ts->unauth_used += n;
    return true;
}
