/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 wrap | unwrap | mic | verify — per-message tokens (RFC 4121, RFC 1964
 * for DES3) on a context read from a file: the rpc.gssd buffer for the
 * kernel, or gk5's own export, which --ctx-out writes back so that the send
 * counter and the receive window survive from one call to the next.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/gk5.h>

#include "common/util.h"
#include "cli.h"

enum mech_op { OP_WRAP, OP_UNWRAP, OP_MIC, OP_VERIFY };

enum {
    OPT_CTX = 256,
    OPT_CTX_OUT,
    OPT_FORMAT,
    OPT_NO_CONF,
    OPT_TOKEN,
    OPT_ACCEPT,
    OPT_HELP = 'h'
};

/* getopt_long tables, one per command: data, alike in shape only. */
static const struct option longopts[] = {
    {"ctx", required_argument, NULL, OPT_CTX},
    {"ctx-out", required_argument, NULL, OPT_CTX_OUT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"no-conf", no_argument, NULL, OPT_NO_CONF},
    {"token", required_argument, NULL, OPT_TOKEN},
    {"accept", required_argument, NULL, OPT_ACCEPT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct mech_args {
    enum mech_op op;
    const char *cmd;
    const char *ctx_path;
    const char *ctx_out;
    const char *token_path;
    enum cli_ctx_format format;
    int conf_req;
    uint32_t accept; /* supplementary bits tolerated */
};

/* The supplementary bits reported on receive, as --accept names them. */
static const struct {
    uint32_t bit;
    const char *word;
} supplementary[] = {
    {GK5_S_DUPLICATE_TOKEN, "duplicate"},
    {GK5_S_OLD_TOKEN, "old"},
    {GK5_S_UNSEQ_TOKEN, "unseq"},
    {GK5_S_GAP_TOKEN, "gap"},
};

static const char *const op_names[] = {"wrap", "unwrap", "mic", "verify"};

static void mech_usage(FILE *f, enum mech_op op)
{
    static const char common[] =
        "  --ctx FILE        the context (required)\n"
        "  --format F        the context file's format: gssd (the buffer "
        "rpc.gssd and\n"
        "                    gssproxy write for the kernel: u32 flags, u32 "
        "endtime,\n"
        "                    u64 send_seq, u32 enctype, key; host byte "
        "order) or gk5\n"
        "                    (gk5's export, with the receive window); "
        "default: detected\n"
        "  --ctx-out FILE    write the updated context (gk5 format, mode "
        "0600) so the\n"
        "                    next call continues its sequence numbers; "
        "default: the\n"
        "                    --ctx file itself, so that no sequence number "
        "is sent twice.\n"
        "                    Written (atomically: a temporary file, fsync, "
        "rename) only\n"
        "                    when the call succeeded; a refused token "
        "leaves it as it\n"
        "                    was.  The --ctx file is locked (flock) from "
        "the read to the\n"
        "                    write-back, so concurrent calls on one file "
        "take turns.\n";
    static const char accept[] =
        "  --accept LIST     supplementary statuses to tolerate, "
        "comma-separated:\n"
        "                    duplicate, old, unseq, gap, or all.  The "
        "context detects\n"
        "                    replays and order (RFC 2743 1.2.3); by "
        "default any such\n";
    static const char accept_unwrap[] =
        "                    status is a failure: a warning naming it, "
        "exit status 1\n"
        "                    and no message on stdout.  A tolerated one is "
        "warned\n"
        "                    about too, but the message is written and the "
        "exit\n"
        "                    status is 0.  A refused token is not recorded "
        "in the saved\n"
        "                    window: the same token again with --accept "
        "takes it.\n";
    static const char accept_verify[] =
        "                    status is a failure: a warning naming it and "
        "exit\n"
        "                    status 1.  A tolerated one is warned about "
        "too, with exit\n"
        "                    status 0.  A refused token is not recorded in "
        "the saved\n"
        "                    window: the same token again with --accept "
        "takes it.\n";

    switch (op) {
    case OP_WRAP:
        fprintf(f, "Usage: gk5 wrap [--no-conf] --ctx FILE [--format "
                   "gssd|gk5] [--ctx-out FILE]\n\n"
                   "Read a message on stdin, write its Wrap token (raw "
                   "bytes) on stdout:\nRFC 4121 4.2.6.2 (05 04), or RFC "
                   "1964 (02 01) for DES3.\n\n"
                   "  --no-conf         integrity only: the message is "
                   "sent in the clear\n");
        fputs(common, f);
        break;
    case OP_UNWRAP:
        fprintf(f, "Usage: gk5 unwrap --ctx FILE [--format gssd|gk5] "
                   "[--ctx-out FILE]\n"
                   "                  [--accept LIST]\n\n"
                   "Read a Wrap token on stdin; write the message (raw "
                   "bytes) on stdout, only\nonce its integrity check has "
                   "passed.  Sealed and integrity-only tokens are\nboth "
                   "accepted.\n\n");
        fputs(common, f);
        fputs(accept, f);
        fputs(accept_unwrap, f);
        break;
    case OP_MIC:
        fprintf(f, "Usage: gk5 mic --ctx FILE [--format gssd|gk5] "
                   "[--ctx-out FILE]\n\n"
                   "Read a message on stdin, write its MIC token (raw "
                   "bytes) on stdout:\nRFC 4121 4.2.6.1 (04 04), or RFC "
                   "1964 (01 01) for DES3.\n\n");
        fputs(common, f);
        break;
    case OP_VERIFY:
        fprintf(f, "Usage: gk5 verify --ctx FILE --token FILE [--format "
                   "gssd|gk5] [--ctx-out FILE]\n"
                   "                  [--accept LIST]\n\n"
                   "Read a message on stdin and check the MIC token in "
                   "--token FILE against it.\nNothing is written on "
                   "stdout: exit status 0 means the MIC verified.\n\n"
                   "  --token FILE      the MIC token (required)\n");
        fputs(common, f);
        fputs(accept, f);
        fputs(accept_verify, f);
        break;
    }
    fprintf(f, "\nExit status: 0 success; 1 the operation failed (the "
               "major status name and\nits words are printed, e.g. "
               "GSS_S_BAD_SIG); 2 bad usage.\n");
}

static int parse_accept(struct mech_args *a, const char *list)
{
    const char *p = list;

    a->accept = 0;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        int found = 0;

        if (n == 3 && strncmp(p, "all", 3) == 0) {
            for (size_t i = 0; i < GK5_ARRAY_SIZE(supplementary); i++) {
                a->accept |= supplementary[i].bit;
            }
            found = 1;
        }
        for (size_t i = 0; i < GK5_ARRAY_SIZE(supplementary); i++) {
            if (strlen(supplementary[i].word) == n &&
                strncmp(p, supplementary[i].word, n) == 0) {
                a->accept |= supplementary[i].bit;
                found = 1;
            }
        }
        if (!found) {
            cli_error("%s: --accept: unknown status '%.*s' (duplicate, old, "
                      "unseq, gap, all)",
                      a->cmd, (int)n, p);
            return -1;
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    return 0;
}

/* opt: "--accept"; not argv[optind - 1], which is the option's value when
 * it was given as a separate word. */
static int not_here(const struct mech_args *a, const char *opt)
{
    cli_error("%s: option '%s' does not apply", a->cmd, opt);
    return cli_try_help(a->cmd);
}

/* CLI_EXIT_OK to go on (or, with *done set, to stop after --help), else
 * CLI_EXIT_USAGE with the problem printed. */
static int parse_args(struct mech_args *a, int argc, char **argv, int *done)
{
    int c;

    *done = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            mech_usage(stdout, a->op);
            *done = 1;
            return CLI_EXIT_OK;
        case OPT_CTX:
            a->ctx_path = optarg;
            break;
        case OPT_CTX_OUT:
            a->ctx_out = optarg;
            break;
        case OPT_FORMAT:
            if (cli_ctx_parse_format(a->cmd, optarg, false, &a->format) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_NO_CONF:
            if (a->op != OP_WRAP) {
                return not_here(a, "--no-conf");
            }
            a->conf_req = 0;
            break;
        case OPT_TOKEN:
            if (a->op != OP_VERIFY) {
                return not_here(a, "--token");
            }
            a->token_path = optarg;
            break;
        case OPT_ACCEPT:
            if (a->op != OP_UNWRAP && a->op != OP_VERIFY) {
                return not_here(a, "--accept");
            }
            if (parse_accept(a, optarg) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        default:
            return cli_option_error(a->cmd, c, argv);
        }
    }
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", a->cmd, argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (a->ctx_path == NULL) {
        return cli_required(a->cmd, "--ctx FILE");
    }
    if (a->op == OP_VERIFY && a->token_path == NULL) {
        return cli_required(a->cmd, "--token FILE");
    }
    /* A sender that did not save its counter would send the same sequence
     * number again on the next call: without --ctx-out the context is
     * written back to the --ctx file itself. */
    if (a->ctx_out == NULL) {
        a->ctx_out = a->ctx_path;
    }
    return CLI_EXIT_OK;
}

/* Read and import the --ctx file, leaving it locked in *held (see
 * cli_open_locked) until the caller has written the context back: two
 * calls on one file then run one after the other, and the second starts
 * from the counter the first saved, so no sequence number is sent twice. */
static int load_context(const struct mech_args *a, FILE **held, gk5_ctx **ctx)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    uint32_t major;
    uint32_t minor = 0;
    enum cli_ctx_format used = CLI_CTX_AUTO;
    char what[512];
    int ret;

    *ctx = NULL;
    *held = cli_open_locked(a->ctx_path);
    if (*held == NULL) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (cli_read_stream(*held, a->ctx_path, &buf, &len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    major = cli_ctx_import(&minor, buf, len, a->format, &used, ctx);
    if (GK5_ERROR(major) != 0) {
        snprintf(what, sizeof(what), "cannot import %s context '%s'",
                 cli_ctx_format_name(used), a->ctx_path);
        ret = cli_gss_fail(a->cmd, what, major, minor);
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    cli_free_secret(buf, len);
    return ret;
}

static int save_context(const struct mech_args *a, const gk5_ctx *ctx)
{
    gk5_buffer out = {0, NULL};
    uint32_t major;
    uint32_t minor = 0;
    int ret;

    major = gk5_ctx_export(&minor, ctx, &out);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(a->cmd, "cannot export the context", major, minor);
        goto cleanup;
    }
    if (cli_write_file(a->ctx_out, out.value, out.length) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    zap(out.value, out.length);
    gk5_buffer_release(&out);
    return ret;
}

static int write_stdout(const struct mech_args *a, const void *p, size_t n)
{
    if ((n != 0 && fwrite(p, 1, n, stdout) != n) || fflush(stdout) != 0) {
        cli_error("%s: cannot write output", a->cmd);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* Warn about each supplementary bit; CLI_EXIT_FAIL (and an error naming
 * the --accept words that would take the token) if any is not tolerated. */
static int check_supplementary(const struct mech_args *a, uint32_t major)
{
    char refused[64] = "";

    for (size_t i = 0; i < GK5_ARRAY_SIZE(supplementary); i++) {
        uint32_t bit = supplementary[i].bit;

        if ((major & bit) == 0) {
            continue;
        }
        cli_warn("%s: %s: %s%s", a->cmd, gk5_major_name(bit),
                 gk5_display_status(bit, 0),
                 (a->accept & bit) != 0 ? " (accepted)" : "");
        if ((a->accept & bit) == 0) {
            if (refused[0] != '\0') {
                strcat(refused, ",");
            }
            strcat(refused, supplementary[i].word);
        }
    }
    if (refused[0] == '\0') {
        return CLI_EXIT_OK;
    }
    cli_error("%s: token refused%s (--accept %s would take it)", a->cmd,
              a->op == OP_UNWRAP ? ", message not written" : "", refused);
    return CLI_EXIT_FAIL;
}

static int run(enum mech_op op, int argc, char **argv)
{
    struct mech_args a = {.op = op, .cmd = op_names[op], .conf_req = 1};
    gk5_ctx *ctx = NULL;
    FILE *held = NULL; /* the --ctx file, locked */
    uint8_t *in = NULL;
    size_t in_len = 0;
    uint8_t *token = NULL;
    size_t token_len = 0;
    gk5_buffer inbuf;
    gk5_buffer tokbuf;
    gk5_buffer out = {0, NULL};
    uint32_t major = GK5_S_FAILURE;
    uint32_t minor = 0;
    uint32_t qop = 0;
    int conf_state = 0;
    int done = 0;
    int ret;

    ret = parse_args(&a, argc, argv, &done);
    if (ret != CLI_EXIT_OK || done) {
        goto cleanup;
    }
    ret = load_context(&a, &held, &ctx);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    if (op == OP_VERIFY &&
        cli_read_file(a.token_path, &token, &token_len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (cli_read_all(stdin, &in, &in_len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    inbuf.length = in_len;
    inbuf.value = in;
    tokbuf.length = token_len;
    tokbuf.value = token;

    switch (op) {
    case OP_WRAP:
        major = gk5_wrap(&minor, ctx, a.conf_req, GK5_QOP_DEFAULT, &inbuf,
                         &conf_state, &out);
        break;
    case OP_UNWRAP:
        major = gk5_unwrap(&minor, ctx, &inbuf, &out, &conf_state, &qop);
        break;
    case OP_MIC:
        major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &inbuf, &out);
        break;
    case OP_VERIFY:
        major = gk5_verify_mic(&minor, ctx, &inbuf, &tokbuf, &qop);
        break;
    }
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(a.cmd, "", major, minor);
        goto cleanup;
    }
    ret = check_supplementary(&a, major);
    if (ret != CLI_EXIT_OK) {
        /* The window has already recorded a GAP or UNSEQ token's number
         * (src/mech/seqstate.c records, then reports): saving it would
         * make the retry that the message suggests, with --accept, a
         * DUPLICATE.  A refused token leaves the file as it was. */
        goto cleanup;
    }

    /* The context is saved before any output: a token must never leave
     * while the file still holds the sequence number it used. */
    ret = save_context(&a, ctx);
    if (ret == CLI_EXIT_OK && op != OP_VERIFY) {
        ret = write_stdout(&a, out.value, out.length);
    }

cleanup:
    /* unwrap's output is plaintext: wiped like the input message. */
    zap(out.value, out.length);
    gk5_buffer_release(&out);
    cli_free_secret(in, in_len);
    free(token);
    gk5_ctx_free(ctx);
    if (held != NULL) {
        fclose(held); /* releases the lock, after the write-back */
    }
    return ret;
}

int gk5_cli_wrap(int argc, char **argv)
{
    return run(OP_WRAP, argc, argv);
}

int gk5_cli_unwrap(int argc, char **argv)
{
    return run(OP_UNWRAP, argc, argv);
}

int gk5_cli_mic(int argc, char **argv)
{
    return run(OP_MIC, argc, argv);
}

int gk5_cli_verify(int argc, char **argv)
{
    return run(OP_VERIFY, argc, argv);
}
