/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 crypto — the RFC 3961 framework on OpenSSL 3: string-to-key, key
 * derivation, encrypt/decrypt, keyed checksums and PRF for every enctype
 * gk5 supports (RFC 3962, RFC 8009, RFC 6803, and RFC 3961 DES3 when built
 * with -Ddes3=true).
 *
 * Every function returns 0 (GK5_OK) or a gk5 error code (see gk5.h); words
 * via gk5_strerror().  An enctype gk5 refuses yields GK5_ERR_ENCTYPE_REJECTED
 * / _NOT_BUILT / _UNKNOWN with the enctype number in the code, so that
 * gk5_strerror() names it and says why.  Outputs are written only on
 * success; on failure output buffers are wiped.
 */
#ifndef GK5_CRYPTO_H
#define GK5_CRYPTO_H

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The enctype table, read-only ---- */
enum gk5_enctype_state {
    GK5_ENCTYPE_SUPPORTED = 0,
    GK5_ENCTYPE_NOT_BUILT = 1, /* known, but compiled out (des3) */
    GK5_ENCTYPE_REJECTED = 2   /* refused by policy (rc4, single DES) */
};

typedef struct {
    int32_t enctype;
    const char *name; /* "aes256-cts-hmac-sha1-96" */
    enum gk5_enctype_state state;
    const char *reason; /* why not usable ("RFC 8429 ..."), NULL if usable */
    size_t key_bytes;   /* 0 for rejected rows */
    int32_t cksumtype;  /* mandatory checksum type, 0 for rejected rows */
    const char *cksum_name;
} gk5_enctype_desc;

/* Number of rows, and row i in preference order (strongest first; not
 * usable rows last).  Returns GK5_ERR_INVALID_ARGUMENT past the end. */
GK5_EXPORT size_t gk5_enctype_count(void);
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_row(size_t i, gk5_enctype_desc *out);
/* 0 if the enctype is usable here, else its refusal code. */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_check(int32_t enctype);
/* Describe enctype (any state).  GK5_ERR_ENCTYPE_UNKNOWN if not in table. */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_describe(int32_t enctype,
                                                 gk5_enctype_desc *out);
/* Name ("aes128-cts", "aes128-cts-hmac-sha1-96", "rc4-hmac", "23") to
 * number; rejected and not-built names resolve too. */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_from_name(const char *name,
                                                  int32_t *enctype);

/* ---- IOV segments for encrypt/decrypt/checksum ----
 * RFC 3961 ciphertext = HEADER (confounder; RFC 8009: the confounder that
 * starts the CTS input) | encrypted DATA (and PADDING for DES3) | TRAILER
 * (the MAC).  SIGN_ONLY segments are covered by the MAC but neither
 * encrypted nor part of the ciphertext.  For checksums, DATA and SIGN_ONLY
 * are both input and CHECKSUM receives/holds the checksum.  Segments are
 * processed in array order. */
#define GK5_CRYPTO_IOV_EMPTY 0u
#define GK5_CRYPTO_IOV_HEADER 1u
#define GK5_CRYPTO_IOV_DATA 2u
#define GK5_CRYPTO_IOV_SIGN_ONLY 3u
#define GK5_CRYPTO_IOV_PADDING 4u
#define GK5_CRYPTO_IOV_TRAILER 5u
#define GK5_CRYPTO_IOV_CHECKSUM 6u

typedef struct {
    uint32_t flags; /* GK5_CRYPTO_IOV_* */
    void *data;
    size_t length;
} gk5_crypto_iov;

/* Lengths: key (random-to-key output), HEADER, TRAILER, PADDING for a given
 * data length (nonzero only for DES3), checksum, PRF output. */
GK5_EXPORT GK5_WUR uint32_t gk5_c_key_length(int32_t enctype, size_t *len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_crypto_length(int32_t enctype,
                                                uint32_t iov_type,
                                                size_t data_len, size_t *len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt_length(int32_t enctype,
                                                 size_t plain_len,
                                                 size_t *cipher_len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum_length(int32_t enctype, size_t *len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_prf_length(int32_t enctype, size_t *len);

/* RFC 3961 3: string-to-key.  params: the enctype's s2kparams (AES and
 * Camellia: 4-byte big-endian iteration count; DES3: must be empty);
 * NULL/0 = the default (AES-SHA1: 4096; RFC 8009 and RFC 6803: 32768).
 * A count below the default is refused (GK5_ERR_S2K_WEAK), as MIT krb5
 * refuses it; a count of 0 or above 2^24 - 1 is GK5_ERR_BAD_S2K_PARAMS.
 * For RFC 8009 and RFC 6803 the salt is the caller's salt: gk5 prefixes the
 * enctype name and a zero byte (saltp) itself. */
GK5_EXPORT GK5_WUR uint32_t
gk5_c_string_to_key(int32_t enctype, const void *password, size_t password_len,
                    const void *salt, size_t salt_len, const void *params,
                    size_t params_len, void *key, size_t key_len);
/* The same with flags: GK5_S2K_ALLOW_WEAK accepts counts below the
 * default (the RFC test vectors use 1, 2 and 5); for tests only. */
#define GK5_S2K_ALLOW_WEAK 0x1u
GK5_EXPORT GK5_WUR uint32_t gk5_c_string_to_key_flags(
    int32_t enctype, const void *password, size_t password_len,
    const void *salt, size_t salt_len, const void *params, size_t params_len,
    uint32_t flags, void *key, size_t key_len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_random_to_key(int32_t enctype,
                                                const void *random,
                                                size_t random_len, void *key,
                                                size_t key_len);
/* The derived key DK(key, constant): RFC 3961 5.1 (n-fold + DR +
 * random-to-key), RFC 6803 KDF-FEEDBACK-CMAC, RFC 8009 KDF-HMAC-SHA2.
 * out_len must be gk5_c_derive_length()'s answer. */
GK5_EXPORT GK5_WUR uint32_t gk5_c_derive_length(int32_t enctype,
                                                const void *constant,
                                                size_t constant_len,
                                                size_t *len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_derive_key(int32_t enctype, const void *key,
                                             size_t key_len,
                                             const void *constant,
                                             size_t constant_len, void *out,
                                             size_t out_len);

/* Contiguous forms.  *out_len: in, the capacity of out; out, bytes written.
 * decrypt: GK5_ERR_INTEGRITY if the MAC fails (output wiped),
 * GK5_ERR_BAD_CIPHERTEXT_LENGTH if too short.  For DES3 the plaintext
 * keeps its padding (RFC 3961 has no length field). */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt(int32_t enctype, const void *key,
                                          size_t key_len, uint32_t usage,
                                          const void *in, size_t in_len,
                                          void *out, size_t *out_len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_decrypt(int32_t enctype, const void *key,
                                          size_t key_len, uint32_t usage,
                                          const void *in, size_t in_len,
                                          void *out, size_t *out_len);
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum(int32_t enctype, const void *key,
                                           size_t key_len, uint32_t usage,
                                           const void *in, size_t in_len,
                                           void *cksum, size_t *cksum_len);
/* GK5_ERR_INTEGRITY on mismatch (compared in constant time). */
GK5_EXPORT GK5_WUR uint32_t gk5_c_verify_checksum(
    int32_t enctype, const void *key, size_t key_len, uint32_t usage,
    const void *in, size_t in_len, const void *cksum, size_t cksum_len);
/* RFC 3961 3 pseudo-random (RFC 3962 4, RFC 8009 5, RFC 6803 6). */
GK5_EXPORT GK5_WUR uint32_t gk5_c_prf(int32_t enctype, const void *key,
                                      size_t key_len, const void *in,
                                      size_t in_len, void *out, size_t out_len);

/* IOV forms, in place.  HEADER and TRAILER must have exactly the lengths
 * gk5_c_crypto_length() gives; the confounder is random. */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt_iov(int32_t enctype, const void *key,
                                              size_t key_len, uint32_t usage,
                                              gk5_crypto_iov *iov,
                                              size_t iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_c_decrypt_iov(int32_t enctype, const void *key,
                                              size_t key_len, uint32_t usage,
                                              gk5_crypto_iov *iov,
                                              size_t iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum_iov(int32_t enctype, const void *key,
                                               size_t key_len, uint32_t usage,
                                               gk5_crypto_iov *iov,
                                               size_t iov_count);
GK5_EXPORT GK5_WUR uint32_t gk5_c_verify_checksum_iov(
    int32_t enctype, const void *key, size_t key_len, uint32_t usage,
    const gk5_crypto_iov *iov, size_t iov_count);

#ifdef __cplusplus
}
#endif
#endif /* GK5_CRYPTO_H */
