/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Tests of the known-answer file reader (tests/unit/vecfile.[ch]) on small
 * temporary files: what it accepts, and that it fails -- naming file:line --
 * on everything it must not let through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gk5/crypto.h>

#include "vecfile.h"

/* ---- Catching the reader's failures ---- */

static jmp_buf catch_env;
static char caught[1024];

static void catch_fail(const char *msg)
{
    snprintf(caught, sizeof(caught), "%s", msg);
    longjmp(catch_env, 1);
}

/* Runs stmt, which must make the reader fail with a message containing
 * substr. */
#define EXPECT_READER_FAILS(stmt, substr)                                      \
    do {                                                                       \
        caught[0] = '\0';                                                      \
        vec_set_fail_hook(catch_fail);                                         \
        if (setjmp(catch_env) == 0) {                                          \
            stmt;                                                              \
            vec_set_fail_hook(NULL);                                           \
            fail_msg("reader accepted: %s", #stmt);                            \
        }                                                                      \
        vec_set_fail_hook(NULL);                                               \
        if (strstr(caught, (substr)) == NULL) {                                \
            fail_msg("failure message \"%s\" lacks \"%s\"", caught, (substr)); \
        }                                                                      \
    } while (0)

/* ---- Temporary files ---- */

static char tmp_dir[] = "/tmp/gk5-vecfile-XXXXXX";
static char tmp_path[sizeof(tmp_dir) + 32];

static int setup_dir(void **state)
{
    (void)state;
    if (mkdtemp(tmp_dir) == NULL) {
        return -1;
    }
    snprintf(tmp_path, sizeof(tmp_path), "%s/t.txt", tmp_dir);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    unlink(tmp_path);
    rmdir(tmp_dir);
    return 0;
}

static vec_file *open_text(const char *text)
{
    FILE *fp = fopen(tmp_path, "w");

    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
    return vec_open_path(tmp_path);
}

/* ---- What the reader accepts ---- */

static void test_reads_all_value_forms(void **state)
{
    static const char text[] =
        "# a comment before the first block\n"
        "\n"
        "source = RFC 3962 Appendix B\n"
        "password = \"pass phrase = with an equals sign\"\n"
        "hex = 63 68 69 63\n"
        "  # a comment inside a block is skipped\n"
        "compact = DEADbeef\n"
        "dash = -\n"
        "nothing =\n"
        "count = 1200\n"
        "negative = -137\n"
        "quoted_empty = \"\"\n"
        "\n"
        "\n"
        "source = MIT krb5 1.21.3 t_prf.c via shared/reference/x.txt\n"
        "name = aes128-cts\n";
    static const uint8_t chic[] = {0x63, 0x68, 0x69, 0x63};
    static const uint8_t deadbeef[] = {0xde, 0xad, 0xbe, 0xef};
    vec_file *f;
    vec_block *b;
    const uint8_t *p;
    size_t n;

    (void)state;
    f = open_text(text);
    b = vec_next(f);
    assert_non_null(b);
    assert_string_equal(vec_where(b), "t.txt:3");
    assert_string_equal(vec_source(b), "RFC 3962 Appendix B");
    assert_string_equal(vec_str(b, "password"),
                        "pass phrase = with an equals sign");
    n = vec_bytes(b, "password", &p);
    assert_int_equal(n, strlen("pass phrase = with an equals sign"));
    assert_memory_equal(p, "pass phrase = with an equals sign", n);
    n = vec_bytes(b, "hex", &p);
    assert_int_equal(n, sizeof(chic));
    assert_memory_equal(p, chic, n);
    n = vec_bytes(b, "compact", &p);
    assert_int_equal(n, sizeof(deadbeef));
    assert_memory_equal(p, deadbeef, n);
    n = vec_bytes(b, "dash", &p);
    assert_int_equal(n, 0);
    assert_non_null(p);
    n = vec_bytes(b, "nothing", &p);
    assert_int_equal(n, 0);
    n = vec_bytes(b, "quoted_empty", &p);
    assert_int_equal(n, 0);
    assert_int_equal(vec_int(b, "count", 1, 100000), 1200);
    assert_int_equal(vec_int(b, "negative", -1000, 0), -137);
    assert_false(vec_has(b, "absent"));
    assert_string_equal(vec_opt_str(b, "absent", "dflt"), "dflt");
    assert_int_equal(vec_opt_int(b, "absent", 0, 9, 7), 7);
    assert_false(vec_opt_bytes(b, "absent", &p, &n));
    assert_null(p);
    assert_int_equal(n, 0);
    vec_done(b);

    b = vec_next(f);
    assert_non_null(b);
    assert_string_equal(vec_where(b), "t.txt:15");
    assert_string_equal(vec_opt_str(b, "name", NULL), "aes128-cts");
    vec_done(b);

    assert_null(vec_next(f));
    assert_null(vec_next(f));
    vec_close(f);
}

static void test_crlf_and_no_final_newline(void **state)
{
    vec_file *f;
    vec_block *b;
    const uint8_t *p;

    (void)state;
    f = open_text("source = RFC 3961 A.1\r\nout = be07\r\n\r\n"
                  "source = RFC 3961 A.4\nkey = 85");
    b = vec_next(f);
    assert_non_null(b);
    assert_int_equal(vec_bytes(b, "out", &p), 2);
    assert_int_equal(p[0], 0xbe);
    vec_done(b);
    b = vec_next(f);
    assert_non_null(b);
    assert_int_equal(vec_bytes(b, "key", &p), 1);
    assert_int_equal(p[0], 0x85);
    vec_done(b);
    assert_null(vec_next(f));
    vec_close(f);
}

static void test_empty_file_has_no_blocks(void **state)
{
    vec_file *f;

    (void)state;
    f = open_text("# only comments\n\n   \n# here\n");
    assert_null(vec_next(f));
    vec_close(f);
}

static void test_open_uses_vectors_dir(void **state)
{
    vec_file *f;
    vec_block *b;

    (void)state;
    f = open_text("source = RFC 8009 Appendix A\n");
    vec_close(f);
    assert_int_equal(setenv("GK5_VECTORS_DIR", tmp_dir, 1), 0);
    f = vec_open("t.txt");
    assert_string_equal(vec_file_name(f), "t.txt");
    b = vec_next(f);
    assert_non_null(b);
    vec_done(b);
    vec_close(f);
    EXPECT_READER_FAILS(vec_open("no-such-file.txt"), "no-such-file.txt");
}

/* ---- What the reader refuses ---- */

static void test_unknown_field_fails_vec_done(void **state)
{
    vec_file *f;
    vec_block *b;

    (void)state;
    f = open_text("source = RFC 3961 A.1\n"
                  "bits = 64\n"
                  "ouptut = be072631276b1955\n");
    b = vec_next(f);
    assert_non_null(b);
    assert_int_equal(vec_int(b, "bits", 8, 1024), 64);
    EXPECT_READER_FAILS(vec_done(b), "t.txt:3: field \"ouptut\" was never "
                                     "read");
    vec_close(f);
}

static void test_missing_required_field_fails(void **state)
{
    vec_file *f;
    vec_block *b;
    const uint8_t *p;

    (void)state;
    f = open_text("\nsource = RFC 3961 A.1\nbits = 64\n");
    b = vec_next(f);
    assert_non_null(b);
    EXPECT_READER_FAILS(vec_bytes(b, "output", &p),
                        "t.txt:2: required field \"output\" missing");
    EXPECT_READER_FAILS(vec_str(b, "input"), "\"input\" missing");
    EXPECT_READER_FAILS(vec_int(b, "usage", 0, 10), "\"usage\" missing");
    vec_close(f);
}

static void test_missing_source_fails(void **state)
{
    vec_file *f;

    (void)state;
    f = open_text("source = RFC 3961 A.1\nbits = 64\n\n"
                  "bits = 56\noutput = 78a07b6caf85fa\n");
    assert_non_null(vec_next(f));
    EXPECT_READER_FAILS(vec_next(f), "t.txt:4: block has no `source");
    vec_close(f);
}

static void expect_bad_source(const char *text)
{
    vec_file *f = open_text(text);

    EXPECT_READER_FAILS(vec_next(f), "names neither an RFC");
    vec_close(f);
}

static void test_vague_source_fails(void **state)
{
    static const char *const bad[] = {
        "source = somewhere on the web\n",
        "source = RFC\n",
        "source = RFC 3961\n",
        "source = RFC A.1\n",
        "source = rfc 3961 A.1\n",
        "source = \n",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        expect_bad_source(bad[i]);
    }
}

static void test_hex_errors_fail(void **state)
{
    vec_file *f;
    vec_block *b;
    const uint8_t *p;

    (void)state;
    f = open_text("source = RFC 3962 Appendix B\n"
                  "odd = abc\n"
                  "notdigit = 0g\n"
                  "prefixed = 0x1234\n"
                  "word = password\n");
    b = vec_next(f);
    assert_non_null(b);
    EXPECT_READER_FAILS(vec_bytes(b, "odd", &p),
                        "t.txt:2: field \"odd\": odd number of hex digits");
    EXPECT_READER_FAILS(vec_bytes(b, "notdigit", &p),
                        "t.txt:3: field \"notdigit\": 'g' at column 2");
    EXPECT_READER_FAILS(vec_bytes(b, "prefixed", &p), "'x' at column 2");
    EXPECT_READER_FAILS(vec_bytes(b, "word", &p), "not a hex digit");
    vec_close(f);
}

static void test_integer_errors_fail(void **state)
{
    vec_file *f;
    vec_block *b;

    (void)state;
    f = open_text("source = RFC 3961 A.1\n"
                  "big = 4294967296\n"
                  "text = twelve\n"
                  "trailing = 12x\n"
                  "quoted = \"12\"\n"
                  "empty =\n");
    b = vec_next(f);
    assert_non_null(b);
    EXPECT_READER_FAILS(vec_int(b, "big", 0, UINT32_MAX),
                        "t.txt:2: field \"big\": 4294967296 is outside");
    EXPECT_READER_FAILS(vec_int(b, "text", 0, 10), "not a decimal integer");
    EXPECT_READER_FAILS(vec_int(b, "trailing", 0, 100),
                        "not a decimal integer");
    EXPECT_READER_FAILS(vec_int(b, "quoted", 0, 100), "not a decimal integer");
    EXPECT_READER_FAILS(vec_int(b, "empty", 0, 100), "not a decimal integer");
    vec_close(f);
}

static void test_malformed_lines_fail(void **state)
{
    vec_file *f;

    (void)state;
    f = open_text("source = RFC 3961 A.1\njust some words\n");
    EXPECT_READER_FAILS(vec_next(f), "t.txt:2: expected `name = value`");
    vec_close(f);

    f = open_text("source = RFC 3961 A.1\n = 12\n");
    EXPECT_READER_FAILS(vec_next(f), "t.txt:2: field without a name");
    vec_close(f);

    f = open_text("source = RFC 3961 A.1\nOutput = 12\n");
    EXPECT_READER_FAILS(vec_next(f), "bad field name \"Output\"");
    vec_close(f);

    f = open_text("source = RFC 3961 A.1\npassword = \"open\n");
    EXPECT_READER_FAILS(vec_next(f), "t.txt:2: unterminated quoted string");
    vec_close(f);

    f = open_text("source = RFC 3961 A.1\nkey = 01\nkey = 02\n");
    EXPECT_READER_FAILS(vec_next(f),
                        "t.txt:3: field \"key\" given twice in the block");
    vec_close(f);
}

/* ---- Helpers for the crypto tests ---- */

static void test_enctype_state(void **state)
{
    const char *des3 = getenv("GK5_DES3");
    vec_file *f;
    vec_block *b;

    (void)state;
    f = open_text("source = RFC 3961 A.3\n");
    b = vec_next(f);
    assert_non_null(b);
    assert_int_equal(vec_enctype_state(b, 17), VEC_ET_BUILT);
    assert_int_equal(vec_enctype_state(b, 20), VEC_ET_BUILT);
    assert_int_equal(vec_enctype_state(b, 23), VEC_ET_REJECTED);
    assert_int_equal(vec_enctype_state(b, 24), VEC_ET_REJECTED);
    assert_int_equal(vec_enctype_state(b, 1), VEC_ET_REJECTED);
    if (des3 != NULL && strcmp(des3, "1") == 0) {
        assert_int_equal(vec_enctype_state(b, 16), VEC_ET_BUILT);
    } else {
        assert_int_equal(vec_enctype_state(b, 16), VEC_ET_NOT_BUILT);
    }
    EXPECT_READER_FAILS(vec_enctype_state(b, 9999), "t.txt:1: enctype 9999");
    vec_done(b);
    vec_close(f);
}

static void test_tally_counts_and_checks(void **state)
{
    static const uint8_t a[] = {1, 2, 3};
    static const uint8_t c[] = {1, 2, 4};
    vec_file *f;
    vec_block *b;
    vec_tally t;

    (void)state;
    f = open_text("source = RFC 3961 A.1\n");
    b = vec_next(f);
    assert_non_null(b);
    vec_tally_init(&t, "t.txt");
    t.quiet = true;

    assert_true(vec_check_bytes(&t, b, "same", a, 3, a, 3));
    assert_true(vec_check_bytes(&t, b, "empty", a, 0, c, 0));
    assert_true(vec_check_rc(&t, b, "rc", 0, 0));
    assert_true(vec_check_size(&t, b, "size", 3, 3));
    vec_tally_end(&t);
    assert_int_equal(t.passed, 1);

    assert_false(vec_check_bytes(&t, b, "differs", a, 3, c, 3));
    assert_false(vec_check_bytes(&t, b, "shorter", a, 2, a, 3));
    vec_tally_end(&t);
    assert_int_equal(t.failed, 1);

    assert_false(vec_check_rc(&t, b, "rc", GK5_ERR_INTEGRITY, 0));
    vec_tally_refused(&t);
    assert_int_equal(t.failed, 2);
    assert_int_equal(t.refused, 0);

    assert_false(vec_check_size(&t, b, "size", 2, 3));
    vec_tally_end(&t);
    vec_tally_skip(&t);
    vec_tally_refused(&t);
    assert_int_equal(t.passed, 1);
    assert_int_equal(t.failed, 3);
    assert_int_equal(t.skipped, 1);
    assert_int_equal(t.refused, 1);
    vec_done(b);
    vec_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_all_value_forms),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_empty_file_has_no_blocks),
        cmocka_unit_test(test_open_uses_vectors_dir),
        cmocka_unit_test(test_unknown_field_fails_vec_done),
        cmocka_unit_test(test_missing_required_field_fails),
        cmocka_unit_test(test_missing_source_fails),
        cmocka_unit_test(test_vague_source_fails),
        cmocka_unit_test(test_hex_errors_fail),
        cmocka_unit_test(test_integer_errors_fail),
        cmocka_unit_test(test_malformed_lines_fail),
        cmocka_unit_test(test_enctype_state),
        cmocka_unit_test(test_tally_counts_and_checks),
    };

    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
