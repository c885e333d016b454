/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A natively accepted context exported as a token, and imported back.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/util.h"
#include "interposer/interposer.h"

/* "gk5N", version 1, the krb5 OID's index, the flags (u32be), the end
 * time (u64be), the initiator's and the acceptor's names (u16be length
 * and bytes each), then gk5_ctx_export's buffer.  MIT's own krb5 export
 * begins with its context magic, never with these bytes. */
static const uint8_t native_magic[4] = {'g', 'k', '5', 'N'};
#define NATIVE_VERSION 1
#define NATIVE_NAME_MAX 4096

static int mech_index_of(gss_OID mech)
{
    for (int i = 0; i < GKI_N_MECHS; i++) {
        if (mech == &gki_mechs[i]) {
            return i;
        }
    }
    return 0;
}

OM_uint32 gki_native_export(OM_uint32 *minor, const gki_ctx *c,
                            gss_buffer_t token)
{
    gk5_buffer inner = {0, NULL};
    size_t ilen = strlen(c->initiator), alen = strlen(c->acceptor), len;
    struct gk5i_wr w;
    uint32_t major, m = 0;
    uint8_t *p;

    if (ilen > NATIVE_NAME_MAX || alen > NATIVE_NAME_MAX) {
        *minor = gki_minor(GK5_ERR_INVALID_ARGUMENT);
        return GSS_S_FAILURE;
    }
    major = gk5_ctx_export(&m, c->gk5, &inner);
    if (GK5_ERROR(major) != 0) {
        *minor = gki_minor(m);
        return major;
    }
    len = 4 + 1 + 1 + 4 + 8 + 2 + ilen + 2 + alen + inner.length;
    p = malloc(len);
    if (p == NULL) {
        zap(inner.value, inner.length);
        gk5_buffer_release(&inner);
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    gk5i_wr_init(&w, p, len);
    gk5i_put_bytes(&w, native_magic, sizeof(native_magic));
    gk5i_put_u8(&w, NATIVE_VERSION);
    gk5i_put_u8(&w, (uint8_t)mech_index_of(c->mech));
    gk5i_put_u32be(&w, c->flags);
    gk5i_put_u64be(&w, (uint64_t)c->endtime);
    gk5i_put_u16be(&w, (uint16_t)ilen);
    gk5i_put_bytes(&w, c->initiator, ilen);
    gk5i_put_u16be(&w, (uint16_t)alen);
    gk5i_put_bytes(&w, c->acceptor, alen);
    gk5i_put_bytes(&w, inner.value, inner.length);
    zap(inner.value, inner.length);
    gk5_buffer_release(&inner);
    token->length = len;
    token->value = p;
    return GSS_S_COMPLETE;
}

/* A length-prefixed name of the export, NUL-terminated; NULL if malformed
 * or out of memory (*nomem then set). */
static char *read_name(struct gk5i_rd *r, int *nomem)
{
    uint16_t n = gk5i_get_u16be(r);
    const uint8_t *at = gk5i_get_bytes(r, n);
    char *s;

    if (at == NULL || n == 0 || memchr(at, '\0', n) != NULL) {
        return NULL;
    }
    s = malloc((size_t)n + 1);
    if (s == NULL) {
        *nomem = 1;
        return NULL;
    }
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

OM_uint32 gki_native_import(OM_uint32 *minor, gss_buffer_t token, gki_ctx *c)
{
    struct gk5i_rd r;
    const uint8_t *magic;
    uint8_t version, mech;
    uint32_t major, m = 0;
    int nomem = 0;

    gk5i_rd_init(&r, token->value, token->length);
    magic = gk5i_get_bytes(&r, sizeof(native_magic));
    /* The format's public magic, not a secret. */
    if (magic == NULL || memcmp(magic, native_magic, sizeof(native_magic))) {
        return GKI_TO_MIT;
    }
    version = gk5i_get_u8(&r);
    mech = gk5i_get_u8(&r);
    c->flags = gk5i_get_u32be(&r);
    c->endtime = (int64_t)gk5i_get_u64be(&r);
    c->initiator = read_name(&r, &nomem);
    c->acceptor = c->initiator != NULL ? read_name(&r, &nomem) : NULL;
    if (nomem) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    if (r.bad || version != NATIVE_VERSION || mech >= GKI_N_MECHS ||
        c->acceptor == NULL) {
        *minor =
            gki_minor(version != NATIVE_VERSION ? GK5_ERR_IMPORT_VERSION
                                                : GK5_ERR_IMPORT_TRUNCATED);
        return GSS_S_DEFECTIVE_TOKEN;
    }
    major = gk5_ctx_import(&m, r.p, r.left, &c->gk5);
    if (GK5_ERROR(major) != 0) {
        *minor = gki_minor(m);
        return major;
    }
    c->mech = &gki_mechs[mech];
    c->native = 1;
    c->open = 1;
    gki_trace("gk5_mech: context %p imported natively: %s for %s", (void *)c,
              c->initiator, c->acceptor);
    return GSS_S_COMPLETE;
}
