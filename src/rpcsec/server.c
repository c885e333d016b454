/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2203 RPCSEC_GSS, the server's half: one RPC call message in, a
 * verdict out (dispatch it, send this reply, or send nothing); the
 * server's options, its public calls and the call's accessors.
 *
 * Nothing here knows about transports.  A context is found by its handle
 * alone (server_table.c), so a client may use one context over many
 * connections and many contexts over one.  The rooms under this one:
 * server_table.c (contexts), server_window.c (the sequence window),
 * server_msg.c (the call header, every reply), server_verdict.c,
 * server_init.c (INIT and CONTINUE_INIT), server_data.c (DATA and
 * DESTROY).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcsec/server_int.h"

/* Defaults (gk5_rpc_server_options).  128 is the Linux server's window. */
#define DEFAULT_WINDOW 128u
#define GK5I_SRV_MAX_WINDOW 1024u
#define DEFAULT_MAX_CONTEXTS 65536u
#define DEFAULT_IDLE_TIMEOUT 3600u
#define DEFAULT_MAX_BODY ((size_t)64 * 1024 * 1024)

/* Room a record needs beyond max_body: the call header (xid..proc), two
 * opaque_auth of at most 400 bytes, and the integrity/privacy framing
 * around the arguments (lengths, seq_num, wrap token header, checksum). */
#define RECORD_HEADROOM GK5I_RPC_HEADER_MAX

/* The call header (RFC 5531 9) up to the arguments: GK5_RPC_CALL_DISPATCH
 * to go on, else the verdict (RPC_MISMATCH, AUTH_BADCRED, AUTH_BADVERF, or
 * a drop). */
static gk5_rpc_verdict header_verdict(uint8_t *msg, size_t len,
                                      struct call_hdr *h, gk5_buffer *reply,
                                      gk5_rpc_error *err)
{
    switch (gk5i_srv_parse_call(msg, len, h, err)) {
    case PARSE_OK:
        break;
    case PARSE_DROP:
        return GK5_RPC_CALL_DROP;
    case PARSE_MISMATCH:
        if (gk5i_srv_reply_rejected(reply, h->xid, RPC_REJECT_MISMATCH,
                                    RPC_VERSION, RPC_VERSION) != 0) {
            return gk5i_srv_drop(err, GK5_RPC_E_NOMEM, "out of memory");
        }
        return GK5_RPC_CALL_REPLY;
    case PARSE_BADCRED:
        return gk5i_srv_deny(reply, h->xid, GK5I_AUTH_BADCRED, err);
    case PARSE_BADVERF:
        return gk5i_srv_deny(reply, h->xid, GK5I_AUTH_BADVERF, err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* RFC 5531 9: AUTH_TOOWEAK, "rejected for security reasons", is what
 * makes a client (NFS's SECINFO, for one) try another flavour. */
static gk5_rpc_verdict
flavor_refused(gk5_buffer *reply, const struct call_hdr *h, gk5_rpc_error *err)
{
    return gk5i_srv_denyf(reply, h->xid, GK5I_AUTH_TOOWEAK, err,
                          GK5_RPC_E_SERVICE, "flavour %u is not allowed here",
                          h->cred_flavor);
}

static gk5_rpc_verdict process(gk5_rpc_server *srv, uint8_t *msg, size_t len,
                               gk5_rpc_call **call, gk5_buffer *reply,
                               gk5_rpc_error *err)
{
    struct call_hdr h;
    gk5_rpc_verdict verdict = header_verdict(msg, len, &h, reply, err);

    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    switch (h.cred_flavor) {
    case GK5_RPC_FLAVOR_NONE:
    case GK5_RPC_FLAVOR_SYS:
        if (!gk5i_srv_allowed(srv, 1u << h.cred_flavor)) {
            break;
        }
        if (h.args_len > srv->max_body) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "arguments of %zu bytes exceed max_body %zu",
                         h.args_len, srv->max_body);
            return gk5i_srv_accept_empty(reply, h.xid, &gk5i_srv_verf_none,
                                         GK5_RPC_GARBAGE_ARGS, err);
        }
        return gk5i_srv_dispatch(&h, h.cred_flavor, 0, 0, NULL, h.args,
                                 h.args_len, call, err);
    case GK5_RPC_FLAVOR_RPCSEC_GSS:
        return gk5i_srv_process_gss(srv, &h, call, reply, err);
    default:
        break;
    }
    return flavor_refused(reply, &h, err);
}

/* What a record's first bytes earn (tcp_server.c): the same parsing and
 * the same checks as process(), up to the header MIC, and nothing that
 * changes state but the context's place in the LRU list (as any lookup). */
enum gk5i_rpc_pre gk5i_rpc_server_precheck(gk5_rpc_server *srv,
                                           const uint8_t *msg, size_t len,
                                           size_t *limit, gk5_buffer *reply,
                                           gk5_rpc_error *err)
{
    struct call_hdr h;
    gk5i_rpc_cred cred;
    struct sctx *sc = NULL;
    gk5_rpc_verdict verdict;

    reply->length = 0;
    reply->value = NULL;
    *limit = 0;
    gk5i_rpc_err_clear(err);
    /* gk5i_srv_parse_call writes nothing; its args pointer is not used here. */
    verdict = header_verdict((uint8_t *)(uintptr_t)msg, len, &h, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    switch (h.cred_flavor) {
    case GK5_RPC_FLAVOR_NONE:
    case GK5_RPC_FLAVOR_SYS:
        if (gk5i_srv_allowed(srv, 1u << h.cred_flavor)) {
            *limit = srv->max_body + RECORD_HEADROOM;
            return GK5I_RPC_PRE_UNAUTH;
        }
        verdict = flavor_refused(reply, &h, err);
        goto refused;
    case GK5_RPC_FLAVOR_RPCSEC_GSS:
        break;
    default:
        verdict = flavor_refused(reply, &h, err);
        goto refused;
    }
    verdict = gk5i_srv_gss_cred(srv, &h, &cred, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    if (cred.proc == GK5I_RPCSEC_GSS_INIT ||
        cred.proc == GK5I_RPCSEC_GSS_CONTINUE_INIT) {
        *limit = GK5I_RPC_INIT_MAX + RECORD_HEADROOM;
        return GK5I_RPC_PRE_INIT;
    }
    verdict = gk5i_srv_gss_authenticate(srv, &h, &cred, &sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    gk5i_sctx_put(sc);
    *limit = srv->max_body + RECORD_HEADROOM;
    return GK5I_RPC_PRE_AUTH;
refused:
    return verdict == GK5_RPC_CALL_REPLY ? GK5I_RPC_PRE_REPLY
                                         : GK5I_RPC_PRE_DROP;
}

gk5_rpc_verdict gk5_rpc_server_process(gk5_rpc_server *srv, void *msg,
                                       size_t len, gk5_rpc_call **call,
                                       gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_rpc_verdict verdict;

    if (call != NULL) {
        *call = NULL;
    }
    if (reply != NULL) {
        reply->length = 0;
        reply->value = NULL;
    }
    gk5i_rpc_err_clear(err);
    if (srv == NULL || (msg == NULL && len != 0) || call == NULL ||
        reply == NULL) {
        return gk5i_srv_drop(err, GK5_RPC_E_INVALID,
                             "gk5_rpc_server_process: NULL argument");
    }
    verdict = process(srv, msg, len, call, reply, err);
    /* After the lookup, so that a client whose own context idled out is
     * told so rather than "no such context". */
    gk5i_srv_table_sweep(srv);
    return verdict;
}

int gk5_rpc_server_reply(gk5_rpc_server *srv, gk5_rpc_call *call,
                         uint32_t accept_stat, const void *results, size_t len,
                         gk5_buffer *reply, gk5_rpc_error *err)
{
    struct verf v = gk5i_srv_verf_none;
    uint8_t mismatch[8];
    const void *body = NULL;
    size_t body_len = 0;
    bool gss;
    int rc = -1;

    if (reply != NULL) {
        reply->length = 0;
        reply->value = NULL;
    }
    gk5i_rpc_err_clear(err);
    if (srv == NULL || call == NULL || reply == NULL ||
        accept_stat > GK5_RPC_SYSTEM_ERR || (results == NULL && len != 0)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_server_reply: bad argument");
        goto cleanup;
    }
    gss = call->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS;
    /* RFC 2203 5.3.3.2: the verifier is the MIC of the call's seq_num. */
    if (gss && gk5i_srv_verf_mic_u32(call->sc->ctx, call->seq, &v, err) != 0) {
        rc = gk5i_srv_reply_ctxproblem(reply, call->xid, err);
        goto cleanup;
    }
    if (accept_stat == GK5_RPC_SUCCESS && gss &&
        call->service != GK5_RPC_SVC_NONE) {
        rc = gk5i_srv_reply_sealed(call, &v, results, len, reply, err);
        if (rc > 0) {
            rc = gk5i_srv_reply_ctxproblem(reply, call->xid, err);
        }
        goto cleanup;
    }
    if (accept_stat == GK5_RPC_SUCCESS) {
        body = results;
        body_len = len;
    } else if (accept_stat == GK5_RPC_PROG_MISMATCH) {
        /* RFC 5531 9: mismatch_info {low, high}, never wrapped.  The
         * program may pass those 8 bytes; otherwise this version only. */
        if (len == sizeof(mismatch)) {
            memcpy(mismatch, results, sizeof(mismatch));
        } else {
            gk5i_put32(mismatch, call->vers);
            gk5i_put32(mismatch + 4, call->vers);
        }
        body = mismatch;
        body_len = sizeof(mismatch);
    }
    /* Other accept_stat values carry nothing (RFC 5531 9). */
    rc = gk5i_srv_reply_accepted(reply, call->xid, &v, accept_stat, body,
                                 body_len, err);
cleanup:
    gk5_rpc_call_free(call);
    return rc;
}

void gk5_rpc_call_free(gk5_rpc_call *call)
{
    if (call == NULL) {
        return;
    }
    gk5i_sctx_put(call->sc);
    free(call);
}

/* The options a server can be made with: 0, or -1 with err naming the
 * one at fault. */
static int check_options(const gk5_rpc_server_options *opts, gk5_rpc_error *err)
{
    if (opts->window > GK5I_SRV_MAX_WINDOW) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "window %u: must be 1..%u (0: %u)",
                     opts->window, GK5I_SRV_MAX_WINDOW, DEFAULT_WINDOW);
        return -1;
    }
    if (opts->establish != GK5_RPC_ESTABLISH_NATIVE &&
        opts->establish != GK5_RPC_ESTABLISH_MIT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "establish %d: must be GK5_RPC_ESTABLISH_NATIVE (0) or "
                     "GK5_RPC_ESTABLISH_MIT (1)",
                     (int)opts->establish);
        return -1;
    }
    if (!gk5_rpc_establish_available(opts->establish)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "establish GK5_RPC_ESTABLISH_MIT: %s",
                     GK5I_RPC_NO_MIT_WORDS);
        return -1;
    }
    return 0;
}

int gk5_rpc_server_create(const gk5_rpc_server_options *opts,
                          gk5_rpc_server **out, gk5_rpc_error *err)
{
    static const gk5_rpc_server_options defaults;
    gk5_rpc_server *srv = NULL;
#ifdef GK5_RPC_WITH_MIT
    uint32_t major;
    uint32_t minor = 0;
#endif
    int rc = -1;

    gk5i_rpc_err_clear(err);
    if (out == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_server_create: out is NULL");
        return -1;
    }
    *out = NULL;
    if (opts == NULL) {
        opts = &defaults;
    }
    if (check_options(opts, err) != 0) {
        return -1;
    }
    srv = calloc(1, sizeof(*srv));
    if (srv == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    (void)pthread_mutex_init(&srv->lock, NULL);
    srv->window = opts->window != 0 ? opts->window : DEFAULT_WINDOW;
    srv->max_contexts =
        opts->max_contexts != 0 ? opts->max_contexts : DEFAULT_MAX_CONTEXTS;
    srv->idle_timeout =
        opts->idle_timeout != 0 ? opts->idle_timeout : DEFAULT_IDLE_TIMEOUT;
    srv->flavors = opts->flavors;
    srv->establish = opts->establish;
    srv->max_body = opts->max_body != 0 ? opts->max_body : DEFAULT_MAX_BODY;
    if (srv->max_body > SIZE_MAX - RECORD_HEADROOM) {
        srv->max_body = SIZE_MAX - RECORD_HEADROOM;
    }
    if (gk5i_srv_table_init(srv) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    /* A server that allows no RPCSEC_GSS service needs no keytab. */
    unsigned gss_bits = GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE) |
                        GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY) |
                        GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY);
    if (srv->flavors != 0 && (srv->flavors & gss_bits) == 0) {
        *out = srv;
        return 0;
    }
    if (srv->establish == GK5_RPC_ESTABLISH_NATIVE) {
        if (gk5i_rpc_native_cred(opts, &srv->native, err) != 0) {
            goto cleanup;
        }
        *out = srv;
        return 0;
    }
#ifdef GK5_RPC_WITH_MIT
    major = gk5_mit_acceptor_cred_create(&minor, opts->keytab, opts->principal,
                                         &srv->cred);
    if (GK5_ERROR(major)) {
        char what[300];

        (void)snprintf(
            what, sizeof(what), "acceptor credential for %s from keytab %s",
            opts->principal != NULL ? opts->principal : "any principal",
            opts->keytab != NULL ? opts->keytab : "(KRB5_KTNAME or default)");
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, what);
        goto cleanup;
    }
    *out = srv;
    srv = NULL;
    rc = 0;
#endif
cleanup:
    gk5_rpc_server_free(srv);
    return rc;
}

void gk5_rpc_server_free(gk5_rpc_server *srv)
{
    if (srv == NULL) {
        return;
    }
    gk5i_srv_table_free(srv);
    gk5_acceptor_cred_free(srv->native);
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_acceptor_cred_free(srv->cred);
#endif
    (void)pthread_mutex_destroy(&srv->lock);
    free(srv);
}

size_t gk5_rpc_server_contexts(const gk5_rpc_server *srv)
{
    return srv != NULL ? atomic_load(&srv->count) : 0;
}

void gk5i_rpc_server_limits(const gk5_rpc_server *srv, size_t *max_record,
                            uint32_t *idle_timeout)
{
    *max_record =
        (srv->max_body > GK5I_SRV_MAX_INIT_TOKEN ? srv->max_body
                                                 : GK5I_SRV_MAX_INIT_TOKEN) +
        RECORD_HEADROOM;
    *idle_timeout = srv->idle_timeout;
}

/* ---- The call's accessors ---- */

uint32_t gk5_rpc_call_xid(const gk5_rpc_call *call)
{
    return call != NULL ? call->xid : 0;
}

uint32_t gk5_rpc_call_prog(const gk5_rpc_call *call)
{
    return call != NULL ? call->prog : 0;
}

uint32_t gk5_rpc_call_vers(const gk5_rpc_call *call)
{
    return call != NULL ? call->vers : 0;
}

uint32_t gk5_rpc_call_proc(const gk5_rpc_call *call)
{
    return call != NULL ? call->proc : 0;
}

uint32_t gk5_rpc_call_flavor(const gk5_rpc_call *call)
{
    return call != NULL ? call->flavor : 0;
}

gk5_rpc_service gk5_rpc_call_service(const gk5_rpc_call *call)
{
    return call != NULL ? call->service : (gk5_rpc_service)0;
}

const char *gk5_rpc_call_principal(const gk5_rpc_call *call)
{
    return call != NULL && call->sc != NULL ? call->sc->principal : NULL;
}

int32_t gk5_rpc_call_enctype(const gk5_rpc_call *call)
{
    return call != NULL && call->sc != NULL ? call->sc->enctype : 0;
}

const void *gk5_rpc_call_cred(const gk5_rpc_call *call, size_t *len)
{
    if (len != NULL) {
        *len = call != NULL ? call->cred_len : 0;
    }
    return call != NULL ? call->cred : NULL;
}

const void *gk5_rpc_call_args(const gk5_rpc_call *call, size_t *len)
{
    if (len != NULL) {
        *len = call != NULL ? call->args_len : 0;
    }
    return call != NULL ? call->args : NULL;
}

/* ------------------------------------------------------------------ */
/* Test seams (tests/fuzz/fuzz_rpc_call.c): not exported                */
/* ------------------------------------------------------------------ */

int gk5i_rpc_server_create_nocred(const gk5_rpc_server_options *opts,
                                  gk5_rpc_server **out, gk5_rpc_error *err)
{
    gk5_rpc_server_options o = {0};
    unsigned flavors;

    if (opts != NULL) {
        o = *opts;
    }
    flavors = o.flavors;
    /* Asked for no RPCSEC_GSS service, gk5_rpc_server_create makes no
     * acceptor credential; then the policy the caller wants. */
    o.flavors = GK5_RPC_ALLOW_NONE;
    if (gk5_rpc_server_create(&o, out, err) != 0) {
        return -1;
    }
    (*out)->flavors = flavors;
    return 0;
}

int gk5i_rpc_server_add_context(gk5_rpc_server *srv, gk5_ctx *ctx,
                                const char *principal,
                                uint8_t handle[GK5I_RPC_HANDLE_LEN],
                                gk5_rpc_error *err)
{
    struct sctx *sc = NULL;
    gk5_ctx_info info;
    uint32_t major;
    uint32_t minor = 0;
    int rc = -1;

    gk5i_rpc_err_clear(err);
    if (srv == NULL || ctx == NULL || principal == NULL || handle == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5i_rpc_server_add_context: NULL argument");
        gk5_ctx_free(ctx);
        return -1;
    }
    sc = gk5i_sctx_new();
    if (sc == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        gk5_ctx_free(ctx);
        return -1;
    }
    sc->ctx = ctx; /* gk5i_sctx_put frees it from here on */
    sc->principal = strdup(principal);
    if (sc->principal == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    /* What an acceptor's context goes through: RPCSEC_GSS's own window
     * instead of gk5's, the expiry. */
    major = gk5i_srv_adopt(sc, &minor, &info);
    if (GK5_ERROR(major)) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "adopting an established context");
        goto cleanup;
    }
    sc->enctype = info.enctype;
    sc->endtime = info.endtime;
    /* What MIT grants every krb5 context it accepts. */
    sc->ret_flags = GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG;
    sc->state = SCTX_ESTABLISHED;
    if (gk5i_srv_table_insert(srv, sc, err) != 0) {
        goto cleanup;
    }
    memcpy(handle, sc->handle, GK5I_RPC_HANDLE_LEN);
    rc = 0;
cleanup:
    gk5i_sctx_put(sc); /* the table holds a reference of its own */
    return rc;
}
