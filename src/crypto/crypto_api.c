/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The public RFC 3961 API (include/gk5/crypto.h): thin wrappers that check
 * the enctype against the table FIRST (so rc4, single DES, a des3 that is
 * not built and unknown numbers get their refusal code from every entry
 * point, before anything else is looked at), then the key length, then
 * make a temporary prepared key and run the internal IOV operations.
 * And the prepared-key calls of crypto_int.h that go by the enctype's
 * family: at the top of src/crypto, because they call into the families
 * (through the row's profile), which call everything below them.
 *
 * Return values common to every function here:
 *   GK5_OK                      success
 *   GK5_ERR_ENCTYPE_REJECTED    enctype refused by policy (RFC 8429/6649),
 *   GK5_ERR_ENCTYPE_NOT_BUILT   des3 without -Ddes3=true,
 *   GK5_ERR_ENCTYPE_UNKNOWN     not in the table; all three carry the
 *                               enctype in the high 16 bits
 *   GK5_ERR_BAD_KEY_LENGTH      key_len is not the enctype's key length
 *   GK5_ERR_INVALID_ARGUMENT    a NULL pointer or an impossible length
 *   GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND
 * and, where noted, more.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* The enctype row, or its refusal code. */
static GK5_WUR uint32_t usable(int32_t enctype, const struct gk5_enctype **et)
{
    return gk5i_enctype_usable(enctype, et);
}

/* The prologue of every keyed call: the enctype's row or its refusal code,
 * then GK5_ERR_BAD_KEY_LENGTH unless key_len is the enctype's key length. */
static GK5_WUR uint32_t usable_key(int32_t enctype, size_t key_len,
                                   const struct gk5_enctype **et)
{
    uint32_t ret = usable(enctype, et);

    if (ret == GK5_OK && key_len != (*et)->key_bytes) {
        ret = GK5_ERR_BAD_KEY_LENGTH;
    }
    return ret;
}

/* The prologue of every length query: *len zeroed if it can be, the
 * enctype's row or its refusal code, then GK5_ERR_INVALID_ARGUMENT for a
 * NULL len. */
static GK5_WUR uint32_t usable_len(int32_t enctype, size_t *len,
                                   const struct gk5_enctype **et)
{
    uint32_t ret;

    if (len != NULL) {
        *len = 0;
    }
    ret = usable(enctype, et);
    if (ret == GK5_OK && len == NULL) {
        ret = GK5_ERR_INVALID_ARGUMENT;
    }
    return ret;
}

/* A prepared key for (enctype, key, usage): enctype first, then key. */
static GK5_WUR uint32_t make_ukey(int32_t enctype, const void *key,
                                  size_t key_len, uint32_t usage,
                                  gk5_ukey **out)
{
    const struct gk5_enctype *et = NULL;
    struct gk5i_subkeys sk;
    uint32_t ret;

    *out = NULL;
    memset(&sk, 0, sizeof(sk));
    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (key == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = gk5i_derive_subkeys(et, key, key_len, usage, &sk);
    if (ret == GK5_OK) {
        ret = gk5i_ukey_new(et, &sk, out);
    }
    gk5i_subkeys_wipe(&sk);
    return ret;
}

/* A profile call's result; the output it was to fill is wiped if it
 * failed (STYLE: wipe outputs on failure). */
static GK5_WUR uint32_t wiped_on_failure(uint32_t ret, void *out, size_t len)
{
    if (ret != GK5_OK) {
        zap(out, len);
    }
    return ret;
}

/* ---- Lengths ---- */

enum row_len { ROW_KEY, ROW_CKSUM, ROW_PRF };

/* A length that is one field of the enctype's row. */
static GK5_WUR uint32_t row_length(int32_t enctype, enum row_len which,
                                   size_t *len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret = usable_len(enctype, len, &et);

    if (ret != GK5_OK) {
        return ret;
    }
    switch (which) {
    case ROW_KEY:
        *len = et->key_bytes;
        break;
    case ROW_CKSUM:
        *len = et->cksum_bytes;
        break;
    case ROW_PRF:
        *len = et->prf_bytes;
        break;
    }
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_c_key_length(int32_t enctype, size_t *len)
{
    return row_length(enctype, ROW_KEY, len);
}

/* HEADER: the confounder; TRAILER: the MAC in the ciphertext; PADDING: what
 * data_len bytes of plaintext need (DES3 only); CHECKSUM: the checksum;
 * DATA and SIGN_ONLY: data_len; EMPTY: 0.  Other types:
 * GK5_ERR_INVALID_ARGUMENT. */
GK5_EXPORT uint32_t gk5_c_crypto_length(int32_t enctype, uint32_t iov_type,
                                        size_t data_len, size_t *len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_len(enctype, len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    switch (iov_type) {
    case GK5_CRYPTO_IOV_EMPTY:
        *len = 0;
        break;
    case GK5_CRYPTO_IOV_HEADER:
        *len = et->conf_bytes;
        break;
    case GK5_CRYPTO_IOV_DATA:
    case GK5_CRYPTO_IOV_SIGN_ONLY:
        *len = data_len;
        break;
    case GK5_CRYPTO_IOV_PADDING:
        *len = gk5i_padding_length(et, data_len);
        break;
    case GK5_CRYPTO_IOV_TRAILER:
        *len = et->mac_bytes;
        break;
    case GK5_CRYPTO_IOV_CHECKSUM:
        *len = et->cksum_bytes;
        break;
    default:
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return GK5_OK;
}

/* confounder | plaintext | padding | MAC; GK5_ERR_INVALID_ARGUMENT if that
 * overflows a size_t. */
static GK5_WUR uint32_t cipher_length(const struct gk5_enctype *et,
                                      size_t plain_len, size_t *out)
{
    size_t fixed = et->conf_bytes + et->block_bytes + et->mac_bytes;

    *out = 0;
    if (plain_len > SIZE_MAX - fixed) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = et->conf_bytes + plain_len + gk5i_padding_length(et, plain_len) +
           et->mac_bytes;
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_c_encrypt_length(int32_t enctype, size_t plain_len,
                                         size_t *cipher_len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_len(enctype, cipher_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    return cipher_length(et, plain_len, cipher_len);
}

GK5_EXPORT uint32_t gk5_c_checksum_length(int32_t enctype, size_t *len)
{
    return row_length(enctype, ROW_CKSUM, len);
}

GK5_EXPORT uint32_t gk5_c_prf_length(int32_t enctype, size_t *len)
{
    return row_length(enctype, ROW_PRF, len);
}

/* ---- Keys ---- */

/* RFC 3961 3 string-to-key.  key_len must be the key length
 * (GK5_ERR_BAD_KEY_LENGTH).  GK5_ERR_BAD_S2K_PARAMS: params not 4 bytes, an
 * iteration count of 0 or above 2^24 - 1 (AES, Camellia, AES-SHA2), or any
 * params for DES3; GK5_ERR_S2K_WEAK: a count below the enctype's default
 * without GK5_S2K_ALLOW_WEAK.  The key is wiped on failure. */
GK5_EXPORT uint32_t gk5_c_string_to_key_flags(
    int32_t enctype, const void *password, size_t password_len,
    const void *salt, size_t salt_len, const void *params, size_t params_len,
    uint32_t flags, void *key, size_t key_len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret, iter = 0;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (key == NULL || (password == NULL && password_len != 0) ||
        (salt == NULL && salt_len != 0) ||
        (params == NULL && params_len != 0) ||
        (flags & ~GK5_S2K_ALLOW_WEAK) != 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    /* MIT's policy: no count below the enctype's default unless asked. */
    if (et->s2k_default_iter != 0 && (flags & GK5_S2K_ALLOW_WEAK) == 0) {
        ret = gk5i_s2k_iterations(et, params, params_len, &iter);
        if (ret != GK5_OK) {
            return ret;
        }
        if (iter < et->s2k_default_iter) {
            return GK5_ERR_S2K_WEAK;
        }
    }
    return wiped_on_failure(
        et->profile->string_to_key(et, password, password_len, salt, salt_len,
                                   params, params_len, key, key_len),
        key, key_len);
}

GK5_EXPORT uint32_t gk5_c_string_to_key(int32_t enctype, const void *password,
                                        size_t password_len, const void *salt,
                                        size_t salt_len, const void *params,
                                        size_t params_len, void *key,
                                        size_t key_len)
{
    return gk5_c_string_to_key_flags(enctype, password, password_len, salt,
                                     salt_len, params, params_len, 0, key,
                                     key_len);
}

/* RFC 3961 3 random-to-key: random_len must be the key-generation seed
 * length (DES3: 21), key_len the key length; else GK5_ERR_BAD_KEY_LENGTH. */
GK5_EXPORT uint32_t gk5_c_random_to_key(int32_t enctype, const void *random,
                                        size_t random_len, void *key,
                                        size_t key_len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (random_len != et->keygen_bytes) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    if (key == NULL || random == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return wiped_on_failure(
        et->profile->random_to_key(et, random, random_len, key, key_len), key,
        key_len);
}

GK5_EXPORT uint32_t gk5_c_derive_length(int32_t enctype, const void *constant,
                                        size_t constant_len, size_t *len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_len(enctype, len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (constant == NULL || constant_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *len = et->profile->derive_length(et, constant, constant_len);
    return GK5_OK;
}

/* DK(key, constant).  The constant must not be empty
 * (GK5_ERR_INVALID_ARGUMENT); out_len must be gk5_c_derive_length()'s
 * answer (GK5_ERR_BAD_KEY_LENGTH).  out is wiped on failure. */
GK5_EXPORT uint32_t gk5_c_derive_key(int32_t enctype, const void *key,
                                     size_t key_len, const void *constant,
                                     size_t constant_len, void *out,
                                     size_t out_len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (key == NULL || out == NULL || constant == NULL || constant_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (out_len != et->profile->derive_length(et, constant, constant_len)) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    return wiped_on_failure(et->profile->derive(et, key, key_len, constant,
                                                constant_len, out, out_len),
                            out, out_len);
}

/* ---- Contiguous encryption ---- */

/* Encrypts in (in_len) into out as confounder | ciphertext | MAC. */
static GK5_WUR uint32_t encrypt_contiguous(int32_t enctype, const void *key,
                                           size_t key_len, uint32_t usage,
                                           const uint8_t *confounder,
                                           size_t confounder_len,
                                           const void *in, size_t in_len,
                                           void *out, size_t *out_len)
{
    const struct gk5_enctype *et = NULL;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[4];
    size_t cap, need = 0, pad;
    uint8_t *o = out;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (out_len == NULL || out == NULL || (in == NULL && in_len != 0) ||
        (confounder != NULL && confounder_len != et->conf_bytes)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    cap = *out_len;
    *out_len = 0;
    ret = cipher_length(et, in_len, &need);
    if (ret != GK5_OK) {
        return ret;
    }
    if (cap < need) {
        return GK5_ERR_BUFFER_TOO_SMALL;
    }
    ret = make_ukey(enctype, key, key_len, usage, &uk);
    if (ret != GK5_OK) {
        return ret;
    }
    pad = gk5i_padding_length(et, in_len);
    if (in_len != 0) {
        memmove(o + et->conf_bytes, in, in_len);
    }
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, o, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, o + et->conf_bytes, in_len};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_PADDING,
                              o + et->conf_bytes + in_len, pad};
    iov[3] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER,
                              o + et->conf_bytes + in_len + pad, et->mac_bytes};
    ret = gk5i_encrypt_iov(uk, confounder, iov, GK5_ARRAY_SIZE(iov));
    if (ret == GK5_OK) {
        *out_len = need;
    } else {
        zap(out, need);
    }
    gk5i_ukey_free(uk);
    return ret;
}

/* RFC 3961 3 encrypt with a random confounder.  *out_len: in, the capacity
 * of out (GK5_ERR_BUFFER_TOO_SMALL if below gk5_c_encrypt_length()); out,
 * the ciphertext length (0 on failure).  in and out may overlap. */
GK5_EXPORT uint32_t gk5_c_encrypt(int32_t enctype, const void *key,
                                  size_t key_len, uint32_t usage,
                                  const void *in, size_t in_len, void *out,
                                  size_t *out_len)
{
    return encrypt_contiguous(enctype, key, key_len, usage, NULL, 0, in, in_len,
                              out, out_len);
}

/* The same with a given confounder of exactly the confounder length, for
 * known-answer tests (crypto.h). */
GK5_EXPORT uint32_t gk5_c_encrypt_confounder(int32_t enctype, const void *key,
                                             size_t key_len, uint32_t usage,
                                             const void *confounder,
                                             size_t confounder_len,
                                             const void *in, size_t in_len,
                                             void *out, size_t *out_len)
{
    if (confounder == NULL) {
        const struct gk5_enctype *et = NULL;
        uint32_t ret = usable(enctype, &et);

        return ret != GK5_OK ? ret : GK5_ERR_INVALID_ARGUMENT;
    }
    return encrypt_contiguous(enctype, key, key_len, usage, confounder,
                              confounder_len, in, in_len, out, out_len);
}

/* RFC 3961 3 decrypt.  GK5_ERR_BAD_CIPHERTEXT_LENGTH: shorter than a
 * confounder and MAC, or (DES3) not whole blocks; GK5_ERR_INTEGRITY: the MAC
 * does not verify (out wiped).  *out_len as for encrypt; DES3 plaintext
 * keeps its zero padding (RFC 3961 has no length field).  in and out may
 * overlap. */
GK5_EXPORT uint32_t gk5_c_decrypt(int32_t enctype, const void *key,
                                  size_t key_len, uint32_t usage,
                                  const void *in, size_t in_len, void *out,
                                  size_t *out_len)
{
    const struct gk5_enctype *et = NULL;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[3];
    uint8_t conf[GK5_MAX_BLOCK_BYTES];
    uint8_t mac[GK5_MAX_MAC_BYTES];
    const uint8_t *i = in;
    size_t cap, plain_len;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (out_len == NULL || (in == NULL && in_len != 0) ||
        et->conf_bytes > sizeof(conf) || et->mac_bytes > sizeof(mac)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    cap = *out_len;
    *out_len = 0;
    if (in_len < et->conf_bytes + et->mac_bytes ||
        (et->cts_cipher == NULL &&
         (in_len - et->mac_bytes) % et->block_bytes != 0)) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    plain_len = in_len - et->conf_bytes - et->mac_bytes;
    if (cap < plain_len) {
        return GK5_ERR_BUFFER_TOO_SMALL;
    }
    if (out == NULL && plain_len != 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = make_ukey(enctype, key, key_len, usage, &uk);
    if (ret != GK5_OK) {
        return ret;
    }
    /* Confounder and MAC to the stack first: out may overlap in. */
    memcpy(conf, i, et->conf_bytes);
    memcpy(mac, i + in_len - et->mac_bytes, et->mac_bytes);
    if (plain_len != 0) {
        memmove(out, i + et->conf_bytes, plain_len);
    }
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, conf, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, out, plain_len};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER, mac, et->mac_bytes};
    ret = gk5i_decrypt_iov(uk, iov, GK5_ARRAY_SIZE(iov));
    if (ret == GK5_OK) {
        *out_len = plain_len;
    }
    gk5i_ukey_free(uk);
    zap(conf, sizeof(conf));
    zap(mac, sizeof(mac));
    return ret;
}

/* ---- Contiguous checksums and PRF ---- */

/* *cksum_len: in, the capacity (GK5_ERR_BUFFER_TOO_SMALL below the checksum
 * length); out, the checksum length. */
GK5_EXPORT uint32_t gk5_c_checksum(int32_t enctype, const void *key,
                                   size_t key_len, uint32_t usage,
                                   const void *in, size_t in_len, void *cksum,
                                   size_t *cksum_len)
{
    const struct gk5_enctype *et = NULL;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[2];
    size_t cap;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (cksum == NULL || cksum_len == NULL || (in == NULL && in_len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    cap = *cksum_len;
    *cksum_len = 0;
    if (cap < et->cksum_bytes) {
        return GK5_ERR_BUFFER_TOO_SMALL;
    }
    ret = make_ukey(enctype, key, key_len, usage, &uk);
    if (ret != GK5_OK) {
        return ret;
    }
    iov[0] =
        (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, (void *)(uintptr_t)in, in_len};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_CHECKSUM, cksum, et->cksum_bytes};
    ret = gk5i_checksum_iov(uk, iov, GK5_ARRAY_SIZE(iov));
    if (ret == GK5_OK) {
        *cksum_len = et->cksum_bytes;
    }
    gk5i_ukey_free(uk);
    return ret;
}

/* GK5_ERR_INTEGRITY if the checksum does not verify, including when
 * cksum_len is not the checksum length. */
GK5_EXPORT uint32_t gk5_c_verify_checksum(int32_t enctype, const void *key,
                                          size_t key_len, uint32_t usage,
                                          const void *in, size_t in_len,
                                          const void *cksum, size_t cksum_len)
{
    const struct gk5_enctype *et = NULL;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[2];
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (cksum == NULL || (in == NULL && in_len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (cksum_len != et->cksum_bytes) {
        return GK5_ERR_INTEGRITY;
    }
    ret = make_ukey(enctype, key, key_len, usage, &uk);
    if (ret != GK5_OK) {
        return ret;
    }
    iov[0] =
        (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, (void *)(uintptr_t)in, in_len};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_CHECKSUM, (void *)(uintptr_t)cksum,
                              cksum_len};
    ret = gk5i_verify_checksum_iov(uk, iov, GK5_ARRAY_SIZE(iov));
    gk5i_ukey_free(uk);
    return ret;
}

/* RFC 3961 3 pseudo-random (RFC 3961 5.3 for AES-SHA1 and DES3, RFC 6803
 * 6, RFC 8009 5).  out_len must be gk5_c_prf_length()'s answer
 * (GK5_ERR_BUFFER_TOO_SMALL below it, GK5_ERR_INVALID_ARGUMENT above). */
GK5_EXPORT uint32_t gk5_c_prf(int32_t enctype, const void *key, size_t key_len,
                              const void *in, size_t in_len, void *out,
                              size_t out_len)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret;

    ret = usable_key(enctype, key_len, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (key == NULL || out == NULL || (in == NULL && in_len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (out_len < et->prf_bytes) {
        return GK5_ERR_BUFFER_TOO_SMALL;
    }
    if (out_len > et->prf_bytes) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return wiped_on_failure(
        et->profile->prf(et, key, key_len, in, in_len, out, out_len), out,
        out_len);
}

/* ---- IOV forms ---- */

enum iov_call { IOV_ENCRYPT, IOV_DECRYPT, IOV_CHECKSUM, IOV_VERIFY };

/* The public checksum lists carry a whole checksum: exactly one CHECKSUM
 * segment of exactly the checksum length (else GK5_ERR_BAD_IOV). */
static GK5_WUR uint32_t whole_checksum(int32_t enctype,
                                       const gk5_crypto_iov *iov, size_t n)
{
    const struct gk5_enctype *et = NULL;
    uint32_t ret = usable(enctype, &et);

    if (ret != GK5_OK) {
        return ret;
    }
    if (iov == NULL) {
        return GK5_ERR_BAD_IOV;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].flags == GK5_CRYPTO_IOV_CHECKSUM &&
            iov[i].length != et->cksum_bytes) {
            return GK5_ERR_BAD_IOV;
        }
    }
    return GK5_OK;
}

/* The four IOV forms: a temporary key, for the checksums the whole-checksum
 * rule, then the internal operation.  IOV_VERIFY only reads iov. */
static GK5_WUR uint32_t run_iov(enum iov_call call, int32_t enctype,
                                const void *key, size_t key_len, uint32_t usage,
                                gk5_crypto_iov *iov, size_t iov_count)
{
    gk5_ukey *uk = NULL;
    uint32_t ret;

    ret = make_ukey(enctype, key, key_len, usage, &uk);
    if (ret == GK5_OK && (call == IOV_CHECKSUM || call == IOV_VERIFY)) {
        ret = whole_checksum(enctype, iov, iov_count);
    }
    if (ret == GK5_OK) {
        switch (call) {
        case IOV_ENCRYPT:
            ret = gk5i_encrypt_iov(uk, NULL, iov, iov_count);
            break;
        case IOV_DECRYPT:
            ret = gk5i_decrypt_iov(uk, iov, iov_count);
            break;
        case IOV_CHECKSUM:
            ret = gk5i_checksum_iov(uk, iov, iov_count);
            break;
        case IOV_VERIFY:
            ret = gk5i_verify_checksum_iov(uk, iov, iov_count);
            break;
        }
    }
    gk5i_ukey_free(uk);
    return ret;
}

/* The four public IOV forms below are one call each into run_iov; what they
 * still share, their parameter lists, is the ABI of include/gk5/crypto.h
 * (so not folded further).  Likewise the argument checks of the contiguous
 * calls above: each enctype-then-key prologue is one usable_key() call, and
 * the checks after it differ per call. */

/* Encrypts in place with a random confounder.  GK5_ERR_BAD_IOV: a missing,
 * repeated or wrongly sized HEADER, TRAILER or PADDING (see
 * gk5_c_crypto_length()), an unknown segment type, or NULL data. */
GK5_EXPORT uint32_t gk5_c_encrypt_iov(int32_t enctype, const void *key,
                                      size_t key_len, uint32_t usage,
                                      gk5_crypto_iov *iov, size_t iov_count)
{
    return run_iov(IOV_ENCRYPT, enctype, key, key_len, usage, iov, iov_count);
}

/* Decrypts and verifies in place.  As gk5_c_encrypt_iov, and
 * GK5_ERR_INTEGRITY (HEADER, DATA and PADDING wiped) or
 * GK5_ERR_BAD_CIPHERTEXT_LENGTH. */
GK5_EXPORT uint32_t gk5_c_decrypt_iov(int32_t enctype, const void *key,
                                      size_t key_len, uint32_t usage,
                                      gk5_crypto_iov *iov, size_t iov_count)
{
    return run_iov(IOV_DECRYPT, enctype, key, key_len, usage, iov, iov_count);
}

/* Keyed checksum of the DATA and SIGN_ONLY segments (in array order) into
 * the CHECKSUM segment. */
GK5_EXPORT uint32_t gk5_c_checksum_iov(int32_t enctype, const void *key,
                                       size_t key_len, uint32_t usage,
                                       gk5_crypto_iov *iov, size_t iov_count)
{
    return run_iov(IOV_CHECKSUM, enctype, key, key_len, usage, iov, iov_count);
}

/* GK5_ERR_INTEGRITY if the CHECKSUM segment does not verify. */
GK5_EXPORT uint32_t gk5_c_verify_checksum_iov(int32_t enctype, const void *key,
                                              size_t key_len, uint32_t usage,
                                              const gk5_crypto_iov *iov,
                                              size_t iov_count)
{
    return run_iov(IOV_VERIFY, enctype, key, key_len, usage,
                   (gk5_crypto_iov *)(uintptr_t)iov, iov_count);
}

/* ---- Prepared keys by family (crypto_int.h) ---- */

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

/*
 * RFC 3962 5 and Appendix B: raw CBC-CTS (the swapped-last-blocks variant,
 * OpenSSL's CS3) under key with the enctype's cipher.  next_iv receives the
 * cipher state RFC 3962 B lists: the last full cipher block, which CS3
 * places second to last.  A test seam; not in the shipped ABI.
 */
uint32_t gk5i_cts_raw(int32_t enctype, const uint8_t *key, size_t key_len,
                      const uint8_t *iv, const uint8_t *in, size_t len,
                      uint8_t *out, uint8_t *next_iv, bool encrypt)
{
    const struct gk5_enctype *et = NULL;
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov seg;
    uint32_t ret;

    memset(&sk, 0, sizeof(sk));
    ret = gk5i_enctype_usable(enctype, &et);
    if (ret != GK5_OK) {
        return ret;
    }
    if (et->cts_cipher == NULL || key == NULL || in == NULL || out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (key_len != et->key_bytes || key_len > sizeof(sk.ke)) {
        return GK5_ERR_BAD_KEY_LENGTH;
    }
    if (len < et->block_bytes) {
        return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
    }
    memcpy(sk.ke, key, key_len);
    sk.ke_len = key_len;
    sk.raw = true;
    ret = gk5i_ukey_new(et, &sk, &uk);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    memmove(out, in, len);
    seg = (gk5_crypto_iov){
        .flags = GK5_CRYPTO_IOV_DATA, .data = out, .length = len};
    ret = gk5i_crypt_stream(uk, &seg, 1, len, iv, encrypt, next_iv);
    if (ret != GK5_OK) {
        zap(out, len);
    }

cleanup:
    gk5i_ukey_free(uk);
    gk5i_subkeys_wipe(&sk);
    return ret;
}
