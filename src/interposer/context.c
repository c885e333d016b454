/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Interposed security contexts: establishment by MIT's krb5 mechanism,
 * then the takeover by gk5 (the lucid data of MIT's complete context,
 * which stays alive for the calls that still go to MIT), and the context
 * calls that must respect gk5's sequence state.
 */
#include <stdlib.h>
#include <string.h>

#include "bridge/lucid.h"
#include "common/util.h"
#include "interposer/interposer.h"

gki_ctx *gki_ctx_new(void)
{
    gki_ctx *c = calloc(1, sizeof(*c));

    if (c != NULL) {
        c->mit = GSS_C_NO_CONTEXT;
        c->accept = GSS_C_NO_CREDENTIAL;
    }
    return c;
}

static void trace_counts(const gki_ctx *c)
{
    gki_trace("gk5_mech: context %p deleted; gk5 served wrap %lu, unwrap "
              "%lu, get_mic %lu, verify_mic %lu, wrap_iov %lu, unwrap_iov "
              "%lu, get_mic_iov %lu, verify_mic_iov %lu",
              (const void *)c, atomic_load(&c->n.wrap),
              atomic_load(&c->n.unwrap), atomic_load(&c->n.get_mic),
              atomic_load(&c->n.verify_mic), atomic_load(&c->n.wrap_iov),
              atomic_load(&c->n.unwrap_iov), atomic_load(&c->n.get_mic_iov),
              atomic_load(&c->n.verify_mic_iov));
}

void gki_ctx_free(gki_ctx *c)
{
    OM_uint32 tmp;

    if (c == NULL) {
        return;
    }
    if (c->gk5 != NULL) {
        trace_counts(c);
    }
    gk5_ctx_free(c->gk5); /* wipes the keys */
    if (c->mit != GSS_C_NO_CONTEXT) {
        (void)gss_delete_sec_context(&tmp, &c->mit, GSS_C_NO_BUFFER);
    }
    if (c->accept != GSS_C_NO_CREDENTIAL) {
        (void)gss_release_cred(&tmp, &c->accept);
    }
    free(c->initiator);
    free(c->pac.bytes);
    free(c->acceptor);
    free(c);
}

OM_uint32 gki_native_unavailable(OM_uint32 *minor, const gki_ctx *c,
                                 const char *call)
{
    gki_trace("gk5_mech: context %p (accepted natively): %s unavailable",
              (const void *)c, call);
    if (minor != NULL) {
        *minor = 0;
    }
    return GSS_S_UNAVAILABLE;
}

void gki_takeover(gki_ctx *c)
{
    gk5_mit_status st;
    gk5_mit_lucid *lucid = NULL;
    gk5_ctx *g = NULL;
    OM_uint32 minor = 0, flags = 0;
    uint32_t major, m = 0;
    char words[512];

    if (GSS_ERROR(gss_inquire_context(&minor, c->mit, NULL, NULL, NULL, NULL,
                                      &flags, NULL, NULL))) {
        gki_trace("gk5_mech: context %p stays with MIT: "
                  "gss_inquire_context failed",
                  (void *)c);
        return;
    }
    c->flags = flags;
    if (flags & GSS_C_DCE_STYLE) {
        gki_trace("gk5_mech: context %p stays with MIT: DCE style", (void *)c);
        return;
    }
    major = gk5_mit_inquire_lucid(&st, c->mit, &lucid);
    if (GK5_ERROR(major) != 0) {
        gki_trace("gk5_mech: context %p stays with MIT: %s", (void *)c,
                  gk5_mit_status_text(&st, words, sizeof(words)));
        return;
    }
    major = gk5_ctx_import_lucid(&m, gk5_mit_lucid_fields(lucid), &g);
    if (GK5_ERROR(major) != 0) {
        gki_trace("gk5_mech: context %p (enctype %d) stays with MIT: %s",
                  (void *)c, (int)gk5_mit_lucid_enctype(lucid),
                  gk5_display_status(major, m));
        goto cleanup;
    }
    /* MIT checks replays and order only for the flags the context was
     * established with; so does gk5 from here on. */
    major = gk5_ctx_set_flags(
        &m, g, flags & (GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG));
    if (GK5_ERROR(major) != 0) {
        gki_trace("gk5_mech: context %p stays with MIT: %s", (void *)c,
                  gk5_display_status(major, m));
        goto cleanup;
    }
    gk5_ctx_info info;
    if (!GK5_ERROR(gk5_ctx_inquire(&m, g, &info))) {
        gki_trace("gk5_mech: context %p served by gk5: %s (%d), %s, "
                  "flags 0x%x",
                  (void *)c, info.enctype_name, (int)info.enctype,
                  info.initiator ? "initiator" : "acceptor", (unsigned)flags);
    }
    c->gk5 = g;
    g = NULL;

cleanup:
    gk5_ctx_free(g);
    gk5_mit_lucid_free(lucid);
}

/* ---- establishment ---- */

/* The context a leg of establishment works on: new on the first leg;
 * GSS_S_FAILURE once complete (nothing more to do). */
static OM_uint32 leg_start(OM_uint32 *minor, gss_ctx_id_t *context_handle,
                           gki_ctx **c, int *fresh)
{
    if (minor == NULL || context_handle == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    *c = (gki_ctx *)*context_handle;
    if (*c == NULL) {
        *c = gki_ctx_new();
        if (*c == NULL) {
            return GSS_S_FAILURE;
        }
        *fresh = 1;
    } else if ((*c)->open) {
        return GSS_S_FAILURE;
    }
    return GSS_S_COMPLETE;
}

/* After MIT's leg: a failed first leg (or one that left MIT no context)
 * frees ours; a complete context is taken over by gk5 if it can. */
static OM_uint32 leg_end(OM_uint32 major, gss_ctx_id_t *context_handle,
                         gki_ctx *c, int fresh)
{
    if (GSS_ERROR(major)) {
        if (fresh || c->mit == GSS_C_NO_CONTEXT) {
            gki_ctx_free(c);
            *context_handle = GSS_C_NO_CONTEXT;
        }
        return major;
    }
    *context_handle = (gss_ctx_id_t)c;
    if (major == GSS_S_COMPLETE) {
        c->open = 1;
        gki_takeover(c);
    }
    return major;
}

/* The two establishment legs share leg_start() and leg_end(); what is left
 * alike between them is MIT's two signatures and the one call each makes,
 * which cannot be one function. */
GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_init_sec_context(
    OM_uint32 *minor, gss_cred_id_t cred, gss_ctx_id_t *context_handle,
    gss_name_t target, gss_OID mech_type, OM_uint32 req_flags,
    OM_uint32 time_req, gss_channel_bindings_t cb, gss_buffer_t input,
    gss_OID *actual_mech, gss_buffer_t output, OM_uint32 *ret_flags,
    OM_uint32 *time_rec)
{
    gki_ctx *c;
    gss_OID actual = GSS_C_NO_OID;
    OM_uint32 major;
    int fresh = 0;

    major = leg_start(minor, context_handle, &c, &fresh);
    if (major != GSS_S_COMPLETE) {
        return major;
    }
    major = gki_name_mit(minor, target, &target);
    if (GSS_ERROR(major)) {
        return leg_end(major, context_handle, c, fresh);
    }
    major = gss_init_sec_context(
        minor, cred, &c->mit, target, gki_special_oid(mech_type), req_flags,
        time_req, cb, input, &actual, output, ret_flags, time_rec);
    if (actual_mech != NULL) {
        *actual_mech =
            gki_public_oid(actual != GSS_C_NO_OID ? actual : mech_type);
    }
    return leg_end(major, context_handle, c, fresh);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_accept_sec_context(
    OM_uint32 *minor, gss_ctx_id_t *context_handle, gss_cred_id_t cred,
    gss_buffer_t input, gss_channel_bindings_t cb, gss_name_t *src_name,
    gss_OID *mech_type, gss_buffer_t output, OM_uint32 *ret_flags,
    OM_uint32 *time_rec, gss_cred_id_t *delegated)
{
    gki_ctx *c;
    gss_OID actual = GSS_C_NO_OID;
    OM_uint32 major;
    int fresh = 0;

    major = leg_start(minor, context_handle, &c, &fresh);
    if (major != GSS_S_COMPLETE) {
        return major;
    }
    /* gk5's own acceptor first, when the config asks for it; what it
     * cannot serve goes to MIT's with the same token. */
    if (fresh) {
        major =
            gki_native_accept(minor, c, cred, input, cb, src_name, mech_type,
                              output, ret_flags, time_rec, delegated);
        if (major != GKI_TO_MIT) {
            if (GSS_ERROR(major)) {
                gki_ctx_free(c);
                *context_handle = GSS_C_NO_CONTEXT;
            } else {
                *context_handle = (gss_ctx_id_t)c;
            }
            return major;
        }
    }
    /* MIT's accept through the special OID needs a credential for it (with
     * none, the mechglue would come back here): the default acceptor
     * credential, made once per context, for every krb5 OID a token may
     * name (RFC 1964's, the pre-RFC one, Microsoft's). */
    if (cred == GSS_C_NO_CREDENTIAL && c->accept == GSS_C_NO_CREDENTIAL) {
        major = gss_acquire_cred(minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                 gki_all_special_set(), GSS_C_ACCEPT,
                                 &c->accept, NULL, NULL);
        if (GSS_ERROR(major)) {
            return leg_end(major, context_handle, c, fresh);
        }
    }
    major = gss_accept_sec_context(
        minor, &c->mit, cred != GSS_C_NO_CREDENTIAL ? cred : c->accept, input,
        cb, src_name, &actual, output, ret_flags, time_rec, delegated);
    if (mech_type != NULL) {
        *mech_type =
            gki_public_oid(actual != GSS_C_NO_OID ? actual : &gki_mechs[0]);
    }
    return leg_end(major, context_handle, c, fresh);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_delete_sec_context(
    OM_uint32 *minor, gss_ctx_id_t *context_handle, gss_buffer_t output_token)
{
    if (minor == NULL || context_handle == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (output_token != GSS_C_NO_BUFFER) {
        output_token->length = 0;
        output_token->value = NULL;
    }
    gki_ctx_free((gki_ctx *)*context_handle);
    *context_handle = GSS_C_NO_CONTEXT;
    return GSS_S_COMPLETE;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_process_context_token(
    OM_uint32 *minor, gss_ctx_id_t handle, gss_buffer_t token)
{
    gki_ctx *c = (gki_ctx *)handle;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        return gki_native_unavailable(minor, c, "gss_process_context_token");
    }
    return gss_process_context_token(minor, c->mit, token);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_context_time(OM_uint32 *minor,
                                                     gss_ctx_id_t handle,
                                                     OM_uint32 *time_rec)
{
    gki_ctx *c = (gki_ctx *)handle;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        *minor = 0;
        return gki_native_ctx_time(c, time_rec);
    }
    return gss_context_time(minor, c->mit, time_rec);
}

/* gss_inquire_context of a natively accepted context: the names as MIT
 * krb5 names (what MIT's own context would give), the rest from gk5's
 * accept. */
static OM_uint32 native_inquire(OM_uint32 *minor, const gki_ctx *c,
                                gss_name_t *src_name, gss_name_t *targ_name,
                                OM_uint32 *lifetime_rec, gss_OID *mech_type,
                                OM_uint32 *ctx_flags, int *locally_initiated,
                                int *open)
{
    OM_uint32 major, tmp;

    *minor = 0;
    if (src_name != NULL) {
        major = gki_native_name(minor, c->initiator, &c->pac, src_name);
        if (GSS_ERROR(major)) {
            return major;
        }
    }
    if (targ_name != NULL) {
        major = gki_native_name(minor, c->acceptor, NULL, targ_name);
        if (GSS_ERROR(major)) {
            if (src_name != NULL) {
                (void)gss_release_name(&tmp, src_name);
            }
            return major;
        }
    }
    if (lifetime_rec != NULL) {
        (void)gki_native_ctx_time(c, lifetime_rec);
    }
    if (mech_type != NULL) {
        *mech_type = c->mech;
    }
    if (ctx_flags != NULL) {
        *ctx_flags = c->flags;
    }
    if (locally_initiated != NULL) {
        *locally_initiated = 0;
    }
    if (open != NULL) {
        *open = 1;
    }
    return GSS_S_COMPLETE;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_context(
    OM_uint32 *minor, gss_ctx_id_t handle, gss_name_t *src_name,
    gss_name_t *targ_name, OM_uint32 *lifetime_rec, gss_OID *mech_type,
    OM_uint32 *ctx_flags, int *locally_initiated, int *open)
{
    gki_ctx *c = (gki_ctx *)handle;
    gss_OID mech = GSS_C_NO_OID;
    OM_uint32 major;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        return native_inquire(minor, c, src_name, targ_name, lifetime_rec,
                              mech_type, ctx_flags, locally_initiated, open);
    }
    major =
        gss_inquire_context(minor, c->mit, src_name, targ_name, lifetime_rec,
                            &mech, ctx_flags, locally_initiated, open);
    if (mech_type != NULL) {
        *mech_type =
            gki_public_oid(mech != GSS_C_NO_OID ? mech : &gki_mechs[0]);
    }
    return major;
}

/* ---- what would carry sequence numbers out of the context ---- */

/* GSS_KRB5_EXPORT_LUCID_SEC_CONTEXT_OID, 1.2.840.113554.1.2.2.5.6, then
 * the version asked for. */
static int is_lucid_oid(gss_const_OID oid)
{
    static const uint8_t prefix[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12,
                                     0x01, 0x02, 0x02, 0x05, 0x06};

    /* OIDs are public: a plain memcmp. */
    return oid != GSS_C_NO_OID && oid->length == sizeof(prefix) + 1 &&
           memcmp(oid->elements, prefix, sizeof(prefix)) == 0;
}

/* A context gk5 has used holds sequence numbers MIT's copy does not know:
 * MIT's own export would send numbers twice.  Refuse it then (before any
 * per-message call both agree, and MIT's export is exact). */
static int stale_for_mit(const gki_ctx *c)
{
    return c->gk5 != NULL && atomic_load(&c->used) != 0;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_export_sec_context(
    OM_uint32 *minor, gss_ctx_id_t *context_handle, gss_buffer_t token)
{
    gki_ctx *c;
    OM_uint32 major;

    if (minor == NULL || context_handle == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    c = (gki_ctx *)*context_handle;
    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        /* gk5's own export, which MIT cannot read: it comes back to
         * gssi_import_sec_context_by_mech. */
        major = gki_native_export(minor, c, token);
        if (!GSS_ERROR(major)) {
            gki_trace("gk5_mech: context %p exported natively", (void *)c);
            gki_ctx_free(c);
            *context_handle = GSS_C_NO_CONTEXT;
        }
        return major;
    }
    if (stale_for_mit(c)) {
        gki_trace("gk5_mech: context %p: export refused (gk5 has used it)",
                  (void *)c);
        *minor = gki_minor(GK5_ERR_EXPORT_IN_USE);
        return GSS_S_UNAVAILABLE;
    }
    /* The mechglue puts its own header (the special OID) around what we
     * return: give it MIT's krb5 token without MIT's header, so that the
     * token imports into MIT's krb5 mechanism. */
    gss_buffer_desc full = GSS_C_EMPTY_BUFFER;
    major = gss_export_sec_context(minor, &c->mit, &full);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gki_strip_oid_header(minor, &full, token);
    zap(full.value, full.length);
    OM_uint32 tmp;
    (void)gss_release_buffer(&tmp, &full);
    /* MIT's context is gone into the token: so is ours. */
    gki_ctx_free(c);
    *context_handle = GSS_C_NO_CONTEXT;
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_sec_context_by_oid(
    OM_uint32 *minor, const gss_ctx_id_t handle, const gss_OID desired,
    gss_buffer_set_t *data_set)
{
    gki_ctx *c = (gki_ctx *)handle;
    OM_uint32 major;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        return gki_native_unavailable(minor, c,
                                      "gss_inquire_sec_context_by_oid");
    }
    major = gss_inquire_sec_context_by_oid(minor, c->mit, desired, data_set);
    if (GSS_ERROR(major) || c->gk5 == NULL || !is_lucid_oid(desired)) {
        return major;
    }
    /* A lucid export (rpc.gssd, gssproxy) carries gk5's next send number,
     * so that whoever takes the context never sends one twice. */
    gk5_ctx_info info;
    uint32_t m = 0;
    gss_buffer_set_t set = *data_set;
    void *lucid = NULL;
    if (set != GSS_C_NO_BUFFER_SET && set->count == 1 &&
        set->elements[0].length == sizeof(void *)) {
        memcpy(&lucid, set->elements[0].value, sizeof(void *));
    }
    if (lucid != NULL &&
        ((gss_krb5_lucid_context_version_t *)lucid)->version == 1 &&
        !GK5_ERROR(gk5_ctx_inquire(&m, c->gk5, &info))) {
        ((gss_krb5_lucid_context_v1_t *)lucid)->send_seq = info.send_seq;
        return major;
    }
    if (!stale_for_mit(c)) {
        return major; /* unused: MIT's numbers are gk5's */
    }
    if (lucid != NULL) {
        OM_uint32 tmp;
        (void)gss_krb5_free_lucid_sec_context(&tmp, lucid);
    }
    (void)gss_release_buffer_set(&m, data_set);
    *minor = gki_minor(GK5_ERR_EXPORT_IN_USE);
    return GSS_S_UNAVAILABLE;
}
