/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The hand-written paths against OpenSSL's own primitives, byte for byte.
 *
 * A ukey made while gk5i_openssl_only_set(true) runs on OpenSSL alone: the
 * CTS ciphers ("AES-128-CBC-CTS", "CAMELLIA-256-CBC-CTS", ... in CS3 mode;
 * DES3 on "DES-EDE3-CBC") and EVP_MAC's HMAC and CMAC -- what a
 * -Dfastpath=false build runs.  A ukey made otherwise runs on the fast
 * paths: AES-NI CBC and one-pass sealing, cts.c's stealing over keyed CBC,
 * HMAC from precomputed pads, CMAC and CBC on the low-level Camellia; and
 * with gk5i_onepass_set_enabled(false), cts.c over OpenSSL CBC contexts.
 * For every enctype built, several keys, the GSS usages and random ones,
 * plaintext lengths 0..300 and some large ones cut into random IOV pieces
 * (with SIGN_ONLY pieces, EMPTY ones and, for DES3, padding), and the same
 * confounders, this requires:
 *   - encryption: the same bytes in every segment on all three paths;
 *   - each path's ciphertext decrypts on the others to the plaintext, and a
 *     flipped byte is an integrity failure on every path;
 *   - checksums: the same bytes, and each verifies on the others;
 *   - raw CTS (RFC 3962 B's form, with an IV and the next IV) and, for
 *     DES3, RFC 1964 raw CBC: the same bytes and cipher state both ways.
 * Skipped in a -Dfastpath=false build, which has only the OpenSSL path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gk5/crypto.h>
/* This test's own pseudo-random sequence (xorshift.h). */
#define XORSHIFT_SEED 0x9e3779b9u
#include "xorshift.h"
#include "crypto/crypto_int.h"
#include "crypto/internal.h"

#define MAX_SEGS 64
#define N_PATHS 3 /* fast, fast with the seam off, OpenSSL only */

/* ---- Messages cut into IOV pieces, each in its own allocation ---- */

struct msg {
    gk5_crypto_iov iov[MAX_SEGS];
    size_t n;
};

static void add(struct msg *m, uint32_t flags, const uint8_t *src, size_t len)
{
    uint8_t *p = malloc(len != 0 ? len : 1);

    assert_true(m->n < MAX_SEGS);
    assert_non_null(p);
    if (src != NULL) {
        memcpy(p, src, len);
    } else {
        memset(p, 0, len);
    }
    m->iov[m->n++] = (gk5_crypto_iov){.flags = flags, .data = p, .length = len};
}

/* Adds len bytes of src as `pieces` DATA segments cut at random places,
 * with a SIGN_ONLY or EMPTY segment between some of them. */
static void add_pieces(struct msg *m, const uint8_t *src, size_t len,
                       unsigned pieces, bool sign)
{
    size_t off = 0;

    for (unsigned i = 0; i < pieces; i++) {
        size_t k = i + 1 == pieces
                       ? len - off
                       : (len - off == 0 ? 0 : rnd() % (len - off + 1));

        add(m, GK5_CRYPTO_IOV_DATA, src + off, k);
        off += k;
        if (sign && rnd() % 3 == 0) {
            uint8_t s[23];
            size_t sl = rnd() % sizeof(s);

            fill(s, sl);
            add(m, GK5_CRYPTO_IOV_SIGN_ONLY, s, sl);
        } else if (rnd() % 5 == 0) {
            add(m, GK5_CRYPTO_IOV_EMPTY, NULL, 0);
        }
    }
}

static unsigned n_pieces(size_t len)
{
    return 1 + rnd() % (len < 64 ? 4 : 12);
}

static void msg_build(struct msg *m, const struct gk5_enctype *et,
                      const uint8_t *plain, size_t len)
{
    size_t pad = gk5i_padding_length(et, len);

    m->n = 0;
    add(m, GK5_CRYPTO_IOV_HEADER, NULL, et->conf_bytes);
    add_pieces(m, plain, len, n_pieces(len), true);
    if (pad != 0 || rnd() % 2 == 0) {
        add(m, GK5_CRYPTO_IOV_PADDING, NULL, pad);
    }
    add(m, GK5_CRYPTO_IOV_TRAILER, NULL, et->mac_bytes);
}

static void msg_copy(struct msg *dst, const struct msg *src)
{
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++) {
        add(dst, src->iov[i].flags, src->iov[i].data, src->iov[i].length);
    }
}

static void msg_free(struct msg *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->iov[i].data);
    }
    m->n = 0;
}

static void msg_equal(const struct msg *a, const struct msg *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->iov[i].flags, b->iov[i].flags);
        assert_int_equal(a->iov[i].length, b->iov[i].length);
        assert_memory_equal(a->iov[i].data, b->iov[i].data, a->iov[i].length);
    }
}

static void data_is(const struct msg *m, const uint8_t *plain, size_t len)
{
    size_t off = 0;

    for (size_t i = 0; i < m->n; i++) {
        if (m->iov[i].flags == GK5_CRYPTO_IOV_DATA) {
            assert_true(off + m->iov[i].length <= len);
            assert_memory_equal(m->iov[i].data, plain + off, m->iov[i].length);
            off += m->iov[i].length;
        }
    }
    assert_int_equal(off, len);
}

/* A random byte of a non-empty segment of the message flipped. */
static void flip(struct msg *m)
{
    for (;;) {
        gk5_crypto_iov *v = &m->iov[rnd() % m->n];

        if (v->length != 0 && v->flags != GK5_CRYPTO_IOV_EMPTY) {
            ((uint8_t *)v->data)[rnd() % v->length] ^=
                (uint8_t)(1u << (rnd() % 8));
            return;
        }
    }
}

/* ---- The three paths ---- */

struct keys {
    gk5_ukey *uk[N_PATHS];
};

/* Runs path p (0: fast, 1: fast with the seam off, 2: OpenSSL only). */
static gk5_ukey *on_path(struct keys *k, int p)
{
    (void)gk5i_onepass_set_enabled(p != 1);
    return k->uk[p];
}

static void keys_make(struct keys *k, const struct gk5_enctype *et,
                      const struct gk5i_subkeys *sk)
{
    gk5_ukey *dup = NULL;

    for (int p = 0; p < N_PATHS; p++) {
        assert_true(gk5i_openssl_only_set(p == 2));
        assert_int_equal(gk5i_ukey_new(et, sk, &k->uk[p]), GK5_OK);
        assert_int_equal(gk5i_ukey_fast(k->uk[p]), p != 2);
    }
    assert_true(gk5i_openssl_only_set(false));
    /* A copy for another thread keeps its original's path. */
    assert_int_equal(gk5i_ukey_dup(k->uk[2], &dup), GK5_OK);
    assert_false(gk5i_ukey_fast(dup));
    gk5i_ukey_free(dup);
    assert_int_equal(gk5i_ukey_dup(k->uk[0], &dup), GK5_OK);
    assert_true(gk5i_ukey_fast(dup));
    gk5i_ukey_free(dup);
}

static void keys_free(struct keys *k)
{
    for (int p = 0; p < N_PATHS; p++) {
        gk5i_ukey_free(k->uk[p]);
        k->uk[p] = NULL;
    }
    (void)gk5i_onepass_set_enabled(true);
}

static void check_encrypt(struct keys *k, const struct gk5_enctype *et,
                          size_t len)
{
    uint8_t *plain = malloc(len + 1), conf[GK5_MAX_BLOCK_BYTES];
    struct msg in, ct[N_PATHS], t;

    assert_non_null(plain);
    fill(plain, len);
    fill(conf, sizeof(conf));
    msg_build(&in, et, plain, len);
    for (int p = 0; p < N_PATHS; p++) {
        msg_copy(&ct[p], &in);
        assert_int_equal(
            gk5i_encrypt_iov(on_path(k, p), conf, ct[p].iov, ct[p].n), GK5_OK);
    }
    msg_equal(&ct[0], &ct[2]);
    msg_equal(&ct[1], &ct[2]);
    /* Each path's ciphertext on every path. */
    for (int from = 0; from < N_PATHS; from++) {
        for (int p = 0; p < N_PATHS; p++) {
            msg_copy(&t, &ct[from]);
            assert_int_equal(gk5i_decrypt_iov(on_path(k, p), t.iov, t.n),
                             GK5_OK);
            data_is(&t, plain, len);
            msg_free(&t);
        }
    }
    /* A flipped byte fails everywhere. */
    msg_copy(&t, &ct[2]);
    flip(&t);
    for (int p = 0; p < N_PATHS; p++) {
        struct msg u;

        msg_copy(&u, &t);
        assert_int_equal(gk5i_decrypt_iov(on_path(k, p), u.iov, u.n),
                         GK5_ERR_INTEGRITY);
        msg_free(&u);
    }
    msg_free(&t);
    for (int p = 0; p < N_PATHS; p++) {
        msg_free(&ct[p]);
    }
    msg_free(&in);
    free(plain);
}

static void check_checksum(struct keys *k, const struct gk5_enctype *et,
                           size_t len)
{
    uint8_t *plain = malloc(len + 1);
    struct msg in, ck[N_PATHS];

    assert_non_null(plain);
    fill(plain, len);
    in.n = 0;
    add_pieces(&in, plain, len, n_pieces(len), true);
    add(&in, GK5_CRYPTO_IOV_CHECKSUM, NULL, et->cksum_bytes);
    for (int p = 0; p < N_PATHS; p++) {
        msg_copy(&ck[p], &in);
        assert_int_equal(gk5i_checksum_iov(on_path(k, p), ck[p].iov, ck[p].n),
                         GK5_OK);
    }
    msg_equal(&ck[0], &ck[2]);
    msg_equal(&ck[1], &ck[2]);
    for (int p = 0; p < N_PATHS; p++) {
        assert_int_equal(
            gk5i_verify_checksum_iov(on_path(k, p), ck[2].iov, ck[2].n),
            GK5_OK);
    }
    flip(&ck[0]);
    for (int p = 0; p < N_PATHS; p++) {
        assert_int_equal(
            gk5i_verify_checksum_iov(on_path(k, p), ck[0].iov, ck[0].n),
            GK5_ERR_INTEGRITY);
    }
    for (int p = 0; p < N_PATHS; p++) {
        msg_free(&ck[p]);
    }
    msg_free(&in);
    free(plain);
}

static void check_enctype(const struct gk5_enctype *et)
{
    static const size_t big[] = {1000, 4096 + 7, 16384, 65536 + 13,
                                 (1u << 20) + 5};
    uint32_t usages[] = {22, 23, 24, 25, 0};

    usages[4] = rnd();
    for (size_t u = 0; u < sizeof(usages) / sizeof(usages[0]); u++) {
        uint8_t key[GK5_MAX_KEY_BYTES];
        struct gk5i_subkeys sk;
        struct keys k;

        fill(key, et->key_bytes);
        assert_int_equal(
            gk5i_derive_subkeys(et, key, et->key_bytes, usages[u], &sk),
            GK5_OK);
        keys_make(&k, et, &sk);
        for (size_t len = 0; len <= 300; len++) {
            check_encrypt(&k, et, len);
            check_checksum(&k, et, len);
        }
        for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
            if (u == 0 || big[i] < 65536) {
                check_encrypt(&k, et, big[i]);
                check_checksum(&k, et, big[i]);
            }
        }
        keys_free(&k);
        gk5i_subkeys_wipe(&sk);
    }
}

/* Whether this build has the fast paths (and the seam back off). */
static bool fastpath_built(void)
{
    return gk5i_openssl_only_set(false);
}

static void test_encrypt_checksum(void **state)
{
    (void)state;
    if (!fastpath_built()) {
        skip(); /* -Dfastpath=false: only the OpenSSL path exists */
    }
    for (size_t e = 0; gk5i_enctype_at(e) != NULL; e++) {
        const struct gk5_enctype *et = gk5i_enctype_at(e);

        if (et->state == GK5_ENCTYPE_SUPPORTED) {
            check_enctype(et);
        }
    }
}

/* RFC 3962 B's raw CTS (an IV, the next IV) on both sides, both ways. */
static void test_cts_raw(void **state)
{
    (void)state;
    if (!fastpath_built()) {
        skip();
    }
    for (size_t e = 0; gk5i_enctype_at(e) != NULL; e++) {
        const struct gk5_enctype *et = gk5i_enctype_at(e);
        uint8_t key[GK5_MAX_KEY_BYTES], iv[16], in[300];
        uint8_t out[2][300], back[2][300], next[2][16], dnext[2][16];

        if (et->state != GK5_ENCTYPE_SUPPORTED || et->cts_cipher == NULL) {
            continue;
        }
        for (size_t len = et->block_bytes; len <= sizeof(in); len++) {
            fill(key, et->key_bytes);
            fill(iv, sizeof(iv));
            fill(in, len);
            for (int p = 0; p < 2; p++) {
                assert_true(gk5i_openssl_only_set(p == 1));
                assert_int_equal(gk5i_cts_raw(et->num, key, et->key_bytes, iv,
                                              in, len, out[p], next[p], true),
                                 GK5_OK);
            }
            assert_memory_equal(out[0], out[1], len);
            assert_memory_equal(next[0], next[1], et->block_bytes);
            for (int p = 0; p < 2; p++) {
                assert_true(gk5i_openssl_only_set(p == 1));
                assert_int_equal(gk5i_cts_raw(et->num, key, et->key_bytes, iv,
                                              out[1 - p], len, back[p],
                                              dnext[p], false),
                                 GK5_OK);
                assert_memory_equal(back[p], in, len);
                assert_memory_equal(dnext[p], next[0], et->block_bytes);
            }
        }
    }
    assert_true(gk5i_openssl_only_set(false));
}

/* RFC 1964 raw CBC (DES3, when built) on every path. */
static void test_raw_cbc(void **state)
{
    bool any = false;

    (void)state;
    if (!fastpath_built()) {
        skip();
    }
    for (size_t e = 0; gk5i_enctype_at(e) != NULL; e++) {
        const struct gk5_enctype *et = gk5i_enctype_at(e);
        uint8_t key[GK5_MAX_KEY_BYTES], iv[GK5_MAX_BLOCK_BYTES], in[512];
        struct gk5i_subkeys sk;
        struct keys k;

        if (et->state != GK5_ENCTYPE_SUPPORTED || !et->rfc1964) {
            continue;
        }
        any = true;
        fill(key, et->key_bytes);
        assert_int_equal(
            gk5i_derive_subkeys_raw(et, key, et->key_bytes, 24, &sk), GK5_OK);
        keys_make(&k, et, &sk);
        for (size_t len = 0; len <= sizeof(in); len += et->block_bytes) {
            struct msg m, c[N_PATHS];

            fill(in, len);
            fill(iv, sizeof(iv));
            m.n = 0;
            add_pieces(&m, in, len, n_pieces(len), false);
            for (int p = 0; p < N_PATHS; p++) {
                msg_copy(&c[p], &m);
                assert_int_equal(
                    gk5i_raw_encrypt_iov(on_path(&k, p), iv, c[p].iov, c[p].n),
                    GK5_OK);
            }
            msg_equal(&c[0], &c[2]);
            msg_equal(&c[1], &c[2]);
            for (int p = 0; p < N_PATHS; p++) {
                assert_int_equal(gk5i_raw_decrypt_iov(on_path(&k, p), iv,
                                                      c[(p + 1) % N_PATHS].iov,
                                                      c[(p + 1) % N_PATHS].n),
                                 GK5_OK);
                data_is(&c[(p + 1) % N_PATHS], in, len);
            }
            for (int p = 0; p < N_PATHS; p++) {
                msg_free(&c[p]);
            }
            msg_free(&m);
        }
        keys_free(&k);
        gk5i_subkeys_wipe(&sk);
    }
    if (!any) {
        skip(); /* no RFC 1964 enctype built (-Ddes3=false) */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encrypt_checksum),
        cmocka_unit_test(test_cts_raw),
        cmocka_unit_test(test_raw_cbc),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
