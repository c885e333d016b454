/*
 * The echo program that `gk5 rpc serve` serves, as the libtirpc peers in
 * this folder speak it (tirpc_server, tirpc_client, test_many_contexts).
 *
 *   program 0x20000099 version 1
 *   0 NULL    void           -> void
 *   1 ECHO    opaque<>       -> the same opaque<>
 *   2 WHOAMI  void           -> string<>: flavour, service, client principal
 *   3 SINK    opaque<>       -> unsigned int (the length received)
 *   4 SOURCE  unsigned int n -> opaque<> of n bytes, byte i = i % 251
 */
#ifndef GK5_TESTS_RPC_ECHO_PROG_H
#define GK5_TESTS_RPC_ECHO_PROG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#define ECHO_PROG 0x20000099u
#define ECHO_VERS 1u

enum {
    ECHO_PROC_NULL = 0,
    ECHO_PROC_ECHO = 1,
    ECHO_PROC_WHOAMI = 2,
    ECHO_PROC_SINK = 3,
    ECHO_PROC_SOURCE = 4
};

/* Largest opaque either side accepts: the suite sends at most 4 MiB. */
#define ECHO_MAX_OPAQUE (64u * 1024u * 1024u)

/* libtirpc's record buffers are capped at 256 KiB (__rpc_get_t_size);
 * ask for the cap so that krb5i/krb5p bodies up to it fit (DESIGN.md). */
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
    return (uint8_t)(i % 251);
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
