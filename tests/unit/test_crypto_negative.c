/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Every positive encryption, decryption and checksum vector in
 * tests/vectors/, run again as negatives, with the exact error crypto.h
 * documents for each:
 *   - a flipped bit in the first byte, the confounder, a middle byte and the
 *     MAC                                        -> GK5_ERR_INTEGRITY
 *   - the wrong key usage (usage + 1)            -> GK5_ERR_INTEGRITY
 *   - truncated by one byte, truncated below confounder + MAC, empty, and one
 *     byte appended: GK5_ERR_BAD_CIPHERTEXT_LENGTH when the length cannot be
 *     a ciphertext of the enctype (shorter than confounder + MAC; for DES3
 *     also not a whole number of blocks), else GK5_ERR_INTEGRITY
 *   - no failed decryption leaves the plaintext in the output buffer
 *   - checksums: a flipped bit in the checksum or the message, or the wrong
 *     usage                                      -> GK5_ERR_INTEGRITY
 *   - rows for rejected enctypes (rc4): every crypto entry point refuses
 *     them with GK5_ERR_ENCTYPE_REJECTED and the enctype in the code.
 * Vectors whose enctype is not built here (des3 by default) are counted as
 * skipped, after checking that the API refuses them as not built.
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
#include "crypto/crypto_int.h"

#include "vecfile.h"

#define BUF 1024

/*
 * Ciphertext shape of each enctype, from the RFCs (not from gk5):
 * confounder = cipher block; MAC = the truncated HMAC/CMAC length.
 *   RFC 3962 3: AES, 96-bit HMAC-SHA1.  RFC 8009 5: 128/192-bit
 *   HMAC-SHA256/384.  RFC 6803 3: 128-bit CMAC.  RFC 3961 6.3: DES3 CBC
 *   (whole 8-byte blocks), 160-bit HMAC-SHA1.
 */
static const struct shape {
    int32_t enctype;
    size_t conf;
    size_t mac;
    size_t block; /* ciphertext body must be whole blocks (no CTS) */
} shapes[] = {
    {17, 16, 12, 0}, {18, 16, 12, 0}, {19, 16, 16, 0}, {20, 16, 24, 0},
    {25, 16, 16, 0}, {26, 16, 16, 0}, {16, 8, 20, 8},
};

static const struct shape *shape_of(const vec_block *b, int32_t et)
{
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        if (shapes[i].enctype == et) {
            return &shapes[i];
        }
    }
    fail_msg("%s: no ciphertext shape for enctype %d", vec_where(b), (int)et);
    return NULL;
}

/* The error a decryption of a damaged ciphertext of length len must give. */
static uint32_t expected_error(const struct shape *s, size_t len)
{
    if (len < s->conf + s->mac) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    if (s->block != 0 && (len - s->mac) % s->block != 0) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    return GK5_ERR_INTEGRITY;
}

struct enc_vector {
    int32_t et;
    const uint8_t *key;
    size_t key_len;
    uint32_t usage;
    const uint8_t *plain;
    size_t plain_len;
    const uint8_t *ct;
    size_t ct_len;
};

/* Decrypts a damaged ciphertext: it must fail with want, and the output
 * buffer must not hold the plaintext afterwards. */
static void expect_decrypt_fails(vec_tally *t, const vec_block *b,
                                 const struct enc_vector *v, uint32_t usage,
                                 const uint8_t *ct, size_t ct_len,
                                 uint32_t want, const char *what)
{
    uint8_t out[BUF];
    size_t len = sizeof(out);
    char label[160];
    uint32_t rc;

    memset(out, 0xa5, sizeof(out));
    rc = gk5_c_decrypt(v->et, v->key, v->key_len, usage, ct, ct_len, out, &len);
    snprintf(label, sizeof(label), "gk5_c_decrypt, %s", what);
    (void)vec_check_rc(t, b, label, rc, want);
    if (v->plain_len >= 4 &&
        memmem(out, sizeof(out), v->plain, v->plain_len) != NULL) {
        print_message("    FAIL %s: %s: the plaintext was left in the "
                      "output buffer\n",
                      vec_where(b), what);
        t->current_failed = true;
    }
}

static void flip(vec_tally *t, const vec_block *b, const struct enc_vector *v,
                 size_t pos, uint8_t mask, const char *where)
{
    uint8_t ct[BUF];
    char what[96];

    memcpy(ct, v->ct, v->ct_len);
    ct[pos] ^= mask;
    snprintf(what, sizeof(what), "bit 0x%02x flipped in byte %zu (%s)",
             (unsigned)mask, pos, where);
    expect_decrypt_fails(t, b, v, v->usage, ct, v->ct_len, GK5_ERR_INTEGRITY,
                         what);
}

static void negatives_for_ciphertext(vec_tally *t, const vec_block *b,
                                     const struct enc_vector *v)
{
    const struct shape *s = shape_of(b, v->et);
    uint8_t ct[BUF + 1];
    size_t len = 0;
    size_t short_len = s->conf + s->mac - 1;

    /* The RFC shape and gk5's own lengths agree. */
    if (vec_check_rc(t, b, "gk5_c_crypto_length(HEADER)",
                     gk5_c_crypto_length(v->et, GK5_CRYPTO_IOV_HEADER,
                                         v->plain_len, &len),
                     0)) {
        (void)vec_check_size(t, b, "header length", len, s->conf);
    }
    if (vec_check_rc(t, b, "gk5_c_crypto_length(TRAILER)",
                     gk5_c_crypto_length(v->et, GK5_CRYPTO_IOV_TRAILER,
                                         v->plain_len, &len),
                     0)) {
        (void)vec_check_size(t, b, "trailer (MAC) length", len, s->mac);
    }
    if (v->ct_len < s->conf + s->mac || v->ct_len + 1 > BUF) {
        fail_msg("%s: ciphertext of %zu bytes does not fit the shape",
                 vec_where(b), v->ct_len);
    }
    /* A negative means something only if the undamaged vector decrypts. */
    len = sizeof(ct);
    if (!vec_check_rc(t, b, "gk5_c_decrypt of the undamaged vector",
                      gk5_c_decrypt(v->et, v->key, v->key_len, v->usage, v->ct,
                                    v->ct_len, ct, &len),
                      0)) {
        return;
    }

    flip(t, b, v, 0, 0x01, "first byte");
    flip(t, b, v, s->conf - 1, 0x80, "last confounder byte");
    flip(t, b, v, v->ct_len / 2, 0x10, "middle byte");
    flip(t, b, v, v->ct_len - s->mac, 0x04, "first MAC byte");
    flip(t, b, v, v->ct_len - 1, 0x80, "last MAC byte");

    expect_decrypt_fails(t, b, v, v->usage + 1, v->ct, v->ct_len,
                         GK5_ERR_INTEGRITY, "key usage + 1");

    expect_decrypt_fails(t, b, v, v->usage, v->ct, v->ct_len - 1,
                         expected_error(s, v->ct_len - 1),
                         "truncated by one byte");
    expect_decrypt_fails(t, b, v, v->usage, v->ct, short_len,
                         GK5_ERR_BAD_CIPHERTEXT_LENGTH,
                         "truncated below confounder + MAC");
    expect_decrypt_fails(t, b, v, v->usage, v->ct, 0,
                         GK5_ERR_BAD_CIPHERTEXT_LENGTH, "empty");

    memcpy(ct, v->ct, v->ct_len);
    ct[v->ct_len] = 0x00;
    expect_decrypt_fails(t, b, v, v->usage, ct, v->ct_len + 1,
                         expected_error(s, v->ct_len + 1), "one byte appended");
}

/* Every crypto entry point refuses a rejected enctype, naming it. */
static void all_refuse(vec_tally *t, const vec_block *b, int32_t et,
                       uint32_t code)
{
    static const uint8_t key[32] = {1};
    static const uint8_t msg[32] = {2};
    static const uint8_t conf[16] = {3};
    uint8_t out[BUF];
    uint8_t hdr[64], data[16], trl[64];
    gk5_crypto_iov iov[3] = {
        {GK5_CRYPTO_IOV_HEADER, hdr, sizeof(hdr)},
        {GK5_CRYPTO_IOV_DATA, data, sizeof(data)},
        {GK5_CRYPTO_IOV_TRAILER, trl, sizeof(trl)},
    };
    gk5_crypto_iov ck[2] = {
        {GK5_CRYPTO_IOV_DATA, data, sizeof(data)},
        {GK5_CRYPTO_IOV_CHECKSUM, trl, 16},
    };
    uint32_t want = GK5_ERR_MAKE_ET(code, et);
    size_t len = 0;

    memset(data, 0, sizeof(data));
    (void)vec_check_rc(t, b, "gk5_enctype_check", gk5_enctype_check(et), want);
    (void)vec_check_rc(t, b, "gk5_c_key_length", gk5_c_key_length(et, &len),
                       want);
    (void)vec_check_rc(t, b, "gk5_c_crypto_length",
                       gk5_c_crypto_length(et, GK5_CRYPTO_IOV_HEADER, 1, &len),
                       want);
    (void)vec_check_rc(t, b, "gk5_c_encrypt_length",
                       gk5_c_encrypt_length(et, 1, &len), want);
    (void)vec_check_rc(t, b, "gk5_c_checksum_length",
                       gk5_c_checksum_length(et, &len), want);
    (void)vec_check_rc(t, b, "gk5_c_prf_length", gk5_c_prf_length(et, &len),
                       want);
    (void)vec_check_rc(
        t, b, "gk5_c_string_to_key",
        gk5_c_string_to_key(et, "password", 8, "salt", 4, NULL, 0, out, 16),
        want);
    (void)vec_check_rc(t, b, "gk5_c_random_to_key",
                       gk5_c_random_to_key(et, msg, 16, out, 16), want);
    (void)vec_check_rc(t, b, "gk5_c_derive_length",
                       gk5_c_derive_length(et, "\0\0\0\2\x99", 5, &len), want);
    (void)vec_check_rc(
        t, b, "gk5_c_derive_key",
        gk5_c_derive_key(et, key, 16, "\0\0\0\2\x99", 5, out, 16), want);
    len = sizeof(out);
    (void)vec_check_rc(
        t, b, "gk5_c_encrypt",
        gk5_c_encrypt(et, key, 16, 2, msg, sizeof(msg), out, &len), want);
    len = sizeof(out);
    (void)vec_check_rc(t, b, "gk5_c_encrypt_confounder",
                       gk5_c_encrypt_confounder(et, key, 16, 2, conf,
                                                sizeof(conf), msg, sizeof(msg),
                                                out, &len),
                       want);
    len = sizeof(out);
    (void)vec_check_rc(
        t, b, "gk5_c_decrypt",
        gk5_c_decrypt(et, key, 16, 2, msg, sizeof(msg), out, &len), want);
    len = sizeof(out);
    (void)vec_check_rc(
        t, b, "gk5_c_checksum",
        gk5_c_checksum(et, key, 16, 2, msg, sizeof(msg), out, &len), want);
    (void)vec_check_rc(
        t, b, "gk5_c_verify_checksum",
        gk5_c_verify_checksum(et, key, 16, 2, msg, sizeof(msg), msg, 16), want);
    (void)vec_check_rc(t, b, "gk5_c_prf",
                       gk5_c_prf(et, key, 16, msg, sizeof(msg), out, 16), want);
    (void)vec_check_rc(t, b, "gk5_c_encrypt_iov",
                       gk5_c_encrypt_iov(et, key, 16, 2, iov, 3), want);
    (void)vec_check_rc(t, b, "gk5_c_decrypt_iov",
                       gk5_c_decrypt_iov(et, key, 16, 2, iov, 3), want);
    (void)vec_check_rc(t, b, "gk5_c_checksum_iov",
                       gk5_c_checksum_iov(et, key, 16, 2, ck, 2), want);
    (void)vec_check_rc(t, b, "gk5_c_verify_checksum_iov",
                       gk5_c_verify_checksum_iov(et, key, 16, 2, ck, 2), want);
}

/*
 * Reads `expect` and the enctype's state.  Returns true when the vector's
 * negatives should run; otherwise the vector has been counted (skipped:
 * not built here, after checking the refusal; refused: a rejected enctype
 * that every entry point refused).
 */
static bool runs_here(vec_tally *t, vec_block *b, int32_t et)
{
    const char *expect = vec_opt_str(b, "expect", "ok");
    enum vec_et_state st = vec_enctype_state(b, et);

    vec_done(b);
    if (strcmp(expect, "rejected") == 0 || st == VEC_ET_REJECTED) {
        if (strcmp(expect, "rejected") != 0 || st != VEC_ET_REJECTED) {
            fail_msg("%s: enctype %d: the file says expect = %s, the table "
                     "disagrees",
                     vec_where(b), (int)et, expect);
        }
        all_refuse(t, b, et, GK5_ERR_ENCTYPE_REJECTED);
        vec_tally_refused(t);
        return false;
    }
    if (strcmp(expect, "ok") != 0) {
        fail_msg("%s: expect = \"%s\": want ok or rejected", vec_where(b),
                 expect);
    }
    if (st == VEC_ET_NOT_BUILT) {
        all_refuse(t, b, et, GK5_ERR_ENCTYPE_NOT_BUILT);
        if (t->current_failed) {
            vec_tally_end(t);
        } else {
            vec_tally_skip(t);
        }
        return false;
    }
    return true;
}

static void read_enc_vector(vec_block *b, struct enc_vector *v,
                            const char *ct_field)
{
    v->et = (int32_t)vec_int(b, "enctype", INT16_MIN, INT16_MAX);
    v->usage = (uint32_t)vec_int(b, "usage", 0, UINT32_MAX - 1);
    v->key_len = vec_bytes(b, "key", &v->key);
    v->plain_len = vec_bytes(b, "plaintext", &v->plain);
    v->ct_len = vec_bytes(b, ct_field, &v->ct);
}

/* test = encrypt (RFC 6803, RFC 8009): the vector's ciphertext. */
static void run_encrypt(vec_tally *t, vec_block *b)
{
    struct enc_vector v;
    const uint8_t *unused;

    read_enc_vector(b, &v, "ciphertext");
    /* Read by the positive test; the negatives need only the ciphertext. */
    (void)vec_bytes(b, "confounder", &unused);
    (void)vec_opt_bytes(b, "ke", &unused, &(size_t){0});
    (void)vec_opt_bytes(b, "ki", &unused, &(size_t){0});
    if (!runs_here(t, b, v.et)) {
        return;
    }
    negatives_for_ciphertext(t, b, &v);
    vec_tally_end(t);
}

/* test = decrypt (MIT t_decrypt.c). */
static void run_decrypt(vec_tally *t, vec_block *b)
{
    struct enc_vector v;

    read_enc_vector(b, &v, "ciphertext");
    (void)vec_opt_int(b, "pad_to", 1, 64, 1);
    if (!runs_here(t, b, v.et)) {
        return;
    }
    negatives_for_ciphertext(t, b, &v);
    vec_tally_end(t);
}

static void expect_verify_fails(vec_tally *t, const vec_block *b, int32_t et,
                                const uint8_t *key, size_t key_len,
                                uint32_t usage, const uint8_t *msg,
                                size_t msg_len, const uint8_t *cksum,
                                size_t cksum_len, const char *what)
{
    char label[160];

    snprintf(label, sizeof(label), "gk5_c_verify_checksum, %s", what);
    (void)vec_check_rc(t, b, label,
                       gk5_c_verify_checksum(et, key, key_len, usage, msg,
                                             msg_len, cksum, cksum_len),
                       GK5_ERR_INTEGRITY);
}

/* test = checksum (RFC 6803, RFC 8009, MIT t_cksums.c). */
static void run_checksum(vec_tally *t, vec_block *b)
{
    const uint8_t *key, *msg, *cksum;
    uint8_t m[BUF], c[BUF];
    int32_t et = (int32_t)vec_int(b, "enctype", INT16_MIN, INT16_MAX);
    uint32_t usage = (uint32_t)vec_int(b, "usage", 0, UINT32_MAX - 1);
    size_t key_len = vec_bytes(b, "key", &key);
    size_t msg_len = vec_bytes(b, "input", &msg);
    size_t cksum_len = vec_bytes(b, "checksum", &cksum);

    (void)vec_opt_int(b, "cksumtype", INT32_MIN, INT32_MAX, 0);
    if (msg_len > BUF || cksum_len > BUF || cksum_len == 0) {
        fail_msg("%s: input or checksum does not fit", vec_where(b));
    }
    if (!runs_here(t, b, et)) {
        return;
    }
    if (!vec_check_rc(t, b, "gk5_c_verify_checksum of the undamaged vector",
                      gk5_c_verify_checksum(et, key, key_len, usage, msg,
                                            msg_len, cksum, cksum_len),
                      0)) {
        vec_tally_end(t);
        return;
    }
    memcpy(c, cksum, cksum_len);
    c[0] ^= 0x01;
    expect_verify_fails(t, b, et, key, key_len, usage, msg, msg_len, c,
                        cksum_len, "first checksum byte flipped");
    memcpy(c, cksum, cksum_len);
    c[cksum_len - 1] ^= 0x80;
    expect_verify_fails(t, b, et, key, key_len, usage, msg, msg_len, c,
                        cksum_len, "last checksum byte flipped");
    if (msg_len > 0) {
        memcpy(m, msg, msg_len);
        m[msg_len / 2] ^= 0x20;
        expect_verify_fails(t, b, et, key, key_len, usage, m, msg_len, cksum,
                            cksum_len, "message bit flipped");
    }
    expect_verify_fails(t, b, et, key, key_len, usage + 1, msg, msg_len, cksum,
                        cksum_len, "key usage + 1");
    vec_tally_end(t);
}

/* The negatives are about ciphertexts and checksums; blocks of other kinds
 * in the same files are the positive test's (which reads every field). */
static void run_file(const char *name)
{
    vec_file *f = vec_open(name);
    vec_block *b;
    vec_tally t;

    vec_tally_init(&t, name);
    while ((b = vec_next(f)) != NULL) {
        const char *kind = vec_str(b, "test");

        if (strcmp(kind, "encrypt") == 0) {
            run_encrypt(&t, b);
        } else if (strcmp(kind, "decrypt") == 0) {
            run_decrypt(&t, b);
        } else if (strcmp(kind, "checksum") == 0) {
            run_checksum(&t, b);
        }
    }
    vec_close(f);
    vec_tally_finish(&t);
}

#define NEGATIVE_FILE_TEST(fn, file)                                           \
    static void fn(void **state)                                               \
    {                                                                          \
        (void)state;                                                           \
        run_file(file);                                                        \
    }

NEGATIVE_FILE_TEST(test_rfc6803_s10, "rfc6803_s10.txt")
NEGATIVE_FILE_TEST(test_rfc8009_appA, "rfc8009_appA.txt")
NEGATIVE_FILE_TEST(test_mit_krb5_decrypt, "mit_krb5_decrypt.txt")
NEGATIVE_FILE_TEST(test_mit_krb5_cksum, "mit_krb5_cksum.txt")

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6803_s10),
        cmocka_unit_test(test_rfc8009_appA),
        cmocka_unit_test(test_mit_krb5_decrypt),
        cmocka_unit_test(test_mit_krb5_cksum),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
