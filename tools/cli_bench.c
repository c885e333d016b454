/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench and gk5 nfs4 bench: run gk5-bench (bench/main.c) with the same
 * arguments.
 *
 * The benchmark is a program of its own: it counts heap allocations by
 * defining malloc, calloc and realloc, which in a program replace them
 * everywhere, and it links MIT krb5 and gk5's internals to measure them.
 * gk5 keeps neither.  gk5-bench is looked for
 *   1. beside this gk5 (/proc/self/exe): where both are installed (bindir);
 *   2. in ../bench/ from there: the build tree (build/tools/gk5,
 *      build/bench/gk5-bench);
 *   3. in the bindir gk5 was configured with, for a gk5 run from elsewhere.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define BENCH_PROG "gk5-bench"
#define BENCH_PLACES 3

int cli_run_bench(const char *cmd, const char *lead, int argc, char **argv)
{
    char self[PATH_MAX];
    char path[BENCH_PLACES][PATH_MAX + sizeof("/../bench/" BENCH_PROG)];
    char looked[BENCH_PLACES * sizeof(path[0]) + 16];
    size_t n_paths = 0;
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (len > 0) {
        char *slash;

        self[len] = '\0';
        slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(path[n_paths++], sizeof(path[0]), "%s/" BENCH_PROG, self);
            snprintf(path[n_paths++], sizeof(path[0]),
                     "%s/../bench/" BENCH_PROG, self);
        }
    }
    snprintf(path[n_paths++], sizeof(path[0]), "%s/" BENCH_PROG, GK5_BINDIR);

    looked[0] = '\0';
    for (size_t i = 0; i < n_paths; i++) {
        if (access(path[i], X_OK) == 0) {
            /* gk5-bench [lead] argv[0 or 1 ..] NULL: with a lead word
             * (nfs4) the subcommand's own name follows it, so at most
             * the path, the lead, argc words and the NULL. */
            char **args = calloc((size_t)argc + 3, sizeof(*args));
            int n = 0;

            if (args == NULL) {
                cli_error("%s: out of memory", cmd);
                return CLI_EXIT_FAIL;
            }
            args[n++] = path[i];
            if (lead != NULL) {
                args[n++] = (char *)(uintptr_t)lead;
            }
            for (int k = lead != NULL ? 0 : 1; k < argc; k++) {
                args[n++] = argv[k];
            }
            args[n] = NULL;
            fflush(NULL);
            execv(path[i], args);
            cli_error("%s: cannot run %s: %s", cmd, path[i], strerror(errno));
            free(args);
            return CLI_EXIT_FAIL;
        }
        if (i == 0 || strcmp(path[i], path[0]) != 0) {
            snprintf(looked + strlen(looked), sizeof(looked) - strlen(looked),
                     "%s%s", i == 0 ? "" : ", ", path[i]);
        }
    }
    cli_error("%s: %s not found (looked for %s); it is built with "
              "-Dbench and installed beside gk5",
              cmd, BENCH_PROG, looked);
    return CLI_EXIT_FAIL;
}

int gk5_cli_bench(int argc, char **argv)
{
    return cli_run_bench("bench", NULL, argc, argv);
}
