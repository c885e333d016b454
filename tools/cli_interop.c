/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 interop: the interop matrix against any realm (interop.h).  The
 * caller's krb5.conf, a client credential (keytab or ccache), a service
 * and its keytab; for each enctype asked for, two contexts established by
 * MIT's GSS-API with only that session-key type allowed, what the KDC
 * issued, and gk5 and MIT exchanging RFC 4121 (RFC 1964 for DES3) tokens
 * both ways.  `gk5 demo` runs the same rows against its throwaway realm.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bridge/gk5_mit.h"
#include "cli.h"
#include "common/util.h"
#include "interop.h"

#define INTEROP_MAX_ENCTYPES 32

const char interop_message[] =
    "gk5 demo: one RPC's worth of payload, sealed and signed";

size_t interop_message_len(void)
{
    return sizeof(interop_message) - 1;
}

static const char *const cell_titles[INTEROP_N_CELLS] = {
    [INTEROP_SEALED_G2M] = "sealed>M", [INTEROP_INTEG_G2M] = "integ>M",
    [INTEROP_MIC_G2M] = "mic>M",       [INTEROP_SEALED_M2G] = "sealed<M",
    [INTEROP_INTEG_M2G] = "integ<M",   [INTEROP_MIC_M2G] = "mic<M",
    [INTEROP_TAMPER] = "tamper",       [INTEROP_REPLAY] = "replay",
};

/* JSON keys of the cells. */
static const char *const cell_keys[INTEROP_N_CELLS] = {
    [INTEROP_SEALED_G2M] = "sealed_gk5_to_mit",
    [INTEROP_INTEG_G2M] = "integ_gk5_to_mit",
    [INTEROP_MIC_G2M] = "mic_gk5_to_mit",
    [INTEROP_SEALED_M2G] = "sealed_mit_to_gk5",
    [INTEROP_INTEG_M2G] = "integ_mit_to_gk5",
    [INTEROP_MIC_M2G] = "mic_mit_to_gk5",
    [INTEROP_TAMPER] = "tampered_refused",
    [INTEROP_REPLAY] = "replay_refused",
};

const char *interop_cell_title(enum interop_cell cell)
{
    return cell_titles[cell];
}

const char *interop_role_name(enum interop_role role)
{
    return role == INTEROP_INITIATOR ? "initiator (lucid)" : "acceptor (gssd)";
}

const char *interop_et_col(int32_t et, char *buf, size_t len)
{
    gk5_enctype_desc d;

    snprintf(buf, len, "%s (%d)",
             gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "?", (int)et);
    return buf;
}

static void mit_words(char *why, size_t len, const char *call, OM_uint32 major,
                      OM_uint32 minor)
{
    gk5_mit_status st = {major, minor, 1, call};

    gk5_mit_status_text(&st, why, len);
}

static void gk5_words(char *why, size_t len, const char *call, uint32_t major,
                      uint32_t minor)
{
    char words[512];

    snprintf(why, len, "%s: %s", call,
             cli_gss_words(major, minor, words, sizeof(words)));
}

static bool same(const void *a, size_t a_len, const void *b, size_t b_len)
{
    return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0);
}

/* ---- Establishing a pair, both ends MIT ---- */

/* MIT's answers that mean "no ticket of this enctype": the KDC's, and the
 * local configuration's (permitted_enctypes, allow_rc4). */
static bool etype_unavailable(OM_uint32 minor)
{
    return minor == (OM_uint32)KRB5KDC_ERR_ETYPE_NOSUPP ||
           minor == (OM_uint32)KRB5_CONFIG_ETYPE_NOSUPP ||
           minor == (OM_uint32)KRB5_PROG_ETYPE_NOSUPP;
}

/* MIT's words for a krb5 minor code alone ("KDC has no support for
 * encryption type"). */
static void mit_minor_words(char *why, size_t len, OM_uint32 minor)
{
    OM_uint32 ctx = 0, rel = 0;
    gss_buffer_desc buf = GSS_C_EMPTY_BUFFER;

    if (GSS_ERROR(gss_display_status(&rel, minor, GSS_C_MECH_CODE,
                                     (gss_OID)gss_mech_krb5, &ctx, &buf))) {
        snprintf(why, len, "minor code %lu", (unsigned long)minor);
        return;
    }
    snprintf(why, len, "%.*s", (int)buf.length, (const char *)buf.value);
    (void)gss_release_buffer(&rel, &buf);
}

static void display_name(gss_name_t name, char *out, size_t len)
{
    OM_uint32 minor = 0;
    gss_buffer_desc buf = GSS_C_EMPTY_BUFFER;

    if (name != GSS_C_NO_NAME &&
        !GSS_ERROR(gss_display_name(&minor, name, &buf, NULL))) {
        snprintf(out, len, "%.*s", (int)buf.length, (const char *)buf.value);
    }
    (void)gss_release_buffer(&minor, &buf);
}

/* Establish init -> acc in-process (gk5_mit_establish_ends), the initiator
 * allowing only et.  0; 1 if no ticket of et can be had; -1 on any other
 * failure.  Words in why either way. */
static int establish(const struct gk5_mit_ends *e, int32_t et,
                     gk5_mit_pair *pair, char *why, size_t why_len)
{
    gk5_mit_status st;
    enum gk5_mit_step step;

    if (!GSS_ERROR(gk5_mit_establish_ends(&st, e, et, pair, &step))) {
        return 0;
    }
    switch (step) {
    case GK5_MIT_STEP_CLIENT_NAME:
        snprintf(why, why_len, "--client: MIT cannot read the name '%s'",
                 e->client);
        return -1;
    case GK5_MIT_STEP_SERVICE_NAME:
        snprintf(why, why_len, "--service: MIT cannot read the name '%s'",
                 e->service);
        return -1;
    case GK5_MIT_STEP_ENCTYPE:
    case GK5_MIT_STEP_INIT:
        if (etype_unavailable(st.minor)) {
            mit_minor_words(why, why_len, st.minor);
            return 1;
        }
        break;
    case GK5_MIT_STEP_INCOMPLETE:
        snprintf(why, why_len, "context establishment did not complete");
        return -1;
    case GK5_MIT_STEP_FLAGS:
        snprintf(why, why_len,
                 "MIT did not grant mutual, replay, sequence, conf and integ");
        return -1;
    default:
        break;
    }
    (void)gk5_mit_status_text(&st, why, why_len);
    return -1;
}

/* ---- The cells ---- */

static const gk5_buffer *message(void)
{
    static const gk5_buffer msg = {sizeof(interop_message) - 1,
                                   (void *)(uintptr_t)interop_message};

    return &msg;
}

/* gk5 makes a Wrap token, MIT unwraps it: RFC 4121 4.2.6.2 (RFC 1964 for
 * DES3), byte for byte. */
static bool wrap_g2m(gk5_ctx *g, gss_ctx_id_t m, int conf, size_t *size,
                     char *why, size_t len)
{
    const gk5_buffer *msg = message();
    gk5_buffer tok = {0, NULL};
    gss_buffer_desc mtok, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = 0;
    gss_qop_t qop = 0;
    bool ok = false;

    major = gk5_wrap(&minor, g, conf, GK5_QOP_DEFAULT, msg, &conf_state, &tok);
    if (major != GK5_S_COMPLETE) {
        gk5_words(why, len, "gk5_wrap", major, minor);
        goto cleanup;
    }
    *size = tok.length;
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmaj = gss_unwrap(&mmin, m, &mtok, &out, &conf_state, &qop);
    if (mmaj != GSS_S_COMPLETE) {
        mit_words(why, len, "MIT gss_unwrap", mmaj, mmin);
        goto cleanup;
    }
    if (!same(out.value, out.length, msg->value, msg->length) ||
        conf_state != conf) {
        snprintf(why, len, "MIT gss_unwrap: not the message gk5 wrapped");
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&tok);
    (void)gss_release_buffer(&mmin, &out);
    return ok;
}

/* gk5 makes a MIC token (RFC 4121 4.2.6.1), MIT verifies it. */
static bool mic_g2m(gk5_ctx *g, gss_ctx_id_t m, size_t *size, char *why,
                    size_t len)
{
    const gk5_buffer *msg = message();
    gk5_buffer tok = {0, NULL};
    gss_buffer_desc mtok, mmsg;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    gss_qop_t qop = 0;
    bool ok = false;

    major = gk5_get_mic(&minor, g, GK5_QOP_DEFAULT, msg, &tok);
    if (major != GK5_S_COMPLETE) {
        gk5_words(why, len, "gk5_get_mic", major, minor);
        goto cleanup;
    }
    *size = tok.length;
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmsg.length = msg->length;
    mmsg.value = msg->value;
    mmaj = gss_verify_mic(&mmin, m, &mmsg, &mtok, &qop);
    if (mmaj != GSS_S_COMPLETE) {
        mit_words(why, len, "MIT gss_verify_mic", mmaj, mmin);
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&tok);
    return ok;
}

/* MIT makes a Wrap token (conf 0 or 1) or, for conf < 0, a MIC token. */
static bool mit_token(gss_ctx_id_t m, int conf, gss_buffer_desc *tok, char *why,
                      size_t len)
{
    const gk5_buffer *msg = message();
    gss_buffer_desc mmsg = {msg->length, msg->value};
    OM_uint32 mmaj, mmin = 0;
    int conf_state = 0;

    if (conf < 0) {
        mmaj = gss_get_mic(&mmin, m, GSS_C_QOP_DEFAULT, &mmsg, tok);
        if (mmaj != GSS_S_COMPLETE) {
            mit_words(why, len, "MIT gss_get_mic", mmaj, mmin);
            return false;
        }
        return true;
    }
    mmaj = gss_wrap(&mmin, m, conf, GSS_C_QOP_DEFAULT, &mmsg, &conf_state, tok);
    if (mmaj != GSS_S_COMPLETE) {
        mit_words(why, len, "MIT gss_wrap", mmaj, mmin);
        return false;
    }
    return true;
}

/* gk5 takes MIT's token (a Wrap for conf >= 0, else a MIC): the status it
 * answers in *major; true if that is want and, when COMPLETE, the message
 * (and its conf_state) came back. */
static bool gk5_take(gk5_ctx *g, int conf, const gss_buffer_desc *tok,
                     uint32_t want, uint32_t *got, char *why, size_t len)
{
    const gk5_buffer *msg = message();
    gk5_buffer in = {tok->length, tok->value}, out = {0, NULL};
    uint32_t major, minor = 0, qop = 0;
    int conf_state = 0;
    bool ok = false;

    if (conf < 0) {
        major = gk5_verify_mic(&minor, g, msg, &in, &qop);
    } else {
        major = gk5_unwrap(&minor, g, &in, &out, &conf_state, &qop);
    }
    *got = major;
    if (major != want) {
        gk5_words(why, len, conf < 0 ? "gk5_verify_mic" : "gk5_unwrap", major,
                  minor);
        goto cleanup;
    }
    if (conf >= 0 && major == GK5_S_COMPLETE &&
        (!same(out.value, out.length, msg->value, msg->length) ||
         conf_state != conf)) {
        snprintf(why, len, "gk5_unwrap: not the message MIT wrapped");
        goto cleanup;
    }
    ok = true;

cleanup:
    gk5_buffer_release(&out);
    return ok;
}

/* MIT makes the token (Wrap, or MIC for conf < 0), gk5 takes it. */
static bool token_m2g(gk5_ctx *g, gss_ctx_id_t m, int conf, size_t *size,
                      char *why, size_t len)
{
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    uint32_t got;
    bool ok = false;

    if (mit_token(m, conf, &tok, why, len)) {
        *size = tok.length;
        ok = gk5_take(g, conf, &tok, GK5_S_COMPLETE, &got, why, len);
    }
    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

/* Altered MIT tokens (sealed Wrap and MIC; a bit flipped in the header's
 * sequence number, in the middle, in the last byte): BAD_SIG or
 * DEFECTIVE_TOKEN and no plaintext.  Then the intact token passes: a
 * refused token changes no state. */
static bool tamper_m2g(gk5_ctx *g, gss_ctx_id_t m, char *why, size_t len)
{
    static const int kinds[] = {1, -1}; /* sealed Wrap, MIC */
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    uint8_t *bad = NULL;
    uint32_t got;
    bool ok = false;

    for (size_t k = 0; k < GK5_ARRAY_SIZE(kinds); k++) {
        int conf = kinds[k];
        if (!mit_token(m, conf, &tok, why, len)) {
            goto cleanup;
        }
        bad = malloc(tok.length);
        if (bad == NULL) {
            snprintf(why, len, "out of memory");
            goto cleanup;
        }
        const size_t where[] = {12, tok.length / 2, tok.length - 1};
        for (size_t w = 0; w < GK5_ARRAY_SIZE(where); w++) {
            size_t at = where[w] % tok.length;
            gss_buffer_desc altered = {tok.length, bad};
            memcpy(bad, tok.value, tok.length);
            bad[at] ^= 0x01;
            (void)gk5_take(g, conf, &altered, GK5_S_COMPLETE, &got, why, len);
            if (GK5_ROUTINE_ERROR(got) != GK5_S_BAD_SIG &&
                GK5_ROUTINE_ERROR(got) != GK5_S_DEFECTIVE_TOKEN) {
                snprintf(why, len, "%s with byte %zu flipped: gk5 answered %s",
                         conf < 0 ? "MIC" : "sealed Wrap", at,
                         gk5_major_name(got));
                goto cleanup;
            }
        }
        if (!gk5_take(g, conf, &tok, GK5_S_COMPLETE, &got, why, len)) {
            size_t used = strlen(why);
            snprintf(why + used, len - used,
                     " (the intact token after its altered copies)");
            goto cleanup;
        }
        free(bad);
        bad = NULL;
        (void)gss_release_buffer(&mmin, &tok);
    }
    why[0] = '\0';
    ok = true;

cleanup:
    free(bad);
    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

/* An MIT Wrap token and an MIC token each delivered twice: the second
 * time gk5 answers GSS_S_DUPLICATE_TOKEN (RFC 4121 4.2.6, RFC 2743
 * 1.2.3). */
static bool replay_m2g(gk5_ctx *g, gss_ctx_id_t m, char *why, size_t len)
{
    static const int kinds[] = {1, -1};
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    uint32_t got;
    bool ok = false;

    for (size_t k = 0; k < GK5_ARRAY_SIZE(kinds); k++) {
        if (!mit_token(m, kinds[k], &tok, why, len) ||
            !gk5_take(g, kinds[k], &tok, GK5_S_COMPLETE, &got, why, len)) {
            goto cleanup;
        }
        if (!gk5_take(g, kinds[k], &tok, GK5_S_DUPLICATE_TOKEN, &got, why,
                      len)) {
            size_t used = strlen(why);
            snprintf(why + used, len - used, " (the token delivered again)");
            goto cleanup;
        }
        (void)gss_release_buffer(&mmin, &tok);
    }
    ok = true;

cleanup:
    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

static void run_cells(gk5_ctx *g, gss_ctx_id_t m, struct interop_role_result *r)
{
    r->ran = true;
    r->ok[INTEROP_SEALED_G2M] =
        wrap_g2m(g, m, 1, &r->size[INTEROP_SEALED_G2M],
                 r->why[INTEROP_SEALED_G2M], sizeof(r->why[0]));
    r->ok[INTEROP_INTEG_G2M] =
        wrap_g2m(g, m, 0, &r->size[INTEROP_INTEG_G2M],
                 r->why[INTEROP_INTEG_G2M], sizeof(r->why[0]));
    r->ok[INTEROP_MIC_G2M] =
        mic_g2m(g, m, &r->size[INTEROP_MIC_G2M], r->why[INTEROP_MIC_G2M],
                sizeof(r->why[0]));
    r->ok[INTEROP_SEALED_M2G] =
        token_m2g(g, m, 1, &r->size[INTEROP_SEALED_M2G],
                  r->why[INTEROP_SEALED_M2G], sizeof(r->why[0]));
    r->ok[INTEROP_INTEG_M2G] =
        token_m2g(g, m, 0, &r->size[INTEROP_INTEG_M2G],
                  r->why[INTEROP_INTEG_M2G], sizeof(r->why[0]));
    r->ok[INTEROP_MIC_M2G] =
        token_m2g(g, m, -1, &r->size[INTEROP_MIC_M2G], r->why[INTEROP_MIC_M2G],
                  sizeof(r->why[0]));
    r->ok[INTEROP_TAMPER] =
        tamper_m2g(g, m, r->why[INTEROP_TAMPER], sizeof(r->why[0]));
    r->ok[INTEROP_REPLAY] =
        replay_m2g(g, m, r->why[INTEROP_REPLAY], sizeof(r->why[0]));
}

/* ---- One row ---- */

/* The ticket's session key type from the lucid export: the context key
 * (MIT's initiator subkey is made of the session key's type).  DES3 is
 * exported as des3-cbc-raw (6). */
static int32_t issued_enctype(const gk5_mit_lucid *lucid)
{
    const gk5_lucid_ctx *f = gk5_mit_lucid_fields(lucid);
    int32_t et = (int32_t)(f->protocol != 0 ? f->cfx_kd.ctx_key.type
                                            : f->rfc1964_kd.ctx_key.type);
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.enctype : et;
}

/* gk5 in one role for et.  The outcome; words in note unless it ran. */
static enum interop_outcome run_role(const struct gk5_mit_ends *e, int32_t et,
                                     enum interop_role role,
                                     struct interop_row *row)
{
    struct interop_role_result *r = &row->role[role];
    enum gk5_mit_path path =
        role == INTEROP_INITIATOR ? GK5_MIT_PATH_LUCID : GK5_MIT_PATH_GSSD;
    gk5_mit_pair pair = {GSS_C_NO_CONTEXT, GSS_C_NO_CONTEXT, 0, 0};
    gk5_mit_lucid *lucid = NULL;
    gk5_mit_status st;
    gk5_ctx *g = NULL;
    OM_uint32 rel = 0;
    char why[512], text[512], col[64];
    enum interop_outcome out = INTEROP_FAILED;
    bool table_ok = gk5_enctype_check(et) == GK5_OK;

    int rc = establish(e, et, &pair, why, sizeof(why));
    if (rc != 0) {
        if (rc > 0) {
            snprintf(row->note, sizeof(row->note),
                     "KDC cannot issue (MIT: %.440s)", why);
        } else {
            snprintf(row->note, sizeof(row->note), "MIT: %.440s", why);
        }
        return rc > 0 ? INTEROP_CANNOT_ISSUE : INTEROP_FAILED;
    }
    if (row->client[0] == '\0') {
        gss_name_t src = GSS_C_NO_NAME, targ = GSS_C_NO_NAME;
        /* The acceptor's view: the service's name with its realm (the
         * initiator's may be a referral name with an empty realm). */
        if (!GSS_ERROR(gss_inquire_context(&rel, pair.acc, &src, &targ, NULL,
                                           NULL, NULL, NULL, NULL))) {
            display_name(src, row->client, sizeof(row->client));
            display_name(targ, row->service, sizeof(row->service));
        }
        (void)gss_release_name(&rel, &src);
        (void)gss_release_name(&rel, &targ);
    }
    gss_ctx_id_t *mine = role == INTEROP_INITIATOR ? &pair.init : &pair.acc;
    gss_ctx_id_t theirs = role == INTEROP_INITIATOR ? pair.acc : pair.init;
    if (GK5_ERROR(gk5_mit_export_lucid(&st, mine, &lucid)) != 0) {
        snprintf(row->note, sizeof(row->note), "MIT export: %.440s",
                 gk5_mit_status_text(&st, text, sizeof(text)));
        goto cleanup;
    }
    row->issued = issued_enctype(lucid);
    r->token_enctype = gk5_mit_lucid_enctype(lucid);
    if (row->issued != et) {
        snprintf(row->note, sizeof(row->note), "not issued: KDC issued %s",
                 interop_et_col(row->issued, col, sizeof(col)));
        out = INTEROP_NOT_ISSUED;
        goto cleanup;
    }
    uint32_t major = gk5_mit_lucid_import(&st, lucid, path, &g);
    if (major != GK5_S_COMPLETE) {
        if (!st.from_mit && !table_ok) {
            r->refusal_major = major;
            r->refusal_minor = st.minor;
            snprintf(row->note, sizeof(row->note), "refused: %s",
                     gk5_strerror(st.minor));
            out = INTEROP_REFUSED;
        } else {
            snprintf(row->note, sizeof(row->note), "%s import: %.440s",
                     gk5_mit_path_name(path),
                     gk5_mit_status_text(&st, text, sizeof(text)));
        }
        goto cleanup;
    }
    if (!table_ok) {
        snprintf(row->note, sizeof(row->note),
                 "%s import ACCEPTED it (gk5's table refuses it)",
                 gk5_mit_path_name(path));
        goto cleanup;
    }
    run_cells(g, theirs, r);
    out = INTEROP_RAN;

cleanup:
    gk5_ctx_free(g);
    gk5_mit_lucid_free(lucid);
    gk5_mit_pair_release(&pair);
    return out;
}

void interop_row_run(const struct gk5_mit_ends *e, int32_t et,
                     struct interop_row *row)
{
    memset(row, 0, sizeof(*row));
    row->requested = et;
    for (int role = 0; role < INTEROP_N_ROLES; role++) {
        char note[sizeof(row->note)];
        enum interop_outcome out =
            run_role(e, et, (enum interop_role)role, row);
        if (out == INTEROP_RAN) {
            continue;
        }
        if (out == INTEROP_REFUSED && role == INTEROP_INITIATOR) {
            /* And the other import path must refuse it too. */
            row->outcome = out;
            continue;
        }
        if (out == INTEROP_FAILED) {
            snprintf(note, sizeof(note), "gk5 as %s: %.440s",
                     interop_role_name((enum interop_role)role), row->note);
            memcpy(row->note, note, sizeof(note));
        }
        row->outcome = out;
        return;
    }
}

int interop_row_failures(const struct interop_row *row)
{
    int failed = 0;

    if (row->outcome == INTEROP_FAILED) {
        return 1;
    }
    for (int role = 0; role < INTEROP_N_ROLES; role++) {
        for (int c = 0; row->role[role].ran && c < INTEROP_N_CELLS; c++) {
            failed += !row->role[role].ok[c];
        }
    }
    return failed;
}

/* ---- gk5 interop ---- */

static void interop_usage(FILE *f)
{
    fprintf(
        f, "Usage: gk5 interop --service SERVICE@HOST\n"
           "                   (--service-keytab FILE | --loopback)\n"
           "                   [--client-keytab FILE] [--client PRINCIPAL]\n"
           "                   [--ccache NAME] [--enctypes LIST] [--json]\n"
           "\n"
           "The interop matrix against a realm of yours: for each enctype, two "
           "security\ncontexts are established in this process with MIT's "
           "GSS-API (initiator and\nacceptor both MIT, the initiator allowing "
           "only that session-key type); one\nside of each moves into gk5 (as "
           "initiator by the lucid import, as acceptor\nby rpc.gssd's buffer) "
           "and gk5 and MIT exchange tokens both ways: sealed\nand "
           "integrity-only Wrap tokens and MICs from gk5 to MIT (>M) and from "
           "MIT\nto gk5 (<M), altered MIT tokens refused (tamper), MIT tokens "
           "delivered twice\nrefused (replay).  A cell is ok when it passed in "
           "both gk5 roles.\n"
           "\n"
           "MIT reads krb5.conf as always (KRB5_CONFIG, else /etc/krb5.conf).\n"
           "  --service NAME          the target: service@host, or a krb5 "
           "name with a '/'\n"
           "                          (nfs/server.example.com@EXAMPLE.COM)\n"
           "  --service-keytab FILE   the service's keys, for the acceptor\n"
           "  --loopback              no --service-keytab: the acceptor (in "
           "this process\n"
           "                          too) uses MIT's default keytab "
           "(KRB5_KTNAME)\n"
           "  --client-keytab FILE    the client's initial credentials from "
           "this keytab\n"
           "                          (into a MEMORY: ccache unless --ccache)\n"
           "  --client PRINCIPAL      the client (default: the ccache's or "
           "keytab's)\n"
           "  --ccache NAME           the client's ccache (default: the "
           "default ccache)\n"
           "  --enctypes LIST         names or numbers, comma-separated "
           "(default: every\n"
           "                          enctype gk5 supports in this build, and "
           "rc4-hmac (23)\n"
           "                          to show gk5's refusal, RFC 8429)\n"
           "  --json                  the same as one JSON object\n"
           "\n"
           "A row per enctype: requested, issued (the ticket's session key), "
           "the cells,\nor why none ran: 'refused: ...' (gk5 will not use it), "
           "'not issued: KDC\nissued X', 'KDC cannot issue (...)'.  A type the "
           "realm cannot issue is\nreported, not failed.\n"
           "\n"
           "Example, a realm of yours (kinit done, the service's keytab at "
           "hand):\n"
           "  gk5 interop --service nfs@server.example.com \\\n"
           "      --service-keytab /etc/krb5.keytab \\\n"
           "      --enctypes aes256-cts-hmac-sha384-192,18\n"
           "With a client keytab instead of kinit:\n"
           "  gk5 interop --client-keytab alice.keytab --client "
           "alice@EXAMPLE.COM \\\n"
           "      --service host@server.example.com --service-keytab "
           "host.keytab --json\n"
           "\n"
           "Exit status: 0 every cell that ran passed, 1 a cell (or an "
           "establishment)\nfailed, 2 bad usage.\n");
}

/* 0, or CLI_EXIT_USAGE with the message printed. */
static int parse_enctypes(const char *list, int32_t *ets, size_t *n)
{
    char copy[512];

    *n = 0;
    if (strlen(list) >= sizeof(copy)) {
        cli_error("interop: --enctypes: list too long");
        return CLI_EXIT_USAGE;
    }
    strcpy(copy, list);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        int32_t et;
        gk5_enctype_desc d;
        if (*n == INTEROP_MAX_ENCTYPES) {
            cli_error("interop: --enctypes: at most %d enctypes",
                      INTEROP_MAX_ENCTYPES);
            return CLI_EXIT_USAGE;
        }
        if (gk5_enctype_from_name(t, &et) != GK5_OK || et <= 0 ||
            gk5_enctype_describe(et, &d) != GK5_OK) {
            cli_error("interop: --enctypes: unknown enctype '%s' (see 'gk5 "
                      "enctypes')",
                      t);
            return CLI_EXIT_USAGE;
        }
        ets[(*n)++] = et;
    }
    if (*n == 0) {
        cli_error("interop: --enctypes: empty list");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Every enctype this build supports, in the table's order, then rc4. */
static void default_enctypes(int32_t *ets, size_t *n)
{
    size_t count = gk5_enctype_count();

    *n = 0;
    for (size_t i = 0; i < count && *n < INTEROP_MAX_ENCTYPES - 1; i++) {
        gk5_enctype_desc d;
        if (gk5_enctype_row(i, &d) == GK5_OK &&
            d.state == GK5_ENCTYPE_SUPPORTED) {
            ets[(*n)++] = d.enctype;
        }
    }
    ets[(*n)++] = 23;
}

static const char *outcome_word(enum interop_outcome o)
{
    switch (o) {
    case INTEROP_RAN:
        return "ran";
    case INTEROP_NOT_ISSUED:
        return "not issued";
    case INTEROP_CANNOT_ISSUE:
        return "cannot issue";
    case INTEROP_REFUSED:
        return "refused";
    case INTEROP_FAILED:
        return "failed";
    }
    return "?";
}

/* A cell over both roles: ok only if it passed in each. */
static bool cell_ok(const struct interop_row *row, int c)
{
    return row->role[INTEROP_INITIATOR].ok[c] &&
           row->role[INTEROP_ACCEPTOR].ok[c];
}

static void print_table(const struct interop_row *rows, size_t n,
                        const char *client, const char *service)
{
    char req[64], iss[64];

    printf("Client %s, service %s.\n", client, service);
    printf("'>M': gk5 made the token, MIT took it; '<M': MIT made it, gk5 "
           "took it.\nEach cell ran with gk5 as initiator (lucid import) "
           "and as acceptor\n(rpc.gssd's buffer); 'ok' = both passed.\n\n");
    printf("%-32s %-32s", "requested", "issued");
    for (int c = 0; c < INTEROP_N_CELLS; c++) {
        printf(c + 1 < INTEROP_N_CELLS ? " %-8s" : " %s", cell_titles[c]);
    }
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        const struct interop_row *row = &rows[i];
        interop_et_col(row->requested, req, sizeof(req));
        if (row->issued != 0) {
            interop_et_col(row->issued, iss, sizeof(iss));
        } else {
            snprintf(iss, sizeof(iss), "-");
        }
        printf("%-32s %-32s", req, iss);
        if (row->outcome == INTEROP_RAN) {
            for (int c = 0; c < INTEROP_N_CELLS; c++) {
                printf(c + 1 < INTEROP_N_CELLS ? " %-8s" : " %s",
                       cell_ok(row, c) ? "ok" : "FAIL");
            }
            printf("\n");
        } else {
            printf(" %s%s\n", row->outcome == INTEROP_FAILED ? "FAIL: " : "",
                   row->note);
        }
    }
    /* Why each failed cell failed, under the table. */
    for (size_t i = 0; i < n; i++) {
        for (int role = 0; role < INTEROP_N_ROLES; role++) {
            const struct interop_role_result *r = &rows[i].role[role];
            for (int c = 0; r->ran && c < INTEROP_N_CELLS; c++) {
                if (!r->ok[c]) {
                    printf("FAIL %s %s, gk5 as %s: %s\n",
                           interop_et_col(rows[i].requested, req, sizeof(req)),
                           cell_titles[c],
                           interop_role_name((enum interop_role)role),
                           r->why[c]);
                }
            }
        }
    }
}

static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            printf("\\%c", *p);
        } else if (*p < 0x20) {
            printf("\\u%04x", *p);
        } else {
            putchar(*p);
        }
    }
    putchar('"');
}

static void json_enctype(const char *key, int32_t et)
{
    gk5_enctype_desc d;

    printf("\"%s\": ", key);
    if (et == 0) {
        printf("null");
    } else {
        printf("{\"number\": %d, \"name\": ", (int)et);
        json_string(gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "?");
        printf("}");
    }
}

static void print_json(const struct interop_row *rows, size_t n,
                       const char *realm, const char *client,
                       const char *service, int failed)
{
    printf("{\"realm\": ");
    json_string(realm);
    printf(", \"client\": ");
    json_string(client);
    printf(", \"service\": ");
    json_string(service);
    printf(", \"rows\": [");
    for (size_t i = 0; i < n; i++) {
        const struct interop_row *row = &rows[i];
        printf("%s\n  {", i > 0 ? "," : "");
        json_enctype("requested", row->requested);
        printf(", ");
        json_enctype("issued", row->issued);
        printf(", \"outcome\": ");
        json_string(outcome_word(row->outcome));
        if (row->outcome != INTEROP_RAN) {
            printf(", \"note\": ");
            json_string(row->note);
        } else {
            printf(", \"cells\": {");
            for (int c = 0; c < INTEROP_N_CELLS; c++) {
                printf("%s\"%s\": ", c > 0 ? ", " : "", cell_keys[c]);
                json_string(cell_ok(row, c) ? "ok" : "FAIL");
            }
            printf("}, \"why\": [");
            bool first = true;
            for (int role = 0; role < INTEROP_N_ROLES; role++) {
                const struct interop_role_result *r = &row->role[role];
                for (int c = 0; c < INTEROP_N_CELLS; c++) {
                    if (r->ok[c]) {
                        continue;
                    }
                    char w[512];
                    snprintf(w, sizeof(w), "%s, gk5 as %s: %s", cell_keys[c],
                             interop_role_name((enum interop_role)role),
                             r->why[c]);
                    printf("%s", first ? "" : ", ");
                    json_string(w);
                    first = false;
                }
            }
            printf("]");
        }
        printf(", \"failures\": %d}", interop_row_failures(row));
    }
    printf("\n], \"failures\": %d}\n", failed);
}

int gk5_cli_interop(int argc, char **argv)
{
    enum {
        OPT_SERVICE = 256,
        OPT_SERVICE_KT,
        OPT_LOOPBACK,
        OPT_CLIENT,
        OPT_CLIENT_KT,
        OPT_CCACHE,
        OPT_ENCTYPES,
        OPT_JSON,
    };
    static const struct option longopts[] = {
        {"service", required_argument, NULL, OPT_SERVICE},
        {"service-keytab", required_argument, NULL, OPT_SERVICE_KT},
        {"loopback", no_argument, NULL, OPT_LOOPBACK},
        {"client", required_argument, NULL, OPT_CLIENT},
        {"client-keytab", required_argument, NULL, OPT_CLIENT_KT},
        {"ccache", required_argument, NULL, OPT_CCACHE},
        {"enctypes", required_argument, NULL, OPT_ENCTYPES},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gk5_mit_ends ends;
    struct interop_row *rows = NULL;
    int32_t ets[INTEROP_MAX_ENCTYPES];
    size_t n_ets = 0;
    bool loopback = false, json = false;
    const char *client = "?", *service = "?", *realm = "?";
    int c, failed = 0, rc;

    memset(&ends, 0, sizeof(ends));
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            interop_usage(stdout);
            return CLI_EXIT_OK;
        case OPT_SERVICE:
            ends.service = optarg;
            break;
        case OPT_SERVICE_KT:
            ends.service_keytab = optarg;
            break;
        case OPT_LOOPBACK:
            loopback = true;
            break;
        case OPT_CLIENT:
            ends.client = optarg;
            break;
        case OPT_CLIENT_KT:
            ends.client_keytab = optarg;
            break;
        case OPT_CCACHE:
            ends.ccache = optarg;
            break;
        case OPT_ENCTYPES:
            if ((rc = parse_enctypes(optarg, ets, &n_ets)) != 0) {
                return rc;
            }
            break;
        case OPT_JSON:
            json = true;
            break;
        default:
            return cli_option_error("interop", c, argv);
        }
    }
    if (optind < argc) {
        cli_error("interop: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (ends.service == NULL || ends.service[0] == '\0') {
        cli_error("interop: --service is needed: the target, service@host "
                  "(e.g. nfs@server.example.com)");
        fprintf(stderr, "Try 'gk5 interop --help'.\n");
        return CLI_EXIT_USAGE;
    }
    if (ends.service_keytab == NULL && !loopback) {
        cli_error("interop: the acceptor needs the service's keys: "
                  "--service-keytab FILE, or --loopback to take them from "
                  "MIT's default keytab (KRB5_KTNAME); this tool runs both "
                  "ends");
        fprintf(stderr, "Try 'gk5 interop --help'.\n");
        return CLI_EXIT_USAGE;
    }
    if (n_ets == 0) {
        default_enctypes(ets, &n_ets);
    }
    rows = calloc(n_ets, sizeof(*rows));
    if (rows == NULL) {
        cli_error("interop: out of memory");
        return CLI_EXIT_FAIL;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < n_ets; i++) {
        interop_row_run(&ends, ets[i], &rows[i]);
        failed += interop_row_failures(&rows[i]);
        if (strcmp(client, "?") == 0 && rows[i].client[0] != '\0') {
            client = rows[i].client;
            service = rows[i].service;
        }
    }
    if (strcmp(client, "?") == 0 && ends.client != NULL) {
        client = ends.client;
    }
    if (strcmp(service, "?") == 0) {
        service = ends.service;
    }
    if (strchr(client, '@') != NULL) {
        realm = strrchr(client, '@') + 1;
    }
    if (json) {
        print_json(rows, n_ets, realm, client, service, failed);
    } else {
        printf("Realm %s.  ", realm);
        print_table(rows, n_ets, client, service);
        printf("\n%s\n", failed == 0 ? "All cells that ran passed."
                                     : "SOME CELLS FAILED.");
    }
    free(rows);
    if (fflush(stdout) != 0) {
        cli_error("interop: cannot write output");
        return CLI_EXIT_FAIL;
    }
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
