/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: `gk5 inspect`'s token decoder (tools/cli_inspect.c),
 * which reads tokens without keys and must take any bytes: RFC 4121 MIC and
 * Wrap tokens, RFC 2743 3.1 framed RFC 1964 tokens, anything else.
 *
 * Input: the token.  The decoder must read only the input, say "problem"
 * exactly when it returns -1, keep its strings terminated and, for a
 * well-formed token, its parts within the input; the printer must take
 * whatever it decoded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    if (devnull == NULL) {
        abort();
    }
    return 0;
}

static void bad(const char *what)
{
    fuzz_fail(what, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = fuzz_dup(data, size);
    struct cli_token_info ti;
    int rc;

    rc = cli_inspect_decode(size == 0 ? NULL : p, size, &ti);
    if (rc != 0 && rc != -1) {
        bad("inspect: return value is neither 0 nor -1");
    }
    if (memchr(ti.problem, '\0', sizeof(ti.problem)) == NULL ||
        memchr(ti.oid, '\0', sizeof(ti.oid)) == NULL) {
        bad("inspect: an unterminated string");
    }
    if ((rc == 0) != (ti.problem[0] == '\0')) {
        bad("inspect: the problem text disagrees with the return value");
    }
    if (ti.length != size) {
        bad("inspect: length is not the input's length");
    }
    if (rc == 0) {
        /* (A malformed token's fields may say what its header claims.) */
        if (ti.framing_len > size || ti.header_len > size ||
            ti.cksum_len > size || ti.conf_len > size || ti.body_len > size ||
            ti.data_len > size) {
            bad("inspect: a part of a well-formed token is longer than the "
                "input");
        }
        if (ti.kind == CLI_TOKEN_UNKNOWN) {
            bad("inspect: well-formed but of unknown kind");
        }
        if ((ti.kind == CLI_TOKEN_RFC4121_MIC ||
             ti.kind == CLI_TOKEN_RFC4121_WRAP) &&
            (ti.header_len != 16 || !ti.have_tok_id || !ti.have_seq)) {
            bad("inspect: a well-formed RFC 4121 token without its header");
        }
        if (ti.framing_len + ti.header_len + ti.cksum_len > size) {
            bad("inspect: framing, header and checksum exceed the input");
        }
    }
    cli_inspect_print(devnull, &ti);
    free(p);
    return 0;
}
