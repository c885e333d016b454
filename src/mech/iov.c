/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The public per-message calls (RFC 2743 2.3, RFC 2744 5): argument
 * checks, IOV validation, the ALLOCATE flag, and dispatch to the token
 * layer (RFC 4121, or RFC 1964 for DES3) on a borrowed lane.  The
 * contiguous gk5_wrap/gk5_unwrap/gk5_get_mic/gk5_verify_mic are thin
 * wrappers over the same core.
 *
 * IOV buffer types and flags are numerically MIT's GSS_IOV_BUFFER_TYPE_*
 * and GSS_IOV_BUFFER_FLAG_*, and the semantics are MIT's gss_*_iov: gk5
 * allocates a buffer flagged ALLOCATE with malloc and marks it ALLOCATED;
 * gk5_release_iov() frees those.  With caller-supplied buffers nothing here
 * or below allocates.
 */
#include <stdlib.h>
#include <string.h>

#include "mech_int.h"

enum iov_op { OP_WRAP, OP_WRAP_LENGTH, OP_UNWRAP, OP_GET_MIC, OP_VERIFY_MIC };

/* The singleton buffers of a validated array. */
struct iov_found {
    gk5_iov_buffer *header, *trailer, *padding, *stream, *mic, *data;
    int n_data;
};

static const struct gk5_tok_ops *tok_ops(const gk5_ctx *ctx)
{
#ifdef GK5_WITH_DES3
    if (ctx->et->rfc1964) {
        return &gk5i_rfc1964_ops;
    }
#endif
    return &gk5i_rfc4121_ops;
}

/* Checks every call makes, in this order: somewhere to put the minor status
 * (gk5i_status(NULL, ...) answers CALL_INACCESSIBLE_WRITE), then RFC 2744
 * 5: no context, the QOP, expiry. */
static GK5_WUR uint32_t check_call(const uint32_t *minor, const gk5_ctx *ctx,
                                   uint32_t qop)
{
    if (minor == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (ctx == NULL) {
        return GK5_ERR_CTX_NO_CONTEXT;
    }
    if (qop != GK5_QOP_DEFAULT) {
        return GK5_ERR_BAD_QOP;
    }
    return gk5i_ctx_check_expiry(ctx);
}

/* check_call() for the calls that send (wrap, get_mic), which then ask
 * for the send counter's line (mech_int.h, gk5i_ctx_prefetch_send). */
static GK5_WUR uint32_t check_send_call(const uint32_t *minor, gk5_ctx *ctx,
                                        uint32_t qop)
{
    uint32_t err = check_call(minor, ctx, qop);

    if (err == GK5_OK) {
        gk5i_ctx_prefetch_send(ctx);
    }
    return err;
}

/* The outputs a call clears on entry (each may be NULL), so that a call
 * that fails leaves them empty. */
static void clear_outputs(int *conf_state, uint32_t *qop, gk5_buffer *out)
{
    if (conf_state != NULL) {
        *conf_state = 0;
    }
    if (qop != NULL) {
        *qop = GK5_QOP_DEFAULT;
    }
    if (out != NULL) {
        out->length = 0;
        out->value = NULL;
    }
}

/* A caller's buffer that can be read for its length. */
static bool readable(const gk5_buffer *b)
{
    return b != NULL && (b->length == 0 || b->value != NULL);
}

/* The one allocation of a contiguous call that failed: wiped, freed, and
 * the confidentiality state it might have reported cleared. */
static void drop_output(uint8_t *buf, size_t len, int *conf_state)
{
    if (buf == NULL) {
        return;
    }
    zap(buf, len);
    free(buf);
    if (conf_state != NULL) {
        *conf_state = 0;
    }
}

/* Tracing: a call that failed, as its caller sees it (the token layer and
 * the window trace what they saw before this). */
static inline GK5_WUR uint32_t traced(const char *op, const gk5_ctx *ctx,
                                      uint32_t major, const uint32_t *minor)
{
    if (GK5_ERROR(major) != 0 && GK5_TRACE_ON()) {
        gk5i_trace_outcome(ctx, op, major, minor);
    }
    return major;
}

static bool is_major_error(uint32_t major)
{
    return GK5_ERROR(major) != 0;
}

/* Does op write into a buffer of this type (so that ALLOCATE applies and
 * its value may be NULL on entry)? */
static bool written_by(enum iov_op op, uint32_t type, bool streaming)
{
    switch (op) {
    case OP_WRAP:
        return type == GK5_IOV_BUFFER_TYPE_HEADER ||
               type == GK5_IOV_BUFFER_TYPE_TRAILER ||
               type == GK5_IOV_BUFFER_TYPE_PADDING;
    case OP_GET_MIC:
        return type == GK5_IOV_BUFFER_TYPE_MIC_TOKEN;
    case OP_UNWRAP:
        return streaming && type == GK5_IOV_BUFFER_TYPE_DATA;
    case OP_WRAP_LENGTH:
    case OP_VERIFY_MIC:
        break;
    }
    return false;
}

/* A buffer with a length but no memory is fine only where gk5 supplies the
 * memory: a written buffer flagged ALLOCATE (replaced by gk5's allocation),
 * or the DATA of a STREAM unwrap (pointed into the STREAM).  Anything else
 * would be written or read through NULL. */
static bool may_be_null(enum iov_op op, const gk5_iov_buffer *b, bool streaming)
{
    uint32_t type = GK5_IOV_BUFFER_TYPE(b->type);

    if (op == OP_UNWRAP) {
        return written_by(op, type, streaming);
    }
    return written_by(op, type, streaming) &&
           (b->type & GK5_IOV_BUFFER_FLAG_ALLOCATE) != 0;
}

/* Which buffers op needs and allows (MIT's gss_*_iov rules). */
static GK5_WUR uint32_t check_shape(enum iov_op op, const struct iov_found *f)
{
    switch (op) {
    case OP_WRAP:
    case OP_WRAP_LENGTH:
        if (f->header == NULL || f->stream != NULL || f->mic != NULL) {
            return GK5_ERR_BAD_IOV;
        }
        break;
    case OP_UNWRAP:
        if (f->mic != NULL) {
            return GK5_ERR_BAD_IOV;
        }
        if (f->stream != NULL) {
            if (f->header != NULL || f->trailer != NULL || f->padding != NULL ||
                f->n_data != 1) {
                return GK5_ERR_BAD_IOV;
            }
        } else if (f->header == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        break;
    case OP_GET_MIC:
    case OP_VERIFY_MIC:
        if (f->mic == NULL || f->header != NULL || f->trailer != NULL ||
            f->padding != NULL || f->stream != NULL) {
            return GK5_ERR_BAD_IOV;
        }
        break;
    }
    return GK5_OK;
}

/* Validates an IOV array for op: known types and flags, at most one of each
 * singleton, the buffers op needs, no NULL value with a length except in a
 * buffer op will write and allocate. */
static GK5_WUR uint32_t validate_iov(gk5_iov_buffer *iov, int iov_count,
                                     enum iov_op op, struct iov_found *f)
{
    uint32_t err;

    memset(f, 0, sizeof(*f));
    if (iov_count < 0 || (iov == NULL && iov_count != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (iov_count > GK5I_IOV_MAX) {
        return GK5_ERR_BAD_IOV;
    }
    for (int i = 0; i < iov_count; i++) {
        uint32_t type = GK5_IOV_BUFFER_TYPE(iov[i].type);
        uint32_t flags = iov[i].type & GK5_IOV_BUFFER_FLAG_MASK;
        gk5_iov_buffer **slot = NULL;

        if ((flags & ~(GK5_IOV_BUFFER_FLAG_ALLOCATE |
                       GK5_IOV_BUFFER_FLAG_ALLOCATED)) != 0) {
            return GK5_ERR_BAD_IOV;
        }
        switch (type) {
        case GK5_IOV_BUFFER_TYPE_EMPTY:
        case GK5_IOV_BUFFER_TYPE_MECH_PARAMS:
        case GK5_IOV_BUFFER_TYPE_SIGN_ONLY:
            break;
        case GK5_IOV_BUFFER_TYPE_DATA:
            f->data = &iov[i];
            f->n_data++;
            break;
        case GK5_IOV_BUFFER_TYPE_HEADER:
            slot = &f->header;
            break;
        case GK5_IOV_BUFFER_TYPE_TRAILER:
            slot = &f->trailer;
            break;
        case GK5_IOV_BUFFER_TYPE_PADDING:
            slot = &f->padding;
            break;
        case GK5_IOV_BUFFER_TYPE_STREAM:
            slot = &f->stream;
            break;
        case GK5_IOV_BUFFER_TYPE_MIC_TOKEN:
            slot = &f->mic;
            break;
        default:
            return GK5_ERR_BAD_IOV;
        }
        if (slot != NULL) {
            if (*slot != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            *slot = &iov[i];
        }
    }
    err = check_shape(op, f);
    if (err != GK5_OK || op == OP_WRAP_LENGTH) {
        return err;
    }
    for (int i = 0; i < iov_count; i++) {
        if (iov[i].buffer.length != 0 && iov[i].buffer.value == NULL &&
            !may_be_null(op, &iov[i], f->stream != NULL)) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
    }
    return GK5_OK;
}

static void release_one(gk5_iov_buffer *b)
{
    zap(b->buffer.value, b->buffer.length);
    free(b->buffer.value);
    b->buffer.value = NULL;
    b->buffer.length = 0;
    b->type &= ~GK5_IOV_BUFFER_FLAG_ALLOCATED;
}

/* The buffer's value on entry must be usable for len bytes: allocated when
 * flagged ALLOCATE (len 0 needs no memory), else checked by the token
 * layer against buffer.length. */
static GK5_WUR uint32_t allocate_one(gk5_iov_buffer *b, size_t len, bool *done)
{
    *done = false;
    if (len == 0) {
        b->buffer.value = NULL;
        b->buffer.length = 0;
        return GK5_OK;
    }
    b->buffer.value = malloc(len);
    if (b->buffer.value == NULL) {
        b->buffer.length = 0;
        return GK5_ERR_NOMEM;
    }
    b->buffer.length = len;
    b->type |= GK5_IOV_BUFFER_FLAG_ALLOCATED;
    *done = true;
    return GK5_OK;
}

/*
 * MIT gss_wrap_iov: HEADER, TRAILER and PADDING flagged ALLOCATE get
 * exactly the lengths gk5_wrap_iov_length() gives; the others keep their
 * length as their capacity.  allocated[] says which were allocated here so
 * that a failed wrap frees just those.
 */
static GK5_WUR uint32_t wrap_allocate(const struct gk5_tok_ops *ops,
                                      gk5_ctx *ctx, int conf_req,
                                      gk5_iov_buffer *iov, int iov_count,
                                      const struct iov_found *f,
                                      gk5_iov_buffer *special[3],
                                      bool allocated[3])
{
    size_t saved[3] = {0, 0, 0};
    bool any = false;
    uint32_t major, minor = 0, err = GK5_OK;

    special[0] = f->header;
    special[1] = f->trailer;
    special[2] = f->padding;
    for (int j = 0; j < 3; j++) {
        allocated[j] = false;
        if (special[j] != NULL) {
            saved[j] = special[j]->buffer.length;
            any |= (special[j]->type & GK5_IOV_BUFFER_FLAG_ALLOCATE) != 0;
        }
    }
    if (!any) {
        return GK5_OK;
    }
    major = ops->wrap_iov_length(&minor, ctx, conf_req, NULL, iov, iov_count);
    if (is_major_error(major)) {
        err = minor != GK5_OK ? minor : GK5_ERR_BAD_IOV;
    }
    for (int j = 0; j < 3; j++) {
        if (special[j] == NULL) {
            continue;
        }
        if (err != GK5_OK ||
            (special[j]->type & GK5_IOV_BUFFER_FLAG_ALLOCATE) == 0) {
            special[j]->buffer.length = saved[j];
            continue;
        }
        err =
            allocate_one(special[j], special[j]->buffer.length, &allocated[j]);
    }
    if (err != GK5_OK) {
        for (int j = 0; j < 3; j++) {
            if (allocated[j]) {
                release_one(special[j]);
                allocated[j] = false;
            }
        }
    }
    return err;
}

/* ---- the IOV family ---- */

/* Every public call below starts with check_call() and clears its outputs
 * (clear_outputs()); the checks after that differ per call (MIT's rules for
 * each).  The token-layer work then runs on a lane borrowed for the call:
 * borrow_lane(), the call through tok_ops(), gk5i_lane_release(). */

/* A lane of ctx for one token-layer call, or NULL with *major the status to
 * return (minor set). */
static inline GK5_WUR struct gk5_lane *
borrow_lane(uint32_t *minor, gk5_ctx *ctx, uint32_t *major)
{
    uint32_t err = GK5_OK;
    struct gk5_lane *lane = gk5i_lane_acquire(ctx, &err);

    if (lane == NULL) {
        *major = gk5i_status(minor, err != GK5_OK ? err : GK5_ERR_NOMEM);
    }
    return lane;
}

/* The core of gk5_wrap_iov after the argument checks; gk5_wrap calls it
 * with its one output buffer already laid out. */
static GK5_WUR uint32_t wrap_dispatch(uint32_t *minor, gk5_ctx *ctx,
                                      int conf_req, int *conf_state,
                                      gk5_iov_buffer *iov, int iov_count)
{
    uint32_t major;
    struct gk5_lane *lane = borrow_lane(minor, ctx, &major);

    if (lane == NULL) {
        return major;
    }
    major = tok_ops(ctx)->wrap_iov(minor, ctx, lane, conf_req, conf_state, iov,
                                   iov_count);
    gk5i_lane_release(ctx, lane);
    return major;
}

static GK5_WUR uint32_t unwrap_dispatch(uint32_t *minor, gk5_ctx *ctx,
                                        int *conf_state, gk5_iov_buffer *iov,
                                        int iov_count)
{
    uint32_t major;
    struct gk5_lane *lane = borrow_lane(minor, ctx, &major);

    if (lane == NULL) {
        return major;
    }
    major =
        tok_ops(ctx)->unwrap_iov(minor, ctx, lane, conf_state, iov, iov_count);
    gk5i_lane_release(ctx, lane);
    return major;
}

uint32_t gk5_wrap_iov(uint32_t *minor, gk5_ctx *ctx, int conf_req, uint32_t qop,
                      int *conf_state, gk5_iov_buffer *iov, int iov_count)
{
    gk5_iov_buffer *special[3];
    bool allocated[3];
    struct iov_found f;
    uint32_t err, major;

    clear_outputs(conf_state, NULL, NULL);
    err = check_send_call(minor, ctx, qop);
    if (err == GK5_OK) {
        err = validate_iov(iov, iov_count, OP_WRAP, &f);
    }
    if (err == GK5_OK) {
        err = wrap_allocate(tok_ops(ctx), ctx, conf_req, iov, iov_count, &f,
                            special, allocated);
    }
    if (err != GK5_OK) {
        return traced("wrap", ctx, gk5i_status(minor, err), minor);
    }
    major = wrap_dispatch(minor, ctx, conf_req, conf_state, iov, iov_count);
    if (is_major_error(major)) {
        for (int j = 0; j < 3; j++) {
            if (allocated[j]) {
                release_one(special[j]);
            }
        }
    }
    return traced("wrap", ctx, major, minor);
}

uint32_t gk5_wrap_iov_length(uint32_t *minor, const gk5_ctx *ctx, int conf_req,
                             uint32_t qop, int *conf_state, gk5_iov_buffer *iov,
                             int iov_count)
{
    struct iov_found f;
    uint32_t err;

    clear_outputs(conf_state, NULL, NULL);
    err = check_call(minor, ctx, qop);
    if (err == GK5_OK) {
        err = validate_iov(iov, iov_count, OP_WRAP_LENGTH, &f);
    }
    if (err != GK5_OK) {
        return traced("wrap_iov_length", ctx, gk5i_status(minor, err), minor);
    }
    return traced("wrap_iov_length", ctx,
                  tok_ops(ctx)->wrap_iov_length(minor, ctx, conf_req,
                                                conf_state, iov, iov_count),
                  minor);
}

/*
 * MIT gss_unwrap_iov.  With a STREAM buffer the token is processed inside
 * it and DATA points at the plaintext there, or, when DATA is flagged
 * ALLOCATE, receives a copy (allocated before the token is checked, so
 * that a failed allocation cannot come after the receive window moved).
 */
uint32_t gk5_unwrap_iov(uint32_t *minor, gk5_ctx *ctx, int *conf_state,
                        uint32_t *qop, gk5_iov_buffer *iov, int iov_count)
{
    struct iov_found f;
    uint8_t *copy = NULL;
    bool want_copy = false;
    uint32_t err, major;

    clear_outputs(conf_state, qop, NULL);
    err = check_call(minor, ctx, GK5_QOP_DEFAULT);
    if (err == GK5_OK) {
        err = validate_iov(iov, iov_count, OP_UNWRAP, &f);
    }
    if (err != GK5_OK) {
        return traced("unwrap", ctx, gk5i_status(minor, err), minor);
    }
    if (f.stream != NULL &&
        (f.data->type & GK5_IOV_BUFFER_FLAG_ALLOCATE) != 0) {
        want_copy = true;
        copy =
            malloc(f.stream->buffer.length != 0 ? f.stream->buffer.length : 1);
        if (copy == NULL) {
            return traced("unwrap", ctx, gk5i_status(minor, GK5_ERR_NOMEM),
                          minor);
        }
        f.data->type &= ~GK5_IOV_BUFFER_FLAG_ALLOCATE;
    }
    major = unwrap_dispatch(minor, ctx, conf_state, iov, iov_count);
    if (want_copy) {
        f.data->type |= GK5_IOV_BUFFER_FLAG_ALLOCATE;
        if (is_major_error(major)) {
            free(copy);
        } else {
            memcpy(copy, f.data->buffer.value, f.data->buffer.length);
            f.data->buffer.value = copy;
            f.data->type |= GK5_IOV_BUFFER_FLAG_ALLOCATED;
        }
    }
    return traced("unwrap", ctx, major, minor);
}

uint32_t gk5_get_mic_iov(uint32_t *minor, gk5_ctx *ctx, uint32_t qop,
                         gk5_iov_buffer *iov, int iov_count)
{
    struct iov_found f;
    struct gk5_lane *lane;
    bool allocated = false;
    uint32_t err, major;

    err = check_send_call(minor, ctx, qop);
    if (err == GK5_OK) {
        err = validate_iov(iov, iov_count, OP_GET_MIC, &f);
    }
    if (err == GK5_OK && (f.mic->type & GK5_IOV_BUFFER_FLAG_ALLOCATE) != 0) {
        err = allocate_one(f.mic, GK5I_MIC_TOKEN_MAX, &allocated);
    }
    if (err != GK5_OK) {
        return traced("get_mic", ctx, gk5i_status(minor, err), minor);
    }
    lane = borrow_lane(minor, ctx, &major);
    if (lane != NULL) {
        major = tok_ops(ctx)->get_mic_iov(minor, ctx, lane, iov, iov_count);
        gk5i_lane_release(ctx, lane);
    }
    if (is_major_error(major) && allocated) {
        release_one(f.mic);
    }
    return traced("get_mic", ctx, major, minor);
}

uint32_t gk5_verify_mic_iov(uint32_t *minor, gk5_ctx *ctx, uint32_t *qop,
                            gk5_iov_buffer *iov, int iov_count)
{
    struct iov_found f;
    struct gk5_lane *lane;
    uint32_t err, major;

    clear_outputs(NULL, qop, NULL);
    err = check_call(minor, ctx, GK5_QOP_DEFAULT);
    if (err == GK5_OK) {
        err = validate_iov(iov, iov_count, OP_VERIFY_MIC, &f);
    }
    if (err != GK5_OK) {
        return traced("verify_mic", ctx, gk5i_status(minor, err), minor);
    }
    lane = borrow_lane(minor, ctx, &major);
    if (lane != NULL) {
        major = tok_ops(ctx)->verify_mic_iov(minor, ctx, lane, iov, iov_count);
        gk5i_lane_release(ctx, lane);
    }
    return traced("verify_mic", ctx, major, minor);
}

void gk5_release_iov(gk5_iov_buffer *iov, int iov_count)
{
    if (iov == NULL) {
        return;
    }
    for (int i = 0; i < iov_count; i++) {
        if ((iov[i].type & GK5_IOV_BUFFER_FLAG_ALLOCATED) != 0) {
            release_one(&iov[i]);
        }
    }
}

/* ---- contiguous tokens ---- */

static void set_iov(gk5_iov_buffer *b, uint32_t type, void *value,
                    size_t length)
{
    b->type = type;
    b->buffer.value = value;
    b->buffer.length = length;
}

/*
 * RFC 2743 2.3.3 GSS_Wrap as one token: HEADER | DATA | PADDING | TRAILER
 * laid out back to back in the single allocation the caller gets (so RRC
 * is 0), the data copied in and wrapped in place.
 */
uint32_t gk5_wrap(uint32_t *minor, gk5_ctx *ctx, int conf_req, uint32_t qop,
                  const gk5_buffer *in, int *conf_state, gk5_buffer *out)
{
    gk5_iov_buffer iov[4];
    uint8_t *buf = NULL;
    size_t overhead, total = 0;
    uint32_t err, major;

    clear_outputs(conf_state, NULL, out);
    err = check_send_call(minor, ctx, qop);
    if (err == GK5_OK && (!readable(in) || out == NULL)) {
        err = GK5_ERR_INVALID_ARGUMENT;
    }
    if (err != GK5_OK) {
        major = gk5i_status(minor, err);
        goto cleanup;
    }
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, NULL, in->length);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, NULL, 0);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
    major = tok_ops(ctx)->wrap_iov_length(minor, ctx, conf_req, NULL, iov, 4);
    if (is_major_error(major)) {
        goto cleanup;
    }
    overhead =
        iov[0].buffer.length + iov[2].buffer.length + iov[3].buffer.length;
    if (in->length > SIZE_MAX - overhead) {
        major = gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
        goto cleanup;
    }
    total = overhead + in->length;
    buf = malloc(total);
    if (buf == NULL) {
        major = gk5i_status(minor, GK5_ERR_NOMEM);
        goto cleanup;
    }
    iov[0].buffer.value = buf;
    iov[1].buffer.value = buf + iov[0].buffer.length;
    iov[2].buffer.value = buf + iov[0].buffer.length + in->length;
    iov[3].buffer.value =
        buf + iov[0].buffer.length + in->length + iov[2].buffer.length;
    if (in->length != 0) {
        memcpy(iov[1].buffer.value, in->value, in->length);
    }
    major = wrap_dispatch(minor, ctx, conf_req, conf_state, iov, 4);
    if (is_major_error(major)) {
        goto cleanup;
    }
    /* The token layer must have used exactly the lengths it announced, or
     * the pieces would not be contiguous. */
    if (iov[0].buffer.length + iov[1].buffer.length + iov[2].buffer.length +
            iov[3].buffer.length !=
        total) {
        major = gk5i_status(minor, GK5_ERR_BAD_IOV);
        goto cleanup;
    }
    out->value = buf;
    out->length = total;
    buf = NULL;

cleanup:
    drop_output(buf, total, conf_state);
    return traced("wrap", ctx, major, minor);
}

/*
 * RFC 2743 2.3.4 GSS_Unwrap: the one allocation is the output.  The token
 * layer unwraps into it directly when it can (unwrap_to), else the token
 * is copied into it and unwrapped there as a STREAM (any RRC), and the
 * plaintext is moved to the front.  On failure the copy is wiped and freed
 * and nothing is returned.
 */
uint32_t gk5_unwrap(uint32_t *minor, gk5_ctx *ctx, const gk5_buffer *in,
                    gk5_buffer *out, int *conf_state, uint32_t *qop)
{
    gk5_iov_buffer iov[2];
    uint8_t *buf = NULL;
    size_t len = 0, msg_len = 0;
    uint32_t err, major;

    clear_outputs(conf_state, qop, out);
    err = check_call(minor, ctx, GK5_QOP_DEFAULT);
    if (err == GK5_OK && (!readable(in) || out == NULL)) {
        err = GK5_ERR_INVALID_ARGUMENT;
    }
    if (err != GK5_OK) {
        major = gk5i_status(minor, err);
        goto cleanup;
    }
    len = in->length;
    buf = malloc(len != 0 ? len : 1);
    if (buf == NULL) {
        major = gk5i_status(minor, GK5_ERR_NOMEM);
        goto cleanup;
    }
    if (tok_ops(ctx)->unwrap_to != NULL) {
        struct gk5_lane *lane = borrow_lane(minor, ctx, &major);

        if (lane != NULL) {
            major = tok_ops(ctx)->unwrap_to(minor, ctx, lane, in->value, len,
                                            buf, &msg_len, conf_state);
            gk5i_lane_release(ctx, lane);
        }
        if (lane == NULL || is_major_error(major)) {
            goto cleanup;
        }
    } else {
        if (len != 0) {
            memcpy(buf, in->value, len);
        }
        set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_STREAM, buf, len);
        set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, NULL, 0);
        major = unwrap_dispatch(minor, ctx, conf_state, iov, 2);
        if (is_major_error(major)) {
            goto cleanup;
        }
        msg_len = iov[1].buffer.length;
        if (msg_len != 0) {
            memmove(buf, iov[1].buffer.value, msg_len);
        }
    }
    /* What is left of the token (header, MAC, the header copy) goes. */
    zap(buf + msg_len, len - msg_len);
    out->value = buf;
    out->length = msg_len;
    buf = NULL;

cleanup:
    drop_output(buf, len, conf_state);
    return traced("unwrap", ctx, major, minor);
}

/* RFC 2743 2.3.1 GSS_GetMIC: one allocation, the token. */
uint32_t gk5_get_mic(uint32_t *minor, gk5_ctx *ctx, uint32_t qop,
                     const gk5_buffer *msg, gk5_buffer *token)
{
    gk5_iov_buffer iov[2];
    uint32_t err, major;

    clear_outputs(NULL, NULL, token);
    err = check_call(minor, ctx, qop);
    if (err == GK5_OK && (!readable(msg) || token == NULL)) {
        err = GK5_ERR_INVALID_ARGUMENT;
    }
    if (err != GK5_OK) {
        return traced("get_mic", ctx, gk5i_status(minor, err), minor);
    }
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, msg->value, msg->length);
    set_iov(&iov[1],
            GK5_IOV_BUFFER_TYPE_MIC_TOKEN | GK5_IOV_BUFFER_FLAG_ALLOCATE, NULL,
            0);
    major = gk5_get_mic_iov(minor, ctx, qop, iov, 2);
    if (!is_major_error(major)) {
        token->value = iov[1].buffer.value;
        token->length = iov[1].buffer.length;
    }
    return major; /* traced by gk5_get_mic_iov */
}

/* RFC 2743 2.3.2 GSS_VerifyMIC: no allocation at all. */
uint32_t gk5_verify_mic(uint32_t *minor, gk5_ctx *ctx, const gk5_buffer *msg,
                        const gk5_buffer *token, uint32_t *qop)
{
    gk5_iov_buffer iov[2];
    uint32_t err;

    clear_outputs(NULL, qop, NULL);
    err = check_call(minor, ctx, GK5_QOP_DEFAULT);
    if (err == GK5_OK && (!readable(msg) || !readable(token))) {
        err = GK5_ERR_INVALID_ARGUMENT;
    }
    if (err != GK5_OK) {
        return traced("verify_mic", ctx, gk5i_status(minor, err), minor);
    }
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, msg->value, msg->length);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, token->value,
            token->length);
    return gk5_verify_mic_iov(minor, ctx, qop, iov, 2); /* traced there */
}

/* RFC 2743 2.2.8 GSS_Wrap_size_limit. */
uint32_t gk5_wrap_size_limit(uint32_t *minor, const gk5_ctx *ctx, int conf_req,
                             uint32_t qop, size_t out_max, size_t *in_max)
{
    uint32_t err;

    if (in_max != NULL) {
        *in_max = 0;
    }
    err = check_call(minor, ctx, qop);
    if (err == GK5_OK && in_max == NULL) {
        err = GK5_ERR_INVALID_ARGUMENT;
    }
    if (err != GK5_OK) {
        return traced("wrap_size_limit", ctx, gk5i_status(minor, err), minor);
    }
    return traced(
        "wrap_size_limit", ctx,
        tok_ops(ctx)->wrap_size_limit(minor, ctx, conf_req, out_max, in_max),
        minor);
}

void gk5_buffer_release(gk5_buffer *buf)
{
    if (buf == NULL) {
        return;
    }
    /* Outputs may be plaintext or an exported context with keys. */
    zap(buf->value, buf->length);
    free(buf->value);
    buf->value = NULL;
    buf->length = 0;
}
