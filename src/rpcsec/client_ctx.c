/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS version 1 (RFC 2203), client side: contexts, their sequence
 * numbers, and the control protocol that makes and destroys them.  The
 * libtirpc AUTH (client.c) and gk5's own transport (clnt.c) both stand on
 * this; it needs no libtirpc.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifdef GK5_RPC_WITH_MIT
#include <com_err.h>
#endif
#include <openssl/rand.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/client_int.h"

/* DESTROY is a courtesy to the server: do not hold destroy up for long. */
#define DESTROY_TIMEOUT_MS 2000
/* The krb5 mechanism needs two legs; anything past this is a loop. */
#define MAX_INIT_LEGS 8
/* How long a call waits for an older one before it goes anyway. */
#define FLOW_WAIT_MS 1000

int gk5i_rpc_service_valid(gk5_rpc_service svc)
{
    return svc == GK5_RPC_SVC_NONE || svc == GK5_RPC_SVC_INTEGRITY ||
           svc == GK5_RPC_SVC_PRIVACY;
}

/* RFC 5531 9 and RFC 2203 5.3.3.3. */
const char *gk5i_rpc_auth_stat_words(uint32_t why)
{
    switch (why) {
    case GK5I_AUTH_BADCRED:
        return "AUTH_BADCRED (bad credential)";
    case GK5I_AUTH_REJECTEDCRED:
        return "AUTH_REJECTEDCRED (the client must begin a new session)";
    case GK5I_AUTH_BADVERF:
        return "AUTH_BADVERF (bad verifier)";
    case GK5I_AUTH_REJECTEDVERF:
        return "AUTH_REJECTEDVERF (verifier expired or replayed)";
    case GK5I_AUTH_TOOWEAK:
        return "AUTH_TOOWEAK (rejected for security reasons: the server "
               "does not allow this flavour or service)";
    case 6:
        return "AUTH_INVALIDRESP (bogus response verifier)";
    case 7:
        return "AUTH_FAILED (reason unknown)";
    case GK5I_RPCSEC_GSS_CREDPROBLEM:
        return "RPCSEC_GSS_CREDPROBLEM (the server has no such context)";
    case GK5I_RPCSEC_GSS_CTXPROBLEM:
        return "RPCSEC_GSS_CTXPROBLEM (problem with the context)";
    }
    return "unknown auth_stat";
}

const char *gk5i_rpc_accept_stat_words(uint32_t stat)
{
    switch (stat) {
    case GK5_RPC_PROG_UNAVAIL:
        return "PROG_UNAVAIL (the program is not served there)";
    case GK5_RPC_PROG_MISMATCH:
        return "PROG_MISMATCH (version not served)";
    case GK5_RPC_PROC_UNAVAIL:
        return "PROC_UNAVAIL (no such procedure)";
    case GK5_RPC_GARBAGE_ARGS:
        return "GARBAGE_ARGS (the server could not decode the arguments)";
    case GK5_RPC_SYSTEM_ERR:
        return "SYSTEM_ERR (the server failed)";
    }
    return "unknown accept_stat";
}

/* ---- Contexts ---- */

static int flow_init(struct gk5i_cctx *cc)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&cc->flow_lock, NULL) != 0) {
        return -1;
    }
    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&cc->flow_cond, &ca) != 0) {
        (void)pthread_mutex_destroy(&cc->flow_lock);
        return -1;
    }
    (void)pthread_condattr_destroy(&ca);
    return 0;
}

void gk5i_cctx_release(struct gk5i_cctx *cc)
{
    if (cc == NULL || atomic_fetch_sub(&cc->refs, 1) != 1) {
        return;
    }
    gk5_ctx_free(cc->gss); /* wipes the keys */
    (void)pthread_mutex_destroy(&cc->flow_lock);
    (void)pthread_cond_destroy(&cc->flow_cond);
    zap(cc, sizeof(*cc));
    free(cc);
}

/*
 * Sequence numbers and the server's window (RFC 2203 5.3.3.1).  A server
 * drops, without a reply, a call whose number is window or more below the
 * highest it has seen.  Numbers are taken in marshal, but a call may then
 * wait (a descheduled thread, a busy connection, a server thread that has
 * not run yet) while calls on other threads and connections overtake it: on
 * two cores with eight threads sharing one context that happened within
 * seconds.  So a number is handed out only while it is less than the
 * oldest call still in flight plus the window: then no call in flight can
 * fall out of the window, whatever the order the server sees them in.  A
 * call ends when its reply has been checked (validate, unwrap, refresh), or
 * at the thread's next call or exit when no reply came; a call that is
 * stuck holds the others up for at most FLOW_WAIT_MS.
 */
static uint64_t flow_limit(const struct gk5i_cctx *cc)
{
    uint32_t w =
        cc->window < GK5I_RPC_FLOW_RING ? cc->window : GK5I_RPC_FLOW_RING;

    return cc->flow_base + w;
}

/* The next number for a data call (>= GK5I_RPC_DATA_SEQ_END when used up). */
uint64_t gk5i_flow_take(struct gk5i_cctx *cc)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    if (atomic_load(&cc->next_seq) >= flow_limit(cc)) {
        struct timespec until;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += FLOW_WAIT_MS / 1000;
        until.tv_nsec += (long)(FLOW_WAIT_MS % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (atomic_load(&cc->next_seq) >= flow_limit(cc)) {
            if (pthread_cond_timedwait(&cc->flow_cond, &cc->flow_lock,
                                       &until) != 0) {
                break; /* timed out: go; that older call is lost anyway */
            }
        }
    }
    uint64_t n = atomic_fetch_add(&cc->next_seq, 1);
    (void)pthread_mutex_unlock(&cc->flow_lock);
    return n;
}

bool gk5i_flow_ready(struct gk5i_cctx *cc)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    bool ready = atomic_load(&cc->next_seq) < flow_limit(cc);
    (void)pthread_mutex_unlock(&cc->flow_lock);
    return ready;
}

/* Call n has ended. */
void gk5i_flow_done(struct gk5i_cctx *cc, uint64_t n)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    if (n >= cc->flow_base && n - cc->flow_base < GK5I_RPC_FLOW_RING) {
        uint32_t i = (uint32_t)(n % GK5I_RPC_FLOW_RING);
        cc->flow_done[i / 8] |= (uint8_t)(1u << (i % 8));
        int moved = 0;
        for (;;) {
            uint32_t b = (uint32_t)(cc->flow_base % GK5I_RPC_FLOW_RING);
            uint8_t bit = (uint8_t)(1u << (b % 8));
            if ((cc->flow_done[b / 8] & bit) == 0) {
                break;
            }
            cc->flow_done[b / 8] &= (uint8_t)~bit;
            cc->flow_base++;
            moved = 1;
        }
        if (moved) {
            (void)pthread_cond_broadcast(&cc->flow_cond);
        }
    }
    (void)pthread_mutex_unlock(&cc->flow_lock);
}

int gk5i_cctx_expired(const struct gk5i_cctx *cc)
{
    return cc->endtime != 0 && (uint64_t)time(NULL) >= cc->endtime;
}

/* ---- Control messages (RFC 5531 9, RFC 2203 5.2, 5.4) ---- */

/* A control call: NULLPROC with an RPCSEC_GSS credential, the verifier
 * (AUTH_NONE during INIT/CONTINUE_INIT, RFC 2203 5.2.2; the header MIC of
 * RFC 5.3.1 with cc, for DESTROY) and the arguments: a GSS token as
 * opaque<> (RFC 2203 5.2.2 rpc_gss_init_arg) or void. */
GK5I_RPC_WUR int gk5i_rpc_control_call(const struct gk5i_rpc_est *p,
                                       struct gk5i_cctx *cc, uint32_t xid,
                                       const gk5i_rpc_cred *cred,
                                       const gk5_buffer *token, uint8_t **msg,
                                       size_t *msg_len, gk5_rpc_error *err)
{
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    struct gk5i_wr w;
    uint8_t *buf = NULL;
    size_t cap;
    int ret = -1;

    *msg = NULL;
    *msg_len = 0;
    size_t body_len = gk5i_rpc_cred_encode(cred, body, sizeof(body));
    if (body_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the RPCSEC_GSS credential does not fit 400 bytes");
        goto cleanup;
    }
    size_t tok_len = token != NULL ? token->length : 0;
    if (tok_len > GK5I_RPC_MAX_BODY_LIMIT) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "a GSS token of %zu bytes",
                     tok_len);
        goto cleanup;
    }
    cap = 6 * 4 + 8 + body_len + 8 + sizeof(mic) + 4 + tok_len + 3;
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    gk5i_wr_init(&w, buf, cap);
    gk5i_xdr_put_u32(&w, xid);
    gk5i_xdr_put_u32(&w, GK5I_RPC_MSG_CALL);
    gk5i_xdr_put_u32(&w, 2); /* RFC 5531 rpcvers */
    gk5i_xdr_put_u32(&w, p->prog);
    gk5i_xdr_put_u32(&w, p->vers);
    gk5i_xdr_put_u32(&w, 0); /* NULLPROC */
    gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(&w, body, body_len);
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "control call: no room");
        goto cleanup;
    }
    if (cc != NULL) {
        if (gk5i_rpc_mic(cc->gss, buf, cap - w.left, mic, sizeof(mic), &mic_len,
                         err) != 0) {
            goto cleanup;
        }
        gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
        gk5i_xdr_put_opaque(&w, mic, mic_len);
    } else {
        gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_NONE);
        gk5i_xdr_put_u32(&w, 0);
    }
    if (token != NULL) {
        gk5i_xdr_put_opaque(&w, token->value, token->length);
    }
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "control call: no room");
        goto cleanup;
    }
    *msg = buf;
    *msg_len = cap - w.left;
    buf = NULL;
    ret = 0;

cleanup:
    free(buf);
    return ret;
}

/* RFC 5531 9 reply message.  0 when it decodes (whatever it says), -1
 * with GK5_RPC_E_MALFORMED otherwise. */
GK5I_RPC_WUR int gk5i_rpc_reply_decode(const uint8_t *msg, size_t len,
                                       uint32_t xid, struct gk5i_rpc_reply *out,
                                       gk5_rpc_error *err)
{
    struct gk5i_rd r;
    struct gk5i_rpc_reply rep = {0};

    memset(out, 0, sizeof(*out));
    gk5i_rd_init(&r, msg, len);
    uint32_t got_xid = gk5i_xdr_get_u32(&r);
    uint32_t type = gk5i_xdr_get_u32(&r);
    rep.reply_stat = gk5i_xdr_get_u32(&r);
    if (!r.bad && (got_xid != xid || type != GK5I_RPC_MSG_REPLY)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the control reply is not a reply to our call (xid "
                     "%08x, type %u)",
                     got_xid, type);
        return -1;
    }
    if (rep.reply_stat == GK5I_RPC_MSG_ACCEPTED) {
        rep.verf_flavor = gk5i_xdr_get_u32(&r);
        rep.verf =
            gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &rep.verf_len);
        rep.stat = gk5i_xdr_get_u32(&r);
        if (rep.stat == GK5_RPC_SUCCESS && !r.bad) {
            rep.res = r.p;
            rep.res_len = r.left;
        } else if (rep.stat == GK5I_RPC_ACCEPT_PROG_MISMATCH) {
            rep.low = gk5i_xdr_get_u32(&r);
            rep.high = gk5i_xdr_get_u32(&r);
        }
    } else if (rep.reply_stat == GK5I_RPC_MSG_DENIED) {
        rep.stat = gk5i_xdr_get_u32(&r);
        if (rep.stat == GK5I_RPC_REJECT_RPC_MISMATCH) {
            rep.low = gk5i_xdr_get_u32(&r);
            rep.high = gk5i_xdr_get_u32(&r);
        } else if (rep.stat == GK5I_RPC_REJECT_AUTH_ERROR) {
            rep.why = gk5i_xdr_get_u32(&r);
        } else {
            r.bad = true;
        }
    } else {
        r.bad = true;
    }
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the control reply (%zu bytes) does not decode as an "
                     "RPC reply (RFC 5531 9)",
                     len);
        return -1;
    }
    *out = rep;
    return 0;
}

/* 0 for an accepted SUCCESS reply; otherwise -1 with the words. */
GK5I_RPC_WUR int gk5i_rpc_reply_ok(const struct gk5i_rpc_reply *rep,
                                   const char *what, gk5_rpc_error *err)
{
    if (rep->reply_stat == GK5I_RPC_MSG_ACCEPTED &&
        rep->stat == GK5_RPC_SUCCESS) {
        return 0;
    }
    if (rep->reply_stat == GK5I_RPC_MSG_DENIED &&
        rep->stat == GK5I_RPC_REJECT_AUTH_ERROR) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED, "%s: the server rejected it: %s",
                     what, gk5i_rpc_auth_stat_words(rep->why));
        if (err != NULL) {
            err->rpc_stat = GK5I_CLNT_AUTHERROR;
            err->auth_stat = rep->why;
        }
    } else if (rep->reply_stat == GK5I_RPC_MSG_DENIED) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED,
                     "%s: the server rejected it: RPC_MISMATCH (it speaks "
                     "RPC versions %u to %u)",
                     what, rep->low, rep->high);
        if (err != NULL) {
            err->rpc_stat = GK5I_CLNT_VERSMISMATCH;
        }
    } else if (rep->stat == GK5I_RPC_ACCEPT_PROG_MISMATCH) {
        gk5i_rpc_err(err, GK5_RPC_E_ACCEPT_STAT,
                     "%s: %s: the server has versions %u to %u", what,
                     gk5i_rpc_accept_stat_words(rep->stat), rep->low,
                     rep->high);
        if (err != NULL) {
            err->rpc_stat = GK5I_CLNT_PROGVERSMISMATCH;
        }
    } else {
        gk5i_rpc_err(err, GK5_RPC_E_ACCEPT_STAT, "%s: %s", what,
                     gk5i_rpc_accept_stat_words(rep->stat));
    }
    return -1;
}

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
static GK5I_RPC_WUR int control_exchange(const struct gk5i_rpc_est *p,
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

GK5I_RPC_WUR int gk5i_rpc_random_xid(uint32_t *xid, gk5_rpc_error *err)
{
    uint8_t b[4];

    *xid = 0;
    if (RAND_bytes(b, sizeof(b)) != 1) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "no random bytes for a transaction id (RAND_bytes)");
        return -1;
    }
    *xid = gk5i_get32(b);
    return 0;
}

/* ---- Context creation (RFC 2203 5.2) ---- */

void gk5i_init_res_free(struct gk5i_init_res *res)
{
    free(res->token);
    memset(res, 0, sizeof(*res)); /* not a wipe: ready for reuse */
}

void gk5i_init_res_err(gk5_rpc_error *err)
{
    gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                 "the server's rpc_gss_init_res does not decode (RFC 2203 "
                 "5.2.3.1; handles of at most %u bytes, tokens of at most "
                 "%zu)",
                 (unsigned)GK5I_RPC_MAX_HANDLE, GK5I_RPC_MAX_CONTROL_REPLY);
}

/* The one decoder of rpc_gss_init_res: the whole of the results, from a
 * raw reply or (in band) as libtirpc hands them over. */
GK5I_RPC_WUR int gk5i_init_res_decode(const uint8_t *p, size_t len,
                                      struct gk5i_init_res *res)
{
    struct gk5i_rd r;
    const uint8_t *tok;
    size_t n = 0;

    memset(res, 0, sizeof(*res));
    gk5i_rd_init(&r, p, len);
    gk5i_xdr_copy_opaque(&r, res->handle, sizeof(res->handle),
                         &res->handle_len);
    res->major = gk5i_xdr_get_u32(&r);
    res->minor = gk5i_xdr_get_u32(&r);
    res->window = gk5i_xdr_get_u32(&r);
    tok = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_CONTROL_REPLY, &n);
    if (!gk5i_rd_at_end(&r)) {
        memset(res, 0, sizeof(*res)); /* not a wipe: nothing decoded */
        return -1;
    }
    res->token = malloc(n != 0 ? n : 1);
    if (res->token == NULL) {
        memset(res, 0, sizeof(*res));
        return -1;
    }
    if (n != 0) {
        memcpy(res->token, tok, n);
    }
    res->token_len = n;
    return 0;
}

/* One leg as a message of our own: raw on fd, or on a fresh connection
 * when fd is -1. */
GK5I_RPC_WUR int gk5i_rpc_leg_raw(const struct gk5i_rpc_est *p, int fd,
                                  const gk5i_rpc_cred *cred,
                                  const gk5_buffer *tok, const char *what,
                                  struct gk5i_leg_reply *leg,
                                  gk5_rpc_error *err)
{
    uint8_t *msg = NULL, *rbuf = NULL;
    size_t msg_len = 0, rlen = 0;
    uint32_t xid;
    int ret = -1;

    if (gk5i_rpc_random_xid(&xid, err) != 0 ||
        gk5i_rpc_control_call(p, NULL, xid, cred, tok, &msg, &msg_len, err) !=
            0) {
        goto cleanup;
    }
    int r = fd >= 0 ? gk5i_rpc_record_exchange(fd, xid, msg, msg_len,
                                               (int)p->timeout_ms, &rbuf, &rlen,
                                               err)
                    : control_exchange(p, xid, msg, msg_len, (int)p->timeout_ms,
                                       &rbuf, &rlen, err);
    if (r != 0 || gk5i_rpc_leg_reply(rbuf, rlen, xid, what, leg, err) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(msg);
    free(rbuf);
    return ret;
}

int gk5i_rpc_leg_reply(const uint8_t *rec, size_t len, uint32_t xid,
                       const char *what, struct gk5i_leg_reply *leg,
                       gk5_rpc_error *err)
{
    struct gk5i_rpc_reply rep;

    if (gk5i_rpc_reply_decode(rec, len, xid, &rep, err) != 0 ||
        gk5i_rpc_reply_ok(&rep, what, err) != 0) {
        return -1;
    }
    if (gk5i_init_res_decode(rep.res, rep.res_len, &leg->res) != 0) {
        gk5i_init_res_err(err);
        return -1;
    }
    leg->verf_flavor = rep.verf_flavor;
    leg->verf_len = rep.verf_len;
    if (rep.verf_len > 0) {
        memcpy(leg->verf, rep.verf, rep.verf_len);
    }
    return 0;
}

/* A server's minor as a krb5 (com_err) code, in MIT's words when built
 * with MIT krb5. */
static const char *krb5_code_words(uint32_t minor)
{
#ifdef GK5_RPC_WITH_MIT
    return error_message((long)(int32_t)minor);
#else
    (void)minor;
    return "not known to this gk5, built without MIT krb5";
#endif
}

/* The server's GSS failure in words.  A gk5 server's minor is a gk5 code
 * (gk5_display_status names, e.g., an rc4 session key it refuses); an MIT
 * server's is a com_err code that our krb5 libraries may know (when built
 * with them). */
static void server_gss_err(gk5_rpc_error *err, const char *target,
                           uint32_t major, uint32_t minor)
{
    uint32_t code = GK5_ERR_CODE(minor);
    int gk5_code =
        code > 0 && code < GK5I_ERR_COUNT &&
        ((minor >> 16) == 0 || code == GK5_ERR_ENCTYPE_UNKNOWN ||
         code == GK5_ERR_ENCTYPE_REJECTED || code == GK5_ERR_ENCTYPE_NOT_BUILT);
    const char *words = gk5_code ? gk5_display_status(major, minor)
                                 : gk5_display_status(major, 0);

    if (gk5_code || minor == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x, gss_minor %u: %s",
                     target, major, minor, words);
    } else {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x (%s), gss_minor %u (0x%08x; as a "
                     "krb5 code: %s)",
                     target, major, words, minor, minor,
                     krb5_code_words(minor));
    }
    if (err != NULL) {
        err->major = major;
        err->minor = minor;
    }
}

/* ---- One establishment's initiator: gk5's own or MIT's ---- */

struct initiator {
    gk5_initiator *native;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_initiator *mit;
#endif
};

/* The AUTH's private ccache for a client keytab (native only): made once,
 * on the first establishment. */
static GK5I_RPC_WUR int own_ccache(struct gk5i_rpc_est *p, gk5_rpc_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    size_t n;

    if (p->own_ccache != NULL) {
        return 0;
    }
    if (tmp == NULL || tmp[0] != '/') {
        tmp = "/tmp";
    }
    if (snprintf(dir, sizeof(dir), "%s/gk5-rpc-XXXXXX", tmp) >=
            (int)sizeof(dir) ||
        mkdtemp(dir) == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "cannot make a private folder for the client "
                     "keytab's tickets under %s: %s",
                     tmp, strerror(errno));
        return -1;
    }
    n = strlen(dir) + sizeof("FILE:/ccache");
    p->own_dir = strdup(dir);
    p->own_ccache = malloc(n);
    if (p->own_dir == NULL || p->own_ccache == NULL) {
        (void)rmdir(dir);
        free(p->own_dir);
        free(p->own_ccache);
        p->own_dir = p->own_ccache = NULL;
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    (void)snprintf(p->own_ccache, n, "FILE:%s/ccache", dir);
    return 0;
}

static void own_ccache_remove(struct gk5i_rpc_est *p)
{
    if (p->own_dir == NULL) {
        return;
    }
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/ccache", p->own_dir) <
        (int)sizeof(path)) {
        (void)unlink(path);
    }
    (void)rmdir(p->own_dir);
}

static GK5I_RPC_WUR uint32_t initiator_create(uint32_t *minor,
                                              struct gk5i_rpc_est *p,
                                              struct initiator *in)
{
    in->native = NULL;
#ifdef GK5_RPC_WITH_MIT
    in->mit = NULL;
    if (p->establish == GK5_RPC_ESTABLISH_MIT) {
        gk5_mit_initiator_options mo = {
            .principal = p->principal,
            .ccache = p->ccache,
            .client_keytab = p->client_keytab,
            .enctypes = p->enctypes,
            .n_enctypes = p->n_enctypes,
            .req_flags = 0, /* mutual | integ | conf */
        };
        return gk5_mit_initiator_create(minor, p->target, &mo, &in->mit);
    }
#endif
    gk5_initiator_opts no = {
        .ccache = p->own_ccache != NULL ? p->own_ccache : p->ccache,
        .enctypes = p->enctypes,
        .n_enctypes = p->n_enctypes,
        .req_flags = GK5_C_MUTUAL_FLAG | GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG,
        .principal = p->principal,
        .client_keytab = p->client_keytab,
    };
    return gk5_initiator_create(minor, p->target, &no, &in->native);
}

static GK5I_RPC_WUR uint32_t initiator_step(uint32_t *minor,
                                            struct initiator *in,
                                            const gk5_buffer *tok_in,
                                            gk5_buffer *out)
{
#ifdef GK5_RPC_WITH_MIT
    if (in->mit != NULL) {
        return gk5_mit_initiator_step(minor, in->mit, tok_in, out);
    }
#endif
    return gk5_initiator_step(minor, in->native, tok_in, out);
}

static GK5I_RPC_WUR uint32_t initiator_finish(uint32_t *minor,
                                              struct initiator *in,
                                              int32_t *enctype, gk5_ctx **ctx)
{
#ifdef GK5_RPC_WITH_MIT
    if (in->mit != NULL) {
        return gk5_mit_initiator_finish(minor, in->mit, enctype, ctx);
    }
#endif
    return gk5_initiator_finish(minor, in->native, enctype, ctx);
}

static void initiator_free(struct initiator *in)
{
    gk5_initiator_free(in->native);
    in->native = NULL;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_initiator_free(in->mit);
    in->mit = NULL;
#endif
}

/* The words after a failed native step: the acceptor's or KDC's
 * KRB-ERROR, when one came. */
static void krb_error_words(gk5_rpc_error *err)
{
    const char *krb = gk5_krb_last_error();
    size_t used;

    if (err == NULL || krb == NULL) {
        return;
    }
    used = strlen(err->text);
    if (used + 3 < sizeof(err->text)) {
        (void)snprintf(err->text + used, sizeof(err->text) - used, " (%s)",
                       krb);
    }
}

/* One establishment under way: the initiator, the token it has to send,
 * and what the server's replies have said so far. */
struct est {
    struct initiator init;
    gk5_buffer tok;            /* the initiator's next token */
    struct gk5i_leg_reply leg; /* the server's last answer */
    uint8_t handle[GK5I_RPC_MAX_HANDLE];
    size_t handle_len; /* 0 until the first reply */
    uint8_t verf[GK5I_RPC_MAX_AUTH_BYTES];
    size_t verf_len;       /* the completing reply's verifier */
    uint32_t window;       /* the completing reply's seq_window */
    uint32_t server_major; /* the server's last gss_major */
    int sent;              /* a leg has gone out */
};

/* The initiator, on its own ccache when a native initiator is given a
 * keytab and no file ccache. */
static GK5I_RPC_WUR int est_begin(struct gk5i_rpc_est *p, struct est *e,
                                  gk5_rpc_error *err)
{
    uint32_t major, minor = 0;

    if (p->establish == GK5_RPC_ESTABLISH_NATIVE && p->client_keytab != NULL &&
        (p->ccache == NULL || strncmp(p->ccache, "MEMORY:", 7) == 0) &&
        own_ccache(p, err) != 0) {
        return -1;
    }
    major = initiator_create(&minor, p, &e->init);
    if (GK5_ERROR(major) == 0) {
        return 0;
    }
    gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                     "on this client, preparing to initiate (initiator "
                     "credential)");
#ifdef GK5_RPC_WITH_MIT
    if (e->init.mit == NULL) {
        krb_error_words(err);
    }
#else
    krb_error_words(err);
#endif
    return -1;
}

/* The initiator's next step on the server's last token (none before the
 * first leg).  1: a token to send; 0: both sides are done; -1: failed. */
static GK5I_RPC_WUR int est_step(const struct gk5i_rpc_est *p, struct est *e,
                                 int *done, gk5_rpc_error *err)
{
    gk5_buffer in = {e->leg.res.token_len, e->leg.res.token};
    uint32_t major, minor = 0;

    major = initiator_step(&minor, &e->init, e->sent ? &in : NULL, &e->tok);
    gk5i_init_res_free(&e->leg.res);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         e->init.native != NULL
                             ? "on this client, gk5_initiator_step"
                             : "on this client, gss_init_sec_context");
        if (e->init.native != NULL) {
            krb_error_words(err);
        }
        return -1;
    }
    *done = major == GK5_S_COMPLETE;
    if (e->tok.length == 0) {
        if (*done && e->sent && e->server_major == GK5_S_COMPLETE) {
            return 0;
        }
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "GSS-API has no token to send but the RPCSEC_GSS "
                     "exchange for %s is not complete",
                     p->target);
        return -1;
    }
    if (e->sent && e->server_major == GK5_S_COMPLETE) {
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "the server completed the context for %s but "
                     "GSS-API has another token to send",
                     p->target);
        return -1;
    }
    return 1;
}

/* One leg: the token to the server in INIT (first) or CONTINUE_INIT. */
static GK5I_RPC_WUR int est_send(struct gk5i_rpc_est *p, struct est *e,
                                 gk5i_rpc_leg_fn run_leg, void *arg,
                                 gk5_rpc_error *err)
{
    /* RFC 2203 5.2.2: seq_num is ignored by the server; the handle is
     * absent for INIT and the server's for CONTINUE_INIT. */
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = e->sent ? GK5I_RPCSEC_GSS_CONTINUE_INIT : GK5I_RPCSEC_GSS_INIT,
        .seq = 0,
        .service = (uint32_t)atomic_load(&p->service),
        .handle = e->sent ? e->handle : NULL,
        .handle_len = e->sent ? e->handle_len : 0,
    };
    const char *what = e->sent ? "RPCSEC_GSS_CONTINUE_INIT" : "RPCSEC_GSS_INIT";

    e->leg.verf_flavor = GK5_RPC_FLAVOR_NONE;
    e->leg.verf_len = 0;
    if (run_leg(arg, &cred, &e->tok, what, &e->leg, err) != 0) {
        return -1;
    }
    gk5_buffer_release(&e->tok);
    e->sent = 1;
    return 0;
}

/* The server's answer to a leg: a gss_major that is complete or continue,
 * a handle, and on completion the verifier (RFC 2203 5.2.3.1: the MIC of
 * seq_window, checked once the context is ours) and the window. */
static GK5I_RPC_WUR int est_take_reply(const struct gk5i_rpc_est *p,
                                       struct est *e, gk5_rpc_error *err)
{
    const struct gk5i_init_res *res = &e->leg.res;

    if (GK5_ERROR(res->major) != 0) {
        server_gss_err(err, p->target, res->major, res->minor);
        return -1;
    }
    if (res->major != GK5_S_COMPLETE && res->major != GK5_S_CONTINUE_NEEDED) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's RPCSEC_GSS_INIT reply has gss_major "
                     "0x%08x, neither complete nor continue",
                     res->major);
        return -1;
    }
    if (res->handle_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's RPCSEC_GSS_INIT reply has an empty "
                     "context handle");
        return -1;
    }
    memcpy(e->handle, res->handle, res->handle_len);
    e->handle_len = res->handle_len;
    e->server_major = res->major;
    if (e->server_major != GK5_S_COMPLETE) {
        return 0;
    }
    if (e->leg.verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        e->leg.verf_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                     "the server's completing RPCSEC_GSS_INIT reply "
                     "has a verifier of flavour %u, not the "
                     "RPCSEC_GSS MIC of seq_window (RFC 2203 "
                     "5.2.3.1)",
                     e->leg.verf_flavor);
        return -1;
    }
    memcpy(e->verf, e->leg.verf, e->leg.verf_len);
    e->verf_len = e->leg.verf_len;
    e->window = res->window;
    return 0;
}

/* The initiator's context into gk5, adopted as an RPCSEC_GSS client
 * context, and the completing reply's verifier checked with it. */
static GK5I_RPC_WUR int est_finish(struct est *e, struct gk5i_cctx **out,
                                   gk5_rpc_error *err)
{
    struct gk5i_cctx *cc = NULL;
    gk5_ctx *gss = NULL;
    int32_t enctype = 0;
    uint32_t major, minor = 0;

    major = initiator_finish(&minor, &e->init, &enctype, &gss);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(
            err, GK5_RPC_E_GSS, major, minor,
            "on this client, taking the established context into gk5");
        gk5_ctx_free(gss); /* NULL unless a failed finish left one */
        return -1;
    }
    /* RPCSEC_GSS keeps its own window (RFC 2203 5.3.3.1): replies to calls
     * made by many threads arrive in any order, so gk5's replay and
     * sequence checks would refuse good tokens (gk5i_cctx_adopt turns them
     * off).  Adopt takes gss, also when it fails. */
    if (gk5i_cctx_adopt(gss, e->handle, e->handle_len, e->window, &cc, err) !=
        0) {
        return -1;
    }
    if (gk5i_rpc_verify_u32(cc->gss, cc->window, e->verf, e->verf_len, err) !=
        0) {
        if (err != NULL) {
            (void)snprintf(err->text, sizeof(err->text),
                           "the verifier of the server's RPCSEC_GSS_INIT "
                           "reply is not the MIC of seq_window %u (RFC 2203 "
                           "5.2.3.1): %s",
                           cc->window,
                           gk5_display_status(err->major, err->minor));
        }
        gk5i_cctx_release(cc);
        return -1;
    }
    if (cc->window == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's seq_window is 0 (RFC 2203 5.2.3.1)");
        gk5i_cctx_release(cc);
        return -1;
    }
    *out = cc;
    return 0;
}

/* Make a new context: the INIT / CONTINUE_INIT legs through run_leg, until
 * the initiator and the server are both complete, then the initiator's
 * context into gk5. */
GK5I_RPC_WUR int gk5i_rpc_establish(struct gk5i_rpc_est *p, uint32_t gen,
                                    gk5i_rpc_leg_fn run_leg, void *arg,
                                    struct gk5i_cctx **out, gk5_rpc_error *err)
{
    struct est e = {.init = {.native = NULL},
                    .server_major = GK5_S_CONTINUE_NEEDED};
    int ret = -1, more, done = 0;

    *out = NULL;
    if (est_begin(p, &e, err) != 0) {
        goto cleanup;
    }
    for (int legs = 0;; legs++) {
        if (legs == MAX_INIT_LEGS) {
            gk5i_rpc_err(err, GK5_RPC_E_GSS,
                         "RPCSEC_GSS context creation for %s did not "
                         "finish in %d legs",
                         p->target, MAX_INIT_LEGS);
            goto cleanup;
        }
        more = est_step(p, &e, &done, err);
        if (more <= 0) {
            if (more < 0) {
                goto cleanup;
            }
            break;
        }
        if (est_send(p, &e, run_leg, arg, err) != 0 ||
            est_take_reply(p, &e, err) != 0) {
            goto cleanup;
        }
        if (done) {
            if (e.server_major != GK5_S_COMPLETE) {
                gk5i_rpc_err(err, GK5_RPC_E_GSS,
                             "GSS-API completed the context for %s but the "
                             "server wants more",
                             p->target);
                goto cleanup;
            }
            break;
        }
    }
    if (est_finish(&e, out, err) != 0) {
        goto cleanup;
    }
    (*out)->gen = gen;
    ret = 0;

cleanup:
    gk5_buffer_release(&e.tok);
    gk5i_init_res_free(&e.leg.res);
    initiator_free(&e.init);
    return ret;
}

/* The DESTROY call for cc: the next sequence number, or the one kept for
 * it (GK5I_RPC_DATA_SEQ_END) once data calls have used theirs up; a header MIC
 * and void arguments.  -1 when cc cannot sign any more (expired). */
GK5I_RPC_WUR int gk5i_rpc_destroy_call(const struct gk5i_rpc_est *p,
                                       struct gk5i_cctx *cc, uint32_t *xid,
                                       uint8_t **msg, size_t *msg_len)
{
    *msg = NULL;
    *msg_len = 0;
    if (gk5i_cctx_expired(cc)) {
        return -1;
    }
    uint64_t n = atomic_fetch_add(&cc->next_seq, 1);
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DESTROY,
        .seq = n < GK5I_RPC_DATA_SEQ_END ? (uint32_t)n : GK5I_RPC_DATA_SEQ_END,
        .service = (uint32_t)atomic_load(&p->service),
        .handle = cc->handle,
        .handle_len = cc->handle_len,
    };
    if (gk5i_rpc_random_xid(xid, NULL) != 0 ||
        gk5i_rpc_control_call(p, cc, *xid, &cred, NULL, msg, msg_len, NULL) !=
            0) {
        return -1;
    }
    return 0;
}

int gk5i_rpc_destroy_timeout(const struct gk5i_rpc_est *p)
{
    return p->timeout_ms < DESTROY_TIMEOUT_MS ? (int)p->timeout_ms
                                              : DESTROY_TIMEOUT_MS;
}

/* DESTROY cc and read the answer, which changes nothing: the context goes
 * either way.  On fd, the creation CLIENT's socket, or on a connection of
 * our own (-1). */
void gk5i_rpc_destroy_exchange(const struct gk5i_rpc_est *p,
                               struct gk5i_cctx *cc, int fd)
{
    uint8_t *msg = NULL, *rbuf = NULL;
    size_t msg_len = 0, rlen = 0;
    uint32_t xid;

    if (gk5i_rpc_destroy_call(p, cc, &xid, &msg, &msg_len) == 0) {
        int r = fd >= 0 ? gk5i_rpc_record_exchange(fd, xid, msg, msg_len,
                                                   gk5i_rpc_destroy_timeout(p),
                                                   &rbuf, &rlen, NULL)
                        : control_exchange(p, xid, msg, msg_len,
                                           gk5i_rpc_destroy_timeout(p), &rbuf,
                                           &rlen, NULL);
        (void)r;
    }
    free(msg);
    free(rbuf);
}

/* ---- Options ---- */

static GK5I_RPC_WUR int dup_opt(const char *s, char **out, gk5_rpc_error *err)
{
    *out = NULL;
    if (s == NULL) {
        return 0;
    }
    *out = strdup(s);
    if (*out == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    return 0;
}

int gk5i_rpc_est_init(struct gk5i_rpc_est *e, const char *what,
                      const char *target, gk5_rpc_service service,
                      const gk5_rpc_auth_options *opts, gk5_rpc_error *err)
{
    static const gk5_rpc_auth_options no_opts;

    memset(e, 0, sizeof(*e));
    e->peer.ss_family = AF_UNSPEC;
    atomic_init(&e->service, (int)service);
    if (opts == NULL) {
        opts = &no_opts;
    }
    if (opts->n_enctypes > 0 && opts->enctypes == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "%s: n_enctypes without enctypes",
                     what);
        return -1;
    }
    if (opts->establish != GK5_RPC_ESTABLISH_NATIVE &&
        opts->establish != GK5_RPC_ESTABLISH_MIT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "%s: establish is not a gk5_rpc_establish", what);
        return -1;
    }
    if (!gk5_rpc_establish_available(opts->establish)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "%s: establish GK5_RPC_ESTABLISH_MIT: %s", what,
                     GK5I_RPC_NO_MIT_WORDS);
        return -1;
    }
    e->establish = opts->establish;
    e->timeout_ms =
        opts->timeout_ms != 0 ? opts->timeout_ms : GK5I_RPC_DEFAULT_TIMEOUT_MS;
    if (e->timeout_ms > INT_MAX) {
        e->timeout_ms = INT_MAX;
    }
    e->max_body =
        opts->max_body != 0 ? opts->max_body : GK5I_RPC_DEFAULT_MAX_BODY;
    if (e->max_body > GK5I_RPC_MAX_BODY_LIMIT) {
        e->max_body = GK5I_RPC_MAX_BODY_LIMIT;
    }
    if (dup_opt(target, &e->target, err) != 0 ||
        dup_opt(opts->principal, &e->principal, err) != 0 ||
        dup_opt(opts->ccache, &e->ccache, err) != 0 ||
        dup_opt(opts->client_keytab, &e->client_keytab, err) != 0) {
        return -1;
    }
    if (opts->n_enctypes > 0) {
        e->enctypes = calloc(opts->n_enctypes, sizeof(*e->enctypes));
        if (e->enctypes == NULL) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
            return -1;
        }
        memcpy(e->enctypes, opts->enctypes,
               opts->n_enctypes * sizeof(*e->enctypes));
        e->n_enctypes = opts->n_enctypes;
    }
    return 0;
}

void gk5i_rpc_est_clear(struct gk5i_rpc_est *e)
{
    free(e->target);
    free(e->principal);
    free(e->ccache);
    free(e->client_keytab);
    free(e->enctypes);
    own_ccache_remove(e);
    free(e->own_dir);
    free(e->own_ccache);
    memset(e, 0, sizeof(*e)); /* not a wipe: no secrets */
}

/* The context establishment ends with, made from a gk5 context that is
 * already complete (the fuzz seam's way in as well). */
int gk5i_cctx_adopt(gk5_ctx *gss, const uint8_t *handle, size_t handle_len,
                    uint32_t window, struct gk5i_cctx **out, gk5_rpc_error *err)
{
    struct gk5i_cctx *cc = NULL;
    gk5_ctx_info info;
    uint32_t minor = 0;

    *out = NULL;
    if (handle_len > GK5I_RPC_MAX_HANDLE) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "a handle of %zu bytes",
                     handle_len);
        gk5_ctx_free(gss);
        return -1;
    }
    cc = calloc(1, sizeof(*cc));
    if (cc == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        gk5_ctx_free(gss);
        return -1;
    }
    if (flow_init(cc) != 0) {
        free(cc);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory (a mutex)");
        gk5_ctx_free(gss);
        return -1;
    }
    atomic_init(&cc->refs, 1);
    cc->gss = gss; /* gk5i_cctx_release frees it from here on */
    memcpy(cc->handle, handle, handle_len);
    cc->handle_len = handle_len;
    cc->window = window;
    uint32_t major = gk5_ctx_set_flags(&minor, cc->gss, 0);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_set_flags");
        gk5i_cctx_release(cc);
        return -1;
    }
    major = gk5_ctx_inquire(&minor, cc->gss, &info);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_inquire");
        gk5i_cctx_release(cc);
        return -1;
    }
    cc->enctype = info.enctype;
    cc->endtime = info.endtime;
    cc->gen = 1;
    atomic_init(&cc->next_seq, 1);
    cc->flow_base = 1;
    *out = cc;
    return 0;
}

/* The context and sequence number for a new call, remaking the context
 * first when the counter would reach MAXSEQ (RFC 2203 5.3.3.1) or it has
 * expired.  Every caller gets its own number, even those that lose the
 * race to MAXSEQ: a number is never sent twice. */
int gk5i_rpc_call_context(const char *target, gk5i_cctx_get_fn get,
                          gk5i_reestablish_fn reestablish, void *arg,
                          struct gk5i_cctx **out, uint32_t *seq,
                          gk5_rpc_error *err)
{
    *out = NULL;
    *seq = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        struct gk5i_cctx *cc = get(arg);
        if (!gk5i_cctx_expired(cc) &&
            atomic_load(&cc->next_seq) < GK5I_RPC_DATA_SEQ_END) {
            uint64_t n = gk5i_flow_take(cc);
            if (n < GK5I_RPC_DATA_SEQ_END) {
                *out = cc;
                *seq = (uint32_t)n;
                return 0;
            }
        }
        uint32_t gen = cc->gen;
        gk5i_cctx_release(cc);
        if (reestablish(arg, gen, err) != 0) {
            return -1;
        }
    }
    gk5i_rpc_err(err, GK5_RPC_E_EXPIRED,
                 "every new RPCSEC_GSS context for %s was expired or used up "
                 "at once",
                 target);
    return -1;
}

void gk5i_cctx_describe(struct gk5i_cctx *cc, gk5_rpc_service service,
                        gk5_rpc_auth_info *info)
{
    uint64_t next = atomic_load(&cc->next_seq);

    info->enctype = cc->enctype;
    info->service = service;
    info->window = cc->window;
    info->next_seq = next < GK5_RPC_MAXSEQ ? (uint32_t)next : GK5_RPC_MAXSEQ;
    info->established = cc->gen;
    info->handle_len = cc->handle_len;
}
