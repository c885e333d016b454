/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 6680 name attributes of a natively accepted initiator, answered by
 * the module as MIT's krb5 mechanism answers them from the same ticket
 * (its "mspac" attributes; src/krb5/pac.h): gss_inquire_name lists
 * "urn:mspac:" and one name per PAC buffer, verified or not;
 * gss_get_name_attribute gives a verified PAC's bytes (authenticated and
 * complete, no display value, nothing more) and GSS_S_UNAVAILABLE for
 * anything else.  A native name without a PAC answers that too without
 * MIT (the one call an RPC server makes per context: libntirpc asks for
 * "urn:mspac:"); its gss_inquire_name goes to MIT's name, which has no
 * attributes either.  Tickets with attributes gk5 does not read (auth
 * indicators) were left to MIT's acceptor (accept.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interposer/interposer.h"
#include "krb5/pac.h"

/* A copy of n bytes as a GSS buffer (released with gss_release_buffer,
 * which frees with free()). */
static int buffer_of(const void *p, size_t n, gss_buffer_t out)
{
    out->value = malloc(n != 0 ? n : 1);
    if (out->value == NULL) {
        out->length = 0;
        return -1;
    }
    memcpy(out->value, p, n);
    out->length = n;
    return 0;
}

static void empty(gss_buffer_t b)
{
    if (b != GSS_C_NO_BUFFER) {
        b->length = 0;
        b->value = NULL;
    }
}

int gki_name_get_attribute(OM_uint32 *minor, gss_name_t name, gss_buffer_t attr,
                           int *authenticated, int *complete,
                           gss_buffer_t value, gss_buffer_t display_value,
                           int *more, OM_uint32 *major)
{
    const struct gki_pac *p = NULL;
    struct gk5i_pac pac;
    struct gk5i_view data;
    uint32_t type;

    if (!gki_name_pac(name, &p)) {
        return 0;
    }
    *minor = 0;
    *major = GSS_S_UNAVAILABLE;
    empty(value);
    empty(display_value);
    /* MIT's module answers a first call (*more -1) only, and only from a
     * PAC that verified; *more is 0 after any answer. */
    bool first = more == NULL || *more == -1;
    if (more != NULL) {
        *more = 0;
    }
    if (p->bytes == NULL || !p->verified || attr == GSS_C_NO_BUFFER || !first ||
        !gk5i_pac_attr_type(attr->value, attr->length, &type) ||
        !gk5i_pac_parse(p->bytes, p->len, &pac)) {
        return 1;
    }
    if (type == GK5I_PAC_WHOLE) {
        data.p = p->bytes;
        data.len = p->len;
    } else {
        int found = gk5i_pac_find(&pac, type, &data);
        if (found == 0) {
            return 1;
        }
        if (found < 0) {
            /* Two buffers of the type: MIT's EINVAL. */
            *minor = EINVAL;
            *major = GSS_S_FAILURE;
            return 1;
        }
    }
    if (value != GSS_C_NO_BUFFER && buffer_of(data.p, data.len, value) != 0) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        *major = GSS_S_FAILURE;
        return 1;
    }
    if (authenticated != NULL) {
        *authenticated = 1;
    }
    if (complete != NULL) {
        *complete = 1;
    }
    *major = GSS_S_COMPLETE;
    return 1;
}

int gki_name_inquire(OM_uint32 *minor, gss_name_t name, int *name_is_mn,
                     gss_OID *mn_mech, gss_buffer_set_t *attrs,
                     OM_uint32 *major)
{
    const struct gki_pac *p = NULL;
    gss_buffer_set_t set = GSS_C_NO_BUFFER_SET;
    struct gk5i_pac pac;
    OM_uint32 tmp;

    if (!gki_name_pac(name, &p) || p->bytes == NULL ||
        !gk5i_pac_parse(p->bytes, p->len, &pac)) {
        return 0;
    }
    if (name_is_mn != NULL) {
        *name_is_mn = 1;
    }
    if (mn_mech != NULL) {
        *mn_mech = &gki_mechs[0];
    }
    *minor = 0;
    *major = GSS_S_COMPLETE;
    if (attrs == NULL) {
        return 1;
    }
    *attrs = GSS_C_NO_BUFFER_SET;
    *major = gss_create_empty_buffer_set(minor, &set);
    for (uint32_t i = 0; !GSS_ERROR(*major) && i <= pac.count; i++) {
        char text[GK5I_PAC_ATTR_MAX];
        uint32_t type = GK5I_PAC_WHOLE;
        struct gk5i_view data;

        if (i > 0) {
            gk5i_pac_buffer_at(&pac, i - 1, &type, &data);
        }
        gss_buffer_desc b = {gk5i_pac_attr_name(type, text), text};
        *major = gss_add_buffer_set_member(minor, &b, &set);
    }
    if (GSS_ERROR(*major)) {
        (void)gss_release_buffer_set(&tmp, &set);
        return 1;
    }
    *attrs = set;
    return 1;
}
