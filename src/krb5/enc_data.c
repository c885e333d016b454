/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The cipher of an RFC 4120 EncryptedData (RFC 3961 5.3: confounder,
 * plaintext, padding, checksum), sealed and opened in place for the
 * acceptor, the initiator and the KDC client.  RFC 3961 has no length
 * field: DES3 plaintext keeps its zero padding, and the DER value's own
 * length says where the message ends; the CTS enctypes have no padding.
 */
#include <string.h>

#include "krb5_int.h"
#include "../common/bytes.h"
#include "../mech/gss_framing.h"

size_t gk5i_enc_data_size(const struct gk5_enctype *et, size_t plen)
{
    return et->conf_bytes + plen + gk5i_padding_length(et, plen) +
           et->mac_bytes;
}

uint32_t gk5i_enc_data_seal(gk5_ukey *uk, const struct gk5_enctype *et,
                            uint8_t *buf, size_t plen)
{
    size_t pad = gk5i_padding_length(et, plen);
    uint8_t *data = buf + et->conf_bytes;
    gk5_crypto_iov iov[4] = {
        {GK5_CRYPTO_IOV_HEADER, buf, et->conf_bytes},
        {GK5_CRYPTO_IOV_DATA, data, plen},
        {GK5_CRYPTO_IOV_PADDING, data + plen, pad},
        {GK5_CRYPTO_IOV_TRAILER, data + plen + pad, et->mac_bytes},
    };

    return gk5i_encrypt_iov(uk, NULL, iov, GK5_ARRAY_SIZE(iov));
}

/* DES3: where the DER value at p[0..*len) ends, at most a block of zeros
 * after it. */
static uint32_t der_unpad(const struct gk5_enctype *et, const uint8_t *p,
                          size_t *len)
{
    struct gk5i_rd r;
    struct gk5i_der_len dl;
    size_t end;

    if (et->family != GK5I_FAMILY_DES3) {
        return GK5_OK;
    }
    gk5i_rd_init(&r, p, *len);
    (void)gk5i_get_u8(&r);
    if (gk5i_der_get_length(&r, 4, &dl) != GK5I_DER_OK) {
        return GK5_ERR_DER;
    }
    end = 1 + dl.octets + dl.len;
    if (dl.len > *len || end > *len || *len - end >= et->block_bytes) {
        return GK5_ERR_DER;
    }
    for (size_t i = end; i < *len; i++) {
        if (p[i] != 0) {
            return GK5_ERR_DER;
        }
    }
    *len = end;
    return GK5_OK;
}

uint32_t gk5i_enc_data_open(gk5_ukey *uk, const struct gk5_enctype *et,
                            struct gk5i_view cipher, uint8_t *buf, size_t *plen)
{
    size_t n = cipher.len;
    gk5_crypto_iov iov[3];
    uint32_t err;

    *plen = 0;
    if (n < et->conf_bytes + et->mac_bytes) {
        return GK5_ERR_INTEGRITY;
    }
    memcpy(buf, cipher.p, n);
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, buf, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, buf + et->conf_bytes,
                              n - et->conf_bytes - et->mac_bytes};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER, buf + n - et->mac_bytes,
                              et->mac_bytes};
    err = gk5i_decrypt_iov(uk, iov, GK5_ARRAY_SIZE(iov));
    if (err == GK5_ERR_BAD_CIPHERTEXT_LENGTH || err == GK5_ERR_BAD_IOV) {
        err = GK5_ERR_INTEGRITY;
    }
    if (err != GK5_OK) {
        return err;
    }
    /* The plaintext after the confounder, moved to the front. */
    memmove(buf, buf + et->conf_bytes, iov[1].length);
    *plen = iov[1].length;
    return der_unpad(et, buf, plen);
}
