/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 6803: camellia128-cts-cmac (25) and camellia256-cts-cmac (26).
 * The simplified profile's MAC-then-encrypt shape with Camellia-CBC-CTS and
 * CMAC, and KDF-FEEDBACK-CMAC (OpenSSL KBKDF, feedback mode) in place of
 * the RFC 3961 5.1 DK.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* RFC 6803 3: DK(base-key, constant) = KDF-FEEDBACK-CMAC(base-key,
 * constant) with k = the key length in bits. */
static GK5_WUR uint32_t camellia_derive(const struct gk5_enctype *et,
                                        const uint8_t *key, size_t key_len,
                                        const uint8_t *constant,
                                        size_t constant_len, uint8_t *out,
                                        size_t out_len)
{
    if (key_len != et->key_bytes || out_len != et->key_bytes) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return gk5i_kdf_cmac_feedback(et, key, key_len, constant, constant_len, out,
                                  out_len);
}

/*
 * RFC 6803 4: saltp = enctype-name | 0x00 | salt,
 * tkey = random-to-key(PBKDF2-HMAC-SHA1(passphrase, saltp, iter_count,
 * keylength)), base-key = DK(tkey, "kerberos") with the KDF above.  The
 * default iteration count is 32768 (RFC 6803 4, and MIT's
 * krb5int_camellia_string_to_key), not RFC 3962's 4096.
 */
static GK5_WUR uint32_t camellia_string_to_key(
    const struct gk5_enctype *et, const uint8_t *pw, size_t pw_len,
    const uint8_t *salt, size_t salt_len, const uint8_t *params,
    size_t params_len, uint8_t *key, size_t key_len)
{
    uint8_t tkey[GK5_MAX_KEY_BYTES];
    uint32_t ret;

    if (key_len != et->key_bytes || key_len > sizeof(tkey)) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    ret = gk5i_s2k_tkey(et, "SHA1", true, pw, pw_len, salt, salt_len, params,
                        params_len, tkey, key_len);
    if (ret == GK5_OK) {
        ret = gk5i_kdf_cmac_feedback(et, tkey, key_len, GK5_KERBEROS_CONSTANT,
                                     GK5_KERBEROS_CONSTANT_LEN, key, key_len);
    }
    zap(tkey, sizeof(tkey));
    return ret;
}

/* RFC 6803 6 (pseudo-random function): PRF = CMAC(DK(base-key, "prf"),
 * octet-string), 128 bits. */
static GK5_WUR uint32_t camellia_prf(const struct gk5_enctype *et,
                                     const uint8_t *key, size_t key_len,
                                     const uint8_t *in, size_t in_len,
                                     uint8_t *out, size_t out_len)
{
    uint8_t kp[GK5_MAX_KEY_BYTES];
    uint8_t mac[GK5_MAX_MAC_BYTES];
    size_t mac_len = 0;
    uint32_t ret;

    if (out_len != et->prf_bytes || et->key_bytes > sizeof(kp)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = camellia_derive(et, key, key_len, GK5_PRF_CONSTANT,
                          GK5_PRF_CONSTANT_LEN, kp, et->key_bytes);
    if (ret == GK5_OK) {
        ret =
            gk5i_mac_oneshot(et, kp, et->key_bytes, in, in_len, mac, &mac_len);
    }
    if (ret == GK5_OK && mac_len != out_len) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK) {
        memcpy(out, mac, out_len);
    }
    zap(kp, sizeof(kp));
    zap(mac, sizeof(mac));
    return ret;
}

const struct gk5_profile gk5i_profile_rfc6803 = {
    .family = "rfc6803",
    .derive = camellia_derive,
    .derive_length = gk5i_derive_length_key,
    .string_to_key = camellia_string_to_key,
    .random_to_key = gk5i_random_to_key_identity,
    .prf = camellia_prf,
    .encrypt_iov = gk5i_mte_encrypt_iov,
    .decrypt_iov = gk5i_mte_decrypt_iov,
};
