/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS version 1 (RFC 2203), client side: a libtirpc AUTH whose
 * operations are gk5's.
 *
 * libtirpc 1.3.3's clnt_vc_call runs, on the calling thread and under the
 * connection's lock: marshal (credential and header verifier), wrap (the
 * arguments), send, receive, validate (the reply verifier), unwrap (the
 * results), and refresh on a rejected reply.  That shapes this file:
 *
 *   - What one call needs between marshal and unwrap (its context, sequence
 *     number and service) lives in a per-thread slot, so many threads can
 *     share one AUTH and each reply is checked against its own call
 *     (RFC 2203 5.3.3.2), never against whatever call was marshalled last.
 *   - The first context is made in band: gk5_rpc_auth_create runs the
 *     INIT / CONTINUE_INIT legs through clnt_call on the caller's CLIENT,
 *     with the AUTH in its in-band state (inband_ops).  Servers such as
 *     MIT's libgssrpc (kadmind) and libtirpc's own svc_auth_gss bind a
 *     context to the connection it was made on (it lives in the
 *     transport's auth state; the handle is not looked up), so a context
 *     made anywhere else is unknown on the CLIENT's connection.
 *   - Later control exchanges cannot use clnt_call: marshal and refresh
 *     run inside clnt_vc_call, under the connection's lock, and destroy
 *     may run after clnt_destroy.  A new context (DESTROY of the old one,
 *     then INIT) goes raw over the creation CLIENT's own socket when the
 *     call that needs it runs there (see home_fd_for), and that context's
 *     DESTROY at auth_destroy too while the socket is open (send_destroy);
 *     everything else goes over a connection of our own to the server's
 *     address, which servers with a global handle table (gk5's,
 *     NFS-Ganesha, the Linux kernel) accept on every connection.
 *
 * Contexts are reference counted.  Re-establishment (at GK5_RPC_MAXSEQ, at
 * expiry, or when the server answers RPCSEC_GSS_CREDPROBLEM/CTXPROBLEM)
 * swaps in a new one; calls in flight on other threads keep the old one
 * alive until they finish.
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
#include <rpc/rpc.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "rpcsec/client_int.h"
#include "rpcsec/rpcsec_int.h"

/* client_ctx.c reports clnt_stat values without libtirpc's header. */
_Static_assert(GK5I_CLNT_AUTHERROR == RPC_AUTHERROR &&
                   GK5I_CLNT_VERSMISMATCH == RPC_VERSMISMATCH &&
                   GK5I_CLNT_PROGVERSMISMATCH == RPC_PROGVERSMISMATCH &&
                   GK5I_CLNT_CANTDECODERES == RPC_CANTDECODERES &&
                   GK5I_CLNT_TIMEDOUT == RPC_TIMEDOUT &&
                   GK5I_CLNT_SYSTEMERROR == RPC_SYSTEMERROR,
               "enum clnt_stat");

/* Call slots per thread: one per AUTH the thread uses at the same time. */
#define TLS_SLOTS 4

struct priv {
    /* The options, copied, and where control exchanges of our own go (the
     * CLIENT's peer), and for what program. */
    struct gk5i_rpc_est est;
    uint64_t serial;            /* names this AUTH in the per-thread slots */
    pthread_mutex_t lock;       /* cur */
    pthread_mutex_t estab_lock; /* one (re-)establishment at a time */
    struct gk5i_cctx *cur;
    /* The creation CLIENT's connection, written once at creation (see
     * home_fd_for): the XDR stream libtirpc marshals its calls on (its
     * ct_xdrs; NULL if it is not a record stream), its socket, and the
     * socket's identity, which tells a closed and reused descriptor apart. */
    XDR *home_xdrs;
    int home_fd;
    dev_t home_dev;
    ino_t home_ino;
    /* The context last made on that connection (a reference, or NULL once
     * destroyed there); under estab_lock, and read by destroy. */
    struct gk5i_cctx *home_cc;
    /* Only while gk5_rpc_auth_create runs the first INIT legs in band. */
    struct inband *inband;
};

/* A reference to the current context. */
static struct gk5i_cctx *cctx_get(struct priv *p)
{
    pthread_mutex_lock(&p->lock);
    struct gk5i_cctx *cc = p->cur;
    atomic_fetch_add(&cc->refs, 1);
    pthread_mutex_unlock(&p->lock);
    return cc;
}

/* ---- Per-thread call slots ---- */

struct call_slot {
    uint64_t serial;      /* 0: free */
    uint64_t used;        /* for replacing the least recently used slot */
    struct gk5i_cctx *cc; /* held from marshal to the end of the call */
    XDR *xdrs; /* the stream marshal got: which CLIENT the call is on */
    uint32_t seq;
    gk5_rpc_service service;
    int in_flight; /* seq is taken and its call has not ended */
    int refreshed; /* refresh re-established: libtirpc sends the call again */
    int failed;
    gk5_rpc_error err;
};

static _Thread_local struct {
    uint64_t tick;
    int registered;
    struct call_slot slot[TLS_SLOTS];
} tls;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_key_ok;
static _Atomic uint64_t next_serial = 1;

/* At thread exit: drop the references calls left behind (a call whose
 * reply never came keeps its context until then). */
static void tls_release(void *arg)
{
    (void)arg;
    for (int i = 0; i < TLS_SLOTS; i++) {
        gk5i_cctx_release(tls.slot[i].cc);
        tls.slot[i].cc = NULL;
        tls.slot[i].serial = 0;
    }
}

static void tls_key_create(void)
{
    tls_key_ok = pthread_key_create(&tls_key, tls_release) == 0;
}

static void slot_end_call(struct call_slot *s)
{
    if (s->in_flight && s->cc != NULL) {
        gk5i_flow_done(s->cc, s->seq);
    }
    s->in_flight = 0;
    gk5i_cctx_release(s->cc);
    s->cc = NULL;
}

/* This thread's slot for serial; with create, take the least recently used
 * one if there is none. */
static struct call_slot *slot_find(uint64_t serial, int create)
{
    struct call_slot *victim = &tls.slot[0];

    for (int i = 0; i < TLS_SLOTS; i++) {
        struct call_slot *s = &tls.slot[i];
        if (s->serial == serial) {
            s->used = ++tls.tick;
            return s;
        }
        if (s->serial == 0 || (victim->serial != 0 && s->used < victim->used)) {
            victim = s;
        }
    }
    if (!create) {
        return NULL;
    }
    if (!tls.registered) {
        pthread_once(&tls_once, tls_key_create);
        if (tls_key_ok) {
            (void)pthread_setspecific(tls_key, &tls);
        }
        tls.registered = 1;
    }
    slot_end_call(victim);
    memset(victim, 0, sizeof(*victim));
    victim->serial = serial;
    victim->used = ++tls.tick;
    return victim;
}

/* ---- Context creation (RFC 2203 5.2) ---- */

/* XDR routines through xdrproc_t, which libtirpc declares variadic. */
#define XDR_PROC(fn) ((xdrproc_t)(void (*)(void))(fn))

/* rpc_gss_init_arg (RFC 2203 5.2.2): the GSS token as opaque<>. */
static bool_t xdr_init_arg(XDR *xdrs, gk5_buffer *tok)
{
    u_int n = (u_int)tok->length;

    return xdrs->x_op == XDR_ENCODE && tok->length <= GK5I_RPC_MAX_BODY_LIMIT &&
           xdr_u_int(xdrs, &n) && xdr_opaque(xdrs, tok->value, n);
}

/* rpc_gss_init_res (RFC 2203 5.2.3.1) as libtirpc hands it over in band:
 * the rest of the record, read a word at a time (the record stream says
 * where it ends) into a buffer for the one decoder (client_ctx.c).
 * XDR_FREE releases the token. */
static bool_t xdr_init_res(XDR *xdrs, struct gk5i_init_res *res)
{
    size_t cap = 256, len = 0;
    uint8_t *buf = NULL;
    bool_t ok = FALSE;

    if (xdrs->x_op == XDR_FREE) {
        gk5i_init_res_free(res);
        return TRUE;
    }
    if (xdrs->x_op != XDR_DECODE || res->token != NULL) {
        return FALSE;
    }
    buf = malloc(cap);
    if (buf == NULL) {
        return FALSE;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *bigger;
            if (cap > GK5I_RPC_MAX_CONTROL_REPLY) {
                goto cleanup; /* longer than any INIT reply we take */
            }
            bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                goto cleanup;
            }
            buf = bigger;
            cap *= 2;
        }
        if (!XDR_GETBYTES(xdrs, (char *)buf + len, 4)) {
            break; /* the end of the record */
        }
        len += 4;
    }
    ok = gk5i_init_res_decode(buf, len, res) == 0;

cleanup:
    free(buf);
    return ok;
}

/* Where the legs of one establishment go. */
struct route {
    struct priv *p;
    CLIENT *clnt; /* in band, clnt_call on clnt with auth (creation) */
    AUTH *auth;
    int fd; /* else raw on this socket (the creation CLIENT's), or on a
               connection of our own when -1 */
};

/* The AUTH's state while a leg runs in band (inband_ops). */
struct inband {
    const gk5i_rpc_cred *cred;  /* INIT or CONTINUE_INIT, seq 0 */
    struct gk5i_leg_reply *leg; /* the verifier goes here */
    XDR *xdrs;                  /* the stream marshal got */
    int failed;                 /* err says why */
    gk5_rpc_error err;
};

static const struct xdr_ops *xdrrec_ops;
static pthread_once_t xdrrec_once = PTHREAD_ONCE_INIT;

static int no_io(void *handle, void *buf, int len)
{
    (void)handle;
    (void)buf;
    (void)len;
    return -1;
}

/* libtirpc's record-stream operations, from a stream of our own. */
static void xdrrec_ops_init(void)
{
    XDR x;

    memset(&x, 0, sizeof(x));
    xdrrec_create(&x, 0, 0, NULL, no_io, no_io);
    if (x.x_ops != NULL) {
        xdrrec_ops = x.x_ops;
        XDR_DESTROY(&x);
    }
}

static int is_record_stream(const XDR *xdrs)
{
    pthread_once(&xdrrec_once, xdrrec_ops_init);
    return xdrs != NULL && xdrrec_ops != NULL && xdrs->x_ops == xdrrec_ops;
}

/* One leg in band: clnt_call on the caller's CLIENT, with the AUTH in its
 * in-band state, and the caller's cl_auth put back on every path.  This is
 * how the first context comes to live on the CLIENT's own connection. */
static GK5I_RPC_WUR int leg_inband(struct priv *p, const struct route *rt,
                                   const gk5i_rpc_cred *cred,
                                   const gk5_buffer *tok, const char *what,
                                   struct gk5i_leg_reply *leg,
                                   gk5_rpc_error *err)
{
    struct inband ib = {.cred = cred, .leg = leg};
    struct timeval tv = {.tv_sec = p->est.timeout_ms / 1000,
                         .tv_usec = (p->est.timeout_ms % 1000) * 1000};
    gk5_buffer arg = *tok;
    struct rpc_err re;
    struct gk5i_rpc_reply rep = {0};

    gk5i_rpc_err_clear(&ib.err);
    AUTH *saved = rt->clnt->cl_auth;
    p->inband = &ib;
    rt->clnt->cl_auth = rt->auth;
    enum clnt_stat st =
        clnt_call(rt->clnt, NULLPROC, XDR_PROC(xdr_init_arg), (caddr_t)&arg,
                  XDR_PROC(xdr_init_res), (caddr_t)&leg->res, tv);
    rt->clnt->cl_auth = saved;
    p->inband = NULL;
    if (ib.xdrs != NULL) {
        p->home_xdrs = is_record_stream(ib.xdrs) ? ib.xdrs : NULL;
    }
    if (st == RPC_SUCCESS) {
        return 0;
    }
    gk5i_init_res_free(&leg->res);
    if (ib.failed) {
        if (err != NULL) {
            *err = ib.err;
            err->rpc_stat = (int)st;
        }
        return -1;
    }
    /* The server's answer, as reply_ok words it for raw replies. */
    clnt_geterr(rt->clnt, &re);
    switch (st) {
    case RPC_AUTHERROR:
        rep.reply_stat = GK5I_RPC_MSG_DENIED;
        rep.stat = GK5I_RPC_REJECT_AUTH_ERROR;
        rep.why = (uint32_t)re.re_why;
        break;
    case RPC_VERSMISMATCH:
        rep.reply_stat = GK5I_RPC_MSG_DENIED;
        rep.stat = GK5I_RPC_REJECT_RPC_MISMATCH;
        rep.low = (uint32_t)re.re_vers.low;
        rep.high = (uint32_t)re.re_vers.high;
        break;
    case RPC_PROGVERSMISMATCH:
        rep.stat = GK5I_RPC_ACCEPT_PROG_MISMATCH;
        rep.low = (uint32_t)re.re_vers.low;
        rep.high = (uint32_t)re.re_vers.high;
        break;
    case RPC_PROGUNAVAIL:
        rep.stat = GK5_RPC_PROG_UNAVAIL;
        break;
    case RPC_PROCUNAVAIL:
        rep.stat = GK5_RPC_PROC_UNAVAIL;
        break;
    case RPC_CANTDECODEARGS:
        rep.stat = GK5_RPC_GARBAGE_ARGS;
        break;
    case RPC_SYSTEMERROR:
        rep.stat = GK5_RPC_SYSTEM_ERR;
        break;
    default:
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "%s on the CLIENT: %s", what,
                     clnt_sperrno(st));
        if (err != NULL) {
            err->rpc_stat = (int)st;
        }
        return -1;
    }
    int ret =
        gk5i_rpc_reply_ok(&rep, what, err); /* -1: none of these succeeded */
    if (err != NULL) {
        err->rpc_stat = (int)st;
    }
    return ret;
}

/* A leg of gk5i_rpc_establish, along the route arg. */
static GK5I_RPC_WUR int route_leg(void *arg, const gk5i_rpc_cred *cred,
                                  const gk5_buffer *tok, const char *what,
                                  struct gk5i_leg_reply *leg,
                                  gk5_rpc_error *err)
{
    const struct route *rt = arg;

    return rt->clnt != NULL ? leg_inband(rt->p, rt, cred, tok, what, leg, err)
                            : gk5i_rpc_leg_raw(&rt->p->est, rt->fd, cred, tok,
                                               what, leg, err);
}

/* ---- RPCSEC_GSS_DESTROY (RFC 2203 5.4) ---- */

/* The creation CLIENT's socket if that CLIENT is libtirpc's record stream
 * and the descriptor still is that socket (not closed, nor closed and
 * reused for another), else -1. */
static int home_socket(const struct priv *p)
{
    struct stat st;

    if (p->home_xdrs == NULL || fstat(p->home_fd, &st) != 0 ||
        st.st_dev != p->home_dev || st.st_ino != p->home_ino) {
        return -1;
    }
    return p->home_fd;
}

/* Where a new context for a call on the stream xdrs is made: the creation
 * CLIENT's socket if the call runs on that CLIENT, else -1 (a connection
 * of our own).
 *
 * Connection-bound servers (MIT's libgssrpc in kadmind, libtirpc 1.3.3's
 * svc_auth_gss) know a context only on the connection it was made on, so
 * the creation CLIENT's context must be remade on its socket.  Doing that
 * raw from inside marshal or refresh is safe: clnt_vc_call holds that
 * connection's lock on this thread for the whole call; in marshal nothing
 * of the call has been sent (the header waits in xdrrec's buffer), in
 * refresh the rejected reply has been read; and the INIT reply is read
 * whole straight from the socket, so xdrrec's next skiprecord starts on a
 * record of its own.  It is the creation CLIENT when the call's stream is
 * the one that CLIENT marshalled on (its ct_xdrs, which lives as long as
 * the CLIENT) and the descriptor still is the same socket (not closed by
 * clnt_destroy, or closed and reused).  xdrrec must also hold nothing read
 * ahead past the current record (a late reply to a call that timed out),
 * or what we read would not begin a record.
 *
 * A shared AUTH's calls on other CLIENTs make their contexts on
 * connections of our own: only servers that do not bind contexts (gk5's,
 * NFS-Ganesha, Linux) accept those elsewhere. */
static int home_fd_for(const struct priv *p, XDR *xdrs)
{
    if (xdrs == NULL || xdrs != p->home_xdrs || home_socket(p) < 0) {
        return -1;
    }
    /* Skips what is left of the current record (as skiprecord would) and
     * says whether bytes beyond it are buffered. */
    if (!xdrrec_eof(xdrs)) {
        return -1;
    }
    return p->home_fd;
}

/* Replace the context, unless another thread already did since seen_gen;
 * xdrs is the stream of the call that needs it (NULL: none). */
static GK5I_RPC_WUR int reestablish(struct priv *p, uint32_t seen_gen,
                                    XDR *xdrs, gk5_rpc_error *err)
{
    struct gk5i_cctx *fresh = NULL, *old = NULL;
    int ret = -1;

    pthread_mutex_lock(&p->estab_lock);
    pthread_mutex_lock(&p->lock);
    uint32_t gen = p->cur->gen;
    pthread_mutex_unlock(&p->lock);
    if (gen != seen_gen) {
        ret = 0;
        goto cleanup;
    }
    struct route rt = {
        .p = p, .clnt = NULL, .auth = NULL, .fd = home_fd_for(p, xdrs)};
    if (rt.fd >= 0 && p->home_cc != NULL) {
        /* Connection-bound servers hold one context per connection and
         * refuse an INIT while it stands: libtirpc 1.3.3 and MIT's
         * libgssrpc run their sequence window on the INIT credential and
         * hand the old, complete context to gss_accept_sec_context.  So
         * the old one goes first.  An expired one cannot be destroyed, and
         * such a server then refuses the INIT (it needs a new connection). */
        gk5i_rpc_destroy_exchange(&p->est, p->home_cc, rt.fd);
        gk5i_cctx_release(p->home_cc);
        p->home_cc = NULL;
    }
    if (gk5i_rpc_establish(&p->est, gen + 1, route_leg, &rt, &fresh, err) !=
        0) {
        goto cleanup;
    }
    if (rt.fd >= 0) {
        atomic_fetch_add(&fresh->refs, 1);
        p->home_cc = fresh;
    }
    pthread_mutex_lock(&p->lock);
    old = p->cur;
    p->cur = fresh;
    pthread_mutex_unlock(&p->lock);
    ret = 0;

cleanup:
    pthread_mutex_unlock(&p->estab_lock);
    gk5i_cctx_release(old); /* calls in flight hold their own references */
    return ret;
}

/* What gk5i_rpc_call_context needs of an AUTH: the call's stream says
 * where a new context is made (home_fd_for). */
struct call_site {
    struct priv *p;
    XDR *xdrs;
};

static struct gk5i_cctx *site_current(void *arg)
{
    const struct call_site *site = arg;

    return cctx_get(site->p);
}

static int site_reestablish(void *arg, uint32_t seen_gen, gk5_rpc_error *err)
{
    const struct call_site *site = arg;

    return reestablish(site->p, seen_gen, site->xdrs, err);
}

/* ---- The AUTH operations ---- */

static void op_nextverf(AUTH *auth)
{
    /* The verifier is made in marshal, over the header it ends. */
    (void)auth;
}

/* RFC 2203 5.3.1: the credential, then the verifier: a MIC over the header
 * from the xid to the end of the credential. */
static bool_t op_marshal(AUTH *auth, XDR *xdrs)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_find(p->serial, 1);
    struct gk5i_cctx *cc = NULL;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    uint32_t seq = 0;
    bool_t ok = FALSE;

    slot_end_call(s);
    s->xdrs = xdrs;
    if (s->refreshed) {
        /* libtirpc's retry after a refresh: keep the rejection's words in
         * case the retry ends with no callback (its refreshes used up). */
        s->refreshed = 0;
    } else {
        s->failed = 0;
        gk5i_rpc_err_clear(&s->err);
    }
    struct call_site site = {.p = p, .xdrs = xdrs};
    if (gk5i_rpc_call_context(p->est.target, site_current, site_reestablish,
                              &site, &cc, &seq, &s->err) != 0) {
        goto cleanup;
    }
    gk5_rpc_service svc = (gk5_rpc_service)atomic_load(&p->est.service);
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DATA,
        .seq = seq,
        .service = (uint32_t)svc,
        .handle = cc->handle,
        .handle_len = cc->handle_len,
    };
    size_t body_len = gk5i_rpc_cred_encode(&cred, body, sizeof(body));
    struct opaque_auth oa = {.oa_flavor = RPCSEC_GSS,
                             .oa_base = (caddr_t)body,
                             .oa_length = (u_int)body_len};
    if (body_len == 0 || !xdr_opaque_auth(xdrs, &oa)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS credential failed");
        goto cleanup;
    }
    /* The header so far is still in the stream's buffer (libtirpc's
     * record stream and xdrmem): go back to its start and take it in place.
     * Other streams may refuse; then the call cannot be signed. */
    u_int end = XDR_GETPOS(xdrs);
    const void *hdr = NULL;
    if (end == 0 || end > INT_MAX || !XDR_SETPOS(xdrs, 0) ||
        (hdr = XDR_INLINE(xdrs, (int)end)) == NULL || XDR_GETPOS(xdrs) != end) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_UNSUPPORTED,
                     "this XDR stream does not give back the %u header bytes "
                     "the RPCSEC_GSS verifier signs (RFC 2203 5.3.1)",
                     end);
        goto cleanup;
    }
    if (gk5i_rpc_mic(cc->gss, hdr, end, mic, sizeof(mic), &mic_len, &s->err) !=
        0) {
        goto cleanup;
    }
    oa.oa_base = (caddr_t)mic;
    oa.oa_length = (u_int)mic_len;
    if (!xdr_opaque_auth(xdrs, &oa)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS verifier failed");
        goto cleanup;
    }
    s->cc = cc;
    cc = NULL;
    s->seq = seq;
    s->service = svc;
    s->in_flight = 1;
    ok = TRUE;

cleanup:
    if (cc != NULL) {
        gk5i_flow_done(cc, seq); /* taken, never sent */
    }
    gk5i_cctx_release(cc);
    if (!ok) {
        s->failed = 1;
    }
    return ok;
}

/* The call's slot, or NULL (and the error) when marshal did not run. */
static struct call_slot *slot_for_call(const struct priv *p, const char *op)
{
    struct call_slot *s = slot_find(p->serial, 1);

    if (s->cc == NULL) {
        if (!s->failed) {
            gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                         "RPCSEC_GSS %s without a call marshalled on this "
                         "thread",
                         op);
            s->failed = 1;
        }
        return NULL;
    }
    return s;
}

/* RFC 2203 5.3.2 and 5.3.3.4 with rpc_gss_svc_none: the arguments or
 * results go as they are; what is said if they do not encode or decode. */
static bool_t plain_body(struct call_slot *s, XDR *xdrs, xdrproc_t proc,
                         caddr_t obj, int code, const char *what)
{
    bool_t ok = (*proc)(xdrs, obj);

    if (!ok) {
        gk5i_rpc_err(&s->err, code, "%s", what);
    }
    return ok;
}

/* The end of a call body's processing: its XDR stream closed, the buffer
 * (len bytes) wiped if it held privacy plaintext, and freed. */
static void body_release(XDR *mx, int have_mx, uint8_t *buf, size_t len,
                         gk5_rpc_service service)
{
    if (have_mx) {
        XDR_DESTROY(mx);
    }
    if (buf != NULL && service == GK5_RPC_SVC_PRIVACY) {
        zap(buf, len);
    }
    free(buf);
}

/* RFC 2203 5.3.2: the arguments, as they are (none), or as
 * rpc_gss_integ_data / rpc_gss_priv_data built in one buffer and sealed in
 * place. */
static bool_t op_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args, caddr_t args)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "wrap");
    uint8_t *buf = NULL;
    size_t cap = 0, head = 0, tail = 0, off = 0, out_len = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_args, args, GK5_RPC_E_TRANSPORT,
                        "encoding the call's arguments failed");
        goto cleanup;
    }
    /* xdr_sizeof answers 0 both for void and for failure; a failure shows
     * when the arguments do not fit the buffer below. */
    size_t size = xdr_sizeof(xdr_args, args);
    if (size > p->est.max_body) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG,
                     "arguments of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     size, p->est.max_body);
        goto cleanup;
    }
    size_t len = 4 + size; /* seq_num, then the arguments */
    if (gk5i_rpc_body_room(s->cc->gss, s->service, len, &head, &tail,
                           &s->err) != 0) {
        goto cleanup;
    }
    cap = head + len + tail;
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte call body", cap);
        goto cleanup;
    }
    gk5i_put32(buf + head, s->seq);
    xdrmem_create(&mx, (char *)buf + head + 4, (u_int)size, XDR_ENCODE);
    have_mx = 1;
    if (!(*xdr_args)(&mx, args) || XDR_GETPOS(&mx) != size) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                     "encoding the call's arguments failed");
        goto cleanup;
    }
    if (gk5i_rpc_body_seal(s->cc->gss, s->service, buf, head, len, cap, &off,
                           &out_len, &s->err) != 0) {
        goto cleanup;
    }
    if (out_len > UINT_MAX ||
        !XDR_PUTBYTES(xdrs, (char *)buf + off, (u_int)out_len)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "sending the %zu-byte call body failed", out_len);
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The arguments, if sealing stopped half-way. */
    body_release(&mx, have_mx, buf, cap, s->service);
    if (!ok) {
        slot_end_call(s);
        s->failed = 1;
    }
    return ok;
}

/* RFC 2203 5.3.3.2: the reply verifier is the MIC of this call's seq_num. */
static bool_t op_validate(AUTH *auth, struct opaque_auth *verf)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "validate");

    if (s == NULL) {
        return FALSE;
    }
    if (verf == NULL || verf->oa_flavor != RPCSEC_GSS) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_BAD_VERIFIER,
                     "the reply's verifier is of flavour %d, not RPCSEC_GSS "
                     "(RFC 2203 5.3.3.2)",
                     verf != NULL ? (int)verf->oa_flavor : -1);
    } else if (gk5i_rpc_verify_u32(s->cc->gss, s->seq, verf->oa_base,
                                   verf->oa_length, &s->err) == 0) {
        return TRUE;
    } else {
        char words[sizeof(s->err.text)];
        memcpy(words, s->err.text, sizeof(words));
        (void)snprintf(s->err.text, sizeof(s->err.text),
                       "the reply's verifier is not the MIC of the call's "
                       "sequence number %u (RFC 2203 5.3.3.2): %.400s",
                       s->seq, words);
    }
    if (s->err.rpc_stat == 0) {
        s->err.rpc_stat = RPC_AUTHERROR;
    }
    slot_end_call(s);
    s->failed = 1;
    return FALSE;
}

/* Read the reply body (one opaque<> for privacy, two for integrity) from
 * the stream into one buffer laid out as on the wire. */
static GK5I_RPC_WUR int read_body(XDR *xdrs, gk5_rpc_service svc, size_t max,
                                  uint8_t **out, size_t *out_len,
                                  gk5_rpc_error *err)
{
    uint8_t *buf = NULL;
    u_int n = 0, n2 = 0;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    /* max bounds the results, the XDR data after the seq_num, as
     * gk5i_rpc_body_open has it: databody_integ carries the seq_num too,
     * a privacy token its own pieces. */
    size_t limit =
        svc == GK5_RPC_SVC_PRIVACY ? max + GK5I_RPC_PRIV_SLACK : max + 4;
    if (!xdr_u_int(xdrs, &n)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is missing (no length)");
        goto cleanup;
    }
    if (n > limit) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "the reply body of %u bytes is larger than max_body "
                     "(%zu bytes of results) allows",
                     n, max);
        goto cleanup;
    }
    size_t first = 4 + (size_t)n + gk5i_xdr_pad(n);
    size_t cap = first;
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        cap += 4 + GK5I_RPC_MAX_AUTH_BYTES;
    }
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte reply body", cap);
        goto cleanup;
    }
    gk5i_put32(buf, n);
    if (!XDR_GETBYTES(xdrs, (char *)buf + 4, (u_int)(first - 4))) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is shorter than its length, %u bytes", n);
        goto cleanup;
    }
    size_t total = first;
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        if (!xdr_u_int(xdrs, &n2) || n2 > GK5I_RPC_MAX_AUTH_BYTES - 3) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the reply's integrity checksum is missing or too "
                         "long");
            goto cleanup;
        }
        gk5i_put32(buf + first, n2);
        size_t n2p = (size_t)n2 + gk5i_xdr_pad(n2);
        if (n2p > 0 &&
            !XDR_GETBYTES(xdrs, (char *)buf + first + 4, (u_int)n2p)) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the reply's integrity checksum is truncated");
            goto cleanup;
        }
        total += 4 + n2p;
    }
    *out = buf;
    *out_len = total;
    buf = NULL;
    ret = 0;

cleanup:
    free(buf);
    return ret;
}

/* RFC 2203 5.3.3.4: the results, checked (and decrypted) with their seq_num
 * before a byte reaches xdr_results. */
static bool_t op_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                        caddr_t results)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "unwrap");
    uint8_t *buf = NULL, *data = NULL;
    size_t len = 0, data_len = 0, used = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_results, results, GK5_RPC_E_MALFORMED,
                        "the results do not decode");
        goto cleanup;
    }
    if (read_body(xdrs, s->service, p->est.max_body, &buf, &len, &s->err) !=
            0 ||
        gk5i_rpc_body_open(s->cc->gss, s->service, s->seq, buf, len,
                           p->est.max_body, &data, &data_len, &used,
                           &s->err) != 0) {
        goto cleanup;
    }
    if (data_len > UINT_MAX) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG, "results of %zu bytes",
                     data_len);
        goto cleanup;
    }
    xdrmem_create(&mx, (char *)data, (u_int)data_len, XDR_DECODE);
    have_mx = 1;
    if (!(*xdr_results)(&mx, results)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_MALFORMED,
                     "the results (%zu bytes, %s) do not decode", data_len,
                     gk5_rpc_service_name(s->service));
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The decrypted results. */
    body_release(&mx, have_mx, buf, len, s->service);
    if (!ok) {
        s->failed = 1;
    } else {
        s->failed = 0;
        gk5i_rpc_err_clear(&s->err);
    }
    slot_end_call(s);
    return ok;
}

/* A rejected or unsuccessful reply: re-establish for
 * RPCSEC_GSS_CREDPROBLEM / CTXPROBLEM (RFC 2203 5.3.3.3) so that libtirpc
 * sends the call again; anything else ends the call. */
static bool_t op_refresh(AUTH *auth, void *arg)
{
    struct priv *p = auth->ah_private;
    const struct rpc_msg *msg = arg;
    struct call_slot *s = slot_find(p->serial, 1);
    int had_call = s->cc != NULL;
    uint32_t gen = had_call ? s->cc->gen : 0;
    bool_t ok = FALSE;

    slot_end_call(s);
    if (msg == NULL || !had_call) {
        goto cleanup;
    }
    if (msg->rm_reply.rp_stat == MSG_ACCEPTED) {
        uint32_t stat = (uint32_t)msg->acpted_rply.ar_stat;
        gk5i_rpc_err(&s->err, GK5_RPC_E_ACCEPT_STAT, "the server: %s",
                     gk5i_rpc_accept_stat_words(stat));
        goto cleanup;
    }
    if (msg->rjcted_rply.rj_stat != AUTH_ERROR) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_REJECTED,
                     "the server rejected the call: RPC_MISMATCH");
        s->err.rpc_stat = RPC_VERSMISMATCH;
        goto cleanup;
    }
    uint32_t why = (uint32_t)msg->rjcted_rply.rj_why;
    gk5i_rpc_err(&s->err, GK5_RPC_E_REJECTED,
                 "the server rejected the call: %s",
                 gk5i_rpc_auth_stat_words(why));
    s->err.rpc_stat = RPC_AUTHERROR;
    s->err.auth_stat = why;
    if (why != GK5I_RPCSEC_GSS_CREDPROBLEM &&
        why != GK5I_RPCSEC_GSS_CTXPROBLEM) {
        goto cleanup;
    }
    /* The rejected reply has been read: the call's connection is free for
     * an INIT of our own if it is the creation CLIENT's (home_fd_for). */
    if (reestablish(p, gen, s->xdrs, &s->err) != 0) {
        goto cleanup;
    }
    /* The words stay: if the retry is rejected too and libtirpc has no
     * refreshes left, they are what gk5_rpc_auth_last_error says. */
    s->refreshed = 1;
    s->failed = 1;
    return TRUE;

cleanup:
    s->failed = !ok && s->err.code != GK5_RPC_OK;
    return ok;
}

/* RFC 2203 5.4: destroy the contexts at auth_destroy.  Best effort.
 *
 * The creation CLIENT's context goes on that CLIENT's socket if it is
 * still open (fd and identity as recorded), its reply read whole: the
 * CLIENT itself is never touched (auth_destroy may follow clnt_destroy),
 * and if it lives on, it finds its stream as it left it (no call may run
 * on it meanwhile).  libtirpc's client would drop a reply left unread as a
 * stranger's xid, and leak its verifier.  libtirpc 1.3.3's server must see
 * the DESTROY there: it keys its context by the SVCXPRT and keeps it for
 * five minutes after the connection closes, and a new connection whose
 * SVCXPRT lands at the same address inherits it and refuses every INIT.
 * The current context, when it is another (made on a connection of
 * our own for a shared AUTH) or when that socket is gone, goes on a
 * connection of our own, for servers with a global handle table. */
static void send_destroy(struct priv *p)
{
    struct gk5i_cctx *home = p->home_cc, *cur = p->cur;
    int fd = home_socket(p);

    if (home != NULL && (fd >= 0 || home != cur)) {
        gk5i_rpc_destroy_exchange(&p->est, home, fd);
    }
    if (cur != home || fd < 0) {
        gk5i_rpc_destroy_exchange(&p->est, cur, -1);
    }
}

static void priv_free(struct priv *p)
{
    if (p == NULL) {
        return;
    }
    gk5i_cctx_release(p->cur);
    gk5i_cctx_release(p->home_cc);
    gk5i_rpc_est_clear(&p->est);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->estab_lock);
    zap(p, sizeof(*p));
    free(p);
}

static void op_destroy(AUTH *auth)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_find(p->serial, 0);

    if (s != NULL) {
        slot_end_call(s);
        memset(s, 0, sizeof(*s)); /* not a wipe: the slot is free again */
    }
    send_destroy(p);
    priv_free(p);
    zap(auth, sizeof(*auth));
    free(auth);
}

/* libtirpc's auth_ops, one per state of the AUTH (this one and
 * inband_ops): tables of function pointers, alike in shape only. */
static struct auth_ops gk5_auth_ops = {
    .ah_nextverf = op_nextverf,
    .ah_marshal = op_marshal,
    .ah_validate = op_validate,
    .ah_refresh = op_refresh,
    .ah_destroy = op_destroy,
    .ah_wrap = op_wrap,
    .ah_unwrap = op_unwrap,
};

/* ---- The in-band state (RFC 2203 5.2.2) ----
 *
 * While gk5_rpc_auth_create runs a leg through clnt_call, the AUTH speaks
 * the control protocol: the credential is INIT or CONTINUE_INIT with seq 0
 * and the verifier AUTH_NONE; arguments and results go as they are
 * (rpc_gss_init_arg, rpc_gss_init_res); the reply's verifier is kept for
 * establish to check.  No one else holds the AUTH yet. */

/* The in-band state of an AUTH (NULL once establishment is over). */
static struct inband *inband_of(AUTH *auth)
{
    struct priv *p = auth->ah_private;

    return p->inband;
}

/* A leg's step failed (the error already said): establishment stops. */
static bool_t inband_failed(struct inband *ib)
{
    ib->failed = 1;
    return FALSE;
}

static bool_t inband_marshal(AUTH *auth, XDR *xdrs)
{
    struct inband *ib = inband_of(auth);
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];

    if (ib == NULL) {
        return FALSE;
    }
    ib->xdrs = xdrs;
    size_t body_len = gk5i_rpc_cred_encode(ib->cred, body, sizeof(body));
    struct opaque_auth cred = {.oa_flavor = RPCSEC_GSS,
                               .oa_base = (caddr_t)body,
                               .oa_length = (u_int)body_len};
    struct opaque_auth verf = {
        .oa_flavor = AUTH_NONE, .oa_base = NULL, .oa_length = 0};
    if (body_len == 0 || !xdr_opaque_auth(xdrs, &cred) ||
        !xdr_opaque_auth(xdrs, &verf)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS_INIT credential failed");
        return inband_failed(ib);
    }
    return TRUE;
}

static bool_t inband_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args,
                          caddr_t args)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (!(*xdr_args)(xdrs, args)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS_INIT token failed");
        return inband_failed(ib);
    }
    return TRUE;
}

/* RFC 2203 5.2.3.1: kept, and checked as the MIC of seq_window once the
 * context is complete. */
static bool_t inband_validate(AUTH *auth, struct opaque_auth *verf)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (verf == NULL) {
        return TRUE; /* leg->verf_flavor stays AUTH_NONE */
    }
    if (verf->oa_length > sizeof(ib->leg->verf)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_BAD_VERIFIER,
                     "the RPCSEC_GSS_INIT reply's verifier has %u bytes",
                     verf->oa_length);
        return inband_failed(ib);
    }
    ib->leg->verf_flavor = (uint32_t)verf->oa_flavor;
    ib->leg->verf_len = verf->oa_length;
    if (verf->oa_length > 0) {
        memcpy(ib->leg->verf, verf->oa_base, verf->oa_length);
    }
    return TRUE;
}

/* (As inband_wrap, the other direction; the failure words differ:
 * gk5i_init_res_err() says what the server's reply lacked.) */
static bool_t inband_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                            caddr_t results)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (!(*xdr_results)(xdrs, results)) {
        gk5i_init_res_err(&ib->err);
        return inband_failed(ib);
    }
    return TRUE;
}

/* A rejected INIT is final: leg_inband words it from clnt_geterr. */
static bool_t inband_refresh(AUTH *auth, void *arg)
{
    (void)auth;
    (void)arg;
    return FALSE;
}

/* Never called: gk5_rpc_auth_create frees a half-made AUTH itself. */
static void inband_destroy(AUTH *auth)
{
    (void)auth;
}

static struct auth_ops inband_ops = {
    .ah_nextverf = op_nextverf,
    .ah_marshal = inband_marshal,
    .ah_validate = inband_validate,
    .ah_refresh = inband_refresh,
    .ah_destroy = inband_destroy,
    .ah_wrap = inband_wrap,
    .ah_unwrap = inband_unwrap,
};

static int is_ours(const AUTH *auth)
{
    return auth != NULL && auth->ah_ops == &gk5_auth_ops &&
           auth->ah_private != NULL;
}

/* ---- Creation ---- */

/* Where clnt talks to, for control connections of our own, and which
 * socket it is (home_fd_for).  Only stream transports: RPCSEC_GSS over UDP
 * would need retransmission here, and the record stream is what lets
 * marshal sign the header in place. */
static GK5I_RPC_WUR int peer_of(CLIENT *clnt, struct priv *p,
                                gk5_rpc_error *err)
{
    int fd = -1, type = 0;
    socklen_t tlen = sizeof(type);
    struct stat st;

    if (!clnt_control(clnt, CLGET_FD, (char *)&fd) || fd < 0) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT does not give its socket (CLGET_FD): "
                     "RPCSEC_GSS here needs clnt_vc/clnt_tp over TCP or a "
                     "UNIX socket");
        return -1;
    }
    if (fstat(fd, &st) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 ||
        type != SOCK_STREAM) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT's socket is not a stream socket: "
                     "RPCSEC_GSS here needs TCP or a UNIX stream socket "
                     "(create the CLIENT with \"tcp\", not \"udp\")");
        return -1;
    }
    p->home_fd = fd;
    p->home_dev = st.st_dev;
    p->home_ino = st.st_ino;
    p->est.peer_len = sizeof(p->est.peer);
    if (getpeername(fd, (struct sockaddr *)&p->est.peer, &p->est.peer_len) !=
        0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "the CLIENT's socket has no peer address: %s",
                     strerror(errno));
        return -1;
    }
    if (p->est.peer.ss_family != AF_INET && p->est.peer.ss_family != AF_INET6 &&
        p->est.peer.ss_family != AF_UNIX) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "the CLIENT's socket is of address family %d (TCP or "
                     "UNIX sockets only)",
                     (int)p->est.peer.ss_family);
        return -1;
    }
    rpcprog_t prog = 0;
    rpcvers_t vers = 0;
    if (!clnt_control(clnt, CLGET_PROG, (char *)&prog) ||
        !clnt_control(clnt, CLGET_VERS, (char *)&vers)) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT does not give its program and version "
                     "(CLGET_PROG, CLGET_VERS)");
        return -1;
    }
    p->est.prog = (uint32_t)prog;
    p->est.vers = (uint32_t)vers;
    return 0;
}

/* A struct priv with its locks, serial and the options checked and
 * copied; NULL with err. */
static struct priv *priv_new(const char *target, gk5_rpc_service service,
                             const gk5_rpc_auth_options *opts,
                             gk5_rpc_error *err)
{
    struct priv *p = calloc(1, sizeof(*p));

    if (p == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return NULL;
    }
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        return NULL;
    }
    if (pthread_mutex_init(&p->estab_lock, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        return NULL;
    }
    p->serial = atomic_fetch_add(&next_serial, 1);
    p->home_fd = -1;
    if (gk5i_rpc_est_init(&p->est, "gk5_rpc_auth_create", target, service, opts,
                          err) != 0) {
        priv_free(p);
        return NULL;
    }
    return p;
}

AUTH *gk5_rpc_auth_create(CLIENT *clnt, const char *target,
                          gk5_rpc_service service,
                          const gk5_rpc_auth_options *opts, gk5_rpc_error *err)
{
    static const gk5_rpc_auth_options no_opts;
    AUTH *auth = NULL, *ret = NULL;
    struct priv *p = NULL;

    gk5i_rpc_err_clear(err);
    if (opts == NULL) {
        opts = &no_opts;
    }
    if (clnt == NULL || target == NULL || target[0] == '\0' ||
        !gk5i_rpc_service_valid(service) ||
        (opts->n_enctypes > 0 && opts->enctypes == NULL)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_auth_create: a CLIENT, a target "
                     "\"service@host\" and a service (krb5, krb5i, krb5p) "
                     "are needed");
        goto cleanup;
    }
    auth = calloc(1, sizeof(*auth));
    if (auth == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    p = priv_new(target, service, opts, err);
    if (p == NULL) {
        goto cleanup;
    }
    auth->ah_cred.oa_flavor = RPCSEC_GSS;
    auth->ah_verf.oa_flavor = RPCSEC_GSS;
    auth->ah_ops = &inband_ops;
    auth->ah_private = p;
    struct route rt = {.p = p, .clnt = clnt, .auth = auth, .fd = -1};
    if (peer_of(clnt, p, err) != 0 ||
        gk5i_rpc_establish(&p->est, 1, route_leg, &rt, &p->cur, err) != 0) {
        goto cleanup;
    }
    atomic_fetch_add(&p->cur->refs, 1);
    p->home_cc = p->cur; /* made in band, on clnt's connection */
    auth->ah_ops = &gk5_auth_ops;
    p = NULL;
    ret = auth;
    auth = NULL;

cleanup:
    priv_free(p);
    free(auth);
    return ret;
}

int gk5_rpc_auth_set_service(AUTH *auth, gk5_rpc_service service)
{
    if (!is_ours(auth) || !gk5i_rpc_service_valid(service)) {
        return -1;
    }
    struct priv *p = auth->ah_private;
    atomic_store(&p->est.service, (int)service);
    return 0;
}

int gk5_rpc_auth_inquire(AUTH *auth, gk5_rpc_auth_info *info)
{
    if (info != NULL) {
        memset(info, 0, sizeof(*info));
    }
    if (!is_ours(auth) || info == NULL) {
        return -1;
    }
    struct priv *p = auth->ah_private;
    struct gk5i_cctx *cc = cctx_get(p);
    gk5i_cctx_describe(cc, (gk5_rpc_service)atomic_load(&p->est.service), info);
    gk5i_cctx_release(cc);
    return 0;
}

const gk5_rpc_error *gk5_rpc_auth_last_error(AUTH *auth)
{
    if (!is_ours(auth)) {
        return NULL;
    }
    const struct priv *p = auth->ah_private;
    const struct call_slot *s = slot_find(p->serial, 0);
    return s != NULL && s->failed ? &s->err : NULL;
}

/* ---- Test seams (tests/fuzz/fuzz_rpc_reply.c; not exported) ---- */

/* An AUTH in the state gk5_rpc_auth_create leaves it in once the first
 * context is established (gk5_auth_ops, the same struct priv), holding
 * ctx (owned from here on, also on failure) as that context, with the
 * server's handle and seq_window.  There is no CLIENT behind it:
 *   - no target: a re-establishment (refresh after CREDPROBLEM or
 *     CTXPROBLEM, MAXSEQ, expiry) stops at gk5_mit_initiator_create,
 *     which refuses an empty target before MIT is asked for anything, and
 *     the call fails with those words;
 *   - no peer address (AF_UNSPEC) and no home connection: the DESTROY at
 *     auth_destroy fails at socket() and nothing is sent.
 * NULL, with err, on failure. */
AUTH *gk5i_rpc_auth_from_ctx(gk5_ctx *ctx, const uint8_t *handle,
                             size_t handle_len, uint32_t window,
                             gk5_rpc_service svc, size_t max_body,
                             gk5_rpc_error *err)
{
    AUTH *auth = NULL, *ret = NULL;
    struct priv *p = NULL;
    struct gk5i_cctx *cc = NULL;

    gk5i_rpc_err_clear(err);
    if (ctx == NULL || handle == NULL || handle_len == 0 ||
        handle_len > GK5I_RPC_MAX_HANDLE || window == 0 ||
        !gk5i_rpc_service_valid(svc)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5i_rpc_auth_from_ctx: a context, a handle of 1 to "
                     "%u bytes, a window and a service are needed",
                     (unsigned)GK5I_RPC_MAX_HANDLE);
        gk5_ctx_free(ctx);
        return NULL;
    }
    if (gk5i_cctx_adopt(ctx, handle, handle_len, window, &cc, err) != 0) {
        return NULL;
    }
    /* From here on as gk5_rpc_auth_create, with no options. */
    auth = calloc(1, sizeof(*auth));
    if (auth == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    gk5_rpc_auth_options opts = {.max_body = max_body};
    p = priv_new("", svc, &opts, err);
    if (p == NULL) {
        goto cleanup;
    }
    p->cur = cc; /* priv_free releases it from here on */
    cc = NULL;
    auth->ah_cred.oa_flavor = RPCSEC_GSS;
    auth->ah_verf.oa_flavor = RPCSEC_GSS;
    auth->ah_ops = &gk5_auth_ops;
    auth->ah_private = p;
    p = NULL;
    ret = auth;
    auth = NULL;

cleanup:
    gk5i_cctx_release(cc);
    priv_free(p);
    free(auth);
    return ret;
}
