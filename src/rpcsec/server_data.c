/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS_DATA and DESTROY on the server (RFC 2203 5.3.3, 5.4): the
 * credential, the context, the header MIC, the window, the body opened,
 * the call dispatched.
 */
#include <time.h>

#include "rpcsec/server_int.h"

/* May this context carry svc?  Kerberos grants integrity and
 * confidentiality together, but the flags say what was granted. */
static bool context_allows(const struct sctx *sc, gk5_rpc_service svc)
{
    if (svc == GK5_RPC_SVC_PRIVACY) {
        return (sc->ret_flags & GK5_C_CONF_FLAG) != 0;
    }
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        return (sc->ret_flags & GK5_C_INTEG_FLAG) != 0;
    }
    return true;
}

/* The context a DATA or DESTROY call names, with a reference for the
 * caller in *out: known, established, not expired.  GK5_RPC_CALL_DISPATCH
 * to go on; otherwise the call's verdict, *out NULL. */
static gk5_rpc_verdict find_context(gk5_rpc_server *srv,
                                    const struct call_hdr *h,
                                    const gk5i_rpc_cred *cred,
                                    struct sctx **out, gk5_buffer *reply,
                                    gk5_rpc_error *err)
{
    struct sctx *sc = NULL;
    enum sctx_state state;
    gk5_rpc_verdict verdict;

    *out = NULL;
    switch (gk5i_srv_table_lookup(srv, cred->handle, cred->handle_len, &sc)) {
    case LOOKUP_FOUND:
        break;
    case LOOKUP_IDLE:
        return gk5i_srv_denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                              GK5_RPC_E_EXPIRED,
                              "the context was idle too long and is gone");
    default:
        return gk5i_srv_denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                              GK5_RPC_E_CONTEXT, "no context with this handle");
    }
    (void)pthread_mutex_lock(&sc->lock);
    state = sc->state;
    (void)pthread_mutex_unlock(&sc->lock);
    if (state != SCTX_ESTABLISHED) {
        verdict =
            gk5i_srv_denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                           GK5_RPC_E_CONTEXT, "the context is not established");
        goto cleanup;
    }
    /* The server's clock decides, so removing it cannot be forced. */
    if (sc->endtime != 0 && (uint64_t)time(NULL) >= sc->endtime) {
        gk5i_srv_table_remove(srv, sc);
        verdict =
            gk5i_srv_denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                           GK5_RPC_E_EXPIRED, "the context has expired");
        goto cleanup;
    }
    *out = sc;
    return GK5_RPC_CALL_DISPATCH;
cleanup:
    gk5i_sctx_put(sc);
    return verdict;
}

/* The header of a DATA or DESTROY call on its context: MAXSEQ, the
 * service, a first look at the window (which changes nothing) and the
 * verifier.  GK5_RPC_CALL_DISPATCH when the header is authentic and its
 * number may be new; otherwise the call's verdict. */
static gk5_rpc_verdict verify_header(gk5_rpc_server *srv,
                                     const struct call_hdr *h,
                                     const gk5i_rpc_cred *cred, struct sctx *sc,
                                     gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_rpc_service svc = (gk5_rpc_service)cred->service;

    /* RFC 2203 5.3.3.1: a client never sends MAXSEQ or more; it must make
     * a new context.  Checked before the MIC and changing nothing, so a
     * forged call gains nothing by it. */
    if (cred->seq >= GK5_RPC_MAXSEQ) {
        return gk5i_srv_denyf(
            reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err, GK5_RPC_E_CONTEXT,
            "sequence number %u is at or above MAXSEQ", cred->seq);
    }
    if (cred->proc != GK5I_RPCSEC_GSS_DESTROY && !context_allows(sc, svc)) {
        return gk5i_srv_denyf(
            reply, h->xid, GK5I_AUTH_BADCRED, err, GK5_RPC_E_SERVICE,
            "the context was not granted %s", gk5_rpc_service_name(svc));
    }
    /* RFC 2203 5.3.3.1: replays and numbers below the window are
     * discarded without a reply.  This first look changes nothing; it
     * spares the MIC for the obvious cases. */
    if (gk5i_srv_window_check(sc, srv->window, cred->seq, false) != SEQ_NEW) {
        return gk5i_srv_drop(err, GK5_RPC_E_SEQ_MISMATCH,
                             "sequence number %u replayed or below the window",
                             cred->seq);
    }
    /* RFC 2203 5.3.1: the verifier is the MIC of the header from the xid
     * through the credential.  RFC 2203 5.3.3.4.2: a failed GSS_VerifyMIC
     * on it is answered AUTH_ERROR RPCSEC_GSS_CREDPROBLEM, which tells
     * the client to make a new context (BADVERF would not), and says
     * nothing about why. */
    if (h->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        gk5i_rpc_verify(sc->ctx, h->msg, h->cred_end, h->verf, h->verf_len,
                        err) != 0) {
        if (h->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
            gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                         "verifier flavour %u, not RPCSEC_GSS", h->verf_flavor);
        }
        return gk5i_srv_deny(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* RFC 2203 5.3.3.1 up to and including the header MIC of a DATA or
 * DESTROY call: the context (find_context), then its header
 * (verify_header).  GK5_RPC_CALL_DISPATCH with *out (a reference for the
 * caller) when the header is authentic and its number may be new;
 * otherwise the call's verdict (a reply or a drop), *out NULL.  Nothing
 * here moves the window, so gk5i_rpc_server_precheck may ask before the
 * body has arrived. */
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_authenticate(
    gk5_rpc_server *srv, const struct call_hdr *h, const gk5i_rpc_cred *cred,
    struct sctx **out, gk5_buffer *reply, gk5_rpc_error *err)
{
    struct sctx *sc = NULL;
    gk5_rpc_verdict verdict;

    *out = NULL;
    verdict = find_context(srv, h, cred, &sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    verdict = verify_header(srv, h, cred, sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        gk5i_sctx_put(sc);
        return verdict;
    }
    *out = sc;
    return GK5_RPC_CALL_DISPATCH;
}

/* The number of an authenticated call marks the window, and the reply's
 * verifier is made.  GK5_RPC_CALL_DISPATCH with *v to go on; otherwise
 * the call's verdict. */
static gk5_rpc_verdict mark_window(gk5_rpc_server *srv,
                                   const struct call_hdr *h,
                                   const gk5i_rpc_cred *cred, struct sctx *sc,
                                   struct verf *v, gk5_buffer *reply,
                                   gk5_rpc_error *err)
{
    /* The same gk5i_srv_window_check as the first look in verify_header,
     * on purpose: only now, authenticated, may the number mark the
     * window.  Asked again under the lock: a copy may have passed its MIC
     * meanwhile. */
    if (gk5i_srv_window_check(sc, srv->window, cred->seq, true) != SEQ_NEW) {
        return gk5i_srv_drop(err, GK5_RPC_E_SEQ_MISMATCH,
                             "sequence number %u replayed or below the window",
                             cred->seq);
    }
    /* RFC 2203 5.3.3.2: the reply's verifier is the MIC of seq_num; also
     * needed for GARBAGE_ARGS.  RFC 2203 5.3.3.4.1: a failed GSS_GetMIC
     * is RPCSEC_GSS_CTXPROBLEM. */
    if (gk5i_srv_verf_mic_u32(sc->ctx, cred->seq, v, err) != 0) {
        return gk5i_srv_deny(reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* RFC 2203 5.4: a DESTROY is verified like a data call and answered with
 * a void result and the verifier; the context goes after that (wiped once
 * no running call holds it).  Its arguments, void under the call's
 * service, are not opened. */
static gk5_rpc_verdict destroy_context(gk5_rpc_server *srv,
                                       const struct call_hdr *h,
                                       struct sctx *sc, const struct verf *v,
                                       gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_rpc_verdict verdict =
        gk5i_srv_accept_empty(reply, h->xid, v, GK5_RPC_SUCCESS, err);

    gk5i_srv_table_remove(srv, sc);
    if (verdict == GK5_RPC_CALL_REPLY) {
        gk5i_rpc_err_clear(err);
    }
    return verdict;
}

/* The arguments under the call's service (RFC 2203 5.3.2.2, 5.3.2.3):
 * *data and *data_len, in place in the message.  GK5_RPC_CALL_DISPATCH to
 * go on; otherwise the call's verdict (GARBAGE_ARGS). */
static gk5_rpc_verdict open_body(gk5_rpc_server *srv, const struct call_hdr *h,
                                 const gk5i_rpc_cred *cred, struct sctx *sc,
                                 const struct verf *v, uint8_t **data,
                                 size_t *data_len, gk5_buffer *reply,
                                 gk5_rpc_error *err)
{
    gk5_rpc_service svc = (gk5_rpc_service)cred->service;
    size_t used = 0;

    *data = NULL;
    *data_len = 0;
    if (svc == GK5_RPC_SVC_NONE) {
        if (h->args_len > srv->max_body) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "arguments of %zu bytes exceed max_body %zu",
                         h->args_len, srv->max_body);
            return gk5i_srv_accept_empty(reply, h->xid, v, GK5_RPC_GARBAGE_ARGS,
                                         err);
        }
        *data = h->args;
        *data_len = h->args_len;
        return GK5_RPC_CALL_DISPATCH;
    }
    if (gk5i_rpc_body_open(sc->ctx, svc, cred->seq, h->args, h->args_len,
                           srv->max_body, data, data_len, &used, err) != 0 ||
        used != h->args_len) {
        /* RFC 2203 5.3.3.4.2 and 5.3.3.4.3: a body that fails its check
         * (or does not decode) is GARBAGE_ARGS, not a silent discard: the
         * header was authentic, so the client is told at once instead of
         * waiting out a timeout, and the reply is MIC'd like any other.
         * The context is untouched (gk5 changes no state for a failed
         * token) and the number stays used: it was authenticated, and RFC
         * 2203 5.3.3.1 has clients send a new one on every retry. */
        if (*data != NULL) {
            zap(*data, *data_len); /* decoded but followed by junk */
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "%zu bytes after the %s body", h->args_len - used,
                         gk5_rpc_service_name(svc));
        }
        return gk5i_srv_accept_empty(reply, h->xid, v, GK5_RPC_GARBAGE_ARGS,
                                     err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* A DATA or DESTROY call, step by step: verify (the context and the
 * header MIC), window, open, dispatch. */
GK5I_RPC_WUR static gk5_rpc_verdict
gss_data(gk5_rpc_server *srv, const struct call_hdr *h,
         const gk5i_rpc_cred *cred, gk5_rpc_call **call, gk5_buffer *reply,
         gk5_rpc_error *err)
{
    struct sctx *sc = NULL;
    struct verf v;
    uint8_t *data = NULL;
    size_t data_len = 0;
    gk5_rpc_verdict verdict;

    verdict = gk5i_srv_gss_authenticate(srv, h, cred, &sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    verdict = mark_window(srv, h, cred, sc, &v, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto cleanup;
    }
    if (cred->proc == GK5I_RPCSEC_GSS_DESTROY) {
        verdict = destroy_context(srv, h, sc, &v, reply, err);
        goto cleanup;
    }
    verdict = open_body(srv, h, cred, sc, &v, &data, &data_len, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto cleanup;
    }
    verdict = gk5i_srv_dispatch(h, GK5_RPC_FLAVOR_RPCSEC_GSS,
                                (gk5_rpc_service)cred->service, cred->seq, sc,
                                data, data_len, call, err);
    sc = NULL; /* the call holds it now */
cleanup:
    gk5i_sctx_put(sc);
    return verdict;
}

/* The RPCSEC_GSS credential: decoded, a known service and procedure, the
 * service allowed.  GK5_RPC_CALL_DISPATCH to go on; else the verdict.
 */
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_cred(const gk5_rpc_server *srv,
                                               const struct call_hdr *h,
                                               gk5i_rpc_cred *cred,
                                               gk5_buffer *reply,
                                               gk5_rpc_error *err)
{
    /* RFC 2203 5.3.3.1: version, service, handle, then the verifier. */
    if (gk5i_rpc_cred_decode(h->cred, h->cred_len, cred, err) != 0) {
        return gk5i_srv_deny(reply, h->xid, GK5I_AUTH_BADCRED, err);
    }
    if (cred->service < GK5_RPC_SVC_NONE ||
        cred->service > GK5_RPC_SVC_PRIVACY) {
        return gk5i_srv_denyf(reply, h->xid, GK5I_AUTH_BADCRED, err,
                              GK5_RPC_E_MALFORMED,
                              "unknown RPCSEC_GSS service %u", cred->service);
    }
    /* A DESTROY must get through whatever the policy, or the client could
     * never release a context made under an older one. */
    if (cred->proc != GK5I_RPCSEC_GSS_DESTROY &&
        !gk5i_srv_allowed(srv, GK5_RPC_ALLOW_GSS(cred->service))) {
        return gk5i_srv_denyf(
            reply, h->xid, GK5I_AUTH_TOOWEAK, err, GK5_RPC_E_SERVICE,
            "RPCSEC_GSS %s is not allowed here",
            gk5_rpc_service_name((gk5_rpc_service)cred->service));
    }
    if (cred->proc > GK5I_RPCSEC_GSS_DESTROY) {
        return gk5i_srv_denyf(reply, h->xid, GK5I_AUTH_BADCRED, err,
                              GK5_RPC_E_MALFORMED,
                              "unknown RPCSEC_GSS procedure %u", cred->proc);
    }
    return GK5_RPC_CALL_DISPATCH;
}

GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_process_gss(gk5_rpc_server *srv,
                                                  const struct call_hdr *h,
                                                  gk5_rpc_call **call,
                                                  gk5_buffer *reply,
                                                  gk5_rpc_error *err)
{
    gk5i_rpc_cred cred;
    gk5_rpc_verdict verdict = gk5i_srv_gss_cred(srv, h, &cred, reply, err);

    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    if (cred.proc == GK5I_RPCSEC_GSS_INIT ||
        cred.proc == GK5I_RPCSEC_GSS_CONTINUE_INIT) {
        return gk5i_srv_gss_init(srv, h, &cred, reply, err);
    }
    return gss_data(srv, h, &cred, call, reply, err); /* DATA, DESTROY */
}
