/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Inside libgk5_rpc: RPCSEC_GSS_INIT with gk5's own acceptor
 * (accept_native.c, over gk5/accept.h), for server.c.
 */
#ifndef GK5_RPCSEC_ACCEPT_NATIVE_H
#define GK5_RPCSEC_ACCEPT_NATIVE_H

#include <stdint.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "rpcsec/rpcsec_int.h"

/* What an accepted context gives the server's record of the client. */
struct gk5i_rpc_accepted {
    gk5_ctx *ctx;
    char *principal;    /* the initiator, "user@REALM"; malloc'd */
    uint32_t ret_flags; /* GSS_C_*_FLAG granted */
    int32_t enctype;    /* the ticket's session key */
};

/* The acceptor credential for opts->keytab and opts->principal (NULL
 * keytab: KRB5_KTNAME, else /etc/krb5.keytab), with a replay cache in
 * memory.  0, or -1 with err (GK5_RPC_E_GSS: major and minor as
 * gk5_acceptor_cred_new() gave them). */
GK5I_RPC_WUR int gk5i_rpc_native_cred(const gk5_rpc_server_options *opts,
                                      gk5_acceptor_cred **out,
                                      gk5_rpc_error *err);

/* Accept in, the argument of RPCSEC_GSS_INIT (RFC 2203 5.2.2), in one
 * leg.  *out is the reply's gss_token: the AP-REP, or on refusal the
 * KRB-ERROR when the client asked for mutual authentication (release it
 * in every case).  The GSS major status, *minor set; on success *acc is
 * filled and its ctx and principal are the caller's, else it is zeroed. */
GK5I_RPC_WUR uint32_t gk5i_rpc_accept_native(uint32_t *minor,
                                             gk5_acceptor_cred *cred,
                                             const gk5_buffer *in,
                                             gk5_buffer *out,
                                             struct gk5i_rpc_accepted *acc);

#endif /* GK5_RPCSEC_ACCEPT_NATIVE_H */
