/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's accepting: a newcomer admitted within max_connections
 * and max_per_address, the oldest unauthenticated connection evicted to
 * make room.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "rpcsec/tcp_int.h"

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

/* The newcomer's count in the per-address table (*slot; NULL for an
 * address without a key).  false when its address has max_per_address
 * connections already or memory ran out: fd is closed. */
static bool admit_address(gk5_rpc_tcp_server *ts, int fd,
                          const struct sockaddr_storage *ss, const char *peer,
                          struct addr_slot **slot)
{
    uint8_t key[16];
    bool keyed;

    *slot = NULL;
    gk5i_tcp_addr_key(ss, key, &keyed);
    if (!keyed) {
        return true;
    }
    *slot = gk5i_tcp_addr_get(ts, key);
    if (*slot == NULL) {
        (void)close(fd);
        return false;
    }
    if ((*slot)->count >= ts->max_per_address) {
        struct conn tmp;

        memset(&tmp, 0, sizeof(tmp));
        memcpy(tmp.peer, peer, sizeof(tmp.peer));
        gk5i_tcp_log_conn(ts, C_PER_ADDRESS, &tmp,
                          "%zu connections from this address already "
                          "(max_per_address)",
                          (*slot)->count);
        (void)close(fd);
        return false;
    }
    (*slot)->count++; /* held while we decide */
    return true;
}

/* Room for the newcomer under max_connections, the oldest
 * unauthenticated connection evicted for it.  false when every
 * connection is authenticated: fd is closed and slot given back. */
static bool admit_room(gk5_rpc_tcp_server *ts, int fd, const char *peer,
                       struct addr_slot *slot)
{
    if (ts->nconns < ts->max_connections) {
        return true;
    }
    if (ts->uoldest == NULL) {
        struct conn tmp;

        memset(&tmp, 0, sizeof(tmp));
        memcpy(tmp.peer, peer, sizeof(tmp.peer));
        gk5i_tcp_log_conn(
            ts, C_FULL, &tmp,
            "%zu connections, all authenticated (max_connections)", ts->nconns);
        (void)close(fd);
        gk5i_tcp_addr_put(ts, slot);
        return false;
    }
    gk5i_tcp_log_conn(ts, C_EVICTED, ts->uoldest,
                      "%zu connections (max_connections): the oldest "
                      "unauthenticated one goes for a new one",
                      ts->nconns);
    gk5i_tcp_conn_close(ts, ts->uoldest);
    return true;
}

/* c at the newest end of the connections and of the unauthenticated
 * ones. */
static void conn_link(gk5_rpc_tcp_server *ts, struct conn *c)
{
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

/* A new connection: in the table, evicting the oldest unauthenticated one
 * when it is full, or closed at once. */
static void admit(gk5_rpc_tcp_server *ts, int fd,
                  const struct sockaddr_storage *ss)
{
    struct conn *c;
    struct addr_slot *slot = NULL;
    char peer[64];
    struct epoll_event ev;
    int one = 1;

    peer_text(ss, peer, sizeof(peer));
    if (!admit_address(ts, fd, ss, peer, &slot) ||
        !admit_room(ts, fd, peer, slot)) {
        return;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        (void)close(fd);
        gk5i_tcp_addr_put(ts, slot);
        return;
    }
    /* Replies go out whole, at once: Nagle would only hold the last
     * segment of each.  (Fails harmlessly on UNIX sockets.) */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    atomic_init(&c->closed, false);
    c->addr = slot;
    memcpy(c->peer, peer, sizeof(peer));
    gk5i_tcp_record_reset(ts, c);
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(ts->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        (void)close(fd);
        gk5i_tcp_addr_put(ts, slot);
        free(c);
        return;
    }
    c->events = EPOLLIN;
    conn_link(ts, c);
}

/* Accepts what is pending.  0; 1 to back off (out of descriptors); -1 with
 * err when the listening socket failed. */
int gk5i_tcp_on_accept(gk5_rpc_tcp_server *ts, gk5_rpc_error *err)
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
            gk5i_tcp_log_conn(ts, C_ACCEPT, NULL, "accept: %s",
                              strerror(errno));
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
