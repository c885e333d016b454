/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2203 wire pieces of libgk5_rpc (src/rpcsec/wire.c, record.c) on
 * fixed-key contexts: credentials, verifiers, integrity and privacy bodies
 * sealed and opened in place for every built enctype, both directions,
 * with the negative cases (a flipped bit anywhere, truncation, a wrong
 * sequence number, a body of the other service, lengths that lie), and
 * record marking over a socket pair.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "tokutil.h"

#include "rpcsec/rpcsec_int.h"

static const gk5_rpc_service services[] = {
    GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};

/* Seal seq + payload for svc with from; returns the encoding (malloc'd
 * copy) in *enc / *enc_len. */
static void seal(gk5_ctx *from, gk5_rpc_service svc, uint32_t seq,
                 const uint8_t *payload, size_t len, uint8_t **enc,
                 size_t *enc_len)
{
    size_t head = 0, tail = 0, off = 0, out_len = 0;
    gk5_rpc_error err;

    assert_int_equal(gk5i_rpc_body_room(from, svc, 4 + len, &head, &tail, &err),
                     0);
    size_t cap = head + 4 + len + tail;
    uint8_t *base = calloc(1, cap);
    assert_non_null(base);
    gk5i_put32(base + head, seq);
    memcpy(base + head + 4, payload, len);
    if (gk5i_rpc_body_seal(from, svc, base, head, 4 + len, cap, &off, &out_len,
                           &err) != 0) {
        fail_msg("seal: %s", err.text);
    }
    assert_true(off + out_len <= cap);
    if (svc != GK5_RPC_SVC_NONE) {
        assert_int_equal(out_len % 4, 0);
    }
    *enc = malloc(out_len + 1);
    assert_non_null(*enc);
    memcpy(*enc, base + off, out_len);
    *enc_len = out_len;
    free(base);
}

static int open_copy(gk5_ctx *to, gk5_rpc_service svc, uint32_t seq,
                     const uint8_t *enc, size_t len, uint8_t *out,
                     size_t *out_len, gk5_rpc_error *err)
{
    uint8_t *copy = malloc(len + 1), *data = NULL;
    size_t data_len = 0, used = 0;

    assert_non_null(copy);
    memcpy(copy, enc, len);
    int r = gk5i_rpc_body_open(to, svc, seq, copy, len, 1u << 26, &data,
                               &data_len, &used, err);
    if (r == 0) {
        assert_int_equal(used, len);
        memcpy(out, data, data_len);
        *out_len = data_len;
    }
    free(copy);
    return r;
}

static void round_trips(int32_t enctype)
{
    static const size_t sizes[] = {0, 1, 3, 4, 5, 1000, 65536 + 3};
    gk5_ctx *init = NULL, *acc = NULL;

    tok_pair(enctype, true, 0, &init, &acc);
    uint32_t minor = 0;
    assert_int_equal(gk5_ctx_set_flags(&minor, init, 0), 0);
    assert_int_equal(gk5_ctx_set_flags(&minor, acc, 0), 0);

    for (size_t s = 0; s < GK5_ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        uint8_t *payload = malloc(n + 1), *out = malloc(n + 1);
        assert_non_null(payload);
        assert_non_null(out);
        for (size_t i = 0; i < n; i++) {
            payload[i] = (uint8_t)(i * 7 + enctype);
        }
        for (size_t v = 0; v < GK5_ARRAY_SIZE(services); v++) {
            gk5_rpc_service svc = services[v];
            for (int dir = 0; dir < 2; dir++) {
                gk5_ctx *from = dir == 0 ? init : acc;
                gk5_ctx *to = dir == 0 ? acc : init;
                uint8_t *enc = NULL;
                size_t enc_len = 0, got = 0;
                gk5_rpc_error err;
                uint32_t seq = 0x1000u + (uint32_t)s;

                seal(from, svc, seq, payload, n, &enc, &enc_len);
                if (svc == GK5_RPC_SVC_NONE) {
                    assert_int_equal(enc_len, n);
                    free(enc);
                    continue;
                }
                assert_int_equal(
                    open_copy(to, svc, seq, enc, enc_len, out, &got, &err), 0);
                assert_int_equal(got, n);
                assert_memory_equal(out, payload, n);

                /* Another sequence number than the call's. */
                assert_int_equal(
                    open_copy(to, svc, seq + 1, enc, enc_len, out, &got, &err),
                    -1);
                assert_int_equal(err.code, GK5_RPC_E_SEQ_MISMATCH);
                /* The other service's reading of the same bytes. */
                gk5_rpc_service other = svc == GK5_RPC_SVC_INTEGRITY
                                            ? GK5_RPC_SVC_PRIVACY
                                            : GK5_RPC_SVC_INTEGRITY;
                assert_int_equal(
                    open_copy(to, other, seq, enc, enc_len, out, &got, &err),
                    -1);
                /* Reflected: the sender cannot open its own body. */
                assert_int_equal(
                    open_copy(from, svc, seq, enc, enc_len, out, &got, &err),
                    -1);
                /* Truncated at several places. */
                for (size_t cut = 0; cut < enc_len; cut += 1 + enc_len / 7) {
                    assert_int_equal(
                        open_copy(to, svc, seq, enc, cut, out, &got, &err), -1);
                }
                /* A flipped bit in every byte of small encodings (in a
                 * sample of large ones): never accepted.  Flips in XDR
                 * padding are the one exception: they carry nothing. */
                size_t step = enc_len > 256 ? enc_len / 97 : 1;
                for (size_t i = 0; i < enc_len; i += step) {
                    uint8_t *bad = malloc(enc_len);
                    assert_non_null(bad);
                    memcpy(bad, enc, enc_len);
                    bad[i] ^= 0x01;
                    int r =
                        open_copy(to, svc, seq, bad, enc_len, out, &got, &err);
                    if (r == 0) {
                        /* Only padding may change without notice. */
                        assert_int_equal(got, n);
                        assert_memory_equal(out, payload, n);
                    }
                    free(bad);
                }
                free(enc);
            }
        }
        free(payload);
        free(out);
    }
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

static void test_bodies_every_enctype(void **state)
{
    int32_t ets[16];
    size_t n = tok_enctypes(ets, 16);

    (void)state;
    assert_true(n >= 6);
    for (size_t i = 0; i < n; i++) {
        round_trips(ets[i]);
    }
}

static void test_body_lengths_that_lie(void **state)
{
    gk5_ctx *init = NULL, *acc = NULL;
    uint8_t payload[40] = {1, 2, 3}, out[64];
    uint8_t *enc = NULL;
    size_t enc_len = 0, got = 0;
    gk5_rpc_error err;

    (void)state;
    tok_pair(18, true, 0, &init, &acc);
    seal(init, GK5_RPC_SVC_INTEGRITY, 7, payload, sizeof(payload), &enc,
         &enc_len);
    /* databody_integ length larger than the bytes, and huge. */
    gk5i_put32(enc, 0xfffffff0u);
    assert_int_equal(
        open_copy(acc, GK5_RPC_SVC_INTEGRITY, 7, enc, enc_len, out, &got, &err),
        -1);
    assert_int_equal(err.code, GK5_RPC_E_TOO_BIG);
    gk5i_put32(enc, (uint32_t)enc_len);
    assert_int_equal(
        open_copy(acc, GK5_RPC_SVC_INTEGRITY, 7, enc, enc_len, out, &got, &err),
        -1);
    assert_int_equal(err.code, GK5_RPC_E_MALFORMED);
    /* A body of fewer than 4 bytes holds no sequence number. */
    free(enc);
    seal(init, GK5_RPC_SVC_PRIVACY, 9, payload, 0, &enc, &enc_len);
    assert_int_equal(
        open_copy(acc, GK5_RPC_SVC_PRIVACY, 9, enc, enc_len, out, &got, &err),
        0);
    assert_int_equal(got, 0);
    free(enc);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

/* An integrity body as pieces around data that stays in place (the
 * client's writev): head, data, tail back to back open as the body sealed
 * in one buffer does, for every enctype, and a flipped bit in any piece
 * is refused. */
static void test_integ_pieces(void **state)
{
    static const size_t sizes[] = {0, 1, 3, 4, 5, 1000, 65536 + 3};
    int32_t ets[16];
    size_t n_ets = tok_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n_ets; e++) {
        gk5_ctx *init = NULL, *acc = NULL;
        tok_pair(ets[e], true, 0, &init, &acc);
        for (size_t s = 0; s < GK5_ARRAY_SIZE(sizes); s++) {
            size_t n = sizes[s], tail_len = 0, got = 0;
            uint8_t head[GK5I_RPC_INTEG_HEAD], tail[GK5I_RPC_INTEG_TAIL];
            uint8_t *data = malloc(n + 1), *out = malloc(n + 1);
            gk5_rpc_error err;
            uint32_t seq = 0x2000u + (uint32_t)s;

            assert_non_null(data);
            assert_non_null(out);
            for (size_t i = 0; i < n; i++) {
                data[i] = (uint8_t)(i * 5 + 1);
            }
            if (gk5i_rpc_integ_pieces(init, seq, n > 0 ? data : NULL, n, head,
                                      tail, &tail_len, &err) != 0) {
                fail_msg("pieces: %s", err.text);
            }
            assert_true(tail_len <= GK5I_RPC_INTEG_TAIL);
            size_t enc_len = sizeof(head) + n + tail_len;
            assert_int_equal(enc_len % 4, 0);
            uint8_t *enc = malloc(enc_len);
            assert_non_null(enc);
            memcpy(enc, head, sizeof(head));
            memcpy(enc + sizeof(head), data, n);
            memcpy(enc + sizeof(head) + n, tail, tail_len);
            assert_int_equal(open_copy(acc, GK5_RPC_SVC_INTEGRITY, seq, enc,
                                       enc_len, out, &got, &err),
                             0);
            assert_int_equal(got, n);
            assert_memory_equal(out, data, n);
            assert_int_equal(open_copy(acc, GK5_RPC_SVC_INTEGRITY, seq + 1, enc,
                                       enc_len, out, &got, &err),
                             -1);
            /* The length word, the seq_num, the data's first and last
             * bytes and the checksum: each flip refused. */
            size_t at[] = {3, 7, 8, 8 + n - (n > 0 ? 1 : 0), enc_len - 5};
            for (size_t i = 0; i < GK5_ARRAY_SIZE(at); i++) {
                enc[at[i]] ^= 0x01;
                assert_int_equal(open_copy(acc, GK5_RPC_SVC_INTEGRITY, seq, enc,
                                           enc_len, out, &got, &err),
                                 -1);
                enc[at[i]] ^= 0x01;
            }
            free(enc);
            free(data);
            free(out);
        }
        gk5_ctx_free(init);
        gk5_ctx_free(acc);
    }
}

static void test_verifiers(void **state)
{
    gk5_ctx *init = NULL, *acc = NULL;
    uint8_t mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    gk5_rpc_error err;

    (void)state;
    tok_pair(20, true, 0, &init, &acc);
    assert_int_equal(
        gk5i_rpc_mic_u32(acc, 128, mic, sizeof(mic), &mic_len, &err), 0);
    assert_int_equal(gk5i_rpc_verify_u32(init, 128, mic, mic_len, &err), 0);
    assert_int_equal(gk5i_rpc_verify_u32(init, 129, mic, mic_len, &err), -1);
    assert_int_equal(err.code, GK5_RPC_E_BAD_VERIFIER);
    mic[mic_len - 1] ^= 0x80;
    assert_int_equal(gk5i_rpc_verify_u32(init, 128, mic, mic_len, &err), -1);
    assert_int_equal(gk5i_rpc_verify_u32(init, 128, mic, 0, &err), -1);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
}

static void test_credentials(void **state)
{
    static const uint8_t handle[5] = {9, 8, 7, 6, 5};
    gk5i_rpc_cred c = {.version = 1,
                       .proc = GK5I_RPCSEC_GSS_DATA,
                       .seq = 42,
                       .service = GK5_RPC_SVC_PRIVACY,
                       .handle = handle,
                       .handle_len = sizeof(handle)},
                  d;
    uint8_t buf[GK5I_RPC_MAX_AUTH_BYTES];
    gk5_rpc_error err;

    (void)state;
    size_t len = gk5i_rpc_cred_encode(&c, buf, sizeof(buf));
    assert_int_equal(len, 20 + 8);
    assert_int_equal(gk5i_rpc_cred_decode(buf, len, &d, &err), 0);
    assert_int_equal(d.seq, 42);
    assert_int_equal(d.service, GK5_RPC_SVC_PRIVACY);
    assert_int_equal(d.handle_len, 5);
    assert_memory_equal(d.handle, handle, 5);
    /* Every shorter length, a wrong version, a handle that overruns, and
     * trailing bytes are refused. */
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(gk5i_rpc_cred_decode(buf, cut, &d, &err), -1);
    }
    buf[3] = 2;
    assert_int_equal(gk5i_rpc_cred_decode(buf, len, &d, &err), -1);
    buf[3] = 1;
    buf[19] = 9;
    assert_int_equal(gk5i_rpc_cred_decode(buf, len, &d, &err), -1);
    buf[19] = 5;
    assert_int_equal(gk5i_rpc_cred_decode(buf, len + 4, &d, &err), -1);
    /* A handle too long for opaque<400> is not encoded. */
    uint8_t big[400] = {0};
    c.handle = big;
    c.handle_len = sizeof(big);
    assert_int_equal(gk5i_rpc_cred_encode(&c, buf, sizeof(buf)), 0);
}

static void test_record_marking(void **state)
{
    int sv[2];
    uint8_t a[3] = {1, 2, 3}, b[5] = {4, 5, 6, 7, 8}, *got = NULL;
    size_t len = 0;
    gk5_rpc_error err;
    struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(gk5i_rpc_write_record(sv[0], iov, 2, &err), 0);
    assert_int_equal(gk5i_rpc_read_record(sv[1], 64, 1000, &got, &len, &err),
                     0);
    assert_int_equal(len, 8);
    assert_memory_equal(got, "\1\2\3\4\5\6\7\10", 8);
    free(got);
    /* Two fragments make one record; a record over max is refused. */
    static const uint8_t frags[] = {0, 0, 0, 2, 'h', 'i', 0x80, 0, 0, 1, '!'};
    assert_int_equal(write(sv[0], frags, sizeof(frags)), sizeof(frags));
    assert_int_equal(gk5i_rpc_read_record(sv[1], 64, 1000, &got, &len, &err),
                     0);
    assert_int_equal(len, 3);
    assert_memory_equal(got, "hi!", 3);
    free(got);
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff};
    assert_int_equal(write(sv[0], huge, sizeof(huge)), sizeof(huge));
    assert_int_equal(gk5i_rpc_read_record(sv[1], 64, 1000, &got, &len, &err),
                     -1);
    assert_int_equal(err.code, GK5_RPC_E_TOO_BIG);
    /* Nothing arrives: a timeout; the peer closes: end of stream. */
    int sv2[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv2), 0);
    assert_int_equal(gk5i_rpc_read_record(sv2[1], 64, 50, &got, &len, &err),
                     -1);
    assert_int_equal(err.code, GK5_RPC_E_TRANSPORT);
    close(sv2[0]);
    assert_int_equal(gk5i_rpc_read_record(sv2[1], 64, 1000, &got, &len, &err),
                     1);
    close(sv2[1]);
    close(sv[0]);
    close(sv[1]);
}

/* RFC 2623 2.1 pseudoflavours and the names people type. */
static void test_service_names(void **state)
{
    static const struct {
        const char *name, *alias;
        gk5_rpc_service svc;
        uint32_t pseudo;
    } rows[] = {
        {"krb5", "none", GK5_RPC_SVC_NONE, 390003},
        {"krb5i", "integrity", GK5_RPC_SVC_INTEGRITY, 390004},
        {"krb5p", "privacy", GK5_RPC_SVC_PRIVACY, 390005},
    };
    gk5_rpc_service svc;

    (void)state;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(rows); i++) {
        assert_int_equal(gk5_rpc_service_parse(rows[i].name, &svc), 0);
        assert_int_equal(svc, rows[i].svc);
        assert_int_equal(gk5_rpc_service_parse(rows[i].alias, &svc), 0);
        assert_int_equal(svc, rows[i].svc);
        assert_string_equal(gk5_rpc_service_name(rows[i].svc), rows[i].name);
        assert_int_equal(gk5_rpc_pseudoflavor(rows[i].svc), rows[i].pseudo);
        assert_int_equal(
            gk5_rpc_service_from_pseudoflavor(rows[i].pseudo, &svc), 0);
        assert_int_equal(svc, rows[i].svc);
    }
    assert_int_equal(gk5_rpc_service_parse("krb5x", &svc), -1);
    assert_int_equal(gk5_rpc_service_parse(NULL, &svc), -1);
    assert_int_equal(gk5_rpc_service_from_pseudoflavor(390006, &svc), -1);
    assert_int_equal(gk5_rpc_service_from_pseudoflavor(6, &svc), -1);
    assert_int_equal(gk5_rpc_pseudoflavor((gk5_rpc_service)0), 0);
    assert_string_equal(gk5_rpc_service_name((gk5_rpc_service)9), "?");
    for (int code = 0; code < GK5_RPC_E__COUNT; code++) {
        assert_string_not_equal(gk5_rpc_strerror(code),
                                "unknown gk5 RPC error");
    }
    assert_string_equal(gk5_rpc_strerror(GK5_RPC_E__COUNT),
                        "unknown gk5 RPC error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bodies_every_enctype),
        cmocka_unit_test(test_body_lengths_that_lie),
        cmocka_unit_test(test_integ_pieces),
        cmocka_unit_test(test_verifiers),
        cmocka_unit_test(test_credentials),
        cmocka_unit_test(test_record_marking),
        cmocka_unit_test(test_service_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
