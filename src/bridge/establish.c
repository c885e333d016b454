/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libgk5_mit's public calls (include/gk5/mit.h): MIT's GSS-API initiator
 * and acceptor as step-by-step helpers for RPC layers, an established MIT
 * context handed over to gk5 (gk5_ctx_from_mit), and status words for both
 * sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_krb5.h>
#include <krb5.h>
#include <openssl/rand.h>

#include <gk5/mit.h>

#include "bridge/lucid.h"
#include "common/util.h"

/* ---- status ---- */

/* MIT's status of this thread's last MIT failure (gk5_mit_last_error). */
static __thread gk5_mit_status last_mit;
static __thread char status_words[1024];

/* Keep MIT's status for gk5_mit_last_error; answer major, GK5_ERR_MIT. */
static uint32_t mit_failed(uint32_t *minor, const char *call, OM_uint32 major,
                           OM_uint32 mit_minor)
{
    last_mit.major = major;
    last_mit.minor = mit_minor;
    last_mit.from_mit = 1;
    last_mit.call = call;
    *minor = GK5_ERR_MIT;
    return major;
}

/* A bridge status (either side) as a major and a minor. */
static uint32_t from_status(uint32_t *minor, const gk5_mit_status *st)
{
    if (st->from_mit) {
        return mit_failed(minor, st->call, st->major, st->minor);
    }
    *minor = st->minor;
    return st->major;
}

const char *gk5_mit_display_status(uint32_t major, uint32_t minor)
{
    char mit[768];

    (void)snprintf(status_words, sizeof(status_words), "%s",
                   gk5_display_status(major, minor));
    if (GK5_ERR_CODE(minor) == GK5_ERR_MIT && last_mit.from_mit) {
        (void)gk5_mit_status_text(&last_mit, mit, sizeof(mit));
        size_t used = strlen(status_words);
        (void)snprintf(status_words + used, sizeof(status_words) - used,
                       " -- %s", mit);
    }
    return status_words;
}

void gk5_mit_last_error(uint32_t *mit_major, uint32_t *mit_minor,
                        const char **call)
{
    if (mit_major != NULL) {
        *mit_major = last_mit.from_mit ? last_mit.major : 0;
    }
    if (mit_minor != NULL) {
        *mit_minor = last_mit.from_mit ? last_mit.minor : 0;
    }
    if (call != NULL) {
        *call = last_mit.from_mit ? last_mit.call : NULL;
    }
}

/* ---- contexts ---- */

/* Export (consuming) and import by the lucid path; *enctype even when gk5
 * refuses it. */
static uint32_t take_context(uint32_t *minor, gss_ctx_id_t *mit_ctx,
                             int32_t *enctype, gk5_ctx **ctx)
{
    gk5_mit_status st;

    uint32_t major =
        gk5_mit_import_by_path(&st, mit_ctx, GK5_MIT_PATH_LUCID, enctype, ctx);
    if (GK5_ERROR(major) != 0) {
        return from_status(minor, &st);
    }
    *minor = 0;
    return GK5_S_COMPLETE;
}

uint32_t gk5_ctx_from_mit(uint32_t *minor, gss_ctx_id_t *mit_ctx, gk5_ctx **ctx)
{
    uint32_t dummy;

    if (minor == NULL) {
        minor = &dummy;
    }
    *minor = 0;
    if (ctx == NULL) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *ctx = NULL;
    if (mit_ctx == NULL || *mit_ctx == GSS_C_NO_CONTEXT) {
        *minor = GK5_ERR_CTX_NO_CONTEXT;
        return GK5_S_NO_CONTEXT;
    }
    return take_context(minor, mit_ctx, NULL, ctx);
}

/* ---- names and buffers ---- */

/* "service@host" is a host-based service name; anything else a krb5
 * principal name ("service/host@REALM", "user@REALM" with a realm that
 * contains a dot or is upper case is still host-based by this rule, so
 * principals with '@' must be given with their '/' part). */
static uint32_t import_target(uint32_t *minor, const char *target,
                              gss_name_t *name)
{
    gss_buffer_desc buf = {strlen(target), (void *)(uintptr_t)target};
    gss_OID type = strchr(target, '/') == NULL
                       ? (gss_OID)GSS_C_NT_HOSTBASED_SERVICE
                       : (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME;
    OM_uint32 mit_minor = 0;

    OM_uint32 major = gss_import_name(&mit_minor, &buf, type, name);
    if (GSS_ERROR(major)) {
        return mit_failed(minor, "gss_import_name", major, mit_minor);
    }
    return GK5_S_COMPLETE;
}

static uint32_t import_principal(uint32_t *minor, const char *principal,
                                 gss_name_t *name)
{
    gss_buffer_desc buf = {strlen(principal), (void *)(uintptr_t)principal};
    OM_uint32 mit_minor = 0;

    OM_uint32 major = gss_import_name(
        &mit_minor, &buf, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, name);
    if (GSS_ERROR(major)) {
        return mit_failed(minor, "gss_import_name", major, mit_minor);
    }
    return GK5_S_COMPLETE;
}

/* MIT's token into a gk5_buffer (malloc'd, for gk5_buffer_release). */
static uint32_t give_token(uint32_t *minor, gss_buffer_desc *mit,
                           gk5_buffer *out)
{
    OM_uint32 rel = 0;

    out->length = 0;
    out->value = NULL;
    if (mit->length > 0) {
        out->value = malloc(mit->length);
        if (out->value == NULL) {
            (void)gss_release_buffer(&rel, mit);
            *minor = GK5_ERR_NOMEM;
            return GK5_S_FAILURE;
        }
        memcpy(out->value, mit->value, mit->length);
        out->length = mit->length;
    }
    (void)gss_release_buffer(&rel, mit);
    return GK5_S_COMPLETE;
}

/* ---- initiator ---- */

struct gk5_mit_initiator {
    gss_cred_id_t cred;
    gss_name_t target;
    gss_ctx_id_t ctx;
    OM_uint32 req_flags;
    int complete;
    /* "MEMORY:gk5-init-<random>" when a client keytab came without a
     * ccache: the initiator's own cache, destroyed with it. */
    char own_ccache[48];
};

/* A client keytab without a ccache would have MIT fill the process's
 * default ccache: initiators on other threads then initialise and read
 * one cache at once, and one of them finds it empty ("Matching credential
 * not found").  Such an initiator gets a MEMORY ccache of its own. */
static int own_ccache_name(char *buf, size_t len)
{
    uint8_t r[8];

    if (RAND_bytes(r, sizeof(r)) != 1) {
        return -1;
    }
    (void)snprintf(buf, len, "MEMORY:gk5-init-%02x%02x%02x%02x%02x%02x%02x%02x",
                   r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    return 0;
}

static void own_ccache_destroy(const char *name)
{
    krb5_context kctx = NULL;
    krb5_ccache cc = NULL;

    if (name[0] == '\0' || krb5_init_context(&kctx) != 0) {
        return;
    }
    if (krb5_cc_resolve(kctx, name, &cc) == 0) {
        (void)krb5_cc_destroy(kctx, cc);
    }
    krb5_free_context(kctx);
}

static uint32_t initiator_cred(uint32_t *minor,
                               const gk5_mit_initiator_options *o,
                               const char *own_ccache, gss_cred_id_t *cred)
{
    gss_name_t name = GSS_C_NO_NAME;
    gss_key_value_element_desc elems[2];
    gss_key_value_set_desc store = {0, elems};
    OM_uint32 mit_minor = 0, rel = 0;
    uint32_t major = GK5_S_COMPLETE;

    if (o->principal != NULL) {
        major = import_principal(minor, o->principal, &name);
        if (GK5_ERROR(major) != 0) {
            goto cleanup;
        }
    }
    if (o->ccache != NULL) {
        elems[store.count++] =
            (gss_key_value_element_desc){"ccache", o->ccache};
    } else if (own_ccache[0] != '\0') {
        elems[store.count++] =
            (gss_key_value_element_desc){"ccache", own_ccache};
    }
    if (o->client_keytab != NULL) {
        elems[store.count++] =
            (gss_key_value_element_desc){"client_keytab", o->client_keytab};
    }
    OM_uint32 m = gss_acquire_cred_from(
        &mit_minor, name, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
        GSS_C_INITIATE, store.count > 0 ? &store : GSS_C_NO_CRED_STORE, cred,
        NULL, NULL);
    if (GSS_ERROR(m)) {
        major = mit_failed(minor, "gss_acquire_cred_from (initiator)", m,
                           mit_minor);
        goto cleanup;
    }
    if (o->enctypes != NULL && o->n_enctypes > 0) {
        krb5_enctype wanted[32];
        if (o->n_enctypes > GK5_ARRAY_SIZE(wanted)) {
            *minor = GK5_ERR_INVALID_ARGUMENT;
            major = GK5_S_FAILURE;
            goto cleanup;
        }
        for (size_t i = 0; i < o->n_enctypes; i++) {
            wanted[i] = o->enctypes[i];
        }
        m = gss_krb5_set_allowable_enctypes(&mit_minor, *cred,
                                            (OM_uint32)o->n_enctypes, wanted);
        if (GSS_ERROR(m)) {
            major = mit_failed(minor, "gss_krb5_set_allowable_enctypes", m,
                               mit_minor);
            goto cleanup;
        }
    }

cleanup:
    if (GK5_ERROR(major) != 0) {
        (void)gss_release_cred(&rel, cred);
    }
    (void)gss_release_name(&rel, &name);
    return major;
}

uint32_t gk5_mit_initiator_create(uint32_t *minor, const char *target,
                                  const gk5_mit_initiator_options *opts,
                                  gk5_mit_initiator **out)
{
    static const gk5_mit_initiator_options defaults;
    gk5_mit_initiator *init = NULL;
    uint32_t major;

    *minor = 0;
    *out = NULL;
    if (target == NULL || target[0] == '\0') {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_FAILURE;
    }
    if (opts == NULL) {
        opts = &defaults;
    }
    init = calloc(1, sizeof(*init));
    if (init == NULL) {
        *minor = GK5_ERR_NOMEM;
        return GK5_S_FAILURE;
    }
    init->cred = GSS_C_NO_CREDENTIAL;
    init->target = GSS_C_NO_NAME;
    init->ctx = GSS_C_NO_CONTEXT;
    init->req_flags =
        opts->req_flags != 0
            ? opts->req_flags
            : GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG;
    major = import_target(minor, target, &init->target);
    if (GK5_ERROR(major) != 0) {
        goto cleanup;
    }
    /* Without any option MIT's default credential serves (the ccache of
     * KRB5CCNAME); an enctype list needs a credential to hang on. */
    if (opts->principal != NULL || opts->ccache != NULL ||
        opts->client_keytab != NULL ||
        (opts->enctypes != NULL && opts->n_enctypes > 0)) {
        if (opts->client_keytab != NULL && opts->ccache == NULL &&
            own_ccache_name(init->own_ccache, sizeof(init->own_ccache)) != 0) {
            *minor = GK5_ERR_CRYPTO_BACKEND; /* RAND_bytes */
            major = GK5_S_FAILURE;
            goto cleanup;
        }
        major = initiator_cred(minor, opts, init->own_ccache, &init->cred);
        if (GK5_ERROR(major) != 0) {
            goto cleanup;
        }
    }
    *out = init;
    init = NULL;
    major = GK5_S_COMPLETE;

cleanup:
    gk5_mit_initiator_free(init);
    return major;
}

uint32_t gk5_mit_initiator_step(uint32_t *minor, gk5_mit_initiator *init,
                                const gk5_buffer *in, gk5_buffer *out)
{
    gss_buffer_desc input = GSS_C_EMPTY_BUFFER, output = GSS_C_EMPTY_BUFFER;
    OM_uint32 mit_minor = 0, rel = 0;

    *minor = 0;
    out->length = 0;
    out->value = NULL;
    if (init == NULL || init->complete) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_FAILURE;
    }
    if (in != NULL) {
        input.length = in->length;
        input.value = in->value;
    }
    OM_uint32 major = gss_init_sec_context(
        &mit_minor, init->cred, &init->ctx, init->target,
        (gss_OID)gss_mech_krb5, init->req_flags, 0, GSS_C_NO_CHANNEL_BINDINGS,
        &input, NULL, &output, NULL, NULL);
    if (GSS_ERROR(major)) {
        (void)gss_release_buffer(&rel, &output);
        return mit_failed(minor, "gss_init_sec_context", major, mit_minor);
    }
    uint32_t ret = give_token(minor, &output, out);
    if (GK5_ERROR(ret) != 0) {
        return ret;
    }
    if (major == GSS_S_COMPLETE) {
        init->complete = 1;
        return GK5_S_COMPLETE;
    }
    return GK5_S_CONTINUE_NEEDED;
}

uint32_t gk5_mit_initiator_finish(uint32_t *minor, gk5_mit_initiator *init,
                                  int32_t *enctype, gk5_ctx **ctx)
{
    *minor = 0;
    *ctx = NULL;
    if (enctype != NULL) {
        *enctype = 0;
    }
    if (init == NULL || !init->complete) {
        *minor = GK5_ERR_CTX_NO_CONTEXT;
        return GK5_S_NO_CONTEXT;
    }
    return take_context(minor, &init->ctx, enctype, ctx);
}

void gk5_mit_initiator_free(gk5_mit_initiator *init)
{
    OM_uint32 rel = 0;

    if (init == NULL) {
        return;
    }
    (void)gss_delete_sec_context(&rel, &init->ctx, GSS_C_NO_BUFFER);
    (void)gss_release_name(&rel, &init->target);
    (void)gss_release_cred(&rel, &init->cred);
    own_ccache_destroy(init->own_ccache);
    free(init);
}

/* ---- acceptor ---- */

struct gk5_mit_acceptor_cred {
    gss_cred_id_t cred;
};

struct gk5_mit_acceptor {
    const gk5_mit_acceptor_cred *cred;
    gss_ctx_id_t ctx;
    gss_name_t client;
    OM_uint32 ret_flags;
    int complete;
};

uint32_t gk5_mit_acceptor_cred_create(uint32_t *minor, const char *keytab,
                                      const char *principal,
                                      gk5_mit_acceptor_cred **out)
{
    gk5_mit_acceptor_cred *c = NULL;
    gss_name_t name = GSS_C_NO_NAME;
    gss_key_value_element_desc elem = {"keytab", keytab};
    gss_key_value_set_desc store = {1, &elem};
    OM_uint32 mit_minor = 0, rel = 0;
    uint32_t major;

    *minor = 0;
    *out = NULL;
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        *minor = GK5_ERR_NOMEM;
        return GK5_S_FAILURE;
    }
    c->cred = GSS_C_NO_CREDENTIAL;
    if (principal != NULL) {
        major = import_target(minor, principal, &name);
        if (GK5_ERROR(major) != 0) {
            goto cleanup;
        }
    }
    OM_uint32 m = gss_acquire_cred_from(
        &mit_minor, name, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
        GSS_C_ACCEPT, keytab != NULL ? &store : GSS_C_NO_CRED_STORE, &c->cred,
        NULL, NULL);
    if (GSS_ERROR(m)) {
        major =
            mit_failed(minor, "gss_acquire_cred_from (acceptor)", m, mit_minor);
        goto cleanup;
    }
    *out = c;
    c = NULL;
    major = GK5_S_COMPLETE;

cleanup:
    (void)gss_release_name(&rel, &name);
    gk5_mit_acceptor_cred_free(c);
    return major;
}

void gk5_mit_acceptor_cred_free(gk5_mit_acceptor_cred *cred)
{
    OM_uint32 rel = 0;

    if (cred == NULL) {
        return;
    }
    (void)gss_release_cred(&rel, &cred->cred);
    free(cred);
}

uint32_t gk5_mit_acceptor_create(uint32_t *minor,
                                 const gk5_mit_acceptor_cred *cred,
                                 gk5_mit_acceptor **out)
{
    *minor = 0;
    *out = NULL;
    if (cred == NULL) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_FAILURE;
    }
    gk5_mit_acceptor *acc = calloc(1, sizeof(*acc));
    if (acc == NULL) {
        *minor = GK5_ERR_NOMEM;
        return GK5_S_FAILURE;
    }
    acc->cred = cred;
    acc->ctx = GSS_C_NO_CONTEXT;
    acc->client = GSS_C_NO_NAME;
    *out = acc;
    return GK5_S_COMPLETE;
}

uint32_t gk5_mit_acceptor_step(uint32_t *minor, gk5_mit_acceptor *acc,
                               const gk5_buffer *in, gk5_buffer *out)
{
    gss_buffer_desc input = GSS_C_EMPTY_BUFFER, output = GSS_C_EMPTY_BUFFER;
    OM_uint32 mit_minor = 0;

    *minor = 0;
    out->length = 0;
    out->value = NULL;
    if (acc == NULL || acc->complete || in == NULL || in->length == 0) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_FAILURE;
    }
    input.length = in->length;
    input.value = in->value;
    OM_uint32 major = gss_accept_sec_context(
        &mit_minor, &acc->ctx, acc->cred->cred, &input,
        GSS_C_NO_CHANNEL_BINDINGS,
        acc->client == GSS_C_NO_NAME ? &acc->client : NULL, NULL, &output,
        &acc->ret_flags, NULL, NULL);
    uint32_t dummy = 0;
    /* An error token for the initiator is passed on too. */
    uint32_t given =
        give_token(GSS_ERROR(major) ? &dummy : minor, &output, out);
    if (GSS_ERROR(major)) {
        return mit_failed(minor, "gss_accept_sec_context", major, mit_minor);
    }
    if (GK5_ERROR(given) != 0) {
        return given;
    }
    if (major == GSS_S_COMPLETE) {
        acc->complete = 1;
        return GK5_S_COMPLETE;
    }
    return GK5_S_CONTINUE_NEEDED;
}

uint32_t gk5_mit_acceptor_finish(uint32_t *minor, gk5_mit_acceptor *acc,
                                 char **principal, uint32_t *ret_flags,
                                 int32_t *enctype, gk5_ctx **ctx)
{
    gss_buffer_desc words = GSS_C_EMPTY_BUFFER;
    OM_uint32 mit_minor = 0, rel = 0;

    *minor = 0;
    *ctx = NULL;
    if (principal != NULL) {
        *principal = NULL;
    }
    if (ret_flags != NULL) {
        *ret_flags = 0;
    }
    if (enctype != NULL) {
        *enctype = 0;
    }
    if (acc == NULL || !acc->complete) {
        *minor = GK5_ERR_CTX_NO_CONTEXT;
        return GK5_S_NO_CONTEXT;
    }
    if (principal != NULL) {
        OM_uint32 m = gss_display_name(&mit_minor, acc->client, &words, NULL);
        if (GSS_ERROR(m)) {
            return mit_failed(minor, "gss_display_name", m, mit_minor);
        }
        *principal = strndup(words.value, words.length);
        (void)gss_release_buffer(&rel, &words);
        if (*principal == NULL) {
            *minor = GK5_ERR_NOMEM;
            return GK5_S_FAILURE;
        }
    }
    if (ret_flags != NULL) {
        *ret_flags = acc->ret_flags;
    }
    return take_context(minor, &acc->ctx, enctype, ctx);
}

/* As gk5_mit_initiator_free, for the other side's struct (it holds a
 * client name and no credential or ccache of its own). */
void gk5_mit_acceptor_free(gk5_mit_acceptor *acc)
{
    OM_uint32 rel = 0;

    if (acc == NULL) {
        return;
    }
    (void)gss_delete_sec_context(&rel, &acc->ctx, GSS_C_NO_BUFFER);
    (void)gss_release_name(&rel, &acc->client);
    free(acc);
}
