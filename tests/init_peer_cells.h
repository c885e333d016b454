/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Per-message TAP cells between a context gk5's own initiator established
 * (a gk5_ctx) and the acceptor's context in another implementation's
 * GSS-API (MIT's or Heimdal's: the same gss_* calls, whichever gssapi.h
 * the including program was built with).  Header-only, after tap_cells.h
 * and the GSS-API and gk5 headers: one copy per program.
 *
 * Each cell is one direction and one kind of token over several message
 * lengths: Wrap sealed, Wrap integrity-only and MIC from gk5 to the peer
 * and back, and a tampered Wrap and MIC refused each way (the next good
 * token still accepted, so a refusal did not break the window).
 */
#ifndef GK5_TESTS_INIT_PEER_CELLS_H
#define GK5_TESTS_INIT_PEER_CELLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/gk5.h>

#define IP_MSG_MAX 1500

static const size_t ip_msg_lens[] = {0, 1, 13, 16, 17, 64, 1000};

/* Set while a token after a refused one is checked: the refused MIC's
 * sequence number was never delivered, so the next may say GAP. */
static bool ip_allow_gap;

/* The two ends of one context: gk5's initiator and the peer's acceptor. */
struct ip_peers {
    gk5_ctx *g;
    gss_ctx_id_t p;
    const char *who;                      /* "MIT", "Heimdal" */
    const char *(*words)(OM_uint32 major, /* the peer's status in words */
                         OM_uint32 minor);
    char label[256]; /* the cell names' prefix */
};

static void ip_fill(uint8_t *p, size_t n, unsigned serial)
{
    uint32_t x = 0x9e3779b9u * (serial + 3u);

    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (uint8_t)(x >> 24);
    }
}

static const char *ip_gk5_words(uint32_t major, uint32_t minor)
{
    static char text[256];

    snprintf(text, sizeof(text), "%s", gk5_display_status(major, minor));
    return text;
}

/* gk5_wrap -> the peer's gss_unwrap: the same message and conf back. */
static bool ip_g2p_wrap(struct ip_peers *pp, int conf, const uint8_t *m,
                        size_t n, char *why, size_t wl)
{
    gk5_buffer in = {n, (void *)(uintptr_t)m}, tok = {0, NULL};
    gss_buffer_desc t, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 pmaj, pmin = 0, rel = 0;
    int cs = -1, pconf = -1;
    bool ok = false;

    major = gk5_wrap(&minor, pp->g, conf, GK5_QOP_DEFAULT, &in, &cs, &tok);
    if (major != GK5_S_COMPLETE || cs != conf) {
        snprintf(why, wl, "gk5_wrap(len %zu): %s (conf_state %d)", n,
                 ip_gk5_words(major, minor), cs);
        goto done;
    }
    t.length = tok.length;
    t.value = tok.value;
    pmaj = gss_unwrap(&pmin, pp->p, &t, &out, &pconf, NULL);
    if ((pmaj != GSS_S_COMPLETE &&
         !(ip_allow_gap && pmaj == GSS_S_GAP_TOKEN)) ||
        out.length != n || (n > 0 && memcmp(out.value, m, n) != 0) ||
        pconf != conf) {
        snprintf(why, wl, "%s gss_unwrap(len %zu): %s, %zu bytes back, conf %d",
                 pp->who, n, pp->words(pmaj, pmin), out.length, pconf);
        goto done;
    }
    ok = true;
done:
    gk5_buffer_release(&tok);
    (void)gss_release_buffer(&rel, &out);
    return ok;
}

/* The peer's gss_wrap -> gk5_unwrap. */
static bool ip_p2g_wrap(struct ip_peers *pp, int conf, const uint8_t *m,
                        size_t n, char *why, size_t wl)
{
    gss_buffer_desc in = {n, (void *)(uintptr_t)m}, tok = GSS_C_EMPTY_BUFFER;
    gk5_buffer t, out = {0, NULL};
    uint32_t major, minor = 0, qop = 99;
    OM_uint32 pmaj, pmin = 0, rel = 0;
    int cs = -1, pconf = -1;
    bool ok = false;

    pmaj = gss_wrap(&pmin, pp->p, conf, GSS_C_QOP_DEFAULT, &in, &pconf, &tok);
    if (pmaj != GSS_S_COMPLETE || pconf != conf) {
        snprintf(why, wl, "%s gss_wrap(len %zu): %s", pp->who, n,
                 pp->words(pmaj, pmin));
        goto done;
    }
    t.length = tok.length;
    t.value = tok.value;
    major = gk5_unwrap(&minor, pp->g, &t, &out, &cs, &qop);
    if ((major != GK5_S_COMPLETE &&
         !(ip_allow_gap && major == GK5_S_GAP_TOKEN)) ||
        out.length != n || (n > 0 && memcmp(out.value, m, n) != 0) ||
        cs != conf || qop != 0) {
        snprintf(why, wl, "gk5_unwrap(len %zu): %s, %zu bytes back, conf %d", n,
                 ip_gk5_words(major, minor), out.length, cs);
        goto done;
    }
    ok = true;
done:
    gk5_buffer_release(&out);
    (void)gss_release_buffer(&rel, &tok);
    return ok;
}

/* gk5_get_mic -> the peer's gss_verify_mic. */
static bool ip_g2p_mic(struct ip_peers *pp, int conf, const uint8_t *m,
                       size_t n, char *why, size_t wl)
{
    gk5_buffer in = {n, (void *)(uintptr_t)m}, tok = {0, NULL};
    gss_buffer_desc pm = {n, (void *)(uintptr_t)m}, t;
    uint32_t major, minor = 0;
    OM_uint32 pmaj, pmin = 0;
    bool ok = false;

    (void)conf;
    major = gk5_get_mic(&minor, pp->g, GK5_QOP_DEFAULT, &in, &tok);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, wl, "gk5_get_mic(len %zu): %s", n,
                 ip_gk5_words(major, minor));
        goto done;
    }
    t.length = tok.length;
    t.value = tok.value;
    pmaj = gss_verify_mic(&pmin, pp->p, &pm, &t, NULL);
    if (pmaj != GSS_S_COMPLETE) {
        snprintf(why, wl, "%s gss_verify_mic(len %zu): %s", pp->who, n,
                 pp->words(pmaj, pmin));
        goto done;
    }
    ok = true;
done:
    gk5_buffer_release(&tok);
    return ok;
}

/* The peer's gss_get_mic -> gk5_verify_mic. */
static bool ip_p2g_mic(struct ip_peers *pp, int conf, const uint8_t *m,
                       size_t n, char *why, size_t wl)
{
    gss_buffer_desc in = {n, (void *)(uintptr_t)m}, tok = GSS_C_EMPTY_BUFFER;
    gk5_buffer gm = {n, (void *)(uintptr_t)m}, t;
    uint32_t major, minor = 0, qop = 99;
    OM_uint32 pmaj, pmin = 0, rel = 0;
    bool ok = false;

    (void)conf;
    pmaj = gss_get_mic(&pmin, pp->p, GSS_C_QOP_DEFAULT, &in, &tok);
    if (pmaj != GSS_S_COMPLETE) {
        snprintf(why, wl, "%s gss_get_mic(len %zu): %s", pp->who, n,
                 pp->words(pmaj, pmin));
        goto done;
    }
    t.length = tok.length;
    t.value = tok.value;
    major = gk5_verify_mic(&minor, pp->g, &gm, &t, &qop);
    if (major != GK5_S_COMPLETE || qop != 0) {
        snprintf(why, wl, "gk5_verify_mic(len %zu): %s", n,
                 ip_gk5_words(major, minor));
        goto done;
    }
    ok = true;
done:
    (void)gss_release_buffer(&rel, &tok);
    return ok;
}

typedef bool (*ip_msg_fn)(struct ip_peers *pp, int conf, const uint8_t *m,
                          size_t n, char *why, size_t wl);

static bool ip_cell_lengths(struct ip_peers *pp, const char *what, ip_msg_fn fn,
                            int conf, unsigned serial)
{
    uint8_t m[IP_MSG_MAX];
    char why[1024] = "", name[512];
    bool ok = true;

    for (size_t i = 0; i < sizeof(ip_msg_lens) / sizeof(ip_msg_lens[0]) && ok;
         i++) {
        ip_fill(m, ip_msg_lens[i], serial + (unsigned)i);
        ok = fn(pp, conf, m, ip_msg_lens[i], why, sizeof(why));
    }
    snprintf(name, sizeof(name), "%s %s", pp->label, what);
    return cell(ok, name, "%s", why);
}

/* A sealed Wrap token with its last byte flipped, and a MIC over a message
 * with one byte changed, from gk5 to the peer: both refused; then a good
 * Wrap token still goes through. */
static bool ip_cell_tamper_g2p(struct ip_peers *pp)
{
    static const uint8_t m[] = "a message someone changes on the way";
    gk5_buffer in = {sizeof(m), (void *)(uintptr_t)m}, tok = {0, NULL},
               mic = {0, NULL};
    gss_buffer_desc t, out = GSS_C_EMPTY_BUFFER;
    uint8_t other[sizeof(m)];
    char why[1024] = "", name[512];
    uint32_t major, minor = 0;
    OM_uint32 wmaj = 0, mmaj = 0, pmin = 0, rel = 0;
    int cs = -1;
    bool ok = false;

    /* The MIC first, checked first: its sequence number is the one the
     * peer expects, so the peer must judge its checksum (Heimdal's DES3
     * code answers a number out of order with GAP_TOKEN before looking at
     * the checksum). */
    major = gk5_get_mic(&minor, pp->g, GK5_QOP_DEFAULT, &in, &mic);
    if (major == GK5_S_COMPLETE) {
        major = gk5_wrap(&minor, pp->g, 1, GK5_QOP_DEFAULT, &in, &cs, &tok);
    }
    if (major != GK5_S_COMPLETE || tok.length == 0) {
        snprintf(why, sizeof(why), "gk5_wrap / gk5_get_mic: %s",
                 ip_gk5_words(major, minor));
        goto done;
    }
    memcpy(other, m, sizeof(m));
    other[3] ^= 0x20;
    {
        gss_buffer_desc om = {sizeof(other), other};
        t.length = mic.length;
        t.value = mic.value;
        mmaj = gss_verify_mic(&pmin, pp->p, &om, &t, NULL);
    }
    if (!GSS_ERROR(mmaj)) {
        snprintf(why, sizeof(why),
                 "%s gss_verify_mic took a MIC over another message (major "
                 "0x%08x)",
                 pp->who, (unsigned)mmaj);
        goto done;
    }
    ((uint8_t *)tok.value)[tok.length - 1] ^= 0x01;
    t.length = tok.length;
    t.value = tok.value;
    wmaj = gss_unwrap(&pmin, pp->p, &t, &out, NULL, NULL);
    (void)gss_release_buffer(&rel, &out);
    if (!GSS_ERROR(wmaj)) {
        snprintf(why, sizeof(why), "%s gss_unwrap took a tampered Wrap token",
                 pp->who);
        goto done;
    }
    ip_allow_gap = true;
    ok = ip_g2p_wrap(pp, 1, m, sizeof(m), why, sizeof(why));
    if (!ok && strstr(why, " 0 bytes back") != NULL) {
        /* Heimdal's RFC 1964 (DES3) code answers a token whose number
         * follows a gap with GAP_TOKEN and no message at all; the next one,
         * in order again, must come through. */
        printf("# %s %s: the first good token after the refused ones: %s; "
               "a second one\n",
               pp->label, pp->who, why);
        ok = ip_g2p_wrap(pp, 1, m, sizeof(m), why, sizeof(why));
    }
    ip_allow_gap = false;
    if (!ok) {
        size_t u = strlen(why);
        snprintf(why + u, sizeof(why) - u, " (the good token after)");
    }
done:
    gk5_buffer_release(&tok);
    gk5_buffer_release(&mic);
    snprintf(name, sizeof(name),
             "%s gk5->%s tampered Wrap and MIC refused, next Wrap taken",
             pp->label, pp->who);
    if (ok) {
        printf("# %s %s refused gk5's tampered Wrap: %s", pp->label, pp->who,
               pp->words(wmaj, 0));
        printf("; the MIC: %s\n", pp->words(mmaj, 0));
    }
    return cell(ok, name, "%s", why);
}

/* The same from the peer to gk5: GK5_S_BAD_SIG both times. */
static bool ip_cell_tamper_p2g(struct ip_peers *pp)
{
    static const uint8_t m[] = "another message changed on the way";
    gss_buffer_desc in = {sizeof(m), (void *)(uintptr_t)m},
                    tok = GSS_C_EMPTY_BUFFER, mic = GSS_C_EMPTY_BUFFER;
    gk5_buffer t, out = {0, NULL};
    uint8_t other[sizeof(m)];
    char why[1024] = "", name[512];
    uint32_t wmaj, mmaj, wmin = 0, mmin = 0;
    OM_uint32 pmaj, pmin = 0, rel = 0;
    bool ok = false;

    pmaj = gss_wrap(&pmin, pp->p, 1, GSS_C_QOP_DEFAULT, &in, NULL, &tok);
    if (pmaj == GSS_S_COMPLETE) {
        pmaj = gss_get_mic(&pmin, pp->p, GSS_C_QOP_DEFAULT, &in, &mic);
    }
    if (pmaj != GSS_S_COMPLETE || tok.length == 0) {
        snprintf(why, sizeof(why), "%s gss_wrap / gss_get_mic: %s", pp->who,
                 pp->words(pmaj, pmin));
        goto done;
    }
    ((uint8_t *)tok.value)[tok.length - 1] ^= 0x01;
    t.length = tok.length;
    t.value = tok.value;
    wmaj = gk5_unwrap(&wmin, pp->g, &t, &out, NULL, NULL);
    gk5_buffer_release(&out);
    memcpy(other, m, sizeof(m));
    other[3] ^= 0x20;
    {
        gk5_buffer om = {sizeof(other), other};
        t.length = mic.length;
        t.value = mic.value;
        mmaj = gk5_verify_mic(&mmin, pp->g, &om, &t, NULL);
    }
    if (wmaj != GK5_S_BAD_SIG || mmaj != GK5_S_BAD_SIG) {
        snprintf(why, sizeof(why),
                 "gk5_unwrap of a tampered token: %s; gk5_verify_mic of "
                 "another message: %s (want BAD_SIG both)",
                 ip_gk5_words(wmaj, wmin), ip_gk5_words(mmaj, mmin));
        goto done;
    }
    ip_allow_gap = true;
    ok = ip_p2g_wrap(pp, 1, m, sizeof(m), why, sizeof(why));
    ip_allow_gap = false;
    if (!ok) {
        size_t u = strlen(why);
        snprintf(why + u, sizeof(why) - u, " (the good token after)");
    }
done:
    (void)gss_release_buffer(&rel, &tok);
    (void)gss_release_buffer(&rel, &mic);
    snprintf(name, sizeof(name),
             "%s %s->gk5 tampered Wrap and MIC -> BAD_SIG, next Wrap taken",
             pp->label, pp->who);
    return cell(ok, name, "%s", why);
}

/* Every per-message cell; false if any failed. */
static bool ip_run_messages(struct ip_peers *pp)
{
    char w[6][96];
    bool ok = true;

    snprintf(w[0], sizeof(w[0]), "gk5->%s wrap sealed", pp->who);
    snprintf(w[1], sizeof(w[1]), "gk5->%s wrap integ", pp->who);
    snprintf(w[2], sizeof(w[2]), "gk5->%s MIC", pp->who);
    snprintf(w[3], sizeof(w[3]), "%s->gk5 wrap sealed", pp->who);
    snprintf(w[4], sizeof(w[4]), "%s->gk5 wrap integ", pp->who);
    snprintf(w[5], sizeof(w[5]), "%s->gk5 MIC", pp->who);
    ok &= ip_cell_lengths(pp, w[0], ip_g2p_wrap, 1, 100);
    ok &= ip_cell_lengths(pp, w[3], ip_p2g_wrap, 1, 200);
    ok &= ip_cell_lengths(pp, w[1], ip_g2p_wrap, 0, 300);
    ok &= ip_cell_lengths(pp, w[4], ip_p2g_wrap, 0, 400);
    ok &= ip_cell_lengths(pp, w[2], ip_g2p_mic, 0, 500);
    ok &= ip_cell_lengths(pp, w[5], ip_p2g_mic, 0, 600);
    ok &= ip_cell_tamper_g2p(pp);
    ok &= ip_cell_tamper_p2g(pp);
    return ok;
}

#endif /* GK5_TESTS_INIT_PEER_CELLS_H */
