/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_c_decrypt (RFC 3961 5.3 simplified profile with
 * RFC 3962 AES and RFC 6803 Camellia; RFC 8009 AES-SHA2; RFC 3961 6.3 DES3)
 * for every enctype, with the fixed seed key, and gk5_c_decrypt_iov on the
 * same ciphertext: both must agree.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (only GENERATE is used),
 * u32 key usage, u8 output-capacity slack, then
 *   raw mode:      the ciphertext;
 *   generate mode: flips, plaintext.  gk5_c_encrypt makes the ciphertext;
 *                  the mutated one must be refused, the unmutated one must
 *                  give the plaintext back.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_PLAINTEXT 4096

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

/* gk5_c_decrypt into an exact-capacity buffer (capacity in_len - slack);
 * returns the error code and the plaintext in *out (malloc'd). */
static uint32_t decrypt(int32_t et, const uint8_t *key, size_t key_len,
                        uint32_t usage, const uint8_t *ct, size_t ct_len,
                        size_t slack, uint8_t **out, size_t *out_len)
{
    size_t cap = ct_len > slack ? ct_len - slack : 0;
    uint8_t *in = fuzz_dup(ct, ct_len);
    uint8_t *buf = fuzz_dup(NULL, cap);
    size_t len = cap;
    uint32_t err;

    err = gk5_c_decrypt(et, key, key_len, usage, in, ct_len, buf, &len);
    if (err == 0 && len > cap) {
        fuzz_fail("decrypt wrote more than the capacity", 0, err);
    }
    free(in);
    if (err != 0) {
        free(buf);
        *out = NULL;
        *out_len = 0;
        return err;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

/* The same through gk5_c_decrypt_iov: HEADER | DATA | TRAILER. */
static uint32_t decrypt_iov(int32_t et, const uint8_t *key, size_t key_len,
                            uint32_t usage, const uint8_t *ct, size_t ct_len,
                            uint8_t **out, size_t *out_len)
{
    size_t h = 0, t = 0;
    gk5_crypto_iov iov[3];
    uint32_t err;

    *out = NULL;
    *out_len = 0;
    if (gk5_c_crypto_length(et, GK5_CRYPTO_IOV_HEADER, 0, &h) != 0 ||
        gk5_c_crypto_length(et, GK5_CRYPTO_IOV_TRAILER, 0, &t) != 0) {
        fuzz_fail("crypto_length failed for a usable enctype", 0, 0);
    }
    if (ct_len < h + t) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    iov[0].flags = GK5_CRYPTO_IOV_HEADER;
    iov[0].data = fuzz_dup(ct, h);
    iov[0].length = h;
    iov[1].flags = GK5_CRYPTO_IOV_DATA;
    iov[1].data = fuzz_dup(ct + h, ct_len - h - t);
    iov[1].length = ct_len - h - t;
    iov[2].flags = GK5_CRYPTO_IOV_TRAILER;
    iov[2].data = fuzz_dup(ct + ct_len - t, t);
    iov[2].length = t;
    err = gk5_c_decrypt_iov(et, key, key_len, usage, iov, 3);
    if (err == 0) {
        *out = iov[1].data;
        *out_len = iov[1].length;
    } else {
        free(iov[1].data);
    }
    free(iov[0].data);
    free(iov[2].data);
    return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;
    struct fuzz_in in;
    uint8_t key[64];
    size_t key_len;
    uint32_t usage, err, err2;
    size_t slack;
    const uint8_t *p = NULL;
    size_t len;
    uint8_t *ct = NULL, *pt1 = NULL, *pt2 = NULL;
    size_t ct_len, pt1_len = 0, pt2_len = 0;
    bool changed = false;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1)) {
        return 0;
    }
    in.p = data;
    in.n = size;
    usage = fuzz_u32(&in);
    slack = fuzz_u8(&in) % 4 == 0 ? fuzz_u8(&in) : 0;
    key_len = fuzz_seed_key(cfg.enctype, 0, key, sizeof(key));
    if (key_len == 0) {
        fuzz_fail("no seed key for a usable enctype", 0, 0);
    }

    if ((b1 & FUZZ_B1_GENERATE) == 0) {
        len = fuzz_bytes(&in, &p, in.n);
        ct = fuzz_dup(p, len);
        ct_len = len;
    } else {
        struct fuzz_flips flips;
        fuzz_take_flips(&in, &flips);
        len = fuzz_bytes(&in, &p, MAX_PLAINTEXT);
        if (gk5_c_encrypt_length(cfg.enctype, len, &ct_len) != 0) {
            fuzz_fail("encrypt_length failed", 0, 0);
        }
        ct = fuzz_dup(NULL, ct_len);
        err = gk5_c_encrypt(cfg.enctype, key, key_len, usage, p, len, ct,
                            &ct_len);
        if (err != 0) {
            /* An unacceptable usage number is refused alike both ways. */
            err2 = decrypt(cfg.enctype, key, key_len, usage, ct, ct_len, 0,
                           &pt1, &pt1_len);
            if (err2 == 0) {
                fuzz_fail("decrypt accepts a usage encrypt refuses", 0, err);
            }
            free(ct);
            return 0;
        }
        changed = fuzz_apply_flips(&flips, ct, ct_len);
    }

    err = decrypt(cfg.enctype, key, key_len, usage, ct, ct_len, slack, &pt1,
                  &pt1_len);
    err2 = decrypt_iov(cfg.enctype, key, key_len, usage, ct, ct_len, &pt2,
                       &pt2_len);
    if (err == 0 && (err2 != 0 || pt1_len != pt2_len ||
                     (pt1_len != 0 && memcmp(pt1, pt2, pt1_len) != 0))) {
        fuzz_fail("decrypt and decrypt_iov disagree", err, err2);
    }
    if (err2 == 0 && err != 0 &&
        GK5_ERR_CODE(err) != GK5_ERR_BUFFER_TOO_SMALL) {
        fuzz_fail("decrypt_iov accepts what decrypt refuses", err, err2);
    }
    if ((b1 & FUZZ_B1_GENERATE) != 0) {
        /* p/len: the plaintext; DES3 keeps its padding (RFC 3961 6.3). */
        bool same = err2 == 0 && pt2_len >= len &&
                    (len == 0 || memcmp(pt2, p, len) == 0) &&
                    (fuzz_des3(cfg.enctype) || pt2_len == len);
        if (!changed && !same) {
            fuzz_fail("a valid ciphertext did not decrypt to its plaintext", 0,
                      err2);
        }
        if (changed && err2 == 0 && !same) {
            fuzz_fail("a mutated ciphertext decrypted to other plaintext", 0,
                      0);
        }
    }
    free(pt1);
    free(pt2);
    free(ct);
    return 0;
}
