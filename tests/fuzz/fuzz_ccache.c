/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: MIT FILE credential caches (src/krb5/ccache.c,
 * gk5i_ccache_parse).  The input is the file.
 *
 * A refused file leaves no cache, with GK5_ERR_CCACHE_FORMAT (or an
 * allocation failure).  A cache that parses must hold together: version
 * 3 or 4, at most GK5I_CCACHE_MAX_CREDS credentials, every view inside
 * the cache's own copy, principals within the component limit, keys within
 * GK5_MAX_KEY_BYTES, config set exactly for the server realm X-CACHECONF:.
 * Serialized again (gk5i_ccache_serialize) it parses to the same fields;
 * when its header held nothing gk5 drops (unknown tags), to the same
 * bytes.  Every credential gk5i_ccache_find may return is found by its own
 * server name (it or a later one of that name).  The same bytes read from
 * a memory file (gk5i_ccache_read, under its lock) give the same verdict.
 * Restricted to a list of enctypes, find returns only a credential of
 * one of them.
 *
 * Allocation failures: gk5i_ccache_parse, and the serialization of a
 * cache that parses, run again with each of their allocations made to
 * fail in turn (OpenSSL's allocator, fuzz_alloc_fail_*): each is refused
 * with GK5_ERR_NOMEM and hands nothing out.  Once per process, the
 * answers to arguments no file brings (NULL pointers, lengths past the
 * limits, credentials the writer refuses) are checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"

static const struct gk5i_view conf_realm = {(const uint8_t *)"X-CACHECONF:",
                                            12};

static bool inside(const struct gk5i_ccache *cc, struct gk5i_view v)
{
    if (v.len == 0) {
        return true;
    }
    return v.p != NULL && v.p >= cc->buf && v.len <= cc->len &&
           (size_t)(v.p - cc->buf) <= cc->len - v.len;
}

static void check_principal(const struct gk5i_ccache *cc,
                            struct gk5i_view realm,
                            const struct gk5i_krb_principal *p)
{
    uint32_t i;

    if (p->ncomp > GK5I_KRB_MAX_COMPONENTS || !inside(cc, realm)) {
        fuzz_fail("a principal is out of bounds", 0, 0);
    }
    for (i = 0; i < p->ncomp; i++) {
        if (!inside(cc, p->comp[i])) {
            fuzz_fail("a component lies outside the cache's bytes", 0, 0);
        }
    }
}

static void check_cred(const struct gk5i_ccache *cc,
                       const struct gk5i_cc_cred *c)
{
    check_principal(cc, c->client_realm, &c->client);
    check_principal(cc, c->server_realm, &c->server);
    if (c->key_len > GK5_MAX_KEY_BYTES || c->keytype < INT16_MIN ||
        c->keytype > INT16_MAX) {
        fuzz_fail("a key out of bounds", 0, 0);
    }
    if (!inside(cc, c->addrs) || !inside(cc, c->authdata) ||
        !inside(cc, c->ticket) || !inside(cc, c->second_ticket) ||
        c->addrs.len < 4 || c->authdata.len < 4) {
        fuzz_fail("a credential's bytes lie outside the cache's", 0, 0);
    }
    if (c->config != gk5i_view_equal(c->server_realm, conf_realm)) {
        fuzz_fail("config does not follow the server realm", 0, 0);
    }
}

static bool same_principal(struct gk5i_view ra,
                           const struct gk5i_krb_principal *a,
                           struct gk5i_view rb,
                           const struct gk5i_krb_principal *b)
{
    return a->name_type == b->name_type && gk5i_principal_equal(ra, a, rb, b);
}

static bool same_cred(const struct gk5i_cc_cred *a,
                      const struct gk5i_cc_cred *b)
{
    return same_principal(a->client_realm, &a->client, b->client_realm,
                          &b->client) &&
           same_principal(a->server_realm, &a->server, b->server_realm,
                          &b->server) &&
           a->keytype == b->keytype && a->key_len == b->key_len &&
           memcmp(a->key, b->key, a->key_len) == 0 &&
           a->authtime == b->authtime && a->starttime == b->starttime &&
           a->endtime == b->endtime && a->renew_till == b->renew_till &&
           a->is_skey == b->is_skey && a->flags == b->flags &&
           gk5i_view_equal(a->addrs, b->addrs) &&
           gk5i_view_equal(a->authdata, b->authdata) &&
           gk5i_view_equal(a->ticket, b->ticket) &&
           gk5i_view_equal(a->second_ticket, b->second_ticket) &&
           a->config == b->config;
}

static bool same_cache(const struct gk5i_ccache *a, const struct gk5i_ccache *b)
{
    size_t i;

    if (a->version != b->version || a->has_time_offset != b->has_time_offset ||
        (a->has_time_offset && (a->time_offset_sec != b->time_offset_sec ||
                                a->time_offset_usec != b->time_offset_usec)) ||
        !same_principal(a->realm, &a->principal, b->realm, &b->principal) ||
        a->n != b->n) {
        return false;
    }
    for (i = 0; i < a->n; i++) {
        if (!same_cred(&a->creds[i], &b->creds[i])) {
            return false;
        }
    }
    return true;
}

/* What the file writer serializes with: each credential alone in the
 * cache's version (an append) is the same bytes as the whole cache's
 * tail, and a new version-4 cache of the same principal and credentials
 * (a write) the same bytes as the whole when the cache has no header
 * tag. */
static void check_pieces(const struct gk5i_ccache *cc, const uint8_t *whole,
                         size_t whole_len)
{
    size_t tail = whole_len, i;
    uint8_t *bytes = NULL;
    size_t len = 0;
    uint32_t ret;

    for (i = cc->n; i-- > 0;) {
        ret = gk5i_ccache_serialize_cred(cc->version, &cc->creds[i], &bytes,
                                         &len);
        if (ret == GK5_ERR_NOMEM) {
            return;
        }
        if (ret != GK5_OK) {
            fuzz_fail("a parsed credential cannot be appended", 0, ret);
        }
        if (len > tail || memcmp(whole + tail - len, bytes, len) != 0) {
            fuzz_fail("an appended credential has other bytes", 0, 0);
        }
        tail -= len;
        gk5i_clear_free(bytes, len != 0 ? len : 1);
    }
    if (cc->version != 0x0504 || cc->has_time_offset) {
        return;
    }
    ret = gk5i_ccache_serialize_new(cc->realm, &cc->principal, cc->creds, cc->n,
                                    &bytes, &len);
    if (ret == GK5_ERR_NOMEM) {
        return;
    }
    if (ret != GK5_OK || len != whole_len || memcmp(bytes, whole, len) != 0) {
        fuzz_fail("a new cache of the same credentials has other bytes", 0,
                  ret);
    }
    gk5i_clear_free(bytes, len != 0 ? len : 1);
}

/* Serialized and parsed again: the same cache; the same bytes when the
 * input's header (version 4) held only what gk5 writes. */
static void check_rewrite(const struct gk5i_ccache *cc, const uint8_t *data,
                          size_t size)
{
    struct gk5i_ccache *again = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;
    uint32_t ret;
    bool canonical;

    ret = gk5i_ccache_serialize(cc, &bytes, &len);
    if (ret == GK5_ERR_NOMEM) {
        return;
    }
    if (ret != GK5_OK) {
        fuzz_fail("a parsed cache cannot be written", 0, ret);
    }
    check_pieces(cc, bytes, len);
    ret = gk5i_ccache_parse(bytes, len, &again);
    if (ret == GK5_ERR_NOMEM) {
        gk5i_clear_free(bytes, len != 0 ? len : 1);
        return;
    }
    if (ret != GK5_OK || !same_cache(cc, again)) {
        fuzz_fail("a rewritten cache reads back different", 0, ret);
    }
    canonical = cc->version == 0x0503 ||
                load_be16(data + 2) == (cc->has_time_offset ? 12 : 0);
    if (canonical && (len != size || memcmp(bytes, data, size) != 0)) {
        fuzz_fail("a rewritten cache has other bytes", 0, 0);
    }
    gk5i_ccache_free(again);
    gk5i_clear_free(bytes, len != 0 ? len : 1);
}

/* find restricted to the credential's own enctype: that enctype only, and
 * the credential (or a later one) when it is findable; restricted to
 * none of the cache's enctypes (one past any 16-bit one), nothing. */
static void check_find_keytype(const struct gk5i_ccache *cc,
                               const struct gk5i_cc_cred *c, bool findable)
{
    const int32_t none = INT16_MAX + 1;
    const struct gk5i_cc_cred *got = gk5i_ccache_find_keytype(
        cc, c->server_realm, &c->server, 0, &c->keytype, 1);

    if (got != NULL && got->keytype != c->keytype) {
        fuzz_fail("find by enctype gave another enctype", 0, 0);
    }
    if (findable && (got == NULL || got < c)) {
        fuzz_fail("find by enctype missed the newest credential", 0, 0);
    }
    if (gk5i_ccache_find_keytype(cc, c->server_realm, &c->server, 0, &none,
                                 1) != NULL) {
        fuzz_fail("find by an enctype no credential has found one", 0, 0);
    }
}

/* Each credential find may return is found by its own name: it, or a
 * later one of the same server and client. */
static void check_find(const struct gk5i_ccache *cc)
{
    size_t i;

    for (i = 0; i < cc->n && i < 64; i++) {
        const struct gk5i_cc_cred *c = &cc->creds[i];
        const struct gk5i_cc_cred *got =
            gk5i_ccache_find(cc, c->server_realm, &c->server, 0);
        bool findable = !c->config && !c->is_skey && c->endtime > 0 &&
                        gk5i_principal_equal(c->client_realm, &c->client,
                                             cc->realm, &cc->principal);

        if (got != NULL &&
            (got < cc->creds || got >= cc->creds + cc->n || got->config ||
             got->is_skey || got->endtime == 0 ||
             !gk5i_principal_equal(got->server_realm, &got->server,
                                   c->server_realm, &c->server))) {
            fuzz_fail("find answered out of its contract", 0, 0);
        }
        if (findable && (got == NULL || got < c)) {
            fuzz_fail("find missed the newest credential of a name", 0, 0);
        }
        if (got != NULL && gk5i_ccache_find(cc, c->server_realm, &c->server,
                                            (int64_t)got->endtime) == got) {
            fuzz_fail("find returned an expired credential", 0, 0);
        }
        check_find_keytype(cc, c, findable);
    }
}

/* The same bytes from a memory file: the same verdict and credentials. */
static void check_read(const uint8_t *data, size_t size, uint32_t want,
                       const struct gk5i_ccache *cc)
{
    struct gk5i_ccache *got = NULL;
    char path[64];
    uint32_t ret;
    int fd = memfd_create("gk5-fuzz-ccache", MFD_CLOEXEC);

    if (fd < 0) {
        return;
    }
    if (size != 0 && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    ret = gk5i_ccache_read(path, &got);
    if (ret != GK5_ERR_NOMEM && want != GK5_ERR_NOMEM &&
        (ret != want || (ret == GK5_OK && !same_cache(cc, got)))) {
        fuzz_fail("gk5i_ccache_read and gk5i_ccache_parse disagree", want, ret);
    }
    gk5i_ccache_free(got);
    close(fd);
}

/* The parse and, of a cache that parses, the serialization, with each
 * allocation made to fail in turn until one run makes no more. */
static void check_alloc_failures(const uint8_t *data, size_t size,
                                 const struct gk5i_ccache *cc)
{
    for (long point = 0;; point++) {
        struct gk5i_ccache *got = (struct gk5i_ccache *)&got;
        uint32_t ret;

        fuzz_alloc_fail_arm(point);
        ret = gk5i_ccache_parse(data, size, &got);
        fuzz_alloc_fail_arm(-1);
        if (!fuzz_alloc_fail_hit()) {
            gk5i_ccache_free(got);
            break;
        }
        if (ret != GK5_ERR_NOMEM || got != NULL) {
            fuzz_fail("a parse out of memory answered otherwise", 0, ret);
        }
    }
    if (cc == NULL) {
        return;
    }
    for (long point = 0;; point++) {
        uint8_t *bytes = (uint8_t *)&bytes;
        size_t len = 1;
        uint32_t ret;

        fuzz_alloc_fail_arm(point);
        ret = gk5i_ccache_serialize(cc, &bytes, &len);
        fuzz_alloc_fail_arm(-1);
        if (!fuzz_alloc_fail_hit()) {
            gk5i_clear_free(bytes, len != 0 ? len : 1);
            break;
        }
        if (ret != GK5_ERR_NOMEM || bytes != NULL || len != 0) {
            fuzz_fail("a serialization out of memory answered otherwise", 0,
                      ret);
        }
    }
}

/* A credential the writer takes: empty principals, no key, empty lists
 * (written as a count of 0) and tickets. */
static void good_cred(struct gk5i_cc_cred *c)
{
    memset(c, 0, sizeof(*c));
    c->keytype = 18;
    c->endtime = 1;
}

static void want_refused(const struct gk5i_cc_cred *c, const char *what)
{
    uint8_t *bytes = (uint8_t *)&bytes;
    size_t len = 1;
    uint32_t ret = gk5i_ccache_serialize_cred(0x0504, c, &bytes, &len);

    if (ret != GK5_ERR_INVALID_ARGUMENT || bytes != NULL || len != 0) {
        fuzz_fail(what, 0, ret);
    }
    ret = gk5i_ccache_serialize_new(conf_realm, &c->client, c, 1, &bytes, &len);
    if (ret != GK5_ERR_INVALID_ARGUMENT || bytes != NULL || len != 0) {
        fuzz_fail(what, 0, ret);
    }
}

/* What the writer refuses of a credential: each view with no bytes
 * behind its length or longer than the file limit, more components than
 * the limit, an enctype outside 16 bits, a key longer than any, a list
 * that is not one well-formed list. */
static void check_cred_arguments(void)
{
    static const uint8_t cut[] = {0, 0, 0, 1, 0, 1}; /* one element, cut */
    static const uint8_t extra[] = {0, 0, 0, 0, 0};  /* count 0, a byte */
    const size_t huge = (size_t)GK5I_CCACHE_MAX_BYTES + 1;
    struct gk5i_view bad_views[] = {{NULL, 1}, {cut, huge}};
    struct gk5i_view bad_lists[] = {
        {NULL, 1}, {cut, huge}, {cut, sizeof(cut)}, {extra, sizeof(extra)}};
    struct gk5i_cc_cred c;

    for (size_t i = 0; i < sizeof(bad_views) / sizeof(bad_views[0]); i++) {
        struct gk5i_view v = bad_views[i];

        good_cred(&c);
        c.client_realm = v;
        want_refused(&c, "a client realm out of bounds was written");
        good_cred(&c);
        c.client.ncomp = 1;
        c.client.comp[0] = v;
        want_refused(&c, "a client component out of bounds was written");
        good_cred(&c);
        c.server_realm = v;
        want_refused(&c, "a server realm out of bounds was written");
        good_cred(&c);
        c.server.ncomp = 1;
        c.server.comp[0] = v;
        want_refused(&c, "a server component out of bounds was written");
        good_cred(&c);
        c.ticket = v;
        want_refused(&c, "a ticket out of bounds was written");
        good_cred(&c);
        c.second_ticket = v;
        want_refused(&c, "a second ticket out of bounds was written");
    }
    for (size_t i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
        good_cred(&c);
        c.addrs = bad_lists[i];
        want_refused(&c, "a malformed address list was written");
        good_cred(&c);
        c.authdata = bad_lists[i];
        want_refused(&c, "a malformed authdata list was written");
    }
    good_cred(&c);
    c.client.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    want_refused(&c, "a client past the component limit was written");
    good_cred(&c);
    c.server.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    want_refused(&c, "a server past the component limit was written");
    good_cred(&c);
    c.keytype = INT16_MIN - 1;
    want_refused(&c, "an enctype below 16 bits was written");
    good_cred(&c);
    c.keytype = INT16_MAX + 1;
    want_refused(&c, "an enctype above 16 bits was written");
    good_cred(&c);
    c.key_len = GK5_MAX_KEY_BYTES + 1;
    want_refused(&c, "a key longer than any was written");
}

/* The answers to arguments no file brings, once per process (on the empty
 * input every run starts with). */
static void check_arguments(void)
{
    static const uint8_t one[1] = {5};
    const size_t half = GK5I_CCACHE_MAX_BYTES / 2 + 1;
    struct gk5i_ccache *cc = (struct gk5i_ccache *)&cc, copy;
    struct gk5i_krb_principal server;
    struct gk5i_cc_cred c, two[1];
    uint8_t *bytes = (uint8_t *)&bytes;
    size_t len = 1;
    uint32_t ret;

    if (gk5i_ccache_parse(NULL, 1, &cc) != GK5_ERR_CCACHE_FORMAT ||
        cc != NULL ||
        gk5i_ccache_parse(NULL, 0, &cc) != GK5_ERR_CCACHE_FORMAT ||
        cc != NULL ||
        gk5i_ccache_parse(one, (size_t)GK5I_CCACHE_MAX_BYTES + 1, &cc) !=
            GK5_ERR_CCACHE_FORMAT ||
        cc != NULL) {
        fuzz_fail("a cache without bytes or past the limit was parsed", 0, 0);
    }
    memset(&server, 0, sizeof(server));
    memset(&copy, 0, sizeof(copy));
    if (gk5i_ccache_find(NULL, conf_realm, &server, 0) != NULL ||
        gk5i_ccache_find(&copy, conf_realm, NULL, 0) != NULL) {
        fuzz_fail("find without a cache or a name found something", 0, 0);
    }
    if (gk5i_ccache_serialize(NULL, &bytes, &len) != GK5_ERR_INVALID_ARGUMENT ||
        bytes != NULL || len != 0 ||
        gk5i_ccache_serialize_cred(0x0504, NULL, &bytes, &len) !=
            GK5_ERR_INVALID_ARGUMENT) {
        fuzz_fail("a serialization of nothing was written", 0, 0);
    }
    good_cred(&c);
    if (gk5i_ccache_serialize_cred(0x0502, &c, &bytes, &len) !=
        GK5_ERR_CCACHE_FORMAT) {
        fuzz_fail("a credential was written for version 2", 0, 0);
    }
    /* A cache of another version, a bad default principal, more
     * credentials than the limit, credentials NULL. */
    copy.version = 0x0502;
    ret = gk5i_ccache_serialize(&copy, &bytes, &len);
    copy.version = 0x0504;
    copy.realm.len = 1;
    if (ret != GK5_ERR_INVALID_ARGUMENT ||
        gk5i_ccache_serialize(&copy, &bytes, &len) !=
            GK5_ERR_INVALID_ARGUMENT ||
        gk5i_ccache_serialize_new(conf_realm, NULL, &c, 1, &bytes, &len) !=
            GK5_ERR_INVALID_ARGUMENT ||
        gk5i_ccache_serialize_new(conf_realm, &server, &c,
                                  GK5I_CCACHE_MAX_CREDS + 1, &bytes,
                                  &len) != GK5_ERR_INVALID_ARGUMENT ||
        gk5i_ccache_serialize_new(conf_realm, &server, NULL, 1, &bytes, &len) !=
            GK5_ERR_INVALID_ARGUMENT) {
        fuzz_fail("a cache the writer must refuse was written", 0, ret);
    }
    /* Two tickets each within the limit, together past it. */
    good_cred(&two[0]);
    two[0].ticket.p = one;
    two[0].ticket.len = half;
    two[0].second_ticket = two[0].ticket;
    if (gk5i_ccache_serialize_new(conf_realm, &server, two, 1, &bytes, &len) !=
            GK5_ERR_INVALID_ARGUMENT ||
        bytes != NULL || len != 0) {
        fuzz_fail("a cache past the file limit was written", 0, 0);
    }
    check_cred_arguments();
    /* Empty lists are written as a count of 0, and read back so. */
    if (gk5i_ccache_serialize_new(conf_realm, &server, &c, 1, &bytes, &len) !=
            GK5_OK ||
        gk5i_ccache_parse(bytes, len, &cc) != GK5_OK || cc->n != 1 ||
        cc->creds[0].addrs.len != 4 || cc->creds[0].authdata.len != 4) {
        fuzz_fail("a credential without lists does not read back", 0, 0);
    }
    gk5i_ccache_free(cc);
    gk5i_clear_free(bytes, len != 0 ? len : 1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Before anything allocates through OpenSSL. */
    fuzz_alloc_fail_install();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gk5i_ccache *cc = NULL;
    uint32_t ret;
    size_t i;

    fuzz_trace_for(size);
    if (size == 0) {
        check_arguments();
    }
    ret = gk5i_ccache_parse(data, size, &cc);
    if (ret != GK5_OK) {
        if ((ret != GK5_ERR_CCACHE_FORMAT && ret != GK5_ERR_NOMEM) ||
            cc != NULL) {
            fuzz_fail("a refused cache answered out of its contract", 0, ret);
        }
        check_read(data, size, ret, NULL);
        check_alloc_failures(data, size, NULL);
        return 0;
    }
    if ((cc->version != 0x0503 && cc->version != 0x0504) ||
        cc->n > GK5I_CCACHE_MAX_CREDS || cc->len != size ||
        (size != 0 && memcmp(cc->buf, data, size) != 0)) {
        fuzz_fail("a parsed cache's header is out of its contract", 0, 0);
    }
    check_principal(cc, cc->realm, &cc->principal);
    for (i = 0; i < cc->n; i++) {
        check_cred(cc, &cc->creds[i]);
    }
    check_rewrite(cc, data, size);
    check_find(cc);
    check_read(data, size, ret, cc);
    check_alloc_failures(data, size, cc);
    gk5i_ccache_free(cc);
    return 0;
}
