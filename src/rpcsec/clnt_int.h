/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client's rooms (clnt*.c) and what they share: a call
 * between send and wait, the client, and each room's calls.  Nothing
 * outside src/rpcsec/clnt*.c includes this.
 */
#ifndef GK5_RPCSEC_CLNT_INT_H
#define GK5_RPCSEC_CLNT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "rpcsec/client_int.h"

/* One call between send and wait. */
struct call {
    struct call *next, *prev; /* the client's list of calls not collected */
    uint32_t xid;
    uint32_t proc;
    bool done;      /* rec holds the reply, or failed says why not */
    bool failed;    /* the connection broke */
    bool abandoned; /* its waiter gave up: free it when the reply comes */
    bool control;   /* an INIT leg */
    bool counted;   /* counted in outstanding: sent, no reply yet */
    uint8_t *rec;   /* the reply record */
    size_t rec_len;
    long long deadline;
    /* RPCSEC_GSS: the context, number and service the call was made with
     * (cc NULL for other flavours and for control calls); the number's
     * flow ends when the reply comes or the call is given up. */
    struct gk5i_cctx *cc;
    uint32_t seq;
    gk5_rpc_service svc;
    bool flow_ended;
};

/* A buffer the client keeps between calls, in which krb5p bodies are
 * sealed; given back to the client holding ciphertext or nothing.  One
 * larger than KEPT_MAX (a 4 MiB body and its wrapping) is freed after its
 * call instead, so a client holds at most max_inflight * KEPT_MAX. */
#define KEPT_MAX (((size_t)4 << 20) + 4096u)
struct kept_buf {
    struct kept_buf *next;
    uint8_t *p;
    size_t cap;
};

struct gk5_rpc_clnt {
    int fd;
    uint32_t flavor;
    uint32_t max_inflight;
    unsigned call_timeout_ms;
    _Atomic uint32_t next_xid;
    /* AUTH_SYS / AUTH_NONE: the credential body, made once. */
    uint8_t cred[GK5I_RPC_MAX_AUTH_BYTES];
    size_t cred_len;
    /* RPCSEC_GSS: options, the current context and who remakes it. */
    struct gk5i_rpc_est est;
    pthread_mutex_t estab_lock;
    struct gk5i_cctx *cur; /* under lock */
    /* The calls sent and not yet collected, and how many of them have no
     * reply yet (at most max_inflight, one more for a control call). */
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a reply came, room freed, the reader left */
    struct call *calls;
    uint32_t outstanding;
    bool reading; /* a waiter holds the socket */
    bool broken;  /* the connection is unusable: why says so */
    gk5_rpc_error why;
    pthread_mutex_t send_lock;
    /* Sealing buffers not in use (under lock): at most one per call being
     * sealed at once, so no more than max_inflight. */
    struct kept_buf *kept;
};

/* ---- The table of calls and admission (clnt_table.c) ---- */

/* Under lock. */
struct call *gk5i_clnt_find_call(gk5_rpc_clnt *c, uint32_t xid);
void gk5i_clnt_link_call(gk5_rpc_clnt *c, struct call *call);
void gk5i_clnt_unlink_call(gk5_rpc_clnt *c, struct call *call);
/* The call is no longer out: its room and its number's flow are free.
 * Under lock. */
void gk5i_clnt_call_ended(gk5_rpc_clnt *c, struct call *call);
/* Not in the list any more. */
void gk5i_clnt_call_free(struct call *call);
/* Every call out fails with why.  Under lock. */
void gk5i_clnt_set_broken(gk5_rpc_clnt *c, const gk5_rpc_error *why);
/* Take room for call (and, for a data call, its context and number); the
 * call is in the list from here on. */
GK5I_RPC_WUR int gk5i_clnt_admit(gk5_rpc_clnt *c, struct call *call, bool gss,
                                 gk5_rpc_error *err);
/* Send call's record; on failure the call is taken back out (not freed). */
GK5I_RPC_WUR int gk5i_clnt_post(gk5_rpc_clnt *c, struct call *call,
                                const struct iovec *iov, int n,
                                gk5_rpc_error *err);

/* A sealing buffer of at least cap bytes, kept or new; NULL with err. */
struct kept_buf *gk5i_clnt_buf_take(gk5_rpc_clnt *c, size_t cap,
                                    gk5_rpc_error *err);
/* Back to the client; its plaintext, if any, wiped by the caller. */
void gk5i_clnt_buf_give(gk5_rpc_clnt *c, struct kept_buf *b);
/* Every kept buffer freed (the client is going). */
void gk5i_clnt_bufs_free(gk5_rpc_clnt *c);

/* ---- The reader (clnt_reader.c) ---- */

/* Wait until ready(c, arg) or deadline, reading when no one else is.
 * Under lock.  0 when ready, -1 at the deadline or when broken. */
int gk5i_clnt_wait_until(gk5_rpc_clnt *c, long long deadline,
                         bool (*ready)(gk5_rpc_clnt *c, void *arg), void *arg);
/* Wait for call's reply and take it out of the list. */
GK5I_RPC_WUR int gk5i_clnt_collect(gk5_rpc_clnt *c, struct call *call,
                                   gk5_rpc_error *err);

/* ---- A call's message and its reply (clnt_call.c) ---- */

/* Build, seal and send one call; *out is the call in the table. */
GK5I_RPC_WUR int gk5i_clnt_start_call(gk5_rpc_clnt *c, uint32_t proc,
                                      const gk5_buffer *args, struct call **out,
                                      gk5_rpc_error *err);
/* The reply to call, checked, into results; call freed. */
GK5I_RPC_WUR int gk5i_clnt_finish_call(gk5_rpc_clnt *c, struct call *call,
                                       gk5_buffer *results, bool *retry,
                                       gk5_rpc_error *err);

/* ---- Contexts (clnt.c) ---- */

/* Replace the context unless another thread did since seen_gen. */
GK5I_RPC_WUR int gk5i_clnt_reestablish(gk5_rpc_clnt *c, uint32_t seen_gen,
                                       gk5_rpc_error *err);

#endif /* GK5_RPCSEC_CLNT_INT_H */
