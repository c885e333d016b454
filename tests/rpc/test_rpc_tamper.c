/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * test_rpc_tamper (meson test 'rpc-tamper', TAP): gk5's real RPCSEC_GSS
 * client AUTH against gk5's message-level server, with an attacker in the
 * server's own loop.
 *
 *   gk5 realm run --tap -- test_rpc_tamper
 *
 * Run inside the throwaway realm of `gk5 realm run` (GK5_REALM_DIR,
 * KRB5_CONFIG).  A server thread listens on 127.0.0.1 port 0 and serves an
 * echo procedure with gk5_rpc_server_process / gk5_rpc_server_reply over
 * gk5i_rpc_read_record / gk5i_rpc_write_record; before it sends a reply it
 * may change it as the test asks.  The client is gk5_rpc_auth_create's
 * AUTH on a libtirpc clnt_vc CLIENT (gk5-client@GK5.TEST from
 * client.keytab, a MEMORY: ccache, target gk5@localhost).
 *
 * Cells, for krb5, krb5i and krb5p where they apply (RFC 2203 5.3.3.2,
 * 5.3.2.2, 5.3.2.3): a flipped bit in the reply's verifier is
 * RPC_AUTHERROR / BAD_VERIFIER; a flipped bit in the body is
 * RPC_CANTDECODERES / BAD_BODY; the authentic body of an earlier call
 * spliced after this call's header and verifier is SEQ_MISMATCH; a reply
 * cut short (in its body, its last word, after accept_stat) fails; the
 * results buffer (filled with a canary) is untouched
 * by every failure gk5 detects; the next call on the same AUTH works.  And
 * the server drops a replayed call (RFC 2203 5.3.3.1): a call record the
 * client sent, sent again on a socket of its own, gets no reply.  A
 * replayed RPCSEC_GSS_INIT is refused in its rpc_gss_init_res: gss_major
 * an error, no handle; with gk5's acceptor, gss_minor KRB_AP_ERR_REPEAT's
 * gk5 code and a KRB-ERROR token (RFC 2203 5.2.3.1).
 *
 * The same attacks on gk5_rpc_clnt, gk5's own client (which reads whole
 * records): gk5_rpc_clnt_call fails with BAD_VERIFIER, BAD_BODY,
 * SEQ_MISMATCH or MALFORMED (a reply cut in its header, its verifier or
 * its body), the results empty, and the next call works.  And: a reply to
 * an XID no call has, sent before the real one, is dropped; 8 calls out
 * with gk5_rpc_clnt_send, answered in reverse order and waited for in
 * send order, each get their own results; a reply held past a 300 ms
 * call timeout is GK5_RPC_E_TRANSPORT with rpc_stat 5 (RPC_TIMEDOUT), and
 * the next call works (the late reply dropped).
 *
 * Every cell runs against the server with each way of establishing
 * contexts: gk5's own acceptor (the default) and MIT's.
 *
 * Not here for the AUTH: a reply cut inside its header or verifier.
 * libtirpc's clnt_vc skips a reply whose header does not decode and waits for
 * the next record; when that wait times out its record stream is left inside a
 * fragment header and the CLIENT skips the reply to the following call too (and
 * to every call after it): gk5 never sees those bytes.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <gk5/rpcsec.h>

#include "rpcsec/client_int.h"
#include "rpcsec/rpcsec_int.h"

#define PROG 0x20000099u
#define VERS 1u
#define PROC_ECHO 1u
#define PRINCIPAL "gk5-client@GK5.TEST"
#define TARGET "gk5@localhost"
#define SERVICE_PRINCIPAL "gk5@localhost"

#define PAYLOAD 200u
#define RESULTS_CAP 256u
#define CANARY 0xa5u
#define CANARY_LEN 0xc0ffeeu
#define MAX_CONNS 8
/* Every call that should be answered at once. */
#define CALL_TIMEOUT_S 5
#define REPLAY_WAIT_MS 300
/* gk5_rpc_clnt: calls out at once for the reversed replies; the short
 * call timeout and how long the server holds that reply. */
#define REVERSE_MAX 16u
#define N_REVERSE 8u
#define SHORT_TIMEOUT_MS 300u
#define HOLD_MS 900u

#define XDRPROC(fn) ((xdrproc_t)(void (*)(void))(fn))

/* How the server changes the next reply to a dispatched call. */
enum tamper {
    T_NONE,
    T_VERF,     /* one bit of the verifier's MIC */
    T_BODY,     /* one bit inside the results' body */
    T_SPLICE,   /* the body of the previous reply of this context */
    T_CUT_BODY, /* the reply cut in the middle of its body */
    T_CUT_TAIL, /* the reply's last 4 bytes gone */
    T_CUT_ALL,  /* the reply ends after accept_stat */
    T_CUT_HDR,  /* the reply ends after reply_stat (gk5_rpc_clnt only) */
    T_CUT_VERF, /* the reply ends inside its verifier (gk5_rpc_clnt only) */
};

static const char *const tamper_names[] = {
    [T_NONE] = "untouched",
    [T_VERF] = "a flipped bit in the reply verifier",
    [T_BODY] = "a flipped bit in the reply body",
    [T_SPLICE] = "an earlier call's authentic body spliced in",
    [T_CUT_BODY] = "the reply cut in its body",
    [T_CUT_TAIL] = "the reply's last 4 bytes cut",
    [T_CUT_ALL] = "the reply cut after accept_stat (no body)",
    [T_CUT_HDR] = "the reply cut in its header (after reply_stat)",
    [T_CUT_VERF] = "the reply cut in its verifier",
};

struct server {
    gk5_rpc_server *srv;
    int lfd;
    int wake[2];
    uint16_t port;
    pthread_t tid;
    bool started;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    enum tamper tamper; /* for the next dispatched call; then T_NONE */
    bool tampered;      /* the last tamper was applied */
    uint8_t *prev[4];   /* per service: the last authentic reply body */
    size_t prev_len[4];
    uint8_t *last_call; /* the last dispatched call record, as received */
    size_t last_call_len;
    uint8_t *last_init; /* the last RPCSEC_GSS_INIT record, as received */
    size_t last_init_len;
    unsigned drops;
    gk5_rpc_error drop_err; /* why the last DROP */
    unsigned dispatched;
    gk5_rpc_service last_service; /* of the last dispatched call */
    /* One-shot, for gk5_rpc_clnt's cells: */
    unsigned reverse;   /* read this many call records from the next
                           connection that sends one, answer them in
                           reverse order */
    bool stray;         /* before the next dispatched reply, a copy of it
                           with an XID no call has */
    unsigned hold_ms;   /* hold the next dispatched reply this long */
    unsigned held_sent; /* held replies sent so far */
    unsigned reversed;  /* records answered in reverse so far */
};

static unsigned n_tests;
static unsigned n_failed;

static void tap(bool ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void tap(bool ok, const char *fmt, ...)
{
    va_list ap;

    n_tests++;
    if (!ok) {
        n_failed++;
    }
    printf("%s %u - ", ok ? "ok" : "not ok", n_tests);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
    va_list ap;

    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* ---- The server ---- */

/* Where the body of an accepted reply starts (RFC 5531 9: xid, REPLY,
 * MSG_ACCEPTED, verifier, accept_stat), or 0. */
static size_t reply_body_off(const uint8_t *r, size_t len, size_t *verf_off,
                             size_t *verf_len)
{
    size_t vl, off;

    if (len < 24 || gk5i_get32(r + 8) != 0) {
        return 0;
    }
    vl = gk5i_get32(r + 16);
    off = 20 + vl + gk5i_xdr_pad(vl) + 4;
    if (vl > GK5I_RPC_MAX_AUTH_BYTES || off > len) {
        return 0;
    }
    *verf_off = 20;
    *verf_len = vl;
    return off;
}

/* Applies t to reply (a malloc'd message); the body of the previous reply
 * for the splice is prev.  true if it could. */
static bool apply_tamper(enum tamper t, gk5_buffer *reply, const uint8_t *prev,
                         size_t prev_len)
{
    uint8_t *r = reply->value;
    size_t verf_off = 0, verf_len = 0;
    size_t off = reply_body_off(r, reply->length, &verf_off, &verf_len);
    size_t body_len = reply->length - off;

    if (off == 0 || verf_len == 0) {
        return false;
    }
    switch (t) {
    case T_NONE:
        return true;
    case T_VERF:
        r[verf_off + verf_len - 1] ^= 0x01;
        return true;
    case T_BODY:
        if (body_len < 12) {
            return false;
        }
        /* Inside the results themselves: past the body's first length
         * and its seq_num (krb5i), well inside the token (krb5p). */
        r[off + body_len / 2] ^= 0x10;
        return true;
    case T_SPLICE: {
        uint8_t *n;

        if (prev == NULL) {
            return false;
        }
        n = malloc(off + prev_len);
        if (n == NULL) {
            return false;
        }
        memcpy(n, r, off);
        memcpy(n + off, prev, prev_len);
        free(reply->value);
        reply->value = n;
        reply->length = off + prev_len;
        return true;
    }
    case T_CUT_BODY:
        if (body_len < 8) {
            return false;
        }
        reply->length = off + body_len / 2;
        return true;
    case T_CUT_TAIL:
        if (body_len < 4) {
            return false;
        }
        reply->length -= 4;
        return true;
    case T_CUT_ALL:
        reply->length = off;
        return true;
    case T_CUT_HDR:
        reply->length = 12;
        return true;
    case T_CUT_VERF:
        reply->length = verf_off + 8 + verf_len / 2;
        return true;
    }
    return false;
}

static void send_reply(int fd, const gk5_buffer *reply)
{
    struct iovec iov = {reply->value, reply->length};
    gk5_rpc_error err;

    if (gk5i_rpc_write_record(fd, &iov, 1, &err) != 0) {
        diag("server: write: %s", err.text);
    }
}

/* Is msg an RPCSEC_GSS_INIT call?  RFC 5531 9 call header (xid, CALL, 2,
 * prog, vers, proc), then the credential: flavour 6, its length, and the
 * rpc_gss_cred_vers_1_t's version and gss_proc (RFC 2203 5). */
static bool is_gss_init(const uint8_t *msg, size_t len)
{
    return len >= 40 && gk5i_get32(msg + 4) == 0 &&
           gk5i_get32(msg + 24) == GK5_RPC_FLAVOR_RPCSEC_GSS &&
           gk5i_get32(msg + 36) == GK5I_RPCSEC_GSS_INIT;
}

/* One call record from fd: the RPCSEC_GSS server's verdict, the echo for a
 * dispatched call (the arguments are an opaque<>, the results the same),
 * the tamper the test asked for. */
static void serve_record(struct server *s, int fd, uint8_t *msg, size_t len,
                         gk5_buffer *held)
{
    gk5_rpc_call *call = NULL;
    gk5_buffer reply = {0, NULL};
    gk5_rpc_error err;
    uint8_t *copy = malloc(len != 0 ? len : 1);
    gk5_rpc_verdict v;

    if (copy == NULL) {
        return;
    }
    memcpy(copy, msg, len); /* msg is decrypted in place */
    if (is_gss_init(msg, len)) {
        uint8_t *init = malloc(len);

        if (init != NULL) {
            memcpy(init, msg, len);
            (void)pthread_mutex_lock(&s->lock);
            free(s->last_init);
            s->last_init = init;
            s->last_init_len = len;
            (void)pthread_mutex_unlock(&s->lock);
        }
    }
    v = gk5_rpc_server_process(s->srv, msg, len, &call, &reply, &err);
    switch (v) {
    case GK5_RPC_CALL_DISPATCH: {
        size_t args_len = 0;
        const void *args = gk5_rpc_call_args(call, &args_len);
        gk5_rpc_service svc = gk5_rpc_call_service(call);
        size_t verf_off, verf_len, off;
        enum tamper t;

        if (gk5_rpc_server_reply(s->srv, call, GK5_RPC_SUCCESS, args, args_len,
                                 &reply, &err) != 0) {
            diag("server: gk5_rpc_server_reply: %s", err.text);
            break;
        }
        (void)pthread_mutex_lock(&s->lock);
        t = s->tamper;
        s->tamper = T_NONE;
        free(s->last_call);
        s->last_call = copy;
        s->last_call_len = len;
        copy = NULL;
        /* The authentic body before any tampering, for a later splice. */
        off = reply_body_off(reply.value, reply.length, &verf_off, &verf_len);
        size_t keep_len = off != 0 ? reply.length - off : 0;
        uint8_t *keep = malloc(keep_len + 1);
        if (keep != NULL && keep_len != 0) {
            memcpy(keep, (uint8_t *)reply.value + off, keep_len);
        }
        s->tampered = apply_tamper(t, &reply, s->prev[svc], s->prev_len[svc]);
        free(s->prev[svc]);
        s->prev[svc] = keep;
        s->prev_len[svc] = keep != NULL ? keep_len : 0;
        s->dispatched++;
        s->last_service = svc;
        bool stray = s->stray;
        unsigned hold_ms = s->hold_ms;
        s->stray = false;
        s->hold_ms = 0;
        (void)pthread_cond_broadcast(&s->cond);
        (void)pthread_mutex_unlock(&s->lock);
        if (stray && reply.length >= 4) {
            /* The same reply with an XID that answers no call (the
             * client's XIDs count up from one random start). */
            gk5_buffer other = {reply.length, malloc(reply.length)};

            if (other.value != NULL) {
                memcpy(other.value, reply.value, reply.length);
                gk5i_put32(other.value, gk5i_get32(other.value) ^ 0x80000000u);
                send_reply(fd, &other);
                free(other.value);
            }
        }
        if (hold_ms != 0) {
            struct timespec d = {hold_ms / 1000,
                                 (long)(hold_ms % 1000) * 1000000L};

            while (nanosleep(&d, &d) != 0 && errno == EINTR) {
            }
        }
        if (held != NULL) {
            *held = reply;
            reply.value = NULL;
            reply.length = 0;
        } else {
            send_reply(fd, &reply);
        }
        if (hold_ms != 0) {
            (void)pthread_mutex_lock(&s->lock);
            s->held_sent++;
            (void)pthread_cond_broadcast(&s->cond);
            (void)pthread_mutex_unlock(&s->lock);
        }
        break;
    }
    case GK5_RPC_CALL_REPLY:
        send_reply(fd, &reply);
        break;
    case GK5_RPC_CALL_DROP:
        (void)pthread_mutex_lock(&s->lock);
        s->drops++;
        s->drop_err = err;
        (void)pthread_cond_broadcast(&s->cond);
        (void)pthread_mutex_unlock(&s->lock);
        break;
    }
    gk5_buffer_release(&reply);
    free(copy);
}

/* n call records from fd, the first (buf) already read: each served in
 * turn, the replies written in reverse order.  Every read is bounded. */
static void serve_reversed(struct server *s, int fd, unsigned n,
                           size_t max_record, uint8_t *buf, size_t len)
{
    gk5_buffer held[REVERSE_MAX];
    unsigned got = 0;

    memset(held, 0, sizeof(held));
    if (n > REVERSE_MAX) {
        n = REVERSE_MAX;
    }
    while (buf != NULL) {
        gk5_rpc_error err;

        serve_record(s, fd, buf, len, &held[got]);
        free(buf);
        buf = NULL;
        if (++got < n &&
            gk5i_rpc_read_record(fd, max_record, 2000, &buf, &len, &err) != 0) {
            diag("server: %u of %u records to reverse: %s", got, n, err.text);
            buf = NULL;
        }
    }
    for (unsigned k = got; k-- > 0;) {
        if (held[k].value != NULL) {
            send_reply(fd, &held[k]);
        }
        gk5_buffer_release(&held[k]);
    }
    (void)pthread_mutex_lock(&s->lock);
    s->reversed += got;
    (void)pthread_cond_broadcast(&s->cond);
    (void)pthread_mutex_unlock(&s->lock);
}

static void *server_main(void *arg)
{
    struct server *s = arg;
    struct pollfd pfd[2 + MAX_CONNS];
    int conns[MAX_CONNS];
    size_t max_record = 0;
    uint32_t idle = 0;
    int i;

    gk5i_rpc_server_limits(s->srv, &max_record, &idle);
    for (i = 0; i < MAX_CONNS; i++) {
        conns[i] = -1;
    }
    for (;;) {
        pfd[0].fd = s->wake[0];
        pfd[0].events = POLLIN;
        pfd[1].fd = s->lfd;
        pfd[1].events = POLLIN;
        for (i = 0; i < MAX_CONNS; i++) {
            pfd[2 + i].fd = conns[i];
            pfd[2 + i].events = POLLIN;
            pfd[2 + i].revents = 0;
        }
        if (poll(pfd, 2 + MAX_CONNS, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (pfd[0].revents != 0) {
            break;
        }
        if (pfd[1].revents & POLLIN) {
            int fd = accept(s->lfd, NULL, NULL);

            for (i = 0; fd >= 0 && i < MAX_CONNS && conns[i] >= 0; i++) {
            }
            if (fd >= 0 && i < MAX_CONNS) {
                conns[i] = fd;
            } else if (fd >= 0) {
                close(fd);
            }
        }
        for (i = 0; i < MAX_CONNS; i++) {
            uint8_t *buf = NULL;
            size_t len = 0;
            gk5_rpc_error err;
            int rc;

            if (conns[i] < 0 || pfd[2 + i].revents == 0) {
                continue;
            }
            rc = gk5i_rpc_read_record(conns[i], max_record, 2000, &buf, &len,
                                      &err);
            if (rc != 0) {
                close(conns[i]);
                conns[i] = -1;
                continue;
            }
            (void)pthread_mutex_lock(&s->lock);
            unsigned n_rev = s->reverse;
            s->reverse = 0;
            (void)pthread_mutex_unlock(&s->lock);
            if (n_rev > 1) {
                serve_reversed(s, conns[i], n_rev, max_record, buf, len);
                continue;
            }
            serve_record(s, conns[i], buf, len, NULL);
            free(buf);
        }
    }
    for (i = 0; i < MAX_CONNS; i++) {
        if (conns[i] >= 0) {
            close(conns[i]);
        }
    }
    return NULL;
}

static int server_start(struct server *s, const char *dir,
                        gk5_rpc_establish establish)
{
    char keytab[4096];
    gk5_rpc_server_options opts;
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    gk5_rpc_error err;

    memset(s, 0, sizeof(*s));
    s->lfd = -1;
    s->wake[0] = s->wake[1] = -1;
    (void)pthread_mutex_init(&s->lock, NULL);
    (void)pthread_cond_init(&s->cond, NULL);
    snprintf(keytab, sizeof(keytab), "%s/service.keytab", dir);
    memset(&opts, 0, sizeof(opts));
    opts.keytab = keytab;
    opts.principal = SERVICE_PRINCIPAL;
    opts.establish = establish;
    if (gk5_rpc_server_create(&opts, &s->srv, &err) != 0) {
        diag("gk5_rpc_server_create: %s", err.text);
        return -1;
    }
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(s->lfd, 8) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &alen) != 0 ||
        pipe(s->wake) != 0) {
        diag("server socket: %s", strerror(errno));
        return -1;
    }
    s->port = ntohs(a.sin_port);
    if (pthread_create(&s->tid, NULL, server_main, s) != 0) {
        diag("pthread_create failed");
        return -1;
    }
    s->started = true;
    return 0;
}

static void server_stop(struct server *s)
{
    if (s->started) {
        (void)!write(s->wake[1], "x", 1);
        (void)pthread_join(s->tid, NULL);
    }
    if (s->lfd >= 0) {
        close(s->lfd);
    }
    if (s->wake[0] >= 0) {
        close(s->wake[0]);
        close(s->wake[1]);
    }
    for (int i = 0; i < 4; i++) {
        free(s->prev[i]);
    }
    free(s->last_call);
    free(s->last_init);
    gk5_rpc_server_free(s->srv);
    (void)pthread_mutex_destroy(&s->lock);
    (void)pthread_cond_destroy(&s->cond);
}

static void set_tamper(struct server *s, enum tamper t)
{
    (void)pthread_mutex_lock(&s->lock);
    s->tamper = t;
    s->tampered = false;
    (void)pthread_mutex_unlock(&s->lock);
}

/* ---- The client ---- */

typedef struct {
    u_int len;
    char *val;
} opaque_arg;

static bool_t xdr_echo_opaque(XDR *xdrs, opaque_arg *o)
{
    return xdr_bytes(xdrs, &o->val, &o->len, RESULTS_CAP);
}

static int connect_to(uint16_t port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static CLIENT *client_create(uint16_t port)
{
    static struct sockaddr_in a;
    struct netbuf nb;
    CLIENT *clnt;
    int fd = connect_to(port);

    if (fd < 0) {
        return NULL;
    }
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    nb.maxlen = nb.len = sizeof(a);
    nb.buf = &a;
    clnt = clnt_vc_create(fd, &nb, PROG, VERS, 0, 0);
    if (clnt == NULL) {
        close(fd);
        return NULL;
    }
    clnt_control(clnt, CLSET_FD_CLOSE, NULL);
    return clnt;
}

struct result {
    enum clnt_stat st;
    int code; /* gk5_rpc_auth_last_error's, or 0 */
    char text[512];
    bool canary_intact; /* the results buffer untouched */
    bool echoed;        /* the results are the payload */
};

/* Call number call's arguments: each call's its own. */
static void stamp(unsigned call, uint8_t *payload)
{
    for (size_t i = 0; i < PAYLOAD; i++) {
        payload[i] = (uint8_t)(call * 37 + i * 11);
    }
}

static void echo(CLIENT *clnt, AUTH *auth, unsigned call, long timeout_ms,
                 struct result *r)
{
    uint8_t payload[PAYLOAD];
    uint8_t results[RESULTS_CAP];
    opaque_arg arg = {PAYLOAD, (char *)payload};
    opaque_arg res = {CANARY_LEN, (char *)results};
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    const gk5_rpc_error *e;
    size_t i;

    stamp(call, payload);
    memset(results, CANARY, sizeof(results));
    memset(r, 0, sizeof(*r));
    r->st = clnt_call(clnt, PROC_ECHO, XDRPROC(xdr_echo_opaque), (void *)&arg,
                      XDRPROC(xdr_echo_opaque), (void *)&res, tv);
    e = gk5_rpc_auth_last_error(auth);
    if (e != NULL) {
        r->code = e->code;
        snprintf(r->text, sizeof(r->text), "%s", e->text);
    }
    r->canary_intact = res.val == (char *)results && res.len == CANARY_LEN;
    for (i = 0; i < sizeof(results) && r->canary_intact; i++) {
        r->canary_intact = results[i] == CANARY;
    }
    r->echoed = r->st == RPC_SUCCESS && res.val == (char *)results &&
                res.len == PAYLOAD && memcmp(results, payload, PAYLOAD) == 0;
}

/* What a tampered reply must come to for svc: the clnt_stat and the gk5
 * error code; or false when the cell does not apply. */
static bool expected(enum tamper t, gk5_rpc_service svc, enum clnt_stat *st,
                     int *code, bool *canary)
{
    bool none = svc == GK5_RPC_SVC_NONE;

    *canary = true;
    switch (t) {
    case T_VERF:
        *st = RPC_AUTHERROR;
        *code = GK5_RPC_E_BAD_VERIFIER;
        return true;
    case T_BODY:
        *st = RPC_CANTDECODERES;
        *code = GK5_RPC_E_BAD_BODY;
        return !none; /* krb5 protects no results */
    case T_SPLICE:
        *st = RPC_CANTDECODERES;
        *code = GK5_RPC_E_SEQ_MISMATCH;
        return !none;
    case T_CUT_BODY:
    case T_CUT_TAIL:
    case T_CUT_ALL:
        *st = RPC_CANTDECODERES;
        *code = GK5_RPC_E_MALFORMED;
        /* krb5: libtirpc's xdr_bytes decodes straight from the stream
         * and has copied what there was before it finds the end: not
         * gk5's to prevent without a checksum. */
        *canary = !none;
        return true;
    case T_CUT_HDR:
    case T_CUT_VERF:
    case T_NONE:
        break;
    }
    return false;
}

/* The RFC 2743 3.1 framing's krb5 OID, then a KRB-ERROR's TOK_ID (RFC
 * 4121 4.1): somewhere in a framed KRB-ERROR token. */
static bool is_krb_error_token(const uint8_t *p, size_t n)
{
    static const uint8_t want[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
                                   0x12, 0x01, 0x02, 0x02, 0x03, 0x00};

    if (n < sizeof(want) || p[0] != 0x60) {
        return false;
    }
    for (size_t i = 1; i + sizeof(want) <= n && i < 8; i++) {
        if (memcmp(p + i, want, sizeof(want)) == 0) {
            return true;
        }
    }
    return false;
}

/* The client's RPCSEC_GSS_INIT again, on a socket of its own: the
 * acceptor's replay cache must refuse it (RFC 4120 3.2.3) in the
 * rpc_gss_init_res (RFC 2203 5.2.3.1), and make no context. */
static void replay_init(struct server *s, const char *name, bool native)
{
    uint8_t *rec = NULL, *rep = NULL;
    size_t rec_len = 0, rep_len = 0;
    size_t before = gk5_rpc_server_contexts(s->srv);
    gk5_rpc_error err;
    int fd;

    (void)pthread_mutex_lock(&s->lock);
    if (s->last_init != NULL && (rec = malloc(s->last_init_len)) != NULL) {
        memcpy(rec, s->last_init, s->last_init_len);
        rec_len = s->last_init_len;
    }
    (void)pthread_mutex_unlock(&s->lock);
    fd = connect_to(s->port);
    if (rec == NULL || fd < 0) {
        tap(false, "%s: replayed INIT: no INIT captured or no connection",
            name);
        goto cleanup;
    }
    struct iovec iov = {rec, rec_len};
    if (gk5i_rpc_write_record(fd, &iov, 1, &err) != 0 ||
        gk5i_rpc_read_record(fd, 65536, CALL_TIMEOUT_S * 1000, &rep, &rep_len,
                             &err) != 0) {
        tap(false, "%s: replayed INIT: no reply: %s", name, err.text);
        goto cleanup;
    }
    /* xid, REPLY, MSG_ACCEPTED, verifier, SUCCESS, then rpc_gss_init_res:
     * handle<>, gss_major, gss_minor, seq_window, gss_token<>. */
    size_t verf_off = 0, verf_len = 0;
    size_t off = reply_body_off(rep, rep_len, &verf_off, &verf_len);
    bool parsed = false;
    uint32_t handle_len = 0, major = 0, minor = 0, tok_len = 0;
    const uint8_t *tok = NULL;

    if (off != 0 && gk5i_get32(rep + off - 4) == GK5_RPC_SUCCESS &&
        rep_len - off >= 4) {
        handle_len = gk5i_get32(rep + off);
        size_t p = off + 4 + handle_len + gk5i_xdr_pad(handle_len);
        if (handle_len <= 64 && p + 16 <= rep_len) {
            major = gk5i_get32(rep + p);
            minor = gk5i_get32(rep + p + 4);
            tok_len = gk5i_get32(rep + p + 12);
            tok = rep + p + 16;
            parsed = tok_len <= rep_len - (p + 16);
        }
    }
    bool refused = parsed && handle_len == 0 && (major & 0xffff0000u) != 0 &&
                   gk5_rpc_server_contexts(s->srv) == before;
    if (native) {
        tap(refused && GK5_ERR_CODE(minor) == GK5_ERR_AP_REPEAT &&
                is_krb_error_token(tok, tok_len),
            "%s: a replayed INIT is refused: gss_major 0x%08x, gss_minor "
            "%s, a %u-byte KRB-ERROR token",
            name, major, gk5_strerror(minor), tok_len);
    } else {
        tap(refused,
            "%s: a replayed INIT is refused: gss_major 0x%08x, "
            "gss_minor %u (MIT's), a %u-byte token",
            name, major, minor, tok_len);
    }
cleanup:
    if (fd >= 0) {
        close(fd);
    }
    free(rec);
    free(rep);
}

static void run_service(struct server *s, const char *dir, gk5_rpc_service svc,
                        const char *est, unsigned *callno)
{
    static const enum tamper cells[] = {T_VERF,     T_BODY,     T_SPLICE,
                                        T_CUT_BODY, T_CUT_TAIL, T_CUT_ALL};
    char name[64];
    char keytab[4096];
    gk5_rpc_auth_options opts;
    gk5_rpc_error err;
    struct result r;
    CLIENT *clnt = client_create(s->port);
    AUTH *auth = NULL;

    snprintf(name, sizeof(name), "%s, %s", est, gk5_rpc_service_name(svc));
    if (clnt == NULL) {
        tap(false, "%s: connect to 127.0.0.1:%u", name, s->port);
        return;
    }
    snprintf(keytab, sizeof(keytab), "%s/client.keytab", dir);
    memset(&opts, 0, sizeof(opts));
    opts.principal = PRINCIPAL;
    opts.client_keytab = keytab;
    opts.ccache = "MEMORY:gk5-rpc-tamper";
    opts.timeout_ms = 5000;
    memset(&err, 0, sizeof(err));
    auth = gk5_rpc_auth_create(clnt, TARGET, svc, &opts, &err);
    tap(auth != NULL, "%s: context established%s%s", name,
        auth == NULL ? ": " : "", auth == NULL ? err.text : "");
    if (auth == NULL) {
        clnt_destroy(clnt);
        return;
    }
    if (clnt->cl_auth != NULL) {
        auth_destroy(clnt->cl_auth); /* clnt_vc_create's AUTH_NONE */
    }
    clnt->cl_auth = auth;

    echo(clnt, auth, (*callno)++, CALL_TIMEOUT_S * 1000, &r);
    tap(r.echoed, "%s: an untouched call echoes (%s%s%s)", name,
        clnt_sperrno(r.st), r.code != 0 ? "; " : "", r.text);

    for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
        enum tamper t = cells[c];
        enum clnt_stat want_st = RPC_SUCCESS;
        int want_code = 0;
        bool want_canary = true;
        bool applied;

        if (!expected(t, svc, &want_st, &want_code, &want_canary)) {
            printf("ok %u - %s: %s # SKIP %s protects no results\n", ++n_tests,
                   name, tamper_names[t], name);
            continue;
        }
        set_tamper(s, t);
        echo(clnt, auth, (*callno)++, CALL_TIMEOUT_S * 1000, &r);
        (void)pthread_mutex_lock(&s->lock);
        applied = s->tampered;
        (void)pthread_mutex_unlock(&s->lock);
        bool ok = applied && r.st == want_st && r.code == want_code;
        tap(ok, "%s: %s -> %s, %s", name, tamper_names[t], clnt_sperrno(r.st),
            r.code != 0 ? gk5_rpc_strerror(r.code) : "no gk5 error");
        if (!ok) {
            diag("applied %d; want %s and code %d (%s); got code %d: %s",
                 applied, clnt_sperrno(want_st), want_code,
                 gk5_rpc_strerror(want_code), r.code, r.text);
        }
        if (want_canary) {
            tap(r.canary_intact, "%s: %s: the results buffer is untouched",
                name, tamper_names[t]);
        }
        echo(clnt, auth, (*callno)++, CALL_TIMEOUT_S * 1000, &r);
        tap(r.echoed && r.code == 0,
            "%s: after %s the next call on the AUTH works (%s%s%s)", name,
            tamper_names[t], clnt_sperrno(r.st), r.code != 0 ? "; " : "",
            r.text);
    }

    /* RFC 2203 5.3.3.1: a replayed call gets no reply.  The last call the
     * server dispatched, as the client sent it, again on a socket of its
     * own. */
    {
        uint8_t *rec = NULL;
        size_t rec_len = 0;
        unsigned drops0, dispatched0;
        int fd;

        (void)pthread_mutex_lock(&s->lock);
        if (s->last_call != NULL && (rec = malloc(s->last_call_len)) != NULL) {
            memcpy(rec, s->last_call, s->last_call_len);
            rec_len = s->last_call_len;
        }
        drops0 = s->drops;
        dispatched0 = s->dispatched;
        (void)pthread_mutex_unlock(&s->lock);
        fd = connect_to(s->port);
        if (rec == NULL || fd < 0) {
            tap(false, "%s: replay: no call captured or no connection", name);
        } else {
            struct iovec iov = {rec, rec_len};
            struct pollfd p = {.fd = fd, .events = POLLIN};
            struct timespec until;
            int n, rc = 0;
            bool dropped = false;
            int drop_code = 0;
            bool redispatched = false;

            if (gk5i_rpc_write_record(fd, &iov, 1, &err) != 0) {
                diag("replay: write: %s", err.text);
            }
            n = poll(&p, 1, REPLAY_WAIT_MS);
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 2;
            (void)pthread_mutex_lock(&s->lock);
            while (s->drops == drops0 && rc == 0) {
                rc = pthread_cond_timedwait(&s->cond, &s->lock, &until);
            }
            dropped = s->drops > drops0;
            drop_code = s->drop_err.code;
            redispatched = s->dispatched != dispatched0;
            (void)pthread_mutex_unlock(&s->lock);
            tap(n == 0 && dropped && drop_code == GK5_RPC_E_SEQ_MISMATCH,
                "%s: a replayed call is dropped: no reply in %d ms (%s)", name,
                REPLAY_WAIT_MS,
                dropped        ? gk5_rpc_strerror(drop_code)
                : redispatched ? "the server DISPATCHED it again"
                               : "the server never saw it");
        }
        if (fd >= 0) {
            close(fd);
        }
        free(rec);
        echo(clnt, auth, (*callno)++, CALL_TIMEOUT_S * 1000, &r);
        tap(r.echoed, "%s: after the replay the next call works (%s%s%s)", name,
            clnt_sperrno(r.st), r.code != 0 ? "; " : "", r.text);
    }
    replay_init(s, name, strcmp(est, "native") == 0);

    /* RFC 2203 5.3.2: the service is chosen per call; one context serves
     * them all.  Switch through the other two and back. */
    static const gk5_rpc_service order[] = {
        GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};
    size_t ctx_before = gk5_rpc_server_contexts(s->srv);
    for (size_t k = 1; k <= 3; k++) {
        gk5_rpc_service to = order[(svc - 1 + k) % 3];
        gk5_rpc_auth_info info;
        gk5_rpc_service seen;

        bool set = gk5_rpc_auth_set_service(auth, to) == 0 &&
                   gk5_rpc_auth_inquire(auth, &info) == 0 && info.service == to;
        echo(clnt, auth, (*callno)++, CALL_TIMEOUT_S * 1000, &r);
        (void)pthread_mutex_lock(&s->lock);
        seen = s->last_service;
        (void)pthread_mutex_unlock(&s->lock);
        tap(set && r.echoed && seen == to &&
                gk5_rpc_server_contexts(s->srv) == ctx_before,
            "%s: switched to %s on the same context: echoes, the server "
            "saw %s (%s%s%s)",
            name, gk5_rpc_service_name(to), gk5_rpc_service_name(seen),
            clnt_sperrno(r.st), r.code != 0 ? "; " : "", r.text);
    }
    tap(gk5_rpc_auth_set_service(auth, (gk5_rpc_service)7) == -1 &&
            gk5_rpc_auth_set_service(NULL, svc) == -1 &&
            gk5_rpc_auth_set_service(auth, svc) == 0,
        "%s: an unknown service or no AUTH is refused", name);

    /* RPCSEC_GSS_DESTROY on clnt's socket, then the socket. */
    size_t before = gk5_rpc_server_contexts(s->srv);
    auth_destroy(auth);
    clnt->cl_auth = NULL;
    clnt_destroy(clnt);
    tap(before >= 1 && gk5_rpc_server_contexts(s->srv) == before - 1,
        "%s: auth_destroy destroyed the context (%zu -> %zu)", name, before,
        gk5_rpc_server_contexts(s->srv));
}

/* ---- gk5_rpc_clnt, gk5's own client ---- */

/* The echo's XDR arguments (an opaque<> of PAYLOAD bytes) for call number
 * call: the results must be these bytes. */
static void native_args(unsigned call, uint8_t args[4 + PAYLOAD])
{
    gk5i_put32(args, PAYLOAD);
    stamp(call, args + 4);
}

struct nresult {
    int rc;
    gk5_rpc_error err;
    bool empty;  /* results empty */
    bool echoed; /* 0 and the results are this call's arguments */
    long long ms;
};

static long long mono_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void native_echo(gk5_rpc_clnt *c, unsigned call, struct nresult *r)
{
    uint8_t args[4 + PAYLOAD];
    gk5_buffer a = {sizeof(args), args};
    gk5_buffer res = {0, NULL};
    long long t0 = mono_ms();

    native_args(call, args);
    memset(r, 0, sizeof(*r));
    r->rc = gk5_rpc_clnt_call(c, PROC_ECHO, &a, &res, &r->err);
    r->ms = mono_ms() - t0;
    r->empty = res.value == NULL && res.length == 0;
    r->echoed = r->rc == 0 && res.length == sizeof(args) &&
                memcmp(res.value, args, sizeof(args)) == 0;
    gk5_buffer_release(&res);
}

static gk5_rpc_clnt *native_create(uint16_t port, const char *dir,
                                   gk5_rpc_service svc, unsigned timeout_ms,
                                   gk5_rpc_error *err)
{
    static char keytab[4096];
    struct sockaddr_in a;
    gk5_rpc_clnt_options opts;
    gk5_rpc_clnt *c = NULL;

    snprintf(keytab, sizeof(keytab), "%s/client.keytab", dir);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    memset(&opts, 0, sizeof(opts));
    opts.gss.principal = PRINCIPAL;
    opts.gss.client_keytab = keytab;
    opts.gss.ccache = "MEMORY:gk5-rpc-tamper";
    opts.gss.timeout_ms = 5000;
    opts.call_timeout_ms = timeout_ms;
    memset(err, 0, sizeof(*err));
    if (gk5_rpc_clnt_create((struct sockaddr *)&a, sizeof(a), PROG, VERS,
                            TARGET, svc, &opts, &c, err) != 0) {
        return NULL;
    }
    return c;
}

/* What gk5_rpc_clnt_call must fail with for tamper t under svc; false
 * when the cell does not apply. */
static bool native_expected(enum tamper t, gk5_rpc_service svc, int *code)
{
    bool none = svc == GK5_RPC_SVC_NONE;

    switch (t) {
    case T_VERF:
        *code = GK5_RPC_E_BAD_VERIFIER;
        return true;
    case T_BODY:
        *code = GK5_RPC_E_BAD_BODY;
        return !none;
    case T_SPLICE:
        /* gk5i_rpc_body_open: the earlier body is authentic (its MIC or
         * Wrap token checks), its seq_num is not this call's. */
        *code = GK5_RPC_E_SEQ_MISMATCH;
        return !none;
    case T_CUT_HDR:
    case T_CUT_VERF:
        /* gk5i_rpc_reply_decode. */
        *code = GK5_RPC_E_MALFORMED;
        return true;
    case T_CUT_BODY:
    case T_CUT_TAIL:
    case T_CUT_ALL:
        /* krb5: the results are the caller's to decode, unchecked. */
        *code = GK5_RPC_E_MALFORMED;
        return !none;
    case T_NONE:
        break;
    }
    return false;
}

/* Wait (bounded) until *counter reaches want; under no lock. */
static bool wait_count(struct server *s, const unsigned *counter, unsigned want)
{
    struct timespec until;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += CALL_TIMEOUT_S;
    (void)pthread_mutex_lock(&s->lock);
    while (*counter < want && rc == 0) {
        rc = pthread_cond_timedwait(&s->cond, &s->lock, &until);
    }
    bool ok = *counter >= want;
    (void)pthread_mutex_unlock(&s->lock);
    return ok;
}

/* N_REVERSE calls out with gk5_rpc_clnt_send, the server answering them in
 * reverse order, waited for in send order: each gets its own results. */
static void native_reversed(struct server *s, gk5_rpc_clnt *c, const char *name,
                            unsigned *callno)
{
    uint64_t ids[N_REVERSE];
    unsigned nums[N_REVERSE];
    unsigned sent = 0, right = 0, reversed0;
    gk5_rpc_error err;
    char why[640] = "";

    (void)pthread_mutex_lock(&s->lock);
    s->reverse = N_REVERSE;
    reversed0 = s->reversed;
    (void)pthread_mutex_unlock(&s->lock);
    for (; sent < N_REVERSE; sent++) {
        uint8_t args[4 + PAYLOAD];
        gk5_buffer a = {sizeof(args), args};

        nums[sent] = (*callno)++;
        native_args(nums[sent], args);
        if (gk5_rpc_clnt_send(c, PROC_ECHO, &a, &ids[sent], &err) != 0) {
            snprintf(why, sizeof(why), "send %u: %s", sent, err.text);
            break;
        }
    }
    for (unsigned k = 0; k < sent; k++) {
        uint8_t args[4 + PAYLOAD];
        gk5_buffer res = {0, NULL};

        native_args(nums[k], args);
        if (gk5_rpc_clnt_wait(c, ids[k], &res, &err) == 0 &&
            res.length == sizeof(args) &&
            memcmp(res.value, args, sizeof(args)) == 0) {
            right++;
        } else if (why[0] == '\0') {
            snprintf(why, sizeof(why), "call %u: %s", k,
                     err.code != 0 ? err.text : "results not its arguments");
        }
        gk5_buffer_release(&res);
    }
    (void)pthread_mutex_lock(&s->lock);
    unsigned reversed = s->reversed - reversed0;
    s->reverse = 0;
    (void)pthread_mutex_unlock(&s->lock);
    tap(sent == N_REVERSE && right == N_REVERSE && reversed == N_REVERSE,
        "%s: gk5_rpc_clnt: %u calls sent, answered in reverse (%u), waited "
        "for in send order: %u got their own results%s%s",
        name, sent, reversed, right, why[0] != '\0' ? "; " : "", why);
}

/* The echo's arguments for a call of n bytes: an opaque<> whose bytes
 * depend on the call's number, so no call's results pass for another's. */
static uint8_t *sized_args(unsigned call, size_t n, size_t *len)
{
    size_t pad = (4 - n % 4) % 4;
    uint8_t *a = calloc(1, 4 + n + pad);

    if (a == NULL) {
        return NULL;
    }
    gk5i_put32(a, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        a[4 + i] = (uint8_t)(i * 131u + (i >> 9) + call * 7u);
    }
    *len = 4 + n + pad;
    return a;
}

/* Large and small calls on one client, one at a time and then all out at
 * once: each gets its own results, whatever the size of the one before.
 * With krb5p the client keeps the buffers it sealed the large ones in:
 * afterwards none of them holds a call's arguments in the clear. */
static void native_sizes(gk5_rpc_clnt *c, const char *name, gk5_rpc_service svc,
                         unsigned *callno)
{
    static const size_t sizes[] = {(1u << 20) + 3, 200, 17,
                                   (2u << 20) + 1, 0,   (1u << 20) + 3};
    enum { N = sizeof(sizes) / sizeof(sizes[0]) };
    uint8_t *args[N] = {NULL};
    size_t lens[N] = {0};
    uint64_t ids[N];
    unsigned right = 0, sent = 0, right_out = 0;
    gk5_rpc_error err;
    char why[640] = "";

    memset(&err, 0, sizeof(err));
    for (unsigned k = 0; k < 2 * N; k++) {
        unsigned i = k % N;
        gk5_buffer res = {0, NULL};
        free(args[i]);
        args[i] = sized_args((*callno)++, sizes[i], &lens[i]);
        if (args[i] == NULL) {
            snprintf(why, sizeof(why), "out of memory");
            break;
        }
        gk5_buffer a = {lens[i], args[i]};
        if (k >= N) {
            /* The second round: all out before any is waited for. */
            if (gk5_rpc_clnt_send(c, PROC_ECHO, &a, &ids[i], &err) != 0) {
                snprintf(why, sizeof(why), "send %u: %s", i, err.text);
                break;
            }
            sent++;
            continue;
        }
        if (gk5_rpc_clnt_call(c, PROC_ECHO, &a, &res, &err) == 0 &&
            res.length == lens[i] && memcmp(res.value, args[i], lens[i]) == 0) {
            right++;
        } else if (why[0] == '\0') {
            snprintf(why, sizeof(why), "call of %zu bytes: %s", sizes[i],
                     err.code != 0 ? err.text : "results not its arguments");
        }
        gk5_buffer_release(&res);
    }
    for (unsigned i = 0; i < sent; i++) {
        gk5_buffer res = {0, NULL};
        if (gk5_rpc_clnt_wait(c, ids[i], &res, &err) == 0 &&
            res.length == lens[i] && memcmp(res.value, args[i], lens[i]) == 0) {
            right_out++;
        } else if (why[0] == '\0') {
            snprintf(why, sizeof(why), "call %u out of %zu bytes: %s", i,
                     sizes[i],
                     err.code != 0 ? err.text : "results not its arguments");
        }
        gk5_buffer_release(&res);
    }
    tap(right == N && right_out == N,
        "%s: gk5_rpc_clnt: calls of 1 MiB, 200, 17, 2 MiB, 0 and 1 MiB bytes "
        "in turn (%u right) and all out at once (%u right) get their own "
        "results%s%s",
        name, right, right_out, why[0] != '\0' ? "; " : "", why);
    if (svc == GK5_RPC_SVC_PRIVACY) {
        /* 64 bytes from the middle of each large call's arguments. */
        bool found = false, any = false;
        size_t kept = 0, bytes = 0;
        for (unsigned i = 0; i < N; i++) {
            if (args[i] != NULL && lens[i] > 4096) {
                kept = gk5i_rpc_clnt_kept(c, args[i] + lens[i] / 2, 64, &found,
                                          &bytes);
                any = any || found;
            }
        }
        tap(kept >= 1 && !any,
            "%s: gk5_rpc_clnt: the %zu sealing buffers kept hold no call's "
            "arguments in the clear",
            name, kept);
        /* Larger than the client keeps a sealing buffer for (4 MiB): the
         * call works and its buffer is not kept. */
        size_t big = (5u << 20) + 1, blen = 0;
        uint8_t *ba = sized_args((*callno)++, big, &blen);
        gk5_buffer a = {blen, ba}, res = {0, NULL};
        bool ok = ba != NULL &&
                  gk5_rpc_clnt_call(c, PROC_ECHO, &a, &res, &err) == 0 &&
                  res.length == blen && memcmp(res.value, ba, blen) == 0;
        gk5_buffer_release(&res);
        found = false;
        if (ba != NULL) {
            kept = gk5i_rpc_clnt_kept(c, ba + blen / 2, 64, &found, &bytes);
        }
        tap(ok && !found && bytes < big,
            "%s: gk5_rpc_clnt: a call of 5 MiB echoes; no sealing buffer of "
            "its size is kept (%zu buffers, %zu bytes)%s%s",
            name, kept, bytes, ok ? "" : ": ", ok ? "" : err.text);
        free(ba);
    }
    for (unsigned i = 0; i < N; i++) {
        free(args[i]);
    }
}

/* A call whose reply the server holds past the client's call timeout:
 * GK5_RPC_E_TRANSPORT, rpc_stat 5 (RPC_TIMEDOUT); the late reply is
 * dropped and the next call works. */
static void native_timeout(struct server *s, const char *dir,
                           gk5_rpc_service svc, const char *name,
                           unsigned *callno)
{
    gk5_rpc_error err;
    struct nresult r;
    gk5_rpc_clnt *c = native_create(s->port, dir, svc, SHORT_TIMEOUT_MS, &err);

    if (c == NULL) {
        tap(false, "%s: gk5_rpc_clnt (%u ms calls): context: %s", name,
            SHORT_TIMEOUT_MS, err.text);
        return;
    }
    native_echo(c, (*callno)++, &r);
    tap(r.echoed,
        "%s: gk5_rpc_clnt (%u ms calls): an untouched call echoes "
        "(%s)",
        name, SHORT_TIMEOUT_MS, r.err.text);
    (void)pthread_mutex_lock(&s->lock);
    unsigned held0 = s->held_sent;
    s->hold_ms = HOLD_MS;
    (void)pthread_mutex_unlock(&s->lock);
    native_echo(c, (*callno)++, &r);
    tap(r.rc == -1 && r.err.code == GK5_RPC_E_TRANSPORT &&
            r.err.rpc_stat == 5 && r.empty && r.ms >= SHORT_TIMEOUT_MS &&
            r.ms < HOLD_MS,
        "%s: gk5_rpc_clnt: a reply held %u ms -> %s, rpc_stat %d, after "
        "%lld ms, results empty %d (%s)",
        name, HOLD_MS, gk5_rpc_strerror(r.err.code), r.err.rpc_stat, r.ms,
        r.empty, r.err.text);
    /* The late reply is on its way before the next call goes. */
    bool late = wait_count(s, &s->held_sent, held0 + 1);
    native_echo(c, (*callno)++, &r);
    tap(late && r.echoed,
        "%s: gk5_rpc_clnt: after the time-out the late reply is dropped and "
        "the next call works (%s)",
        name, r.err.text);
    gk5_rpc_clnt_free(c);
}

static void run_native(struct server *s, const char *dir, gk5_rpc_service svc,
                       const char *est, unsigned *callno)
{
    static const enum tamper cells[] = {T_VERF,     T_BODY,     T_SPLICE,
                                        T_CUT_HDR,  T_CUT_VERF, T_CUT_BODY,
                                        T_CUT_TAIL, T_CUT_ALL};
    char name[64];
    gk5_rpc_error err;
    struct nresult r;
    gk5_rpc_clnt *c;

    snprintf(name, sizeof(name), "%s, %s", est, gk5_rpc_service_name(svc));
    c = native_create(s->port, dir, svc, CALL_TIMEOUT_S * 1000, &err);
    tap(c != NULL, "%s: gk5_rpc_clnt: context established%s%s", name,
        c == NULL ? ": " : "", c == NULL ? err.text : "");
    if (c == NULL) {
        return;
    }
    native_echo(c, (*callno)++, &r);
    tap(r.echoed, "%s: gk5_rpc_clnt: an untouched call echoes (%s)", name,
        r.err.text);

    for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
        enum tamper t = cells[k];
        int want = 0;
        bool applied;

        if (!native_expected(t, svc, &want)) {
            printf("ok %u - %s: gk5_rpc_clnt: %s # SKIP %s protects no "
                   "results\n",
                   ++n_tests, name, tamper_names[t], name);
            continue;
        }
        set_tamper(s, t);
        native_echo(c, (*callno)++, &r);
        (void)pthread_mutex_lock(&s->lock);
        applied = s->tampered;
        (void)pthread_mutex_unlock(&s->lock);
        bool ok = applied && r.rc == -1 && r.err.code == want && r.empty;
        tap(ok, "%s: gk5_rpc_clnt: %s -> %s, results empty %d", name,
            tamper_names[t],
            r.rc == 0 ? "success" : gk5_rpc_strerror(r.err.code), r.empty);
        if (!ok) {
            diag("applied %d; want %s; got rc %d code %d: %s", applied,
                 gk5_rpc_strerror(want), r.rc, r.err.code, r.err.text);
        }
        native_echo(c, (*callno)++, &r);
        tap(r.echoed, "%s: gk5_rpc_clnt: after %s the next call works (%s)",
            name, tamper_names[t], r.err.text);
    }

    /* A reply to no call of this client's first: dropped. */
    (void)pthread_mutex_lock(&s->lock);
    s->stray = true;
    (void)pthread_mutex_unlock(&s->lock);
    native_echo(c, (*callno)++, &r);
    (void)pthread_mutex_lock(&s->lock);
    bool stray_sent = !s->stray;
    s->stray = false;
    (void)pthread_mutex_unlock(&s->lock);
    tap(stray_sent && r.echoed,
        "%s: gk5_rpc_clnt: a reply to an unknown XID before the real one is "
        "dropped; the call echoes (%s)",
        name, r.err.text);

    native_reversed(s, c, name, callno);
    native_sizes(c, name, svc, callno);
    native_echo(c, (*callno)++, &r);
    tap(r.echoed,
        "%s: gk5_rpc_clnt: after the reversed replies a call works "
        "(%s)",
        name, r.err.text);

    size_t before = gk5_rpc_server_contexts(s->srv);
    gk5_rpc_clnt_free(c);
    tap(before >= 1 && gk5_rpc_server_contexts(s->srv) == before - 1,
        "%s: gk5_rpc_clnt_free destroyed the context (%zu -> %zu)", name,
        before, gk5_rpc_server_contexts(s->srv));

    native_timeout(s, dir, svc, name, callno);
}

/* A libgk5_rpc built without MIT krb5: GK5_RPC_ESTABLISH_MIT refused on
 * both sides, GK5_RPC_E_INVALID with words that say why. */
static void mit_refused(const char *name)
{
    gk5_rpc_server_options so;
    gk5_rpc_auth_options ao;
    gk5_rpc_server *srv = NULL;
    gk5_rpc_error err;
    CLIENT *clnt;
    AUTH *auth;
    int rc;

    memset(&so, 0, sizeof(so));
    memset(&err, 0, sizeof(err));
    so.establish = GK5_RPC_ESTABLISH_MIT;
    rc = gk5_rpc_server_create(&so, &srv, &err);
    tap(rc == -1 && srv == NULL && err.code == GK5_RPC_E_INVALID &&
            strstr(err.text, "built without MIT krb5") != NULL,
        "%s: gk5_rpc_server_create refuses it in a build without MIT "
        "krb5 (%s)",
        name, err.text);
    gk5_rpc_server_free(srv);

    /* A CLIENT that is never connected: the refusal comes first. */
    clnt = clnt_raw_create(PROG, VERS);
    memset(&ao, 0, sizeof(ao));
    memset(&err, 0, sizeof(err));
    ao.establish = GK5_RPC_ESTABLISH_MIT;
    auth = clnt != NULL ? gk5_rpc_auth_create(clnt, TARGET, GK5_RPC_SVC_PRIVACY,
                                              &ao, &err)
                        : NULL;
    tap(clnt != NULL && auth == NULL && err.code == GK5_RPC_E_INVALID &&
            strstr(err.text, "built without MIT krb5") != NULL,
        "%s: gk5_rpc_auth_create refuses it in a build without MIT krb5 "
        "(%s)",
        name, err.text);
    if (auth != NULL) {
        auth_destroy(auth);
    }
    if (clnt != NULL) {
        clnt_destroy(clnt);
    }
}

int main(void)
{
    static const gk5_rpc_service svcs[] = {
        GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};
    static const struct {
        gk5_rpc_establish how;
        const char *name;
    } ests[] = {
        {GK5_RPC_ESTABLISH_NATIVE, "native"},
        {GK5_RPC_ESTABLISH_MIT, "mit"},
    };
    const char *dir = getenv("GK5_REALM_DIR");
    unsigned callno = 1;

    if (dir == NULL || getenv("KRB5_CONFIG") == NULL) {
        printf("1..0 # SKIP run through gk5 realm run --tap\n");
        return 0;
    }
    for (size_t e = 0; e < sizeof(ests) / sizeof(ests[0]); e++) {
        struct server s;

        if (!gk5_rpc_establish_available(ests[e].how)) {
            mit_refused(ests[e].name);
            continue;
        }
        if (server_start(&s, dir, ests[e].how) != 0) {
            tap(false, "%s: server on 127.0.0.1", ests[e].name);
            server_stop(&s);
            continue;
        }
        diag("server (establish %s) on 127.0.0.1:%u", ests[e].name, s.port);
        for (size_t i = 0; i < sizeof(svcs) / sizeof(svcs[0]); i++) {
            run_service(&s, dir, svcs[i], ests[e].name, &callno);
            run_native(&s, dir, svcs[i], ests[e].name, &callno);
        }
        server_stop(&s);
    }
    printf("1..%u\n", n_tests);
    return n_failed == 0 ? 0 : 1;
}
