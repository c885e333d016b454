/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the NFSv4 COMPOUND reply decoder (support/nfs4/nfs4_xdr.c,
 * nfs4_compound_res_decode), which takes a server's bytes for `gk5 nfs4`
 * and the peer tests.
 *
 * Input: one byte choosing the operations the caller sent (PUTFH, then one
 * of READ, READDIR, GETATTR, OPEN, WRITE, LOOKUP, SETCLIENTID, COMMIT, then
 * GETATTR, GETFH) and how many results it has room for, then the reply's
 * XDR, the whole results body.  The decoder must stay inside the input and
 * the caller's buffers, never decode more results than the caller has room
 * for, keep READ lengths within the buffer it was given and READDIR
 * entries within their array, and terminate every name.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "nfs4_xdr.h"

enum { MAX_OPS = 4, READ_CAP = 4096, DIR_CAP = 8 };

static void bad(const char *what)
{
    fuzz_fail(what, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t second[] = {OP_READ,        OP_READDIR, OP_GETATTR,
                                      OP_OPEN,        OP_WRITE,   OP_LOOKUP,
                                      OP_SETCLIENTID, OP_COMMIT};
    nfs4_resop ops[MAX_OPS];
    nfs4_compound_res res;
    static uint8_t readbuf[READ_CAP + 1];
    static nfs4_dirent ents[DIR_CAP];
    uint8_t *p;

    if (size < 1) {
        return 0;
    }
    memset(ops, 0, sizeof(ops));
    memset(&res, 0, sizeof(res));
    res.ops = ops;
    res.max = 1 + (data[0] >> 6); /* 1..4 results of room */
    /* What the caller sent (the decoder refuses results of another op),
     * and for each the union member the caller sets up. */
    static const uint32_t rest[] = {OP_GETATTR, OP_GETFH};
    for (unsigned i = 0; i < MAX_OPS; i++) {
        ops[i].op = i == 0   ? OP_PUTFH
                    : i == 1 ? second[data[0] & 7]
                             : rest[i - 2];
        if (ops[i].op == OP_READ) {
            ops[i].u.read.buf = readbuf;
            ops[i].u.read.cap = READ_CAP;
        } else if (ops[i].op == OP_READDIR) {
            ops[i].u.readdir.entries = ents;
            ops[i].u.readdir.cap = DIR_CAP;
        }
    }
    readbuf[READ_CAP] = 0xa5;
    p = fuzz_dup(data + 1, size - 1); /* exactly size - 1 bytes for ASan */
    (void)nfs4_compound_res_decode(p, size - 1, &res);
    if (res.n > res.max) {
        bad("more results than room");
    }
    if (memchr(res.tag, '\0', sizeof(res.tag)) == NULL) {
        bad("tag not terminated");
    }
    for (uint32_t i = 0; i < res.n; i++) {
        if (ops[i].status != NFS4_OK) {
            continue;
        }
        if (ops[i].op == OP_READ && ops[i].u.read.len > READ_CAP) {
            bad("READ length beyond its buffer");
        }
        if (ops[i].op == OP_READDIR) {
            if (ops[i].u.readdir.n > DIR_CAP) {
                bad("READDIR entries beyond the array");
            }
            for (uint32_t e = 0; e < ops[i].u.readdir.n && e < DIR_CAP; e++) {
                if (memchr(ents[e].name, '\0', sizeof(ents[e].name)) == NULL) {
                    bad("READDIR name not terminated");
                }
            }
        }
        if (ops[i].op == OP_GETFH && ops[i].u.getfh.len > NFS4_FHSIZE) {
            bad("file handle longer than NFS4_FHSIZE");
        }
    }
    if (readbuf[READ_CAP] != 0xa5) {
        bad("wrote past the READ buffer");
    }
    free(p);
    return 0;
}
