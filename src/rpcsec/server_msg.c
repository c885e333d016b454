/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS server's messages: the call header it reads (RFC 5531 9)
 * and every reply it writes (RFC 5531 9, RFC 2203 5.2.3.1, 5.3.3.2),
 * results sealed in place (RFC 2203 5.3.2.2, 5.3.2.3).
 */
#include <stdlib.h>
#include <string.h>

#include "rpcsec/server_int.h"

/* RFC 5531 9: call_body up to the procedure's arguments. */
enum parse gk5i_srv_parse_call(uint8_t *msg, size_t len, struct call_hdr *h,
                               gk5_rpc_error *err)
{
    struct gk5i_rd r;
    uint32_t mtype;
    uint32_t rpcvers;

    memset(h, 0, sizeof(*h));
    gk5i_rd_init(&r, msg, len);
    h->msg = msg;
    h->xid = gk5i_xdr_get_u32(&r);
    mtype = gk5i_xdr_get_u32(&r);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "message too short for an RPC header");
        return PARSE_DROP;
    }
    if (mtype != RPC_MSG_CALL) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "not an RPC call (msg_type %u)",
                     mtype);
        return PARSE_DROP;
    }
    rpcvers = gk5i_xdr_get_u32(&r);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "call header truncated");
        return PARSE_DROP;
    }
    if (rpcvers != RPC_VERSION) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED, "RPC version %u, not 2", rpcvers);
        return PARSE_MISMATCH;
    }
    h->prog = gk5i_xdr_get_u32(&r);
    h->vers = gk5i_xdr_get_u32(&r);
    h->proc = gk5i_xdr_get_u32(&r);
    h->cred_flavor = gk5i_xdr_get_u32(&r);
    h->cred = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &h->cred_len);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "credential truncated or longer than 400 bytes");
        return PARSE_BADCRED;
    }
    h->cred_end = len - r.left;
    h->verf_flavor = gk5i_xdr_get_u32(&r);
    h->verf = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &h->verf_len);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "verifier truncated or longer than 400 bytes");
        return PARSE_BADVERF;
    }
    h->args = msg + (len - r.left);
    h->args_len = r.left;
    return PARSE_OK;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    gk5i_put32(p, v);
    return p + 4;
}

static uint8_t *put_opaque(uint8_t *p, const void *data, size_t len)
{
    p = put_u32(p, (uint32_t)len);
    if (len != 0) {
        memcpy(p, data, len);
    }
    memset(p + len, 0, gk5i_xdr_pad(len));
    return p + len + gk5i_xdr_pad(len);
}

static size_t opaque_size(size_t len)
{
    return 4 + len + gk5i_xdr_pad(len);
}

/* xid, REPLY, MSG_ACCEPTED, verf, accept_stat. */
static size_t accepted_hdr_size(const struct verf *v)
{
    return 12 + 4 + opaque_size(v->len) + 4;
}

static uint8_t *put_accepted_hdr(uint8_t *p, uint32_t xid, const struct verf *v,
                                 uint32_t accept_stat)
{
    p = put_u32(p, xid);
    p = put_u32(p, RPC_MSG_REPLY);
    p = put_u32(p, RPC_MSG_ACCEPTED);
    p = put_u32(p, v->flavor);
    p = put_opaque(p, v->body, v->len);
    return put_u32(p, accept_stat);
}

/* An accepted reply: header, then body (already XDR-encoded, not wrapped:
 * control replies, mismatch_info, or unprotected results). */
GK5I_RPC_WUR int gk5i_srv_reply_accepted(gk5_buffer *reply, uint32_t xid,
                                         const struct verf *v,
                                         uint32_t accept_stat, const void *body,
                                         size_t body_len, gk5_rpc_error *err)
{
    size_t hlen = accepted_hdr_size(v);
    uint8_t *buf;
    uint8_t *p;

    if (body_len > SIZE_MAX - hlen) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "reply too large");
        return -1;
    }
    buf = malloc(hlen + body_len);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    p = put_accepted_hdr(buf, xid, v, accept_stat);
    if (body_len != 0) {
        memcpy(p, body, body_len);
    }
    reply->value = buf;
    reply->length = hlen + body_len;
    return 0;
}

/* A rejected reply: RPC_MISMATCH (low, high) or AUTH_ERROR (auth_stat);
 * rejected replies carry no verifier. */
GK5I_RPC_WUR int gk5i_srv_reply_rejected(gk5_buffer *reply, uint32_t xid,
                                         uint32_t reject_stat, uint32_t a,
                                         uint32_t b)
{
    size_t n = reject_stat == RPC_REJECT_MISMATCH ? 24 : 20;
    uint8_t *buf = malloc(n);
    uint8_t *p;

    if (buf == NULL) {
        return -1;
    }
    p = put_u32(buf, xid);
    p = put_u32(p, RPC_MSG_REPLY);
    p = put_u32(p, RPC_MSG_DENIED);
    p = put_u32(p, reject_stat);
    p = put_u32(p, a);
    if (reject_stat == RPC_REJECT_MISMATCH) {
        (void)put_u32(p, b);
    }
    reply->value = buf;
    reply->length = n;
    return 0;
}

/* RFC 2203 5.2.3.1: rpc_gss_init_res, in an accepted SUCCESS reply. */
GK5I_RPC_WUR int
gk5i_srv_reply_init_res(gk5_buffer *reply, uint32_t xid, const struct verf *v,
                        const uint8_t *handle, size_t handle_len,
                        uint32_t major, uint32_t minor, uint32_t window,
                        const gk5_buffer *token, gk5_rpc_error *err)
{
    size_t tlen = token != NULL ? token->length : 0;
    size_t n;
    uint8_t *res;
    uint8_t *p;
    int rc;

    if (tlen > UINT32_MAX || tlen > SIZE_MAX / 2) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "context token too large");
        return -1;
    }
    n = opaque_size(handle_len) + 12 + opaque_size(tlen);
    res = malloc(n);
    if (res == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    p = put_opaque(res, handle, handle_len);
    p = put_u32(p, major);
    p = put_u32(p, minor);
    p = put_u32(p, window);
    (void)put_opaque(p, tlen != 0 ? token->value : NULL, tlen);
    rc = gk5i_srv_reply_accepted(reply, xid, v, GK5_RPC_SUCCESS, res, n, err);
    free(res);
    return rc;
}

const struct verf gk5i_srv_verf_none = {.flavor = GK5_RPC_FLAVOR_NONE};

/* RFC 2203 5.2.3.1 / 5.3.3.2: a flavour 6 verifier, the MIC of a 32-bit
 * value (seq_window or seq_num) in network byte order. */
GK5I_RPC_WUR int gk5i_srv_verf_mic_u32(gk5_ctx *ctx, uint32_t value,
                                       struct verf *v, gk5_rpc_error *err)
{
    v->flavor = GK5_RPC_FLAVOR_RPCSEC_GSS;
    v->len = 0;
    return gk5i_rpc_mic_u32(ctx, value, v->body, sizeof(v->body), &v->len, err);
}

/* Results sealed in place: one buffer laid out as
 * [reply header + verifier][room head][seq_num + results][room tail], so
 * the results are copied once and wrapped where they lie (RFC 2203
 * 5.3.2.2, 5.3.2.3).  0; -1 (memory, size); 1 when GSS failed (err). */
GK5I_RPC_WUR int gk5i_srv_reply_sealed(gk5_rpc_call *call, const struct verf *v,
                                       const void *results, size_t len,
                                       gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_ctx *ctx = call->sc->ctx;
    size_t hlen = accepted_hdr_size(v);
    size_t head = 0;
    size_t tail = 0;
    size_t off = 0;
    size_t out_len = 0;
    size_t cap;
    uint8_t *buf = NULL;
    uint8_t *base;
    int rc = -1;

    if (len > SIZE_MAX / 2 - 4) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "results too large");
        goto cleanup;
    }
    if (gk5i_rpc_body_room(ctx, call->service, 4 + len, &head, &tail, err) !=
        0) {
        rc = 1;
        goto cleanup;
    }
    if (head > SIZE_MAX / 4 || tail > SIZE_MAX / 4) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "results too large");
        goto cleanup;
    }
    cap = head + 4 + len + tail;
    buf = malloc(hlen + cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        goto cleanup;
    }
    base = buf + hlen;
    gk5i_put32(base + head, call->seq);
    if (len != 0) {
        memcpy(base + head + 4, results, len);
    }
    if (gk5i_rpc_body_seal(ctx, call->service, base, head, 4 + len, cap, &off,
                           &out_len, err) != 0) {
        rc = 1;
        goto cleanup;
    }
    if (off != 0) {
        /* The encoding starts where the room asked for ends (off 0); only
         * a layout that left a gap pays this move. */
        memmove(base, base + off, out_len);
    }
    (void)put_accepted_hdr(buf, call->xid, v, GK5_RPC_SUCCESS);
    reply->value = buf;
    reply->length = hlen + out_len;
    buf = NULL;
    rc = 0;
cleanup:
    if (buf != NULL) {
        zap(buf, hlen + cap); /* plaintext results */
        free(buf);
    }
    return rc;
}

/* RFC 2203 5.3.3.4.1 and 5.3.3.4.4: when GSS_GetMIC or GSS_Wrap fails on
 * a reply (say the context expired while the call ran) the answer is
 * AUTH_ERROR RPCSEC_GSS_CTXPROBLEM, so the client makes a new context.
 * 0 (the rejection is built; err keeps why), or -1. */
GK5I_RPC_WUR int gk5i_srv_reply_ctxproblem(gk5_buffer *reply, uint32_t xid,
                                           gk5_rpc_error *err)
{
    if (gk5i_srv_reply_rejected(reply, xid, RPC_REJECT_AUTH_ERROR,
                                GK5I_RPCSEC_GSS_CTXPROBLEM, 0) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    if (err != NULL) {
        err->auth_stat = GK5I_RPCSEC_GSS_CTXPROBLEM;
    }
    return 0;
}
