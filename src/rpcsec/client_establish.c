/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS context creation (RFC 2203 5.2): the one rpc_gss_init_res
 * decoder, an INIT or CONTINUE_INIT leg's reply, a leg raw on a socket,
 * the server's refusal in words, and the legs loop (begin, step, send,
 * take the reply, finish) ending in the adoption function the fuzz seam
 * also calls.  The leg itself is the caller's: in band through libtirpc,
 * raw on a socket, or through gk5's own transport.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GK5_RPC_WITH_MIT
#include <com_err.h>
#endif

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/xdr.h"
#include "rpcsec/client_int.h"

/* The krb5 mechanism needs two legs; anything past this is a loop. */
#define MAX_INIT_LEGS 8

/* ---- Context creation (RFC 2203 5.2) ---- */

void gk5i_init_res_free(struct gk5i_init_res *res)
{
    free(res->token);
    memset(res, 0, sizeof(*res)); /* not a wipe: ready for reuse */
}

void gk5i_init_res_err(gk5_rpc_error *err)
{
    gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                 "the server's rpc_gss_init_res does not decode (RFC 2203 "
                 "5.2.3.1; handles of at most %u bytes, tokens of at most "
                 "%zu)",
                 (unsigned)GK5I_RPC_MAX_HANDLE, GK5I_RPC_MAX_CONTROL_REPLY);
}

/* The one decoder of rpc_gss_init_res: the whole of the results, from a
 * raw reply or (in band) as libtirpc hands them over. */
GK5I_RPC_WUR int gk5i_init_res_decode(const uint8_t *p, size_t len,
                                      struct gk5i_init_res *res)
{
    struct gk5i_rd r;
    const uint8_t *tok;
    size_t n = 0;

    memset(res, 0, sizeof(*res));
    gk5i_rd_init(&r, p, len);
    gk5i_xdr_copy_opaque(&r, res->handle, sizeof(res->handle),
                         &res->handle_len);
    res->major = gk5i_xdr_get_u32(&r);
    res->minor = gk5i_xdr_get_u32(&r);
    res->window = gk5i_xdr_get_u32(&r);
    tok = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_CONTROL_REPLY, &n);
    if (!gk5i_rd_at_end(&r)) {
        memset(res, 0, sizeof(*res)); /* not a wipe: nothing decoded */
        return -1;
    }
    res->token = malloc(n != 0 ? n : 1);
    if (res->token == NULL) {
        memset(res, 0, sizeof(*res));
        return -1;
    }
    if (n != 0) {
        memcpy(res->token, tok, n);
    }
    res->token_len = n;
    return 0;
}

/* One leg as a message of our own: raw on fd, or on a fresh connection
 * when fd is -1. */
GK5I_RPC_WUR int gk5i_rpc_leg_raw(const struct gk5i_rpc_est *p, int fd,
                                  const gk5i_rpc_cred *cred,
                                  const gk5_buffer *tok, const char *what,
                                  struct gk5i_leg_reply *leg,
                                  gk5_rpc_error *err)
{
    uint8_t *msg = NULL, *rbuf = NULL;
    size_t msg_len = 0, rlen = 0;
    uint32_t xid;
    int ret = -1;

    if (gk5i_rpc_random_xid(&xid, err) != 0 ||
        gk5i_rpc_control_call(p, NULL, xid, cred, tok, &msg, &msg_len, err) !=
            0) {
        goto cleanup;
    }
    int r =
        fd >= 0
            ? gk5i_rpc_record_exchange(fd, xid, msg, msg_len,
                                       (int)p->timeout_ms, &rbuf, &rlen, err)
            : gk5i_rpc_control_exchange(p, xid, msg, msg_len,
                                        (int)p->timeout_ms, &rbuf, &rlen, err);
    if (r != 0 || gk5i_rpc_leg_reply(rbuf, rlen, xid, what, leg, err) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(msg);
    free(rbuf);
    return ret;
}

int gk5i_rpc_leg_reply(const uint8_t *rec, size_t len, uint32_t xid,
                       const char *what, struct gk5i_leg_reply *leg,
                       gk5_rpc_error *err)
{
    struct gk5i_rpc_reply rep;

    if (gk5i_rpc_reply_decode(rec, len, xid, &rep, err) != 0 ||
        gk5i_rpc_reply_ok(&rep, what, err) != 0) {
        return -1;
    }
    if (gk5i_init_res_decode(rep.res, rep.res_len, &leg->res) != 0) {
        gk5i_init_res_err(err);
        return -1;
    }
    leg->verf_flavor = rep.verf_flavor;
    leg->verf_len = rep.verf_len;
    if (rep.verf_len > 0) {
        memcpy(leg->verf, rep.verf, rep.verf_len);
    }
    return 0;
}

/* A server's minor as a krb5 (com_err) code, in MIT's words when built
 * with MIT krb5. */
static const char *krb5_code_words(uint32_t minor)
{
#ifdef GK5_RPC_WITH_MIT
    return error_message((long)(int32_t)minor);
#else
    (void)minor;
    return "not known to this gk5, built without MIT krb5";
#endif
}

/* The server's GSS failure in words.  A gk5 server's minor is a gk5 code
 * (gk5_display_status names, e.g., an rc4 session key it refuses); an MIT
 * server's is a com_err code that our krb5 libraries may know (when built
 * with them). */
static void server_gss_err(gk5_rpc_error *err, const char *target,
                           uint32_t major, uint32_t minor)
{
    uint32_t code = GK5_ERR_CODE(minor);
    int gk5_code =
        code > 0 && code < GK5I_ERR_COUNT &&
        ((minor >> 16) == 0 || code == GK5_ERR_ENCTYPE_UNKNOWN ||
         code == GK5_ERR_ENCTYPE_REJECTED || code == GK5_ERR_ENCTYPE_NOT_BUILT);
    const char *words = gk5_code ? gk5_display_status(major, minor)
                                 : gk5_display_status(major, 0);

    if (gk5_code || minor == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x, gss_minor %u: %s",
                     target, major, minor, words);
    } else {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x (%s), gss_minor %u (0x%08x; as a "
                     "krb5 code: %s)",
                     target, major, words, minor, minor,
                     krb5_code_words(minor));
    }
    if (err != NULL) {
        err->major = major;
        err->minor = minor;
    }
}

/* ---- The legs loop ---- */

/* One establishment under way: the initiator, the token it has to send,
 * and what the server's replies have said so far. */
struct est {
    struct gk5i_rpc_initiator init;
    gk5_buffer tok;            /* the initiator's next token */
    struct gk5i_leg_reply leg; /* the server's last answer */
    uint8_t handle[GK5I_RPC_MAX_HANDLE];
    size_t handle_len; /* 0 until the first reply */
    uint8_t verf[GK5I_RPC_MAX_AUTH_BYTES];
    size_t verf_len;       /* the completing reply's verifier */
    uint32_t window;       /* the completing reply's seq_window */
    uint32_t server_major; /* the server's last gss_major */
    int sent;              /* a leg has gone out */
};

/* The initiator, on its own ccache when a native initiator is given a
 * keytab and no file ccache. */
static GK5I_RPC_WUR int est_begin(struct gk5i_rpc_est *p, struct est *e,
                                  gk5_rpc_error *err)
{
    uint32_t major, minor = 0;

    if (p->establish == GK5_RPC_ESTABLISH_NATIVE && p->client_keytab != NULL &&
        (p->ccache == NULL || strncmp(p->ccache, "MEMORY:", 7) == 0) &&
        gk5i_rpc_own_ccache(p, err) != 0) {
        return -1;
    }
    major = gk5i_rpc_initiator_create(&minor, p, &e->init);
    if (GK5_ERROR(major) == 0) {
        return 0;
    }
    gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                     "on this client, preparing to initiate (initiator "
                     "credential)");
#ifdef GK5_RPC_WITH_MIT
    if (e->init.mit == NULL) {
        gk5i_rpc_krb_error_words(err);
    }
#else
    gk5i_rpc_krb_error_words(err);
#endif
    return -1;
}

/* The initiator's next step on the server's last token (none before the
 * first leg).  1: a token to send; 0: both sides are done; -1: failed. */
static GK5I_RPC_WUR int est_step(const struct gk5i_rpc_est *p, struct est *e,
                                 int *done, gk5_rpc_error *err)
{
    gk5_buffer in = {e->leg.res.token_len, e->leg.res.token};
    uint32_t major, minor = 0;

    major = gk5i_rpc_initiator_step(&minor, &e->init, e->sent ? &in : NULL,
                                    &e->tok);
    gk5i_init_res_free(&e->leg.res);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         e->init.native != NULL
                             ? "on this client, gk5_initiator_step"
                             : "on this client, gss_init_sec_context");
        if (e->init.native != NULL) {
            gk5i_rpc_krb_error_words(err);
        }
        return -1;
    }
    *done = major == GK5_S_COMPLETE;
    if (e->tok.length == 0) {
        if (*done && e->sent && e->server_major == GK5_S_COMPLETE) {
            return 0;
        }
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "GSS-API has no token to send but the RPCSEC_GSS "
                     "exchange for %s is not complete",
                     p->target);
        return -1;
    }
    if (e->sent && e->server_major == GK5_S_COMPLETE) {
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "the server completed the context for %s but "
                     "GSS-API has another token to send",
                     p->target);
        return -1;
    }
    return 1;
}

/* One leg: the token to the server in INIT (first) or CONTINUE_INIT. */
static GK5I_RPC_WUR int est_send(struct gk5i_rpc_est *p, struct est *e,
                                 gk5i_rpc_leg_fn run_leg, void *arg,
                                 gk5_rpc_error *err)
{
    /* RFC 2203 5.2.2: seq_num is ignored by the server; the handle is
     * absent for INIT and the server's for CONTINUE_INIT. */
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = e->sent ? GK5I_RPCSEC_GSS_CONTINUE_INIT : GK5I_RPCSEC_GSS_INIT,
        .seq = 0,
        .service = (uint32_t)atomic_load(&p->service),
        .handle = e->sent ? e->handle : NULL,
        .handle_len = e->sent ? e->handle_len : 0,
    };
    const char *what = e->sent ? "RPCSEC_GSS_CONTINUE_INIT" : "RPCSEC_GSS_INIT";

    e->leg.verf_flavor = GK5_RPC_FLAVOR_NONE;
    e->leg.verf_len = 0;
    if (run_leg(arg, &cred, &e->tok, what, &e->leg, err) != 0) {
        return -1;
    }
    gk5_buffer_release(&e->tok);
    e->sent = 1;
    return 0;
}

/* The server's answer to a leg: a gss_major that is complete or continue,
 * a handle, and on completion the verifier (RFC 2203 5.2.3.1: the MIC of
 * seq_window, checked once the context is ours) and the window. */
static GK5I_RPC_WUR int est_take_reply(const struct gk5i_rpc_est *p,
                                       struct est *e, gk5_rpc_error *err)
{
    const struct gk5i_init_res *res = &e->leg.res;

    if (GK5_ERROR(res->major) != 0) {
        server_gss_err(err, p->target, res->major, res->minor);
        return -1;
    }
    if (res->major != GK5_S_COMPLETE && res->major != GK5_S_CONTINUE_NEEDED) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's RPCSEC_GSS_INIT reply has gss_major "
                     "0x%08x, neither complete nor continue",
                     res->major);
        return -1;
    }
    if (res->handle_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's RPCSEC_GSS_INIT reply has an empty "
                     "context handle");
        return -1;
    }
    memcpy(e->handle, res->handle, res->handle_len);
    e->handle_len = res->handle_len;
    e->server_major = res->major;
    if (e->server_major != GK5_S_COMPLETE) {
        return 0;
    }
    if (e->leg.verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        e->leg.verf_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                     "the server's completing RPCSEC_GSS_INIT reply "
                     "has a verifier of flavour %u, not the "
                     "RPCSEC_GSS MIC of seq_window (RFC 2203 "
                     "5.2.3.1)",
                     e->leg.verf_flavor);
        return -1;
    }
    memcpy(e->verf, e->leg.verf, e->leg.verf_len);
    e->verf_len = e->leg.verf_len;
    e->window = res->window;
    return 0;
}

/* The initiator's context into gk5, adopted as an RPCSEC_GSS client
 * context, and the completing reply's verifier checked with it. */
static GK5I_RPC_WUR int est_finish(struct est *e, struct gk5i_cctx **out,
                                   gk5_rpc_error *err)
{
    struct gk5i_cctx *cc = NULL;
    gk5_ctx *gss = NULL;
    int32_t enctype = 0;
    uint32_t major, minor = 0;

    major = gk5i_rpc_initiator_finish(&minor, &e->init, &enctype, &gss);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(
            err, GK5_RPC_E_GSS, major, minor,
            "on this client, taking the established context into gk5");
        gk5_ctx_free(gss); /* NULL unless a failed finish left one */
        return -1;
    }
    /* RPCSEC_GSS keeps its own window (RFC 2203 5.3.3.1): replies to calls
     * made by many threads arrive in any order, so gk5's replay and
     * sequence checks would refuse good tokens (gk5i_cctx_adopt turns them
     * off).  Adopt takes gss, also when it fails. */
    if (gk5i_cctx_adopt(gss, e->handle, e->handle_len, e->window, &cc, err) !=
        0) {
        return -1;
    }
    if (gk5i_rpc_verify_u32(cc->gss, cc->window, e->verf, e->verf_len, err) !=
        0) {
        if (err != NULL) {
            (void)snprintf(err->text, sizeof(err->text),
                           "the verifier of the server's RPCSEC_GSS_INIT "
                           "reply is not the MIC of seq_window %u (RFC 2203 "
                           "5.2.3.1): %s",
                           cc->window,
                           gk5_display_status(err->major, err->minor));
        }
        gk5i_cctx_release(cc);
        return -1;
    }
    if (cc->window == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's seq_window is 0 (RFC 2203 5.2.3.1)");
        gk5i_cctx_release(cc);
        return -1;
    }
    *out = cc;
    return 0;
}

/* Make a new context: the INIT / CONTINUE_INIT legs through run_leg, until
 * the initiator and the server are both complete, then the initiator's
 * context into gk5. */
GK5I_RPC_WUR int gk5i_rpc_establish(struct gk5i_rpc_est *p, uint32_t gen,
                                    gk5i_rpc_leg_fn run_leg, void *arg,
                                    struct gk5i_cctx **out, gk5_rpc_error *err)
{
    struct est e = {.init = {.native = NULL},
                    .server_major = GK5_S_CONTINUE_NEEDED};
    int ret = -1, more, done = 0;

    *out = NULL;
    if (est_begin(p, &e, err) != 0) {
        goto cleanup;
    }
    for (int legs = 0;; legs++) {
        if (legs == MAX_INIT_LEGS) {
            gk5i_rpc_err(err, GK5_RPC_E_GSS,
                         "RPCSEC_GSS context creation for %s did not "
                         "finish in %d legs",
                         p->target, MAX_INIT_LEGS);
            goto cleanup;
        }
        more = est_step(p, &e, &done, err);
        if (more <= 0) {
            if (more < 0) {
                goto cleanup;
            }
            break;
        }
        if (est_send(p, &e, run_leg, arg, err) != 0 ||
            est_take_reply(p, &e, err) != 0) {
            goto cleanup;
        }
        if (done) {
            if (e.server_major != GK5_S_COMPLETE) {
                gk5i_rpc_err(err, GK5_RPC_E_GSS,
                             "GSS-API completed the context for %s but the "
                             "server wants more",
                             p->target);
                goto cleanup;
            }
            break;
        }
    }
    if (est_finish(&e, out, err) != 0) {
        goto cleanup;
    }
    (*out)->gen = gen;
    ret = 0;

cleanup:
    gk5_buffer_release(&e.tok);
    gk5i_init_res_free(&e.leg.res);
    gk5i_rpc_initiator_free(&e.init);
    return ret;
}
