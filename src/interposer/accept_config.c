/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The module's config line, which says whether gss_accept_sec_context is
 * answered by gk5's own acceptor (accept.c) instead of MIT's:
 *
 *     gk5_mech <OID> <path> [accept=native] <interposer>
 *
 * MIT's mechglue keeps the bracketed options of a line to itself, so the
 * module reads its own line.  Here: a file's lines scanned for the one
 * naming the module's OID, its options read, and the OID's dotted text;
 * which files, and when, is accept_config_files.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "interposer/interposer.h"

#define CFG_LINE_MAX 2048  /* longer lines are skipped, with a trace */
#define CFG_LINES_MAX 4096 /* per file */
#define CFG_OPT_MAX 128    /* one option */

int gki_oid_text(const gss_OID_desc *oid, char *out, size_t n)
{
    struct gk5i_rd r;
    uint64_t v = 0;
    size_t at = 0;
    int first = 1, pending = 0;

    gk5i_rd_init(&r, oid->elements, oid->length);
    while (gk5i_rd_left(&r) > 0) {
        uint8_t b = gk5i_get_u8(&r);
        int w;

        if (v > (UINT64_MAX >> 7)) {
            return -1;
        }
        v = v << 7 | (b & 0x7fu);
        pending = (b & 0x80u) != 0;
        if (pending) {
            continue;
        }
        if (first) {
            unsigned a = v < 40 ? 0 : v < 80 ? 1 : 2;

            w = snprintf(out + at, n - at, "%u.%llu", a,
                         (unsigned long long)(v - 40u * a));
            first = 0;
        } else {
            w = snprintf(out + at, n - at, ".%llu", (unsigned long long)v);
        }
        if (w < 0 || (size_t)w >= n - at) {
            return -1;
        }
        at += (size_t)w;
        v = 0;
    }
    return first || pending ? -1 : 0;
}

/* The options between the brackets of our line: 1 native, 0 MIT, each
 * unknown option named in the trace. */
static int parse_options(const char *opts, const char *where)
{
    int native = 0;
    const char *p = opts;

    while (*p != '\0') {
        size_t n;

        while (*p == ' ' || *p == '\t' || *p == ',') {
            p++;
        }
        n = strcspn(p, " \t,");
        if (n == 0) {
            break;
        }
        if (n == 13 && strncmp(p, "accept=native", n) == 0) {
            native = 1;
        } else if (n == 10 && strncmp(p, "accept=mit", n) == 0) {
            native = 0;
        } else {
            gki_trace("gk5_mech: %s: unknown option \"%.*s\" ignored", where,
                      (int)(n < CFG_OPT_MAX ? n : CFG_OPT_MAX), p);
        }
        p += n;
    }
    return native;
}

/* One line: -1 when it is not our OID's; else 1 or 0 as its options ask.
 * "name OID path [kernel-module] [options] <modifiers>" */
static int parse_line(char *line, const char *oid, const char *where)
{
    char *save = NULL, *tok, *open, *close;

    line[strcspn(line, "\r\n")] = '\0';
    tok = line + strspn(line, " \t");
    if (*tok == '#' || *tok == '\0') {
        return -1;
    }
    tok = strtok_r(tok, " \t", &save); /* name */
    tok = tok != NULL ? strtok_r(NULL, " \t", &save) : NULL;
    if (tok == NULL || strcmp(tok, oid) != 0) {
        return -1;
    }
    if (strtok_r(NULL, " \t", &save) == NULL) { /* the path */
        return -1;
    }
    if (save == NULL) {
        return 0;
    }
    open = strchr(save, '[');
    if (open == NULL) {
        return 0;
    }
    close = strchr(open, ']');
    if (close == NULL) {
        gki_trace("gk5_mech: %s: '[' without ']': options ignored", where);
        return 0;
    }
    *close = '\0';
    return parse_options(open + 1, where);
}

void gki_config_scan(FILE *f, const char *path, const char *oid, int *native)
{
    char line[CFG_LINE_MAX], where[CFG_LINE_MAX / 2];
    int skipping = 0;

    for (unsigned no = 1; no <= CFG_LINES_MAX; no++) {
        size_t len;
        int got;

        if (fgets(line, sizeof(line), f) == NULL) {
            break;
        }
        len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            if (!skipping) {
                gki_trace("gk5_mech: %s:%u: line longer than %d bytes "
                          "skipped",
                          path, no, CFG_LINE_MAX - 1);
            }
            skipping = 1;
            no--;
            continue;
        }
        if (skipping) {
            skipping = 0;
            continue;
        }
        snprintf(where, sizeof(where), "%s:%u", path, no);
        got = parse_line(line, oid, where);
        if (got >= 0) {
            *native = got;
        }
    }
}
