/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Contexts established by someone else: the buffer rpc.gssd and gssproxy
 * write for the Linux kernel, and MIT's lucid v1 context.
 *
 * The rpc.gssd buffer (docs/design.md, "The rpc.gssd context buffer"),
 * host byte order, no padding:
 *
 *   offset  size  field
 *        0     4  flags: 0x1 initiator, 0x2 CFX (RFC 4121), 0x4 acceptor
 *                 subkey (the key and enctype are then the subkey's)
 *        4     4  endtime (seconds since the epoch; 0 = none)
 *        8     8  send_seq (our next sequence number)
 *       16     4  enctype (DES3 arrives as 16 or 6)
 *       20     n  the raw key, n = the enctype's key length, ending the
 *                 buffer: 36 bytes in all for 128-bit keys, 52 for 256-bit,
 *                 44 for DES3
 *
 * No receive sequence number is carried: the receive window starts at the
 * first authenticated token.  The key is read where it lies; gk5 makes no
 * copy of it.
 */
#include "../common/bytes.h"
#include "mech_int.h"

#define GSSD_KNOWN_FLAGS                                                       \
    (GK5_GSSD_FLAG_INITIATOR | GK5_GSSD_FLAG_CFX |                             \
     GK5_GSSD_FLAG_ACCEPTOR_SUBKEY)

/* RFC 1964 1.2.1 / MIT: the algorithms of a DES3 lucid context. */
#define LUCID_SGN_ALG_HMAC_SHA1_DES3_KD 4
#define LUCID_SEAL_ALG_DES3 2
#define LUCID_PROTOCOL_RFC1964 0
#define LUCID_PROTOCOL_CFX 1

/* RFC 1964 numbers are 32 bits. */
#define SEQ32_LIMIT ((uint64_t)1 << 32)

/* RFC 1964 contexts have neither CFX nor an acceptor subkey and 32-bit
 * send numbers; every other enctype speaks RFC 4121. */
static GK5_WUR uint32_t check_protocol(const struct gk5_enctype *et,
                                       uint32_t ctxflags, uint64_t send_seq)
{
    if (et->rfc1964) {
        if ((ctxflags & (GK5_CTXF_CFX | GK5_CTXF_ACCEPTOR_SUBKEY)) != 0 ||
            send_seq >= SEQ32_LIMIT) {
            return GK5_ERR_IMPORT_PROTOCOL;
        }
    } else if ((ctxflags & GK5_CTXF_CFX) == 0) {
        return GK5_ERR_IMPORT_PROTOCOL;
    }
    return GK5_OK;
}

/* The checks go in a fixed order, each with its own minor code: truncated
 * before the enctype, unknown flags, the enctype (the table's refusal), a
 * key too short, bytes after the key, CFX inconsistent with the enctype. */
GK5_EXPORT uint32_t gk5_ctx_import_gssd(uint32_t *minor, const void *buf,
                                        size_t len, gk5_ctx **ctx)
{
    const struct gk5_enctype *et = NULL;
    const uint8_t *key;
    struct gk5i_rd r;
    uint32_t flags, endtime, enctype;
    uint32_t ctxflags = 0;
    uint64_t send_seq;
    uint32_t err;

    if (ctx != NULL) {
        *ctx = NULL;
    }
    /* Nothing is made when the status cannot be reported (minor NULL). */
    if (minor == NULL || ctx == NULL || (buf == NULL && len != 0)) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    /* Host byte order, as rpc.gssd writes them. */
    gk5i_rd_init(&r, buf, len);
    flags = gk5i_get_u32host(&r);
    endtime = gk5i_get_u32host(&r);
    send_seq = gk5i_get_u64host(&r);
    enctype = gk5i_get_u32host(&r);
    if (r.bad) {
        err = GK5_ERR_IMPORT_TRUNCATED;
        goto cleanup;
    }
    if ((flags & ~GSSD_KNOWN_FLAGS) != 0) {
        err = GK5_ERR_IMPORT_FLAGS;
        goto cleanup;
    }
    err = gk5i_enctype_usable((int32_t)enctype, &et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    key = gk5i_get_bytes(&r, et->key_bytes);
    if (r.bad) {
        err = GK5_ERR_IMPORT_TRUNCATED;
        goto cleanup;
    }
    if (gk5i_rd_left(&r) != 0) {
        err = GK5_ERR_IMPORT_TOO_LONG;
        goto cleanup;
    }
    if (flags & GK5_GSSD_FLAG_INITIATOR) {
        ctxflags |= GK5_CTXF_INITIATOR;
    }
    if (flags & GK5_GSSD_FLAG_CFX) {
        ctxflags |= GK5_CTXF_CFX;
    }
    if (flags & GK5_GSSD_FLAG_ACCEPTOR_SUBKEY) {
        ctxflags |= GK5_CTXF_ACCEPTOR_SUBKEY;
    }
    err = check_protocol(et, ctxflags, send_seq);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_ctx_new(et->num, ctxflags, endtime, send_seq, key, et->key_bytes,
                       ctx);

cleanup:
    if (GK5_TRACE_ON()) {
        gk5i_trace_import("import_gssd", err == GK5_OK ? *ctx : NULL, err, len);
    }
    return gk5i_status(minor, err);
}

/* The lucid key's enctype, then its length. */
static GK5_WUR uint32_t lucid_key(const gk5_lucid_key *key,
                                  const struct gk5_enctype **et)
{
    uint32_t err = gk5i_enctype_usable((int32_t)key->type, et);

    if (err != GK5_OK) {
        return err;
    }
    if (key->data == NULL || key->length != (*et)->key_bytes) {
        *et = NULL;
        return GK5_ERR_IMPORT_KEY_LENGTH;
    }
    return GK5_OK;
}

/* MIT's gss_krb5_lucid_context_v1_t, field for field.  recv_seq is the
 * peer's initial sequence number (MIT never advances it), so the receive
 * window starts out expecting exactly that number. */
GK5_EXPORT uint32_t gk5_ctx_import_lucid(uint32_t *minor,
                                         const gk5_lucid_ctx *lucid,
                                         gk5_ctx **ctx)
{
    const struct gk5_enctype *et = NULL;
    const gk5_lucid_key *key = NULL;
    gk5_ctx *made = NULL;
    uint32_t ctxflags = 0;
    uint32_t err;

    if (ctx != NULL) {
        *ctx = NULL;
    }
    if (minor == NULL || ctx == NULL || lucid == NULL) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    if (lucid->version != 1) {
        err = GK5_ERR_IMPORT_VERSION;
        goto cleanup;
    }
    if (lucid->initiate) {
        ctxflags |= GK5_CTXF_INITIATOR;
    }
    switch (lucid->protocol) {
    case LUCID_PROTOCOL_RFC1964:
        key = &lucid->rfc1964_kd.ctx_key;
        /* The enctype first, so that an RC4 context (protocol 0 too) is
         * refused with the table's reason rather than "bad algorithm". */
        err = gk5i_enctype_usable((int32_t)key->type, &et);
        if (err != GK5_OK) {
            goto cleanup;
        }
        if (!et->rfc1964 ||
            lucid->rfc1964_kd.sign_alg != LUCID_SGN_ALG_HMAC_SHA1_DES3_KD ||
            lucid->rfc1964_kd.seal_alg != LUCID_SEAL_ALG_DES3) {
            err = GK5_ERR_IMPORT_PROTOCOL;
            goto cleanup;
        }
        break;
    case LUCID_PROTOCOL_CFX:
        ctxflags |= GK5_CTXF_CFX;
        if (lucid->cfx_kd.have_acceptor_subkey) {
            ctxflags |= GK5_CTXF_ACCEPTOR_SUBKEY;
            key = &lucid->cfx_kd.acceptor_subkey;
        } else {
            key = &lucid->cfx_kd.ctx_key;
        }
        break;
    default:
        err = GK5_ERR_IMPORT_PROTOCOL;
        goto cleanup;
    }
    err = lucid_key(key, &et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = check_protocol(et, ctxflags, lucid->send_seq);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_ctx_new(et->num, ctxflags, lucid->endtime, lucid->send_seq,
                       key->data, key->length, &made);
    if (err != GK5_OK) {
        goto cleanup;
    }
    /* Expecting recv_seq, nothing received yet (empty bitmap). */
    gk5i_seq_set(&made->recv, true, lucid->recv_seq, 0);
    *ctx = made;
    made = NULL;

cleanup:
    gk5_ctx_free(made);
    if (GK5_TRACE_ON()) {
        gk5i_trace_import("import_lucid", err == GK5_OK ? *ctx : NULL, err, 0);
    }
    return gk5i_status(minor, err);
}
