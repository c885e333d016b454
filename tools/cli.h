/* Shared pieces of the gk5 command-line tool. */
#ifndef GK5_CLI_H
#define GK5_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses: 0 success, 1 the operation failed (crypto/GSS failure),
 * 2 bad usage (unknown option, missing argument, bad hex). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Subcommands: each gets argv[0] = its own name. */
int gk5_cli_enctypes(int argc, char **argv);
int gk5_cli_crypto(int argc, char **argv);   /* cli_crypto.c */
int gk5_cli_wrap(int argc, char **argv);     /* cli_mech.c */
int gk5_cli_unwrap(int argc, char **argv);
int gk5_cli_mic(int argc, char **argv);
int gk5_cli_verify(int argc, char **argv);
int gk5_cli_inspect(int argc, char **argv);  /* cli_inspect.c */
#ifdef GK5_HAVE_MIT
int gk5_cli_demo(int argc, char **argv);     /* demo.c */
#endif

/* cli_util.c */
/* Parse hex ("" or "-" = empty) into a malloc'd buffer; 0 or -1. */
int cli_hex_decode(const char *hex, uint8_t **out, size_t *out_len);
void cli_hex_print(FILE *f, const uint8_t *p, size_t n); /* + newline */
/* Read a whole stream/file; 0 or -1 (message printed). */
int cli_read_all(FILE *f, uint8_t **out, size_t *out_len);
int cli_read_file(const char *path, uint8_t **out, size_t *out_len);
int cli_write_file(const char *path, const uint8_t *p, size_t n);
/* "error: ..." on stderr, prefixed with the program name. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* GK5_CLI_H */
