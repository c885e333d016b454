/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * An RFC 1964 (DES3) token maker independent of gk5's token code: the
 * checksum through gk5's public RFC 3961 API (hmac-sha1-des3-kd, key usage
 * 23) and OpenSSL's DES-EDE3-CBC for SND_SEQ and the body.  Every field is
 * the caller's, so tests and fuzz seeds can make tokens gk5 must refuse
 * with a valid checksum (bad padding, wrong direction, any length).
 * Shared by tests/unit/test_rfc1964.c and tests/fuzz/gen_corpus.c.
 */
#ifndef GK5_TESTS_V1FORGE_H
#define GK5_TESTS_V1FORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GK5T_V1_KEY_BYTES 24
#define GK5T_V1_TOK_MIC 0x0101
#define GK5T_V1_TOK_WRAP 0x0201
#define GK5T_V1_SEAL_DES3 0x0002
#define GK5T_V1_SEAL_NONE 0xffff

/* RFC 2743 3.1: the krb5 mechanism OID, DER-encoded (tag, length, value). */
extern const uint8_t gk5t_krb5_oid_der[11];

/* DES-EDE3-CBC in place, no padding (len a multiple of 8); iv NULL: zero. */
bool gk5t_des3_cbc(const uint8_t key[GK5T_V1_KEY_BYTES], const uint8_t *iv,
                   uint8_t *buf, size_t len, int enc);
/* hmac-sha1-des3-kd, usage 23, over hdr8 | rest. */
bool gk5t_v1_cksum(const uint8_t key[GK5T_V1_KEY_BYTES], const uint8_t *hdr8,
                   const uint8_t *rest, size_t rest_len, uint8_t out[20]);
/* A framed token: for a Wrap (GK5T_V1_TOK_WRAP), body is the plaintext
 * confounder | data | pad; for a MIC, the message.  seq and dir form the
 * 8 bytes of SND_SEQ before their encryption.  Returns the token length,
 * 0 if it does not fit in cap or the crypto failed. */
size_t gk5t_v1_encode(const uint8_t key[GK5T_V1_KEY_BYTES], uint16_t tok_id,
                      uint16_t seal_alg, uint32_t seq, const uint8_t dir[4],
                      const uint8_t *body, size_t body_len, uint8_t *out,
                      size_t cap);

#endif /* GK5_TESTS_V1FORGE_H */
