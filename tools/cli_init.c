/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 init — gk5's own initiator (include/gk5/accept.h) from a shell: the
 * service ticket from the credential cache (or the KDC), the AP-REQ token
 * into a file, and the context into a file that `gk5 wrap | unwrap | mic
 * | verify --ctx` carry on with.
 *
 * With mutual authentication the context exists only after the AP-REP, in
 * a second run: the first leaves the initiator's pending state in the
 * context file (gk5_initiator_save, include/gk5/tickets.h: magic "gk5I";
 * keys inside, mode 0600), and `gk5 init --ctx F --in AP-REP`
 * replaces it with the exported context.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>

#include "cli.h"

#define CMD "init"
#define PENDING_MAGIC "gk5I"

enum {
    OPT_SERVICE = 256,
    OPT_MUTUAL,
    OPT_CCACHE,
    OPT_CONFIG,
    OPT_IN,
    OPT_OUT,
    OPT_CTX,
    OPT_HELP = 'h'
};

struct init_args {
    const char *service;
    bool mutual;
    const char *ccache;
    const char *config;
    const char *in_path;
    const char *out_path;
    const char *ctx_path;
};

static void init_usage(FILE *f)
{
    fprintf(
        f, "Usage: gk5 init --service SERVICE@HOST [--mutual] [--ccache NAME]\n"
           "                [--config FILES] --out TOKEN_FILE --ctx CTX_FILE\n"
           "       gk5 init --ctx CTX_FILE --in TOKEN_FILE\n"
           "\n"
           "Initiate a Kerberos V5 GSS-API context with gk5's own initiator "
           "(RFC 4121 4.1,\nRFC 4120 3.2; no MIT krb5).  The service ticket "
           "comes from the credential\ncache, or from the KDC with the "
           "cache's TGT (and is stored back).  The\nAP-REQ token is written "
           "to TOKEN_FILE for the acceptor (e.g. 'gk5 accept').\n"
           "rc4 and DES tickets and session keys are refused (RFC 8429).\n"
           "\n"
           "Without --mutual the context is established at once and CTX_FILE "
           "holds it,\nexported in gk5's format, for 'gk5 wrap | unwrap | mic "
           "| verify --ctx'.\nWith --mutual, CTX_FILE holds the initiator's "
           "pending state (magic \"gk5I\",\nkeys inside, mode 0600) until "
           "the second form reads the acceptor's answer\n(the AP-REP, or a "
           "KRB-ERROR token) and replaces it with the context.\n"
           "\n"
           "  --service NAME     the acceptor: service@host (GSS host-based) "
           "or\n"
           "                     service/host[@REALM] (default realm: the "
           "TGT's)\n"
           "  --mutual           ask for mutual authentication (the acceptor "
           "answers with\n"
           "                     an AP-REP; RFC 4537 enctype negotiation "
           "for its subkey)\n"
           "  --ccache NAME      the credential cache, FILE:path or a path; "
           "default\n"
           "                     $KRB5CCNAME, else /tmp/krb5cc_UID\n"
           "  --config FILES     krb5.conf files, colon-separated; default "
           "$KRB5_CONFIG,\n"
           "                     else /etc/krb5.conf\n"
           "  --out TOKEN_FILE   the AP-REQ token, raw bytes (mode 0600)\n"
           "  --ctx CTX_FILE     the context or the pending state (mode "
           "0600)\n"
           "  --in TOKEN_FILE    the acceptor's answer, raw bytes (second "
           "form)\n"
           "\nExit status: 0 done (first form with --mutual: waiting for the "
           "answer);\n1 failed (the major status name and its words, and for "
           "a KRB-ERROR its\ncode and text, are printed); 2 bad usage.\n");
}

static int parse_args(struct init_args *a, int argc, char **argv, int *done)
{
    static const struct option longopts[] = {
        {"service", required_argument, NULL, OPT_SERVICE},
        {"mutual", no_argument, NULL, OPT_MUTUAL},
        {"ccache", required_argument, NULL, OPT_CCACHE},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"in", required_argument, NULL, OPT_IN},
        {"out", required_argument, NULL, OPT_OUT},
        {"ctx", required_argument, NULL, OPT_CTX},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    int c;

    *done = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            init_usage(stdout);
            *done = 1;
            return CLI_EXIT_OK;
        case OPT_SERVICE:
            a->service = optarg;
            break;
        case OPT_MUTUAL:
            a->mutual = true;
            break;
        case OPT_CCACHE:
            a->ccache = optarg;
            break;
        case OPT_CONFIG:
            a->config = optarg;
            break;
        case OPT_IN:
            a->in_path = optarg;
            break;
        case OPT_OUT:
            a->out_path = optarg;
            break;
        case OPT_CTX:
            a->ctx_path = optarg;
            break;
        default:
            return cli_option_error(CMD, c, argv);
        }
    }
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", CMD, argv[optind]);
        return cli_try_help(CMD);
    }
    if (a->ctx_path == NULL) {
        return cli_required(CMD, "--ctx CTX_FILE");
    }
    if (a->in_path != NULL) {
        /* The second form: nothing of the first. */
        if (a->service != NULL || a->mutual || a->ccache != NULL ||
            a->config != NULL || a->out_path != NULL) {
            cli_error("%s: --in takes only --ctx (the pending state)", CMD);
            return cli_try_help(CMD);
        }
        return CLI_EXIT_OK;
    }
    if (a->service == NULL) {
        return cli_required(CMD, "--service SERVICE@HOST");
    }
    if (a->out_path == NULL) {
        return cli_required(CMD, "--out TOKEN_FILE");
    }
    return CLI_EXIT_OK;
}

static void print_enctype(const char *what, int32_t enctype)
{
    gk5_enctype_desc d;

    if (gk5_enctype_describe(enctype, &d) == GK5_OK) {
        printf("%s: %s (%d)\n", what, d.name, (int)enctype);
    } else {
        printf("%s: %d\n", what, (int)enctype);
    }
}

/* A failure, with the KRB-ERROR's words when one came. */
static int init_fail(const char *what, uint32_t major, uint32_t minor)
{
    const char *krb = gk5_krb_last_error();
    int ret = cli_gss_fail(CMD, what, major, minor);

    if (krb != NULL) {
        cli_error("%s: %s", CMD, krb);
    }
    return ret;
}

/* Finish, export, write CTX_FILE. */
static int save_context(const struct init_args *a, gk5_initiator *init)
{
    gk5_buffer buf = {0, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t major, minor = 0;
    int32_t enctype = 0;
    int ret;

    major = gk5_initiator_finish(&minor, init, &enctype, &ctx);
    if (GK5_ERROR(major) != 0) {
        return init_fail("", major, minor);
    }
    major = gk5_ctx_export(&minor, ctx, &buf);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(CMD, "cannot export the context", major, minor);
        goto cleanup;
    }
    ret = cli_write_file(a->ctx_path, buf.value, buf.length) == 0
              ? CLI_EXIT_OK
              : CLI_EXIT_FAIL;
    if (ret == CLI_EXIT_OK) {
        print_enctype("context enctype", enctype);
        printf("context: established, in %s\n", a->ctx_path);
    }
cleanup:
    gk5_buffer_release(&buf);
    gk5_ctx_free(ctx);
    return ret;
}

static int first_form(const struct init_args *a)
{
    gk5_initiator_opts opts;
    gk5_initiator *init = NULL;
    gk5_buffer out = {0, NULL}, state = {0, NULL};
    uint32_t major, minor = 0;
    char what[512];
    int ret;

    memset(&opts, 0, sizeof(opts));
    opts.ccache = a->ccache;
    opts.config = a->config;
    opts.req_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                     (a->mutual ? GK5_C_MUTUAL_FLAG : 0u);
    major = gk5_initiator_create(&minor, a->service, &opts, &init);
    if (GK5_ERROR(major) != 0) {
        snprintf(what, sizeof(what), "service ticket for '%s'", a->service);
        return init_fail(what, major, minor);
    }
    major = gk5_initiator_step(&minor, init, NULL, &out);
    if (GK5_ERROR(major) != 0) {
        ret = init_fail("AP-REQ", major, minor);
        goto cleanup;
    }
    if (cli_write_file(a->out_path, out.value, out.length) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    printf("token: AP-REQ, %zu bytes, in %s\n", out.length, a->out_path);
    if (major == GK5_S_COMPLETE) {
        ret = save_context(a, init);
        goto cleanup;
    }
    major = gk5_initiator_save(&minor, init, &state);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(CMD, "cannot save the pending state", major, minor);
        goto cleanup;
    }
    ret = cli_write_file(a->ctx_path, state.value, state.length) == 0
              ? CLI_EXIT_OK
              : CLI_EXIT_FAIL;
    if (ret == CLI_EXIT_OK) {
        printf("context: waiting for the acceptor's answer: gk5 init --ctx "
               "%s --in TOKEN_FILE\n",
               a->ctx_path);
    }
cleanup:
    gk5_buffer_release(&state);
    gk5_buffer_release(&out);
    gk5_initiator_free(init);
    return ret;
}

static int second_form(const struct init_args *a)
{
    gk5_initiator *init = NULL;
    gk5_buffer in = {0, NULL}, out = {0, NULL};
    uint8_t *state = NULL, *token = NULL;
    size_t state_len = 0, token_len = 0;
    uint32_t major, minor = 0;
    int ret;

    if (cli_read_file(a->ctx_path, &state, &state_len) != 0 ||
        cli_read_file(a->in_path, &token, &token_len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (state_len < 4 || memcmp(state, PENDING_MAGIC, 4) != 0) {
        cli_error("%s: '%s' holds no pending initiator (an established "
                  "context, or not gk5's)",
                  CMD, a->ctx_path);
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    major = gk5_initiator_load(&minor, state, state_len, &init);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(CMD, a->ctx_path, major, minor);
        goto cleanup;
    }
    in.value = token;
    in.length = token_len;
    major = gk5_initiator_step(&minor, init, &in, &out);
    if (GK5_ERROR(major) != 0) {
        ret = init_fail("the acceptor's answer", major, minor);
        goto cleanup;
    }
    ret = save_context(a, init);
cleanup:
    cli_free_secret(state, state_len);
    free(token);
    gk5_buffer_release(&out);
    gk5_initiator_free(init);
    return ret;
}

int gk5_cli_init(int argc, char **argv)
{
    struct init_args a;
    int done = 0;
    int ret;

    memset(&a, 0, sizeof(a));
    ret = parse_args(&a, argc, argv, &done);
    if (ret != CLI_EXIT_OK || done) {
        return ret;
    }
    return a.in_path != NULL ? second_form(&a) : first_form(&a);
}
