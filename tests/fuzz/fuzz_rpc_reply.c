/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the RPCSEC_GSS client (src/rpcsec/auth*.c) on the
 * bytes of a reply, driven as libtirpc 1.3.3's clnt_vc_call drives the
 * AUTH: AUTH_MARSHALL and AUTH_WRAP of a call, then xdr_replymsg over the
 * reply (a reply that does not decode, or has another xid, is dropped
 * with no AUTH call), _seterr_reply, and for an accepted SUCCESS
 * AUTH_VALIDATE on its verifier (RFC 2203 5.3.3.2) and, if that passes,
 * AUTH_UNWRAP of the results body (5.3.3.4) from the same stream; for
 * anything else AUTH_REFRESH (5.3.3.3).
 *
 * Every input gets an AUTH of its own (gk5i_rpc_auth_from_ctx) around the
 * initiator of fuzz_common's fixed keys; its peer, the acceptor, plays the
 * server: it makes the reply verifiers and seals the bodies.  The AUTH
 * has no server behind it, so a refresh that would re-establish fails.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h: SUBKEY,
 * and GENERATE picks the mode; the AUTH is always the initiator), then
 * u8 options (bits 0-1: the service, see service_of; bits 2-3: max_body,
 * see max_bodies; bit 4: raw mode, the verifier of an accepted SUCCESS
 * reply is replaced by the right one, so the body reaches AUTH_UNWRAP;
 * generate mode, the results go as they are instead of as opaque<>;
 * bits 5-6, generate mode: the kind of reply, see enum kind; bit 7: the
 * AUTH switches service between the first call and its reply, and the
 * second call uses the new one), u8 window - 1, u8 handle length - 1, u32
 * xid, and
 *   raw mode:      the reply message after its xid (the call's xid is
 *                  put in front);
 *   generate mode: u32 stat (accept_stat, auth_stat or mismatch versions
 *                  for the kinds that carry one), flips, u16 results
 *                  length, the results.  The server builds the reply
 *                  (the MIC of the call's seq_num as verifier, the
 *                  results sealed with seq_num for the service), and the
 *                  flips mutate it.
 *
 * Properties (fuzz_fail on violation):
 *   - the call carries the AUTH's credential with the next sequence
 *     number, a header MIC and arguments the server accepts;
 *   - an unmutated SUCCESS reply gives exactly the results if they fit
 *     max_body and decode, else it fails with GK5_RPC_E_TOO_BIG or
 *     GK5_RPC_E_MALFORMED; an unmutated refusal fails through
 *     AUTH_REFRESH, which never claims to have re-established;
 *   - a mutated reply fails, or gives exactly the results (flips in XDR
 *     padding; krb5 results are not protected, RFC 2203 5.3.2.1), never
 *     with a mutated verifier;
 *   - krb5i, krb5p: xdr_results sees exactly the bytes that were sealed,
 *     or nothing;
 *   - every failure leaves gk5_rpc_auth_last_error with a code and words,
 *     and the results buffer untouched unless xdr_results itself failed
 *     half-way; AUTH_UNWRAP never fails after xdr_results succeeded;
 *   - max_body bounds the results for every service; a body that claims
 *     more (krb5i: with seq_num; krb5p: plus the token's slack) is
 *     refused with GK5_RPC_E_TOO_BIG before it is allocated,
 *     and AUTH_UNWRAP allocates no more than max_body and a few KiB
 *     (the sanitizer's allocator hooks watch);
 *   - the AUTH still works afterwards: a second, unmutated call and reply
 *     succeed, without waiting for the sequence window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpc/rpc.h>

#include "fuzz_common.h"
#include "rpcsec/rpcsec_int.h"

#define MAX_RESULTS 4096
#define MAX_RAW 8192
/* A call: header, credential, verifier, a small argument body. */
#define CALL_CAP 2048
/* A generated reply: header, verifier, the sealed results. */
#define REPLY_CAP (1024 + MAX_RESULTS)
/* gk5_rpc_auth_options.max_body's default, and the client's allowance for
 * a privacy token's pieces (auth_body.c, GK5I_RPC_PRIV_SLACK). */
#define DEFAULT_MAX_BODY ((size_t)64 << 20)
#define PRIV_SLACK 1024u
/* What AUTH_UNWRAP may allocate beyond max_body: the slack, the
 * checksum, the GSS layer's scratch. */
#define ALLOC_SLACK 4096u
/* The second call's marshal must not wait for the window (client_ctx.c
 * waits FLOW_WAIT_MS, 1 s, for an older call). */
#define MARSHAL_SLOW_MS 500

#define PROG 0x20000099u
#define VERS 1u
#define PROC 7u
#define RESULTS2 "again"

/* RFC 5531 9. */
#define MSG_CALL 0u
#define MSG_REPLY 1u
#define MSG_ACCEPTED 0u
#define MSG_DENIED 1u
#define ACCEPT_SUCCESS 0u
#define ACCEPT_PROG_MISMATCH 2u
#define REJECT_MISMATCH 0u
#define REJECT_AUTH_ERROR 1u

/* XDR routines through xdrproc_t, which libtirpc declares variadic. */
#define XDR_PROC(fn) ((xdrproc_t)(void (*)(void))(fn))

/* The sanitizers' allocator hooks (sanitizer/allocator_interface.h); weak,
 * so that a build without them skips the allocation check. */
int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void *, size_t),
    void (*free_hook)(const volatile void *)) __attribute__((weak));

static bool hooks_work;
static bool watching;
static size_t largest;

static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    if (watching && n > largest) {
        largest = n;
    }
}

static void on_free(const volatile void *p)
{
    (void)p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    if (__sanitizer_install_malloc_and_free_hooks != NULL &&
        __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0) {
        void *volatile probe;

        watching = true;
        largest = 0;
        probe = malloc(12345);
        free(probe);
        watching = false;
        hooks_work = largest == 12345;
    }
    return 0;
}

/* generate mode: what the server answers. */
enum kind {
    KIND_SUCCESS = 0,  /* accepted, SUCCESS, the results */
    KIND_ACCEPTED = 1, /* accepted, another accept_stat */
    KIND_AUTH = 2,     /* denied, AUTH_ERROR (13, 14: re-establish) */
    KIND_MISMATCH = 3  /* denied, RPC_MISMATCH */
};

static gk5_rpc_service service_of(unsigned bits)
{
    static const gk5_rpc_service svcs[4] = {
        GK5_RPC_SVC_PRIVACY, GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY,
        GK5_RPC_SVC_PRIVACY};

    return svcs[bits & 3];
}

/* 0: the default. */
static const size_t max_bodies[4] = {64, 512, 4096, 0};

/* opaque<> through xdr_bytes, into (or from) the caller's buffer. */
struct bytes {
    char *buf;
    u_int len;
};

/* What the results decoder was given (AUTH_UNWRAP hands it an xdrmem
 * stream: for krb5 the reply's own, for krb5i/krb5p one over the opened
 * body), and for krb5i/krb5p what it must be given: exactly the bytes the
 * server sealed after seq_num, or nothing. */
static struct {
    bool called;
    bool ok; /* what it answered */
    const uint8_t *want;
    size_t want_len;
} decoder;

static bool_t xdr_results(XDR *xdrs, struct bytes *b)
{
    if (xdrs->x_op == XDR_DECODE) {
        const uint8_t *at = (const uint8_t *)xdrs->x_private;
        size_t avail = xdrs->x_handy;

        decoder.called = true;
        if (decoder.want != NULL && (avail != decoder.want_len ||
                                     memcmp(at, decoder.want, avail) != 0)) {
            fuzz_fail("xdr_results was given other bytes than were sealed", 0,
                      0);
        }
    }
    bool_t ok = xdr_bytes(xdrs, &b->buf, &b->len, MAX_RESULTS);
    decoder.ok = ok;
    return ok;
}

/* xdr_bytes' answer for p: true and the bytes, or false. */
static bool ref_decode(const uint8_t *p, size_t n, const uint8_t **out,
                       size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (n < 4) {
        return false;
    }
    uint32_t len = gk5i_get32(p);
    if (len > MAX_RESULTS) {
        return false;
    }
    if (len == 0) {
        return true; /* xdr_bytes reads no padding for 0 */
    }
    if (len > n - 4 || gk5i_xdr_pad(len) > n - 4 - len) {
        return false;
    }
    *out = p + 4;
    *out_len = len;
    return true;
}

/* One input's AUTH and server. */
struct run {
    AUTH *auth;
    gk5_ctx *srv; /* the acceptor */
    uint8_t handle[32];
    size_t handle_len;
    size_t max_body; /* as the AUTH has it */
    uint32_t next_seq;
};

static void fail_err(const char *what, const gk5_rpc_error *err)
{
    fprintf(stderr, "gk5 fuzz: %s: %s\n", what,
            err != NULL ? err->text : "(no error)");
    fuzz_fail(what, err != NULL ? err->major : 0, err != NULL ? err->minor : 0);
}

static void fail_auth(const char *what, AUTH *auth)
{
    fail_err(what, gk5_rpc_auth_last_error(auth));
}

/* ---- The call (RFC 5531 9, RFC 2203 5.3.1, 5.3.2) ---- */

struct call {
    uint32_t xid;
    uint32_t seq;
    gk5_rpc_service svc;
};

static const char call_args[] = "gk5 fuzz: a call";

static void put32(uint8_t *buf, size_t cap, size_t *at, uint32_t v)
{
    if (cap - *at < 4) {
        fuzz_fail("harness: message buffer too small", 0, 0);
    }
    gk5i_put32(buf + *at, v);
    *at += 4;
}

static void put_opaque(uint8_t *buf, size_t cap, size_t *at, const void *p,
                       size_t n)
{
    size_t pad = gk5i_xdr_pad(n);

    put32(buf, cap, at, (uint32_t)n);
    if (cap - *at < n + pad) {
        fuzz_fail("harness: message buffer too small", 0, 0);
    }
    if (n > 0) {
        memcpy(buf + *at, p, n);
    }
    memset(buf + *at + n, 0, pad);
    *at += n + pad;
}

/* An opaque<> of the call at *at: its bytes, or NULL. */
static const uint8_t *get_opaque(const uint8_t *m, size_t len, size_t *at,
                                 size_t *n)
{
    if (len - *at < 4) {
        return NULL;
    }
    *n = gk5i_get32(m + *at);
    if (*n > len - *at - 4 || gk5i_xdr_pad(*n) > len - *at - 4 - *n) {
        return NULL;
    }
    const uint8_t *p = m + *at + 4;
    *at += 4 + *n + gk5i_xdr_pad(*n);
    return p;
}

/* What went out: the credential (RFC 2203 5.3.1) with the next sequence
 * number, the header MIC, and the arguments, which the server opens. */
static void check_call(struct run *r, const struct call *c, const uint8_t *m,
                       size_t len)
{
    size_t at = 24, cred_len = 0, mic_len = 0, rest = 0;
    gk5i_rpc_cred cred;
    gk5_rpc_error err;

    if (len < 28 || gk5i_get32(m + at) != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        fuzz_fail("call: no RPCSEC_GSS credential", 0, 0);
    }
    at += 4;
    const uint8_t *body = get_opaque(m, len, &at, &cred_len);
    if (body == NULL ||
        gk5i_rpc_cred_decode(body, cred_len, &cred, &err) != 0 ||
        cred.proc != GK5I_RPCSEC_GSS_DATA || cred.seq != c->seq ||
        cred.service != (uint32_t)c->svc || cred.handle_len != r->handle_len ||
        memcmp(cred.handle, r->handle, r->handle_len) != 0) {
        fuzz_fail("call: the credential is not the AUTH's for this call", 0, 0);
    }
    size_t hdr_len = at;
    if (len - at < 4 || gk5i_get32(m + at) != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        fuzz_fail("call: the verifier is not RPCSEC_GSS", 0, 0);
    }
    at += 4;
    const uint8_t *mic = get_opaque(m, len, &at, &mic_len);
    if (mic == NULL ||
        gk5i_rpc_verify(r->srv, m, hdr_len, mic, mic_len, &err) != 0) {
        fail_err("call: the verifier is not the MIC of the header", &err);
    }
    /* RFC 2203 5.3.2: the arguments, as they are or sealed with seq. */
    uint8_t *args = fuzz_dup(m + at, len - at);
    uint8_t *data = args;
    size_t data_len = len - at;
    if (c->svc != GK5_RPC_SVC_NONE &&
        gk5i_rpc_body_open(r->srv, c->svc, c->seq, args, len - at, CALL_CAP,
                           &data, &data_len, &rest, &err) != 0) {
        fail_err("call: the server cannot open the arguments", &err);
    }
    size_t want = sizeof(call_args) - 1;
    if (data_len != 4 + want + gk5i_xdr_pad(want) || gk5i_get32(data) != want ||
        memcmp(data + 4, call_args, want) != 0) {
        fuzz_fail("call: the arguments are not the call's", 0, 0);
    }
    free(args);
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* As clnt_vc_call: the header to proc, AUTH_MARSHALL, AUTH_WRAP. */
static void make_call(struct run *r, uint32_t xid, struct call *c)
{
    uint8_t msg[CALL_CAP];
    u_int hdr[6] = {xid, MSG_CALL, 2, PROG, VERS, PROC};
    struct bytes args = {(char *)(uintptr_t)call_args, sizeof(call_args) - 1};
    gk5_rpc_auth_info info;
    XDR x;

    if (gk5_rpc_auth_inquire(r->auth, &info) != 0) {
        fuzz_fail("gk5_rpc_auth_inquire failed", 0, 0);
    }
    c->xid = xid;
    c->seq = r->next_seq++;
    c->svc = info.service;
    if (info.next_seq != c->seq) {
        fuzz_fail("the AUTH's next sequence number is not the next one", 0, 0);
    }
    xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
    for (size_t i = 0; i < 6; i++) {
        if (!xdr_u_int(&x, &hdr[i])) {
            fuzz_fail("harness: encoding the call header", 0, 0);
        }
    }
    long long t0 = now_ms();
    if (!AUTH_MARSHALL(r->auth, &x)) {
        fail_auth("AUTH_MARSHALL failed", r->auth);
    }
    if (now_ms() - t0 > MARSHAL_SLOW_MS) {
        fuzz_fail("AUTH_MARSHALL waited for the sequence window: an "
                  "earlier call never ended",
                  0, 0);
    }
    if (!AUTH_WRAP(r->auth, &x, XDR_PROC(xdr_results), (caddr_t)&args)) {
        fail_auth("AUTH_WRAP failed", r->auth);
    }
    size_t len = XDR_GETPOS(&x);
    XDR_DESTROY(&x);
    check_call(r, c, msg, len);
}

/* ---- The reply ---- */

enum outcome {
    DROPPED, /* libtirpc reads the next record: no AUTH call */
    OK,
    FAILED
};

struct drive {
    enum outcome out;
    bool unwrapped;  /* AUTH_UNWRAP ran */
    bool refreshed;  /* AUTH_REFRESH ran */
    bool have_claim; /* the body's first length, for krb5i/krb5p */
    uint32_t claim;
    size_t largest; /* AUTH_UNWRAP's largest allocation */
    bool decoded;   /* the results decoder ran */
};

/* RFC 2203 5.3.3.2: the MIC of seq_num, as the verifier of an accepted
 * reply, in a heap block for xdr_opaque_auth's XDR_FREE. */
static struct opaque_auth right_verifier(struct run *r, uint32_t seq)
{
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    gk5_rpc_error err;

    if (gk5i_rpc_mic_u32(r->srv, seq, mic, sizeof(mic), &mic_len, &err) != 0) {
        fail_err("server: GSS_GetMIC of seq_num failed", &err);
    }
    struct opaque_auth v = {.oa_flavor = RPCSEC_GSS,
                            .oa_base = (caddr_t)fuzz_dup(mic, mic_len),
                            .oa_length = (u_int)mic_len};
    return v;
}

/* The reply message msg as clnt_vc_call takes it, into res. */
static void drive_reply(struct run *r, const struct call *c, const uint8_t *msg,
                        size_t len, bool sign, struct bytes *res,
                        struct drive *d)
{
    uint8_t *copy = fuzz_dup(msg, len);
    struct rpc_msg reply;
    struct rpc_err re;
    XDR x;

    memset(d, 0, sizeof(*d));
    decoder.called = false;
    decoder.ok = false;
    memset(&reply, 0, sizeof(reply));
    reply.acpted_rply.ar_verf = _null_auth;
    reply.acpted_rply.ar_results.where = NULL;
    reply.acpted_rply.ar_results.proc = XDR_PROC(xdr_void);
    xdrmem_create(&x, (char *)copy, (u_int)len, XDR_DECODE);
    if (!xdr_replymsg(&x, &reply) || reply.rm_xid != c->xid) {
        d->out = DROPPED;
        goto cleanup;
    }
    _seterr_reply(&reply, &re);
    if (re.re_status != RPC_SUCCESS) {
        d->refreshed = true;
        if (AUTH_REFRESH(r->auth, &reply)) {
            fuzz_fail("AUTH_REFRESH re-established with no server", 0, 0);
        }
        d->out = FAILED;
        goto cleanup;
    }
    struct opaque_auth *verf = &reply.acpted_rply.ar_verf;
    if (sign) {
        x.x_op = XDR_FREE;
        (void)xdr_opaque_auth(&x, verf);
        x.x_op = XDR_DECODE;
        *verf = right_verifier(r, c->seq);
    }
    if (!AUTH_VALIDATE(r->auth, verf)) {
        d->out = FAILED;
        goto cleanup;
    }
    u_int pos = XDR_GETPOS(&x);
    if (c->svc != GK5_RPC_SVC_NONE && len >= 4 && pos <= len - 4) {
        d->have_claim = true;
        d->claim = gk5i_get32(copy + pos);
    }
    d->unwrapped = true;
    largest = 0;
    watching = true;
    bool_t ok = AUTH_UNWRAP(r->auth, &x, XDR_PROC(xdr_results), (caddr_t)res);
    watching = false;
    d->largest = largest;
    d->decoded = decoder.called;
    if (!ok && decoder.called && decoder.ok) {
        fuzz_fail("AUTH_UNWRAP failed after the results decoded", 0, 0);
    }
    d->out = ok ? OK : FAILED;

cleanup:
    /* The verifier xdr_replymsg allocated (libtirpc frees it for accepted
     * SUCCESS replies only; a rejected reply has none). */
    if (reply.rm_reply.rp_stat == MSG_ACCEPTED &&
        reply.acpted_rply.ar_verf.oa_base != NULL) {
        x.x_op = XDR_FREE;
        (void)xdr_opaque_auth(&x, &reply.acpted_rply.ar_verf);
    }
    XDR_DESTROY(&x);
    free(copy);
}

/* What holds whatever the reply was. */
static void check_outcome(struct run *r, const struct call *c,
                          const struct drive *d, const struct bytes *res,
                          const uint8_t *canary)
{
    const gk5_rpc_error *le = gk5_rpc_auth_last_error(r->auth);
    size_t eff_max = r->max_body;

    if (d->out == FAILED &&
        (le == NULL || le->code == GK5_RPC_OK || le->text[0] == '\0')) {
        fuzz_fail("a failed reply left no error in words", 0, 0);
    }
    if (d->out != FAILED && le != NULL) {
        fail_err("gk5_rpc_auth_last_error without a failure", le);
    }
    /* xdr_bytes itself may write some bytes before it fails; nothing
     * else may write there. */
    bool protected_ = c->svc != GK5_RPC_SVC_NONE;
    if (d->out != OK && !d->decoded &&
        memcmp(res->buf, canary, MAX_RESULTS) != 0) {
        fuzz_fail("a failed reply wrote to the results buffer", 0, 0);
    }
    if (d->out == OK && (res->len > MAX_RESULTS ||
                         memcmp(res->buf + res->len, canary + res->len,
                                MAX_RESULTS - res->len) != 0)) {
        fuzz_fail("the results overran their length", 0, 0);
    }
    if (!d->unwrapped || !protected_) {
        return;
    }
    /* The body's first length: databody_integ (seq_num and results) or
     * the privacy token. */
    size_t limit =
        c->svc == GK5_RPC_SVC_PRIVACY ? eff_max + PRIV_SLACK : eff_max + 4;
    if (d->have_claim && d->claim > limit) {
        if (d->out != FAILED || le == NULL || le->code != GK5_RPC_E_TOO_BIG) {
            fuzz_fail("a body longer than max_body was not refused as too "
                      "big",
                      0, 0);
        }
        if (hooks_work && d->largest >= d->claim) {
            fuzz_fail("a body longer than max_body was allocated", 0, 0);
        }
    }
    if (hooks_work && d->largest > eff_max + ALLOC_SLACK) {
        fprintf(stderr, "gk5 fuzz: %zu bytes allocated, max_body %zu\n",
                d->largest, eff_max);
        fuzz_fail("AUTH_UNWRAP allocated more than max_body allows", 0, 0);
    }
}

/* A fresh results buffer, canary-filled. */
static void results_reset(struct bytes *res, uint8_t *buf,
                          const uint8_t *canary)
{
    memcpy(buf, canary, MAX_RESULTS);
    res->buf = (char *)buf;
    res->len = 0;
}

/* Where the pieces of a generated reply are. */
struct layout {
    size_t verf_at, verf_end; /* flavor, length and MIC (no padding) */
    size_t body_at;           /* the results (the end, for refusals) */
};

/* The server's reply to c (RFC 5531 9, RFC 2203 5.3.3). */
static size_t build_reply(struct run *r, const struct call *c, enum kind kind,
                          uint32_t stat, const uint8_t *payload, size_t n,
                          uint8_t *out, size_t cap, struct layout *lay)
{
    size_t at = 0;
    gk5_rpc_error err;

    memset(lay, 0, sizeof(*lay));

    put32(out, cap, &at, c->xid);
    put32(out, cap, &at, MSG_REPLY);
    if (kind == KIND_AUTH || kind == KIND_MISMATCH) {
        put32(out, cap, &at, MSG_DENIED);
        if (kind == KIND_AUTH) {
            put32(out, cap, &at, REJECT_AUTH_ERROR);
            put32(out, cap, &at, stat);
        } else {
            put32(out, cap, &at, REJECT_MISMATCH);
            put32(out, cap, &at, stat >> 16);
            put32(out, cap, &at, stat & 0xffffu);
        }
        lay->body_at = at;
        return at;
    }
    put32(out, cap, &at, MSG_ACCEPTED);
    struct opaque_auth v = right_verifier(r, c->seq);
    lay->verf_at = at;
    lay->verf_end = at + 8 + v.oa_length;
    put32(out, cap, &at, GK5_RPC_FLAVOR_RPCSEC_GSS);
    put_opaque(out, cap, &at, v.oa_base, v.oa_length);
    free(v.oa_base);
    if (kind == KIND_ACCEPTED) {
        uint32_t as = stat != ACCEPT_SUCCESS ? stat : ACCEPT_PROG_MISMATCH;
        put32(out, cap, &at, as);
        if (as == ACCEPT_PROG_MISMATCH) {
            put32(out, cap, &at, 1);
            put32(out, cap, &at, 2);
        }
        lay->body_at = at;
        return at;
    }
    put32(out, cap, &at, ACCEPT_SUCCESS);
    lay->body_at = at;
    if (cap - at < n) {
        fuzz_fail("harness: reply buffer too small", 0, 0);
    }
    if (c->svc == GK5_RPC_SVC_NONE) {
        if (n > 0) {
            memcpy(out + at, payload, n);
        }
        return at + n;
    }
    /* RFC 2203 5.3.2.2, 5.3.2.3: seq_num + the results, sealed. */
    size_t len = 4 + n;
    size_t head = 0, tail = 0, off = 0, enc_len = 0;
    if (gk5i_rpc_body_room(r->srv, c->svc, len, &head, &tail, &err) != 0) {
        fail_err("server: body_room failed", &err);
    }
    size_t bcap = head + len + tail;
    uint8_t *base = fuzz_dup(NULL, bcap);
    size_t bat = head;
    put32(base, bcap, &bat, c->seq);
    if (n > 0) {
        memcpy(base + bat, payload, n);
    }
    if (gk5i_rpc_body_seal(r->srv, c->svc, base, head, len, bcap, &off,
                           &enc_len, &err) != 0) {
        fail_err("server: body_seal failed", &err);
    }
    if (cap - at < enc_len) {
        fuzz_fail("harness: reply buffer too small", 0, 0);
    }
    memcpy(out + at, base + off, enc_len);
    at += enc_len;
    free(base);
    return at;
}

/* The results as xdr_bytes puts them (opaque<>), into out (4 + n + 3). */
static size_t encode_results(const uint8_t *results, size_t n, uint8_t *out)
{
    size_t at = 0;

    put_opaque(out, 4 + n + 3, &at, results, n);
    return at;
}

/* The reply a working AUTH must take: the second call's. */
static void check_still_works(struct run *r, uint32_t xid,
                              const uint8_t *canary)
{
    static const uint8_t results[] = RESULTS2;
    uint8_t payload[4 + sizeof(results) + 3];
    uint8_t *msg = fuzz_dup(NULL, REPLY_CAP);
    uint8_t *buf = fuzz_dup(NULL, MAX_RESULTS);
    struct bytes res;
    struct drive d;
    struct call c;
    struct layout lay;

    make_call(r, xid, &c);
    size_t plen = encode_results(results, sizeof(results) - 1, payload);
    size_t len = build_reply(r, &c, KIND_SUCCESS, 0, payload, plen, msg,
                             REPLY_CAP, &lay);
    results_reset(&res, buf, canary);
    drive_reply(r, &c, msg, len, false, &res, &d);
    if (d.out != OK) {
        fail_auth("the AUTH no longer works: a good second reply failed",
                  r->auth);
    }
    check_outcome(r, &c, &d, &res, canary);
    if (res.len != sizeof(results) - 1 ||
        memcmp(res.buf, results, res.len) != 0) {
        fuzz_fail("the second reply gave other results", 0, 0);
    }
    free(buf);
    free(msg);
}

/* generate mode: the server's reply to c, mutated. */
static void generated_reply(struct run *r, const struct call *c, uint8_t opts,
                            struct fuzz_in *in, struct bytes *res,
                            const uint8_t *canary)
{
    enum kind kind = (enum kind)((opts >> 5) & 3);
    bool as_is = (opts & 0x10) != 0;
    uint32_t stat = fuzz_u32(in);
    struct fuzz_flips flips;
    fuzz_take_flips(in, &flips);
    size_t want = fuzz_u16(in) % (MAX_RESULTS + 1);
    const uint8_t *results = NULL;
    size_t n = fuzz_bytes(in, &results, want);

    /* The results the program made: opaque<> (xdr_bytes), or, as_is, any
     * bytes at all, which the decoder may refuse. */
    uint8_t *payload = fuzz_dup(NULL, 4 + n + 3);
    size_t plen = n;
    if (as_is) {
        if (n > 0) {
            memcpy(payload, results, n);
        }
    } else {
        plen = encode_results(results, n, payload);
    }
    const uint8_t *ref = NULL;
    size_t ref_len = 0;
    bool ref_ok = ref_decode(payload, plen, &ref, &ref_len);

    uint8_t *msg = fuzz_dup(NULL, REPLY_CAP);
    struct layout lay;
    size_t len =
        build_reply(r, c, kind, stat, payload, plen, msg, REPLY_CAP, &lay);
    uint8_t *orig = fuzz_dup(msg, len);
    bool changed = fuzz_apply_flips(&flips, msg, len);
    bool verf_changed = memcmp(msg + lay.verf_at, orig + lay.verf_at,
                               lay.verf_end - lay.verf_at) != 0;
    bool body_changed =
        memcmp(msg + lay.body_at, orig + lay.body_at, len - lay.body_at) != 0;
    struct drive d;
    if (c->svc != GK5_RPC_SVC_NONE) {
        decoder.want = payload;
        decoder.want_len = plen;
    }
    drive_reply(r, c, msg, len, false, res, &d);
    decoder.want = NULL;
    check_outcome(r, c, &d, res, canary);

    const gk5_rpc_error *le = gk5_rpc_auth_last_error(r->auth);
    /* max_body bounds the XDR data after seq_num, for every service. */
    bool fits = c->svc == GK5_RPC_SVC_NONE || plen <= r->max_body;
    bool too_big = !fits;
    if (!changed && kind == KIND_SUCCESS) {
        if (fits && ref_ok && d.out != OK) {
            fail_auth("an unmutated reply failed", r->auth);
        }
        if (too_big && d.out == OK) {
            fuzz_fail("results larger than max_body were taken", 0, 0);
        }
        if (d.out == FAILED && le->code != GK5_RPC_E_TOO_BIG &&
            (ref_ok || !d.decoded || le->code != GK5_RPC_E_MALFORMED)) {
            fail_auth("an unmutated reply failed", r->auth);
        }
    }
    if (!changed && kind != KIND_SUCCESS && (d.out != FAILED || !d.refreshed)) {
        fuzz_fail("an unmutated refusal did not fail through AUTH_REFRESH", 0,
                  0);
    }
    if (d.out == OK) {
        if (kind != KIND_SUCCESS) {
            fuzz_fail("a refusal turned into results", 0, 0);
        }
        if (verf_changed) {
            fuzz_fail("a reply with a mutated verifier was taken", 0, 0);
        }
        /* RFC 2203 5.3.2.1: krb5 results are not protected. */
        bool unprotected = c->svc == GK5_RPC_SVC_NONE && body_changed;
        if (!unprotected &&
            (!ref_ok || res->len != ref_len ||
             (ref_len > 0 && memcmp(res->buf, ref, ref_len) != 0))) {
            fuzz_fail("a reply gave other results than were sent", 0, 0);
        }
    }
    free(orig);
    free(msg);
    free(payload);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1)) {
        return 0;
    }
    cfg.initiator = true; /* the AUTH; its peer is the server */
    struct fuzz_in in = {data, size};
    uint8_t opts = fuzz_u8(&in);
    uint32_t window = (uint32_t)fuzz_u8(&in) + 1;
    size_t handle_len = (size_t)(fuzz_u8(&in) % 32) + 1;
    uint32_t xid = fuzz_u32(&in);
    gk5_rpc_service svc = service_of(opts);
    gk5_rpc_service svc2 = service_of(opts + 1u);
    bool generate = (b1 & FUZZ_B1_GENERATE) != 0;
    struct run r = {.next_seq = 1};
    gk5_rpc_error err;

    for (size_t i = 0; i < handle_len; i++) {
        r.handle[i] = (uint8_t)(0xa0 + i);
    }
    r.handle_len = handle_len;
    size_t max_body = max_bodies[(opts >> 2) & 3];
    r.max_body = max_body != 0 ? max_body : DEFAULT_MAX_BODY;
    r.srv = fuzz_ctx_fresh(&cfg, true);
    /* As gk5's server holds its contexts: RPCSEC_GSS's window, not gk5's
     * replay detection. */
    uint32_t minor = 0;
    uint32_t major = gk5_ctx_set_flags(&minor, r.srv, 0);
    if (GK5_ERROR(major) != 0) {
        fuzz_fail("gk5_ctx_set_flags failed", major, minor);
    }
    r.auth = gk5i_rpc_auth_from_ctx(fuzz_ctx_fresh(&cfg, false), r.handle,
                                    handle_len, window, svc, max_body, &err);
    if (r.auth == NULL) {
        fail_err("gk5i_rpc_auth_from_ctx failed", &err);
    }

    uint8_t *canary = fuzz_dup(NULL, MAX_RESULTS);
    for (size_t i = 0; i < MAX_RESULTS; i++) {
        canary[i] = (uint8_t)(0xc5 ^ i);
    }
    uint8_t *buf = fuzz_dup(NULL, MAX_RESULTS);
    struct bytes res;
    struct call c;
    struct drive d;
    make_call(&r, xid, &c);
    if ((opts & 0x80) != 0 && gk5_rpc_auth_set_service(r.auth, svc2) != 0) {
        fuzz_fail("gk5_rpc_auth_set_service failed", 0, 0);
    }
    results_reset(&res, buf, canary);

    if (!generate) {
        const uint8_t *p = NULL;
        size_t n = fuzz_bytes(&in, &p, MAX_RAW);
        uint8_t *msg = fuzz_dup(NULL, 4 + n);
        gk5i_put32(msg, xid);
        if (n > 0) {
            memcpy(msg + 4, p, n);
        }
        drive_reply(&r, &c, msg, 4 + n, (opts & 0x10) != 0, &res, &d);
        check_outcome(&r, &c, &d, &res, canary);
        free(msg);
    } else {
        generated_reply(&r, &c, opts, &in, &res, canary);
    }
    free(buf);

    check_still_works(&r, xid + 1, canary);
    auth_destroy(r.auth);
    free(canary);
    fuzz_ctx_done(&cfg, true, r.srv);
    return 0;
}
