/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * XDR (RFC 4506) on the one bounded reader and writer (bytes.h): what
 * RPC messages, RPCSEC_GSS control messages and the NFSv4 codec need.
 *
 * Same rules as bytes.h: the first error sticks (`bad`), a field read
 * past the end gives 0 or NULL, and the caller checks `bad` once.  Every
 * variable-length item takes a maximum; a length above it, or one whose
 * padding does not fit, is an error like running past the end.  Padding
 * is skipped on reading (its bytes are not checked: RFC 4506 says zero,
 * and peers that send other bytes exist) and written as zeros.
 */
#ifndef GK5_XDR_H
#define GK5_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bytes.h"

/* Padding of n bytes to a multiple of 4. */
static inline size_t gk5i_xdr_padding(size_t n)
{
    return (4 - (n & 3)) & 3;
}

/* Bytes an opaque<> of n bytes takes: length word, bytes, padding. */
static inline size_t gk5i_xdr_opaque_size(size_t n)
{
    return 4 + n + gk5i_xdr_padding(n);
}

/* ---- reading ---- */

static inline uint32_t gk5i_xdr_get_u32(struct gk5i_rd *r)
{
    return gk5i_get_u32be(r);
}

static inline uint64_t gk5i_xdr_get_u64(struct gk5i_rd *r)
{
    return gk5i_get_u64be(r);
}

/* bool: 0 or 1, anything else is an error. */
static inline bool gk5i_xdr_get_bool(struct gk5i_rd *r)
{
    uint32_t v = gk5i_get_u32be(r);

    if (v > 1) {
        r->bad = true;
        return false;
    }
    return v == 1;
}

/* opaque[n] (fixed length): its bytes, a pointer into the input. */
static inline const uint8_t *gk5i_xdr_get_fixed(struct gk5i_rd *r, size_t n)
{
    const uint8_t *at = gk5i_get_bytes(r, n);

    gk5i_skip(r, gk5i_xdr_padding(n));
    return r->bad ? NULL : at;
}

/* opaque<max>: its bytes (a pointer into the input), *n its length (0 on
 * error). */
static inline const uint8_t *gk5i_xdr_get_opaque(struct gk5i_rd *r, size_t max,
                                                 size_t *n)
{
    uint32_t len = gk5i_get_u32be(r);
    const uint8_t *at;

    *n = 0;
    if (len > max) {
        r->bad = true;
        return NULL;
    }
    at = gk5i_xdr_get_fixed(r, len);
    if (at != NULL) {
        *n = len;
    }
    return at;
}

/* opaque<max> copied into out (room for max bytes); *n its length. */
static inline void gk5i_xdr_copy_opaque(struct gk5i_rd *r, void *out,
                                        size_t max, size_t *n)
{
    const uint8_t *at = gk5i_xdr_get_opaque(r, max, n);

    if (at != NULL && *n != 0) {
        memcpy(out, at, *n);
    }
}

/* ---- writing ---- */

static inline void gk5i_xdr_put_u32(struct gk5i_wr *w, uint32_t v)
{
    gk5i_put_u32be(w, v);
}

static inline void gk5i_xdr_put_u64(struct gk5i_wr *w, uint64_t v)
{
    gk5i_put_u64be(w, v);
}

static inline void gk5i_xdr_put_bool(struct gk5i_wr *w, bool v)
{
    gk5i_put_u32be(w, v ? 1u : 0u);
}

/* opaque[n], padded. */
static inline void gk5i_xdr_put_fixed(struct gk5i_wr *w, const void *src,
                                      size_t n)
{
    gk5i_put_bytes(w, src, n);
    gk5i_put_fill(w, 0, gk5i_xdr_padding(n));
}

/* opaque<>: length, bytes, padding.  A length past 32 bits is an error. */
static inline void gk5i_xdr_put_opaque(struct gk5i_wr *w, const void *src,
                                       size_t n)
{
    if (n > UINT32_MAX - 3) {
        w->bad = true;
        return;
    }
    gk5i_put_u32be(w, (uint32_t)n);
    gk5i_xdr_put_fixed(w, src, n);
}

/* string<>: as opaque<>, from a C string. */
static inline void gk5i_xdr_put_string(struct gk5i_wr *w, const char *s)
{
    gk5i_xdr_put_opaque(w, s, strlen(s));
}

#endif /* GK5_XDR_H */
