/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client: one call's message (the header through the
 * verifier, the arguments sealed in place) and its reply checked
 * (verifier, body) on its caller's thread.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/clnt_int.h"

/* The call header: xid, type, rpcvers, prog, vers, proc; credential and
 * verifier, each a flavour and opaque<400>. */
#define CALL_HEADER_MAX (6 * 4 + 2 * (8 + GK5I_RPC_MAX_AUTH_BYTES))

/* ---- Calls ---- */

/* The call header through the verifier (RFC 5531 9; RFC 2203 5.3.1):
 * into hdr (CALL_HEADER_MAX), *len its length. */
static GK5I_RPC_WUR int call_header(gk5_rpc_clnt *c, const struct call *call,
                                    uint8_t *hdr, size_t *len,
                                    gk5_rpc_error *err)
{
    struct gk5i_wr w;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t body_len = 0, mic_len = 0;

    gk5i_wr_init(&w, hdr, CALL_HEADER_MAX);
    gk5i_xdr_put_u32(&w, call->xid);
    gk5i_xdr_put_u32(&w, GK5I_RPC_MSG_CALL);
    gk5i_xdr_put_u32(&w, 2); /* rpcvers */
    gk5i_xdr_put_u32(&w, c->est.prog);
    gk5i_xdr_put_u32(&w, c->est.vers);
    gk5i_xdr_put_u32(&w, call->proc);
    if (call->cc == NULL) {
        gk5i_xdr_put_u32(&w, c->flavor);
        gk5i_xdr_put_opaque(&w, c->cred, c->cred_len);
        gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_NONE);
        gk5i_xdr_put_u32(&w, 0);
        *len = CALL_HEADER_MAX - w.left;
        return w.bad ? -1 : 0;
    }
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DATA,
        .seq = call->seq,
        .service = (uint32_t)call->svc,
        .handle = call->cc->handle,
        .handle_len = call->cc->handle_len,
    };
    body_len = gk5i_rpc_cred_encode(&cred, body, sizeof(body));
    gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(&w, body, body_len);
    if (body_len == 0 || w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the RPCSEC_GSS credential does not fit 400 bytes");
        return -1;
    }
    if (gk5i_rpc_mic(call->cc->gss, hdr, CALL_HEADER_MAX - w.left, mic,
                     sizeof(mic), &mic_len, err) != 0) {
        return -1;
    }
    gk5i_xdr_put_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(&w, mic, mic_len);
    *len = CALL_HEADER_MAX - w.left;
    return w.bad ? -1 : 0;
}

/* A new call to proc with its number (xid) and deadline, not yet in the
 * table; NULL with err when the arguments are not acceptable. */
static struct call *new_call(gk5_rpc_clnt *c, uint32_t proc,
                             const gk5_buffer *args, gk5_rpc_error *err)
{
    size_t alen = args != NULL ? args->length : 0;
    struct call *call;

    if (alen > 0 && args->value == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "arguments without bytes");
        return NULL;
    }
    if (alen > c->est.max_body) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "arguments of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     alen, c->est.max_body);
        return NULL;
    }
    call = calloc(1, sizeof(*call));
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return NULL;
    }
    call->proc = proc;
    call->xid = atomic_fetch_add(&c->next_xid, 1);
    call->deadline = gk5i_rpc_now_ms() + c->call_timeout_ms;
    return call;
}

/* A call's body as the pieces that follow the header on the wire.  The
 * arguments go as the caller gave them (AUTH_SYS, AUTH_NONE, krb5,
 * krb5i: between an 8-byte head and the checksum); krb5p seals them in a
 * buffer the client keeps, which after sealing holds only ciphertext. */
struct body {
    struct iovec iov[3];
    int n;
    uint8_t head[GK5I_RPC_INTEG_HEAD];
    uint8_t tail[GK5I_RPC_INTEG_TAIL];
    struct kept_buf *kept;
};

/* The admitted call's arguments with its number, as pieces of b.  On
 * failure b->kept, if any, is wiped; the caller gives it back either
 * way. */
static GK5I_RPC_WUR int seal_args(gk5_rpc_clnt *c, struct call *call,
                                  const gk5_buffer *args, struct body *b,
                                  gk5_rpc_error *err)
{
    size_t alen = args != NULL ? args->length : 0;
    const uint8_t *a = alen > 0 ? args->value : NULL;
    size_t head = 0, tail = 0, tail_len = 0, off = 0, len = 0;

    b->n = 0;
    if (call->cc != NULL) {
        call->svc = (gk5_rpc_service)atomic_load(&c->est.service);
    }
    if (call->cc == NULL || call->svc == GK5_RPC_SVC_NONE) {
        if (alen > 0) {
            b->iov[b->n++] = (struct iovec){(void *)(uintptr_t)a, alen};
        }
        return 0;
    }
    if (call->svc == GK5_RPC_SVC_INTEGRITY) {
        if (gk5i_rpc_integ_pieces(call->cc->gss, call->seq, a, alen, b->head,
                                  b->tail, &tail_len, err) != 0) {
            return -1;
        }
        b->iov[b->n++] = (struct iovec){b->head, sizeof(b->head)};
        if (alen > 0) {
            b->iov[b->n++] = (struct iovec){(void *)(uintptr_t)a, alen};
        }
        b->iov[b->n++] = (struct iovec){b->tail, tail_len};
        return 0;
    }
    if (gk5i_rpc_body_room(call->cc->gss, call->svc, 4 + alen, &head, &tail,
                           err) != 0) {
        return -1;
    }
    b->kept = gk5i_clnt_buf_take(c, head + 4 + alen + tail, err);
    if (b->kept == NULL) {
        return -1;
    }
    gk5i_put32(b->kept->p + head, call->seq);
    if (alen > 0) {
        memcpy(b->kept->p + head + 4, a, alen);
    }
    if (gk5i_rpc_body_seal(call->cc->gss, call->svc, b->kept->p, head, 4 + alen,
                           head + 4 + alen + tail, &off, &len, err) != 0) {
        zap(b->kept->p + head, 4 + alen); /* the arguments, if it stopped */
        return -1;
    }
    b->iov[b->n++] = (struct iovec){b->kept->p + off, len};
    return 0;
}

/* Build, seal and send one call; *out is the call in the table. */
GK5I_RPC_WUR int gk5i_clnt_start_call(gk5_rpc_clnt *c, uint32_t proc,
                                      const gk5_buffer *args, struct call **out,
                                      gk5_rpc_error *err)
{
    struct call *call = NULL;
    uint8_t hdr[CALL_HEADER_MAX];
    struct body b = {.n = 0, .kept = NULL};
    size_t hdr_len = 0;
    bool admitted = false;
    int ret = -1;

    *out = NULL;
    call = new_call(c, proc, args, err);
    if (call == NULL) {
        return -1;
    }
    if (gk5i_clnt_admit(c, call, c->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS, err) !=
        0) {
        goto cleanup;
    }
    admitted = true;
    if (seal_args(c, call, args, &b, err) != 0 ||
        call_header(c, call, hdr, &hdr_len, err) != 0) {
        goto cleanup;
    }
    struct iovec iov[4] = {{.iov_base = hdr, .iov_len = hdr_len}};
    memcpy(iov + 1, b.iov, (size_t)b.n * sizeof(*iov));
    if (gk5i_clnt_post(c, call, iov, 1 + b.n, err) != 0) {
        goto cleanup;
    }
    *out = call;
    call = NULL;
    ret = 0;

cleanup:
    gk5i_clnt_buf_give(c, b.kept); /* ciphertext, or wiped by seal_args */
    if (call != NULL && admitted) {
        /* Admitted and never sent: its room and number go back. */
        (void)pthread_mutex_lock(&c->lock);
        gk5i_clnt_call_ended(c, call);
        gk5i_clnt_unlink_call(c, call);
        (void)pthread_mutex_unlock(&c->lock);
    }
    gk5i_clnt_call_free(call);
    return ret;
}

/* RFC 2203 5.3.3.3: RPCSEC_GSS_CREDPROBLEM or CTXPROBLEM asks for a new
 * context. */
static bool wants_new_context(const struct call *call,
                              const struct gk5i_rpc_reply *rep)
{
    return rep->reply_stat == GK5I_RPC_MSG_DENIED &&
           rep->stat == GK5I_RPC_REJECT_AUTH_ERROR && call->cc != NULL &&
           (rep->why == GK5I_RPCSEC_GSS_CREDPROBLEM ||
            rep->why == GK5I_RPCSEC_GSS_CTXPROBLEM);
}

/* An RPCSEC_GSS call's accepted reply: the verifier is the MIC of the
 * call's number (RFC 2203 5.3.3.2), then the body opened with that number
 * (5.3.3.4) and nothing after it.  *data points into the record. */
static GK5I_RPC_WUR int gss_results(gk5_rpc_clnt *c, const struct call *call,
                                    const struct gk5i_rpc_reply *rep,
                                    uint8_t **data, size_t *data_len,
                                    gk5_rpc_error *err)
{
    size_t used = 0;

    if (rep->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                     "the reply's verifier is of flavour %u, not "
                     "RPCSEC_GSS (RFC 2203 5.3.3.2)",
                     rep->verf_flavor);
        return -1;
    }
    if (gk5i_rpc_verify_u32(call->cc->gss, call->seq, rep->verf, rep->verf_len,
                            err) != 0) {
        if (err != NULL) {
            char words[sizeof(err->text)];
            memcpy(words, err->text, sizeof(words));
            (void)snprintf(err->text, sizeof(err->text),
                           "the reply's verifier is not the MIC of the "
                           "call's sequence number %u (RFC 2203 "
                           "5.3.3.2): %.400s",
                           call->seq, words);
        }
        return -1;
    }
    if (call->svc == GK5_RPC_SVC_NONE) {
        *data = (uint8_t *)(uintptr_t)rep->res;
        *data_len = rep->res_len;
        return 0;
    }
    if (gk5i_rpc_body_open(call->cc->gss, call->svc, call->seq,
                           (uint8_t *)(uintptr_t)rep->res, rep->res_len,
                           c->est.max_body, data, data_len, &used, err) != 0) {
        return -1;
    }
    if (used != rep->res_len) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "%zu bytes follow the reply's %s body",
                     rep->res_len - used, gk5_rpc_service_name(call->svc));
        return -1;
    }
    return 0;
}

/* The reply to call, checked, into results; call freed.  *retry set when
 * the server asked for a new context (RPCSEC_GSS_CREDPROBLEM or
 * CTXPROBLEM, RFC 2203 5.3.3.3) and one has been made. */
GK5I_RPC_WUR int gk5i_clnt_finish_call(gk5_rpc_clnt *c, struct call *call,
                                       gk5_buffer *results, bool *retry,
                                       gk5_rpc_error *err)
{
    struct gk5i_rpc_reply rep;
    uint8_t *data = NULL;
    size_t data_len = 0;
    int ret = -1;

    *retry = false;
    if (gk5i_clnt_collect(c, call, err) != 0) {
        return -1; /* call freed, or left to the reader */
    }
    if (gk5i_rpc_reply_decode(call->rec, call->rec_len, call->xid, &rep, err) !=
        0) {
        goto cleanup;
    }
    if (wants_new_context(call, &rep)) {
        int rejected = gk5i_rpc_reply_ok(&rep, "the call", err); /* -1 */
        (void)rejected;
        if (gk5i_clnt_reestablish(c, call->cc->gen, err) == 0) {
            *retry = true;
        }
        goto cleanup;
    }
    if (gk5i_rpc_reply_ok(&rep, "the call", err) != 0) {
        goto cleanup;
    }
    if (call->cc == NULL) {
        data = (uint8_t *)(uintptr_t)rep.res;
        data_len = rep.res_len;
    } else if (gss_results(c, call, &rep, &data, &data_len, err) != 0) {
        goto cleanup;
    }
    if (data_len > c->est.max_body) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "results of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     data_len, c->est.max_body);
        goto cleanup;
    }
    /* The results move to the front of the record, which becomes theirs. */
    memmove(call->rec, data, data_len);
    zap(call->rec + data_len, call->rec_len - data_len);
    results->value = call->rec;
    results->length = data_len;
    call->rec = NULL;
    ret = 0;

cleanup:
    gk5i_clnt_call_free(call);
    return ret;
}
