/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5's initiator (src/krb5/initiator*.c) end to end,
 * the acceptor's answer in.  Once per process a service ticket and a
 * credential in hand per enctype (a fixed session key); per input a
 * mutual initiator (gk5i_initiator_from_cred) whose first leg runs at a
 * fixed time (gk5i_initiator_step_at), then the input as the answer.
 *
 * Byte 0 chooses: bits 0-2 the session enctype (fuzz_enctypes); 0x08
 * "generated": the rest is the plaintext of an EncAPRepPart, which the
 * harness encrypts with the session key (usage 12) inside a valid framed
 * AP-REP, so mutations reach the ctime, subkey and sequence checks behind
 * the decryption; otherwise the rest is the token as an acceptor sent it.
 * 0x10: the rest goes to gk5_initiator_load instead (with 0x20 the
 * harness adds the magic, the version and the digest around it, so the
 * parser behind the digest is reached).
 *
 * What must hold: a refusal gives no context and leaves the initiator
 * waiting -- a good AP-REP made here then completes it; a success gives a
 * context that wraps and unwraps both ways with the acceptor's context
 * derived here from the AP-REQ and the AP-REP; after a KRB-ERROR
 * gk5_krb_last_error() is a string without control bytes, after anything
 * else NULL.  gk5_initiator_load refuses (nothing out) or gives an
 * initiator that saves to the same bytes and frees cleanly.
 *
 * FUZZ_GEN_CORPUS=DIR in the environment writes the seed corpus into DIR
 * and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/tickets.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"
#include "mech/mech_int.h"

#define REALM "FUZZ.TEST"
#define NOW 1796411437
#define NOW_USEC 123456u
#define ACC_SEQ 0x2468aceu

#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

#define B0_GENERATE 0x08u
#define B0_LOAD 0x10u
#define B0_LOAD_WRAP 0x20u

/* A credential per enctype, as a credential cache would hold it. */
static struct gk5i_cc_cred g_cred[FUZZ_N_ENCTYPES];
static uint8_t *g_ticket[FUZZ_N_ENCTYPES];

static struct gk5i_view sv(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

/* The ticket's encrypted part is never opened by an initiator: fixed
 * bytes of the right enctype will do. */
static void make_cred(size_t i)
{
    static const uint8_t tkt_cipher[64] = {0x3c};
    struct gk5i_cc_cred *c = &g_cred[i];
    struct gk5i_krb_ticket tk;
    size_t n = 0;

    memset(c, 0, sizeof(*c));
    c->keytype = fuzz_enctypes[i];
    c->key_len = fuzz_seed_key(c->keytype, 0, c->key, sizeof(c->key));
    if (c->key_len == 0) {
        return;
    }
    c->client_realm = sv(REALM);
    c->client.name_type = 1;
    c->client.ncomp = 1;
    c->client.comp[0] = sv("alice");
    c->server_realm = sv(REALM);
    c->server.name_type = 3;
    c->server.ncomp = 2;
    c->server.comp[0] = sv("nfs");
    c->server.comp[1] = sv("host.fuzz.test");
    c->authtime = NOW - 100;
    c->starttime = NOW - 100;
    c->endtime = 0xfffffff0u; /* contexts never expire by the real clock */
    memset(&tk, 0, sizeof(tk));
    tk.realm = c->server_realm;
    tk.sname = c->server;
    tk.enc_part.etype = c->keytype;
    tk.enc_part.has_kvno = true;
    tk.enc_part.kvno = 2;
    tk.enc_part.cipher.p = tkt_cipher;
    tk.enc_part.cipher.len = sizeof(tkt_cipher);
    if (gk5i_encode_ticket(&tk, NULL, 0, &n) != GK5_OK) {
        fuzz_fail("ticket length", 0, 0);
    }
    g_ticket[i] = fuzz_dup(NULL, n);
    if (gk5i_encode_ticket(&tk, g_ticket[i], n, &n) != GK5_OK) {
        fuzz_fail("ticket", 0, 0);
    }
    c->ticket.p = g_ticket[i];
    c->ticket.len = n;
}

static void write_corpus(const char *dir);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *gen = getenv("FUZZ_GEN_CORPUS");

    (void)argc;
    (void)argv;
    fuzz_init();
    for (size_t i = 0; i < FUZZ_N_ENCTYPES; i++) {
        make_cred(i);
    }
    if (gen != NULL) {
        write_corpus(gen);
        exit(0);
    }
    return 0;
}

/* A mutual initiator after its first leg, and what its AP-REQ said. */
struct leg {
    const struct gk5i_cc_cred *cred;
    gk5_initiator *init;
    gk5_buffer apreq;
    bool opened; /* the fields below read from the AP-REQ */
    uint8_t subkey[64];
    size_t subkey_len;
    uint32_t seq;
};

static bool start(size_t i, struct leg *l)
{
    gk5_initiator_opts o;
    uint32_t major, minor = 0;

    memset(l, 0, sizeof(*l));
    l->cred = &g_cred[i];
    if (l->cred->key_len == 0) {
        return false;
    }
    memset(&o, 0, sizeof(o));
    o.req_flags = GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG;
    if (gk5i_initiator_from_cred(l->cred, &o, &l->init) != GK5_OK) {
        /* An enctype not built here. */
        return false;
    }
    major =
        gk5i_initiator_step_at(&minor, l->init, NULL, &l->apreq, NOW, NOW_USEC);
    if (major != GK5_S_CONTINUE_NEEDED || l->apreq.length == 0) {
        fuzz_fail("init: the first leg", major, minor);
    }
    return true;
}

static void leg_done(struct leg *l)
{
    gk5_initiator_free(l->init);
    gk5_buffer_release(&l->apreq);
}

/* DES3 leaves its zero padding: the DER length says where it ends. */
static size_t der_end(const uint8_t *p, size_t n)
{
    size_t hdr = 2, vlen;

    if (n < 2) {
        return n;
    }
    vlen = p[1];
    if ((p[1] & 0x80) != 0) {
        hdr = 2 + (p[1] & 0x7fu);
        vlen = 0;
        for (size_t i = 2; i < hdr && i < n; i++) {
            vlen = (vlen << 8) | p[i];
        }
    }
    return hdr + vlen <= n ? hdr + vlen : n;
}

/* The AP-REQ opened as an acceptor would: our subkey and sequence
 * number. */
static void open_ap_req(struct leg *l)
{
    const uint8_t *p = l->apreq.value;
    struct gk5i_krb_ap_req req;
    struct gk5i_krb_authenticator au;
    uint8_t *plain;
    size_t inner = 0, plen;

    if (l->opened) {
        return;
    }
    if (gk5i_frame_parse(p, l->apreq.length, l->apreq.length, &inner) !=
            GK5_OK ||
        gk5i_decode_ap_req(p + inner + 2, l->apreq.length - inner - 2, &req) !=
            GK5_OK) {
        fuzz_fail("init: the AP-REQ does not parse", 0, 0);
    }
    plen = req.authenticator.cipher.len;
    plain = fuzz_dup(NULL, plen);
    if (gk5_c_decrypt(l->cred->keytype, l->cred->key, l->cred->key_len,
                      KU_AP_REQ_AUTH, req.authenticator.cipher.p,
                      req.authenticator.cipher.len, plain, &plen) != GK5_OK ||
        gk5i_decode_authenticator(plain, der_end(plain, plen), &au) != GK5_OK ||
        !au.has_subkey || !au.has_seq_number ||
        au.subkey.value.len > sizeof(l->subkey)) {
        fuzz_fail("init: the authenticator does not open", 0, 0);
    }
    memcpy(l->subkey, au.subkey.value.p, au.subkey.value.len);
    l->subkey_len = au.subkey.value.len;
    l->seq = au.seq_number;
    l->opened = true;
    free(plain);
}

/* The framed token (TOK_ID tok) around msg; malloc'd. */
static void frame(uint16_t tok, const uint8_t *msg, size_t len, gk5_buffer *out)
{
    size_t total = gk5i_frame_token_bytes(2 + len), off;
    uint8_t *p;

    if (total == 0) {
        fuzz_fail("init: frame", 0, 0);
    }
    p = fuzz_dup(NULL, total);
    off = gk5i_frame_put_mech(p, 2 + len, GK5I_MECH_KRB5);
    p[off] = (uint8_t)(tok >> 8);
    p[off + 1] = (uint8_t)tok;
    memcpy(p + off + 2, msg, len);
    out->value = p;
    out->length = total;
}

/* An AP-REP token around plain (the EncAPRepPart), encrypted with the
 * session key (usage 12) and a fixed confounder. */
static void make_ap_rep(const struct gk5i_cc_cred *c, const uint8_t *plain,
                        size_t plen, gk5_buffer *out)
{
    const struct gk5_enctype *e = NULL;
    struct gk5i_krb_ap_rep rep;
    uint8_t conf[64] = {0}, *enc, *der;
    size_t enc_len = 0, der_len = 0;

    if (gk5i_enctype_usable(c->keytype, &e) != GK5_OK ||
        gk5_c_encrypt_length(c->keytype, plen, &enc_len) != GK5_OK) {
        fuzz_fail("init: encrypt length", 0, 0);
    }
    enc = fuzz_dup(NULL, enc_len);
    if (gk5_c_encrypt_confounder(c->keytype, c->key, c->key_len,
                                 KU_AP_REP_ENCPART, conf, e->conf_bytes, plain,
                                 plen, enc, &enc_len) != GK5_OK) {
        fuzz_fail("init: encrypt", 0, 0);
    }
    memset(&rep, 0, sizeof(rep));
    rep.enc_part.etype = c->keytype;
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = enc_len;
    if (gk5i_encode_ap_rep(&rep, NULL, 0, &der_len) != GK5_OK) {
        fuzz_fail("init: AP-REP length", 0, 0);
    }
    der = fuzz_dup(NULL, der_len);
    if (gk5i_encode_ap_rep(&rep, der, der_len, &der_len) != GK5_OK) {
        fuzz_fail("init: AP-REP", 0, 0);
    }
    frame(0x0200, der, der_len, out);
    free(der);
    free(enc);
}

/* A good EncAPRepPart: our ctime, an acceptor subkey of the session
 * enctype (none for RFC 1964), seq ACC_SEQ; *out malloc'd. */
static void good_part(const struct gk5i_cc_cred *c, bool subkey, bool seq,
                      uint8_t **out, size_t *len)
{
    struct gk5i_krb_enc_ap_rep_part p;
    uint8_t key[64];
    size_t klen = fuzz_seed_key(c->keytype, 1, key, sizeof(key));

    memset(&p, 0, sizeof(p));
    p.ctime = NOW;
    p.cusec = NOW_USEC;
    p.has_subkey = subkey && !fuzz_rfc1964(c->keytype);
    p.subkey.keytype = c->keytype;
    p.subkey.value.p = key;
    p.subkey.value.len = klen;
    p.has_seq_number = seq;
    p.seq_number = ACC_SEQ;
    if (gk5i_encode_enc_ap_rep_part(&p, NULL, 0, len) != GK5_OK) {
        fuzz_fail("init: part length", 0, 0);
    }
    *out = fuzz_dup(NULL, *len);
    if (gk5i_encode_enc_ap_rep_part(&p, *out, *len, len) != GK5_OK) {
        fuzz_fail("init: part", 0, 0);
    }
}

/* What the AP-REP said, read here apart from the library. */
static void read_ap_rep(const struct gk5i_cc_cred *c, const gk5_buffer *tok,
                        struct gk5i_krb_enc_ap_rep_part *part, uint8_t **plain)
{
    const uint8_t *p = tok->value;
    struct gk5i_krb_ap_rep rep;
    size_t inner = 0, plen;

    if (gk5i_frame_parse(p, tok->length, tok->length, &inner) != GK5_OK ||
        tok->length - inner < 2 ||
        gk5i_decode_ap_rep(p + inner + 2, tok->length - inner - 2, &rep) !=
            GK5_OK) {
        fuzz_fail("init: a success on an answer not an AP-REP", 0, 0);
    }
    plen = rep.enc_part.cipher.len;
    *plain = fuzz_dup(NULL, plen);
    if (gk5_c_decrypt(c->keytype, c->key, c->key_len, KU_AP_REP_ENCPART,
                      rep.enc_part.cipher.p, rep.enc_part.cipher.len, *plain,
                      &plen) != GK5_OK ||
        gk5i_decode_enc_ap_rep_part(*plain, der_end(*plain, plen), part) !=
            GK5_OK) {
        fuzz_fail("init: a success on an AP-REP that does not open", 0, 0);
    }
    if (part->ctime != NOW || part->cusec != NOW_USEC) {
        fuzz_fail("init: a success on an AP-REP of another ctime", 0, 0);
    }
}

static void must(uint32_t major, uint32_t minor, const char *what)
{
    if (major != GK5_S_COMPLETE) {
        fuzz_fail(what, major, minor);
    }
}

static void one_way(gk5_ctx *a, gk5_ctx *b)
{
    static const uint8_t text[] = "gk5 fuzz init";
    gk5_buffer msg = {sizeof(text), (void *)(uintptr_t)text};
    gk5_buffer tok = {0, NULL}, got = {0, NULL};
    uint32_t minor = 0, qop = 0;
    int conf = 0;

    must(gk5_wrap(&minor, a, 1, GK5_QOP_DEFAULT, &msg, &conf, &tok), minor,
         "init: the context does not wrap");
    must(gk5_unwrap(&minor, b, &tok, &got, &conf, &qop), minor,
         "init: the peer does not unwrap");
    if (got.length != msg.length || memcmp(got.value, text, msg.length) != 0) {
        fuzz_fail("init: unwrap gives other bytes", 0, 0);
    }
    gk5_buffer_release(&tok);
    gk5_buffer_release(&got);
}

/* The completed initiator's context against the acceptor's, made here
 * from the AP-REQ and the AP-REP that completed it. */
static void check_context(struct leg *l, const gk5_buffer *answer)
{
    struct gk5i_krb_enc_ap_rep_part part;
    const struct gk5_enctype *et = NULL;
    const uint8_t *key;
    uint8_t *plain = NULL;
    gk5_ctx *ctx = NULL, *peer = NULL;
    uint32_t major, minor = 0, flags = 0;
    int32_t ctx_et = 0;
    size_t klen;

    major = gk5_initiator_finish(&minor, l->init, &ctx_et, &ctx);
    if (major != GK5_S_COMPLETE || ctx == NULL) {
        fuzz_fail("init: completed, but no context", major, minor);
    }
    open_ap_req(l);
    read_ap_rep(l->cred, answer, &part, &plain);
    if (gk5i_enctype_usable(l->cred->keytype, &et) != GK5_OK) {
        fuzz_fail("init: session enctype", 0, 0);
    }
    /* An RFC 1964 (DES3) session's context is keyed by the initiator's
     * subkey whatever the AP-REP holds (initiator_ap_rep.c, as MIT). */
    if (part.has_subkey && !et->rfc1964) {
        if (gk5i_enctype_usable(part.subkey.keytype, &et) != GK5_OK ||
            et->rfc1964) {
            fuzz_fail("init: a context from an acceptor subkey refused", 0, 0);
        }
        key = part.subkey.value.p;
        klen = part.subkey.value.len;
        flags |= GK5_CTXF_ACCEPTOR_SUBKEY;
    } else {
        key = l->subkey;
        klen = l->subkey_len;
    }
    if (ctx_et != et->num || klen != et->key_bytes) {
        fuzz_fail("init: the context's enctype is not the AP-REP's", 0, 0);
    }
    if (!et->rfc1964) {
        flags |= GK5_CTXF_CFX;
    }
    if (gk5i_ctx_new(et->num, flags, 0,
                     part.has_seq_number ? part.seq_number : 0, key, klen,
                     &peer) != GK5_OK) {
        fuzz_fail("init: the peer context", 0, 0);
    }
    atomic_store(&peer->options, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE);
    gk5i_seq_set(&peer->recv, true, l->seq, 0);
    one_way(ctx, peer);
    one_way(peer, ctx);
    one_way(ctx, peer);
    gk5_ctx_free(peer);
    gk5_ctx_free(ctx);
    free(plain);
}

static void check_words(bool krb_error)
{
    const char *w = gk5_krb_last_error();

    if (w == NULL) {
        if (krb_error) {
            fuzz_fail("init: a KRB-ERROR without words", 0, 0);
        }
        return;
    }
    if (!krb_error) {
        fuzz_fail("init: words without a KRB-ERROR", 0, 0);
    }
    for (size_t i = 0; i < 512; i++) {
        if (w[i] == '\0') {
            return;
        }
        if ((uint8_t)w[i] < 0x20 || (uint8_t)w[i] >= 0x7f) {
            fuzz_fail("init: a control byte in gk5_krb_last_error", 0, 0);
        }
    }
    fuzz_fail("init: gk5_krb_last_error not terminated", 0, 0);
}

/* A framed KRB-ERROR that decodes (what the library must put in words). */
static bool is_krb_error(const gk5_buffer *tok)
{
    const uint8_t *p = tok->value;
    struct gk5i_krb_error e;
    size_t inner = 0;

    return gk5i_frame_parse(p, tok->length, tok->length, &inner) == GK5_OK &&
           tok->length - inner >= 2 && p[inner] == 0x03 &&
           p[inner + 1] == 0x00 &&
           gk5i_decode_krb_error(p + inner + 2, tok->length - inner - 2, &e) ==
               GK5_OK;
}

static void fuzz_answer(size_t i, bool generate, const uint8_t *data,
                        size_t size)
{
    struct leg l;
    gk5_buffer in, out = {0, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t major, minor = 0;
    int32_t et = -1;

    if (!start(i, &l)) {
        return;
    }
    if (generate) {
        make_ap_rep(l.cred, data, size, &in);
    } else {
        in.value = fuzz_dup(data, size);
        in.length = size;
    }
    major = gk5i_initiator_step_at(&minor, l.init, &in, &out, NOW + 1, 0);
    check_words(!GK5_ERROR(major) ? false : is_krb_error(&in));
    if (out.length != 0 || out.value != NULL) {
        fuzz_fail("init: the second leg answered a token", major, minor);
    }
    if (major == GK5_S_COMPLETE) {
        check_context(&l, &in);
    } else if (major == GK5_S_CONTINUE_NEEDED || !GK5_ERROR(major) ||
               minor == 0) {
        fuzz_fail("init: the second leg neither completed nor refused", major,
                  minor);
    } else {
        gk5_buffer good = {0, NULL};
        uint8_t *part = NULL;
        size_t plen = 0;

        /* Refused: no context, and still waiting for the AP-REP. */
        if (gk5_initiator_finish(&minor, l.init, &et, &ctx) !=
                GK5_S_NO_CONTEXT ||
            ctx != NULL || et != 0) {
            fuzz_fail("init: a refused answer left a context", major, minor);
        }
        good_part(l.cred, true, true, &part, &plen);
        make_ap_rep(l.cred, part, plen, &good);
        major = gk5i_initiator_step_at(&minor, l.init, &good, &out, NOW + 1, 0);
        if (major != GK5_S_COMPLETE) {
            fuzz_fail("init: a refusal did not leave the initiator waiting",
                      major, minor);
        }
        check_words(false);
        check_context(&l, &good);
        gk5_buffer_release(&good);
        free(part);
    }
    gk5_buffer_release(&in);
    leg_done(&l);
}

static void fuzz_load(bool wrap, const uint8_t *data, size_t size)
{
    gk5_initiator *init = (gk5_initiator *)(uintptr_t)1;
    gk5_buffer saved = {0, NULL};
    uint8_t *buf;
    size_t len = size;
    uint32_t major, minor = 0;

    if (wrap) {
        /* The magic and version before, the digest after. */
        len = 8 + size + GK5_SHA256_BYTES;
        buf = fuzz_dup(NULL, len);
        memcpy(buf, "gk5I\0\0\0\1", 8);
        memcpy(buf + 8, data, size);
        if (gk5i_sha256(buf, 8 + size, buf + 8 + size) != GK5_OK) {
            fuzz_fail("init: sha256", 0, 0);
        }
    } else {
        buf = fuzz_dup(data, size);
    }
    major = gk5_initiator_load(&minor, buf, len, &init);
    if (GK5_ERROR(major)) {
        if (init != NULL || minor == 0) {
            fuzz_fail("init: a refused load left an initiator", major, minor);
        }
    } else {
        if (init == NULL) {
            fuzz_fail("init: a load without an initiator", major, minor);
        }
        must(gk5_initiator_save(&minor, init, &saved), minor,
             "init: a loaded initiator does not save");
        if (saved.length != len || memcmp(saved.value, buf, len) != 0) {
            fuzz_fail("init: a loaded initiator saves to other bytes", 0, 0);
        }
        gk5_buffer_release(&saved);
        gk5_initiator_free(init);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t b0;

    fuzz_trace_for(size);
    if (size < 1) {
        return 0;
    }
    b0 = data[0];
    if ((b0 & B0_LOAD) != 0) {
        fuzz_load((b0 & B0_LOAD_WRAP) != 0, data + 1, size - 1);
    } else {
        fuzz_answer((b0 & 7u) % FUZZ_N_ENCTYPES, (b0 & B0_GENERATE) != 0,
                    data + 1, size - 1);
    }
    return 0;
}

/* ---- the seed corpus ---- */

static void write_file(const char *dir, const char *name, uint8_t b0,
                       const void *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(&b0, 1, 1, f) != 1 ||
        (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fuzz_fail("cannot write a seed", 0, 0);
    }
}

static void write_error(const char *dir, const char *name, uint8_t b0,
                        int32_t code, const char *text)
{
    struct gk5i_krb_error e;
    uint8_t buf[1024];
    size_t n = 0;
    gk5_buffer tok;

    memset(&e, 0, sizeof(e));
    e.stime = NOW + 4000;
    e.error_code = code;
    e.realm = sv(REALM);
    e.sname = g_cred[0].server;
    e.has_e_text = text != NULL;
    e.e_text = text != NULL ? sv(text) : sv("");
    if (gk5i_encode_krb_error(&e, buf, sizeof(buf), &n) != GK5_OK) {
        fuzz_fail("write_error", 0, 0);
    }
    frame(0x0300, buf, n, &tok);
    write_file(dir, name, b0, tok.value, tok.length);
    gk5_buffer_release(&tok);
}

static void write_corpus(const char *dir)
{
    char name[64];

    for (size_t i = 0; i < FUZZ_N_ENCTYPES; i++) {
        for (int v = 0; v < 3; v++) {
            struct leg l;
            uint8_t *part = NULL;
            size_t plen = 0;
            gk5_buffer tok = {0, NULL};

            if (!start(i, &l)) {
                continue;
            }
            /* with a subkey and a seq-number; without a subkey; neither */
            good_part(l.cred, v == 0, v != 2, &part, &plen);
            snprintf(name, sizeof(name), "gen-%d-%d", (int)l.cred->keytype, v);
            write_file(dir, name, (uint8_t)(i | B0_GENERATE), part, plen);
            make_ap_rep(l.cred, part, plen, &tok);
            snprintf(name, sizeof(name), "raw-%d-%d", (int)l.cred->keytype, v);
            write_file(dir, name, (uint8_t)i, tok.value, tok.length);
            if (v == 0) {
                gk5_buffer saved = {0, NULL};
                uint32_t minor = 0;

                must(gk5_initiator_save(&minor, l.init, &saved), minor,
                     "init: save");
                snprintf(name, sizeof(name), "load-%d", (int)l.cred->keytype);
                write_file(dir, name, B0_LOAD, saved.value, saved.length);
                snprintf(name, sizeof(name), "loadw-%d", (int)l.cred->keytype);
                write_file(dir, name, B0_LOAD | B0_LOAD_WRAP,
                           (const uint8_t *)saved.value + 8,
                           saved.length - 8 - GK5_SHA256_BYTES);
                gk5_buffer_release(&saved);
            }
            gk5_buffer_release(&tok);
            free(part);
            leg_done(&l);
        }
    }
    write_error(dir, "err-skew", 0, 37, "clock skew\r\n\x1b[31m");
    write_error(dir, "err-modified", 1, 41, NULL);
    write_error(dir, "err-unknown", 2, 12345, "text");
}
