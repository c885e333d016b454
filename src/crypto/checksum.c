/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Keyed checksums over a prepared key (RFC 3961 5.3 get_mic and verify,
 * RFC 6803 7, RFC 8009 6): the MAC under Kc (mac.c) of the DATA and
 * SIGN_ONLY segments into, or against, the CHECKSUM segment.  Above
 * ukey.c, which keys Kc on first use.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "crypto_int.h"
#include "internal.h"

/* What a checksum and its verification share: Kc keyed, the list checked
 * (*cksum its CHECKSUM segment), and the MAC under Kc of its input into
 * mac, at least the checksum's length. */
static inline GK5_WUR uint32_t kc_mac(gk5_ukey *uk, const gk5_crypto_iov *iov,
                                      size_t n, uint8_t mac[GK5_MAX_MAC_BYTES],
                                      const gk5_crypto_iov **cksum)
{
    size_t mac_len = 0;
    uint32_t ret;

    ret = gk5i_ukey_need(uk, GK5I_NEED_KC);
    if (ret == GK5_OK) {
        ret = gk5i_checksum_iov_check(uk->et, iov, n, cksum);
    }
    if (ret == GK5_OK) {
        ret = gk5i_mac_iov(&uk->kc, NULL, 0, iov, n, mac, &mac_len);
    }
    if (ret == GK5_OK && mac_len < (*cksum)->length) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    return ret;
}

/*
 * RFC 3961 5.3 get_mic (and RFC 6803 7 CMAC, RFC 8009 6 HMAC-SHA2): the
 * checksum is the MAC under Kc of the input, truncated to the checksum
 * segment (hmac-sha1-96: 12 of 20 bytes; hmac-sha1-des3-kd: all 20).
 */
uint32_t gk5i_checksum_iov(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n)
{
    const gk5_crypto_iov *cksum = NULL;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    uint32_t ret;

    ret = kc_mac(uk, iov, n, mac, &cksum);
    if (ret == GK5_OK) {
        memcpy(cksum->data, mac, cksum->length);
    }
    zap(mac, sizeof(mac));
    return ret;
}

uint32_t gk5i_verify_checksum_iov(gk5_ukey *uk, const gk5_crypto_iov *iov,
                                  size_t n)
{
    const gk5_crypto_iov *cksum = NULL;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    uint32_t ret;

    ret = kc_mac(uk, iov, n, mac, &cksum);
    if (ret == GK5_OK && CRYPTO_memcmp(mac, cksum->data, cksum->length) != 0) {
        ret = GK5_ERR_INTEGRITY;
    }
    zap(mac, sizeof(mac));
    return ret;
}
