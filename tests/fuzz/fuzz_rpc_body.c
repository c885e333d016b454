/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the RFC 2203 pieces an RPCSEC_GSS peer reads from the
 * network (src/rpcsec/wire.c): the credential body, and the
 * rpc_gss_integ_data / rpc_gss_priv_data bodies of calls and replies, for
 * every enctype, both roles.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h; CONF picks
 * privacy, else integrity), byte 2 bit 0: the rest is a credential body;
 * then
 *   raw mode:      u32 want_seq, the body;
 *   generate mode: u32 seq, flips, payload.  The peer seals seq + payload,
 *                  the encoding is mutated, and opening it must either
 *                  fail or give back exactly the payload (an unmutated
 *                  encoding must open).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "rpcsec/rpcsec_int.h"

#define MAX_PAYLOAD 4096

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static void fuzz_cred(const uint8_t *data, size_t size)
{
    uint8_t *body = fuzz_dup(data, size);
    uint8_t again[GK5I_RPC_MAX_AUTH_BYTES];
    gk5i_rpc_cred cred;
    gk5_rpc_error err;

    if (gk5i_rpc_cred_decode(body, size, &cred, &err) == 0) {
        /* What decodes re-encodes to the same bytes. */
        size_t n = gk5i_rpc_cred_encode(&cred, again, sizeof(again));
        if (size <= GK5I_RPC_MAX_AUTH_BYTES &&
            (n != size || memcmp(again, body, size) != 0)) {
            /* Differences are allowed only in the handle's XDR padding. */
            if (n != size || memcmp(again, body, 20 + cred.handle_len) != 0) {
                fuzz_fail("credential: decode and encode disagree", 0, 0);
            }
        }
    } else if (err.text[0] == '\0') {
        fuzz_fail("credential: refused without words", 0, 0);
    }
    free(body);
}

static int open_body(gk5_ctx *rx, gk5_rpc_service svc, uint32_t seq,
                     uint8_t *body, size_t len, uint8_t **data,
                     size_t *data_len)
{
    size_t used = 0;
    gk5_rpc_error err;

    memset(&err, 0, sizeof(err));
    int r = gk5i_rpc_body_open(rx, svc, seq, body, len, MAX_PAYLOAD * 2, data,
                               data_len, &used, &err);
    if (r == 0) {
        if (used > len || *data < body || *data + *data_len > body + len) {
            fuzz_fail("body: the plaintext is outside the body", 0, 0);
        }
    } else if (err.text[0] == '\0' || err.code == GK5_RPC_OK) {
        fuzz_fail("body: refused without an error", 0, 0);
    }
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1) || size < 1) {
        return 0;
    }
    uint8_t b2 = data[0];
    data++;
    size--;
    if ((b2 & 1) != 0) {
        fuzz_cred(data, size);
        return 0;
    }
    gk5_rpc_service svc =
        (b1 & FUZZ_B1_CONF) != 0 ? GK5_RPC_SVC_PRIVACY : GK5_RPC_SVC_INTEGRITY;
    gk5_ctx *rx = fuzz_ctx_fresh(&cfg, false);
    struct fuzz_in in = {data, size};
    uint32_t seq = fuzz_u32(&in);
    uint8_t *out = NULL;
    size_t out_len = 0;

    if ((b1 & FUZZ_B1_GENERATE) == 0) {
        const uint8_t *p = NULL;
        size_t n = fuzz_bytes(&in, &p, SIZE_MAX);
        uint8_t *body = fuzz_dup(p, n);
        (void)open_body(rx, svc, seq, body, n, &out, &out_len);
        free(body);
        fuzz_ctx_done(&cfg, false, rx);
        return 0;
    }

    gk5_ctx *tx = fuzz_ctx_fresh(&cfg, true);
    struct fuzz_flips flips;
    const uint8_t *payload = NULL;
    fuzz_take_flips(&in, &flips);
    size_t n = fuzz_bytes(&in, &payload, MAX_PAYLOAD);
    size_t head = 0, tail = 0, off = 0, enc_len = 0;
    gk5_rpc_error err;

    if (gk5i_rpc_body_room(tx, svc, 4 + n, &head, &tail, &err) != 0) {
        fuzz_fail("body_room failed", err.major, err.minor);
    }
    size_t cap = head + 4 + n + tail;
    uint8_t *base = fuzz_dup(NULL, cap);
    gk5i_put32(base + head, seq);
    if (n > 0) {
        memcpy(base + head + 4, payload, n);
    }
    if (gk5i_rpc_body_seal(tx, svc, base, head, 4 + n, cap, &off, &enc_len,
                           &err) != 0) {
        fuzz_fail("body_seal failed", err.major, err.minor);
    }
    uint8_t *enc = fuzz_dup(base + off, enc_len);
    bool changed = fuzz_apply_flips(&flips, enc, enc_len);
    int r = open_body(rx, svc, seq, enc, enc_len, &out, &out_len);
    if (r == 0) {
        if (out_len != n || (n > 0 && memcmp(out, payload, n) != 0)) {
            fuzz_fail("body: opened to other bytes than were sealed", 0, 0);
        }
    } else if (!changed) {
        fuzz_fail("body: an unmutated body did not open", 0, 0);
    }
    free(enc);
    free(base);
    fuzz_ctx_done(&cfg, true, tx);
    fuzz_ctx_done(&cfg, false, rx);
    return 0;
}
