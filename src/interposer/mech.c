/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The interposer's identity: its OID, the krb5 mechanism OIDs it takes
 * over and the special OIDs that reach MIT's real krb5 mechanism, the
 * entry point the mechglue calls first (gss_mech_interposer), gk5's minor
 * codes and their words, and the trace.
 */
/* secure_getenv: _GNU_SOURCE comes from the build */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interposer/interposer.h"

/* 1.2.840.113554.1.2.2 (RFC 1964), 1.3.5.1.5.2 (the pre-RFC krb5 OID MIT
 * still accepts) and 1.2.840.48018.1.2.2 (Microsoft's krb5 OID, which
 * Windows peers put in SPNEGO). */
gss_OID_desc gki_mechs[GKI_N_MECHS] = {
    {9, (void *)"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02"},
    {5, (void *)"\x2b\x05\x01\x05\x02"},
    {9, (void *)"\x2a\x86\x48\x82\xf7\x12\x01\x02\x02"},
};

/* The interposer's OID is the one its config line gives (the mechglue
 * passes it to gss_mech_interposer and makes the special OIDs from it):
 * gk5.conf's default is GK5_INTERPOSER_OID_TEXT (interposer.h).  The special
 * OIDs are that OID's bytes, then the real mechanism's.  Written once,
 * under the mechglue's lock, before any gssi_* call; published with
 * oid_ready. */
#define GKI_OID_MAX 64
static uint8_t own_bytes[GKI_OID_MAX];
static uint8_t special_bytes[GKI_N_MECHS][GKI_OID_MAX + 16];
gss_OID_desc gki_interposer_oid = {0, own_bytes};
static gss_OID_desc special[GKI_N_MECHS];
static gss_OID_set_desc special_sets[GKI_N_MECHS] = {
    {1, &special[0]},
    {1, &special[1]},
    {1, &special[2]},
};
static gss_OID_set_desc all_special_set = {GKI_N_MECHS, special};
static atomic_int oid_ready;

static int oid_eq(gss_const_OID a, gss_const_OID b)
{
    /* OIDs are public: a plain memcmp. */
    return a->length == b->length &&
           memcmp(a->elements, b->elements, a->length) == 0;
}

static int mech_index(gss_const_OID mech)
{
    if (mech == GSS_C_NO_OID) {
        return -1;
    }
    for (int i = 0; i < GKI_N_MECHS; i++) {
        if (oid_eq(mech, &gki_mechs[i]) ||
            (special[i].length > 0 && oid_eq(mech, &special[i]))) {
            return i;
        }
    }
    return -1;
}

gss_OID gki_special_oid(gss_const_OID mech)
{
    int i = mech_index(mech);

    return i < 0 ? GSS_C_NO_OID : &special[i];
}

gss_OID gki_public_oid(gss_OID mech)
{
    int i = mech_index(mech);

    return i < 0 ? mech : &gki_mechs[i];
}

gss_OID_set gki_special_set(gss_const_OID mech)
{
    int i = mech_index(mech);

    return &special_sets[i < 0 ? 0 : i];
}

gss_OID_set gki_all_special_set(void)
{
    return &all_special_set;
}

OM_uint32 gki_public_set(OM_uint32 *minor, gss_OID_set in, gss_OID_set *out)
{
    OM_uint32 major, tmp;

    *out = GSS_C_NO_OID_SET;
    major = gss_create_empty_oid_set(minor, out);
    if (GSS_ERROR(major)) {
        return major;
    }
    for (size_t i = 0; in != GSS_C_NO_OID_SET && i < in->count; i++) {
        major = gss_add_oid_set_member(minor, gki_public_oid(&in->elements[i]),
                                       out);
        if (GSS_ERROR(major)) {
            (void)gss_release_oid_set(&tmp, out);
            return major;
        }
    }
    return GSS_S_COMPLETE;
}

/* Take the OID the mechglue knows the module by; 0, or -1 if it is too
 * long or another OID was taken already. */
static int take_oid(gss_const_OID mech_type)
{
    if (atomic_load_explicit(&oid_ready, memory_order_acquire)) {
        return oid_eq(mech_type, &gki_interposer_oid) ? 0 : -1;
    }
    if (mech_type->length == 0 || mech_type->length > GKI_OID_MAX) {
        return -1;
    }
    memcpy(own_bytes, mech_type->elements, mech_type->length);
    gki_interposer_oid.length = mech_type->length;
    for (int i = 0; i < GKI_N_MECHS; i++) {
        memcpy(special_bytes[i], own_bytes, mech_type->length);
        memcpy(special_bytes[i] + mech_type->length, gki_mechs[i].elements,
               gki_mechs[i].length);
        special[i].length = mech_type->length + gki_mechs[i].length;
        special[i].elements = special_bytes[i];
    }
    atomic_store_explicit(&oid_ready, 1, memory_order_release);
    return 0;
}

/* The mechglue asks which mechanisms the module interposes (called with
 * its lock held: only the OID-set helpers may be used here); the set is
 * the mechglue's to release. */
GKI_EXPORT gss_OID_set KRB5_CALLCONV gss_mech_interposer(gss_OID mech_type)
{
    gss_OID_set set = GSS_C_NO_OID_SET;
    OM_uint32 minor;

    if (mech_type == GSS_C_NO_OID || take_oid(mech_type) != 0) {
        return GSS_C_NO_OID_SET;
    }
    if (GSS_ERROR(gss_create_empty_oid_set(&minor, &set))) {
        return GSS_C_NO_OID_SET;
    }
    for (int i = 0; i < GKI_N_MECHS; i++) {
        if (GSS_ERROR(gss_add_oid_set_member(&minor, &gki_mechs[i], &set))) {
            (void)gss_release_oid_set(&minor, &set);
            return GSS_C_NO_OID_SET;
        }
    }
    gki_trace("gk5_mech: loaded (gk5 %s), interposing krb5", gk5_version());
    return set;
}

/* ---- status ---- */

OM_uint32 gki_minor(uint32_t gk5_minor)
{
    if (gk5_minor == 0) {
        return 0;
    }
    return GKI_MINOR_BASE | (GK5_ERR_CODE(gk5_minor) & 0xffu);
}

/* gss_display_status for the krb5 mechanism: gk5's minors get gk5's
 * words; every other code is MIT's (its own minors, already mapped by the
 * mechglue when they came from a call on the special OID). */
GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_display_status(
    OM_uint32 *minor, OM_uint32 status_value, int status_type,
    gss_OID mech_type, OM_uint32 *message_context, gss_buffer_t status_string)
{
    (void)mech_type;
    if (minor == NULL || message_context == NULL || status_string == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (status_type == GSS_C_MECH_CODE && GKI_IS_GK5_MINOR(status_value)) {
        const char *words =
            gk5_strerror(status_value & 0xffu); /* "gk5: ..." codes */
        size_t n = strlen(words);
        char *copy = malloc(n + 1);

        if (copy == NULL) {
            *minor = ENOMEM;
            return GSS_S_FAILURE;
        }
        memcpy(copy, words, n + 1);
        status_string->length = n;
        status_string->value = copy;
        *message_context = 0;
        return GSS_S_COMPLETE;
    }
    return gss_display_status(minor, status_value, status_type,
                              gki_special_oid(&gki_mechs[0]), message_context,
                              status_string);
}

/* ---- trace ---- */

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static FILE *trace_file;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

static void trace_open(void)
{
    const char *where = secure_getenv("GK5_TRACE");

    if (where == NULL || where[0] == '\0') {
        return;
    }
    if (strcmp(where, "stderr") == 0 || strcmp(where, "1") == 0) {
        trace_file = stderr;
        return;
    }
    trace_file = fopen(where, "ae");
    if (trace_file != NULL) {
        setvbuf(trace_file, NULL, _IOLBF, 0);
    }
}

int gki_tracing(void)
{
    (void)pthread_once(&trace_once, trace_open);
    return trace_file != NULL;
}

void gki_trace(const char *fmt, ...)
{
    va_list ap;

    if (!gki_tracing()) {
        return;
    }
    pthread_mutex_lock(&trace_lock);
    fprintf(trace_file, "[%ld] ", (long)getpid());
    va_start(ap, fmt);
    vfprintf(trace_file, fmt, ap);
    va_end(ap);
    fputc('\n', trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&trace_lock);
}
