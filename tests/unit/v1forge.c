/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 1964 1.2.1 / 1.2.2 tokens for DES3 made field by field (v1forge.h).
 */
#include "v1forge.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <gk5/crypto.h>

#define ET_DES3 16
#define USAGE_V1_SIGN 23

const uint8_t gk5t_krb5_oid_der[11] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                                       0xf7, 0x12, 0x01, 0x02, 0x02};

bool gk5t_des3_cbc(const uint8_t key[GK5T_V1_KEY_BYTES], const uint8_t *iv,
                   uint8_t *buf, size_t len, int enc)
{
    static const uint8_t zero[8] = {0};
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int outl = 0;
    bool ok = c != NULL && len % 8 == 0 &&
              EVP_CipherInit_ex(c, EVP_des_ede3_cbc(), NULL, key,
                                iv != NULL ? iv : zero, enc) == 1 &&
              EVP_CIPHER_CTX_set_padding(c, 0) == 1;

    if (ok && len != 0) {
        ok = EVP_CipherUpdate(c, buf, &outl, buf, (int)len) == 1 &&
             (size_t)outl == len;
    }
    EVP_CIPHER_CTX_free(c);
    return ok;
}

bool gk5t_v1_cksum(const uint8_t key[GK5T_V1_KEY_BYTES], const uint8_t *hdr8,
                   const uint8_t *rest, size_t rest_len, uint8_t out[20])
{
    uint8_t *in = malloc(8 + rest_len);
    size_t len = 20;
    bool ok;

    if (in == NULL) {
        return false;
    }
    memcpy(in, hdr8, 8);
    if (rest_len != 0) {
        memcpy(in + 8, rest, rest_len);
    }
    ok = gk5_c_checksum(ET_DES3, key, GK5T_V1_KEY_BYTES, USAGE_V1_SIGN, in,
                        8 + rest_len, out, &len) == 0 &&
         len == 20;
    free(in);
    return ok;
}

size_t gk5t_v1_encode(const uint8_t key[GK5T_V1_KEY_BYTES], uint16_t tok_id,
                      uint16_t seal_alg, uint32_t seq, const uint8_t dir[4],
                      const uint8_t *body, size_t body_len, uint8_t *out,
                      size_t cap)
{
    bool wrap = tok_id == GK5T_V1_TOK_WRAP;
    size_t inner = 36 + (wrap ? body_len : 0);
    size_t dlen = sizeof(gk5t_krb5_oid_der) + inner;
    size_t off = 0;
    uint8_t *t;

    if (dlen >= 65536 || cap < 4 + dlen) {
        return 0;
    }
    out[off++] = 0x60;
    if (dlen < 0x80) {
        out[off++] = (uint8_t)dlen;
    } else if (dlen < 0x100) {
        out[off++] = 0x81;
        out[off++] = (uint8_t)dlen;
    } else {
        out[off++] = 0x82;
        out[off++] = (uint8_t)(dlen >> 8);
        out[off++] = (uint8_t)dlen;
    }
    memcpy(out + off, gk5t_krb5_oid_der, sizeof(gk5t_krb5_oid_der));
    off += sizeof(gk5t_krb5_oid_der);
    t = out + off;
    t[0] = (uint8_t)(tok_id >> 8);
    t[1] = (uint8_t)tok_id;
    t[2] = 0x04; /* SGN_ALG: HMAC SHA1 DES3-KD */
    t[3] = 0x00;
    t[4] = (uint8_t)seal_alg;
    t[5] = (uint8_t)(seal_alg >> 8);
    t[6] = 0xff;
    t[7] = 0xff;
    if (!gk5t_v1_cksum(key, t, body, body_len, t + 16)) {
        return 0;
    }
    t[8] = (uint8_t)seq;
    t[9] = (uint8_t)(seq >> 8);
    t[10] = (uint8_t)(seq >> 16);
    t[11] = (uint8_t)(seq >> 24);
    memcpy(t + 12, dir, 4);
    /* RFC 1964 1.2.1.2: SND_SEQ encrypted with the checksum as IV. */
    if (!gk5t_des3_cbc(key, t + 16, t + 8, 8, 1)) {
        return 0;
    }
    if (wrap) {
        memcpy(t + 36, body, body_len);
        if (seal_alg == GK5T_V1_SEAL_DES3 &&
            !gk5t_des3_cbc(key, NULL, t + 36, body_len, 1)) {
            return 0;
        }
    }
    return off + inner;
}
