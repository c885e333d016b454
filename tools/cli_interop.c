/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 interop: the interop matrix against any realm (interop.h).  The
 * caller's krb5.conf, a client credential (keytab or ccache), a service
 * and its keytab; for each enctype asked for, two contexts established by
 * MIT's GSS-API with only that session-key type allowed, what the KDC
 * issued, and gk5 and MIT exchanging RFC 4121 (RFC 1964 for DES3) tokens
 * both ways.  Under each row the native column: gk5_initiator (its
 * tickets through gk5_kinit and gk5's KDC client) against MIT's acceptor,
 * and MIT's initiator against gk5_accept, the same cells.  `gk5 demo` runs
 * the same rows against its throwaway realm.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "bridge/lucid.h"
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
    int failed = row->outcome == INTEROP_FAILED ? 1 : 0;

    for (int role = 0; failed == 0 && role < INTEROP_N_ROLES; role++) {
        for (int c = 0; row->role[role].ran && c < INTEROP_N_CELLS; c++) {
            failed += !row->role[role].ok[c];
        }
    }
    for (int nr = 0; row->native_ran && nr < INTEROP_N_NATIVE; nr++) {
        const struct interop_native_result *res = &row->native[nr];
        if (res->outcome == INTEROP_FAILED) {
            failed++;
        }
        for (int c = 0; res->cells.ran && c < INTEROP_N_CELLS; c++) {
            failed += !res->cells.ok[c];
        }
    }
    return failed;
}

/* ---- The native column: gk5's own initiator and acceptor ---- */

const char *interop_native_name(enum interop_native_role role)
{
    return role == INTEROP_NATIVE_INITIATOR ? "native initiator"
                                            : "native acceptor";
}

/* gk5's words for a failed call: gk5_display_status, and the KRB-ERROR
 * that came (gk5_krb_last_error) if one did. */
static void native_words(char *why, size_t len, const char *call,
                         uint32_t major, uint32_t minor)
{
    const char *krb = gk5_krb_last_error();
    char words[320];

    snprintf(words, sizeof(words), "%s", gk5_display_status(major, minor));
    snprintf(why, len, "%s: %s%s%.160s", call, words, krb != NULL ? ": " : "",
             krb != NULL ? krb : "");
}

static OM_uint32 native_import_name(const char *text, gss_name_t *name,
                                    OM_uint32 *minor)
{
    gss_buffer_desc buf = {strlen(text), (void *)(uintptr_t)text};
    gss_OID type = strchr(text, '/') == NULL
                       ? GSS_C_NT_HOSTBASED_SERVICE
                       : (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME;

    return gss_import_name(minor, &buf, type, name);
}

/* MIT's acceptor credential for ends' service, as the existing cells take
 * it: the service keytab (else MIT's default) and the replay cache. */
static bool native_mit_acc_cred(const struct gk5_mit_ends *e,
                                gss_cred_id_t *cred, char *why, size_t len)
{
    gss_key_value_element_desc elems[2];
    gss_key_value_set_desc store = {0, elems};
    gss_name_t service = GSS_C_NO_NAME;
    OM_uint32 major, minor = 0, rel = 0;

    major = native_import_name(e->service, &service, &minor);
    if (GSS_ERROR(major)) {
        mit_words(why, len, "MIT gss_import_name (service)", major, minor);
        return false;
    }
    if (e->service_keytab != NULL) {
        elems[store.count++] =
            (gss_key_value_element_desc){"keytab", e->service_keytab};
    }
    if (e->rcache != NULL) {
        elems[store.count++] =
            (gss_key_value_element_desc){"rcache", e->rcache};
    }
    major = gss_acquire_cred_from(&minor, service, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &store, cred, NULL, NULL);
    (void)gss_release_name(&rel, &service);
    if (GSS_ERROR(major)) {
        mit_words(why, len, "MIT gss_acquire_cred_from (acceptor)", major,
                  minor);
        return false;
    }
    return true;
}

/* MIT's initiator credential as the existing cells take it (the client
 * keytab into MIT's ccache, or the caller's ccache), allowing only et.
 * 0; 1 when et cannot be had; -1 on another failure. */
static int native_mit_init_cred(const struct gk5_mit_ends *e, int32_t et,
                                gss_cred_id_t *cred, char *why, size_t len)
{
    gss_key_value_element_desc elems[2];
    gss_key_value_set_desc store = {0, elems};
    gss_name_t client = GSS_C_NO_NAME;
    OM_uint32 major, minor = 0, rel = 0;
    krb5_enctype wanted = et;
    gss_buffer_desc buf;

    if (e->client != NULL) {
        buf.length = strlen(e->client);
        buf.value = (void *)(uintptr_t)e->client;
        major = gss_import_name(&minor, &buf,
                                (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &client);
        if (GSS_ERROR(major)) {
            mit_words(why, len, "MIT gss_import_name (client)", major, minor);
            return -1;
        }
    }
    if (e->client_keytab != NULL) {
        elems[store.count++] =
            (gss_key_value_element_desc){"client_keytab", e->client_keytab};
    }
    if (e->ccache != NULL || e->client_keytab != NULL) {
        elems[store.count++] = (gss_key_value_element_desc){
            "ccache", e->ccache != NULL ? e->ccache : "MEMORY:gk5-interop"};
    }
    major = gss_acquire_cred_from(&minor, client, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &store, cred, NULL, NULL);
    (void)gss_release_name(&rel, &client);
    if (GSS_ERROR(major)) {
        mit_words(why, len, "MIT gss_acquire_cred_from (initiator)", major,
                  minor);
        return -1;
    }
    major = gss_krb5_set_allowable_enctypes(&minor, *cred, 1, &wanted);
    if (GSS_ERROR(major)) {
        if (etype_unavailable(minor)) {
            mit_minor_words(why, len, minor);
            return 1;
        }
        mit_words(why, len, "MIT gss_krb5_set_allowable_enctypes", major,
                  minor);
        return -1;
    }
    return 0;
}

/* Remove the run's folder and what is in it (the ccache wiped first). */
void interop_native_done(struct interop_native *n)
{
    uint32_t minor = 0;
    DIR *d;

    if (n->copy != NULL) {
        zap(n->copy, n->copy_len);
        free(n->copy);
        n->copy = NULL;
    }
    if (n->dir[0] == '\0') {
        return;
    }
    if (gk5_ccache_destroy(&minor, n->ccache) != GK5_S_COMPLETE) {
        /* Not there (a row never wrote it): the folder goes below. */
    }
    d = opendir(n->dir);
    if (d != NULL) {
        struct dirent *ent;
        while ((ent = readdir(d)) != NULL) {
            char path[sizeof(n->dir) + 260];
            if (strcmp(ent->d_name, ".") == 0 ||
                strcmp(ent->d_name, "..") == 0) {
                continue;
            }
            snprintf(path, sizeof(path), "%s/%s", n->dir, ent->d_name);
            (void)unlink(path);
        }
        closedir(d);
    }
    (void)rmdir(n->dir);
    n->dir[0] = '\0';
}

/* The caller's ccache as MIT names it: --ccache, else MIT's default
 * (KRB5CCNAME, krb5.conf's default_ccache_name, FILE:/tmp/krb5cc_UID). */
static bool mit_default_ccache(char *out, size_t len)
{
    krb5_context kc = NULL;
    const char *name;
    bool ok = false;

    if (krb5_init_context(&kc) != 0) {
        return false;
    }
    name = krb5_cc_default_name(kc);
    if (name != NULL && strlen(name) < len) {
        strcpy(out, name);
        ok = true;
    }
    krb5_free_context(kc);
    return ok;
}

/* Read the caller's FILE ccache into n->copy, or say why not. */
static void native_copy_ccache(struct interop_native *n, const char *name)
{
    uint32_t major, minor = 0;
    char *path = NULL;
    FILE *f;

    major = gk5_ccache_resolve(&minor, name, &path);
    if (major != GK5_S_COMPLETE) {
        if (GK5_ERR_CODE(minor) == GK5_ERR_CCACHE_TYPE) {
            snprintf(n->skip, sizeof(n->skip),
                     "the ccache %.300s is not a FILE cache, which alone gk5 "
                     "reads (give --client-keytab to have gk5_kinit get a "
                     "ticket)",
                     name);
        } else {
            native_words(n->fault, sizeof(n->fault), "gk5_ccache_resolve",
                         major, minor);
        }
        return;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(n->fault, sizeof(n->fault), "the ccache %.300s: %s", path,
                 strerror(errno));
        free(path);
        return;
    }
    for (;;) {
        unsigned char chunk[4096];
        size_t got = fread(chunk, 1, sizeof(chunk), f);
        if (got == 0) {
            break;
        }
        unsigned char *more = realloc(n->copy, n->copy_len + got);
        if (more == NULL) {
            snprintf(n->fault, sizeof(n->fault), "out of memory");
            break;
        }
        n->copy = more;
        memcpy(n->copy + n->copy_len, chunk, got);
        n->copy_len += got;
        zap(chunk, sizeof(chunk));
    }
    if (ferror(f) && n->fault[0] == '\0') {
        snprintf(n->fault, sizeof(n->fault), "the ccache %.300s: read error",
                 path);
    }
    fclose(f);
    free(path);
}

int interop_native_setup(struct interop_native *n, const struct gk5_mit_ends *e,
                         char *why, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char name[512];

    memset(n, 0, sizeof(*n));
    if (tmp == NULL || tmp[0] == '\0') {
        tmp = "/tmp";
    }
    if (snprintf(n->dir, sizeof(n->dir), "%s/gk5-interop.XXXXXX", tmp) >=
        (int)sizeof(n->dir)) {
        n->dir[0] = '\0';
        snprintf(why, len, "TMPDIR is too long");
        return -1;
    }
    if (mkdtemp(n->dir) == NULL) {
        snprintf(why, len, "%s: %s", n->dir, strerror(errno));
        n->dir[0] = '\0';
        return -1;
    }
    snprintf(n->ccache, sizeof(n->ccache), "FILE:%s/ccache", n->dir);
    if (e->client_keytab != NULL) {
        return 0; /* gk5_kinit fills the ccache for each row */
    }
    if (e->ccache != NULL) {
        snprintf(name, sizeof(name), "%s", e->ccache);
    } else if (!mit_default_ccache(name, sizeof(name))) {
        snprintf(n->fault, sizeof(n->fault),
                 "MIT cannot name its default ccache");
        return 0;
    }
    native_copy_ccache(n, name);
    return 0;
}

int interop_native_use(struct interop_native *n, const char *ccache)
{
    memset(n, 0, sizeof(*n));
    if (snprintf(n->ccache, sizeof(n->ccache), "%s", ccache) >=
        (int)sizeof(n->ccache)) {
        n->ccache[0] = '\0';
        return -1;
    }
    n->caller_filled = true;
    return 0;
}

/* The run's ccache afresh for a row: a TGT from the KDC through gk5's own
 * client (gk5_kinit with the client keytab), or the caller's cache
 * copied.  No service ticket of an earlier row is left in it.  A cache
 * the caller filled is left as it is. */
static bool native_fill_ccache(const struct gk5_mit_ends *e,
                               const struct interop_native *n, char *why,
                               size_t len)
{
    const char *path = n->ccache + strlen("FILE:");

    if (n->caller_filled) {
        return true;
    }
    if (e->client_keytab != NULL) {
        gk5_kinit_opts o;
        gk5_kinit_info info;
        uint32_t major, minor = 0;

        memset(&o, 0, sizeof(o));
        o.ccache = n->ccache;
        o.principal = e->client;
        o.keytab = e->client_keytab;
        major = gk5_kinit(&minor, &o, &info);
        if (major != GK5_S_COMPLETE) {
            native_words(why, len, "gk5_kinit", major, minor);
            if (info.step == GK5_TKT_STEP_CONFIG && info.detail[0] != '\0') {
                size_t used = strlen(why);
                snprintf(why + used, len - used, " (%s)", info.detail);
            }
        }
        gk5_kinit_info_release(&info);
        return major == GK5_S_COMPLETE;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < n->copy_len;) {
        ssize_t w = write(fd, n->copy + off, n->copy_len - off);
        ok = w > 0;
        off += ok ? (size_t)w : 0;
    }
    if (fd >= 0 && close(fd) != 0) {
        ok = false;
    }
    if (!ok) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
    }
    return ok;
}

/* The session key enctype of the service ticket in the run's ccache: a
 * credential that is neither a TGT nor a configuration entry, the one of
 * want when there is one (a cache the caller filled may hold a ticket per
 * enctype), else the last. */
static int32_t native_ticket_enctype(const struct interop_native *n,
                                     int32_t want)
{
    gk5_ccache_info *info = NULL;
    uint32_t minor = 0;
    int32_t et = 0;

    if (gk5_ccache_list(&minor, n->ccache, &info) != GK5_S_COMPLETE) {
        return 0;
    }
    for (size_t i = 0; i < info->n; i++) {
        const gk5_ccache_cred *c = &info->creds[i];
        if (!c->config && strncmp(c->server, "krbtgt/", 7) != 0 && et != want) {
            et = c->session_enctype;
        }
    }
    gk5_ccache_info_free(info);
    return et;
}

#define NATIVE_REQ_FLAGS                                                       \
    (GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |             \
     GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG)

/* gk5_initiator (ticket through gk5's KDC client) -> MIT's acceptor. */
static enum interop_outcome native_initiator(const struct gk5_mit_ends *e,
                                             struct interop_native *n,
                                             int32_t et,
                                             struct interop_native_result *res)
{
    gss_cred_id_t acc_cred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t acc = GSS_C_NO_CONTEXT;
    gss_buffer_desc in, out = GSS_C_EMPTY_BUFFER;
    gk5_initiator *init = NULL;
    gk5_initiator_opts o;
    gk5_buffer tok = {0, NULL}, rep;
    gk5_ctx *g = NULL;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0, rel = 0;
    enum interop_outcome ret = INTEROP_FAILED;
    bool table_ok = gk5_enctype_check(et) == GK5_OK;
    char why[480], col[64];

    if (n->skip[0] != '\0') {
        snprintf(res->note, sizeof(res->note), "skipped: %.490s", n->skip);
        return INTEROP_SKIPPED;
    }
    if (n->fault[0] != '\0') {
        snprintf(res->note, sizeof(res->note), "%.490s", n->fault);
        return INTEROP_FAILED;
    }
    if (!native_fill_ccache(e, n, why, sizeof(why))) {
        snprintf(res->note, sizeof(res->note), "%s", why);
        return INTEROP_FAILED;
    }
    memset(&o, 0, sizeof(o));
    o.ccache = n->ccache;
    o.enctypes = &et;
    o.n_enctypes = 1;
    o.req_flags = NATIVE_REQ_FLAGS;
    major = gk5_initiator_create(&minor, e->service, &o, &init);
    if (major != GK5_S_COMPLETE) {
        native_words(why, sizeof(why), "gk5_initiator_create", major, minor);
        if (major == GK5_S_UNAVAILABLE && !table_ok) {
            snprintf(res->note, sizeof(res->note), "refused: %s", why);
            ret = INTEROP_REFUSED;
        } else if (GK5_ERR_CODE(minor) == GK5_ERR_KDC_ETYPE_NOSUPP) {
            snprintf(res->note, sizeof(res->note), "KDC cannot issue (gk5: %s)",
                     why);
            ret = INTEROP_CANNOT_ISSUE;
        } else {
            snprintf(res->note, sizeof(res->note), "%s", why);
        }
        goto cleanup;
    }
    res->issued = native_ticket_enctype(n, et);
    if (res->issued != 0 && res->issued != et) {
        snprintf(res->note, sizeof(res->note), "not issued: KDC issued %s",
                 interop_et_col(res->issued, col, sizeof(col)));
        ret = INTEROP_NOT_ISSUED;
        goto cleanup;
    }
    if (!table_ok) {
        snprintf(res->note, sizeof(res->note),
                 "gk5_initiator_create ACCEPTED it (gk5's table refuses it)");
        goto cleanup;
    }
    if (!native_mit_acc_cred(e, &acc_cred, why, sizeof(why))) {
        snprintf(res->note, sizeof(res->note), "%s", why);
        goto cleanup;
    }
    major = gk5_initiator_step(&minor, init, NULL, &tok);
    if (GK5_ERROR(major)) {
        native_words(res->note, sizeof(res->note), "gk5_initiator_step", major,
                     minor);
        goto cleanup;
    }
    in.length = tok.length;
    in.value = tok.value;
    mmaj = gss_accept_sec_context(&mmin, &acc, acc_cred, &in,
                                  GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL, &out,
                                  NULL, NULL, NULL);
    if (mmaj != GSS_S_COMPLETE) {
        mit_words(res->note, sizeof(res->note), "MIT gss_accept_sec_context",
                  mmaj, mmin);
        goto cleanup;
    }
    if (major == GK5_S_CONTINUE_NEEDED) {
        rep.length = out.length;
        rep.value = out.value;
        gk5_buffer_release(&tok);
        major = gk5_initiator_step(&minor, init, &rep, &tok);
        if (major != GK5_S_COMPLETE) {
            native_words(res->note, sizeof(res->note),
                         "gk5_initiator_step (AP-REP)", major, minor);
            goto cleanup;
        }
    }
    major = gk5_initiator_finish(&minor, init, NULL, &g);
    if (major != GK5_S_COMPLETE) {
        native_words(res->note, sizeof(res->note), "gk5_initiator_finish",
                     major, minor);
        goto cleanup;
    }
    run_cells(g, acc, &res->cells);
    ret = INTEROP_RAN;

cleanup:
    gk5_ctx_free(g);
    gk5_buffer_release(&tok);
    gk5_initiator_free(init);
    (void)gss_release_buffer(&rel, &out);
    (void)gss_delete_sec_context(&rel, &acc, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&rel, &acc_cred);
    return ret;
}

/* MIT's initiator -> gk5_accept with the service keytab. */
static enum interop_outcome native_acceptor(const struct gk5_mit_ends *e,
                                            int32_t et,
                                            struct interop_native_result *res)
{
    gk5_acceptor_cred *cred = NULL;
    gk5_acceptor_opts ao;
    gk5_accept_info info;
    gk5_buffer in, out = {0, NULL};
    gk5_ctx *g = NULL;
    gss_cred_id_t init_cred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t init = GSS_C_NO_CONTEXT;
    gss_name_t service = GSS_C_NO_NAME;
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER, rep;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0, rel = 0;
    enum interop_outcome ret = INTEROP_FAILED;
    bool table_ok = gk5_enctype_check(et) == GK5_OK;
    char why[480], col[64];
    int rc;

    memset(&info, 0, sizeof(info));
    memset(&ao, 0, sizeof(ao));
    ao.keytab = e->service_keytab;
    ao.principal = e->service;
    major = gk5_acceptor_cred_new(&minor, &ao, &cred);
    if (major != GK5_S_COMPLETE) {
        native_words(res->note, sizeof(res->note), "gk5_acceptor_cred_new",
                     major, minor);
        goto cleanup;
    }
    rc = native_mit_init_cred(e, et, &init_cred, why, sizeof(why));
    if (rc != 0) {
        snprintf(res->note, sizeof(res->note),
                 rc > 0 ? "KDC cannot issue (MIT: %s)" : "%s", why);
        ret = rc > 0 ? INTEROP_CANNOT_ISSUE : INTEROP_FAILED;
        goto cleanup;
    }
    mmaj = native_import_name(e->service, &service, &mmin);
    if (GSS_ERROR(mmaj)) {
        mit_words(res->note, sizeof(res->note), "MIT gss_import_name (service)",
                  mmaj, mmin);
        goto cleanup;
    }
    mmaj = gss_init_sec_context(&mmin, init_cred, &init, service,
                                (gss_OID)gss_mech_krb5, GK5_MIT_REQ_FLAGS, 0,
                                GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER,
                                NULL, &tok, NULL, NULL);
    if (GSS_ERROR(mmaj)) {
        if (etype_unavailable(mmin)) {
            mit_minor_words(why, sizeof(why), mmin);
            snprintf(res->note, sizeof(res->note), "KDC cannot issue (MIT: %s)",
                     why);
            ret = INTEROP_CANNOT_ISSUE;
        } else {
            mit_words(res->note, sizeof(res->note), "MIT gss_init_sec_context",
                      mmaj, mmin);
        }
        goto cleanup;
    }
    in.length = tok.length;
    in.value = tok.value;
    major = gk5_accept(&minor, cred, &in, NULL, &out, &g, &info);
    if (major != GK5_S_COMPLETE) {
        native_words(why, sizeof(why), "gk5_accept", major, minor);
        if (major == GK5_S_UNAVAILABLE && !table_ok) {
            snprintf(res->note, sizeof(res->note), "refused: %s", why);
            ret = INTEROP_REFUSED;
        } else {
            snprintf(res->note, sizeof(res->note), "%s", why);
        }
        goto cleanup;
    }
    res->issued = info.session_enctype;
    if (res->issued != et) {
        snprintf(res->note, sizeof(res->note), "not issued: KDC issued %s",
                 interop_et_col(res->issued, col, sizeof(col)));
        ret = INTEROP_NOT_ISSUED;
        goto cleanup;
    }
    if (!table_ok) {
        snprintf(res->note, sizeof(res->note),
                 "gk5_accept ACCEPTED it (gk5's table refuses it)");
        goto cleanup;
    }
    if (mmaj == GSS_S_CONTINUE_NEEDED) {
        gss_buffer_desc done = GSS_C_EMPTY_BUFFER;
        rep.length = out.length;
        rep.value = out.value;
        mmaj = gss_init_sec_context(&mmin, init_cred, &init, service,
                                    (gss_OID)gss_mech_krb5, GK5_MIT_REQ_FLAGS,
                                    0, GSS_C_NO_CHANNEL_BINDINGS, &rep, NULL,
                                    &done, NULL, NULL);
        (void)gss_release_buffer(&rel, &done);
        if (mmaj != GSS_S_COMPLETE) {
            mit_words(res->note, sizeof(res->note),
                      "MIT gss_init_sec_context (AP-REP)", mmaj, mmin);
            goto cleanup;
        }
    }
    run_cells(g, init, &res->cells);
    ret = INTEROP_RAN;

cleanup:
    gk5_accept_info_release(&info);
    gk5_ctx_free(g);
    gk5_buffer_release(&out);
    gk5_acceptor_cred_free(cred);
    (void)gss_release_buffer(&rel, &tok);
    (void)gss_delete_sec_context(&rel, &init, GSS_C_NO_BUFFER);
    (void)gss_release_name(&rel, &service);
    (void)gss_release_cred(&rel, &init_cred);
    return ret;
}

void interop_row_run_native(const struct gk5_mit_ends *e,
                            struct interop_native *n, int32_t et,
                            struct interop_row *row)
{
    struct interop_native_result *res = row->native;

    memset(res, 0, sizeof(row->native));
    row->native_ran = true;
    res[INTEROP_NATIVE_INITIATOR].outcome =
        native_initiator(e, n, et, &res[INTEROP_NATIVE_INITIATOR]);
    res[INTEROP_NATIVE_ACCEPTOR].outcome =
        native_acceptor(e, et, &res[INTEROP_NATIVE_ACCEPTOR]);
}

/* ---- gk5 interop ---- */

static void interop_usage(FILE *f)
{
    fprintf(
        f, "Usage: gk5 interop --service SERVICE@HOST\n"
           "                   (--service-keytab FILE | --loopback)\n"
           "                   [--client-keytab FILE] [--client PRINCIPAL]\n"
           "                   [--ccache NAME] [--enctypes LIST] [--json]\n"
           "                   [--no-native]\n"
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
           "Under each row, the native column: the same cells between gk5's "
           "own ends and\nMIT, no context moved.  'native initiator': "
           "gk5_initiator, its tickets from\nthe KDC through gk5's own "
           "client (gk5_kinit with --client-keytab into a\nFILE ccache of "
           "the run's own, else a copy of the client's FILE ccache; a\n"
           "ccache of another type is skipped, not failed), against MIT's\n"
           "gss_accept_sec_context.  'native acceptor': MIT's "
           "gss_init_sec_context\nagainst gk5_accept with the service's "
           "keytab.\n"
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
           "  --no-native             leave out the native column\n"
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
    case INTEROP_SKIPPED:
        return "skipped";
    }
    return "?";
}

/* A cell over both roles: ok only if it passed in each. */
static bool cell_ok(const struct interop_row *row, int c)
{
    return row->role[INTEROP_INITIATOR].ok[c] &&
           row->role[INTEROP_ACCEPTOR].ok[c];
}

/* A native line under its row: "  native initiator", the enctype the
 * KDC issued, the cells or why none ran. */
static void print_native_line(const struct interop_native_result *res,
                              enum interop_native_role nr)
{
    char title[64], iss[64];

    snprintf(title, sizeof(title), "  %s", interop_native_name(nr));
    if (res->issued != 0) {
        interop_et_col(res->issued, iss, sizeof(iss));
    } else {
        snprintf(iss, sizeof(iss), "-");
    }
    printf("%-32s %-32s", title, iss);
    if (res->outcome == INTEROP_RAN) {
        for (int c = 0; c < INTEROP_N_CELLS; c++) {
            printf(c + 1 < INTEROP_N_CELLS ? " %-8s" : " %s",
                   res->cells.ok[c] ? "ok" : "FAIL");
        }
        printf("\n");
    } else {
        printf(" %s%s\n", res->outcome == INTEROP_FAILED ? "FAIL: " : "",
               res->note);
    }
}

static void print_table(const struct interop_row *rows, size_t n,
                        const char *client, const char *service)
{
    char req[64], iss[64];

    printf("Client %s, service %s.\n", client, service);
    printf("'>M': gk5 made the token, MIT took it; '<M': MIT made it, gk5 "
           "took it.\nEach cell ran with gk5 as initiator (lucid import) "
           "and as acceptor\n(rpc.gssd's buffer); 'ok' = both passed.\n\n");
    if (n > 0 && rows[0].native_ran) {
        printf("Under each row, the native column: gk5's own ends, no MIT "
               "context moved.\n'native initiator': gk5_initiator (its "
               "tickets through gk5's KDC client)\nagainst MIT's acceptor; "
               "'native acceptor': MIT's initiator against gk5_accept.\n\n");
    }
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
        for (int nr = 0; row->native_ran && nr < INTEROP_N_NATIVE; nr++) {
            print_native_line(&row->native[nr], (enum interop_native_role)nr);
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
        for (int nr = 0; rows[i].native_ran && nr < INTEROP_N_NATIVE; nr++) {
            const struct interop_role_result *r = &rows[i].native[nr].cells;
            for (int c = 0; r->ran && c < INTEROP_N_CELLS; c++) {
                if (!r->ok[c]) {
                    printf("FAIL %s %s, gk5 as %s: %s\n",
                           interop_et_col(rows[i].requested, req, sizeof(req)),
                           cell_titles[c],
                           interop_native_name((enum interop_native_role)nr),
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

/* The row's native column: {"initiator": {...}, "acceptor": {...}}, each
 * with its outcome, issued, and its cells and why, or its note. */
static void json_native(const struct interop_row *row)
{
    printf(", \"native\": {");
    for (int nr = 0; nr < INTEROP_N_NATIVE; nr++) {
        const struct interop_native_result *res = &row->native[nr];
        printf("%s\"%s\": {\"outcome\": ", nr > 0 ? ", " : "",
               nr == INTEROP_NATIVE_INITIATOR ? "initiator" : "acceptor");
        json_string(outcome_word(res->outcome));
        printf(", ");
        json_enctype("issued", res->issued);
        if (res->outcome != INTEROP_RAN) {
            printf(", \"note\": ");
            json_string(res->note);
            printf("}");
            continue;
        }
        printf(", \"cells\": {");
        for (int c = 0; c < INTEROP_N_CELLS; c++) {
            printf("%s\"%s\": ", c > 0 ? ", " : "", cell_keys[c]);
            json_string(res->cells.ok[c] ? "ok" : "FAIL");
        }
        printf("}, \"why\": [");
        bool first = true;
        for (int c = 0; c < INTEROP_N_CELLS; c++) {
            if (res->cells.ok[c]) {
                continue;
            }
            char w[512];
            snprintf(w, sizeof(w), "%s: %s", cell_keys[c], res->cells.why[c]);
            printf("%s", first ? "" : ", ");
            json_string(w);
            first = false;
        }
        printf("]}");
    }
    printf("}");
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
        if (row->native_ran) {
            json_native(row);
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
        OPT_NO_NATIVE,
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
        {"no-native", no_argument, NULL, OPT_NO_NATIVE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gk5_mit_ends ends;
    struct interop_row *rows = NULL;
    int32_t ets[INTEROP_MAX_ENCTYPES];
    size_t n_ets = 0;
    bool loopback = false, json = false, native = true;
    struct interop_native nat;
    char why[512];
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
        case OPT_NO_NATIVE:
            native = false;
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
    memset(&nat, 0, sizeof(nat));
    if (native && interop_native_setup(&nat, &ends, why, sizeof(why)) != 0) {
        cli_error("interop: the native column's folder: %s", why);
        free(rows);
        return CLI_EXIT_FAIL;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < n_ets; i++) {
        interop_row_run(&ends, ets[i], &rows[i]);
        if (native) {
            interop_row_run_native(&ends, &nat, ets[i], &rows[i]);
        }
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
    interop_native_done(&nat);
    if (fflush(stdout) != 0) {
        cli_error("interop: cannot write output");
        return CLI_EXIT_FAIL;
    }
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
