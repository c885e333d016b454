/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * RFC 2104 HMAC with no heap allocation per message.
 *
 * OpenSSL 3.0's EVP_MAC HMAC restarts a keyed context by duplicating its
 * digest contexts (EVP_MD_CTX_copy_ex -> the provider's dupctx): two heap
 * allocations per message; and EVP_DigestInit_ex2 re-creates the provider
 * context on every call, so no EVP digest route avoids the allocation
 * either.  HMAC is therefore computed here on the low-level SHA1, SHA256
 * and SHA384 state structs, which OpenSSL 3.0 still exports (deprecated;
 * they run the same assembly as its provider): the states after the
 * K XOR ipad and K XOR opad blocks (RFC 2104 2) are made once per key and
 * copied by value per message, which also saves the two compression-
 * function calls a restart would cost.  With camellia.c this is where gk5
 * uses deprecated OpenSSL API; with an OpenSSL built without it
 * (OPENSSL_NO_DEPRECATED_3_0) fast.h leaves GK5_HAVE_LOWLEVEL_HMAC
 * undefined and mac.c runs HMAC through EVP_MAC like CMAC.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <string.h>

#include "fast.h"

#ifdef GK5_HAVE_LOWLEVEL_HMAC
#include <openssl/crypto.h>
#include <openssl/sha.h>
#endif

#ifdef GK5_HAVE_LOWLEVEL_HMAC

enum hmac_md { HMAC_MD_SHA1, HMAC_MD_SHA256, HMAC_MD_SHA384 };

/* One keyed HMAC, used by one thread at a time (like the ukey it is in).
 * It holds three digest states of its own digest's size (SHA_CTX,
 * SHA256_CTX or SHA512_CTX -- SHA-384 runs on the SHA-512 state), one
 * after the other in st: the state after K ^ ipad, the state after
 * K ^ opad, and the message being MACed.  Sized by the digest, an HMAC-SHA1
 * key is 312 bytes rather than three of the largest state (672). */
struct gk5i_hmac {
    enum hmac_md md;
    size_t block_len; /* B: the digest's block, 64 or 128 bytes */
    size_t out_len;   /* L: 20, 32 or 48 bytes */
    size_t st_len;    /* the size of one state (a multiple of 8) */
    uint64_t st[];    /* inner | outer | work */
};

static void *st_inner(struct gk5i_hmac *h)
{
    return h->st;
}

static void *st_outer(struct gk5i_hmac *h)
{
    return (uint8_t *)h->st + h->st_len;
}

static void *st_work(struct gk5i_hmac *h)
{
    return (uint8_t *)h->st + 2 * h->st_len;
}

static size_t hmac_size(const struct gk5i_hmac *h)
{
    return sizeof(*h) + 3 * h->st_len;
}

static bool md_init(enum hmac_md md, void *st)
{
    switch (md) {
    case HMAC_MD_SHA1:
        return SHA1_Init(st) == 1;
    case HMAC_MD_SHA256:
        return SHA256_Init(st) == 1;
    case HMAC_MD_SHA384:
        return SHA384_Init(st) == 1;
    }
    return false;
}

static bool md_update(enum hmac_md md, void *st, const void *p, size_t n)
{
    switch (md) {
    case HMAC_MD_SHA1:
        return SHA1_Update(st, p, n) == 1;
    case HMAC_MD_SHA256:
        return SHA256_Update(st, p, n) == 1;
    case HMAC_MD_SHA384:
        return SHA384_Update(st, p, n) == 1;
    }
    return false;
}

static bool md_final(enum hmac_md md, void *st, uint8_t *out)
{
    switch (md) {
    case HMAC_MD_SHA1:
        return SHA1_Final(out, st) == 1;
    case HMAC_MD_SHA256:
        return SHA256_Final(out, st) == 1;
    case HMAC_MD_SHA384:
        return SHA384_Final(out, st) == 1;
    }
    return false;
}

/*
 * RFC 2104 2: H(K ^ opad, H(K ^ ipad, text)) with K zero-padded to B
 * bytes.  Kerberos keys (at most 32 bytes) are never longer than B, so
 * the hash-the-long-key rule is not needed: such a key is refused.
 */
uint32_t gk5i_hmac_new(const char *digest, const uint8_t *key, size_t key_len,
                       struct gk5i_hmac **out)
{
    struct gk5i_hmac shape, *h = NULL;
    uint8_t pad[SHA512_CBLOCK];
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    *out = NULL;
    memset(&shape, 0, sizeof(shape));
    if (digest == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    } else if (strcmp(digest, "SHA1") == 0) {
        shape.md = HMAC_MD_SHA1;
        shape.block_len = SHA_CBLOCK;
        shape.out_len = SHA_DIGEST_LENGTH;
        shape.st_len = sizeof(SHA_CTX);
    } else if (strcmp(digest, "SHA256") == 0) {
        shape.md = HMAC_MD_SHA256;
        shape.block_len = SHA256_CBLOCK;
        shape.out_len = SHA256_DIGEST_LENGTH;
        shape.st_len = sizeof(SHA256_CTX);
    } else if (strcmp(digest, "SHA384") == 0) {
        shape.md = HMAC_MD_SHA384;
        shape.block_len = SHA512_CBLOCK;
        shape.out_len = SHA384_DIGEST_LENGTH;
        shape.st_len = sizeof(SHA512_CTX);
    } else {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    shape.st_len = (shape.st_len + 7) / 8 * 8;
    h = OPENSSL_zalloc(hmac_size(&shape));
    if (h == NULL) {
        return GK5_ERR_NOMEM;
    }
    *h = shape;
    if (key_len > h->block_len || (key == NULL && key_len != 0)) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    memset(pad, 0x36, h->block_len);
    for (size_t i = 0; i < key_len; i++) {
        pad[i] ^= key[i];
    }
    if (!md_init(h->md, st_inner(h)) ||
        !md_update(h->md, st_inner(h), pad, h->block_len)) {
        goto cleanup;
    }
    memset(pad, 0x5c, h->block_len);
    for (size_t i = 0; i < key_len; i++) {
        pad[i] ^= key[i];
    }
    if (!md_init(h->md, st_outer(h)) ||
        !md_update(h->md, st_outer(h), pad, h->block_len)) {
        goto cleanup;
    }
    *out = h;
    h = NULL;
    ret = GK5_OK;

cleanup:
    zap(pad, sizeof(pad));
    gk5i_hmac_free(h);
    return ret;
}

uint32_t gk5i_hmac_dup(const struct gk5i_hmac *src, struct gk5i_hmac **out)
{
    *out = NULL;
    if (src == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = OPENSSL_malloc(hmac_size(src));
    if (*out == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(*out, src, hmac_size(src));
    return GK5_OK;
}

void gk5i_hmac_free(struct gk5i_hmac *h)
{
    if (h != NULL) {
        OPENSSL_clear_free(h, hmac_size(h));
    }
}

size_t gk5i_hmac_length(const struct gk5i_hmac *h)
{
    return h->out_len;
}

/* The inner hash starts from the saved K ^ ipad state. */
void gk5i_hmac_init(struct gk5i_hmac *h)
{
    memcpy(st_work(h), st_inner(h), h->st_len);
}

uint32_t gk5i_hmac_update(struct gk5i_hmac *h, const void *p, size_t n)
{
    return md_update(h->md, st_work(h), p, n) ? GK5_OK : GK5_ERR_CRYPTO_BACKEND;
}

/* out receives L bytes (at most GK5_MAX_MAC_BYTES). */
uint32_t gk5i_hmac_final(struct gk5i_hmac *h, uint8_t *out, size_t *out_len)
{
    uint8_t ihash[SHA512_DIGEST_LENGTH];
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    *out_len = 0;
    if (!md_final(h->md, st_work(h), ihash)) {
        goto cleanup;
    }
    memcpy(st_work(h), st_outer(h), h->st_len);
    if (!md_update(h->md, st_work(h), ihash, h->out_len) ||
        !md_final(h->md, st_work(h), out)) {
        goto cleanup;
    }
    *out_len = h->out_len;
    ret = GK5_OK;

cleanup:
    zap(ihash, sizeof(ihash));
    zap(st_work(h), h->st_len);
    return ret;
}

/* The SHA-256 and SHA-1 hand-overs below look alike but read different
 * OpenSSL structs (SHA256_CTX's h[8], SHA_CTX's h0..h4), so they stay two. */
bool gk5i_hmac_sha256_can(const struct gk5i_hmac *h)
{
    return h->md == HMAC_MD_SHA256;
}

bool gk5i_hmac_sha256_take(struct gk5i_hmac *h, uint32_t st[8])
{
    const SHA256_CTX *c = st_work(h);

    if (h->md != HMAC_MD_SHA256 || c->num != 0) {
        return false;
    }
    memcpy(st, c->h, 8 * sizeof(uint32_t));
    return true;
}

void gk5i_hmac_sha256_give(struct gk5i_hmac *h, const uint32_t st[8],
                           size_t bytes)
{
    SHA256_CTX *c = st_work(h);
    uint64_t bits = ((uint64_t)c->Nh << 32 | c->Nl) + (uint64_t)bytes * 8;

    memcpy(c->h, st, 8 * sizeof(uint32_t));
    c->Nl = (SHA_LONG)bits;
    c->Nh = (SHA_LONG)(bits >> 32);
}

bool gk5i_hmac_sha1_can(const struct gk5i_hmac *h)
{
    return h->md == HMAC_MD_SHA1;
}

bool gk5i_hmac_sha1_take(struct gk5i_hmac *h, uint32_t st[5])
{
    const SHA_CTX *c = st_work(h);

    if (h->md != HMAC_MD_SHA1 || c->num != 0) {
        return false;
    }
    st[0] = c->h0;
    st[1] = c->h1;
    st[2] = c->h2;
    st[3] = c->h3;
    st[4] = c->h4;
    return true;
}

/* FIPS 180-4 5.1.1: the message length in bits is counted in Nh:Nl. */
void gk5i_hmac_sha1_give(struct gk5i_hmac *h, const uint32_t st[5],
                         size_t bytes)
{
    SHA_CTX *c = st_work(h);
    uint64_t bits = ((uint64_t)c->Nh << 32 | c->Nl) + (uint64_t)bytes * 8;

    c->h0 = st[0];
    c->h1 = st[1];
    c->h2 = st[2];
    c->h3 = st[3];
    c->h4 = st[4];
    c->Nl = (SHA_LONG)bits;
    c->Nh = (SHA_LONG)(bits >> 32);
}

#endif /* GK5_HAVE_LOWLEVEL_HMAC */
