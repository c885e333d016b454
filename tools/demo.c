/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo: the main job end to end on the embedded default.  A throwaway
 * MIT realm and krb5kdc on 127.0.0.1 (made in C by src/bridge/mit_realm.c,
 * so the installed binary needs no script or configuration), contexts
 * established by MIT's GSS-API for each enctype, one side moved into gk5
 * (by the lucid import and by rpc.gssd's buffer), gk5 and MIT exchanging
 * Wrap and MIC tokens both ways, and an rc4 context refused.  Built with
 * libgk5_rpc, it then runs gk5's RPCSEC_GSS server (the echo program of
 * `gk5 rpc serve`) in a thread and gk5's client against it for krb5,
 * krb5i and krb5p.  The KDC is stopped by its PID on every exit path,
 * signals included.
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
#ifdef GK5_HAVE_RPC
#include "demo.h"
#endif
#include "common/util.h"

#ifdef GK5_HAVE_RPC
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include "rpc_echo_prog.h"
#endif

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
               "ways.\nThen show an rc4-hmac context being refused (RFC 8429)"
#ifdef GK5_HAVE_RPC
               ",\nand run gk5's RPCSEC_GSS server (the echo program of 'gk5 "
               "rpc serve') and\nclient against each other for krb5, krb5i "
               "and krb5p, checking every reply.\nThe KDC is stopped and the "
               "folder removed on every exit path.\n"
#else
               ".  The KDC is\nstopped and the folder removed on every exit "
               "path.\n"
#endif
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
    char words[512];

    snprintf(r->why, sizeof(r->why), "%s: %s", call,
             cli_gss_words(major, minor, words, sizeof(words)));
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

#ifdef GK5_HAVE_RPC
/* ---- RPCSEC_GSS: gk5's server and client on 127.0.0.1 ---- */

#define DEMO_RPC_SERVICE "gk5@localhost" /* GK5_MIT_SERVICE, host-based */
#define DEMO_RPC_SMALL 1024u
#define DEMO_RPC_LARGE (1024u * 1024u)
#define DEMO_RPC_SMALL_CALLS 20
#define DEMO_RPC_LARGE_CALLS 8

struct demo_server {
    gk5_rpc_tcp_server *ts;
    int rc;
    gk5_rpc_error err;
};

static void *demo_server_main(void *p)
{
    struct demo_server *s = p;

    s->rc = gk5_rpc_tcp_server_run(s->ts, &s->err);
    return NULL;
}

static double demo_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* calls ECHOs of size bytes, each reply checked.  The mean round trip in
 * *secs, or -1 with words in why. */
static int demo_echo(CLIENT *clnt, AUTH *auth, uint8_t *send, uint8_t *recv,
                     size_t size, int calls, double *secs, char *why,
                     size_t why_len)
{
    const struct timeval tv = {25, 0};
    double t0 = demo_now();

    for (int i = 0; i < calls; i++) {
        struct cli_rpc_opaque args = {(char *)send, (u_int)size, (u_int)size};
        struct cli_rpc_opaque res = {(char *)recv, 0, (u_int)size};
        char what[64];

        /* A different request each time: a stale reply cannot pass. */
        send[0] = (uint8_t)i;
        snprintf(what, sizeof(what), "ECHO of %zu bytes", size);
        if (clnt_call(clnt, GK5_ECHO_PROC_ECHO,
                      CLI_XDR_PROC(cli_rpc_xdr_opaque), &args,
                      CLI_XDR_PROC(cli_rpc_xdr_opaque), &res,
                      tv) != RPC_SUCCESS) {
            cli_rpc_call_error(clnt, auth, what, why, why_len);
            return -1;
        }
        if (res.len != size || memcmp(recv, send, size) != 0) {
            snprintf(why, why_len, "%s: the reply is not the request", what);
            return -1;
        }
    }
    *secs = (demo_now() - t0) / calls;
    return 0;
}

/* One service: establish, NULL, WHOAMI, small and large ECHOs.  Returns 1
 * if anything failed. */
static int demo_rpc_service(const char *server, const char *client_kt,
                            gk5_rpc_service svc, uint8_t *send, uint8_t *recv)
{
    const struct timeval tv = {25, 0};
    const char *name = gk5_rpc_service_name(svc);
    gk5_rpc_auth_options opts;
    gk5_rpc_auth_info info;
    gk5_rpc_error e;
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    char why[1024], want[128], col[64];
    char *who = NULL;
    double t0, t_ctx, t_null, t_small = 0, t_large = 0;
    int failed = 1;

    memset(&opts, 0, sizeof(opts));
    memset(&e, 0, sizeof(e));
    memset(&info, 0, sizeof(info));
    why[0] = '\0';
    if (cli_rpc_connect(server, GK5_ECHO_PROG, GK5_ECHO_VERS, &clnt, why,
                        sizeof(why)) != 0) {
        goto cleanup;
    }
    /* The client's credential as gk5_mit_establish gets it: initial
     * credentials from its keytab into a MEMORY: ccache. */
    opts.principal = GK5_MIT_CLIENT;
    opts.client_keytab = client_kt;
    opts.ccache = "MEMORY:gk5-demo-rpc";
    t0 = demo_now();
    auth = gk5_rpc_auth_create(clnt, DEMO_RPC_SERVICE, svc, &opts, &e);
    t_ctx = demo_now() - t0;
    if (auth == NULL) {
        snprintf(why, sizeof(why), "establishing the context: %s", e.text);
        goto cleanup;
    }
    auth_destroy(clnt->cl_auth);
    clnt->cl_auth = auth;
    if (gk5_rpc_auth_inquire(auth, &info) != 0) {
        snprintf(why, sizeof(why), "gk5_rpc_auth_inquire failed");
        goto cleanup;
    }

    /* The server's view of us: flavour, service and principal.  First,
     * so that the server's start on a new connection is not timed. */
    if (clnt_call(clnt, GK5_ECHO_PROC_WHOAMI, CLI_XDR_PROC(xdr_void), NULL,
                  CLI_XDR_PROC(xdr_wrapstring), &who, tv) != RPC_SUCCESS) {
        cli_rpc_call_error(clnt, auth, "WHOAMI", why, sizeof(why));
        goto cleanup;
    }
    snprintf(want, sizeof(want), "RPCSEC_GSS %s %s", name, GK5_MIT_CLIENT);
    if (strcmp(who, want) != 0) {
        snprintf(why, sizeof(why), "WHOAMI: the server says '%s', not '%s'",
                 who, want);
        goto cleanup;
    }

    t0 = demo_now();
    for (int i = 0; i < DEMO_RPC_SMALL_CALLS; i++) {
        if (clnt_call(clnt, GK5_ECHO_PROC_NULL, CLI_XDR_PROC(xdr_void), NULL,
                      CLI_XDR_PROC(xdr_void), NULL, tv) != RPC_SUCCESS) {
            cli_rpc_call_error(clnt, auth, "NULL", why, sizeof(why));
            goto cleanup;
        }
    }
    t_null = (demo_now() - t0) / DEMO_RPC_SMALL_CALLS;

    if (demo_echo(clnt, auth, send, recv, DEMO_RPC_SMALL, DEMO_RPC_SMALL_CALLS,
                  &t_small, why, sizeof(why)) != 0 ||
        demo_echo(clnt, auth, send, recv, DEMO_RPC_LARGE, DEMO_RPC_LARGE_CALLS,
                  &t_large, why, sizeof(why)) != 0) {
        goto cleanup;
    }
    failed = 0;

cleanup:
    if (failed) {
        printf("%-6s FAILED: %s\n", name, why);
    } else {
        snprintf(col, sizeof(col), "%s (%d)", et_name(info.enctype),
                 (int)info.enctype);
        printf("%-6s %-32s %6u %8.1f %8.3f %8.3f %8.2f %8.1f\n", name, col,
               (unsigned)info.window, t_ctx * 1e3, t_null * 1e3, t_small * 1e3,
               t_large * 1e3, DEMO_RPC_LARGE / t_large / 1e6);
    }
    free(who);
    if (clnt != NULL) {
        if (clnt->cl_auth != NULL) {
            auth_destroy(clnt->cl_auth); /* RPCSEC_GSS_DESTROY */
            clnt->cl_auth = NULL;
        }
        clnt_destroy(clnt);
    }
    return failed;
}

/* gk5's server (service keytab, gk5@localhost) on 127.0.0.1:0 in a
 * thread, gk5's client against it for each service.  Returns the number
 * of failures. */
static int demo_rpc(gk5_mit_realm *realm)
{
    static const gk5_rpc_service services[] = {
        GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};
    struct cli_rpc_prog prog = {GK5_ECHO_PROG, GK5_ECHO_VERS};
    struct demo_server server;
    gk5_rpc_server_options opts;
    gk5_rpc_server *srv = NULL;
    pthread_t tid;
    bool running = false;
    char service_kt[PATH_MAX], client_kt[PATH_MAX], bound[128], err[512];
    uint8_t *send = NULL, *recv = NULL;
    int fd = -1, failed = 0;

    memset(&server, 0, sizeof(server));
    memset(&opts, 0, sizeof(opts));
    printf("\nRPCSEC_GSS (RFC 2203): gk5's server and gk5's client, echo "
           "program 0x%08x.\n",
           GK5_ECHO_PROG);
    if (snprintf(service_kt, sizeof(service_kt), "%s/service.keytab",
                 realm->dir) >= (int)sizeof(service_kt) ||
        snprintf(client_kt, sizeof(client_kt), "%s/client.keytab",
                 realm->dir) >= (int)sizeof(client_kt)) {
        printf("rpc    FAILED: the realm's folder name is too long\n");
        return 1;
    }
    send = malloc(DEMO_RPC_LARGE);
    recv = malloc(DEMO_RPC_LARGE);
    if (send == NULL || recv == NULL) {
        printf("rpc    FAILED: out of memory\n");
        failed = 1;
        goto cleanup;
    }
    gk5_echo_source_fill(send, DEMO_RPC_LARGE);
    opts.keytab = service_kt;
    opts.principal = DEMO_RPC_SERVICE;
    opts.flavors = GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE) |
                   GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY) |
                   GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY);
    if (gk5_rpc_server_create(&opts, &srv, &server.err) != 0) {
        printf("rpc    FAILED: the server: %s\n", server.err.text);
        failed = 1;
        goto cleanup;
    }
    if (cli_rpc_listen("127.0.0.1:0", &fd, bound, sizeof(bound), err,
                       sizeof(err)) != 0) {
        printf("rpc    FAILED: the server: %s\n", err);
        failed = 1;
        goto cleanup;
    }
    if (gk5_rpc_tcp_server_create(srv, fd, cli_rpc_echo_dispatch, &prog,
                                  &server.ts, &server.err) != 0) {
        printf("rpc    FAILED: the server: %s\n", server.err.text);
        failed = 1;
        goto cleanup;
    }
    if (pthread_create(&tid, NULL, demo_server_main, &server) != 0) {
        printf("rpc    FAILED: cannot start the server's thread\n");
        failed = 1;
        goto cleanup;
    }
    running = true;
    printf("Server %s on %s (service.keytab), client %s.\n"
           "Context establishment and round trips in ms: NULL, ECHO of 1 "
           "KiB and of 1 MiB\n(every reply checked); MB/s = 10^6 bytes each "
           "way per second at 1 MiB.\n\n",
           DEMO_RPC_SERVICE, bound, GK5_MIT_CLIENT);
    printf("%-6s %-32s %6s %8s %8s %8s %8s %8s\n", "sec", "enctype", "window",
           "context", "NULL", "1 KiB", "1 MiB", "MB/s");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        failed += demo_rpc_service(bound, client_kt, services[i], send, recv);
    }

cleanup:
    if (running) {
        gk5_rpc_tcp_server_stop(server.ts);
        pthread_join(tid, NULL);
        if (server.rc != 0) {
            printf("rpc    FAILED: the server stopped with: %s\n",
                   server.err.text);
            failed++;
        }
    }
    gk5_rpc_tcp_server_free(server.ts);
    gk5_rpc_server_free(srv);
    if (fd >= 0) {
        close(fd);
    }
    free(send);
    free(recv);
    return failed;
}
#endif

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
#ifdef GK5_HAVE_RPC
    failed += demo_rpc(&realm);
    failed += demo_nfs(&realm);
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
