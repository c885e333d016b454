/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* Shared pieces of the gk5 command-line tool. */
#ifndef GK5_CLI_H
#define GK5_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gk5/gk5.h>

/* Exit statuses: 0 success, 1 the operation failed (crypto/GSS failure),
 * 2 bad usage (unknown option, missing argument, bad hex). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Subcommands: each gets argv[0] = its own name.  Each parses its own
 * options with getopt_long (opterr 0, optstring starting ':', errors through
 * cli_option_error) and prints its own usage: the loops and the usage
 * functions look alike from command to command, but every arm stores a
 * different option with its own checks and words, which the CLI tests and
 * the man page hold fixed, so they are not made into one table. */
int gk5_cli_enctypes(int argc, char **argv);
int gk5_cli_crypto(int argc, char **argv); /* cli_crypto.c */
int gk5_cli_wrap(int argc, char **argv);   /* cli_mech.c */
int gk5_cli_unwrap(int argc, char **argv);
int gk5_cli_mic(int argc, char **argv);
int gk5_cli_verify(int argc, char **argv);
int gk5_cli_inspect(int argc, char **argv); /* cli_inspect.c */
int gk5_cli_ctx(int argc, char **argv);     /* cli_ctx.c */
int gk5_cli_accept(int argc, char **argv);  /* cli_accept.c */
int gk5_cli_init(int argc, char **argv);    /* cli_init.c */
int gk5_cli_kinit(int argc, char **argv);   /* cli_tickets.c */
int gk5_cli_klist(int argc, char **argv);
int gk5_cli_kvno(int argc, char **argv);
int gk5_cli_kdestroy(int argc, char **argv);
#ifdef GK5_HAVE_MIT
int gk5_cli_demo(int argc, char **argv);    /* demo.c */
int gk5_cli_interop(int argc, char **argv); /* cli_interop.c */
#endif
int gk5_cli_realm(int argc, char **argv); /* cli_realm.c */
#ifdef GK5_HAVE_BENCH
int gk5_cli_bench(int argc, char **argv); /* cli_bench.c: runs gk5-bench */
/* cli_bench.c: exec gk5-bench with argv[1..argc) (and with lead, e.g.
 * "nfs4", before all of argv: gk5-bench nfs4 bench ...); cmd names the
 * command in the words.  Returns only on failure: CLI_EXIT_FAIL. */
int cli_run_bench(const char *cmd, const char *lead, int argc, char **argv);
#endif
#ifdef GK5_HAVE_RPC
int gk5_cli_rpc(int argc, char **argv);  /* cli_rpc.c */
int gk5_cli_nfs4(int argc, char **argv); /* cli_nfs4.c */
#endif

/* cli_util.c */
/* Parse hex ("" or "-" = empty) into a malloc'd buffer; 0 or -1. */
int cli_hex_decode(const char *hex, uint8_t **out, size_t *out_len);
void cli_hex_print(FILE *f, const uint8_t *p, size_t n); /* + newline */
/* Read a whole stream/file; 0 or -1 (message printed).  what names the
 * stream in messages. */
int cli_read_stream(FILE *f, const char *what, uint8_t **out, size_t *out_len);
int cli_read_all(FILE *f, uint8_t **out, size_t *out_len);
int cli_read_file(const char *path, uint8_t **out, size_t *out_len);
/* Replace path atomically: a private (0600) temporary file beside it,
 * fsync, rename.  0 or -1 (message printed). */
int cli_write_file(const char *path, const uint8_t *p, size_t n);
/* A new private (0600) file: O_CREAT | O_EXCL, or with force replaced as
 * cli_write_file does.  0 or -1 (message, naming cmd, printed). */
int cli_create_file(const char *cmd, const char *path, const uint8_t *p,
                    size_t n, bool force);
/* Open path for reading and hold flock(LOCK_EX) on the inode it names
 * (see the comment inside on why that inode and not a sidecar file);
 * fclose() releases it.  NULL with the message printed. */
FILE *cli_open_locked(const char *path);
/* "error: ..." on stderr, prefixed with the program name. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warning: ..." on stderr, prefixed with the program name. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Seconds on CLOCK_MONOTONIC: the clock of the commands' timings. */
double cli_now_s(void);
/* Report what getopt_long returned for a bad option of command cmd ("wrap",
 * "crypto encrypt"): '?' unknown option, ':' missing argument (optstring
 * starts with ':' and opterr is 0).  Returns CLI_EXIT_USAGE. */
int cli_option_error(const char *cmd, int c, char **argv);
/* Whether a command's first word asks for its help: --help, -h or help. */
bool cli_is_help(const char *word);
/* Parse a decimal number 0..UINT32_MAX (0..UINT64_MAX); 0 or -1. */
int cli_parse_u32(const char *s, uint32_t *out);
int cli_parse_u64(const char *s, uint64_t *out);
/* BYTES with an optional k, m or g suffix (KiB, MiB, GiB), at most max;
 * 0 or -1. */
int cli_parse_size(const char *s, size_t max, size_t *out);
/* "CMD: OPT: 'S' is not a number[ RANGE]"; returns CLI_EXIT_USAGE. */
int cli_bad_number(const char *cmd, const char *opt, const char *s,
                   const char *range);
/* 0 if len is the enctype's key length (or the enctype is refused: the
 * operation says why); else -1 and "CMD: OPT: NAME needs a 32-byte key (64
 * hex digits), got 16 bytes". */
int cli_check_key_length(const char *cmd, const char *opt, int32_t enctype,
                         size_t len);
/* Words for a major status and its minor code, each said once (gk5's
 * words for GSS_S_CONTEXT_EXPIRED and GK5_ERR_CTX_EXPIRED are the same).
 * Returns buf. */
const char *cli_gss_words(uint32_t major, uint32_t minor, char *buf,
                          size_t len);
/* Wipe (zap) then free a buffer that held secrets; NULL is fine. */
void cli_free_secret(void *p, size_t n);
/* A GSS failure: "CMD: WHAT: MAJOR_NAME: words" ("CMD: MAJOR_NAME: words"
 * when what is ""); returns CLI_EXIT_FAIL. */
int cli_gss_fail(const char *cmd, const char *what, uint32_t major,
                 uint32_t minor);
/* "Try 'gk5 CMD --help'." on stderr; returns CLI_EXIT_USAGE. */
int cli_try_help(const char *cmd);
/* "CMD: WHAT is required" and the hint above; returns CLI_EXIT_USAGE. */
int cli_required(const char *cmd, const char *what);

/* One command in a table: gk5's own (main.c) or a command's subcommands
 * (gk5 rpc ping).  It runs as run(argc, argv) or, where subcommands share
 * one runner (gk5 crypto's operations, gk5 nfs4's one option parser), as
 * run_op(op, argc, argv); either gets argv[0] = name.  summary is its line
 * in the table's listing (NULL where the usage text is written out
 * whole). */
struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int (*run_op)(int op, int argc, char **argv);
    int op;
};

/* The command named name in table[0..count), or NULL. */
const struct cli_command *cli_command_find(const struct cli_command *table,
                                           size_t count, const char *name);

/* How a command with subcommands answers a first word that names none.
 * The words differ from command to command and the CLI tests and scripts
 * read them, so each says which it keeps. */
enum {
    /* "help" asks for the usage too (--help and -h always do). */
    CLI_SUB_HELP_WORD = 1u << 0,
    /* The message names the subcommands: "unknown command 'x' (a, b)". */
    CLI_SUB_LIST = 1u << 1,
    /* An option where the subcommand belongs: "expected a, b or c before
     * '-x'" (or "expected an operation ..." without CLI_SUB_LIST). */
    CLI_SUB_DASH = 1u << 2,
    /* No (or an empty) first word: "a, b or c is required" instead of the
     * usage on stderr. */
    CLI_SUB_REQUIRED = 1u << 3,
    /* Add "Try 'gk5 CMD --help'." after an unknown word. */
    CLI_SUB_TRY = 1u << 4,
};

/* A command with subcommands: gk5 ctx, crypto, rpc, nfs4, realm. */
struct cli_subcommands {
    const char *cmd; /* "rpc": messages and the hint */
    const struct cli_command *table;
    size_t count;
    void (*usage)(FILE *f); /* on stdout for help, on stderr with no word */
    const char *noun;       /* "command" or "operation" */
    unsigned flags;         /* CLI_SUB_* */
};

/* Run the subcommand argv[1] names with argv[0] = its name and optind 0:
 * its exit status.  Help prints the usage on stdout (CLI_EXIT_OK); a
 * missing or unknown word gets its message and CLI_EXIT_USAGE. */
int cli_dispatch(const struct cli_subcommands *sub, int argc, char **argv);

/* cli_ctx.c: context files.  gk5's export starts with the magic "gk5C"
 * (src/mech/export.c); an rpc.gssd buffer starts with its flags word,
 * whose known bits are the low three, so the two cannot be confused. */
enum cli_ctx_format { CLI_CTX_AUTO, CLI_CTX_GSSD, CLI_CTX_EXPORT };
/* "gssd" or "gk5" (the --format words). */
const char *cli_ctx_format_name(enum cli_ctx_format format);
enum cli_ctx_format cli_ctx_detect(const uint8_t *buf, size_t len);
/* Import buf in format (CLI_CTX_AUTO: detected); *used (may be NULL) gets
 * the format tried.  The import's major status, *minor set. */
uint32_t cli_ctx_import(uint32_t *minor, const uint8_t *buf, size_t len,
                        enum cli_ctx_format format, enum cli_ctx_format *used,
                        gk5_ctx **ctx);
/* The --format words: "gssd", "gk5" and, with export_word, "export"
 * (the ctx subcommands' --to word).  0, or -1 with the message, naming
 * cmd, printed. */
int cli_ctx_parse_format(const char *cmd, const char *arg, bool export_word,
                         enum cli_ctx_format *out);

/* cli_inspect.c: a token's header decoded without keys.  The decoder reads
 * only p[0..n) and never fails to return (it is a fuzz target). */
enum cli_token_kind {
    CLI_TOKEN_UNKNOWN = 0,
    CLI_TOKEN_RFC4121_MIC,    /* 04 04 */
    CLI_TOKEN_RFC4121_WRAP,   /* 05 04 */
    CLI_TOKEN_RFC1964_MIC,    /* framed, 01 01 */
    CLI_TOKEN_RFC1964_WRAP,   /* framed, 02 01 */
    CLI_TOKEN_RFC1964_DELETE, /* framed, 01 02 (RFC 1964 1.2.3) */
};

struct cli_token_info {
    enum cli_token_kind kind;
    size_t length;   /* the whole input */
    uint16_t tok_id; /* as the bytes read, big-endian */
    bool have_tok_id;
    /* RFC 2743 3.1 framing (RFC 1964 tokens) */
    size_t framing_len;   /* 0x60, DER length and OID: bytes before TOK_ID */
    size_t der_len;       /* the DER length's value */
    size_t der_octets;    /* how many octets encode it */
    char oid[80];         /* dotted; "" if not reached */
    const char *oid_name; /* "Kerberos V5" etc., NULL if unknown */
    /* RFC 4121 */
    uint8_t flags;
    uint16_t ec, rrc;
    uint64_t snd_seq;
    bool have_seq; /* SND_SEQ was read (RFC 4121) */
    /* RFC 1964 */
    uint16_t sgn_alg, seal_alg; /* little-endian values, as RFC 1964 */
    bool have_algs;
    /* lengths of the parts (0 when absent or not reached) */
    size_t header_len; /* RFC 4121: 16; RFC 1964: TOK_ID .. SND_SEQ */
    size_t cksum_len;  /* checksum / SGN_CKSUM (when it can be told) */
    size_t conf_len;   /* RFC 1964 Wrap confounder */
    size_t body_len;   /* RFC 4121 Wrap payload after the header;
                          RFC 1964 Wrap data + pad */
    size_t data_len;   /* message length, when it can be told */
    int pad;           /* RFC 1964 integrity-only pad byte, or -1 */
    char problem[200]; /* "" when well-formed */
};

/* Returns 0 if the token is well-formed, -1 if not (info->problem says
 * why); info holds what could be decoded either way. */
int cli_inspect_decode(const uint8_t *p, size_t n, struct cli_token_info *info);
/* Prints the decoded fields, one per line. */
void cli_inspect_print(FILE *f, const struct cli_token_info *info);

#ifdef GK5_HAVE_RPC
#include <gk5/rpcsec.h>

/* cli_rpc_util.c: the pieces of `gk5 rpc` that `gk5 demo`, `gk5 nfs4`
 * and gk5-bench reuse. */

#ifdef GK5_HAVE_TIRPC
#include <rpc/rpc.h>

/* xdrproc_t is variadic in libtirpc: cast XDR routines through a plain
 * function pointer type. */
#define CLI_XDR_PROC(fn) ((xdrproc_t)(void (*)(void))(fn))

/* An opaque<max> for XDR: encoding sends val[0..len); decoding fills val
 * (max bytes of room) or, if val is NULL, allocates it. */
struct cli_rpc_opaque {
    char *val;
    u_int len;
    u_int max;
};
bool_t cli_rpc_xdr_opaque(XDR *xdrs, struct cli_rpc_opaque *o);
#endif

/* "HOST:PORT" or "[V6ADDR]:PORT" into host and port strings; 0 or -1. */
int cli_rpc_split_hostport(const char *arg, char *host, size_t host_len,
                           char *port, size_t port_len);
/* --establish native|mit for cmd: 0 with *out set, or -1 with the error
 * printed (a word that is neither, or mit in a gk5 built without MIT
 * krb5, whose libgk5_rpc establishes natively only). */
int cli_rpc_parse_establish(const char *cmd, const char *arg,
                            gk5_rpc_establish *out);

/* A TCP socket bound to exactly the numeric "ADDRESS:PORT" and listening;
 * bound receives the address with the port picked for port 0.  0, or -1
 * with words in err. */
int cli_rpc_listen(const char *hostport, int *fd, char *bound, size_t bound_len,
                   char *err, size_t err_len);
/* gk5's own RPC client connected to "HOST:PORT" for prog and vers with
 * opts (RPCSEC_GSS for target, service svc, when opts->flavor says so;
 * sec_name names the service in the words).  0, or -1 with words in err:
 * "cannot establish RPCSEC_GSS krb5p with nfs@host: ..." or "cannot
 * connect to HOST:PORT: ...". */
int cli_rpc_native_connect(const char *hostport, uint32_t prog, uint32_t vers,
                           const char *target, gk5_rpc_service svc,
                           const char *sec_name,
                           const gk5_rpc_clnt_options *opts, gk5_rpc_clnt **out,
                           char *err, size_t err_len);
#ifdef GK5_HAVE_TIRPC
/* A libtirpc stream CLIENT connected to "HOST:PORT" (closes its socket on
 * clnt_destroy).  0, or -1 with words in err. */
int cli_rpc_connect(const char *hostport, uint32_t prog, uint32_t vers,
                    CLIENT **out, char *err, size_t err_len);
/* cli_nfs4.c: put data as path on an NFSv4 server, cat it back and
 * compare, then remove it (gk5 demo).  0, or -1 with the error printed. */
struct cli_nfs4_transfer {
    const char *hostport, *path, *sec, *target;
    const char *client_keytab, *client_principal;
    gk5_rpc_establish establish; /* who makes the RPCSEC_GSS context */
    const uint8_t *data;
    size_t len;
    unsigned rounds;     /* puts, then cats, of the same file (0: 1) */
    double put_s, cat_s; /* seconds taken by all of them */
};
int cli_nfs4_put_cat(struct cli_nfs4_transfer *t);
/* cli_nfs4_storm.c: gk5 nfs4 storm with parsed options (support/nfs4's
 * client.h).  A CLI exit status. */
struct nfs4_args;
struct storm_opts;
int cli_nfs4_storm(struct nfs4_args *a, const struct storm_opts *o);
/* Words for the failed clnt_call on clnt: "what: RPC error; detail" and,
 * when auth is gk5's (else pass NULL), gk5's reason.  Thread-safe. */
void cli_rpc_call_error(CLIENT *clnt, AUTH *auth, const char *what, char *buf,
                        size_t len);
#endif /* GK5_HAVE_TIRPC */
#endif

#endif /* GK5_CLI_H */
