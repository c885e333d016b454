/*
 * gk5 demo: the main job end to end on the embedded default.  A throwaway
 * MIT realm and krb5kdc on 127.0.0.1 (made in C by src/bridge/mit_realm.c,
 * so the installed binary needs no script or configuration), contexts
 * established by MIT's GSS-API for each enctype, one side moved into gk5
 * (by the lucid import and by rpc.gssd's buffer), gk5 and MIT exchanging
 * Wrap and MIC tokens both ways, and an rc4 context refused.  The KDC is
 * stopped by its PID on every exit path, signals included.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bridge/gk5_mit.h"
#include "bridge/mit_realm.h"
#include "cli.h"
#include "common/util.h"

static const int32_t demo_enctypes[] = {20, 19, 18, 17, 26, 25,
#ifdef GK5_WITH_DES3
                                        16
#endif
};

static const char message[] =
    "gk5 demo: one RPC's worth of payload, sealed and signed";

/* One row of the table: three token kinds in one direction. */
struct row {
    size_t sealed, integ, mic; /* token sizes */
    bool ok;
    char why[256];
};

static void demo_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 demo\n"
               "\n"
               "Run gk5 against MIT krb5 with no configuration: make a "
               "throwaway realm\nwith a real MIT krb5kdc on 127.0.0.1 in a "
               "temporary folder, establish\nsecurity contexts with MIT's "
               "GSS-API for each enctype, move one side\ninto gk5 (lucid "
               "import as initiator, rpc.gssd's buffer as acceptor) and\n"
               "exchange sealed and integrity-only Wrap tokens and MICs both "
               "ways.\nThen show an rc4-hmac context being refused (RFC 8429). "
               "The KDC is\nstopped and the folder removed on every exit "
               "path.\n"
               "\n"
               "Needs the MIT KDC programs: apt-get install krb5-kdc "
               "krb5-admin-server\n");
}

static const char *et_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "?";
}

static void mit_why(struct row *r, const char *call, OM_uint32 major,
                    OM_uint32 minor)
{
    gk5_mit_status st = {major, minor, 1, call};

    gk5_mit_status_text(&st, r->why, sizeof(r->why));
}

static void gk5_why(struct row *r, const char *call, uint32_t major,
                    uint32_t minor)
{
    snprintf(r->why, sizeof(r->why), "%s: %s", call,
             gk5_display_status(major, minor));
}

static bool same(const void *a, size_t a_len, const void *b, size_t b_len)
{
    return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0);
}

/* gk5 makes the tokens, MIT takes them: RFC 4121 4.2.6 (RFC 1964 for
 * DES3) per-message tokens, byte for byte. */
static void gk5_to_mit(gk5_ctx *g, gss_ctx_id_t m, const gk5_buffer *msg,
                       struct row *r)
{
    gk5_buffer tok = {0, NULL};
    gss_buffer_desc mtok, mmsg, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = 0;
    gss_qop_t qop = 0;

    r->ok = false;
    for (int conf = 1; conf >= 0; conf--) {
        major =
            gk5_wrap(&minor, g, conf, GK5_QOP_DEFAULT, msg, &conf_state, &tok);
        if (major != GK5_S_COMPLETE) {
            gk5_why(r, "gk5_wrap", major, minor);
            goto cleanup;
        }
        *(conf ? &r->sealed : &r->integ) = tok.length;
        mtok.length = tok.length;
        mtok.value = tok.value;
        mmaj = gss_unwrap(&mmin, m, &mtok, &out, &conf_state, &qop);
        if (mmaj != GSS_S_COMPLETE) {
            mit_why(r, "MIT gss_unwrap", mmaj, mmin);
            goto cleanup;
        }
        if (!same(out.value, out.length, msg->value, msg->length) ||
            conf_state != conf) {
            snprintf(r->why, sizeof(r->why),
                     "MIT gss_unwrap: not the message gk5 wrapped");
            goto cleanup;
        }
        gk5_buffer_release(&tok);
        (void)gss_release_buffer(&mmin, &out);
    }
    major = gk5_get_mic(&minor, g, GK5_QOP_DEFAULT, msg, &tok);
    if (major != GK5_S_COMPLETE) {
        gk5_why(r, "gk5_get_mic", major, minor);
        goto cleanup;
    }
    r->mic = tok.length;
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmsg.length = msg->length;
    mmsg.value = msg->value;
    mmaj = gss_verify_mic(&mmin, m, &mmsg, &mtok, &qop);
    if (mmaj != GSS_S_COMPLETE) {
        mit_why(r, "MIT gss_verify_mic", mmaj, mmin);
        goto cleanup;
    }
    r->ok = true;

cleanup:
    gk5_buffer_release(&tok);
    (void)gss_release_buffer(&mmin, &out);
}

/* MIT makes the tokens, gk5 takes them. */
static void mit_to_gk5(gk5_ctx *g, gss_ctx_id_t m, const gk5_buffer *msg,
                       struct row *r)
{
    gss_buffer_desc mmsg, mtok = GSS_C_EMPTY_BUFFER;
    gk5_buffer tok, out = {0, NULL};
    uint32_t major, minor = 0, qop = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = 0;

    r->ok = false;
    mmsg.length = msg->length;
    mmsg.value = msg->value;
    for (int conf = 1; conf >= 0; conf--) {
        mmaj = gss_wrap(&mmin, m, conf, GSS_C_QOP_DEFAULT, &mmsg, &conf_state,
                        &mtok);
        if (mmaj != GSS_S_COMPLETE) {
            mit_why(r, "MIT gss_wrap", mmaj, mmin);
            goto cleanup;
        }
        *(conf ? &r->sealed : &r->integ) = mtok.length;
        tok.length = mtok.length;
        tok.value = mtok.value;
        major = gk5_unwrap(&minor, g, &tok, &out, &conf_state, &qop);
        if (major != GK5_S_COMPLETE) {
            gk5_why(r, "gk5_unwrap", major, minor);
            goto cleanup;
        }
        if (!same(out.value, out.length, msg->value, msg->length) ||
            conf_state != conf) {
            snprintf(r->why, sizeof(r->why),
                     "gk5_unwrap: not the message MIT wrapped");
            goto cleanup;
        }
        gk5_buffer_release(&out);
        (void)gss_release_buffer(&mmin, &mtok);
    }
    mmaj = gss_get_mic(&mmin, m, GSS_C_QOP_DEFAULT, &mmsg, &mtok);
    if (mmaj != GSS_S_COMPLETE) {
        mit_why(r, "MIT gss_get_mic", mmaj, mmin);
        goto cleanup;
    }
    r->mic = mtok.length;
    tok.length = mtok.length;
    tok.value = mtok.value;
    major = gk5_verify_mic(&minor, g, msg, &tok, &qop);
    if (major != GK5_S_COMPLETE) {
        gk5_why(r, "gk5_verify_mic", major, minor);
        goto cleanup;
    }
    r->ok = true;

cleanup:
    gk5_buffer_release(&out);
    (void)gss_release_buffer(&mmin, &mtok);
}

static void print_row(const char *enctype, const char *role,
                      const char *direction, const struct row *r)
{
    if (r->ok) {
        printf("%-32s %-18s %-10s %6zu %6zu %6zu  ok\n", enctype, role,
               direction, r->sealed, r->integ, r->mic);
    } else {
        printf("%-32s %-18s %-10s %6s %6s %6s  FAILED: %s\n", enctype, role,
               direction, "-", "-", "-", r->why);
    }
}

/* One enctype, gk5 in one role: establish, export, import, both ways.
 * Returns the number of failed rows. */
static int demo_pair(gk5_mit_realm *realm, int32_t et, bool gk5_initiates,
                     enum gk5_mit_path path, const char *first_col)
{
    gk5_mit_pair pair;
    gk5_mit_status st;
    gk5_ctx *g = NULL;
    int32_t got = 0;
    char role[32], text[512];
    const gk5_buffer msg = {sizeof(message) - 1, (void *)(uintptr_t)message};
    struct row to_mit, to_gk5;
    int failed = 0;

    snprintf(role, sizeof(role), "%s (%s)",
             gk5_initiates ? "initiator" : "acceptor", gk5_mit_path_name(path));
    memset(&to_mit, 0, sizeof(to_mit));
    memset(&to_gk5, 0, sizeof(to_gk5));
    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        snprintf(to_mit.why, sizeof(to_mit.why), "MIT: %s",
                 gk5_mit_status_text(&st, text, sizeof(text)));
        print_row(first_col, role, "-", &to_mit);
        return 1;
    }
    gss_ctx_id_t *mine = gk5_initiates ? &pair.init : &pair.acc;
    gss_ctx_id_t theirs = gk5_initiates ? pair.acc : pair.init;
    if (GK5_ERROR(gk5_mit_import_by_path(&st, mine, path, &got, &g)) != 0) {
        snprintf(to_mit.why, sizeof(to_mit.why), "import: %s",
                 gk5_mit_status_text(&st, text, sizeof(text)));
        print_row(first_col, role, "-", &to_mit);
        failed = 1;
        goto cleanup;
    }
    /* DES3 leaves MIT as des3-cbc-raw (6). */
    if (got != et && !(et == 16 && got == 6)) {
        snprintf(to_mit.why, sizeof(to_mit.why),
                 "the KDC issued enctype %d, not %d", (int)got, (int)et);
        print_row(first_col, role, "-", &to_mit);
        failed = 1;
        goto cleanup;
    }
    gk5_to_mit(g, theirs, &msg, &to_mit);
    mit_to_gk5(g, theirs, &msg, &to_gk5);
    print_row(first_col, role, "gk5 -> MIT", &to_mit);
    print_row("", "", "MIT -> gk5", &to_gk5);
    failed = !to_mit.ok + !to_gk5.ok;

cleanup:
    gk5_ctx_free(g);
    gk5_mit_pair_release(&pair);
    return failed;
}

/* MIT establishes a context of an enctype gk5 will not use; show that the
 * KDC really issued it and gk5's refusal, by both import paths.  Returns 1
 * if gk5 did not refuse it. */
static int demo_refusal(gk5_mit_realm *realm, int32_t et)
{
    gk5_mit_pair pair;
    gk5_mit_status st;
    gk5_mit_lucid *lucid = NULL;
    char text[512];
    int failed = 0;

    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        printf("%s (%d): MIT could not establish it: %s\n", et_name(et),
               (int)et, gk5_mit_status_text(&st, text, sizeof(text)));
        return 1;
    }
    if (GK5_ERROR(gk5_mit_export_lucid(&st, &pair.init, &lucid)) != 0) {
        printf("%s (%d): MIT export failed: %s\n", et_name(et), (int)et,
               gk5_mit_status_text(&st, text, sizeof(text)));
        failed = 1;
        goto cleanup;
    }
    printf("%s (%d): MIT established the context (lucid enctype %d)\n",
           et_name(et), (int)et, (int)gk5_mit_lucid_enctype(lucid));
    for (int path = 0; path < 2; path++) {
        gk5_ctx *g = NULL;
        uint32_t major =
            gk5_mit_lucid_import(&st, lucid, (enum gk5_mit_path)path, &g);
        if (major == GK5_S_COMPLETE) {
            printf("  %-5s import: ACCEPTED (it must not be)\n",
                   gk5_mit_path_name((enum gk5_mit_path)path));
            failed = 1;
        } else if (st.from_mit) {
            printf("  %-5s import failed in MIT: %s\n",
                   gk5_mit_path_name((enum gk5_mit_path)path),
                   gk5_mit_status_text(&st, text, sizeof(text)));
            failed = 1;
        } else {
            printf("  %-5s import refused, %s: %s\n",
                   gk5_mit_path_name((enum gk5_mit_path)path),
                   gk5_major_name(major), gk5_strerror(st.minor));
        }
        gk5_ctx_free(g);
    }

cleanup:
    gk5_mit_lucid_free(lucid);
    gk5_mit_pair_release(&pair);
    return failed;
}

int gk5_cli_demo(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    gk5_mit_realm realm;
    struct timespec t0, t1;
    char err[512];
    int c, failed = 0;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            demo_usage(stdout);
            return CLI_EXIT_OK;
        }
        return cli_option_error("demo", c, argv);
    }
    if (optind < argc) {
        cli_error("demo: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    /* Line by line, so that a reader (or a pipe) sees progress. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (gk5_mit_realm_start(&realm, err, sizeof(err)) != 0) {
        cli_error("demo: %s", err);
        return CLI_EXIT_FAIL;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    printf("Throwaway realm %s: MIT krb5kdc pid %ld on 127.0.0.1:%d, "
           "folder %s\n",
           GK5_MIT_REALM_NAME, (long)realm.kdc_pid, realm.port, realm.dir);
    printf("Contexts by MIT's GSS-API (%s -> %s); one side moved into gk5.\n"
           "Token sizes in bytes for a %zu-byte message; 'ok' = the peer "
           "got the message back.\n\n",
           GK5_MIT_CLIENT, GK5_MIT_SERVICE, sizeof(message) - 1);
    printf("%-32s %-18s %-10s %6s %6s %6s  %s\n", "enctype", "gk5 role",
           "direction", "sealed", "integ", "mic", "");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(demo_enctypes); i++) {
        int32_t et = demo_enctypes[i];
        char col[64];
        snprintf(col, sizeof(col), "%s (%d)", et_name(et), (int)et);
        failed += demo_pair(&realm, et, true, GK5_MIT_PATH_LUCID, col);
        failed += demo_pair(&realm, et, false, GK5_MIT_PATH_GSSD, "");
    }
    printf("\n");
    failed += demo_refusal(&realm, 23);
#ifndef GK5_WITH_DES3
    failed += demo_refusal(&realm, 16);
#endif

    long pid = (long)realm.kdc_pid;
    gk5_mit_realm_stop(&realm);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("\nkrb5kdc pid %ld stopped, folder removed; %.1f s.  %s\n", pid,
           secs, failed == 0 ? "All ok." : "SOME CHECKS FAILED.");
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
