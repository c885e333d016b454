/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: krb5.conf text (src/krb5/profile.c,
 * gk5i_profile_parse, unnamed so that includes are refused) and what
 * src/krb5/config.c reads from it.  The input is the file.
 *
 * A refused text must leave no profile and say where, "(text):LINE: " or
 * "(text): ".  A parsed one is walked whole: the names under every path
 * (sections, then what each holds, down every subsection), the values at
 * every name.  Every string reported must lie within the input's length
 * (each is a piece of it, unescaped), a count must be the same whatever
 * room the caller gives, the first value must be what get returns, and
 * names must come once.  Every [realms] entry's kdc lines go through
 * gk5i_config_kdcs, whose addresses must be terminated, non-empty and
 * carry a port.  Last, the input as one string is an enctype list for
 * gk5i_config_enctypes: what comes back is usable, once each, within max,
 * and GK5_OK exactly when it is not empty.
 *
 * Once per process (on the empty input every run starts with), the
 * answers to what no text brings: NULL text with a length, a text past
 * the file limit, no room for the message, a named text (its name leads
 * the message; an include of a file that does not exist is refused),
 * lookups without a profile or a path, and freeing no profile.
 *
 * Allocation failures (OpenSSL's allocator, which profile.c's memory
 * comes from; fuzz_alloc_fail_*): a text of at most 512 bytes is parsed
 * again with each allocation made to fail in turn, each run refused with
 * GK5_ERR_NOMEM, no profile, and "(text): " leading the message; the
 * names of a parsed profile's top level, out of memory, are none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"

#define WALK_MAX_DEPTH 20 /* a section, 16 braces, a relation, spare */
#define WALK_MAX_NAMES 64 /* looked at per container */
#define WALK_BUDGET 4096  /* lookups per input, bounding the walk */

struct walk_state {
    const struct gk5i_profile *p;
    size_t input_len;
    unsigned budget;
};

static void check_string(const struct walk_state *w, const char *s,
                         const char *what)
{
    if (s == NULL) {
        fuzz_fail(what, 0, 0);
    }
    /* each string is a piece of the input, escapes only shortening it */
    if (strnlen(s, w->input_len + 1) > w->input_len) {
        fuzz_fail("a reported string is longer than the input", 0, 0);
    }
}

static void check_values(struct walk_state *w, const char *const *path)
{
    const char *vals[8], *few[1] = {NULL};
    size_t n = gk5i_profile_values(w->p, path, vals, 8);
    size_t n2 = gk5i_profile_values(w->p, path, few, 1);
    const char *first = gk5i_profile_get(w->p, path);

    if (n != n2 || n != gk5i_profile_values(w->p, path, NULL, 0)) {
        fuzz_fail("values: the count depends on max", 0, 0);
    }
    if ((n == 0) != (first == NULL) || (n > 0 && first != vals[0]) ||
        (n > 0 && few[0] != vals[0])) {
        fuzz_fail("values: get is not the first value", 0, 0);
    }
    for (size_t i = 0; i < n && i < 8; i++) {
        check_string(w, vals[i], "values: a NULL value");
    }
}

static void walk(struct walk_state *w, const char **path, size_t depth)
{
    const char *names[WALK_MAX_NAMES];
    size_t n, shown;

    if (w->budget == 0 || depth >= WALK_MAX_DEPTH) {
        return;
    }
    w->budget--;
    path[depth] = NULL;
    n = gk5i_profile_names(w->p, path, names, WALK_MAX_NAMES);
    if (n != gk5i_profile_names(w->p, path, NULL, 0)) {
        fuzz_fail("names: the count depends on max", 0, 0);
    }
    shown = n < WALK_MAX_NAMES ? n : WALK_MAX_NAMES;
    for (size_t i = 0; i < shown; i++) {
        check_string(w, names[i], "names: a NULL name");
        if (names[i][0] == '\0') {
            fuzz_fail("names: an empty name", 0, 0);
        }
        if (depth > 0 && strpbrk(names[i], " \t\n=") != NULL) {
            fuzz_fail("names: a blank or '=' in a relation's name", 0, 0);
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(names[i], names[j]) == 0) {
                fuzz_fail("names: a name twice", 0, 0);
            }
        }
    }
    for (size_t i = 0; i < shown && w->budget > 0; i++) {
        path[depth] = names[i];
        path[depth + 1] = NULL;
        if (depth > 0) {
            check_values(w, path);
        }
        walk(w, path, depth + 1);
    }
    path[depth] = NULL;
}

/* Every realm's kdc lines, through the config code's reading of them. */
static void check_kdcs(struct gk5i_profile *p)
{
    struct gk5i_krb5_config cfg;
    const char *realms[16];
    const char *const path[] = {"realms", NULL};
    size_t n = gk5i_profile_names(p, path, realms, 16);

    memset(&cfg, 0, sizeof(cfg));
    cfg.prof = p;
    for (size_t i = 0; i < n && i < 16; i++) {
        struct gk5i_kdc_addr kdcs[GK5I_MAX_KDCS];
        size_t nk = 99;
        uint32_t ret =
            gk5i_config_kdcs(&cfg, realms[i], kdcs, GK5I_MAX_KDCS, &nk);

        if (ret != GK5_OK) {
            if ((ret != GK5_ERR_CONFIG && ret != GK5_ERR_CONFIG_NO_KDC) ||
                nk != 0) {
                fuzz_fail("kdcs: an unexpected refusal", 0, ret);
            }
            continue;
        }
        if (nk == 0 || nk > GK5I_MAX_KDCS) {
            fuzz_fail("kdcs: a count out of range", 0, 0);
        }
        for (size_t k = 0; k < nk; k++) {
            size_t hl = strnlen(kdcs[k].host, sizeof(kdcs[k].host));

            if (hl == 0 || hl == sizeof(kdcs[k].host) || kdcs[k].port == 0 ||
                strpbrk(kdcs[k].host, " \t[]/") != NULL) {
                fuzz_fail("kdcs: a malformed address", 0, 0);
            }
        }
    }
    if (gk5i_config_kdcs(&cfg, NULL, NULL, 0, &n) != GK5_ERR_INVALID_ARGUMENT) {
        fuzz_fail("kdcs: no output accepted", 0, 0);
    }
}

static void check_enctypes(const char *s)
{
    static const int32_t dflt[] = {17, 20};
    int32_t out[GK5I_KRB_MAX_ETYPES];
    size_t maxes[] = {GK5I_KRB_MAX_ETYPES, 2};

    for (size_t m = 0; m < 2; m++) {
        size_t n = 99;
        uint32_t ret = gk5i_config_enctypes(s, dflt, 2, out, maxes[m], &n);

        if (ret != GK5_OK && ret != GK5_ERR_CONFIG && ret != GK5_ERR_NOMEM) {
            fuzz_fail("enctypes: an unexpected refusal", 0, ret);
        }
        if ((ret == GK5_OK) != (n > 0) || n > maxes[m]) {
            fuzz_fail("enctypes: a count out of range", 0, ret);
        }
        for (size_t i = 0; i < n; i++) {
            const struct gk5_enctype *et;

            if (gk5i_enctype_usable(out[i], &et) != GK5_OK ||
                et->num != out[i]) {
                fuzz_fail("enctypes: an unusable or non-canonical enctype", 0,
                          (uint32_t)out[i]);
            }
            for (size_t j = 0; j < i; j++) {
                if (out[i] == out[j]) {
                    fuzz_fail("enctypes: an enctype twice", 0,
                              (uint32_t)out[i]);
                }
            }
        }
    }
}

static void check_alloc_failures(const char *text, size_t size, uint32_t want)
{
    for (long point = 0;; point++) {
        struct gk5i_profile *p = (struct gk5i_profile *)&p;
        char err[64];
        uint32_t ret;

        fuzz_alloc_fail_arm(point);
        ret = gk5i_profile_parse(text, size, NULL, &p, err, sizeof(err));
        fuzz_alloc_fail_arm(-1);
        if (!fuzz_alloc_fail_hit()) {
            if (ret != want) {
                fuzz_fail("parse: armed to fail, another answer", want, ret);
            }
            if (ret == GK5_OK) {
                const char *none[] = {NULL};
                size_t n = gk5i_profile_names(p, none, NULL, 0);

                fuzz_alloc_fail_arm(0);
                if (gk5i_profile_names(p, none, NULL, 0) != 0 ||
                    (n != 0) != fuzz_alloc_fail_hit()) {
                    fuzz_fail("names: out of memory, some names", 0, 0);
                }
                fuzz_alloc_fail_arm(-1);
            }
            gk5i_profile_free(p);
            break;
        }
        if (ret != GK5_ERR_NOMEM || p != NULL ||
            strncmp(err, "(text): ", 8) != 0) {
            fuzz_fail("parse: out of memory, another answer", 0, ret);
        }
    }
}

static void want_config(uint32_t ret, const struct gk5i_profile *p,
                        const char *err, const char *start, const char *what)
{
    if (ret != GK5_ERR_CONFIG || p != NULL ||
        (start != NULL && strncmp(err, start, strlen(start)) != 0)) {
        fuzz_fail(what, 0, ret);
    }
}

static void check_arguments(void)
{
    static const char bad[] = "x\n";
    static const char named[] = "[a]\n x = 1\n";
    static const char missing[] = "include /nonexistent/gk5-fuzz.conf\n";
    const size_t big = 1024u * 1024u + 1; /* PROFILE_MAX_FILE_BYTES + 1 */
    char *text = (char *)fuzz_dup(NULL, big);
    struct gk5i_profile *p = (struct gk5i_profile *)&p;
    const char *none[] = {NULL}, *ax[] = {"a", "x", NULL}, *one[1];
    char err[256];
    uint32_t ret;

    if (gk5i_profile_parse(NULL, 1, NULL, &p, err, sizeof(err)) !=
            GK5_ERR_INVALID_ARGUMENT ||
        p != NULL) {
        fuzz_fail("parse: NULL text with a length was read", 0, 0);
    }
    if (gk5i_profile_parse(NULL, 0, NULL, &p, err, sizeof(err)) != GK5_OK ||
        p == NULL || gk5i_profile_names(p, none, NULL, 0) != 0) {
        fuzz_fail("parse: no text is not an empty profile", 0, 0);
    }
    gk5i_profile_free(p);
    memset(text, '#', big);
    ret = gk5i_profile_parse(text, big, NULL, &p, err, sizeof(err));
    want_config(ret, p, err, "(text): ", "parse: a text past the limit");
    ret = gk5i_profile_parse(bad, strlen(bad), NULL, &p, NULL, 8);
    want_config(ret, p, NULL, NULL, "parse: no room for the message");
    err[0] = 'x';
    ret = gk5i_profile_parse(bad, strlen(bad), NULL, &p, err, 0);
    want_config(ret, p, NULL, NULL, "parse: no room for the message");
    if (err[0] != 'x') {
        fuzz_fail("parse: a message written where there was no room", 0, 0);
    }
    ret =
        gk5i_profile_parse(bad, strlen(bad), "fuzz.conf", &p, err, sizeof(err));
    want_config(ret, p, err, "fuzz.conf:1: ", "parse: a named text");
    ret = gk5i_profile_parse(missing, strlen(missing), "fuzz.conf", &p, err,
                             sizeof(err));
    want_config(ret, p, err, "fuzz.conf:1: cannot include ",
                "parse: an include of no file");
    if (gk5i_profile_parse(named, strlen(named), "fuzz.conf", &p, err,
                           sizeof(err)) != GK5_OK) {
        fuzz_fail("parse: a named text refused", 0, 0);
    }
    if (gk5i_profile_values(NULL, ax, one, 1) != 0 ||
        gk5i_profile_values(p, ax, one, 1) != 1 ||
        gk5i_profile_values(p, NULL, one, 1) != 0 ||
        gk5i_profile_values(p, none, one, 1) != 0 ||
        gk5i_profile_get(p, NULL) != NULL ||
        gk5i_profile_names(NULL, none, one, 1) != 0 ||
        gk5i_profile_names(p, NULL, one, 1) != 1) {
        fuzz_fail("lookups without a profile or a path", 0, 0);
    }
    gk5i_profile_free(p);
    gk5i_profile_free(NULL);
    free(text);
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
    char *text = (char *)fuzz_dup(data, size);
    char *str = (char *)fuzz_dup(NULL, size + 1);
    struct gk5i_profile *p = (struct gk5i_profile *)&p;
    char err[256];
    uint32_t ret;

    if (size == 0) {
        check_arguments();
    }
    memset(err, 'x', sizeof(err));
    ret = gk5i_profile_parse(text, size, NULL, &p, err, sizeof(err));
    if (ret != GK5_OK) {
        if (p != NULL || (ret != GK5_ERR_CONFIG && ret != GK5_ERR_NOMEM) ||
            memchr(err, '\0', sizeof(err)) == NULL ||
            (ret == GK5_ERR_CONFIG && strncmp(err, "(text)", 6) != 0)) {
            fuzz_fail("parse: a refusal that does not say where", 0, ret);
        }
    } else {
        struct walk_state w = {
            .p = p, .input_len = size, .budget = WALK_BUDGET};
        const char *path[WALK_MAX_DEPTH + 2];

        walk(&w, path, 0);
        check_kdcs(p);
        gk5i_profile_free(p);
    }

    if (size <= 512) {
        check_alloc_failures(text, size, ret);
    }
    if (size > 0) {
        memcpy(str, data, size);
    }
    check_enctypes(str);
    free(text);
    free(str);
    return 0;
}
