/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: every entry point under allocation failure.
 *
 * All of gk5's own allocations but the caller's output buffers, and all of
 * OpenSSL's (cipher and MAC contexts, digests, key schedules), go through
 * OpenSSL's allocator, which this target replaces
 * (CRYPTO_set_mem_functions).  For one operation it sweeps the failure
 * point: the operation runs on fresh contexts with the Nth allocation made
 * to fail (or the Nth and every later one), for N = 0, 1, 2, ... until a
 * run makes fewer than N + 1 allocations.  Each failing run must
 *   - be refused with GK5_ERR_NOMEM or GK5_ERR_CRYPTO_BACKEND,
 *   - hand out nothing (empty output buffer, no context),
 *   - leave the context as it was (its export byte for byte: send counter,
 *     receive window, flags), and
 *   - leave it usable: the same operation without failures then succeeds
 *     (an unwrap of the same token, a wrap the peer accepts);
 * and a run that succeeds despite a failure must give the right result.
 * LeakSanitizer checks that every failure path frees what it took.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h; bit 0x10:
 * every allocation from the Nth on fails, else only the Nth), byte 2 the
 * operation (modulo OP__COUNT), then the message (at most 512 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>

#include "fuzz_common.h"

#define MAX_MESSAGE 512
#define B1_FAIL_ALL 0x10u
/* No operation here makes this many allocations; a sweep that reaches it
 * means the failure point is never passed. */
#define MAX_POINT 400

enum op {
    OP_IMPORT_GSSD,
    OP_IMPORT,
    OP_EXPORT,
    OP_WRAP,
    OP_UNWRAP,
    OP_GET_MIC,
    OP_VERIFY_MIC,
    OP_WRAP_IOV,
    OP_UNWRAP_IOV,
    OP_IMPORT_LUCID,
    OP__COUNT
};

/* For tests/unit/test_faults.c, which runs every operation. */
const unsigned fuzz_faults_op_count = OP__COUNT;

/* ---- The failing allocator (fuzz_common's) ---- */

static void arm(long point, bool all)
{
    if (all) {
        fuzz_alloc_fail_arm_all(point);
    } else {
        fuzz_alloc_fail_arm(point);
    }
}

static void disarm(void)
{
    fuzz_alloc_fail_arm(-1);
    /* What the failures left in OpenSSL's error queue. */
    ERR_clear_error();
}

/* ---- Contexts and checks ---- */

static gk5_ctx *import(const struct fuzz_cfg *cfg, bool peer)
{
    uint8_t buf[128];
    size_t len = fuzz_gssd_buffer(cfg, peer, buf, sizeof(buf));
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("import without failures", major, minor);
    }
    return ctx;
}

static void snapshot(const gk5_ctx *ctx, gk5_buffer *out)
{
    uint32_t minor = 0, major = gk5_ctx_export(&minor, ctx, out);

    if (major != GK5_S_COMPLETE) {
        fuzz_fail("export without failures", major, minor);
    }
}

static void same_state(const gk5_ctx *ctx, const gk5_buffer *before,
                       const char *what)
{
    gk5_buffer now = {0, NULL};

    snapshot(ctx, &now);
    if (now.length != before->length ||
        memcmp(now.value, before->value, now.length) != 0) {
        fuzz_fail(what, 0, 0);
    }
    gk5_buffer_release(&now);
}

/* A refusal caused by the failure: the right words, nothing handed out. */
static void refused_cleanly(const char *what, uint32_t major, uint32_t minor,
                            const gk5_buffer *out)
{
    uint32_t code = GK5_ERR_CODE(minor);

    if (major != GK5_S_FAILURE ||
        (code != GK5_ERR_NOMEM && code != GK5_ERR_CRYPTO_BACKEND)) {
        fuzz_fail(what, major, minor);
    }
    if (out != NULL && (out->length != 0 || out->value != NULL)) {
        fuzz_fail("a failed call handed out a buffer", major, minor);
    }
}

static void expect_ok(const char *what, uint32_t major, uint32_t minor)
{
    if (major != GK5_S_COMPLETE) {
        fuzz_fail(what, major, minor);
    }
}

static void expect_message(const gk5_buffer *out, const gk5_buffer *msg)
{
    if (out->length != msg->length ||
        (msg->length != 0 && memcmp(out->value, msg->value, msg->length))) {
        fuzz_fail("unwrapped other bytes than were wrapped", 0, 0);
    }
}

/* The peer takes tok (made by the context under test). */
static void peer_unwraps(const struct fuzz_cfg *cfg, const gk5_buffer *tok,
                         const gk5_buffer *msg)
{
    gk5_ctx *peer = import(cfg, true);
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0, major, qop = 0;
    int conf = -1;

    major = gk5_unwrap(&minor, peer, tok, &out, &conf, &qop);
    expect_ok("the peer refused a token made under failures", major, minor);
    expect_message(&out, msg);
    gk5_buffer_release(&out);
    gk5_ctx_free(peer);
}

static void peer_verifies(const struct fuzz_cfg *cfg, const gk5_buffer *tok,
                          const gk5_buffer *msg)
{
    gk5_ctx *peer = import(cfg, true);
    uint32_t minor = 0, major, qop = 0;

    major = gk5_verify_mic(&minor, peer, msg, tok, &qop);
    expect_ok("the peer refused a MIC made under failures", major, minor);
    gk5_ctx_free(peer);
}

/* A token from the peer, made without failures. */
static void peer_token(const struct fuzz_cfg *cfg, bool mic, int conf_req,
                       const gk5_buffer *msg, gk5_buffer *tok)
{
    gk5_ctx *peer = import(cfg, true);
    uint32_t minor = 0, major;

    if (mic) {
        major = gk5_get_mic(&minor, peer, GK5_QOP_DEFAULT, msg, tok);
    } else {
        major =
            gk5_wrap(&minor, peer, conf_req, GK5_QOP_DEFAULT, msg, NULL, tok);
    }
    expect_ok("the peer's token", major, minor);
    gk5_ctx_free(peer);
}

/* ---- The operations ---- */

struct run {
    const struct fuzz_cfg *cfg;
    int conf_req;
    gk5_buffer msg;
    gk5_buffer pristine; /* the receiving context's export */
    gk5_buffer wrapped;  /* the peer's Wrap token */
    gk5_buffer mic;      /* the peer's MIC token */
};

static void op_import_gssd(const struct run *r, long point, bool all)
{
    uint8_t buf[128];
    size_t len = fuzz_gssd_buffer(r->cfg, false, buf, sizeof(buf));
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    arm(point, all);
    major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
    disarm();
    if (major != GK5_S_COMPLETE) {
        refused_cleanly("import_gssd under failures", major, minor, NULL);
        if (ctx != NULL) {
            fuzz_fail("a failed import handed out a context", major, minor);
        }
        return;
    }
    same_state(ctx, &r->pristine, "import_gssd under failures: other state");
    gk5_ctx_free(ctx);
}

/* MIT's lucid context for cfg's receiving side, keyed like the gssd
 * buffer (the acceptor subkey, when there is one, is another seed key). */
static void lucid_for(const struct fuzz_cfg *cfg, gk5_lucid_ctx *l,
                      uint8_t key[64], uint8_t subkey[64])
{
    size_t klen = fuzz_seed_key(cfg->enctype, 0, key, 64);

    memset(l, 0, sizeof(*l));
    l->version = 1;
    l->initiate = cfg->initiator;
    l->send_seq = cfg->initiator ? 1000 : 2000;
    l->recv_seq = cfg->initiator ? 2000 : 1000;
    if (fuzz_rfc1964(cfg->enctype)) {
        l->protocol = 0;
        l->rfc1964_kd.sign_alg = 4;
        l->rfc1964_kd.seal_alg = 2;
        l->rfc1964_kd.ctx_key.type = cfg->enctype;
        l->rfc1964_kd.ctx_key.length = (uint32_t)klen;
        l->rfc1964_kd.ctx_key.data = key;
        return;
    }
    l->protocol = 1;
    l->cfx_kd.ctx_key.type = cfg->enctype;
    l->cfx_kd.ctx_key.length = (uint32_t)klen;
    l->cfx_kd.ctx_key.data = key;
    if (cfg->acceptor_subkey) {
        l->cfx_kd.have_acceptor_subkey = 1;
        l->cfx_kd.acceptor_subkey.type = cfg->enctype;
        l->cfx_kd.acceptor_subkey.length =
            (uint32_t)fuzz_seed_key(cfg->enctype, 1, subkey, 64);
        l->cfx_kd.acceptor_subkey.data = subkey;
    }
}

static void op_import_lucid(const struct run *r, long point, bool all)
{
    uint8_t key[64], subkey[64];
    gk5_lucid_ctx l;
    gk5_buffer want = {0, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    lucid_for(r->cfg, &l, key, subkey);
    major = gk5_ctx_import_lucid(&minor, &l, &ctx);
    expect_ok("lucid import without failures", major, minor);
    snapshot(ctx, &want);
    gk5_ctx_free(ctx);
    ctx = NULL;
    arm(point, all);
    major = gk5_ctx_import_lucid(&minor, &l, &ctx);
    disarm();
    if (major != GK5_S_COMPLETE) {
        refused_cleanly("import_lucid under failures", major, minor, NULL);
        if (ctx != NULL) {
            fuzz_fail("a failed import handed out a context", major, minor);
        }
    } else {
        same_state(ctx, &want, "import_lucid under failures: other state");
        gk5_ctx_free(ctx);
    }
    gk5_buffer_release(&want);
}

static void op_import(const struct run *r, long point, bool all)
{
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    arm(point, all);
    major = gk5_ctx_import(&minor, r->pristine.value, r->pristine.length, &ctx);
    disarm();
    if (major != GK5_S_COMPLETE) {
        refused_cleanly("import under failures", major, minor, NULL);
        if (ctx != NULL) {
            fuzz_fail("a failed import handed out a context", major, minor);
        }
        return;
    }
    same_state(ctx, &r->pristine, "import under failures: other state");
    gk5_ctx_free(ctx);
}

static void op_export(const struct run *r, long point, bool all)
{
    gk5_ctx *ctx = import(r->cfg, false);
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0, major;

    arm(point, all);
    major = gk5_ctx_export(&minor, ctx, &out);
    disarm();
    if (major != GK5_S_COMPLETE) {
        refused_cleanly("export under failures", major, minor, &out);
    } else if (out.length != r->pristine.length ||
               memcmp(out.value, r->pristine.value, out.length) != 0) {
        fuzz_fail("export under failures: other bytes", 0, 0);
    }
    gk5_buffer_release(&out);
    same_state(ctx, &r->pristine, "export under failures changed the context");
    gk5_ctx_free(ctx);
}

/* wrap and get_mic: on failure nothing sent and the counter unchanged;
 * without failures the next token is the one the peer expects. */
static void op_send(const struct run *r, bool mic, long point, bool all)
{
    gk5_ctx *ctx = import(r->cfg, false);
    gk5_buffer tok = {0, NULL};
    uint32_t minor = 0, major;
    int conf = -1;

    arm(point, all);
    if (mic) {
        major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &r->msg, &tok);
    } else {
        major = gk5_wrap(&minor, ctx, r->conf_req, GK5_QOP_DEFAULT, &r->msg,
                         &conf, &tok);
    }
    disarm();
    if (major != GK5_S_COMPLETE) {
        refused_cleanly(mic ? "get_mic under failures" : "wrap under failures",
                        major, minor, &tok);
        same_state(ctx, &r->pristine, "a failed send moved the context");
        if (mic) {
            major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &r->msg, &tok);
        } else {
            major = gk5_wrap(&minor, ctx, r->conf_req, GK5_QOP_DEFAULT, &r->msg,
                             &conf, &tok);
        }
        expect_ok("the send after a failed one", major, minor);
    }
    if (mic) {
        peer_verifies(r->cfg, &tok, &r->msg);
    } else {
        peer_unwraps(r->cfg, &tok, &r->msg);
    }
    gk5_buffer_release(&tok);
    gk5_ctx_free(ctx);
}

/* unwrap and verify_mic of the peer's token: on failure the window is
 * unchanged, so the same token is then accepted. */
static void op_receive(const struct run *r, bool mic, long point, bool all)
{
    gk5_ctx *ctx = import(r->cfg, false);
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0, major, qop = 0;
    int conf = -1;

    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt == 0) {
            arm(point, all);
        }
        if (mic) {
            major = gk5_verify_mic(&minor, ctx, &r->msg, &r->mic, &qop);
        } else {
            major = gk5_unwrap(&minor, ctx, &r->wrapped, &out, &conf, &qop);
        }
        disarm();
        if (major == GK5_S_COMPLETE) {
            break;
        }
        if (attempt == 1) {
            fuzz_fail("the token was refused after a failed receive", major,
                      minor);
        }
        refused_cleanly(mic ? "verify_mic under failures"
                            : "unwrap under failures",
                        major, minor, &out);
        same_state(ctx, &r->pristine, "a failed receive moved the window");
    }
    if (!mic) {
        expect_message(&out, &r->msg);
    }
    gk5_buffer_release(&out);
    gk5_ctx_free(ctx);
}

static void set_iov(gk5_iov_buffer *b, uint32_t type, void *p, size_t n)
{
    b->type = type;
    b->buffer.value = p;
    b->buffer.length = n;
}

/* wrap_iov with HEADER | DATA | PADDING | TRAILER allocated by gk5. */
static void op_wrap_iov(const struct run *r, long point, bool all)
{
    const uint32_t alloc = GK5_IOV_BUFFER_FLAG_ALLOCATE;
    gk5_ctx *ctx = import(r->cfg, false);
    gk5_iov_buffer iov[4];
    uint8_t *data = fuzz_dup(r->msg.value, r->msg.length);
    gk5_buffer tok = {0, NULL};
    size_t off = 0;
    uint32_t minor = 0, major;
    int conf = -1;

    for (int attempt = 0; attempt < 2; attempt++) {
        set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER | alloc, NULL, 0);
        set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, data, r->msg.length);
        set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING | alloc, NULL, 0);
        set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER | alloc, NULL, 0);
        if (attempt == 0) {
            arm(point, all);
        }
        major = gk5_wrap_iov(&minor, ctx, r->conf_req, GK5_QOP_DEFAULT, &conf,
                             iov, 4);
        disarm();
        if (major == GK5_S_COMPLETE) {
            break;
        }
        if (attempt == 1) {
            fuzz_fail("wrap_iov after a failed one", major, minor);
        }
        refused_cleanly("wrap_iov under failures", major, minor, NULL);
        for (int i = 0; i < 4; i++) {
            if (i != 1 && iov[i].buffer.value != NULL) {
                fuzz_fail("a failed wrap_iov left a buffer allocated", major,
                          minor);
            }
        }
        same_state(ctx, &r->pristine, "a failed wrap_iov moved the context");
        memcpy(data, r->msg.value, r->msg.length); /* sealing is in place */
    }
    for (int i = 0; i < 4; i++) {
        tok.length += iov[i].buffer.length;
    }
    tok.value = fuzz_dup(NULL, tok.length);
    for (int i = 0; i < 4; i++) {
        if (iov[i].buffer.length != 0) {
            memcpy((uint8_t *)tok.value + off, iov[i].buffer.value,
                   iov[i].buffer.length);
            off += iov[i].buffer.length;
        }
    }
    gk5_release_iov(iov, 4);
    peer_unwraps(r->cfg, &tok, &r->msg);
    free(tok.value);
    free(data);
    gk5_ctx_free(ctx);
}

/* unwrap_iov of the peer's token as a STREAM, DATA allocated by gk5. */
static void op_unwrap_iov(const struct run *r, long point, bool all)
{
    gk5_ctx *ctx = import(r->cfg, false);
    gk5_iov_buffer iov[2];
    uint8_t *stream = NULL;
    uint32_t minor = 0, major, qop = 0;
    int conf = -1;

    for (int attempt = 0; attempt < 2; attempt++) {
        free(stream);
        stream = fuzz_dup(r->wrapped.value, r->wrapped.length);
        set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_STREAM, stream, r->wrapped.length);
        set_iov(&iov[1],
                GK5_IOV_BUFFER_TYPE_DATA | GK5_IOV_BUFFER_FLAG_ALLOCATE, NULL,
                0);
        if (attempt == 0) {
            arm(point, all);
        }
        major = gk5_unwrap_iov(&minor, ctx, &conf, &qop, iov, 2);
        disarm();
        if (major == GK5_S_COMPLETE) {
            break;
        }
        if (attempt == 1) {
            fuzz_fail("unwrap_iov after a failed one", major, minor);
        }
        refused_cleanly("unwrap_iov under failures", major, minor, NULL);
        if ((iov[1].type & GK5_IOV_BUFFER_FLAG_ALLOCATED) != 0) {
            fuzz_fail("a failed unwrap_iov left DATA allocated", major, minor);
        }
        same_state(ctx, &r->pristine, "a failed unwrap_iov moved the window");
    }
    expect_message(&iov[1].buffer, &r->msg);
    gk5_release_iov(iov, 2);
    free(stream);
    gk5_ctx_free(ctx);
}

static void run_op(enum op op, const struct run *r, long point, bool all)
{
    switch (op) {
    case OP_IMPORT_GSSD:
        op_import_gssd(r, point, all);
        break;
    case OP_IMPORT:
        op_import(r, point, all);
        break;
    case OP_EXPORT:
        op_export(r, point, all);
        break;
    case OP_WRAP:
    case OP_GET_MIC:
        op_send(r, op == OP_GET_MIC, point, all);
        break;
    case OP_UNWRAP:
    case OP_VERIFY_MIC:
        op_receive(r, op == OP_VERIFY_MIC, point, all);
        break;
    case OP_WRAP_IOV:
        op_wrap_iov(r, point, all);
        break;
    case OP_UNWRAP_IOV:
        op_unwrap_iov(r, point, all);
        break;
    case OP_IMPORT_LUCID:
        op_import_lucid(r, point, all);
        break;
    case OP__COUNT:
        break;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static uint8_t warm[] = "warm up";

    (void)argc;
    (void)argv;
    /* Before anything allocates through OpenSSL. */
    fuzz_alloc_fail_install();
    fuzz_init();
    /* One pass of every operation without failures, so that OpenSSL's
     * one-time setup (algorithm fetches, the random generator, the
     * confounder pool) is done and every input sees the same allocations. */
    for (uint8_t e = 0; e < FUZZ_N_ENCTYPES; e++) {
        const uint8_t in[] = {e, 0x08};
        const uint8_t *p = in;
        size_t n = sizeof(in);
        struct fuzz_cfg cfg;
        uint8_t b1 = 0;
        struct run r;

        if (!fuzz_take_cfg(&p, &n, &cfg, &b1)) {
            continue;
        }
        memset(&r, 0, sizeof(r));
        r.cfg = &cfg;
        r.conf_req = 1;
        r.msg.length = sizeof(warm);
        r.msg.value = warm;
        gk5_ctx *ctx = import(&cfg, false);

        snapshot(ctx, &r.pristine);
        gk5_ctx_free(ctx);
        peer_token(&cfg, false, 1, &r.msg, &r.wrapped);
        peer_token(&cfg, true, 0, &r.msg, &r.mic);
        for (int op = 0; op < OP__COUNT; op++) {
            run_op((enum op)op, &r, -1, false);
        }
        gk5_buffer_release(&r.pristine);
        gk5_buffer_release(&r.wrapped);
        gk5_buffer_release(&r.mic);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    struct run r;
    uint8_t b1 = 0;
    enum op op;
    gk5_ctx *ctx;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1) || size < 1) {
        return 0;
    }
    op = (enum op)(data[0] % OP__COUNT);
    data++;
    size--;
    memset(&r, 0, sizeof(r));
    r.cfg = &cfg;
    r.conf_req = (b1 & FUZZ_B1_CONF) != 0;
    r.msg.length = size < MAX_MESSAGE ? size : MAX_MESSAGE;
    r.msg.value = fuzz_dup(data, r.msg.length);
    ctx = import(&cfg, false);
    snapshot(ctx, &r.pristine);
    gk5_ctx_free(ctx);
    peer_token(&cfg, false, r.conf_req, &r.msg, &r.wrapped);
    peer_token(&cfg, true, 0, &r.msg, &r.mic);

    for (long point = 0; point < MAX_POINT; point++) {
        run_op(op, &r, point, (b1 & B1_FAIL_ALL) != 0);
        if (!fuzz_alloc_fail_hit()) {
            break; /* the operation made fewer than point + 1 allocations */
        }
    }
    if (fuzz_alloc_fail_hit()) {
        fuzz_fail("the failure sweep did not end", 0, 0);
    }
    free(r.msg.value);
    gk5_buffer_release(&r.pristine);
    gk5_buffer_release(&r.wrapped);
    gk5_buffer_release(&r.mic);
    return 0;
}
