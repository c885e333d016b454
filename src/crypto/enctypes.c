/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * THE enctype table: the only list of enctypes in gk5.  Preference order,
 * availability, build options and the refusal policy all hang off these
 * rows; every other list (the CLI table, name lookup, import checks) is
 * derived from it.
 *
 * The rows repeat the same fields on purpose (STYLE: designated
 * initializers, lengths in the RFC's units): each row can be read against
 * its RFC's parameter table, and a per-family macro would hide a swapped
 * length.  What the rows of a family share in code is their profile.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

#include "crypto_int.h"
#include "internal.h"
#include "../common/trace.h"

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

#define RFC8429_RC4                                                            \
    "RFC 8429 deprecates RC4-HMAC (RC4 keystream biases, MD4 keys, "           \
    "MD5 checksums)"
#define RFC6649_DES "RFC 6649 deprecates single DES (56-bit keys)"
#define DES3_OFF                                                               \
    "RFC 8429 deprecates DES3 and Linux removed it in 6.6; build with "        \
    "-Ddes3=true for legacy peers"

#ifdef GK5_WITH_DES3
#define DES3_STATE GK5_ENCTYPE_SUPPORTED
#define DES3_PROFILE (&gk5i_profile_des3)
#define DES3_REASON NULL
#else
#define DES3_STATE GK5_ENCTYPE_NOT_BUILT
#define DES3_PROFILE NULL
#define DES3_REASON DES3_OFF
#endif

static const struct gk5_enctype enctypes[] = {
    {
        .num = 20,
        .name = "aes256-cts-hmac-sha384-192",
        .aliases = NAMES("aes256-sha2"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc8009,
        .key_bytes = BITS2OCTETS(256),
        .keygen_bytes = BITS2OCTETS(256),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(192),
        .cksum_bytes = BITS2OCTETS(192),
        .prf_bytes = BITS2OCTETS(384),
        .s2k_default_iter = 32768,
        .cksumtype = 20,
        .cksum_name = "hmac-sha384-192-aes256",
        .cipher = "AES-256-CBC",
        .cts_cipher = "AES-256-CBC-CTS",
        .digest = "SHA384",
        .family = GK5I_FAMILY_AES_SHA2,
        .onepass = GK5I_ONEPASS_NONE, /* none for HMAC-SHA-384 */
    },
    {
        .num = 19,
        .name = "aes128-cts-hmac-sha256-128",
        .aliases = NAMES("aes128-sha2"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc8009,
        .key_bytes = BITS2OCTETS(128),
        .keygen_bytes = BITS2OCTETS(128),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(128),
        .cksum_bytes = BITS2OCTETS(128),
        .prf_bytes = BITS2OCTETS(256),
        .s2k_default_iter = 32768,
        .cksumtype = 19,
        .cksum_name = "hmac-sha256-128-aes128",
        .cipher = "AES-128-CBC",
        .cts_cipher = "AES-128-CBC-CTS",
        .digest = "SHA256",
        .family = GK5I_FAMILY_AES_SHA2,
        .onepass = GK5I_ONEPASS_ETM_SHA256,
    },
    {
        .num = 18,
        .name = "aes256-cts-hmac-sha1-96",
        .aliases = NAMES("aes256-cts", "aes256-sha1"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc3962,
        .key_bytes = BITS2OCTETS(256),
        .keygen_bytes = BITS2OCTETS(256),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(96),
        .cksum_bytes = BITS2OCTETS(96),
        .prf_bytes = BITS2OCTETS(128),
        .s2k_default_iter = 4096,
        .cksumtype = 16,
        .cksum_name = "hmac-sha1-96-aes256",
        .cipher = "AES-256-CBC",
        .cts_cipher = "AES-256-CBC-CTS",
        .digest = "SHA1",
        .family = GK5I_FAMILY_AES_SHA1,
        .onepass = GK5I_ONEPASS_MTE_SHA1,
    },
    {
        .num = 17,
        .name = "aes128-cts-hmac-sha1-96",
        .aliases = NAMES("aes128-cts", "aes128-sha1"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc3962,
        .key_bytes = BITS2OCTETS(128),
        .keygen_bytes = BITS2OCTETS(128),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(96),
        .cksum_bytes = BITS2OCTETS(96),
        .prf_bytes = BITS2OCTETS(128),
        .s2k_default_iter = 4096,
        .cksumtype = 15,
        .cksum_name = "hmac-sha1-96-aes128",
        .cipher = "AES-128-CBC",
        .cts_cipher = "AES-128-CBC-CTS",
        .digest = "SHA1",
        .family = GK5I_FAMILY_AES_SHA1,
        .onepass = GK5I_ONEPASS_MTE_SHA1,
    },
    {
        .num = 26,
        .name = "camellia256-cts-cmac",
        .aliases = NAMES("camellia256-cts"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc6803,
        .key_bytes = BITS2OCTETS(256),
        .keygen_bytes = BITS2OCTETS(256),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(128),
        .cksum_bytes = BITS2OCTETS(128),
        .prf_bytes = BITS2OCTETS(128),
        .s2k_default_iter = 32768,
        .cksumtype = 18,
        .cksum_name = "cmac-camellia256",
        .cipher = "CAMELLIA-256-CBC",
        .cts_cipher = "CAMELLIA-256-CBC-CTS",
        .digest = NULL,
        .family = GK5I_FAMILY_CAMELLIA,
    },
    {
        .num = 25,
        .name = "camellia128-cts-cmac",
        .aliases = NAMES("camellia128-cts"),
        .state = GK5_ENCTYPE_SUPPORTED,
        .profile = &gk5i_profile_rfc6803,
        .key_bytes = BITS2OCTETS(128),
        .keygen_bytes = BITS2OCTETS(128),
        .block_bytes = BITS2OCTETS(128),
        .conf_bytes = BITS2OCTETS(128),
        .mac_bytes = BITS2OCTETS(128),
        .cksum_bytes = BITS2OCTETS(128),
        .prf_bytes = BITS2OCTETS(128),
        .s2k_default_iter = 32768,
        .cksumtype = 17,
        .cksum_name = "cmac-camellia128",
        .cipher = "CAMELLIA-128-CBC",
        .cts_cipher = "CAMELLIA-128-CBC-CTS",
        .digest = NULL,
        .family = GK5I_FAMILY_CAMELLIA,
    },
    {
        .num = 16,
        .alias_num = 6,
        .name = "des3-cbc-sha1",
        .aliases = NAMES("des3-hmac-sha1", "des3-cbc-sha1-kd", "des3-cbc-raw"),
        .state = DES3_STATE,
        .reason = DES3_REASON,
        .profile = DES3_PROFILE,
        .key_bytes = BITS2OCTETS(192),
        .keygen_bytes = BITS2OCTETS(168),
        .block_bytes = BITS2OCTETS(64),
        .conf_bytes = BITS2OCTETS(64),
        .mac_bytes = BITS2OCTETS(160),
        .cksum_bytes = BITS2OCTETS(160),
        .prf_bytes = BITS2OCTETS(128),
        .s2k_default_iter = 0,
        .cksumtype = 12,
        .cksum_name = "hmac-sha1-des3-kd",
        .cipher = "DES-EDE3-CBC",
        .cts_cipher = NULL,
        .digest = "SHA1",
        .rfc1964 = true,
        .family = GK5I_FAMILY_DES3,
    },
    {
        .num = 23,
        .name = "rc4-hmac",
        .aliases = NAMES("arcfour-hmac", "arcfour-hmac-md5"),
        .state = GK5_ENCTYPE_REJECTED,
        .reason = RFC8429_RC4,
    },
    {
        .num = 24,
        .name = "rc4-hmac-exp",
        .aliases = NAMES("arcfour-hmac-exp", "arcfour-hmac-md5-exp"),
        .state = GK5_ENCTYPE_REJECTED,
        .reason = RFC8429_RC4,
    },
    {
        .num = 1,
        .name = "des-cbc-crc",
        .state = GK5_ENCTYPE_REJECTED,
        .reason = RFC6649_DES,
    },
    {
        .num = 2,
        .name = "des-cbc-md4",
        .state = GK5_ENCTYPE_REJECTED,
        .reason = RFC6649_DES,
    },
    {
        .num = 3,
        .name = "des-cbc-md5",
        .state = GK5_ENCTYPE_REJECTED,
        .reason = RFC6649_DES,
    },
};

const struct gk5_enctype *gk5i_enctype_at(size_t i)
{
    return i < GK5_ARRAY_SIZE(enctypes) ? &enctypes[i] : NULL;
}

int32_t gk5i_enctype_canonical(int32_t num)
{
    const struct gk5_enctype *row = gk5i_enctype_get(num);

    return row != NULL ? row->num : num;
}

const struct gk5_enctype *gk5i_enctype_get(int32_t num)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(enctypes); i++) {
        if (enctypes[i].num == num ||
            (enctypes[i].alias_num != 0 && enctypes[i].alias_num == num)) {
            return &enctypes[i];
        }
    }
    return NULL;
}

/* The table's verdict on an enctype: 0 and the row, or the refusal code. */
static uint32_t verdict(int32_t num, const struct gk5_enctype **et)
{
    const struct gk5_enctype *row = gk5i_enctype_get(num);

    if (et != NULL) {
        *et = NULL;
    }
    if (row == NULL) {
        return GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, num);
    }
    switch (row->state) {
    case GK5_ENCTYPE_SUPPORTED:
        break;
    case GK5_ENCTYPE_NOT_BUILT:
        return GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, num);
    case GK5_ENCTYPE_REJECTED:
    default:
        return GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, num);
    }
    if (et != NULL) {
        *et = row;
    }
    return GK5_OK;
}

/* Tracing: a refusal, in the words gk5_strerror gives it. */
static void __attribute__((cold)) trace_refusal(uint32_t err)
{
    char words[256];

    gk5i_enctype_error_words(err, words, sizeof(words));
    gk5i_trace("enctype refused: %s", words);
}

/* Every use of an enctype asks here, so a refusal is traced once, where it
 * is made; gk5_enctype_check (a question, not a use) does not trace. */
uint32_t gk5i_enctype_usable(int32_t num, const struct gk5_enctype **et)
{
    uint32_t err = verdict(num, et);

    if (err != GK5_OK && GK5_TRACE_ON()) {
        trace_refusal(err);
    }
    return err;
}

void gk5i_enctype_error_words(uint32_t err, char *buf, size_t len)
{
    int32_t num = GK5_ERR_ENCTYPE(err);
    const struct gk5_enctype *row = gk5i_enctype_get(num);

    if (len == 0) {
        return;
    }
    if (row == NULL || GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_UNKNOWN) {
        snprintf(buf, len, "unknown enctype %d", (int)num);
    } else if (row->state == GK5_ENCTYPE_NOT_BUILT) {
        snprintf(buf, len, "%s (%d) is not built (-Ddes3=true): %s", row->name,
                 (int)num, row->reason);
    } else if (row->state == GK5_ENCTYPE_REJECTED) {
        snprintf(buf, len, "%s (%d) is deliberately unsupported: %s", row->name,
                 (int)num, row->reason);
    } else {
        snprintf(buf, len, "%s (%d) is supported", row->name, (int)num);
    }
}

/* ---- public, read-only view of the table ---- */

/* A field-by-field copy from the row into the public struct (different
 * types, so no memcpy; alike in shape only to other such copies). */
static void describe(const struct gk5_enctype *row, gk5_enctype_desc *out)
{
    out->enctype = row->num;
    out->name = row->name;
    out->state = row->state;
    out->reason = row->reason;
    out->key_bytes = row->key_bytes;
    out->cksumtype = row->cksumtype;
    out->cksum_name = row->cksum_name;
}

GK5_EXPORT size_t gk5_enctype_count(void)
{
    return GK5_ARRAY_SIZE(enctypes);
}

GK5_EXPORT uint32_t gk5_enctype_row(size_t i, gk5_enctype_desc *out)
{
    if (out == NULL || i >= GK5_ARRAY_SIZE(enctypes)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    describe(&enctypes[i], out);
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_enctype_check(int32_t enctype)
{
    return verdict(enctype, NULL);
}

/* The row's token family, in the lucid context's numbers (crypto.h). */
GK5_EXPORT uint32_t gk5_enctype_protocol(int32_t enctype, uint32_t *protocol)
{
    const struct gk5_enctype *row = NULL;
    uint32_t err;

    if (protocol == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *protocol = 0;
    err = verdict(enctype, &row);
    if (err == GK5_OK) {
        *protocol = row->rfc1964 ? 0 : 1;
    }
    return err;
}

GK5_EXPORT uint32_t gk5_enctype_describe(int32_t enctype, gk5_enctype_desc *out)
{
    const struct gk5_enctype *row = gk5i_enctype_get(enctype);

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (row == NULL) {
        return GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, enctype);
    }
    describe(row, out);
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_enctype_from_name(const char *name, int32_t *enctype)
{
    char *end = NULL;
    long n;

    if (name == NULL || enctype == NULL || *name == '\0') {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    n = strtol(name, &end, 10);
    if (*end == '\0') {
        if (n < INT16_MIN || n > INT16_MAX) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        *enctype = (int32_t)n;
        return GK5_OK;
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(enctypes); i++) {
        const struct gk5_enctype *row = &enctypes[i];

        if (strcasecmp(row->name, name) == 0) {
            *enctype = row->num;
            return GK5_OK;
        }
        for (const char *const *a = row->aliases; a != NULL && *a != NULL;
             a++) {
            if (strcasecmp(*a, name) == 0) {
                *enctype = row->num;
                return GK5_OK;
            }
        }
    }
    return GK5_ERR_INVALID_ARGUMENT;
}
