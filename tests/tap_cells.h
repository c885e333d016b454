/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * TAP for gk5's C test programs that report one line per cell (the interop
 * suites): "ok N - NAME" or "not ok N - NAME" with the reason as a
 * diagnostic, "# SKIP" cells, and the plan last.  Header-only: one copy per
 * program.
 */
#ifndef GK5_TESTS_TAP_CELLS_H
#define GK5_TESTS_TAP_CELLS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int g_cells;
static int g_failed;

/* One TAP line; on failure, the reason as a TAP diagnostic.  A '#' or a
 * newline in the name would start a directive or a line: made spaces. */
static bool cell(bool ok, const char *name, const char *why_fmt, ...)
    __attribute__((format(printf, 3, 4), unused));

static bool cell(bool ok, const char *name, const char *why_fmt, ...)
{
    char clean[1024];

    snprintf(clean, sizeof(clean), "%s", name);
    for (char *c = clean; *c != '\0'; c++) {
        if (*c == '#' || *c == '\n') {
            *c = ' ';
        }
    }
    g_cells++;
    printf("%s %d - %s\n", ok ? "ok" : "not ok", g_cells, clean);
    if (!ok) {
        va_list ap;
        g_failed++;
        printf("# ");
        va_start(ap, why_fmt);
        vprintf(why_fmt, ap);
        va_end(ap);
        printf("\n");
    }
    fflush(stdout);
    return ok;
}

static __attribute__((unused)) void skip_cell(const char *name, const char *why)
{
    g_cells++;
    printf("ok %d - %s # SKIP %s\n", g_cells, name, why);
}

/* The plan and a count of failures; the exit status. */
static __attribute__((unused)) int tap_finish(void)
{
    printf("1..%d\n", g_cells);
    if (g_failed > 0) {
        printf("# %d of %d cells failed\n", g_failed, g_cells);
    }
    fflush(stdout);
    return g_failed > 0 ? 1 : 0;
}

#endif /* GK5_TESTS_TAP_CELLS_H */
