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

#include "crypto_int.h"

struct gk5_profile {
    const char *family; /* "rfc3962", "rfc6803", "rfc8009", "des3" */
    /* DK(key, constant) -> out (out_len from derive_length). */
    uint32_t (*derive)(const struct gk5_enctype *et, const uint8_t *key,
                       size_t key_len, const uint8_t *constant,
                       size_t constant_len, uint8_t *out, size_t out_len);
    size_t (*derive_length)(const struct gk5_enctype *et,
                            const uint8_t *constant, size_t constant_len);
    uint32_t (*string_to_key)(const struct gk5_enctype *et,
                              const uint8_t *pw, size_t pw_len,
                              const uint8_t *salt, size_t salt_len,
                              const uint8_t *params, size_t params_len,
                              uint8_t *key, size_t key_len);
    uint32_t (*random_to_key)(const struct gk5_enctype *et,
                              const uint8_t *in, size_t in_len, uint8_t *key,
                              size_t key_len);
    uint32_t (*prf)(const struct gk5_enctype *et, const uint8_t *key,
                    size_t key_len, const uint8_t *in, size_t in_len,
                    uint8_t *out, size_t out_len);
    /* The rest (ukey setup, encrypt/decrypt/checksum over IOVs) is up to
     * the implementation files; add what they need here. */
};

GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc3962;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc6803;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc8009;
#ifdef GK5_WITH_DES3
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_des3;
#endif

#endif /* GK5_PROFILE_H */
