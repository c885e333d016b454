/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The libtirpc AUTH's legs (RFC 2203 5.2): in band through clnt_call on
 * the caller's CLIENT, with the AUTH in its in-band state, or raw on a
 * socket; rpc_gss_init_arg and rpc_gss_init_res as libtirpc's XDR routines.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/auth_int.h"

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
 * where it ends) into a buffer for the one decoder (client_establish.c).
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

/* A leg clnt_call did not complete: the server's answer, as
 * gk5i_rpc_reply_ok words it for raw replies, else the transport's. */
static GK5I_RPC_WUR int inband_rejection(CLIENT *clnt, enum clnt_stat st,
                                         const char *what, gk5_rpc_error *err)
{
    struct rpc_err re;
    struct gk5i_rpc_reply rep = {0};

    clnt_geterr(clnt, &re);
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
    return inband_rejection(rt->clnt, st, what, err);
}

/* A leg of gk5i_rpc_establish, along the route arg. */
GK5I_RPC_WUR int gk5i_auth_route_leg(void *arg, const gk5i_rpc_cred *cred,
                                     const gk5_buffer *tok, const char *what,
                                     struct gk5i_leg_reply *leg,
                                     gk5_rpc_error *err)
{
    const struct route *rt = arg;

    return rt->clnt != NULL ? leg_inband(rt->p, rt, cred, tok, what, leg, err)
                            : gk5i_rpc_leg_raw(&rt->p->est, rt->fd, cred, tok,
                                               what, leg, err);
}

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

struct auth_ops gk5i_auth_inband_ops = {
    .ah_nextverf = gk5i_auth_op_nextverf,
    .ah_marshal = inband_marshal,
    .ah_validate = inband_validate,
    .ah_refresh = inband_refresh,
    .ah_destroy = inband_destroy,
    .ah_wrap = inband_wrap,
    .ah_unwrap = inband_unwrap,
};
