/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3962: aes128-cts-hmac-sha1-96 (17) and aes256-cts-hmac-sha1-96 (18),
 * the RFC 3961 simplified profile with AES-CBC-CTS, HMAC-SHA1-96 and the
 * RFC 3961 5.1 key derivation (OpenSSL KRB5KDF).
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/*
 * RFC 3962 4: tkey = random-to-key(PBKDF2(passphrase, salt, iter_count,
 * keylength)) with HMAC-SHA1, key = DK(tkey, "kerberos").  s2kparams is the
 * 4-byte big-endian iteration count, default 4096.
 */
static GK5_WUR uint32_t aes_string_to_key(const struct gk5_enctype *et,
                                          const uint8_t *pw, size_t pw_len,
                                          const uint8_t *salt, size_t salt_len,
                                          const uint8_t *params,
                                          size_t params_len, uint8_t *key,
                                          size_t key_len)
{
    uint8_t tkey[GK5_MAX_KEY_BYTES];
    uint32_t ret;

    if (key_len != et->key_bytes || key_len > sizeof(tkey)) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    ret = gk5i_s2k_tkey(et, "SHA1", false, pw, pw_len, salt, salt_len, params,
                        params_len, tkey, key_len);
    if (ret == GK5_OK) {
        ret = gk5i_kdf_rfc3961(et, tkey, key_len, GK5_KERBEROS_CONSTANT,
                               GK5_KERBEROS_CONSTANT_LEN, key, key_len);
    }
    zap(tkey, sizeof(tkey));
    return ret;
}

const struct gk5_profile gk5i_profile_rfc3962 = {
    .family = "rfc3962",
    /* RFC 3961 5.1 (RFC 3962 6): DK(key, constant) with AES. */
    .derive = gk5i_kdf_rfc3961,
    .derive_length = gk5i_derive_length_key,
    .string_to_key = aes_string_to_key,
    .random_to_key = gk5i_random_to_key_identity,
    .prf = gk5i_prf_simplified,
    .encrypt_iov = gk5i_mte_encrypt_iov,
    .decrypt_iov = gk5i_mte_decrypt_iov,
};
