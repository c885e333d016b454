/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the files that run a prepared key per message share, private to
 * src/crypto (internal.h has what the families call): the segment types of
 * the cipher stream and the MAC input, the cursor over an IOV list's
 * cipher stream (crypto_iov.c), the MAC states' keying (mac.c, for
 * ukey.c), keyed cipher contexts (algs.c), and the CBC pass of the CBC/CTS
 * engine (cts.c, for the one-pass drivers in onepass.c).
 */
#ifndef GK5_UKEY_INT_H
#define GK5_UKEY_INT_H

#include "internal.h"

/* EVP_CipherUpdate takes an int length: feed long segments in slices. */
#define GK5_MAX_SLICE ((size_t)1 << 30)

/* ---- Segment types (crypto.h's GK5_CRYPTO_IOV_*) ---- */

/* The cipher stream: confounder, data, padding. */
static inline bool gk5i_in_stream(uint32_t flags)
{
    return flags == GK5_CRYPTO_IOV_HEADER || flags == GK5_CRYPTO_IOV_DATA ||
           flags == GK5_CRYPTO_IOV_PADDING;
}

/* The MAC input: the cipher stream and SIGN_ONLY data. */
static inline bool gk5i_in_mac(uint32_t flags)
{
    return gk5i_in_stream(flags) || flags == GK5_CRYPTO_IOV_SIGN_ONLY;
}

/* Adds len to *sum; false on overflow. */
static inline bool gk5i_add_len(size_t *sum, size_t len)
{
    if (len > SIZE_MAX - *sum) {
        return false;
    }
    *sum += len;
    return true;
}

/* A checksum list: exactly one CHECKSUM (1..cksum_bytes long), found in
 * *cksum; GK5_ERR_BAD_IOV otherwise. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_checksum_iov_check(const struct gk5_enctype *et, const gk5_crypto_iov *iov,
                        size_t n, const gk5_crypto_iov **cksum);

/* ---- A cursor over the cipher stream (crypto_iov.c) ----
 * A read/write position in the cipher input: the segments whose types are
 * in mask (HEADER, DATA, PADDING; or DATA alone for raw encryption). */
#define GK5I_TYPE_BIT(t) (1u << (t))
#define GK5I_STREAM_TYPES                                                      \
    (GK5I_TYPE_BIT(GK5_CRYPTO_IOV_HEADER) |                                    \
     GK5I_TYPE_BIT(GK5_CRYPTO_IOV_DATA) |                                      \
     GK5I_TYPE_BIT(GK5_CRYPTO_IOV_PADDING))

struct gk5i_cursor {
    gk5_crypto_iov *iov;
    size_t n;
    uint32_t mask;
    size_t i;   /* current segment */
    size_t off; /* offset in it */
};

/* The bytes left in the current segment (skipping used-up and unwanted
 * segments); NULL at the end. */
GK5_HIDDEN uint8_t *gk5i_cursor_peek(struct gk5i_cursor *c, size_t *avail);
/* Copies len stream bytes out of (to_buf) or into (!to_buf) buf. */
GK5_HIDDEN void gk5i_cursor_copy(struct gk5i_cursor *c, uint8_t *buf,
                                 size_t len, bool to_buf);

/* ---- MAC states (mac.c) ---- */

/* Whether m is keyed in the form a message would use now. */
GK5_HIDDEN bool gk5i_mac_ready(const struct gk5_enctype *et, bool fast,
                               const struct gk5i_mac *m);
/* Keys m: with fast (gk5i_ukey_fast), HMAC from precomputed pads where it
 * can and CMAC on the low-level Camellia where the seam says so; else, and
 * without fast always, EVP_MAC. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mac_key(const struct gk5_enctype *et,
                                         bool fast, const uint8_t *key,
                                         size_t key_len, struct gk5i_mac *m);
GK5_HIDDEN void gk5i_mac_clear(struct gk5i_mac *m);

/* ---- Keyed cipher contexts (algs.c) ---- */

/* The named cipher keyed for one direction (enc 1 or 0), padding off, zero
 * IV. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cipher_ctx_new(const char *name,
                                                const uint8_t *key,
                                                size_t key_len, int enc,
                                                EVP_CIPHER_CTX **out);

/* ---- The cipher engines ----
 * gk5i_crypt_stream and gk5i_raw_*_iov (ukey.c) run a ukey on one of
 * them: cts.c, the hand-written CTS over keyed CBC (only in a
 * -Dfastpath=true build), or cts_openssl.c, OpenSSL's CTS ciphers. */

/* Each: the message's cipher (gk5i_crypt_stream's contract), and RFC 1964
 * raw CBC with Ke over total bytes of DATA segments (whole blocks, checked
 * by the caller) from iv. */
/* The two backends' prototypes repeat one contract, deliberately: the
 * hand-written one is compiled out with -Dfastpath=false. */
#ifdef GK5_FASTPATH
GK5_HIDDEN GK5_WUR uint32_t gk5i_cts_crypt_stream(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    const uint8_t *iv, bool encrypt, uint8_t *next_iv);
GK5_HIDDEN GK5_WUR uint32_t gk5i_cts_raw_cbc(gk5_ukey *uk, const uint8_t *iv,
                                             gk5_crypto_iov *iov, size_t n,
                                             size_t total, bool encrypt);
#endif
GK5_HIDDEN GK5_WUR uint32_t gk5i_evp_crypt_stream(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    const uint8_t *iv, bool encrypt, uint8_t *next_iv);
GK5_HIDDEN GK5_WUR uint32_t gk5i_evp_raw_cbc(gk5_ukey *uk, const uint8_t *iv,
                                             gk5_crypto_iov *iov, size_t n,
                                             size_t total, bool encrypt);

/* ---- The CBC/CTS engine's pass (cts.c, for onepass.c) ---- */

/*
 * One message's pass of CBC with Ke, on AES-NI or in an OpenSSL context.
 * The OpenSSL context is not re-initialised per message: it holds the
 * last ciphertext block of the message before (uk->*_chain), and CBC with
 * that chaining value, applied to a first block XORed with (IV ^ chain)
 * -- or with its output XORed so when decrypting -- is CBC from the
 * message's own IV.  On AES-NI the pass keeps its chaining value itself.
 */
struct gk5i_cbc_pass {
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

/* Whether the cipher runs on AES-NI: an AES key, the CPU, the seam. */
GK5_HIDDEN bool gk5i_use_aesni(const gk5_ukey *uk);
/* Begins a message's pass from iv, keying Ke for the direction if this is
 * its first use. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cbc_begin(struct gk5i_cbc_pass *cp,
                                           gk5_ukey *uk, bool encrypt,
                                           const uint8_t *iv);
/* CBC over len bytes (whole blocks) from the cursor, in place; blk is
 * scratch for a block that straddles segments. */
GK5_HIDDEN GK5_WUR bool gk5i_cbc_run(struct gk5i_cbc_pass *cp,
                                     struct gk5i_cursor *c, size_t len,
                                     uint8_t *blk);
/* RFC 3962 5 stealing (CS3) of the last bs + d bytes (0 < d <= bs) at t,
 * continuing the pass; next receives the cipher state that follows. */
GK5_HIDDEN GK5_WUR bool gk5i_cts_tail(struct gk5i_cbc_pass *cp, uint8_t *t,
                                      size_t tail_len, const uint8_t *iv,
                                      uint8_t *next);
/* Ends a pass that went well: the context's chaining value is known. */
GK5_HIDDEN void gk5i_cbc_end(struct gk5i_cbc_pass *cp);

#endif /* GK5_UKEY_INT_H */
