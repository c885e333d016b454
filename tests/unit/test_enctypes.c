/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * THE enctype table and the refusal policy.
 *
 * - The table: row count, preference order (usable rows first), unique
 *   numbers, each row's lengths and checksum type as the RFCs give them
 *   (RFC 3962, RFC 8009, RFC 6803, RFC 3961 6.3, and the IANA registry), the
 *   default PBKDF2 iteration counts (RFC 3962 4: 4096; RFC 6803 4 and
 *   RFC 8009 4: 32768), name and alias lookup.
 * - The policy: every public crypto entry point refuses rc4-hmac (23),
 *   rc4-hmac-exp (24) and single DES (1, 2, 3) with GK5_ERR_ENCTYPE_REJECTED
 *   carrying the enctype, and the words say why (RFC 8429 / RFC 6649);
 *   des3 (16, and 6 as rpc.gssd labels it) is "not built (-Ddes3=true)" in
 *   the default build and works with -Ddes3=true; an unknown number is
 *   "unknown enctype N".  The refusal comes first: even with NULL or
 *   nonsense arguments the answer is the refusal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include "crypto/crypto_int.h"

/* What the RFCs say about each enctype gk5 supports. */
static const struct expect {
    int32_t num;
    const char *name;
    size_t key_bytes;
    size_t cksum_bytes;
    int32_t cksumtype;
    const char *cksum_name;
    uint32_t s2k_iter;
    bool des3;
} expected[] = {
    /* RFC 3962 */
    {17, "aes128-cts-hmac-sha1-96", 16, 12, 15, "hmac-sha1-96-aes128", 4096,
     false},
    {18, "aes256-cts-hmac-sha1-96", 32, 12, 16, "hmac-sha1-96-aes256", 4096,
     false},
    /* RFC 8009 */
    {19, "aes128-cts-hmac-sha256-128", 16, 16, 19, "hmac-sha256-128-aes128",
     32768, false},
    {20, "aes256-cts-hmac-sha384-192", 32, 24, 20, "hmac-sha384-192-aes256",
     32768, false},
    /* RFC 6803 */
    {25, "camellia128-cts-cmac", 16, 16, 17, "cmac-camellia128", 32768, false},
    {26, "camellia256-cts-cmac", 32, 16, 18, "cmac-camellia256", 32768, false},
    /* RFC 3961 6.3 */
    {16, "des3-cbc-sha1", 24, 20, 12, "hmac-sha1-des3-kd", 0, true},
};

static const struct refused {
    int32_t num;
    const char *words; /* must appear in the error words */
} rejected[] = {
    {23, "rc4-hmac (23) is deliberately unsupported: RFC 8429"},
    {24, "rc4-hmac-exp (24) is deliberately unsupported: RFC 8429"},
    {1, "des-cbc-crc (1) is deliberately unsupported: RFC 6649"},
    {2, "des-cbc-md4 (2) is deliberately unsupported: RFC 6649"},
    {3, "des-cbc-md5 (3) is deliberately unsupported: RFC 6649"},
};

static bool des3_built(void)
{
#ifdef GK5_WITH_DES3
    return true;
#else
    return false;
#endif
}

/* ---- The table ---- */

static void test_table_rows(void **state)
{
    size_t n = gk5_enctype_count();
    bool seen_unusable = false;
    gk5_enctype_desc d;

    (void)state;
    /* 6 always-supported + des3 + rc4, rc4-exp, 3 x single DES. */
    assert_int_equal(n, 12);
    assert_int_equal(gk5_enctype_row(n, &d), GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_enctype_row(0, NULL), GK5_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < n; i++) {
        gk5_enctype_desc again;

        assert_int_equal(gk5_enctype_row(i, &d), GK5_OK);
        assert_non_null(d.name);
        /* Preference order: every usable row before every unusable one. */
        if (d.state == GK5_ENCTYPE_SUPPORTED) {
            assert_false(seen_unusable);
            assert_null(d.reason);
            assert_int_equal(gk5_enctype_check(d.enctype), GK5_OK);
            assert_true(d.key_bytes > 0);
            assert_true(d.cksumtype != 0);
            assert_non_null(d.cksum_name);
        } else {
            seen_unusable = true;
            assert_non_null(d.reason);
            assert_true(strstr(d.reason, "RFC") != NULL);
            assert_int_not_equal(gk5_enctype_check(d.enctype), GK5_OK);
        }
        /* Numbers are unique. */
        for (size_t j = 0; j < i; j++) {
            assert_int_equal(gk5_enctype_row(j, &again), GK5_OK);
            assert_int_not_equal(again.enctype, d.enctype);
        }
        /* describe() and from_name() agree with the row. */
        assert_int_equal(gk5_enctype_describe(d.enctype, &again), GK5_OK);
        assert_int_equal(again.enctype, d.enctype);
        assert_string_equal(again.name, d.name);
        assert_int_equal(again.state, d.state);
        {
            int32_t num = 0;

            assert_int_equal(gk5_enctype_from_name(d.name, &num), GK5_OK);
            assert_int_equal(num, d.enctype);
        }
    }
    /* The first row is the strongest: aes256-sha2. */
    assert_int_equal(gk5_enctype_row(0, &d), GK5_OK);
    assert_int_equal(d.enctype, 20);
}

/* The properties code outside the table asks instead of numbers. */
static void test_table_properties(void **state)
{
    static const struct {
        int32_t num;
        enum gk5i_family family;
        enum gk5i_onepass onepass;
        bool rfc1964;
    } want[] = {
        {17, GK5I_FAMILY_AES_SHA1, GK5I_ONEPASS_MTE_SHA1, false},
        {18, GK5I_FAMILY_AES_SHA1, GK5I_ONEPASS_MTE_SHA1, false},
        {19, GK5I_FAMILY_AES_SHA2, GK5I_ONEPASS_ETM_SHA256, false},
        {20, GK5I_FAMILY_AES_SHA2, GK5I_ONEPASS_NONE, false},
        {25, GK5I_FAMILY_CAMELLIA, GK5I_ONEPASS_NONE, false},
        {26, GK5I_FAMILY_CAMELLIA, GK5I_ONEPASS_NONE, false},
        {16, GK5I_FAMILY_DES3, GK5I_ONEPASS_NONE, true},
        {6, GK5I_FAMILY_DES3, GK5I_ONEPASS_NONE, true},
        {23, GK5I_FAMILY_NONE, GK5I_ONEPASS_NONE, false},
        {1, GK5I_FAMILY_NONE, GK5I_ONEPASS_NONE, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct gk5_enctype *row = gk5i_enctype_get(want[i].num);

        assert_non_null(row);
        assert_int_equal(row->family, want[i].family);
        assert_int_equal(row->onepass, want[i].onepass);
        assert_int_equal(row->rfc1964, want[i].rfc1964);

        /* The public answer: the row's family for a usable enctype, else
         * the enctype's refusal. */
        uint32_t protocol = 7;
        uint32_t verdict = gk5_enctype_check(want[i].num);

        assert_int_equal(gk5_enctype_protocol(want[i].num, &protocol), verdict);
        assert_int_equal(protocol,
                         verdict == GK5_OK && !want[i].rfc1964 ? 1 : 0);
    }
    assert_int_equal(gk5_enctype_protocol(17, NULL), GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_enctype_canonical(6), 16);
    assert_int_equal(gk5i_enctype_canonical(16), 16);
    assert_int_equal(gk5i_enctype_canonical(18), 18);
    assert_int_equal(gk5i_enctype_canonical(99), 99);
    assert_int_equal(gk5i_enctype_canonical(-7), -7);
}

static void test_table_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const struct expect *e = &expected[i];
        const struct gk5_enctype *row = gk5i_enctype_get(e->num);
        gk5_enctype_desc d;
        size_t len = 0;

        assert_non_null(row);
        assert_int_equal(gk5_enctype_describe(e->num, &d), GK5_OK);
        assert_string_equal(d.name, e->name);
        assert_int_equal(d.key_bytes, e->key_bytes);
        assert_int_equal(d.cksumtype, e->cksumtype);
        assert_string_equal(d.cksum_name, e->cksum_name);
        assert_int_equal(row->cksum_bytes, e->cksum_bytes);
        assert_int_equal(row->s2k_default_iter, e->s2k_iter);
        assert_true(row->key_bytes <= GK5_MAX_KEY_BYTES);
        if (e->des3 && !des3_built()) {
            assert_int_equal(d.state, GK5_ENCTYPE_NOT_BUILT);
            assert_null(row->profile);
            continue;
        }
        assert_int_equal(d.state, GK5_ENCTYPE_SUPPORTED);
        assert_non_null(row->profile);
        assert_int_equal(gk5_c_key_length(e->num, &len), GK5_OK);
        assert_int_equal(len, e->key_bytes);
        assert_int_equal(gk5_c_checksum_length(e->num, &len), GK5_OK);
        assert_int_equal(len, e->cksum_bytes);
        /* RFC 3961 5.3: the confounder is one cipher block. */
        assert_int_equal(
            gk5_c_crypto_length(e->num, GK5_CRYPTO_IOV_HEADER, 0, &len),
            GK5_OK);
        assert_int_equal(len, e->des3 ? 8 : 16);
    }
}

/* The default iteration count is really used when s2kparams is absent:
 * the key equals the one made with the count spelled out. */
static void test_s2k_default_iterations(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const struct expect *e = &expected[i];
        uint8_t params[4];
        uint8_t k1[32], k2[32], k3[32];

        if (e->des3) {
            continue;
        }
        params[0] = (uint8_t)(e->s2k_iter >> 24);
        params[1] = (uint8_t)(e->s2k_iter >> 16);
        params[2] = (uint8_t)(e->s2k_iter >> 8);
        params[3] = (uint8_t)e->s2k_iter;
        assert_int_equal(gk5_c_string_to_key(e->num, "password", 8,
                                             "EXAMPLE.COMuser", 15, NULL, 0, k1,
                                             e->key_bytes),
                         GK5_OK);
        assert_int_equal(gk5_c_string_to_key(e->num, "password", 8,
                                             "EXAMPLE.COMuser", 15, params, 4,
                                             k2, e->key_bytes),
                         GK5_OK);
        assert_memory_equal(k1, k2, e->key_bytes);
        /* ... and a different count gives a different key. */
        params[3] ^= 1;
        assert_int_equal(gk5_c_string_to_key(e->num, "password", 8,
                                             "EXAMPLE.COMuser", 15, params, 4,
                                             k3, e->key_bytes),
                         GK5_OK);
        assert_memory_not_equal(k1, k3, e->key_bytes);
        /* Malformed params. */
        assert_int_equal(gk5_c_string_to_key(e->num, "password", 8, "s", 1,
                                             params, 3, k3, e->key_bytes),
                         GK5_ERR_BAD_S2K_PARAMS);
        memset(params, 0, sizeof(params));
        assert_int_equal(gk5_c_string_to_key(e->num, "password", 8, "s", 1,
                                             params, 4, k3, e->key_bytes),
                         GK5_ERR_BAD_S2K_PARAMS);
    }
}

static void test_names(void **state)
{
    static const struct {
        const char *name;
        int32_t num;
    } names[] = {
        {"aes128-cts", 17},
        {"AES256-CTS-HMAC-SHA1-96", 18},
        {"aes256-cts", 18},
        {"aes128-sha2", 19},
        {"aes256-sha2", 20},
        {"camellia128-cts", 25},
        {"camellia256-cts-cmac", 26},
        {"rc4-hmac", 23},
        {"arcfour-hmac", 23},
        {"arcfour-hmac-md5", 23},
        {"rc4-hmac-exp", 24},
        {"des-cbc-crc", 1},
        {"des-cbc-md4", 2},
        {"des-cbc-md5", 3},
        {"des3-cbc-sha1", 16},
        {"des3-hmac-sha1", 16},
        {"des3-cbc-raw", 16},
        {"23", 23},
        {"99", 99},
    };
    int32_t num = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        num = 0;
        assert_int_equal(gk5_enctype_from_name(names[i].name, &num), GK5_OK);
        assert_int_equal(num, names[i].num);
    }
    assert_int_equal(gk5_enctype_from_name("no-such-enctype", &num),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_enctype_from_name("", &num), GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_enctype_from_name(NULL, &num),
                     GK5_ERR_INVALID_ARGUMENT);
}

/* ---- The refusal policy ---- */

/* Every public crypto entry point (and the internal seams) with arguments
 * that would otherwise be valid for a 16-byte-key enctype, then with NULLs:
 * each must answer exactly `code`. */
static void expect_refused_everywhere(int32_t et, uint32_t code)
{
    uint8_t key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t buf[256] = {0};
    uint8_t out[256];
    size_t len = sizeof(out);
    uint8_t hdr[16], trl[24], data[5] = {'h', 'e', 'l', 'l', 'o'};
    gk5_crypto_iov iov[3] = {
        {GK5_CRYPTO_IOV_HEADER, hdr, sizeof(hdr)},
        {GK5_CRYPTO_IOV_DATA, data, sizeof(data)},
        {GK5_CRYPTO_IOV_TRAILER, trl, 12},
    };
    gk5_crypto_iov ck[2] = {
        {GK5_CRYPTO_IOV_DATA, data, sizeof(data)},
        {GK5_CRYPTO_IOV_CHECKSUM, trl, 12},
    };
    assert_int_equal(gk5_enctype_check(et), code);
    assert_int_equal(GK5_ERR_ENCTYPE(code), et);
    assert_int_equal(gk5_c_key_length(et, &len), code);
    assert_int_equal(len, 0);
    assert_int_equal(gk5_c_crypto_length(et, GK5_CRYPTO_IOV_HEADER, 5, &len),
                     code);
    assert_int_equal(gk5_c_encrypt_length(et, 5, &len), code);
    assert_int_equal(gk5_c_checksum_length(et, &len), code);
    assert_int_equal(gk5_c_prf_length(et, &len), code);
    assert_int_equal(gk5_c_derive_length(et, "prf", 3, &len), code);
    assert_int_equal(
        gk5_c_string_to_key(et, "password", 8, "salt", 4, NULL, 0, out, 16),
        code);
    assert_int_equal(gk5_c_random_to_key(et, key, 16, out, 16), code);
    assert_int_equal(gk5_c_derive_key(et, key, 16, "prf", 3, out, 16), code);
    len = sizeof(out);
    assert_int_equal(gk5_c_encrypt(et, key, 16, 1, data, 5, out, &len), code);
    assert_int_equal(len, sizeof(out)); /* untouched: refused first */
    len = sizeof(out);
    assert_int_equal(gk5_c_decrypt(et, key, 16, 1, buf, 40, out, &len), code);
    len = sizeof(out);
    assert_int_equal(gk5_c_checksum(et, key, 16, 1, data, 5, out, &len), code);
    assert_int_equal(gk5_c_verify_checksum(et, key, 16, 1, data, 5, buf, 16),
                     code);
    assert_int_equal(gk5_c_prf(et, key, 16, data, 5, out, 16), code);
    assert_int_equal(gk5_c_encrypt_iov(et, key, 16, 1, iov, 3), code);
    assert_int_equal(gk5_c_decrypt_iov(et, key, 16, 1, iov, 3), code);
    assert_int_equal(gk5_c_checksum_iov(et, key, 16, 1, ck, 2), code);
    assert_int_equal(gk5_c_verify_checksum_iov(et, key, 16, 1, ck, 2), code);
    len = sizeof(out);
    assert_int_equal(
        gk5_c_encrypt_confounder(et, key, 16, 1, buf, 16, data, 5, out, &len),
        code);
    assert_int_equal(gk5i_cts_raw(et, key, 16, NULL, buf, 32, out, NULL, true),
                     code);
    assert_int_equal(gk5i_enctype_usable(et, NULL), code);

    /* Refused before any argument is looked at. */
    assert_int_equal(gk5_c_key_length(et, NULL), code);
    assert_int_equal(
        gk5_c_string_to_key(et, NULL, 0, NULL, 0, NULL, 0, NULL, 0), code);
    assert_int_equal(gk5_c_random_to_key(et, NULL, 0, NULL, 0), code);
    assert_int_equal(gk5_c_derive_key(et, NULL, 0, NULL, 0, NULL, 0), code);
    assert_int_equal(gk5_c_encrypt(et, NULL, 0, 0, NULL, 0, NULL, NULL), code);
    assert_int_equal(gk5_c_decrypt(et, NULL, 0, 0, NULL, 0, NULL, NULL), code);
    assert_int_equal(gk5_c_checksum(et, NULL, 0, 0, NULL, 0, NULL, NULL), code);
    assert_int_equal(gk5_c_verify_checksum(et, NULL, 0, 0, NULL, 0, NULL, 0),
                     code);
    assert_int_equal(gk5_c_prf(et, NULL, 0, NULL, 0, NULL, 0), code);
    assert_int_equal(gk5_c_encrypt_iov(et, NULL, 0, 0, NULL, 0), code);
    assert_int_equal(gk5_c_decrypt_iov(et, NULL, 0, 0, NULL, 0), code);
    assert_int_equal(gk5_c_checksum_iov(et, NULL, 0, 0, NULL, 0), code);
    assert_int_equal(gk5_c_verify_checksum_iov(et, NULL, 0, 0, NULL, 0), code);
}

/* The words for a refusal, from the table and (through status.c) from
 * gk5_strerror(): both must contain `words`. */
static void expect_words(uint32_t code, const char *words)
{
    char buf[512];
    const char *s;

    gk5i_enctype_error_words(code, buf, sizeof(buf));
    if (strstr(buf, words) == NULL) {
        fail_msg("words for 0x%08x: \"%s\" lacks \"%s\"", code, buf, words);
    }
    s = gk5_strerror(code);
    assert_non_null(s);
    if (strstr(s, words) == NULL) {
        fail_msg("gk5_strerror(0x%08x): \"%s\" lacks \"%s\"", code, s, words);
    }
}

static void test_rejected(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
        int32_t et = rejected[i].num;
        uint32_t code = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, et);
        gk5_enctype_desc d;

        assert_int_equal(GK5_ERR_CODE(code), GK5_ERR_ENCTYPE_REJECTED);
        expect_refused_everywhere(et, code);
        expect_words(code, rejected[i].words);
        /* describe() still describes it, as rejected, with the reason. */
        assert_int_equal(gk5_enctype_describe(et, &d), GK5_OK);
        assert_int_equal(d.state, GK5_ENCTYPE_REJECTED);
        assert_non_null(d.reason);
        assert_true(strstr(d.reason, et >= 23 ? "RFC 8429" : "RFC 6649") !=
                    NULL);
        assert_int_equal(d.key_bytes, 0);
        assert_int_equal(d.cksumtype, 0);
    }
    /* A rejected name resolves, and the number is then refused. */
    {
        int32_t num = 0;

        assert_int_equal(gk5_enctype_from_name("arcfour-hmac", &num), GK5_OK);
        assert_int_equal(gk5_enctype_check(num),
                         GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    }
}

static void test_des3(void **state)
{
    static const int32_t nums[] = {16, 6};

    (void)state;
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        int32_t et = nums[i];
        gk5_enctype_desc d;

        assert_int_equal(gk5_enctype_describe(et, &d), GK5_OK);
        assert_int_equal(d.enctype, 16); /* 6 is the same key type */
        assert_string_equal(d.name, "des3-cbc-sha1");
        if (!des3_built()) {
            uint32_t code = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, et);
            char words[64];

            assert_int_equal(d.state, GK5_ENCTYPE_NOT_BUILT);
            expect_refused_everywhere(et, code);
            snprintf(words, sizeof(words),
                     "des3-cbc-sha1 (%d) is not built (-Ddes3=true)", (int)et);
            expect_words(code, words);
        } else {
            static const uint8_t key[24] = {0x85, 0x0b, 0xb5, 0x13, 0x58, 0x54,
                                            0x8c, 0xd0, 0x5e, 0x86, 0x76, 0x8c,
                                            0x31, 0x3e, 0x3b, 0xfe, 0xf7, 0x51,
                                            0x19, 0x37, 0xdc, 0xf7, 0x2c, 0x3e};
            uint8_t ct[64], pt[64];
            size_t ct_len = sizeof(ct), pt_len = sizeof(pt), len = 0;

            assert_int_equal(d.state, GK5_ENCTYPE_SUPPORTED);
            assert_int_equal(gk5_enctype_check(et), GK5_OK);
            assert_int_equal(gk5_c_key_length(et, &len), GK5_OK);
            assert_int_equal(len, 24);
            /* RFC 3961 6.3: 8-byte confounder, "hello" padded to 8, then
             * the 20-byte HMAC-SHA1. */
            assert_int_equal(gk5_c_encrypt_length(et, 5, &len), GK5_OK);
            assert_int_equal(len, 8 + 8 + 20);
            assert_int_equal(
                gk5_c_encrypt(et, key, 24, 3, "hello", 5, ct, &ct_len), GK5_OK);
            assert_int_equal(ct_len, 36);
            assert_int_equal(
                gk5_c_decrypt(et, key, 24, 3, ct, ct_len, pt, &pt_len), GK5_OK);
            assert_int_equal(pt_len, 8);
            assert_memory_equal(pt, "hello\0\0\0", 8);
        }
    }
}

static void test_unknown(void **state)
{
    static const int32_t nums[] = {99, 0, -1, 4, 5, 7, 27, 32767, -32768};
    gk5_enctype_desc d;

    (void)state;
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        int32_t et = nums[i];
        uint32_t code = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, et);
        char words[64];

        expect_refused_everywhere(et, code);
        assert_int_equal(gk5_enctype_describe(et, &d), code);
        snprintf(words, sizeof(words), "unknown enctype %d", (int)et);
        expect_words(code, words);
    }
}

/* After the enctype, the key length is checked: a usable enctype with a
 * wrong-sized key gives GK5_ERR_BAD_KEY_LENGTH from every keyed call. */
static void test_key_length_after_enctype(void **state)
{
    uint8_t key[33] = {0};
    uint8_t out[128];
    size_t len = sizeof(out);
    uint8_t hdr[16], trl[12], data[3] = {1, 2, 3};
    gk5_crypto_iov iov[3] = {
        {GK5_CRYPTO_IOV_HEADER, hdr, sizeof(hdr)},
        {GK5_CRYPTO_IOV_DATA, data, sizeof(data)},
        {GK5_CRYPTO_IOV_TRAILER, trl, sizeof(trl)},
    };

    (void)state;
    assert_int_equal(gk5_c_encrypt(17, key, 15, 1, data, 3, out, &len),
                     GK5_ERR_BAD_KEY_LENGTH);
    len = sizeof(out);
    assert_int_equal(gk5_c_decrypt(18, key, 16, 1, out, 40, out, &len),
                     GK5_ERR_BAD_KEY_LENGTH);
    len = sizeof(out);
    assert_int_equal(gk5_c_checksum(25, key, 33, 1, data, 3, out, &len),
                     GK5_ERR_BAD_KEY_LENGTH);
    assert_int_equal(gk5_c_prf(20, key, 16, data, 3, out, 48),
                     GK5_ERR_BAD_KEY_LENGTH);
    assert_int_equal(gk5_c_derive_key(19, key, 32, "prf", 3, out, 16),
                     GK5_ERR_BAD_KEY_LENGTH);
    assert_int_equal(gk5_c_encrypt_iov(26, key, 16, 1, iov, 3),
                     GK5_ERR_BAD_KEY_LENGTH);
    assert_int_equal(gk5_c_string_to_key(17, "p", 1, "s", 1, NULL, 0, out, 32),
                     GK5_ERR_BAD_KEY_LENGTH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_table_values),
        cmocka_unit_test(test_table_properties),
        cmocka_unit_test(test_s2k_default_iterations),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_des3),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_key_length_after_enctype),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
