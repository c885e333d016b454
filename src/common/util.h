/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* Small helpers shared by every layer: wiping, big- and little-endian
 * load/store (the bounded reader and writer are in bytes.h). */
#ifndef GK5_UTIL_H
#define GK5_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <openssl/crypto.h>

#define GK5_HIDDEN __attribute__((visibility("hidden")))
#define GK5_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BITS2OCTETS(b) ((b) / 8)

/* One past the last gk5 error code (enum gk5_err in gk5.h): the size of
 * the error table in src/mech/status.c.  Internal, so that a new code
 * changes no public constant. */
#define GK5I_ERR_COUNT (GK5_ERR_ACCEPTOR_ERROR + 1)

/* The one way gk5 wipes secrets.  glibc's explicit_bzero is a memset the
 * compiler may not remove; OPENSSL_cleanse (3.0, x86-64) stores 8 bytes a
 * loop, 3 to 8 times slower, and wipes are on the per-message path (every
 * released output, every plaintext scratch). */
static inline void zap(void *p, size_t n)
{
    if (p != NULL && n != 0) {
        explicit_bzero(p, n);
    }
}

static inline uint16_t load_be16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}
static inline uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}
static inline uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}
static inline uint16_t load_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 |
           p[0];
}
static inline void store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void store_be64(uint8_t *p, uint64_t v)
{
    store_be32(p, (uint32_t)(v >> 32));
    store_be32(p + 4, (uint32_t)v);
}
static inline void store_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif /* GK5_UTIL_H */
