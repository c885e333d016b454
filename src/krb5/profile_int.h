/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the two halves of the krb5.conf reader share: profile.c reads one
 * file's text into the tree and answers lookups; profile_file.c opens the
 * files (the colon list, include, includedir), refuses loops and counts
 * them.  The text half never touches the file system: a text parsed with
 * no name refuses include before any path is made.
 */
#ifndef GK5_PROFILE_INT_H
#define GK5_PROFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "krb5_int.h"

#define PROFILE_MAX_FILE_BYTES (1024u * 1024u)
#define PROFILE_MAX_FILES 64u
#define PROFILE_MAX_INCLUDE_DEPTH 8u

struct gk5i_pnode;

/* One load: where the next file's sections go, and the limits so far. */
struct gk5i_profile_loader {
    struct gk5i_pnode *root;
    size_t nfiles; /* files read so far, every level and every root */
    /* The files being read, outermost first, to refuse an include loop. */
    struct {
        dev_t dev;
        ino_t ino;
    } open[PROFILE_MAX_INCLUDE_DEPTH + 1];
    size_t nopen;
    char *err;
    size_t err_len;
    struct gk5i_watch *watch; /* what was read is noted here, if not NULL */
};

/* ---- profile.c ---- */

/* "FILE:LINE: what" (file NULL: "(text)"; line 0: "FILE: what") into the
 * loader's error buffer. */
GK5_HIDDEN void gk5i_profile_err(struct gk5i_profile_loader *ld,
                                 const char *file, unsigned line,
                                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* One file's text (len bytes, not NUL-terminated) into ld->root; name is
 * the file's, for messages and includes (NULL: includes refused). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_profile_text(struct gk5i_profile_loader *ld,
                                              const char *text, size_t len,
                                              const char *name);
/* An empty profile, and a new last root in it (NULL: out of memory). */
GK5_HIDDEN struct gk5i_profile *gk5i_profile_new(void);
GK5_HIDDEN struct gk5i_pnode *gk5i_profile_add_root(struct gk5i_profile *p);

/* ---- profile_file.c ---- */

/* "include ARG" (dir false) or "includedir ARG" on line lineno of the
 * file name: ARG (arg_len bytes, trimmed) made a path beside name unless
 * absolute, then read into ld->root. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_profile_include(struct gk5i_profile_loader *ld,
                                                 const char *arg,
                                                 size_t arg_len, bool dir,
                                                 const char *name,
                                                 unsigned lineno);

#endif /* GK5_PROFILE_INT_H */
