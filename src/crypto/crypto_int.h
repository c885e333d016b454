/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The one narrow header between src/crypto and the rest of gk5.
 *
 * src/mech never touches OpenSSL: it asks this layer for prepared keys
 * (gk5_ukey: one base key + one key usage, with keyed OpenSSL contexts made
 * once) and runs encrypt/decrypt/checksum over crypto IOVs with them.
 * A gk5_ukey is used by one thread at a time; gk5i_ukey_dup() makes another
 * for another thread without re-deriving anything.  A ukey keys its
 * OpenSSL (or AES-NI) state on first use, so making one is cheap.
 */
#ifndef GK5_CRYPTO_INT_H
#define GK5_CRYPTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gk5/crypto.h>
#include "../common/util.h"

struct gk5_profile; /* per-family operations, private to src/crypto */

/* One row of THE enctype table (src/crypto/enctypes.c). */
/* What code outside enctypes.c asks of a row instead of testing enctype
 * numbers: the family (cipher and MAC construction) ... */
enum gk5i_family {
    GK5I_FAMILY_NONE = 0, /* rejected rows: no algorithms */
    GK5I_FAMILY_AES_SHA1, /* RFC 3962, AES with HMAC-SHA1-96, MtE */
    GK5I_FAMILY_AES_SHA2, /* RFC 8009, AES with HMAC-SHA2, EtM */
    GK5I_FAMILY_CAMELLIA, /* RFC 6803, Camellia with CMAC, MtE */
    GK5I_FAMILY_DES3,     /* RFC 3961 6.3, DES3 with HMAC-SHA1 */
};

/* ... and the hand-written one-pass path its sealing may take (ukey.c,
 * on AES-NI and SHA-NI). */
enum gk5i_onepass {
    GK5I_ONEPASS_NONE = 0,
    GK5I_ONEPASS_MTE_SHA1,   /* AES-CBC and HMAC-SHA1 of the plaintext */
    GK5I_ONEPASS_ETM_SHA256, /* AES-CBC and HMAC-SHA-256 of the ciphertext */
};

struct gk5_enctype {
    int32_t num;
    int32_t alias_num; /* another number for the same key type, or 0
                          (rpc.gssd labels DES3 as 6, des3-cbc-raw) */
    const char *name;
    const char *const *aliases; /* other names, NULL-terminated, or NULL */
    enum gk5_enctype_state state;
    const char *reason;                /* rejected / not built: why (RFC) */
    const struct gk5_profile *profile; /* NULL unless supported */
    size_t key_bytes;    /* random-to-key output = protocol key length */
    size_t keygen_bytes; /* random-to-key input (DES3: 21) */
    size_t block_bytes;  /* cipher block size */
    size_t conf_bytes;   /* confounder length (= block size) */
    size_t mac_bytes;    /* h: truncated MAC length in ciphertext */
    size_t cksum_bytes;  /* the mandatory checksum's length */
    size_t prf_bytes;
    uint32_t s2k_default_iter; /* PBKDF2 iterations when params absent */
    int32_t cksumtype;
    const char *cksum_name;
    const char *cipher;     /* OpenSSL name, CBC ("AES-128-CBC") */
    const char *cts_cipher; /* OpenSSL name, CTS ("AES-128-CBC-CTS"), or NULL */
    const char *digest;     /* "SHA1", "SHA256", "SHA384"; NULL for CMAC */
    bool rfc1964;           /* GSS tokens are RFC 1964 (DES3), else RFC 4121 */
    enum gk5i_family family;
    enum gk5i_onepass onepass;
};

/* ---- algs.c: OpenSSL algorithms fetched once per process ----
 * name must live as long as the process (a literal or a table row's).
 * NULL when OpenSSL lacks it; *owned is true only when the cache is full
 * and the caller must free the object it got. */
typedef struct evp_cipher_st EVP_CIPHER;
typedef struct evp_mac_st EVP_MAC;
typedef struct evp_kdf_st EVP_KDF;
GK5_HIDDEN EVP_CIPHER *gk5i_cipher_get(const char *name, bool *owned);
GK5_HIDDEN EVP_MAC *gk5i_mac_get(const char *name, bool *owned);
GK5_HIDDEN EVP_KDF *gk5i_kdf_get(const char *name, bool *owned);

/* One-shot SHA-256 (FIPS 180-4) of public-format bytes: the digest that
 * closes gk5's own context export. */
#define GK5_SHA256_BYTES 32
struct gk5i_md5_seg {
    const void *p;
    size_t len;
};
GK5_HIDDEN GK5_WUR uint32_t gk5i_sha256(const void *in, size_t len,
                                        uint8_t out[GK5_SHA256_BYTES]);
/* One-shot MD5 (RFC 1321) over segments, for RFC 4121 4.1.1.2's channel
 * binding hash, which the protocol fixes (no security rests on MD5's
 * collision resistance there: both ends hash public bytes they already
 * agree on). */
#define GK5_MD5_BYTES 16
GK5_HIDDEN GK5_WUR uint32_t gk5i_md5(const struct gk5i_md5_seg *seg, size_t n,
                                     uint8_t out[GK5_MD5_BYTES]);

/* Memory for src/mech, which calls no OpenSSL function itself: OpenSSL's
 * allocator (so that OpenSSL's memory hooks see everything gk5 holds);
 * gk5i_clear_free wipes n bytes first. */
GK5_HIDDEN void *gk5i_zalloc(size_t n);
GK5_HIDDEN void gk5i_free(void *p);
GK5_HIDDEN void gk5i_clear_free(void *p, size_t n);

/* Constant-time comparison (CRYPTO_memcmp) for src/mech, which calls no
 * OpenSSL function itself. */
GK5_HIDDEN bool gk5i_equal_ct(const void *a, const void *b, size_t len);

/* Rows in preference order; gk5i_enctype_at(i) is NULL past the end. */
GK5_HIDDEN const struct gk5_enctype *gk5i_enctype_at(size_t i);
/* Table lookups (by num or alias_num).  gk5i_enctype_get() returns the row
 * whatever its state (NULL if unknown); gk5i_enctype_usable() returns 0 and the
 * row only when supported here, else the refusal code (enctype in the high
 * bits). */
GK5_HIDDEN const struct gk5_enctype *gk5i_enctype_get(int32_t num);
/* The row's own number for num (16 for DES3's alias 6); num itself when the
 * table does not know it. */
GK5_HIDDEN int32_t gk5i_enctype_canonical(int32_t num);
GK5_HIDDEN GK5_WUR uint32_t gk5i_enctype_usable(int32_t num,
                                                const struct gk5_enctype **et);
/* Formats the words for an enctype refusal code into buf. */
GK5_HIDDEN void gk5i_enctype_error_words(uint32_t err, char *buf, size_t len);

/* ---- Subkeys ----
 * Raw derived keys for one base key and usage: Ke (encryption), Ki
 * (integrity of ciphertext), Kc (checksum).  Kept by a context so it can be
 * exported; wiped with gk5i_subkeys_wipe(). */
#define GK5_MAX_KEY_BYTES 32
struct gk5i_subkeys {
    uint8_t ke[GK5_MAX_KEY_BYTES], ki[GK5_MAX_KEY_BYTES], kc[GK5_MAX_KEY_BYTES];
    size_t ke_len, ki_len, kc_len;
    bool raw; /* ke is the base key itself, no derivation (RFC 1964 DES3) */
};
GK5_HIDDEN GK5_WUR uint32_t gk5i_derive_subkeys(const struct gk5_enctype *et,
                                                const uint8_t *key,
                                                size_t key_len, uint32_t usage,
                                                struct gk5i_subkeys *out);
/* The same for n usages at once (out[i] for usages[i]), keying the base
 * key's primitive once: what a context import runs.  Byte-identical to n
 * calls of gk5i_derive_subkeys (the tests hold them to it). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_derive_subkeys_many(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint32_t *usages, size_t n, struct gk5i_subkeys *out);
/* RFC 1964 DES3: ke = the session key as is (for sealing and the sequence
 * number), kc = DK(key, usage | 0x99) for the HMAC-SHA1-DES3-KD checksum. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_derive_subkeys_raw(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    uint32_t usage, struct gk5i_subkeys *out);
GK5_HIDDEN void gk5i_subkeys_wipe(struct gk5i_subkeys *sk);
/* The lengths (and raw flag) gk5i_derive_subkeys (raw: _raw) gives for the
 * enctype, without deriving anything; the key bytes are zero. */
GK5_HIDDEN void gk5i_subkeys_shape(const struct gk5_enctype *et, bool raw,
                                   struct gk5i_subkeys *shape);

/* ---- Prepared keys ---- */
typedef struct gk5_ukey gk5_ukey;
GK5_HIDDEN GK5_WUR uint32_t gk5i_ukey_new(const struct gk5_enctype *et,
                                          const struct gk5i_subkeys *sk,
                                          gk5_ukey **out);
/* The same over subkeys the caller keeps alive and unchanged for as long as
 * the ukey lives (a context's), without a copy. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_ukey_new_borrowed(const struct gk5_enctype *et,
                       const struct gk5i_subkeys *sk, gk5_ukey **out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_ukey_dup(const gk5_ukey *src, gk5_ukey **out);
GK5_HIDDEN void gk5i_ukey_free(gk5_ukey *uk);
GK5_HIDDEN const struct gk5_enctype *gk5i_ukey_enctype(const gk5_ukey *uk);

/* RFC 3961 encryption over IOVs, in place (see GK5_CRYPTO_IOV_* in
 * crypto.h).  confounder: NULL = random (RAND_bytes); tests pass a fixed
 * one through this seam (never the public ABI). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encrypt_iov(gk5_ukey *uk,
                                             const uint8_t *confounder,
                                             gk5_crypto_iov *iov, size_t n);
/* Decrypts in place and verifies; on GK5_ERR_INTEGRITY every DATA/PADDING
 * segment is wiped before returning, so no unauthenticated plaintext is
 * left behind.  Segments may be any lengths (no alignment needed). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_decrypt_iov(gk5_ukey *uk, gk5_crypto_iov *iov,
                                             size_t n);
/* Keyed checksum (Kc) over DATA and SIGN_ONLY segments into/against the
 * CHECKSUM segment (whose length may be <= cksum_bytes: truncated, as RFC
 * 4121 never truncates but RFC 1964's MIT form uses 20 of 20). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_checksum_iov(gk5_ukey *uk, gk5_crypto_iov *iov,
                                              size_t n);
GK5_HIDDEN GK5_WUR uint32_t gk5i_verify_checksum_iov(gk5_ukey *uk,
                                                     const gk5_crypto_iov *iov,
                                                     size_t n);
/* RFC 1964 DES3 raw encryption with Ke (no confounder, no MAC): CBC over the
 * DATA segments (total a multiple of the block size) with the given IV
 * (NULL = zero IV). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_raw_encrypt_iov(gk5_ukey *uk,
                                                 const uint8_t *iv,
                                                 gk5_crypto_iov *iov, size_t n);
GK5_HIDDEN GK5_WUR uint32_t gk5i_raw_decrypt_iov(gk5_ukey *uk,
                                                 const uint8_t *iv,
                                                 gk5_crypto_iov *iov, size_t n);
/* A confounder: a copy of `given` (test seam), or len random bytes when
 * given is NULL.  (Also declared in internal.h; exposed here because RFC 1964
 * Wrap tokens carry a confounder that src/mech makes itself.) */
GK5_HIDDEN GK5_WUR uint32_t gk5i_fill_confounder(uint8_t *dst, size_t len,
                                                 const uint8_t *given);
/* len random bytes (at most 512) from the calling thread's pool of
 * RAND_bytes output (confounder.c): what a confounder costs, and no system
 * call but one per refill (OpenSSL's DRBG checks the process ID on every
 * call).  Each byte is wiped from the pool as it is taken; a forked child
 * never gets its parent's.  given: a copy of it instead (the test seam).
 * (Also declared in internal.h; exposed here for the acceptor's subkeys and
 * sequence numbers.) */
GK5_HIDDEN GK5_WUR uint32_t gk5i_pooled_confounder(uint8_t *dst, size_t len,
                                                   const uint8_t *given);
/* The zero padding RFC 3961 encryption adds after len plaintext bytes
 * (DES3: up to a whole block; 0 for the CTS enctypes).  (Also declared in
 * internal.h; exposed here for the Kerberos messages src/krb5 encrypts.) */
GK5_HIDDEN size_t gk5i_padding_length(const struct gk5_enctype *et, size_t len);

/* Test and bench seam: turn the paths beside OpenSSL's EVP layer -- AES on
 * AES-NI with one-pass sealing, Camellia on OpenSSL's low-level API: the
 * floor in src/crypto/fast/ -- off or back on for the whole
 * process.  Returns whether this build and CPU have the AES-NI ones. */
GK5_HIDDEN bool gk5i_onepass_set_enabled(bool on);

/* Test seam: ukeys made while this is on run on OpenSSL's own primitives
 * alone -- the CTS ciphers ("AES-128-CBC-CTS", "CAMELLIA-256-CBC-CTS", ...
 * in CS3 mode; DES3 on "DES-EDE3-CBC") and EVP_MAC's HMAC and CMAC --
 * as every ukey does in a -Dfastpath=false build: the reference the
 * differential test holds the hand-written paths to.  A ukey keeps the
 * path it was made on (so does gk5i_ukey_dup's copy).  Returns whether
 * this build has the hand-written paths at all. */
GK5_HIDDEN bool gk5i_openssl_only_set(bool on);

/* Test seam for RFC 3962 Appendix B: raw CBC-CTS (CS3, the Kerberos
 * variant) with the enctype's cipher, no confounder or MAC.  iv: 16 bytes
 * (NULL = zero); next_iv (may be NULL) receives the cipher state RFC 3962
 * B lists as "Next IV". */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cts_raw(int32_t enctype, const uint8_t *key,
                                         size_t key_len, const uint8_t *iv,
                                         const uint8_t *in, size_t len,
                                         uint8_t *out, uint8_t *next_iv,
                                         bool encrypt);

/* RFC 3961 5.1 n-fold (by hand: OpenSSL has none) to 1..GK5_NFOLD_MAX
 * bytes (an empty input folds to zeros); false (out untouched) for other
 * output lengths. */
#define GK5_NFOLD_MAX 64
GK5_HIDDEN GK5_WUR bool gk5i_nfold(const uint8_t *in, size_t in_len,
                                   uint8_t *out, size_t out_len);
/* The same for a public constant -- a key usage and its kind byte (RFC
 * 3961 5.3), never a secret: key derivation folds the same few constants
 * over and over (an accepted context derives eighteen keys), so the
 * results of constants up to 8 bytes folded to at most a block are
 * remembered per thread. */
GK5_HIDDEN GK5_WUR bool gk5i_nfold_constant(const uint8_t *in, size_t in_len,
                                            uint8_t *out, size_t out_len);

#endif /* GK5_CRYPTO_INT_H */
