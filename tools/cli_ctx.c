/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 ctx new | show | convert — context files: an rpc.gssd buffer (what
 * gk5_ctx_import_gssd reads, src/mech/import_gssd.c) made from a key, any
 * context file shown field by field, and a gssd buffer converted to gk5's
 * own export (src/mech/export.c), which carries the receive window.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "cli.h"

/* The rpc.gssd buffer (src/mech/import_gssd.c), host byte order, no
 * padding: u32 flags, u32 endtime, u64 send_seq, u32 enctype, the key. */
#define GSSD_OFF_FLAGS 0
#define GSSD_OFF_ENDTIME 4
#define GSSD_OFF_SEND_SEQ 8
#define GSSD_OFF_ENCTYPE 16
#define GSSD_OFF_KEY 20

#define EXPORT_MAGIC "gk5C"
#define EXPORT_MAGIC_LEN 4
/* gk5's export (docs/design.md, "Export format"): after the 52-byte
 * header, four key slots (send seal, send sign, receive seal, receive
 * sign), each a raw byte (1: Ke is the session key itself, RFC 1964), then
 * Ke, Ki and Kc, each after a length byte. */
#define EXPORT_OFF_SLOTS 52
#define EXPORT_SLOTS 4

/* RFC 1964 sequence numbers are 32 bits. */
#define SEQ32_LIMIT ((uint64_t)1 << 32)

const char *cli_ctx_format_name(enum cli_ctx_format format)
{
    return format == CLI_CTX_EXPORT ? "gk5" : "gssd";
}

enum cli_ctx_format cli_ctx_detect(const uint8_t *buf, size_t len)
{
    return len >= EXPORT_MAGIC_LEN && memcmp(buf, EXPORT_MAGIC, 4) == 0
               ? CLI_CTX_EXPORT
               : CLI_CTX_GSSD;
}

uint32_t cli_ctx_import(uint32_t *minor, const uint8_t *buf, size_t len,
                        enum cli_ctx_format format, enum cli_ctx_format *used,
                        gk5_ctx **ctx)
{
    if (format == CLI_CTX_AUTO) {
        format = cli_ctx_detect(buf, len);
    }
    if (used != NULL) {
        *used = format;
    }
    if (format == CLI_CTX_EXPORT) {
        return gk5_ctx_import(minor, buf, len, ctx);
    }
    return gk5_ctx_import_gssd(minor, buf, len, ctx);
}

int cli_ctx_parse_format(const char *cmd, const char *arg, bool export_word,
                         enum cli_ctx_format *out)
{
    if (strcmp(arg, "gssd") == 0) {
        *out = CLI_CTX_GSSD;
    } else if (strcmp(arg, "gk5") == 0 ||
               (export_word && strcmp(arg, "export") == 0)) {
        *out = CLI_CTX_EXPORT;
    } else {
        cli_error("%s: --format: '%s' is neither gssd nor gk5", cmd, arg);
        return -1;
    }
    return 0;
}

/* ---- shared by the subcommands ---- */

enum {
    OPT_ENCTYPE = 256,
    OPT_KEY,
    OPT_KEY_FILE,
    OPT_INITIATOR,
    OPT_ACCEPTOR,
    OPT_SUBKEY,
    OPT_SEND_SEQ,
    OPT_ENDTIME,
    OPT_OUT,
    OPT_FORCE,
    OPT_SHOW_KEY,
    OPT_TO,
    OPT_FORMAT,
    OPT_HELP = 'h'
};

/* What the subcommands' options and operand set; each command's longopts
 * admit only its own options. */
struct ctx_args {
    const char *path; /* show, convert: the FILE operand */
    /* new */
    const char *enctype, *key_hex, *key_file;
    const char *send_seq_arg;
    bool acceptor, initiator, subkey;
    uint64_t send_seq;
    uint32_t endtime;
    /* new, convert */
    const char *out;
    bool force;
    /* show, convert */
    enum cli_ctx_format format;
    bool show_key;
    enum cli_ctx_format to;
};

static int parse_endtime(const char *cmd, const char *arg, uint32_t *out);

/* One parser for the three subcommands: the options in longopts, then the
 * FILE operand when want_file.  *a is zeroed first.  CLI_EXIT_OK to go on (or,
 * with *done set, to stop after --help), else CLI_EXIT_USAGE with the problem
 * printed. */
static int parse_args(struct ctx_args *a, const char *cmd,
                      const struct option *longopts, void (*usage)(FILE *),
                      bool want_file, int argc, char **argv, int *done)
{
    int c;

    memset(a, 0, sizeof(*a));
    *done = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            usage(stdout);
            *done = 1;
            return CLI_EXIT_OK;
        case OPT_ENCTYPE:
            a->enctype = optarg;
            break;
        case OPT_KEY:
            a->key_hex = optarg;
            break;
        case OPT_KEY_FILE:
            a->key_file = optarg;
            break;
        case OPT_INITIATOR:
            a->initiator = true;
            break;
        case OPT_ACCEPTOR:
            a->acceptor = true;
            break;
        case OPT_SUBKEY:
            a->subkey = true;
            break;
        case OPT_SEND_SEQ:
            if (cli_parse_u64(optarg, &a->send_seq) != 0) {
                return cli_bad_number(cmd, "--send-seq", optarg,
                                      "(0 to 18446744073709551615)");
            }
            a->send_seq_arg = optarg;
            break;
        case OPT_ENDTIME:
            if (parse_endtime(cmd, optarg, &a->endtime) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_OUT:
            a->out = optarg;
            break;
        case OPT_FORCE:
            a->force = true;
            break;
        case OPT_FORMAT:
            if (cli_ctx_parse_format(cmd, optarg, true, &a->format) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_SHOW_KEY:
            a->show_key = true;
            break;
        case OPT_TO:
            if (strcmp(optarg, "export") == 0 || strcmp(optarg, "gk5") == 0) {
                a->to = CLI_CTX_EXPORT;
            } else if (strcmp(optarg, "gssd") == 0) {
                a->to = CLI_CTX_GSSD;
            } else {
                cli_error("%s: --to: '%s' is neither export nor gssd", cmd,
                          optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        default:
            return cli_option_error(cmd, c, argv);
        }
    }
    if (want_file) {
        if (optind >= argc) {
            cli_error("%s: missing FILE", cmd);
            return cli_try_help(cmd);
        }
        a->path = argv[optind++];
    }
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s'", cmd, argv[optind]);
        return cli_try_help(cmd);
    }
    return CLI_EXIT_OK;
}

/* After a successful command: CLI_EXIT_OK, or CLI_EXIT_FAIL if stdout could
 * not be written. */
static int flush_output(const char *cmd)
{
    if (fflush(stdout) != 0) {
        cli_error("%s: cannot write output", cmd);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* The FILE of show and convert: its bytes and the context they import as.
 * Zeroed, then filled by load; free_file releases it. */
struct ctx_file {
    uint8_t *buf;
    size_t len;
    enum cli_ctx_format used;
    gk5_ctx *ctx;
};

/* Read a context file and import it: CLI_EXIT_OK, or CLI_EXIT_FAIL with
 * the message printed. */
static int load(const char *cmd, const char *path, enum cli_ctx_format format,
                struct ctx_file *f)
{
    uint32_t major;
    uint32_t minor = 0;
    char what[512];

    if (cli_read_file(path, &f->buf, &f->len) != 0) {
        return CLI_EXIT_FAIL;
    }
    major = cli_ctx_import(&minor, f->buf, f->len, format, &f->used, &f->ctx);
    if (GK5_ERROR(major) != 0) {
        snprintf(what, sizeof(what), "'%s' does not import as a %s context",
                 path, cli_ctx_format_name(f->used));
        return cli_gss_fail(cmd, what, major, minor);
    }
    return CLI_EXIT_OK;
}

static void free_file(struct ctx_file *f)
{
    gk5_ctx_free(f->ctx);
    cli_free_secret(f->buf, f->len);
}

/* What gk5_ctx_inquire and gk5_ctx_inquire_window say of ctx: CLI_EXIT_OK,
 * or CLI_EXIT_FAIL with the message printed. */
static int inquire(const char *cmd, const gk5_ctx *ctx, gk5_ctx_info *info,
                   gk5_ctx_window *window)
{
    uint32_t minor = 0;

    if (GK5_ERROR(gk5_ctx_inquire(&minor, ctx, info)) != 0 ||
        GK5_ERROR(gk5_ctx_inquire_window(&minor, ctx, window)) != 0) {
        cli_error("%s: cannot inquire the context: %s", cmd,
                  gk5_strerror(minor));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* One key slot of gk5's export, pointing into the buffer. */
struct export_slot {
    bool raw;
    const uint8_t *ke, *ki, *kc;
    size_t ke_len, ki_len, kc_len;
};

/* One key of a slot: its length byte at *off, then the key. */
static bool export_key(const uint8_t *buf, size_t len, size_t *off,
                       const uint8_t **key, size_t *key_len)
{
    if (*off >= len || buf[*off] > len - *off - 1) {
        return false;
    }
    *key_len = buf[*off];
    *key = buf + *off + 1;
    *off += 1 + *key_len;
    return true;
}

/* The key slots of a buffer that imported as gk5's export: CLI_EXIT_OK,
 * or CLI_EXIT_FAIL with the message printed (the import checked the same
 * fields, so a buffer that imported always reads). */
static int export_slots(const char *cmd, const uint8_t *buf, size_t len,
                        struct export_slot slots[EXPORT_SLOTS])
{
    size_t off = EXPORT_OFF_SLOTS;
    bool ok = true;

    for (size_t i = 0; ok && i < EXPORT_SLOTS; i++) {
        struct export_slot *sl = &slots[i];

        ok = off < len;
        if (ok) {
            sl->raw = buf[off++] != 0;
            ok = export_key(buf, len, &off, &sl->ke, &sl->ke_len) &&
                 export_key(buf, len, &off, &sl->ki, &sl->ki_len) &&
                 export_key(buf, len, &off, &sl->kc, &sl->kc_len);
        }
    }
    if (!ok) {
        cli_error("%s: cannot read the keys of gk5's export", cmd);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* Write a new context file, then read it back and import it: what is on
 * disk is what was meant, or the file is removed. */
static int write_checked(const char *cmd, const char *path, const uint8_t *buf,
                         size_t len, enum cli_ctx_format format, bool force)
{
    uint8_t *back = NULL;
    size_t back_len = 0;
    gk5_ctx *ctx = NULL;
    uint32_t major;
    uint32_t minor = 0;
    int ret = CLI_EXIT_FAIL;

    if (cli_create_file(cmd, path, buf, len, force) != 0) {
        return CLI_EXIT_FAIL;
    }
    if (cli_read_file(path, &back, &back_len) != 0) {
        goto cleanup;
    }
    if (back_len != len || memcmp(back, buf, len) != 0) {
        cli_error("%s: '%s' reads back different from what was written", cmd,
                  path);
        goto cleanup;
    }
    major = cli_ctx_import(&minor, back, back_len, format, NULL, &ctx);
    if (GK5_ERROR(major) != 0) {
        ret =
            cli_gss_fail(cmd, "the written file does not import", major, minor);
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    if (ret != CLI_EXIT_OK) {
        unlink(path);
    }
    gk5_ctx_free(ctx);
    cli_free_secret(back, back_len);
    return ret;
}

/* An enctype number or name that gk5 can use; CLI_EXIT_OK or
 * CLI_EXIT_FAIL with the table's words. */
static int usable_enctype(const char *cmd, const char *arg, int32_t *et)
{
    uint32_t err;

    if (gk5_enctype_from_name(arg, et) != GK5_OK) {
        cli_error("%s: --enctype: unknown enctype '%s' (see 'gk5 enctypes')",
                  cmd, arg);
        return CLI_EXIT_FAIL;
    }
    err = gk5_enctype_check(*et);
    if (err != GK5_OK) {
        cli_error("%s: --enctype: %s", cmd, gk5_strerror(err));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ---- gk5 ctx new ---- */

static const char new_synopsis[] =
    "Usage: gk5 ctx new --enctype E (--key HEX | --key-file FILE)\n"
    "                   [--initiator | --acceptor] [--subkey] [--send-seq "
    "N]\n"
    "                   [--endtime T] --out FILE [--force]\n";

static void new_usage(FILE *f)
{
    fputs(new_synopsis, f);
    fprintf(f,
            "\n"
            "Write an rpc.gssd buffer (what rpc.gssd and gssproxy hand the "
            "kernel, and\n'gk5 wrap --ctx' reads): u32 flags, u32 endtime, "
            "u64 send_seq, u32 enctype,\nthe key; host byte order.  The "
            "file is created with mode 0600 (it holds the\nkey), and read "
            "back and imported before this reports success.\n\n"
            "  --enctype E       enctype number or name (see 'gk5 "
            "enctypes'); rc4 and\n"
            "                    single DES are refused, DES3 needs "
            "-Ddes3=true\n"
            "  --key HEX         the session key (or acceptor subkey), hex; "
            "its length must\n"
            "                    be the enctype's key length\n"
            "  --key-file FILE   the key from FILE ('-': stdin): raw bytes "
            "of exactly the\n"
            "                    key's length, or hex digits\n"
            "  --initiator       we initiated the context (flag 0x1; the "
            "default)\n"
            "  --acceptor        we accepted it\n"
            "  --subkey          the key is the acceptor's subkey (flag 0x4; "
            "RFC 4121\n"
            "                    enctypes only): tokens carry "
            "AcceptorSubkey\n"
            "  --send-seq N      our first sequence number (default 0; "
            "RFC 1964 numbers\n"
            "                    are 32 bits)\n"
            "  --endtime T       seconds since the epoch, +SECONDS from now, "
            "or 0 for no\n"
            "                    expiry (the default)\n"
            "  --out FILE        the file to write; an existing one is "
            "refused\n"
            "  --force           replace an existing FILE (atomically)\n"
            "\n"
            "RFC 4121 enctypes get the CFX flag (0x2) set; DES3 speaks "
            "RFC 1964.\n"
            "Exit status: 0 written; 1 refused enctype, wrong key length "
            "or I/O failure;\n2 bad usage.\n");
}

/* --endtime: seconds since the epoch, +SECONDS from now, or 0. */
static int parse_endtime(const char *cmd, const char *arg, uint32_t *out)
{
    static const char range[] =
        "(seconds since the epoch, +SECONDS from now, or 0 for none)";
    uint32_t v;

    if (arg[0] == '+') {
        time_t now = time(NULL);

        if (cli_parse_u32(arg + 1, &v) != 0) {
            return cli_bad_number(cmd, "--endtime", arg, range);
        }
        if (now < 0 || (uint64_t)now + v > UINT32_MAX) {
            cli_error("%s: --endtime: '%s' is after 2106, past what a "
                      "gssd buffer's 32-bit endtime holds",
                      cmd, arg);
            return CLI_EXIT_USAGE;
        }
        *out = (uint32_t)now + v;
        return CLI_EXIT_OK;
    }
    if (cli_parse_u32(arg, &v) != 0) {
        return cli_bad_number(cmd, "--endtime", arg, range);
    }
    *out = v;
    return CLI_EXIT_OK;
}

static const struct option new_options[] = {
    {"enctype", required_argument, NULL, OPT_ENCTYPE},
    {"key", required_argument, NULL, OPT_KEY},
    {"key-file", required_argument, NULL, OPT_KEY_FILE},
    {"initiator", no_argument, NULL, OPT_INITIATOR},
    {"acceptor", no_argument, NULL, OPT_ACCEPTOR},
    {"subkey", no_argument, NULL, OPT_SUBKEY},
    {"send-seq", required_argument, NULL, OPT_SEND_SEQ},
    {"endtime", required_argument, NULL, OPT_ENDTIME},
    {"out", required_argument, NULL, OPT_OUT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* "CMD: BOTH: give one of them" and the hint; returns CLI_EXIT_USAGE. */
static int one_of(const char *cmd, const char *both)
{
    cli_error("%s: %s: give one of them", cmd, both);
    return cli_try_help(cmd);
}

/* The options ctx new cannot do without: CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int new_check(const char *cmd, const struct ctx_args *a)
{
    if (a->enctype == NULL) {
        return cli_required(cmd, "--enctype");
    }
    if (a->key_hex == NULL && a->key_file == NULL) {
        return cli_required(cmd, "--key HEX or --key-file FILE");
    }
    if (a->key_hex != NULL && a->key_file != NULL) {
        return one_of(cmd, "--key and --key-file");
    }
    if (a->initiator && a->acceptor) {
        return one_of(cmd, "--initiator and --acceptor");
    }
    if (a->out == NULL) {
        return cli_required(cmd, "--out FILE");
    }
    return CLI_EXIT_OK;
}

/* The key from --key or --key-file, checked against the enctype's key
 * length: CLI_EXIT_OK, CLI_EXIT_USAGE (bad hex) or CLI_EXIT_FAIL. */
static int new_key(const struct ctx_args *a, int32_t et, uint8_t **key,
                   size_t *key_len)
{
    const char *cmd = "ctx new";
    gk5_enctype_desc d;
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    char *text = NULL;
    int ret = CLI_EXIT_FAIL;

    *key = NULL;
    *key_len = 0;
    if (gk5_enctype_describe(et, &d) != GK5_OK) {
        cli_error("%s: --enctype: cannot describe enctype %d", cmd, (int)et);
        return CLI_EXIT_FAIL;
    }
    if (a->key_hex != NULL) {
        if (cli_hex_decode(a->key_hex, key, key_len) != 0) {
            cli_error("%s: --key: not valid hex", cmd);
            return CLI_EXIT_USAGE;
        }
        if (cli_check_key_length(cmd, "--key", et, *key_len) != 0) {
            goto cleanup;
        }
        return CLI_EXIT_OK;
    }

    if (strcmp(a->key_file, "-") == 0) {
        if (cli_read_all(stdin, &raw, &raw_len) != 0) {
            goto cleanup;
        }
    } else if (cli_read_file(a->key_file, &raw, &raw_len) != 0) {
        goto cleanup;
    }
    if (raw_len == d.key_bytes) {
        /* The raw key.  Its hex is always twice as long, so the two
         * readings never compete. */
        *key = raw;
        *key_len = raw_len;
        raw = NULL;
        return CLI_EXIT_OK;
    }
    text = malloc(raw_len + 1);
    if (text == NULL) {
        cli_error("%s: out of memory", cmd);
        goto cleanup;
    }
    memcpy(text, raw, raw_len);
    text[raw_len] = '\0';
    if (memchr(raw, '\0', raw_len) != NULL ||
        cli_hex_decode(text, key, key_len) != 0) {
        cli_error("%s: --key-file: %s needs a %zu-byte key (raw, or %zu hex "
                  "digits); '%s' holds %zu bytes that are neither",
                  cmd, d.name, d.key_bytes, 2 * d.key_bytes, a->key_file,
                  raw_len);
        goto cleanup;
    }
    if (cli_check_key_length(cmd, "--key-file", et, *key_len) != 0) {
        goto cleanup;
    }
    ret = CLI_EXIT_OK;

cleanup:
    if (ret != CLI_EXIT_OK) {
        cli_free_secret(*key, *key_len);
        *key = NULL;
        *key_len = 0;
    }
    cli_free_secret(raw, raw_len);
    cli_free_secret(text, raw_len + 1);
    return ret;
}

static void describe_endtime(uint32_t endtime, char *buf, size_t len)
{
    time_t t = (time_t)endtime;
    struct tm tm;
    char when[64];

    if (endtime == 0) {
        snprintf(buf, len, "none (0)");
        return;
    }
    if (gmtime_r(&t, &tm) == NULL ||
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0) {
        snprintf(when, sizeof(when), "?");
    }
    snprintf(buf, len, "%s (%u)%s", when, (unsigned)endtime,
             time(NULL) >= t ? ", expired" : "");
}

static int run_new(const char *cmd, const struct ctx_args *a,
                   struct ctx_file *file)
{
    gk5_enctype_desc row;
    uint32_t protocol = 0;
    bool rfc1964;
    uint8_t *key = NULL;
    size_t key_len = 0;
    uint8_t *buf = NULL;
    size_t len = 0;
    gk5_ctx *ctx = NULL;
    uint32_t flags;
    uint32_t et32;
    uint32_t major;
    uint32_t minor = 0;
    int32_t et = 0;
    char endtime[128];
    int ret;

    (void)file; /* ctx new writes a file; it reads none */
    ret = usable_enctype(cmd, a->enctype, &et);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    if (gk5_enctype_describe(et, &row) != GK5_OK ||
        gk5_enctype_protocol(et, &protocol) != GK5_OK) {
        cli_error("%s: --enctype: unknown enctype %d", cmd, (int)et);
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    /* The gssd flags say which token family; an RFC 1964 context has no
     * subkey flag and 32-bit numbers (import_gssd.c check_protocol). */
    rfc1964 = protocol == 0;
    if (rfc1964 && a->subkey) {
        cli_error("%s: --subkey: %s (%d) speaks RFC 1964, which has no "
                  "acceptor subkey",
                  cmd, row.name, (int)et);
        ret = CLI_EXIT_USAGE;
        goto cleanup;
    }
    if (rfc1964 && a->send_seq >= SEQ32_LIMIT) {
        cli_error("%s: --send-seq: %s (%d) speaks RFC 1964, whose sequence "
                  "numbers are 32 bits: '%s' is too large",
                  cmd, row.name, (int)et, a->send_seq_arg);
        ret = CLI_EXIT_USAGE;
        goto cleanup;
    }
    ret = new_key(a, et, &key, &key_len);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }

    flags = a->acceptor ? 0 : GK5_GSSD_FLAG_INITIATOR;
    if (!rfc1964) {
        flags |= GK5_GSSD_FLAG_CFX;
    }
    if (a->subkey) {
        flags |= GK5_GSSD_FLAG_ACCEPTOR_SUBKEY;
    }
    len = GSSD_OFF_KEY + key_len;
    buf = malloc(len);
    if (buf == NULL) {
        cli_error("%s: out of memory", cmd);
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    /* Host byte order, as rpc.gssd writes it: memcpy of the values. */
    et32 = (uint32_t)et;
    memcpy(buf + GSSD_OFF_FLAGS, &flags, 4);
    memcpy(buf + GSSD_OFF_ENDTIME, &a->endtime, 4);
    memcpy(buf + GSSD_OFF_SEND_SEQ, &a->send_seq, 8);
    memcpy(buf + GSSD_OFF_ENCTYPE, &et32, 4);
    memcpy(buf + GSSD_OFF_KEY, key, key_len);

    major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
    if (GK5_ERROR(major) != 0) {
        ret = cli_gss_fail(cmd, "the buffer does not import", major, minor);
        goto cleanup;
    }
    ret = write_checked(cmd, a->out, buf, len, CLI_CTX_GSSD, a->force);
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    describe_endtime(a->endtime, endtime, sizeof(endtime));
    printf("%s: gssd buffer, %zu bytes: %s (%d), %s%s, send seq %llu, "
           "endtime %s\n",
           a->out, len, row.name, (int)et,
           a->acceptor ? "acceptor" : "initiator",
           a->subkey ? ", acceptor subkey" : "",
           (unsigned long long)a->send_seq, endtime);
    ret = flush_output(cmd);

cleanup:
    gk5_ctx_free(ctx);
    cli_free_secret(buf, len);
    cli_free_secret(key, key_len);
    return ret;
}

/* ---- gk5 ctx show ---- */

static const char show_synopsis[] =
    "Usage: gk5 ctx show FILE [--format gssd|gk5] [--show-key]\n";

static void show_usage(FILE *f)
{
    fputs(show_synopsis, f);
    fprintf(f, "\n"
               "Print a context file's fields: its format (an rpc.gssd "
               "buffer or gk5's\nexport, told apart by the export's magic "
               "\"gk5C\"), enctype, role, flags,\nsend sequence number, "
               "receive window and endtime.  The file is imported\nas "
               "'gk5 wrap' would import it, so a file that shows is one "
               "that works.\n\n"
               "  --format F        gssd or gk5: do not detect\n"
               "  --show-key        print the key too (gssd: the session "
               "key or acceptor\n"
               "                    subkey; gk5's export: the derived keys "
               "it holds)\n"
               "\nExit status: 0 shown; 1 the file does not import; 2 bad "
               "usage.\n");
}

/* The export's slots, in its order. */
static const char *const slot_names[EXPORT_SLOTS] = {
    "send seal",
    "send sign",
    "receive seal",
    "receive sign",
};

static void show_hex_field(const char *label, const uint8_t *p, size_t n)
{
    /* The column of the other fields, or one space after a longer label. */
    printf("%-16s ", label);
    cli_hex_print(stdout, p, n);
}

/* The keys as the file holds them: CLI_EXIT_OK, or CLI_EXIT_FAIL with
 * the message printed. */
static int show_keys(const char *cmd, enum cli_ctx_format format,
                     const uint8_t *buf, size_t len)
{
    struct export_slot slots[EXPORT_SLOTS];

    if (format == CLI_CTX_GSSD) {
        show_hex_field("key", buf + GSSD_OFF_KEY, len - GSSD_OFF_KEY);
        return CLI_EXIT_OK;
    }
    if (export_slots(cmd, buf, len, slots) != CLI_EXIT_OK) {
        return CLI_EXIT_FAIL;
    }
    printf("%-17s%s\n", "keys",
           "derived (gk5's export does not keep the session key)");
    for (size_t slot = 0; slot < EXPORT_SLOTS; slot++) {
        const struct export_slot *sk = &slots[slot];
        char label[64];

        if (sk->ke_len == 0 && sk->ki_len == 0 && sk->kc_len == 0) {
            continue; /* RFC 1964 contexts fill the first slot only */
        }
        if (sk->ke_len != 0) {
            snprintf(label, sizeof(label), "  %s Ke%s", slot_names[slot],
                     sk->raw ? "*" : "");
            show_hex_field(label, sk->ke, sk->ke_len);
        }
        if (sk->ki_len != 0) {
            snprintf(label, sizeof(label), "  %s Ki", slot_names[slot]);
            show_hex_field(label, sk->ki, sk->ki_len);
        }
        if (sk->kc_len != 0) {
            snprintf(label, sizeof(label), "  %s Kc", slot_names[slot]);
            show_hex_field(label, sk->kc, sk->kc_len);
        }
        if (sk->raw) {
            printf("%-17s%s\n", "",
                   "(* the session key itself: RFC 1964 seals with it)");
        }
    }
    return CLI_EXIT_OK;
}

static const struct option show_options[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"show-key", no_argument, NULL, OPT_SHOW_KEY},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static int run_show(const char *cmd, const struct ctx_args *a,
                    struct ctx_file *file)
{
    gk5_ctx_info info;
    gk5_ctx_window window;
    char endtime[128];
    int ret;

    ret = inquire(cmd, file->ctx, &info, &window);
    if (ret != CLI_EXIT_OK) {
        return ret;
    }
    describe_endtime(info.endtime, endtime, sizeof(endtime));

    printf("%-17s%s\n", "file", a->path);
    if (file->used == CLI_CTX_GSSD) {
        printf("%-17s%s, %zu bytes\n", "format",
               "gssd (the rpc.gssd buffer for the kernel)", file->len);
    } else {
        printf("%-17s%s, %zu bytes\n", "format",
               "gk5 (gk5's export, version 2)", file->len);
    }
    printf("%-17s%d %s\n", "enctype", (int)info.enctype, info.enctype_name);
    printf("%-17s%s\n", "role", info.initiator ? "initiator" : "acceptor");
    printf("%-17s%s\n", "tokens",
           info.cfx ? "RFC 4121 (CFX)" : "RFC 1964 (DES3)");
    printf("%-17s%s\n", "acceptor subkey", info.acceptor_subkey ? "yes" : "no");
    printf("%-17s%s%s%s%s\n", "detection",
           (info.flags & GK5_CTX_REPLAY) != 0 ? "replay" : "",
           (info.flags & GK5_CTX_REPLAY) != 0 &&
                   (info.flags & GK5_CTX_SEQUENCE) != 0
               ? ", "
               : "",
           (info.flags & GK5_CTX_SEQUENCE) != 0 ? "sequence" : "",
           info.flags == 0 ? "none" : "");
    printf("%-17s%llu\n", "send seq", (unsigned long long)info.send_seq);
    if (!window.started) {
        printf("%-17s%s\n", "receive window",
               "not started (the first authenticated token starts it)");
    } else {
        printf("%-17snext %llu, bitmap %016llx (bit i: next - 1 - i "
               "received)\n",
               "receive window", (unsigned long long)window.next,
               (unsigned long long)window.bitmap);
    }
    printf("%-17s%s\n", "endtime", endtime);
    if (a->show_key) {
        ret = show_keys(cmd, file->used, file->buf, file->len);
        if (ret != CLI_EXIT_OK) {
            return ret;
        }
    } else {
        printf("%-17s%s\n", "key", "not shown (--show-key prints it)");
    }
    return flush_output(cmd);
}

/* ---- gk5 ctx convert ---- */

static const char convert_synopsis[] =
    "Usage: gk5 ctx convert FILE --to export|gssd --out FILE2 [--format "
    "gssd|gk5]\n"
    "                       [--force]\n";

static void convert_usage(FILE *f)
{
    fputs(convert_synopsis, f);
    fprintf(f, "\n"
               "Write the context in FILE to FILE2 in another format (mode "
               "0600; FILE2 is\nread back and imported before this reports "
               "success).\n\n"
               "  --to export       gk5's export (also 'gk5'): every field, "
               "the receive window\n"
               "                    included.  Any context file converts to "
               "it.\n"
               "  --to gssd         an rpc.gssd buffer, which carries the "
               "session key and no\n"
               "                    receive window: from a gssd buffer, or "
               "from a DES3 export\n"
               "                    whose window has recorded nothing.  An "
               "RFC 4121 export\n"
               "                    keeps only the keys derived from the "
               "session key.\n"
               "  --out FILE2       the file to write; an existing one is "
               "refused\n"
               "  --format F        FILE's format, gssd or gk5: do not detect\n"
               "  --force           replace an existing FILE2 (atomically)\n"
               "\nExit status: 0 written; 1 FILE does not import or cannot "
               "be converted;\n2 bad usage.\n");
}

/* A gssd buffer for a context imported from gk5's export, when it can say
 * the same thing: CLI_EXIT_OK with *out set, or CLI_EXIT_FAIL and why. */
static int export_to_gssd(const char *cmd, const char *path,
                          const struct ctx_file *file, uint8_t **out,
                          size_t *out_len)
{
    struct export_slot slots[EXPORT_SLOTS];
    const struct export_slot *sk = &slots[0]; /* send seal */
    gk5_ctx_info info;
    gk5_ctx_window window;
    uint32_t flags;
    uint32_t et32;
    uint8_t *buf;

    *out = NULL;
    *out_len = 0;
    if (inquire(cmd, file->ctx, &info, &window) != CLI_EXIT_OK ||
        export_slots(cmd, file->buf, file->len, slots) != CLI_EXIT_OK) {
        return CLI_EXIT_FAIL;
    }
    /* RFC 4121 contexts keep only Ke, Ki and Kc (export.c): the session
     * key is wiped once they are derived, and no KDF runs backwards. */
    if (info.cfx || !sk->raw) {
        cli_error("%s: --to gssd: '%s' is gk5's export, which keeps only the "
                  "keys derived from the session key (Ke, Ki, Kc), not the "
                  "session key a gssd buffer carries.  Keep the gssd buffer "
                  "the context came from",
                  cmd, path);
        return CLI_EXIT_FAIL;
    }
    /* RFC 1964 (DES3) seals with the session key itself, so the key is
     * there; what a gssd buffer cannot hold is the receive window. */
    if (window.started) {
        cli_error("%s: --to gssd: '%s' has a receive window that has "
                  "recorded tokens, and a gssd buffer has no field for "
                  "one: the converted context would take those tokens "
                  "again",
                  cmd, path);
        return CLI_EXIT_FAIL;
    }
    if (info.send_seq >= SEQ32_LIMIT) {
        cli_error("%s: --to gssd: '%s' has sent every RFC 1964 sequence "
                  "number, and a gssd buffer cannot say so",
                  cmd, path);
        return CLI_EXIT_FAIL;
    }
    buf = malloc(GSSD_OFF_KEY + sk->ke_len);
    if (buf == NULL) {
        cli_error("%s: out of memory", cmd);
        return CLI_EXIT_FAIL;
    }
    flags = info.initiator ? GK5_GSSD_FLAG_INITIATOR : 0;
    et32 = (uint32_t)info.enctype;
    memcpy(buf + GSSD_OFF_FLAGS, &flags, 4);
    memcpy(buf + GSSD_OFF_ENDTIME, &info.endtime, 4);
    memcpy(buf + GSSD_OFF_SEND_SEQ, &info.send_seq, 8);
    memcpy(buf + GSSD_OFF_ENCTYPE, &et32, 4);
    memcpy(buf + GSSD_OFF_KEY, sk->ke, sk->ke_len);
    *out = buf;
    *out_len = GSSD_OFF_KEY + sk->ke_len;
    return CLI_EXIT_OK;
}

static const struct option convert_options[] = {
    {"to", required_argument, NULL, OPT_TO},
    {"out", required_argument, NULL, OPT_OUT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* The options ctx convert cannot do without: CLI_EXIT_OK or
 * CLI_EXIT_USAGE. */
static int convert_check(const char *cmd, const struct ctx_args *a)
{
    if (a->to == CLI_CTX_AUTO) {
        return cli_required(cmd, "--to export|gssd");
    }
    if (a->out == NULL) {
        return cli_required(cmd, "--out FILE2");
    }
    return CLI_EXIT_OK;
}

static int run_convert(const char *cmd, const struct ctx_args *a,
                       struct ctx_file *file)
{
    gk5_buffer out = {0, NULL};
    uint8_t *gssd = NULL;
    size_t gssd_len = 0;
    uint32_t major;
    uint32_t minor = 0;
    int ret;

    if (a->to == CLI_CTX_GSSD) {
        if (file->used == CLI_CTX_EXPORT) {
            ret = export_to_gssd(cmd, a->path, file, &gssd, &gssd_len);
            if (ret != CLI_EXIT_OK) {
                goto cleanup;
            }
            ret = write_checked(cmd, a->out, gssd, gssd_len, CLI_CTX_GSSD,
                                a->force);
        } else {
            /* gssd to gssd: the bytes as they are, now known to import. */
            ret = write_checked(cmd, a->out, file->buf, file->len, CLI_CTX_GSSD,
                                a->force);
        }
    } else {
        major = gk5_ctx_export(&minor, file->ctx, &out);
        if (GK5_ERROR(major) != 0) {
            ret = cli_gss_fail(cmd, "cannot export the context", major, minor);
            goto cleanup;
        }
        ret = write_checked(cmd, a->out, out.value, out.length, CLI_CTX_EXPORT,
                            a->force);
    }
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    printf("%s: %s, %zu bytes (from %s: %s)\n", a->out,
           a->to == CLI_CTX_GSSD ? "gssd buffer" : "gk5 export",
           a->to == CLI_CTX_EXPORT ? out.length
           : gssd != NULL          ? gssd_len
                                   : file->len,
           a->path, file->used == CLI_CTX_GSSD ? "gssd buffer" : "gk5 export");
    ret = flush_output(cmd);

cleanup:
    zap(out.value, out.length);
    gk5_buffer_release(&out);
    cli_free_secret(gssd, gssd_len);
    return ret;
}

/* ---- gk5 ctx ---- */

/* The subcommands, in the order the usage lists them: the index of each
 * in the command table (gk5_cli_ctx) and in subcommands[]. */
enum ctx_op { CTX_NEW, CTX_SHOW, CTX_CONVERT, CTX_OP_COUNT };

/* Positional rows: every field but the first has a type of its own, and
 * every name in a row says its command, so a misplaced one shows. */
static const struct subcommand {
    const char *synopsis;
    void (*usage)(FILE *f);
    const struct option *options;
    /* The options it cannot do without (NULL: none), checked before FILE
     * is read. */
    int (*check)(const char *cmd, const struct ctx_args *a);
    bool want_file; /* a FILE operand, loaded for run */
    int (*run)(const char *cmd, const struct ctx_args *a,
               struct ctx_file *file);
} subcommands[CTX_OP_COUNT] = {
    [CTX_NEW] = {new_synopsis, new_usage, new_options, new_check, false,
                 run_new},
    [CTX_SHOW] = {show_synopsis, show_usage, show_options, NULL, true,
                  run_show},
    [CTX_CONVERT] = {convert_synopsis, convert_usage, convert_options,
                     convert_check, true, run_convert},
};

/* op is an enum ctx_op; argv[0] is the subcommand's name. */
static int run_subcommand(int op, int argc, char **argv)
{
    const struct subcommand *sub = &subcommands[op];
    struct ctx_args a;
    struct ctx_file file = {NULL, 0, CLI_CTX_AUTO, NULL};
    char cmd[32]; /* "ctx new": the command in messages */
    int done = 0;
    int ret;

    snprintf(cmd, sizeof(cmd), "ctx %s", argv[0]);
    ret = parse_args(&a, cmd, sub->options, sub->usage, sub->want_file, argc,
                     argv, &done);
    if (ret != CLI_EXIT_OK || done) {
        return ret;
    }
    if (sub->check != NULL) {
        ret = sub->check(cmd, &a);
        if (ret != CLI_EXIT_OK) {
            return ret;
        }
    }
    if (sub->want_file) {
        ret = load(cmd, a.path, a.format, &file);
    }
    if (ret == CLI_EXIT_OK) {
        ret = sub->run(cmd, &a, &file);
    }
    free_file(&file);
    return ret;
}

static void ctx_usage(FILE *f)
{
    static const char usage_word[] = "Usage:";

    for (size_t i = 0; i < GK5_ARRAY_SIZE(subcommands); i++) {
        /* Each synopsis starts with "Usage:"; the later ones line up
         * under the first. */
        fprintf(f, "%s%s", i == 0 ? usage_word : "      ",
                subcommands[i].synopsis + strlen(usage_word));
    }
    fprintf(f, "\n"
               "Context files: make an rpc.gssd buffer from a key (new), "
               "print a file's\nfields (show), convert a gssd buffer to "
               "gk5's export (convert).  'gk5 wrap',\n'unwrap', 'mic' and "
               "'verify' take either with --ctx.\n"
               "'gk5 ctx COMMAND --help' describes one.\n");
}

int gk5_cli_ctx(int argc, char **argv)
{
    static const struct cli_command table[CTX_OP_COUNT] = {
        [CTX_NEW] = {.name = "new", .run_op = run_subcommand, .op = CTX_NEW},
        [CTX_SHOW] = {.name = "show", .run_op = run_subcommand, .op = CTX_SHOW},
        [CTX_CONVERT] = {.name = "convert",
                         .run_op = run_subcommand,
                         .op = CTX_CONVERT},
    };
    static const struct cli_subcommands ctx = {
        .cmd = "ctx",
        .table = table,
        .count = CTX_OP_COUNT,
        .usage = ctx_usage,
        .noun = "command",
        .flags = CLI_SUB_HELP_WORD | CLI_SUB_LIST | CLI_SUB_DASH | CLI_SUB_TRY,
    };

    return cli_dispatch(&ctx, argc, argv);
}
