/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 kinit | klist | kvno | kdestroy — gk5's own KDC client
 * (src/krb5/kdc_client.c) and FILE credential cache (src/krb5/ccache.c)
 * from a shell, speaking as MIT's tools do, so that a cache either writes
 * the other reads.
 *
 * These four are the public calls of include/gk5/tickets.h, in libgk5
 * (gk5_kinit, gk5_kvno, gk5_ccache_list, gk5_ccache_destroy).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "cli.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "CMD: words[: the KRB-ERROR]" for a failed call; CLI_EXIT_FAIL. */
static int tickets_fail(const char *cmd, const char *what, uint32_t err)
{
    const char *krb = gk5_krb_last_error();
    cli_error("%s: %s%s%s%s%s", cmd, what, *what ? ": " : "", gk5_strerror(err),
              krb != NULL ? ": " : "", krb != NULL ? krb : "");
    return CLI_EXIT_FAIL;
}

/* "CMD: words[: where]" for a krb5.conf that does not load. */
static int config_fail(const char *cmd, uint32_t err, const char *detail)
{
    cli_error("%s: %s%s%s", cmd, gk5_strerror(err), *detail ? ": " : "",
              detail);
    return CLI_EXIT_FAIL;
}

/* MIT's duration forms: seconds, "1d2h3m4s" (any of them), or
 * "H:MM[:SS]".  0 or -1. */
static int parse_lifetime(const char *s, uint32_t *out)
{
    uint64_t total = 0;
    const char *p = s;

    if (*s == '\0') {
        return -1;
    }
    if (strchr(s, ':') != NULL) {
        unsigned h = 0, m = 0, sec = 0;
        char extra;
        int n = sscanf(s, "%u:%u:%u%c", &h, &m, &sec, &extra);
        if (n < 2 || n > 3 || m > 59 || sec > 59) {
            return -1;
        }
        total = (uint64_t)h * 3600 + m * 60 + sec;
    } else {
        while (*p != '\0') {
            uint64_t v = 0;
            const char *d = p;
            while (*p >= '0' && *p <= '9') {
                v = v * 10 + (uint64_t)(*p - '0');
                if (v > UINT32_MAX) {
                    return -1;
                }
                p++;
            }
            if (p == d) {
                return -1;
            }
            switch (*p) {
            case 'd':
                v *= 86400;
                p++;
                break;
            case 'h':
                v *= 3600;
                p++;
                break;
            case 'm':
                v *= 60;
                p++;
                break;
            case 's':
                p++;
                break;
            case '\0':
                break;
            default:
                return -1;
            }
            total += v;
        }
    }
    if (total == 0 || total > UINT32_MAX) {
        return -1;
    }
    *out = (uint32_t)total;
    return 0;
}

/* The first line of f into buf (its newline dropped); 0 or -1. */
static int read_line(FILE *f, char *buf, size_t cap)
{
    size_t n;
    if (fgets(buf, (int)cap, f) == NULL) {
        return -1;
    }
    n = strlen(buf);
    if (n > 0 && buf[n - 1] == '\n') {
        buf[--n] = '\0';
    } else if (n + 1 == cap) {
        OPENSSL_cleanse(buf, cap);
        return -1;
    }
    if (n > 0 && buf[n - 1] == '\r') {
        buf[--n] = '\0';
    }
    return 0;
}

/* The password (gk5_kinit's callback; arg: where the --password-file or
 * NULL is):
 * the file's first line, else the terminal with echo off (or stdin's
 * first line when it is not a terminal). */
static int get_password(void *arg, const char *who, char *buf, size_t cap)
{
    const char *file = *(const char *const *)arg;
    struct termios old, quiet;
    bool tty = isatty(STDIN_FILENO) != 0;
    int rc;

    if (file != NULL) {
        FILE *f = fopen(file, "r");
        if (f == NULL) {
            cli_error("kinit: --password-file: cannot open '%s': %s", file,
                      strerror(errno));
            return -1;
        }
        rc = read_line(f, buf, cap);
        fclose(f);
        if (rc != 0) {
            cli_error("kinit: --password-file: no password in '%s'", file);
        }
        return rc;
    }
    if (tty) {
        fprintf(stderr, "Password for %s: ", who);
        fflush(stderr);
        if (tcgetattr(STDIN_FILENO, &old) != 0) {
            tty = false;
        } else {
            quiet = old;
            quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
            (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        }
    }
    rc = read_line(stdin, buf, cap);
    if (tty) {
        (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (rc != 0) {
        cli_error("kinit: %s", gk5_strerror(GK5_ERR_PASSWORD));
    }
    return rc;
}

static void kinit_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 kinit [-k [-i | -t KEYTAB]] [-l LIFETIME] [-r "
               "RENEW] [-f]\n"
               "                 [-c CCACHE] [--password-file FILE] "
               "[PRINCIPAL]\n"
               "\n"
               "Get a ticket-granting ticket from the KDC with gk5's own "
               "client (RFC 4120\n3.1: the AS exchange, PA-ENC-TIMESTAMP "
               "pre-authentication; no MIT krb5) and\nwrite it to a new "
               "FILE credential cache that MIT's tools read.  rc4 and DES\n"
               "keys and tickets are refused (RFC 8429).\n"
               "\n"
               "  -k              use a key from a keytab instead of a "
               "password\n"
               "  -t KEYTAB       the keytab for -k (implies -k); default "
               "$KRB5_KTNAME,\n"
               "                  else /etc/krb5.keytab\n"
               "  -i              with -k: the default client keytab, "
               "$KRB5_CLIENT_KTNAME\n"
               "  -l LIFETIME     the ticket's lifetime: seconds, 10h, 1d2h30m "
               "or H:MM[:SS];\n"
               "                  default krb5.conf's ticket_lifetime\n"
               "  -r RENEW        the renewable life, in the same forms; "
               "default none\n"
               "  -f              ask for a forwardable ticket\n"
               "  -c CCACHE       the cache, FILE:path or a path; default "
               "$KRB5CCNAME,\n"
               "                  else /tmp/krb5cc_UID\n"
               "  --password-file FILE\n"
               "                  the password is FILE's first line; "
               "default: asked on the\n"
               "                  terminal with echo off (or stdin's first "
               "line)\n"
               "  PRINCIPAL       the client; default: with -k the keytab's "
               "first principal,\n"
               "                  else the user's name at default_realm\n"
               "\nExit status: 0 got the ticket; 1 failed (the words and the "
               "KDC's error, e.g.\nKDC_ERR_PREAUTH_FAILED (24)); 2 bad "
               "usage.\n");
}

int gk5_cli_kinit(int argc, char **argv)
{
    enum { OPT_PASSWORD_FILE = 256 };
    static const struct option longopts[] = {
        {"password-file", required_argument, NULL, OPT_PASSWORD_FILE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *kt_name = NULL, *ccname = NULL, *pw_file = NULL;
    bool use_kt = false, client_kt = false, forwardable = false;
    uint32_t lifetime = 0, renew = 0, major, minor = 0;
    gk5_kinit_opts o;
    gk5_kinit_info info;
    int c, rc = CLI_EXIT_FAIL;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":hkit:l:r:fc:", longopts, NULL)) !=
           -1) {
        switch (c) {
        case 'h':
            kinit_usage(stdout);
            return CLI_EXIT_OK;
        case 'k':
            use_kt = true;
            break;
        case 'i':
            client_kt = true;
            break;
        case 't':
            use_kt = true;
            kt_name = optarg;
            break;
        case 'l':
            if (parse_lifetime(optarg, &lifetime) != 0) {
                return cli_bad_number("kinit", "-l", optarg,
                                      "(a lifetime: 36000, 10h, 1d2h30m)");
            }
            break;
        case 'r':
            if (parse_lifetime(optarg, &renew) != 0) {
                return cli_bad_number("kinit", "-r", optarg,
                                      "(a lifetime: 36000, 10h, 7d)");
            }
            break;
        case 'f':
            forwardable = true;
            break;
        case 'c':
            ccname = optarg;
            break;
        case OPT_PASSWORD_FILE:
            pw_file = optarg;
            break;
        default:
            return cli_option_error("kinit", c, argv);
        }
    }
    if (argc - optind > 1) {
        cli_error("kinit: unexpected argument '%s'", argv[optind + 1]);
        return cli_try_help("kinit");
    }
    if (use_kt && pw_file != NULL) {
        cli_error("kinit: -k and --password-file exclude each other");
        return cli_try_help("kinit");
    }
    if (client_kt && (!use_kt || kt_name != NULL)) {
        cli_error("kinit: -i goes with -k and not with -t");
        return cli_try_help("kinit");
    }
    memset(&o, 0, sizeof(o));
    o.ccache = ccname;
    o.principal = optind < argc ? argv[optind] : NULL;
    if (use_kt) {
        if (kt_name == NULL) {
            kt_name = getenv(client_kt ? "KRB5_CLIENT_KTNAME" : "KRB5_KTNAME");
        }
        if (kt_name == NULL) {
            kt_name = "/etc/krb5.keytab";
        }
        o.keytab = kt_name;
    } else {
        o.password_cb = get_password;
        o.password_arg = &pw_file;
    }
    o.lifetime = lifetime;
    o.renew = renew;
    o.flags = forwardable ? GK5_KINIT_FORWARDABLE : 0u;
    major = gk5_kinit(&minor, &o, &info);
    if (!GK5_ERROR(major)) {
        rc = CLI_EXIT_OK;
    } else {
        switch (info.step) {
        case GK5_TKT_STEP_CONFIG:
            rc = config_fail("kinit", minor, info.detail);
            break;
        case GK5_TKT_STEP_KEYTAB:
            rc = tickets_fail("kinit", kt_name, minor);
            break;
        case GK5_TKT_STEP_PRINCIPAL:
            if (GK5_ERROR(major) == GK5_S_BAD_NAME && o.principal != NULL) {
                cli_error("kinit: '%s' is not a principal name", o.principal);
                rc = CLI_EXIT_USAGE;
            } else if (GK5_ERROR(major) == GK5_S_BAD_NAME) {
                cli_error("kinit: no user name for uid %u: give a principal",
                          (unsigned)geteuid());
                rc = CLI_EXIT_USAGE;
            } else {
                rc = tickets_fail("kinit",
                                  GK5_ERR_CODE(minor) == GK5_ERR_KEYTAB_NO_KEYS
                                      ? kt_name
                                      : "",
                                  minor);
            }
            break;
        case GK5_TKT_STEP_CCACHE:
            rc = tickets_fail("kinit", ccname != NULL ? ccname : "", minor);
            break;
        case GK5_TKT_STEP_PASSWORD:
            /* get_password said why. */
            if (GK5_ERR_CODE(minor) != GK5_ERR_PASSWORD) {
                rc = tickets_fail("kinit", "", minor);
            }
            break;
        case GK5_TKT_STEP_KDC:
            rc = tickets_fail("kinit", info.principal, minor);
            break;
        case GK5_TKT_STEP_STORE:
            rc = tickets_fail("kinit", info.ccache, minor);
            break;
        default:
            rc = tickets_fail("kinit", "", minor);
            break;
        }
    }
    gk5_kinit_info_release(&info);
    return rc;
}

/* ---- klist ---- */

static void klist_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 klist [-e] [-f] [-c CCACHE]\n"
               "\n"
               "List the tickets of a FILE credential cache, as MIT's "
               "klist does.\n"
               "\n"
               "  -e         show the session key's and the ticket's "
               "enctypes\n"
               "  -f         show the ticket flags (F forwardable, f "
               "forwarded, P proxiable,\n"
               "             p proxy, D may-postdate, d postdated, i "
               "invalid, R renewable,\n"
               "             I initial, H hw-auth, A pre-auth, T "
               "transit-checked,\n"
               "             O ok-as-delegate)\n"
               "  -c CCACHE  the cache, FILE:path or a path; default "
               "$KRB5CCNAME, else\n"
               "             /tmp/krb5cc_UID\n"
               "\nExit status: 0 listed; 1 no cache or an unreadable "
               "one; 2 bad usage.\n");
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-y2k"
static void print_time(uint32_t t)
{
    char buf[64];
    time_t tt = (time_t)t;
    struct tm tm;
    /* MIT's klist: the C locale's "%x %X", two-digit years. */
    if (localtime_r(&tt, &tm) == NULL ||
        strftime(buf, sizeof(buf), "%m/%d/%y %H:%M:%S", &tm) == 0) {
        snprintf(buf, sizeof(buf), "%u", (unsigned)t);
    }
    printf("%-19s", buf);
}
#pragma GCC diagnostic pop

static const char *etype_name(int32_t num, char *buf, size_t len)
{
    gk5_enctype_desc d;
    if (gk5_enctype_describe(num, &d) == GK5_OK) {
        return d.name;
    }
    snprintf(buf, len, "etype %d", (int)num);
    return buf;
}

static void flag_letters(uint32_t fl, char *out)
{
    static const struct {
        uint32_t bit;
        char c;
    } letters[] = {
        {GK5_TKT_FLG_FORWARDABLE, 'F'},
        {GK5_TKT_FLG_FORWARDED, 'f'},
        {GK5_TKT_FLG_PROXIABLE, 'P'},
        {GK5_TKT_FLG_PROXY, 'p'},
        {GK5_TKT_FLG_MAY_POSTDATE, 'D'},
        {GK5_TKT_FLG_POSTDATED, 'd'},
        {GK5_TKT_FLG_INVALID, 'i'},
        {GK5_TKT_FLG_RENEWABLE, 'R'},
        {GK5_TKT_FLG_INITIAL, 'I'},
        {GK5_TKT_FLG_HW_AUTHENT, 'H'},
        {GK5_TKT_FLG_PRE_AUTHENT, 'A'},
        {GK5_TKT_FLG_TRANSIT_POLICY_CHECKED, 'T'},
        {GK5_TKT_FLG_OK_AS_DELEGATE, 'O'},
    };
    size_t o = 0;
    for (size_t i = 0; i < ARRAY_SIZE(letters); i++) {
        if (fl & letters[i].bit) {
            out[o++] = letters[i].c;
        }
    }
    out[o] = '\0';
}

int gk5_cli_klist(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *ccname = NULL;
    bool show_et = false, show_flags = false;
    gk5_ccache_info *cc = NULL;
    char *path = NULL;
    uint32_t major, minor = 0;
    int c, rc = CLI_EXIT_FAIL;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":hefc:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            klist_usage(stdout);
            return CLI_EXIT_OK;
        case 'e':
            show_et = true;
            break;
        case 'f':
            show_flags = true;
            break;
        case 'c':
            ccname = optarg;
            break;
        default:
            return cli_option_error("klist", c, argv);
        }
    }
    if (optind < argc) {
        ccname = argv[optind++];
    }
    if (optind < argc) {
        cli_error("klist: unexpected argument '%s'", argv[optind]);
        return cli_try_help("klist");
    }
    major = gk5_ccache_resolve(&minor, ccname, &path);
    if (!GK5_ERROR(major)) {
        major = gk5_ccache_list(&minor, ccname, &cc);
    }
    if (GK5_ERROR(major) && GK5_ERR_CODE(minor) == GK5_ERR_CCACHE_NOT_FOUND) {
        cli_error("klist: No credentials cache found (filename: %s)", path);
        goto cleanup;
    }
    if (GK5_ERROR(major)) {
        rc = tickets_fail("klist",
                          path != NULL     ? path
                          : ccname != NULL ? ccname
                                           : "",
                          minor);
        goto cleanup;
    }
    printf("Ticket cache: FILE:%s\nDefault principal: %s\n\n", path,
           cc->principal);
    printf("%-19s%-19s%s\n", "Valid starting", "Expires", "Service principal");
    for (size_t i = 0; i < cc->n; i++) {
        const gk5_ccache_cred *cr = &cc->creds[i];
        if (cr->config) {
            continue;
        }
        print_time(cr->starttime ? cr->starttime : cr->authtime);
        print_time(cr->endtime);
        printf("%s\n", cr->server);
        if (cr->renew_till != 0 && (cr->flags & GK5_TKT_FLG_RENEWABLE)) {
            printf("\trenew until ");
            print_time(cr->renew_till);
            printf("\n");
        }
        if (show_flags) {
            char fl[32];
            flag_letters(cr->flags, fl);
            printf("\tFlags: %s", fl);
        }
        if (show_et) {
            char b1[32], b2[32];
            const char *tkt = "(unreadable ticket)";
            if (cr->ticket_decoded) {
                tkt = etype_name(cr->ticket_enctype, b2, sizeof(b2));
            }
            printf("%sEtype (skey, tkt): %s, %s ", show_flags ? ", " : "\t",
                   etype_name(cr->session_enctype, b1, sizeof(b1)), tkt);
        }
        if (show_flags || show_et) {
            printf("\n");
        }
    }
    rc = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
cleanup:
    gk5_ccache_info_free(cc);
    free(path);
    return rc;
}

/* ---- kvno ---- */

static void kvno_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 kvno [-e ENCTYPE] [-c CCACHE] SERVICE...\n"
               "\n"
               "Get a service ticket for each SERVICE (from the cache, "
               "else by the TGS\nexchange with the cache's TGT, RFC 4120 "
               "3.3, stored back in the cache) and\nprint its key version "
               "number as MIT's kvno does: \"SERVICE: kvno = N\".\n"
               "\n"
               "  -e ENCTYPE  ask the KDC for a session key of this "
               "enctype (name or number)\n"
               "  -c CCACHE   the cache, FILE:path or a path; default "
               "$KRB5CCNAME, else\n"
               "              /tmp/krb5cc_UID\n"
               "  SERVICE     service/host[@REALM]; without a realm, the "
               "cache's client's\n"
               "\nExit status: 0 every ticket got; 1 one failed; 2 bad "
               "usage.\n");
}

int gk5_cli_kvno(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *ccname = NULL, *etype_s = NULL;
    int32_t etype = 0;
    gk5_kvno_opts o;
    uint32_t major, minor = 0;
    int c, rc = CLI_EXIT_OK;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":he:c:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            kvno_usage(stdout);
            return CLI_EXIT_OK;
        case 'e':
            etype_s = optarg;
            break;
        case 'c':
            ccname = optarg;
            break;
        default:
            return cli_option_error("kvno", c, argv);
        }
    }
    if (optind >= argc) {
        return cli_required("kvno", "a SERVICE");
    }
    if (etype_s != NULL && (gk5_enctype_from_name(etype_s, &etype) != GK5_OK ||
                            gk5_enctype_check(etype) != GK5_OK)) {
        cli_error("kvno: -e: '%s' is not an enctype gk5 uses", etype_s);
        return cli_try_help("kvno");
    }
    memset(&o, 0, sizeof(o));
    o.ccache = ccname;
    if (etype_s != NULL) {
        o.enctypes = &etype;
        o.n_enctypes = 1;
    }
    for (int i = optind; i < argc; i++) {
        gk5_kvno_info info;

        major = gk5_kvno(&minor, argv[i], &o, &info);
        if (!GK5_ERROR(major)) {
            printf("%s: kvno = %u\n", info.server, (unsigned)info.kvno);
            gk5_kvno_info_release(&info);
            continue;
        }
        rc = CLI_EXIT_FAIL;
        switch (info.step) {
        case GK5_TKT_STEP_CONFIG:
            /* The same for every SERVICE: said once. */
            config_fail("kvno", minor, info.detail);
            gk5_kvno_info_release(&info);
            return CLI_EXIT_FAIL;
        case GK5_TKT_STEP_CCACHE:
            tickets_fail("kvno",
                         info.ccache != NULL ? info.ccache
                         : ccname != NULL    ? ccname
                                             : "",
                         minor);
            gk5_kvno_info_release(&info);
            return CLI_EXIT_FAIL;
        case GK5_TKT_STEP_PRINCIPAL:
            if (GK5_ERROR(major) == GK5_S_BAD_NAME) {
                cli_error("kvno: '%s' is not a principal name", argv[i]);
                break;
            }
            tickets_fail("kvno", argv[i], minor);
            break;
        default:
            if (info.ticket_enctype != 0) {
                /* The KDC's reply refused for the service's own key. */
                char name[32];
                /* An rc4 ticket is what Active Directory issues for an
                 * account whose msDS-SupportedEncryptionTypes is unset. */
                cli_error("kvno: %s: the KDC encrypted the ticket in the "
                          "service's %s (%d) key, which gk5 refuses: the "
                          "service needs an AES key: %s; such a ticket can "
                          "be cracked offline for the service's password "
                          "(an Active Directory service account: set its "
                          "msDS-SupportedEncryptionTypes, 0x18 for AES)",
                          argv[i],
                          etype_name(info.ticket_enctype, name, sizeof(name)),
                          (int)info.ticket_enctype, gk5_strerror(minor));
                break;
            }
            tickets_fail("kvno", argv[i], minor);
            break;
        }
        gk5_kvno_info_release(&info);
    }
    if (fflush(stdout) != 0) {
        rc = CLI_EXIT_FAIL;
    }
    return rc;
}

/* ---- kdestroy ---- */

int gk5_cli_kdestroy(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *ccname = NULL;
    char *path = NULL;
    uint32_t major, minor = 0;
    int c, rc = CLI_EXIT_FAIL;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":hc:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            printf("Usage: gk5 kdestroy [-c CCACHE]\n\nRemove a FILE "
                   "credential cache, its bytes overwritten first.\n\n"
                   "  -c CCACHE  the cache, FILE:path or a path; default "
                   "$KRB5CCNAME, else\n             /tmp/krb5cc_UID\n"
                   "\nExit status: 0 removed; 1 no cache or it cannot be "
                   "removed; 2 bad usage.\n");
            return CLI_EXIT_OK;
        case 'c':
            ccname = optarg;
            break;
        default:
            return cli_option_error("kdestroy", c, argv);
        }
    }
    if (optind < argc) {
        cli_error("kdestroy: unexpected argument '%s'", argv[optind]);
        return cli_try_help("kdestroy");
    }
    major = gk5_ccache_resolve(&minor, ccname, &path);
    if (!GK5_ERROR(major)) {
        major = gk5_ccache_destroy(&minor, ccname);
    }
    if (GK5_ERROR(major) && GK5_ERR_CODE(minor) == GK5_ERR_CCACHE_NOT_FOUND) {
        cli_error("kdestroy: No credentials cache found while destroying "
                  "cache (filename: %s)",
                  path);
    } else if (GK5_ERROR(major)) {
        tickets_fail("kdestroy",
                     path != NULL     ? path
                     : ccname != NULL ? ccname
                                      : "",
                     minor);
    } else {
        rc = CLI_EXIT_OK;
    }
    free(path);
    return rc;
}
