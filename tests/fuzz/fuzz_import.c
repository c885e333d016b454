/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_ctx_import, gk5's own versioned context format
 * (derived subkeys, flags, send counter and receive window).
 *
 * Input: u8 (bits 0-1: token count; bit 6: misuse; bit 7: reseal), u64
 * (big-endian) the
 * peer's send sequence number, then the buffer.  With reseal the harness
 * first rewrites the buffer's closing SHA-256 to fit the rest, so that the
 * field checks behind the digest meet mutated fields; without, the digest
 * check itself is fuzzed.  A context that imports must export to bytes
 * that import to the same export, and must take wrap and get_mic.  When it
 * is one of the fixed-key configurations, a peer made from the seed key
 * with that sequence number sends it Wrap tokens, so that imported receive
 * windows (any position, 32- or 64-bit) meet real tokens: each token that
 * is accepted must be reported as a duplicate when replayed (with replay
 * detection on).  With misuse the same buffer is also offered with a NULL
 * output pointer and as a NULL pointer with its length, and an imported
 * context is exported with a NULL output and a NULL context is exported:
 * each must be refused with its own minor code and change nothing.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "fuzz_common.h"

/* The export format's closing digest (src/mech/export.c). */
#define DIGEST_LEN 32

static void reseal(uint8_t *buf, size_t len)
{
    unsigned int n = 0;

    if (len >= DIGEST_LEN &&
        !EVP_Digest(buf, len - DIGEST_LEN, buf + len - DIGEST_LEN, &n,
                    EVP_sha256(), NULL)) {
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static void roundtrip(gk5_ctx *ctx)
{
    gk5_buffer e1 = {0, NULL}, e2 = {0, NULL};
    gk5_ctx *again = NULL;
    uint32_t minor = 0, major;

    major = gk5_ctx_export(&minor, ctx, &e1);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("export of an imported context failed", major, minor);
    }
    major = gk5_ctx_import(&minor, e1.value, e1.length, &again);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("import of our own export failed", major, minor);
    }
    major = gk5_ctx_export(&minor, again, &e2);
    if (major != GK5_S_COMPLETE || e1.length != e2.length ||
        memcmp(e1.value, e2.value, e1.length) != 0) {
        fuzz_fail("export(import(export(ctx))) differs from export(ctx)", major,
                  minor);
    }
    gk5_buffer_release(&e1);
    gk5_buffer_release(&e2);
    gk5_ctx_free(again);
}

#define MODE_MISUSE 0x40u
#define MODE_RESEAL 0x80u

static void expect_refused(const char *what, uint32_t major, uint32_t minor,
                           uint32_t want_major, uint32_t want_minor)
{
    if (major != want_major || GK5_ERR_CODE(minor) != want_minor) {
        fuzz_fail(what, major, minor);
    }
}

static void misuse_import(const uint8_t *buf, size_t len)
{
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    major = gk5_ctx_import(&minor, buf, len, NULL);
    expect_refused("import with a NULL output pointer was not refused", major,
                   minor, GK5_S_FAILURE, GK5_ERR_INVALID_ARGUMENT);
    major = gk5_ctx_import(&minor, NULL, len != 0 ? len : 1, &ctx);
    expect_refused("import of a NULL buffer with a length was not refused",
                   major, minor, GK5_S_FAILURE, GK5_ERR_INVALID_ARGUMENT);
    if (ctx != NULL) {
        fuzz_fail("a refused import wrote a context", major, minor);
    }
    /* Without a minor nothing can be reported, so nothing is made. */
    major = gk5_ctx_import(NULL, buf, len, &ctx);
    if (major != GK5_S_CALL_INACCESSIBLE_WRITE || ctx != NULL) {
        fuzz_fail("an import without a minor made a context", major, 0);
    }
    /* No buffer at all is merely too short. */
    major = gk5_ctx_import(&minor, NULL, 0, &ctx);
    expect_refused("import of nothing was not refused as truncated", major,
                   minor, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_TRUNCATED);
}

static void misuse_export(gk5_ctx *ctx)
{
    gk5_buffer out = {7, (void *)&out};
    uint32_t minor = 0, major;

    major = gk5_ctx_export(&minor, ctx, NULL);
    expect_refused("export to a NULL buffer was not refused", major, minor,
                   GK5_S_FAILURE, GK5_ERR_INVALID_ARGUMENT);
    major = gk5_ctx_export(NULL, ctx, &out);
    if (major != GK5_S_CALL_INACCESSIBLE_WRITE || out.value != NULL) {
        fuzz_fail("an export without a minor made a buffer", major, 0);
    }
    major = gk5_ctx_export(&minor, NULL, &out);
    expect_refused("export of a NULL context was not refused", major, minor,
                   GK5_S_NO_CONTEXT, GK5_ERR_CTX_NO_CONTEXT);
    if (out.length != 0 || out.value != NULL) {
        fuzz_fail("a refused export left its output set", major, minor);
    }
}

static void send_ops(gk5_ctx *ctx)
{
    static const uint8_t text[] = "gk5 fuzz";
    gk5_buffer msg = {sizeof(text), NULL}, tok = {0, NULL};
    uint32_t minor = 0, major;
    int conf = -1;

    msg.value = fuzz_dup(text, sizeof(text));
    major = gk5_wrap(&minor, ctx, 1, GK5_QOP_DEFAULT, &msg, &conf, &tok);
    if (major != GK5_S_COMPLETE && major != GK5_S_CONTEXT_EXPIRED &&
        major != GK5_S_FAILURE) {
        fuzz_fail("wrap on an imported context", major, minor);
    }
    gk5_buffer_release(&tok);
    major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &msg, &tok);
    if (major != GK5_S_COMPLETE && major != GK5_S_CONTEXT_EXPIRED &&
        major != GK5_S_FAILURE) {
        fuzz_fail("get_mic on an imported context", major, minor);
    }
    gk5_buffer_release(&tok);
    free(msg.value);
}

static void receive(gk5_ctx *ctx, const gk5_ctx_info *info, unsigned count,
                    uint64_t peer_seq)
{
    struct fuzz_cfg cfg = {info->enctype, info->initiator != 0,
                           info->acceptor_subkey != 0};
    uint8_t buf[128];
    size_t len;
    gk5_ctx *peer = NULL;
    uint32_t minor = 0, major;

    if (count == 0 || fuzz_enctype_byte(info->enctype) == 0xff ||
        gk5_enctype_check(info->enctype) != 0) {
        return;
    }
    if (!info->cfx) {
        peer_seq &= 0xffffffffu;
    }
    len = fuzz_gssd_buffer_seq(&cfg, true, peer_seq, buf, sizeof(buf));
    if (len == 0 ||
        gk5_ctx_import_gssd(&minor, buf, len, &peer) != GK5_S_COMPLETE) {
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        gk5_buffer msg = {1, NULL}, tok = {0, NULL}, out = {0, NULL};
        uint32_t qop = 0;
        int conf = -1;

        msg.value = fuzz_dup("x", 1);
        major = gk5_wrap(&minor, peer, (int)(i & 1), GK5_QOP_DEFAULT, &msg,
                         &conf, &tok);
        free(msg.value);
        if (major != GK5_S_COMPLETE) {
            break; /* e.g. the peer's sequence numbers ran out */
        }
        major = gk5_unwrap(&minor, ctx, &tok, &out, &conf, &qop);
        gk5_buffer_release(&out);
        if (GK5_ERROR(major) == 0 && (info->flags & GK5_CTX_REPLAY) != 0) {
            /* RFC 2743 1.2.3: a token older than the window is OLD (it
             * cannot be checked for duplication); anything else accepted
             * once is a DUPLICATE the second time. */
            uint32_t want = (major & GK5_S_OLD_TOKEN) != 0
                                ? (GK5_S_OLD_TOKEN | GK5_S_DUPLICATE_TOKEN)
                                : GK5_S_DUPLICATE_TOKEN;
            uint32_t major2 = gk5_unwrap(&minor, ctx, &tok, &out, &conf, &qop);
            gk5_buffer_release(&out);
            if (GK5_ERROR(major2) != 0 || (major2 & want) == 0) {
                fuzz_fail("a replayed token is not reported as a duplicate",
                          major2, minor);
            }
        }
        gk5_buffer_release(&tok);
    }
    gk5_ctx_free(peer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    unsigned mode = fuzz_u8(&in), count = mode % 4;
    uint64_t peer_seq = (uint64_t)fuzz_u32(&in) << 32;
    const uint8_t *p = NULL;
    size_t len;
    uint8_t *buf;
    gk5_ctx *ctx = NULL;
    gk5_ctx_info info;
    uint32_t minor = 0, major;

    fuzz_trace_for(size);

    peer_seq |= fuzz_u32(&in);
    len = fuzz_bytes(&in, &p, in.n);
    buf = fuzz_dup(p, len);
    if ((mode & MODE_RESEAL) != 0) {
        reseal(buf, len);
    }
    if ((mode & MODE_MISUSE) != 0) {
        misuse_import(buf, len);
    }
    major = gk5_ctx_import(&minor, buf, len, &ctx);
    if (major != GK5_S_COMPLETE) {
        if (ctx != NULL) {
            fuzz_fail("import failed but wrote a context", major, minor);
        }
        free(buf);
        return 0;
    }
    if (ctx == NULL) {
        fuzz_fail("import succeeded without a context", major, minor);
    }
    major = gk5_ctx_inquire(&minor, ctx, &info);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("inquire failed on an imported context", major, minor);
    }
    roundtrip(ctx);
    if ((mode & MODE_MISUSE) != 0) {
        misuse_export(ctx);
    }
    receive(ctx, &info, count, peer_seq);
    send_ops(ctx);
    gk5_ctx_free(ctx);
    free(buf);
    return 0;
}
