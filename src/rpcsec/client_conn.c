/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS client's own connections: a stream connection made with
 * a deadline, and one call sent as a record and its reply read back
 * (RFC 5531 11), for control exchanges that do not go through a client's
 * call table.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <gk5/rpcsec.h>

#include "common/util.h"
#include "rpcsec/client_int.h"

GK5I_RPC_WUR int gk5i_rpc_connect(const struct sockaddr *peer,
                                  socklen_t peer_len, int timeout_ms,
                                  int *fd_out, gk5_rpc_error *err)
{
    int fd = -1, soerr = 0, ret = -1;
    socklen_t slen = sizeof(soerr);
    struct timeval tv = {.tv_sec = timeout_ms / 1000,
                         .tv_usec = (timeout_ms % 1000) * 1000};

    *fd_out = -1;
    fd = socket(peer->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "socket for the RPC connection: %s", strerror(errno));
        goto cleanup;
    }
    if (connect(fd, peer, peer_len) != 0) {
        if (errno != EINPROGRESS) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting to the RPC server: %s", strerror(errno));
            goto cleanup;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int r;
        do {
            r = poll(&pfd, 1, timeout_ms);
        } while (r < 0 && errno == EINTR);
        if (r <= 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting to the RPC server: %s",
                         r == 0 ? "timed out" : strerror(errno));
            goto cleanup;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) != 0 ||
            soerr != 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting to the RPC server: %s",
                         strerror(soerr != 0 ? soerr : errno));
            goto cleanup;
        }
    }
    /* Blocking from here on; a send that stalls times out as well. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "setting up the RPC connection: %s", strerror(errno));
        goto cleanup;
    }
    *fd_out = fd;
    fd = -1;
    ret = 0;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

long long gk5i_rpc_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send the call msg (transaction xid) as one record on fd and read records
 * until the reply to it (into *buf).  Replies to other xids are dropped, as
 * clnt_vc_call drops them: on the CLIENT's own socket a call that timed out
 * earlier may still be answered. */
GK5I_RPC_WUR int gk5i_rpc_record_exchange(int fd, uint32_t xid,
                                          const uint8_t *msg, size_t msg_len,
                                          int timeout_ms, uint8_t **buf,
                                          size_t *len, gk5_rpc_error *err)
{
    struct iovec iov = {.iov_base = (void *)(uintptr_t)msg, .iov_len = msg_len};
    long long deadline = gk5i_rpc_now_ms() + timeout_ms;

    *buf = NULL;
    *len = 0;
    if (gk5i_rpc_write_record(fd, &iov, 1, err) != 0) {
        return -1;
    }
    for (;;) {
        long long left = deadline - gk5i_rpc_now_ms();
        uint8_t *rec = NULL;
        size_t rec_len = 0;
        int r =
            gk5i_rpc_read_record(fd, GK5I_RPC_MAX_CONTROL_REPLY,
                                 left > 0 ? (int)left : 0, &rec, &rec_len, err);
        if (r == 1) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "the server closed the connection without "
                         "answering the RPCSEC_GSS control call");
        }
        if (r != 0) {
            return -1;
        }
        if (rec_len >= 4 && gk5i_get32(rec) == xid) {
            *buf = rec;
            *len = rec_len;
            return 0;
        }
        free(rec);
    }
}

/* Send msg on a fresh connection and read the reply record into *buf. */
GK5I_RPC_WUR int gk5i_rpc_control_exchange(const struct gk5i_rpc_est *p,
                                           uint32_t xid, const uint8_t *msg,
                                           size_t msg_len, int timeout_ms,
                                           uint8_t **buf, size_t *len,
                                           gk5_rpc_error *err)
{
    int fd = -1, ret = -1;

    *buf = NULL;
    *len = 0;
    if (gk5i_rpc_connect((const struct sockaddr *)&p->peer, p->peer_len,
                         timeout_ms, &fd, err) != 0 ||
        gk5i_rpc_record_exchange(fd, xid, msg, msg_len, timeout_ms, buf, len,
                                 err) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}
