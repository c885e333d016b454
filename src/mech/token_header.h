/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The headers of the per-message tokens, read and written as the bytes
 * say, without judging them: RFC 4121 4.2.6 (rfc4121_tokens.c) and RFC
 * 1964 1.2 (rfc1964_tokens.c).  The token layers check the decoded fields
 * against their context; `gk5 inspect` decodes with the same functions and
 * describes what it finds.  Static inline: the RFC 4121 header is read and
 * written on every message.
 */
#ifndef GK5_TOKEN_HEADER_H
#define GK5_TOKEN_HEADER_H

#include <stdint.h>

#include "../common/bytes.h"

/* ---- RFC 4121 4.2.6 ---- */

/* TOK_ID (4.2.6.1 MIC, 4.2.6.2 Wrap) */
#define TOK_ID_CFX_MIC 0x0404u
#define TOK_ID_CFX_WRAP 0x0504u
/* 4.2.2: Flags */
#define CFX_FLAG_SENT_BY_ACCEPTOR 0x01u
#define CFX_FLAG_SEALED 0x02u
#define CFX_FLAG_ACCEPTOR_SUBKEY 0x04u
#define CFX_FLAGS_KNOWN 0x07u
/* 4.2.6: every token starts with a 16-octet header; the offsets of its
 * fields (a MIC has filler octets 3..7 where a Wrap has filler, EC, RRC). */
#define CFX_HDR_LEN 16u
#define CFX_OFF_FLAGS 2u
#define CFX_OFF_FILLER 3u
#define CFX_OFF_EC 4u
#define CFX_OFF_RRC 6u
#define CFX_OFF_SEQ 8u

/* The header's fields as sent.  In a MIC, filler, ec and rrc hold the five
 * filler octets (all 0xff when well-formed). */
struct gk5i_cfx_header {
    uint16_t tok_id;
    uint8_t flags;
    uint8_t filler;
    uint16_t ec;
    uint16_t rrc;
    uint64_t seq; /* SND_SEQ */
};

/* Reads the 16-octet header at r (fields past the end are 0: r->bad). */
static inline void gk5i_cfx_get_header(struct gk5i_rd *r,
                                       struct gk5i_cfx_header *h)
{
    h->tok_id = gk5i_get_u16be(r);
    h->flags = gk5i_get_u8(r);
    h->filler = gk5i_get_u8(r);
    h->ec = gk5i_get_u16be(r);
    h->rrc = gk5i_get_u16be(r);
    h->seq = gk5i_get_u64be(r);
}

static inline void gk5i_cfx_put_header(struct gk5i_wr *w,
                                       const struct gk5i_cfx_header *h)
{
    gk5i_put_u16be(w, h->tok_id);
    gk5i_put_u8(w, h->flags);
    gk5i_put_u8(w, h->filler);
    gk5i_put_u16be(w, h->ec);
    gk5i_put_u16be(w, h->rrc);
    gk5i_put_u64be(w, h->seq);
}

/* A MIC's five filler octets (3..7), in order. */
static inline void gk5i_cfx_mic_filler(const struct gk5i_cfx_header *h,
                                       uint8_t fill[5])
{
    fill[0] = h->filler;
    store_be16(fill + 1, h->ec);
    store_be16(fill + 3, h->rrc);
}

/* ---- RFC 1964 1.2 (and MIT's DES3 values) ---- */

/* TOK_ID: 1.2.1 MIC, 1.2.2 Wrap, 1.2.3 context deletion */
#define TOK_ID_V1_MIC 0x0101u
#define TOK_ID_V1_WRAP 0x0201u
#define TOK_ID_V1_DELETE 0x0102u
/* SGN_ALG and SEAL_ALG values (little-endian on the wire) */
#define V1_SGN_ALG_HMAC_SHA1_DES3_KD 0x0004u
#define V1_SEAL_ALG_DES3KD 0x0002u
#define V1_SEAL_ALG_NONE 0xffffu
#define V1_FILLER 0xffffu
/* Bytes 0..7 (TOK_ID, SGN_ALG, SEAL_ALG, filler) and their offsets. */
#define V1_HDR_LEN 8u
#define V1_OFF_SGN_ALG 2u
#define V1_OFF_SEAL_ALG 4u
#define V1_OFF_FILLER 6u
/* Then SND_SEQ (encrypted), SGN_CKSUM and, in a Wrap, the confounder. */
#define V1_SEQ_BYTES 8u
#define V1_CONF_BYTES 8u

/* Bytes 0..7 as sent.  A MIC (and a deletion token) has filler ff ff in
 * the SEAL_ALG field. */
struct gk5i_v1_header {
    uint16_t tok_id; /* big-endian, as the bytes read: 01 01 = 0x0101 */
    uint16_t sgn_alg;
    uint16_t seal_alg;
    uint16_t filler; /* big-endian: ff ff */
};

/* Reads bytes 0..7 at r (fields past the end are 0: r->bad). */
static inline void gk5i_v1_get_header(struct gk5i_rd *r,
                                      struct gk5i_v1_header *h)
{
    h->tok_id = gk5i_get_u16be(r);
    h->sgn_alg = gk5i_get_u16le(r);
    h->seal_alg = gk5i_get_u16le(r);
    h->filler = gk5i_get_u16be(r);
}

static inline void gk5i_v1_put_header(struct gk5i_wr *w,
                                      const struct gk5i_v1_header *h)
{
    gk5i_put_u16be(w, h->tok_id);
    gk5i_put_u16le(w, h->sgn_alg);
    gk5i_put_u16le(w, h->seal_alg);
    gk5i_put_u16be(w, h->filler);
}

#endif /* GK5_TOKEN_HEADER_H */
