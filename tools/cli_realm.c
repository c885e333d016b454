/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 realm: the throwaway MIT realm of support/realm (realm.h) for the
 * tests, benchmarks and anyone at a shell -- start one in a folder, stop
 * it, or run a command inside a fresh one that is removed afterwards.
 * tests/interop/kdc.sh is a wrapper over this command.  --kdc heimdal
 * makes the same realm on Heimdal's KDC (heimdal_kdc.h).
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
#include "realm.h"

/* The "skipped" status of meson and automake. */
#define SKIP_STATUS 77
/* Lines of the KDC's log shown when the command fails. */
#define LOG_TAIL 8

static void realm_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 realm start [--kdc mit|heimdal] DIR\n"
               "       gk5 realm stop DIR\n"
               "       gk5 realm run [--kdc mit|heimdal] [--tap] [--] COMMAND "
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
               "             the kind from DIR/kdc.kind\n"
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
               "conflicts with them).\n"
               "Exit status (start, stop): 0 done, 1 failed, 2 bad usage.\n");
}

static void print_started(FILE *f, const gk5_mit_realm *realm, int heimdal)
{
    fprintf(f, "gk5 realm: realm %s, %s pid %ld on 127.0.0.1:%d, %s\n",
            GK5_MIT_REALM_NAME, heimdal ? "Heimdal kdc" : "krb5kdc",
            (long)realm->kdc_pid, realm->port, realm->dir);
}

/* --kdc KIND at argv[*i]: 0 mit, 1 heimdal, -1 bad (said); *i moves past
 * it.  2 when argv[*i] is not --kdc. */
static int kdc_option(int argc, char **argv, int *i)
{
    if (*i >= argc || strcmp(argv[*i], "--kdc") != 0) {
        return 2;
    }
    if (*i + 1 >= argc) {
        cli_error("realm: --kdc needs mit or heimdal");
        return -1;
    }
    const char *kind = argv[*i + 1];
    *i += 2;
    if (strcmp(kind, "mit") == 0) {
        return 0;
    }
    if (strcmp(kind, "heimdal") == 0) {
        return 1;
    }
    cli_error("realm: unknown KDC '%s' (mit or heimdal)", kind);
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

static void stop_realm(gk5_mit_realm *realm, int heimdal)
{
    if (heimdal) {
        gk5_heimdal_realm_stop(realm);
    } else {
        gk5_mit_realm_stop(realm);
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

static int run_in_realm(int tap, int heimdal, char **cmd)
{
    static const int deferred[] = {SIGHUP, SIGINT, SIGTERM};
    gk5_mit_realm realm;
    char err[512];
    int status, rc;
    pid_t pid;

    if ((heimdal ? gk5_heimdal_kdc_tools_present(err, sizeof(err))
                 : gk5_mit_realm_tools_present(err, sizeof(err))) != 0) {
        if (tap) {
            printf("1..0 # SKIP %s\n", err);
            return CLI_EXIT_OK;
        }
        printf("SKIP: %s\n", err);
        return SKIP_STATUS;
    }
    if ((heimdal ? gk5_heimdal_realm_start(&realm, err, sizeof(err))
                 : gk5_mit_realm_start(&realm, err, sizeof(err))) != 0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    print_started(stderr, &realm, heimdal);
    if (setenv("GK5_REALM_DIR", realm.dir, 1) != 0 ||
        setenv("GK5_REALM_KDC", heimdal ? "heimdal" : "mit", 1) != 0) {
        stop_realm(&realm, heimdal);
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
    stop_realm(&realm, heimdal);
    return g_signal != 0 ? 128 + g_signal : rc;
}

/* argv[0] is "stop", "start" or "run", as for each subcommand. */
static int realm_stop(int argc, char **argv)
{
    char err[512];

    if (argc != 2) {
        cli_error("realm: usage: gk5 realm stop DIR");
        return cli_try_help("realm");
    }
    if ((gk5_realm_is_heimdal(argv[1])
             ? gk5_heimdal_realm_stop_in(argv[1], err, sizeof(err))
             : gk5_mit_realm_stop_in(argv[1], err, sizeof(err))) != 0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

static int realm_start(int argc, char **argv)
{
    gk5_mit_realm realm;
    char err[512];
    int i = 1, heimdal = kdc_option(argc, argv, &i);

    if (heimdal < 0) {
        return cli_try_help("realm");
    }
    if (argc != i + 1) {
        cli_error("realm: usage: gk5 realm start [--kdc mit|heimdal] DIR");
        return cli_try_help("realm");
    }
    if ((heimdal == 1
             ? gk5_heimdal_realm_start_in(&realm, argv[i], err, sizeof(err))
             : gk5_mit_realm_start_in(&realm, argv[i], err, sizeof(err))) !=
        0) {
        cli_error("realm: %s", err);
        return CLI_EXIT_FAIL;
    }
    print_started(stdout, &realm, heimdal == 1);
    return CLI_EXIT_OK;
}

static int realm_run(int argc, char **argv)
{
    int i = 1, tap = 0, heimdal = 0;

    for (int k = 0; k < 2; k++) {
        int r = kdc_option(argc, argv, &i);
        if (r < 0) {
            return cli_try_help("realm");
        }
        if (r != 2) {
            heimdal = r;
        } else if (i < argc && strcmp(argv[i], "--tap") == 0) {
            tap = 1;
            i++;
        }
    }
    if (i < argc && strcmp(argv[i], "--") == 0) {
        i++;
    }
    if (i >= argc) {
        cli_error("realm: usage: gk5 realm run [--kdc mit|heimdal] "
                  "[--tap] [--] COMMAND [ARGS...]");
        return cli_try_help("realm");
    }
    return run_in_realm(tap, heimdal, argv + i);
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
