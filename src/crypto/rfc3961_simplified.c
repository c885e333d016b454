/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3961 5.3 simplified profile, the MAC-then-encrypt shape shared by
 * AES-SHA1 (RFC 3962), Camellia (RFC 6803, same shape with CMAC) and DES3
 * (RFC 3961 6.3, without CTS and with padding):
 *   ciphertext = E(Ke, confounder | plaintext [| pad]) | H(Ki, same)[1..h]
 * and the parts of the profile these families share.
 */
#include <string.h>

#include <openssl/evp.h>

#include "crypto_int.h"
#include "internal.h"

/* RFC 3961 5.3 / RFC 6803 6: every derived key has the protocol key's
 * length. */
size_t gk5i_derive_length_key(const struct gk5_enctype *et,
                              const uint8_t *constant, size_t constant_len)
{
    (void)constant;
    (void)constant_len;
    return et->key_bytes;
}

/* RFC 3962 4 and RFC 6803 4 (and RFC 8009 4): random-to-key is the
 * identity. */
uint32_t gk5i_random_to_key_identity(const struct gk5_enctype *et,
                                     const uint8_t *in, size_t in_len,
                                     uint8_t *key, size_t key_len)
{
    if (in_len != et->keygen_bytes || key_len != et->key_bytes ||
        in_len != key_len) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    memmove(key, in, key_len);
    return GK5_OK;
}

/*
 * RFC 3961 5.3 pseudo-random function (used by RFC 3962 for AES and by
 * RFC 3961 6.3 for DES3):
 *   tmp1 = H(octet-string)                 (SHA-1)
 *   tmp2 = truncate tmp1 to a multiple of m (the block size: 16 of 20 bytes
 *          for AES and, with m = 8, for DES3)
 *   PRF  = E(DK(protocol-key, "prf"), tmp2, initial-cipher-state)
 * The encryption is CBC from a zero IV; for AES tmp2 is one block, which
 * CBC-CTS leaves as plain CBC.
 */
uint32_t gk5i_prf_simplified(const struct gk5_enctype *et, const uint8_t *key,
                             size_t key_len, const uint8_t *in, size_t in_len,
                             uint8_t *out, size_t out_len)
{
    uint8_t tmp1[EVP_MAX_MD_SIZE];
    uint8_t kp[GK5_MAX_KEY_BYTES];
    unsigned int tmp1_len = 0;
    size_t tmp2_len;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (et->block_bytes == 0 || et->key_bytes > sizeof(kp)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (!EVP_Digest(in, in_len, tmp1, &tmp1_len, EVP_sha1(), NULL)) {
        goto cleanup;
    }
    tmp2_len = tmp1_len - tmp1_len % et->block_bytes;
    if (tmp2_len != out_len || out_len != et->prf_bytes) {
        ret = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    ret = et->profile->derive(et, key, key_len, GK5_PRF_CONSTANT,
                              GK5_PRF_CONSTANT_LEN, kp, et->key_bytes);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = gk5i_cbc_encrypt_zero_iv(et->cipher, kp, et->key_bytes, tmp1,
                                   tmp2_len, out);

cleanup:
    zap(tmp1, sizeof(tmp1));
    zap(kp, sizeof(kp));
    return ret;
}

/*
 * RFC 3961 5.3 encryption (RFC 3962 5-6 with CTS and h = 96 bits; RFC 6803 6
 * with CMAC, h = 128; RFC 3961 6.3 DES3 with CBC, zero padding to 8 bytes
 * and the full 160-bit HMAC-SHA1):
 *   conf = random, H1 = HMAC/CMAC(Ki, conf | plaintext | pad),
 *   ciphertext = E(Ke, conf | plaintext | pad, zero IV) | H1[1..h].
 * SIGN_ONLY segments enter the MAC in array order as if they were plaintext
 * and are neither encrypted nor part of the ciphertext (MIT's IOV rules).
 */
uint32_t gk5i_mte_encrypt_iov(gk5_ukey *uk, const uint8_t *confounder,
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
    if (info.padding != NULL) {
        memset(info.padding->data, 0, info.padding->length);
    }
    /* AES-SHA1 on AES-NI and SHA-NI: MAC and cipher in one pass. */
    ret = gk5i_mte_seal_onepass(uk, iov, n, info.stream_len, mac, &mac_len,
                                &done);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    if (!done) {
        ret = gk5i_mac_iov(&uk->ki, NULL, 0, iov, n, mac, &mac_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    if (mac_len < et->mac_bytes) {
        ret = GK5_ERR_CRYPTO_BACKEND;
        goto cleanup;
    }
    if (!done) {
        ret = gk5i_crypt_stream(uk, iov, n, info.stream_len, NULL, true, NULL);
        if (ret != GK5_OK) {
            goto cleanup;
        }
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
 * RFC 3961 5.3 decryption: decrypt conf | plaintext | pad in place, recompute
 * H1 over it (with the SIGN_ONLY segments) and compare with the received
 * h bytes in constant time.  On a mismatch every decrypted segment is wiped
 * before GK5_ERR_INTEGRITY, so no unauthenticated plaintext is left.
 */
/* (Its start matches gk5i_mte_encrypt_iov's: both go through
 * gk5i_crypt_iov_begin(); the rest runs in the other order.) */
uint32_t gk5i_mte_decrypt_iov(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n)
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
    /* AES-SHA1 on AES-NI and SHA-NI: cipher and MAC in one pass. */
    ret = gk5i_mte_unseal_onepass(uk, iov, n, info.stream_len, mac, &mac_len,
                                  &done);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    if (!done) {
        ret = gk5i_crypt_stream(uk, iov, n, info.stream_len, NULL, false, NULL);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = gk5i_mac_iov(&uk->ki, NULL, 0, iov, n, mac, &mac_len);
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
    }

cleanup:
    if (ret != GK5_OK) {
        gk5i_iov_wipe_stream(iov, n);
    }
    zap(mac, sizeof(mac));
    return ret;
}
