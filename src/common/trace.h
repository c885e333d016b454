/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Tracing, after MIT's KRB5_TRACE: GK5_TRACE=/path/to/file (appended to,
 * created 0600) or GK5_TRACE=stderr (or 1, as gk5_mech.so reads it: the
 * module's lines and these go to the same place) makes gk5 write one line
 * per significant event (context import, export and free, each failed
 * per-message call with the values behind it, the receive window's
 * verdicts, enctype refusals):
 *
 *   [pid] seconds.microseconds: gk5: TEXT
 *
 * Never key material, plaintext or payload bytes: only public header
 * fields, lengths, key usages, sequence numbers and status words.
 *
 * Off by default and free when off: the variable is read (secure_getenv,
 * so a setuid program ignores it) the first time a trace point is reached;
 * after that a trace point costs one load and one predicted branch,
 *
 *     if (GK5_TRACE_ON()) {
 *         gk5i_trace("ctx %u: unwrap: ...", ...);
 *     }
 *
 * and the arguments are formatted only when tracing is on.  A file that
 * cannot be opened leaves tracing off, silently, as MIT does: a library
 * must not write to a daemon's stderr uninvited.  The file never takes
 * descriptor 0, 1 or 2 (a program that closed its stdout would otherwise
 * write into the trace).
 *
 * Thread-safe: each line is formatted on the caller's stack and written
 * with one write() (O_APPEND for files) under a lock that also keeps the
 * descriptor alive across gk5i_trace_reset().  errno is preserved.
 */
#ifndef GK5_TRACE_H
#define GK5_TRACE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

#include "util.h"

/* gk5i_trace_state: UNSET until the first trace point reads GK5_TRACE. */
#define GK5I_TRACE_OFF 0
#define GK5I_TRACE_ON 1
#define GK5I_TRACE_UNSET 2

/* The longest line written (longer ones are cut, newline kept). */
#define GK5I_TRACE_LINE_MAX 1024

GK5_HIDDEN extern _Atomic int gk5i_trace_state;

/* True when tracing is on or not yet decided (the first gk5i_trace call
 * decides).  One relaxed load: a plain move on every target gk5 runs on. */
#define GK5_TRACE_ON()                                                         \
    __builtin_expect(                                                          \
        atomic_load_explicit(&gk5i_trace_state, memory_order_relaxed) !=       \
            GK5I_TRACE_OFF,                                                    \
        0)

/* Writes "[pid] time: gk5: " and the formatted text as one line; nothing
 * when tracing is off. */
GK5_HIDDEN void gk5i_trace(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), cold));

/* Reads GK5_TRACE again, closing the previous file: for tests, and for a
 * program that changes the variable at run time.  Not while other threads
 * trace through the old file (their lines may go to the new one). */
GK5_HIDDEN void gk5i_trace_reset(void);

/* A line built in pieces on the stack (the mech helpers' field lists). */
struct gk5i_trace_buf {
    char text[GK5I_TRACE_LINE_MAX];
    size_t len;
};
GK5_HIDDEN void gk5i_trace_buf_init(struct gk5i_trace_buf *b);
GK5_HIDDEN void gk5i_trace_buf_add(struct gk5i_trace_buf *b, const char *fmt,
                                   ...) __attribute__((format(printf, 2, 3)));
GK5_HIDDEN void gk5i_trace_buf_vadd(struct gk5i_trace_buf *b, const char *fmt,
                                    va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif /* GK5_TRACE_H */
