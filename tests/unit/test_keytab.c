/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * MIT keytab files (src/krb5/keytab.c) against bytes written out by a
 * small writer here, after krb5/krb5 doc/formats/keytab_file_format.rst:
 * versions 0x0502 and 0x0501, lookups by principal, kvno and enctype (the
 * 32-bit kvno and the 8-bit wrap, the error order), holes, the end marker,
 * entries gk5 skips, every refusal, every truncation; loading from a file
 * and noticing a rewrite; and a keytab MIT's ktutil wrote
 * (tests/vectors/mit_ktutil.keytab, notes beside it).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/trace.h"
#include "krb5/krb5_int.h"

#define ET_AES128 17
#define ET_AES256 18
#define ET_AES128_SHA256 19
#define ET_CAMELLIA256 26
#define ET_RC4 23
#define ET_DES_CBC_CRC 1
#define ET_DES_CBC_MD5 3
#define ET_DES3 16

/* ---- a keytab writer ---- */

struct ktw {
    uint8_t buf[8192];
    size_t len;
    bool v1; /* 0x0501: host byte order, realm counted, no name type */
};

/* One entry to write. */
struct ent {
    const char *realm;
    const char *comp[16];
    unsigned ncomp;
    int32_t name_type;
    uint32_t timestamp;
    uint8_t vno8;
    bool has_vno32;
    uint32_t vno32;
    uint16_t enctype;
    const uint8_t *key;
    size_t key_len;
    size_t pad;          /* zero bytes after the entry, inside its record */
    int32_t size_adjust; /* added to the record length (a lie) */
};

static void put(struct ktw *w, const void *p, size_t n)
{
    assert_true(w->len + n <= sizeof(w->buf));
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put16(struct ktw *w, uint16_t v)
{
    uint8_t b[2];

    if (w->v1) {
        memcpy(b, &v, 2);
    } else {
        store_be16(b, v);
    }
    put(w, b, 2);
}

static void put32(struct ktw *w, uint32_t v)
{
    uint8_t b[4];

    if (w->v1) {
        memcpy(b, &v, 4);
    } else {
        store_be32(b, v);
    }
    put(w, b, 4);
}

static void put_data(struct ktw *w, const void *p, size_t n)
{
    put16(w, (uint16_t)n);
    put(w, p, n);
}

static void kt_begin(struct ktw *w, bool v1)
{
    memset(w, 0, sizeof(*w));
    w->v1 = v1;
    w->buf[0] = 0x05;
    w->buf[1] = v1 ? 0x01 : 0x02;
    w->len = 2;
}

static void kt_entry(struct ktw *w, const struct ent *e)
{
    size_t at = w->len, i;
    uint8_t zero[64] = {0};

    put32(w, 0); /* the record length, filled below */
    put16(w, (uint16_t)(e->ncomp + (w->v1 ? 1 : 0)));
    put_data(w, e->realm, strlen(e->realm));
    for (i = 0; i < e->ncomp; i++) {
        put_data(w, e->comp[i], strlen(e->comp[i]));
    }
    if (!w->v1) {
        put32(w, (uint32_t)e->name_type);
    }
    put32(w, e->timestamp);
    put(w, &e->vno8, 1);
    put16(w, e->enctype);
    put_data(w, e->key, e->key_len);
    if (e->has_vno32) {
        put32(w, e->vno32);
    }
    assert_true(e->pad <= sizeof(zero));
    put(w, zero, e->pad);
    {
        uint32_t size = (uint32_t)(w->len - at - 4 + (size_t)e->size_adjust);
        size_t keep = w->len;

        w->len = at;
        put32(w, size);
        w->len = keep;
    }
}

/* A hole of n zero bytes (record length -n). */
static void kt_hole(struct ktw *w, size_t n)
{
    uint8_t zero[256] = {0};

    assert_true(n <= sizeof(zero));
    put32(w, (uint32_t) - (int32_t)n);
    put(w, zero, n);
}

static const uint8_t key32a[32] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};
static const uint8_t key32b[32] = {
    0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
    0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
    0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0};
static const uint8_t key16[16] = {0x51, 0x52, 0x53, 0x54, 0x55, 0x56,
                                  0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c,
                                  0x5d, 0x5e, 0x5f, 0x60};
static const uint8_t key24[24] = {0x01};
static const uint8_t key8[8] = {0x01};

#define NFS(vno, et, k)                                                        \
    (struct ent)                                                               \
    {                                                                          \
        .realm = "GK5.TEST", .comp = {"nfs", "localhost"}, .ncomp = 2,         \
        .name_type = 3, .timestamp = 0x60000000u, .vno8 = (vno),               \
        .enctype = (et), .key = (k), .key_len = sizeof(k)                      \
    }

/* ---- lookups ---- */

static struct gk5i_view view(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

static struct gk5i_krb_principal princ2(const char *a, const char *b)
{
    struct gk5i_krb_principal p;

    memset(&p, 0, sizeof(p));
    p.name_type = 1; /* ignored: MIT ignores it too */
    p.comp[p.ncomp++] = view(a);
    if (b != NULL) {
        p.comp[p.ncomp++] = view(b);
    }
    return p;
}

static const struct gk5i_kt_entry *find(const struct gk5i_keytab *kt,
                                        const char *realm, const char *a,
                                        const char *b, bool has_kvno,
                                        uint32_t kvno, int32_t enctype,
                                        uint32_t *err)
{
    struct gk5i_krb_principal p = princ2(a, b);

    return gk5i_keytab_find(kt, view(realm), &p, has_kvno, kvno, enctype, err);
}

static const struct gk5i_kt_entry *find_nfs(const struct gk5i_keytab *kt,
                                            bool has_kvno, uint32_t kvno,
                                            int32_t enctype, uint32_t *err)
{
    return find(kt, "GK5.TEST", "nfs", "localhost", has_kvno, kvno, enctype,
                err);
}

static struct gk5i_keytab *parse_ok(const struct ktw *w)
{
    struct gk5i_keytab *kt = NULL;

    assert_int_equal(gk5i_keytab_parse(w->buf, w->len, &kt), GK5_OK);
    assert_non_null(kt);
    return kt;
}

static void expect_refused(const uint8_t *p, size_t len, uint32_t want)
{
    struct gk5i_keytab *kt = (struct gk5i_keytab *)&kt; /* not NULL */

    assert_int_equal(gk5i_keytab_parse(p, len, &kt), want);
    assert_null(kt);
}

/* The entry's key and the key-usage-2 subkeys derived from it. */
static void expect_key(const struct gk5i_kt_entry *e, int32_t enctype,
                       const uint8_t *key, size_t len)
{
    struct gk5i_subkeys sk;

    assert_non_null(e);
    assert_int_equal(e->et->num, enctype);
    assert_int_equal(e->key_len, len);
    assert_memory_equal(e->key, key, len);
    memset(&sk, 0, sizeof(sk));
    assert_int_equal(gk5i_derive_subkeys(e->et, key, len, 2, &sk), GK5_OK);
    assert_int_equal(e->tkt_sk.ke_len, sk.ke_len);
    assert_int_equal(e->tkt_sk.ki_len, sk.ki_len);
    assert_int_equal(e->tkt_sk.kc_len, sk.kc_len);
    assert_memory_equal(e->tkt_sk.ke, sk.ke, sk.ke_len);
    assert_memory_equal(e->tkt_sk.ki, sk.ki, sk.ki_len);
    assert_memory_equal(e->tkt_sk.kc, sk.kc, sk.kc_len);
    gk5i_subkeys_wipe(&sk);
}

static void test_v2_find(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    const struct gk5i_kt_entry *got;
    uint8_t *copy;
    uint32_t err;

    (void)state;
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt_entry(&w, &NFS(3, ET_AES128, key16));
    kt_entry(&w, &NFS(4, ET_AES256, key32b));
    e = NFS(1, ET_AES256, key32b);
    e.comp[0] = "host";
    kt_entry(&w, &e);

    /* The names are copied: the input may go away. */
    copy = malloc(w.len);
    assert_non_null(copy);
    memcpy(copy, w.buf, w.len);
    kt = NULL;
    assert_int_equal(gk5i_keytab_parse(copy, w.len, &kt), GK5_OK);
    memset(copy, 0xee, w.len);
    free(copy);
    assert_int_equal(kt->n, 4);
    assert_int_equal(kt->entries[0].name_type, 3);
    assert_int_equal(kt->entries[0].timestamp, 0x60000000u);
    assert_true(kt->entries[0].kvno8);
    assert_int_equal(kt->entries[0].ncomp, 2);
    assert_int_equal(kt->entries[0].realm.len, 8);
    assert_memory_equal(kt->entries[0].realm.p, "GK5.TEST", 8);
    assert_memory_equal(kt->entries[0].comp[1].p, "localhost", 9);

    got = find_nfs(kt, true, 3, ET_AES256, &err);
    assert_int_equal(err, GK5_OK);
    assert_ptr_equal(got, &kt->entries[0]);
    expect_key(got, ET_AES256, key32a, sizeof(key32a));
    got = find_nfs(kt, true, 4, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[2]);
    expect_key(got, ET_AES256, key32b, sizeof(key32b));
    got = find_nfs(kt, true, 3, ET_AES128, &err);
    expect_key(got, ET_AES128, key16, sizeof(key16));
    /* Without a kvno: the highest. */
    got = find_nfs(kt, false, 0, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[2]);
    got = find_nfs(kt, false, 0, ET_AES128, &err);
    assert_ptr_equal(got, &kt->entries[1]);
    got = find(kt, "GK5.TEST", "host", "localhost", true, 1, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[3]);

    /* The error order: principal, then enctype, then kvno. */
    assert_null(find_nfs(kt, true, 5, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    assert_null(find_nfs(kt, true, 4, ET_AES128, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    assert_null(find_nfs(kt, true, 3, ET_AES128_SHA256, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    assert_null(find_nfs(kt, false, 0, ET_RC4, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    assert_null(
        find(kt, "GK5.TESTX", "nfs", "localhost", true, 3, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    assert_null(
        find(kt, "gk5.test", "nfs", "localhost", true, 3, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    assert_null(find(kt, "GK5.TEST", "nfs", "localhos", true, 5, ET_RC4, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    assert_null(find(kt, "GK5.TEST", "nfs", NULL, true, 3, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    assert_null(gk5i_keytab_find(NULL, view("GK5.TEST"), NULL, false, 0,
                                 ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    gk5i_keytab_free(kt);
    gk5i_keytab_free(NULL);
}

static void test_has_principal(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    struct gk5i_krb_principal p;

    (void)state;
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    e = NFS(3, ET_RC4, key16);
    e.comp[0] = "cifs"; /* only an rc4 key: skipped, so not here */
    kt_entry(&w, &e);
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 1);
    p = princ2("nfs", "localhost");
    assert_true(gk5i_keytab_has_principal(kt, view("GK5.TEST"), &p));
    assert_false(gk5i_keytab_has_principal(kt, view("OTHER"), &p));
    p = princ2("cifs", "localhost");
    assert_false(gk5i_keytab_has_principal(kt, view("GK5.TEST"), &p));
    p = princ2("nfs", NULL);
    assert_false(gk5i_keytab_has_principal(kt, view("GK5.TEST"), &p));
    assert_false(gk5i_keytab_has_principal(NULL, view("GK5.TEST"), &p));
    gk5i_keytab_free(kt);
}

/* The 32-bit kvno after the key replaces the 8-bit one unless it is 0; an
 * entry with only the 8-bit one matches a ticket's kvno in 8 bits. */
static void test_kvno32(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    const struct gk5i_kt_entry *got;
    uint32_t err;

    (void)state;
    kt_begin(&w, false);
    e = NFS(1, ET_AES256, key32a); /* kvno 257 */
    e.has_vno32 = true;
    e.vno32 = 257;
    kt_entry(&w, &e);
    e = NFS(5, ET_AES128, key16); /* a 32-bit 0: the 8-bit 5 stands */
    e.has_vno32 = true;
    e.vno32 = 0;
    kt_entry(&w, &e);
    e = NFS(1, ET_AES128_SHA256, key16); /* 8-bit only */
    kt_entry(&w, &e);
    e = NFS(7, ET_AES256, key32b); /* 3 bytes after the key: no kvno32 */
    e.pad = 3;
    kt_entry(&w, &e);
    e = NFS(9, ET_AES128, key16); /* kvno32 70000, then bytes ignored */
    e.has_vno32 = true;
    e.vno32 = 70000;
    e.pad = 9;
    kt_entry(&w, &e);
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 5);
    assert_int_equal(kt->entries[0].kvno, 257);
    assert_false(kt->entries[0].kvno8);
    assert_int_equal(kt->entries[1].kvno, 5);
    assert_true(kt->entries[1].kvno8);
    assert_int_equal(kt->entries[2].kvno, 1);
    assert_true(kt->entries[2].kvno8);
    assert_int_equal(kt->entries[3].kvno, 7);
    assert_true(kt->entries[3].kvno8);
    assert_int_equal(kt->entries[4].kvno, 70000);
    assert_false(kt->entries[4].kvno8);

    got = find_nfs(kt, true, 257, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[0]);
    /* A full 32-bit kvno is compared in full. */
    assert_null(find_nfs(kt, true, 1, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    assert_null(find_nfs(kt, true, 513, ET_AES256, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    /* Ticket kvno 257 against an 8-bit 1: the wrapped kvno, a match. */
    got = find_nfs(kt, true, 257, ET_AES128_SHA256, &err);
    assert_ptr_equal(got, &kt->entries[2]);
    got = find_nfs(kt, true, 1, ET_AES128_SHA256, &err);
    assert_ptr_equal(got, &kt->entries[2]);
    assert_null(find_nfs(kt, true, 2, ET_AES128_SHA256, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    got = find_nfs(kt, true, 261, ET_AES128, &err);
    assert_ptr_equal(got, &kt->entries[1]);
    got = find_nfs(kt, true, 70000, ET_AES128, &err);
    assert_ptr_equal(got, &kt->entries[4]);
    assert_null(find_nfs(kt, true, 70000 & 0xff, ET_AES128, &err));
    assert_int_equal(err, GK5_ERR_AP_BADKEYVER);
    got = find_nfs(kt, false, 0, ET_AES128, &err);
    assert_ptr_equal(got, &kt->entries[4]);
    got = find_nfs(kt, false, 0, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[0]);
    gk5i_keytab_free(kt);
}

/* Holes are skipped; a record length of 0 ends the entries (the format
 * doc), whatever follows it. */
static void test_holes_and_end(void **state)
{
    static const uint8_t junk[] = {0xff, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04};
    struct ktw w;
    struct gk5i_keytab *kt;
    const struct gk5i_kt_entry *got;
    uint32_t err;

    (void)state;
    kt_begin(&w, false);
    kt_hole(&w, 40);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt_hole(&w, 1);
    kt_hole(&w, 0); /* "-0": the end */
    kt_entry(&w, &NFS(4, ET_AES256, key32b));
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 1);
    gk5i_keytab_free(kt);

    kt_begin(&w, false);
    kt_hole(&w, 40);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt_hole(&w, 100);
    kt_entry(&w, &NFS(4, ET_AES256, key32b));
    kt_hole(&w, 7);
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 2);
    got = find_nfs(kt, false, 0, ET_AES256, &err);
    assert_ptr_equal(got, &kt->entries[1]);
    gk5i_keytab_free(kt);

    /* An end marker, then anything. */
    put32(&w, 0);
    put(&w, junk, sizeof(junk));
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 2);
    gk5i_keytab_free(kt);

    /* A hole past the end of the file; the largest hole. */
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    put32(&w, (uint32_t)-8);
    put(&w, junk, 7); /* the hole says 8 */
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    kt_begin(&w, false);
    put32(&w, 0x80000000u);
    put(&w, junk, sizeof(junk));
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    /* A record longer than the file. */
    kt_begin(&w, false);
    put32(&w, 0x7fffffffu);
    put(&w, junk, sizeof(junk));
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
}

/* 0x0501: host byte order, the realm counted among the components, no
 * name type. */
static void test_v1(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    const struct gk5i_kt_entry *got;
    uint32_t err;

    (void)state;
    kt_begin(&w, true);
    e = NFS(3, ET_AES256, key32a);
    e.timestamp = 0x01020304u;
    kt_entry(&w, &e);
    kt_hole(&w, 12);
    e = NFS(2, ET_AES128, key16);
    e.has_vno32 = true;
    e.vno32 = 0x10002;
    kt_entry(&w, &e);
    e = NFS(4, ET_AES256, key32b);
    e.realm = "";
    e.comp[0] = "";
    e.ncomp = 1;
    kt_entry(&w, &e);
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 3);
    assert_int_equal(kt->entries[0].name_type, 0);
    assert_int_equal(kt->entries[0].timestamp, 0x01020304u);
    assert_int_equal(kt->entries[0].ncomp, 2);
    got = find_nfs(kt, true, 3, ET_AES256, &err);
    expect_key(got, ET_AES256, key32a, sizeof(key32a));
    got = find_nfs(kt, true, 0x10002, ET_AES128, &err);
    expect_key(got, ET_AES128, key16, sizeof(key16));
    assert_false(got->kvno8);
    got = find(kt, "", "", NULL, true, 4, ET_AES256, &err);
    expect_key(got, ET_AES256, key32b, sizeof(key32b));
    assert_int_equal(got->realm.len, 0);
    gk5i_keytab_free(kt);

    /* A 0x0501 principal of the realm alone has no component. */
    kt_begin(&w, true);
    put32(&w, 4);
    put16(&w, 1);
    put_data(&w, "R", 0);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    kt_begin(&w, true);
    put32(&w, 2);
    put16(&w, 0);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
}

/* rc4, DES, des3 when not built and unknown enctypes are skipped, whatever
 * their key length, and never found. */
static void test_skipped_enctypes(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    bool des3 = gk5i_enctype_usable(ET_DES3, NULL) == GK5_OK;
    uint32_t err;

    (void)state;
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_RC4, key16));
    kt_entry(&w, &NFS(3, ET_DES_CBC_CRC, key8));
    kt_entry(&w, &NFS(3, ET_DES_CBC_MD5, key8));
    kt_entry(&w, &NFS(3, ET_DES3, key24));
    kt_entry(&w, &NFS(3, 999, key32a));
    kt_entry(&w, &NFS(3, 0xffff, key32a)); /* -1 */
    e = NFS(3, ET_RC4, key32a);            /* the wrong length, skipped */
    e.key_len = 5;
    kt_entry(&w, &e);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt = parse_ok(&w);
    assert_int_equal(kt->n, des3 ? 2 : 1);
    assert_null(find_nfs(kt, true, 3, ET_RC4, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    assert_null(find_nfs(kt, true, 3, ET_DES_CBC_CRC, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    assert_null(find_nfs(kt, true, 3, 999, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    if (!des3) {
        assert_null(find_nfs(kt, true, 3, ET_DES3, &err));
        assert_int_equal(err, GK5_ERR_AP_NOKEY);
    }
    assert_non_null(find_nfs(kt, true, 3, ET_AES256, &err));
    gk5i_keytab_free(kt);

    /* Nothing usable at all: an empty keytab, not an error. */
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_RC4, key16));
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 0);
    assert_null(find_nfs(kt, true, 3, ET_RC4, &err));
    assert_int_equal(err, GK5_ERR_AP_WRONG_PRINC);
    gk5i_keytab_free(kt);
    kt_begin(&w, false);
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 0);
    gk5i_keytab_free(kt);
}

/* A principal of more components than a ticket can carry is skipped when
 * it is well formed. */
static void test_many_components(void **state)
{
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    unsigned i;
    uint32_t err;

    (void)state;
    kt_begin(&w, false);
    e = NFS(3, ET_AES256, key32a);
    for (i = 0; i < GK5I_KRB_MAX_COMPONENTS + 1; i++) {
        e.comp[i] = "c";
    }
    e.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    kt_entry(&w, &e);
    e.ncomp = GK5I_KRB_MAX_COMPONENTS; /* the most: kept */
    kt_entry(&w, &e);
    kt_entry(&w, &NFS(3, ET_AES256, key32b));
    kt = parse_ok(&w);
    assert_int_equal(kt->n, 2);
    assert_int_equal(kt->entries[0].ncomp, GK5I_KRB_MAX_COMPONENTS);
    expect_key(find_nfs(kt, true, 3, ET_AES256, &err), ET_AES256, key32b,
               sizeof(key32b));
    gk5i_keytab_free(kt);
}

/* A usable enctype with a key of another length is a malformed file. */
static void test_wrong_key_length(void **state)
{
    struct ktw w;
    struct ent e;

    (void)state;
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES128, key16));
    e = NFS(3, ET_AES256, key16);
    kt_entry(&w, &e);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES128, key32a));
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    kt_begin(&w, false);
    e = NFS(3, ET_AES128, key16);
    e.key_len = 0;
    kt_entry(&w, &e);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
}

static void test_malformed(void **state)
{
    static const uint8_t bad_versions[][2] = {
        {0x05, 0x00}, {0x05, 0x03}, {0x06, 0x02}, {0x02, 0x05}, {0x00, 0x00}};
    struct ktw w;
    struct ent e;
    size_t i;

    (void)state;
    expect_refused(NULL, 0, GK5_ERR_KEYTAB_FORMAT);
    expect_refused((const uint8_t *)"\x05", 1, GK5_ERR_KEYTAB_FORMAT);
    for (i = 0; i < GK5_ARRAY_SIZE(bad_versions); i++) {
        kt_begin(&w, false);
        kt_entry(&w, &NFS(3, ET_AES256, key32a));
        memcpy(w.buf, bad_versions[i], 2);
        expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    }
    /* A record shorter than its entry, by one byte and by more. */
    kt_begin(&w, false);
    e = NFS(3, ET_AES256, key32a);
    e.size_adjust = -1;
    kt_entry(&w, &e);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    kt_begin(&w, false);
    e.size_adjust = -40;
    kt_entry(&w, &e);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    /* A component length past its record. */
    kt_begin(&w, false);
    put32(&w, 8);
    put16(&w, 1);
    put_data(&w, "", 0);
    put16(&w, 100);
    put16(&w, 0);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    /* No component. */
    kt_begin(&w, false);
    e = NFS(3, ET_AES256, key32a);
    e.ncomp = 0;
    kt_entry(&w, &e);
    expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    /* One to three stray bytes after the last entry. */
    for (i = 1; i <= 3; i++) {
        kt_begin(&w, false);
        kt_entry(&w, &NFS(3, ET_AES256, key32a));
        put(&w, "\0\0\0", i);
        expect_refused(w.buf, w.len, GK5_ERR_KEYTAB_FORMAT);
    }
    /* Larger than gk5 reads (refused before any byte is read). */
    expect_refused(w.buf, (size_t)GK5I_KEYTAB_MAX_BYTES + 1,
                   GK5_ERR_KEYTAB_FORMAT);
}

/* Every prefix of a valid file, and every byte of it flipped: refused as
 * malformed, or parsed, never more. */
static void every_cut_and_flip(const uint8_t *in, size_t len, size_t full_n)
{
    uint8_t *p = malloc(len);
    size_t cut, i;
    unsigned parsed = 0;

    assert_non_null(p);
    for (cut = 0; cut < len; cut++) {
        struct gk5i_keytab *kt = NULL;
        uint8_t *q = malloc(cut != 0 ? cut : 1); /* exact: ASan sees past */
        uint32_t ret;

        assert_non_null(q);
        memcpy(q, in, cut);
        ret = gk5i_keytab_parse(q, cut, &kt);
        if (ret == GK5_OK) {
            assert_true(kt->n <= full_n);
            parsed++;
        } else {
            assert_int_equal(ret, GK5_ERR_KEYTAB_FORMAT);
            assert_null(kt);
        }
        gk5i_keytab_free(kt);
        free(q);
    }
    assert_true(parsed < len / 8);
    for (i = 0; i < len; i++) {
        static const uint8_t flips[] = {0x01, 0x80, 0xff};
        size_t f;

        for (f = 0; f < sizeof(flips); f++) {
            struct gk5i_keytab *kt = NULL;
            uint32_t ret;

            memcpy(p, in, len);
            p[i] ^= flips[f];
            ret = gk5i_keytab_parse(p, len, &kt);
            assert_true(ret == GK5_OK || ret == GK5_ERR_KEYTAB_FORMAT);
            assert_true((ret == GK5_OK) == (kt != NULL));
            gk5i_keytab_free(kt);
        }
    }
    free(p);
}

static void test_truncations(void **state)
{
    struct ktw w;
    struct ent e;

    (void)state;
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt_hole(&w, 9);
    e = NFS(1, ET_AES128, key16);
    e.has_vno32 = true;
    e.vno32 = 257;
    kt_entry(&w, &e);
    kt_entry(&w, &NFS(3, ET_RC4, key16));
    every_cut_and_flip(w.buf, w.len, 2);

    kt_begin(&w, true);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    kt_entry(&w, &e);
    every_cut_and_flip(w.buf, w.len, 2);
}

/* ---- the keytab MIT's ktutil wrote ---- */

static char *vector_path(const char *name)
{
    const char *dir = getenv("GK5_VECTORS_DIR");
    char *path;

    if (dir == NULL || dir[0] == '\0') {
        fail_msg("GK5_VECTORS_DIR is not set (run the tests with meson test)");
    }
    path = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(path);
    sprintf(path, "%s/%s", dir, name);
    return path;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = strlen(s) / 2, i;

    assert_true(n <= cap);
    for (i = 0; i < n; i++) {
        unsigned v;

        assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

/* The keys `klist -k -K -e` prints for the file
 * (tests/vectors/mit_ktutil.keytab.txt). */
static const struct {
    int32_t enctype;
    const char *key;
} mit_keys[] = {
    {ET_AES256,
     "62c85b607a72c7f5f68cabcfdfa5b5a1fef21b8e7988a71158824a0dbb5e50d1"},
    {ET_AES128_SHA256, "637332f0ea3d2e818717865763d0dc91"},
    {ET_CAMELLIA256,
     "a999a906e49bdb23c5b54d05ab4e8623e842b5c184fdabf8c2772d891adc12bf"},
};

static void test_mit_ktutil(void **state)
{
    char *path = vector_path("mit_ktutil.keytab");
    struct gk5i_keytab *kt = NULL;
    struct gk5i_kt_stamp mtime;
    memset(&mtime, 0, sizeof(mtime));
    const struct gk5i_kt_entry *got;
    size_t i, n = 0;
    uint32_t err;

    (void)state;
    assert_int_equal(gk5i_keytab_load(path, &kt, &mtime), GK5_OK);
    assert_false(gk5i_keytab_changed(path, &mtime));
    for (i = 0; i < GK5_ARRAY_SIZE(mit_keys); i++) {
        uint8_t key[GK5_MAX_KEY_BYTES];
        size_t len = unhex(mit_keys[i].key, key, sizeof(key));

        if (gk5i_enctype_usable(mit_keys[i].enctype, NULL) != GK5_OK) {
            continue; /* not built here (camellia without OpenSSL's) */
        }
        assert_true(n < kt->n);
        assert_ptr_equal(&kt->entries[n],
                         find_nfs(kt, true, 3, mit_keys[i].enctype, &err));
        got = &kt->entries[n++];
        expect_key(got, mit_keys[i].enctype, key, len);
        assert_int_equal(got->kvno, 3);
        assert_false(got->kvno8); /* ktutil writes the 32-bit kvno */
        assert_int_equal(got->timestamp, 0x6b130c9au);
        assert_int_equal(got->name_type, 1); /* KRB5_NT_PRINCIPAL */
    }
    assert_int_equal(kt->n, n);
    assert_true(n >= 2);
    /* The arcfour-hmac entry is skipped. */
    assert_null(find_nfs(kt, true, 3, ET_RC4, &err));
    assert_int_equal(err, GK5_ERR_AP_NOKEY);
    gk5i_keytab_free(kt);
    free(path);
}

/* ---- files ---- */

static void write_file(const char *path, const struct ktw *w)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(w->buf, 1, w->len, f), w->len);
    assert_int_equal(fclose(f), 0);
}

static void set_mtime(const char *path, time_t sec, long nsec)
{
    struct timespec ts[2] = {{sec, nsec}, {sec, nsec}};

    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_load_and_changed(void **state)
{
    char dir[] = "/tmp/gk5-keytab-XXXXXX";
    char path[64];
    struct ktw w;
    struct gk5i_keytab *kt = NULL;
    struct gk5i_kt_stamp mtime, other;
    uint32_t err;

    (void)state;
    memset(&mtime, 0, sizeof(mtime));
    memset(&other, 0, sizeof(other));
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/krb5.keytab", dir);

    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_AES256, key32a));
    write_file(path, &w);
    set_mtime(path, 1700000000, 5);
    assert_int_equal(gk5i_keytab_load(path, &kt, &mtime), GK5_OK);
    assert_int_equal(mtime.mtime.tv_sec, 1700000000);
    assert_int_equal(mtime.mtime.tv_nsec, 5);
    assert_int_equal(kt->n, 1);
    assert_false(gk5i_keytab_changed(path, &mtime));
    gk5i_keytab_free(kt);

    /* Rewritten: a new key, a new time (the nanoseconds count too). */
    kt_entry(&w, &NFS(4, ET_AES256, key32b));
    write_file(path, &w);
    set_mtime(path, 1700000000, 6);
    assert_true(gk5i_keytab_changed(path, &mtime));
    assert_int_equal(gk5i_keytab_load(path, &kt, &mtime), GK5_OK);
    assert_false(gk5i_keytab_changed(path, &mtime));
    expect_key(find_nfs(kt, false, 0, ET_AES256, &err), ET_AES256, key32b,
               sizeof(key32b));
    gk5i_keytab_free(kt);

    /* Rewritten within the same timestamp (a coarse clock, or the time
     * kept on purpose): the size tells. */
    kt_entry(&w, &NFS(5, ET_AES256, key32a));
    write_file(path, &w);
    set_mtime(path, 1700000000, 6);
    assert_true(gk5i_keytab_changed(path, &mtime));
    assert_int_equal(gk5i_keytab_load(path, &kt, &mtime), GK5_OK);
    assert_false(gk5i_keytab_changed(path, &mtime));
    gk5i_keytab_free(kt);

    /* A malformed file: as gk5i_keytab_parse says; outputs untouched. */
    w.buf[1] = 0x03;
    write_file(path, &w);
    kt = NULL;
    other.mtime.tv_sec = 42;
    assert_int_equal(gk5i_keytab_load(path, &kt, &other),
                     GK5_ERR_KEYTAB_FORMAT);
    assert_null(kt);
    assert_int_equal(other.mtime.tv_sec, 42);

    /* Gone, or not a file: changed, and cannot be read. */
    assert_int_equal(unlink(path), 0);
    assert_true(gk5i_keytab_changed(path, &mtime));
    assert_int_equal(gk5i_keytab_load(path, &kt, &other), GK5_ERR_KEYTAB_READ);
    assert_null(kt);
    assert_int_equal(gk5i_keytab_load(dir, &kt, &other), GK5_ERR_KEYTAB_READ);
    assert_null(kt);
    assert_int_equal(rmdir(dir), 0);
}

/* The trace line of a skipped entry names the principal, kvno, enctype
 * and why. */
static void test_trace_skip(void **state)
{
    char path[] = "/tmp/gk5-keytab-trace-XXXXXX";
    char text[4096];
    struct ktw w;
    struct ent e;
    struct gk5i_keytab *kt;
    ssize_t got;
    int fd;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(setenv("GK5_TRACE", path, 1), 0);
    gk5i_trace_reset();
    kt_begin(&w, false);
    kt_entry(&w, &NFS(3, ET_RC4, key16));
    e = NFS(4, 999, key16);
    e.comp[1] = "a@b/c";
    kt_entry(&w, &e);
    kt = parse_ok(&w);
    gk5i_keytab_free(kt);
    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();

    got = read(fd, text, sizeof(text) - 1);
    assert_true(got > 0);
    text[got] = '\0';
    assert_non_null(strstr(text, "keytab: entry nfs/localhost@GK5.TEST kvno 3 "
                                 "enctype 23 skipped: rc4-hmac"));
    assert_non_null(strstr(text, "keytab: entry nfs/a\\x40b\\x2fc@GK5.TEST "
                                 "kvno 4 enctype 999 skipped: unknown"));
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_find),
        cmocka_unit_test(test_has_principal),
        cmocka_unit_test(test_kvno32),
        cmocka_unit_test(test_holes_and_end),
        cmocka_unit_test(test_v1),
        cmocka_unit_test(test_skipped_enctypes),
        cmocka_unit_test(test_many_components),
        cmocka_unit_test(test_wrong_key_length),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_mit_ktutil),
        cmocka_unit_test(test_load_and_changed),
        cmocka_unit_test(test_trace_skip),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
