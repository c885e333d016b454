/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * MIT's FILE credential cache (krb5/krb5 doc/formats/ccache_file_format.rst):
 *
 *   file       ::= 0x05 version(8) [header] principal { credential }
 *   header     ::= length(16) { tag(16) length(16) value }   (version 4)
 *   principal  ::= name-type(32) count(32) realm:data { component:data }
 *   credential ::= client:principal server:principal keyblock
 *                  authtime(32) starttime(32) endtime(32) renew-till(32)
 *                  is-skey(8) ticket-flags(32) addresses authdata
 *                  ticket:data second-ticket:data
 *   keyblock   ::= enctype(16) [enctype(16): version 3 only] key:data
 *   addresses  ::= count(32) { addrtype(16) address:data }
 *   authdata   ::= count(32) { ad-type(16) contents:data }
 *   data       ::= length(32) bytes
 *
 * Versions 3 and 4 write every integer big-endian.  Versions 1 and 2 (the
 * writer's byte order, the realm counted among the components, no name
 * type) are MIT's from before 1995 and no MIT program has written them
 * since: refused.  The credentials run to the end of the file; there is no
 * count and no end marker, so a file cut between two credentials cannot be
 * told from a whole one (MIT reads it the same way).
 *
 * A cache is parsed in two walks over one copy of the file: the first
 * checks the whole structure and counts the credentials, the second fills
 * the array, so a malformed file is refused before any key is copied and
 * the memory is allocated once.  Everything a credential points at lies
 * inside that copy.
 *
 * Files, their locks and cache names are ccache_file.c's: this file sees
 * only bytes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "krb5_int.h"
#include "../common/bytes.h"
#include "../common/trace.h"

#define CC_VNO_3 0x0503
#define CC_VNO_4 0x0504

/* The format doc, "Header format": the only tag defined, the KDC's time
 * offset, 8 bytes of seconds and microseconds. */
#define CC_TAG_KDC_OFFSET 1
#define CC_TAG_KDC_OFFSET_LEN 8

/* The format doc, "Credential cache configuration entries". */
static const struct gk5i_view conf_realm = {(const uint8_t *)"X-CACHECONF:",
                                            12};

/* ---- parsing ---- */

static void fail(struct gk5i_rd *r)
{
    r->bad = true;
}

/* A counted octet string: 32-bit length, then the bytes. */
static struct gk5i_view get_data(struct gk5i_rd *r)
{
    struct gk5i_view v;
    uint32_t len = gk5i_get_u32be(r);

    v.p = gk5i_get_bytes(r, len);
    v.len = r->bad ? 0 : len;
    return v;
}

static void get_principal(struct gk5i_rd *r, struct gk5i_view *realm,
                          struct gk5i_krb_principal *p)
{
    uint32_t count, i;

    memset(p, 0, sizeof(*p));
    p->name_type = (int32_t)gk5i_get_u32be(r);
    count = gk5i_get_u32be(r);
    if (count > GK5I_KRB_MAX_COMPONENTS) {
        /* No ticket gk5 decodes can name such a principal (the DER
         * decoder takes no more), and MIT writes none. */
        fail(r);
        return;
    }
    *realm = get_data(r);
    p->ncomp = count;
    for (i = 0; i < count; i++) {
        p->comp[i] = get_data(r);
    }
}

/* addresses or authdata: a count, then that many (16-bit type, data);
 * the view covers the count too, so the list is written back as read. */
static struct gk5i_view get_list(struct gk5i_rd *r)
{
    struct gk5i_view v = {r->p, 0};
    uint32_t count = gk5i_get_u32be(r), i;

    /* Each element takes 6 bytes at least: a count past what is left
     * ends the loop at the first read past the end. */
    for (i = 0; i < count && !r->bad; i++) {
        (void)gk5i_get_u16be(r);
        (void)get_data(r);
    }
    if (r->bad) {
        v.p = NULL;
        return v;
    }
    v.len = (size_t)(r->p - v.p);
    return v;
}

/* One credential into *c (its key as a view, *key: copied by the caller
 * once the whole file is known good). */
static void get_cred(struct gk5i_rd *r, uint16_t vno, struct gk5i_cc_cred *c,
                     struct gk5i_view *key)
{
    uint8_t skey;

    memset(c, 0, sizeof(*c));
    get_principal(r, &c->client_realm, &c->client);
    get_principal(r, &c->server_realm, &c->server);
    /* Enctypes are signed (MIT's negative ones for local use): sign-
     * extended from 16 bits, as MIT reads them. */
    c->keytype = (int16_t)gk5i_get_u16be(r);
    if (vno == CC_VNO_3 && (int16_t)gk5i_get_u16be(r) != c->keytype) {
        /* Version 3 writes the enctype twice; every writer writes the
         * same number both times. */
        fail(r);
    }
    *key = get_data(r);
    if (key->len > GK5_MAX_KEY_BYTES) {
        fail(r);
    }
    c->authtime = gk5i_get_u32be(r);
    c->starttime = gk5i_get_u32be(r);
    c->endtime = gk5i_get_u32be(r);
    c->renew_till = gk5i_get_u32be(r);
    skey = gk5i_get_u8(r);
    if (skey > 1) {
        fail(r);
    }
    c->is_skey = skey == 1;
    c->flags = gk5i_get_u32be(r);
    c->addrs = get_list(r);
    c->authdata = get_list(r);
    c->ticket = get_data(r);
    c->second_ticket = get_data(r);
    c->config = gk5i_view_equal(c->server_realm, conf_realm);
}

/* The version and, in version 4, the header; r past them. */
static void get_head(struct gk5i_rd *r, struct gk5i_ccache *cc)
{
    struct gk5i_rd h;
    const uint8_t *hp;
    uint16_t hlen;

    cc->version = gk5i_get_u16be(r);
    if (cc->version != CC_VNO_3 && cc->version != CC_VNO_4) {
        fail(r);
        return;
    }
    if (cc->version == CC_VNO_3) {
        return;
    }
    hlen = gk5i_get_u16be(r);
    hp = gk5i_get_bytes(r, hlen);
    if (r->bad) {
        return;
    }
    gk5i_rd_init(&h, hp, hlen);
    while (gk5i_rd_left(&h) != 0) {
        uint16_t tag = gk5i_get_u16be(&h);
        uint16_t flen = gk5i_get_u16be(&h);
        const uint8_t *val = gk5i_get_bytes(&h, flen);

        if (h.bad) {
            break;
        }
        /* Other tags are to be ignored (the format doc); the one known
         * has one length, and comes once. */
        if (tag == CC_TAG_KDC_OFFSET) {
            if (flen != CC_TAG_KDC_OFFSET_LEN || cc->has_time_offset) {
                fail(&h);
                break;
            }
            cc->has_time_offset = true;
            cc->time_offset_sec = (int32_t)load_be32(val);
            cc->time_offset_usec = (int32_t)load_be32(val + 4);
        }
    }
    if (h.bad) {
        fail(r);
    }
}

/* One walk over cc->buf: the header and the principal into cc, then each
 * credential, counted into *n and, when creds is not NULL, stored there
 * with its key.  GK5_OK or GK5_ERR_CCACHE_FORMAT. */
static uint32_t walk(struct gk5i_ccache *cc, struct gk5i_cc_cred *creds,
                     size_t *n)
{
    struct gk5i_rd r;
    struct gk5i_cc_cred c;
    struct gk5i_view key;

    *n = 0;
    gk5i_rd_init(&r, cc->buf, cc->len);
    cc->has_time_offset = false;
    get_head(&r, cc);
    get_principal(&r, &cc->realm, &cc->principal);
    while (!r.bad && gk5i_rd_left(&r) != 0) {
        if (*n == GK5I_CCACHE_MAX_CREDS) {
            fail(&r);
            break;
        }
        get_cred(&r, cc->version, &c, &key);
        if (r.bad) {
            break;
        }
        if (creds != NULL) {
            creds[*n] = c;
            if (key.len != 0) {
                memcpy(creds[*n].key, key.p, key.len);
            }
            creds[*n].key_len = key.len;
        }
        *n += 1;
    }
    if (r.bad) {
        if (GK5_TRACE_ON()) {
            /* A failed read leaves p where it began. */
            size_t at = r.p != NULL ? (size_t)(r.p - cc->buf) : 0;

            gk5i_trace("ccache: malformed or cut short at byte %zu of %zu "
                       "(credential %zu)",
                       at, cc->len, *n);
        }
        return GK5_ERR_CCACHE_FORMAT;
    }
    return GK5_OK;
}

uint32_t gk5i_ccache_take(uint8_t *buf, size_t len, struct gk5i_ccache **out)
{
    struct gk5i_ccache *cc = NULL;
    size_t n = 0;
    uint32_t ret;

    cc = gk5i_zalloc(sizeof(*cc));
    if (cc == NULL) {
        gk5i_clear_free(buf, len != 0 ? len : 1);
        return GK5_ERR_NOMEM;
    }
    cc->buf = buf;
    cc->len = len;
    ret = walk(cc, NULL, &n);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    /* n is at most GK5I_CCACHE_MAX_CREDS: no overflow. */
    cc->creds = gk5i_zalloc((n != 0 ? n : 1) * sizeof(*cc->creds));
    if (cc->creds == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    /* The same bytes walked again: the same answer. */
    ret = walk(cc, cc->creds, &cc->n);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    *out = cc;
    cc = NULL;

cleanup:
    gk5i_ccache_free(cc);
    return ret;
}

uint32_t gk5i_ccache_parse(const uint8_t *in, size_t len,
                           struct gk5i_ccache **out)
{
    uint8_t *buf;

    *out = NULL;
    if ((in == NULL && len != 0) || len > GK5I_CCACHE_MAX_BYTES) {
        return GK5_ERR_CCACHE_FORMAT;
    }
    buf = gk5i_zalloc(len != 0 ? len : 1);
    if (buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (len != 0) {
        memcpy(buf, in, len);
    }
    return gk5i_ccache_take(buf, len, out);
}

void gk5i_ccache_free(struct gk5i_ccache *cc)
{
    if (cc == NULL) {
        return;
    }
    /* The file's bytes hold the keys too. */
    gk5i_clear_free(cc->creds, (cc->n != 0 ? cc->n : 1) * sizeof(*cc->creds));
    gk5i_clear_free(cc->buf, cc->len != 0 ? cc->len : 1);
    gk5i_free(cc);
}

const struct gk5i_cc_cred *
gk5i_ccache_find(const struct gk5i_ccache *cc, struct gk5i_view realm,
                 const struct gk5i_krb_principal *server, int64_t now)
{
    return gk5i_ccache_find_keytype(cc, realm, server, now, NULL, 0);
}

const struct gk5i_cc_cred *
gk5i_ccache_find_keytype(const struct gk5i_ccache *cc, struct gk5i_view realm,
                         const struct gk5i_krb_principal *server, int64_t now,
                         const int32_t *keytypes, size_t n_keytypes)
{
    size_t i;

    if (cc == NULL || server == NULL) {
        return NULL;
    }
    for (i = cc->n; i-- > 0;) {
        const struct gk5i_cc_cred *c = &cc->creds[i];

        /* A user-to-user ticket (is_skey) is encrypted in another
         * ticket's session key: not one to present to the service. */
        if (c->config || c->is_skey || (int64_t)c->endtime <= now) {
            continue;
        }
        if (keytypes != NULL &&
            !gk5i_enctype_listed(keytypes, n_keytypes, c->keytype)) {
            continue;
        }
        if (gk5i_principal_equal(c->client_realm, &c->client, cc->realm,
                                 &cc->principal) &&
            gk5i_principal_equal(c->server_realm, &c->server, realm, server)) {
            return c;
        }
    }
    return NULL;
}

/* ---- serializing ---- */

/* The writer of the serializer: every put counted in need, and stored
 * when there is room (a first walk with no buffer only counts). */
struct ccw {
    struct gk5i_wr w;
    size_t need;
};

static void count(struct ccw *o, size_t n)
{
    o->need = n > SIZE_MAX - o->need ? SIZE_MAX : o->need + n;
}

static void put_u8(struct ccw *o, uint8_t v)
{
    count(o, 1);
    gk5i_put_u8(&o->w, v);
}

static void put_u16(struct ccw *o, uint16_t v)
{
    count(o, 2);
    gk5i_put_u16be(&o->w, v);
}

static void put_u32(struct ccw *o, uint32_t v)
{
    count(o, 4);
    gk5i_put_u32be(&o->w, v);
}

static void put_bytes(struct ccw *o, const void *p, size_t n)
{
    count(o, n);
    gk5i_put_bytes(&o->w, p, n);
}

static void put_data(struct ccw *o, struct gk5i_view v)
{
    put_u32(o, (uint32_t)v.len);
    put_bytes(o, v.p, v.len);
}

static void put_principal(struct ccw *o, struct gk5i_view realm,
                          const struct gk5i_krb_principal *p)
{
    uint32_t i;

    put_u32(o, (uint32_t)p->name_type);
    put_u32(o, p->ncomp);
    put_data(o, realm);
    for (i = 0; i < p->ncomp; i++) {
        put_data(o, p->comp[i]);
    }
}

/* An addresses or authdata list as read (count included); none: count 0. */
static void put_list(struct ccw *o, struct gk5i_view v)
{
    if (v.len == 0) {
        put_u32(o, 0);
    } else {
        put_bytes(o, v.p, v.len);
    }
}

static void put_cred(struct ccw *o, uint16_t vno, const struct gk5i_cc_cred *c)
{
    put_principal(o, c->client_realm, &c->client);
    put_principal(o, c->server_realm, &c->server);
    put_u16(o, (uint16_t)c->keytype);
    if (vno == CC_VNO_3) {
        put_u16(o, (uint16_t)c->keytype);
    }
    put_u32(o, (uint32_t)c->key_len);
    put_bytes(o, c->key, c->key_len);
    put_u32(o, c->authtime);
    put_u32(o, c->starttime);
    put_u32(o, c->endtime);
    put_u32(o, c->renew_till);
    put_u8(o, c->is_skey ? 1 : 0);
    put_u32(o, c->flags);
    put_list(o, c->addrs);
    put_list(o, c->authdata);
    put_data(o, c->ticket);
    put_data(o, c->second_ticket);
}

/* What one serialization writes: a whole cache of version vno, or only
 * creds[0] (to append to a file of version vno). */
struct cc_out {
    bool whole;
    uint16_t vno;
    bool has_time_offset;
    int32_t time_offset_sec, time_offset_usec;
    struct gk5i_view realm;
    const struct gk5i_krb_principal *principal;
    const struct gk5i_cc_cred *creds;
    size_t n;
};

static void put_all(struct ccw *o, const struct cc_out *what)
{
    size_t i;

    if (!what->whole) {
        put_cred(o, what->vno, &what->creds[0]);
        return;
    }
    put_u16(o, what->vno);
    if (what->vno == CC_VNO_4) {
        if (what->has_time_offset) {
            put_u16(o, 4 + CC_TAG_KDC_OFFSET_LEN);
            put_u16(o, CC_TAG_KDC_OFFSET);
            put_u16(o, CC_TAG_KDC_OFFSET_LEN);
            put_u32(o, (uint32_t)what->time_offset_sec);
            put_u32(o, (uint32_t)what->time_offset_usec);
        } else {
            put_u16(o, 0);
        }
    }
    put_principal(o, what->realm, what->principal);
    for (i = 0; i < what->n; i++) {
        put_cred(o, what->vno, &what->creds[i]);
    }
}

/* A view a caller made: bytes behind a length, and short enough for the
 * 32-bit length and the file limit. */
static bool view_ok(struct gk5i_view v)
{
    return (v.p != NULL || v.len == 0) && v.len <= GK5I_CCACHE_MAX_BYTES;
}

static bool principal_ok(struct gk5i_view realm,
                         const struct gk5i_krb_principal *p)
{
    uint32_t i;

    if (p == NULL || !view_ok(realm) || p->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        return false;
    }
    for (i = 0; i < p->ncomp; i++) {
        if (!view_ok(p->comp[i])) {
            return false;
        }
    }
    return true;
}

/* Empty, or exactly one well-formed list (what get_list reads back). */
static bool list_ok(struct gk5i_view v)
{
    struct gk5i_rd r;

    if (!view_ok(v)) {
        return false;
    }
    if (v.len == 0) {
        return true;
    }
    gk5i_rd_init(&r, v.p, v.len);
    (void)get_list(&r);
    return gk5i_rd_at_end(&r);
}

bool gk5i_ccache_cred_ok(const struct gk5i_cc_cred *c)
{
    return principal_ok(c->client_realm, &c->client) &&
           principal_ok(c->server_realm, &c->server) &&
           c->keytype >= INT16_MIN && c->keytype <= INT16_MAX &&
           c->key_len <= GK5_MAX_KEY_BYTES && list_ok(c->addrs) &&
           list_ok(c->authdata) && view_ok(c->ticket) &&
           view_ok(c->second_ticket);
}

/* The bytes of what, in one allocation (*out: gk5i_clear_free(*out,
 * *len)).  GK5_OK, GK5_ERR_INVALID_ARGUMENT (more than the limits),
 * GK5_ERR_NOMEM. */
static uint32_t serialize(const struct cc_out *what, uint8_t **out, size_t *len)
{
    struct ccw o;
    uint8_t *buf;

    memset(&o, 0, sizeof(o));
    gk5i_wr_init(&o.w, NULL, 0);
    put_all(&o, what);
    if (o.need > GK5I_CCACHE_MAX_BYTES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    buf = gk5i_zalloc(o.need != 0 ? o.need : 1);
    if (buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    *len = o.need;
    o.need = 0;
    gk5i_wr_init(&o.w, buf, *len);
    put_all(&o, what);
    if (o.w.bad || o.w.left != 0) {
        /* The same walk twice over the same input: cannot happen. */
        gk5i_clear_free(buf, *len != 0 ? *len : 1);
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = buf;
    return GK5_OK;
}

/* A whole cache's parts checked, then serialized. */
static uint32_t serialize_whole(const struct cc_out *what, uint8_t **out,
                                size_t *len)
{
    size_t i;

    if ((what->vno != CC_VNO_3 && what->vno != CC_VNO_4) ||
        !principal_ok(what->realm, what->principal) ||
        what->n > GK5I_CCACHE_MAX_CREDS ||
        (what->n != 0 && what->creds == NULL)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < what->n; i++) {
        if (!gk5i_ccache_cred_ok(&what->creds[i])) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
    }
    return serialize(what, out, len);
}

static void whole_of(const struct gk5i_ccache *cc, struct cc_out *what)
{
    memset(what, 0, sizeof(*what));
    what->whole = true;
    what->vno = cc->version;
    what->has_time_offset = cc->has_time_offset;
    what->time_offset_sec = cc->time_offset_sec;
    what->time_offset_usec = cc->time_offset_usec;
    what->realm = cc->realm;
    what->principal = &cc->principal;
    what->creds = cc->creds;
    what->n = cc->n;
}

uint32_t gk5i_ccache_serialize(const struct gk5i_ccache *cc, uint8_t **out,
                               size_t *out_len)
{
    struct cc_out what;

    *out = NULL;
    *out_len = 0;
    if (cc == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    whole_of(cc, &what);
    return serialize_whole(&what, out, out_len);
}

uint32_t gk5i_ccache_serialize_new(struct gk5i_view realm,
                                   const struct gk5i_krb_principal *p,
                                   const struct gk5i_cc_cred *creds, size_t n,
                                   uint8_t **out, size_t *out_len)
{
    struct cc_out what;

    *out = NULL;
    *out_len = 0;
    memset(&what, 0, sizeof(what));
    what.whole = true;
    what.vno = CC_VNO_4;
    what.realm = realm;
    what.principal = p;
    what.creds = creds;
    what.n = n;
    return serialize_whole(&what, out, out_len);
}

uint32_t gk5i_ccache_serialize_cred(uint16_t vno, const struct gk5i_cc_cred *c,
                                    uint8_t **out, size_t *out_len)
{
    struct cc_out what;

    *out = NULL;
    *out_len = 0;
    if (c == NULL || !gk5i_ccache_cred_ok(c)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (vno != CC_VNO_3 && vno != CC_VNO_4) {
        return GK5_ERR_CCACHE_FORMAT;
    }
    memset(&what, 0, sizeof(what));
    what.creds = c;
    what.n = 1;
    what.vno = vno;
    return serialize(&what, out, out_len);
}
