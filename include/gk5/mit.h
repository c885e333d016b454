/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libgk5_mit (pkg-config gk5-mit): MIT krb5 security contexts into gk5,
 * and the few establishment helpers an RPC layer needs.
 *
 * libgk5 itself links only OpenSSL; this library links MIT's
 * libgssapi_krb5 as well.  Context establishment (AS/TGS, AP-REQ/AP-REP)
 * stays MIT's; once a context is complete it leaves MIT through the lucid
 * export (which consumes it, as rpc.gssd does) and gk5 does every
 * per-message operation after that.
 *
 * Status: every call returns an RFC 2744 major status and sets *minor.
 * When gk5 refuses something (rc4, des3 not built, a malformed export) the
 * minor is gk5's own code.  When an MIT call fails, the major is MIT's and
 * the minor is GK5_ERR_MIT; MIT's own major, minor and words for that
 * failure are kept per thread until the next failure
 * (gk5_mit_last_error).  gk5_mit_display_status() turns either kind into
 * words; gk5_display_status() gives gk5's half.
 *
 *     gss_ctx_id_t mit = ...;          // established with gss_init_sec_context
 *     gk5_ctx *ctx = NULL;
 *     uint32_t minor, major = gk5_ctx_from_mit(&minor, &mit, &ctx);
 *     if (GK5_ERROR(major))
 *         fprintf(stderr, "%s\n", gk5_mit_display_status(major, minor));
 *     // mit is now GSS_C_NO_CONTEXT; ctx wraps, unwraps, signs, verifies.
 */
#ifndef GK5_MIT_H
#define GK5_MIT_H

#include <stddef.h>
#include <stdint.h>

#include <gssapi/gssapi.h>

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Take an established MIT krb5 context: *mit_ctx is exported as a version 1
 * lucid context (consuming it: on success *mit_ctx is GSS_C_NO_CONTEXT) and
 * imported into gk5 (the acceptor subkey's key when one was negotiated).
 * Returns GK5_S_COMPLETE; GK5_S_UNAVAILABLE with the enctype's refusal in
 * minor (rc4-hmac: RFC 8429; des3 without -Ddes3=true) -- the MIT context is
 * consumed then too; GK5_S_NO_CONTEXT for a NULL or empty *mit_ctx; MIT's
 * major with minor GK5_ERR_MIT when the export fails (*mit_ctx is as MIT
 * left it). */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_from_mit(uint32_t *minor,
                                             gss_ctx_id_t *mit_ctx,
                                             gk5_ctx **ctx);

/* Words for a status any gk5 or gk5_mit call returned: gk5's words, and for
 * minor GK5_ERR_MIT also the MIT call that failed and MIT's own words.
 * Never NULL; a thread-local buffer, valid until the next call. */
GK5_EXPORT const char *gk5_mit_display_status(uint32_t major, uint32_t minor);

/* MIT's status of this thread's last MIT failure inside libgk5_mit
 * (zeros and NULL when there was none).  call names the MIT function. */
GK5_EXPORT void gk5_mit_last_error(uint32_t *mit_major, uint32_t *mit_minor,
                                   const char **call);

/* ---- Establishing contexts with MIT ---- */

/* Initiator credential and request.  Zero-initialise and set what you need:
 * NULL/0 fields mean MIT's defaults. */
typedef struct {
    const char *principal;     /* initiator's krb5 name, e.g. "user@REALM" */
    const char *ccache;        /* credential cache, e.g. "MEMORY:x" */
    const char *client_keytab; /* initial credentials from this keytab;
                                * without ccache they go to a MEMORY
                                * ccache of the initiator's own, destroyed
                                * with it (never the process's default) */
    const int32_t *enctypes;   /* session-key enctypes allowed (all if NULL) */
    size_t n_enctypes;
    uint32_t req_flags; /* GSS_C_*_FLAG; 0: mutual | integ | conf */
} gk5_mit_initiator_options;

typedef struct gk5_mit_initiator gk5_mit_initiator;

/* Prepare to initiate to target, a host-based service name "service@host"
 * (GSS_C_NT_HOSTBASED_SERVICE) or, when it holds no '@' but a '/', a krb5
 * principal name.  Acquires the credential.  GK5_S_COMPLETE, MIT's major
 * (minor GK5_ERR_MIT), GK5_S_FAILURE (GK5_ERR_NOMEM,
 * GK5_ERR_INVALID_ARGUMENT). */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_create(
    uint32_t *minor, const char *target, const gk5_mit_initiator_options *opts,
    gk5_mit_initiator **out);

/* One leg: in is the acceptor's token (NULL or empty the first time); out
 * receives the token to send (maybe empty; release with
 * gk5_buffer_release).  GK5_S_CONTINUE_NEEDED: send out and call again
 * with the answer; GK5_S_COMPLETE: established (send out if not empty);
 * otherwise MIT's failure (minor GK5_ERR_MIT). */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_step(uint32_t *minor,
                                                   gk5_mit_initiator *init,
                                                   const gk5_buffer *in,
                                                   gk5_buffer *out);

/* After GK5_S_COMPLETE: the established context into gk5
 * (gk5_ctx_from_mit's answers).  *enctype (if not NULL) receives the
 * session-key enctype even when gk5 refuses it. */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_finish(uint32_t *minor,
                                                     gk5_mit_initiator *init,
                                                     int32_t *enctype,
                                                     gk5_ctx **ctx);
/* Deletes any MIT context and credential left; NULL is fine. */
GK5_EXPORT void gk5_mit_initiator_free(gk5_mit_initiator *init);

/* Acceptor credential: from keytab (NULL: KRB5_KTNAME or the default)
 * for principal ("service@host", a krb5 name, or NULL: any key in the
 * keytab).  Shared by many acceptors and threads. */
typedef struct gk5_mit_acceptor_cred gk5_mit_acceptor_cred;

GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_cred_create(
    uint32_t *minor, const char *keytab, const char *principal,
    gk5_mit_acceptor_cred **out);
GK5_EXPORT void gk5_mit_acceptor_cred_free(gk5_mit_acceptor_cred *cred);

typedef struct gk5_mit_acceptor gk5_mit_acceptor;

GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_create(
    uint32_t *minor, const gk5_mit_acceptor_cred *cred, gk5_mit_acceptor **out);
/* One leg: in is the initiator's token, out the answer (maybe empty).
 * GK5_S_CONTINUE_NEEDED, GK5_S_COMPLETE, or MIT's failure (minor
 * GK5_ERR_MIT; out may still hold an error token for the initiator). */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_step(uint32_t *minor,
                                                  gk5_mit_acceptor *acc,
                                                  const gk5_buffer *in,
                                                  gk5_buffer *out);
/* After GK5_S_COMPLETE: the context into gk5 (gk5_ctx_from_mit's answers),
 * the client's principal name ("user@REALM", malloc'd: free() it; set even
 * when gk5 refuses the enctype), the flags granted (GSS_C_*_FLAG) and the
 * session-key enctype.  Any of principal, ret_flags, enctype may be NULL. */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_finish(
    uint32_t *minor, gk5_mit_acceptor *acc, char **principal,
    uint32_t *ret_flags, int32_t *enctype, gk5_ctx **ctx);
GK5_EXPORT void gk5_mit_acceptor_free(gk5_mit_acceptor *acc);

#ifdef __cplusplus
}
#endif
#endif /* GK5_MIT_H */
