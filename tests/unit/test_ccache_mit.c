/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's FILE credential caches (src/krb5/ccache.c) against MIT libkrb5's:
 * a cache gk5 writes is read by krb5_cc_get_principal and
 * krb5_cc_next_cred, every credential equal; caches MIT writes
 * (krb5_cc_initialize and krb5_cc_store_cred; version 4 with and without
 * the KDC time offset, version 3 through ccache_type = 3) are read by gk5,
 * every credential equal; and MIT's klist lists a gk5 cache.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <krb5.h>

#include "krb5/krb5_int.h"
#include "vecfile.h"

#define NCRED 6

/* The made-up credentials both sides write: names as C strings. */
struct src {
    const char *client, *server; /* "a/b@R" (no escapes) */
    int32_t server_type;
    int32_t keytype;
    uint8_t key[32];
    size_t key_len;
    uint32_t times[4];
    bool is_skey;
    uint32_t flags;
    int n_addr, n_ad;
    uint8_t ticket[300];
    size_t ticket_len;
    uint8_t second[50];
    size_t second_len;
};

static struct src srcs[NCRED];
static const char me[] = "user/admin@EXAMPLE.ORG";

static void make_srcs(void)
{
    static const char *const servers[NCRED] = {
        "krb5_ccache_conf_data/fast_avail@X-CACHECONF:",
        "krbtgt/EXAMPLE.ORG@EXAMPLE.ORG",
        "host/a.example.org@EXAMPLE.ORG",
        "nfs/b.example.org@EXAMPLE.ORG",
        "HTTP/c.example.org@OTHER.ORG",
        "user/admin@EXAMPLE.ORG",
    };
    size_t i, j;

    memset(srcs, 0, sizeof(srcs));
    for (i = 0; i < NCRED; i++) {
        struct src *s = &srcs[i];

        s->client = me;
        s->server = servers[i];
        s->server_type = i == 1 ? 2 : (int32_t)(i % 3);
        if (i != 0) {
            s->keytype = i % 2 ? 18 : 17;
            s->key_len = i % 2 ? 32 : 16;
            for (j = 0; j < s->key_len; j++) {
                s->key[j] = (uint8_t)(i * 31 + j);
            }
            s->times[0] = 1800000000u + (uint32_t)i;
            s->times[1] = 1800000010u + (uint32_t)i;
            s->times[2] = 3000000000u + (uint32_t)i; /* past 2038 */
            s->times[3] = i % 2 ? 3100000000u : 0;
            s->flags = 0x40e00000u | (uint32_t)i;
            s->n_addr = (int)(i % 3);
            s->n_ad = (int)((i + 1) % 3);
        }
        s->is_skey = i == 5;
        s->ticket_len = i == 0 ? 3 : 100 + i * 20;
        for (j = 0; j < s->ticket_len; j++) {
            s->ticket[j] = i == 0 ? (uint8_t) "yes"[j] : (uint8_t)(j ^ i);
        }
        if (s->is_skey) {
            s->second_len = 40;
            memset(s->second, 0xa5, s->second_len);
        }
    }
}

static uint8_t addr_bytes[2][4] = {{127, 0, 0, 1}, {10, 1, 2, 3}};
static uint8_t ad_bytes[2][3] = {{'a', 'd', '1'}, {'x', 'y', 'z'}};

/* ---- the gk5 side ---- */

struct name {
    char text[256];
    struct gk5i_view realm;
    struct gk5i_krb_principal p;
};

static void name_set(struct name *n, const char *s, int32_t type)
{
    char *at, *c, *slash;

    memset(n, 0, sizeof(*n));
    strcpy(n->text, s);
    at = strrchr(n->text, '@');
    assert_non_null(at);
    *at = '\0';
    n->realm.p = (const uint8_t *)(at + 1);
    n->realm.len = strlen(at + 1);
    n->p.name_type = type;
    for (c = n->text; c != NULL; c = slash) {
        slash = strchr(c, '/');
        if (slash != NULL) {
            *slash++ = '\0';
        }
        n->p.comp[n->p.ncomp].p = (const uint8_t *)c;
        n->p.comp[n->p.ncomp].len = strlen(c);
        n->p.ncomp++;
    }
}

struct gk5side {
    struct name client[NCRED], server[NCRED];
    uint8_t addrs[NCRED][64], ad[NCRED][64];
    struct gk5i_cc_cred c[NCRED];
};

/* count + (16-bit type, 32-bit length, bytes) each */
static size_t list_bytes(uint8_t *out, int n, uint16_t type0,
                         const uint8_t *vals, size_t vlen)
{
    size_t at = 4;
    int i;

    store_be32(out, (uint32_t)n);
    for (i = 0; i < n; i++) {
        store_be16(out + at, (uint16_t)(type0 + i));
        store_be32(out + at + 2, (uint32_t)vlen);
        memcpy(out + at + 6, vals + (size_t)i * vlen, vlen);
        at += 6 + vlen;
    }
    return at;
}

static void gk5_creds(struct gk5side *g)
{
    size_t i;

    memset(g, 0, sizeof(*g));
    for (i = 0; i < NCRED; i++) {
        const struct src *s = &srcs[i];
        struct gk5i_cc_cred *c = &g->c[i];

        name_set(&g->client[i], s->client, 1);
        name_set(&g->server[i], s->server, s->server_type);
        c->client_realm = g->client[i].realm;
        c->client = g->client[i].p;
        c->server_realm = g->server[i].realm;
        c->server = g->server[i].p;
        c->keytype = s->keytype;
        memcpy(c->key, s->key, s->key_len);
        c->key_len = s->key_len;
        c->authtime = s->times[0];
        c->starttime = s->times[1];
        c->endtime = s->times[2];
        c->renew_till = s->times[3];
        c->is_skey = s->is_skey;
        c->flags = s->flags;
        if (s->n_addr != 0) {
            c->addrs.p = g->addrs[i];
            c->addrs.len =
                list_bytes(g->addrs[i], s->n_addr, 2, &addr_bytes[0][0], 4);
        }
        if (s->n_ad != 0) {
            c->authdata.p = g->ad[i];
            c->authdata.len =
                list_bytes(g->ad[i], s->n_ad, 1, &ad_bytes[0][0], 3);
        }
        c->ticket.p = s->ticket;
        c->ticket.len = s->ticket_len;
        c->second_ticket.p = s->second;
        c->second_ticket.len = s->second_len;
    }
}

/* Whether gk5's principal is the text s (components and realm). */
static void gk5_name_is(struct gk5i_view realm,
                        const struct gk5i_krb_principal *p, const char *s,
                        int32_t type)
{
    struct name want;

    name_set(&want, s, type);
    assert_true(gk5i_principal_equal(realm, p, want.realm, &want.p));
    assert_int_equal(p->name_type, type);
}

/* gk5's list view holds n entries of (type0 + i, vals[i]). */
static void gk5_list_is(struct gk5i_view v, int n, uint16_t type0,
                        const void *vals, size_t vlen)
{
    size_t at = 4;
    int i;

    assert_true(v.len >= 4);
    assert_int_equal(load_be32(v.p), n);
    for (i = 0; i < n; i++) {
        assert_true(at + 6 + vlen <= v.len);
        assert_int_equal(load_be16(v.p + at), type0 + i);
        assert_int_equal(load_be32(v.p + at + 2), vlen);
        assert_memory_equal(v.p + at + 6, (const uint8_t *)vals + i * vlen,
                            vlen);
        at += 6 + vlen;
    }
    assert_int_equal(at, v.len);
}

static void gk5_cred_is(const struct gk5i_cc_cred *c, const struct src *s)
{
    static const uint8_t adv[2][3] = {{'a', 'd', '1'}, {'x', 'y', 'z'}};

    gk5_name_is(c->client_realm, &c->client, s->client, 1);
    gk5_name_is(c->server_realm, &c->server, s->server, s->server_type);
    assert_int_equal(c->keytype, s->keytype);
    assert_int_equal(c->key_len, s->key_len);
    assert_memory_equal(c->key, s->key, s->key_len);
    assert_int_equal(c->authtime, s->times[0]);
    assert_int_equal(c->starttime, s->times[1]);
    assert_int_equal(c->endtime, s->times[2]);
    assert_int_equal(c->renew_till, s->times[3]);
    assert_int_equal(c->is_skey, s->is_skey);
    assert_int_equal(c->flags, s->flags);
    gk5_list_is(c->addrs, s->n_addr, 2, addr_bytes, 4);
    gk5_list_is(c->authdata, s->n_ad, 1, adv, 3);
    assert_int_equal(c->ticket.len, s->ticket_len);
    assert_memory_equal(c->ticket.p, s->ticket, s->ticket_len);
    assert_int_equal(c->second_ticket.len, s->second_len);
    if (s->second_len != 0) {
        assert_memory_equal(c->second_ticket.p, s->second, s->second_len);
    }
    assert_int_equal(c->config, s == &srcs[0]);
}

/* ---- the MIT side ---- */

static void mit_name_is(krb5_context ctx, krb5_const_principal p, const char *s,
                        int32_t type)
{
    struct name want;
    int32_t i;

    (void)ctx;
    name_set(&want, s, type);
    assert_int_equal(p->type, type);
    assert_int_equal(p->realm.length, want.realm.len);
    assert_memory_equal(p->realm.data, want.realm.p, want.realm.len);
    assert_int_equal(p->length, (int32_t)want.p.ncomp);
    for (i = 0; i < p->length; i++) {
        assert_int_equal(p->data[i].length, want.p.comp[i].len);
        assert_memory_equal(p->data[i].data, want.p.comp[i].p,
                            want.p.comp[i].len);
    }
}

static void mit_cred_is(krb5_context ctx, const krb5_creds *m,
                        const struct src *s)
{
    int i;

    mit_name_is(ctx, m->client, s->client, 1);
    mit_name_is(ctx, m->server, s->server, s->server_type);
    assert_int_equal(m->keyblock.enctype, s->keytype);
    assert_int_equal(m->keyblock.length, s->key_len);
    if (s->key_len != 0) {
        assert_memory_equal(m->keyblock.contents, s->key, s->key_len);
    }
    assert_int_equal((uint32_t)m->times.authtime, s->times[0]);
    assert_int_equal((uint32_t)m->times.starttime, s->times[1]);
    assert_int_equal((uint32_t)m->times.endtime, s->times[2]);
    assert_int_equal((uint32_t)m->times.renew_till, s->times[3]);
    assert_int_equal(m->is_skey != 0, s->is_skey);
    assert_int_equal(m->ticket_flags, s->flags);
    for (i = 0; i < s->n_addr; i++) {
        assert_non_null(m->addresses);
        assert_non_null(m->addresses[i]);
        assert_int_equal(m->addresses[i]->addrtype, 2 + i);
        assert_int_equal(m->addresses[i]->length, 4);
        assert_memory_equal(m->addresses[i]->contents, addr_bytes[i], 4);
    }
    assert_true(s->n_addr == 0 ? m->addresses == NULL || m->addresses[0] == NULL
                               : m->addresses[s->n_addr] == NULL);
    for (i = 0; i < s->n_ad; i++) {
        assert_non_null(m->authdata);
        assert_non_null(m->authdata[i]);
        assert_int_equal(m->authdata[i]->ad_type, 1 + i);
        assert_int_equal(m->authdata[i]->length, 3);
        assert_memory_equal(m->authdata[i]->contents, ad_bytes[i], 3);
    }
    assert_true(s->n_ad == 0 ? m->authdata == NULL || m->authdata[0] == NULL
                             : m->authdata[s->n_ad] == NULL);
    assert_int_equal(m->ticket.length, s->ticket_len);
    assert_memory_equal(m->ticket.data, s->ticket, s->ticket_len);
    assert_int_equal(m->second_ticket.length, s->second_len);
    if (s->second_len != 0) {
        assert_memory_equal(m->second_ticket.data, s->second, s->second_len);
    }
}

static void tmpdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/gk5-ccmit-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void rmdir_all(const char *dir)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* gk5 writes, MIT reads every credential back. */
static void test_gk5_writes_mit_reads(void **state)
{
    static struct gk5side g;
    struct name n;
    krb5_context ctx;
    krb5_ccache cc;
    krb5_principal p;
    krb5_cc_cursor cur;
    krb5_creds m;
    char dir[64], path[128], name[160];
    size_t i = 0;

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    snprintf(name, sizeof(name), "FILE:%s", path);
    gk5_creds(&g);
    name_set(&n, me, 1);
    assert_int_equal(gk5i_ccache_write(path, n.realm, &n.p, g.c, NCRED),
                     GK5_OK);

    assert_int_equal(krb5_init_context(&ctx), 0);
    assert_int_equal(krb5_cc_resolve(ctx, name, &cc), 0);
    assert_int_equal(krb5_cc_get_principal(ctx, cc, &p), 0);
    mit_name_is(ctx, p, me, 1);
    krb5_free_principal(ctx, p);
    assert_int_equal(krb5_cc_start_seq_get(ctx, cc, &cur), 0);
    while (krb5_cc_next_cred(ctx, cc, &cur, &m) == 0) {
        assert_true(i < NCRED);
        mit_cred_is(ctx, &m, &srcs[i]);
        assert_int_equal(krb5_is_config_principal(ctx, m.server), i == 0);
        krb5_free_cred_contents(ctx, &m);
        i++;
    }
    assert_int_equal(i, NCRED);
    assert_int_equal(krb5_cc_end_seq_get(ctx, cc, &cur), 0);
    krb5_cc_close(ctx, cc);
    krb5_free_context(ctx);
    rmdir_all(dir);
}

/* MIT writes made-up credentials; gk5 reads them.  offset: set a KDC time
 * offset in the context first (MIT then writes the header tag). */
static void mit_writes(const char *path, bool offset, bool v3)
{
    krb5_context ctx;
    krb5_ccache cc;
    krb5_principal me_p;
    char name[160], conf[160];
    size_t i;
    int k;

    if (v3) {
        FILE *f;

        snprintf(conf, sizeof(conf), "%s.conf", path);
        f = fopen(conf, "w");
        assert_non_null(f);
        fprintf(f, "[libdefaults]\n\tccache_type = 3\n");
        fclose(f);
        assert_int_equal(setenv("KRB5_CONFIG", conf, 1), 0);
    } else {
        assert_int_equal(setenv("KRB5_CONFIG", "/dev/null", 1), 0);
    }
    assert_int_equal(krb5_init_context(&ctx), 0);
    if (offset) {
        krb5_timestamp now;
        krb5_int32 usec;

        assert_int_equal(krb5_us_timeofday(ctx, &now, &usec), 0);
        assert_int_equal(krb5_set_real_time(ctx, now + 1000, usec), 0);
    }
    snprintf(name, sizeof(name), "FILE:%s", path);
    assert_int_equal(krb5_cc_resolve(ctx, name, &cc), 0);
    assert_int_equal(krb5_parse_name(ctx, me, &me_p), 0);
    assert_int_equal(krb5_cc_initialize(ctx, cc, me_p), 0);
    for (i = 0; i < NCRED; i++) {
        struct src *s = &srcs[i];
        krb5_address addr[2], *addrs[3];
        krb5_authdata ad[2], *ads[3];
        krb5_creds m;

        memset(&m, 0, sizeof(m));
        m.client = me_p;
        /* The configuration entry too: what krb5_cc_set_config writes,
         * a principal in the realm "X-CACHECONF:". */
        assert_int_equal(krb5_parse_name(ctx, s->server, &m.server), 0);
        m.server->type = s->server_type;
        m.keyblock.enctype = s->keytype;
        m.keyblock.length = (unsigned)s->key_len;
        m.keyblock.contents = s->key;
        m.times.authtime = (krb5_timestamp)s->times[0];
        m.times.starttime = (krb5_timestamp)s->times[1];
        m.times.endtime = (krb5_timestamp)s->times[2];
        m.times.renew_till = (krb5_timestamp)s->times[3];
        m.is_skey = s->is_skey;
        m.ticket_flags = s->flags;
        for (k = 0; k < s->n_addr; k++) {
            memset(&addr[k], 0, sizeof(addr[k]));
            addr[k].addrtype = 2 + k;
            addr[k].length = 4;
            addr[k].contents = addr_bytes[k];
            addrs[k] = &addr[k];
        }
        addrs[s->n_addr] = NULL;
        m.addresses = s->n_addr != 0 ? addrs : NULL;
        for (k = 0; k < s->n_ad; k++) {
            memset(&ad[k], 0, sizeof(ad[k]));
            ad[k].ad_type = 1 + k;
            ad[k].length = 3;
            ad[k].contents = ad_bytes[k];
            ads[k] = &ad[k];
        }
        ads[s->n_ad] = NULL;
        m.authdata = s->n_ad != 0 ? ads : NULL;
        m.ticket.length = (unsigned)s->ticket_len;
        m.ticket.data = (char *)s->ticket;
        m.second_ticket.length = (unsigned)s->second_len;
        m.second_ticket.data = (char *)s->second;
        assert_int_equal(krb5_cc_store_cred(ctx, cc, &m), 0);
        krb5_free_principal(ctx, m.server);
    }
    krb5_free_principal(ctx, me_p);
    krb5_cc_close(ctx, cc);
    krb5_free_context(ctx);
    assert_int_equal(unsetenv("KRB5_CONFIG"), 0);
}

static void gk5_reads(const char *path, uint16_t version, bool offset)
{
    struct gk5i_ccache *cc = NULL;
    size_t i;

    assert_int_equal(gk5i_ccache_read(path, &cc), GK5_OK);
    assert_int_equal(cc->version, version);
    assert_int_equal(cc->has_time_offset, offset);
    if (offset) {
        /* 1000 s ahead, give or take the moment it was measured */
        assert_true(cc->time_offset_sec >= 998 && cc->time_offset_sec <= 1001);
        assert_true(cc->time_offset_usec > -1000000 &&
                    cc->time_offset_usec < 1000000);
    }
    gk5_name_is(cc->realm, &cc->principal, me, 1);
    assert_int_equal(cc->n, NCRED);
    for (i = 0; i < NCRED; i++) {
        gk5_cred_is(&cc->creds[i], &srcs[i]);
    }
    gk5i_ccache_free(cc);
}

static void test_mit_writes_gk5_reads(void **state)
{
    char dir[64], path[128];

    (void)state;
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc4", dir);
    mit_writes(path, false, false);
    gk5_reads(path, 0x0504, false);
    snprintf(path, sizeof(path), "%s/cc4t", dir);
    mit_writes(path, true, false);
    gk5_reads(path, 0x0504, true);
    snprintf(path, sizeof(path), "%s/cc3", dir);
    mit_writes(path, false, true);
    gk5_reads(path, 0x0503, false);
    rmdir_all(dir);
}

/* gk5 appends to a cache MIT made (v4 and v3); MIT reads it all. */
static void test_gk5_appends_mit_reads(void **state)
{
    static struct gk5side g;
    char dir[64], path[128], name[160];
    int v;

    (void)state;
    gk5_creds(&g);
    tmpdir(dir, sizeof(dir));
    for (v = 3; v <= 4; v++) {
        krb5_context ctx;
        krb5_ccache cc;
        krb5_cc_cursor cur;
        krb5_creds m;
        size_t i = 0;

        snprintf(path, sizeof(path), "%s/cc%d", dir, v);
        snprintf(name, sizeof(name), "FILE:%s", path);
        mit_writes(path, false, v == 3);
        assert_int_equal(gk5i_ccache_append(path, &g.c[2]), GK5_OK);
        assert_int_equal(krb5_init_context(&ctx), 0);
        assert_int_equal(krb5_cc_resolve(ctx, name, &cc), 0);
        assert_int_equal(krb5_cc_start_seq_get(ctx, cc, &cur), 0);
        while (krb5_cc_next_cred(ctx, cc, &cur, &m) == 0) {
            mit_cred_is(ctx, &m, &srcs[i < NCRED ? i : 2]);
            krb5_free_cred_contents(ctx, &m);
            i++;
        }
        assert_int_equal(i, NCRED + 1);
        krb5_cc_end_seq_get(ctx, cc, &cur);
        krb5_cc_close(ctx, cc);
        krb5_free_context(ctx);
    }
    rmdir_all(dir);
}

/* MIT's klist lists what gk5 wrote (made-up tickets: no enctype of
 * theirs to show). */
static void test_klist(void **state)
{
    static struct gk5side g;
    struct name n;
    char dir[64], path[128], cmd[512], out[8192];
    size_t got;
    FILE *f;
    int status;

    (void)state;
    if (system("command -v klist >/dev/null 2>&1") != 0) {
        skip();
    }
    tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cc", dir);
    gk5_creds(&g);
    name_set(&n, me, 1);
    assert_int_equal(gk5i_ccache_write(path, n.realm, &n.p, g.c, NCRED),
                     GK5_OK);
    snprintf(cmd, sizeof(cmd), "KRB5_CONFIG=/dev/null klist -e -c FILE:%s 2>&1",
             path);
    f = popen(cmd, "r");
    assert_non_null(f);
    got = fread(out, 1, sizeof(out) - 1, f);
    out[got] = '\0';
    status = pclose(f);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail_msg("klist failed:\n%s", out);
    }
    assert_non_null(strstr(out, "Default principal: user/admin@EXAMPLE.ORG"));
    assert_non_null(strstr(out, "krbtgt/EXAMPLE.ORG@EXAMPLE.ORG"));
    assert_non_null(strstr(out, "host/a.example.org@EXAMPLE.ORG"));
    assert_non_null(strstr(out, "HTTP/c.example.org@OTHER.ORG"));
    rmdir_all(dir);
}

/* klist's output of a run of commands, the first line (the cache's name)
 * left out. */
static void klist_of(const char *path, char *out, size_t cap)
{
    char cmd[512];
    size_t got;
    FILE *f;
    char *nl;
    int status;

    snprintf(cmd, sizeof(cmd),
             "KRB5_CONFIG=/dev/null TZ=UTC klist -e -f -C -c FILE:%s 2>&1",
             path);
    f = popen(cmd, "r");
    assert_non_null(f);
    got = fread(out, 1, cap - 1, f);
    out[got] = '\0';
    status = pclose(f);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail_msg("klist failed:\n%s", out);
    }
    nl = strchr(out, '\n');
    assert_non_null(nl);
    memmove(out, nl + 1, strlen(nl + 1) + 1);
}

/* MIT's own cache (tests/vectors/mit_ccache.txt) read by gk5 and written
 * again: klist -e -f -C says of the copy what it says of the original,
 * line for line (tickets, enctypes of session key and ticket, flags, the
 * configuration entry). */
static void test_klist_mit_copy(void **state)
{
    struct gk5i_ccache *cc = NULL;
    vec_file *f;
    vec_block *b;
    const uint8_t *file;
    char dir[64], a[128], c[128];
    static char out_a[8192], out_c[8192];
    size_t len;
    FILE *w;

    (void)state;
    if (system("command -v klist >/dev/null 2>&1") != 0) {
        skip();
    }
    f = vec_open("mit_ccache.txt");
    b = vec_next(f);
    assert_non_null(b);
    len = vec_bytes(b, "ccache", &file);
    tmpdir(dir, sizeof(dir));
    snprintf(a, sizeof(a), "%s/mit", dir);
    snprintf(c, sizeof(c), "%s/copy", dir);
    w = fopen(a, "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(file, 1, len, w), len);
    assert_int_equal(fclose(w), 0);
    vec_close(f);

    assert_int_equal(gk5i_ccache_read(a, &cc), GK5_OK);
    assert_int_equal(gk5i_ccache_store(c, cc), GK5_OK);
    gk5i_ccache_free(cc);
    klist_of(a, out_a, sizeof(out_a));
    klist_of(c, out_c, sizeof(out_c));
    assert_non_null(strstr(out_a, "aes256-cts-hmac-sha1-96"));
    assert_non_null(strstr(out_a, "config: fast_avail"));
    assert_string_equal(out_c, out_a);
    /* And byte for byte: the same cache. */
    {
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, c);
        assert_int_equal(system(cmd), 0);
    }
    rmdir_all(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gk5_writes_mit_reads),
        cmocka_unit_test(test_mit_writes_gk5_reads),
        cmocka_unit_test(test_gk5_appends_mit_reads),
        cmocka_unit_test(test_klist),
        cmocka_unit_test(test_klist_mit_copy),
    };

    make_srcs();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
