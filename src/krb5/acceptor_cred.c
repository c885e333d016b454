/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Acceptor credentials: a keytab read once into memory and a replay
 * cache, shared by every thread accepting with them.
 *
 * The keytab file is looked at again (one stat) when a ticket asks for a
 * key the credential lacks -- a service whose key was just rotated gets
 * tickets under the new kvno at once -- and otherwise at most every
 * GK5I_KEYTAB_RECHECK seconds, so that a key removed from the file stops
 * working soon after without costing a system call per accept.  A reader
 * lock covers the lookup; only a reload takes it for writing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/trace.h"
#include "../mech/mech_int.h"
#include "krb5_int.h"

/* MIT's default keytab when neither the caller nor KRB5_KTNAME names one. */
#define DEFAULT_KEYTAB "/etc/krb5.keytab"
#define DEFAULT_SKEW 300u

/* The file a keytab name refers to: "FILE:path", "WRFILE:path" or a path.
 * Other residue types (MEMORY:, KEYRING:, ...) are MIT's alone; a ':'
 * after the first '/' is part of a path. */
static uint32_t keytab_path(const char *name, char **out)
{
    const char *colon, *slash, *path = name;

    *out = NULL;
    if (name == NULL || *name == '\0') {
        name = secure_getenv("KRB5_KTNAME");
        if (name == NULL || *name == '\0') {
            name = DEFAULT_KEYTAB;
        }
        path = name;
    }
    colon = strchr(name, ':');
    slash = strchr(name, '/');
    if (colon != NULL && (slash == NULL || colon < slash)) {
        if (strncmp(name, "FILE:", 5) == 0) {
            path = name + 5;
        } else if (strncmp(name, "WRFILE:", 7) == 0) {
            path = name + 7;
        } else {
            if (GK5_TRACE_ON()) {
                gk5i_trace("acceptor: keytab %s: only FILE keytabs are "
                           "supported",
                           name);
            }
            return GK5_ERR_INVALID_ARGUMENT;
        }
    }
    if (*path == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = strdup(path);
    return *out == NULL ? GK5_ERR_NOMEM : GK5_OK;
}

/* Whether kt holds a key of the credential's name (any key, when it has
 * none). */
static bool keytab_serves(const gk5_acceptor_cred *cred,
                          const struct gk5i_keytab *kt)
{
    for (size_t i = 0; i < kt->n; i++) {
        const struct gk5i_kt_entry *e = &kt->entries[i];
        struct gk5i_krb_principal p;

        if (!cred->has_name) {
            return true;
        }
        memset(&p, 0, sizeof(p));
        p.name_type = e->name_type;
        p.ncomp = e->ncomp;
        memcpy(p.comp, e->comp, sizeof(p.comp));
        if (gk5i_name_matches(&cred->name, e->realm, &p)) {
            return true;
        }
    }
    return false;
}

static uint32_t cred_status(uint32_t *minor, uint32_t err)
{
    /* A name that cannot be parsed is BAD_NAME; status.c maps the rest. */
    if (err == GK5_ERR_INVALID_ARGUMENT) {
        *minor = err;
        return GK5_S_BAD_NAME;
    }
    return gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_acceptor_cred_new(uint32_t *minor,
                                          const gk5_acceptor_opts *opts,
                                          gk5_acceptor_cred **out)
{
    static const gk5_acceptor_opts defaults;
    gk5_acceptor_cred *cred = NULL;
    struct gk5i_rcache_opts ro;
    uint32_t err;
    bool lock_made = false;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *out = NULL;
    if (opts == NULL) {
        opts = &defaults;
    }
    cred = gk5i_zalloc(sizeof(*cred));
    if (cred == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    cred->skew = opts->clockskew != 0 ? opts->clockskew : DEFAULT_SKEW;
    err = keytab_path(opts->keytab, &cred->kt_path);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (opts->principal != NULL) {
        /* "service@host" unless it has a '/' (a krb5 name). */
        bool hostbased = strchr(opts->principal, '/') == NULL;

        err = gk5i_name_parse(opts->principal, hostbased, &cred->name);
        if (err != GK5_OK) {
            goto cleanup;
        }
        cred->has_name = true;
    }
    if (pthread_rwlock_init(&cred->kt_lock, NULL) != 0) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    lock_made = true;
    err = gk5i_keytab_load(cred->kt_path, &cred->kt, &cred->kt_stamp);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (!keytab_serves(cred, cred->kt)) {
        err = GK5_ERR_KEYTAB_NO_KEYS;
        goto cleanup;
    }
    atomic_store(&cred->kt_checked, (int64_t)time(NULL));
    if ((opts->flags & GK5_ACC_NO_RCACHE) == 0) {
        memset(&ro, 0, sizeof(ro));
        ro.skew = cred->skew;
        ro.max_entries = opts->rcache_max;
        ro.path = opts->rcache_file;
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        err = gk5i_rcache_new(&ro, ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000),
                              &cred->rc);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    if (GK5_TRACE_ON()) {
        gk5i_trace("acceptor: credential from keytab %s: %zu usable keys, "
                   "skew %u s, replay cache %s",
                   cred->kt_path, cred->kt->n, (unsigned)cred->skew,
                   cred->rc == NULL            ? "off"
                   : opts->rcache_file != NULL ? opts->rcache_file
                                               : "in memory");
    }
    *out = cred;
    cred = NULL;
    err = GK5_OK;
cleanup:
    if (cred != NULL) {
        gk5i_keytab_free(cred->kt);
        gk5i_name_free(&cred->name);
        free(cred->kt_path);
        if (lock_made) {
            pthread_rwlock_destroy(&cred->kt_lock);
        }
        gk5i_free(cred);
    }
    if (err != GK5_OK && GK5_TRACE_ON()) {
        char words[256];

        gk5i_trace_words(err, words, sizeof(words));
        gk5i_trace("acceptor: no credential: %s", words);
    }
    return err == GK5_OK ? GK5_S_COMPLETE : cred_status(minor, err);
}

GK5_EXPORT void gk5_acceptor_cred_free(gk5_acceptor_cred *cred)
{
    if (cred == NULL) {
        return;
    }
    gk5i_rcache_free(cred->rc);
    gk5i_keytab_free(cred->kt);
    gk5i_name_free(&cred->name);
    free(cred->kt_path);
    pthread_rwlock_destroy(&cred->kt_lock);
    gk5i_free(cred);
}

/* Reads the keytab again if its file changed.  A file that no longer
 * parses leaves the keys in memory as they were (a half-written keytab
 * during rotation must not take a server's keys away), with a trace. */
static void keytab_refresh(gk5_acceptor_cred *cred, int64_t now)
{
    struct gk5i_keytab *kt = NULL;
    struct gk5i_kt_stamp stamp;
    uint32_t err;

    atomic_store(&cred->kt_checked, now);
    pthread_rwlock_rdlock(&cred->kt_lock);
    stamp = cred->kt_stamp;
    pthread_rwlock_unlock(&cred->kt_lock);
    if (!gk5i_keytab_changed(cred->kt_path, &stamp)) {
        return;
    }
    err = gk5i_keytab_load(cred->kt_path, &kt, &stamp);
    if (err != GK5_OK) {
        if (GK5_TRACE_ON()) {
            char words[256];

            gk5i_trace_words(err, words, sizeof(words));
            gk5i_trace("acceptor: keytab %s changed but was not read again: "
                       "%s",
                       cred->kt_path, words);
        }
        return;
    }
    pthread_rwlock_wrlock(&cred->kt_lock);
    gk5i_keytab_free(cred->kt);
    cred->kt = kt;
    cred->kt_stamp = stamp;
    pthread_rwlock_unlock(&cred->kt_lock);
    if (GK5_TRACE_ON()) {
        gk5i_trace("acceptor: keytab %s read again: %zu usable keys",
                   cred->kt_path, kt->n);
    }
}

static uint32_t find_key(gk5_acceptor_cred *cred, struct gk5i_view realm,
                         const struct gk5i_krb_principal *sname, bool has_kvno,
                         uint32_t kvno, int32_t enctype, gk5_ukey **uk,
                         struct gk5i_subkeys *pac_sk)
{
    const struct gk5i_kt_entry *e;
    uint32_t err = GK5_OK;

    pthread_rwlock_rdlock(&cred->kt_lock);
    e = gk5i_keytab_find(cred->kt, realm, sname, has_kvno, kvno, enctype, &err);
    if (e != NULL) {
        err = gk5i_ukey_new(e->et, &e->tkt_sk, uk);
        if (pac_sk != NULL) {
            *pac_sk = e->pac_sk;
        }
    }
    pthread_rwlock_unlock(&cred->kt_lock);
    return err;
}

uint32_t gk5i_cred_ticket_key(gk5_acceptor_cred *cred, struct gk5i_view realm,
                              const struct gk5i_krb_principal *sname,
                              bool has_kvno, uint32_t kvno, int32_t enctype,
                              int64_t now, gk5_ukey **uk,
                              struct gk5i_subkeys *pac_sk)
{
    uint32_t err;

    *uk = NULL;
    if (cred->has_name && !gk5i_name_matches(&cred->name, realm, sname)) {
        return GK5_ERR_AP_WRONG_PRINC;
    }
    if (now - atomic_load_explicit(&cred->kt_checked, memory_order_relaxed) >=
        GK5I_KEYTAB_RECHECK) {
        keytab_refresh(cred, now);
    }
    err = find_key(cred, realm, sname, has_kvno, kvno, enctype, uk, pac_sk);
    if ((err == GK5_ERR_AP_WRONG_PRINC || err == GK5_ERR_AP_BADKEYVER ||
         err == GK5_ERR_AP_NOKEY) &&
        atomic_load_explicit(&cred->kt_checked, memory_order_relaxed) != now) {
        /* Perhaps rotated a moment ago: look at the file now (at most once
         * a second, however many unknown tickets arrive). */
        keytab_refresh(cred, now);
        err = find_key(cred, realm, sname, has_kvno, kvno, enctype, uk, pac_sk);
    }
    return err;
}
