/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Per-message calls (RFC 2743 2.3) of interposed krb5 contexts: gk5 serves
 * them once it holds the context; a context left with MIT goes to MIT's
 * krb5 mechanism unchanged.  gk5's IOV and buffer types have the layout of
 * MIT's (gk5.h), and gk5 allocates outputs with malloc as MIT's
 * gss_release_buffer and gss_release_iov_buffer expect.
 */
#include <stdlib.h>

#include "crypto/crypto_int.h"
#include "interposer/interposer.h"

/* A gk5 answer as the application gets it: gk5's major (the same numbers
 * as GSS-API's) and its minor tagged for gssi_display_status. */
static OM_uint32 answer(OM_uint32 *minor, uint32_t major, uint32_t gk5_minor)
{
    *minor = gki_minor(gk5_minor);
    return major;
}

/* MIT's krb5 mechanism answers a token too old for its window as
 * out of sequence when the context checks sequence (it cannot tell an old
 * token from a late one there), and looks for duplicates only with replay
 * detection on (with sequencing alone a duplicate is out of sequence);
 * gk5 says OLD_TOKEN and DUPLICATE_TOKEN, as RFC 2743 1.2.3 has it
 * (src/mech/seqstate.c).  Applications of an interposed context get MIT's
 * answers. */
static uint32_t as_mit(const gki_ctx *c, uint32_t major)
{
    if ((major & GK5_S_OLD_TOKEN) && (c->flags & GSS_C_SEQUENCE_FLAG)) {
        major = (major & ~GK5_S_OLD_TOKEN) | GK5_S_UNSEQ_TOKEN;
    }
    if ((major & GK5_S_DUPLICATE_TOKEN) &&
        (c->flags & (GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG)) ==
            GSS_C_SEQUENCE_FLAG) {
        major = (major & ~GK5_S_DUPLICATE_TOKEN) | GK5_S_UNSEQ_TOKEN;
    }
    return major;
}

/* An empty result goes out as {0, NULL}: what MIT hands out, and what
 * callers that skip releasing empty buffers expect. */
static void empty_as_null(gss_buffer_t out)
{
    if (out != GSS_C_NO_BUFFER && out->length == 0 && out->value != NULL) {
        free(out->value);
        out->value = NULL;
    }
}

static gki_ctx *ctx_of(OM_uint32 *minor, gss_ctx_id_t handle)
{
    if (minor == NULL) {
        return NULL;
    }
    *minor = 0;
    return (gki_ctx *)handle;
}

/* What a call with no context answers (ctx_of gave NULL). */
static OM_uint32 no_context(const OM_uint32 *minor)
{
    return minor == NULL ? GSS_S_CALL_INACCESSIBLE_WRITE : GSS_S_NO_CONTEXT;
}

static void mark_used(gki_ctx *c)
{
    atomic_store_explicit(&c->used, 1, memory_order_relaxed);
}

/* Count a call gk5 served; the first of each kind on a context goes to
 * the trace (a long-lived context, a server's, may never be deleted). */
static void count(gki_ctx *c, atomic_ulong *n, const char *call)
{
    if (atomic_fetch_add_explicit(n, 1, memory_order_relaxed) == 0) {
        gki_trace("gk5_mech: context %p: gk5 serves %s", (void *)c, call);
    }
}

/* Each per-message entry below: no context (no_context()), MIT's own call
 * for a context gk5 does not serve, else gk5's call and answer().  MIT's
 * signatures differ per call, so each is its own function; what they
 * share is those helpers. */
GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_get_mic(OM_uint32 *minor,
                                                gss_ctx_id_t handle,
                                                gss_qop_t qop, gss_buffer_t msg,
                                                gss_buffer_t token)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_get_mic(minor, c->mit, qop, msg, token);
    }
    mark_used(c);
    major = gk5_get_mic(&m, c->gk5, qop, (const gk5_buffer *)msg,
                        (gk5_buffer *)token);
    count(c, &c->n.get_mic, "gss_get_mic");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_verify_mic(OM_uint32 *minor,
                                                   gss_ctx_id_t handle,
                                                   gss_buffer_t msg,
                                                   gss_buffer_t token,
                                                   gss_qop_t *qop)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, q = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_verify_mic(minor, c->mit, msg, token, qop);
    }
    mark_used(c);
    major = as_mit(c, gk5_verify_mic(&m, c->gk5, (const gk5_buffer *)msg,
                                     (const gk5_buffer *)token, &q));
    if (qop != NULL) {
        *qop = q;
    }
    count(c, &c->n.verify_mic, "gss_verify_mic");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_wrap(OM_uint32 *minor,
                                             gss_ctx_id_t handle, int conf_req,
                                             gss_qop_t qop, gss_buffer_t in,
                                             int *conf_state, gss_buffer_t out)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_wrap(minor, c->mit, conf_req, qop, in, conf_state, out);
    }
    mark_used(c);
    major = gk5_wrap(&m, c->gk5, conf_req, qop, (const gk5_buffer *)in,
                     conf_state, (gk5_buffer *)out);
    count(c, &c->n.wrap, "gss_wrap");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_unwrap(OM_uint32 *minor,
                                               gss_ctx_id_t handle,
                                               gss_buffer_t in,
                                               gss_buffer_t out,
                                               int *conf_state, gss_qop_t *qop)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, q = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_unwrap(minor, c->mit, in, out, conf_state, qop);
    }
    mark_used(c);
    major = as_mit(c, gk5_unwrap(&m, c->gk5, (const gk5_buffer *)in,
                                 (gk5_buffer *)out, conf_state, &q));
    empty_as_null(out);
    if (qop != NULL) {
        *qop = q;
    }
    count(c, &c->n.unwrap, "gss_unwrap");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_wrap_size_limit(
    OM_uint32 *minor, gss_ctx_id_t handle, int conf_req, gss_qop_t qop,
    OM_uint32 req_output_size, OM_uint32 *max_input_size)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;
    size_t in_max = 0;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_wrap_size_limit(minor, c->mit, conf_req, qop,
                                   req_output_size, max_input_size);
    }
    if (max_input_size == NULL) {
        return GSS_S_CALL_INACCESSIBLE_WRITE;
    }
    major = gk5_wrap_size_limit(&m, c->gk5, conf_req, qop, req_output_size,
                                &in_max);
    *max_input_size = GSS_ERROR(major) ? 0 : (OM_uint32)in_max;
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_wrap_iov(
    OM_uint32 *minor, gss_ctx_id_t handle, int conf_req, gss_qop_t qop,
    int *conf_state, gss_iov_buffer_desc *iov, int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_wrap_iov(minor, c->mit, conf_req, qop, conf_state, iov,
                            iov_count);
    }
    mark_used(c);
    major = gk5_wrap_iov(&m, c->gk5, conf_req, qop, conf_state,
                         (gk5_iov_buffer *)iov, iov_count);
    count(c, &c->n.wrap_iov, "gss_wrap_iov");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_unwrap_iov(OM_uint32 *minor, gss_ctx_id_t handle, int *conf_state,
                gss_qop_t *qop, gss_iov_buffer_desc *iov, int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, q = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_unwrap_iov(minor, c->mit, conf_state, qop, iov, iov_count);
    }
    mark_used(c);
    major = as_mit(c, gk5_unwrap_iov(&m, c->gk5, conf_state, &q,
                                     (gk5_iov_buffer *)iov, iov_count));
    if (qop != NULL) {
        *qop = q;
    }
    count(c, &c->n.unwrap_iov, "gss_unwrap_iov");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_wrap_iov_length(
    OM_uint32 *minor, gss_ctx_id_t handle, int conf_req, gss_qop_t qop,
    int *conf_state, gss_iov_buffer_desc *iov, int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_wrap_iov_length(minor, c->mit, conf_req, qop, conf_state,
                                   iov, iov_count);
    }
    major = gk5_wrap_iov_length(&m, c->gk5, conf_req, qop, conf_state,
                                (gk5_iov_buffer *)iov, iov_count);
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_get_mic_iov(OM_uint32 *minor,
                                                    gss_ctx_id_t handle,
                                                    gss_qop_t qop,
                                                    gss_iov_buffer_desc *iov,
                                                    int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_get_mic_iov(minor, c->mit, qop, iov, iov_count);
    }
    mark_used(c);
    major = gk5_get_mic_iov(&m, c->gk5, qop, (gk5_iov_buffer *)iov, iov_count);
    count(c, &c->n.get_mic_iov, "gss_get_mic_iov");
    return answer(minor, major, m);
}

GKI_EXPORT OM_uint32 KRB5_CALLCONV gssi_verify_mic_iov(OM_uint32 *minor,
                                                       gss_ctx_id_t handle,
                                                       gss_qop_t *qop,
                                                       gss_iov_buffer_desc *iov,
                                                       int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);
    uint32_t m = 0, q = 0, major;

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->gk5 == NULL) {
        return gss_verify_mic_iov(minor, c->mit, qop, iov, iov_count);
    }
    mark_used(c);
    major = as_mit(c, gk5_verify_mic_iov(&m, c->gk5, &q, (gk5_iov_buffer *)iov,
                                         iov_count));
    if (qop != NULL) {
        *qop = q;
    }
    count(c, &c->n.verify_mic_iov, "gss_verify_mic_iov");
    return answer(minor, major, m);
}

/* A context gk5 accepted natively has no MIT context to ask: an RFC 4121
 * MIC token is its 16-byte header and the enctype's checksum (RFC 4121
 * 4.2.6.1), whatever the message. */
static OM_uint32 native_mic_iov_length(OM_uint32 *minor, const gki_ctx *c,
                                       gss_qop_t qop, gss_iov_buffer_desc *iov,
                                       int iov_count)
{
    const struct gk5_enctype *et;
    gss_iov_buffer_desc *tok = NULL;
    gk5_ctx_info info;
    uint32_t m = 0;

    if (qop != GSS_C_QOP_DEFAULT) {
        return answer(minor, GSS_S_BAD_QOP, GK5_ERR_BAD_QOP);
    }
    if (GK5_ERROR(gk5_ctx_inquire(&m, c->gk5, &info)) != 0 || !info.cfx ||
        (et = gk5i_enctype_get(info.enctype)) == NULL) {
        return gki_native_unavailable(minor, c, "gss_get_mic_iov_length");
    }
    for (int i = 0; iov != NULL && i < iov_count; i++) {
        if (GSS_IOV_BUFFER_TYPE(iov[i].type) == GSS_IOV_BUFFER_TYPE_MIC_TOKEN) {
            if (tok != NULL) {
                return answer(minor, GSS_S_FAILURE, GK5_ERR_BAD_IOV);
            }
            tok = &iov[i];
        }
    }
    if (tok == NULL) {
        return answer(minor, GSS_S_FAILURE, GK5_ERR_BAD_IOV);
    }
    size_t len = 16 + et->mac_bytes;
    if (tok->type & GSS_IOV_BUFFER_FLAG_ALLOCATE) {
        tok->buffer.value = malloc(len);
        if (tok->buffer.value == NULL) {
            return answer(minor, GSS_S_FAILURE, GK5_ERR_NOMEM);
        }
        tok->type |= GSS_IOV_BUFFER_FLAG_ALLOCATED;
    }
    tok->buffer.length = len;
    *minor = 0;
    return GSS_S_COMPLETE;
}

/* The MIC token's length does not depend on the sequence state: MIT's
 * context (kept alive beside gk5's, with the same keys) answers it. */
GKI_EXPORT OM_uint32 KRB5_CALLCONV
gssi_get_mic_iov_length(OM_uint32 *minor, gss_ctx_id_t handle, gss_qop_t qop,
                        gss_iov_buffer_desc *iov, int iov_count)
{
    gki_ctx *c = ctx_of(minor, handle);

    if (c == NULL) {
        return no_context(minor);
    }
    if (c->mit == GSS_C_NO_CONTEXT) {
        return native_mic_iov_length(minor, c, qop, iov, iov_count);
    }
    return gss_get_mic_iov_length(minor, c->mit, qop, iov, iov_count);
}
