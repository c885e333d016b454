/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_verify_mic (RFC 4121 4.2.6.1 MIC tokens; RFC 1964
 * 1.2.1 for DES3) and gk5_verify_mic_iov, for every enctype, both roles,
 * with and without the acceptor subkey.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h; bit 0x10:
 * verify through gk5_verify_mic_iov with the message in two DATA pieces and
 * a SIGN_ONLY one), then
 *   raw mode:      u16 message length, message, token;
 *   generate mode: flips, u8 (bit 0: flip the message, else the token),
 *                  message.  The peer makes a MIC; the mutated pair must be
 *                  refused, the unmutated one accepted.
 * A MIC accepted once must be reported as a duplicate the second time.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_MESSAGE 4096
#define B1_IOV 0x10u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static uint32_t verify(gk5_ctx *rx, bool use_iov, const uint8_t *msg,
                       size_t msg_len, const uint8_t *tok, size_t tok_len,
                       uint32_t *minor)
{
    uint32_t major, qop = 99;

    if (!use_iov) {
        gk5_buffer m = {msg_len, NULL}, t = {tok_len, NULL};
        m.value = fuzz_dup(msg, msg_len);
        t.value = fuzz_dup(tok, tok_len);
        major = gk5_verify_mic(minor, rx, &m, &t, &qop);
        free(m.value);
        free(t.value);
    } else {
        /* DATA | SIGN_ONLY | DATA is the same byte stream as one DATA:
         * the checksum runs over DATA and SIGN_ONLY in array order. */
        size_t a = msg_len / 3, b = msg_len / 3;
        gk5_iov_buffer iov[4];
        iov[0].type = GK5_IOV_BUFFER_TYPE_DATA;
        iov[0].buffer.length = a;
        iov[0].buffer.value = fuzz_dup(msg, a);
        iov[1].type = GK5_IOV_BUFFER_TYPE_SIGN_ONLY;
        iov[1].buffer.length = b;
        iov[1].buffer.value = fuzz_dup(msg + a, b);
        iov[2].type = GK5_IOV_BUFFER_TYPE_DATA;
        iov[2].buffer.length = msg_len - a - b;
        iov[2].buffer.value = fuzz_dup(msg + a + b, msg_len - a - b);
        iov[3].type = GK5_IOV_BUFFER_TYPE_MIC_TOKEN;
        iov[3].buffer.length = tok_len;
        iov[3].buffer.value = fuzz_dup(tok, tok_len);
        major = gk5_verify_mic_iov(minor, rx, &qop, iov, 4);
        for (int i = 0; i < 4; i++) {
            free(iov[i].buffer.value);
        }
    }
    if (GK5_ERROR(major) == 0 && qop != GK5_QOP_DEFAULT) {
        fuzz_fail("verify_mic: qop is not the default", major, *minor);
    }
    return major;
}

/* Verifies, and on success verifies again and expects a duplicate. */
static uint32_t verify_twice(gk5_ctx *rx, bool use_iov, const uint8_t *msg,
                             size_t msg_len, const uint8_t *tok, size_t tok_len)
{
    uint32_t minor = 0, major, major2;

    major = verify(rx, use_iov, msg, msg_len, tok, tok_len, &minor);
    if (GK5_ERROR(major) == 0) {
        major2 = verify(rx, use_iov, msg, msg_len, tok, tok_len, &minor);
        if (GK5_ERROR(major2) != 0 || (major2 & GK5_S_DUPLICATE_TOKEN) == 0) {
            fuzz_fail("verify_mic: a replayed MIC is not reported as a "
                      "duplicate",
                      major2, minor);
        }
    }
    return major;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;
    gk5_ctx *rx;
    bool use_iov;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1)) {
        return 0;
    }
    use_iov = (b1 & B1_IOV) != 0;
    rx = fuzz_ctx_fresh(&cfg, false);
    if ((b1 & FUZZ_B1_GENERATE) == 0) {
        struct fuzz_in in = {data, size};
        const uint8_t *msg = NULL, *tok = NULL;
        size_t msg_len = fuzz_bytes(&in, &msg, fuzz_u16(&in));
        size_t tok_len = fuzz_bytes(&in, &tok, in.n);
        (void)verify_twice(rx, use_iov, msg, msg_len, tok, tok_len);
    } else {
        struct fuzz_in in = {data, size};
        struct fuzz_flips flips;
        uint8_t which;
        const uint8_t *msg = NULL;
        size_t msg_len;
        gk5_ctx *tx = fuzz_ctx_fresh(&cfg, true);
        gk5_buffer m = {0, NULL}, tok = {0, NULL};
        uint8_t *msg2, *tok2;
        uint32_t minor = 0, major;
        bool changed;

        fuzz_take_flips(&in, &flips);
        which = fuzz_u8(&in);
        msg_len = fuzz_bytes(&in, &msg, MAX_MESSAGE);
        m.value = fuzz_dup(msg, msg_len);
        m.length = msg_len;
        major = gk5_get_mic(&minor, tx, GK5_QOP_DEFAULT, &m, &tok);
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("get_mic on the peer context failed", major, minor);
        }
        msg2 = fuzz_dup(msg, msg_len);
        tok2 = fuzz_dup(tok.value, tok.length);
        changed = (which & 1) != 0 ? fuzz_apply_flips(&flips, msg2, msg_len)
                                   : fuzz_apply_flips(&flips, tok2, tok.length);
        major = verify_twice(rx, use_iov, msg2, msg_len, tok2, tok.length);
        if (!changed && major != GK5_S_COMPLETE) {
            fuzz_fail("a valid MIC was refused", major, minor);
        }
        if (changed && GK5_ERROR(major) == 0) {
            fuzz_fail("a mutated MIC or message was accepted", major, minor);
        }
        free(msg2);
        free(tok2);
        free(m.value);
        gk5_buffer_release(&tok);
        fuzz_ctx_done(&cfg, true, tx);
    }
    fuzz_ctx_done(&cfg, false, rx);
    return 0;
}
