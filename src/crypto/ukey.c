/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Prepared keys (gk5_ukey) and everything that runs on them per message:
 * the in-place cipher over scattered segments, MACs over IOVs, keyed
 * checksums, and the dispatch to each family's encrypt/decrypt.
 *
 * A ukey holds its raw subkeys and keys each piece of state on first use
 * (gk5i_ukey_need, cbc_begin), once.  Per message nothing is keyed again: the
 * CBC contexts carry on from the chaining value they are known to hold (struct
 * cbc_pass; EVP_CipherInit_ex2 per message would cost as much as ciphering a
 * few hundred bytes), HMAC starts from its precomputed pad states
 * (rfc2104_hmac.c: OpenSSL 3.0's EVP_MAC HMAC would allocate twice per
 * restart), CMAC is EVP_MAC_init() with a NULL key, which keeps the key.
 * Confounders come from a per-thread pool of RAND_bytes output.  After a key's
 * first message nothing on this path allocates, in gk5 or in OpenSSL.  Where
 * the CPU allows, AES runs on AES-NI with hand-scheduled keys and AES-SHA1
 * sealing runs the CBC and the HMAC in one pass (aesni_sha1_onepass.c).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "crypto_int.h"
#include "profile.h"

/* EVP_CipherUpdate takes an int length: feed long segments in slices. */
#define GK5_MAX_SLICE ((size_t)1 << 30)

/* ---- Making, copying and freeing prepared keys ---- */

/* A CBC cipher context keyed with key for one direction, padding off.
 * (Ciphertext stealing is done over CBC in gk5i_crypt_stream, not with
 * OpenSSL's CTS ciphers: those need the whole message in one call and a
 * re-initialisation per message.) */
static GK5_WUR uint32_t new_cipher_ctx(const char *name, const uint8_t *key,
                                       size_t key_len, int enc,
                                       EVP_CIPHER_CTX **out)
{
    EVP_CIPHER *cipher = NULL;
    EVP_CIPHER_CTX *ctx = NULL;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    *out = NULL;
    cipher = gk5i_cipher_get(name, &owned);
    if (cipher == NULL) {
        goto cleanup;
    }
    if ((size_t)EVP_CIPHER_get_key_length(cipher) != key_len) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    if (!EVP_CipherInit_ex2(ctx, cipher, key, NULL, enc, NULL) ||
        !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
        goto cleanup;
    }
    *out = ctx;
    ctx = NULL;
    ret = GK5_OK;

cleanup:
    EVP_CIPHER_CTX_free(ctx);
    if (owned) {
        EVP_CIPHER_free(cipher);
    }
    return ret;
}

/* HMAC with the row's digest, or CMAC with its CBC cipher, keyed. */
static GK5_WUR uint32_t new_mac_ctx(const struct gk5_enctype *et,
                                    const uint8_t *key, size_t key_len,
                                    EVP_MAC_CTX **out)
{
    EVP_MAC *mac = NULL;
    EVP_MAC_CTX *ctx = NULL;
    OSSL_PARAM params[2];
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;
    bool owned = false;

    *out = NULL;
    if (et->digest != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_DIGEST, (char *)(uintptr_t)et->digest, 0);
    } else {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
    }
    params[1] = OSSL_PARAM_construct_end();
    mac = gk5i_mac_get(et->digest != NULL ? "HMAC" : "CMAC", &owned);
    if (mac == NULL) {
        goto cleanup;
    }
    ctx = EVP_MAC_CTX_new(mac);
    if (ctx == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    if (!EVP_MAC_init(ctx, key, key_len, params)) {
        goto cleanup;
    }
    *out = ctx;
    ctx = NULL;
    ret = GK5_OK;

cleanup:
    EVP_MAC_CTX_free(ctx);
    if (owned) {
        EVP_MAC_free(mac);
    }
    return ret;
}

/* Whether Camellia's CMAC runs on the low-level Camellia now (the
 * fast-path seam) rather than through EVP_MAC. */
static bool cmac_lowlevel(const struct gk5_enctype *et)
{
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    return et->family == GK5I_FAMILY_CAMELLIA && gk5i_fastpaths_on();
#else
    (void)et;
    return false;
#endif
}

/* Keyed in the form a message would use now. */
static bool mac_ready(const struct gk5_enctype *et, const struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (m->hmac != NULL) {
        return true;
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cmac_lowlevel(et)) {
        return m->cmac != NULL;
    }
#else
    (void)et;
#endif
    return m->evp != NULL;
}

static void mac_clear(struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    gk5i_hmac_free(m->hmac);
    m->hmac = NULL;
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    gk5i_camellia_cmac_free(m->cmac);
    m->cmac = NULL;
#endif
    EVP_MAC_CTX_free(m->evp);
    m->evp = NULL;
}

/* Keys m: HMAC from precomputed pads where it can, CMAC on the low-level
 * Camellia where the seam says so, else EVP_MAC. */
static GK5_WUR uint32_t mac_key(const struct gk5_enctype *et,
                                const uint8_t *key, size_t key_len,
                                struct gk5i_mac *m)
{
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (et->digest != NULL) {
        return gk5i_hmac_new(et->digest, key, key_len, &m->hmac);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cmac_lowlevel(et)) {
        return gk5i_camellia_cmac_new(key, key_len, &m->cmac);
    }
#endif
    return new_mac_ctx(et, key, key_len, &m->evp);
}

/* The ukey's state, none of it keyed yet: sk is borrowed (it must outlive
 * the ukey) or, with own, copied. */
static GK5_WUR uint32_t ukey_make(const struct gk5_enctype *et,
                                  const struct gk5i_subkeys *sk, bool own,
                                  gk5_ukey **out)
{
    gk5_ukey *uk = NULL;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (et == NULL || et->profile == NULL || sk == NULL ||
        et->state != GK5_ENCTYPE_SUPPORTED) {
        goto cleanup;
    }
    if (sk->ke_len > sizeof(sk->ke) || sk->ki_len > sizeof(sk->ki) ||
        sk->kc_len > sizeof(sk->kc) ||
        (sk->ke_len == 0 && sk->ki_len == 0 && sk->kc_len == 0)) {
        goto cleanup;
    }
    if (sk->ke_len != 0 && sk->ke_len != et->key_bytes) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
        goto cleanup;
    }
    uk = OPENSSL_zalloc(sizeof(*uk));
    if (uk == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    uk->et = et;
    uk->sk = sk;
    uk->aes = et->family == GK5I_FAMILY_AES_SHA1 ||
              et->family == GK5I_FAMILY_AES_SHA2;
    uk->camellia = et->family == GK5I_FAMILY_CAMELLIA;
    if (own) {
        uk->sk_own = OPENSSL_malloc(sizeof(*uk->sk_own));
        if (uk->sk_own == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        *uk->sk_own = *sk;
        uk->sk = uk->sk_own;
    }
    *out = uk;
    uk = NULL;
    ret = GK5_OK;

cleanup:
    gk5i_ukey_free(uk);
    return ret;
}

uint32_t gk5i_ukey_new(const struct gk5_enctype *et,
                       const struct gk5i_subkeys *sk, gk5_ukey **out)
{
    return ukey_make(et, sk, true, out);
}

uint32_t gk5i_ukey_new_borrowed(const struct gk5_enctype *et,
                                const struct gk5i_subkeys *sk, gk5_ukey **out)
{
    return ukey_make(et, sk, false, out);
}

/* Another ukey for another thread, from the same subkeys: it keys its own
 * state on first use (the state is not copied: its confounders, chaining
 * values and MAC states belong to one thread). */
uint32_t gk5i_ukey_dup(const gk5_ukey *src, gk5_ukey **out)
{
    if (out != NULL) {
        *out = NULL;
    }
    if (src == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return ukey_make(src->et, src->sk, true, out);
}

/* OpenSSL's free functions cleanse the key schedules and MAC states. */
void gk5i_ukey_free(gk5_ukey *uk)
{
    if (uk == NULL) {
        return;
    }
    EVP_CIPHER_CTX_free(uk->cbc_enc);
    EVP_CIPHER_CTX_free(uk->cbc_dec);
    mac_clear(&uk->ki);
    mac_clear(&uk->kc);
#ifdef GK5_HAVE_ONEPASS
    gk5i_aes_key_free(uk->aes_enc);
    gk5i_aes_key_free(uk->aes_dec);
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    gk5i_camellia_key_free(uk->cam);
#endif
    if (uk->sk_own != NULL) {
        OPENSSL_clear_free(uk->sk_own, sizeof(*uk->sk_own));
    }
    OPENSSL_clear_free(uk, sizeof(*uk));
}

uint32_t gk5i_ukey_need(gk5_ukey *uk, unsigned what)
{
    const struct gk5i_subkeys *sk;
    uint32_t ret = GK5_OK;

    if (uk == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    sk = uk->sk;
    if ((what & GK5I_NEED_KI) != 0 && !mac_ready(uk->et, &uk->ki)) {
        ret = sk->ki_len == 0 ? GK5_ERR_INVALID_ARGUMENT
                              : mac_key(uk->et, sk->ki, sk->ki_len, &uk->ki);
    }
    if (ret == GK5_OK && (what & GK5I_NEED_KC) != 0 &&
        !mac_ready(uk->et, &uk->kc)) {
        ret = sk->kc_len == 0 ? GK5_ERR_INVALID_ARGUMENT
                              : mac_key(uk->et, sk->kc, sk->kc_len, &uk->kc);
    }
    return ret;
}

static atomic_bool g_fast_off;

bool gk5i_fastpaths_on(void)
{
    return !atomic_load_explicit(&g_fast_off, memory_order_relaxed);
}

void gk5i_fastpaths_set(bool on)
{
    atomic_store(&g_fast_off, !on);
}

/* Whether Camellia runs on OpenSSL's low-level API (the seam). */
static bool use_lowlevel_camellia(const gk5_ukey *uk)
{
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    return uk->camellia && gk5i_fastpaths_on();
#else
    (void)uk;
    return false;
#endif
}

/* Whether the cipher runs on AES-NI: an AES key, the CPU, the seam. */
static bool use_aesni(const gk5_ukey *uk)
{
#ifdef GK5_HAVE_ONEPASS
    return uk->aes && gk5i_onepass_available();
#else
    (void)uk;
    return false;
#endif
}

/* Keys Ke for one direction on first use: on AES-NI, or in OpenSSL. */
static GK5_WUR uint32_t need_cipher(gk5_ukey *uk, bool encrypt)
{
    const struct gk5i_subkeys *sk = uk->sk;
    EVP_CIPHER_CTX **ctx = encrypt ? &uk->cbc_enc : &uk->cbc_dec;

    if (sk->ke_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
#ifdef GK5_HAVE_ONEPASS
    if (use_aesni(uk)) {
        struct gk5i_aes_key **k = encrypt ? &uk->aes_enc : &uk->aes_dec;

        return *k != NULL ? GK5_OK
                          : gk5i_aes_key_new(sk->ke, sk->ke_len, !encrypt, k);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (use_lowlevel_camellia(uk)) {
        return uk->cam != NULL
                   ? GK5_OK
                   : gk5i_camellia_key_new(sk->ke, sk->ke_len, &uk->cam);
    }
#endif
    if (*ctx != NULL) {
        return GK5_OK;
    }
    if (encrypt) {
        uk->enc_chain_known = false;
    } else {
        uk->dec_chain_known = false;
    }
    return new_cipher_ctx(uk->et->cipher, sk->ke, sk->ke_len, encrypt ? 1 : 0,
                          ctx);
}

const struct gk5_enctype *gk5i_ukey_enctype(const gk5_ukey *uk)
{
    return uk != NULL ? uk->et : NULL;
}

/* ---- IOV validation ---- */

static bool in_stream(uint32_t flags)
{
    return flags == GK5_CRYPTO_IOV_HEADER || flags == GK5_CRYPTO_IOV_DATA ||
           flags == GK5_CRYPTO_IOV_PADDING;
}

static bool in_mac(uint32_t flags)
{
    return in_stream(flags) || flags == GK5_CRYPTO_IOV_SIGN_ONLY;
}

/* RFC 3961 5.3: with a plain block mode the confounder and data are padded
 * to a whole number of blocks; with CTS (RFC 3962 5, RFC 6803, RFC 8009)
 * there is no padding. */
size_t gk5i_padding_length(const struct gk5_enctype *et, size_t data_len)
{
    size_t used;

    if (et->cts_cipher != NULL || et->block_bytes == 0) {
        return 0;
    }
    used = (et->conf_bytes % et->block_bytes + data_len % et->block_bytes) %
           et->block_bytes;
    return used == 0 ? 0 : et->block_bytes - used;
}

/* Adds len to *sum; false on overflow. */
static bool add_len(size_t *sum, size_t len)
{
    if (len > SIZE_MAX - *sum) {
        return false;
    }
    *sum += len;
    return true;
}

/*
 * An encrypt/decrypt list holds exactly one HEADER (the confounder,
 * conf_bytes), exactly one TRAILER (the MAC, mac_bytes), at most one
 * PADDING, any number of DATA and SIGN_ONLY segments of any length, and
 * EMPTY segments, which are ignored.  On encrypt PADDING must be exactly
 * gk5i_padding_length() (it may be left out when that is 0); on decrypt the
 * cipher input must be at least one block and, without CTS, whole blocks.
 */
uint32_t gk5i_iov_check(const struct gk5_enctype *et, gk5_crypto_iov *iov,
                        size_t n, bool encrypt, struct gk5i_iov_info *info)
{
    struct gk5i_iov_info in;
    size_t sign_len = 0;

    memset(info, 0, sizeof(*info));
    memset(&in, 0, sizeof(in));
    if (iov == NULL) {
        return GK5_ERR_BAD_IOV;
    }
    for (size_t i = 0; i < n; i++) {
        gk5_crypto_iov *v = &iov[i];

        if (v->length != 0 && v->data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        switch (v->flags) {
        case GK5_CRYPTO_IOV_EMPTY:
            break;
        case GK5_CRYPTO_IOV_HEADER:
            if (in.header != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            in.header = v;
            break;
        case GK5_CRYPTO_IOV_TRAILER:
            if (in.trailer != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            in.trailer = v;
            break;
        case GK5_CRYPTO_IOV_PADDING:
            if (in.padding != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            in.padding = v;
            break;
        case GK5_CRYPTO_IOV_DATA:
            if (!add_len(&in.data_len, v->length)) {
                return GK5_ERR_BAD_IOV;
            }
            break;
        case GK5_CRYPTO_IOV_SIGN_ONLY:
            if (!add_len(&sign_len, v->length)) {
                return GK5_ERR_BAD_IOV;
            }
            break;
        default:
            return GK5_ERR_BAD_IOV;
        }
    }
    if (in.header == NULL || in.header->length != et->conf_bytes ||
        in.trailer == NULL || in.trailer->length != et->mac_bytes) {
        return GK5_ERR_BAD_IOV;
    }
    in.stream_len = in.header->length;
    if (!add_len(&in.stream_len, in.data_len) ||
        (in.padding != NULL && !add_len(&in.stream_len, in.padding->length))) {
        return GK5_ERR_BAD_IOV;
    }
    if (encrypt) {
        size_t pad = gk5i_padding_length(et, in.data_len);
        size_t have = in.padding != NULL ? in.padding->length : 0;

        if (have != pad) {
            return GK5_ERR_BAD_IOV;
        }
    } else {
        if (et->cts_cipher != NULL && in.padding != NULL &&
            in.padding->length != 0) {
            return GK5_ERR_BAD_IOV;
        }
        if (in.stream_len < et->block_bytes ||
            (et->cts_cipher == NULL && in.stream_len % et->block_bytes != 0)) {
            return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
        }
    }
    *info = in;
    return GK5_OK;
}

/* ---- The cipher over scattered segments ---- */

/* A read/write position in the cipher input: the segments whose types are
 * in mask (HEADER, DATA, PADDING; or DATA alone for raw encryption). */
#define TYPE_BIT(t) (1u << (t))
#define STREAM_TYPES                                                           \
    (TYPE_BIT(GK5_CRYPTO_IOV_HEADER) | TYPE_BIT(GK5_CRYPTO_IOV_DATA) |         \
     TYPE_BIT(GK5_CRYPTO_IOV_PADDING))

struct cursor {
    gk5_crypto_iov *iov;
    size_t n;
    uint32_t mask;
    size_t i;   /* current segment */
    size_t off; /* offset in it */
};

static bool cursor_wants(const struct cursor *c, uint32_t flags)
{
    return flags < 32 && (c->mask & TYPE_BIT(flags)) != 0;
}

/* The bytes left in the current segment (skipping used-up and unwanted
 * segments); NULL at the end. */
static uint8_t *cursor_peek(struct cursor *c, size_t *avail)
{
    while (c->i < c->n && (!cursor_wants(c, c->iov[c->i].flags) ||
                           c->off >= c->iov[c->i].length)) {
        c->i++;
        c->off = 0;
    }
    if (c->i >= c->n) {
        *avail = 0;
        return NULL;
    }
    *avail = c->iov[c->i].length - c->off;
    return (uint8_t *)c->iov[c->i].data + c->off;
}

/* Copies len stream bytes out of (to_buf) or into (!to_buf) buf. */
static void cursor_copy(struct cursor *c, uint8_t *buf, size_t len, bool to_buf)
{
    while (len > 0) {
        size_t avail;
        uint8_t *p = cursor_peek(c, &avail);
        size_t k = avail < len ? avail : len;

        if (p == NULL) {
            return; /* callers never ask for more than the stream holds */
        }
        if (to_buf) {
            memcpy(buf, p, k);
        } else {
            memcpy(p, buf, k);
        }
        buf += k;
        len -= k;
        c->off += k;
    }
}

/* One in-place update of a run of whole blocks. */
static GK5_WUR bool cipher_update(EVP_CIPHER_CTX *ctx, uint8_t *p, size_t len)
{
    int outl = 0;

    return EVP_CipherUpdate(ctx, p, &outl, p, (int)len) && (size_t)outl == len;
}

static void xor_block(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] ^= src[i];
    }
}

/*
 * One message's pass of CBC with Ke, on AES-NI or in an OpenSSL context.
 * The OpenSSL context is not re-initialised per message: it holds the
 * last ciphertext block of the message before (uk->*_chain), and CBC with
 * that chaining value, applied to a first block XORed with (IV ^ chain)
 * -- or with its output XORed so when decrypting -- is CBC from the
 * message's own IV.  On AES-NI the pass keeps its chaining value itself.
 */
struct cbc_pass {
#ifdef GK5_HAVE_ONEPASS
    const struct gk5i_aes_key *aes; /* non-NULL: AES-NI */
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    const struct gk5i_camellia_key *cam; /* non-NULL: low-level Camellia */
#endif
    EVP_CIPHER_CTX *ctx;
    uint8_t *chain; /* the chaining value (the ukey's record for ctx) */
    bool *known;
    bool encrypt;
    bool first; /* no block ciphered yet */
    size_t bs;
    uint8_t fix[GK5_MAX_BLOCK_BYTES]; /* IV ^ chain, for the first block */
    uint8_t own_chain[GK5_MAX_BLOCK_BYTES]; /* chain on AES-NI */
    bool own_known;
};

/* Keys Ke for the direction if this is its first use. */
static GK5_WUR uint32_t cbc_begin(struct cbc_pass *cp, gk5_ukey *uk,
                                  bool encrypt, const uint8_t *iv)
{
    uint32_t ret = need_cipher(uk, encrypt);

    if (ret != GK5_OK) {
        return ret;
    }
    cp->encrypt = encrypt;
    cp->first = true;
    cp->bs = uk->et->block_bytes;
#ifdef GK5_HAVE_ONEPASS
    cp->aes = NULL;
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    cp->cam = NULL;
    if (use_lowlevel_camellia(uk)) {
        cp->cam = uk->cam;
        cp->ctx = NULL;
        cp->chain = cp->own_chain;
        cp->known = &cp->own_known;
        memcpy(cp->chain, iv, cp->bs);
        memset(cp->fix, 0, sizeof(cp->fix));
        return cp->cam != NULL && cp->bs == 16 ? GK5_OK
                                               : GK5_ERR_CRYPTO_BACKEND;
    }
#endif
#ifdef GK5_HAVE_ONEPASS
    if (use_aesni(uk)) {
        cp->aes = encrypt ? uk->aes_enc : uk->aes_dec;
        cp->ctx = NULL;
        cp->chain = cp->own_chain;
        cp->known = &cp->own_known;
        memcpy(cp->chain, iv, cp->bs);
        memset(cp->fix, 0, sizeof(cp->fix));
        return cp->aes != NULL && cp->bs == 16 ? GK5_OK
                                               : GK5_ERR_CRYPTO_BACKEND;
    }
#endif
    cp->ctx = encrypt ? uk->cbc_enc : uk->cbc_dec;
    cp->chain = encrypt ? uk->enc_chain : uk->dec_chain;
    cp->known = encrypt ? &uk->enc_chain_known : &uk->dec_chain_known;
    if (cp->ctx == NULL) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    if (!*cp->known) {
        if (!EVP_CipherInit_ex2(cp->ctx, NULL, NULL, iv, encrypt ? 1 : 0,
                                NULL)) {
            return GK5_ERR_CRYPTO_BACKEND;
        }
        memcpy(cp->chain, iv, cp->bs);
    }
    memcpy(cp->fix, iv, cp->bs);
    xor_block(cp->fix, cp->chain, cp->bs);
    /* Unknown until the pass ends well: a failure half-way leaves the
     * context in a state the next message must not rely on. */
    *cp->known = false;
    return GK5_OK;
}

/* CBC over k bytes (whole blocks) in place. */
static GK5_WUR bool cbc_blocks(struct cbc_pass *cp, uint8_t *p, size_t k)
{
    uint8_t last[GK5_MAX_BLOCK_BYTES];
    size_t bs = cp->bs;

#ifdef GK5_HAVE_ONEPASS
    if (cp->aes != NULL) {
        gk5i_aes_cbc(cp->aes, cp->chain, p, k / bs);
        cp->first = false;
        return true;
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (cp->cam != NULL) {
        gk5i_camellia_cbc(cp->cam, cp->chain, p, k, cp->encrypt);
        cp->first = false;
        return true;
    }
#endif
    if (!cp->encrypt) {
        memcpy(last, p + k - bs, bs);
    } else if (cp->first) {
        xor_block(p, cp->fix, bs);
    }
    if (!cipher_update(cp->ctx, p, k)) {
        return false;
    }
    if (!cp->encrypt && cp->first) {
        xor_block(p, cp->fix, bs);
    }
    cp->first = false;
    memcpy(cp->chain, cp->encrypt ? p + k - bs : last, bs);
    return true;
}

static void cbc_end(struct cbc_pass *cp)
{
    *cp->known = true;
    zap(cp->fix, sizeof(cp->fix));
    zap(cp->own_chain, sizeof(cp->own_chain));
}

/* CBC over len bytes (whole blocks) from the cursor: runs of whole blocks
 * inside a segment are ciphered where they lie; a block that straddles
 * segments is gathered into blk, ciphered, and scattered back. */
static GK5_WUR bool cbc_run(struct cbc_pass *cp, struct cursor *c, size_t len,
                            uint8_t *blk)
{
    size_t bs = cp->bs;

    while (len > 0) {
        size_t avail;
        uint8_t *p = cursor_peek(c, &avail);

        if (p == NULL) {
            return false;
        }
        if (avail >= bs) {
            size_t k = avail < len ? avail : len;

            if (k > GK5_MAX_SLICE) {
                k = GK5_MAX_SLICE;
            }
            k -= k % bs;
            if (!cbc_blocks(cp, p, k)) {
                return false;
            }
            c->off += k;
            len -= k;
        } else {
            struct cursor at = *c;

            cursor_copy(c, blk, bs, true);
            if (!cbc_blocks(cp, blk, bs)) {
                return false;
            }
            cursor_copy(&at, blk, bs, false);
            len -= bs;
        }
    }
    return true;
}

/*
 * RFC 3962 5 ciphertext stealing (CS3) of the last bs + d bytes
 * (0 < d <= bs), continuing the CBC pass.  With P = P(n-1) | P(n):
 *   encrypt: X = E(P(n-1) ^ chain), Y = E((P(n) | zeros) ^ X) -- plain CBC
 *            of the zero-padded tail -- and the output is Y | X[0..d);
 *   decrypt: Z = D(Y), X = C(n)[0..d) | Z[d..bs), P(n) = Z[0..d) ^ C(n),
 *            P(n-1) = D(X) ^ chain.
 * Y, the first ciphertext block of the tail, is the cipher state that
 * follows (RFC 3962 B's "next IV").
 */
static GK5_WUR bool cts_tail(struct cbc_pass *cp, uint8_t *t, size_t tail_len,
                             const uint8_t *iv, uint8_t *next)
{
    uint8_t b[2 * GK5_MAX_BLOCK_BYTES], prev[GK5_MAX_BLOCK_BYTES];
    size_t bs = cp->bs, d = tail_len - bs;
    bool ok = false;

    if (cp->encrypt) {
        memcpy(b, t, tail_len);
        memset(b + tail_len, 0, 2 * bs - tail_len);
        if (!cbc_blocks(cp, b, 2 * bs)) {
            goto cleanup;
        }
        memcpy(t, b + bs, bs);
        memcpy(t + bs, b, d);
        memcpy(next, b + bs, bs);
    } else {
        /* The chaining value P(n-1) is XORed with: the IV when the tail is
         * the whole message, else the block before the tail. */
        memcpy(prev, cp->first ? iv : cp->chain, bs);
        memcpy(next, t, bs);
        memcpy(b, t, bs);
        if (!cbc_blocks(cp, b, bs)) { /* b = D(Y) ^ prev */
            goto cleanup;
        }
        xor_block(b, prev, bs); /* Z */
        memcpy(b + bs, t + bs, d);
        memcpy(b + bs + d, b + d, bs - d); /* X */
        xor_block(b, b + bs, d);           /* P(n) = Z[0..d) ^ C(n) */
        memcpy(t + bs, b, d);
        memcpy(t, b + bs, bs);
        if (!cbc_blocks(cp, t, bs)) { /* D(X) ^ Y */
            goto cleanup;
        }
        xor_block(t, next, bs);
        xor_block(t, prev, bs); /* P(n-1) */
    }
    ok = true;

cleanup:
    zap(b, sizeof(b));
    zap(prev, sizeof(prev));
    return ok;
}

/*
 * RFC 3962 5 (and RFC 6803 6, RFC 8009 5): CBC with ciphertext stealing,
 * the last two blocks swapped; exactly one block is plain CBC.  CBC runs
 * over the segments in place up to the final 16 < n <= 32 bytes, which are
 * gathered and stolen by cts_tail.  Without CTS (DES3, RFC 3961 6.3) it is
 * CBC throughout.
 */
uint32_t gk5i_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                           size_t stream_len, const uint8_t *iv, bool encrypt,
                           uint8_t *next_iv)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    uint8_t chain[GK5_MAX_BLOCK_BYTES];
    uint8_t tail[2 * GK5_MAX_BLOCK_BYTES];
    struct cbc_pass cp;
    struct cursor c = {.iov = iov, .n = n, .mask = STREAM_TYPES};
    size_t bs = uk->et->block_bytes;
    size_t cbc_len, tail_len;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (bs == 0 || bs > sizeof(blk)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (iv == NULL) {
        iv = zero_iv;
    }
    if (stream_len < bs) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    if (uk->et->cts_cipher != NULL) {
        size_t blocks = (stream_len + bs - 1) / bs;

        cbc_len = blocks <= 2 ? 0 : (blocks - 2) * bs;
        if (stream_len == bs) {
            cbc_len = bs;
        }
        tail_len = stream_len - cbc_len;
    } else {
        if (stream_len % bs != 0) {
            return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
        }
        cbc_len = stream_len;
        tail_len = 0;
    }

    ret = cbc_begin(&cp, uk, encrypt, iv);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    if (!cbc_run(&cp, &c, cbc_len, blk)) {
        goto cleanup;
    }
    /* The cipher state after a CBC message: its last ciphertext block. */
    memcpy(chain, cbc_len != 0 ? cp.chain : iv, bs);
    if (tail_len != 0) {
        struct cursor at = c;

        cursor_copy(&c, tail, tail_len, true);
        if (!cts_tail(&cp, tail, tail_len, iv, chain)) {
            goto cleanup;
        }
        cursor_copy(&at, tail, tail_len, false);
    }
    cbc_end(&cp);
    if (next_iv != NULL) {
        memcpy(next_iv, chain, bs);
    }
    ret = GK5_OK;

cleanup:
    zap(blk, sizeof(blk));
    zap(tail, sizeof(tail));
    zap(chain, sizeof(chain));
    return ret;
}

/* ---- One-pass RFC 3962 sealing ---- */

#if defined(GK5_HAVE_ONEPASS) && defined(GK5_HAVE_LOWLEVEL_HMAC)

/* Shorter messages gain too little to leave the serial path. */
#define ONEPASS_MIN_STREAM 128
#define SHA1_BLOCK 64

/* RFC 3962's AES with HMAC-SHA1 on AES-NI and SHA-NI, a stream long
 * enough to gain, and a MAC input that is the cipher stream (no SIGN_ONLY
 * data). */
static bool onepass_applies(const gk5_ukey *uk, const gk5_crypto_iov *iov,
                            size_t n, size_t stream_len)
{
    if (!use_aesni(uk) || uk->ki.hmac == NULL || uk->et->cts_cipher == NULL ||
        uk->et->block_bytes != 16 || stream_len < ONEPASS_MIN_STREAM ||
        uk->et->onepass != GK5I_ONEPASS_MTE_SHA1 ||
        !gk5i_hmac_sha1_can(uk->ki.hmac)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].flags == GK5_CRYPTO_IOV_SIGN_ONLY && iov[i].length != 0) {
            return false;
        }
    }
    return true;
}

/* The start every one-pass walk shares: RFC 3962 5's split of the stream
 * into CBC up to the last 16 < t <= 32 bytes (*cbc_len) and the stolen
 * tail (*tail_len), and Ke keyed for the direction on AES-NI. */
static GK5_WUR uint32_t onepass_begin(struct cbc_pass *cp, gk5_ukey *uk,
                                      bool encrypt, size_t stream_len,
                                      size_t *cbc_len, size_t *tail_len)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    size_t bs = uk->et->block_bytes;
    uint32_t ret;

    *cbc_len = ((stream_len + bs - 1) / bs - 2) * bs;
    *tail_len = stream_len - *cbc_len;
    ret = cbc_begin(cp, uk, encrypt, zero_iv);
    if (ret == GK5_OK && cp->aes == NULL) {
        ret = GK5_ERR_CRYPTO_BACKEND; /* use_aesni() changed (the seam) */
    }
    return ret;
}

/* The stolen tail of a one-pass walk, ciphered in place where the cursor
 * stands (the cipher pass began from a zero IV). */
static GK5_WUR bool onepass_tail(struct cbc_pass *cp, struct cursor *c,
                                 size_t tail_len)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t tail[2 * GK5_MAX_BLOCK_BYTES], next[GK5_MAX_BLOCK_BYTES];
    struct cursor at = *c;
    bool ok;

    cursor_copy(c, tail, tail_len, true);
    ok = cts_tail(cp, tail, tail_len, zero_iv, next);
    if (ok) {
        cursor_copy(&at, tail, tail_len, false);
    }
    zap(tail, sizeof(tail));
    zap(next, sizeof(next));
    return ok;
}

/* Feeds len stream bytes from the cursor to the HMAC. */
static GK5_WUR uint32_t hmac_cursor(struct gk5i_hmac *h, struct cursor *c,
                                    size_t len)
{
    while (len > 0) {
        size_t avail;
        uint8_t *p = cursor_peek(c, &avail);
        size_t k = avail < len ? avail : len;
        uint32_t ret;

        if (p == NULL) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        ret = gk5i_hmac_update(h, p, k);
        if (ret != GK5_OK) {
            return ret;
        }
        c->off += k;
        len -= k;
    }
    return GK5_OK;
}

/*
 * RFC 3961 5.3 / RFC 3962 sealing, the HMAC (Ki) and the CTS encryption
 * (Ke, zero IV) of the same stream, in one walk over it: macked is how far
 * the HMAC has read, enc how far CBC has written (never past macked: the
 * plaintext is MACed before it is overwritten).  Where both stand at the
 * same 64-byte boundary and a segment holds whole 64-byte pieces, the
 * AES-NI/SHA-NI loop does both at once.  Around it the pieces go through
 * the serial path's code, on the same AES-NI key and chaining value.
 */
uint32_t gk5i_mte_seal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                               size_t stream_len,
                               uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                               bool *done)
{
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct cursor mc = {.iov = iov, .n = n, .mask = STREAM_TYPES};
    struct cursor ec = mc;
    struct gk5i_hmac *h;
    struct cbc_pass cp;
    size_t bs = uk->et->block_bytes, cbc_len, tail_len, macked = 0, enc = 0;
    uint32_t st[5], ret = GK5_ERR_CRYPTO_BACKEND;

    *done = false;
    *mac_len = 0;
    if (!onepass_applies(uk, iov, n, stream_len)) {
        return GK5_OK;
    }
    *done = true;
    h = uk->ki.hmac;
    gk5i_hmac_init(h);
    ret = onepass_begin(&cp, uk, true, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (enc < cbc_len) {
        size_t avail = 0, k, to, upto;
        uint8_t *p = NULL;

        if (macked == enc && macked % SHA1_BLOCK == 0) {
            p = cursor_peek(&ec, &avail);
        }
        k = avail < cbc_len - enc ? avail : cbc_len - enc;
        k -= k % SHA1_BLOCK;
        if (p != NULL && k != 0 && gk5i_hmac_sha1_take(h, st)) {
            gk5i_onepass_cbc_sha1(cp.aes, cp.chain, st, p, k / SHA1_BLOCK);
            gk5i_hmac_sha1_give(h, st, k);
            cp.first = false;
            ec.off += k;
            mc = ec;
            enc += k;
            macked = enc;
            continue;
        }
        /* MAC up to the next 64-byte boundary, then CBC as far as that. */
        to = (macked / SHA1_BLOCK + 1) * SHA1_BLOCK;
        if (to > stream_len) {
            to = stream_len;
        }
        ret = hmac_cursor(h, &mc, to - macked);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
        macked = to;
        upto = macked - macked % bs;
        if (upto > cbc_len) {
            upto = cbc_len;
        }
        if (upto > enc) {
            if (!cbc_run(&cp, &ec, upto - enc, blk)) {
                goto cleanup;
            }
            enc = upto;
        }
    }
    ret = hmac_cursor(h, &mc, stream_len - macked);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    if (!onepass_tail(&cp, &ec, tail_len)) {
        goto cleanup;
    }
    ret = gk5i_hmac_final(h, mac, mac_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    cbc_end(&cp);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

/*
 * RFC 3961 5.3 / RFC 3962 unsealing, the CTS decryption (Ke, zero IV) and
 * the HMAC (Ki) of the plaintext, in one walk: dec is how far CBC has
 * decrypted, macked how far the HMAC has read (never past dec: only
 * plaintext is MACed).  Where both stand at the same 64-byte boundary and
 * a segment holds whole 64-byte pieces, the AES-NI/SHA-NI loop does both
 * at once; elsewhere a piece is decrypted, then MACed.  The stolen tail
 * is decrypted as on the serial path and MACed last.
 */
uint32_t gk5i_mte_unseal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                                 size_t stream_len,
                                 uint8_t mac[GK5_MAX_MAC_BYTES],
                                 size_t *mac_len, bool *done)
{
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct cursor mc = {.iov = iov, .n = n, .mask = STREAM_TYPES};
    struct cursor dc = mc;
    struct gk5i_hmac *h;
    struct cbc_pass cp;
    size_t cbc_len, tail_len, macked = 0, dec = 0;
    uint32_t st[5], ret = GK5_ERR_CRYPTO_BACKEND;

    *done = false;
    *mac_len = 0;
    if (!onepass_applies(uk, iov, n, stream_len)) {
        return GK5_OK;
    }
    *done = true;
    h = uk->ki.hmac;
    gk5i_hmac_init(h);
    ret = onepass_begin(&cp, uk, false, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (dec < cbc_len) {
        size_t avail = 0, k, to;
        uint8_t *p = NULL;

        if (macked == dec && dec % SHA1_BLOCK == 0) {
            p = cursor_peek(&dc, &avail);
        }
        k = avail < cbc_len - dec ? avail : cbc_len - dec;
        k -= k % SHA1_BLOCK;
        if (p != NULL && k != 0 && gk5i_hmac_sha1_take(h, st)) {
            gk5i_onepass_cbc_dec_sha1(cp.aes, cp.chain, st, p, k / SHA1_BLOCK);
            gk5i_hmac_sha1_give(h, st, k);
            cp.first = false;
            dc.off += k;
            mc = dc;
            dec += k;
            macked = dec;
            continue;
        }
        /* Decrypt up to the next 64-byte boundary, then MAC as far. */
        to = (dec / SHA1_BLOCK + 1) * SHA1_BLOCK;
        if (to > cbc_len) {
            to = cbc_len;
        }
        if (!cbc_run(&cp, &dc, to - dec, blk)) {
            goto cleanup;
        }
        dec = to;
        ret = hmac_cursor(h, &mc, dec - macked);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
        macked = dec;
    }
    if (!onepass_tail(&cp, &dc, tail_len)) {
        goto cleanup;
    }
    ret = hmac_cursor(h, &mc, stream_len - macked);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = gk5i_hmac_final(h, mac, mac_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    cbc_end(&cp);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

/* RFC 8009's aes128-cts-hmac-sha256-128 on AES-NI and SHA-NI, long
 * enough to gain, and a MAC input that is the zero IV and the cipher stream
 * (no SIGN_ONLY data). */
static bool etm_onepass_applies(const gk5_ukey *uk, const gk5_crypto_iov *iov,
                                size_t n, size_t stream_len)
{
    if (!use_aesni(uk) || uk->ki.hmac == NULL ||
        uk->et->onepass != GK5I_ONEPASS_ETM_SHA256 ||
        uk->et->block_bytes != 16 || stream_len < ONEPASS_MIN_STREAM ||
        !gk5i_hmac_sha256_can(uk->ki.hmac)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].flags == GK5_CRYPTO_IOV_SIGN_ONLY && iov[i].length != 0) {
            return false;
        }
    }
    return true;
}

/* The MAC offset of stream byte s is s + 16 (the zero IV comes first), so
 * SHA-256 blocks start at stream offsets 48 + 64 i. */
#define ETM_PHASE 48

/*
 * RFC 8009 5 in one walk over the stream: pos is how far both the cipher
 * and the HMAC have gone.  At a SHA-256 block boundary, in a segment that
 * holds whole 64-byte pieces, the AES-NI/SHA-NI loop does both at once;
 * elsewhere a piece is ciphered and MACed one after the other, the MAC
 * always over ciphertext (after encrypting, before decrypting).  The
 * stolen tail is done as on the serial path.
 */
uint32_t gk5i_etm_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                          size_t stream_len, bool encrypt,
                          uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                          bool *done)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct cursor mc = {.iov = iov, .n = n, .mask = STREAM_TYPES};
    struct cursor cc = mc;
    struct gk5i_hmac *h;
    struct cbc_pass cp;
    size_t bs = uk->et->block_bytes, cbc_len, tail_len, pos = 0;
    uint32_t st[8], ret = GK5_ERR_CRYPTO_BACKEND;

    *done = false;
    *mac_len = 0;
    if (!etm_onepass_applies(uk, iov, n, stream_len)) {
        return GK5_OK;
    }
    *done = true;
    h = uk->ki.hmac;
    gk5i_hmac_init(h);
    ret = gk5i_hmac_update(h, zero_iv, bs);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = onepass_begin(&cp, uk, encrypt, stream_len, &cbc_len, &tail_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_CRYPTO_BACKEND;
    while (pos < cbc_len) {
        size_t avail = 0, k, to;
        uint8_t *p = NULL;

        if (pos % SHA1_BLOCK == ETM_PHASE) {
            p = cursor_peek(&cc, &avail);
        }
        k = avail < cbc_len - pos ? avail : cbc_len - pos;
        k -= k % SHA1_BLOCK;
        if (p != NULL && k != 0 && gk5i_hmac_sha256_take(h, st)) {
            if (encrypt) {
                gk5i_onepass_cbc_sha256(cp.aes, cp.chain, st, p,
                                        k / SHA1_BLOCK);
            } else {
                gk5i_onepass_cbc_dec_sha256(cp.aes, cp.chain, st, p,
                                            k / SHA1_BLOCK);
            }
            gk5i_hmac_sha256_give(h, st, k);
            cp.first = false;
            cc.off += k;
            mc = cc;
            pos += k;
            continue;
        }
        /* Up to the next SHA-256 block boundary (a whole number of cipher
         * blocks: 48 and 64 are multiples of 16). */
        to = pos - pos % SHA1_BLOCK + ETM_PHASE;
        if (to <= pos) {
            to += SHA1_BLOCK;
        }
        if (to > cbc_len) {
            to = cbc_len;
        }
        if (!encrypt) {
            ret = hmac_cursor(h, &mc, to - pos);
            if (ret != GK5_OK) {
                goto cleanup;
            }
            ret = GK5_ERR_CRYPTO_BACKEND;
        }
        if (!cbc_run(&cp, &cc, to - pos, blk)) {
            goto cleanup;
        }
        if (encrypt) {
            ret = hmac_cursor(h, &mc, to - pos);
            if (ret != GK5_OK) {
                goto cleanup;
            }
            ret = GK5_ERR_CRYPTO_BACKEND;
        }
        pos = to;
    }
    if (!encrypt) {
        ret = hmac_cursor(h, &mc, tail_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (!onepass_tail(&cp, &cc, tail_len)) {
        goto cleanup;
    }
    if (encrypt) {
        ret = hmac_cursor(h, &mc, tail_len);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    ret = gk5i_hmac_final(h, mac, mac_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    cbc_end(&cp);

cleanup:
    zap(blk, sizeof(blk));
    zap(st, sizeof(st));
    return ret;
}

#else

uint32_t gk5i_mte_seal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                               size_t stream_len,
                               uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                               bool *done)
{
    (void)uk;
    (void)iov;
    (void)n;
    (void)stream_len;
    (void)mac;
    *mac_len = 0;
    *done = false;
    return GK5_OK;
}

uint32_t gk5i_mte_unseal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                                 size_t stream_len,
                                 uint8_t mac[GK5_MAX_MAC_BYTES],
                                 size_t *mac_len, bool *done)
{
    return gk5i_mte_seal_onepass(uk, iov, n, stream_len, mac, mac_len, done);
}

uint32_t gk5i_etm_onepass(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                          size_t stream_len, bool encrypt,
                          uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len,
                          bool *done)
{
    (void)encrypt;
    return gk5i_mte_seal_onepass(uk, iov, n, stream_len, mac, mac_len, done);
}

#endif

/* ---- MACs over IOVs ---- */

#ifdef GK5_HAVE_LOWLEVEL_HMAC
static GK5_WUR uint32_t hmac_iov(struct gk5i_hmac *h, const uint8_t *prefix,
                                 size_t prefix_len, const gk5_crypto_iov *iov,
                                 size_t n, uint8_t out[GK5_MAX_MAC_BYTES],
                                 size_t *out_len)
{
    uint32_t ret = GK5_OK, fin;

    if (gk5i_hmac_length(h) > GK5_MAX_MAC_BYTES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    gk5i_hmac_init(h);
    if (prefix_len != 0) {
        ret = gk5i_hmac_update(h, prefix, prefix_len);
    }
    for (size_t i = 0; i < n && ret == GK5_OK; i++) {
        if (in_mac(iov[i].flags) && iov[i].length != 0) {
            ret = gk5i_hmac_update(h, iov[i].data, iov[i].length);
        }
    }
    /* Final also when an update failed: it wipes the running state. */
    fin = gk5i_hmac_final(h, out, out_len);
    if (ret != GK5_OK || fin != GK5_OK) {
        zap(out, GK5_MAX_MAC_BYTES);
        *out_len = 0;
    }
    return ret != GK5_OK ? ret : fin;
}
#endif

uint32_t gk5i_mac_iov(struct gk5i_mac *mac, const uint8_t *prefix,
                      size_t prefix_len, const gk5_crypto_iov *iov, size_t n,
                      uint8_t out[GK5_MAX_MAC_BYTES], size_t *out_len)
{
    *out_len = 0;
    if (mac == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    if (mac->hmac != NULL) {
        return hmac_iov(mac->hmac, prefix, prefix_len, iov, n, out, out_len);
    }
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    if (mac->cmac != NULL && (gk5i_fastpaths_on() || mac->evp == NULL)) {
        gk5i_camellia_cmac_init(mac->cmac);
        if (prefix_len != 0) {
            gk5i_camellia_cmac_update(mac->cmac, prefix, prefix_len);
        }
        for (size_t i = 0; i < n; i++) {
            if (in_mac(iov[i].flags) && iov[i].length != 0) {
                gk5i_camellia_cmac_update(mac->cmac, iov[i].data,
                                          iov[i].length);
            }
        }
        gk5i_camellia_cmac_final(mac->cmac, out);
        *out_len = 16;
        return GK5_OK;
    }
#endif
    if (mac->evp == NULL || !EVP_MAC_init(mac->evp, NULL, 0, NULL)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    if (prefix_len != 0 && !EVP_MAC_update(mac->evp, prefix, prefix_len)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    for (size_t i = 0; i < n; i++) {
        if (in_mac(iov[i].flags) && iov[i].length != 0 &&
            !EVP_MAC_update(mac->evp, iov[i].data, iov[i].length)) {
            return GK5_ERR_CRYPTO_BACKEND;
        }
    }
    if (!EVP_MAC_final(mac->evp, out, out_len, GK5_MAX_MAC_BYTES)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    return GK5_OK;
}

void gk5i_iov_wipe_stream(gk5_crypto_iov *iov, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (in_stream(iov[i].flags)) {
            zap(iov[i].data, iov[i].length);
        }
    }
}

uint32_t gk5i_fill_confounder(uint8_t *dst, size_t len, const uint8_t *given)
{
    if (given != NULL) {
        memcpy(dst, given, len);
        return GK5_OK;
    }
    if (len > INT_MAX || RAND_bytes(dst, (int)len) != 1) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    return GK5_OK;
}

/*
 * Confounders come from a pool of RAND_bytes output per thread (one
 * RAND_bytes call costs about as much as encrypting 1 KiB; a pool per key
 * would cost every context half a KiB).  Each confounder is wiped from the
 * pool as it is taken, and the pool is wiped when its thread ends.  A
 * forked child must not hand out the confounders its parent holds: every
 * fork moves the generation on, and a pool filled in an older generation
 * is thrown away (OpenSSL's DRBG reseeds in the child by itself).  Without
 * the fork handler or the thread key, confounders come straight from
 * RAND_bytes.
 */
#define CONF_POOL_BYTES 512
struct conf_pool {
    uint8_t bytes[CONF_POOL_BYTES];
    size_t left; /* unused bytes at the end of bytes */
    uint64_t fork_gen;
    bool registered; /* the thread key holds it: wiped at thread exit */
};
static _Thread_local struct conf_pool t_pool;
static atomic_uint_fast64_t g_fork_gen;
static atomic_bool g_pool_ok;
static pthread_key_t g_pool_key;
static pthread_once_t g_pool_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&g_fork_gen, 1, memory_order_relaxed);
}

static void pool_thread_end(void *p)
{
    struct conf_pool *pool = p;

    zap(pool->bytes, sizeof(pool->bytes));
    pool->left = 0;
    pool->registered = false;
}

static void pool_setup(void)
{
    atomic_store(&g_pool_ok,
                 pthread_atfork(NULL, NULL, on_fork_child) == 0 &&
                     pthread_key_create(&g_pool_key, pool_thread_end) == 0);
}

uint32_t gk5i_pooled_confounder(uint8_t *dst, size_t len, const uint8_t *given)
{
    struct conf_pool *pool = &t_pool;
    uint64_t gen;
    uint8_t *p;

    if (given != NULL || len > sizeof(pool->bytes) ||
        pthread_once(&g_pool_once, pool_setup) != 0 ||
        !atomic_load_explicit(&g_pool_ok, memory_order_relaxed)) {
        return gk5i_fill_confounder(dst, len, given);
    }
    if (!pool->registered) {
        if (pthread_setspecific(g_pool_key, pool) != 0) {
            return gk5i_fill_confounder(dst, len, NULL);
        }
        pool->registered = true;
    }
    gen = atomic_load_explicit(&g_fork_gen, memory_order_relaxed);
    if (gen != pool->fork_gen) {
        zap(pool->bytes, sizeof(pool->bytes));
        pool->left = 0;
        pool->fork_gen = gen;
    }
    if (pool->left < len) {
        if (RAND_bytes(pool->bytes, (int)sizeof(pool->bytes)) != 1) {
            pool->left = 0;
            return GK5_ERR_CRYPTO_BACKEND;
        }
        pool->left = sizeof(pool->bytes);
    }
    p = pool->bytes + sizeof(pool->bytes) - pool->left;
    memcpy(dst, p, len);
    zap(p, len);
    pool->left -= len;
    return GK5_OK;
}

/* ---- One-shot helpers (derivation, PRF; not per message) ---- */

uint32_t gk5i_cbc_encrypt_zero_iv(const char *cipher, const uint8_t *key,
                                  size_t key_len, const uint8_t *in, size_t len,
                                  uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = NULL;
    int outl = 0;
    uint32_t ret;

    if (len > INT_MAX) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = new_cipher_ctx(cipher, key, key_len, 1, &ctx);
    if (ret != GK5_OK) {
        return ret;
    }
    /* new_cipher_ctx leaves the IV zero (none was given). */
    if (!EVP_CipherUpdate(ctx, out, &outl, in, (int)len) ||
        (size_t)outl != len) {
        zap(out, len);
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    EVP_CIPHER_CTX_free(ctx);
    return ret;
}

uint32_t gk5i_mac_oneshot(const struct gk5_enctype *et, const uint8_t *key,
                          size_t key_len, const uint8_t *in, size_t in_len,
                          uint8_t out[GK5_MAX_MAC_BYTES], size_t *out_len)
{
    EVP_MAC_CTX *ctx = NULL;
    uint32_t ret;

    *out_len = 0;
    ret = new_mac_ctx(et, key, key_len, &ctx);
    if (ret != GK5_OK) {
        return ret;
    }
    if ((in_len != 0 && !EVP_MAC_update(ctx, in, in_len)) ||
        !EVP_MAC_final(ctx, out, out_len, GK5_MAX_MAC_BYTES)) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    EVP_MAC_CTX_free(ctx);
    return ret;
}

/* ---- Per-message operations ---- */

uint32_t gk5i_encrypt_iov(gk5_ukey *uk, const uint8_t *confounder,
                          gk5_crypto_iov *iov, size_t n)
{
    if (uk == NULL || uk->et->profile->encrypt_iov == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return uk->et->profile->encrypt_iov(uk, confounder, iov, n);
}

uint32_t gk5i_decrypt_iov(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n)
{
    if (uk == NULL || uk->et->profile->decrypt_iov == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return uk->et->profile->decrypt_iov(uk, iov, n);
}

/* A checksum list: exactly one CHECKSUM (1..cksum_bytes long); DATA,
 * SIGN_ONLY, and as in MIT's IOV semantics HEADER and PADDING, are the
 * input; EMPTY is ignored; a TRAILER has no place here. */
static GK5_WUR uint32_t checksum_iov_check(const struct gk5_enctype *et,
                                           const gk5_crypto_iov *iov, size_t n,
                                           const gk5_crypto_iov **cksum)
{
    const gk5_crypto_iov *found = NULL;

    *cksum = NULL;
    if (iov == NULL) {
        return GK5_ERR_BAD_IOV;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].length != 0 && iov[i].data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        if (iov[i].flags == GK5_CRYPTO_IOV_CHECKSUM) {
            if (found != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            found = &iov[i];
        } else if (iov[i].flags != GK5_CRYPTO_IOV_EMPTY &&
                   !in_mac(iov[i].flags)) {
            return GK5_ERR_BAD_IOV;
        }
    }
    if (found == NULL || found->length == 0 ||
        found->length > et->cksum_bytes) {
        return GK5_ERR_BAD_IOV;
    }
    *cksum = found;
    return GK5_OK;
}

/*
 * RFC 3961 5.3 get_mic (and RFC 6803 7 CMAC, RFC 8009 6 HMAC-SHA2): the
 * checksum is the MAC under Kc of the input, truncated to the checksum
 * segment (hmac-sha1-96: 12 of 20 bytes; hmac-sha1-des3-kd: all 20).
 */
uint32_t gk5i_checksum_iov(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n)
{
    const gk5_crypto_iov *cksum = NULL;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    size_t mac_len = 0;
    uint32_t ret;

    ret = gk5i_ukey_need(uk, GK5I_NEED_KC);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = checksum_iov_check(uk->et, iov, n, &cksum);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = gk5i_mac_iov(&uk->kc, NULL, 0, iov, n, mac, &mac_len);
    if (ret == GK5_OK && mac_len < cksum->length) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK) {
        memcpy(cksum->data, mac, cksum->length);
    }
    zap(mac, sizeof(mac));
    return ret;
}

uint32_t gk5i_verify_checksum_iov(gk5_ukey *uk, const gk5_crypto_iov *iov,
                                  size_t n)
{
    const gk5_crypto_iov *cksum = NULL;
    uint8_t mac[GK5_MAX_MAC_BYTES];
    size_t mac_len = 0;
    uint32_t ret;

    ret = gk5i_ukey_need(uk, GK5I_NEED_KC);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = checksum_iov_check(uk->et, iov, n, &cksum);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = gk5i_mac_iov(&uk->kc, NULL, 0, iov, n, mac, &mac_len);
    if (ret == GK5_OK && mac_len < cksum->length) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK && CRYPTO_memcmp(mac, cksum->data, cksum->length) != 0) {
        ret = GK5_ERR_INTEGRITY;
    }
    zap(mac, sizeof(mac));
    return ret;
}

/*
 * RFC 1964 1.2.2 / 1.2.1.3 as MIT does DES3: raw CBC with Ke (the session
 * key), no confounder or MAC, over the DATA segments (whole blocks in
 * total) with the given IV.  Other segment types are ignored.
 */
static GK5_WUR uint32_t raw_crypt(gk5_ukey *uk, const uint8_t *iv,
                                  gk5_crypto_iov *iov, size_t n, bool encrypt)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    struct cursor c = {
        .iov = iov, .n = n, .mask = TYPE_BIT(GK5_CRYPTO_IOV_DATA)};
    struct cbc_pass cp;
    size_t total = 0, bs;
    uint32_t ret = GK5_OK;

    if (uk == NULL || iov == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    bs = uk->et->block_bytes;
    if (bs == 0 || bs > sizeof(blk)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].length != 0 && iov[i].data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        if (iov[i].flags == GK5_CRYPTO_IOV_DATA &&
            !add_len(&total, iov[i].length)) {
            return GK5_ERR_BAD_IOV;
        }
    }
    if (total % bs != 0) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    ret = cbc_begin(&cp, uk, encrypt, iv != NULL ? iv : zero_iv);
    if (ret == GK5_OK && !cbc_run(&cp, &c, total, blk)) {
        ret = GK5_ERR_CRYPTO_BACKEND;
    }
    if (ret == GK5_OK) {
        cbc_end(&cp);
    }
    zap(blk, sizeof(blk));
    return ret;
}

uint32_t gk5i_raw_encrypt_iov(gk5_ukey *uk, const uint8_t *iv,
                              gk5_crypto_iov *iov, size_t n)
{
    return raw_crypt(uk, iv, iov, n, true);
}

uint32_t gk5i_raw_decrypt_iov(gk5_ukey *uk, const uint8_t *iv,
                              gk5_crypto_iov *iov, size_t n)
{
    return raw_crypt(uk, iv, iov, n, false);
}
