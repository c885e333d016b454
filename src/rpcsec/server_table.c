/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS server's contexts (RFC 2203 5.2.3.1 ties a context to
 * its handle and nothing else): a hash table keyed by the handle (16
 * random bytes, GK5I_RPC_HANDLE_LEN), an LRU list for eviction and idle
 * expiry, each context reference counted so that a DESTROY, an eviction
 * or an expiry never frees a context a running call still holds.  Lock
 * order: the table lock and a context's lock are never held together.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "rpcsec/server_int.h"

/* Buckets: start small, double at load factor 1, up to this. */
#define MIN_BUCKETS 64u
#define MAX_BUCKETS ((size_t)1 << 20)

/* How many idle-expired contexts one call may sweep (keeps process O(1)). */
#define SWEEP_PER_CALL 4u
/* How far from the LRU end eviction looks for a context no call holds. */
#define EVICT_SCAN 64u

static uint64_t now_mono(void)
{
    struct timespec ts;

    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec;
}

struct sctx *gk5i_sctx_new(void)
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

void gk5i_sctx_put(struct sctx *sc)
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

void gk5i_srv_table_remove(gk5_rpc_server *srv, struct sctx *sc)
{
    bool was_in;

    (void)pthread_mutex_lock(&srv->lock);
    was_in = sc->in_table;
    if (was_in) {
        table_unlink_locked(srv, sc);
    }
    (void)pthread_mutex_unlock(&srv->lock);
    if (was_in) {
        gk5i_sctx_put(sc);
    }
}

/* Table lock held, now read under it.  A context used at or after now is
 * not idle: with the clock read before the lock, another thread could mark
 * the context used a second later first, and the unsigned difference would
 * wrap and call a context in use idle. */
static bool idle_expired(const gk5_rpc_server *srv, const struct sctx *sc,
                         uint64_t now)
{
    return now > sc->last_used && now - sc->last_used > srv->idle_timeout;
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
GK5I_RPC_WUR int gk5i_srv_table_insert(gk5_rpc_server *srv, struct sctx *sc,
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
    gk5i_sctx_put(victim);
    return rc;
}

/* Is there room for one more context (evicting one if need be)?  Asked
 * before an INIT runs the acceptor, which consumes the client's AP-REQ. */
bool gk5i_srv_table_reserve(gk5_rpc_server *srv)
{
    struct sctx *victim = NULL;
    bool ok;

    (void)pthread_mutex_lock(&srv->lock);
    ok = table_make_room_locked(srv, &victim);
    (void)pthread_mutex_unlock(&srv->lock);
    gk5i_sctx_put(victim);
    return ok;
}

/* The context with this handle, with a reference for the caller, marked
 * as just used.  One idle longer than idle_timeout is removed instead. */
enum lookup gk5i_srv_table_lookup(gk5_rpc_server *srv, const uint8_t *handle,
                                  size_t handle_len, struct sctx **out)
{
    struct sctx *sc;
    uint64_t now;
    enum lookup res = LOOKUP_NONE;

    *out = NULL;
    if (handle_len != GK5I_RPC_HANDLE_LEN) {
        return LOOKUP_NONE;
    }
    (void)pthread_mutex_lock(&srv->lock);
    /* Under the lock: every last_used was read from the clock before it. */
    now = now_mono();
    sc = table_find_locked(srv, handle);
    if (sc != NULL && idle_expired(srv, sc, now) &&
        atomic_load(&sc->refs) == 1) {
        table_unlink_locked(srv, sc);
        (void)pthread_mutex_unlock(&srv->lock);
        gk5i_sctx_put(sc);
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
void gk5i_srv_table_sweep(gk5_rpc_server *srv)
{
    struct sctx *gone[SWEEP_PER_CALL];
    unsigned n = 0;
    unsigned i;
    uint64_t now;

    (void)pthread_mutex_lock(&srv->lock);
    now = now_mono();
    while (n < SWEEP_PER_CALL && srv->oldest != NULL &&
           idle_expired(srv, srv->oldest, now) &&
           atomic_load(&srv->oldest->refs) == 1) {
        gone[n] = srv->oldest;
        table_unlink_locked(srv, gone[n]);
        n++;
    }
    (void)pthread_mutex_unlock(&srv->lock);
    for (i = 0; i < n; i++) {
        gk5i_sctx_put(gone[i]);
    }
}

int gk5i_srv_table_init(gk5_rpc_server *srv)
{
    srv->nbuckets = MIN_BUCKETS;
    srv->buckets = calloc(srv->nbuckets, sizeof(*srv->buckets));
    return srv->buckets != NULL ? 0 : -1;
}

void gk5i_srv_table_free(gk5_rpc_server *srv)
{
    size_t i;

    for (i = 0; srv->buckets != NULL && i < srv->nbuckets; i++) {
        while (srv->buckets[i] != NULL) {
            struct sctx *sc = srv->buckets[i];

            table_unlink_locked(srv, sc);
            gk5i_sctx_put(sc);
        }
    }
    free(srv->buckets);
    srv->buckets = NULL;
}
