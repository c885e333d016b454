/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * src/mech/status.c: the one translation from gk5 error codes to GSS major
 * status (RFC 2744 3.9.1 values), names, and words for both.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gk5_config.h"
#include "mech/mech_int.h"

struct mapping {
    uint32_t err;
    uint32_t major;
};

/* The expected class of every code, written out (not computed).  The
 * GK5_ERR_RESERVED_n slots are retired codes nothing returns: they keep
 * their numbers and words, and map to FAILURE like any unknown code. */
static const struct mapping mappings[] = {
    {GK5_OK, GK5_S_COMPLETE},
    {GK5_ERR_NOMEM, GK5_S_FAILURE},
    {GK5_ERR_INVALID_ARGUMENT, GK5_S_FAILURE},
    {GK5_ERR_CRYPTO_BACKEND, GK5_S_FAILURE},
    {GK5_ERR_BUFFER_TOO_SMALL, GK5_S_FAILURE},
    {GK5_ERR_ENCTYPE_UNKNOWN, GK5_S_UNAVAILABLE},
    {GK5_ERR_ENCTYPE_REJECTED, GK5_S_UNAVAILABLE},
    {GK5_ERR_ENCTYPE_NOT_BUILT, GK5_S_UNAVAILABLE},
    {GK5_ERR_BAD_KEY_LENGTH, GK5_S_FAILURE},
    {GK5_ERR_BAD_CIPHERTEXT_LENGTH, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_INTEGRITY, GK5_S_BAD_SIG},
    {GK5_ERR_BAD_S2K_PARAMS, GK5_S_FAILURE},
    {GK5_ERR_RESERVED_12, GK5_S_FAILURE},
    {GK5_ERR_BAD_IOV, GK5_S_FAILURE},
    {GK5_ERR_TOKEN_TRUNCATED, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_ID, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_FILLER, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_FLAGS, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_DIRECTION, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_SUBKEY_FLAG, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_EC, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_RESERVED_21, GK5_S_FAILURE},
    {GK5_ERR_TOKEN_ALG, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_FRAMING, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_TOKEN_TRAILING, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_CTX_EXPIRED, GK5_S_CONTEXT_EXPIRED},
    {GK5_ERR_CTX_NO_CONTEXT, GK5_S_NO_CONTEXT},
    {GK5_ERR_CTX_SEQ_EXHAUSTED, GK5_S_FAILURE},
    {GK5_ERR_IMPORT_TRUNCATED, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_IMPORT_TOO_LONG, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_IMPORT_FLAGS, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_IMPORT_VERSION, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_IMPORT_PROTOCOL, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_IMPORT_KEY_LENGTH, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_RESERVED_34, GK5_S_FAILURE},
    {GK5_ERR_RESERVED_35, GK5_S_FAILURE},
    {GK5_ERR_RESERVED_36, GK5_S_FAILURE},
    {GK5_ERR_RESERVED_37, GK5_S_FAILURE},
    {GK5_ERR_BAD_QOP, GK5_S_BAD_QOP},
    {GK5_ERR_CONF_UNAVAILABLE, GK5_S_FAILURE},
    {GK5_ERR_MIT, GK5_S_FAILURE},
    {GK5_ERR_EXPORT_IN_USE, GK5_S_FAILURE},
    {GK5_ERR_IMPORT_DIGEST, GK5_S_DEFECTIVE_TOKEN},
    {GK5_ERR_S2K_WEAK, GK5_S_FAILURE},
};

static void test_mapping_covers_every_code(void **state)
{
    (void)state;
    assert_int_equal(sizeof(mappings) / sizeof(mappings[0]), GK5_ERR__COUNT);
    for (size_t i = 0; i < GK5_ERR__COUNT; i++) {
        uint32_t minor = 0xdeadbeef;

        assert_int_equal(mappings[i].err, i);
        if (gk5i_status(&minor, mappings[i].err) != mappings[i].major) {
            fail_msg("code %zu maps to 0x%x, want 0x%x", i,
                     (unsigned)gk5i_status(&minor, mappings[i].err),
                     (unsigned)mappings[i].major);
        }
        assert_int_equal(minor, mappings[i].err);
    }
}

/* The enctype rides in the high bits and survives into the minor. */
static void test_mapping_keeps_enctype(void **state)
{
    uint32_t minor = 0;
    uint32_t err = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23);

    (void)state;
    assert_int_equal(gk5i_status(&minor, err), GK5_S_UNAVAILABLE);
    assert_int_equal(minor, err);
    assert_int_equal(GK5_ERR_ENCTYPE(minor), 23);
    err = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, -5);
    assert_int_equal(gk5i_status(&minor, err), GK5_S_UNAVAILABLE);
    assert_int_equal(GK5_ERR_ENCTYPE(minor), -5);
}

static void test_mapping_unknown_and_null(void **state)
{
    uint32_t minor = 0;

    (void)state;
    assert_int_equal(gk5i_status(&minor, GK5_ERR__COUNT + 7), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR__COUNT + 7);
    assert_int_equal(gk5i_status(NULL, GK5_ERR_INTEGRITY),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5i_status(NULL, GK5_OK), GK5_S_CALL_INACCESSIBLE_WRITE);
}

/* Every code has words of its own: not empty, not the fallback, and no
 * two codes share a sentence. */
static void test_strerror_every_code(void **state)
{
    char seen[GK5_ERR__COUNT][256];

    (void)state;
    for (uint32_t i = 0; i < GK5_ERR__COUNT; i++) {
        const char *s = gk5_strerror(i);

        assert_non_null(s);
        assert_true(strlen(s) > 5);
        assert_null(strstr(s, "unknown gk5 error"));
        snprintf(seen[i], sizeof(seen[i]), "%s", s);
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(seen[i], seen[j]) == 0) {
                fail_msg("codes %u and %u share the words \"%s\"", (unsigned)i,
                         (unsigned)j, seen[i]);
            }
        }
    }
    assert_non_null(strstr(gk5_strerror(GK5_ERR__COUNT), "unknown"));
    assert_non_null(strstr(gk5_strerror(0xffffu), "unknown"));
    /* A retired code displayed from an old log still reads sensibly. */
    {
        static const uint32_t retired[] = {
            GK5_ERR_RESERVED_12, GK5_ERR_RESERVED_21, GK5_ERR_RESERVED_34,
            GK5_ERR_RESERVED_35, GK5_ERR_RESERVED_36, GK5_ERR_RESERVED_37,
        };

        for (size_t i = 0; i < sizeof(retired) / sizeof(retired[0]); i++) {
            assert_non_null(strstr(gk5_strerror(retired[i]), "reserved"));
        }
    }
}

/* One answer for every integrity failure: the words name no part. */
static void test_integrity_words_say_nothing_specific(void **state)
{
    const char *s = gk5_strerror(GK5_ERR_INTEGRITY);
    const char *parts[] = {"padding", "pad ",     "EC",         "MAC ",
                           "HMAC",    "checksum", "confounder", "header"};

    (void)state;
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (strstr(s, parts[i]) != NULL) {
            fail_msg("integrity words mention \"%s\": %s", parts[i], s);
        }
    }
}

static void test_strerror_enctypes(void **state)
{
    const char *s;

    (void)state;
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    assert_non_null(strstr(s, "rc4-hmac (23)"));
    assert_non_null(strstr(s, "deliberately unsupported"));
    assert_non_null(strstr(s, "RFC 8429"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 24));
    assert_non_null(strstr(s, "rc4-hmac-exp (24)"));
    assert_non_null(strstr(s, "RFC 8429"));
    for (int et = 1; et <= 3; et++) {
        char want[32];

        s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, et));
        snprintf(want, sizeof(want), "(%d)", et);
        assert_non_null(strstr(s, want));
        assert_non_null(strstr(s, "RFC 6649"));
    }
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, 99));
    assert_non_null(strstr(s, "99"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, -1));
    assert_non_null(strstr(s, "-1"));
#ifndef GK5_WITH_DES3
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, 16));
    assert_non_null(strstr(s, "des3-cbc-sha1 (16)"));
    assert_non_null(strstr(s, "not built"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, 6));
    assert_non_null(strstr(s, "(6)"));
    assert_non_null(strstr(s, "-Ddes3=true"));
#endif
    /* A code whose enctype the table does not describe that way still
     * names the number. */
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 18));
    assert_non_null(strstr(s, "18"));
    assert_null(strstr(s, "is supported"));
}

struct name_row {
    uint32_t major;
    const char *name;
};

static void test_major_names(void **state)
{
    static const struct name_row rows[] = {
        {GK5_S_COMPLETE, "GSS_S_COMPLETE"},
        {GK5_S_BAD_MECH, "GSS_S_BAD_MECH"},
        {GK5_S_BAD_SIG, "GSS_S_BAD_SIG"},
        {GK5_S_NO_CONTEXT, "GSS_S_NO_CONTEXT"},
        {GK5_S_DEFECTIVE_TOKEN, "GSS_S_DEFECTIVE_TOKEN"},
        {GK5_S_CONTEXT_EXPIRED, "GSS_S_CONTEXT_EXPIRED"},
        {GK5_S_FAILURE, "GSS_S_FAILURE"},
        {GK5_S_BAD_QOP, "GSS_S_BAD_QOP"},
        {GK5_S_UNAVAILABLE, "GSS_S_UNAVAILABLE"},
        {GK5_S_CALL_INACCESSIBLE_READ, "GSS_S_CALL_INACCESSIBLE_READ"},
        {GK5_S_CALL_INACCESSIBLE_WRITE, "GSS_S_CALL_INACCESSIBLE_WRITE"},
        {GK5_S_CALL_BAD_STRUCTURE, "GSS_S_CALL_BAD_STRUCTURE"},
        {GK5_S_CONTINUE_NEEDED, "GSS_S_CONTINUE_NEEDED"},
        {GK5_S_DUPLICATE_TOKEN, "GSS_S_DUPLICATE_TOKEN"},
        {GK5_S_OLD_TOKEN, "GSS_S_OLD_TOKEN"},
        {GK5_S_UNSEQ_TOKEN, "GSS_S_UNSEQ_TOKEN"},
        {GK5_S_GAP_TOKEN, "GSS_S_GAP_TOKEN"},
        /* the routine error names a mixed status */
        {GK5_S_BAD_SIG | GK5_S_DUPLICATE_TOKEN, "GSS_S_BAD_SIG"},
        {GK5_S_CALL_INACCESSIBLE_WRITE | GK5_S_FAILURE, "GSS_S_FAILURE"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_string_equal(gk5_major_name(rows[i].major), rows[i].name);
    }
    assert_non_null(strstr(gk5_major_name(0x7fu << 16), "unknown"));
}

static void test_display_status_forms(void **state)
{
    char major_only[512];
    char minor_only[512];
    const char *s;

    (void)state;
    /* never NULL, never empty */
    assert_true(strlen(gk5_display_status(0, 0)) > 0);

    snprintf(major_only, sizeof(major_only), "%s",
             gk5_display_status(GK5_S_BAD_SIG, 0));
    snprintf(minor_only, sizeof(minor_only), "%s",
             gk5_display_status(0, GK5_ERR_INTEGRITY));
    assert_true(strlen(major_only) > 0);
    assert_string_equal(minor_only, gk5_strerror(GK5_ERR_INTEGRITY));
    assert_string_not_equal(major_only, minor_only);

    /* both: "major words: minor words" */
    s = gk5_display_status(GK5_S_BAD_SIG, GK5_ERR_INTEGRITY);
    {
        char want[1100];

        snprintf(want, sizeof(want), "%s: %s", major_only, minor_only);
        assert_string_equal(s, want);
    }
}

static void test_display_status_enctype_reason(void **state)
{
    const char *s;

    (void)state;
    s = gk5_display_status(GK5_S_UNAVAILABLE,
                           GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    assert_non_null(strstr(s, "rc4-hmac (23)"));
    assert_non_null(strstr(s, "RFC 8429"));
    assert_non_null(strstr(s, "unavailable"));
}

/* Routine error and supplementary bits are all described. */
static void test_display_status_supplementary(void **state)
{
    char dup[256], gap[256], bad[256];
    const char *s;

    (void)state;
    snprintf(dup, sizeof(dup), "%s",
             gk5_display_status(GK5_S_DUPLICATE_TOKEN, 0));
    snprintf(gap, sizeof(gap), "%s", gk5_display_status(GK5_S_GAP_TOKEN, 0));
    snprintf(bad, sizeof(bad), "%s", gk5_display_status(GK5_S_BAD_SIG, 0));
    assert_string_not_equal(dup, gap);
    assert_string_not_equal(dup, gk5_display_status(0, 0));

    s = gk5_display_status(GK5_S_DUPLICATE_TOKEN | GK5_S_GAP_TOKEN, 0);
    assert_non_null(strstr(s, dup));
    assert_non_null(strstr(s, gap));

    s = gk5_display_status(GK5_S_BAD_SIG | GK5_S_DUPLICATE_TOKEN,
                           GK5_ERR_INTEGRITY);
    assert_non_null(strstr(s, bad));
    assert_non_null(strstr(s, dup));
    assert_non_null(strstr(s, gk5_strerror(GK5_ERR_INTEGRITY)));

    s = gk5_display_status(GK5_S_CALL_INACCESSIBLE_WRITE, 0);
    assert_non_null(strstr(s, "output"));
    s = gk5_display_status(0x7fu << 16, 0);
    assert_non_null(strstr(s, "unknown"));
    s = gk5_display_status(1u << 12, 0);
    assert_non_null(strstr(s, "unknown"));
}

/* Arbitrary values never give NULL or an empty string. */
static void test_display_status_never_null(void **state)
{
    uint32_t x = 0x12345678;

    (void)state;
    for (int i = 0; i < 2000; i++) {
        const char *s;

        x = x * 1103515245u + 12345u;
        s = gk5_display_status(x, x ^ (x >> 7));
        assert_non_null(s);
        assert_true(s[0] != '\0');
        assert_non_null(gk5_major_name(x));
        assert_non_null(gk5_strerror(x));
    }
}

/* The formatted text lives in a per-thread buffer. */
struct words_thread {
    uint32_t major, minor;
    char want[512];
    int mismatches;
    pthread_barrier_t *barrier;
};

static void *words_main(void *arg)
{
    struct words_thread *t = arg;

    pthread_barrier_wait(t->barrier);
    for (int i = 0; i < 500; i++) {
        if (strcmp(gk5_display_status(t->major, t->minor), t->want) != 0) {
            t->mismatches++;
        }
    }
    return NULL;
}

static void test_display_status_thread_local(void **state)
{
    pthread_barrier_t barrier;
    pthread_t tid[2];
    struct words_thread t[2] = {
        {.major = GK5_S_BAD_SIG, .minor = GK5_ERR_INTEGRITY},
        {.major = GK5_S_UNAVAILABLE,
         .minor = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 1)},
    };

    (void)state;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    for (int i = 0; i < 2; i++) {
        snprintf(t[i].want, sizeof(t[i].want), "%s",
                 gk5_display_status(t[i].major, t[i].minor));
        t[i].barrier = &barrier;
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&tid[i], NULL, words_main, &t[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(tid[i], NULL), 0);
        assert_int_equal(t[i].mismatches, 0);
    }
    pthread_barrier_destroy(&barrier);
}

static void test_version(void **state)
{
    const char *v = gk5_version();

    (void)state;
    assert_non_null(v);
    assert_string_equal(v, GK5_VERSION);
    assert_true(strspn(v, "0123456789.") == strlen(v));
    assert_non_null(strchr(v, '.'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_covers_every_code),
        cmocka_unit_test(test_mapping_keeps_enctype),
        cmocka_unit_test(test_mapping_unknown_and_null),
        cmocka_unit_test(test_strerror_every_code),
        cmocka_unit_test(test_integrity_words_say_nothing_specific),
        cmocka_unit_test(test_strerror_enctypes),
        cmocka_unit_test(test_major_names),
        cmocka_unit_test(test_display_status_forms),
        cmocka_unit_test(test_display_status_enctype_reason),
        cmocka_unit_test(test_display_status_supplementary),
        cmocka_unit_test(test_display_status_never_null),
        cmocka_unit_test(test_display_status_thread_local),
        cmocka_unit_test(test_version),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
