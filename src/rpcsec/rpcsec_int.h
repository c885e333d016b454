/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Inside libgk5_rpc: the RFC 2203 wire pieces the client and the server
 * share.  Every function that can fail returns 0 or -1 and fills err
 * (which may be NULL).
 */
#ifndef GK5_RPCSEC_INT_H
#define GK5_RPCSEC_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"

#define GK5I_RPC_WUR __attribute__((warn_unused_result))

/* RFC 2203 5: rpc_gss_proc_t and the version. */
#define GK5I_RPCSEC_GSS_VERS_1 1u
#define GK5I_RPCSEC_GSS_DATA 0u
#define GK5I_RPCSEC_GSS_INIT 1u
#define GK5I_RPCSEC_GSS_CONTINUE_INIT 2u
#define GK5I_RPCSEC_GSS_DESTROY 3u

/* RFC 2203 5.3.3.3 / RFC 5531 auth_stat values for RPCSEC_GSS. */
#define GK5I_AUTH_BADCRED 1u
#define GK5I_AUTH_REJECTEDCRED 2u
#define GK5I_AUTH_BADVERF 3u
#define GK5I_AUTH_REJECTEDVERF 4u
#define GK5I_AUTH_TOOWEAK 5u
#define GK5I_RPCSEC_GSS_CREDPROBLEM 13u
#define GK5I_RPCSEC_GSS_CTXPROBLEM 14u

/* What gk5_rpc_auth_create() and gk5_rpc_server_create() say to
 * GK5_RPC_ESTABLISH_MIT in a library built without MIT krb5. */
#define GK5I_RPC_NO_MIT_WORDS                                                  \
    "this libgk5_rpc was built without MIT krb5 (meson -Dmit=disabled): "      \
    "only native establishment (GK5_RPC_ESTABLISH_NATIVE, gk5's own "          \
    "initiator and acceptor) is available"

/* RFC 5531: the credential and verifier bodies are opaque<400>. */
#define GK5I_RPC_MAX_AUTH_BYTES 400u
/* gk5's server handles; clients accept any length that fits the
 * credential. */
#define GK5I_RPC_HANDLE_LEN 16u

/* rpc_gss_cred_vers_1_t (RFC 2203 5).  handle points into the decoded
 * bytes (or the caller's memory when encoding). */
typedef struct {
    uint32_t version;
    uint32_t proc;
    uint32_t seq;
    uint32_t service;
    const uint8_t *handle;
    size_t handle_len;
} gk5i_rpc_cred;

/* Encode into out (cap bytes; GK5I_RPC_MAX_AUTH_BYTES is always enough):
 * the credential *body*, i.e. what goes inside opaque_auth.body.  Returns
 * its length, or 0 if it does not fit. */
size_t gk5i_rpc_cred_encode(const gk5i_rpc_cred *cred, uint8_t *out,
                            size_t cap);
/* Decode a credential body; the whole of body must be used.  0 or -1
 * (GK5_RPC_E_MALFORMED: bad length, version other than 1). */
GK5I_RPC_WUR int gk5i_rpc_cred_decode(const uint8_t *body, size_t len,
                                      gk5i_rpc_cred *cred, gk5_rpc_error *err);

/* Big-endian words and XDR padding, as the one reader and writer have
 * them (common/util.h, common/xdr.h), for code that fills or reads a
 * message at known offsets. */
static inline void gk5i_put32(uint8_t *p, uint32_t v)
{
    store_be32(p, v);
}
static inline uint32_t gk5i_get32(const uint8_t *p)
{
    return load_be32(p);
}
static inline size_t gk5i_xdr_pad(size_t n)
{
    return gk5i_xdr_padding(n);
}

/* ---- Verifiers: a MIC token over bytes (RFC 2203 5.3.1, 5.3.3.2) ---- */

/* Room for any MIC token gk5 makes (RFC 4121: 16 + a checksum of at most
 * 24 bytes; RFC 1964 DES3: 57). */
#define GK5I_RPC_MIC_MAX 64u
/* Room for this context's MIC tokens (GK5I_RPC_MIC_MAX). */
size_t gk5i_rpc_mic_len(const gk5_ctx *ctx);
/* MIC of msg into out (cap >= gk5i_rpc_mic_len).  *out_len set. */
GK5I_RPC_WUR int gk5i_rpc_mic(gk5_ctx *ctx, const void *msg, size_t len,
                              uint8_t *out, size_t cap, size_t *out_len,
                              gk5_rpc_error *err);
/* Verify mic over msg: 0, or -1 with GK5_RPC_E_BAD_VERIFIER. */
GK5I_RPC_WUR int gk5i_rpc_verify(gk5_ctx *ctx, const void *msg, size_t len,
                                 const void *mic, size_t mic_len,
                                 gk5_rpc_error *err);
/* MIC over the 4-byte big-endian encoding of seq (reply verifiers, and
 * the INIT reply's seq_window). */
GK5I_RPC_WUR int gk5i_rpc_mic_u32(gk5_ctx *ctx, uint32_t value, uint8_t *out,
                                  size_t cap, size_t *out_len,
                                  gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_rpc_verify_u32(gk5_ctx *ctx, uint32_t value,
                                     const void *mic, size_t mic_len,
                                     gk5_rpc_error *err);

/* ---- Integrity and privacy bodies (RFC 2203 5.3.2.2, 5.3.2.3) ----
 *
 * Sealing works in place on one buffer laid out as
 *     base[0 .. head)              room that body_room asked for
 *     base[head .. head + len)     seq_num (4 bytes, big-endian) + the XDR
 *                                  encoded procedure arguments/results
 *     base[head + len .. cap)      room for the tail
 * and leaves the rpc_gss_integ_data / rpc_gss_priv_data encoding at
 * base + *off, *out_len bytes (a multiple of 4).  For GK5_RPC_SVC_NONE
 * the data is left as it is, minus nothing: *off = head + 4 (the seq is
 * not sent) and *out_len = len - 4. */

/* Room needed before and after len bytes of data for svc. */
GK5I_RPC_WUR int gk5i_rpc_body_room(gk5_ctx *ctx, gk5_rpc_service svc,
                                    size_t len, size_t *head, size_t *tail,
                                    gk5_rpc_error *err);
GK5I_RPC_WUR int gk5i_rpc_body_seal(gk5_ctx *ctx, gk5_rpc_service svc,
                                    uint8_t *base, size_t head, size_t len,
                                    size_t cap, size_t *off, size_t *out_len,
                                    gk5_rpc_error *err);
/* rpc_gss_integ_data (RFC 2203 5.3.2.2) around len bytes of data that
 * stay where they are, for a writev of head, data, tail: head gets
 * databody_integ's length and seq (GK5I_RPC_INTEG_HEAD bytes), tail the
 * data's padding and the checksum opaque (*tail_len bytes, at most
 * GK5I_RPC_INTEG_TAIL).  The checksum is a MIC over seq and data. */
#define GK5I_RPC_INTEG_HEAD 8u
#define GK5I_RPC_INTEG_TAIL (3u + 4u + GK5I_RPC_MIC_MAX + 3u)
GK5I_RPC_WUR int gk5i_rpc_integ_pieces(gk5_ctx *ctx, uint32_t seq,
                                       const uint8_t *data, size_t len,
                                       uint8_t head[GK5I_RPC_INTEG_HEAD],
                                       uint8_t tail[GK5I_RPC_INTEG_TAIL],
                                       size_t *tail_len, gk5_rpc_error *err);
/* Open an encoding in place: body holds at least the encoding (avail
 * bytes).  Checks integrity (or decrypts and checks) and that the embedded
 * seq_num equals want_seq.  On success *data / *data_len is the XDR after
 * the seq_num (inside body) and *used the encoding's length.  Errors:
 * GK5_RPC_E_MALFORMED (lengths), GK5_RPC_E_BAD_BODY (integrity, with the
 * GSS status), GK5_RPC_E_SEQ_MISMATCH, GK5_RPC_E_TOO_BIG (beyond max).
 * Nothing is released to the caller on failure; a privacy body that fails
 * is wiped. */
GK5I_RPC_WUR int gk5i_rpc_body_open(gk5_ctx *ctx, gk5_rpc_service svc,
                                    uint32_t want_seq, uint8_t *body,
                                    size_t avail, size_t max, uint8_t **data,
                                    size_t *data_len, size_t *used,
                                    gk5_rpc_error *err);

/* ---- Errors ---- */

/* Set err (if not NULL): code, and words from fmt. */
void gk5i_rpc_err(gk5_rpc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Set err for a GSS failure: code, major, minor, words "what: <gk5 or MIT
 * words>" (gk5_mit_display_status; gk5_display_status in a library built
 * without MIT). */
void gk5i_rpc_err_gss(gk5_rpc_error *err, int code, uint32_t major,
                      uint32_t minor, const char *what);
void gk5i_rpc_err_clear(gk5_rpc_error *err);

/* ---- Server internals shared with tcp_server.c ---- */

/* The largest record a connection may carry for srv (max_body plus room
 * for the call header, credential and verifier) and srv's idle timeout. */
void gk5i_rpc_server_limits(const gk5_rpc_server *srv, size_t *max_record,
                            uint32_t *idle_timeout);

/* A record's first bytes that the TCP server reads and checks before it
 * takes the body: the call header (xid .. proc, 24 bytes), the credential
 * and the verifier (opaque_auth, at most 8 + 400 bytes each) fit with
 * room to spare. */
#define GK5I_RPC_HEADER_MAX 4096u
/* The largest RPCSEC_GSS_INIT / CONTINUE_INIT argument the TCP server
 * takes: an AP-REQ is at most GK5I_KRB_MAX_MESSAGE (256 KiB, large PACs
 * included; src/der/rfc4120.h), plus its GSS framing and the opaque<>
 * length. */
#define GK5I_RPC_INIT_MAX ((size_t)256 * 1024 + 64)

/* What a record's first bytes earn (gk5i_rpc_server_precheck). */
enum gk5i_rpc_pre {
    /* RPCSEC_GSS DATA or DESTROY: known handle, established context,
     * service granted, header MIC valid, sequence number inside the window
     * and not seen: the body may be read (up to *limit bytes in all). */
    GK5I_RPC_PRE_AUTH,
    /* RPCSEC_GSS INIT or CONTINUE_INIT: a small body (*limit). */
    GK5I_RPC_PRE_INIT,
    /* AUTH_NONE or AUTH_SYS, allowed: up to *limit, unauthenticated. */
    GK5I_RPC_PRE_UNAUTH,
    /* Refused: send *reply (AUTH_ERROR, RPC_MISMATCH...), read no more of
     * the record; err says why. */
    GK5I_RPC_PRE_REPLY,
    /* Refused without a reply (not a call, a replayed or below-window
     * sequence number...): read no more of the record; err says why. */
    GK5I_RPC_PRE_DROP
};

/* Check a call's first len bytes (the whole header through the verifier,
 * e.g. GK5I_RPC_HEADER_MAX bytes of a longer record) as
 * gk5_rpc_server_process() would, without moving any sequence window:
 * process() checks the whole call again.  *reply (malloc'd, for
 * gk5_buffer_release) is set for GK5I_RPC_PRE_REPLY only; *limit, for
 * the others that go on, is the most bytes the whole record may have.
 * Thread-safe, like gk5_rpc_server_process(). */
GK5I_RPC_WUR enum gk5i_rpc_pre
gk5i_rpc_server_precheck(gk5_rpc_server *srv, const uint8_t *msg, size_t len,
                         size_t *limit, gk5_buffer *reply, gk5_rpc_error *err);

/* ---- Test seams (tests/fuzz/fuzz_rpc_call.c; not exported) ---- */

/* gk5_rpc_server_create without an acceptor credential, whatever
 * opts->flavors allows (0: every flavour): RPCSEC_GSS_INIT and
 * CONTINUE_INIT are then refused (AUTH_TOOWEAK), and contexts come only
 * from gk5i_rpc_server_add_context.  0, or -1 with err. */
GK5I_RPC_WUR int
gk5i_rpc_server_create_nocred(const gk5_rpc_server_options *opts,
                              gk5_rpc_server **out, gk5_rpc_error *err);
/* Puts ctx (which the server owns from here on, also on failure) in the
 * table as an established context of principal, as a completed
 * RPCSEC_GSS_INIT would (gk5's replay detection off, the endtime from
 * gk5_ctx_inquire, integrity and confidentiality granted), and returns its
 * handle.  0, or -1 with err (table full of busy contexts). */
GK5I_RPC_WUR int gk5i_rpc_server_add_context(
    gk5_rpc_server *srv, gk5_ctx *ctx, const char *principal,
    uint8_t handle[GK5I_RPC_HANDLE_LEN], gk5_rpc_error *err);

/* ---- Test seams of the client (tests/fuzz/fuzz_rpc_reply.c; not
 * exported) ---- */

/* An AUTH (gk5_auth_ops, as gk5_rpc_auth_create returns it) whose first
 * context is ctx (owned from here on, also on failure), established as
 * RPCSEC_GSS_INIT would have left it: the server's handle (1 to 380
 * bytes) and seq_window, gk5's replay detection off, data calls from
 * sequence number 1; svc for the calls and max_body (0: the default) as in
 * gk5_rpc_auth_options.  No CLIENT and no server behind it: a
 * re-establishment fails with words (no target), and auth_destroy sends
 * no DESTROY (no peer address).  NULL on failure, with err. */
#ifndef GK5_RPC_NO_TIRPC
GK5I_RPC_WUR AUTH *gk5i_rpc_auth_from_ctx(gk5_ctx *ctx, const uint8_t *handle,
                                          size_t handle_len, uint32_t window,
                                          gk5_rpc_service svc, size_t max_body,
                                          gk5_rpc_error *err);
#endif

/* ---- Record marking (RFC 5531 11) over a stream socket ---- */

/* Write one record made of iov[0..n) (as one or more fragments).  Handles
 * EINTR and partial writes.  0, or -1 (GK5_RPC_E_TRANSPORT). */
GK5I_RPC_WUR int gk5i_rpc_write_record(int fd, const struct iovec *iov, int n,
                                       gk5_rpc_error *err);
/* Read one whole record (all fragments) of at most max bytes into a
 * malloc'd buffer (*buf, *len; free()).  timeout_ms < 0: wait forever.
 * 0; 1 on a clean end of stream before any byte; -1 on error
 * (GK5_RPC_E_TRANSPORT, GK5_RPC_E_TOO_BIG). */
GK5I_RPC_WUR int gk5i_rpc_read_record(int fd, size_t max, int timeout_ms,
                                      uint8_t **buf, size_t *len,
                                      gk5_rpc_error *err);

#endif /* GK5_RPCSEC_INT_H */
