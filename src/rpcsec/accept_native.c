/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS_INIT with gk5's own acceptor (gk5/accept.h): the server's
 * default way to establish a context, without MIT.  RFC 2203 5.2.2 allows
 * any number of INIT/CONTINUE_INIT legs; the krb5 mechanism's acceptor
 * needs one: the AP-REQ in, the context complete, the AP-REP back in the
 * rpc_gss_init_res (RFC 4121 4.1).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rpcsec/accept_native.h"

int gk5i_rpc_native_cred(const gk5_rpc_server_options *opts,
                         gk5_acceptor_cred **out, gk5_rpc_error *err)
{
    gk5_acceptor_opts ao;
    uint32_t major;
    uint32_t minor = 0;
    char what[300];

    /* The defaults: clock skew, and a replay cache in memory (RFC 4120
     * 3.2.3), shared by every connection of this server. */
    memset(&ao, 0, sizeof(ao));
    ao.keytab = opts->keytab;
    ao.principal = opts->principal;
    major = gk5_acceptor_cred_new(&minor, &ao, out);
    if (!GK5_ERROR(major)) {
        return 0;
    }
    (void)snprintf(
        what, sizeof(what), "gk5 acceptor credential for %s from keytab %s",
        opts->principal != NULL ? opts->principal : "any principal",
        opts->keytab != NULL ? opts->keytab : "(KRB5_KTNAME or default)");
    gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, what);
    return -1;
}

uint32_t gk5i_rpc_accept_native(uint32_t *minor, gk5_acceptor_cred *cred,
                                const gk5_buffer *in, gk5_buffer *out,
                                struct gk5i_rpc_accepted *acc)
{
    gk5_accept_info info;
    uint32_t major;

    memset(acc, 0, sizeof(*acc));
    /* No channel bindings: RPCSEC_GSS has none (RFC 2203 5.2.2). */
    major = gk5_accept(minor, cred, in, NULL, out, &acc->ctx, &info);
    if (GK5_ERROR(major)) {
        return major;
    }
    acc->principal = info.initiator; /* taken over */
    info.initiator = NULL;
    /* What the initiator asked for, as the acceptor honours it. */
    acc->ret_flags = info.gss_flags;
    acc->enctype = info.session_enctype;
    gk5_accept_info_release(&info);
    return GK5_S_COMPLETE;
}
