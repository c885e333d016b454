/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The interop matrix that `gk5 interop` runs against any realm and `gk5
 * demo` against its throwaway one (cli_interop.c): for one enctype, two
 * contexts established in-process by MIT's GSS-API (both ends MIT), one
 * side of each moved into gk5 -- as initiator by the lucid import, as
 * acceptor by rpc.gssd's buffer -- and the per-message cells run between
 * gk5 and the MIT side left.
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
    INTEROP_FAILED        /* establishment or import failed: a failure */
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

struct interop_row {
    int32_t requested;
    int32_t issued; /* the ticket's session key enctype; 0 if none */
    enum interop_outcome outcome;
    char note[512]; /* the outcome in words, unless INTEROP_RAN */
    struct interop_role_result role[INTEROP_N_ROLES];
    /* The ends' names as MIT saw them, once a context was established. */
    char client[256], service[256];
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
/* The number of failures in row: cells that ran and failed, or 1 for
 * INTEROP_FAILED; 0 for rows not issued, not issuable, or refused. */
int interop_row_failures(const struct interop_row *row);

#endif /* GK5_TOOLS_INTEROP_H */
