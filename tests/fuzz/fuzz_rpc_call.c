/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the RPCSEC_GSS server (src/rpcsec/server*.c) on whole
 * RPC call messages -- the call header, the credential, the verifier (the
 * header MIC), the sequence window, integrity and privacy argument bodies,
 * DESTROY -- and gk5_rpc_server_reply on every call it dispatches.
 *
 * Every input gets a server of its own (gk5i_rpc_server_create_nocred:
 * every flavour allowed unless the input says otherwise, no MIT
 * credential, so INIT is refused) holding one established context, the
 * acceptor of fuzz_common's fixed keys (gk5i_rpc_server_add_context).  Its
 * peer, the initiator, is the client: it signs calls and opens replies.
 * The handle is random, so no input can carry a valid header MIC of its
 * own: inputs reach the DATA path through the modes below.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h: SUBKEY, and
 * GENERATE picks the mode; the server is always the acceptor), then
 *   raw mode:      u8 options (bit 0: sign -- a verifier as long as a MIC
 *                  becomes the initiator's MIC of the header, RFC 2203
 *                  5.3.1; bits 1-5: the flavours allowed, see raw_flavors;
 *                  bits 6-7: the window), u8 (bits 0-1: max_body), u16
 *                  where the handle is written (nowhere if it does not
 *                  fit), the call message.
 *   generate mode: u8 options (bits 0-1 service, bit 2 DESTROY, bit 3 the
 *                  arguments go unsealed, bits 4-5 how many calls go
 *                  first, bit 6 a max_body follows, bit 7 junk after the
 *                  arguments), u16 window, [u16 max_body], [u8 junk
 *                  length], u32 xid, prog, vers, proc, seq, an i16
 *                  seq offset for each earlier call, u8 accept_stat for
 *                  the program's answers, flips, u16 argument length, the
 *                  arguments, the results.  The initiator builds valid
 *                  calls; the flips mutate the last one.
 *
 * Properties (fuzz_fail on violation): what every verdict promises (words
 * in err for every DROP and refusal, a well-formed reply with the call's
 * xid); a valid call gets what RFC 2203 5.3.3.1 says, against a model of
 * the window: DISPATCH with exactly the sealed arguments, DROP for a
 * replay or a number below the window, CTXPROBLEM at MAXSEQ, and a DESTROY
 * its reply; a mutated call never dispatches other arguments than were
 * sealed, and one that was refused without an authenticated reply never
 * moved the window (the original then still dispatches); the program's
 * reply opens at the initiator to the same results, with the MIC of seq as
 * its verifier.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "rpcsec/rpcsec_int.h"

#define MAX_ARGS 4096
#define MAX_RESULTS 4096
#define MAX_RAW 16384
/* Calls before the mutated one, at most. */
#define MAX_PRE 3
/* gk5_rpc_server_options' defaults. */
#define DEFAULT_WINDOW 128u
#define DEFAULT_MAX_BODY ((size_t)64 * 1024 * 1024)

#define PRINCIPAL "fuzz@EXAMPLE.ORG"

/* RFC 5531 9. */
#define MSG_CALL 0u
#define MSG_REPLY 1u
#define MSG_ACCEPTED 0u
#define MSG_DENIED 1u
#define REJECT_MISMATCH 0u
#define REJECT_AUTH_ERROR 1u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

/* One input's server, the client's context, the window as RFC 2203
 * 5.3.3.1 has it, and what the program answers with. */
struct run {
    const struct fuzz_cfg *cfg;
    gk5_rpc_server *srv;
    gk5_ctx *tx; /* the initiator */
    uint8_t handle[GK5I_RPC_HANDLE_LEN];
    uint32_t window;
    size_t max_body;

    bool started;
    uint32_t top;
    uint32_t seen[MAX_PRE + 4];
    unsigned nseen;
    bool destroyed;

    uint32_t accept_stat;
    const uint8_t *results;
    size_t results_len;
};

/* RFC 2203 5.3.3.1: is seq new? */
static bool window_new(const struct run *r, uint32_t seq)
{
    if (!r->started || seq > r->top) {
        return true;
    }
    if (r->top - seq >= r->window) {
        return false;
    }
    for (unsigned i = 0; i < r->nseen; i++) {
        if (r->seen[i] == seq) {
            return false;
        }
    }
    return true;
}

static void window_mark(struct run *r, uint32_t seq)
{
    if (r->nseen == sizeof(r->seen) / sizeof(r->seen[0])) {
        fuzz_fail("harness: window model full", 0, 0);
    }
    r->seen[r->nseen++] = seq;
    if (!r->started || seq > r->top) {
        r->top = seq;
        r->started = true;
    }
}

/* ---- Replies (RFC 5531 9) ---- */

struct parsed_reply {
    uint32_t xid;
    bool accepted;
    uint32_t reject_stat;
    uint32_t auth_stat; /* AUTH_ERROR */
    uint32_t verf_flavor;
    const uint8_t *verf;
    size_t verf_len;
    uint32_t accept_stat;
    const uint8_t *body;
    size_t body_len;
};

/* false unless buf is a whole, well-formed reply message. */
static bool parse_reply(const gk5_buffer *buf, struct parsed_reply *p)
{
    const uint8_t *m = buf->value;
    size_t len = buf->length;
    size_t at;

    memset(p, 0, sizeof(*p));
    if (m == NULL || len < 20 || gk5i_get32(m + 4) != MSG_REPLY) {
        return false;
    }
    p->xid = gk5i_get32(m);
    switch (gk5i_get32(m + 8)) {
    case MSG_DENIED:
        p->reject_stat = gk5i_get32(m + 12);
        if (p->reject_stat == REJECT_MISMATCH) {
            return len == 24 && gk5i_get32(m + 16) == 2 &&
                   gk5i_get32(m + 20) == 2;
        }
        p->auth_stat = gk5i_get32(m + 16);
        return p->reject_stat == REJECT_AUTH_ERROR && len == 20;
    case MSG_ACCEPTED:
        break;
    default:
        return false;
    }
    p->accepted = true;
    p->verf_flavor = gk5i_get32(m + 12);
    p->verf_len = gk5i_get32(m + 16);
    if (p->verf_len > GK5I_RPC_MAX_AUTH_BYTES ||
        len - 20 < p->verf_len + gk5i_xdr_pad(p->verf_len) + 4) {
        return false;
    }
    p->verf = m + 20;
    at = 20 + p->verf_len;
    for (size_t i = 0; i < gk5i_xdr_pad(p->verf_len); i++) {
        if (m[at++] != 0) {
            return false;
        }
    }
    p->accept_stat = gk5i_get32(m + at);
    p->body = m + at + 4;
    p->body_len = len - at - 4;
    switch (p->accept_stat) {
    case GK5_RPC_SUCCESS:
        return true;
    case GK5_RPC_PROG_MISMATCH:
        return p->body_len == 8;
    case GK5_RPC_PROG_UNAVAIL:
    case GK5_RPC_PROC_UNAVAIL:
    case GK5_RPC_GARBAGE_ARGS:
    case GK5_RPC_SYSTEM_ERR:
        return p->body_len == 0;
    default:
        return false;
    }
}

/* Did the server prove, with the MIC of seq, that it took this call? */
static bool reply_authentic(const struct run *r, const struct parsed_reply *p,
                            uint32_t seq)
{
    gk5_rpc_error err;

    if (!p->accepted || p->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        return false;
    }
    if (gk5i_rpc_verify_u32(r->tx, seq, p->verf, p->verf_len, &err) != 0) {
        fuzz_fail("a reply's RPCSEC_GSS verifier is not the MIC of the "
                  "call's seq",
                  err.major, err.minor);
    }
    return true;
}

/* ---- Processing ---- */

struct outcome {
    gk5_rpc_verdict v;
    gk5_rpc_call *call;
    gk5_buffer reply;
    struct parsed_reply pr;
    gk5_rpc_error err;
};

/* gk5_rpc_server_process, and what holds for every verdict. */
static void process(struct run *r, uint8_t *msg, size_t len, struct outcome *o)
{
    uint32_t xid = len >= 4 ? gk5i_get32(msg) : 0;
    const uint8_t *p;
    size_t n = 0;

    memset(o, 0, sizeof(*o));
    o->v =
        gk5_rpc_server_process(r->srv, msg, len, &o->call, &o->reply, &o->err);
    switch (o->v) {
    case GK5_RPC_CALL_DISPATCH:
        if (o->call == NULL || o->reply.value != NULL || o->reply.length != 0 ||
            o->err.code != GK5_RPC_OK) {
            fuzz_fail("DISPATCH without a call, or with a reply or error", 0,
                      0);
        }
        p = gk5_rpc_call_args(o->call, &n);
        if (n != 0 && (p < msg || n > len || p - msg > (ptrdiff_t)(len - n))) {
            fuzz_fail("dispatched arguments outside the message", 0, 0);
        }
        p = gk5_rpc_call_cred(o->call, &n);
        if (n != 0 && (p < msg || n > len || p - msg > (ptrdiff_t)(len - n))) {
            fuzz_fail("dispatched credential outside the message", 0, 0);
        }
        if (gk5_rpc_call_xid(o->call) != xid) {
            fuzz_fail("dispatched call with another xid", 0, 0);
        }
        break;
    case GK5_RPC_CALL_REPLY:
        if (o->call != NULL) {
            fuzz_fail("REPLY with a call", 0, 0);
        }
        if (!parse_reply(&o->reply, &o->pr) || o->pr.xid != xid) {
            fuzz_fail("REPLY is not a well-formed reply to the call", 0, 0);
        }
        if ((!o->pr.accepted || o->pr.accept_stat != GK5_RPC_SUCCESS) &&
            (o->err.text[0] == '\0' || o->err.code == GK5_RPC_OK)) {
            fuzz_fail("a refusal without words in err", 0, 0);
        }
        if (!o->pr.accepted && o->pr.reject_stat == REJECT_AUTH_ERROR &&
            o->err.auth_stat != o->pr.auth_stat) {
            fuzz_fail("err.auth_stat is not the reply's", 0, 0);
        }
        break;
    case GK5_RPC_CALL_DROP:
        if (o->call != NULL || o->reply.value != NULL || o->reply.length != 0) {
            fuzz_fail("DROP with a call or a reply", 0, 0);
        }
        if (o->err.text[0] == '\0' || o->err.code == GK5_RPC_OK) {
            fuzz_fail("a DROP without words in err", 0, 0);
        }
        break;
    default:
        fuzz_fail("unknown verdict", 0, 0);
    }
}

/* The program's answer to a dispatched call (which it frees): the reply's
 * header, its verifier (RFC 2203 5.3.3.2: the MIC of seq) and, for SUCCESS,
 * the results as the initiator opens them. */
static void answer(struct run *r, gk5_rpc_call *call)
{
    uint32_t xid = gk5_rpc_call_xid(call);
    uint32_t vers = gk5_rpc_call_vers(call);
    bool gss = gk5_rpc_call_flavor(call) == GK5_RPC_FLAVOR_RPCSEC_GSS;
    gk5_rpc_service svc = gk5_rpc_call_service(call);
    gk5_buffer reply = {0, NULL};
    struct parsed_reply p;
    gk5i_rpc_cred cred;
    gk5_rpc_error err;
    size_t n = 0;
    const uint8_t *c = gk5_rpc_call_cred(call, &n);

    memset(&cred, 0, sizeof(cred));
    if (gss) {
        if (gk5i_rpc_cred_decode(c, n, &cred, &err) != 0) {
            fuzz_fail("dispatched a credential that does not decode", 0, 0);
        }
        if (strcmp(gk5_rpc_call_principal(call), PRINCIPAL) != 0 ||
            gk5_rpc_call_enctype(call) != r->cfg->enctype ||
            svc != (gk5_rpc_service)cred.service ||
            cred.proc != GK5I_RPCSEC_GSS_DATA) {
            fuzz_fail("dispatched call: principal, enctype, service or "
                      "procedure wrong",
                      0, 0);
        }
    } else if (gk5_rpc_call_principal(call) != NULL || svc != 0) {
        fuzz_fail("an unauthenticated call with a principal or service", 0, 0);
    }
    int rc = gk5_rpc_server_reply(r->srv, call, r->accept_stat, r->results,
                                  r->results_len, &reply, &err);
    if (r->accept_stat > GK5_RPC_SYSTEM_ERR) {
        if (rc == 0 || reply.value != NULL || err.text[0] == '\0') {
            fuzz_fail("gk5_rpc_server_reply took a bad accept_stat", 0, 0);
        }
        return;
    }
    if (rc != 0) {
        fuzz_fail("gk5_rpc_server_reply failed", err.major, err.minor);
    }
    if (!parse_reply(&reply, &p) || p.xid != xid || !p.accepted ||
        p.accept_stat != r->accept_stat) {
        fuzz_fail("the program's reply is not well formed", 0, 0);
    }
    if (gss ? !reply_authentic(r, &p, cred.seq)
            : p.verf_flavor != GK5_RPC_FLAVOR_NONE || p.verf_len != 0) {
        fuzz_fail("the program's reply has the wrong verifier", 0, 0);
    }
    if (p.accept_stat == GK5_RPC_SUCCESS && gss && svc != GK5_RPC_SVC_NONE) {
        uint8_t *body = fuzz_dup(p.body, p.body_len);
        uint8_t *data = NULL;
        size_t data_len = 0;
        size_t used = 0;

        if (gk5i_rpc_body_open(r->tx, svc, cred.seq, body, p.body_len,
                               r->results_len + 4, &data, &data_len, &used,
                               &err) != 0) {
            fuzz_fail("the initiator cannot open the reply body", err.major,
                      err.minor);
        }
        if (used != p.body_len || data_len != r->results_len ||
            (data_len != 0 && memcmp(data, r->results, data_len) != 0)) {
            fuzz_fail("the reply body opens to other results", 0, 0);
        }
        free(body);
    } else if (p.accept_stat == GK5_RPC_SUCCESS) {
        if (p.body_len != r->results_len ||
            (p.body_len != 0 && memcmp(p.body, r->results, p.body_len) != 0)) {
            fuzz_fail("the reply carries other results", 0, 0);
        }
    } else if (p.accept_stat == GK5_RPC_PROG_MISMATCH) {
        bool given = r->results_len == 8;

        if (given ? memcmp(p.body, r->results, 8) != 0
                  : gk5i_get32(p.body) != vers ||
                        gk5i_get32(p.body + 4) != vers) {
            fuzz_fail("PROG_MISMATCH with the wrong versions", 0, 0);
        }
    }
    gk5_buffer_release(&reply);
}

/* ---- Generate mode: the initiator's calls ---- */

struct gen {
    uint32_t xid;
    uint32_t prog;
    uint32_t vers;
    uint32_t proc;
    uint32_t gss_proc; /* DATA or DESTROY */
    gk5_rpc_service svc;
    bool unsealed; /* the arguments as they are, not sealed for svc */
    size_t junk;   /* bytes after the arguments' encoding */
};

/* A call as the initiator makes it (RFC 2203 5.3.1): header, credential,
 * the MIC of both as the verifier, the arguments sealed with seq for the
 * service.  Exact-size heap; *args_off is where the arguments start. */
static uint8_t *build_call(struct run *r, const struct gen *g, uint32_t seq,
                           const uint8_t *args, size_t n, size_t *len,
                           size_t *args_off)
{
    uint8_t hdr[32 + GK5I_RPC_MAX_AUTH_BYTES + 8 + GK5I_RPC_MIC_MAX + 3];
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = g->gss_proc,
        .seq = seq,
        .service = g->svc,
        .handle = r->handle,
        .handle_len = GK5I_RPC_HANDLE_LEN,
    };
    size_t clen =
        gk5i_rpc_cred_encode(&cred, hdr + 32, GK5I_RPC_MAX_AUTH_BYTES);
    size_t mic_len = 0;
    gk5_rpc_error err;

    gk5i_put32(hdr, g->xid);
    gk5i_put32(hdr + 4, MSG_CALL);
    gk5i_put32(hdr + 8, 2);
    gk5i_put32(hdr + 12, g->prog);
    gk5i_put32(hdr + 16, g->vers);
    gk5i_put32(hdr + 20, g->proc);
    gk5i_put32(hdr + 24, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_put32(hdr + 28, (uint32_t)clen);
    size_t cred_end = 32 + clen;
    if (clen == 0 || gk5i_rpc_mic(r->tx, hdr, cred_end, hdr + cred_end + 8,
                                  GK5I_RPC_MIC_MAX, &mic_len, &err) != 0) {
        fuzz_fail("the initiator cannot make a call's verifier", err.major,
                  err.minor);
    }
    gk5i_put32(hdr + cred_end, GK5_RPC_FLAVOR_RPCSEC_GSS);
    gk5i_put32(hdr + cred_end + 4, (uint32_t)mic_len);
    size_t hlen = cred_end + 8 + mic_len;
    memset(hdr + hlen, 0, gk5i_xdr_pad(mic_len));
    hlen += gk5i_xdr_pad(mic_len);

    uint8_t *base = NULL;
    const uint8_t *enc = args;
    size_t enc_len = n;
    if (!g->unsealed) {
        size_t head = 0, tail = 0, off = 0;

        if (gk5i_rpc_body_room(r->tx, g->svc, 4 + n, &head, &tail, &err) != 0) {
            fuzz_fail("body_room failed", err.major, err.minor);
        }
        size_t cap = head + 4 + n + tail;
        base = fuzz_dup(NULL, cap);
        gk5i_put32(base + head, seq);
        if (n != 0) {
            memcpy(base + head + 4, args, n);
        }
        if (gk5i_rpc_body_seal(r->tx, g->svc, base, head, 4 + n, cap, &off,
                               &enc_len, &err) != 0) {
            fuzz_fail("body_seal failed", err.major, err.minor);
        }
        enc = base + off;
    }
    uint8_t *msg = fuzz_dup(NULL, hlen + enc_len + g->junk);
    memcpy(msg, hdr, hlen);
    if (enc_len != 0) {
        memcpy(msg + hlen, enc, enc_len);
    }
    memset(msg + hlen + enc_len, 0xa5, g->junk);
    free(base);
    *len = hlen + enc_len + g->junk;
    *args_off = hlen;
    return msg;
}

/* The header fields a dispatched call reports are the ones the initiator
 * signed. */
static void check_header(const struct gen *g, const gk5_rpc_call *call)
{
    if (gk5_rpc_call_flavor(call) != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        gk5_rpc_call_xid(call) != g->xid ||
        gk5_rpc_call_prog(call) != g->prog ||
        gk5_rpc_call_vers(call) != g->vers ||
        gk5_rpc_call_proc(call) != g->proc ||
        gk5_rpc_call_service(call) != g->svc) {
        fuzz_fail("a dispatched call's header is not the one signed", 0, 0);
    }
}

/* Must the server refuse n bytes of arguments as larger than max_body?
 * Unknown (false) for unsealed integrity and privacy bodies. */
static bool too_big(const struct run *r, const struct gen *g, size_t n)
{
    if (g->svc == GK5_RPC_SVC_NONE) {
        return n + g->junk > r->max_body;
    }
    return !g->unsealed && n > r->max_body;
}

/* Must it answer GARBAGE_ARGS (RFC 2203 5.3.3.4.2, 5.3.3.4.3)?  Too large,
 * or bytes after a sealed body. */
static bool must_garbage(const struct run *r, const struct gen *g, size_t n)
{
    return too_big(r, g, n) ||
           (g->junk != 0 && !g->unsealed && g->svc != GK5_RPC_SVC_NONE);
}

static void fail_outcome(const char *what, const struct outcome *o)
{
    fprintf(stderr, "gk5 fuzz: verdict %d, err code %d: %s\n", (int)o->v,
            o->err.code, o->err.text);
    fuzz_fail(what, o->err.major, o->err.minor);
}

/* A call the initiator made, as it made it (tmpl, len): processed on a
 * copy, it must get what the window says. */
static void call_valid(struct run *r, const struct gen *g, uint32_t seq,
                       const uint8_t *tmpl, size_t len, size_t args_off,
                       const uint8_t *args, size_t n)
{
    uint8_t *msg = fuzz_dup(tmpl, len);
    struct outcome o;
    const uint8_t *a;
    size_t an = 0;

    process(r, msg, len, &o);
    if (r->destroyed || seq >= GK5_RPC_MAXSEQ) {
        /* RFC 2203 5.3.3.3: no context; RFC 2203 5.3.3.1: MAXSEQ. */
        uint32_t want = r->destroyed ? GK5I_RPCSEC_GSS_CREDPROBLEM
                                     : GK5I_RPCSEC_GSS_CTXPROBLEM;
        if (o.v != GK5_RPC_CALL_REPLY || o.pr.accepted ||
            o.pr.reject_stat != REJECT_AUTH_ERROR || o.pr.auth_stat != want) {
            fail_outcome(r->destroyed ? "a call after DESTROY was not refused "
                                        "with CREDPROBLEM"
                                      : "a call at MAXSEQ was not refused with "
                                        "CTXPROBLEM",
                         &o);
        }
    } else if (!window_new(r, seq)) {
        if (o.v != GK5_RPC_CALL_DROP) {
            fail_outcome("a replayed or below-window call was not dropped", &o);
        }
    } else if (g->gss_proc == GK5I_RPCSEC_GSS_DESTROY) {
        window_mark(r, seq);
        if (o.v != GK5_RPC_CALL_REPLY || !reply_authentic(r, &o.pr, seq) ||
            o.pr.accept_stat != GK5_RPC_SUCCESS || o.pr.body_len != 0 ||
            gk5_rpc_server_contexts(r->srv) != 0) {
            fail_outcome(
                "a valid DESTROY did not get its reply, or the context "
                "stayed",
                &o);
        }
        r->destroyed = true;
    } else {
        window_mark(r, seq);
        bool garbage = o.v == GK5_RPC_CALL_REPLY &&
                       reply_authentic(r, &o.pr, seq) &&
                       o.pr.accept_stat == GK5_RPC_GARBAGE_ARGS;
        if (must_garbage(r, g, n)) {
            if (!garbage) {
                fail_outcome("arguments above max_body or followed by junk "
                             "were not GARBAGE_ARGS",
                             &o);
            }
        } else if (g->unsealed && g->svc != GK5_RPC_SVC_NONE) {
            if (!garbage && o.v != GK5_RPC_CALL_DISPATCH) {
                fail_outcome("an authentic call with a bad body was neither "
                             "dispatched nor GARBAGE_ARGS",
                             &o);
            }
        } else if (o.v != GK5_RPC_CALL_DISPATCH) {
            fail_outcome("a valid call was not dispatched", &o);
        }
    }
    if (o.v == GK5_RPC_CALL_DISPATCH) {
        check_header(g, o.call);
        a = gk5_rpc_call_args(o.call, &an);
        if (g->svc == GK5_RPC_SVC_NONE) {
            /* krb5: the arguments are the rest of the message. */
            if (a != msg + args_off || an != n + g->junk) {
                fail_outcome("a valid krb5 call was dispatched with other "
                             "arguments than it carries",
                             &o);
            }
        } else if (!g->unsealed &&
                   (an != n || (n != 0 && memcmp(a, args, n) != 0))) {
            fail_outcome(
                "a valid call was dispatched with other arguments than "
                "were sealed",
                &o);
        }
        answer(r, o.call);
    }
    gk5_buffer_release(&o.reply);
    free(msg);
}

/* The same call mutated (msg): it may be refused in any way, but never
 * dispatched with other arguments than were sealed, and the window moves
 * only if the server proves it took the call. */
static void call_mutated(struct run *r, const struct gen *g, uint32_t seq,
                         uint8_t *msg, size_t len, size_t args_off,
                         const uint8_t *args, size_t n)
{
    struct outcome o;
    bool authentic = false;
    const uint8_t *a;
    size_t an = 0;

    process(r, msg, len, &o);
    if (o.v == GK5_RPC_CALL_DISPATCH &&
        gk5_rpc_call_flavor(o.call) == GK5_RPC_FLAVOR_RPCSEC_GSS) {
        authentic = true;
        check_header(g, o.call);
        if (g->gss_proc == GK5I_RPCSEC_GSS_DESTROY) {
            fail_outcome("a mutated DESTROY was dispatched", &o);
        }
        a = gk5_rpc_call_args(o.call, &an);
        if (!g->unsealed && g->svc != GK5_RPC_SVC_NONE) {
            if (an != n || (n != 0 && memcmp(a, args, n) != 0)) {
                fail_outcome("a mutated call was dispatched with other "
                             "arguments than were sealed",
                             &o);
            }
        } else if (g->svc == GK5_RPC_SVC_NONE &&
                   (a != msg + args_off || an != len - args_off)) {
            /* krb5 protects the header only: the arguments are whatever
             * follows it, but exactly that. */
            fail_outcome("a mutated krb5 call: the arguments are not the rest "
                         "of the message",
                         &o);
        }
    } else if (o.v == GK5_RPC_CALL_REPLY && reply_authentic(r, &o.pr, seq)) {
        authentic = true;
        if (g->gss_proc == GK5I_RPCSEC_GSS_DESTROY
                ? o.pr.accept_stat != GK5_RPC_SUCCESS
                : o.pr.accept_stat != GK5_RPC_GARBAGE_ARGS) {
            fail_outcome("an authentic mutated call got another answer than "
                         "its DESTROY reply or GARBAGE_ARGS",
                         &o);
        }
    }
    if (authentic) {
        if (r->destroyed || seq >= GK5_RPC_MAXSEQ || !window_new(r, seq)) {
            fail_outcome("a mutated call was taken where the original would "
                         "not be",
                         &o);
        }
        window_mark(r, seq);
        if (g->gss_proc == GK5I_RPCSEC_GSS_DESTROY) {
            if (gk5_rpc_server_contexts(r->srv) != 0) {
                fail_outcome("DESTROY answered but the context stayed", &o);
            }
            r->destroyed = true;
        }
    }
    if (o.v == GK5_RPC_CALL_DISPATCH) {
        answer(r, o.call);
    }
    gk5_buffer_release(&o.reply);
}

static gk5_rpc_service take_service(unsigned bits)
{
    switch (bits & 3u) {
    case 0:
        return GK5_RPC_SVC_NONE;
    case 1:
        return GK5_RPC_SVC_INTEGRITY;
    default:
        return GK5_RPC_SVC_PRIVACY;
    }
}

static void run_generate(struct run *r, struct fuzz_in *in, uint8_t opt)
{
    struct gen g = {
        .gss_proc =
            (opt & 4u) != 0 ? GK5I_RPCSEC_GSS_DESTROY : GK5I_RPCSEC_GSS_DATA,
        .svc = take_service(opt),
        .unsealed = (opt & 8u) != 0,
    };
    struct gen pre = g;
    unsigned npre = (opt >> 4) & 3u;
    int16_t offs[MAX_PRE];
    struct fuzz_flips flips;
    const uint8_t *args = NULL;

    if ((opt & 0x80u) != 0) {
        g.junk = 1 + fuzz_u8(in) % 8u;
    }
    g.xid = fuzz_u32(in);
    g.prog = fuzz_u32(in);
    g.vers = fuzz_u32(in);
    g.proc = fuzz_u32(in);
    uint32_t seq = fuzz_u32(in);
    for (unsigned i = 0; i < npre; i++) {
        offs[i] = (int16_t)fuzz_u16(in);
    }
    r->accept_stat = fuzz_u8(in) % (GK5_RPC_SYSTEM_ERR + 2);
    fuzz_take_flips(in, &flips);
    size_t n = fuzz_u16(in) % (MAX_ARGS + 1);
    n = fuzz_bytes(in, &args, n);
    r->results_len = fuzz_bytes(in, &r->results, MAX_RESULTS);

    /* Earlier calls (sealed, no arguments) fill the window. */
    pre.gss_proc = GK5I_RPCSEC_GSS_DATA;
    pre.unsealed = false;
    pre.junk = 0;
    for (unsigned i = 0; i < npre; i++) {
        uint32_t s = seq + (uint32_t)(int32_t)offs[i];
        size_t len = 0, off = 0;
        uint8_t *m;

        pre.xid = g.xid - 1 - i;
        m = build_call(r, &pre, s, NULL, 0, &len, &off);
        call_valid(r, &pre, s, m, len, off, NULL, 0);
        free(m);
    }

    size_t len = 0, off = 0;
    uint8_t *orig = build_call(r, &g, seq, args, n, &len, &off);
    uint8_t *mut = fuzz_dup(orig, len);
    if (fuzz_apply_flips(&flips, mut, len)) {
        call_mutated(r, &g, seq, mut, len, off, args, n);
    }
    /* The original now, and once more: a replay. */
    call_valid(r, &g, seq, orig, len, off, args, n);
    call_valid(r, &g, seq, orig, len, off, args, n);
    if (gk5_rpc_server_contexts(r->srv) != (r->destroyed ? 0u : 1u)) {
        fuzz_fail("the context table holds the wrong number of contexts", 0, 0);
    }
    free(mut);
    free(orig);
}

/* ---- Raw mode ---- */

/* Options bits 1-5: the flavours allowed (none set: all). */
static unsigned raw_flavors(uint8_t opt)
{
    unsigned f = 0;

    if ((opt & 0x02u) != 0) {
        f |= GK5_RPC_ALLOW_NONE;
    }
    if ((opt & 0x04u) != 0) {
        f |= GK5_RPC_ALLOW_SYS;
    }
    if ((opt & 0x08u) != 0) {
        f |= GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE);
    }
    if ((opt & 0x10u) != 0) {
        f |= GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY);
    }
    if ((opt & 0x20u) != 0) {
        f |= GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY);
    }
    return f;
}

/* RFC 5531 9: replace a verifier as long as the initiator's MIC of the
 * header (xid through the credential) with that MIC. */
static void raw_sign(struct run *r, uint8_t *m, size_t len)
{
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    gk5_rpc_error err;

    if (len < 32) {
        return;
    }
    size_t clen = gk5i_get32(m + 28);
    if (clen > GK5I_RPC_MAX_AUTH_BYTES ||
        len - 32 < clen + gk5i_xdr_pad(clen) + 8) {
        return;
    }
    size_t cred_end = 32 + clen + gk5i_xdr_pad(clen);
    size_t vlen = gk5i_get32(m + cred_end + 4);
    if (vlen > len - cred_end - 8 ||
        gk5i_rpc_mic(r->tx, m, cred_end, mic, sizeof(mic), &mic_len, &err) !=
            0) {
        return;
    }
    if (vlen == mic_len) {
        memcpy(m + cred_end + 8, mic, mic_len);
    }
}

static void run_raw(struct run *r, struct fuzz_in *in, uint8_t opt)
{
    static const uint8_t results[12] = {0, 0, 0,   1,   0,   0,
                                        0, 4, 'g', 'k', '5', 0};
    uint16_t pos = fuzz_u16(in);
    const uint8_t *p = NULL;
    size_t len = fuzz_bytes(in, &p, MAX_RAW);
    uint8_t *msg = fuzz_dup(p, len);
    struct outcome o;

    if (len >= GK5I_RPC_HANDLE_LEN && pos <= len - GK5I_RPC_HANDLE_LEN) {
        memcpy(msg + pos, r->handle, GK5I_RPC_HANDLE_LEN);
    }
    if ((opt & 1u) != 0) {
        raw_sign(r, msg, len);
    }
    uint8_t *again = fuzz_dup(msg, len);
    r->results = results;
    r->results_len = len % (sizeof(results) + 1);
    r->accept_stat = (len >= 4 ? msg[3] : 0) % (GK5_RPC_SYSTEM_ERR + 2);
    process(r, msg, len, &o);
    bool taken = o.v == GK5_RPC_CALL_DISPATCH &&
                 gk5_rpc_call_flavor(o.call) == GK5_RPC_FLAVOR_RPCSEC_GSS;
    if (o.v == GK5_RPC_CALL_DISPATCH) {
        answer(r, o.call);
    }
    gk5_buffer_release(&o.reply);
    if (taken) {
        /* RFC 2203 5.3.3.1: the same message again is a replay. */
        process(r, again, len, &o);
        if (o.v != GK5_RPC_CALL_DROP) {
            fail_outcome("a replayed call was not dropped", &o);
        }
    }
    free(again);
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;
    gk5_rpc_server_options opts;
    struct run r;
    gk5_rpc_error err;
    uint32_t minor = 0;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1) || size < 1) {
        return 0;
    }
    /* The server is the acceptor; the client (peer) the initiator. */
    cfg.initiator = false;
    struct fuzz_in in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    bool generate = (b1 & FUZZ_B1_GENERATE) != 0;

    memset(&opts, 0, sizeof(opts));
    memset(&r, 0, sizeof(r));
    r.cfg = &cfg;
    if (generate) {
        opts.window = fuzz_u16(&in) % 1025u;
        if ((opt & 0x40u) != 0) {
            opts.max_body = fuzz_u16(&in);
        }
    } else {
        static const uint32_t windows[4] = {0, 1, 2, 1024};

        static const size_t max_bodies[4] = {0, 16, 64, 1024};

        opts.window = windows[opt >> 6];
        opts.flavors = raw_flavors(opt);
        opts.max_body = max_bodies[fuzz_u8(&in) & 3u];
    }
    r.window = opts.window != 0 ? opts.window : DEFAULT_WINDOW;
    r.max_body = opts.max_body != 0 ? opts.max_body : DEFAULT_MAX_BODY;
    if (gk5i_rpc_server_create_nocred(&opts, &r.srv, &err) != 0) {
        fuzz_fail("gk5i_rpc_server_create_nocred failed", err.major, err.minor);
    }
    if (gk5i_rpc_server_add_context(r.srv, fuzz_ctx_fresh(&cfg, false),
                                    PRINCIPAL, r.handle, &err) != 0) {
        fuzz_fail("gk5i_rpc_server_add_context failed", err.major, err.minor);
    }
    r.tx = fuzz_ctx_fresh(&cfg, true);
    /* As an RPCSEC_GSS client: replies come in any order. */
    if (gk5_ctx_set_flags(&minor, r.tx, 0) != GK5_S_COMPLETE) {
        fuzz_fail("gk5_ctx_set_flags failed", 0, minor);
    }
    if (generate) {
        run_generate(&r, &in, opt);
    } else {
        run_raw(&r, &in, opt);
    }
    gk5_rpc_server_free(r.srv);
    fuzz_ctx_done(&cfg, true, r.tx);
    return 0;
}
