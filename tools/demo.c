/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo: the main job end to end on the embedded default.  A throwaway
 * MIT realm and krb5kdc on 127.0.0.1 (made in C by support/realm/realm.c,
 * so the installed binary needs no script or configuration).  First gk5's
 * own Kerberos (demo_native.c): gk5_kinit and gk5_kvno against the KDC
 * into a FILE ccache, then for each enctype gk5's initiator against MIT's
 * acceptor and MIT's initiator against gk5's acceptor, Wrap and MIC tokens
 * both ways.  For comparison, the MIT bridge: contexts established by
 * MIT's GSS-API, one side moved into gk5 (by the lucid import and by
 * rpc.gssd's buffer), the same tokens: the rows of `gk5 interop`
 * (cli_interop.c) pointed at this realm.  Then rc4: a ticket in an
 * rc4-only service's key refused by gk5's KDC client before it is stored
 * (MIT's client storing it, for contrast), and an rc4 context refused at
 * import.  When tests/heimdal is built beside it (or GK5_HEIMDAL_PEER
 * names its test_heimdal), Heimdal's GSS-API against the same realm, in a
 * process of its own (demo_heimdal.c).  Built with libgk5_rpc, it then
 * runs gk5's RPCSEC_GSS server (the echo program of `gk5 rpc serve`) in a
 * thread and gk5's client against it for krb5, krb5i and krb5p, both ends
 * establishing natively, then both through the MIT bridge; and NFS-Ganesha
 * with `gk5 nfs4` (demo_nfs.c).  The KDC is stopped by its PID on every
 * exit path, signals included.  Last, with the MIT realm stopped, a line
 * for each other KDC the machine has (demo_realms.c: Heimdal's, Samba's
 * AD domain controller).
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
#include <gk5/tickets.h>

#include "bridge/lucid.h"
#include "realm.h"
#include "cli.h"
#include "demo.h"
#include "common/util.h"
#include "interop.h"

#include <limits.h>
#ifdef GK5_HAVE_TIRPC
#include <pthread.h>
#include <unistd.h>

#include "echo.h"
#endif

static const int32_t demo_enctypes[] = {20, 19, 18, 17, 26, 25,
#ifdef GK5_WITH_DES3
                                        16
#endif
};

static void demo_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 demo\n"
               "\n"
               "Run gk5 against MIT krb5 with no configuration: make a "
               "throwaway realm\nwith a real MIT krb5kdc on 127.0.0.1 in a "
               "temporary folder.  First gk5's\nown Kerberos: gk5 kinit "
               "with the client keytab into a FILE ccache there,\na service "
               "ticket per enctype from gk5's KDC client, then gk5's "
               "initiator\nagainst MIT's acceptor and MIT's initiator "
               "against gk5's acceptor,\nsealed and integrity-only Wrap "
               "tokens and MICs both ways.  For comparison,\nthe MIT "
               "bridge: contexts by MIT's GSS-API, one side moved into gk5 "
               "(lucid\nimport as initiator, rpc.gssd's buffer as "
               "acceptor), the same tokens.\nThen rc4-hmac (RFC 8429): a "
               "ticket in an rc4-only service's key refused\nby gk5's KDC "
               "client before it is stored (MIT's client stores it), and "
               "an\nrc4 context refused at import.  Heimdal's GSS-API runs "
               "against the same\nrealm when tests/heimdal is built beside "
               "this gk5 (or\nGK5_HEIMDAL_PEER=path/to/test_heimdal, "
               "mit_peer beside it), summed up per\ncase"
#ifdef GK5_HAVE_TIRPC
               ".  Then gk5's RPCSEC_GSS server (the echo program of 'gk5 "
               "rpc\nserve') and client against each other for krb5, krb5i "
               "and krb5p, every\nreply checked, natively and through the "
               "MIT bridge, and NFS-Ganesha with\n'gk5 nfs4' when it is "
               "installed.  The KDC is stopped and the folder\nremoved on "
               "every exit path.  Last, a line for each other KDC "
               "installed\n(Heimdal's kdc, Samba as an AD domain "
               "controller): the same realm\nstarted, gk5 kinit, kvno, a "
               "gk5 -> gk5 context, the KDC's rc4 ticket\nrefused.\n"
#else
               ".  The KDC is\nstopped and the folder removed on every exit "
               "path.  Last, a line for\neach other KDC installed "
               "(Heimdal's kdc, Samba as an AD domain controller):\nthe "
               "same realm started, gk5 kinit, kvno, a gk5 -> gk5 context, "
               "the KDC's\nrc4 ticket refused.\n"
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

void demo_print_row(const char *enctype, const char *role,
                    const char *direction, bool ok, const size_t size[3],
                    const char *why)
{
    if (ok) {
        printf("%-32s %-18s %-10s %6zu %6zu %6zu  ok\n", enctype, role,
               direction, size[0], size[1], size[2]);
    } else {
        printf("%-32s %-18s %-10s %6s %6s %6s  FAILED: %s\n", enctype, role,
               direction, "-", "-", "-", why);
    }
}

int demo_direction(const struct interop_role_result *r, const char *first_col,
                   const char *role, const char *direction, int first, int last)
{
    const size_t *size = &r->size[first];

    for (int c = first; c <= last; c++) {
        if (!r->ok[c]) {
            demo_print_row(first_col, role, direction, false, size, r->why[c]);
            return 1;
        }
    }
    demo_print_row(first_col, role, direction, true, size, NULL);
    return 0;
}

/* One enctype through the interop rows (cli_interop.c): gk5 as initiator
 * (lucid import) and as acceptor (rpc.gssd's buffer), both ways.  The
 * throwaway realm issues every type, so anything but cells that ran is a
 * failure here.  Returns the number of failed rows. */
static int demo_enctype(const struct gk5_mit_ends *ends, int32_t et)
{
    struct interop_row row;
    char col[64];
    int failed = 0;

    interop_row_run(ends, et, &row);
    interop_et_col(et, col, sizeof(col));
    if (row.outcome != INTEROP_RAN) {
        const size_t none[3] = {0, 0, 0};
        demo_print_row(col, "-", "-", false, none, row.note);
        return 1;
    }
    for (int role = 0; role < INTEROP_N_ROLES; role++) {
        const struct interop_role_result *r = &row.role[role];
        failed += demo_direction(
            r, role == 0 ? col : "", interop_role_name((enum interop_role)role),
            "gk5 -> MIT", INTEROP_SEALED_G2M, INTEROP_MIC_G2M);
        failed += demo_direction(r, "", "", "MIT -> gk5", INTEROP_SEALED_M2G,
                                 INTEROP_REPLAY);
    }
    return failed;
}

/* An enctype gk5 will not use: show that the KDC really issued it and
 * gk5's refusal, by both import paths.  Returns 1 if gk5 did not refuse
 * it. */
static int demo_refusal(const struct gk5_mit_ends *ends, int32_t et)
{
    struct interop_row row;

    interop_row_run(ends, et, &row);
    if (row.outcome != INTEROP_REFUSED) {
        printf("%s (%d): %s\n", et_name(et), (int)et, row.note);
        return 1;
    }
    printf("%s (%d): MIT established the context (lucid enctype %d)\n",
           et_name(et), (int)et,
           (int)row.role[INTEROP_INITIATOR].token_enctype);
    for (int role = 0; role < INTEROP_N_ROLES; role++) {
        const struct interop_role_result *r = &row.role[role];
        printf("  %-5s import refused, %s: %s\n",
               gk5_mit_path_name(role == INTEROP_INITIATOR ? GK5_MIT_PATH_LUCID
                                                           : GK5_MIT_PATH_GSSD),
               gk5_major_name(r->refusal_major),
               gk5_strerror(r->refusal_minor));
    }
    return 0;
}

#ifdef GK5_HAVE_TIRPC
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

/* calls ECHOs of size bytes, each reply checked.  The mean round trip in
 * *secs, or -1 with words in why. */
static int demo_echo(CLIENT *clnt, AUTH *auth, uint8_t *send, uint8_t *recv,
                     size_t size, int calls, double *secs, char *why,
                     size_t why_len)
{
    const struct timeval tv = {25, 0};
    double t0 = cli_now_s();

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
    *secs = (cli_now_s() - t0) / calls;
    return 0;
}

/* One service: establish, NULL, WHOAMI, small and large ECHOs.  Returns 1
 * if anything failed. */
static const char *establish_name(gk5_rpc_establish est)
{
    return est == GK5_RPC_ESTABLISH_MIT ? "MIT" : "native";
}

static int demo_rpc_service(const char *server, const char *client_kt,
                            gk5_rpc_establish est, gk5_rpc_service svc,
                            uint8_t *send, uint8_t *recv)
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
     * credentials from its keytab into a MEMORY: ccache (natively: a FILE
     * ccache of the AUTH's own, in a private folder). */
    opts.principal = GK5_MIT_CLIENT;
    opts.client_keytab = client_kt;
    opts.ccache = "MEMORY:gk5-demo-rpc";
    opts.establish = est;
    t0 = cli_now_s();
    auth = gk5_rpc_auth_create(clnt, DEMO_RPC_SERVICE, svc, &opts, &e);
    t_ctx = cli_now_s() - t0;
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

    t0 = cli_now_s();
    for (int i = 0; i < DEMO_RPC_SMALL_CALLS; i++) {
        if (clnt_call(clnt, GK5_ECHO_PROC_NULL, CLI_XDR_PROC(xdr_void), NULL,
                      CLI_XDR_PROC(xdr_void), NULL, tv) != RPC_SUCCESS) {
            cli_rpc_call_error(clnt, auth, "NULL", why, sizeof(why));
            goto cleanup;
        }
    }
    t_null = (cli_now_s() - t0) / DEMO_RPC_SMALL_CALLS;

    if (demo_echo(clnt, auth, send, recv, DEMO_RPC_SMALL, DEMO_RPC_SMALL_CALLS,
                  &t_small, why, sizeof(why)) != 0 ||
        demo_echo(clnt, auth, send, recv, DEMO_RPC_LARGE, DEMO_RPC_LARGE_CALLS,
                  &t_large, why, sizeof(why)) != 0) {
        goto cleanup;
    }
    failed = 0;

cleanup:
    if (failed) {
        printf("%-6s %-9s FAILED: %s\n", name, establish_name(est), why);
    } else {
        snprintf(col, sizeof(col), "%s (%d)", et_name(info.enctype),
                 (int)info.enctype);
        printf("%-6s %-9s %-29s %6u %8.1f %8.3f %8.3f %8.2f %8.1f\n", name,
               establish_name(est), col, (unsigned)info.window, t_ctx * 1e3,
               t_null * 1e3, t_small * 1e3, t_large * 1e3,
               DEMO_RPC_LARGE / t_large / 1e6);
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

/* gk5's server (service keytab, gk5@localhost, contexts accepted as est
 * says) on 127.0.0.1:0 in a thread, gk5's client (establishing as est
 * says) against it for each service.  Returns the number of failures. */
static int demo_rpc_run(const char *service_kt, const char *client_kt,
                        gk5_rpc_establish est, uint8_t *send, uint8_t *recv)
{
    static const gk5_rpc_service services[] = {
        GK5_RPC_SVC_NONE, GK5_RPC_SVC_INTEGRITY, GK5_RPC_SVC_PRIVACY};
    struct gk5_echo_id prog = {GK5_ECHO_PROG, GK5_ECHO_VERS};
    struct demo_server server;
    gk5_rpc_server_options opts;
    gk5_rpc_server *srv = NULL;
    pthread_t tid;
    bool running = false;
    char bound[128], err[512];
    const char *mode = establish_name(est);
    int fd = -1, failed = 0;

    memset(&server, 0, sizeof(server));
    memset(&opts, 0, sizeof(opts));
    opts.keytab = service_kt;
    opts.principal = DEMO_RPC_SERVICE;
    opts.flavors = GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE) |
                   GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY) |
                   GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY);
    opts.establish = est;
    if (gk5_rpc_server_create(&opts, &srv, &server.err) != 0) {
        printf("rpc    %-9s FAILED: the server: %s\n", mode, server.err.text);
        failed = 1;
        goto cleanup;
    }
    if (cli_rpc_listen("127.0.0.1:0", &fd, bound, sizeof(bound), err,
                       sizeof(err)) != 0) {
        printf("rpc    %-9s FAILED: the server: %s\n", mode, err);
        failed = 1;
        goto cleanup;
    }
    if (gk5_rpc_tcp_server_create(srv, fd, gk5_echo_dispatch, &prog, &server.ts,
                                  &server.err) != 0) {
        printf("rpc    %-9s FAILED: the server: %s\n", mode, server.err.text);
        failed = 1;
        goto cleanup;
    }
    if (pthread_create(&tid, NULL, demo_server_main, &server) != 0) {
        printf("rpc    %-9s FAILED: cannot start the server's thread\n", mode);
        failed = 1;
        goto cleanup;
    }
    running = true;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        failed +=
            demo_rpc_service(bound, client_kt, est, services[i], send, recv);
    }

cleanup:
    if (running) {
        gk5_rpc_tcp_server_stop(server.ts);
        pthread_join(tid, NULL);
        if (server.rc != 0) {
            printf("rpc    %-9s FAILED: the server stopped with: %s\n", mode,
                   server.err.text);
            failed++;
        }
    }
    gk5_rpc_tcp_server_free(server.ts);
    gk5_rpc_server_free(srv);
    if (fd >= 0) {
        close(fd);
    }
    return failed;
}

/* The echo program over RPCSEC_GSS: gk5's own establishment on both ends
 * (gk5_initiator, gk5_accept), then, for comparison, the MIT bridge on
 * both ends (MIT's GSS-API, the context moved into gk5).  Returns the
 * number of failures. */
static int demo_rpc(gk5_mit_realm *realm)
{
    static const gk5_rpc_establish modes[] = {GK5_RPC_ESTABLISH_NATIVE,
                                              GK5_RPC_ESTABLISH_MIT};
    char service_kt[PATH_MAX], client_kt[PATH_MAX];
    uint8_t *send = NULL, *recv = NULL;
    int failed = 0;

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
        free(send);
        free(recv);
        return 1;
    }
    gk5_echo_source_fill(send, DEMO_RPC_LARGE);
    printf("Server %s on 127.0.0.1 (service.keytab), client %s.\n"
           "'native': gk5_initiator and gk5_accept make each context; 'MIT', "
           "for comparison:\nMIT's GSS-API on both ends, the context moved "
           "into gk5 (the MIT bridge).\n"
           "Context establishment and round trips in ms: NULL, ECHO of 1 "
           "KiB and of 1 MiB\n(every reply checked); MB/s = 10^6 bytes each "
           "way per second at 1 MiB.\n\n",
           DEMO_RPC_SERVICE, GK5_MIT_CLIENT);
    printf("%-6s %-9s %-29s %6s %8s %8s %8s %8s %8s\n", "sec", "establish",
           "enctype", "window", "context", "NULL", "1 KiB", "1 MiB", "MB/s");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(modes); i++) {
        failed += demo_rpc_run(service_kt, client_kt, modes[i], send, recv);
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
    struct gk5_mit_ends ends;
    char client_kt[PATH_MAX], service_kt[PATH_MAX], rcache[PATH_MAX + 8],
        ccache[PATH_MAX + 16];
    struct timespec t0, t1;
    char err[512];
    int c, failed = 0;

    memset(&ends, 0, sizeof(ends));
    ccache[0] = '\0';
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
    /* gk5 interop's rows, pointed at the throwaway realm: its krb5.conf
     * (KRB5_CONFIG, set by gk5_mit_realm_start), keytabs and service. */
    if (snprintf(client_kt, sizeof(client_kt), "%s/client.keytab", realm.dir) >=
            (int)sizeof(client_kt) ||
        snprintf(service_kt, sizeof(service_kt), "%s/service.keytab",
                 realm.dir) >= (int)sizeof(service_kt) ||
        snprintf(rcache, sizeof(rcache), "file2:%s/rcache", realm.dir) >=
            (int)sizeof(rcache)) {
        gk5_mit_realm_stop(&realm);
        cli_error("demo: the realm's folder name is too long");
        return CLI_EXIT_FAIL;
    }
    ends.client = GK5_MIT_CLIENT;
    ends.client_keytab = client_kt;
    ends.service = GK5_MIT_SERVICE;
    ends.service_keytab = service_kt;
    ends.rcache = rcache;
    printf("Throwaway realm %s: MIT krb5kdc pid %ld on 127.0.0.1:%d, "
           "folder %s\n\n",
           GK5_MIT_REALM_NAME, (long)realm.kdc_pid, realm.port, realm.dir);
    /* gk5's own establishment first; the MIT bridge after it. */
    failed +=
        demo_native(&realm, &ends, demo_enctypes, GK5_ARRAY_SIZE(demo_enctypes),
                    ccache, sizeof(ccache));
    printf("\nFor comparison, the MIT bridge: contexts by MIT's GSS-API "
           "(%s -> %s),\none side moved into gk5 (lucid import as "
           "initiator, rpc.gssd's buffer as acceptor).\n\n",
           GK5_MIT_CLIENT, GK5_MIT_SERVICE);
    printf("%-32s %-18s %-10s %6s %6s %6s  %s\n", "enctype", "gk5 role",
           "direction", "sealed", "integ", "mic", "");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(demo_enctypes); i++) {
        failed += demo_enctype(&ends, demo_enctypes[i]);
    }
    failed += demo_rc4(&realm, &ends, ccache);
    failed += demo_refusal(&ends, 23);
#ifndef GK5_WITH_DES3
    printf("\n");
    failed += demo_refusal(&ends, 16);
#endif
    failed += demo_heimdal(&realm);
#ifdef GK5_HAVE_TIRPC
    failed += demo_rpc(&realm);
    failed += demo_nfs(&realm);
#endif

    long pid = (long)realm.kdc_pid;
    if (ccache[0] != '\0') {
        uint32_t minor = 0;
        /* Wiped here; the folder goes below whatever this answers. */
        if (gk5_ccache_destroy(&minor, ccache) != GK5_S_COMPLETE) {
            ccache[0] = '\0';
        }
    }
    gk5_mit_realm_stop(&realm);
    failed += demo_other_realms();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("\nkrb5kdc pid %ld stopped, folder removed; %.1f s.  %s\n", pid,
           secs, failed == 0 ? "All ok." : "SOME CHECKS FAILED.");
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
