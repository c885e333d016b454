/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS client's control protocol (RFC 2203 5.2, 5.4) and the
 * reply decoder both clients share (RFC 5531 9): a control call (an INIT
 * leg or DESTROY) as bytes, a reply decoded and put in words, and DESTROY
 * sent and answered.  Nothing here needs libtirpc.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/client_int.h"

/* DESTROY is a courtesy to the server: do not hold destroy up for long. */
#define DESTROY_TIMEOUT_MS 2000

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
/* ---- Control messages (RFC 5531 9, RFC 2203 5.2, 5.4) ---- */

/* A control call's verifier after its header, the cap - w->left bytes
 * written to buf so far: the header MIC with cc (DESTROY, RFC 2203 5.3.1),
 * else AUTH_NONE (INIT legs, RFC 2203 5.2.2). */
static GK5I_RPC_WUR int put_control_verf(struct gk5i_wr *w, const uint8_t *buf,
                                         size_t cap, struct gk5i_cctx *cc,
                                         gk5_rpc_error *err)
{
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;

    if (cc == NULL) {
        gk5i_xdr_put_u32(w, GK5_RPC_FLAVOR_NONE);
        gk5i_xdr_put_u32(w, 0);
        return 0;
    }
    if (gk5i_rpc_mic(cc->gss, buf, cap - w->left, mic, sizeof(mic), &mic_len,
                     err) != 0) {
        return -1;
    }
    gk5i_xdr_put_u32(w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_xdr_put_opaque(w, mic, mic_len);
    return 0;
}

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
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];
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
    cap = 6 * 4 + 8 + body_len + 8 + GK5I_RPC_MIC_MAX + 4 + tok_len + 3;
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
    if (put_control_verf(&w, buf, cap, cc, err) != 0) {
        goto cleanup;
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

/* ---- RPCSEC_GSS_DESTROY (RFC 2203 5.4) ---- */

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
                        : gk5i_rpc_control_exchange(p, xid, msg, msg_len,
                                                    gk5i_rpc_destroy_timeout(p),
                                                    &rbuf, &rlen, NULL);
        (void)r;
    }
    free(msg);
    free(rbuf);
}
