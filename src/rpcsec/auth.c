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
 *     with the AUTH in its in-band state (gk5i_auth_inband_ops).  Servers such
 * as MIT's libgssrpc (kadmind) and libtirpc's own svc_auth_gss bind a context
 * to the connection it was made on (it lives in the transport's auth state; the
 * handle is not looked up), so a context made anywhere else is unknown on the
 * CLIENT's connection.
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
#include "rpcsec/auth_int.h"
#include "rpcsec/rpcsec_int.h"

/* client_control.c reports clnt_stat values without libtirpc's header. */
_Static_assert(GK5I_CLNT_AUTHERROR == RPC_AUTHERROR &&
                   GK5I_CLNT_VERSMISMATCH == RPC_VERSMISMATCH &&
                   GK5I_CLNT_PROGVERSMISMATCH == RPC_PROGVERSMISMATCH &&
                   GK5I_CLNT_CANTDECODERES == RPC_CANTDECODERES &&
                   GK5I_CLNT_TIMEDOUT == RPC_TIMEDOUT &&
                   GK5I_CLNT_SYSTEMERROR == RPC_SYSTEMERROR,
               "enum clnt_stat");

static _Atomic uint64_t next_serial = 1;

/* A reference to the current context. */
static struct gk5i_cctx *cctx_get(struct priv *p)
{
    pthread_mutex_lock(&p->lock);
    struct gk5i_cctx *cc = p->cur;
    atomic_fetch_add(&cc->refs, 1);
    pthread_mutex_unlock(&p->lock);
    return cc;
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
    if (gk5i_rpc_establish(&p->est, gen + 1, gk5i_auth_route_leg, &rt, &fresh,
                           err) != 0) {
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

void gk5i_auth_op_nextverf(AUTH *auth)
{
    /* The verifier is made in marshal, over the header it ends. */
    (void)auth;
}

/* RFC 2203 5.3.1: the RPCSEC_GSS credential of a DATA call numbered seq
 * on cc. */
static GK5I_RPC_WUR int put_cred(XDR *xdrs, const struct gk5i_cctx *cc,
                                 uint32_t seq, gk5_rpc_service svc,
                                 gk5_rpc_error *err)
{
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];
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
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS credential failed");
        return -1;
    }
    return 0;
}

/* RFC 2203 5.3.1: the verifier, a MIC with cc over the header from the
 * xid to the end of the credential.  The header so far is still in the
 * stream's buffer (libtirpc's record stream and xdrmem): go back to its
 * start and take it in place.  Other streams may refuse; then the call
 * cannot be signed. */
static GK5I_RPC_WUR int put_header_mic(XDR *xdrs, struct gk5i_cctx *cc,
                                       gk5_rpc_error *err)
{
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    u_int end = XDR_GETPOS(xdrs);
    const void *hdr = NULL;

    if (end == 0 || end > INT_MAX || !XDR_SETPOS(xdrs, 0) ||
        (hdr = XDR_INLINE(xdrs, (int)end)) == NULL || XDR_GETPOS(xdrs) != end) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this XDR stream does not give back the %u header bytes "
                     "the RPCSEC_GSS verifier signs (RFC 2203 5.3.1)",
                     end);
        return -1;
    }
    if (gk5i_rpc_mic(cc->gss, hdr, end, mic, sizeof(mic), &mic_len, err) != 0) {
        return -1;
    }
    struct opaque_auth oa = {.oa_flavor = RPCSEC_GSS,
                             .oa_base = (caddr_t)mic,
                             .oa_length = (u_int)mic_len};
    if (!xdr_opaque_auth(xdrs, &oa)) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS verifier failed");
        return -1;
    }
    return 0;
}

/* RFC 2203 5.3.1: the credential, then the verifier: a MIC over the header
 * from the xid to the end of the credential. */
static bool_t op_marshal(AUTH *auth, XDR *xdrs)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = gk5i_auth_slot_find(p->serial, 1);
    struct gk5i_cctx *cc = NULL;
    uint32_t seq = 0;
    bool_t ok = FALSE;

    gk5i_auth_slot_end_call(s);
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
    if (put_cred(xdrs, cc, seq, svc, &s->err) != 0 ||
        put_header_mic(xdrs, cc, &s->err) != 0) {
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

/* A rejected or unsuccessful reply: re-establish for
 * RPCSEC_GSS_CREDPROBLEM / CTXPROBLEM (RFC 2203 5.3.3.3) so that libtirpc
 * sends the call again; anything else ends the call. */
static bool_t op_refresh(AUTH *auth, void *arg)
{
    struct priv *p = auth->ah_private;
    const struct rpc_msg *msg = arg;
    struct call_slot *s = gk5i_auth_slot_find(p->serial, 1);
    int had_call = s->cc != NULL;
    uint32_t gen = had_call ? s->cc->gen : 0;
    bool_t ok = FALSE;

    gk5i_auth_slot_end_call(s);
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
    struct call_slot *s = gk5i_auth_slot_find(p->serial, 0);

    if (s != NULL) {
        gk5i_auth_slot_end_call(s);
        memset(s, 0, sizeof(*s)); /* not a wipe: the slot is free again */
    }
    send_destroy(p);
    priv_free(p);
    zap(auth, sizeof(*auth));
    free(auth);
}

/* libtirpc's auth_ops, one per state of the AUTH (this one and
 * gk5i_auth_inband_ops): tables of function pointers, alike in shape only. */
static struct auth_ops gk5_auth_ops = {
    .ah_nextverf = gk5i_auth_op_nextverf,
    .ah_marshal = op_marshal,
    .ah_validate = gk5i_auth_op_validate,
    .ah_refresh = op_refresh,
    .ah_destroy = op_destroy,
    .ah_wrap = gk5i_auth_op_wrap,
    .ah_unwrap = gk5i_auth_op_unwrap,
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
    auth->ah_ops = &gk5i_auth_inband_ops;
    auth->ah_private = p;
    struct route rt = {.p = p, .clnt = clnt, .auth = auth, .fd = -1};
    if (peer_of(clnt, p, err) != 0 ||
        gk5i_rpc_establish(&p->est, 1, gk5i_auth_route_leg, &rt, &p->cur,
                           err) != 0) {
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
    const struct call_slot *s = gk5i_auth_slot_find(p->serial, 0);
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
