/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The options of `gk5 nfs4 ls|cat|put|rm|bench|storm`: one table, one
 * parser and one usage text for gk5 and for gk5-bench, which runs nfs4
 * bench (bench/nfs4.c), so that both say the same words.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/crypto.h>

#include "client.h"
#include "cli.h"

/* ---- options ---- */

void nfs4_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 nfs4 ls HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 cat HOST:PORT:/PATH [--inflight N] [options]\n"
            "       gk5 nfs4 put LOCALFILE HOST:PORT:/PATH [--inflight N] "
            "[options]\n"
            "       gk5 nfs4 rm HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 bench HOST:PORT:/DIR [--sec LIST] [--size LIST]\n"
            "                      [--seconds S] [--threads N] "
            "[--inflight N]\n"
            "                      [--via gk5|libtirpc]\n"
            "       gk5 nfs4 storm HOST:PORT:/DIR [--contexts N] "
            "[--connections C]\n"
            "                      [--repeat R] [--server-pid PID]\n"
            "\n"
            "An NFSv4.0 client (RFC 7530) with gk5's RPCSEC_GSS: list a "
            "directory, print\na file, store a local file (- for stdin), "
            "remove a file.\n"
            "\n"
            "Options:\n"
            "  --sec S               sys, krb5, krb5i or krb5p (default "
            "krb5p)\n"
            "  --target SERVICE@HOST the server's service name (default "
            "nfs@HOST)\n"
            "  --rsize N, --wsize N  bytes per READ / WRITE (default 1 MiB, "
            "at most 4 MiB)\n"
            "  --enctype LIST        session-key enctypes to ask for "
            "(names or numbers)\n"
            "  --ccache NAME         credential cache (FILE:path; others "
            "only with\n"
            "                        --establish mit); default: KRB5CCNAME, "
            "else\n"
            "                        /tmp/krb5cc_UID\n"
            "  --client-keytab FILE  initial credentials from this keytab\n"
            "  --client-principal NAME\n"
            "  --timeout MS          per call (default 30000)\n"
            "  --establish native|mit\n"
            "                        gk5's own initiator (default) or MIT's "
            "makes the\n"
            "                        contexts\n"
            "  --transport gk5|libtirpc\n"
            "                        gk5's own RPC client (one connection, "
            "replies matched\n"
            "                        by XID) or libtirpc's clnt_vc with gk5's "
            "AUTH; default:\n"
            "                        libtirpc when gk5 is built with it "
            "(storm: libtirpc)\n"
            "  --inflight N          put, cat, bench: keep up to N (1 to 1024) "
            "WRITEs (put),\n"
            "                        READs (cat) or calls (bench) out on one "
            "connection\n"
            "                        of gk5's own client (implies --transport "
            "gk5)\n"
            "bench: WRITE and READ MB/s and GETATTR calls/s in DIR, N "
            "threads (one\n"
            "connection each, one call in flight, or M with --inflight M), "
            "for each\n"
            "service of --sec LIST (default sys,krb5,krb5i,krb5p) and size of "
            "--size LIST\n"
            "(default 4k,64k,1m), as ratios to sys; --via libtirpc measures "
            "libtirpc's\n"
            "own MIT-based client (credentials: KRB5CCNAME, or "
            "--client-keytab).\n"
            "storm: N krb5p contexts (default 1000) made as fast as C "
            "connections\n"
            "(default 4, one thread each) can, by gk5's own initiator, the "
            "service ticket\n"
            "in a FILE ccache (--ccache, or got once with --client-keytab), "
            "R times\n"
            "(default 1): contexts/s and, with --server-pid, the server's "
            "RSS and CPU per\n"
            "context.  Each context then WRITEs and READs back once in DIR "
            "(untimed); all\n"
            "stay open until the end, then are destroyed.\n"
            "Exit status: 0 success, 1 the server or the security layer "
            "refused (the\nNFS4ERR or RPC error in words), 2 bad usage.\n");
}

enum {
    OPT_SEC = 256,
    OPT_TARGET,
    OPT_RSIZE,
    OPT_WSIZE,
    OPT_ENCTYPE,
    OPT_CCACHE,
    OPT_CLIENT_KEYTAB,
    OPT_CLIENT_PRINCIPAL,
    OPT_TIMEOUT,
    OPT_SIZE,
    OPT_SECONDS,
    OPT_THREADS,
    OPT_VIA,
    OPT_ESTABLISH,
    OPT_TRANSPORT,
    OPT_INFLIGHT,
    OPT_CONTEXTS, /* OPT_CONTEXTS to OPT_SERVER_PID: nfs4 storm's own */
    OPT_CONNECTIONS,
    OPT_REPEAT,
    OPT_SERVER_PID,
    OPT_HELP
};

/* Its own table and parse_enctypes(): they look like rpc ping's and
 * echo's (tools/cli_rpc_client.c), but the options differ and so do the
 * words of the enctype-list errors, which the CLI tests hold as they are;
 * so they are not shared. */
static const struct option nfs4_options[] = {
    {"sec", required_argument, NULL, OPT_SEC},
    {"target", required_argument, NULL, OPT_TARGET},
    {"rsize", required_argument, NULL, OPT_RSIZE},
    {"wsize", required_argument, NULL, OPT_WSIZE},
    {"enctype", required_argument, NULL, OPT_ENCTYPE},
    {"ccache", required_argument, NULL, OPT_CCACHE},
    {"client-keytab", required_argument, NULL, OPT_CLIENT_KEYTAB},
    {"client-principal", required_argument, NULL, OPT_CLIENT_PRINCIPAL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"size", required_argument, NULL, OPT_SIZE},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"via", required_argument, NULL, OPT_VIA},
    {"establish", required_argument, NULL, OPT_ESTABLISH},
    {"transport", required_argument, NULL, OPT_TRANSPORT},
    {"inflight", required_argument, NULL, OPT_INFLIGHT},
    {"contexts", required_argument, NULL, OPT_CONTEXTS},
    {"connections", required_argument, NULL, OPT_CONNECTIONS},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"server-pid", required_argument, NULL, OPT_SERVER_PID},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* 0, or -1 with the message (naming the item at fault) printed. */
static int parse_enctypes(struct nfs4_args *a, const char *list)
{
    char copy[256];

    if (strlen(list) >= sizeof(copy)) {
        cli_error("%s: --enctype: list too long", a->cmd);
        return -1;
    }
    strcpy(copy, list);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        int32_t et;
        if (a->n_enctypes == NFS4_MAX_ENCTYPES) {
            cli_error("%s: --enctype: at most %d enctypes", a->cmd,
                      NFS4_MAX_ENCTYPES);
            return -1;
        }
        if (gk5_enctype_from_name(t, &et) != GK5_OK) {
            cli_error("%s: --enctype: unknown enctype '%s' (see 'gk5 "
                      "enctypes')",
                      a->cmd, t);
            return -1;
        }
        a->enctypes[a->n_enctypes++] = et;
    }
    if (a->n_enctypes == 0) {
        cli_error("%s: --enctype: empty list", a->cmd);
        return -1;
    }
    return 0;
}

/* HOST:PORT:/PATH */
static int parse_location(struct nfs4_args *a, const char *loc)
{
    const char *slash = strstr(loc, ":/");
    const char *colon;
    size_t hp;

    if (slash == NULL) {
        return -1;
    }
    hp = (size_t)(slash - loc);
    if (hp == 0 || hp >= sizeof(a->hostport) ||
        strlen(slash + 1) >= sizeof(a->path)) {
        return -1;
    }
    memcpy(a->hostport, loc, hp);
    a->hostport[hp] = '\0';
    strcpy(a->path, slash + 1);
    colon = strrchr(a->hostport, ':');
    if (colon == NULL || colon == a->hostport || colon[1] == '\0' ||
        (size_t)(colon - a->hostport) >= sizeof(a->host)) {
        return -1;
    }
    memcpy(a->host, a->hostport, (size_t)(colon - a->hostport));
    a->host[colon - a->hostport] = '\0';
    return 0;
}

int nfs4_cmdline_parse(int op, int argc, char **argv, struct nfs4_cmdline *cl)
{
    struct nfs4_args *a = &cl->a;
    bool bench = op == NFS4_BENCH, storm = op == NFS4_STORM;
    bool have_transport = false;
    int opt;

#ifndef GK5_HAVE_TIRPC
    if (storm) {
        cli_error("nfs4 storm: it makes many RPCSEC_GSS contexts on each "
                  "connection (gk5's AUTHs on one libtirpc CLIENT), and this "
                  "gk5 was built without libtirpc (-Dtirpc=disabled)");
        return CLI_EXIT_USAGE;
    }
#endif
    memset(cl, 0, sizeof(*cl));
    cl->seconds = 2;
    cl->threads = 1;
    cl->storm = (struct storm_opts){1000, 4, 1, 0};
    snprintf(cl->sec_list, sizeof(cl->sec_list), "sys,krb5,krb5i,krb5p");
    snprintf(cl->size_list, sizeof(cl->size_list), "4k,64k,1m");
    snprintf(cl->cmd_name, sizeof(cl->cmd_name), "nfs4 %s", argv[0]);
    a->cmd = cl->cmd_name;
    a->sec_name = "krb5p";
    a->svc = GK5_RPC_SVC_PRIVACY;
    a->rsize = a->wsize = NFS4_DEFAULT_IO;
    a->timeout_ms = NFS4_TIMEOUT_MS;
#ifndef GK5_HAVE_TIRPC
    a->native = true; /* the only client there is */
#endif
    /* Options may follow the operands: getopt permutes the subcommand's
     * own argv (optind 0 starts it afresh). */
    opterr = 0;
    optind = 0;
    /* ':' first: a missing value is reported as such (cli_option_error),
     * not as an unknown option. */
    while ((opt = getopt_long(argc, argv, ":", nfs4_options, NULL)) != -1) {
        uint32_t v;
        if (!storm && opt >= OPT_CONTEXTS && opt <= OPT_SERVER_PID) {
            for (const struct option *o = nfs4_options; o->name != NULL; o++) {
                if (o->val == opt) {
                    cli_error("%s: --%s applies to nfs4 storm", a->cmd,
                              o->name);
                }
            }
            return CLI_EXIT_USAGE;
        }
        switch (opt) {
        case OPT_SEC:
            if (bench) {
                if (strlen(optarg) >= sizeof(cl->sec_list)) {
                    cli_error("%s: --sec: list too long", a->cmd);
                    return CLI_EXIT_USAGE;
                }
                strcpy(cl->sec_list, optarg);
                break;
            }
            a->sec_name = optarg;
            a->sys = strcmp(optarg, "sys") == 0;
            if (!a->sys && gk5_rpc_service_parse(optarg, &a->svc) != 0) {
                cli_error("%s: --sec: '%s' is not one of sys, krb5, krb5i, "
                          "krb5p",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_TARGET:
            if (strchr(optarg, '@') == NULL && strchr(optarg, '/') == NULL) {
                cli_error("%s: --target: '%s' is not SERVICE@HOST", a->cmd,
                          optarg);
                return CLI_EXIT_USAGE;
            }
            a->target = optarg;
            break;
        case OPT_RSIZE:
        case OPT_WSIZE:
            if (nfs4_parse_io_size(optarg, opt == OPT_RSIZE ? &a->rsize
                                                            : &a->wsize) != 0) {
                cli_error("%s: --%s: '%s' is not a size from 1 byte to 4m",
                          a->cmd, opt == OPT_RSIZE ? "rsize" : "wsize", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_ENCTYPE:
            if (parse_enctypes(a, optarg) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_CCACHE:
            a->ccache = optarg;
            break;
        case OPT_CLIENT_KEYTAB:
            a->client_keytab = optarg;
            break;
        case OPT_CLIENT_PRINCIPAL:
            a->client_principal = optarg;
            break;
        case OPT_ESTABLISH:
            if (cli_rpc_parse_establish(a->cmd, optarg, &a->establish) != 0) {
                return CLI_EXIT_USAGE;
            }
            a->have_establish = true;
            break;
        case OPT_TIMEOUT:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0) {
                cli_error("%s: --timeout: '%s' is not a positive number of "
                          "milliseconds",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            a->timeout_ms = v;
            break;
        case OPT_TRANSPORT:
            if (strcmp(optarg, "gk5") == 0) {
                a->native = true;
            } else if (strcmp(optarg, "libtirpc") == 0) {
#ifdef GK5_HAVE_TIRPC
                a->native = false;
#else
                cli_error("%s: --transport libtirpc: this gk5 was built "
                          "without libtirpc (Debian's libtirpc links MIT's "
                          "GSS-API, and this build has no MIT krb5): gk5's "
                          "own client only",
                          a->cmd);
                return CLI_EXIT_USAGE;
#endif
            } else {
                cli_error("%s: --transport: '%s' is not gk5 or libtirpc",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            have_transport = true;
            break;
        case OPT_INFLIGHT:
            if (op != NFS4_PUT && op != NFS4_CAT && !bench) {
                cli_error("%s: --inflight applies to nfs4 put, cat and bench",
                          a->cmd);
                return CLI_EXIT_USAGE;
            }
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > NFS4_MAX_INFLIGHT) {
                cli_error("%s: --inflight: '%s' is not a number from 1 to %u",
                          a->cmd, optarg, NFS4_MAX_INFLIGHT);
                return CLI_EXIT_USAGE;
            }
            a->inflight = v;
            break;
        case OPT_SIZE:
            if (!bench || strlen(optarg) >= sizeof(cl->size_list)) {
                cli_error("%s: --size applies to nfs4 bench (a list such as "
                          "4k,64k,1m)",
                          a->cmd);
                return CLI_EXIT_USAGE;
            }
            strcpy(cl->size_list, optarg);
            break;
        case OPT_SECONDS: {
            char *end;
            cl->seconds = strtod(optarg, &end);
            if (!bench || *end != '\0' || !(cl->seconds > 0) ||
                cl->seconds > 3600) {
                cli_error("%s: --seconds: '%s' is not a time from 0 to 3600 s "
                          "(nfs4 bench)",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        }
        case OPT_THREADS:
            if (!bench || cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > BENCH_MAX_THREADS) {
                cli_error("%s: --threads: '%s' is not 1 to %d (nfs4 bench)",
                          a->cmd, optarg, BENCH_MAX_THREADS);
                return CLI_EXIT_USAGE;
            }
            cl->threads = v;
            break;
        case OPT_VIA:
            if (!bench || (strcmp(optarg, "gk5") != 0 &&
                           strcmp(optarg, "libtirpc") != 0)) {
                cli_error("%s: --via: '%s' is not gk5 or libtirpc (nfs4 "
                          "bench)",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            a->via_libtirpc = strcmp(optarg, "libtirpc") == 0;
#ifndef GK5_HAVE_MIT
            if (a->via_libtirpc) {
                cli_error("%s: --via libtirpc: libtirpc's RPCSEC_GSS client "
                          "runs on MIT's GSS-API, and this gk5 was built "
                          "without MIT krb5 (-Dmit=disabled)",
                          a->cmd);
                return CLI_EXIT_USAGE;
            }
#endif
#ifndef GK5_HAVE_TIRPC
            if (a->via_libtirpc) {
                cli_error("%s: --via libtirpc: this gk5 was built without "
                          "libtirpc (-Dtirpc=disabled)",
                          a->cmd);
                return CLI_EXIT_USAGE;
            }
#endif
            break;
        case OPT_CONTEXTS:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_CONTEXTS) {
                cli_error("%s: --contexts: '%s' is not 1 to %u (nfs4 storm)",
                          a->cmd, optarg, STORM_MAX_CONTEXTS);
                return CLI_EXIT_USAGE;
            }
            cl->storm.contexts = v;
            break;
        case OPT_CONNECTIONS:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_CONNECTIONS) {
                cli_error("%s: --connections: '%s' is not 1 to %d (nfs4 "
                          "storm)",
                          a->cmd, optarg, STORM_MAX_CONNECTIONS);
                return CLI_EXIT_USAGE;
            }
            cl->storm.connections = v;
            break;
        case OPT_REPEAT:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_REPEAT) {
                cli_error("%s: --repeat: '%s' is not 1 to %u (nfs4 storm)",
                          a->cmd, optarg, STORM_MAX_REPEAT);
                return CLI_EXIT_USAGE;
            }
            cl->storm.repeat = v;
            break;
        case OPT_SERVER_PID:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > INT32_MAX) {
                cli_error("%s: --server-pid: '%s' is not a process id (nfs4 "
                          "storm)",
                          a->cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            cl->storm.server_pid = (long)v;
            break;
        case OPT_HELP:
            nfs4_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(a->cmd, opt, argv);
        }
    }
    if (op == NFS4_PUT) {
        if (optind >= argc) {
            cli_error("%s: missing LOCALFILE", a->cmd);
            return CLI_EXIT_USAGE;
        }
        cl->local = argv[optind++];
    }
    if (optind >= argc) {
        cli_error("%s: missing HOST:PORT:/PATH", a->cmd);
        return CLI_EXIT_USAGE;
    }
    if (parse_location(a, argv[optind]) != 0) {
        cli_error("%s: '%s' is not HOST:PORT:/PATH", a->cmd, argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (++optind < argc) {
        cli_error("%s: unexpected argument '%s'", a->cmd, argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!bench && a->sys &&
        (a->target != NULL || a->n_enctypes > 0 || a->ccache != NULL ||
         a->client_keytab != NULL || a->client_principal != NULL ||
         a->have_establish)) {
        cli_error("%s: --target, --enctype, --ccache, --client-* and "
                  "--establish apply only to --sec krb5, krb5i and krb5p",
                  a->cmd);
        return CLI_EXIT_USAGE;
    }
    if (a->inflight > 0) {
        if (have_transport && !a->native) {
            cli_error("%s: --inflight keeps calls out on gk5's own client: "
                      "not with --transport libtirpc",
                      a->cmd);
            return CLI_EXIT_USAGE;
        }
        a->native = true;
    }
    if (a->via_libtirpc) {
        if (a->native) {
            cli_error("%s: --via libtirpc is libtirpc's own RPCSEC_GSS "
                      "client: not with --transport gk5 or --inflight",
                      a->cmd);
            return CLI_EXIT_USAGE;
        }
    }
    if (storm) {
        if (have_transport && a->native) {
            cli_error("%s: --transport gk5: the storm makes many contexts on "
                      "each connection, as gk5's AUTHs on libtirpc's CLIENT",
                      a->cmd);
            return CLI_EXIT_USAGE;
        }
        if (a->sys || a->svc != GK5_RPC_SVC_PRIVACY) {
            cli_error("%s: --sec: the storm's contexts are krb5p (their "
                      "check is a krb5p WRITE and READ)",
                      a->cmd);
            return CLI_EXIT_USAGE;
        }
        if (a->establish != GK5_RPC_ESTABLISH_NATIVE) {
            cli_error("%s: --establish: the storm measures gk5's own "
                      "initiator (native)",
                      a->cmd);
            return CLI_EXIT_USAGE;
        }
        if (cl->storm.contexts < cl->storm.connections) {
            cli_error("%s: --contexts %u is fewer than --connections %u",
                      a->cmd, cl->storm.contexts, cl->storm.connections);
            return CLI_EXIT_USAGE;
        }
    }
    if ((bench || storm || !a->sys) && a->target == NULL) {
        snprintf(a->default_target, sizeof(a->default_target), "nfs@%s",
                 a->host);
        a->target = a->default_target;
    }
    return -1;
}
