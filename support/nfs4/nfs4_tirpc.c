/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * nfs4_tirpc.h: the byte codec of nfs4_xdr.c behind libtirpc's xdrproc_t.
 * The arguments are encoded into a buffer and put on the stream as fixed
 * bytes.  The results are the rest of the stream, which the byte decoder
 * takes whole: a memory stream (UDP, or a body an AUTH unwrapped: gk5's
 * integrity and privacy, libtirpc's RPCSEC_GSS) holds them already; a
 * record stream (TCP with AUTH_SYS, or RPCSEC_GSS without integrity) is
 * read to the end of its record.
 */
#include "nfs4_tirpc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"

/* A results body read from a record stream goes into a buffer of
 * NFS4_RES_FIRST bytes, doubled up to NFS4_TIRPC_RES_MAX. */
#define NFS4_RES_FIRST 4096u
/* The largest piece taken from a record stream's buffer at once. */
#define NFS4_RES_PIECE 65536u

bool_t nfs4_xdr_compound_args(XDR *xdrs, nfs4_compound_args *args)
{
    struct gk5i_wr w;
    uint8_t *buf;
    size_t len;
    bool_t ok;

    if (xdrs->x_op != XDR_ENCODE) {
        return xdrs->x_op == XDR_FREE;
    }
    len = nfs4_compound_args_size(args);
    if (len > UINT_MAX) {
        return FALSE;
    }
    buf = malloc(len);
    if (buf == NULL) {
        return FALSE;
    }
    gk5i_wr_init(&w, buf, len);
    /* len is a multiple of 4: xdr_opaque writes the bytes, no padding. */
    ok = nfs4_compound_args_encode(args, &w) == 0 && w.left == 0 &&
         xdr_opaque(xdrs, (caddr_t)buf, (u_int)len);
    free(buf);
    return ok;
}

/* libtirpc's memory streams: the same operations as a stream of our own
 * (one set for 4-byte aligned buffers, one for others). */
static bool is_memory_stream(const XDR *xdrs)
{
    static uint32_t probe[2];
    XDR aligned, unaligned;
    bool yes;

    xdrmem_create(&aligned, (char *)probe, 4, XDR_DECODE);
    xdrmem_create(&unaligned, (char *)probe + 1, 4, XDR_DECODE);
    yes = xdrs->x_ops == aligned.x_ops || xdrs->x_ops == unaligned.x_ops;
    XDR_DESTROY(&aligned);
    XDR_DESTROY(&unaligned);
    return yes;
}

/* A memory stream's x_handy is the count of bytes left: decoded in place,
 * or copied out where the stream hands out no pointer (an unaligned
 * buffer). */
static bool_t decode_memory_rest(XDR *xdrs, nfs4_compound_res *res)
{
    u_int len = xdrs->x_handy;
    const uint8_t *at = (const uint8_t *)xdr_inline(xdrs, len);
    uint8_t *copy;
    bool_t ok;

    if (at != NULL) {
        return nfs4_compound_res_decode(at, len, res);
    }
    copy = malloc(len == 0 ? 1 : len);
    if (copy == NULL) {
        return FALSE;
    }
    ok = XDR_GETBYTES(xdrs, (char *)copy, len) &&
         nfs4_compound_res_decode(copy, len, res);
    free(copy);
    return ok;
}

/* Any other stream (a record stream) up to the end of its record, which a
 * read that fails marks: pieces xdr_inline hands out whole from the
 * stream's buffer, single bytes where it would have to read on (a new
 * buffer, the next fragment).  *out is malloc'd; false when more than
 * NFS4_TIRPC_RES_MAX bytes come or memory runs out. */
static bool read_record_rest(XDR *xdrs, uint8_t **out, size_t *out_len)
{
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    for (;;) {
        const uint8_t *at;
        u_int n;

        if (len == cap) {
            uint8_t extra, *grown;
            size_t more = cap == 0 ? NFS4_RES_FIRST : 2 * cap;

            if (cap == NFS4_TIRPC_RES_MAX) {
                if (XDR_GETBYTES(xdrs, (char *)&extra, 1)) {
                    break; /* too long */
                }
                *out = buf;
                *out_len = len;
                return true;
            }
            if (more > NFS4_TIRPC_RES_MAX) {
                more = NFS4_TIRPC_RES_MAX;
            }
            grown = realloc(buf, more);
            if (grown == NULL) {
                break;
            }
            buf = grown;
            cap = more;
        }
        n = (u_int)(cap - len < NFS4_RES_PIECE ? cap - len : NFS4_RES_PIECE);
        while ((at = (const uint8_t *)xdr_inline(xdrs, n)) == NULL && n > 1) {
            n /= 2;
        }
        if (at != NULL) {
            memcpy(buf + len, at, n);
            len += n;
        } else if (XDR_GETBYTES(xdrs, (char *)buf + len, 1)) {
            len++;
        } else {
            *out = buf;
            *out_len = len;
            return true;
        }
    }
    free(buf);
    return false;
}

bool_t nfs4_xdr_compound_res(XDR *xdrs, nfs4_compound_res *res)
{
    uint8_t *body;
    size_t len;
    bool_t ok;

    if (xdrs->x_op != XDR_DECODE) {
        return xdrs->x_op == XDR_FREE;
    }
    if (is_memory_stream(xdrs)) {
        return decode_memory_rest(xdrs, res);
    }
    if (!read_record_rest(xdrs, &body, &len)) {
        return FALSE;
    }
    ok = nfs4_compound_res_decode(body, len, res);
    free(body);
    return ok;
}

enum clnt_stat nfs4_compound(CLIENT *clnt, const nfs4_argop *ops, uint32_t n,
                             nfs4_compound_res *res, struct timeval timeout)
{
    nfs4_compound_args args = {
        .tag = "gk5", .minorversion = 0, .ops = ops, .n = n};

    res->status = 0;
    res->n = 0;
    res->tag[0] = '\0';
    for (uint32_t i = 0; i < n && i < res->max; i++) {
        res->ops[i].op = ops[i].op; /* what each result must answer */
    }
    /* xdrproc_t is variadic in libtirpc: go through a plain function
     * pointer type. */
    return clnt_call(clnt, NFSPROC4_COMPOUND,
                     (xdrproc_t)(void (*)(void))nfs4_xdr_compound_args,
                     (caddr_t)&args,
                     (xdrproc_t)(void (*)(void))nfs4_xdr_compound_res,
                     (caddr_t)res, timeout);
}
