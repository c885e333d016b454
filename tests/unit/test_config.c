/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What src/krb5/config.c reads from krb5.conf (krb5/krb5
 * doc/admin/conf_files/krb5_conf.rst): the defaults, every [libdefaults]
 * key it knows in MIT's value formats, enctype lists (names, aliases,
 * families, DEFAULT, removal, numbers; rc4, DES and, without -Ddes3=true,
 * DES3 dropped with a trace line), and [realms] kdc lines.
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
#include <unistd.h>

#include <cmocka.h>

#include "common/trace.h"
#include "krb5/krb5_int.h"

#define ET_AES128 17
#define ET_AES256 18
#define ET_AES128_SHA2 19
#define ET_AES256_SHA2 20
#define ET_CAMELLIA128 25
#define ET_CAMELLIA256 26
#define ET_DES3 16

static char tmpdir[256];
static char conf_path[512];
static char trace_path[512];

static int setup(void **state)
{
    (void)state;
    (void)snprintf(tmpdir, sizeof(tmpdir), "/tmp/gk5-config-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        return -1;
    }
    (void)snprintf(conf_path, sizeof(conf_path), "%s/krb5.conf", tmpdir);
    (void)snprintf(trace_path, sizeof(trace_path), "%s/trace", tmpdir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    (void)unlink(conf_path);
    (void)unlink(trace_path);
    (void)rmdir(tmpdir);
    return 0;
}

/* ---- tracing into a file ---- */

static void trace_start(void)
{
    (void)unlink(trace_path);
    assert_int_equal(setenv("GK5_TRACE", trace_path, 1), 0);
    gk5i_trace_reset();
}

/* The lines written since trace_start (static buffer); tracing off. */
static const char *trace_stop(void)
{
    static char buf[16384];
    FILE *f;
    size_t n = 0;

    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();
    f = fopen(trace_path, "r");
    if (f != NULL) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        (void)fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

static void assert_has(const char *hay, const char *needle)
{
    if (strstr(hay, needle) == NULL) {
        fail_msg("\"%s\" not in \"%s\"", needle, hay);
    }
}

/* ---- loading ---- */

static void write_conf(const char *text)
{
    FILE *f = fopen(conf_path, "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static struct gk5i_krb5_config *load_ok(const char *text)
{
    struct gk5i_krb5_config *c = NULL;
    char err[512] = "";

    write_conf(text);
    if (gk5i_config_load(conf_path, &c, err, sizeof(err)) != GK5_OK) {
        fail_msg("load: %s", err);
    }
    assert_non_null(c);
    return c;
}

static void load_fails(const char *text, uint32_t want, const char *want_err)
{
    struct gk5i_krb5_config *c = (struct gk5i_krb5_config *)1;
    char err[512] = "";

    write_conf(text);
    assert_int_equal(gk5i_config_load(conf_path, &c, err, sizeof(err)), want);
    assert_null(c);
    assert_has(err, want_err);
}

/* The list as "n n n". */
static const char *list_str(const int32_t *l, size_t n)
{
    static char buf[256];
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d",
                                i > 0 ? " " : "", (int)l[i]);
    }
    return buf;
}

#ifdef GK5_WITH_DES3
#define DEFAULT_LIST "18 17 20 19 26 25 16"
#define DEFAULT_NO_SHA1 "20 19 26 25 16"
#else
#define DEFAULT_LIST "18 17 20 19 26 25"
#define DEFAULT_NO_SHA1 "20 19 26 25"
#endif

static void test_defaults(void **state)
{
    struct gk5i_krb5_config *c;

    (void)state;
    c = load_ok("");
    assert_null(c->default_realm);
    assert_int_equal(c->clockskew, 300);
    assert_int_equal(c->udp_preference_limit, 1465);
    assert_int_equal(c->ticket_lifetime, 86400);
    assert_int_equal(c->renew_lifetime, 0);
    assert_false(c->forwardable);
    assert_int_equal(c->request_timeout_ms, 10000);
    assert_string_equal(list_str(c->permitted_enctypes, c->n_permitted),
                        DEFAULT_LIST);
    assert_string_equal(list_str(c->tkt_enctypes, c->n_tkt), DEFAULT_LIST);
    assert_string_equal(list_str(c->tgs_enctypes, c->n_tgs), DEFAULT_LIST);
    gk5i_config_free(c);
    gk5i_config_free(NULL);

    /* no file at all: the same defaults */
    {
        char missing[600];

        (void)snprintf(missing, sizeof(missing), "%s/none.conf", tmpdir);
        assert_int_equal(gk5i_config_load(missing, &c, NULL, 0), GK5_OK);
        assert_int_equal(c->clockskew, 300);
        assert_null(c->default_realm);
        gk5i_config_free(c);
    }

    /* NULL: $KRB5_CONFIG */
    write_conf("[libdefaults]\n default_realm = ENV.COM\n");
    assert_int_equal(setenv("KRB5_CONFIG", conf_path, 1), 0);
    assert_int_equal(gk5i_config_load(NULL, &c, NULL, 0), GK5_OK);
    assert_string_equal(c->default_realm, "ENV.COM");
    gk5i_config_free(c);
    assert_int_equal(unsetenv("KRB5_CONFIG"), 0);

    /* a malformed file: the profile's FILE:LINE */
    load_fails("[libdefaults]\n clockskew\n", GK5_ERR_CONFIG,
               "krb5.conf:2: expected 'name = value'");
}

static void test_libdefaults(void **state)
{
    struct gk5i_krb5_config *c;

    (void)state;
    c = load_ok("[libdefaults]\n"
                "  default_realm = EX.COM\n"
                "  clockskew = 120\n"
                "  ticket_lifetime = 10h\n"
                "  renew_lifetime = 7d\n"
                "  udp_preference_limit = 1\n"
                "  forwardable = true\n"
                "  request_timeout = 30s\n");
    assert_string_equal(c->default_realm, "EX.COM");
    assert_int_equal(c->clockskew, 120);
    assert_int_equal(c->ticket_lifetime, 36000);
    assert_int_equal(c->renew_lifetime, 7 * 86400);
    assert_int_equal(c->udp_preference_limit, 1);
    assert_true(c->forwardable);
    assert_int_equal(c->request_timeout_ms, 30000);
    gk5i_config_free(c);

    /* MIT caps the UDP limit at 32700; request_timeout 0 keeps gk5's */
    c = load_ok("[libdefaults]\n udp_preference_limit = 100000\n"
                " request_timeout = 0\n default_realm = \"\"\n");
    assert_int_equal(c->udp_preference_limit, 32700);
    assert_int_equal(c->request_timeout_ms, 10000);
    assert_null(c->default_realm);
    gk5i_config_free(c);

    load_fails("[libdefaults]\n udp_preference_limit = 1k\n", GK5_ERR_CONFIG,
               "udp_preference_limit = \"1k\": not a number");
    load_fails("[libdefaults]\n udp_preference_limit = -1\n", GK5_ERR_CONFIG,
               "udp_preference_limit");
    load_fails("[libdefaults]\n renew_lifetime = forever\n", GK5_ERR_CONFIG,
               "renew_lifetime = \"forever\": not a duration");
    load_fails("[libdefaults]\n ticket_lifetime = 1y\n", GK5_ERR_CONFIG,
               "ticket_lifetime");
    load_fails("[libdefaults]\n request_timeout = soon\n", GK5_ERR_CONFIG,
               "request_timeout");
}

static void test_durations(void **state)
{
    static const struct {
        const char *text;
        uint32_t secs; /* 0: an error */
    } cases[] = {
        {"300", 300},
        {"5m", 300},
        {"1h", 3600},
        {"1d", 86400},
        {"300s", 300},
        {"1h30m", 5400},
        {"1d2h3m4s", 93784},
        {"1d 12h", 129600},
        {"2d4s", 172804},
        {"1:30", 5400},
        {"1:00:30", 3630},
        {"36:00", 129600},
        {"0", 0},
        {"4294967295", 4294967295u},
        {"abc", 0},
        {"5x", 0},
        {"1h1d", 0},
        {"1h1h", 0},
        {"1:60", 0},
        {"1:00:60", 0},
        {"1:2:3:4", 0},
        {"-5", 0},
        {"5 m", 0},
        {"h", 0},
        {"4294967296", 0},
        {"49711d", 0},
        {"1m ", 300 / 5}, /* trailing blanks are trimmed by the profile */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256];
        struct gk5i_krb5_config *c = NULL;
        char err[256] = "";
        uint32_t ret;
        bool want_ok = cases[i].secs != 0 || strcmp(cases[i].text, "0") == 0;

        (void)snprintf(text, sizeof(text), "[libdefaults]\n clockskew = %s\n",
                       cases[i].text);
        write_conf(text);
        ret = gk5i_config_load(conf_path, &c, err, sizeof(err));
        if (want_ok) {
            if (ret != GK5_OK) {
                fail_msg("\"%s\": %s", cases[i].text, err);
            }
            if (c->clockskew != cases[i].secs) {
                fail_msg("\"%s\": %u, wanted %u", cases[i].text, c->clockskew,
                         cases[i].secs);
            }
        } else {
            if (ret != GK5_ERR_CONFIG) {
                fail_msg("\"%s\" was taken", cases[i].text);
            }
            assert_has(err, "clockskew");
        }
        gk5i_config_free(c);
    }
}

static void test_booleans(void **state)
{
    static const char *const yes[] = {"y",  "yes", "true", "t", "1",
                                      "on", "YES", "True", "On"};
    static const char *const no[] = {"n",   "no", "false", "nil", "0",
                                     "off", "NO", "False", "NIL"};

    (void)state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        char text[128];
        struct gk5i_krb5_config *c;

        (void)snprintf(text, sizeof(text), "[libdefaults]\n forwardable = %s\n",
                       yes[i]);
        c = load_ok(text);
        assert_true(c->forwardable);
        gk5i_config_free(c);
        (void)snprintf(text, sizeof(text), "[libdefaults]\n forwardable = %s\n",
                       no[i]);
        c = load_ok(text);
        assert_false(c->forwardable);
        gk5i_config_free(c);
    }
    load_fails("[libdefaults]\n forwardable = maybe\n", GK5_ERR_CONFIG,
               "forwardable = \"maybe\": not a boolean");
    load_fails("[libdefaults]\n forwardable = yess\n", GK5_ERR_CONFIG,
               "forwardable");
}

/* ---- enctype lists ---- */

static const char *parse_list(const char *s)
{
    static const int32_t dflt[] = {ET_AES256, ET_CAMELLIA128};
    int32_t out[GK5I_KRB_MAX_ETYPES];
    size_t n = 99;

    if (gk5i_config_enctypes(s, dflt, 2, out, GK5I_KRB_MAX_ETYPES, &n) !=
        GK5_OK) {
        assert_int_equal(n, 0);
        return "ERR";
    }
    return list_str(out, n);
}

static void test_enctype_lists(void **state)
{
    static const struct {
        const char *list;
        const char *want;
    } cases[] = {
        {"aes256-cts-hmac-sha1-96", "18"},
        {"aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96", "18 17"},
        {"aes128-cts aes256-cts", "17 18"},
        {"aes128-cts-hmac-sha256-128 aes256-cts-hmac-sha384-192", "19 20"},
        {"aes256-sha2 aes128-sha1 aes256-sha1", "20 17 18"},
        {"camellia256-cts-cmac camellia128-cts", "26 25"},
        {"AES256-CTS-HMAC-SHA1-96", "18"},
        {"aes256-cts,aes128-cts", "18 17"},
        {" ,\taes256-cts ,, aes128-cts , ", "18 17"},
        {"aes256-cts aes256-cts-hmac-sha1-96 18", "18"},
        {"aes", "18 17 20 19"},
        {"aes-sha1", "18 17"},
        {"aes-sha2", "20 19"},
        {"camellia", "26 25"},
        {"camellia aes-sha2", "26 25 20 19"},
        {"DEFAULT", "18 25"},
        {"default aes128-cts", "18 25 17"},
        {"aes128-cts DEFAULT", "17 18 25"},
        {"DEFAULT -camellia128-cts", "18"},
        {"aes -aes-sha2", "18 17"},
        {"aes -aes128-cts-hmac-sha1-96 +camellia", "18 20 19 26 25"},
        {"aes -aes", "ERR"},
        {"-aes128-cts aes128-cts", "17"},
        {"17 18", "17 18"},
        {"20,19", "20 19"},
        {"nosuch aes256-cts", "18"},
        {"rc4-hmac aes256-cts", "18"},
        {"arcfour-hmac-md5 des-cbc-crc des-cbc-md5 aes128-cts", "17"},
        {"rc4 des aes-sha2", "20 19"},
        {"23 1 3 17", "17"},
        {"99 17", "17"},
        {"rc4", "ERR"},
        {"des", "ERR"},
        {"nosuch", "ERR"},
        {"", "ERR"},
        {" , ", "ERR"},
        {"-", "ERR"},
        {"-aes", "ERR"},
        {"aes256-cts-hmac-sha1-96-and-a-name-far-too-long-to-be-any-enctype-"
         "name-at-all aes128-cts",
         "17"},
#ifdef GK5_WITH_DES3
        {"des3", "16"},
        {"des3-cbc-sha1 aes", "16 18 17 20 19"},
        {"6 16", "16"},
#else
        {"des3", "ERR"},
        {"des3-cbc-sha1 aes", "18 17 20 19"},
        {"6 16 17", "17"},
#endif
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = parse_list(cases[i].list);

        if (strcmp(got, cases[i].want) != 0) {
            fail_msg("\"%s\": \"%s\", wanted \"%s\"", cases[i].list, got,
                     cases[i].want);
        }
    }
}

#ifdef GK5_WITH_DES3
static const char kept_with_des3[] = "16 18";
#else
static const char kept_with_des3[] = "18";
#endif

static void test_enctype_traces(void **state)
{
    const char *t;

    (void)state;
    trace_start();
    /* des3 stays in builds with it (-Ddes3=true), the rest goes */
    assert_string_equal(
        parse_list("arcfour-hmac des-cbc-md5 des3 bogus-enctype 99 aes256-cts"),
        kept_with_des3);
    t = trace_stop();
    assert_has(t, "enctype rc4-hmac (23, from \"arcfour-hmac\") dropped: "
                  "RFC 8429");
    assert_has(t, "enctype des-cbc-md5 (3, from \"des-cbc-md5\") dropped: "
                  "RFC 6649");
    assert_has(t, "unknown enctype \"bogus-enctype\" dropped");
    assert_has(t, "enctype 99 (from \"99\") dropped: unknown");
#ifdef GK5_WITH_DES3
    assert_true(strstr(t, "des3-cbc-sha1") == NULL);
#else
    assert_has(t, "enctype des3-cbc-sha1 (16, from \"des3\") dropped: "
                  "RFC 8429 deprecates DES3");
#endif
    assert_true(strstr(t, "aes256") == NULL);

    /* a list longer than max keeps the first max, and says so */
    {
        int32_t out[2];
        size_t n;

        trace_start();
        assert_int_equal(gk5i_config_enctypes("aes", NULL, 0, out, 2, &n),
                         GK5_OK);
        t = trace_stop();
        assert_string_equal(list_str(out, n), "18 17");
        assert_has(t, "aes256-cts-hmac-sha384-192 dropped: more than 2");
        assert_int_equal(gk5i_config_enctypes("aes", NULL, 0, NULL, 2, &n),
                         GK5_ERR_INVALID_ARGUMENT);
    }
}

static void test_enctype_keys(void **state)
{
    struct gk5i_krb5_config *c;

    (void)state;
    /* permitted_enctypes is the other two's default (MIT 1.18) */
    c = load_ok("[libdefaults]\n permitted_enctypes = aes256-cts aes-sha2\n");
    assert_string_equal(list_str(c->permitted_enctypes, c->n_permitted),
                        "18 20 19");
    assert_string_equal(list_str(c->tkt_enctypes, c->n_tkt), "18 20 19");
    assert_string_equal(list_str(c->tgs_enctypes, c->n_tgs), "18 20 19");
    gk5i_config_free(c);

    /* and what DEFAULT means in them */
    c = load_ok("[libdefaults]\n permitted_enctypes = aes-sha1 camellia\n"
                " default_tkt_enctypes = DEFAULT -camellia\n"
                " default_tgs_enctypes = aes128-sha2, DEFAULT\n");
    assert_string_equal(list_str(c->permitted_enctypes, c->n_permitted),
                        "18 17 26 25");
    assert_string_equal(list_str(c->tkt_enctypes, c->n_tkt), "18 17");
    assert_string_equal(list_str(c->tgs_enctypes, c->n_tgs), "19 18 17 26 25");
    gk5i_config_free(c);

    /* DEFAULT in permitted_enctypes is gk5's list */
    c = load_ok("[libdefaults]\n permitted_enctypes = DEFAULT -aes-sha1\n");
    assert_string_equal(list_str(c->permitted_enctypes, c->n_permitted),
                        DEFAULT_NO_SHA1);
    gk5i_config_free(c);

    load_fails("[libdefaults]\n permitted_enctypes = rc4-hmac des\n",
               GK5_ERR_CONFIG,
               "permitted_enctypes = \"rc4-hmac des\": no usable enctype");
    load_fails("[libdefaults]\n default_tkt_enctypes = arcfour-hmac\n",
               GK5_ERR_CONFIG, "default_tkt_enctypes");
    load_fails("[libdefaults]\n default_tgs_enctypes = -aes\n", GK5_ERR_CONFIG,
               "default_tgs_enctypes");
}

/* ---- [realms] ---- */

static void test_kdcs(void **state)
{
    struct gk5i_krb5_config *c;
    struct gk5i_kdc_addr k[GK5I_MAX_KDCS];
    size_t n = 99;
    const char *t;

    (void)state;
    c = load_ok("[libdefaults]\n default_realm = EX.COM\n"
                "[realms]\n"
                " EX.COM = {\n"
                "  kdc = kdc1.ex.com\n"
                "  kdc = kdc2.ex.com:750\n"
                "  kdc = [2001:db8::1]:8888\n"
                "  kdc = [2001:db8::2]\n"
                "  kdc = 2001:db8::3\n"
                "  kdc = 192.0.2.1:88\n"
                "  kdc = tcp/kdc3.ex.com:89\n"
                "  kdc = https://proxy.ex.com/KdcProxy\n"
                "  admin_server = adm.ex.com\n"
                " }\n"
                " NOKDC.COM = {\n  admin_server = x\n }\n");
    trace_start();
    assert_int_equal(gk5i_config_kdcs(c, "EX.COM", k, GK5I_MAX_KDCS, &n),
                     GK5_OK);
    t = trace_stop();
    assert_int_equal(n, 7);
    assert_string_equal(k[0].host, "kdc1.ex.com");
    assert_int_equal(k[0].port, 88);
    assert_string_equal(k[1].host, "kdc2.ex.com");
    assert_int_equal(k[1].port, 750);
    assert_string_equal(k[2].host, "2001:db8::1");
    assert_int_equal(k[2].port, 8888);
    assert_string_equal(k[3].host, "2001:db8::2");
    assert_int_equal(k[3].port, 88);
    assert_string_equal(k[4].host, "2001:db8::3");
    assert_int_equal(k[4].port, 88);
    assert_string_equal(k[5].host, "192.0.2.1");
    assert_int_equal(k[5].port, 88);
    assert_string_equal(k[6].host, "kdc3.ex.com");
    assert_int_equal(k[6].port, 89);
    assert_has(t, "https://proxy.ex.com/KdcProxy skipped");

    /* NULL: the default realm; fewer room than KDCs: the first ones */
    assert_int_equal(gk5i_config_kdcs(c, NULL, k, 2, &n), GK5_OK);
    assert_int_equal(n, 2);
    assert_string_equal(k[1].host, "kdc2.ex.com");

    assert_int_equal(gk5i_config_kdcs(c, "NOKDC.COM", k, GK5I_MAX_KDCS, &n),
                     GK5_ERR_CONFIG_NO_KDC);
    assert_int_equal(n, 0);
    assert_int_equal(gk5i_config_kdcs(c, "OTHER.COM", k, GK5I_MAX_KDCS, &n),
                     GK5_ERR_CONFIG_NO_KDC);
    /* realm names compare exactly */
    assert_int_equal(gk5i_config_kdcs(c, "ex.com", k, GK5I_MAX_KDCS, &n),
                     GK5_ERR_CONFIG_NO_KDC);
    gk5i_config_free(c);

    /* no realm given and no default_realm */
    c = load_ok("[realms]\n EX.COM = {\n  kdc = k\n }\n");
    assert_int_equal(gk5i_config_kdcs(c, NULL, k, GK5I_MAX_KDCS, &n),
                     GK5_ERR_CONFIG_REALM);
    assert_int_equal(gk5i_config_kdcs(c, "EX.COM", k, GK5I_MAX_KDCS, &n),
                     GK5_OK);
    assert_int_equal(n, 1);
    gk5i_config_free(c);
}

static void test_bad_kdcs(void **state)
{
    static const char *const bad[] = {
        "host:0", "host:65536", "host:99999", "host:abc",   "host:",
        ":88",    "[::1",       "[::1]x",     "[::1]:",     "[]:88",
        "[]",     "a\\b c",     "host:+88",   "host:0088a", "h/x",
        "tcp/",   "x:123456",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[512];
        struct gk5i_krb5_config *c;
        struct gk5i_kdc_addr k[GK5I_MAX_KDCS];
        size_t n = 99;
        const char *t;

        (void)snprintf(text, sizeof(text),
                       "[realms]\n R = {\n  kdc = good\n  kdc = %s\n }\n",
                       bad[i]);
        c = load_ok(text);
        trace_start();
        if (gk5i_config_kdcs(c, "R", k, GK5I_MAX_KDCS, &n) != GK5_ERR_CONFIG) {
            fail_msg("kdc = %s was taken", bad[i]);
        }
        t = trace_stop();
        assert_int_equal(n, 0);
        assert_has(t, "not host[:port]");
        gk5i_config_free(c);
    }
    /* a name of 255 octets fits, 256 does not */
    {
        char text[1024], host[300];
        struct gk5i_krb5_config *c;
        struct gk5i_kdc_addr k[1];
        size_t n;

        memset(host, 'h', 256);
        host[255] = '\0';
        (void)snprintf(text, sizeof(text), "[realms]\n R = {\n kdc = %s:1\n}\n",
                       host);
        c = load_ok(text);
        assert_int_equal(gk5i_config_kdcs(c, "R", k, 1, &n), GK5_OK);
        assert_int_equal(strlen(k[0].host), 255);
        assert_int_equal(k[0].port, 1);
        gk5i_config_free(c);
        host[255] = 'h';
        host[256] = '\0';
        (void)snprintf(text, sizeof(text), "[realms]\n R = {\n kdc = %s\n}\n",
                       host);
        c = load_ok(text);
        assert_int_equal(gk5i_config_kdcs(c, "R", k, 1, &n), GK5_ERR_CONFIG);
        gk5i_config_free(c);
    }
}

static void test_dns_lookup(void **state)
{
    struct gk5i_krb5_config *c;
    struct gk5i_kdc_addr k[GK5I_MAX_KDCS];
    size_t n;
    const char *t;

    (void)state;
    trace_start();
    c = load_ok("[libdefaults]\n dns_lookup_kdc = true\n"
                " dns_lookup_realm = yes\n"
                "[realms]\n R = {\n  kdc = k1\n }\n");
    t = trace_stop();
    assert_has(t, "dns_lookup_kdc = true ignored: gk5 does not look in DNS");
    assert_has(t, "dns_lookup_realm = yes ignored");
    /* the kdc lines are still used */
    assert_int_equal(gk5i_config_kdcs(c, "R", k, GK5I_MAX_KDCS, &n), GK5_OK);
    assert_int_equal(n, 1);
    assert_string_equal(k[0].host, "k1");
    gk5i_config_free(c);

    trace_start();
    c = load_ok("[libdefaults]\n dns_lookup_kdc = false\n");
    t = trace_stop();
    assert_true(strstr(t, "dns_lookup") == NULL);
    gk5i_config_free(c);
}

/* ---- the configuration kept between loads (config_cache.c) ---- */

static unsigned long hits_now(void)
{
    unsigned long hits = 0, misses = 0;

    gk5i_config_cache_counts(&hits, &misses);
    return hits;
}

/* Load paths; whether the copy kept answered; default_realm into realm. */
static bool load_counted(const char *paths, char *realm, size_t len)
{
    struct gk5i_krb5_config *c = NULL;
    unsigned long before = hits_now();
    char err[512] = "";

    if (gk5i_config_load(paths, &c, err, sizeof(err)) != GK5_OK) {
        fail_msg("load %s: %s", paths, err);
    }
    (void)snprintf(realm, len, "%s",
                   c->default_realm != NULL ? c->default_realm : "-");
    gk5i_config_free(c);
    return hits_now() > before;
}

static void settle(void)
{
    /* Past the margin (100 ms below) and any clock tick. */
    (void)usleep(250 * 1000);
}

static void test_kept_while_unchanged(void **state)
{
    char realm[64], dir[600], extra[700], missing[600], paths[1300];

    (void)state;
    /* Fresh files (changed within the margin, here a minute whatever
     * the speed of the machine or valgrind): read each time. */
    gk5i_config_cache_margin_ms(60 * 1000);
    (void)snprintf(dir, sizeof(dir), "%s/conf.d", tmpdir);
    (void)snprintf(extra, sizeof(extra), "%s/extra.conf", dir);
    (void)snprintf(missing, sizeof(missing), "%s/later.conf", tmpdir);
    assert_int_equal(mkdir(dir, 0700), 0);
    char text[1024];
    (void)snprintf(text, sizeof(text),
                   "includedir %s\n[libdefaults]\n default_realm = AAA.TEST\n",
                   dir);
    write_conf(text);
    (void)snprintf(paths, sizeof(paths), "%s:%s", missing, conf_path);

    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_string_equal(realm, "AAA.TEST");
    /* Settled (past a margin of 100 ms): the second load is the first's
     * copy. */
    gk5i_config_cache_margin_ms(100);
    settle();
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_true(load_counted(paths, realm, sizeof(realm)));
    assert_string_equal(realm, "AAA.TEST");
    /* Another list is another configuration. */
    assert_false(load_counted(conf_path, realm, sizeof(realm)));

    /* Rewritten with the same size, its times set back: the change time
     * tells. */
    settle();
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_true(load_counted(paths, realm, sizeof(realm)));
    struct stat old;
    assert_int_equal(stat(conf_path, &old), 0);
    (void)snprintf(text, sizeof(text),
                   "includedir %s\n[libdefaults]\n default_realm = BBB.TEST\n",
                   dir);
    write_conf(text);
    struct timespec times[2] = {old.st_atim, old.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, conf_path, times, 0), 0);
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_string_equal(realm, "BBB.TEST");

    /* A file appears in the includedir folder. */
    settle();
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_true(load_counted(paths, realm, sizeof(realm)));
    FILE *f = fopen(extra, "w");
    assert_non_null(f);
    (void)fputs("[libdefaults]\n ticket_lifetime = 1h\n", f);
    assert_int_equal(fclose(f), 0);
    assert_false(load_counted(paths, realm, sizeof(realm)));

    /* The list's missing file appears, ahead of the others. */
    settle();
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_true(load_counted(paths, realm, sizeof(realm)));
    f = fopen(missing, "w");
    assert_non_null(f);
    (void)fputs("[libdefaults]\n default_realm = CCC.TEST\n", f);
    assert_int_equal(fclose(f), 0);
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_string_equal(realm, "CCC.TEST");

    /* Replaced by another file (a rename over it). */
    settle();
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_true(load_counted(paths, realm, sizeof(realm)));
    char moved[700];
    (void)snprintf(moved, sizeof(moved), "%s/new.conf", tmpdir);
    f = fopen(moved, "w");
    assert_non_null(f);
    (void)fputs("[libdefaults]\n default_realm = DDD.TEST\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rename(moved, missing), 0);
    assert_false(load_counted(paths, realm, sizeof(realm)));
    assert_string_equal(realm, "DDD.TEST");

    (void)unlink(missing);
    (void)unlink(extra);
    (void)rmdir(dir);
    gk5i_config_cache_margin_ms(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_libdefaults),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_enctype_lists),
        cmocka_unit_test(test_enctype_traces),
        cmocka_unit_test(test_enctype_keys),
        cmocka_unit_test(test_kdcs),
        cmocka_unit_test(test_bad_kdcs),
        cmocka_unit_test(test_dns_lookup),
        cmocka_unit_test(test_kept_while_unchanged),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
