/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The NFSv4 COMPOUND codec (nfs4_xdr.h) on libtirpc: xdrproc_t routines
 * for clnt_call, and one COMPOUND on a CLIENT (`gk5 nfs4`, the peer tests,
 * either with gk5's RPCSEC_GSS AUTH or libtirpc's own).
 *
 *     nfs4_argop a[2] = { nfs4_putrootfh(), nfs4_getattr(&mask) };
 *     nfs4_resop r[2];
 *     nfs4_compound_res res = { .ops = r, .max = 2 };
 *     enum clnt_stat st = nfs4_compound(clnt, a, 2, &res, timeout);
 *     if (st == RPC_SUCCESS && res.status == NFS4_OK) ... r[1].u.getattr
 */
#ifndef GK5_SUPPORT_NFS4_TIRPC_H
#define GK5_SUPPORT_NFS4_TIRPC_H

#include <rpc/rpc.h>

#include "nfs4_xdr.h"

/* The most a results body read from a record stream may hold: a READ of
 * `gk5 nfs4`'s largest size (4 MiB) and the rest of its COMPOUND. */
#define NFS4_TIRPC_RES_MAX (4u * 1024 * 1024 + 64 * 1024)

/* COMPOUND4args (encode only) and COMPOUND4res (decode only; XDR_FREE has
 * nothing to free), through nfs4_compound_args_encode and
 * nfs4_compound_res_decode.  The results routine takes the rest of the
 * stream as the results body, all of which must decode: what a memory
 * stream has left, or a record stream up to the end of its record (at
 * most NFS4_TIRPC_RES_MAX bytes).  Before decoding, res->ops[i].op must
 * hold the operation sent at index i (nfs4_compound sets it). */
bool_t nfs4_xdr_compound_args(XDR *xdrs, nfs4_compound_args *args);
bool_t nfs4_xdr_compound_res(XDR *xdrs, nfs4_compound_res *res);

/* One COMPOUND (minor version 0, tag "gk5") on clnt.  res->ops[] (for READ
 * the buffers) must be set up; the rest of res is filled in. */
enum clnt_stat nfs4_compound(CLIENT *clnt, const nfs4_argop *ops, uint32_t n,
                             nfs4_compound_res *res, struct timeval timeout);

#endif /* GK5_SUPPORT_NFS4_TIRPC_H */
