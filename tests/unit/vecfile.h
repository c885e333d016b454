/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Known-answer files: a reader for the `name = value` blocks in
 * tests/vectors/ (the directory comes from $GK5_VECTORS_DIR).
 *
 * Format
 *   - A block is a run of non-blank lines; blank lines separate blocks.
 *   - A line whose first non-blank character is '#' is a comment.
 *   - Every other line is `name = value`; names are [a-z0-9_]+ and appear
 *     at most once per block.
 *   - Every block has `source = ...` naming the RFC and section ("RFC 3962
 *     Appendix B"), the reference file it came from (a source that
 *     mentions shared/reference/; docs/design.md, "Reference data"), or
 *     the test program that captured it from a real peer (a source that
 *     mentions "captured by tests/...": tests/vectors/mit_ap_req.txt).
 *   - A value is a "quoted string" (its bytes, no escapes: for ASCII
 *     passwords and salts), or hex (spaces between digits allowed; "-" or
 *     nothing = empty), or a decimal integer, as the field demands.
 *
 * Every accessor that finds a field absent or malformed fails the running
 * cmocka test with a message naming file:line.  vec_done() fails the test if
 * any field of the block was never read, so a misspelt or unknown field
 * cannot be silently ignored.
 *
 * The failure hook is replaceable (vec_set_fail_hook) so that the reader's
 * own tests can catch its failures; a hook must not return.
 */
#ifndef VECFILE_H
#define VECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vec_file vec_file;
typedef struct vec_block vec_block;

/* Opens $GK5_VECTORS_DIR/name; fails the test if it cannot. */
vec_file *vec_open(const char *name);
/* Opens a file by path (the reader's own tests use temporary files). */
vec_file *vec_open_path(const char *path);
/* The next block, or NULL at the end of the file.  The block stays valid
 * until the next call or vec_close().  Fails on a malformed line, a
 * duplicate field, or a block without a valid source. */
vec_block *vec_next(vec_file *f);
/* Frees the file and its current block; accepts NULL. */
void vec_close(vec_file *f);
/* The name the file was opened with ("rfc3962_b_cts.txt"). */
const char *vec_file_name(const vec_file *f);

/* "file:line" of the block's first line, for messages. */
const char *vec_where(const vec_block *b);
/* The block's source (read and checked by vec_next). */
const char *vec_source(const vec_block *b);

/* Required fields: fail the test when absent or malformed. */
const char *vec_str(vec_block *b, const char *name);
/* Bytes of a quoted string or hex value.  *out points into the block (NULL
 * for empty values is never returned: a 1-byte dummy is kept); returns the
 * length. */
size_t vec_bytes(vec_block *b, const char *name, const uint8_t **out);
/* A decimal integer (optional leading '-') within [min, max]. */
int64_t vec_int(vec_block *b, const char *name, int64_t min, int64_t max);

/* Optional fields: false/def when absent, fail when present but
 * malformed. */
bool vec_has(const vec_block *b, const char *name);
const char *vec_opt_str(vec_block *b, const char *name, const char *def);
bool vec_opt_bytes(vec_block *b, const char *name, const uint8_t **out,
                   size_t *len);
int64_t vec_opt_int(vec_block *b, const char *name, int64_t min, int64_t max,
                    int64_t def);

/* Fails the test if any field of b was never read. */
void vec_done(vec_block *b);

/* ---- Helpers for the crypto tests ---- */

/* Whether the block's enctype can be run here:
 *   VEC_ET_BUILT      gk5_enctype_check() == 0
 *   VEC_ET_NOT_BUILT  GK5_ERR_ENCTYPE_NOT_BUILT for exactly this enctype,
 *                     and the build says so too ($GK5_DES3 != "1")
 *   VEC_ET_REJECTED   GK5_ERR_ENCTYPE_REJECTED for exactly this enctype
 * Anything else (unknown enctype, a refusal code naming another enctype,
 * des3 refused in a -Ddes3=true build) fails the test. */
enum vec_et_state { VEC_ET_BUILT, VEC_ET_NOT_BUILT, VEC_ET_REJECTED };
enum vec_et_state vec_enctype_state(const vec_block *b, int32_t enctype);

/* Per-file tally.  A vector is counted passed only when every check on it
 * held; not-built vectors are counted skipped, never passed. */
typedef struct {
    const char *file;
    unsigned passed;
    unsigned skipped; /* enctype not built here */
    unsigned refused; /* rejected enctype, refused as expected */
    unsigned failed;
    bool current_failed;
    bool quiet; /* no FAIL lines (the reader's own tests) */
} vec_tally;

void vec_tally_init(vec_tally *t, const char *file);
/* Non-fatal checks: print file:line and both values on a mismatch, mark
 * the current vector failed, and return whether it held. */
bool vec_check_bytes(vec_tally *t, const vec_block *b, const char *what,
                     const void *got, size_t got_len, const void *want,
                     size_t want_len);
bool vec_check_rc(vec_tally *t, const vec_block *b, const char *what,
                  uint32_t got, uint32_t want);
bool vec_check_size(vec_tally *t, const vec_block *b, const char *what,
                    size_t got, size_t want);
/* Ends one vector: counts it passed or failed (or skipped/refused). */
void vec_tally_end(vec_tally *t);
void vec_tally_skip(vec_tally *t);
void vec_tally_refused(vec_tally *t);
/* Prints "file: N passed, N skipped (not built), N refused, N failed" and
 * fails the test if any vector failed or none ran; calls cmocka's skip()
 * when every vector in the file was skipped because its enctype is not
 * built. */
void vec_tally_finish(vec_tally *t);

/* Formats a gk5 error code as "0xXXXXXXXX (words)" into a static buffer. */
const char *vec_rc_str(uint32_t rc);

/* The failure hook: called with the formatted message; must not return.
 * NULL restores the default (cmocka fail_msg). */
typedef void (*vec_fail_hook)(const char *msg);
void vec_set_fail_hook(vec_fail_hook hook);

#endif /* VECFILE_H */
