/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What test_kadmind and test_ganesha share: TAP output, a TCP CLIENT to a
 * port on 127.0.0.1, and an AUTH for a flavour -- AUTH_SYS, or RPCSEC_GSS
 * krb5/krb5i/krb5p made either by gk5 (gk5_rpc_auth_create, the default)
 * or by libtirpc's own rpc_gss_seccreate (--via libtirpc, for comparison:
 * libtirpc's client breaks above ~256 KiB bodies, see docs/design.md,
 * "libtirpc").
 *
 * The initiator is gk5-client@GK5.TEST from the realm's client.keytab
 * (GK5_REALM_DIR, set by gk5 realm run), through a MEMORY
 * ccache; nothing outside the realm folder is read.
 */
#ifndef GK5_TESTS_PEER_H
#define GK5_TESTS_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <gk5/rpcsec.h>

/* ---- TAP (the plan is printed last, by tap_done) ---- */

/* One test line: "ok N - desc" or "not ok N - desc"; returns ok. */
bool tap_result(bool ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "ok N - desc # SKIP why" */
void tap_skip(const char *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "# text", one line per line of text. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the plan; the exit status: 0 when no test failed, else 1. */
int tap_done(void);

/* ---- Flavours ---- */

typedef enum {
    PEER_SYS = 0,                 /* AUTH_SYS */
    PEER_KRB5 = GK5_RPC_SVC_NONE, /* RPCSEC_GSS krb5 */
    PEER_KRB5I = GK5_RPC_SVC_INTEGRITY,
    PEER_KRB5P = GK5_RPC_SVC_PRIVACY
} peer_flavor;

#define PEER_N_FLAVORS 4

const char *peer_flavor_name(peer_flavor f);
/* "sys|krb5|krb5i|krb5p", 0; or -1. */
int peer_flavor_parse(const char *name, peer_flavor *f);

typedef enum { PEER_VIA_GK5, PEER_VIA_LIBTIRPC } peer_via;

const char *peer_via_name(peer_via via);

typedef struct {
    peer_via via;
    const char *realm_dir; /* GK5_REALM_DIR */
    const char *target;    /* "kadmin@localhost", "nfs@localhost" */
    uint16_t port;
    uint32_t prog, vers;
    unsigned timeout_s; /* per call */
} peer_config;

/* Defaults: via gk5, the realm GK5_REALM_DIR, the port from the
 * environment variable port_env (GK5_KADMIND_PORT, GK5_GANESHA_PORT).
 * 0, or -1 after printing why (to stderr). */
int peer_config_init(peer_config *cfg, const char *port_env);

/* The common options --via gk5|libtirpc, --port P, --realm DIR: 1 when
 * opt was one of them (val taken), 0 when it is not, -1 (printed) when
 * val is bad. */
int peer_config_option(peer_config *cfg, const char *opt, const char *val);

/* After the options: checks that a realm and port are known and prepares
 * the process for libtirpc's client (KRB5_CLIENT_KTNAME, KRB5CCNAME).
 * 0, or -1 after printing why. */
int peer_config_ready(peer_config *cfg, const char *port_env);

/* A connected TCP CLIENT for cfg's program, or NULL with why. */
CLIENT *peer_connect(const peer_config *cfg, char *why, size_t whylen);

/* An AUTH of flavour f for clnt (caller sets clnt->cl_auth), or NULL with
 * why. */
AUTH *peer_auth_create(const peer_config *cfg, CLIENT *clnt, peer_flavor f,
                       char *why, size_t whylen);

/* One line about the context of auth ("aes256-cts-hmac-sha1-96, window
 * 128"), empty for AUTH_SYS and libtirpc. */
void peer_auth_describe(const peer_config *cfg, AUTH *auth, char *out,
                        size_t outlen);

/* Why clnt_call returned st: libtirpc's words and, for gk5's AUTH, what
 * gk5_rpc_auth_last_error says. */
void peer_call_error(const peer_config *cfg, CLIENT *clnt, AUTH *auth,
                     enum clnt_stat st, char *out, size_t outlen);

/* "AUTH_TOOWEAK", "RPCSEC_GSS_CREDPROBLEM", ... for an auth_stat. */
const char *peer_auth_stat_name(int why);

/* A struct timeval of cfg->timeout_s. */
struct timeval peer_timeout(const peer_config *cfg);

#endif /* GK5_TESTS_PEER_H */
