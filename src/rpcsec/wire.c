/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2203 pieces shared by gk5's RPCSEC_GSS client and server: the
 * credential, the verifiers (MIC tokens over bytes or a sequence number),
 * and the integrity and privacy bodies, sealed and opened in place with
 * gk5's IOV calls so that a body is never copied to be wrapped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifdef GK5_RPC_WITH_MIT
#include <gk5/mit.h>
#endif

#include "common/util.h"
#include "rpcsec/rpcsec_int.h"

/* ---- Services and flavours (RFC 2203 5; RFC 2623 2.1) ---- */

static const struct {
    gk5_rpc_service svc;
    const char *name;  /* RFC 2623 2.1 pseudoflavour name */
    const char *alias; /* RFC 2203 rpc_gss_service_t, in words */
    uint32_t pseudo;
} services[] = {
    {GK5_RPC_SVC_NONE, "krb5", "none", GK5_RPC_PSEUDO_KRB5},
    {GK5_RPC_SVC_INTEGRITY, "krb5i", "integrity", GK5_RPC_PSEUDO_KRB5I},
    {GK5_RPC_SVC_PRIVACY, "krb5p", "privacy", GK5_RPC_PSEUDO_KRB5P},
};

const char *gk5_rpc_service_name(gk5_rpc_service svc)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        if (services[i].svc == svc) {
            return services[i].name;
        }
    }
    return "?";
}

int gk5_rpc_service_parse(const char *name, gk5_rpc_service *svc)
{
    if (svc == NULL) {
        return -1;
    }
    *svc = (gk5_rpc_service)0;
    if (name == NULL) {
        return -1;
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        if (strcasecmp(name, services[i].name) == 0 ||
            strcasecmp(name, services[i].alias) == 0) {
            *svc = services[i].svc;
            return 0;
        }
    }
    return -1;
}

uint32_t gk5_rpc_pseudoflavor(gk5_rpc_service svc)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        if (services[i].svc == svc) {
            return services[i].pseudo;
        }
    }
    return 0;
}

int gk5_rpc_service_from_pseudoflavor(uint32_t flavor, gk5_rpc_service *svc)
{
    if (svc == NULL) {
        return -1;
    }
    *svc = (gk5_rpc_service)0;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(services); i++) {
        if (services[i].pseudo == flavor) {
            *svc = services[i].svc;
            return 0;
        }
    }
    return -1;
}

/* ---- Words ---- */

/* Indexed by code: data, alike row for row. */
static const char *const rpc_err_words[GK5_RPC_E__COUNT] = {
    [GK5_RPC_OK] = "success",
    [GK5_RPC_E_NOMEM] = "out of memory",
    [GK5_RPC_E_INVALID] = "invalid argument or option",
    [GK5_RPC_E_TRANSPORT] = "connecting, sending or receiving failed",
    [GK5_RPC_E_UNSUPPORTED] = "not supported",
    [GK5_RPC_E_GSS] = "a GSS-API call failed on this side",
    [GK5_RPC_E_SERVER_GSS] = "the server's GSS-API failed to accept the "
                             "context",
    [GK5_RPC_E_REJECTED] = "the server rejected the call",
    [GK5_RPC_E_ACCEPT_STAT] = "the server accepted the call but did not run "
                              "it",
    [GK5_RPC_E_BAD_VERIFIER] = "a verifier's checksum did not verify",
    [GK5_RPC_E_BAD_BODY] = "an integrity or privacy body failed its check",
    [GK5_RPC_E_SEQ_MISMATCH] = "a sequence number is not the call's",
    [GK5_RPC_E_MALFORMED] = "malformed message, credential or body",
    [GK5_RPC_E_TOO_BIG] = "larger than allowed",
    [GK5_RPC_E_CONTEXT] = "no such context, or a problem with it",
    [GK5_RPC_E_EXPIRED] = "the context or credential has expired",
    [GK5_RPC_E_SERVICE] = "service not allowed, or not the context's",
};

const char *gk5_rpc_strerror(int code)
{
    if (code < 0 || code >= GK5_RPC_E__COUNT || rpc_err_words[code] == NULL) {
        return "unknown gk5 RPC error";
    }
    return rpc_err_words[code];
}

int gk5_rpc_establish_available(gk5_rpc_establish how)
{
    switch (how) {
    case GK5_RPC_ESTABLISH_NATIVE:
        return 1;
    case GK5_RPC_ESTABLISH_MIT:
#ifdef GK5_RPC_WITH_MIT
        return 1;
#else
        return 0;
#endif
    }
    return 0;
}

/* ---- errors ---- */

void gk5i_rpc_err_clear(gk5_rpc_error *err)
{
    if (err == NULL) {
        return;
    }
    memset(err, 0, sizeof(*err)); /* not a wipe: the caller reads it */
}

void gk5i_rpc_err(gk5_rpc_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL) {
        return;
    }
    err->code = code;
    va_start(ap, fmt);
    (void)vsnprintf(err->text, sizeof(err->text), fmt, ap);
    va_end(ap);
}

void gk5i_rpc_err_gss(gk5_rpc_error *err, int code, uint32_t major,
                      uint32_t minor, const char *what)
{
    if (err == NULL) {
        return;
    }
    err->code = code;
    err->major = major;
    err->minor = minor;
#ifdef GK5_RPC_WITH_MIT
    (void)snprintf(err->text, sizeof(err->text), "%s: %s", what,
                   gk5_mit_display_status(major, minor));
#else
    /* Built without MIT: every failure is gk5's. */
    (void)snprintf(err->text, sizeof(err->text), "%s: %s", what,
                   gk5_display_status(major, minor));
#endif
}

/* ---- the credential (RFC 2203 5) ---- */

size_t gk5i_rpc_cred_encode(const gk5i_rpc_cred *cred, uint8_t *out, size_t cap)
{
    size_t len = 4 * 4 + gk5i_xdr_opaque_size(cred->handle_len);
    struct gk5i_wr w;

    if (len > cap || len > GK5I_RPC_MAX_AUTH_BYTES) {
        return 0;
    }
    gk5i_wr_init(&w, out, len);
    gk5i_xdr_put_u32(&w, cred->version);
    gk5i_xdr_put_u32(&w, cred->proc);
    gk5i_xdr_put_u32(&w, cred->seq);
    gk5i_xdr_put_u32(&w, cred->service);
    gk5i_xdr_put_opaque(&w, cred->handle, cred->handle_len);
    return w.bad ? 0 : len;
}

int gk5i_rpc_cred_decode(const uint8_t *body, size_t len, gk5i_rpc_cred *cred,
                         gk5_rpc_error *err)
{
    struct gk5i_rd r;
    uint32_t version;
    uint32_t handle_len;
    const uint8_t *handle;

    memset(cred, 0, sizeof(*cred));
    if (len < 20) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "RPCSEC_GSS credential of %zu bytes is too short (at "
                     "least 20)",
                     len);
        return -1;
    }
    gk5i_rd_init(&r, body, len);
    version = gk5i_xdr_get_u32(&r);
    if (version != GK5I_RPCSEC_GSS_VERS_1) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "RPCSEC_GSS credential version %u (only version 1 "
                     "exists, RFC 2203 5)",
                     version);
        return -1;
    }
    cred->proc = gk5i_xdr_get_u32(&r);
    cred->seq = gk5i_xdr_get_u32(&r);
    cred->service = gk5i_xdr_get_u32(&r);
    /* opaque handle<>, read in two steps so that a refusal can name the
     * length it was given; it must end the credential. */
    handle_len = gk5i_xdr_get_u32(&r);
    handle = gk5i_xdr_get_fixed(&r, handle_len);
    if (handle == NULL || !gk5i_rd_at_end(&r)) {
        memset(cred, 0, sizeof(*cred));
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "RPCSEC_GSS credential: a handle of %u bytes does not "
                     "fit a %zu-byte credential",
                     handle_len, len);
        return -1;
    }
    cred->version = version;
    cred->handle = handle;
    cred->handle_len = handle_len;
    return 0;
}

/* ---- verifiers (RFC 2203 5.3.1, 5.3.3.2) ---- */

size_t gk5i_rpc_mic_len(const gk5_ctx *ctx)
{
    (void)ctx;
    return GK5I_RPC_MIC_MAX;
}

int gk5i_rpc_mic(gk5_ctx *ctx, const void *msg, size_t len, uint8_t *out,
                 size_t cap, size_t *out_len, gk5_rpc_error *err)
{
    gk5_iov_buffer iov[2] = {
        {GK5_IOV_BUFFER_TYPE_DATA, {len, (void *)(uintptr_t)msg}},
        {GK5_IOV_BUFFER_TYPE_MIC_TOKEN, {cap, out}},
    };
    uint32_t minor = 0;

    *out_len = 0;
    uint32_t major = gk5_get_mic_iov(&minor, ctx, GK5_QOP_DEFAULT, iov, 2);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, "GSS_GetMIC");
        return -1;
    }
    *out_len = iov[1].buffer.length;
    return 0;
}

int gk5i_rpc_verify(gk5_ctx *ctx, const void *msg, size_t len, const void *mic,
                    size_t mic_len, gk5_rpc_error *err)
{
    gk5_iov_buffer iov[2] = {
        {GK5_IOV_BUFFER_TYPE_DATA, {len, (void *)(uintptr_t)msg}},
        {GK5_IOV_BUFFER_TYPE_MIC_TOKEN, {mic_len, (void *)(uintptr_t)mic}},
    };
    uint32_t minor = 0;

    uint32_t major = gk5_verify_mic_iov(&minor, ctx, NULL, iov, 2);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_BAD_VERIFIER, major, minor,
                         "RPCSEC_GSS verifier");
        return -1;
    }
    return 0;
}

int gk5i_rpc_mic_u32(gk5_ctx *ctx, uint32_t value, uint8_t *out, size_t cap,
                     size_t *out_len, gk5_rpc_error *err)
{
    uint8_t be[4];

    gk5i_put32(be, value);
    return gk5i_rpc_mic(ctx, be, sizeof(be), out, cap, out_len, err);
}

int gk5i_rpc_verify_u32(gk5_ctx *ctx, uint32_t value, const void *mic,
                        size_t mic_len, gk5_rpc_error *err)
{
    uint8_t be[4];

    gk5i_put32(be, value);
    return gk5i_rpc_verify(ctx, be, sizeof(be), mic, mic_len, err);
}

/* ---- bodies (RFC 2203 5.3.2.2 and 5.3.2.3) ---- */

/* The token pieces RFC 2743 GSS_Wrap makes around len bytes. */
static int wrap_pieces(gk5_ctx *ctx, size_t len, size_t *header,
                       size_t *padding, size_t *trailer, gk5_rpc_error *err)
{
    gk5_iov_buffer iov[4] = {
        {GK5_IOV_BUFFER_TYPE_HEADER, {0, NULL}},
        {GK5_IOV_BUFFER_TYPE_DATA, {len, NULL}},
        {GK5_IOV_BUFFER_TYPE_PADDING, {0, NULL}},
        {GK5_IOV_BUFFER_TYPE_TRAILER, {0, NULL}},
    };
    uint32_t minor = 0;

    uint32_t major =
        gk5_wrap_iov_length(&minor, ctx, 1, GK5_QOP_DEFAULT, NULL, iov, 4);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor,
                         "GSS_Wrap (lengths)");
        return -1;
    }
    *header = iov[0].buffer.length;
    *padding = iov[2].buffer.length;
    *trailer = iov[3].buffer.length;
    return 0;
}

int gk5i_rpc_body_room(gk5_ctx *ctx, gk5_rpc_service svc, size_t len,
                       size_t *head, size_t *tail, gk5_rpc_error *err)
{
    size_t header, padding, trailer;

    *head = 0;
    *tail = 0;
    switch (svc) {
    case GK5_RPC_SVC_NONE:
        return 0;
    case GK5_RPC_SVC_INTEGRITY:
        /* databody_integ<> length; then padding, checksum<>. */
        *head = 4;
        *tail = 3 + 4 + GK5I_RPC_MIC_MAX + 3;
        return 0;
    case GK5_RPC_SVC_PRIVACY:
        if (wrap_pieces(ctx, len, &header, &padding, &trailer, err) != 0) {
            return -1;
        }
        *head = 4 + header;
        *tail = padding + trailer + 3;
        return 0;
    }
    gk5i_rpc_err(err, GK5_RPC_E_INVALID, "unknown RPCSEC_GSS service %d",
                 (int)svc);
    return -1;
}

static int seal_integ(gk5_ctx *ctx, uint8_t *base, size_t head, size_t len,
                      size_t cap, size_t *off, size_t *out_len,
                      gk5_rpc_error *err)
{
    size_t pad = gk5i_xdr_pad(len);
    size_t mic_at = head + len + pad + 4;
    size_t mic_len = 0;

    if (head < 4 || cap < mic_at || len > UINT32_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "integrity body: no room around the data");
        return -1;
    }
    gk5i_put32(base + head - 4, (uint32_t)len);
    memset(base + head + len, 0, pad);
    /* RFC 2203 5.3.2.2: the checksum is GSS_GetMIC over databody_integ,
     * without its length word. */
    if (gk5i_rpc_mic(ctx, base + head, len, base + mic_at, cap - mic_at,
                     &mic_len, err) != 0) {
        return -1;
    }
    size_t mic_pad = gk5i_xdr_pad(mic_len);
    if (cap - mic_at - mic_len < mic_pad) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "integrity body: no room for the checksum");
        return -1;
    }
    gk5i_put32(base + mic_at - 4, (uint32_t)mic_len);
    memset(base + mic_at + mic_len, 0, mic_pad); /* not a wipe: padding */
    *off = head - 4;
    *out_len = 4 + len + pad + 4 + mic_len + mic_pad;
    return 0;
}

int gk5i_rpc_integ_pieces(gk5_ctx *ctx, uint32_t seq, const uint8_t *data,
                          size_t len, uint8_t head[GK5I_RPC_INTEG_HEAD],
                          uint8_t tail[GK5I_RPC_INTEG_TAIL], size_t *tail_len,
                          gk5_rpc_error *err)
{
    size_t pad = gk5i_xdr_pad(len);
    size_t mic_at = pad + 4;
    uint32_t minor = 0;

    *tail_len = 0;
    if (len > UINT32_MAX - 4 || (len > 0 && data == NULL)) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "integrity body: %zu bytes of data", len);
        return -1;
    }
    gk5i_put32(head, (uint32_t)(4 + len));
    gk5i_put32(head + 4, seq);
    memset(tail, 0, pad); /* not a wipe: padding */
    /* RFC 2203 5.3.2.2: the checksum is GSS_GetMIC over databody_integ
     * (seq_num, then the data), without its length word. */
    gk5_iov_buffer iov[3] = {
        {GK5_IOV_BUFFER_TYPE_DATA, {4, head + 4}},
        {GK5_IOV_BUFFER_TYPE_DATA, {len, (void *)(uintptr_t)data}},
        {GK5_IOV_BUFFER_TYPE_MIC_TOKEN, {GK5I_RPC_MIC_MAX, tail + mic_at}},
    };
    gk5_iov_buffer *mic = &iov[2];
    if (len == 0) {
        iov[1] = iov[2]; /* no empty DATA buffer */
        mic = &iov[1];
    }
    uint32_t major =
        gk5_get_mic_iov(&minor, ctx, GK5_QOP_DEFAULT, iov, len > 0 ? 3 : 2);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, "GSS_GetMIC");
        return -1;
    }
    size_t mic_len = mic->buffer.length;
    size_t mic_pad = gk5i_xdr_pad(mic_len);
    if (mic_len > GK5I_RPC_MIC_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "integrity body: no room for the checksum");
        return -1;
    }
    gk5i_put32(tail + pad, (uint32_t)mic_len);
    memset(tail + mic_at + mic_len, 0, mic_pad); /* not a wipe: padding */
    *tail_len = mic_at + mic_len + mic_pad;
    return 0;
}

static int seal_priv(gk5_ctx *ctx, uint8_t *base, size_t head, size_t len,
                     size_t cap, size_t *off, size_t *out_len,
                     gk5_rpc_error *err)
{
    size_t header, padding, trailer;
    uint32_t minor = 0;
    int conf_state = 0;

    if (wrap_pieces(ctx, len, &header, &padding, &trailer, err) != 0) {
        return -1;
    }
    size_t token = header + len + padding + trailer;
    size_t pad = gk5i_xdr_pad(token);
    if (head < 4 + header || cap - head < len + padding + trailer + pad ||
        token > UINT32_MAX) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "privacy body: no room around the data");
        return -1;
    }
    uint8_t *tok = base + head - header;
    /* HEADER | DATA | PADDING | TRAILER back to back: an RRC 0 token, as
     * GSS_Wrap makes it, built in place. */
    gk5_iov_buffer iov[4] = {
        {GK5_IOV_BUFFER_TYPE_HEADER, {header, tok}},
        {GK5_IOV_BUFFER_TYPE_DATA, {len, base + head}},
        {GK5_IOV_BUFFER_TYPE_PADDING, {padding, base + head + len}},
        {GK5_IOV_BUFFER_TYPE_TRAILER, {trailer, base + head + len + padding}},
    };
    uint32_t major =
        gk5_wrap_iov(&minor, ctx, 1, GK5_QOP_DEFAULT, &conf_state, iov, 4);
    if (GK5_ERROR(major) != 0 || conf_state != 1) {
        if (GK5_ERROR(major) == 0) {
            major = GK5_S_FAILURE;
            minor = GK5_ERR_CONF_UNAVAILABLE;
        }
        zap(base + head, len);
        gk5i_rpc_err_gss(err, GK5_RPC_E_GSS, major, minor, "GSS_Wrap");
        return -1;
    }
    /* The token's own pieces may be shorter than asked (they are not for
     * gk5's enctypes, but the layout must not depend on it). */
    size_t used = iov[0].buffer.length + len + iov[2].buffer.length +
                  iov[3].buffer.length;
    if (iov[0].buffer.length != header) {
        gk5i_rpc_err(err, GK5_RPC_E_GSS, "GSS_Wrap changed its header size");
        return -1;
    }
    pad = gk5i_xdr_pad(used);
    gk5i_put32(tok - 4, (uint32_t)used);
    memset(tok + used, 0, pad);
    *off = (size_t)(tok - 4 - base);
    *out_len = 4 + used + pad;
    return 0;
}

int gk5i_rpc_body_seal(gk5_ctx *ctx, gk5_rpc_service svc, uint8_t *base,
                       size_t head, size_t len, size_t cap, size_t *off,
                       size_t *out_len, gk5_rpc_error *err)
{
    *off = 0;
    *out_len = 0;
    if (len < 4 || head > cap || len > cap - head) {
        gk5i_rpc_err(err, GK5_RPC_E_INVALID,
                     "body to seal: %zu bytes at %zu do not fit %zu", len, head,
                     cap);
        return -1;
    }
    switch (svc) {
    case GK5_RPC_SVC_NONE:
        *off = head + 4;
        *out_len = len - 4;
        return 0;
    case GK5_RPC_SVC_INTEGRITY:
        return seal_integ(ctx, base, head, len, cap, off, out_len, err);
    case GK5_RPC_SVC_PRIVACY:
        return seal_priv(ctx, base, head, len, cap, off, out_len, err);
    }
    gk5i_rpc_err(err, GK5_RPC_E_INVALID, "unknown RPCSEC_GSS service %d",
                 (int)svc);
    return -1;
}

/* An opaque<> of at most max bytes from r: its bytes (a pointer into the
 * input), *len its length; NULL with err naming what when it is cut short
 * or too long. */
static const uint8_t *take_opaque(struct gk5i_rd *r, size_t max, size_t *len,
                                  const char *what, gk5_rpc_error *err)
{
    uint32_t n = gk5i_xdr_get_u32(r);
    size_t room = gk5i_rd_left(r);
    const uint8_t *at;

    *len = 0;
    if (r->bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "%s: truncated length", what);
        return NULL;
    }
    if (n > max) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "%s of %u bytes is larger than the %zu allowed", what, n,
                     max);
        return NULL;
    }
    at = gk5i_xdr_get_fixed(r, n);
    if (at == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "%s says %u bytes but only %zu follow", what, n, room);
        return NULL;
    }
    *len = n;
    return at;
}

/* body is the caller's and writable; the reader hands out const views of
 * it, which this turns back into places to unwrap in. */
static uint8_t *in_body(uint8_t *body, const uint8_t *at)
{
    return body + (at - body);
}

static int check_seq(const uint8_t *data, size_t len, uint32_t want_seq,
                     gk5_rpc_error *err)
{
    struct gk5i_rd r;
    uint32_t seq;

    gk5i_rd_init(&r, data, len);
    seq = gk5i_xdr_get_u32(&r);
    if (r.bad) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the body holds no sequence number");
        return -1;
    }
    if (seq != want_seq) {
        /* RFC 2203 5.3.2.2: the body's seq_num must be the credential's. */
        gk5i_rpc_err(err, GK5_RPC_E_SEQ_MISMATCH,
                     "the body's sequence number %u is not the call's %u", seq,
                     want_seq);
        return -1;
    }
    return 0;
}

static int open_integ(gk5_ctx *ctx, uint32_t want_seq, uint8_t *body,
                      size_t avail, size_t max, uint8_t **data,
                      size_t *data_len, size_t *used, gk5_rpc_error *err)
{
    struct gk5i_rd r;
    size_t len = 0, mic_len = 0;
    const uint8_t *at;
    const uint8_t *mic;

    gk5i_rd_init(&r, body, avail);
    /* max bounds the XDR data after the seq_num, as for the other
     * services: databody_integ carries the seq_num too. */
    size_t limit = max > SIZE_MAX - 4 ? SIZE_MAX : max + 4;
    at = take_opaque(&r, limit, &len, "databody_integ", err);
    if (at == NULL) {
        return -1;
    }
    uint8_t *payload = in_body(body, at);
    mic = take_opaque(&r, GK5I_RPC_MAX_AUTH_BYTES, &mic_len,
                      "integrity checksum", err);
    if (mic == NULL) {
        return -1;
    }
    uint32_t minor = 0;
    gk5_iov_buffer iov[2] = {
        {GK5_IOV_BUFFER_TYPE_DATA, {len, payload}},
        {GK5_IOV_BUFFER_TYPE_MIC_TOKEN, {mic_len, in_body(body, mic)}},
    };
    uint32_t major = gk5_verify_mic_iov(&minor, ctx, NULL, iov, 2);
    if (GK5_ERROR(major) != 0) {
        gk5i_rpc_err_gss(err, GK5_RPC_E_BAD_BODY, major, minor,
                         "integrity body checksum");
        return -1;
    }
    if (check_seq(payload, len, want_seq, err) != 0) {
        return -1;
    }
    *data = payload + 4;
    *data_len = len - 4;
    *used = avail - gk5i_rd_left(&r);
    return 0;
}

static int open_priv(gk5_ctx *ctx, uint32_t want_seq, uint8_t *body,
                     size_t avail, size_t max, uint8_t **data, size_t *data_len,
                     size_t *used, gk5_rpc_error *err)
{
    struct gk5i_rd r;
    size_t len = 0;
    const uint8_t *at;
    uint32_t minor = 0;
    int conf_state = 0;

    gk5i_rd_init(&r, body, avail);
    /* The token is larger than the plaintext: allow for its pieces. */
    size_t limit = max > SIZE_MAX - 256 ? SIZE_MAX : max + 256;
    at = take_opaque(&r, limit, &len, "databody_priv", err);
    if (at == NULL) {
        return -1;
    }
    uint8_t *token = in_body(body, at);
    gk5_iov_buffer iov[2] = {
        {GK5_IOV_BUFFER_TYPE_STREAM, {len, token}},
        {GK5_IOV_BUFFER_TYPE_DATA, {0, NULL}},
    };
    uint32_t major = gk5_unwrap_iov(&minor, ctx, &conf_state, NULL, iov, 2);
    if (GK5_ERROR(major) != 0 || conf_state != 1) {
        zap(token, len);
        if (GK5_ERROR(major) == 0) {
            /* An integrity-only Wrap token where privacy was asked for. */
            gk5i_rpc_err(err, GK5_RPC_E_BAD_BODY,
                         "the privacy body is not encrypted (an "
                         "integrity-only Wrap token)");
        } else {
            gk5i_rpc_err_gss(err, GK5_RPC_E_BAD_BODY, major, minor,
                             "privacy body (GSS_Unwrap)");
        }
        return -1;
    }
    uint8_t *plain = iov[1].buffer.value;
    size_t plain_len = iov[1].buffer.length;
    if (plain_len > max + 4 ||
        check_seq(plain, plain_len, want_seq, err) != 0) {
        if (plain_len > max + 4) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "privacy body of %zu bytes is larger than the %zu "
                         "allowed",
                         plain_len, max);
        }
        zap(token, len);
        return -1;
    }
    *data = plain + 4;
    *data_len = plain_len - 4;
    *used = avail - gk5i_rd_left(&r);
    return 0;
}

int gk5i_rpc_body_open(gk5_ctx *ctx, gk5_rpc_service svc, uint32_t want_seq,
                       uint8_t *body, size_t avail, size_t max, uint8_t **data,
                       size_t *data_len, size_t *used, gk5_rpc_error *err)
{
    *data = NULL;
    *data_len = 0;
    *used = 0;
    switch (svc) {
    case GK5_RPC_SVC_NONE:
        if (avail > max) {
            gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                         "body of %zu bytes is larger than the %zu allowed",
                         avail, max);
            return -1;
        }
        *data = body;
        *data_len = avail;
        *used = avail;
        return 0;
    case GK5_RPC_SVC_INTEGRITY:
        return open_integ(ctx, want_seq, body, avail, max, data, data_len, used,
                          err);
    case GK5_RPC_SVC_PRIVACY:
        return open_priv(ctx, want_seq, body, avail, max, data, data_len, used,
                         err);
    }
    gk5i_rpc_err(err, GK5_RPC_E_MALFORMED, "unknown RPCSEC_GSS service %d",
                 (int)svc);
    return -1;
}
