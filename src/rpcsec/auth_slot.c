/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The libtirpc AUTH's per-thread call slots: what one call needs between
 * marshal and unwrap (its context, sequence number and service), so that
 * many threads share one AUTH and each reply is checked against its own
 * call (RFC 2203 5.3.3.2).
 */
#include <pthread.h>
#include <string.h>

#include "rpcsec/auth_int.h"

/* Call slots per thread: one per AUTH the thread uses at the same time. */
#define TLS_SLOTS 4

static _Thread_local struct {
    uint64_t tick;
    int registered;
    struct call_slot slot[TLS_SLOTS];
} tls;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_key_ok;

/* At thread exit: drop the references calls left behind (a call whose
 * reply never came keeps its context until then). */
static void tls_release(void *arg)
{
    (void)arg;
    for (int i = 0; i < TLS_SLOTS; i++) {
        gk5i_cctx_release(tls.slot[i].cc);
        tls.slot[i].cc = NULL;
        tls.slot[i].serial = 0;
    }
}

static void tls_key_create(void)
{
    tls_key_ok = pthread_key_create(&tls_key, tls_release) == 0;
}

void gk5i_auth_slot_end_call(struct call_slot *s)
{
    if (s->in_flight && s->cc != NULL) {
        gk5i_flow_done(s->cc, s->seq);
    }
    s->in_flight = 0;
    gk5i_cctx_release(s->cc);
    s->cc = NULL;
}

/* This thread's slot for serial; with create, take the least recently used
 * one if there is none. */
struct call_slot *gk5i_auth_slot_find(uint64_t serial, int create)
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
    gk5i_auth_slot_end_call(victim);
    memset(victim, 0, sizeof(*victim));
    victim->serial = serial;
    victim->used = ++tls.tick;
    return victim;
}
