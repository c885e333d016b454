/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The MIT half of test_heimdal: an MIT krb5 acceptor for
 * gk5/localhost@GK5.TEST (the realm's service.keytab, GK5_REALM_DIR)
 * driven over stdin and stdout with wire.h frames.  It links MIT's
 * GSS-API and gk5, never Heimdal's.
 *
 * One context at a time: WIRE_ACCEPT starts it; per-message operations
 * run on MIT's context, or on gk5 once WIRE_EXPORT has moved it there
 * (lucid import or rpc.gssd buffer, as test_interop does).  Diagnostics go
 * to stderr; stdout carries only frames.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include <gk5/gk5.h>

#include "bridge/lucid.h"
#include "wire.h"

#define SERVICE "gk5/localhost@GK5.TEST"

/* gk5's IOV and buffer types are laid out as GSS-API's (gk5.h): the IOV
 * arrays below are handed to either. */
_Static_assert(sizeof(gk5_iov_buffer) == sizeof(gss_iov_buffer_desc) &&
                   offsetof(gk5_iov_buffer, buffer) ==
                       offsetof(gss_iov_buffer_desc, buffer) &&
                   sizeof(gk5_buffer) == sizeof(gss_buffer_desc),
               "gk5_iov_buffer and gss_iov_buffer_desc differ");

struct peer {
    gss_cred_id_t cred;
    gss_ctx_id_t mit;
    gk5_ctx *gk5; /* set once the context has been exported */
};

/* One reply: status words, the result string, and words after a failure. */
struct reply {
    uint32_t major, minor, out;
    uint32_t leaked; /* a failed call still handed back bytes */
    const void *a;
    size_t a_len;
    char words[512];
};

static void mit_words(struct reply *r, const char *call, OM_uint32 major,
                      OM_uint32 minor)
{
    gk5_mit_status st = {major, minor, 1, call};

    (void)gk5_mit_status_text(&st, r->words, sizeof(r->words));
}

static void gk5_words(struct reply *r, const char *call, uint32_t major,
                      uint32_t minor)
{
    snprintf(r->words, sizeof(r->words), "%s: %s", call,
             gk5_display_status(major, minor));
}

static void fill_info(struct wire_info *info, const gk5_mit_lucid *lucid)
{
    const gk5_lucid_ctx *f = gk5_mit_lucid_fields(lucid);

    memset(info, 0, sizeof(*info));
    info->initiate = f->initiate;
    info->protocol = f->protocol;
    info->endtime = f->endtime;
    info->send_seq = f->send_seq;
    info->recv_seq = f->recv_seq;
    info->token_enctype = (uint32_t)gk5_mit_lucid_enctype(lucid);
    if (f->protocol == 0) {
        info->ctx_key_type = f->rfc1964_kd.ctx_key.type;
        return;
    }
    info->have_acceptor_subkey = f->cfx_kd.have_acceptor_subkey;
    info->ctx_key_type = f->cfx_kd.ctx_key.type;
    info->ctx_key_hash =
        wire_fnv1a(f->cfx_kd.ctx_key.data, f->cfx_kd.ctx_key.length);
    if (f->cfx_kd.have_acceptor_subkey) {
        const gk5_lucid_key *c = &f->cfx_kd.ctx_key;
        const gk5_lucid_key *s = &f->cfx_kd.acceptor_subkey;
        info->acceptor_subkey_type = s->type;
        info->keys_equal =
            c->length == s->length && memcmp(c->data, s->data, c->length) == 0;
    }
}

static int acquire_cred(struct peer *p)
{
    const char *dir = getenv("GK5_REALM_DIR");
    char keytab[PATH_MAX], rcache[PATH_MAX + 16];
    gss_buffer_desc name_buf = {strlen(SERVICE), (void *)SERVICE};
    gss_name_t name = GSS_C_NO_NAME;
    OM_uint32 major, minor = 0;

    if (dir == NULL ||
        snprintf(keytab, sizeof(keytab), "%s/service.keytab", dir) >=
            (int)sizeof(keytab) ||
        snprintf(rcache, sizeof(rcache), "file2:%s/rcache-mit-peer", dir) >=
            (int)sizeof(rcache)) {
        fprintf(stderr, "mit_peer: GK5_REALM_DIR is not set (run by "
                        "gk5 realm run)\n");
        return -1;
    }
    major = gss_import_name(&minor, &name_buf,
                            (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &name);
    if (GSS_ERROR(major)) {
        fprintf(stderr, "mit_peer: gss_import_name failed\n");
        return -1;
    }
    gss_key_value_element_desc elems[] = {{"keytab", keytab},
                                          {"rcache", rcache}};
    gss_key_value_set_desc store = {2, elems};
    major = gss_acquire_cred_from(&minor, name, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &store, &p->cred, NULL, NULL);
    (void)gss_release_name(&minor, &name);
    if (GSS_ERROR(major)) {
        fprintf(stderr, "mit_peer: gss_acquire_cred_from failed\n");
        return -1;
    }
    return 0;
}

static void drop_context(struct peer *p)
{
    OM_uint32 minor = 0;

    (void)gss_delete_sec_context(&minor, &p->mit, GSS_C_NO_BUFFER);
    gk5_ctx_free(p->gk5);
    p->gk5 = NULL;
}

/* ---- the operations: MIT's context, or gk5's after WIRE_EXPORT ---- */

static void op_accept(struct peer *p, const struct wire_frame *f,
                      struct reply *r, gss_buffer_desc *keep)
{
    gss_buffer_desc in = {f->len[0], f->buf[0]};
    OM_uint32 minor = 0, flags = 0;

    drop_context(p);
    r->major = gss_accept_sec_context(&minor, &p->mit, p->cred, &in,
                                      GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL,
                                      keep, &flags, NULL, NULL);
    r->minor = minor;
    r->out = flags;
    r->a = keep->value;
    r->a_len = keep->length;
    if (GSS_ERROR(r->major)) {
        mit_words(r, "gss_accept_sec_context", r->major, minor);
    }
}

static void op_info(struct peer *p, uint32_t path, bool export, struct reply *r,
                    struct wire_info *info)
{
    gk5_mit_lucid *lucid = NULL;
    gk5_mit_status st;
    uint32_t major;

    major = export ? gk5_mit_export_lucid(&st, &p->mit, &lucid)
                   : gk5_mit_inquire_lucid(&st, p->mit, &lucid);
    if (major == GK5_S_COMPLETE) {
        fill_info(info, lucid);
        r->a = info;
        r->a_len = sizeof(*info);
        if (export) {
            major = gk5_mit_lucid_import(
                &st, lucid,
                path == WIRE_PATH_GSSD ? GK5_MIT_PATH_GSSD : GK5_MIT_PATH_LUCID,
                &p->gk5);
        }
    }
    r->major = major;
    r->minor = st.minor;
    if (major != GK5_S_COMPLETE) {
        (void)gk5_mit_status_text(&st, r->words, sizeof(r->words));
    }
    gk5_mit_lucid_free(lucid);
}

/* Per-message results are copied into *keep (malloc'd) so that both
 * backends hand back the same kind of buffer. */
static void keep_bytes(struct reply *r, uint8_t **keep, const void *p, size_t n)
{
    *keep = malloc(n > 0 ? n : 1);
    if (*keep == NULL) {
        r->major = GSS_S_FAILURE;
        snprintf(r->words, sizeof(r->words), "mit_peer: out of memory");
        return;
    }
    if (n > 0) {
        memcpy(*keep, p, n);
    }
    r->a = *keep;
    r->a_len = n;
}

static void op_wrap(struct peer *p, const struct wire_frame *f, struct reply *r,
                    uint8_t **keep)
{
    gss_buffer_desc in = {f->len[0], f->buf[0]}, out = GSS_C_EMPTY_BUFFER;
    int conf = -1;
    uint32_t minor = 0;

    if (p->gk5 != NULL) {
        gk5_buffer gin = {f->len[0], f->buf[0]}, gout = {0, NULL};
        r->major = gk5_wrap(&minor, p->gk5, (int)f->w[1], GK5_QOP_DEFAULT, &gin,
                            &conf, &gout);
        if (r->major == GK5_S_COMPLETE) {
            keep_bytes(r, keep, gout.value, gout.length);
        } else {
            gk5_words(r, "gk5_wrap", r->major, minor);
        }
        gk5_buffer_release(&gout);
    } else {
        OM_uint32 mminor = 0;
        r->major = gss_wrap(&mminor, p->mit, (int)f->w[1], GSS_C_QOP_DEFAULT,
                            &in, &conf, &out);
        minor = mminor;
        if (r->major == GSS_S_COMPLETE) {
            keep_bytes(r, keep, out.value, out.length);
        } else {
            mit_words(r, "gss_wrap", r->major, mminor);
        }
        (void)gss_release_buffer(&mminor, &out);
    }
    r->minor = minor;
    r->out = (uint32_t)conf;
}

static void op_unwrap(struct peer *p, const struct wire_frame *f,
                      struct reply *r, uint8_t **keep)
{
    int conf = -1;
    uint32_t minor = 0;

    if (p->gk5 != NULL) {
        gk5_buffer in = {f->len[0], f->buf[0]}, out = {0, NULL};
        uint32_t qop = 0;
        r->major = gk5_unwrap(&minor, p->gk5, &in, &out, &conf, &qop);
        r->leaked = GK5_ERROR(r->major) && (out.value != NULL || out.length);
        if (!GK5_ERROR(r->major)) {
            keep_bytes(r, keep, out.value, out.length);
        } else {
            gk5_words(r, "gk5_unwrap", r->major, minor);
        }
        gk5_buffer_release(&out);
    } else {
        gss_buffer_desc in = {f->len[0], f->buf[0]}, out = GSS_C_EMPTY_BUFFER;
        OM_uint32 mminor = 0;
        r->major = gss_unwrap(&mminor, p->mit, &in, &out, &conf, NULL);
        r->leaked = GSS_ERROR(r->major) && (out.value != NULL || out.length);
        minor = mminor;
        if (!GSS_ERROR(r->major) && out.value != NULL) {
            keep_bytes(r, keep, out.value, out.length);
        } else if (GSS_ERROR(r->major)) {
            mit_words(r, "gss_unwrap", r->major, mminor);
        }
        (void)gss_release_buffer(&mminor, &out);
    }
    r->minor = minor;
    r->out = (uint32_t)conf;
}

static void op_get_mic(struct peer *p, const struct wire_frame *f,
                       struct reply *r, uint8_t **keep)
{
    uint32_t minor = 0;

    if (p->gk5 != NULL) {
        gk5_buffer in = {f->len[0], f->buf[0]}, out = {0, NULL};
        r->major = gk5_get_mic(&minor, p->gk5, GK5_QOP_DEFAULT, &in, &out);
        if (r->major == GK5_S_COMPLETE) {
            keep_bytes(r, keep, out.value, out.length);
        } else {
            gk5_words(r, "gk5_get_mic", r->major, minor);
        }
        gk5_buffer_release(&out);
    } else {
        gss_buffer_desc in = {f->len[0], f->buf[0]}, out = GSS_C_EMPTY_BUFFER;
        OM_uint32 mminor = 0;
        r->major = gss_get_mic(&mminor, p->mit, GSS_C_QOP_DEFAULT, &in, &out);
        minor = mminor;
        if (r->major == GSS_S_COMPLETE) {
            keep_bytes(r, keep, out.value, out.length);
        } else {
            mit_words(r, "gss_get_mic", r->major, mminor);
        }
        (void)gss_release_buffer(&mminor, &out);
    }
    r->minor = minor;
}

static void op_verify_mic(struct peer *p, const struct wire_frame *f,
                          struct reply *r)
{
    uint32_t minor = 0;

    if (p->gk5 != NULL) {
        gk5_buffer m = {f->len[0], f->buf[0]}, t = {f->len[1], f->buf[1]};
        uint32_t qop = 0;
        r->major = gk5_verify_mic(&minor, p->gk5, &m, &t, &qop);
        if (GK5_ERROR(r->major)) {
            gk5_words(r, "gk5_verify_mic", r->major, minor);
        }
    } else {
        gss_buffer_desc m = {f->len[0], f->buf[0]}, t = {f->len[1], f->buf[1]};
        OM_uint32 mminor = 0;
        r->major = gss_verify_mic(&mminor, p->mit, &m, &t, NULL);
        minor = mminor;
        if (GSS_ERROR(r->major)) {
            mit_words(r, "gss_verify_mic", r->major, mminor);
        }
    }
    r->minor = minor;
}

/* HEADER, DATA and PADDING, no TRAILER (gk5_iov_buffer and
 * gss_iov_buffer_desc have the same layout and type numbers). */
static void op_wrap_iov(struct peer *p, const struct wire_frame *f,
                        struct reply *r, uint8_t **keep)
{
    gss_iov_buffer_desc iov[3];
    uint8_t *data = malloc(f->len[0] > 0 ? f->len[0] : 1);
    uint32_t minor = 0;
    int conf = -1;

    if (data == NULL) {
        r->major = GSS_S_FAILURE;
        return;
    }
    if (f->len[0] > 0) {
        memcpy(data, f->buf[0], f->len[0]);
    }
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[0].buffer.length = 0;
    iov[0].buffer.value = NULL;
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = f->len[0];
    iov[1].buffer.value = data;
    iov[2].type = GSS_IOV_BUFFER_TYPE_PADDING | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[2].buffer.length = 0;
    iov[2].buffer.value = NULL;
    if (p->gk5 != NULL) {
        gk5_iov_buffer *g = (gk5_iov_buffer *)(void *)iov;
        r->major = gk5_wrap_iov(&minor, p->gk5, (int)f->w[1], GK5_QOP_DEFAULT,
                                &conf, g, 3);
        if (r->major != GK5_S_COMPLETE) {
            gk5_words(r, "gk5_wrap_iov", r->major, minor);
        }
    } else {
        OM_uint32 mminor = 0;
        r->major = gss_wrap_iov(&mminor, p->mit, (int)f->w[1],
                                GSS_C_QOP_DEFAULT, &conf, iov, 3);
        minor = mminor;
        if (r->major != GSS_S_COMPLETE) {
            mit_words(r, "gss_wrap_iov", r->major, mminor);
        }
    }
    if (r->major == GSS_S_COMPLETE) {
        size_t h = iov[0].buffer.length, d = iov[1].buffer.length;
        size_t pad = iov[2].buffer.length;
        uint8_t *tok = malloc(h + d + pad + 1);
        if (tok == NULL) {
            r->major = GSS_S_FAILURE;
        } else {
            memcpy(tok, iov[0].buffer.value, h);
            memcpy(tok + h, data, d);
            if (pad > 0) {
                memcpy(tok + h + d, iov[2].buffer.value, pad);
            }
            *keep = tok;
            r->a = tok;
            r->a_len = h + d + pad;
            r->out = (uint32_t)h;
        }
    }
    if (p->gk5 != NULL) {
        gk5_release_iov((gk5_iov_buffer *)(void *)iov, 3);
    } else {
        OM_uint32 mminor = 0;
        (void)gss_release_iov_buffer(&mminor, iov, 3);
    }
    r->minor = minor;
    free(data);
}

static void op_unwrap_iov(struct peer *p, const struct wire_frame *f,
                          struct reply *r, uint8_t **keep)
{
    gss_iov_buffer_desc iov[2];
    size_t h = f->w[1];
    uint32_t minor = 0;
    int conf = -1;

    if (h > f->len[0]) {
        r->major = GSS_S_DEFECTIVE_TOKEN;
        snprintf(r->words, sizeof(r->words), "header longer than the token");
        return;
    }
    /* In place, in the request's own buffer. */
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER;
    iov[0].buffer.length = h;
    iov[0].buffer.value = f->buf[0];
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = f->len[0] - h;
    iov[1].buffer.value = f->buf[0] + h;
    if (p->gk5 != NULL) {
        uint32_t qop = 0;
        r->major = gk5_unwrap_iov(&minor, p->gk5, &conf, &qop,
                                  (gk5_iov_buffer *)(void *)iov, 2);
        if (GK5_ERROR(r->major)) {
            gk5_words(r, "gk5_unwrap_iov", r->major, minor);
        }
    } else {
        OM_uint32 mminor = 0;
        r->major = gss_unwrap_iov(&mminor, p->mit, &conf, NULL, iov, 2);
        minor = mminor;
        if (GSS_ERROR(r->major)) {
            mit_words(r, "gss_unwrap_iov", r->major, mminor);
        }
    }
    if (!GSS_ERROR(r->major)) {
        keep_bytes(r, keep, iov[1].buffer.value, iov[1].buffer.length);
    }
    r->minor = minor;
    r->out = (uint32_t)conf;
}

int main(void)
{
    struct peer p = {GSS_C_NO_CREDENTIAL, GSS_C_NO_CONTEXT, NULL};
    int ret = 1;

    /* Never outlive the driver. */
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (acquire_cred(&p) != 0) {
        return 1;
    }
    for (;;) {
        struct wire_frame f;
        struct reply r;
        struct wire_info info;
        gss_buffer_desc accept_out = GSS_C_EMPTY_BUFFER;
        uint8_t *keep = NULL;
        OM_uint32 minor = 0;

        if (wire_recv(0, &f) != 0) {
            break; /* the driver closed the pipe */
        }
        memset(&r, 0, sizeof(r));
        switch (f.w[0]) {
        case WIRE_ACCEPT:
            op_accept(&p, &f, &r, &accept_out);
            break;
        case WIRE_INFO:
            op_info(&p, 0, false, &r, &info);
            break;
        case WIRE_EXPORT:
            op_info(&p, f.w[1], true, &r, &info);
            break;
        case WIRE_WRAP:
            op_wrap(&p, &f, &r, &keep);
            break;
        case WIRE_UNWRAP:
            op_unwrap(&p, &f, &r, &keep);
            break;
        case WIRE_GET_MIC:
            op_get_mic(&p, &f, &r, &keep);
            break;
        case WIRE_VERIFY_MIC:
            op_verify_mic(&p, &f, &r);
            break;
        case WIRE_WRAP_IOV:
            op_wrap_iov(&p, &f, &r, &keep);
            break;
        case WIRE_UNWRAP_IOV:
            op_unwrap_iov(&p, &f, &r, &keep);
            break;
        case WIRE_QUIT:
            wire_frame_free(&f);
            ret = 0;
            goto done;
        default:
            r.major = GSS_S_FAILURE;
            snprintf(r.words, sizeof(r.words), "mit_peer: unknown op %u",
                     (unsigned)f.w[0]);
            break;
        }
        uint32_t w[4] = {r.major, r.minor, r.out, r.leaked};
        int sent = wire_send(1, w, r.a, r.a_len, r.words, strlen(r.words));
        free(keep);
        (void)gss_release_buffer(&minor, &accept_out);
        wire_frame_free(&f);
        if (sent != 0) {
            break;
        }
    }

done:
    drop_context(&p);
    {
        OM_uint32 minor = 0;
        (void)gss_release_cred(&minor, &p.cred);
    }
    return ret;
}
