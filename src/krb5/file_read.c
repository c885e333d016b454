/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A locked file's bytes into memory, for the keytab and ccache readers:
 * they open and lock the file their own way (as MIT locks each), then read
 * it here, as far as the size fstat gave.
 */
#include <errno.h>
#include <unistd.h>

#include "krb5_int.h"
#include "../common/util.h"

uint32_t gk5i_read_locked(int fd, size_t size, uint32_t read_err, uint8_t **buf,
                          size_t *got)
{
    size_t n = 0;

    *got = 0;
    *buf = gk5i_zalloc(size != 0 ? size : 1);
    if (*buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    /* Under the lock no writer that locks can change the file, but one
     * that does not may have cut it since fstat: what is there is read,
     * and the rest of the buffer stays zero. */
    while (n < size) {
        ssize_t r = read(fd, *buf + n, size - n);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            gk5i_clear_free(*buf, size != 0 ? size : 1);
            *buf = NULL;
            return read_err;
        }
        if (r == 0) {
            break;
        }
        n += (size_t)r;
    }
    *got = n;
    return GK5_OK;
}
