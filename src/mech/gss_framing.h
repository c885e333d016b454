/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2743 3.1: the framing around an RFC 1964 token,
 *
 *   0x60 | DER definite length | 06 09 2a 86 48 86 f7 12 01 02 02 | token
 *
 * (the [APPLICATION 0] tag, the length of all that follows, the krb5
 * mech OID 1.2.840.113554.1.2.2 of RFC 1964 1).  Built and checked here
 * only: rfc1964_tokens.c frames and unframes with it, and `gk5 inspect`
 * reads the length with gk5i_der_get_length().
 */
#ifndef GK5_GSS_FRAMING_H
#define GK5_GSS_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gk5/gk5.h>
#include "../common/bytes.h"

/* The krb5 mech OID, DER (tag, length, contents): 11 bytes. */
#define GK5I_FRAME_OID_BYTES 11u
/* Lengths up to 2^32 - 1 (four length octets), as MIT. */
#define GK5I_FRAME_DER_LEN_MAX 0xffffffffu

/* X.690 8.1.3: a definite length as it was read. */
struct gk5i_der_len {
    size_t len;    /* its value */
    size_t octets; /* the octets that encode it, the first one included */
    bool minimal;  /* DER's shortest form (8.1.3.2, 10.1) */
};

enum gk5i_der_status {
    GK5I_DER_OK,
    GK5I_DER_TRUNCATED,  /* the input ends inside the length */
    GK5I_DER_INDEFINITE, /* 0x80: not DER */
    GK5I_DER_TOO_LONG,   /* more than max_octets length octets */
};

/*
 * X.690 8.1.3: reads a definite length at r of at most max_octets octets
 * after the first (max_octets <= sizeof(size_t)).  The checks go in this
 * order: the first octet is there, not indefinite, not longer than
 * max_octets, its octets are there.  out->octets is set once the first
 * octet is read (GK5I_DER_TOO_LONG included); out->len and out->minimal
 * only on GK5I_DER_OK.
 */
GK5_HIDDEN enum gk5i_der_status gk5i_der_get_length(struct gk5i_rd *r,
                                                    size_t max_octets,
                                                    struct gk5i_der_len *out);

/* The mechanism OID in the framing: RFC 1964's krb5 OID, or Microsoft's
 * 1.2.840.48018.1.2.2, which only the acceptor takes (and answers with). */
enum gk5i_frame_mech {
    GK5I_MECH_KRB5,
    GK5I_MECH_MS_KRB5,
};

/* The whole framed size of an inner token (TOK_ID onward) of inner
 * bytes; 0 if it cannot be framed (longer than GK5I_FRAME_DER_LEN_MAX
 * allows). */
GK5_HIDDEN size_t gk5i_frame_token_bytes(size_t inner);

/* The largest inner token whose framed size is at most out_max (0 if not
 * even an empty one fits). */
GK5_HIDDEN size_t gk5i_frame_max_inner(size_t out_max);

/* Writes 0x60, the DER length and the OID for an inner token of inner
 * bytes at p (gk5i_frame_token_bytes(inner) - inner bytes of room);
 * returns the offset of the inner token. */
GK5_HIDDEN size_t gk5i_frame_put(uint8_t *p, size_t inner);
/* The same with the OID of mech. */
GK5_HIDDEN size_t gk5i_frame_put_mech(uint8_t *p, size_t inner,
                                      enum gk5i_frame_mech mech);

/*
 * The framing on receive.  p/avail: the contiguous bytes that start the
 * token; total: the token's length over all its buffers (total >= avail).
 * *inner = the offset of the inner token in p.  Returns GK5_OK,
 * GK5_ERR_TOKEN_TRUNCATED (the input ends inside the framing, or the DER
 * length says more than total), GK5_ERR_TOKEN_TRAILING (bytes after the
 * length's end) or GK5_ERR_TOKEN_FRAMING (not 0x60, not a DER length of
 * one to four octets in its shortest form, not the krb5 OID).
 */
GK5_HIDDEN GK5_WUR uint32_t gk5i_frame_parse(const uint8_t *p, size_t avail,
                                             size_t total, size_t *inner);

/* The same, taking either mechanism OID and saying which in *mech. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_frame_parse_mech(const uint8_t *p,
                                                  size_t avail, size_t total,
                                                  size_t *inner,
                                                  enum gk5i_frame_mech *mech);

#endif /* GK5_GSS_FRAMING_H */
