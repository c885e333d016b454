/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The floor of src/crypto: the hand-written primitives, each an
 * optimisation of something OpenSSL also does, and the switch that turns
 * them off.  Nothing here knows keys of an enctype, IOVs or prepared keys,
 * and no file in this folder calls a function outside it (OpenSSL and libc
 * aside): the engines above (cts.c, mac.c, onepass.c, kdf.c) call down
 * into it, never the other way.  A -Dfastpath=false build leaves the
 * folder out; this header then declares nothing and every GK5_HAVE_* below
 * stays undefined.
 *
 *   switch.c        the on/off switch and the CPU's features (the bottom)
 *   aesni.c         AES on AES-NI: key schedules, CBC
 *   aesni_sha1.c    SHA-1 on SHA-NI fused with AES-CBC (RFC 3962 sealing)
 *   aesni_sha256.c  SHA-256 on SHA-NI fused with AES-CBC (RFC 8009)
 *   camellia.c      Camellia-CBC and its CMAC on OpenSSL's low-level API
 *   rfc2104_hmac.c  HMAC from precomputed pad states
 */
#ifndef GK5_CRYPTO_FAST_H
#define GK5_CRYPTO_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/opensslconf.h>

#include <gk5/gk5.h>
#include "../../common/util.h"

#ifdef GK5_FASTPATH

/* ---- The switch (switch.c) ----
 * On by default; the test and bench seam gk5i_onepass_set_enabled(false)
 * turns every path here off for the whole process, so that the EVP path
 * (their oracle) runs instead.  Read per message. */
GK5_HIDDEN bool gk5i_fastpaths_on(void);
GK5_HIDDEN void gk5i_fastpaths_set(bool on);

/* ---- AES-NI and SHA-NI (switch.c, aesni.c, aesni_sha1.c, aesni_sha256.c)
 * On x86-64 with AES-NI and SHA-NI (checked at run time) AES keys are
 * scheduled by hand and CBC runs on the instructions directly: no
 * OpenSSL cipher context per key (about 1 KiB each, and most of a context
 * import's cost), and sealing runs AES-CBC and the SHA-1 (SHA-256) of the
 * HMAC over the same 64-byte pieces in one loop.  The OpenSSL path stays
 * beside it as the fallback and as the tests' oracle. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GK5_HAVE_ONEPASS 1
struct gk5i_aes_key; /* AES round keys, for one direction */
/* The CPU has the instructions and the switch is on. */
GK5_HIDDEN bool gk5i_onepass_available(void);
/* The CPU has the instructions (CPUID, asked once). */
GK5_HIDDEN bool gk5i_onepass_cpu(void);
GK5_HIDDEN GK5_WUR uint32_t gk5i_aes_key_new(const uint8_t *key, size_t key_len,
                                             bool decrypt,
                                             struct gk5i_aes_key **out);
GK5_HIDDEN void gk5i_aes_key_free(struct gk5i_aes_key *k);
/* CBC in place over blocks x 16 bytes at p, from chain, which ends as the
 * last ciphertext block; the key's direction decides. */
GK5_HIDDEN void gk5i_aes_cbc(const struct gk5i_aes_key *k, uint8_t chain[16],
                             uint8_t *p, size_t blocks);
/* The four one-pass loops below take the same parameters on purpose (one
 * calling convention for onepass.c); they are four functions, not one with
 * a mode, so that each is its own straight-line loop. */
/* In place over blocks x 64 bytes at p: CBC-encrypt from chain (which ends
 * as the last ciphertext block) while the SHA-1 chaining value h (h0..h4)
 * absorbs the plaintext.  k: an encryption key. */
GK5_HIDDEN void gk5i_onepass_cbc_sha1(const struct gk5i_aes_key *k,
                                      uint8_t chain[16], uint32_t h[5],
                                      uint8_t *p, size_t blocks);
/* The same for unsealing: CBC-decrypt in place while h absorbs the
 * plaintext.  k: a decryption key. */
GK5_HIDDEN void gk5i_onepass_cbc_dec_sha1(const struct gk5i_aes_key *k,
                                          uint8_t chain[16], uint32_t h[5],
                                          uint8_t *p, size_t blocks);
/* RFC 8009 (encrypt-then-MAC) for HMAC-SHA-256: CBC-encrypt in place over
 * blocks x 64 bytes while the SHA-256 chaining value h (h0..h7) absorbs
 * the ciphertext.  k: an encryption key. */
GK5_HIDDEN void gk5i_onepass_cbc_sha256(const struct gk5i_aes_key *k,
                                        uint8_t chain[16], uint32_t h[8],
                                        uint8_t *p, size_t blocks);
/* And unsealing: h absorbs the ciphertext while CBC decrypts it in place.
 * k: a decryption key. */
GK5_HIDDEN void gk5i_onepass_cbc_dec_sha256(const struct gk5i_aes_key *k,
                                            uint8_t chain[16], uint32_t h[8],
                                            uint8_t *p, size_t blocks);
#endif

/* ---- RFC 2104 HMAC from precomputed pad states (rfc2104_hmac.c) ----
 * OpenSSL 3.0's EVP_MAC HMAC allocates twice per restart; this one does not
 * allocate per message.  It needs OpenSSL's low-level (deprecated) digest
 * API; without it HMAC runs through EVP_MAC like CMAC. */
#ifndef OPENSSL_NO_DEPRECATED_3_0
#define GK5_HAVE_LOWLEVEL_HMAC 1
struct gk5i_hmac; /* one key; one thread at a time */
/* digest: "SHA1", "SHA256" or "SHA384"; key at most one digest block. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_hmac_new(const char *digest,
                                          const uint8_t *key, size_t key_len,
                                          struct gk5i_hmac **out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_hmac_dup(const struct gk5i_hmac *src,
                                          struct gk5i_hmac **out);
GK5_HIDDEN void gk5i_hmac_free(struct gk5i_hmac *h);
GK5_HIDDEN size_t gk5i_hmac_length(const struct gk5i_hmac *h);
GK5_HIDDEN void gk5i_hmac_init(struct gk5i_hmac *h);
GK5_HIDDEN GK5_WUR uint32_t gk5i_hmac_update(struct gk5i_hmac *h, const void *p,
                                             size_t n);
/* out: gk5i_hmac_length() bytes; *out_len set on success. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_hmac_final(struct gk5i_hmac *h, uint8_t *out,
                                            size_t *out_len);
/* For one-pass sealing: the running SHA-1 chaining value of an HMAC-SHA1
 * whose input so far is whole 64-byte blocks (false for other digests or
 * a partial block), and putting it back after `bytes` (whole blocks) more
 * were absorbed outside. */
GK5_HIDDEN bool gk5i_hmac_sha1_can(const struct gk5i_hmac *h);
GK5_HIDDEN bool gk5i_hmac_sha1_take(struct gk5i_hmac *h, uint32_t st[5]);
GK5_HIDDEN void gk5i_hmac_sha1_give(struct gk5i_hmac *h, const uint32_t st[5],
                                    size_t bytes);
/* The same for HMAC-SHA-256 (h0..h7). */
GK5_HIDDEN bool gk5i_hmac_sha256_can(const struct gk5i_hmac *h);
GK5_HIDDEN bool gk5i_hmac_sha256_take(struct gk5i_hmac *h, uint32_t st[8]);
GK5_HIDDEN void gk5i_hmac_sha256_give(struct gk5i_hmac *h, const uint32_t st[8],
                                      size_t bytes);
#endif

/* ---- Camellia on OpenSSL's low-level API (camellia.c) ----
 * One key schedule for both directions instead of an EVP context for
 * each; used while the switch is on. */
#if !defined(OPENSSL_NO_DEPRECATED_3_0) && !defined(OPENSSL_NO_CAMELLIA)
#define GK5_HAVE_LOWLEVEL_CAMELLIA 1
struct gk5i_camellia_key;
GK5_HIDDEN GK5_WUR uint32_t gk5i_camellia_key_new(
    const uint8_t *key, size_t key_len, struct gk5i_camellia_key **out);
GK5_HIDDEN void gk5i_camellia_key_free(struct gk5i_camellia_key *k);
/* CBC in place over len bytes (whole blocks) from chain, which ends as the
 * last ciphertext block. */
GK5_HIDDEN void gk5i_camellia_cbc(const struct gk5i_camellia_key *k,
                                  uint8_t chain[16], uint8_t *p, size_t len,
                                  bool encrypt);
/* CMAC (SP 800-38B) on the low-level Camellia; one thread at a time. */
struct gk5i_camellia_cmac;
GK5_HIDDEN GK5_WUR uint32_t gk5i_camellia_cmac_new(
    const uint8_t *key, size_t key_len, struct gk5i_camellia_cmac **out);
GK5_HIDDEN void gk5i_camellia_cmac_free(struct gk5i_camellia_cmac *m);
GK5_HIDDEN void gk5i_camellia_cmac_init(struct gk5i_camellia_cmac *m);
GK5_HIDDEN void gk5i_camellia_cmac_update(struct gk5i_camellia_cmac *m,
                                          const uint8_t *p, size_t n);
/* out: 16 bytes; the running state is wiped. */
GK5_HIDDEN void gk5i_camellia_cmac_final(struct gk5i_camellia_cmac *m,
                                         uint8_t out[16]);
#endif

#endif /* GK5_FASTPATH */

#endif /* GK5_CRYPTO_FAST_H */
