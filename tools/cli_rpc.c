/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 rpc ping | serve | echo — RPCSEC_GSS (RFC 2203) with gk5 over TCP.
 *
 * serve runs the echo program (support/echo) on libgk5_rpc's
 * message-level server and its small TCP loop; ping is a libtirpc client
 * (clnt_vc on a socket we connect) with gk5's AUTH, or AUTH_SYS /
 * AUTH_NONE, or gk5's own client (--transport gk5).  On libtirpc,
 * arguments and results go through its XDR primitives over the CLIENT's
 * record stream.  echo, the timed calls from N threads or with N in
 * flight, is gk5-bench's (bench/rpc_echo.c): gk5 runs it with the same
 * arguments.  ping's and echo's options, flavours and AUTH are
 * cli_rpc_client.c's (cli_rpc_client.h), shared with gk5-bench.
 *
 * The pieces `gk5 demo`, `gk5 nfs4` and gk5-bench reuse (listen, connect,
 * --establish, the opaque<> XDR routine, words for a failed call) are in
 * cli_rpc_util.c, declared in cli.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef GK5_HAVE_TIRPC
#include <rpc/rpc.h>
#endif

#include <gk5/crypto.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "cli.h"
#include "echo.h"

#include "cli_rpc_client.h"

/* ---- gk5 rpc ping ---- */

static const char *option_name(const struct option *opts, int val)
{
    for (; opts->name != NULL; opts++) {
        if (opts->val == val) {
            return opts->name;
        }
    }
    return "?";
}

static void ping_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 rpc ping HOST:PORT --program N --version N [--sec "
               "S] [--target T]\n"
               "                    [--enctype LIST] [--ccache NAME] "
               "[--client-keytab FILE]\n"
               "                    [--client-principal NAME] [--timeout MS]\n"
               "\n"
               "Connect to HOST:PORT over TCP, establish the security flavour "
               "(for krb5*:\nan RPCSEC_GSS context through MIT's GSS-API, then "
               "gk5 for every message)\nand call procedure 0 (NULL) of the "
               "program.  Prints the enctype of the\nsession key, the server's "
               "sequence window and the round-trip time.\n"
               "\n"
               "  --program N           the RPC program number (decimal or 0x "
               "hex; the echo\n"
               "                        program of 'gk5 rpc serve' is "
               "0x20000099)\n"
               "  --version N           the program's version (echo: 1)\n");
    fputs(rpc_client_options_help, f);
    fprintf(f, "\nExit status: 0 the NULL call succeeded; 1 it or the "
               "context failed (the RPC\nerror and gk5's words are "
               "printed); 2 bad usage.\n");
}

/* gk5 rpc ping on gk5's own client: the context is made as the connection
 * opens. */
static int ping_native(const struct client_args *a)
{
    gk5_rpc_clnt *clnt = NULL;
    gk5_buffer none = {0, NULL}, res = {0, NULL};
    gk5_rpc_error e;
    char err[1024], desc[256], progs[16];
    double t0, t1, t2;
    int ret = CLI_EXIT_FAIL;

    rpc_format_prog(a->prog, progs, sizeof(progs));
    t0 = cli_now_s();
    if (rpc_native_connect(a, 1, &clnt, err, sizeof(err)) != 0) {
        cli_error("rpc ping: %s", err);
        return CLI_EXIT_FAIL;
    }
    t1 = cli_now_s();
    if (gk5_rpc_clnt_call(clnt, GK5_ECHO_PROC_NULL, &none, &res, &e) != 0) {
        cli_error("rpc ping: %s program %s version %u: NULL call: %s",
                  a->hostport, progs, a->vers, e.text);
        goto cleanup;
    }
    t2 = cli_now_s();
    if (res.length != 0) {
        cli_error("rpc ping: %s program %s version %u: the NULL call "
                  "returned %zu bytes of results, not none",
                  a->hostport, progs, a->vers, res.length);
        goto cleanup;
    }
    rpc_describe_native(a, clnt, 1, desc, sizeof(desc));
    if (a->sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS) {
        printf("gk5 rpc ping: %s program %s version %u: %s, connection and "
               "context %.1f ms, NULL call %.3f ms\n",
               a->hostport, progs, a->vers, desc, (t1 - t0) * 1e3,
               (t2 - t1) * 1e3);
    } else {
        printf("gk5 rpc ping: %s program %s version %u: %s, NULL call %.3f "
               "ms\n",
               a->hostport, progs, a->vers, desc, (t2 - t1) * 1e3);
    }
    ret = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;

cleanup:
    gk5_buffer_release(&res);
    gk5_rpc_clnt_free(clnt); /* RPCSEC_GSS_DESTROY on the connection */
    return ret;
}

#ifdef GK5_HAVE_TIRPC
/* gk5 rpc ping on libtirpc's client with gk5's AUTH. */
static int ping_tirpc(const struct client_args *ap)
{
    struct client_args a = *ap;
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    char err[1024], desc[256], progs[16];
    double t0, t1, t2;
    enum clnt_stat st;
    int ret = CLI_EXIT_FAIL;

    if (cli_rpc_connect(a.hostport, a.prog, a.vers, &clnt, err, sizeof(err)) !=
        0) {
        cli_error("rpc ping: %s", err);
        goto cleanup;
    }
    t0 = cli_now_s();
    if (rpc_client_auth(&a, clnt, &auth, err, sizeof(err)) != 0) {
        cli_error("rpc ping: %s", err);
        goto cleanup;
    }
    t1 = cli_now_s();
    st = clnt_call(clnt, GK5_ECHO_PROC_NULL, CLI_XDR_PROC(xdr_void), NULL,
                   CLI_XDR_PROC(xdr_void), NULL,
                   rpc_ms_to_timeval(a.timeout_ms));
    t2 = cli_now_s();
    rpc_format_prog(a.prog, progs, sizeof(progs));
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(
            clnt, a.sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? auth : NULL,
            "NULL call", err, sizeof(err));
        cli_error("rpc ping: %s program %s version %u: %s", a.hostport, progs,
                  a.vers, err);
        goto cleanup;
    }
    rpc_describe_auth(&a, auth, desc, sizeof(desc));
    if (a.sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS) {
        printf("gk5 rpc ping: %s program %s version %u: %s, context %.1f ms, "
               "NULL call %.3f ms\n",
               a.hostport, progs, a.vers, desc, (t1 - t0) * 1e3,
               (t2 - t1) * 1e3);
    } else {
        printf("gk5 rpc ping: %s program %s version %u: %s, NULL call %.3f "
               "ms\n",
               a.hostport, progs, a.vers, desc, (t2 - t1) * 1e3);
    }
    ret = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;

cleanup:
    if (clnt != NULL) {
        /* RPCSEC_GSS_DESTROY goes over the AUTH's own connection. */
        if (clnt->cl_auth != NULL) {
            auth_destroy(clnt->cl_auth);
            clnt->cl_auth = NULL;
        }
        clnt_destroy(clnt);
    }
    return ret;
}
#endif /* GK5_HAVE_TIRPC */

static int rpc_ping(int argc, char **argv)
{
    struct client_args a;
    int c;

    rpc_client_args_init(&a, "rpc ping");
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", rpc_client_longopts, NULL)) !=
           -1) {
        int r;

        if (c == OPT_HELP) {
            ping_usage(stdout);
            return CLI_EXIT_OK;
        }
        if (c >= OPT_SIZE && c <= OPT_INFLIGHT) {
            cli_error("rpc ping: option '--%s' applies to 'gk5 rpc echo' "
                      "only",
                      option_name(rpc_client_longopts, c));
            fprintf(stderr, "Try 'gk5 rpc ping --help'.\n");
            return CLI_EXIT_USAGE;
        }
        r = rpc_take_client_option(&a, c, argv);
        if (r != CLI_EXIT_OK) {
            return r;
        }
    }
    if (rpc_client_args_check(&a, argc, argv) != 0) {
        return CLI_EXIT_USAGE;
    }
    if (!a.have_prog || !a.have_vers) {
        cli_error("rpc ping: --program and --version are required (the "
                  "echo program: --program 0x20000099 --version 1)");
        return CLI_EXIT_USAGE;
    }

#ifdef GK5_HAVE_TIRPC
    if (!a.native) {
        return ping_tirpc(&a);
    }
#endif
    return ping_native(&a);
}

/* ---- gk5 rpc echo ---- */

/* The timed, threaded calls are gk5-bench's (bench/rpc_echo.c): it gets
 * the same arguments and says the same words. */
static int rpc_echo(int argc, char **argv)
{
#ifdef GK5_HAVE_BENCH
    return cli_run_bench("rpc echo", "rpc", argc, argv);
#else
    (void)argc;
    (void)argv;
    cli_error("rpc echo: it runs gk5-bench, which this build leaves out "
              "(-Dbench=disabled)");
    return CLI_EXIT_USAGE;
#endif
}

/* ---- gk5 rpc serve ---- */

static gk5_rpc_tcp_server *volatile serve_ts;

static void serve_on_signal(int sig)
{
    gk5_rpc_tcp_server *ts = serve_ts;

    (void)sig;
    if (ts != NULL) {
        gk5_rpc_tcp_server_stop(ts);
    }
}

static void serve_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 rpc serve --listen ADDRESS:PORT [--program N] "
            "[--version N]\n"
            "                     [--sec LIST] [--keytab FILE] "
            "[--principal SERVICE@HOST]\n"
            "                     [--window N] [--establish native|mit]\n"
            "                     [--threads N] [--max-connections N] "
            "[--max-per-address N]\n"
            "                     [--max-inflight N] [--unauth-budget BYTES] "
            "[--reply-budget BYTES]\n"
            "                     [--first-record-timeout SECONDS] "
            "[--conn-idle-timeout SECONDS]\n"
            "                     [--send-timeout SECONDS] "
            "[--log-interval SECONDS]\n"
            "\n"
            "Serve the echo program over TCP with gk5's RPCSEC_GSS server "
            "until SIGTERM\nor SIGINT:\n"
            "  0 NULL    void -> void\n"
            "  1 ECHO    opaque<> -> the same opaque<>\n"
            "  2 WHOAMI  void -> string<>: the flavour, service and client "
            "principal\n"
            "            (\"RPCSEC_GSS krb5p user@REALM\", \"AUTH_SYS uid=0 "
            "gid=0\")\n"
            "  3 SINK    opaque<> -> unsigned int, its length\n"
            "  4 SOURCE  unsigned int n -> opaque<> of n bytes, byte i = i "
            "%% 251\n"
            "Opaques are at most 64 MiB.  Other procedures get PROC_UNAVAIL, "
            "other\nprograms PROG_UNAVAIL, other versions PROG_MISMATCH.  "
            "Once listening it\nprints one line, \"gk5 rpc serve: listening "
            "on ADDRESS:PORT program ...\".\n"
            "\n"
            "  --listen ADDRESS:PORT  a numeric address, bound exactly "
            "(127.0.0.1:2049,\n"
            "                        [::1]:2049); port 0 picks a free one "
            "and prints it\n"
            "  --program N           default 0x20000099 (decimal or 0x hex)\n"
            "  --version N           default 1\n"
            "  --sec LIST            flavours to accept, comma-separated: "
            "none, sys, krb5,\n"
            "                        krb5i, krb5p; default krb5,krb5i,krb5p "
            "(RPCSEC_GSS\n"
            "                        only); sys and none only when listed, "
            "with a warning:\n"
            "                        any client may call without "
            "authenticating\n"
            "  --keytab FILE         the acceptor's keytab; default "
            "KRB5_KTNAME or MIT's\n"
            "  --principal SERVICE@HOST\n"
            "                        accept only for this service (e.g. "
            "nfs@server);\n"
            "                        default: any key in the keytab\n"
            "  --window N            the RPCSEC_GSS sequence window, "
            "1..1024; default 128\n"
            "  --establish native|mit\n"
            "                        how contexts are accepted: native, "
            "gk5's own acceptor\n"
            "                        (one leg: the AP-REP answers INIT; "
            "a replay cache in\n"
            "                        memory), or mit, MIT's "
            "gss_accept_sec_context, the\n"
            "                        context then moved into gk5; "
            "default native\n");
    /* Two strings: C99 promises 4095 bytes for one. */
    fprintf(f,
            "\n"
            "Limits and deadlines (BYTES take a K, M or G suffix; SECONDS "
            "may have a\nfraction, e.g. 0.5):\n"
            "  --threads N           worker threads running calls; default "
            "the CPU count,\n"
            "                        at least 2\n"
            "  --max-connections N   connections at once; default 1024.  "
            "When full, a new\n"
            "                        connection evicts the oldest "
            "unauthenticated one\n"
            "                        (one that has not had an RPCSEC_GSS "
            "call verified);\n"
            "                        when every one is authenticated, the "
            "new one is closed\n"
            "  --max-per-address N   connections from one IP address; "
            "default 64\n"
            "  --max-inflight N      calls of one connection running or "
            "with a reply\n"
            "                        waiting; beyond it the connection is "
            "not read;\n"
            "                        default 128\n"
            "  --unauth-budget BYTES bytes held for records not "
            "authenticated (first\n"
            "                        4 KiB of every record, RPCSEC_GSS INIT "
            "and AUTH_SYS\n"
            "                        calls), server-wide; when spent, the "
            "oldest\n"
            "                        unauthenticated connection holding "
            "some is closed;\n"
            "                        default 16M, at least 64K\n"
            "  --reply-budget BYTES  bytes of replies waiting to be written, "
            "server-wide;\n"
            "                        a reply that does not fit is answered "
            "SYSTEM_ERR;\n"
            "                        default 256M, at least 64K\n"
            "  --first-record-timeout SECONDS\n"
            "                        an unauthenticated connection must "
            "send each whole\n"
            "                        record within this of accept or of its "
            "previous\n"
            "                        record; default 10\n"
            "  --conn-idle-timeout SECONDS\n"
            "                        the same for an authenticated "
            "connection (not the\n"
            "                        RPCSEC_GSS context's idle timeout, "
            "3600 s); default 300\n"
            "  --send-timeout SECONDS\n"
            "                        a reply must be written within this, "
            "or the peer is\n"
            "                        dropped and its replies freed; "
            "default 30\n"
            "  --log-interval SECONDS\n"
            "                        at most one line per cause (a limit, "
            "a deadline, a\n"
            "                        kind of refused call) this often, with "
            "a count;\n"
            "                        default 10\n"
            "\nExit status: 0 stopped by a signal; 1 it could not start (bad "
            "keytab, port\nin use, ...) or failed; 2 bad usage.\n");
}

static int parse_sec_list(const char *list, unsigned *flavors, char *text,
                          size_t text_len)
{
    const char *p = list;

    *flavors = 0;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        const struct sec_desc *s = rpc_find_sec(p, n);

        if (s == NULL) {
            cli_error("rpc serve: --sec: '%.*s' is not one of none, sys, "
                      "krb5, krb5i, krb5p",
                      (int)n, p);
            return -1;
        }
        *flavors |= s->allow;
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    if (*flavors == 0) {
        cli_error("rpc serve: --sec: no flavour in '%s'", list);
        return -1;
    }
    /* The canonical order for the listening line. */
    text[0] = '\0';
    for (size_t i = 0; i < rpc_n_secs; i++) {
        if ((*flavors & rpc_secs[i].allow) != 0) {
            size_t used = strlen(text);

            snprintf(text + used, text_len - used, "%s%s", used ? "," : "",
                     rpc_secs[i].name);
        }
    }
    return 0;
}

/* Calls the library refused or dropped, one line each on stderr: what an
 * operator (and the tests) look at to see why a client got nowhere. */
static void serve_log(void *arg, gk5_rpc_verdict verdict,
                      const gk5_rpc_error *err)
{
    (void)arg;
    if (err->code == GK5_RPC_E_TRANSPORT) {
        /* A connection a limit or deadline closed: the text says which. */
        fprintf(stderr, "gk5 rpc serve: %s\n", err->text);
        return;
    }
    fprintf(stderr, "gk5 rpc serve: %s: %s\n",
            verdict == GK5_RPC_CALL_DROP ? "dropped a call" : "refused a call",
            err->text[0] != '\0' ? err->text : gk5_rpc_strerror(err->code));
}

/* SECONDS, a fraction allowed ("0.5"), as milliseconds: 1 ms to 30 days. */
static int parse_seconds_ms(const char *s, uint32_t *ms)
{
    char *end = NULL;
    double v;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || v * 1000.0 < 1.0 || v > 30.0 * 86400.0) {
        return -1;
    }
    *ms = (uint32_t)(v * 1000.0 + 0.5);
    return 0;
}

/* The limits and deadlines of gk5 rpc serve (gk5_rpc_tcp_options).  0, or
 * -1 after saying what is wrong with optarg. */
static int serve_limit(int c, const char *arg, gk5_rpc_tcp_options *t)
{
    uint32_t n = 0;
    size_t bytes = 0;

    switch (c) {
    case OPT_THREADS:
        if (rpc_parse_num(arg, &n) != 0 || n == 0 || n > 1024) {
            return cli_bad_number("rpc serve", "--threads", arg,
                                  "from 1 to 1024");
        }
        t->threads = n;
        return 0;
    case OPT_MAX_CONNECTIONS:
    case OPT_MAX_PER_ADDRESS:
    case OPT_MAX_INFLIGHT:
        if (rpc_parse_num(arg, &n) != 0 || n == 0) {
            return cli_bad_number("rpc serve",
                                  c == OPT_MAX_CONNECTIONS ? "--max-connections"
                                  : c == OPT_MAX_PER_ADDRESS
                                      ? "--max-per-address"
                                      : "--max-inflight",
                                  arg, "from 1");
        }
        if (c == OPT_MAX_CONNECTIONS) {
            t->max_connections = n;
        } else if (c == OPT_MAX_PER_ADDRESS) {
            t->max_per_address = n;
        } else {
            t->max_inflight = n;
        }
        return 0;
    case OPT_UNAUTH_BUDGET:
    case OPT_REPLY_BUDGET:
        if (cli_parse_size(arg, SIZE_MAX, &bytes) != 0 ||
            bytes < (size_t)64 * 1024) {
            return cli_bad_number("rpc serve",
                                  c == OPT_UNAUTH_BUDGET ? "--unauth-budget"
                                                         : "--reply-budget",
                                  arg, "of bytes, at least 64K");
        }
        if (c == OPT_UNAUTH_BUDGET) {
            t->unauth_budget = bytes;
        } else {
            t->reply_budget = bytes;
        }
        return 0;
    default:
        break;
    }
    if (parse_seconds_ms(arg, &n) != 0) {
        return cli_bad_number(
            "rpc serve",
            c == OPT_FIRST_RECORD_TIMEOUT ? "--first-record-timeout"
            : c == OPT_CONN_IDLE_TIMEOUT  ? "--conn-idle-timeout"
            : c == OPT_SEND_TIMEOUT       ? "--send-timeout"
                                          : "--log-interval",
            arg, "of seconds, 0.001 to 2592000");
    }
    if (c == OPT_FIRST_RECORD_TIMEOUT) {
        t->first_record_timeout_ms = n;
    } else if (c == OPT_CONN_IDLE_TIMEOUT) {
        t->idle_timeout_ms = n;
    } else if (c == OPT_SEND_TIMEOUT) {
        t->send_timeout_ms = n;
    } else {
        t->log_interval_ms = n;
    }
    return 0;
}

static int rpc_serve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"program", required_argument, NULL, OPT_PROGRAM},
        {"version", required_argument, NULL, OPT_VERSION},
        {"sec", required_argument, NULL, OPT_SEC},
        {"keytab", required_argument, NULL, OPT_KEYTAB},
        {"principal", required_argument, NULL, OPT_PRINCIPAL},
        {"window", required_argument, NULL, OPT_WINDOW},
        {"establish", required_argument, NULL, OPT_ESTABLISH},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
        {"max-per-address", required_argument, NULL, OPT_MAX_PER_ADDRESS},
        {"max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT},
        {"unauth-budget", required_argument, NULL, OPT_UNAUTH_BUDGET},
        {"reply-budget", required_argument, NULL, OPT_REPLY_BUDGET},
        {"first-record-timeout", required_argument, NULL,
         OPT_FIRST_RECORD_TIMEOUT},
        {"conn-idle-timeout", required_argument, NULL, OPT_CONN_IDLE_TIMEOUT},
        {"send-timeout", required_argument, NULL, OPT_SEND_TIMEOUT},
        {"log-interval", required_argument, NULL, OPT_LOG_INTERVAL},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    struct gk5_echo_id prog = {GK5_ECHO_PROG, GK5_ECHO_VERS};
    gk5_rpc_server_options opts;
    gk5_rpc_tcp_options topts;
    gk5_rpc_server *srv = NULL;
    gk5_rpc_tcp_server *ts = NULL;
    gk5_rpc_error e;
    struct sigaction sa, old_int, old_term, old_pipe;
    const char *listen_at = NULL;
    char err[512], bound[NI_MAXHOST + 16], progs[16], sectext[64];
    uint32_t window = 0;
    int c, fd = -1, ret = CLI_EXIT_FAIL;
    bool signals_set = false;

    memset(&opts, 0, sizeof(opts));
    memset(&topts, 0, sizeof(topts));
    memset(&e, 0, sizeof(e));
    /* RPCSEC_GSS only unless told: AUTH_SYS and AUTH_NONE prove nothing. */
    if (parse_sec_list("krb5,krb5i,krb5p", &opts.flavors, sectext,
                       sizeof(sectext)) != 0) {
        return CLI_EXIT_FAIL;
    }
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            serve_usage(stdout);
            return CLI_EXIT_OK;
        case OPT_LISTEN:
            listen_at = optarg;
            break;
        case OPT_PROGRAM:
        case OPT_VERSION:
            if (rpc_parse_num(optarg, c == OPT_PROGRAM ? &prog.prog
                                                       : &prog.vers) != 0) {
                cli_error("rpc serve: --%s: '%s' is not a number (decimal or "
                          "0x hex)",
                          c == OPT_PROGRAM ? "program" : "version", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_SEC:
            if (parse_sec_list(optarg, &opts.flavors, sectext,
                               sizeof(sectext)) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_KEYTAB:
            opts.keytab = optarg;
            break;
        case OPT_PRINCIPAL:
            opts.principal = optarg;
            break;
        case OPT_WINDOW:
            if (rpc_parse_num(optarg, &window) != 0 || window == 0 ||
                window > 1024) {
                cli_error("rpc serve: --window: '%s' is not a number from 1 "
                          "to 1024",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            opts.window = window;
            break;
        case OPT_ESTABLISH:
            if (cli_rpc_parse_establish("rpc serve", optarg, &opts.establish) !=
                0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_THREADS:
        case OPT_MAX_CONNECTIONS:
        case OPT_MAX_PER_ADDRESS:
        case OPT_MAX_INFLIGHT:
        case OPT_UNAUTH_BUDGET:
        case OPT_REPLY_BUDGET:
        case OPT_FIRST_RECORD_TIMEOUT:
        case OPT_CONN_IDLE_TIMEOUT:
        case OPT_SEND_TIMEOUT:
        case OPT_LOG_INTERVAL:
            if (serve_limit(c, optarg, &topts) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        default:
            return cli_option_error("rpc serve", c, argv);
        }
    }
    if (optind < argc) {
        cli_error("rpc serve: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (listen_at == NULL) {
        cli_error("rpc serve: --listen ADDRESS:PORT is required (e.g. "
                  "--listen 127.0.0.1:0)");
        return CLI_EXIT_USAGE;
    }
    {
        char host[NI_MAXHOST], port[16];
        struct in_addr a4;
        struct in6_addr a6;

        if (cli_rpc_split_hostport(listen_at, host, sizeof(host), port,
                                   sizeof(port)) != 0) {
            cli_error("rpc serve: --listen: '%s' is not ADDRESS:PORT",
                      listen_at);
            return CLI_EXIT_USAGE;
        }
        if (inet_pton(AF_INET, host, &a4) != 1 &&
            inet_pton(AF_INET6, host, &a6) != 1) {
            cli_error("rpc serve: --listen: '%s' is not a numeric address "
                      "(e.g. 127.0.0.1:0 or [::1]:0)",
                      host);
            return CLI_EXIT_USAGE;
        }
    }
    opts.max_body = (size_t)GK5_ECHO_MAX_OPAQUE + GK5_ECHO_BODY_SLACK;
    if ((opts.flavors & (GK5_RPC_ALLOW_SYS | GK5_RPC_ALLOW_NONE)) != 0) {
        fprintf(stderr,
                "gk5 rpc serve: warning: %s allowed: any client may call "
                "without authenticating\n",
                (opts.flavors & GK5_RPC_ALLOW_SYS) == 0 ? "AUTH_NONE is"
                : (opts.flavors & GK5_RPC_ALLOW_NONE) == 0
                    ? "AUTH_SYS is"
                    : "AUTH_SYS and AUTH_NONE are");
    }

    if (cli_rpc_listen(listen_at, &fd, bound, sizeof(bound), err,
                       sizeof(err)) != 0) {
        cli_error("rpc serve: %s", err);
        goto cleanup;
    }
    if (gk5_rpc_server_create(&opts, &srv, &e) != 0) {
        cli_error("rpc serve: %s",
                  e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
        goto cleanup;
    }
    if (gk5_rpc_tcp_server_create(srv, fd, gk5_echo_dispatch, &prog, &ts, &e) !=
        0) {
        cli_error("rpc serve: %s",
                  e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
        goto cleanup;
    }

    if (gk5_rpc_tcp_server_set_options(ts, &topts, &e) != 0) {
        cli_error("rpc serve: %s",
                  e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
        goto cleanup;
    }
    gk5_rpc_tcp_server_set_log(ts, serve_log, NULL);
    serve_ts = ts;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = serve_on_signal;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGINT, &sa, &old_int);
    (void)sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN; /* a client that goes away mid-reply */
    (void)sigaction(SIGPIPE, &sa, &old_pipe);
    signals_set = true;

    rpc_format_prog(prog.prog, progs, sizeof(progs));
    printf("gk5 rpc serve: listening on %s program %s version %u (sec %s, "
           "establish %s)\n",
           bound, progs, prog.vers, sectext,
           opts.establish == GK5_RPC_ESTABLISH_MIT ? "mit" : "native");
    if (fflush(stdout) != 0) {
        cli_error("rpc serve: cannot write to standard output");
        goto cleanup;
    }
    if (gk5_rpc_tcp_server_run(ts, &e) != 0) {
        cli_error("rpc serve: %s",
                  e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    if (signals_set) {
        (void)sigaction(SIGINT, &old_int, NULL);
        (void)sigaction(SIGTERM, &old_term, NULL);
        (void)sigaction(SIGPIPE, &old_pipe, NULL);
        serve_ts = NULL;
    }
    gk5_rpc_tcp_server_free(ts);
    gk5_rpc_server_free(srv);
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

/* ---- gk5 rpc ---- */

static void rpc_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 rpc ping|serve|echo [options]\n"
               "\n"
               "RPCSEC_GSS (RFC 2203) over TCP with gk5 doing every "
               "per-message operation\n(the client establishes contexts "
               "with MIT's GSS-API, the server accepts them\nwith gk5's "
               "own acceptor, or MIT's with --establish mit):\n"
               "  ping    connect, establish the flavour, call procedure 0 "
               "(NULL)\n"
               "  serve   the echo program (NULL, ECHO, WHOAMI, SINK, "
               "SOURCE) until SIGTERM\n"
               "  echo    call the echo program for a while and check every "
               "reply\n"
               "\n"
               "'gk5 rpc COMMAND --help' describes a command's options.\n");
}

int gk5_cli_rpc(int argc, char **argv)
{
    static const struct cli_command table[] = {
        {.name = "ping", .run = rpc_ping},
        {.name = "serve", .run = rpc_serve},
        {.name = "echo", .run = rpc_echo},
    };
    static const struct cli_subcommands rpc = {
        .cmd = "rpc",
        .table = table,
        .count = GK5_ARRAY_SIZE(table),
        .usage = rpc_usage,
        .noun = "command",
        .flags = CLI_SUB_HELP_WORD | CLI_SUB_LIST | CLI_SUB_TRY,
    };

    return cli_dispatch(&rpc, argc, argv);
}
