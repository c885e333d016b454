/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Constant-time check (the ctgrind technique): key material and received
 * MACs are marked as undefined memory with VALGRIND_MAKE_MEM_UNDEFINED, and
 * the MAC-compare and unwrap paths run under valgrind memcheck.  Memcheck
 * reports every conditional jump (and every memory address) that depends on
 * an undefined value, i.e. on a secret.  run.sh runs this program with
 * --error-exitcode=1.
 *
 * The one declassification point is the result of CRYPTO_memcmp(): whether
 * a MAC matched is the accept/reject answer gk5 returns to its caller, so
 * it is public by definition.  This program defines CRYPTO_memcmp itself
 * (the executable's definition binds gk5's calls, which come from the
 * static internal library): the same constant-time comparison, whose
 * result -- and nothing else -- is then marked defined.  Every other
 * secret-dependent branch or address in gk5's code is an error.  ct.supp
 * holds the few suppressions for OpenSSL's internals and the one
 * RFC 1964 declassification, each explained there.
 *
 *   ct_check           the checks (every built enctype)
 *   ct_check --control a positive control: a deliberately leaky compare on
 *                      marked data, which valgrind must report
 *
 * Outside valgrind the marks do nothing, so the program refuses to run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include <openssl/crypto.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "crypto/crypto_int.h"

static int failures;
static unsigned long memcmp_calls;

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static void expect(int cond, const char *what, int32_t et)
{
    if (!cond) {
        fprintf(stderr, "ct_check: enctype %d: %s\n", (int)et, what);
        failures++;
    }
}

/* OpenSSL's contract: 0 if the len bytes are equal, nonzero otherwise, in
 * time independent of the contents.  No branch on the data: OR of XORs. */
int CRYPTO_memcmp(const void *in_a, const void *in_b, size_t len)
{
    const volatile uint8_t *a = in_a;
    const volatile uint8_t *b = in_b;
    uint8_t x = 0;
    int result;

    for (size_t i = 0; i < len; i++) {
        x = (uint8_t)(x | (a[i] ^ b[i]));
    }
    result = x;
    /* Declassify the answer, and only the answer. */
    PUBLIC(&result, sizeof(result));
    memcmp_calls++;
    return result;
}

/* What the enctype table says of et (never its number). */
static enum gk5i_family family(int32_t et)
{
    const struct gk5_enctype *row = gk5i_enctype_get(et);

    return row != NULL ? row->family : GK5I_FAMILY_NONE;
}

static bool rfc1964(int32_t et)
{
    const struct gk5_enctype *row = gk5i_enctype_get(et);

    return row != NULL && row->rfc1964;
}

/* Fixed, obviously non-random test keys (DES3 with odd parity). */
static size_t test_key(int32_t et, uint8_t *key, size_t cap)
{
    size_t len = 0;

    if (gk5_c_key_length(et, &len) != 0 || len > cap) {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        key[i] = (uint8_t)(0x5a ^ (i * 29) ^ (uint32_t)et);
        if (family(et) == GK5I_FAMILY_DES3) {
            uint8_t b = (uint8_t)(key[i] & 0xfe);
            key[i] = (uint8_t)(b | !(__builtin_popcount(b) & 1));
        }
    }
    return len;
}

static const uint8_t message[] = "constant time: the quick brown fox jumps";

/* RFC 3961 checksum: gk5_c_verify_checksum with the key and the received
 * checksum secret, for a right and a wrong checksum. */
static void check_checksum(int32_t et)
{
    uint8_t key[32], cks[64], wrong[64];
    size_t key_len = test_key(et, key, sizeof(key));
    size_t cks_len = sizeof(cks);
    uint32_t err;

    err = gk5_c_checksum(et, key, key_len, 25, message, sizeof(message), cks,
                         &cks_len);
    expect(err == 0, "checksum failed", et);
    memcpy(wrong, cks, cks_len);
    wrong[cks_len - 1] ^= 1;

    SECRET(key, key_len);
    SECRET(cks, cks_len);
    SECRET(wrong, cks_len);
    err = gk5_c_verify_checksum(et, key, key_len, 25, message, sizeof(message),
                                cks, cks_len);
    expect(err == 0, "a right checksum was refused", et);
    err = gk5_c_verify_checksum(et, key, key_len, 25, message, sizeof(message),
                                wrong, cks_len);
    expect(GK5_ERR_CODE(err) == GK5_ERR_INTEGRITY,
           "a wrong checksum was accepted", et);
}

/* RFC 3961 decryption: the key and the ciphertext's MAC (its last
 * mac-length bytes) secret, for an intact and a forged ciphertext. */
static void check_decrypt(int32_t et)
{
    uint8_t key[32], ct[256], forged[256], pt[256];
    size_t key_len = test_key(et, key, sizeof(key));
    size_t ct_len = sizeof(ct), pt_len, mac_len = 0;
    uint32_t err;

    err = gk5_c_encrypt(et, key, key_len, 24, message, sizeof(message), ct,
                        &ct_len);
    expect(err == 0, "encrypt failed", et);
    err = gk5_c_crypto_length(et, GK5_CRYPTO_IOV_TRAILER, 0, &mac_len);
    expect(err == 0 && mac_len != 0 && mac_len < ct_len, "no trailer length",
           et);
    memcpy(forged, ct, ct_len);
    forged[ct_len - 1] ^= 0x80;

    SECRET(key, key_len);
    SECRET(ct + ct_len - mac_len, mac_len);
    SECRET(forged + ct_len - mac_len, mac_len);
    pt_len = sizeof(pt);
    err = gk5_c_decrypt(et, key, key_len, 24, ct, ct_len, pt, &pt_len);
    expect(err == 0, "an intact ciphertext was refused", et);
    pt_len = sizeof(pt);
    err = gk5_c_decrypt(et, key, key_len, 24, forged, ct_len, pt, &pt_len);
    expect(GK5_ERR_CODE(err) == GK5_ERR_INTEGRITY,
           "a forged ciphertext was accepted", et);
    /* The plaintext came from secret data; the program may look at it. */
    PUBLIC(pt, sizeof(pt));
}

/* The rpc.gssd buffer (host order): flags, endtime, send_seq, enctype,
 * key. */
static size_t gssd(int32_t et, int initiator, int subkey, const uint8_t *key,
                   size_t key_len, uint8_t *buf)
{
    uint32_t flags =
        (initiator ? GK5_GSSD_FLAG_INITIATOR : 0) |
        (rfc1964(et) ? 0 : GK5_GSSD_FLAG_CFX) |
        (subkey && !rfc1964(et) ? GK5_GSSD_FLAG_ACCEPTOR_SUBKEY : 0);
    uint32_t endtime = 0, e = (uint32_t)et;
    uint64_t seq = initiator ? 100 : 200;

    memcpy(buf, &flags, 4);
    memcpy(buf + 4, &endtime, 4);
    memcpy(buf + 8, &seq, 8);
    memcpy(buf + 16, &e, 4);
    memcpy(buf + 20, key, key_len);
    return 20 + key_len;
}

/* Where a token's checksum lies: RFC 4121 tokens end with it (RRC 0);
 * an RFC 1964 token has it after the 8-byte header and the 8-byte
 * encrypted sequence number, behind the RFC 2743 framing. */
static void cksum_span(int32_t et, const uint8_t *tok, size_t len, size_t *off,
                       size_t *n)
{
    size_t cks = 0;

    if (!rfc1964(et)) {
        if (gk5_c_checksum_length(et, &cks) != 0 || cks > len) {
            cks = 0;
        }
        *off = len - cks;
        *n = cks;
        return;
    }
    /* 0x60, DER length (short or 0x81/0x82 long form), 06 09 OID. */
    {
        size_t lenlen = tok[1] < 0x80 ? 1 : 1 + (size_t)(tok[1] & 0x7f);
        size_t inner = 1 + lenlen + 11;
        *off = inner + 16;
        *n = 20;
    }
}

/* Per-message tokens: the receiving context is imported from a secret key
 * (so every subkey it derives is secret) and each token's checksum is
 * marked secret before it is checked; intact tokens must be accepted,
 * tokens with a flipped checksum bit refused. */
static void check_tokens(int32_t et, int subkey)
{
    uint8_t key[32], skey[32], buf[64];
    size_t key_len = test_key(et, key, sizeof(key)), len;
    gk5_ctx *tx = NULL, *rx = NULL;
    uint32_t minor = 0, major;

    len = gssd(et, 1, subkey, key, key_len, buf);
    major = gk5_ctx_import_gssd(&minor, buf, len, &tx);
    expect(major == GK5_S_COMPLETE, "import of the sender failed", et);
    memcpy(skey, key, key_len);
    SECRET(skey, key_len);
    len = gssd(et, 0, subkey, skey, key_len, buf);
    major = gk5_ctx_import_gssd(&minor, buf, len, &rx);
    expect(major == GK5_S_COMPLETE, "import of the receiver failed", et);
    if (tx == NULL || rx == NULL) {
        gk5_ctx_free(tx);
        gk5_ctx_free(rx);
        return;
    }

    for (int kind = 0; kind < 3; kind++) {
        /* 0: sealed Wrap, 1: integrity-only Wrap, 2: MIC */
        for (int forge = 0; forge < 2; forge++) {
            gk5_buffer msg = {sizeof(message), NULL}, tok = {0, NULL};
            gk5_buffer out = {0, NULL};
            uint32_t qop = 0;
            size_t off = 0, n = 0;
            int conf = -1;

            msg.value = malloc(sizeof(message));
            if (msg.value == NULL) {
                abort();
            }
            memcpy(msg.value, message, sizeof(message));
            if (kind < 2) {
                major = gk5_wrap(&minor, tx, kind == 0, 0, &msg, &conf, &tok);
            } else {
                major = gk5_get_mic(&minor, tx, 0, &msg, &tok);
            }
            expect(major == GK5_S_COMPLETE, "the sender failed", et);
            if (major != GK5_S_COMPLETE) {
                free(msg.value);
                continue;
            }
            cksum_span(et, tok.value, tok.length, &off, &n);
            if (forge) {
                ((uint8_t *)tok.value)[off + n - 1] ^= 1;
            }
            SECRET((uint8_t *)tok.value + off, n);
            if (kind < 2) {
                major = gk5_unwrap(&minor, rx, &tok, &out, &conf, &qop);
                PUBLIC(out.value, out.length);
            } else {
                major = gk5_verify_mic(&minor, rx, &msg, &tok, &qop);
            }
            /* What gk5 returns to its caller is public. */
            PUBLIC(&major, sizeof(major));
            PUBLIC(&minor, sizeof(minor));
            if (forge) {
                expect(major == GK5_S_BAD_SIG, "a forged token was accepted",
                       et);
            } else {
                /* (The forged token before it leaves a gap: GAP_TOKEN.) */
                expect(GK5_ERROR(major) == 0, "a valid token was refused", et);
            }
            gk5_buffer_release(&out);
            gk5_buffer_release(&tok);
            free(msg.value);
        }
    }
    gk5_ctx_free(tx);
    gk5_ctx_free(rx);
}

/* The positive control: an early-exit comparison of a secret. */
static int leaky_compare(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    gk5_enctype_desc d;
    int n = 0;

    if (!RUNNING_ON_VALGRIND) {
        fprintf(stderr, "ct_check: run me under valgrind (tests/ct/run.sh): "
                        "outside it the secret marks do nothing\n");
        return 2;
    }
    if (argc == 2 && strcmp(argv[1], "--control") == 0) {
        uint8_t a[16] = {1, 2, 3}, b[16] = {1, 2, 4};
        SECRET(a, sizeof(a));
        return leaky_compare(a, b, sizeof(a)) == 1 ? 0 : 3;
    }
    for (size_t i = 0; gk5_enctype_row(i, &d) == 0; i++) {
        if (d.state != GK5_ENCTYPE_SUPPORTED) {
            continue;
        }
        fprintf(stderr, "ct_check: %s\n", d.name);
        check_checksum(d.enctype);
        check_decrypt(d.enctype);
        check_tokens(d.enctype, 0);
        if (!rfc1964(d.enctype)) {
            check_tokens(d.enctype, 1);
        }
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "ct_check: no enctype to check\n");
        return 1;
    }
    if (memcmp_calls == 0) {
        fprintf(stderr, "ct_check: gk5 never called CRYPTO_memcmp here: the "
                        "declassification hook is not in place\n");
        return 1;
    }
    if (failures != 0) {
        fprintf(stderr, "ct_check: %d failures\n", failures);
        return 1;
    }
    fprintf(stderr, "ct_check: %d enctypes checked, %lu MAC comparisons\n", n,
            memcmp_calls);
    return 0;
}
