/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 accept — gk5's own acceptor (include/gk5/accept.h) from a shell: the
 * initiator's AP-REQ token from a file, a context file that `gk5 wrap |
 * unwrap | mic | verify --ctx` carry on with, and the token to send back.
 *
 * Each run is a process of its own, so the replay cache (RFC 4120 3.2.3)
 * lives in a file: the same AP-REQ given to a second run is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "cli.h"

#define CMD "accept"
/* A day: the replay cache keeps every authenticator for twice the skew. */
#define MAX_CLOCKSKEW 86400u

enum {
    OPT_KEYTAB = 256,
    OPT_PRINCIPAL,
    OPT_IN,
    OPT_OUT,
    OPT_CTX,
    OPT_RCACHE,
    OPT_NO_RCACHE,
    OPT_CLOCKSKEW,
    OPT_AUTHZ,
    OPT_HELP = 'h'
};

struct accept_args {
    const char *keytab;
    const char *principal;
    const char *in_path;
    const char *out_path;
    const char *ctx_path;
    const char *rcache;
    const char *authz_path; /* --authz: the ticket's authorization data */
    bool no_rcache;
    uint32_t clockskew; /* 0: the library's default */
};

static void accept_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 accept --keytab FILE [--principal P] --in TOKEN_FILE\n"
            "                  --out TOKEN_FILE --ctx CTX_FILE\n"
            "                  [--rcache FILE | --no-rcache] [--clockskew "
            "SECONDS]\n"
            "                  [--authz FILE]\n"
            "\n"
            "Accept a Kerberos V5 GSS-API context with gk5's own acceptor "
            "(RFC 4121 4.1,\nRFC 4120 3.2; no MIT krb5): read the "
            "initiator's first token (an AP-REQ,\nraw bytes), check it "
            "against the keytab, write the context for 'gk5 wrap |\nunwrap "
            "| mic | verify --ctx' and the token to send back, and print "
            "the\ninitiator, the enctypes, the flags and the lifetime.  "
            "rc4 and DES tickets and\nsession keys are refused (RFC 8429), "
            "as are user-to-user and DCE-style\nAP-REQs and replays.\n"
            "\n"
            "  --keytab FILE      the acceptor's keytab, a path or "
            "FILE:path (required)\n"
            "  --principal P      accept only tickets for P: "
            "service@host (any realm),\n"
            "                     service/host@REALM or service/host; "
            "default: any\n"
            "                     principal the keytab has keys for\n"
            "  --in TOKEN_FILE    the initiator's token, raw bytes "
            "(required)\n"
            "  --out TOKEN_FILE   the token to send back (required; mode "
            "0600): the AP-REP,\n"
            "                     or on refusal a KRB-ERROR token when "
            "the initiator asked\n"
            "                     for mutual authentication; empty when "
            "there is nothing\n"
            "                     to send\n"
            "  --ctx CTX_FILE     the context, in gk5's export format "
            "(mode 0600), written\n"
            "                     only when the context was accepted "
            "(required)\n"
            "  --rcache FILE      the replay cache file (made mode 0600 "
            "if absent); default:\n"
            "                     $XDG_RUNTIME_DIR/gk5/accept.rcache when "
            "XDG_RUNTIME_DIR\n"
            "                     is set, else "
            "/var/tmp/gk5_accept_EUID.rcache.  Runs that\n"
            "                     share the file refuse an AP-REQ any "
            "of them accepted.\n"
            "                     A default file must be a regular file "
            "of this user.\n"
            "  --no-rcache        keep no replay cache (RFC 4120 3.2.3 "
            "says SHOULD keep\n"
            "                     one): the same AP-REQ is accepted "
            "again\n"
            "  --clockskew SECONDS\n"
            "                     the clock difference allowed, 1 to "
            "86400; default 300\n"
            "  --authz FILE       the ticket's authorization data (a "
            "KDC's PAC, say), its\n"
            "                     DER AuthorizationData as the ticket "
            "carried it (mode\n"
            "                     0600), written when the context was "
            "accepted; gk5\n"
            "                     carries it untouched and does not "
            "interpret it\n"
            "\nExit status: 0 accepted; 1 refused or failed (the major "
            "status name and its\nwords are printed, e.g. GSS_S_FAILURE: "
            "... (KRB_AP_ERR_REPEAT)); 2 bad usage.\n");
}

/* CLI_EXIT_OK to go on (or, with *done set, to stop after --help), else
 * CLI_EXIT_USAGE with the problem printed. */
static int parse_args(struct accept_args *a, int argc, char **argv, int *done)
{
    static const struct option longopts[] = {
        {"keytab", required_argument, NULL, OPT_KEYTAB},
        {"principal", required_argument, NULL, OPT_PRINCIPAL},
        {"in", required_argument, NULL, OPT_IN},
        {"out", required_argument, NULL, OPT_OUT},
        {"ctx", required_argument, NULL, OPT_CTX},
        {"rcache", required_argument, NULL, OPT_RCACHE},
        {"no-rcache", no_argument, NULL, OPT_NO_RCACHE},
        {"clockskew", required_argument, NULL, OPT_CLOCKSKEW},
        {"authz", required_argument, NULL, OPT_AUTHZ},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    int c;

    *done = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            accept_usage(stdout);
            *done = 1;
            return CLI_EXIT_OK;
        case OPT_KEYTAB:
            a->keytab = optarg;
            break;
        case OPT_PRINCIPAL:
            a->principal = optarg;
            break;
        case OPT_IN:
            a->in_path = optarg;
            break;
        case OPT_OUT:
            a->out_path = optarg;
            break;
        case OPT_CTX:
            a->ctx_path = optarg;
            break;
        case OPT_RCACHE:
            a->rcache = optarg;
            break;
        case OPT_NO_RCACHE:
            a->no_rcache = true;
            break;
        case OPT_AUTHZ:
            a->authz_path = optarg;
            break;
        case OPT_CLOCKSKEW:
            if (cli_parse_u32(optarg, &a->clockskew) != 0 ||
                a->clockskew == 0 || a->clockskew > MAX_CLOCKSKEW) {
                return cli_bad_number(CMD, "--clockskew", optarg,
                                      "from 1 to 86400");
            }
            break;
        default:
            return cli_option_error(CMD, c, argv);
        }
    }
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", CMD, argv[optind]);
        return cli_try_help(CMD);
    }
    if (a->rcache != NULL && a->no_rcache) {
        cli_error("%s: --rcache and --no-rcache exclude each other", CMD);
        return cli_try_help(CMD);
    }
    if (a->keytab == NULL) {
        return cli_required(CMD, "--keytab FILE");
    }
    if (a->in_path == NULL) {
        return cli_required(CMD, "--in TOKEN_FILE");
    }
    if (a->out_path == NULL) {
        return cli_required(CMD, "--out TOKEN_FILE");
    }
    if (a->ctx_path == NULL) {
        return cli_required(CMD, "--ctx CTX_FILE");
    }
    return CLI_EXIT_OK;
}

/*
 * The default replay cache file, made ready: $XDG_RUNTIME_DIR/gk5 (made
 * 0700 if absent), or /var/tmp, where anyone may have planted a link or a
 * file of theirs under our name first.  The file is made (or opened)
 * here without following a link and must be a regular file of this user,
 * not writable by others; /var/tmp's sticky bit keeps it ours afterwards,
 * when the library opens it by name.  0 with *path malloc'd, or -1 with
 * the message printed.
 */
static int default_rcache(char **path)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    size_t n;
    char *p = NULL;
    int fd;

    *path = NULL;
    if (xdg != NULL && xdg[0] == '/') {
        n = strlen(xdg) + sizeof("/gk5/accept.rcache");
        p = malloc(n);
        if (p == NULL) {
            cli_error("%s: out of memory", CMD);
            return -1;
        }
        snprintf(p, n, "%s/gk5", xdg);
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            cli_error("%s: cannot make '%s' for the replay cache: %s", CMD, p,
                      strerror(errno));
            free(p);
            return -1;
        }
        snprintf(p, n, "%s/gk5/accept.rcache", xdg);
    } else {
        n = sizeof("/var/tmp/gk5_accept_.rcache") + 3 * sizeof(uid_t);
        p = malloc(n);
        if (p == NULL) {
            cli_error("%s: out of memory", CMD);
            return -1;
        }
        snprintf(p, n, "/var/tmp/gk5_accept_%lu.rcache",
                 (unsigned long)geteuid());
    }
    fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        cli_error("%s: replay cache '%s': %s", CMD, p, strerror(errno));
        free(p);
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) != 0) {
        cli_error("%s: replay cache '%s' is not a regular file of this user "
                  "writable by it alone (remove it, or name another with "
                  "--rcache)",
                  CMD, p);
        close(fd);
        free(p);
        return -1;
    }
    close(fd);
    *path = p;
    return 0;
}

static void print_enctype(const char *what, int32_t enctype)
{
    gk5_enctype_desc d;

    if (gk5_enctype_describe(enctype, &d) == GK5_OK) {
        printf("%s: %s (%d)\n", what, d.name, (int)enctype);
    } else {
        printf("%s: %d\n", what, (int)enctype);
    }
}

/* RFC 2744 names, shortened as the flags are usually written. */
static void print_flags(uint32_t flags)
{
    static const struct {
        uint32_t bit;
        const char *word;
    } names[] = {
        {GK5_C_DELEG_FLAG, "deleg"},       {GK5_C_MUTUAL_FLAG, "mutual"},
        {GK5_C_REPLAY_FLAG, "replay"},     {GK5_C_SEQUENCE_FLAG, "sequence"},
        {GK5_C_CONF_FLAG, "conf"},         {GK5_C_INTEG_FLAG, "integ"},
        {GK5_C_TRANS_FLAG, "trans"},       {GK5_C_DCE_STYLE, "dce-style"},
        {GK5_C_IDENTIFY_FLAG, "identify"},
    };
    const char *sep = " ";

    printf("flags:");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(names); i++) {
        if ((flags & names[i].bit) != 0) {
            printf("%s%s", sep, names[i].word);
            sep = ",";
        }
    }
    printf("%s(0x%x)\n", *sep == ',' ? " " : " none ", (unsigned)flags);
}

static void print_lifetime(int64_t endtime)
{
    time_t end = (time_t)endtime;
    time_t now = time(NULL);
    struct tm tm;
    char when[64];

    if (gmtime_r(&end, &tm) == NULL ||
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0) {
        snprintf(when, sizeof(when), "%lld", (long long)endtime);
    }
    if (endtime > (int64_t)now) {
        printf("lifetime: %lld s (until %s)\n",
               (long long)(endtime - (int64_t)now), when);
    } else {
        printf("lifetime: expired (at %s)\n", when);
    }
}

static void print_info(const struct accept_args *a, const gk5_accept_info *info,
                       size_t token_len)
{
    printf("initiator: %s\n", info->initiator);
    printf("acceptor: %s\n", info->acceptor);
    print_enctype("ticket enctype", info->ticket_enctype);
    print_enctype("session enctype", info->session_enctype);
    print_enctype("context enctype", info->context_enctype);
    print_flags(info->gss_flags);
    print_lifetime(info->endtime);
    if (info->authorization_data.length != 0) {
        printf("authorization data: %zu bytes (the ticket's, untouched)%s%s\n",
               info->authorization_data.length,
               a->authz_path != NULL ? ", in " : "",
               a->authz_path != NULL ? a->authz_path : "");
    } else {
        printf("authorization data: none\n");
    }
    if (token_len != 0) {
        printf("token: AP-REP, %zu bytes, in %s\n", token_len, a->out_path);
    } else {
        printf("token: none (no mutual authentication asked for): %s is "
               "empty\n",
               a->out_path);
    }
}

static int save_context(const struct accept_args *a, const gk5_ctx *ctx)
{
    gk5_buffer buf = {0, NULL};
    uint32_t major;
    uint32_t minor = 0;
    int ret;

    major = gk5_ctx_export(&minor, ctx, &buf);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(CMD, "cannot export the context", major, minor);
        goto cleanup;
    }
    ret = cli_write_file(a->ctx_path, buf.value, buf.length) == 0
              ? CLI_EXIT_OK
              : CLI_EXIT_FAIL;

cleanup:
    zap(buf.value, buf.length);
    gk5_buffer_release(&buf);
    return ret;
}

int gk5_cli_accept(int argc, char **argv)
{
    struct accept_args a;
    gk5_acceptor_opts opts;
    gk5_acceptor_cred *cred = NULL;
    gk5_accept_info info;
    gk5_ctx *ctx = NULL;
    gk5_buffer in = {0, NULL};
    gk5_buffer out = {0, NULL};
    uint8_t *token = NULL;
    size_t token_len = 0;
    char *rcache = NULL;
    char what[512];
    uint32_t major;
    uint32_t minor = 0;
    int done = 0;
    int ret;

    memset(&a, 0, sizeof(a));
    memset(&opts, 0, sizeof(opts));
    memset(&info, 0, sizeof(info));
    ret = parse_args(&a, argc, argv, &done);
    if (ret != CLI_EXIT_OK || done) {
        goto cleanup;
    }
    if (cli_read_file(a.in_path, &token, &token_len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (a.no_rcache) {
        opts.flags |= GK5_ACC_NO_RCACHE;
    } else if (a.rcache != NULL) {
        opts.rcache_file = a.rcache;
    } else {
        if (default_rcache(&rcache) != 0) {
            ret = CLI_EXIT_FAIL;
            goto cleanup;
        }
        opts.rcache_file = rcache;
    }
    opts.keytab = a.keytab;
    opts.principal = a.principal;
    opts.clockskew = a.clockskew;

    major = gk5_acceptor_cred_new(&minor, &opts, &cred);
    if (GK5_ERROR(major) != 0) {
        snprintf(what, sizeof(what), "acceptor credential%s%s from keytab '%s'",
                 a.principal != NULL ? " for " : "",
                 a.principal != NULL ? a.principal : "", a.keytab);
        ret = cli_gss_fail(CMD, what, major, minor);
        goto cleanup;
    }
    in.length = token_len;
    in.value = token;
    major = gk5_accept(&minor, cred, &in, NULL, &out, &ctx, &info);
    if (GK5_ERROR(major) != 0) {
        /* The initiator waits for an answer when it asked for mutual
         * authentication: the KRB-ERROR says why it was refused. */
        if (cli_write_file(a.out_path, out.value, out.length) == 0 &&
            out.length != 0) {
            cli_warn("%s: KRB-ERROR token, %zu bytes, in %s", CMD, out.length,
                     a.out_path);
        }
        ret = cli_gss_fail(CMD, "", major, minor);
        goto cleanup;
    }
    /* The context first: once the AP-REP is out, the initiator may send
     * tokens that only the saved context can take. */
    ret = save_context(&a, ctx);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    if (cli_write_file(a.out_path, out.value, out.length) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (a.authz_path != NULL &&
        cli_write_file(a.authz_path, info.authorization_data.value,
                       info.authorization_data.length) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    print_info(&a, &info, out.length);
    if (fflush(stdout) != 0) {
        cli_error("%s: cannot write output", CMD);
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    gk5_accept_info_release(&info);
    gk5_buffer_release(&out);
    gk5_ctx_free(ctx);
    gk5_acceptor_cred_free(cred);
    free(token);
    free(rcache);
    return ret;
}
