/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: context import from the two forms a kernel-style
 * consumer is handed -- the rpc.gssd / gssproxy buffer
 * (gk5_ctx_import_gssd: u32 flags, u32 endtime, u64 send_seq, u32 enctype,
 * key; host byte order) and MIT's lucid context (gk5_ctx_import_lucid, the
 * structure gss_krb5_export_lucid_sec_context fills, decoded here from the
 * input field by field).
 *
 * Input: u8 mode (MODE_* below), then the gssd buffer, or the lucid fields
 * (big-endian): u32 version, u32 initiate, u32 endtime, u64 send_seq,
 * u64 recv_seq, u32 protocol, u32 sign_alg, u32 seal_alg, key, u32
 * have_acceptor_subkey, key, key -- each key u32 type, u8 length (bit 7:
 * the data pointer is NULL), that many bytes.
 *
 * A context that imports must behave: inquire agrees with the input, wrap
 * and get_mic work (unless it has expired), export then import gives back
 * the same export.  A refused input must leave no context.  The misuse bits
 * pass a NULL output pointer or a NULL input, which must be refused with
 * GK5_ERR_INVALID_ARGUMENT (gssd: a NULL buffer with a nonzero length), or
 * a NULL minor, which must be GK5_S_CALL_INACCESSIBLE_WRITE with no
 * context made.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MODE_LUCID 0x01u    /* the rest is a lucid context, not a gssd buffer */
#define MODE_NO_OUT 0x02u   /* ctx (the output pointer) is NULL */
#define MODE_NO_IN 0x04u    /* the buffer / the lucid structure is NULL */
#define MODE_NO_MINOR 0x08u /* minor is NULL: the status cannot be given */
#define LUCID_KEY_NULL 0x80u

struct expect {
    bool initiator;
    bool cfx;
    bool acceptor_subkey;
    uint32_t endtime;
    uint64_t send_seq;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static void exercise(gk5_ctx *ctx, const struct expect *want)
{
    static const uint8_t text[] = "gk5 fuzz";
    gk5_ctx_info info;
    gk5_buffer msg = {sizeof(text), NULL}, tok = {0, NULL};
    gk5_buffer e1 = {0, NULL}, e2 = {0, NULL};
    gk5_ctx *again = NULL;
    uint32_t minor = 0, major;
    size_t in_max = 0;
    int conf = -1;

    major = gk5_ctx_inquire(&minor, ctx, &info);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("inquire failed on an imported context", major, minor);
    }
    if ((info.initiator != 0) != want->initiator ||
        (info.cfx != 0) != want->cfx || info.endtime != want->endtime ||
        info.send_seq != want->send_seq ||
        (info.acceptor_subkey != 0) != want->acceptor_subkey) {
        fuzz_fail("inquire disagrees with the imported input", 0, 0);
    }

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
    (void)gk5_wrap_size_limit(&minor, ctx, 1, GK5_QOP_DEFAULT, 1000, &in_max);
    free(msg.value);

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

/* A lucid key: the bytes stay in keybuf (which outlives the import). */
static void take_key(struct fuzz_in *in, gk5_lucid_key *key, uint8_t *keybuf)
{
    uint8_t len;
    const uint8_t *p = NULL;
    size_t got;

    key->type = fuzz_u32(in);
    len = fuzz_u8(in);
    key->length = len & ~LUCID_KEY_NULL;
    got = fuzz_bytes(in, &p, key->length);
    memset(keybuf, 0, 0x80);
    if (got != 0) {
        memcpy(keybuf, p, got);
    }
    key->data = (len & LUCID_KEY_NULL) != 0 ? NULL : keybuf;
}

static uint32_t import_lucid(struct fuzz_in *in, unsigned mode, uint32_t *minor,
                             gk5_ctx **ctx, struct expect *want)
{
    static uint8_t keys[3][0x80];
    gk5_lucid_ctx l;

    memset(&l, 0, sizeof(l));
    l.version = fuzz_u32(in);
    l.initiate = fuzz_u32(in);
    l.endtime = fuzz_u32(in);
    l.send_seq = (uint64_t)fuzz_u32(in) << 32;
    l.send_seq |= fuzz_u32(in);
    l.recv_seq = (uint64_t)fuzz_u32(in) << 32;
    l.recv_seq |= fuzz_u32(in);
    l.protocol = fuzz_u32(in);
    l.rfc1964_kd.sign_alg = fuzz_u32(in);
    l.rfc1964_kd.seal_alg = fuzz_u32(in);
    take_key(in, &l.rfc1964_kd.ctx_key, keys[0]);
    l.cfx_kd.have_acceptor_subkey = fuzz_u32(in);
    take_key(in, &l.cfx_kd.ctx_key, keys[1]);
    take_key(in, &l.cfx_kd.acceptor_subkey, keys[2]);

    want->initiator = l.initiate != 0;
    want->cfx = l.protocol == 1;
    want->acceptor_subkey = want->cfx && l.cfx_kd.have_acceptor_subkey != 0;
    want->endtime = l.endtime;
    want->send_seq = l.send_seq;
    return gk5_ctx_import_lucid(minor, (mode & MODE_NO_IN) != 0 ? NULL : &l,
                                ctx);
}

static uint32_t import_gssd(struct fuzz_in *in, unsigned mode, uint8_t **buf,
                            uint32_t *minor, gk5_ctx **ctx, struct expect *want)
{
    const uint8_t *p = NULL;
    size_t len = fuzz_bytes(in, &p, in->n);
    uint32_t flags = 0;

    *buf = fuzz_dup(p, len);
    if (len >= 20) {
        memcpy(&flags, *buf, 4);
        memcpy(&want->endtime, *buf + 4, 4);
        memcpy(&want->send_seq, *buf + 8, 8);
    }
    want->initiator = (flags & GK5_GSSD_FLAG_INITIATOR) != 0;
    want->cfx = (flags & GK5_GSSD_FLAG_CFX) != 0;
    want->acceptor_subkey = (flags & GK5_GSSD_FLAG_ACCEPTOR_SUBKEY) != 0;
    return gk5_ctx_import_gssd(minor, (mode & MODE_NO_IN) != 0 ? NULL : *buf,
                               len, ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    unsigned mode = fuzz_u8(&in);
    bool misuse =
        (mode & MODE_NO_OUT) != 0 ||
        ((mode & MODE_NO_IN) != 0 && ((mode & MODE_LUCID) != 0 || in.n != 0));
    struct expect want;
    uint8_t *buf = NULL;
    gk5_ctx *ctx = NULL, **out = (mode & MODE_NO_OUT) != 0 ? NULL : &ctx;
    uint32_t major, minor = 0;
    uint32_t *mp = (mode & MODE_NO_MINOR) != 0 ? NULL : &minor;

    fuzz_trace_for(size);

    memset(&want, 0, sizeof(want));
    major = (mode & MODE_LUCID) != 0
                ? import_lucid(&in, mode, mp, out, &want)
                : import_gssd(&in, mode, &buf, mp, out, &want);
    if (mp == NULL) {
        if (major != GK5_S_CALL_INACCESSIBLE_WRITE || ctx != NULL) {
            fuzz_fail("an import without a minor made a context", major, 0);
        }
        free(buf);
        return 0;
    }
    if (misuse && (major != GK5_S_FAILURE ||
                   GK5_ERR_CODE(minor) != GK5_ERR_INVALID_ARGUMENT)) {
        fuzz_fail("an import with a NULL argument was not refused", major,
                  minor);
    }
    if (major == GK5_S_COMPLETE) {
        if (ctx == NULL) {
            fuzz_fail("import succeeded without a context", major, minor);
        }
        exercise(ctx, &want);
    } else if (ctx != NULL) {
        fuzz_fail("import failed but wrote a context", major, minor);
    }
    gk5_ctx_free(ctx);
    free(buf);
    return 0;
}
