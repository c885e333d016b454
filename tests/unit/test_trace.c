/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * GK5_TRACE: the lines a traced process writes (import, the receive
 * window's verdicts, integrity and header failures, enctype refusals,
 * export, free), their shape ("[pid] seconds.micros: gk5: ..."), and what
 * they must never hold: the session key, its derived subkeys, the
 * plaintext (as bytes or as hex).  Off (unset, empty, or a file that
 * cannot be opened) writes nothing; "stderr" writes to fd 2.
 *
 * Each test points GK5_TRACE somewhere and calls gk5i_trace_reset(), the
 * internal seam that reads the variable again.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tokutil.h"
#include "mech/mech_int.h"

#define ET_AES128 17
/* A message no trace line may show, and a key whose bytes stand out. */
static char plaintext[] = "GK5-TRACE-PLAINTEXT-must-not-leak-7f3a";
static const uint8_t key128[16] = {0xa5, 0x3c, 0x96, 0x0f, 0xe1, 0x7b,
                                   0x42, 0xd8, 0x19, 0xc6, 0x5e, 0x83,
                                   0x2a, 0xf4, 0x6d, 0xb0};

/* ---- helpers ---- */

/* A fresh empty file for the trace; *path receives its name. */
static void trace_to_new_file(char path[64])
{
    int fd;

    snprintf(path, 64, "/tmp/gk5-test-trace-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(setenv("GK5_TRACE", path, 1), 0);
    gk5i_trace_reset();
}

static void trace_off(void)
{
    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();
}

/* The whole file, NUL-terminated; *len without the NUL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len != NULL) {
        *len = (size_t)n;
    }
    return buf;
}

static void expect_line(const char *trace, const char *want)
{
    if (strstr(trace, want) == NULL) {
        fail_msg("no trace line has \"%s\"; the trace:\n%s", want, trace);
    }
}

/* Every line: "[pid] seconds.micros: gk5: " and text, newline-ended. */
static size_t expect_well_formed(const char *trace, size_t len)
{
    size_t lines = 0;
    const char *p = trace;

    assert_true(len == 0 || trace[len - 1] == '\n');
    while (*p != '\0') {
        const char *end = strchr(p, '\n');
        long pid = 0;
        long long sec = 0;
        unsigned usec = 0;
        int used = 0;

        assert_non_null(end);
        if (sscanf(p, "[%ld] %lld.%6u: gk5: %n", &pid, &sec, &usec, &used) !=
                3 ||
            used == 0) {
            fail_msg("malformed trace line: %.*s", (int)(end - p), p);
        }
        assert_int_equal(pid, (long)getpid());
        assert_true(sec > 1700000000LL);
        lines++;
        p = end + 1;
    }
    return lines;
}

static void hex(const uint8_t *in, size_t n, char *out, bool upper)
{
    for (size_t i = 0; i < n; i++) {
        snprintf(out + 2 * i, 3, upper ? "%02X" : "%02x", in[i]);
    }
}

/* Neither the bytes nor their hex (either case, also with spaces between
 * bytes) appear in the trace. */
static void expect_absent(const char *trace, size_t len, const uint8_t *secret,
                          size_t n, const char *what)
{
    char h[2 * 64 + 1], spaced[3 * 64 + 1];

    assert_true(n <= 64);
    if (n == 0) {
        return;
    }
    if (memmem(trace, len, secret, n) != NULL) {
        fail_msg("the trace holds the raw bytes of %s", what);
    }
    for (int upper = 0; upper < 2; upper++) {
        hex(secret, n, h, upper != 0);
        if (strstr(trace, h) != NULL) {
            fail_msg("the trace holds %s in hex", what);
        }
        for (size_t i = 0; i < n; i++) {
            snprintf(spaced + 3 * i, 4, upper ? "%02X " : "%02x ", secret[i]);
        }
        spaced[3 * n - 1] = '\0';
        if (strstr(trace, spaced) != NULL) {
            fail_msg("the trace holds %s as spaced hex", what);
        }
    }
}

static void wrap_msg(gk5_ctx *ctx, int conf, gk5_buffer *token)
{
    gk5_buffer in = {sizeof(plaintext) - 1, plaintext};
    uint32_t minor = 0;

    tok_assert_major(gk5_wrap(&minor, ctx, conf, 0, &in, NULL, token),
                     GK5_S_COMPLETE, minor);
}

static uint32_t unwrap_msg(gk5_ctx *ctx, const gk5_buffer *token)
{
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0, major;

    major = gk5_unwrap(&minor, ctx, token, &out, NULL, NULL);
    gk5_buffer_release(&out);
    return major;
}

/* ---- the events, and no secret among them ---- */

static void test_events_and_no_secrets(void **state)
{
    char path[64];
    gk5_ctx *init = NULL, *acc = NULL, *moved = NULL;
    gk5_buffer tok1 = {0, NULL}, tok2 = {0, NULL}, tok3 = {0, NULL};
    gk5_buffer mic = {0, NULL}, exported = {0, NULL};
    gk5_buffer msg = {sizeof(plaintext) - 1, plaintext};
    uint8_t rc4_key[16] = {0};
    uint8_t gssd[20 + 16];
    uint32_t flags = 0, endtime = 0, et = 23, minor = 0;
    uint64_t seq = 0;
    struct gk5i_subkeys sk[UK__COUNT];
    size_t len, lines;
    unsigned init_id;
    char *trace;
    char want[256];

    (void)state;
    trace_to_new_file(path);

    /* Import: an initiator that sends from 5, and its acceptor. */
    init = tok_ctx(ET_AES128, TOK_GSSD_INITIATOR | TOK_GSSD_CFX, 5, key128,
                   sizeof(key128));
    acc = tok_ctx(ET_AES128, TOK_GSSD_CFX, 0, key128, sizeof(key128));
    memcpy(sk, init->sk, sizeof(sk));
    init_id = init->trace_id;

    /* The same token twice: the second is a duplicate. */
    wrap_msg(init, 1, &tok1);
    tok_assert_major(unwrap_msg(acc, &tok1), GK5_S_COMPLETE, 0);
    tok_assert_major(unwrap_msg(acc, &tok1),
                     GK5_S_COMPLETE | GK5_S_DUPLICATE_TOKEN, 0);

    /* One byte changed in the ciphertext: an integrity failure. */
    wrap_msg(init, 1, &tok2);
    ((uint8_t *)tok2.value)[tok2.length - 1] ^= 0x01;
    tok_assert_major(unwrap_msg(acc, &tok2), GK5_S_BAD_SIG, 0);

    /* Number 7 skipped, 8 received: a gap. */
    wrap_msg(init, 0, &tok3);
    gk5_buffer_release(&tok3);
    wrap_msg(init, 0, &tok3);
    tok_assert_major(unwrap_msg(acc, &tok3), GK5_S_COMPLETE | GK5_S_GAP_TOKEN,
                     0);

    /* A MIC checked against another message. */
    tok_assert_major(gk5_get_mic(&minor, init, 0, &msg, &mic), GK5_S_COMPLETE,
                     minor);
    msg.length--;
    tok_assert_major(gk5_verify_mic(&minor, acc, &msg, &mic, NULL),
                     GK5_S_BAD_SIG, minor);

    /* rc4 in an rpc.gssd buffer. */
    memcpy(gssd, &flags, 4);
    memcpy(gssd + 4, &endtime, 4);
    memcpy(gssd + 8, &seq, 8);
    memcpy(gssd + 16, &et, 4);
    memcpy(gssd + 20, rc4_key, sizeof(rc4_key));
    tok_assert_major(gk5_ctx_import_gssd(&minor, gssd, sizeof(gssd), &moved),
                     GK5_S_UNAVAILABLE, minor);

    /* Export, import of the export, free. */
    tok_assert_major(gk5_ctx_export(&minor, acc, &exported), GK5_S_COMPLETE,
                     minor);
    tok_assert_major(
        gk5_ctx_import(&minor, exported.value, exported.length, &moved),
        GK5_S_COMPLETE, minor);
    gk5_ctx_free(moved);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);

    trace = slurp(path, &len);
    lines = expect_well_formed(trace, len);
    assert_true(lines >= 10);

    expect_line(trace, ": gk5: ctx ");
    expect_line(trace, "import_gssd: enctype aes128-cts-hmac-sha1-96 (17), "
                       "initiator, RFC 4121, no acceptor subkey, flags "
                       "conf+integ+replay+sequence, send seq 5, endtime none");
    expect_line(trace, "import_gssd: enctype aes128-cts-hmac-sha1-96 (17), "
                       "acceptor, RFC 4121");
    expect_line(trace, "unwrap: receive window starts at sequence 5");
    expect_line(trace, "unwrap: sequence 5 is a duplicate (window base 0, "
                       "size 64, next expected 6): GSS_S_DUPLICATE_TOKEN");
    /* The acceptor checks the initiator's seal usage, 24. */
    expect_line(trace, "unwrap: integrity check failed: sealed, key usage 24 "
                       "(TOK_ID 05 04, flags 0x02 Sealed, EC 0, RRC 0, "
                       "SND_SEQ 6)");
    expect_line(trace, "unwrap: GSS_S_BAD_SIG: the integrity check failed");
    expect_line(trace,
                "unwrap: sequence 8 leaves a gap of 2 (window base 0, size 64, "
                "next expected 6): GSS_S_GAP_TOKEN");
    expect_line(trace, "verify_mic: integrity check failed: MIC, key usage 25 "
                       "(TOK_ID 04 04, flags 0x00, SND_SEQ 9)");
    expect_line(trace, "enctype refused: rc4-hmac (23) is deliberately "
                       "unsupported: RFC 8429");
    expect_line(trace,
                "import_gssd: refused: GSS_S_UNAVAILABLE: rc4-hmac (23)");
    expect_line(trace, ": export: send seq 0, receive window next expected 9");
    expect_line(trace, ": import: enctype aes128-cts-hmac-sha1-96 (17), "
                       "acceptor");
    snprintf(want, sizeof(want), "ctx %u: free: send seq 10,", init_id);
    expect_line(trace, want);

    /* No key, no subkey, no message. */
    expect_absent(trace, len, key128, sizeof(key128), "the session key");
    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        expect_absent(trace, len, sk[slot].ke, sk[slot].ke_len, "a Ke");
        expect_absent(trace, len, sk[slot].ki, sk[slot].ki_len, "a Ki");
        expect_absent(trace, len, sk[slot].kc, sk[slot].kc_len, "a Kc");
    }
    expect_absent(trace, len, (const uint8_t *)plaintext, 16, "the plaintext");
    expect_absent(trace, len, (const uint8_t *)plaintext + 16, 16,
                  "the plaintext");
    assert_null(strstr(trace, "PLAINTEXT"));

    for (size_t slot = 0; slot < UK__COUNT; slot++) {
        gk5i_subkeys_wipe(&sk[slot]);
    }
    free(trace);
    gk5_buffer_release(&tok1);
    gk5_buffer_release(&tok2);
    gk5_buffer_release(&tok3);
    gk5_buffer_release(&mic);
    gk5_buffer_release(&exported);
    trace_off();
    unlink(path);
}

/* A lucid import: the window expects the peer's first number; a token
 * from before it is old. */
static void test_lucid_window(void **state)
{
    char path[64];
    gk5_lucid_ctx l;
    gk5_ctx *init = NULL, *acc = NULL;
    gk5_buffer tok = {0, NULL};
    uint32_t minor = 0;
    char *trace;
    size_t len;

    (void)state;
    trace_to_new_file(path);
    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.initiate = 0;
    l.endtime = 0;
    l.send_seq = 0;
    l.recv_seq = 100;
    l.protocol = 1;
    l.cfx_kd.ctx_key.type = ET_AES128;
    l.cfx_kd.ctx_key.length = sizeof(key128);
    l.cfx_kd.ctx_key.data = key128;
    tok_assert_major(gk5_ctx_import_lucid(&minor, &l, &acc), GK5_S_COMPLETE,
                     minor);
    init = tok_ctx(ET_AES128, TOK_GSSD_INITIATOR | TOK_GSSD_CFX, 20, key128,
                   sizeof(key128));
    wrap_msg(init, 1, &tok);
    tok_assert_major(unwrap_msg(acc, &tok), GK5_S_COMPLETE | GK5_S_OLD_TOKEN,
                     0);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
    gk5_buffer_release(&tok);

    trace = slurp(path, &len);
    expect_well_formed(trace, len);
    expect_line(trace, "import_lucid: enctype aes128-cts-hmac-sha1-96 (17), "
                       "acceptor, RFC 4121, no acceptor subkey");
    expect_line(trace, "receive window expects 100");
    expect_line(trace, "unwrap: sequence 20 is too old to be checked for "
                       "duplication (window base 36, size 64, next expected "
                       "100): GSS_S_OLD_TOKEN");
    expect_absent(trace, len, key128, sizeof(key128), "the session key");
    free(trace);
    trace_off();
    unlink(path);
}

/* A reflected token: the header line says what the context wanted. */
static void test_header_line(void **state)
{
    char path[64];
    gk5_ctx *init = NULL, *acc = NULL;
    gk5_buffer tok = {0, NULL};
    char *trace;
    size_t len;

    (void)state;
    trace_to_new_file(path);
    tok_pair(ET_AES128, false, 0, &init, &acc);
    wrap_msg(init, 1, &tok);
    tok_assert_major(unwrap_msg(init, &tok), GK5_S_DEFECTIVE_TOKEN, 0);
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
    gk5_buffer_release(&tok);

    trace = slurp(path, &len);
    expect_well_formed(trace, len);
    expect_line(trace, "unwrap: token header: the token was sent in our own "
                       "direction (a reflected token); we are the initiator: "
                       "want SentByAcceptor set (");
    expect_line(trace, "bytes: 05 04 02 ff 00 00 00 00 00 00 00 00 00 00 00 "
                       "00)");
    expect_line(trace, "unwrap: GSS_S_DEFECTIVE_TOKEN: the token was sent in "
                       "our own direction");
    free(trace);
    trace_off();
    unlink(path);
}

/* Unset, empty or unopenable: off, nothing written, the state is OFF. */
static void test_off_writes_nothing(void **state)
{
    char path[64];
    gk5_ctx *init = NULL, *acc = NULL;
    gk5_buffer tok = {0, NULL};
    size_t len = 1;
    char *trace;

    (void)state;
    trace_to_new_file(path);
    trace_off();
    assert_int_equal(atomic_load(&gk5i_trace_state), GK5I_TRACE_OFF);
    tok_pair(ET_AES128, false, 0, &init, &acc);
    wrap_msg(init, 1, &tok);
    tok_assert_major(unwrap_msg(acc, &tok), GK5_S_COMPLETE, 0);
    tok_assert_major(unwrap_msg(acc, &tok),
                     GK5_S_COMPLETE | GK5_S_DUPLICATE_TOKEN, 0);
    gk5i_trace("must not appear");
    gk5_ctx_free(init);
    gk5_ctx_free(acc);
    gk5_buffer_release(&tok);
    trace = slurp(path, &len);
    assert_int_equal(len, 0);
    free(trace);

    assert_int_equal(setenv("GK5_TRACE", "", 1), 0);
    gk5i_trace_reset();
    assert_int_equal(atomic_load(&gk5i_trace_state), GK5I_TRACE_OFF);

    assert_int_equal(setenv("GK5_TRACE", "/nonexistent-gk5-dir/trace", 1), 0);
    gk5i_trace_reset();
    assert_int_equal(atomic_load(&gk5i_trace_state), GK5I_TRACE_OFF);
    gk5i_trace("nowhere to go");
    trace_off();
    unlink(path);
}

/* GK5_TRACE=stderr: lines go to fd 2 (redirected to a file here). */
static void test_stderr(void **state)
{
    char path[64];
    int saved, fd;
    size_t len;
    char *trace;
    gk5_ctx *ctx;

    (void)state;
    snprintf(path, sizeof(path), "/tmp/gk5-test-stderr-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
    close(fd);

    assert_int_equal(setenv("GK5_TRACE", "stderr", 1), 0);
    gk5i_trace_reset();
    ctx = tok_ctx(ET_AES128, TOK_GSSD_CFX, 3, key128, sizeof(key128));
    gk5_ctx_free(ctx);
    trace_off();

    assert_true(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
    close(saved);
    /* Off again: fd 2 is the process's, not closed by the reset. */
    assert_true(fcntl(STDERR_FILENO, F_GETFD) >= 0);

    trace = slurp(path, &len);
    expect_well_formed(trace, len);
    expect_line(trace, "import_gssd: enctype aes128-cts-hmac-sha1-96 (17), "
                       "acceptor, RFC 4121, no acceptor subkey, flags "
                       "conf+integ+replay+sequence, send seq 3");
    expect_line(trace, ": free: send seq 3");
    free(trace);
    unlink(path);
}

/* A program that closed fd 1 (an inetd service) must not find the trace
 * file there: its own output would land in the trace. */
static void test_not_on_std_fds(void **state)
{
    char path[64];
    int saved;
    bool was_free;
    char *trace;
    size_t len;

    (void)state;
    trace_to_new_file(path);
    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    close(STDOUT_FILENO);
    gk5i_trace_reset();
    gk5i_trace("fd 1 was closed");
    was_free = fcntl(STDOUT_FILENO, F_GETFD) == -1;
    trace_off();
    assert_true(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
    close(saved);
    assert_true(was_free);

    trace = slurp(path, &len);
    expect_well_formed(trace, len);
    expect_line(trace, "gk5: fd 1 was closed\n");
    free(trace);
    unlink(path);
}

/* errno survives a trace line (tracing must not change what a caller
 * sees), and lines from threads never mix. */
#define THREADS 4
#define LINES_EACH 300

static void *trace_lines(void *arg)
{
    uintptr_t id = (uintptr_t)arg;

    for (int i = 0; i < LINES_EACH; i++) {
        gk5i_trace("thread %u line %d %s", (unsigned)id, i,
                   "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop");
    }
    return NULL;
}

static void test_threads_and_errno(void **state)
{
    char path[64];
    pthread_t t[THREADS];
    char *trace, *p;
    size_t len, lines;

    (void)state;
    trace_to_new_file(path);
    errno = EDOM;
    gk5i_trace("errno is kept");
    assert_int_equal(errno, EDOM);

    for (uintptr_t i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, trace_lines, (void *)i),
                         0);
    }
    for (size_t i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
    }
    trace = slurp(path, &len);
    lines = expect_well_formed(trace, len);
    assert_int_equal(lines, 1 + THREADS * LINES_EACH);
    for (p = strstr(trace, "thread "); p != NULL;
         p = strstr(p + 1, "thread ")) {
        unsigned id;
        int n;
        char tail[64];

        assert_int_equal(sscanf(p, "thread %u line %d %63s", &id, &n, tail), 3);
        assert_string_equal(
            tail, "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop");
    }
    free(trace);
    trace_off();
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_and_no_secrets),
        cmocka_unit_test(test_lucid_window),
        cmocka_unit_test(test_header_line),
        cmocka_unit_test(test_off_writes_nothing),
        cmocka_unit_test(test_stderr),
        cmocka_unit_test(test_not_on_std_fds),
        cmocka_unit_test(test_threads_and_errno),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
