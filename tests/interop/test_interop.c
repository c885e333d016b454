/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Live interop with MIT krb5: contexts established by MIT's
 * GSS-API against a real krb5kdc on 127.0.0.1, one side exported into gk5
 * (lucid import, and rpc.gssd's buffer), the other kept in MIT; then
 * byte-level interop both ways, both roles, per session-key enctype.
 *
 * The realm: GK5_REALM_DIR (made by gk5 realm run, which also stops its KDC
 * on every exit path), else one of our own (support/realm/realm.c).
 * Output is TAP: one line per cell, so the CI log shows each pass.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bridge/lucid.h"
#include "crypto/crypto_int.h"
#include "establish.h"
#include "tap_cells.h"

#define LONG_RUN 1000 /* messages each way */

enum role { GK5_INITIATOR, GK5_ACCEPTOR };

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

static const char *gk5_words(uint32_t major, uint32_t minor)
{
    static char text[256];

    snprintf(text, sizeof(text), "%s", gk5_display_status(major, minor));
    return text;
}

static const char *mit_words(OM_uint32 major, OM_uint32 minor)
{
    static char text[256];
    gk5_mit_status st = {major, minor, 1, NULL};

    return gk5_mit_status_text(&st, text, sizeof(text));
}

/* Deterministic message bytes, different per length and serial. */
static void fill(uint8_t *p, size_t n, unsigned serial)
{
    uint32_t x = 0x9e3779b9u * (serial + 1u);

    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

static const size_t msg_lens[] = {0, 1, 13, 16, 17, 64, 1000};
#define MSG_MAX 1500

/* One case: one context pair, one side in gk5. */
struct peers {
    gk5_ctx *gk5;
    gss_ctx_id_t mit;
    int rfc1964; /* DES3 tokens: no RRC */
    char label[160];
};

static void cell_name(char *buf, size_t len, const struct peers *p,
                      const char *what)
{
    snprintf(buf, len, "%s %s", p->label, what);
}

/* ---- gk5 -> MIT ---- */

static bool gk5_wrap_to_mit(struct peers *p, int conf, const uint8_t *msg,
                            size_t len, char *why, size_t why_len)
{
    gk5_buffer in = {len, (void *)(uintptr_t)msg}, tok = {0, NULL};
    gss_buffer_desc mtok, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = -1, mconf = -1;
    gss_qop_t qop = 99;
    bool ok = false;

    major =
        gk5_wrap(&minor, p->gk5, conf, GK5_QOP_DEFAULT, &in, &conf_state, &tok);
    if (major != GK5_S_COMPLETE || conf_state != conf) {
        snprintf(why, why_len, "gk5_wrap(len %zu): %s (conf_state %d)", len,
                 gk5_words(major, minor), conf_state);
        goto cleanup;
    }
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmaj = gss_unwrap(&mmin, p->mit, &mtok, &out, &mconf, &qop);
    if (mmaj != GSS_S_COMPLETE) {
        snprintf(why, why_len, "MIT gss_unwrap(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    if (out.length != len || (len > 0 && memcmp(out.value, msg, len) != 0) ||
        mconf != conf || qop != 0) {
        snprintf(why, why_len,
                 "MIT gss_unwrap(len %zu): wrong plaintext (%zu bytes), "
                 "conf %d, qop %u",
                 len, out.length, mconf, (unsigned)qop);
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&tok);
    (void)gss_release_buffer(&mmin, &out);
    return ok;
}

static bool gk5_mic_to_mit(struct peers *p, const uint8_t *msg, size_t len,
                           char *why, size_t why_len)
{
    gk5_buffer in = {len, (void *)(uintptr_t)msg}, tok = {0, NULL};
    gss_buffer_desc mmsg, mtok;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    gss_qop_t qop = 99;
    bool ok = false;

    major = gk5_get_mic(&minor, p->gk5, GK5_QOP_DEFAULT, &in, &tok);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, why_len, "gk5_get_mic(len %zu): %s", len,
                 gk5_words(major, minor));
        goto cleanup;
    }
    mmsg.length = len;
    mmsg.value = (void *)(uintptr_t)msg;
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmaj = gss_verify_mic(&mmin, p->mit, &mmsg, &mtok, &qop);
    if (mmaj != GSS_S_COMPLETE || qop != 0) {
        snprintf(why, why_len, "MIT gss_verify_mic(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&tok);
    return ok;
}

/* ---- MIT -> gk5 ---- */

static bool mit_wrap(struct peers *p, int conf, const uint8_t *msg, size_t len,
                     gss_buffer_desc *tok, char *why, size_t why_len)
{
    gss_buffer_desc in;
    OM_uint32 mmaj, mmin = 0;
    int mconf = -1;

    in.length = len;
    in.value = (void *)(uintptr_t)msg;
    mmaj = gss_wrap(&mmin, p->mit, conf, GSS_C_QOP_DEFAULT, &in, &mconf, tok);
    if (mmaj != GSS_S_COMPLETE || mconf != conf) {
        snprintf(why, why_len, "MIT gss_wrap(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        return false;
    }
    return true;
}

/* gk5_unwrap must give back exactly msg with status `expect`. */
static bool gk5_unwrap_check(struct peers *p, const void *tok, size_t tok_len,
                             int conf, const uint8_t *msg, size_t len,
                             uint32_t expect, char *why, size_t why_len)
{
    gk5_buffer in = {tok_len, (void *)(uintptr_t)tok}, out = {0, NULL};
    uint32_t major, minor = 0, qop = 99;
    int conf_state = -1;
    bool ok = false;

    major = gk5_unwrap(&minor, p->gk5, &in, &out, &conf_state, &qop);
    if (major != expect) {
        snprintf(why, why_len, "gk5_unwrap(len %zu): %s (expected %s)", len,
                 gk5_words(major, minor), gk5_major_name(expect));
        goto cleanup;
    }
    if (out.length != len || (len > 0 && memcmp(out.value, msg, len) != 0) ||
        conf_state != conf || qop != GK5_QOP_DEFAULT) {
        snprintf(why, why_len,
                 "gk5_unwrap(len %zu): wrong plaintext (%zu bytes), "
                 "conf_state %d, qop %u",
                 len, out.length, conf_state, (unsigned)qop);
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&out);
    return ok;
}

static bool mit_wrap_to_gk5(struct peers *p, int conf, const uint8_t *msg,
                            size_t len, char *why, size_t why_len)
{
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    bool ok = mit_wrap(p, conf, msg, len, &tok, why, why_len) &&
              gk5_unwrap_check(p, tok.value, tok.length, conf, msg, len,
                               GK5_S_COMPLETE, why, why_len);

    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

static bool mit_get_mic(struct peers *p, const uint8_t *msg, size_t len,
                        gss_buffer_desc *tok, char *why, size_t why_len)
{
    gss_buffer_desc in;
    OM_uint32 mmaj, mmin = 0;

    in.length = len;
    in.value = (void *)(uintptr_t)msg;
    mmaj = gss_get_mic(&mmin, p->mit, GSS_C_QOP_DEFAULT, &in, tok);
    if (mmaj != GSS_S_COMPLETE) {
        snprintf(why, why_len, "MIT gss_get_mic(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        return false;
    }
    return true;
}

static bool gk5_verify_check(struct peers *p, const uint8_t *msg, size_t len,
                             const gss_buffer_desc *tok, uint32_t expect,
                             char *why, size_t why_len)
{
    gk5_buffer m = {len, (void *)(uintptr_t)msg};
    gk5_buffer t = {tok->length, tok->value};
    uint32_t major, minor = 0, qop = 99;

    major = gk5_verify_mic(&minor, p->gk5, &m, &t, &qop);
    if (major != expect) {
        snprintf(why, why_len, "gk5_verify_mic(len %zu): %s (expected %s)", len,
                 gk5_words(major, minor), gk5_major_name(expect));
        return false;
    }
    return true;
}

static bool mit_mic_to_gk5(struct peers *p, const uint8_t *msg, size_t len,
                           char *why, size_t why_len)
{
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    bool ok = mit_get_mic(p, msg, len, &tok, why, why_len) &&
              gk5_verify_check(p, msg, len, &tok, GK5_S_COMPLETE, why, why_len);

    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

/* MIT gss_wrap_iov with HEADER, DATA and PADDING but no TRAILER: RFC 4121
 * 4.2.5 rotation puts what would trail into the header (RRC != 0); the
 * buffers laid end to end are the token. */
static bool mit_wrap_iov_to_gk5(struct peers *p, int conf, const uint8_t *msg,
                                size_t len, unsigned *rrc, char *why,
                                size_t why_len)
{
    gss_iov_buffer_desc iov[3];
    uint8_t data[MSG_MAX];
    uint8_t *tok = NULL;
    OM_uint32 mmaj, mmin = 0;
    int mconf = -1;
    bool ok = false;

    memcpy(data, msg, len);
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[0].buffer.length = 0;
    iov[0].buffer.value = NULL;
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = len;
    iov[1].buffer.value = data;
    iov[2].type = GSS_IOV_BUFFER_TYPE_PADDING | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[2].buffer.length = 0;
    iov[2].buffer.value = NULL;
    mmaj = gss_wrap_iov(&mmin, p->mit, conf, GSS_C_QOP_DEFAULT, &mconf, iov, 3);
    if (mmaj != GSS_S_COMPLETE || mconf != conf) {
        snprintf(why, why_len, "MIT gss_wrap_iov(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    size_t total = iov[0].buffer.length + len + iov[2].buffer.length;
    tok = malloc(total > 0 ? total : 1);
    if (tok == NULL) {
        snprintf(why, why_len, "out of memory");
        goto cleanup;
    }
    memcpy(tok, iov[0].buffer.value, iov[0].buffer.length);
    memcpy(tok + iov[0].buffer.length, data, len);
    if (iov[2].buffer.length > 0) {
        memcpy(tok + iov[0].buffer.length + len, iov[2].buffer.value,
               iov[2].buffer.length);
    }
    /* RFC 4121 4.2.6.2: RRC is octets 6-7 of the Wrap token header. */
    *rrc = p->rfc1964 || total < 8 ? 0 : (unsigned)(tok[6] << 8 | tok[7]);
    if (!p->rfc1964 && *rrc == 0) {
        snprintf(why, why_len,
                 "MIT gss_wrap_iov sent RRC 0: the case would be vacuous");
        goto cleanup;
    }
    ok = gk5_unwrap_check(p, tok, total, conf, msg, len, GK5_S_COMPLETE, why,
                          why_len);

cleanup:
    free(tok);
    (void)gss_release_iov_buffer(&mmin, iov, 3);
    return ok;
}

/* ---- the cells of one case ---- */

typedef bool (*one_msg_fn)(struct peers *p, int conf, const uint8_t *msg,
                           size_t len, char *why, size_t why_len);

static bool wrap_g2m(struct peers *p, int conf, const uint8_t *m, size_t n,
                     char *why, size_t wl)
{
    return gk5_wrap_to_mit(p, conf, m, n, why, wl);
}
static bool wrap_m2g(struct peers *p, int conf, const uint8_t *m, size_t n,
                     char *why, size_t wl)
{
    return mit_wrap_to_gk5(p, conf, m, n, why, wl);
}
static bool mic_g2m(struct peers *p, int conf, const uint8_t *m, size_t n,
                    char *why, size_t wl)
{
    (void)conf;
    return gk5_mic_to_mit(p, m, n, why, wl);
}
static bool mic_m2g(struct peers *p, int conf, const uint8_t *m, size_t n,
                    char *why, size_t wl)
{
    (void)conf;
    return mit_mic_to_gk5(p, m, n, why, wl);
}

/* One cell: the operation over every message length. */
static void cell_over_lengths(struct peers *p, const char *what, one_msg_fn fn,
                              int conf)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[768];
    bool ok = true;

    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        fill(msg, msg_lens[i], (unsigned)i);
        ok = fn(p, conf, msg, msg_lens[i], why, sizeof(why));
    }
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

static void cell_wrap_iov(struct peers *p, int conf)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[768];
    unsigned rrc = 0, rrc_min = ~0u, rrc_max = 0;
    bool ok = true;

    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        fill(msg, msg_lens[i], (unsigned)i + 50);
        ok = mit_wrap_iov_to_gk5(p, conf, msg, msg_lens[i], &rrc, why,
                                 sizeof(why));
        rrc_min = rrc < rrc_min ? rrc : rrc_min;
        rrc_max = rrc > rrc_max ? rrc : rrc_max;
    }
    char what[96];
    if (p->rfc1964) {
        snprintf(what, sizeof(what),
                 "MIT->gk5 wrap_iov %s (header, data, padding)",
                 conf ? "sealed" : "integ");
    } else {
        snprintf(what, sizeof(what),
                 "MIT->gk5 wrap_iov %s (no trailer, RRC %u)",
                 conf ? "sealed" : "integ", ok ? rrc_max : rrc);
    }
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

/* 1000 messages each way, wrap sealed, wrap integ and MIC in turn, every
 * receiver answering exactly COMPLETE (no sequence or replay complaint). */
static void cell_long_run(struct peers *p, bool from_gk5)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[768];
    bool ok = true;

    for (unsigned i = 0; i < LONG_RUN && ok; i++) {
        size_t len = (i * 37u) % 300u;
        fill(msg, len, i + 1000);
        switch (i % 3) {
        case 0:
        case 1:
            ok = from_gk5 ? gk5_wrap_to_mit(p, i % 3 == 0, msg, len, why,
                                            sizeof(why))
                          : mit_wrap_to_gk5(p, i % 3 == 0, msg, len, why,
                                            sizeof(why));
            break;
        default:
            ok = from_gk5 ? gk5_mic_to_mit(p, msg, len, why, sizeof(why))
                          : mit_mic_to_gk5(p, msg, len, why, sizeof(why));
            break;
        }
        if (!ok) {
            size_t used = strlen(why);
            snprintf(why + used, sizeof(why) - used, " (message %u)", i);
        }
    }
    char what[96];
    snprintf(what, sizeof(what), "%s %d messages in sequence",
             from_gk5 ? "gk5->MIT" : "MIT->gk5", LONG_RUN);
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

/* A replayed MIT Wrap token and a replayed MIC: gk5 says DUPLICATE. */
static void cell_replay(struct peers *p)
{
    static const uint8_t msg[] = "replay me";
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER, mic = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    char why[1024] = "", name[768];
    bool ok;

    ok = mit_wrap(p, 1, msg, sizeof(msg), &tok, why, sizeof(why)) &&
         gk5_unwrap_check(p, tok.value, tok.length, 1, msg, sizeof(msg),
                          GK5_S_COMPLETE, why, sizeof(why)) &&
         gk5_unwrap_check(p, tok.value, tok.length, 1, msg, sizeof(msg),
                          GK5_S_DUPLICATE_TOKEN, why, sizeof(why)) &&
         mit_get_mic(p, msg, sizeof(msg), &mic, why, sizeof(why)) &&
         gk5_verify_check(p, msg, sizeof(msg), &mic, GK5_S_COMPLETE, why,
                          sizeof(why)) &&
         gk5_verify_check(p, msg, sizeof(msg), &mic, GK5_S_DUPLICATE_TOKEN, why,
                          sizeof(why));
    cell_name(name, sizeof(name), p,
              "MIT->gk5 replayed wrap and MIC -> DUPLICATE_TOKEN");
    cell(ok, name, "%s", why);
    (void)gss_release_buffer(&mmin, &tok);
    (void)gss_release_buffer(&mmin, &mic);
}

/* A tampered MIT token: BAD_SIG or DEFECTIVE_TOKEN, and no plaintext.
 * Each tampered token is then delivered intact: it was not recorded as
 * seen, so it must pass (a failed token changes no state). */
static void cell_tamper(struct peers *p, const char *kind)
{
    static const uint8_t msg[] = "do not let this through altered";
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    uint8_t *bad = NULL;
    char why[1024] = "", name[768];
    bool ok = false, is_mic = strcmp(kind, "mic") == 0;
    int conf = strcmp(kind, "sealed") == 0;

    if (is_mic ? !mit_get_mic(p, msg, sizeof(msg), &tok, why, sizeof(why))
               : !mit_wrap(p, conf, msg, sizeof(msg), &tok, why, sizeof(why))) {
        goto done;
    }
    bad = malloc(tok.length);
    if (bad == NULL) {
        snprintf(why, sizeof(why), "out of memory");
        goto done;
    }
    /* Positions: in the header's sequence number, in the middle, last. */
    const size_t where[] = {12, tok.length / 2, tok.length - 1};
    for (size_t w = 0; w < 3; w++) {
        memcpy(bad, tok.value, tok.length);
        bad[where[w] % tok.length] ^= 0x01;
        uint32_t major, minor = 0, qop = 0;
        gk5_buffer out = {0, NULL};
        gk5_buffer tb = {tok.length, bad};
        if (is_mic) {
            gk5_buffer m = {sizeof(msg), (void *)(uintptr_t)msg};
            major = gk5_verify_mic(&minor, p->gk5, &m, &tb, &qop);
        } else {
            int cs = 0;
            major = gk5_unwrap(&minor, p->gk5, &tb, &out, &cs, &qop);
        }
        bool refused = GK5_ROUTINE_ERROR(major) == GK5_S_BAD_SIG ||
                       GK5_ROUTINE_ERROR(major) == GK5_S_DEFECTIVE_TOKEN;
        bool leaked = out.value != NULL || out.length != 0;
        gk5_buffer_release(&out);
        if (!refused || leaked) {
            snprintf(why, sizeof(why), "byte %zu flipped: %s%s",
                     where[w] % tok.length, gk5_words(major, minor),
                     leaked ? " and plaintext came out" : "");
            goto done;
        }
    }
    ok = is_mic
             ? gk5_verify_check(p, msg, sizeof(msg), &tok, GK5_S_COMPLETE, why,
                                sizeof(why))
             : gk5_unwrap_check(p, tok.value, tok.length, conf, msg,
                                sizeof(msg), GK5_S_COMPLETE, why, sizeof(why));
    if (!ok) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof(why) - used,
                 " (the intact token after its tampered copies)");
    }

done:
    free(bad);
    (void)gss_release_buffer(&mmin, &tok);
    char what[96];
    snprintf(what, sizeof(what),
             "MIT->gk5 tampered %s -> BAD_SIG/DEFECTIVE, no plaintext", kind);
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

/* The lucid enctype MIT reports for a session key of type et: DES3 is
 * exported as des3-cbc-raw (6), the row's other number. */
static int32_t lucid_enctype_for(int32_t et)
{
    const struct gk5_enctype *row = gk5i_enctype_get(et);

    return row != NULL && row->alias_num != 0 ? row->alias_num : et;
}

/* Check gk5's view of the imported context against the lucid export. */
static void cell_inquire(struct peers *p, const gk5_lucid_ctx *f,
                         int32_t lucid_et)
{
    gk5_ctx_info info;
    uint32_t major, minor = 0;
    char why[1024] = "", name[768];
    bool ok = false;

    memset(&info, 0, sizeof(info));
    major = gk5_ctx_inquire(&minor, p->gk5, &info);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_ctx_inquire: %s",
                 gk5_words(major, minor));
    } else if (info.initiator != (f->initiate != 0) ||
               info.cfx != (f->protocol != 0) ||
               info.acceptor_subkey !=
                   (f->protocol != 0 && f->cfx_kd.have_acceptor_subkey == 1) ||
               (info.enctype != lucid_et &&
                info.enctype != gk5i_enctype_canonical(lucid_et)) ||
               info.send_seq != f->send_seq ||
               (info.flags & (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)) !=
                   (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)) {
        snprintf(why, sizeof(why),
                 "gk5 says initiator %d cfx %d subkey %d enctype %d "
                 "send_seq %llu flags %#x; MIT's export says initiate %u "
                 "protocol %u subkey %u enctype %d send_seq %llu",
                 info.initiator, info.cfx, info.acceptor_subkey,
                 (int)info.enctype, (unsigned long long)info.send_seq,
                 (unsigned)info.flags, f->initiate, f->protocol,
                 f->cfx_kd.have_acceptor_subkey, (int)lucid_et,
                 (unsigned long long)f->send_seq);
    } else {
        ok = true;
    }
    cell_name(name, sizeof(name), p,
              "gk5_ctx_inquire agrees with MIT's export");
    cell(ok, name, "%s", why);
}

static void run_case(gk5_mit_realm *realm, int32_t et, enum role role,
                     enum gk5_mit_path path)
{
    gk5_mit_pair pair;
    gk5_mit_status st;
    gk5_mit_lucid *lucid = NULL;
    struct peers p;
    char text[512], name[768];
    int32_t want = lucid_enctype_for(et);
    const struct gk5_enctype *row = gk5i_enctype_get(et);

    memset(&p, 0, sizeof(p));
    snprintf(p.label, sizeof(p.label), "%s(%d) %s gk5=%s |", enctype_name(et),
             (int)et, gk5_mit_path_name(path),
             role == GK5_INITIATOR ? "initiator" : "acceptor");
    p.rfc1964 = row != NULL && row->rfc1964;

    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        cell_name(name, sizeof(name), &p, "MIT establishes the context");
        cell(false, name, "%s", gk5_mit_status_text(&st, text, sizeof(text)));
        return;
    }
    gss_ctx_id_t *exported = role == GK5_INITIATOR ? &pair.init : &pair.acc;
    p.mit = role == GK5_INITIATOR ? pair.acc : pair.init;

    /* The session key really is of the type asked for. */
    uint32_t major = gk5_mit_export_lucid(&st, exported, &lucid);
    cell_name(name, sizeof(name), &p, "MIT exports a lucid context");
    if (!cell(major == GK5_S_COMPLETE, name, "%s",
              gk5_mit_status_text(&st, text, sizeof(text)))) {
        goto cleanup;
    }
    const gk5_lucid_ctx *f = gk5_mit_lucid_fields(lucid);
    int32_t got = gk5_mit_lucid_enctype(lucid);
    bool shape = f->initiate == (role == GK5_INITIATOR) &&
                 f->protocol == (p.rfc1964 ? 0u : 1u) &&
                 (p.rfc1964 || (f->cfx_kd.have_acceptor_subkey == 1 &&
                                (int32_t)f->cfx_kd.ctx_key.type == want));
    snprintf(text, sizeof(text), "lucid token enctype %d (want %d)", (int)got,
             (int)want);
    cell_name(name, sizeof(name), &p, text);
    if (!cell(got == want && shape, name,
              "lucid: initiate %u protocol %u subkey %u ctx_key %u, "
              "acceptor_subkey %u",
              f->initiate, f->protocol, f->cfx_kd.have_acceptor_subkey,
              f->cfx_kd.ctx_key.type, f->cfx_kd.acceptor_subkey.type)) {
        goto cleanup;
    }

    major = gk5_mit_lucid_import(&st, lucid, path, &p.gk5);
    snprintf(text, sizeof(text), "gk5 imports it (%s)",
             path == GK5_MIT_PATH_LUCID
                 ? "gk5_ctx_import_lucid"
                 : "rpc.gssd buffer, gk5_ctx_import_gssd");
    cell_name(name, sizeof(name), &p, text);
    char st_text[512];
    if (!cell(major == GK5_S_COMPLETE && p.gk5 != NULL, name, "%s",
              gk5_mit_status_text(&st, st_text, sizeof(st_text)))) {
        goto cleanup;
    }
    cell_inquire(&p, f, want);

    cell_over_lengths(&p, "gk5->MIT wrap sealed", wrap_g2m, 1);
    cell_over_lengths(&p, "gk5->MIT wrap integ", wrap_g2m, 0);
    cell_over_lengths(&p, "MIT->gk5 wrap sealed", wrap_m2g, 1);
    cell_over_lengths(&p, "MIT->gk5 wrap integ", wrap_m2g, 0);
    cell_over_lengths(&p, "gk5->MIT get_mic/verify_mic", mic_g2m, 0);
    cell_over_lengths(&p, "MIT->gk5 get_mic/verify_mic", mic_m2g, 0);
    cell_wrap_iov(&p, 1);
    cell_wrap_iov(&p, 0);
    cell_long_run(&p, true);
    cell_long_run(&p, false);
    cell_replay(&p);
    cell_tamper(&p, "sealed");
    cell_tamper(&p, "integ");
    cell_tamper(&p, "mic");

cleanup:
    gk5_ctx_free(p.gk5);
    gk5_mit_lucid_free(lucid);
    gk5_mit_pair_release(&pair);
}

/* MIT makes a context gk5 must refuse: rc4 (RFC 8429), or des3 when not
 * built.  Both sides, both import paths; the KDC must really have issued
 * the type (else the refusal would prove nothing). */
static void run_refusal(gk5_mit_realm *realm, int32_t et, uint32_t code,
                        const char *words)
{
    gk5_mit_pair pair;
    gk5_mit_status st;
    char text[512], name[768], label[128];
    int32_t want = lucid_enctype_for(et);

    snprintf(label, sizeof(label), "%s(%d) refused |", enctype_name(et),
             (int)et);
    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        snprintf(name, sizeof(name), "%s MIT establishes the context", label);
        cell(false, name, "%s", gk5_mit_status_text(&st, text, sizeof(text)));
        return;
    }
    for (int side = 0; side < 2; side++) {
        gk5_mit_lucid *lucid = NULL;
        const char *role = side == 0 ? "initiator" : "acceptor";
        uint32_t major = gk5_mit_export_lucid(
            &st, side == 0 ? &pair.init : &pair.acc, &lucid);
        int32_t got =
            major == GK5_S_COMPLETE ? gk5_mit_lucid_enctype(lucid) : 0;
        snprintf(name, sizeof(name),
                 "%s MIT %s context really is enctype %d (lucid)", label, role,
                 (int)want);
        if (!cell(major == GK5_S_COMPLETE && got == want, name,
                  "export: %s; lucid enctype %d",
                  gk5_mit_status_text(&st, text, sizeof(text)), (int)got)) {
            gk5_mit_lucid_free(lucid);
            continue;
        }
        for (int path = 0; path < 2; path++) {
            gk5_ctx *ctx = NULL;
            major =
                gk5_mit_lucid_import(&st, lucid, (enum gk5_mit_path)path, &ctx);
            gk5_mit_status_text(&st, text, sizeof(text));
            bool ok = major == GK5_S_UNAVAILABLE && ctx == NULL &&
                      !st.from_mit && GK5_ERR_CODE(st.minor) == code &&
                      (GK5_ERR_ENCTYPE(st.minor) == want ||
                       GK5_ERR_ENCTYPE(st.minor) == et) &&
                      strstr(text, words) != NULL;
            snprintf(name, sizeof(name),
                     "%s gk5 refuses the %s's %s import: UNAVAILABLE, "
                     "\"%s\"",
                     label, role, gk5_mit_path_name((enum gk5_mit_path)path),
                     words);
            cell(ok, name, "got: %s (ctx %p)", text, (void *)ctx);
            if (ok) {
                printf("# %s\n", text);
            }
            gk5_ctx_free(ctx);
        }
        gk5_mit_lucid_free(lucid);
    }
    gk5_mit_pair_release(&pair);
}

int main(void)
{
    static const int32_t enctypes[] = {20, 19, 18, 17, 26, 25,
#ifdef GK5_WITH_DES3
                                       16
#endif
    };
    gk5_mit_realm realm;
    const char *dir = getenv("GK5_REALM_DIR");
    char err[512];

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (dir != NULL && dir[0] != '\0') {
        if (gk5_mit_realm_attach(&realm, dir, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
    } else {
        if (gk5_mit_realm_tools_present(err, sizeof(err)) != 0) {
            printf("1..0 # SKIP %s\n", err);
            return 0;
        }
        if (gk5_mit_realm_start(&realm, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
        gk5_mit_realm_stop_on_signals(&realm);
    }
    printf("# realm %s, KDC on 127.0.0.1:%d, %s\n", GK5_MIT_REALM_NAME,
           realm.port, realm.dir);

    for (size_t i = 0; i < sizeof(enctypes) / sizeof(enctypes[0]); i++) {
        for (int role = 0; role < 2; role++) {
            for (int path = 0; path < 2; path++) {
                run_case(&realm, enctypes[i], (enum role)role,
                         (enum gk5_mit_path)path);
            }
        }
    }
    run_refusal(&realm, 23, GK5_ERR_ENCTYPE_REJECTED, "RFC 8429");
#ifndef GK5_WITH_DES3
    run_refusal(&realm, 16, GK5_ERR_ENCTYPE_NOT_BUILT, "not built");
#endif

    gk5_mit_realm_stop(&realm);
    return tap_finish();
}
