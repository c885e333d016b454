/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo's last block: the same realm on the other KDCs this machine has
 * (support/realm: Heimdal's kdc, Samba as an AD domain controller), one
 * line each, after the MIT realm is stopped (one realm at a time, so the
 * signal handlers stop the one that runs).  For each: the realm started,
 * gk5's own client (gk5_kinit with client.keytab, gk5_kvno for
 * gk5/localhost), a context from gk5's initiator to gk5's acceptor with a
 * Wrap token each way, and rc4/localhost's rc4 ticket (Heimdal's, or AD's
 * for an account left at the default) refused by gk5_kvno.  A kind whose
 * programs are missing is a line saying so, not a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "demo.h"
#include "interop.h"
#include "kinds.h"
#include "realm.h"

static void words(char *why, size_t len, const char *call, uint32_t major,
                  uint32_t minor)
{
    const char *krb = gk5_krb_last_error();

    snprintf(why, len, "%s: %s%s%s", call, gk5_display_status(major, minor),
             krb != NULL ? ": " : "", krb != NULL ? krb : "");
}

/* One Wrap token from a to b: b unwraps what a sealed.  0, or -1. */
static int wrap_once(gk5_ctx *a, gk5_ctx *b, const char *msg)
{
    gk5_buffer in = {strlen(msg), (void *)(uintptr_t)msg}, tok = {0, NULL},
               back = {0, NULL};
    uint32_t minor = 0;
    int conf = 0, ok;

    ok = gk5_wrap(&minor, a, 1, GK5_QOP_DEFAULT, &in, &conf, &tok) ==
             GK5_S_COMPLETE &&
         conf == 1 &&
         gk5_unwrap(&minor, b, &tok, &back, NULL, NULL) == GK5_S_COMPLETE &&
         back.length == in.length && memcmp(back.value, msg, in.length) == 0;
    gk5_buffer_release(&tok);
    gk5_buffer_release(&back);
    return ok ? 0 : -1;
}

/* gk5's initiator to gk5's acceptor for gk5@localhost, mutual, a Wrap
 * each way.  0, or -1 with words in why. */
static int context(const gk5_mit_realm *realm, const char *ccache,
                   int32_t *enctype, char *why, size_t len)
{
    char keytab[PATH_MAX];
    gk5_initiator_opts io;
    gk5_acceptor_opts ao;
    gk5_initiator *init = NULL;
    gk5_acceptor_cred *cred = NULL;
    gk5_ctx *c = NULL, *s = NULL;
    gk5_buffer req = {0, NULL}, rep = {0, NULL}, last = {0, NULL};
    gk5_accept_info info;
    uint32_t major, minor = 0;
    int ret = -1;

    memset(&info, 0, sizeof(info));
    memset(&io, 0, sizeof(io));
    memset(&ao, 0, sizeof(ao));
    if (gk5_mit_realm_path(keytab, sizeof(keytab), realm, "service.keytab") !=
        0) {
        snprintf(why, len, "the realm's folder name is too long");
        return -1;
    }
    io.ccache = ccache;
    ao.keytab = keytab;
    if ((major = gk5_initiator_create(&minor, "gk5@localhost", &io, &init)) !=
        GK5_S_COMPLETE) {
        words(why, len, "gk5_initiator_create", major, minor);
        goto cleanup;
    }
    if ((major = gk5_initiator_step(&minor, init, NULL, &req)) !=
        GK5_S_CONTINUE_NEEDED) {
        words(why, len, "gk5_initiator_step", major, minor);
        goto cleanup;
    }
    if ((major = gk5_acceptor_cred_new(&minor, &ao, &cred)) != GK5_S_COMPLETE) {
        words(why, len, "gk5_acceptor_cred_new", major, minor);
        goto cleanup;
    }
    if ((major = gk5_accept(&minor, cred, &req, NULL, &rep, &s, &info)) !=
        GK5_S_COMPLETE) {
        words(why, len, "gk5_accept", major, minor);
        goto cleanup;
    }
    if ((major = gk5_initiator_step(&minor, init, &rep, &last)) !=
            GK5_S_COMPLETE ||
        (major = gk5_initiator_finish(&minor, init, enctype, &c)) !=
            GK5_S_COMPLETE) {
        words(why, len, "gk5_initiator_step (the AP-REP)", major, minor);
        goto cleanup;
    }
    if (wrap_once(c, s, "from gk5's initiator") != 0 ||
        wrap_once(s, c, "and from gk5's acceptor") != 0) {
        snprintf(why, len, "a Wrap token did not come through");
        goto cleanup;
    }
    ret = 0;

cleanup:
    gk5_accept_info_release(&info);
    gk5_buffer_release(&req);
    gk5_buffer_release(&rep);
    gk5_buffer_release(&last);
    gk5_ctx_free(c);
    gk5_ctx_free(s);
    gk5_initiator_free(init);
    gk5_acceptor_cred_free(cred);
    return ret;
}

/* The realm's line: 0 ok (or not available), 1 failed (said). */
static int one_kdc(const gk5_realm_kind *k)
{
    gk5_mit_realm realm;
    gk5_kinit_opts ko;
    gk5_kinit_info ki;
    gk5_kvno_opts vo;
    gk5_kvno_info vi;
    char why[768], ccache[PATH_MAX + 8], client_kt[PATH_MAX], col[64];
    char rc4[512] = "";
    struct timespec t0, t1;
    int32_t ctx_et = 0, tkt_et = 0;
    uint32_t major, minor = 0;
    int failed = 1;

    if (k->present(why, sizeof(why)) != 0) {
        printf("%-8s not available: %s\n", k->name, why);
        return 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (k->start(&realm, why, sizeof(why)) != 0) {
        printf("%-8s FAILED: %s\n", k->name, why);
        return 1;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    memset(&ki, 0, sizeof(ki));
    memset(&vi, 0, sizeof(vi));
    if (snprintf(ccache, sizeof(ccache), "FILE:%s/demo.ccache", realm.dir) >=
            (int)sizeof(ccache) ||
        gk5_mit_realm_path(client_kt, sizeof(client_kt), &realm,
                           "client.keytab") != 0) {
        snprintf(why, sizeof(why), "the realm's folder name is too long");
        goto done;
    }
    memset(&ko, 0, sizeof(ko));
    ko.ccache = ccache;
    ko.principal = GK5_MIT_CLIENT;
    ko.keytab = client_kt;
    if ((major = gk5_kinit(&minor, &ko, &ki)) != GK5_S_COMPLETE) {
        words(why, sizeof(why), "gk5_kinit", major, minor);
        goto done;
    }
    memset(&vo, 0, sizeof(vo));
    vo.ccache = ccache;
    if ((major = gk5_kvno(&minor, GK5_MIT_SERVICE, &vo, &vi)) !=
        GK5_S_COMPLETE) {
        words(why, sizeof(why), "gk5_kvno", major, minor);
        goto done;
    }
    tkt_et = vi.ticket_enctype;
    gk5_kvno_info_release(&vi);
    if (context(&realm, ccache, &ctx_et, why, sizeof(why)) != 0) {
        goto done;
    }
    /* rc4/localhost: the KDC's rc4 ticket, refused before it is stored. */
    major = gk5_kvno(&minor, GK5_MIT_RC4_SERVICE, &vo, &vi);
    if (major == GK5_S_COMPLETE || vi.ticket_enctype != 23) {
        snprintf(why, sizeof(why),
                 "gk5_kvno %s: the KDC's rc4 ticket was not refused",
                 GK5_MIT_RC4_SERVICE);
        goto done;
    }
    snprintf(rc4, sizeof(rc4), "%s", gk5_display_status(major, minor));
    failed = 0;

done:
    gk5_kvno_info_release(&vi);
    gk5_kinit_info_release(&ki);
    if (failed) {
        printf("%-8s FAILED (%s, up in %.1f s): %s\n", k->name, k->title, secs,
               why);
    } else {
        printf("%-8s %s up in %.1f s: gk5 kinit -k, gk5 kvno %s (ticket "
               "%s),\n"
               "         gk5 -> gk5 context (%s) with a Wrap each way: ok;\n"
               "         %s (%s): its rc4 ticket refused by gk5 kvno: %s\n",
               k->name, k->title, secs, GK5_MIT_SERVICE,
               interop_et_col(tkt_et, col, sizeof(col)),
               interop_et_col(ctx_et, why, sizeof(why)), GK5_MIT_RC4_SERVICE,
               k->rc4, rc4);
    }
    k->stop(&realm);
    return failed;
}

int demo_other_realms(void)
{
    const char *saved = getenv("KRB5_CONFIG");
    char *config = saved != NULL ? strdup(saved) : NULL;
    int failed = 0;

    printf("\nThe same realm on the other KDCs of this machine (gk5's own "
           "client, initiator\nand acceptor; the KDC's rc4 ticket):\n");
    /* Every kind but MIT's (the first), which the demo ran above. */
    for (size_t i = 1; i < gk5_realm_kind_count; i++) {
        failed += one_kdc(&gk5_realm_kinds[i]);
    }
    /* Each realm set KRB5_CONFIG to its own krb5.conf. */
    if (config != NULL) {
        (void)setenv("KRB5_CONFIG", config, 1);
        free(config);
    } else {
        (void)unsetenv("KRB5_CONFIG");
    }
    return failed;
}
