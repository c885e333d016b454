/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The TCP server's log: one line per cause (a connection event, or a
 * call's verdict and code), rate-limited and coalesced, so a flood of
 * refusals costs one line per interval.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rpcsec/tcp_int.h"

/* log_lock held.  Writes slot's line: its last words and, when it stands
 * for more than one event, how many. */
static void log_emit_locked(gk5_rpc_tcp_server *ts, struct logslot *ls,
                            uint64_t now)
{
    gk5_rpc_error e;

    memset(&e, 0, sizeof(e));
    e.code = ls->code;
    e.auth_stat = ls->auth_stat;
    if (ls->count > 1) {
        /* A flush may come with a clock read before another thread's
         * event set since: no span then, not a wrapped one. */
        uint64_t span = now > ls->since ? now - ls->since : 0;
        uint64_t secs = (span + 999) / 1000;

        (void)snprintf(e.text, sizeof(e.text),
                       "%s (%lu like this in the last %llu s)", ls->text,
                       ls->count, (unsigned long long)(secs ? secs : 1));
    } else {
        (void)snprintf(e.text, sizeof(e.text), "%s", ls->text);
    }
    ls->count = 0;
    ls->next_ok = now + ts->log_interval_ms;
    ts->log(ts->log_arg, ls->verdict, &e);
}

void gk5i_tcp_log_event(gk5_rpc_tcp_server *ts, unsigned cause,
                        gk5_rpc_verdict verdict, int code, uint32_t auth_stat,
                        const char *text)
{
    struct logslot *ls;
    uint64_t now;

    if (ts->log == NULL || cause >= N_CAUSES) {
        return;
    }
    (void)pthread_mutex_lock(&ts->log_lock);
    now = mono_ms();
    ls = &ts->logs[cause];
    if (ls->count == 0) {
        ls->since = now;
    }
    ls->count++;
    ls->verdict = verdict;
    ls->code = code;
    ls->auth_stat = auth_stat;
    (void)snprintf(ls->text, sizeof(ls->text), "%s", text);
    if (now >= ls->next_ok) {
        log_emit_locked(ts, ls, now);
    }
    (void)pthread_mutex_unlock(&ts->log_lock);
}

/* A call gk5 refused or dropped. */
void gk5i_tcp_log_call(gk5_rpc_tcp_server *ts, gk5_rpc_verdict verdict,
                       const gk5_rpc_error *err)
{
    int code = err->code >= 0 && err->code < GK5_RPC_E__COUNT ? err->code : 0;
    unsigned cause = C_CALLS +
                     (verdict == GK5_RPC_CALL_DROP ? GK5_RPC_E__COUNT : 0) +
                     (unsigned)code;

    gk5i_tcp_log_event(ts, cause, verdict, err->code, err->auth_stat,
                       err->text[0] != '\0' ? err->text
                                            : gk5_rpc_strerror(code));
}

/* A connection a limit or deadline closed (or refused). */
__attribute__((format(printf, 4, 5))) void
gk5i_tcp_log_conn(gk5_rpc_tcp_server *ts, unsigned cause, const struct conn *c,
                  const char *fmt, ...)
{
    char why[200];
    char text[320];
    va_list ap;

    if (ts->log == NULL) {
        return;
    }
    va_start(ap, fmt);
    (void)vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    (void)snprintf(text, sizeof(text), "closed a connection%s%s: %s",
                   c != NULL && c->peer[0] != '\0' ? " from " : "",
                   c != NULL ? c->peer : "", why);
    gk5i_tcp_log_event(ts, cause, GK5_RPC_CALL_DROP, GK5_RPC_E_TRANSPORT, 0,
                       text);
}

/* The lines whose interval has passed with events still counted (all of
 * them with force). */
void gk5i_tcp_log_flush(gk5_rpc_tcp_server *ts, uint64_t now, bool force)
{
    if (ts->log == NULL) {
        return;
    }
    (void)pthread_mutex_lock(&ts->log_lock);
    for (unsigned i = 0; i < N_CAUSES; i++) {
        struct logslot *ls = &ts->logs[i];

        if (ls->count != 0 && (force || now >= ls->next_ok)) {
            log_emit_locked(ts, ls, now);
        }
    }
    (void)pthread_mutex_unlock(&ts->log_lock);
}
