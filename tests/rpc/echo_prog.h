/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The echo program that `gk5 rpc serve` serves (its numbers and SOURCE
 * pattern: support/echo/rpc_echo_prog.h), as the libtirpc peers in this folder
 * speak it (tirpc_server, tirpc_client, test_many_contexts): libtirpc XDR
 * helpers and the per-call payloads.
 */
#ifndef GK5_TESTS_RPC_ECHO_PROG_H
#define GK5_TESTS_RPC_ECHO_PROG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include "rpc_echo_prog.h"

#define ECHO_PROG GK5_ECHO_PROG
#define ECHO_VERS GK5_ECHO_VERS

enum {
    ECHO_PROC_NULL = GK5_ECHO_PROC_NULL,
    ECHO_PROC_ECHO = GK5_ECHO_PROC_ECHO,
    ECHO_PROC_WHOAMI = GK5_ECHO_PROC_WHOAMI,
    ECHO_PROC_SINK = GK5_ECHO_PROC_SINK,
    ECHO_PROC_SOURCE = GK5_ECHO_PROC_SOURCE
};

#define ECHO_MAX_OPAQUE GK5_ECHO_MAX_OPAQUE

/* libtirpc's record buffers are capped at 256 KiB (__rpc_get_t_size);
 * ask for the cap so that krb5i/krb5p bodies up to it fit (docs/design.md,
 * "libtirpc"). */
#define TIRPC_BUFSZ (256u * 1024u)

/* xdrproc_t has had a variadic and a three-argument form: every XDR
 * routine goes through a plain function pointer on its way there. */
#define XDRPROC(fn) ((xdrproc_t)(void (*)(void))(fn))

typedef struct {
    u_int len;
    char *val;
} echo_opaque;

static inline bool_t xdr_echo_opaque(XDR *xdrs, echo_opaque *o)
{
    return xdr_bytes(xdrs, &o->val, &o->len, ECHO_MAX_OPAQUE);
}

static inline bool_t xdr_echo_string(XDR *xdrs, char **s)
{
    return xdr_string(xdrs, s, 4096);
}

/* SOURCE's bytes. */
static inline uint8_t echo_source_byte(size_t i)
{
    return gk5_echo_source_byte(i);
}

/* ECHO and SINK payloads: different for every call, so that a reply to
 * another call (or a stale buffer) never compares equal. */
static inline void echo_fill(uint8_t *p, size_t len, uint64_t call)
{
    size_t i;
    uint32_t x = (uint32_t)(call * 2654435761u) ^ 0x9e3779b9u;

    for (i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

#endif
