/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS client's contexts and control protocol, shared by the
 * two clients built on them: the libtirpc AUTH (auth*.c) and gk5's own
 * transport (clnt*.c).  Their rooms: client_ctx.c contexts and their
 * sequence numbers, client_control.c control calls, the reply decoder and
 * DESTROY, client_conn.c connections of our own, client_initiator.c the
 * initiator and the options, client_establish.c the legs loop.  Nothing
 * here needs libtirpc.
 */
#ifndef GK5_RPCSEC_CLIENT_INT_H
#define GK5_RPCSEC_CLIENT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif
#include <gk5/rpcsec.h>

#include "rpcsec/rpcsec_int.h"

#define GK5I_RPC_DEFAULT_TIMEOUT_MS 25000u
#define GK5I_RPC_DEFAULT_MAX_BODY ((size_t)64 << 20)
/* XDR lengths are 32 bits; keep every length + padding representable. */
#define GK5I_RPC_MAX_BODY_LIMIT ((size_t)0x7fff0000u)
/* Largest control reply (INIT results carry one GSS token). */
#define GK5I_RPC_MAX_CONTROL_REPLY ((size_t)1 << 20)
/* The handle must fit the credential with its four words and length. */
#define GK5I_RPC_MAX_HANDLE (GK5I_RPC_MAX_AUTH_BYTES - 20)
/* A privacy token is larger than its plaintext: header, padding, trailer. */
#define GK5I_RPC_PRIV_SLACK 1024u
/* RFC 2203 5.3.3.1: data calls take numbers below MAXSEQ - 1, and a new
 * context is made before the counter gets there.  MAXSEQ - 1 is left for
 * the context's RPCSEC_GSS_DESTROY (RFC 2203 5.4), which needs a number
 * the server's window has not seen. */
#define GK5I_RPC_DATA_SEQ_END (GK5_RPC_MAXSEQ - 1u)
/* Sequence numbers a context tracks in flight: the largest server window
 * honoured as it is (a larger one is used as this). */
#define GK5I_RPC_FLOW_RING 1024u

/* RFC 5531 9: msg_type, reply_stat, accept_stat, reject_stat. */
#define GK5I_RPC_MSG_CALL 0u
#define GK5I_RPC_MSG_REPLY 1u
#define GK5I_RPC_MSG_ACCEPTED 0u
#define GK5I_RPC_MSG_DENIED 1u
#define GK5I_RPC_ACCEPT_PROG_MISMATCH 2u
#define GK5I_RPC_REJECT_RPC_MISMATCH 0u
#define GK5I_RPC_REJECT_AUTH_ERROR 1u

/* enum clnt_stat values (RFC 5531 gives the messages; these numbers are
 * ONC RPC's client API, which gk5_rpc_error.rpc_stat reports). */
#define GK5I_CLNT_CANTENCODEARGS 1
#define GK5I_CLNT_CANTDECODERES 2
#define GK5I_CLNT_CANTSEND 3
#define GK5I_CLNT_CANTRECV 4
#define GK5I_CLNT_TIMEDOUT 5
#define GK5I_CLNT_VERSMISMATCH 6
#define GK5I_CLNT_AUTHERROR 7
#define GK5I_CLNT_PROGUNAVAIL 8
#define GK5I_CLNT_PROGVERSMISMATCH 9
#define GK5I_CLNT_PROCUNAVAIL 10
#define GK5I_CLNT_CANTDECODEARGS 11
#define GK5I_CLNT_SYSTEMERROR 12

/* One RPCSEC_GSS context (RFC 2203 5.2.3.1): gk5's keys, the server's
 * handle and window, and the send counter.  Reference counted: calls in
 * flight keep the one they were made with. */
struct gk5i_cctx {
    atomic_uint refs;
    uint32_t gen; /* 1 for the first context, +1 each re-establish */
    gk5_ctx *gss;
    int32_t enctype;
    uint32_t endtime;          /* 0: no expiry */
    uint32_t window;           /* the server's seq_window */
    _Atomic uint64_t next_seq; /* 64 bits: counting past MAXSEQ never wraps */
    size_t handle_len;
    uint8_t handle[GK5I_RPC_MAX_HANDLE];
    /* Calls in flight (gk5i_flow_take .. gk5i_flow_done): numbers below
     * base have all ended; done[] marks those at and above base that have. */
    pthread_mutex_t flow_lock;
    pthread_cond_t flow_cond;
    uint64_t flow_base;
    uint8_t flow_done[GK5I_RPC_FLOW_RING / 8];
};

void gk5i_cctx_release(struct gk5i_cctx *cc);
/* The next number for a data call (>= GK5I_RPC_DATA_SEQ_END when used
 * up), waiting while it would leave the window of the oldest call in
 * flight. */
uint64_t gk5i_flow_take(struct gk5i_cctx *cc);
/* Would gk5i_flow_take hand out a number now without waiting? */
bool gk5i_flow_ready(struct gk5i_cctx *cc);
/* Call n has ended (its reply checked, or it was never sent). */
void gk5i_flow_done(struct gk5i_cctx *cc, uint64_t n);
int gk5i_cctx_expired(const struct gk5i_cctx *cc);
/* What gk5_rpc_auth_inquire and gk5_rpc_clnt_inquire report of cc. */
void gk5i_cctx_describe(struct gk5i_cctx *cc, gk5_rpc_service service,
                        gk5_rpc_auth_info *info);
/* A context made from a gk5 context that is already complete (gss owned
 * from here on, also on failure): what establishment ends with. */
GK5I_RPC_WUR int gk5i_cctx_adopt(gk5_ctx *gss, const uint8_t *handle,
                                 size_t handle_len, uint32_t window,
                                 struct gk5i_cctx **out, gk5_rpc_error *err);

/* What establishment needs: the options, copied, and where the server is. */
struct gk5i_rpc_est {
    char *target;
    char *principal;
    char *ccache;
    char *client_keytab;
    int32_t *enctypes;
    size_t n_enctypes;
    unsigned timeout_ms;
    size_t max_body;
    gk5_rpc_establish establish;
    _Atomic int service;
    /* Where control exchanges on connections of our own go, and for what
     * program (AF_UNSPEC: nowhere). */
    struct sockaddr_storage peer;
    socklen_t peer_len;
    uint32_t prog;
    uint32_t vers;
    /* Natively, a client_keytab without a ccache or with a MEMORY: one
     * (private to the process in MIT): the TGT goes to own_dir/ccache, a
     * folder of our own (mkdtemp), removed with it.  NULL otherwise. */
    char *own_dir;
    char *own_ccache; /* "FILE:" own_dir "/ccache" */
};

int gk5i_rpc_service_valid(gk5_rpc_service svc);
/* Checks and copies the options (NULL: none); what: the caller's name,
 * for the words.  -1 with err; gk5i_rpc_est_clear either way. */
GK5I_RPC_WUR int gk5i_rpc_est_init(struct gk5i_rpc_est *e, const char *what,
                                   const char *target, gk5_rpc_service service,
                                   const gk5_rpc_auth_options *opts,
                                   gk5_rpc_error *err);
void gk5i_rpc_est_clear(struct gk5i_rpc_est *e);

/* ---- One establishment's initiator: gk5's own or MIT's ---- */

struct gk5i_rpc_initiator {
    gk5_initiator *native;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_initiator *mit;
#endif
};

/* e's private ccache for a client keytab (native only): made once, on the
 * first establishment, removed by gk5i_rpc_est_clear. */
GK5I_RPC_WUR int gk5i_rpc_own_ccache(struct gk5i_rpc_est *e,
                                     gk5_rpc_error *err);
/* The initiator for e's target and options (in->native or in->mit), its
 * next token, its context into gk5 once complete, and freeing it. */
GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_create(uint32_t *minor,
                                                struct gk5i_rpc_est *e,
                                                struct gk5i_rpc_initiator *in);
GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_step(uint32_t *minor,
                                              struct gk5i_rpc_initiator *in,
                                              const gk5_buffer *tok_in,
                                              gk5_buffer *out);
GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_finish(uint32_t *minor,
                                                struct gk5i_rpc_initiator *in,
                                                int32_t *enctype,
                                                gk5_ctx **ctx);
void gk5i_rpc_initiator_free(struct gk5i_rpc_initiator *in);
/* After a failed native step: the acceptor's or KDC's KRB-ERROR appended
 * to err's words, when one came. */
void gk5i_rpc_krb_error_words(gk5_rpc_error *err);

/* ---- Messages ---- */

const char *gk5i_rpc_auth_stat_words(uint32_t why);
const char *gk5i_rpc_accept_stat_words(uint32_t stat);
GK5I_RPC_WUR int gk5i_rpc_random_xid(uint32_t *xid, gk5_rpc_error *err);

/* A control call (RFC 2203 5.2, 5.4): NULLPROC of e's program with cred,
 * the header MIC with cc (DESTROY) or AUTH_NONE (INIT legs), and token
 * as opaque<> (or void when NULL).  Malloc'd. */
GK5I_RPC_WUR int gk5i_rpc_control_call(const struct gk5i_rpc_est *e,
                                       struct gk5i_cctx *cc, uint32_t xid,
                                       const gk5i_rpc_cred *cred,
                                       const gk5_buffer *token, uint8_t **msg,
                                       size_t *msg_len, gk5_rpc_error *err);

/* A reply (RFC 5531 9), pointing into the record. */
struct gk5i_rpc_reply {
    uint32_t reply_stat; /* GK5I_RPC_MSG_ACCEPTED or _DENIED */
    uint32_t stat;       /* accept_stat, or reject_stat */
    uint32_t why;        /* auth_stat of an AUTH_ERROR rejection */
    uint32_t low, high;  /* of a version mismatch */
    uint32_t verf_flavor;
    const uint8_t *verf;
    size_t verf_len;
    const uint8_t *res; /* results of an accepted SUCCESS: the rest */
    size_t res_len;
};

/* Decode the reply to xid.  0 when it decodes (whatever it says), -1
 * with GK5_RPC_E_MALFORMED otherwise. */
GK5I_RPC_WUR int gk5i_rpc_reply_decode(const uint8_t *msg, size_t len,
                                       uint32_t xid, struct gk5i_rpc_reply *out,
                                       gk5_rpc_error *err);
/* 0 for an accepted SUCCESS; otherwise -1 with the words ("what: ..."). */
GK5I_RPC_WUR int gk5i_rpc_reply_ok(const struct gk5i_rpc_reply *rep,
                                   const char *what, gk5_rpc_error *err);

long long gk5i_rpc_now_ms(void);
/* A blocking stream connection to e's peer (send timeout set). */
GK5I_RPC_WUR int gk5i_rpc_connect(const struct sockaddr *peer,
                                  socklen_t peer_len, int timeout_ms,
                                  int *fd_out, gk5_rpc_error *err);
/* Send msg as one record on fd and read records until the one answering
 * xid (others are dropped). */
GK5I_RPC_WUR int gk5i_rpc_record_exchange(int fd, uint32_t xid,
                                          const uint8_t *msg, size_t msg_len,
                                          int timeout_ms, uint8_t **buf,
                                          size_t *len, gk5_rpc_error *err);
/* The same on a fresh connection to e's peer, closed afterwards. */
GK5I_RPC_WUR int gk5i_rpc_control_exchange(const struct gk5i_rpc_est *e,
                                           uint32_t xid, const uint8_t *msg,
                                           size_t msg_len, int timeout_ms,
                                           uint8_t **buf, size_t *len,
                                           gk5_rpc_error *err);

/* ---- Establishment (RFC 2203 5.2) ---- */

/* rpc_gss_init_res (RFC 2203 5.2.3.1). */
struct gk5i_init_res {
    uint8_t handle[GK5I_RPC_MAX_HANDLE];
    size_t handle_len;
    uint32_t major;
    uint32_t minor;
    uint32_t window;
    uint8_t *token; /* malloc'd */
    size_t token_len;
};

void gk5i_init_res_free(struct gk5i_init_res *res);
void gk5i_init_res_err(gk5_rpc_error *err);
/* Decode rpc_gss_init_res from the whole of the results. */
GK5I_RPC_WUR int gk5i_init_res_decode(const uint8_t *p, size_t len,
                                      struct gk5i_init_res *res);

/* What one INIT / CONTINUE_INIT leg brings back: the results, and the
 * reply's verifier, which on the completing leg is the MIC of seq_window
 * (RFC 2203 5.2.3.1), checked once the context is complete. */
struct gk5i_leg_reply {
    struct gk5i_init_res res;
    uint32_t verf_flavor;
    size_t verf_len;
    uint8_t verf[GK5I_RPC_MAX_AUTH_BYTES];
};

/* Runs one leg: cred (INIT or CONTINUE_INIT) and tok to the server, its
 * answer into leg (already reset); what names the leg for the words. */
typedef int (*gk5i_rpc_leg_fn)(void *arg, const gk5i_rpc_cred *cred,
                               const gk5_buffer *tok, const char *what,
                               struct gk5i_leg_reply *leg, gk5_rpc_error *err);

/* One leg as a message of our own, raw on fd, or on a fresh connection to
 * e's peer when fd is -1; a leg function's body. */
GK5I_RPC_WUR int gk5i_rpc_leg_raw(const struct gk5i_rpc_est *e, int fd,
                                  const gk5i_rpc_cred *cred,
                                  const gk5_buffer *tok, const char *what,
                                  struct gk5i_leg_reply *leg,
                                  gk5_rpc_error *err);

/* A leg's reply record (to xid): its SUCCESS results and verifier into
 * leg; -1 with the words otherwise. */
GK5I_RPC_WUR int gk5i_rpc_leg_reply(const uint8_t *rec, size_t len,
                                    uint32_t xid, const char *what,
                                    struct gk5i_leg_reply *leg,
                                    gk5_rpc_error *err);

/* Make a new context (generation gen) with e's options, its legs run by
 * leg(arg, ...). */
GK5I_RPC_WUR int gk5i_rpc_establish(struct gk5i_rpc_est *e, uint32_t gen,
                                    gk5i_rpc_leg_fn leg, void *arg,
                                    struct gk5i_cctx **out, gk5_rpc_error *err);

/* A client's current context (a reference), and its way of replacing it
 * unless another thread did since seen_gen. */
typedef struct gk5i_cctx *(*gk5i_cctx_get_fn)(void *arg);
typedef int (*gk5i_reestablish_fn)(void *arg, uint32_t seen_gen,
                                   gk5_rpc_error *err);
/* The context and number for a new data call. */
GK5I_RPC_WUR int gk5i_rpc_call_context(const char *target, gk5i_cctx_get_fn get,
                                       gk5i_reestablish_fn reestablish,
                                       void *arg, struct gk5i_cctx **out,
                                       uint32_t *seq, gk5_rpc_error *err);

/* ---- RPCSEC_GSS_DESTROY (RFC 2203 5.4) ---- */

/* The DESTROY call for cc (-1 when cc cannot sign any more). */
GK5I_RPC_WUR int gk5i_rpc_destroy_call(const struct gk5i_rpc_est *e,
                                       struct gk5i_cctx *cc, uint32_t *xid,
                                       uint8_t **msg, size_t *msg_len);
/* How long a DESTROY may take (a courtesy: not long). */
int gk5i_rpc_destroy_timeout(const struct gk5i_rpc_est *e);
/* DESTROY cc on fd, or on a connection of our own (-1), and read the
 * answer, which changes nothing. */
void gk5i_rpc_destroy_exchange(const struct gk5i_rpc_est *e,
                               struct gk5i_cctx *cc, int fd);

/* ---- Test seam of clnt.c (tests/fuzz/fuzz_rpc_clnt.c; not exported) ----
 *
 * A gk5_rpc_clnt on fd (a connected stream socket, the client's from here
 * on success) whose context is gss (owned from here, also on failure) as
 * INIT would have left it: the server's handle and window, svc for the
 * calls, max_body (0: the default), call_timeout_ms.  Its target is empty,
 * so a re-establishment fails with words. */
GK5I_RPC_WUR int gk5i_rpc_clnt_adopt(int fd, gk5_ctx *gss,
                                     const uint8_t *handle, size_t handle_len,
                                     uint32_t window, gk5_rpc_service svc,
                                     size_t max_body, unsigned call_timeout_ms,
                                     gk5_rpc_clnt **out, gk5_rpc_error *err);

/* How many sealing buffers c keeps between calls, *bytes their sizes
 * together; *found when one of them holds needle (len bytes) anywhere.
 * No call may be running. */
size_t gk5i_rpc_clnt_kept(gk5_rpc_clnt *c, const uint8_t *needle, size_t len,
                          bool *found, size_t *bytes);

#endif /* GK5_RPCSEC_CLIENT_INT_H */
