/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own initiator against Heimdal's acceptor, in-process: gk5_kinit
 * gets the client's TGT (client.keytab) from the throwaway realm's MIT KDC
 * into a FILE ccache in the realm's folder, gk5_initiator_create gets the
 * service ticket for gk5@localhost, gk5_initiator_step makes the AP-REQ,
 * Heimdal's gss_accept_sec_context (the realm's service.keytab, MIT's
 * keytab format, which Heimdal reads) takes it, gk5 takes Heimdal's
 * AP-REP, and the two contexts carry tokens both ways
 * (init_peer_cells.h).  Per enctype Heimdal's krb5 knows and gk5 uses:
 * mutual authentication on and off, channel bindings on both sides, the
 * enctype and acceptor subkey each side says it has (Heimdal's lucid
 * export, gk5_ctx_inquire).  Then a ticket Heimdal's keytab cannot open
 * (nfs.keytab): Heimdal's KRB-ERROR (or none) and gk5 gets no context.
 *
 * This process links Heimdal's libgssapi and libkrb5 and the shipped
 * libgk5 (which links only OpenSSL); no MIT.  (Heimdal's initiator against
 * gk5's acceptor is test_heimdal's N cases.)
 *
 *   gk5 realm run --tap -- test_heimdal_init
 *
 * Output is TAP, one line per cell.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "tap_cells.h"
/* after tap_cells.h: */
#include "init_peer_cells.h"

#define CLIENT "gk5-client@GK5.TEST"
#define SERVICE "gk5/localhost@GK5.TEST"
#define NFS_SERVICE "nfs/localhost@GK5.TEST"
#define TARGET "gk5@localhost"
#define REQ_BASE                                                               \
    (GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG | GK5_C_CONF_FLAG |               \
     GK5_C_INTEG_FLAG)

struct world {
    const char *dir;
    char client_kt[PATH_MAX + 8];
    char service_kt[PATH_MAX + 8];
    char nfs_kt[PATH_MAX + 8];
    krb5_context kc;
};

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

static const char *heim_words(OM_uint32 major, OM_uint32 minor)
{
    static char text[512];
    size_t used;
    OM_uint32 ctx = 0, m = 0;

    snprintf(text, sizeof(text), "GSS major %#x", (unsigned)major);
    do {
        gss_buffer_desc s = GSS_C_EMPTY_BUFFER;
        if (GSS_ERROR(gss_display_status(&m, major, GSS_C_GSS_CODE,
                                         GSS_C_NO_OID, &ctx, &s))) {
            break;
        }
        used = strlen(text);
        snprintf(text + used, sizeof(text) - used, ": %.*s", (int)s.length,
                 (const char *)s.value);
        (void)gss_release_buffer(&m, &s);
    } while (ctx != 0);
    ctx = 0;
    while (minor != 0) {
        gss_buffer_desc s = GSS_C_EMPTY_BUFFER;
        if (GSS_ERROR(gss_display_status(&m, minor, GSS_C_MECH_CODE,
                                         GSS_KRB5_MECHANISM, &ctx, &s))) {
            break;
        }
        used = strlen(text);
        snprintf(text + used, sizeof(text) - used, ": %.*s", (int)s.length,
                 (const char *)s.value);
        (void)gss_release_buffer(&m, &s);
        if (ctx == 0) {
            break;
        }
    }
    return text;
}

static const char *gk5_words(uint32_t major, uint32_t minor)
{
    static char text[256];

    snprintf(text, sizeof(text), "%s", gk5_display_status(major, minor));
    return text;
}

static const char *last_krb_error(void)
{
    const char *e = gk5_krb_last_error();

    return e != NULL ? e : "(none)";
}

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

/* Heimdal's acceptor credential on keytab for principal. */
static bool heim_acceptor(struct world *W, const char *keytab,
                          const char *principal, gss_cred_id_t *cred, char *why,
                          size_t wl)
{
    krb5_principal p = NULL;
    krb5_keytab kt = NULL;
    OM_uint32 major = GSS_S_FAILURE, minor = 0;

    *cred = GSS_C_NO_CREDENTIAL;
    if (krb5_parse_name(W->kc, principal, &p) != 0 ||
        krb5_kt_resolve(W->kc, keytab, &kt) != 0) {
        snprintf(why, wl, "Heimdal krb5_parse_name / krb5_kt_resolve(%s)",
                 keytab);
    } else {
        major = gss_krb5_import_cred(&minor, NULL, p, kt, cred);
        if (GSS_ERROR(major)) {
            snprintf(why, wl, "Heimdal gss_krb5_import_cred(%s): %s", keytab,
                     heim_words(major, minor));
        }
    }
    if (kt != NULL) {
        (void)krb5_kt_close(W->kc, kt);
    }
    if (p != NULL) {
        krb5_free_principal(W->kc, p);
    }
    return !GSS_ERROR(major);
}

static void make_bindings(gss_channel_bindings_t h, gk5_channel_bindings *g)
{
    static const uint8_t addr[4] = {127, 0, 0, 1};
    static const char app[] = "tls-server-end-point:heimdal-init";

    memset(h, 0, sizeof(*h));
    h->initiator_addrtype = GSS_C_AF_INET;
    h->initiator_address.length = sizeof(addr);
    h->initiator_address.value = (void *)(uintptr_t)addr;
    h->acceptor_addrtype = GSS_C_AF_INET;
    h->acceptor_address.length = sizeof(addr);
    h->acceptor_address.value = (void *)(uintptr_t)addr;
    h->application_data.length = strlen(app);
    h->application_data.value = (void *)(uintptr_t)app;
    memset(g, 0, sizeof(*g));
    g->initiator_addrtype = GSS_C_AF_INET;
    g->initiator_address = (gk5_buffer){sizeof(addr), (void *)(uintptr_t)addr};
    g->acceptor_addrtype = GSS_C_AF_INET;
    g->acceptor_address = (gk5_buffer){sizeof(addr), (void *)(uintptr_t)addr};
    g->application_data = (gk5_buffer){strlen(app), (void *)(uintptr_t)app};
}

struct hest {
    const char *ccache, *target;
    int32_t et;
    bool mutual, cb;
    gss_cred_id_t acc;
    uint32_t cmaj, cmin, s1maj, s1min, s2maj, s2min;
    char create_err[512], step_err[512];
    gk5_buffer ap_req;
    OM_uint32 amaj, amin, aflags;
    gss_buffer_desc reply;
    unsigned reply_id;
    char src[256];
    gk5_initiator *init;
    gk5_ctx *g;
    int32_t g_et;
    gss_ctx_id_t h;
};

static void hest_run(struct hest *e)
{
    struct gss_channel_bindings_struct hcb;
    gk5_channel_bindings gcb;
    gk5_initiator_opts o;
    OM_uint32 rel = 0;
    gss_name_t src = GSS_C_NO_NAME;
    gss_buffer_desc dn = GSS_C_EMPTY_BUFFER;

    e->h = GSS_C_NO_CONTEXT;
    e->reply = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    e->s1maj = e->s2maj = e->amaj = GK5_S_FAILURE;
    make_bindings(&hcb, &gcb);
    memset(&o, 0, sizeof(o));
    o.ccache = e->ccache;
    o.enctypes = &e->et;
    o.n_enctypes = 1;
    o.req_flags = REQ_BASE | (e->mutual ? GK5_C_MUTUAL_FLAG : 0);
    o.cb = e->cb ? &gcb : NULL;
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
    e->amaj = gss_accept_sec_context(
        &e->amin, &e->h, e->acc, &in, e->cb ? &hcb : GSS_C_NO_CHANNEL_BINDINGS,
        &src, NULL, &e->reply, &e->aflags, NULL, NULL);
    if (src != GSS_C_NO_NAME &&
        !GSS_ERROR(gss_display_name(&rel, src, &dn, NULL))) {
        snprintf(e->src, sizeof(e->src), "%.*s", (int)dn.length,
                 (const char *)dn.value);
    }
    (void)gss_release_buffer(&rel, &dn);
    (void)gss_release_name(&rel, &src);
    e->reply_id = tok_id(e->reply.value, e->reply.length);
    if (e->s1maj != GK5_S_CONTINUE_NEEDED) {
        e->s2maj = e->s1maj;
        e->s2min = e->s1min;
    } else if (e->reply.length > 0) {
        gk5_buffer r = {e->reply.length, e->reply.value}, out = {0, NULL};
        e->s2maj = gk5_initiator_step(&e->s2min, e->init, &r, &out);
        snprintf(e->step_err, sizeof(e->step_err), "%s", last_krb_error());
        gk5_buffer_release(&out);
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

static void hest_free(struct hest *e)
{
    OM_uint32 rel = 0;

    gk5_initiator_free(e->init);
    e->init = NULL;
    gk5_buffer_release(&e->ap_req);
    (void)gss_release_buffer(&rel, &e->reply);
    (void)gss_delete_sec_context(&rel, &e->h, GSS_C_NO_BUFFER);
    gk5_ctx_free(e->g);
    e->g = NULL;
}

static bool hest_judge(const struct hest *e, char *why, size_t wl)
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
    if (e->s1maj != want1 ||
        tok_id(e->ap_req.value, e->ap_req.length) != 0x0100) {
        snprintf(why, wl, "gk5's first step: %s",
                 gk5_words(e->s1maj, e->s1min));
        return false;
    }
    if (e->amaj != GSS_S_COMPLETE) {
        snprintf(why, wl, "Heimdal gss_accept_sec_context: %s",
                 heim_words(e->amaj, e->amin));
        return false;
    }
    if (strcmp(e->src, CLIENT) != 0 || (e->aflags & wantf) != wantf ||
        ((e->aflags & GSS_C_MUTUAL_FLAG) != 0) != e->mutual) {
        snprintf(why, wl,
                 "Heimdal says the initiator is %s, flags %#x "
                 "(want %#x)",
                 e->src, (unsigned)e->aflags, (unsigned)wantf);
        return false;
    }
    if ((e->reply.length != 0) != e->mutual ||
        (e->mutual && e->reply_id != 0x0200)) {
        snprintf(why, wl, "Heimdal replied %zu bytes, TOK_ID %04x",
                 e->reply.length, e->reply_id);
        return false;
    }
    if (e->s2maj != GK5_S_COMPLETE || e->g == NULL) {
        snprintf(why, wl, "gk5 on the AP-REP: %s; KRB-ERROR: %s",
                 gk5_words(e->s2maj, e->s2min), e->step_err);
        return false;
    }
    return true;
}

/* Heimdal's lucid export (which leaves its context usable) and
 * gk5_ctx_inquire agree on the enctype and the acceptor subkey. */
static void cell_enctypes(const char *label, struct hest *e)
{
    void *lv = NULL;
    gss_krb5_lucid_context_v1_t *l;
    gk5_ctx_info gi;
    char why[1024] = "", name[512];
    uint32_t minor = 0, major;
    OM_uint32 lmaj, lmin = 0;
    bool cfx = e->et != 16, ok = false;
    int32_t h_key = 0, h_sub = 0;

    memset(&gi, 0, sizeof(gi));
    major = gk5_ctx_inquire(&minor, e->g, &gi);
    lmaj = gss_krb5_export_lucid_sec_context(&lmin, &e->h, 1, &lv);
    if (major != GK5_S_COMPLETE || GSS_ERROR(lmaj) || lv == NULL) {
        snprintf(why, sizeof(why),
                 "gk5_ctx_inquire: %s; Heimdal lucid export: %s",
                 gk5_words(major, minor), heim_words(lmaj, lmin));
        goto done;
    }
    l = lv;
    if (l->protocol == 1) {
        h_key = (int32_t)l->cfx_kd.ctx_key.type;
        h_sub = l->cfx_kd.have_acceptor_subkey
                    ? (int32_t)l->cfx_kd.acceptor_subkey.type
                    : 0;
    } else {
        h_key = (int32_t)l->rfc1964_kd.ctx_key.type;
    }
    printf("# %s gk5: cfx %d acceptor_subkey %d enctype %d; Heimdal: "
           "initiate %u protocol %u ctx_key %d acceptor_subkey %d\n",
           label, gi.cfx, gi.acceptor_subkey, (int)gi.enctype,
           (unsigned)l->initiate, (unsigned)l->protocol, (int)h_key,
           (int)h_sub);
    ok = gi.initiator == 1 && gi.cfx == (int)cfx && l->initiate == 0 &&
         l->protocol == (cfx ? 1u : 0u) && gi.enctype == e->et &&
         e->g_et == e->et && h_key == e->et &&
         gi.acceptor_subkey == (int)(e->mutual && cfx) &&
         (e->mutual && cfx ? h_sub == e->et : h_sub == 0);
    if (!ok) {
        snprintf(why, sizeof(why),
                 "gk5 enctype %d (finish %d) subkey %d cfx %d; Heimdal "
                 "protocol %u ctx_key %d acceptor_subkey %d",
                 (int)gi.enctype, (int)e->g_et, gi.acceptor_subkey, gi.cfx,
                 (unsigned)l->protocol, (int)h_key, (int)h_sub);
    }
    (void)gss_krb5_free_lucid_sec_context(&lmin, lv);
done:
    snprintf(name, sizeof(name),
             "%s context enctype %d on both sides%s (Heimdal's lucid export, "
             "gk5_ctx_inquire)",
             label, (int)e->et,
             e->mutual && cfx ? ", Heimdal's acceptor subkey" : ", no subkey");
    cell(ok, name, "%s", why);
}

static void run_heimdal(struct world *W, const char *cc, int32_t et,
                        bool mutual, bool cb)
{
    struct hest e;
    struct ip_peers pp;
    char why[1024] = "", name[512];
    bool ok = false;

    memset(&e, 0, sizeof(e));
    memset(&pp, 0, sizeof(pp));
    snprintf(pp.label, sizeof(pp.label), "%s(%d) gk5->Heimdal%s%s |",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth",
             cb ? ", channel bindings" : "");
    e.ccache = cc;
    e.target = TARGET;
    e.et = et;
    e.mutual = mutual;
    e.cb = cb;
    if (heim_acceptor(W, W->service_kt, SERVICE, &e.acc, why, sizeof(why))) {
        hest_run(&e);
        ok = hest_judge(&e, why, sizeof(why));
    }
    snprintf(name, sizeof(name), "%s %s", pp.label,
             mutual ? "gk5 AP-REQ -> Heimdal accepts -> AP-REP -> gk5 "
                      "complete"
                    : "gk5 AP-REQ -> Heimdal accepts, no reply, gk5 complete");
    if (cell(ok, name, "%s", why)) {
        pp.g = e.g;
        pp.p = e.h;
        pp.who = "Heimdal";
        pp.words = heim_words;
        ip_run_messages(&pp);
        cell_enctypes(pp.label, &e);
    }
    hest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.acc);
}

/* A ticket for gk5/localhost to Heimdal's acceptor on nfs.keytab: Heimdal
 * refuses; its KRB-ERROR, if it sends one, makes gk5 refuse in words. */
static void run_wrong_keytab(struct world *W, const char *cc)
{
    struct hest e;
    char why[1024] = "";
    bool ok = false;

    memset(&e, 0, sizeof(e));
    e.ccache = cc;
    e.target = TARGET;
    e.et = 18;
    e.mutual = true;
    if (heim_acceptor(W, W->nfs_kt, NFS_SERVICE, &e.acc, why, sizeof(why))) {
        hest_run(&e);
        if (e.cmaj != GK5_S_COMPLETE || GK5_ERROR(e.s1maj)) {
            snprintf(why, sizeof(why), "gk5: %s / %s",
                     gk5_words(e.cmaj, e.cmin), gk5_words(e.s1maj, e.s1min));
        } else {
            ok = GSS_ERROR(e.amaj) && e.g == NULL &&
                 (e.reply.length == 0 ||
                  (e.reply_id == 0x0300 && GK5_ERROR(e.s2maj) &&
                   strstr(e.step_err, "KRB_AP_ERR_") != NULL));
            snprintf(why, sizeof(why),
                     "Heimdal: %s; reply %zu bytes TOK_ID %04x; gk5: %s; "
                     "gk5_krb_last_error: %s",
                     heim_words(e.amaj, e.amin), e.reply.length, e.reply_id,
                     e.reply.length > 0 ? gk5_words(e.s2maj, e.s2min)
                                        : "(no reply)",
                     e.step_err);
            if (ok) {
                printf("# Heimdal's acceptor on nfs.keytab: %s\n", why);
            }
        }
    }
    cell(ok,
         "aes256-cts-hmac-sha1-96(18) gk5->Heimdal | Heimdal's acceptor for "
         "nfs/localhost (nfs.keytab) takes a gk5/localhost ticket -> refused, "
         "gk5 gets no context",
         "%s", why);
    hest_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.acc);
}

int main(int argc, char **argv)
{
    static const int32_t candidates[] = {18, 17, 20, 19, 26, 25,
#ifdef GK5_WITH_DES3
                                         16
#endif
    };
    struct world W;
    char cc[PATH_MAX + 32], why[1024], name[512];
    int ret = 1;

    (void)argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 1) {
        fprintf(stderr, "usage: test_heimdal_init\n"
                        "(run through gk5 realm run --tap --)\n");
        return 2;
    }
    memset(&W, 0, sizeof(W));
    W.dir = getenv("GK5_REALM_DIR");
    if (W.dir == NULL || W.dir[0] == '\0') {
        printf("1..0 # SKIP GK5_REALM_DIR is not set: run through "
               "gk5 realm run --tap -- test_heimdal_init\n");
        return 0;
    }
    snprintf(W.client_kt, sizeof(W.client_kt), "FILE:%s/client.keytab", W.dir);
    snprintf(W.service_kt, sizeof(W.service_kt), "FILE:%s/service.keytab",
             W.dir);
    snprintf(W.nfs_kt, sizeof(W.nfs_kt), "FILE:%s/nfs.keytab", W.dir);
    if (krb5_init_context(&W.kc) != 0) {
        printf("Bail out! Heimdal krb5_init_context failed\n");
        return 1;
    }
    printf("# realm %s; gk5 %s initiates to %s as %s; Heimdal %s accepts\n",
           W.dir, gk5_version(), TARGET, CLIENT, HEIMDAL_VERSION);

    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        int32_t et = candidates[i];
        gk5_kinit_opts ko;
        gk5_kinit_info ki;
        uint32_t minor = 0, major;

        if (krb5_enctype_valid(W.kc, et) != 0) {
            snprintf(name, sizeof(name), "%s(%d) gk5->Heimdal",
                     enctype_name(et), (int)et);
            skip_cell(name, "Heimdal's krb5 does not know this enctype "
                            "(krb5_enctype_valid refuses it)");
            continue;
        }
        snprintf(cc, sizeof(cc), "FILE:%s/heimdal-init-et%d.cc", W.dir,
                 (int)et);
        memset(&ko, 0, sizeof(ko));
        ko.ccache = cc;
        ko.principal = CLIENT;
        ko.keytab = W.client_kt;
        major = gk5_kinit(&minor, &ko, &ki);
        snprintf(why, sizeof(why), "gk5_kinit: %s; KDC: %s",
                 gk5_words(major, minor), last_krb_error());
        gk5_kinit_info_release(&ki);
        snprintf(name, sizeof(name),
                 "%s(%d) gk5_kinit -k client.keytab -> a FILE ccache",
                 enctype_name(et), (int)et);
        if (!cell(major == GK5_S_COMPLETE, name, "%s", why)) {
            continue;
        }
        run_heimdal(&W, cc, et, true, false);
        run_heimdal(&W, cc, et, false, false);
        run_heimdal(&W, cc, et, true, true);
    }
    snprintf(cc, sizeof(cc), "FILE:%s/heimdal-init-et18.cc", W.dir);
    run_wrong_keytab(&W, cc);
    ret = tap_finish();
    krb5_free_context(W.kc);
    return ret;
}
