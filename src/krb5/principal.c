/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Principal names as people write them: "nfs/host@REALM" (RFC 1964 2.1.1,
 * MIT's krb5_parse_name syntax) and the GSS host-based "nfs@host"
 * (RFC 2743 4.1), and back.
 */
#include <stdlib.h>
#include <string.h>

#include "krb5_int.h"

/* The character a backslash escape stands for; 0 with *ok false for an
 * escape MIT does not write.  MIT's parser takes any other character
 * after a backslash as itself, and so does gk5. */
static uint8_t unescape(uint8_t c)
{
    switch (c) {
    case 'n':
        return '\n';
    case 't':
        return '\t';
    case 'b':
        return '\b';
    case '0':
        return '\0';
    default:
        return c;
    }
}

uint32_t gk5i_name_parse(const char *s, bool gss_hostbased,
                         struct gk5i_name *out)
{
    size_t len, o = 0, start = 0;
    bool in_realm = false;
    uint8_t *buf = NULL;
    uint32_t err = GK5_ERR_INVALID_ARGUMENT;
    struct gk5i_name n;

    memset(out, 0, sizeof(*out));
    memset(&n, 0, sizeof(n));
    if (s == NULL || (len = strlen(s)) == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    buf = gk5i_zalloc(len);
    if (buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    n.any_realm = true;
    /* Unescape into buf; '/' ends a component, the first unescaped '@'
     * starts the realm (the host, for a host-based name). */
    for (size_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)s[i];
        bool sep_comp = !in_realm && c == '/' && !gss_hostbased;
        bool sep_realm = !in_realm && c == '@';

        if (c == '\\') {
            if (++i == len) {
                goto cleanup; /* a trailing backslash */
            }
            buf[o++] = unescape((uint8_t)s[i]);
            continue;
        }
        if (sep_comp || sep_realm) {
            if (o == start || n.ncomp == GK5I_KRB_MAX_COMPONENTS) {
                goto cleanup;
            }
            n.comp[n.ncomp].p = buf + start;
            n.comp[n.ncomp++].len = o - start;
            start = o;
            in_realm = sep_realm;
            continue;
        }
        buf[o++] = c;
    }
    if (o == start) {
        goto cleanup; /* an empty last component or realm */
    }
    if (in_realm && gss_hostbased) {
        /* "service@host": the host is the second component. */
        if (n.ncomp == GK5I_KRB_MAX_COMPONENTS) {
            goto cleanup;
        }
        n.comp[n.ncomp].p = buf + start;
        n.comp[n.ncomp++].len = o - start;
    } else if (in_realm) {
        n.any_realm = false;
        n.realm.p = buf + start;
        n.realm.len = o - start;
    } else {
        if (n.ncomp == GK5I_KRB_MAX_COMPONENTS) {
            goto cleanup;
        }
        n.comp[n.ncomp].p = buf + start;
        n.comp[n.ncomp++].len = o - start;
    }
    n.buf = buf;
    buf = NULL;
    *out = n;
    err = GK5_OK;
cleanup:
    gk5i_free(buf);
    return err;
}

void gk5i_name_free(struct gk5i_name *n)
{
    if (n == NULL) {
        return;
    }
    gk5i_free(n->buf);
    zap(n, sizeof(*n));
}

bool gk5i_name_matches(const struct gk5i_name *n, struct gk5i_view realm,
                       const struct gk5i_krb_principal *p)
{
    if (n->ncomp != p->ncomp) {
        return false;
    }
    if (!n->any_realm && !gk5i_view_equal(n->realm, realm)) {
        return false;
    }
    for (uint32_t i = 0; i < n->ncomp; i++) {
        if (!gk5i_view_equal(n->comp[i], p->comp[i])) {
            return false;
        }
    }
    return true;
}

bool gk5i_principal_equal(struct gk5i_view ra,
                          const struct gk5i_krb_principal *a,
                          struct gk5i_view rb,
                          const struct gk5i_krb_principal *b)
{
    if (a->ncomp != b->ncomp || !gk5i_view_equal(ra, rb)) {
        return false;
    }
    for (uint32_t i = 0; i < a->ncomp; i++) {
        if (!gk5i_view_equal(a->comp[i], b->comp[i])) {
            return false;
        }
    }
    return true;
}

size_t gk5i_principal_bytes(const struct gk5i_krb_principal *p)
{
    size_t n = 0;
    for (uint32_t i = 0; i < p->ncomp && i < GK5I_KRB_MAX_COMPONENTS; i++) {
        n += p->comp[i].len;
    }
    return n;
}

/* The escape for c inside a name, or 0 when c stands as itself. */
static char escape_of(uint8_t c, bool realm)
{
    switch (c) {
    case '/':
        return realm ? 0 : '/';
    case '@':
    case '\\':
        return (char)c;
    case '\n':
        return 'n';
    case '\t':
        return 't';
    case '\b':
        return 'b';
    case '\0':
        return '0';
    default:
        return 0;
    }
}

/* Writes v escaped at out (when not NULL); returns the bytes it takes. */
static size_t put_escaped(char *out, struct gk5i_view v, bool realm)
{
    size_t o = 0;

    for (size_t i = 0; i < v.len; i++) {
        char e = escape_of(v.p[i], realm);

        if (e != 0) {
            if (out != NULL) {
                out[o] = '\\';
                out[o + 1] = e;
            }
            o += 2;
        } else {
            if (out != NULL) {
                out[o] = (char)v.p[i];
            }
            o++;
        }
    }
    return o;
}

uint32_t gk5i_principal_unparse(struct gk5i_view realm,
                                const struct gk5i_krb_principal *p, char **out)
{
    size_t len = 0;
    char *s;

    *out = NULL;
    /* One walk measures (s NULL), the same walk writes. */
    for (int pass = 0; pass < 2; pass++) {
        size_t o = 0;

        s = pass == 0 ? NULL : malloc(len + 1);
        if (pass == 1 && s == NULL) {
            return GK5_ERR_NOMEM;
        }
        for (uint32_t i = 0; i < p->ncomp; i++) {
            if (i > 0) {
                if (s != NULL) {
                    s[o] = '/';
                }
                o++;
            }
            o += put_escaped(s != NULL ? s + o : NULL, p->comp[i], false);
        }
        if (s != NULL) {
            s[o] = '@';
        }
        o++;
        o += put_escaped(s != NULL ? s + o : NULL, realm, true);
        len = o;
    }
    s[len] = '\0';
    *out = s;
    return GK5_OK;
}
