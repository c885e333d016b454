/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The private header of src/crypto: one section per file, in the order the
 * files call each other, from the floor up.  A file calls only what its
 * own section or one above it declares (tools/check_crypto_layers.sh
 * holds the tree to it):
 *
 *   fast/            the hand-written primitives and their switch (fast.h)
 *   algs.c, confounder.c, crypto_iov.c, paths.c (and nfold.c, whose
 *                    functions crypto_int.h declares)
 *                    OpenSSL's algorithms, confounders, the IOV checks and
 *                    cursor, which paths run
 *   mac.c, cts_openssl.c, cts.c, kdf_batch.c, onepass.c, kdf.c
 *                    the engines: MACs, a message's cipher, subkeys on a
 *                    keyed base key, MAC and cipher in one pass, key
 *                    derivation
 *   ukey.c           prepared keys: keying on first use, the engine choice
 *   checksum.c, rfc3961_simplified.c
 *                    keyed checksums; what the simplified families share
 *   rfc3962_aes.c, rfc6803_camellia.c, rfc8009_aes_sha2.c, des3.c
 *                    the families (struct gk5_profile)
 *   enctypes.c       the enctype table, whose rows point at the families
 *   crypto_api.c     the entry points that go by an enctype's family: the
 *                    public RFC 3961 API and gk5i_encrypt_iov/decrypt_iov
 *
 * crypto_int.h is what the rest of gk5 sees of all this.
 */
#ifndef GK5_CRYPTO_INTERNAL_H
#define GK5_CRYPTO_INTERNAL_H

#include <openssl/evp.h>

#include "crypto_int.h"
#include "fast/fast.h"

/* ---- Sizes, constants and segment types, for every file ---- */

/* The largest MAC output of any enctype (HMAC-SHA384). */
#define GK5_MAX_MAC_BYTES 48
/* The largest cipher block (AES, Camellia). */
#define GK5_MAX_BLOCK_BYTES 16
/* EVP_CipherUpdate takes an int length: feed long segments in slices. */
#define GK5_MAX_SLICE ((size_t)1 << 30)

/* The RFC 3961 key derivation constants "kerberos" and "prf". */
#define GK5_KERBEROS_CONSTANT ((const uint8_t *)"kerberos")
#define GK5_KERBEROS_CONSTANT_LEN 8
#define GK5_PRF_CONSTANT ((const uint8_t *)"prf")
#define GK5_PRF_CONSTANT_LEN 3

/* Segment types (crypto.h's GK5_CRYPTO_IOV_*). */
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

/* ---- Which paths run a ukey (paths.c) ----
 * Whether ukeys made now run on OpenSSL's own primitives alone
 * (gk5i_openssl_only_set; always in a -Dfastpath=false build). */
GK5_HIDDEN bool gk5i_openssl_only_on(void);

/* ---- OpenSSL's algorithms, keyed (algs.c) ---- */

/* The named cipher keyed for one direction (enc 1 or 0), padding off, zero
 * IV. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cipher_ctx_new(const char *name,
                                                const uint8_t *key,
                                                size_t key_len, int enc,
                                                EVP_CIPHER_CTX **out);

/* One-shot helpers for key derivation and PRFs (not the per-message path). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cbc_encrypt_zero_iv(const char *cipher,
                                                     const uint8_t *key,
                                                     size_t key_len,
                                                     const uint8_t *in,
                                                     size_t len, uint8_t *out);

/* ---- Confounders (confounder.c) ---- */

/* A confounder: a copy of the given one, or random bytes. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_fill_confounder(uint8_t *dst, size_t len,
                                                 const uint8_t *given);
/* The same, random bytes from the calling thread's pool (refilled by
 * RAND_bytes). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_pooled_confounder(uint8_t *dst, size_t len,
                                                   const uint8_t *given);

/* ---- IOV lists and the cipher stream (crypto_iov.c) ---- */

/* What a validated encrypt/decrypt IOV list holds. */
struct gk5i_iov_info {
    gk5_crypto_iov *header;  /* exactly one, conf_bytes long */
    gk5_crypto_iov *trailer; /* exactly one, mac_bytes long */
    gk5_crypto_iov *padding; /* at most one */
    size_t data_len;         /* all DATA segments */
    size_t stream_len;       /* HEADER + DATA + PADDING: the cipher input */
};

/* Padding RFC 3961 needs after confounder | data_len bytes (0 with CTS). */
GK5_HIDDEN size_t gk5i_padding_length(const struct gk5_enctype *et,
                                      size_t data_len);
/* Checks an encrypt (or decrypt) IOV list against the enctype's lengths;
 * GK5_ERR_BAD_IOV / GK5_ERR_BAD_CIPHERTEXT_LENGTH / GK5_ERR_INVALID_ARGUMENT.
 */
GK5_HIDDEN GK5_WUR uint32_t gk5i_iov_check(const struct gk5_enctype *et,
                                           gk5_crypto_iov *iov, size_t n,
                                           bool encrypt,
                                           struct gk5i_iov_info *info);
/* Wipes HEADER, DATA and PADDING (after a failed integrity check). */
GK5_HIDDEN void gk5i_iov_wipe_stream(gk5_crypto_iov *iov, size_t n);
/* A checksum list: exactly one CHECKSUM (1..cksum_bytes long), found in
 * *cksum; GK5_ERR_BAD_IOV otherwise. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_checksum_iov_check(const struct gk5_enctype *et, const gk5_crypto_iov *iov,
                        size_t n, const gk5_crypto_iov **cksum);

/* A read/write position in the cipher input: the segments whose types are
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

/* ---- A prepared key's state (made by ukey.c; run by the engines) ----
 * Keyed state made on first use, once: a key that only ever seals never
 * schedules the decryption, a MIC key never the cipher.  Per message
 * nothing is re-keyed: the MACs restart with the key they hold, and the
 * OpenSSL CBC contexts are not even re-initialised (EVP_CipherInit_ex2
 * costs about as much as ciphering 200 bytes): each message starts from
 * the chaining value the context is known to hold, corrected to the
 * message's IV in its first block (see gk5i_crypt_stream).  Confounders
 * come from a per-thread pool (confounder.c), not a per-key one. */

/* A keyed MAC for messages: HMAC from precomputed pads, CMAC on the
 * low-level Camellia, or either through EVP_MAC (which restarts without
 * allocating); none set: not keyed yet.  A Camellia key may hold both
 * CMACs: the one the fast-path seam selects is used. */
struct gk5i_mac {
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    struct gk5i_hmac *hmac;
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    struct gk5i_camellia_cmac *cmac;
#endif
    EVP_MAC_CTX *evp;
};

struct gk5_ukey {
    const struct gk5_enctype *et;
    /* The raw subkeys keyed from: the context's (which outlives its
     * ukeys), or sk_own, the ukey's own copy. */
    const struct gk5i_subkeys *sk;
    struct gk5i_subkeys *sk_own;
    EVP_CIPHER_CTX *cbc_enc, *cbc_dec; /* Ke, CBC without padding */
    /* The chaining value (the last ciphertext block) each CBC context holds
     * after its last update; not known after keying or a failure, when the
     * next message re-initialises the context with its IV. */
    uint8_t enc_chain[GK5_MAX_BLOCK_BYTES], dec_chain[GK5_MAX_BLOCK_BYTES];
    bool enc_chain_known, dec_chain_known;
    bool aes;      /* the cipher is AES: the AES-NI path may run it */
    bool camellia; /* the cipher is Camellia: the low-level path may */
    /* Made while gk5i_openssl_only_set(true), or in a -Dfastpath=false
     * build: runs on OpenSSL's CTS ciphers and EVP_MAC only (cts_openssl.c,
     * mac.c), cbc_enc/cbc_dec then being the CTS (DES3: CBC) contexts. */
    bool openssl_only;
    struct gk5i_mac ki; /* Ki: HMAC or CMAC */
    struct gk5i_mac kc; /* Kc: HMAC or CMAC */
#ifdef GK5_HAVE_ONEPASS
    struct gk5i_aes_key *aes_enc, *aes_dec; /* Ke on AES-NI */
#endif
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    struct gk5i_camellia_key *cam; /* Ke, both directions */
#endif
};

/* Whether uk runs on the hand-written paths (cts.c, onepass.c, the HMAC
 * and CMAC by hand) rather than on OpenSSL's own primitives alone. */
static inline bool gk5i_ukey_fast(const gk5_ukey *uk)
{
#ifdef GK5_FASTPATH
    return !uk->openssl_only;
#else
    (void)uk;
    return false;
#endif
}

/* ---- MAC states and MACs over IOVs (mac.c) ---- */

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

/* MAC over prefix (may be NULL/0), then the HEADER, DATA, SIGN_ONLY and
 * PADDING segments in array order; *out_len = the full MAC length. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mac_iov(struct gk5i_mac *mac,
                                         const uint8_t *prefix,
                                         size_t prefix_len,
                                         const gk5_crypto_iov *iov, size_t n,
                                         uint8_t out[GK5_MAX_MAC_BYTES],
                                         size_t *out_len);
/* HMAC (et->digest) or CMAC (et->cipher) of in under key. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mac_oneshot(const struct gk5_enctype *et,
                                             const uint8_t *key, size_t key_len,
                                             const uint8_t *in, size_t in_len,
                                             uint8_t out[GK5_MAX_MAC_BYTES],
                                             size_t *out_len);

/* ---- The cipher engines (cts_openssl.c; cts.c) ----
 * gk5i_crypt_stream and gk5i_raw_*_iov (ukey.c) run a ukey on one of
 * them: cts_openssl.c, OpenSSL's CTS ciphers, or cts.c, the hand-written
 * CTS over keyed CBC (only in a -Dfastpath=true build).  Each: the
 * message's cipher (gk5i_crypt_stream's contract), and RFC 1964 raw CBC
 * with Ke over total bytes of DATA segments (whole blocks, checked by the
 * caller) from iv.  The two engines' prototypes repeat one contract. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_evp_crypt_stream(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    const uint8_t *iv, bool encrypt, uint8_t *next_iv);
GK5_HIDDEN GK5_WUR uint32_t gk5i_evp_raw_cbc(gk5_ukey *uk, const uint8_t *iv,
                                             gk5_crypto_iov *iov, size_t n,
                                             size_t total, bool encrypt);

#ifdef GK5_FASTPATH
GK5_HIDDEN GK5_WUR uint32_t gk5i_cts_crypt_stream(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    const uint8_t *iv, bool encrypt, uint8_t *next_iv);
GK5_HIDDEN GK5_WUR uint32_t gk5i_cts_raw_cbc(gk5_ukey *uk, const uint8_t *iv,
                                             gk5_crypto_iov *iov, size_t n,
                                             size_t total, bool encrypt);

/* The CBC/CTS engine's pass, for onepass.c. */
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
#endif /* GK5_FASTPATH */

/* ---- Many derivations from one base key (kdf_batch.c) ----
 * The base key's primitive keyed once (on the floor where it can be) for
 * all the subkeys of a context import; gk5i_derive_subkeys_many (kdf.c)
 * runs on it.  A -Dfastpath=false build has no kdf_batch.c: the inline
 * versions below say "not batched", and every subkey comes from OpenSSL's
 * KDFs, one call each. */
#ifdef GK5_FASTPATH
struct gk5i_kdf_base {
    const struct gk5_enctype *et;
#ifdef GK5_HAVE_ONEPASS
    struct gk5i_aes_key *aes; /* RFC 3961 DR on AES-NI */
#endif
    EVP_CIPHER_CTX *cbc; /* RFC 3961 DR in OpenSSL */
    EVP_MAC_CTX *cmac;   /* RFC 6803 */
#ifdef GK5_HAVE_LOWLEVEL_CAMELLIA
    /* RFC 6803 on the low-level Camellia: EVP_MAC's CMAC spends most of a
     * derivation looking up its parameters by name (an accepted Camellia
     * context derives eighteen keys). */
    struct gk5i_camellia_cmac *ccmac;
#endif
#ifdef GK5_HAVE_LOWLEVEL_HMAC
    struct gk5i_hmac *hmac; /* RFC 8009 */
#endif
};

GK5_HIDDEN void gk5i_kdf_base_free(struct gk5i_kdf_base *b);
/* Keys the base key's primitive.  *batched false (and GK5_OK): no batched
 * form for this enctype or build; the caller derives one by one. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_base_init(struct gk5i_kdf_base *b,
                                               const struct gk5_enctype *et,
                                               const uint8_t *key,
                                               size_t key_len, bool *batched);
/* DK(base key, constant) into out_len bytes, the row's construction. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_base_derive(struct gk5i_kdf_base *b,
                                                 const uint8_t *constant,
                                                 size_t constant_len,
                                                 uint8_t *out, size_t out_len);
#else
struct gk5i_kdf_base {
    const struct gk5_enctype *et;
};

static inline void gk5i_kdf_base_free(struct gk5i_kdf_base *b)
{
    (void)b;
}

static inline uint32_t gk5i_kdf_base_init(struct gk5i_kdf_base *b,
                                          const struct gk5_enctype *et,
                                          const uint8_t *key, size_t key_len,
                                          bool *batched)
{
    (void)key;
    (void)key_len;
    b->et = et;
    *batched = false;
    return GK5_OK;
}

static inline uint32_t gk5i_kdf_base_derive(struct gk5i_kdf_base *b,
                                            const uint8_t *constant,
                                            size_t constant_len, uint8_t *out,
                                            size_t out_len)
{
    (void)b;
    (void)constant;
    (void)constant_len;
    (void)out;
    (void)out_len;
    return GK5_ERR_INVALID_ARGUMENT;
}
#endif /* GK5_FASTPATH */

/* ---- The one-pass drivers (onepass.c) ---- */
#if defined(GK5_HAVE_ONEPASS) && defined(GK5_HAVE_LOWLEVEL_HMAC)
#define GK5_HAVE_ONEPASS_DRIVERS 1
/*
 * RFC 3962 sealing in one pass where it applies (AES with HMAC-SHA1, the
 * CPU instructions, no SIGN_ONLY data, long enough to gain): the MAC of
 * and the CTS encryption of the HEADER, DATA and PADDING segments, each
 * piece read once.  *done false: not applied, nothing touched. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_seal_onepass(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len, bool *done);
/* The same for unsealing: the CTS decryption and the MAC of the plaintext
 * in one walk.  *done false: not applied, nothing touched. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_unseal_onepass(
    gk5_ukey *uk, gk5_crypto_iov *iov, size_t n, size_t stream_len,
    uint8_t mac[GK5_MAX_MAC_BYTES], size_t *mac_len, bool *done);
/* RFC 8009 with HMAC-SHA-256 in one pass where it applies (AES-NI and
 * SHA-NI, no SIGN_ONLY data, long enough): the CTS encryption (decryption)
 * of the HEADER, DATA and PADDING segments and the HMAC of the zero IV and
 * the ciphertext, each piece read once.  *done false: not applied, nothing
 * touched.  Decrypting, the caller compares the MAC and wipes on a
 * mismatch. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_etm_onepass(gk5_ukey *uk, gk5_crypto_iov *iov,
                                             size_t n, size_t stream_len,
                                             bool encrypt,
                                             uint8_t mac[GK5_MAX_MAC_BYTES],
                                             size_t *mac_len, bool *done);
#else
/* No one-pass drivers in this build: the serial path runs every message. */
static inline uint32_t gk5i_mte_seal_onepass(gk5_ukey *uk, gk5_crypto_iov *iov,
                                             size_t n, size_t stream_len,
                                             uint8_t mac[GK5_MAX_MAC_BYTES],
                                             size_t *mac_len, bool *done)
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

static inline uint32_t gk5i_mte_unseal_onepass(gk5_ukey *uk,
                                               gk5_crypto_iov *iov, size_t n,
                                               size_t stream_len,
                                               uint8_t mac[GK5_MAX_MAC_BYTES],
                                               size_t *mac_len, bool *done)
{
    return gk5i_mte_seal_onepass(uk, iov, n, stream_len, mac, mac_len, done);
}

static inline uint32_t gk5i_etm_onepass(gk5_ukey *uk, gk5_crypto_iov *iov,
                                        size_t n, size_t stream_len,
                                        bool encrypt,
                                        uint8_t mac[GK5_MAX_MAC_BYTES],
                                        size_t *mac_len, bool *done)
{
    (void)encrypt;
    return gk5i_mte_seal_onepass(uk, iov, n, stream_len, mac, mac_len, done);
}
#endif

/* ---- Key derivation (kdf.c) ---- */
/* RFC 3961 5.1 DK via KRB5KDF (n-fold of the constant, DR, and for DES3
 * OpenSSL's own random-to-key with parity); out_len = et->key_bytes. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_rfc3961(const struct gk5_enctype *et,
                                             const uint8_t *key, size_t key_len,
                                             const uint8_t *constant,
                                             size_t constant_len, uint8_t *out,
                                             size_t out_len);
/* SP 800-108 counter mode with HMAC(et->digest): RFC 8009 KDF-HMAC-SHA2. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_hmac_counter(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *label, size_t label_len, const uint8_t *context,
    size_t context_len, uint8_t *out, size_t out_len);
/* SP 800-108 feedback mode with CMAC(et->cipher): RFC 6803
 * KDF-FEEDBACK-CMAC, K(0) = a zero block. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdf_cmac_feedback(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *label, size_t label_len, uint8_t *out, size_t out_len);
/* PBKDF2 with HMAC(digest). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_pbkdf2(const char *digest, const uint8_t *pw,
                                        size_t pw_len, const uint8_t *salt,
                                        size_t salt_len, uint32_t iter,
                                        uint8_t *out, size_t out_len);
/* The iteration count from s2kparams (RFC 3962 4): 4 bytes big-endian, or
 * the row's default when absent. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_s2k_iterations(const struct gk5_enctype *et,
                                                const uint8_t *params,
                                                size_t params_len,
                                                uint32_t *iter);
/* RFC 6803 3 / RFC 8009 4: saltp = enctype-name | 0x00 | salt (allocated,
 * free with OPENSSL_clear_free). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_saltp(const struct gk5_enctype *et,
                                       const uint8_t *salt, size_t salt_len,
                                       uint8_t **out, size_t *out_len);
/* tkey = PBKDF2(passphrase, salt or saltp, iter_count, keylength) with
 * HMAC(digest), the iteration count from s2kparams. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_s2k_tkey(
    const struct gk5_enctype *et, const char *digest, bool prefixed,
    const uint8_t *pw, size_t pw_len, const uint8_t *salt, size_t salt_len,
    const uint8_t *params, size_t params_len, uint8_t *tkey, size_t key_len);

/* ---- Prepared keys (ukey.c) ---- */

/* What a message needs keyed (gk5i_ukey_need): Ki, Kc.  The cipher is
 * keyed by gk5i_crypt_stream itself. */
#define GK5I_NEED_KI 0x1u
#define GK5I_NEED_KC 0x2u
GK5_HIDDEN GK5_WUR uint32_t gk5i_ukey_need(gk5_ukey *uk, unsigned what);

/* Runs the cipher over the HEADER, DATA and PADDING segments in array order,
 * in place: CBC with ciphertext stealing, CS3 (RFC 3962 5) for the CTS
 * enctypes; without CTS (DES3) CBC over all, which must be whole blocks.
 * iv NULL = zero; next_iv (may be NULL) receives the last full cipher block
 * (RFC 3962's cipher state). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_crypt_stream(gk5_ukey *uk, gk5_crypto_iov *iov,
                                              size_t n, size_t stream_len,
                                              const uint8_t *iv, bool encrypt,
                                              uint8_t *next_iv);
/* The start of an RFC 3961 encrypt or decrypt over an IOV list (MtE and
 * EtM alike): Ki keyed, then the list checked against the enctype. */
static inline GK5_WUR uint32_t gk5i_crypt_iov_begin(gk5_ukey *uk,
                                                    gk5_crypto_iov *iov,
                                                    size_t n, bool encrypt,
                                                    struct gk5i_iov_info *info)
{
    uint32_t ret = gk5i_ukey_need(uk, GK5I_NEED_KI);

    if (ret == GK5_OK) {
        ret = gk5i_iov_check(uk->et, iov, n, encrypt, info);
    }
    return ret;
}
/* A failed encryption leaves no half-made ciphertext (nor its plaintext)
 * and no MAC behind. */
static inline void gk5i_seal_wipe(gk5_crypto_iov *iov, size_t n,
                                  const struct gk5i_iov_info *info)
{
    gk5i_iov_wipe_stream(iov, n);
    zap(info->trailer->data, info->trailer->length);
}

/* ---- Shared by the simplified-profile families (rfc3961_simplified.c) ---- */
GK5_HIDDEN size_t gk5i_derive_length_key(const struct gk5_enctype *et,
                                         const uint8_t *constant,
                                         size_t constant_len);
/* random-to-key is the identity (AES, Camellia, AES-SHA2). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_random_to_key_identity(const struct gk5_enctype *et, const uint8_t *in,
                            size_t in_len, uint8_t *key, size_t key_len);
/* RFC 3961 5.3 PRF: E(DK(key, "prf"), truncate(SHA-1(in))) with a zero IV
 * (RFC 3961 5.3; AES-SHA1 and DES3). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_prf_simplified(
    const struct gk5_enctype *et, const uint8_t *key, size_t key_len,
    const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);
/* MAC-then-encrypt over IOVs: E(Ke, conf | data [| pad]) | H(Ki, ...). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_encrypt_iov(gk5_ukey *uk,
                                                 const uint8_t *confounder,
                                                 gk5_crypto_iov *iov, size_t n);
GK5_HIDDEN GK5_WUR uint32_t gk5i_mte_decrypt_iov(gk5_ukey *uk,
                                                 gk5_crypto_iov *iov, size_t n);

/* ---- The families (rfc3962_aes.c, rfc6803_camellia.c, rfc8009_aes_sha2.c,
 *      des3.c) ----
 * Each defines a profile; each enctype row points at one.  The rows give
 * the lengths and OpenSSL names, the profile gives the algorithms.
 *   simplified  RFC 3961 5.3 simplified profile with CTS (RFC 3962 AES) and
 *               RFC 6803 Camellia (same MtE shape, CMAC, KBKDF feedback)
 *   rfc8009     RFC 8009 encrypt-then-MAC, KDF-HMAC-SHA2
 *   des3        RFC 3961 6.3 des3-cbc-hmac-sha1-kd
 * Every family's functions have these signatures, and every family's
 * table (gk5i_profile_*) lists them in this order: the families' files look
 * alike there by design, not by copying. */
struct gk5_profile {
    const char *family; /* "rfc3962", "rfc6803", "rfc8009", "des3" */
    /* DK(key, constant) -> out (out_len from derive_length). */
    uint32_t (*derive)(const struct gk5_enctype *et, const uint8_t *key,
                       size_t key_len, const uint8_t *constant,
                       size_t constant_len, uint8_t *out, size_t out_len);
    size_t (*derive_length)(const struct gk5_enctype *et,
                            const uint8_t *constant, size_t constant_len);
    uint32_t (*string_to_key)(const struct gk5_enctype *et, const uint8_t *pw,
                              size_t pw_len, const uint8_t *salt,
                              size_t salt_len, const uint8_t *params,
                              size_t params_len, uint8_t *key, size_t key_len);
    uint32_t (*random_to_key)(const struct gk5_enctype *et, const uint8_t *in,
                              size_t in_len, uint8_t *key, size_t key_len);
    uint32_t (*prf)(const struct gk5_enctype *et, const uint8_t *key,
                    size_t key_len, const uint8_t *in, size_t in_len,
                    uint8_t *out, size_t out_len);
    /* Encryption over validated crypto IOVs with a prepared key
     * (gk5i_encrypt_iov / gk5i_decrypt_iov dispatch here).  MtE for the
     * simplified profile and DES3, EtM for RFC 8009. */
    uint32_t (*encrypt_iov)(gk5_ukey *uk, const uint8_t *confounder,
                            gk5_crypto_iov *iov, size_t n);
    uint32_t (*decrypt_iov)(gk5_ukey *uk, gk5_crypto_iov *iov, size_t n);
};

GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc3962;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc6803;
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_rfc8009;
#ifdef GK5_WITH_DES3
GK5_HIDDEN extern const struct gk5_profile gk5i_profile_des3;
#endif

#endif /* GK5_CRYPTO_INTERNAL_H */
