/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * MIT's FILE credential cache (src/krb5/ccache.c): names resolved to
 * paths; caches written and read back field for field (many credentials,
 * configuration entries, the time offset tag, version 3); a cache MIT's
 * kinit and kvno wrote (tests/vectors/mit_ccache.txt), every field of it,
 * cut at every offset and with every count corrupted; lookups; appends;
 * destroy; and the locks MIT takes, held by another process.
 *
 *   test_ccache --dump FILE   prints FILE as the vector's `ccache = ` line
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/trace.h"
#include "krb5/krb5_int.h"
#include "vecfile.h"

#define ET_AES256 18
#define ET_AES128 17

static struct gk5i_view sv(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

/* realm and p from "a/b@R" (no escapes; components at most 10). */
struct name {
    char text[256];
    struct gk5i_view realm;
    struct gk5i_krb_principal p;
};

static void name_set(struct name *n, const char *s, int32_t type)
{
    char *at, *c, *slash;

    memset(n, 0, sizeof(*n));
    assert_true(strlen(s) < sizeof(n->text));
    strcpy(n->text, s);
    at = strrchr(n->text, '@');
    assert_non_null(at);
    *at = '\0';
    n->realm = sv(at + 1);
    n->p.name_type = type;
    for (c = n->text; c != NULL; c = slash) {
        slash = strchr(c, '/');
        if (slash != NULL) {
            *slash++ = '\0';
        }
        n->p.comp[n->p.ncomp++] = sv(c);
    }
}

/* A made-up credential and the storage it points into. */
struct mk {
    struct name client, server;
    uint8_t addrs[64], authdata[64], ticket[600], second[100];
    struct gk5i_cc_cred c;
};

static void mk_cred(struct mk *m, const char *client, const char *server,
                    unsigned i)
{
    size_t j, tlen = 50 + (i * 37) % 500;

    memset(m, 0, sizeof(*m));
    name_set(&m->client, client, 1);
    name_set(&m->server, server, i % 3);
    m->c.client_realm = m->client.realm;
    m->c.client = m->client.p;
    m->c.server_realm = m->server.realm;
    m->c.server = m->server.p;
    m->c.keytype = i % 2 ? ET_AES256 : ET_AES128;
    m->c.key_len = i % 2 ? 32 : 16;
    for (j = 0; j < m->c.key_len; j++) {
        m->c.key[j] = (uint8_t)(i * 7 + j);
    }
    m->c.authtime = 1700000000u + i;
    m->c.starttime = 1700000100u + i;
    m->c.endtime = 4000000000u + i; /* past 2038: unsigned */
    m->c.renew_till = i % 4 ? 0 : 1800000000u;
    m->c.is_skey = i % 5 == 4;
    m->c.flags = 0x40e10000u ^ i;
    if (i % 3 == 1) {
        /* one IPv4 address: count 1, type 2, length 4, 127.0.0.1 */
        static const uint8_t a[] = {0, 0, 0, 1, 0, 2, 0, 0, 0, 4, 127, 0, 0, 1};

        memcpy(m->addrs, a, sizeof(a));
        m->c.addrs.p = m->addrs;
        m->c.addrs.len = sizeof(a);
    }
    if (i % 4 == 2) {
        /* two entries: type 1 "ab", type 0x8000 "" */
        static const uint8_t a[] = {0, 0,   0,   2,    0, 1, 0, 0, 0,
                                    2, 'a', 'b', 0x80, 0, 0, 0, 0, 0};

        memcpy(m->authdata, a, sizeof(a));
        m->c.authdata.p = m->authdata;
        m->c.authdata.len = sizeof(a);
    }
    for (j = 0; j < tlen; j++) {
        m->ticket[j] = (uint8_t)(i + j * 3);
    }
    m->c.ticket.p = m->ticket;
    m->c.ticket.len = tlen;
    if (m->c.is_skey) {
        memset(m->second, 0x5a, 40);
        m->c.second_ticket.p = m->second;
        m->c.second_ticket.len = 40;
    }
}

/* A configuration entry as MIT writes one: only names and the value. */
static void mk_config(struct mk *m, const char *client, const char *key,
                      const char *value)
{
    char server[200];

    memset(m, 0, sizeof(*m));
    snprintf(server, sizeof(server),
             "krb5_ccache_conf_data/%s@X-CACHECONF:", key);
    name_set(&m->client, client, 1);
    name_set(&m->server, server, 1);
    m->c.client_realm = m->client.realm;
    m->c.client = m->client.p;
    m->c.server_realm = m->server.realm;
    m->c.server = m->server.p;
    m->c.config = true;
    memcpy(m->ticket, value, strlen(value));
    m->c.ticket.p = m->ticket;
    m->c.ticket.len = strlen(value);
}

static bool view_eq(struct gk5i_view a, struct gk5i_view b)
{
    return gk5i_view_equal(a, b);
}

/* A list view read back for one written empty: a count of 0. */
static bool list_eq(struct gk5i_view got, struct gk5i_view want)
{
    static const uint8_t zero[4];

    if (want.len == 0) {
        return got.len == 4 && memcmp(got.p, zero, 4) == 0;
    }
    return view_eq(got, want);
}

static bool inside(const struct gk5i_ccache *cc, struct gk5i_view v)
{
    return v.len == 0 ? true
                      : v.p >= cc->buf && v.len <= cc->len &&
                            (size_t)(v.p - cc->buf) <= cc->len - v.len;
}

static void check_principal_inside(const struct gk5i_ccache *cc,
                                   struct gk5i_view realm,
                                   const struct gk5i_krb_principal *p)
{
    uint32_t i;

    assert_true(inside(cc, realm));
    for (i = 0; i < p->ncomp; i++) {
        assert_true(inside(cc, p->comp[i]));
    }
}

static void check_cred_eq(const struct gk5i_ccache *cc,
                          const struct gk5i_cc_cred *got,
                          const struct gk5i_cc_cred *want)
{
    assert_true(gk5i_principal_equal(got->client_realm, &got->client,
                                     want->client_realm, &want->client));
    assert_int_equal(got->client.name_type, want->client.name_type);
    assert_true(gk5i_principal_equal(got->server_realm, &got->server,
                                     want->server_realm, &want->server));
    assert_int_equal(got->server.name_type, want->server.name_type);
    assert_int_equal(got->keytype, want->keytype);
    assert_int_equal(got->key_len, want->key_len);
    assert_memory_equal(got->key, want->key, want->key_len);
    assert_int_equal(got->authtime, want->authtime);
    assert_int_equal(got->starttime, want->starttime);
    assert_int_equal(got->endtime, want->endtime);
    assert_int_equal(got->renew_till, want->renew_till);
    assert_int_equal(got->is_skey, want->is_skey);
    assert_int_equal(got->flags, want->flags);
    assert_true(list_eq(got->addrs, want->addrs));
    assert_true(list_eq(got->authdata, want->authdata));
    assert_true(view_eq(got->ticket, want->ticket));
    assert_true(view_eq(got->second_ticket, want->second_ticket));
    assert_int_equal(got->config, want->config);
    check_principal_inside(cc, got->client_realm, &got->client);
    check_principal_inside(cc, got->server_realm, &got->server);
    assert_true(inside(cc, got->addrs) && inside(cc, got->authdata) &&
                inside(cc, got->ticket) && inside(cc, got->second_ticket));
}

/* A fresh directory for one test's files; removed by rmdir_all. */
static void tmpdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/gk5-ccache-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void rmdir_all(const char *dir)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* How many entries dir holds (no temporary file left behind). */
static int dir_entries(const char *dir)
{
    char cmd[512];
    FILE *f;
    int n = -1;

    snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
    f = popen(cmd, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%d", &n), 1);
    pclose(f);
    return n;
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* ---- resolve ---- */

static void test_resolve(void **state)
{
    static const char *const others[] = {
        "KEYRING:persistent:1000",
        "KCM:",
        "KCM:1000",
        "DIR:/tmp/d",
        "MEMORY:x",
        "API:",
        "MSLSA:",
        "file:/tmp/x",
        ":x",
        "/tmp/a:b",
    };
    char want[64], *path = NULL;
    size_t i;

    (void)state;
    assert_int_equal(unsetenv("KRB5CCNAME"), 0);
    assert_int_equal(gk5i_ccache_resolve(NULL, &path), GK5_OK);
    snprintf(want, sizeof(want), "/tmp/krb5cc_%lu", (unsigned long)geteuid());
    assert_string_equal(path, want);
    free(path);

    assert_int_equal(setenv("KRB5CCNAME", "", 1), 0);
    assert_int_equal(gk5i_ccache_resolve(NULL, &path), GK5_OK);
    assert_string_equal(path, want);
    free(path);

    assert_int_equal(setenv("KRB5CCNAME", "FILE:/tmp/from-env", 1), 0);
    assert_int_equal(gk5i_ccache_resolve(NULL, &path), GK5_OK);
    assert_string_equal(path, "/tmp/from-env");
    free(path);
    assert_int_equal(setenv("KRB5CCNAME", "KCM:", 1), 0);
    assert_int_equal(gk5i_ccache_resolve(NULL, &path), GK5_ERR_CCACHE_TYPE);
    assert_null(path);
    assert_int_equal(unsetenv("KRB5CCNAME"), 0);

    assert_int_equal(gk5i_ccache_resolve("FILE:/tmp/x", &path), GK5_OK);
    assert_string_equal(path, "/tmp/x");
    free(path);
    assert_int_equal(gk5i_ccache_resolve("FILE:rel:x", &path), GK5_OK);
    assert_string_equal(path, "rel:x");
    free(path);
    assert_int_equal(gk5i_ccache_resolve("/tmp/y", &path), GK5_OK);
    assert_string_equal(path, "/tmp/y");
    free(path);
    assert_int_equal(gk5i_ccache_resolve("C:cache", &path), GK5_OK);
    assert_string_equal(path, "C:cache");
    free(path);
    for (i = 0; i < GK5_ARRAY_SIZE(others); i++) {
        path = (char *)1;
        assert_int_equal(gk5i_ccache_resolve(others[i], &path),
                         GK5_ERR_CCACHE_TYPE);
        assert_null(path);
    }
    assert_int_equal(gk5i_ccache_resolve("FILE:", &path),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_ccache_resolve("", &path), GK5_ERR_INVALID_ARGUMENT);
    assert_null(path);
}

/* The trace line names the type refused (printable, cut short). */
static void test_resolve_trace(void **state)
{
    char path[] = "/tmp/gk5-ccache-trace-XXXXXX";
    char text[4096], *p = NULL;
    ssize_t got;
    int fd;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(setenv("GK5_TRACE", path, 1), 0);
    gk5i_trace_reset();
    assert_int_equal(gk5i_ccache_resolve("KEYRING:persistent:0", &p),
                     GK5_ERR_CCACHE_TYPE);
    assert_int_equal(gk5i_ccache_resolve("KC\nM:x", &p), GK5_ERR_CCACHE_TYPE);
    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();
    got = read(fd, text, sizeof(text) - 1);
    assert_true(got > 0);
    text[got] = '\0';
    assert_non_null(strstr(text, "ccache: type \"KEYRING\" is not supported"));
    assert_non_null(strstr(text, "ccache: type \"KC?M\" is not supported"));
    close(fd);
    unlink(path);
}

/* ---- writing and reading back ---- */

#define MANY 300

static void test_roundtrip(void **state)
{
    static struct mk m[MANY];
    static struct gk5i_cc_cred creds[MANY];
    struct gk5i_ccache *cc = NULL;
    struct name me;
    char dir[64], path[128];
    struct stat st;
    size_t i;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "alice/admin@EXAMPLE.COM", 1);
    mk_config(&m[0], "alice/admin@EXAMPLE.COM", "fast_avail", "yes");
    for (i = 1; i < MANY; i++) {
        char server[64];

        if (i % 50 == 25) {
            mk_config(&m[i], "alice/admin@EXAMPLE.COM", "refresh_time",
                      "1700000000");
        } else {
            snprintf(server, sizeof(server), "host/h%zu.example.com@EX%zu", i,
                     i % 3);
            mk_cred(&m[i], "alice/admin@EXAMPLE.COM", server, (unsigned)i);
        }
    }
    for (i = 0; i < MANY; i++) {
        creds[i] = m[i].c;
    }
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, creds, MANY),
                     GK5_OK);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(dir_entries(dir), 1);

    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->version, 0x0504);
    assert_false(cc->has_time_offset);
    assert_true(
        gk5i_principal_equal(cc->realm, &cc->principal, me.realm, &me.p));
    assert_int_equal(cc->principal.name_type, 1);
    assert_int_equal(cc->n, MANY);
    for (i = 0; i < MANY; i++) {
        check_cred_eq(cc, &cc->creds[i], &creds[i]);
    }
    gk5i_ccache_free(cc);

    /* Written again over it: the new one, and still no file left over. */
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, creds, 2),
                     GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->n, 2);
    gk5i_ccache_free(cc);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, NULL, 0), GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->n, 0);
    gk5i_ccache_free(cc);
    assert_int_equal(dir_entries(dir), 1);
    rmdir_all(dir);
}

/* The time offset tag, and version 3 (no header, the enctype twice). */
static void test_time_offset_and_v3(void **state)
{
    struct gk5i_ccache in, *cc = NULL, *cc3 = NULL;
    struct mk m[3];
    struct gk5i_cc_cred creds[3];
    struct name me;
    char dir[64], path[128];
    uint8_t *bytes = NULL;
    size_t len = 0, i;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "bob@R", 1);
    for (i = 0; i < 3; i++) {
        mk_cred(&m[i], "bob@R", "krbtgt/R@R", (unsigned)i + 1);
        creds[i] = m[i].c;
    }
    memset(&in, 0, sizeof(in));
    in.version = 0x0504;
    in.has_time_offset = true;
    in.time_offset_sec = -1234;
    in.time_offset_usec = 999999;
    in.realm = me.realm;
    in.principal = me.p;
    in.creds = creds;
    in.n = 3;
    assert_int_equal(gk5i_ccache_store(path, &in), GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_true(cc->has_time_offset);
    assert_int_equal(cc->time_offset_sec, -1234);
    assert_int_equal(cc->time_offset_usec, 999999);
    /* The header as the format doc lays it out. */
    assert_true(cc->len > 16);
    {
        static const uint8_t head[] = {5, 4,    0,    12,   0,    1,
                                       0, 8,    0xff, 0xff, 0xfb, 0x2e,
                                       0, 0x0f, 0x42, 0x3f};

        assert_memory_equal(cc->buf, head, sizeof(head));
    }

    in.version = 0x0503;
    assert_int_equal(gk5i_ccache_serialize(&in, &bytes, &len), GK5_OK);
    assert_int_equal(bytes[0], 5);
    assert_int_equal(bytes[1], 3);
    /* The principal right after the version: name type 1, one component. */
    assert_int_equal(load_be32(bytes + 2), 1);
    assert_int_equal(load_be32(bytes + 6), 1);
    assert_int_equal(gk5i_ccache_parse(bytes, len, &cc3), GK5_OK);
    assert_int_equal(cc3->version, 0x0503);
    assert_false(cc3->has_time_offset);
    assert_int_equal(cc3->n, 3);
    for (i = 0; i < 3; i++) {
        check_cred_eq(cc3, &cc3->creds[i], &creds[i]);
    }
    gk5i_ccache_free(cc3);
    gk5i_clear_free(bytes, len);

    /* Unknown header tags are skipped; the offset tag twice or of
     * another length is refused. */
    {
        struct gk5i_ccache *c2 = NULL;
        uint8_t *b = NULL;
        size_t n = 0, blen = cc->len + 6;

        b = malloc(blen);
        assert_non_null(b);
        memcpy(b, cc->buf, 2);
        store_be16(b + 2, 18);
        store_be16(b + 4, 77);
        store_be16(b + 6, 2);
        b[8] = 'x';
        b[9] = 'y';
        memcpy(b + 10, cc->buf + 4, cc->len - 4);
        assert_int_equal(gk5i_ccache_parse(b, blen, &c2), GK5_OK);
        assert_true(c2->has_time_offset);
        assert_int_equal(c2->time_offset_sec, -1234);
        n = c2->n;
        assert_int_equal(n, 3);
        gk5i_ccache_free(c2);
        free(b);
        /* the offset tag twice */
        blen = cc->len + 12;
        b = malloc(blen);
        assert_non_null(b);
        memcpy(b, cc->buf, 4);
        store_be16(b + 2, 24);
        memcpy(b + 4, cc->buf + 4, 12);
        memcpy(b + 16, cc->buf + 4, cc->len - 4);
        assert_int_equal(gk5i_ccache_parse(b, blen, &c2),
                         GK5_ERR_CCACHE_FORMAT);
        assert_null(c2);
        free(b);
        /* of length 7 */
        b = malloc(cc->len);
        assert_non_null(b);
        memcpy(b, cc->buf, cc->len);
        store_be16(b + 6, 7);
        assert_int_equal(gk5i_ccache_parse(b, cc->len, &c2),
                         GK5_ERR_CCACHE_FORMAT);
        free(b);
    }
    gk5i_ccache_free(cc);
    rmdir_all(dir);
}

/* A version 3 keyblock whose two enctypes differ. */
static void test_v3_enctype_twice(void **state)
{
    struct gk5i_ccache in, *cc = NULL;
    struct mk m;
    struct name me;
    uint8_t *bytes = NULL;
    size_t len = 0, kb;

    (void)state;
    name_set(&me, "a@B", 1);
    mk_cred(&m, "a@B", "c@B", 1);
    memset(&in, 0, sizeof(in));
    in.version = 0x0503;
    in.realm = me.realm;
    in.principal = me.p;
    in.creds = &m.c;
    in.n = 1;
    assert_int_equal(gk5i_ccache_serialize(&in, &bytes, &len), GK5_OK);
    /* version 2, principal 4+4+(4+1)+(4+1) = 18, client 18, server 18 */
    kb = 2 + 18 + 18 + 18;
    assert_int_equal(load_be16(bytes + kb), ET_AES256);
    assert_int_equal(load_be16(bytes + kb + 2), ET_AES256);
    assert_int_equal(gk5i_ccache_parse(bytes, len, &cc), GK5_OK);
    gk5i_ccache_free(cc);
    store_be16(bytes + kb + 2, ET_AES128);
    assert_int_equal(gk5i_ccache_parse(bytes, len, &cc), GK5_ERR_CCACHE_FORMAT);
    assert_null(cc);
    gk5i_clear_free(bytes, len);
}

/* ---- MIT's cache ---- */

static void test_mit_cache(void **state)
{
    vec_file *f = vec_open("mit_ccache.txt");
    vec_block *b = vec_next(f);
    struct gk5i_ccache *cc = NULL;
    const uint8_t *file, *head;
    uint8_t *copy;
    size_t len, i, ncred, head_len;
    char *text = NULL;

    (void)state;
    assert_non_null(b);
    len = vec_bytes(b, "ccache", &file);
    copy = malloc(len);
    assert_non_null(copy);
    memcpy(copy, file, len);
    assert_int_equal(gk5i_ccache_parse(copy, len, &cc), GK5_OK);
    /* Parsed from a copy: nothing points into the caller's bytes. */
    memset(copy, 0, len);
    free(copy);
    assert_int_equal(cc->version, vec_int(b, "version", 0, 65535));
    assert_true(cc->has_time_offset);
    assert_int_equal(cc->time_offset_sec,
                     vec_int(b, "time_offset_sec", INT32_MIN, INT32_MAX));
    assert_int_equal(cc->time_offset_usec,
                     vec_int(b, "time_offset_usec", INT32_MIN, INT32_MAX));
    assert_int_equal(gk5i_principal_unparse(cc->realm, &cc->principal, &text),
                     GK5_OK);
    assert_string_equal(text, vec_str(b, "principal"));
    free(text);
    assert_int_equal(cc->principal.name_type,
                     vec_int(b, "name_type", INT32_MIN, INT32_MAX));
    ncred = (size_t)vec_int(b, "creds", 0, 100);
    assert_int_equal(cc->n, ncred);
    vec_done(b);

    for (i = 0; i < ncred; i++) {
        const struct gk5i_cc_cred *c = &cc->creds[i];

        b = vec_next(f);
        assert_non_null(b);
        assert_int_equal(vec_int(b, "index", 0, 100), i);
        assert_int_equal(
            gk5i_principal_unparse(c->client_realm, &c->client, &text), GK5_OK);
        assert_string_equal(text, vec_str(b, "client"));
        free(text);
        assert_int_equal(
            gk5i_principal_unparse(c->server_realm, &c->server, &text), GK5_OK);
        assert_string_equal(text, vec_str(b, "server"));
        free(text);
        assert_int_equal(c->server.name_type,
                         vec_int(b, "server_type", INT32_MIN, INT32_MAX));
        assert_int_equal(c->config, vec_int(b, "config", 0, 1));
        assert_int_equal(c->keytype, vec_int(b, "keytype", -32768, 32767));
        assert_int_equal(c->key_len, vec_int(b, "key_len", 0, 32));
        assert_int_equal(c->authtime, vec_int(b, "authtime", 0, UINT32_MAX));
        assert_int_equal(c->starttime, vec_int(b, "starttime", 0, UINT32_MAX));
        assert_int_equal(c->endtime, vec_int(b, "endtime", 0, UINT32_MAX));
        assert_int_equal(c->renew_till,
                         vec_int(b, "renew_till", 0, UINT32_MAX));
        assert_int_equal(c->is_skey, vec_int(b, "is_skey", 0, 1));
        assert_int_equal(c->flags, vec_int(b, "flags", 0, UINT32_MAX));
        assert_true(c->addrs.len >= 4 && c->authdata.len >= 4);
        assert_int_equal(load_be32(c->addrs.p),
                         vec_int(b, "addrs", 0, UINT32_MAX));
        assert_int_equal(load_be32(c->authdata.p),
                         vec_int(b, "authdata", 0, UINT32_MAX));
        assert_int_equal(c->ticket.len, vec_int(b, "ticket_len", 0, 1 << 20));
        head_len = vec_bytes(b, "ticket_head", &head);
        assert_true(head_len <= c->ticket.len);
        assert_memory_equal(c->ticket.p, head, head_len);
        assert_int_equal(c->second_ticket.len,
                         vec_int(b, "second_ticket_len", 0, 1 << 20));
        check_principal_inside(cc, c->client_realm, &c->client);
        check_principal_inside(cc, c->server_realm, &c->server);
        vec_done(b);
    }
    assert_null(vec_next(f));
    vec_close(f);

    /* Found as kvno would find it; the TGT too; the configuration entry
     * never, nor anything once expired. */
    {
        struct name svc, tgt;
        const struct gk5i_cc_cred *got;

        name_set(&svc, "gk5/localhost@GK5.TEST", 3);
        name_set(&tgt, "krbtgt/GK5.TEST@GK5.TEST", 2);
        got = gk5i_ccache_find(cc, svc.realm, &svc.p, cc->creds[2].authtime);
        assert_ptr_equal(got, &cc->creds[2]);
        got = gk5i_ccache_find(cc, tgt.realm, &tgt.p, cc->creds[1].authtime);
        assert_ptr_equal(got, &cc->creds[1]);
        assert_null(
            gk5i_ccache_find(cc, svc.realm, &svc.p, cc->creds[2].endtime));
        assert_null(gk5i_ccache_find(cc, cc->creds[0].server_realm,
                                     &cc->creds[0].server, 0));
    }
    gk5i_ccache_free(cc);
}

/* The MIT file's bytes, and where each credential ends. */
static size_t mit_bytes(uint8_t **out, size_t *ends, size_t max_ends,
                        size_t *n_ends)
{
    vec_file *f = vec_open("mit_ccache.txt");
    vec_block *b = vec_next(f);
    struct gk5i_ccache *cc = NULL;
    const uint8_t *file;
    size_t len, i;

    len = vec_bytes(b, "ccache", &file);
    *out = malloc(len);
    assert_non_null(*out);
    memcpy(*out, file, len);
    vec_close(f);
    assert_int_equal(gk5i_ccache_parse(*out, len, &cc), GK5_OK);
    assert_true(cc->n + 1 <= max_ends);
    /* The first credential begins where its client's name type is: the
     * second ticket of each ends it. */
    ends[0] = (size_t)(cc->creds[0].client_realm.p - cc->buf) - 12;
    for (i = 0; i < cc->n; i++) {
        const struct gk5i_cc_cred *c = &cc->creds[i];

        ends[i + 1] =
            (size_t)(c->second_ticket.p - cc->buf) + c->second_ticket.len;
    }
    *n_ends = cc->n + 1;
    gk5i_ccache_free(cc);
    return len;
}

/* Cut at every offset: refused, except exactly between two credentials
 * (a shorter cache: the format has no count). */
static void test_mit_truncations(void **state)
{
    uint8_t *file;
    size_t ends[8], n_ends, len, cut, j;

    (void)state;
    len = mit_bytes(&file, ends, GK5_ARRAY_SIZE(ends), &n_ends);
    assert_int_equal(ends[n_ends - 1], len);
    assert_int_equal(ends[0], 2 + 2 + 12 + 34);
    for (cut = 0; cut <= len; cut++) {
        struct gk5i_ccache *cc = (struct gk5i_ccache *)1;
        uint32_t want = GK5_ERR_CCACHE_FORMAT;
        size_t want_n = 0;
        uint32_t rc;

        for (j = 0; j < n_ends; j++) {
            if (cut == ends[j]) {
                want = GK5_OK;
                want_n = j;
            }
        }
        rc = gk5i_ccache_parse(file, cut, &cc);
        assert_int_equal(rc, want);
        if (rc == GK5_OK) {
            assert_int_equal(cc->n, want_n);
            gk5i_ccache_free(cc);
        } else {
            assert_null(cc);
        }
    }
    /* One byte more: a credential that is one byte long. */
    {
        uint8_t *more = malloc(len + 1);
        struct gk5i_ccache *cc = NULL;

        assert_non_null(more);
        memcpy(more, file, len);
        more[len] = 0;
        assert_int_equal(gk5i_ccache_parse(more, len + 1, &cc),
                         GK5_ERR_CCACHE_FORMAT);
        assert_null(cc);
        free(more);
    }
    free(file);
}

static void expect_refused(const uint8_t *file, size_t len, size_t at,
                           uint32_t v, size_t width)
{
    uint8_t *bad = malloc(len);
    struct gk5i_ccache *cc = (struct gk5i_ccache *)1;

    assert_non_null(bad);
    memcpy(bad, file, len);
    if (width == 4) {
        store_be32(bad + at, v);
    } else if (width == 2) {
        store_be16(bad + at, (uint16_t)v);
    } else {
        bad[at] = (uint8_t)v;
    }
    if (gk5i_ccache_parse(bad, len, &cc) != GK5_ERR_CCACHE_FORMAT) {
        fail_msg("a corrupted field at byte %zu (0x%x) was not refused", at,
                 (unsigned)v);
    }
    assert_null(cc);
    free(bad);
}

/* Every length and count of the MIT file made too large, the version,
 * is_skey, the component count past the limit. */
static void test_mit_corrupted(void **state)
{
    static const uint32_t lies[] = {0xffffffffu, 0x80000000u, 0x00ffffffu,
                                    0x0000ffffu};
    struct gk5i_ccache *cc = NULL;
    uint8_t *file;
    size_t ends[8], n_ends, len, i, k, at;

    (void)state;
    len = mit_bytes(&file, ends, GK5_ARRAY_SIZE(ends), &n_ends);
    assert_int_equal(gk5i_ccache_parse(file, len, &cc), GK5_OK);

    expect_refused(file, len, 0, 4, 1);    /* not 5 */
    expect_refused(file, len, 1, 1, 1);    /* version 1 */
    expect_refused(file, len, 1, 2, 1);    /* version 2 */
    expect_refused(file, len, 1, 5, 1);    /* version 5 */
    expect_refused(file, len, 2, 0xff, 2); /* header length */
    expect_refused(file, len, 2, 11, 2);   /* header cut inside a field */
    expect_refused(file, len, 6, 9, 2);    /* the offset tag's length */
    expect_refused(file, len, 20, 11, 4);  /* components past the limit */
    for (k = 0; k < GK5_ARRAY_SIZE(lies); k++) {
        expect_refused(file, len, 20, lies[k], 4); /* component count */
        expect_refused(file, len, 24, lies[k], 4); /* realm length */
    }
    for (i = 0; i < cc->n; i++) {
        const struct gk5i_cc_cred *c = &cc->creds[i];
        const struct gk5i_view data[] = {
            c->client_realm,   c->client.comp[0], c->server_realm,
            c->server.comp[0], c->ticket,         c->second_ticket,
        };
        size_t kb;

        for (k = 0; k < GK5_ARRAY_SIZE(lies); k++) {
            size_t d;

            for (d = 0; d < GK5_ARRAY_SIZE(data); d++) {
                at = (size_t)(data[d].p - cc->buf) - 4;
                expect_refused(file, len, at, lies[k], 4);
            }
            /* the component counts of client and server */
            at = (size_t)(c->client_realm.p - cc->buf) - 8;
            expect_refused(file, len, at, lies[k], 4);
            at = (size_t)(c->server_realm.p - cc->buf) - 8;
            expect_refused(file, len, at, lies[k], 4);
            /* the address and authdata counts */
            expect_refused(file, len, (size_t)(c->addrs.p - cc->buf), lies[k],
                           4);
            expect_refused(file, len, (size_t)(c->authdata.p - cc->buf),
                           lies[k], 4);
        }
        /* the key's length: past 32 bytes, and past the file */
        kb = (size_t)(c->addrs.p - cc->buf) - 4 - 1 - 16 - c->key_len - 4;
        expect_refused(file, len, kb, 33, 4);
        expect_refused(file, len, kb, 0xffffffffu, 4);
        /* is_skey neither 0 nor 1 */
        expect_refused(file, len, (size_t)(c->addrs.p - cc->buf) - 5, 2, 1);
    }
    gk5i_ccache_free(cc);
    free(file);
}

/* A file just over the limit is refused unread; so is a NULL input. */
static void test_limits(void **state)
{
    struct gk5i_ccache *cc = NULL;
    struct gk5i_ccache in;
    struct name me;
    uint8_t *b = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(gk5i_ccache_parse(NULL, 1, &cc), GK5_ERR_CCACHE_FORMAT);
    assert_int_equal(gk5i_ccache_parse(NULL, GK5I_CCACHE_MAX_BYTES + 1u, &cc),
                     GK5_ERR_CCACHE_FORMAT);
    assert_int_equal(gk5i_ccache_parse(NULL, 0, &cc), GK5_ERR_CCACHE_FORMAT);
    assert_null(cc);

    /* A principal of GK5I_KRB_MAX_COMPONENTS components is read; one of
     * more is not. */
    {
        uint8_t f[200];
        size_t at, k, ncomp;

        for (ncomp = GK5I_KRB_MAX_COMPONENTS; ncomp <= 12; ncomp++) {
            store_be16(f, 0x0504);
            store_be16(f + 2, 0);
            store_be32(f + 4, 1);
            store_be32(f + 8, (uint32_t)ncomp);
            store_be32(f + 12, 1);
            f[16] = 'R';
            at = 17;
            for (k = 0; k < ncomp; k++) {
                store_be32(f + at, 1);
                f[at + 4] = (uint8_t)('a' + k);
                at += 5;
            }
            assert_int_equal(gk5i_ccache_parse(f, at, &cc),
                             ncomp == GK5I_KRB_MAX_COMPONENTS
                                 ? GK5_OK
                                 : GK5_ERR_CCACHE_FORMAT);
            if (cc != NULL) {
                assert_int_equal(cc->principal.ncomp, ncomp);
                assert_int_equal(cc->principal.comp[ncomp - 1].p[0],
                                 'a' + ncomp - 1);
                gk5i_ccache_free(cc);
                cc = NULL;
            }
        }
    }

    /* GK5I_CCACHE_MAX_CREDS credentials are read; one more is not. */
    {
        static struct gk5i_cc_cred creds[GK5I_CCACHE_MAX_CREDS + 1];
        struct mk m;
        size_t i;

        mk_cred(&m, "a@R", "b@R", 2);
        for (i = 0; i < GK5_ARRAY_SIZE(creds); i++) {
            creds[i] = m.c;
        }
        name_set(&me, "a@R", 1);
        memset(&in, 0, sizeof(in));
        in.version = 0x0504;
        in.realm = me.realm;
        in.principal = me.p;
        in.creds = creds;
        in.n = GK5I_CCACHE_MAX_CREDS;
        assert_int_equal(gk5i_ccache_serialize(&in, &b, &len), GK5_OK);
        assert_int_equal(gk5i_ccache_parse(b, len, &cc), GK5_OK);
        assert_int_equal(cc->n, GK5I_CCACHE_MAX_CREDS);
        gk5i_ccache_free(cc);
        cc = NULL;
        gk5i_clear_free(b, len);
        in.n++;
        assert_int_equal(gk5i_ccache_serialize(&in, &b, &len),
                         GK5_ERR_INVALID_ARGUMENT);
        assert_null(b);
        /* one more made by hand: the bytes of the last appended again */
        in.n--;
        assert_int_equal(gk5i_ccache_serialize(&in, &b, &len), GK5_OK);
        {
            size_t one = (len - (2 + 2 + 18)) / GK5I_CCACHE_MAX_CREDS;
            uint8_t *more = malloc(len + one);

            assert_non_null(more);
            memcpy(more, b, len);
            memcpy(more + len, b + len - one, one);
            assert_int_equal(gk5i_ccache_parse(more, len + one, &cc),
                             GK5_ERR_CCACHE_FORMAT);
            assert_null(cc);
            free(more);
        }
        gk5i_clear_free(b, len);
    }
}

/* What the writer refuses to write. */
static void test_write_refused(void **state)
{
    struct mk m;
    struct name me;
    struct gk5i_cc_cred c;
    char dir[64], path[128];
    static const uint8_t bad_list[] = {0, 0, 0, 1, 0, 2, 0, 0, 0, 9, 1};

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "a@R", 1);
    mk_cred(&m, "a@R", "b@R", 1);

    assert_int_equal(gk5i_ccache_write(NULL, me.realm, &me.p, NULL, 0),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_ccache_write(path, me.realm, NULL, NULL, 0),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, NULL, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    c = m.c;
    c.key_len = GK5_MAX_KEY_BYTES + 1;
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &c, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    c = m.c;
    c.server.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &c, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    c = m.c;
    c.keytype = 70000;
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &c, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    c = m.c;
    c.addrs.p = bad_list;
    c.addrs.len = sizeof(bad_list);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &c, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    c = m.c;
    c.authdata.p = NULL;
    c.authdata.len = 3;
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &c, 1),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_ccache_append(path, &c), GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(dir_entries(dir), 0);

    /* A directory that does not exist. */
    snprintf(path, sizeof(path), "%s/none/cc", dir);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &m.c, 1),
                     GK5_ERR_CCACHE_WRITE);
    rmdir_all(dir);
}

static void test_read_errors(void **state)
{
    struct gk5i_ccache *cc = NULL;
    char dir[64], path[128];
    static const uint8_t v2[] = {5, 2, 0, 0, 0, 1};

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/none", dir);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_ERR_CCACHE_NOT_FOUND);
    assert_int_equal(gk5i_ccache_read(dir, &cc), GK5_ERR_CCACHE_READ);
    assert_int_equal(gk5i_ccache_read(NULL, &cc), GK5_ERR_CCACHE_READ);
    snprintf(path, sizeof(path), "%s/v2", dir);
    write_file(path, v2, sizeof(v2));
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_ERR_CCACHE_FORMAT);
    write_file(path, "", 0);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_ERR_CCACHE_FORMAT);
    assert_null(cc);
    rmdir_all(dir);
}

/* ---- lookups ---- */

static void test_find(void **state)
{
    struct gk5i_ccache *cc = NULL;
    struct mk m[7];
    struct gk5i_cc_cred creds[7];
    struct name me, svc, other;
    char dir[64], path[128];
    size_t i;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "u@R", 1);
    name_set(&svc, "host/h@R", 3);
    name_set(&other, "host/h@S", 3);
    mk_cred(&m[0], "u@R", "host/h@R", 1); /* older, valid */
    m[0].c.endtime = 2000;
    mk_cred(&m[1], "u@R", "host/h@R", 3); /* newer, valid */
    m[1].c.endtime = 1500;
    mk_cred(&m[2], "u@R", "host/h@R", 5); /* newest, expired at 1000 */
    m[2].c.endtime = 1000;
    mk_cred(&m[3], "v@R", "host/h@R", 7); /* another client */
    m[3].c.endtime = 3000;
    mk_cred(&m[4], "u@R", "host/h@R", 4); /* user-to-user */
    m[4].c.endtime = 3000;
    assert_true(m[4].c.is_skey);
    mk_config(&m[5], "u@R", "pa_type", "2");
    mk_cred(&m[6], "u@R", "host/h@S", 7); /* another realm */
    for (i = 0; i < 7; i++) {
        creds[i] = m[i].c;
    }
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, creds, 7),
                     GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 999),
                     &cc->creds[2]);
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 1000),
                     &cc->creds[1]);
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 1499),
                     &cc->creds[1]);
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 1500),
                     &cc->creds[0]);
    assert_null(gk5i_ccache_find(cc, svc.realm, &svc.p, 2000));
    assert_ptr_equal(gk5i_ccache_find(cc, other.realm, &other.p, 0),
                     &cc->creds[6]);
    /* The name type does not matter. */
    svc.p.name_type = 1;
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 1000),
                     &cc->creds[1]);
    /* A configuration entry is never found, even by its own name. */
    assert_null(gk5i_ccache_find(cc, cc->creds[5].server_realm,
                                 &cc->creds[5].server, 0));
    assert_true(cc->creds[5].config);
    assert_null(gk5i_ccache_find(NULL, svc.realm, &svc.p, 0));
    assert_null(gk5i_ccache_find(cc, svc.realm, NULL, 0));
    gk5i_ccache_free(cc);
    rmdir_all(dir);
}

/* The newest credential whose session key is of a type asked for: a
 * newer one of another type does not hide it. */
static void test_find_keytype(void **state)
{
    static const int32_t aes128[] = {ET_AES128}, aes256[] = {ET_AES256},
                         both[] = {ET_AES128, ET_AES256}, other[] = {20};
    struct gk5i_ccache *cc = NULL;
    struct mk m[2];
    struct gk5i_cc_cred creds[2];
    struct name me, svc;
    char dir[64], path[128];

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "u@R", 1);
    name_set(&svc, "host/h@R", 3);
    mk_cred(&m[0], "u@R", "host/h@R", 2); /* older, aes128 */
    m[0].c.endtime = 2000;
    mk_cred(&m[1], "u@R", "host/h@R", 1); /* newer, aes256 */
    m[1].c.endtime = 3000;
    assert_int_equal(m[0].c.keytype, ET_AES128);
    assert_int_equal(m[1].c.keytype, ET_AES256);
    creds[0] = m[0].c;
    creds[1] = m[1].c;
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, creds, 2),
                     GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_ptr_equal(gk5i_ccache_find(cc, svc.realm, &svc.p, 1000),
                     &cc->creds[1]);
    assert_ptr_equal(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 1000, NULL, 0),
        &cc->creds[1]);
    assert_ptr_equal(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 1000, aes128, 1),
        &cc->creds[0]);
    assert_ptr_equal(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 1000, aes256, 1),
        &cc->creds[1]);
    assert_ptr_equal(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 1000, both, 2),
        &cc->creds[1]);
    assert_null(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 1000, other, 1));
    /* Expired, the older one is not found by its type either. */
    assert_null(
        gk5i_ccache_find_keytype(cc, svc.realm, &svc.p, 2000, aes128, 1));
    gk5i_ccache_free(cc);
    rmdir_all(dir);
}

/* ---- append, destroy ---- */

static void test_append(void **state)
{
    struct gk5i_ccache in, *cc = NULL;
    struct mk m[3];
    struct name me;
    char dir[64], path[128];
    size_t i;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "u@R", 1);
    for (i = 0; i < 3; i++) {
        mk_cred(&m[i], "u@R", "krbtgt/R@R", (unsigned)i + 1);
    }
    assert_int_equal(gk5i_ccache_append(path, &m[0].c),
                     GK5_ERR_CCACHE_NOT_FOUND);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &m[0].c, 1),
                     GK5_OK);
    assert_int_equal(gk5i_ccache_append(path, &m[1].c), GK5_OK);
    assert_int_equal(gk5i_ccache_append(path, &m[2].c), GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->n, 3);
    for (i = 0; i < 3; i++) {
        check_cred_eq(cc, &cc->creds[i], &m[i].c);
    }
    gk5i_ccache_free(cc);

    /* To a version 3 cache, in version 3's keyblock. */
    memset(&in, 0, sizeof(in));
    in.version = 0x0503;
    in.realm = me.realm;
    in.principal = me.p;
    assert_int_equal(gk5i_ccache_store(path, &in), GK5_OK);
    assert_int_equal(gk5i_ccache_append(path, &m[1].c), GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->version, 0x0503);
    assert_int_equal(cc->n, 1);
    check_cred_eq(cc, &cc->creds[0], &m[1].c);
    gk5i_ccache_free(cc);

    /* Not a cache: left as it is. */
    write_file(path, "\x05\x02hello", 7);
    assert_int_equal(gk5i_ccache_append(path, &m[1].c), GK5_ERR_CCACHE_FORMAT);
    write_file(path, "", 0);
    assert_int_equal(gk5i_ccache_append(path, &m[1].c), GK5_ERR_CCACHE_FORMAT);
    {
        struct stat st;

        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 0);
    }
    rmdir_all(dir);
}

static void test_destroy(void **state)
{
    struct gk5i_ccache *cc = NULL;
    struct mk m;
    struct name me;
    char dir[64], path[128], target[128];
    uint8_t buf[4096];
    struct stat st;
    ssize_t got, k;
    int fd;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "u@R", 1);
    mk_cred(&m, "u@R", "krbtgt/R@R", 1);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &m.c, 1), GK5_OK);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    assert_true(st.st_size > 0);
    assert_int_equal(gk5i_ccache_destroy(path), GK5_OK);
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_ERR_CCACHE_NOT_FOUND);
    /* What was open still holds the bytes: all zeros now. */
    got = pread(fd, buf, sizeof(buf), 0);
    assert_int_equal(got, st.st_size);
    for (k = 0; k < got; k++) {
        assert_int_equal(buf[k], 0);
    }
    close(fd);
    assert_int_equal(gk5i_ccache_destroy(path), GK5_ERR_CCACHE_NOT_FOUND);
    assert_int_equal(gk5i_ccache_destroy(NULL), GK5_ERR_INVALID_ARGUMENT);

    /* A symbolic link goes; what it points at stays as it was. */
    snprintf(target, sizeof(target), "%s/precious", dir);
    write_file(target, "keep me", 7);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(gk5i_ccache_destroy(path), GK5_OK);
    assert_int_equal(lstat(path, &st), -1);
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_size, 7);
    fd = open(target, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, buf, 7), 7);
    assert_memory_equal(buf, "keep me", 7);
    close(fd);
    rmdir_all(dir);
}

/* ---- locks ---- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A child that takes an OFD lock of type on path (as MIT's kinit, kvno or
 * klist take theirs), says so on the pipe, holds it hold_ms, and exits. */
static pid_t hold_lock(const char *path, short type, int hold_ms)
{
    int p[2];
    pid_t pid;
    char c;

    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct flock fl;
        int fd = open(path, type == F_WRLCK ? O_RDWR : O_RDONLY);

        memset(&fl, 0, sizeof(fl));
        fl.l_type = type;
        fl.l_whence = SEEK_SET;
        if (fd < 0 || fcntl(fd, F_OFD_SETLKW, &fl) != 0) {
            _exit(1);
        }
        if (write(p[1], "x", 1) != 1) {
            _exit(1);
        }
        usleep((useconds_t)hold_ms * 1000);
        _exit(0);
    }
    close(p[1]);
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    return pid;
}

/* The child's exit status is not looked at: under valgrind it reports
 * the heap it inherited as leaked.  That it held its lock, the byte on the
 * pipe says. */
static void reap(pid_t pid)
{
    int status = 0;

    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
}

static void test_locks(void **state)
{
    struct gk5i_ccache *cc = NULL;
    struct mk m;
    struct name me;
    char dir[64], path[128];
    double t0, waited;
    pid_t pid;

    (void)state;
    /* A broken lock would hang here: the alarm ends the test instead. */
    alarm(20);
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    name_set(&me, "u@R", 1);
    mk_cred(&m, "u@R", "krbtgt/R@R", 1);
    assert_int_equal(gk5i_ccache_write(path, me.realm, &me.p, &m.c, 1), GK5_OK);

    /* A writer's lock held elsewhere: the reader waits for it. */
    pid = hold_lock(path, F_WRLCK, 400);
    t0 = now_s();
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    waited = now_s() - t0;
    reap(pid);
    assert_true(waited > 0.3);
    assert_int_equal(cc->n, 1);
    gk5i_ccache_free(cc);

    /* A reader's lock: an append waits; another reader does not. */
    pid = hold_lock(path, F_RDLCK, 400);
    t0 = now_s();
    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_true(now_s() - t0 < 0.3);
    gk5i_ccache_free(cc);
    t0 = now_s();
    assert_int_equal(gk5i_ccache_append(path, &m.c), GK5_OK);
    waited = now_s() - t0;
    reap(pid);
    assert_true(waited > 0.2);

    /* destroy waits for a reader too. */
    pid = hold_lock(path, F_RDLCK, 400);
    t0 = now_s();
    assert_int_equal(gk5i_ccache_destroy(path), GK5_OK);
    waited = now_s() - t0;
    reap(pid);
    assert_true(waited > 0.3);
    alarm(0);
    rmdir_all(dir);
}

/* ---- the dump the vector was made with ---- */

static int dump(const char *path)
{
    FILE *f = fopen(path, "rb");
    int c;

    if (f == NULL) {
        perror(path);
        return 1;
    }
    printf("ccache = ");
    while ((c = getc(f)) != EOF) {
        printf("%02x", (unsigned)c);
    }
    printf("\n");
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_trace),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_time_offset_and_v3),
        cmocka_unit_test(test_v3_enctype_twice),
        cmocka_unit_test(test_mit_cache),
        cmocka_unit_test(test_mit_truncations),
        cmocka_unit_test(test_mit_corrupted),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_write_refused),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_find_keytype),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_destroy),
        cmocka_unit_test(test_locks),
    };

    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        return dump(argv[2]);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
