/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The one bounded byte reader and writer: context buffers (export.c,
 * import_gssd.c), RFC 2743 framing, token headers and `gk5 inspect`.
 *
 * Both keep the first error.  A read or write that would pass the end sets
 * `bad` and moves nothing; from then on every read gives 0 (a pointer:
 * NULL) and every write is dropped, so a parser reads a group of fields and
 * checks `bad` once, at the end or where its answer depends on it.  Fields
 * read before the error keep their values.
 *
 * Everything is static inline: a token header read through a reader of
 * constant length (the 16 octets of an RFC 4121 header) compiles to the
 * plain loads and stores, every bounds check folded away.  For that the
 * accessors test the flag, never the pointer (which the compiler cannot
 * know to be non-NULL).
 */
#ifndef GK5_BYTES_H
#define GK5_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

/* ---- reading ---- */

struct gk5i_rd {
    const uint8_t *p; /* the next byte to read */
    size_t left;      /* bytes p[0..left) may be read */
    bool bad;         /* a read ran past the end */
};

static inline void gk5i_rd_init(struct gk5i_rd *r, const void *p, size_t len)
{
    r->p = p;
    r->left = len;
    r->bad = false;
}

/* Bytes not read yet (0 once bad). */
static inline size_t gk5i_rd_left(const struct gk5i_rd *r)
{
    return r->bad ? 0 : r->left;
}

/* True when every read fitted and nothing is left. */
static inline bool gk5i_rd_at_end(const struct gk5i_rd *r)
{
    return !r->bad && r->left == 0;
}

/* Ends the input n bytes early (a trailer the caller reads on its own);
 * bad if fewer than n are left. */
static inline void gk5i_rd_trim(struct gk5i_rd *r, size_t n)
{
    if (r->bad || r->left < n) {
        r->bad = true;
        return;
    }
    r->left -= n;
}

/* n bytes, a pointer into the input (no copy); NULL past the end. */
static inline const uint8_t *gk5i_get_bytes(struct gk5i_rd *r, size_t n)
{
    const uint8_t *at = r->p;

    if (r->bad || r->left < n) {
        r->bad = true;
        return NULL;
    }
    r->p += n;
    r->left -= n;
    return at;
}

static inline void gk5i_skip(struct gk5i_rd *r, size_t n)
{
    (void)gk5i_get_bytes(r, n);
}

/* n bytes into out; past the end, out is zeroed. */
static inline void gk5i_copy_bytes(struct gk5i_rd *r, void *out, size_t n)
{
    const uint8_t *at = gk5i_get_bytes(r, n);

    if (!r->bad) {
        memcpy(out, at, n);
    } else {
        memset(out, 0, n); /* not a wipe: the value read */
    }
}

/* One accessor per width and byte order, each a bounds check and a load
 * (the writer's: a bounds check and a store); spelled out rather than
 * stamped from a macro, so each reads as what it is. */
static inline uint8_t gk5i_get_u8(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 1);

    return r->bad ? 0 : at[0];
}

static inline uint16_t gk5i_get_u16be(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 2);

    return r->bad ? 0 : load_be16(at);
}

static inline uint32_t gk5i_get_u32be(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 4);

    return r->bad ? 0 : load_be32(at);
}

static inline uint64_t gk5i_get_u64be(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 8);

    return r->bad ? 0 : load_be64(at);
}

/* RFC 1964 writes SGN_ALG and SEAL_ALG little-endian. */
static inline uint16_t gk5i_get_u16le(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 2);

    return r->bad ? 0 : load_le16(at);
}

/* The Windows PAC (MS-PAC 2.3-2.7) is little-endian throughout. */
static inline uint32_t gk5i_get_u32le(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 4);

    return r->bad ? 0 : load_le32(at);
}

static inline uint64_t gk5i_get_u64le(struct gk5i_rd *r)
{
    const uint8_t *at = gk5i_get_bytes(r, 8);

    return r->bad ? 0 : (uint64_t)load_le32(at + 4) << 32 | load_le32(at);
}

/* The rpc.gssd buffer is in the writer's host byte order. */
static inline uint32_t gk5i_get_u32host(struct gk5i_rd *r)
{
    uint32_t v;

    gk5i_copy_bytes(r, &v, sizeof(v));
    return v;
}

static inline uint64_t gk5i_get_u64host(struct gk5i_rd *r)
{
    uint64_t v;

    gk5i_copy_bytes(r, &v, sizeof(v));
    return v;
}

/* ---- writing ---- */

struct gk5i_wr {
    uint8_t *p;  /* the next byte to write */
    size_t left; /* room p[0..left) */
    bool bad;    /* a write did not fit */
};

static inline void gk5i_wr_init(struct gk5i_wr *w, void *p, size_t len)
{
    w->p = p;
    w->left = len;
    w->bad = false;
}

/* n bytes of room to fill now or later; NULL if they do not fit. */
static inline uint8_t *gk5i_wr_reserve(struct gk5i_wr *w, size_t n)
{
    uint8_t *at = w->p;

    if (w->bad || w->left < n) {
        w->bad = true;
        return NULL;
    }
    w->p += n;
    w->left -= n;
    return at;
}

static inline void gk5i_put_bytes(struct gk5i_wr *w, const void *src, size_t n)
{
    uint8_t *at = gk5i_wr_reserve(w, n);

    if (!w->bad && n != 0) {
        memcpy(at, src, n);
    }
}

/* n copies of byte (filler). */
static inline void gk5i_put_fill(struct gk5i_wr *w, uint8_t byte, size_t n)
{
    uint8_t *at = gk5i_wr_reserve(w, n);

    if (!w->bad) {
        memset(at, byte, n);
    }
}

static inline void gk5i_put_u8(struct gk5i_wr *w, uint8_t v)
{
    uint8_t *at = gk5i_wr_reserve(w, 1);

    if (!w->bad) {
        at[0] = v;
    }
}

static inline void gk5i_put_u16be(struct gk5i_wr *w, uint16_t v)
{
    uint8_t *at = gk5i_wr_reserve(w, 2);

    if (!w->bad) {
        store_be16(at, v);
    }
}

static inline void gk5i_put_u32be(struct gk5i_wr *w, uint32_t v)
{
    uint8_t *at = gk5i_wr_reserve(w, 4);

    if (!w->bad) {
        store_be32(at, v);
    }
}

static inline void gk5i_put_u64be(struct gk5i_wr *w, uint64_t v)
{
    uint8_t *at = gk5i_wr_reserve(w, 8);

    if (!w->bad) {
        store_be64(at, v);
    }
}

static inline void gk5i_put_u16le(struct gk5i_wr *w, uint16_t v)
{
    uint8_t *at = gk5i_wr_reserve(w, 2);

    if (!w->bad) {
        store_le16(at, v);
    }
}

/* ---- writing backwards ---- */

/*
 * The DER encoders' writer (src/der): DER puts every length before the
 * contents it measures, so the encoders write the last byte first and a
 * header goes down once its contents are written and counted.
 *
 * With no buffer it only counts; with one, it fills base[cap - len, cap).
 * A put that does not fit sets `bad` and is dropped, but `len` goes on
 * counting, so the same walk that found no room tells the caller how much
 * it needs (a count that would wrap size_t also sets `bad`).
 */
struct gk5i_bwr {
    uint8_t *base; /* the buffer; NULL: count only */
    size_t cap;    /* base[0..cap) */
    size_t len;    /* bytes put so far, the last at base[cap - 1] */
    bool bad;      /* a put did not fit, or len would wrap */
};

static inline void gk5i_bwr_init(struct gk5i_bwr *w, void *base, size_t cap)
{
    w->base = base;
    w->cap = base == NULL ? 0 : cap;
    w->len = 0;
    w->bad = false;
}

/* The n bytes in front of what was put so far, to fill now; NULL when
 * only counting or when they do not fit. */
static inline uint8_t *gk5i_bwr_reserve(struct gk5i_bwr *w, size_t n)
{
    if (n > SIZE_MAX - w->len) {
        w->bad = true;
        return NULL;
    }
    w->len += n;
    if (w->base == NULL) {
        return NULL;
    }
    if (w->bad || w->len > w->cap) {
        w->bad = true;
        return NULL;
    }
    return w->base + (w->cap - w->len);
}

static inline void gk5i_bwr_put_bytes(struct gk5i_bwr *w, const void *src,
                                      size_t n)
{
    uint8_t *at = gk5i_bwr_reserve(w, n);

    if (at != NULL && n != 0) {
        memcpy(at, src, n);
    }
}

static inline void gk5i_bwr_put_u8(struct gk5i_bwr *w, uint8_t v)
{
    uint8_t *at = gk5i_bwr_reserve(w, 1);

    if (at != NULL) {
        at[0] = v;
    }
}

/* The bytes put, base[cap - len, cap); NULL when counting or bad. */
static inline uint8_t *gk5i_bwr_data(const struct gk5i_bwr *w)
{
    if (w->base == NULL || w->bad) {
        return NULL;
    }
    return w->base + (w->cap - w->len);
}

#endif /* GK5_BYTES_H */
