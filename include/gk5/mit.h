/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file mit.h
 * @brief libgk5_mit (pkg-config gk5-mit): MIT krb5 security contexts into
 * gk5, and the few establishment helpers an RPC layer needs.
 *
 * libgk5 itself links only OpenSSL; this library links MIT's
 * libgssapi_krb5 as well.  Context establishment (AS/TGS, AP-REQ/AP-REP)
 * stays MIT's; once a context is complete it leaves MIT through the lucid
 * export (which consumes it, as rpc.gssd does) and gk5 does every
 * per-message operation after that (docs/design.md, "MIT's lucid
 * context").
 *
 * Status: every call returns an RFC 2744 major status and sets *minor
 * (minor must not be NULL, except for gk5_ctx_from_mit()).  When gk5
 * refuses something (rc4, des3 not built, a malformed export) the minor is
 * gk5's own code and the major gk5's class for it (gk5.h).  When an MIT
 * call fails, the major is MIT's and the minor is GK5_ERR_MIT; MIT's own
 * major, minor and the name of the failed call are kept per thread until
 * the next MIT failure (gk5_mit_last_error()).  gk5_mit_display_status()
 * turns either kind into words; gk5_display_status() gives gk5's half.
 *
 * Ownership: tokens come back as malloc'd gk5_buffers for
 * gk5_buffer_release(); contexts for gk5_ctx_free(); each object here has
 * its own _free function, and accepts NULL there.  An initiator or
 * acceptor is used by one thread at a time; an acceptor credential may be
 * shared.
 *
 * @code
 *     gss_ctx_id_t mit = ...;          // established with gss_init_sec_context
 *     gk5_ctx *ctx = NULL;
 *     uint32_t minor, major = gk5_ctx_from_mit(&minor, &mit, &ctx);
 *     if (GK5_ERROR(major))
 *         fprintf(stderr, "%s\n", gk5_mit_display_status(major, minor));
 *     // mit is now GSS_C_NO_CONTEXT; ctx wraps, unwraps, signs, verifies.
 * @endcode
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

/**
 * Take an established MIT krb5 context into gk5.
 *
 * *mit_ctx is exported as a version 1 lucid context, which consumes it
 * (from then on *mit_ctx is GSS_C_NO_CONTEXT, also when gk5 then refuses
 * the context), and imported with gk5_ctx_import_lucid() (the acceptor
 * subkey's key when one was negotiated).
 *
 * @param[out]    minor    The gk5 error code; may be NULL.
 * @param[in,out] mit_ctx  The MIT context; consumed unless the export
 *                         fails.
 * @param[out]    ctx      The gk5 context, for gk5_ctx_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_UNAVAILABLE  The enctype's refusal in minor
 *         (GK5_ERR_ENCTYPE_REJECTED for rc4-hmac, RFC 8429;
 *         GK5_ERR_ENCTYPE_NOT_BUILT for des3 without -Ddes3=true).
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_IMPORT_* (an export gk5 cannot
 *         read), as gk5_ctx_import_lucid().
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (mit_ctx NULL or
 *         GSS_C_NO_CONTEXT).
 * @retval GK5_S_FAILURE  GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  ctx is NULL (minor
 *         GK5_ERR_INVALID_ARGUMENT).
 * @retval other  MIT's major when the export fails, with minor GK5_ERR_MIT
 *         (*mit_ctx is as MIT left it).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_from_mit(uint32_t *minor,
                                             gss_ctx_id_t *mit_ctx,
                                             gk5_ctx **ctx);

/**
 * Words for a status any gk5 or libgk5_mit call returned: gk5's words
 * (gk5_display_status()), and for minor GK5_ERR_MIT also the MIT call
 * that failed on this thread and MIT's own words for it.
 *
 * @param[in] major  The major status.
 * @param[in] minor  The minor status.
 * @return Never NULL.  A thread-local buffer, valid until this thread's
 *         next gk5_mit_display_status().
 */
GK5_EXPORT const char *gk5_mit_display_status(uint32_t major, uint32_t minor);

/**
 * MIT's status of this thread's last MIT failure inside libgk5_mit (kept
 * until the next one; a success does not clear it).
 *
 * @param[out] mit_major  MIT's major status, or 0 if there was none; may
 *                        be NULL.
 * @param[out] mit_minor  MIT's minor status, or 0; may be NULL.
 * @param[out] call       The MIT function that failed (a static string),
 *                        or NULL; may be NULL.
 */
GK5_EXPORT void gk5_mit_last_error(uint32_t *mit_major, uint32_t *mit_minor,
                                   const char **call);

/* ---- Establishing contexts with MIT ---- */

/** Initiator credential and request.  Zero-initialise and set what you
 *  need: NULL/0 fields mean MIT's defaults.  Read only during
 *  gk5_mit_initiator_create(). */
typedef struct {
    const char *principal;     /**< initiator's krb5 name, "user@REALM" */
    const char *ccache;        /**< credential cache, e.g. "MEMORY:x" */
    const char *client_keytab; /**< initial credentials from this keytab;
                                * without ccache they go to a MEMORY
                                * ccache of the initiator's own, destroyed
                                * with it (never the process's default) */
    const int32_t *enctypes;   /**< session-key enctypes allowed (all if
                                    NULL); at most 32 */
    size_t n_enctypes;         /**< how many */
    uint32_t req_flags;        /**< GSS_C_*_FLAG; 0: mutual | integ | conf */
} gk5_mit_initiator_options;

/** One context being initiated with MIT's GSS-API (opaque). */
typedef struct gk5_mit_initiator gk5_mit_initiator;

/**
 * Prepare to initiate a context to target and acquire the credential
 * (when opts asks for anything; otherwise MIT's default credential is
 * used at the first step).
 *
 * @param[out] minor   The gk5 error code.
 * @param[in]  target  A host-based service name, "service@host"
 *                     (GSS_C_NT_HOSTBASED_SERVICE); a name holding a '/'
 *                     is a krb5 principal name ("service/host@REALM").
 * @param[in]  opts    Options, or NULL for the defaults; not kept.
 * @param[out] out     The initiator, for gk5_mit_initiator_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (no target, more than 32
 *         enctypes), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND (no random
 *         bytes for the ccache name).
 * @retval other  MIT's major (importing the name, acquiring the
 *         credential, setting the enctypes) with minor GK5_ERR_MIT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_create(
    uint32_t *minor, const char *target, const gk5_mit_initiator_options *opts,
    gk5_mit_initiator **out);

/**
 * One leg of gss_init_sec_context().
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  init   The initiator.
 * @param[in]  in     The acceptor's token; NULL or empty the first time.
 * @param[out] out    The token to send (maybe empty), malloc'd:
 *                    gk5_buffer_release() it.
 * @retval GK5_S_CONTINUE_NEEDED  Send out and call again with the answer.
 * @retval GK5_S_COMPLETE  Established: send out if not empty, then
 *         gk5_mit_initiator_finish().
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (init NULL or already
 *         complete), GK5_ERR_NOMEM.
 * @retval other  MIT's failure with minor GK5_ERR_MIT (out is empty).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_step(uint32_t *minor,
                                                   gk5_mit_initiator *init,
                                                   const gk5_buffer *in,
                                                   gk5_buffer *out);

/**
 * After GK5_S_COMPLETE: the established context into gk5, as
 * gk5_ctx_from_mit() (which consumes MIT's context: a second call answers
 * GK5_S_NO_CONTEXT).
 *
 * @param[out] minor    The gk5 error code.
 * @param[in]  init     The initiator.
 * @param[out] enctype  May be NULL; the session-key enctype, set even when
 *                      gk5 refuses it (0 if the export failed).
 * @param[out] ctx      The gk5 context, for gk5_ctx_free().
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (init NULL or not
 *         complete).
 * @retval other  As gk5_ctx_from_mit().
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_initiator_finish(uint32_t *minor,
                                                     gk5_mit_initiator *init,
                                                     int32_t *enctype,
                                                     gk5_ctx **ctx);

/**
 * Delete any MIT context and credential the initiator still holds, and
 * its own ccache.
 *
 * @param[in] init  The initiator; NULL is fine.
 */
GK5_EXPORT void gk5_mit_initiator_free(gk5_mit_initiator *init);

/** An acceptor credential (opaque): shared by many acceptors and threads;
 *  it must outlive them. */
typedef struct gk5_mit_acceptor_cred gk5_mit_acceptor_cred;

/**
 * Acquire an acceptor credential.
 *
 * @param[out] minor      The gk5 error code.
 * @param[in]  keytab     The keytab; NULL: KRB5_KTNAME or MIT's default.
 * @param[in]  principal  "service@host", a krb5 name with a '/', or NULL
 *                        for any key in the keytab.
 * @param[out] out        The credential, for gk5_mit_acceptor_cred_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_FAILURE  GK5_ERR_NOMEM.
 * @retval other  MIT's major (importing the name, acquiring the
 *         credential: e.g. no key for principal) with minor GK5_ERR_MIT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_cred_create(
    uint32_t *minor, const char *keytab, const char *principal,
    gk5_mit_acceptor_cred **out);

/**
 * Release an acceptor credential.  No acceptor may still use it.
 *
 * @param[in] cred  The credential; NULL is fine.
 */
GK5_EXPORT void gk5_mit_acceptor_cred_free(gk5_mit_acceptor_cred *cred);

/** One context being accepted with MIT's GSS-API (opaque). */
typedef struct gk5_mit_acceptor gk5_mit_acceptor;

/**
 * Prepare to accept one context with cred.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  cred   The credential: borrowed, must outlive the acceptor.
 * @param[out] out    The acceptor, for gk5_mit_acceptor_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (cred NULL),
 *         GK5_ERR_NOMEM.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_create(
    uint32_t *minor, const gk5_mit_acceptor_cred *cred, gk5_mit_acceptor **out);

/**
 * One leg of gss_accept_sec_context().
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  acc    The acceptor.
 * @param[in]  in     The initiator's token; not empty.
 * @param[out] out    The answer (maybe empty), malloc'd:
 *                    gk5_buffer_release() it, also after a failure (it may
 *                    hold MIT's error token for the initiator).
 * @retval GK5_S_CONTINUE_NEEDED  Send out and call again with the answer.
 * @retval GK5_S_COMPLETE  Established: send out if not empty, then
 *         gk5_mit_acceptor_finish().
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (acc NULL or already
 *         complete, in NULL or empty), GK5_ERR_NOMEM.
 * @retval other  MIT's failure with minor GK5_ERR_MIT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_step(uint32_t *minor,
                                                  gk5_mit_acceptor *acc,
                                                  const gk5_buffer *in,
                                                  gk5_buffer *out);

/**
 * After GK5_S_COMPLETE: the context into gk5 (as gk5_ctx_from_mit(),
 * consuming MIT's context), with what MIT knows of the client.
 *
 * @param[out] minor      The gk5 error code.
 * @param[in]  acc        The acceptor.
 * @param[out] principal  May be NULL; the client's principal name
 *                        ("user@REALM"), malloc'd: free() it whatever the
 *                        status (it is set before the import, so also
 *                        when gk5 refuses the enctype).
 * @param[out] ret_flags  May be NULL; the flags granted (GSS_C_*_FLAG).
 * @param[out] enctype    May be NULL; the session-key enctype, set even
 *                        when gk5 refuses it.
 * @param[out] ctx        The gk5 context, for gk5_ctx_free().
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (acc NULL or not
 *         complete).
 * @retval GK5_S_FAILURE  GK5_ERR_NOMEM (the principal's copy).
 * @retval other  MIT's major with GK5_ERR_MIT (gss_display_name), or as
 *         gk5_ctx_from_mit().
 */
GK5_EXPORT GK5_WUR uint32_t gk5_mit_acceptor_finish(
    uint32_t *minor, gk5_mit_acceptor *acc, char **principal,
    uint32_t *ret_flags, int32_t *enctype, gk5_ctx **ctx);

/**
 * Delete any MIT context the acceptor still holds (not its credential).
 *
 * @param[in] acc  The acceptor; NULL is fine.
 */
GK5_EXPORT void gk5_mit_acceptor_free(gk5_mit_acceptor *acc);

#ifdef __cplusplus
}
#endif
#endif /* GK5_MIT_H */
