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

/*
 * RFC 3962 5 and Appendix B: raw CBC-CTS (the swapped-last-blocks variant,
 * OpenSSL's CS3) under key with the enctype's cipher.  next_iv receives the
 * cipher state RFC 3962 B lists: the last full cipher block, which CS3
 * places second to last.  A test seam; not in the shipped ABI.
 */
uint32_t gk5i_cts_raw(int32_t enctype, const uint8_t *key, size_t key_len,
                      const uint8_t *iv, const uint8_t *in, size_t len,
                      uint8_t *out, uint8_t *next_iv, bool encrypt)
{
    const struct gk5_enctype *et = NULL;
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov seg;
    uint32_t ret;

    memset(&sk, 0, sizeof(sk));
    ret = gk5i_enctype_usable(enctype, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (et->cts_cipher == NULL || key == NULL || in == NULL || out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (key_len != et->key_bytes || key_len > sizeof(sk.ke)) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    if (len < et->block_bytes) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    memcpy(sk.ke, key, key_len);
    sk.ke_len = key_len;
    sk.raw = true;
    ret = gk5i_ukey_new(et, &sk, &uk);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    memmove(out, in, len);
    seg = (gk5_crypto_iov){
        .flags = GK5_CRYPTO_IOV_DATA, .data = out, .length = len};
    ret = gk5i_crypt_stream(uk, &seg, 1, len, iv, encrypt, next_iv);
    if (ret != GK5_OK) {
        zap(out, len);
    }

cleanup:
    gk5i_ukey_free(uk);
    gk5i_subkeys_wipe(&sk);
    return ret;
}
