/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Helpers shared by the gk5 command-line tool: hex in and out, whole-file
 * and whole-stream reads, atomic private file writes, messages.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "cli.h"

#define CLI_PROG "gk5"

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s: ", CLI_PROG, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage("warning", fmt, ap);
    va_end(ap);
}

int cli_option_error(const char *cmd, int c, char **argv)
{
    /* getopt_long has advanced optind past the offending word. */
    const char *word =
        (optind > 0 && argv[optind - 1] != NULL) ? argv[optind - 1] : "?";

    if (c == ':') {
        cli_error("%s: option '%s' needs an argument", cmd, word);
    } else if (optopt != 0 && word[0] == '-' && word[1] == '-') {
        /* A known long option given "=value" that it does not take. */
        cli_error("%s: option '%.*s' takes no argument", cmd,
                  (int)strcspn(word, "="), word);
    } else if (optopt != 0) {
        cli_error("%s: unknown option '-%c'", cmd, optopt);
    } else {
        cli_error("%s: unknown option '%s'", cmd, word);
    }
    fprintf(stderr, "Try 'gk5 %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_parse_u32(const char *s, uint32_t *out)
{
    unsigned long long v;
    char *end = NULL;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1; /* no sign, no space, not empty */
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

void cli_free_secret(void *p, size_t n)
{
    if (p != NULL) {
        zap(p, n);
        free(p);
    }
}

static int hex_digit(int c)
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

/* Hex digits, optionally grouped with spaces (as the RFCs print them). */
int cli_hex_decode(const char *hex, uint8_t **out, size_t *out_len)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    int hi = -1;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    if (hex == NULL) {
        goto cleanup;
    }
    if (strcmp(hex, "-") == 0) {
        hex = "";
    }
    /* At most strlen/2 bytes; +1 so that empty input still gets a buffer. */
    buf = malloc(strlen(hex) / 2 + 1);
    if (buf == NULL) {
        goto cleanup;
    }
    for (const char *p = hex; *p != '\0'; p++) {
        int d;

        if (*p == ' ' || *p == '\t' || *p == '\n') {
            if (hi >= 0) {
                goto cleanup; /* a space inside a byte */
            }
            continue;
        }
        d = hex_digit((unsigned char)*p);
        if (d < 0) {
            goto cleanup;
        }
        if (hi < 0) {
            hi = d;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    if (hi >= 0) {
        goto cleanup; /* odd number of digits */
    }
    *out = buf;
    *out_len = n;
    buf = NULL;
    ret = 0;

cleanup:
    cli_free_secret(buf, n);
    return ret;
}

void cli_hex_print(FILE *f, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        fputc(digits[p[i] >> 4], f);
        fputc(digits[p[i] & 0xf], f);
    }
    fputc('\n', f);
}

/* Grows without realloc so that no copy of the data (a context file holds
 * keys) is left behind in freed memory. */
static int read_stream(FILE *f, const char *what, uint8_t **out,
                       size_t *out_len)
{
    uint8_t *buf = NULL;
    size_t cap = 4096;
    size_t n = 0;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    buf = malloc(cap);
    if (buf == NULL) {
        cli_error("%s: out of memory", what);
        goto cleanup;
    }
    for (;;) {
        size_t got;

        if (n == cap) {
            uint8_t *bigger = NULL;

            if (cap > SIZE_MAX / 2) {
                cli_error("%s: too large", what);
                goto cleanup;
            }
            bigger = malloc(cap * 2);
            if (bigger == NULL) {
                cli_error("%s: out of memory", what);
                goto cleanup;
            }
            memcpy(bigger, buf, n);
            cli_free_secret(buf, cap);
            buf = bigger;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        cli_error("%s: read error: %s", what, strerror(errno));
        goto cleanup;
    }
    *out = buf;
    *out_len = n;
    buf = NULL;
    ret = 0;

cleanup:
    cli_free_secret(buf, cap);
    return ret;
}

int cli_read_all(FILE *f, uint8_t **out, size_t *out_len)
{
    return read_stream(f, "standard input", out, out_len);
}

int cli_read_file(const char *path, uint8_t **out, size_t *out_len)
{
    FILE *f = NULL;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    f = fopen(path, "rb");
    if (f == NULL) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        goto cleanup;
    }
    ret = read_stream(f, path, out, out_len);

cleanup:
    if (f != NULL) {
        fclose(f);
    }
    return ret;
}

/* Written to a private temporary file beside path, then renamed over it:
 * a context file holds keys (mode 0600), and a reader never sees half of
 * one, even when path is the file the context was read from. */
int cli_write_file(const char *path, const uint8_t *p, size_t n)
{
    char *tmp = NULL;
    size_t plen = strlen(path);
    int fd = -1;
    int ret = -1;

    tmp = malloc(plen + sizeof(".XXXXXX"));
    if (tmp == NULL) {
        cli_error("cannot write '%s': out of memory", path);
        goto cleanup;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".XXXXXX", sizeof(".XXXXXX"));
    fd = mkstemp(tmp); /* creates the file with mode 0600 */
    if (fd < 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        tmp = NULL;
        goto cleanup;
    }
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            cli_error("cannot write '%s': %s", path, strerror(errno));
            goto cleanup;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        cli_error("cannot write '%s': %s", path, strerror(errno));
        goto cleanup;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        goto cleanup;
    }
    free(tmp);
    tmp = NULL;
    ret = 0;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (tmp != NULL) {
        unlink(tmp);
        free(tmp);
    }
    return ret;
}
