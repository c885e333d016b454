/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's own RPC client (RFC 5531) on one stream connection, with
 * RPCSEC_GSS (RFC 2203) from client_*.c, AUTH_SYS or AUTH_NONE.
 *
 * Many calls are out at once, from one thread (send, then wait) or from
 * many.  Each call is built and sealed on its caller's thread and sent
 * whole under the send lock; replies are matched to their calls by XID.
 * Whoever waits reads: one waiter at a time holds the socket (the reader)
 * and hands every reply it reads to the call it answers, then, once its
 * own has come, passes the socket to another waiter.  A reply is checked
 * (verifier, body) on its own caller's thread, so crypto runs in parallel.
 *
 * Sequence numbers come from the context's flow (gk5i_flow_take), which
 * keeps every call in flight inside the server's window; a call's number
 * ends (gk5i_flow_done) when its reply has been checked, or when it is
 * given up.  Control calls (the INIT legs of a new context) go through the
 * same table, so a context can be remade while other calls are out.
 *
 * Its rooms: clnt_table.c the table of calls and admission, clnt_reader.c
 * the reader, clnt_call.c a call's message and its reply; this file the
 * contexts, the public calls and making the client.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/clnt_int.h"
#include "rpcsec/rpcsec_int.h"

#define DEFAULT_INFLIGHT 16u
#define MAX_INFLIGHT 1024u
/* RFC 5531 appendix A: machinename<255>, gids<16>. */
#define SYS_NAME_MAX 255u
#define SYS_GIDS_MAX 16u

/* ---- RPCSEC_GSS contexts ---- */

static struct gk5i_cctx *cctx_get(gk5_rpc_clnt *c)
{
    (void)pthread_mutex_lock(&c->lock);
    struct gk5i_cctx *cc = c->cur;
    atomic_fetch_add(&cc->refs, 1);
    (void)pthread_mutex_unlock(&c->lock);
    return cc;
}

/* A leg of gk5i_rpc_establish on the client's own connection, through the
 * table like any call. */
static GK5I_RPC_WUR int conn_leg(void *arg, const gk5i_rpc_cred *cred,
                                 const gk5_buffer *tok, const char *what,
                                 struct gk5i_leg_reply *leg, gk5_rpc_error *err)
{
    gk5_rpc_clnt *c = arg;
    struct call *call = NULL;
    uint8_t *msg = NULL;
    size_t msg_len = 0;
    int ret = -1;

    call = calloc(1, sizeof(*call));
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    call->xid = atomic_fetch_add(&c->next_xid, 1);
    call->control = true;
    call->deadline = gk5i_rpc_now_ms() + c->est.timeout_ms;
    if (gk5i_rpc_control_call(&c->est, NULL, call->xid, cred, tok, &msg,
                              &msg_len, err) != 0) {
        goto cleanup;
    }
    struct iovec iov = {.iov_base = msg, .iov_len = msg_len};
    if (gk5i_clnt_admit(c, call, false, err) != 0) {
        goto cleanup;
    }
    if (gk5i_clnt_post(c, call, &iov, 1, err) != 0) {
        goto cleanup;
    }
    if (gk5i_clnt_collect(c, call, err) != 0) {
        call = NULL; /* freed, or left to the reader */
        goto cleanup;
    }
    if (gk5i_rpc_leg_reply(call->rec, call->rec_len, call->xid, what, leg,
                           err) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(msg);
    gk5i_clnt_call_free(call);
    return ret;
}

/* Replace the context unless another thread did since seen_gen. */
GK5I_RPC_WUR int gk5i_clnt_reestablish(gk5_rpc_clnt *c, uint32_t seen_gen,
                                       gk5_rpc_error *err)
{
    struct gk5i_cctx *fresh = NULL, *old = NULL;
    int ret = -1;

    (void)pthread_mutex_lock(&c->estab_lock);
    (void)pthread_mutex_lock(&c->lock);
    uint32_t gen = c->cur->gen;
    (void)pthread_mutex_unlock(&c->lock);
    if (gen != seen_gen) {
        ret = 0;
        goto cleanup;
    }
    if (gk5i_rpc_establish(&c->est, gen + 1, conn_leg, c, &fresh, err) != 0) {
        goto cleanup;
    }
    (void)pthread_mutex_lock(&c->lock);
    old = c->cur;
    c->cur = fresh;
    (void)pthread_mutex_unlock(&c->lock);
    ret = 0;

cleanup:
    (void)pthread_mutex_unlock(&c->estab_lock);
    gk5i_cctx_release(old); /* calls still out hold their own references */
    return ret;
}

/* ---- The API ---- */

int gk5_rpc_clnt_send(gk5_rpc_clnt *c, uint32_t proc, const gk5_buffer *args,
                      uint64_t *id, gk5_rpc_error *err)
{
    struct call *call = NULL;

    gk5i_rpc_err_clear(err);
    if (id != NULL) {
        *id = 0;
    }
    if (c == NULL || id == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_send: a client and an id are needed");
        return -1;
    }
    if (gk5i_clnt_start_call(c, proc, args, &call, err) != 0) {
        return -1;
    }
    *id = call->xid;
    return 0;
}

int gk5_rpc_clnt_wait(gk5_rpc_clnt *c, uint64_t id, gk5_buffer *results,
                      gk5_rpc_error *err)
{
    struct call *call = NULL;
    bool retry = false;

    gk5i_rpc_err_clear(err);
    if (results != NULL) {
        results->value = NULL;
        results->length = 0;
    }
    if (c == NULL || results == NULL || id > UINT32_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_wait: a client, a call id and results "
                     "are needed");
        return -1;
    }
    (void)pthread_mutex_lock(&c->lock);
    call = gk5i_clnt_find_call(c, (uint32_t)id);
    if (call != NULL && call->abandoned) {
        call = NULL;
    }
    (void)pthread_mutex_unlock(&c->lock);
    if (call == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_wait: no call %llu is out",
                     (unsigned long long)id);
        return -1;
    }
    return gk5i_clnt_finish_call(c, call, results, &retry, err);
}

int gk5_rpc_clnt_call(gk5_rpc_clnt *c, uint32_t proc, const gk5_buffer *args,
                      gk5_buffer *results, gk5_rpc_error *err)
{
    gk5i_rpc_err_clear(err);
    if (results != NULL) {
        results->value = NULL;
        results->length = 0;
    }
    if (c == NULL || results == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_call: a client and results are needed");
        return -1;
    }
    /* Sent once more after the server asked for a new context. */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct call *call = NULL;
        bool retry = false;
        if (gk5i_clnt_start_call(c, proc, args, &call, err) != 0) {
            return -1;
        }
        if (gk5i_clnt_finish_call(c, call, results, &retry, err) == 0) {
            return 0;
        }
        if (!retry) {
            return -1;
        }
    }
    return -1;
}

int gk5_rpc_clnt_set_service(gk5_rpc_clnt *c, gk5_rpc_service service)
{
    if (c == NULL || c->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS ||
        !gk5i_rpc_service_valid(service)) {
        return -1;
    }
    atomic_store(&c->est.service, (int)service);
    return 0;
}

int gk5_rpc_clnt_inquire(gk5_rpc_clnt *c, gk5_rpc_auth_info *info)
{
    if (info != NULL) {
        memset(info, 0, sizeof(*info));
    }
    if (c == NULL || info == NULL || c->flavor != GK5_RPC_FLAVOR_RPCSEC_GSS) {
        return -1;
    }
    struct gk5i_cctx *cc = cctx_get(c);
    gk5i_cctx_describe(cc, (gk5_rpc_service)atomic_load(&c->est.service), info);
    gk5i_cctx_release(cc);
    return 0;
}

/* ---- Creation ---- */

/* authsys_parms (RFC 5531 appendix A). */
static GK5I_RPC_WUR int
sys_cred(gk5_rpc_clnt *c, const gk5_rpc_clnt_options *opts, gk5_rpc_error *err)
{
    char host[SYS_NAME_MAX + 1];
    const char *name = opts->machinename;
    struct gk5i_wr w;

    if (name == NULL) {
        if (gethostname(host, sizeof(host)) != 0) {
            host[0] = '\0';
        }
        host[sizeof(host) - 1] = '\0';
        name = host;
    }
    if (strlen(name) > SYS_NAME_MAX || opts->n_gids > SYS_GIDS_MAX ||
        (opts->n_gids > 0 && opts->gids == NULL)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_create: AUTH_SYS takes a machine name of "
                     "at most %u bytes and at most %u gids",
                     SYS_NAME_MAX, SYS_GIDS_MAX);
        return -1;
    }
    gk5i_wr_init(&w, c->cred, sizeof(c->cred));
    gk5i_xdr_put_u32(&w, (uint32_t)time(NULL)); /* stamp */
    gk5i_xdr_put_string(&w, name);
    gk5i_xdr_put_u32(&w, opts->uid);
    gk5i_xdr_put_u32(&w, opts->gid);
    gk5i_xdr_put_u32(&w, (uint32_t)opts->n_gids);
    for (size_t i = 0; i < opts->n_gids; i++) {
        gk5i_xdr_put_u32(&w, opts->gids[i]);
    }
    if (w.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "the AUTH_SYS credential does not fit 400 bytes");
        return -1;
    }
    c->cred_len = sizeof(c->cred) - w.left;
    return 0;
}

static GK5I_RPC_WUR int random_start(_Atomic uint32_t *xid, gk5_rpc_error *err)
{
    uint32_t v = 0;

    if (gk5i_rpc_random_xid(&v, err) != 0) {
        return -1;
    }
    atomic_init(xid, v);
    return 0;
}

/* A client with its locks, options and credential, not yet connected
 * (fd -1); NULL with err. */
static GK5I_RPC_WUR int clnt_new(uint32_t flavor, const char *target,
                                 gk5_rpc_service service,
                                 const gk5_rpc_clnt_options *opts,
                                 gk5_rpc_clnt **out, gk5_rpc_error *err)
{
    gk5_rpc_clnt *c = NULL;

    *out = NULL;
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
        return -1;
    }
    c->fd = -1;
    c->flavor = flavor;
    c->max_inflight =
        opts->max_inflight != 0 ? opts->max_inflight : DEFAULT_INFLIGHT;
    c->call_timeout_ms = opts->call_timeout_ms != 0
                             ? opts->call_timeout_ms
                             : GK5I_RPC_DEFAULT_TIMEOUT_MS;
    if (c->call_timeout_ms > INT_MAX) {
        c->call_timeout_ms = INT_MAX;
    }
    if (pthread_mutex_init(&c->lock, NULL) != 0 ||
        pthread_mutex_init(&c->send_lock, NULL) != 0 ||
        pthread_mutex_init(&c->estab_lock, NULL) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_mutex_init failed");
        free(c); /* a failed init leaves nothing to destroy on Linux */
        return -1;
    }
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&c->cond, &ca) != 0) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "pthread_cond_init failed");
        (void)pthread_mutex_destroy(&c->lock);
        (void)pthread_mutex_destroy(&c->send_lock);
        (void)pthread_mutex_destroy(&c->estab_lock);
        free(c);
        return -1;
    }
    (void)pthread_condattr_destroy(&ca);
    if (gk5i_rpc_est_init(&c->est, "gk5_rpc_clnt_create",
                          flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? target : NULL,
                          service, &opts->gss, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    if (flavor == GK5_RPC_FLAVOR_SYS && sys_cred(c, opts, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    if (random_start(&c->next_xid, err) != 0) {
        gk5_rpc_clnt_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* What gk5_rpc_clnt_create needs: a TCP or UNIX address, a flavour it
 * speaks, for RPCSEC_GSS a target and a service, max_inflight in range. */
static bool create_args_ok(const struct sockaddr *addr, socklen_t addr_len,
                           uint32_t flavor, const char *target,
                           gk5_rpc_service service,
                           const gk5_rpc_clnt_options *opts)
{
    if (addr == NULL || addr_len == 0 ||
        addr_len > sizeof(struct sockaddr_storage) ||
        (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
         addr->sa_family != AF_UNIX)) {
        return false;
    }
    if (flavor == GK5_RPC_FLAVOR_RPCSEC_GSS) {
        if (target == NULL || target[0] == '\0' ||
            !gk5i_rpc_service_valid(service)) {
            return false;
        }
    } else if (flavor != GK5_RPC_FLAVOR_SYS && flavor != GK5_RPC_FLAVOR_NONE) {
        return false;
    }
    return opts->max_inflight <= MAX_INFLIGHT;
}

int gk5_rpc_clnt_create(const struct sockaddr *addr, socklen_t addr_len,
                        uint32_t prog, uint32_t vers, const char *target,
                        gk5_rpc_service service,
                        const gk5_rpc_clnt_options *opts, gk5_rpc_clnt **out,
                        gk5_rpc_error *err)
{
    static const gk5_rpc_clnt_options no_opts;
    gk5_rpc_clnt *c = NULL;
    int ret = -1;

    gk5i_rpc_err_clear(err);
    if (out != NULL) {
        *out = NULL;
    }
    if (opts == NULL) {
        opts = &no_opts;
    }
    uint32_t flavor = opts->flavor;
    if (flavor == 0 && target != NULL) {
        flavor = GK5_RPC_FLAVOR_RPCSEC_GSS;
    }
    if (out == NULL ||
        !create_args_ok(addr, addr_len, flavor, target, service, opts)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "gk5_rpc_clnt_create: a TCP or UNIX address, and for "
                     "RPCSEC_GSS a target \"service@host\" and a service "
                     "(krb5, krb5i, krb5p), are needed; the flavour is "
                     "RPCSEC_GSS, AUTH_SYS or AUTH_NONE, max_inflight at "
                     "most %u",
                     MAX_INFLIGHT);
        return -1;
    }
    if (clnt_new(flavor, target, service, opts, &c, err) != 0) {
        return -1;
    }
    memcpy(&c->est.peer, addr, addr_len);
    c->est.peer_len = addr_len;
    c->est.prog = prog;
    c->est.vers = vers;
    if (gk5i_rpc_connect(addr, addr_len, (int)c->est.timeout_ms, &c->fd, err) !=
        0) {
        goto cleanup;
    }
    if (addr->sa_family != AF_UNIX) {
        /* Calls are records sent whole, each waited for. */
        const int one = 1;
        (void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    /* Replies are waited for with poll; sends time out (SO_SNDTIMEO). */
    if (flavor == GK5_RPC_FLAVOR_RPCSEC_GSS &&
        gk5i_rpc_establish(&c->est, 1, conn_leg, c, &c->cur, err) != 0) {
        goto cleanup;
    }
    *out = c;
    c = NULL;
    ret = 0;

cleanup:
    gk5_rpc_clnt_free(c);
    return ret;
}

void gk5_rpc_clnt_free(gk5_rpc_clnt *c)
{
    if (c == NULL) {
        return;
    }
    if (c->cur != NULL && c->fd >= 0 && !c->broken) {
        /* RFC 2203 5.4, a courtesy: on our connection, briefly. */
        gk5i_rpc_destroy_exchange(&c->est, c->cur, c->fd);
    }
    while (c->calls != NULL) {
        struct call *call = c->calls; /* given up, its reply never came */
        gk5i_clnt_unlink_call(c, call);
        gk5i_clnt_call_free(call);
    }
    gk5i_cctx_release(c->cur);
    gk5i_clnt_bufs_free(c);
    gk5i_rpc_est_clear(&c->est);
    if (c->fd >= 0) {
        (void)close(c->fd);
    }
    (void)pthread_mutex_destroy(&c->lock);
    (void)pthread_mutex_destroy(&c->send_lock);
    (void)pthread_mutex_destroy(&c->estab_lock);
    (void)pthread_cond_destroy(&c->cond);
    zap(c, sizeof(*c));
    free(c);
}

/* ---- Test seam (tests/fuzz/fuzz_rpc_clnt.c; not exported) ---- */

int gk5i_rpc_clnt_adopt(int fd, gk5_ctx *gss, const uint8_t *handle,
                        size_t handle_len, uint32_t window, gk5_rpc_service svc,
                        size_t max_body, unsigned call_timeout_ms,
                        gk5_rpc_clnt **out, gk5_rpc_error *err)
{
    gk5_rpc_clnt_options opts = {.flavor = GK5_RPC_FLAVOR_RPCSEC_GSS,
                                 .call_timeout_ms = call_timeout_ms};
    gk5_rpc_clnt *c = NULL;

    opts.gss.max_body = max_body;
    gk5i_rpc_err_clear(err);
    *out = NULL;
    if (fd < 0 || !gk5i_rpc_service_valid(svc) ||
        clnt_new(GK5_RPC_FLAVOR_RPCSEC_GSS, "", svc, &opts, &c, err) != 0) {
        gk5_ctx_free(gss);
        return -1;
    }
    if (gk5i_cctx_adopt(gss, handle, handle_len, window, &c->cur, err) != 0) {
        gk5_rpc_clnt_free(c); /* fd is the caller's until here */
        return -1;
    }
    c->fd = fd;
    *out = c;
    return 0;
}

size_t gk5i_rpc_clnt_kept(gk5_rpc_clnt *c, const uint8_t *needle, size_t len,
                          bool *found, size_t *bytes)
{
    size_t n = 0;

    *found = false;
    *bytes = 0;
    (void)pthread_mutex_lock(&c->lock);
    for (const struct kept_buf *b = c->kept; b != NULL; b = b->next) {
        n++;
        *bytes += b->cap;
        for (size_t i = 0; len > 0 && b->cap >= len && i <= b->cap - len; i++) {
            if (memcmp(b->p + i, needle, len) == 0) {
                *found = true;
            }
        }
    }
    (void)pthread_mutex_unlock(&c->lock);
    return n;
}
