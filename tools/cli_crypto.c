/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 crypto — the RFC 3961 operations of include/gk5/crypto.h from the
 * command line, hex in and hex out, for checking vectors and peers by hand.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "cli.h"

/* Option values; each is also a bit (1 << value) in a subcommand's masks. */
enum {
    OPT_ENCTYPE,
    OPT_PASSWORD,
    OPT_SALT,
    OPT_PARAMS,
    OPT_KEY,
    OPT_CONSTANT,
    OPT_USAGE,
    OPT_IN,
    OPT_CONFOUNDER,
    OPT_ALLOW_WEAK,
    OPT__COUNT,
    OPT_HELP = 'h'
};
#define BIT(o) (1u << (o))

/* Indexed by option value, so that longopts[OPT_KEY].name is "key". */
static const struct option longopts[] = {
    [OPT_ENCTYPE] = {"enctype", required_argument, NULL, OPT_ENCTYPE},
    [OPT_PASSWORD] = {"password", required_argument, NULL, OPT_PASSWORD},
    [OPT_SALT] = {"salt", required_argument, NULL, OPT_SALT},
    [OPT_PARAMS] = {"params", required_argument, NULL, OPT_PARAMS},
    [OPT_KEY] = {"key", required_argument, NULL, OPT_KEY},
    [OPT_CONSTANT] = {"constant", required_argument, NULL, OPT_CONSTANT},
    [OPT_USAGE] = {"usage", required_argument, NULL, OPT_USAGE},
    [OPT_IN] = {"in", required_argument, NULL, OPT_IN},
    [OPT_CONFOUNDER] = {"confounder", required_argument, NULL, OPT_CONFOUNDER},
    [OPT_ALLOW_WEAK] = {"allow-weak", no_argument, NULL, OPT_ALLOW_WEAK},
    [OPT__COUNT] = {"help", no_argument, NULL, OPT_HELP},
    [OPT__COUNT + 1] = {NULL, 0, NULL, 0},
};

/* The options as given, then decoded. */
struct crypto_args {
    const char *cmd; /* "crypto encrypt", for messages */
    const char *opt[OPT__COUNT];
    int32_t enctype;
    uint32_t usage;
    uint8_t *key, *constant, *in, *params, *confounder;
    size_t key_len, constant_len, in_len, params_len, confounder_len;
};

/* The operations, in the order `gk5 crypto --help` lists them: the index
 * of each in the command table (gk5_cli_crypto) and in subcommands[]. */
enum crypto_op {
    CRYPTO_STRING_TO_KEY,
    CRYPTO_DERIVE,
    CRYPTO_ENCRYPT,
    CRYPTO_DECRYPT,
    CRYPTO_CHECKSUM,
    CRYPTO_PRF,
    CRYPTO_OP_COUNT
};

/* What an operation takes and does; its name is in the command table. */
struct subcommand {
    uint32_t (*length)(const struct crypto_args *a, size_t *len);
    uint32_t (*fill)(const struct crypto_args *a, uint8_t *out,
                     size_t *out_len);
    uint32_t allowed;
    uint32_t required;
    const char *synopsis;
    const char *help;
};

/* Print a gk5 error code's words for a failed operation: exit status 1. */
static int fail(const struct crypto_args *a, uint32_t err)
{
    cli_error("%s: %s", a->cmd, gk5_strerror(err));
    return CLI_EXIT_FAIL;
}

static int print_hex(const struct crypto_args *a, const uint8_t *p, size_t n)
{
    cli_hex_print(stdout, p, n);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("%s: cannot write output", a->cmd);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/*
 * Every operation prints one byte string: its length is asked first
 * (length), then a buffer of that size (and one byte more, so that an empty
 * answer still has memory) is filled (fill, *out_len: in the capacity, out
 * the length written) and printed as hex.
 */
static int run_sized(struct crypto_args *a, const struct subcommand *s)
{
    uint8_t *out = NULL;
    size_t cap = 0;
    size_t out_len;
    uint32_t err;
    int ret;

    err = s->length(a, &cap);
    if (err != GK5_OK) {
        ret = fail(a, err);
        goto cleanup;
    }
    out = malloc(cap + 1);
    if (out == NULL) {
        ret = fail(a, GK5_ERR_NOMEM);
        goto cleanup;
    }
    out_len = cap;
    err = s->fill(a, out, &out_len);
    if (err != GK5_OK) {
        ret = fail(a, err);
        goto cleanup;
    }
    ret = print_hex(a, out, out_len);

cleanup:
    cli_free_secret(out, cap + 1);
    return ret;
}

/* The length and fill functions below are one-line adapters from
 * crypto_args to each library call's own parameters: alike in shape only. */

/* RFC 3961 3 string-to-key: the key, hex. */
static uint32_t key_length(const struct crypto_args *a, size_t *len)
{
    return gk5_c_key_length(a->enctype, len);
}

static uint32_t fill_string_to_key(const struct crypto_args *a, uint8_t *key,
                                   size_t *key_len)
{
    const char *password = a->opt[OPT_PASSWORD];
    const char *salt = a->opt[OPT_SALT];

    return gk5_c_string_to_key_flags(
        a->enctype, password, strlen(password), salt, strlen(salt), a->params,
        a->params_len, a->opt[OPT_ALLOW_WEAK] != NULL ? GK5_S2K_ALLOW_WEAK : 0,
        key, *key_len);
}

/* RFC 3961 5.1 DK(key, constant) (RFC 8009 KDF-HMAC-SHA2, RFC 6803
 * KDF-FEEDBACK-CMAC): the derived key, hex. */
static uint32_t derive_length(const struct crypto_args *a, size_t *len)
{
    return gk5_c_derive_length(a->enctype, a->constant, a->constant_len, len);
}

static uint32_t fill_derive(const struct crypto_args *a, uint8_t *dk,
                            size_t *dk_len)
{
    return gk5_c_derive_key(a->enctype, a->key, a->key_len, a->constant,
                            a->constant_len, dk, *dk_len);
}

/* RFC 3961 3 encrypt (confounder | data, then the MAC). */
static uint32_t encrypt_length(const struct crypto_args *a, size_t *len)
{
    return gk5_c_encrypt_length(a->enctype, a->in_len, len);
}

static uint32_t fill_encrypt(const struct crypto_args *a, uint8_t *out,
                             size_t *len)
{
    size_t out_len = *len;
    uint32_t err;

    if (a->confounder != NULL) {
        err = gk5_c_encrypt_confounder(a->enctype, a->key, a->key_len, a->usage,
                                       a->confounder, a->confounder_len, a->in,
                                       a->in_len, out, &out_len);
    } else {
        err = gk5_c_encrypt(a->enctype, a->key, a->key_len, a->usage, a->in,
                            a->in_len, out, &out_len);
    }
    *len = out_len;
    return err;
}

/* RFC 3961 3 decrypt: the plaintext, hex, only if the MAC verified. */
static uint32_t decrypt_length(const struct crypto_args *a, size_t *len)
{
    *len = a->in_len; /* plaintext is never longer */
    return GK5_OK;
}

static uint32_t fill_decrypt(const struct crypto_args *a, uint8_t *out,
                             size_t *out_len)
{
    return gk5_c_decrypt(a->enctype, a->key, a->key_len, a->usage, a->in,
                         a->in_len, out, out_len);
}

/* RFC 3961 3 get_mic: the enctype's mandatory keyed checksum, hex. */
static uint32_t checksum_length(const struct crypto_args *a, size_t *len)
{
    return gk5_c_checksum_length(a->enctype, len);
}

static uint32_t fill_checksum(const struct crypto_args *a, uint8_t *out,
                              size_t *out_len)
{
    return gk5_c_checksum(a->enctype, a->key, a->key_len, a->usage, a->in,
                          a->in_len, out, out_len);
}

/* RFC 3961 3 pseudo-random (RFC 3962 4, RFC 8009 5, RFC 6803 6), hex. */
static uint32_t prf_length(const struct crypto_args *a, size_t *len)
{
    return gk5_c_prf_length(a->enctype, len);
}

static uint32_t fill_prf(const struct crypto_args *a, uint8_t *out,
                         size_t *out_len)
{
    return gk5_c_prf(a->enctype, a->key, a->key_len, a->in, a->in_len, out,
                     *out_len);
}

static const struct subcommand subcommands[CRYPTO_OP_COUNT] = {
    [CRYPTO_STRING_TO_KEY] =
        {
            .length = key_length,
            .fill = fill_string_to_key,
            .allowed = BIT(OPT_ENCTYPE) | BIT(OPT_PASSWORD) | BIT(OPT_SALT) |
                       BIT(OPT_PARAMS) | BIT(OPT_ALLOW_WEAK),
            .required = BIT(OPT_ENCTYPE) | BIT(OPT_PASSWORD) | BIT(OPT_SALT),
            .synopsis = "--enctype E --password STR --salt STR [--params HEX] "
                        "[--allow-weak]",
            .help =
                "RFC 3961 string-to-key: print the key.  --params is the "
                "enctype's s2kparams\n(AES, Camellia, AES-SHA2: the "
                "iteration count, 4 bytes big-endian; DES3:\nnone); without "
                "it, the enctype's default count.  A count below the "
                "default\n(4096 for aes-sha1, 32768 for aes-sha2 and "
                "camellia) is refused, as MIT\nrefuses it, unless "
                "--allow-weak is given (the RFC test vectors use 1, 2, 5).\n"
                "For the RFC 8009 enctypes give the salt as is: gk5 prefixes "
                "the enctype name\nand a zero byte.\n",
        },
    [CRYPTO_DERIVE] =
        {
            .length = derive_length,
            .fill = fill_derive,
            .allowed = BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_CONSTANT),
            .required = BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_CONSTANT),
            .synopsis = "--enctype E --key HEX --constant HEX",
            .help = "Print the derived key DK(key, constant): RFC 3961 5.1, "
                    "RFC 8009 KDF-HMAC-SHA2,\nRFC 6803 KDF-FEEDBACK-CMAC.  "
                    "A constant is usually usage | 99, aa or 55\n(e.g. "
                    "0000000299).\n",
        },
    [CRYPTO_ENCRYPT] =
        {
            .length = encrypt_length,
            .fill = fill_encrypt,
            .allowed = BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) |
                       BIT(OPT_IN) | BIT(OPT_CONFOUNDER),
            .required =
                BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) | BIT(OPT_IN),
            .synopsis = "--enctype E --key HEX --usage N --in HEX "
                        "[--confounder HEX]",
            .help =
                "RFC 3961 encrypt with key usage N: print the ciphertext "
                "(confounder, data,\nMAC).  The confounder is random unless "
                "--confounder gives it (for checking\nknown-answer "
                "vectors; never do that with a real key).\n",
        },
    [CRYPTO_DECRYPT] =
        {
            .length = decrypt_length,
            .fill = fill_decrypt,
            .allowed =
                BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) | BIT(OPT_IN),
            .required =
                BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) | BIT(OPT_IN),
            .synopsis = "--enctype E --key HEX --usage N --in HEX",
            .help = "RFC 3961 decrypt with key usage N: print the plaintext "
                    "only if the integrity\ncheck passes (exit status 1 "
                    "otherwise).  DES3 plaintext keeps its padding.\n",
        },
    [CRYPTO_CHECKSUM] =
        {
            .length = checksum_length,
            .fill = fill_checksum,
            .allowed =
                BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) | BIT(OPT_IN),
            .required =
                BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_USAGE) | BIT(OPT_IN),
            .synopsis = "--enctype E --key HEX --usage N --in HEX",
            .help =
                "Print the enctype's mandatory keyed checksum of the input "
                "with key usage N\n(hmac-sha1-96-aes*, hmac-sha256-128-aes128, "
                "hmac-sha384-192-aes256,\ncmac-camellia*, "
                "hmac-sha1-des3-kd).\n",
        },
    [CRYPTO_PRF] =
        {
            .length = prf_length,
            .fill = fill_prf,
            .allowed = BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_IN),
            .required = BIT(OPT_ENCTYPE) | BIT(OPT_KEY) | BIT(OPT_IN),
            .synopsis = "--enctype E --key HEX --in HEX",
            .help = "Print the RFC 3961 pseudo-random function of the input "
                    "(RFC 3962 4, RFC 8009 5,\nRFC 6803 6).\n",
        },
};

static int run_subcommand(int op, int argc, char **argv);

static const struct cli_command commands[CRYPTO_OP_COUNT] = {
    [CRYPTO_STRING_TO_KEY] = {.name = "string-to-key",
                              .run_op = run_subcommand,
                              .op = CRYPTO_STRING_TO_KEY},
    [CRYPTO_DERIVE] = {.name = "derive",
                       .run_op = run_subcommand,
                       .op = CRYPTO_DERIVE},
    [CRYPTO_ENCRYPT] = {.name = "encrypt",
                        .run_op = run_subcommand,
                        .op = CRYPTO_ENCRYPT},
    [CRYPTO_DECRYPT] = {.name = "decrypt",
                        .run_op = run_subcommand,
                        .op = CRYPTO_DECRYPT},
    [CRYPTO_CHECKSUM] = {.name = "checksum",
                         .run_op = run_subcommand,
                         .op = CRYPTO_CHECKSUM},
    [CRYPTO_PRF] = {.name = "prf", .run_op = run_subcommand, .op = CRYPTO_PRF},
};

static void crypto_usage(FILE *f)
{
    fprintf(f, "Usage: gk5 crypto OPERATION [options]\n\nOperations:\n");
    for (size_t i = 0; i < CRYPTO_OP_COUNT; i++) {
        fprintf(f, "  gk5 crypto %s %s\n", commands[i].name,
                subcommands[i].synopsis);
    }
    fprintf(f, "\n"
               "E is an enctype number or name (see 'gk5 enctypes'); HEX is "
               "hex digits, which\nmay be grouped with spaces (\"\" or - "
               "for empty); N is a decimal key usage.\nOutput is hex on "
               "stdout.  'gk5 crypto OPERATION --help' describes one.\n"
               "Exit status: 0 success; 1 the operation failed (integrity "
               "check, wrong key\nlength, refused enctype: rc4 and single "
               "DES are rejected, DES3 needs\n-Ddes3=true); 2 bad usage.\n");
}

static void subcommand_usage(FILE *f, const char *name,
                             const struct subcommand *s)
{
    fprintf(f, "Usage: gk5 crypto %s %s\n\n%s", name, s->synopsis, s->help);
    fprintf(f, "\nE is an enctype number or name (see 'gk5 enctypes'); HEX "
               "is hex digits (\"\" or -\nfor empty).  Exit status: 0 "
               "success, 1 the operation failed, 2 bad usage.\n");
}

/* Hex options: which field each decodes into. */
static int decode_hex_options(struct crypto_args *a)
{
    struct {
        int opt;
        uint8_t **buf;
        size_t *len;
    } hex[] = {
        {OPT_KEY, &a->key, &a->key_len},
        {OPT_CONSTANT, &a->constant, &a->constant_len},
        {OPT_IN, &a->in, &a->in_len},
        {OPT_PARAMS, &a->params, &a->params_len},
        {OPT_CONFOUNDER, &a->confounder, &a->confounder_len},
    };

    for (size_t i = 0; i < GK5_ARRAY_SIZE(hex); i++) {
        const char *s = a->opt[hex[i].opt];

        if (s != NULL && cli_hex_decode(s, hex[i].buf, hex[i].len) != 0) {
            cli_error("%s: --%s: not valid hex: '%s'", a->cmd,
                      longopts[hex[i].opt].name, s);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

/* op is an enum crypto_op; argv[0] is the operation's name. */
static int run_subcommand(int op, int argc, char **argv)
{
    const struct subcommand *s = &subcommands[op];
    struct crypto_args a = {0};
    char cmd[64];
    int ret;
    int c;

    snprintf(cmd, sizeof(cmd), "crypto %s", commands[op].name);
    a.cmd = cmd;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == OPT_HELP) {
            subcommand_usage(stdout, commands[op].name, s);
            ret = CLI_EXIT_OK;
            goto cleanup;
        }
        if (c < 0 || c >= OPT__COUNT) {
            ret = cli_option_error(cmd, c, argv);
            goto cleanup;
        }
        if ((s->allowed & BIT(c)) == 0) {
            cli_error("%s: option --%s does not apply", cmd, longopts[c].name);
            fprintf(stderr, "Try 'gk5 %s --help'.\n", cmd);
            ret = CLI_EXIT_USAGE;
            goto cleanup;
        }
        if (a.opt[c] != NULL) {
            cli_error("%s: option --%s given twice", cmd, longopts[c].name);
            ret = CLI_EXIT_USAGE;
            goto cleanup;
        }
        a.opt[c] = optarg != NULL ? optarg : ""; /* "": a flag given */
    }
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", cmd, argv[optind]);
        ret = CLI_EXIT_USAGE;
        goto cleanup;
    }
    for (int o = 0; o < OPT__COUNT; o++) {
        if ((s->required & BIT(o)) != 0 && a.opt[o] == NULL) {
            cli_error("%s: --%s is required", cmd, longopts[o].name);
            fprintf(stderr, "Usage: gk5 %s %s\n", cmd, s->synopsis);
            ret = CLI_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (a.opt[OPT_USAGE] != NULL &&
        cli_parse_u32(a.opt[OPT_USAGE], &a.usage) != 0) {
        ret = cli_bad_number(cmd, "--usage", a.opt[OPT_USAGE],
                             "(a key usage, 0 to 4294967295)");
        goto cleanup;
    }
    ret = decode_hex_options(&a);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    /* A name that is not in the table is refused like an unknown number:
     * the enctype, not the command line, is what cannot be used. */
    if (gk5_enctype_from_name(a.opt[OPT_ENCTYPE], &a.enctype) != GK5_OK) {
        cli_error("%s: --enctype: unknown enctype '%s' (see 'gk5 enctypes')",
                  cmd, a.opt[OPT_ENCTYPE]);
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    /* Said here, with both lengths; the library's words say only that
     * the length is wrong. */
    if (a.key != NULL &&
        cli_check_key_length(cmd, "--key", a.enctype, a.key_len) != 0) {
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    ret = run_sized(&a, s);

cleanup:
    cli_free_secret(a.key, a.key_len);
    cli_free_secret(a.constant, a.constant_len);
    cli_free_secret(a.in, a.in_len);
    cli_free_secret(a.params, a.params_len);
    cli_free_secret(a.confounder, a.confounder_len);
    return ret;
}

int gk5_cli_crypto(int argc, char **argv)
{
    static const struct cli_subcommands crypto = {
        .cmd = "crypto",
        .table = commands,
        .count = CRYPTO_OP_COUNT,
        .usage = crypto_usage,
        .noun = "operation",
        .flags = CLI_SUB_HELP_WORD | CLI_SUB_DASH | CLI_SUB_TRY,
    };

    return cli_dispatch(&crypto, argc, argv);
}
