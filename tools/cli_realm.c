/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 realm: the throwaway MIT realm of support/realm (realm.h) for the
 * tests, benchmarks and anyone at a shell -- start one in a folder, stop
 * it, or run a command inside a fresh one that is removed afterwards.
 * tests/interop/kdc.sh is a wrapper over this command.  --kdc heimdal
 * makes the same realm on Heimdal's KDC (heimdal_kdc.h), --kdc samba on
 * Samba's AD domain controller (samba_kdc.h): the kinds of kinds.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common/util.h"
#include "heimdal_kdc.h"
#include "kinds.h"
#include "realm.h"

/* The "skipped" status of meson and automake. */
#define SKIP_STATUS 77
/* Lines of the KDC's log shown when the command fails. */
#define LOG_TAIL 8

/* kdc_option's answer when the argument is not --kdc. */
#define NOT_KDC_OPTION (-2)

static void realm_usage(FILE *f)
{
    fprintf(
        f,
        "Usage: gk5 realm start [--kdc mit|heimdal|samba] DIR\n"
        "       gk5 realm stop DIR\n"
        "       gk5 realm run [--kdc mit|heimdal|samba] [--tap] [--] COMMAND "
        "[ARGS...]\n"
        "\n"
        "A throwaway MIT krb5 realm, " GK5_MIT_REALM_NAME
        ", with a real krb5kdc on 127.0.0.1:\n"
        "the one 'gk5 demo' makes, for tests, benchmarks and "
        "experiments.  Its folder\nholds krb5.conf and kdc.conf "
        "(nothing in /etc is read or written), the\ndatabase, "
        "client.keytab (" GK5_MIT_CLIENT "), service.keytab\n"
        "(" GK5_MIT_SERVICE "), nfs.keytab (" GK5_MIT_NFS_SERVICE ")\n"
        "and rc4.keytab (" GK5_MIT_RC4_SERVICE ", an rc4-hmac key "
        "alone).\n"
        "\n"
        "  start DIR  make the realm in DIR (created if missing) and "
        "start krb5kdc,\n"
        "             which keeps running; prints the realm, port and "
        "PID\n"
        "  stop DIR   stop exactly the KDC whose PID DIR/kdc.pid "
        "holds\n"
        "  run        make a realm in a new temporary folder, run "
        "COMMAND with\n"
        "             GK5_REALM_DIR and KRB5_CONFIG set, then stop the "
        "KDC and remove\n"
        "             the folder on every exit path; exit with "
        "COMMAND's status.\n"
        "             Without the MIT KDC programs: SKIP and why, "
        "status 77, or with\n"
        "             --tap a TAP skip plan and status 0\n"
        "  --kdc KIND mit (the default): MIT's krb5kdc; heimdal: "
        "Heimdal's kdc, the\n"
        "             same principals and keytabs (no camellia: "
        "Heimdal has none),\n"
        "             its programs from $GK5_HEIMDAL_KDC_DIR, else\n"
        "             " GK5_HEIMDAL_KDC_DEFAULT_DIR
        " (tools/fetch-heimdal-kdc.sh),\n"
        "             else installed.  run sets GK5_REALM_KDC to KIND; "
        "stop knows\n"
        "             the kind from DIR/kdc.kind.  samba: Samba as an "
        "Active Directory\n"
        "             domain controller, as root (samba-tool domain "
        "provision into\n"
        "             DIR, 20-40 s; samba -F with its KDC alone): the "
        "same client and\n"
        "             service keytabs, AES only for gk5/ and nfs/, "
        "rc4/localhost at the\n"
        "             AD default (rc4 tickets), rc4only/localhost "
        "(msDS-Supported-\n"
        "             EncryptionTypes 0x4, rc4only.keytab); no "
        "kadmin/localhost\n"
        "  -h, --help show this help\n"
        "\n"
        "GK5_KDC_ENCTYPES: the KDC's supported_enctypes (MIT names) "
        "instead of every\nenctype of gk5's table that MIT issues. "
        "GK5_KDC_PORT: the first port to try.\nGK5_KEEP_REALM: keep "
        "the folder of a realm that failed to start.\n"
        "\n"
        "Needs the MIT KDC programs: apt-get install krb5-kdc "
        "krb5-admin-server;\n"
        "--kdc heimdal: tools/fetch-heimdal-kdc.sh (heimdal-kdc "
        "conflicts with them);\n--kdc samba: apt-get install samba "
        "samba-ad-dc samba-dsdb-modules samba-ad-provision.\n"
        "Exit status (start, stop): 0 done, 1 failed, 2 bad usage.\n");
}

static void print_started(FILE *f, const gk5_mit_realm *realm,
                          const gk5_realm_kind *kind)
{
    fprintf(f, "gk5 realm: realm %s, %s pid %ld on 127.0.0.1:%d, %s\n",
            GK5_MIT_REALM_NAME, kind->process, (long)realm->kdc_pid,
            realm->port, realm->dir);
}

/* --kdc KIND at argv[*i]: its index in gk5_realm_kinds, or -1 bad (said); *i
 * moves past it.  NOT_KDC_OPTION when argv[*i] is not --kdc. */
static int kdc_option(int argc, char **argv, int *i)
{
    if (*i >= argc || strcmp(argv[*i], "--kdc") != 0) {
        return NOT_KDC_OPTION;
    }
    if (*i + 1 >= argc) {
        cli_error("realm: --kdc needs mit, heimdal or samba");
        return -1;
    }
    const char *kind = argv[*i + 1];
    *i += 2;
    const gk5_realm_kind *k = gk5_realm_kind_named(kind);
    if (k != NULL) {
        return (int)(k - gk5_realm_kinds);
    }
    cli_error("realm: unknown KDC '%s' (mit, heimdal or samba)", kind);
    return -1;
}

/* The last LOG_TAIL lines of the realm's kdc.log, to stderr. */
static void show_kdc_log(const gk5_mit_realm *realm)
{
    char path[PATH_MAX], line[1024];
    char ring[LOG_TAIL][1024];
    size_t n = 0;
    FILE *f;

    if (gk5_mit_realm_path(path, sizeof(path), realm, "kdc.log") != 0 ||
        (f = fopen(path, "re")) == NULL) {
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        memcpy(ring[n % LOG_TAIL], line, sizeof(line));
        n++;
    }
    fclose(f);
    for (size_t i = n > LOG_TAIL ? n - LOG_TAIL : 0; i < n; i++) {
        fputs(ring[i % LOG_TAIL], stderr);
    }
}

/* HUP, INT and TERM while the command runs: noted, and acted on once it
 * has exited (the command gets them too when they go to the process
 * group), as a shell's trap would. */
static volatile sig_atomic_t g_signal;

static void note_signal(int sig)
{
    g_signal = sig;
}

static int run_in_realm(int tap, const gk5_realm_kind *kind, char **cmd)
{
    static const int deferred[] = {SIGHUP, SIGINT, SIGTERM};
    gk5_mit_realm realm;
    char err[512];
    int status, rc;
    pid_t pid;

    if (kind->present(err, sizeof(err)) != 0) {
        if (tap) {
            printf("1..0 # SKIP %s\n", err);
            return CLI_EXIT_OK;
        }
        printf("SKIP: %s\n", err);
        return SKIP_STATUS;
    }
    if (kind->start(&realm, err, sizeof(err)) != 0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    print_started(stderr, &realm, kind);
    if (setenv("GK5_REALM_DIR", realm.dir, 1) != 0 ||
        setenv("GK5_REALM_KDC", kind->name, 1) != 0) {
        kind->stop(&realm);
        cli_error("realm: cannot set GK5_REALM_DIR");
        return CLI_EXIT_FAIL;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(deferred) / sizeof(deferred[0]); i++) {
        (void)sigaction(deferred[i], &sa, NULL);
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "gk5 realm: %s: %s\n", cmd[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    if (pid < 0) {
        rc = CLI_EXIT_FAIL;
        cli_error("realm: fork: %s", strerror(errno));
    } else {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                status = 1 << 8;
                break;
            }
        }
        rc = WIFEXITED(status)     ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                   : CLI_EXIT_FAIL;
    }
    if (rc != 0 && rc != SKIP_STATUS) {
        fprintf(stderr, "gk5 realm: '%s' exited with status %d; KDC log:\n",
                cmd[0], rc);
        show_kdc_log(&realm);
    }
    kind->stop(&realm);
    return g_signal != 0 ? 128 + g_signal : rc;
}

static int realm_stop(int argc, char **argv)
{
    char err[512];

    if (argc != 2) {
        cli_error("realm: usage: gk5 realm stop DIR");
        return cli_try_help("realm");
    }
    if (gk5_realm_kind_of(argv[1])->stop_in(argv[1], err, sizeof(err)) != 0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

static int realm_start(int argc, char **argv)
{
    gk5_mit_realm realm;
    char err[512];
    int i = 1, k = kdc_option(argc, argv, &i);
    const gk5_realm_kind *kind;

    if (k == -1) {
        return cli_try_help("realm");
    }
    kind = &gk5_realm_kinds[k < 0 ? 0 : k];
    if (argc != i + 1) {
        cli_error(
            "realm: usage: gk5 realm start [--kdc mit|heimdal|samba] DIR");
        return cli_try_help("realm");
    }
    if (kind->start_in(&realm, argv[i], err, sizeof(err)) != 0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    print_started(stdout, &realm, kind);
    return CLI_EXIT_OK;
}

static int realm_run(int argc, char **argv)
{
    int i = 1, tap = 0, k_run = 0;

    for (int k = 0; k < 2; k++) {
        int r = kdc_option(argc, argv, &i);
        if (r == -1) {
            return cli_try_help("realm");
        }
        if (r != NOT_KDC_OPTION) {
            k_run = r;
        } else if (i < argc && strcmp(argv[i], "--tap") == 0) {
            tap = 1;
            i++;
        }
    }
    if (i < argc && strcmp(argv[i], "--") == 0) {
        i++;
    }
    if (i >= argc) {
        cli_error("realm: usage: gk5 realm run [--kdc mit|heimdal|samba] "
                  "[--tap] [--] COMMAND [ARGS...]");
        return cli_try_help("realm");
    }
    return run_in_realm(tap, &gk5_realm_kinds[k_run], argv + i);
}

int gk5_cli_realm(int argc, char **argv)
{
    static const struct cli_command table[] = {
        {.name = "start", .run = realm_start},
        {.name = "stop", .run = realm_stop},
        {.name = "run", .run = realm_run},
    };
    static const struct cli_subcommands realm = {
        .cmd = "realm",
        .table = table,
        .count = GK5_ARRAY_SIZE(table),
        .usage = realm_usage,
        .noun = "operation",
        .flags = CLI_SUB_REQUIRED | CLI_SUB_TRY,
    };

    return cli_dispatch(&realm, argc, argv);
}
