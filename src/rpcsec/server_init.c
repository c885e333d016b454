/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS_INIT and CONTINUE_INIT on the server (RFC 2203 5.2.2,
 * 5.2.3): gk5's own acceptor by default (accept_native.c, one leg), or
 * MIT's through libgk5_mit (GK5_RPC_ESTABLISH_MIT, CONTINUE_INIT legs as
 * MIT asks; compiled only with MIT krb5, GK5_RPC_WITH_MIT); either way
 * the context then lives in the table as a gk5_ctx.
 */
#include <stdio.h>

#include "rpcsec/server_int.h"

/* gss_minor as RFC 2203 5.2.3.1 means it, the mechanism's minor status:
 * for an MIT failure MIT's own minor (a libtirpc or kernel client shows it
 * with gss_display_status), for gk5's refusals gk5's code (which names the
 * enctype).  Read before anything else can overwrite this thread's MIT
 * error. */
static uint32_t wire_minor(uint32_t minor)
{
#ifdef GK5_RPC_WITH_MIT
    uint32_t mit_major = 0;
    uint32_t mit_minor = 0;
    const char *what = NULL;

    if (GK5_ERR_CODE(minor) != GK5_ERR_MIT) {
        return minor;
    }
    gk5_mit_last_error(&mit_major, &mit_minor, &what);
    return mit_minor;
#else
    return minor; /* built without MIT: every minor is gk5's */
#endif
}

/* The context could not be made: answer with the GSS status and an empty
 * handle (RFC 2203 5.2.3.1), keep nothing. */
static gk5_rpc_verdict init_failed(gk5_buffer *reply, const struct call_hdr *h,
                                   uint32_t window, uint32_t major,
                                   uint32_t minor, const gk5_buffer *token,
                                   const char *what, gk5_rpc_error *err)
{
    uint32_t wminor = wire_minor(minor);

    gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, what);
    if (gk5i_srv_reply_init_res(reply, h->xid, &gk5i_srv_verf_none, NULL, 0,
                                major, wminor, window, token, err) != 0) {
        return GK5_RPC_CALL_DROP;
    }
    return GK5_RPC_CALL_REPLY;
}

/* A complete gk5 context in sc->ctx becomes an RPCSEC_GSS one:
 * RPCSEC_GSS's own window instead of gk5's, the expiry.  GSS status with
 * minor; *info (may be NULL) is what gk5 says of the context. */
GK5I_RPC_WUR uint32_t gk5i_srv_adopt(struct sctx *sc, uint32_t *minor,
                                     gk5_ctx_info *info)
{
    gk5_ctx_info got;
    uint32_t major;

    /* RFC 2203 5.3.3.1: the server keeps its own window over seq_num,
     * and replies are sent out of order; per-token replay detection in
     * gk5 would only refuse what RPCSEC_GSS allows (and the MIC tokens of
     * replies are checked by the client the same way). */
    major = gk5_ctx_set_flags(minor, sc->ctx, 0);
    if (GK5_ERROR(major)) {
        return major;
    }
    major = gk5_ctx_inquire(minor, sc->ctx, &got);
    if (GK5_ERROR(major)) {
        return major;
    }
    sc->endtime = got.endtime;
    if (info != NULL) {
        *info = got;
    }
    return GK5_S_COMPLETE;
}

#ifdef GK5_RPC_WITH_MIT
/* After MIT's acceptor completed: the gk5 context, adopted.  GSS status
 * with minor. */
GK5I_RPC_WUR static uint32_t init_finish(struct sctx *sc, uint32_t *minor)
{
    uint32_t major;

    major = gk5_mit_acceptor_finish(minor, sc->acc, &sc->principal,
                                    &sc->ret_flags, &sc->enctype, &sc->ctx);
    if (GK5_ERROR(major)) {
        return major;
    }
    major = gk5i_srv_adopt(sc, minor, NULL);
    if (GK5_ERROR(major)) {
        return major;
    }
    gk5_mit_acceptor_free(sc->acc);
    sc->acc = NULL;
    return GK5_S_COMPLETE;
}
#endif

/* The context in the table (complete, or pending for MIT; put there
 * first when it is new): answer with its handle and the acceptor's token,
 * and once complete the verifier, a MIC of seq_window, which proves the
 * server holds the context (RFC 2203 5.2.3.1).  The context leaves the
 * table again if the reply fails. */
static gk5_rpc_verdict init_reply(gk5_rpc_server *srv, const struct call_hdr *h,
                                  struct sctx *sc, bool insert, uint32_t major,
                                  const gk5_buffer *token, gk5_buffer *reply,
                                  gk5_rpc_error *err)
{
    struct verf v = gk5i_srv_verf_none;

    if (insert && gk5i_srv_table_insert(srv, sc, err) != 0) {
        return gk5i_srv_accept_empty(reply, h->xid, &gk5i_srv_verf_none,
                                     GK5_RPC_SYSTEM_ERR, err);
    }

    if (major == GK5_S_COMPLETE &&
        gk5i_srv_verf_mic_u32(sc->ctx, srv->window, &v, err) != 0) {
        gk5i_srv_table_remove(srv, sc);
        return gk5i_srv_deny(reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err);
    }
    if (gk5i_srv_reply_init_res(reply, h->xid, &v, sc->handle,
                                GK5I_RPC_HANDLE_LEN, major, 0, srv->window,
                                token, err) != 0) {
        gk5i_srv_table_remove(srv, sc);
        return GK5_RPC_CALL_DROP;
    }
    gk5i_rpc_err_clear(err);
    return GK5_RPC_CALL_REPLY;
}

/* Before an acceptor consumes the client's AP-REQ: room in the table and
 * a new context.  NULL with *verdict set when there is neither. */
static struct sctx *init_new_context(gk5_rpc_server *srv,
                                     const struct call_hdr *h,
                                     gk5_buffer *reply, gk5_rpc_error *err,
                                     gk5_rpc_verdict *verdict)
{
    struct sctx *sc;

    if (!gk5i_srv_table_reserve(srv)) {
        gk5i_rpc_err(err, GK5_RPC_E_CONTEXT,
                     "context table full: %zu contexts, all in use",
                     srv->max_contexts);
        *verdict = gk5i_srv_accept_empty(reply, h->xid, &gk5i_srv_verf_none,
                                         GK5_RPC_SYSTEM_ERR, err);
        return NULL;
    }
    sc = gk5i_sctx_new();
    if (sc == NULL) {
        *verdict = gk5i_srv_drop(err, GK5_RPC_E_NOMEM, "out of memory");
    }
    return sc;
}

/* RPCSEC_GSS_INIT with gk5's acceptor: one leg, the context complete at
 * once, the AP-REP the reply's gss_token; a refusal answers gss_major,
 * gss_minor and the KRB-ERROR (RFC 2203 5.2.3.1). */
GK5I_RPC_WUR static gk5_rpc_verdict
init_native(gk5_rpc_server *srv, const struct call_hdr *h, const gk5_buffer *in,
            gk5_buffer *reply, gk5_rpc_error *err)
{
    struct gk5i_rpc_accepted acc;
    gk5_buffer out = {0, NULL};
    struct sctx *sc = NULL;
    gk5_rpc_verdict verdict;
    uint32_t major;
    uint32_t minor = 0;

    sc = init_new_context(srv, h, reply, err, &verdict);
    if (sc == NULL) {
        return verdict;
    }
    major = gk5i_rpc_accept_native(&minor, srv->native, in, &out, &acc);
    if (!GK5_ERROR(major)) {
        sc->ctx = acc.ctx; /* gk5i_sctx_put frees them from here on */
        sc->principal = acc.principal;
        sc->ret_flags = acc.ret_flags;
        sc->enctype = acc.enctype;
        major = gk5i_srv_adopt(sc, &minor, NULL);
    }
    if (GK5_ERROR(major)) {
        char what[160];

        (void)snprintf(what, sizeof(what),
                       "accepting an RPCSEC_GSS context (gk5's acceptor)%s%s",
                       sc->principal != NULL ? " from " : "",
                       sc->principal != NULL ? sc->principal : "");
        verdict =
            init_failed(reply, h, srv->window, major, minor, &out, what, err);
        goto cleanup;
    }
    sc->state = SCTX_ESTABLISHED;
    verdict = init_reply(srv, h, sc, true, major, &out, reply, err);
cleanup:
    gk5_buffer_release(&out);
    gk5i_sctx_put(sc); /* the table holds a reference of its own */
    return verdict;
}

/* The context a CONTINUE_INIT names, with a reference; NULL with *verdict
 * set when it names none. */
static struct sctx *continue_lookup(gk5_rpc_server *srv,
                                    const struct call_hdr *h,
                                    const gk5i_rpc_cred *cred,
                                    gk5_buffer *reply, gk5_rpc_error *err,
                                    gk5_rpc_verdict *verdict)
{
    struct sctx *sc = NULL;

    switch (gk5i_srv_table_lookup(srv, cred->handle, cred->handle_len, &sc)) {
    case LOOKUP_FOUND:
        return sc;
    case LOOKUP_IDLE:
        *verdict = gk5i_srv_denyf(
            reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err, GK5_RPC_E_EXPIRED,
            "RPCSEC_GSS_CONTINUE_INIT: the context was idle "
            "too long and is gone");
        return NULL;
    default:
        *verdict = gk5i_srv_denyf(
            reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err, GK5_RPC_E_CONTEXT,
            "RPCSEC_GSS_CONTINUE_INIT for an unknown handle");
        return NULL;
    }
}

#ifdef GK5_RPC_WITH_MIT
/* The context an MIT leg works on, with a reference: a new one with MIT's
 * acceptor for an INIT (*fresh set too), the pending one a CONTINUE_INIT
 * names.  NULL with *verdict set when there is none. */
static struct sctx *mit_context(gk5_rpc_server *srv, const struct call_hdr *h,
                                const gk5i_rpc_cred *cred, struct sctx **fresh,
                                gk5_buffer *reply, gk5_rpc_error *err,
                                gk5_rpc_verdict *verdict)
{
    struct sctx *sc;
    uint32_t major;
    uint32_t minor = 0;

    *fresh = NULL;
    if (cred->proc != GK5I_RPCSEC_GSS_INIT) {
        return continue_lookup(srv, h, cred, reply, err, verdict);
    }
    sc = init_new_context(srv, h, reply, err, verdict);
    if (sc == NULL) {
        return NULL;
    }
    major = gk5_mit_acceptor_create(&minor, srv->cred, &sc->acc);
    if (GK5_ERROR(major)) {
        *verdict = init_failed(reply, h, srv->window, major, minor, NULL,
                               "accepting an RPCSEC_GSS context", err);
        gk5i_sctx_put(sc);
        return NULL;
    }
    *fresh = sc;
    return sc;
}

/* One leg of MIT's acceptor on a pending context, under its lock: the
 * GSS status (GK5_S_COMPLETE once established), *out its token, *minor;
 * *what says whose context failed.  -1 (with *verdict) when the context
 * is not pending. */
static int mit_step(struct sctx *sc, const struct call_hdr *h,
                    const gk5_buffer *in, gk5_buffer *out, uint32_t *major,
                    uint32_t *minor, char *what, size_t what_len,
                    gk5_buffer *reply, gk5_rpc_error *err,
                    gk5_rpc_verdict *verdict)
{
    int rc = 0;

    (void)pthread_mutex_lock(&sc->lock);
    if (sc->state != SCTX_PENDING) {
        *verdict = gk5i_srv_denyf(
            reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err, GK5_RPC_E_CONTEXT,
            "RPCSEC_GSS_CONTINUE_INIT for an established context");
        rc = -1;
        goto cleanup;
    }
    *major = gk5_mit_acceptor_step(minor, sc->acc, in, out);
    if (*major == GK5_S_COMPLETE) {
        *major = init_finish(sc, minor);
        if (!GK5_ERROR(*major)) {
            sc->state = SCTX_ESTABLISHED;
        }
    }
    if (GK5_ERROR(*major)) {
        (void)snprintf(what, what_len, "accepting an RPCSEC_GSS context%s%s",
                       sc->principal != NULL ? " from " : "",
                       sc->principal != NULL ? sc->principal : "");
    }
cleanup:
    (void)pthread_mutex_unlock(&sc->lock);
    return rc;
}

/* RPCSEC_GSS_INIT and CONTINUE_INIT with MIT's acceptor: as many legs as
 * gss_accept_sec_context asks for, the context pending in the table
 * between them. */
GK5I_RPC_WUR static gk5_rpc_verdict
init_mit(gk5_rpc_server *srv, const struct call_hdr *h,
         const gk5i_rpc_cred *cred, const gk5_buffer *in, gk5_buffer *reply,
         gk5_rpc_error *err)
{
    gk5_buffer out = {0, NULL};
    struct sctx *sc;
    struct sctx *fresh = NULL;
    uint32_t major = 0;
    uint32_t minor = 0;
    char what[160];
    gk5_rpc_verdict verdict = GK5_RPC_CALL_DROP;

    sc = mit_context(srv, h, cred, &fresh, reply, err, &verdict);
    if (sc == NULL) {
        return verdict;
    }
    if (mit_step(sc, h, in, &out, &major, &minor, what, sizeof(what), reply,
                 err, &verdict) != 0) {
        goto cleanup;
    }
    if (GK5_ERROR(major)) {
        if (sc != fresh) {
            gk5i_srv_table_remove(srv, sc);
        }
        verdict =
            init_failed(reply, h, srv->window, major, minor, &out, what, err);
        goto cleanup;
    }
    verdict = init_reply(srv, h, sc, sc == fresh, major, &out, reply, err);
cleanup:
    gk5_buffer_release(&out);
    gk5i_sctx_put(sc);
    return verdict;
}
#else
/* CONTINUE_INIT when every context is made by gk5's acceptor, in one leg:
 * it names an established context or none. */
GK5I_RPC_WUR static gk5_rpc_verdict
continue_init_one_leg(gk5_rpc_server *srv, const struct call_hdr *h,
                      const gk5i_rpc_cred *cred, gk5_buffer *reply,
                      gk5_rpc_error *err)
{
    gk5_rpc_verdict verdict = GK5_RPC_CALL_DROP;
    struct sctx *sc = continue_lookup(srv, h, cred, reply, err, &verdict);

    if (sc == NULL) {
        return verdict;
    }
    verdict = gk5i_srv_denyf(
        reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err, GK5_RPC_E_CONTEXT,
        "RPCSEC_GSS_CONTINUE_INIT for an established context");
    gk5i_sctx_put(sc);
    return verdict;
}
#endif

/* Whether the server has an acceptor credential: gk5's or MIT's. */
static bool has_acceptor_cred(const gk5_rpc_server *srv)
{
#ifdef GK5_RPC_WITH_MIT
    return srv->native != NULL || srv->cred != NULL;
#else
    return srv->native != NULL;
#endif
}

/* RFC 2203 5.2.2: the argument, rpc_gss_init_arg, is one opaque<> token,
 * in place in the message (*in).  GK5_RPC_CALL_DISPATCH to go on;
 * otherwise the call's verdict (GARBAGE_ARGS). */
static gk5_rpc_verdict read_init_arg(const struct call_hdr *h,
                                     const gk5i_rpc_cred *cred, gk5_buffer *in,
                                     gk5_buffer *reply, gk5_rpc_error *err)
{
    struct gk5i_rd r;

    gk5i_rd_init(&r, h->args, h->args_len);
    in->value = (void *)(uintptr_t)gk5i_xdr_get_opaque(
        &r, GK5I_SRV_MAX_INIT_TOKEN, &in->length);
    if (r.bad || r.left != 0) {
        gk5i_rpc_err(err,
                     r.bad && h->args_len > GK5I_SRV_MAX_INIT_TOKEN
                         ? GK5_RPC_E_TOO_BIG
                         : GK5_RPC_E_MALFORMED,
                     "RPCSEC_GSS_%s argument is not one opaque<> token",
                     cred->proc == GK5I_RPCSEC_GSS_INIT ? "INIT"
                                                        : "CONTINUE_INIT");
        return gk5i_srv_accept_empty(reply, h->xid, &gk5i_srv_verf_none,
                                     GK5_RPC_GARBAGE_ARGS, err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* An INIT or CONTINUE_INIT call, step by step: verify (an acceptor
 * credential, the argument, no handle on an INIT), then the leg on the
 * acceptor that made or makes the context. */
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_init(gk5_rpc_server *srv,
                                               const struct call_hdr *h,
                                               const gk5i_rpc_cred *cred,
                                               gk5_buffer *reply,
                                               gk5_rpc_error *err)
{
    gk5_buffer in = {0, NULL};
    gk5_rpc_verdict verdict;

    if (!has_acceptor_cred(srv)) {
        return gk5i_srv_denyf(
            reply, h->xid, GK5I_AUTH_TOOWEAK, err, GK5_RPC_E_SERVICE,
            "this server has no acceptor credential (no RPCSEC_GSS "
            "service is allowed)");
    }
    verdict = read_init_arg(h, cred, &in, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    /* RFC 2203 5.2.2: INIT carries no handle. */
    if (cred->proc == GK5I_RPCSEC_GSS_INIT && cred->handle_len != 0) {
        return gk5i_srv_denyf(reply, h->xid, GK5I_AUTH_BADCRED, err,
                              GK5_RPC_E_MALFORMED,
                              "RPCSEC_GSS_INIT with a context handle");
    }
    /* gk5's acceptor completes every context in one leg: a CONTINUE_INIT
     * names an established context or none, which init_mit answers. */
    if (srv->native != NULL && cred->proc == GK5I_RPCSEC_GSS_INIT) {
        return init_native(srv, h, &in, reply, err);
    }
#ifdef GK5_RPC_WITH_MIT
    return init_mit(srv, h, cred, &in, reply, err);
#else
    return continue_init_one_leg(srv, h, cred, reply, err);
#endif
}
