/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5's own RPC client (src/rpcsec/clnt*.c) on the bytes
 * of a reply.  The client sends a call on one end of a socket pair
 * (gk5_rpc_clnt_send); the harness, the server, reads it, checks it, and
 * answers with a record the input makes; the client waits for it
 * (gk5_rpc_clnt_wait): the reply header (gk5i_rpc_reply_decode), the
 * verifier (RFC 2203 5.3.3.2) and the results body (5.3.3.4).
 *
 * Every input gets a client of its own (gk5i_rpc_clnt_adopt) around the
 * initiator of fuzz_common's fixed keys; the acceptor plays the server:
 * it makes the reply verifiers and seals the bodies.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (SUBKEY; GENERATE picks
 * the mode), then u8 options (bits 0-1: the service; bit 2: max_body 64
 * bytes instead of the default; bits 3-4, generate mode: the kind of
 * reply, see enum kind), and
 *   raw mode:      the reply after its xid (the call's xid is put in
 *                  front);
 *   generate mode: u32 stat (accept_stat or auth_stat), flips, u16
 *                  results length, the results.  The server builds the
 *                  reply and the flips mutate it.
 *
 * Properties (fuzz_fail on violation):
 *   - the call carries the client's credential (DATA, the next number,
 *     the service, the handle) and a header MIC the server verifies;
 *   - an unmutated SUCCESS reply gives exactly the results when they fit
 *     max_body, else GK5_RPC_E_TOO_BIG; an unmutated refusal fails with
 *     its code (GK5_RPC_E_ACCEPT_STAT, GK5_RPC_E_REJECTED);
 *   - a mutated reply fails, or gives exactly the results (flips in
 *     padding; krb5 results are not protected), never with a mutated
 *     verifier;
 *   - every failure has a code and words, and no results;
 *   - the client still works afterwards: a second call with an unmutated
 *     reply succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "rpcsec/client_int.h"
#include "rpcsec/rpcsec_int.h"

#define MAX_RESULTS 2048
#define MAX_RAW 4096
#define REPLY_CAP (1024 + MAX_RESULTS)
#define SMALL_BODY 64u
#define CALL_TIMEOUT_MS 50u

enum kind { KIND_SUCCESS, KIND_ACCEPTED, KIND_AUTH, KIND__COUNT };

static const uint8_t handle[] = {0x67, 0x6b, 0x35, 0x2d, 0x66, 0x75,
                                 0x7a, 0x7a, 0x2d, 0x68, 0x61, 0x6e};
static const char call_args[] = "gk5 fuzz: a call";

struct run {
    gk5_rpc_clnt *clnt;
    gk5_ctx *srv; /* the acceptor */
    int peer;     /* the server's end of the socket pair */
    gk5_rpc_service svc;
    size_t max_body;
    uint32_t next_seq;
};

static void fail_err(const char *what, const gk5_rpc_error *err)
{
    fprintf(stderr, "gk5 fuzz: %s: %s\n", what,
            err != NULL ? err->text : "(no error)");
    fuzz_fail(what, err != NULL ? err->major : 0, err != NULL ? err->minor : 0);
}

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

/* Send a call and read it as the server: its xid and sequence number,
 * checked (credential, header MIC, arguments). */
static void call(struct run *r, uint64_t *id, uint32_t *xid, uint32_t *seq)
{
    gk5_buffer args = {sizeof(call_args), (void *)(uintptr_t)call_args};
    gk5_rpc_error err;
    uint8_t *rec = NULL;
    size_t len = 0;

    if (gk5_rpc_clnt_send(r->clnt, 7, &args, id, &err) != 0) {
        fail_err("gk5_rpc_clnt_send failed", &err);
    }
    if (gk5i_rpc_read_record(r->peer, 1 << 20, 1000, &rec, &len, &err) != 0) {
        fail_err("server: no call record", &err);
    }
    /* xid, CALL, 2, prog, vers, proc, RPCSEC_GSS, cred<>, verf */
    if (len < 32 || gk5i_get32(rec + 4) != 0 || gk5i_get32(rec + 24) != 6) {
        fuzz_fail("call: not an RPCSEC_GSS call", 0, 0);
    }
    size_t clen = gk5i_get32(rec + 28);
    size_t cend = 32 + clen + gk5i_xdr_pad(clen);
    gk5i_rpc_cred cred;
    if (clen > len - 32 || cend + 8 > len ||
        gk5i_rpc_cred_decode(rec + 32, clen, &cred, &err) != 0) {
        fuzz_fail("call: the credential does not decode", 0, 0);
    }
    if (cred.proc != GK5I_RPCSEC_GSS_DATA || cred.seq != r->next_seq ||
        cred.service != (uint32_t)r->svc || cred.handle_len != sizeof(handle) ||
        memcmp(cred.handle, handle, sizeof(handle)) != 0) {
        fuzz_fail("call: the credential is not the client's for this call", 0,
                  0);
    }
    size_t vlen = gk5i_get32(rec + cend + 4);
    if (gk5i_get32(rec + cend) != 6 || vlen > len - cend - 8 ||
        gk5i_rpc_verify(r->srv, rec, cend, rec + cend + 8, vlen, &err) != 0) {
        fuzz_fail("call: the header MIC does not verify", 0, 0);
    }
    *xid = gk5i_get32(rec);
    *seq = cred.seq;
    r->next_seq++;
    free(rec);
}

/* The server's reply to (xid, seq): kind, with stat, results payload. */
static size_t build_reply(struct run *r, uint32_t xid, uint32_t seq,
                          enum kind kind, uint32_t stat, const uint8_t *payload,
                          size_t n, uint8_t *out, size_t cap, size_t *body_at,
                          size_t *pad_at)
{
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t at = 0, mic_len = 0;
    gk5_rpc_error err;

    put32(out, cap, &at, xid);
    put32(out, cap, &at, 1); /* REPLY */
    if (kind == KIND_AUTH) {
        put32(out, cap, &at, 1); /* MSG_DENIED */
        put32(out, cap, &at, 1); /* AUTH_ERROR */
        put32(out, cap, &at, stat);
        return at;
    }
    put32(out, cap, &at, 0); /* MSG_ACCEPTED */
    if (gk5i_rpc_mic_u32(r->srv, seq, mic, sizeof(mic), &mic_len, &err) != 0) {
        fail_err("server: MIC of seq_num failed", &err);
    }
    put32(out, cap, &at, 6);
    put_opaque(out, cap, &at, mic, mic_len);
    *pad_at = at - gk5i_xdr_pad(mic_len); /* the verifier's XDR padding */
    if (kind == KIND_ACCEPTED) {
        uint32_t as = stat != 0 ? stat : 1;
        put32(out, cap, &at, as);
        if (as == 2) { /* PROG_MISMATCH: low, high */
            put32(out, cap, &at, 1);
            put32(out, cap, &at, 2);
        }
        return at;
    }
    put32(out, cap, &at, 0); /* SUCCESS */
    *body_at = at;
    if (r->svc == GK5_RPC_SVC_NONE) {
        if (cap - at < n) {
            fuzz_fail("harness: reply buffer too small", 0, 0);
        }
        if (n > 0) {
            memcpy(out + at, payload, n);
        }
        return at + n;
    }
    size_t head = 0, tail = 0, off = 0, enc_len = 0, len = 4 + n;
    if (gk5i_rpc_body_room(r->srv, r->svc, len, &head, &tail, &err) != 0) {
        fail_err("server: body_room failed", &err);
    }
    size_t bcap = head + len + tail;
    uint8_t *base = fuzz_dup(NULL, bcap);
    gk5i_put32(base + head, seq);
    if (n > 0) {
        memcpy(base + head + 4, payload, n);
    }
    if (gk5i_rpc_body_seal(r->srv, r->svc, base, head, len, bcap, &off,
                           &enc_len, &err) != 0) {
        fail_err("server: body_seal failed", &err);
    }
    if (cap - at < enc_len) {
        fuzz_fail("harness: reply buffer too small", 0, 0);
    }
    memcpy(out + at, base + off, enc_len);
    free(base);
    return at + enc_len;
}

static void send_reply(struct run *r, const uint8_t *msg, size_t len)
{
    struct iovec iov = {.iov_base = (void *)(uintptr_t)msg, .iov_len = len};
    gk5_rpc_error err;

    if (gk5i_rpc_write_record(r->peer, &iov, 1, &err) != 0) {
        fail_err("server: cannot send the reply", &err);
    }
}

/* The outcome of a wait: 0 with results, or -1 with a code and words and
 * no results. */
static int wait_for(struct run *r, uint64_t id, gk5_buffer *res,
                    gk5_rpc_error *err)
{
    int rc = gk5_rpc_clnt_wait(r->clnt, id, res, err);

    if (rc != 0 && (err->code == GK5_RPC_OK || err->text[0] == '\0' ||
                    res->value != NULL || res->length != 0)) {
        fail_err("a failed wait without a code, words, or with results", err);
    }
    if (rc == 0 && res->length > r->max_body) {
        fuzz_fail("results larger than max_body", 0, 0);
    }
    return rc;
}

static void check_still_works(struct run *r)
{
    static const uint8_t results[] = {0, 0, 0, 4, 'o', 'k', '!', '!'};
    uint8_t msg[REPLY_CAP];
    uint64_t id = 0;
    uint32_t xid = 0, seq = 0;
    size_t body_at = 0, pad_at = 0;
    gk5_buffer res = {0, NULL};
    gk5_rpc_error err;

    call(r, &id, &xid, &seq);
    send_reply(r, msg,
               build_reply(r, xid, seq, KIND_SUCCESS, 0, results,
                           sizeof(results), msg, sizeof(msg), &body_at,
                           &pad_at));
    if (wait_for(r, id, &res, &err) != 0) {
        fail_err("the client no longer works after the input", &err);
    }
    if (res.length != sizeof(results) ||
        memcmp(res.value, results, sizeof(results)) != 0) {
        fuzz_fail("the second call's results differ", 0, 0);
    }
    gk5_buffer_release(&res);
}

static void run_input(struct run *r, struct fuzz_in *in, uint8_t opts,
                      bool generate)
{
    uint8_t msg[REPLY_CAP + MAX_RAW];
    uint64_t id = 0;
    uint32_t xid = 0, seq = 0;
    gk5_buffer res = {0, NULL};
    gk5_rpc_error err;

    call(r, &id, &xid, &seq);
    if (!generate) {
        const uint8_t *p = NULL;
        size_t n = fuzz_bytes(in, &p, MAX_RAW);
        gk5i_put32(msg, xid);
        if (n > 0) {
            memcpy(msg + 4, p, n);
        }
        send_reply(r, msg, 4 + n);
        if (wait_for(r, id, &res, &err) == 0) {
            gk5_buffer_release(&res);
        }
        return;
    }
    enum kind kind = (enum kind)(((opts >> 3) & 3) % KIND__COUNT);
    uint32_t stat = fuzz_u32(in);
    struct fuzz_flips flips;
    fuzz_take_flips(in, &flips);
    const uint8_t *payload = NULL;
    size_t n = fuzz_bytes(in, &payload, fuzz_u16(in) % (MAX_RESULTS + 1));
    size_t body_at = 0, pad_at = 0;
    size_t len = build_reply(r, xid, seq, kind, stat, payload, n, msg,
                             sizeof(msg), &body_at, &pad_at);
    uint8_t *orig = fuzz_dup(msg, len);
    /* The xid is the transport's: a flip there leaves the call waiting
     * for its deadline, which a few inputs are enough to cover. */
    bool changed = fuzz_apply_flips(&flips, msg + 4, len - 4);
    /* krb5: nothing after the verifier is protected (RFC 2203 5.3.2.1,
     * 5.3.3.2: the verifier signs the sequence number only), nor is the
     * verifier's XDR padding (not checked, as RFC 4506 readers may): flips
     * there may change the results, or turn a refusal's accept_stat into
     * SUCCESS, while the header and the MIC stay as sent. */
    bool open_results = r->svc == GK5_RPC_SVC_NONE && kind != KIND_AUTH &&
                        memcmp(orig, msg, pad_at) == 0;
    free(orig);
    send_reply(r, msg, len);
    int rc = wait_for(r, id, &res, &err);
    if (!changed) {
        if (kind == KIND_SUCCESS && n <= r->max_body &&
            (rc != 0 || res.length != n ||
             (n > 0 && memcmp(res.value, payload, n) != 0))) {
            fail_err("an unmutated SUCCESS reply did not give its results",
                     &err);
        }
        if (kind == KIND_SUCCESS && n > r->max_body &&
            (rc == 0 || err.code != GK5_RPC_E_TOO_BIG)) {
            fuzz_fail("results past max_body were not refused as too big", 0,
                      0);
        }
        if (kind == KIND_ACCEPTED &&
            (rc == 0 || err.code != GK5_RPC_E_ACCEPT_STAT)) {
            fuzz_fail("an accepted refusal did not fail with ACCEPT_STAT", 0,
                      0);
        }
        /* CREDPROBLEM and CTXPROBLEM make the client try a new context,
         * which fails here (no target): with those words. */
        if (kind == KIND_AUTH && (rc == 0 || (err.code != GK5_RPC_E_REJECTED &&
                                              stat != 13 && stat != 14))) {
            fuzz_fail("an AUTH_ERROR did not fail with REJECTED", 0, 0);
        }
    } else if (rc == 0 && !open_results &&
               (res.length != n ||
                (n > 0 && memcmp(res.value, payload, n) != 0))) {
        fuzz_fail("a mutated reply gave other results", 0, 0);
    }
    gk5_buffer_release(&res);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;
    struct run r;
    gk5_rpc_error err;
    int sv[2];

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1) || !cfg.initiator) {
        return 0;
    }
    struct fuzz_in in = {data, size};
    uint8_t opts = fuzz_u8(&in);
    memset(&r, 0, sizeof(r));
    r.svc = (gk5_rpc_service)(1 + (opts & 3) % 3);
    r.max_body = (opts & 4) != 0 ? SMALL_BODY : (size_t)64 << 20;
    r.next_seq = 1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fuzz_fail("harness: socketpair", 0, 0);
    }
    r.peer = sv[1];
    r.srv = fuzz_ctx_fresh(&cfg, true);
    uint32_t minor = 0;
    (void)gk5_ctx_set_flags(&minor, r.srv, 0);
    if (gk5i_rpc_clnt_adopt(sv[0], fuzz_ctx_fresh(&cfg, false), handle,
                            sizeof(handle), 128, r.svc, r.max_body,
                            CALL_TIMEOUT_MS, &r.clnt, &err) != 0) {
        fail_err("gk5i_rpc_clnt_adopt failed", &err);
    }
    run_input(&r, &in, opts, (b1 & FUZZ_B1_GENERATE) != 0);
    check_still_works(&r);
    close(r.peer); /* the client's DESTROY finds no server */
    gk5_rpc_clnt_free(r.clnt);
    fuzz_ctx_done(&cfg, true, r.srv);
    return 0;
}
