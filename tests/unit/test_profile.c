/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * krb5.conf files as src/krb5/profile.c reads them, after krb5/krb5
 * doc/admin/conf_files/krb5_conf.rst: sections, relations, subsections,
 * final markers, comments, quoted values, several files (the first value
 * wins, missing files skipped), include and includedir (in a temporary
 * directory made and removed here), loops and the limits, malformed lines
 * with their FILE:LINE, and names.
 */
#include <dirent.h>
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

#include "krb5/krb5_int.h"

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- a scratch directory ---- */

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    (void)state;
    (void)snprintf(tmpdir, sizeof(tmpdir), "/tmp/gk5-profile-XXXXXX");
    return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static void remove_tree(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;

    if (lstat(path, &st) != 0) {
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        (void)unlink(path);
        return;
    }
    d = opendir(path);
    while (d != NULL && (e = readdir(d)) != NULL) {
        char sub[1024];

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        (void)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    if (d != NULL) {
        (void)closedir(d);
    }
    (void)rmdir(path);
}

static int remove_tmpdir(void **state)
{
    (void)state;
    remove_tree(tmpdir);
    return 0;
}

/* tmpdir/name, in a static buffer per call site's slot. */
static const char *at(const char *name)
{
    static char bufs[8][512];
    static unsigned next;
    char *b = bufs[next++ % 8];

    (void)snprintf(b, sizeof(bufs[0]), "%s/%s", tmpdir, name);
    return b;
}

static void write_file(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void write_file(const char *name, const char *fmt, ...)
{
    FILE *f = fopen(at(name), "w");
    va_list ap;

    assert_non_null(f);
    va_start(ap, fmt);
    assert_true(vfprintf(f, fmt, ap) >= 0);
    va_end(ap);
    assert_int_equal(fclose(f), 0);
}

static struct gk5i_profile *parse_ok(const char *text)
{
    struct gk5i_profile *p = NULL;
    char err[256];

    assert_int_equal(
        gk5i_profile_parse(text, strlen(text), "t.conf", &p, err, sizeof(err)),
        GK5_OK);
    assert_non_null(p);
    return p;
}

static void parse_fails(const char *text, size_t len, const char *want_err)
{
    struct gk5i_profile *p = (struct gk5i_profile *)1;
    char err[256] = "unset";

    assert_int_equal(
        gk5i_profile_parse(text, len, "t.conf", &p, err, sizeof(err)),
        GK5_ERR_CONFIG);
    assert_null(p);
    if (strstr(err, want_err) == NULL) {
        fail_msg("error \"%s\", wanted \"%s\"", err, want_err);
    }
}

static struct gk5i_profile *load_ok(const char *paths)
{
    struct gk5i_profile *p = NULL;
    char err[512] = "";

    if (gk5i_profile_load(paths, &p, err, sizeof(err)) != GK5_OK) {
        fail_msg("load %s: %s", paths, err);
    }
    assert_non_null(p);
    return p;
}

static void load_fails(const char *paths, const char *want_err)
{
    struct gk5i_profile *p = (struct gk5i_profile *)1;
    char err[512] = "";

    assert_int_equal(gk5i_profile_load(paths, &p, err, sizeof(err)),
                     GK5_ERR_CONFIG);
    assert_null(p);
    if (strstr(err, want_err) == NULL) {
        fail_msg("error \"%s\", wanted \"%s\"", err, want_err);
    }
}

/* The values at path, joined by '|'. */
static const char *joined(const struct gk5i_profile *p, const char *const *path,
                          bool names)
{
    static char buf[1024];
    const char *v[32];
    size_t n = names ? gk5i_profile_names(p, path, v, 32)
                     : gk5i_profile_values(p, path, v, 32);

    assert_true(n <= 32);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            strcat(buf, "|");
        }
        strcat(buf, v[i]);
    }
    return buf;
}

#define VALUES(p, ...) joined(p, P(__VA_ARGS__), false)
#define NAMES(p, ...) joined(p, P(__VA_ARGS__), true)

/* ---- one file ---- */

static void test_sections_relations(void **state)
{
    struct gk5i_profile *p;
    const char *v[2];

    (void)state;
    p = parse_ok("# a comment\n"
                 "; another\n"
                 "\n"
                 "[libdefaults]\n"
                 "    default_realm = EX.COM\n"
                 "  # indented comment\n"
                 "\t; and this\n"
                 "    forwardable=true\r\n"
                 "    note = a # not a comment\n"
                 "    empty =\n"
                 "\n"
                 "[realms]\n"
                 "    EX.COM = {\n"
                 "        kdc = kdc1.ex.com\n"
                 "        kdc = kdc2.ex.com:750\n"
                 "        admin_server = adm.ex.com\n"
                 "        nested = {\n"
                 "            deep = yes\n"
                 "        }\n"
                 "    }\n"
                 "    OTHER.COM = {\n"
                 "        kdc = k.other.com\n"
                 "    }\n"
                 "[domain_realm]\n"
                 "    .ex.com = EX.COM");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "default_realm")),
                        "EX.COM");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "forwardable")),
                        "true");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "note")),
                        "a # not a comment");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "empty")), "");
    assert_string_equal(VALUES(p, "realms", "EX.COM", "kdc"),
                        "kdc1.ex.com|kdc2.ex.com:750");
    assert_string_equal(VALUES(p, "realms", "EX.COM", "nested", "deep"), "yes");
    assert_string_equal(VALUES(p, "realms", "OTHER.COM", "kdc"), "k.other.com");
    assert_string_equal(gk5i_profile_get(p, P("domain_realm", ".ex.com")),
                        "EX.COM");
    /* a subsection is not a value, a value not a section */
    assert_int_equal(gk5i_profile_values(p, P("realms", "EX.COM"), v, 2), 0);
    assert_int_equal(
        gk5i_profile_values(p, P("libdefaults", "default_realm", "x"), v, 2),
        0);
    /* names compare exactly */
    assert_null(gk5i_profile_get(p, P("libdefaults", "Default_Realm")));
    assert_null(gk5i_profile_get(p, P("LIBDEFAULTS", "default_realm")));
    assert_null(gk5i_profile_get(p, P("nosuch", "x")));
    assert_int_equal(gk5i_profile_values(p, P(NULL), v, 2), 0);
    /* the count in all, whatever max is */
    assert_int_equal(gk5i_profile_values(p, P("realms", "EX.COM", "kdc"), v, 1),
                     2);
    assert_string_equal(v[0], "kdc1.ex.com");
    assert_int_equal(
        gk5i_profile_values(p, P("realms", "EX.COM", "kdc"), NULL, 0), 2);
    gk5i_profile_free(p);
    gk5i_profile_free(NULL);
}

static void test_quoted(void **state)
{
    struct gk5i_profile *p;

    (void)state;
    p = parse_ok("[s]\n"
                 "a = \"x\\ty\\nz\\\\ \\\"q\\\" \\bw\\k\"\n"
                 "b = \"  padded  \"   trailing text ignored\n"
                 "c = \"\"\n"
                 "d = \"# kept\"\n"
                 "e = \"{\"\n");
    assert_string_equal(gk5i_profile_get(p, P("s", "a")),
                        "x\ty\nz\\ \"q\" \bwk");
    assert_string_equal(gk5i_profile_get(p, P("s", "b")), "  padded  ");
    assert_string_equal(gk5i_profile_get(p, P("s", "c")), "");
    assert_string_equal(gk5i_profile_get(p, P("s", "d")), "# kept");
    /* a quoted brace is a value, not a subsection */
    assert_string_equal(gk5i_profile_get(p, P("s", "e")), "{");
    gk5i_profile_free(p);

    parse_fails("[s]\nok = 1\na = \"open\n", 21, "t.conf:3: a quoted value");
    parse_fails("[s]\na = \"ends in a backslash\\\"", 30, "t.conf:2:");
}

static void test_final_in_one_file(void **state)
{
    struct gk5i_profile *p;

    (void)state;
    /* within one file every value is kept; final only stops later files */
    p = parse_ok("[s]*\na = 1\n[s]\na = 2\nsub* = {\nx = 1\n}\n"
                 "sub = {\nx = 2\n}*\n");
    assert_string_equal(VALUES(p, "s", "a"), "1|2");
    assert_string_equal(VALUES(p, "s", "sub", "x"), "1|2");
    gk5i_profile_free(p);
}

static void test_malformed(void **state)
{
    static const struct {
        const char *text;
        const char *err;
    } cases[] = {
        {"a = b\n", "t.conf:1: a relation before any [section]"},
        {"# c\n\n  x = 1\n[s]\n", "t.conf:3: a relation before"},
        {"[s]\njust words\n", "t.conf:2: expected 'name = value'"},
        {"[s\n", "t.conf:1: a section header without ']'"},
        {"[]\n", "t.conf:1: an empty section name"},
        {"[s]\n}\n", "t.conf:2: '}' without '{'"},
        {"[s]\na = {\nb = 1\n", "t.conf:3: '{' of \"a\" never closed"},
        {"[s]\na = {\n[t]\n}\n", "t.conf:3: a section header inside '{'"},
        {"[s]\na b = c\n", "t.conf:2: a blank inside a name"},
        {"[s]\n = c\n", "t.conf:2: a relation without a name"},
        {"[s]\n* = c\n", "t.conf:2: a relation without a name"},
        {"[s]\nmodule x:y\n", "t.conf:2: expected"},
        {"include\n", "t.conf:1: a relation before"},
        {"[s]\ninclude   \t\n", "t.conf:2: expected"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        parse_fails(cases[i].text, strlen(cases[i].text), cases[i].err);
    }
    parse_fails("[s]\na = b\0c\n", 11, "t.conf:2: a NUL byte");
    /* the unnamed text's errors say so */
    {
        struct gk5i_profile *p = NULL;
        char err[128];

        assert_int_equal(gk5i_profile_parse("x", 1, NULL, &p, err, sizeof(err)),
                         GK5_ERR_CONFIG);
        assert_string_equal(err, "(text):1: a relation before any [section]");
        /* and it may not include */
        assert_int_equal(gk5i_profile_parse("include /etc/krb5.conf\n", 23,
                                            NULL, &p, err, sizeof(err)),
                         GK5_ERR_CONFIG);
        assert_string_equal(err, "(text):1: include is not allowed here");
        assert_null(p);
        /* an empty text is an empty profile */
        assert_int_equal(gk5i_profile_parse("", 0, NULL, &p, err, sizeof(err)),
                         GK5_OK);
        assert_int_equal(gk5i_profile_names(p, P(NULL), NULL, 0), 0);
        gk5i_profile_free(p);
    }
}

static void test_names(void **state)
{
    struct gk5i_profile *p;
    const char *v[2];

    (void)state;
    p = parse_ok("[libdefaults]\nx = 1\n"
                 "[realms]\nA = {\nkdc = a\n}\nB = {\nkdc = b\n}\n"
                 "[libdefaults]\ny = 2\nx = 3\n"
                 "[realms]\nA = {\nkdc = a2\n}\nC = {\n}\n");
    assert_string_equal(NAMES(p, NULL), "libdefaults|realms");
    assert_string_equal(NAMES(p, "realms", NULL), "A|B|C");
    assert_string_equal(NAMES(p, "libdefaults", NULL), "x|y");
    assert_string_equal(NAMES(p, "realms", "A", NULL), "kdc");
    assert_string_equal(NAMES(p, "realms", "C", NULL), "");
    assert_string_equal(NAMES(p, "libdefaults", "x", NULL), "");
    assert_string_equal(NAMES(p, "nosuch", NULL), "");
    assert_string_equal(VALUES(p, "realms", "A", "kdc"), "a|a2");
    assert_int_equal(gk5i_profile_names(p, P("realms", NULL), v, 2), 3);
    assert_string_equal(v[0], "A");
    assert_string_equal(v[1], "B");
    gk5i_profile_free(p);
}

static void test_braces_depth(void **state)
{
    char text[2048];
    size_t len;
    struct gk5i_profile *p;

    (void)state;
    /* 16 levels of braces are allowed, the 17th is not */
    for (int depth = 16; depth <= 17; depth++) {
        len = (size_t)snprintf(text, sizeof(text), "[s]\n");
        for (int i = 0; i < depth; i++) {
            len += (size_t)snprintf(text + len, sizeof(text) - len, "l%d = {\n",
                                    i);
        }
        len += (size_t)snprintf(text + len, sizeof(text) - len, "v = deep\n");
        for (int i = 0; i < depth; i++) {
            len += (size_t)snprintf(text + len, sizeof(text) - len, "}\n");
        }
        if (depth == 16) {
            p = parse_ok(text);
            assert_string_equal(
                gk5i_profile_get(p, P("s", "l0", "l1", "l2", "l3", "l4", "l5",
                                      "l6", "l7", "l8", "l9", "l10", "l11",
                                      "l12", "l13", "l14", "l15", "v")),
                "deep");
            gk5i_profile_free(p);
        } else {
            parse_fails(text, len, "t.conf:18: '{' nested deeper than 16");
        }
    }
}

static void test_size_limit(void **state)
{
    size_t big = 1024 * 1024;
    char *text = malloc(big + 2);
    struct gk5i_profile *p = NULL;
    char err[256];
    FILE *f;

    (void)state;
    assert_non_null(text);
    memset(text, '#', big + 1);
    memcpy(text, "[s]\na = 1\n#", 11);
    /* exactly 1 MiB reads (one long comment line) */
    assert_int_equal(
        gk5i_profile_parse(text, big, "t.conf", &p, err, sizeof(err)), GK5_OK);
    assert_string_equal(gk5i_profile_get(p, P("s", "a")), "1");
    gk5i_profile_free(p);
    parse_fails(text, big + 1, "t.conf: larger than 1048576 bytes");

    f = fopen(at("big.conf"), "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, big + 1, f), big + 1);
    assert_int_equal(fclose(f), 0);
    load_fails(at("big.conf"), "big.conf: larger than 1048576 bytes");
    f = fopen(at("big.conf"), "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, big, f), big);
    assert_int_equal(fclose(f), 0);
    p = load_ok(at("big.conf"));
    assert_string_equal(gk5i_profile_get(p, P("s", "a")), "1");
    gk5i_profile_free(p);
    (void)unlink(at("big.conf"));
    free(text);
}

/* ---- several files ---- */

static void test_files_in_order(void **state)
{
    char paths[2048];
    struct gk5i_profile *p;

    (void)state;
    write_file("one.conf", "[libdefaults]\n"
                           "  default_realm = ONE.COM\n"
                           "  clockskew = 10\n"
                           "[realms]\n"
                           "  ONE.COM = {\n    kdc = one\n  }\n"
                           "  FIN.COM = {\n    kdc = fin1\n  }*\n"
                           "  TAG.COM* = {\n    kdc = tag1\n  }\n"
                           "[capaths]*\n  x = 1\n");
    write_file("two.conf", "[libdefaults]\n"
                           "  default_realm = TWO.COM\n"
                           "  forwardable = yes\n"
                           "[realms]\n"
                           "  ONE.COM = {\n    kdc = one-b\n  }\n"
                           "  FIN.COM = {\n    kdc = fin2\n  }\n"
                           "  TAG.COM = {\n    kdc = tag2\n  }\n"
                           "  TWO.COM = {\n    kdc = two\n  }\n"
                           "[capaths]\n  x = 2\n  y = 2\n");
    (void)snprintf(paths, sizeof(paths), "%s:%s::%s:%s", at("missing.conf"),
                   at("one.conf"), at("no/such/dir.conf"), at("two.conf"));
    p = load_ok(paths);
    /* the first file's value first; get takes it */
    assert_string_equal(VALUES(p, "libdefaults", "default_realm"),
                        "ONE.COM|TWO.COM");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "default_realm")),
                        "ONE.COM");
    assert_string_equal(gk5i_profile_get(p, P("libdefaults", "forwardable")),
                        "yes");
    assert_string_equal(VALUES(p, "realms", "ONE.COM", "kdc"), "one|one-b");
    /* final by the closing brace, by the tag, by the section header */
    assert_string_equal(VALUES(p, "realms", "FIN.COM", "kdc"), "fin1");
    assert_string_equal(VALUES(p, "realms", "TAG.COM", "kdc"), "tag1");
    assert_string_equal(VALUES(p, "capaths", "x"), "1");
    assert_null(gk5i_profile_get(p, P("capaths", "y")));
    assert_string_equal(NAMES(p, "capaths", NULL), "x");
    assert_string_equal(NAMES(p, "realms", NULL),
                        "ONE.COM|FIN.COM|TAG.COM|TWO.COM");
    gk5i_profile_free(p);

    /* only missing files: an empty profile */
    p = load_ok(at("missing.conf"));
    assert_null(gk5i_profile_get(p, P("libdefaults", "default_realm")));
    assert_int_equal(gk5i_profile_names(p, P(NULL), NULL, 0), 0);
    gk5i_profile_free(p);
    p = load_ok("");
    gk5i_profile_free(p);

    /* a file that exists but is malformed stops the load, naming it */
    write_file("bad.conf", "[s]\nok = 1\nnot a relation\n");
    (void)snprintf(paths, sizeof(paths), "%s:%s", at("one.conf"),
                   at("bad.conf"));
    load_fails(paths, "bad.conf:3: expected 'name = value'");
}

static void test_include(void **state)
{
    char main_text[1024];
    struct gk5i_profile *p;

    (void)state;
    assert_int_equal(mkdir(at("inc"), 0700), 0);
    assert_int_equal(mkdir(at("inc/d"), 0700), 0);
    assert_int_equal(mkdir(at("inc/d/sub.conf"), 0700), 0);
    write_file("inc/abs.conf", "[libdefaults]\n  v = abs\n");
    write_file("inc/rel.conf", "[libdefaults]\n  v = rel\n");
    write_file("inc/d/b.conf", "[libdefaults]\n  v = d-b\n");
    write_file("inc/d/a-1_Z", "[libdefaults]\n  v = d-a\n");
    write_file("inc/d/c", "[libdefaults]\n  v = d-c\n");
    write_file("inc/d/.hidden.conf", "[libdefaults]\n  v = hidden\n");
    write_file("inc/d/e.conf.bak", "[libdefaults]\n  v = bak\n");
    write_file("inc/d/f~", "[libdefaults]\n  v = tilde\n");
    write_file("inc/d/g.txt", "[libdefaults]\n  v = txt\n");
    (void)snprintf(main_text, sizeof(main_text),
                   "include %s\n"
                   "[libdefaults]\n"
                   "  v = main1\n"
                   "include rel.conf\n"
                   "  v = main2\n"
                   "includedir %s\n"
                   "  v = main3\n",
                   at("inc/abs.conf"), at("inc/d"));
    write_file("inc/main.conf", "%s", main_text);
    p = load_ok(at("inc/main.conf"));
    /* in place, each included file's sections its own, the parent's
     * section going on after it; includedir in name order */
    assert_string_equal(VALUES(p, "libdefaults", "v"),
                        "abs|main1|rel|main2|d-a|d-b|d-c|main3");
    gk5i_profile_free(p);

    /* an included file starts with no section */
    write_file("inc/nosect.conf", "  v = orphan\n");
    write_file("inc/main2.conf", "[libdefaults]\n\ninclude nosect.conf\n");
    load_fails(at("inc/main2.conf"),
               "nosect.conf:1: a relation before any [section]");

    /* a missing include or includedir is an error at the line naming it */
    write_file("inc/main3.conf", "[s]\ninclude %s\n", at("inc/none.conf"));
    load_fails(at("inc/main3.conf"), "main3.conf:2: cannot include");
    write_file("inc/main4.conf", "[s]\n\nincludedir %s\n", at("inc/nodir"));
    load_fails(at("inc/main4.conf"), "main4.conf:3: cannot read directory");
    write_file("inc/main5.conf", "include %s\n", at("inc"));
    load_fails(at("inc/main5.conf"), "main5.conf:1: cannot include");

    /* a directory in the list is read as includedir reads one */
    p = load_ok(at("inc/d"));
    assert_string_equal(VALUES(p, "libdefaults", "v"), "d-a|d-b|d-c");
    gk5i_profile_free(p);

    /* gk5i_profile_parse resolves relative includes beside its name */
    (void)snprintf(main_text, sizeof(main_text), "include rel.conf\n");
    assert_int_equal(gk5i_profile_parse(main_text, strlen(main_text),
                                        at("inc/x.conf"), &p, NULL, 0),
                     GK5_OK);
    assert_string_equal(VALUES(p, "libdefaults", "v"), "rel");
    gk5i_profile_free(p);
}

static void test_include_loops_and_depth(void **state)
{
    char name[64], next[64];
    struct gk5i_profile *p;

    (void)state;
    assert_int_equal(mkdir(at("loop"), 0700), 0);
    write_file("loop/self.conf", "[s]\na = 1\ninclude self.conf\n");
    load_fails(at("loop/self.conf"), "self.conf:3: include loop");
    write_file("loop/a.conf", "[s]\na = 1\ninclude b.conf\n");
    write_file("loop/b.conf", "[s]\n\ninclude a.conf\n");
    load_fails(at("loop/a.conf"), "b.conf:3: include loop");
    /* the same file twice, not nested, is no loop */
    write_file("loop/twice.conf", "include c.conf\ninclude c.conf\n");
    write_file("loop/c.conf", "[s]\nc = 1\n");
    p = load_ok(at("loop/twice.conf"));
    assert_string_equal(VALUES(p, "s", "c"), "1|1");
    gk5i_profile_free(p);

    /* a chain: the file of the list and 8 levels of include read, a 9th
     * level does not */
    for (int i = 0; i <= 9; i++) {
        (void)snprintf(name, sizeof(name), "loop/chain%d.conf", i);
        (void)snprintf(next, sizeof(next), "chain%d.conf", i + 1);
        if (i < 9) {
            write_file(name, "[s]\nv = %d\ninclude %s\n", i, next);
        } else {
            write_file(name, "[s]\nv = %d\n", i);
        }
    }
    p = load_ok(at("loop/chain1.conf"));
    assert_string_equal(VALUES(p, "s", "v"), "1|2|3|4|5|6|7|8|9");
    gk5i_profile_free(p);
    load_fails(at("loop/chain0.conf"),
               "chain8.conf:3: includes nested deeper than 8");
}

static void test_file_count(void **state)
{
    char *paths = calloc(65, 600);
    size_t len = 0;
    struct gk5i_profile *p;

    (void)state;
    assert_non_null(paths);
    assert_int_equal(mkdir(at("many"), 0700), 0);
    for (int i = 0; i < 65; i++) {
        char name[64];

        (void)snprintf(name, sizeof(name), "many/f%02d.conf", i);
        write_file(name, "[s]\nv = %d\n", i);
        len += (size_t)sprintf(paths + len, "%s%s", i > 0 ? ":" : "", at(name));
        if (i == 63) {
            p = load_ok(paths);
            assert_int_equal(gk5i_profile_values(p, P("s", "v"), NULL, 0), 64);
            gk5i_profile_free(p);
        }
    }
    load_fails(paths, "more than 64 files");
    /* includes count too: a file and 64 included */
    {
        FILE *f = fopen(at("inc64.conf"), "w");

        assert_non_null(f);
        for (int i = 0; i < 64; i++) {
            fprintf(f, "include many/f%02d.conf\n", i);
        }
        assert_int_equal(fclose(f), 0);
    }
    load_fails(at("inc64.conf"), "inc64.conf:64: more than 64 files");
    /* and a directory of more than 64 */
    write_file("many.conf", "includedir %s\n", at("many"));
    load_fails(at("many.conf"), "/many holds more than 64 files");
    free(paths);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections_relations),
        cmocka_unit_test(test_quoted),
        cmocka_unit_test(test_final_in_one_file),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_braces_depth),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_files_in_order),
        cmocka_unit_test(test_include),
        cmocka_unit_test(test_include_loops_and_depth),
        cmocka_unit_test(test_file_count),
    };

    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
