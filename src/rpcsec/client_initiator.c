/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * One RPCSEC_GSS establishment's initiator, gk5's own or MIT's
 * (GK5_RPC_ESTABLISH_MIT), and what establishment is given: the options,
 * checked and copied, and for a native initiator with a client keytab a
 * ccache of its own.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif
#include <gk5/rpcsec.h>

#include "rpcsec/client_int.h"

/* The AUTH's private ccache for a client keytab (native only): made once,
 * on the first establishment. */
GK5I_RPC_WUR int gk5i_rpc_own_ccache(struct gk5i_rpc_est *p, gk5_rpc_error *err)
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

static void own_ccache_remove(struct gk5i_rpc_est *p)
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

GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_create(uint32_t *minor,
                                                struct gk5i_rpc_est *p,
                                                struct gk5i_rpc_initiator *in)
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

GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_step(uint32_t *minor,
                                              struct gk5i_rpc_initiator *in,
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

GK5I_RPC_WUR uint32_t gk5i_rpc_initiator_finish(uint32_t *minor,
                                                struct gk5i_rpc_initiator *in,
                                                int32_t *enctype, gk5_ctx **ctx)
{
#ifdef GK5_RPC_WITH_MIT
    if (in->mit != NULL) {
        return gk5_mit_initiator_finish(minor, in->mit, enctype, ctx);
    }
#endif
    return gk5_initiator_finish(minor, in->native, enctype, ctx);
}

void gk5i_rpc_initiator_free(struct gk5i_rpc_initiator *in)
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
void gk5i_rpc_krb_error_words(gk5_rpc_error *err)
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

/* ---- Options ---- */

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

int gk5i_rpc_est_init(struct gk5i_rpc_est *e, const char *what,
                      const char *target, gk5_rpc_service service,
                      const gk5_rpc_auth_options *opts, gk5_rpc_error *err)
{
    static const gk5_rpc_auth_options no_opts;

    memset(e, 0, sizeof(*e));
    e->peer.ss_family = AF_UNSPEC;
    atomic_init(&e->service, (int)service);
    if (opts == NULL) {
        opts = &no_opts;
    }
    if (opts->n_enctypes > 0 && opts->enctypes == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID, "%s: n_enctypes without enctypes",
                     what);
        return -1;
    }
    if (opts->establish != GK5_RPC_ESTABLISH_NATIVE &&
        opts->establish != GK5_RPC_ESTABLISH_MIT) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "%s: establish is not a gk5_rpc_establish", what);
        return -1;
    }
    if (!gk5_rpc_establish_available(opts->establish)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "%s: establish GK5_RPC_ESTABLISH_MIT: %s", what,
                     GK5I_RPC_NO_MIT_WORDS);
        return -1;
    }
    e->establish = opts->establish;
    e->timeout_ms =
        opts->timeout_ms != 0 ? opts->timeout_ms : GK5I_RPC_DEFAULT_TIMEOUT_MS;
    if (e->timeout_ms > INT_MAX) {
        e->timeout_ms = INT_MAX;
    }
    e->max_body =
        opts->max_body != 0 ? opts->max_body : GK5I_RPC_DEFAULT_MAX_BODY;
    if (e->max_body > GK5I_RPC_MAX_BODY_LIMIT) {
        e->max_body = GK5I_RPC_MAX_BODY_LIMIT;
    }
    if (dup_opt(target, &e->target, err) != 0 ||
        dup_opt(opts->principal, &e->principal, err) != 0 ||
        dup_opt(opts->ccache, &e->ccache, err) != 0 ||
        dup_opt(opts->client_keytab, &e->client_keytab, err) != 0) {
        return -1;
    }
    if (opts->n_enctypes > 0) {
        e->enctypes = calloc(opts->n_enctypes, sizeof(*e->enctypes));
        if (e->enctypes == NULL) {
            gk5i_rpc_err(err, GK5_RPC_E_NOMEM, "out of memory");
            return -1;
        }
        memcpy(e->enctypes, opts->enctypes,
               opts->n_enctypes * sizeof(*e->enctypes));
        e->n_enctypes = opts->n_enctypes;
    }
    return 0;
}

void gk5i_rpc_est_clear(struct gk5i_rpc_est *e)
{
    free(e->target);
    free(e->principal);
    free(e->ccache);
    free(e->client_keytab);
    free(e->enctypes);
    own_ccache_remove(e);
    free(e->own_dir);
    free(e->own_ccache);
    memset(e, 0, sizeof(*e)); /* not a wipe: no secrets */
}
