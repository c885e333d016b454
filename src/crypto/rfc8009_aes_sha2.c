/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 8009: aes128-cts-hmac-sha256-128 (19) and aes256-cts-hmac-sha384-192
 * (20).  Encrypt-then-MAC with AES-CBC-CTS and HMAC-SHA-256/384, keys from
 * KDF-HMAC-SHA2 (NIST SP 800-108 counter mode: OpenSSL KBKDF).
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* RFC 8009 5: Ke has the key's length; Ki and Kc (usage | 0x55, usage |
 * 0x99) have the truncated MAC's (128 bits for SHA-256, 192 for SHA-384).
 * Any other constant ("kerberos", "prf" keys) derives a whole key. */
static size_t sha2_derive_length(const struct gk5_enctype *et,
                                 const uint8_t *constant, size_t constant_len)
{
    if (constant != NULL && constant_len == 5 &&
        (constant[4] == 0x55 || constant[4] == 0x99)) {
        return et->mac_bytes;
    }
    return et->key_bytes;
}

/* RFC 8009 3: KDF-HMAC-SHA2(key, constant, k) with k = out_len bits. */
static GK5_WUR uint32_t sha2_derive(const struct gk5_enctype *et,
                                    const uint8_t *key, size_t key_len,
                                    const uint8_t *constant,
                                    size_t constant_len, uint8_t *out,
                                    size_t out_len)
{
    if (key_len != et->key_bytes ||
        out_len != sha2_derive_length(et, constant, constant_len)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return gk5i_kdf_hmac_counter(et, key, key_len, constant, constant_len, NULL,
                                 0, out, out_len);
}

/*
 * RFC 8009 4: saltp = enctype-name | 0x00 | salt,
 * tkey = random-to-key(PBKDF2(passphrase, saltp, iter_count, keylength))
 * with HMAC-SHA-256 (aes128) or HMAC-SHA-384 (aes256),
 * base-key = random-to-key(KDF-HMAC-SHA2(tkey, "kerberos", keylength)).
 * Default iteration count 32768.
 */
/* (Alike in shape to RFC 3962's and RFC 6803's: all three share
 * gk5i_s2k_tkey(); the key derivation after it is each family's own.) */
static GK5_WUR uint32_t sha2_string_to_key(const struct gk5_enctype *et,
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
    ret = gk5i_s2k_tkey(et, et->digest, true, pw, pw_len, salt, salt_len,
                        params, params_len, tkey, key_len);
    if (ret == GK5_OK) {
        ret = gk5i_kdf_hmac_counter(et, tkey, key_len, GK5_KERBEROS_CONSTANT,
                                    GK5_KERBEROS_CONSTANT_LEN, NULL, 0, key,
                                    key_len);
    }
    zap(tkey, sizeof(tkey));
    return ret;
}

/* RFC 8009 5: PRF = KDF-HMAC-SHA2(base-key, "prf", octet-string, 256 or
 * 384): the input is the KDF's context. */
static GK5_WUR uint32_t sha2_prf(const struct gk5_enctype *et,
                                 const uint8_t *key, size_t key_len,
                                 const uint8_t *in, size_t in_len, uint8_t *out,
                                 size_t out_len)
{
    if (key_len != et->key_bytes || out_len != et->prf_bytes) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return gk5i_kdf_hmac_counter(et, key, key_len, GK5_PRF_CONSTANT,
                                 GK5_PRF_CONSTANT_LEN, in, in_len, out,
                                 out_len);
}

/* RFC 8009 5: the MAC input starts with the cipher state, the zero IV. */
static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];

/*
 * RFC 8009 5 encryption:
 *   N = random (one block), IV = zero,
 *   C = E(Ke, N | plaintext, IV), H = HMAC(Ki, IV | C),
 *   ciphertext = C | H[1..h].
 * SIGN_ONLY segments enter the HMAC in array order after encryption, as in
 * MIT's encrypt-then-MAC IOV code: HMAC(Ki, IV | the HEADER, DATA,
 * SIGN_ONLY and PADDING segments as they then are).
 */
/* (Its shape matches RFC 3961 5.3's gk5i_mte_encrypt_iov and the two
 * decrypts match each other: the shared steps are gk5i_crypt_iov_begin()
 * and gk5i_seal_wipe(); what is left alike is local declarations, while
 * the order of MAC and cipher, the MAC's input and the one-pass driver
 * differ, so the four stay four.) */
static GK5_WUR uint32_t sha2_encrypt_iov(gk5_ukey *uk,
                                         const uint8_t *confounder,
                                         gk5_crypto_iov *iov, size_t n)
{
    struct gk5i_iov_info info;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    size_t mac_len = 0;
    const struct gk5_enctype *et;
    bool done = false;
    uint32_t ret;

    et = uk->et;
    ret = gk5i_crypt_iov_begin(uk, iov, n, true, &info);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = gk5i_pooled_confounder(info.header->data, et->conf_bytes, confounder);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    /* HMAC-SHA-256 on AES-NI and SHA-NI: cipher and MAC in one pass. */
    ret = gk5i_etm_onepass(uk, iov, n, info.stream_len, true, mac, &mac_len,
                           &done);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    if (!done) {
        ret =
            gk5i_crypt_stream(uk, iov, n, info.stream_len, zero_iv, true, NULL);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = gk5i_mac_iov(&uk->ki, zero_iv, et->block_bytes, iov, n, mac,
                           &mac_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    if (mac_len < et->mac_bytes) {
        ret = GK5_ERR_CRYPTO_BACKEND;
        goto cleanup;
    }
    memcpy(info.trailer->data, mac, et->mac_bytes);

cleanup:
    if (ret != GK5_OK) {
        gk5i_seal_wipe(iov, n, &info);
    }
    zap(mac, sizeof(mac));
    return ret;
}

/*
 * RFC 8009 5 decryption: the HMAC over IV | C is compared in constant
 * time.  On the serial path it is checked first and only a ciphertext that
 * passes is decrypted; the one-pass path (aes128-sha256 on AES-NI and
 * SHA-NI) decrypts while it MACs.  On a mismatch the segments are wiped
 * either way, so a failed call leaves nothing of the message, as with the
 * MtE families.
 */
static GK5_WUR uint32_t sha2_decrypt_iov(gk5_ukey *uk, gk5_crypto_iov *iov,
                                         size_t n)
{
    struct gk5i_iov_info info;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    size_t mac_len = 0;
    const struct gk5_enctype *et;
    bool done = false;
    uint32_t ret;

    et = uk->et;
    ret = gk5i_crypt_iov_begin(uk, iov, n, false, &info);
    if (ret != GK5_OK) {
        return ret;
    }
    /* HMAC-SHA-256 on AES-NI and SHA-NI: the MAC and the decryption read
     * the ciphertext in one pass; a mismatch wipes what was decrypted
     * (below), so nothing unauthenticated is left either way. */
    ret = gk5i_etm_onepass(uk, iov, n, info.stream_len, false, mac, &mac_len,
                           &done);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    if (!done) {
        ret = gk5i_mac_iov(&uk->ki, zero_iv, et->block_bytes, iov, n, mac,
                           &mac_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    if (mac_len < et->mac_bytes) {
        ret = GK5_ERR_CRYPTO_BACKEND;
        goto cleanup;
    }
    if (CRYPTO_memcmp(mac, info.trailer->data, et->mac_bytes) != 0) {
        ret = GK5_ERR_INTEGRITY;
        goto cleanup;
    }
    if (!done) {
        ret = gk5i_crypt_stream(uk, iov, n, info.stream_len, zero_iv, false,
                                NULL);
    }

cleanup:
    if (ret != GK5_OK) {
        gk5i_iov_wipe_stream(iov, n);
    }
    zap(mac, sizeof(mac));
    return ret;
}

const struct gk5_profile gk5i_profile_rfc8009 = {
    .family = "rfc8009",
    .derive = sha2_derive,
    .derive_length = sha2_derive_length,
    .string_to_key = sha2_string_to_key,
    .random_to_key = gk5i_random_to_key_identity,
    .prf = sha2_prf,
    .encrypt_iov = sha2_encrypt_iov,
    .decrypt_iov = sha2_decrypt_iov,
};
