/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 3961 6.3: des3-cbc-hmac-sha1-kd (16; rpc.gssd's des3-cbc-raw 6 is the
 * same key type).  Built only with -Ddes3=true: RFC 8429 deprecates it and
 * Linux removed it in 6.6.
 *
 * The simplified profile with DES-EDE3-CBC (no CTS: zero padding to the
 * 8-byte block) and the full 160-bit HMAC-SHA1; DK by OpenSSL's KRB5KDF,
 * which for DES-EDE3-CBC applies the random-to-key below itself.
 * random-to-key and string-to-key are by hand: OpenSSL has neither.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

#define DES3_KEYGEN_BYTES 21 /* 168 bits */
#define DES3_KEY_BYTES 24

/* DES parity: the low bit of each key byte makes its bit count odd. */
static uint8_t odd_parity(uint8_t b)
{
    unsigned ones = 0;

    for (unsigned v = b >> 1; v != 0; v >>= 1) {
        ones += v & 1u;
    }
    return (uint8_t)((b & 0xfe) | ((ones & 1u) == 0 ? 1u : 0u));
}

/*
 * RFC 3961 6.3.1 random-to-key: each 7-byte group of the 168 input bits
 * becomes an 8-byte DES key.  The 7 bytes are kept as they are; the eighth
 * byte collects their low bits (byte j's low bit becomes bit j + 1 of it),
 * and then every byte's low bit is replaced by its odd-parity bit.
 */
static GK5_WUR uint32_t des3_random_to_key(const struct gk5_enctype *et,
                                           const uint8_t *in, size_t in_len,
                                           uint8_t *key, size_t key_len)
{
    uint8_t out[DES3_KEY_BYTES];

    if (in_len != DES3_KEYGEN_BYTES || in_len != et->keygen_bytes ||
        key_len != DES3_KEY_BYTES || key_len != et->key_bytes) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    for (size_t i = 0; i < 3; i++) {
        const uint8_t *src = in + 7 * i;
        uint8_t *dst = out + 8 * i;

        dst[7] = 0;
        for (size_t j = 0; j < 7; j++) {
            dst[j] = src[j];
            dst[7] |= (uint8_t)((src[j] & 1u) << (j + 1));
        }
        for (size_t j = 0; j < 8; j++) {
            dst[j] = odd_parity(dst[j]);
        }
    }
    memcpy(key, out, sizeof(out));
    zap(out, sizeof(out));
    return GK5_OK;
}

/*
 * RFC 3961 6.3.1 string-to-key:
 *   s = passwordString | saltString
 *   tmpKey = random-to-key(168-fold(s))
 *   key = DK(tmpKey, "kerberos")
 * There are no string-to-key parameters.
 */
static GK5_WUR uint32_t des3_string_to_key(const struct gk5_enctype *et,
                                           const uint8_t *pw, size_t pw_len,
                                           const uint8_t *salt, size_t salt_len,
                                           const uint8_t *params,
                                           size_t params_len, uint8_t *key,
                                           size_t key_len)
{
    uint8_t folded[DES3_KEYGEN_BYTES];
    uint8_t tmp_key[DES3_KEY_BYTES];
    uint8_t *s = NULL;
    size_t s_len;
    uint32_t ret;

    if (key_len != et->key_bytes || key_len != DES3_KEY_BYTES) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    if (params != NULL && params_len != 0) {
        return GK5_ERR_BAD_S2K_PARAMS;
    }
    if (pw_len > SIZE_MAX - salt_len || pw_len + salt_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    s_len = pw_len + salt_len;
    s = OPENSSL_malloc(s_len);
    if (s == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (pw_len != 0) {
        memcpy(s, pw, pw_len);
    }
    if (salt_len != 0) {
        memcpy(s + pw_len, salt, salt_len);
    }
    ret = gk5i_nfold(s, s_len, folded, sizeof(folded))
              ? des3_random_to_key(et, folded, sizeof(folded), tmp_key,
                                   sizeof(tmp_key))
              : GK5_ERR_INVALID_ARGUMENT;
    if (ret == GK5_OK) {
        ret = gk5i_kdf_rfc3961(et, tmp_key, sizeof(tmp_key),
                               GK5_KERBEROS_CONSTANT, GK5_KERBEROS_CONSTANT_LEN,
                               key, key_len);
    }
    OPENSSL_clear_free(s, s_len);
    zap(folded, sizeof(folded));
    zap(tmp_key, sizeof(tmp_key));
    return ret;
}

const struct gk5_profile gk5i_profile_des3 = {
    .family = "des3",
    /* RFC 3961 6.3.1 (5.1): DK(key, constant) with DES-EDE3-CBC. */
    .derive = gk5i_kdf_rfc3961,
    .derive_length = gk5i_derive_length_key,
    .string_to_key = des3_string_to_key,
    .random_to_key = des3_random_to_key,
    .prf = gk5i_prf_simplified,
    .encrypt_iov = gk5i_mte_encrypt_iov,
    .decrypt_iov = gk5i_mte_decrypt_iov,
};
