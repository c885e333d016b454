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
 * On disk: a reader takes a whole-file read lock and a writer a write lock,
 * the kind MIT's krb5_lock_file takes (an OFD lock where the kernel has it;
 * Linux keeps OFD and classic POSIX locks in one table, so either excludes
 * the other), so kinit, kvno and klist never see half of what gk5 writes
 * nor gk5 half of theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* How often a file is opened again when the name was given to another
 * file while gk5 waited for the lock (a writer renamed a new cache over
 * it): more than a few in a row is a loop of writers, not a race. */
#define CC_REOPEN_TRIES 8

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

/* Parse buf (len bytes, malloc'd by gk5i_zalloc), which becomes the
 * cache's or is wiped and freed. */
static uint32_t parse_take(uint8_t *buf, size_t len, struct gk5i_ccache **out)
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
    return parse_take(buf, len, out);
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

static bool cred_ok(const struct gk5i_cc_cred *c)
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
        if (!cred_ok(&what->creds[i])) {
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

/* ---- files ---- */

/* A whole-file lock of type (F_RDLCK, F_WRLCK), waited for, the kind MIT's
 * krb5_lock_file takes: an OFD lock, or where the kernel has none (before
 * Linux 3.15: EINVAL) a classic POSIX one.  A file system without locks
 * (ENOLCK, ENOTSUP) is used unlocked, as MIT uses it.  0 or -1. */
static int lock_file(int fd, short type)
{
    struct flock fl;
    int rc;

    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    do {
        rc = fcntl(fd, F_OFD_SETLKW, &fl);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno == EINVAL) {
        do {
            rc = fcntl(fd, F_SETLKW, &fl);
        } while (rc != 0 && errno == EINTR);
    }
    if (rc != 0 && (errno == ENOLCK || errno == ENOTSUP)) {
        rc = 0;
    }
    return rc;
}

/* path opened with flags and locked with type, a regular file still named
 * path once the lock is held (a writer may have renamed a new cache over
 * the one opened while gk5 waited: then the new one is opened).  *fd and
 * *st set.  0, or -1 with errno (ENOENT: no such file; EIO: not a regular
 * file or the name kept moving). */
static int open_locked(const char *path, int flags, short type, int *fd,
                       struct stat *st)
{
    int tries;

    *fd = -1;
    for (tries = 0; tries < CC_REOPEN_TRIES; tries++) {
        struct stat now;
        int f = open(path, flags | O_CLOEXEC);

        if (f < 0) {
            return -1;
        }
        if (lock_file(f, type) != 0 || fstat(f, st) != 0) {
            int e = errno;

            close(f);
            errno = e;
            return -1;
        }
        if (!S_ISREG(st->st_mode)) {
            close(f);
            errno = EIO;
            return -1;
        }
        if (stat(path, &now) == 0 && now.st_ino == st->st_ino &&
            now.st_dev == st->st_dev) {
            *fd = f;
            return 0;
        }
        close(f);
    }
    errno = EIO;
    return -1;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len != 0) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

uint32_t gk5i_ccache_read(const char *path, struct gk5i_ccache **out)
{
    uint8_t *buf = NULL;
    size_t size, got = 0;
    struct stat st;
    uint32_t ret = GK5_ERR_CCACHE_READ;
    int fd = -1;

    *out = NULL;
    if (path == NULL) {
        return GK5_ERR_CCACHE_READ;
    }
    if (open_locked(path, O_RDONLY, F_RDLCK, &fd, &st) != 0) {
        return errno == ENOENT ? GK5_ERR_CCACHE_NOT_FOUND : GK5_ERR_CCACHE_READ;
    }
    if (st.st_size > (off_t)GK5I_CCACHE_MAX_BYTES) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("ccache: %s is %lld bytes, more than the %u read", path,
                       (long long)st.st_size, (unsigned)GK5I_CCACHE_MAX_BYTES);
        }
        ret = GK5_ERR_CCACHE_FORMAT;
        goto cleanup;
    }
    size = (size_t)st.st_size;
    buf = gk5i_zalloc(size != 0 ? size : 1);
    if (buf == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    /* Under the read lock no writer that locks can change the file:
     * its size is the one fstat gave. */
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            goto cleanup;
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    close(fd); /* and the lock with it */
    fd = -1;
    /* The bytes past got (a file that shrank) are zero and not parsed. */
    ret = parse_take(buf, got, out);
    buf = NULL;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (buf != NULL) {
        gk5i_clear_free(buf, size != 0 ? size : 1);
    }
    return ret;
}

/* Writes data to a new file beside path (mode 0600, a name no other file
 * has) and renames it over path, holding the old file's write lock across
 * the rename: a reader that locked the old file first reads it whole, one
 * that comes after opens the new one.  GK5_OK, GK5_ERR_CCACHE_WRITE,
 * GK5_ERR_NOMEM. */
static uint32_t replace_file(const char *path, const uint8_t *data, size_t len)
{
    static const char suffix[] = ".gk5XXXXXX";
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    size_t plen = strlen(path);
    char *tmp = NULL;
    struct stat st;
    int fd = -1, old = -1;
    bool made = false;

    tmp = malloc(plen + sizeof(suffix));
    if (tmp == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, sizeof(suffix));
    /* mkostemp: O_CREAT | O_EXCL, mode 0600, a random name. */
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        goto cleanup;
    }
    made = true;
    if (write_all(fd, data, len) != 0) {
        goto cleanup;
    }
    if (close(fd) != 0) {
        fd = -1;
        goto cleanup;
    }
    fd = -1;
    /* The old cache, if there is one gk5 may write: locked so that no
     * MIT program is halfway through reading or appending to it when
     * its name goes. */
    if (open_locked(path, O_WRONLY, F_WRLCK, &old, &st) != 0) {
        old = -1;
    }
    if (rename(tmp, path) != 0) {
        goto cleanup;
    }
    made = false;
    ret = GK5_OK;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (made) {
        unlink(tmp);
    }
    if (old >= 0) {
        close(old);
    }
    free(tmp);
    return ret;
}

/* what into path.  As gk5i_ccache_store. */
static uint32_t store(const char *path, const struct cc_out *what)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    uint32_t ret;

    if (path == NULL || *path == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = serialize_whole(what, &buf, &len);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = replace_file(path, buf, len);
    gk5i_clear_free(buf, len != 0 ? len : 1);
    return ret;
}

uint32_t gk5i_ccache_store(const char *path, const struct gk5i_ccache *cc)
{
    struct cc_out what;

    if (cc == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    whole_of(cc, &what);
    return store(path, &what);
}

uint32_t gk5i_ccache_write(const char *path, struct gk5i_view realm,
                           const struct gk5i_krb_principal *p,
                           const struct gk5i_cc_cred *creds, size_t n)
{
    struct cc_out what;

    memset(&what, 0, sizeof(what));
    what.whole = true;
    what.vno = CC_VNO_4;
    what.realm = realm;
    what.principal = p;
    what.creds = creds;
    what.n = n;
    return store(path, &what);
}

uint32_t gk5i_ccache_append(const char *path, const struct gk5i_cc_cred *c)
{
    struct cc_out what;
    uint8_t vno[2], *buf = NULL;
    size_t len = 0;
    struct stat st;
    off_t end;
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    ssize_t got;
    int fd = -1;

    if (path == NULL || c == NULL || !cred_ok(c)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (open_locked(path, O_RDWR, F_WRLCK, &fd, &st) != 0) {
        return errno == ENOENT ? GK5_ERR_CCACHE_NOT_FOUND
                               : GK5_ERR_CCACHE_WRITE;
    }
    do {
        got = pread(fd, vno, sizeof(vno), 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        goto cleanup;
    }
    memset(&what, 0, sizeof(what));
    what.creds = c;
    what.n = 1;
    what.vno = got == 2 ? load_be16(vno) : 0;
    if (what.vno != CC_VNO_3 && what.vno != CC_VNO_4) {
        ret = GK5_ERR_CCACHE_FORMAT;
        goto cleanup;
    }
    ret = serialize(&what, &buf, &len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CCACHE_WRITE;
    end = lseek(fd, 0, SEEK_END);
    if (end < 0) {
        goto cleanup;
    }
    if (write_all(fd, buf, len) != 0) {
        /* Half a credential would make the whole file unreadable: cut
         * it off (under the lock nobody has read it). */
        if (ftruncate(fd, end) != 0 && GK5_TRACE_ON()) {
            gk5i_trace("ccache: %s: a failed append could not be undone", path);
        }
        goto cleanup;
    }
    ret = GK5_OK;

cleanup:
    if (fd >= 0) {
        close(fd);
    }
    if (buf != NULL) {
        gk5i_clear_free(buf, len != 0 ? len : 1);
    }
    return ret;
}

uint32_t gk5i_ccache_destroy(const char *path)
{
    static const uint8_t zeros[4096];
    struct stat st;
    off_t at = 0;
    uint32_t ret = GK5_ERR_CCACHE_WRITE;
    int fd = -1;

    if (path == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    /* Not through a symbolic link: the link is removed, and whatever it
     * points at is left alone (zeroing it would let whoever made the
     * link in /tmp have gk5 zero another of the user's files). */
    if (open_locked(path, O_WRONLY | O_NOFOLLOW, F_WRLCK, &fd, &st) != 0) {
        if (errno == ENOENT) {
            return GK5_ERR_CCACHE_NOT_FOUND;
        }
        if (errno == ELOOP && unlink(path) == 0) {
            return GK5_OK;
        }
        return GK5_ERR_CCACHE_WRITE;
    }
    while (at < st.st_size) {
        size_t n = sizeof(zeros);
        ssize_t w;

        if ((off_t)n > st.st_size - at) {
            n = (size_t)(st.st_size - at);
        }
        w = pwrite(fd, zeros, n, at);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            break; /* removed all the same */
        }
        at += w;
    }
    if (unlink(path) != 0) {
        goto cleanup;
    }
    ret = GK5_OK;

cleanup:
    close(fd);
    return ret;
}

/* ---- names ---- */

static void __attribute__((cold)) trace_type(const char *type, size_t len)
{
    char shown[33];
    size_t i;

    if (len > sizeof(shown) - 1) {
        len = sizeof(shown) - 1;
    }
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)type[i];

        shown[i] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    shown[len] = '\0';
    gk5i_trace("ccache: type \"%s\" is not supported (only FILE)", shown);
}

uint32_t gk5i_ccache_resolve(const char *name, char **path)
{
    char dflt[64];
    const char *colon, *rest;

    *path = NULL;
    if (name == NULL) {
        /* As MIT reads it: a set-uid program ignores the environment. */
        name = secure_getenv("KRB5CCNAME");
        if (name == NULL || *name == '\0') {
            snprintf(dflt, sizeof(dflt), "/tmp/krb5cc_%lu",
                     (unsigned long)geteuid());
            name = dflt;
        }
    }
    rest = name;
    colon = strchr(name, ':');
    /* What comes before the first colon names the type, except one
     * letter, which MIT takes for a drive ("C:..."): then the whole name
     * is a path. */
    if (colon != NULL &&
        !(colon - name == 1 && ((name[0] >= 'A' && name[0] <= 'Z') ||
                                (name[0] >= 'a' && name[0] <= 'z')))) {
        size_t tlen = (size_t)(colon - name);

        /* The cache type, a public name. */
        if (tlen != 4 || memcmp(name, "FILE", 4) != 0) {
            if (GK5_TRACE_ON()) {
                trace_type(name, tlen);
            }
            return GK5_ERR_CCACHE_TYPE;
        }
        rest = colon + 1;
    }
    if (*rest == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *path = strdup(rest);
    return *path != NULL ? GK5_OK : GK5_ERR_NOMEM;
}
