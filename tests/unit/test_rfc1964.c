/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 1964 MIC and Wrap tokens for DES3 (-Ddes3=true).
 *
 * Checked against MIT krb5's fixed-key tokens (t_invalid.c, in
 * tests/vectors/mit_gss_tokens_des3.txt) and against an independent
 * decoder/encoder written here on OpenSSL's DES-EDE3-CBC and gk5's public
 * RFC 3961 checksum (hmac-sha1-des3-kd, usage 23), which is itself first
 * checked to reproduce MIT's tokens byte for byte.
 *
 * In a default build DES3 must be refused at import, saying it is not
 * built (-Ddes3=true); every other test is then skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "v1forge.h"
#include "vecfile.h"

#ifdef GK5_WITH_DES3
#define DES3_BUILT 1
#else
#define DES3_BUILT 0
#endif

#define VECTORS "mit_gss_tokens_des3.txt"

/* Lucid export labels a DES3 session key des3-cbc-raw (6); the gssd
 * buffer and t_invalid.c say 16.  Both must work. */
#define ET_DES3 16
#define ET_DES3_RAW 6
#define KEY_BYTES 24

/* ---- the MIT vectors, loaded once ---- */

enum vop { OP_VERIFY_MIC, OP_UNWRAP };

struct mitvec {
    char name[32];
    int32_t enctype;
    uint8_t key[KEY_BYTES];
    int initiate;
    enum vop op;
    uint32_t expect;
    int conf;
    uint8_t msg[64];
    size_t msg_len;
    uint8_t token[128];
    size_t token_len;
};

#define MAX_VECS 8
static struct mitvec vecs[MAX_VECS];
static size_t nvecs;

static uint32_t major_from_name(const char *s)
{
    if (strcmp(s, "GSS_S_COMPLETE") == 0) {
        return GK5_S_COMPLETE;
    }
    if (strcmp(s, "GSS_S_BAD_SIG") == 0) {
        return GK5_S_BAD_SIG;
    }
    if (strcmp(s, "GSS_S_DEFECTIVE_TOKEN") == 0) {
        return GK5_S_DEFECTIVE_TOKEN;
    }
    fail_msg("unknown major status name %s", s);
    return GK5_S_FAILURE;
}

static void copy_bytes(vec_block *b, const char *field, uint8_t *dst,
                       size_t cap, size_t *len)
{
    const uint8_t *p = NULL;
    size_t n = vec_bytes(b, field, &p);

    if (n > cap) {
        fail_msg("%s: %s too long", vec_where(b), field);
    }
    memcpy(dst, p, n);
    *len = n;
}

/* Reads every field of one block into v. */
static void parse_block(vec_block *b, struct mitvec *v)
{
    const char *op;
    size_t klen = 0;

    memset(v, 0, sizeof(*v));
    snprintf(v->name, sizeof(v->name), "%s", vec_str(b, "name"));
    v->enctype = (int32_t)vec_int(b, "enctype", 1, 65535);
    copy_bytes(b, "key", v->key, sizeof(v->key), &klen);
    assert_int_equal(klen, KEY_BYTES);
    v->initiate = (int)vec_int(b, "initiate", 0, 1);
    op = vec_str(b, "op");
    if (strcmp(op, "verify_mic") == 0) {
        v->op = OP_VERIFY_MIC;
    } else if (strcmp(op, "unwrap") == 0) {
        v->op = OP_UNWRAP;
    } else {
        fail_msg("%s: unknown op %s", vec_where(b), op);
    }
    v->expect = major_from_name(vec_str(b, "expect"));
    v->conf = (int)vec_int(b, "conf", 0, 1);
    copy_bytes(b, "msg", v->msg, sizeof(v->msg), &v->msg_len);
    copy_bytes(b, "token", v->token, sizeof(v->token), &v->token_len);
    vec_done(b);
}

static void load_vectors(void)
{
    vec_file *f;
    vec_block *b;

    if (nvecs != 0) {
        return;
    }
    f = vec_open(VECTORS);
    while ((b = vec_next(f)) != NULL) {
        if (nvecs == MAX_VECS) {
            fail_msg("%s: too many blocks", VECTORS);
        }
        parse_block(b, &vecs[nvecs++]);
    }
    vec_close(f);
    assert_int_equal(nvecs, 4);
}

static const struct mitvec *vec_named(const char *name)
{
    load_vectors();
    for (size_t i = 0; i < nvecs; i++) {
        if (strcmp(vecs[i].name, name) == 0) {
            return &vecs[i];
        }
    }
    fail_msg("no vector %s", name);
    return NULL;
}

/* ---- contexts ---- */

static void skip_unless_built(void)
{
    if (!DES3_BUILT) {
        skip();
    }
}

static gk5_ctx *ctx_lucid(const uint8_t key[KEY_BYTES], int32_t enctype,
                          int initiate, uint64_t send_seq, uint64_t recv_seq)
{
    gk5_lucid_ctx l;
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;
    uint32_t major;

    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.initiate = (uint32_t)initiate;
    l.endtime = 0;
    l.send_seq = send_seq;
    l.recv_seq = recv_seq;
    l.protocol = 0;
    l.rfc1964_kd.sign_alg = 4;
    l.rfc1964_kd.seal_alg = 2;
    l.rfc1964_kd.ctx_key.type = (uint32_t)enctype;
    l.rfc1964_kd.ctx_key.length = KEY_BYTES;
    l.rfc1964_kd.ctx_key.data = key;
    major = gk5_ctx_import_lucid(&minor, &l, &ctx);
    if (major != GK5_S_COMPLETE) {
        fail_msg("lucid import: %s", gk5_display_status(major, minor));
    }
    return ctx;
}

/* The rpc.gssd buffer: u32 flags, u32 endtime, u64 send_seq, u32 enctype,
 * key; host byte order, no padding. */
static size_t gssd_buffer(uint8_t *buf, const uint8_t key[KEY_BYTES],
                          int32_t enctype, int initiate, uint64_t send_seq)
{
    uint32_t flags = initiate ? GK5_GSSD_FLAG_INITIATOR : 0;
    uint32_t endtime = 0;
    uint32_t et = (uint32_t)enctype;
    size_t off = 0;

    memcpy(buf + off, &flags, 4);
    off += 4;
    memcpy(buf + off, &endtime, 4);
    off += 4;
    memcpy(buf + off, &send_seq, 8);
    off += 8;
    memcpy(buf + off, &et, 4);
    off += 4;
    memcpy(buf + off, key, KEY_BYTES);
    return off + KEY_BYTES;
}

static gk5_ctx *ctx_gssd(const uint8_t key[KEY_BYTES], int32_t enctype,
                         int initiate, uint64_t send_seq)
{
    uint8_t buf[64];
    size_t len = gssd_buffer(buf, key, enctype, initiate, send_seq);
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;
    uint32_t major;

    assert_int_equal(len, 44);
    major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
    if (major != GK5_S_COMPLETE) {
        fail_msg("gssd import: %s", gk5_display_status(major, minor));
    }
    return ctx;
}

/* MIT's t_invalid.c receives with g_seqstate_init(do_replay = 0,
 * do_sequence = 0): any sequence number is accepted without comment (its
 * tokens carry 0, 0, 1 and an arbitrary number).  The same here. */
static void no_seq_reports(gk5_ctx *ctx)
{
    uint32_t minor = 0;

    assert_int_equal(gk5_ctx_set_flags(&minor, ctx, 0), GK5_S_COMPLETE);
}

/* Export bytes, to show that a call changed nothing in the context. */
static gk5_buffer ctx_snapshot(gk5_ctx *ctx)
{
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0;
    uint32_t major = gk5_ctx_export(&minor, ctx, &out);

    if (major != GK5_S_COMPLETE) {
        fail_msg("export: %s", gk5_display_status(major, minor));
    }
    return out;
}

static void assert_same_snapshot(gk5_buffer *a, gk5_buffer *b)
{
    assert_int_equal(a->length, b->length);
    assert_memory_equal(a->value, b->value, a->length);
}

/* ---- an independent RFC 1964 decoder/encoder (OpenSSL + public API) ---- */

static void des3_cbc(const uint8_t key[KEY_BYTES], const uint8_t *iv,
                     uint8_t *buf, size_t len, int enc)
{
    assert_true(gk5t_des3_cbc(key, iv, buf, len, enc));
}

static void v1_cksum(const uint8_t key[KEY_BYTES], const uint8_t *hdr8,
                     const uint8_t *rest, size_t rest_len, uint8_t out[20])
{
    assert_true(gk5t_v1_cksum(key, hdr8, rest, rest_len, out));
}

struct v1_tok {
    size_t inner; /* offset of TOK_ID */
    uint16_t tok_id, sgn_alg, seal_alg;
    uint32_t seq;
    uint8_t dir[4];
    bool cksum_ok;
    uint8_t plain[2048]; /* wrap: confounder | data | pad, deciphered */
    size_t plain_len;
};

/* Decodes a well-framed token; for a MIC, msg is the message. */
static void v1_decode(const uint8_t key[KEY_BYTES], const uint8_t *tok,
                      size_t len, const uint8_t *msg, size_t msg_len,
                      struct v1_tok *out)
{
    size_t dlen, off;
    const uint8_t *t;
    uint8_t seqb[8], ck[20];

    memset(out, 0, sizeof(*out));
    assert_true(len > 2);
    assert_int_equal(tok[0], 0x60);
    if (tok[1] < 0x80) {
        dlen = tok[1];
        off = 2;
    } else if (tok[1] == 0x81) {
        dlen = tok[2];
        off = 3;
    } else {
        assert_int_equal(tok[1], 0x82);
        dlen = (size_t)tok[2] << 8 | tok[3];
        off = 4;
    }
    assert_int_equal(off + dlen, len);
    assert_memory_equal(tok + off, gk5t_krb5_oid_der,
                        sizeof(gk5t_krb5_oid_der));
    out->inner = off + sizeof(gk5t_krb5_oid_der);
    t = tok + out->inner;
    assert_true(len - out->inner >= 36);
    out->tok_id = (uint16_t)(t[0] << 8 | t[1]);
    out->sgn_alg = (uint16_t)(t[2] | t[3] << 8);
    out->seal_alg = (uint16_t)(t[4] | t[5] << 8);
    assert_int_equal(t[6], 0xff);
    assert_int_equal(t[7], 0xff);
    memcpy(seqb, t + 8, 8);
    des3_cbc(key, t + 16, seqb, 8, 0);
    out->seq = (uint32_t)seqb[0] | (uint32_t)seqb[1] << 8 |
               (uint32_t)seqb[2] << 16 | (uint32_t)seqb[3] << 24;
    memcpy(out->dir, seqb + 4, 4);
    if (out->tok_id == 0x0201) {
        out->plain_len = len - out->inner - 36;
        assert_true(out->plain_len <= sizeof(out->plain));
        memcpy(out->plain, t + 36, out->plain_len);
        if (out->seal_alg == 0x0002) {
            des3_cbc(key, NULL, out->plain, out->plain_len, 0);
        }
        v1_cksum(key, t, out->plain, out->plain_len, ck);
    } else {
        assert_int_equal(len - out->inner, 36);
        v1_cksum(key, t, msg, msg_len, ck);
    }
    out->cksum_ok = memcmp(ck, t + 16, 20) == 0;
}

/* A token made field by field (v1forge.c: RFC 1964 as MIT makes it, with
 * any field the caller's, to make tokens gk5 must refuse). */
static size_t v1_encode(const uint8_t key[KEY_BYTES], uint16_t tok_id,
                        uint16_t seal_alg, uint32_t seq, const uint8_t dir[4],
                        const uint8_t *body, size_t body_len, uint8_t *out,
                        size_t cap)
{
    size_t n = gk5t_v1_encode(key, tok_id, seal_alg, seq, dir, body, body_len,
                              out, cap);

    assert_true(n != 0);
    return n;
}

/* ---- calls ---- */

/* gk5_buffer's pointer is not const (it is gss_buffer_desc); the calls
 * only read their inputs. */
static void *unconst(const void *p)
{
    void *q;

    memcpy(&q, &p, sizeof(q));
    return q;
}

static uint32_t do_unwrap(gk5_ctx *ctx, const uint8_t *tok, size_t len,
                          gk5_buffer *out, int *conf, uint32_t *minor)
{
    gk5_buffer in = {len, unconst(tok)};
    uint32_t qop = 99;
    uint32_t major;

    *minor = 0;
    out->length = 0;
    out->value = NULL;
    *conf = -1;
    major = gk5_unwrap(minor, ctx, &in, out, conf, &qop);
    if (GK5_ERROR(major) == 0) {
        assert_int_equal(qop, GK5_QOP_DEFAULT);
    }
    return major;
}

static uint32_t do_verify(gk5_ctx *ctx, const uint8_t *msg, size_t msg_len,
                          const uint8_t *tok, size_t len, uint32_t *minor)
{
    gk5_buffer m = {msg_len, unconst(msg)};
    gk5_buffer t = {len, unconst(tok)};
    uint32_t qop = 99;

    *minor = 0;
    return gk5_verify_mic(minor, ctx, &m, &t, &qop);
}

static void wrap_ok(gk5_ctx *ctx, int conf, const uint8_t *msg, size_t len,
                    gk5_buffer *out)
{
    gk5_buffer in = {len, unconst(msg)};
    uint32_t minor = 0;
    int conf_state = -1;
    uint32_t major =
        gk5_wrap(&minor, ctx, conf, GK5_QOP_DEFAULT, &in, &conf_state, out);

    if (major != GK5_S_COMPLETE) {
        fail_msg("wrap: %s", gk5_display_status(major, minor));
    }
    assert_int_equal(conf_state, conf);
}

static void mic_ok(gk5_ctx *ctx, const uint8_t *msg, size_t len,
                   gk5_buffer *out)
{
    gk5_buffer in = {len, unconst(msg)};
    uint32_t minor = 0;
    uint32_t major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &in, out);

    if (major != GK5_S_COMPLETE) {
        fail_msg("get_mic: %s", gk5_display_status(major, minor));
    }
}

static uint8_t *hex_alloc(const char *hex, size_t *len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *p = malloc(n + 1);

    assert_non_null(p);
    assert_int_equal(strlen(hex) % 2, 0);
    for (size_t i = 0; i < n; i++) {
        unsigned int byte = 0;

        assert_int_equal(sscanf(hex + 2 * i, "%2x", &byte), 1);
        p[i] = (uint8_t)byte;
    }
    *len = n;
    return p;
}

static bool refused(uint32_t major)
{
    uint32_t r = GK5_ROUTINE_ERROR(major);

    return (r == GK5_S_BAD_SIG || r == GK5_S_DEFECTIVE_TOKEN) &&
           GK5_SUPPLEMENTARY_INFO(major) == 0;
}

/* ================= tests ================= */

/* Default build: DES3 is refused at import, by both entry points and both
 * numbers, in words that say why. */
static void test_des3_import(void **state)
{
    static const uint8_t key[KEY_BYTES] = {1, 2, 3};
    const int32_t ets[] = {ET_DES3, ET_DES3_RAW};

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        gk5_lucid_ctx l;
        uint8_t buf[64];
        size_t len = gssd_buffer(buf, key, ets[i], 1, 0);
        gk5_ctx *ctx = NULL;
        uint32_t minor = 0;
        uint32_t major;

        major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
        if (DES3_BUILT) {
            assert_int_equal(major, GK5_S_COMPLETE);
            assert_non_null(ctx);
            gk5_ctx_free(ctx);
        } else {
            const char *words = gk5_display_status(major, minor);

            assert_int_equal(major, GK5_S_UNAVAILABLE);
            assert_null(ctx);
            assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_ENCTYPE_NOT_BUILT);
            assert_int_equal(GK5_ERR_ENCTYPE(minor), ets[i]);
            if (strstr(words, "not built (-Ddes3=true)") == NULL) {
                fail_msg("gssd import of %d: words \"%s\"", (int)ets[i], words);
            }
        }

        memset(&l, 0, sizeof(l));
        l.version = 1;
        l.initiate = 0;
        l.protocol = 0;
        l.rfc1964_kd.sign_alg = 4;
        l.rfc1964_kd.seal_alg = 2;
        l.rfc1964_kd.ctx_key.type = (uint32_t)ets[i];
        l.rfc1964_kd.ctx_key.length = KEY_BYTES;
        l.rfc1964_kd.ctx_key.data = key;
        ctx = NULL;
        major = gk5_ctx_import_lucid(&minor, &l, &ctx);
        if (DES3_BUILT) {
            gk5_ctx_info info;

            assert_int_equal(major, GK5_S_COMPLETE);
            assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info),
                             GK5_S_COMPLETE);
            assert_int_equal(info.enctype, ET_DES3);
            assert_int_equal(info.cfx, 0);
            assert_int_equal(info.initiator, 0);
            gk5_ctx_free(ctx);
        } else {
            const char *words = gk5_display_status(major, minor);

            assert_int_equal(major, GK5_S_UNAVAILABLE);
            assert_null(ctx);
            assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_ENCTYPE_NOT_BUILT);
            if (strstr(words, "not built (-Ddes3=true)") == NULL) {
                fail_msg("lucid import of %d: words \"%s\"", (int)ets[i],
                         words);
            }
        }
    }
}

/* MIT's tokens: expected result through every import path and API. */
static void run_vector(vec_tally *t, const vec_block *b, const struct mitvec *v,
                       gk5_ctx *ctx, int api)
{
    uint32_t minor = 0;
    uint32_t major;
    char what[96];

    snprintf(what, sizeof(what), "%s api %d major", v->name, api);
    if (v->op == OP_VERIFY_MIC) {
        if (api == 0) {
            major = do_verify(ctx, v->msg, v->msg_len, v->token, v->token_len,
                              &minor);
        } else {
            gk5_iov_buffer iov[2];
            uint32_t qop = 99;

            iov[0].type = GK5_IOV_BUFFER_TYPE_DATA;
            iov[0].buffer.length = v->msg_len;
            iov[0].buffer.value = unconst(v->msg);
            iov[1].type = GK5_IOV_BUFFER_TYPE_MIC_TOKEN;
            iov[1].buffer.length = v->token_len;
            iov[1].buffer.value = unconst(v->token);
            major = gk5_verify_mic_iov(&minor, ctx, &qop, iov, 2);
        }
        vec_check_rc(t, b, what, major, v->expect);
        return;
    }
    if (api == 0) {
        gk5_buffer out;
        int conf;

        major = do_unwrap(ctx, v->token, v->token_len, &out, &conf, &minor);
        vec_check_rc(t, b, what, major, v->expect);
        if (major == GK5_S_COMPLETE) {
            vec_check_bytes(t, b, "message", out.value, out.length, v->msg,
                            v->msg_len);
            vec_check_rc(t, b, "conf_state", (uint32_t)conf, (uint32_t)v->conf);
        } else {
            vec_check_size(t, b, "output on failure", out.length, 0);
        }
        gk5_buffer_release(&out);
    } else {
        /* api 1: STREAM | DATA; api 2: HEADER | DATA | PADDING split at
         * the known message length (one 8-byte block after the
         * confounder). */
        uint8_t copy[128];
        gk5_iov_buffer iov[3];
        int conf = -1;
        uint32_t qop = 99;
        int n;

        memcpy(copy, v->token, v->token_len);
        if (api == 1) {
            iov[0].type = GK5_IOV_BUFFER_TYPE_STREAM;
            iov[0].buffer.length = v->token_len;
            iov[0].buffer.value = copy;
            iov[1].type = GK5_IOV_BUFFER_TYPE_DATA;
            iov[1].buffer.length = 0;
            iov[1].buffer.value = NULL;
            n = 2;
        } else {
            iov[0].type = GK5_IOV_BUFFER_TYPE_HEADER;
            iov[0].buffer.length = v->token_len - 8;
            iov[0].buffer.value = copy;
            iov[1].type = GK5_IOV_BUFFER_TYPE_DATA;
            iov[1].buffer.length = 7;
            iov[1].buffer.value = copy + v->token_len - 8;
            iov[2].type = GK5_IOV_BUFFER_TYPE_PADDING;
            iov[2].buffer.length = 1;
            iov[2].buffer.value = copy + v->token_len - 1;
            n = 3;
        }
        major = gk5_unwrap_iov(&minor, ctx, &conf, &qop, iov, n);
        vec_check_rc(t, b, what, major, v->expect);
        if (major == GK5_S_COMPLETE) {
            vec_check_bytes(t, b, "message", iov[1].buffer.value,
                            iov[1].buffer.length, v->msg, v->msg_len);
            vec_check_rc(t, b, "conf_state", (uint32_t)conf, (uint32_t)v->conf);
            if (api == 2) {
                vec_check_size(t, b, "padding after unwrap",
                               iov[2].buffer.length, 0);
            }
        } else if (v->conf) {
            /* Nothing deciphered is left behind. */
            static const uint8_t zero[16] = {0};

            vec_check_bytes(t, b, "wiped body", copy + v->token_len - 16, 16,
                            zero, 16);
        }
    }
}

static void test_mit_vectors(void **state)
{
    vec_tally t;
    vec_file *f;
    vec_block *b;

    (void)state;
    vec_tally_init(&t, VECTORS);
    f = vec_open(VECTORS);
    while ((b = vec_next(f)) != NULL) {
        struct mitvec vb;
        const struct mitvec *v = &vb;

        parse_block(b, &vb);
        if (vec_enctype_state(b, vb.enctype) != VEC_ET_BUILT) {
            vec_tally_skip(&t);
            continue;
        }
        /* lucid with 16 and with 6 (as MIT exports it), gssd with 16 and 6;
         * each through the contiguous and the IOV calls. */
        for (int path = 0; path < 4; path++) {
            for (int api = 0; api < (v->op == OP_UNWRAP ? 3 : 2); api++) {
                int32_t e = (path % 2 == 0) ? v->enctype : ET_DES3_RAW;
                gk5_ctx *ctx = path < 2
                                   ? ctx_lucid(v->key, e, v->initiate, 0, 0)
                                   : ctx_gssd(v->key, e, v->initiate, 0);

                no_seq_reports(ctx);
                run_vector(&t, b, v, ctx, api);
                gk5_ctx_free(ctx);
            }
        }
        vec_tally_end(&t);
    }
    vec_close(f);
    vec_tally_finish(&t);
}

/* The independent decoder and encoder reproduce MIT's tokens exactly, so
 * they can be trusted to judge gk5's. */
static void test_reference_codec(void **state)
{
    static const char *const names[] = {"mic", "wrap-noconf", "wrap-conf",
                                        "wrap-bad-pad"};
    static const uint8_t dir0[4] = {0, 0, 0, 0};

    (void)state;
    skip_unless_built();
    for (size_t i = 0; i < 4; i++) {
        const struct mitvec *v = vec_named(names[i]);
        struct v1_tok d;
        uint8_t again[128];
        size_t len;

        v1_decode(v->key, v->token, v->token_len, v->msg, v->msg_len, &d);
        assert_true(d.cksum_ok);
        assert_memory_equal(d.dir, dir0, 4); /* from the initiator */
        assert_int_equal(d.sgn_alg, 0x0004);
        if (v->op == OP_VERIFY_MIC) {
            assert_int_equal(d.tok_id, 0x0101);
            assert_int_equal(d.seal_alg, 0xffff);
            len = v1_encode(v->key, 0x0101, 0xffff, d.seq, dir0, v->msg,
                            v->msg_len, again, sizeof(again));
        } else {
            assert_int_equal(d.tok_id, 0x0201);
            assert_int_equal(d.seal_alg, v->conf ? 0x0002 : 0xffff);
            assert_int_equal(d.plain_len, 16);
            if (v->msg_len != 0) {
                assert_memory_equal(d.plain + 8, v->msg, v->msg_len);
                assert_int_equal(d.plain[15], 1);
            } else {
                assert_int_equal(d.plain[15], 100); /* the bad pad */
            }
            len = v1_encode(v->key, 0x0201, d.seal_alg, d.seq, dir0, d.plain,
                            d.plain_len, again, sizeof(again));
        }
        assert_int_equal(len, v->token_len);
        assert_memory_equal(again, v->token, len);
    }
}

/* Every byte of each good token changed, each way: refused, and the
 * receiver's state is exactly what it was. */
static void test_byte_flips(void **state)
{
    static const char *const names[] = {"mic", "wrap-noconf", "wrap-conf"};
    static const uint8_t masks[] = {0x01, 0x80, 0xff};

    (void)state;
    skip_unless_built();
    for (size_t i = 0; i < 3; i++) {
        const struct mitvec *v = vec_named(names[i]);
        gk5_ctx *ctx = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
        gk5_buffer before, after;
        uint8_t tok[128];
        uint8_t msg[64];

        no_seq_reports(ctx);
        before = ctx_snapshot(ctx);
        uint32_t minor;
        uint32_t major;

        for (size_t pos = 0; pos < v->token_len; pos++) {
            for (size_t m = 0; m < sizeof(masks); m++) {
                memcpy(tok, v->token, v->token_len);
                tok[pos] ^= masks[m];
                if (v->op == OP_VERIFY_MIC) {
                    major = do_verify(ctx, v->msg, v->msg_len, tok,
                                      v->token_len, &minor);
                } else {
                    gk5_buffer out;
                    int conf;

                    major =
                        do_unwrap(ctx, tok, v->token_len, &out, &conf, &minor);
                    assert_int_equal(out.length, 0);
                    gk5_buffer_release(&out);
                }
                if (!refused(major)) {
                    fail_msg("%s: byte %zu ^ 0x%02x: %s", v->name, pos,
                             masks[m], gk5_display_status(major, minor));
                }
            }
        }
        /* The message is covered too. */
        for (size_t pos = 0; pos < v->msg_len && v->op == OP_VERIFY_MIC;
             pos++) {
            memcpy(msg, v->msg, v->msg_len);
            msg[pos] ^= 0x01;
            major =
                do_verify(ctx, msg, v->msg_len, v->token, v->token_len, &minor);
            assert_int_equal(major, GK5_S_BAD_SIG);
        }
        after = ctx_snapshot(ctx);
        assert_same_snapshot(&before, &after);
        gk5_buffer_release(&after);
        gk5_buffer_release(&before);

        /* Still the first token this context has seen. */
        if (v->op == OP_VERIFY_MIC) {
            major = do_verify(ctx, v->msg, v->msg_len, v->token, v->token_len,
                              &minor);
        } else {
            gk5_buffer out;
            int conf;

            major = do_unwrap(ctx, v->token, v->token_len, &out, &conf, &minor);
            gk5_buffer_release(&out);
        }
        assert_int_equal(major, GK5_S_COMPLETE);
        gk5_ctx_free(ctx);
    }
}

/* Truncated at every length, a byte appended, lengths rewritten. */
static void test_lengths(void **state)
{
    static const char *const names[] = {"mic", "wrap-noconf", "wrap-conf"};

    (void)state;
    skip_unless_built();
    for (size_t i = 0; i < 3; i++) {
        const struct mitvec *v = vec_named(names[i]);
        gk5_ctx *ctx = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
        uint8_t tok[160];
        uint32_t minor = 0;
        uint32_t major;

        for (size_t len = 0; len <= v->token_len + 1; len++) {
            if (len == v->token_len) {
                continue;
            }
            memcpy(tok, v->token, v->token_len);
            tok[v->token_len] = 0;
            if (v->op == OP_VERIFY_MIC) {
                major = do_verify(ctx, v->msg, v->msg_len, tok, len, &minor);
            } else {
                gk5_buffer out;
                int conf;

                major = do_unwrap(ctx, tok, len, &out, &conf, &minor);
                gk5_buffer_release(&out);
            }
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
            if (len > v->token_len) {
                assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_TRAILING);
            }
        }
        if (v->op == OP_UNWRAP) {
            /* One block dropped and the DER length made to agree: well
             * framed, but the checksum no longer matches. */
            gk5_buffer out;
            int conf;

            memcpy(tok, v->token, v->token_len);
            tok[1] = (uint8_t)(tok[1] - 8);
            major = do_unwrap(ctx, tok, v->token_len - 8, &out, &conf, &minor);
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN); /* < 1 block */
            gk5_buffer_release(&out);
            /* One byte dropped, length agreeing: not whole blocks. */
            memcpy(tok, v->token, v->token_len);
            tok[1] = (uint8_t)(tok[1] - 1);
            major = do_unwrap(ctx, tok, v->token_len - 1, &out, &conf, &minor);
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
            gk5_buffer_release(&out);
            /* A non-minimal DER length (0x81 0x3f): not DER. */
            tok[0] = 0x60;
            tok[1] = 0x81;
            memcpy(tok + 2, v->token + 1, v->token_len - 1);
            major = do_unwrap(ctx, tok, v->token_len + 1, &out, &conf, &minor);
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
            assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_FRAMING);
            gk5_buffer_release(&out);
        }
        gk5_ctx_free(ctx);
    }
}

/* Heimdal (7.8) frames its DES3 MIC tokens for 2 bytes more than it
 * writes (51 bytes, MIT's 49), and MIT's receiver takes them: bytes after
 * SGN_CKSUM inside the framing are ignored; a changed checksum is still
 * refused, and so are bytes after the framed token. */
static void test_mic_framed_extra_bytes(void **state)
{
    const struct mitvec *v;
    uint8_t tok[160];
    uint32_t minor = 0, major;
    gk5_ctx *ctx;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    assert_true(v->token_len + 2 <= sizeof(tok) && v->token[1] < 0x7e);
    for (int round = 0; round < 3; round++) {
        ctx = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
        memcpy(tok, v->token, v->token_len);
        tok[1] = (uint8_t)(tok[1] + 2);
        tok[v->token_len] = 0x00;
        tok[v->token_len + 1] = 0xa5;
        tok[v->token_len + 2] = 0x00; /* after the framing (round 2) */
        if (round == 1) {
            tok[v->token_len - 1] ^= 0x01; /* the checksum's last byte */
        }
        major = do_verify(ctx, v->msg, v->msg_len, tok,
                          v->token_len + 2 + (round == 2 ? 1 : 0), &minor);
        if (round == 0) {
            assert_int_equal(major, GK5_S_COMPLETE);
        } else if (round == 1) {
            assert_int_equal(major, GK5_S_BAD_SIG);
        } else {
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
            assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_TRAILING);
        }
        gk5_ctx_free(ctx);
    }
}

/* Header fields, each with the minor code that names it. */
static void test_header_fields(void **state)
{
    /* RC4 tokens from the same MIT test (v1-rc4; docs/design.md, "Reference
     * data"): SGN_ALG 0x0011, SEAL_ALG 0x0010 — not DES3's. */
    static const char rc4_mic[] =
        "602306092a864886f71201020201011100ffffffff5de751f6fb6c255b23935a30"
        "2057dcb5";
    static const char rc4_wrap[] =
        "603306092a864886f712010202020111001000ffffdd6d04ea645ce73150d00944"
        "9e67a430ecfbffc0f7161e141a8242dd26232b02";
    const struct mitvec *mic = NULL;
    const struct mitvec *wrap = NULL;
    struct {
        int wrap;   /* which token */
        size_t off; /* byte offset after the 13 framing bytes */
        uint8_t val;
        uint32_t code; /* expected minor */
    } cases[] = {
        {1, 0, 0x01, GK5_ERR_TOKEN_ID},  /* 01 01: a MIC id in unwrap */
        {0, 0, 0x02, GK5_ERR_TOKEN_ID},  /* 02 01: a Wrap id in verify */
        {1, 1, 0x02, GK5_ERR_TOKEN_ID},  /* 02 02 */
        {1, 2, 0x11, GK5_ERR_TOKEN_ALG}, /* SGN_ALG HMAC MD5 */
        {0, 2, 0x00, GK5_ERR_TOKEN_ALG}, /* SGN_ALG DES MAC MD5 */
        {1, 4, 0x00, GK5_ERR_TOKEN_ALG}, /* SEAL_ALG 00 02 */
        {1, 5, 0x01, GK5_ERR_TOKEN_ALG}, /* SEAL_ALG 02 01 */
        {0, 4, 0x02, GK5_ERR_TOKEN_ALG}, /* a MIC with a SEAL_ALG */
        {1, 6, 0xfe, GK5_ERR_TOKEN_FILLER}, {0, 7, 0x00, GK5_ERR_TOKEN_FILLER},
    };
    uint32_t minor = 0;
    uint32_t major;

    (void)state;
    skip_unless_built();
    mic = vec_named("mic");
    wrap = vec_named("wrap-conf");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct mitvec *v = cases[i].wrap ? wrap : mic;
        gk5_ctx *ctx = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
        uint8_t tok[128];

        memcpy(tok, v->token, v->token_len);
        tok[13 + cases[i].off] = cases[i].val;
        if (cases[i].wrap) {
            gk5_buffer out;
            int conf;

            major = do_unwrap(ctx, tok, v->token_len, &out, &conf, &minor);
            gk5_buffer_release(&out);
        } else {
            major =
                do_verify(ctx, v->msg, v->msg_len, tok, v->token_len, &minor);
        }
        if (major != GK5_S_DEFECTIVE_TOKEN ||
            GK5_ERR_CODE(minor) != cases[i].code) {
            fail_msg("case %zu: %s", i, gk5_display_status(major, minor));
        }
        gk5_ctx_free(ctx);
    }

    /* Framing: tag, OID. */
    {
        gk5_ctx *ctx = ctx_lucid(mic->key, ET_DES3_RAW, 0, 0, 0);
        uint8_t tok[128];
        const size_t offs[] = {0, 2, 3, 12};

        for (size_t i = 0; i < 4; i++) {
            memcpy(tok, mic->token, mic->token_len);
            tok[offs[i]] ^= 0x04;
            major = do_verify(ctx, mic->msg, mic->msg_len, tok, mic->token_len,
                              &minor);
            assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
            assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_FRAMING);
        }
        /* RFC 4121 tokens have no framing at all. */
        memcpy(tok, "\x04\x04\x00\xff\xff\xff\xff\xff", 8);
        memset(tok + 8, 0, 28);
        major = do_verify(ctx, mic->msg, mic->msg_len, tok, 36, &minor);
        assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
        gk5_ctx_free(ctx);
    }

    /* MIT's RC4 tokens given to a DES3 context. */
    {
        gk5_ctx *ctx = ctx_lucid(mic->key, ET_DES3_RAW, 0, 0, 0);
        uint8_t *tok = NULL;
        size_t len = 0;
        gk5_buffer out;
        int conf;

        tok = hex_alloc(rc4_mic, &len);
        major = do_verify(ctx, mic->msg, mic->msg_len, tok, len, &minor);
        assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
        assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_ALG);
        free(tok);
        tok = hex_alloc(rc4_wrap, &len);
        major = do_unwrap(ctx, tok, len, &out, &conf, &minor);
        assert_int_equal(major, GK5_S_DEFECTIVE_TOKEN);
        assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_ALG);
        gk5_buffer_release(&out);
        free(tok);
        gk5_ctx_free(ctx);
    }
}

/* SND_SEQ's direction bytes: the peer's pass, our own is a reflection,
 * anything else is an integrity failure. */
static void test_direction_bytes(void **state)
{
    const struct mitvec *mic;
    const struct mitvec *wrap;
    static const struct {
        uint8_t dir[4];
        uint32_t major;
        uint32_t code;
    } cases[] = {
        {{0x00, 0x00, 0x00, 0x00}, GK5_S_COMPLETE, GK5_OK},
        {{0xff, 0xff, 0xff, 0xff}, 0, GK5_ERR_TOKEN_DIRECTION},
        {{0x01, 0x01, 0x01, 0x01}, GK5_S_BAD_SIG, GK5_ERR_INTEGRITY},
        {{0x00, 0x00, 0x00, 0xff}, GK5_S_BAD_SIG, GK5_ERR_INTEGRITY},
        {{0xff, 0x00, 0x00, 0x00}, GK5_S_BAD_SIG, GK5_ERR_INTEGRITY},
    };

    (void)state;
    skip_unless_built();
    mic = vec_named("mic");
    wrap = vec_named("wrap-conf");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gk5_ctx *ctx = ctx_lucid(mic->key, ET_DES3_RAW, 0, 0, 7);
        gk5_buffer before = ctx_snapshot(ctx);
        gk5_buffer after, out;
        struct v1_tok d;
        uint8_t tok[128];
        size_t len;
        uint32_t minor = 0;
        uint32_t major;
        int conf;

        len = v1_encode(mic->key, 0x0101, 0xffff, 7, cases[i].dir, mic->msg,
                        mic->msg_len, tok, sizeof(tok));
        major = do_verify(ctx, mic->msg, mic->msg_len, tok, len, &minor);
        if (cases[i].code == GK5_ERR_TOKEN_DIRECTION) {
            assert_true(refused(major));
        } else {
            assert_int_equal(major, cases[i].major);
        }
        assert_int_equal(GK5_ERR_CODE(minor), cases[i].code);

        v1_decode(wrap->key, wrap->token, wrap->token_len, NULL, 0, &d);
        len = v1_encode(wrap->key, 0x0201, 0x0002, 7, cases[i].dir, d.plain,
                        d.plain_len, tok, sizeof(tok));
        if (cases[i].code != GK5_OK) {
            gk5_ctx_free(ctx);
            gk5_buffer_release(&before);
            ctx = ctx_lucid(mic->key, ET_DES3_RAW, 0, 0, 7);
            before = ctx_snapshot(ctx);
            major = do_unwrap(ctx, tok, len, &out, &conf, &minor);
            assert_true(refused(major));
            assert_int_equal(GK5_ERR_CODE(minor), cases[i].code);
            assert_int_equal(out.length, 0);
            after = ctx_snapshot(ctx);
            assert_same_snapshot(&before, &after);
            gk5_buffer_release(&after);
        } else {
            major = do_unwrap(ctx, tok, len, &out, &conf, &minor);
            assert_int_equal(GK5_ERROR(major), 0);
            assert_int_equal(out.length, wrap->msg_len);
            assert_memory_equal(out.value, wrap->msg, wrap->msg_len);
        }
        gk5_buffer_release(&out);
        gk5_buffer_release(&before);
        gk5_ctx_free(ctx);
    }
}

/* Pads: right ones pass, wrong ones are a bad signature even though the
 * checksum (made here over the wrong pad) is good. */
static void test_pads(void **state)
{
    static const uint8_t dir0[4] = {0, 0, 0, 0};
    const struct mitvec *v;
    static const struct {
        size_t msg_len;
        uint8_t pad[16];
        size_t pad_len;
        uint32_t major;
    } cases[] = {
        {7, {1}, 1, GK5_S_COMPLETE},
        {0, {8, 8, 8, 8, 8, 8, 8, 8}, 8, GK5_S_COMPLETE},
        {6, {2, 2}, 2, GK5_S_COMPLETE},
        {7, {0}, 1, GK5_S_BAD_SIG},    /* zero */
        {7, {100}, 1, GK5_S_BAD_SIG},  /* MIT's bad pad */
        {6, {3, 2}, 2, GK5_S_BAD_SIG}, /* bytes differ */
        {6, {2, 3}, 2, GK5_S_BAD_SIG},
        {0, {9, 9, 9, 9, 9, 9, 9, 9}, 8, GK5_S_BAD_SIG}, /* more than 8 */
        /* More than 8 and consistent, within the body: still refused. */
        {7, {9, 9, 9, 9, 9, 9, 9, 9, 9}, 9, GK5_S_BAD_SIG},
        {0,
         {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
         16,
         GK5_S_BAD_SIG},
        {5, {8, 8, 8}, 3, GK5_S_BAD_SIG}, /* into the message */
        {0, {8, 8, 8, 8, 8, 8, 8, 16}, 8, GK5_S_BAD_SIG},
    };

    (void)state;
    skip_unless_built();
    v = vec_named("wrap-conf");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (int sealed = 0; sealed < 2; sealed++) {
            gk5_ctx *ctx = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
            uint8_t body[32];
            uint8_t tok[128];
            gk5_buffer out;
            size_t len, blen = 0;
            uint32_t minor = 0;
            uint32_t major;
            int conf;

            memset(body, 0xc5, 8); /* confounder */
            blen = 8;
            memcpy(body + blen, "message", cases[i].msg_len);
            blen += cases[i].msg_len;
            memcpy(body + blen, cases[i].pad, cases[i].pad_len);
            blen += cases[i].pad_len;
            assert_int_equal(blen % 8, 0);
            len = v1_encode(v->key, 0x0201, sealed ? 0x0002 : 0xffff, 0, dir0,
                            body, blen, tok, sizeof(tok));
            major = do_unwrap(ctx, tok, len, &out, &conf, &minor);
            if (major != cases[i].major) {
                fail_msg("pad case %zu sealed %d: %s", i, sealed,
                         gk5_display_status(major, minor));
            }
            if (major == GK5_S_COMPLETE) {
                assert_int_equal(out.length, cases[i].msg_len);
                assert_memory_equal(out.value, "message", out.length);
                assert_int_equal(conf, sealed);
            } else {
                assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_INTEGRITY);
                assert_int_equal(out.length, 0);
            }
            gk5_buffer_release(&out);
            gk5_ctx_free(ctx);
        }
    }
}

/* Check a token gk5 made, with the independent decoder. */
static void check_made(const uint8_t key[KEY_BYTES], const gk5_buffer *tok,
                       int wrap, int sealed, int from_initiator, uint32_t seq,
                       const uint8_t *msg, size_t msg_len)
{
    const uint8_t dir = from_initiator ? 0x00 : 0xff;
    const uint8_t dirs[4] = {dir, dir, dir, dir};
    struct v1_tok d;

    v1_decode(key, tok->value, tok->length, msg, msg_len, &d);
    assert_true(d.cksum_ok);
    assert_int_equal(d.seq, seq);
    assert_memory_equal(d.dir, dirs, 4);
    assert_int_equal(d.sgn_alg, 0x0004);
    if (!wrap) {
        assert_int_equal(d.tok_id, 0x0101);
        assert_int_equal(d.seal_alg, 0xffff);
        return;
    }
    assert_int_equal(d.tok_id, 0x0201);
    assert_int_equal(d.seal_alg, sealed ? 0x0002 : 0xffff);
    assert_int_equal(d.plain_len, 8 + msg_len + (8 - msg_len % 8));
    if (msg_len != 0) {
        assert_memory_equal(d.plain + 8, msg, msg_len);
    }
    for (size_t i = 8 + msg_len; i < d.plain_len; i++) {
        assert_int_equal(d.plain[i], 8 - msg_len % 8);
    }
    if (sealed && msg_len >= 8) {
        /* The message is not in the token in the clear. */
        assert_null(memmem(tok->value, tok->length, msg, msg_len));
    }
}

static void test_round_trips(void **state)
{
    static const size_t lens[] = {0, 1, 7, 8, 9, 63, 64, 65, 200, 1500};
    const struct mitvec *v;
    uint8_t msg[1500];
    uint32_t iseq = 5, aseq = 0x12345;
    gk5_ctx *ini, *acc;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    for (size_t i = 0; i < sizeof(msg); i++) {
        msg[i] = (uint8_t)(i * 7 + 3);
    }
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, iseq, aseq);
    acc = ctx_gssd(v->key, ET_DES3, 0, aseq);
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (int conf = 0; conf < 2; conf++) {
            for (int dir = 0; dir < 2; dir++) {
                gk5_ctx *snd = dir == 0 ? ini : acc;
                gk5_ctx *rcv = dir == 0 ? acc : ini;
                uint32_t *seq = dir == 0 ? &iseq : &aseq;
                gk5_buffer tok, out;
                uint32_t minor = 0;
                uint32_t major;
                int c;

                wrap_ok(snd, conf, msg, lens[i], &tok);
                check_made(v->key, &tok, 1, conf, dir == 0, (*seq)++, msg,
                           lens[i]);
                major = do_unwrap(rcv, tok.value, tok.length, &out, &c, &minor);
                if (major != GK5_S_COMPLETE) {
                    fail_msg("unwrap len %zu conf %d dir %d: %s", lens[i], conf,
                             dir, gk5_display_status(major, minor));
                }
                assert_int_equal(c, conf);
                assert_int_equal(out.length, lens[i]);
                if (lens[i] != 0) {
                    assert_memory_equal(out.value, msg, lens[i]);
                }
                gk5_buffer_release(&out);
                /* Once only. */
                major = do_unwrap(rcv, tok.value, tok.length, &out, &c, &minor);
                assert_int_equal(major, GK5_S_DUPLICATE_TOKEN);
                gk5_buffer_release(&out);
                /* Back to its sender: reflected. */
                major = do_unwrap(snd, tok.value, tok.length, &out, &c, &minor);
                assert_true(refused(major));
                assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_DIRECTION);
                gk5_buffer_release(&out);
                gk5_buffer_release(&tok);

                mic_ok(snd, msg, lens[i], &tok);
                check_made(v->key, &tok, 0, 0, dir == 0, (*seq)++, msg,
                           lens[i]);
                assert_int_equal(
                    do_verify(rcv, msg, lens[i], tok.value, tok.length, &minor),
                    GK5_S_COMPLETE);
                major =
                    do_verify(snd, msg, lens[i], tok.value, tok.length, &minor);
                assert_true(refused(major));
                assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_TOKEN_DIRECTION);
                gk5_buffer_release(&tok);
            }
        }
    }
    gk5_ctx_free(ini);
    gk5_ctx_free(acc);
}

/* RFC 1964 sequence numbers are 32 bits.  Sending: 2^32 numbers, then the
 * context refuses (no number is ever used twice).  Receiving: the window
 * compares numbers modulo 2^32, so the same arrival pattern gives the same
 * supplementary statuses across ffffffff -> 0 as it does anywhere else. */
static void test_seq_32bit(void **state)
{
    static const uint8_t dir0[4] = {0, 0, 0, 0};
    /* Arrival order, as offsets from a base: in order, a gap, a late one,
     * a duplicate, and one far behind the window. */
    static const int32_t arrivals[] = {0, 1, 3, 2, 2, 4, 70, 5, -1};
    const struct mitvec *v;
    const uint32_t bases[] = {1000, 0xfffffffe, 0xffffffc0};
    uint32_t want[sizeof(arrivals) / sizeof(arrivals[0])];
    gk5_ctx *ini;
    gk5_ctx_info info;
    gk5_buffer tok;
    uint32_t minor = 0;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");

    /* Sending: ffffffff is the last number. */
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, 0xfffffffe, 0);
    for (uint32_t i = 0; i < 2; i++) {
        mic_ok(ini, (const uint8_t *)"seq", 3, &tok);
        check_made(v->key, &tok, 0, 0, 1, 0xfffffffe + i,
                   (const uint8_t *)"seq", 3);
        gk5_buffer_release(&tok);
    }
    {
        gk5_buffer in = {3, unconst("seq")};
        int conf = -1;
        uint32_t major = gk5_wrap(&minor, ini, 1, 0, &in, &conf, &tok);

        assert_int_equal(major, GK5_S_FAILURE);
        assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_CTX_SEQ_EXHAUSTED);
        assert_int_equal(tok.length, 0);
        assert_null(tok.value);
    }
    assert_int_equal(gk5_ctx_inquire(&minor, ini, &info), GK5_S_COMPLETE);
    assert_int_equal(info.send_seq, (uint64_t)1 << 32);
    gk5_ctx_free(ini);

    /* Receiving: tokens made here with any number. */
    for (size_t bi = 0; bi < sizeof(bases) / sizeof(bases[0]); bi++) {
        gk5_ctx *acc = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, bases[bi]);

        for (size_t i = 0; i < sizeof(arrivals) / sizeof(arrivals[0]); i++) {
            uint32_t seq = bases[bi] + (uint32_t)arrivals[i];
            uint8_t t[128];
            size_t len = v1_encode(v->key, 0x0101, 0xffff, seq, dir0,
                                   (const uint8_t *)"seq", 3, t, sizeof(t));
            uint32_t major =
                do_verify(acc, (const uint8_t *)"seq", 3, t, len, &minor);

            if (GK5_ERROR(major) != 0) {
                fail_msg("base %08x seq %08x: %s", bases[bi], seq,
                         gk5_display_status(major, minor));
            }
            if (bi == 0) {
                want[i] = major;
            } else if (major != want[i]) {
                fail_msg("base %08x, arrival %zu (seq %08x): 0x%x, but "
                         "0x%x away from the wrap",
                         bases[bi], i, seq, major, want[i]);
            }
        }
        gk5_ctx_free(acc);
    }
    /* And the pattern says what RFC 2743 1.2.3 says it should. */
    assert_int_equal(want[0], GK5_S_COMPLETE);
    assert_int_equal(want[1], GK5_S_COMPLETE);
    assert_int_equal(want[2], GK5_S_GAP_TOKEN);
    assert_int_equal(want[3], GK5_S_UNSEQ_TOKEN);
    assert_true((want[4] & GK5_S_DUPLICATE_TOKEN) != 0);
    assert_int_equal(want[5], GK5_S_COMPLETE);
}

/* ---- IOV ---- */

static gk5_iov_buffer iovb(uint32_t type, void *p, size_t len)
{
    gk5_iov_buffer b;

    b.type = type;
    b.buffer.value = p;
    b.buffer.length = len;
    return b;
}

/* HEADER | DATA | SIGN_ONLY | DATA | PADDING | TRAILER: lengths, wrap,
 * unwrap in the same layout; SIGN_ONLY is covered but stays clear. */
static void test_iov_layout(void **state)
{
    const struct mitvec *v;
    gk5_ctx *ini, *acc;
    uint8_t d1[13], d2[6], so[5], hdr[128], pad[16], trl[4];
    const uint8_t so_clear[5] = {'a', 'b', 'c', 'd', 'e'};
    gk5_iov_buffer iov[6];
    uint32_t minor = 0, qop = 9;
    int conf = -1;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, 0, 0);
    acc = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
    for (int sealed = 0; sealed < 2; sealed++) {
        uint8_t flat[256];
        size_t flen = 0;
        int c;

        memset(d1, 'x', sizeof(d1));
        memset(d2, 'y', sizeof(d2));
        memcpy(so, so_clear, sizeof(so));
        iov[0] = iovb(GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
        iov[1] = iovb(GK5_IOV_BUFFER_TYPE_DATA, d1, sizeof(d1));
        iov[2] = iovb(GK5_IOV_BUFFER_TYPE_SIGN_ONLY, so, sizeof(so));
        iov[3] = iovb(GK5_IOV_BUFFER_TYPE_DATA, d2, sizeof(d2));
        iov[4] = iovb(GK5_IOV_BUFFER_TYPE_PADDING, NULL, 0);
        iov[5] = iovb(GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 7);
        assert_int_equal(
            gk5_wrap_iov_length(&minor, ini, sealed, 0, &conf, iov, 6),
            GK5_S_COMPLETE);
        assert_int_equal(conf, sealed);
        /* 19 bytes of data: 5 pad; 2 + 11 + 36 + 8 = 57 header bytes. */
        assert_int_equal(iov[0].buffer.length, 57);
        assert_int_equal(iov[4].buffer.length, 5);
        assert_int_equal(iov[5].buffer.length, 0);
        iov[0] = iovb(GK5_IOV_BUFFER_TYPE_HEADER, hdr, sizeof(hdr));
        iov[4] = iovb(GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
        iov[5] = iovb(GK5_IOV_BUFFER_TYPE_TRAILER, trl, sizeof(trl));
        assert_int_equal(gk5_wrap_iov(&minor, ini, sealed, 0, &conf, iov, 6),
                         GK5_S_COMPLETE);
        assert_int_equal(iov[0].buffer.length, 57);
        assert_int_equal(iov[4].buffer.length, 5);
        assert_int_equal(iov[5].buffer.length, 0);
        assert_memory_equal(so, so_clear, sizeof(so));

        /* The pieces laid end to end (SIGN_ONLY is not sent) are a framed
         * token whose checksum covers SIGN_ONLY where it stood. */
        memcpy(flat, hdr, 57);
        flen = 57;
        memcpy(flat + flen, d1, sizeof(d1));
        flen += sizeof(d1);
        memcpy(flat + flen, d2, sizeof(d2));
        flen += sizeof(d2);
        memcpy(flat + flen, pad, 5);
        flen += 5;
        {
            struct v1_tok d;
            uint8_t body[64], ck[20];
            size_t bl = 0;

            v1_decode(v->key, flat, flen, NULL, 0, &d);
            assert_int_equal(d.tok_id, 0x0201);
            assert_int_equal(d.seal_alg, sealed ? 0x0002 : 0xffff);
            assert_int_equal(d.seq, (uint32_t)(2 * sealed));
            assert_int_equal(d.dir[0], 0x00);
            assert_int_equal(d.plain_len, 8 + 13 + 6 + 5);
            memcpy(body, d.plain, 8 + 13); /* confounder, d1 */
            bl = 8 + 13;
            memcpy(body + bl, so_clear, 5);
            bl += 5;
            memcpy(body + bl, d.plain + 8 + 13, 6 + 5); /* d2, pad */
            bl += 6 + 5;
            assert_memory_equal(d.plain + 8 + 13 + 6, "\5\5\5\5\5", 5);
            v1_cksum(v->key, flat + 13, body, bl, ck);
            assert_memory_equal(ck, flat + 13 + 16, 20);
        }

        /* Unwrap in the same layout. */
        iov[0].buffer.length = 57;
        iov[4].buffer.length = 5;
        qop = 9;
        c = -1;
        {
            /* (a GAP for the sealed round: #1 below was never accepted) */
            uint32_t major = gk5_unwrap_iov(&minor, acc, &c, &qop, iov, 6);

            if (GK5_ERROR(major) != 0) {
                fail_msg("unwrap_iov: %s", gk5_display_status(major, minor));
            }
        }
        assert_int_equal(c, sealed);
        assert_int_equal(qop, 0);
        assert_int_equal(iov[1].buffer.length, sizeof(d1));
        assert_int_equal(iov[3].buffer.length, sizeof(d2));
        assert_int_equal(iov[4].buffer.length, 0);
        for (size_t i = 0; i < sizeof(d1); i++) {
            assert_int_equal(d1[i], 'x');
        }
        for (size_t i = 0; i < sizeof(d2); i++) {
            assert_int_equal(d2[i], 'y');
        }

        /* SIGN_ONLY changed: bad signature, state unchanged. */
        iov[4].buffer.length = sizeof(pad);
        assert_int_equal(gk5_wrap_iov(&minor, ini, sealed, 0, &conf, iov, 6),
                         GK5_S_COMPLETE);
        so[0] ^= 1;
        iov[4].buffer.length = 5;
        {
            gk5_buffer before = ctx_snapshot(acc);
            gk5_buffer after;

            assert_int_equal(gk5_unwrap_iov(&minor, acc, &c, &qop, iov, 6),
                             GK5_S_BAD_SIG);
            after = ctx_snapshot(acc);
            assert_same_snapshot(&before, &after);
            gk5_buffer_release(&before);
            gk5_buffer_release(&after);
        }
    }
    gk5_ctx_free(ini);
    gk5_ctx_free(acc);
}

/* A refused IOV wrap (PADDING too short for the pad) changes neither the
 * caller's buffer lengths nor the context (no sequence number taken). */
static void test_iov_wrap_refused_keeps_lengths(void **state)
{
    const struct mitvec *v;
    gk5_ctx *ini;
    uint8_t data[19], hdr[128], pad[16];
    gk5_iov_buffer iov[3];
    uint32_t minor = 0;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, 0, 0);
    memset(data, 'x', sizeof(data));
    for (int sealed = 0; sealed < 2; sealed++) {
        gk5_buffer before = ctx_snapshot(ini), after;

        iov[0] = iovb(GK5_IOV_BUFFER_TYPE_HEADER, hdr, sizeof(hdr));
        iov[1] = iovb(GK5_IOV_BUFFER_TYPE_DATA, data, sizeof(data));
        iov[2] = iovb(GK5_IOV_BUFFER_TYPE_PADDING, pad, 4); /* 5 needed */
        assert_int_equal(gk5_wrap_iov(&minor, ini, sealed, 0, NULL, iov, 3),
                         GK5_S_FAILURE);
        assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(iov[0].buffer.length, sizeof(hdr));
        assert_int_equal(iov[2].buffer.length, 4);
        after = ctx_snapshot(ini);
        assert_same_snapshot(&before, &after);
        gk5_buffer_release(&after);
        gk5_buffer_release(&before);

        iov[2].buffer.length = sizeof(pad);
        assert_int_equal(gk5_wrap_iov(&minor, ini, sealed, 0, NULL, iov, 3),
                         GK5_S_COMPLETE);
        assert_int_equal(iov[0].buffer.length, 57);
        assert_int_equal(iov[2].buffer.length, 5);
        memset(data, 'x', sizeof(data));
    }
    gk5_ctx_free(ini);
}

/* IOV wrap with ALLOCATE, many DATA buffers (more than fit on gk5's
 * stack list), no PADDING (the pad goes to TRAILER); the concatenation is
 * a token the contiguous unwrap and the independent decoder accept. */
static void test_iov_allocate_and_split(void **state)
{
    enum { NDATA = 20 };
    const struct mitvec *v;
    gk5_ctx *ini, *acc;
    uint8_t data[NDATA][3];
    gk5_iov_buffer iov[NDATA + 2];
    uint8_t msg[NDATA * 3];
    uint32_t minor = 0;
    int conf = -1;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, 40, 0);
    acc = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 40);
    for (int sealed = 0; sealed < 2; sealed++) {
        uint8_t *flat;
        size_t flen = 0;
        gk5_buffer tok, out;
        int c;

        iov[0] = iovb(GK5_IOV_BUFFER_TYPE_HEADER | GK5_IOV_BUFFER_FLAG_ALLOCATE,
                      NULL, 0);
        for (int i = 0; i < NDATA; i++) {
            memset(data[i], 'a' + i, 3);
            memcpy(msg + 3 * i, data[i], 3);
            iov[1 + i] = iovb(GK5_IOV_BUFFER_TYPE_DATA, data[i], 3);
        }
        iov[NDATA + 1] =
            iovb(GK5_IOV_BUFFER_TYPE_TRAILER | GK5_IOV_BUFFER_FLAG_ALLOCATE,
                 NULL, 0);
        if (gk5_wrap_iov(&minor, ini, sealed, 0, &conf, iov, NDATA + 2) !=
            GK5_S_COMPLETE) {
            fail_msg("wrap_iov: %s", gk5_display_status(0, minor));
        }
        assert_true((iov[0].type & GK5_IOV_BUFFER_FLAG_ALLOCATED) != 0);
        assert_true((iov[NDATA + 1].type & GK5_IOV_BUFFER_FLAG_ALLOCATED) != 0);
        assert_int_equal(iov[NDATA + 1].buffer.length, 4); /* 60 -> 4 */
        flat = malloc(iov[0].buffer.length + sizeof(msg) + 4);
        assert_non_null(flat);
        memcpy(flat, iov[0].buffer.value, iov[0].buffer.length);
        flen = iov[0].buffer.length;
        for (int i = 0; i < NDATA; i++) {
            memcpy(flat + flen, data[i], 3);
            flen += 3;
        }
        memcpy(flat + flen, iov[NDATA + 1].buffer.value, 4);
        flen += 4;
        gk5_release_iov(iov, NDATA + 2);

        tok.value = flat;
        tok.length = flen;
        check_made(v->key, &tok, 1, sealed, 1, 40 + (uint32_t)sealed, msg,
                   sizeof(msg));
        if (do_unwrap(acc, flat, flen, &out, &c, &minor) != GK5_S_COMPLETE) {
            fail_msg("unwrap: %s", gk5_display_status(0, minor));
        }
        assert_int_equal(c, sealed);
        assert_int_equal(out.length, sizeof(msg));
        assert_memory_equal(out.value, msg, sizeof(msg));
        gk5_buffer_release(&out);

        /* And as STREAM | DATA(ALLOCATE) on a fresh receiver. */
        {
            gk5_ctx *acc2 =
                ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 40 + (uint64_t)sealed);
            gk5_iov_buffer s[2];
            uint32_t qop = 9;

            s[0] = iovb(GK5_IOV_BUFFER_TYPE_STREAM, flat, flen);
            s[1] = iovb(GK5_IOV_BUFFER_TYPE_DATA | GK5_IOV_BUFFER_FLAG_ALLOCATE,
                        NULL, 0);
            assert_int_equal(gk5_unwrap_iov(&minor, acc2, &c, &qop, s, 2),
                             GK5_S_COMPLETE);
            assert_int_equal(s[1].buffer.length, sizeof(msg));
            assert_memory_equal(s[1].buffer.value, msg, sizeof(msg));
            gk5_release_iov(s, 2);
            gk5_ctx_free(acc2);
        }
        free(flat);
    }
    gk5_ctx_free(ini);
    gk5_ctx_free(acc);
}

/* MIC over IOVs: DATA and SIGN_ONLY in order, MIC_TOKEN allocated; the
 * same bytes as one buffer give the same verdict. */
static void test_iov_mic(void **state)
{
    const struct mitvec *v;
    gk5_ctx *ini, *acc;
    uint8_t a[10], b[7];
    uint8_t whole[17];
    gk5_iov_buffer iov[3];
    uint32_t minor = 0, qop = 9;
    gk5_buffer tok;

    (void)state;
    skip_unless_built();
    v = vec_named("mic");
    ini = ctx_lucid(v->key, ET_DES3_RAW, 1, 0, 0);
    acc = ctx_lucid(v->key, ET_DES3_RAW, 0, 0, 0);
    memset(a, 'A', sizeof(a));
    memset(b, 'B', sizeof(b));
    memcpy(whole, a, sizeof(a));
    memcpy(whole + sizeof(a), b, sizeof(b));
    iov[0] = iovb(GK5_IOV_BUFFER_TYPE_DATA, a, sizeof(a));
    iov[1] = iovb(GK5_IOV_BUFFER_TYPE_SIGN_ONLY, b, sizeof(b));
    iov[2] = iovb(GK5_IOV_BUFFER_TYPE_MIC_TOKEN | GK5_IOV_BUFFER_FLAG_ALLOCATE,
                  NULL, 0);
    assert_int_equal(gk5_get_mic_iov(&minor, ini, 0, iov, 3), GK5_S_COMPLETE);
    assert_int_equal(iov[2].buffer.length, 49);
    tok.value = iov[2].buffer.value;
    tok.length = iov[2].buffer.length;
    check_made(v->key, &tok, 0, 0, 1, 0, whole, sizeof(whole));
    assert_int_equal(gk5_verify_mic_iov(&minor, acc, &qop, iov, 3),
                     GK5_S_COMPLETE);
    assert_int_equal(qop, 0);
    assert_int_equal(
        do_verify(acc, whole, sizeof(whole), tok.value, tok.length, &minor),
        GK5_S_DUPLICATE_TOKEN);
    b[3] ^= 1;
    assert_int_equal(gk5_verify_mic_iov(&minor, acc, &qop, iov, 3),
                     GK5_S_BAD_SIG);
    gk5_release_iov(iov, 3);
    gk5_ctx_free(ini);
    gk5_ctx_free(acc);
}

/* gk5_wrap_size_limit: the answer fits, one more byte does not. */
static void test_size_limit(void **state)
{
    static const size_t outs[] = {0,   40,  57,  64,   65,   66,   72,
                                  73,  127, 128, 129,  130,  131,  200,
                                  255, 256, 300, 1000, 4096, 70000};
    const struct mitvec *v;
    gk5_ctx *ctx;
    uint8_t *msg = NULL;

    (void)state;
    skip_unless_built();
    msg = calloc(1, 70000);
    v = vec_named("mic");
    ctx = ctx_lucid(v->key, ET_DES3_RAW, 1, 0, 0);
    assert_non_null(msg);
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        for (int conf = 0; conf < 2; conf++) {
            size_t in_max = 12345;
            uint32_t minor = 0;
            gk5_buffer tok;

            assert_int_equal(
                gk5_wrap_size_limit(&minor, ctx, conf, 0, outs[i], &in_max),
                GK5_S_COMPLETE);
            wrap_ok(ctx, conf, msg, in_max, &tok);
            if (in_max != 0) {
                assert_true(tok.length <= outs[i]);
            }
            gk5_buffer_release(&tok);
            wrap_ok(ctx, conf, msg, in_max + 1, &tok);
            assert_true(tok.length > outs[i]);
            gk5_buffer_release(&tok);
        }
    }
    free(msg);
    gk5_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_des3_import),
        cmocka_unit_test(test_mit_vectors),
        cmocka_unit_test(test_reference_codec),
        cmocka_unit_test(test_byte_flips),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_mic_framed_extra_bytes),
        cmocka_unit_test(test_header_fields),
        cmocka_unit_test(test_direction_bytes),
        cmocka_unit_test(test_pads),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_seq_32bit),
        cmocka_unit_test(test_iov_layout),
        cmocka_unit_test(test_iov_wrap_refused_keeps_lengths),
        cmocka_unit_test(test_iov_allocate_and_split),
        cmocka_unit_test(test_iov_mic),
        cmocka_unit_test(test_size_limit),
    };
    const char *env = getenv("GK5_DES3");

    /* The build and the test environment must agree on DES3. */
    if (env != NULL && (strcmp(env, "1") == 0) != DES3_BUILT) {
        fprintf(stderr, "GK5_DES3=%s but this build has des3 %s\n", env,
                DES3_BUILT ? "on" : "off");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
