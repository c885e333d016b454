/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS version 1 (RFC 2203), client side: a libtirpc AUTH whose
 * operations are gk5's.
 *
 * libtirpc 1.3.3's clnt_vc_call runs, on the calling thread and under the
 * connection's lock: marshal (credential and header verifier), wrap (the
 * arguments), send, receive, validate (the reply verifier), unwrap (the
 * results), and refresh on a rejected reply.  That shapes this file:
 *
 *   - What one call needs between marshal and unwrap (its context, sequence
 *     number and service) lives in a per-thread slot, so many threads can
 *     share one AUTH and each reply is checked against its own call
 *     (RFC 2203 5.3.3.2), never against whatever call was marshalled last.
 *   - The first context is made in band: gk5_rpc_auth_create runs the
 *     INIT / CONTINUE_INIT legs through clnt_call on the caller's CLIENT,
 *     with the AUTH in its in-band state (inband_ops).  Servers such as
 *     MIT's libgssrpc (kadmind) and libtirpc's own svc_auth_gss bind a
 *     context to the connection it was made on (it lives in the
 *     transport's auth state; the handle is not looked up), so a context
 *     made anywhere else is unknown on the CLIENT's connection.
 *   - Later control exchanges cannot use clnt_call: marshal and refresh
 *     run inside clnt_vc_call, under the connection's lock, and destroy
 *     may run after clnt_destroy.  A new context (DESTROY of the old one,
 *     then INIT) goes raw over the creation CLIENT's own socket when the
 *     call that needs it runs there (see home_fd_for), and that context's
 *     DESTROY at auth_destroy too while the socket is open (send_destroy);
 *     everything else goes over a connection of our own to the server's
 *     address, which servers with a global handle table (gk5's,
 *     NFS-Ganesha, the Linux kernel) accept on every connection.
 *
 * Contexts are reference counted.  Re-establishment (at GK5_RPC_MAXSEQ, at
 * expiry, or when the server answers RPCSEC_GSS_CREDPROBLEM/CTXPROBLEM)
 * swaps in a new one; calls in flight on other threads keep the old one
 * alive until they finish.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifdef GK5_RPC_WITH_MIT
#include <com_err.h>
#endif
#include <openssl/rand.h>
#include <rpc/rpc.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "rpcsec/rpcsec_int.h"

#define DEFAULT_TIMEOUT_MS 25000u
#define DEFAULT_MAX_BODY ((size_t)64 << 20)
/* XDR lengths are 32 bits; keep every length + padding representable. */
#define MAX_BODY_LIMIT ((size_t)0x7fff0000u)
/* DESTROY is a courtesy to the server: do not hold destroy up for long. */
#define DESTROY_TIMEOUT_MS 2000
/* Largest control reply (INIT results carry one GSS token). */
#define MAX_CONTROL_REPLY ((size_t)1 << 20)
/* The krb5 mechanism needs two legs; anything past this is a loop. */
#define MAX_INIT_LEGS 8
/* The handle must fit the credential with its four words and length. */
#define MAX_HANDLE (GK5I_RPC_MAX_AUTH_BYTES - 20)
/* Call slots per thread: one per AUTH the thread uses at the same time. */
#define TLS_SLOTS 4
/* A privacy token is larger than its plaintext: header, padding, trailer. */
#define PRIV_TOKEN_SLACK 1024u
/* RFC 2203 5.3.3.1: data calls take numbers below MAXSEQ - 1, and a new
 * context is made before the counter gets there.  MAXSEQ - 1 is left for
 * the context's RPCSEC_GSS_DESTROY (RFC 2203 5.4), which needs a number
 * the server's window has not seen. */
#define DATA_SEQ_END (GK5_RPC_MAXSEQ - 1u)
/* Sequence numbers a context tracks in flight: the largest server window
 * honoured as it is (RFC 2203 lets the server choose; a larger one is used
 * as this). */
#define FLOW_RING 1024u
/* How long a call waits for an older one before it goes anyway. */
#define FLOW_WAIT_MS 1000

/* RFC 5531 9: msg_type, reply_stat, accept_stat, reject_stat. */
#define RPC_MSG_CALL 0u
#define RPC_MSG_REPLY 1u
#define RPC_MSG_ACCEPTED 0u
#define RPC_MSG_DENIED 1u
#define RPC_ACCEPT_PROG_MISMATCH 2u
#define RPC_REJECT_RPC_MISMATCH 0u
#define RPC_REJECT_AUTH_ERROR 1u

static int service_valid(gk5_rpc_service svc)
{
    return svc == GK5_RPC_SVC_NONE || svc == GK5_RPC_SVC_INTEGRITY ||
           svc == GK5_RPC_SVC_PRIVACY;
}

/* RFC 5531 9 and RFC 2203 5.3.3.3. */
static const char *auth_stat_words(uint32_t why)
{
    switch (why) {
    case GK5I_AUTH_BADCRED:
        return "AUTH_BADCRED (bad credential)";
    case GK5I_AUTH_REJECTEDCRED:
        return "AUTH_REJECTEDCRED (the client must begin a new session)";
    case GK5I_AUTH_BADVERF:
        return "AUTH_BADVERF (bad verifier)";
    case GK5I_AUTH_REJECTEDVERF:
        return "AUTH_REJECTEDVERF (verifier expired or replayed)";
    case GK5I_AUTH_TOOWEAK:
        return "AUTH_TOOWEAK (rejected for security reasons: the server "
               "does not allow this flavour or service)";
    case 6:
        return "AUTH_INVALIDRESP (bogus response verifier)";
    case 7:
        return "AUTH_FAILED (reason unknown)";
    case GK5I_RPCSEC_GSS_CREDPROBLEM:
        return "RPCSEC_GSS_CREDPROBLEM (the server has no such context)";
    case GK5I_RPCSEC_GSS_CTXPROBLEM:
        return "RPCSEC_GSS_CTXPROBLEM (problem with the context)";
    }
    return "unknown auth_stat";
}

static const char *accept_stat_words(uint32_t stat)
{
    switch (stat) {
    case GK5_RPC_PROG_UNAVAIL:
        return "PROG_UNAVAIL (the program is not served there)";
    case GK5_RPC_PROG_MISMATCH:
        return "PROG_MISMATCH (version not served)";
    case GK5_RPC_PROC_UNAVAIL:
        return "PROC_UNAVAIL (no such procedure)";
    case GK5_RPC_GARBAGE_ARGS:
        return "GARBAGE_ARGS (the server could not decode the arguments)";
    case GK5_RPC_SYSTEM_ERR:
        return "SYSTEM_ERR (the server failed)";
    }
    return "unknown accept_stat";
}

/* ---- Contexts ---- */

/* One RPCSEC_GSS context (RFC 2203 5.2.3.1): gk5's keys, the server's
 * handle and window, and the send counter. */
struct cctx {
    atomic_uint refs;
    uint32_t gen; /* 1 for the first context, +1 each re-establish */
    gk5_ctx *gss;
    int32_t enctype;
    uint32_t endtime;          /* 0: no expiry */
    uint32_t window;           /* the server's seq_window */
    _Atomic uint64_t next_seq; /* 64 bits: counting past MAXSEQ never wraps */
    size_t handle_len;
    uint8_t handle[MAX_HANDLE];
    /* Calls in flight (flow_take .. flow_done): seq numbers below base
     * have all ended; done[] marks those at and above base that have. */
    pthread_mutex_t flow_lock;
    pthread_cond_t flow_cond;
    uint64_t flow_base;
    uint8_t flow_done[FLOW_RING / 8];
};

static int flow_init(struct cctx *cc)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&cc->flow_lock, NULL) != 0) {
        return -1;
    }
    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&cc->flow_cond, &ca) != 0) {
        (void)pthread_mutex_destroy(&cc->flow_lock);
        return -1;
    }
    (void)pthread_condattr_destroy(&ca);
    return 0;
}

static void cctx_release(struct cctx *cc)
{
    if (cc == NULL || atomic_fetch_sub(&cc->refs, 1) != 1) {
        return;
    }
    gk5_ctx_free(cc->gss); /* wipes the keys */
    (void)pthread_mutex_destroy(&cc->flow_lock);
    (void)pthread_cond_destroy(&cc->flow_cond);
    zap(cc, sizeof(*cc));
    free(cc);
}

/*
 * Sequence numbers and the server's window (RFC 2203 5.3.3.1).  A server
 * drops, without a reply, a call whose number is window or more below the
 * highest it has seen.  Numbers are taken in marshal, but a call may then
 * wait (a descheduled thread, a busy connection, a server thread that has
 * not run yet) while calls on other threads and connections overtake it: on
 * two cores with eight threads sharing one context that happened within
 * seconds.  So a number is handed out only while it is less than the
 * oldest call still in flight plus the window: then no call in flight can
 * fall out of the window, whatever the order the server sees them in.  A
 * call ends when its reply has been checked (validate, unwrap, refresh), or
 * at the thread's next call or exit when no reply came; a call that is
 * stuck holds the others up for at most FLOW_WAIT_MS.
 */
static uint64_t flow_limit(const struct cctx *cc)
{
    uint32_t w = cc->window < FLOW_RING ? cc->window : FLOW_RING;

    return cc->flow_base + w;
}

/* The next number for a data call (>= DATA_SEQ_END when used up). */
static uint64_t flow_take(struct cctx *cc)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    if (atomic_load(&cc->next_seq) >= flow_limit(cc)) {
        struct timespec until;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += FLOW_WAIT_MS / 1000;
        until.tv_nsec += (long)(FLOW_WAIT_MS % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (atomic_load(&cc->next_seq) >= flow_limit(cc)) {
            if (pthread_cond_timedwait(&cc->flow_cond, &cc->flow_lock,
                                       &until) != 0) {
                break; /* timed out: go; that older call is lost anyway */
            }
        }
    }
    uint64_t n = atomic_fetch_add(&cc->next_seq, 1);
    (void)pthread_mutex_unlock(&cc->flow_lock);
    return n;
}

/* Call n has ended. */
static void flow_done(struct cctx *cc, uint64_t n)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    if (n >= cc->flow_base && n - cc->flow_base < FLOW_RING) {
        uint32_t i = (uint32_t)(n % FLOW_RING);
        cc->flow_done[i / 8] |= (uint8_t)(1u << (i % 8));
        int moved = 0;
        for (;;) {
            uint32_t b = (uint32_t)(cc->flow_base % FLOW_RING);
            uint8_t bit = (uint8_t)(1u << (b % 8));
            if ((cc->flow_done[b / 8] & bit) == 0) {
                break;
            }
            cc->flow_done[b / 8] &= (uint8_t)~bit;
            cc->flow_base++;
            moved = 1;
        }
        if (moved) {
            (void)pthread_cond_broadcast(&cc->flow_cond);
        }
    }
    (void)pthread_mutex_unlock(&cc->flow_lock);
}

static int cctx_expired(const struct cctx *cc)
{
    return cc->endtime != 0 && (uint64_t)time(NULL) >= cc->endtime;
}

struct priv {
    uint64_t serial;            /* names this AUTH in the per-thread slots */
    pthread_mutex_t lock;       /* cur */
    pthread_mutex_t estab_lock; /* one (re-)establishment at a time */
    struct cctx *cur;
    _Atomic int service;
    /* Where control exchanges go (the CLIENT's peer), and for what. */
    struct sockaddr_storage peer;
    socklen_t peer_len;
    uint32_t prog;
    uint32_t vers;
    /* The creation CLIENT's connection, written once at creation (see
     * home_fd_for): the XDR stream libtirpc marshals its calls on (its
     * ct_xdrs; NULL if it is not a record stream), its socket, and the
     * socket's identity, which tells a closed and reused descriptor apart. */
    XDR *home_xdrs;
    int home_fd;
    dev_t home_dev;
    ino_t home_ino;
    /* The context last made on that connection (a reference, or NULL once
     * destroyed there); under estab_lock, and read by destroy. */
    struct cctx *home_cc;
    /* Only while gk5_rpc_auth_create runs the first INIT legs in band. */
    struct inband *inband;
    /* gk5_rpc_auth_options, copied. */
    char *target;
    char *principal;
    char *ccache;
    char *client_keytab;
    int32_t *enctypes;
    size_t n_enctypes;
    unsigned timeout_ms;
    size_t max_body;
    gk5_rpc_establish establish;
    /* Natively, a client_keytab without a ccache or with a MEMORY: one
     * (private to the process in MIT): the TGT goes to own_dir/ccache, a
     * folder of this AUTH's own (mkdtemp), removed with it.  NULL
     * otherwise. */
    char *own_dir;
    char *own_ccache; /* "FILE:" own_dir "/ccache" */
};

/* A reference to the current context. */
static struct cctx *cctx_get(struct priv *p)
{
    pthread_mutex_lock(&p->lock);
    struct cctx *cc = p->cur;
    atomic_fetch_add(&cc->refs, 1);
    pthread_mutex_unlock(&p->lock);
    return cc;
}

/* ---- Per-thread call slots ---- */

struct call_slot {
    uint64_t serial; /* 0: free */
    uint64_t used;   /* for replacing the least recently used slot */
    struct cctx *cc; /* held from marshal to the end of the call */
    XDR *xdrs;       /* the stream marshal got: which CLIENT the call is on */
    uint32_t seq;
    gk5_rpc_service service;
    int in_flight; /* seq is taken and its call has not ended */
    int refreshed; /* refresh re-established: libtirpc sends the call again */
    int failed;
    gk5_rpc_error err;
};

static _Thread_local struct {
    uint64_t tick;
    int registered;
    struct call_slot slot[TLS_SLOTS];
} tls;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_key_ok;
static _Atomic uint64_t next_serial = 1;

/* At thread exit: drop the references calls left behind (a call whose
 * reply never came keeps its context until then). */
static void tls_release(void *arg)
{
    (void)arg;
    for (int i = 0; i < TLS_SLOTS; i++) {
        cctx_release(tls.slot[i].cc);
        tls.slot[i].cc = NULL;
        tls.slot[i].serial = 0;
    }
}

static void tls_key_create(void)
{
    tls_key_ok = pthread_key_create(&tls_key, tls_release) == 0;
}

static void slot_end_call(struct call_slot *s)
{
    if (s->in_flight && s->cc != NULL) {
        flow_done(s->cc, s->seq);
    }
    s->in_flight = 0;
    cctx_release(s->cc);
    s->cc = NULL;
}

/* This thread's slot for serial; with create, take the least recently used
 * one if there is none. */
static struct call_slot *slot_find(uint64_t serial, int create)
{
    struct call_slot *victim = &tls.slot[0];

    for (int i = 0; i < TLS_SLOTS; i++) {
        struct call_slot *s = &tls.slot[i];
        if (s->serial == serial) {
            s->used = ++tls.tick;
            return s;
        }
        if (s->serial == 0 || (victim->serial != 0 && s->used < victim->used)) {
            victim = s;
        }
    }
    if (!create) {
        return NULL;
    }
    if (!tls.registered) {
        pthread_once(&tls_once, tls_key_create);
        if (tls_key_ok) {
            (void)pthread_setspecific(tls_key, &tls);
        }
        tls.registered = 1;
    }
    slot_end_call(victim);
    memset(victim, 0, sizeof(*victim));
    victim->serial = serial;
    victim->used = ++tls.tick;
    return victim;
}

/* ---- Bounded XDR reader and writer for control messages ---- */

struct rd {
    const uint8_t *p;
    size_t len;
    size_t off;
    int bad; /* the first error sticks; check once at the end */
};

static uint32_t rd_u32(struct rd *r)
{
    if (r->bad || r->len - r->off < 4) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = gk5i_get32(r->p + r->off);
    r->off += 4;
    return v;
}

/* opaque<max>: its bytes, *n its length. */
static const uint8_t *rd_opaque(struct rd *r, size_t max, size_t *n)
{
    *n = 0;
    uint32_t len = rd_u32(r);
    if (r->bad || len > max || len > r->len - r->off ||
        gk5i_xdr_pad(len) > r->len - r->off - len) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *at = r->p + r->off;
    r->off += len + gk5i_xdr_pad(len);
    *n = len;
    return at;
}

struct wr {
    uint8_t *p;
    size_t cap;
    size_t off;
    int bad;
};

static void wr_u32(struct wr *w, uint32_t v)
{
    if (w->bad || w->cap - w->off < 4) {
        w->bad = 1;
        return;
    }
    gk5i_put32(w->p + w->off, v);
    w->off += 4;
}

static void wr_opaque(struct wr *w, const void *data, size_t n)
{
    size_t pad = gk5i_xdr_pad(n);

    if (n > UINT32_MAX - 3) {
        w->bad = 1;
        return;
    }
    wr_u32(w, (uint32_t)n);
    if (w->bad || w->cap - w->off < n + pad) {
        w->bad = 1;
        return;
    }
    if (n > 0) {
        memcpy(w->p + w->off, data, n);
    }
    memset(w->p + w->off + n, 0, pad);
    w->off += n + pad;
}

/* ---- Control messages (RFC 5531 9, RFC 2203 5.2, 5.4) ---- */

/* A control call: NULLPROC with an RPCSEC_GSS credential, the verifier
 * (AUTH_NONE during INIT/CONTINUE_INIT, RFC 2203 5.2.2; the header MIC of
 * RFC 5.3.1 with cc, for DESTROY) and the arguments: a GSS token as
 * opaque<> (RFC 2203 5.2.2 rpc_gss_init_arg) or void. */
static GK5I_RPC_WUR int
build_control_call(const struct priv *p, struct cctx *cc, uint32_t xid,
                   const gk5i_rpc_cred *cred, const gk5_buffer *token,
                   uint8_t **msg, size_t *msg_len, gk5_rpc_error *err)
{
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    struct wr w = {0};
    int ret = -1;

    *msg = NULL;
    *msg_len = 0;
    size_t body_len = gk5i_rpc_cred_encode(cred, body, sizeof(body));
    if (body_len == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the RPCSEC_GSS credential does not fit 400 bytes");
        goto cleanup;
    }
    size_t tok_len = token != NULL ? token->length : 0;
    if (tok_len > MAX_BODY_LIMIT) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "a GSS token of %zu bytes",
                     tok_len);
        goto cleanup;
    }
    w.cap = 6 * 4 + 8 + body_len + 8 + sizeof(mic) + 4 + tok_len + 3;
    w.p = malloc(w.cap);
    if (w.p == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    wr_u32(&w, xid);
    wr_u32(&w, RPC_MSG_CALL);
    wr_u32(&w, 2); /* RFC 5531 rpcvers */
    wr_u32(&w, p->prog);
    wr_u32(&w, p->vers);
    wr_u32(&w, 0); /* NULLPROC */
    wr_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
    wr_opaque(&w, body, body_len);
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "control call: no room");
        goto cleanup;
    }
    if (cc != NULL) {
        if (gk5i_rpc_mic(cc->gss, w.p, w.off, mic, sizeof(mic), &mic_len,
                         err) != 0) {
            goto cleanup;
        }
        wr_u32(&w, GK5_RPC_FLAVOR_RPCSEC_GSS);
        wr_opaque(&w, mic, mic_len);
    } else {
        wr_u32(&w, GK5_RPC_FLAVOR_NONE);
        wr_u32(&w, 0);
    }
    if (token != NULL) {
        wr_opaque(&w, token->value, token->length);
    }
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "control call: no room");
        goto cleanup;
    }
    *msg = w.p;
    *msg_len = w.off;
    w.p = NULL;
    ret = 0;

cleanup:
    free(w.p);
    return ret;
}

/* The reply to a control call, pointing into the record. */
struct ctl_reply {
    uint32_t reply_stat; /* RPC_MSG_ACCEPTED or RPC_MSG_DENIED */
    uint32_t stat;       /* accept_stat, or reject_stat */
    uint32_t why;        /* auth_stat of an AUTH_ERROR rejection */
    uint32_t low, high;  /* of a version mismatch */
    uint32_t verf_flavor;
    const uint8_t *verf;
    size_t verf_len;
    const uint8_t *res; /* results of an accepted SUCCESS */
    size_t res_len;
};

/* RFC 5531 9 reply message.  0 when it decodes (whatever it says), -1
 * with GK5_RPC_E_MALFORMED otherwise. */
static GK5I_RPC_WUR int decode_reply(const uint8_t *msg, size_t len,
                                     uint32_t xid, struct ctl_reply *out,
                                     gk5_rpc_error *err)
{
    struct rd r = {.p = msg, .len = len};
    struct ctl_reply rep = {0};

    memset(out, 0, sizeof(*out));
    uint32_t got_xid = rd_u32(&r);
    uint32_t type = rd_u32(&r);
    rep.reply_stat = rd_u32(&r);
    if (!r.bad && (got_xid != xid || type != RPC_MSG_REPLY)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the control reply is not a reply to our call (xid "
                     "%08x, type %u)",
                     got_xid, type);
        return -1;
    }
    if (rep.reply_stat == RPC_MSG_ACCEPTED) {
        rep.verf_flavor = rd_u32(&r);
        rep.verf = rd_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &rep.verf_len);
        rep.stat = rd_u32(&r);
        if (rep.stat == GK5_RPC_SUCCESS) {
            rep.res = r.p + r.off;
            rep.res_len = r.len - r.off;
        } else if (rep.stat == RPC_ACCEPT_PROG_MISMATCH) {
            rep.low = rd_u32(&r);
            rep.high = rd_u32(&r);
        }
    } else if (rep.reply_stat == RPC_MSG_DENIED) {
        rep.stat = rd_u32(&r);
        if (rep.stat == RPC_REJECT_RPC_MISMATCH) {
            rep.low = rd_u32(&r);
            rep.high = rd_u32(&r);
        } else if (rep.stat == RPC_REJECT_AUTH_ERROR) {
            rep.why = rd_u32(&r);
        } else {
            r.bad = 1;
        }
    } else {
        r.bad = 1;
    }
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the control reply (%zu bytes) does not decode as an "
                     "RPC reply (RFC 5531 9)",
                     len);
        return -1;
    }
    *out = rep;
    return 0;
}

/* 0 for an accepted SUCCESS reply; otherwise -1 with the words. */
static GK5I_RPC_WUR int reply_ok(const struct ctl_reply *rep, const char *what,
                                 gk5_rpc_error *err)
{
    if (rep->reply_stat == RPC_MSG_ACCEPTED && rep->stat == GK5_RPC_SUCCESS) {
        return 0;
    }
    if (rep->reply_stat == RPC_MSG_DENIED &&
        rep->stat == RPC_REJECT_AUTH_ERROR) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED, "%s: the server rejected it: %s",
                     what, auth_stat_words(rep->why));
        if (err != NULL) {
            err->rpc_stat = RPC_AUTHERROR;
            err->auth_stat = rep->why;
        }
    } else if (rep->reply_stat == RPC_MSG_DENIED) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED,
                     "%s: the server rejected it: RPC_MISMATCH (it speaks "
                     "RPC versions %u to %u)",
                     what, rep->low, rep->high);
        if (err != NULL) {
            err->rpc_stat = RPC_VERSMISMATCH;
        }
    } else if (rep->stat == RPC_ACCEPT_PROG_MISMATCH) {
        gk5i_rpc_err(err, GK5_RPC_E_ACCEPT_STAT,
                     "%s: %s: the server has versions %u to %u", what,
                     accept_stat_words(rep->stat), rep->low, rep->high);
        if (err != NULL) {
            err->rpc_stat = RPC_PROGVERSMISMATCH;
        }
    } else {
        gk5i_rpc_err(err, GK5_RPC_E_ACCEPT_STAT, "%s: %s", what,
                     accept_stat_words(rep->stat));
    }
    return -1;
}

/* A connection of our own to the server, for one control exchange. */
static GK5I_RPC_WUR int control_connect(const struct priv *p, int timeout_ms,
                                        int *fd_out, gk5_rpc_error *err)
{
    int fd = -1, soerr = 0, ret = -1;
    socklen_t slen = sizeof(soerr);
    struct timeval tv = {.tv_sec = timeout_ms / 1000,
                         .tv_usec = (timeout_ms % 1000) * 1000};

    *fd_out = -1;
    fd = socket(p->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
                0);
    if (fd < 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "socket for the RPCSEC_GSS control connection: %s",
                     strerror(errno));
        goto cleanup;
    }
    if (connect(fd, (const struct sockaddr *)&p->peer, p->peer_len) != 0) {
        if (errno != EINPROGRESS) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting the RPCSEC_GSS control connection: %s",
                         strerror(errno));
            goto cleanup;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int r;
        do {
            r = poll(&pfd, 1, timeout_ms);
        } while (r < 0 && errno == EINTR);
        if (r <= 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting the RPCSEC_GSS control connection: %s",
                         r == 0 ? "timed out" : strerror(errno));
            goto cleanup;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) != 0 ||
            soerr != 0) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "connecting the RPCSEC_GSS control connection: %s",
                         strerror(soerr != 0 ? soerr : errno));
            goto cleanup;
        }
    }
    /* Blocking from here on; a send that stalls times out as well. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "setting up the RPCSEC_GSS control connection: %s",
                     strerror(errno));
        goto cleanup;
    }
    *fd_out = fd;
    fd = -1;
    ret = 0;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send the call msg (transaction xid) as one record on fd and read records
 * until the reply to it (into *buf).  Replies to other xids are dropped, as
 * clnt_vc_call drops them: on the CLIENT's own socket a call that timed out
 * earlier may still be answered. */
static GK5I_RPC_WUR int record_exchange(int fd, uint32_t xid,
                                        const uint8_t *msg, size_t msg_len,
                                        int timeout_ms, uint8_t **buf,
                                        size_t *len, gk5_rpc_error *err)
{
    struct iovec iov = {.iov_base = (void *)(uintptr_t)msg, .iov_len = msg_len};
    long long deadline = now_ms() + timeout_ms;

    *buf = NULL;
    *len = 0;
    if (gk5i_rpc_write_record(fd, &iov, 1, err) != 0) {
        return -1;
    }
    for (;;) {
        long long left = deadline - now_ms();
        uint8_t *rec = NULL;
        size_t rec_len = 0;
        int r =
            gk5i_rpc_read_record(fd, MAX_CONTROL_REPLY,
                                 left > 0 ? (int)left : 0, &rec, &rec_len, err);
        if (r == 1) {
            gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                         "the server closed the connection without "
                         "answering the RPCSEC_GSS control call");
        }
        if (r != 0) {
            return -1;
        }
        if (rec_len >= 4 && gk5i_get32(rec) == xid) {
            *buf = rec;
            *len = rec_len;
            return 0;
        }
        free(rec);
    }
}

/* Send msg on a fresh connection and read the reply record into *buf. */
static GK5I_RPC_WUR int control_exchange(const struct priv *p, uint32_t xid,
                                         const uint8_t *msg, size_t msg_len,
                                         int timeout_ms, uint8_t **buf,
                                         size_t *len, gk5_rpc_error *err)
{
    int fd = -1, ret = -1;

    *buf = NULL;
    *len = 0;
    if (control_connect(p, timeout_ms, &fd, err) != 0 ||
        record_exchange(fd, xid, msg, msg_len, timeout_ms, buf, len, err) !=
            0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

static GK5I_RPC_WUR int random_xid(uint32_t *xid, gk5_rpc_error *err)
{
    uint8_t b[4];

    *xid = 0;
    if (RAND_bytes(b, sizeof(b)) != 1) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "no random bytes for a transaction id (RAND_bytes)");
        return -1;
    }
    *xid = gk5i_get32(b);
    return 0;
}

/* ---- Context creation (RFC 2203 5.2) ---- */

/* XDR routines through xdrproc_t, which libtirpc declares variadic. */
#define XDR_PROC(fn) ((xdrproc_t)(void (*)(void))(fn))

/* rpc_gss_init_res (RFC 2203 5.2.3.1). */
struct init_res {
    uint8_t handle[MAX_HANDLE];
    size_t handle_len;
    uint32_t major;
    uint32_t minor;
    uint32_t window;
    uint8_t *token; /* malloc'd */
    size_t token_len;
};

static void init_res_free(struct init_res *res)
{
    free(res->token);
    memset(res, 0, sizeof(*res)); /* not a wipe: ready for reuse */
}

static void init_res_err(gk5_rpc_error *err)
{
    gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                 "the server's rpc_gss_init_res does not decode (RFC 2203 "
                 "5.2.3.1; handles of at most %u bytes, tokens of at most "
                 "%zu)",
                 (unsigned)MAX_HANDLE, MAX_CONTROL_REPLY);
}

/* The one decoder of rpc_gss_init_res, from any XDR stream: the results
 * of an in-band clnt_call, or an xdrmem over the results of a raw reply.
 * XDR_FREE releases the token. */
static bool_t xdr_init_res(XDR *xdrs, struct init_res *res)
{
    u_int n = 0;

    if (xdrs->x_op == XDR_FREE) {
        init_res_free(res);
        return TRUE;
    }
    if (xdrs->x_op != XDR_DECODE || res->token != NULL) {
        return FALSE;
    }
    if (!xdr_u_int(xdrs, &n) || n > MAX_HANDLE ||
        !xdr_opaque(xdrs, (char *)res->handle, n)) {
        return FALSE;
    }
    res->handle_len = n;
    if (!xdr_uint32_t(xdrs, &res->major) || !xdr_uint32_t(xdrs, &res->minor) ||
        !xdr_uint32_t(xdrs, &res->window) || !xdr_u_int(xdrs, &n) ||
        n > MAX_CONTROL_REPLY) {
        return FALSE;
    }
    res->token = malloc(n != 0 ? n : 1);
    if (res->token == NULL || !xdr_opaque(xdrs, (char *)res->token, n)) {
        free(res->token);
        res->token = NULL;
        return FALSE;
    }
    res->token_len = n;
    return TRUE;
}

/* rpc_gss_init_arg (RFC 2203 5.2.2): the GSS token as opaque<>. */
static bool_t xdr_init_arg(XDR *xdrs, gk5_buffer *tok)
{
    u_int n = (u_int)tok->length;

    return xdrs->x_op == XDR_ENCODE && tok->length <= MAX_BODY_LIMIT &&
           xdr_u_int(xdrs, &n) && xdr_opaque(xdrs, tok->value, n);
}

/* What one INIT / CONTINUE_INIT leg brings back: the results, and the
 * reply's verifier, which on the completing leg is the MIC of seq_window
 * (RFC 2203 5.2.3.1), checked once the context is complete. */
struct leg_reply {
    struct init_res res;
    uint32_t verf_flavor;
    size_t verf_len;
    uint8_t verf[GK5I_RPC_MAX_AUTH_BYTES];
};

/* Where the legs of one establishment go. */
struct route {
    CLIENT *clnt; /* in band, clnt_call on clnt with auth (creation) */
    AUTH *auth;
    int fd; /* else raw on this socket (the creation CLIENT's), or on a
               connection of our own when -1 */
};

/* The AUTH's state while a leg runs in band (inband_ops). */
struct inband {
    const gk5i_rpc_cred *cred; /* INIT or CONTINUE_INIT, seq 0 */
    struct leg_reply *leg;     /* the verifier goes here */
    XDR *xdrs;                 /* the stream marshal got */
    int failed;                /* err says why */
    gk5_rpc_error err;
};

/* One leg as a message of our own: raw on fd, or on a fresh connection
 * when fd is -1. */
static GK5I_RPC_WUR int leg_raw(const struct priv *p, int fd,
                                const gk5i_rpc_cred *cred,
                                const gk5_buffer *tok, const char *what,
                                struct leg_reply *leg, gk5_rpc_error *err)
{
    uint8_t *msg = NULL, *rbuf = NULL;
    size_t msg_len = 0, rlen = 0;
    struct ctl_reply rep;
    uint32_t xid;
    XDR mx;
    int ret = -1;

    if (random_xid(&xid, err) != 0 ||
        build_control_call(p, NULL, xid, cred, tok, &msg, &msg_len, err) != 0) {
        goto cleanup;
    }
    int r = fd >= 0 ? record_exchange(fd, xid, msg, msg_len, (int)p->timeout_ms,
                                      &rbuf, &rlen, err)
                    : control_exchange(p, xid, msg, msg_len, (int)p->timeout_ms,
                                       &rbuf, &rlen, err);
    if (r != 0 || decode_reply(rbuf, rlen, xid, &rep, err) != 0 ||
        reply_ok(&rep, what, err) != 0) {
        goto cleanup;
    }
    /* rep.res_len <= MAX_CONTROL_REPLY */
    xdrmem_create(&mx, (char *)(uintptr_t)rep.res, (u_int)rep.res_len,
                  XDR_DECODE);
    bool_t ok = xdr_init_res(&mx, &leg->res);
    XDR_DESTROY(&mx);
    if (!ok) {
        init_res_err(err);
        goto cleanup;
    }
    leg->verf_flavor = rep.verf_flavor;
    leg->verf_len = rep.verf_len;
    if (rep.verf_len > 0) {
        memcpy(leg->verf, rep.verf, rep.verf_len);
    }
    ret = 0;

cleanup:
    free(msg);
    free(rbuf);
    return ret;
}

static const struct xdr_ops *xdrrec_ops;
static pthread_once_t xdrrec_once = PTHREAD_ONCE_INIT;

static int no_io(void *handle, void *buf, int len)
{
    (void)handle;
    (void)buf;
    (void)len;
    return -1;
}

/* libtirpc's record-stream operations, from a stream of our own. */
static void xdrrec_ops_init(void)
{
    XDR x;

    memset(&x, 0, sizeof(x));
    xdrrec_create(&x, 0, 0, NULL, no_io, no_io);
    if (x.x_ops != NULL) {
        xdrrec_ops = x.x_ops;
        XDR_DESTROY(&x);
    }
}

static int is_record_stream(const XDR *xdrs)
{
    pthread_once(&xdrrec_once, xdrrec_ops_init);
    return xdrs != NULL && xdrrec_ops != NULL && xdrs->x_ops == xdrrec_ops;
}

/* One leg in band: clnt_call on the caller's CLIENT, with the AUTH in its
 * in-band state, and the caller's cl_auth put back on every path.  This is
 * how the first context comes to live on the CLIENT's own connection. */
static GK5I_RPC_WUR int leg_inband(struct priv *p, const struct route *rt,
                                   const gk5i_rpc_cred *cred,
                                   const gk5_buffer *tok, const char *what,
                                   struct leg_reply *leg, gk5_rpc_error *err)
{
    struct inband ib = {.cred = cred, .leg = leg};
    struct timeval tv = {.tv_sec = p->timeout_ms / 1000,
                         .tv_usec = (p->timeout_ms % 1000) * 1000};
    gk5_buffer arg = *tok;
    struct rpc_err re;
    struct ctl_reply rep = {0};

    gk5i_rpc_err_clear(&ib.err);
    AUTH *saved = rt->clnt->cl_auth;
    p->inband = &ib;
    rt->clnt->cl_auth = rt->auth;
    enum clnt_stat st =
        clnt_call(rt->clnt, NULLPROC, XDR_PROC(xdr_init_arg), (caddr_t)&arg,
                  XDR_PROC(xdr_init_res), (caddr_t)&leg->res, tv);
    rt->clnt->cl_auth = saved;
    p->inband = NULL;
    if (ib.xdrs != NULL) {
        p->home_xdrs = is_record_stream(ib.xdrs) ? ib.xdrs : NULL;
    }
    if (st == RPC_SUCCESS) {
        return 0;
    }
    init_res_free(&leg->res);
    if (ib.failed) {
        if (err != NULL) {
            *err = ib.err;
            err->rpc_stat = (int)st;
        }
        return -1;
    }
    /* The server's answer, as reply_ok words it for raw replies. */
    clnt_geterr(rt->clnt, &re);
    switch (st) {
    case RPC_AUTHERROR:
        rep.reply_stat = RPC_MSG_DENIED;
        rep.stat = RPC_REJECT_AUTH_ERROR;
        rep.why = (uint32_t)re.re_why;
        break;
    case RPC_VERSMISMATCH:
        rep.reply_stat = RPC_MSG_DENIED;
        rep.stat = RPC_REJECT_RPC_MISMATCH;
        rep.low = (uint32_t)re.re_vers.low;
        rep.high = (uint32_t)re.re_vers.high;
        break;
    case RPC_PROGVERSMISMATCH:
        rep.stat = RPC_ACCEPT_PROG_MISMATCH;
        rep.low = (uint32_t)re.re_vers.low;
        rep.high = (uint32_t)re.re_vers.high;
        break;
    case RPC_PROGUNAVAIL:
        rep.stat = GK5_RPC_PROG_UNAVAIL;
        break;
    case RPC_PROCUNAVAIL:
        rep.stat = GK5_RPC_PROC_UNAVAIL;
        break;
    case RPC_CANTDECODEARGS:
        rep.stat = GK5_RPC_GARBAGE_ARGS;
        break;
    case RPC_SYSTEMERROR:
        rep.stat = GK5_RPC_SYSTEM_ERR;
        break;
    default:
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT, "%s on the CLIENT: %s", what,
                     clnt_sperrno(st));
        if (err != NULL) {
            err->rpc_stat = (int)st;
        }
        return -1;
    }
    int ret = reply_ok(&rep, what, err); /* -1: none of these succeeded */
    if (err != NULL) {
        err->rpc_stat = (int)st;
    }
    return ret;
}

static GK5I_RPC_WUR int init_leg(struct priv *p, const struct route *rt,
                                 const gk5i_rpc_cred *cred,
                                 const gk5_buffer *tok, struct leg_reply *leg,
                                 gk5_rpc_error *err)
{
    const char *what = cred->proc == GK5I_RPCSEC_GSS_INIT
                           ? "RPCSEC_GSS_INIT"
                           : "RPCSEC_GSS_CONTINUE_INIT";

    init_res_free(&leg->res);
    leg->verf_flavor = GK5_RPC_FLAVOR_NONE;
    leg->verf_len = 0;
    return rt->clnt != NULL ? leg_inband(p, rt, cred, tok, what, leg, err)
                            : leg_raw(p, rt->fd, cred, tok, what, leg, err);
}

/* A server's minor as a krb5 (com_err) code, in MIT's words when built
 * with MIT krb5. */
static const char *krb5_code_words(uint32_t minor)
{
#ifdef GK5_RPC_WITH_MIT
    return error_message((long)(int32_t)minor);
#else
    (void)minor;
    return "not known to this gk5, built without MIT krb5";
#endif
}

/* The server's GSS failure in words.  A gk5 server's minor is a gk5 code
 * (gk5_display_status names, e.g., an rc4 session key it refuses); an MIT
 * server's is a com_err code that our krb5 libraries may know (when built
 * with them). */
static void server_gss_err(gk5_rpc_error *err, const char *target,
                           uint32_t major, uint32_t minor)
{
    uint32_t code = GK5_ERR_CODE(minor);
    int gk5_code =
        code > 0 && code < GK5I_ERR_COUNT &&
        ((minor >> 16) == 0 || code == GK5_ERR_ENCTYPE_UNKNOWN ||
         code == GK5_ERR_ENCTYPE_REJECTED || code == GK5_ERR_ENCTYPE_NOT_BUILT);
    const char *words = gk5_code ? gk5_display_status(major, minor)
                                 : gk5_display_status(major, 0);

    if (gk5_code || minor == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x, gss_minor %u: %s",
                     target, major, minor, words);
    } else {
        gk5i_rpc_err(err, GK5_RPC_E_SERVER_GSS,
                     "the server refused the RPCSEC_GSS context for %s: "
                     "gss_major 0x%08x (%s), gss_minor %u (0x%08x; as a "
                     "krb5 code: %s)",
                     target, major, words, minor, minor,
                     krb5_code_words(minor));
    }
    if (err != NULL) {
        err->major = major;
        err->minor = minor;
    }
}

/* ---- One establishment's initiator: gk5's own or MIT's ---- */

struct initiator {
    gk5_initiator *native;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_initiator *mit;
#endif
};

/* The AUTH's private ccache for a client keytab (native only): made once,
 * on the first establishment. */
static GK5I_RPC_WUR int own_ccache(struct priv *p, gk5_rpc_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    size_t n;

    if (p->own_ccache != NULL) {
        return 0;
    }
    if (tmp == NULL || tmp[0] != '/') {
        tmp = "/tmp";
    }
    if (snprintf(dir, sizeof(dir), "%s/gk5-rpc-XXXXXX", tmp) >=
            (int)sizeof(dir) ||
        mkdtemp(dir) == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_GSS,
                     "cannot make a private folder for the client "
                     "keytab's tickets under %s: %s",
                     tmp, strerror(errno));
        return -1;
    }
    n = strlen(dir) + sizeof("FILE:/ccache");
    p->own_dir = strdup(dir);
    p->own_ccache = malloc(n);
    if (p->own_dir == NULL || p->own_ccache == NULL) {
        (void)rmdir(dir);
        free(p->own_dir);
        free(p->own_ccache);
        p->own_dir = p->own_ccache = NULL;
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    (void)snprintf(p->own_ccache, n, "FILE:%s/ccache", dir);
    return 0;
}

static void own_ccache_remove(struct priv *p)
{
    if (p->own_dir == NULL) {
        return;
    }
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/ccache", p->own_dir) <
        (int)sizeof(path)) {
        (void)unlink(path);
    }
    (void)rmdir(p->own_dir);
}

static GK5I_RPC_WUR uint32_t initiator_create(uint32_t *minor, struct priv *p,
                                              struct initiator *in)
{
    in->native = NULL;
#ifdef GK5_RPC_WITH_MIT
    in->mit = NULL;
    if (p->establish == GK5_RPC_ESTABLISH_MIT) {
        gk5_mit_initiator_options mo = {
            .principal = p->principal,
            .ccache = p->ccache,
            .client_keytab = p->client_keytab,
            .enctypes = p->enctypes,
            .n_enctypes = p->n_enctypes,
            .req_flags = 0, /* mutual | integ | conf */
        };
        return gk5_mit_initiator_create(minor, p->target, &mo, &in->mit);
    }
#endif
    gk5_initiator_opts no = {
        .ccache = p->own_ccache != NULL ? p->own_ccache : p->ccache,
        .enctypes = p->enctypes,
        .n_enctypes = p->n_enctypes,
        .req_flags = GK5_C_MUTUAL_FLAG | GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG,
        .principal = p->principal,
        .client_keytab = p->client_keytab,
    };
    return gk5_initiator_create(minor, p->target, &no, &in->native);
}

static GK5I_RPC_WUR uint32_t initiator_step(uint32_t *minor,
                                            struct initiator *in,
                                            const gk5_buffer *tok_in,
                                            gk5_buffer *out)
{
#ifdef GK5_RPC_WITH_MIT
    if (in->mit != NULL) {
        return gk5_mit_initiator_step(minor, in->mit, tok_in, out);
    }
#endif
    return gk5_initiator_step(minor, in->native, tok_in, out);
}

static GK5I_RPC_WUR uint32_t initiator_finish(uint32_t *minor,
                                              struct initiator *in,
                                              int32_t *enctype, gk5_ctx **ctx)
{
#ifdef GK5_RPC_WITH_MIT
    if (in->mit != NULL) {
        return gk5_mit_initiator_finish(minor, in->mit, enctype, ctx);
    }
#endif
    return gk5_initiator_finish(minor, in->native, enctype, ctx);
}

static void initiator_free(struct initiator *in)
{
    gk5_initiator_free(in->native);
    in->native = NULL;
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_initiator_free(in->mit);
    in->mit = NULL;
#endif
}

/* The words after a failed native step: the acceptor's or KDC's
 * KRB-ERROR, when one came. */
static void krb_error_words(gk5_rpc_error *err)
{
    const char *krb = gk5_krb_last_error();
    size_t used;

    if (err == NULL || krb == NULL) {
        return;
    }
    used = strlen(err->text);
    if (used + 3 < sizeof(err->text)) {
        (void)snprintf(err->text + used, sizeof(err->text) - used, " (%s)",
                       krb);
    }
}

/* Make a new context: the INIT / CONTINUE_INIT legs along rt, then the
 * initiator's context into gk5. */
static GK5I_RPC_WUR int establish(struct priv *p, uint32_t gen,
                                  const struct route *rt, struct cctx **out,
                                  gk5_rpc_error *err)
{
    struct initiator init = {.native = NULL};
    struct cctx *cc = NULL;
    gk5_buffer tok = {0, NULL};
    size_t verf_len = 0;
    uint8_t verf[GK5I_RPC_MAX_AUTH_BYTES];
    struct leg_reply leg;
    uint32_t minor = 0, server_major = GK5_S_CONTINUE_NEEDED;
    int32_t enctype = 0;
    int sent = 0, ret = -1;

    *out = NULL;
    memset(&leg, 0, sizeof(leg));
    cc = calloc(1, sizeof(*cc));
    if (cc == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    if (flow_init(cc) != 0) {
        free(cc);
        cc = NULL;
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory (a mutex)");
        goto cleanup;
    }
    if (p->establish == GK5_RPC_ESTABLISH_NATIVE && p->client_keytab != NULL &&
        (p->ccache == NULL || strncmp(p->ccache, "MEMORY:", 7) == 0) &&
        own_ccache(p, err) != 0) {
        goto cleanup;
    }
    uint32_t major = initiator_create(&minor, p, &init);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, preparing to initiate (initiator "
                         "credential)");
#ifdef GK5_RPC_WITH_MIT
        if (init.mit == NULL) {
            krb_error_words(err);
        }
#else
        krb_error_words(err);
#endif
        goto cleanup;
    }
    for (int legs = 0;; legs++) {
        if (legs == MAX_INIT_LEGS) {
            gk5i_rpc_err(err, GK5_RPC_E_GSS,
                         "RPCSEC_GSS context creation for %s did not "
                         "finish in %d legs",
                         p->target, MAX_INIT_LEGS);
            goto cleanup;
        }
        gk5_buffer in = {leg.res.token_len, leg.res.token};
        major = initiator_step(&minor, &init, sent ? &in : NULL, &tok);
        init_res_free(&leg.res);
        if (GK5_ERROR(major) != 0) {
            gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                             init.native != NULL
                                 ? "on this client, gk5_initiator_step"
                                 : "on this client, gss_init_sec_context");
            if (init.native != NULL) {
                krb_error_words(err);
            }
            goto cleanup;
        }
        int done = major == GK5_S_COMPLETE;
        if (tok.length == 0) {
            if (done && sent && server_major == GK5_S_COMPLETE) {
                break;
            }
            gk5i_rpc_err(err, GK5_RPC_E_GSS,
                         "GSS-API has no token to send but the RPCSEC_GSS "
                         "exchange for %s is not complete",
                         p->target);
            goto cleanup;
        }
        if (sent && server_major == GK5_S_COMPLETE) {
            gk5i_rpc_err(err, GK5_RPC_E_GSS,
                         "the server completed the context for %s but "
                         "GSS-API has another token to send",
                         p->target);
            goto cleanup;
        }

        /* RFC 2203 5.2.2: seq_num is ignored by the server; the handle is
         * absent for INIT and the server's for CONTINUE_INIT. */
        gk5i_rpc_cred cred = {
            .version = GK5I_RPCSEC_GSS_VERS_1,
            .proc = sent ? GK5I_RPCSEC_GSS_CONTINUE_INIT : GK5I_RPCSEC_GSS_INIT,
            .seq = 0,
            .service = (uint32_t)atomic_load(&p->service),
            .handle = sent ? cc->handle : NULL,
            .handle_len = sent ? cc->handle_len : 0,
        };
        if (init_leg(p, rt, &cred, &tok, &leg, err) != 0) {
            goto cleanup;
        }
        const struct init_res *res = &leg.res;
        gk5_buffer_release(&tok);
        sent = 1;
        if (GK5_ERROR(res->major) != 0) {
            server_gss_err(err, p->target, res->major, res->minor);
            goto cleanup;
        }
        if (res->major != GK5_S_COMPLETE &&
            res->major != GK5_S_CONTINUE_NEEDED) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the server's RPCSEC_GSS_INIT reply has gss_major "
                         "0x%08x, neither complete nor continue",
                         res->major);
            goto cleanup;
        }
        if (res->handle_len == 0) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the server's RPCSEC_GSS_INIT reply has an empty "
                         "context handle");
            goto cleanup;
        }
        memcpy(cc->handle, res->handle, res->handle_len);
        cc->handle_len = res->handle_len;
        server_major = res->major;
        if (server_major == GK5_S_COMPLETE) {
            /* RFC 2203 5.2.3.1: the verifier of the completing reply is the
             * MIC of seq_window, checked once we hold the context. */
            if (leg.verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
                leg.verf_len == 0) {
                gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                             "the server's completing RPCSEC_GSS_INIT reply "
                             "has a verifier of flavour %u, not the "
                             "RPCSEC_GSS MIC of seq_window (RFC 2203 "
                             "5.2.3.1)",
                             leg.verf_flavor);
                goto cleanup;
            }
            memcpy(verf, leg.verf, leg.verf_len);
            verf_len = leg.verf_len;
            cc->window = res->window;
        }
        if (done) {
            if (server_major != GK5_S_COMPLETE) {
                gk5i_rpc_err(err, GK5_RPC_E_GSS,
                             "GSS-API completed the context for %s but the "
                             "server wants more",
                             p->target);
                goto cleanup;
            }
            break;
        }
    }

    major = initiator_finish(&minor, &init, &enctype, &cc->gss);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(
            err, GK5_RPC_E_GSS, major, minor,
            "on this client, taking the established context into gk5");
        goto cleanup;
    }
    /* RPCSEC_GSS keeps its own window (RFC 2203 5.3.3.1): replies to calls
     * made by many threads arrive in any order, so gk5's replay and
     * sequence checks would refuse good tokens. */
    major = gk5_ctx_set_flags(&minor, cc->gss, 0);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_set_flags");
        goto cleanup;
    }
    if (gk5i_rpc_verify_u32(cc->gss, cc->window, verf, verf_len, err) != 0) {
        if (err != NULL) {
            (void)snprintf(err->text, sizeof(err->text),
                           "the verifier of the server's RPCSEC_GSS_INIT "
                           "reply is not the MIC of seq_window %u (RFC 2203 "
                           "5.2.3.1): %s",
                           cc->window,
                           gk5_display_status(err->major, err->minor));
        }
        goto cleanup;
    }
    if (cc->window == 0) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the server's seq_window is 0 (RFC 2203 5.2.3.1)");
        goto cleanup;
    }
    gk5_ctx_info info;
    major = gk5_ctx_inquire(&minor, cc->gss, &info);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_inquire");
        goto cleanup;
    }
    cc->enctype = info.enctype;
    cc->endtime = info.endtime;
    cc->gen = gen;
    atomic_init(&cc->refs, 1);
    /* Data calls start at 1; 0 went out in the INIT credentials. */
    atomic_init(&cc->next_seq, 1);
    cc->flow_base = 1;
    *out = cc;
    cc = NULL;
    ret = 0;

cleanup:
    gk5_buffer_release(&tok);
    init_res_free(&leg.res);
    initiator_free(&init);
    if (cc != NULL) {
        gk5_ctx_free(cc->gss);
        (void)pthread_mutex_destroy(&cc->flow_lock);
        (void)pthread_cond_destroy(&cc->flow_cond);
        zap(cc, sizeof(*cc));
        free(cc);
    }
    return ret;
}

/* ---- RPCSEC_GSS_DESTROY (RFC 2203 5.4) ---- */

/* The creation CLIENT's socket if that CLIENT is libtirpc's record stream
 * and the descriptor still is that socket (not closed, nor closed and
 * reused for another), else -1. */
static int home_socket(const struct priv *p)
{
    struct stat st;

    if (p->home_xdrs == NULL || fstat(p->home_fd, &st) != 0 ||
        st.st_dev != p->home_dev || st.st_ino != p->home_ino) {
        return -1;
    }
    return p->home_fd;
}

/* The DESTROY call for cc: the next sequence number, or the one kept for
 * it (DATA_SEQ_END) once data calls have used theirs up; a header MIC and
 * void arguments.  -1 when cc cannot sign any more (expired). */
static GK5I_RPC_WUR int build_destroy(const struct priv *p, struct cctx *cc,
                                      uint32_t *xid, uint8_t **msg,
                                      size_t *msg_len)
{
    *msg = NULL;
    *msg_len = 0;
    if (cctx_expired(cc)) {
        return -1;
    }
    uint64_t n = atomic_fetch_add(&cc->next_seq, 1);
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DESTROY,
        .seq = n < DATA_SEQ_END ? (uint32_t)n : DATA_SEQ_END,
        .service = (uint32_t)atomic_load(&p->service),
        .handle = cc->handle,
        .handle_len = cc->handle_len,
    };
    if (random_xid(xid, NULL) != 0 ||
        build_control_call(p, cc, *xid, &cred, NULL, msg, msg_len, NULL) != 0) {
        return -1;
    }
    return 0;
}

static int destroy_timeout(const struct priv *p)
{
    return p->timeout_ms < DESTROY_TIMEOUT_MS ? (int)p->timeout_ms
                                              : DESTROY_TIMEOUT_MS;
}

/* DESTROY cc and read the answer, which changes nothing: the context goes
 * either way.  On fd, the creation CLIENT's socket, or on a connection of
 * our own (-1). */
static void destroy_exchange(const struct priv *p, struct cctx *cc, int fd)
{
    uint8_t *msg = NULL, *rbuf = NULL;
    size_t msg_len = 0, rlen = 0;
    uint32_t xid;

    if (build_destroy(p, cc, &xid, &msg, &msg_len) == 0) {
        int r = fd >= 0
                    ? record_exchange(fd, xid, msg, msg_len, destroy_timeout(p),
                                      &rbuf, &rlen, NULL)
                    : control_exchange(p, xid, msg, msg_len, destroy_timeout(p),
                                       &rbuf, &rlen, NULL);
        (void)r;
    }
    free(msg);
    free(rbuf);
}

/* Where a new context for a call on the stream xdrs is made: the creation
 * CLIENT's socket if the call runs on that CLIENT, else -1 (a connection
 * of our own).
 *
 * Connection-bound servers (MIT's libgssrpc in kadmind, libtirpc 1.3.3's
 * svc_auth_gss) know a context only on the connection it was made on, so
 * the creation CLIENT's context must be remade on its socket.  Doing that
 * raw from inside marshal or refresh is safe: clnt_vc_call holds that
 * connection's lock on this thread for the whole call; in marshal nothing
 * of the call has been sent (the header waits in xdrrec's buffer), in
 * refresh the rejected reply has been read; and the INIT reply is read
 * whole straight from the socket, so xdrrec's next skiprecord starts on a
 * record of its own.  It is the creation CLIENT when the call's stream is
 * the one that CLIENT marshalled on (its ct_xdrs, which lives as long as
 * the CLIENT) and the descriptor still is the same socket (not closed by
 * clnt_destroy, or closed and reused).  xdrrec must also hold nothing read
 * ahead past the current record (a late reply to a call that timed out),
 * or what we read would not begin a record.
 *
 * A shared AUTH's calls on other CLIENTs make their contexts on
 * connections of our own: only servers that do not bind contexts (gk5's,
 * NFS-Ganesha, Linux) accept those elsewhere. */
static int home_fd_for(const struct priv *p, XDR *xdrs)
{
    if (xdrs == NULL || xdrs != p->home_xdrs || home_socket(p) < 0) {
        return -1;
    }
    /* Skips what is left of the current record (as skiprecord would) and
     * says whether bytes beyond it are buffered. */
    if (!xdrrec_eof(xdrs)) {
        return -1;
    }
    return p->home_fd;
}

/* Replace the context, unless another thread already did since seen_gen;
 * xdrs is the stream of the call that needs it (NULL: none). */
static GK5I_RPC_WUR int reestablish(struct priv *p, uint32_t seen_gen,
                                    XDR *xdrs, gk5_rpc_error *err)
{
    struct cctx *fresh = NULL, *old = NULL;
    int ret = -1;

    pthread_mutex_lock(&p->estab_lock);
    pthread_mutex_lock(&p->lock);
    uint32_t gen = p->cur->gen;
    pthread_mutex_unlock(&p->lock);
    if (gen != seen_gen) {
        ret = 0;
        goto cleanup;
    }
    struct route rt = {.clnt = NULL, .auth = NULL, .fd = home_fd_for(p, xdrs)};
    if (rt.fd >= 0 && p->home_cc != NULL) {
        /* Connection-bound servers hold one context per connection and
         * refuse an INIT while it stands: libtirpc 1.3.3 and MIT's
         * libgssrpc run their sequence window on the INIT credential and
         * hand the old, complete context to gss_accept_sec_context.  So
         * the old one goes first.  An expired one cannot be destroyed, and
         * such a server then refuses the INIT (it needs a new connection). */
        destroy_exchange(p, p->home_cc, rt.fd);
        cctx_release(p->home_cc);
        p->home_cc = NULL;
    }
    if (establish(p, gen + 1, &rt, &fresh, err) != 0) {
        goto cleanup;
    }
    if (rt.fd >= 0) {
        atomic_fetch_add(&fresh->refs, 1);
        p->home_cc = fresh;
    }
    pthread_mutex_lock(&p->lock);
    old = p->cur;
    p->cur = fresh;
    pthread_mutex_unlock(&p->lock);
    ret = 0;

cleanup:
    pthread_mutex_unlock(&p->estab_lock);
    cctx_release(old); /* calls in flight hold their own references */
    return ret;
}

/* The context and sequence number for a new call, re-establishing first
 * when the counter would reach MAXSEQ (RFC 2203 5.3.3.1) or the context has
 * expired. */
static GK5I_RPC_WUR int call_context(struct priv *p, XDR *xdrs,
                                     struct cctx **out, uint32_t *seq,
                                     gk5_rpc_error *err)
{
    *out = NULL;
    *seq = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        struct cctx *cc = cctx_get(p);
        if (!cctx_expired(cc) && atomic_load(&cc->next_seq) < DATA_SEQ_END) {
            /* Every caller gets its own number, even those that lose the
             * race to MAXSEQ: a number is never sent twice. */
            uint64_t n = flow_take(cc);
            if (n < DATA_SEQ_END) {
                *out = cc;
                *seq = (uint32_t)n;
                return 0;
            }
        }
        uint32_t gen = cc->gen;
        cctx_release(cc);
        if (reestablish(p, gen, xdrs, err) != 0) {
            return -1;
        }
    }
    gk5i_rpc_err(err, GK5_RPC_E_EXPIRED,
                 "every new RPCSEC_GSS context for %s was expired or used up "
                 "at once",
                 p->target);
    return -1;
}

/* ---- The AUTH operations ---- */

static void op_nextverf(AUTH *auth)
{
    /* The verifier is made in marshal, over the header it ends. */
    (void)auth;
}

/* RFC 2203 5.3.1: the credential, then the verifier: a MIC over the header
 * from the xid to the end of the credential. */
static bool_t op_marshal(AUTH *auth, XDR *xdrs)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_find(p->serial, 1);
    struct cctx *cc = NULL;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES], mic[GK5I_RPC_MIC_MAX];
    size_t mic_len = 0;
    uint32_t seq = 0;
    bool_t ok = FALSE;

    slot_end_call(s);
    s->xdrs = xdrs;
    if (s->refreshed) {
        /* libtirpc's retry after a refresh: keep the rejection's words in
         * case the retry ends with no callback (its refreshes used up). */
        s->refreshed = 0;
    } else {
        s->failed = 0;
        gk5i_rpc_err_clear(&s->err);
    }
    if (call_context(p, xdrs, &cc, &seq, &s->err) != 0) {
        goto cleanup;
    }
    gk5_rpc_service svc = (gk5_rpc_service)atomic_load(&p->service);
    gk5i_rpc_cred cred = {
        .version = GK5I_RPCSEC_GSS_VERS_1,
        .proc = GK5I_RPCSEC_GSS_DATA,
        .seq = seq,
        .service = (uint32_t)svc,
        .handle = cc->handle,
        .handle_len = cc->handle_len,
    };
    size_t body_len = gk5i_rpc_cred_encode(&cred, body, sizeof(body));
    struct opaque_auth oa = {.oa_flavor = RPCSEC_GSS,
                             .oa_base = (caddr_t)body,
                             .oa_length = (u_int)body_len};
    if (body_len == 0 || !xdr_opaque_auth(xdrs, &oa)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS credential failed");
        goto cleanup;
    }
    /* The header so far is still in the stream's buffer (libtirpc's
     * record stream and xdrmem): go back to its start and take it in place.
     * Other streams may refuse; then the call cannot be signed. */
    u_int end = XDR_GETPOS(xdrs);
    const void *hdr = NULL;
    if (end == 0 || end > INT_MAX || !XDR_SETPOS(xdrs, 0) ||
        (hdr = XDR_INLINE(xdrs, (int)end)) == NULL || XDR_GETPOS(xdrs) != end) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_UNSUPPORTED,
                     "this XDR stream does not give back the %u header bytes "
                     "the RPCSEC_GSS verifier signs (RFC 2203 5.3.1)",
                     end);
        goto cleanup;
    }
    if (gk5i_rpc_mic(cc->gss, hdr, end, mic, sizeof(mic), &mic_len, &s->err) !=
        0) {
        goto cleanup;
    }
    oa.oa_base = (caddr_t)mic;
    oa.oa_length = (u_int)mic_len;
    if (!xdr_opaque_auth(xdrs, &oa)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS verifier failed");
        goto cleanup;
    }
    s->cc = cc;
    cc = NULL;
    s->seq = seq;
    s->service = svc;
    s->in_flight = 1;
    ok = TRUE;

cleanup:
    if (cc != NULL) {
        flow_done(cc, seq); /* taken, never sent */
    }
    cctx_release(cc);
    if (!ok) {
        s->failed = 1;
    }
    return ok;
}

/* The call's slot, or NULL (and the error) when marshal did not run. */
static struct call_slot *slot_for_call(const struct priv *p, const char *op)
{
    struct call_slot *s = slot_find(p->serial, 1);

    if (s->cc == NULL) {
        if (!s->failed) {
            gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                         "RPCSEC_GSS %s without a call marshalled on this "
                         "thread",
                         op);
            s->failed = 1;
        }
        return NULL;
    }
    return s;
}

/* RFC 2203 5.3.2 and 5.3.3.4 with rpc_gss_svc_none: the arguments or
 * results go as they are; what is said if they do not encode or decode. */
static bool_t plain_body(struct call_slot *s, XDR *xdrs, xdrproc_t proc,
                         caddr_t obj, int code, const char *what)
{
    bool_t ok = (*proc)(xdrs, obj);

    if (!ok) {
        gk5i_rpc_err(&s->err, code, "%s", what);
    }
    return ok;
}

/* The end of a call body's processing: its XDR stream closed, the buffer
 * (len bytes) wiped if it held privacy plaintext, and freed. */
static void body_release(XDR *mx, int have_mx, uint8_t *buf, size_t len,
                         gk5_rpc_service service)
{
    if (have_mx) {
        XDR_DESTROY(mx);
    }
    if (buf != NULL && service == GK5_RPC_SVC_PRIVACY) {
        zap(buf, len);
    }
    free(buf);
}

/* RFC 2203 5.3.2: the arguments, as they are (none), or as
 * rpc_gss_integ_data / rpc_gss_priv_data built in one buffer and sealed in
 * place. */
static bool_t op_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args, caddr_t args)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "wrap");
    uint8_t *buf = NULL;
    size_t cap = 0, head = 0, tail = 0, off = 0, out_len = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_args, args, GK5_RPC_E_TRANSPORT,
                        "encoding the call's arguments failed");
        goto cleanup;
    }
    /* xdr_sizeof answers 0 both for void and for failure; a failure shows
     * when the arguments do not fit the buffer below. */
    size_t size = xdr_sizeof(xdr_args, args);
    if (size > p->max_body) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG,
                     "arguments of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     size, p->max_body);
        goto cleanup;
    }
    size_t len = 4 + size; /* seq_num, then the arguments */
    if (gk5i_rpc_body_room(s->cc->gss, s->service, len, &head, &tail,
                           &s->err) != 0) {
        goto cleanup;
    }
    cap = head + len + tail;
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte call body", cap);
        goto cleanup;
    }
    gk5i_put32(buf + head, s->seq);
    xdrmem_create(&mx, (char *)buf + head + 4, (u_int)size, XDR_ENCODE);
    have_mx = 1;
    if (!(*xdr_args)(&mx, args) || XDR_GETPOS(&mx) != size) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                     "encoding the call's arguments failed");
        goto cleanup;
    }
    if (gk5i_rpc_body_seal(s->cc->gss, s->service, buf, head, len, cap, &off,
                           &out_len, &s->err) != 0) {
        goto cleanup;
    }
    if (out_len > UINT_MAX ||
        !XDR_PUTBYTES(xdrs, (char *)buf + off, (u_int)out_len)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "sending the %zu-byte call body failed", out_len);
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The arguments, if sealing stopped half-way. */
    body_release(&mx, have_mx, buf, cap, s->service);
    if (!ok) {
        slot_end_call(s);
        s->failed = 1;
    }
    return ok;
}

/* RFC 2203 5.3.3.2: the reply verifier is the MIC of this call's seq_num. */
static bool_t op_validate(AUTH *auth, struct opaque_auth *verf)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "validate");

    if (s == NULL) {
        return FALSE;
    }
    if (verf == NULL || verf->oa_flavor != RPCSEC_GSS) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_BAD_VERIFIER,
                     "the reply's verifier is of flavour %d, not RPCSEC_GSS "
                     "(RFC 2203 5.3.3.2)",
                     verf != NULL ? (int)verf->oa_flavor : -1);
    } else if (gk5i_rpc_verify_u32(s->cc->gss, s->seq, verf->oa_base,
                                   verf->oa_length, &s->err) == 0) {
        return TRUE;
    } else {
        char words[sizeof(s->err.text)];
        memcpy(words, s->err.text, sizeof(words));
        (void)snprintf(s->err.text, sizeof(s->err.text),
                       "the reply's verifier is not the MIC of the call's "
                       "sequence number %u (RFC 2203 5.3.3.2): %.400s",
                       s->seq, words);
    }
    if (s->err.rpc_stat == 0) {
        s->err.rpc_stat = RPC_AUTHERROR;
    }
    slot_end_call(s);
    s->failed = 1;
    return FALSE;
}

/* Read the reply body (one opaque<> for privacy, two for integrity) from
 * the stream into one buffer laid out as on the wire. */
static GK5I_RPC_WUR int read_body(XDR *xdrs, gk5_rpc_service svc, size_t max,
                                  uint8_t **out, size_t *out_len,
                                  gk5_rpc_error *err)
{
    uint8_t *buf = NULL;
    u_int n = 0, n2 = 0;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    /* max bounds the results, the XDR data after the seq_num, as
     * gk5i_rpc_body_open has it: databody_integ carries the seq_num too,
     * a privacy token its own pieces. */
    size_t limit =
        svc == GK5_RPC_SVC_PRIVACY ? max + PRIV_TOKEN_SLACK : max + 4;
    if (!xdr_u_int(xdrs, &n)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is missing (no length)");
        goto cleanup;
    }
    if (n > limit) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "the reply body of %u bytes is larger than max_body "
                     "(%zu bytes of results) allows",
                     n, max);
        goto cleanup;
    }
    size_t first = 4 + (size_t)n + gk5i_xdr_pad(n);
    size_t cap = first;
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        cap += 4 + GK5I_RPC_MAX_AUTH_BYTES;
    }
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte reply body", cap);
        goto cleanup;
    }
    gk5i_put32(buf, n);
    if (!XDR_GETBYTES(xdrs, (char *)buf + 4, (u_int)(first - 4))) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is shorter than its length, %u bytes", n);
        goto cleanup;
    }
    size_t total = first;
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        if (!xdr_u_int(xdrs, &n2) || n2 > GK5I_RPC_MAX_AUTH_BYTES - 3) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the reply's integrity checksum is missing or too "
                         "long");
            goto cleanup;
        }
        gk5i_put32(buf + first, n2);
        size_t n2p = (size_t)n2 + gk5i_xdr_pad(n2);
        if (n2p > 0 &&
            !XDR_GETBYTES(xdrs, (char *)buf + first + 4, (u_int)n2p)) {
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "the reply's integrity checksum is truncated");
            goto cleanup;
        }
        total += 4 + n2p;
    }
    *out = buf;
    *out_len = total;
    buf = NULL;
    ret = 0;

cleanup:
    free(buf);
    return ret;
}

/* RFC 2203 5.3.3.4: the results, checked (and decrypted) with their seq_num
 * before a byte reaches xdr_results. */
static bool_t op_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                        caddr_t results)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "unwrap");
    uint8_t *buf = NULL, *data = NULL;
    size_t len = 0, data_len = 0, used = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_results, results, GK5_RPC_E_MALFORMED,
                        "the results do not decode");
        goto cleanup;
    }
    if (read_body(xdrs, s->service, p->max_body, &buf, &len, &s->err) != 0 ||
        gk5i_rpc_body_open(s->cc->gss, s->service, s->seq, buf, len,
                           p->max_body, &data, &data_len, &used,
                           &s->err) != 0) {
        goto cleanup;
    }
    if (data_len > UINT_MAX) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG, "results of %zu bytes",
                     data_len);
        goto cleanup;
    }
    xdrmem_create(&mx, (char *)data, (u_int)data_len, XDR_DECODE);
    have_mx = 1;
    if (!(*xdr_results)(&mx, results)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_MALFORMED,
                     "the results (%zu bytes, %s) do not decode", data_len,
                     gk5_rpc_service_name(s->service));
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The decrypted results. */
    body_release(&mx, have_mx, buf, len, s->service);
    if (!ok) {
        s->failed = 1;
    } else {
        s->failed = 0;
        gk5i_rpc_err_clear(&s->err);
    }
    slot_end_call(s);
    return ok;
}

/* A rejected or unsuccessful reply: re-establish for
 * RPCSEC_GSS_CREDPROBLEM / CTXPROBLEM (RFC 2203 5.3.3.3) so that libtirpc
 * sends the call again; anything else ends the call. */
static bool_t op_refresh(AUTH *auth, void *arg)
{
    struct priv *p = auth->ah_private;
    const struct rpc_msg *msg = arg;
    struct call_slot *s = slot_find(p->serial, 1);
    int had_call = s->cc != NULL;
    uint32_t gen = had_call ? s->cc->gen : 0;
    bool_t ok = FALSE;

    slot_end_call(s);
    if (msg == NULL || !had_call) {
        goto cleanup;
    }
    if (msg->rm_reply.rp_stat == MSG_ACCEPTED) {
        uint32_t stat = (uint32_t)msg->acpted_rply.ar_stat;
        gk5i_rpc_err(&s->err, GK5_RPC_E_ACCEPT_STAT, "the server: %s",
                     accept_stat_words(stat));
        goto cleanup;
    }
    if (msg->rjcted_rply.rj_stat != AUTH_ERROR) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_REJECTED,
                     "the server rejected the call: RPC_MISMATCH");
        s->err.rpc_stat = RPC_VERSMISMATCH;
        goto cleanup;
    }
    uint32_t why = (uint32_t)msg->rjcted_rply.rj_why;
    gk5i_rpc_err(&s->err, GK5_RPC_E_REJECTED,
                 "the server rejected the call: %s", auth_stat_words(why));
    s->err.rpc_stat = RPC_AUTHERROR;
    s->err.auth_stat = why;
    if (why != GK5I_RPCSEC_GSS_CREDPROBLEM &&
        why != GK5I_RPCSEC_GSS_CTXPROBLEM) {
        goto cleanup;
    }
    /* The rejected reply has been read: the call's connection is free for
     * an INIT of our own if it is the creation CLIENT's (home_fd_for). */
    if (reestablish(p, gen, s->xdrs, &s->err) != 0) {
        goto cleanup;
    }
    /* The words stay: if the retry is rejected too and libtirpc has no
     * refreshes left, they are what gk5_rpc_auth_last_error says. */
    s->refreshed = 1;
    s->failed = 1;
    return TRUE;

cleanup:
    s->failed = !ok && s->err.code != GK5_RPC_OK;
    return ok;
}

/* RFC 2203 5.4: destroy the contexts at auth_destroy.  Best effort.
 *
 * The creation CLIENT's context goes on that CLIENT's socket if it is
 * still open (fd and identity as recorded), its reply read whole: the
 * CLIENT itself is never touched (auth_destroy may follow clnt_destroy),
 * and if it lives on, it finds its stream as it left it (no call may run
 * on it meanwhile).  libtirpc's client would drop a reply left unread as a
 * stranger's xid, and leak its verifier.  libtirpc 1.3.3's server must see
 * the DESTROY there: it keys its context by the SVCXPRT and keeps it for
 * five minutes after the connection closes, and a new connection whose
 * SVCXPRT lands at the same address inherits it and refuses every INIT.
 * The current context, when it is another (made on a connection of
 * our own for a shared AUTH) or when that socket is gone, goes on a
 * connection of our own, for servers with a global handle table. */
static void send_destroy(struct priv *p)
{
    struct cctx *home = p->home_cc, *cur = p->cur;
    int fd = home_socket(p);

    if (home != NULL && (fd >= 0 || home != cur)) {
        destroy_exchange(p, home, fd);
    }
    if (cur != home || fd < 0) {
        destroy_exchange(p, cur, -1);
    }
}

static void priv_free(struct priv *p)
{
    if (p == NULL) {
        return;
    }
    cctx_release(p->cur);
    cctx_release(p->home_cc);
    free(p->target);
    free(p->principal);
    free(p->ccache);
    free(p->client_keytab);
    free(p->enctypes);
    own_ccache_remove(p);
    free(p->own_dir);
    free(p->own_ccache);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->estab_lock);
    zap(p, sizeof(*p));
    free(p);
}

static void op_destroy(AUTH *auth)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_find(p->serial, 0);

    if (s != NULL) {
        slot_end_call(s);
        memset(s, 0, sizeof(*s)); /* not a wipe: the slot is free again */
    }
    send_destroy(p);
    priv_free(p);
    zap(auth, sizeof(*auth));
    free(auth);
}

/* libtirpc's auth_ops, one per state of the AUTH (this one and
 * inband_ops): tables of function pointers, alike in shape only. */
static struct auth_ops gk5_auth_ops = {
    .ah_nextverf = op_nextverf,
    .ah_marshal = op_marshal,
    .ah_validate = op_validate,
    .ah_refresh = op_refresh,
    .ah_destroy = op_destroy,
    .ah_wrap = op_wrap,
    .ah_unwrap = op_unwrap,
};

/* ---- The in-band state (RFC 2203 5.2.2) ----
 *
 * While gk5_rpc_auth_create runs a leg through clnt_call, the AUTH speaks
 * the control protocol: the credential is INIT or CONTINUE_INIT with seq 0
 * and the verifier AUTH_NONE; arguments and results go as they are
 * (rpc_gss_init_arg, rpc_gss_init_res); the reply's verifier is kept for
 * establish to check.  No one else holds the AUTH yet. */

/* The in-band state of an AUTH (NULL once establishment is over). */
static struct inband *inband_of(AUTH *auth)
{
    struct priv *p = auth->ah_private;

    return p->inband;
}

/* A leg's step failed (the error already said): establishment stops. */
static bool_t inband_failed(struct inband *ib)
{
    ib->failed = 1;
    return FALSE;
}

static bool_t inband_marshal(AUTH *auth, XDR *xdrs)
{
    struct inband *ib = inband_of(auth);
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];

    if (ib == NULL) {
        return FALSE;
    }
    ib->xdrs = xdrs;
    size_t body_len = gk5i_rpc_cred_encode(ib->cred, body, sizeof(body));
    struct opaque_auth cred = {.oa_flavor = RPCSEC_GSS,
                               .oa_base = (caddr_t)body,
                               .oa_length = (u_int)body_len};
    struct opaque_auth verf = {
        .oa_flavor = AUTH_NONE, .oa_base = NULL, .oa_length = 0};
    if (body_len == 0 || !xdr_opaque_auth(xdrs, &cred) ||
        !xdr_opaque_auth(xdrs, &verf)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS_INIT credential failed");
        return inband_failed(ib);
    }
    return TRUE;
}

static bool_t inband_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args,
                          caddr_t args)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (!(*xdr_args)(xdrs, args)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_TRANSPORT,
                     "encoding the RPCSEC_GSS_INIT token failed");
        return inband_failed(ib);
    }
    return TRUE;
}

/* RFC 2203 5.2.3.1: kept, and checked as the MIC of seq_window once the
 * context is complete. */
static bool_t inband_validate(AUTH *auth, struct opaque_auth *verf)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (verf == NULL) {
        return TRUE; /* leg->verf_flavor stays AUTH_NONE */
    }
    if (verf->oa_length > sizeof(ib->leg->verf)) {
        gk5i_rpc_err(&ib->err, GK5_RPC_E_BAD_VERIFIER,
                     "the RPCSEC_GSS_INIT reply's verifier has %u bytes",
                     verf->oa_length);
        return inband_failed(ib);
    }
    ib->leg->verf_flavor = (uint32_t)verf->oa_flavor;
    ib->leg->verf_len = verf->oa_length;
    if (verf->oa_length > 0) {
        memcpy(ib->leg->verf, verf->oa_base, verf->oa_length);
    }
    return TRUE;
}

/* (As inband_wrap, the other direction; the failure words differ:
 * init_res_err() says what the server's reply lacked.) */
static bool_t inband_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                            caddr_t results)
{
    struct inband *ib = inband_of(auth);

    if (ib == NULL) {
        return FALSE;
    }
    if (!(*xdr_results)(xdrs, results)) {
        init_res_err(&ib->err);
        return inband_failed(ib);
    }
    return TRUE;
}

/* A rejected INIT is final: leg_inband words it from clnt_geterr. */
static bool_t inband_refresh(AUTH *auth, void *arg)
{
    (void)auth;
    (void)arg;
    return FALSE;
}

/* Never called: gk5_rpc_auth_create frees a half-made AUTH itself. */
static void inband_destroy(AUTH *auth)
{
    (void)auth;
}

static struct auth_ops inband_ops = {
    .ah_nextverf = op_nextverf,
    .ah_marshal = inband_marshal,
    .ah_validate = inband_validate,
    .ah_refresh = inband_refresh,
    .ah_destroy = inband_destroy,
    .ah_wrap = inband_wrap,
    .ah_unwrap = inband_unwrap,
};

static int is_ours(const AUTH *auth)
{
    return auth != NULL && auth->ah_ops == &gk5_auth_ops &&
           auth->ah_private != NULL;
}

/* ---- Creation ---- */

static GK5I_RPC_WUR int dup_opt(const char *s, char **out, gk5_rpc_error *err)
{
    *out = NULL;
    if (s == NULL) {
        return 0;
    }
    *out = strdup(s);
    if (*out == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* Where clnt talks to, for control connections of our own, and which
 * socket it is (home_fd_for).  Only stream transports: RPCSEC_GSS over UDP
 * would need retransmission here, and the record stream is what lets
 * marshal sign the header in place. */
static GK5I_RPC_WUR int peer_of(CLIENT *clnt, struct priv *p,
                                gk5_rpc_error *err)
{
    int fd = -1, type = 0;
    socklen_t tlen = sizeof(type);
    struct stat st;

    if (!clnt_control(clnt, CLGET_FD, (char *)&fd) || fd < 0) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT does not give its socket (CLGET_FD): "
                     "RPCSEC_GSS here needs clnt_vc/clnt_tp over TCP or a "
                     "UNIX socket");
        return -1;
    }
    if (fstat(fd, &st) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 ||
        type != SOCK_STREAM) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT's socket is not a stream socket: "
                     "RPCSEC_GSS here needs TCP or a UNIX stream socket "
                     "(create the CLIENT with \"tcp\", not \"udp\")");
        return -1;
    }
    p->home_fd = fd;
    p->home_dev = st.st_dev;
    p->home_ino = st.st_ino;
    p->peer_len = sizeof(p->peer);
    if (getpeername(fd, (struct sockaddr *)&p->peer, &p->peer_len) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_TRANSPORT,
                     "the CLIENT's socket has no peer address: %s",
                     strerror(errno));
        return -1;
    }
    if (p->peer.ss_family != AF_INET && p->peer.ss_family != AF_INET6 &&
        p->peer.ss_family != AF_UNIX) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "the CLIENT's socket is of address family %d (TCP or "
                     "UNIX sockets only)",
                     (int)p->peer.ss_family);
        return -1;
    }
    rpcprog_t prog = 0;
    rpcvers_t vers = 0;
    if (!clnt_control(clnt, CLGET_PROG, (char *)&prog) ||
        !clnt_control(clnt, CLGET_VERS, (char *)&vers)) {
        gk5i_rpc_err(err, GK5_RPC_E_UNSUPPORTED,
                     "this CLIENT does not give its program and version "
                     "(CLGET_PROG, CLGET_VERS)");
        return -1;
    }
    p->prog = (uint32_t)prog;
    p->vers = (uint32_t)vers;
    return 0;
}

/* A struct priv with its locks, serial, service and limits (0: the
 * defaults); NULL with err. */
static struct priv *priv_new(gk5_rpc_service service, unsigned timeout_ms,
                             size_t max_body, gk5_rpc_error *err)
{
    struct priv *p = calloc(1, sizeof(*p));

    if (p == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return NULL;
    }
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        return NULL;
    }
    if (pthread_mutex_init(&p->estab_lock, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        return NULL;
    }
    p->serial = atomic_fetch_add(&next_serial, 1);
    atomic_init(&p->service, (int)service);
    p->timeout_ms = timeout_ms != 0 ? timeout_ms : DEFAULT_TIMEOUT_MS;
    if (p->timeout_ms > INT_MAX) {
        p->timeout_ms = INT_MAX;
    }
    p->max_body = max_body != 0 ? max_body : DEFAULT_MAX_BODY;
    if (p->max_body > MAX_BODY_LIMIT) {
        p->max_body = MAX_BODY_LIMIT;
    }
    p->home_fd = -1;
    return p;
}

AUTH *gk5_rpc_auth_create(CLIENT *clnt, const char *target,
                          gk5_rpc_service service,
                          const gk5_rpc_auth_options *opts, gk5_rpc_error *err)
{
    static const gk5_rpc_auth_options no_opts;
    AUTH *auth = NULL, *ret = NULL;
    struct priv *p = NULL;

    gk5i_rpc_err_clear(err);
    if (opts == NULL) {
        opts = &no_opts;
    }
    if (clnt == NULL || target == NULL || target[0] == '\0' ||
        !service_valid(service) ||
        (opts->n_enctypes > 0 && opts->enctypes == NULL)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_auth_create: a CLIENT, a target "
                     "\"service@host\" and a service (krb5, krb5i, krb5p) "
                     "are needed");
        goto cleanup;
    }
    auth = calloc(1, sizeof(*auth));
    if (auth == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    p = priv_new(service, opts->timeout_ms, opts->max_body, err);
    if (p == NULL) {
        goto cleanup;
    }
    if (opts->establish != GK5_RPC_ESTABLISH_NATIVE &&
        opts->establish != GK5_RPC_ESTABLISH_MIT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_auth_create: establish is not a "
                     "gk5_rpc_establish");
        goto cleanup;
    }
    if (!gk5_rpc_establish_available(opts->establish)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_auth_create: establish GK5_RPC_ESTABLISH_MIT: %s",
                     GK5I_RPC_NO_MIT_WORDS);
        goto cleanup;
    }
    p->establish = opts->establish;
    if (dup_opt(target, &p->target, err) != 0 ||
        dup_opt(opts->principal, &p->principal, err) != 0 ||
        dup_opt(opts->ccache, &p->ccache, err) != 0 ||
        dup_opt(opts->client_keytab, &p->client_keytab, err) != 0) {
        goto cleanup;
    }
    if (opts->n_enctypes > 0) {
        p->enctypes = calloc(opts->n_enctypes, sizeof(*p->enctypes));
        if (p->enctypes == NULL) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(p->enctypes, opts->enctypes,
               opts->n_enctypes * sizeof(*p->enctypes));
        p->n_enctypes = opts->n_enctypes;
    }
    auth->ah_cred.oa_flavor = RPCSEC_GSS;
    auth->ah_verf.oa_flavor = RPCSEC_GSS;
    auth->ah_ops = &inband_ops;
    auth->ah_private = p;
    struct route rt = {.clnt = clnt, .auth = auth, .fd = -1};
    if (peer_of(clnt, p, err) != 0 || establish(p, 1, &rt, &p->cur, err) != 0) {
        goto cleanup;
    }
    atomic_fetch_add(&p->cur->refs, 1);
    p->home_cc = p->cur; /* made in band, on clnt's connection */
    auth->ah_ops = &gk5_auth_ops;
    p = NULL;
    ret = auth;
    auth = NULL;

cleanup:
    priv_free(p);
    free(auth);
    return ret;
}

int gk5_rpc_auth_set_service(AUTH *auth, gk5_rpc_service service)
{
    if (!is_ours(auth) || !service_valid(service)) {
        return -1;
    }
    struct priv *p = auth->ah_private;
    atomic_store(&p->service, (int)service);
    return 0;
}

int gk5_rpc_auth_inquire(AUTH *auth, gk5_rpc_auth_info *info)
{
    if (info != NULL) {
        memset(info, 0, sizeof(*info));
    }
    if (!is_ours(auth) || info == NULL) {
        return -1;
    }
    struct priv *p = auth->ah_private;
    struct cctx *cc = cctx_get(p);
    uint64_t next = atomic_load(&cc->next_seq);
    info->enctype = cc->enctype;
    info->service = (gk5_rpc_service)atomic_load(&p->service);
    info->window = cc->window;
    info->next_seq = next < GK5_RPC_MAXSEQ ? (uint32_t)next : GK5_RPC_MAXSEQ;
    info->established = cc->gen;
    info->handle_len = cc->handle_len;
    cctx_release(cc);
    return 0;
}

const gk5_rpc_error *gk5_rpc_auth_last_error(AUTH *auth)
{
    if (!is_ours(auth)) {
        return NULL;
    }
    const struct priv *p = auth->ah_private;
    const struct call_slot *s = slot_find(p->serial, 0);
    return s != NULL && s->failed ? &s->err : NULL;
}

/* ---- Test seams (tests/fuzz/fuzz_rpc_reply.c; not exported) ---- */

/* The context establish returns, made from a gk5 context that is already
 * complete: what establish does once gk5_mit_initiator_finish has given
 * it cc->gss and the legs the handle and window.  gss is owned from here
 * on, also on failure. */
static GK5I_RPC_WUR int cctx_adopt(gk5_ctx *gss, const uint8_t *handle,
                                   size_t handle_len, uint32_t window,
                                   struct cctx **out, gk5_rpc_error *err)
{
    struct cctx *cc = NULL;
    gk5_ctx_info info;
    uint32_t minor = 0;

    *out = NULL;
    cc = calloc(1, sizeof(*cc));
    if (cc == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        gk5_ctx_free(gss);
        return -1;
    }
    if (flow_init(cc) != 0) {
        free(cc);
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory (a mutex)");
        gk5_ctx_free(gss);
        return -1;
    }
    atomic_init(&cc->refs, 1);
    cc->gss = gss; /* cctx_release frees it from here on */
    memcpy(cc->handle, handle, handle_len);
    cc->handle_len = handle_len;
    cc->window = window;
    uint32_t major = gk5_ctx_set_flags(&minor, cc->gss, 0);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_set_flags");
        cctx_release(cc);
        return -1;
    }
    major = gk5_ctx_inquire(&minor, cc->gss, &info);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_inquire");
        cctx_release(cc);
        return -1;
    }
    cc->enctype = info.enctype;
    cc->endtime = info.endtime;
    cc->gen = 1;
    atomic_init(&cc->next_seq, 1);
    cc->flow_base = 1;
    *out = cc;
    return 0;
}

/* An AUTH in the state gk5_rpc_auth_create leaves it in once the first
 * context is established (gk5_auth_ops, the same struct priv), holding
 * ctx (owned from here on, also on failure) as that context, with the
 * server's handle and seq_window.  There is no CLIENT behind it:
 *   - no target: a re-establishment (refresh after CREDPROBLEM or
 *     CTXPROBLEM, MAXSEQ, expiry) stops at gk5_mit_initiator_create,
 *     which refuses an empty target before MIT is asked for anything, and
 *     the call fails with those words;
 *   - no peer address (AF_UNSPEC) and no home connection: the DESTROY at
 *     auth_destroy fails at socket() and nothing is sent.
 * NULL, with err, on failure. */
AUTH *gk5i_rpc_auth_from_ctx(gk5_ctx *ctx, const uint8_t *handle,
                             size_t handle_len, uint32_t window,
                             gk5_rpc_service svc, size_t max_body,
                             gk5_rpc_error *err)
{
    AUTH *auth = NULL, *ret = NULL;
    struct priv *p = NULL;
    struct cctx *cc = NULL;

    gk5i_rpc_err_clear(err);
    if (ctx == NULL || handle == NULL || handle_len == 0 ||
        handle_len > MAX_HANDLE || window == 0 || !service_valid(svc)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5i_rpc_auth_from_ctx: a context, a handle of 1 to "
                     "%u bytes, a window and a service are needed",
                     (unsigned)MAX_HANDLE);
        gk5_ctx_free(ctx);
        return NULL;
    }
    if (cctx_adopt(ctx, handle, handle_len, window, &cc, err) != 0) {
        return NULL;
    }
    /* From here on as gk5_rpc_auth_create, with no options. */
    auth = calloc(1, sizeof(*auth));
    if (auth == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    p = priv_new(svc, 0, max_body, err);
    if (p == NULL) {
        goto cleanup;
    }
    p->peer.ss_family = AF_UNSPEC;
    if (dup_opt("", &p->target, err) != 0) {
        goto cleanup;
    }
    p->cur = cc; /* priv_free releases it from here on */
    cc = NULL;
    auth->ah_cred.oa_flavor = RPCSEC_GSS;
    auth->ah_verf.oa_flavor = RPCSEC_GSS;
    auth->ah_ops = &gk5_auth_ops;
    auth->ah_private = p;
    p = NULL;
    ret = auth;
    auth = NULL;

cleanup:
    cctx_release(cc);
    priv_free(p);
    free(auth);
    return ret;
}
