/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench: the operations measured and the state they run on.
 *
 * For each enctype a context pair established by MIT's GSS-API: the
 * initiator moves into gk5 (lucid import), the acceptor stays MIT.  gk5
 * wraps and MICs in the initiator's direction and unwraps and verifies
 * MIT's tokens; MIT does the same with gk5's tokens, so every side handles
 * tokens of the right direction from one session.  gk5 is measured through
 * its contiguous API (output released each call) and its IOV API with the
 * caller's buffers, in place; the floor's operations are in floor.c.
 */
#include <string.h>
#include <stdlib.h>
#include <stdio.h>

#include <openssl/rand.h>

#include <gk5/gk5.h>

#include "bench.h"

const char *const impl_names[IMPL__COUNT] = {
    [IMPL_MIT] = "mit",
    [IMPL_GK5] = "gk5",
    [IMPL_IOV] = "gk5-iov",
    [IMPL_FLOOR] = "floor",
};

static void set_iov(gk5_iov_buffer *b, uint32_t type, void *value,
                    size_t length)
{
    b->type = type;
    b->buffer.value = value;
    b->buffer.length = length;
}

/* ---- The operations (each returns true on success) ---- */

static bool gk5_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg}, out = {0, NULL};
    uint32_t major, minor = 0;
    int conf_state = 0;

    major =
        gk5_wrap(&minor, s->g, conf, GK5_QOP_DEFAULT, &in, &conf_state, &out);
    gk5_buffer_release(&out);
    return major == GK5_S_COMPLETE;
}

static bool gk5_wrap_sealed(struct worker *w)
{
    return gk5_wrap_once(w, 1);
}

static bool gk5_wrap_integ(struct worker *w)
{
    return gk5_wrap_once(w, 0);
}

static bool gk5_unwrap_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->m_sealed.length, s->m_sealed.value};
    gk5_buffer out = {0, NULL};
    uint32_t major, minor = 0, qop = 0;
    int conf_state = 0;

    major = gk5_unwrap(&minor, s->g, &in, &out, &conf_state, &qop);
    gk5_buffer_release(&out);
    return GK5_ERROR(major) == 0;
}

static bool gk5_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg}, tok = {0, NULL};
    uint32_t major, minor = 0;

    major = gk5_get_mic(&minor, s->g, GK5_QOP_DEFAULT, &in, &tok);
    gk5_buffer_release(&tok);
    return major == GK5_S_COMPLETE;
}

static bool gk5_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg};
    gk5_buffer tok = {s->m_mic.length, s->m_mic.value};
    uint32_t major, minor = 0, qop = 0;

    major = gk5_verify_mic(&minor, s->g, &in, &tok, &qop);
    return GK5_ERROR(major) == 0;
}

/* IOV wrap with the caller's buffers, in place over w->work. */
static bool iov_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0;
    int conf_state = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, w->hdr, sizeof(w->hdr));
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, w->work, s->size);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, w->pad, sizeof(w->pad));
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, w->trl, sizeof(w->trl));
    major =
        gk5_wrap_iov(&minor, s->g, conf, GK5_QOP_DEFAULT, &conf_state, iov, 4);
    return major == GK5_S_COMPLETE;
}

static bool iov_wrap_sealed(struct worker *w)
{
    return iov_wrap_once(w, 1);
}

static bool iov_wrap_integ(struct worker *w)
{
    return iov_wrap_once(w, 0);
}

/* Put MIT's sealed token back into the worker's buffers (unwrap works in
 * place); returns the IOV count. */
static int iov_restore(struct worker *w, gk5_iov_buffer *iov)
{
    const struct shared *s = w->s;
    const uint8_t *t = s->m_sealed.value;
    const size_t *sp = s->split;
    int n = 0;

    if (!s->split_ok) {
        memcpy(w->work, t, s->m_sealed.length);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_STREAM, w->work,
                s->m_sealed.length);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_DATA, NULL, 0);
        return n;
    }
    memcpy(w->hdr, t, sp[0]);
    memcpy(w->work, t + sp[0], sp[1]);
    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_HEADER, w->hdr, sp[0]);
    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_DATA, w->work, sp[1]);
    if (sp[2] != 0) {
        memcpy(w->pad, t + sp[0] + sp[1], sp[2]);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_PADDING, w->pad, sp[2]);
    }
    if (sp[3] != 0) {
        memcpy(w->trl, t + sp[0] + sp[1] + sp[2], sp[3]);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_TRAILER, w->trl, sp[3]);
    }
    return n;
}

static bool iov_unwrap_once(struct worker *w)
{
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0, qop = 0;
    int conf_state = 0, n = iov_restore(w, iov);

    major = gk5_unwrap_iov(&minor, w->s->g, &conf_state, &qop, iov, n);
    return GK5_ERROR(major) == 0;
}

/* The copy iov_unwrap_once makes, alone: subtracted from its time. */
bool iov_restore_once(struct worker *w)
{
    gk5_iov_buffer iov[4];

    (void)iov_restore(w, iov);
    /* Keep the copies from being optimised away. */
    __asm__ __volatile__("" : : "r"(iov) : "memory");
    return true;
}

static bool iov_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[2];
    uint32_t major, minor = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, s->msg, s->size);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, w->mic, sizeof(w->mic));
    major = gk5_get_mic_iov(&minor, s->g, GK5_QOP_DEFAULT, iov, 2);
    return major == GK5_S_COMPLETE;
}

static bool iov_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[2];
    uint32_t major, minor = 0, qop = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, s->msg, s->size);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, s->m_mic.value,
            s->m_mic.length);
    major = gk5_verify_mic_iov(&minor, s->g, &qop, iov, 2);
    return GK5_ERROR(major) == 0;
}

static bool mit_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg}, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;
    int conf_state = 0;

    major =
        gss_wrap(&minor, s->m, conf, GSS_C_QOP_DEFAULT, &in, &conf_state, &out);
    (void)gss_release_buffer(&minor, &out);
    return major == GSS_S_COMPLETE;
}

static bool mit_wrap_sealed(struct worker *w)
{
    return mit_wrap_once(w, 1);
}

static bool mit_wrap_integ(struct worker *w)
{
    return mit_wrap_once(w, 0);
}

/* MIT keeps replay and sequence detection on: a repeated token is
 * reported as DUPLICATE (supplementary) and still decrypted. */
static bool mit_unwrap_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->g_sealed.length, s->g_sealed.value};
    gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;
    gss_qop_t qop = 0;
    int conf_state = 0;

    major = gss_unwrap(&minor, s->m, &in, &out, &conf_state, &qop);
    (void)gss_release_buffer(&minor, &out);
    return !GSS_ERROR(major);
}

static bool mit_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg}, tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;

    major = gss_get_mic(&minor, s->m, GSS_C_QOP_DEFAULT, &in, &tok);
    (void)gss_release_buffer(&minor, &tok);
    return major == GSS_S_COMPLETE;
}

static bool mit_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg};
    gss_buffer_desc tok = {s->g_mic.length, s->g_mic.value};
    OM_uint32 major, minor = 0;
    gss_qop_t qop = 0;

    major = gss_verify_mic(&minor, s->m, &in, &tok, &qop);
    return !GSS_ERROR(major);
}

const op_fn op_table[OP__COUNT][IMPL__COUNT] = {
    [OP_WRAP_1PASS] = {mit_wrap_sealed, gk5_wrap_sealed, iov_wrap_sealed,
                       floor_seal},
    [OP_WRAP_SEALED] = {mit_wrap_sealed, gk5_wrap_sealed, iov_wrap_sealed,
                        floor_seal},
    [OP_WRAP_INTEG] = {mit_wrap_integ, gk5_wrap_integ, iov_wrap_integ,
                       floor_mac_alone},
    [OP_UNWRAP] = {mit_unwrap_once, gk5_unwrap_once, iov_unwrap_once,
                   floor_open},
    [OP_GET_MIC] = {mit_get_mic_once, gk5_get_mic_once, iov_get_mic_once,
                    floor_mac_alone},
    [OP_VERIFY_MIC] = {mit_verify_mic_once, gk5_verify_mic_once,
                       iov_verify_mic_once, floor_mac_alone},
};

/* ---- Workers ---- */

void worker_free(struct worker *w)
{
    free(w->work);
    free(w->f_out);
    floor_keys_free(&w->fk);
    memset(w, 0, sizeof(*w));
}

int worker_init(struct worker *w, const struct shared *s)
{
    memset(w, 0, sizeof(*w));
    w->s = s;
    w->work = malloc(s->size + HDR_CAP);
    w->f_out = malloc(s->f_len);
    if (w->work == NULL || w->f_out == NULL ||
        floor_keys_dup(s->fk, &w->fk) != 0) {
        worker_free(w);
        return -1;
    }
    memcpy(w->work, s->msg, s->size);
    return 0;
}

/* ---- Per (enctype, size) ---- */

/* Find the split of MIT's sealed token into gk5_wrap_iov's layout. */
static void find_split(struct shared *s)
{
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0;
    size_t total;

    s->split_ok = false;
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, NULL, s->size);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, NULL, 0);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
    major = gk5_wrap_iov_length(&minor, s->g, 1, GK5_QOP_DEFAULT, NULL, iov, 4);
    if (major != GK5_S_COMPLETE) {
        return;
    }
    total = 0;
    for (int i = 0; i < 4; i++) {
        s->split[i] = iov[i].buffer.length;
        total += s->split[i];
    }
    s->split_ok = total == s->m_sealed.length && s->split[0] <= HDR_CAP &&
                  s->split[2] <= 64 && s->split[3] <= HDR_CAP;
}

/* Tokens both ways, checked once by the other side before timing. */
static int make_tokens(struct shared *s, char *why, size_t why_len)
{
    gk5_buffer in = {s->size, s->msg}, out = {0, NULL}, tok;
    gss_buffer_desc mmsg = {s->size, s->msg}, mout = GSS_C_EMPTY_BUFFER;
    gss_buffer_desc mtok;
    uint32_t major, minor = 0, qop = 0;
    OM_uint32 mmaj, mmin = 0;
    gss_qop_t mqop = 0;
    int conf_state = 0, ret = -1;

    major = gk5_wrap(&minor, s->g, 1, GK5_QOP_DEFAULT, &in, &conf_state,
                     &s->g_sealed);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, why_len, "gk5_wrap: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    major = gk5_get_mic(&minor, s->g, GK5_QOP_DEFAULT, &in, &s->g_mic);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, why_len, "gk5_get_mic: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    mmaj = gss_wrap(&mmin, s->m, 1, GSS_C_QOP_DEFAULT, &mmsg, &conf_state,
                    &s->m_sealed);
    if (mmaj == GSS_S_COMPLETE) {
        mmaj = gss_get_mic(&mmin, s->m, GSS_C_QOP_DEFAULT, &mmsg, &s->m_mic);
    }
    if (mmaj != GSS_S_COMPLETE) {
        snprintf(why, why_len, "MIT gss_wrap/gss_get_mic failed (%u, %u)",
                 (unsigned)mmaj, (unsigned)mmin);
        goto cleanup;
    }
    /* Each side takes the other's tokens. */
    mtok.length = s->g_sealed.length;
    mtok.value = s->g_sealed.value;
    mmaj = gss_unwrap(&mmin, s->m, &mtok, &mout, &conf_state, &mqop);
    if (GSS_ERROR(mmaj) || mout.length != s->size ||
        memcmp(mout.value, s->msg, s->size) != 0) {
        snprintf(why, why_len, "MIT could not unwrap gk5's token");
        goto cleanup;
    }
    mtok.length = s->g_mic.length;
    mtok.value = s->g_mic.value;
    mmaj = gss_verify_mic(&mmin, s->m, &mmsg, &mtok, &mqop);
    if (GSS_ERROR(mmaj)) {
        snprintf(why, why_len, "MIT could not verify gk5's MIC");
        goto cleanup;
    }
    tok.length = s->m_sealed.length;
    tok.value = s->m_sealed.value;
    major = gk5_unwrap(&minor, s->g, &tok, &out, &conf_state, &qop);
    if (GK5_ERROR(major) != 0 || out.length != s->size ||
        memcmp(out.value, s->msg, s->size) != 0) {
        snprintf(why, why_len, "gk5_unwrap of MIT's token: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    tok.length = s->m_mic.length;
    tok.value = s->m_mic.value;
    major = gk5_verify_mic(&minor, s->g, &in, &tok, &qop);
    if (GK5_ERROR(major) != 0) {
        snprintf(why, why_len, "gk5_verify_mic of MIT's MIC: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    find_split(s);
    ret = 0;

cleanup:
    gk5_buffer_release(&out);
    (void)gss_release_buffer(&mmin, &mout);
    return ret;
}

void shared_free(struct shared *s)
{
    OM_uint32 minor = 0;

    free(s->msg);
    free(s->f_plain);
    free(s->f_ct);
    gk5_buffer_release(&s->g_sealed);
    gk5_buffer_release(&s->g_mic);
    (void)gss_release_buffer(&minor, &s->m_sealed);
    (void)gss_release_buffer(&minor, &s->m_mic);
    s->msg = s->f_plain = s->f_ct = NULL;
}

int shared_init(struct shared *s, const struct gk5_enctype *row,
                enum family fam, gk5_ctx *g, gss_ctx_id_t m,
                const struct floor_keys *fk, size_t size, char *why,
                size_t why_len)
{
    memset(s, 0, sizeof(*s));
    s->row = row;
    s->fam = fam;
    s->g = g;
    s->m = m;
    s->fk = fk;
    s->size = size;
    s->msg = malloc(size != 0 ? size : 1);
    if (s->msg == NULL || RAND_bytes(s->msg, (int)size) != 1) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (make_tokens(s, why, why_len) != 0) {
        return -1;
    }
    if (floor_prepare(s) != 0) {
        snprintf(why, why_len, "the OpenSSL floor failed");
        return -1;
    }
    return 0;
}
