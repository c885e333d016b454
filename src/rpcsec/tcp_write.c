/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's writing: replies queued per connection with their
 * record marks (RFC 5531 11), written until the socket is full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "rpcsec/tcp_int.h"

/* Writes what c's queue holds until the socket is full.  false when c was
 * closed (the peer went away). */
bool gk5i_tcp_conn_flush(gk5_rpc_tcp_server *ts, struct conn *c)
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
            gk5i_tcp_conn_close(ts, c);
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
            gk5i_tcp_reply_give(ts, o->charge);
            zap(o->data, o->len);
            free(o->data);
            free(o);
            c->send_start = ts->now; /* the next one starts now */
        }
    }
    return true;
}

/* Queues reply (taken over, charge included) on c and writes what fits. */
void gk5i_tcp_conn_reply(gk5_rpc_tcp_server *ts, struct conn *c,
                         gk5_buffer *reply, size_t charge)
{
    struct out *o = calloc(1, sizeof(*o));

    if (o == NULL) {
        gk5i_tcp_reply_give(ts, charge);
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
    (void)gk5i_tcp_conn_flush(ts, c);
}
