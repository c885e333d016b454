/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RPCSEC_GSS client contexts (RFC 2203 5.2.3.1): a context made from a
 * complete gk5 context, its reference count, the flow of its sequence
 * numbers inside the server's window, and the context and number for a new
 * data call.  Both clients (the libtirpc AUTH, auth*.c; gk5's own
 * transport, clnt*.c) stand on this; it needs no libtirpc.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "rpcsec/client_int.h"

/* How long a call waits for an older one before it goes anyway. */
#define FLOW_WAIT_MS 1000

int gk5i_rpc_service_valid(gk5_rpc_service svc)
{
    return svc == GK5_RPC_SVC_NONE || svc == GK5_RPC_SVC_INTEGRITY ||
           svc == GK5_RPC_SVC_PRIVACY;
}
/* ---- Contexts ---- */

static int flow_init(struct gk5i_cctx *cc)
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

void gk5i_cctx_release(struct gk5i_cctx *cc)
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
static uint64_t flow_limit(const struct gk5i_cctx *cc)
{
    uint32_t w =
        cc->window < GK5I_RPC_FLOW_RING ? cc->window : GK5I_RPC_FLOW_RING;

    return cc->flow_base + w;
}

/* The next number for a data call (>= GK5I_RPC_DATA_SEQ_END when used up). */
uint64_t gk5i_flow_take(struct gk5i_cctx *cc)
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

bool gk5i_flow_ready(struct gk5i_cctx *cc)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    bool ready = atomic_load(&cc->next_seq) < flow_limit(cc);
    (void)pthread_mutex_unlock(&cc->flow_lock);
    return ready;
}

/* Call n has ended. */
void gk5i_flow_done(struct gk5i_cctx *cc, uint64_t n)
{
    (void)pthread_mutex_lock(&cc->flow_lock);
    if (n >= cc->flow_base && n - cc->flow_base < GK5I_RPC_FLOW_RING) {
        uint32_t i = (uint32_t)(n % GK5I_RPC_FLOW_RING);
        cc->flow_done[i / 8] |= (uint8_t)(1u << (i % 8));
        int moved = 0;
        for (;;) {
            uint32_t b = (uint32_t)(cc->flow_base % GK5I_RPC_FLOW_RING);
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

int gk5i_cctx_expired(const struct gk5i_cctx *cc)
{
    return cc->endtime != 0 && (uint64_t)time(NULL) >= cc->endtime;
}

/* The context establishment ends with, made from a gk5 context that is
 * already complete (the fuzz seam's way in as well). */
int gk5i_cctx_adopt(gk5_ctx *gss, const uint8_t *handle, size_t handle_len,
                    uint32_t window, struct gk5i_cctx **out, gk5_rpc_error *err)
{
    struct gk5i_cctx *cc = NULL;
    gk5_ctx_info info;
    uint32_t minor = 0;

    *out = NULL;
    if (handle_len > GK5I_RPC_MAX_HANDLE) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "a handle of %zu bytes",
                     handle_len);
        gk5_ctx_free(gss);
        return -1;
    }
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
    cc->gss = gss; /* gk5i_cctx_release frees it from here on */
    memcpy(cc->handle, handle, handle_len);
    cc->handle_len = handle_len;
    cc->window = window;
    uint32_t major = gk5_ctx_set_flags(&minor, cc->gss, 0);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_set_flags");
        gk5i_cctx_release(cc);
        return -1;
    }
    major = gk5_ctx_inquire(&minor, cc->gss, &info);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "on this client, gk5_ctx_inquire");
        gk5i_cctx_release(cc);
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

/* The context and sequence number for a new call, remaking the context
 * first when the counter would reach MAXSEQ (RFC 2203 5.3.3.1) or it has
 * expired.  Every caller gets its own number, even those that lose the
 * race to MAXSEQ: a number is never sent twice. */
int gk5i_rpc_call_context(const char *target, gk5i_cctx_get_fn get,
                          gk5i_reestablish_fn reestablish, void *arg,
                          struct gk5i_cctx **out, uint32_t *seq,
                          gk5_rpc_error *err)
{
    *out = NULL;
    *seq = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        struct gk5i_cctx *cc = get(arg);
        if (!gk5i_cctx_expired(cc) &&
            atomic_load(&cc->next_seq) < GK5I_RPC_DATA_SEQ_END) {
            uint64_t n = gk5i_flow_take(cc);
            if (n < GK5I_RPC_DATA_SEQ_END) {
                *out = cc;
                *seq = (uint32_t)n;
                return 0;
            }
        }
        uint32_t gen = cc->gen;
        gk5i_cctx_release(cc);
        if (reestablish(arg, gen, err) != 0) {
            return -1;
        }
    }
    gk5i_rpc_err(err, GK5_RPC_E_EXPIRED,
                 "every new RPCSEC_GSS context for %s was expired or used up "
                 "at once",
                 target);
    return -1;
}

void gk5i_cctx_describe(struct gk5i_cctx *cc, gk5_rpc_service service,
                        gk5_rpc_auth_info *info)
{
    uint64_t next = atomic_load(&cc->next_seq);

    info->enctype = cc->enctype;
    info->service = service;
    info->window = cc->window;
    info->next_seq = next < GK5_RPC_MAXSEQ ? (uint32_t)next : GK5_RPC_MAXSEQ;
    info->established = cc->gen;
    info->handle_len = cc->handle_len;
}
