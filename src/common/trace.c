/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The trace sink (trace.h): where GK5_TRACE points, and the one write per
 * line.  Nothing here knows what is traced.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

_Atomic int gk5i_trace_state = GK5I_TRACE_UNSET;

/* trace_fd and trace_fd_owned change only under trace_lock; writes take it
 * too, so that a reset never closes a descriptor in use. */
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static int trace_fd = -1;
static bool trace_fd_owned;

/* Under trace_lock: open what GK5_TRACE names and publish the state. */
static void trace_open(void)
{
    const char *dest = secure_getenv("GK5_TRACE");
    int fd = -1;

    trace_fd_owned = false;
    /* "1" as gk5_mech.so takes it, so that the two never disagree. */
    if (dest != NULL &&
        (strcmp(dest, "stderr") == 0 || strcmp(dest, "1") == 0)) {
        fd = STDERR_FILENO;
    } else if (dest != NULL && dest[0] != '\0') {
        fd = open(dest, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY,
                  0600);
        /* A program that closed 0, 1 or 2 (an inetd service that has its
         * socket on 0) would get the trace file as the next one it opens
         * or, worse, write its own output into it: keep above 2. */
        if (fd >= 0 && fd <= STDERR_FILENO) {
            int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

            (void)close(fd);
            fd = high;
        }
        trace_fd_owned = fd >= 0;
    }
    trace_fd = fd;
    atomic_store_explicit(&gk5i_trace_state,
                          fd >= 0 ? GK5I_TRACE_ON : GK5I_TRACE_OFF,
                          memory_order_relaxed);
}

/* Under trace_lock. */
static void trace_close(void)
{
    if (trace_fd_owned) {
        (void)close(trace_fd);
    }
    trace_fd = -1;
    trace_fd_owned = false;
}

void gk5i_trace_reset(void)
{
    int saved = errno;

    pthread_mutex_lock(&trace_lock);
    trace_close();
    trace_open();
    pthread_mutex_unlock(&trace_lock);
    errno = saved;
}

/* The first trace point decides; later ones see ON or OFF. */
static bool trace_enabled(void)
{
    int state = atomic_load_explicit(&gk5i_trace_state, memory_order_relaxed);

    if (state == GK5I_TRACE_UNSET) {
        pthread_mutex_lock(&trace_lock);
        if (atomic_load_explicit(&gk5i_trace_state, memory_order_relaxed) ==
            GK5I_TRACE_UNSET) {
            trace_open();
        }
        pthread_mutex_unlock(&trace_lock);
        state = atomic_load_explicit(&gk5i_trace_state, memory_order_relaxed);
    }
    return state == GK5I_TRACE_ON;
}

/* One write() per line: lines from threads (and, with O_APPEND, from other
 * processes on the same file) never interleave.  A failed write is
 * dropped; tracing must not change what the library does. */
static void trace_write(const char *line, size_t len)
{
    ssize_t n;

    pthread_mutex_lock(&trace_lock);
    if (trace_fd >= 0) {
        do {
            n = write(trace_fd, line, len);
        } while (n < 0 && errno == EINTR);
    }
    pthread_mutex_unlock(&trace_lock);
}

void gk5i_trace(const char *fmt, ...)
{
    char line[GK5I_TRACE_LINE_MAX];
    struct timespec now = {0, 0};
    size_t len;
    va_list ap;
    int saved = errno;
    int n;

    if (!trace_enabled()) {
        goto cleanup;
    }
    (void)clock_gettime(CLOCK_REALTIME, &now);
    n = snprintf(line, sizeof(line), "[%ld] %lld.%06ld: gk5: ", (long)getpid(),
                 (long long)now.tv_sec, (long)(now.tv_nsec / 1000));
    len = n > 0 ? (size_t)n : 0;
    va_start(ap, fmt);
    n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
    va_end(ap);
    len += n > 0 ? (size_t)n : 0;
    /* Cut to leave room for the newline. */
    if (len > sizeof(line) - 1) {
        len = sizeof(line) - 1;
    }
    line[len++] = '\n';
    trace_write(line, len);

cleanup:
    errno = saved;
}

void gk5i_trace_buf_init(struct gk5i_trace_buf *b)
{
    b->text[0] = '\0';
    b->len = 0;
}

void gk5i_trace_buf_vadd(struct gk5i_trace_buf *b, const char *fmt, va_list ap)
{
    int n;

    if (b->len >= sizeof(b->text) - 1) {
        return;
    }
    n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
    if (n > 0) {
        b->len += (size_t)n;
        if (b->len > sizeof(b->text) - 1) {
            b->len = sizeof(b->text) - 1;
        }
    }
}

void gk5i_trace_buf_add(struct gk5i_trace_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gk5i_trace_buf_vadd(b, fmt, ap);
    va_end(ap);
}
