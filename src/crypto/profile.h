/*
 * Per-family operations, private to src/crypto.  Each enctype row points at
 * one of these; the rows give the lengths and OpenSSL names, the profile
 * gives the algorithms.
 *   simplified  RFC 3961 5.3 simplified profile with CTS (RFC 3962 AES) and
 *               RFC 6803 Camellia (same MtE shape, CMAC, KBKDF feedback)
 *   rfc8009     RFC 8009 encrypt-then-MAC, KDF-HMAC-SHA2
 *   des3        RFC 3961 6.3 des3-cbc-hmac-sha1-kd
 */
#ifndef GK5_PROFILE_H
#define GK5_PROFILE_H

#include <openssl/evp.h>

#include "crypto_int.h"

struct gk5_profile {
    const char *family; /* "rfc3962", "rfc6803", "rfc8009", "des3" */
    /* DK(key, constant) -> out (out_len from derive_length). */
    uint32_t (*derive)(const struct gk5_enctype *et, const uint8_t *key,
                       size_t key_len, const uint8_t *constant,
                       size_t constant_len, uint8_t *out, size_t out_len);
    size_t (*derive_length)(const struct gk5_enctype *et,
                            const uint8_t *constant, size_t constant_len);
    uint32_t (*string_to_key)(const struct gk5_enctype *et, const uint8_t *pw,
                              size_t pw_len, const uint8_t *salt,
                              size_t salt_len, const uint8_t *params,
                              size_t params_len, uint8_t *key, size_t key_len);
    uint32_t (*random_to_key)(const struct gk5_enctype *et, const uint8_t *in,
                              size_t in_len, uint8_t *key, size_t key_len);
    uint32_t (*prf)(const struct gk5_enctype *et, const uint8_t *key,
                    size_t key_len, const uint8_t *in, size_t in_len,
                    uint8_t *out, size_t out_len);
    /* Encryption over validated crypto IOVs with a prepared key
     * (gk5i_encrypt_iov / gk5i_decrypt_iov dispatch here).  MtE for the
     * simplified profile and DES3, EtM for RFC 8009. */
    uint32_t (*encrypt_iov)(gk5_ukey *uk, const uint8_t *confounder,
                            gk5_crypto_iov *iov, size_t n);
    uint32_t (*decrypt_iov)(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n);
};

GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc3962;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc6803;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc8009;
#ifdef GK5_WITH_DES3
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_des3;
#endif

/* ---- A prepared key (ukey.c) ----
 * Keyed OpenSSL contexts made once; per message they are only re-initialised
 * (new IV, MAC restarted with the key it already holds). */
struct gk5_ukey {
    const struct gk5_enctype *et;
    EVP_CIPHER_CTX *cbc_enc, *cbc_dec; /* Ke, CBC without padding */
    EVP_CIPHER_CTX *cts_enc, *cts_dec; /* Ke, CBC-CTS mode CS3; NULL w/o CTS */
    EVP_MAC_CTX *mac_ki;               /* Ki: HMAC or CMAC; NULL if none */
    EVP_MAC_CTX *mac_kc;               /* Kc: HMAC or CMAC; NULL if none */
};

/* The largest MAC output of any enctype (HMAC-SHA384). */
#define GK5_MAX_MAC_BYTES 48
/* The largest cipher block (AES, Camellia). */
#define GK5_MAX_BLOCK_BYTES 16

/* What a validated encrypt/decrypt IOV list holds. */
struct gk5i_iov_info {
    gk5_crypto_iov *header;  /* exactly one, conf_bytes long */
    gk5_crypto_iov *trailer; /* exactly one, mac_bytes long */
    gk5_crypto_iov *padding; /* at most one */
    size_t data_len;         /* all DATA segments */
    size_t stream_len;       /* HEADER + DATA + PADDING: the cipher input */
};

/* Padding RFC 3961 needs after confounder | data_len bytes (0 with CTS). */
GK5_HIDDEN size_t gk5i_padding_length(const struct gk5_enctype *et,
                                      size_t data_len);
/* Checks an encrypt (or decrypt) IOV list against the enctype's lengths;
 * GK5_ERR_BAD_IOV / GK5_ERR_BAD_CIPHERTEXT_LENGTH / GK5_ERR_INVALID_ARGUMENT.
 */
GK5_HIDDEN GK5_WUR uint32_t gk5i_iov_check(const struct gk5_enctype *et,
                                           gk5_crypto_iov *iov, size_t n,
                                           bool encrypt,
                                           struct gk5i_iov_info *info);
/* Runs the cipher over the HEADER, DATA and PADDING segments in array order,
 * in place: CBC over every block but the last two, then CBC-CTS (CS3) over
 * the final 16 < n <= 32 bytes (RFC 3962 5); without CTS (DES3) CBC over
 * all, which must be whole blocks.  iv NULL = zero; next_iv (may be NULL)
 * receives the last full cipher block (RFC 3962's cipher state). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov,
                                              size_t n, size_t stream_len,
                                              const uint8_t *iv, bool encrypt,
                                              uint8_t *next_iv);
/* MAC over prefix (may be NULL/0), then the HEADER, DATA, SIGN_ONLY and
 * PADDING segments in array order; *out_len = the full MAC length. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mac_iov(EVP_MAC_CTX *mac,
                                         const uint8_t *prefix,
                                         size_t prefix_len,
                                         const gk5_crypto_iov *iov, size_t n,
                                         uint8_t out[GK5_MAX_MAC_BYTES],
                                         size_t *out_len);
/* Wipes HEADER, DATA and PADDING (after a failed integrity check). */
GK5_HIDDEN void gk5i_iov_wipe_stream(gk5_crypto_iov *iov, size_t n);
/* A confounder: a copy of the given one, or random bytes. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_fill_confounder(uint8_t *dst, size_t len,
                                                 const uint8_t *given);

/* One-shot helpers for key derivation and PRFs (not the per-message path). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cbc_encrypt_zero_iv(const char *cipher,
                                                     const uint8_t *key,
                                                     size_t key_len,
                                                     const uint8_t *in,
                                                     size_t len, uint8_t *out);
/* HMAC (et->digest) or CMAC (et->cipher) of in under key. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mac_oneshot(const struct gk5_enctype *et,
                                             const uint8_t *key, size_t key_len,
                                             const uint8_t *in, size_t in_len,
                                             uint8_t out[GK5_MAX_MAC_BYTES],
                                             size_t *out_len);

/* ---- OpenSSL KDFs (kdf.c) ---- */
/* RFC 3961 5.1 DK via KRB5KDF (n-fold of the constant, DR, and for DES3
 * OpenSSL's own random-to-key with parity); out_len = et->key_bytes. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_rfc3961(const struct gk5_enctype *et,
                                             const uint8_t *key, size_t key_len,
                                             const uint8_t *constant,
                                             size_t constant_len, uint8_t *out,
                                             size_t out_len);
/* SP 800-108 counter mode with HMAC(et->digest): RFC 8009 KDF-HMAC-SHA2. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_hmac_counter(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *label, size_t label_len, const uint8_t *context,
    size_t context_len, uint8_t *out, size_t out_len);
/* SP 800-108 feedback mode with CMAC(et->cipher): RFC 6803
 * KDF-FEEDBACK-CMAC, K(0) = a zero block. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_cmac_feedback(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *label, size_t label_len, uint8_t *out, size_t out_len);
/* PBKDF2 with HMAC(digest). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_pbkdf2(const char *digest, const uint8_t *pw,
                                        size_t pw_len, const uint8_t *salt,
                                        size_t salt_len, uint32_t iter,
                                        uint8_t *out, size_t out_len);
/* The iteration count from s2kparams (RFC 3962 4): 4 bytes big-endian, or
 * the row's default when absent. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_s2k_iterations(const struct gk5_enctype *et,
                                                const uint8_t *params,
                                                size_t params_len,
                                                uint32_t *iter);
/* RFC 6803 3 / RFC 8009 4: saltp = enctype-name | 0x00 | salt (allocated,
 * free with OPENSSL_clear_free). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_saltp(const struct gk5_enctype *et,
                                       const uint8_t *salt, size_t salt_len,
                                       uint8_t **out, size_t *out_len);

/* ---- Shared by the simplified-profile families (rfc3961_simplified.c) ---- */
GK5_HIDDEN size_t gk5i_derive_length_key(const struct gk5_enctype *et,
                                         const uint8_t *constant,
                                         size_t constant_len);
/* random-to-key is the identity (AES, Camellia, AES-SHA2). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_random_to_key_identity(const struct gk5_enctype *et, const uint8_t *in,
                            size_t in_len, uint8_t *key, size_t key_len);
/* RFC 3961 5.3 PRF: E(DK(key, "prf"), truncate(SHA-1(in))) with a zero IV
 * (RFC 3961 5.3; AES-SHA1 and DES3). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_prf_simplified(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);
/* MAC-then-encrypt over IOVs: E(Ke, conf | data [| pad]) | H(Ki, ...). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_encrypt_iov(gk5_ukey *uk,
                                                 const uint8_t *confounder,
                                                 gk5_crypto_iov *iov, size_t n);
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_decrypt_iov(gk5_ukey *uk,
                                                 gk5_crypto_iov *iov, size_t n);

/* The RFC 3961 key derivation constants "kerberos" and "prf". */
#define GK5_KERBEROS_CONSTANT ((const uint8_t *)"kerberos")
#define GK5_KERBEROS_CONSTANT_LEN 8
#define GK5_PRF_CONSTANT ((const uint8_t *)"prf")
#define GK5_PRF_CONSTANT_LEN 3

#endif /* GK5_PROFILE_H */
