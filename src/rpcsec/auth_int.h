/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The libtirpc AUTH's rooms (auth*.c) and what they share: the AUTH's
 * state, a thread's call slot, the route and in-band state of an
 * establishment's legs, and each room's calls.  Nothing outside
 * src/rpcsec/auth*.c includes this; built only with libtirpc.
 */
#ifndef GK5_RPCSEC_AUTH_INT_H
#define GK5_RPCSEC_AUTH_INT_H

#include <stdint.h>
#include <sys/types.h>

#include <rpc/rpc.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "rpcsec/client_int.h"

struct priv {
    /* The options, copied, and where control exchanges of our own go (the
     * CLIENT's peer), and for what program. */
    struct gk5i_rpc_est est;
    uint64_t serial;            /* names this AUTH in the per-thread slots */
    pthread_mutex_t lock;       /* cur */
    pthread_mutex_t estab_lock; /* one (re-)establishment at a time */
    struct gk5i_cctx *cur;
    /* The creation CLIENT's connection, written once at creation (see
     * home_fd_for): the XDR stream libtirpc marshals its calls on (its
     * ct_xdrs; NULL if it is not a record stream), its socket, and the
     * socket's identity, which tells a closed and reused descriptor apart. */
    XDR *home_xdrs;
    int home_fd;
    dev_t home_dev;
    ino_t home_ino;
    /* The context last made on that connection (a reference, or NULL once
     * destroyed there); under estab_lock, and read by destroy. */
    struct gk5i_cctx *home_cc;
    /* Only while gk5_rpc_auth_create runs the first INIT legs in band. */
    struct inband *inband;
};

struct call_slot {
    uint64_t serial;      /* 0: free */
    uint64_t used;        /* for replacing the least recently used slot */
    struct gk5i_cctx *cc; /* held from marshal to the end of the call */
    XDR *xdrs; /* the stream marshal got: which CLIENT the call is on */
    uint32_t seq;
    gk5_rpc_service service;
    int in_flight; /* seq is taken and its call has not ended */
    int refreshed; /* refresh re-established: libtirpc sends the call again */
    int failed;
    gk5_rpc_error err;
};

/* Where the legs of one establishment go. */
struct route {
    struct priv *p;
    CLIENT *clnt; /* in band, clnt_call on clnt with auth (creation) */
    AUTH *auth;
    int fd; /* else raw on this socket (the creation CLIENT's), or on a
               connection of our own when -1 */
};

/* The AUTH's state while a leg runs in band (gk5i_auth_inband_ops). */
struct inband {
    const gk5i_rpc_cred *cred;  /* INIT or CONTINUE_INIT, seq 0 */
    struct gk5i_leg_reply *leg; /* the verifier goes here */
    XDR *xdrs;                  /* the stream marshal got */
    int failed;                 /* err says why */
    gk5_rpc_error err;
};

/* ---- Per-thread call slots (auth_slot.c) ---- */

void gk5i_auth_slot_end_call(struct call_slot *s);
/* This thread's slot for serial; with create, take the least recently used
 * one if there is none. */
struct call_slot *gk5i_auth_slot_find(uint64_t serial, int create);

/* ---- The in-band state and the legs (auth_inband.c) ---- */

/* The AUTH's operations while gk5_rpc_auth_create runs a leg in band. */
extern struct auth_ops gk5i_auth_inband_ops;
/* A leg of gk5i_rpc_establish, along the route arg. */
GK5I_RPC_WUR int gk5i_auth_route_leg(void *arg, const gk5i_rpc_cred *cred,
                                     const gk5_buffer *tok, const char *what,
                                     struct gk5i_leg_reply *leg,
                                     gk5_rpc_error *err);

/* ---- The AUTH operations (auth.c, auth_body.c) ---- */

void gk5i_auth_op_nextverf(AUTH *auth);
bool_t gk5i_auth_op_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args,
                         caddr_t args);
bool_t gk5i_auth_op_validate(AUTH *auth, struct opaque_auth *verf);
bool_t gk5i_auth_op_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                           caddr_t results);

#endif /* GK5_RPCSEC_AUTH_INT_H */
