/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The client side of gk5 rpc ping and echo (cli_rpc_client.c): their one
 * option table and its words, the security flavours (which gk5 rpc serve
 * lists too), the connection and the AUTH.  gk5 (rpc ping, serve) and
 * gk5-bench (rpc echo, bench/rpc_echo.c) share it, so that both say the
 * same words.  Errors are printed (cli_error) unless the function takes
 * an err buffer.
 */
#ifndef GK5_CLI_RPC_CLIENT_H
#define GK5_CLI_RPC_CLIENT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef GK5_HAVE_TIRPC
#include <rpc/rpc.h>
#endif

#include <gk5/rpcsec.h>

#define RPC_MAX_THREADS 256
#define RPC_MAX_INFLIGHT 1024
#define RPC_MAX_ENCTYPES 16
#define RPC_DEFAULT_TIMEOUT_MS 25000u

/* Decimal or 0x hex, 0..UINT32_MAX; 0 or -1. */
int rpc_parse_num(const char *s, uint32_t *out);
/* Program numbers of the user-defined range read better in hex. */
void rpc_format_prog(uint32_t prog, char *out, size_t len);

struct sec_desc {
    const char *name;
    uint32_t flavor;     /* GK5_RPC_FLAVOR_* */
    gk5_rpc_service svc; /* for RPCSEC_GSS */
    unsigned allow;      /* gk5_rpc_server_options.flavors bit */
};
extern const struct sec_desc rpc_secs[];
extern const size_t rpc_n_secs;
/* The flavour named by name[0..n), or NULL. */
const struct sec_desc *rpc_find_sec(const char *name, size_t n);

enum {
    OPT_HELP = 'h',
    OPT_PROGRAM = 256,
    OPT_VERSION,
    OPT_SEC,
    OPT_TARGET,
    OPT_ENCTYPE,
    OPT_CCACHE,
    OPT_CLIENT_KEYTAB,
    OPT_CLIENT_PRINCIPAL,
    OPT_TIMEOUT,
    /* echo */
    OPT_SIZE,
    OPT_PROC,
    OPT_SECONDS,
    OPT_THREADS,
    OPT_CALLS,
    OPT_INFLIGHT,
    OPT_TRANSPORT,
    /* serve */
    OPT_LISTEN,
    OPT_KEYTAB,
    OPT_PRINCIPAL,
    OPT_WINDOW,
    OPT_ESTABLISH,
    OPT_MAX_CONNECTIONS,
    OPT_MAX_PER_ADDRESS,
    OPT_MAX_INFLIGHT,
    OPT_UNAUTH_BUDGET,
    OPT_REPLY_BUDGET,
    OPT_FIRST_RECORD_TIMEOUT,
    OPT_CONN_IDLE_TIMEOUT,
    OPT_SEND_TIMEOUT,
    OPT_LOG_INTERVAL,
};
/* ping and echo share one table; ping refuses echo's own options. */
extern const struct option rpc_client_longopts[];
extern const char rpc_client_options_help[];

struct client_args {
    const char *cmd; /* "rpc ping", "rpc echo" */
    const char *hostport;
    uint32_t prog, vers;
    bool have_prog, have_vers;
    const struct sec_desc *sec;
    const char *target;
    const char *ccache, *client_keytab, *client_principal;
    int32_t enctypes[RPC_MAX_ENCTYPES];
    size_t n_enctypes;
    unsigned timeout_ms;
    gk5_rpc_establish establish;
    bool have_establish;
    bool native; /* gk5's own RPC client, not libtirpc's */
};
void rpc_client_args_init(struct client_args *a, const char *cmd);
/* One of the shared client options (c from getopt_long); CLI_EXIT_OK, or
 * the exit status with the error printed. */
int rpc_take_client_option(struct client_args *a, int c, char **argv);
/* HOST:PORT and what the options ask for together; 0, or -1 with the
 * error printed. */
int rpc_client_args_check(struct client_args *a, int argc, char **argv);
#ifdef GK5_HAVE_TIRPC
struct timeval rpc_ms_to_timeval(unsigned ms);
/* a's AUTH on clnt (AUTH_NONE, AUTH_SYS or gk5's RPCSEC_GSS); 0, or -1
 * with words in err. */
int rpc_client_auth(const struct client_args *a, CLIENT *clnt, AUTH **out,
                    char *err, size_t err_len);
/* "krb5p, enctype aes256-cts-hmac-sha1-96 (18), window 128" */
void rpc_describe_auth(const struct client_args *a, AUTH *auth, char *out,
                       size_t len);
#endif
/* A gk5_rpc_clnt to a->hostport for a's program and security, with up to
 * inflight calls out; 0, or -1 with words in err. */
int rpc_native_connect(const struct client_args *a, uint32_t inflight,
                       gk5_rpc_clnt **out, char *err, size_t err_len);
/* As rpc_describe_auth, for gk5's client. */
void rpc_describe_native(const struct client_args *a, gk5_rpc_clnt *clnt,
                         uint32_t inflight, char *out, size_t len);

#endif /* GK5_CLI_RPC_CLIENT_H */
