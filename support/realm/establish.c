/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Establishing a pair of MIT contexts in-process (establish.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include "establish.h"

static uint32_t mit_fail(gk5_mit_status *st, enum gk5_mit_step *step,
                         enum gk5_mit_step at, const char *call,
                         OM_uint32 major, OM_uint32 minor)
{
    st->major = major;
    st->minor = minor;
    st->from_mit = 1;
    st->call = call;
    if (step != NULL) {
        *step = at;
    }
    return major;
}

static OM_uint32 import_name(const char *text, int host_based, gss_name_t *name,
                             OM_uint32 *minor)
{
    gss_buffer_desc buf;

    buf.value = (void *)(uintptr_t)text;
    buf.length = strlen(text);
    return gss_import_name(minor, &buf,
                           host_based ? GSS_C_NT_HOSTBASED_SERVICE
                                      : (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                           name);
}

uint32_t gk5_mit_establish_ends(gk5_mit_status *st,
                                const struct gk5_mit_ends *e, int32_t enctype,
                                gk5_mit_pair *pair, enum gk5_mit_step *step)
{
    gss_name_t client = GSS_C_NO_NAME, service = GSS_C_NO_NAME;
    gss_cred_id_t init_cred = GSS_C_NO_CREDENTIAL;
    gss_cred_id_t acc_cred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t init = GSS_C_NO_CONTEXT, acc = GSS_C_NO_CONTEXT;
    gss_buffer_desc to_acc = GSS_C_EMPTY_BUFFER, to_init = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0, rel = 0, init_flags = 0, acc_flags = 0;
    OM_uint32 init_major = GSS_S_CONTINUE_NEEDED;
    OM_uint32 acc_major = GSS_S_CONTINUE_NEEDED;
    gss_key_value_element_desc init_elems[2], acc_elems[2];
    gss_key_value_set_desc init_store = {0, init_elems};
    gss_key_value_set_desc acc_store = {0, acc_elems};
    int host_based = strchr(e->service, '/') == NULL;
    krb5_enctype wanted = enctype;
    uint32_t ret;

    st->major = GSS_S_COMPLETE;
    st->minor = 0;
    st->from_mit = 0;
    st->call = NULL;
    if (step != NULL) {
        *step = GK5_MIT_STEP_DONE;
    }
    pair->init = GSS_C_NO_CONTEXT;
    pair->acc = GSS_C_NO_CONTEXT;
    pair->init_flags = 0;
    pair->acc_flags = 0;

    if (e->client != NULL &&
        GSS_ERROR(major = import_name(e->client, 0, &client, &minor))) {
        ret = mit_fail(st, step, GK5_MIT_STEP_CLIENT_NAME,
                       "gss_import_name (client)", major, minor);
        goto cleanup;
    }
    if (GSS_ERROR(major =
                      import_name(e->service, host_based, &service, &minor))) {
        ret = mit_fail(st, step, GK5_MIT_STEP_SERVICE_NAME,
                       "gss_import_name (service)", major, minor);
        goto cleanup;
    }

    /* The initiator: initial credentials from a keytab go to a ccache of
     * our own, never the caller's default. */
    if (e->client_keytab != NULL) {
        init_elems[init_store.count++] =
            (gss_key_value_element_desc){"client_keytab", e->client_keytab};
    }
    if (e->ccache != NULL || e->client_keytab != NULL) {
        init_elems[init_store.count++] = (gss_key_value_element_desc){
            "ccache", e->ccache != NULL ? e->ccache : "MEMORY:gk5-interop"};
    }
    major = gss_acquire_cred_from(
        &minor, client, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
        GSS_C_INITIATE, &init_store, &init_cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, step, GK5_MIT_STEP_INIT_CRED,
                       "gss_acquire_cred_from (initiator)", major, minor);
        goto cleanup;
    }
    /* Only this enctype: for the ticket's session key (the TGS request
     * asks for it alone) and for the acceptor subkey (the authenticator's
     * enctype list, RFC 4537). */
    major = gss_krb5_set_allowable_enctypes(&minor, init_cred, 1, &wanted);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, step, GK5_MIT_STEP_ENCTYPE,
                       "gss_krb5_set_allowable_enctypes", major, minor);
        goto cleanup;
    }

    if (e->service_keytab != NULL) {
        acc_elems[acc_store.count++] =
            (gss_key_value_element_desc){"keytab", e->service_keytab};
    }
    if (e->rcache != NULL) {
        acc_elems[acc_store.count++] =
            (gss_key_value_element_desc){"rcache", e->rcache};
    }
    major = gss_acquire_cred_from(&minor, service, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &acc_store, &acc_cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, step, GK5_MIT_STEP_ACC_CRED,
                       "gss_acquire_cred_from (acceptor)", major, minor);
        goto cleanup;
    }

    /* AP-REQ, AP-REP: two legs; a few more rounds are tolerated. */
    for (int round = 0; round < 4; round++) {
        if (init_major == GSS_S_CONTINUE_NEEDED) {
            gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
            init_major = gss_init_sec_context(
                &minor, init_cred, &init, service, (gss_OID)gss_mech_krb5,
                GK5_MIT_REQ_FLAGS, 0, GSS_C_NO_CHANNEL_BINDINGS, &to_init, NULL,
                &out, &init_flags, NULL);
            (void)gss_release_buffer(&rel, &to_init);
            if (GSS_ERROR(init_major)) {
                (void)gss_release_buffer(&rel, &out);
                ret = mit_fail(st, step, GK5_MIT_STEP_INIT,
                               "gss_init_sec_context", init_major, minor);
                goto cleanup;
            }
            to_acc = out;
        }
        if (to_acc.length > 0) {
            gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
            acc_major = gss_accept_sec_context(
                &minor, &acc, acc_cred, &to_acc, GSS_C_NO_CHANNEL_BINDINGS,
                NULL, NULL, &out, &acc_flags, NULL, NULL);
            (void)gss_release_buffer(&rel, &to_acc);
            if (GSS_ERROR(acc_major)) {
                (void)gss_release_buffer(&rel, &out);
                ret = mit_fail(st, step, GK5_MIT_STEP_ACCEPT,
                               "gss_accept_sec_context", acc_major, minor);
                goto cleanup;
            }
            to_init = out;
        }
        if (init_major == GSS_S_COMPLETE && acc_major == GSS_S_COMPLETE &&
            to_init.length == 0) {
            break;
        }
    }
    if (init_major != GSS_S_COMPLETE || acc_major != GSS_S_COMPLETE) {
        ret = mit_fail(st, step, GK5_MIT_STEP_INCOMPLETE,
                       "context establishment (did not complete)",
                       GSS_S_FAILURE, 0);
        goto cleanup;
    }
    if ((init_flags & GK5_MIT_REQ_FLAGS) != GK5_MIT_REQ_FLAGS ||
        (acc_flags & GK5_MIT_REQ_FLAGS) != GK5_MIT_REQ_FLAGS) {
        ret = mit_fail(st, step, GK5_MIT_STEP_FLAGS,
                       "context establishment (flags not granted)",
                       GSS_S_FAILURE, 0);
        goto cleanup;
    }
    pair->init = init;
    pair->acc = acc;
    pair->init_flags = init_flags;
    pair->acc_flags = acc_flags;
    init = GSS_C_NO_CONTEXT;
    acc = GSS_C_NO_CONTEXT;
    ret = GSS_S_COMPLETE;

cleanup:
    (void)gss_release_buffer(&rel, &to_acc);
    (void)gss_release_buffer(&rel, &to_init);
    (void)gss_delete_sec_context(&rel, &init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&rel, &acc, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&rel, &init_cred);
    (void)gss_release_cred(&rel, &acc_cred);
    (void)gss_release_name(&rel, &client);
    (void)gss_release_name(&rel, &service);
    return ret;
}

uint32_t gk5_mit_establish(gk5_mit_status *st, const gk5_mit_realm *realm,
                           int32_t enctype, gk5_mit_pair *pair)
{
    char client_kt[PATH_MAX], service_kt[PATH_MAX], ccache[PATH_MAX + 16];
    char rcache[PATH_MAX + 16];
    const char *base = strrchr(realm->dir, '/');
    struct gk5_mit_ends ends = {
        .client = GK5_MIT_CLIENT,
        .client_keytab = client_kt,
        .ccache = ccache,
        .service = GK5_MIT_SERVICE,
        .service_keytab = service_kt,
        .rcache = rcache,
    };

    base = base != NULL ? base + 1 : realm->dir;
    if (gk5_mit_realm_path(client_kt, sizeof(client_kt), realm,
                           "client.keytab") != 0 ||
        gk5_mit_realm_path(service_kt, sizeof(service_kt), realm,
                           "service.keytab") != 0 ||
        snprintf(ccache, sizeof(ccache), "MEMORY:%s", base) >=
            (int)sizeof(ccache) ||
        snprintf(rcache, sizeof(rcache), "file2:%s/rcache", realm->dir) >=
            (int)sizeof(rcache)) {
        pair->init = GSS_C_NO_CONTEXT;
        pair->acc = GSS_C_NO_CONTEXT;
        return mit_fail(st, NULL, GK5_MIT_STEP_SETUP, "gk5_mit_establish",
                        GSS_S_FAILURE, 0);
    }
    return gk5_mit_establish_ends(st, &ends, enctype, pair, NULL);
}

void gk5_mit_pair_release(gk5_mit_pair *pair)
{
    OM_uint32 minor = 0;

    if (pair == NULL) {
        return;
    }
    (void)gss_delete_sec_context(&minor, &pair->init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &pair->acc, GSS_C_NO_BUFFER);
}
