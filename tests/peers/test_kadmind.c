/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's RPCSEC_GSS client against MIT kadmind (libgssrpc): the kadmin
 * program 2112 version 2 with krb5, krb5i and krb5p, one TAP line per
 * cell.  Run inside tests/peers/kadmind.sh run (GK5_KADMIND_PORT), itself
 * inside gk5 realm run (GK5_REALM_DIR).
 *
 *   test_kadmind [--via gk5|libtirpc] [--port P] [--realm DIR]
 *
 * Cells, for each krb5 service:
 *   NULL        procedure 0, void -> void
 *   GET_PRIVS   procedure 12: the client's API version in, getprivs_ret
 *               out: code 0 (KADM5_OK) and our API version echoed.  The
 *               privs are not the ACL's: kadmind answers with its server
 *               library's kadm5_get_privs, which reports all bits (~0)
 *               whatever the ACL (the realm's kadm5.acl is empty)
 * and once: AUTH_SYS is refused (kadmind serves RPCSEC_GSS only).
 */
#include <stdio.h>
#include <string.h>

#include "peer.h"

#define KADM_PROGRAM 2112u
#define KADM_VERSION 2u
#define KADM_PROC_NULL 0u
#define KADM_PROC_GET_PRIVS 12u
/* KADM5_API_VERSION_4: the newest this server speaks (1.20). */
#define KADM_API_VERSION 0x12345704u
#define KADM_TARGET "kadmin@localhost"

/* getprivs_ret (MIT src/lib/kadm5/kadm_rpc.h): the API version echoed,
 * kadm5_ret_t code (32 bits on the wire), and long privs (also 32 bits:
 * xdr_long encodes 4 bytes). */
typedef struct {
    uint32_t api_version;
    uint32_t code;
    int32_t privs;
} getprivs_ret;

static bool_t xdr_getprivs_ret(XDR *xdrs, getprivs_ret *r)
{
    return xdr_uint32_t(xdrs, &r->api_version) &&
           xdr_uint32_t(xdrs, &r->code) && xdr_int32_t(xdrs, &r->privs);
}

/* xdrproc_t is variadic in libtirpc: go through a plain function pointer. */
#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

static void run_service(const peer_config *cfg, peer_flavor f)
{
    const char *name = peer_flavor_name(f);
    char why[1024], ctx[256];
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    enum clnt_stat st;

    clnt = peer_connect(cfg, why, sizeof(why));
    if (clnt != NULL) {
        auth = peer_auth_create(cfg, clnt, f, why, sizeof(why));
    }
    if (auth == NULL) {
        tap_result(false, "kadmind %s NULL", name);
        tap_diag("%s", why);
        tap_skip("no context", "kadmind %s GET_PRIVS", name);
        goto cleanup;
    }
    clnt->cl_auth = auth;
    peer_auth_describe(cfg, auth, ctx, sizeof(ctx));

    st = clnt_call(clnt, KADM_PROC_NULL, XDRPROC(xdr_void), NULL,
                   XDRPROC(xdr_void), NULL, peer_timeout(cfg));
    if (tap_result(st == RPC_SUCCESS, "kadmind %s NULL", name)) {
        if (ctx[0] != '\0') {
            tap_diag("context: %s", ctx);
        }
    } else {
        peer_call_error(cfg, clnt, auth, st, why, sizeof(why));
        tap_diag("%s", why);
    }

    uint32_t api = KADM_API_VERSION;
    getprivs_ret r = {0};
    st = clnt_call(clnt, KADM_PROC_GET_PRIVS, XDRPROC(xdr_uint32_t),
                   (caddr_t)&api, XDRPROC(xdr_getprivs_ret), (caddr_t)&r,
                   peer_timeout(cfg));
    if (st != RPC_SUCCESS) {
        peer_call_error(cfg, clnt, auth, st, why, sizeof(why));
        tap_result(false, "kadmind %s GET_PRIVS", name);
        tap_diag("%s", why);
    } else if (!tap_result(r.code == 0 && r.api_version == KADM_API_VERSION,
                           "kadmind %s GET_PRIVS: code %u, privs 0x%x, api "
                           "version 0x%x",
                           name, r.code, (unsigned)r.privs, r.api_version)) {
        tap_diag("expected code 0 (KADM5_OK) and api version 0x%x",
                 KADM_API_VERSION);
    }

cleanup:
    if (auth != NULL) {
        auth_destroy(auth);
    }
    if (clnt != NULL) {
        clnt->cl_auth = NULL;
        clnt_destroy(clnt);
    }
}

/* kadmind refuses AUTH_SYS: a NULL call must be rejected, not served. */
static void run_sys_refused(const peer_config *cfg)
{
    char why[1024];
    CLIENT *clnt;
    AUTH *auth = NULL;
    enum clnt_stat st;
    struct rpc_err e;

    clnt = peer_connect(cfg, why, sizeof(why));
    if (clnt != NULL) {
        auth = peer_auth_create(cfg, clnt, PEER_SYS, why, sizeof(why));
    }
    if (auth == NULL) {
        tap_result(false, "kadmind sys NULL is refused");
        tap_diag("%s", why);
        goto cleanup;
    }
    clnt->cl_auth = auth;
    st = clnt_call(clnt, KADM_PROC_NULL, XDRPROC(xdr_void), NULL,
                   XDRPROC(xdr_void), NULL, peer_timeout(cfg));
    clnt_geterr(clnt, &e);
    if (st == RPC_AUTHERROR) {
        tap_result(true, "kadmind sys NULL is refused: %s",
                   peer_auth_stat_name((int)e.re_why));
    } else {
        tap_result(false, "kadmind sys NULL is refused");
        tap_diag("expected RPC_AUTHERROR, got %s (clnt_stat %d)",
                 clnt_sperrno(st), (int)st);
    }

cleanup:
    if (auth != NULL) {
        auth_destroy(auth);
    }
    if (clnt != NULL) {
        clnt->cl_auth = NULL;
        clnt_destroy(clnt);
    }
}

int main(int argc, char **argv)
{
    peer_config cfg = {
        .target = KADM_TARGET,
        .prog = KADM_PROGRAM,
        .vers = KADM_VERSION,
    };
    static const peer_flavor services[] = {PEER_KRB5, PEER_KRB5I, PEER_KRB5P};
    const char *port_env = "GK5_KADMIND_PORT";
    int i;

    if (peer_config_init(&cfg, port_env) != 0) {
        return 2;
    }
    for (i = 1; i + 1 < argc; i += 2) {
        if (peer_config_option(&cfg, argv[i], argv[i + 1]) != 1) {
            break;
        }
    }
    if (i != argc || peer_config_ready(&cfg, port_env) != 0) {
        fprintf(stderr,
                "usage: %s [--via gk5|libtirpc] [--port P] "
                "[--realm DIR]\n",
                argv[0]);
        return 2;
    }
    tap_diag("kadmind on 127.0.0.1:%u, target %s, client via %s", cfg.port,
             cfg.target, peer_via_name(cfg.via));
    for (size_t k = 0; k < sizeof(services) / sizeof(services[0]); k++) {
        run_service(&cfg, services[k]);
    }
    run_sys_refused(&cfg);
    return tap_done();
}
