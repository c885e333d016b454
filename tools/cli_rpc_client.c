/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The client side of gk5 rpc ping and echo, shared by gk5 and gk5-bench:
 * see cli_rpc_client.h.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/crypto.h>

#include "common/util.h"
#include "cli.h"
#include "cli_rpc_client.h"
#include "echo.h"

/* ---- Small parsers ---- */

/* Decimal or 0x hex, 0..UINT32_MAX; 0 or -1. */
int rpc_parse_num(const char *s, uint32_t *out)
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

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

/* Program numbers of the user-defined range read better in hex. */
void rpc_format_prog(uint32_t prog, char *out, size_t len)
{
    if (prog >= 0x20000000u) {
        snprintf(out, len, "0x%08x", prog);
    } else {
        snprintf(out, len, "%u", prog);
    }
}

/* ---- Security flavours ---- */

const struct sec_desc rpc_secs[] = {
    {"none", GK5_RPC_FLAVOR_NONE, 0, GK5_RPC_ALLOW_NONE},
    {"sys", GK5_RPC_FLAVOR_SYS, 0, GK5_RPC_ALLOW_SYS},
    {"krb5", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_NONE,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE)},
    {"krb5i", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_INTEGRITY,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY)},
    {"krb5p", GK5_RPC_FLAVOR_RPCSEC_GSS, GK5_RPC_SVC_PRIVACY,
     GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY)},
};
const size_t rpc_n_secs = GK5_ARRAY_SIZE(rpc_secs);

const struct sec_desc *rpc_find_sec(const char *name, size_t n)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(rpc_secs); i++) {
        if (strlen(rpc_secs[i].name) == n &&
            strncmp(rpc_secs[i].name, name, n) == 0) {
            return &rpc_secs[i];
        }
    }
    return NULL;
}

/* ---- Client options, shared by ping and echo ---- */

/* ping and echo share one table; ping refuses echo's own options. */
const struct option rpc_client_longopts[] = {
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

const char rpc_client_options_help[] =
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

void rpc_client_args_init(struct client_args *a, const char *cmd)
{
    memset(a, 0, sizeof(*a));
    a->cmd = cmd;
    a->sec = rpc_find_sec("sys", 3);
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
    if (rpc_parse_num(arg, v) != 0) {
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
int rpc_take_client_option(struct client_args *a, int c, char **argv)
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
        a->sec = rpc_find_sec(arg, strlen(arg));
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
        if (rpc_parse_num(arg, &v) != 0 || v == 0) {
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
int rpc_client_args_check(struct client_args *a, int argc, char **argv)
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
struct timeval rpc_ms_to_timeval(unsigned ms)
{
    struct timeval tv;

    tv.tv_sec = (time_t)(ms / 1000);
    tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
    return tv;
}

/* The AUTH the arguments ask for, installed as clnt->cl_auth.  0, or -1
 * with words in err. */
int rpc_client_auth(const struct client_args *a, CLIENT *clnt, AUTH **out,
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
void rpc_describe_auth(const struct client_args *a, AUTH *auth, char *out,
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
int rpc_native_connect(const struct client_args *a, uint32_t inflight,
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

/* As rpc_describe_auth, for gk5's client. */
void rpc_describe_native(const struct client_args *a, gk5_rpc_clnt *clnt,
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
