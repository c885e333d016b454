/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The interop matrix that `gk5 interop` runs against any realm and `gk5
 * demo` against its throwaway one (cli_interop.c): for one enctype, two
 * contexts established in-process by MIT's GSS-API (both ends MIT), one
 * side of each moved into gk5 -- as initiator by the lucid import, as
 * acceptor by rpc.gssd's buffer -- and the per-message cells run between
 * gk5 and the MIT side left.  The native column (interop_row_run_native)
 * runs the same cells between gk5's own ends (gk5_initiator with its
 * tickets through gk5's KDC client, gk5_accept with the service keytab)
 * and MIT's GSS-API on the other side.
 */
#ifndef GK5_TOOLS_INTEROP_H
#define GK5_TOOLS_INTEROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "establish.h"

/* Where the two ends take their credentials: struct gk5_mit_ends
 * (support/realm/establish.h), read only during interop_row_run(). */

/* The cells, in the order they run.  "G2M": gk5 makes the token, MIT
 * takes it; "M2G" the other way. */
enum interop_cell {
    INTEROP_SEALED_G2M,
    INTEROP_INTEG_G2M,
    INTEROP_MIC_G2M,
    INTEROP_SEALED_M2G,
    INTEROP_INTEG_M2G,
    INTEROP_MIC_M2G,
    INTEROP_TAMPER, /* altered MIT tokens: gk5 refuses, no plaintext */
    INTEROP_REPLAY, /* an MIT token delivered twice: DUPLICATE_TOKEN */
    INTEROP_N_CELLS
};

/* What became of a requested enctype. */
enum interop_outcome {
    INTEROP_RAN,          /* the cells ran (each says ok or not) */
    INTEROP_NOT_ISSUED,   /* the KDC issued another enctype: not a failure */
    INTEROP_CANNOT_ISSUE, /* MIT could not get a ticket of it: neither */
    INTEROP_REFUSED,      /* gk5 refused it, as its table says it must */
    INTEROP_FAILED,       /* establishment or import failed: a failure */
    INTEROP_SKIPPED       /* native: cannot run here (note says why) */
};

/* gk5 in one role. */
enum interop_role { INTEROP_INITIATOR, INTEROP_ACCEPTOR, INTEROP_N_ROLES };

struct interop_role_result {
    bool ran;
    bool ok[INTEROP_N_CELLS];
    size_t size[INTEROP_N_CELLS]; /* token sizes of the first six cells */
    char why[INTEROP_N_CELLS][256];
    int32_t token_enctype;                 /* the lucid export's (DES3: 6) */
    uint32_t refusal_major, refusal_minor; /* gk5's import refusal */
};

/* The native column: gk5's own ends, no MIT context moved into gk5.
 * INITIATOR: gk5_initiator (its ticket through gk5's own KDC client)
 * against MIT's gss_accept_sec_context; ACCEPTOR: MIT's
 * gss_init_sec_context against gk5_accept. */
enum interop_native_role {
    INTEROP_NATIVE_INITIATOR,
    INTEROP_NATIVE_ACCEPTOR,
    INTEROP_N_NATIVE
};

struct interop_native_result {
    enum interop_outcome outcome;
    int32_t issued; /* the ticket's session key enctype; 0 if unknown */
    char note[512]; /* the outcome in words, unless INTEROP_RAN */
    struct interop_role_result cells;
};

struct interop_row {
    int32_t requested;
    int32_t issued; /* the ticket's session key enctype; 0 if none */
    enum interop_outcome outcome;
    char note[512]; /* the outcome in words, unless INTEROP_RAN */
    struct interop_role_result role[INTEROP_N_ROLES];
    /* The ends' names as MIT saw them, once a context was established. */
    char client[256], service[256];
    /* Filled by interop_row_run_native() only; native_ran false else. */
    bool native_ran;
    struct interop_native_result native[INTEROP_N_NATIVE];
};

/* What the native column keeps for a run: a folder of its own with a
 * FILE ccache that gk5_kinit (with the client keytab) or a copy of the
 * caller's FILE ccache fills afresh for each row -- or, after
 * interop_native_use(), the caller's own FILE ccache, used as it is. */
struct interop_native {
    char dir[256];
    char ccache[300];    /* "FILE:dir/ccache" */
    bool caller_filled;  /* ccache is the caller's: never refilled */
    unsigned char *copy; /* the caller's FILE ccache, without a keytab */
    size_t copy_len;
    char skip[512];  /* non-empty: why gk5's initiator cannot run here */
    char fault[512]; /* non-empty: why it fails (the cache is unreadable) */
};

/* The message every cell sends. */
extern const char interop_message[];
size_t interop_message_len(void);

/* "aes256-cts-hmac-sha1-96 (18)" in buf; returns buf. */
const char *interop_et_col(int32_t et, char *buf, size_t len);
/* The cell's column title ("sealed>M"). */
const char *interop_cell_title(enum interop_cell cell);
/* "initiator (lucid)" / "acceptor (gssd)". */
const char *interop_role_name(enum interop_role role);

/* Run everything for one enctype; row is filled whatever happens. */
void interop_row_run(const struct gk5_mit_ends *ends, int32_t enctype,
                     struct interop_row *row);
/* Make n for ends (a folder under $TMPDIR); 0, or -1 with words in why.
 * interop_native_done() removes it. */
int interop_native_setup(struct interop_native *n,
                         const struct gk5_mit_ends *ends, char *why,
                         size_t len);
void interop_native_done(struct interop_native *n);
/* Make n use ccache ("FILE:path"), which the caller filled (a TGT, and
 * service tickets the initiator may take): no folder, nothing refilled or
 * removed.  0, or -1 if the name does not fit. */
int interop_native_use(struct interop_native *n, const char *ccache);
/* The native column for one enctype, after interop_row_run(). */
void interop_row_run_native(const struct gk5_mit_ends *ends,
                            struct interop_native *n, int32_t enctype,
                            struct interop_row *row);
/* "native initiator" / "native acceptor". */
const char *interop_native_name(enum interop_native_role role);

/* The number of failures in row: cells that ran and failed, or 1 for
 * INTEROP_FAILED; 0 for rows not issued, not issuable, or refused.  The
 * native column's count the same way (skipped is no failure). */
int interop_row_failures(const struct interop_row *row);

#endif /* GK5_TOOLS_INTEROP_H */
