/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * MIT keytab files (krb5/krb5 doc/formats/keytab_file_format.rst), read
 * once into memory.
 *
 *   file   ::= 0x05 version(8) { size(32, signed) entry-or-hole }
 *   entry  ::= count(16) realm:data { component:data } name-type(32)
 *              timestamp(32) kvno(8) enctype(16) key:data [kvno(32)]
 *   data   ::= length(16) bytes
 *
 * Version 0x0502 writes every integer big-endian; 0x0501 (MIT before
 * krb5 1.0) writes them in the writer's byte order, counts the realm
 * among the components and has no name type.  The file is parsed in two
 * walks: the first checks the whole structure and measures what the
 * entries need, the second judges each entry's enctype and key and keeps
 * the usable ones, so that a malformed file is refused before any key is
 * copied and the memory is allocated once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krb5_int.h"
#include "pac.h"
#include "../common/bytes.h"
#include "../common/trace.h"

#define KT_VNO_1 0x0501 /* host byte order, read only */
#define KT_VNO_2 0x0502

/* RFC 4120 7.5.1: key usage 2, the ticket's enc-part. */
#define KU_TICKET 2

/* RFC 4120 6.2: what 0x0501 files, which carry no name type, are read as. */
#define NT_UNKNOWN 0

/* One entry as the file has it: views into the file's bytes. */
struct kt_raw {
    struct gk5i_view realm;
    uint32_t ncomp; /* as the file says: may exceed the components kept */
    struct gk5i_view comp[GK5I_KRB_MAX_COMPONENTS];
    int32_t name_type;
    uint32_t timestamp;
    uint32_t kvno;
    bool kvno8;
    int32_t enctype;
    struct gk5i_view key;
};

/* ---- reading the integers of either version ---- */

static uint16_t get16(struct gk5i_rd *r, bool host)
{
    uint16_t v;

    if (!host) {
        return gk5i_get_u16be(r);
    }
    gk5i_copy_bytes(r, &v, sizeof(v));
    return v;
}

static uint32_t get32(struct gk5i_rd *r, bool host)
{
    return host ? gk5i_get_u32host(r) : gk5i_get_u32be(r);
}

/* A counted octet string: 16-bit length, then the bytes. */
static struct gk5i_view get_data(struct gk5i_rd *r, bool host)
{
    struct gk5i_view v;

    v.len = get16(r, host);
    v.p = gk5i_get_bytes(r, v.len);
    if (r->bad) {
        v.len = 0;
    }
    return v;
}

/* One entry, which is exactly the bytes r holds.  The format doc: the
 * entry may be shorter than its record (it may have filled a larger hole),
 * and when at least 4 bytes follow the key they are a 32-bit kvno that
 * supersedes the 8-bit one unless it is 0; MIT reads them so and ignores
 * whatever else is left, and so does gk5.  GK5_OK or
 * GK5_ERR_KEYTAB_FORMAT. */
static uint32_t read_entry(struct gk5i_rd *r, bool v1, struct kt_raw *raw)
{
    uint16_t count;
    uint32_t i;

    memset(raw, 0, sizeof(*raw));
    count = get16(r, v1);
    if (v1) {
        /* 0x0501 counts the realm as a component. */
        count = count == 0 ? 0 : (uint16_t)(count - 1);
    }
    if (r->bad || count == 0) {
        /* MIT ends its reading of the file at a principal with no
         * component; no MIT program writes one, so gk5 calls it
         * malformed rather than drop the entries after it. */
        return GK5_ERR_KEYTAB_FORMAT;
    }
    raw->ncomp = count;
    raw->realm = get_data(r, v1);
    for (i = 0; i < count && !r->bad; i++) {
        struct gk5i_view c = get_data(r, v1);

        if (i < GK5I_KRB_MAX_COMPONENTS) {
            raw->comp[i] = c;
        }
    }
    raw->name_type = v1 ? NT_UNKNOWN : (int32_t)get32(r, v1);
    raw->timestamp = get32(r, v1);
    raw->kvno = gk5i_get_u8(r);
    raw->kvno8 = true;
    /* MIT reads the enctype as a signed 16-bit number. */
    raw->enctype = (int16_t)get16(r, v1);
    raw->key = get_data(r, v1);
    if (gk5i_rd_left(r) >= 4) {
        uint32_t kvno32 = get32(r, v1);

        if (kvno32 != 0) {
            raw->kvno = kvno32;
            raw->kvno8 = false;
        }
    }
    return r->bad ? GK5_ERR_KEYTAB_FORMAT : GK5_OK;
}

/* The next entry after the holes before it: GK5_OK with *raw, or with
 * *end set when the entries end -- at the end of the file, or at a record
 * length of 0, which the format doc makes the end of the file (what follows
 * is not read, as MIT does not).  A record or hole that runs past the end
 * of the file, or 1 to 3 bytes after the last entry, is
 * GK5_ERR_KEYTAB_FORMAT: MIT stops there as if at the end, but a file that
 * ends so was cut short, and the keys it lost may be the ones asked for. */
static uint32_t next_entry(struct gk5i_rd *f, bool v1, struct kt_raw *raw,
                           bool *end)
{
    for (;;) {
        struct gk5i_rd e;
        const uint8_t *p;
        int32_t size;

        if (gk5i_rd_left(f) == 0) {
            *end = true;
            return f->bad ? GK5_ERR_KEYTAB_FORMAT : GK5_OK;
        }
        size = (int32_t)get32(f, v1);
        if (f->bad) {
            return GK5_ERR_KEYTAB_FORMAT;
        }
        if (size == 0) {
            *end = true;
            return GK5_OK;
        }
        if (size < 0) {
            /* A hole left by a deleted entry: -size bytes, skipped
             * (computed unsigned: -INT32_MIN does not fit an int32_t). */
            gk5i_skip(f, 0u - (uint32_t)size);
            if (f->bad) {
                return GK5_ERR_KEYTAB_FORMAT;
            }
            continue;
        }
        p = gk5i_get_bytes(f, (size_t)size);
        if (p == NULL) {
            return GK5_ERR_KEYTAB_FORMAT;
        }
        gk5i_rd_init(&e, p, (size_t)size);
        *end = false;
        return read_entry(&e, v1, raw);
    }
}

/* The version, with f past it.  GK5_OK or GK5_ERR_KEYTAB_FORMAT. */
static uint32_t read_version(struct gk5i_rd *f, bool *v1)
{
    /* The format doc: the first byte is 5, the second the version; the
     * two bytes read the same in either byte order. */
    uint16_t vno = gk5i_get_u16be(f);

    if (f->bad || (vno != KT_VNO_1 && vno != KT_VNO_2)) {
        return GK5_ERR_KEYTAB_FORMAT;
    }
    *v1 = vno == KT_VNO_1;
    return GK5_OK;
}

/* The bytes the principal of raw takes in names[]. */
static size_t raw_names_len(const struct kt_raw *raw)
{
    size_t len = raw->realm.len;
    uint32_t i;

    for (i = 0; i < raw->ncomp && i < GK5I_KRB_MAX_COMPONENTS; i++) {
        len += raw->comp[i].len;
    }
    return len;
}

/* The first walk: the whole file well formed, and the room its entries
 * can need (every entry counted, kept or not).  Every length was checked
 * against the file, so the sums are at most len. */
static uint32_t measure(const uint8_t *in, size_t len, size_t *n,
                        size_t *names_len)
{
    struct gk5i_rd f;
    struct kt_raw raw;
    bool v1 = false, end = false;
    uint32_t ret;

    gk5i_rd_init(&f, in, len);
    ret = read_version(&f, &v1);
    while (ret == GK5_OK) {
        ret = next_entry(&f, v1, &raw, &end);
        if (ret != GK5_OK || end) {
            break;
        }
        *n += 1;
        *names_len += raw_names_len(&raw);
    }
    return ret;
}

/* For trace lines: text of at most cap - 1 characters at buf + *at. */
static void text_add(char *buf, size_t cap, size_t *at, const char *s)
{
    size_t n = strlen(s);

    if (n > cap - 1 - *at) {
        n = cap - 1 - *at;
    }
    memcpy(buf + *at, s, n);
    *at += n;
    buf[*at] = '\0';
}

/* The principal MIT's way ("a/b@R"), with the bytes that are not printable
 * ASCII and the separators inside a name as \xNN; cut to fit buf. */
static void raw_principal_text(const struct kt_raw *raw, char *buf, size_t cap)
{
    uint32_t shown = raw->ncomp < GK5I_KRB_MAX_COMPONENTS
                         ? raw->ncomp
                         : GK5I_KRB_MAX_COMPONENTS;
    size_t at = 0;
    uint32_t i;

    buf[0] = '\0';
    for (i = 0; i <= shown; i++) {
        const struct gk5i_view *v = i < shown ? &raw->comp[i] : &raw->realm;
        size_t j;

        if (i == shown) {
            text_add(buf, cap, &at, shown < raw->ncomp ? "/...@" : "@");
        } else if (i != 0) {
            text_add(buf, cap, &at, "/");
        }
        for (j = 0; j < v->len; j++) {
            uint8_t c = v->p[j];
            char one[5];

            if (c > 0x20 && c < 0x7f && c != '/' && c != '@' && c != '\\') {
                one[0] = (char)c;
                one[1] = '\0';
            } else {
                snprintf(one, sizeof(one), "\\x%02x", c);
            }
            text_add(buf, cap, &at, one);
        }
    }
}

static void __attribute__((cold))
trace_skip(const struct kt_raw *raw, const char *why)
{
    char name[256];

    raw_principal_text(raw, name, sizeof(name));
    gk5i_trace("keytab: entry %s kvno %u enctype %d skipped: %s", name,
               (unsigned)raw->kvno, (int)raw->enctype, why);
}

static struct gk5i_view copy_name(struct gk5i_keytab *kt, struct gk5i_view v)
{
    struct gk5i_view out = {kt->names + kt->names_len, v.len};

    if (v.len != 0) {
        memcpy(kt->names + kt->names_len, v.p, v.len);
    }
    kt->names_len += v.len;
    return out;
}

/* Keeps raw, if gk5 can use its key, as kt->entries[kt->n].  GK5_OK (kept
 * or skipped), GK5_ERR_KEYTAB_FORMAT (a usable enctype with a key of
 * another length), GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND. */
static uint32_t keep_entry(struct gk5i_keytab *kt, const struct kt_raw *raw)
{
    const struct gk5_enctype *et = NULL;
    struct gk5i_kt_entry *e;
    uint32_t ret, i;

    if (raw->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        /* Well formed, but no ticket can name it (the DER decoder takes
         * at most as many components). */
        if (GK5_TRACE_ON()) {
            trace_skip(raw, "more components than gk5 takes");
        }
        return GK5_OK;
    }
    ret = gk5i_enctype_usable(raw->enctype, &et);
    if (ret != GK5_OK) {
        if (GK5_TRACE_ON()) {
            char words[256];

            gk5i_enctype_error_words(ret, words, sizeof(words));
            trace_skip(raw, words);
        }
        return GK5_OK;
    }
    if (raw->key.len != et->key_bytes) {
        if (GK5_TRACE_ON()) {
            char name[256];

            raw_principal_text(raw, name, sizeof(name));
            gk5i_trace("keytab: entry %s kvno %u enctype %d refused: a key "
                       "of %zu bytes, the enctype's are %zu",
                       name, (unsigned)raw->kvno, (int)raw->enctype,
                       raw->key.len, et->key_bytes);
        }
        return GK5_ERR_KEYTAB_FORMAT;
    }

    e = &kt->entries[kt->n];
    e->realm = copy_name(kt, raw->realm);
    e->ncomp = raw->ncomp;
    for (i = 0; i < raw->ncomp; i++) {
        e->comp[i] = copy_name(kt, raw->comp[i]);
    }
    e->name_type = raw->name_type;
    e->timestamp = raw->timestamp;
    e->kvno = raw->kvno;
    e->kvno8 = raw->kvno8;
    e->et = et;
    memcpy(e->key, raw->key.p, raw->key.len);
    e->key_len = raw->key.len;
    ret = gk5i_derive_subkeys(et, e->key, e->key_len, KU_TICKET, &e->tkt_sk);
    if (ret == GK5_OK) {
        ret = gk5i_derive_subkeys(et, e->key, e->key_len, KU_PAC_SIGNATURE,
                                  &e->pac_sk);
    }
    if (ret != GK5_OK) {
        zap(e->key, sizeof(e->key));
        gk5i_subkeys_wipe(&e->tkt_sk);
        gk5i_subkeys_wipe(&e->pac_sk);
        return ret;
    }
    kt->n++;
    return GK5_OK;
}

/* The second walk, over a file measure() accepted. */
static uint32_t fill(const uint8_t *in, size_t len, struct gk5i_keytab *kt)
{
    struct gk5i_rd f;
    struct kt_raw raw;
    bool v1 = false, end = false;
    uint32_t ret;

    gk5i_rd_init(&f, in, len);
    ret = read_version(&f, &v1);
    while (ret == GK5_OK) {
        ret = next_entry(&f, v1, &raw, &end);
        if (ret != GK5_OK || end) {
            break;
        }
        ret = keep_entry(kt, &raw);
    }
    return ret;
}

uint32_t gk5i_keytab_parse(const uint8_t *in, size_t len,
                           struct gk5i_keytab **out)
{
    struct gk5i_keytab *kt = NULL;
    size_t n = 0, names_len = 0;
    uint32_t ret;

    *out = NULL;
    if ((in == NULL && len != 0) || len > GK5I_KEYTAB_MAX_BYTES) {
        ret = GK5_ERR_KEYTAB_FORMAT;
        goto cleanup;
    }
    ret = measure(in, len, &n, &names_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret = GK5_ERR_NOMEM;
    kt = gk5i_zalloc(sizeof(*kt));
    if (kt == NULL) {
        goto cleanup;
    }
    if (n != 0) {
        /* n is at most len / 4 (every record has its length): no
         * overflow below 64 MiB, but say so to the compiler too. */
        if (n > SIZE_MAX / sizeof(*kt->entries)) {
            goto cleanup;
        }
        kt->entries = gk5i_zalloc(n * sizeof(*kt->entries));
        if (kt->entries == NULL) {
            goto cleanup;
        }
    }
    /* One byte at least, so that an empty name still points somewhere. */
    kt->names = gk5i_zalloc(names_len != 0 ? names_len : 1);
    if (kt->names == NULL) {
        goto cleanup;
    }
    ret = fill(in, len, kt);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    *out = kt;
    kt = NULL;

cleanup:
    gk5i_keytab_free(kt);
    return ret;
}

void gk5i_keytab_free(struct gk5i_keytab *kt)
{
    size_t i;

    if (kt == NULL) {
        return;
    }
    for (i = 0; i < kt->n; i++) {
        zap(kt->entries[i].key, sizeof(kt->entries[i].key));
        gk5i_subkeys_wipe(&kt->entries[i].tkt_sk);
        gk5i_subkeys_wipe(&kt->entries[i].pac_sk);
    }
    /* Entries past n were never given a key (keep_entry wipes the one it
     * fails on). */
    gk5i_free(kt->entries);
    gk5i_free(kt->names);
    gk5i_free(kt);
}

static bool entry_is(const struct gk5i_kt_entry *e, struct gk5i_view realm,
                     const struct gk5i_krb_principal *p)
{
    uint32_t i;

    if (e->ncomp != p->ncomp || !gk5i_view_equal(e->realm, realm)) {
        return false;
    }
    for (i = 0; i < e->ncomp; i++) {
        if (!gk5i_view_equal(e->comp[i], p->comp[i])) {
            return false;
        }
    }
    return true;
}

/* MIT (kt_file.c): an entry with only an 8-bit kvno is compared with the
 * low 8 bits of the ticket's, since a kvno past 255 wrapped when it was
 * written. */
static bool kvno_matches(const struct gk5i_kt_entry *e, uint32_t kvno)
{
    return e->kvno8 ? e->kvno == (kvno & 0xffu) : e->kvno == kvno;
}

const struct gk5i_kt_entry *
gk5i_keytab_find(const struct gk5i_keytab *kt, struct gk5i_view realm,
                 const struct gk5i_krb_principal *sname, bool has_kvno,
                 uint32_t kvno, int32_t enctype, uint32_t *err)
{
    const struct gk5i_kt_entry *best = NULL;
    bool of_principal = false, of_enctype = false;
    int32_t want = gk5i_enctype_canonical(enctype);
    size_t i;

    *err = GK5_ERR_AP_WRONG_PRINC;
    if (kt == NULL || sname == NULL) {
        return NULL;
    }
    for (i = 0; i < kt->n; i++) {
        const struct gk5i_kt_entry *e = &kt->entries[i];

        if (!entry_is(e, realm, sname)) {
            continue;
        }
        of_principal = true;
        if (e->et->num != want) {
            continue;
        }
        of_enctype = true;
        if (has_kvno) {
            if (kvno_matches(e, kvno)) {
                best = e; /* the first in the file, as MIT takes it */
                break;
            }
        } else if (best == NULL || e->kvno > best->kvno) {
            best = e;
        }
    }
    if (best != NULL) {
        *err = GK5_OK;
    } else if (of_enctype) {
        *err = GK5_ERR_AP_BADKEYVER;
    } else if (of_principal) {
        *err = GK5_ERR_AP_NOKEY;
    }
    return best;
}

bool gk5i_keytab_has_principal(const struct gk5i_keytab *kt,
                               struct gk5i_view realm,
                               const struct gk5i_krb_principal *p)
{
    size_t i;

    if (kt == NULL || p == NULL) {
        return false;
    }
    for (i = 0; i < kt->n; i++) {
        if (entry_is(&kt->entries[i], realm, p)) {
            return true;
        }
    }
    return false;
}
