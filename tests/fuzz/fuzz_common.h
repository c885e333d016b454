/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Shared pieces of gk5's libFuzzer targets and of the corpus generator.
 *
 * Every target works on fixed contexts derived from seed keys
 * (fuzz_seed_key), so that any input reproduces the same way in any process.
 * The first input bytes choose the configuration: byte 0 the enctype (an
 * index into a fixed list, stable across build options), byte 1 the role,
 * acceptor subkey and the target's mode bits.
 */
#ifndef GK5_FUZZ_COMMON_H
#define GK5_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

/* libFuzzer entry points. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Enctypes the fuzz targets cover, in a fixed order (input byte 0 indexes
 * it modulo the count).  fuzz_init() checks that every enctype the table
 * says is supported in this build is here, so a new row cannot go
 * unfuzzed. */
#define FUZZ_N_ENCTYPES 7
extern const int32_t fuzz_enctypes[FUZZ_N_ENCTYPES];

/* Byte 1 of per-message inputs. */
#define FUZZ_B1_ACCEPTOR 0x01u /* the receiving context is the acceptor */
#define FUZZ_B1_SUBKEY 0x02u   /* keyed with the acceptor subkey */
#define FUZZ_B1_GENERATE 0x04u /* make a valid token, then mutate it */
#define FUZZ_B1_CONF 0x08u     /* generate: sealed (else integrity only) */

/* One context configuration. */
struct fuzz_cfg {
    int32_t enctype;
    bool initiator;       /* the receiving side's role */
    bool acceptor_subkey; /* RFC 4121 only; ignored for RFC 1964 DES3 */
};

/* GK5_TRACE for this input: on (into /dev/null) for inputs of odd length,
 * off for even ones, so that the trace lines' formatting of hostile
 * headers is fuzzed too and both sides of every trace point are seen;
 * FUZZ_TRACE=0 or 1 in the environment fixes it.  fuzz_take_cfg calls it;
 * targets that do not use that call it first. */
void fuzz_trace_for(size_t size);
/* Reads the configuration from the first two bytes; false if the input is
 * too short or the enctype is not built here (the input is then skipped). */
bool fuzz_take_cfg(const uint8_t **data, size_t *size, struct fuzz_cfg *cfg,
                   uint8_t *b1);
/* The byte 0 that selects enctype (for the corpus generator). */
uint8_t fuzz_enctype_byte(int32_t enctype);

/* What gk5's enctype table says of an enctype (never its number): DES3
 * keys (odd parity, no ciphertext stealing) and RFC 1964 tokens; false for
 * an enctype the table does not know. */
bool fuzz_des3(int32_t enctype);
bool fuzz_rfc1964(int32_t enctype);

/* Deterministic key material: which = 0 is the context key, 1 another key
 * (MIT's initiator subkey when an acceptor subkey is in use).  DES3 keys
 * get odd parity.  Returns the key length, 0 if the enctype is unknown. */
size_t fuzz_seed_key(int32_t enctype, unsigned which, uint8_t *key, size_t cap);
/* Writes the rpc.gssd buffer for cfg (the receiving side, or its peer with
 * peer = true); returns its length, 0 on error. */
size_t fuzz_gssd_buffer(const struct fuzz_cfg *cfg, bool peer, uint8_t *buf,
                        size_t cap);
/* The same with another send sequence number. */
size_t fuzz_gssd_buffer_seq(const struct fuzz_cfg *cfg, bool peer,
                            uint64_t send_seq, uint8_t *buf, size_t cap);

/* Builds the pristine contexts (once per process) and checks the enctype
 * list against the table.  Aborts on failure. */
void fuzz_init(void);
/* A context in its pristine state for this input (cfg's receiving side, or
 * its peer), so that nothing one input does (receive window, send counter,
 * options) reaches the next.  Give it back with fuzz_ctx_done().  Aborts on
 * failure.
 *
 * Importing the pristine export costs some 300 us under ASan, ten times a
 * wrap and unwrap, and most inputs (refused tokens) change nothing.  So
 * fuzz_ctx_done() keeps a context for the next input only when its export
 * is still byte for byte the pristine export -- which covers everything the
 * context carries between messages: flags, options, send counter, receive
 * window, subkeys -- and frees it otherwise; fuzz_ctx_fresh() then imports
 * the pristine export again.  With FUZZ_CTX_NO_REUSE set in the
 * environment every input gets a new import. */
gk5_ctx *fuzz_ctx_fresh(const struct fuzz_cfg *cfg, bool peer);
void fuzz_ctx_done(const struct fuzz_cfg *cfg, bool peer, gk5_ctx *ctx);

/* A bounded reader over the fuzz input: reads past the end give zeros. */
struct fuzz_in {
    const uint8_t *p;
    size_t n;
};
uint8_t fuzz_u8(struct fuzz_in *in);
uint16_t fuzz_u16(struct fuzz_in *in);
uint32_t fuzz_u32(struct fuzz_in *in);
/* Up to max bytes (fewer if the input ends); returns the count. */
size_t fuzz_bytes(struct fuzz_in *in, const uint8_t **p, size_t max);

/* Mutations for generated tokens: up to FUZZ_MAX_FLIPS (position, xor)
 * pairs read from the input, applied at pos mod len.  Returns true if some
 * byte actually changed. */
#define FUZZ_MAX_FLIPS 8
struct fuzz_flips {
    unsigned n;
    uint16_t pos[FUZZ_MAX_FLIPS];
    uint8_t xor_[FUZZ_MAX_FLIPS];
};
void fuzz_take_flips(struct fuzz_in *in, struct fuzz_flips *f);
bool fuzz_apply_flips(const struct fuzz_flips *f, uint8_t *p, size_t len);

/* RFC 4121 4.2.5: give an RFC 4121 Wrap token another RRC: undo the
 * rotation its header states, rotate the body (after the 16-byte header)
 * right by rrc and store rrc in the header.  Tokens of 16 bytes or less are
 * left alone. */
void fuzz_set_rrc(uint8_t *tok, size_t len, uint16_t rrc);
/* Copies of input bytes in exact-size heap blocks (so that ASan sees any
 * read past the end); p = NULL gives n zero bytes.  Never NULL (aborts),
 * even for n = 0. */
uint8_t *fuzz_dup(const void *p, size_t n);

/* A failing allocator under OpenSSL's (CRYPTO_set_mem_functions), where
 * gk5i_zalloc and OpenSSL's own allocations go: installed once, from
 * LLVMFuzzerInitialize (the process stops, saying so, when OpenSSL has
 * allocated already); armed
 * with the number of allocations to let through before the one that
 * fails (only that one), disarmed with -1.  fuzz_alloc_fail_hit says
 * whether the failure happened since it was last armed (disarming keeps
 * the answer). */
void fuzz_alloc_fail_install(void);
void fuzz_alloc_fail_arm(long point);
/* The same, but that allocation and every later one fail until disarmed. */
void fuzz_alloc_fail_arm_all(long point);
bool fuzz_alloc_fail_hit(void);

/* Windows PACs (MS-PAC 2.3-2.8) for the PAC target and its seeds. */
#define FUZZ_PAC_ENCTYPE 18    /* the ticket key's: aes256-cts-hmac-sha1-96 */
#define FUZZ_PAC_KEY_USAGE 17u /* the server signature's (MS-PAC 2.8.1) */
/* The ticket a raw PAC is verified for: its authtime and client (two
 * components; "alice/x/y@z" in a PAC's client info). */
#define FUZZ_PAC_AUTHTIME 1700000000
#define FUZZ_PAC_COMP0 "alice"
#define FUZZ_PAC_COMP1 "x/y@z"
struct fuzz_pac_buf {
    uint32_t type;
    const uint8_t *p; /* NULL: len zero bytes */
    size_t len;
};
/* A PAC (version 0) of these n buffers, each at the next 8-aligned offset
 * after the buffer headers and zero padded, as MIT's KDC lays one out;
 * its length (0 when cap is too small).  offs[i] gets buffer i's offset. */
size_t fuzz_pac_build(const struct fuzz_pac_buf *bufs, unsigned n, uint8_t *out,
                      size_t cap, size_t *offs);
/* A client info buffer (MS-PAC 2.7): the FILETIME, then the name of n
 * UTF-16 units; its length (0 when cap is too small). */
size_t fuzz_pac_client_info(int64_t filetime, const uint16_t *name, size_t n,
                            uint8_t *out, size_t cap);
/* The server signature of pac (its signature bytes zero when called) with
 * the enctype-18 seed key: the checksum into the sig_len bytes at
 * pac + sig_at, cut or zero padded.  Aborts when gk5 cannot make it. */
void fuzz_pac_sign(uint8_t *pac, size_t len, size_t sig_at, size_t sig_len);

/* Stops the process with a message: the property the fuzzer broke. */
__attribute__((noreturn)) void fuzz_fail(const char *what, uint32_t major,
                                         uint32_t minor);

#endif /* GK5_FUZZ_COMMON_H */
