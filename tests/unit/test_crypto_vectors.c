/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Every known-answer vector in tests/vectors/ run through the crypto API:
 * RFC 3961 A.1 (n-fold), A.3 (DES3 DR/DK), A.4 (DES3 string-to-key), RFC
 * 3962 Appendix B (PBKDF2 string-to-key, AES-CTS), RFC 6803 section 10, RFC
 * 8009 Appendix A, and MIT krb5's own test data.  One cmocka test per file;
 * each prints its counts: passed, skipped because the enctype is not built
 * here (des3 without -Ddes3=true: never counted as passed), refused as the
 * file expects (rc4), failed.
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
#include "crypto/crypto_int.h"

#include "vecfile.h"

#define BUF 1024 /* larger than any vector's value */

/* Fails the test when a vector's value does not fit our buffers. */
static void fits(const vec_block *b, const char *what, size_t len)
{
    if (len > BUF) {
        fail_msg("%s: %s is %zu bytes, more than this test's %d", vec_where(b),
                 what, len, BUF);
    }
}

static int32_t read_enctype(vec_block *b)
{
    return (int32_t)vec_int(b, "enctype", INT16_MIN, INT16_MAX);
}

static uint32_t read_usage(vec_block *b)
{
    return (uint32_t)vec_int(b, "usage", 0, UINT32_MAX);
}

/*
 * Decides whether a vector runs.  Reads `expect` (ok by default, or
 * rejected).  Returns true if the caller should run the vector; otherwise
 * the vector has been counted: skipped when its enctype is not built here,
 * refused when it is a rejected enctype (refuse_rc is what the caller's own
 * entry point returned for it, checked here), failed when the file and the
 * table disagree.
 */
enum gate { RUN, DONE, CHECK_REFUSAL };

static enum gate gate(vec_tally *t, vec_block *b, int32_t enctype)
{
    const char *expect = vec_opt_str(b, "expect", "ok");
    enum vec_et_state st = vec_enctype_state(b, enctype);
    bool want_rejected = false;

    if (strcmp(expect, "ok") == 0) {
        want_rejected = false;
    } else if (strcmp(expect, "rejected") == 0) {
        want_rejected = true;
    } else {
        fail_msg("%s: expect = \"%s\": want ok or rejected", vec_where(b),
                 expect);
    }
    vec_done(b);
    if (want_rejected || st == VEC_ET_REJECTED) {
        if (!want_rejected || st != VEC_ET_REJECTED) {
            print_message("    FAIL %s: enctype %d: the file says %s, the "
                          "table says %s\n",
                          vec_where(b), (int)enctype, expect,
                          st == VEC_ET_REJECTED ? "rejected" : "usable");
            t->current_failed = true;
            vec_tally_end(t);
            return DONE;
        }
        return CHECK_REFUSAL;
    }
    if (st == VEC_ET_NOT_BUILT) {
        vec_tally_skip(t);
        return DONE;
    }
    return RUN;
}

static void refusal(vec_tally *t, const vec_block *b, const char *what,
                    int32_t enctype, uint32_t rc)
{
    (void)vec_check_rc(t, b, what, rc,
                       GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, enctype));
    vec_tally_refused(t);
}

/* ---- test = nfold ---- */

static void run_nfold(vec_tally *t, vec_block *b)
{
    const uint8_t *in;
    const uint8_t *want;
    uint8_t out[BUF];
    int64_t bits = vec_int(b, "bits", 8, 8 * BUF);
    size_t in_len = vec_bytes(b, "input", &in);
    size_t want_len = vec_bytes(b, "output", &want);

    vec_done(b);
    if (bits % 8 != 0 || (size_t)bits / 8 != want_len) {
        fail_msg("%s: bits = %lld does not match the %zu-byte output",
                 vec_where(b), (long long)bits, want_len);
    }
    memset(out, 0xa5, sizeof(out));
    assert_true(gk5i_nfold(in, in_len, out, want_len));
    (void)vec_check_bytes(t, b, "n-fold", out, want_len, want, want_len);
    vec_tally_end(t);
}

/* ---- test = des3-dr-dk (RFC 3961 A.3) ---- */

static void run_des3_dr_dk(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *constant, *dr, *dk;
    uint8_t out[BUF];
    size_t len = 0;
    int32_t et = read_enctype(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t c_len = vec_bytes(b, "constant", &constant);
    size_t dr_len = vec_bytes(b, "dr", &dr);
    size_t dk_len = vec_bytes(b, "dk", &dk);

    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        refusal(
            t, b, "gk5_c_derive_key", et,
            gk5_c_derive_key(et, key, key_len, constant, c_len, out, dk_len));
        return;
    case RUN:
        break;
    }
    if (vec_check_rc(t, b, "gk5_c_key_length", gk5_c_key_length(et, &len), 0)) {
        (void)vec_check_size(t, b, "key length", len, dk_len);
    }
    if (vec_check_rc(t, b, "gk5_c_derive_length",
                     gk5_c_derive_length(et, constant, c_len, &len), 0)) {
        (void)vec_check_size(t, b, "derive length", len, dk_len);
    }
    memset(out, 0xa5, sizeof(out));
    if (vec_check_rc(
            t, b, "gk5_c_derive_key",
            gk5_c_derive_key(et, key, key_len, constant, c_len, out, dk_len),
            0)) {
        (void)vec_check_bytes(t, b, "DK(key, constant)", out, dk_len, dk,
                              dk_len);
    }
    memset(out, 0xa5, sizeof(out));
    if (vec_check_rc(t, b, "gk5_c_random_to_key",
                     gk5_c_random_to_key(et, dr, dr_len, out, dk_len), 0)) {
        (void)vec_check_bytes(t, b, "random-to-key(DR)", out, dk_len, dk,
                              dk_len);
    }
    vec_tally_end(t);
}

/* ---- test = string-to-key ---- */

static void run_string_to_key(vec_tally *t, vec_block *b)
{
    const uint8_t *pw, *salt, *want, *params = NULL, *pbkdf2 = NULL;
    uint8_t iter_be[4];
    uint8_t out[BUF];
    size_t params_len = 0, pbkdf2_len = 0, len = 0;
    int32_t et = read_enctype(b);
    size_t pw_len = vec_bytes(b, "password", &pw);
    size_t salt_len = vec_bytes(b, "salt", &salt);
    size_t key_len = vec_bytes(b, "key", &want);
    int64_t iter = vec_opt_int(b, "iterations", 1, UINT32_MAX, 0);

    if (iter != 0) {
        if (vec_has(b, "params")) {
            fail_msg("%s: give iterations or params, not both", vec_where(b));
        }
        store_be32(iter_be, (uint32_t)iter);
        params = iter_be;
        params_len = sizeof(iter_be);
    } else {
        (void)vec_opt_bytes(b, "params", &params, &params_len);
        if (params_len == 0) {
            params = NULL;
        }
    }
    (void)vec_opt_bytes(b, "pbkdf2", &pbkdf2, &pbkdf2_len);
    fits(b, "key", key_len);

    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        refusal(t, b, "gk5_c_string_to_key", et,
                gk5_c_string_to_key(et, pw, pw_len, salt, salt_len, params,
                                    params_len, out, key_len));
        return;
    case RUN:
        break;
    }
    if (pbkdf2 != NULL) {
        /* RFC 3962 B prints the intermediate PBKDF2 output: check that the
         * typed password, salt and count give it (OpenSSL, not gk5). */
        uint8_t p[BUF];

        fits(b, "pbkdf2", pbkdf2_len);
        assert_int_equal(PKCS5_PBKDF2_HMAC_SHA1((const char *)pw, (int)pw_len,
                                                salt, (int)salt_len, (int)iter,
                                                (int)pbkdf2_len, p),
                         1);
        (void)vec_check_bytes(t, b, "PBKDF2 output (the vector itself)", p,
                              pbkdf2_len, pbkdf2, pbkdf2_len);
    }
    if (vec_check_rc(t, b, "gk5_c_key_length", gk5_c_key_length(et, &len), 0)) {
        (void)vec_check_size(t, b, "key length", len, key_len);
    }
    memset(out, 0xa5, sizeof(out));
    if (vec_check_rc(t, b, "gk5_c_string_to_key_flags",
                     gk5_c_string_to_key_flags(
                         et, pw, pw_len, salt, salt_len, params, params_len,
                         GK5_S2K_ALLOW_WEAK, out, key_len),
                     0)) {
        (void)vec_check_bytes(t, b, "string-to-key", out, key_len, want,
                              key_len);
    }
    /* The same without the flag: counts below the enctype's default are
     * refused (MIT's policy), the others give the same key. */
    memset(out, 0xa5, sizeof(out));
    {
        uint32_t rc = gk5_c_string_to_key(et, pw, pw_len, salt, salt_len,
                                          params, params_len, out, key_len);
        const struct gk5_enctype *row = gk5i_enctype_get(et);

        if (row != NULL && row->s2k_default_iter != 0 && params_len == 4 &&
            load_be32(params) != 0 &&
            load_be32(params) < row->s2k_default_iter) {
            (void)vec_check_rc(t, b, "gk5_c_string_to_key (weak count)", rc,
                               GK5_ERR_S2K_WEAK);
        } else if (vec_check_rc(t, b, "gk5_c_string_to_key", rc, 0)) {
            (void)vec_check_bytes(t, b, "string-to-key (no flag)", out, key_len,
                                  want, key_len);
        }
    }
    vec_tally_end(t);
}

/* ---- test = cts (RFC 3962 B) ---- */

static void run_cts(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *iv, *in, *want, *want_iv;
    uint8_t out[BUF];
    uint8_t next_iv[16];
    int32_t et = read_enctype(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t iv_len = vec_bytes(b, "iv", &iv);
    size_t in_len = vec_bytes(b, "input", &in);
    size_t out_len = vec_bytes(b, "output", &want);
    size_t niv_len = vec_bytes(b, "next_iv", &want_iv);

    if (iv_len != 16 || niv_len != 16 || in_len != out_len) {
        fail_msg("%s: iv and next_iv must be 16 bytes, input and output "
                 "the same length",
                 vec_where(b));
    }
    fits(b, "input", in_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        fail_msg("%s: a raw CTS vector for a rejected enctype", vec_where(b));
        return;
    case RUN:
        break;
    }
    memset(out, 0xa5, sizeof(out));
    memset(next_iv, 0xa5, sizeof(next_iv));
    if (vec_check_rc(
            t, b, "gk5i_cts_raw(encrypt)",
            gk5i_cts_raw(et, key, key_len, iv, in, in_len, out, next_iv, true),
            0)) {
        (void)vec_check_bytes(t, b, "CTS encryption", out, out_len, want,
                              out_len);
        (void)vec_check_bytes(t, b, "next IV after encryption", next_iv, 16,
                              want_iv, 16);
    }
    memset(out, 0xa5, sizeof(out));
    memset(next_iv, 0xa5, sizeof(next_iv));
    if (vec_check_rc(t, b, "gk5i_cts_raw(decrypt)",
                     gk5i_cts_raw(et, key, key_len, iv, want, out_len, out,
                                  next_iv, false),
                     0)) {
        (void)vec_check_bytes(t, b, "CTS decryption", out, in_len, in, in_len);
        (void)vec_check_bytes(t, b, "next IV after decryption", next_iv, 16,
                              want_iv, 16);
    }
    vec_tally_end(t);
}

/* ---- test = derive ---- */

static bool check_derive(vec_tally *t, const vec_block *b, const char *what,
                         int32_t et, const uint8_t *key, size_t key_len,
                         const uint8_t *constant, size_t c_len,
                         const uint8_t *want, size_t want_len)
{
    uint8_t out[BUF];
    size_t len = 0;

    if (!vec_check_rc(t, b, "gk5_c_derive_length",
                      gk5_c_derive_length(et, constant, c_len, &len), 0) ||
        !vec_check_size(t, b, "derive length", len, want_len)) {
        return false;
    }
    memset(out, 0xa5, sizeof(out));
    return vec_check_rc(t, b, "gk5_c_derive_key",
                        gk5_c_derive_key(et, key, key_len, constant, c_len, out,
                                         want_len),
                        0) &&
           vec_check_bytes(t, b, what, out, want_len, want, want_len);
}

static void run_derive(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *constant, *want;
    uint8_t out[BUF];
    int32_t et = read_enctype(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t c_len = vec_bytes(b, "constant", &constant);
    size_t want_len = vec_bytes(b, "output", &want);

    fits(b, "output", want_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        refusal(
            t, b, "gk5_c_derive_key", et,
            gk5_c_derive_key(et, key, key_len, constant, c_len, out, want_len));
        return;
    case RUN:
        break;
    }
    (void)check_derive(t, b, "DK(key, constant)", et, key, key_len, constant,
                       c_len, want, want_len);
    vec_tally_end(t);
}

/* ---- test = checksum ---- */

static void run_checksum(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *in, *want;
    uint8_t out[BUF];
    size_t len = 0;
    gk5_enctype_desc desc;
    int32_t et = read_enctype(b);
    int64_t cksumtype = vec_opt_int(b, "cksumtype", INT32_MIN, INT32_MAX, 0);
    uint32_t usage = read_usage(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t in_len = vec_bytes(b, "input", &in);
    size_t want_len = vec_bytes(b, "checksum", &want);

    fits(b, "checksum", want_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        len = sizeof(out);
        (void)vec_check_rc(t, b, "gk5_c_verify_checksum",
                           gk5_c_verify_checksum(et, key, key_len, usage, in,
                                                 in_len, want, want_len),
                           GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, et));
        refusal(t, b, "gk5_c_checksum", et,
                gk5_c_checksum(et, key, key_len, usage, in, in_len, out, &len));
        return;
    case RUN:
        break;
    }
    if (cksumtype != 0 && vec_check_rc(t, b, "gk5_enctype_describe",
                                       gk5_enctype_describe(et, &desc), 0)) {
        (void)vec_check_size(t, b, "mandatory cksumtype",
                             (size_t)desc.cksumtype, (size_t)cksumtype);
    }
    if (vec_check_rc(t, b, "gk5_c_checksum_length",
                     gk5_c_checksum_length(et, &len), 0)) {
        (void)vec_check_size(t, b, "checksum length", len, want_len);
    }
    memset(out, 0xa5, sizeof(out));
    len = sizeof(out);
    if (vec_check_rc(
            t, b, "gk5_c_checksum",
            gk5_c_checksum(et, key, key_len, usage, in, in_len, out, &len),
            0)) {
        (void)vec_check_bytes(t, b, "checksum", out, len, want, want_len);
    }
    (void)vec_check_rc(t, b, "gk5_c_verify_checksum",
                       gk5_c_verify_checksum(et, key, key_len, usage, in,
                                             in_len, want, want_len),
                       0);
    vec_tally_end(t);
}

/* ---- test = encrypt (fixed confounder) and test = decrypt ---- */

/* Decrypts ct and compares with the plaintext, which for DES3 (pad_to)
 * keeps its zero padding. */
static void check_decrypt(vec_tally *t, const vec_block *b, int32_t et,
                          const uint8_t *key, size_t key_len, uint32_t usage,
                          const uint8_t *ct, size_t ct_len,
                          const uint8_t *plain, size_t plain_len, size_t pad_to)
{
    uint8_t out[BUF];
    uint8_t want[BUF];
    size_t want_len = plain_len;
    size_t len = sizeof(out);

    memset(want, 0, sizeof(want));
    memcpy(want, plain, plain_len);
    if (pad_to > 1) {
        want_len = (plain_len + pad_to - 1) / pad_to * pad_to;
    }
    memset(out, 0xa5, sizeof(out));
    if (vec_check_rc(
            t, b, "gk5_c_decrypt",
            gk5_c_decrypt(et, key, key_len, usage, ct, ct_len, out, &len), 0)) {
        (void)vec_check_bytes(t, b, "decrypted plaintext", out, len, want,
                              want_len);
    }
}

/* Encrypts with a random confounder and decrypts again. */
static void check_round_trip(vec_tally *t, const vec_block *b, int32_t et,
                             const uint8_t *key, size_t key_len, uint32_t usage,
                             const uint8_t *plain, size_t plain_len,
                             size_t pad_to)
{
    uint8_t ct[BUF];
    size_t ct_len = sizeof(ct);
    size_t want_len = 0;

    if (!vec_check_rc(t, b, "gk5_c_encrypt_length",
                      gk5_c_encrypt_length(et, plain_len, &want_len), 0) ||
        !vec_check_rc(t, b, "gk5_c_encrypt (random confounder)",
                      gk5_c_encrypt(et, key, key_len, usage, plain, plain_len,
                                    ct, &ct_len),
                      0)) {
        return;
    }
    (void)vec_check_size(t, b, "random-confounder ciphertext length", ct_len,
                         want_len);
    check_decrypt(t, b, et, key, key_len, usage, ct, ct_len, plain, plain_len,
                  pad_to);
}

static void run_encrypt(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *plain, *conf, *want, *ke = NULL, *ki = NULL;
    uint8_t out[BUF];
    uint8_t constant[5];
    size_t len = 0, ke_len = 0, ki_len = 0;
    int32_t et = read_enctype(b);
    uint32_t usage = read_usage(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t plain_len = vec_bytes(b, "plaintext", &plain);
    size_t conf_len = vec_bytes(b, "confounder", &conf);
    size_t want_len = vec_bytes(b, "ciphertext", &want);

    (void)vec_opt_bytes(b, "ke", &ke, &ke_len);
    (void)vec_opt_bytes(b, "ki", &ki, &ki_len);
    fits(b, "ciphertext", want_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        len = sizeof(out);
        refusal(t, b, "gk5_c_encrypt_confounder", et,
                gk5_c_encrypt_confounder(et, key, key_len, usage, conf,
                                         conf_len, plain, plain_len, out,
                                         &len));
        return;
    case RUN:
        break;
    }
    /* RFC 8009 A prints the Ke and Ki of each sample. */
    store_be32(constant, usage);
    if (ke != NULL) {
        constant[4] = 0xaa;
        (void)check_derive(t, b, "Ke", et, key, key_len, constant,
                           sizeof(constant), ke, ke_len);
    }
    if (ki != NULL) {
        constant[4] = 0x55;
        (void)check_derive(t, b, "Ki", et, key, key_len, constant,
                           sizeof(constant), ki, ki_len);
    }
    if (vec_check_rc(
            t, b, "gk5_c_crypto_length(HEADER)",
            gk5_c_crypto_length(et, GK5_CRYPTO_IOV_HEADER, plain_len, &len),
            0)) {
        (void)vec_check_size(t, b, "header (confounder) length", len, conf_len);
    }
    if (vec_check_rc(t, b, "gk5_c_encrypt_length",
                     gk5_c_encrypt_length(et, plain_len, &len), 0)) {
        (void)vec_check_size(t, b, "ciphertext length", len, want_len);
    }
    memset(out, 0xa5, sizeof(out));
    len = sizeof(out);
    if (vec_check_rc(t, b, "gk5_c_encrypt_confounder",
                     gk5_c_encrypt_confounder(et, key, key_len, usage, conf,
                                              conf_len, plain, plain_len, out,
                                              &len),
                     0)) {
        (void)vec_check_bytes(t, b, "ciphertext", out, len, want, want_len);
    }
    check_decrypt(t, b, et, key, key_len, usage, want, want_len, plain,
                  plain_len, 0);
    check_round_trip(t, b, et, key, key_len, usage, plain, plain_len, 0);
    vec_tally_end(t);
}

static void run_decrypt(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *plain, *ct;
    uint8_t out[BUF];
    size_t len = sizeof(out);
    int32_t et = read_enctype(b);
    uint32_t usage = read_usage(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t plain_len = vec_bytes(b, "plaintext", &plain);
    size_t ct_len = vec_bytes(b, "ciphertext", &ct);
    size_t pad_to = (size_t)vec_opt_int(b, "pad_to", 1, 64, 1);

    fits(b, "ciphertext", ct_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        refusal(t, b, "gk5_c_decrypt", et,
                gk5_c_decrypt(et, key, key_len, usage, ct, ct_len, out, &len));
        return;
    case RUN:
        break;
    }
    check_decrypt(t, b, et, key, key_len, usage, ct, ct_len, plain, plain_len,
                  pad_to);
    check_round_trip(t, b, et, key, key_len, usage, plain, plain_len, pad_to);
    vec_tally_end(t);
}

/* ---- test = prf ---- */

static void run_prf(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *in, *want;
    uint8_t out[BUF];
    size_t len = 0;
    int32_t et = read_enctype(b);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t in_len = vec_bytes(b, "input", &in);
    size_t want_len = vec_bytes(b, "output", &want);

    fits(b, "output", want_len);
    switch (gate(t, b, et)) {
    case DONE:
        return;
    case CHECK_REFUSAL:
        refusal(t, b, "gk5_c_prf", et,
                gk5_c_prf(et, key, key_len, in, in_len, out, want_len));
        return;
    case RUN:
        break;
    }
    if (vec_check_rc(t, b, "gk5_c_prf_length", gk5_c_prf_length(et, &len), 0)) {
        (void)vec_check_size(t, b, "PRF length", len, want_len);
    }
    memset(out, 0xa5, sizeof(out));
    if (vec_check_rc(t, b, "gk5_c_prf",
                     gk5_c_prf(et, key, key_len, in, in_len, out, want_len),
                     0)) {
        (void)vec_check_bytes(t, b, "PRF output", out, want_len, want,
                              want_len);
    }
    vec_tally_end(t);
}

/* ---- Files ---- */

static const struct {
    const char *name;
    void (*run)(vec_tally *, vec_block *);
} kinds[] = {
    {"nfold", run_nfold},
    {"des3-dr-dk", run_des3_dr_dk},
    {"string-to-key", run_string_to_key},
    {"cts", run_cts},
    {"derive", run_derive},
    {"checksum", run_checksum},
    {"encrypt", run_encrypt},
    {"decrypt", run_decrypt},
    {"prf", run_prf},
};

static void run_file(const char *name)
{
    vec_file *f = vec_open(name);
    vec_block *b;
    vec_tally t;

    vec_tally_init(&t, name);
    while ((b = vec_next(f)) != NULL) {
        const char *kind = vec_str(b, "test");
        size_t i;

        for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
            if (strcmp(kind, kinds[i].name) == 0) {
                kinds[i].run(&t, b);
                break;
            }
        }
        if (i == sizeof(kinds) / sizeof(kinds[0])) {
            fail_msg("%s: unknown test \"%s\"", vec_where(b), kind);
        }
    }
    vec_close(f);
    vec_tally_finish(&t);
}

#define VECTOR_FILE_TEST(fn, file)                                             \
    static void fn(void **state)                                               \
    {                                                                          \
        (void)state;                                                           \
        run_file(file);                                                        \
    }

VECTOR_FILE_TEST(test_rfc3961_a1_nfold, "rfc3961_a1_nfold.txt")
VECTOR_FILE_TEST(test_rfc3961_a3_des3_dk, "rfc3961_a3_des3_dk.txt")
VECTOR_FILE_TEST(test_rfc3961_a4_des3_s2k, "rfc3961_a4_des3_s2k.txt")
VECTOR_FILE_TEST(test_rfc3962_b_s2k, "rfc3962_b_s2k.txt")
VECTOR_FILE_TEST(test_rfc3962_b_cts, "rfc3962_b_cts.txt")
VECTOR_FILE_TEST(test_rfc6803_s10, "rfc6803_s10.txt")
VECTOR_FILE_TEST(test_rfc8009_appA, "rfc8009_appA.txt")
VECTOR_FILE_TEST(test_mit_krb5_decrypt, "mit_krb5_decrypt.txt")
VECTOR_FILE_TEST(test_mit_krb5_cksum, "mit_krb5_cksum.txt")
VECTOR_FILE_TEST(test_mit_krb5_derive, "mit_krb5_derive.txt")
VECTOR_FILE_TEST(test_mit_krb5_str2key, "mit_krb5_str2key.txt")
VECTOR_FILE_TEST(test_mit_krb5_prf, "mit_krb5_prf.txt")
VECTOR_FILE_TEST(test_mit_krb5_nfold, "mit_krb5_nfold.txt")

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3961_a1_nfold),
        cmocka_unit_test(test_rfc3961_a3_des3_dk),
        cmocka_unit_test(test_rfc3961_a4_des3_s2k),
        cmocka_unit_test(test_rfc3962_b_s2k),
        cmocka_unit_test(test_rfc3962_b_cts),
        cmocka_unit_test(test_rfc6803_s10),
        cmocka_unit_test(test_rfc8009_appA),
        cmocka_unit_test(test_mit_krb5_decrypt),
        cmocka_unit_test(test_mit_krb5_cksum),
        cmocka_unit_test(test_mit_krb5_derive),
        cmocka_unit_test(test_mit_krb5_str2key),
        cmocka_unit_test(test_mit_krb5_prf),
        cmocka_unit_test(test_mit_krb5_nfold),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
