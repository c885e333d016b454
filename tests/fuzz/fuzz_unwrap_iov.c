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
 *                  (possibly with another RRC; RFC 1964 tokens are re-cut
 *                  instead, see recut()) or with gk5_unwrap; it must
 *                  refuse the token or return exactly the plaintext, and an
 *                  unmutated token must be accepted.
 * With B1_MISUSE set the input first goes through misuse(): the peer's
 * sending calls with buffers missing, too short or too many, and the
 * receiver's with a STREAM and no DATA, non-empty PADDING and NULL
 * conf_state.  Each refusal must name the buffer problem and leave the
 * send counter where it was (a refused wrap sends no sequence number).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_PLAINTEXT 4096
#define MAX_IOV 12

#define B1_MISUSE 0x10u
/* One more buffer than iov.c accepts (GK5I_IOV_MAX is 128). */
#define TOO_MANY_IOV 129

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

/* RFC 1964 tokens have no RRC: RECV_STREAM_RRC re-cuts them instead.  The
 * receiver keeps the HEADER and cuts the body (data and pad) into DATA
 * pieces at two points taken from the RRC bytes, so that the pad may end up
 * in DATA, across pieces, with an empty PADDING or none (MIT's padding
 * fix-up).  SIGN_ONLY buffers keep their place in what the checksum covers:
 * one before the body as sent, one at the data/pad boundary; an empty one
 * may follow the body (rrc bit 14), and bit 15 adds an empty PADDING. */
static int recut(const gk5_iov_buffer *tx, const uint8_t *wire, size_t wire_len,
                 size_t pt_len, uint16_t rrc, uint8_t layout,
                 const uint8_t *sign, size_t sign_len, gk5_iov_buffer *rx,
                 bool *owned)
{
    size_t hdr_len = tx[0].buffer.length, body_len, cut[3], nc = 0, at;
    int rn = 0;

    if (hdr_len > wire_len) {
        hdr_len = wire_len;
    }
    body_len = wire_len - hdr_len;
    set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_HEADER, fuzz_dup(wire, hdr_len),
            hdr_len);
    owned[rn++] = true;
    if ((layout & GEN_SIGN_BEFORE) != 0) {
        set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                fuzz_dup(sign, sign_len), sign_len);
        owned[rn++] = true;
    }
    cut[nc++] = body_len - (rrc & 0x7fu) % (body_len + 1);
    cut[nc++] = body_len - ((rrc >> 7) & 0x7fu) % (body_len + 1);
    if ((layout & GEN_SIGN_AFTER) != 0 && pt_len <= body_len) {
        cut[nc++] = pt_len;
    }
    for (size_t i = 1; i < nc; i++) { /* sort the cut points */
        for (size_t j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            size_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    }
    at = 0;
    for (size_t i = 0; i <= nc; i++) {
        size_t end = i < nc ? cut[i] : body_len;

        set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_DATA,
                fuzz_dup(wire + hdr_len + at, end - at), end - at);
        owned[rn++] = true;
        at = end;
        if (i < nc && (layout & GEN_SIGN_AFTER) != 0 && cut[i] == pt_len) {
            set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_SIGN_ONLY,
                    fuzz_dup(sign, sign_len), sign_len);
            owned[rn++] = true;
            layout &= (uint8_t)~GEN_SIGN_AFTER; /* once */
        }
    }
    if ((rrc & 0x4000u) != 0) {
        set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_SIGN_ONLY, fuzz_dup(NULL, 0), 0);
        owned[rn++] = true;
    }
    if ((rrc & 0x8000u) != 0) {
        set_iov(&rx[rn], GK5_IOV_BUFFER_TYPE_PADDING, fuzz_dup(NULL, 0), 0);
        owned[rn++] = true;
    }
    return rn;
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
    if (recv == RECV_STREAM_RRC && !fuzz_rfc1964(cfg->enctype)) {
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
    } else if (recv == RECV_STREAM_RRC && fuzz_rfc1964(cfg->enctype)) {
        rn = recut(tx_iov, wire, wire_len, pt_len, rrc, layout, sign, sign_len,
                   rx_iov, rx_owned);
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

static void expect(const char *what, uint32_t major, uint32_t minor,
                   uint32_t want)
{
    if (GK5_ERROR(major) == 0 || GK5_ERR_CODE(minor) != want) {
        fuzz_fail(what, major, minor);
    }
}

static uint64_t send_seq(gk5_ctx *ctx)
{
    gk5_ctx_info info;
    uint32_t minor = 0, major = gk5_ctx_inquire(&minor, ctx, &info);

    if (major != GK5_S_COMPLETE) {
        fuzz_fail("inquire", major, minor);
    }
    return info.send_seq;
}

/* The sender's refusals: nothing sent, the counter unchanged. */
static void misuse_send(gk5_ctx *tx, int conf_req, bool cfx)
{
    static gk5_iov_buffer many[TOO_MANY_IOV];
    uint8_t hdr[128], pad[16], trl[128], msg[] = "misuse";
    gk5_iov_buffer iov[4];
    uint64_t seq = send_seq(tx);
    uint32_t minor = 0, major, qop = 0;
    size_t in_max = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 1);
    expect("wrap_iov without a HEADER", major, minor, GK5_ERR_BAD_IOV);
    major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 1);
    expect("wrap_iov_length without a HEADER", major, minor, GK5_ERR_BAD_IOV);

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, hdr, 15);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, trl, sizeof(trl));
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 4);
    expect("wrap_iov into a 15-byte HEADER", major, minor,
           GK5_ERR_BUFFER_TOO_SMALL);
    iov[0].buffer.length = sizeof(hdr);
    if (cfx) { /* RFC 1964 tokens have no trailer: PADDING takes the pad */
        iov[3].buffer.length = 1;
        major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 4);
        expect("wrap_iov into a 1-byte TRAILER", major, minor,
               GK5_ERR_BUFFER_TOO_SMALL);
    }

    memset(many, 0, sizeof(many));
    many[0] = iov[0];
    many[1] = iov[1];
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, many, TOO_MANY_IOV);
    expect("wrap_iov with too many buffers", major, minor, GK5_ERR_BAD_IOV);
    major = gk5_get_mic_iov(&minor, tx, 0, many, TOO_MANY_IOV);
    expect("get_mic_iov with too many buffers", major, minor, GK5_ERR_BAD_IOV);
    major = gk5_verify_mic_iov(&minor, tx, &qop, many, TOO_MANY_IOV);
    expect("verify_mic_iov with too many buffers", major, minor,
           GK5_ERR_BAD_IOV);
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, hdr, 10);
    major = gk5_get_mic_iov(&minor, tx, 0, iov, 2);
    expect("get_mic_iov into a 10-byte MIC_TOKEN", major, minor,
           GK5_ERR_BUFFER_TOO_SMALL);
    if (!cfx) { /* RFC 1964 pads inside the token: PADDING or TRAILER */
        set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, hdr, sizeof(hdr));
        set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
        major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 2);
        expect("RFC 1964 wrap_iov without PADDING or TRAILER", major, minor,
               GK5_ERR_BAD_IOV);
        major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 2);
        expect("RFC 1964 wrap_iov_length without PADDING or TRAILER", major,
               minor, GK5_ERR_BAD_IOV);
    }
    if (send_seq(tx) != seq) {
        fuzz_fail("a refused send used a sequence number", 0, 0);
    }

    /* Below the smallest token nothing fits; conf_state is optional. */
    major = gk5_wrap_size_limit(&minor, tx, conf_req, 0, 8, &in_max);
    if (major != GK5_S_COMPLETE || in_max != 0) {
        fuzz_fail("wrap_size_limit below the token overhead", major, minor);
    }
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, NULL, 0);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
    major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 4);
    if (major != GK5_S_COMPLETE || iov[0].buffer.length > sizeof(hdr) ||
        iov[2].buffer.length > sizeof(pad) ||
        iov[3].buffer.length > sizeof(trl)) {
        fuzz_fail("wrap_iov_length without conf_state", major, minor);
    }
    iov[0].buffer.value = hdr;
    iov[2].buffer.value = pad;
    iov[3].buffer.value = trl;
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 4);
    if (major != GK5_S_COMPLETE || send_seq(tx) != seq + 1) {
        fuzz_fail("wrap_iov without conf_state", major, minor);
    }
    /* HEADER | DATA | TRAILER, no PADDING: RFC 4121 needs none, RFC 1964
     * puts its pad in the TRAILER. */
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, msg, sizeof(msg));
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
    major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 3);
    if (major != GK5_S_COMPLETE || iov[0].buffer.length > sizeof(hdr) ||
        iov[2].buffer.length > sizeof(trl)) {
        fuzz_fail("wrap_iov_length without PADDING", major, minor);
    }
    iov[0].buffer.value = hdr;
    iov[2].buffer.value = trl;
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 3);
    if (major != GK5_S_COMPLETE || send_seq(tx) != seq + 2) {
        fuzz_fail("wrap_iov without PADDING", major, minor);
    }
}

/* The receiver's refusals on layouts that name no message. */
static void misuse_receive(gk5_ctx *rx)
{
    uint8_t tok[64], pad[1] = {0};
    gk5_iov_buffer iov[4];
    uint32_t minor = 0, major, qop = 0;

    memset(tok, 0, sizeof(tok));
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_STREAM, tok, sizeof(tok));
    major = gk5_unwrap_iov(&minor, rx, NULL, &qop, iov, 1);
    expect("unwrap_iov of a STREAM without DATA", major, minor,
           GK5_ERR_BAD_IOV);
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, tok, 16);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, tok + 16, 16);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, tok + 32, 32);
    major = gk5_unwrap_iov(&minor, rx, NULL, &qop, iov, 4);
    expect("unwrap_iov with a non-empty PADDING", major, minor,
           GK5_ERR_BAD_IOV);
}

/* conf_state is optional on both sides: a round trip without it, on
 * contexts of its own (the input's receiver keeps its pristine window). */
static void no_conf_state(const struct fuzz_cfg *cfg, int conf_req)
{
    uint8_t buf[128], msg[] = "no conf_state";
    size_t len;
    gk5_ctx *tx = NULL, *rx = NULL;
    gk5_buffer in = {sizeof(msg), msg}, tok = {0, NULL}, out = {0, NULL};
    gk5_iov_buffer iov[2];
    uint32_t minor = 0, major, qop = 0;

    len = fuzz_gssd_buffer(cfg, true, buf, sizeof(buf));
    if (gk5_ctx_import_gssd(&minor, buf, len, &tx) != GK5_S_COMPLETE) {
        fuzz_fail("import of the peer", 0, minor);
    }
    len = fuzz_gssd_buffer(cfg, false, buf, sizeof(buf));
    if (gk5_ctx_import_gssd(&minor, buf, len, &rx) != GK5_S_COMPLETE) {
        fuzz_fail("import of the receiver", 0, minor);
    }
    for (int round = 0; round < 2; round++) {
        major = gk5_wrap(&minor, tx, conf_req, 0, &in, NULL, &tok);
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("wrap without conf_state", major, minor);
        }
        if (round == 0) {
            major = gk5_unwrap(&minor, rx, &tok, &out, NULL, &qop);
        } else {
            set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_STREAM, tok.value, tok.length);
            set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, NULL, 0);
            major = gk5_unwrap_iov(&minor, rx, NULL, &qop, iov, 2);
        }
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("unwrap without conf_state", major, minor);
        }
        gk5_buffer_release(&out);
        gk5_buffer_release(&tok);
    }
    gk5_ctx_free(tx);
    gk5_ctx_free(rx);
}

/* RFC 1964: DATA lengths that add up past SIZE_MAX (the memory behind them
 * is one byte) must be refused before anything is read, and nothing sent;
 * so must a message too long to frame.  (RFC 4121 adds no lengths up: its
 * checksum simply reads what the caller says is there.) */
static void misuse_lengths(gk5_ctx *tx, gk5_ctx *rx, int conf_req)
{
    uint8_t hdr[128] = {0}, pad[16] = {0}, byte = 0;
    gk5_iov_buffer iov[4];
    uint64_t seq = send_seq(tx);
    uint32_t minor = 0, major, qop = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, hdr, sizeof(hdr));
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, &byte, SIZE_MAX / 2 + 1);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_DATA, &byte, SIZE_MAX / 2 + 1);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 4);
    expect("RFC 1964 wrap_iov of DATA longer than memory", major, minor,
           GK5_ERR_BAD_IOV);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, hdr, sizeof(hdr));
    major = gk5_get_mic_iov(&minor, tx, 0, iov + 1, 3);
    expect("RFC 1964 get_mic_iov of DATA longer than memory", major, minor,
           GK5_ERR_BAD_IOV);
    if (send_seq(tx) != seq) {
        fuzz_fail("a refused send of overlong DATA used a number", 0, 0);
    }
    major = gk5_verify_mic_iov(&minor, rx, &qop, iov + 1, 3);
    expect("RFC 1964 verify_mic_iov of DATA longer than memory", major, minor,
           GK5_ERR_BAD_IOV);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
    major = gk5_unwrap_iov(&minor, rx, NULL, &qop, iov, 4);
    expect("RFC 1964 unwrap_iov of DATA longer than memory", major, minor,
           GK5_ERR_BAD_IOV);
    major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 4);
    expect("RFC 1964 wrap_iov_length of DATA longer than memory", major, minor,
           GK5_ERR_BAD_IOV);
    /* Too long to frame: past SIZE_MAX with the pad, past DER's 32 bits. */
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, pad, sizeof(pad));
    for (int i = 0; i < 2; i++) {
        set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, &byte,
                i == 0 ? SIZE_MAX - 8 : (size_t)1 << 33);
        major = gk5_wrap_iov_length(&minor, tx, conf_req, 0, NULL, iov, 3);
        expect("RFC 1964 wrap_iov_length of a message too long to frame", major,
               minor, GK5_ERR_INVALID_ARGUMENT);
        major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 3);
        expect("RFC 1964 wrap_iov of a message too long to frame", major, minor,
               GK5_ERR_INVALID_ARGUMENT);
    }
    /* A PADDING too short for the pad (3 bytes of data: 5 of pad). */
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, hdr + 64, 3);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, pad, 4);
    major = gk5_wrap_iov(&minor, tx, conf_req, 0, NULL, iov, 3);
    expect("RFC 1964 wrap_iov with a 4-byte PADDING", major, minor,
           GK5_ERR_BUFFER_TOO_SMALL);
    if (send_seq(tx) != seq) {
        fuzz_fail("a refused wrap of an unframeable message used a number", 0,
                  0);
    }
    /* DATA and PADDING past SIZE_MAX, or past it with the HEADER. */
    for (int i = 0; i < 2; i++) {
        set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, &byte,
                i == 0 ? SIZE_MAX - 50 : SIZE_MAX - 200);
        set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, pad, 100);
        major = gk5_unwrap_iov(&minor, rx, NULL, &qop, iov, 3);
        expect("RFC 1964 unwrap_iov of a HEADER, DATA and PADDING longer "
               "than memory",
               major, minor, GK5_ERR_BAD_IOV);
    }
}

/* gk5_wrap_size_limit gives the largest message whose token fits: the
 * token of that many bytes fits, one byte more does not; for sizes no test
 * can allocate, the answer is at least below the limit. */
static void size_limits(const struct fuzz_cfg *cfg, int conf_req)
{
    static const size_t limits[] = {0,
                                    1,
                                    12,
                                    13,
                                    40,
                                    56,
                                    57,
                                    60,
                                    63,
                                    64,
                                    65,
                                    71,
                                    72,
                                    73,
                                    80,
                                    127,
                                    128,
                                    129,
                                    130,
                                    200,
                                    255,
                                    256,
                                    257,
                                    300,
                                    999,
                                    1000,
                                    4096,
                                    65535,
                                    65536,
                                    65600,
                                    1u << 24,
                                    SIZE_MAX / 2,
                                    SIZE_MAX - 64,
                                    SIZE_MAX};
    static uint8_t zeros[1100];
    uint8_t buf[128];
    size_t len = fuzz_gssd_buffer(cfg, true, buf, sizeof(buf));
    gk5_ctx *tx = NULL;
    uint32_t minor = 0, major;

    if (gk5_ctx_import_gssd(&minor, buf, len, &tx) != GK5_S_COMPLETE) {
        fuzz_fail("import of the peer", 0, minor);
    }
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        size_t in_max = SIZE_MAX;

        major =
            gk5_wrap_size_limit(&minor, tx, conf_req, 0, limits[i], &in_max);
        if (major != GK5_S_COMPLETE ||
            (limits[i] != 0 && in_max >= limits[i])) {
            fuzz_fail("wrap_size_limit", major, minor);
        }
        if (in_max >= sizeof(zeros)) {
            continue;
        }
        for (size_t n = in_max; n <= in_max + 1; n++) {
            gk5_buffer in = {n, zeros}, tok = {0, NULL};

            if (n == 0 && in_max == 0) {
                continue; /* nothing fits; an empty message may not either */
            }
            major = gk5_wrap(&minor, tx, conf_req, 0, &in, NULL, &tok);
            if (major != GK5_S_COMPLETE) {
                fuzz_fail("wrap for wrap_size_limit", major, minor);
            }
            if ((n == in_max) != (tok.length <= limits[i])) {
                fuzz_fail("wrap_size_limit is not the largest message that "
                          "fits",
                          0, 0);
            }
            gk5_buffer_release(&tok);
        }
    }
    gk5_ctx_free(tx);
}

static void misuse(const struct fuzz_cfg *cfg, gk5_ctx *rx, uint8_t b1)
{
    gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
    int conf_req = (b1 & FUZZ_B1_CONF) != 0;

    misuse_send(tx, conf_req, !fuzz_rfc1964(cfg->enctype));
    if (fuzz_rfc1964(cfg->enctype)) {
        misuse_lengths(tx, rx, conf_req);
    }
    fuzz_ctx_done(cfg, true, tx);
    size_limits(cfg, conf_req);
    if (!fuzz_rfc1964(cfg->enctype)) {
        misuse_receive(rx);
    }
    no_conf_state(cfg, conf_req);
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
    if ((b1 & B1_MISUSE) != 0) {
        misuse(&cfg, rx, b1);
    }
    if ((b1 & FUZZ_B1_GENERATE) != 0) {
        generated(&cfg, rx, b1, data, size);
    } else {
        raw(rx, data, size);
    }
    fuzz_ctx_done(&cfg, false, rx);
    return 0;
}
