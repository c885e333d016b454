/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Differential libFuzzer target: the same bytes go to gk5_unwrap and to MIT
 * krb5's gss_unwrap on the same context (same key, role, acceptor subkey,
 * sequence numbers), and the two must agree on accept/reject and, when both
 * accept, on the plaintext and conf_state.  One known difference is not
 * compared: a Wrap token whose AcceptorSubkey flag names a key the context
 * lacks, which gk5 refuses (as Heimdal does) and MIT may accept; for those
 * gk5's refusal and its words are checked (claims_missing_subkey).
 *
 * MIT's context is built without a KDC by importing a hand-written
 * interprocess token (mit_ctx.c).  Replay and sequence detection are off on
 * both sides: gk5's receive window starts at the first authenticated token
 * and MIT's at the initial sequence number, so their supplementary bits
 * differ by design; fresh contexts are made for every input.
 *
 * Input: byte 0 enctype, byte 1 FUZZ_B1_* bits (fuzz_common.h) plus
 * B1_MIT_SENDS, then
 *   raw mode:      the token;
 *   generate mode: u16 RRC, u8 (bit 0: re-rotate to that RRC), flips,
 *                  plaintext.  The peer (gk5 or MIT) wraps the plaintext;
 *                  the token is rotated and mutated.  Unmutated, both must
 *                  accept it (interop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi.h>

#include "fuzz_common.h"
#include "mit_ctx.h"

#define MAX_PLAINTEXT 4096
#define B1_MIT_SENDS 0x10u

/* Send sequence numbers, as in fuzz_common.c's pristine contexts. */
#define SEQ_INITIATOR 1000u
#define SEQ_ACCEPTOR 2000u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* No site krb5.conf: the same behaviour on every machine. */
    setenv("KRB5_CONFIG", "/dev/null", 1);
    fuzz_init();
    return 0;
}

static gss_ctx_id_t mit_fresh(const struct fuzz_cfg *cfg, bool peer)
{
    uint8_t key[64], other[64];
    bool initiator = peer ? !cfg->initiator : cfg->initiator;
    struct mit_ctx_params p;
    gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;
    OM_uint32 major;

    memset(&p, 0, sizeof(p));
    p.enctype = cfg->enctype;
    p.key = key;
    p.key_len = fuzz_seed_key(cfg->enctype, 0, key, sizeof(key));
    p.other_key = other;
    (void)fuzz_seed_key(cfg->enctype, 1, other, sizeof(other));
    p.initiator = initiator;
    p.acceptor_subkey = cfg->acceptor_subkey;
    p.send_seq = initiator ? SEQ_INITIATOR : SEQ_ACCEPTOR;
    p.recv_seq = initiator ? SEQ_ACCEPTOR : SEQ_INITIATOR;
    major = mit_ctx_import(&p, &ctx);
    if (major != GSS_S_COMPLETE) {
        fuzz_fail("MIT gss_import_sec_context of the fixed context failed",
                  major, 0);
    }
    return ctx;
}

static gk5_ctx *gk5_fresh_noseq(const struct fuzz_cfg *cfg, bool peer)
{
    gk5_ctx *ctx = fuzz_ctx_fresh(cfg, peer);
    uint32_t minor = 0, major;

    major = gk5_ctx_set_flags(&minor, ctx, 0);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("gk5_ctx_set_flags failed", major, minor);
    }
    return ctx;
}

/* Back to the pristine options (an import turns both on), then to
 * fuzz_ctx_done, which keeps the context only if nothing else changed. */
static void gk5_done(const struct fuzz_cfg *cfg, bool peer, gk5_ctx *ctx)
{
    uint32_t minor = 0, major;

    major = gk5_ctx_set_flags(&minor, ctx, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("gk5_ctx_set_flags failed", major, minor);
    }
    fuzz_ctx_done(cfg, peer, ctx);
}

struct result {
    bool ok;
    uint32_t major;
    uint32_t minor; /* gk5's only */
    uint8_t *pt;
    size_t len;
    int conf;
};

static void run_gk5(const struct fuzz_cfg *cfg, const uint8_t *tok, size_t len,
                    struct result *r)
{
    gk5_ctx *rx = gk5_fresh_noseq(cfg, false);
    gk5_buffer in = {len, NULL}, out = {0, NULL};
    uint32_t minor = 0, qop = 0;

    in.value = fuzz_dup(tok, len);
    r->conf = -1;
    r->major = gk5_unwrap(&minor, rx, &in, &out, &r->conf, &qop);
    r->minor = minor;
    r->ok = GK5_ERROR(r->major) == 0;
    r->pt = r->ok ? fuzz_dup(out.value, out.length) : NULL;
    r->len = r->ok ? out.length : 0;
    gk5_buffer_release(&out);
    free(in.value);
    gk5_done(cfg, false, rx);
}

static void run_mit(const struct fuzz_cfg *cfg, const uint8_t *tok, size_t len,
                    struct result *r)
{
    gss_ctx_id_t rx = mit_fresh(cfg, false);
    gss_buffer_desc in, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 minor = 0;
    gss_qop_t qop = 0;

    in.value = fuzz_dup(tok, len);
    in.length = len;
    r->conf = -1;
    r->major = gss_unwrap(&minor, rx, &in, &out, &r->conf, &qop);
    r->ok = GSS_ERROR(r->major) == 0;
    r->pt = r->ok ? fuzz_dup(out.value, out.length) : NULL;
    r->len = r->ok ? out.length : 0;
    (void)gss_release_buffer(&minor, &out);
    if (out.value != NULL) {
        /* MIT krb5 1.20's gss_unwrap returns a malloc(0) buffer for an
         * empty integrity-only RFC 4121 message, and its gss_release_buffer
         * frees nothing of length 0: free it here (gssalloc is malloc). */
        free(out.value);
    }
    free(in.value);
    (void)gss_delete_sec_context(&minor, &rx, GSS_C_NO_BUFFER);
}

static void dump(const char *name, const uint8_t *p, size_t n)
{
    fprintf(stderr, "%s (%zu):", name, n);
    for (size_t i = 0; i < n && i < 256; i++) {
        fprintf(stderr, "%s%02x", i % 32 == 0 ? "\n  " : "", p[i]);
    }
    fprintf(stderr, "\n");
}

/* An RFC 4121 Wrap token whose AcceptorSubkey flag claims a key the
 * receiving context does not have.  gk5 refuses it, as Heimdal does (RFC
 * 4121 4.2.2: the flag says which key protects the token); MIT, holding no
 * acceptor subkey, ignores the flag and may accept the token under the key
 * it has.  Only gk5's refusal is checked for these, and its words: past
 * the token ID, the length and the direction, the flag itself. */
static bool claims_missing_subkey(const struct fuzz_cfg *cfg,
                                  const uint8_t *tok, size_t len)
{
    return !fuzz_rfc1964(cfg->enctype) && !cfg->acceptor_subkey && len >= 3 &&
           tok[0] == 0x05 && tok[1] == 0x04 && (tok[2] & 0x04) != 0;
}

static void check_missing_subkey(const struct fuzz_cfg *cfg, const uint8_t *tok,
                                 size_t len, const struct result *g)
{
    /* SentByAcceptor as the receiver wants it (check_header's order). */
    bool dir_ok = ((tok[2] & 0x01) != 0) == cfg->initiator;

    if (g->ok) {
        dump("token", tok, len);
        fuzz_fail("gk5 accepted a token claiming an acceptor subkey it "
                  "does not hold",
                  g->major, g->minor);
    }
    if (len >= 16 && dir_ok &&
        (g->major != GK5_S_DEFECTIVE_TOKEN ||
         g->minor != GK5_ERR_TOKEN_SUBKEY_FLAG)) {
        dump("token", tok, len);
        fuzz_fail("gk5 refused a token claiming a missing acceptor subkey, "
                  "but not for its flag",
                  g->major, g->minor);
    }
}

/* Compares the two results; generated && !changed: both must accept. */
static void compare(const struct fuzz_cfg *cfg, const uint8_t *tok, size_t len,
                    bool must_accept, const uint8_t *pt, size_t pt_len)
{
    struct result g, m;

    run_gk5(cfg, tok, len, &g);
    if (claims_missing_subkey(cfg, tok, len)) {
        if (must_accept) {
            fuzz_fail("a generated token claims an acceptor subkey its "
                      "context does not have",
                      g.major, g.minor);
        }
        check_missing_subkey(cfg, tok, len, &g);
        free(g.pt);
        return;
    }
    run_mit(cfg, tok, len, &m);
    if (g.ok != m.ok ||
        (g.ok && (g.len != m.len || g.conf != m.conf ||
                  (g.len != 0 && memcmp(g.pt, m.pt, g.len) != 0))) ||
        (must_accept && !g.ok) ||
        (pt != NULL && g.ok &&
         (g.len != pt_len || (pt_len != 0 && memcmp(g.pt, pt, pt_len) != 0)))) {
        fprintf(stderr,
                "enctype %d, receiver %s, acceptor subkey %d\n"
                "gk5: major 0x%08x conf %d; MIT: major 0x%08x conf %d\n",
                (int)cfg->enctype, cfg->initiator ? "initiator" : "acceptor",
                (int)cfg->acceptor_subkey, (unsigned)g.major, g.conf,
                (unsigned)m.major, m.conf);
        dump("token", tok, len);
        if (g.ok) {
            dump("gk5 plaintext", g.pt, g.len);
        }
        if (m.ok) {
            dump("MIT plaintext", m.pt, m.len);
        }
        fuzz_fail(must_accept && !g.ok && !m.ok
                      ? "neither gk5 nor MIT accepts a valid token"
                      : "gk5 and MIT disagree",
                  g.major, 0);
    }
    free(g.pt);
    free(m.pt);
}

static void generated(const struct fuzz_cfg *cfg, uint8_t b1,
                      const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint16_t rrc = fuzz_u16(&in);
    uint8_t how = fuzz_u8(&in);
    struct fuzz_flips flips;
    const uint8_t *pt = NULL;
    size_t pt_len, tok_len;
    int conf_req = (b1 & FUZZ_B1_CONF) != 0, conf_state = -1;
    uint8_t *wire;
    bool changed;

    fuzz_take_flips(&in, &flips);
    pt_len = fuzz_bytes(&in, &pt, MAX_PLAINTEXT);
    if ((b1 & B1_MIT_SENDS) != 0) {
        gss_ctx_id_t tx = mit_fresh(cfg, true);
        gss_buffer_desc msg, tok = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0, major;

        msg.value = fuzz_dup(pt, pt_len);
        msg.length = pt_len;
        major = gss_wrap(&minor, tx, conf_req, GSS_C_QOP_DEFAULT, &msg,
                         &conf_state, &tok);
        if (major != GSS_S_COMPLETE) {
            fuzz_fail("MIT gss_wrap on the peer context failed", major, minor);
        }
        wire = fuzz_dup(tok.value, tok.length);
        tok_len = tok.length;
        free(msg.value);
        (void)gss_release_buffer(&minor, &tok);
        (void)gss_delete_sec_context(&minor, &tx, GSS_C_NO_BUFFER);
    } else {
        gk5_ctx *tx = gk5_fresh_noseq(cfg, true);
        gk5_buffer msg = {pt_len, NULL}, tok = {0, NULL};
        uint32_t minor = 0, major;

        msg.value = fuzz_dup(pt, pt_len);
        major = gk5_wrap(&minor, tx, conf_req, GK5_QOP_DEFAULT, &msg,
                         &conf_state, &tok);
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("gk5_wrap on the peer context failed", major, minor);
        }
        wire = fuzz_dup(tok.value, tok.length);
        tok_len = tok.length;
        free(msg.value);
        gk5_buffer_release(&tok);
        gk5_done(cfg, true, tx);
    }
    if (!fuzz_rfc1964(cfg->enctype) && (how & 1) != 0) {
        fuzz_set_rrc(wire, tok_len, rrc);
    }
    changed = fuzz_apply_flips(&flips, wire, tok_len);
    compare(cfg, wire, tok_len, !changed, changed ? NULL : pt, pt_len);
    free(wire);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_cfg cfg;
    uint8_t b1 = 0;

    if (!fuzz_take_cfg(&data, &size, &cfg, &b1)) {
        return 0;
    }
    if ((b1 & FUZZ_B1_GENERATE) != 0) {
        generated(&cfg, b1, data, size);
    } else {
        compare(&cfg, data, size, false, NULL, 0);
    }
    return 0;
}
