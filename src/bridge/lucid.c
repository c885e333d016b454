/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The bridge from an established MIT krb5 GSS-API context to gk5: MIT's
 * lucid export (version 1), gk5's lucid import, and the rpc.gssd buffer
 * for the kernel made from the same export.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/crypto.h>

#include "bridge/lucid.h"
#include "common/util.h"

struct gk5_mit_lucid {
    gss_krb5_lucid_context_v1_t *mit; /* MIT's, freed by MIT */
    gk5_lucid_ctx fields;             /* the same, in gk5's terms */
};

static void status_ok(gk5_mit_status *st)
{
    st->major = GK5_S_COMPLETE;
    st->minor = 0;
    st->from_mit = 0;
    st->call = NULL;
}

static uint32_t status_mit(gk5_mit_status *st, const char *call,
                           OM_uint32 major, OM_uint32 minor)
{
    st->major = major;
    st->minor = minor;
    st->from_mit = 1;
    st->call = call;
    return major;
}

/* The major status of the few gk5 error codes the bridge itself raises
 * (libgk5_mit sees only libgk5's public API; status.c maps the same way). */
static uint32_t bridge_major(uint32_t err)
{
    switch (GK5_ERR_CODE(err)) {
    case GK5_OK:
        return GK5_S_COMPLETE;
    case GK5_ERR_CTX_NO_CONTEXT:
        return GK5_S_NO_CONTEXT;
    case GK5_ERR_IMPORT_VERSION:
        return GK5_S_DEFECTIVE_TOKEN;
    case GK5_ERR_ENCTYPE_UNKNOWN:
    case GK5_ERR_ENCTYPE_REJECTED:
    case GK5_ERR_ENCTYPE_NOT_BUILT:
        return GK5_S_UNAVAILABLE;
    default:
        return GK5_S_FAILURE;
    }
}

/* A gk5 error code raised by the bridge. */
static uint32_t status_gk5(gk5_mit_status *st, const char *call, uint32_t err)
{
    st->minor = err;
    st->major = bridge_major(err);
    st->from_mit = 0;
    st->call = call;
    return st->major;
}

/* Append MIT's words for one status value of one type. */
static void append_mit_words(char *buf, size_t buf_len, OM_uint32 code,
                             int type)
{
    OM_uint32 msg_ctx = 0;

    do {
        OM_uint32 minor = 0;
        gss_buffer_desc words = GSS_C_EMPTY_BUFFER;
        OM_uint32 major = gss_display_status(
            &minor, code, type, (gss_OID)gss_mech_krb5, &msg_ctx, &words);
        if (GSS_ERROR(major)) {
            break;
        }
        size_t used = strlen(buf);
        if (used + 3 < buf_len) {
            snprintf(buf + used, buf_len - used, "%s%.*s", used > 0 ? ": " : "",
                     (int)words.length, (const char *)words.value);
        }
        gss_release_buffer(&minor, &words);
    } while (msg_ctx != 0);
}

const char *gk5_mit_status_text(const gk5_mit_status *st, char *buf,
                                size_t buf_len)
{
    if (buf == NULL || buf_len == 0) {
        return "";
    }
    buf[0] = '\0';
    if (st == NULL) {
        return buf;
    }
    if (st->call != NULL) {
        snprintf(buf, buf_len, "%s", st->call);
    }
    if (!st->from_mit) {
        size_t used = strlen(buf);
        snprintf(buf + used, buf_len - used, "%s%s", used > 0 ? ": " : "",
                 gk5_display_status(st->major, st->minor));
        return buf;
    }
    append_mit_words(buf, buf_len, st->major, GSS_C_GSS_CODE);
    if (st->minor != 0) {
        append_mit_words(buf, buf_len, st->minor, GSS_C_MECH_CODE);
    }
    return buf;
}

static void copy_key(gk5_lucid_key *dst, const gss_krb5_lucid_key_t *src)
{
    dst->type = src->type;
    dst->length = src->length;
    dst->data = src->data;
}

/* Hold MIT's version 1 lucid context (ownership passes to the result) and
 * its fields in gk5's terms. */
static uint32_t lucid_adopt(gk5_mit_status *st, void *exported,
                            gk5_mit_lucid **out)
{
    gk5_mit_lucid *lucid = NULL;
    OM_uint32 minor = 0;
    uint32_t ret;

    if (((gss_krb5_lucid_context_version_t *)exported)->version != 1) {
        ret = status_gk5(st, "gk5_mit_export_lucid", GK5_ERR_IMPORT_VERSION);
        goto cleanup;
    }
    lucid = calloc(1, sizeof(*lucid));
    if (lucid == NULL) {
        ret = status_gk5(st, "gk5_mit_export_lucid", GK5_ERR_NOMEM);
        goto cleanup;
    }
    lucid->mit = exported;
    exported = NULL;

    const gss_krb5_lucid_context_v1_t *v1 = lucid->mit;
    gk5_lucid_ctx *f = &lucid->fields;
    f->version = v1->version;
    f->initiate = v1->initiate;
    f->endtime = v1->endtime;
    f->send_seq = v1->send_seq;
    f->recv_seq = v1->recv_seq;
    f->protocol = v1->protocol;
    f->rfc1964_kd.sign_alg = v1->rfc1964_kd.sign_alg;
    f->rfc1964_kd.seal_alg = v1->rfc1964_kd.seal_alg;
    copy_key(&f->rfc1964_kd.ctx_key, &v1->rfc1964_kd.ctx_key);
    f->cfx_kd.have_acceptor_subkey = v1->cfx_kd.have_acceptor_subkey;
    copy_key(&f->cfx_kd.ctx_key, &v1->cfx_kd.ctx_key);
    copy_key(&f->cfx_kd.acceptor_subkey, &v1->cfx_kd.acceptor_subkey);

    *out = lucid;
    ret = GK5_S_COMPLETE;

cleanup:
    if (exported != NULL) {
        (void)gss_krb5_free_lucid_sec_context(&minor, exported);
    }
    return ret;
}

uint32_t gk5_mit_export_lucid(gk5_mit_status *st, gss_ctx_id_t *mit_ctx,
                              gk5_mit_lucid **out)
{
    void *exported = NULL;
    OM_uint32 major, minor = 0;

    status_ok(st);
    *out = NULL;
    if (mit_ctx == NULL || *mit_ctx == GSS_C_NO_CONTEXT) {
        return status_gk5(st, "gk5_mit_export_lucid", GK5_ERR_CTX_NO_CONTEXT);
    }
    major = gss_krb5_export_lucid_sec_context(&minor, mit_ctx, 1, &exported);
    if (GSS_ERROR(major)) {
        return status_mit(st, "gss_krb5_export_lucid_sec_context", major,
                          minor);
    }
    return lucid_adopt(st, exported, out);
}

/* GSS_KRB5_EXPORT_LUCID_SEC_CONTEXT_OID (1.2.840.113554.1.2.2.5.6) with
 * the version (1) appended: what gss_krb5_export_lucid_sec_context asks
 * of the krb5 mechanism before it deletes the context. */
static gss_OID_desc lucid_v1_oid = {
    12, (void *)"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02\x05\x06\x01"};

uint32_t gk5_mit_inquire_lucid(gk5_mit_status *st, gss_ctx_id_t mit_ctx,
                               gk5_mit_lucid **out)
{
    gss_buffer_set_t set = GSS_C_NO_BUFFER_SET;
    void *exported = NULL;
    OM_uint32 major, minor = 0;

    status_ok(st);
    *out = NULL;
    if (mit_ctx == GSS_C_NO_CONTEXT) {
        return status_gk5(st, "gk5_mit_inquire_lucid", GK5_ERR_CTX_NO_CONTEXT);
    }
    major =
        gss_inquire_sec_context_by_oid(&minor, mit_ctx, &lucid_v1_oid, &set);
    if (GSS_ERROR(major)) {
        return status_mit(st, "gss_inquire_sec_context_by_oid (lucid)", major,
                          minor);
    }
    if (set == GSS_C_NO_BUFFER_SET || set->count != 1 ||
        set->elements[0].length != sizeof(void *)) {
        (void)gss_release_buffer_set(&minor, &set);
        return status_gk5(st, "gk5_mit_inquire_lucid", GK5_ERR_IMPORT_VERSION);
    }
    memcpy(&exported, set->elements[0].value, sizeof(void *));
    (void)gss_release_buffer_set(&minor, &set);
    return lucid_adopt(st, exported, out);
}

const gk5_lucid_ctx *gk5_mit_lucid_fields(const gk5_mit_lucid *lucid)
{
    return lucid != NULL ? &lucid->fields : NULL;
}

/* The key the tokens use, as rpc.gssd chooses it. */
static const gk5_lucid_key *token_key(const gk5_lucid_ctx *f)
{
    if (f->protocol == 0) {
        return &f->rfc1964_kd.ctx_key;
    }
    if (f->cfx_kd.have_acceptor_subkey == 1) {
        return &f->cfx_kd.acceptor_subkey;
    }
    return &f->cfx_kd.ctx_key;
}

int32_t gk5_mit_lucid_enctype(const gk5_mit_lucid *lucid)
{
    if (lucid == NULL) {
        return 0;
    }
    return (int32_t)token_key(&lucid->fields)->type;
}

void gk5_mit_lucid_free(gk5_mit_lucid *lucid)
{
    OM_uint32 minor = 0;

    if (lucid == NULL) {
        return;
    }
    if (lucid->mit != NULL) {
        /* MIT wipes the key data before freeing it. */
        (void)gss_krb5_free_lucid_sec_context(&minor, lucid->mit);
    }
    zap(lucid, sizeof(*lucid));
    free(lucid);
}

static uint8_t *put_bytes(uint8_t *p, const void *v, size_t n)
{
    memcpy(p, v, n);
    return p + n;
}

uint32_t gk5_mit_lucid_to_gssd(gk5_mit_status *st, const gk5_mit_lucid *lucid,
                               gk5_buffer *out)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    uint32_t ret;

    status_ok(st);
    out->length = 0;
    out->value = NULL;
    if (lucid == NULL) {
        ret = status_gk5(st, "gk5_mit_lucid_to_gssd", GK5_ERR_INVALID_ARGUMENT);
        goto cleanup;
    }
    const gk5_lucid_ctx *f = &lucid->fields;
    const gk5_lucid_key *key = token_key(f);

    if (f->protocol == 0 && key->type <= 4) {
        /* rpc.gssd's pre-2.6.33 layout, for single DES only. */
        uint32_t err = gk5_enctype_check((int32_t)key->type);
        if (err == 0) {
            err = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, key->type);
        }
        ret = status_gk5(st, "gk5_mit_lucid_to_gssd", err);
        goto cleanup;
    }

    uint32_t flags = 0;
    if (f->initiate) {
        flags |= GK5_GSSD_FLAG_INITIATOR;
    }
    if (f->protocol != 0) {
        flags |= GK5_GSSD_FLAG_CFX;
        if (f->cfx_kd.have_acceptor_subkey == 1) {
            flags |= GK5_GSSD_FLAG_ACCEPTOR_SUBKEY;
        }
    }
    uint32_t endtime = f->endtime;
    uint64_t send_seq = f->send_seq;
    uint32_t enctype = key->type;

    len = sizeof(flags) + sizeof(endtime) + sizeof(send_seq) + sizeof(enctype) +
          key->length;
    buf = malloc(len);
    if (buf == NULL) {
        ret = status_gk5(st, "gk5_mit_lucid_to_gssd", GK5_ERR_NOMEM);
        goto cleanup;
    }
    /* Host byte order, no padding: the kernel reads it on the same host. */
    uint8_t *p = buf;
    p = put_bytes(p, &flags, sizeof(flags));
    p = put_bytes(p, &endtime, sizeof(endtime));
    p = put_bytes(p, &send_seq, sizeof(send_seq));
    p = put_bytes(p, &enctype, sizeof(enctype));
    if (key->length > 0) {
        (void)put_bytes(p, key->data, key->length);
    }
    out->value = buf;
    out->length = len;
    buf = NULL;
    ret = GK5_S_COMPLETE;

cleanup:
    OPENSSL_clear_free(buf, len); /* NULL unless a step after it failed */
    return ret;
}

void gk5_mit_buffer_free(gk5_buffer *buf)
{
    if (buf == NULL) {
        return;
    }
    if (buf->value != NULL) {
        OPENSSL_clear_free(buf->value, buf->length);
    }
    buf->value = NULL;
    buf->length = 0;
}

const char *gk5_mit_path_name(enum gk5_mit_path path)
{
    return path == GK5_MIT_PATH_GSSD ? "gssd" : "lucid";
}

uint32_t gk5_mit_lucid_import(gk5_mit_status *st, const gk5_mit_lucid *lucid,
                              enum gk5_mit_path path, gk5_ctx **ctx)
{
    gk5_buffer gssd = {0, NULL};
    uint32_t ret;

    status_ok(st);
    *ctx = NULL;
    if (lucid == NULL) {
        ret = status_gk5(st, "gk5_mit_lucid_import", GK5_ERR_INVALID_ARGUMENT);
        goto cleanup;
    }
    if (path == GK5_MIT_PATH_LUCID) {
        st->call = "gk5_ctx_import_lucid";
        ret = gk5_ctx_import_lucid(&st->minor, &lucid->fields, ctx);
        st->major = ret;
        goto cleanup;
    }
    ret = gk5_mit_lucid_to_gssd(st, lucid, &gssd);
    if (GK5_ERROR(ret) != 0) {
        goto cleanup;
    }
    st->call = "gk5_ctx_import_gssd";
    ret = gk5_ctx_import_gssd(&st->minor, gssd.value, gssd.length, ctx);
    st->major = ret;

cleanup:
    gk5_mit_buffer_free(&gssd);
    return ret;
}

uint32_t gk5_mit_import_by_path(gk5_mit_status *st, gss_ctx_id_t *mit_ctx,
                                enum gk5_mit_path path, int32_t *enctype,
                                gk5_ctx **ctx)
{
    gk5_mit_lucid *lucid = NULL;
    uint32_t ret;

    *ctx = NULL;
    if (enctype != NULL) {
        *enctype = 0;
    }
    ret = gk5_mit_export_lucid(st, mit_ctx, &lucid);
    if (GK5_ERROR(ret) != 0) {
        goto cleanup;
    }
    if (enctype != NULL) {
        *enctype = gk5_mit_lucid_enctype(lucid);
    }
    ret = gk5_mit_lucid_import(st, lucid, path, ctx);

cleanup:
    gk5_mit_lucid_free(lucid);
    return ret;
}
