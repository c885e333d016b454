/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 4121 per-message tokens (4.2.6.1 MIC, 4.2.6.2 Wrap) through the public
 * API: round trips for every built enctype, initiator <-> acceptor, with and
 * without an acceptor subkey, sealed and integrity-only; every token's
 * layout checked against RFC 4121 with the RFC 3961 crypto API alone; any
 * RRC on receive; MIT krb5's fixed-key CFX tokens (t_invalid.c).
 */
#include "tokutil.h"
#include "vecfile.h"

#define MAX_ENCTYPES 16
#define HDR 16

struct side {
    gk5_ctx *ctx;
    bool acceptor;
    uint64_t next_seq; /* what the next token must carry */
};

static int sign_usage(bool acceptor)
{
    return acceptor ? TOK_USAGE_ACCEPTOR_SIGN : TOK_USAGE_INITIATOR_SIGN;
}

static int seal_usage(bool acceptor)
{
    return acceptor ? TOK_USAGE_ACCEPTOR_SEAL : TOK_USAGE_INITIATOR_SEAL;
}

/*
 * RFC 4121 4.2.6.2 checked from outside: header fields, then (sealed) the
 * ciphertext decrypts under the sender's seal usage to msg | header copy
 * with RRC 0, or (integrity only) the trailing checksum is Kc(seal usage)
 * over msg | header with EC and RRC zero (4.2.4).
 */
static void check_wrap_token(int32_t enctype, const uint8_t *key,
                             size_t key_len, bool sender_acceptor, bool subkey,
                             bool sealed, uint64_t seq, const uint8_t *msg,
                             size_t n, const gk5_buffer *tok)
{
    struct tok_lens l = tok_lens(enctype);
    const uint8_t *t = tok->value;
    uint8_t flags = (uint8_t)((sender_acceptor ? 0x01 : 0) |
                              (sealed ? 0x02 : 0) | (subkey ? 0x04 : 0));
    uint8_t *buf = malloc(n + 2 * HDR + 64);
    size_t out_len;

    assert_non_null(buf);
    assert_int_equal(t[0], 0x05);
    assert_int_equal(t[1], 0x04);
    assert_int_equal(t[2], flags);
    assert_int_equal(t[3], 0xff);
    assert_int_equal(load_be16(t + 6), 0); /* RRC: gk5_wrap sends 0 */
    assert_true(load_be64(t + 8) == seq);
    if (sealed) {
        assert_int_equal(load_be16(t + 4), 0); /* EC: CTS needs no filler */
        assert_int_equal(tok->length, HDR + l.conf + n + HDR + l.mac);
        out_len = n + 2 * HDR + 64;
        assert_int_equal(gk5_c_decrypt(enctype, key, key_len,
                                       (uint32_t)seal_usage(sender_acceptor),
                                       t + HDR, tok->length - HDR, buf,
                                       &out_len),
                         0);
        assert_int_equal(out_len, n + HDR);
        if (n != 0) {
            assert_memory_equal(buf, msg, n);
        }
        assert_memory_equal(buf + n, t, HDR);
    } else {
        uint8_t cksum[64];
        size_t cksum_len = sizeof(cksum);

        assert_int_equal(load_be16(t + 4), l.cksum); /* EC = checksum len */
        assert_int_equal(tok->length, HDR + n + l.cksum);
        if (n != 0) {
            assert_memory_equal(t + HDR, msg, n);
            memcpy(buf, msg, n);
        }
        memcpy(buf + n, t, HDR);
        memset(buf + n + 4, 0, 4);
        assert_int_equal(gk5_c_checksum(enctype, key, key_len,
                                        (uint32_t)seal_usage(sender_acceptor),
                                        buf, n + HDR, cksum, &cksum_len),
                         0);
        assert_int_equal(cksum_len, l.cksum);
        assert_memory_equal(t + HDR + n, cksum, l.cksum);
    }
    free(buf);
}

/* RFC 4121 4.2.6.1 checked from outside. */
static void check_mic_token(int32_t enctype, const uint8_t *key, size_t key_len,
                            bool sender_acceptor, bool subkey, uint64_t seq,
                            const uint8_t *msg, size_t n, const gk5_buffer *tok)
{
    static const uint8_t filler[5] = {0xff, 0xff, 0xff, 0xff, 0xff};
    struct tok_lens l = tok_lens(enctype);
    const uint8_t *t = tok->value;
    uint8_t *buf = malloc(n + HDR);
    uint8_t cksum[64];
    size_t cksum_len = sizeof(cksum);

    assert_non_null(buf);
    assert_int_equal(tok->length, HDR + l.cksum);
    assert_int_equal(t[0], 0x04);
    assert_int_equal(t[1], 0x04);
    assert_int_equal(t[2], (sender_acceptor ? 0x01 : 0) | (subkey ? 0x04 : 0));
    assert_memory_equal(t + 3, filler, 5);
    assert_true(load_be64(t + 8) == seq);
    if (n != 0) {
        memcpy(buf, msg, n);
    }
    memcpy(buf + n, t, HDR);
    assert_int_equal(gk5_c_checksum(enctype, key, key_len,
                                    (uint32_t)sign_usage(sender_acceptor), buf,
                                    n + HDR, cksum, &cksum_len),
                     0);
    assert_memory_equal(t + HDR, cksum, l.cksum);
    free(buf);
}

/* One Wrap from one side to the other; checks everything. */
static void wrap_once(int32_t enctype, const uint8_t *key, size_t key_len,
                      bool subkey, struct side *from, struct side *to, int conf,
                      size_t n)
{
    uint8_t *msg = malloc(n != 0 ? n : 1);
    gk5_buffer in = {n, msg}, tok = {0, NULL}, out = {0, NULL};
    uint32_t minor = 0, major, qop = 99;
    int conf_state = -1;

    assert_non_null(msg);
    tok_fill(msg, n, (uint32_t)(n * 7 + (size_t)conf));
    major = gk5_wrap(&minor, from->ctx, conf, 0, &in, &conf_state, &tok);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    assert_int_equal(conf_state, conf);
    if (!tok_is_rfc1964(enctype)) {
        check_wrap_token(enctype, key, key_len, from->acceptor, subkey,
                         conf != 0, from->next_seq, msg, n, &tok);
    }
    from->next_seq++;

    conf_state = -1;
    major = gk5_unwrap(&minor, to->ctx, &tok, &out, &conf_state, &qop);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    assert_int_equal(conf_state, conf);
    assert_int_equal(qop, 0);
    assert_int_equal(out.length, n);
    if (n != 0) {
        assert_memory_equal(out.value, msg, n);
    }
    gk5_buffer_release(&tok);
    gk5_buffer_release(&out);
    assert_null(out.value);
    free(msg);
}

static void mic_once(int32_t enctype, const uint8_t *key, size_t key_len,
                     bool subkey, struct side *from, struct side *to, size_t n)
{
    uint8_t *msg = malloc(n != 0 ? n : 1);
    gk5_buffer in = {n, msg}, tok = {0, NULL};
    uint32_t minor = 0, major, qop = 99;

    assert_non_null(msg);
    tok_fill(msg, n, (uint32_t)n);
    major = gk5_get_mic(&minor, from->ctx, 0, &in, &tok);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    if (!tok_is_rfc1964(enctype)) {
        check_mic_token(enctype, key, key_len, from->acceptor, subkey,
                        from->next_seq, msg, n, &tok);
    }
    from->next_seq++;
    major = gk5_verify_mic(&minor, to->ctx, &in, &tok, &qop);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    assert_int_equal(qop, 0);
    if (n != 0) {
        /* The MIC of another message does not verify. */
        msg[n - 1] ^= 1;
        major = gk5_verify_mic(&minor, to->ctx, &in, &tok, &qop);
        tok_assert_major(major, GK5_S_BAD_SIG, minor);
    }
    gk5_buffer_release(&tok);
    free(msg);
}

static void roundtrip_enctype(int32_t enctype, bool subkey)
{
    struct tok_lens l = tok_lens(enctype);
    size_t sizes[] = {0, 1, l.block - 1, l.block, l.block + 1, 1000};
    uint8_t key[64];
    size_t key_len = tok_key(enctype, key);
    struct side init = {NULL, false, 0}, acc = {NULL, true, 0};

    tok_pair(enctype, subkey, 0, &init.ctx, &acc.ctx);
    for (int conf = 0; conf <= 1; conf++) {
        for (size_t i = 0; i < GK5_ARRAY_SIZE(sizes); i++) {
            wrap_once(enctype, key, key_len, subkey, &init, &acc, conf,
                      sizes[i]);
            wrap_once(enctype, key, key_len, subkey, &acc, &init, conf,
                      sizes[i]);
        }
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(sizes); i++) {
        mic_once(enctype, key, key_len, subkey, &init, &acc, sizes[i]);
        mic_once(enctype, key, key_len, subkey, &acc, &init, sizes[i]);
    }
    if (!subkey) {
        /* 1 MiB, each way once. */
        wrap_once(enctype, key, key_len, subkey, &init, &acc, 1, 1u << 20);
        wrap_once(enctype, key, key_len, subkey, &acc, &init, 0, 1u << 20);
        mic_once(enctype, key, key_len, subkey, &init, &acc, 1u << 20);
    }
    gk5_ctx_free(init.ctx);
    gk5_ctx_free(acc.ctx);
}

static void test_roundtrip_every_enctype(void **state)
{
    int32_t ets[MAX_ENCTYPES];
    size_t n = tok_enctypes(ets, MAX_ENCTYPES);

    (void)state;
    assert_true(n >= 6); /* aes x4, camellia x2 are always built */
    for (size_t i = 0; i < n; i++) {
        roundtrip_enctype(ets[i], false);
        if (!tok_is_rfc1964(ets[i])) {
            roundtrip_enctype(ets[i], true);
        }
    }
}

/* Wraps msg with gk5_wrap_iov into HEADER | DATA (no TRAILER, MIT's
 * layout for a single buffer) and returns the token header | data. */
static gk5_buffer wrap_without_trailer(gk5_ctx *ctx, int conf,
                                       const uint8_t *msg, size_t n)
{
    gk5_iov_buffer iov[2];
    gk5_buffer tok;
    uint32_t minor = 0, major;
    int conf_state = -1;
    uint8_t *data = malloc(n != 0 ? n : 1);

    assert_non_null(data);
    if (n != 0) {
        memcpy(data, msg, n);
    }
    iov[0].type = GK5_IOV_BUFFER_TYPE_HEADER | GK5_IOV_BUFFER_FLAG_ALLOCATE;
    iov[0].buffer.length = 0;
    iov[0].buffer.value = NULL;
    iov[1].type = GK5_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = n;
    iov[1].buffer.value = data;
    major = gk5_wrap_iov(&minor, ctx, conf, 0, &conf_state, iov, 2);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    assert_int_equal(conf_state, conf);
    assert_true((iov[0].type & GK5_IOV_BUFFER_FLAG_ALLOCATED) != 0);
    tok.length = iov[0].buffer.length + n;
    tok.value = malloc(tok.length);
    assert_non_null(tok.value);
    memcpy(tok.value, iov[0].buffer.value, iov[0].buffer.length);
    if (n != 0) {
        memcpy((uint8_t *)tok.value + iov[0].buffer.length, data, n);
    }
    gk5_release_iov(iov, 2);
    assert_null(iov[0].buffer.value);
    assert_int_equal(iov[0].type,
                     GK5_IOV_BUFFER_TYPE_HEADER | GK5_IOV_BUFFER_FLAG_ALLOCATE);
    free(data);
    return tok;
}

/* docs/design.md ("RFC 4121 tokens, EC and RRC"): without a TRAILER the
 * trailer is rotated into the HEADER and RRC is 16 + MAC length (sealed) or
 * the checksum length; gk5_unwrap takes such a token, and un-rotating it
 * gives the RRC 0 form. */
static void test_iov_without_trailer_to_gk5_unwrap(void **state)
{
    int32_t ets[MAX_ENCTYPES];
    size_t n_et = tok_enctypes(ets, MAX_ENCTYPES);
    static const uint8_t msg[] = "a message wrapped without a trailer";
    size_t n = sizeof(msg) - 1;

    (void)state;
    for (size_t e = 0; e < n_et; e++) {
        int32_t et = ets[e];
        struct tok_lens l;
        uint8_t key[64];
        size_t key_len;
        gk5_ctx *init, *acc;

        if (tok_is_rfc1964(et)) {
            continue;
        }
        l = tok_lens(et);
        key_len = tok_key(et, key);
        tok_pair(et, true, 0, &init, &acc);
        for (int conf = 0; conf <= 1; conf++) {
            gk5_buffer tok = wrap_without_trailer(init, conf, msg, n);
            gk5_buffer out = {0, NULL}, flat;
            uint8_t *t = tok.value;
            size_t rrc = conf ? HDR + l.mac : l.cksum;
            uint32_t minor = 0, major;
            int conf_state = -1;

            assert_int_equal(load_be16(t + 6), rrc);
            /* Un-rotated it is exactly the RRC 0 token RFC 4121 defines. */
            flat.length = tok.length;
            flat.value = malloc(tok.length);
            assert_non_null(flat.value);
            memcpy(flat.value, t, tok.length);
            tok_rotate_right((uint8_t *)flat.value + HDR, tok.length - HDR,
                             tok.length - HDR - rrc);
            store_be16((uint8_t *)flat.value + 6, 0);
            check_wrap_token(et, key, key_len, false, true, conf != 0,
                             (uint64_t)conf, msg, n, &flat);
            free(flat.value);

            major = gk5_unwrap(&minor, acc, &tok, &out, &conf_state, NULL);
            tok_assert_major(major, GK5_S_COMPLETE, minor);
            assert_int_equal(conf_state, conf);
            assert_int_equal(out.length, n);
            assert_memory_equal(out.value, msg, n);
            gk5_buffer_release(&out);
            free(tok.value);
        }
        gk5_ctx_free(init);
        gk5_ctx_free(acc);
    }
}

/* RFC 4121 4.2.5: a receiver takes any RRC: rotate a good token's payload
 * right by R (mod its length) and put R in the header, for R of 0, 12, 28,
 * 5, the payload length, more than the token, and 65535. */
static void test_any_rrc(void **state)
{
    int32_t ets[MAX_ENCTYPES];
    size_t n_et = tok_enctypes(ets, MAX_ENCTYPES);
    static const uint8_t msg[] = "rotate me";
    size_t n = sizeof(msg) - 1;

    (void)state;
    for (size_t e = 0; e < n_et; e++) {
        gk5_ctx *init, *acc;

        if (tok_is_rfc1964(ets[e])) {
            continue;
        }
        tok_pair(ets[e], false, 0, &init, &acc);
        for (int conf = 0; conf <= 1; conf++) {
            for (int k = 0; k < 8; k++) {
                gk5_buffer in = {n, (void *)(uintptr_t)msg}, tok, out;
                size_t payload, r = 0;
                uint32_t minor = 0, major;
                int conf_state = -1;

                major = gk5_wrap(&minor, init, conf, 0, &in, NULL, &tok);
                tok_assert_major(major, GK5_S_COMPLETE, minor);
                payload = tok.length - HDR;
                switch (k) {
                case 0:
                    r = 0;
                    break;
                case 1:
                    r = 12;
                    break;
                case 2:
                    r = 28;
                    break;
                case 3:
                    r = 5;
                    break;
                case 4:
                    r = payload;
                    break;
                case 5:
                    r = tok.length + 7;
                    break;
                case 6:
                    r = 3 * payload + 1;
                    break;
                default:
                    r = 65535;
                    break;
                }
                tok_rotate_right((uint8_t *)tok.value + HDR, payload, r);
                store_be16((uint8_t *)tok.value + 6, (uint16_t)r);
                major = gk5_unwrap(&minor, acc, &tok, &out, &conf_state, NULL);
                tok_assert_major(major, GK5_S_COMPLETE, minor);
                assert_int_equal(conf_state, conf);
                assert_int_equal(out.length, n);
                assert_memory_equal(out.value, msg, n);
                gk5_buffer_release(&out);
                gk5_buffer_release(&tok);
            }
        }
        gk5_ctx_free(init);
        gk5_ctx_free(acc);
    }
}

/* The same token through gk5_unwrap_iov with a STREAM buffer, rotated. */
static void test_stream_rotated(void **state)
{
    static const uint8_t msg[] = "streamed";
    gk5_buffer in = {8, (void *)(uintptr_t)msg}, tok;
    gk5_iov_buffer iov[2];
    gk5_ctx *init, *acc;
    uint32_t minor = 0, major;
    int conf_state = -1;

    (void)state;
    tok_pair(18, false, 0, &init, &acc);
    major = gk5_wrap(&minor, init, 1, 0, &in, NULL, &tok);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    tok_rotate_right((uint8_t *)tok.value + HDR, tok.length - HDR, 1001);
    store_be16((uint8_t *)tok.value + 6, 1001);
    iov[0].type = GK5_IOV_BUFFER_TYPE_STREAM;
    iov[0].buffer = tok;
    iov[1].type = GK5_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = 0;
    iov[1].buffer.value = NULL;
    major = gk5_unwrap_iov(&minor, acc, &conf_state, NULL, iov, 2);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    assert_int_equal(conf_state, 1);
    assert_int_equal(iov[1].buffer.length, 8);
    assert_memory_equal(iov[1].buffer.value, msg, 8);
    /* DATA points into the STREAM. */
    assert_true((uint8_t *)iov[1].buffer.value > (uint8_t *)tok.value &&
                (uint8_t *)iov[1].buffer.value <
                    (uint8_t *)tok.value + tok.length);
    gk5_buffer_release(&tok);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

/* RFC 2743 2.2.8: the largest input whose token fits. */
static void test_wrap_size_limit(void **state)
{
    int32_t ets[MAX_ENCTYPES];
    size_t n_et = tok_enctypes(ets, MAX_ENCTYPES);
    static const size_t maxes[] = {0, 20, 61, 100, 1000, 4096};

    (void)state;
    for (size_t e = 0; e < n_et; e++) {
        gk5_ctx *init, *acc;

        if (tok_is_rfc1964(ets[e])) {
            continue;
        }
        tok_pair(ets[e], false, 0, &init, &acc);
        for (int conf = 0; conf <= 1; conf++) {
            for (size_t i = 0; i < GK5_ARRAY_SIZE(maxes); i++) {
                uint8_t buf[4097] = {0};
                gk5_buffer in, tok;
                size_t in_max = 12345;
                uint32_t minor = 0, major;

                major = gk5_wrap_size_limit(&minor, init, conf, 0, maxes[i],
                                            &in_max);
                tok_assert_major(major, GK5_S_COMPLETE, minor);
                assert_true(in_max <= maxes[i]);
                if (in_max == 0) {
                    continue;
                }
                in.length = in_max;
                in.value = buf;
                major = gk5_wrap(&minor, init, conf, 0, &in, NULL, &tok);
                tok_assert_major(major, GK5_S_COMPLETE, minor);
                assert_true(tok.length <= maxes[i]);
                gk5_buffer_release(&tok);
                in.length = in_max + 1;
                major = gk5_wrap(&minor, init, conf, 0, &in, NULL, &tok);
                tok_assert_major(major, GK5_S_COMPLETE, minor);
                assert_true(tok.length > maxes[i]);
                gk5_buffer_release(&tok);
            }
        }
        gk5_ctx_free(init);
        gk5_ctx_free(acc);
    }
}

/* The receive window is fed only by tokens that passed: a replayed token
 * is reported DUPLICATE (RFC 2743 1.2.3), with its message. */
static void test_replay_is_reported(void **state)
{
    static const uint8_t msg[] = "once";
    gk5_buffer in = {4, (void *)(uintptr_t)msg}, tok, out;
    gk5_ctx *init, *acc;
    uint32_t minor = 0, major;

    (void)state;
    tok_pair(17, false, 0, &init, &acc);
    major = gk5_wrap(&minor, init, 1, 0, &in, NULL, &tok);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    major = gk5_unwrap(&minor, acc, &tok, &out, NULL, NULL);
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    gk5_buffer_release(&out);
    major = gk5_unwrap(&minor, acc, &tok, &out, NULL, NULL);
    tok_assert_major(major, GK5_S_COMPLETE | GK5_S_DUPLICATE_TOKEN, minor);
    assert_int_equal(out.length, 4);
    gk5_buffer_release(&out);
    gk5_buffer_release(&tok);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

/* MIT krb5's fixed-key CFX tokens (t_invalid.c): an acceptor with key
 * "1234567887654321" verifies the MIC and unwraps both Wraps. */
static void test_mit_cfx_tokens(void **state)
{
    vec_file *f = vec_open("mit_gss_tokens_cfx.txt");
    vec_tally t;
    vec_block *b;

    (void)state;
    vec_tally_init(&t, "mit_gss_tokens_cfx.txt");
    while ((b = vec_next(f)) != NULL) {
        const uint8_t *key, *msg, *token;
        size_t key_len = vec_bytes(b, "key", &key);
        size_t msg_len = vec_bytes(b, "msg", &msg);
        size_t tok_len = vec_bytes(b, "token", &token);
        int32_t enctype = (int32_t)vec_int(b, "enctype", 1, 65535);
        bool initiate = vec_int(b, "initiate", 0, 1) != 0;
        bool subkey = vec_int(b, "acceptor_subkey", 0, 1) != 0;
        int conf = (int)vec_int(b, "conf", 0, 1);
        const char *op = vec_str(b, "op");
        const char *expect = vec_str(b, "expect");
        const char *name = vec_str(b, "name");
        uint32_t flags = TOK_GSSD_CFX | (initiate ? TOK_GSSD_INITIATOR : 0) |
                         (subkey ? TOK_GSSD_SUBKEY : 0);
        gk5_buffer m = {msg_len, (void *)(uintptr_t)msg};
        gk5_buffer tk = {tok_len, (void *)(uintptr_t)token};
        gk5_buffer out = {0, NULL};
        uint32_t minor = 0, major;
        int conf_state = -1;
        gk5_ctx *ctx;

        assert_string_equal(expect, "GSS_S_COMPLETE");
        vec_done(b);
        if (vec_enctype_state(b, enctype) != VEC_ET_BUILT) {
            vec_tally_skip(&t);
            continue;
        }
        ctx = tok_ctx(enctype, flags, 0, key, key_len);
        if (strcmp(op, "verify_mic") == 0) {
            major = gk5_verify_mic(&minor, ctx, &m, &tk, NULL);
            vec_check_rc(&t, b, name, major, GK5_S_COMPLETE);
        } else {
            major = gk5_unwrap(&minor, ctx, &tk, &out, &conf_state, NULL);
            vec_check_rc(&t, b, name, major, GK5_S_COMPLETE);
            vec_check_bytes(&t, b, name, out.value, out.length, msg, msg_len);
            vec_check_size(&t, b, "conf_state", (size_t)conf_state,
                           (size_t)conf);
            gk5_buffer_release(&out);
        }
        gk5_ctx_free(ctx);
        vec_tally_end(&t);
    }
    vec_close(f);
    vec_tally_finish(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_enctype),
        cmocka_unit_test(test_iov_without_trailer_to_gk5_unwrap),
        cmocka_unit_test(test_any_rrc),
        cmocka_unit_test(test_stream_rotated),
        cmocka_unit_test(test_wrap_size_limit),
        cmocka_unit_test(test_replay_is_reported),
        cmocka_unit_test(test_mit_cfx_tokens),
    };

    return cmocka_run_group_tests_name("rfc4121", tests, NULL, NULL);
}
