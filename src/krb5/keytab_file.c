/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Keytab files on disk: read whole under MIT's lock, then parsed by
 * keytab.c; and whether a file changed since it was read (a server
 * rotating its keys).  Kept apart from the format's parser, which sees
 * only bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/trace.h"
#include "krb5_int.h"

/* MIT's readers take a shared lock on the file while they read it, and
 * kadmin's ktadd an exclusive one while it appends: so that gk5 never reads
 * an entry half written, it takes the same (an OFD lock: Linux keeps
 * these and MIT's POSIX locks in one table).  A file system without locks
 * is read unlocked, as MIT reads it. */
static int lock_shared(int fd)
{
    struct flock fl;
    int rc;

    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_RDLCK;
    fl.l_whence = SEEK_SET;
    do {
        rc = fcntl(fd, F_OFD_SETLKW, &fl);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0 && (errno == ENOLCK || errno == EINVAL || errno == ENOTSUP)) {
        rc = 0;
    }
    return rc;
}

uint32_t gk5i_keytab_load(const char *path, struct gk5i_keytab **out,
                          struct gk5i_kt_stamp *stamp)
{
    struct gk5i_keytab *kt = NULL;
    uint8_t *buf = NULL;
    size_t size = 0, got = 0;
    struct stat st;
    uint32_t ret = GK5_ERR_KEYTAB_READ;
    int fd = -1;

    *out = NULL;
    if (path == NULL) {
        goto cleanup;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || lock_shared(fd) != 0 || fstat(fd, &st) != 0 ||
        !S_ISREG(st.st_mode)) {
        goto cleanup;
    }
    if (st.st_size > (off_t)GK5I_KEYTAB_MAX_BYTES) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("keytab: %s is %lld bytes, more than the %u read", path,
                       (long long)st.st_size, (unsigned)GK5I_KEYTAB_MAX_BYTES);
        }
        goto cleanup;
    }
    size = (size_t)st.st_size;
    /* A file that shrank since fstat is parsed as far as it goes (and most
     * likely refused); one that grew is read again when
     * gk5i_keytab_changed sees its new size. */
    ret = gk5i_read_locked(fd, size, GK5_ERR_KEYTAB_READ, &buf, &got);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = gk5i_keytab_parse(buf, got, &kt);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    stamp->mtime = st.st_mtim;
    stamp->size = st.st_size;
    stamp->ino = st.st_ino;
    stamp->dev = st.st_dev;
    *out = kt;
    kt = NULL;

cleanup:
    if (fd >= 0) {
        close(fd); /* and the lock with it */
    }
    if (buf != NULL) {
        gk5i_clear_free(buf, size != 0 ? size : 1);
    }
    gk5i_keytab_free(kt);
    return ret;
}

bool gk5i_keytab_changed(const char *path, const struct gk5i_kt_stamp *stamp)
{
    struct stat st;

    if (path == NULL || stat(path, &st) != 0) {
        return true;
    }
    /* The size and the inode too: a rewrite within one timestamp tick
     * (coarse file system clocks), or a new file renamed over the old one
     * with its time kept (ktutil copies, rsync -t), still counts. */
    return st.st_mtim.tv_sec != stamp->mtime.tv_sec ||
           st.st_mtim.tv_nsec != stamp->mtime.tv_nsec ||
           st.st_size != stamp->size || st.st_ino != stamp->ino ||
           st.st_dev != stamp->dev;
}
