/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * krb5.conf files on disk: the colon list KRB5_CONFIG names, include and
 * includedir, as MIT's profile library opens them.  Each file's bytes are
 * read whole (at most the size limit) and handed to profile.c, which sees
 * only text; here are the limits on files (how many, how deep, no loops)
 * and the words for what could not be opened.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/trace.h"
#include "krb5_int.h"
#include "profile_int.h"

static uint32_t parse_file(struct gk5i_profile_loader *ld, const char *path,
                           bool top, const char *from, unsigned from_line);

/* An include's target: absolute as written, else beside the including
 * file (MIT asks for absolute paths; this reading of a relative one is
 * the only one that does not depend on the working directory). */
static char *include_path(const char *from, const char *arg, size_t arg_len)
{
    const char *slash = strrchr(from, '/');
    size_t dir_len =
        (arg[0] != '/' && slash != NULL) ? (size_t)(slash - from) : 0;
    char *p = malloc(dir_len + 1 + arg_len + 1);

    if (p == NULL) {
        return NULL;
    }
    if (dir_len > 0 || (arg[0] != '/' && slash == from)) {
        memcpy(p, from, dir_len);
        p[dir_len] = '/';
        memcpy(p + dir_len + 1, arg, arg_len);
        p[dir_len + 1 + arg_len] = '\0';
    } else {
        memcpy(p, arg, arg_len);
        p[arg_len] = '\0';
    }
    return p;
}

/* The files includedir reads: names of only [A-Za-z0-9_-], or ending in
 * ".conf" and not starting with '.' (MIT 1.15 and later). */
static bool includedir_wants(const char *name)
{
    size_t len = strlen(name);
    bool plain = len > 0;

    if (name[0] == '.') {
        return false;
    }
    for (size_t i = 0; i < len && plain; i++) {
        unsigned char c = (unsigned char)name[i];

        plain = isalnum(c) || c == '-' || c == '_';
    }
    return plain || (len > 5 && strcmp(name + len - 5, ".conf") == 0);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every wanted regular file in dir, in name order (MIT 1.17 and later). */
static uint32_t parse_dir(struct gk5i_profile_loader *ld, const char *dir,
                          const char *from, unsigned from_line)
{
    uint32_t ret = GK5_ERR_CONFIG;
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    char *path = NULL;
    struct dirent *e;
    struct stat dst;

    if (d == NULL) {
        gk5i_profile_err(ld, from, from_line, "cannot read directory %s: %s",
                         dir, strerror(errno));
        return GK5_ERR_CONFIG;
    }
    /* Its entries are known by its times: adding, removing or renaming
     * one changes them. */
    if (ld->watch != NULL) {
        if (fstat(dirfd(d), &dst) == 0) {
            gk5i_watch_note(ld->watch, dir, &dst);
        } else {
            ld->watch->failed = true;
        }
    }
    names = calloc(PROFILE_MAX_FILES + 1, sizeof(*names));
    if (names == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    while ((e = readdir(d)) != NULL) {
        if (!includedir_wants(e->d_name)) {
            continue;
        }
        if (n == PROFILE_MAX_FILES) {
            gk5i_profile_err(ld, from, from_line, "%s holds more than %u files",
                             dir, PROFILE_MAX_FILES);
            goto cleanup;
        }
        names[n] = strdup(e->d_name);
        if (names[n] == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        n++;
    }
    qsort(names, n, sizeof(*names), cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;

        free(path);
        path = malloc(strlen(dir) + 1 + strlen(names[i]) + 1);
        if (path == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        (void)sprintf(path, "%s/%s", dir, names[i]);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue; /* a subdirectory, a dangling link: not a file */
        }
        ret = parse_file(ld, path, false, from, from_line);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    ret = GK5_OK;

cleanup:
    free(path);
    for (size_t i = 0; names != NULL && i < n; i++) {
        free(names[i]);
    }
    free(names);
    (void)closedir(d);
    return ret;
}

uint32_t gk5i_profile_include(struct gk5i_profile_loader *ld, const char *arg,
                              size_t arg_len, bool dir, const char *name,
                              unsigned lineno)
{
    char *path = include_path(name, arg, arg_len);
    uint32_t ret;

    if (path == NULL) {
        return GK5_ERR_NOMEM;
    }
    ret = dir ? parse_dir(ld, path, name, lineno)
              : parse_file(ld, path, false, name, lineno);
    free(path);
    return ret;
}

/* Read at most the size limit and one byte more, so that a larger file is
 * noticed without reading it all. */
static uint32_t read_fd(struct gk5i_profile_loader *ld, int fd,
                        const char *path, char **buf, size_t *len)
{
    size_t cap = PROFILE_MAX_FILE_BYTES + 1, n = 0;
    char *b = malloc(cap);

    if (b == NULL) {
        return GK5_ERR_NOMEM;
    }
    while (n < cap) {
        ssize_t r = read(fd, b + n, cap - n);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            gk5i_profile_err(ld, path, 0, "cannot read: %s", strerror(errno));
            free(b);
            return GK5_ERR_CONFIG;
        }
        if (r == 0) {
            break;
        }
        n += (size_t)r;
    }
    if (n > PROFILE_MAX_FILE_BYTES) {
        gk5i_profile_err(ld, path, 0, "larger than %u bytes",
                         PROFILE_MAX_FILE_BYTES);
        free(b);
        return GK5_ERR_CONFIG;
    }
    *buf = b;
    *len = n;
    return GK5_OK;
}

/* One file: top is a file of the list (missing: skipped), else an include
 * (missing: an error at from:from_line, as in MIT). */
static uint32_t parse_file(struct gk5i_profile_loader *ld, const char *path,
                           bool top, const char *from, unsigned from_line)
{
    uint32_t ret = GK5_ERR_CONFIG;
    int fd;
    struct stat st;
    char *text = NULL;
    size_t len = 0;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (top && (errno == ENOENT || errno == ENOTDIR)) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: %s not found, skipped", path);
            }
            if (ld->watch != NULL) {
                gk5i_watch_note(ld->watch, path, NULL);
            }
            return GK5_OK;
        }
        if (top) {
            gk5i_profile_err(ld, path, 0, "cannot open: %s", strerror(errno));
        } else {
            gk5i_profile_err(ld, from, from_line, "cannot include %s: %s", path,
                             strerror(errno));
        }
        return GK5_ERR_CONFIG;
    }
    if (fstat(fd, &st) != 0) {
        gk5i_profile_err(ld, path, 0, "cannot stat: %s", strerror(errno));
        goto cleanup;
    }
    if (ld->watch != NULL && !S_ISDIR(st.st_mode)) {
        gk5i_watch_note(ld->watch, path, &st);
    }
    if (S_ISDIR(st.st_mode)) {
        /* MIT 1.14 and later read a directory named in KRB5_CONFIG as
         * includedir does. */
        (void)close(fd);
        fd = -1;
        if (top) {
            return parse_dir(ld, path, path, 0);
        }
        gk5i_profile_err(ld, from, from_line, "cannot include %s: a directory",
                         path);
        return GK5_ERR_CONFIG;
    }
    for (size_t i = 0; i < ld->nopen; i++) {
        if (ld->open[i].dev == st.st_dev && ld->open[i].ino == st.st_ino) {
            gk5i_profile_err(ld, from, from_line, "include loop: %s", path);
            goto cleanup;
        }
    }
    if (ld->nopen == GK5_ARRAY_SIZE(ld->open)) {
        gk5i_profile_err(ld, from, from_line,
                         "includes nested deeper than %u: %s",
                         PROFILE_MAX_INCLUDE_DEPTH, path);
        goto cleanup;
    }
    if (ld->nfiles == PROFILE_MAX_FILES) {
        gk5i_profile_err(ld, from != NULL ? from : path, from_line,
                         "more than %u files", PROFILE_MAX_FILES);
        goto cleanup;
    }
    ld->nfiles++;
    ret = read_fd(ld, fd, path, &text, &len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ld->open[ld->nopen].dev = st.st_dev;
    ld->open[ld->nopen].ino = st.st_ino;
    ld->nopen++;
    ret = gk5i_profile_text(ld, text, len, path);
    ld->nopen--;

cleanup:
    free(text);
    if (fd >= 0) {
        (void)close(fd);
    }
    return ret;
}

uint32_t gk5i_profile_load(const char *paths, struct gk5i_profile **out,
                           char *err, size_t err_len)
{
    return gk5i_profile_load_watched(paths, NULL, out, err, err_len);
}

uint32_t gk5i_profile_load_watched(const char *paths, struct gk5i_watch *w,
                                   struct gk5i_profile **out, char *err,
                                   size_t err_len)
{
    struct gk5i_profile_loader ld = {
        .err = err, .err_len = err_len, .watch = w};
    struct gk5i_profile *p = NULL;
    char *list = NULL, *save = NULL;
    uint32_t ret = GK5_ERR_NOMEM;

    *out = NULL;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (paths == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = gk5i_profile_new();
    list = strdup(paths);
    if (p == NULL || list == NULL) {
        goto cleanup;
    }
    for (char *path = strtok_r(list, ":", &save); path != NULL;
         path = strtok_r(NULL, ":", &save)) {
        ld.root = gk5i_profile_add_root(p);
        if (ld.root == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        ld.nopen = 0;
        ret = parse_file(&ld, path, true, NULL, 0);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    *out = p;
    p = NULL;
    ret = GK5_OK;

cleanup:
    if (ret == GK5_ERR_NOMEM) {
        gk5i_profile_err(&ld, paths, 0, "out of memory");
    }
    gk5i_profile_free(p);
    free(list);
    return ret;
}
