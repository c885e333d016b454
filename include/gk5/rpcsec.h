/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file rpcsec.h
 * @brief libgk5_rpc (pkg-config gk5-rpc): RPCSEC_GSS version 1 (RFC 2203)
 * with the Kerberos V5 mechanism, for libtirpc clients and for any RPC
 * server.
 *
 * Client and server establish their contexts with gk5's own initiator
 * and acceptor (gk5/tickets.h, gk5/accept.h) unless told to use MIT's
 * GSS-API through libgk5_mit (GK5_RPC_ESTABLISH_MIT), which a library
 * built without MIT krb5 (meson -Dmit=disabled) does not have:
 * gk5_rpc_establish_available() says.  Every per-message operation
 * after that is gk5's: the call and reply verifiers, rpc_gss_integ_data
 * and rpc_gss_priv_data bodies.  Bodies are marshalled into gk5's own
 * buffers and wrapped in place with the IOV API, so calls and replies of
 * any size (bounded by max_body) work (docs/design.md, "RPCSEC_GSS").
 *
 * Errors: the calls here return an AUTH, a verdict, or 0 / -1, and fill a
 * gk5_rpc_error (when given one) with an enum gk5_rpc_err code, the GSS
 * major and minor where GSS failed, and words.  Ownership: replies come
 * back as malloc'd gk5_buffers for gk5_buffer_release(); every object has
 * its own _free (or auth_destroy()), which accepts NULL.
 *
 * Client:
 * @code
 *     CLIENT *clnt = clnt_tp_create(...);           // TCP
 *     gk5_rpc_error err;
 *     AUTH *auth = gk5_rpc_auth_create(clnt, "nfs@server",
 *                                      GK5_RPC_SVC_PRIVACY, NULL, &err);
 *     if (auth == NULL) { fprintf(stderr, "%s\n", err.text); ... }
 *     clnt->cl_auth = auth;                        // every call is krb5p
 *     ... clnt_call(clnt, ...) ...
 *     auth_destroy(auth);                          // RPCSEC_GSS_DESTROY
 *     clnt_destroy(clnt);
 * @endcode
 *
 * Server (transport-independent, one call message at a time):
 * @code
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
 * @endcode
 */
#ifndef GK5_RPCSEC_H
#define GK5_RPCSEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifndef GK5_RPC_NO_TIRPC
#include <rpc/rpc.h>
#endif /* GK5_RPC_NO_TIRPC */

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Services and flavours (RFC 2203 5; RFC 2623 pseudoflavours) ---- */

/** The RPCSEC_GSS service (RFC 2203 rpc_gss_service_t). */
typedef enum {
    GK5_RPC_SVC_NONE = 1,      /**< krb5: header MICs only */
    GK5_RPC_SVC_INTEGRITY = 2, /**< krb5i: rpc_gss_integ_data bodies */
    GK5_RPC_SVC_PRIVACY = 3    /**< krb5p: rpc_gss_priv_data bodies */
} gk5_rpc_service;

/** AUTH_NONE. */
#define GK5_RPC_FLAVOR_NONE 0u
/** AUTH_SYS. */
#define GK5_RPC_FLAVOR_SYS 1u
/** RPCSEC_GSS. */
#define GK5_RPC_FLAVOR_RPCSEC_GSS 6u
/** Pseudoflavour: RPCSEC_GSS, krb5, service none. */
#define GK5_RPC_PSEUDO_KRB5 390003u
/** Pseudoflavour: RPCSEC_GSS, krb5, integrity. */
#define GK5_RPC_PSEUDO_KRB5I 390004u
/** Pseudoflavour: RPCSEC_GSS, krb5, privacy. */
#define GK5_RPC_PSEUDO_KRB5P 390005u

/** RFC 2203 5.3.3.1: a sequence number this large ends the context. */
#define GK5_RPC_MAXSEQ 0x80000000u

/**
 * The RFC 2623 name of a service.
 *
 * @param[in] svc  The service.
 * @return "krb5", "krb5i" or "krb5p"; "?" for anything else.  Static.
 */
GK5_EXPORT const char *gk5_rpc_service_name(gk5_rpc_service svc);

/**
 * Parse a service name: "krb5", "krb5i", "krb5p" or "none", "integrity",
 * "privacy", in any case.
 *
 * @param[in]  name  The name.
 * @param[out] svc   The service; 0 when the name is not one.
 * @return 0, or -1 (name or svc NULL, or an unknown name).
 */
GK5_EXPORT int gk5_rpc_service_parse(const char *name, gk5_rpc_service *svc);

/**
 * The pseudoflavour of a service.
 *
 * @param[in] svc  The service.
 * @return 390003, 390004 or 390005; 0 for a value that is not a service.
 */
GK5_EXPORT uint32_t gk5_rpc_pseudoflavor(gk5_rpc_service svc);

/**
 * The service of a krb5 pseudoflavour.
 *
 * @param[in]  flavor  390003..390005.
 * @param[out] svc     The service; 0 when flavor is not one.
 * @return 0, or -1 (svc NULL, or not a krb5 pseudoflavour).
 */
GK5_EXPORT int gk5_rpc_service_from_pseudoflavor(uint32_t flavor,
                                                 gk5_rpc_service *svc);

/* ---- Errors ---- */

/** What went wrong in libgk5_rpc (gk5_rpc_error.code). */
enum gk5_rpc_err {
    GK5_RPC_OK = 0,         /**< success */
    GK5_RPC_E_NOMEM,        /**< out of memory */
    GK5_RPC_E_INVALID,      /**< bad argument or option */
    GK5_RPC_E_TRANSPORT,    /**< connect/send/receive failed or timed out */
    GK5_RPC_E_UNSUPPORTED,  /**< e.g. a transport other than a stream */
    GK5_RPC_E_GSS,          /**< a GSS call failed here (major, minor) */
    GK5_RPC_E_SERVER_GSS,   /**< the server's INIT reply: gss_major/minor */
    GK5_RPC_E_REJECTED,     /**< the server rejected the call (rpc, why) */
    GK5_RPC_E_ACCEPT_STAT,  /**< accepted, but not SUCCESS (accept_stat) */
    GK5_RPC_E_BAD_VERIFIER, /**< a verifier's MIC did not verify */
    GK5_RPC_E_BAD_BODY,     /**< integrity/privacy body failed its check */
    GK5_RPC_E_SEQ_MISMATCH, /**< sequence number is not the call's */
    GK5_RPC_E_MALFORMED,    /**< undecodable message, credential, body */
    GK5_RPC_E_TOO_BIG,      /**< larger than max_body */
    GK5_RPC_E_CONTEXT,      /**< no such context / context problem */
    GK5_RPC_E_EXPIRED,      /**< context or credential expired */
    GK5_RPC_E_SERVICE,      /**< service not allowed / not the context's */
    GK5_RPC_E__COUNT        /**< not an error code: one past the last */
};

/** What failed, for people and programs.  Filled by every call that takes
 *  one (NULL is allowed: then nothing is reported); cleared on entry. */
typedef struct {
    int code;           /**< enum gk5_rpc_err */
    int rpc_stat;       /**< enum clnt_stat when the RPC failed, else 0 */
    uint32_t auth_stat; /**< enum auth_stat of a rejected call, else 0 */
    uint32_t major;     /**< GSS major status (gk5's, MIT's or the
                             server's) */
    uint32_t minor;     /**< GSS minor status, same origin */
    char text[512];     /**< all of it in words */
} gk5_rpc_error;

/**
 * Words for an enum gk5_rpc_err code.
 *
 * @param[in] code  The code.
 * @return Static text; "unknown gk5 RPC error" for other values.
 */
GK5_EXPORT const char *gk5_rpc_strerror(int code);

/* ---- Client: an AUTH for libtirpc ---- */

/** How contexts are established: on the client (gk5_rpc_auth_options)
 *  and on the server (gk5_rpc_server_options). */
typedef enum {
    /** gk5's own: on the client gk5_initiator_*() (the service ticket from
     *  a FILE ccache, or from the KDC with its TGT), on the server
     *  gk5_accept(): one leg, the context is complete with the INIT reply,
     *  whose gss_token is the AP-REP.  A refused AP-REQ gets gss_major,
     *  gss_minor (a gk5 code, gk5_strerror() words) and, when the client
     *  asked for mutual authentication, the KRB-ERROR token (RFC 2203
     *  5.2.3.1).  A replay cache in memory refuses an AP-REQ seen before
     *  (RFC 4120 3.2.3).  The default. */
    GK5_RPC_ESTABLISH_NATIVE = 0,
    /** MIT's gss_init_sec_context / gss_accept_sec_context (through
     *  libgk5_mit), the context then moved into gk5 by its lucid export;
     *  a server's gss_minor is MIT's. */
    GK5_RPC_ESTABLISH_MIT = 1
} gk5_rpc_establish;

/**
 * Can this libgk5_rpc establish contexts this way?  GK5_RPC_ESTABLISH_NATIVE
 * always; GK5_RPC_ESTABLISH_MIT when the library was built with MIT krb5
 * (libgk5_mit; meson -Dmit=enabled).  Built without, gk5_rpc_auth_create()
 * and gk5_rpc_server_create() refuse GK5_RPC_ESTABLISH_MIT with
 * GK5_RPC_E_INVALID and words that say so.
 *
 * @param[in] how  A gk5_rpc_establish.
 * @return 1 if available, 0 if not (or not a gk5_rpc_establish).
 */
GK5_EXPORT int gk5_rpc_establish_available(gk5_rpc_establish how);

/** Client options.  Zero-initialise; NULL/0 fields take the defaults.
 *  Copied by gk5_rpc_auth_create(): not needed afterwards. */
typedef struct {
    const char *principal;     /**< initiator's krb5 name; default: ccache's */
    const char *ccache;        /**< credential cache name */
    const char *client_keytab; /**< initial credentials from this keytab */
    const int32_t *enctypes;   /**< session-key enctypes to ask for */
    size_t n_enctypes;         /**< how many (at most 32) */
    unsigned timeout_ms;       /**< control exchanges; default 25000 */
    size_t max_body;           /**< largest reply body; default 64 MiB */
    /** gk5's own initiator (the default) or MIT's.  Natively only FILE
     *  ccaches are read; a client_keytab without a ccache, or with a
     *  MEMORY: one (private to the process, as in MIT), gets its TGT into
     *  a FILE ccache of the AUTH's own, in a private folder removed with
     *  it. */
    gk5_rpc_establish establish;
} gk5_rpc_auth_options;

/* A libgk5_rpc built without libtirpc (meson -Dtirpc=disabled, the default
 * without MIT krb5) has no AUTH: its gk5-rpc.pc defines GK5_RPC_NO_TIRPC,
 * and gk5_rpc_clnt_* (below) is the client. */
#ifndef GK5_RPC_NO_TIRPC
/**
 * Establish an RPCSEC_GSS context with the server clnt talks to (a stream
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
 *
 * @param[in]  clnt     A stream CLIENT; not taken over (destroy it
 *                      yourself, after auth_destroy() preferably).
 * @param[in]  target   "service@host".
 * @param[in]  service  The service of the first calls
 *                      (gk5_rpc_auth_set_service() changes it).
 * @param[in]  opts     Options, or NULL.
 * @param[out] err      May be NULL; what failed.
 * @return The AUTH, released with auth_destroy() (which sends
 *         RPCSEC_GSS_DESTROY and wipes the keys); NULL on failure, with
 *         err->code typically GK5_RPC_E_INVALID (also for
 *         GK5_RPC_ESTABLISH_MIT in a library built without MIT krb5:
 *         gk5_rpc_establish_available()), GK5_RPC_E_NOMEM,
 *         GK5_RPC_E_UNSUPPORTED (not a stream CLIENT), GK5_RPC_E_TRANSPORT,
 *         GK5_RPC_E_GSS (this side's MIT or gk5 call: major, minor; minor
 *         GK5_ERR_MIT for MIT's), GK5_RPC_E_SERVER_GSS (the server's INIT
 *         answer: its gss_major and gss_minor), GK5_RPC_E_REJECTED
 *         (auth_stat), GK5_RPC_E_BAD_VERIFIER, GK5_RPC_E_MALFORMED.
 */
GK5_EXPORT GK5_WUR AUTH *gk5_rpc_auth_create(CLIENT *clnt, const char *target,
                                             gk5_rpc_service service,
                                             const gk5_rpc_auth_options *opts,
                                             gk5_rpc_error *err);

/**
 * Switch the service of later calls (same context).  Safe while other
 * threads call.
 *
 * @param[in] auth     An AUTH from gk5_rpc_auth_create().
 * @param[in] service  The new service.
 * @return 0, or -1 (auth not one of ours, or not a service).
 */
GK5_EXPORT int gk5_rpc_auth_set_service(AUTH *auth, gk5_rpc_service service);

#endif /* GK5_RPC_NO_TIRPC */

/** What gk5_rpc_auth_inquire() and gk5_rpc_clnt_inquire() report. */
typedef struct {
    int32_t enctype;         /**< session key enctype of the context */
    gk5_rpc_service service; /**< of the next call */
    uint32_t window;         /**< the server's seq_window */
    uint32_t next_seq;       /**< next sequence number to send */
    uint32_t established;    /**< contexts established so far (>= 1) */
    size_t handle_len;       /**< the server's context handle length */
} gk5_rpc_auth_info;

#ifndef GK5_RPC_NO_TIRPC

/**
 * Describe the AUTH's current context.
 *
 * @param[in]  auth  An AUTH from gk5_rpc_auth_create().
 * @param[out] info  Zeroed on entry, filled on success.
 * @return 0, or -1 (auth not one of ours, or info NULL).
 */
GK5_EXPORT int gk5_rpc_auth_inquire(AUTH *auth, gk5_rpc_auth_info *info);

/**
 * Why this thread's last call on auth failed.  libtirpc reports such a
 * failure as RPC_AUTHERROR or RPC_CANTDECODERES; this says what it was.
 *
 * @param[in] auth  An AUTH from gk5_rpc_auth_create().
 * @return The call's error, or NULL if it did not fail (or auth is not one
 *         of ours).  It belongs to auth and this thread: valid until the
 *         thread's next call with auth, or auth_destroy().
 */
GK5_EXPORT const gk5_rpc_error *gk5_rpc_auth_last_error(AUTH *auth);
#endif /* GK5_RPC_NO_TIRPC */

/* ---- Client: gk5's own RPC transport ---- */

/** An RPC client of gk5's own on one stream connection (TCP or a UNIX
 *  socket): RFC 5531 record marking, calls matched to replies by XID, up
 *  to max_inflight calls outstanding, any number of threads. */
typedef struct gk5_rpc_clnt gk5_rpc_clnt;

/** gk5_rpc_clnt options.  Zero-initialise; 0/NULL fields take the
 *  defaults.  Copied by gk5_rpc_clnt_create(). */
typedef struct {
    /** GK5_RPC_FLAVOR_RPCSEC_GSS (the default when a target is given),
     *  GK5_RPC_FLAVOR_SYS or GK5_RPC_FLAVOR_NONE (the default without). */
    uint32_t flavor;
    /** RPCSEC_GSS: how contexts are made (principal, ccache, keytab,
     *  enctypes, establishment; timeout_ms is the control exchanges' and
     *  max_body the largest reply body, as for gk5_rpc_auth_create()). */
    gk5_rpc_auth_options gss;
    /** AUTH_SYS: the credential (RFC 5531 appendix A); machinename
     *  default the host name, at most 255 bytes; at most 16 gids. */
    const char *machinename;
    uint32_t uid, gid;
    const uint32_t *gids;
    size_t n_gids;
    /** Calls outstanding on the connection at once, 1..1024; default 16.
     *  A call made while that many are out waits for one to end. */
    uint32_t max_inflight;
    /** How long a call waits for its reply, in ms; default 25000. */
    unsigned call_timeout_ms;
} gk5_rpc_clnt_options;

/**
 * Connect to addr (a stream socket: AF_INET, AF_INET6 or AF_UNIX) for
 * program prog, version vers, and, for RPCSEC_GSS, establish a context
 * for target ("service@host") on that connection, as
 * gk5_rpc_auth_create() does on a CLIENT's.
 *
 * Calls may be made from any number of threads at once (each waits for
 * its own reply; replies are matched by XID and may come in any order),
 * or kept in flight from one thread with gk5_rpc_clnt_send() and
 * gk5_rpc_clnt_wait().  RPCSEC_GSS sequence numbers are handed out so that
 * every call in flight stays inside the server's window (RFC 2203
 * 5.3.3.1), are never sent twice, and each reply is checked against its
 * own call's number.  A new context is made on the same connection at
 * MAXSEQ, at expiry, or when the server answers RPCSEC_GSS_CREDPROBLEM or
 * CTXPROBLEM (the call is then sent once more).  A closed connection
 * fails every call in flight and every later one with
 * GK5_RPC_E_TRANSPORT: make a new gk5_rpc_clnt.
 *
 * @param[in]  addr     The server's address.
 * @param[in]  addr_len Its length.
 * @param[in]  prog     RPC program number.
 * @param[in]  vers     Its version.
 * @param[in]  target   "service@host" for RPCSEC_GSS; NULL for AUTH_SYS
 *                      or AUTH_NONE.
 * @param[in]  service  The service of RPCSEC_GSS calls
 *                      (gk5_rpc_clnt_set_service() changes it).
 * @param[in]  opts     Options, or NULL.
 * @param[out] out      The client, released with gk5_rpc_clnt_free().
 * @param[out] err      May be NULL; what failed (codes as for
 *                      gk5_rpc_auth_create(), GK5_RPC_E_TRANSPORT for the
 *                      connection).
 * @return 0, or -1.
 */
GK5_EXPORT GK5_WUR int
gk5_rpc_clnt_create(const struct sockaddr *addr, socklen_t addr_len,
                    uint32_t prog, uint32_t vers, const char *target,
                    gk5_rpc_service service, const gk5_rpc_clnt_options *opts,
                    gk5_rpc_clnt **out, gk5_rpc_error *err);

/**
 * Send RPCSEC_GSS_DESTROY for the client's context (a courtesy, bounded
 * by two seconds), close the connection and free the client, wiping the
 * keys.  No call may be running on it.
 *
 * @param[in] clnt  The client; NULL is fine.
 */
GK5_EXPORT void gk5_rpc_clnt_free(gk5_rpc_clnt *clnt);

/**
 * Call procedure proc with args (XDR-encoded, plaintext) and wait for the
 * reply.  Safe from many threads at once.
 *
 * @param[in]  clnt     The client.
 * @param[in]  proc     The procedure.
 * @param[in]  args     The XDR-encoded arguments (may be empty).
 * @param[out] results  The XDR-encoded results (checked and opened for
 *                      krb5i / krb5p), malloc'd: gk5_buffer_release().
 *                      Empty on failure.
 * @param[out] err      May be NULL; what failed.  A reply that is not
 *                      SUCCESS is GK5_RPC_E_ACCEPT_STAT (err->rpc_stat the
 *                      accept_stat) or GK5_RPC_E_REJECTED (err->auth_stat).
 * @return 0, or -1.
 */
GK5_EXPORT GK5_WUR int gk5_rpc_clnt_call(gk5_rpc_clnt *clnt, uint32_t proc,
                                         const gk5_buffer *args,
                                         gk5_buffer *results,
                                         gk5_rpc_error *err);

/**
 * Send a call and return without waiting: its reply is collected with
 * gk5_rpc_clnt_wait(), in any order.  Waits only when max_inflight calls
 * are already out (for one of them to end).  Every call sent must be
 * waited for, by any thread.
 *
 * @param[in]  clnt  The client.
 * @param[in]  proc  The procedure.
 * @param[in]  args  The XDR-encoded arguments.
 * @param[out] id    The call, for gk5_rpc_clnt_wait().
 * @param[out] err   May be NULL; what failed.
 * @return 0, or -1 (nothing was sent, no id to wait for).
 */
GK5_EXPORT GK5_WUR int gk5_rpc_clnt_send(gk5_rpc_clnt *clnt, uint32_t proc,
                                         const gk5_buffer *args, uint64_t *id,
                                         gk5_rpc_error *err);

/**
 * Wait for the reply to a call sent with gk5_rpc_clnt_send(), check it
 * and hand back its results; as gk5_rpc_clnt_call() from there.  The id
 * is used up whatever the outcome.
 *
 * @return 0, or -1.
 */
GK5_EXPORT GK5_WUR int gk5_rpc_clnt_wait(gk5_rpc_clnt *clnt, uint64_t id,
                                         gk5_buffer *results,
                                         gk5_rpc_error *err);

/**
 * Switch the service of later calls (same context).
 *
 * @return 0, or -1 (not an RPCSEC_GSS client, or not a service).
 */
GK5_EXPORT int gk5_rpc_clnt_set_service(gk5_rpc_clnt *clnt,
                                        gk5_rpc_service service);

/**
 * Describe the client's current context (RPCSEC_GSS only).
 *
 * @return 0, or -1 (not an RPCSEC_GSS client, or info NULL).
 */
GK5_EXPORT int gk5_rpc_clnt_inquire(gk5_rpc_clnt *clnt,
                                    gk5_rpc_auth_info *info);

/* ---- Server: message-level RPCSEC_GSS ---- */

/** Server options.  Zero-initialise; 0/NULL fields take the defaults.
 *  Read only by gk5_rpc_server_create(). */
typedef struct {
    const char *keytab;    /**< acceptor keytab; default KRB5_KTNAME, else
                                /etc/krb5.keytab */
    const char *principal; /**< "service@host"; NULL: any key in keytab */
    uint32_t window;       /**< seq_window, 1..1024; default 128 */
    size_t max_contexts;   /**< context table bound; default 65536 */
    uint32_t idle_timeout; /**< seconds before an unused context goes;
                                default 3600 */
    unsigned flavors;      /**< allowed: GK5_RPC_ALLOW_* bits; 0: all */
    size_t max_body;       /**< largest call body; default 64 MiB */
    /** How contexts are accepted; default (0) GK5_RPC_ESTABLISH_NATIVE. */
    gk5_rpc_establish establish;
} gk5_rpc_server_options;

/** gk5_rpc_server_options.flavors: allow AUTH_NONE. */
#define GK5_RPC_ALLOW_NONE (1u << GK5_RPC_FLAVOR_NONE)
/** gk5_rpc_server_options.flavors: allow AUTH_SYS. */
#define GK5_RPC_ALLOW_SYS (1u << GK5_RPC_FLAVOR_SYS)
/** gk5_rpc_server_options.flavors: allow RPCSEC_GSS with service svc. */
#define GK5_RPC_ALLOW_GSS(svc) (1u << (16 + (unsigned)(svc)))

/** A message-level RPCSEC_GSS server: its acceptor credential and its
 *  table of contexts (opaque). */
typedef struct gk5_rpc_server gk5_rpc_server;
/** One call gk5_rpc_server_process() passed to the program (opaque). */
typedef struct gk5_rpc_call gk5_rpc_call;

/**
 * Make a server.  The acceptor credential is acquired now (not when no
 * RPCSEC_GSS service is allowed).  With GK5_RPC_ESTABLISH_NATIVE its
 * replay cache is in memory: for one clock skew it refuses authenticators
 * stamped before it was made (GK5_ERR_AP_BEFORE_START), which a process
 * before it may have accepted.
 *
 * @param[in]  opts  Options, or NULL for the defaults.
 * @param[out] out   The server, for gk5_rpc_server_free().
 * @param[out] err   May be NULL; what failed.
 * @return 0, or -1 with err->code GK5_RPC_E_INVALID (out NULL, window
 *         above 1024, establish not a gk5_rpc_establish or, in a library
 *         built without MIT krb5, GK5_RPC_ESTABLISH_MIT), GK5_RPC_E_NOMEM
 *         or GK5_RPC_E_GSS (the credential: e.g. the keytab has no key for
 *         principal; major and minor as gk5_acceptor_cred_new(), or for
 *         GK5_RPC_ESTABLISH_MIT gk5_mit_acceptor_cred_create(), gave
 *         them).
 */
GK5_EXPORT GK5_WUR int gk5_rpc_server_create(const gk5_rpc_server_options *opts,
                                             gk5_rpc_server **out,
                                             gk5_rpc_error *err);

/**
 * Wipe and free every context, and the server.  No call may be running
 * (gk5_rpc_server_process(), gk5_rpc_server_reply(), a TCP server on it).
 *
 * @param[in] srv  The server; NULL is fine.
 */
GK5_EXPORT void gk5_rpc_server_free(gk5_rpc_server *srv);

/** What to do with a call message. */
typedef enum {
    GK5_RPC_CALL_DISPATCH = 0, /**< *call is for the program */
    GK5_RPC_CALL_REPLY = 1,    /**< send *reply (gk5 answered the call) */
    GK5_RPC_CALL_DROP = 2      /**< send nothing; err says why */
} gk5_rpc_verdict;

/**
 * Process one RPC call message (no record mark).
 *
 * DISPATCH: *call holds the procedure's plaintext arguments; answer with
 * gk5_rpc_server_reply() (or drop it with gk5_rpc_call_free()).  REPLY:
 * *reply is the whole reply message to send: context
 * INIT/CONTINUE_INIT/DESTROY results, and every rejection
 * (RPCSEC_GSS_CREDPROBLEM, CTXPROBLEM, AUTH_BADCRED, AUTH_TOOWEAK,
 * GARBAGE_ARGS...), with err saying why.  DROP: nothing is sent (replayed
 * or below-window sequence numbers, a message that is not a call, no
 * memory for a reply).  The header MIC is verified before the sequence
 * window moves, so a forged call never changes state.  Thread-safe: calls
 * for the same or different contexts may run at once.
 *
 * @param[in]     srv    The server.
 * @param[in,out] msg    The message; may be modified (privacy bodies are
 *                       decrypted in place) and must outlive *call.
 * @param[in]     len    Its length.
 * @param[out]    call   DISPATCH: the call, until gk5_rpc_server_reply()
 *                       or gk5_rpc_call_free(); else NULL.
 * @param[out]    reply  REPLY: the reply (malloc'd): gk5_buffer_release()
 *                       it; else empty.
 * @param[out]    err    May be NULL; for REPLY and DROP, why (code
 *                       GK5_RPC_E_MALFORMED, _CONTEXT, _EXPIRED, _SERVICE,
 *                       _SEQ_MISMATCH, _BAD_VERIFIER, _TOO_BIG, _GSS,
 *                       _REJECTED, _NOMEM, _INVALID; auth_stat for
 *                       rejections).
 * @return The verdict; DROP with GK5_RPC_E_INVALID for a NULL srv, call
 *         or reply.
 */
GK5_EXPORT GK5_WUR gk5_rpc_verdict gk5_rpc_server_process(gk5_rpc_server *srv,
                                                          void *msg, size_t len,
                                                          gk5_rpc_call **call,
                                                          gk5_buffer *reply,
                                                          gk5_rpc_error *err);

/* accept_stat values (RFC 5531 9). */
/** The procedure ran. */
#define GK5_RPC_SUCCESS 0u
/** The program is not served here. */
#define GK5_RPC_PROG_UNAVAIL 1u
/** The version is not served (results: mismatch_info, 8 bytes). */
#define GK5_RPC_PROG_MISMATCH 2u
/** No such procedure. */
#define GK5_RPC_PROC_UNAVAIL 3u
/** The arguments could not be decoded. */
#define GK5_RPC_GARBAGE_ARGS 4u
/** The server failed. */
#define GK5_RPC_SYSTEM_ERR 5u

/**
 * Build the reply to call: accept_stat, and for GK5_RPC_SUCCESS the
 * procedure's results, wrapped for the call's service, with the verifier.
 * When the reply cannot be protected (the context expired while the call
 * ran) the reply is an RPCSEC_GSS_CTXPROBLEM rejection and 0 is returned,
 * err saying why.
 *
 * @param[in]  srv          The server.
 * @param[in]  call         The call; freed in every case.
 * @param[in]  accept_stat  GK5_RPC_SUCCESS .. GK5_RPC_SYSTEM_ERR.
 * @param[in]  results      SUCCESS: the XDR-encoded results; PROG_MISMATCH:
 *                          8 bytes of mismatch_info, or anything else for
 *                          "this version only"; otherwise ignored.
 * @param[in]  len          Their length.
 * @param[out] reply        The reply message (malloc'd):
 *                          gk5_buffer_release() it.
 * @param[out] err          May be NULL; what failed.
 * @return 0, or -1 with err->code GK5_RPC_E_INVALID (a NULL argument, an
 *         accept_stat out of range), GK5_RPC_E_NOMEM or GK5_RPC_E_TOO_BIG.
 */
GK5_EXPORT GK5_WUR int
gk5_rpc_server_reply(gk5_rpc_server *srv, gk5_rpc_call *call,
                     uint32_t accept_stat, const void *results, size_t len,
                     gk5_buffer *reply, gk5_rpc_error *err);

/**
 * Drop a call without replying.
 *
 * @param[in] call  The call; NULL is fine.
 */
GK5_EXPORT void gk5_rpc_call_free(gk5_rpc_call *call);

/* The call's header fields and credentials; each answers 0 (or NULL) for
 * a NULL call.  Strings and bytes are valid while the call is. */

/** @param[in] call  The call.  @return Its XID. */
GK5_EXPORT uint32_t gk5_rpc_call_xid(const gk5_rpc_call *call);
/** @param[in] call  The call.  @return Its program number. */
GK5_EXPORT uint32_t gk5_rpc_call_prog(const gk5_rpc_call *call);
/** @param[in] call  The call.  @return Its program version. */
GK5_EXPORT uint32_t gk5_rpc_call_vers(const gk5_rpc_call *call);
/** @param[in] call  The call.  @return Its procedure number. */
GK5_EXPORT uint32_t gk5_rpc_call_proc(const gk5_rpc_call *call);
/** @param[in] call  The call.
 *  @return GK5_RPC_FLAVOR_NONE, _SYS or _RPCSEC_GSS. */
GK5_EXPORT uint32_t gk5_rpc_call_flavor(const gk5_rpc_call *call);
/** @param[in] call  The call.
 *  @return The service of an RPCSEC_GSS call; 0 otherwise. */
GK5_EXPORT gk5_rpc_service gk5_rpc_call_service(const gk5_rpc_call *call);
/** @param[in] call  The call.
 *  @return The client's principal ("user@REALM") for RPCSEC_GSS calls,
 *          else NULL; gk5's, valid while call is. */
GK5_EXPORT const char *gk5_rpc_call_principal(const gk5_rpc_call *call);
/** @param[in] call  The call.
 *  @return The session key's enctype for RPCSEC_GSS calls, else 0. */
GK5_EXPORT int32_t gk5_rpc_call_enctype(const gk5_rpc_call *call);
/**
 * The raw credential body (e.g. authsys_parms for AUTH_SYS).
 *
 * @param[in]  call  The call.
 * @param[out] len   May be NULL; its length.
 * @return The bytes (inside msg), valid while call is.
 */
GK5_EXPORT const void *gk5_rpc_call_cred(const gk5_rpc_call *call, size_t *len);
/**
 * The procedure's XDR-encoded arguments, plaintext (checked against the
 * call's integrity or privacy body).
 *
 * @param[in]  call  The call.
 * @param[out] len   May be NULL; their length.
 * @return The bytes (inside msg), valid while call is.
 */
GK5_EXPORT const void *gk5_rpc_call_args(const gk5_rpc_call *call, size_t *len);

/**
 * The number of contexts in the table (pending and established).
 *
 * @param[in] srv  The server; NULL gives 0.
 * @return The count.
 */
GK5_EXPORT size_t gk5_rpc_server_contexts(const gk5_rpc_server *srv);

/* ---- A TCP server on top (record marking, one event loop, a pool of
 * worker threads) ---- */

/**
 * The program, called for every call to dispatch, from the worker threads
 * (several at once, calls of one connection included: their replies may
 * go out in any order, as RPC allows).
 *
 * @param[in]  arg          The arg given to gk5_rpc_tcp_server_create().
 * @param[in]  call         The call (gk5_rpc_call_args() and the rest).
 * @param[out] accept_stat  GK5_RPC_SUCCESS or another accept_stat.
 * @param[out] results      For GK5_RPC_SUCCESS (and PROG_MISMATCH), the
 *                          XDR-encoded results, malloc'd: gk5 wipes and
 *                          frees them.
 * @return 0, or -1 to close the connection without a reply.
 */
typedef int (*gk5_rpc_dispatch_fn)(void *arg, const gk5_rpc_call *call,
                                   uint32_t *accept_stat, gk5_buffer *results);

/**
 * A record-marking TCP server around a gk5_rpc_server (opaque): one event
 * loop thread (the caller of gk5_rpc_tcp_server_run()) accepts, reads and
 * writes every connection on non-blocking sockets; a pool of worker
 * threads runs gk5_rpc_server_process(), the program and
 * gk5_rpc_server_reply() for complete calls.  Several calls of one
 * connection may run at once; each reply is queued whole and written by
 * the loop, so the bytes of one connection stay in order.
 *
 * Each peer gets what its state has earned (docs/design.md, "The TCP
 * server under a hostile network"):
 *  - A record's first bytes (at most 4 KiB: the call header, credential
 *    and verifier) are read and checked before its body is.  An
 *    RPCSEC_GSS DATA or DESTROY call with a known handle, a valid header
 *    MIC and a sequence number inside the window may send a body up to
 *    max_body; an RPCSEC_GSS INIT or CONTINUE_INIT at most 256 KiB (an
 *    AP-REQ); AUTH_SYS and AUTH_NONE, when the server allows them, up to
 *    max_body.  Anything refused is answered as gk5_rpc_server_process()
 *    would (AUTH_ERROR...) or dropped, and the rest of the record is read
 *    and discarded without being kept.
 *  - Buffers grow with the bytes received, never to the length a record
 *    declares.  Bytes held for records not authenticated (first bytes,
 *    INIT and AUTH_SYS/NONE bodies, read-ahead) come out of
 *    unauth_budget; replies waiting to be written out of reply_budget.
 *  - A connection counts as authenticated once an RPCSEC_GSS call on it
 *    verified and was dispatched to the program.  AUTH_SYS and AUTH_NONE
 *    calls, even when allowed and served, prove nothing: such a
 *    connection stays unauthenticated.
 *  - When max_connections is reached, a newcomer evicts the oldest
 *    unauthenticated connection (as Linux's knfsd drops its oldest
 *    temporary connection); with every connection authenticated the
 *    newcomer is closed.  One IP address may hold max_per_address.
 *  - Deadlines run on the monotonic clock from an event the peer cannot
 *    move (accept, the end of the previous record, the start of a reply),
 *    never from its last byte, so trickling does not stretch them.
 *
 * Memory: at most unauth_budget + reply_budget for what peers send and
 * are sent, plus what the workers hold for the calls they run (threads x
 * the record, the program's results and the reply being built), plus
 * what authenticated connections send (a body each, up to max_body).
 */
typedef struct gk5_rpc_tcp_server gk5_rpc_tcp_server;

/** Limits and deadlines of a TCP server (gk5_rpc_tcp_server_set_options()).
 *  Zero-initialise: every 0 field takes its default.  Copied: not needed
 *  afterwards. */
typedef struct {
    /** Worker threads that run calls; default the online CPUs, at least
     *  2; at most 1024. */
    unsigned threads;
    /** Connections at once; default 1024.  When full, a new connection
     *  evicts the oldest unauthenticated one; if every connection is
     *  authenticated, the new one is closed at once. */
    size_t max_connections;
    /** Connections from one IP address (IPv4-mapped IPv6 is the IPv4
     *  address; UNIX sockets are not counted); default 64.  One more is
     *  closed at once. */
    size_t max_per_address;
    /** Calls of one connection being run or with a reply waiting to be
     *  written; at the limit the connection is not read until one is
     *  written; default 128 (the default RPCSEC_GSS window). */
    size_t max_inflight;
    /** Bytes, server-wide, held for records that are not authenticated:
     *  first bytes before their check, INIT/CONTINUE_INIT and allowed
     *  AUTH_SYS/AUTH_NONE calls until their reply is built, read-ahead.
     *  When a connection needs more than is left, the oldest
     *  unauthenticated connections holding some are closed to make room;
     *  if none is, that connection is closed.  Default 16 MiB; at least
     *  64 KiB. */
    size_t unauth_budget;
    /** Bytes, server-wide, of replies built and not yet written.  A reply
     *  that does not fit is replaced by a SYSTEM_ERR reply (replies of 1
     *  KiB or less always fit: max_inflight bounds them).  Default 256
     *  MiB; at least 64 KiB.  A reply larger than this is never sent. */
    size_t reply_budget;
    /** Milliseconds a connection that is not authenticated has to send
     *  each complete record, counted from accept or from the end of its
     *  previous record (or from when its last reply was written); default
     *  10000 (10 s).  On expiry it is closed. */
    uint32_t first_record_timeout_ms;
    /** Milliseconds an authenticated connection may stay idle between
     *  records, counted the same way (a record started must be complete
     *  by then too); default 300000 (300 s).  Distinct from the
     *  RPCSEC_GSS context idle timeout (gk5_rpc_server_options), which
     *  stays. */
    uint32_t idle_timeout_ms;
    /** Milliseconds a reply may take to be written, from when writing it
     *  began; a peer that does not drain it is closed and its replies
     *  freed; default 30000 (30 s). */
    uint32_t send_timeout_ms;
    /** Milliseconds between two log lines of one cause: the first is
     *  logged at once, the rest counted and logged as one line (with the
     *  count) when the interval has passed; default 10000 (10 s). */
    uint32_t log_interval_ms;
} gk5_rpc_tcp_options;

/**
 * Serve srv's program on listen_fd.
 *
 * @param[in]  srv        The server: borrowed, must outlive ts.
 * @param[in]  listen_fd  A bound, listening stream socket; never closed by
 *                        gk5.
 * @param[in]  dispatch   The program.
 * @param[in]  arg        Passed to dispatch.
 * @param[out] out        The TCP server, for gk5_rpc_tcp_server_free().
 * @param[out] err        May be NULL; what failed.
 * @return 0, or -1 with err->code GK5_RPC_E_INVALID (a NULL argument, a
 *         negative descriptor), GK5_RPC_E_NOMEM or GK5_RPC_E_TRANSPORT
 *         (pipe2).
 */
GK5_EXPORT GK5_WUR int
gk5_rpc_tcp_server_create(gk5_rpc_server *srv, int listen_fd,
                          gk5_rpc_dispatch_fn dispatch, void *arg,
                          gk5_rpc_tcp_server **out, gk5_rpc_error *err);

/**
 * Set the limits and deadlines (gk5_rpc_tcp_options).  Call before
 * gk5_rpc_tcp_server_run(); without it every default applies.
 *
 * @param[in]  ts    The TCP server.
 * @param[in]  opts  The options, or NULL for the defaults.
 * @param[out] err   May be NULL; what failed.
 * @return 0, or -1 with err->code GK5_RPC_E_INVALID (ts NULL, running, or
 *         a field out of range: threads above 1024, a budget below 64
 *         KiB).
 */
GK5_EXPORT GK5_WUR int
gk5_rpc_tcp_server_set_options(gk5_rpc_tcp_server *ts,
                               const gk5_rpc_tcp_options *opts,
                               gk5_rpc_error *err);

/**
 * Accept and serve until gk5_rpc_tcp_server_stop(); then close every
 * connection and wait for the workers.  Runs the event loop on the
 * calling thread and starts the workers; may run again after it returned.
 *
 * @param[in]  ts   The TCP server.
 * @param[out] err  May be NULL; what failed.
 * @return 0 after a stop, or -1 with err->code GK5_RPC_E_INVALID (ts NULL,
 *         already running), GK5_RPC_E_TRANSPORT (epoll, accept or the
 *         listening socket failed) or GK5_RPC_E_NOMEM (no worker thread,
 *         no memory).
 */
GK5_EXPORT int gk5_rpc_tcp_server_run(gk5_rpc_tcp_server *ts,
                                      gk5_rpc_error *err);

/**
 * Told of the calls gk5 answered itself with a refusal (verdict REPLY:
 * AUTH_ERROR, GARBAGE_ARGS...) or dropped (DROP), and of the connections
 * a limit or deadline closed (verdict DROP, err->code
 * GK5_RPC_E_TRANSPORT, the text naming the limit or deadline), with err
 * saying why.  Rate-limited and coalesced: at most one call per cause (a
 * limit or deadline; for calls, the verdict and err->code) per
 * log_interval_ms; the text of a line that stands for more than one event
 * ends with "(N like this in the last S s)".  Called from the loop and
 * the workers, one at a time.
 *
 * @param[in] arg      The arg given to gk5_rpc_tcp_server_set_log().
 * @param[in] verdict  REPLY or DROP.
 * @param[in] err      Why; valid during the call only.
 */
typedef void (*gk5_rpc_log_fn)(void *arg, gk5_rpc_verdict verdict,
                               const gk5_rpc_error *err);

/**
 * Set the refusal log.  Call before gk5_rpc_tcp_server_run().
 *
 * @param[in] ts   The TCP server; NULL is ignored.
 * @param[in] log  The function, or NULL for none.
 * @param[in] arg  Passed to log.
 */
GK5_EXPORT void gk5_rpc_tcp_server_set_log(gk5_rpc_tcp_server *ts,
                                           gk5_rpc_log_fn log, void *arg);

/**
 * Make gk5_rpc_tcp_server_run() return.  Async-signal-safe.
 *
 * @param[in] ts  The TCP server; NULL is ignored.
 */
GK5_EXPORT void gk5_rpc_tcp_server_stop(gk5_rpc_tcp_server *ts);

/**
 * Free a TCP server that is not running (neither srv nor listen_fd is
 * touched).
 *
 * @param[in] ts  The TCP server; NULL is fine.
 */
GK5_EXPORT void gk5_rpc_tcp_server_free(gk5_rpc_tcp_server *ts);

#ifdef __cplusplus
}
#endif
#endif /* GK5_RPCSEC_H */
