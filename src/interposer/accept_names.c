/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Names for native acceptance: a credential's desired name matched with
 * the ticket's service, MIT's way (an empty realm, and the empty host of
 * a host-based name without one, match any), and the initiator's name of
 * a natively accepted context.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interposer/interposer.h"
#include "krb5/krb5_int.h"

/* ---- names ---- */

/* Whether the ticket's service (gk5's unparse, "svc/host@REALM") is the
 * desired name (MIT's display of it): component by component, an empty
 * realm matching any, and in a two-component name an empty second one
 * (a host-based name without a host) matching any. */
int gki_name_matches(const char *desired, const char *service)
{
    struct gk5i_name d, s;
    char *copy;
    size_t len = strlen(desired);
    int ok = 0, any_host = 0;

    /* MIT writes the referral (empty) realm as a trailing '@'; a host-based
     * name without a host as "svc/@". */
    copy = strdup(desired);
    if (copy == NULL) {
        return 0;
    }
    if (len > 0 && copy[len - 1] == '@' && (len < 2 || copy[len - 2] != '\\')) {
        copy[--len] = '\0';
    }
    if (len > 1 && copy[len - 1] == '/' && (len < 2 || copy[len - 2] != '\\')) {
        copy[--len] = '\0';
        any_host = 1;
    }
    if (gk5i_name_parse(copy, false, &d) != GK5_OK) {
        free(copy);
        return 0;
    }
    free(copy);
    if (gk5i_name_parse(service, false, &s) != GK5_OK) {
        gk5i_name_free(&d);
        return 0;
    }
    /* Principal names are public: compared with plain memcmp. */
    ok = any_host ? d.ncomp == 1 && s.ncomp == 2 : d.ncomp == s.ncomp;
    for (uint32_t i = 0; ok && i < d.ncomp; i++) {
        ok = d.comp[i].len == s.comp[i].len &&
             memcmp(d.comp[i].p, s.comp[i].p, d.comp[i].len) == 0;
    }
    if (ok && !d.any_realm) {
        ok = d.realm.len == s.realm.len &&
             memcmp(d.realm.p, s.realm.p, d.realm.len) == 0;
    }
    gk5i_name_free(&d);
    gk5i_name_free(&s);
    return ok;
}

/* ---- the initiator's name of a native context ----
 * Every call of MIT's krb5 mechanism on a name makes a krb5 context of
 * its own (tens of microseconds each): importing and canonicalizing the
 * initiator's name, and the display the mechglue asks for at once, would
 * cost more than gk5's whole accept.  A native context's names are the
 * module's own objects, holding the principal as gk5 writes it (MIT's
 * syntax, RFC 1964 2.1.1): displayed, duplicated and released here; for
 * anything else the MIT name is made once, on first need, and the call
 * goes to MIT with it (gki_name_mit).  The magic tells them from MIT's
 * names, whose first word is a pointer (the mechglue's loopback). */
#define GKI_NAME_MAGIC 0x676b356e616d6521ull /* "gk5name!" */

typedef struct gki_name {
    uint64_t magic;
    char *principal;
    struct gki_pac pac;
    _Atomic(gss_name_t) mit;
} gki_name;

static gki_name *as_native(gss_const_name_t name)
{
    gki_name *n = (gki_name *)(uintptr_t)name;

    return n != NULL && n->magic == GKI_NAME_MAGIC ? n : NULL;
}

OM_uint32 gki_native_name(OM_uint32 *minor, const char *principal,
                          const struct gki_pac *pac, gss_name_t *out)
{
    gki_name *n = calloc(1, sizeof(*n));

    *out = GSS_C_NO_NAME;
    if (n == NULL || (n->principal = strdup(principal)) == NULL ||
        (pac != NULL && pac->bytes != NULL &&
         (n->pac.bytes = malloc(pac->len != 0 ? pac->len : 1)) == NULL)) {
        if (n != NULL) {
            free(n->principal);
        }
        free(n);
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    if (n->pac.bytes != NULL) {
        memcpy(n->pac.bytes, pac->bytes, pac->len);
        n->pac.len = pac->len;
        n->pac.verified = pac->verified;
    }
    n->magic = GKI_NAME_MAGIC;
    atomic_init(&n->mit, GSS_C_NO_NAME);
    *out = (gss_name_t)n;
    return GSS_S_COMPLETE;
}

OM_uint32 gki_name_mit(OM_uint32 *minor, gss_const_name_t name, gss_name_t *mit)
{
    gki_name *n = as_native(name);
    gss_name_t made = GSS_C_NO_NAME, none = GSS_C_NO_NAME;
    OM_uint32 major, tmp;

    if (n == NULL) {
        *mit = (gss_name_t)(uintptr_t)name;
        return GSS_S_COMPLETE;
    }
    *mit = atomic_load(&n->mit);
    if (*mit != GSS_C_NO_NAME) {
        return GSS_S_COMPLETE;
    }
    major = gki_krb5_name(minor, n->principal, &made);
    if (GSS_ERROR(major)) {
        return major;
    }
    if (!atomic_compare_exchange_strong(&n->mit, &none, made)) {
        (void)gss_release_name(&tmp, &made); /* another thread's won */
        made = none;
    }
    *mit = made;
    return GSS_S_COMPLETE;
}

int gki_name_release(OM_uint32 *minor, gss_name_t *name)
{
    gki_name *n = as_native(*name);
    gss_name_t mit;

    if (n == NULL) {
        return 0;
    }
    mit = atomic_load(&n->mit);
    if (mit != GSS_C_NO_NAME) {
        (void)gss_release_name(minor, &mit);
    }
    n->magic = 0;
    free(n->principal);
    free(n->pac.bytes);
    free(n);
    *name = GSS_C_NO_NAME;
    *minor = 0;
    return 1;
}

/* RFC 6112's anonymous principal: MIT displays it with its own name type;
 * such a name goes to MIT. */
static int is_anonymous(const char *principal)
{
    return strncmp(principal, "WELLKNOWN/ANONYMOUS@", 20) == 0;
}

int gki_name_display(OM_uint32 *minor, gss_const_name_t name, gss_buffer_t out,
                     gss_OID *type, OM_uint32 *major)
{
    gki_name *n = as_native(name);
    size_t len;

    if (n == NULL || is_anonymous(n->principal) || out == NULL) {
        return 0;
    }
    len = strlen(n->principal);
    out->value = malloc(len + 1);
    if (out->value == NULL) {
        out->length = 0;
        *minor = gki_minor(GK5_ERR_NOMEM);
        *major = GSS_S_FAILURE;
        return 1;
    }
    memcpy(out->value, n->principal, len + 1);
    out->length = len;
    if (type != NULL) {
        *type = (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME;
    }
    *minor = 0;
    *major = GSS_S_COMPLETE;
    return 1;
}

int gki_name_duplicate(OM_uint32 *minor, gss_const_name_t name, gss_name_t *out,
                       OM_uint32 *major)
{
    gki_name *n = as_native(name);

    if (n == NULL) {
        return 0;
    }
    *major = gki_native_name(minor, n->principal, &n->pac, out);
    return 1;
}

int gki_name_pac(gss_const_name_t name, const struct gki_pac **pac)
{
    gki_name *n = as_native(name);

    if (n == NULL) {
        return 0;
    }
    *pac = &n->pac;
    return 1;
}

OM_uint32 gki_krb5_name(OM_uint32 *minor, const char *principal,
                        gss_name_t *out)
{
    gss_buffer_desc text = {strlen(principal), (void *)(uintptr_t)principal};
    gss_name_t plain = GSS_C_NO_NAME;
    OM_uint32 major, tmp;

    *out = GSS_C_NO_NAME;
    major = gss_import_name(minor, &text, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                            &plain);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gss_canonicalize_name(minor, plain, gki_special_oid(&gki_mechs[0]),
                                  out);
    (void)gss_release_name(&tmp, &plain);
    return major;
}
