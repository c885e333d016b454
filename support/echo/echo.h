/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The echo program of rpc_echo_prog.h on libgk5_rpc: the server's
 * dispatch function (`gk5 rpc serve`, `gk5 demo`) and the messages of gk5's
 * own client (`gk5 rpc echo --native`, --inflight): each call's arguments,
 * stamped so that a reply to another call cannot pass, and the check of
 * its results.  Linked by the CLI; no libtirpc.
 */
#ifndef GK5_SUPPORT_ECHO_H
#define GK5_SUPPORT_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gk5/rpcsec.h>

#include "rpc_echo_prog.h"

/* The program and version a server answers to: the dispatch function's
 * arg. */
struct gk5_echo_id {
    uint32_t prog, vers;
};

/* The echo program as a gk5_rpc_dispatch_fn; arg is a struct gk5_echo_id.
 * Another program: PROG_UNAVAIL; another version: PROG_MISMATCH with the
 * one version; a procedure's arguments must decode whole (GARBAGE_ARGS
 * if not).  Always 0: the verdict is in *accept_stat, the results (owned
 * by the caller, free()) in *results. */
int gk5_echo_dispatch(void *arg, const gk5_rpc_call *call,
                      uint32_t *accept_stat, gk5_buffer *results);

/* The 12-byte stamp of call number `call` on thread `index`: the index
 * (4 bytes) and the call (8 bytes), big-endian.  A request carries it in
 * its first bytes (ECHO, SINK), so every request differs. */
#define GK5_ECHO_STAMP_SIZE 12u
void gk5_echo_stamp(uint8_t stamp[GK5_ECHO_STAMP_SIZE], unsigned index,
                    uint64_t call);

/* The arguments of procedure proc (GK5_ECHO_PROC_*) for a size-byte
 * payload, call number `call` of thread `index`, in buf (cap bytes):
 * ECHO and SINK an opaque<> of the SOURCE pattern, which must already
 * be at buf + 4 (it is written in place once), stamped; SOURCE the count;
 * NULL nothing.  *args points into buf.  0, or -1 when cap is short. */
int gk5_echo_args(uint32_t proc, size_t size, unsigned index, uint64_t call,
                  uint8_t *buf, size_t cap, gk5_buffer *args);

/* Check the results of call number `call` of thread `index` (proc and
 * size as sent): SINK the count, ECHO the stamped pattern back, SOURCE
 * the pattern, all of it decoding.  true, or false with words in why
 * ("call N: ..."). */
bool gk5_echo_check(uint32_t proc, size_t size, unsigned index, uint64_t call,
                    const gk5_buffer *res, char *why, size_t why_len);

#endif /* GK5_SUPPORT_ECHO_H */
