/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5_mech.so: a mechglue interposer module for MIT krb5's GSS-API.
 *
 * MIT's mechglue hands every call for the krb5 mechanism OIDs to the gssi_*
 * entry points of this module.  The module passes establishment,
 * credentials, names and the rest to MIT's own krb5 mechanism (reached
 * through the public GSS-API with the "special" OID: gk5's interposer OID
 * followed by the real mechanism's), and once a context is complete it
 * takes the keys and sequence numbers from MIT's lucid data and serves
 * the per-message calls with gk5.  A context gk5 cannot serve stays with
 * MIT entirely.
 */
#ifndef GK5_INTERPOSER_H
#define GK5_INTERPOSER_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>

#include "interposer/gssi.h"

/* The mechglue looks the entry points up by name with dlsym(). */
#define GKI_EXPORT __attribute__((visibility("default")))

/* The interposer's OID in the example gk5.conf.  gk5 has no IANA
 * enterprise number yet, so the default sits under RFC 5612's number for
 * documentation (32473) with RFC 4121's number below it; MIT's config
 * parser takes only arcs below 2^64, which rules out an X.667 UUID arc
 * (2.25.<128-bit UUID>).  The module works with whatever OID its config
 * line gives: a packager puts one of their own arc there. */
#define GK5_INTERPOSER_OID_TEXT "1.3.6.1.4.1.32473.4121.1"

/* The OID the module was configured with. */
extern gss_OID_desc gki_interposer_oid;

/* The krb5 mechanism OIDs the module interposes, and for each the special
 * OID that reaches MIT's real mechanism. */
enum { GKI_N_MECHS = 3 };
extern gss_OID_desc gki_mechs[GKI_N_MECHS];

/* The special OID for a public krb5 OID (or for a special OID already),
 * GSS_C_NO_OID for any other. */
gss_OID gki_special_oid(gss_const_OID mech);
/* The public krb5 OID a special OID stands for (or the OID itself). */
gss_OID gki_public_oid(gss_OID mech);
/* A one-element OID set holding the special OID for mech (the krb5 one
 * when mech is GSS_C_NO_OID). */
gss_OID_set gki_special_set(gss_const_OID mech);
/* The special OIDs of every interposed krb5 OID: a default acceptor
 * credential for all of them takes a token of any of them. */
gss_OID_set gki_all_special_set(void);
/* A copy of set with every special OID replaced by its public one; the
 * caller releases it with gss_release_oid_set.  GSS_S_COMPLETE or
 * GSS_S_FAILURE (ENOMEM). */
OM_uint32 gki_public_set(OM_uint32 *minor, gss_OID_set in, gss_OID_set *out);

/* ---- contexts ---- */

struct gki_counts {
    atomic_ulong wrap, unwrap, get_mic, verify_mic, wrap_iov, unwrap_iov,
        get_mic_iov, verify_mic_iov;
};

/* The PAC of a natively accepted ticket (src/krb5/pac.h), copied, for
 * the initiator's name attributes (accept_attrs.c). */
struct gki_pac {
    uint8_t *bytes; /* NULL: the ticket carried none */
    size_t len;
    int verified; /* MIT's verdict: only a verified PAC has values */
};

typedef struct gki_ctx {
    gss_ctx_id_t mit;     /* MIT's context, for the special OID; none for
                             a context gk5 accepted natively */
    gss_cred_id_t accept; /* acceptor credential made for a NO_CREDENTIAL
                             accept (released with the context) */
    gk5_ctx *gk5;         /* set once complete, when gk5 serves it */
    OM_uint32 flags;      /* GSS_C_*_FLAG of the established context */
    int open;             /* establishment complete */
    atomic_int used;      /* gk5 has made or taken a token */
    struct gki_counts n;  /* per-message calls gk5 served */
    /* A context gk5 accepted natively (accept.c): MIT never saw it. */
    int native;
    gss_OID mech;       /* the krb5 OID the initiator's token named */
    int64_t endtime;    /* the ticket's */
    char *initiator;    /* "user@REALM", as gk5 unparses it */
    char *acceptor;     /* the ticket's service */
    struct gki_pac pac; /* the ticket's, for the initiator's names */
} gki_ctx;

/* ---- status ---- */

/* gk5's minor codes as the module returns them: a com_err-style table
 * base ("gk5m") plus gk5's code, so that gssi_display_status can tell them
 * from the MIT minors it passes on. */
#define GKI_MINOR_BASE 0x865ea700u
#define GKI_IS_GK5_MINOR(m) (((m)&0xffffff00u) == GKI_MINOR_BASE)
OM_uint32 gki_minor(uint32_t gk5_minor);

/* ---- trace ---- */

/* GK5_TRACE=FILE (or "stderr") makes the module say what it does with
 * each context: served by gk5 (enctype), or left with MIT and why, and
 * at deletion how many per-message calls gk5 served.  Never keys or
 * messages.  Read with secure_getenv: ignored in setuid programs. */
void gki_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int gki_tracing(void);

/* Make a gk5 context from MIT's complete context c->mit, if gk5 can serve
 * it (otherwise the reason goes to the trace and c->gk5 stays NULL). */
void gki_takeover(gki_ctx *c);
gki_ctx *gki_ctx_new(void);
void gki_ctx_free(gki_ctx *c);

/* ---- native acceptance (accept*.c) ---- */

/* accept_config.c, also for its fuzz target: the dotted text of a DER
 * OID's content octets into out (n bytes); -1 if it does not fit or is
 * malformed. */
int gki_oid_text(const gss_OID_desc *oid, char *out, size_t n);
/* One mechanism file's lines from f (path: its name in trace lines): *native
 * set to 1 or 0 by each line naming oid, as its options ask; left as it
 * was when no line does.  At most 4,096 lines; longer than 2,047 bytes:
 * skipped. */
void gki_config_scan(FILE *f, const char *path, const char *oid, int *native);

/* What gki_native_accept and gki_native_import answer when the token is
 * MIT's to handle (no GSS-API status has all these bits). */
#define GKI_TO_MIT 0xffffffffu

/* Whether the config line asks for native acceptance ([accept=native]);
 * accept_config_files.c reads it once. */
int gki_accept_native(void);
/* Accept input in c (a fresh context) with gk5, when the config asks for
 * it and gk5 can serve the credential and the token: the GSS-API status
 * (a refusal answered natively, with the KRB-ERROR token in output when
 * the initiator expects one), or GKI_TO_MIT, nothing changed, for MIT's
 * acceptor to take the same token.  The trace says which and why. */
OM_uint32 gki_native_accept(OM_uint32 *minor, gki_ctx *c, gss_cred_id_t cred,
                            gss_buffer_t input, gss_channel_bindings_t cb,
                            gss_name_t *src_name, gss_OID *mech_type,
                            gss_buffer_t output, OM_uint32 *ret_flags,
                            OM_uint32 *time_rec, gss_cred_id_t *delegated);
/* What a call MIT's context alone could answer gives for a native
 * context: GSS_S_UNAVAILABLE, and a trace line naming the call. */
OM_uint32 gki_native_unavailable(OM_uint32 *minor, const gki_ctx *c,
                                 const char *call);
/* GSS_S_COMPLETE and the seconds left, or GSS_S_CONTEXT_EXPIRED. */
OM_uint32 gki_native_ctx_time(const gki_ctx *c, OM_uint32 *time_rec);
/* An MIT krb5 name (for the special OID) of a principal string. */
OM_uint32 gki_krb5_name(OM_uint32 *minor, const char *principal,
                        gss_name_t *out);
/* The names of a native context (accept_names.c): the module's own objects
 * holding the principal, displayed, duplicated and released by the
 * module; every other name call takes the MIT name gki_name_mit makes
 * once (for an MIT name: the name itself). */
OM_uint32 gki_native_name(OM_uint32 *minor, const char *principal,
                          const struct gki_pac *pac, gss_name_t *out);
/* A native name's PAC (1, *pac pointing at the name's own), or 0 for an
 * MIT name. */
int gki_name_pac(gss_const_name_t name, const struct gki_pac **pac);
/* RFC 6680 on a native name with a PAC, as MIT's krb5 mechanism answers
 * from the same ticket (accept_attrs.c): 1 and *major when the module
 * answered, 0 when the call goes to MIT. */
int gki_name_get_attribute(OM_uint32 *minor, gss_name_t name, gss_buffer_t attr,
                           int *authenticated, int *complete,
                           gss_buffer_t value, gss_buffer_t display_value,
                           int *more, OM_uint32 *major);
int gki_name_inquire(OM_uint32 *minor, gss_name_t name, int *name_is_mn,
                     gss_OID *mn_mech, gss_buffer_set_t *attrs,
                     OM_uint32 *major);
OM_uint32 gki_name_mit(OM_uint32 *minor, gss_const_name_t name,
                       gss_name_t *mit);
/* 1 (and *major) when the module answered for its own name, else 0. */
int gki_name_release(OM_uint32 *minor, gss_name_t *name);
int gki_name_display(OM_uint32 *minor, gss_const_name_t name, gss_buffer_t out,
                     gss_OID *type, OM_uint32 *major);
int gki_name_duplicate(OM_uint32 *minor, gss_const_name_t name, gss_name_t *out,
                       OM_uint32 *major);
/* A native context as an export token (the mechglue adds its header), and
 * back; the import answers GKI_TO_MIT for a token of MIT's. */
OM_uint32 gki_native_export(OM_uint32 *minor, const gki_ctx *c,
                            gss_buffer_t token);
OM_uint32 gki_native_import(OM_uint32 *minor, gss_buffer_t token, gki_ctx *c);
/* Credentials gss_acquire_cred made for accepting, noted with the keytab
 * (NULL: the default one now) and the desired name; forgotten when
 * released; moved when an option call gives a new handle. */
void gki_cred_note(gss_cred_id_t mit, gss_name_t desired, const char *keytab);
void gki_cred_forget(gss_cred_id_t mit);
void gki_cred_moved(gss_cred_id_t from, gss_cred_id_t to);
/* krb5_gss_register_acceptor_identity's keytab (its value may end in the
 * NUL MIT counts in; NULL or empty: none again). */
void gki_register_keytab(const char *name, size_t len);
/* The keytab MIT's default acceptor credential would use now, copied to
 * out; -1 when it does not fit (accept_cred.c). */
int gki_default_keytab(char *out, size_t n);
/* The gk5 credential for keytab, made at its first use and kept for the
 * process's life; NULL (and the reason in *major, *err) when gk5 cannot
 * make one. */
gk5_acceptor_cred *gki_kt_cred(const char *keytab, uint32_t *major,
                               uint32_t *err);
/* The keytab and desired name noted for cred, copied; 0, or -1 when the
 * credential was not made by gss_acquire_cred for accepting. */
int gki_cred_lookup(gss_cred_id_t cred, char *kt, size_t kt_n, char **name);
/* Whether the ticket's service is the desired name, MIT's way
 * (accept_names.c). */
int gki_name_matches(const char *desired, const char *service);

/* The mechanism's own token inside a mechglue export ([u32be OID length]
 * [OID][token]), copied to *out (released with gss_release_buffer). */
OM_uint32 gki_strip_oid_header(OM_uint32 *minor, gss_buffer_t in,
                               gss_buffer_t out);

#endif /* GK5_INTERPOSER_H */
