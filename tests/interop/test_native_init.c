/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own initiator against MIT's acceptor, in-process: gk5_kinit gets
 * the client's TGT (client.keytab) from the realm's MIT KDC into a FILE
 * ccache in the realm's folder, gk5_initiator_create gets the service
 * ticket for gk5@localhost from it (the TGS exchange), gk5_initiator_step
 * makes the AP-REQ, MIT's gss_accept_sec_context (service.keytab) takes
 * it, gk5 takes MIT's AP-REP, and the two contexts carry tokens both ways
 * (init_peer_cells.h).  Per session-key enctype gk5 supports and MIT's KDC
 * issues, a fresh ccache each:
 *   - mutual authentication on and off, channel bindings on both sides or
 *     none: establishment, what each side says it has (MIT's lucid export
 *     and gk5_ctx_inquire: the same enctype, the acceptor subkey with
 *     mutual), Wrap sealed and integrity-only and MIC both ways, tampered
 *     tokens refused both ways;
 *   - gk5's initiator against gk5's own acceptor (gk5_accept on
 *     service.keytab) through the same KDC ticket.
 * Then: channel bindings that differ (MIT refuses), gk5's only (MIT takes
 * them), RFC 4537 (a cached ticket's session key, another enctype listed
 * first: MIT's acceptor subkey is of that one), a tampered AP-REP and an
 * AP-REP of another context refused, and refusals in words: a target the
 * KDC does not know, a ccache with no TGT, none at all, rc4 asked, MIT's
 * acceptor with a keytab of other principals and one with the wrong keys
 * (its KRB-ERROR back to gk5).
 *
 *   gk5 realm run --tap -- test_native_init
 *
 * The realm: GK5_REALM_DIR (made by gk5 realm run), else one of our own.
 * Output is TAP, one line per cell.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "bridge/lucid.h"
#include "establish.h"
#include "heimdal_kdc.h"
#include "tap_cells.h"
/* after tap_cells.h: */
#include "init_peer_cells.h"

#define TARGET "gk5@localhost"
#define UNKNOWN_TARGET "gk5-nobody@localhost"
#define REQ_BASE                                                               \
    (GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG | GK5_C_CONF_FLAG |               \
     GK5_C_INTEG_FLAG)

struct world {
    gk5_mit_realm realm;
    char client_kt[PATH_MAX + 8];  /* "FILE:" and the path */
    char service_kt[PATH_MAX + 8]; /* gk5/localhost */
    char nfs_kt[PATH_MAX + 8];     /* nfs/localhost only */
    char wrong_kt[PATH_MAX + 8];   /* gk5/localhost, other keys */
    char rcache[PATH_MAX + 8];     /* MIT's acceptor's replay cache */
    krb5_context kc;
    gk5_acceptor_cred *gacc; /* gk5's acceptor on service.keytab */
};

/* ---- Words ---- */

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
    static char text[512];
    gk5_mit_status st = {major, minor, 1, NULL};

    return gk5_mit_status_text(&st, text, sizeof(text));
}

static const char *last_krb_error(void)
{
    const char *e = gk5_krb_last_error();

    return e != NULL ? e : "(none)";
}

/* The TOK_ID of an RFC 2743 3.1 framed token; 0 if not framed. */
static unsigned tok_id(const void *v, size_t n)
{
    const uint8_t *p = v;
    size_t off = 2;

    if (n < 2 || p[0] != 0x60) {
        return 0;
    }
    if (p[1] >= 0x80) {
        off += p[1] & 0x7fu;
    }
    if (off + 2 > n || p[off] != 0x06) {
        return 0;
    }
    off += 2 + p[off + 1];
    if (off + 2 > n) {
        return 0;
    }
    return (unsigned)(p[off] << 8 | p[off + 1]);
}

/* ---- The client's TGT and the ccache ---- */

static void cc_path(char *out, size_t len, const struct world *W,
                    const char *tag)
{
    if (snprintf(out, len, "FILE:%s/native-init-%s.cc", W->realm.dir, tag) >=
        (int)len) {
        out[0] = '\0'; /* no such ccache: the cells say so */
    }
}

/* gk5_kinit from client.keytab into cc (replaced whole). */
static bool kinit_into(const struct world *W, const char *cc, char *why,
                       size_t wl)
{
    gk5_kinit_opts o;
    gk5_kinit_info info;
    uint32_t minor = 0, major;

    memset(&o, 0, sizeof(o));
    o.ccache = cc;
    o.principal = GK5_MIT_CLIENT;
    o.keytab = W->client_kt;
    major = gk5_kinit(&minor, &o, &info);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, wl, "gk5_kinit (step %d): %s; KDC: %s", (int)info.step,
                 gk5_words(major, minor), last_krb_error());
    }
    gk5_kinit_info_release(&info);
    return major == GK5_S_COMPLETE;
}

/* What the ccache holds for server (a "gk5/localhost@" prefix): how many
 * tickets, and the last one's session enctype; the TGT's presence. */
static bool cc_look(const char *cc, const char *server_prefix, size_t *n,
                    int32_t *ses, bool *tgt, char *why, size_t wl)
{
    gk5_ccache_info *ci = NULL;
    uint32_t minor = 0, major = gk5_ccache_list(&minor, cc, &ci);

    *n = 0;
    *ses = 0;
    *tgt = false;
    if (major != GK5_S_COMPLETE) {
        snprintf(why, wl, "gk5_ccache_list(%s): %s", cc,
                 gk5_words(major, minor));
        return false;
    }
    for (size_t i = 0; i < ci->n; i++) {
        const gk5_ccache_cred *c = &ci->creds[i];
        if (c->config || c->server == NULL) {
            continue;
        }
        if (strncmp(c->server, "krbtgt/", 7) == 0) {
            *tgt = true;
        } else if (strncmp(c->server, server_prefix, strlen(server_prefix)) ==
                   0) {
            (*n)++;
            *ses = c->session_enctype;
        }
    }
    gk5_ccache_info_free(ci);
    return true;
}

/* ---- MIT's acceptor ---- */

static bool mit_acceptor(const struct world *W, const char *keytab,
                         gss_cred_id_t *cred, char *why, size_t wl)
{
    gss_key_value_element_desc el[2] = {{"keytab", keytab},
                                        {"rcache", W->rcache}};
    gss_key_value_set_desc store = {2, el};
    OM_uint32 major, minor = 0;

    *cred = GSS_C_NO_CREDENTIAL;
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &store, cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        snprintf(why, wl, "MIT gss_acquire_cred_from(%s): %s", keytab,
                 mit_words(major, minor));
        return false;
    }
    return true;
}

/* Channel bindings: set A and set B (other application data). */
static const uint8_t cb_addr[4] = {127, 0, 0, 1};

static void make_bindings(int which, struct gss_channel_bindings_struct *m,
                          gk5_channel_bindings *g)
{
    const char *app = which == 0 ? "tls-server-end-point:native-init A"
                                 : "tls-server-end-point:native-init B";

    memset(m, 0, sizeof(*m));
    m->initiator_addrtype = GSS_C_AF_INET;
    m->initiator_address.length = sizeof(cb_addr);
    m->initiator_address.value = (void *)(uintptr_t)cb_addr;
    m->acceptor_addrtype = GSS_C_AF_INET;
    m->acceptor_address.length = sizeof(cb_addr);
    m->acceptor_address.value = (void *)(uintptr_t)cb_addr;
    m->application_data.length = strlen(app);
    m->application_data.value = (void *)(uintptr_t)app;
    memset(g, 0, sizeof(*g));
    g->initiator_addrtype = GSS_C_AF_INET;
    g->initiator_address =
        (gk5_buffer){sizeof(cb_addr), (void *)(uintptr_t)cb_addr};
    g->acceptor_addrtype = GSS_C_AF_INET;
    g->acceptor_address =
        (gk5_buffer){sizeof(cb_addr), (void *)(uintptr_t)cb_addr};
    g->application_data = (gk5_buffer){strlen(app), (void *)(uintptr_t)app};
}

/* ---- One establishment: gk5's initiator -> an acceptor -> gk5 ---- */

struct iest {
    /* in */
    const char *ccache;
    const char *target;
    const int32_t *ets;
    size_t n_ets;
    bool mutual;
    int gk5_cb; /* -1 none, else bindings set 0 or 1 */
    int acc_cb;
    gss_cred_id_t mit_acc;   /* MIT's acceptor, or */
    gk5_acceptor_cred *gacc; /* gk5's own */
    bool tamper_ap_rep;      /* flip a byte of the AP-REP on its way */
    /* out */
    uint32_t cmaj, cmin;   /* gk5_initiator_create */
    char create_err[512];  /* gk5_krb_last_error after it */
    uint32_t s1maj, s1min; /* the first step */
    gk5_buffer ap_req;
    OM_uint32 amaj, amin, aflags; /* MIT's acceptor */
    gss_buffer_desc mreply;
    char src[256];
    uint32_t gamaj, gamin; /* gk5's acceptor */
    gk5_buffer greply;
    gk5_accept_info ginfo;
    gk5_ctx *gacc_ctx;
    uint32_t s2maj, s2min; /* the second step */
    char step_err[512];
    unsigned reply_id;
    gk5_initiator *init;
    gk5_ctx *g;
    int32_t g_et;
    gss_ctx_id_t mit;
};

static void iest_run(struct iest *e)
{
    struct gss_channel_bindings_struct mcb;
    gk5_channel_bindings gcb, gcb_acc;
    gk5_initiator_opts o;
    gk5_buffer out = {0, NULL};
    OM_uint32 rel = 0;

    e->mit = GSS_C_NO_CONTEXT;
    e->mreply = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    e->s1maj = e->s2maj = e->amaj = GK5_S_FAILURE;
    e->gamaj = GK5_S_FAILURE;
    if (e->gk5_cb >= 0) {
        make_bindings(e->gk5_cb, &mcb, &gcb);
    }
    if (e->acc_cb >= 0) {
        make_bindings(e->acc_cb, &mcb, &gcb_acc);
    }
    memset(&o, 0, sizeof(o));
    o.ccache = e->ccache;
    o.enctypes = e->ets;
    o.n_enctypes = e->n_ets;
    o.req_flags = REQ_BASE | (e->mutual ? GK5_C_MUTUAL_FLAG : 0);
    o.cb = e->gk5_cb >= 0 ? &gcb : NULL;
    e->cmaj = gk5_initiator_create(&e->cmin, e->target, &o, &e->init);
    snprintf(e->create_err, sizeof(e->create_err), "%s", last_krb_error());
    if (e->cmaj != GK5_S_COMPLETE) {
        return;
    }
    e->s1maj = gk5_initiator_step(&e->s1min, e->init, NULL, &e->ap_req);
    if (GK5_ERROR(e->s1maj)) {
        return;
    }
    gss_buffer_desc in = {e->ap_req.length, e->ap_req.value};
    const uint8_t *reply = NULL;
    size_t reply_len = 0;
    if (e->gacc != NULL) {
        e->gamaj = gk5_accept(&e->gamin, e->gacc, &e->ap_req,
                              e->acc_cb >= 0 ? &gcb_acc : NULL, &e->greply,
                              &e->gacc_ctx, &e->ginfo);
        reply = e->greply.value;
        reply_len = e->greply.length;
    } else {
        gss_name_t src = GSS_C_NO_NAME;
        gss_buffer_desc dn = GSS_C_EMPTY_BUFFER;
        e->amaj = gss_accept_sec_context(
            &e->amin, &e->mit, e->mit_acc, &in,
            e->acc_cb >= 0 ? &mcb : GSS_C_NO_CHANNEL_BINDINGS, &src, NULL,
            &e->mreply, &e->aflags, NULL, NULL);
        if (src != GSS_C_NO_NAME &&
            !GSS_ERROR(gss_display_name(&rel, src, &dn, NULL))) {
            snprintf(e->src, sizeof(e->src), "%.*s", (int)dn.length,
                     (const char *)dn.value);
        }
        (void)gss_release_buffer(&rel, &dn);
        (void)gss_release_name(&rel, &src);
        reply = e->mreply.value;
        reply_len = e->mreply.length;
    }
    e->reply_id = tok_id(reply, reply_len);
    if (e->s1maj != GK5_S_CONTINUE_NEEDED) {
        e->s2maj = e->s1maj;
        e->s2min = e->s1min;
    } else if (reply_len > 0) {
        uint8_t *copy = malloc(reply_len);
        if (copy == NULL) {
            return;
        }
        memcpy(copy, reply, reply_len);
        if (e->tamper_ap_rep) {
            copy[reply_len - 3] ^= 0x40;
        }
        gk5_buffer r = {reply_len, copy};
        e->s2maj = gk5_initiator_step(&e->s2min, e->init, &r, &out);
        snprintf(e->step_err, sizeof(e->step_err), "%s", last_krb_error());
        gk5_buffer_release(&out);
        free(copy);
    } else {
        return;
    }
    if (e->s2maj == GK5_S_COMPLETE) {
        uint32_t fmin = 0;
        if (gk5_initiator_finish(&fmin, e->init, &e->g_et, &e->g) !=
            GK5_S_COMPLETE) {
            e->s2maj = GK5_S_NO_CONTEXT;
            e->s2min = fmin;
        }
    }
}

static void iest_free(struct iest *e)
{
    OM_uint32 rel = 0;

    gk5_initiator_free(e->init);
    e->init = NULL;
    gk5_buffer_release(&e->ap_req);
    gk5_buffer_release(&e->greply);
    (void)gss_release_buffer(&rel, &e->mreply);
    (void)gss_delete_sec_context(&rel, &e->mit, GSS_C_NO_BUFFER);
    gk5_ctx_free(e->g);
    e->g = NULL;
    gk5_ctx_free(e->gacc_ctx);
    e->gacc_ctx = NULL;
    gk5_accept_info_release(&e->ginfo);
}

/* Whether the establishment went as it should; words in why. */
static bool iest_judge(const struct iest *e, char *why, size_t wl)
{
    uint32_t want1 = e->mutual ? GK5_S_CONTINUE_NEEDED : GK5_S_COMPLETE;
    OM_uint32 wantf = GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |
                      GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG |
                      (e->mutual ? GSS_C_MUTUAL_FLAG : 0);

    if (e->cmaj != GK5_S_COMPLETE) {
        snprintf(why, wl, "gk5_initiator_create: %s; KRB-ERROR: %s",
                 gk5_words(e->cmaj, e->cmin), e->create_err);
        return false;
    }
    if (e->s1maj != want1 || e->ap_req.length == 0 ||
        tok_id(e->ap_req.value, e->ap_req.length) != 0x0100) {
        snprintf(why, wl, "gk5's first step: %s (want %s), %zu bytes",
                 gk5_words(e->s1maj, e->s1min), gk5_major_name(want1),
                 e->ap_req.length);
        return false;
    }
    if (e->gacc != NULL) {
        if (e->gamaj != GK5_S_COMPLETE) {
            snprintf(why, wl, "gk5_accept: %s", gk5_words(e->gamaj, e->gamin));
            return false;
        }
        if (strcmp(e->ginfo.initiator, GK5_MIT_CLIENT) != 0 ||
            (e->ginfo.gss_flags & (uint32_t)wantf) != (uint32_t)wantf) {
            snprintf(why, wl, "gk5_accept says %s, flags %#x (want %#x)",
                     e->ginfo.initiator, (unsigned)e->ginfo.gss_flags,
                     (unsigned)wantf);
            return false;
        }
        if ((e->greply.length != 0) != e->mutual) {
            snprintf(why, wl, "gk5_accept replied %zu bytes", e->greply.length);
            return false;
        }
    } else {
        if (e->amaj != GSS_S_COMPLETE) {
            snprintf(why, wl, "MIT gss_accept_sec_context: %s",
                     mit_words(e->amaj, e->amin));
            return false;
        }
        if (strcmp(e->src, GK5_MIT_CLIENT) != 0 ||
            (e->aflags & wantf) != wantf ||
            ((e->aflags & GSS_C_MUTUAL_FLAG) != 0) != e->mutual ||
            (e->aflags & GSS_C_DELEG_FLAG) != 0) {
            snprintf(why, wl,
                     "MIT says the initiator is %s, flags %#x (want "
                     "%#x)",
                     e->src, (unsigned)e->aflags, (unsigned)wantf);
            return false;
        }
        if ((e->mreply.length != 0) != e->mutual ||
            (e->mutual && e->reply_id != 0x0200)) {
            snprintf(why, wl, "MIT replied %zu bytes, TOK_ID %04x",
                     e->mreply.length, e->reply_id);
            return false;
        }
    }
    if (e->s2maj != GK5_S_COMPLETE || e->g == NULL) {
        snprintf(why, wl, "gk5 on the AP-REP: %s; KRB-ERROR: %s",
                 gk5_words(e->s2maj, e->s2min), e->step_err);
        return false;
    }
    return true;
}

/* MIT's lucid view of its acceptor context and gk5_ctx_inquire agree on
 * the enctype and the acceptor subkey (RFC 4121 2, RFC 4537).  Consumes
 * e->mit (MIT's lucid export deletes the context). */
static void cell_enctypes(const char *label, struct iest *e, int32_t want_et,
                          int32_t ses_et)
{
    void *lv = NULL;
    gss_krb5_lucid_context_v1_t *l;
    gk5_ctx_info gi;
    char why[1024] = "", name[512];
    uint32_t minor = 0, major;
    OM_uint32 lmaj, lmin = 0;
    bool cfx = want_et != 16, ok = false;
    int32_t m_key = 0, m_sub = 0;

    memset(&gi, 0, sizeof(gi));
    major = gk5_ctx_inquire(&minor, e->g, &gi);
    lmaj = gss_krb5_export_lucid_sec_context(&lmin, &e->mit, 1, &lv);
    if (major != GK5_S_COMPLETE || GSS_ERROR(lmaj)) {
        snprintf(why, sizeof(why), "gk5_ctx_inquire: %s; MIT lucid export: %s",
                 gk5_words(major, minor), mit_words(lmaj, lmin));
        goto done;
    }
    l = lv;
    if (l->protocol == 1) {
        m_key = (int32_t)l->cfx_kd.ctx_key.type;
        m_sub = l->cfx_kd.have_acceptor_subkey
                    ? (int32_t)l->cfx_kd.acceptor_subkey.type
                    : 0;
    } else {
        m_key = (int32_t)l->rfc1964_kd.ctx_key.type;
        /* MIT labels an RFC 1964 DES3 key 6 (des3-cbc-raw), the same key
         * as 16's */
        if (m_key == 6) {
            m_key = 16;
        }
    }
    printf("# %s gk5: initiator %d cfx %d acceptor_subkey %d enctype %d "
           "(finish said %d); MIT: initiate %u protocol %u ctx_key %d "
           "acceptor_subkey %d\n",
           label, gi.initiator, gi.cfx, gi.acceptor_subkey, (int)gi.enctype,
           (int)e->g_et, (unsigned)l->initiate, (unsigned)l->protocol,
           (int)m_key, (int)m_sub);
    ok = gi.initiator == 1 && gi.cfx == (int)cfx && l->initiate == 0 &&
         l->protocol == (cfx ? 1u : 0u) && gi.enctype == want_et &&
         e->g_et == want_et && m_key == ses_et &&
         gi.acceptor_subkey == (int)(e->mutual && cfx) &&
         (e->mutual && cfx ? m_sub == want_et : m_sub == 0);
    if (!ok) {
        snprintf(why, sizeof(why),
                 "gk5 enctype %d (finish %d) subkey %d cfx %d; MIT protocol %u "
                 "ctx_key %d acceptor_subkey %d; want context %d, session %d",
                 (int)gi.enctype, (int)e->g_et, gi.acceptor_subkey, gi.cfx,
                 (unsigned)l->protocol, (int)m_key, (int)m_sub, (int)want_et,
                 (int)ses_et);
    }
    (void)gss_krb5_free_lucid_sec_context(&lmin, lv);
done:
    snprintf(name, sizeof(name),
             "%s context enctype %d on both sides%s (MIT's lucid export, "
             "gk5_ctx_inquire)",
             label, (int)want_et,
             e->mutual && cfx ? ", MIT's acceptor subkey" : ", no subkey");
    cell(ok, name, "%s", why);
}

/* gk5's initiator -> MIT's acceptor, then tokens both ways. */
static void run_mit(struct world *W, const char *cc, int32_t et, bool mutual,
                    bool cb)
{
    struct iest e;
    struct ip_peers pp;
    char why[1024] = "", name[512];

    memset(&e, 0, sizeof(e));
    memset(&pp, 0, sizeof(pp));
    snprintf(pp.label, sizeof(pp.label), "%s(%d) gk5->MIT%s%s |",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth",
             cb ? ", channel bindings" : "");
    e.ccache = cc;
    e.target = TARGET;
    e.ets = &et;
    e.n_ets = 1;
    e.mutual = mutual;
    e.gk5_cb = e.acc_cb = cb ? 0 : -1;
    if (mit_acceptor(W, W->service_kt, &e.mit_acc, why, sizeof(why))) {
        iest_run(&e);
    }
    bool ok = why[0] == '\0' && iest_judge(&e, why, sizeof(why));
    snprintf(name, sizeof(name), "%s %s", pp.label,
             mutual ? "gk5 AP-REQ -> MIT accepts -> AP-REP -> gk5 complete"
                    : "gk5 AP-REQ -> MIT accepts, no reply, gk5 complete");
    if (cell(ok, name, "%s", why)) {
        pp.g = e.g;
        pp.p = e.mit;
        pp.who = "MIT";
        pp.words = mit_words;
        ip_run_messages(&pp);
        cell_enctypes(pp.label, &e, et, et);
    }
    iest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.mit_acc);
}

/* ---- gk5's initiator -> gk5's own acceptor ---- */

static bool g2g_wrap(gk5_ctx *from, gk5_ctx *to, int conf, const uint8_t *m,
                     size_t n, char *why, size_t wl)
{
    gk5_buffer in = {n, (void *)(uintptr_t)m}, tok = {0, NULL}, out = {0, NULL};
    uint32_t major, minor = 0;
    int cs = -1;
    bool ok = false;

    major = gk5_wrap(&minor, from, conf, GK5_QOP_DEFAULT, &in, &cs, &tok);
    if (major == GK5_S_COMPLETE) {
        major = gk5_unwrap(&minor, to, &tok, &out, &cs, NULL);
    }
    ok = major == GK5_S_COMPLETE && out.length == n && cs == conf &&
         (n == 0 || memcmp(out.value, m, n) == 0);
    if (!ok) {
        snprintf(why, wl, "wrap/unwrap(len %zu, conf %d): %s", n, conf,
                 gk5_words(major, minor));
    }
    gk5_buffer_release(&tok);
    gk5_buffer_release(&out);
    return ok;
}

static bool g2g_mic(gk5_ctx *from, gk5_ctx *to, const uint8_t *m, size_t n,
                    bool tamper, char *why, size_t wl)
{
    gk5_buffer in = {n, (void *)(uintptr_t)m}, tok = {0, NULL};
    uint32_t major, minor = 0;

    major = gk5_get_mic(&minor, from, GK5_QOP_DEFAULT, &in, &tok);
    if (major == GK5_S_COMPLETE) {
        if (tamper && tok.length > 0) {
            ((uint8_t *)tok.value)[tok.length - 1] ^= 1;
        }
        major = gk5_verify_mic(&minor, to, &in, &tok, NULL);
    }
    gk5_buffer_release(&tok);
    if (major != (tamper ? GK5_S_BAD_SIG : GK5_S_COMPLETE)) {
        snprintf(why, wl, "get_mic/verify_mic(len %zu%s): %s", n,
                 tamper ? ", tampered" : "", gk5_words(major, minor));
        return false;
    }
    return true;
}

static void run_gk5_acceptor(struct world *W, const char *cc, int32_t et,
                             bool mutual)
{
    struct iest e;
    char why[1024] = "", name[512], label[160];
    bool ok;

    memset(&e, 0, sizeof(e));
    snprintf(label, sizeof(label), "%s(%d) gk5->gk5_accept%s, bindings |",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth");
    e.ccache = cc;
    e.target = TARGET;
    e.ets = &et;
    e.n_ets = 1;
    e.mutual = mutual;
    e.gk5_cb = e.acc_cb = 0;
    e.gacc = W->gacc;
    iest_run(&e);
    ok = iest_judge(&e, why, sizeof(why));
    if (ok && (e.ginfo.session_enctype != et || e.ginfo.context_enctype != et ||
               e.g_et != et)) {
        snprintf(why, sizeof(why),
                 "gk5_accept: session %d context %d; initiator %d",
                 (int)e.ginfo.session_enctype, (int)e.ginfo.context_enctype,
                 (int)e.g_et);
        ok = false;
    }
    snprintf(name, sizeof(name),
             "%s established, session and context "
             "enctype %d both sides",
             label, (int)et);
    if (!cell(ok, name, "%s", why)) {
        iest_free(&e);
        return;
    }
    uint8_t m[IP_MSG_MAX];
    ok = true;
    for (size_t i = 0; i < sizeof(ip_msg_lens) / sizeof(ip_msg_lens[0]) && ok;
         i++) {
        ip_fill(m, ip_msg_lens[i], 900u + (unsigned)i);
        ok =
            g2g_wrap(e.g, e.gacc_ctx, 1, m, ip_msg_lens[i], why, sizeof(why)) &&
            g2g_wrap(e.gacc_ctx, e.g, 1, m, ip_msg_lens[i], why, sizeof(why)) &&
            g2g_wrap(e.g, e.gacc_ctx, 0, m, ip_msg_lens[i], why, sizeof(why)) &&
            g2g_wrap(e.gacc_ctx, e.g, 0, m, ip_msg_lens[i], why, sizeof(why)) &&
            g2g_mic(e.g, e.gacc_ctx, m, ip_msg_lens[i], false, why,
                    sizeof(why)) &&
            g2g_mic(e.gacc_ctx, e.g, m, ip_msg_lens[i], false, why,
                    sizeof(why));
    }
    snprintf(name, sizeof(name),
             "%s wrap sealed, integ and MIC both ways over 7 lengths", label);
    cell(ok, name, "%s", why);
    ip_fill(m, 40, 999);
    ok = g2g_mic(e.g, e.gacc_ctx, m, 40, true, why, sizeof(why)) &&
         g2g_mic(e.gacc_ctx, e.g, m, 40, true, why, sizeof(why));
    snprintf(name, sizeof(name), "%s a tampered MIC each way -> BAD_SIG",
             label);
    cell(ok, name, "%s", why);
    iest_free(&e);
}

/* ---- Per enctype ---- */

static void run_enctype(struct world *W, int32_t et)
{
    char cc[PATH_MAX + 32], tag[32], why[1024] = "", name[512];
    size_t n = 0;
    int32_t ses = 0;
    bool tgt = false, ok;

    snprintf(tag, sizeof(tag), "et%d", (int)et);
    cc_path(cc, sizeof(cc), W, tag);
    ok = kinit_into(W, cc, why, sizeof(why)) &&
         cc_look(cc, "gk5/localhost@", &n, &ses, &tgt, why, sizeof(why));
    if (ok && (!tgt || n != 0)) {
        snprintf(why, sizeof(why),
                 "after gk5_kinit: TGT %d, %zu service "
                 "tickets",
                 (int)tgt, n);
        ok = false;
    }
    snprintf(name, sizeof(name),
             "%s(%d) gk5_kinit -k client.keytab -> a FILE ccache with the TGT",
             enctype_name(et), (int)et);
    if (!cell(ok, name, "%s", why)) {
        return;
    }
    run_mit(W, cc, et, true, false);
    /* The service ticket gk5_initiator_create got from the KDC. */
    ok = cc_look(cc, "gk5/localhost@", &n, &ses, &tgt, why, sizeof(why));
    if (ok && (n != 1 || ses != et)) {
        snprintf(why, sizeof(why),
                 "%zu tickets for gk5/localhost in the ccache, the last of "
                 "session enctype %d",
                 n, (int)ses);
        ok = false;
    }
    snprintf(name, sizeof(name),
             "%s(%d) the TGS exchange stored one gk5/localhost ticket, "
             "session key %d, reused after",
             enctype_name(et), (int)et, (int)et);
    cell(ok, name, "%s", why);
    run_mit(W, cc, et, false, false);
    run_mit(W, cc, et, true, true);
    run_mit(W, cc, et, false, true);
    run_gk5_acceptor(W, cc, et, true);
    run_gk5_acceptor(W, cc, et, false);
    /* Still one ticket: every context reused the first. */
    ok = cc_look(cc, "gk5/localhost@", &n, &ses, &tgt, why, sizeof(why)) &&
         n == 1;
    snprintf(name, sizeof(name),
             "%s(%d) after 7 contexts the ccache still holds one "
             "gk5/localhost ticket",
             enctype_name(et), (int)et);
    cell(ok, name, "%zu tickets", n);
}

/* ---- Bindings, RFC 4537, AP-REPs ---- */

static void run_bindings_differ(struct world *W, const char *cc, bool mutual)
{
    struct iest e;
    char why[1024] = "", name[512];
    int32_t et = 18;
    bool ok = false;

    memset(&e, 0, sizeof(e));
    e.ccache = cc;
    e.target = TARGET;
    e.ets = &et;
    e.n_ets = 1;
    e.mutual = mutual;
    e.gk5_cb = 0;
    e.acc_cb = 1;
    if (mit_acceptor(W, W->service_kt, &e.mit_acc, why, sizeof(why))) {
        iest_run(&e);
        if (e.cmaj != GK5_S_COMPLETE || GK5_ERROR(e.s1maj)) {
            snprintf(why, sizeof(why), "gk5: %s / %s",
                     gk5_words(e.cmaj, e.cmin), gk5_words(e.s1maj, e.s1min));
        } else {
            /* With mutual MIT's KRB-ERROR (if any) must fail gk5; without,
             * gk5's initiator is complete and cannot know. */
            ok = e.amaj == GSS_S_BAD_BINDINGS &&
                 (mutual ? e.g == NULL &&
                               (e.mreply.length == 0 ||
                                (e.reply_id == 0x0300 && GK5_ERROR(e.s2maj)))
                         : e.mreply.length == 0);
            snprintf(why, sizeof(why),
                     "MIT: %s; its reply %zu bytes TOK_ID %04x; gk5 on it: "
                     "%s; KRB-ERROR: %s",
                     mit_words(e.amaj, e.amin), e.mreply.length, e.reply_id,
                     gk5_words(e.s2maj, e.s2min), e.step_err);
            if (ok) {
                printf("# bindings differ%s: %s\n",
                       mutual ? "" : ", no mutual auth", why);
            }
        }
    }
    snprintf(name, sizeof(name),
             "aes256-cts-hmac-sha1-96(18) gk5->MIT%s | channel bindings "
             "differ -> MIT BAD_BINDINGS, %s",
             mutual ? "" : ", no mutual auth",
             mutual ? "gk5 gets no context" : "no reply");
    cell(ok, name, "%s", why);
    iest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.mit_acc);
}

static void run_bindings_gk5_only(struct world *W, const char *cc)
{
    struct iest e;
    char why[1024] = "", name[512];
    int32_t et = 18;
    bool ok = false;

    memset(&e, 0, sizeof(e));
    e.ccache = cc;
    e.target = TARGET;
    e.ets = &et;
    e.n_ets = 1;
    e.mutual = true;
    e.gk5_cb = 0;
    e.acc_cb = -1;
    if (mit_acceptor(W, W->service_kt, &e.mit_acc, why, sizeof(why))) {
        iest_run(&e);
        ok = iest_judge(&e, why, sizeof(why));
    }
    snprintf(name, sizeof(name),
             "aes256-cts-hmac-sha1-96(18) gk5->MIT | bindings from gk5 only "
             "-> MIT accepts (RFC 2744: an acceptor without bindings)");
    cell(ok, name, "%s", why);
    iest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.mit_acc);
}

/* RFC 4537: the ccache holds a ticket of session key `ses`; gk5 then
 * offers [want, ses] and reuses the ticket.  MIT's acceptor picks the
 * first of its own permitted_enctypes (the realm lists 18 and 17 first)
 * that the list holds: `expect`, and the context is of it. */
/* A realm whose KDC has no key of et (its kdc.enctypes says so: Heimdal's
 * has no camellia): one skipped cell, saying why, for the enctype's. */
static bool realm_lacks(const struct world *W, int32_t et, const char *what)
{
    char name[128];

    if (gk5_realm_has_enctype(W->realm.dir, et)) {
        return false;
    }
    snprintf(name, sizeof(name), "%s(%d) %s", enctype_name(et), (int)et, what);
    skip_cell(name, "the realm's KDC has no key of this enctype "
                    "(kdc.enctypes)");
    return true;
}

static void run_negotiation(struct world *W, int32_t want, int32_t ses,
                            int32_t expect)
{
    char cc[PATH_MAX + 32], tag[32], why[1024] = "", name[512];
    int32_t first = ses, both[2] = {want, ses}, tses = 0;
    struct iest pre, e;
    struct ip_peers pp;
    size_t n = 0;
    bool tgt = false, ok = false;

    memset(&pre, 0, sizeof(pre));
    memset(&e, 0, sizeof(e));
    memset(&pp, 0, sizeof(pp));
    snprintf(pp.label, sizeof(pp.label),
             "RFC 4537 gk5 offers [%d,%d], ticket session key %d, gk5->MIT |",
             (int)want, (int)ses, (int)ses);
    snprintf(tag, sizeof(tag), "nego%d-%d", (int)want, (int)ses);
    cc_path(cc, sizeof(cc), W, tag);
    if (!kinit_into(W, cc, why, sizeof(why)) ||
        !mit_acceptor(W, W->service_kt, &e.mit_acc, why, sizeof(why))) {
        goto done;
    }
    pre.ccache = e.ccache = cc;
    pre.target = e.target = TARGET;
    pre.ets = &first;
    pre.n_ets = 1;
    e.ets = both;
    e.n_ets = 2;
    pre.mutual = e.mutual = true;
    pre.gk5_cb = pre.acc_cb = e.gk5_cb = e.acc_cb = -1;
    pre.mit_acc = e.mit_acc;
    iest_run(&pre);
    if (!iest_judge(&pre, why, sizeof(why))) {
        goto done;
    }
    iest_run(&e);
    if (!iest_judge(&e, why, sizeof(why)) ||
        !cc_look(cc, "gk5/localhost@", &n, &tses, &tgt, why, sizeof(why))) {
        goto done;
    }
    ok = n == 1 && tses == ses && e.g_et == expect;
    snprintf(why, sizeof(why),
             "%zu tickets (session %d) in the ccache; gk5's context %d", n,
             (int)tses, (int)e.g_et);
done:
    snprintf(name, sizeof(name),
             "%s the cached ticket reused, context "
             "enctype %d (MIT's choice)",
             pp.label, (int)expect);
    if (cell(ok, name, "%s", why)) {
        pp.g = e.g;
        pp.p = e.mit;
        pp.who = "MIT";
        pp.words = mit_words;
        ip_cell_lengths(&pp, "gk5->MIT wrap sealed", ip_g2p_wrap, 1, 10);
        ip_cell_lengths(&pp, "MIT->gk5 wrap sealed", ip_p2g_wrap, 1, 20);
        ip_cell_lengths(&pp, "gk5->MIT MIC", ip_g2p_mic, 0, 30);
        ip_cell_lengths(&pp, "MIT->gk5 MIC", ip_p2g_mic, 0, 40);
        cell_enctypes(pp.label, &e, expect, ses);
    }
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.mit_acc);
    iest_free(&pre);
    iest_free(&e);
}

/* A tampered AP-REP, and MIT's AP-REP of another context: gk5 refuses. */
static void run_bad_ap_rep(struct world *W, const char *cc)
{
    struct iest a, b;
    char why[1024] = "";
    int32_t et = 18;
    bool ok = false;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.ccache = b.ccache = cc;
    a.target = b.target = TARGET;
    a.ets = b.ets = &et;
    a.n_ets = b.n_ets = 1;
    a.mutual = b.mutual = true;
    a.gk5_cb = a.acc_cb = b.gk5_cb = b.acc_cb = -1;
    a.tamper_ap_rep = true;
    if (mit_acceptor(W, W->service_kt, &a.mit_acc, why, sizeof(why))) {
        b.mit_acc = a.mit_acc;
        iest_run(&a);
        ok = a.amaj == GSS_S_COMPLETE && a.reply_id == 0x0200 &&
             GK5_ERROR(a.s2maj) && a.g == NULL;
        snprintf(why, sizeof(why), "MIT: %s; gk5 on the tampered AP-REP: %s",
                 mit_words(a.amaj, a.amin), gk5_words(a.s2maj, a.s2min));
        if (ok) {
            printf("# a tampered AP-REP: %s\n", why);
        }
    }
    cell(ok,
         "aes256-cts-hmac-sha1-96(18) gk5->MIT | MIT's AP-REP with a byte "
         "flipped -> gk5 refuses, no context",
         "%s", why);

    /* b's AP-REQ to MIT; its AP-REP goes to a fresh initiator. */
    ok = false;
    why[0] = '\0';
    iest_run(&b);
    if (b.amaj == GSS_S_COMPLETE && b.mreply.length > 0) {
        gk5_initiator_opts o;
        gk5_initiator *other = NULL;
        gk5_buffer req = {0, NULL}, out = {0, NULL};
        gk5_buffer rep = {b.mreply.length, b.mreply.value};
        uint32_t minor = 0, major;
        memset(&o, 0, sizeof(o));
        o.ccache = cc;
        o.enctypes = &et;
        o.n_enctypes = 1;
        major = gk5_initiator_create(&minor, TARGET, &o, &other);
        if (major == GK5_S_COMPLETE) {
            major = gk5_initiator_step(&minor, other, NULL, &req);
        }
        if (major == GK5_S_CONTINUE_NEEDED) {
            major = gk5_initiator_step(&minor, other, &rep, &out);
            ok = major == GK5_S_FAILURE &&
                 GK5_ERR_CODE(minor) == GK5_ERR_AP_REP_MISMATCH;
        }
        snprintf(why, sizeof(why), "gk5 on another context's AP-REP: %s",
                 gk5_words(major, minor));
        gk5_buffer_release(&req);
        gk5_buffer_release(&out);
        gk5_initiator_free(other);
    } else {
        snprintf(why, sizeof(why), "MIT: %s", mit_words(b.amaj, b.amin));
    }
    cell(ok,
         "aes256-cts-hmac-sha1-96(18) gk5->MIT | MIT's AP-REP of another "
         "context (same ticket) -> GK5_ERR_AP_REP_MISMATCH",
         "%s", why);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &a.mit_acc);
    iest_free(&a);
    iest_free(&b);
}

/* ---- Refusals ---- */

static void run_unknown_target(struct world *W, const char *cc)
{
    gk5_initiator_opts o;
    gk5_initiator *init = NULL;
    uint32_t minor = 0, major;
    const char *words;
    char why[1024];
    bool ok;

    memset(&o, 0, sizeof(o));
    o.ccache = cc;
    major = gk5_initiator_create(&minor, UNKNOWN_TARGET, &o, &init);
    words = last_krb_error();
    ok = major == GK5_S_FAILURE && init == NULL &&
         GK5_ERR_CODE(minor) == GK5_ERR_KDC_PRINCIPAL_UNKNOWN &&
         strstr(words, "KDC_ERR_S_PRINCIPAL_UNKNOWN") != NULL;
    snprintf(why, sizeof(why), "%s; gk5_krb_last_error: %s",
             gk5_words(major, minor), words);
    if (ok) {
        printf("# %s: %s\n", UNKNOWN_TARGET, why);
    }
    cell(ok,
         "gk5_initiator_create for " UNKNOWN_TARGET " (the KDC does not know "
         "it) -> GK5_ERR_KDC_PRINCIPAL_UNKNOWN, KDC_ERR_S_PRINCIPAL_UNKNOWN in "
         "words",
         "%s", why);
    gk5_initiator_free(init);
    (void)W;
}

/* A ccache that names the client and holds nothing, and no ccache file. */
static void run_no_tgt(struct world *W)
{
    char cc[PATH_MAX + 32], none[PATH_MAX + 32], why[1024] = "";
    krb5_ccache kcc = NULL;
    krb5_principal client = NULL;
    gk5_initiator_opts o;
    gk5_initiator *init = NULL;
    uint32_t minor = 0, major = GK5_S_FAILURE;
    bool ok = false;

    cc_path(cc, sizeof(cc), W, "empty");
    cc_path(none, sizeof(none), W, "absent");
    (void)unlink(none + 5);
    if (krb5_parse_name(W->kc, GK5_MIT_CLIENT, &client) != 0 ||
        krb5_cc_resolve(W->kc, cc, &kcc) != 0 ||
        krb5_cc_initialize(W->kc, kcc, client) != 0) {
        snprintf(why, sizeof(why), "MIT could not make %.900s", cc);
    } else {
        memset(&o, 0, sizeof(o));
        o.ccache = cc;
        major = gk5_initiator_create(&minor, TARGET, &o, &init);
        ok = major == GK5_S_NO_CRED && GK5_ERR_CODE(minor) == GK5_ERR_NO_TGT &&
             init == NULL;
        snprintf(why, sizeof(why), "%s", gk5_words(major, minor));
        if (ok) {
            printf("# a ccache with no TGT: %s\n", why);
        }
    }
    cell(ok,
         "gk5_initiator_create with a ccache (MIT's krb5_cc_initialize) "
         "holding no TGT -> NO_CRED, GK5_ERR_NO_TGT",
         "%s", why);
    gk5_initiator_free(init);
    init = NULL;
    if (kcc != NULL) {
        (void)krb5_cc_close(W->kc, kcc);
    }
    krb5_free_principal(W->kc, client);

    memset(&o, 0, sizeof(o));
    o.ccache = none;
    major = gk5_initiator_create(&minor, TARGET, &o, &init);
    ok = major == GK5_S_NO_CRED &&
         GK5_ERR_CODE(minor) == GK5_ERR_CCACHE_NOT_FOUND && init == NULL;
    cell(ok,
         "gk5_initiator_create with no ccache file -> NO_CRED, "
         "GK5_ERR_CCACHE_NOT_FOUND",
         "%s", gk5_words(major, minor));
    gk5_initiator_free(init);
}

/* rc4-hmac asked (RFC 8429): refused before any exchange. */
static void run_rc4(struct world *W, const char *cc)
{
    static const int32_t rc4 = 23;
    gk5_initiator_opts o;
    gk5_initiator *init = NULL;
    uint32_t minor = 0, major;

    memset(&o, 0, sizeof(o));
    o.ccache = cc;
    o.enctypes = &rc4;
    o.n_enctypes = 1;
    major = gk5_initiator_create(&minor, TARGET, &o, &init);
    cell(major == GK5_S_UNAVAILABLE &&
             GK5_ERR_CODE(minor) == GK5_ERR_ENCTYPE_REJECTED &&
             GK5_ERR_ENCTYPE(minor) == 23 && init == NULL,
         "gk5_initiator_create asking rc4-hmac(23) only -> UNAVAILABLE, "
         "GK5_ERR_ENCTYPE_REJECTED (RFC 8429)",
         "%s", gk5_words(major, minor));
    gk5_initiator_free(init);
    (void)W;
}

/* service.keytab's entries with fresh random keys (the same principal,
 * kvno and enctypes): a server whose keys the KDC no longer has. */
static int make_wrong_keytab(struct world *W, char *why, size_t wl)
{
    krb5_keytab in = NULL, out = NULL;
    krb5_kt_cursor cur;
    krb5_keytab_entry ent;
    krb5_error_code ret;
    int n = 0;

    (void)unlink(W->wrong_kt + 5);
    ret = krb5_kt_resolve(W->kc, W->service_kt, &in);
    if (ret == 0) {
        ret = krb5_kt_resolve(W->kc, W->wrong_kt, &out);
    }
    if (ret == 0) {
        ret = krb5_kt_start_seq_get(W->kc, in, &cur);
    }
    while (ret == 0 && krb5_kt_next_entry(W->kc, in, &ent, &cur) == 0) {
        krb5_keyblock kb;
        krb5_keyblock old = ent.key;
        if (krb5_c_make_random_key(W->kc, ent.key.enctype, &kb) == 0) {
            ent.key = kb;
            if (krb5_kt_add_entry(W->kc, out, &ent) == 0) {
                n++;
            }
            krb5_free_keyblock_contents(W->kc, &kb);
        }
        ent.key = old;
        krb5_free_keytab_entry_contents(W->kc, &ent);
    }
    if (ret == 0) {
        (void)krb5_kt_end_seq_get(W->kc, in, &cur);
    }
    if (in != NULL) {
        (void)krb5_kt_close(W->kc, in);
    }
    if (out != NULL) {
        (void)krb5_kt_close(W->kc, out);
    }
    if (ret != 0 || n == 0) {
        snprintf(why, wl, "could not write %.400s (%d entries)", W->wrong_kt,
                 n);
        return -1;
    }
    return 0;
}

/* MIT's acceptor on a keytab that cannot open the ticket: MIT refuses and
 * (with mutual) sends a KRB-ERROR, which gk5 reads and says in words. */
static void run_wrong_keytab(struct world *W, const char *cc, const char *kt,
                             const char *what, const char *code)
{
    struct iest e;
    char why[1024] = "", name[512];
    int32_t et = 18;
    bool ok = false;

    memset(&e, 0, sizeof(e));
    e.ccache = cc;
    e.target = TARGET;
    e.ets = &et;
    e.n_ets = 1;
    e.mutual = true;
    e.gk5_cb = e.acc_cb = -1;
    if (mit_acceptor(W, kt, &e.mit_acc, why, sizeof(why))) {
        iest_run(&e);
        if (e.cmaj != GK5_S_COMPLETE || GK5_ERROR(e.s1maj)) {
            snprintf(why, sizeof(why), "gk5: %s / %s",
                     gk5_words(e.cmaj, e.cmin), gk5_words(e.s1maj, e.s1min));
        } else {
            ok = GSS_ERROR(e.amaj) && e.reply_id == 0x0300 &&
                 GK5_ERROR(e.s2maj) && e.g == NULL &&
                 strstr(e.step_err, code) != NULL;
            snprintf(why, sizeof(why),
                     "MIT: %s; reply %zu bytes TOK_ID %04x; gk5: %s; "
                     "gk5_krb_last_error: %s",
                     mit_words(e.amaj, e.amin), e.mreply.length, e.reply_id,
                     gk5_words(e.s2maj, e.s2min), e.step_err);
            if (ok) {
                printf("# MIT's acceptor on %s: %s\n", what, why);
            }
        }
    }
    snprintf(name, sizeof(name),
             "aes256-cts-hmac-sha1-96(18) gk5->MIT | MIT's acceptor on %s -> "
             "MIT's KRB-ERROR, gk5 refuses: %s in words",
             what, code);
    cell(ok, name, "%s", why);
    iest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.mit_acc);
}

int main(int argc, char **argv)
{
    static const int32_t enctypes[] = {18, 17, 19, 20, 25, 26,
#ifdef GK5_WITH_DES3
                                       16
#endif
    };
    struct world W;
    const char *dir = getenv("GK5_REALM_DIR");
    char err[512], path[PATH_MAX], cc[PATH_MAX + 32];
    uint32_t minor = 0;
    int ret = 1;

    (void)argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 1) {
        fprintf(stderr, "usage: test_native_init\n"
                        "(run through gk5 realm run --tap --)\n");
        return 2;
    }
    memset(&W, 0, sizeof(W));
    if (dir != NULL && dir[0] != '\0') {
        if (gk5_mit_realm_attach(&W.realm, dir, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
    } else {
        if (gk5_mit_realm_tools_present(err, sizeof(err)) != 0) {
            printf("1..0 # SKIP %s\n", err);
            return 0;
        }
        if (gk5_mit_realm_start(&W.realm, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
        gk5_mit_realm_stop_on_signals(&W.realm);
    }
    static const struct {
        const char *file;
        size_t off;
    } files[] = {
        {"client.keytab", offsetof(struct world, client_kt)},
        {"service.keytab", offsetof(struct world, service_kt)},
        {"nfs.keytab", offsetof(struct world, nfs_kt)},
        {"native-init-wrong.keytab", offsetof(struct world, wrong_kt)},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (gk5_mit_realm_path(path, sizeof(path), &W.realm, files[i].file) !=
            0) {
            printf("Bail out! realm path too long\n");
            goto done;
        }
        snprintf((char *)&W + files[i].off, PATH_MAX + 8, "FILE:%s", path);
    }
    if (gk5_mit_realm_path(path, sizeof(path), &W.realm,
                           "native-init.rcache") != 0) {
        printf("Bail out! realm path too long\n");
        goto done;
    }
    snprintf(W.rcache, sizeof(W.rcache), "file2:%s", path);
    if (krb5_init_context(&W.kc) != 0) {
        printf("Bail out! MIT krb5_init_context failed\n");
        goto done;
    }
    gk5_acceptor_opts ao = {.keytab = W.service_kt, .principal = TARGET};
    uint32_t major = gk5_acceptor_cred_new(&minor, &ao, &W.gacc);
    if (major != GK5_S_COMPLETE) {
        printf("Bail out! gk5_acceptor_cred_new(%s): %s\n", W.service_kt,
               gk5_words(major, minor));
        goto done;
    }
    /* gk5's memory replay cache refuses authenticators stamped in the
     * second it was made (its restart guard): start in the next one. */
    for (time_t made = time(NULL); time(NULL) <= made;) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    printf("# realm %s, KDC on 127.0.0.1:%d, %s; gk5 %s initiates to %s as "
           "%s\n",
           GK5_MIT_REALM_NAME, W.realm.port, W.realm.dir, gk5_version(), TARGET,
           GK5_MIT_CLIENT);

    for (size_t i = 0; i < sizeof(enctypes) / sizeof(enctypes[0]); i++) {
        if (!realm_lacks(&W, enctypes[i], "every cell")) {
            run_enctype(&W, enctypes[i]);
        }
    }
    cc_path(cc, sizeof(cc), &W, "et18");
    run_bindings_differ(&W, cc, true);
    run_bindings_differ(&W, cc, false);
    run_bindings_gk5_only(&W, cc);
    run_negotiation(&W, 18, 17, 18);
    if (!realm_lacks(&W, 26, "RFC 4537 gk5 offers [18,26]")) {
        run_negotiation(&W, 18, 26, 18);
    }
    /* Samba's AD KDC has no aes-sha2 keys. */
    if (!realm_lacks(&W, 20, "RFC 4537 gk5 offers [20,19]") &&
        !realm_lacks(&W, 19, "RFC 4537 gk5 offers [20,19]")) {
        run_negotiation(&W, 20, 19, 20);
    }
    /* MIT's preference, not the list's order: 18, the session key's. */
    run_negotiation(&W, 17, 18, 18);
    run_bad_ap_rep(&W, cc);
    run_unknown_target(&W, cc);
    run_no_tgt(&W);
    run_rc4(&W, cc);
    run_wrong_keytab(&W, cc, W.nfs_kt, "nfs.keytab (no key of gk5/localhost)",
                     "KRB_AP_ERR_NOT_US (35)");
    if (make_wrong_keytab(&W, err, sizeof(err)) == 0) {
        run_wrong_keytab(&W, cc, W.wrong_kt,
                         "a keytab of gk5/localhost with other keys",
                         "KRB_AP_ERR_BAD_INTEGRITY (31)");
    } else {
        cell(false, "a keytab of gk5/localhost with other keys", "%s", err);
    }
    ret = tap_finish();

done:
    gk5_acceptor_cred_free(W.gacc);
    if (W.kc != NULL) {
        krb5_free_context(W.kc);
    }
    gk5_mit_realm_stop(&W.realm);
    return ret;
}
