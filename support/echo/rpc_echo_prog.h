/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The echo program that `gk5 rpc serve` serves and `gk5 rpc ping|echo` and
 * the RPC tests call: its numbers, bounds and the SOURCE pattern.  Plain
 * C, no libtirpc: test peers of any kind can include it.
 *
 *   program GK5_ECHO_PROG version GK5_ECHO_VERS (XDR, RFC 4506):
 *     0 NULL    void            -> void
 *     1 ECHO    opaque<>        -> the same opaque<>
 *     2 WHOAMI  void            -> string<>: "RPCSEC_GSS krb5p user@REALM",
 *                                  "AUTH_SYS uid=0 gid=0" or "AUTH_NONE"
 *     3 SINK    opaque<>        -> unsigned int: the opaque's length
 *     4 SOURCE  unsigned int n  -> opaque<> of n bytes, byte i = i % 251
 *   Any other procedure: PROC_UNAVAIL; another program: PROG_UNAVAIL;
 *   another version: PROG_MISMATCH (GK5_ECHO_VERS..GK5_ECHO_VERS).
 */
#ifndef GK5_RPC_ECHO_PROG_H
#define GK5_RPC_ECHO_PROG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GK5_ECHO_PROG 0x20000099u /* in the 0x20000000 "user defined" range */
#define GK5_ECHO_VERS 1u

#define GK5_ECHO_PROC_NULL 0u
#define GK5_ECHO_PROC_ECHO 1u
#define GK5_ECHO_PROC_WHOAMI 2u
#define GK5_ECHO_PROC_SINK 3u
#define GK5_ECHO_PROC_SOURCE 4u

/* Largest opaque<> the program takes or sends (ECHO, SINK, SOURCE). */
#define GK5_ECHO_MAX_OPAQUE (64u * 1024u * 1024u)
/* Largest WHOAMI string. */
#define GK5_ECHO_MAX_STRING 1024u
/* Room for the opaque's XDR length and padding, the RPCSEC_GSS sequence
 * number and the Wrap token: what a body of GK5_ECHO_MAX_OPAQUE needs on
 * top (max_body of the server and client options). */
#define GK5_ECHO_BODY_SLACK 4096u

/* The SOURCE pattern: byte i of a reply is (uint8_t)(i % 251).  251 is
 * prime, so a shifted, truncated or repeated block never looks right. */
#define GK5_ECHO_SOURCE_MOD 251u

static inline uint8_t gk5_echo_source_byte(size_t i)
{
    return (uint8_t)(i % GK5_ECHO_SOURCE_MOD);
}

/* Fill p[0..n) with the pattern: one period by hand, then copies of what
 * is already there (doubling; every copy starts on a period boundary). */
static inline void gk5_echo_source_fill(uint8_t *p, size_t n)
{
    size_t done = n < GK5_ECHO_SOURCE_MOD ? n : GK5_ECHO_SOURCE_MOD;

    for (size_t i = 0; i < done; i++) {
        p[i] = (uint8_t)i;
    }
    while (done < n) {
        size_t chunk = done - done % GK5_ECHO_SOURCE_MOD;
        if (chunk > n - done) {
            chunk = n - done;
        }
        memcpy(p + done, p, chunk);
        done += chunk;
    }
}

/* The index of the first byte of p[from..n) that is not the pattern's
 * (byte i is gk5_echo_source_byte(i)), or n if all are; bytes before from
 * are not looked at.  By hand up to the end of the first whole period at
 * or after from, then each later stretch against the periods checked so
 * far (memcmp, doubling); a stretch that differs is searched byte by byte
 * for the index. */
static inline size_t gk5_echo_source_check_from(const uint8_t *p, size_t n,
                                                size_t from)
{
    size_t base = from + (GK5_ECHO_SOURCE_MOD - from % GK5_ECHO_SOURCE_MOD) %
                             GK5_ECHO_SOURCE_MOD;
    size_t done =
        base + GK5_ECHO_SOURCE_MOD < n ? base + GK5_ECHO_SOURCE_MOD : n;

    for (size_t i = from; i < done; i++) {
        if (p[i] != gk5_echo_source_byte(i)) {
            return i;
        }
    }
    while (done < n) {
        size_t chunk = (done - base) - (done - base) % GK5_ECHO_SOURCE_MOD;
        if (chunk > n - done) {
            chunk = n - done;
        }
        if (memcmp(p + done, p + base, chunk) != 0) {
            for (size_t i = done; i < done + chunk; i++) {
                if (p[i] != gk5_echo_source_byte(i)) {
                    return i;
                }
            }
        }
        done += chunk;
    }
    return n;
}

/* The index of the first byte of p[0..n) that is not the pattern's, or
 * n if all are. */
static inline size_t gk5_echo_source_check(const uint8_t *p, size_t n)
{
    return gk5_echo_source_check_from(p, n, 0);
}

#endif /* GK5_RPC_ECHO_PROG_H */
