/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The Windows PAC reader (src/krb5/pac.c) on PACs built here as MIT's KDC
 * builds them (client info, ticket, server and KDC signatures; MS-PAC
 * 2.3-2.8) and signed with gk5's own checksum: one verifies, and each way
 * it can be wrong does not (a byte of the PAC, the signature's type, a
 * missing KDC signature, a duplicated buffer, the client's name, realm
 * syntax or authtime); layouts MIT's parser refuses are refused; the
 * authorization data walk finds the first PAC inside AD-IF-RELEVANT and
 * notes a CAMMAC; attribute names map as MIT's do.  The same readings are
 * compared with MIT's acceptor on real tickets by interposer-api-native.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/util.h"
#include "krb5/pac.h"

#define ET 18    /* aes256-cts-hmac-sha1-96 */
#define CKSUM 16 /* its checksum, hmac-sha1-96-aes256 */
#define AUTHTIME 1700000000
#define FILETIME(t) (((uint64_t)(t) + 11644473600ull) * 10000000ull)

static const uint8_t key[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

struct buf {
    uint32_t type;
    uint8_t data[256];
    size_t len;
};

struct pacb {
    struct buf b[8];
    size_t n;
    uint8_t out[4096];
    size_t len;
};

static struct buf *add(struct pacb *p, uint32_t type, const void *data,
                       size_t len)
{
    struct buf *b = &p->b[p->n++];

    assert_true(len <= sizeof(b->data));
    b->type = type;
    memcpy(b->data, data, len);
    b->len = len;
    return b;
}

/* Client info: FILETIME, the name's length, the name in UTF-16LE (each
 * byte of name one unit unless units given). */
static void add_client(struct pacb *p, uint64_t filetime, const char *name)
{
    uint8_t d[256];
    size_t n = strlen(name);

    for (int i = 0; i < 8; i++) {
        d[i] = (uint8_t)(filetime >> (8 * i));
    }
    d[8] = (uint8_t)(2 * n);
    d[9] = (uint8_t)((2 * n) >> 8);
    for (size_t i = 0; i < n; i++) {
        d[10 + 2 * i] = (uint8_t)name[i];
        d[11 + 2 * i] = 0;
    }
    add(p, GK5I_PAC_CLIENT_INFO, d, 10 + 2 * n);
}

static void add_sig(struct pacb *p, uint32_t type, uint32_t cksumtype)
{
    uint8_t d[4 + 12] = {0};

    store_le32(d, cksumtype);
    add(p, type, d, sizeof(d));
}

/* Header, infos, buffers 8-aligned. */
static void lay_out(struct pacb *p)
{
    size_t off = 8 + 16 * p->n;

    memset(p->out, 0, sizeof(p->out));
    store_le32(p->out, (uint32_t)p->n);
    store_le32(p->out + 4, 0);
    for (size_t i = 0; i < p->n; i++) {
        uint8_t *info = p->out + 8 + 16 * i;
        store_le32(info, p->b[i].type);
        store_le32(info + 4, (uint32_t)p->b[i].len);
        store_le32(info + 8, (uint32_t)off);
        store_le32(info + 12, 0);
        memcpy(p->out + off, p->b[i].data, p->b[i].len);
        off += (p->b[i].len + 7) & ~(size_t)7;
    }
    p->len = off;
}

/* Where buffer i's bytes lie in out. */
static uint8_t *at(struct pacb *p, size_t i)
{
    return p->out + load_le32(p->out + 8 + 16 * i + 8);
}

/* The server signature (buffer i) over the PAC as laid out, whose
 * signatures are still zero. */
static void sign(struct pacb *p, size_t i)
{
    size_t n = 0;

    assert_int_equal(gk5_c_checksum_length(ET, &n), GK5_OK);
    assert_int_equal(n, 12);
    assert_int_equal(gk5_c_checksum(ET, key, sizeof(key), 17, p->out, p->len,
                                    at(p, i) + 4, &n),
                     GK5_OK);
    assert_int_equal(n, 12);
}

/* MIT's KDC's PAC for "user": client info, ticket signature (16), server
 * (6) and KDC (7) signatures, signed. */
static void mit_like(struct pacb *p, const char *name)
{
    memset(p, 0, sizeof(*p));
    add_client(p, FILETIME(AUTHTIME), name);
    add_sig(p, 16, CKSUM);
    add_sig(p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(p);
    sign(p, 2);
}

static struct gk5i_krb_principal princ(int n, ...)
{
    struct gk5i_krb_principal pr;
    va_list ap;

    memset(&pr, 0, sizeof(pr));
    pr.name_type = 1;
    pr.ncomp = (uint32_t)n;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *c = va_arg(ap, const char *);
        pr.comp[i].p = (const uint8_t *)c;
        pr.comp[i].len = strlen(c);
    }
    va_end(ap);
    return pr;
}

/* The subkeys of k for the signature's usage, as the keytab makes them. */
static struct gk5i_subkeys subkeys(const uint8_t *k)
{
    struct gk5i_subkeys sk;

    assert_int_equal(
        gk5i_derive_subkeys(gk5i_enctype_get(ET), k, 32, KU_PAC_SIGNATURE, &sk),
        GK5_OK);
    return sk;
}

static bool verifies(struct pacb *p, const struct gk5i_krb_principal *cname,
                     int64_t authtime)
{
    struct gk5i_subkeys sk = subkeys(key);
    struct gk5i_pac pac;

    assert_true(gk5i_pac_parse(p->out, p->len, &pac));
    bool ok = gk5i_pac_verify(&pac, gk5i_enctype_get(ET), &sk, authtime, cname);
    gk5i_subkeys_wipe(&sk);
    return ok;
}

static void test_verified(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct pacb p;
    struct gk5i_pac pac;
    struct gk5i_view d;

    (void)state;
    mit_like(&p, "user");
    assert_true(verifies(&p, &user, AUTHTIME));
    assert_true(gk5i_pac_parse(p.out, p.len, &pac));
    assert_int_equal(pac.count, 4);
    assert_int_equal(gk5i_pac_find(&pac, GK5I_PAC_CLIENT_INFO, &d), 1);
    assert_int_equal(d.len, 18);
    assert_int_equal(gk5i_pac_find(&pac, GK5I_PAC_LOGON_INFO, &d), 0);
}

/* Every byte outside the two signatures is covered: a flip anywhere else
 * fails (a flip in the header may also make the layout invalid). */
static void test_every_byte_covered(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct pacb p;

    (void)state;
    mit_like(&p, "user");
    uint8_t *srv = at(&p, 2), *kdc = at(&p, 3);
    struct gk5i_subkeys sk = subkeys(key);
    for (size_t i = 0; i < p.len; i++) {
        uint8_t *b = p.out + i;
        bool in_sig =
            (b >= srv + 4 && b < srv + 16) || (b >= kdc + 4 && b < kdc + 16);
        struct gk5i_pac pac;

        p.out[i] ^= 0x01;
        bool parsed = gk5i_pac_parse(p.out, p.len, &pac);
        bool ok = parsed && gk5i_pac_verify(&pac, gk5i_enctype_get(ET), &sk,
                                            AUTHTIME, &user);
        if (b >= kdc + 4 && b < kdc + 16) {
            assert_true(ok); /* the KDC's signature is zeroed */
        } else if (!in_sig || b >= srv + 4) {
            assert_false(ok);
        }
        p.out[i] ^= 0x01;
    }
    gk5i_subkeys_wipe(&sk);
    assert_true(verifies(&p, &user, AUTHTIME));
}

static void test_wrong_key_or_type(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct pacb p;
    struct gk5i_pac pac;
    uint8_t other[32];

    (void)state;
    mit_like(&p, "user");
    memcpy(other, key, sizeof(other));
    other[31] ^= 0x80;
    assert_true(gk5i_pac_parse(p.out, p.len, &pac));
    struct gk5i_subkeys sk = subkeys(other);
    assert_false(
        gk5i_pac_verify(&pac, gk5i_enctype_get(ET), &sk, AUTHTIME, &user));
    gk5i_subkeys_wipe(&sk);
    /* The same bytes under another checksum type: not the key's. */
    store_le32(at(&p, 2), 15);
    assert_false(verifies(&p, &user, AUTHTIME));
    /* A right signature cut one byte short: MIT wants the type's whole
     * length (and reading on would leave the buffer). */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    struct buf *b = add(&p, GK5I_PAC_SERVER_CHECKSUM, "\x10\0\0\0", 4);
    b->len = 4 + 11;
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    uint8_t full[12];
    size_t n = sizeof(full);
    assert_int_equal(gk5_c_checksum(ET, key, sizeof(key), KU_PAC_SIGNATURE,
                                    p.out, p.len, full, &n),
                     GK5_OK);
    memcpy(at(&p, 1) + 4, full, 11);
    assert_false(verifies(&p, &user, AUTHTIME));
    /* A buffer longer than the checksum (MS-PAC 2.8's RODCIdentifier
     * after it): MIT 1.20 reads the type's length, zeroes the rest with it
     * and compares no more. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    b = add(&p, GK5I_PAC_SERVER_CHECKSUM, "\x10\0\0\0", 4);
    b->len = 4 + 12 + 2;
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_true(verifies(&p, &user, AUTHTIME));
    at(&p, 1)[4 + 12] = 0x05; /* RODCIdentifier */
    assert_true(verifies(&p, &user, AUTHTIME));
    at(&p, 1)[4 + 11] ^= 0x01;
    assert_false(verifies(&p, &user, AUTHTIME));
}

static void test_missing_or_doubled(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct pacb p;

    (void)state;
    /* No KDC signature: MIT cannot zero it and refuses. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_false(verifies(&p, &user, AUTHTIME));
    /* No client info. */
    memset(&p, 0, sizeof(p));
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 0);
    assert_false(verifies(&p, &user, AUTHTIME));
    /* Two client infos. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    add_client(&p, FILETIME(AUTHTIME), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 2);
    assert_false(verifies(&p, &user, AUTHTIME));
    struct gk5i_pac pac;
    assert_true(gk5i_pac_parse(p.out, p.len, &pac));
    assert_int_equal(gk5i_pac_find(&pac, GK5I_PAC_CLIENT_INFO, NULL), -1);
    /* Two KDC signatures: MIT 1.20 zeroes the first and refuses neither;
     * the second's bytes are summed as they are. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    at(&p, 2)[4] = 0x5a;
    assert_true(verifies(&p, &user, AUTHTIME));
    at(&p, 3)[4] = 0x5a;
    assert_false(verifies(&p, &user, AUTHTIME));
    /* ... and the first must be a signature (its type at least). */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add(&p, GK5I_PAC_PRIVSVR_CHECKSUM, "\x10\0\0", 3);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_false(verifies(&p, &user, AUTHTIME));
    /* A server signature too short for its type. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME), "user");
    add(&p, GK5I_PAC_SERVER_CHECKSUM, "\x10\x00\x00", 3);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    assert_false(verifies(&p, &user, AUTHTIME));
}

static void test_client_name(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct gk5i_krb_principal two = princ(2, "host", "a.example");
    struct gk5i_krb_principal slash = princ(1, "a/b");
    struct gk5i_krb_principal at_sign = princ(1, "a@b");
    struct pacb p;

    (void)state;
    mit_like(&p, "user");
    assert_false(verifies(&p, &two, AUTHTIME));
    mit_like(&p, "usex");
    assert_false(verifies(&p, &user, AUTHTIME));
    mit_like(&p, "use");
    assert_false(verifies(&p, &user, AUTHTIME));
    mit_like(&p, "users");
    assert_false(verifies(&p, &user, AUTHTIME));
    mit_like(&p, "host/a.example");
    assert_true(verifies(&p, &two, AUTHTIME));
    assert_false(verifies(&p, &user, AUTHTIME));
    mit_like(&p, "host/a.example/");
    assert_false(verifies(&p, &two, AUTHTIME));
    /* MIT 1.20 compares the name unescaped ("a/b" names both the client
     * "a/b" and the client "a" "b"; MIT's parser's escapes do not), and
     * no realm (not allowed: the realm is not named). */
    mit_like(&p, "a/b");
    assert_true(verifies(&p, &slash, AUTHTIME));
    struct gk5i_krb_principal a_b = princ(2, "a", "b");
    assert_true(verifies(&p, &a_b, AUTHTIME));
    mit_like(&p, "a\\/b");
    assert_false(verifies(&p, &slash, AUTHTIME));
    mit_like(&p, "a@b");
    assert_true(verifies(&p, &at_sign, AUTHTIME));
    mit_like(&p, "a\\@b");
    assert_false(verifies(&p, &at_sign, AUTHTIME));
    mit_like(&p, "user@GK5.TEST");
    assert_false(verifies(&p, &user, AUTHTIME));
    mit_like(&p, "user\\");
    assert_false(verifies(&p, &user, AUTHTIME));
}

static void test_client_time(void **state)
{
    struct gk5i_krb_principal user = princ(1, "user");
    struct pacb p;

    (void)state;
    mit_like(&p, "user");
    assert_false(verifies(&p, &user, AUTHTIME + 1));
    assert_false(verifies(&p, &user, AUTHTIME - 1));
    /* Within the same second: MIT compares whole seconds. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(AUTHTIME) + 9999999, "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_true(verifies(&p, &user, AUTHTIME));
    /* After 2038 (MIT's krb5_timestamp read unsigned), up to 2^32 - 1
     * seconds, compared in 32 bits. */
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(0xfffffffful), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_true(verifies(&p, &user, 0xffffffffll));
    assert_true(verifies(&p, &user, 0x1ffffffffll));
    memset(&p, 0, sizeof(p));
    add_client(&p, FILETIME(0x100000000ull), "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_false(verifies(&p, &user, 0));
    assert_false(verifies(&p, &user, 0x100000000ll));
    /* Before 1970. */
    memset(&p, 0, sizeof(p));
    add_client(&p, 10000000, "user");
    add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
    add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
    lay_out(&p);
    sign(&p, 1);
    assert_false(verifies(&p, &user, AUTHTIME));
}

static void test_client_utf16(void **state)
{
    struct gk5i_krb_principal u =
        princ(1, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    uint8_t d[10 + 8];
    struct pacb p;

    (void)state;
    /* U+00E9, U+20AC, U+1F600 (a surrogate pair). */
    static const uint16_t units[4] = {0x00e9, 0x20ac, 0xd83d, 0xde00};
    for (int bad = 0; bad < 3; bad++) {
        uint64_t ft = FILETIME(AUTHTIME);
        for (int i = 0; i < 8; i++) {
            d[i] = (uint8_t)(ft >> (8 * i));
        }
        d[8] = 8;
        d[9] = 0;
        for (int i = 0; i < 4; i++) {
            uint16_t c = units[i];
            if (bad == 1 && i == 3) {
                c = 0x0041; /* an unpaired high surrogate */
            } else if (bad == 2 && i == 2) {
                c = 0xde00; /* a low surrogate first */
            }
            d[10 + 2 * i] = (uint8_t)c;
            d[11 + 2 * i] = (uint8_t)(c >> 8);
        }
        memset(&p, 0, sizeof(p));
        add(&p, GK5I_PAC_CLIENT_INFO, d, sizeof(d));
        add_sig(&p, GK5I_PAC_SERVER_CHECKSUM, CKSUM);
        add_sig(&p, GK5I_PAC_PRIVSVR_CHECKSUM, CKSUM);
        lay_out(&p);
        sign(&p, 1);
        if (bad == 0) {
            assert_true(verifies(&p, &u, AUTHTIME));
        } else {
            assert_false(verifies(&p, &u, AUTHTIME));
        }
    }
}

static void test_layouts(void **state)
{
    struct pacb p;
    struct gk5i_pac pac;

    (void)state;
    mit_like(&p, "user");
    assert_true(gk5i_pac_parse(p.out, p.len, &pac));
    /* The last buffer ends at the end: every cut is refused. */
    for (size_t n = 0; n < p.len; n++) {
        assert_false(gk5i_pac_parse(p.out, n, &pac));
    }
    uint8_t save[8];
    memcpy(save, p.out, 8);
    store_le32(p.out + 4, 1); /* version */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    memcpy(p.out, save, 8);
    store_le32(p.out, 0xffffffffu); /* count past the bytes */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(p.out, (uint32_t)((p.len - 8) / 16 + 1));
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    memcpy(p.out, save, 8);
    uint8_t *info = p.out + 8;
    uint32_t off = load_le32(info + 8);
    store_le32(info + 8, off + 4); /* misaligned */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(info + 8, 8); /* inside the headers */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(info + 8, off);
    store_le32(info + 12, 1); /* offset past 2^32 */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(info + 12, 0);
    store_le32(info + 4, (uint32_t)(p.len - off + 1)); /* past the end */
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(info + 4, 0xffffffffu);
    assert_false(gk5i_pac_parse(p.out, p.len, &pac));
    store_le32(info + 4, (uint32_t)(p.len - off)); /* to the end: fine */
    assert_true(gk5i_pac_parse(p.out, p.len, &pac));
    /* No buffers at all: MIT's parser refuses it (ERANGE), as it does
     * more than 4096 (1.20.1 on). */
    static const uint8_t none[8] = {0};
    assert_false(gk5i_pac_parse(none, sizeof(none), &pac));
    assert_false(gk5i_pac_parse(none, 7, &pac));
    static uint8_t many[8 + 4097 * 16];
    memset(many, 0, sizeof(many));
    store_le32(many, 4097);
    for (size_t i = 0; i < 4097; i++) {
        store_le32(many + 8 + 16 * i + 8, (uint32_t)sizeof(many));
    }
    assert_false(gk5i_pac_parse(many, sizeof(many), &pac));
    store_le32(many, 4096); /* the headers' last 16 bytes are a buffer's */
    assert_true(gk5i_pac_parse(many, sizeof(many), &pac));
}

/* ---- authorization data ---- */

/* A DER TLV of body into out; its length. */
static size_t tlv(uint8_t *out, uint8_t tag, const uint8_t *body, size_t n)
{
    size_t h = 0;

    out[h++] = tag;
    if (n < 128) {
        out[h++] = (uint8_t)n;
    } else if (n < 256) {
        out[h++] = 0x81;
        out[h++] = (uint8_t)n;
    } else {
        out[h++] = 0x82;
        out[h++] = (uint8_t)(n >> 8);
        out[h++] = (uint8_t)n;
    }
    memmove(out + h, body, n);
    return h + n;
}

/* One AuthorizationData element { ad-type, ad-data }. */
static size_t element(uint8_t *out, int type, const uint8_t *data, size_t n)
{
    uint8_t tmp[4096], f[4096];
    size_t len = 0, k;
    uint8_t intv[2] = {(uint8_t)(type >> 8), (uint8_t)type};
    size_t ilen = type < 128 ? 1 : 2;

    k = tlv(f, 0x02, intv + (2 - ilen), ilen);
    len += tlv(tmp + len, 0xa0, f, k);
    k = tlv(f, 0x04, data, n);
    len += tlv(tmp + len, 0xa1, f, k);
    return tlv(out, 0x30, tmp, len);
}

static void test_authz_walk(void **state)
{
    uint8_t pac1[] = "first PAC", pac2[] = "second PAC";
    uint8_t e[4][512], inner[1024], seq[2048], out[2048];
    size_t n[4], len;
    struct gk5i_authz_names names;

    (void)state;
    /* IF-RELEVANT { PAC 1 }, PAC 2: the first in order, inside. */
    n[0] = element(e[0], GK5I_AD_WIN2K_PAC, pac1, sizeof(pac1));
    len = tlv(inner, 0x30, e[0], n[0]);
    n[1] = element(e[1], GK5I_AD_IF_RELEVANT, inner, len);
    n[2] = element(e[2], GK5I_AD_WIN2K_PAC, pac2, sizeof(pac2));
    memcpy(seq, e[1], n[1]);
    memcpy(seq + n[1], e[2], n[2]);
    len = tlv(out, 0x30, seq, n[1] + n[2]);
    struct gk5i_view ad = {out, len};
    assert_int_equal(gk5i_authz_names(ad, &names), GK5_OK);
    assert_non_null(names.pac.p);
    assert_memory_equal(names.pac.p, pac1, sizeof(pac1));
    assert_false(names.cammac);
    /* A CAMMAC after it is noted. */
    n[3] = element(e[3], GK5I_AD_CAMMAC, (const uint8_t *)"x", 1);
    memcpy(seq + n[1] + n[2], e[3], n[3]);
    len = tlv(out, 0x30, seq, n[1] + n[2] + n[3]);
    ad.len = len;
    assert_int_equal(gk5i_authz_names(ad, &names), GK5_OK);
    assert_true(names.cammac);
    assert_memory_equal(names.pac.p, pac1, sizeof(pac1));
    /* None at all; empty data. */
    ad.len = 0;
    assert_int_equal(gk5i_authz_names(ad, &names), GK5_OK);
    assert_null(names.pac.p);
    /* A container that does not decode: refused, as MIT's decoder does. */
    n[1] = element(e[1], GK5I_AD_IF_RELEVANT, (const uint8_t *)"\x30\x05", 2);
    len = tlv(out, 0x30, e[1], n[1]);
    ad = (struct gk5i_view){out, len};
    assert_int_not_equal(gk5i_authz_names(ad, &names), GK5_OK);
    /* Containers nested four deep are opened; a fifth is noted and left
     * (the caller leaves such a ticket to MIT). */
    for (int deep = 4; deep <= 5; deep++) {
        n[0] = element(e[0], GK5I_AD_WIN2K_PAC, pac1, sizeof(pac1));
        memcpy(inner, e[0], n[0]);
        len = n[0];
        for (int depth = 0; depth < deep; depth++) {
            size_t s = tlv(seq, 0x30, inner, len);
            len = element(inner, GK5I_AD_IF_RELEVANT, seq, s);
        }
        len = tlv(out, 0x30, inner, len);
        ad = (struct gk5i_view){out, len};
        assert_int_equal(gk5i_authz_names(ad, &names), GK5_OK);
        if (deep == 4) {
            assert_non_null(names.pac.p);
            assert_false(names.too_deep);
        } else {
            assert_null(names.pac.p);
            assert_true(names.too_deep);
        }
    }
    /* Two PACs are counted. */
    n[0] = element(e[0], GK5I_AD_WIN2K_PAC, pac1, sizeof(pac1));
    n[2] = element(e[2], GK5I_AD_WIN2K_PAC, pac2, sizeof(pac2));
    memcpy(seq, e[0], n[0]);
    memcpy(seq + n[0], e[2], n[2]);
    len = tlv(out, 0x30, seq, n[0] + n[2]);
    ad = (struct gk5i_view){out, len};
    assert_int_equal(gk5i_authz_names(ad, &names), GK5_OK);
    assert_int_equal(names.npac, 2);
    assert_memory_equal(names.pac.p, pac1, sizeof(pac1));
}

static void test_attr_names(void **state)
{
    char text[GK5I_PAC_ATTR_MAX];
    uint32_t type = 0;

    (void)state;
    assert_int_equal(gk5i_pac_attr_name(GK5I_PAC_WHOLE, text), 10);
    assert_string_equal(text, "urn:mspac:");
    gk5i_pac_attr_name(GK5I_PAC_CLIENT_INFO, text);
    assert_string_equal(text, "urn:mspac:client-info");
    gk5i_pac_attr_name(16, text);
    assert_string_equal(text, "urn:mspac:16");
    gk5i_pac_attr_name(0x80000000u, text);
    assert_string_equal(text, "urn:mspac:-2147483648");
    assert_true(gk5i_pac_attr_type("URN:MSPAC:", 10, &type));
    assert_int_equal(type, GK5I_PAC_WHOLE);
    assert_true(gk5i_pac_attr_type("urn:mspac:Logon-Info", 20, &type));
    assert_int_equal(type, GK5I_PAC_LOGON_INFO);
    assert_true(gk5i_pac_attr_type("urn:mspac:16", 12, &type));
    assert_int_equal(type, 16);
    assert_true(gk5i_pac_attr_type("urn:mspac:4294967295", 20, &type));
    assert_int_equal(type, GK5I_PAC_WHOLE);
    assert_false(gk5i_pac_attr_type("urn:mspac:4294967296", 20, &type));
    assert_false(gk5i_pac_attr_type("urn:mspac:0", 11, &type));
    /* The name gk5i_pac_attr_name gives 2^31 and up, back to its type (as
     * MIT's strtoul reads it). */
    assert_true(gk5i_pac_attr_type("urn:mspac:-2147483648", 21, &type));
    assert_int_equal(type, 0x80000000u);
    assert_true(gk5i_pac_attr_type("urn:mspac:-327334587", 20, &type));
    assert_int_equal(type, 0xec7d4545u);
    assert_false(gk5i_pac_attr_type("urn:mspac:-2147483649", 21, &type));
    assert_false(gk5i_pac_attr_type("urn:mspac:-0", 12, &type));
    assert_false(gk5i_pac_attr_type("urn:mspac:-", 11, &type));
    assert_false(gk5i_pac_attr_type("urn:mspac:1x", 12, &type));
    assert_false(gk5i_pac_attr_type("urn:mspac:logon-info", 19, &type));
    assert_false(gk5i_pac_attr_type("urn:other:", 10, &type));
    assert_false(gk5i_pac_attr_type("auth-indicators", 15, &type));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verified),
        cmocka_unit_test(test_every_byte_covered),
        cmocka_unit_test(test_wrong_key_or_type),
        cmocka_unit_test(test_missing_or_doubled),
        cmocka_unit_test(test_client_name),
        cmocka_unit_test(test_client_time),
        cmocka_unit_test(test_client_utf16),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_authz_walk),
        cmocka_unit_test(test_attr_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
