/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file tickets.h
 * gk5's own KDC client and FILE credential cache: what MIT's kinit, kvno,
 * klist and kdestroy do, as calls (RFC 4120 3.1 and 3.3; MIT's FILE
 * ccache format, version 4 written, 3 and 4 read), with no MIT krb5.  And
 * the pending state of a gk5_initiator (include/gk5/accept.h) as bytes,
 * so that the AP-REP may be taken by another process.  Part of libgk5.
 *
 * Only FILE credential caches are used: a cache name is "FILE:path" or a
 * path; NULL means $KRB5CCNAME, else /tmp/krb5cc_UID (MIT's default).
 * Other types (KEYRING:, KCM:, DIR:, MEMORY:, ...) are refused with
 * GK5_ERR_CCACHE_TYPE.  krb5.conf files are a colon-separated list; NULL
 * means $KRB5_CONFIG, else /etc/krb5.conf.  rc4 and DES tickets and
 * session keys are refused (RFC 8429).
 *
 * @code
 *     gk5_kinit_opts o = { .ccache = "FILE:/tmp/cc", .principal = "alice",
 *                          .password = pw };
 *     gk5_kinit_info info;
 *     uint32_t minor, major = gk5_kinit(&minor, &o, &info);
 *     if (GK5_ERROR(major))
 *         fprintf(stderr, "%s: %s\n", gk5_display_status(major, minor),
 *                 gk5_krb_last_error() ? gk5_krb_last_error() : "");
 *     gk5_kinit_info_release(&info);
 * @endcode
 *
 * Every call here follows gk5.h's conventions: a major status, *minor a
 * gk5 error code (gk5_strerror() words; a KDC's KRB-ERROR also in
 * gk5_krb_last_error()); minor NULL is GK5_S_CALL_INACCESSIBLE_WRITE.
 */
#ifndef GK5_TICKETS_H
#define GK5_TICKETS_H

#include <stddef.h>
#include <stdint.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Ticket flags (RFC 4120 5.3, the first 32 bits of the BIT STRING, as
 *  MIT's ccache stores them). */
#define GK5_TKT_FLG_FORWARDABLE 0x40000000u
#define GK5_TKT_FLG_FORWARDED 0x20000000u
#define GK5_TKT_FLG_PROXIABLE 0x10000000u
#define GK5_TKT_FLG_PROXY 0x08000000u
#define GK5_TKT_FLG_MAY_POSTDATE 0x04000000u
#define GK5_TKT_FLG_POSTDATED 0x02000000u
#define GK5_TKT_FLG_INVALID 0x01000000u
#define GK5_TKT_FLG_RENEWABLE 0x00800000u
#define GK5_TKT_FLG_INITIAL 0x00400000u
#define GK5_TKT_FLG_PRE_AUTHENT 0x00200000u
#define GK5_TKT_FLG_HW_AUTHENT 0x00100000u
#define GK5_TKT_FLG_TRANSIT_POLICY_CHECKED 0x00080000u
#define GK5_TKT_FLG_OK_AS_DELEGATE 0x00040000u

/** Which step of gk5_kinit() or gk5_kvno() failed (their info's step):
 *  the caller's words for a failure may name what that step used. */
typedef enum {
    GK5_TKT_STEP_NONE = 0,  /**< none: the call succeeded */
    GK5_TKT_STEP_ARGUMENTS, /**< the options themselves */
    GK5_TKT_STEP_CONFIG,    /**< loading krb5.conf (detail says where) */
    GK5_TKT_STEP_KEYTAB,    /**< reading the client keytab */
    GK5_TKT_STEP_PRINCIPAL, /**< the client's or the service's name */
    GK5_TKT_STEP_CCACHE,    /**< the cache's name, or reading the cache */
    GK5_TKT_STEP_PASSWORD,  /**< the password callback */
    GK5_TKT_STEP_KDC,       /**< the exchange with the KDC */
    GK5_TKT_STEP_STORE      /**< writing the cache */
} gk5_tkt_step;

/**
 * The path of a credential cache name.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  name   "FILE:path" or a path; NULL: $KRB5CCNAME, else
 *                    /tmp/krb5cc_UID.
 * @param[out] path   The path, malloc'd (free()); NULL on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CRED  GK5_ERR_CCACHE_TYPE (a type other than FILE).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (path NULL, or an empty
 *         path), GK5_ERR_NOMEM.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ccache_resolve(uint32_t *minor,
                                               const char *name, char **path);

/* ---- kinit ---- */

/** gk5_kinit_opts.flags: ask for a forwardable ticket (also asked when
 *  krb5.conf's forwardable is true). */
#define GK5_KINIT_FORWARDABLE 0x1u

/**
 * The password callback of gk5_kinit_opts: write the password of
 * principal ("user@REALM"), NUL-terminated, into buf (len bytes, len of
 * at least 1024).  Return 0, or anything else when there is none (then
 * gk5_kinit() fails with GK5_ERR_PASSWORD; the callback says why).
 */
typedef int (*gk5_password_cb)(void *arg, const char *principal, char *buf,
                               size_t len);

/** What gk5_kinit() does.  Zero-initialise and set what you need. */
typedef struct {
    /** The cache written (replaced whole, mode 0600); NULL: the default. */
    const char *ccache;
    /** krb5.conf files, colon-separated; NULL: the default. */
    const char *config;
    /** The client, "user[/inst][@REALM]" (no realm: krb5.conf's
     *  default_realm); NULL: with keytab its first principal, else the
     *  login name at default_realm, as kinit does. */
    const char *principal;
    /** A client keytab, a path, "FILE:path" or "WRFILE:path": its key for
     *  the client is used; NULL: a password. */
    const char *keytab;
    /** The password (NUL-terminated) when keytab is NULL; NULL: asked of
     *  password_cb, once the client and the cache are known. */
    const char *password;
    gk5_password_cb password_cb; /**< see gk5_password_cb, or NULL */
    void *password_arg;          /**< password_cb's first argument */
    /** The ticket's lifetime in seconds; 0: krb5.conf's ticket_lifetime. */
    uint32_t lifetime;
    /** The renewable life in seconds; 0: krb5.conf's renew_lifetime. */
    uint32_t renew;
    /** GK5_KINIT_* flags. */
    uint32_t flags;
    /** Enctypes asked of the KDC; NULL: krb5.conf's
     *  default_tkt_enctypes. */
    const int32_t *enctypes;
    size_t n_enctypes; /**< how many (1 to 16 when enctypes is set) */
} gk5_kinit_opts;

/** What gk5_kinit() says, also after a failure (for the caller's words):
 *  release with gk5_kinit_info_release(). */
typedef struct {
    /** The failed step; GK5_TKT_STEP_NONE on success. */
    gk5_tkt_step step;
    /** The client, "user@REALM", once known; else NULL. */
    char *principal;
    /** The cache's path, once resolved; else NULL. */
    char *ccache;
    /** For GK5_TKT_STEP_CONFIG: where krb5.conf is wrong ("FILE:LINE:
     *  what"), when known; else "". */
    char detail[256];
} gk5_kinit_info;

/**
 * Get a ticket-granting ticket (krbtgt/REALM@REALM) from the KDC, as
 * kinit does: the AS exchange, with PA-ENC-TIMESTAMP when the KDC asks
 * for pre-authentication, the key from the password (ETYPE-INFO2's salt
 * and parameters) or from the keytab; the reply checked before anything
 * is kept.  The cache is then replaced by one holding the client and the
 * TGT; it is left alone on any failure.  The steps, in order: krb5.conf,
 * the keytab, the client, the cache's name, the password, the KDC, the
 * cache.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  opts   What to do.
 * @param[out] info   Zeroed on entry, then filled as the steps go (also on
 *                    failure); may be NULL.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_BAD_NAME  GK5_ERR_INVALID_ARGUMENT (the principal does not
 *         parse, or no principal was given and the login name is
 *         unknown).
 * @retval GK5_S_NO_CRED  GK5_ERR_KEYTAB_READ, GK5_ERR_KEYTAB_FORMAT,
 *         GK5_ERR_KEYTAB_NO_KEYS, GK5_ERR_CCACHE_TYPE.
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_* (the KDC issued an rc4 or
 *         DES ticket or key), the enctype in the high bits.
 * @retval GK5_S_FAILURE  GK5_ERR_CONFIG, GK5_ERR_CONFIG_REALM,
 *         GK5_ERR_CONFIG_NO_KDC, GK5_ERR_KDC_* (a KRB-ERROR's words in
 *         gk5_krb_last_error()), GK5_ERR_S2K_WEAK, GK5_ERR_PASSWORD (no
 *         password, or the callback gave none), GK5_ERR_CCACHE_WRITE,
 *         GK5_ERR_INVALID_ARGUMENT (opts NULL, enctypes and n_enctypes
 *         that do not agree, unknown flags, an empty cache path),
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_kinit(uint32_t *minor,
                                      const gk5_kinit_opts *opts,
                                      gk5_kinit_info *info);

/**
 * Free what gk5_kinit() put in info, and zero it.
 *
 * @param[in] info  The info; NULL is fine.
 */
GK5_EXPORT void gk5_kinit_info_release(gk5_kinit_info *info);

/* ---- kvno ---- */

/** What gk5_kvno() does.  Zero-initialise and set what you need. */
typedef struct {
    /** The cache holding the TGT; NULL: the default. */
    const char *ccache;
    /** krb5.conf files, colon-separated; NULL: the default. */
    const char *config;
    /** Session-key enctypes to ask the KDC for: then a TGS exchange is
     *  always made (the cache's tickets are not looked at) and its
     *  ticket stored.  NULL: a valid ticket in the cache, else the TGS
     *  exchange with krb5.conf's default_tgs_enctypes. */
    const int32_t *enctypes;
    size_t n_enctypes; /**< how many (1 to 16 when enctypes is set) */
} gk5_kvno_opts;

/** What gk5_kvno() says, also after a failure: release with
 *  gk5_kvno_info_release(). */
typedef struct {
    /** The failed step; GK5_TKT_STEP_NONE on success. */
    gk5_tkt_step step;
    /** The service, "service/host@REALM", once known; else NULL. */
    char *server;
    /** The cache's path, once resolved; else NULL. */
    char *ccache;
    /** For GK5_TKT_STEP_CONFIG: where krb5.conf is wrong, or "". */
    char detail[256];
    /** The ticket's key version number (0 when the ticket has none). */
    uint32_t kvno;
    /** The session key's enctype. */
    int32_t session_enctype;
    /** The enctype of the ticket's encrypted part (its service key's).
     *  Also after a failure at GK5_TKT_STEP_KDC when the KDC's reply was
     *  refused for it (an rc4 or DES service key, RFC 8429: the service
     *  has no key gk5 uses); else 0 after a failure. */
    int32_t ticket_enctype;
} gk5_kvno_info;

/**
 * Get a service ticket for the cache's client into the cache, as kvno
 * does: from the cache when it holds a valid one (and no enctypes are
 * asked), else by the TGS exchange (RFC 4120 3.3) with the cache's TGT,
 * the ticket then appended to the cache.  Only the TGT's realm is asked
 * (no referrals, no cross-realm).
 *
 * @param[out] minor    The gk5 error code.
 * @param[in]  service  "service/host[@REALM]" (krb5 form; no realm: the
 *                      cache's client's), taken as KRB5_NT_SRV_INST.
 * @param[in]  opts     Options, or NULL.
 * @param[out] info     Zeroed on entry; filled as the steps go (the
 *                      ticket's kvno and enctypes on success); may be
 *                      NULL.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_BAD_NAME  GK5_ERR_INVALID_ARGUMENT (service NULL or not a
 *         principal name).
 * @retval GK5_S_NO_CRED  GK5_ERR_CCACHE_TYPE, GK5_ERR_CCACHE_NOT_FOUND,
 *         GK5_ERR_CCACHE_READ, GK5_ERR_CCACHE_FORMAT, GK5_ERR_NO_TGT.
 * @retval GK5_S_CREDENTIALS_EXPIRED  GK5_ERR_TICKET_EXPIRED.
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_* (an enctype asked, or one
 *         the KDC issued, that gk5 will not use: RFC 8429), the enctype in
 *         the high bits.
 * @retval GK5_S_FAILURE  GK5_ERR_CONFIG*, GK5_ERR_KDC_* (among them
 *         GK5_ERR_KDC_REFERRAL for another realm; a KRB-ERROR's words in
 *         gk5_krb_last_error()), GK5_ERR_CCACHE_WRITE,
 *         GK5_ERR_INVALID_ARGUMENT (enctypes and n_enctypes that do not
 *         agree), GK5_ERR_NOMEM.
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_DER (the ticket does not
 *         decode).
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_kvno(uint32_t *minor, const char *service,
                                     const gk5_kvno_opts *opts,
                                     gk5_kvno_info *info);

/**
 * Free what gk5_kvno() put in info, and zero it.
 *
 * @param[in] info  The info; NULL is fine.
 */
GK5_EXPORT void gk5_kvno_info_release(gk5_kvno_info *info);

/* ---- klist ---- */

/** One credential of a cache, as gk5_ccache_list() describes it. */
typedef struct {
    /** The client and the server, "a/b@REALM" (MIT's quoting). */
    char *client;
    char *server;
    /** The times (seconds since 1970, unsigned 32-bit as the cache keeps
     *  them); starttime and renew_till 0 when absent. */
    uint32_t authtime, starttime, endtime, renew_till;
    /** GK5_TKT_FLG_* ticket flags. */
    uint32_t flags;
    /** The session key's enctype. */
    int32_t session_enctype;
    /** The enctype of the ticket's encrypted part; meaningful only when
     *  ticket_decoded is set. */
    int32_t ticket_enctype;
    /** Whether the ticket decoded (RFC 4120 5.3). */
    int ticket_decoded;
    /** Whether this is a configuration entry (a server in realm
     *  "X-CACHECONF:"), not a ticket. */
    int config;
    /** Whether the ticket is a user-to-user one (is_skey). */
    int is_skey;
} gk5_ccache_cred;

/** A credential cache, described: gk5_ccache_info_free() it. */
typedef struct {
    /** The cache file's path. */
    char *path;
    /** The default principal, "user@REALM". */
    char *principal;
    /** The cache's format version: 3 or 4. */
    unsigned version;
    /** How many credentials, in file order. */
    size_t n;
    gk5_ccache_cred *creds;
} gk5_ccache_info;

/**
 * Read a FILE credential cache (under a read lock, as MIT's klist does)
 * and describe it: no key is returned.
 *
 * @param[out] minor   The gk5 error code.
 * @param[in]  ccache  The cache; NULL: the default.
 * @param[out] out     The description, for gk5_ccache_info_free(); NULL
 *                     on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CRED  GK5_ERR_CCACHE_TYPE, GK5_ERR_CCACHE_NOT_FOUND,
 *         GK5_ERR_CCACHE_READ, GK5_ERR_CCACHE_FORMAT (malformed or
 *         truncated).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (out NULL, an empty
 *         path), GK5_ERR_NOMEM.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ccache_list(uint32_t *minor, const char *ccache,
                                            gk5_ccache_info **out);

/**
 * Free a description from gk5_ccache_list().
 *
 * @param[in] info  The description; NULL is fine.
 */
GK5_EXPORT void gk5_ccache_info_free(gk5_ccache_info *info);

/* ---- kdestroy ---- */

/**
 * Remove a FILE credential cache, as kdestroy does: its bytes overwritten
 * with zeros, then unlinked, under a write lock.  A symbolic link is
 * removed, what it points at left alone.
 *
 * @param[out] minor   The gk5 error code.
 * @param[in]  ccache  The cache; NULL: the default.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CRED  GK5_ERR_CCACHE_TYPE, GK5_ERR_CCACHE_NOT_FOUND.
 * @retval GK5_S_FAILURE  GK5_ERR_CCACHE_WRITE (it cannot be removed),
 *         GK5_ERR_INVALID_ARGUMENT (an empty path), GK5_ERR_NOMEM.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ccache_destroy(uint32_t *minor,
                                               const char *ccache);

/* ---- the initiator's pending state ---- */

/**
 * The pending state of an initiator waiting for the acceptor's AP-REP
 * (after gk5_initiator_step() answered GK5_S_CONTINUE_NEEDED), as bytes
 * that gk5_initiator_load() takes back, in this process or another.  The
 * bytes begin with the magic "gk5I" and end with a SHA-256 digest that
 * catches damage at rest (not a seal).  They hold keys (the AP-REP's and
 * the initiator's subkey): keep them as a keytab is kept (mode 0600).
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  init   The initiator.
 * @param[out] out    The bytes (malloc'd): gk5_buffer_release() (which
 *                    wipes) them.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (out NULL, init NULL or
 *         not waiting for an AP-REP), GK5_ERR_NOMEM,
 *         GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_initiator_save(uint32_t *minor,
                                               const gk5_initiator *init,
                                               gk5_buffer *out);

/**
 * An initiator from gk5_initiator_save()'s bytes, ready for
 * gk5_initiator_step() with the acceptor's answer.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  buf    The bytes (read, not kept).
 * @param[in]  len    Their length.
 * @param[out] out    The initiator, for gk5_initiator_free(); NULL on
 *                    failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_IMPORT_VERSION (not the magic,
 *         too short, or another version), GK5_ERR_IMPORT_DIGEST (changed
 *         or damaged), GK5_ERR_IMPORT_KEY_LENGTH (fields that do not fit
 *         the enctype, or bytes left over).
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_* with the enctype.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (out NULL),
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_initiator_load(uint32_t *minor, const void *buf,
                                               size_t len, gk5_initiator **out);

#ifdef __cplusplus
}
#endif

#endif /* GK5_TICKETS_H */
