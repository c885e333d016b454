/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The bounded reader and writer (src/common/bytes.h), the RFC 2743 3.1
 * framing (src/mech/gss_framing.c) and the token headers
 * (src/mech/token_header.h), against bytes written out by hand: the
 * sticky error, every DER length form at its boundaries, every refusal of
 * the framing with its minor code, and the RFC 4121 and RFC 1964 headers
 * of MIT's test tokens (tests/vectors/mit_gss_tokens_*.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "mech/gss_framing.h"
#include "mech/token_header.h"

/* 06 09 2a 86 48 86 f7 12 01 02 02: the krb5 mech OID, DER. */
static const uint8_t oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                              0xf7, 0x12, 0x01, 0x02, 0x02};

static void test_reader_fields(void **state)
{
    static const uint8_t in[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
                                 0x0f, 0x10, 0x11, 0x12, 0x13};
    struct gk5i_rd r;
    const uint8_t *at;

    (void)state;
    gk5i_rd_init(&r, in, sizeof(in));
    assert_int_equal(gk5i_get_u8(&r), 0x01);
    assert_int_equal(gk5i_get_u16be(&r), 0x0203);
    assert_int_equal(gk5i_get_u16le(&r), 0x0504);
    assert_int_equal(gk5i_get_u32be(&r), 0x06070809);
    assert_true(gk5i_get_u64be(&r) == 0x0a0b0c0d0e0f1011ull);
    assert_int_equal(gk5i_rd_left(&r), 2);
    at = gk5i_get_bytes(&r, 2);
    assert_ptr_equal(at, in + 17); /* into the input, no copy */
    assert_true(gk5i_rd_at_end(&r));
    assert_false(r.bad);
}

/* A read past the end moves nothing, gives 0, and every later read gives
 * 0 too, even one that would have fitted. */
static void test_reader_sticky(void **state)
{
    static const uint8_t in[] = {0xaa, 0xbb, 0xcc};
    uint8_t out[4] = {1, 2, 3, 4};
    struct gk5i_rd r;

    (void)state;
    gk5i_rd_init(&r, in, sizeof(in));
    assert_int_equal(gk5i_get_u8(&r), 0xaa);
    assert_int_equal(gk5i_get_u32be(&r), 0);
    assert_true(r.bad);
    assert_int_equal(gk5i_get_u8(&r), 0);
    assert_int_equal(gk5i_get_u16be(&r), 0);
    assert_null(gk5i_get_bytes(&r, 0));
    assert_int_equal(gk5i_rd_left(&r), 0);
    assert_false(gk5i_rd_at_end(&r));
    gk5i_copy_bytes(&r, out, sizeof(out));
    assert_memory_equal(out, "\0\0\0\0", 4);

    /* Host-order reads and trimming stop the same way. */
    gk5i_rd_init(&r, in, sizeof(in));
    assert_int_equal(gk5i_get_u32host(&r), 0);
    assert_true(r.bad);
    gk5i_rd_init(&r, in, sizeof(in));
    gk5i_rd_trim(&r, 1);
    assert_int_equal(gk5i_get_u16be(&r), 0xaabb);
    assert_true(gk5i_rd_at_end(&r));
    gk5i_rd_trim(&r, 1);
    assert_true(r.bad);
}

static void test_writer(void **state)
{
    uint8_t buf[12];
    struct gk5i_wr w;
    uint8_t *later;

    (void)state;
    memset(buf, 0x5a, sizeof(buf));
    gk5i_wr_init(&w, buf, 11);
    gk5i_put_u8(&w, 0x01);
    gk5i_put_u16be(&w, 0x0203);
    gk5i_put_u16le(&w, 0x0504);
    later = gk5i_wr_reserve(&w, 2);
    gk5i_put_fill(&w, 0xff, 2);
    gk5i_put_u32be(&w, 0x06070809); /* 4 > 2 left: dropped, sticky */
    assert_true(w.bad);
    gk5i_put_u8(&w, 0x77); /* would fit, but the writer is bad */
    assert_non_null(later);
    later[0] = 0xc0;
    later[1] = 0xc1;
    assert_memory_equal(buf, "\x01\x02\x03\x04\x05\xc0\xc1\xff\xff\x5a\x5a\x5a",
                        12);

    gk5i_wr_init(&w, buf, sizeof(buf));
    gk5i_put_u64be(&w, 0x1112131415161718ull);
    gk5i_put_bytes(&w, "abcd", 4);
    assert_false(w.bad);
    assert_int_equal(w.left, 0);
    assert_memory_equal(buf,
                        "\x11\x12\x13\x14\x15\x16\x17\x18"
                        "abcd",
                        12);
    assert_null(gk5i_wr_reserve(&w, 1));
    assert_true(w.bad);
}

/* X.690 8.1.3: each form, with the octets it took. */
static void test_der_length(void **state)
{
    static const struct {
        const char *bytes;
        size_t n;
        size_t max_octets;
        enum gk5i_der_status want;
        size_t len, octets;
        bool minimal;
    } cases[] = {
        {"\x00", 1, 4, GK5I_DER_OK, 0, 1, true},
        {"\x7f", 1, 4, GK5I_DER_OK, 0x7f, 1, true},
        {"\x81\x80", 2, 4, GK5I_DER_OK, 0x80, 2, true},
        {"\x81\x7f", 2, 4, GK5I_DER_OK, 0x7f, 2, false},
        {"\x82\x01\x00", 3, 4, GK5I_DER_OK, 0x100, 3, true},
        {"\x82\x00\xff", 3, 4, GK5I_DER_OK, 0xff, 3, false},
        {"\x84\xff\xff\xff\xff", 5, 4, GK5I_DER_OK, 0xffffffffu, 5, true},
        {"", 0, 4, GK5I_DER_TRUNCATED, 0, 0, false},
        {"\x80", 1, 4, GK5I_DER_INDEFINITE, 0, 1, false},
        {"\x85\x01\x00\x00\x00\x00", 6, 4, GK5I_DER_TOO_LONG, 0, 6, false},
        {"\x82\x01", 2, 4, GK5I_DER_TRUNCATED, 0, 3, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gk5i_der_len dl;
        struct gk5i_rd r;

        gk5i_rd_init(&r, cases[i].bytes, cases[i].n);
        assert_int_equal(gk5i_der_get_length(&r, cases[i].max_octets, &dl),
                         cases[i].want);
        assert_int_equal(dl.octets, cases[i].octets);
        if (cases[i].want == GK5I_DER_OK) {
            assert_int_equal(dl.len, cases[i].len);
            assert_int_equal(dl.minimal, cases[i].minimal);
            assert_true(gk5i_rd_at_end(&r));
        }
    }
}

/* Framing written, then read back, at each DER length boundary: inner
 * tokens whose framed length (OID + inner) is 127/128, 255/256 and
 * 65535/65536 bytes. */
static void test_frame_round_trip(void **state)
{
    static const struct {
        size_t inner;
        size_t framing; /* 0x60, length octets, OID */
    } cases[] = {
        {0, 13},   {116, 13},   {117, 14},   {244, 14},
        {245, 15}, {65524, 15}, {65525, 16},
    };
    static uint8_t tok[70000];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t inner = cases[i].inner;
        size_t total = gk5i_frame_token_bytes(inner);
        size_t at = 0;

        assert_int_equal(total, cases[i].framing + inner);
        memset(tok, 0xee, sizeof(tok));
        assert_int_equal(gk5i_frame_put(tok, inner), cases[i].framing);
        assert_int_equal(tok[0], 0x60);
        assert_memory_equal(tok + cases[i].framing - sizeof(oid), oid,
                            sizeof(oid));
        assert_int_equal(tok[cases[i].framing], 0xee); /* nothing past */
        assert_int_equal(gk5i_frame_parse(tok, total, total, &at), GK5_OK);
        assert_int_equal(at, cases[i].framing);
    }
    /* The two-octet form, byte for byte. */
    gk5i_frame_put(tok, 245);
    assert_memory_equal(tok, "\x60\x82\x01\x00", 4);
    /* Too long to frame in four length octets. */
    assert_int_equal(gk5i_frame_token_bytes(0xffffffffu), 0);
}

/* The largest inner token that frames into out_max, for every out_max up
 * to past the first two boundaries. */
static void test_frame_max_inner(void **state)
{
    (void)state;
    for (size_t out_max = 0; out_max < 300; out_max++) {
        size_t inner = gk5i_frame_max_inner(out_max);

        if (out_max < 13) {
            assert_int_equal(inner, 0);
            continue;
        }
        assert_true(gk5i_frame_token_bytes(inner) <= out_max);
        assert_true(gk5i_frame_token_bytes(inner + 1) > out_max);
    }
}

/* Every refusal, in the order the checks run. */
static void test_frame_refusals(void **state)
{
    uint8_t t[64];
    size_t at = 99;

    (void)state;
    /* 0x60, length 11 + 2, the OID, 2 bytes of token: well-formed. */
    t[0] = 0x60;
    t[1] = 13;
    memcpy(t + 2, oid, sizeof(oid));
    t[13] = 0x01;
    t[14] = 0x01;
    assert_int_equal(gk5i_frame_parse(t, 15, 15, &at), GK5_OK);
    assert_int_equal(at, 13);

    assert_int_equal(gk5i_frame_parse(t, 1, 15, &at), GK5_ERR_TOKEN_TRUNCATED);
    assert_int_equal(at, 0);
    /* The length says 13: bytes after them, or fewer than that. */
    assert_int_equal(gk5i_frame_parse(t, 15, 16, &at), GK5_ERR_TOKEN_TRAILING);
    assert_int_equal(gk5i_frame_parse(t, 14, 14, &at), GK5_ERR_TOKEN_TRUNCATED);
    assert_int_equal(gk5i_frame_parse(t, 12, 15, &at),
                     GK5_ERR_TOKEN_TRUNCATED); /* OID not all in avail */

    t[0] = 0x61;
    assert_int_equal(gk5i_frame_parse(t, 15, 15, &at), GK5_ERR_TOKEN_FRAMING);
    t[0] = 0x60;
    t[12] = 0x03; /* another OID */
    assert_int_equal(gk5i_frame_parse(t, 15, 15, &at), GK5_ERR_TOKEN_FRAMING);
    t[12] = 0x02;
    t[1] = 10; /* shorter than the OID */
    assert_int_equal(gk5i_frame_parse(t, 12, 12, &at), GK5_ERR_TOKEN_TRUNCATED);

    /* Length forms: indefinite, five octets, not the shortest, cut off. */
    memcpy(t, "\x60\x80", 2);
    assert_int_equal(gk5i_frame_parse(t, 15, 15, &at), GK5_ERR_TOKEN_FRAMING);
    memcpy(t, "\x60\x85\x00\x00\x00\x00\x0d", 7);
    assert_int_equal(gk5i_frame_parse(t, 20, 20, &at), GK5_ERR_TOKEN_FRAMING);
    memcpy(t, "\x60\x81\x0d", 3);
    memcpy(t + 3, oid, sizeof(oid));
    assert_int_equal(gk5i_frame_parse(t, 16, 16, &at), GK5_ERR_TOKEN_FRAMING);
    memcpy(t, "\x60\x82\x00\x80", 4);
    assert_int_equal(gk5i_frame_parse(t, 40, 132, &at), GK5_ERR_TOKEN_FRAMING);
    memcpy(t, "\x60\x82\x01", 3);
    assert_int_equal(gk5i_frame_parse(t, 3, 300, &at), GK5_ERR_TOKEN_TRUNCATED);
}

/* RFC 4121: the headers of MIT's MIC and integrity-only Wrap tokens. */
static void test_cfx_header(void **state)
{
    static const uint8_t mic[16] = {0x04, 0x04, 0x00, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x00, 0x00};
    static const uint8_t wrap[16] = {0x05, 0x04, 0x00, 0xff, 0x00, 0x0c,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00};
    struct gk5i_cfx_header h;
    struct gk5i_rd r;
    struct gk5i_wr w;
    uint8_t fill[5];
    uint8_t out[17];

    (void)state;
    gk5i_rd_init(&r, mic, sizeof(mic));
    gk5i_cfx_get_header(&r, &h);
    assert_true(gk5i_rd_at_end(&r));
    assert_int_equal(h.tok_id, TOK_ID_CFX_MIC);
    assert_int_equal(h.flags, 0);
    gk5i_cfx_mic_filler(&h, fill);
    assert_memory_equal(fill, "\xff\xff\xff\xff\xff", 5);
    assert_true(h.seq == 0);

    gk5i_rd_init(&r, wrap, sizeof(wrap));
    gk5i_cfx_get_header(&r, &h);
    assert_int_equal(h.tok_id, TOK_ID_CFX_WRAP);
    assert_int_equal(h.filler, 0xff);
    assert_int_equal(h.ec, 12);
    assert_int_equal(h.rrc, 0);

    h.flags = CFX_FLAG_SENT_BY_ACCEPTOR | CFX_FLAG_SEALED;
    h.rrc = 0x1c;
    h.seq = 0x0102030405060708ull;
    memset(out, 0x5a, sizeof(out));
    gk5i_wr_init(&w, out, CFX_HDR_LEN);
    gk5i_cfx_put_header(&w, &h);
    assert_int_equal(w.left, 0);
    assert_memory_equal(out,
                        "\x05\x04\x03\xff\x00\x0c\x00\x1c"
                        "\x01\x02\x03\x04\x05\x06\x07\x08\x5a",
                        17);

    /* Cut short: the fields that were there, zeros after. */
    gk5i_rd_init(&r, wrap, 5);
    gk5i_cfx_get_header(&r, &h);
    assert_true(r.bad);
    assert_int_equal(h.tok_id, TOK_ID_CFX_WRAP);
    assert_int_equal(h.filler, 0xff);
    assert_int_equal(h.ec, 0);
}

/* RFC 1964: bytes 0..7 of MIT's DES3 MIC and sealed Wrap tokens. */
static void test_v1_header(void **state)
{
    static const uint8_t mic[8] = {0x01, 0x01, 0x04, 0x00,
                                   0xff, 0xff, 0xff, 0xff};
    static const uint8_t wrap[8] = {0x02, 0x01, 0x04, 0x00,
                                    0x02, 0x00, 0xff, 0xff};
    struct gk5i_v1_header h;
    struct gk5i_rd r;
    struct gk5i_wr w;
    uint8_t out[8];

    (void)state;
    gk5i_rd_init(&r, mic, sizeof(mic));
    gk5i_v1_get_header(&r, &h);
    assert_true(gk5i_rd_at_end(&r));
    assert_int_equal(h.tok_id, TOK_ID_V1_MIC);
    assert_int_equal(h.sgn_alg, V1_SGN_ALG_HMAC_SHA1_DES3_KD);
    assert_int_equal(h.seal_alg, V1_SEAL_ALG_NONE);
    assert_int_equal(h.filler, V1_FILLER);

    gk5i_rd_init(&r, wrap, sizeof(wrap));
    gk5i_v1_get_header(&r, &h);
    assert_int_equal(h.tok_id, TOK_ID_V1_WRAP);
    assert_int_equal(h.seal_alg, V1_SEAL_ALG_DES3KD);
    gk5i_wr_init(&w, out, sizeof(out));
    gk5i_v1_put_header(&w, &h);
    assert_false(w.bad);
    assert_memory_equal(out, wrap, sizeof(wrap));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_fields),
        cmocka_unit_test(test_reader_sticky),
        cmocka_unit_test(test_writer),
        cmocka_unit_test(test_der_length),
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_frame_max_inner),
        cmocka_unit_test(test_frame_refusals),
        cmocka_unit_test(test_cfx_header),
        cmocka_unit_test(test_v1_header),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
