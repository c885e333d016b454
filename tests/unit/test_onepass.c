/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The hand-written AES-NI paths (src/crypto/fast/aesni*.c) against
 * OpenSSL, their oracle: AES-CBC both ways, RFC 3962 one-pass sealing
 * (AES-CBC and SHA-1 in one loop on AES-NI and SHA-NI), and the batched
 * subkey derivation of a context import.  Skipped where the CPU lacks the
 * instructions (the batched derivation is checked everywhere).
 *
 * - The loop alone against OpenSSL: its ciphertext and chaining value equal
 *   OpenSSL's AES-128/256-CBC from the same IV, and its SHA-1 state equals
 *   OpenSSL's SHA1_Update from the same midway state, for 1..40 blocks.
 * - Sealing (gk5i_encrypt_iov) with the AES-NI paths on equals sealing
 *   with them off (the OpenSSL path the known-answer tests check) byte for
 *   byte, for every AES enctype (17, 18, 19, 20) and Camellia (25, 26:
 *   OpenSSL's low-level Camellia against its EVP one), plaintext lengths
 * 0..300, some large ones and 2 MiB, in one segment and cut into many (so
 * blocks and 64-byte pieces straddle segments at every offset), alternating on
 *   one ukey so that the CBC context's chaining state passes between the
 *   two paths; and each side's ciphertext decrypts on the other side's
 *   path.
 * - gk5i_derive_subkeys_many (one keyed base key, AES-NI or OpenSSL) equals
 *   gk5i_derive_subkeys (OpenSSL's KDFs, one call per subkey) for every
 *   supported enctype, random keys and usages.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <gk5/crypto.h>
/* This test's own pseudo-random sequence (xorshift.h). */
#define XORSHIFT_SEED 0x2545f491u
#include "xorshift.h"
#include "crypto/crypto_int.h"
#include "crypto/internal.h"

#define USAGE 24u
#define MAX_SEGS 2048

#ifdef GK5_HAVE_ONEPASS

static int need_onepass(void **state)
{
    (void)state;
    if (!gk5i_onepass_set_enabled(true)) {
        /* No AES-NI or SHA-NI here: nothing to compare. */
        return -1;
    }
    return 0;
}

/* One case for a loop: a random key, IV, 64-byte prefix and blocks x 64
 * bytes of data, and in want OpenSSL's AES-CBC of the data (no padding)
 * under that key and IV. */
static void loop_case(size_t key_len, size_t blocks, uint8_t key[32],
                      uint8_t iv[16], uint8_t prefix[64], uint8_t *data,
                      uint8_t *want)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;

    fill(key, 32);
    fill(iv, 16);
    fill(prefix, 64);
    fill(data, blocks * 64);
    assert_non_null(ctx);
    assert_true(EVP_EncryptInit_ex2(
        ctx, key_len == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc(), key, iv,
        NULL));
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    assert_true(EVP_EncryptUpdate(ctx, want, &outl, data, (int)(blocks * 64)));
    EVP_CIPHER_CTX_free(ctx);
}

/* Runs loop (gk5i_onepass_cbc_sha1 or _sha256) over data from iv with the
 * hash state h, and checks the ciphertext and chaining value against
 * want; the caller checks h. */
static void loop_run(void (*loop)(const struct gk5i_aes_key *, uint8_t[16],
                                  uint32_t *, uint8_t *, size_t),
                     const uint8_t *key, size_t key_len, const uint8_t iv[16],
                     uint32_t *h, uint8_t *data, const uint8_t *want,
                     size_t blocks)
{
    struct gk5i_aes_key *k = NULL;
    uint8_t chain[16];

    assert_int_equal(gk5i_aes_key_new(key, key_len, false, &k), GK5_OK);
    memcpy(chain, iv, sizeof(chain));
    loop(k, chain, h, data, blocks);
    gk5i_aes_key_free(k);

    assert_memory_equal(data, want, blocks * 64);
    assert_memory_equal(chain, want + blocks * 64 - 16, 16);
}

/* The loop against OpenSSL's AES-CBC and SHA-1. */
static void test_loop_vs_openssl(void **state)
{
    static uint8_t data[40 * 64], want[40 * 64];
    static const size_t key_lens[] = {16, 32};

    (void)state;
    if (need_onepass(state) != 0) {
        skip();
    }
    for (size_t kl = 0; kl < 2; kl++) {
        for (size_t blocks = 1; blocks <= 40; blocks++) {
            uint8_t key[32], iv[16], prefix[64];
            uint32_t h[5];
            SHA_CTX sha;

            loop_case(key_lens[kl], blocks, key, iv, prefix, data, want);

            /* A SHA-1 state midway through a message. */
            assert_int_equal(SHA1_Init(&sha), 1);
            assert_int_equal(SHA1_Update(&sha, prefix, sizeof(prefix)), 1);
            h[0] = sha.h0;
            h[1] = sha.h1;
            h[2] = sha.h2;
            h[3] = sha.h3;
            h[4] = sha.h4;
            assert_int_equal(SHA1_Update(&sha, data, blocks * 64), 1);

            loop_run(gk5i_onepass_cbc_sha1, key, key_lens[kl], iv, h, data,
                     want, blocks);
            assert_int_equal(h[0], sha.h0);
            assert_int_equal(h[1], sha.h1);
            assert_int_equal(h[2], sha.h2);
            assert_int_equal(h[3], sha.h3);
            assert_int_equal(h[4], sha.h4);
        }
    }
}

/* The RFC 8009 loop against OpenSSL's AES-CBC and SHA-256: the SHA-256
 * absorbs the ciphertext. */
static void test_loop256_vs_openssl(void **state)
{
    static uint8_t data[40 * 64], want[40 * 64];
    static const size_t key_lens[] = {16, 32};

    (void)state;
    if (need_onepass(state) != 0) {
        skip();
    }
    for (size_t kl = 0; kl < 2; kl++) {
        for (size_t blocks = 1; blocks <= 40; blocks++) {
            uint8_t key[32], iv[16], prefix[64];
            uint32_t h[8];
            SHA256_CTX sha;

            loop_case(key_lens[kl], blocks, key, iv, prefix, data, want);

            assert_int_equal(SHA256_Init(&sha), 1);
            assert_int_equal(SHA256_Update(&sha, prefix, sizeof(prefix)), 1);
            memcpy(h, sha.h, sizeof(h));
            assert_int_equal(SHA256_Update(&sha, want, blocks * 64), 1);

            loop_run(gk5i_onepass_cbc_sha256, key, key_lens[kl], iv, h, data,
                     want, blocks);
            assert_memory_equal(h, sha.h, sizeof(h));
        }
    }
}

struct msg {
    gk5_crypto_iov iov[MAX_SEGS];
    size_t n;
};

static void msg_add(struct msg *m, uint32_t flags, const uint8_t *src,
                    size_t len)
{
    uint8_t *p = malloc(len != 0 ? len : 1);

    assert_non_null(p);
    assert_true(m->n < MAX_SEGS);
    if (src != NULL && len != 0) {
        memcpy(p, src, len);
    }
    m->iov[m->n++] = (gk5_crypto_iov){flags, p, len};
}

static void msg_free(struct msg *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->iov[i].data);
    }
    m->n = 0;
}

/* HEADER | DATA (whole, or in pieces of 1..200 bytes) | TRAILER. */
static void msg_build(struct msg *m, const struct gk5_enctype *et,
                      const uint8_t *plain, size_t len, bool cut)
{
    size_t off = 0;

    m->n = 0;
    msg_add(m, GK5_CRYPTO_IOV_HEADER, NULL, et->conf_bytes);
    do {
        size_t k = cut ? 1 + rnd() % 200 : len - off;

        k = k < len - off ? k : len - off;
        msg_add(m, GK5_CRYPTO_IOV_DATA, plain + off, k);
        off += k;
    } while (off < len);
    msg_add(m, GK5_CRYPTO_IOV_TRAILER, NULL, et->mac_bytes);
}

static size_t msg_gather(const struct msg *m, uint8_t *out)
{
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++) {
        memcpy(out + n, m->iov[i].data, m->iov[i].length);
        n += m->iov[i].length;
    }
    return n;
}

static void msg_scatter(struct msg *m, const uint8_t *in)
{
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++) {
        memcpy(m->iov[i].data, in + n, m->iov[i].length);
        n += m->iov[i].length;
    }
}

/* One flipped bit anywhere in the sealed message: the default (one-pass)
 * path refuses it and leaves no plaintext behind. */
static void tamper_and_check(gk5_ukey *uk, struct msg *m)
{
    size_t total = 0, at, bit;

    for (size_t i = 0; i < m->n; i++) {
        total += m->iov[i].length;
    }
    at = rnd() % total;
    bit = rnd() % 8;
    for (size_t i = 0; i < m->n; i++) {
        if (at < m->iov[i].length) {
            ((uint8_t *)m->iov[i].data)[at] ^= (uint8_t)(1u << bit);
            break;
        }
        at -= m->iov[i].length;
    }
    assert_int_equal(gk5i_decrypt_iov(uk, m->iov, m->n), GK5_ERR_INTEGRITY);
    for (size_t i = 0; i < m->n; i++) {
        if (m->iov[i].flags == GK5_CRYPTO_IOV_DATA ||
            m->iov[i].flags == GK5_CRYPTO_IOV_HEADER) {
            for (size_t j = 0; j < m->iov[i].length; j++) {
                assert_int_equal(((uint8_t *)m->iov[i].data)[j], 0);
            }
        }
    }
}

/* Decrypts m on the path given and checks the plaintext. */
static void open_and_check(gk5_ukey *uk, struct msg *m, bool aesni,
                           const uint8_t *plain, size_t len, uint8_t *out)
{
    size_t n = 0;

    (void)gk5i_onepass_set_enabled(aesni);
    assert_int_equal(gk5i_decrypt_iov(uk, m->iov, m->n), GK5_OK);
    (void)gk5i_onepass_set_enabled(true);
    for (size_t i = 0; i < m->n; i++) {
        if (m->iov[i].flags == GK5_CRYPTO_IOV_DATA) {
            memcpy(out + n, m->iov[i].data, m->iov[i].length);
            n += m->iov[i].length;
        }
    }
    assert_int_equal(n, len);
    assert_memory_equal(out, plain, len);
}

static void seal_and_compare(const struct gk5_enctype *et, gk5_ukey *uk,
                             size_t len)
{
    static struct msg m;
    uint8_t *plain = malloc(len + 1), *one = malloc(len + 100);
    uint8_t *two = malloc(len + 100), *out = malloc(len + 100);
    uint8_t conf[16];
    size_t n1, n2;
    bool cut = rnd() % 2 == 0 && len < 100000;

    assert_non_null(plain);
    assert_non_null(one);
    assert_non_null(two);
    assert_non_null(out);
    fill(plain, len);
    fill(conf, sizeof(conf));

    assert_true(gk5i_onepass_set_enabled(true));
    msg_build(&m, et, plain, len, cut);
    assert_int_equal(gk5i_encrypt_iov(uk, conf, m.iov, m.n), GK5_OK);
    n1 = msg_gather(&m, one);
    if (len % 37 == 5 || len > 1000) {
        tamper_and_check(uk, &m);
        msg_scatter(&m, one);
    }
    open_and_check(uk, &m, false, plain, len, out);
    msg_free(&m);

    (void)gk5i_onepass_set_enabled(false);
    msg_build(&m, et, plain, len, !cut && len < 100000);
    assert_int_equal(gk5i_encrypt_iov(uk, conf, m.iov, m.n), GK5_OK);
    (void)gk5i_onepass_set_enabled(true);
    n2 = msg_gather(&m, two);
    open_and_check(uk, &m, true, plain, len, out);
    msg_free(&m);

    assert_int_equal(n1, n2);
    assert_memory_equal(one, two, n1);
    free(plain);
    free(one);
    free(two);
    free(out);
}

static void test_seal_equals_serial(void **state)
{
    static const int32_t enctypes[] = {17, 18, 19, 20, 25, 26};
    static const size_t big[] = {1000, 4096 + 7, 16384, 65536 + 13,
                                 (2u << 20) + 5};

    (void)state;
    if (need_onepass(state) != 0) {
        skip();
    }
    for (size_t e = 0; e < sizeof(enctypes) / sizeof(enctypes[0]); e++) {
        const struct gk5_enctype *et = gk5i_enctype_get(enctypes[e]);
        uint8_t key[32];
        struct gk5i_subkeys sk;
        gk5_ukey *uk = NULL;

        assert_non_null(et);
        fill(key, et->key_bytes);
        assert_int_equal(
            gk5i_derive_subkeys(et, key, et->key_bytes, USAGE, &sk), GK5_OK);
        assert_int_equal(gk5i_ukey_new(et, &sk, &uk), GK5_OK);
        gk5i_subkeys_wipe(&sk);
        for (size_t len = 0; len <= 300; len++) {
            seal_and_compare(et, uk, len);
        }
        for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
            seal_and_compare(et, uk, big[i]);
        }
        gk5i_ukey_free(uk);
    }
}

#else

static void test_loop_vs_openssl(void **state)
{
    (void)state;
    skip();
}

static void test_seal_equals_serial(void **state)
{
    (void)state;
    skip();
}

static void test_loop256_vs_openssl(void **state)
{
    (void)state;
    skip();
}

#endif

/* The batched derivation of a context import against one KDF call per
 * subkey, on both of its paths where the CPU has AES-NI. */
static void test_derive_many_equals_single(void **state)
{
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !gk5i_onepass_set_enabled(false)) {
            break; /* no AES-NI path to turn off */
        }
        for (size_t e = 0; gk5i_enctype_at(e) != NULL; e++) {
            const struct gk5_enctype *et = gk5i_enctype_at(e);

            if (et->state != GK5_ENCTYPE_SUPPORTED || et->rfc1964) {
                continue;
            }
            for (int round = 0; round < 20; round++) {
                uint32_t usages[6] = {22, 23, 24, 25, 0, 0xffffffffu};
                struct gk5i_subkeys many[6], one;
                uint8_t key[GK5_MAX_KEY_BYTES];

                if (round > 0) {
                    for (size_t i = 0; i < 6; i++) {
                        usages[i] = rnd() % (round % 2 ? 64 : 0xffffffffu);
                    }
                }
                fill(key, et->key_bytes);
                assert_int_equal(gk5i_derive_subkeys_many(
                                     et, key, et->key_bytes, usages, 6, many),
                                 GK5_OK);
                for (size_t i = 0; i < 6; i++) {
                    assert_int_equal(gk5i_derive_subkeys(et, key, et->key_bytes,
                                                         usages[i], &one),
                                     GK5_OK);
                    assert_int_equal(many[i].ke_len, one.ke_len);
                    assert_int_equal(many[i].ki_len, one.ki_len);
                    assert_int_equal(many[i].kc_len, one.kc_len);
                    assert_memory_equal(many[i].ke, one.ke, one.ke_len);
                    assert_memory_equal(many[i].ki, one.ki, one.ki_len);
                    assert_memory_equal(many[i].kc, one.kc, one.kc_len);
                    assert_false(many[i].raw);
                }
                /* A wrong key length derives nothing. */
                assert_int_equal(gk5i_derive_subkeys_many(et, key,
                                                          et->key_bytes - 1,
                                                          usages, 6, many),
                                 GK5_ERR_BAD_KEY_LENGTH);
            }
        }
    }
    (void)gk5i_onepass_set_enabled(true);
}

/* gk5_build_features: the build's paths, and the one-pass bit exactly
 * when this CPU has the instructions and the switch leaves them on. */
static void test_build_features(void **state)
{
    uint32_t f = gk5_build_features();

    (void)state;
#ifdef GK5_FASTPATH
    assert_true((f & GK5_FEATURE_FASTPATH) != 0);
#else
    assert_true((f & GK5_FEATURE_FASTPATH) == 0);
#endif
#ifdef GK5_HAVE_ONEPASS
    bool cpu = gk5i_onepass_set_enabled(true);

    assert_int_equal((gk5_build_features() & GK5_FEATURE_ONEPASS) != 0, cpu);
    (void)gk5i_onepass_set_enabled(false);
    assert_true((gk5_build_features() & GK5_FEATURE_ONEPASS) == 0);
    (void)gk5i_onepass_set_enabled(true);
#else
    assert_true((f & GK5_FEATURE_ONEPASS) == 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_vs_openssl),
        cmocka_unit_test(test_loop256_vs_openssl),
        cmocka_unit_test(test_seal_equals_serial),
        cmocka_unit_test(test_derive_many_equals_single),
        cmocka_unit_test(test_build_features),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
