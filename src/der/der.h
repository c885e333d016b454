/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Strict DER primitives (X.690 10, 8) for the RFC 4120 codec, on the
 * bounded reader and the backwards writer of src/common/bytes.h.
 *
 * Reading keeps bytes.h's sticky error: anything that is not strict DER
 * (a wrong tag, a length that is not minimal, an INTEGER out of the
 * field's range) sets the reader's `bad` just as running past the end
 * does, and a decoder checks the flag once.  A constructed value is read
 * through a reader of its own (gk5i_der_enter), and gk5i_der_leave hands
 * its state back: bad inside, or bytes left over, makes the outer reader
 * bad too.
 *
 * Every tag RFC 4120 uses for these messages fits one octet (numbers up
 * to 30), so a multi-octet tag never matches the one wanted and is
 * refused like any other wrong tag.
 */
#ifndef GK5_DER_DER_H
#define GK5_DER_DER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/bytes.h"

#define GK5I_DER_INTEGER 0x02
#define GK5I_DER_BIT_STRING 0x03
#define GK5I_DER_OCTET_STRING 0x04
#define GK5I_DER_GENERALIZED_TIME 0x18
#define GK5I_DER_GENERAL_STRING 0x1b
#define GK5I_DER_SEQUENCE 0x30 /* SEQUENCE and SEQUENCE OF: constructed */
/* [n] EXPLICIT and [APPLICATION n]: always constructed in RFC 4120. */
#define GK5I_DER_CTX(n) ((uint8_t)(0xa0 | (n)))
#define GK5I_DER_APP(n) ((uint8_t)(0x60 | (n)))

/* ---- reading ---- */

static inline void gk5i_der_refuse(struct gk5i_rd *r)
{
    r->bad = true;
}

/* True when the next value's tag is `tag` (an OPTIONAL field is there). */
static inline bool gk5i_der_peek(const struct gk5i_rd *r, uint8_t tag)
{
    return !r->bad && r->left > 0 && r->p[0] == tag;
}

/* Reads the identifier and length octets of a value that must have this
 * tag; returns the contents' length, checked to fit what is left.  X.690
 * 10.1: definite form only, and the fewest length octets (short form below
 * 128, no leading zero octet in the long form). */
static inline size_t gk5i_der_header(struct gk5i_rd *r, uint8_t tag)
{
    uint8_t t = gk5i_get_u8(r);
    uint8_t first = gk5i_get_u8(r);
    size_t len = first;

    if (r->bad || t != tag) {
        gk5i_der_refuse(r);
        return 0;
    }
    if (first & 0x80) {
        size_t n = first & 0x7f; /* 0: the indefinite form */

        /* Four octets reach 4 GiB, far past any message gk5 reads. */
        if (n == 0 || n > 4) {
            gk5i_der_refuse(r);
            return 0;
        }
        len = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t b = gk5i_get_u8(r);

            if (i == 0 && b == 0) {
                gk5i_der_refuse(r);
            }
            len = len << 8 | b;
        }
        if (len < 0x80) {
            gk5i_der_refuse(r);
        }
    }
    if (r->bad || len > r->left) {
        gk5i_der_refuse(r);
        return 0;
    }
    return len;
}

/* Enters a constructed value: *in reads its contents, and r moves past it
 * (a bad r gives a bad *in). */
static inline void gk5i_der_enter(struct gk5i_rd *r, uint8_t tag,
                                  struct gk5i_rd *in)
{
    size_t len = gk5i_der_header(r, tag);
    const uint8_t *at = gk5i_get_bytes(r, len);

    gk5i_rd_init(in, at, len);
    in->bad = r->bad;
}

/* Leaves it: anything wrong inside, or left unread, is wrong outside. */
static inline void gk5i_der_leave(struct gk5i_rd *r, const struct gk5i_rd *in)
{
    if (!gk5i_rd_at_end(in)) {
        gk5i_der_refuse(r);
    }
}

/* A primitive value's contents (a view into the input). */
static inline const uint8_t *gk5i_der_get_prim(struct gk5i_rd *r, uint8_t tag,
                                               size_t *len)
{
    size_t n = gk5i_der_header(r, tag);
    const uint8_t *at = gk5i_get_bytes(r, n);

    *len = r->bad ? 0 : n;
    return at;
}

/* An INTEGER in [min, max].  X.690 8.3.2: at least one contents octet and
 * the first nine bits never all equal (no 0x00 before a clear top bit, no
 * 0xff before a set one).  Eight octets hold every range RFC 4120 asks
 * for, so a longer INTEGER is out of range whatever its value. */
static inline int64_t gk5i_der_get_int(struct gk5i_rd *r, int64_t min,
                                       int64_t max)
{
    size_t n;
    const uint8_t *c = gk5i_der_get_prim(r, GK5I_DER_INTEGER, &n);
    uint64_t u;
    int64_t v;

    if (r->bad || n == 0 || n > 8) {
        gk5i_der_refuse(r);
        return 0;
    }
    if (n > 1 &&
        ((c[0] == 0x00 && !(c[1] & 0x80)) || (c[0] == 0xff && (c[1] & 0x80)))) {
        gk5i_der_refuse(r);
        return 0;
    }
    u = (c[0] & 0x80) ? UINT64_MAX : 0; /* the sign, extended */
    for (size_t i = 0; i < n; i++) {
        u = u << 8 | c[i];
    }
    /* Two's complement to int64_t without an implementation-defined
     * conversion. */
    v = u > (uint64_t)INT64_MAX ? -(int64_t)~u - 1 : (int64_t)u;
    if (v < min || v > max) {
        gk5i_der_refuse(r);
        return 0;
    }
    return v;
}

/* ---- writing (backwards: contents first, then their header) ---- */

/* The identifier and length octets of a value whose contents, len bytes,
 * are already put. */
static inline void gk5i_der_put_header(struct gk5i_bwr *w, uint8_t tag,
                                       size_t len)
{
    if (len < 0x80) {
        gk5i_bwr_put_u8(w, (uint8_t)len);
    } else {
        uint8_t n = 0;

        for (size_t l = len; l != 0; l >>= 8) {
            gk5i_bwr_put_u8(w, (uint8_t)l);
            n++;
        }
        gk5i_bwr_put_u8(w, (uint8_t)(0x80 | n));
    }
    gk5i_bwr_put_u8(w, tag);
}

/* Closes a constructed value whose contents began when w->len was mark. */
static inline void gk5i_der_put_close(struct gk5i_bwr *w, uint8_t tag,
                                      size_t mark)
{
    gk5i_der_put_header(w, tag, w->len - mark);
}

static inline void gk5i_der_put_prim(struct gk5i_bwr *w, uint8_t tag,
                                     const uint8_t *p, size_t len)
{
    gk5i_bwr_put_bytes(w, p, len);
    gk5i_der_put_header(w, tag, len);
}

/* An INTEGER in the fewest octets that hold v in two's complement. */
static inline void gk5i_der_put_int(struct gk5i_bwr *w, int64_t v)
{
    uint64_t u = (uint64_t)v;
    size_t n = 1;

    while (n < 8) {
        int64_t half = (int64_t)1 << (8 * n - 1);

        if (v >= -half && v < half) {
            break;
        }
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        gk5i_bwr_put_u8(w, (uint8_t)(u >> (8 * i)));
    }
    gk5i_der_put_header(w, GK5I_DER_INTEGER, n);
}

#endif /* GK5_DER_DER_H */
