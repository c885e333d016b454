/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The credentials a native accept (accept.c) uses: the keytab MIT would
 * pick for GSS_C_NO_CREDENTIAL (krb5_gss_register_acceptor_identity's,
 * else KRB5_KTNAME, else krb5.conf's default_keytab_name, else MIT's
 * default), the one gk5 acceptor credential per keytab (one replay cache
 * for every context of that keytab), and the notes of the credentials
 * gss_acquire_cred made for accepting (the keytab of that moment and the
 * desired name, if any; MIT's credential beside them stays for the
 * fallback).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <krb5/krb5.h>

#include "interposer/interposer.h"
#include "krb5/krb5_int.h"

/* ---- keytabs ---- */

/* krb5_gss_register_acceptor_identity's keytab, NULL when none. */
static pthread_mutex_t kt_lock = PTHREAD_MUTEX_INITIALIZER;
static char *registered_kt;
/* krb5.conf's default_keytab_name (or MIT's default), as MIT's
 * krb5_kt_default_name gives it without KRB5_KTNAME; read once. */
static pthread_once_t profile_once = PTHREAD_ONCE_INIT;
static char profile_kt[1024];

void gki_register_keytab(const char *name, size_t len)
{
    char *copy = NULL;

    if (name != NULL && len > 0) {
        copy = malloc(len + 1);
        if (copy == NULL) {
            return;
        }
        memcpy(copy, name, len);
        copy[len] = '\0';
    }
    pthread_mutex_lock(&kt_lock);
    free(registered_kt);
    registered_kt = copy;
    pthread_mutex_unlock(&kt_lock);
}

static void profile_read(void)
{
    krb5_context k = NULL;
    const char *env = secure_getenv("KRB5_KTNAME");

    /* krb5_kt_default_name answers KRB5_KTNAME first; with it set, the
     * profile's value is not needed until it is unset, which a running
     * process does not do: MIT's own default then. */
    if (env != NULL && env[0] != '\0') {
        snprintf(profile_kt, sizeof(profile_kt), "FILE:/etc/krb5.keytab");
        return;
    }
    if (krb5_init_context(&k) != 0 ||
        krb5_kt_default_name(k, profile_kt, (int)sizeof(profile_kt)) != 0) {
        profile_kt[0] = '\0';
    }
    if (k != NULL) {
        krb5_free_context(k);
    }
}

/* The keytab MIT's default acceptor credential would use now, copied to
 * out; -1 when it does not fit. */
int gki_default_keytab(char *out, size_t n)
{
    const char *env;
    int w = -1;

    pthread_mutex_lock(&kt_lock);
    if (registered_kt != NULL) {
        w = snprintf(out, n, "%s", registered_kt);
    }
    pthread_mutex_unlock(&kt_lock);
    if (w >= 0) {
        return (size_t)w < n ? 0 : -1;
    }
    env = secure_getenv("KRB5_KTNAME");
    if (env != NULL && env[0] != '\0') {
        w = snprintf(out, n, "%s", env);
    } else {
        (void)pthread_once(&profile_once, profile_read);
        w = snprintf(out, n, "%s", profile_kt);
    }
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* gk5 acceptor credentials, one per keytab name, kept for the process's
 * life (each holds its keytab's replay cache). */
#define KT_CREDS_MAX 16
static struct {
    char *name;
    gk5_acceptor_cred *cred;
} kt_creds[KT_CREDS_MAX];
static size_t n_kt_creds;

/* The gk5 credential for keytab, made at its first use; NULL (and the
 * reason in *err) when gk5 cannot make one. */
gk5_acceptor_cred *gki_kt_cred(const char *keytab, uint32_t *major,
                               uint32_t *err)
{
    gk5_acceptor_cred *cred = NULL;

    /* "FILE:/x", "WRFILE:/x" and "/x" are one file, with one replay
     * cache. */
    if (strncmp(keytab, "FILE:", 5) == 0) {
        keytab += 5;
    } else if (strncmp(keytab, "WRFILE:", 7) == 0) {
        keytab += 7;
    }
    if (*keytab == '\0') {
        *major = GK5_S_BAD_NAME; /* gk5 would take it for its default */
        *err = GK5_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    *major = GK5_S_COMPLETE;
    *err = 0;
    pthread_mutex_lock(&kt_lock);
    for (size_t i = 0; i < n_kt_creds; i++) {
        if (strcmp(kt_creds[i].name, keytab) == 0) {
            cred = kt_creds[i].cred;
            break;
        }
    }
    if (cred == NULL) {
        if (n_kt_creds == KT_CREDS_MAX) {
            *major = GK5_S_FAILURE;
            *err = GK5_ERR_NOMEM;
        } else {
            gk5_acceptor_opts opts = {.keytab = keytab};
            char *name = strdup(keytab);

            *major = name != NULL ? gk5_acceptor_cred_new(err, &opts, &cred)
                                  : (*err = GK5_ERR_NOMEM, GK5_S_FAILURE);
            if (GK5_ERROR(*major) == 0) {
                kt_creds[n_kt_creds].name = name;
                kt_creds[n_kt_creds].cred = cred;
                n_kt_creds++;
            } else {
                free(name);
                cred = NULL;
            }
        }
    }
    pthread_mutex_unlock(&kt_lock);
    return cred;
}

/* ---- credentials gss_acquire_cred made ---- */

struct cred_note {
    gss_cred_id_t mit; /* MIT's credential: the module's handle */
    char *keytab;      /* the keytab when it was made */
    char *name;        /* the desired name, MIT's display; NULL: any */
    struct cred_note *next;
};
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cred_note *notes;

static void note_free(struct cred_note *n)
{
    if (n != NULL) {
        free(n->keytab);
        free(n->name);
        free(n);
    }
}

void gki_cred_note(gss_cred_id_t mit, gss_name_t desired, const char *keytab)
{
    struct cred_note *n;
    char kt[1024];
    OM_uint32 minor;

    if (mit == GSS_C_NO_CREDENTIAL) {
        return;
    }
    if (keytab == NULL) {
        if (gki_default_keytab(kt, sizeof(kt)) != 0) {
            return;
        }
        keytab = kt;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL) {
        return;
    }
    n->mit = mit;
    n->keytab = strdup(keytab);
    if (desired != GSS_C_NO_NAME) {
        gss_buffer_desc text = GSS_C_EMPTY_BUFFER;

        if (!GSS_ERROR(gss_display_name(&minor, desired, &text, NULL))) {
            n->name = strndup(text.value, text.length);
            (void)gss_release_buffer(&minor, &text);
        }
        if (n->name == NULL) {
            note_free(n);
            return;
        }
    }
    if (n->keytab == NULL) {
        note_free(n);
        return;
    }
    pthread_mutex_lock(&notes_lock);
    n->next = notes;
    notes = n;
    pthread_mutex_unlock(&notes_lock);
}

void gki_cred_forget(gss_cred_id_t mit)
{
    struct cred_note **at, *gone = NULL;

    pthread_mutex_lock(&notes_lock);
    for (at = &notes; *at != NULL; at = &(*at)->next) {
        if ((*at)->mit == mit) {
            gone = *at;
            *at = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
    note_free(gone);
}

void gki_cred_moved(gss_cred_id_t from, gss_cred_id_t to)
{
    pthread_mutex_lock(&notes_lock);
    for (struct cred_note *n = notes; n != NULL; n = n->next) {
        if (n->mit == from) {
            n->mit = to;
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
}

/* The keytab and desired name noted for cred, copied; 0, or -1 when the
 * credential was not made by gss_acquire_cred for accepting. */
int gki_cred_lookup(gss_cred_id_t cred, char *kt, size_t kt_n, char **name)
{
    int found = -1;

    *name = NULL;
    pthread_mutex_lock(&notes_lock);
    for (struct cred_note *n = notes; n != NULL; n = n->next) {
        if (n->mit == cred) {
            int w = snprintf(kt, kt_n, "%s", n->keytab);

            if (w >= 0 && (size_t)w < kt_n &&
                (n->name == NULL || (*name = strdup(n->name)) != NULL)) {
                found = 0;
            }
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
    return found;
}
