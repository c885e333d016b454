/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 rpc ping | serve | echo — RPCSEC_GSS (RFC 2203) with gk5 over TCP.
 *
 * serve runs the echo program (support/echo) on libgk5_rpc's
 * message-level server and its small TCP loop; ping and echo are libtirpc
 * clients (clnt_vc on a socket we connect) with gk5's AUTH, or AUTH_SYS /
 * AUTH_NONE, or gk5's own client (--native, --inflight).  On libtirpc,
 * arguments and results go through its XDR primitives over the CLIENT's
 * record stream.
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

#define RPC_MAX_THREADS 256
#define RPC_MAX_INFLIGHT 1024
#define RPC_MAX_ENCTYPES 16
#define RPC_DEFAULT_TIMEOUT_MS 25000u

/* ---- Small parsers ---- */

/* Decimal or 0x hex, 0..UINT32_MAX; 0 or -1. */
static int parse_num(const char *s, uint32_t *out)
{
    unsigned long long v;
    char *end = NULL;
    int base = 10;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ') {
            return -1;
        }
    }
    errno = 0;
    v = strtoull(s, &end, base);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* A positive number of seconds, fractions allowed. */
static int parse_seconds(const char *s, double *out)
{
    char *end = NULL;
    double v;

    if (s == NULL || ((*s < '0' || *s > '9') && *s != '.')) {
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !(v > 0) || v > 86400.0 * 365) {
        return -1;
    }
    *out = v;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

/* Program numbers of the user-defined range read better in hex. */
static void format_prog(uint32_t prog, char *out, size_t len)
{
    if (prog >= 0x20000000u) {
        snprintf(out, len, "0x%08x", prog);
    } else {
        snprintf(out, len, "%u", prog);
    }
}

/* ---- Security flavours ---- */

struct sec_desc {
    const char *name;
    uint32_t flavor;     /* GK5_RPC_FLAVOR_* */
    gk5_rpc_service svc; /* for RPCSEC_GSS */
    unsigned allow;      /* gk5_rpc_server_options.flavors bit */
};

static const struct sec_desc secs[] = {
    {"none", GK5_RPC_FLAVOR_NONE, 0, GK5_RPC_ALLOW_NONE},
    {"sys", GK5_RPC_FLAVOR_SYS, 0, GK5_RPC_ALLOW_SYS},
    {"krb5", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_NONE,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE)},
    {"krb5i", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_INTEGRITY,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY)},
    {"krb5p", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_PRIVACY,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY)},
};

static const struct sec_desc *find_sec(const char *name, size_t n)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(secs); i++) {
        if (strlen(secs[i].name) == n && strncmp(secs[i].name, name, n) == 0) {
            return &secs[i];
        }
    }
    return NULL;
}

/* ---- Client options, shared by ping and echo ---- */

enum {
    OPT_HELP = 'h',
    OPT_PROGRAM = 256,
    OPT_VERSION,
    OPT_SEC,
    OPT_TARGET,
    OPT_ENCTYPE,
    OPT_CCACHE,
    OPT_CLIENT_KEYTAB,
    OPT_CLIENT_PRINCIPAL,
    OPT_TIMEOUT,
    /* echo */
    OPT_SIZE,
    OPT_PROC,
    OPT_SECONDS,
    OPT_THREADS,
    OPT_CALLS,
    OPT_INFLIGHT,
    OPT_TRANSPORT,
    /* serve */
    OPT_LISTEN,
    OPT_KEYTAB,
    OPT_PRINCIPAL,
    OPT_WINDOW,
    OPT_ESTABLISH,
    OPT_MAX_CONNECTIONS,
    OPT_MAX_PER_ADDRESS,
    OPT_MAX_INFLIGHT,
    OPT_UNAUTH_BUDGET,
    OPT_REPLY_BUDGET,
    OPT_FIRST_RECORD_TIMEOUT,
    OPT_CONN_IDLE_TIMEOUT,
    OPT_SEND_TIMEOUT,
    OPT_LOG_INTERVAL,
};

/* ping and echo share one table; ping refuses echo's own options. */
static const struct option client_longopts[] = {
    {"program", required_argument, NULL, OPT_PROGRAM},
    {"version", required_argument, NULL, OPT_VERSION},
    {"sec", required_argument, NULL, OPT_SEC},
    {"target", required_argument, NULL, OPT_TARGET},
    {"enctype", required_argument, NULL, OPT_ENCTYPE},
    {"ccache", required_argument, NULL, OPT_CCACHE},
    {"client-keytab", required_argument, NULL, OPT_CLIENT_KEYTAB},
    {"client-principal", required_argument, NULL, OPT_CLIENT_PRINCIPAL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"establish", required_argument, NULL, OPT_ESTABLISH},
    {"size", required_argument, NULL, OPT_SIZE},
    {"proc", required_argument, NULL, OPT_PROC},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"calls", required_argument, NULL, OPT_CALLS},
    {"inflight", required_argument, NULL, OPT_INFLIGHT},
    {"transport", required_argument, NULL, OPT_TRANSPORT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static const char client_options_help[] =
    "  --sec S               none, sys (AUTH_SYS as uid 0, gid 0), krb5 "
    "(RPCSEC_GSS,\n"
    "                        header MICs only), krb5i (integrity) or krb5p\n"
    "                        (privacy); default: sys\n"
    "  --target SERVICE@HOST the server's host-based service name (e.g. "
    "nfs@server);\n"
    "                        required for krb5, krb5i and krb5p\n"
    "  --enctype LIST        ask for these session-key enctypes (names or "
    "numbers,\n"
    "                        comma-separated, e.g. aes256-cts or 20); "
    "default: the\n"
    "                        KDC's choice.  gk5 refuses rc4 and des keys "
    "(RFC 8429)\n"
    "  --ccache NAME         credential cache (FILE:path; other types "
    "only with\n"
    "                        --establish mit); default: KRB5CCNAME, else\n"
    "                        /tmp/krb5cc_UID\n"
    "  --client-keytab FILE  get initial credentials from this keytab\n"
    "  --client-principal NAME\n"
    "                        the client's principal (e.g. "
    "user@REALM); default: the\n"
    "                        ccache's\n"
    "  --timeout MS          per call, and for establishing the context;\n"
    "                        default 25000\n"
    "  --transport gk5|libtirpc\n"
    "                        gk5's own RPC client (one connection, replies "
    "matched\n"
    "                        by XID) or libtirpc's clnt_vc with gk5's AUTH; "
    "default:\n"
    "                        libtirpc when gk5 is built with it\n"
    "  --establish native|mit\n"
    "                        who makes the context: gk5's own initiator (the\n"
    "                        default: the service ticket from the FILE "
    "ccache, or\n"
    "                        from the KDC with its TGT) or MIT's "
    "gss_init_sec_context\n";

struct client_args {
    const char *cmd; /* "rpc ping", "rpc echo" */
    const char *hostport;
    uint32_t prog, vers;
    bool have_prog, have_vers;
    const struct sec_desc *sec;
    const char *target;
    const char *ccache, *client_keytab, *client_principal;
    int32_t enctypes[RPC_MAX_ENCTYPES];
    size_t n_enctypes;
    unsigned timeout_ms;
    gk5_rpc_establish establish;
    bool have_establish;
    bool native; /* gk5's own RPC client, not libtirpc's */
};

static void client_args_init(struct client_args *a, const char *cmd)
{
    memset(a, 0, sizeof(*a));
    a->cmd = cmd;
    a->sec = find_sec("sys", 3);
    a->timeout_ms = RPC_DEFAULT_TIMEOUT_MS;
#ifndef GK5_HAVE_TIRPC
    a->native = true; /* the only client there is */
#endif
}

static int parse_enctypes(struct client_args *a, const char *list)
{
    const char *p = list;

    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        char name[64];
        int32_t et = 0;

        if (n == 0 || n >= sizeof(name) ||
            a->n_enctypes == GK5_ARRAY_SIZE(a->enctypes)) {
            cli_error("%s: --enctype: bad list '%s'", a->cmd, list);
            return -1;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        if (gk5_enctype_from_name(name, &et) != GK5_OK) {
            cli_error("%s: --enctype: unknown enctype '%s' (see 'gk5 "
                      "enctypes')",
                      a->cmd, name);
            return -1;
        }
        a->enctypes[a->n_enctypes++] = et;
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    return 0;
}

/* --program and --version: a number into *v, and *have set; -1 (message
 * printed) if arg is not one. */
static int number_option(const struct client_args *a, const char *opt,
                         const char *arg, uint32_t *v, bool *have)
{
    if (parse_num(arg, v) != 0) {
        cli_error("%s: %s: '%s' is not a number (decimal or 0x hex)", a->cmd,
                  opt, arg);
        return -1;
    }
    *have = true;
    return 0;
}

static int client_option(struct client_args *a, int c, const char *arg);

/* A ping or echo option getopt_long gave (c, optarg): CLI_EXIT_OK once
 * taken, else the exit status, the message printed. */
static int take_client_option(struct client_args *a, int c, char **argv)
{
    int r = client_option(a, c, optarg);

    if (r < 0) {
        return CLI_EXIT_USAGE;
    }
    if (r > 0) {
        return cli_option_error(a->cmd, c, argv);
    }
    return CLI_EXIT_OK;
}

/* 0 handled, 1 not a client option, -1 bad value (message printed).  The
 * cases are alike in shape (check, say why, store); each check and its
 * words are the option's own. */
static int client_option(struct client_args *a, int c, const char *arg)
{
    uint32_t v;

    switch (c) {
    case OPT_PROGRAM:
        return number_option(a, "--program", arg, &a->prog, &a->have_prog);
    case OPT_VERSION:
        return number_option(a, "--version", arg, &a->vers, &a->have_vers);
    case OPT_SEC:
        a->sec = find_sec(arg, strlen(arg));
        if (a->sec == NULL) {
            cli_error("%s: --sec: '%s' is not one of none, sys, krb5, krb5i, "
                      "krb5p",
                      a->cmd, arg);
            return -1;
        }
        return 0;
    case OPT_TARGET:
        if (strchr(arg, '@') == NULL && strchr(arg, '/') == NULL) {
            cli_error("%s: --target: '%s' is not SERVICE@HOST (e.g. "
                      "nfs@server)",
                      a->cmd, arg);
            return -1;
        }
        a->target = arg;
        return 0;
    case OPT_ENCTYPE:
        return parse_enctypes(a, arg);
    case OPT_CCACHE:
        a->ccache = arg;
        return 0;
    case OPT_CLIENT_KEYTAB:
        a->client_keytab = arg;
        return 0;
    case OPT_CLIENT_PRINCIPAL:
        a->client_principal = arg;
        return 0;
    case OPT_ESTABLISH:
        if (cli_rpc_parse_establish(a->cmd, arg, &a->establish) != 0) {
            return -1;
        }
        a->have_establish = true;
        return 0;
    case OPT_TIMEOUT:
        if (parse_num(arg, &v) != 0 || v == 0) {
            cli_error("%s: --timeout: '%s' is not a positive number of "
                      "milliseconds",
                      a->cmd, arg);
            return -1;
        }
        a->timeout_ms = v;
        return 0;
    case OPT_TRANSPORT:
        if (strcmp(arg, "gk5") == 0) {
            a->native = true;
        } else if (strcmp(arg, "libtirpc") == 0) {
#ifdef GK5_HAVE_TIRPC
            a->native = false;
#else
            cli_error("%s: --transport libtirpc: this gk5 was built without "
                      "libtirpc (Debian's libtirpc links MIT's GSS-API, and "
                      "this build has no MIT krb5): gk5's own client only",
                      a->cmd);
            return -1;
#endif
        } else {
            cli_error("%s: --transport: '%s' is not gk5 or libtirpc", a->cmd,
                      arg);
            return -1;
        }
        return 0;
    default:
        return 1;
    }
}

/* After the options: the HOST:PORT operand and the combinations. */
static int client_args_check(struct client_args *a, int argc, char **argv)
{
    if (optind >= argc) {
        cli_error("%s: missing HOST:PORT", a->cmd);
        fprintf(stderr, "Try 'gk5 %s --help'.\n", a->cmd);
        return -1;
    }
    a->hostport = argv[optind++];
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", a->cmd, argv[optind]);
        return -1;
    }
    {
        char host[NI_MAXHOST], port[16];

        if (cli_rpc_split_hostport(a->hostport, host, sizeof(host), port,
                                   sizeof(port)) != 0) {
            cli_error("%s: '%s' is not HOST:PORT", a->cmd, a->hostport);
            return -1;
        }
    }
    if (a->sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS && a->target == NULL) {
        cli_error("%s: --sec %s needs --target SERVICE@HOST, the server's "
                  "service name (e.g. nfs@server)",
                  a->cmd, a->sec->name);
        return -1;
    }
    if (a->sec->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS &&
        (a->target != NULL || a->n_enctypes > 0 || a->ccache != NULL ||
         a->client_keytab != NULL || a->client_principal != NULL ||
         a->have_establish)) {
        cli_error("%s: --target, --enctype, --ccache, --client-* and "
                  "--establish apply only to --sec krb5, krb5i and krb5p",
                  a->cmd);
        return -1;
    }
    return 0;
}

#ifdef GK5_HAVE_TIRPC
static struct timeval ms_to_timeval(unsigned ms)
{
    struct timeval tv;

    tv.tv_sec = (time_t)(ms / 1000);
    tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
    return tv;
}

/* The AUTH the arguments ask for, installed as clnt->cl_auth.  0, or -1
 * with words in err. */
static int client_auth(const struct client_args *a, CLIENT *clnt, AUTH **out,
                       char *err, size_t err_len)
{
    AUTH *auth = NULL;

    *out = NULL;
    if (a->sec->flavor == GK5_RPC_FLAVOR_SYS) {
        char host[256];

        if (gethostname(host, sizeof(host)) != 0) {
            strcpy(host, "localhost");
        }
        host[sizeof(host) - 1] = '\0';
        auth = authsys_create(host, 0, 0, 0, NULL);
        if (auth == NULL) {
            snprintf(err, err_len, "cannot make an AUTH_SYS credential");
            return -1;
        }
    } else if (a->sec->flavor == GK5_RPC_FLAVOR_NONE) {
        auth = authnone_create();
    } else {
        gk5_rpc_auth_options opts;
        gk5_rpc_error e;

        memset(&opts, 0, sizeof(opts));
        memset(&e, 0, sizeof(e));
        opts.principal = a->client_principal;
        opts.ccache = a->ccache;
        opts.client_keytab = a->client_keytab;
        opts.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
        opts.n_enctypes = a->n_enctypes;
        opts.timeout_ms = a->timeout_ms;
        opts.max_body = (size_t)GK5_ECHO_MAX_OPAQUE + GK5_ECHO_BODY_SLACK;
        opts.establish = a->establish;
        auth = gk5_rpc_auth_create(clnt, a->target, a->sec->svc, &opts, &e);
        if (auth == NULL) {
            snprintf(err, err_len,
                     "cannot establish RPCSEC_GSS %s with %s: "
                     "%s",
                     a->sec->name, a->target,
                     e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
            return -1;
        }
    }
    if (clnt->cl_auth != NULL) {
        auth_destroy(clnt->cl_auth);
    }
    clnt->cl_auth = auth;
    *out = auth;
    return 0;
}

/* "krb5p, enctype aes256-cts-hmac-sha1-96 (18), window 128" or
 * "AUTH_SYS". */
static void describe_auth(const struct client_args *a, AUTH *auth, char *out,
                          size_t len)
{
    gk5_rpc_auth_info info;

    if (a->sec->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        snprintf(out, len, "%s",
                 a->sec->flavor == GK5_RPC_FLAVOR_SYS ? "AUTH_SYS"
                                                      : "AUTH_NONE");
        return;
    }
    memset(&info, 0, sizeof(info));
    if (gk5_rpc_auth_inquire(auth, &info) != 0) {
        snprintf(out, len, "%s, enctype ?", a->sec->name);
        return;
    }
    snprintf(out, len, "%s, enctype %s (%d), window %u", a->sec->name,
             enctype_name(info.enctype), (int)info.enctype,
             (unsigned)info.window);
}

#endif /* GK5_HAVE_TIRPC */

/* ---- gk5's own RPC client ---- */

/* A gk5_rpc_clnt to a->hostport for a's program and security, with up to
 * inflight calls out; 0, or -1 with words in err. */
static int native_connect(const struct client_args *a, uint32_t inflight,
                          gk5_rpc_clnt **out, char *err, size_t err_len)
{
    gk5_rpc_clnt_options opts;

    memset(&opts, 0, sizeof(opts));
    opts.flavor = a->sec->flavor;
    opts.max_inflight = inflight;
    opts.call_timeout_ms = a->timeout_ms;
    opts.gss.principal = a->client_principal;
    opts.gss.ccache = a->ccache;
    opts.gss.client_keytab = a->client_keytab;
    opts.gss.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
    opts.gss.n_enctypes = a->n_enctypes;
    opts.gss.timeout_ms = a->timeout_ms;
    opts.gss.max_body = (size_t)GK5_ECHO_MAX_OPAQUE + GK5_ECHO_BODY_SLACK;
    opts.gss.establish = a->establish;
    return cli_rpc_native_connect(a->hostport, a->prog, a->vers, a->target,
                                  a->sec->svc, a->sec->name, &opts, out, err,
                                  err_len);
}

/* As describe_auth, for gk5's client. */
static void describe_native(const struct client_args *a, gk5_rpc_clnt *clnt,
                            uint32_t inflight, char *out, size_t len)
{
    gk5_rpc_auth_info info;
    char tail[64];

    snprintf(tail, sizeof(tail), ", %u in flight (gk5 transport)", inflight);
    if (a->sec->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        snprintf(out, len, "%s%s",
                 a->sec->flavor == GK5_RPC_FLAVOR_SYS ? "AUTH_SYS"
                                                      : "AUTH_NONE",
                 tail);
    } else if (gk5_rpc_clnt_inquire(clnt, &info) != 0) {
        snprintf(out, len, "%s, enctype ?%s", a->sec->name, tail);
    } else {
        snprintf(out, len, "%s, enctype %s (%d), window %u%s", a->sec->name,
                 enctype_name(info.enctype), (int)info.enctype,
                 (unsigned)info.window, tail);
    }
}

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
    fputs(client_options_help, f);
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

    format_prog(a->prog, progs, sizeof(progs));
    t0 = now_seconds();
    if (native_connect(a, 1, &clnt, err, sizeof(err)) != 0) {
        cli_error("rpc ping: %s", err);
        return CLI_EXIT_FAIL;
    }
    t1 = now_seconds();
    if (gk5_rpc_clnt_call(clnt, GK5_ECHO_PROC_NULL, &none, &res, &e) != 0) {
        cli_error("rpc ping: %s program %s version %u: NULL call: %s",
                  a->hostport, progs, a->vers, e.text);
        goto cleanup;
    }
    t2 = now_seconds();
    if (res.length != 0) {
        cli_error("rpc ping: %s program %s version %u: the NULL call "
                  "returned %zu bytes of results, not none",
                  a->hostport, progs, a->vers, res.length);
        goto cleanup;
    }
    describe_native(a, clnt, 1, desc, sizeof(desc));
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
    t0 = now_seconds();
    if (client_auth(&a, clnt, &auth, err, sizeof(err)) != 0) {
        cli_error("rpc ping: %s", err);
        goto cleanup;
    }
    t1 = now_seconds();
    st = clnt_call(clnt, GK5_ECHO_PROC_NULL, CLI_XDR_PROC(xdr_void), NULL,
                   CLI_XDR_PROC(xdr_void), NULL, ms_to_timeval(a.timeout_ms));
    t2 = now_seconds();
    format_prog(a.prog, progs, sizeof(progs));
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(
            clnt, a.sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? auth : NULL,
            "NULL call", err, sizeof(err));
        cli_error("rpc ping: %s program %s version %u: %s", a.hostport, progs,
                  a.vers, err);
        goto cleanup;
    }
    describe_auth(&a, auth, desc, sizeof(desc));
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

    client_args_init(&a, "rpc ping");
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", client_longopts, NULL)) != -1) {
        int r;

        if (c == OPT_HELP) {
            ping_usage(stdout);
            return CLI_EXIT_OK;
        }
        if (c >= OPT_SIZE && c <= OPT_INFLIGHT) {
            cli_error("rpc ping: option '--%s' applies to 'gk5 rpc echo' "
                      "only",
                      option_name(client_longopts, c));
            fprintf(stderr, "Try 'gk5 rpc ping --help'.\n");
            return CLI_EXIT_USAGE;
        }
        r = take_client_option(&a, c, argv);
        if (r != CLI_EXIT_OK) {
            return r;
        }
    }
    if (client_args_check(&a, argc, argv) != 0) {
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

enum echo_proc { ECHO_ECHO, ECHO_SINK, ECHO_SOURCE, ECHO_NULL };

static const char *const echo_proc_names[] = {"echo", "sink", "source", "null"};
static const uint32_t echo_proc_nums[] = {
    GK5_ECHO_PROC_ECHO, GK5_ECHO_PROC_SINK, GK5_ECHO_PROC_SOURCE,
    GK5_ECHO_PROC_NULL};

struct echo_run {
    enum echo_proc proc;
    size_t size;
    uint64_t max_calls; /* per thread; 0: no limit */
    double seconds;     /* 0: no limit */
    double start;
#ifdef GK5_HAVE_TIRPC
    struct timeval tv;
#endif
    double end;           /* --inflight: when the last reply was checked */
    gk5_rpc_clnt *native; /* gk5's client, shared by the threads; or NULL */
#ifdef GK5_HAVE_TIRPC
    AUTH *auth; /* ours, for the words of a failure; NULL otherwise */
#endif
    atomic_bool stop;
};

struct echo_thread {
    struct echo_run *run;
#ifdef GK5_HAVE_TIRPC
    CLIENT *clnt;
#endif
    unsigned index;
    uint64_t calls;
    double end;
    uint8_t *send, *recv;
    bool failed;
    char why[1024];
    pthread_t tid;
    bool started;
};

/* As echo_one, on gk5's own client (t->send holds 8 + size + 4 bytes, the
 * pattern from byte 4). */
static bool echo_one_native(struct echo_thread *t, uint64_t call)
{
    struct echo_run *r = t->run;
    gk5_buffer args, res = {0, NULL};
    gk5_rpc_error e;
    bool good;

    gk5_echo_source_fill(t->send + 4, r->size < 12 ? r->size : 12);
    if (gk5_echo_args(echo_proc_nums[r->proc], r->size, t->index, call, t->send,
                      8 + r->size + 4, &args) != 0) {
        snprintf(t->why, sizeof(t->why),
                 "thread %u, call %llu: arguments "
                 "do not encode",
                 t->index, (unsigned long long)call + 1);
        return false;
    }
    if (gk5_rpc_clnt_call(r->native, echo_proc_nums[r->proc], &args, &res,
                          &e) != 0) {
        snprintf(t->why, sizeof(t->why),
                 "thread %u, call %llu (%s of %zu bytes): %s", t->index,
                 (unsigned long long)call + 1, echo_proc_names[r->proc],
                 r->size, e.text);
        return false;
    }
    good = gk5_echo_check(echo_proc_nums[r->proc], r->size, t->index, call,
                          &res, t->why, sizeof(t->why));
    gk5_buffer_release(&res);
    return good;
}

#ifdef GK5_HAVE_TIRPC
/* One call of t's proc; false with t->why on any failure or mismatch. */
static bool echo_one(struct echo_thread *t, uint64_t call)
{
    struct echo_run *r = t->run;
    struct cli_rpc_opaque args = {(char *)t->send, (u_int)r->size,
                                  (u_int)r->size};
    struct cli_rpc_opaque res = {(char *)t->recv, 0, (u_int)r->size};
    u_int n = (u_int)r->size, got = 0;
    enum clnt_stat st;
    char what[96];

    snprintf(what, sizeof(what), "thread %u, call %llu (%s of %zu bytes)",
             t->index, (unsigned long long)call + 1, echo_proc_names[r->proc],
             r->size);
    /* Every request differs: a reply to another call cannot pass. */
    if (r->proc != ECHO_SOURCE && r->size > 0) {
        uint8_t stamp[GK5_ECHO_STAMP_SIZE];

        gk5_echo_stamp(stamp, t->index, call);
        memcpy(t->send, stamp, r->size < sizeof(stamp) ? r->size : 12);
    }
    switch (r->proc) {
    case ECHO_ECHO:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc],
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &args,
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &res, r->tv);
        break;
    case ECHO_SINK:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc],
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &args,
                       CLI_XDR_PROC(xdr_u_int), &got, r->tv);
        break;
    case ECHO_NULL:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc], CLI_XDR_PROC(xdr_void),
                       NULL, CLI_XDR_PROC(xdr_void), NULL, r->tv);
        break;
    case ECHO_SOURCE:
    default:
        st =
            clnt_call(t->clnt, echo_proc_nums[r->proc], CLI_XDR_PROC(xdr_u_int),
                      &n, CLI_XDR_PROC(cli_rpc_xdr_opaque), &res, r->tv);
        break;
    }
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(t->clnt, r->auth, what, t->why, sizeof(t->why));
        return false;
    }
    switch (r->proc) {
    case ECHO_NULL:
        break;
    case ECHO_ECHO:
        if (res.len != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the reply has %u bytes, not %zu", what, res.len,
                     r->size);
            return false;
        }
        for (size_t i = 0; i < r->size; i++) {
            if (t->recv[i] != t->send[i]) {
                snprintf(t->why, sizeof(t->why),
                         "%s: the reply differs from the request at byte %zu "
                         "(0x%02x, not 0x%02x)",
                         what, i, t->recv[i], t->send[i]);
                return false;
            }
        }
        break;
    case ECHO_SINK:
        if (got != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the server counted %u bytes, not %zu", what, got,
                     r->size);
            return false;
        }
        break;
    case ECHO_SOURCE: {
        size_t bad;

        if (res.len != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the reply has %u bytes, not %zu", what, res.len,
                     r->size);
            return false;
        }
        bad = gk5_echo_source_check(t->recv, r->size);
        if (bad != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: byte %zu of the reply is 0x%02x, not the pattern's "
                     "0x%02x",
                     what, bad, t->recv[bad], gk5_echo_source_byte(bad));
            return false;
        }
        break;
    }
    }
    return true;
}

#endif /* GK5_HAVE_TIRPC */

static void *echo_thread_main(void *p)
{
    struct echo_thread *t = p;
    struct echo_run *r = t->run;

    for (;;) {
        if (atomic_load(&r->stop) ||
            (r->max_calls > 0 && t->calls >= r->max_calls)) {
            break;
        }
        if (r->seconds > 0 && now_seconds() - r->start >= r->seconds) {
            break;
        }
#ifdef GK5_HAVE_TIRPC
        bool good = r->native != NULL ? echo_one_native(t, t->calls)
                                      : echo_one(t, t->calls);
#else
        bool good = echo_one_native(t, t->calls);
#endif
        if (!good) {
            t->failed = true;
            atomic_store(&r->stop, true);
            break;
        }
        t->calls++;
    }
    t->end = now_seconds();
    return NULL;
}

/* ---- gk5 rpc echo --inflight: gk5's own transport ---- */

/* One connection of gk5's own client, `inflight` calls kept out by this
 * thread.  Prints as the libtirpc path does; 0 or -1 with err. */
static int echo_inflight(const struct client_args *a, struct echo_run *r,
                         uint32_t inflight, uint64_t *total, char *err,
                         size_t err_len, char *desc, size_t desc_len)
{
    gk5_rpc_clnt *clnt = NULL;
    gk5_rpc_error e;
    uint64_t *ids = NULL, *nums = NULL, sent = 0, done = 0;
    uint8_t *buf = NULL;
    size_t cap = 8 + r->size + 4;
    int ret = -1;

    *total = 0;
    ids = calloc(inflight, sizeof(*ids));
    nums = calloc(inflight, sizeof(*nums));
    buf = malloc(cap);
    if (ids == NULL || nums == NULL || buf == NULL) {
        snprintf(err, err_len, "out of memory");
        goto cleanup;
    }
    if (native_connect(a, inflight, &clnt, err, err_len) != 0) {
        goto cleanup;
    }
    gk5_echo_source_fill(buf + 4, r->size);
    r->start = now_seconds();
    for (;;) {
        bool more = !atomic_load(&r->stop) &&
                    (r->max_calls == 0 || sent < r->max_calls) &&
                    (r->seconds <= 0 || now_seconds() - r->start < r->seconds);
        if (more && sent - done < inflight) {
            gk5_buffer args;
            uint32_t i = (uint32_t)(sent % inflight);
            gk5_echo_source_fill(buf + 4, r->size < 12 ? r->size : 12);
            if (gk5_echo_args(echo_proc_nums[r->proc], r->size, 0, sent, buf,
                              cap, &args) != 0) {
                snprintf(err, err_len, "call %llu: arguments do not encode",
                         (unsigned long long)sent + 1);
                goto cleanup;
            }
            if (gk5_rpc_clnt_send(clnt, echo_proc_nums[r->proc], &args, &ids[i],
                                  &e) != 0) {
                snprintf(err, err_len, "call %llu (%s of %zu bytes): %s",
                         (unsigned long long)sent + 1, echo_proc_names[r->proc],
                         r->size, e.text);
                goto cleanup;
            }
            nums[i] = sent++;
            continue;
        }
        if (done == sent) {
            break;
        }
        /* The oldest call out. */
        uint32_t i = (uint32_t)(done % inflight);
        gk5_buffer results = {0, NULL};
        if (gk5_rpc_clnt_wait(clnt, ids[i], &results, &e) != 0) {
            snprintf(err, err_len, "call %llu (%s of %zu bytes): %s",
                     (unsigned long long)nums[i] + 1, echo_proc_names[r->proc],
                     r->size, e.text);
            done++;
            goto cleanup;
        }
        done++;
        bool good = gk5_echo_check(echo_proc_nums[r->proc], r->size, 0, nums[i],
                                   &results, err, err_len);
        gk5_buffer_release(&results);
        if (!good) {
            goto cleanup;
        }
        r->end = now_seconds();
    }
    *total = done;
    describe_native(a, clnt, inflight, desc, desc_len);
    ret = 0;

cleanup:
    /* Calls still out are collected before the connection goes. */
    while (clnt != NULL && done < sent) {
        gk5_buffer results = {0, NULL};
        if (gk5_rpc_clnt_wait(clnt, ids[done % inflight], &results, &e) == 0) {
            gk5_buffer_release(&results);
        }
        done++;
    }
    gk5_rpc_clnt_free(clnt);
    free(buf);
    free(ids);
    free(nums);
    return ret;
}

static void echo_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 rpc echo HOST:PORT [--program N --version N] [--sec "
            "S] [--target T]\n"
            "                    [--proc echo|sink|source|null] [--size BYTES] "
            "[--seconds S]\n"
            "                    [--calls N] [--threads N] [client "
            "options]\n"
            "\n"
            "Call the echo program of 'gk5 rpc serve' for S seconds (or N "
            "calls) and check\nevery reply: ECHO sends BYTES and wants them "
            "back, SINK sends them and wants\ntheir count, SOURCE asks for "
            "BYTES of its pattern (byte i = i %% 251).  Prints\ncalls, calls "
            "per second, MB/s (10^6 payload bytes each way per second) "
            "and\nthe enctype.  With --threads N every thread has its own "
            "connection; all\nshare one AUTH (one RPCSEC_GSS context).\n"
            "\n"
            "  --program N, --version N\n"
            "                        default: 0x20000099 and 1, the echo "
            "program\n"
            "  --proc P              echo (default), sink, source, or null "
            "(procedure 0;\n"
            "                        --size is ignored)\n"
            "  --size BYTES          payload per call, with an optional k or "
            "m suffix (KiB,\n"
            "                        MiB): 4k, 64k, 1m; default 1024; at most "
            "64m\n"
            "  --seconds S           how long to run (fractions allowed); "
            "default 2, or no\n"
            "                        limit with --calls\n"
            "  --calls N             stop after N calls per thread (and at "
            "--seconds, if\n"
            "                        given)\n"
            "  --threads N           connections and threads, 1..%d; "
            "default 1\n"
            "  --inflight N          one connection of gk5's own RPC client "
            "(not libtirpc's)\n"
            "                        keeping N calls outstanding (1..%d), "
            "their replies\n"
            "                        matched by XID; not with --threads\n",
            RPC_MAX_THREADS, RPC_MAX_INFLIGHT);
    fputs(client_options_help, f);
    fprintf(f, "\nExit status: 0 every call succeeded and every reply was "
               "right; 1 a call\nfailed or a reply was wrong (which call and "
               "why is printed); 2 bad usage.\n");
}

static int rpc_echo(int argc, char **argv)
{
    struct client_args a;
    struct echo_run run;
    struct echo_thread *threads = NULL;
    uint32_t nthreads = 1, calls = 0, inflight = 0;
#ifdef GK5_HAVE_TIRPC
    AUTH *auth = NULL;
#endif
    char err[1024], desc[256];
    double seconds = 0, end = 0, elapsed;
    uint64_t total = 0;
    bool have_seconds = false;
    int c, ret = CLI_EXIT_FAIL;

    client_args_init(&a, "rpc echo");
    a.prog = GK5_ECHO_PROG;
    a.vers = GK5_ECHO_VERS;
    memset(&run, 0, sizeof(run));
    run.proc = ECHO_ECHO;
    run.size = 1024;
    atomic_init(&run.stop, false);
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", client_longopts, NULL)) != -1) {
        int r;

        switch (c) {
        case OPT_HELP:
            echo_usage(stdout);
            return CLI_EXIT_OK;
        case OPT_SIZE:
            if (cli_parse_size(optarg, GK5_ECHO_MAX_OPAQUE, &run.size) != 0) {
                cli_error("rpc echo: --size: '%s' is not a size up to 64m "
                          "(BYTES, or with a k or m suffix)",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_PROC: {
            bool found = false;

            for (size_t i = 0; i < GK5_ARRAY_SIZE(echo_proc_names); i++) {
                if (strcmp(optarg, echo_proc_names[i]) == 0) {
                    run.proc = (enum echo_proc)i;
                    found = true;
                }
            }
            if (!found) {
                cli_error("rpc echo: --proc: '%s' is not echo, sink, source "
                          "or null",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        }
        case OPT_SECONDS:
            if (parse_seconds(optarg, &seconds) != 0) {
                cli_error("rpc echo: --seconds: '%s' is not a positive "
                          "number of seconds",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            have_seconds = true;
            continue;
        case OPT_THREADS:
            if (parse_num(optarg, &nthreads) != 0 || nthreads == 0 ||
                nthreads > RPC_MAX_THREADS) {
                cli_error("rpc echo: --threads: '%s' is not a number from 1 "
                          "to %d",
                          optarg, RPC_MAX_THREADS);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_CALLS:
            if (parse_num(optarg, &calls) != 0 || calls == 0) {
                cli_error("rpc echo: --calls: '%s' is not a positive number",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_INFLIGHT:
            if (parse_num(optarg, &inflight) != 0 || inflight == 0 ||
                inflight > RPC_MAX_INFLIGHT) {
                cli_error("rpc echo: --inflight: '%s' is not a number from 1 "
                          "to %d",
                          optarg, RPC_MAX_INFLIGHT);
                return CLI_EXIT_USAGE;
            }
            continue;
        default:
            break;
        }
        r = take_client_option(&a, c, argv);
        if (r != CLI_EXIT_OK) {
            return r;
        }
    }
    if (client_args_check(&a, argc, argv) != 0) {
        return CLI_EXIT_USAGE;
    }
    if (run.proc == ECHO_NULL) {
        run.size = 0;
    }
    run.max_calls = calls;
    run.seconds = have_seconds ? seconds : (calls > 0 ? 0 : 2.0);
#ifdef GK5_HAVE_TIRPC
    run.tv = ms_to_timeval(a.timeout_ms);
#endif
    if (inflight > 0 && nthreads > 1) {
        cli_error("rpc echo: --inflight keeps calls out on one connection "
                  "from one thread: not with --threads");
        return CLI_EXIT_USAGE;
    }
    if (inflight > 0 || a.native) {
        /* One connection of gk5's own client: N calls from one thread, or
         * one each from N threads. */
        if (a.native && inflight == 0) {
            goto threads;
        }
        if (echo_inflight(&a, &run, inflight, &total, err, sizeof(err), desc,
                          sizeof(desc)) != 0) {
            cli_error("rpc echo: %s", err);
            return CLI_EXIT_FAIL;
        }
        end = run.end;
        goto report;
    }

threads:
    threads = calloc(nthreads, sizeof(*threads));
    if (threads == NULL) {
        cli_error("rpc echo: out of memory");
        goto cleanup;
    }
    if (a.native &&
        native_connect(&a, nthreads, &run.native, err, sizeof(err)) != 0) {
        cli_error("rpc echo: %s", err);
        goto cleanup;
    }
    for (uint32_t i = 0; i < nthreads; i++) {
        struct echo_thread *t = &threads[i];
        /* gk5's client takes the arguments XDR-encoded: room for the
         * length word and padding around the payload. */
        size_t room = a.native ? 8 + run.size + 4 : run.size;

        t->run = &run;
        t->index = i;
        t->send = malloc(room > 0 ? room : 1);
        t->recv = malloc(run.size > 0 ? run.size : 1);
        if (t->send == NULL || t->recv == NULL) {
            cli_error("rpc echo: out of memory");
            goto cleanup;
        }
        /* The pattern for ECHO and SINK too: easy to recognise in a
         * capture; the first 12 bytes are stamped per call. */
        gk5_echo_source_fill(t->send + (a.native ? 4 : 0), run.size);
        if (a.native) {
            continue;
        }
#ifdef GK5_HAVE_TIRPC
        if (cli_rpc_connect(a.hostport, a.prog, a.vers, &t->clnt, err,
                            sizeof(err)) != 0) {
            cli_error("rpc echo: %s", err);
            goto cleanup;
        }
        if (i == 0) {
            if (client_auth(&a, t->clnt, &auth, err, sizeof(err)) != 0) {
                cli_error("rpc echo: %s", err);
                goto cleanup;
            }
        } else {
            auth_destroy(t->clnt->cl_auth);
            t->clnt->cl_auth = auth;
        }
#endif
    }
#ifdef GK5_HAVE_TIRPC
    run.auth = a.sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? auth : NULL;
#endif

    run.start = now_seconds();
    for (uint32_t i = 0; i < nthreads; i++) {
        int e = pthread_create(&threads[i].tid, NULL, echo_thread_main,
                               &threads[i]);

        if (e != 0) {
            cli_error("rpc echo: cannot start thread %u: %s", i, strerror(e));
            atomic_store(&run.stop, true);
            break;
        }
        threads[i].started = true;
    }
    ret = CLI_EXIT_OK;
    for (uint32_t i = 0; i < nthreads; i++) {
        if (!threads[i].started) {
            ret = CLI_EXIT_FAIL;
            continue;
        }
        pthread_join(threads[i].tid, NULL);
        total += threads[i].calls;
        if (threads[i].end > end) {
            end = threads[i].end;
        }
    }
    for (uint32_t i = 0; i < nthreads; i++) {
        if (threads[i].failed) {
            cli_error("rpc echo: %s", threads[i].why);
            ret = CLI_EXIT_FAIL;
        }
    }
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    if (run.native != NULL) {
        describe_native(&a, run.native, nthreads, desc, sizeof(desc));
    }
#ifdef GK5_HAVE_TIRPC
    else {
        describe_auth(&a, auth, desc, sizeof(desc));
    }
#endif

report:
    ret = CLI_EXIT_OK;
    elapsed = end - run.start;
    if (elapsed <= 0) {
        elapsed = 1e-9;
    }
    printf("gk5 rpc echo: %s: %s %zu bytes, %u thread%s: %llu calls in %.2f "
           "s, %.0f calls/s, %.2f MB/s %s\n",
           desc, echo_proc_names[run.proc], run.size, nthreads,
           nthreads == 1 ? "" : "s", (unsigned long long)total, elapsed,
           (double)total / elapsed,
           (double)total * (double)run.size / elapsed / 1e6,
           run.proc == ECHO_ECHO     ? "each way"
           : run.proc == ECHO_SINK   ? "to the server"
           : run.proc == ECHO_SOURCE ? "from the server"
                                     : "(no payload)");
    if (fflush(stdout) != 0) {
        ret = CLI_EXIT_FAIL;
    }

cleanup:
    gk5_rpc_clnt_free(run.native);
#ifdef GK5_HAVE_TIRPC
    if (auth != NULL) {
        auth_destroy(auth);
    }
#endif
    if (threads != NULL) {
        for (uint32_t i = 0; i < nthreads; i++) {
#ifdef GK5_HAVE_TIRPC
            if (threads[i].clnt != NULL) {
                threads[i].clnt->cl_auth = NULL;
                clnt_destroy(threads[i].clnt);
            }
#endif
            free(threads[i].send);
            free(threads[i].recv);
        }
        free(threads);
    }
    return ret;
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
        const struct sec_desc *s = find_sec(p, n);

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
    for (size_t i = 0; i < GK5_ARRAY_SIZE(secs); i++) {
        if ((*flavors & secs[i].allow) != 0) {
            size_t used = strlen(text);

            snprintf(text + used, text_len - used, "%s%s", used ? "," : "",
                     secs[i].name);
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
        if (parse_num(arg, &n) != 0 || n == 0 || n > 1024) {
            return cli_bad_number("rpc serve", "--threads", arg,
                                  "from 1 to 1024");
        }
        t->threads = n;
        return 0;
    case OPT_MAX_CONNECTIONS:
    case OPT_MAX_PER_ADDRESS:
    case OPT_MAX_INFLIGHT:
        if (parse_num(arg, &n) != 0 || n == 0) {
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
            if (parse_num(optarg, c == OPT_PROGRAM ? &prog.prog : &prog.vers) !=
                0) {
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
            if (parse_num(optarg, &window) != 0 || window == 0 ||
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

    format_prog(prog.prog, progs, sizeof(progs));
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
