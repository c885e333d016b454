/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Encryption and checksums over scattered IOV segments, for every enctype
 * built here.
 *
 * - encrypt_iov with the plaintext cut into many segments of odd sizes
 *   (blocks straddling segments, 1-byte and 0-byte segments, EMPTY ones)
 *   gives exactly the contiguous ciphertext for the same confounder, and
 *   decrypts back, also when cut differently for decryption; plaintext
 *   lengths 0..100 and a few large ones.
 * - SIGN_ONLY segments: the cipher output is unchanged and the MAC is the
 *   one computed here with OpenSSL directly from Ki (RFC 3961 5.3 MtE:
 *   over the plaintext in array order; RFC 8009 5 EtM: over the zero IV and
 *   the ciphertext in array order), as MIT's IOV code does.
 * - A flipped bit anywhere (confounder, data, padding, MAC, SIGN_ONLY data)
 *   or the wrong usage gives GK5_ERR_INTEGRITY and leaves every DATA
 *   segment wiped.
 * - checksum_iov over split DATA/SIGN_ONLY input equals the contiguous
 *   checksum; a truncated CHECKSUM segment gets its prefix.
 * - A duplicated ukey behaves as the original; the public IOV forms round
 *   trip; malformed IOV lists are refused; DES3 raw CBC (RFC 1964) equals
 *   OpenSSL's DES-EDE3-CBC.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/evp.h>

#include <gk5/crypto.h>
/* This test's own pseudo-random sequence (xorshift.h). */
#define XORSHIFT_SEED 0x9e3779b9u
#include "xorshift.h"
#include "crypto/crypto_int.h"

#define USAGE 1234u
#define MAX_SEGS 4096

/* ---- The enctypes built here ---- */

static size_t usable_enctypes(const struct gk5_enctype **out, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; gk5i_enctype_at(i) != NULL && n < max; i++) {
        const struct gk5_enctype *et = gk5i_enctype_at(i);

        if (et->state == GK5_ENCTYPE_SUPPORTED) {
            out[n++] = et;
        }
    }
    return n;
}

/* RFC 8009 (AES-SHA2) is encrypt-then-MAC; the others here are RFC 3961
 * 5.3 MAC-then-encrypt. */
static bool is_etm(const struct gk5_enctype *et)
{
    return et->family == GK5I_FAMILY_AES_SHA2;
}

static void make_key(const struct gk5_enctype *et, uint8_t *key)
{
    for (size_t i = 0; i < et->key_bytes; i++) {
        key[i] = (uint8_t)(0x11 * (i + 1) + (size_t)et->num);
    }
}

static gk5_ukey *new_ukey(const struct gk5_enctype *et, const uint8_t *key,
                          uint32_t usage)
{
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;

    assert_int_equal(gk5i_derive_subkeys(et, key, et->key_bytes, usage, &sk),
                     GK5_OK);
    assert_int_equal(gk5i_ukey_new(et, &sk, &uk), GK5_OK);
    gk5i_subkeys_wipe(&sk);
    assert_non_null(uk);
    return uk;
}

/* ---- Segmented messages ----
 * Every segment gets its own heap block, so a block that straddles two
 * segments really is in two places (and the sanitizers see overruns). */

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
    } else {
        memset(p, 0xa5, len);
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

/* A segment size: mostly small and odd around block boundaries, now and
 * then 0 or a longer run (up to `big`). */
static size_t piece(size_t left, size_t big)
{
    static const size_t sizes[] = {0,  1,  2,  3,  5,  7,  8,  9, 13,
                                   15, 16, 17, 23, 31, 32, 33, 47};
    size_t k;

    if (rnd() % 8 == 0 && big > 0) {
        k = 1 + rnd() % big;
    } else {
        k = sizes[rnd() % (sizeof(sizes) / sizeof(sizes[0]))];
    }
    return k < left ? k : left;
}

/*
 * HEADER | DATA pieces of plain (with SIGN_ONLY and EMPTY segments mixed in
 * when sign_only) | PADDING | TRAILER.  The SIGN_ONLY contents are random;
 * with sign_only_empty they are all zero-length.
 */
static void msg_build(struct msg *m, const struct gk5_enctype *et,
                      const uint8_t *plain, size_t len, size_t pad,
                      bool sign_only, bool sign_only_empty, size_t big)
{
    size_t off = 0;

    m->n = 0;
    msg_add(m, GK5_CRYPTO_IOV_HEADER, NULL, et->conf_bytes);
    do {
        size_t k = piece(len - off, big);

        if (sign_only && rnd() % 3 == 0) {
            uint8_t extra[19];
            size_t e = sign_only_empty ? 0 : rnd() % sizeof(extra);

            fill(extra, e);
            msg_add(m, GK5_CRYPTO_IOV_SIGN_ONLY, extra, e);
        }
        if (rnd() % 11 == 0) {
            msg_add(m, GK5_CRYPTO_IOV_EMPTY, NULL, rnd() % 4);
        }
        msg_add(m, GK5_CRYPTO_IOV_DATA, plain + off, k);
        off += k;
    } while (off < len);
    if (sign_only) {
        uint8_t extra[7];
        size_t e = sign_only_empty ? 0 : sizeof(extra);

        fill(extra, e);
        msg_add(m, GK5_CRYPTO_IOV_SIGN_ONLY, extra, e);
    }
    if (pad != 0 || rnd() % 2 == 0) {
        msg_add(m, GK5_CRYPTO_IOV_PADDING, NULL, pad);
    }
    msg_add(m, GK5_CRYPTO_IOV_TRAILER, NULL, et->mac_bytes);
}

/* Concatenates the segments whose type is in the mask (bit 1 << type). */
static size_t msg_gather(const struct msg *m, uint32_t mask, uint8_t *out)
{
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++) {
        if ((mask & (1u << m->iov[i].flags)) != 0) {
            memcpy(out + n, m->iov[i].data, m->iov[i].length);
            n += m->iov[i].length;
        }
    }
    return n;
}

#define T(x) (1u << GK5_CRYPTO_IOV_##x)
#define STREAM (T(HEADER) | T(DATA) | T(PADDING))

/* Copies a ciphertext stream | MAC into the stream and TRAILER segments. */
static void msg_scatter(struct msg *m, const uint8_t *ct, size_t stream_len)
{
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++) {
        gk5_crypto_iov *v = &m->iov[i];

        if ((STREAM & (1u << v->flags)) != 0) {
            memcpy(v->data, ct + n, v->length);
            n += v->length;
        }
    }
    assert_int_equal(n, stream_len);
    for (size_t i = 0; i < m->n; i++) {
        if (m->iov[i].flags == GK5_CRYPTO_IOV_TRAILER) {
            memcpy(m->iov[i].data, ct + n, m->iov[i].length);
        }
    }
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

static void assert_data_wiped(const struct msg *m)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->iov[i].flags == GK5_CRYPTO_IOV_DATA ||
            m->iov[i].flags == GK5_CRYPTO_IOV_HEADER ||
            m->iov[i].flags == GK5_CRYPTO_IOV_PADDING) {
            assert_true(all_zero(m->iov[i].data, m->iov[i].length));
        }
    }
}

/* ---- Independent MAC (OpenSSL directly, Ki from the public DK) ---- */

static size_t independent_mac(const struct gk5_enctype *et, const uint8_t *key,
                              const uint8_t *in, size_t in_len, uint8_t *out)
{
    uint8_t constant[5] = {(uint8_t)(USAGE >> 24), (uint8_t)(USAGE >> 16),
                           (uint8_t)(USAGE >> 8), (uint8_t)USAGE, 0x55};
    uint8_t ki[GK5_MAX_KEY_BYTES];
    size_t ki_len = 0, out_len = 0;

    assert_int_equal(gk5_c_derive_length(et->num, constant, 5, &ki_len),
                     GK5_OK);
    assert_int_equal(
        gk5_c_derive_key(et->num, key, et->key_bytes, constant, 5, ki, ki_len),
        GK5_OK);
    assert_non_null(EVP_Q_mac(NULL, et->digest != NULL ? "HMAC" : "CMAC", NULL,
                              et->digest != NULL ? et->digest : et->cipher,
                              NULL, ki, ki_len, in, in_len, out, 64, &out_len));
    return out_len;
}

/* ---- Encryption ---- */

/*
 * One plaintext length for one enctype: IOV encrypt == contiguous encrypt
 * (same confounder), with and without (empty) SIGN_ONLY segments; decrypt
 * back in place and re-cut; with SIGN_ONLY data, check the MAC
 * independently and that the SIGN_ONLY bytes are covered.
 */
static void check_length(const struct gk5_enctype *et, gk5_ukey *uk,
                         const uint8_t *key, size_t len, size_t big)
{
    static uint8_t plain[70000], ct[70100], buf[70100], mac_in[70200];
    static struct msg m, m2;
    uint8_t conf[16], mac[64];
    size_t ct_len = sizeof(ct), pad, stream_len, n;

    assert_true(len <= sizeof(plain));
    fill(plain, len);
    fill(conf, sizeof(conf));
    assert_int_equal(gk5_c_encrypt_confounder(et->num, key, et->key_bytes,
                                              USAGE, conf, et->conf_bytes,
                                              plain, len, ct, &ct_len),
                     GK5_OK);
    assert_int_equal(
        gk5_c_crypto_length(et->num, GK5_CRYPTO_IOV_PADDING, len, &pad),
        GK5_OK);
    stream_len = et->conf_bytes + len + pad;
    assert_int_equal(ct_len, stream_len + et->mac_bytes);

    for (int variant = 0; variant < 3; variant++) {
        bool sign_only = variant > 0;
        bool empty = variant == 1;

        msg_build(&m, et, plain, len, pad, sign_only, empty, big);
        assert_int_equal(gk5i_encrypt_iov(uk, conf, m.iov, m.n), GK5_OK);
        /* The cipher output never depends on SIGN_ONLY data. */
        n = msg_gather(&m, STREAM, buf);
        assert_int_equal(n, stream_len);
        assert_memory_equal(buf, ct, stream_len);
        n = msg_gather(&m, T(TRAILER), buf);
        assert_int_equal(n, et->mac_bytes);
        if (!sign_only || empty) {
            assert_memory_equal(buf, ct + stream_len, et->mac_bytes);
        } else {
            /* MtE: MAC over the plaintext (confounder, data, SIGN_ONLY,
             * padding in array order); EtM: over the zero IV, then the
             * ciphertext and SIGN_ONLY data in array order. */
            size_t k = 0;

            if (is_etm(et)) {
                memset(mac_in, 0, et->block_bytes);
                k = et->block_bytes;
                k += msg_gather(&m, STREAM | T(SIGN_ONLY), mac_in + k);
            } else {
                /* The plaintext bytes for the stream segments (the
                 * segments now hold ciphertext), SIGN_ONLY as it is. */
                size_t poff = 0;

                for (size_t i = 0; i < m.n; i++) {
                    const gk5_crypto_iov *v = &m.iov[i];

                    switch (v->flags) {
                    case GK5_CRYPTO_IOV_HEADER:
                        memcpy(mac_in + k, conf, v->length);
                        break;
                    case GK5_CRYPTO_IOV_DATA:
                        memcpy(mac_in + k, plain + poff, v->length);
                        poff += v->length;
                        break;
                    case GK5_CRYPTO_IOV_PADDING:
                        memset(mac_in + k, 0, v->length);
                        break;
                    case GK5_CRYPTO_IOV_SIGN_ONLY:
                        memcpy(mac_in + k, v->data, v->length);
                        break;
                    default:
                        continue;
                    }
                    k += v->length;
                }
            }
            assert_true(independent_mac(et, key, mac_in, k, mac) >=
                        et->mac_bytes);
            assert_memory_equal(buf, mac, et->mac_bytes);
        }

        /* Decrypt in place. */
        assert_int_equal(gk5i_decrypt_iov(uk, m.iov, m.n), GK5_OK);
        n = msg_gather(&m, T(DATA), buf);
        assert_int_equal(n, len);
        assert_memory_equal(buf, plain, len);
        n = msg_gather(&m, T(HEADER), buf);
        assert_memory_equal(buf, conf, et->conf_bytes);
        msg_free(&m);
    }

    /* The contiguous ciphertext, cut differently, decrypts too. */
    msg_build(&m2, et, plain, len, pad, false, false, big);
    msg_scatter(&m2, ct, stream_len);
    assert_int_equal(gk5i_decrypt_iov(uk, m2.iov, m2.n), GK5_OK);
    n = msg_gather(&m2, T(DATA), buf);
    assert_int_equal(n, len);
    assert_memory_equal(buf, plain, len);
    msg_free(&m2);
}

static void test_iov_equals_contiguous(void **state)
{
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    assert_true(n >= 6);
    for (size_t e = 0; e < n; e++) {
        uint8_t key[GK5_MAX_KEY_BYTES];
        gk5_ukey *uk;

        make_key(ets[e], key);
        uk = new_ukey(ets[e], key, USAGE);
        for (size_t len = 0; len <= 100; len++) {
            check_length(ets[e], uk, key, len, 40);
        }
        gk5i_ukey_free(uk);
    }
}

static void test_iov_large(void **state)
{
    static const size_t lens[] = {255, 1000, 4096 + 3, 65536 + 5};
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        uint8_t key[GK5_MAX_KEY_BYTES];
        gk5_ukey *uk;

        make_key(ets[e], key);
        uk = new_ukey(ets[e], key, USAGE);
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            check_length(ets[e], uk, key, lens[i], 3000);
        }
        /* One-byte segments throughout: every block straddles. */
        {
            static uint8_t plain[300], ct[400], buf[400];
            static struct msg m;
            uint8_t conf[16];
            size_t ct_len = sizeof(ct), pad = 0;

            fill(plain, sizeof(plain));
            fill(conf, sizeof(conf));
            assert_int_equal(
                gk5_c_encrypt_confounder(ets[e]->num, key, ets[e]->key_bytes,
                                         USAGE, conf, ets[e]->conf_bytes, plain,
                                         sizeof(plain), ct, &ct_len),
                GK5_OK);
            assert_int_equal(gk5_c_crypto_length(ets[e]->num,
                                                 GK5_CRYPTO_IOV_PADDING,
                                                 sizeof(plain), &pad),
                             GK5_OK);
            m.n = 0;
            msg_add(&m, GK5_CRYPTO_IOV_HEADER, NULL, ets[e]->conf_bytes);
            for (size_t i = 0; i < sizeof(plain); i++) {
                msg_add(&m, GK5_CRYPTO_IOV_DATA, plain + i, 1);
            }
            msg_add(&m, GK5_CRYPTO_IOV_PADDING, NULL, pad);
            msg_add(&m, GK5_CRYPTO_IOV_TRAILER, NULL, ets[e]->mac_bytes);
            assert_int_equal(gk5i_encrypt_iov(uk, conf, m.iov, m.n), GK5_OK);
            assert_int_equal(msg_gather(&m, STREAM | T(TRAILER), buf), ct_len);
            assert_memory_equal(buf, ct, ct_len);
            assert_int_equal(gk5i_decrypt_iov(uk, m.iov, m.n), GK5_OK);
            assert_int_equal(msg_gather(&m, T(DATA), buf), sizeof(plain));
            assert_memory_equal(buf, plain, sizeof(plain));
            msg_free(&m);
        }
        gk5i_ukey_free(uk);
    }
}

/* ---- Integrity ---- */

static void test_bit_flips(void **state)
{
    static const size_t lens[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 100};
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        const struct gk5_enctype *et = ets[e];
        uint8_t key[GK5_MAX_KEY_BYTES];
        gk5_ukey *uk, *other;

        make_key(et, key);
        uk = new_ukey(et, key, USAGE);
        other = new_ukey(et, key, USAGE + 1);
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            static uint8_t plain[128];
            static struct msg m;
            size_t len = lens[l], pad = 0;

            fill(plain, len);
            assert_int_equal(
                gk5_c_crypto_length(et->num, GK5_CRYPTO_IOV_PADDING, len, &pad),
                GK5_OK);
            /* Flip one bit in each segment that carries bytes, in turn. */
            for (size_t target = 0;; target++) {
                gk5_crypto_iov *v;

                msg_build(&m, et, plain, len, pad, true, false, 20);
                assert_int_equal(gk5i_encrypt_iov(uk, NULL, m.iov, m.n),
                                 GK5_OK);
                while (target < m.n &&
                       (m.iov[target].length == 0 ||
                        m.iov[target].flags == GK5_CRYPTO_IOV_EMPTY)) {
                    target++;
                }
                if (target >= m.n) {
                    msg_free(&m);
                    break;
                }
                v = &m.iov[target];
                ((uint8_t *)v->data)[rnd() % v->length] ^=
                    (uint8_t)(1u << (rnd() % 8));
                assert_int_equal(gk5i_decrypt_iov(uk, m.iov, m.n),
                                 GK5_ERR_INTEGRITY);
                assert_data_wiped(&m);
                msg_free(&m);
            }
            /* The wrong usage (a different Ki and Ke). */
            msg_build(&m, et, plain, len, pad, false, false, 20);
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, m.iov, m.n), GK5_OK);
            assert_int_equal(gk5i_decrypt_iov(other, m.iov, m.n),
                             GK5_ERR_INTEGRITY);
            assert_data_wiped(&m);
            msg_free(&m);
        }
        gk5i_ukey_free(uk);
        gk5i_ukey_free(other);
    }
}

/* ---- Checksums ---- */

static void test_checksum_iov(void **state)
{
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        const struct gk5_enctype *et = ets[e];
        uint8_t key[GK5_MAX_KEY_BYTES];
        gk5_ukey *uk;

        make_key(et, key);
        uk = new_ukey(et, key, USAGE);
        for (size_t len = 0; len <= 100; len++) {
            static uint8_t plain[128];
            static struct msg m;
            uint8_t want[64], got[64];
            size_t want_len = sizeof(want), off = 0;

            fill(plain, len);
            assert_int_equal(gk5_c_checksum(et->num, key, et->key_bytes, USAGE,
                                            plain, len, want, &want_len),
                             GK5_OK);
            assert_int_equal(want_len, et->cksum_bytes);
            /* Input split over DATA and SIGN_ONLY segments alike. */
            m.n = 0;
            do {
                size_t k = piece(len - off, 30);

                msg_add(&m,
                        rnd() % 2 ? GK5_CRYPTO_IOV_DATA
                                  : GK5_CRYPTO_IOV_SIGN_ONLY,
                        plain + off, k);
                off += k;
            } while (off < len);
            msg_add(&m, GK5_CRYPTO_IOV_CHECKSUM, NULL, et->cksum_bytes);
            assert_int_equal(gk5i_checksum_iov(uk, m.iov, m.n), GK5_OK);
            assert_int_equal(msg_gather(&m, T(CHECKSUM), got), et->cksum_bytes);
            assert_memory_equal(got, want, et->cksum_bytes);
            assert_int_equal(gk5i_verify_checksum_iov(uk, m.iov, m.n), GK5_OK);
            assert_int_equal(gk5_c_verify_checksum_iov(et->num, key,
                                                       et->key_bytes, USAGE,
                                                       m.iov, m.n),
                             GK5_OK);
            /* A flipped bit in the checksum or the input. */
            ((uint8_t *)m.iov[m.n - 1].data)[len % et->cksum_bytes] ^= 0x40;
            assert_int_equal(gk5i_verify_checksum_iov(uk, m.iov, m.n),
                             GK5_ERR_INTEGRITY);
            ((uint8_t *)m.iov[m.n - 1].data)[len % et->cksum_bytes] ^= 0x40;
            if (len > 0) {
                for (size_t i = 0; i < m.n; i++) {
                    if (m.iov[i].length != 0 &&
                        m.iov[i].flags != GK5_CRYPTO_IOV_CHECKSUM) {
                        ((uint8_t *)m.iov[i].data)[0] ^= 1;
                        break;
                    }
                }
                assert_int_equal(gk5i_verify_checksum_iov(uk, m.iov, m.n),
                                 GK5_ERR_INTEGRITY);
            }
            /* A truncated CHECKSUM segment holds the prefix (internal
             * form only; the public one wants the whole checksum). */
            m.iov[m.n - 1].length = et->cksum_bytes / 2;
            assert_int_equal(gk5_c_checksum_iov(et->num, key, et->key_bytes,
                                                USAGE, m.iov, m.n),
                             GK5_ERR_BAD_IOV);
            if (len > 0) {
                for (size_t i = 0; i < m.n; i++) {
                    if (m.iov[i].length != 0 &&
                        m.iov[i].flags != GK5_CRYPTO_IOV_CHECKSUM) {
                        ((uint8_t *)m.iov[i].data)[0] ^= 1;
                        break;
                    }
                }
            }
            assert_int_equal(gk5i_checksum_iov(uk, m.iov, m.n), GK5_OK);
            assert_memory_equal(m.iov[m.n - 1].data, want, et->cksum_bytes / 2);
            msg_free(&m);
        }
        gk5i_ukey_free(uk);
    }
}

/* ---- Duplicated keys, public forms, malformed lists ---- */

static void test_dup_and_public(void **state)
{
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        const struct gk5_enctype *et = ets[e];
        static uint8_t plain[77], a[200], b[200];
        static struct msg m;
        uint8_t key[GK5_MAX_KEY_BYTES], conf[16];
        gk5_ukey *uk, *dup = NULL;
        size_t pad = 0;

        make_key(et, key);
        fill(plain, sizeof(plain));
        fill(conf, sizeof(conf));
        uk = new_ukey(et, key, USAGE);
        assert_int_equal(gk5i_ukey_dup(uk, &dup), GK5_OK);
        assert_ptr_equal(gk5i_ukey_enctype(dup), et);
        assert_int_equal(gk5_c_crypto_length(et->num, GK5_CRYPTO_IOV_PADDING,
                                             sizeof(plain), &pad),
                         GK5_OK);
        /* Same confounder, same output from original and copy. */
        msg_build(&m, et, plain, sizeof(plain), pad, false, false, 20);
        assert_int_equal(gk5i_encrypt_iov(uk, conf, m.iov, m.n), GK5_OK);
        msg_gather(&m, STREAM | T(TRAILER), a);
        msg_free(&m);
        msg_build(&m, et, plain, sizeof(plain), pad, false, false, 20);
        assert_int_equal(gk5i_encrypt_iov(dup, conf, m.iov, m.n), GK5_OK);
        msg_gather(&m, STREAM | T(TRAILER), b);
        assert_memory_equal(
            a, b, et->conf_bytes + sizeof(plain) + pad + et->mac_bytes);
        /* The copy's output decrypts with the original, and the original
         * is still good after the copy was freed. */
        gk5i_ukey_free(dup);
        assert_int_equal(gk5i_decrypt_iov(uk, m.iov, m.n), GK5_OK);
        assert_int_equal(msg_gather(&m, T(DATA), b), sizeof(plain));
        assert_memory_equal(b, plain, sizeof(plain));
        msg_free(&m);

        /* Public IOV forms, random confounder: round trip, and the
         * confounder is not constant. */
        msg_build(&m, et, plain, sizeof(plain), pad, true, false, 20);
        assert_int_equal(
            gk5_c_encrypt_iov(et->num, key, et->key_bytes, USAGE, m.iov, m.n),
            GK5_OK);
        msg_gather(&m, T(HEADER), a);
        assert_int_equal(
            gk5_c_decrypt_iov(et->num, key, et->key_bytes, USAGE, m.iov, m.n),
            GK5_OK);
        assert_int_equal(msg_gather(&m, T(DATA), b), sizeof(plain));
        assert_memory_equal(b, plain, sizeof(plain));
        msg_free(&m);
        msg_build(&m, et, plain, sizeof(plain), pad, false, false, 20);
        assert_int_equal(
            gk5_c_encrypt_iov(et->num, key, et->key_bytes, USAGE, m.iov, m.n),
            GK5_OK);
        msg_gather(&m, T(HEADER), b);
        assert_memory_not_equal(a, b, et->conf_bytes);
        msg_free(&m);
        gk5i_ukey_free(uk);
    }
}

static void test_malformed_lists(void **state)
{
    const struct gk5_enctype *ets[16];
    size_t n = usable_enctypes(ets, 16);

    (void)state;
    for (size_t e = 0; e < n; e++) {
        const struct gk5_enctype *et = ets[e];
        uint8_t key[GK5_MAX_KEY_BYTES];
        uint8_t hdr[16], hdr2[16], trl[24], data[8] = {0}, pad[8];
        gk5_ukey *uk;
        size_t need_pad = 0;

        make_key(et, key);
        uk = new_ukey(et, key, USAGE);
        assert_int_equal(
            gk5_c_crypto_length(et->num, GK5_CRYPTO_IOV_PADDING, 5, &need_pad),
            GK5_OK);
        {
            /* No HEADER. */
            gk5_crypto_iov v[] = {{GK5_CRYPTO_IOV_DATA, data, 8},
                                  {GK5_CRYPTO_IOV_TRAILER, trl, et->mac_bytes}};

            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 2), GK5_ERR_BAD_IOV);
            assert_int_equal(gk5i_decrypt_iov(uk, v, 2), GK5_ERR_BAD_IOV);
        }
        {
            /* Two HEADERs. */
            gk5_crypto_iov v[] = {{GK5_CRYPTO_IOV_HEADER, hdr, et->conf_bytes},
                                  {GK5_CRYPTO_IOV_HEADER, hdr2, et->conf_bytes},
                                  {GK5_CRYPTO_IOV_DATA, data, 8},
                                  {GK5_CRYPTO_IOV_TRAILER, trl, et->mac_bytes}};

            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 4), GK5_ERR_BAD_IOV);
        }
        {
            /* Short TRAILER; short HEADER; unknown type; NULL data;
             * a CHECKSUM in an encryption list. */
            gk5_crypto_iov v[] = {
                {GK5_CRYPTO_IOV_HEADER, hdr, et->conf_bytes},
                {GK5_CRYPTO_IOV_DATA, data, 8},
                {GK5_CRYPTO_IOV_TRAILER, trl, et->mac_bytes - 1}};

            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 3), GK5_ERR_BAD_IOV);
            assert_int_equal(gk5i_decrypt_iov(uk, v, 3), GK5_ERR_BAD_IOV);
            v[2].length = et->mac_bytes;
            v[0].length = et->conf_bytes - 1;
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 3), GK5_ERR_BAD_IOV);
            v[0].length = et->conf_bytes;
            v[1].flags = 99;
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 3), GK5_ERR_BAD_IOV);
            v[1].flags = GK5_CRYPTO_IOV_CHECKSUM;
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 3), GK5_ERR_BAD_IOV);
            v[1].flags = GK5_CRYPTO_IOV_DATA;
            v[1].data = NULL;
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 3), GK5_ERR_BAD_IOV);
            assert_int_equal(gk5i_encrypt_iov(uk, NULL, NULL, 3),
                             GK5_ERR_BAD_IOV);
        }
        {
            /* PADDING of the wrong length for 5 data bytes. */
            gk5_crypto_iov v[] = {{GK5_CRYPTO_IOV_HEADER, hdr, et->conf_bytes},
                                  {GK5_CRYPTO_IOV_DATA, data, 5},
                                  {GK5_CRYPTO_IOV_PADDING, pad, need_pad + 1},
                                  {GK5_CRYPTO_IOV_TRAILER, trl, et->mac_bytes}};

            assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 4), GK5_ERR_BAD_IOV);
            if (need_pad != 0) {
                /* DES3: padding left out although 5 bytes need it. */
                v[2].flags = GK5_CRYPTO_IOV_EMPTY;
                assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 4),
                                 GK5_ERR_BAD_IOV);
                /* ... and 5 bytes are no whole-block ciphertext. */
                assert_int_equal(gk5i_decrypt_iov(uk, v, 4),
                                 GK5_ERR_BAD_CIPHERTEXT_LENGTH);
            }
        }
        {
            /* A checksum list without a CHECKSUM, with two, with a
             * TRAILER, or with one longer than the checksum. */
            gk5_crypto_iov v[] = {
                {GK5_CRYPTO_IOV_DATA, data, 8},
                {GK5_CRYPTO_IOV_CHECKSUM, trl, et->cksum_bytes},
                {GK5_CRYPTO_IOV_EMPTY, hdr, 16}};

            assert_int_equal(gk5i_checksum_iov(uk, v, 1), GK5_ERR_BAD_IOV);
            v[2].flags = GK5_CRYPTO_IOV_CHECKSUM;
            assert_int_equal(gk5i_checksum_iov(uk, v, 3), GK5_ERR_BAD_IOV);
            v[2].flags = GK5_CRYPTO_IOV_TRAILER;
            assert_int_equal(gk5i_checksum_iov(uk, v, 3), GK5_ERR_BAD_IOV);
            v[2].flags = GK5_CRYPTO_IOV_EMPTY;
            v[1].length = et->cksum_bytes + 1;
            assert_int_equal(gk5i_checksum_iov(uk, v, 3), GK5_ERR_BAD_IOV);
            v[1].length = 0;
            assert_int_equal(gk5i_checksum_iov(uk, v, 3), GK5_ERR_BAD_IOV);
        }
        gk5i_ukey_free(uk);
    }
}

/* RFC 1964 DES3 (MIT): raw DES-EDE3-CBC with the session key and a given
 * IV over the DATA segments equals OpenSSL's cipher on the concatenation. */
static void test_des3_raw(void **state)
{
#ifdef GK5_WITH_DES3
    const struct gk5_enctype *et = gk5i_enctype_get(16);
    static uint8_t plain[256], want[256], got[256];
    static struct msg m;
    uint8_t key[24], iv[8];
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    EVP_CIPHER_CTX *ctx;
    int outl = 0;

    (void)state;
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    assert_int_equal(gk5i_derive_subkeys_raw(et, key, 24, 23, &sk), GK5_OK);
    assert_true(sk.raw);
    assert_int_equal(sk.ki_len, 0);
    assert_memory_equal(sk.ke, key, 24);
    assert_int_equal(gk5i_ukey_new(et, &sk, &uk), GK5_OK);
    gk5i_subkeys_wipe(&sk);
    for (size_t len = 0; len <= sizeof(plain); len += 8) {
        size_t off = 0;

        fill(plain, len);
        ctx = EVP_CIPHER_CTX_new();
        assert_non_null(ctx);
        assert_true(
            EVP_EncryptInit_ex2(ctx, EVP_des_ede3_cbc(), key, iv, NULL));
        EVP_CIPHER_CTX_set_padding(ctx, 0);
        assert_true(EVP_EncryptUpdate(ctx, want, &outl, plain, (int)len));
        EVP_CIPHER_CTX_free(ctx);
        m.n = 0;
        do {
            size_t k = piece(len - off, 20);

            msg_add(&m, GK5_CRYPTO_IOV_DATA, plain + off, k);
            if (rnd() % 4 == 0) {
                msg_add(&m, GK5_CRYPTO_IOV_SIGN_ONLY, NULL, 3);
            }
            off += k;
        } while (off < len);
        assert_int_equal(gk5i_raw_encrypt_iov(uk, iv, m.iov, m.n), GK5_OK);
        assert_int_equal(msg_gather(&m, T(DATA), got), len);
        assert_memory_equal(got, want, len);
        assert_int_equal(gk5i_raw_decrypt_iov(uk, iv, m.iov, m.n), GK5_OK);
        assert_int_equal(msg_gather(&m, T(DATA), got), len);
        assert_memory_equal(got, plain, len);
        msg_free(&m);
    }
    {
        gk5_crypto_iov v = {GK5_CRYPTO_IOV_DATA, plain, 12};

        assert_int_equal(gk5i_raw_encrypt_iov(uk, iv, &v, 1),
                         GK5_ERR_BAD_CIPHERTEXT_LENGTH);
    }
    /* A raw ukey has no Ki: no RFC 3961 encryption with it. */
    {
        uint8_t hdr[8], trl[20];
        gk5_crypto_iov v[] = {{GK5_CRYPTO_IOV_HEADER, hdr, 8},
                              {GK5_CRYPTO_IOV_TRAILER, trl, 20}};

        assert_int_equal(gk5i_encrypt_iov(uk, NULL, v, 2),
                         GK5_ERR_INVALID_ARGUMENT);
    }
    gk5i_ukey_free(uk);
#else
    (void)state;
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iov_equals_contiguous),
        cmocka_unit_test(test_iov_large),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_checksum_iov),
        cmocka_unit_test(test_dup_and_public),
        cmocka_unit_test(test_malformed_lists),
        cmocka_unit_test(test_des3_raw),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
