/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libgk5_rpc (pkg-config gk5-rpc): RPCSEC_GSS version 1 (RFC 2203) with
 * the Kerberos V5 mechanism, for libtirpc clients and for any RPC server.
 *
 * Contexts are established with MIT's GSS-API (through libgk5_mit) and
 * every per-message operation after that is gk5's: the call and reply
 * verifiers, rpc_gss_integ_data and rpc_gss_priv_data bodies.  Bodies are
 * marshalled into gk5's own buffers and wrapped in place with the IOV API,
 * so calls and replies of any size (bounded by max_body) work.
 *
 * Client:
 *     CLIENT *clnt = clnt_tp_create(...);           // TCP
 *     gk5_rpc_error err;
 *     AUTH *auth = gk5_rpc_auth_create(clnt, "nfs@server",
 *                                      GK5_RPC_SVC_PRIVACY, NULL, &err);
 *     if (auth == NULL) { fprintf(stderr, "%s\n", err.text); ... }
 *     clnt->cl_auth = auth;                        // every call is krb5p
 *     ... clnt_call(clnt, ...) ...
 *     auth_destroy(auth);                          // RPCSEC_GSS_DESTROY
 *     clnt_destroy(clnt);
 *
 * Server (transport-independent, one call message at a time):
 *     gk5_rpc_server *srv;  gk5_rpc_server_create(&opts, &srv, &err);
 *     switch (gk5_rpc_server_process(srv, msg, len, &call, &reply, &err)) {
 *     case GK5_RPC_CALL_DISPATCH:  // run the procedure on the arguments
 *         args = gk5_rpc_call_args(call, &args_len); ...
 *         gk5_rpc_server_reply(srv, call, GK5_RPC_SUCCESS, res, res_len,
 *                              &reply, &err);
 *         // fall through: send reply
 *     case GK5_RPC_CALL_REPLY:     // send reply, then gk5_buffer_release
 *     case GK5_RPC_CALL_DROP:      // send nothing (RFC 2203 5.3.3.1)
 *     }
 */
#ifndef GK5_RPCSEC_H
#define GK5_RPCSEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Services and flavours (RFC 2203 5; RFC 2623 pseudoflavours) ---- */

typedef enum {
    GK5_RPC_SVC_NONE = 1,      /* krb5: header MICs only */
    GK5_RPC_SVC_INTEGRITY = 2, /* krb5i: rpc_gss_integ_data bodies */
    GK5_RPC_SVC_PRIVACY = 3    /* krb5p: rpc_gss_priv_data bodies */
} gk5_rpc_service;

#define GK5_RPC_FLAVOR_NONE 0u       /* AUTH_NONE */
#define GK5_RPC_FLAVOR_SYS 1u        /* AUTH_SYS */
#define GK5_RPC_FLAVOR_RPCSEC_GSS 6u /* RPCSEC_GSS */
#define GK5_RPC_PSEUDO_KRB5 390003u  /* RPCSEC_GSS, krb5, service none */
#define GK5_RPC_PSEUDO_KRB5I 390004u /* ... integrity */
#define GK5_RPC_PSEUDO_KRB5P 390005u /* ... privacy */

/* RFC 2203 5.3.3.1: a sequence number this large ends the context. */
#define GK5_RPC_MAXSEQ 0x80000000u

/* "krb5", "krb5i", "krb5p" (or "?"). */
GK5_EXPORT const char *gk5_rpc_service_name(gk5_rpc_service svc);
/* Parses "krb5|krb5i|krb5p" and "none|integrity|privacy"; 0 or -1. */
GK5_EXPORT int gk5_rpc_service_parse(const char *name, gk5_rpc_service *svc);
/* 390003..390005 <-> service; 0 for a service that is not one. */
GK5_EXPORT uint32_t gk5_rpc_pseudoflavor(gk5_rpc_service svc);
/* 0 and *svc set, or -1 for a number that is not a krb5 pseudoflavour. */
GK5_EXPORT int gk5_rpc_service_from_pseudoflavor(uint32_t flavor,
                                                 gk5_rpc_service *svc);

/* ---- Errors ---- */

enum gk5_rpc_err {
    GK5_RPC_OK = 0,
    GK5_RPC_E_NOMEM,        /* out of memory */
    GK5_RPC_E_INVALID,      /* bad argument or option */
    GK5_RPC_E_TRANSPORT,    /* connect/send/receive failed or timed out */
    GK5_RPC_E_UNSUPPORTED,  /* e.g. a transport other than a stream */
    GK5_RPC_E_GSS,          /* a GSS call failed here (major, minor) */
    GK5_RPC_E_SERVER_GSS,   /* the server's INIT reply: gss_major/minor */
    GK5_RPC_E_REJECTED,     /* the server rejected the call (rpc, why) */
    GK5_RPC_E_ACCEPT_STAT,  /* accepted, but not SUCCESS (accept_stat) */
    GK5_RPC_E_BAD_VERIFIER, /* a verifier's MIC did not verify */
    GK5_RPC_E_BAD_BODY,     /* integrity/privacy body failed its check */
    GK5_RPC_E_SEQ_MISMATCH, /* sequence number in a reply is not ours */
    GK5_RPC_E_MALFORMED,    /* undecodable message, credential, body */
    GK5_RPC_E_TOO_BIG,      /* larger than max_body */
    GK5_RPC_E_CONTEXT,      /* no such context / context problem */
    GK5_RPC_E_EXPIRED,      /* context or credential expired */
    GK5_RPC_E_SERVICE,      /* service not allowed / not the context's */
    GK5_RPC_E__COUNT
};

/* What failed, for people and programs.  Filled by every call that takes
 * one (NULL is allowed: then nothing is reported). */
typedef struct {
    int code;           /* enum gk5_rpc_err */
    int rpc_stat;       /* enum clnt_stat when the RPC failed, else 0 */
    uint32_t auth_stat; /* enum auth_stat of a rejected call, else 0 */
    uint32_t major;     /* GSS major status (gk5's, MIT's or the server's) */
    uint32_t minor;     /* GSS minor status, same origin */
    char text[512];     /* all of it in words */
} gk5_rpc_error;

/* Words for an enum gk5_rpc_err code. */
GK5_EXPORT const char *gk5_rpc_strerror(int code);

/* ---- Client: an AUTH for libtirpc ---- */

/* Zero-initialise; NULL/0 fields take the defaults. */
typedef struct {
    const char *principal;     /* initiator's krb5 name; default: ccache's */
    const char *ccache;        /* credential cache name */
    const char *client_keytab; /* initial credentials from this keytab */
    const int32_t *enctypes;   /* session-key enctypes to ask for */
    size_t n_enctypes;
    unsigned timeout_ms; /* control exchanges; default 25000 */
    size_t max_body;     /* largest reply body; default 64 MiB */
} gk5_rpc_auth_options;

/* Establish an RPCSEC_GSS context with the server clnt talks to (a stream
 * CLIENT: clnt_vc / clnt_tp over TCP or a UNIX socket) for target, a
 * host-based service "service@host", and return an AUTH for
 * clnt->cl_auth.
 *
 * The context is made on clnt's own connection: RPCSEC_GSS_INIT and
 * CONTINUE_INIT go through clnt_call on clnt, with clnt->cl_auth set to
 * the new AUTH for the while and put back as it was before returning
 * (whatever the outcome), so no other thread may use clnt meanwhile.
 * Servers that bind a context to the connection it was made on (MIT's
 * kadmind, libtirpc's own svc_auth_gss) know it only there.
 *
 * A new context (at MAXSEQ, at expiry, or when the server answers
 * RPCSEC_GSS_CREDPROBLEM or CTXPROBLEM) is made on the connection of the
 * call that needs it if that is clnt's and its socket is still open: the
 * old context is destroyed there first (connection-bound servers refuse an
 * INIT while one stands), then INIT runs on the socket inside that call.
 * A call on any other CLIENT makes it on a connection of its own to the
 * same server address.
 *
 * auth_destroy sends RPCSEC_GSS_DESTROY for the context made on clnt's
 * connection on clnt's socket, if that socket is still open (clnt itself
 * is never touched, so auth_destroy may follow clnt_destroy; call it
 * first, with no call running on clnt, or libtirpc's server keeps the
 * context for five minutes and can hand it to a later connection), and
 * for any other context on a connection of its own.
 *
 * The AUTH may be shared by many CLIENTs (connections to the same server)
 * and used by many threads at once; sequence numbers are never reused and
 * each reply is checked against its own call.  Sharing needs a server
 * that does not bind contexts to connections (gk5's, NFS-Ganesha, Linux):
 * a connection-bound one knows the context on clnt's connection only.
 * NULL on failure, with err filled in (GSS failures name the side). */
GK5_EXPORT GK5_WUR AUTH *gk5_rpc_auth_create(CLIENT *clnt, const char *target,
                                             gk5_rpc_service service,
                                             const gk5_rpc_auth_options *opts,
                                             gk5_rpc_error *err);

/* Switch the service of later calls (same context).  0, or -1. */
GK5_EXPORT int gk5_rpc_auth_set_service(AUTH *auth, gk5_rpc_service service);

typedef struct {
    int32_t enctype;         /* session key enctype of the context */
    gk5_rpc_service service; /* of the next call */
    uint32_t window;         /* the server's seq_window */
    uint32_t next_seq;       /* next sequence number to send */
    uint32_t established;    /* contexts established so far (>= 1) */
    size_t handle_len;       /* the server's context handle length */
} gk5_rpc_auth_info;

/* 0, or -1 if auth is not one of ours. */
GK5_EXPORT int gk5_rpc_auth_inquire(AUTH *auth, gk5_rpc_auth_info *info);

/* Why the last call of this thread on auth failed (its err), or NULL if
 * it did not.  libtirpc reports such a failure as RPC_AUTHERROR or
 * RPC_CANTDECODERES; this says what it was. */
GK5_EXPORT const gk5_rpc_error *gk5_rpc_auth_last_error(AUTH *auth);

/* ---- Server: message-level RPCSEC_GSS ---- */

typedef struct {
    const char *keytab;    /* acceptor keytab; default KRB5_KTNAME */
    const char *principal; /* "service@host"; NULL: any key in keytab */
    uint32_t window;       /* seq_window, 1..1024; default 128 */
    size_t max_contexts;   /* context table bound; default 65536 */
    uint32_t idle_timeout; /* seconds before an unused context goes;
                              default 3600 */
    unsigned flavors;      /* allowed: bit GK5_RPC_FLAVOR_NONE/SYS, bit
                              (16 + service) for RPCSEC_GSS services;
                              0: all */
    size_t max_body;       /* largest call body; default 64 MiB */
} gk5_rpc_server_options;

#define GK5_RPC_ALLOW_NONE (1u << GK5_RPC_FLAVOR_NONE)
#define GK5_RPC_ALLOW_SYS (1u << GK5_RPC_FLAVOR_SYS)
#define GK5_RPC_ALLOW_GSS(svc) (1u << (16 + (unsigned)(svc)))

typedef struct gk5_rpc_server gk5_rpc_server;
typedef struct gk5_rpc_call gk5_rpc_call;

/* 0, or -1 with err (e.g. the keytab has no key for principal). */
GK5_EXPORT GK5_WUR int gk5_rpc_server_create(const gk5_rpc_server_options *opts,
                                             gk5_rpc_server **out,
                                             gk5_rpc_error *err);
/* Wipes and frees every context; NULL is fine.  No call may be running. */
GK5_EXPORT void gk5_rpc_server_free(gk5_rpc_server *srv);

typedef enum {
    GK5_RPC_CALL_DISPATCH = 0, /* *call is for the program */
    GK5_RPC_CALL_REPLY = 1,    /* send *reply (gk5 answered the call) */
    GK5_RPC_CALL_DROP = 2      /* send nothing; err says why */
} gk5_rpc_verdict;

/* One RPC call message (no record mark).  msg may be modified (privacy
 * bodies are decrypted in place) and must outlive *call.  DISPATCH: *call
 * holds the procedure's plaintext arguments, reply with
 * gk5_rpc_server_reply (or gk5_rpc_call_free to drop it).  REPLY: *reply
 * is the whole reply message to send (gk5_buffer_release it): context
 * INIT/CONTINUE_INIT/DESTROY results, and every rejection
 * (RPCSEC_GSS_CREDPROBLEM, CTXPROBLEM, AUTH_BADCRED, GARBAGE_ARGS...).
 * DROP: nothing is sent (replayed or below-window sequence numbers, or a
 * message that is not a call).  The header MIC is verified before the
 * sequence window moves, so a forged call never changes state.
 * Thread-safe: calls for the same or different contexts may run at once. */
GK5_EXPORT GK5_WUR gk5_rpc_verdict gk5_rpc_server_process(gk5_rpc_server *srv,
                                                          void *msg, size_t len,
                                                          gk5_rpc_call **call,
                                                          gk5_buffer *reply,
                                                          gk5_rpc_error *err);

/* accept_stat values (RFC 5531). */
#define GK5_RPC_SUCCESS 0u
#define GK5_RPC_PROG_UNAVAIL 1u
#define GK5_RPC_PROG_MISMATCH 2u
#define GK5_RPC_PROC_UNAVAIL 3u
#define GK5_RPC_GARBAGE_ARGS 4u
#define GK5_RPC_SYSTEM_ERR 5u

/* Build the reply to call: accept_stat, and for GK5_RPC_SUCCESS the
 * procedure's XDR-encoded results (wrapped for the call's service, with
 * the verifier).  Frees call in every case.  0, or -1 with err. */
GK5_EXPORT GK5_WUR int
gk5_rpc_server_reply(gk5_rpc_server *srv, gk5_rpc_call *call,
                     uint32_t accept_stat, const void *results, size_t len,
                     gk5_buffer *reply, gk5_rpc_error *err);
GK5_EXPORT void gk5_rpc_call_free(gk5_rpc_call *call);

/* The call's header fields and credentials. */
GK5_EXPORT uint32_t gk5_rpc_call_xid(const gk5_rpc_call *call);
GK5_EXPORT uint32_t gk5_rpc_call_prog(const gk5_rpc_call *call);
GK5_EXPORT uint32_t gk5_rpc_call_vers(const gk5_rpc_call *call);
GK5_EXPORT uint32_t gk5_rpc_call_proc(const gk5_rpc_call *call);
/* GK5_RPC_FLAVOR_NONE, _SYS or _RPCSEC_GSS. */
GK5_EXPORT uint32_t gk5_rpc_call_flavor(const gk5_rpc_call *call);
/* The service of an RPCSEC_GSS call; 0 otherwise. */
GK5_EXPORT gk5_rpc_service gk5_rpc_call_service(const gk5_rpc_call *call);
/* The client's principal ("user@REALM") for RPCSEC_GSS calls, else NULL;
 * valid while call is. */
GK5_EXPORT const char *gk5_rpc_call_principal(const gk5_rpc_call *call);
/* The session key's enctype for RPCSEC_GSS calls, else 0. */
GK5_EXPORT int32_t gk5_rpc_call_enctype(const gk5_rpc_call *call);
/* The raw credential body (e.g. authsys_parms for AUTH_SYS). */
GK5_EXPORT const void *gk5_rpc_call_cred(const gk5_rpc_call *call, size_t *len);
/* The procedure's XDR-encoded arguments, plaintext. */
GK5_EXPORT const void *gk5_rpc_call_args(const gk5_rpc_call *call, size_t *len);

/* Live contexts in the table. */
GK5_EXPORT size_t gk5_rpc_server_contexts(const gk5_rpc_server *srv);

/* ---- A small TCP server on top (record marking, a thread per
 * connection) ---- */

/* The program: for call, set *accept_stat and, for GK5_RPC_SUCCESS, the
 * XDR-encoded results in *results (malloc'd; gk5 frees it).  Return 0, or
 * -1 to close the connection without a reply. */
typedef int (*gk5_rpc_dispatch_fn)(void *arg, const gk5_rpc_call *call,
                                   uint32_t *accept_stat, gk5_buffer *results);

typedef struct gk5_rpc_tcp_server gk5_rpc_tcp_server;

/* Serve srv's program on listen_fd (bound and listening; not closed by
 * gk5). 0, or -1 with err. */
GK5_EXPORT GK5_WUR int
gk5_rpc_tcp_server_create(gk5_rpc_server *srv, int listen_fd,
                          gk5_rpc_dispatch_fn dispatch, void *arg,
                          gk5_rpc_tcp_server **out, gk5_rpc_error *err);
/* Accept and serve until gk5_rpc_tcp_server_stop; then close every
 * connection and wait for their threads.  0, or -1 with err. */
GK5_EXPORT int gk5_rpc_tcp_server_run(gk5_rpc_tcp_server *ts,
                                      gk5_rpc_error *err);
/* Told of every call gk5 answered itself with a refusal (verdict REPLY:
 * AUTH_ERROR, GARBAGE_ARGS...) or dropped (DROP), with err saying why;
 * called from connection threads, at once.  Set before run. */
typedef void (*gk5_rpc_log_fn)(void *arg, gk5_rpc_verdict verdict,
                               const gk5_rpc_error *err);
GK5_EXPORT void gk5_rpc_tcp_server_set_log(gk5_rpc_tcp_server *ts,
                                           gk5_rpc_log_fn log, void *arg);
/* Async-signal-safe: makes run return. */
GK5_EXPORT void gk5_rpc_tcp_server_stop(gk5_rpc_tcp_server *ts);
GK5_EXPORT void gk5_rpc_tcp_server_free(gk5_rpc_tcp_server *ts);

#ifdef __cplusplus
}
#endif
#endif /* GK5_RPCSEC_H */
