/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS message-level server (src/rpcsec/server*.c) on fixed-key
 * contexts, for every built enctype: calls are built here by hand with the
 * initiator of a tok_pair (RFC 5531 9 header, RFC 2203 5 credential, the
 * header MIC of RFC 2203 5.3.1, bodies of RFC 2203 5.3.2), the acceptor is
 * put in the server's table through gk5i_rpc_server_add_context, and every
 * verdict is checked with the reply's bytes and err:
 *
 *   a valid call dispatches exactly its arguments, and its reply carries
 *   the MIC of seq and results the initiator opens (RFC 2203 5.3.3.2);
 *   replays and numbers below the window are dropped, the window unmoved
 *   (5.3.3.1); a forged header MIC is CREDPROBLEM and marks nothing
 *   (5.3.3.4.2); MAXSEQ is CTXPROBLEM; a body of the other service, a
 *   tampered body, a body with another seq_num are GARBAGE_ARGS with a
 *   verifier, nothing dispatched, no plaintext left in the message; every
 *   truncation, bad credentials, verifiers and bodies are refused with
 *   words; DESTROY (5.4); a message that is not a call, RPC version 3.
 */
#include "tokutil.h"

#include "rpcsec/rpcsec_int.h"
#include "rpcsec/server_int.h"

/* RFC 5531 9. */
#define MSG_CALL 0u
#define MSG_REPLY 1u
#define MSG_ACCEPTED 0u
#define MSG_DENIED 1u
#define REJECT_MISMATCH 0u
#define REJECT_AUTH_ERROR 1u

#define PROG 0x20000099u
#define VERS 1u
#define PROC 1u
#define PRINCIPAL "client@EXAMPLE.ORG"
#define WINDOW 8u
#define MAX_ETYPES 16

static const gk5_rpc_service services[] = {
    GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};

/* What failed where: printed with every failure. */
static char where[160];

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fail_msg("%s:%d [%s]: %s", __FILE__, __LINE__, where, #cond);      \
        }                                                                      \
    } while (0)

#define CHECK_EQ(got, want)                                                    \
    do {                                                                       \
        unsigned long long g_ = (unsigned long long)(got);                     \
        unsigned long long w_ = (unsigned long long)(want);                    \
        if (g_ != w_) {                                                        \
            fail_msg("%s:%d [%s]: %s is %llu, want %llu", __FILE__, __LINE__,  \
                     where, #got, g_, w_);                                     \
        }                                                                      \
    } while (0)

/* One server with one context (more with fx_add), and its initiator. */
struct fx {
    int32_t enctype;
    gk5_rpc_server *srv;
    gk5_ctx *init;
    uint8_t handle[GK5I_RPC_HANDLE_LEN];
    uint32_t xid;
};

/* tok_pair, or (tweak != 0) a pair on another key of the same enctype:
 * tok_pair's key is fixed per enctype. */
static void pair(int32_t enctype, uint8_t tweak, gk5_ctx **init, gk5_ctx **acc)
{
    uint8_t key[64];
    size_t key_len;
    uint32_t cfx, sub;

    if (tweak == 0) {
        tok_pair(enctype, true, 0, init, acc);
        return;
    }
    key_len = tok_key(enctype, key);
    /* Shifted up one bit: the low bit of every DES3 key byte is parity,
     * which DES ignores, so tweaking it alone would give the same key. */
    key[0] ^= (uint8_t)(tweak << 1);
    key[1] ^= tweak & 0x80u ? 0x02u : 0x00u;
    cfx = tok_is_rfc1964(enctype) ? 0 : TOK_GSSD_CFX;
    sub = cfx != 0 ? TOK_GSSD_SUBKEY : 0;
    *init = tok_ctx(enctype, TOK_GSSD_INITIATOR | cfx | sub, 0, key, key_len);
    *acc = tok_ctx(enctype, cfx | sub, 0, key, key_len);
}

static void fx_add(struct fx *fx, uint8_t tweak, gk5_ctx **init,
                   uint8_t *handle)
{
    gk5_ctx *acc = NULL;
    gk5_rpc_error err;
    uint32_t minor = 0;

    pair(fx->enctype, tweak, init, &acc);
    /* Replies are checked out of order and twice: no replay detection. */
    tok_assert_major(gk5_ctx_set_flags(&minor, *init, 0), GK5_S_COMPLETE,
                     minor);
    if (gk5i_rpc_server_add_context(fx->srv, acc, PRINCIPAL, handle, &err) !=
        0) {
        fail_msg("gk5i_rpc_server_add_context: %s", err.text);
    }
}

static void fx_init(struct fx *fx, int32_t enctype, uint32_t window,
                    size_t max_body)
{
    gk5_rpc_server_options opts = {.window = window, .max_body = max_body};
    gk5_rpc_error err;

    memset(fx, 0, sizeof(*fx));
    fx->enctype = enctype;
    fx->xid = 0x1000u + (uint32_t)enctype * 0x10000u;
    if (gk5i_rpc_server_create_nocred(&opts, &fx->srv, &err) != 0) {
        fail_msg("gk5i_rpc_server_create_nocred: %s", err.text);
    }
    fx_add(fx, 0, &fx->init, fx->handle);
    CHECK_EQ(gk5_rpc_server_contexts(fx->srv), 1);
}

static void fx_free(struct fx *fx)
{
    gk5_rpc_server_free(fx->srv);
    gk5_ctx_free(fx->init);
    memset(fx, 0, sizeof(*fx));
}

/* ---- Building calls ---- */

/* Everything a call message says; spec_data fills a valid one. */
struct spec {
    gk5_ctx *init;
    uint32_t xid, mtype, rpcvers, prog, vers, proc;
    uint32_t cred_flavor;
    gk5i_rpc_cred cred;
    uint32_t verf_flavor;
    gk5_rpc_service body_svc; /* the body as sealed; 0: no body at all */
    uint32_t body_seq;
    const uint8_t *args;
    size_t args_len;
};

/* A call message, exactly len bytes of its own allocation (so that ASan
 * sees every read past its end), and where its pieces start. */
struct msg {
    uint8_t *p;
    size_t len;
    size_t cred_off; /* the credential body */
    size_t cred_end; /* past the credential: what the header MIC covers */
    size_t verf_off; /* the verifier's flavour */
    size_t mic_off;  /* the verifier's body */
    size_t mic_len;
    size_t body_off; /* the arguments */
};

static struct spec spec_data(struct fx *fx, gk5_rpc_service svc, uint32_t seq,
                             const uint8_t *args, size_t args_len)
{
    struct spec s = {
        .init = fx->init,
        .xid = fx->xid++,
        .mtype = MSG_CALL,
        .rpcvers = 2,
        .prog = PROG,
        .vers = VERS,
        .proc = PROC,
        .cred_flavor = GK5_RPC_FLAVOR_RPCSEC_GSS,
        .cred = {.version = GK5I_RPCSEC_GSS_VERS_1,
                 .proc = GK5I_RPCSEC_GSS_DATA,
                 .seq = seq,
                 .service = (uint32_t)svc,
                 .handle = fx->handle,
                 .handle_len = GK5I_RPC_HANDLE_LEN},
        .verf_flavor = GK5_RPC_FLAVOR_RPCSEC_GSS,
        .body_svc = svc,
        .body_seq = seq,
        .args = args,
        .args_len = args_len,
    };
    return s;
}

/* RFC 2203 5.3.2: the arguments as svc sends them, into out. */
static size_t seal_body(gk5_ctx *init, gk5_rpc_service svc, uint32_t seq,
                        const uint8_t *args, size_t n, uint8_t *out, size_t cap)
{
    size_t head = 0, tail = 0, off = 0, out_len = 0;
    gk5_rpc_error err;

    if (gk5i_rpc_body_room(init, svc, 4 + n, &head, &tail, &err) != 0) {
        fail_msg("body_room: %s", err.text);
    }
    uint8_t *base = calloc(1, head + 4 + n + tail);
    assert_non_null(base);
    gk5i_put32(base + head, seq);
    if (n != 0) {
        memcpy(base + head + 4, args, n);
    }
    if (gk5i_rpc_body_seal(init, svc, base, head, 4 + n, head + 4 + n + tail,
                           &off, &out_len, &err) != 0) {
        fail_msg("body_seal: %s", err.text);
    }
    assert_true(out_len <= cap);
    memcpy(out, base + off, out_len);
    free(base);
    return out_len;
}

static void msg_build(const struct spec *s, struct msg *m)
{
    size_t cap = 64 + 2 * GK5I_RPC_MAX_AUTH_BYTES + s->args_len + 512;
    uint8_t *p = calloc(1, cap);
    uint8_t cred[GK5I_RPC_MAX_AUTH_BYTES];
    size_t at = 0, cred_len, mic_len = 0;
    gk5_rpc_error err;

    assert_non_null(p);
    memset(m, 0, sizeof(*m));
    gk5i_put32(p, s->xid);
    gk5i_put32(p + 4, s->mtype);
    gk5i_put32(p + 8, s->rpcvers);
    gk5i_put32(p + 12, s->prog);
    gk5i_put32(p + 16, s->vers);
    gk5i_put32(p + 20, s->proc);
    gk5i_put32(p + 24, s->cred_flavor);
    cred_len = gk5i_rpc_cred_encode(&s->cred, cred, sizeof(cred));
    assert_true(cred_len > 0);
    gk5i_put32(p + 28, (uint32_t)cred_len);
    memcpy(p + 32, cred, cred_len);
    m->cred_off = 32;
    at = 32 + cred_len;
    m->cred_end = at;
    m->verf_off = at;
    gk5i_put32(p + at, s->verf_flavor);
    /* RFC 2203 5.3.1: the MIC of the header from the xid through the
     * credential. */
    if (gk5i_rpc_mic(s->init, p, m->cred_end, p + at + 8, GK5I_RPC_MIC_MAX,
                     &mic_len, &err) != 0) {
        fail_msg("header MIC: %s", err.text);
    }
    gk5i_put32(p + at + 4, (uint32_t)mic_len);
    m->mic_off = at + 8;
    m->mic_len = mic_len;
    at += 8 + mic_len + gk5i_xdr_pad(mic_len);
    m->body_off = at;
    if (s->body_svc != 0) {
        at += seal_body(s->init, s->body_svc, s->body_seq, s->args, s->args_len,
                        p + at, cap - at);
    }
    m->p = malloc(at);
    assert_non_null(m->p);
    memcpy(m->p, p, at);
    m->len = at;
    free(p);
}

static void msg_free(struct msg *m)
{
    free(m->p);
    memset(m, 0, sizeof(*m));
}

static void build_data(struct fx *fx, gk5_rpc_service svc, uint32_t seq,
                       const uint8_t *args, size_t n, struct msg *m)
{
    struct spec s = spec_data(fx, svc, seq, args, n);

    msg_build(&s, m);
}

/* ---- Processing and replies ---- */

struct rep {
    uint32_t xid;
    uint32_t reply_stat;
    uint32_t reject_stat;
    uint32_t auth_stat;
    uint32_t lo, hi;
    uint32_t verf_flavor;
    const uint8_t *verf;
    size_t verf_len;
    uint32_t accept_stat;
    const uint8_t *body;
    size_t body_len;
};

/* A whole, well-formed reply message (RFC 5531 9), or the test fails. */
static void parse_reply(const gk5_buffer *b, struct rep *r)
{
    const uint8_t *m = b->value;
    size_t len = b->length, at;

    memset(r, 0, sizeof(*r));
    CHECK(m != NULL && len >= 20);
    r->xid = gk5i_get32(m);
    CHECK_EQ(gk5i_get32(m + 4), MSG_REPLY);
    r->reply_stat = gk5i_get32(m + 8);
    if (r->reply_stat == MSG_DENIED) {
        r->reject_stat = gk5i_get32(m + 12);
        if (r->reject_stat == REJECT_MISMATCH) {
            CHECK_EQ(len, 24);
            r->lo = gk5i_get32(m + 16);
            r->hi = gk5i_get32(m + 20);
        } else {
            CHECK_EQ(r->reject_stat, REJECT_AUTH_ERROR);
            CHECK_EQ(len, 20);
            r->auth_stat = gk5i_get32(m + 16);
        }
        return;
    }
    CHECK_EQ(r->reply_stat, MSG_ACCEPTED);
    r->verf_flavor = gk5i_get32(m + 12);
    r->verf_len = gk5i_get32(m + 16);
    CHECK(r->verf_len <= GK5I_RPC_MAX_AUTH_BYTES);
    CHECK(len - 20 >= r->verf_len + gk5i_xdr_pad(r->verf_len) + 4);
    r->verf = m + 20;
    at = 20 + r->verf_len + gk5i_xdr_pad(r->verf_len);
    r->accept_stat = gk5i_get32(m + at);
    r->body = m + at + 4;
    r->body_len = len - at - 4;
}

/* One gk5_rpc_server_process on a private copy of m (which it may
 * decrypt in place; the copy outlives the call). */
struct out {
    gk5_rpc_verdict v;
    gk5_rpc_call *call;
    gk5_buffer reply;
    gk5_rpc_error err;
    struct rep rep;
    uint8_t *copy;
    size_t len;
};

static void process(struct fx *fx, const uint8_t *msg, size_t len,
                    struct out *o)
{
    memset(o, 0, sizeof(*o));
    o->copy = malloc(len != 0 ? len : 1);
    assert_non_null(o->copy);
    if (len != 0) {
        memcpy(o->copy, msg, len);
    }
    o->len = len;
    memset(&o->err, 0x55, sizeof(o->err)); /* every verdict must set it */
    o->v = gk5_rpc_server_process(fx->srv, o->copy, len, &o->call, &o->reply,
                                  &o->err);
    CHECK(memchr(o->err.text, '\0', sizeof(o->err.text)) != NULL);
    switch (o->v) {
    case GK5_RPC_CALL_DISPATCH:
        CHECK(o->call != NULL);
        CHECK(o->reply.value == NULL && o->reply.length == 0);
        CHECK_EQ(o->err.code, GK5_RPC_OK);
        break;
    case GK5_RPC_CALL_REPLY:
        CHECK(o->call == NULL);
        parse_reply(&o->reply, &o->rep);
        CHECK_EQ(o->rep.xid, len >= 4 ? gk5i_get32(msg) : 0);
        /* gk5 answered itself: a refusal says why, a control reply
         * (DESTROY) does not need to. */
        break;
    case GK5_RPC_CALL_DROP:
        CHECK(o->call == NULL);
        CHECK(o->reply.value == NULL && o->reply.length == 0);
        CHECK(o->err.code != GK5_RPC_OK);
        CHECK(o->err.text[0] != '\0');
        break;
    default:
        fail_msg("[%s] verdict %d", where, (int)o->v);
    }
}

static void out_free(struct out *o)
{
    gk5_rpc_call_free(o->call);
    gk5_buffer_release(&o->reply);
    free(o->copy);
    memset(o, 0, sizeof(*o));
}

static const char *verdict_name(gk5_rpc_verdict v)
{
    return v == GK5_RPC_CALL_DISPATCH ? "DISPATCH"
           : v == GK5_RPC_CALL_REPLY  ? "REPLY"
                                      : "DROP";
}

#define CHECK_VERDICT(o, want)                                                 \
    do {                                                                       \
        if ((o)->v != (want)) {                                                \
            fail_msg("%s:%d [%s]: verdict %s, want %s (err %d: %s)", __FILE__, \
                     __LINE__, where, verdict_name((o)->v),                    \
                     verdict_name(want), (o)->err.code, (o)->err.text);        \
        }                                                                      \
    } while (0)

/* The server's answer to m is DISPATCH with exactly args; the call is
 * answered with results, and the initiator checks the reply: the MIC of
 * seq as its verifier, results opened for svc (RFC 2203 5.3.3.2). */
static void expect_dispatch(struct fx *fx, gk5_ctx *init, const struct msg *m,
                            gk5_rpc_service svc, uint32_t seq,
                            const uint8_t *args, size_t n)
{
    struct out o;
    const uint8_t *got;
    size_t got_len = 0;
    uint8_t results[64];
    gk5_buffer reply = {0, NULL};
    gk5_rpc_error err;
    struct rep r;

    process(fx, m->p, m->len, &o);
    CHECK_VERDICT(&o, GK5_RPC_CALL_DISPATCH);
    got = gk5_rpc_call_args(o.call, &got_len);
    CHECK_EQ(got_len, n);
    CHECK(n == 0 || memcmp(got, args, n) == 0);
    CHECK_EQ(gk5_rpc_call_xid(o.call), gk5i_get32(m->p));
    CHECK_EQ(gk5_rpc_call_prog(o.call), PROG);
    CHECK_EQ(gk5_rpc_call_vers(o.call), VERS);
    CHECK_EQ(gk5_rpc_call_proc(o.call), PROC);
    CHECK_EQ(gk5_rpc_call_flavor(o.call), GK5_RPC_FLAVOR_RPCSEC_GSS);
    CHECK_EQ(gk5_rpc_call_service(o.call), svc);
    CHECK_EQ(gk5_rpc_call_enctype(o.call), fx->enctype);
    CHECK(gk5_rpc_call_principal(o.call) != NULL &&
          strcmp(gk5_rpc_call_principal(o.call), PRINCIPAL) == 0);

    for (size_t i = 0; i < sizeof(results); i++) {
        results[i] = (uint8_t)(seq * 31 + i);
    }
    size_t res_len = (n * 3 + seq) % sizeof(results);
    if (gk5_rpc_server_reply(fx->srv, o.call, GK5_RPC_SUCCESS, results, res_len,
                             &reply, &err) != 0) {
        fail_msg("[%s] gk5_rpc_server_reply: %s", where, err.text);
    }
    o.call = NULL; /* freed by gk5_rpc_server_reply */
    parse_reply(&reply, &r);
    CHECK_EQ(r.xid, gk5i_get32(m->p));
    CHECK_EQ(r.reply_stat, MSG_ACCEPTED);
    CHECK_EQ(r.accept_stat, GK5_RPC_SUCCESS);
    CHECK_EQ(r.verf_flavor, GK5_RPC_FLAVOR_RPCSEC_GSS);
    CHECK_EQ(gk5i_rpc_verify_u32(init, seq, r.verf, r.verf_len, &err), 0);
    CHECK(gk5i_rpc_verify_u32(init, seq + 1, r.verf, r.verf_len, &err) != 0);
    if (svc == GK5_RPC_SVC_NONE) {
        CHECK_EQ(r.body_len, res_len);
        CHECK(res_len == 0 || memcmp(r.body, results, res_len) == 0);
    } else {
        uint8_t *body = malloc(r.body_len + 1), *data = NULL;
        size_t data_len = 0, used = 0;

        assert_non_null(body);
        memcpy(body, r.body, r.body_len);
        if (gk5i_rpc_body_open(init, svc, seq, body, r.body_len, 1u << 20,
                               &data, &data_len, &used, &err) != 0) {
            fail_msg("[%s] opening the reply body: %s", where, err.text);
        }
        CHECK_EQ(used, r.body_len);
        CHECK_EQ(data_len, res_len);
        CHECK(res_len == 0 || memcmp(data, results, res_len) == 0);
        free(body);
    }
    gk5_buffer_release(&reply);
    out_free(&o);
}

/* AUTH_ERROR auth_stat, err saying why (code, or any when code < 0). */
static void expect_deny(struct fx *fx, const uint8_t *p, size_t len,
                        uint32_t auth_stat, int code)
{
    struct out o;

    process(fx, p, len, &o);
    CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
    CHECK_EQ(o.rep.reply_stat, MSG_DENIED);
    CHECK_EQ(o.rep.reject_stat, REJECT_AUTH_ERROR);
    CHECK_EQ(o.rep.auth_stat, auth_stat);
    CHECK_EQ(o.err.auth_stat, auth_stat);
    CHECK(o.err.code != GK5_RPC_OK);
    if (code >= 0) {
        CHECK_EQ(o.err.code, code);
    }
    CHECK(o.err.text[0] != '\0');
    out_free(&o);
}

/* GARBAGE_ARGS with the MIC of seq as the verifier, no results; err says
 * why.  plain, when given, must not be left anywhere in the message. */
static void expect_garbage(struct fx *fx, gk5_ctx *init, const uint8_t *p,
                           size_t len, uint32_t seq, const uint8_t *plain,
                           size_t plain_len)
{
    struct out o;
    gk5_rpc_error err;

    process(fx, p, len, &o);
    CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
    CHECK_EQ(o.rep.reply_stat, MSG_ACCEPTED);
    CHECK_EQ(o.rep.accept_stat, GK5_RPC_GARBAGE_ARGS);
    CHECK_EQ(o.rep.body_len, 0);
    CHECK_EQ(o.rep.verf_flavor, GK5_RPC_FLAVOR_RPCSEC_GSS);
    CHECK_EQ(gk5i_rpc_verify_u32(init, seq, o.rep.verf, o.rep.verf_len, &err),
             0);
    CHECK(o.err.code != GK5_RPC_OK);
    CHECK(o.err.text[0] != '\0');
    if (plain != NULL && plain_len >= 8) {
        for (size_t i = 0; i + plain_len <= o.len; i++) {
            CHECK(memcmp(o.copy + i, plain, plain_len) != 0);
        }
    }
    out_free(&o);
}

static void expect_drop(struct fx *fx, const uint8_t *p, size_t len, int code)
{
    struct out o;

    process(fx, p, len, &o);
    CHECK_VERDICT(&o, GK5_RPC_CALL_DROP);
    if (code >= 0) {
        CHECK_EQ(o.err.code, code);
    }
    out_free(&o);
}

/* Anything but DISPATCH, with words. */
static void expect_refused(struct fx *fx, const uint8_t *p, size_t len)
{
    struct out o;

    process(fx, p, len, &o);
    CHECK(o.v != GK5_RPC_CALL_DISPATCH);
    CHECK(o.err.code != GK5_RPC_OK);
    CHECK(o.err.text[0] != '\0');
    if (o.v == GK5_RPC_CALL_REPLY) {
        CHECK(o.rep.reply_stat == MSG_DENIED ||
              o.rep.accept_stat == GK5_RPC_GARBAGE_ARGS);
    }
    out_free(&o);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    tok_fill(p, n, seed);
}

/* ---- The tests ---- */

static size_t enctypes(int32_t *ets)
{
    size_t n = tok_enctypes(ets, MAX_ETYPES);

    assert_true(n >= 6);
    return n;
}

static void test_valid_calls(void **state)
{
    static const size_t sizes[] = {0, 5, 64, 1000};
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        uint32_t seq = 1;

        fx_init(&fx, ets[e], 0, 0);
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            for (size_t s = 0; s < GK5_ARRAY_SIZE(sizes); s++) {
                uint8_t args[1000];
                struct msg m;

                fill(args, sizes[s], seq);
                snprintf(where, sizeof(where), "enctype %d %s, %zu bytes",
                         (int)ets[e], gk5_rpc_service_name(services[v]),
                         sizes[s]);
                build_data(&fx, services[v], seq, args, sizes[s], &m);
                expect_dispatch(&fx, fx.init, &m, services[v], seq, args,
                                sizes[s]);
                msg_free(&m);
                seq++;
            }
        }
        /* An answer other than SUCCESS still proves itself, carries
         * nothing, and is never wrapped. */
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            struct msg m;
            struct out o;
            gk5_buffer reply = {0, NULL};
            gk5_rpc_error err;
            struct rep r;

            snprintf(where, sizeof(where), "enctype %d %s PROC_UNAVAIL",
                     (int)ets[e], gk5_rpc_service_name(services[v]));
            build_data(&fx, services[v], seq, (const uint8_t *)"abcd", 4, &m);
            process(&fx, m.p, m.len, &o);
            CHECK_VERDICT(&o, GK5_RPC_CALL_DISPATCH);
            CHECK_EQ(gk5_rpc_server_reply(fx.srv, o.call, GK5_RPC_PROC_UNAVAIL,
                                          NULL, 0, &reply, &err),
                     0);
            o.call = NULL;
            parse_reply(&reply, &r);
            CHECK_EQ(r.accept_stat, GK5_RPC_PROC_UNAVAIL);
            CHECK_EQ(r.body_len, 0);
            CHECK_EQ(
                gk5i_rpc_verify_u32(fx.init, seq, r.verf, r.verf_len, &err), 0);
            gk5_buffer_release(&reply);
            out_free(&o);
            msg_free(&m);
            seq++;
        }
        fx_free(&fx);
    }
}

static void test_replay_and_window(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[8] = "replay!";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            struct fx fx;
            struct msg m100, m;

            snprintf(where, sizeof(where), "enctype %d %s, window %u",
                     (int)ets[e], gk5_rpc_service_name(svc), WINDOW);
            fx_init(&fx, ets[e], WINDOW, 0);
            build_data(&fx, svc, 100, args, sizeof(args), &m100);
            expect_dispatch(&fx, fx.init, &m100, svc, 100, args, sizeof(args));
            /* The same message again: RFC 2203 5.3.3.1 says no reply. */
            expect_drop(&fx, m100.p, m100.len, GK5_RPC_E_SEQ_MISMATCH);
            expect_drop(&fx, m100.p, m100.len, GK5_RPC_E_SEQ_MISMATCH);
            /* Below the window (100 - 50 >= 8), and just at its edge
             * (100 - 8), with valid MICs. */
            build_data(&fx, svc, 50, args, sizeof(args), &m);
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_SEQ_MISMATCH);
            msg_free(&m);
            build_data(&fx, svc, 100 - WINDOW, args, sizeof(args), &m);
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_SEQ_MISMATCH);
            msg_free(&m);
            /* The window did not move: the lowest number still in it and
             * one in the middle dispatch, once. */
            build_data(&fx, svc, 100 - WINDOW + 1, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 100 - WINDOW + 1, args,
                            sizeof(args));
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_SEQ_MISMATCH);
            msg_free(&m);
            build_data(&fx, svc, 97, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 97, args, sizeof(args));
            msg_free(&m);
            /* A higher number moves it; 100 stays seen, 93 falls out. */
            build_data(&fx, svc, 101, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 101, args, sizeof(args));
            msg_free(&m);
            expect_drop(&fx, m100.p, m100.len, GK5_RPC_E_SEQ_MISMATCH);
            build_data(&fx, svc, 101 - WINDOW, args, sizeof(args), &m);
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_SEQ_MISMATCH);
            msg_free(&m);
            /* A jump far beyond the window clears it. */
            build_data(&fx, svc, 100000, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 100000, args, sizeof(args));
            msg_free(&m);
            build_data(&fx, svc, 100000 - 1, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 100000 - 1, args,
                            sizeof(args));
            msg_free(&m);
            msg_free(&m100);
            fx_free(&fx);
        }
    }
}

/* Flip one bit at off in a copy of m: CREDPROBLEM (the MIC fails), or
 * what want says for fields the server reads before the MIC. */
static void forge(struct fx *fx, const struct msg *m, size_t off, uint8_t bit,
                  uint32_t auth_stat, int code)
{
    uint8_t *bad = malloc(m->len);

    assert_non_null(bad);
    memcpy(bad, m->p, m->len);
    bad[off] ^= bit;
    expect_deny(fx, bad, m->len, auth_stat, code);
    free(bad);
}

static void test_forged_header_mic(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[12] = "forged call";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            const uint32_t seq = 200;
            struct fx fx;
            struct msg m, m2;

            snprintf(where, sizeof(where), "enctype %d %s forged", (int)ets[e],
                     gk5_rpc_service_name(svc));
            fx_init(&fx, ets[e], WINDOW, 0);
            build_data(&fx, svc, seq, args, sizeof(args), &m);
            /* The verifier: its first byte (token ID), last byte
             * (checksum), and every byte in between for one bit. */
            for (size_t i = 0; i < m.mic_len; i++) {
                forge(&fx, &m, m.mic_off + i, (uint8_t)(1u << (i % 8)),
                      GK5I_RPCSEC_GSS_CREDPROBLEM, GK5_RPC_E_BAD_VERIFIER);
            }
            /* The header it covers: xid, prog, vers, proc, the
             * credential's seq (200 -> 201: a fresh number) and one bit
             * of the service (3 -> 2, 2 -> 3; 1 -> 0 is no service). */
            forge(&fx, &m, 3, 0x01, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            forge(&fx, &m, 0, 0x80, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            forge(&fx, &m, 15, 0x01, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            forge(&fx, &m, 19, 0x02, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            forge(&fx, &m, 23, 0x01, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            forge(&fx, &m, m.cred_off + 11, 0x01, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_BAD_VERIFIER);
            if (svc != GK5_RPC_SVC_NONE) {
                forge(&fx, &m, m.cred_off + 15, 0x01,
                      GK5I_RPCSEC_GSS_CREDPROBLEM, GK5_RPC_E_BAD_VERIFIER);
            } else {
                forge(&fx, &m, m.cred_off + 15, 0x01, GK5I_AUTH_BADCRED,
                      GK5_RPC_E_MALFORMED);
            }
            /* A bit of the handle: no such context. */
            forge(&fx, &m, m.cred_off + 20, 0x10, GK5I_RPCSEC_GSS_CREDPROBLEM,
                  GK5_RPC_E_CONTEXT);
            /* None of them marked anything: the authentic call with the
             * same seq, and 201, still dispatch. */
            expect_dispatch(&fx, fx.init, &m, svc, seq, args, sizeof(args));
            build_data(&fx, svc, seq + 1, args, sizeof(args), &m2);
            expect_dispatch(&fx, fx.init, &m2, svc, seq + 1, args,
                            sizeof(args));
            msg_free(&m2);
            /* A forged copy of a number already used is dropped, not
             * answered (the window is looked at first). */
            {
                uint8_t *bad = malloc(m.len);
                assert_non_null(bad);
                memcpy(bad, m.p, m.len);
                bad[m.mic_off + m.mic_len - 1] ^= 0x01;
                expect_drop(&fx, bad, m.len, GK5_RPC_E_SEQ_MISMATCH);
                free(bad);
            }
            /* A call signed by another context with the same handle. */
            {
                gk5_ctx *other = NULL, *oacc = NULL;
                struct spec s = spec_data(&fx, svc, seq + 2, args, 4);
                uint32_t minor = 0;

                pair(ets[e], 0x01, &other, &oacc);
                tok_assert_major(gk5_ctx_set_flags(&minor, other, 0),
                                 GK5_S_COMPLETE, minor);
                s.init = other;
                msg_build(&s, &m2);
                expect_deny(&fx, m2.p, m2.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                            GK5_RPC_E_BAD_VERIFIER);
                msg_free(&m2);
                gk5_ctx_free(other);
                gk5_ctx_free(oacc);
            }
            build_data(&fx, svc, seq + 2, args, 4, &m2);
            expect_dispatch(&fx, fx.init, &m2, svc, seq + 2, args, 4);
            msg_free(&m2);
            msg_free(&m);
            fx_free(&fx);
        }
    }
}

static void test_maxseq(void **state)
{
    static const uint32_t big[] = {GK5_RPC_MAXSEQ, GK5_RPC_MAXSEQ + 1,
                                   0xfffffffeu, 0xffffffffu};
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[4] = "max";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            struct fx fx;
            struct msg m10, m;

            snprintf(where, sizeof(where), "enctype %d %s MAXSEQ", (int)ets[e],
                     gk5_rpc_service_name(svc));
            fx_init(&fx, ets[e], WINDOW, 0);
            build_data(&fx, svc, 10, args, sizeof(args), &m10);
            expect_dispatch(&fx, fx.init, &m10, svc, 10, args, sizeof(args));
            for (size_t i = 0; i < GK5_ARRAY_SIZE(big); i++) {
                build_data(&fx, svc, big[i], args, sizeof(args), &m);
                expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CTXPROBLEM,
                            GK5_RPC_E_CONTEXT);
                /* Again: still CTXPROBLEM, never a replay drop. */
                expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CTXPROBLEM,
                            GK5_RPC_E_CONTEXT);
                msg_free(&m);
            }
            /* The window is where 10 left it. */
            expect_drop(&fx, m10.p, m10.len, GK5_RPC_E_SEQ_MISMATCH);
            build_data(&fx, svc, 3, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 3, args, sizeof(args));
            msg_free(&m);
            build_data(&fx, svc, 11, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, 11, args, sizeof(args));
            msg_free(&m);
            /* The last number a client may send. */
            build_data(&fx, svc, GK5_RPC_MAXSEQ - 1, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, GK5_RPC_MAXSEQ - 1, args,
                            sizeof(args));
            msg_free(&m);
            msg_free(&m10);
            fx_free(&fx);
        }
    }
}

/* Is byte pos of a svc body XDR padding (which carries nothing, so a
 * flipped bit there may go unnoticed)? */
static bool body_padding(gk5_rpc_service svc, const uint8_t *b, size_t len,
                         size_t pos)
{
    size_t n1 = gk5i_get32(b);
    size_t end1 = 4 + n1 + gk5i_xdr_pad(n1);

    if (pos >= 4 + n1 && pos < end1) {
        return true;
    }
    if (svc == GK5_RPC_SVC_INTEGRITY && len >= end1 + 4) {
        size_t n2 = gk5i_get32(b + end1);

        return pos >= end1 + 4 + n2 && pos < len;
    }
    return false;
}

static void test_bad_bodies(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    uint8_t args[24];

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        uint32_t seq = 1;
        struct msg m;

        fx_init(&fx, ets[e], WINDOW, 0);
        for (int dir = 0; dir < 2; dir++) {
            gk5_rpc_service cred_svc =
                dir == 0 ? GK5_RPC_SVC_PRIVACY : GK5_RPC_SVC_INTEGRITY;
            gk5_rpc_service body_svc =
                dir == 0 ? GK5_RPC_SVC_INTEGRITY : GK5_RPC_SVC_PRIVACY;

            /* A body of the other service under this credential. */
            snprintf(where, sizeof(where), "enctype %d %s body under %s",
                     (int)ets[e], gk5_rpc_service_name(body_svc),
                     gk5_rpc_service_name(cred_svc));
            fill(args, sizeof(args), seq);
            struct spec s = spec_data(&fx, cred_svc, seq, args, sizeof(args));
            s.body_svc = body_svc;
            msg_build(&s, &m);
            expect_garbage(&fx, fx.init, m.p, m.len, seq,
                           body_svc == GK5_RPC_SVC_PRIVACY ? args : NULL,
                           sizeof(args));
            /* The number was authenticated: it stays used. */
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_SEQ_MISMATCH);
            msg_free(&m);
            seq++;
            /* Not a body at all (the arguments unsealed). */
            s = spec_data(&fx, cred_svc, seq, args, sizeof(args));
            s.body_svc = GK5_RPC_SVC_NONE;
            msg_build(&s, &m);
            expect_garbage(&fx, fx.init, m.p, m.len, seq, NULL, 0);
            msg_free(&m);
            seq++;
            /* The context still works. */
            build_data(&fx, cred_svc, seq, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, cred_svc, seq, args,
                            sizeof(args));
            msg_free(&m);
            seq++;
        }

        for (size_t v = 1; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            const uint8_t *plain = svc == GK5_RPC_SVC_PRIVACY ? args : NULL;

            /* The body's seq_num is not the credential's (RFC 2203
             * 5.3.2.2): one more, one less, and an old body spliced. */
            for (int d = -1; d <= 1; d += 2) {
                snprintf(where, sizeof(where), "enctype %d %s body seq %+d",
                         (int)ets[e], gk5_rpc_service_name(svc), d);
                fill(args, sizeof(args), seq);
                struct spec s = spec_data(&fx, svc, seq, args, sizeof(args));
                s.body_seq = seq + (uint32_t)d;
                msg_build(&s, &m);
                expect_garbage(&fx, fx.init, m.p, m.len, seq, plain,
                               sizeof(args));
                msg_free(&m);
                seq++;
            }
            /* A flipped bit in every byte of the body, each under a fresh
             * seq (each one uses its number). */
            snprintf(where, sizeof(where), "enctype %d %s tampered body",
                     (int)ets[e], gk5_rpc_service_name(svc));
            build_data(&fx, svc, seq, args, sizeof(args), &m);
            size_t body_len = m.len - m.body_off;
            msg_free(&m);
            for (size_t i = 0; i < body_len; i++) {
                struct out o;

                snprintf(where, sizeof(where),
                         "enctype %d %s tampered body byte %zu of %zu",
                         (int)ets[e], gk5_rpc_service_name(svc), i, body_len);
                fill(args, sizeof(args), seq);
                build_data(&fx, svc, seq, args, sizeof(args), &m);
                CHECK_EQ(m.len - m.body_off, body_len);
                bool pad = body_padding(svc, m.p + m.body_off, body_len, i);
                m.p[m.body_off + i] ^= (uint8_t)(1u << (i % 8));
                if (pad) {
                    /* Padding may go unnoticed, but only the arguments
                     * as sealed may come out. */
                    process(&fx, m.p, m.len, &o);
                    if (o.v == GK5_RPC_CALL_DISPATCH) {
                        size_t got_len = 0;
                        const uint8_t *got =
                            gk5_rpc_call_args(o.call, &got_len);
                        CHECK_EQ(got_len, sizeof(args));
                        CHECK(memcmp(got, args, sizeof(args)) == 0);
                    } else {
                        CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
                        CHECK_EQ(o.rep.accept_stat, GK5_RPC_GARBAGE_ARGS);
                    }
                    out_free(&o);
                } else {
                    expect_garbage(&fx, fx.init, m.p, m.len, seq, plain,
                                   sizeof(args));
                }
                msg_free(&m);
                seq++;
            }
            /* The context is still usable after all that. */
            snprintf(where, sizeof(where), "enctype %d %s after bad bodies",
                     (int)ets[e], gk5_rpc_service_name(svc));
            fill(args, sizeof(args), seq);
            build_data(&fx, svc, seq, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, seq, args, sizeof(args));
            msg_free(&m);
            seq++;
        }
        fx_free(&fx);
    }
}

/* Replaces m's bytes [off, off + old) by repl[0 .. new_len); the result
 * is a fresh exact-size allocation. */
static void splice(struct msg *m, size_t off, size_t old, const uint8_t *repl,
                   size_t new_len)
{
    size_t len = m->len - old + new_len;
    uint8_t *p = malloc(len != 0 ? len : 1);

    assert_non_null(p);
    memcpy(p, m->p, off);
    if (new_len != 0) {
        memcpy(p + off, repl, new_len);
    }
    memcpy(p + off + new_len, m->p + off + old, m->len - off - old);
    free(m->p);
    m->p = p;
    m->len = len;
}

/* The header MIC over m again, after its header changed (same length). */
static void resign(gk5_ctx *init, struct msg *m)
{
    size_t mic_len = 0;
    gk5_rpc_error err;

    if (gk5i_rpc_mic(init, m->p, m->cred_end, m->p + m->mic_off, m->mic_len,
                     &mic_len, &err) != 0) {
        fail_msg("resign: %s", err.text);
    }
    CHECK_EQ(mic_len, m->mic_len);
}

static void test_truncations(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    uint8_t args[20];

    (void)state;
    for (size_t e = 0; e < n; e++) {
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            struct fx fx;
            uint32_t seq = 1;
            struct msg m;

            fx_init(&fx, ets[e], WINDOW, 0);
            fill(args, sizeof(args), 77);
            build_data(&fx, svc, seq, args, sizeof(args), &m);
            size_t len = m.len;
            msg_free(&m);
            /* Every truncation of a valid message, each message under a
             * fresh seq (a body cut after an authentic header uses it). */
            for (size_t cut = 0; cut < len; cut++) {
                struct msg t;

                snprintf(where, sizeof(where),
                         "enctype %d %s cut at %zu of %zu", (int)ets[e],
                         gk5_rpc_service_name(svc), cut, len);
                build_data(&fx, svc, seq, args, sizeof(args), &t);
                CHECK_EQ(t.len, len);
                if (cut < 12) {
                    expect_drop(&fx, t.p, cut, GK5_RPC_E_MALFORMED);
                } else if (cut < t.cred_end) {
                    expect_deny(&fx, t.p, cut, GK5I_AUTH_BADCRED,
                                GK5_RPC_E_MALFORMED);
                } else if (cut < t.body_off) {
                    expect_deny(&fx, t.p, cut, GK5I_AUTH_BADVERF,
                                GK5_RPC_E_MALFORMED);
                } else if (svc == GK5_RPC_SVC_NONE) {
                    /* krb5 protects no arguments: a prefix is all the
                     * server can see. */
                    struct out o;
                    size_t got_len = 0;

                    process(&fx, t.p, cut, &o);
                    CHECK_VERDICT(&o, GK5_RPC_CALL_DISPATCH);
                    const uint8_t *got = gk5_rpc_call_args(o.call, &got_len);
                    CHECK_EQ(got_len, cut - t.body_off);
                    CHECK(got_len == 0 || memcmp(got, args, got_len) == 0);
                    out_free(&o);
                } else {
                    expect_garbage(&fx, fx.init, t.p, cut, seq,
                                   svc == GK5_RPC_SVC_PRIVACY ? args : NULL,
                                   sizeof(args));
                }
                msg_free(&t);
                seq++;
            }
            snprintf(where, sizeof(where), "enctype %d %s after truncations",
                     (int)ets[e], gk5_rpc_service_name(svc));
            build_data(&fx, svc, seq, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, svc, seq, args, sizeof(args));
            msg_free(&m);
            fx_free(&fx);
        }
    }
}

static void test_bad_credentials(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[8] = "garbage";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        uint32_t seq = 1;
        struct msg m;
        struct spec s;
        uint8_t other[GK5I_RPC_HANDLE_LEN];

        fx_init(&fx, ets[e], WINDOW, 0);
        snprintf(where, sizeof(where), "enctype %d credentials", (int)ets[e]);

        /* Version 2, signed: the credential is refused before the MIC. */
        s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args));
        s.cred.version = 2;
        msg_build(&s, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED, GK5_RPC_E_MALFORMED);
        msg_free(&m);
        /* Unknown procedure and services. */
        s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args));
        s.cred.proc = 4;
        msg_build(&s, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED, GK5_RPC_E_MALFORMED);
        msg_free(&m);
        for (uint32_t svc = 0; svc < 6; svc += 4) {
            s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args,
                          sizeof(args));
            s.cred.service = svc;
            msg_build(&s, &m);
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED,
                        GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }
        /* The handle's length overruns the credential (signed, and the
         * outer length consistent), by a little and by a lot. */
        static const uint32_t overrun[] = {GK5I_RPC_HANDLE_LEN + 1,
                                           GK5I_RPC_HANDLE_LEN + 4, 400,
                                           0x7fffffffu, 0xffffffffu};
        for (size_t i = 0; i < GK5_ARRAY_SIZE(overrun); i++) {
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args),
                       &m);
            gk5i_put32(m.p + m.cred_off + 16, overrun[i]);
            resign(fx.init, &m);
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED,
                        GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }
        /* A handle shorter than its length says, inside the credential:
         * trailing bytes. */
        build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args), &m);
        gk5i_put32(m.p + m.cred_off + 16, GK5I_RPC_HANDLE_LEN - 4);
        resign(fx.init, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED, GK5_RPC_E_MALFORMED);
        msg_free(&m);
        /* The credential's own opaque length: past the message, not a
         * multiple of 4 (then the rest is misread), zero, huge. */
        static const uint32_t outer[] = {0, 4, 0x10000, 0xfffffff0u, 40, 37};
        for (size_t i = 0; i < GK5_ARRAY_SIZE(outer); i++) {
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args),
                       &m);
            gk5i_put32(m.p + 28, outer[i]);
            if (i < 4) {
                expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED, -1);
            } else {
                /* The verifier is then read from the wrong place: a
                 * refusal of one kind or another. */
                expect_refused(&fx, m.p, m.len);
            }
            msg_free(&m);
        }
        /* Longer than opaque_auth's 400 bytes (RFC 5531 8.2), whatever is
         * inside: 20 + a 384-byte handle. */
        {
            uint8_t big[384] = {0};
            uint8_t cred[404];
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args),
                       &m);
            memcpy(cred, m.p + m.cred_off, 16);
            gk5i_put32(cred + 16, sizeof(big));
            memcpy(cred + 20, big, sizeof(big));
            gk5i_put32(m.p + 28, sizeof(cred));
            splice(&m, m.cred_off, m.cred_end - m.cred_off, cred, sizeof(cred));
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADCRED,
                        GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }
        /* Handles the server never made: random, short, empty. */
        fill(other, sizeof(other), 99);
        for (size_t hl = 0; hl <= GK5I_RPC_HANDLE_LEN; hl += 8) {
            s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args,
                          sizeof(args));
            s.cred.handle = hl == GK5I_RPC_HANDLE_LEN ? other : fx.handle;
            s.cred.handle_len = hl;
            msg_build(&s, &m);
            expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_CONTEXT);
            msg_free(&m);
        }
        /* Another credential flavour the server does not know. */
        s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args));
        s.cred_flavor = 7;
        msg_build(&s, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_TOOWEAK, GK5_RPC_E_SERVICE);
        msg_free(&m);

        /* ---- Verifiers ---- */
        snprintf(where, sizeof(where), "enctype %d verifiers", (int)ets[e]);
        /* The right MIC under another flavour (AUTH_NONE, AUTH_SYS). */
        for (uint32_t fl = 0; fl < 2; fl++) {
            s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args,
                          sizeof(args));
            s.verf_flavor = fl;
            msg_build(&s, &m);
            expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_BAD_VERIFIER);
            msg_free(&m);
        }
        /* A verifier cut short (its length consistent), or empty. */
        for (size_t keep = 0; keep < 64; keep += 7) {
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq, args, sizeof(args), &m);
            if (keep >= m.mic_len) {
                msg_free(&m);
                break;
            }
            size_t old = m.mic_len + gk5i_xdr_pad(m.mic_len);
            uint8_t repl[GK5I_RPC_MIC_MAX + 4] = {0};
            memcpy(repl, m.p + m.mic_off, keep);
            gk5i_put32(m.p + m.verf_off + 4, (uint32_t)keep);
            splice(&m, m.mic_off, old, repl, keep + gk5i_xdr_pad(keep));
            expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_BAD_VERIFIER);
            msg_free(&m);
            seq++;
        }
        /* A verifier length that lies: past the message, and over 400. */
        static const uint32_t vlen[] = {4096, 404, 0xffffffffu};
        for (size_t i = 0; i < GK5_ARRAY_SIZE(vlen); i++) {
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args),
                       &m);
            gk5i_put32(m.p + m.verf_off + 4, vlen[i]);
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADVERF,
                        GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }
        /* A 404-byte verifier that is there. */
        {
            uint8_t v404[404] = {0};
            build_data(&fx, GK5_RPC_SVC_INTEGRITY, seq++, args, sizeof(args),
                       &m);
            memcpy(v404, m.p + m.mic_off, m.mic_len);
            gk5i_put32(m.p + m.verf_off + 4, sizeof(v404));
            splice(&m, m.mic_off, m.mic_len + gk5i_xdr_pad(m.mic_len), v404,
                   sizeof(v404));
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_BADVERF,
                        GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }

        /* ---- Bodies whose lengths lie ---- */
        for (size_t v = 1; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            static const int64_t delta[] = {-8, -4, -1, 1, 4, 4096};
            static const uint32_t abs_len[] = {0, 3, 0x7fffffffu, 0xfffffff0u};

            snprintf(where, sizeof(where), "enctype %d %s body lengths",
                     (int)ets[e], gk5_rpc_service_name(svc));
            for (size_t i = 0;
                 i < GK5_ARRAY_SIZE(delta) + GK5_ARRAY_SIZE(abs_len); i++) {
                build_data(&fx, svc, seq, args, sizeof(args), &m);
                uint32_t n1 = gk5i_get32(m.p + m.body_off);
                uint32_t lie = i < GK5_ARRAY_SIZE(delta)
                                   ? (uint32_t)((int64_t)n1 + delta[i])
                                   : abs_len[i - GK5_ARRAY_SIZE(delta)];
                gk5i_put32(m.p + m.body_off, lie);
                expect_garbage(&fx, fx.init, m.p, m.len, seq,
                               svc == GK5_RPC_SVC_PRIVACY ? args : NULL,
                               sizeof(args));
                msg_free(&m);
                seq++;
            }
            if (svc == GK5_RPC_SVC_INTEGRITY) {
                /* The checksum's length: 0, one more, over 400. */
                static const uint32_t ck[] = {0, 1, 401, 0xffffffffu};
                for (size_t i = 0; i < GK5_ARRAY_SIZE(ck); i++) {
                    build_data(&fx, svc, seq, args, sizeof(args), &m);
                    size_t at = m.body_off + 4 + sizeof(args) + 4;
                    uint32_t real = gk5i_get32(m.p + at);
                    gk5i_put32(m.p + at, ck[i] == 1 ? real + 1 : ck[i]);
                    expect_garbage(&fx, fx.init, m.p, m.len, seq, NULL, 0);
                    msg_free(&m);
                    seq++;
                }
            }
            /* Junk after a valid body: the arguments must be all of it. */
            {
                static const uint8_t junk[4] = {1, 2, 3, 4};
                build_data(&fx, svc, seq, args, sizeof(args), &m);
                splice(&m, m.len, 0, junk, sizeof(junk));
                expect_garbage(&fx, fx.init, m.p, m.len, seq,
                               svc == GK5_RPC_SVC_PRIVACY ? args : NULL,
                               sizeof(args));
                msg_free(&m);
                seq++;
            }
            /* An empty body. */
            {
                struct spec s2 = spec_data(&fx, svc, seq, args, sizeof(args));
                s2.body_svc = 0;
                msg_build(&s2, &m);
                expect_garbage(&fx, fx.init, m.p, m.len, seq, NULL, 0);
                msg_free(&m);
                seq++;
            }
        }
        /* After all of it the context works. */
        snprintf(where, sizeof(where), "enctype %d after bad credentials",
                 (int)ets[e]);
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            build_data(&fx, services[v], seq, args, sizeof(args), &m);
            expect_dispatch(&fx, fx.init, &m, services[v], seq, args,
                            sizeof(args));
            msg_free(&m);
            seq++;
        }
        fx_free(&fx);
    }
}

static void test_max_body(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    uint8_t args[100];

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        uint32_t seq = 1;

        fx_init(&fx, ets[e], WINDOW, 64);
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            struct msg m;

            snprintf(where, sizeof(where), "enctype %d %s over max_body 64",
                     (int)ets[e], gk5_rpc_service_name(services[v]));
            fill(args, sizeof(args), seq);
            build_data(&fx, services[v], seq, args, sizeof(args), &m);
            expect_garbage(&fx, fx.init, m.p, m.len, seq,
                           services[v] == GK5_RPC_SVC_PRIVACY ? args : NULL,
                           sizeof(args));
            msg_free(&m);
            seq++;
            build_data(&fx, services[v], seq, args, 60, &m);
            expect_dispatch(&fx, fx.init, &m, services[v], seq, args, 60);
            msg_free(&m);
            seq++;
        }
        fx_free(&fx);
    }
}

static void build_destroy(struct fx *fx, gk5_ctx *init, const uint8_t *handle,
                          gk5_rpc_service svc, uint32_t seq, struct msg *m)
{
    struct spec s = spec_data(fx, svc, seq, NULL, 0);

    s.init = init;
    s.cred.proc = GK5I_RPCSEC_GSS_DESTROY;
    s.cred.handle = handle;
    msg_build(&s, m);
}

/* RFC 2203 5.4: verified like a data call, answered with a void result
 * and the verifier; the context is gone after that. */
static void expect_destroyed(struct fx *fx, gk5_ctx *init, const struct msg *m,
                             uint32_t seq)
{
    struct out o;
    gk5_rpc_error err;

    process(fx, m->p, m->len, &o);
    CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
    CHECK_EQ(o.rep.reply_stat, MSG_ACCEPTED);
    CHECK_EQ(o.rep.accept_stat, GK5_RPC_SUCCESS);
    CHECK_EQ(o.rep.body_len, 0);
    CHECK_EQ(o.rep.verf_flavor, GK5_RPC_FLAVOR_RPCSEC_GSS);
    CHECK_EQ(gk5i_rpc_verify_u32(init, seq, o.rep.verf, o.rep.verf_len, &err),
             0);
    CHECK_EQ(o.err.code, GK5_RPC_OK);
    out_free(&o);
}

static void test_destroy(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[8] = "destroy";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            struct fx fx;
            gk5_ctx *init2 = NULL;
            uint8_t handle2[GK5I_RPC_HANDLE_LEN];
            struct msg m, d;
            struct out held;

            snprintf(where, sizeof(where), "enctype %d %s DESTROY", (int)ets[e],
                     gk5_rpc_service_name(svc));
            fx_init(&fx, ets[e], WINDOW, 0);
            fx_add(&fx, 0x40, &init2, handle2);
            CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 2);
            CHECK(memcmp(fx.handle, handle2, sizeof(handle2)) != 0);

            /* A call is dispatched and held while its context goes. */
            build_data(&fx, svc, 1, args, sizeof(args), &m);
            process(&fx, m.p, m.len, &held);
            CHECK_VERDICT(&held, GK5_RPC_CALL_DISPATCH);
            msg_free(&m);

            /* Forged, and at MAXSEQ: refused, the context stays. */
            build_destroy(&fx, fx.init, fx.handle, svc, 2, &d);
            d.p[d.mic_off + d.mic_len - 1] ^= 0x04;
            expect_deny(&fx, d.p, d.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_BAD_VERIFIER);
            msg_free(&d);
            build_destroy(&fx, fx.init, fx.handle, svc, GK5_RPC_MAXSEQ, &d);
            expect_deny(&fx, d.p, d.len, GK5I_RPCSEC_GSS_CTXPROBLEM,
                        GK5_RPC_E_CONTEXT);
            msg_free(&d);
            /* Signed by the other context: not this one's. */
            build_destroy(&fx, init2, fx.handle, svc, 2, &d);
            expect_deny(&fx, d.p, d.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_BAD_VERIFIER);
            msg_free(&d);
            CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 2);

            build_destroy(&fx, fx.init, fx.handle, svc, 2, &d);
            expect_destroyed(&fx, fx.init, &d, 2);
            CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 1);
            /* The same DESTROY again, a data call, another DESTROY: the
             * handle is unknown now. */
            expect_deny(&fx, d.p, d.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_CONTEXT);
            msg_free(&d);
            build_data(&fx, svc, 3, args, sizeof(args), &m);
            expect_deny(&fx, m.p, m.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_CONTEXT);
            msg_free(&m);
            build_destroy(&fx, fx.init, fx.handle, svc, 4, &d);
            expect_deny(&fx, d.p, d.len, GK5I_RPCSEC_GSS_CREDPROBLEM,
                        GK5_RPC_E_CONTEXT);
            msg_free(&d);
            CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 1);

            /* The held call still answers, with the gone context's MIC. */
            {
                gk5_buffer reply = {0, NULL};
                gk5_rpc_error err;
                struct rep r;

                CHECK_EQ(gk5_rpc_server_reply(fx.srv, held.call,
                                              GK5_RPC_SUCCESS, NULL, 0, &reply,
                                              &err),
                         0);
                held.call = NULL;
                parse_reply(&reply, &r);
                CHECK_EQ(r.accept_stat, GK5_RPC_SUCCESS);
                CHECK_EQ(
                    gk5i_rpc_verify_u32(fx.init, 1, r.verf, r.verf_len, &err),
                    0);
                gk5_buffer_release(&reply);
                out_free(&held);
            }

            /* The other context is untouched, then goes too. */
            {
                struct spec s = spec_data(&fx, svc, 1, args, sizeof(args));
                s.init = init2;
                s.cred.handle = handle2;
                msg_build(&s, &m);
                expect_dispatch(&fx, init2, &m, svc, 1, args, sizeof(args));
                msg_free(&m);
            }
            build_destroy(&fx, init2, handle2, svc, 2, &d);
            expect_destroyed(&fx, init2, &d, 2);
            msg_free(&d);
            CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 0);
            gk5_ctx_free(init2);
            fx_free(&fx);
        }
    }
}

static void test_not_a_call(void **state)
{
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[4] = "hdr";

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        struct msg m;
        struct spec s;
        struct out o;

        snprintf(where, sizeof(where), "enctype %d not a call", (int)ets[e]);
        fx_init(&fx, ets[e], WINDOW, 0);
        /* A REPLY, and a msg_type that is neither: dropped, whatever
         * follows (here a signed call's header). */
        for (uint32_t mt = 1; mt < 8; mt += 6) {
            s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, 5, args, sizeof(args));
            s.mtype = mt;
            msg_build(&s, &m);
            expect_drop(&fx, m.p, m.len, GK5_RPC_E_MALFORMED);
            msg_free(&m);
        }
        /* RPC versions 1 and 3: RPC_MISMATCH 2..2, the xid kept. */
        for (uint32_t rv = 1; rv <= 3; rv += 2) {
            s = spec_data(&fx, GK5_RPC_SVC_INTEGRITY, 5, args, sizeof(args));
            s.rpcvers = rv;
            msg_build(&s, &m);
            process(&fx, m.p, m.len, &o);
            CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
            CHECK_EQ(o.rep.reply_stat, MSG_DENIED);
            CHECK_EQ(o.rep.reject_stat, REJECT_MISMATCH);
            CHECK_EQ(o.rep.lo, 2);
            CHECK_EQ(o.rep.hi, 2);
            CHECK_EQ(o.err.code, GK5_RPC_E_REJECTED);
            CHECK(o.err.text[0] != '\0');
            out_free(&o);
            /* Just the three words that say so is enough. */
            process(&fx, m.p, 12, &o);
            CHECK_VERDICT(&o, GK5_RPC_CALL_REPLY);
            CHECK_EQ(o.rep.reject_stat, REJECT_MISMATCH);
            out_free(&o);
            msg_free(&m);
        }
        /* Nothing, and NULL arguments. */
        expect_drop(&fx, NULL, 0, GK5_RPC_E_MALFORMED);
        {
            gk5_rpc_call *call = NULL;
            gk5_buffer reply = {0, NULL};
            gk5_rpc_error err;
            uint8_t b[4] = {0};

            CHECK_EQ(gk5_rpc_server_process(NULL, b, 4, &call, &reply, &err),
                     GK5_RPC_CALL_DROP);
            CHECK_EQ(err.code, GK5_RPC_E_INVALID);
            CHECK_EQ(
                gk5_rpc_server_process(fx.srv, NULL, 4, &call, &reply, &err),
                GK5_RPC_CALL_DROP);
            CHECK(call == NULL && reply.value == NULL);
        }
        /* None of that used seq 5. */
        build_data(&fx, GK5_RPC_SVC_INTEGRITY, 5, args, sizeof(args), &m);
        expect_dispatch(&fx, fx.init, &m, GK5_RPC_SVC_INTEGRITY, 5, args,
                        sizeof(args));
        msg_free(&m);
        fx_free(&fx);
    }
}

/* opts->flavors: a service not allowed is AUTH_TOOWEAK (RFC 5531 9), and a
 * DESTROY still gets through. */
static void test_policy(void **state)
{
    gk5_rpc_server_options opts = {
        .flavors = GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY), .window = WINDOW};
    int32_t ets[MAX_ETYPES];
    size_t n = enctypes(ets);
    const uint8_t args[8] = "policy!";
    gk5_rpc_error err;

    (void)state;
    for (size_t e = 0; e < n; e++) {
        struct fx fx;
        struct msg m;
        struct spec s;

        snprintf(where, sizeof(where), "enctype %d policy krb5p only",
                 (int)ets[e]);
        memset(&fx, 0, sizeof(fx));
        fx.enctype = ets[e];
        fx.xid = 7;
        CHECK_EQ(gk5i_rpc_server_create_nocred(&opts, &fx.srv, &err), 0);
        fx_add(&fx, 0, &fx.init, fx.handle);
        for (size_t v = 0; v < 2; v++) {
            build_data(&fx, services[v], (uint32_t)v + 1, args, sizeof(args),
                       &m);
            expect_deny(&fx, m.p, m.len, GK5I_AUTH_TOOWEAK, GK5_RPC_E_SERVICE);
            msg_free(&m);
        }
        s = spec_data(&fx, GK5_RPC_SVC_NONE, 3, args, sizeof(args));
        s.cred_flavor = GK5_RPC_FLAVOR_NONE;
        msg_build(&s, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_TOOWEAK, GK5_RPC_E_SERVICE);
        msg_free(&m);
        build_data(&fx, GK5_RPC_SVC_PRIVACY, 4, args, sizeof(args), &m);
        expect_dispatch(&fx, fx.init, &m, GK5_RPC_SVC_PRIVACY, 4, args,
                        sizeof(args));
        msg_free(&m);
        /* No INIT without an acceptor credential. */
        s = spec_data(&fx, GK5_RPC_SVC_PRIVACY, 0, NULL, 0);
        s.cred.proc = GK5I_RPCSEC_GSS_INIT;
        s.cred.handle_len = 0;
        s.body_svc = 0;
        msg_build(&s, &m);
        expect_deny(&fx, m.p, m.len, GK5I_AUTH_TOOWEAK, GK5_RPC_E_SERVICE);
        msg_free(&m);
        build_destroy(&fx, fx.init, fx.handle, GK5_RPC_SVC_NONE, 5, &m);
        expect_destroyed(&fx, fx.init, &m, 5);
        msg_free(&m);
        CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 0);
        fx_free(&fx);
    }
}

/* Monotonic seconds, as the table counts them. */
static uint64_t mono_s(void)
{
    struct timespec ts;

    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec;
}

/* The table's idle expiry against the order of clock reads: a worker that
 * read the clock just before a second began can take the table lock after
 * another worker marked the context used in the new second.  The context
 * must stay (before the fix, the unsigned difference wrapped, the lookup
 * answered "idle too long" and removed a context in use: a client's call
 * among 32 in flight was refused with RPCSEC_GSS_CREDPROBLEM under TSan).
 * A context idle for longer than idle_timeout still goes. */
static void test_idle_against_clock_order(void **state)
{
    int32_t ets[MAX_ETYPES];
    struct fx fx;
    struct sctx *sc = NULL;
    gk5_rpc_server_options opts = {.idle_timeout = 1};
    gk5_rpc_error err;
    size_t max_record = 0;
    uint32_t idle = 0;

    (void)state;
    assert_true(enctypes(ets) > 0);
    snprintf(where, sizeof(where), "idle expiry, enctype %d", (int)ets[0]);
    /* fx_init's, with an idle timeout of 1 s (the clock's start, the
     * machine's boot, may be less than the default hour ago). */
    memset(&fx, 0, sizeof(fx));
    fx.enctype = ets[0];
    fx.xid = 0x7000u;
    if (gk5i_rpc_server_create_nocred(&opts, &fx.srv, &err) != 0) {
        fail_msg("gk5i_rpc_server_create_nocred: %s", err.text);
    }
    fx_add(&fx, 0, &fx.init, fx.handle);
    /* Through the accessor: the server's struct has fields only the
     * library's own build defines (sctx's table fields come first). */
    gk5i_rpc_server_limits(fx.srv, &max_record, &idle);
    CHECK_EQ(idle, 1);
    CHECK_EQ(gk5i_srv_table_lookup(fx.srv, fx.handle, GK5I_RPC_HANDLE_LEN, &sc),
             LOOKUP_FOUND);
    /* As another worker would leave it: used a few seconds "later" (more
     * than the idle timeout: the wrapped difference is what expired it). */
    sc->last_used = mono_s() + 3;
    gk5i_sctx_put(sc);
    sc = NULL;
    gk5i_srv_table_sweep(fx.srv);
    CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 1);
    CHECK_EQ(gk5i_srv_table_lookup(fx.srv, fx.handle, GK5I_RPC_HANDLE_LEN, &sc),
             LOOKUP_FOUND);
    assert_non_null(sc);
    CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 1);

    /* Really idle: longer than idle_timeout ago. */
    sc->last_used = mono_s() - idle - 2;
    gk5i_sctx_put(sc);
    sc = NULL;
    CHECK_EQ(gk5i_srv_table_lookup(fx.srv, fx.handle, GK5I_RPC_HANDLE_LEN, &sc),
             LOOKUP_IDLE);
    assert_null(sc);
    CHECK_EQ(gk5_rpc_server_contexts(fx.srv), 0);
    fx_free(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_calls),
        cmocka_unit_test(test_replay_and_window),
        cmocka_unit_test(test_forged_header_mic),
        cmocka_unit_test(test_maxseq),
        cmocka_unit_test(test_bad_bodies),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_bad_credentials),
        cmocka_unit_test(test_max_body),
        cmocka_unit_test(test_destroy),
        cmocka_unit_test(test_not_a_call),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_idle_against_clock_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
