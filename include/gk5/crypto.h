/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/**
 * @file crypto.h
 * @brief gk5 crypto: the RFC 3961 framework on OpenSSL 3 (libgk5).
 *
 * String-to-key, key derivation, encrypt/decrypt, keyed checksums and PRF
 * for every enctype gk5 supports (RFC 3962, RFC 8009, RFC 6803, and RFC
 * 3961 DES3 when built with -Ddes3=true).
 *
 * Conventions (docs/design.md, "Public contracts"):
 *
 * - Every call returns 0 (GK5_OK) or a gk5 error code (enum gk5_err in
 *   gk5.h); gk5_strerror() gives the words.  The enctype is checked
 *   against gk5's table first: an enctype gk5 refuses yields
 *   GK5_ERR_ENCTYPE_REJECTED (rc4, single DES), _NOT_BUILT (des3 without
 *   -Ddes3=true) or _UNKNOWN, with the enctype number in the code, so that
 *   gk5_strerror() names it and says why.  Then a key of the wrong length
 *   is GK5_ERR_BAD_KEY_LENGTH, a NULL pointer or impossible length
 *   GK5_ERR_INVALID_ARGUMENT; GK5_ERR_NOMEM and GK5_ERR_CRYPTO_BACKEND
 *   (OpenSSL failed) may come from any call that computes.  The codes
 *   listed with each function are those beyond these.
 * - The caller owns every buffer: nothing here allocates memory the
 *   caller must free.  Outputs are written only on success; on failure
 *   key and plaintext outputs are wiped.
 * - Key usage numbers are RFC 3961's 32-bit numbers; any value is taken.
 * - Every call is thread-safe: no state is kept between calls.
 */
#ifndef GK5_CRYPTO_H
#define GK5_CRYPTO_H

#include <gk5/gk5.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The enctype table, read-only ---- */

/** What gk5 does with an enctype. */
enum gk5_enctype_state {
    GK5_ENCTYPE_SUPPORTED = 0, /**< usable */
    GK5_ENCTYPE_NOT_BUILT = 1, /**< known, but compiled out (des3) */
    GK5_ENCTYPE_REJECTED = 2   /**< refused by policy (rc4, single DES) */
};

/** One row of the enctype table.  Every string is static. */
typedef struct {
    int32_t enctype;              /**< the enctype number */
    const char *name;             /**< "aes256-cts-hmac-sha1-96" */
    enum gk5_enctype_state state; /**< usable or not, and why not */
    const char *reason; /**< why not usable ("RFC 8429 ..."); NULL if usable */
    size_t key_bytes;   /**< key length; 0 for rejected rows */
    int32_t cksumtype;  /**< mandatory checksum type; 0 for rejected rows */
    const char *cksum_name; /**< its name; NULL for rejected rows */
} gk5_enctype_desc;

/**
 * The number of rows in the enctype table (every state).
 *
 * @return The count; rows are numbered 0 to count - 1.
 */
GK5_EXPORT size_t gk5_enctype_count(void);

/**
 * Row i in preference order: strongest first, rows that are not usable
 * last.
 *
 * @param[in]  i    The row number.
 * @param[out] out  The row.
 * @return GK5_OK; GK5_ERR_INVALID_ARGUMENT if out is NULL or i is past the
 *         end.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_row(size_t i, gk5_enctype_desc *out);

/**
 * Is the enctype usable in this build?
 *
 * @param[in] enctype  The enctype number (DES3 also as 6, des3-cbc-raw).
 * @return GK5_OK if usable, else its refusal: GK5_ERR_ENCTYPE_REJECTED,
 *         _NOT_BUILT or _UNKNOWN with the enctype in the code.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_check(int32_t enctype);

/**
 * Describe an enctype, whatever its state.
 *
 * @param[in]  enctype  The enctype number (6 gives DES3's row).
 * @param[out] out      The row.
 * @return GK5_OK; GK5_ERR_ENCTYPE_UNKNOWN (with the enctype) if not in the
 *         table; GK5_ERR_INVALID_ARGUMENT if out is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_describe(int32_t enctype,
                                                 gk5_enctype_desc *out);

/**
 * The GSS-API token protocol of contexts keyed with the enctype, in the
 * terms of gk5_lucid_ctx.protocol: 0 for RFC 1964 (DES3), 1 for RFC 4121
 * (CFX).  An rpc.gssd buffer sets GK5_GSSD_FLAG_CFX exactly for 1.
 *
 * @param[in]  enctype   The enctype number (DES3 also as 6).
 * @param[out] protocol  0 or 1 (0 on failure).
 * @return GK5_OK; the enctype's refusal as gk5_enctype_check();
 *         GK5_ERR_INVALID_ARGUMENT if protocol is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_protocol(int32_t enctype,
                                                 uint32_t *protocol);

/**
 * An enctype's number from its name ("aes128-cts-hmac-sha1-96", an alias
 * such as "aes128-cts" or "arcfour-hmac", any case) or from a decimal
 * number ("23"; any number from -32768 to 32767, known or not).  Rejected
 * and not-built names resolve too: gk5_enctype_check() says whether the
 * enctype is usable.
 *
 * @param[in]  name     The name or number.
 * @param[out] enctype  The number; written only on success.
 * @return GK5_OK; GK5_ERR_INVALID_ARGUMENT for a NULL or empty name, a
 *         name not in the table, or a number out of range.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_enctype_from_name(const char *name,
                                                  int32_t *enctype);

/* ---- IOV segments for encrypt/decrypt/checksum ---- */

/* RFC 3961 ciphertext = HEADER (the confounder; RFC 8009: the confounder
 * that starts the CTS input) | encrypted DATA (and PADDING for DES3) |
 * TRAILER (the MAC).  An encrypt or decrypt list holds exactly one HEADER
 * and one TRAILER of exactly the lengths gk5_c_crypto_length() gives, at
 * most one PADDING (on encrypt exactly the padding length; it may be left
 * out when that is 0), and any number of DATA and SIGN_ONLY segments;
 * SIGN_ONLY segments are covered by the MAC but neither encrypted nor part
 * of the ciphertext.  A checksum list holds exactly one CHECKSUM of
 * exactly the checksum length; DATA, SIGN_ONLY, HEADER and PADDING
 * segments are its input (as in MIT's IOV calls) and a TRAILER has no
 * place there.  EMPTY segments are ignored everywhere; segments are
 * processed in array order.  A list that breaks these rules is
 * GK5_ERR_BAD_IOV. */
/** Ignored. */
#define GK5_CRYPTO_IOV_EMPTY 0u
/** The confounder (encrypt writes a random one). */
#define GK5_CRYPTO_IOV_HEADER 1u
/** Plaintext or ciphertext, processed in place. */
#define GK5_CRYPTO_IOV_DATA 2u
/** Covered by the MAC or checksum only. */
#define GK5_CRYPTO_IOV_SIGN_ONLY 3u
/** DES3's padding (never present for the CTS enctypes). */
#define GK5_CRYPTO_IOV_PADDING 4u
/** The MAC that ends the ciphertext. */
#define GK5_CRYPTO_IOV_TRAILER 5u
/** The checksum (checksum calls only). */
#define GK5_CRYPTO_IOV_CHECKSUM 6u

/** One segment of an IOV list. */
typedef struct {
    uint32_t flags; /**< GK5_CRYPTO_IOV_* */
    void *data;     /**< the bytes (NULL only if length is 0) */
    size_t length;  /**< their number */
} gk5_crypto_iov;

/* ---- Lengths ---- */

/**
 * The enctype's key length (the output of random-to-key).
 *
 * @param[in]  enctype  The enctype.
 * @param[out] len      The length in bytes (0 on failure).
 * @return GK5_OK, or the common codes.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_key_length(int32_t enctype, size_t *len);

/**
 * The length of an IOV segment for data_len bytes of DATA: HEADER the
 * confounder, TRAILER the MAC, PADDING what DES3 needs (0 otherwise),
 * CHECKSUM the checksum, DATA and SIGN_ONLY data_len, EMPTY 0.
 *
 * @param[in]  enctype   The enctype.
 * @param[in]  iov_type  A GK5_CRYPTO_IOV_* type.
 * @param[in]  data_len  The total DATA length.
 * @param[out] len       The segment's length (0 on failure).
 * @return GK5_OK; GK5_ERR_INVALID_ARGUMENT for another type or len NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_crypto_length(int32_t enctype,
                                                uint32_t iov_type,
                                                size_t data_len, size_t *len);

/**
 * The ciphertext length gk5_c_encrypt() makes of plain_len bytes:
 * confounder, plaintext, padding and MAC.
 *
 * @param[in]  enctype     The enctype.
 * @param[in]  plain_len   The plaintext length.
 * @param[out] cipher_len  The ciphertext length (0 on failure).
 * @return GK5_OK; GK5_ERR_INVALID_ARGUMENT if the sum overflows or
 *         cipher_len is NULL.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt_length(int32_t enctype,
                                                 size_t plain_len,
                                                 size_t *cipher_len);

/**
 * The length of the enctype's mandatory checksum.
 *
 * @param[in]  enctype  The enctype.
 * @param[out] len      The length (0 on failure).
 * @return GK5_OK, or the common codes.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum_length(int32_t enctype, size_t *len);

/**
 * The length of the enctype's PRF output.
 *
 * @param[in]  enctype  The enctype.
 * @param[out] len      The length (0 on failure).
 * @return GK5_OK, or the common codes.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_prf_length(int32_t enctype, size_t *len);

/* ---- Keys ---- */

/**
 * RFC 3961 3 string-to-key.
 *
 * params are the enctype's s2kparams: AES and Camellia take a 4-byte
 * big-endian iteration count, NULL/0 meaning the default (AES-SHA1: 4096;
 * RFC 8009 and RFC 6803: 32768); DES3 takes none.  A count below the
 * default is refused (GK5_ERR_S2K_WEAK), as MIT krb5 refuses it.  For RFC
 * 8009 and RFC 6803 the salt is the caller's salt: gk5 prefixes the
 * enctype name and a zero byte (saltp) itself.
 *
 * @param[in]  enctype       The enctype.
 * @param[in]  password      The password (UTF-8 bytes).
 * @param[in]  password_len  Its length.
 * @param[in]  salt          The salt.
 * @param[in]  salt_len      Its length.
 * @param[in]  params        The s2kparams, or NULL.
 * @param[in]  params_len    Their length.
 * @param[out] key           The key (wiped on failure).
 * @param[in]  key_len       Must be the key length.
 * @return GK5_OK; GK5_ERR_BAD_S2K_PARAMS (params not 4 bytes, a count of
 *         0 or above 2^24 - 1, or any params for DES3); GK5_ERR_S2K_WEAK;
 *         GK5_ERR_BAD_KEY_LENGTH; GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t
gk5_c_string_to_key(int32_t enctype, const void *password, size_t password_len,
                    const void *salt, size_t salt_len, const void *params,
                    size_t params_len, void *key, size_t key_len);

/** gk5_c_string_to_key_flags(): accept iteration counts below the
 *  enctype's default (the RFC test vectors use 1, 2 and 5); for tests
 *  only. */
#define GK5_S2K_ALLOW_WEAK 0x1u

/**
 * gk5_c_string_to_key() with flags.
 *
 * @param[in]  enctype       The enctype.
 * @param[in]  password      The password.
 * @param[in]  password_len  Its length.
 * @param[in]  salt          The salt.
 * @param[in]  salt_len      Its length.
 * @param[in]  params        The s2kparams, or NULL.
 * @param[in]  params_len    Their length.
 * @param[in]  flags         0 or GK5_S2K_ALLOW_WEAK.
 * @param[out] key           The key (wiped on failure).
 * @param[in]  key_len       Must be the key length.
 * @return As gk5_c_string_to_key(); GK5_ERR_INVALID_ARGUMENT for unknown
 *         flags.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_string_to_key_flags(
    int32_t enctype, const void *password, size_t password_len,
    const void *salt, size_t salt_len, const void *params, size_t params_len,
    uint32_t flags, void *key, size_t key_len);

/**
 * RFC 3961 3 random-to-key.
 *
 * @param[in]  enctype     The enctype.
 * @param[in]  random      The key-generation seed.
 * @param[in]  random_len  Its length: the enctype's seed length (the key
 *                         length; DES3: 21).
 * @param[out] key         The key (wiped on failure).
 * @param[in]  key_len     Must be the key length.
 * @return GK5_OK; GK5_ERR_BAD_KEY_LENGTH if either length is wrong;
 *         GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_random_to_key(int32_t enctype,
                                                const void *random,
                                                size_t random_len, void *key,
                                                size_t key_len);

/**
 * The length of DK(key, constant) for this enctype and constant (RFC 8009
 * derives Kc and Ki shorter than a key).
 *
 * @param[in]  enctype       The enctype.
 * @param[in]  constant      The constant (usage | 0x99, "kerberos" ...).
 * @param[in]  constant_len  Its length; not 0.
 * @param[out] len           The derived key's length (0 on failure).
 * @return GK5_OK; GK5_ERR_INVALID_ARGUMENT (an empty or NULL constant).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_derive_length(int32_t enctype,
                                                const void *constant,
                                                size_t constant_len,
                                                size_t *len);

/**
 * The derived key DK(key, constant): RFC 3961 5.1 (n-fold, DR and
 * random-to-key), RFC 6803 KDF-FEEDBACK-CMAC, RFC 8009 KDF-HMAC-SHA2.
 *
 * @param[in]  enctype       The enctype.
 * @param[in]  key           The base key.
 * @param[in]  key_len       Its length: the key length.
 * @param[in]  constant      The constant.
 * @param[in]  constant_len  Its length; not 0.
 * @param[out] out           The derived key (wiped on failure).
 * @param[in]  out_len       Must be gk5_c_derive_length()'s answer.
 * @return GK5_OK; GK5_ERR_BAD_KEY_LENGTH (key_len or out_len wrong);
 *         GK5_ERR_INVALID_ARGUMENT (an empty constant).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_derive_key(int32_t enctype, const void *key,
                                             size_t key_len,
                                             const void *constant,
                                             size_t constant_len, void *out,
                                             size_t out_len);

/* ---- Contiguous forms ---- */

/**
 * RFC 3961 3 encrypt, with a random confounder: out = confounder |
 * ciphertext | MAC.  in and out may overlap.
 *
 * @param[in]     enctype  The enctype.
 * @param[in]     key      The base key (Ke and Ki are derived for usage).
 * @param[in]     key_len  Its length.
 * @param[in]     usage    The key usage number.
 * @param[in]     in       The plaintext.
 * @param[in]     in_len   Its length.
 * @param[out]    out      The ciphertext.
 * @param[in,out] out_len  In: out's capacity; out: the ciphertext length
 *                         (0 on failure).
 * @return GK5_OK; GK5_ERR_BUFFER_TOO_SMALL (below
 *         gk5_c_encrypt_length()); GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt(int32_t enctype, const void *key,
                                          size_t key_len, uint32_t usage,
                                          const void *in, size_t in_len,
                                          void *out, size_t *out_len);

/**
 * RFC 3961 3 encrypt with the confounder given, for known-answer tests
 * only (the RFC 3962 B, RFC 6803 10 and RFC 8009 A vectors fix it).
 * Never with a key that protects anything: the confounder must be fresh
 * random bytes for every message, which is what gk5_c_encrypt() does.
 * Otherwise as gk5_c_encrypt().
 *
 * @param[in]     enctype         The enctype.
 * @param[in]     key             The base key.
 * @param[in]     key_len         Its length.
 * @param[in]     usage           The key usage number.
 * @param[in]     confounder      The confounder.
 * @param[in]     confounder_len  Its length: exactly the enctype's
 *                                (gk5_c_crypto_length() of
 *                                GK5_CRYPTO_IOV_HEADER; 16 for AES and
 *                                Camellia, 8 for DES3).
 * @param[in]     in              The plaintext.
 * @param[in]     in_len          Its length.
 * @param[out]    out             The ciphertext.
 * @param[in,out] out_len         As for gk5_c_encrypt().
 * @return GK5_OK; GK5_ERR_BUFFER_TOO_SMALL; GK5_ERR_INVALID_ARGUMENT
 *         (confounder NULL, or confounder_len not the enctype's).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt_confounder(
    int32_t enctype, const void *key, size_t key_len, uint32_t usage,
    const void *confounder, size_t confounder_len, const void *in,
    size_t in_len, void *out, size_t *out_len);

/**
 * RFC 3961 3 decrypt and verify.  in and out may overlap.  DES3 plaintext
 * keeps its zero padding (RFC 3961 has no length field).
 *
 * @param[in]     enctype  The enctype.
 * @param[in]     key      The base key.
 * @param[in]     key_len  Its length.
 * @param[in]     usage    The key usage number.
 * @param[in]     in       The ciphertext.
 * @param[in]     in_len   Its length.
 * @param[out]    out      The plaintext (wiped when the MAC fails).
 * @param[in,out] out_len  In: out's capacity; out: the plaintext length
 *                         (0 on failure).
 * @return GK5_OK; GK5_ERR_INTEGRITY (the MAC does not verify);
 *         GK5_ERR_BAD_CIPHERTEXT_LENGTH (shorter than a confounder and a
 *         MAC, or, for DES3, not whole blocks); GK5_ERR_BUFFER_TOO_SMALL;
 *         GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_decrypt(int32_t enctype, const void *key,
                                          size_t key_len, uint32_t usage,
                                          const void *in, size_t in_len,
                                          void *out, size_t *out_len);

/**
 * The enctype's mandatory keyed checksum (Kc of usage) over in.
 *
 * @param[in]     enctype    The enctype.
 * @param[in]     key        The base key.
 * @param[in]     key_len    Its length.
 * @param[in]     usage      The key usage number.
 * @param[in]     in         The data.
 * @param[in]     in_len     Its length.
 * @param[out]    cksum      The checksum.
 * @param[in,out] cksum_len  In: cksum's capacity; out: the checksum
 *                           length (0 on failure).
 * @return GK5_OK; GK5_ERR_BUFFER_TOO_SMALL (below the checksum length);
 *         GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum(int32_t enctype, const void *key,
                                           size_t key_len, uint32_t usage,
                                           const void *in, size_t in_len,
                                           void *cksum, size_t *cksum_len);

/**
 * Verify a checksum gk5_c_checksum() would make (compared in constant
 * time).
 *
 * @param[in] enctype    The enctype.
 * @param[in] key        The base key.
 * @param[in] key_len    Its length.
 * @param[in] usage      The key usage number.
 * @param[in] in         The data.
 * @param[in] in_len     Its length.
 * @param[in] cksum      The checksum to check.
 * @param[in] cksum_len  Its length.
 * @return GK5_OK; GK5_ERR_INTEGRITY on a mismatch, also when cksum_len is
 *         not the checksum length; GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_verify_checksum(
    int32_t enctype, const void *key, size_t key_len, uint32_t usage,
    const void *in, size_t in_len, const void *cksum, size_t cksum_len);

/**
 * RFC 3961 3 pseudo-random function (RFC 3961 5.3 for AES-SHA1 and DES3,
 * RFC 6803 6, RFC 8009 5).
 *
 * @param[in]  enctype  The enctype.
 * @param[in]  key      The base key.
 * @param[in]  key_len  Its length.
 * @param[in]  in       The PRF input.
 * @param[in]  in_len   Its length.
 * @param[out] out      The output (wiped on failure).
 * @param[in]  out_len  Must be gk5_c_prf_length()'s answer.
 * @return GK5_OK; GK5_ERR_BUFFER_TOO_SMALL (out_len below it);
 *         GK5_ERR_INVALID_ARGUMENT (above it, or a NULL pointer).
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_prf(int32_t enctype, const void *key,
                                      size_t key_len, const void *in,
                                      size_t in_len, void *out, size_t out_len);

/* ---- IOV forms, in place ---- */

/**
 * Encrypt in place with a random confounder (written into HEADER), the
 * MAC into TRAILER.  Segment rules above.
 *
 * @param[in]     enctype    The enctype.
 * @param[in]     key        The base key.
 * @param[in]     key_len    Its length.
 * @param[in]     usage      The key usage number.
 * @param[in,out] iov        The segments.
 * @param[in]     iov_count  How many.
 * @return GK5_OK; GK5_ERR_BAD_IOV (a missing, repeated or wrongly sized
 *         HEADER, TRAILER or PADDING, an unknown type, NULL data with a
 *         length); GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_encrypt_iov(int32_t enctype, const void *key,
                                              size_t key_len, uint32_t usage,
                                              gk5_crypto_iov *iov,
                                              size_t iov_count);

/**
 * Decrypt and verify in place.
 *
 * @param[in]     enctype    The enctype.
 * @param[in]     key        The base key.
 * @param[in]     key_len    Its length.
 * @param[in]     usage      The key usage number.
 * @param[in,out] iov        The segments.
 * @param[in]     iov_count  How many.
 * @return GK5_OK; GK5_ERR_INTEGRITY (HEADER, DATA and PADDING wiped);
 *         GK5_ERR_BAD_CIPHERTEXT_LENGTH (less than a block, or not whole
 *         blocks for DES3); GK5_ERR_BAD_IOV; GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_decrypt_iov(int32_t enctype, const void *key,
                                              size_t key_len, uint32_t usage,
                                              gk5_crypto_iov *iov,
                                              size_t iov_count);

/**
 * Keyed checksum of the input segments (in array order) into the CHECKSUM
 * segment.
 *
 * @param[in]     enctype    The enctype.
 * @param[in]     key        The base key.
 * @param[in]     key_len    Its length.
 * @param[in]     usage      The key usage number.
 * @param[in,out] iov        The segments.
 * @param[in]     iov_count  How many.
 * @return GK5_OK; GK5_ERR_BAD_IOV (no CHECKSUM, two, one of the wrong
 *         length, a TRAILER or unknown type); GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_checksum_iov(int32_t enctype, const void *key,
                                               size_t key_len, uint32_t usage,
                                               gk5_crypto_iov *iov,
                                               size_t iov_count);

/**
 * Verify the CHECKSUM segment against the input segments (constant-time
 * compare).
 *
 * @param[in] enctype    The enctype.
 * @param[in] key        The base key.
 * @param[in] key_len    Its length.
 * @param[in] usage      The key usage number.
 * @param[in] iov        The segments.
 * @param[in] iov_count  How many.
 * @return GK5_OK; GK5_ERR_INTEGRITY on a mismatch; GK5_ERR_BAD_IOV;
 *         GK5_ERR_INVALID_ARGUMENT.
 */
GK5_EXPORT GK5_WUR uint32_t gk5_c_verify_checksum_iov(
    int32_t enctype, const void *key, size_t key_len, uint32_t usage,
    const gk5_crypto_iov *iov, size_t iov_count);

#ifdef __cplusplus
}
#endif
#endif /* GK5_CRYPTO_H */
