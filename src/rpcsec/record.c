/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 5531 section 11 record marking over a stream socket: each record is
 * one or more fragments, each preceded by a 4-byte big-endian header whose
 * top bit marks the last fragment and whose low 31 bits are its length.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rpcsec/rpcsec_int.h"

#define LAST_FRAGMENT 0x80000000u
#define MAX_FRAGMENT 0x7fffffffu
/* writev's limit is IOV_MAX (1024 on Linux); callers pass a few. */
#define RECORD_IOV_MAX 16

/* Send every byte of iov[0..n), resuming after partial writes.  sendmsg
 * with MSG_NOSIGNAL, so a peer that went away is an error, not SIGPIPE;
 * writev for descriptors that are not sockets. */
static int send_all(int fd, struct iovec *iov, int n, gk5_rpc_error *err)
{
    while (n > 0) {
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t sent = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (sent < 0 && errno == ENOTSOCK) {
            sent = writev(fd, iov, n);
        }
        if (sent < 0) {
            if (errno == EINTR) {
                continue;
            }
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "sending a record: %s",
                         strerror(errno));
            return -1;
        }
        size_t left = (size_t)sent;
        while (n > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

int gk5i_rpc_write_record(int fd, const struct iovec *iov, int n,
                          gk5_rpc_error *err)
{
    struct iovec v[RECORD_IOV_MAX + 1];
    uint8_t mark[4];
    size_t total = 0;

    if (n < 0 || n > RECORD_IOV_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "a record of %d pieces", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (iov[i].iov_len > MAX_FRAGMENT - total) {
            /* One fragment carries up to 2^31 - 1 bytes, far beyond any
             * body gk5 allows (max_body): refuse rather than split. */
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "a record larger than 2^31 - 1 bytes");
            return -1;
        }
        total += iov[i].iov_len;
    }
    gk5i_put32(mark, LAST_FRAGMENT | (uint32_t)total);
    v[0].iov_base = mark;
    v[0].iov_len = sizeof(mark);
    memcpy(v + 1, iov, (size_t)n * sizeof(*iov));
    return send_all(fd, v, n + 1, err);
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read exactly len bytes.  0; 1 on end of stream before the first byte
 * (when eof_ok); -1 on error. */
static int read_full(int fd, uint8_t *buf, size_t len, long long deadline,
                     int eof_ok, gk5_rpc_error *err)
{
    size_t got = 0;

    /* poll and read each retried on EINTR: two system calls, so the two
     * retry blocks below are alike in shape only. */
    while (got < len) {
        if (deadline >= 0) {
            long long left = deadline - now_ms();
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (left <= 0) {
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                             "timed out waiting for a reply");
                return -1;
            }
            int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r < 0) {
                gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "poll: %s",
                             strerror(errno));
                return -1;
            }
            if (r == 0) {
                continue;
            }
        }
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "receiving a record: %s",
                         strerror(errno));
            return -1;
        }
        if (n == 0) {
            if (got == 0 && eof_ok) {
                return 1;
            }
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "the connection closed in the middle of a record");
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

int gk5i_rpc_read_record(int fd, size_t max, int timeout_ms, uint8_t **buf,
                         size_t *len, gk5_rpc_error *err)
{
    long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    uint8_t *data = NULL;
    size_t have = 0, cap = 0;
    int first = 1, ret = -1;

    *buf = NULL;
    *len = 0;
    for (;;) {
        uint8_t mark[4];
        int r = read_full(fd, mark, sizeof(mark), deadline, first, err);
        if (r != 0) {
            ret = r;
            goto cleanup;
        }
        first = 0;
        uint32_t word = gk5i_get32(mark);
        size_t frag = word & MAX_FRAGMENT;
        if (frag > max || have > max - frag) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "a record larger than the %zu bytes allowed", max);
            goto cleanup;
        }
        if (have + frag > cap) {
            /* Grow geometrically: many small fragments stay linear. */
            size_t want = cap * 2 > have + frag ? cap * 2 : have + frag;
            if (want > max) {
                want = max;
            }
            uint8_t *bigger = realloc(data, want != 0 ? want : 1);
            if (bigger == NULL) {
                gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                             "out of memory for a %zu-byte record",
                             have + frag);
                goto cleanup;
            }
            data = bigger;
            cap = want;
        }
        if (frag > 0 &&
            read_full(fd, data + have, frag, deadline, 0, err) != 0) {
            goto cleanup;
        }
        have += frag;
        if ((word & LAST_FRAGMENT) != 0) {
            break;
        }
    }
    if (data == NULL) {
        data = malloc(1);
        if (data == NULL) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    *buf = data;
    *len = have;
    data = NULL;
    ret = 0;

cleanup:
    free(data);
    return ret;
}
