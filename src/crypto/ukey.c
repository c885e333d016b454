/*
 * Prepared keys (gk5_ukey) and everything that runs on them per message:
 * the in-place cipher over scattered segments, MACs over IOVs, keyed
 * checksums, and the dispatch to each family's encrypt/decrypt.
 *
 * A ukey holds OpenSSL contexts keyed once in gk5i_ukey_new().  Per message
 * they are only re-initialised: EVP_CipherInit_ex2() with a NULL key keeps
 * the key schedule and takes a new IV, EVP_MAC_init() with a NULL key
 * restarts HMAC and CMAC under the key they hold (OpenSSL 3.0 and later).
 * gk5 itself allocates nothing on this path.
 */
#include <limits.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "crypto_int.h"
#include "profile.h"

/* EVP_CipherUpdate takes an int length: feed long segments in slices. */
#define GK5_MAX_SLICE ((size_t)1 << 30)

/* ---- Making, copying and freeing prepared keys ---- */

/* A cipher context keyed with key for one direction, padding off, and for
 * CTS ciphers the Kerberos ciphertext-stealing variant: OpenSSL's default
 * CS1 differs, CS3 is RFC 3962's (checked against its Appendix B). */
static GK5_WUR uint32_t new_cipher_ctx(const char *name, bool cts,
                                       const uint8_t *key, size_t key_len,
                                       int enc, EVP_CIPHER_CTX **out)
{
    EVP_CIPHER *cipher = NULL;
    EVP_CIPHER_CTX *ctx = NULL;
    OSSL_PARAM params[2];
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    *out = NULL;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
                                                 (char *)"CS3", 0);
    params[1] = OSSL_PARAM_construct_end();
    cipher = EVP_CIPHER_fetch(NULL, name, NULL);
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
    if (!EVP_CipherInit_ex2(ctx, cipher, key, NULL, enc, cts ? params : NULL) ||
        !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
        goto cleanup;
    }
    *out = ctx;
    ctx = NULL;
    ret = GK5_OK;

cleanup:
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(cipher);
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

    *out = NULL;
    if (et->digest != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_DIGEST, (char *)(uintptr_t)et->digest, 0);
    } else {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)et->cipher, 0);
    }
    params[1] = OSSL_PARAM_construct_end();
    mac = EVP_MAC_fetch(NULL, et->digest != NULL ? "HMAC" : "CMAC", NULL);
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
    EVP_MAC_free(mac);
    return ret;
}

uint32_t gk5i_ukey_new(const struct gk5_enctype *et,
                       const struct gk5i_subkeys *sk, gk5_ukey **out)
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
    if (sk->ke_len != 0) {
        ret = new_cipher_ctx(et->cipher, false, sk->ke, sk->ke_len, 1,
                             &uk->cbc_enc);
        if (ret == GK5_OK) {
            ret = new_cipher_ctx(et->cipher, false, sk->ke, sk->ke_len, 0,
                                 &uk->cbc_dec);
        }
        if (ret == GK5_OK && et->cts_cipher != NULL) {
            ret = new_cipher_ctx(et->cts_cipher, true, sk->ke, sk->ke_len, 1,
                                 &uk->cts_enc);
        }
        if (ret == GK5_OK && et->cts_cipher != NULL) {
            ret = new_cipher_ctx(et->cts_cipher, true, sk->ke, sk->ke_len, 0,
                                 &uk->cts_dec);
        }
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    if (sk->ki_len != 0) {
        ret = new_mac_ctx(et, sk->ki, sk->ki_len, &uk->mac_ki);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    if (sk->kc_len != 0) {
        ret = new_mac_ctx(et, sk->kc, sk->kc_len, &uk->mac_kc);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    *out = uk;
    uk = NULL;
    ret = GK5_OK;

cleanup:
    gk5i_ukey_free(uk);
    return ret;
}

static GK5_WUR uint32_t dup_cipher(const EVP_CIPHER_CTX *src,
                                   EVP_CIPHER_CTX **out)
{
    EVP_CIPHER_CTX *ctx = NULL;

    *out = NULL;
    if (src == NULL) {
        return GK5_OK;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (!EVP_CIPHER_CTX_copy(ctx, src)) {
        EVP_CIPHER_CTX_free(ctx);
        return GK5_ERR_CRYPTO_BACKEND;
    }
    *out = ctx;
    return GK5_OK;
}

static GK5_WUR uint32_t dup_mac(const EVP_MAC_CTX *src, EVP_MAC_CTX **out)
{
    *out = NULL;
    if (src == NULL) {
        return GK5_OK;
    }
    *out = EVP_MAC_CTX_dup(src);
    return *out != NULL ? GK5_OK : GK5_ERR_NOMEM;
}

/* Another ukey for another thread: copies of the keyed contexts, nothing
 * derived or keyed again. */
uint32_t gk5i_ukey_dup(const gk5_ukey *src, gk5_ukey **out)
{
    gk5_ukey *uk = NULL;
    uint32_t ret = GK5_ERR_INVALID_ARGUMENT;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (src == NULL) {
        goto cleanup;
    }
    uk = OPENSSL_zalloc(sizeof(*uk));
    if (uk == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    uk->et = src->et;
    ret = dup_cipher(src->cbc_enc, &uk->cbc_enc);
    if (ret == GK5_OK) {
        ret = dup_cipher(src->cbc_dec, &uk->cbc_dec);
    }
    if (ret == GK5_OK) {
        ret = dup_cipher(src->cts_enc, &uk->cts_enc);
    }
    if (ret == GK5_OK) {
        ret = dup_cipher(src->cts_dec, &uk->cts_dec);
    }
    if (ret == GK5_OK) {
        ret = dup_mac(src->mac_ki, &uk->mac_ki);
    }
    if (ret == GK5_OK) {
        ret = dup_mac(src->mac_kc, &uk->mac_kc);
    }
    if (ret != GK5_OK) {
        goto cleanup;
    }
    *out = uk;
    uk = NULL;

cleanup:
    gk5i_ukey_free(uk);
    return ret;
}

/* OpenSSL's free functions cleanse the key schedules and MAC states. */
void gk5i_ukey_free(gk5_ukey *uk)
{
    if (uk == NULL) {
        return;
    }
    EVP_CIPHER_CTX_free(uk->cbc_enc);
    EVP_CIPHER_CTX_free(uk->cbc_dec);
    EVP_CIPHER_CTX_free(uk->cts_enc);
    EVP_CIPHER_CTX_free(uk->cts_dec);
    EVP_MAC_CTX_free(uk->mac_ki);
    EVP_MAC_CTX_free(uk->mac_kc);
    OPENSSL_clear_free(uk, sizeof(*uk));
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

/* One in-place update of a whole-block (or, for CTS, whole-message) run. */
static GK5_WUR bool cipher_update(EVP_CIPHER_CTX *ctx, uint8_t *p, size_t len)
{
    int outl = 0;

    return EVP_CipherUpdate(ctx, p, &outl, p, (int)len) && (size_t)outl == len;
}

/* CBC over len bytes (whole blocks) from the cursor: runs of whole blocks
 * inside a segment are ciphered where they lie; a block that straddles
 * segments is gathered into blk, ciphered, and scattered back. */
static GK5_WUR bool cbc_run(EVP_CIPHER_CTX *ctx, struct cursor *c, size_t len,
                            size_t bs, uint8_t *blk)
{
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
            if (!cipher_update(ctx, p, k)) {
                return false;
            }
            c->off += k;
            len -= k;
        } else {
            struct cursor at = *c;

            cursor_copy(c, blk, bs, true);
            if (!cipher_update(ctx, blk, bs)) {
                return false;
            }
            cursor_copy(&at, blk, bs, false);
            len -= bs;
        }
    }
    return true;
}

/*
 * RFC 3962 5 (and RFC 6803 6, RFC 8009 5): CBC with ciphertext stealing,
 * the last two blocks swapped; exactly one block is plain CBC.  OpenSSL's
 * CTS ciphers need the whole message in one call, so CBC runs over all but
 * the final 16 < n <= 32 bytes and CTS only over those, chained from the
 * last CBC block.  Without CTS (DES3, RFC 3961 6.3) it is CBC throughout.
 */
uint32_t gk5i_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n,
                           size_t stream_len, const uint8_t *iv, bool encrypt,
                           uint8_t *next_iv)
{
    static const uint8_t zero_iv[GK5_MAX_BLOCK_BYTES];
    uint8_t blk[GK5_MAX_BLOCK_BYTES];
    uint8_t chain[GK5_MAX_BLOCK_BYTES];
    uint8_t tail[2 * GK5_MAX_BLOCK_BYTES];
    EVP_CIPHER_CTX *cbc = encrypt ? uk->cbc_enc : uk->cbc_dec;
    EVP_CIPHER_CTX *cts = encrypt ? uk->cts_enc : uk->cts_dec;
    struct cursor c = {.iov = iov, .n = n, .mask = STREAM_TYPES};
    size_t bs = uk->et->block_bytes;
    size_t cbc_len, tail_len;
    uint32_t ret = GK5_ERR_CRYPTO_BACKEND;

    if (cbc == NULL || bs == 0 || bs > sizeof(blk)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (iv == NULL) {
        iv = zero_iv;
    }
    if (stream_len < bs) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    if (cts != NULL) {
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

    if (!EVP_CipherInit_ex2(cbc, NULL, NULL, iv, encrypt ? 1 : 0, NULL) ||
        !cbc_run(cbc, &c, cbc_len, bs, blk)) {
        goto cleanup;
    }
    if (cbc_len != 0) {
        /* The chaining value now: the last ciphertext block. */
        if (!EVP_CIPHER_CTX_get_updated_iv(cbc, chain, bs)) {
            goto cleanup;
        }
    } else {
        memcpy(chain, iv, bs);
    }
    if (tail_len != 0) {
        struct cursor at = c;

        cursor_copy(&c, tail, tail_len, true);
        if (!encrypt) {
            /* C(n), which leads the CS3 tail, is the next cipher state. */
            memcpy(blk, tail, bs);
        }
        if (!EVP_CipherInit_ex2(cts, NULL, NULL, chain, encrypt ? 1 : 0,
                                NULL) ||
            !cipher_update(cts, tail, tail_len)) {
            goto cleanup;
        }
        if (encrypt) {
            memcpy(blk, tail, bs);
        }
        cursor_copy(&at, tail, tail_len, false);
        memcpy(chain, blk, bs);
    }
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

/* ---- MACs over IOVs ---- */

uint32_t gk5i_mac_iov(EVP_MAC_CTX *mac, const uint8_t *prefix,
                      size_t prefix_len, const gk5_crypto_iov *iov, size_t n,
                      uint8_t out[GK5_MAX_MAC_BYTES], size_t *out_len)
{
    *out_len = 0;
    if (mac == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (!EVP_MAC_init(mac, NULL, 0, NULL)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    if (prefix_len != 0 && !EVP_MAC_update(mac, prefix, prefix_len)) {
        return GK5_ERR_CRYPTO_BACKEND;
    }
    for (size_t i = 0; i < n; i++) {
        if (in_mac(iov[i].flags) && iov[i].length != 0 &&
            !EVP_MAC_update(mac, iov[i].data, iov[i].length)) {
            return GK5_ERR_CRYPTO_BACKEND;
        }
    }
    if (!EVP_MAC_final(mac, out, out_len, GK5_MAX_MAC_BYTES)) {
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
    ret = new_cipher_ctx(cipher, false, key, key_len, 1, &ctx);
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

    if (uk == NULL || uk->mac_kc == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = checksum_iov_check(uk->et, iov, n, &cksum);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = gk5i_mac_iov(uk->mac_kc, NULL, 0, iov, n, mac, &mac_len);
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

    if (uk == NULL || uk->mac_kc == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = checksum_iov_check(uk->et, iov, n, &cksum);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = gk5i_mac_iov(uk->mac_kc, NULL, 0, iov, n, mac, &mac_len);
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
    EVP_CIPHER_CTX *cbc;
    size_t total = 0, bs;
    uint32_t ret = GK5_OK;

    if (uk == NULL || iov == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    cbc = encrypt ? uk->cbc_enc : uk->cbc_dec;
    bs = uk->et->block_bytes;
    if (cbc == NULL || bs == 0 || bs > sizeof(blk)) {
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
    if (!EVP_CipherInit_ex2(cbc, NULL, NULL, iv != NULL ? iv : zero_iv,
                            encrypt ? 1 : 0, NULL) ||
        !cbc_run(cbc, &c, total, bs, blk)) {
        ret = GK5_ERR_CRYPTO_BACKEND;
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
