/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo's first block and its rc4 block: gk5's own Kerberos against the
 * throwaway KDC, no MIT context moved into gk5.
 *
 * The first block: gk5_kinit with the client keytab into a FILE ccache in
 * the realm's folder, gk5_kvno for a ticket to gk5/localhost of each
 * session-key enctype, then for each enctype gk5_initiator (taking those
 * tickets) against MIT's gss_accept_sec_context and MIT's
 * gss_init_sec_context against gk5_accept, Wrap and MIC tokens both ways:
 * the native column of `gk5 interop` (cli_interop.c) on that ccache.
 *
 * The rc4 block: rc4/localhost has an rc4-hmac key alone (support/realm),
 * so the KDC issues it a ticket encrypted in rc4 with an AES session key.
 * gk5's KDC client (gk5_kvno, and gk5_initiator_create) refuses that reply
 * before anything is stored (RFC 8429): the ccache is compared byte for
 * byte before and after.  MIT's krb5_get_credentials, for contrast,
 * stores the ticket: read back from MIT's cache and decoded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <krb5/krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "cli.h"
#include "common/util.h"
#include "demo.h"
#include "interop.h"
#include "realm.h"

#define DEMO_CCACHE_NAME "gk5.ccache"

/* gk5's words for a failed call, and the KRB-ERROR that came, if one did. */
static void gk5_words(char *why, size_t len, const char *call, uint32_t major,
                      uint32_t minor)
{
    const char *krb = gk5_krb_last_error();

    snprintf(why, len, "%s%s%s%s%s", call != NULL ? call : "",
             call != NULL ? ": " : "", gk5_display_status(major, minor),
             krb != NULL ? ": " : "", krb != NULL ? krb : "");
}

/* How many credentials the cache holds: TGTs and other tickets (not
 * configuration entries).  0, or -1 with words in why. */
static int count_creds(const char *ccache, size_t *tgts, size_t *tickets,
                       int32_t *tgt_session, char *why, size_t len)
{
    gk5_ccache_info *info = NULL;
    uint32_t major, minor = 0;

    *tgts = *tickets = 0;
    major = gk5_ccache_list(&minor, ccache, &info);
    if (major != GK5_S_COMPLETE) {
        gk5_words(why, len, "gk5_ccache_list", major, minor);
        return -1;
    }
    for (size_t i = 0; i < info->n; i++) {
        const gk5_ccache_cred *c = &info->creds[i];
        if (c->config) {
            continue;
        }
        if (strncmp(c->server, "krbtgt/", 7) == 0) {
            (*tgts)++;
            if (tgt_session != NULL) {
                *tgt_session = c->session_enctype;
            }
        } else {
            (*tickets)++;
        }
    }
    gk5_ccache_info_free(info);
    return 0;
}

/* gk5 kinit -k: the client's TGT into ccache.  0, or -1 (printed). */
static int native_kinit(const struct gk5_mit_ends *ends, const char *ccache)
{
    gk5_kinit_opts o;
    gk5_kinit_info info;
    uint32_t major, minor = 0;
    size_t tgts = 0, tickets = 0;
    int32_t ses = 0;
    char why[768] = "", col[64];

    memset(&o, 0, sizeof(o));
    o.ccache = ccache;
    o.principal = ends->client;
    o.keytab = ends->client_keytab;
    major = gk5_kinit(&minor, &o, &info);
    if (major != GK5_S_COMPLETE) {
        gk5_words(why, sizeof(why), "gk5_kinit", major, minor);
        gk5_kinit_info_release(&info);
        printf("gk5 kinit  FAILED: %s\n", why);
        return -1;
    }
    gk5_kinit_info_release(&info);
    if (count_creds(ccache, &tgts, &tickets, &ses, why, sizeof(why)) != 0 ||
        tgts != 1 || tickets != 0) {
        printf("gk5 kinit  FAILED: %s\n",
               why[0] != '\0' ? why : "the ccache does not hold one TGT alone");
        return -1;
    }
    printf("gk5 kinit  %s from client.keytab: a TGT (session key %s)\n"
           "           into %s\n",
           ends->client, interop_et_col(ses, col, sizeof(col)), ccache);
    return 0;
}

/* gk5 kvno -e ET for each enctype: the tickets the initiator takes.
 * Returns the number of failures (each printed). */
static int native_kvno(const struct gk5_mit_ends *ends, const char *ccache,
                       const int32_t *ets, size_t n_ets)
{
    char issued[256] = "", tkt[64] = "", why[768], col[64];
    size_t used = 0;
    uint32_t kvno = 0;
    int failed = 0;

    for (size_t i = 0; i < n_ets; i++) {
        gk5_kvno_opts o;
        gk5_kvno_info info;
        uint32_t major, minor = 0;

        memset(&o, 0, sizeof(o));
        o.ccache = ccache;
        o.enctypes = &ets[i];
        o.n_enctypes = 1;
        major = gk5_kvno(&minor, ends->service, &o, &info);
        if (major != GK5_S_COMPLETE) {
            gk5_words(why, sizeof(why), "gk5_kvno", major, minor);
            printf("gk5 kvno   -e %s FAILED: %s\n",
                   interop_et_col(ets[i], col, sizeof(col)), why);
            failed++;
        } else if (info.session_enctype != ets[i]) {
            printf("gk5 kvno   -e %s FAILED: the KDC issued a session key of "
                   "%s\n",
                   interop_et_col(ets[i], col, sizeof(col)),
                   interop_et_col(info.session_enctype, why, sizeof(why)));
            failed++;
        } else {
            int n = snprintf(issued + used, sizeof(issued) - used, "%s%d",
                             used > 0 ? " " : "", (int)ets[i]);
            if (n > 0 && (size_t)n < sizeof(issued) - used) {
                used += (size_t)n;
            }
            interop_et_col(info.ticket_enctype, tkt, sizeof(tkt));
            kvno = info.kvno;
        }
        gk5_kvno_info_release(&info);
    }
    if (used > 0) {
        printf("gk5 kvno   %s, one session-key enctype at a time: %s\n"
               "           issued and stored (each ticket encrypted in %s, "
               "kvno %u)\n",
               ends->service, issued, tkt, (unsigned)kvno);
    }
    return failed;
}

/* One enctype's native rows: gk5 initiating from the stored ticket (MIT
 * accepting), MIT initiating (gk5 accepting).  Returns the failed rows. */
static int native_rows(const struct gk5_mit_ends *ends,
                       struct interop_native *nat, int32_t et)
{
    static const char *const roles[INTEROP_N_NATIVE] = {"initiator (native)",
                                                        "acceptor (native)"};
    struct interop_row *row;
    char col[64];
    int failed = 0;

    /* Large (the MIT-bridge cells are not run here): off the stack. */
    row = calloc(1, sizeof(*row));
    if (row == NULL) {
        const size_t none[3] = {0, 0, 0};
        demo_print_row(interop_et_col(et, col, sizeof(col)), "-", "-", false,
                       none, "out of memory");
        return 1;
    }
    interop_et_col(et, col, sizeof(col));
    interop_row_run_native(ends, nat, et, row);
    for (int nr = 0; nr < INTEROP_N_NATIVE; nr++) {
        const struct interop_native_result *res = &row->native[nr];
        const char *first = nr == 0 ? col : "";
        if (res->outcome != INTEROP_RAN) {
            const size_t none[3] = {0, 0, 0};
            demo_print_row(first, roles[nr], "-", false, none, res->note);
            failed++;
            continue;
        }
        failed += demo_direction(&res->cells, first, roles[nr], "gk5 -> MIT",
                                 INTEROP_SEALED_G2M, INTEROP_MIC_G2M);
        failed += demo_direction(&res->cells, "", "", "MIT -> gk5",
                                 INTEROP_SEALED_M2G, INTEROP_REPLAY);
    }
    free(row);
    return failed;
}

int demo_native(const gk5_mit_realm *realm, const struct gk5_mit_ends *ends,
                const int32_t *ets, size_t n_ets, char *ccache,
                size_t ccache_len)
{
    struct interop_native nat;
    size_t tgts = 0, tickets = 0, tickets_after = 0;
    char why[768];
    int failed = 0;

    printf("gk5's own Kerberos: its KDC client, initiator and acceptor against "
           "this KDC\nand MIT's GSS-API (no MIT context moved into gk5).\n");
    if (snprintf(ccache, ccache_len, "FILE:%s/%s", realm->dir,
                 DEMO_CCACHE_NAME) >= (int)ccache_len ||
        interop_native_use(&nat, ccache) != 0) {
        printf("gk5 kinit  FAILED: the realm's folder name is too long\n");
        ccache[0] = '\0';
        return 1;
    }
    if (native_kinit(ends, ccache) != 0) {
        return 1;
    }
    failed += native_kvno(ends, ccache, ets, n_ets);
    if (count_creds(ccache, &tgts, &tickets, NULL, why, sizeof(why)) != 0) {
        printf("gk5 klist  FAILED: %s\n", why);
        return failed + 1;
    }
    printf(
        "'initiator (native)': gk5_initiator with the stored ticket -> MIT's "
        "gss_accept_sec_context;\n'acceptor (native)': MIT's "
        "gss_init_sec_context -> gk5_accept (service.keytab).\n"
        "Token sizes in bytes for a %zu-byte message; 'ok' = the peer got "
        "the message back.\n\n",
        interop_message_len());
    printf("%-32s %-18s %-10s %6s %6s %6s  %s\n", "enctype", "gk5 role",
           "direction", "sealed", "integ", "mic", "");
    for (size_t i = 0; i < n_ets; i++) {
        failed += native_rows(ends, &nat, ets[i]);
    }
    /* The initiator found each ticket in the cache: none was added. */
    if (count_creds(ccache, &tgts, &tickets_after, NULL, why, sizeof(why)) !=
        0) {
        printf("gk5 klist  FAILED: %s\n", why);
        failed++;
    } else if (tickets_after != tickets) {
        printf("gk5 klist  FAILED: %zu service tickets after the rows, %zu "
               "before: the initiator did not take the stored ones\n",
               tickets_after, tickets);
        failed++;
    } else {
        printf("%s: the TGT and %zu service tickets,\nas before the rows: "
               "each initiator took its ticket from the cache.\n",
               DEMO_CCACHE_NAME, tickets_after);
    }
    interop_native_done(&nat);
    return failed;
}

/* ---- rc4: refused in the KDC's reply ---- */

/* The enctypes of keytab's keys, as "rc4-hmac (23)" words; *aes true if
 * one is AES (RFC 3962 or RFC 8009).  MIT reads the keytab: gk5 would not
 * load an rc4 key.  0, or -1 with words in out. */
static int keytab_enctypes(const char *keytab, char *out, size_t len, bool *aes)
{
    krb5_context kc = NULL;
    krb5_keytab kt = NULL;
    krb5_kt_cursor cur;
    krb5_keytab_entry ent;
    krb5_error_code ret;
    size_t used = 0;
    bool open = false;

    *aes = false;
    out[0] = '\0';
    ret = krb5_init_context(&kc);
    if (ret == 0) {
        ret = krb5_kt_resolve(kc, keytab, &kt);
    }
    if (ret == 0) {
        ret = krb5_kt_start_seq_get(kc, kt, &cur);
        open = ret == 0;
    }
    while (ret == 0 && (ret = krb5_kt_next_entry(kc, kt, &ent, &cur)) == 0) {
        krb5_enctype et = ent.key.enctype;
        char col[64];
        *aes = *aes || et == 17 || et == 18 || et == 19 || et == 20;
        int n = snprintf(out + used, len - used, "%s%s", used > 0 ? ", " : "",
                         interop_et_col(et, col, sizeof(col)));
        if (n > 0 && (size_t)n < len - used) {
            used += (size_t)n;
        }
        krb5_free_keytab_entry_contents(kc, &ent);
    }
    if (ret == KRB5_KT_END) {
        ret = used > 0 ? 0 : KRB5_KT_END;
    }
    if (open) {
        (void)krb5_kt_end_seq_get(kc, kt, &cur);
    }
    if (ret != 0) {
        const char *msg = kc != NULL ? krb5_get_error_message(kc, ret) : NULL;
        snprintf(out, len, "MIT cannot read %.200s: %s", keytab,
                 msg != NULL ? msg : "krb5_init_context failed");
        if (msg != NULL) {
            krb5_free_error_message(kc, msg);
        }
    }
    if (kt != NULL) {
        (void)krb5_kt_close(kc, kt);
    }
    if (kc != NULL) {
        krb5_free_context(kc);
    }
    return ret == 0 ? 0 : -1;
}

/* MIT's client for the rc4 service: initial credentials from the client
 * keytab into a MEMORY ccache of its own, krb5_get_credentials (which
 * stores what it got), the stored credential read back and its ticket
 * decoded.  0 with the ticket's and the session key's enctypes, or -1
 * with words in why. */
static int mit_rc4_ticket(const struct gk5_mit_ends *ends, krb5_enctype *tkt_et,
                          krb5_enctype *ses_et, char *why, size_t len)
{
    krb5_context kc = NULL;
    krb5_keytab kt = NULL;
    krb5_ccache cc = NULL;
    krb5_principal client = NULL, server = NULL;
    krb5_creds init, in, stored, *got = NULL;
    krb5_ticket *tkt = NULL;
    krb5_error_code ret;
    const char *call = "krb5_init_context";
    bool have_init = false, have_stored = false;

    memset(&init, 0, sizeof(init));
    memset(&in, 0, sizeof(in));
    memset(&stored, 0, sizeof(stored));
    ret = krb5_init_context(&kc);
    if (ret == 0) {
        call = "krb5_parse_name";
        ret = krb5_parse_name(kc, ends->client, &client);
    }
    if (ret == 0) {
        ret = krb5_parse_name(kc, GK5_MIT_RC4_SERVICE, &server);
    }
    if (ret == 0) {
        call = "krb5_kt_resolve";
        ret = krb5_kt_resolve(kc, ends->client_keytab, &kt);
    }
    if (ret == 0) {
        call = "krb5_get_init_creds_keytab";
        ret = krb5_get_init_creds_keytab(kc, &init, client, kt, 0, NULL, NULL);
        have_init = ret == 0;
    }
    if (ret == 0) {
        call = "krb5_cc_new_unique";
        ret = krb5_cc_new_unique(kc, "MEMORY", NULL, &cc);
    }
    if (ret == 0) {
        call = "krb5_cc_initialize";
        ret = krb5_cc_initialize(kc, cc, client);
    }
    if (ret == 0) {
        call = "krb5_cc_store_cred";
        ret = krb5_cc_store_cred(kc, cc, &init);
    }
    if (ret == 0) {
        in.client = client;
        in.server = server;
        call = "krb5_get_credentials";
        ret = krb5_get_credentials(kc, 0, cc, &in, &got);
    }
    if (ret == 0) {
        call = "krb5_cc_retrieve_cred (the ticket stored)";
        ret = krb5_cc_retrieve_cred(kc, cc, 0, &in, &stored);
        have_stored = ret == 0;
    }
    if (ret == 0) {
        call = "krb5_decode_ticket";
        ret = krb5_decode_ticket(&stored.ticket, &tkt);
    }
    if (ret == 0) {
        *tkt_et = tkt->enc_part.enctype;
        *ses_et = stored.keyblock.enctype;
    } else {
        const char *msg = kc != NULL ? krb5_get_error_message(kc, ret) : NULL;
        snprintf(why, len, "MIT %s: %s", call,
                 msg != NULL ? msg : "no context");
        if (msg != NULL) {
            krb5_free_error_message(kc, msg);
        }
    }
    if (tkt != NULL) {
        krb5_free_ticket(kc, tkt);
    }
    if (have_stored) {
        krb5_free_cred_contents(kc, &stored);
    }
    if (got != NULL) {
        krb5_free_creds(kc, got);
    }
    if (have_init) {
        krb5_free_cred_contents(kc, &init);
    }
    if (cc != NULL) {
        (void)krb5_cc_destroy(kc, cc);
    }
    if (kt != NULL) {
        (void)krb5_kt_close(kc, kt);
    }
    if (kc != NULL) {
        krb5_free_principal(kc, client);
        krb5_free_principal(kc, server);
        krb5_free_context(kc);
    }
    return ret == 0 ? 0 : -1;
}

/* Whether the cache file still holds exactly before's bytes. */
static bool ccache_unchanged(const char *path, const uint8_t *before,
                             size_t before_len)
{
    uint8_t *now = NULL;
    size_t now_len = 0;
    bool same;

    if (cli_read_file(path, &now, &now_len) != 0) {
        return false;
    }
    same = now_len == before_len && memcmp(now, before, now_len) == 0;
    zap(now, now_len);
    free(now);
    return same;
}

/* One refusal by gk5's KDC client, checked: GK5_S_UNAVAILABLE for rc4,
 * words naming RFC 8429, the cache as it was; tkt_et, when not 0, what
 * gk5_kvno says the refused ticket was encrypted in.  Returns 1 if not
 * so. */
static int rc4_refusal_line(const char *label, const char *call, uint32_t major,
                            uint32_t minor, int32_t tkt_et, const char *path,
                            const uint8_t *before, size_t before_len)
{
    char why[768];

    if (major == GK5_S_COMPLETE || major == GK5_S_CONTINUE_NEEDED) {
        printf("  %-9s FAILED: %s accepted the rc4 ticket\n", label, call);
        return 1;
    }
    snprintf(why, sizeof(why), "%s: %s", gk5_major_name(major),
             gk5_strerror(minor));
    if (major != GK5_S_UNAVAILABLE || GK5_ERR_ENCTYPE(minor) != 23 ||
        strstr(why, "RFC 8429") == NULL || (tkt_et != 0 && tkt_et != 23)) {
        printf("  %-9s FAILED: not the rc4 refusal: %s: %s\n", label, call,
               why);
        return 1;
    }
    if (!ccache_unchanged(path, before, before_len)) {
        printf("  %-9s FAILED: refused, but the ccache changed: %s: %s\n",
               label, call, why);
        return 1;
    }
    if (tkt_et != 0) {
        printf("  %-9s refused the KDC's reply, ccache unchanged (%s): the "
               "ticket is in the service's rc4 key, it has no AES key: %s\n",
               label, call, why);
    } else {
        printf("  %-9s refused the same reply, ccache unchanged (%s): %s\n",
               label, call, why);
    }
    return 0;
}

int demo_rc4(const gk5_mit_realm *realm, const struct gk5_mit_ends *ends,
             const char *ccache)
{
    char keytab[PATH_MAX], keys[256], why[768], col[64], col2[64];
    const char *path;
    uint8_t *before = NULL;
    size_t before_len = 0;
    krb5_enctype tkt_et = 0, ses_et = 0;
    gk5_initiator_opts io;
    gk5_initiator *init = NULL;
    gk5_kvno_opts ko;
    gk5_kvno_info info;
    uint32_t major, minor = 0;
    bool aes = false;
    int failed = 0;

    printf("\nrc4-hmac (23), refused where it now happens: in the KDC's "
           "reply.\n");
    if (ccache == NULL || ccache[0] == '\0') {
        printf("  rc4       FAILED: no ccache from the first block\n");
        return 1;
    }
    path = strncmp(ccache, "FILE:", 5) == 0 ? ccache + 5 : ccache;
    if (gk5_mit_realm_path(keytab, sizeof(keytab), realm, "rc4.keytab") != 0) {
        printf("  rc4       FAILED: the realm's folder name is too long\n");
        return 1;
    }
    if (keytab_enctypes(keytab, keys, sizeof(keys), &aes) != 0) {
        printf("  rc4       FAILED: %s\n", keys);
        return 1;
    }
    if (aes) {
        printf("  rc4       FAILED: %s has an AES key (%s)\n",
               GK5_MIT_RC4_SERVICE, keys);
        return 1;
    }
    printf("%s has no AES key: rc4.keytab holds %s.\n", GK5_MIT_RC4_SERVICE,
           keys);
    if (cli_read_file(path, &before, &before_len) != 0) {
        printf("  rc4       FAILED: cannot read %s\n", path);
        return 1;
    }

    /* gk5 kvno: krb5.conf's default_tgs_enctypes (AES first). */
    memset(&ko, 0, sizeof(ko));
    ko.ccache = ccache;
    major = gk5_kvno(&minor, GK5_MIT_RC4_SERVICE, &ko, &info);
    /* Which part of the reply was refused: the ticket's (the service's
     * key), not a session key (gk5 asks for no rc4 one). */
    if (GK5_ERROR(major) && info.ticket_enctype == 0) {
        printf("  gk5 kvno  FAILED: refused, but not for the ticket's "
               "enctype: %s: %s\n",
               gk5_major_name(major), gk5_strerror(minor));
        failed++;
    } else {
        failed +=
            rc4_refusal_line("gk5 kvno", "gk5_kvno", major, minor,
                             info.ticket_enctype, path, before, before_len);
    }
    gk5_kvno_info_release(&info);

    /* gk5's initiator: no ticket in the cache, the same TGS exchange. */
    memset(&io, 0, sizeof(io));
    io.ccache = ccache;
    major = gk5_initiator_create(&minor, GK5_MIT_RC4_SERVICE, &io, &init);
    gk5_initiator_free(init);
    failed += rc4_refusal_line("gk5 init", "gk5_initiator_create", major, minor,
                               0, path, before, before_len);
    zap(before, before_len);
    free(before);

    /* MIT, for contrast. */
    if (mit_rc4_ticket(ends, &tkt_et, &ses_et, why, sizeof(why)) != 0) {
        printf("  MIT       FAILED: %s\n", why);
        failed++;
    } else if (tkt_et != 23) {
        printf("  MIT       FAILED: the KDC encrypted the ticket in %s, not "
               "rc4-hmac\n",
               interop_et_col(tkt_et, col, sizeof(col)));
        failed++;
    } else {
        printf("  MIT       for contrast, accepts it: krb5_get_credentials "
               "stored the ticket\n            (encrypted in %s, session "
               "key %s)\n",
               interop_et_col(tkt_et, col, sizeof(col)),
               interop_et_col(ses_et, col2, sizeof(col2)));
    }
    return failed;
}
