/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS server's verdicts: a call dispatched to the program, a
 * reply (AUTH_ERROR, an accepted reply without results), or a drop,
 * each with err saying why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "rpcsec/server_int.h"

__attribute__((format(printf, 3, 0))) static void
err_vset(gk5_rpc_error *err, int code, const char *fmt, va_list ap)
{
    char text[sizeof(((gk5_rpc_error *)0)->text)];

    (void)vsnprintf(text, sizeof(text), fmt, ap);
    gk5i_rpc_err(err, code, "%s", text);
}

/* AUTH_ERROR with auth_stat; err already says why. */
gk5_rpc_verdict gk5i_srv_deny(gk5_buffer *reply, uint32_t xid,
                              uint32_t auth_stat, gk5_rpc_error *err)
{
    if (gk5i_srv_reply_rejected(reply, xid, RPC_REJECT_AUTH_ERROR, auth_stat,
                                0) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return GK5_RPC_CALL_DROP;
    }
    if (err != NULL) {
        err->auth_stat = auth_stat;
    }
    return GK5_RPC_CALL_REPLY;
}

__attribute__((format(printf, 6, 7))) gk5_rpc_verdict
gk5i_srv_denyf(gk5_buffer *reply, uint32_t xid, uint32_t auth_stat,
               gk5_rpc_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(err, code, fmt, ap);
    va_end(ap);
    return gk5i_srv_deny(reply, xid, auth_stat, err);
}

/* An accepted reply without results (GARBAGE_ARGS, SYSTEM_ERR...); err
 * already says why. */
gk5_rpc_verdict gk5i_srv_accept_empty(gk5_buffer *reply, uint32_t xid,
                                      const struct verf *v, uint32_t stat,
                                      gk5_rpc_error *err)
{
    /* gk5i_srv_reply_accepted touches err only when it fails. */
    if (gk5i_srv_reply_accepted(reply, xid, v, stat, NULL, 0, err) != 0) {
        return GK5_RPC_CALL_DROP;
    }
    return GK5_RPC_CALL_REPLY;
}

__attribute__((format(printf, 3, 4))) gk5_rpc_verdict
gk5i_srv_drop(gk5_rpc_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(err, code, fmt, ap);
    va_end(ap);
    return GK5_RPC_CALL_DROP;
}

bool gk5i_srv_allowed(const gk5_rpc_server *srv, unsigned bit)
{
    return srv->flavors == 0 || (srv->flavors & bit) != 0;
}

GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_dispatch(
    const struct call_hdr *h, uint32_t flavor, gk5_rpc_service svc,
    uint32_t seq, struct sctx *sc, const uint8_t *args, size_t args_len,
    gk5_rpc_call **call, gk5_rpc_error *err)
{
    gk5_rpc_call *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        gk5i_sctx_put(sc);
        return gk5i_srv_drop(err, GK5_RPC_E_NOMEM, "out of memory");
    }
    c->xid = h->xid;
    c->prog = h->prog;
    c->vers = h->vers;
    c->proc = h->proc;
    c->flavor = flavor;
    c->service = svc;
    c->seq = seq;
    c->sc = sc; /* the caller's reference moves into the call */
    c->cred = h->cred;
    c->cred_len = h->cred_len;
    c->args = args;
    c->args_len = args_len;
    *call = c;
    gk5i_rpc_err_clear(err);
    return GK5_RPC_CALL_DISPATCH;
}
