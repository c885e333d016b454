/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file accept.h
 * gk5's own acceptor and initiator: a Kerberos V5 GSS-API context
 * established from a keytab or a credential cache, with no MIT krb5 (RFC
 * 4121 4.1 over RFC 4120 3.2, RFC 4537 enctype negotiation).  Part of libgk5,
 * which links only OpenSSL.
 *
 * An acceptor credential reads the keytab once into memory and holds the
 * replay cache; it may be shared by any number of threads, each calling
 * gk5_accept() at the same time.  gk5_accept() takes the initiator's token
 * (an AP-REQ in RFC 2743 3.1 framing, the krb5 mechanism OID or
 * Microsoft's 1.2.840.48018.1.2.2) and answers, in one call, with a
 * gk5_ctx ready for gk5_wrap() and the rest, and the token to send back:
 * the AP-REP when the initiator asked for mutual authentication, or a
 * KRB-ERROR token when it expects an answer and the AP-REQ was refused.
 *
 * @code
 *     gk5_acceptor_cred *cred = NULL;
 *     gk5_acceptor_opts opts = { .keytab = "/etc/krb5.keytab",
 *                                .principal = "nfs@server.example" };
 *     uint32_t minor, major = gk5_acceptor_cred_new(&minor, &opts, &cred);
 *     ...
 *     gk5_buffer out = {0, NULL};
 *     gk5_ctx *ctx = NULL;
 *     gk5_accept_info info;
 *     major = gk5_accept(&minor, cred, &in, NULL, &out, &ctx, &info);
 *     if (out.length != 0)
 *         send(fd, out.value, out.length, 0);   // AP-REP or KRB-ERROR
 *     gk5_buffer_release(&out);
 *     if (GK5_ERROR(major))
 *         fprintf(stderr, "%s\n", gk5_display_status(major, minor));
 *     else
 *         printf("%s\n", info.initiator), gk5_accept_info_release(&info);
 * @endcode
 *
 * What is refused, and why (docs/design.md, "The acceptor"): rc4 and DES
 * tickets and session keys (RFC 8429), user-to-user AP-REQs, DCE style,
 * cross-realm tickets whose transit the KDC did not check, authenticators
 * without an RFC 4121 checksum or with an unkeyed one, replays.
 * Authorization data (the PAC) is carried opaquely and never parsed.
 */
#ifndef GK5_ACCEPT_H
#define GK5_ACCEPT_H

#include <stddef.h>
#include <stdint.h>

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/** GSS-API context flags (RFC 2744 numeric values), as gk5_accept()
 *  reports them. */
#define GK5_C_DELEG_FLAG 1u
#define GK5_C_MUTUAL_FLAG 2u
#define GK5_C_REPLAY_FLAG 4u
#define GK5_C_SEQUENCE_FLAG 8u
#define GK5_C_CONF_FLAG 16u
#define GK5_C_INTEG_FLAG 32u
#define GK5_C_TRANS_FLAG 256u
#define GK5_C_DCE_STYLE 0x1000u
#define GK5_C_IDENTIFY_FLAG 0x2000u

/** gk5_acceptor_opts.flags: no replay cache (RFC 4120 3.2.3 says SHOULD;
 *  a replayed AP-REQ gives a context whose keys the replayer lacks). */
#define GK5_ACC_NO_RCACHE 0x1u

/** The replay cache's default bound, in entries (16 bytes of tag and an
 *  expiry each: about 40 MiB at the bound). */
#define GK5_ACC_RCACHE_DEFAULT_MAX 1048576u

/** What an acceptor credential is made from; zero means the default. */
typedef struct {
    /** The keytab: a path or "FILE:path"; NULL: $KRB5_KTNAME, else
     *  /etc/krb5.keytab (MIT's default).  Other keytab types are refused. */
    const char *keytab;
    /** Whose tickets to accept: "service@host" (any realm),
     *  "service/host@REALM", "service/host" (any realm); NULL: any
     *  principal the keytab has keys for. */
    const char *principal;
    /** Allowed clock difference in seconds; 0: 300 (RFC 4120's usual). */
    uint32_t clockskew;
    /** GK5_ACC_* flags. */
    uint32_t flags;
    /** The replay cache's bound in entries; 0: GK5_ACC_RCACHE_DEFAULT_MAX.
     *  When full of live entries new AP-REQs are refused
     *  (GK5_ERR_RCACHE_FULL) until some expire. */
    size_t rcache_max;
    /** A file the replay cache is kept in across restarts (created mode
     *  0600); NULL: memory only. */
    const char *rcache_file;
} gk5_acceptor_opts;

/** An acceptor credential (opaque). */
typedef struct gk5_acceptor_cred gk5_acceptor_cred;

/**
 * Make an acceptor credential: read the keytab into memory (its keys are
 * wiped when the credential is freed; a changed keytab file is read again
 * when a ticket asks for a key the credential lacks, and at most every
 * 10 s otherwise) and make the replay cache.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  opts   The options; NULL for every default.
 * @param[out] out    The credential, for gk5_acceptor_cred_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CRED  GK5_ERR_KEYTAB_READ, GK5_ERR_KEYTAB_FORMAT,
 *         GK5_ERR_KEYTAB_NO_KEYS (no usable key, or none of principal).
 * @retval GK5_S_BAD_NAME  GK5_ERR_INVALID_ARGUMENT (principal cannot be
 *         parsed, or a keytab type other than FILE).
 * @retval GK5_S_FAILURE  GK5_ERR_RCACHE_IO, GK5_ERR_NOMEM,
 *         GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  out is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_acceptor_cred_new(uint32_t *minor,
                                                  const gk5_acceptor_opts *opts,
                                                  gk5_acceptor_cred **out);

/**
 * Free a credential (wiping its keys).  No gk5_accept() may be running on
 * it.  NULL is fine.
 *
 * @param[in] cred  The credential.
 */
GK5_EXPORT void gk5_acceptor_cred_free(gk5_acceptor_cred *cred);

/** Channel bindings (RFC 2744 gss_channel_bindings_struct); the
 *  initiator's MD5 of them is compared when the acceptor gives them. */
typedef struct {
    uint32_t initiator_addrtype;
    gk5_buffer initiator_address;
    uint32_t acceptor_addrtype;
    gk5_buffer acceptor_address;
    gk5_buffer application_data;
} gk5_channel_bindings;

/** What gk5_accept() learned of an accepted context. */
typedef struct {
    /** The initiator, "user@REALM" (components joined by '/', and '/',
     *  '@' and '\\' inside them escaped with '\\'); malloc'd. */
    char *initiator;
    /** The service the ticket was for, "nfs/host@REALM"; malloc'd. */
    char *acceptor;
    /** GK5_C_* flags in effect: the initiator's request as the
     *  acceptor honours it (delegation is never accepted). */
    uint32_t gss_flags;
    /** The ticket's flags (RFC 4120 5.3 TicketFlags, bit 0 the most
     *  significant). */
    uint32_t ticket_flags;
    int32_t ticket_enctype;  /**< the ticket's encryption (keytab key) */
    int32_t session_enctype; /**< the ticket's session key */
    int32_t context_enctype; /**< the context's key (the acceptor subkey) */
    int64_t authtime;        /**< the ticket's times (seconds since 1970) */
    int64_t starttime;       /**< authtime when the ticket has none */
    int64_t endtime;         /**< the context expires with the ticket */
    int64_t renew_till;      /**< 0 when not renewable */
    /** The ticket's authorization data as its DER encoding (the PAC, if
     *  any, inside), never parsed by gk5; empty when it has none;
     *  malloc'd. */
    gk5_buffer authorization_data;
} gk5_accept_info;

/**
 * Accept a context: one call, from the initiator's first token to an
 * established gk5_ctx.
 *
 * The context's receive window starts at the initiator's sequence number;
 * its send counter at a random number sent in the AP-REP (without mutual
 * authentication, at the initiator's number, as MIT and Heimdal do).  It
 * expires with the ticket.  Replay and sequence detection follow the
 * initiator's flags.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  cred   The credential; may be shared with other threads.
 * @param[in]  in     The initiator's token.
 * @param[in]  cb     Channel bindings, or NULL.  When given, the
 *                    initiator's must match; an initiator that sent none
 *                    (all zero) is accepted.
 * @param[out] out    The token to send back, malloc'd (release it with
 *                    gk5_buffer_release(), also after a failure): the
 *                    AP-REP; a KRB-ERROR when the AP-REQ asked for
 *                    mutual authentication and was refused; else empty.
 * @param[out] ctx    The context, for gk5_ctx_free(); NULL on failure.
 * @param[out] info   May be NULL; what was accepted, for
 *                    gk5_accept_info_release().  Zeroed on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_TOKEN_FRAMING, GK5_ERR_TOKEN_ID,
 *         GK5_ERR_DER, GK5_ERR_DER_LIMIT, GK5_ERR_KRB_MSG_TYPE,
 *         GK5_ERR_AP_CHECKSUM.
 * @retval GK5_S_NO_CRED  GK5_ERR_AP_WRONG_PRINC, GK5_ERR_AP_BADKEYVER,
 *         GK5_ERR_AP_NOKEY.
 * @retval GK5_S_BAD_SIG  GK5_ERR_AP_MODIFIED.
 * @retval GK5_S_BAD_BINDINGS  GK5_ERR_AP_BINDINGS.
 * @retval GK5_S_CREDENTIALS_EXPIRED  GK5_ERR_AP_TKT_EXPIRED.
 * @retval GK5_S_DEFECTIVE_CREDENTIAL  GK5_ERR_AP_TKT_NYV,
 *         GK5_ERR_AP_BADMATCH.
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_* (an rc4 or DES ticket or
 *         session key: RFC 8429), the enctype in the high bits.
 * @retval GK5_S_FAILURE  GK5_ERR_AP_SKEW, GK5_ERR_AP_REPEAT,
 *         GK5_ERR_RCACHE_FULL, GK5_ERR_RCACHE_IO, GK5_ERR_AP_TRANSITED,
 *         GK5_ERR_AP_USER_TO_USER, GK5_ERR_AP_DCE_STYLE,
 *         GK5_ERR_AP_NO_ENCTYPE, GK5_ERR_INVALID_ARGUMENT (cred, in, out
 *         or ctx NULL), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_accept(uint32_t *minor, gk5_acceptor_cred *cred,
                                       const gk5_buffer *in,
                                       const gk5_channel_bindings *cb,
                                       gk5_buffer *out, gk5_ctx **ctx,
                                       gk5_accept_info *info);

/**
 * Free what gk5_accept() put in info, and zero it.  NULL is fine.
 *
 * @param[in,out] info  The information.
 */
GK5_EXPORT void gk5_accept_info_release(gk5_accept_info *info);

/* ---- The initiator ---- */

/** Initiator options.  Zero-initialise and set what you need: NULL/0
 *  fields take the defaults.  Read only during gk5_initiator_create(). */
typedef struct {
    /** The credential cache, "FILE:/path" or a path; NULL: $KRB5CCNAME,
     *  else /tmp/krb5cc_UID.  Only FILE caches (MIT's format) are read. */
    const char *ccache;
    /** krb5.conf files, colon-separated; NULL: $KRB5_CONFIG, else
     *  /etc/krb5.conf. */
    const char *config;
    /** Session-key enctypes asked of the KDC and offered to the acceptor
     *  (RFC 4537); NULL: krb5.conf's default_tgs_enctypes.  A ticket in
     *  the cache serves only if its session key is of one of them. */
    const int32_t *enctypes;
    size_t n_enctypes; /**< how many (at most 16) */
    /** GK5_C_* flags; 0: mutual, replay and sequence detection.
     *  Delegation is never done. */
    uint32_t req_flags;
    /** Channel bindings, or NULL; their MD5 goes in the authenticator. */
    const gk5_channel_bindings *cb;
    /** The client, "user@REALM"; NULL: the ccache's principal (or, with
     *  client_keytab and no ccache file, the keytab's first). */
    const char *principal;
    /** A client keytab: when the ccache holds no valid TGT for the
     *  client, one is got from the KDC with this keytab's key (an AS
     *  exchange) and the ccache written anew with it, as `kinit -k`
     *  does.  NULL: never. */
    const char *client_keytab;
} gk5_initiator_opts;

/** One context being initiated by gk5 itself (opaque). */
typedef struct gk5_initiator gk5_initiator;

/**
 * Prepare to initiate a context to target: the service ticket comes from
 * the credential cache, or, when the cache has none still valid, from the
 * KDC (a TGS exchange with the cache's TGT), and is stored back in the
 * cache.  Only the TGT's realm is asked (no referrals, no cross-realm).
 *
 * @param[out] minor   The gk5 error code.
 * @param[in]  target  A host-based service name, "service@host", or a
 *                     krb5 principal name holding a '/' ("nfs/h@REALM";
 *                     without a realm, the TGT's).
 * @param[in]  opts    Options, or NULL; not kept.
 * @param[out] out     The initiator, for gk5_initiator_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_BAD_NAME  GK5_ERR_INVALID_ARGUMENT (a target that does not
 *         parse).
 * @retval GK5_S_NO_CRED  GK5_ERR_CCACHE_*, GK5_ERR_NO_TGT.
 * @retval GK5_S_CREDENTIALS_EXPIRED  GK5_ERR_TICKET_EXPIRED.
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_* (the KDC issued an rc4 or
 *         DES ticket or session key: RFC 8429), the enctype in the high
 *         bits.
 * @retval GK5_S_FAILURE  GK5_ERR_CONFIG*, GK5_ERR_KDC_*, GK5_ERR_NOMEM,
 *         GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_initiator_create(uint32_t *minor,
                                                 const char *target,
                                                 const gk5_initiator_opts *opts,
                                                 gk5_initiator **out);

/**
 * One leg of the establishment: the first call (in NULL or empty) gives
 * the AP-REQ token (RFC 2743 3.1 framing); with mutual authentication the
 * second takes the acceptor's AP-REP (or KRB-ERROR) token.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  init   The initiator.
 * @param[in]  in     The acceptor's token; NULL or empty the first time.
 * @param[out] out    The token to send (maybe empty), malloc'd:
 *                    gk5_buffer_release() it.
 * @retval GK5_S_CONTINUE_NEEDED  Send out and call again with the answer.
 * @retval GK5_S_COMPLETE  Established: send out if not empty, then
 *         gk5_initiator_finish().
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_TOKEN_FRAMING, GK5_ERR_DER, ...
 *         (an answer that is not an AP-REP or KRB-ERROR token).
 * @retval other  The acceptor answered with a KRB-ERROR: its code as the
 *         GK5_ERR_AP_* code and major status gk5_accept() gives for the
 *         same refusal (KRB_AP_ERR_NOT_US: GK5_S_NO_CRED and
 *         GK5_ERR_AP_WRONG_PRINC; KRB_AP_ERR_BAD_INTEGRITY and _MODIFIED:
 *         GK5_S_BAD_SIG and GK5_ERR_AP_MODIFIED; KRB_AP_ERR_SKEW:
 *         GK5_S_FAILURE and GK5_ERR_AP_SKEW; ...), or GK5_S_FAILURE and
 *         GK5_ERR_ACCEPTOR_ERROR for other codes; the error's own name,
 *         number and text in gk5_krb_last_error().
 * @retval GK5_S_FAILURE  GK5_ERR_AP_REP_MISMATCH, GK5_ERR_INVALID_ARGUMENT
 *         (init NULL or already complete), GK5_ERR_NOMEM.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_initiator_step(uint32_t *minor,
                                               gk5_initiator *init,
                                               const gk5_buffer *in,
                                               gk5_buffer *out);

/**
 * After GK5_S_COMPLETE: the established context (once; a second call
 * answers GK5_S_NO_CONTEXT).
 *
 * @param[out] minor    The gk5 error code.
 * @param[in]  init     The initiator.
 * @param[out] enctype  May be NULL; the context key's enctype.
 * @param[out] ctx      The context, for gk5_ctx_free().
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (init NULL, not
 *         complete, or already taken).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_initiator_finish(uint32_t *minor,
                                                 gk5_initiator *init,
                                                 int32_t *enctype,
                                                 gk5_ctx **ctx);

/**
 * Wipe and free the initiator (and a context not taken).
 *
 * @param[in] init  The initiator; NULL is fine.
 */
GK5_EXPORT void gk5_initiator_free(gk5_initiator *init);

/**
 * The last KRB-ERROR this thread received from a KDC or an acceptor, in
 * words: its RFC 4120 name and number, its e-text, and for a clock skew
 * error how far the clocks differ ("KRB_AP_ERR_SKEW (37): clocks differ
 * by 412 s, more than the 300 s allowed").  NULL when the last call that
 * could receive one did not.  Thread-local; valid until the next such
 * call on this thread.
 */
GK5_EXPORT const char *gk5_krb_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* GK5_ACCEPT_H */
