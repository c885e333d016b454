/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS server's rooms (server*.c) and what they share: a
 * context, the server, a call, the call header as read, and each room's
 * calls.  Nothing outside src/rpcsec/server*.c includes this.
 */
#ifndef GK5_RPCSEC_SERVER_INT_H
#define GK5_RPCSEC_SERVER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif

#include "rpcsec/accept_native.h"
#include "rpcsec/rpcsec_int.h"

/* RFC 5531 9: msg_type, reply_stat, reject_stat. */
#define RPC_MSG_CALL 0u
#define RPC_MSG_REPLY 1u
#define RPC_MSG_ACCEPTED 0u
#define RPC_MSG_DENIED 1u
#define RPC_REJECT_MISMATCH 0u
#define RPC_REJECT_AUTH_ERROR 1u
#define RPC_VERSION 2u

/* The largest sequence window (gk5_rpc_server_options.window). */
#define GK5I_SRV_MAX_WINDOW 1024u
#define WINDOW_WORDS (GK5I_SRV_MAX_WINDOW / 64u)

/* RPCSEC_GSS_INIT tokens, whatever max_body says: an AP-REQ carrying a
 * large PAC reaches 64 KiB (Windows' MaxTokenSize is 65535). */
#define GK5I_SRV_MAX_INIT_TOKEN ((size_t)1024 * 1024)

enum sctx_state {
    SCTX_PENDING,    /* CONTINUE_INIT expected (MIT's acceptor): acc set */
    SCTX_ESTABLISHED /* ctx is set and never changes afterwards */
};

struct sctx {
    uint8_t handle[GK5I_RPC_HANDLE_LEN];

    /* Table lock. */
    struct sctx *hnext;
    struct sctx *newer;
    struct sctx *older;
    bool in_table;
    uint64_t last_used; /* monotonic seconds */

    /* Incremented only under the table lock (lookups, insert), so a
     * count of 1 seen under it means "only the table holds this": idle. */
    _Atomic size_t refs;

    /* Context lock: state, acc, the window. */
    pthread_mutex_t lock;
    enum sctx_state state;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_acceptor *acc;
#endif

    /* Set before the context is visible as ESTABLISHED, then constant. */
    gk5_ctx *ctx;
    char *principal;
    int32_t enctype;
    uint32_t ret_flags;
    uint32_t endtime; /* 0: no expiry */

    /* RFC 2203 5.3.3.1: highest seq_num seen and, for the GK5I_SRV_MAX_WINDOW
     * numbers at and below it, whether each was seen (bit seq %
     * GK5I_SRV_MAX_WINDOW). */
    bool seq_started;
    uint32_t seq_top;
    uint64_t seen[WINDOW_WORDS];
};

struct gk5_rpc_server {
    /* The acceptor credential of the establishment asked for; neither when
     * no RPCSEC_GSS service is allowed. */
    gk5_rpc_establish establish;
    gk5_acceptor_cred *native; /* GK5_RPC_ESTABLISH_NATIVE */
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_acceptor_cred *cred; /* GK5_RPC_ESTABLISH_MIT */
#endif
    uint32_t window;
    size_t max_contexts;
    uint32_t idle_timeout;
    unsigned flavors;
    size_t max_body;

    pthread_mutex_t lock;
    struct sctx **buckets;
    size_t nbuckets; /* a power of two */
    _Atomic size_t count;
    struct sctx *newest;
    struct sctx *oldest;
};

struct gk5_rpc_call {
    uint32_t xid;
    uint32_t prog;
    uint32_t vers;
    uint32_t proc;
    uint32_t flavor;
    gk5_rpc_service service; /* 0 unless RPCSEC_GSS */
    uint32_t seq;
    struct sctx *sc; /* a reference, RPCSEC_GSS only */
    const uint8_t *cred;
    size_t cred_len;
    const uint8_t *args;
    size_t args_len;
};

struct call_hdr {
    uint32_t xid;
    uint32_t prog;
    uint32_t vers;
    uint32_t proc;
    uint32_t cred_flavor;
    const uint8_t *cred;
    size_t cred_len;
    size_t cred_end; /* offset past the credential: RFC 2203 5.3.1 */
    uint32_t verf_flavor;
    const uint8_t *verf;
    size_t verf_len;
    uint8_t *args;
    size_t args_len;
    const uint8_t *msg;
};

enum parse {
    PARSE_OK,
    PARSE_DROP,     /* not a call, or too short to answer */
    PARSE_MISMATCH, /* rpcvers != 2 */
    PARSE_BADCRED,
    PARSE_BADVERF
};

/* A reply verifier (opaque_auth). */
struct verf {
    uint32_t flavor;
    size_t len;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];
};

/* ---- The table (server_table.c) ---- */

enum lookup { LOOKUP_FOUND, LOOKUP_NONE, LOOKUP_IDLE };

/* The empty table of a new server: 0, or -1 without memory. */
GK5I_RPC_WUR int gk5i_srv_table_init(gk5_rpc_server *srv);
/* Every context out of the table, and the table's memory freed. */
void gk5i_srv_table_free(gk5_rpc_server *srv);

/* A new context, one reference (the caller's); NULL without memory. */
struct sctx *gk5i_sctx_new(void);
/* Drops a reference; the last one wipes and frees the context. */
void gk5i_sctx_put(struct sctx *sc);
/* Gives sc a fresh random handle and puts it in the table (which takes a
 * reference of its own).  0, or -1 with err (table full of busy contexts,
 * RAND_bytes failed). */
GK5I_RPC_WUR int gk5i_srv_table_insert(gk5_rpc_server *srv, struct sctx *sc,
                                       gk5_rpc_error *err);
/* Takes sc out of the table, if it is there. */
void gk5i_srv_table_remove(gk5_rpc_server *srv, struct sctx *sc);
/* Is there room for one more context (evicting one if need be)? */
bool gk5i_srv_table_reserve(gk5_rpc_server *srv);
/* The context with this handle, with a reference for the caller. */
enum lookup gk5i_srv_table_lookup(gk5_rpc_server *srv, const uint8_t *handle,
                                  size_t handle_len, struct sctx **out);
/* Removes a few idle-expired contexts from the LRU end. */
void gk5i_srv_table_sweep(gk5_rpc_server *srv);

/* ---- The sequence window (server_window.c) ---- */

enum seq_verdict { SEQ_NEW, SEQ_SEEN, SEQ_BELOW };

enum seq_verdict gk5i_srv_window_check(struct sctx *sc, uint32_t window,
                                       uint32_t seq, bool record);

/* ---- The call header and replies (server_msg.c) ---- */

enum parse gk5i_srv_parse_call(uint8_t *msg, size_t len, struct call_hdr *h,
                               gk5_rpc_error *err);
extern const struct verf gk5i_srv_verf_none;
GK5I_RPC_WUR int gk5i_srv_reply_accepted(gk5_buffer *reply, uint32_t xid,
                                         const struct verf *v,
                                         uint32_t accept_stat, const void *body,
                                         size_t body_len, gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_srv_reply_rejected(gk5_buffer *reply, uint32_t xid,
                                         uint32_t reject_stat, uint32_t a,
                                         uint32_t b);
GK5I_RPC_WUR int
gk5i_srv_reply_init_res(gk5_buffer *reply, uint32_t xid, const struct verf *v,
                        const uint8_t *handle, size_t handle_len,
                        uint32_t major, uint32_t minor, uint32_t window,
                        const gk5_buffer *token, gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_srv_verf_mic_u32(gk5_ctx *ctx, uint32_t value,
                                       struct verf *v, gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_srv_reply_sealed(gk5_rpc_call *call, const struct verf *v,
                                       const void *results, size_t len,
                                       gk5_buffer *reply, gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_srv_reply_ctxproblem(gk5_buffer *reply, uint32_t xid,
                                           gk5_rpc_error *err);

/* ---- Verdicts (server_verdict.c) ---- */

gk5_rpc_verdict gk5i_srv_deny(gk5_buffer *reply, uint32_t xid,
                              uint32_t auth_stat, gk5_rpc_error *err);
__attribute__((format(printf, 6, 7))) gk5_rpc_verdict
gk5i_srv_denyf(gk5_buffer *reply, uint32_t xid, uint32_t auth_stat,
               gk5_rpc_error *err, int code, const char *fmt, ...);
gk5_rpc_verdict gk5i_srv_accept_empty(gk5_buffer *reply, uint32_t xid,
                                      const struct verf *v, uint32_t stat,
                                      gk5_rpc_error *err);
__attribute__((format(printf, 3, 4))) gk5_rpc_verdict
gk5i_srv_drop(gk5_rpc_error *err, int code, const char *fmt, ...);
bool gk5i_srv_allowed(const gk5_rpc_server *srv, unsigned bit);
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_dispatch(
    const struct call_hdr *h, uint32_t flavor, gk5_rpc_service svc,
    uint32_t seq, struct sctx *sc, const uint8_t *args, size_t args_len,
    gk5_rpc_call **call, gk5_rpc_error *err);

/* ---- INIT and CONTINUE_INIT (server_init.c) ---- */

GK5I_RPC_WUR uint32_t gk5i_srv_adopt(struct sctx *sc, uint32_t *minor,
                                     gk5_ctx_info *info);
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_init(gk5_rpc_server *srv,
                                               const struct call_hdr *h,
                                               const gk5i_rpc_cred *cred,
                                               gk5_buffer *reply,
                                               gk5_rpc_error *err);

/* ---- DATA and DESTROY (server_data.c) ---- */

GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_cred(const gk5_rpc_server *srv,
                                               const struct call_hdr *h,
                                               gk5i_rpc_cred *cred,
                                               gk5_buffer *reply,
                                               gk5_rpc_error *err);
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_gss_authenticate(
    gk5_rpc_server *srv, const struct call_hdr *h, const gk5i_rpc_cred *cred,
    struct sctx **out, gk5_buffer *reply, gk5_rpc_error *err);
GK5I_RPC_WUR gk5_rpc_verdict gk5i_srv_process_gss(gk5_rpc_server *srv,
                                                  const struct call_hdr *h,
                                                  gk5_rpc_call **call,
                                                  gk5_buffer *reply,
                                                  gk5_rpc_error *err);

#endif
