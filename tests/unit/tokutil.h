/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Helpers shared by the per-message token tests (test_rfc4121, test_iov,
 * test_invalid_tokens, test_threads): contexts from the rpc.gssd buffer,
 * the built enctypes, RFC 4121 lengths from the crypto API.  Header-only so
 * that each test stays one program.
 */
#ifndef GK5_TESTS_TOKUTIL_H
#define GK5_TESTS_TOKUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include "crypto/crypto_int.h"

#define TOK_GSSD_INITIATOR 0x1u
#define TOK_GSSD_CFX 0x2u
#define TOK_GSSD_SUBKEY 0x4u

/* RFC 4121 2 key usages. */
#define TOK_USAGE_ACCEPTOR_SEAL 22
#define TOK_USAGE_ACCEPTOR_SIGN 23
#define TOK_USAGE_INITIATOR_SEAL 24
#define TOK_USAGE_INITIATOR_SIGN 25

/* The rpc.gssd / gssproxy buffer for the kernel (docs/design.md, "The
 * rpc.gssd context buffer"): host byte order, u32 flags, u32 endtime, u64
 * send_seq, u32 enctype, raw key. */
static inline gk5_ctx *tok_ctx(int32_t enctype, uint32_t flags,
                               uint64_t send_seq, const uint8_t *key,
                               size_t key_len)
{
    uint8_t buf[20 + 64];
    uint32_t endtime = 0, et = (uint32_t)enctype, minor = 0, major;
    gk5_ctx *ctx = NULL;

    assert_true(key_len <= 64);
    memcpy(buf, &flags, 4);
    memcpy(buf + 4, &endtime, 4);
    memcpy(buf + 8, &send_seq, 8);
    memcpy(buf + 16, &et, 4);
    memcpy(buf + 20, key, key_len);
    major = gk5_ctx_import_gssd(&minor, buf, 20 + key_len, &ctx);
    if (major != GK5_S_COMPLETE) {
        fail_msg("import of enctype %d flags 0x%x: %s", (int)enctype,
                 (unsigned)flags, gk5_display_status(major, minor));
    }
    assert_non_null(ctx);
    return ctx;
}

/* Is the enctype's GSS mechanism RFC 1964 (DES3) rather than RFC 4121? */
static inline bool tok_is_rfc1964(int32_t enctype)
{
    const struct gk5_enctype *et = gk5i_enctype_get(enctype);

    return et != NULL && et->rfc1964;
}

/* A fixed test key for an enctype: bytes derived from the enctype number.
 * (DES3 keys need no particular parity here: gk5 uses them as given.) */
static inline size_t tok_key(int32_t enctype, uint8_t key[64])
{
    size_t len = 0;

    assert_int_equal(gk5_c_key_length(enctype, &len), 0);
    for (size_t i = 0; i < len; i++) {
        key[i] = (uint8_t)(0x5a ^ (enctype * 13 + (int32_t)i * 29));
    }
    return len;
}

/* An initiator and an acceptor on one key. */
static inline void tok_pair(int32_t enctype, bool subkey, uint64_t seq,
                            gk5_ctx **init, gk5_ctx **acc)
{
    uint8_t key[64];
    size_t key_len = tok_key(enctype, key);
    uint32_t cfx = tok_is_rfc1964(enctype) ? 0 : TOK_GSSD_CFX;
    uint32_t sub = subkey && cfx != 0 ? TOK_GSSD_SUBKEY : 0;

    *init = tok_ctx(enctype, TOK_GSSD_INITIATOR | cfx | sub, seq, key, key_len);
    *acc = tok_ctx(enctype, cfx | sub, seq, key, key_len);
}

/* The usable enctypes, in table order; returns how many. */
static inline size_t tok_enctypes(int32_t *out, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < gk5_enctype_count(); i++) {
        gk5_enctype_desc d;

        assert_int_equal(gk5_enctype_row(i, &d), 0);
        if (gk5_enctype_check(d.enctype) == 0 && n < max) {
            out[n++] = d.enctype;
        }
    }
    return n;
}

/* RFC 3961 lengths of an enctype: confounder, MAC, checksum. */
struct tok_lens {
    size_t conf, mac, cksum, block;
};

static inline struct tok_lens tok_lens(int32_t enctype)
{
    struct tok_lens l;
    const struct gk5_enctype *et = gk5i_enctype_get(enctype);

    assert_non_null(et);
    assert_int_equal(
        gk5_c_crypto_length(enctype, GK5_CRYPTO_IOV_HEADER, 0, &l.conf), 0);
    assert_int_equal(
        gk5_c_crypto_length(enctype, GK5_CRYPTO_IOV_TRAILER, 0, &l.mac), 0);
    assert_int_equal(gk5_c_checksum_length(enctype, &l.cksum), 0);
    l.block = et->block_bytes;
    return l;
}

/* Rotates p[0..n) right by r mod n (what an RFC 4121 4.2.5 sender does). */
static inline void tok_rotate_right(uint8_t *p, size_t n, size_t r)
{
    uint8_t *tmp;

    if (n == 0 || r % n == 0) {
        return;
    }
    r %= n;
    tmp = malloc(n);
    assert_non_null(tmp);
    memcpy(tmp, p + n - r, r);
    memcpy(tmp + r, p, n - r);
    memcpy(p, tmp, n);
    free(tmp);
}

static inline void tok_fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* Asserts an exact major status and names both sides on failure. */
#define tok_assert_major(got, want, minor)                                     \
    do {                                                                       \
        uint32_t got_ = (got), want_ = (want);                                 \
        if (got_ != want_) {                                                   \
            char w_[256];                                                      \
            snprintf(w_, sizeof(w_), "%s", gk5_display_status(want_, 0));      \
            fail_msg("%s:%d: major 0x%08x (%s), want 0x%08x (%s)", __FILE__,   \
                     __LINE__, (unsigned)got_,                                 \
                     gk5_display_status(got_, (minor)), (unsigned)want_, w_);  \
        }                                                                      \
    } while (0)

#endif /* GK5_TESTS_TOKUTIL_H */
