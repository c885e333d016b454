/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_unwrap_iov (RFC 4121 4.2.4 layout, MIT's
 * gss_unwrap_iov buffer semantics) for every enctype, both roles, with and
 * without the acceptor subkey.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h), then
 *   raw mode:      u8 layout, u16 split, u16 split, u8 sign-only length,
 *                  sign-only bytes, the token (cut into the layout's
 *                  buffers at the split points);
 *   generate mode: u8 layout, u8 DATA pieces, u16 RRC, flips, u8 sign-only
 *                  length, sign-only bytes, plaintext.  The peer wraps with
 *                  gk5_wrap_iov, the wire bytes are mutated, and the
 *                  receiver unwraps them in the same layout, as a STREAM
 *                  (possibly with another RRC) or with gk5_unwrap; it must
 *                  refuse the token or return exactly the plaintext, and an
 *                  unmutated token must be accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_PLAINTEXT 4096
#define MAX_IOV 12

/* Raw layouts. */
enum { RAW_STREAM, RAW_HDT, RAW_HD, RAW_HDPT };
/* Generate-mode layout byte. */
#define GEN_NO_TRAILER 0x01u   /* HEADER|DATA|PADDING: RRC-rotated token */
#define GEN_ALLOCATE 0x02u     /* let gk5 allocate HEADER/PADDING/TRAILER */
#define GEN_SIGN_BEFORE 0x04u  /* a SIGN_ONLY buffer before the data */
#define GEN_SIGN_AFTER 0x08u   /* and/or after it */
#define GEN_RECV_SHIFT 4       /* bits 4-5: how the receiver takes it */
#define GEN_OUT_ALLOCATE 0x40u /* STREAM receive: DATA with ALLOCATE */
enum { RECV_SAME, RECV_STREAM, RECV_STREAM_RRC, RECV_CONTIGUOUS };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static void set_iov(gk5_iov_buffer *b, uint32_t type, uint8_t *p, size_t n)
{
    b->type = type;
    b->buffer.value = p;
    b->buffer.length = n;
}

/* Frees the buffers we allocated (fuzz_dup) after gk5_release_iov has
 * freed gk5's; owned[i] says which are ours. */
static void free_iov(gk5_iov_buffer *iov, const bool *owned, int n)
{
    gk5_release_iov(iov, n);
    for (int i = 0; i < n; i++) {
        if (owned[i]) {
            free(iov[i].buffer.value);
        }
        iov[i].buffer.value = NULL;
        iov[i].buffer.length = 0;
    }
}

static void raw(gk5_ctx *rx, const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint8_t layout = fuzz_u8(&in);
    size_t s1 = fuzz_u16(&in), s2 = fuzz_u16(&in);
    size_t sign_len;
    const uint8_t *sign = NULL, *tok = NULL;
    size_t tok_len;
    gk5_iov_buffer iov[MAX_IOV];
    bool owned[MAX_IOV] = {false};
    uint32_t minor = 0, major, qop = 0;
    int n = 0, conf = -1;

    sign_len = fuzz_bytes(&in, &sign, fuzz_u8(&in));
    tok_len = fuzz_bytes(&in, &tok, MAX_PLAINTEXT * 2);
    if (s1 > tok_len) {
        s1 = tok_len;
    }
    if (s2 > tok_len - s1) {
        s2 = tok_len - s1;
    }
    memset(iov, 0, sizeof(iov));
    switch (layout & 3) {
    case RAW_STREAM:
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_STREAM, fuzz_dup(tok, tok_len),
                tok_len);
        owned[n++] = true;
        if ((layout & 4) != 0) {
            set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                    fuzz_dup(sign, sign_len), sign_len);
            owned[n++] = true;
        }
        set_iov(&iov[n++],
                GK5_IOV_BUFFER_TYPE_DATA |
                    ((layout & 8) != 0 ? GK5_IOV_BUFFER_FLAG_ALLOCATE : 0),
                NULL, 0);
        break;
    case RAW_HDT:
    case RAW_HD:
    case RAW_HDPT:
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_HEADER, fuzz_dup(tok, s1), s1);
        owned[n++] = true;
        if ((layout & 4) != 0) {
            set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                    fuzz_dup(sign, sign_len), sign_len);
            owned[n++] = true;
        }
        if ((layout & 3) == RAW_HD) {
            s2 = tok_len - s1;
        }
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_DATA, fuzz_dup(tok + s1, s2), s2);
        owned[n++] = true;
        if ((layout & 3) == RAW_HDPT) {
            set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_PADDING, fuzz_dup(NULL, 0), 0);
            owned[n++] = true;
        }
        if ((layout & 3) != RAW_HD) {
            set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_TRAILER,
                    fuzz_dup(tok + s1 + s2, tok_len - s1 - s2),
                    tok_len - s1 - s2);
            owned[n++] = true;
        }
        break;
    }
    major = gk5_unwrap_iov(&minor, rx, &conf, &qop, iov, n);
    (void)major;
    free_iov(iov, owned, n);
}

/* The generate mode's wrap: fills iov/owned/n with the sender's buffers. */
static int wrap_iov(const struct fuzz_cfg *cfg, int conf_req, uint8_t layout,
                    unsigned pieces, const uint8_t *pt, size_t pt_len,
                    const uint8_t *sign, size_t sign_len, gk5_iov_buffer *iov,
                    bool *owned)
{
    gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
    uint32_t alloc =
        (layout & GEN_ALLOCATE) != 0 ? GK5_IOV_BUFFER_FLAG_ALLOCATE : 0;
    uint32_t minor = 0, major;
    int n = 0, conf_state = -1;
    size_t off = 0;

    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_HEADER | alloc, NULL, 0);
    if ((layout & GEN_SIGN_BEFORE) != 0) {
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                fuzz_dup(sign, sign_len), sign_len);
        owned[n++] = true;
    }
    for (unsigned i = 0; i < pieces; i++) {
        size_t len = i + 1 == pieces ? pt_len - off : pt_len / pieces;
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_DATA, fuzz_dup(pt + off, len),
                len);
        owned[n++] = true;
        off += len;
    }
    if ((layout & GEN_SIGN_AFTER) != 0) {
        set_iov(&iov[n], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                fuzz_dup(sign, sign_len), sign_len);
        owned[n++] = true;
    }
    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_PADDING | alloc, NULL, 0);
    if ((layout & GEN_NO_TRAILER) == 0) {
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_TRAILER | alloc, NULL, 0);
    }
    if (alloc == 0) {
        /* Sizes first, then our own buffers. */
        major = gk5_wrap_iov_length(&minor, tx, conf_req, GK5_QOP_DEFAULT,
                                    &conf_state, iov, n);
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("wrap_iov_length on the peer context failed", major,
                      minor);
        }
        for (int i = 0; i < n; i++) {
            uint32_t t = GK5_IOV_BUFFER_TYPE(iov[i].type);
            if (t == GK5_IOV_BUFFER_TYPE_HEADER ||
                t == GK5_IOV_BUFFER_TYPE_PADDING ||
                t == GK5_IOV_BUFFER_TYPE_TRAILER) {
                iov[i].buffer.value = fuzz_dup(NULL, iov[i].buffer.length);
                owned[i] = true;
            }
        }
    }
    conf_state = -1;
    major = gk5_wrap_iov(&minor, tx, conf_req, GK5_QOP_DEFAULT, &conf_state,
                         iov, n);
    if (major != GK5_S_COMPLETE || conf_state != conf_req) {
        fuzz_fail("wrap_iov on the peer context failed", major, minor);
    }
    fuzz_ctx_done(cfg, true, tx);
    return n;
}

static bool is_wire(uint32_t type)
{
    uint32_t t = GK5_IOV_BUFFER_TYPE(type);

    return t == GK5_IOV_BUFFER_TYPE_HEADER || t == GK5_IOV_BUFFER_TYPE_DATA ||
           t == GK5_IOV_BUFFER_TYPE_PADDING || t == GK5_IOV_BUFFER_TYPE_TRAILER;
}

static void generated(const struct fuzz_cfg *cfg, gk5_ctx *rx, uint8_t b1,
                      const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint8_t layout = fuzz_u8(&in);
    unsigned pieces = 1 + fuzz_u8(&in) % 4;
    uint16_t rrc = fuzz_u16(&in);
    int recv = (layout >> GEN_RECV_SHIFT) & 3;
    int conf_req = (b1 & FUZZ_B1_CONF) != 0;
    bool has_sign = (layout & (GEN_SIGN_BEFORE | GEN_SIGN_AFTER)) != 0;
    struct fuzz_flips flips;
    const uint8_t *pt = NULL, *sign = NULL;
    size_t pt_len, sign_len, wire_len = 0, off = 0;
    gk5_iov_buffer tx_iov[MAX_IOV], rx_iov[MAX_IOV];
    bool tx_owned[MAX_IOV] = {false}, rx_owned[MAX_IOV] = {false};
    uint8_t *wire, *got = NULL;
    size_t got_len = 0;
    uint32_t minor = 0, major, qop = 0;
    int n, rn = 0, conf_state = -1;
    bool changed;

    fuzz_take_flips(&in, &flips);
    sign_len = fuzz_bytes(&in, &sign, fuzz_u8(&in));
    pt_len = fuzz_bytes(&in, &pt, MAX_PLAINTEXT);
    if (recv == RECV_CONTIGUOUS && has_sign) {
        recv = RECV_STREAM; /* gk5_unwrap has no place for SIGN_ONLY data */
    }
    memset(tx_iov, 0, sizeof(tx_iov));
    memset(rx_iov, 0, sizeof(rx_iov));
    n = wrap_iov(cfg, conf_req, layout, pieces, pt, pt_len, sign, sign_len,
                 tx_iov, tx_owned);

    /* The wire: HEADER | DATA... | PADDING | TRAILER in array order. */
    for (int i = 0; i < n; i++) {
        if (is_wire(tx_iov[i].type)) {
            wire_len += tx_iov[i].buffer.length;
        }
    }
    wire = fuzz_dup(NULL, wire_len);
    for (int i = 0; i < n; i++) {
        if (is_wire(tx_iov[i].type) && tx_iov[i].buffer.length != 0) {
            memcpy(wire + off, tx_iov[i].buffer.value, tx_iov[i].buffer.length);
            off += tx_iov[i].buffer.length;
        }
    }
    if (recv == RECV_STREAM_RRC && cfg->enctype != 16) {
        fuzz_set_rrc(wire, wire_len, rrc);
    }
    changed = fuzz_apply_flips(&flips, wire, wire_len);

    if (recv == RECV_SAME) {
        off = 0;
        for (int i = 0; i < n; i++) {
            size_t len = tx_iov[i].buffer.length;
            const uint8_t *src = tx_iov[i].buffer.value;
            if (is_wire(tx_iov[i].type)) {
                src = wire + off;
                off += len;
            }
            set_iov(&rx_iov[rn], GK5_IOV_BUFFER_TYPE(tx_iov[i].type),
                    fuzz_dup(src, len), len);
            rx_owned[rn++] = true;
        }
    } else if (recv == RECV_STREAM || recv == RECV_STREAM_RRC) {
        set_iov(&rx_iov[rn], GK5_IOV_BUFFER_TYPE_STREAM,
                fuzz_dup(wire, wire_len), wire_len);
        rx_owned[rn++] = true;
        if ((layout & GEN_SIGN_BEFORE) != 0) {
            set_iov(&rx_iov[rn], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                    fuzz_dup(sign, sign_len), sign_len);
            rx_owned[rn++] = true;
        }
        set_iov(&rx_iov[rn++],
                GK5_IOV_BUFFER_TYPE_DATA | ((layout & GEN_OUT_ALLOCATE) != 0
                                                ? GK5_IOV_BUFFER_FLAG_ALLOCATE
                                                : 0),
                NULL, 0);
        if ((layout & GEN_SIGN_AFTER) != 0) {
            set_iov(&rx_iov[rn], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                    fuzz_dup(sign, sign_len), sign_len);
            rx_owned[rn++] = true;
        }
    }

    if (recv == RECV_CONTIGUOUS) {
        gk5_buffer tok = {wire_len, wire}, out = {0, NULL};
        major = gk5_unwrap(&minor, rx, &tok, &out, &conf_state, &qop);
        if (GK5_ERROR(major) == 0) {
            got = fuzz_dup(out.value, out.length);
            got_len = out.length;
        }
        gk5_buffer_release(&out);
    } else {
        major = gk5_unwrap_iov(&minor, rx, &conf_state, &qop, rx_iov, rn);
        if (GK5_ERROR(major) == 0) {
            for (int i = 0; i < rn; i++) {
                if (GK5_IOV_BUFFER_TYPE(rx_iov[i].type) ==
                    GK5_IOV_BUFFER_TYPE_DATA) {
                    got_len += rx_iov[i].buffer.length;
                }
            }
            got = fuzz_dup(NULL, got_len);
            off = 0;
            for (int i = 0; i < rn; i++) {
                if (GK5_IOV_BUFFER_TYPE(rx_iov[i].type) ==
                        GK5_IOV_BUFFER_TYPE_DATA &&
                    rx_iov[i].buffer.length != 0) {
                    memcpy(got + off, rx_iov[i].buffer.value,
                           rx_iov[i].buffer.length);
                    off += rx_iov[i].buffer.length;
                }
            }
        }
    }
    if (!changed && major != GK5_S_COMPLETE) {
        fuzz_fail("a valid IOV token was refused", major, minor);
    }
    if (GK5_ERROR(major) == 0 &&
        (got_len != pt_len || (pt_len != 0 && memcmp(got, pt, pt_len) != 0) ||
         conf_state != conf_req || qop != GK5_QOP_DEFAULT)) {
        fuzz_fail("a mutated IOV token was accepted with other contents", major,
                  minor);
    }
    free(got);
    free(wire);
    free_iov(rx_iov, rx_owned, rn);
    free_iov(tx_iov, tx_owned, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;
    gk5_ctx *rx;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1)) {
        return 0;
    }
    rx = fuzz_ctx_fresh(&cfg, false);
    if ((b1 & FUZZ_B1_GENERATE) != 0) {
        generated(&cfg, rx, b1, data, size);
    } else {
        raw(rx, data, size);
    }
    fuzz_ctx_done(&cfg, false, rx);
    return 0;
}
