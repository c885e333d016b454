/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 — the command-line tool: dispatch to the subcommands, the top-level
 * --help and --version, and `gk5 enctypes`.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "cli.h"

static const struct cli_command commands[] = {
    {.name = "enctypes",
     .run = gk5_cli_enctypes,
     .summary = "the enctype table: number, name, state, reason"},
    {.name = "crypto",
     .run = gk5_cli_crypto,
     .summary =
         "RFC 3961 operations, hex in and out (string-to-key, derive, ...)"},
    {.name = "wrap",
     .run = gk5_cli_wrap,
     .summary = "the Wrap token for the message on stdin"},
    {.name = "unwrap",
     .run = gk5_cli_unwrap,
     .summary = "the message in the Wrap token on stdin"},
    {.name = "mic",
     .run = gk5_cli_mic,
     .summary = "the MIC token for the message on stdin"},
    {.name = "verify",
     .run = gk5_cli_verify,
     .summary = "check a MIC token against the message"},
    {.name = "inspect",
     .run = gk5_cli_inspect,
     .summary = "decode a token's header, without keys"},
    {.name = "ctx",
     .run = gk5_cli_ctx,
     .summary = "context files: make a gssd buffer from a key, show, convert"},
    {.name = "accept",
     .run = gk5_cli_accept,
     .summary =
         "accept an AP-REQ with a keytab (gk5's acceptor): a context file"},
    {.name = "init",
     .run = gk5_cli_init,
     .summary = "make an AP-REQ from a ccache (gk5's initiator)"},
    {.name = "kinit",
     .run = gk5_cli_kinit,
     .summary = "get a TGT from the KDC into a FILE ccache"},
    {.name = "klist",
     .run = gk5_cli_klist,
     .summary = "list a FILE ccache's tickets, as MIT's klist"},
    {.name = "kvno",
     .run = gk5_cli_kvno,
     .summary = "get service tickets, print their kvno"},
    {.name = "kdestroy",
     .run = gk5_cli_kdestroy,
     .summary = "remove a FILE ccache"},
#ifdef GK5_HAVE_MIT
    {.name = "demo",
     .run = gk5_cli_demo,
     .summary =
         "throwaway MIT KDC, MIT contexts, gk5 and MIT exchanging tokens"},
    {.name = "interop",
     .run = gk5_cli_interop,
     .summary = "the interop matrix (enctype x cell) against a realm of yours"},
#endif
    {.name = "realm",
     .run = gk5_cli_realm,
     .summary = "a throwaway MIT realm: start, stop, or run a command in one"},
#ifdef GK5_HAVE_BENCH
    {.name = "bench",
     .run = gk5_cli_bench,
     .summary = "gk5, MIT krb5 and the OpenSSL floor, as ratios"},
#endif
#ifdef GK5_HAVE_RPC
    {.name = "rpc",
     .run = gk5_cli_rpc,
     .summary =
         "RPCSEC_GSS over TCP: ping a server, serve and call an echo program"},
    {.name = "nfs4",
     .run = gk5_cli_nfs4,
     .summary = "an NFSv4.0 client over RPCSEC_GSS: ls, cat, put, rm"},
#endif
};

/* Commands this build leaves out, and why: named in words instead of
 * "unknown command". */
static const struct {
    const char *name, *why;
} left_out[] = {
#ifndef GK5_HAVE_MIT
    {"demo", "it runs MIT krb5's initiator and acceptor in-process, and "
             "this gk5 was built without MIT krb5 (-Dmit=disabled)"},
    {"interop", "it runs MIT krb5's initiator and acceptor in-process, and "
                "this gk5 was built without MIT krb5 (-Dmit=disabled)"},
#endif
#ifndef GK5_HAVE_BENCH
    {"bench", "it runs gk5-bench, which this build leaves out "
              "(-Dbench=disabled)"},
#endif
#ifndef GK5_HAVE_RPC
    {"rpc", "it needs libgk5_rpc (-Drpc)"},
    {"nfs4", "it needs libgk5_rpc (-Drpc)"},
#endif
    {NULL, NULL},
};

/* The words for an unknown command; CLI_EXIT_USAGE. */
static int unknown_command(const char *name)
{
    for (size_t i = 0; left_out[i].name != NULL; i++) {
        if (strcmp(left_out[i].name, name) == 0) {
            cli_error("'%s' is not built into this gk5: %s", name,
                      left_out[i].why);
            return CLI_EXIT_USAGE;
        }
    }
    cli_error("unknown command '%s'", name);
    fprintf(stderr, "Try 'gk5 --help'.\n");
    return CLI_EXIT_USAGE;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: gk5 COMMAND [options]\n"
               "       gk5 --help | --version\n"
               "\n"
               "The Kerberos V5 GSS-API mechanism's per-message tokens "
               "(RFC 4121, RFC 1964)\non the RFC 3961 crypto framework.\n"
               "\n"
               "Commands:\n");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(commands); i++) {
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(f, "\n"
               "'gk5 COMMAND --help' describes a command's options.\n"
               "Exit status: 0 success, 1 the operation failed (crypto or "
               "GSS failure,\nrefused enctype), 2 bad usage.\n");
}

/* ---- gk5 enctypes ---- */

static void enctypes_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 enctypes\n"
               "\n"
               "Print gk5's enctype table, in preference order: number, "
               "name, state\n(supported, not built, rejected) and, for "
               "those that cannot be used,\nwhy.  Every other list in gk5 "
               "is derived from this one table.\n");
}

static const char *state_word(enum gk5_enctype_state state)
{
    switch (state) {
    case GK5_ENCTYPE_SUPPORTED:
        return "supported";
    case GK5_ENCTYPE_NOT_BUILT:
        return "not built";
    case GK5_ENCTYPE_REJECTED:
        return "rejected";
    }
    return "?";
}

int gk5_cli_enctypes(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    size_t count = gk5_enctype_count();
    int name_width = (int)strlen("NAME");
    int c;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            enctypes_usage(stdout);
            return CLI_EXIT_OK;
        }
        return cli_option_error("enctypes", c, argv);
    }
    if (optind < argc) {
        cli_error("enctypes: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }

    for (size_t i = 0; i < count; i++) {
        gk5_enctype_desc d;

        if (gk5_enctype_row(i, &d) == GK5_OK &&
            (int)strlen(d.name) > name_width) {
            name_width = (int)strlen(d.name);
        }
    }
    printf("%4s  %-*s  %-9s  %s\n", "NUM", name_width, "NAME", "STATE",
           "REASON");
    for (size_t i = 0; i < count; i++) {
        gk5_enctype_desc d;

        if (gk5_enctype_row(i, &d) != GK5_OK) {
            cli_error("enctypes: cannot read row %zu of the table", i);
            return CLI_EXIT_FAIL;
        }
        if (d.reason != NULL) {
            printf("%4d  %-*s  %-9s  %s\n", (int)d.enctype, name_width, d.name,
                   state_word(d.state), d.reason);
        } else {
            printf("%4d  %-*s  %s\n", (int)d.enctype, name_width, d.name,
                   state_word(d.state));
        }
    }
    if (fflush(stdout) != 0) {
        cli_error("enctypes: cannot write output");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ---- gk5 --version ---- */

/* The version, then what this binary was built with: one "name: value"
 * line each, so that a bug report says which code paths ran. */
static int print_version(void)
{
    gk5_enctype_desc des3;
    bool des3_built = gk5_enctype_describe(16, &des3) == GK5_OK &&
                      des3.state == GK5_ENCTYPE_SUPPORTED;
    uint32_t features = gk5_build_features();
    bool onepass = (features & GK5_FEATURE_ONEPASS) != 0;
#if defined(GK5_HAVE_MIT) && defined(GK5_HAVE_BENCH)
    const char *mit = "yes (gk5 demo, gk5 bench)";
#elif defined(GK5_HAVE_MIT)
    const char *mit = "yes (gk5 demo)";
#else
    const char *mit = "no (-Dmit=enabled builds it)";
#endif
#ifdef GK5_HAVE_RPC
    const char *rpc = "yes (gk5 rpc, gk5 nfs4)";
    /* The RPC commands establish through libgk5_rpc: ask it. */
    bool mit_bridge = gk5_rpc_establish_available(GK5_RPC_ESTABLISH_MIT);
#else
    const char *rpc = "no (-Drpc=enabled builds it)";
#endif
#if defined(GK5_HAVE_MIT) && !defined(GK5_HAVE_RPC)
    bool mit_bridge = true;
#elif !defined(GK5_HAVE_RPC)
    bool mit_bridge = false;
#endif
    const char *no_onepass =
        (features & GK5_FEATURE_FASTPATH) != 0
            ? "no (AES runs on OpenSSL's EVP layer)"
            : "no (-Dfastpath=false: OpenSSL's CTS ciphers and EVP_MAC only)";

    printf("gk5 %s\n", gk5_version());
    printf("des3: %s\n",
           des3_built ? "yes (RFC 1964 tokens)" : "no (-Ddes3=true builds it)");
    printf("MIT krb5 bridge: %s\n", mit);
    printf("RPCSEC_GSS: %s\n", rpc);
    printf("establishment: %s\n", mit_bridge
                                      ? "native; MIT bridge (libgk5_mit)"
                                      : "native only (built without MIT krb5)");
    printf("AES-NI/SHA-NI one-pass path: %s\n",
           onepass ? "yes (this CPU: AES on AES-NI, RFC 3962 sealed in one "
                     "pass)"
                   : no_onepass);
    printf("OpenSSL: %s\n", OpenSSL_version(OPENSSL_VERSION));
    if (fflush(stdout) != 0) {
        cli_error("cannot write output");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const struct cli_command *cmd;
    int c, first;

    /* A server or peer that goes away mid-call must give an error, not
     * end the tool: libtirpc writes its sockets with write(2), and an RPC
     * client sends RPCSEC_GSS_DESTROY as it closes. */
    (void)signal(SIGPIPE, SIG_IGN);
    opterr = 0;
    /* '+': stop at the command; its options are its own. */
    while ((c = getopt_long(argc, argv, "+:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CLI_EXIT_OK;
        case 'V':
            return print_version();
        default:
            if (optopt != 0 && argv[optind - 1][0] == '-' &&
                argv[optind - 1][1] == '-') {
                /* --help=x, --version=x */
                cli_error("option '%.*s' takes no argument",
                          (int)strcspn(argv[optind - 1], "="),
                          argv[optind - 1]);
            } else if (optopt != 0) {
                cli_error("unknown option '-%c'", optopt);
            } else {
                cli_error("unknown option '%s'", argv[optind - 1]);
            }
            fprintf(stderr, "Try 'gk5 --help'.\n");
            return CLI_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[optind], "help") == 0) {
        /* "gk5 help COMMAND" = "gk5 COMMAND --help" */
        if (optind + 1 < argc) {
            char help[] = "--help";
            char *hargv[] = {argv[optind + 1], help, NULL};

            cmd = cli_command_find(commands, GK5_ARRAY_SIZE(commands),
                                   argv[optind + 1]);
            if (cmd == NULL) {
                return unknown_command(argv[optind + 1]);
            }
            optind = 0;
            return cmd->run(2, hargv);
        }
        usage(stdout);
        return CLI_EXIT_OK;
    }
    cmd = cli_command_find(commands, GK5_ARRAY_SIZE(commands), argv[optind]);
    if (cmd == NULL) {
        return unknown_command(argv[optind]);
    }
    first = optind;
    optind = 0; /* commands parse their own argv from scratch */
    return cmd->run(argc - first, argv + first);
}
