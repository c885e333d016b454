/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Helpers shared by the gk5 command-line tool: hex in and out, whole-file
 * and whole-stream reads, locked context files, atomic private file
 * writes, messages, and the one subcommand table and dispatcher.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

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

double cli_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage("warning", fmt, ap);
    va_end(ap);
}

bool cli_is_help(const char *word)
{
    return strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0 ||
           strcmp(word, "help") == 0;
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
    return cli_try_help(cmd);
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end = NULL;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1; /* no sign, no space, not empty */
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v > UINT32_MAX) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int cli_parse_size(const char *s, size_t max, size_t *out)
{
    unsigned long long v, mult = 1;
    char *end = NULL;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0) {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        mult = 1024;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        mult = 1024 * 1024;
        end++;
    } else if (*end == 'g' || *end == 'G') {
        mult = 1024ull * 1024 * 1024;
        end++;
    }
    if (*end != '\0' || v > max / mult) {
        return -1;
    }
    *out = (size_t)(v * mult);
    return 0;
}

int cli_bad_number(const char *cmd, const char *opt, const char *s,
                   const char *range)
{
    cli_error("%s: %s: '%s' is not a number%s%s", cmd, opt, s,
              range != NULL ? " " : "", range != NULL ? range : "");
    return CLI_EXIT_USAGE;
}

int cli_check_key_length(const char *cmd, const char *opt, int32_t enctype,
                         size_t len)
{
    gk5_enctype_desc d;

    /* An enctype gk5 refuses has no key length to hold the key to: the
     * operation reports the refusal itself. */
    if (gk5_enctype_check(enctype) != GK5_OK ||
        gk5_enctype_describe(enctype, &d) != GK5_OK || d.key_bytes == len) {
        return 0;
    }
    cli_error("%s: %s: %s needs a %zu-byte key (%zu hex digits), got %zu "
              "byte%s",
              cmd, opt, d.name, d.key_bytes, 2 * d.key_bytes, len,
              len == 1 ? "" : "s");
    return -1;
}

const char *cli_gss_words(uint32_t major, uint32_t minor, char *buf, size_t len)
{
    char major_words[512];
    const char *minor_words;

    /* Both may come from the same thread-local buffer: copy the first. */
    snprintf(major_words, sizeof(major_words), "%s",
             gk5_display_status(major, 0));
    if (minor == 0) {
        snprintf(buf, len, "%s", major_words);
        return buf;
    }
    minor_words = gk5_strerror(minor);
    /* "the security context has expired" is both the major status's words
     * and the minor code's: say it once. */
    if (strstr(major_words, minor_words) != NULL) {
        snprintf(buf, len, "%s", major_words);
    } else if (strstr(minor_words, major_words) != NULL) {
        snprintf(buf, len, "%s", minor_words);
    } else {
        snprintf(buf, len, "%s: %s", major_words, minor_words);
    }
    return buf;
}

int cli_gss_fail(const char *cmd, const char *what, uint32_t major,
                 uint32_t minor)
{
    char words[1024];

    cli_error("%s: %s%s%s: %s", cmd, what, *what != '\0' ? ": " : "",
              gk5_major_name(major),
              cli_gss_words(major, minor, words, sizeof(words)));
    return CLI_EXIT_FAIL;
}

int cli_try_help(const char *cmd)
{
    fprintf(stderr, "Try 'gk5 %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_required(const char *cmd, const char *what)
{
    cli_error("%s: %s is required", cmd, what);
    return cli_try_help(cmd);
}

/* ---- Subcommand tables ---- */

const struct cli_command *cli_command_find(const struct cli_command *table,
                                           size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(table[i].name, name) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

/* The subcommands' names into buf: "a, b, c", or "a, b or c" when
 * last_or. */
static const char *command_names(const struct cli_subcommands *sub,
                                 bool last_or, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sub->count && at < len; i++) {
        const char *sep = ", ";
        int n;

        if (i == 0) {
            sep = "";
        } else if (last_or && i + 1 == sub->count) {
            sep = " or ";
        }
        n = snprintf(buf + at, len - at, "%s%s", sep, sub->table[i].name);
        if (n < 0) {
            break;
        }
        at += (size_t)n;
    }
    return buf;
}

/* "unknown command 'x' (a, b)", "expected a, b or c before '-x'" and the
 * hint, as sub->flags say: CLI_EXIT_USAGE. */
static int unknown_subcommand(const struct cli_subcommands *sub,
                              const char *word)
{
    char names[256];

    if ((sub->flags & CLI_SUB_DASH) != 0 && word[0] == '-') {
        if ((sub->flags & CLI_SUB_LIST) != 0) {
            cli_error("%s: expected %s before '%s'", sub->cmd,
                      command_names(sub, true, names, sizeof(names)), word);
        } else {
            cli_error("%s: expected %s %s before '%s'", sub->cmd,
                      strchr("aeiou", sub->noun[0]) != NULL ? "an" : "a",
                      sub->noun, word);
        }
    } else if ((sub->flags & CLI_SUB_LIST) != 0) {
        cli_error("%s: unknown %s '%s' (%s)", sub->cmd, sub->noun, word,
                  command_names(sub, false, names, sizeof(names)));
    } else {
        cli_error("%s: unknown %s '%s'", sub->cmd, sub->noun, word);
    }
    return (sub->flags & CLI_SUB_TRY) != 0 ? cli_try_help(sub->cmd)
                                           : CLI_EXIT_USAGE;
}

int cli_dispatch(const struct cli_subcommands *sub, int argc, char **argv)
{
    const char *word = argc > 1 ? argv[1] : NULL;
    const struct cli_command *c;
    char names[256];

    if ((sub->flags & CLI_SUB_REQUIRED) != 0 &&
        (word == NULL || word[0] == '\0')) {
        cli_error("%s: %s is required", sub->cmd,
                  command_names(sub, true, names, sizeof(names)));
        return cli_try_help(sub->cmd);
    }
    if (word == NULL) {
        sub->usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if ((sub->flags & CLI_SUB_HELP_WORD) != 0
            ? cli_is_help(word)
            : strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
        sub->usage(stdout);
        return CLI_EXIT_OK;
    }
    c = cli_command_find(sub->table, sub->count, word);
    if (c == NULL) {
        return unknown_subcommand(sub, word);
    }
    optind = 0; /* the subcommand parses its own argv from scratch */
    return c->run != NULL ? c->run(argc - 1, argv + 1)
                          : c->run_op(c->op, argc - 1, argv + 1);
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
int cli_read_stream(FILE *f, const char *what, uint8_t **out, size_t *out_len)
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
    return cli_read_stream(f, "standard input", out, out_len);
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
    ret = cli_read_stream(f, path, out, out_len);

cleanup:
    if (f != NULL) {
        fclose(f);
    }
    return ret;
}

FILE *cli_open_locked(const char *path)
{
    /*
     * Which inode to lock.  The write-back replaces the file by rename(2),
     * so the inode a path names changes with every call; a lock on a
     * sidecar "FILE.lock" would avoid that but leaves a file behind beside
     * every context and takes a second name that a user may not expect.
     * The lock is on the context file itself: once flock() returns, the
     * path is checked to still name the inode that was locked.  If a
     * writer renamed a new file over it meanwhile (it held the lock until
     * after its rename), the old inode is stale: open the path again and
     * lock the new one.  Each retry means another call finished, so this
     * ends.  Advisory only: it orders gk5 calls, not other programs.
     */
    for (;;) {
        struct stat held;
        struct stat named;
        FILE *f;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0) {
            cli_error("cannot open '%s': %s", path, strerror(errno));
            return NULL;
        }
        while (flock(fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                cli_error("cannot lock '%s': %s", path, strerror(errno));
                close(fd);
                return NULL;
            }
        }
        if (fstat(fd, &held) != 0) {
            cli_error("cannot read '%s': %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
        if (stat(path, &named) != 0 || named.st_dev != held.st_dev ||
            named.st_ino != held.st_ino) {
            close(fd); /* replaced (or removed) while we waited */
            continue;
        }
        f = fdopen(fd, "rb");
        if (f == NULL) {
            cli_error("cannot read '%s': %s", path, strerror(errno));
            close(fd);
        }
        return f; /* fclose() releases the lock */
    }
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            if (w == 0) {
                errno = EIO;
            }
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* The directory entry made by a rename or a create reaches the disk only
 * with the directory: best effort (some file systems refuse to fsync a
 * directory; the data itself is already synced). */
static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    int fd;

    if (slash == NULL) {
        fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);

        dir = malloc(n + 1);
        if (dir == NULL) {
            return;
        }
        memcpy(dir, path, n);
        dir[n] = '\0';
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(dir);
    }
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Written to a private temporary file beside path, synced, then renamed
 * over it: a context file holds keys (mode 0600), a reader never sees half
 * of one, even when path is the file the context was read from, and a
 * crash leaves the old file or the new one, never an empty one. */
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
    if (write_all(fd, p, n) != 0 || fsync(fd) != 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        goto cleanup;
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
    sync_parent(path);
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

int cli_create_file(const char *cmd, const char *path, const uint8_t *p,
                    size_t n, bool force)
{
    int fd;

    if (force) {
        return cli_write_file(path, p, n);
    }
    /* O_EXCL: never follow a link planted at path, never overwrite. */
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) {
            cli_error("%s: '%s' already exists (--force replaces it)", cmd,
                      path);
        } else {
            cli_error("%s: cannot create '%s': %s", cmd, path, strerror(errno));
        }
        return -1;
    }
    if (write_all(fd, p, n) != 0 || fsync(fd) != 0) {
        cli_error("%s: cannot write '%s': %s", cmd, path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    if (close(fd) != 0) {
        cli_error("%s: cannot write '%s': %s", cmd, path, strerror(errno));
        unlink(path);
        return -1;
    }
    sync_parent(path);
    return 0;
}
