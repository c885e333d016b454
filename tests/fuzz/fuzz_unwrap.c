/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_unwrap (RFC 4121 4.2.6.2 Wrap tokens; RFC 1964
 * 1.2.2 for DES3) for every enctype, both roles, with and without the
 * acceptor subkey.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h), then
 *   raw mode:      the token;
 *   generate mode: u16 RRC, u8 (bit 0: re-rotate to that RRC), flips,
 *                  plaintext.  The peer context wraps the plaintext, the
 *                  token is rotated and mutated, and gk5_unwrap must either
 *                  refuse it or return exactly the plaintext (an unmutated
 *                  token, whatever its RRC, must be accepted).
 * A token accepted once must be reported as a duplicate the second time.
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

/* Unwraps tok on rx; on success checks the replay report and returns the
 * plaintext in *out (caller releases). */
static uint32_t unwrap_twice(gk5_ctx *rx, const uint8_t *tok, size_t len,
                             gk5_buffer *out, int *conf_state)
{
    gk5_buffer in = {len, NULL};
    gk5_buffer again = {0, NULL};
    uint32_t minor = 0, major, major2, qop = 99;
    int conf2 = -1;

    in.value = fuzz_dup(tok, len);
    major = gk5_unwrap(&minor, rx, &in, out, conf_state, &qop);
    if (GK5_ERROR(major) == 0) {
        if (qop != GK5_QOP_DEFAULT) {
            fuzz_fail("unwrap: qop is not the default", major, minor);
        }
        if (out->length != 0 && out->value == NULL) {
            fuzz_fail("unwrap: output without a value", major, minor);
        }
        major2 = gk5_unwrap(&minor, rx, &in, &again, &conf2, &qop);
        if (GK5_ERROR(major2) != 0 || (major2 & GK5_S_DUPLICATE_TOKEN) == 0) {
            fuzz_fail("unwrap: a replayed token is not reported as a "
                      "duplicate",
                      major2, minor);
        }
        gk5_buffer_release(&again);
    } else if (out->length != 0 || out->value != NULL) {
        fuzz_fail("unwrap: output written on failure", major, minor);
    }
    free(in.value);
    return major;
}

static void raw(gk5_ctx *rx, const uint8_t *data, size_t size)
{
    gk5_buffer out = {0, NULL};
    int conf = -1;

    (void)unwrap_twice(rx, data, size, &out, &conf);
    gk5_buffer_release(&out);
}

static void generated(const struct fuzz_cfg *cfg, gk5_ctx *rx, uint8_t b1,
                      const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint16_t rrc = fuzz_u16(&in);
    uint8_t how = fuzz_u8(&in);
    struct fuzz_flips flips;
    const uint8_t *pt = NULL;
    size_t pt_len;
    int conf_req = (b1 & FUZZ_B1_CONF) != 0;
    gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
    gk5_buffer msg = {0, NULL}, tok = {0, NULL}, out = {0, NULL};
    uint8_t *wire = NULL;
    uint32_t minor = 0, major;
    int conf_state = -1;
    bool changed;

    fuzz_take_flips(&in, &flips);
    pt_len = fuzz_bytes(&in, &pt, MAX_PLAINTEXT);
    msg.value = fuzz_dup(pt, pt_len);
    msg.length = pt_len;
    major = gk5_wrap(&minor, tx, conf_req, GK5_QOP_DEFAULT, &msg, &conf_state,
                     &tok);
    if (major != GK5_S_COMPLETE || conf_state != conf_req) {
        fuzz_fail("wrap on the peer context failed", major, minor);
    }
    wire = fuzz_dup(tok.value, tok.length);
    if (!fuzz_rfc1964(cfg->enctype) && (how & 1) != 0) {
        fuzz_set_rrc(wire, tok.length, rrc);
    }
    changed = fuzz_apply_flips(&flips, wire, tok.length);

    conf_state = -1;
    major = unwrap_twice(rx, wire, tok.length, &out, &conf_state);
    if (!changed && major != GK5_S_COMPLETE) {
        fuzz_fail("a valid token was refused", major, minor);
    }
    if (GK5_ERROR(major) == 0 &&
        (out.length != pt_len ||
         (pt_len != 0 && memcmp(out.value, pt, pt_len) != 0) ||
         conf_state != conf_req)) {
        fuzz_fail("a mutated token was accepted with other contents", major,
                  minor);
    }
    gk5_buffer_release(&out);
    gk5_buffer_release(&tok);
    free(wire);
    free(msg.value);
    fuzz_ctx_done(cfg, true, tx);
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
