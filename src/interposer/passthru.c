/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Everything of the krb5 mechanism that gk5 does not serve, handed to MIT's
 * real krb5 mechanism through the special OID: credentials, names, the
 * mechanism's inquiries and extensions.
 *
 * The module's credentials and names are MIT mechglue handles made for the
 * special OID (so MIT's real mechanism holds the state); the mechglue wraps
 * them in handles of its own for the application.  Where MIT's call selects
 * a mechanism by OID, the special OID goes in (the krb5 OID or
 * GSS_C_NO_OID would come back here); OIDs going out are the public ones.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/util.h"
#include "interposer/interposer.h"

/* The MIT name for a name the application hands back (the module's own
 * name of a native context's initiator becomes an MIT name here), or
 * return MIT's error. */
#define MIT_NAME(name)                                                         \
    do {                                                                       \
        OM_uint32 mit_name_major = gki_name_mit(minor, (name), &(name));       \
        if (GSS_ERROR(mit_name_major)) {                                       \
            return mit_name_major;                                             \
        }                                                                      \
    } while (0)

/* ---- credentials ---- */

/* The mechanism a credential call asked for: the first of its set, if any.
 * The forwarders below keep MIT's own signatures (the mechglue calls them
 * through its dispatch table), so each is written out even where two
 * differ only in the call they forward. */
static gss_OID first_mech(gss_OID_set desired_mechs)
{
    return desired_mechs != GSS_C_NO_OID_SET && desired_mechs->count
               ? &desired_mechs->elements[0]
               : GSS_C_NO_OID;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_acquire_cred(
    OM_uint32 *minor, gss_name_t desired_name, OM_uint32 time_req,
    gss_OID_set desired_mechs, int cred_usage, gss_cred_id_t *output_cred,
    gss_OID_set *actual_mechs, OM_uint32 *time_rec)
{
    gss_OID mech = first_mech(desired_mechs);
    OM_uint32 major;

    MIT_NAME(desired_name);
    major =
        gss_acquire_cred(minor, desired_name, time_req, gki_special_set(mech),
                         cred_usage, output_cred, actual_mechs, time_rec);
    if (!GSS_ERROR(major) && cred_usage != GSS_C_INITIATE) {
        gki_cred_note(*output_cred, desired_name, NULL);
    }
    return major;
}

/* The keytab a credential store names for accepting: 1 and *keytab (NULL
 * for the default) when the store holds nothing else gk5 would have to
 * honour, else 0 (the credential stays MIT's alone). */
static int store_keytab(gss_const_key_value_set_t store, const char **keytab)
{
    *keytab = NULL;
    if (store == GSS_C_NO_CRED_STORE) {
        return 1;
    }
    for (OM_uint32 i = 0; i < store->count; i++) {
        if (store->elements[i].key == NULL ||
            strcmp(store->elements[i].key, "keytab") != 0 || *keytab != NULL) {
            return 0;
        }
        *keytab = store->elements[i].value;
    }
    return 1;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_acquire_cred_from(
    OM_uint32 *minor, gss_name_t desired_name, OM_uint32 time_req,
    gss_OID_set desired_mechs, gss_cred_usage_t cred_usage,
    gss_const_key_value_set_t cred_store, gss_cred_id_t *output_cred,
    gss_OID_set *actual_mechs, OM_uint32 *time_rec)
{
    gss_OID mech = first_mech(desired_mechs);
    const char *keytab;
    OM_uint32 major;

    MIT_NAME(desired_name);
    major = gss_acquire_cred_from(minor, desired_name, time_req,
                                  gki_special_set(mech), cred_usage, cred_store,
                                  output_cred, actual_mechs, time_rec);
    if (!GSS_ERROR(major) && cred_usage != GSS_C_INITIATE &&
        store_keytab(cred_store, &keytab)) {
        gki_cred_note(*output_cred, desired_name, keytab);
    }
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_acquire_cred_with_password(
    OM_uint32 *minor, const gss_name_t desired_name,
    const gss_buffer_t password, OM_uint32 time_req,
    const gss_OID_set desired_mechs, int cred_usage, gss_cred_id_t *output_cred,
    gss_OID_set *actual_mechs, OM_uint32 *time_rec)
{
    gss_OID mech = first_mech(desired_mechs);

    gss_name_t name = desired_name;

    MIT_NAME(name);
    return gss_acquire_cred_with_password(minor, name, password, time_req,
                                          gki_special_set(mech), cred_usage,
                                          output_cred, actual_mechs, time_rec);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_acquire_cred_impersonate_name(
    OM_uint32 *minor, const gss_cred_id_t impersonator,
    const gss_name_t desired_name, OM_uint32 time_req,
    const gss_OID_set desired_mechs, gss_cred_usage_t cred_usage,
    gss_cred_id_t *output_cred, gss_OID_set *actual_mechs, OM_uint32 *time_rec)
{
    gss_OID mech = first_mech(desired_mechs);

    gss_name_t name = desired_name;

    MIT_NAME(name);
    return gss_acquire_cred_impersonate_name(
        minor, impersonator, name, time_req, gki_special_set(mech), cred_usage,
        output_cred, actual_mechs, time_rec);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_release_cred(OM_uint32 *minor,
                                                     gss_cred_id_t *cred)
{
    if (cred != NULL) {
        gki_cred_forget(*cred);
    }
    return gss_release_cred(minor, cred);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_inquire_cred(OM_uint32 *minor, gss_cred_id_t cred, gss_name_t *name,
                  OM_uint32 *lifetime, int *cred_usage, gss_OID_set *mechanisms)
{
    return gss_inquire_cred(minor, cred, name, lifetime, cred_usage,
                            mechanisms);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_cred_by_mech(
    OM_uint32 *minor, gss_cred_id_t cred, gss_OID mech_type, gss_name_t *name,
    OM_uint32 *initiator_lifetime, OM_uint32 *acceptor_lifetime,
    gss_cred_usage_t *cred_usage)
{
    return gss_inquire_cred_by_mech(
        minor, cred, gki_special_oid(mech_type ? mech_type : &gki_mechs[0]),
        name, initiator_lifetime, acceptor_lifetime, cred_usage);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_inquire_cred_by_oid(OM_uint32 *minor, const gss_cred_id_t cred,
                         const gss_OID desired, gss_buffer_set_t *data_set)
{
    return gss_inquire_cred_by_oid(minor, cred, desired, data_set);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_set_cred_option(OM_uint32 *minor, gss_cred_id_t *cred,
                     const gss_OID desired, const gss_buffer_t value)
{
    gss_cred_id_t was = cred != NULL ? *cred : GSS_C_NO_CREDENTIAL;
    OM_uint32 major = gss_set_cred_option(minor, cred, desired, value);

    if (cred != NULL && *cred != was) {
        gki_cred_moved(was, *cred);
    }
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_store_cred(
    OM_uint32 *minor, const gss_cred_id_t cred, gss_cred_usage_t cred_usage,
    const gss_OID desired_mech, OM_uint32 overwrite_cred,
    OM_uint32 default_cred, gss_OID_set *elements_stored,
    gss_cred_usage_t *cred_usage_stored)
{
    return gss_store_cred(
        minor, cred, cred_usage,
        gki_special_oid(desired_mech ? desired_mech : &gki_mechs[0]),
        overwrite_cred, default_cred, elements_stored, cred_usage_stored);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_store_cred_into(
    OM_uint32 *minor, gss_cred_id_t cred, gss_cred_usage_t cred_usage,
    gss_OID desired_mech, OM_uint32 overwrite_cred, OM_uint32 default_cred,
    gss_const_key_value_set_t cred_store, gss_OID_set *elements_stored,
    gss_cred_usage_t *cred_usage_stored)
{
    return gss_store_cred_into(
        minor, cred, cred_usage,
        gki_special_oid(desired_mech ? desired_mech : &gki_mechs[0]),
        overwrite_cred, default_cred, cred_store, elements_stored,
        cred_usage_stored);
}

/* ---- exported tokens: [u32be OID length][OID][mechanism token] ---- */

/* The mechanism's own token inside a mechglue export (whose header names
 * the krb5 OID, as MIT writes it), copied to *out. */
OM_uint32 gki_strip_oid_header(OM_uint32 *minor, gss_buffer_t in,
                               gss_buffer_t out)
{
    struct gk5i_rd r;
    size_t len;

    out->length = 0;
    out->value = NULL;
    gk5i_rd_init(&r, in->value, in->length);
    gk5i_skip(&r, gk5i_get_u32be(&r)); /* the OID */
    if (r.bad) {
        return GSS_S_DEFECTIVE_TOKEN;
    }
    len = gk5i_rd_left(&r);
    out->value = malloc(len > 0 ? len : 1);
    if (out->value == NULL) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    out->length = len;
    gk5i_copy_bytes(&r, out->value, len);
    return GSS_S_COMPLETE;
}

/* head | the special OID of mech | token, for MIT's import calls; head is
 * 4 bytes (the OID length) for contexts, and the OID is followed by the
 * token's length for credentials. */
static OM_uint32 with_special_header(OM_uint32 *minor, gss_const_OID mech,
                                     gss_buffer_t token, int token_length,
                                     gss_buffer_t out)
{
    gss_OID s = gki_special_oid(mech != GSS_C_NO_OID ? mech : &gki_mechs[0]);
    size_t len = 4 + s->length + (token_length ? 4 : 0) + token->length;
    uint8_t *p = malloc(len);
    struct gk5i_wr w;

    out->length = 0;
    out->value = NULL;
    if (p == NULL) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    /* len was counted from the same pieces: the writer cannot run out. */
    gk5i_wr_init(&w, p, len);
    gk5i_put_u32be(&w, (uint32_t)s->length);
    gk5i_put_bytes(&w, s->elements, s->length);
    if (token_length) {
        gk5i_put_u32be(&w, (uint32_t)token->length);
    }
    gk5i_put_bytes(&w, token->value, token->length);
    out->value = p;
    out->length = len;
    return GSS_S_COMPLETE;
}

/* An exported context holds keys. */
static void wipe_release(gss_buffer_t b)
{
    if (b->value != NULL) {
        zap(b->value, b->length);
        free(b->value);
        b->value = NULL;
        b->length = 0;
    }
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_export_cred(OM_uint32 *minor,
                                                    gss_cred_id_t cred,
                                                    gss_buffer_t token)
{
    gss_buffer_desc full = GSS_C_EMPTY_BUFFER, inner = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, tmp;

    major = gss_export_cred(minor, cred, &full);
    if (GSS_ERROR(major)) {
        return major;
    }
    /* One element: [len][krb5 OID][len][token]: give the token (the
     * mechglue writes the header again around it). */
    major = gki_strip_oid_header(minor, &full, &inner);
    (void)gss_release_buffer(&tmp, &full);
    if (GSS_ERROR(major)) {
        return major;
    }
    if (inner.length < 4) {
        free(inner.value);
        return GSS_S_DEFECTIVE_TOKEN;
    }
    token->length = inner.length - 4;
    token->value = inner.value;
    memmove(inner.value, (uint8_t *)inner.value + 4, token->length);
    return GSS_S_COMPLETE;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_import_cred_by_mech(OM_uint32 *minor,
                                                            gss_OID mech_type,
                                                            gss_buffer_t token,
                                                            gss_cred_id_t *cred)
{
    gss_buffer_desc full = GSS_C_EMPTY_BUFFER;
    OM_uint32 major;

    major = with_special_header(minor, mech_type, token, 1, &full);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gss_import_cred(minor, &full, cred);
    free(full.value);
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_import_sec_context_by_mech(
    OM_uint32 *minor, gss_OID mech_type, gss_buffer_t token,
    gss_ctx_id_t *context_handle)
{
    gss_buffer_desc full = GSS_C_EMPTY_BUFFER;
    gki_ctx *c;
    OM_uint32 major;

    if (minor == NULL || context_handle == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    *context_handle = GSS_C_NO_CONTEXT;
    c = gki_ctx_new();
    if (c == NULL) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    major = gki_native_import(minor, token, c);
    if (major != GKI_TO_MIT) {
        if (GSS_ERROR(major)) {
            gki_ctx_free(c);
            return major;
        }
        *context_handle = (gss_ctx_id_t)c;
        return major;
    }
    major = with_special_header(minor, mech_type, token, 0, &full);
    if (!GSS_ERROR(major)) {
        major = gss_import_sec_context(minor, &full, &c->mit);
    }
    wipe_release(&full);
    if (GSS_ERROR(major)) {
        gki_ctx_free(c);
        return major;
    }
    c->open = 1;
    gki_takeover(c);
    *context_handle = (gss_ctx_id_t)c;
    return GSS_S_COMPLETE;
}

/* ---- names ---- */

/* The module's names are MIT's krb5 mechanism names: imported, then
 * canonicalized for the special OID (an exported name already names the
 * krb5 OID, which gss_import_name resolves without selecting). */
GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_import_name_by_mech(OM_uint32 *minor,
                                                            gss_OID mech_type,
                                                            gss_buffer_t input,
                                                            gss_OID input_type,
                                                            gss_name_t *output)
{
    gss_name_t plain = GSS_C_NO_NAME;
    OM_uint32 major, tmp;

    major = gss_import_name(minor, input, input_type, &plain);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gss_canonicalize_name(
        minor, plain,
        gki_special_oid(mech_type != GSS_C_NO_OID ? mech_type : &gki_mechs[0]),
        output);
    (void)gss_release_name(&tmp, &plain);
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_import_name(OM_uint32 *minor,
                                                    gss_buffer_t input,
                                                    gss_OID input_type,
                                                    gss_name_t *output)
{
    return gssi_import_name_by_mech(minor, GSS_C_NO_OID, input, input_type,
                                    output);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_release_name(OM_uint32 *minor,
                                                     gss_name_t *name)
{
    if (name != NULL && minor != NULL && gki_name_release(minor, name)) {
        return GSS_S_COMPLETE;
    }
    return gss_release_name(minor, name);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_display_name(OM_uint32 *minor,
                                                     gss_name_t name,
                                                     gss_buffer_t out,
                                                     gss_OID *out_type)
{
    OM_uint32 major;

    if (minor != NULL && gki_name_display(minor, name, out, out_type, &major)) {
        return major;
    }
    MIT_NAME(name);
    return gss_display_name(minor, name, out, out_type);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_display_name_ext(OM_uint32 *minor, gss_name_t name, gss_OID display_as,
                      gss_buffer_t display_name)
{
    MIT_NAME(name);
    return gss_display_name_ext(minor, name, display_as, display_name);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_compare_name(OM_uint32 *minor,
                                                     gss_name_t a, gss_name_t b,
                                                     int *equal)
{
    MIT_NAME(a);
    MIT_NAME(b);
    return gss_compare_name(minor, a, b, equal);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_duplicate_name(OM_uint32 *minor,
                                                       const gss_name_t in,
                                                       gss_name_t *out)
{
    gss_name_t name = in;
    OM_uint32 major;

    if (minor != NULL && out != NULL &&
        gki_name_duplicate(minor, in, out, &major)) {
        return major;
    }
    MIT_NAME(name);
    return gss_duplicate_name(minor, name, out);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_export_name(OM_uint32 *minor,
                                                    const gss_name_t name,
                                                    gss_buffer_t out)
{
    gss_name_t n = name;

    MIT_NAME(n);
    return gss_export_name(minor, n, out);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_export_name_composite(OM_uint32 *minor,
                                                              gss_name_t name,
                                                              gss_buffer_t out)
{
    MIT_NAME(name);
    return gss_export_name_composite(minor, name, out);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_localname(OM_uint32 *minor,
                                                  const gss_name_t name,
                                                  gss_const_OID mech_type,
                                                  gss_buffer_t localname)
{
    gss_name_t n = name;

    MIT_NAME(n);
    return gss_localname(
        minor, n,
        gki_special_oid(mech_type != GSS_C_NO_OID ? mech_type : &gki_mechs[0]),
        localname);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_authorize_localname(OM_uint32 *minor, const gss_name_t name,
                         gss_const_buffer_t user, gss_const_OID user_type)
{
    gss_name_t local = GSS_C_NO_NAME, n = name;
    OM_uint32 major, tmp;

    MIT_NAME(n);
    gss_buffer_desc user_buf = {user->length, user->value};
    gss_OID_desc type = {0, NULL};
    if (user_type != GSS_C_NO_OID) {
        type = *user_type;
    }
    major = gss_import_name(minor, &user_buf,
                            user_type != GSS_C_NO_OID ? &type : GSS_C_NO_OID,
                            &local);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gss_authorize_localname(minor, n, local);
    (void)gss_release_name(&tmp, &local);
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_name(OM_uint32 *minor,
                                                     gss_name_t name,
                                                     int *name_is_mn,
                                                     gss_OID *mn_mech,
                                                     gss_buffer_set_t *attrs)
{
    gss_OID mech = GSS_C_NO_OID;
    OM_uint32 major;

    if (gki_name_inquire(minor, name, name_is_mn, mn_mech, attrs, &major)) {
        return major;
    }
    MIT_NAME(name);
    major = gss_inquire_name(minor, name, name_is_mn,
                             mn_mech != NULL ? &mech : NULL, attrs);
    if (mn_mech != NULL) {
        /* The mechglue's answer is a copy; the public OID is static. */
        *mn_mech = mech != GSS_C_NO_OID ? gki_public_oid(mech) : mech;
        if (*mn_mech != mech) {
            OM_uint32 tmp;
            (void)gss_release_oid(&tmp, &mech);
        }
    }
    return major;
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_get_name_attribute(
    OM_uint32 *minor, gss_name_t name, gss_buffer_t attr, int *authenticated,
    int *complete, gss_buffer_t value, gss_buffer_t display_value, int *more)
{
    OM_uint32 major;

    if (gki_name_get_attribute(minor, name, attr, authenticated, complete,
                               value, display_value, more, &major)) {
        return major;
    }
    MIT_NAME(name);
    return gss_get_name_attribute(minor, name, attr, authenticated, complete,
                                  value, display_value, more);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_set_name_attribute(OM_uint32 *minor,
                                                           gss_name_t name,
                                                           int complete,
                                                           gss_buffer_t attr,
                                                           gss_buffer_t value)
{
    MIT_NAME(name);
    return gss_set_name_attribute(minor, name, complete, attr, value);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_delete_name_attribute(OM_uint32 *minor,
                                                              gss_name_t name,
                                                              gss_buffer_t attr)
{
    MIT_NAME(name);
    return gss_delete_name_attribute(minor, name, attr);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_map_name_to_any(OM_uint32 *minor,
                                                        gss_name_t name,
                                                        int authenticated,
                                                        gss_buffer_t type_id,
                                                        gss_any_t *output)
{
    MIT_NAME(name);
    return gss_map_name_to_any(minor, name, authenticated, type_id, output);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_release_any_name_mapping(
    OM_uint32 *minor, gss_name_t name, gss_buffer_t type_id, gss_any_t *input)
{
    MIT_NAME(name);
    return gss_release_any_name_mapping(minor, name, type_id, input);
}

/* ---- the mechanism ---- */

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_names_for_mech(
    OM_uint32 *minor, gss_OID mechanism, gss_OID_set *name_types)
{
    return gss_inquire_names_for_mech(
        minor,
        gki_special_oid(mechanism != GSS_C_NO_OID ? mechanism : &gki_mechs[0]),
        name_types);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_attrs_for_mech(
    OM_uint32 *minor, gss_const_OID mech, gss_OID_set *mech_attrs,
    gss_OID_set *known_mech_attrs)
{
    return gss_inquire_attrs_for_mech(
        minor, gki_special_oid(mech != GSS_C_NO_OID ? mech : &gki_mechs[0]),
        mech_attrs, known_mech_attrs);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_inquire_saslname_for_mech(
    OM_uint32 *minor, const gss_OID desired_mech, gss_buffer_t sasl_mech_name,
    gss_buffer_t mech_name, gss_buffer_t mech_description)
{
    return gss_inquire_saslname_for_mech(
        minor,
        gki_special_oid(desired_mech != GSS_C_NO_OID ? desired_mech
                                                     : &gki_mechs[0]),
        sasl_mech_name, mech_name, mech_description);
}

/* gss_krb5_ccache_name, gss_krb5_free_lucid_sec_context,
 * krb5_gss_register_acceptor_identity and friends. */
GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_mech_invoke(OM_uint32 *minor,
                                                    const gss_OID mech,
                                                    const gss_OID desired,
                                                    gss_buffer_t value)
{
    /* GSS_KRB5_REGISTER_ACCEPTOR_IDENTITY_OID (1.2.840.113554.1.2.2.5.9),
     * whose value is the keytab name: native acceptance uses it too. */
    static const uint8_t register_kt[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12,
                                          0x01, 0x02, 0x02, 0x05, 0x09};
    OM_uint32 major;

    major = gssspi_mech_invoke(
        minor, gki_special_oid(mech != GSS_C_NO_OID ? mech : &gki_mechs[0]),
        desired, value);
    /* OIDs are public: a plain memcmp. */
    if (!GSS_ERROR(major) && desired != GSS_C_NO_OID &&
        desired->length == sizeof(register_kt) &&
        memcmp(desired->elements, register_kt, sizeof(register_kt)) == 0) {
        gki_register_keytab(value != GSS_C_NO_BUFFER ? value->value : NULL,
                            value != GSS_C_NO_BUFFER ? value->length : 0);
    }
    return major;
}

/* ---- context extensions that keep to MIT's context ---- */

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_set_sec_context_option(OM_uint32 *minor, gss_ctx_id_t *context_handle,
                            const gss_OID desired, const gss_buffer_t value)
{
    gki_ctx *c;

    if (context_handle == NULL || *context_handle == GSS_C_NO_CONTEXT) {
        /* Options on no context go to MIT's mechanism as such. */
        return GSS_S_UNAVAILABLE;
    }
    c = (gki_ctx *)*context_handle;
    if (c->native) {
        return gki_native_unavailable(minor, c, "gss_set_sec_context_option");
    }
    return gss_set_sec_context_option(minor, &c->mit, desired, value);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_pseudo_random(
    OM_uint32 *minor, gss_ctx_id_t handle, int prf_key,
    const gss_buffer_t prf_in, ssize_t desired_output_len, gss_buffer_t prf_out)
{
    gki_ctx *c = (gki_ctx *)handle;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        return gki_native_unavailable(minor, c, "gss_pseudo_random");
    }
    return gss_pseudo_random(minor, c->mit, prf_key, prf_in, desired_output_len,
                             prf_out);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_complete_auth_token(
    OM_uint32 *minor, const gss_ctx_id_t handle, gss_buffer_t input)
{
    gki_ctx *c = (gki_ctx *)handle;

    if (c == NULL) {
        return GSS_S_NO_CONTEXT;
    }
    if (c->native) {
        return gki_native_unavailable(minor, c, "gss_complete_auth_token");
    }
    return gss_complete_auth_token(minor, c->mit, input);
}
