/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * FILE credential caches on disk, and cache names.  The bytes are
 * ccache.c's (which never touches a file); here is how they get to and
 * from the file so that MIT's programs and gk5 never see half of what the
 * other writes: a reader takes a whole-file read lock and a writer a
 * write lock, the kind MIT's krb5_lock_file takes (an OFD lock where the
 * kernel has it; Linux keeps OFD and classic POSIX locks in one table, so
 * either excludes the other).  A whole cache is written to a new file and
 * renamed over the old one; a credential is appended under the lock, and
 * cut off again if the write fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krb5_int.h"
#include "../common/bytes.h"
#include "../common/trace.h"

/* How often a file is opened again when the name was given to another
 * file while gk5 waited for the lock (a writer renamed a new cache over
 * it): more than a few in a row is a loop of writers, not a race. */
#define CC_REOPEN_TRIES 8

/* ---- files ---- */

/* A whole-file lock of type (F_RDLCK, F_WRLCK), waited for, the kind MIT's
 * krb5_lock_file takes: an OFD lock, or where the kernel has none (before
 * Linux 3.15: EINVAL) a classic POSIX one.  A file system without locks
 * (ENOLCK, ENOTSUP) is used unlocked, as MIT uses it.  0 or -1. */
static int lock_file(int fd, short type)
{
    struct flock fl;
    int rc;

    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    do {
        rc = fcntl(fd, F_OFD_SETLKW, &fl);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno == EINVAL) {
        do {
            rc = fcntl(fd, F_SETLKW, &fl);
        } while (rc != 0 && errno == EINTR);
    }
    if (rc != 0 && (errno == ENOLCK || errno == ENOTSUP)) {
        rc = 0;
    }
    return rc;
}

/* path opened with flags and locked with type, a regular file still named
 * path once the lock is held (a writer may have renamed a new cache over
 * the one opened while gk5 waited: then the new one is opened).  *fd and
 * *st set.  0, or -1 with errno (ENOENT: no such file; EIO: not a regular
 * file or the name kept moving). */
static int open_locked(const char *path, int flags, short type, int *fd,
                       struct stat *st)
{
    int tries;

    *fd = -1;
    for (tries = 0; tries < CC_REOPEN_TRIES; tries++) {
        struct stat now;
        int f = open(path, flags | O_CLOEXEC);

        if (f < 0) {
            return -1;
        }
        if (lock_file(f, type) != 0 || fstat(f, st) != 0) {
            int e = errno;

            close(f);
            errno = e;
            return -1;
        }
        if (!S_ISREG(st->st_mode)) {
            close(f);
            errno = EIO;
            return -1;
        }
        if (stat(path, &now) == 0 && now.st_ino == st->st_ino &&
            now.st_dev == st->st_dev) {
            *fd = f;
            return 0;
        }
        close(f);
    }
    errno = EIO;
    return -1;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len != 0) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

uint32_t gk5i_ccache_read(const char *path, struct gk5i_ccache **out)
{
    uint8_t *buf = NULL;
    size_t size = 0, got = 0;
    struct stat st;
    uint32_t ret = GK5_ERR_CCACHE_READ;
    int fd = -1;

    *out = NULL;
    if (path == NULL) {
        return GK5_ERR_CCACHE_READ;
    }
    if (open_locked(path, O_RDONLY, F_RDLCK, &fd, &st) != 0) {
        return errno == ENOENT ? GK5_ERR_CCACHE_NOT_FOUND : GK5_ERR_CCACHE_READ;
    }
    if (st.st_size > (off_t)GK5I_CCACHE_MAX_BYTES) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("ccache: %s is %lld bytes, more than the %u read", path,
                       (long long)st.st_size, (unsigned)GK5I_CCACHE_MAX_BYTES);
        }
        ret = GK5_ERR_CCACHE_FORMAT;
        goto cleanup;
    }
    size = (size_t)st.st_size;
    ret = gk5i_read_locked(fd, size, GK5_ERR_CCACHE_READ, &buf, &got);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    close(fd); /* and the lock with it */
    fd = -1;
    /* The bytes past got (a file that shrank) are zero and not parsed. */
    ret = gk5i_ccache_take(buf, got, out);
    buf = NULL;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (buf != NULL) {
        gk5i_clear_free(buf, size != 0 ? size : 1);
    }
    return ret;
}

/* Writes data to a new file beside path (mode 0600, a name no other file
 * has) and renames it over path, holding the old file's write lock across
 * the rename: a reader that locked the old file first reads it whole, one
 * that comes after opens the new one.  GK5_OK, GK5_ERR_CCACHE_WRITE,
 * GK5_ERR_NOMEM. */
static uint32_t replace_file(const char *path, const uint8_t *data, size_t len)
{
    static const char suffix[] = ".gk5XXXXXX";
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    size_t plen = strlen(path);
    char *tmp = NULL;
    struct stat st;
    int fd = -1, old = -1;
    bool made = false;

    tmp = malloc(plen + sizeof(suffix));
    if (tmp == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, sizeof(suffix));
    /* mkostemp: O_CREAT | O_EXCL, mode 0600, a random name. */
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        goto cleanup;
    }
    made = true;
    if (write_all(fd, data, len) != 0) {
        goto cleanup;
    }
    if (close(fd) != 0) {
        fd = -1;
        goto cleanup;
    }
    fd = -1;
    /* The old cache, if there is one gk5 may write: locked so that no
     * MIT program is halfway through reading or appending to it when
     * its name goes. */
    if (open_locked(path, O_WRONLY, F_WRLCK, &old, &st) != 0) {
        old = -1;
    }
    if (rename(tmp, path) != 0) {
        goto cleanup;
    }
    made = false;
    ret = GK5_OK;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (made) {
        unlink(tmp);
    }
    if (old >= 0) {
        close(old);
    }
    free(tmp);
    return ret;
}

/* Bytes serialized (made: their status) into path, then wiped.  As
 * gk5i_ccache_store. */
static uint32_t store(const char *path, uint32_t made, uint8_t *buf, size_t len)
{
    uint32_t ret;

    if (made != GK5_OK) {
        return made;
    }
    ret = replace_file(path, buf, len);
    gk5i_clear_free(buf, len != 0 ? len : 1);
    return ret;
}

uint32_t gk5i_ccache_store(const char *path, const struct gk5i_ccache *cc)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    uint32_t made;

    if (path == NULL || *path == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    made = gk5i_ccache_serialize(cc, &buf, &len);
    return store(path, made, buf, len);
}

uint32_t gk5i_ccache_write(const char *path, struct gk5i_view realm,
                           const struct gk5i_krb_principal *p,
                           const struct gk5i_cc_cred *creds, size_t n)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    uint32_t made;

    if (path == NULL || *path == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    made = gk5i_ccache_serialize_new(realm, p, creds, n, &buf, &len);
    return store(path, made, buf, len);
}

uint32_t gk5i_ccache_append(const char *path, const struct gk5i_cc_cred *c)
{
    uint8_t vno[2], *buf = NULL;
    size_t len = 0;
    struct stat st;
    off_t end;
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    ssize_t got;
    int fd = -1;

    if (path == NULL || c == NULL || !gk5i_ccache_cred_ok(c)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (open_locked(path, O_RDWR, F_WRLCK, &fd, &st) != 0) {
        return errno == ENOENT ? GK5_ERR_CCACHE_NOT_FOUND
                               : GK5_ERR_CCACHE_WRITE;
    }
    do {
        got = pread(fd, vno, sizeof(vno), 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        goto cleanup;
    }
    ret = gk5i_ccache_serialize_cred(got == 2 ? load_be16(vno) : 0, c, &buf,
                                     &len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CCACHE_WRITE;
    end = lseek(fd, 0, SEEK_END);
    if (end < 0) {
        goto cleanup;
    }
    if (write_all(fd, buf, len) != 0) {
        /* Half a credential would make the whole file unreadable: cut
         * it off (under the lock nobody has read it). */
        if (ftruncate(fd, end) != 0 && GK5_TRACE_ON()) {
            gk5i_trace("ccache: %s: a failed append could not be undone", path);
        }
        goto cleanup;
    }
    ret = GK5_OK;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (buf != NULL) {
        gk5i_clear_free(buf, len != 0 ? len : 1);
    }
    return ret;
}

uint32_t gk5i_ccache_destroy(const char *path)
{
    static const uint8_t zeros[4096];
    struct stat st;
    off_t at = 0;
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    int fd = -1;

    if (path == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    /* Not through a symbolic link: the link is removed, and whatever it
     * points at is left alone (zeroing it would let whoever made the
     * link in /tmp have gk5 zero another of the user's files). */
    if (open_locked(path, O_WRONLY | O_NOFOLLOW, F_WRLCK, &fd, &st) != 0) {
        if (errno == ENOENT) {
            return GK5_ERR_CCACHE_NOT_FOUND;
        }
        if (errno == ELOOP && unlink(path) == 0) {
            return GK5_OK;
        }
        return GK5_ERR_CCACHE_WRITE;
    }
    while (at < st.st_size) {
        size_t n = sizeof(zeros);
        ssize_t w;

        if ((off_t)n > st.st_size - at) {
            n = (size_t)(st.st_size - at);
        }
        w = pwrite(fd, zeros, n, at);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            break; /* removed all the same */
        }
        at += w;
    }
    if (unlink(path) != 0) {
        goto cleanup;
    }
    ret = GK5_OK;

cleanup:
    close(fd);
    return ret;
}

/* ---- names ---- */

static void __attribute__((cold)) trace_type(const char *type, size_t len)
{
    char shown[33];
    size_t i;

    if (len > sizeof(shown) - 1) {
        len = sizeof(shown) - 1;
    }
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)type[i];

        shown[i] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    shown[len] = '\0';
    gk5i_trace("ccache: type \"%s\" is not supported (only FILE)", shown);
}

uint32_t gk5i_ccache_resolve(const char *name, char **path)
{
    char dflt[64];
    const char *colon, *rest;

    *path = NULL;
    if (name == NULL) {
        /* As MIT reads it: a set-uid program ignores the environment. */
        name = secure_getenv("KRB5CCNAME");
        if (name == NULL || *name == '\0') {
            snprintf(dflt, sizeof(dflt), "/tmp/krb5cc_%lu",
                     (unsigned long)geteuid());
            name = dflt;
        }
    }
    rest = name;
    colon = strchr(name, ':');
    /* What comes before the first colon names the type, except one
     * letter, which MIT takes for a drive ("C:..."): then the whole name
     * is a path. */
    if (colon != NULL &&
        !(colon - name == 1 && ((name[0] >= 'A' && name[0] <= 'Z') ||
                                (name[0] >= 'a' && name[0] <= 'z')))) {
        size_t tlen = (size_t)(colon - name);

        /* The cache type, a public name. */
        if (tlen != 4 || memcmp(name, "FILE", 4) != 0) {
            if (GK5_TRACE_ON()) {
                trace_type(name, tlen);
            }
            return GK5_ERR_CCACHE_TYPE;
        }
        rest = colon + 1;
    }
    if (*rest == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *path = strdup(rest);
    return *path != NULL ? GK5_OK : GK5_ERR_NOMEM;
}
