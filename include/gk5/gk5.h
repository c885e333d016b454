/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file gk5.h
 * @brief gk5: the Kerberos V5 GSS-API mechanism's per-message operations
 * (RFC 4121, and RFC 1964 for DES3) as a userspace library (libgk5,
 * pkg-config gk5).
 *
 * Conventions every call below follows (docs/design.md, "Public
 * contracts"):
 *
 * - Status.  A call returns an RFC 2744 major status (GK5_S_*, RFC 2744's
 *   numeric values) and sets *minor to a gk5 error code (enum gk5_err; 0 on
 *   success).  Test the major with GK5_ERROR(): GK5_S_COMPLETE may carry
 *   supplementary bits (GK5_S_DUPLICATE_TOKEN ...).  minor must not be
 *   NULL: a call given none answers GK5_S_CALL_INACCESSIBLE_WRITE.
 *   gk5_display_status() turns a major, a minor or both into words.
 * - Classes.  A failed integrity check is GK5_S_BAD_SIG (minor
 *   GK5_ERR_INTEGRITY, whichever check it was); a malformed token or
 *   context buffer GK5_S_DEFECTIVE_TOKEN (minor GK5_ERR_TOKEN_* or
 *   GK5_ERR_IMPORT_*); an enctype gk5 will not use GK5_S_UNAVAILABLE (minor
 *   GK5_ERR_ENCTYPE_*, the enctype in its high bits); a missing context
 *   GK5_S_NO_CONTEXT; anything else GK5_S_FAILURE.
 * - Outputs are set to a safe value on entry (NULL, 0, an empty buffer)
 *   and written only on success.
 * - Ownership.  Memory gk5 hands out is malloc'd: a gk5_buffer is released
 *   with gk5_buffer_release(), IOV buffers gk5 allocated (ALLOCATED flag)
 *   with gk5_release_iov(), a context with gk5_ctx_free().  Both wipe
 *   before freeing.  Strings from the status calls belong to gk5.
 * - Threads.  The per-message calls, gk5_wrap_size_limit(),
 *   gk5_ctx_inquire(), gk5_ctx_inquire_window() and gk5_ctx_set_flags()
 *   may run on one context from many threads at once; no sequence number
 *   is ever sent twice.
 *   gk5_ctx_export() and gk5_ctx_free() need the context to themselves.
 */
#ifndef GK5_GK5_H
#define GK5_GK5_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a function exported from the shared library (visible only while
 *  the library itself is built; empty for its users). */
#if defined(GK5_BUILDING_LIBRARY)
#define GK5_EXPORT __attribute__((visibility("default")))
#else
#define GK5_EXPORT
#endif
/** The result must be looked at (warn_unused_result). */
#define GK5_WUR __attribute__((warn_unused_result))

/* ---- Major status (RFC 2744 section 3.9.1, same numeric values) ---- */

/** Success (possibly with supplementary bits). */
#define GK5_S_COMPLETE 0u

/** Calling error: an input could not be read (not returned by gk5). */
#define GK5_S_CALL_INACCESSIBLE_READ (1u << 24)
/** Calling error: an output could not be written (minor was NULL). */
#define GK5_S_CALL_INACCESSIBLE_WRITE (2u << 24)
/** Calling error: a malformed parameter (not returned by gk5). */
#define GK5_S_CALL_BAD_STRUCTURE (3u << 24)

/** Routine error: unsupported mechanism (not returned by gk5; kept for
 *  callers that mix in MIT's statuses). */
#define GK5_S_BAD_MECH (1u << 16)
/** Routine error: the token failed its integrity check. */
#define GK5_S_BAD_SIG (6u << 16)
/** RFC 2744's other name for GK5_S_BAD_SIG. */
#define GK5_S_BAD_MIC GK5_S_BAD_SIG
/** Routine error: no context was given. */
#define GK5_S_NO_CONTEXT (8u << 16)
/** Routine error: the token or context buffer is malformed. */
#define GK5_S_DEFECTIVE_TOKEN (9u << 16)
/** Routine error: a name that could not be parsed. */
#define GK5_S_BAD_NAME (2u << 16)
/** Routine error: the channel bindings do not match. */
#define GK5_S_BAD_BINDINGS (4u << 16)
/** Routine error: no credential (keytab key) for the request. */
#define GK5_S_NO_CRED (7u << 16)
/** Routine error: the ticket (the initiator's credential) is defective. */
#define GK5_S_DEFECTIVE_CREDENTIAL (10u << 16)
/** Routine error: the ticket (the initiator's credential) has expired. */
#define GK5_S_CREDENTIALS_EXPIRED (11u << 16)
/** Routine error: the context is past its endtime. */
#define GK5_S_CONTEXT_EXPIRED (12u << 16)
/** Routine error: anything else; the minor code says what. */
#define GK5_S_FAILURE (13u << 16)
/** Routine error: a QOP other than GK5_QOP_DEFAULT was asked for. */
#define GK5_S_BAD_QOP (14u << 16)
/** Routine error: an enctype gk5 will not use (see the minor). */
#define GK5_S_UNAVAILABLE (16u << 16)

/** Supplementary: call again with the peer's answer (libgk5_mit's
 *  establishment steps only). */
#define GK5_S_CONTINUE_NEEDED (1u << 0)
/** Supplementary: this sequence number was already received. */
#define GK5_S_DUPLICATE_TOKEN (1u << 1)
/** Supplementary: too far behind the receive window to tell. */
#define GK5_S_OLD_TOKEN (1u << 2)
/** Supplementary: a later token was already received. */
#define GK5_S_UNSEQ_TOKEN (1u << 3)
/** Supplementary: one or more earlier tokens were skipped. */
#define GK5_S_GAP_TOKEN (1u << 4)

/** The calling-error bits of a major status. */
#define GK5_CALLING_ERROR(x) ((x)&0xff000000u)
/** The routine-error bits of a major status. */
#define GK5_ROUTINE_ERROR(x) ((x)&0x00ff0000u)
/** The supplementary bits of a major status. */
#define GK5_SUPPLEMENTARY_INFO(x) ((x)&0x0000ffffu)
/** Nonzero if the major status is a failure (calling or routine error). */
#define GK5_ERROR(x) ((x)&0xffff0000u)

/** The only quality of protection gk5 offers (the enctype's default). */
#define GK5_QOP_DEFAULT 0u

/* ---- Minor status / error codes ---- */

/**
 * gk5 error codes: the minor status of every libgk5 call and the return
 * value of the crypto.h calls.
 *
 * A gk5 error is a uint32_t: the low 16 bits are one of these; for the
 * enctype errors the high 16 bits carry the enctype number (as int16_t) so
 * that the words name it: gk5_strerror(GK5_ERR_MAKE_ET(code, 23)) reads
 * "rc4-hmac (23) is deliberately unsupported: RFC 8429 ...".  0 is
 * success.  The numbers are part of the ABI: a code nothing returns any
 * more becomes a GK5_ERR_RESERVED_n slot and its number is never reused.
 */
enum gk5_err {
    GK5_OK = 0, /**< success */
    /* general */
    GK5_ERR_NOMEM = 1,        /**< out of memory */
    GK5_ERR_INVALID_ARGUMENT, /**< NULL pointer, bad flag, bad length */
    GK5_ERR_CRYPTO_BACKEND,   /**< OpenSSL failed unexpectedly */
    GK5_ERR_BUFFER_TOO_SMALL, /**< caller's output buffer too small */
    /* enctypes (high 16 bits = enctype) */
    GK5_ERR_ENCTYPE_UNKNOWN,   /**< not in gk5's enctype table */
    GK5_ERR_ENCTYPE_REJECTED,  /**< rc4, single DES: refused by policy */
    GK5_ERR_ENCTYPE_NOT_BUILT, /**< des3 without -Ddes3=true */
    /* crypto */
    GK5_ERR_BAD_KEY_LENGTH,        /**< key is not the enctype's length */
    GK5_ERR_BAD_CIPHERTEXT_LENGTH, /**< too short / not a block multiple */
    GK5_ERR_INTEGRITY,             /**< MAC or checksum did not verify */
    GK5_ERR_BAD_S2K_PARAMS,        /**< string-to-key parameters malformed */
    /** Retired, never returned (was BAD_USAGE: every key usage number is
     *  accepted). */
    GK5_ERR_RESERVED_12 = 12,
    GK5_ERR_BAD_IOV, /**< missing, duplicate or wrong-size IOV buffer */
    /* tokens (GK5_S_DEFECTIVE_TOKEN class) */
    GK5_ERR_TOKEN_TRUNCATED,   /**< shorter than its header says */
    GK5_ERR_TOKEN_ID,          /**< wrong TOK_ID: not a token of this kind */
    GK5_ERR_TOKEN_FILLER,      /**< filler bytes not 0xff */
    GK5_ERR_TOKEN_FLAGS,       /**< a MIC token with the Sealed flag */
    GK5_ERR_TOKEN_DIRECTION,   /**< token sent by us (reflected) */
    GK5_ERR_TOKEN_SUBKEY_FLAG, /**< AcceptorSubkey flag does not match */
    GK5_ERR_TOKEN_EC,          /**< EC inconsistent with the lengths */
    /** Retired, never returned (was TOKEN_HEADER_COPY: a header copy that
     *  does not match is GK5_ERR_INTEGRITY, like any integrity failure). */
    GK5_ERR_RESERVED_21 = 21,
    GK5_ERR_TOKEN_ALG,      /**< RFC 1964 SGN_ALG/SEAL_ALG unexpected */
    GK5_ERR_TOKEN_FRAMING,  /**< RFC 2743 3.1 framing / mech OID wrong */
    GK5_ERR_TOKEN_TRAILING, /**< bytes after the token */
    /* contexts */
    GK5_ERR_CTX_EXPIRED,       /**< past the context's endtime */
    GK5_ERR_CTX_NO_CONTEXT,    /**< no context was given */
    GK5_ERR_CTX_SEQ_EXHAUSTED, /**< send sequence number space used up */
    GK5_ERR_IMPORT_TRUNCATED,  /**< context buffer shorter than its fields */
    GK5_ERR_IMPORT_TOO_LONG,   /**< bytes left over after the last field */
    GK5_ERR_IMPORT_FLAGS,      /**< unknown flag bits */
    GK5_ERR_IMPORT_VERSION,    /**< unknown export format/lucid version */
    GK5_ERR_IMPORT_PROTOCOL,   /**< protocol/alg/flags do not fit enctype */
    GK5_ERR_IMPORT_KEY_LENGTH, /**< key length does not match enctype */
    /* 34..37 were SEQ_DUPLICATE, SEQ_OLD, SEQ_UNSEQ and SEQ_GAP: the
     * receive window reports through the supplementary bits of the major
     * status (GK5_S_DUPLICATE_TOKEN ...) with minor 0, never these. */
    GK5_ERR_RESERVED_34 = 34, /**< retired, never returned */
    GK5_ERR_RESERVED_35 = 35, /**< retired, never returned */
    GK5_ERR_RESERVED_36 = 36, /**< retired, never returned */
    GK5_ERR_RESERVED_37 = 37, /**< retired, never returned */
    GK5_ERR_BAD_QOP,          /**< only GK5_QOP_DEFAULT is supported */
    GK5_ERR_CONF_UNAVAILABLE, /**< a wrap came back without confidentiality
                                   (libgk5_rpc's privacy bodies) */
    GK5_ERR_MIT,              /**< an MIT krb5 call failed (libgk5_mit;
                                   gk5_mit_last_error() says which) */
    GK5_ERR_EXPORT_IN_USE,    /**< MIT's export of a context gk5 has used
                                   (gk5_mech.so) would resend numbers */
    GK5_ERR_IMPORT_DIGEST,    /**< gk5_ctx_import: the buffer's digest does
                                   not match (changed or damaged) */
    GK5_ERR_S2K_WEAK,         /**< string-to-key iteration count below the
                                   enctype's default (GK5_S2K_ALLOW_WEAK) */
    /* Kerberos messages (RFC 4120 DER) */
    GK5_ERR_DER,          /**< not strict DER of the expected RFC 4120 type */
    GK5_ERR_DER_LIMIT,    /**< past a decoder limit (size, depth, names) */
    GK5_ERR_KRB_MSG_TYPE, /**< wrong pvno or msg-type for the message */
    /* keytabs */
    GK5_ERR_KEYTAB_READ,    /**< the keytab file cannot be read */
    GK5_ERR_KEYTAB_FORMAT,  /**< the keytab file is malformed */
    GK5_ERR_KEYTAB_NO_KEYS, /**< no usable key for the principal asked for */
    /* the acceptor (RFC 4120 3.2, RFC 4121 4.1; the KRB-ERROR code it
     * answers with in parentheses) */
    GK5_ERR_AP_WRONG_PRINC, /**< ticket for a service we hold no key of
                                 (KRB_AP_ERR_NOT_US) */
    GK5_ERR_AP_BADKEYVER,   /**< no key of the ticket's kvno
                                 (KRB_AP_ERR_BADKEYVER) */
    GK5_ERR_AP_NOKEY,       /**< no key of the ticket's enctype
                                 (KRB_AP_ERR_NOKEY) */
    GK5_ERR_AP_MODIFIED,    /**< ticket or authenticator failed its
                                 integrity check (KRB_AP_ERR_MODIFIED) */
    GK5_ERR_AP_SKEW,        /**< authenticator time outside the clock skew
                                 (KRB_AP_ERR_SKEW) */
    GK5_ERR_AP_TKT_EXPIRED, /**< the ticket has expired
                                 (KRB_AP_ERR_TKT_EXPIRED) */
    GK5_ERR_AP_TKT_NYV,     /**< ticket not yet valid or marked invalid
                                 (KRB_AP_ERR_TKT_NYV) */
    GK5_ERR_AP_BADMATCH,    /**< authenticator client is not the ticket's
                                 (KRB_AP_ERR_BADMATCH) */
    GK5_ERR_AP_REPEAT,      /**< a replayed AP-REQ (KRB_AP_ERR_REPEAT) */
    GK5_ERR_RCACHE_FULL,    /**< the replay cache is full (KRB_AP_ERR_REPEAT) */
    GK5_ERR_RCACHE_IO,      /**< the replay cache file failed */
    GK5_ERR_AP_TRANSITED,   /**< cross-realm path not checked by the KDC
                                 (KDC_ERR_POLICY) */
    GK5_ERR_AP_USER_TO_USER, /**< use-session-key AP-REQ (KRB_AP_ERR_METHOD) */
    GK5_ERR_AP_DCE_STYLE,    /**< DCE-style establishment asked for */
    GK5_ERR_AP_CHECKSUM,     /**< authenticator checksum missing, unkeyed or
                                  malformed (KRB_AP_ERR_INAPP_CKSUM) */
    GK5_ERR_AP_BINDINGS,     /**< channel bindings differ */
    GK5_ERR_AP_NO_ENCTYPE,   /**< no enctype both sides support for the
                                  acceptor subkey */
    GK5_ERR_AP_BEFORE_START, /**< authenticator older than a memory-only
                                  replay cache (KRB_AP_ERR_REPEAT) */
    /* the KDC client and the initiator (configuration, credential caches,
     * the AS and TGS exchanges, the AP-REP) */
    GK5_ERR_CONFIG,           /**< krb5.conf cannot be read or is malformed */
    GK5_ERR_CONFIG_REALM,     /**< no realm given and no default_realm */
    GK5_ERR_CONFIG_NO_KDC,    /**< the realm has no kdc in krb5.conf */
    GK5_ERR_CCACHE_TYPE,      /**< a ccache type other than FILE */
    GK5_ERR_CCACHE_NOT_FOUND, /**< no credential cache file */
    GK5_ERR_CCACHE_READ,      /**< the ccache cannot be read or locked */
    GK5_ERR_CCACHE_FORMAT,    /**< the ccache is malformed or truncated */
    GK5_ERR_CCACHE_WRITE,     /**< the ccache cannot be written */
    GK5_ERR_NO_TGT,           /**< no ticket-granting ticket in the ccache */
    GK5_ERR_TICKET_EXPIRED,   /**< the ccache's tickets have expired */
    GK5_ERR_KDC_UNREACHABLE,  /**< no KDC of the realm answered in time */
    GK5_ERR_KDC_REPLY,    /**< the KDC's answer is not a well-formed reply */
    GK5_ERR_KDC_NONCE,    /**< the reply's nonce is not the request's */
    GK5_ERR_KDC_CNAME,    /**< the reply names another client */
    GK5_ERR_KDC_SNAME,    /**< the encrypted part names another service */
    GK5_ERR_KDC_MODIFIED, /**< the reply does not decrypt with the key */
    GK5_ERR_KDC_REFERRAL, /**< a referral or another realm's ticket */
    GK5_ERR_KDC_PREAUTH_FAILED,    /**< wrong password or key
                                      (KDC_ERR_PREAUTH_FAILED) */
    GK5_ERR_KDC_PRINCIPAL_UNKNOWN, /**< the KDC does not know the principal */
    GK5_ERR_KDC_KEY_EXPIRED, /**< the password has expired (KDC_ERR_KEY_EXPIRED)
                              */
    GK5_ERR_KDC_ETYPE_NOSUPP, /**< no enctype shared with the KDC */
    GK5_ERR_KDC_ERROR,        /**< another KRB-ERROR from the KDC */
    GK5_ERR_PASSWORD,         /**< no password could be read */
    GK5_ERR_AP_REP_MISMATCH,  /**< the AP-REP does not answer the AP-REQ */
    GK5_ERR_ACCEPTOR_ERROR,   /**< the acceptor refused with a KRB-ERROR */
    /* A new code goes after the last, with its row in src/mech/status.c
     * and GK5I_ERR_COUNT (src/common/util.h) moved past it. */
};

/** The code part (enum gk5_err) of a gk5 error. */
#define GK5_ERR_CODE(e) ((e)&0xffffu)
/** The enctype carried by a GK5_ERR_ENCTYPE_* error (sign-extended). */
#define GK5_ERR_ENCTYPE(e) ((int32_t)(int16_t)((e) >> 16))
/** An enctype error naming enctype et. */
#define GK5_ERR_MAKE_ET(code, et)                                              \
    ((uint32_t)(code) | ((uint32_t)(uint16_t)(int16_t)(et) << 16))

/* ---- Buffers and contexts ---- */

/** A security context: opaque; made by an import, freed by gk5_ctx_free(). */
typedef struct gk5_ctx gk5_ctx;

/** A counted byte buffer, with the layout of gss_buffer_desc. */
typedef struct {
    size_t length; /**< bytes at value */
    void *value;   /**< the bytes (NULL when length is 0 is fine) */
} gk5_buffer;

/* IOV buffer types: numerically equal to MIT's GSS_IOV_BUFFER_TYPE_*. */
/** Ignored. */
#define GK5_IOV_BUFFER_TYPE_EMPTY 0u
/** Message bytes: encrypted or decrypted in place, or signed. */
#define GK5_IOV_BUFFER_TYPE_DATA 1u
/** The token header (wrap_iov writes it, unwrap_iov reads it). */
#define GK5_IOV_BUFFER_TYPE_HEADER 2u
/** Ignored (MIT's mechanism parameters). */
#define GK5_IOV_BUFFER_TYPE_MECH_PARAMS 3u
/** The token trailer (EC filler, header copy and MAC; or the checksum). */
#define GK5_IOV_BUFFER_TYPE_TRAILER 7u
/** Padding: always empty for RFC 4121; the pad bytes for RFC 1964. */
#define GK5_IOV_BUFFER_TYPE_PADDING 9u
/** A whole Wrap token, unwrapped in place (unwrap_iov only). */
#define GK5_IOV_BUFFER_TYPE_STREAM 10u
/** Covered by the checksum, neither encrypted nor sent. */
#define GK5_IOV_BUFFER_TYPE_SIGN_ONLY 11u
/** The MIC token (get_mic_iov writes it, verify_mic_iov reads it). */
#define GK5_IOV_BUFFER_TYPE_MIC_TOKEN 12u
/** The flag bits of an IOV buffer's type. */
#define GK5_IOV_BUFFER_FLAG_MASK 0xffff0000u
/** Set by the caller: gk5 allocates this output buffer (malloc). */
#define GK5_IOV_BUFFER_FLAG_ALLOCATE 0x00010000u
/** Set by gk5 on a buffer it allocated: free it with gk5_release_iov(). */
#define GK5_IOV_BUFFER_FLAG_ALLOCATED 0x00020000u
/** The type of an IOV buffer without its flags. */
#define GK5_IOV_BUFFER_TYPE(t) ((t) & ~GK5_IOV_BUFFER_FLAG_MASK)

/** One IOV buffer, with the layout of gss_iov_buffer_desc. */
typedef struct {
    uint32_t type;     /**< GK5_IOV_BUFFER_TYPE_* | GK5_IOV_BUFFER_FLAG_* */
    gk5_buffer buffer; /**< its bytes; for outputs, length is the room */
} gk5_iov_buffer;

/* Context flags (gk5_ctx_info.flags, gk5_ctx_set_flags).  REPLAY and
 * SEQUENCE have the values of GSS_C_REPLAY_FLAG / GSS_C_SEQUENCE_FLAG. */
/** Report duplicate (and old) tokens. */
#define GK5_CTX_REPLAY 0x04u
/** Report out-of-sequence tokens and gaps. */
#define GK5_CTX_SEQUENCE 0x08u

/* Flags of the rpc.gssd / gssproxy buffer for the kernel. */
/** We initiated the context. */
#define GK5_GSSD_FLAG_INITIATOR 0x1u
/** RFC 4121 (CFX) tokens; clear only for RFC 1964 DES3. */
#define GK5_GSSD_FLAG_CFX 0x2u
/** The key is the acceptor's subkey. */
#define GK5_GSSD_FLAG_ACCEPTOR_SUBKEY 0x4u

/** A key of MIT's lucid context (gss_krb5_lucid_key_t's fields). */
typedef struct {
    uint32_t type;    /**< enctype */
    uint32_t length;  /**< key length in bytes */
    const void *data; /**< the key; read during import, never kept */
} gk5_lucid_key;

/** The fields of MIT's gss_krb5_lucid_context_v1_t, field for field. */
typedef struct {
    uint32_t version;  /**< must be 1 */
    uint32_t initiate; /**< nonzero: we are the initiator */
    uint32_t endtime;  /**< seconds since the epoch; 0 = no expiry */
    uint64_t send_seq; /**< our next sequence number */
    uint64_t recv_seq; /**< the peer's initial sequence number */
    uint32_t protocol; /**< 0: RFC 1964 (DES3), 1: RFC 4121 (CFX) */
    /** protocol 0 only */
    struct {
        uint32_t sign_alg;     /**< must be 4 (HMAC SHA1 DES3-KD) */
        uint32_t seal_alg;     /**< must be 2 (DES3) */
        gk5_lucid_key ctx_key; /**< the session key */
    } rfc1964_kd;
    /** protocol 1 only */
    struct {
        uint32_t have_acceptor_subkey; /**< nonzero: use acceptor_subkey */
        gk5_lucid_key ctx_key;         /**< the session key */
        gk5_lucid_key acceptor_subkey; /**< the acceptor's subkey */
    } cfx_kd;
} gk5_lucid_ctx;

/** What gk5_ctx_inquire() reports about a context. */
typedef struct {
    int32_t enctype;          /**< the key's enctype */
    const char *enctype_name; /**< its name; static, never freed */
    int initiator;            /**< 1 if we initiated the context */
    int cfx;                  /**< 1: RFC 4121 tokens; 0: RFC 1964 (DES3) */
    int acceptor_subkey;      /**< 1 if keyed with the acceptor's subkey */
    uint32_t endtime;         /**< 0 = no expiry */
    uint32_t flags;           /**< GK5_CTX_REPLAY | GK5_CTX_SEQUENCE */
    uint64_t send_seq;        /**< next sequence number we will send */
} gk5_ctx_info;

/** A context's receive window (RFC 2743 1.2.3), as gk5_ctx_inquire_window()
 *  reports it: what gk5_ctx_export() carries beside gk5_ctx_info. */
typedef struct {
    int started;     /**< 1 once a token passed its integrity check; 0: next
                          and bitmap are 0 */
    uint64_t next;   /**< one past the highest sequence number received */
    uint64_t bitmap; /**< bit i: number next - 1 - i was received */
} gk5_ctx_window;

/* ---- Contexts ---- */

/**
 * Import the context buffer rpc.gssd and gssproxy write for the kernel.
 *
 * The layout (host byte order, no padding; docs/design.md, "The rpc.gssd
 * context buffer"): u32 flags (GK5_GSSD_FLAG_*), u32 endtime, u64
 * send_seq, u32 enctype (DES3 as 16 or 6), then exactly the enctype's key
 * length of key, ending the buffer.  The new context derives every subkey
 * and keeps no copy of the key and no pointer into buf (wipe buf
 * afterwards); it reports duplicates and order (GK5_CTX_REPLAY |
 * GK5_CTX_SEQUENCE), and its receive window starts at the first token that
 * passes its integrity check.  Checks run in this order: length of the
 * fixed fields, flags, enctype, key length, protocol.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  buf    The buffer (may be NULL only if len is 0).
 * @param[in]  len    Its length in bytes.
 * @param[out] ctx    The new context, for gk5_ctx_free(); NULL on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_IMPORT_TRUNCATED (shorter than the
 *         fixed fields or the key), GK5_ERR_IMPORT_FLAGS (unknown flag
 *         bits), GK5_ERR_IMPORT_TOO_LONG (bytes after the key),
 *         GK5_ERR_IMPORT_PROTOCOL (CFX flag or acceptor-subkey flag that
 *         does not fit the enctype; DES3 with send_seq >= 2^32).
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_REJECTED, _NOT_BUILT or
 *         _UNKNOWN with the enctype in the minor's high bits.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (ctx NULL, buf NULL with
 *         len), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import_gssd(uint32_t *minor,
                                                const void *buf, size_t len,
                                                gk5_ctx **ctx);

/**
 * Import MIT's lucid context (version 1), as
 * gss_krb5_export_lucid_sec_context() hands it out (docs/design.md, "MIT's
 * lucid context").
 *
 * Protocol 1 takes cfx_kd.acceptor_subkey when have_acceptor_subkey is
 * set, else cfx_kd.ctx_key; protocol 0 takes rfc1964_kd.ctx_key (DES3
 * only, built with -Ddes3=true).  The receive window starts out expecting
 * recv_seq.  The key data is read, not kept: lucid may be freed
 * afterwards.  The enctype is checked before the algorithms, so an rc4
 * context is refused as rc4.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  lucid  The lucid context's fields.
 * @param[out] ctx    The new context, for gk5_ctx_free(); NULL on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_IMPORT_VERSION (version not 1),
 *         GK5_ERR_IMPORT_PROTOCOL (protocol not 0 or 1; sign_alg or
 *         seal_alg not DES3's; an enctype that does not fit the protocol;
 *         DES3 with send_seq >= 2^32), GK5_ERR_IMPORT_KEY_LENGTH (key
 *         length not the enctype's, or no key data).
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_REJECTED, _NOT_BUILT or
 *         _UNKNOWN with the enctype.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (lucid or ctx NULL),
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import_lucid(uint32_t *minor,
                                                 const gk5_lucid_ctx *lucid,
                                                 gk5_ctx **ctx);

/**
 * Export a context in gk5's own versioned format (version 2): everything,
 * the receive window and the replay/sequence flags included, closed by a
 * SHA-256 of the rest (docs/design.md, "Export format").
 *
 * The buffer holds the context's keys: store it as one stores a keytab
 * (readable by its owner only).  The digest catches a buffer changed or
 * damaged at rest (a rewound send counter would send sequence numbers
 * twice); it is not a seal: whoever can write the buffer can recompute it.
 * Export while no other thread uses the context (the counter and the
 * window are each read atomically, but not together).  ctx stays usable;
 * a context both kept and imported elsewhere would send numbers twice.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  ctx    The context.
 * @param[out] out    The buffer (malloc'd): gk5_buffer_release() it.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (ctx NULL).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (out NULL),
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_export(uint32_t *minor, const gk5_ctx *ctx,
                                           gk5_buffer *out);

/**
 * Import a buffer gk5_ctx_export() made: the context carries on exactly
 * where the exported one was (send counter, receive window, flags).
 *
 * Checks run in this order: magic and version, the digest, the fixed
 * fields, the enctype, flag bits, consistency, keys, trailing bytes.  The
 * buffer is read, not kept.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  buf    The exported buffer (may be NULL only if len is 0).
 * @param[in]  len    Its length.
 * @param[out] ctx    The new context, for gk5_ctx_free(); NULL on failure.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_IMPORT_VERSION (not gk5's magic,
 *         or a version other than 2), GK5_ERR_IMPORT_DIGEST (changed or
 *         damaged), GK5_ERR_IMPORT_TRUNCATED, GK5_ERR_IMPORT_FLAGS (unknown
 *         flag, option or state bits), GK5_ERR_IMPORT_PROTOCOL (fields that
 *         do not fit the enctype or each other), GK5_ERR_IMPORT_KEY_LENGTH,
 *         GK5_ERR_IMPORT_TOO_LONG.
 * @retval GK5_S_UNAVAILABLE  GK5_ERR_ENCTYPE_REJECTED, _NOT_BUILT or
 *         _UNKNOWN with the enctype.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (ctx NULL, buf NULL with
 *         len), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import(uint32_t *minor, const void *buf,
                                           size_t len, gk5_ctx **ctx);

/**
 * Describe a context.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  ctx    The context.
 * @param[out] info   Zeroed on entry, filled on success.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (ctx NULL).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (info NULL).
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_inquire(uint32_t *minor, const gk5_ctx *ctx,
                                            gk5_ctx_info *info);

/**
 * A context's receive window: where it stands, not the keys.
 *
 * The window is read atomically, but another thread's unwrap or verify
 * may move it right after.
 *
 * @param[out] minor   The gk5 error code.
 * @param[in]  ctx     The context.
 * @param[out] window  Zeroed on entry, filled on success.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (ctx NULL).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (window NULL).
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_inquire_window(uint32_t *minor,
                                                   const gk5_ctx *ctx,
                                                   gk5_ctx_window *window);

/**
 * Set which receive-window verdicts the context reports (replacing the
 * flags it had; both are on after an import of the gssd or lucid forms).
 * Tokens are checked and recorded either way; the flags only decide which
 * supplementary bits are returned.  Safe while other threads use ctx.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  ctx    The context.
 * @param[in]  flags  GK5_CTX_REPLAY | GK5_CTX_SEQUENCE, or 0.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT (ctx NULL).
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (other bits in flags).
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_set_flags(uint32_t *minor, gk5_ctx *ctx,
                                              uint32_t flags);

/**
 * Wipe every key of a context and free it.  No other thread may be using
 * ctx.
 *
 * @param[in] ctx  The context; NULL is fine.
 */
GK5_EXPORT void gk5_ctx_free(gk5_ctx *ctx);

/* ---- Per-message operations (RFC 2743 2.3) ----
 * Common to all of them: the checks run in the order no context
 * (GK5_S_NO_CONTEXT), QOP (GK5_S_BAD_QOP), expiry (GK5_S_CONTEXT_EXPIRED),
 * then the arguments.  On the receiving side a token that fails changes
 * nothing in the context and leaves no plaintext behind; the receive
 * window moves only after the token passed its integrity check
 * (docs/design.md, "Sequence numbers and the receive window"). */

/**
 * RFC 2743 2.3.3 GSS_Wrap: the message as one Wrap token (RFC 4121 4.2.6.2;
 * RFC 1964 1.2.2 for DES3); RFC 4121 tokens go out with EC 0 and RRC 0.
 * Takes one send sequence number.
 *
 * @param[out] minor       The gk5 error code.
 * @param[in]  ctx         The context.
 * @param[in]  conf_req    Nonzero: encrypt (sealed); 0: integrity only.
 * @param[in]  qop         GK5_QOP_DEFAULT.
 * @param[in]  in          The message.
 * @param[out] conf_state  May be NULL; 1 if the token is sealed, else 0.
 * @param[out] out         The token (malloc'd): gk5_buffer_release() it.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (in or out NULL, in's
 *         value NULL with a length, a message too long),
 *         GK5_ERR_CTX_SEQ_EXHAUSTED (every sequence number used: make a new
 *         context), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap(uint32_t *minor, gk5_ctx *ctx,
                                     int conf_req, uint32_t qop,
                                     const gk5_buffer *in, int *conf_state,
                                     gk5_buffer *out);

/**
 * RFC 2743 2.3.4 GSS_Unwrap: check a Wrap token and return its message.
 * Any RRC is accepted (MIT's IOV wrap and Windows rotate the token).
 *
 * @param[out] minor       The gk5 error code (0 with supplementary bits).
 * @param[in]  ctx         The context.
 * @param[in]  in          The token; not modified.
 * @param[out] out         The message (malloc'd): gk5_buffer_release() it.
 * @param[out] conf_state  May be NULL; 1 if the token was sealed.
 * @param[out] qop         May be NULL; GK5_QOP_DEFAULT.
 * @retval GK5_S_COMPLETE  Possibly with GK5_S_DUPLICATE_TOKEN,
 *         GK5_S_OLD_TOKEN, GK5_S_UNSEQ_TOKEN or GK5_S_GAP_TOKEN as the
 *         context's flags ask; the message is authentic and returned.
 * @retval GK5_S_BAD_SIG  GK5_ERR_INTEGRITY: the token was altered or the
 *         key is wrong (decryption, MAC, header copy, DES3 padding or
 *         sequence-number direction bytes: one answer for all).
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_TOKEN_TRUNCATED, GK5_ERR_TOKEN_ID,
 *         GK5_ERR_TOKEN_FILLER, GK5_ERR_TOKEN_DIRECTION (our own token,
 *         reflected), GK5_ERR_TOKEN_SUBKEY_FLAG, GK5_ERR_TOKEN_EC; for
 *         DES3 also GK5_ERR_TOKEN_FRAMING, GK5_ERR_TOKEN_TRAILING,
 *         GK5_ERR_TOKEN_ALG, GK5_ERR_BAD_CIPHERTEXT_LENGTH.
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (in or out NULL, in's
 *         value NULL with a length), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_unwrap(uint32_t *minor, gk5_ctx *ctx,
                                       const gk5_buffer *in, gk5_buffer *out,
                                       int *conf_state, uint32_t *qop);

/**
 * RFC 2743 2.3.1 GSS_GetMIC: a MIC token for the message (RFC 4121
 * 4.2.6.1; RFC 1964 1.2.1 for DES3).  Takes one send sequence number.
 *
 * @param[out] minor  The gk5 error code.
 * @param[in]  ctx    The context.
 * @param[in]  qop    GK5_QOP_DEFAULT.
 * @param[in]  msg    The message.
 * @param[out] token  The token (malloc'd): gk5_buffer_release() it.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (msg or token NULL),
 *         GK5_ERR_CTX_SEQ_EXHAUSTED, GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_get_mic(uint32_t *minor, gk5_ctx *ctx,
                                        uint32_t qop, const gk5_buffer *msg,
                                        gk5_buffer *token);

/**
 * RFC 2743 2.3.2 GSS_VerifyMIC: check a MIC token against the message.
 * Allocates nothing.
 *
 * @param[out] minor  The gk5 error code (0 with supplementary bits).
 * @param[in]  ctx    The context.
 * @param[in]  msg    The message.
 * @param[in]  token  The MIC token.
 * @param[out] qop    May be NULL; GK5_QOP_DEFAULT.
 * @retval GK5_S_COMPLETE  Possibly with supplementary bits, as for
 *         gk5_unwrap().
 * @retval GK5_S_BAD_SIG  GK5_ERR_INTEGRITY.
 * @retval GK5_S_DEFECTIVE_TOKEN  GK5_ERR_TOKEN_TRUNCATED,
 *         GK5_ERR_TOKEN_TRAILING (longer than a MIC), GK5_ERR_TOKEN_ID,
 *         GK5_ERR_TOKEN_FLAGS (Sealed set), GK5_ERR_TOKEN_FILLER,
 *         GK5_ERR_TOKEN_DIRECTION, GK5_ERR_TOKEN_SUBKEY_FLAG; for DES3
 *         also GK5_ERR_TOKEN_FRAMING and GK5_ERR_TOKEN_ALG.
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (msg or token NULL, a
 *         NULL value with a length), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_verify_mic(uint32_t *minor, gk5_ctx *ctx,
                                           const gk5_buffer *msg,
                                           const gk5_buffer *token,
                                           uint32_t *qop);

/**
 * RFC 2743 2.2.8 GSS_Wrap_size_limit: the largest message whose gk5_wrap()
 * token fits in out_max bytes.
 *
 * @param[out] minor     The gk5 error code.
 * @param[in]  ctx       The context.
 * @param[in]  conf_req  As for gk5_wrap().
 * @param[in]  qop       GK5_QOP_DEFAULT.
 * @param[in]  out_max   The largest token wanted.
 * @param[out] in_max    The largest message; 0 if even an empty one does
 *                       not fit.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_INVALID_ARGUMENT (in_max NULL).
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_size_limit(uint32_t *minor,
                                                const gk5_ctx *ctx,
                                                int conf_req, uint32_t qop,
                                                size_t out_max, size_t *in_max);

/* ---- IOV family (RFC 4121 4.2.4 layout; MIT's gss_*_iov semantics) ----
 * Common to all of them (docs/design.md, "IOV rules"): at most 128
 * buffers; at most one each of HEADER, TRAILER, PADDING, STREAM and
 * MIC_TOKEN; EMPTY and MECH_PARAMS are ignored; DATA and SIGN_ONLY may
 * repeat and are processed in array order.  An output buffer without
 * GK5_IOV_BUFFER_FLAG_ALLOCATE gives its room in buffer.length, which gk5
 * sets to the length used; with it gk5 allocates (malloc), sets
 * GK5_IOV_BUFFER_FLAG_ALLOCATED, and gk5_release_iov() frees it.  A
 * failed call frees what it allocated.  With caller buffers the steady
 * state allocates nothing per message. */

/**
 * MIT's gss_wrap_iov: wrap the DATA buffers in place.
 *
 * Needs a HEADER; no STREAM or MIC_TOKEN.  RFC 4121: HEADER = token
 * header and confounder, TRAILER = EC filler, encrypted header copy and
 * MAC (integrity only: the checksum), PADDING = empty; without a TRAILER
 * buffer the trailer goes into HEADER and RRC says so (as MIT does).
 * RFC 1964 (DES3): HEADER = framing to confounder, the pad bytes in
 * PADDING (or TRAILER if there is no PADDING; one of them is needed).
 * Takes one send sequence number.
 *
 * @param[out]    minor       The gk5 error code.
 * @param[in]     ctx         The context.
 * @param[in]     conf_req    Nonzero: encrypt; 0: integrity only.
 * @param[in]     qop         GK5_QOP_DEFAULT.
 * @param[out]    conf_state  May be NULL; 1 if sealed.
 * @param[in,out] iov         The buffers.
 * @param[in]     iov_count   How many.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_BAD_IOV (buffers missing, repeated, of
 *         an unknown type or flag, or more than 128),
 *         GK5_ERR_BUFFER_TOO_SMALL (HEADER, TRAILER or PADDING without
 *         room),
 *         GK5_ERR_INVALID_ARGUMENT (iov NULL, iov_count negative, a NULL
 *         value with a length), GK5_ERR_CTX_SEQ_EXHAUSTED, GK5_ERR_NOMEM,
 *         GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                         int conf_req, uint32_t qop,
                                         int *conf_state, gk5_iov_buffer *iov,
                                         int iov_count);

/**
 * MIT's gss_unwrap_iov: check a Wrap token and decrypt it in place.
 *
 * Either the token split as gk5_wrap_iov() lays it out (HEADER, DATA...,
 * TRAILER or not, an empty PADDING), with the RRC that layout means, or
 * the whole token in one STREAM buffer with exactly one DATA buffer (any
 * RRC): DATA then points at the message inside the STREAM, or, flagged
 * ALLOCATE, receives a malloc'd copy (ALLOCATED; gk5_release_iov()).
 *
 * @param[out]    minor       The gk5 error code (0 with supplementary
 *                            bits).
 * @param[in]     ctx         The context.
 * @param[out]    conf_state  May be NULL; 1 if the token was sealed.
 * @param[out]    qop         May be NULL; GK5_QOP_DEFAULT.
 * @param[in,out] iov         The buffers.
 * @param[in]     iov_count   How many.
 * @retval GK5_S_COMPLETE  Possibly with supplementary bits, as for
 *         gk5_unwrap().
 * @retval GK5_S_BAD_SIG  GK5_ERR_INTEGRITY (DATA wiped).
 * @retval GK5_S_DEFECTIVE_TOKEN  As for gk5_unwrap().
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_BAD_IOV (as for gk5_wrap_iov(), or a
 *         split token whose RRC or TRAILER does not match its layout: use
 *         a STREAM), GK5_ERR_INVALID_ARGUMENT, GK5_ERR_NOMEM,
 *         GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_unwrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                           int *conf_state, uint32_t *qop,
                                           gk5_iov_buffer *iov, int iov_count);

/**
 * MIT's gss_wrap_iov_length: set the lengths of HEADER, TRAILER and
 * PADDING that gk5_wrap_iov() will need for these DATA buffers (their
 * values are not looked at).  Takes no sequence number.
 *
 * @param[out]    minor       The gk5 error code.
 * @param[in]     ctx         The context.
 * @param[in]     conf_req    As for gk5_wrap_iov().
 * @param[in]     qop         GK5_QOP_DEFAULT.
 * @param[out]    conf_state  May be NULL; 1 if the wrap would be sealed.
 * @param[in,out] iov         The buffers; lengths are written.
 * @param[in]     iov_count   How many.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_BAD_IOV, GK5_ERR_INVALID_ARGUMENT.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_iov_length(
    uint32_t *minor, const gk5_ctx *ctx, int conf_req, uint32_t qop,
    int *conf_state, gk5_iov_buffer *iov, int iov_count);

/**
 * MIT's gss_get_mic_iov: a MIC over the DATA and SIGN_ONLY buffers (in
 * array order) into the MIC_TOKEN buffer.  Needs a MIC_TOKEN; no HEADER,
 * TRAILER, PADDING or STREAM.  A MIC_TOKEN flagged ALLOCATE gets 64 bytes
 * of room; its length is set to the token's.  Takes one send sequence
 * number.
 *
 * @param[out]    minor      The gk5 error code.
 * @param[in]     ctx        The context.
 * @param[in]     qop        GK5_QOP_DEFAULT.
 * @param[in,out] iov        The buffers.
 * @param[in]     iov_count  How many.
 * @retval GK5_S_COMPLETE
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_BAD_QOP  GK5_ERR_BAD_QOP.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_BAD_IOV, GK5_ERR_BUFFER_TOO_SMALL,
 *         GK5_ERR_INVALID_ARGUMENT, GK5_ERR_CTX_SEQ_EXHAUSTED,
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_get_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                            uint32_t qop, gk5_iov_buffer *iov,
                                            int iov_count);

/**
 * MIT's gss_verify_mic_iov: check the MIC_TOKEN buffer against the DATA
 * and SIGN_ONLY buffers.  Same buffer rules as gk5_get_mic_iov().
 *
 * @param[out]    minor      The gk5 error code (0 with supplementary bits).
 * @param[in]     ctx        The context.
 * @param[out]    qop        May be NULL; GK5_QOP_DEFAULT.
 * @param[in,out] iov        The buffers (not modified).
 * @param[in]     iov_count  How many.
 * @retval GK5_S_COMPLETE  Possibly with supplementary bits.
 * @retval GK5_S_BAD_SIG  GK5_ERR_INTEGRITY.
 * @retval GK5_S_DEFECTIVE_TOKEN  As for gk5_verify_mic().
 * @retval GK5_S_NO_CONTEXT  GK5_ERR_CTX_NO_CONTEXT.
 * @retval GK5_S_CONTEXT_EXPIRED  GK5_ERR_CTX_EXPIRED.
 * @retval GK5_S_FAILURE  GK5_ERR_BAD_IOV, GK5_ERR_INVALID_ARGUMENT,
 *         GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND.
 * @retval GK5_S_CALL_INACCESSIBLE_WRITE  minor is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_verify_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                               uint32_t *qop,
                                               gk5_iov_buffer *iov,
                                               int iov_count);

/**
 * Wipe and free the buffers gk5 allocated (those flagged ALLOCATED),
 * clearing the flag and leaving them empty; other buffers are left alone.
 *
 * @param[in,out] iov        The buffers; NULL is fine.
 * @param[in]     iov_count  How many.
 */
GK5_EXPORT void gk5_release_iov(gk5_iov_buffer *iov, int iov_count);

/* ---- Buffers and status ---- */

/**
 * Wipe and free a buffer gk5 returned (gk5_wrap(), gk5_unwrap(),
 * gk5_get_mic(), gk5_ctx_export(), and the gk5_buffer outputs of
 * libgk5_mit and libgk5_rpc), leaving it empty.
 *
 * @param[in,out] buf  The buffer; NULL, or an empty buffer, is fine.
 */
GK5_EXPORT void gk5_buffer_release(gk5_buffer *buf);

/**
 * Words for a major status, a minor code, or both ("major words: minor
 * words"); an enctype error names the enctype and why gk5 refuses it.
 *
 * @param[in] major  A major status, or 0.
 * @param[in] minor  A gk5 error code, or 0.
 * @return Never NULL.  A thread-local buffer, valid until this thread
 *         next calls gk5_display_status() or gk5_mit_display_status().
 */
GK5_EXPORT const char *gk5_display_status(uint32_t major, uint32_t minor);

/**
 * The RFC 2744 name of a major status: its routine error, else its
 * calling error, else its first supplementary bit ("GSS_S_BAD_SIG",
 * "GSS_S_COMPLETE").
 *
 * @param[in] major  A major status.
 * @return A static string, never NULL.
 */
GK5_EXPORT const char *gk5_major_name(uint32_t major);

/**
 * Words for a gk5 error code (a minor status or a crypto.h return value).
 *
 * @param[in] err  The code, with its enctype bits if any.
 * @return Never NULL: static text, or (enctype errors and unknown codes) a
 *         thread-local buffer valid until this thread next calls
 *         gk5_strerror() or gk5_display_status().
 */
GK5_EXPORT const char *gk5_strerror(uint32_t err);

/**
 * The library's version.
 *
 * @return A static string such as "0.1.0".
 */
GK5_EXPORT const char *gk5_version(void);

/* Bits of gk5_build_features().  Ignore bits you do not know: later
 * versions may add some. */
/** The hand-written paths beside OpenSSL's EVP layer are compiled in
 *  (meson -Dfastpath=true, the default); without them every key runs on
 *  OpenSSL's CTS ciphers and EVP_MAC. */
#define GK5_FEATURE_FASTPATH 0x1u
/** AES keys run on AES-NI here, RFC 3962 sealing in one pass with SHA-NI:
 *  this build has the path (x86-64, GK5_FEATURE_FASTPATH) and this CPU
 *  the instructions. */
#define GK5_FEATURE_ONEPASS 0x2u

/**
 * What this libgk5 was built with and which of its paths run on this
 * machine, for version reports and bug reports; nothing here changes how
 * gk5 behaves.  (Whether des3 is built is gk5_enctype_check(16).)
 *
 * @return GK5_FEATURE_* bits.
 */
GK5_EXPORT uint32_t gk5_build_features(void);

#ifdef __cplusplus
}
#endif
#endif /* GK5_GK5_H */
