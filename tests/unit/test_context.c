/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Contexts: the rpc.gssd buffer (every size, every malformed variant, the
 * refused enctypes with their reasons), MIT lucid v1 imports, gk5's own
 * export format (round trip with state, every malformed field), subkeys by
 * role, send-number exhaustion and uniqueness across threads, lanes,
 * expiry, inquire, set_flags.
 *
 * Expected subkeys are computed through the public RFC 3961 API
 * (gk5_c_derive_key with the RFC 4121 2 usage and the RFC 3961 constants
 * 0xAA/0x55/0x99), a path separate from the context's own derivation.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <gk5/crypto.h>
#include "mech/mech_int.h"

#define GSSD_HEADER 20
#define ALL_OPTIONS (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)

/* ---- helpers ---- */

static void fill_key(uint8_t *key, size_t len, uint8_t seed)
{
    for (size_t i = 0; i < len; i++) {
        key[i] = (uint8_t)(seed + 37 * i + (i * i >> 2));
    }
}

/* The rpc.gssd buffer exactly as docs/design.md ("The rpc.gssd context
 * buffer") lays it out: host byte order, no padding. */
static size_t gssd_buf(uint8_t *out, uint32_t flags, uint32_t endtime,
                       uint64_t send_seq, uint32_t enctype, const uint8_t *key,
                       size_t key_len)
{
    memcpy(out, &flags, 4);
    memcpy(out + 4, &endtime, 4);
    memcpy(out + 8, &send_seq, 8);
    memcpy(out + 16, &enctype, 4);
    memcpy(out + GSSD_HEADER, key, key_len);
    return GSSD_HEADER + key_len;
}

static gk5_ctx *import_gssd_ok(const uint8_t *buf, size_t len)
{
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0xffff;
    uint32_t major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);

    if (major != GK5_S_COMPLETE) {
        fail_msg("import of %zu bytes: %s: %s", len, gk5_major_name(major),
                 gk5_display_status(major, minor));
    }
    assert_int_equal(minor, 0);
    assert_non_null(ctx);
    return ctx;
}

static void expect_gssd_fail(const uint8_t *buf, size_t len, uint32_t major,
                             uint32_t minor_want)
{
    gk5_ctx *ctx = (gk5_ctx *)&ctx; /* must be set to NULL */
    uint32_t minor = 0;
    uint32_t got = gk5_ctx_import_gssd(&minor, buf, len, &ctx);

    if (got != major || minor != minor_want) {
        fail_msg("import of %zu bytes: got %s/0x%x (%s), want %s/0x%x", len,
                 gk5_major_name(got), (unsigned)minor,
                 gk5_display_status(got, minor), gk5_major_name(major),
                 (unsigned)minor_want);
    }
    assert_null(ctx);
}

/* The gssd CFX flag an enctype's contexts carry: none for RFC 1964 tokens
 * (the table's row says which). */
static uint32_t cfx_flag(int32_t enctype)
{
    const struct gk5_enctype *row = gk5i_enctype_get(enctype);

    return row != NULL && row->rfc1964 ? 0 : GK5_GSSD_FLAG_CFX;
}

static gk5_ctx *gssd_ctx(uint32_t flags, uint32_t endtime, uint64_t send_seq,
                         int32_t enctype, size_t key_len, uint8_t seed)
{
    uint8_t key[32];
    uint8_t buf[GSSD_HEADER + 32];
    size_t len;

    fill_key(key, key_len, seed);
    len = gssd_buf(buf, flags, endtime, send_seq, (uint32_t)enctype, key,
                   key_len);
    return import_gssd_ok(buf, len);
}

static void expect_info(gk5_ctx *ctx, int32_t enctype, int initiator, int cfx,
                        int subkey, uint32_t endtime, uint64_t send_seq)
{
    gk5_ctx_info info;
    uint32_t minor = 0xffff;

    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    assert_int_equal(info.enctype, enctype);
    assert_non_null(info.enctype_name);
    assert_int_equal(info.initiator, initiator);
    assert_int_equal(info.cfx, cfx);
    assert_int_equal(info.acceptor_subkey, subkey);
    assert_int_equal(info.endtime, endtime);
    assert_int_equal(info.send_seq, send_seq);
    assert_int_equal(info.flags, ALL_OPTIONS);
}

/* DK(key, usage | kind) through the public crypto API. */
static void expect_dk(int32_t enctype, const uint8_t *key, size_t key_len,
                      uint32_t usage, uint8_t kind, const uint8_t *got,
                      size_t got_len)
{
    uint8_t constant[5];
    uint8_t want[64];
    size_t want_len = 0;

    store_be32(constant, usage);
    constant[4] = kind;
    assert_int_equal(gk5_c_derive_length(enctype, constant, 5, &want_len), 0);
    assert_true(want_len <= sizeof(want));
    assert_int_equal(
        gk5_c_derive_key(enctype, key, key_len, constant, 5, want, want_len),
        0);
    if (got_len != want_len || memcmp(got, want, want_len) != 0) {
        fail_msg("enctype %d usage %u kind 0x%02x: subkey differs",
                 (int)enctype, (unsigned)usage, (unsigned)kind);
    }
}

/* RFC 4121 2: initiator seals with 24, signs with 25, and receives the
 * acceptor's 22/23; the acceptor the other way round. */
static void expect_cfx_subkeys(const gk5_ctx *ctx, int32_t enctype,
                               const uint8_t *key, size_t key_len,
                               bool initiator)
{
    const uint32_t send_seal = initiator ? 24 : 22;
    const uint32_t send_sign = initiator ? 25 : 23;
    const uint32_t recv_seal = initiator ? 22 : 24;
    const uint32_t recv_sign = initiator ? 23 : 25;
    const struct {
        enum gk5_uk_slot slot;
        uint32_t usage;
    } slots[] = {
        {UK_SEND_SEAL, send_seal},
        {UK_SEND_SIGN, send_sign},
        {UK_RECV_SEAL, recv_seal},
        {UK_RECV_SIGN, recv_sign},
    };

    for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
        const struct gk5i_subkeys *sk = &ctx->sk[slots[i].slot];

        assert_false(sk->raw);
        expect_dk(enctype, key, key_len, slots[i].usage, 0xaa, sk->ke,
                  sk->ke_len);
        expect_dk(enctype, key, key_len, slots[i].usage, 0x55, sk->ki,
                  sk->ki_len);
        expect_dk(enctype, key, key_len, slots[i].usage, 0x99, sk->kc,
                  sk->kc_len);
    }
}

struct cfx_enctype {
    int32_t enctype;
    size_t key_len;
    size_t gssd_len; /* docs/design.md: 36 for 128-bit keys, 52 for 256-bit */
};

static const struct cfx_enctype cfx_enctypes[] = {
    {17, 16, 36}, {18, 32, 52}, {19, 16, 36},
    {20, 32, 52}, {25, 16, 36}, {26, 32, 52},
};

/* ---- rpc.gssd buffers ---- */

static void test_gssd_sizes(void **state)
{
    static const uint32_t flag_sets[] = {
        GK5_GSSD_FLAG_CFX,
        GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR,
        GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_ACCEPTOR_SUBKEY,
        GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR |
            GK5_GSSD_FLAG_ACCEPTOR_SUBKEY,
    };

    (void)state;
    for (size_t e = 0; e < sizeof(cfx_enctypes) / sizeof(cfx_enctypes[0]);
         e++) {
        const struct cfx_enctype *ce = &cfx_enctypes[e];

        for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++) {
            uint8_t key[32], buf[64];
            uint32_t flags = flag_sets[f];
            size_t len;
            gk5_ctx *ctx;

            fill_key(key, ce->key_len, (uint8_t)(e * 16 + f));
            len = gssd_buf(buf, flags, 2000000000u, 1000 + f,
                           (uint32_t)ce->enctype, key, ce->key_len);
            assert_int_equal(len, ce->gssd_len);
            ctx = import_gssd_ok(buf, len);
            expect_info(ctx, ce->enctype,
                        (flags & GK5_GSSD_FLAG_INITIATOR) != 0, 1,
                        (flags & GK5_GSSD_FLAG_ACCEPTOR_SUBKEY) != 0,
                        2000000000u, 1000 + f);
            expect_cfx_subkeys(ctx, ce->enctype, key, ce->key_len,
                               (flags & GK5_GSSD_FLAG_INITIATOR) != 0);
            gk5_ctx_free(ctx);
        }
    }
}

static void test_gssd_des3(void **state)
{
    static const uint32_t des3_types[] = {16, 6};
    uint8_t key[24], buf[64];

    (void)state;
    fill_key(key, sizeof(key), 0x40);
    for (size_t i = 0; i < 2; i++) {
        for (uint32_t flags = 0; flags <= GK5_GSSD_FLAG_INITIATOR; flags++) {
            size_t len = gssd_buf(buf, flags, 0, 77, des3_types[i], key, 24);

            assert_int_equal(len, 44);
#ifdef GK5_WITH_DES3
            gk5_ctx *ctx = import_gssd_ok(buf, len);
            const struct gk5i_subkeys *sk = &ctx->sk[UK_SEND_SEAL];

            expect_info(ctx, 16, (int)flags, 0, 0, 0, 77);
            /* RFC 1964 as MIT does DES3: the session key seals, and
             * DK(key, 23|0x99) keys the checksum; no other slot. */
            assert_true(sk->raw);
            assert_int_equal(sk->ke_len, 24);
            assert_memory_equal(sk->ke, key, 24);
            expect_dk(16, key, 24, KG_USAGE_V1_SIGN, 0x99, sk->kc, sk->kc_len);
            for (int slot = UK_SEND_SIGN; slot < UK__COUNT; slot++) {
                assert_int_equal(ctx->sk[slot].ke_len + ctx->sk[slot].ki_len +
                                     ctx->sk[slot].kc_len,
                                 0);
            }
            gk5_ctx_free(ctx);
#else
            {
                uint32_t minor = 0;
                gk5_ctx *ctx = NULL;
                uint32_t major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
                const char *words;

                assert_int_equal(major, GK5_S_UNAVAILABLE);
                assert_int_equal(GK5_ERR_CODE(minor),
                                 GK5_ERR_ENCTYPE_NOT_BUILT);
                assert_int_equal(GK5_ERR_ENCTYPE(minor), des3_types[i]);
                assert_null(ctx);
                words = gk5_display_status(major, minor);
                assert_non_null(strstr(words, "not built"));
                assert_non_null(strstr(words, "des3"));
            }
#endif
        }
    }
}

/* Every prefix of a valid buffer is TRUNCATED; one byte more TOO_LONG. */
static void check_truncations(int32_t enctype, size_t key_len, uint32_t flags)
{
    uint8_t key[32], buf[GSSD_HEADER + 32 + 16];
    size_t len;

    fill_key(key, key_len, 0x5a);
    len = gssd_buf(buf, flags, 0, 0, (uint32_t)enctype, key, key_len);
    for (size_t cut = 0; cut < len; cut++) {
        expect_gssd_fail(buf, cut, GK5_S_DEFECTIVE_TOKEN,
                         GK5_ERR_IMPORT_TRUNCATED);
    }
    memset(buf + len, 0, 16);
    expect_gssd_fail(buf, len + 1, GK5_S_DEFECTIVE_TOKEN,
                     GK5_ERR_IMPORT_TOO_LONG);
    expect_gssd_fail(buf, len + 16, GK5_S_DEFECTIVE_TOKEN,
                     GK5_ERR_IMPORT_TOO_LONG);
}

static void test_gssd_truncated_and_long(void **state)
{
    (void)state;
    check_truncations(17, 16, GK5_GSSD_FLAG_CFX);
    check_truncations(20, 32, GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR);
#ifdef GK5_WITH_DES3
    check_truncations(16, 24, 0);
    check_truncations(6, 24, GK5_GSSD_FLAG_INITIATOR);
#endif
}

static void test_gssd_unknown_flags(void **state)
{
    uint8_t key[16], buf[64];

    (void)state;
    fill_key(key, 16, 1);
    for (int bit = 3; bit < 32; bit++) {
        size_t len =
            gssd_buf(buf, GK5_GSSD_FLAG_CFX | (1u << bit), 0, 0, 17, key, 16);

        expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_FLAGS);
    }
}

/* The checks come in a fixed order: truncated header, flags, enctype, key
 * short, key long, protocol. */
static void test_gssd_check_order(void **state)
{
    uint8_t key[32], buf[64];
    size_t len;

    (void)state;
    fill_key(key, 32, 2);
    /* truncated before the enctype beats bad flags */
    len = gssd_buf(buf, 0x80, 0, 0, 17, key, 16);
    expect_gssd_fail(buf, GSSD_HEADER - 1, GK5_S_DEFECTIVE_TOKEN,
                     GK5_ERR_IMPORT_TRUNCATED);
    /* bad flags beat a refused enctype */
    len = gssd_buf(buf, 0x80, 0, 0, 23, key, 16);
    expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_FLAGS);
    /* a refused enctype beats a short key and a missing CFX flag */
    len = gssd_buf(buf, 0, 0, 0, 23, key, 16);
    expect_gssd_fail(buf, GSSD_HEADER + 3, GK5_S_UNAVAILABLE,
                     GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    /* a short key beats the protocol check */
    len = gssd_buf(buf, 0, 0, 0, 18, key, 32);
    expect_gssd_fail(buf, len - 1, GK5_S_DEFECTIVE_TOKEN,
                     GK5_ERR_IMPORT_TRUNCATED);
    /* too long beats the protocol check */
    len = gssd_buf(buf, 0, 0, 0, 17, key, 32);
    expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_TOO_LONG);
}

static void test_gssd_cfx_mismatch(void **state)
{
    uint8_t key[32], buf[64];
    size_t len;

    (void)state;
    fill_key(key, 32, 3);
    for (size_t e = 0; e < sizeof(cfx_enctypes) / sizeof(cfx_enctypes[0]);
         e++) {
        const struct cfx_enctype *ce = &cfx_enctypes[e];

        len = gssd_buf(buf, GK5_GSSD_FLAG_INITIATOR, 0, 0,
                       (uint32_t)ce->enctype, key, ce->key_len);
        expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN,
                         GK5_ERR_IMPORT_PROTOCOL);
        len = gssd_buf(buf, GK5_GSSD_FLAG_ACCEPTOR_SUBKEY, 0, 0,
                       (uint32_t)ce->enctype, key, ce->key_len);
        expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN,
                         GK5_ERR_IMPORT_PROTOCOL);
    }
#ifdef GK5_WITH_DES3
    len = gssd_buf(buf, GK5_GSSD_FLAG_CFX, 0, 0, 16, key, 24);
    expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
    len = gssd_buf(buf, GK5_GSSD_FLAG_ACCEPTOR_SUBKEY, 0, 0, 6, key, 24);
    expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
    /* RFC 1964 numbers are 32 bits */
    len = gssd_buf(buf, 0, 0, (uint64_t)1 << 32, 16, key, 24);
    expect_gssd_fail(buf, len, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
#endif
}

struct refusal {
    uint32_t enctype;
    size_t key_len;
    uint32_t code;
    const char *words[2];
};

static void test_gssd_refused_enctypes(void **state)
{
    static const struct refusal refusals[] = {
        {23, 16, GK5_ERR_ENCTYPE_REJECTED, {"rc4-hmac (23)", "RFC 8429"}},
        {24, 16, GK5_ERR_ENCTYPE_REJECTED, {"rc4-hmac-exp (24)", "RFC 8429"}},
        {1, 8, GK5_ERR_ENCTYPE_REJECTED, {"des-cbc-crc (1)", "RFC 6649"}},
        {2, 8, GK5_ERR_ENCTYPE_REJECTED, {"des-cbc-md4 (2)", "RFC 6649"}},
        {3, 8, GK5_ERR_ENCTYPE_REJECTED, {"des-cbc-md5 (3)", "RFC 6649"}},
        {99, 16, GK5_ERR_ENCTYPE_UNKNOWN, {"99", "unknown"}},
        {0xffffffffu, 16, GK5_ERR_ENCTYPE_UNKNOWN, {"-1", "unknown"}},
    };
    uint8_t key[32], buf[64];

    (void)state;
    fill_key(key, 32, 4);
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        const struct refusal *r = &refusals[i];
        uint32_t flag_sets[] = {0, GK5_GSSD_FLAG_CFX};

        for (size_t f = 0; f < 2; f++) {
            size_t len =
                gssd_buf(buf, flag_sets[f], 0, 0, r->enctype, key, r->key_len);
            uint32_t minor = 0;
            gk5_ctx *ctx = NULL;
            uint32_t major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
            const char *words = gk5_display_status(major, minor);

            assert_int_equal(major, GK5_S_UNAVAILABLE);
            assert_int_equal(GK5_ERR_CODE(minor), r->code);
            assert_int_equal(GK5_ERR_ENCTYPE(minor), (int32_t)r->enctype);
            assert_null(ctx);
            for (int w = 0; w < 2; w++) {
                if (strstr(words, r->words[w]) == NULL) {
                    fail_msg("enctype %d: \"%s\" lacks \"%s\"", (int)r->enctype,
                             words, r->words[w]);
                }
            }
        }
    }
}

static void test_gssd_bad_arguments(void **state)
{
    uint8_t key[16], buf[64];
    uint32_t minor = 0;
    gk5_ctx *ctx = NULL;
    size_t len;

    (void)state;
    fill_key(key, 16, 5);
    len = gssd_buf(buf, GK5_GSSD_FLAG_CFX, 0, 0, 17, key, 16);
    assert_int_equal(gk5_ctx_import_gssd(&minor, buf, len, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_ctx_import_gssd(&minor, NULL, 36, &ctx),
                     GK5_S_FAILURE);
    assert_null(ctx);
    assert_int_equal(gk5_ctx_import_gssd(NULL, buf, len, &ctx),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_null(ctx); /* nothing made that the caller cannot learn of */
}

/* RFC 2744 3.9.1: without a minor the call can report nothing, so it must
 * also do nothing: no context made (none leaked), none exported, no flags
 * changed. */
static void test_null_minor_changes_nothing(void **state)
{
    uint8_t key[16], buf[64];
    uint32_t minor = 0;
    gk5_ctx *ctx = NULL, *made = NULL;
    gk5_buffer exp = {0, NULL};
    gk5_ctx_info info;
    gk5_lucid_ctx l;
    size_t len;

    (void)state;
    fill_key(key, 16, 5);
    len = gssd_buf(buf, GK5_GSSD_FLAG_CFX, 0, 0, 17, key, 16);
    assert_int_equal(gk5_ctx_import_gssd(&minor, buf, len, &ctx),
                     GK5_S_COMPLETE);

    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.protocol = 1;
    l.cfx_kd.ctx_key.type = 17;
    l.cfx_kd.ctx_key.length = 16;
    l.cfx_kd.ctx_key.data = key;
    assert_int_equal(gk5_ctx_import_lucid(NULL, &l, &made),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_null(made);

    assert_int_equal(gk5_ctx_export(NULL, ctx, &exp),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_null(exp.value);
    assert_int_equal(gk5_ctx_export(&minor, ctx, &exp), GK5_S_COMPLETE);
    assert_int_equal(gk5_ctx_import(NULL, exp.value, exp.length, &made),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_null(made);
    gk5_buffer_release(&exp);

    assert_int_equal(gk5_ctx_set_flags(NULL, ctx, 0),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.flags, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE);
    assert_int_equal(gk5_ctx_inquire(NULL, ctx, &info),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    gk5_ctx_free(ctx);
}

/* ---- lucid ---- */

static gk5_lucid_ctx lucid_cfx(const uint8_t *ctx_key, int32_t ctx_type,
                               size_t ctx_len, const uint8_t *subkey,
                               int32_t sub_type, size_t sub_len)
{
    gk5_lucid_ctx l;

    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.initiate = 1;
    l.endtime = 0;
    l.send_seq = 500;
    l.recv_seq = 9000;
    l.protocol = 1;
    l.cfx_kd.ctx_key.type = (uint32_t)ctx_type;
    l.cfx_kd.ctx_key.length = (uint32_t)ctx_len;
    l.cfx_kd.ctx_key.data = ctx_key;
    if (subkey != NULL) {
        l.cfx_kd.have_acceptor_subkey = 1;
        l.cfx_kd.acceptor_subkey.type = (uint32_t)sub_type;
        l.cfx_kd.acceptor_subkey.length = (uint32_t)sub_len;
        l.cfx_kd.acceptor_subkey.data = subkey;
    }
    return l;
}

static void expect_lucid(const gk5_lucid_ctx *l, uint32_t major_want,
                         uint32_t minor_want)
{
    gk5_ctx *ctx = (gk5_ctx *)&ctx;
    uint32_t minor = 0;
    uint32_t major = gk5_ctx_import_lucid(&minor, l, &ctx);

    if (major != major_want || minor != minor_want) {
        fail_msg("lucid: got %s/0x%x (%s), want %s/0x%x", gk5_major_name(major),
                 (unsigned)minor, gk5_display_status(major, minor),
                 gk5_major_name(major_want), (unsigned)minor_want);
    }
    if (major == GK5_S_COMPLETE) {
        assert_non_null(ctx);
        gk5_ctx_free(ctx);
    } else {
        assert_null(ctx);
    }
}

static void test_lucid_cfx(void **state)
{
    uint8_t k256[32], k128[16];
    gk5_lucid_ctx l;
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;
    bool started;
    uint64_t next, bitmap;

    (void)state;
    fill_key(k256, 32, 6);
    fill_key(k128, 16, 7);

    /* without an acceptor subkey: the context key */
    l = lucid_cfx(k256, 18, 32, NULL, 0, 0);
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx), GK5_S_COMPLETE);
    expect_info(ctx, 18, 1, 1, 0, 0, 500);
    expect_cfx_subkeys(ctx, 18, k256, 32, true);
    /* the window expects the peer's initial number, nothing received */
    gk5i_seq_get(&ctx->recv, &started, &next, &bitmap);
    assert_true(started);
    assert_int_equal(next, 9000);
    assert_int_equal(bitmap, 0);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 9000), 0);
    gk5_ctx_free(ctx);

    /* with one: the subkey (and its enctype), acceptor role */
    l = lucid_cfx(k256, 18, 32, k128, 17, 16);
    l.initiate = 0;
    l.endtime = 1900000000u;
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx), GK5_S_COMPLETE);
    expect_info(ctx, 17, 0, 1, 1, 1900000000u, 500);
    expect_cfx_subkeys(ctx, 17, k128, 16, false);
    gk5_ctx_free(ctx);

    /* have_acceptor_subkey decides, whatever the other key holds */
    l = lucid_cfx(NULL, 0, 0, k256, 20, 32);
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx), GK5_S_COMPLETE);
    expect_info(ctx, 20, 1, 1, 1, 0, 500);
    gk5_ctx_free(ctx);
}

static void test_lucid_malformed(void **state)
{
    uint8_t k256[32], k128[16];
    gk5_lucid_ctx l;
    uint32_t minor = 0;
    gk5_ctx *ctx = NULL;

    (void)state;
    fill_key(k256, 32, 8);
    fill_key(k128, 16, 9);

    l = lucid_cfx(k256, 18, 32, NULL, 0, 0);
    l.version = 0;
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_VERSION);
    l.version = 2;
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_VERSION);

    l = lucid_cfx(k256, 18, 32, NULL, 0, 0);
    l.protocol = 2;
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);

    /* key length not the enctype's, or no key */
    l = lucid_cfx(k256, 18, 16, NULL, 0, 0);
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH);
    l = lucid_cfx(k256, 17, 32, NULL, 0, 0);
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH);
    l = lucid_cfx(NULL, 17, 16, NULL, 0, 0);
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH);
    l = lucid_cfx(k256, 18, 32, k128, 17, 15);
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH);

    /* refused enctypes, as the context key or the subkey */
    l = lucid_cfx(k128, 23, 16, NULL, 0, 0);
    expect_lucid(&l, GK5_S_UNAVAILABLE,
                 GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    l = lucid_cfx(k256, 18, 32, k128, 24, 16);
    expect_lucid(&l, GK5_S_UNAVAILABLE,
                 GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 24));
    l = lucid_cfx(k128, 99, 16, NULL, 0, 0);
    expect_lucid(&l, GK5_S_UNAVAILABLE,
                 GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, 99));

    /* RC4 as MIT exports it (protocol 0, sign 0x11, seal 0x10): the
     * table's reason, not "bad algorithm" */
    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.protocol = 0;
    l.rfc1964_kd.sign_alg = 0x11;
    l.rfc1964_kd.seal_alg = 0x10;
    l.rfc1964_kd.ctx_key.type = 23;
    l.rfc1964_kd.ctx_key.length = 16;
    l.rfc1964_kd.ctx_key.data = k128;
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx), GK5_S_UNAVAILABLE);
    assert_null(ctx);
    assert_non_null(
        strstr(gk5_display_status(GK5_S_UNAVAILABLE, minor), "RFC 8429"));

    /* protocol 0 with an RFC 4121 enctype */
    l.rfc1964_kd.sign_alg = 4;
    l.rfc1964_kd.seal_alg = 2;
    l.rfc1964_kd.ctx_key.type = 17;
    expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);

    assert_int_equal(gk5_ctx_import_lucid(&minor, NULL, &ctx), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    l = lucid_cfx(k256, 18, 32, NULL, 0, 0);
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, NULL), GK5_S_FAILURE);
}

static void test_lucid_rfc1964(void **state)
{
    static const uint32_t types[] = {16, 6};
    uint8_t k192[24];
    gk5_lucid_ctx l;

    (void)state;
    fill_key(k192, 24, 10);
    for (size_t i = 0; i < 2; i++) {
        memset(&l, 0, sizeof(l));
        l.version = 1;
        l.initiate = 1;
        l.send_seq = 0x12345678;
        l.recv_seq = 0x0badcafe;
        l.protocol = 0;
        l.rfc1964_kd.sign_alg = 4;
        l.rfc1964_kd.seal_alg = 2;
        l.rfc1964_kd.ctx_key.type = types[i];
        l.rfc1964_kd.ctx_key.length = 24;
        l.rfc1964_kd.ctx_key.data = k192;
#ifdef GK5_WITH_DES3
        {
            gk5_ctx *ctx = NULL;
            uint32_t minor = 0;
            bool started;
            uint64_t next, bitmap;

            assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx),
                             GK5_S_COMPLETE);
            expect_info(ctx, 16, 1, 0, 0, 0, 0x12345678);
            assert_true(ctx->sk[UK_SEND_SEAL].raw);
            assert_memory_equal(ctx->sk[UK_SEND_SEAL].ke, k192, 24);
            gk5i_seq_get(&ctx->recv, &started, &next, &bitmap);
            assert_true(started);
            assert_int_equal(next, 0x0badcafe);
            gk5_ctx_free(ctx);
        }
        l.rfc1964_kd.sign_alg = 0;
        expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
        l.rfc1964_kd.sign_alg = 4;
        l.rfc1964_kd.seal_alg = 0xffff;
        expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
        l.rfc1964_kd.seal_alg = 2;
        l.rfc1964_kd.ctx_key.length = 16;
        expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH);
        l.rfc1964_kd.ctx_key.length = 24;
        l.send_seq = (uint64_t)1 << 32;
        expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
        l.send_seq = 0;
        /* DES3 with CFX tokens is not a combination MIT makes */
        l.protocol = 1;
        l.cfx_kd.ctx_key = l.rfc1964_kd.ctx_key;
        expect_lucid(&l, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_PROTOCOL);
#else
        expect_lucid(
            &l, GK5_S_UNAVAILABLE,
            GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, (int32_t)types[i]));
#endif
    }
}

/* ---- gk5's own export format ---- */

static gk5_buffer export_ok(const gk5_ctx *ctx)
{
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0xffff;

    assert_int_equal(gk5_ctx_export(&minor, ctx, &out), GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    assert_non_null(out.value);
    return out;
}

static gk5_ctx *import_ok(const gk5_buffer *buf)
{
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0xffff;
    uint32_t major = gk5_ctx_import(&minor, buf->value, buf->length, &ctx);

    if (major != GK5_S_COMPLETE) {
        fail_msg("import: %s", gk5_display_status(major, minor));
    }
    assert_non_null(ctx);
    return ctx;
}

static void expect_import_fail(const uint8_t *buf, size_t len,
                               uint32_t major_want, uint32_t minor_want,
                               const char *what)
{
    gk5_ctx *ctx = (gk5_ctx *)&ctx;
    uint32_t minor = 0;
    uint32_t major = gk5_ctx_import(&minor, buf, len, &ctx);

    if (major != major_want || minor != minor_want) {
        fail_msg("%s: got %s/0x%x (%s), want %s/0x%x", what,
                 gk5_major_name(major), (unsigned)minor,
                 gk5_display_status(major, minor), gk5_major_name(major_want),
                 (unsigned)minor_want);
    }
    assert_null(ctx);
}

static void expect_same_state(gk5_ctx *a, gk5_ctx *b)
{
    gk5_ctx_info ia, ib;
    uint32_t minor;
    bool sa, sb;
    uint64_t na, nb, ba, bb;

    assert_int_equal(gk5_ctx_inquire(&minor, a, &ia), GK5_S_COMPLETE);
    assert_int_equal(gk5_ctx_inquire(&minor, b, &ib), GK5_S_COMPLETE);
    assert_int_equal(ia.enctype, ib.enctype);
    assert_int_equal(ia.initiator, ib.initiator);
    assert_int_equal(ia.cfx, ib.cfx);
    assert_int_equal(ia.acceptor_subkey, ib.acceptor_subkey);
    assert_int_equal(ia.endtime, ib.endtime);
    assert_int_equal(ia.flags, ib.flags);
    assert_int_equal(ia.send_seq, ib.send_seq);
    gk5i_seq_get(&a->recv, &sa, &na, &ba);
    gk5i_seq_get(&b->recv, &sb, &nb, &bb);
    assert_int_equal(sa, sb);
    assert_int_equal(na, nb);
    assert_int_equal(ba, bb);
    for (int slot = 0; slot < UK__COUNT; slot++) {
        assert_int_equal(a->sk[slot].raw, b->sk[slot].raw);
        assert_int_equal(a->sk[slot].ke_len, b->sk[slot].ke_len);
        assert_int_equal(a->sk[slot].ki_len, b->sk[slot].ki_len);
        assert_int_equal(a->sk[slot].kc_len, b->sk[slot].kc_len);
        assert_memory_equal(a->sk[slot].ke, b->sk[slot].ke, a->sk[slot].ke_len);
        assert_memory_equal(a->sk[slot].ki, b->sk[slot].ki, a->sk[slot].ki_len);
        assert_memory_equal(a->sk[slot].kc, b->sk[slot].kc, a->sk[slot].kc_len);
    }
}

/* State carried without the token layer: counter, window, options. */
static void round_trip_state(gk5_ctx *ctx)
{
    gk5_buffer one, two;
    gk5_ctx *copy;
    uint64_t seq_a, seq_b;
    uint32_t minor;

    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq_a), 0);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq_a), 0);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 40), 0);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 45),
                     GK5_S_GAP_TOKEN);
    assert_int_equal(gk5_ctx_set_flags(&minor, ctx, GK5_CTX_REPLAY),
                     GK5_S_COMPLETE);

    one = export_ok(ctx);
    copy = import_ok(&one);
    expect_same_state(ctx, copy);
    /* exporting the copy gives the same bytes */
    two = export_ok(copy);
    assert_int_equal(one.length, two.length);
    assert_memory_equal(one.value, two.value, one.length);

    /* and it behaves the same from here on */
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq_a), 0);
    assert_int_equal(gk5i_ctx_next_seq(copy, &seq_b), 0);
    assert_int_equal(seq_a, seq_b);
    for (uint64_t s = 38; s < 48; s++) {
        assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, s),
                         gk5i_seq_check(&copy->recv, ALL_OPTIONS, s));
    }
    assert_int_equal(gk5i_seq_check(&copy->recv, GK5_CTX_REPLAY, 45),
                     GK5_S_DUPLICATE_TOKEN);

    gk5_buffer_release(&one);
    gk5_buffer_release(&two);
    gk5_ctx_free(copy);
}

static void test_export_round_trip_state(void **state)
{
    gk5_ctx *ctx;

    (void)state;
    for (size_t e = 0; e < sizeof(cfx_enctypes) / sizeof(cfx_enctypes[0]);
         e++) {
        ctx = gssd_ctx(GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR |
                           GK5_GSSD_FLAG_ACCEPTOR_SUBKEY,
                       2100000000u, 17, cfx_enctypes[e].enctype,
                       cfx_enctypes[e].key_len, (uint8_t)e);
        round_trip_state(ctx);
        gk5_ctx_free(ctx);
    }
#ifdef GK5_WITH_DES3
    ctx = gssd_ctx(0, 0, 0xfffffff0u, 6, 24, 0x33);
    round_trip_state(ctx);
    gk5_ctx_free(ctx);
#endif
}

/* A window started from a lucid recv_seq, with a late number recorded
 * before anything in order, survives export. */
static void test_export_lucid_window(void **state)
{
    uint8_t k128[16];
    gk5_lucid_ctx l;
    gk5_ctx *ctx = NULL, *copy;
    gk5_buffer buf;
    uint32_t minor;

    (void)state;
    fill_key(k128, 16, 11);
    l = lucid_cfx(k128, 17, 16, NULL, 0, 0);
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ctx), GK5_S_COMPLETE);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 8990),
                     GK5_S_UNSEQ_TOKEN);
    buf = export_ok(ctx);
    copy = import_ok(&buf);
    expect_same_state(ctx, copy);
    assert_int_equal(gk5i_seq_check(&copy->recv, ALL_OPTIONS, 9000), 0);
    assert_int_equal(gk5i_seq_check(&copy->recv, ALL_OPTIONS, 8990),
                     GK5_S_DUPLICATE_TOKEN);
    gk5_buffer_release(&buf);
    gk5_ctx_free(copy);
    gk5_ctx_free(ctx);
}

/* Offsets of the format documented at the top of src/mech/export.c. */
#define X_VERSION 4
#define X_ENCTYPE 8
#define X_CTXFLAGS 12
#define X_OPTIONS 16
#define X_SEND_SEQ 24
#define X_STATE 32
#define X_NEXT 36
#define X_SLOTS 52
#define X_DIGEST 32 /* the last 32 bytes */

/* The digest recomputed over buf[0..len - 32): a buffer changed on
 * purpose, so that the checks behind the digest are reached. */
static void reseal(uint8_t *buf, size_t len)
{
    assert_true(len >= X_DIGEST);
    assert_int_equal(gk5i_sha256(buf, len - X_DIGEST, buf + len - X_DIGEST),
                     GK5_OK);
}

/* A field changed (and the digest made to fit it): the field's own check
 * answers; without the new digest, the digest check does. */
static void mutate_and_expect(const gk5_buffer *good, size_t off,
                              uint32_t value, size_t width, uint32_t major_want,
                              uint32_t minor_want, const char *what)
{
    uint8_t *copy = malloc(good->length);

    assert_non_null(copy);
    memcpy(copy, good->value, good->length);
    if (width == 4) {
        store_be32(copy + off, value);
    } else {
        copy[off] = (uint8_t)value;
    }
    if (off >= 8) {
        expect_import_fail(copy, good->length, GK5_S_DEFECTIVE_TOKEN,
                           GK5_ERR_IMPORT_DIGEST, what);
    }
    reseal(copy, good->length);
    expect_import_fail(copy, good->length, major_want, minor_want, what);
    free(copy);
}

/* Every single-bit change anywhere is refused: in the magic or version by
 * their checks, everywhere else by the digest. */
static void test_import_bit_flips(void **state)
{
    gk5_ctx *ctx;
    gk5_buffer good;
    uint8_t *copy;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR, 1234567, 77, 20,
                   32, 0x5a);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 9), 0);
    good = export_ok(ctx);
    copy = malloc(good.length);
    assert_non_null(copy);
    for (size_t i = 0; i < good.length; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            char what[48];

            memcpy(copy, good.value, good.length);
            copy[i] ^= (uint8_t)(1u << bit);
            snprintf(what, sizeof(what), "byte %zu bit %u", i, bit);
            expect_import_fail(
                copy, good.length, GK5_S_DEFECTIVE_TOKEN,
                i < 8 ? GK5_ERR_IMPORT_VERSION : GK5_ERR_IMPORT_DIGEST, what);
        }
    }
    free(copy);
    gk5_buffer_release(&good);
    gk5_ctx_free(ctx);
}

static void test_import_malformed(void **state)
{
    gk5_ctx *ctx;
    gk5_buffer good;
    const uint8_t *g;
    uint8_t *bigger;
    gk5_ctx *out = NULL;
    uint32_t minor;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 3, 18, 32, 0x21);
    assert_int_equal(gk5i_seq_check(&ctx->recv, ALL_OPTIONS, 5), 0);
    good = export_ok(ctx);
    g = good.value;
    assert_memory_equal(g, "gk5C", 4);
    assert_int_equal(load_be32(g + X_VERSION), 2);
    assert_int_equal(load_be32(g + X_ENCTYPE), 18);

    /* Cut short: too short for the digest, or the digest no longer fits;
     * cut and resealed, the field reader runs short. */
    bigger = malloc(good.length + 1);
    assert_non_null(bigger);
    for (size_t cut = 0; cut < good.length; cut++) {
        char what[32];

        snprintf(what, sizeof(what), "cut at %zu", cut);
        expect_import_fail(g, cut, GK5_S_DEFECTIVE_TOKEN,
                           cut < 8 + X_DIGEST ? GK5_ERR_IMPORT_TRUNCATED
                                              : GK5_ERR_IMPORT_DIGEST,
                           what);
        if (cut >= 8 && cut < good.length - X_DIGEST) {
            memcpy(bigger, g, cut);
            reseal(bigger, cut + X_DIGEST);
            expect_import_fail(bigger, cut + X_DIGEST, GK5_S_DEFECTIVE_TOKEN,
                               GK5_ERR_IMPORT_TRUNCATED, what);
        }
    }
    memcpy(bigger, g, good.length);
    bigger[good.length] = 0;
    expect_import_fail(bigger, good.length + 1, GK5_S_DEFECTIVE_TOKEN,
                       GK5_ERR_IMPORT_DIGEST, "one byte more");
    /* one byte more before the digest, resealed */
    memcpy(bigger, g, good.length - X_DIGEST);
    bigger[good.length - X_DIGEST] = 0;
    reseal(bigger, good.length + 1);
    expect_import_fail(bigger, good.length + 1, GK5_S_DEFECTIVE_TOKEN,
                       GK5_ERR_IMPORT_TOO_LONG, "one byte more, resealed");
    free(bigger);

    mutate_and_expect(&good, 0, 'G', 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_VERSION, "magic");
    mutate_and_expect(&good, X_VERSION, 1, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_VERSION, "version 1 (no digest)");
    mutate_and_expect(&good, X_VERSION, 3, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_VERSION, "version 3");
    mutate_and_expect(&good, X_VERSION, 0, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_VERSION, "version 0");
    mutate_and_expect(&good, X_ENCTYPE, 23, 4, GK5_S_UNAVAILABLE,
                      GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23), "rc4");
    mutate_and_expect(&good, X_ENCTYPE, 99, 4, GK5_S_UNAVAILABLE,
                      GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, 99), "99");
    mutate_and_expect(&good, X_ENCTYPE, 17, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_KEY_LENGTH, "aes128 with aes256 keys");
    mutate_and_expect(&good, X_CTXFLAGS, GK5_CTXF_CFX | 0x8, 4,
                      GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_FLAGS, "ctxflags");
    mutate_and_expect(&good, X_CTXFLAGS, 0, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_PROTOCOL, "CFX clear");
    mutate_and_expect(&good, X_OPTIONS, ALL_OPTIONS | 1, 4,
                      GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_FLAGS, "options");
    mutate_and_expect(&good, X_STATE, 0x1 | 0x4, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_FLAGS, "state bits");
    mutate_and_expect(&good, X_STATE, 0x1 | 0x2, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_PROTOCOL, "exhausted, not at 2^64-1");
    mutate_and_expect(&good, X_STATE, 0, 4, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_PROTOCOL, "not started, but a window");
    mutate_and_expect(&good, X_SLOTS, 1, 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_PROTOCOL, "raw flag");
    mutate_and_expect(&good, X_SLOTS, 2, 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_PROTOCOL, "raw flag 2");
    mutate_and_expect(&good, X_SLOTS + 1, 31, 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_KEY_LENGTH, "Ke 31 bytes");
    mutate_and_expect(&good, X_SLOTS + 1, 33, 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_KEY_LENGTH, "Ke 33 bytes");
    mutate_and_expect(&good, X_SLOTS + 1, 255, 1, GK5_S_DEFECTIVE_TOKEN,
                      GK5_ERR_IMPORT_KEY_LENGTH, "Ke 255 bytes");
    /* the last slot's Kc length byte */
    mutate_and_expect(&good, good.length - X_DIGEST - 33, 0, 1,
                      GK5_S_DEFECTIVE_TOKEN, GK5_ERR_IMPORT_KEY_LENGTH,
                      "last Kc 0 bytes");

    /* the unmodified buffer still imports */
    out = import_ok(&good);
    gk5_ctx_free(out);
    out = NULL;
    assert_int_equal(gk5_ctx_import(&minor, good.value, good.length, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(gk5_ctx_import(&minor, NULL, 10, &out), GK5_S_FAILURE);
    assert_null(out);

    gk5_buffer_release(&good);
    gk5_ctx_free(ctx);
}

static void test_export_arguments(void **state)
{
    gk5_buffer out = {5, (void *)&out};
    uint32_t minor = 0;
    gk5_ctx *ctx;

    (void)state;
    assert_int_equal(gk5_ctx_export(&minor, NULL, &out), GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_int_equal(out.length, 0);
    assert_null(out.value);
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 0, 17, 16, 0x44);
    assert_int_equal(gk5_ctx_export(&minor, ctx, NULL), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    gk5_ctx_free(ctx);
}

/* ---- send numbers ---- */

static void test_send_seq_exhaustion_64(void **state)
{
    gk5_ctx *ctx, *copy;
    gk5_buffer buf;
    uint64_t seq = 1;
    gk5_ctx_info info;
    uint32_t minor;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, UINT64_MAX - 1, 17, 16, 0x50);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, UINT64_MAX - 1);

    /* export with the last number still unused */
    buf = export_ok(ctx);
    copy = import_ok(&buf);
    gk5_buffer_release(&buf);

    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, UINT64_MAX);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    assert_int_equal(seq, 0);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.send_seq, UINT64_MAX);

    /* the copy still has 2^64 - 1 to give, once */
    assert_int_equal(gk5i_ctx_next_seq(copy, &seq), 0);
    assert_int_equal(seq, UINT64_MAX);
    assert_int_equal(gk5i_ctx_next_seq(copy, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    gk5_ctx_free(copy);

    /* and an exhausted context stays exhausted through export */
    buf = export_ok(ctx);
    copy = import_ok(&buf);
    assert_int_equal(gk5i_ctx_next_seq(copy, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    gk5_buffer_release(&buf);
    gk5_ctx_free(copy);
    gk5_ctx_free(ctx);
}

#ifdef GK5_WITH_DES3
static void test_send_seq_exhaustion_32(void **state)
{
    gk5_ctx *ctx, *copy;
    gk5_buffer buf;
    uint64_t seq;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_INITIATOR, 0, 0xfffffffeu, 16, 24, 0x51);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, 0xfffffffeu);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, 0xffffffffu);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    buf = export_ok(ctx);
    copy = import_ok(&buf);
    assert_int_equal(gk5i_ctx_next_seq(copy, &seq), GK5_ERR_CTX_SEQ_EXHAUSTED);
    gk5_buffer_release(&buf);
    gk5_ctx_free(copy);
    gk5_ctx_free(ctx);
}
#endif

#define SEQ_THREADS 4
#define SEQ_PER_THREAD 2500

struct seq_worker {
    gk5_ctx *ctx;
    uint64_t got[SEQ_PER_THREAD];
    int failures;
};

static void *seq_worker_main(void *arg)
{
    struct seq_worker *w = arg;

    for (int i = 0; i < SEQ_PER_THREAD; i++) {
        if (gk5i_ctx_next_seq(w->ctx, &w->got[i]) != 0) {
            w->failures++;
        }
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Many threads take numbers from start on at once: each one exactly
 * once, none skipped. */
static void send_seq_threads_from(uint64_t start)
{
    static struct seq_worker w[SEQ_THREADS];
    static uint64_t all[SEQ_THREADS * SEQ_PER_THREAD];
    pthread_t tid[SEQ_THREADS];
    gk5_ctx *ctx;
    gk5_ctx_info info;
    uint32_t minor;

    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, start, 18, 32, 0x52);
    for (int t = 0; t < SEQ_THREADS; t++) {
        w[t].ctx = ctx;
        w[t].failures = 0;
        assert_int_equal(pthread_create(&tid[t], NULL, seq_worker_main, &w[t]),
                         0);
    }
    for (int t = 0; t < SEQ_THREADS; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
        assert_int_equal(w[t].failures, 0);
        memcpy(all + (size_t)t * SEQ_PER_THREAD, w[t].got, sizeof(w[t].got));
    }
    qsort(all, SEQ_THREADS * SEQ_PER_THREAD, sizeof(all[0]), cmp_u64);
    for (size_t i = 0; i < SEQ_THREADS * SEQ_PER_THREAD; i++) {
        assert_int_equal(all[i], start + i);
    }
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.send_seq, start + SEQ_THREADS * SEQ_PER_THREAD);
    gk5_ctx_free(ctx);
}

static void test_send_seq_threads(void **state)
{
    (void)state;
    send_seq_threads_from(0xfffffff0u);
}

/* Numbers within 2^21 of the end are taken by compare-and-swap: threads
 * crossing that line from the atomic adds still take each number once. */
static void test_send_seq_threads_near_end(void **state)
{
    (void)state;
    send_seq_threads_from(UINT64_MAX - ((uint64_t)1 << 21) -
                          SEQ_THREADS * SEQ_PER_THREAD / 2);
}

/* One thread across that line: the flag is set by the first number past
 * it, and the numbers run on without a gap. */
static void test_send_seq_near_end_flag(void **state)
{
    const uint64_t line = UINT64_MAX - ((uint64_t)1 << 21);
    gk5_ctx *ctx, *near;
    uint64_t seq = 0;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, line - 2, 17, 16, 0x53);
    assert_false(atomic_load(&ctx->send_near_end));
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, line - 2);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, line - 1);
    assert_false(atomic_load(&ctx->send_near_end));
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, line);
    assert_true(atomic_load(&ctx->send_near_end));
    for (uint64_t want = line + 1; want < line + 100; want++) {
        assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
        assert_int_equal(seq, want);
    }
    /* a number given back is taken again on the compare-and-swap path */
    gk5i_ctx_return_seq(ctx, seq);
    assert_int_equal(gk5i_ctx_next_seq(ctx, &seq), 0);
    assert_int_equal(seq, line + 99);
    gk5_ctx_free(ctx);

    /* a context made past the line starts with the flag set */
    near = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, line + 7, 17, 16, 0x54);
    assert_true(atomic_load(&near->send_near_end));
    assert_int_equal(gk5i_ctx_next_seq(near, &seq), 0);
    assert_int_equal(seq, line + 7);
    gk5_ctx_free(near);
}

/* ---- lanes ---- */

struct lane_waiter {
    gk5_ctx *ctx;
    struct gk5_lane *lane;
};

static void *lane_waiter_main(void *arg)
{
    struct lane_waiter *w = arg;
    uint32_t err = 1;

    w->lane = gk5i_lane_acquire(w->ctx, &err);
    assert_int_equal(err, 0);
    return NULL;
}

static void expect_lane_keyed(const gk5_ctx *ctx, const struct gk5_lane *lane)
{
    for (int slot = 0; slot < UK__COUNT; slot++) {
        bool used = !ctx->et->rfc1964 || slot == UK_SEND_SEAL;

        if (used) {
            assert_non_null(lane->uk[slot]);
        } else {
            assert_null(lane->uk[slot]);
        }
    }
}

/* No lane is held: every valid lane's busy flag is clear. */
static bool lanes_all_free(gk5_ctx *ctx)
{
    uint32_t count = atomic_load(&ctx->lane_count);

    for (uint32_t i = 0; i < count; i++) {
        if (atomic_load(&gk5i_lane_at(ctx, i)->busy) != 0) {
            return false;
        }
    }
    return true;
}

static void check_lanes(gk5_ctx *ctx)
{
    struct gk5_lane *held[GK5_LANES_MAX];
    struct gk5_lane *a, *b, *c;
    struct lane_waiter waiter;
    pthread_t tid;
    uint32_t err = 1;

    assert_int_equal(atomic_load(&ctx->lane_count), 1);
    a = gk5i_lane_acquire(ctx, &err);
    assert_int_equal(err, 0);
    assert_ptr_equal(a, gk5i_lane_at(ctx, 0));
    expect_lane_keyed(ctx, a);
    b = gk5i_lane_acquire(ctx, &err);
    assert_ptr_equal(b, gk5i_lane_at(ctx, 1));
    assert_int_equal(atomic_load(&ctx->lane_count), 2);
    expect_lane_keyed(ctx, b);
    gk5i_lane_release(ctx, a);
    /* a free lane is reused: no growth in the steady state */
    c = gk5i_lane_acquire(ctx, &err);
    assert_ptr_equal(c, gk5i_lane_at(ctx, 0));
    assert_int_equal(atomic_load(&ctx->lane_count), 2);
    gk5i_lane_release(ctx, c);
    gk5i_lane_release(ctx, b);
    assert_true(lanes_all_free(ctx));

    /* up to GK5_LANES_MAX lanes, all different */
    for (int i = 0; i < GK5_LANES_MAX; i++) {
        held[i] = gk5i_lane_acquire(ctx, &err);
        assert_int_equal(err, 0);
        assert_ptr_equal(held[i], gk5i_lane_at(ctx, i));
    }
    assert_int_equal(atomic_load(&ctx->lane_count), GK5_LANES_MAX);
    /* one more waits for a lane to come free, and gets that one */
    waiter.ctx = ctx;
    waiter.lane = NULL;
    assert_int_equal(pthread_create(&tid, NULL, lane_waiter_main, &waiter), 0);
    gk5i_lane_release(ctx, held[7]);
    assert_int_equal(pthread_join(tid, NULL), 0);
    assert_ptr_equal(waiter.lane, gk5i_lane_at(ctx, 7));
    assert_int_equal(atomic_load(&ctx->lane_count), GK5_LANES_MAX);
    for (int i = 0; i < GK5_LANES_MAX; i++) {
        gk5i_lane_release(ctx, held[i]);
    }
    assert_true(lanes_all_free(ctx));
}

static void test_lanes(void **state)
{
    gk5_ctx *ctx;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 0, 20, 32, 0x60);
    check_lanes(ctx);
    gk5_ctx_free(ctx);
#ifdef GK5_WITH_DES3
    ctx = gssd_ctx(0, 0, 0, 16, 24, 0x61);
    check_lanes(ctx);
    gk5_ctx_free(ctx);
#endif
}

/* ---- expiry, inquire, set_flags, free ---- */

static void test_expiry_internal(void **state)
{
    gk5_ctx *ctx;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 0, 17, 16, 0x70);
    assert_int_equal(gk5i_ctx_check_expiry(ctx), 0);
    gk5_ctx_free(ctx);
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, (uint32_t)time(NULL) + 3600, 0, 17, 16,
                   0x70);
    assert_int_equal(gk5i_ctx_check_expiry(ctx), 0);
    gk5_ctx_free(ctx);
    ctx =
        gssd_ctx(GK5_GSSD_FLAG_CFX, (uint32_t)time(NULL) - 1, 0, 17, 16, 0x70);
    assert_int_equal(gk5i_ctx_check_expiry(ctx), GK5_ERR_CTX_EXPIRED);
    gk5_ctx_free(ctx);
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 1, 0, 17, 16, 0x70);
    assert_int_equal(gk5i_ctx_check_expiry(ctx), GK5_ERR_CTX_EXPIRED);
    gk5_ctx_free(ctx);
}

static void test_inquire_arguments(void **state)
{
    gk5_ctx_info info;
    uint32_t minor = 0;
    gk5_ctx *ctx;

    (void)state;
    memset(&info, 0xa5, sizeof(info));
    assert_int_equal(gk5_ctx_inquire(&minor, NULL, &info), GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_int_equal(info.enctype, 0);
    assert_null(info.enctype_name);
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 0, 17, 16, 0x71);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, NULL), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_ctx_inquire(NULL, ctx, &info),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_string_equal(info.enctype_name, "aes128-cts-hmac-sha1-96");
    gk5_ctx_free(ctx);
}

static void test_set_flags(void **state)
{
    gk5_ctx_info info;
    uint32_t minor = 0;
    gk5_ctx *ctx;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX, 0, 0, 17, 16, 0x72);
    assert_int_equal(gk5_ctx_set_flags(&minor, ctx, GK5_CTX_SEQUENCE),
                     GK5_S_COMPLETE);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.flags, GK5_CTX_SEQUENCE);
    assert_int_equal(gk5_ctx_set_flags(&minor, ctx, 0), GK5_S_COMPLETE);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.flags, 0);
    /* unknown bits are refused and change nothing */
    assert_int_equal(gk5_ctx_set_flags(&minor, ctx, GK5_CTX_REPLAY | 0x1),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_ctx_inquire(&minor, ctx, &info), GK5_S_COMPLETE);
    assert_int_equal(info.flags, 0);
    assert_int_equal(gk5_ctx_set_flags(&minor, NULL, 0), GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    gk5_ctx_free(ctx);
}

static void test_free_null(void **state)
{
    (void)state;
    gk5_ctx_free(NULL);
}

/* ---- with the token layer: state as tokens see it ---- */

static void make_pair(int32_t enctype, size_t key_len, uint32_t extra,
                      uint32_t endtime, uint8_t seed, gk5_ctx **init,
                      gk5_ctx **acc)
{
    uint32_t cfx = cfx_flag(enctype);

    *init = gssd_ctx(cfx | GK5_GSSD_FLAG_INITIATOR | extra, endtime, 1000,
                     enctype, key_len, seed);
    *acc = gssd_ctx(cfx | extra, endtime, 5000, enctype, key_len, seed);
}

static gk5_buffer wrap_ok(gk5_ctx *ctx, const char *msg)
{
    gk5_buffer in = {strlen(msg), (void *)(uintptr_t)msg};
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0;
    int conf = 0;
    uint32_t major =
        gk5_wrap(&minor, ctx, 1, GK5_QOP_DEFAULT, &in, &conf, &out);

    if (major != GK5_S_COMPLETE) {
        fail_msg("wrap: %s", gk5_display_status(major, minor));
    }
    return out;
}

static uint32_t unwrap_major(gk5_ctx *ctx, const gk5_buffer *tok,
                             const char *want_msg)
{
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0;
    uint32_t major = gk5_unwrap(&minor, ctx, tok, &out, NULL, NULL);

    if (GK5_ERROR(major) == 0) {
        assert_int_equal(out.length, strlen(want_msg));
        assert_memory_equal(out.value, want_msg, out.length);
    }
    gk5_buffer_release(&out);
    return major;
}

static void token_round_trip(int32_t enctype, size_t key_len, uint32_t extra)
{
    gk5_ctx *init, *acc, *acc2, *init2;
    gk5_buffer t1, t2, t3, t4, r1, x;

    make_pair(enctype, key_len, extra, 0, 0x80, &init, &acc);
    t1 = wrap_ok(init, "one");
    t2 = wrap_ok(init, "two");
    t3 = wrap_ok(init, "three");
    assert_int_equal(unwrap_major(acc, &t1, "one"), GK5_S_COMPLETE);

    /* the acceptor moves to another "process" */
    x = export_ok(acc);
    acc2 = import_ok(&x);
    gk5_buffer_release(&x);
    gk5_ctx_free(acc);

    /* a token seen before export is a duplicate after it */
    assert_int_equal(unwrap_major(acc2, &t1, "one"), GK5_S_DUPLICATE_TOKEN);
    assert_int_equal(unwrap_major(acc2, &t3, "three"), GK5_S_GAP_TOKEN);
    assert_int_equal(unwrap_major(acc2, &t2, "two"), GK5_S_UNSEQ_TOKEN);

    /* the initiator moves too; its send counter carries on */
    x = export_ok(init);
    init2 = import_ok(&x);
    gk5_buffer_release(&x);
    gk5_ctx_free(init);
    t4 = wrap_ok(init2, "four");
    assert_int_equal(unwrap_major(acc2, &t4, "four"), GK5_S_COMPLETE);

    /* and the other direction works with the moved keys */
    r1 = wrap_ok(acc2, "reply");
    assert_int_equal(unwrap_major(init2, &r1, "reply"), GK5_S_COMPLETE);
    assert_int_equal(unwrap_major(init2, &r1, "reply"), GK5_S_DUPLICATE_TOKEN);

    gk5_buffer_release(&t1);
    gk5_buffer_release(&t2);
    gk5_buffer_release(&t3);
    gk5_buffer_release(&t4);
    gk5_buffer_release(&r1);
    gk5_ctx_free(acc2);
    gk5_ctx_free(init2);
}

static void test_export_round_trip_tokens(void **state)
{
    (void)state;
    token_round_trip(17, 16, 0);
    token_round_trip(18, 32, GK5_GSSD_FLAG_ACCEPTOR_SUBKEY);
    token_round_trip(20, 32, GK5_GSSD_FLAG_ACCEPTOR_SUBKEY);
    token_round_trip(26, 32, 0);
#ifdef GK5_WITH_DES3
    token_round_trip(16, 24, 0);
#endif
}

/* Options exported with SEQUENCE off: the imported copy reports nothing
 * for a late token (with the default options it would be UNSEQ), and the
 * window still moved (the same token again is a duplicate). */
static void test_export_options_tokens(void **state)
{
    gk5_ctx *init, *acc, *acc2;
    gk5_buffer t1, t2, t3, x;
    uint32_t minor;

    (void)state;
    make_pair(19, 16, 0, 0, 0x81, &init, &acc);
    t1 = wrap_ok(init, "m");
    t2 = wrap_ok(init, "n");
    t3 = wrap_ok(init, "o");
    assert_int_equal(unwrap_major(acc, &t1, "m"), GK5_S_COMPLETE);
    assert_int_equal(unwrap_major(acc, &t3, "o"), GK5_S_GAP_TOKEN);
    assert_int_equal(gk5_ctx_set_flags(&minor, acc, GK5_CTX_REPLAY),
                     GK5_S_COMPLETE);
    x = export_ok(acc);
    acc2 = import_ok(&x);
    assert_int_equal(unwrap_major(acc2, &t2, "n"), GK5_S_COMPLETE);
    assert_int_equal(gk5_ctx_set_flags(&minor, acc2, GK5_CTX_SEQUENCE),
                     GK5_S_COMPLETE);
    assert_int_equal(unwrap_major(acc2, &t2, "n"), GK5_S_DUPLICATE_TOKEN);
    gk5_buffer_release(&t2);
    gk5_buffer_release(&t3);
    gk5_buffer_release(&x);
    gk5_buffer_release(&t1);
    gk5_ctx_free(acc2);
    gk5_ctx_free(acc);
    gk5_ctx_free(init);
}

/* A forged token between two good ones leaves the window as it was. */
static void test_forged_token_changes_nothing(void **state)
{
    gk5_ctx *init, *acc;
    gk5_buffer t1, t2, forged;
    bool s1, s2;
    uint64_t n1, n2, b1, b2;

    (void)state;
    make_pair(18, 32, GK5_GSSD_FLAG_ACCEPTOR_SUBKEY, 0, 0x82, &init, &acc);
    t1 = wrap_ok(init, "first");
    t2 = wrap_ok(init, "second");
    assert_int_equal(unwrap_major(acc, &t1, "first"), GK5_S_COMPLETE);
    gk5i_seq_get(&acc->recv, &s1, &n1, &b1);

    forged.length = t2.length;
    forged.value = malloc(t2.length);
    assert_non_null(forged.value);
    memcpy(forged.value, t2.value, t2.length);
    ((uint8_t *)forged.value)[t2.length - 1] ^= 0x01;
    assert_int_equal(unwrap_major(acc, &forged, ""), GK5_S_BAD_SIG);
    gk5i_seq_get(&acc->recv, &s2, &n2, &b2);
    assert_int_equal(s1, s2);
    assert_int_equal(n1, n2);
    assert_int_equal(b1, b2);

    assert_int_equal(unwrap_major(acc, &t2, "second"), GK5_S_COMPLETE);
    gk5_buffer_release(&forged);
    gk5_buffer_release(&t1);
    gk5_buffer_release(&t2);
    gk5_ctx_free(acc);
    gk5_ctx_free(init);
}

/* Every per-message call on an expired context: CONTEXT_EXPIRED. */
static void check_expired_calls(int32_t enctype, size_t key_len)
{
    gk5_ctx *init, *acc, *old;
    gk5_buffer msg = {5, (void *)"hello"};
    gk5_buffer tok, mic, out = {0, NULL};
    uint32_t minor = 0;
    uint32_t cfx = cfx_flag(enctype);

    make_pair(enctype, key_len, 0, (uint32_t)time(NULL) + 3600, 0x83, &init,
              &acc);
    tok = wrap_ok(init, "hello");
    assert_int_equal(gk5_get_mic(&minor, init, GK5_QOP_DEFAULT, &msg, &mic),
                     GK5_S_COMPLETE);
    /* the acceptor's twin, expired a second ago */
    old = gssd_ctx(cfx, (uint32_t)time(NULL) - 1, 5000, enctype, key_len, 0x83);

    assert_int_equal(gk5_unwrap(&minor, old, &tok, &out, NULL, NULL),
                     GK5_S_CONTEXT_EXPIRED);
    assert_int_equal(minor, GK5_ERR_CTX_EXPIRED);
    assert_null(out.value);
    assert_int_equal(gk5_verify_mic(&minor, old, &msg, &mic, NULL),
                     GK5_S_CONTEXT_EXPIRED);
    assert_int_equal(minor, GK5_ERR_CTX_EXPIRED);
    assert_int_equal(
        gk5_wrap(&minor, old, 1, GK5_QOP_DEFAULT, &msg, NULL, &out),
        GK5_S_CONTEXT_EXPIRED);
    assert_int_equal(minor, GK5_ERR_CTX_EXPIRED);
    assert_null(out.value);
    assert_int_equal(gk5_get_mic(&minor, old, GK5_QOP_DEFAULT, &msg, &out),
                     GK5_S_CONTEXT_EXPIRED);
    assert_int_equal(minor, GK5_ERR_CTX_EXPIRED);
    assert_null(out.value);
    /* the live twin still takes both */
    assert_int_equal(unwrap_major(acc, &tok, "hello"), GK5_S_COMPLETE);
    assert_int_equal(gk5_verify_mic(&minor, acc, &msg, &mic, NULL),
                     GK5_S_COMPLETE);

    gk5_buffer_release(&tok);
    gk5_buffer_release(&mic);
    gk5_ctx_free(old);
    gk5_ctx_free(acc);
    gk5_ctx_free(init);
}

static void test_expiry_tokens(void **state)
{
    (void)state;
    check_expired_calls(18, 32);
#ifdef GK5_WITH_DES3
    check_expired_calls(16, 24);
#endif
}

/* The token layer reports exhaustion as it comes from the counter. */
static void test_exhausted_wrap(void **state)
{
    gk5_ctx *ctx;
    gk5_buffer msg = {1, (void *)"x"};
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0;

    (void)state;
    ctx = gssd_ctx(GK5_GSSD_FLAG_CFX | GK5_GSSD_FLAG_INITIATOR, 0, UINT64_MAX,
                   17, 16, 0x84);
    out = wrap_ok(ctx, "x");
    gk5_buffer_release(&out);
    assert_int_equal(
        gk5_wrap(&minor, ctx, 1, GK5_QOP_DEFAULT, &msg, NULL, &out),
        GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_CTX_SEQ_EXHAUSTED);
    assert_int_equal(gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &msg, &out),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_CTX_SEQ_EXHAUSTED);
    gk5_ctx_free(ctx);
}

/* gk5_ctx_inquire_window: the arguments, then the window as the internal
 * snapshot (gk5i_seq_get) holds it, before and after tokens. */
static void check_window(gk5_ctx *ctx, int started, uint64_t next,
                         uint64_t bitmap)
{
    gk5_ctx_window w;
    uint32_t minor = 1;
    bool s = false;
    uint64_t n = 0;
    uint64_t b = 0;

    memset(&w, 0xa5, sizeof(w));
    assert_int_equal(gk5_ctx_inquire_window(&minor, ctx, &w), GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    assert_int_equal(w.started, started);
    assert_int_equal(w.next, next);
    assert_int_equal(w.bitmap, bitmap);
    gk5i_seq_get(&ctx->recv, &s, &n, &b);
    assert_int_equal(s, started);
    if (started) {
        assert_int_equal(n, next);
        assert_int_equal(b, bitmap);
    }
}

static void test_inquire_window(void **state)
{
    gk5_ctx_window w;
    uint32_t minor = 0;
    gk5_ctx *init, *acc;
    gk5_buffer t1, t2, t3;

    (void)state;
    memset(&w, 0xa5, sizeof(w));
    assert_int_equal(gk5_ctx_inquire_window(&minor, NULL, &w),
                     GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_int_equal(w.started, 0);
    assert_int_equal(w.next, 0);
    assert_int_equal(w.bitmap, 0);

    make_pair(18, 32, 0, 0, 0x33, &init, &acc);
    assert_int_equal(gk5_ctx_inquire_window(&minor, acc, NULL), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_ctx_inquire_window(NULL, acc, &w),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    check_window(acc, 0, 0, 0);

    /* The initiator sends from 1000 (make_pair). */
    t1 = wrap_ok(init, "one");
    t2 = wrap_ok(init, "two");
    t3 = wrap_ok(init, "three");
    check_window(init, 0, 0, 0); /* sending moves no receive window */
    assert_int_equal(unwrap_major(acc, &t1, "one"), GK5_S_COMPLETE);
    check_window(acc, 1, 1001, 0x1);
    assert_int_equal(unwrap_major(acc, &t3, "three"), GK5_S_GAP_TOKEN);
    check_window(acc, 1, 1003, 0x5);
    assert_int_equal(unwrap_major(acc, &t2, "two"), GK5_S_UNSEQ_TOKEN);
    check_window(acc, 1, 1003, 0x7);
    /* A duplicate changes nothing. */
    assert_int_equal(unwrap_major(acc, &t2, "two"), GK5_S_DUPLICATE_TOKEN);
    check_window(acc, 1, 1003, 0x7);

    gk5_buffer_release(&t1);
    gk5_buffer_release(&t2);
    gk5_buffer_release(&t3);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gssd_sizes),
        cmocka_unit_test(test_gssd_des3),
        cmocka_unit_test(test_gssd_truncated_and_long),
        cmocka_unit_test(test_gssd_unknown_flags),
        cmocka_unit_test(test_gssd_check_order),
        cmocka_unit_test(test_gssd_cfx_mismatch),
        cmocka_unit_test(test_gssd_refused_enctypes),
        cmocka_unit_test(test_gssd_bad_arguments),
        cmocka_unit_test(test_null_minor_changes_nothing),
        cmocka_unit_test(test_lucid_cfx),
        cmocka_unit_test(test_lucid_malformed),
        cmocka_unit_test(test_lucid_rfc1964),
        cmocka_unit_test(test_export_round_trip_state),
        cmocka_unit_test(test_export_lucid_window),
        cmocka_unit_test(test_import_malformed),
        cmocka_unit_test(test_import_bit_flips),
        cmocka_unit_test(test_export_arguments),
        cmocka_unit_test(test_send_seq_exhaustion_64),
#ifdef GK5_WITH_DES3
        cmocka_unit_test(test_send_seq_exhaustion_32),
#endif
        cmocka_unit_test(test_send_seq_threads),
        cmocka_unit_test(test_send_seq_threads_near_end),
        cmocka_unit_test(test_send_seq_near_end_flag),
        cmocka_unit_test(test_lanes),
        cmocka_unit_test(test_expiry_internal),
        cmocka_unit_test(test_inquire_arguments),
        cmocka_unit_test(test_set_flags),
        cmocka_unit_test(test_free_null),
        cmocka_unit_test(test_export_round_trip_tokens),
        cmocka_unit_test(test_export_options_tokens),
        cmocka_unit_test(test_forged_token_changes_nothing),
        cmocka_unit_test(test_expiry_tokens),
        cmocka_unit_test(test_exhausted_wrap),
        cmocka_unit_test(test_inquire_window),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
