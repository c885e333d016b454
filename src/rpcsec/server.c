/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2203 RPCSEC_GSS, the server's half: one RPC call message in, a
 * verdict out (dispatch it, send this reply, or send nothing).
 *
 * Nothing here knows about transports.  A context is found by its handle
 * alone, so a client may use one context over many connections and many
 * contexts over one (RFC 2203 5.2.3.1 ties a context to nothing else).
 *
 * The table: contexts live in a hash table keyed by their handle (16
 * random bytes, GK5I_RPC_HANDLE_LEN), on an LRU list for eviction, each
 * reference counted so that a DESTROY, an eviction or an expiry never frees
 * a context a running call still holds.  Lock order: the table lock and a
 * context's lock are never held together.
 *
 * The per-context sequence window (RFC 2203 5.3.3.1) moves only for a call
 * whose header MIC verified: a forged call never changes state.
 *
 * Establishment: gk5's own acceptor by default (accept_native.c, one leg),
 * or MIT's through libgk5_mit (GK5_RPC_ESTABLISH_MIT, CONTINUE_INIT legs
 * as MIT asks; compiled only with MIT krb5, GK5_RPC_WITH_MIT); either way
 * the context then lives here as a gk5_ctx.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif

#include "common/util.h"
#include "common/xdr.h"
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

/* Defaults (gk5_rpc_server_options).  128 is the Linux server's window. */
#define DEFAULT_WINDOW 128u
#define MAX_WINDOW 1024u
#define DEFAULT_MAX_CONTEXTS 65536u
#define DEFAULT_IDLE_TIMEOUT 3600u
#define DEFAULT_MAX_BODY ((size_t)64 * 1024 * 1024)

/* Room a record needs beyond max_body: the call header (xid..proc), two
 * opaque_auth of at most 400 bytes, and the integrity/privacy framing
 * around the arguments (lengths, seq_num, wrap token header, checksum). */
#define RECORD_HEADROOM GK5I_RPC_HEADER_MAX

/* RPCSEC_GSS_INIT tokens, whatever max_body says: an AP-REQ carrying a
 * large PAC reaches 64 KiB (Windows' MaxTokenSize is 65535). */
#define MAX_INIT_TOKEN ((size_t)1024 * 1024)

#define WINDOW_WORDS (MAX_WINDOW / 64u)

/* Buckets: start small, double at load factor 1, up to this. */
#define MIN_BUCKETS 64u
#define MAX_BUCKETS ((size_t)1 << 20)

/* How many idle-expired contexts one call may sweep (keeps process O(1)). */
#define SWEEP_PER_CALL 4u
/* How far from the LRU end eviction looks for a context no call holds. */
#define EVICT_SCAN 64u

/* ------------------------------------------------------------------ */
/* Contexts and the table                                              */
/* ------------------------------------------------------------------ */

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

    /* RFC 2203 5.3.3.1: highest seq_num seen and, for the MAX_WINDOW
     * numbers at and below it, whether each was seen (bit seq % MAX_WINDOW). */
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

static uint64_t now_mono(void)
{
    struct timespec ts;

    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec;
}

static struct sctx *sctx_new(void)
{
    struct sctx *sc = calloc(1, sizeof(*sc));

    if (sc == NULL) {
        return NULL;
    }
    /* With default attributes pthread_mutex_init cannot fail on Linux. */
    (void)pthread_mutex_init(&sc->lock, NULL);
    atomic_init(&sc->refs, 1);
    return sc;
}

static void sctx_put(struct sctx *sc)
{
    if (sc == NULL || atomic_fetch_sub(&sc->refs, 1) != 1) {
        return;
    }
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_acceptor_free(sc->acc);
#endif
    gk5_ctx_free(sc->ctx); /* wipes the keys */
    free(sc->principal);
    (void)pthread_mutex_destroy(&sc->lock);
    zap(sc, sizeof(*sc));
    free(sc);
}

/* Handles come from RAND_bytes, so their first bytes are already a uniform
 * hash; only handles this server made are ever in the table, so a client
 * cannot choose where entries land. */
static size_t bucket_of(const gk5_rpc_server *srv, const uint8_t *handle)
{
    uint64_t h;

    memcpy(&h, handle, sizeof(h));
    return (size_t)(h & (srv->nbuckets - 1));
}

/* Table lock held. */
static void lru_unlink(gk5_rpc_server *srv, struct sctx *sc)
{
    if (sc->newer != NULL) {
        sc->newer->older = sc->older;
    } else {
        srv->newest = sc->older;
    }
    if (sc->older != NULL) {
        sc->older->newer = sc->newer;
    } else {
        srv->oldest = sc->newer;
    }
    sc->newer = NULL;
    sc->older = NULL;
}

/* Table lock held. */
static void lru_push(gk5_rpc_server *srv, struct sctx *sc)
{
    sc->older = srv->newest;
    sc->newer = NULL;
    if (srv->newest != NULL) {
        srv->newest->newer = sc;
    } else {
        srv->oldest = sc;
    }
    srv->newest = sc;
}

/* Table lock held.  Unlinks sc; the caller drops the table's reference
 * after unlocking (freeing wipes keys: not under the lock). */
static void table_unlink_locked(gk5_rpc_server *srv, struct sctx *sc)
{
    struct sctx **pp = &srv->buckets[bucket_of(srv, sc->handle)];

    while (*pp != NULL && *pp != sc) {
        pp = &(*pp)->hnext;
    }
    if (*pp == sc) {
        *pp = sc->hnext;
    }
    sc->hnext = NULL;
    lru_unlink(srv, sc);
    sc->in_table = false;
    atomic_fetch_sub(&srv->count, 1);
}

static void table_remove(gk5_rpc_server *srv, struct sctx *sc)
{
    bool was_in;

    (void)pthread_mutex_lock(&srv->lock);
    was_in = sc->in_table;
    if (was_in) {
        table_unlink_locked(srv, sc);
    }
    (void)pthread_mutex_unlock(&srv->lock);
    if (was_in) {
        sctx_put(sc);
    }
}

static bool idle_expired(const gk5_rpc_server *srv, const struct sctx *sc,
                         uint64_t now)
{
    return now - sc->last_used > srv->idle_timeout;
}

/* Table lock held.  Makes room for one more context by unlinking the least
 * recently used one that no call holds; *victim gets it (to put after
 * unlocking).  false if the table is full of busy contexts. */
static bool table_make_room_locked(gk5_rpc_server *srv, struct sctx **victim)
{
    struct sctx *sc = srv->oldest;
    unsigned scanned = 0;

    *victim = NULL;
    if (atomic_load(&srv->count) < srv->max_contexts) {
        return true;
    }
    while (sc != NULL && scanned < EVICT_SCAN) {
        if (atomic_load(&sc->refs) == 1) {
            table_unlink_locked(srv, sc);
            *victim = sc;
            return true;
        }
        sc = sc->newer;
        scanned++;
    }
    return false;
}

/* Doubles the bucket array when the table outgrows it, keeping chains
 * short; on allocation failure chains just get longer.  Table lock held. */
static void table_grow_locked(gk5_rpc_server *srv)
{
    size_t n = srv->nbuckets * 2;
    struct sctx **nb;
    size_t i;

    if (atomic_load(&srv->count) <= srv->nbuckets || n > MAX_BUCKETS) {
        return;
    }
    nb = calloc(n, sizeof(*nb));
    if (nb == NULL) {
        return;
    }
    for (i = 0; i < srv->nbuckets; i++) {
        struct sctx *sc = srv->buckets[i];

        while (sc != NULL) {
            struct sctx *next = sc->hnext;
            uint64_t h;

            memcpy(&h, sc->handle, sizeof(h));
            sc->hnext = nb[h & (n - 1)];
            nb[h & (n - 1)] = sc;
            sc = next;
        }
    }
    free(srv->buckets);
    srv->buckets = nb;
    srv->nbuckets = n;
}

/* Table lock held. */
static struct sctx *table_find_locked(const gk5_rpc_server *srv,
                                      const uint8_t *handle)
{
    struct sctx *sc = srv->buckets[bucket_of(srv, handle)];

    while (sc != NULL &&
           CRYPTO_memcmp(sc->handle, handle, GK5I_RPC_HANDLE_LEN) != 0) {
        sc = sc->hnext;
    }
    return sc;
}

/* Gives sc a fresh random handle and puts it in the table (which takes a
 * reference of its own).  0, or -1 with err (table full of busy contexts,
 * RAND_bytes failed). */
GK5I_RPC_WUR static int table_insert(gk5_rpc_server *srv, struct sctx *sc,
                                     gk5_rpc_error *err)
{
    struct sctx *victim = NULL;
    size_t b;
    int tries;
    int rc = -1;

    (void)pthread_mutex_lock(&srv->lock);
    if (!table_make_room_locked(srv, &victim)) {
        gk5i_rpc_err(err, GK5_RPC_E_CONTEXT,
                     "context table full: %zu contexts, all in use",
                     srv->max_contexts);
        goto cleanup;
    }
    /* 128 random bits collide with a live handle essentially never; the
     * retries only guard against a broken generator. */
    for (tries = 0; tries < 4; tries++) {
        if (RAND_bytes(sc->handle, GK5I_RPC_HANDLE_LEN) != 1) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                         "RAND_bytes failed making a context handle");
            goto cleanup;
        }
        if (table_find_locked(srv, sc->handle) == NULL) {
            break;
        }
    }
    if (tries == 4) {
        gk5i_rpc_err(err, GK5_RPC_E_CONTEXT, "cannot make a unique handle");
        goto cleanup;
    }
    b = bucket_of(srv, sc->handle);
    sc->hnext = srv->buckets[b];
    srv->buckets[b] = sc;
    lru_push(srv, sc);
    sc->in_table = true;
    sc->last_used = now_mono();
    atomic_fetch_add(&sc->refs, 1);
    atomic_fetch_add(&srv->count, 1);
    table_grow_locked(srv);
    rc = 0;
cleanup:
    (void)pthread_mutex_unlock(&srv->lock);
    sctx_put(victim);
    return rc;
}

/* Is there room for one more context (evicting one if need be)?  Asked
 * before an INIT runs the acceptor, which consumes the client's AP-REQ. */
static bool table_reserve(gk5_rpc_server *srv)
{
    struct sctx *victim = NULL;
    bool ok;

    (void)pthread_mutex_lock(&srv->lock);
    ok = table_make_room_locked(srv, &victim);
    (void)pthread_mutex_unlock(&srv->lock);
    sctx_put(victim);
    return ok;
}

enum lookup { LOOKUP_FOUND, LOOKUP_NONE, LOOKUP_IDLE };

/* The context with this handle, with a reference for the caller, marked
 * as just used.  One idle longer than idle_timeout is removed instead. */
static enum lookup table_lookup(gk5_rpc_server *srv, const uint8_t *handle,
                                size_t handle_len, struct sctx **out)
{
    struct sctx *sc;
    uint64_t now = now_mono();
    enum lookup res = LOOKUP_NONE;

    *out = NULL;
    if (handle_len != GK5I_RPC_HANDLE_LEN) {
        return LOOKUP_NONE;
    }
    (void)pthread_mutex_lock(&srv->lock);
    sc = table_find_locked(srv, handle);
    if (sc != NULL && idle_expired(srv, sc, now) &&
        atomic_load(&sc->refs) == 1) {
        table_unlink_locked(srv, sc);
        (void)pthread_mutex_unlock(&srv->lock);
        sctx_put(sc);
        return LOOKUP_IDLE;
    }
    if (sc != NULL) {
        sc->last_used = now;
        lru_unlink(srv, sc);
        lru_push(srv, sc);
        atomic_fetch_add(&sc->refs, 1);
        *out = sc;
        res = LOOKUP_FOUND;
    }
    (void)pthread_mutex_unlock(&srv->lock);
    return res;
}

/* Lazy idle expiry: the LRU end is the longest unused, so looking at a
 * few contexts there per call keeps the table clean without a timer. */
static void table_sweep(gk5_rpc_server *srv)
{
    struct sctx *gone[SWEEP_PER_CALL];
    unsigned n = 0;
    unsigned i;
    uint64_t now = now_mono();

    (void)pthread_mutex_lock(&srv->lock);
    while (n < SWEEP_PER_CALL && srv->oldest != NULL &&
           idle_expired(srv, srv->oldest, now) &&
           atomic_load(&srv->oldest->refs) == 1) {
        gone[n] = srv->oldest;
        table_unlink_locked(srv, gone[n]);
        n++;
    }
    (void)pthread_mutex_unlock(&srv->lock);
    for (i = 0; i < n; i++) {
        sctx_put(gone[i]);
    }
}

/* ------------------------------------------------------------------ */
/* The sequence window (RFC 2203 5.3.3.1)                              */
/* ------------------------------------------------------------------ */

enum seq_verdict { SEQ_NEW, SEQ_SEEN, SEQ_BELOW };

static bool seen_get(const struct sctx *sc, uint32_t seq)
{
    uint32_t bit = seq % MAX_WINDOW;

    return (sc->seen[bit / 64] >> (bit % 64)) & 1u;
}

static void seen_put(struct sctx *sc, uint32_t seq, bool on)
{
    uint32_t bit = seq % MAX_WINDOW;
    uint64_t mask = (uint64_t)1 << (bit % 64);

    if (on) {
        sc->seen[bit / 64] |= mask;
    } else {
        sc->seen[bit / 64] &= ~mask;
    }
}

/* RFC 2203 5.3.3.1: a number above the highest seen is new (and moves the
 * window up); one `window` or more below it is discarded; one inside the
 * window is new unless seen.  With record, a new number is marked (and
 * the window moved); without, nothing changes.  seq < MAXSEQ, so the
 * arithmetic never wraps. */
static enum seq_verdict window_check(struct sctx *sc, uint32_t window,
                                     uint32_t seq, bool record)
{
    enum seq_verdict v = SEQ_NEW;

    (void)pthread_mutex_lock(&sc->lock);
    if (!sc->seq_started || seq > sc->seq_top) {
        if (record) {
            uint32_t s;

            if (!sc->seq_started || seq - sc->seq_top >= MAX_WINDOW) {
                memset(sc->seen, 0, sizeof(sc->seen));
            } else {
                /* The bits of the numbers now above the old top held
                 * numbers MAX_WINDOW lower, which have left the window. */
                for (s = sc->seq_top + 1; s != seq; s++) {
                    seen_put(sc, s, false);
                }
            }
            seen_put(sc, seq, true);
            sc->seq_top = seq;
            sc->seq_started = true;
        }
    } else if (sc->seq_top - seq >= window) {
        v = SEQ_BELOW;
    } else if (seen_get(sc, seq)) {
        v = SEQ_SEEN;
    } else if (record) {
        seen_put(sc, seq, true);
    }
    (void)pthread_mutex_unlock(&sc->lock);
    return v;
}

/* ------------------------------------------------------------------ */
/* Message layout: the call header and every reply (RFC 5531 9,        */
/* RFC 2203 5.2.3.1)                                                   */
/* ------------------------------------------------------------------ */

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

/* RFC 5531 9: call_body up to the procedure's arguments. */
static enum parse parse_call(uint8_t *msg, size_t len, struct call_hdr *h,
                             gk5_rpc_error *err)
{
    struct gk5i_rd r;
    uint32_t mtype;
    uint32_t rpcvers;

    memset(h, 0, sizeof(*h));
    gk5i_rd_init(&r, msg, len);
    h->msg = msg;
    h->xid = gk5i_xdr_get_u32(&r);
    mtype = gk5i_xdr_get_u32(&r);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "message too short for an RPC header");
        return PARSE_DROP;
    }
    if (mtype != RPC_MSG_CALL) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "not an RPC call (msg_type %u)",
                     mtype);
        return PARSE_DROP;
    }
    rpcvers = gk5i_xdr_get_u32(&r);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "call header truncated");
        return PARSE_DROP;
    }
    if (rpcvers != RPC_VERSION) {
        gk5i_rpc_err(err, GK5_RPC_E_REJECTED, "RPC version %u, not 2", rpcvers);
        return PARSE_MISMATCH;
    }
    h->prog = gk5i_xdr_get_u32(&r);
    h->vers = gk5i_xdr_get_u32(&r);
    h->proc = gk5i_xdr_get_u32(&r);
    h->cred_flavor = gk5i_xdr_get_u32(&r);
    h->cred = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &h->cred_len);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "credential truncated or longer than 400 bytes");
        return PARSE_BADCRED;
    }
    h->cred_end = len - r.left;
    h->verf_flavor = gk5i_xdr_get_u32(&r);
    h->verf = gk5i_xdr_get_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &h->verf_len);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "verifier truncated or longer than 400 bytes");
        return PARSE_BADVERF;
    }
    h->args = msg + (len - r.left);
    h->args_len = r.left;
    return PARSE_OK;
}

/* A reply verifier (opaque_auth). */
struct verf {
    uint32_t flavor;
    size_t len;
    uint8_t body[GK5I_RPC_MAX_AUTH_BYTES];
};

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    gk5i_put32(p, v);
    return p + 4;
}

static uint8_t *put_opaque(uint8_t *p, const void *data, size_t len)
{
    p = put_u32(p, (uint32_t)len);
    if (len != 0) {
        memcpy(p, data, len);
    }
    memset(p + len, 0, gk5i_xdr_pad(len));
    return p + len + gk5i_xdr_pad(len);
}

static size_t opaque_size(size_t len)
{
    return 4 + len + gk5i_xdr_pad(len);
}

/* xid, REPLY, MSG_ACCEPTED, verf, accept_stat. */
static size_t accepted_hdr_size(const struct verf *v)
{
    return 12 + 4 + opaque_size(v->len) + 4;
}

static uint8_t *put_accepted_hdr(uint8_t *p, uint32_t xid, const struct verf *v,
                                 uint32_t accept_stat)
{
    p = put_u32(p, xid);
    p = put_u32(p, RPC_MSG_REPLY);
    p = put_u32(p, RPC_MSG_ACCEPTED);
    p = put_u32(p, v->flavor);
    p = put_opaque(p, v->body, v->len);
    return put_u32(p, accept_stat);
}

/* An accepted reply: header, then body (already XDR-encoded, not wrapped:
 * control replies, mismatch_info, or unprotected results). */
GK5I_RPC_WUR static int reply_accepted(gk5_buffer *reply, uint32_t xid,
                                       const struct verf *v,
                                       uint32_t accept_stat, const void *body,
                                       size_t body_len, gk5_rpc_error *err)
{
    size_t hlen = accepted_hdr_size(v);
    uint8_t *buf;
    uint8_t *p;

    if (body_len > SIZE_MAX - hlen) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "reply too large");
        return -1;
    }
    buf = malloc(hlen + body_len);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    p = put_accepted_hdr(buf, xid, v, accept_stat);
    if (body_len != 0) {
        memcpy(p, body, body_len);
    }
    reply->value = buf;
    reply->length = hlen + body_len;
    return 0;
}

/* A rejected reply: RPC_MISMATCH (low, high) or AUTH_ERROR (auth_stat);
 * rejected replies carry no verifier. */
GK5I_RPC_WUR static int reply_rejected(gk5_buffer *reply, uint32_t xid,
                                       uint32_t reject_stat, uint32_t a,
                                       uint32_t b)
{
    size_t n = reject_stat == RPC_REJECT_MISMATCH ? 24 : 20;
    uint8_t *buf = malloc(n);
    uint8_t *p;

    if (buf == NULL) {
        return -1;
    }
    p = put_u32(buf, xid);
    p = put_u32(p, RPC_MSG_REPLY);
    p = put_u32(p, RPC_MSG_DENIED);
    p = put_u32(p, reject_stat);
    p = put_u32(p, a);
    if (reject_stat == RPC_REJECT_MISMATCH) {
        (void)put_u32(p, b);
    }
    reply->value = buf;
    reply->length = n;
    return 0;
}

/* RFC 2203 5.2.3.1: rpc_gss_init_res, in an accepted SUCCESS reply. */
GK5I_RPC_WUR static int reply_init_res(gk5_buffer *reply, uint32_t xid,
                                       const struct verf *v,
                                       const uint8_t *handle, size_t handle_len,
                                       uint32_t major, uint32_t minor,
                                       uint32_t window, const gk5_buffer *token,
                                       gk5_rpc_error *err)
{
    size_t tlen = token != NULL ? token->length : 0;
    size_t n;
    uint8_t *res;
    uint8_t *p;
    int rc;

    if (tlen > UINT32_MAX || tlen > SIZE_MAX / 2) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "context token too large");
        return -1;
    }
    n = opaque_size(handle_len) + 12 + opaque_size(tlen);
    res = malloc(n);
    if (res == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    p = put_opaque(res, handle, handle_len);
    p = put_u32(p, major);
    p = put_u32(p, minor);
    p = put_u32(p, window);
    (void)put_opaque(p, tlen != 0 ? token->value : NULL, tlen);
    rc = reply_accepted(reply, xid, v, GK5_RPC_SUCCESS, res, n, err);
    free(res);
    return rc;
}

static const struct verf verf_none = {.flavor = GK5_RPC_FLAVOR_NONE};

/* RFC 2203 5.2.3.1 / 5.3.3.2: a flavour 6 verifier, the MIC of a 32-bit
 * value (seq_window or seq_num) in network byte order. */
GK5I_RPC_WUR static int verf_mic_u32(gk5_ctx *ctx, uint32_t value,
                                     struct verf *v, gk5_rpc_error *err)
{
    v->flavor = GK5_RPC_FLAVOR_RPCSEC_GSS;
    v->len = 0;
    return gk5i_rpc_mic_u32(ctx, value, v->body, sizeof(v->body), &v->len, err);
}

/* ------------------------------------------------------------------ */
/* Verdicts                                                             */
/* ------------------------------------------------------------------ */

static void err_vset(gk5_rpc_error *err, int code, const char *fmt, va_list ap)
{
    char text[sizeof(((gk5_rpc_error *)0)->text)];

    (void)vsnprintf(text, sizeof(text), fmt, ap);
    gk5i_rpc_err(err, code, "%s", text);
}

/* AUTH_ERROR with auth_stat; err already says why. */
static gk5_rpc_verdict deny(gk5_buffer *reply, uint32_t xid, uint32_t auth_stat,
                            gk5_rpc_error *err)
{
    if (reply_rejected(reply, xid, RPC_REJECT_AUTH_ERROR, auth_stat, 0) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return GK5_RPC_CALL_DROP;
    }
    if (err != NULL) {
        err->auth_stat = auth_stat;
    }
    return GK5_RPC_CALL_REPLY;
}

__attribute__((format(printf, 6, 7))) static gk5_rpc_verdict
denyf(gk5_buffer *reply, uint32_t xid, uint32_t auth_stat, gk5_rpc_error *err,
      int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(err, code, fmt, ap);
    va_end(ap);
    return deny(reply, xid, auth_stat, err);
}

/* An accepted reply without results (GARBAGE_ARGS, SYSTEM_ERR...); err
 * already says why. */
static gk5_rpc_verdict accept_empty(gk5_buffer *reply, uint32_t xid,
                                    const struct verf *v, uint32_t stat,
                                    gk5_rpc_error *err)
{
    /* reply_accepted touches err only when it fails. */
    if (reply_accepted(reply, xid, v, stat, NULL, 0, err) != 0) {
        return GK5_RPC_CALL_DROP;
    }
    return GK5_RPC_CALL_REPLY;
}

__attribute__((format(printf, 3, 4))) static gk5_rpc_verdict
drop(gk5_rpc_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(err, code, fmt, ap);
    va_end(ap);
    return GK5_RPC_CALL_DROP;
}

static bool allowed(const gk5_rpc_server *srv, unsigned bit)
{
    return srv->flavors == 0 || (srv->flavors & bit) != 0;
}

GK5I_RPC_WUR static gk5_rpc_verdict
dispatch_call(const struct call_hdr *h, uint32_t flavor, gk5_rpc_service svc,
              uint32_t seq, struct sctx *sc, const uint8_t *args,
              size_t args_len, gk5_rpc_call **call, gk5_rpc_error *err)
{
    gk5_rpc_call *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        sctx_put(sc);
        return drop(err, GK5_RPC_E_NOMEM, "out of memory");
    }
    c->xid = h->xid;
    c->prog = h->prog;
    c->vers = h->vers;
    c->proc = h->proc;
    c->flavor = flavor;
    c->service = svc;
    c->seq = seq;
    c->sc = sc; /* the caller's reference moves into the call */
    c->cred = h->cred;
    c->cred_len = h->cred_len;
    c->args = args;
    c->args_len = args_len;
    *call = c;
    gk5i_rpc_err_clear(err);
    return GK5_RPC_CALL_DISPATCH;
}

/* ------------------------------------------------------------------ */
/* RPCSEC_GSS_INIT and CONTINUE_INIT (RFC 2203 5.2.2, 5.2.3)           */
/* ------------------------------------------------------------------ */

/* gss_minor as RFC 2203 5.2.3.1 means it, the mechanism's minor status:
 * for an MIT failure MIT's own minor (a libtirpc or kernel client shows it
 * with gss_display_status), for gk5's refusals gk5's code (which names the
 * enctype).  Read before anything else can overwrite this thread's MIT
 * error. */
static uint32_t wire_minor(uint32_t minor)
{
#ifdef GK5_RPC_WITH_MIT
    uint32_t mit_major = 0;
    uint32_t mit_minor = 0;
    const char *what = NULL;

    if (GK5_ERR_CODE(minor) != GK5_ERR_MIT) {
        return minor;
    }
    gk5_mit_last_error(&mit_major, &mit_minor, &what);
    return mit_minor;
#else
    return minor; /* built without MIT: every minor is gk5's */
#endif
}

/* The context could not be made: answer with the GSS status and an empty
 * handle (RFC 2203 5.2.3.1), keep nothing. */
static gk5_rpc_verdict init_failed(gk5_buffer *reply, const struct call_hdr *h,
                                   uint32_t window, uint32_t major,
                                   uint32_t minor, const gk5_buffer *token,
                                   const char *what, gk5_rpc_error *err)
{
    uint32_t wminor = wire_minor(minor);

    gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, what);
    if (reply_init_res(reply, h->xid, &verf_none, NULL, 0, major, wminor,
                       window, token, err) != 0) {
        return GK5_RPC_CALL_DROP;
    }
    return GK5_RPC_CALL_REPLY;
}

/* A complete gk5 context in sc->ctx becomes an RPCSEC_GSS one:
 * RPCSEC_GSS's own window instead of gk5's, the expiry.  GSS status with
 * minor; *info (may be NULL) is what gk5 says of the context. */
GK5I_RPC_WUR static uint32_t init_adopt(struct sctx *sc, uint32_t *minor,
                                        gk5_ctx_info *info)
{
    gk5_ctx_info got;
    uint32_t major;

    /* RFC 2203 5.3.3.1: the server keeps its own window over seq_num,
     * and replies are sent out of order; per-token replay detection in
     * gk5 would only refuse what RPCSEC_GSS allows (and the MIC tokens of
     * replies are checked by the client the same way). */
    major = gk5_ctx_set_flags(minor, sc->ctx, 0);
    if (GK5_ERROR(major)) {
        return major;
    }
    major = gk5_ctx_inquire(minor, sc->ctx, &got);
    if (GK5_ERROR(major)) {
        return major;
    }
    sc->endtime = got.endtime;
    if (info != NULL) {
        *info = got;
    }
    return GK5_S_COMPLETE;
}

#ifdef GK5_RPC_WITH_MIT
/* After MIT's acceptor completed: the gk5 context, adopted.  GSS status
 * with minor. */
GK5I_RPC_WUR static uint32_t init_finish(struct sctx *sc, uint32_t *minor)
{
    uint32_t major;

    major = gk5_mit_acceptor_finish(minor, sc->acc, &sc->principal,
                                    &sc->ret_flags, &sc->enctype, &sc->ctx);
    if (GK5_ERROR(major)) {
        return major;
    }
    major = init_adopt(sc, minor, NULL);
    if (GK5_ERROR(major)) {
        return major;
    }
    gk5_mit_acceptor_free(sc->acc);
    sc->acc = NULL;
    return GK5_S_COMPLETE;
}
#endif

/* The context is in the table (complete, or pending for MIT): answer with
 * its handle and the acceptor's token, and once complete the verifier, a
 * MIC of seq_window, which proves the server holds the context (RFC 2203
 * 5.2.3.1).  The context leaves the table again if the reply fails. */
static gk5_rpc_verdict init_reply(gk5_rpc_server *srv, const struct call_hdr *h,
                                  struct sctx *sc, uint32_t major,
                                  const gk5_buffer *token, gk5_buffer *reply,
                                  gk5_rpc_error *err)
{
    struct verf v = verf_none;

    if (major == GK5_S_COMPLETE &&
        verf_mic_u32(sc->ctx, srv->window, &v, err) != 0) {
        table_remove(srv, sc);
        return deny(reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err);
    }
    if (reply_init_res(reply, h->xid, &v, sc->handle, GK5I_RPC_HANDLE_LEN,
                       major, 0, srv->window, token, err) != 0) {
        table_remove(srv, sc);
        return GK5_RPC_CALL_DROP;
    }
    gk5i_rpc_err_clear(err);
    return GK5_RPC_CALL_REPLY;
}

/* Before an acceptor consumes the client's AP-REQ: room in the table and
 * a new context.  NULL with *verdict set when there is neither. */
static struct sctx *init_new_context(gk5_rpc_server *srv,
                                     const struct call_hdr *h,
                                     gk5_buffer *reply, gk5_rpc_error *err,
                                     gk5_rpc_verdict *verdict)
{
    struct sctx *sc;

    if (!table_reserve(srv)) {
        gk5i_rpc_err(err, GK5_RPC_E_CONTEXT,
                     "context table full: %zu contexts, all in use",
                     srv->max_contexts);
        *verdict =
            accept_empty(reply, h->xid, &verf_none, GK5_RPC_SYSTEM_ERR, err);
        return NULL;
    }
    sc = sctx_new();
    if (sc == NULL) {
        *verdict = drop(err, GK5_RPC_E_NOMEM, "out of memory");
    }
    return sc;
}

/* RPCSEC_GSS_INIT with gk5's acceptor: one leg, the context complete at
 * once, the AP-REP the reply's gss_token; a refusal answers gss_major,
 * gss_minor and the KRB-ERROR (RFC 2203 5.2.3.1). */
GK5I_RPC_WUR static gk5_rpc_verdict
init_native(gk5_rpc_server *srv, const struct call_hdr *h, const gk5_buffer *in,
            gk5_buffer *reply, gk5_rpc_error *err)
{
    struct gk5i_rpc_accepted acc;
    gk5_buffer out = {0, NULL};
    struct sctx *sc = NULL;
    gk5_rpc_verdict verdict;
    uint32_t major;
    uint32_t minor = 0;

    sc = init_new_context(srv, h, reply, err, &verdict);
    if (sc == NULL) {
        return verdict;
    }
    major = gk5i_rpc_accept_native(&minor, srv->native, in, &out, &acc);
    if (!GK5_ERROR(major)) {
        sc->ctx = acc.ctx; /* sctx_put frees them from here on */
        sc->principal = acc.principal;
        sc->ret_flags = acc.ret_flags;
        sc->enctype = acc.enctype;
        major = init_adopt(sc, &minor, NULL);
    }
    if (GK5_ERROR(major)) {
        char what[160];

        (void)snprintf(what, sizeof(what),
                       "accepting an RPCSEC_GSS context (gk5's acceptor)%s%s",
                       sc->principal != NULL ? " from " : "",
                       sc->principal != NULL ? sc->principal : "");
        verdict =
            init_failed(reply, h, srv->window, major, minor, &out, what, err);
        goto cleanup;
    }
    sc->state = SCTX_ESTABLISHED;
    if (table_insert(srv, sc, err) != 0) {
        verdict =
            accept_empty(reply, h->xid, &verf_none, GK5_RPC_SYSTEM_ERR, err);
        goto cleanup;
    }
    verdict = init_reply(srv, h, sc, major, &out, reply, err);
cleanup:
    gk5_buffer_release(&out);
    sctx_put(sc); /* the table holds a reference of its own */
    return verdict;
}

/* The context a CONTINUE_INIT names, with a reference; NULL with *verdict
 * set when it names none. */
static struct sctx *continue_lookup(gk5_rpc_server *srv,
                                    const struct call_hdr *h,
                                    const gk5i_rpc_cred *cred,
                                    gk5_buffer *reply, gk5_rpc_error *err,
                                    gk5_rpc_verdict *verdict)
{
    struct sctx *sc = NULL;

    switch (table_lookup(srv, cred->handle, cred->handle_len, &sc)) {
    case LOOKUP_FOUND:
        return sc;
    case LOOKUP_IDLE:
        *verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                         GK5_RPC_E_EXPIRED,
                         "RPCSEC_GSS_CONTINUE_INIT: the context was idle "
                         "too long and is gone");
        return NULL;
    default:
        *verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                         GK5_RPC_E_CONTEXT,
                         "RPCSEC_GSS_CONTINUE_INIT for an unknown handle");
        return NULL;
    }
}

#ifdef GK5_RPC_WITH_MIT
/* RPCSEC_GSS_INIT and CONTINUE_INIT with MIT's acceptor: as many legs as
 * gss_accept_sec_context asks for, the context pending in the table
 * between them. */
GK5I_RPC_WUR static gk5_rpc_verdict
init_mit(gk5_rpc_server *srv, const struct call_hdr *h,
         const gk5i_rpc_cred *cred, const gk5_buffer *in, gk5_buffer *reply,
         gk5_rpc_error *err)
{
    gk5_buffer out = {0, NULL};
    struct sctx *sc = NULL;
    struct sctx *fresh = NULL;
    uint32_t major;
    uint32_t minor = 0;
    gk5_rpc_verdict verdict;
    bool locked = false;

    if (cred->proc == GK5I_RPCSEC_GSS_INIT) {
        fresh = init_new_context(srv, h, reply, err, &verdict);
        if (fresh == NULL) {
            goto cleanup;
        }
        sc = fresh;
        major = gk5_mit_acceptor_create(&minor, srv->cred, &sc->acc);
        if (GK5_ERROR(major)) {
            verdict = init_failed(reply, h, srv->window, major, minor, NULL,
                                  "accepting an RPCSEC_GSS context", err);
            goto cleanup;
        }
    } else {
        sc = continue_lookup(srv, h, cred, reply, err, &verdict);
        if (sc == NULL) {
            goto cleanup;
        }
    }

    (void)pthread_mutex_lock(&sc->lock);
    locked = true;
    if (sc->state != SCTX_PENDING) {
        verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                        GK5_RPC_E_CONTEXT,
                        "RPCSEC_GSS_CONTINUE_INIT for an established context");
        goto cleanup;
    }
    major = gk5_mit_acceptor_step(&minor, sc->acc, in, &out);
    if (major == GK5_S_COMPLETE) {
        major = init_finish(sc, &minor);
        if (!GK5_ERROR(major)) {
            sc->state = SCTX_ESTABLISHED;
        }
    }
    if (GK5_ERROR(major)) {
        char what[160];

        (void)snprintf(what, sizeof(what),
                       "accepting an RPCSEC_GSS context%s%s",
                       sc->principal != NULL ? " from " : "",
                       sc->principal != NULL ? sc->principal : "");
        (void)pthread_mutex_unlock(&sc->lock);
        locked = false;
        if (sc != fresh) {
            table_remove(srv, sc);
        }
        verdict =
            init_failed(reply, h, srv->window, major, minor, &out, what, err);
        goto cleanup;
    }
    (void)pthread_mutex_unlock(&sc->lock);
    locked = false;

    if (sc == fresh && table_insert(srv, sc, err) != 0) {
        verdict =
            accept_empty(reply, h->xid, &verf_none, GK5_RPC_SYSTEM_ERR, err);
        goto cleanup;
    }
    verdict = init_reply(srv, h, sc, major, &out, reply, err);
cleanup:
    if (locked) {
        (void)pthread_mutex_unlock(&sc->lock);
    }
    gk5_buffer_release(&out);
    sctx_put(sc);
    return verdict;
}
#else
/* CONTINUE_INIT when every context is made by gk5's acceptor, in one leg:
 * it names an established context or none. */
GK5I_RPC_WUR static gk5_rpc_verdict
continue_init_one_leg(gk5_rpc_server *srv, const struct call_hdr *h,
                      const gk5i_rpc_cred *cred, gk5_buffer *reply,
                      gk5_rpc_error *err)
{
    gk5_rpc_verdict verdict;
    struct sctx *sc = continue_lookup(srv, h, cred, reply, err, &verdict);

    if (sc == NULL) {
        return verdict;
    }
    verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                    GK5_RPC_E_CONTEXT,
                    "RPCSEC_GSS_CONTINUE_INIT for an established context");
    sctx_put(sc);
    return verdict;
}
#endif

/* Whether the server has an acceptor credential: gk5's or MIT's. */
static bool has_acceptor_cred(const gk5_rpc_server *srv)
{
#ifdef GK5_RPC_WITH_MIT
    return srv->native != NULL || srv->cred != NULL;
#else
    return srv->native != NULL;
#endif
}

GK5I_RPC_WUR static gk5_rpc_verdict
gss_init(gk5_rpc_server *srv, const struct call_hdr *h,
         const gk5i_rpc_cred *cred, gk5_buffer *reply, gk5_rpc_error *err)
{
    struct gk5i_rd r;
    gk5_buffer in = {0, NULL};

    if (!has_acceptor_cred(srv)) {
        return denyf(reply, h->xid, GK5I_AUTH_TOOWEAK, err, GK5_RPC_E_SERVICE,
                     "this server has no acceptor credential (no RPCSEC_GSS "
                     "service is allowed)");
    }
    /* RFC 2203 5.2.2: the argument is rpc_gss_init_arg, opaque<>. */
    gk5i_rd_init(&r, h->args, h->args_len);
    in.value =
        (void *)(uintptr_t)gk5i_xdr_get_opaque(&r, MAX_INIT_TOKEN, &in.length);
    if (r.bad || r.left != 0) {
        gk5i_rpc_err(
            err,
            r.bad && h->args_len > MAX_INIT_TOKEN ? GK5_RPC_E_TOO_BIG
                                                  : GK5_RPC_E_MALFORMED,
            "RPCSEC_GSS_%s argument is not one opaque<> token",
            cred->proc == GK5I_RPCSEC_GSS_INIT ? "INIT" : "CONTINUE_INIT");
        return accept_empty(reply, h->xid, &verf_none, GK5_RPC_GARBAGE_ARGS,
                            err);
    }
    /* RFC 2203 5.2.2: INIT carries no handle. */
    if (cred->proc == GK5I_RPCSEC_GSS_INIT && cred->handle_len != 0) {
        return denyf(reply, h->xid, GK5I_AUTH_BADCRED, err, GK5_RPC_E_MALFORMED,
                     "RPCSEC_GSS_INIT with a context handle");
    }
    /* gk5's acceptor completes every context in one leg: a CONTINUE_INIT
     * names an established context or none, which init_mit answers. */
    if (srv->native != NULL && cred->proc == GK5I_RPCSEC_GSS_INIT) {
        return init_native(srv, h, &in, reply, err);
    }
#ifdef GK5_RPC_WITH_MIT
    return init_mit(srv, h, cred, &in, reply, err);
#else
    return continue_init_one_leg(srv, h, cred, reply, err);
#endif
}

/* ------------------------------------------------------------------ */
/* RPCSEC_GSS_DATA and DESTROY (RFC 2203 5.3.3, 5.4)                   */
/* ------------------------------------------------------------------ */

/* May this context carry svc?  Kerberos grants integrity and
 * confidentiality together, but the flags say what was granted. */
static bool context_allows(const struct sctx *sc, gk5_rpc_service svc)
{
    if (svc == GK5_RPC_SVC_PRIVACY) {
        return (sc->ret_flags & GK5_C_CONF_FLAG) != 0;
    }
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        return (sc->ret_flags & GK5_C_INTEG_FLAG) != 0;
    }
    return true;
}

/* RFC 2203 5.3.3.1 up to and including the header MIC of a DATA or
 * DESTROY call: the context, its state and expiry, MAXSEQ, the service, a
 * first look at the window (which changes nothing) and the verifier.
 * GK5_RPC_CALL_DISPATCH with *out (a reference for the caller) when the
 * header is authentic and its number may be new; otherwise the call's
 * verdict (a reply or a drop), *out NULL.  Nothing here moves the window,
 * so gk5i_rpc_server_precheck may ask before the body has arrived. */
GK5I_RPC_WUR static gk5_rpc_verdict
gss_authenticate(gk5_rpc_server *srv, const struct call_hdr *h,
                 const gk5i_rpc_cred *cred, struct sctx **out,
                 gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_rpc_service svc = (gk5_rpc_service)cred->service;
    bool destroy = cred->proc == GK5I_RPCSEC_GSS_DESTROY;
    struct sctx *sc = NULL;
    enum sctx_state state;
    gk5_rpc_verdict verdict;

    *out = NULL;
    switch (table_lookup(srv, cred->handle, cred->handle_len, &sc)) {
    case LOOKUP_FOUND:
        break;
    case LOOKUP_IDLE:
        return denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                     GK5_RPC_E_EXPIRED,
                     "the context was idle too long and is gone");
    default:
        return denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                     GK5_RPC_E_CONTEXT, "no context with this handle");
    }
    (void)pthread_mutex_lock(&sc->lock);
    state = sc->state;
    (void)pthread_mutex_unlock(&sc->lock);
    if (state != SCTX_ESTABLISHED) {
        verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                        GK5_RPC_E_CONTEXT, "the context is not established");
        goto cleanup;
    }
    /* The server's clock decides, so removing it cannot be forced. */
    if (sc->endtime != 0 && (uint64_t)time(NULL) >= sc->endtime) {
        table_remove(srv, sc);
        verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err,
                        GK5_RPC_E_EXPIRED, "the context has expired");
        goto cleanup;
    }
    /* RFC 2203 5.3.3.1: a client never sends MAXSEQ or more; it must make
     * a new context.  Checked before the MIC and changing nothing, so a
     * forged call gains nothing by it. */
    if (cred->seq >= GK5_RPC_MAXSEQ) {
        verdict = denyf(reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err,
                        GK5_RPC_E_CONTEXT,
                        "sequence number %u is at or above MAXSEQ", cred->seq);
        goto cleanup;
    }
    if (!destroy && !context_allows(sc, svc)) {
        verdict =
            denyf(reply, h->xid, GK5I_AUTH_BADCRED, err, GK5_RPC_E_SERVICE,
                  "the context was not granted %s", gk5_rpc_service_name(svc));
        goto cleanup;
    }
    /* RFC 2203 5.3.3.1: replays and numbers below the window are
     * discarded without a reply.  This first look changes nothing; it
     * spares the MIC for the obvious cases. */
    if (window_check(sc, srv->window, cred->seq, false) != SEQ_NEW) {
        verdict =
            drop(err, GK5_RPC_E_SEQ_MISMATCH,
                 "sequence number %u replayed or below the window", cred->seq);
        goto cleanup;
    }
    /* RFC 2203 5.3.1: the verifier is the MIC of the header from the xid
     * through the credential.  RFC 2203 5.3.3.4.2: a failed GSS_VerifyMIC
     * on it is answered AUTH_ERROR RPCSEC_GSS_CREDPROBLEM, which tells
     * the client to make a new context (BADVERF would not), and says
     * nothing about why. */
    if (h->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        gk5i_rpc_verify(sc->ctx, h->msg, h->cred_end, h->verf, h->verf_len,
                        err) != 0) {
        if (h->verf_flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
            gk5i_rpc_err(err, GK5_RPC_E_BAD_VERIFIER,
                         "verifier flavour %u, not RPCSEC_GSS", h->verf_flavor);
        }
        verdict = deny(reply, h->xid, GK5I_RPCSEC_GSS_CREDPROBLEM, err);
        goto cleanup;
    }
    *out = sc;
    return GK5_RPC_CALL_DISPATCH;
cleanup:
    sctx_put(sc);
    return verdict;
}

GK5I_RPC_WUR static gk5_rpc_verdict
gss_data(gk5_rpc_server *srv, const struct call_hdr *h,
         const gk5i_rpc_cred *cred, gk5_rpc_call **call, gk5_buffer *reply,
         gk5_rpc_error *err)
{
    gk5_rpc_service svc = (gk5_rpc_service)cred->service;
    bool destroy = cred->proc == GK5I_RPCSEC_GSS_DESTROY;
    struct sctx *sc = NULL;
    struct verf v;
    uint8_t *data = NULL;
    size_t data_len = 0;
    size_t used = 0;
    gk5_rpc_verdict verdict;

    verdict = gss_authenticate(srv, h, cred, &sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    /* (The same window_check as the first look in gss_authenticate, on
     * purpose.) */
    /* Only now, authenticated, may the number mark the window.  Asked
     * again under the lock: a copy may have passed its MIC meanwhile. */
    if (window_check(sc, srv->window, cred->seq, true) != SEQ_NEW) {
        verdict =
            drop(err, GK5_RPC_E_SEQ_MISMATCH,
                 "sequence number %u replayed or below the window", cred->seq);
        goto cleanup;
    }
    /* RFC 2203 5.3.3.2: the reply's verifier is the MIC of seq_num; also
     * needed for GARBAGE_ARGS below.  RFC 2203 5.3.3.4.1: a failed
     * GSS_GetMIC is RPCSEC_GSS_CTXPROBLEM. */
    if (verf_mic_u32(sc->ctx, cred->seq, &v, err) != 0) {
        verdict = deny(reply, h->xid, GK5I_RPCSEC_GSS_CTXPROBLEM, err);
        goto cleanup;
    }

    if (destroy) {
        /* RFC 2203 5.4: a DESTROY is verified like a data call and
         * answered with a void result and the verifier; the context goes
         * after that (wiped once no running call holds it).  Its
         * arguments, void under the call's service, are not opened. */
        verdict = accept_empty(reply, h->xid, &v, GK5_RPC_SUCCESS, err);
        table_remove(srv, sc);
        if (verdict == GK5_RPC_CALL_REPLY) {
            gk5i_rpc_err_clear(err);
        }
        goto cleanup;
    }

    if (svc == GK5_RPC_SVC_NONE) {
        if (h->args_len > srv->max_body) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "arguments of %zu bytes exceed max_body %zu",
                         h->args_len, srv->max_body);
            verdict =
                accept_empty(reply, h->xid, &v, GK5_RPC_GARBAGE_ARGS, err);
            goto cleanup;
        }
        data = h->args;
        data_len = h->args_len;
    } else if (gk5i_rpc_body_open(sc->ctx, svc, cred->seq, h->args, h->args_len,
                                  srv->max_body, &data, &data_len, &used,
                                  err) != 0 ||
               used != h->args_len) {
        /* RFC 2203 5.3.3.4.2 and 5.3.3.4.3: a body that fails its check
         * (or does not decode) is GARBAGE_ARGS, not a silent discard: the
         * header was authentic, so the client is told at once instead of
         * waiting out a timeout, and the reply is MIC'd like any other.
         * The context is untouched (gk5 changes no state for a failed
         * token) and the number stays used: it was authenticated, and RFC
         * 2203 5.3.3.1 has clients send a new one on every retry. */
        if (data != NULL) {
            zap(data, data_len); /* decoded but followed by junk */
            gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                         "%zu bytes after the %s body", h->args_len - used,
                         gk5_rpc_service_name(svc));
        }
        verdict = accept_empty(reply, h->xid, &v, GK5_RPC_GARBAGE_ARGS, err);
        goto cleanup;
    }
    verdict = dispatch_call(h, GK5_RPC_FLAVOR_RPCSEC_GSS, svc, cred->seq, sc,
                            data, data_len, call, err);
    sc = NULL; /* the call holds it now */
cleanup:
    sctx_put(sc);
    return verdict;
}

/* The RPCSEC_GSS credential: decoded, a known service and procedure, the
 * service allowed.  GK5_RPC_CALL_DISPATCH to go on; else the verdict. */
GK5I_RPC_WUR static gk5_rpc_verdict
gss_cred(const gk5_rpc_server *srv, const struct call_hdr *h,
         gk5i_rpc_cred *cred, gk5_buffer *reply, gk5_rpc_error *err)
{
    /* RFC 2203 5.3.3.1: version, service, handle, then the verifier. */
    if (gk5i_rpc_cred_decode(h->cred, h->cred_len, cred, err) != 0) {
        return deny(reply, h->xid, GK5I_AUTH_BADCRED, err);
    }
    if (cred->service < GK5_RPC_SVC_NONE ||
        cred->service > GK5_RPC_SVC_PRIVACY) {
        return denyf(reply, h->xid, GK5I_AUTH_BADCRED, err, GK5_RPC_E_MALFORMED,
                     "unknown RPCSEC_GSS service %u", cred->service);
    }
    /* A DESTROY must get through whatever the policy, or the client could
     * never release a context made under an older one. */
    if (cred->proc != GK5I_RPCSEC_GSS_DESTROY &&
        !allowed(srv, GK5_RPC_ALLOW_GSS(cred->service))) {
        return denyf(reply, h->xid, GK5I_AUTH_TOOWEAK, err, GK5_RPC_E_SERVICE,
                     "RPCSEC_GSS %s is not allowed here",
                     gk5_rpc_service_name((gk5_rpc_service)cred->service));
    }
    if (cred->proc > GK5I_RPCSEC_GSS_DESTROY) {
        return denyf(reply, h->xid, GK5I_AUTH_BADCRED, err, GK5_RPC_E_MALFORMED,
                     "unknown RPCSEC_GSS procedure %u", cred->proc);
    }
    return GK5_RPC_CALL_DISPATCH;
}

GK5I_RPC_WUR static gk5_rpc_verdict
process_gss(gk5_rpc_server *srv, const struct call_hdr *h, gk5_rpc_call **call,
            gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5i_rpc_cred cred;
    gk5_rpc_verdict verdict = gss_cred(srv, h, &cred, reply, err);

    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    if (cred.proc == GK5I_RPCSEC_GSS_INIT ||
        cred.proc == GK5I_RPCSEC_GSS_CONTINUE_INIT) {
        return gss_init(srv, h, &cred, reply, err);
    }
    return gss_data(srv, h, &cred, call, reply, err); /* DATA, DESTROY */
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                  */
/* ------------------------------------------------------------------ */

/* The call header (RFC 5531 9) up to the arguments: GK5_RPC_CALL_DISPATCH
 * to go on, else the verdict (RPC_MISMATCH, AUTH_BADCRED, AUTH_BADVERF, or
 * a drop). */
static gk5_rpc_verdict header_verdict(uint8_t *msg, size_t len,
                                      struct call_hdr *h, gk5_buffer *reply,
                                      gk5_rpc_error *err)
{
    switch (parse_call(msg, len, h, err)) {
    case PARSE_OK:
        break;
    case PARSE_DROP:
        return GK5_RPC_CALL_DROP;
    case PARSE_MISMATCH:
        if (reply_rejected(reply, h->xid, RPC_REJECT_MISMATCH, RPC_VERSION,
                           RPC_VERSION) != 0) {
            return drop(err, GK5_RPC_E_NOMEM, "out of memory");
        }
        return GK5_RPC_CALL_REPLY;
    case PARSE_BADCRED:
        return deny(reply, h->xid, GK5I_AUTH_BADCRED, err);
    case PARSE_BADVERF:
        return deny(reply, h->xid, GK5I_AUTH_BADVERF, err);
    }
    return GK5_RPC_CALL_DISPATCH;
}

/* RFC 5531 9: AUTH_TOOWEAK, "rejected for security reasons", is what
 * makes a client (NFS's SECINFO, for one) try another flavour. */
static gk5_rpc_verdict
flavor_refused(gk5_buffer *reply, const struct call_hdr *h, gk5_rpc_error *err)
{
    return denyf(reply, h->xid, GK5I_AUTH_TOOWEAK, err, GK5_RPC_E_SERVICE,
                 "flavour %u is not allowed here", h->cred_flavor);
}

static gk5_rpc_verdict process(gk5_rpc_server *srv, uint8_t *msg, size_t len,
                               gk5_rpc_call **call, gk5_buffer *reply,
                               gk5_rpc_error *err)
{
    struct call_hdr h;
    gk5_rpc_verdict verdict = header_verdict(msg, len, &h, reply, err);

    if (verdict != GK5_RPC_CALL_DISPATCH) {
        return verdict;
    }
    switch (h.cred_flavor) {
    case GK5_RPC_FLAVOR_NONE:
    case GK5_RPC_FLAVOR_SYS:
        if (!allowed(srv, 1u << h.cred_flavor)) {
            break;
        }
        if (h.args_len > srv->max_body) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "arguments of %zu bytes exceed max_body %zu",
                         h.args_len, srv->max_body);
            return accept_empty(reply, h.xid, &verf_none, GK5_RPC_GARBAGE_ARGS,
                                err);
        }
        return dispatch_call(&h, h.cred_flavor, 0, 0, NULL, h.args, h.args_len,
                             call, err);
    case GK5_RPC_FLAVOR_RPCSEC_GSS:
        return process_gss(srv, &h, call, reply, err);
    default:
        break;
    }
    return flavor_refused(reply, &h, err);
}

/* What a record's first bytes earn (tcp_server.c): the same parsing and
 * the same checks as process(), up to the header MIC, and nothing that
 * changes state but the context's place in the LRU list (as any lookup). */
enum gk5i_rpc_pre gk5i_rpc_server_precheck(gk5_rpc_server *srv,
                                           const uint8_t *msg, size_t len,
                                           size_t *limit, gk5_buffer *reply,
                                           gk5_rpc_error *err)
{
    struct call_hdr h;
    gk5i_rpc_cred cred;
    struct sctx *sc = NULL;
    gk5_rpc_verdict verdict;

    reply->length = 0;
    reply->value = NULL;
    *limit = 0;
    gk5i_rpc_err_clear(err);
    /* parse_call writes nothing; its args pointer is not used here. */
    verdict = header_verdict((uint8_t *)(uintptr_t)msg, len, &h, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    switch (h.cred_flavor) {
    case GK5_RPC_FLAVOR_NONE:
    case GK5_RPC_FLAVOR_SYS:
        if (allowed(srv, 1u << h.cred_flavor)) {
            *limit = srv->max_body + RECORD_HEADROOM;
            return GK5I_RPC_PRE_UNAUTH;
        }
        verdict = flavor_refused(reply, &h, err);
        goto refused;
    case GK5_RPC_FLAVOR_RPCSEC_GSS:
        break;
    default:
        verdict = flavor_refused(reply, &h, err);
        goto refused;
    }
    verdict = gss_cred(srv, &h, &cred, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    if (cred.proc == GK5I_RPCSEC_GSS_INIT ||
        cred.proc == GK5I_RPCSEC_GSS_CONTINUE_INIT) {
        *limit = GK5I_RPC_INIT_MAX + RECORD_HEADROOM;
        return GK5I_RPC_PRE_INIT;
    }
    verdict = gss_authenticate(srv, &h, &cred, &sc, reply, err);
    if (verdict != GK5_RPC_CALL_DISPATCH) {
        goto refused;
    }
    sctx_put(sc);
    *limit = srv->max_body + RECORD_HEADROOM;
    return GK5I_RPC_PRE_AUTH;
refused:
    return verdict == GK5_RPC_CALL_REPLY ? GK5I_RPC_PRE_REPLY
                                         : GK5I_RPC_PRE_DROP;
}

gk5_rpc_verdict gk5_rpc_server_process(gk5_rpc_server *srv, void *msg,
                                       size_t len, gk5_rpc_call **call,
                                       gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_rpc_verdict verdict;

    if (call != NULL) {
        *call = NULL;
    }
    if (reply != NULL) {
        reply->length = 0;
        reply->value = NULL;
    }
    gk5i_rpc_err_clear(err);
    if (srv == NULL || (msg == NULL && len != 0) || call == NULL ||
        reply == NULL) {
        return drop(err, GK5_RPC_E_INVALID,
                    "gk5_rpc_server_process: NULL argument");
    }
    verdict = process(srv, msg, len, call, reply, err);
    /* After the lookup, so that a client whose own context idled out is
     * told so rather than "no such context". */
    table_sweep(srv);
    return verdict;
}

/* Results sealed in place: one buffer laid out as
 * [reply header + verifier][room head][seq_num + results][room tail], so
 * the results are copied once and wrapped where they lie (RFC 2203
 * 5.3.2.2, 5.3.2.3).  0; -1 (memory, size); 1 when GSS failed (err). */
GK5I_RPC_WUR static int reply_sealed(gk5_rpc_call *call, const struct verf *v,
                                     const void *results, size_t len,
                                     gk5_buffer *reply, gk5_rpc_error *err)
{
    gk5_ctx *ctx = call->sc->ctx;
    size_t hlen = accepted_hdr_size(v);
    size_t head = 0;
    size_t tail = 0;
    size_t off = 0;
    size_t out_len = 0;
    size_t cap;
    uint8_t *buf = NULL;
    uint8_t *base;
    int rc = -1;

    if (len > SIZE_MAX / 2 - 4) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "results too large");
        goto cleanup;
    }
    if (gk5i_rpc_body_room(ctx, call->service, 4 + len, &head, &tail, err) !=
        0) {
        rc = 1;
        goto cleanup;
    }
    if (head > SIZE_MAX / 4 || tail > SIZE_MAX / 4) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG, "results too large");
        goto cleanup;
    }
    cap = head + 4 + len + tail;
    buf = malloc(hlen + cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        goto cleanup;
    }
    base = buf + hlen;
    gk5i_put32(base + head, call->seq);
    if (len != 0) {
        memcpy(base + head + 4, results, len);
    }
    if (gk5i_rpc_body_seal(ctx, call->service, base, head, 4 + len, cap, &off,
                           &out_len, err) != 0) {
        rc = 1;
        goto cleanup;
    }
    if (off != 0) {
        /* The encoding starts where the room asked for ends (off 0); only
         * a layout that left a gap pays this move. */
        memmove(base, base + off, out_len);
    }
    (void)put_accepted_hdr(buf, call->xid, v, GK5_RPC_SUCCESS);
    reply->value = buf;
    reply->length = hlen + out_len;
    buf = NULL;
    rc = 0;
cleanup:
    if (buf != NULL) {
        zap(buf, hlen + cap); /* plaintext results */
        free(buf);
    }
    return rc;
}

/* RFC 2203 5.3.3.4.1 and 5.3.3.4.4: when GSS_GetMIC or GSS_Wrap fails on
 * a reply (say the context expired while the call ran) the answer is
 * AUTH_ERROR RPCSEC_GSS_CTXPROBLEM, so the client makes a new context.
 * 0 (the rejection is built; err keeps why), or -1. */
GK5I_RPC_WUR static int reply_ctxproblem(gk5_buffer *reply, uint32_t xid,
                                         gk5_rpc_error *err)
{
    if (reply_rejected(reply, xid, RPC_REJECT_AUTH_ERROR,
                       GK5I_RPCSEC_GSS_CTXPROBLEM, 0) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory building a reply");
        return -1;
    }
    if (err != NULL) {
        err->auth_stat = GK5I_RPCSEC_GSS_CTXPROBLEM;
    }
    return 0;
}

int gk5_rpc_server_reply(gk5_rpc_server *srv, gk5_rpc_call *call,
                         uint32_t accept_stat, const void *results, size_t len,
                         gk5_buffer *reply, gk5_rpc_error *err)
{
    struct verf v = verf_none;
    uint8_t mismatch[8];
    const void *body = NULL;
    size_t body_len = 0;
    bool gss;
    int rc = -1;

    if (reply != NULL) {
        reply->length = 0;
        reply->value = NULL;
    }
    gk5i_rpc_err_clear(err);
    if (srv == NULL || call == NULL || reply == NULL ||
        accept_stat > GK5_RPC_SYSTEM_ERR || (results == NULL && len != 0)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_server_reply: bad argument");
        goto cleanup;
    }
    gss = call->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS;
    /* RFC 2203 5.3.3.2: the verifier is the MIC of the call's seq_num. */
    if (gss && verf_mic_u32(call->sc->ctx, call->seq, &v, err) != 0) {
        rc = reply_ctxproblem(reply, call->xid, err);
        goto cleanup;
    }
    if (accept_stat == GK5_RPC_SUCCESS && gss &&
        call->service != GK5_RPC_SVC_NONE) {
        rc = reply_sealed(call, &v, results, len, reply, err);
        if (rc > 0) {
            rc = reply_ctxproblem(reply, call->xid, err);
        }
        goto cleanup;
    }
    if (accept_stat == GK5_RPC_SUCCESS) {
        body = results;
        body_len = len;
    } else if (accept_stat == GK5_RPC_PROG_MISMATCH) {
        /* RFC 5531 9: mismatch_info {low, high}, never wrapped.  The
         * program may pass those 8 bytes; otherwise this version only. */
        if (len == sizeof(mismatch)) {
            memcpy(mismatch, results, sizeof(mismatch));
        } else {
            gk5i_put32(mismatch, call->vers);
            gk5i_put32(mismatch + 4, call->vers);
        }
        body = mismatch;
        body_len = sizeof(mismatch);
    }
    /* Other accept_stat values carry nothing (RFC 5531 9). */
    rc = reply_accepted(reply, call->xid, &v, accept_stat, body, body_len, err);
cleanup:
    gk5_rpc_call_free(call);
    return rc;
}

void gk5_rpc_call_free(gk5_rpc_call *call)
{
    if (call == NULL) {
        return;
    }
    sctx_put(call->sc);
    free(call);
}

int gk5_rpc_server_create(const gk5_rpc_server_options *opts,
                          gk5_rpc_server **out, gk5_rpc_error *err)
{
    static const gk5_rpc_server_options defaults;
    gk5_rpc_server *srv = NULL;
#ifdef GK5_RPC_WITH_MIT
    uint32_t major;
    uint32_t minor = 0;
#endif
    int rc = -1;

    gk5i_rpc_err_clear(err);
    if (out == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_server_create: out is NULL");
        return -1;
    }
    *out = NULL;
    if (opts == NULL) {
        opts = &defaults;
    }
    if (opts->window > MAX_WINDOW) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "window %u: must be 1..%u (0: %u)",
                     opts->window, MAX_WINDOW, DEFAULT_WINDOW);
        return -1;
    }
    if (opts->establish != GK5_RPC_ESTABLISH_NATIVE &&
        opts->establish != GK5_RPC_ESTABLISH_MIT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "establish %d: must be GK5_RPC_ESTABLISH_NATIVE (0) or "
                     "GK5_RPC_ESTABLISH_MIT (1)",
                     (int)opts->establish);
        return -1;
    }
    if (!gk5_rpc_establish_available(opts->establish)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "establish GK5_RPC_ESTABLISH_MIT: %s",
                     GK5I_RPC_NO_MIT_WORDS);
        return -1;
    }
    srv = calloc(1, sizeof(*srv));
    if (srv == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    (void)pthread_mutex_init(&srv->lock, NULL);
    srv->window = opts->window != 0 ? opts->window : DEFAULT_WINDOW;
    srv->max_contexts =
        opts->max_contexts != 0 ? opts->max_contexts : DEFAULT_MAX_CONTEXTS;
    srv->idle_timeout =
        opts->idle_timeout != 0 ? opts->idle_timeout : DEFAULT_IDLE_TIMEOUT;
    srv->flavors = opts->flavors;
    srv->establish = opts->establish;
    srv->max_body = opts->max_body != 0 ? opts->max_body : DEFAULT_MAX_BODY;
    if (srv->max_body > SIZE_MAX - RECORD_HEADROOM) {
        srv->max_body = SIZE_MAX - RECORD_HEADROOM;
    }
    srv->nbuckets = MIN_BUCKETS;
    srv->buckets = calloc(srv->nbuckets, sizeof(*srv->buckets));
    if (srv->buckets == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    /* A server that allows no RPCSEC_GSS service needs no keytab. */
    unsigned gss_bits = GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_NONE) |
                        GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_INTEGRITY) |
                        GK5_RPC_ALLOW_GSS(GK5_RPC_SVC_PRIVACY);
    if (srv->flavors != 0 && (srv->flavors & gss_bits) == 0) {
        *out = srv;
        return 0;
    }
    if (srv->establish == GK5_RPC_ESTABLISH_NATIVE) {
        if (gk5i_rpc_native_cred(opts, &srv->native, err) != 0) {
            goto cleanup;
        }
        *out = srv;
        return 0;
    }
#ifdef GK5_RPC_WITH_MIT
    major = gk5_mit_acceptor_cred_create(&minor, opts->keytab, opts->principal,
                                         &srv->cred);
    if (GK5_ERROR(major)) {
        char what[300];

        (void)snprintf(
            what, sizeof(what), "acceptor credential for %s from keytab %s",
            opts->principal != NULL ? opts->principal : "any principal",
            opts->keytab != NULL ? opts->keytab : "(KRB5_KTNAME or default)");
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, what);
        goto cleanup;
    }
    *out = srv;
    srv = NULL;
    rc = 0;
#endif
cleanup:
    gk5_rpc_server_free(srv);
    return rc;
}

void gk5_rpc_server_free(gk5_rpc_server *srv)
{
    size_t i;

    if (srv == NULL) {
        return;
    }
    for (i = 0; srv->buckets != NULL && i < srv->nbuckets; i++) {
        while (srv->buckets[i] != NULL) {
            struct sctx *sc = srv->buckets[i];

            table_unlink_locked(srv, sc);
            sctx_put(sc);
        }
    }
    free(srv->buckets);
    gk5_acceptor_cred_free(srv->native);
#ifdef GK5_RPC_WITH_MIT
    gk5_mit_acceptor_cred_free(srv->cred);
#endif
    (void)pthread_mutex_destroy(&srv->lock);
    free(srv);
}

size_t gk5_rpc_server_contexts(const gk5_rpc_server *srv)
{
    return srv != NULL ? atomic_load(&srv->count) : 0;
}

void gk5i_rpc_server_limits(const gk5_rpc_server *srv, size_t *max_record,
                            uint32_t *idle_timeout)
{
    *max_record =
        (srv->max_body > MAX_INIT_TOKEN ? srv->max_body : MAX_INIT_TOKEN) +
        RECORD_HEADROOM;
    *idle_timeout = srv->idle_timeout;
}

/* ---- The call's accessors ---- */

uint32_t gk5_rpc_call_xid(const gk5_rpc_call *call)
{
    return call != NULL ? call->xid : 0;
}

uint32_t gk5_rpc_call_prog(const gk5_rpc_call *call)
{
    return call != NULL ? call->prog : 0;
}

uint32_t gk5_rpc_call_vers(const gk5_rpc_call *call)
{
    return call != NULL ? call->vers : 0;
}

uint32_t gk5_rpc_call_proc(const gk5_rpc_call *call)
{
    return call != NULL ? call->proc : 0;
}

uint32_t gk5_rpc_call_flavor(const gk5_rpc_call *call)
{
    return call != NULL ? call->flavor : 0;
}

gk5_rpc_service gk5_rpc_call_service(const gk5_rpc_call *call)
{
    return call != NULL ? call->service : (gk5_rpc_service)0;
}

const char *gk5_rpc_call_principal(const gk5_rpc_call *call)
{
    return call != NULL && call->sc != NULL ? call->sc->principal : NULL;
}

int32_t gk5_rpc_call_enctype(const gk5_rpc_call *call)
{
    return call != NULL && call->sc != NULL ? call->sc->enctype : 0;
}

const void *gk5_rpc_call_cred(const gk5_rpc_call *call, size_t *len)
{
    if (len != NULL) {
        *len = call != NULL ? call->cred_len : 0;
    }
    return call != NULL ? call->cred : NULL;
}

const void *gk5_rpc_call_args(const gk5_rpc_call *call, size_t *len)
{
    if (len != NULL) {
        *len = call != NULL ? call->args_len : 0;
    }
    return call != NULL ? call->args : NULL;
}

/* ------------------------------------------------------------------ */
/* Test seams (tests/fuzz/fuzz_rpc_call.c): not exported                */
/* ------------------------------------------------------------------ */

int gk5i_rpc_server_create_nocred(const gk5_rpc_server_options *opts,
                                  gk5_rpc_server **out, gk5_rpc_error *err)
{
    gk5_rpc_server_options o = {0};
    unsigned flavors;

    if (opts != NULL) {
        o = *opts;
    }
    flavors = o.flavors;
    /* Asked for no RPCSEC_GSS service, gk5_rpc_server_create makes no
     * acceptor credential; then the policy the caller wants. */
    o.flavors = GK5_RPC_ALLOW_NONE;
    if (gk5_rpc_server_create(&o, out, err) != 0) {
        return -1;
    }
    (*out)->flavors = flavors;
    return 0;
}

int gk5i_rpc_server_add_context(gk5_rpc_server *srv, gk5_ctx *ctx,
                                const char *principal,
                                uint8_t handle[GK5I_RPC_HANDLE_LEN],
                                gk5_rpc_error *err)
{
    struct sctx *sc = NULL;
    gk5_ctx_info info;
    uint32_t major;
    uint32_t minor = 0;
    int rc = -1;

    gk5i_rpc_err_clear(err);
    if (srv == NULL || ctx == NULL || principal == NULL || handle == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5i_rpc_server_add_context: NULL argument");
        gk5_ctx_free(ctx);
        return -1;
    }
    sc = sctx_new();
    if (sc == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        gk5_ctx_free(ctx);
        return -1;
    }
    sc->ctx = ctx; /* sctx_put frees it from here on */
    sc->principal = strdup(principal);
    if (sc->principal == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        goto cleanup;
    }
    /* What an acceptor's context goes through: RPCSEC_GSS's own window
     * instead of gk5's, the expiry. */
    major = init_adopt(sc, &minor, &info);
    if (GK5_ERROR(major)) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "adopting an established context");
        goto cleanup;
    }
    sc->enctype = info.enctype;
    sc->endtime = info.endtime;
    /* What MIT grants every krb5 context it accepts. */
    sc->ret_flags = GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG;
    sc->state = SCTX_ESTABLISHED;
    if (table_insert(srv, sc, err) != 0) {
        goto cleanup;
    }
    memcpy(handle, sc->handle, GK5I_RPC_HANDLE_LEN);
    rc = 0;
cleanup:
    sctx_put(sc); /* the table holds a reference of its own */
    return rc;
}
