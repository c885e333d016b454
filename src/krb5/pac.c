/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The Windows PAC for natively accepted names (pac.h): found in the
 * ticket's authorization data, its layout checked, verified as MIT's
 * acceptor verifies it, its attributes named as MIT names them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../common/bytes.h"
#include "../common/util.h"
#include "pac.h"

/* MS-PAC 2.3, 2.4: the PACTYPE header and each PAC_INFO_BUFFER. */
#define PAC_HEADER_BYTES 8u
#define PAC_INFO_BYTES 16u
#define PAC_ALIGN 8u
/* MS-PAC 2.8: SignatureType before the signature. */
#define PAC_SIG_TYPE_BYTES 4u
/* MS-PAC 2.7: ClientId (FILETIME) and NameLength before the name. */
#define PAC_CLIENT_INFO_BYTES 10u
/* Seconds from 1601-01-01 (FILETIME's epoch) to 1970-01-01. */
#define FILETIME_TO_UNIX 11644473600u
/* Containers opened in the authorization data. */
#define AUTHZ_DEPTH 4
/* The most buffers MIT's parser takes (since 1.20.1, CVE-2022-42898); it
 * takes none of fewer than 1 either. */
#define PAC_MAX_BUFFERS 4096u
/* A PAC this long or shorter is copied on the stack to be verified. */
#define PAC_STACK_BYTES 2048u

static uint32_t authz_walk(struct gk5i_view ad, int depth,
                           struct gk5i_authz_names *out)
{
    size_t pos = 0;

    for (;;) {
        struct gk5i_view data;
        bool more;
        int32_t type;
        uint32_t err = gk5i_authz_next(ad, &pos, &more, &type, &data);

        if (err != GK5_OK) {
            return err;
        }
        if (!more) {
            return GK5_OK;
        }
        if (type == GK5I_AD_WIN2K_PAC) {
            if (out->npac++ == 0) {
                out->pac = data;
            }
        } else if (type == GK5I_AD_CAMMAC) {
            out->cammac = true;
        } else if (type == GK5I_AD_IF_RELEVANT) {
            if (depth == 0) {
                out->too_deep = true;
                continue;
            }
            err = authz_walk(data, depth - 1, out);
            if (err != GK5_OK) {
                return err;
            }
        }
    }
}

uint32_t gk5i_authz_names(struct gk5i_view authz, struct gk5i_authz_names *out)
{
    memset(out, 0, sizeof(*out));
    return authz_walk(authz, AUTHZ_DEPTH, out);
}

bool gk5i_pac_parse(const uint8_t *p, size_t len, struct gk5i_pac *out)
{
    struct gk5i_rd r;
    uint32_t count, version;
    size_t header;

    memset(out, 0, sizeof(*out));
    gk5i_rd_init(&r, p, len);
    count = gk5i_get_u32le(&r);
    version = gk5i_get_u32le(&r);
    if (r.bad || version != 0 || count < 1 || count > PAC_MAX_BUFFERS ||
        count > (len - PAC_HEADER_BYTES) / PAC_INFO_BYTES) {
        return false;
    }
    header = PAC_HEADER_BYTES + (size_t)count * PAC_INFO_BYTES;
    for (uint32_t i = 0; i < count; i++) {
        (void)gk5i_get_u32le(&r); /* ulType */
        uint64_t size = gk5i_get_u32le(&r);
        uint64_t offset = gk5i_get_u64le(&r);

        if (offset % PAC_ALIGN != 0 || offset < header || offset > len ||
            size > len - offset) {
            return false;
        }
    }
    out->p = p;
    out->len = len;
    out->count = count;
    return true;
}

void gk5i_pac_buffer_at(const struct gk5i_pac *pac, uint32_t i, uint32_t *type,
                        struct gk5i_view *data)
{
    const uint8_t *info =
        pac->p + PAC_HEADER_BYTES + (size_t)i * PAC_INFO_BYTES;
    uint32_t size = load_le32(info + 4);
    uint64_t offset =
        (uint64_t)load_le32(info + 12) << 32 | load_le32(info + 8);

    *type = load_le32(info);
    data->p = pac->p + offset; /* inside: gk5i_pac_parse checked */
    data->len = size;
}

int gk5i_pac_find(const struct gk5i_pac *pac, uint32_t type,
                  struct gk5i_view *data)
{
    int found = 0;

    for (uint32_t i = 0; i < pac->count; i++) {
        struct gk5i_view d;
        uint32_t t;

        gk5i_pac_buffer_at(pac, i, &t, &d);
        if (t != type) {
            continue;
        }
        if (found) {
            return -1;
        }
        found = 1;
        if (data != NULL) {
            *data = d;
        }
    }
    return found;
}

/* The first KDC signature (buffer 7): its bytes after the signature type
 * zeroed in copy (a copy of the PAC); false when there is none or it is
 * too short.  MIT 1.20 asks no more of it: a second one is not refused. */
static bool zero_kdc_signature(const struct gk5i_pac *pac, uint8_t *copy)
{
    for (uint32_t i = 0; i < pac->count; i++) {
        struct gk5i_view sig;
        uint32_t t;

        gk5i_pac_buffer_at(pac, i, &t, &sig);
        if (t != GK5I_PAC_PRIVSVR_CHECKSUM) {
            continue;
        }
        if (sig.len < PAC_SIG_TYPE_BYTES) {
            return false;
        }
        uint8_t *at = copy + (sig.p - pac->p) + PAC_SIG_TYPE_BYTES;
        memset(at, 0, sig.len - PAC_SIG_TYPE_BYTES); /* not a wipe: summed */
        return true;
    }
    return false;
}

/* The server signature: the ticket key's checksum type over the PAC with
 * both signatures zeroed.  The checksum is as long as its type says; what
 * follows it in the buffer (MS-PAC 2.8: the RODCIdentifier) is zeroed
 * with it and not compared, as MIT 1.20 reads it. */
static bool server_signature_ok(const struct gk5i_pac *pac,
                                const struct gk5_enctype *et,
                                const struct gk5i_subkeys *sk)
{
    uint8_t stack[PAC_STACK_BYTES], mac[GK5_MAX_KEY_BYTES];
    struct gk5i_view sig = {NULL, 0};
    gk5_ukey *uk = NULL;
    uint8_t *copy, *at;
    bool ok;

    if (gk5i_pac_find(pac, GK5I_PAC_SERVER_CHECKSUM, &sig) != 1 ||
        et->cksum_bytes > sizeof(mac) ||
        sig.len < PAC_SIG_TYPE_BYTES + et->cksum_bytes ||
        (int32_t)load_le32(sig.p) != et->cksumtype) {
        return false;
    }
    memcpy(mac, sig.p + PAC_SIG_TYPE_BYTES, et->cksum_bytes);
    copy = pac->len <= sizeof(stack) ? stack : gk5i_zalloc(pac->len);
    if (copy == NULL) {
        return false;
    }
    memcpy(copy, pac->p, pac->len);
    at = copy + (sig.p - pac->p) + PAC_SIG_TYPE_BYTES;
    memset(at, 0, sig.len - PAC_SIG_TYPE_BYTES); /* not a wipe: summed */
    ok = zero_kdc_signature(pac, copy) && gk5i_ukey_new(et, sk, &uk) == GK5_OK;
    if (ok) {
        gk5_crypto_iov iov[2] = {
            {GK5_CRYPTO_IOV_DATA, copy, pac->len},
            {GK5_CRYPTO_IOV_CHECKSUM, mac, et->cksum_bytes},
        };
        ok = gk5i_verify_checksum_iov(uk, iov, 2) == GK5_OK;
    }
    gk5i_ukey_free(uk);
    zap(copy, pac->len); /* the ticket's plaintext */
    if (copy != stack) {
        gk5i_free(copy);
    }
    return ok;
}

/* The client's name as MIT 1.20 writes it to compare with the client
 * info: its components joined by '/', nothing escaped, no realm; read a
 * byte at a time, 0 at its end. */
struct name_cursor {
    const struct gk5i_krb_principal *cname;
    uint32_t comp;
    size_t at;
};

static uint8_t name_next(struct name_cursor *c)
{
    const struct gk5i_krb_principal *n = c->cname;

    if (c->comp >= n->ncomp) {
        return 0;
    }
    if (c->at < n->comp[c->comp].len) {
        return n->comp[c->comp].p[c->at++];
    }
    c->at = 0;
    return ++c->comp < n->ncomp ? '/' : 0;
}

/*
 * The client info's UTF-16LE name against cname as MIT 1.20 compares
 * them: the name in UTF-8 (an unpaired surrogate anywhere refuses it)
 * equal to the client's joined name as C strings, that is up to the
 * first NUL of either (strcmp): escapes mean nothing, '@' is a character
 * like any other.
 */
static bool name_is(const uint8_t *utf16, size_t units,
                    const struct gk5i_krb_principal *cname)
{
    struct name_cursor cur = {cname, 0, 0};
    bool ended = false, same = true;

    for (size_t i = 0; i < units; i++) {
        uint32_t c = load_le16(utf16 + 2 * i);
        uint8_t u8[4];
        size_t n;

        if (c >= 0xd800 && c <= 0xdbff && i + 1 < units) {
            uint32_t lo = load_le16(utf16 + 2 * (i + 1));
            if (lo < 0xdc00 || lo > 0xdfff) {
                return false;
            }
            c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
            i++;
        } else if (c >= 0xd800 && c <= 0xdfff) {
            return false;
        }
        if (c < 0x80) {
            u8[0] = (uint8_t)c;
            n = 1;
        } else if (c < 0x800) {
            u8[0] = (uint8_t)(0xc0 | c >> 6);
            u8[1] = (uint8_t)(0x80 | (c & 0x3f));
            n = 2;
        } else if (c < 0x10000) {
            u8[0] = (uint8_t)(0xe0 | c >> 12);
            u8[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
            u8[2] = (uint8_t)(0x80 | (c & 0x3f));
            n = 3;
        } else {
            u8[0] = (uint8_t)(0xf0 | c >> 18);
            u8[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
            u8[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
            u8[3] = (uint8_t)(0x80 | (c & 0x3f));
            n = 4;
        }
        /* Past the end of either string only the surrogates count. */
        for (size_t k = 0; k < n && !ended; k++) {
            uint8_t want = name_next(&cur);
            same = u8[k] == want;
            ended = !same || want == 0;
        }
    }
    return ended ? same : name_next(&cur) == 0;
}

/* The client info names cname at authtime. */
static bool client_info_ok(const struct gk5i_pac *pac, int64_t authtime,
                           const struct gk5i_krb_principal *cname)
{
    struct gk5i_view info = {NULL, 0};
    struct gk5i_rd r;

    if (gk5i_pac_find(pac, GK5I_PAC_CLIENT_INFO, &info) != 1) {
        return false;
    }
    gk5i_rd_init(&r, info.p, info.len);
    uint64_t filetime = gk5i_get_u64le(&r);
    uint16_t name_len = gk5i_get_u16le(&r);
    const uint8_t *utf16 = gk5i_get_bytes(&r, name_len);
    if (r.bad || name_len % 2 != 0) {
        return false;
    }
    /* MIT 1.20: whole seconds since 1970 of an unsigned FILETIME, 0 to
     * 2^32 - 1, equal to the authtime as its 32-bit krb5_timestamp (read
     * unsigned: times to 2106). */
    uint64_t secs = filetime / 10000000u;
    if (secs < FILETIME_TO_UNIX || secs - FILETIME_TO_UNIX > UINT32_MAX ||
        (uint32_t)(secs - FILETIME_TO_UNIX) != (uint32_t)authtime) {
        return false;
    }
    return name_is(utf16, name_len / 2u, cname);
}

bool gk5i_pac_verify(const struct gk5i_pac *pac,
                     const struct gk5_enctype *tkt_et,
                     const struct gk5i_subkeys *sk, int64_t authtime,
                     const struct gk5i_krb_principal *cname)
{
    return server_signature_ok(pac, tkt_et, sk) &&
           client_info_ok(pac, authtime, cname);
}

/* MIT's names for the buffer types it knows. */
static const struct {
    uint32_t type;
    const char *name;
} attr_names[] = {
    {GK5I_PAC_WHOLE, "urn:mspac:"},
    {GK5I_PAC_LOGON_INFO, "urn:mspac:logon-info"},
    {GK5I_PAC_CREDENTIALS_INFO, "urn:mspac:credentials-info"},
    {GK5I_PAC_SERVER_CHECKSUM, "urn:mspac:server-checksum"},
    {GK5I_PAC_PRIVSVR_CHECKSUM, "urn:mspac:privsvr-checksum"},
    {GK5I_PAC_CLIENT_INFO, "urn:mspac:client-info"},
    {GK5I_PAC_DELEGATION_INFO, "urn:mspac:delegation-info"},
    {GK5I_PAC_UPN_DNS_INFO, "urn:mspac:upn-dns-info"},
};

#define ATTR_PREFIX "urn:mspac:"
#define ATTR_PREFIX_LEN (sizeof(ATTR_PREFIX) - 1)

size_t gk5i_pac_attr_name(uint32_t type, char buf[GK5I_PAC_ATTR_MAX])
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(attr_names); i++) {
        if (attr_names[i].type == type) {
            size_t n = strlen(attr_names[i].name);
            memcpy(buf, attr_names[i].name, n + 1);
            return n;
        }
    }
    /* MIT prints the type as a signed int. */
    return (size_t)snprintf(buf, GK5I_PAC_ATTR_MAX, ATTR_PREFIX "%d",
                            (int)type);
}

bool gk5i_pac_attr_type(const char *attr, size_t len, uint32_t *type)
{
    uint64_t v = 0;
    size_t at = ATTR_PREFIX_LEN;
    bool minus;

    for (size_t i = 0; i < GK5_ARRAY_SIZE(attr_names); i++) {
        if (strlen(attr_names[i].name) == len &&
            strncasecmp(attr, attr_names[i].name, len) == 0) {
            *type = attr_names[i].type;
            return true;
        }
    }
    /* "urn:mspac:N": decimal digits, not zero; or "urn:mspac:-N", the
     * signed form gk5i_pac_attr_name writes for a type of 2^31 or more,
     * N up to 2^31, the type 2^32 - N (MIT's strtoul reads it so).  MIT
     * also reads blanks, a '+' and numbers past 32 bits (cut to 32);
     * nothing names a buffer so. */
    if (len <= ATTR_PREFIX_LEN ||
        strncasecmp(attr, ATTR_PREFIX, ATTR_PREFIX_LEN) != 0) {
        return false;
    }
    minus = attr[at] == '-';
    at += minus;
    if (len == at || len - at > 10) {
        return false;
    }
    for (size_t i = at; i < len; i++) {
        if (attr[i] < '0' || attr[i] > '9') {
            return false;
        }
        v = v * 10 + (uint64_t)(attr[i] - '0');
    }
    if (v == 0 || v > (minus ? (uint64_t)1 << 31 : UINT32_MAX)) {
        return false;
    }
    *type = minus ? (uint32_t)(((uint64_t)1 << 32) - v) : (uint32_t)v;
    return true;
}
