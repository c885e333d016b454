/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 — the Kerberos V5 GSS-API mechanism's per-message operations
 * (RFC 4121, RFC 1964 for DES3) as a userspace library.
 *
 * Calls follow RFC 2744: each returns a major status with RFC 2744's
 * numeric values and sets *minor to a gk5 error code (GK5_ERR_*).
 * gk5_display_status() turns either into words.  Outputs are set to a safe
 * value on entry and written only on success.
 */
#ifndef GK5_GK5_H
#define GK5_GK5_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GK5_BUILDING_LIBRARY)
#define GK5_EXPORT __attribute__((visibility("default")))
#else
#define GK5_EXPORT
#endif
#define GK5_WUR __attribute__((warn_unused_result))

/* ---- Major status (RFC 2744 section 3.9.1, same numeric values) ---- */
#define GK5_S_COMPLETE 0u

#define GK5_S_CALL_INACCESSIBLE_READ (1u << 24)
#define GK5_S_CALL_INACCESSIBLE_WRITE (2u << 24)
#define GK5_S_CALL_BAD_STRUCTURE (3u << 24)

#define GK5_S_BAD_MECH (1u << 16)
#define GK5_S_BAD_SIG (6u << 16)
#define GK5_S_BAD_MIC GK5_S_BAD_SIG
#define GK5_S_NO_CONTEXT (8u << 16)
#define GK5_S_DEFECTIVE_TOKEN (9u << 16)
#define GK5_S_CONTEXT_EXPIRED (12u << 16)
#define GK5_S_FAILURE (13u << 16)
#define GK5_S_BAD_QOP (14u << 16)
#define GK5_S_UNAVAILABLE (16u << 16)

/* Supplementary information bits. */
#define GK5_S_CONTINUE_NEEDED (1u << 0)
#define GK5_S_DUPLICATE_TOKEN (1u << 1)
#define GK5_S_OLD_TOKEN (1u << 2)
#define GK5_S_UNSEQ_TOKEN (1u << 3)
#define GK5_S_GAP_TOKEN (1u << 4)

#define GK5_CALLING_ERROR(x) ((x)&0xff000000u)
#define GK5_ROUTINE_ERROR(x) ((x)&0x00ff0000u)
#define GK5_SUPPLEMENTARY_INFO(x) ((x)&0x0000ffffu)
#define GK5_ERROR(x) ((x)&0xffff0000u)

#define GK5_QOP_DEFAULT 0u

/* ---- Minor status / error codes ----
 * A gk5 error is a uint32_t: the low 16 bits are one of enum gk5_err; for
 * the enctype errors the high 16 bits carry the enctype number (as int16_t),
 * so that the words name it: gk5_strerror(GK5_ERR_MAKE_ET(code, 23)) reads
 * "rc4-hmac (23) is deliberately unsupported: RFC 8429 ...".  0 is success. */
enum gk5_err {
    GK5_OK = 0,
    /* general */
    GK5_ERR_NOMEM = 1,        /* out of memory */
    GK5_ERR_INVALID_ARGUMENT, /* NULL pointer, bad flag, bad length */
    GK5_ERR_CRYPTO_BACKEND,   /* OpenSSL failed unexpectedly */
    GK5_ERR_BUFFER_TOO_SMALL, /* caller's output buffer too small */
    /* enctypes (high 16 bits = enctype) */
    GK5_ERR_ENCTYPE_UNKNOWN,   /* "unknown enctype N" */
    GK5_ERR_ENCTYPE_REJECTED,  /* rc4, single DES: refused by policy */
    GK5_ERR_ENCTYPE_NOT_BUILT, /* des3 without -Ddes3=true */
    /* crypto */
    GK5_ERR_BAD_KEY_LENGTH,        /* key is not the enctype's key length */
    GK5_ERR_BAD_CIPHERTEXT_LENGTH, /* too short / not a block multiple */
    GK5_ERR_INTEGRITY,             /* MAC/checksum did not verify */
    GK5_ERR_BAD_S2K_PARAMS,        /* string-to-key parameters malformed */
    GK5_ERR_BAD_USAGE,             /* key usage number not acceptable */
    GK5_ERR_BAD_IOV,               /* missing/duplicate/wrong-size IOV buffer */
    /* tokens (GK5_S_DEFECTIVE_TOKEN class) */
    GK5_ERR_TOKEN_TRUNCATED,   /* shorter than its header says */
    GK5_ERR_TOKEN_ID,          /* wrong TOK_ID / not a token of this kind */
    GK5_ERR_TOKEN_FILLER,      /* filler bytes not 0xff */
    GK5_ERR_TOKEN_FLAGS,       /* unknown or inconsistent flags */
    GK5_ERR_TOKEN_DIRECTION,   /* token sent by us (reflected) */
    GK5_ERR_TOKEN_SUBKEY_FLAG, /* AcceptorSubkey flag does not match ctx */
    GK5_ERR_TOKEN_EC,          /* EC inconsistent with the lengths */
    GK5_ERR_TOKEN_HEADER_COPY, /* reserved: a header-copy mismatch is
                                  answered as GK5_ERR_INTEGRITY */
    GK5_ERR_TOKEN_ALG,         /* RFC 1964 SGN_ALG/SEAL_ALG unexpected */
    GK5_ERR_TOKEN_FRAMING,     /* RFC 2743 3.1 framing / mech OID wrong */
    GK5_ERR_TOKEN_TRAILING,    /* bytes after the token */
    /* contexts */
    GK5_ERR_CTX_EXPIRED,       /* past the context's endtime */
    GK5_ERR_CTX_NO_CONTEXT,    /* ctx is NULL */
    GK5_ERR_CTX_SEQ_EXHAUSTED, /* send sequence number space used up */
    GK5_ERR_IMPORT_TRUNCATED,  /* context buffer shorter than its fields */
    GK5_ERR_IMPORT_TOO_LONG,   /* bytes left over after the key */
    GK5_ERR_IMPORT_FLAGS,      /* unknown flag bits */
    GK5_ERR_IMPORT_VERSION,    /* unknown export format/lucid version */
    GK5_ERR_IMPORT_PROTOCOL,   /* lucid protocol/alg values not valid */
    GK5_ERR_IMPORT_KEY_LENGTH, /* key length does not match enctype */
    /* per-message (supplementary statuses, for words) */
    GK5_ERR_SEQ_DUPLICATE,
    GK5_ERR_SEQ_OLD,
    GK5_ERR_SEQ_UNSEQ,
    GK5_ERR_SEQ_GAP,
    GK5_ERR_BAD_QOP,          /* only GK5_QOP_DEFAULT is supported */
    GK5_ERR_CONF_UNAVAILABLE, /* confidentiality not available */
    GK5_ERR_MIT,              /* an MIT krb5 call failed (libgk5_mit) */
    GK5_ERR_EXPORT_IN_USE,    /* MIT's export of a context gk5 has used
                                 (gk5_mech.so) would resend numbers */
    GK5_ERR_IMPORT_DIGEST,    /* gk5_ctx_import: the buffer's digest does
                                 not match (changed or damaged) */
    GK5_ERR_S2K_WEAK,         /* string-to-key iteration count below the
                                 enctype's default (GK5_S2K_ALLOW_WEAK) */
    GK5_ERR__COUNT
};

#define GK5_ERR_CODE(e) ((e)&0xffffu)
#define GK5_ERR_ENCTYPE(e) ((int32_t)(int16_t)((e) >> 16))
#define GK5_ERR_MAKE_ET(code, et)                                              \
    ((uint32_t)(code) | ((uint32_t)(uint16_t)(int16_t)(et) << 16))

/* ---- Buffers and contexts ---- */
typedef struct gk5_ctx gk5_ctx; /* opaque */

typedef struct {
    size_t length;
    void *value;
} gk5_buffer; /* same layout as gss_buffer_desc */

/* IOV buffer types: numerically equal to MIT's GSS_IOV_BUFFER_TYPE_*. */
#define GK5_IOV_BUFFER_TYPE_EMPTY 0u
#define GK5_IOV_BUFFER_TYPE_DATA 1u
#define GK5_IOV_BUFFER_TYPE_HEADER 2u
#define GK5_IOV_BUFFER_TYPE_MECH_PARAMS 3u
#define GK5_IOV_BUFFER_TYPE_TRAILER 7u
#define GK5_IOV_BUFFER_TYPE_PADDING 9u
#define GK5_IOV_BUFFER_TYPE_STREAM 10u
#define GK5_IOV_BUFFER_TYPE_SIGN_ONLY 11u
#define GK5_IOV_BUFFER_TYPE_MIC_TOKEN 12u
#define GK5_IOV_BUFFER_FLAG_MASK 0xffff0000u
#define GK5_IOV_BUFFER_FLAG_ALLOCATE 0x00010000u
#define GK5_IOV_BUFFER_FLAG_ALLOCATED 0x00020000u
#define GK5_IOV_BUFFER_TYPE(t) ((t) & ~GK5_IOV_BUFFER_FLAG_MASK)

typedef struct {
    uint32_t type;
    gk5_buffer buffer;
} gk5_iov_buffer; /* same layout as gss_iov_buffer_desc */

/* Context flags (gk5_ctx_info.flags, gk5_ctx_set_flags).  REPLAY and
 * SEQUENCE have the values of GSS_C_REPLAY_FLAG / GSS_C_SEQUENCE_FLAG. */
#define GK5_CTX_REPLAY 0x04u   /* report DUPLICATE (and OLD) tokens */
#define GK5_CTX_SEQUENCE 0x08u /* report UNSEQ and GAP tokens */

/* Flags of the rpc.gssd / gssproxy buffer for the kernel. */
#define GK5_GSSD_FLAG_INITIATOR 0x1u
#define GK5_GSSD_FLAG_CFX 0x2u
#define GK5_GSSD_FLAG_ACCEPTOR_SUBKEY 0x4u

/* The fields of MIT's gss_krb5_lucid_context_v1_t (field for field). */
typedef struct {
    uint32_t type;   /* enctype */
    uint32_t length; /* key length in bytes */
    const void *data;
} gk5_lucid_key;

typedef struct {
    uint32_t version;  /* must be 1 */
    uint32_t initiate; /* nonzero: we are the initiator */
    uint32_t endtime;  /* seconds since the epoch; 0 = no expiry */
    uint64_t send_seq; /* our next sequence number */
    uint64_t recv_seq; /* the peer's initial sequence number */
    uint32_t protocol; /* 0: RFC 1964 (DES3), 1: RFC 4121 (CFX) */
    struct {
        uint32_t sign_alg; /* must be 4 (HMAC SHA1 DES3-KD) */
        uint32_t seal_alg; /* must be 2 (DES3) */
        gk5_lucid_key ctx_key;
    } rfc1964_kd;
    struct {
        uint32_t have_acceptor_subkey;
        gk5_lucid_key ctx_key;
        gk5_lucid_key acceptor_subkey;
    } cfx_kd;
} gk5_lucid_ctx;

typedef struct {
    int32_t enctype;
    const char *enctype_name;
    int initiator;       /* 1 if we initiated the context */
    int cfx;             /* 1: RFC 4121 tokens; 0: RFC 1964 (DES3) */
    int acceptor_subkey; /* 1 if keyed with the acceptor's subkey */
    uint32_t endtime;    /* 0 = no expiry */
    uint32_t flags;      /* GK5_CTX_REPLAY | GK5_CTX_SEQUENCE */
    uint64_t send_seq;   /* next sequence number we will send */
} gk5_ctx_info;

/* ---- Contexts ----
 * All imports: GK5_S_COMPLETE; GK5_S_DEFECTIVE_TOKEN for a malformed buffer
 * (minor GK5_ERR_IMPORT_*); GK5_S_UNAVAILABLE with minor
 * GK5_ERR_ENCTYPE_{REJECTED,NOT_BUILT,UNKNOWN} (enctype in the minor) for an
 * enctype gk5 will not use; GK5_S_FAILURE for anything else.  The new
 * context has replay and sequence detection on, and has derived every
 * subkey and wiped the session key. */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import_gssd(uint32_t *minor,
                                                const void *buf, size_t len,
                                                gk5_ctx **ctx);
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import_lucid(uint32_t *minor,
                                                 const gk5_lucid_ctx *lucid,
                                                 gk5_ctx **ctx);
/* gk5's own versioned format: everything, including the receive window,
 * closed by a SHA-256 of the rest.  The buffer holds the context's keys:
 * store it as one stores a keytab (readable by its owner only).  Import
 * refuses a buffer whose digest does not match (GK5_S_DEFECTIVE_TOKEN,
 * minor GK5_ERR_IMPORT_DIGEST): one changed or damaged at rest, such as a
 * rewound send counter that would send sequence numbers twice.  The digest
 * is not a seal: whoever can write the buffer can recompute it.  Export
 * while no other thread uses the context. */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_export(uint32_t *minor, const gk5_ctx *ctx,
                                           gk5_buffer *out);
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_import(uint32_t *minor, const void *buf,
                                           size_t len, gk5_ctx **ctx);
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_inquire(uint32_t *minor, const gk5_ctx *ctx,
                                            gk5_ctx_info *info);
/* flags: GK5_CTX_REPLAY | GK5_CTX_SEQUENCE (others: GK5_ERR_INVALID_ARGUMENT)
 */
GK5_EXPORT GK5_WUR uint32_t gk5_ctx_set_flags(uint32_t *minor, gk5_ctx *ctx,
                                              uint32_t flags);
GK5_EXPORT void gk5_ctx_free(gk5_ctx *ctx);

/* ---- Per-message operations (RFC 2743 2.3) ----
 * Returns: GK5_S_COMPLETE, possibly with supplementary bits on unwrap and
 * verify_mic; GK5_S_BAD_SIG when the integrity check fails (never says
 * which); GK5_S_DEFECTIVE_TOKEN for a malformed token; GK5_S_CONTEXT_EXPIRED;
 * GK5_S_BAD_QOP; GK5_S_NO_CONTEXT; GK5_S_FAILURE otherwise.  A token that
 * fails changes no state.  Output buffers are allocated with malloc and
 * freed with gk5_buffer_release(). */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap(uint32_t *minor, gk5_ctx *ctx,
                                     int conf_req, uint32_t qop,
                                     const gk5_buffer *in, int *conf_state,
                                     gk5_buffer *out);
GK5_EXPORT GK5_WUR uint32_t gk5_unwrap(uint32_t *minor, gk5_ctx *ctx,
                                       const gk5_buffer *in, gk5_buffer *out,
                                       int *conf_state, uint32_t *qop);
GK5_EXPORT GK5_WUR uint32_t gk5_get_mic(uint32_t *minor, gk5_ctx *ctx,
                                        uint32_t qop, const gk5_buffer *msg,
                                        gk5_buffer *token);
GK5_EXPORT GK5_WUR uint32_t gk5_verify_mic(uint32_t *minor, gk5_ctx *ctx,
                                           const gk5_buffer *msg,
                                           const gk5_buffer *token,
                                           uint32_t *qop);
/* Largest input whose wrap token fits in out_max bytes. */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_size_limit(uint32_t *minor,
                                                const gk5_ctx *ctx,
                                                int conf_req, uint32_t qop,
                                                size_t out_max, size_t *in_max);

/* ---- IOV family (RFC 4121 4.2.4 layout; MIT's gss_*_iov semantics) ---- */
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                         int conf_req, uint32_t qop,
                                         int *conf_state, gk5_iov_buffer *iov,
                                         int iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_unwrap_iov(uint32_t *minor, gk5_ctx *ctx,
                                           int *conf_state, uint32_t *qop,
                                           gk5_iov_buffer *iov, int iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_wrap_iov_length(
    uint32_t *minor, const gk5_ctx *ctx, int conf_req, uint32_t qop,
    int *conf_state, gk5_iov_buffer *iov, int iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_get_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                            uint32_t qop, gk5_iov_buffer *iov,
                                            int iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_verify_mic_iov(uint32_t *minor, gk5_ctx *ctx,
                                               uint32_t *qop,
                                               gk5_iov_buffer *iov,
                                               int iov_count);
/* Frees buffers gk5 allocated (ALLOCATED flag), clears the flag. */
GK5_EXPORT void gk5_release_iov(gk5_iov_buffer *iov, int iov_count);

/* ---- Buffers and status ---- */
GK5_EXPORT void gk5_buffer_release(gk5_buffer *buf);
/* Words for a major status, a minor code, or both (major words, ": ", minor
 * words).  Never NULL.  May use a thread-local buffer: copy it before the
 * next call on the same thread. */
GK5_EXPORT const char *gk5_display_status(uint32_t major, uint32_t minor);
/* "GSS_S_BAD_SIG" etc. for the routine error (or "GSS_S_COMPLETE"). */
GK5_EXPORT const char *gk5_major_name(uint32_t major);
/* Words for a gk5 error code (minor status / crypto return value). */
GK5_EXPORT const char *gk5_strerror(uint32_t err);
GK5_EXPORT const char *gk5_version(void);

#ifdef __cplusplus
}
#endif
#endif /* GK5_GK5_H */
