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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gk5i_ccache *cc = NULL;
    uint32_t ret;
    size_t i;

    fuzz_trace_for(size);
    ret = gk5i_ccache_parse(data, size, &cc);
    if (ret != GK5_OK) {
        if ((ret != GK5_ERR_CCACHE_FORMAT && ret != GK5_ERR_NOMEM) ||
            cc != NULL) {
            fuzz_fail("a refused cache answered out of its contract", 0, ret);
        }
        check_read(data, size, ret, NULL);
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
    gk5i_ccache_free(cc);
    return 0;
}
