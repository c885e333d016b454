/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC transport, RFC 4120 7.2.1 (UDP) and 7.2.2 (TCP).
 *
 * One KDC at a time, one address at a time, one socket at a time: each
 * attempt opens its socket, sends, waits for its answer until its own
 * deadline (the round's wait, never past the call's), and closes the
 * socket before the next attempt begins.  A late answer to an attempt that
 * was given up is lost; the second round asks again.
 *
 * What counts as an answer is checked only as far as the transport can:
 * the outer [APPLICATION n] and a DER length that spans the message
 * exactly.  The caller's decoder judges the rest.
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../common/trace.h"
#include "krb5_int.h"

/* RFC 4120 7.5.9 */
#define KRB_ERR_RESPONSE_TOO_BIG 52
/* RFC 4120 5.9.1: KRB-ERROR ::= [APPLICATION 30] */
#define TAG_KRB_ERROR 30

/* The waits of the two rounds, per KDC address (ms). */
#define FIRST_ROUND_WAIT_MS 1000
#define SECOND_ROUND_WAIT_MS 2000
#define ROUNDS 2

/* Larger than any UDP payload (65507 over IPv4, 65527 over IPv6 without
 * jumbograms): a datagram is read whole or known to be too big. */
#define UDP_BUF_LEN 65536u

/* Linux: hold the length prefix back to go out with the request. */
#ifndef MSG_MORE
#define MSG_MORE 0
#endif

/* How one attempt on one address ended. */
enum outcome {
    GOT_REPLY,   /* x->reply holds it */
    TOO_BIG,     /* UDP: KRB-ERROR 52, try TCP */
    NO_ANSWER,   /* the attempt's wait ran out */
    REFUSED,     /* ICMP port unreachable, or a TCP RST */
    NOT_A_REPLY, /* TCP: the record was not one; the connection is done */
    FAILED,      /* a local socket error */
    NOMEM,
};

/* One call's state. */
struct exchange {
    const uint8_t *req;
    size_t req_len;
    uint8_t expect_tag;
    int64_t deadline; /* the whole call's, ms on CLOCK_MONOTONIC */
    uint8_t *udp_buf; /* UDP_BUF_LEN bytes, when UDP is used */
    bool saw_junk;    /* something came back that was not a reply */
    unsigned dropped; /* this attempt's datagrams that were not replies */
    uint8_t *reply;   /* malloc'd */
    size_t reply_len;
    char why[160]; /* why the last attempt ended (only when tracing) */
};

static void note(struct exchange *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(struct exchange *x, const char *fmt, ...)
{
    va_list ap;

    if (!GK5_TRACE_ON()) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(x->why, sizeof(x->why), fmt, ap);
    va_end(ap);
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or until the time "until" (ms,
 * CLOCK_MONOTONIC).  1 ready (or in error: the next call says which),
 * 0 the time came, -1 poll failed. */
static int wait_fd(int fd, short events, int64_t until)
{
    struct pollfd p = {.fd = fd, .events = events};

    for (;;) {
        int64_t left = until - now_ms();
        int r;

        if (left <= 0) {
            return 0;
        }
        p.revents = 0;
        r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r > 0) {
            return 1;
        }
        if (r < 0 && errno != EINTR) {
            return -1;
        }
    }
}

/* X.690 8.1.2-8.1.3 as far as framing goes: p is one [APPLICATION tag]
 * constructed TLV with a definite length that covers exactly n bytes. */
static bool is_message(const uint8_t *p, size_t n, uint8_t tag)
{
    size_t hdr, len = 0;

    if (n < 2 || p[0] != (0x60 | tag)) {
        return false;
    }
    if (p[1] < 0x80) {
        hdr = 2;
        len = p[1];
    } else {
        size_t k = p[1] & 0x7fu;

        if (k == 0 || k > 4 || n < 2 + k) {
            return false;
        }
        for (size_t i = 0; i < k; i++) {
            len = (len << 8) | p[2 + i];
        }
        hdr = 2 + k;
    }
    return len == n - hdr;
}

enum verdict { V_REPLY, V_TOO_BIG, V_JUNK };

/* A reply of the kind asked for, or a KRB-ERROR that decodes. */
static enum verdict classify(const struct exchange *x, const uint8_t *p,
                             size_t n)
{
    struct gk5i_krb_error e;

    if (is_message(p, n, x->expect_tag)) {
        return V_REPLY;
    }
    if (is_message(p, n, TAG_KRB_ERROR) &&
        gk5i_decode_krb_error(p, n, &e) == GK5_OK) {
        return e.error_code == KRB_ERR_RESPONSE_TOO_BIG ? V_TOO_BIG : V_REPLY;
    }
    return V_JUNK;
}

/* RFC 4120 7.2.1: the request in one datagram, the reply in one.  The
 * socket is connected, so only the KDC's datagrams arrive and an ICMP
 * port unreachable comes back as ECONNREFUSED. */
static enum outcome try_udp(struct exchange *x, const struct addrinfo *ai,
                            int64_t until)
{
    enum outcome out = FAILED;
    int fd;

    x->dropped = 0;
    fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        note(x, "no socket: %s", strerror(errno));
        return FAILED;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        note(x, "connect: %s", strerror(errno));
        goto cleanup;
    }
    if (send(fd, x->req, x->req_len, MSG_NOSIGNAL) != (ssize_t)x->req_len) {
        out = errno == ECONNREFUSED ? REFUSED : FAILED;
        note(x, "send: %s", strerror(errno));
        goto cleanup;
    }
    for (;;) {
        int r = wait_fd(fd, POLLIN, until);
        enum verdict v;
        ssize_t n;

        if (r == 0) {
            out = NO_ANSWER;
            note(x, "no answer (%u datagrams dropped)", x->dropped);
            break;
        }
        if (r < 0) {
            note(x, "poll: %s", strerror(errno));
            break;
        }
        /* MSG_TRUNC: the datagram's real length, so an oversized one is
         * known as such rather than read as its first bytes. */
        n = recv(fd, x->udp_buf, UDP_BUF_LEN, MSG_TRUNC);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue;
            }
            out = errno == ECONNREFUSED ? REFUSED : FAILED;
            note(x, "recv: %s (%u datagrams dropped)", strerror(errno),
                 x->dropped);
            break;
        }
        v = (size_t)n > UDP_BUF_LEN ? V_JUNK
                                    : classify(x, x->udp_buf, (size_t)n);
        if (v == V_JUNK) {
            x->saw_junk = true;
            x->dropped++;
            continue;
        }
        if (v == V_TOO_BIG) {
            out = TOO_BIG;
            note(x, "KRB-ERROR 52 (response too big)");
            break;
        }
        x->reply = malloc((size_t)n);
        if (x->reply == NULL) {
            out = NOMEM;
            break;
        }
        memcpy(x->reply, x->udp_buf, (size_t)n);
        x->reply_len = (size_t)n;
        out = GOT_REPLY;
        note(x, "reply, %zd bytes (%u datagrams dropped)", n, x->dropped);
        break;
    }
cleanup:
    close(fd);
    return out;
}

/* Write all n bytes by "until".  0 done, else the errno (ETIMEDOUT for
 * the time). */
static int write_all(int fd, const uint8_t *p, size_t n, int flags,
                     int64_t until)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, flags | MSG_NOSIGNAL);

        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
            errno != EINTR) {
            return errno;
        }
        int r = wait_fd(fd, POLLOUT, until);
        if (r <= 0) {
            return r == 0 ? ETIMEDOUT : errno;
        }
    }
    return 0;
}

/* Read exactly n bytes by "until".  0 done, else the errno (ETIMEDOUT for
 * the time, EPIPE for the peer's end of stream). */
static int read_all(int fd, uint8_t *p, size_t n, int64_t until)
{
    while (n > 0) {
        ssize_t r = recv(fd, p, n, 0);

        if (r > 0) {
            p += r;
            n -= (size_t)r;
            continue;
        }
        if (r == 0) {
            return EPIPE;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return errno;
        }
        int w = wait_fd(fd, POLLIN, until);
        if (w <= 0) {
            return w == 0 ? ETIMEDOUT : errno;
        }
    }
    return 0;
}

/* RFC 4120 7.2.2: each message preceded by its length in 4 octets, big-
 * endian, whose high bit is reserved (a KDC sets it in no reply we can
 * read).  The connection, the request and the first answer by "until";
 * once the length has come, the body may take until the call's deadline. */
static enum outcome try_tcp(struct exchange *x, const struct addrinfo *ai,
                            int64_t until)
{
    enum outcome out = FAILED;
    uint8_t hdr[4];
    uint8_t *body = NULL;
    uint32_t len;
    int fd, err;

    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        note(x, "no socket: %s", strerror(errno));
        return FAILED;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        socklen_t sl = sizeof(err);
        int r;

        if (errno != EINPROGRESS) {
            out = errno == ECONNREFUSED ? REFUSED : FAILED;
            note(x, "connect: %s", strerror(errno));
            goto cleanup;
        }
        r = wait_fd(fd, POLLOUT, until);
        if (r == 0) {
            out = NO_ANSWER;
            note(x, "no connection in time");
            goto cleanup;
        }
        if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) != 0) {
            note(x, "connect: %s", strerror(errno));
            goto cleanup;
        }
        if (err != 0) {
            out = err == ECONNREFUSED ? REFUSED : FAILED;
            note(x, "connect: %s", strerror(err));
            goto cleanup;
        }
    }
    store_be32(hdr, (uint32_t)x->req_len);
    err = write_all(fd, hdr, sizeof(hdr), MSG_MORE, until);
    if (err == 0) {
        err = write_all(fd, x->req, x->req_len, 0, until);
    }
    if (err == 0) {
        err = read_all(fd, hdr, sizeof(hdr), until);
    }
    if (err != 0) {
        /* Nothing came back: out of time, refused, reset, or closed
         * without a word.  Only a local failure is told apart. */
        out = err == ETIMEDOUT || err == EPIPE || err == ECONNRESET ? NO_ANSWER
              : err == ECONNREFUSED                                 ? REFUSED
                                                                    : FAILED;
        note(x, "%s",
             err == ETIMEDOUT ? "no answer"
             : err == EPIPE   ? "closed without an answer"
                              : strerror(err));
        goto cleanup;
    }
    len = load_be32(hdr);
    if ((len & 0x80000000u) != 0 || len > GK5I_KRB_MAX_MESSAGE || len < 2) {
        x->saw_junk = true;
        out = NOT_A_REPLY;
        note(x, "record length 0x%08x (reserved bit, or over %u bytes)",
             (unsigned)len, (unsigned)GK5I_KRB_MAX_MESSAGE);
        goto cleanup;
    }
    body = malloc(len);
    if (body == NULL) {
        out = NOMEM;
        goto cleanup;
    }
    err = read_all(fd, body, len, x->deadline);
    if (err != 0) {
        x->saw_junk = true;
        out = NOT_A_REPLY;
        note(x, "record of %u bytes cut short: %s", (unsigned)len,
             err == ETIMEDOUT ? "out of time"
             : err == EPIPE   ? "closed"
                              : strerror(err));
        goto cleanup;
    }
    /* Over TCP a KRB-ERROR 52 is the KDC's answer like any other. */
    if (classify(x, body, len) == V_JUNK) {
        x->saw_junk = true;
        out = NOT_A_REPLY;
        note(x, "record of %u bytes is not a reply (first byte 0x%02x)",
             (unsigned)len, body[0]);
        goto cleanup;
    }
    x->reply = body;
    x->reply_len = len;
    body = NULL;
    out = GOT_REPLY;
    note(x, "reply, %u bytes", (unsigned)len);
cleanup:
    free(body);
    close(fd);
    return out;
}

static void trace_attempt(const struct exchange *x,
                          const struct gk5i_kdc_addr *kdc,
                          const struct addrinfo *ai, const char *proto,
                          unsigned round, int64_t wait)
{
    char addr[NI_MAXHOST];

    if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr), NULL, 0,
                    NI_NUMERICHOST) != 0) {
        snprintf(addr, sizeof(addr), "?");
    }
    gk5i_trace("kdc_send: KDC %s:%u (%s) over %s, round %u, wait %lld ms: "
               "%s",
               kdc->host, (unsigned)kdc->port, addr, proto, round + 1,
               (long long)wait, x->why);
}

/* One KDC's addresses, or NULL (traced) when the name does not resolve. */
static struct addrinfo *resolve(const struct gk5i_kdc_addr *kdc)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_DGRAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port[8];
    int r;

    snprintf(port, sizeof(port), "%u", (unsigned)kdc->port);
    r = getaddrinfo(kdc->host, port, &hints, &res);
    if (r != 0) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("kdc_send: KDC %s:%u: cannot resolve: %s", kdc->host,
                       (unsigned)kdc->port, gai_strerror(r));
        }
        return NULL;
    }
    return res;
}

uint32_t gk5i_kdc_send(const struct gk5i_kdc_addr *kdcs, size_t n_kdcs,
                       const uint8_t *req, size_t req_len, uint8_t expect_tag,
                       uint32_t udp_limit, uint32_t timeout_ms, uint8_t **reply,
                       size_t *reply_len)
{
    struct addrinfo *addrs[GK5I_MAX_KDCS] = {NULL};
    struct exchange x = {
        .req = req, .req_len = req_len, .expect_tag = expect_tag};
    bool udp = req_len <= udp_limit;
    uint32_t ret = GK5_ERR_KDC_UNREACHABLE;

    if (reply != NULL) {
        *reply = NULL;
    }
    if (reply_len != NULL) {
        *reply_len = 0;
    }
    if (reply == NULL || reply_len == NULL || kdcs == NULL || n_kdcs == 0 ||
        n_kdcs > GK5I_MAX_KDCS || req == NULL || req_len == 0 ||
        req_len > GK5I_KRB_MAX_MESSAGE || expect_tag >= 31) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    x.deadline = now_ms() + timeout_ms;
    if (udp) {
        x.udp_buf = malloc(UDP_BUF_LEN);
        if (x.udp_buf == NULL) {
            return GK5_ERR_NOMEM;
        }
    }
    for (unsigned round = 0; round < ROUNDS; round++) {
        int64_t wait = round == 0 ? FIRST_ROUND_WAIT_MS : SECOND_ROUND_WAIT_MS;

        for (size_t i = 0; i < n_kdcs; i++) {
            /* A name is looked up once; one that fails is not retried.
             * The resolver's own time cannot be cut short. */
            if (now_ms() >= x.deadline) {
                goto cleanup;
            }
            if (round == 0) {
                addrs[i] = resolve(&kdcs[i]);
            }
            for (const struct addrinfo *ai = addrs[i]; ai != NULL;
                 ai = ai->ai_next) {
                int64_t now = now_ms();
                int64_t until;
                enum outcome o;

                if (now >= x.deadline) {
                    goto cleanup;
                }
                until = now + wait < x.deadline ? now + wait : x.deadline;
                o = udp ? try_udp(&x, ai, until) : try_tcp(&x, ai, until);
                if (o == TOO_BIG) {
                    if (GK5_TRACE_ON()) {
                        trace_attempt(&x, &kdcs[i], ai, "UDP", round,
                                      until - now);
                    }
                    /* RFC 4120 7.2.1: the same KDC again, over TCP, with
                     * a wait of its own. */
                    now = now_ms();
                    until = now + wait < x.deadline ? now + wait : x.deadline;
                    o = try_tcp(&x, ai, until);
                    if (GK5_TRACE_ON()) {
                        trace_attempt(&x, &kdcs[i], ai, "TCP", round,
                                      until - now);
                    }
                } else if (GK5_TRACE_ON()) {
                    trace_attempt(&x, &kdcs[i], ai, udp ? "UDP" : "TCP", round,
                                  until - now);
                }
                if (o == GOT_REPLY) {
                    ret = GK5_OK;
                    goto cleanup;
                }
                if (o == NOMEM) {
                    ret = GK5_ERR_NOMEM;
                    goto cleanup;
                }
            }
        }
    }
cleanup:
    for (size_t i = 0; i < n_kdcs; i++) {
        if (addrs[i] != NULL) {
            freeaddrinfo(addrs[i]);
        }
    }
    free(x.udp_buf);
    if (ret == GK5_OK) {
        *reply = x.reply;
        *reply_len = x.reply_len;
    } else if (ret == GK5_ERR_KDC_UNREACHABLE && x.saw_junk) {
        ret = GK5_ERR_KDC_REPLY;
    }
    if (ret != GK5_OK && GK5_TRACE_ON()) {
        gk5i_trace("kdc_send: no reply from %zu KDCs in %u ms: %s", n_kdcs,
                   (unsigned)timeout_ms,
                   ret == GK5_ERR_KDC_REPLY ? "only answers that were not "
                                              "replies"
                   : ret == GK5_ERR_NOMEM   ? "out of memory"
                                            : "none answered");
    }
    return ret;
}
