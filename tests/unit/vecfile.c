/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Reader for the known-answer files in tests/vectors/ (format: vecfile.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gk5/crypto.h>

#include "vecfile.h"

struct vec_field {
    char *name;
    char *value; /* trimmed; quotes kept */
    unsigned line;
    bool used;
    bool decoded;
    uint8_t *bytes;
    size_t nbytes;
};

struct vec_block {
    vec_file *file;
    unsigned line;
    char where[256];
    struct vec_field *fields;
    size_t n;
    size_t cap;
    const char *source;
};

struct vec_file {
    FILE *fp;
    char *name;
    unsigned lineno;
    vec_block *cur;
    char *buf;
    size_t bufcap;
};

static vec_fail_hook fail_hook;

void vec_set_fail_hook(vec_fail_hook hook)
{
    fail_hook = hook;
}

static void vec_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void vec_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (fail_hook != NULL) {
        fail_hook(msg);
    } else {
        fail_msg("%s", msg);
    }
    /* Neither may return: cmocka longjmps out of a failed test. */
    abort();
}

/* ---- Files and blocks ---- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n == 0 ? 1 : n);

    if (p == NULL) {
        vec_fail("vecfile: out of memory");
    }
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static void block_free(vec_block *b)
{
    if (b == NULL) {
        return;
    }
    for (size_t i = 0; i < b->n; i++) {
        free(b->fields[i].name);
        free(b->fields[i].value);
        free(b->fields[i].bytes);
    }
    free(b->fields);
    free(b);
}

vec_file *vec_open_path(const char *path)
{
    vec_file *f = xmalloc(sizeof(*f));
    const char *slash = strrchr(path, '/');

    memset(f, 0, sizeof(*f));
    f->fp = fopen(path, "r");
    if (f->fp == NULL) {
        int err = errno;

        free(f);
        vec_fail("%s: cannot open: %s", path, strerror(err));
    }
    f->name = xstrndup(slash != NULL ? slash + 1 : path,
                       strlen(slash != NULL ? slash + 1 : path));
    return f;
}

vec_file *vec_open(const char *name)
{
    const char *dir = getenv("GK5_VECTORS_DIR");
    char path[4096];

    if (dir == NULL || dir[0] == '\0') {
        vec_fail("GK5_VECTORS_DIR is not set (run the tests with meson "
                 "test)");
    }
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
        sizeof(path)) {
        vec_fail("%s/%s: path too long", dir, name);
    }
    return vec_open_path(path);
}

void vec_close(vec_file *f)
{
    if (f == NULL) {
        return;
    }
    block_free(f->cur);
    if (f->fp != NULL) {
        fclose(f->fp);
    }
    free(f->buf);
    free(f->name);
    free(f);
}

const char *vec_file_name(const vec_file *f)
{
    return f->name;
}

const char *vec_where(const vec_block *b)
{
    return b->where;
}

const char *vec_source(const vec_block *b)
{
    return b->source;
}

/* Reads one line into f->buf without its line ending; false at EOF. */
static bool read_line(vec_file *f)
{
    size_t len = 0;
    int c;

    if (f->buf == NULL) {
        f->bufcap = 256;
        f->buf = xmalloc(f->bufcap);
    }
    while ((c = fgetc(f->fp)) != EOF && c != '\n') {
        if (len + 1 >= f->bufcap) {
            char *nb = realloc(f->buf, f->bufcap * 2);

            if (nb == NULL) {
                vec_fail("vecfile: out of memory");
            }
            f->buf = nb;
            f->bufcap *= 2;
        }
        f->buf[len++] = (char)c;
    }
    if (c == EOF && len == 0) {
        return false;
    }
    if (len > 0 && f->buf[len - 1] == '\r') {
        len--;
    }
    f->buf[len] = '\0';
    f->lineno++;
    return true;
}

static char *trim(char *s, size_t *len)
{
    size_t n = strlen(s);

    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    *len = n;
    return s;
}

static struct vec_field *find_field(const vec_block *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++) {
        if (strcmp(b->fields[i].name, name) == 0) {
            return &b->fields[i];
        }
    }
    return NULL;
}

static void add_field(vec_block *b, const char *line, unsigned lineno)
{
    const char *eq = strchr(line, '=');
    const char *fname = b->file->name;
    char *name_part;
    char *value_part;
    const char *name;
    const char *value;
    size_t name_len;
    size_t value_len;
    struct vec_field *fld;

    if (eq == NULL) {
        vec_fail("%s:%u: expected `name = value`, got \"%s\"", fname, lineno,
                 line);
    }
    name_part = xstrndup(line, (size_t)(eq - line));
    value_part = xstrndup(eq + 1, strlen(eq + 1));
    name = trim(name_part, &name_len);
    value = trim(value_part, &value_len);
    if (name_len == 0) {
        free(name_part);
        free(value_part);
        vec_fail("%s:%u: field without a name", fname, lineno);
    }
    for (size_t i = 0; i < name_len; i++) {
        unsigned char c = (unsigned char)name[i];

        if (!(islower(c) || isdigit(c) || c == '_')) {
            char bad[128];

            snprintf(bad, sizeof(bad), "%.*s", (int)name_len, name);
            free(name_part);
            free(value_part);
            vec_fail("%s:%u: bad field name \"%s\" (use [a-z0-9_])", fname,
                     lineno, bad);
        }
    }
    if (value_len > 0 && value[0] == '"' &&
        (value_len < 2 || value[value_len - 1] != '"')) {
        free(name_part);
        free(value_part);
        vec_fail("%s:%u: unterminated quoted string", fname, lineno);
    }
    if (b->n == b->cap) {
        size_t ncap = b->cap == 0 ? 8 : b->cap * 2;
        struct vec_field *nf = realloc(b->fields, ncap * sizeof(*nf));

        if (nf == NULL) {
            free(name_part);
            free(value_part);
            vec_fail("vecfile: out of memory");
        }
        b->fields = nf;
        b->cap = ncap;
    }
    fld = &b->fields[b->n];
    memset(fld, 0, sizeof(*fld));
    fld->name = xstrndup(name, name_len);
    fld->value = xstrndup(value, value_len);
    fld->line = lineno;
    free(name_part);
    free(value_part);
    b->n++;
    for (size_t i = 0; i + 1 < b->n; i++) {
        if (strcmp(b->fields[i].name, fld->name) == 0) {
            vec_fail("%s:%u: field \"%s\" given twice in the block (first "
                     "at line %u)",
                     fname, lineno, fld->name, b->fields[i].line);
        }
    }
}

/* A source names an RFC and its section ("RFC 3961 A.1"), the reference
 * file the data came from ("... via shared/reference/mit_krb5_kats.txt",
 * a file kept beside the repository: docs/design.md, "Reference data"), or
 * the program in this repository that captured it from a real peer ("MIT
 * krb5 1.20.1 gss_init_sec_context (Debian 12), captured by
 * tests/interop/test_native_accept.c --dump"): data no RFC or reference
 * file holds, such as a peer's AP-REQ, regenerated by running it. */
static bool source_ok(const char *s)
{
    if (strstr(s, "captured by tests/") != NULL) {
        return true;
    }
    if (strncmp(s, "RFC ", 4) == 0) {
        const char *p = s + 4;

        if (!isdigit((unsigned char)*p)) {
            return false;
        }
        while (isdigit((unsigned char)*p)) {
            p++;
        }
        /* then at least one space and a section */
        if (*p != ' ') {
            return false;
        }
        while (*p == ' ') {
            p++;
        }
        return *p != '\0';
    }
    return strstr(s, "shared/reference/") != NULL;
}

vec_block *vec_next(vec_file *f)
{
    vec_block *b;
    struct vec_field *src;

    block_free(f->cur);
    f->cur = NULL;
    for (;;) {
        size_t len;
        const char *line;

        if (!read_line(f)) {
            return NULL;
        }
        line = trim(f->buf, &len);
        if (len != 0 && line[0] != '#') {
            break;
        }
    }
    b = xmalloc(sizeof(*b));
    memset(b, 0, sizeof(*b));
    b->file = f;
    b->line = f->lineno;
    snprintf(b->where, sizeof(b->where), "%s:%u", f->name, f->lineno);
    f->cur = b;
    do {
        size_t len;
        char *line = trim(f->buf, &len);

        if (len == 0) {
            break;
        }
        if (line[0] == '#') {
            continue;
        }
        line[len] = '\0';
        add_field(b, line, f->lineno);
    } while (read_line(f));

    src = find_field(b, "source");
    if (src == NULL) {
        vec_fail("%s: block has no `source = ...` (RFC and section, or the "
                 "reference file)",
                 b->where);
    }
    if (!source_ok(src->value)) {
        vec_fail("%s:%u: source \"%s\" names neither an RFC and section "
                 "(\"RFC 3962 Appendix B\") nor a shared/reference/ file "
                 "nor the program it was \"captured by tests/...\"",
                 f->name, src->line, src->value);
    }
    src->used = true;
    b->source = src->value;
    return b;
}

/* ---- Field access ---- */

static struct vec_field *need(vec_block *b, const char *name)
{
    struct vec_field *fld = find_field(b, name);

    if (fld == NULL) {
        vec_fail("%s: required field \"%s\" missing", b->where, name);
    }
    fld->used = true;
    return fld;
}

bool vec_has(const vec_block *b, const char *name)
{
    return find_field(b, name) != NULL;
}

static bool is_quoted(const struct vec_field *fld)
{
    return fld->value[0] == '"';
}

static const char *field_str(struct vec_field *fld)
{
    if (is_quoted(fld) && !fld->decoded) {
        size_t n = strlen(fld->value) - 2;

        fld->bytes = (uint8_t *)xstrndup(fld->value + 1, n);
        fld->nbytes = n;
        fld->decoded = true;
    }
    return is_quoted(fld) ? (const char *)fld->bytes : fld->value;
}

const char *vec_str(vec_block *b, const char *name)
{
    return field_str(need(b, name));
}

const char *vec_opt_str(vec_block *b, const char *name, const char *def)
{
    if (!vec_has(b, name)) {
        return def;
    }
    return vec_str(b, name);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

static void decode_bytes(vec_block *b, struct vec_field *fld)
{
    const char *v = fld->value;
    size_t vlen = strlen(v);
    size_t digits = 0;
    uint8_t *out;
    size_t n = 0;
    int hi = -1;

    if (fld->decoded) {
        return;
    }
    if (is_quoted(fld)) {
        (void)field_str(fld);
        return;
    }
    if (strcmp(v, "-") == 0 || vlen == 0) {
        fld->bytes = xmalloc(1);
        fld->nbytes = 0;
        fld->decoded = true;
        return;
    }
    for (size_t i = 0; i < vlen; i++) {
        if (v[i] == ' ' || v[i] == '\t') {
            continue;
        }
        if (hexval(v[i]) < 0) {
            vec_fail("%s:%u: field \"%s\": '%c' at column %zu is not a hex "
                     "digit (quote strings: \"...\")",
                     b->file->name, fld->line, fld->name, v[i], i + 1);
        }
        digits++;
    }
    if (digits % 2 != 0) {
        vec_fail("%s:%u: field \"%s\": odd number of hex digits (%zu)",
                 b->file->name, fld->line, fld->name, digits);
    }
    out = xmalloc(digits / 2);
    for (size_t i = 0; i < vlen; i++) {
        int d = hexval(v[i]);

        if (d < 0) {
            continue;
        }
        if (hi < 0) {
            hi = d;
        } else {
            out[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    fld->bytes = out;
    fld->nbytes = n;
    fld->decoded = true;
}

size_t vec_bytes(vec_block *b, const char *name, const uint8_t **out)
{
    struct vec_field *fld = need(b, name);

    decode_bytes(b, fld);
    *out = fld->bytes;
    return fld->nbytes;
}

bool vec_opt_bytes(vec_block *b, const char *name, const uint8_t **out,
                   size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!vec_has(b, name)) {
        return false;
    }
    *len = vec_bytes(b, name, out);
    return true;
}

int64_t vec_int(vec_block *b, const char *name, int64_t min, int64_t max)
{
    struct vec_field *fld = need(b, name);
    const char *v = fld->value;
    char *end = NULL;
    long long x;

    if (is_quoted(fld) || v[0] == '\0' ||
        !(isdigit((unsigned char)v[0]) ||
          (v[0] == '-' && isdigit((unsigned char)v[1])))) {
        vec_fail("%s:%u: field \"%s\": \"%s\" is not a decimal integer",
                 b->file->name, fld->line, name, v);
    }
    errno = 0;
    x = strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0') {
        vec_fail("%s:%u: field \"%s\": \"%s\" is not a decimal integer",
                 b->file->name, fld->line, name, v);
    }
    if (x < min || x > max) {
        vec_fail("%s:%u: field \"%s\": %lld is outside [%" PRId64 ", %" PRId64
                 "]",
                 b->file->name, fld->line, name, x, min, max);
    }
    return (int64_t)x;
}

int64_t vec_opt_int(vec_block *b, const char *name, int64_t min, int64_t max,
                    int64_t def)
{
    if (!vec_has(b, name)) {
        return def;
    }
    return vec_int(b, name, min, max);
}

void vec_done(vec_block *b)
{
    for (size_t i = 0; i < b->n; i++) {
        if (!b->fields[i].used) {
            vec_fail("%s:%u: field \"%s\" was never read (unknown or "
                     "misspelt?)",
                     b->file->name, b->fields[i].line, b->fields[i].name);
        }
    }
}

/* ---- Crypto-test helpers ---- */

const char *vec_rc_str(uint32_t rc)
{
    static char buf[96];

    if (rc == 0) {
        snprintf(buf, sizeof(buf), "0 (OK)");
    } else {
        snprintf(buf, sizeof(buf),
                 "0x%08" PRIx32 " (code %" PRIu32 ", enctype field %" PRId32
                 ")",
                 rc, (uint32_t)GK5_ERR_CODE(rc), GK5_ERR_ENCTYPE(rc));
    }
    return buf;
}

enum vec_et_state vec_enctype_state(const vec_block *b, int32_t enctype)
{
    uint32_t rc = gk5_enctype_check(enctype);
    const char *des3 = getenv("GK5_DES3");

    if (rc == 0) {
        return VEC_ET_BUILT;
    }
    if (GK5_ERR_ENCTYPE(rc) != enctype) {
        vec_fail("%s: gk5_enctype_check(%" PRId32 ") = %s names another "
                 "enctype",
                 b->where, enctype, vec_rc_str(rc));
    }
    if (GK5_ERR_CODE(rc) == GK5_ERR_ENCTYPE_NOT_BUILT) {
        if (des3 != NULL && strcmp(des3, "1") == 0) {
            vec_fail("%s: enctype %" PRId32 " not built, but this is a "
                     "-Ddes3=true build",
                     b->where, enctype);
        }
        return VEC_ET_NOT_BUILT;
    }
    if (GK5_ERR_CODE(rc) == GK5_ERR_ENCTYPE_REJECTED) {
        return VEC_ET_REJECTED;
    }
    vec_fail("%s: enctype %" PRId32 " refused with %s", b->where, enctype,
             vec_rc_str(rc));
}

void vec_tally_init(vec_tally *t, const char *file)
{
    memset(t, 0, sizeof(*t));
    t->file = file;
}

static void print_hex(const char *label, const void *p, size_t n)
{
    const uint8_t *u = p;
    char line[2 * 64 + 1];
    size_t i = 0;

    print_message("      %s (%zu bytes):%s", label, n, n == 0 ? " -\n" : "\n");
    while (i < n) {
        size_t k = 0;

        for (; k < 64 && i < n; k++, i++) {
            snprintf(line + 2 * k, 3, "%02x", u[i]);
        }
        line[2 * k] = '\0';
        print_message("        %s\n", line);
    }
}

bool vec_check_bytes(vec_tally *t, const vec_block *b, const char *what,
                     const void *got, size_t got_len, const void *want,
                     size_t want_len)
{
    if (got_len == want_len &&
        (want_len == 0 || memcmp(got, want, want_len) == 0)) {
        return true;
    }
    t->current_failed = true;
    if (t->quiet) {
        return false;
    }
    print_message("    FAIL %s: %s mismatch\n", b->where, what);
    print_hex("got ", got, got_len);
    print_hex("want", want, want_len);
    return false;
}

bool vec_check_rc(vec_tally *t, const vec_block *b, const char *what,
                  uint32_t got, uint32_t want)
{
    char gotbuf[96];

    if (got == want) {
        return true;
    }
    t->current_failed = true;
    if (t->quiet) {
        return false;
    }
    snprintf(gotbuf, sizeof(gotbuf), "%s", vec_rc_str(got));
    print_message("    FAIL %s: %s returned %s, want %s\n", b->where, what,
                  gotbuf, vec_rc_str(want));
    return false;
}

bool vec_check_size(vec_tally *t, const vec_block *b, const char *what,
                    size_t got, size_t want)
{
    if (got == want) {
        return true;
    }
    t->current_failed = true;
    if (!t->quiet) {
        print_message("    FAIL %s: %s is %zu, want %zu\n", b->where, what, got,
                      want);
    }
    return false;
}

void vec_tally_end(vec_tally *t)
{
    if (t->current_failed) {
        t->failed++;
    } else {
        t->passed++;
    }
    t->current_failed = false;
}

void vec_tally_skip(vec_tally *t)
{
    t->skipped++;
    t->current_failed = false;
}

void vec_tally_refused(vec_tally *t)
{
    if (t->current_failed) {
        t->failed++;
    } else {
        t->refused++;
    }
    t->current_failed = false;
}

void vec_tally_finish(vec_tally *t)
{
    unsigned total = t->passed + t->skipped + t->refused + t->failed;

    print_message("  %s: %u vectors: %u passed, %u skipped (enctype not "
                  "built), %u refused as expected, %u failed\n",
                  t->file, total, t->passed, t->skipped, t->refused, t->failed);
    if (t->failed != 0) {
        fail_msg("%s: %u of %u vectors failed", t->file, t->failed, total);
    }
    if (total == 0) {
        fail_msg("%s: no vectors", t->file);
    }
    if (t->passed == 0 && t->refused == 0) {
        skip();
    }
}
