/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: MIT keytab files (src/krb5/keytab.c,
 * gk5i_keytab_parse).  The input is the file.
 *
 * A file that parses must hold together: every kept entry has a principal
 * of 1 to GK5I_KRB_MAX_COMPONENTS components inside the keytab's own
 * names[], a key of its enctype's length, and is found again by its own
 * principal, enctype and kvno (the entry found being one of that
 * principal and enctype whose kvno matches); the lookup of a fixed
 * principal (nfs/localhost@GK5.TEST) answers as the header says, and
 * agrees with gk5i_keytab_has_principal.  A refused file must leave no
 * keytab, with GK5_ERR_KEYTAB_FORMAT (or an allocation failure).
 *
 * Allocation failures: the parse runs again with each of its allocations
 * (OpenSSL's allocator, fuzz_alloc_fail_*: the keytab's arrays and the
 * subkeys derived for each entry) made to fail in turn, for files of at
 * most 1 KiB and two entries.  A failed run hands out nothing, with
 * GK5_ERR_NOMEM or GK5_ERR_CRYPTO_BACKEND (or the file's own refusal); a run
 * that succeeds despite it (OpenSSL recovers from some) keeps every entry.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"

static bool inside(const struct gk5i_keytab *kt, struct gk5i_view v)
{
    return v.p >= kt->names && v.len <= kt->names_len &&
           (size_t)(v.p - kt->names) <= kt->names_len - v.len;
}

static bool same_principal(const struct gk5i_kt_entry *a,
                           const struct gk5i_kt_entry *b)
{
    uint32_t i;

    if (a->ncomp != b->ncomp || a->realm.len != b->realm.len ||
        memcmp(a->realm.p, b->realm.p, a->realm.len) != 0) {
        return false;
    }
    for (i = 0; i < a->ncomp; i++) {
        if (a->comp[i].len != b->comp[i].len ||
            memcmp(a->comp[i].p, b->comp[i].p, a->comp[i].len) != 0) {
            return false;
        }
    }
    return true;
}

static void check_entry(const struct gk5i_keytab *kt,
                        const struct gk5i_kt_entry *e)
{
    struct gk5i_krb_principal p;
    const struct gk5i_kt_entry *got;
    uint32_t i, err = 0;

    if (e->ncomp == 0 || e->ncomp > GK5I_KRB_MAX_COMPONENTS ||
        !inside(kt, e->realm)) {
        fuzz_fail("a kept entry's principal is out of bounds", 0, 0);
    }
    memset(&p, 0, sizeof(p));
    p.ncomp = e->ncomp;
    for (i = 0; i < e->ncomp; i++) {
        if (!inside(kt, e->comp[i])) {
            fuzz_fail("a kept entry's component is outside names[]", 0, 0);
        }
        p.comp[i] = e->comp[i];
    }
    if (e->et == NULL || e->key_len != e->et->key_bytes ||
        (e->kvno8 && e->kvno > 0xff)) {
        fuzz_fail("a kept entry's key or kvno is inconsistent", 0, 0);
    }
    got = gk5i_keytab_find(kt, e->realm, &p, true, e->kvno, e->et->num, &err);
    if (got == NULL || err != GK5_OK || !same_principal(got, e) ||
        got->et != e->et ||
        (got->kvno8 ? got->kvno != (e->kvno & 0xffu) : got->kvno != e->kvno)) {
        fuzz_fail("a kept entry is not found by its own name", 0, err);
    }
    got = gk5i_keytab_find(kt, e->realm, &p, false, 0, e->et->num, &err);
    if (got == NULL || err != GK5_OK || got->kvno < e->kvno) {
        fuzz_fail("the highest kvno is not found", 0, err);
    }
    if (!gk5i_keytab_has_principal(kt, e->realm, &p)) {
        fuzz_fail("has_principal misses a kept entry", 0, 0);
    }
}

/* Whether an entry is realm/p, p of one component, by looking. */
static bool has_one_component(const struct gk5i_keytab *kt,
                              struct gk5i_view realm,
                              const struct gk5i_krb_principal *p)
{
    for (size_t i = 0; i < kt->n; i++) {
        const struct gk5i_kt_entry *e = &kt->entries[i];

        if (e->ncomp == 1 && e->realm.len == realm.len &&
            memcmp(e->realm.p, realm.p, realm.len) == 0 &&
            e->comp[0].len == p->comp[0].len &&
            memcmp(e->comp[0].p, p->comp[0].p, p->comp[0].len) == 0) {
            return true;
        }
    }
    return false;
}

static void check_fixed(const struct gk5i_keytab *kt)
{
    static const int32_t enctypes[] = {17, 18, 19, 20, 23, 25, 26};
    struct gk5i_krb_principal p;
    struct gk5i_view realm = {(const uint8_t *)"GK5.TEST", 8};
    size_t i;

    memset(&p, 0, sizeof(p));
    p.name_type = 3;
    p.ncomp = 2;
    p.comp[0].p = (const uint8_t *)"nfs";
    p.comp[0].len = 3;
    p.comp[1].p = (const uint8_t *)"localhost";
    p.comp[1].len = 9;
    for (i = 0; i < sizeof(enctypes) / sizeof(enctypes[0]); i++) {
        uint32_t kvnos[] = {0, 1, 3, 257};
        size_t k;

        for (k = 0; k <= sizeof(kvnos) / sizeof(kvnos[0]); k++) {
            bool has_kvno = k < sizeof(kvnos) / sizeof(kvnos[0]);
            uint32_t err = 0;
            const struct gk5i_kt_entry *got =
                gk5i_keytab_find(kt, realm, &p, has_kvno,
                                 has_kvno ? kvnos[k] : 0, enctypes[i], &err);

            if ((got != NULL) != (err == GK5_OK) ||
                (err != GK5_OK && err != GK5_ERR_AP_WRONG_PRINC &&
                 err != GK5_ERR_AP_NOKEY && err != GK5_ERR_AP_BADKEYVER)) {
                fuzz_fail("find answered out of its contract", 0, err);
            }
            if ((err != GK5_ERR_AP_WRONG_PRINC) !=
                gk5i_keytab_has_principal(kt, realm, &p)) {
                fuzz_fail("find and has_principal disagree", 0, err);
            }
            if (got != NULL && got->et->num != enctypes[i]) {
                fuzz_fail("find gave an entry of another enctype", 0, 0);
            }
        }
    }
    /* The same name in another realm is another principal. */
    {
        struct gk5i_view other = {(const uint8_t *)"OTHER.TEST", 10};
        uint32_t err = 0;

        if (gk5i_keytab_find(kt, other, &p, false, 0, 18, &err) != NULL ||
            err != GK5_ERR_AP_WRONG_PRINC ||
            gk5i_keytab_has_principal(kt, other, &p)) {
            fuzz_fail("a name was found in a realm no entry has", 0, err);
        }
    }
    /* A name with fewer components is another principal. */
    p.ncomp = 1;
    if (gk5i_keytab_has_principal(kt, realm, &p) !=
        has_one_component(kt, realm, &p)) {
        fuzz_fail("has_principal and the entries disagree", 0, 0);
    }
}

/* The same bytes through gk5i_keytab_load, from a memory file: the same
 * verdict and entries as the parse, and gk5i_keytab_changed of the file
 * as loaded is false, of a path that is gone true. */
static void check_load(const uint8_t *data, size_t size, uint32_t want,
                       size_t want_n)
{
    struct gk5i_keytab *kt = NULL;
    struct gk5i_kt_stamp stamp;
    char path[64];
    uint32_t ret;
    int fd = memfd_create("gk5-fuzz-keytab", MFD_CLOEXEC);

    if (fd < 0) {
        return; /* no memfd here: the parse alone is checked */
    }
    if (size != 0 && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    memset(&stamp, 0, sizeof(stamp));
    ret = gk5i_keytab_load(path, &kt, &stamp);
    if (ret != want || (ret == GK5_OK && kt->n != want_n)) {
        fuzz_fail("gk5i_keytab_load and gk5i_keytab_parse disagree", want_n,
                  ret);
    }
    if (ret == GK5_OK && gk5i_keytab_changed(path, &stamp)) {
        fuzz_fail("a keytab just loaded counts as changed", 0, 0);
    }
    gk5i_keytab_free(kt);
    close(fd);
    if (!gk5i_keytab_changed(path, &stamp)) {
        fuzz_fail("a keytab file that is gone counts as unchanged", 0, 0);
    }
    if (gk5i_keytab_load(path, &kt, &stamp) != GK5_ERR_KEYTAB_READ ||
        kt != NULL) {
        fuzz_fail("a keytab file that is gone was read", 0, 0);
    }
}

/* The answers to bad arguments, once per process (on the empty input
 * every run starts with): a NULL buffer (with no length read as an empty
 * one, with a length refused), a file past the limit, lookups without a
 * keytab or a name, a lookup in another realm, a load without a path. */
static void check_arguments(void)
{
    static const uint8_t one[1] = {5};
    struct gk5i_krb_principal p;
    struct gk5i_view realm = {(const uint8_t *)"GK5.TEST", 8};
    struct gk5i_view other = {(const uint8_t *)"OTHER.TEST", 10};
    struct gk5i_keytab *kt = NULL, empty;
    struct gk5i_kt_stamp stamp;
    uint32_t err = 0;

    memset(&p, 0, sizeof(p));
    memset(&empty, 0, sizeof(empty));
    memset(&stamp, 0, sizeof(stamp));
    p.ncomp = 1;
    p.comp[0].p = (const uint8_t *)"nfs";
    p.comp[0].len = 3;
    /* No bytes at all read as an empty buffer does. */
    {
        struct gk5i_keytab *a = NULL, *b = NULL;
        uint32_t ra = gk5i_keytab_parse(NULL, 0, &a);
        uint32_t rb = gk5i_keytab_parse(one, 0, &b);

        if (ra != rb || (a == NULL) != (b == NULL) ||
            (a != NULL && a->n != b->n)) {
            fuzz_fail("a NULL keytab of no bytes reads otherwise", ra, rb);
        }
        gk5i_keytab_free(a);
        gk5i_keytab_free(b);
    }
    if (gk5i_keytab_parse(NULL, 1, &kt) != GK5_ERR_KEYTAB_FORMAT ||
        gk5i_keytab_parse(one, (size_t)GK5I_KEYTAB_MAX_BYTES + 1, &kt) !=
            GK5_ERR_KEYTAB_FORMAT ||
        kt != NULL) {
        fuzz_fail("a bad keytab argument was taken", 0, 0);
    }
    if (gk5i_keytab_find(NULL, realm, &p, false, 0, 18, &err) != NULL ||
        err != GK5_ERR_AP_WRONG_PRINC ||
        gk5i_keytab_find(&empty, realm, NULL, false, 0, 18, &err) != NULL ||
        gk5i_keytab_find(&empty, other, &p, false, 0, 18, &err) != NULL ||
        gk5i_keytab_has_principal(NULL, realm, &p) ||
        gk5i_keytab_has_principal(&empty, realm, NULL)) {
        fuzz_fail("a lookup without a keytab or a name found something", 0,
                  err);
    }
    if (gk5i_keytab_load(NULL, &kt, &stamp) != GK5_ERR_KEYTAB_READ ||
        kt != NULL || !gk5i_keytab_changed(NULL, &stamp)) {
        fuzz_fail("a keytab without a path was read", 0, 0);
    }
}

/* No keytab here makes this many allocations: a sweep that reaches it
 * means the failure point is never passed. */
#define MAX_ALLOC_POINT 2000

static void check_alloc_failures(const uint8_t *data, size_t size,
                                 uint32_t want, size_t want_n)
{
    for (long point = 0;; point++) {
        struct gk5i_keytab *kt = NULL;
        uint32_t ret;

        if (point == MAX_ALLOC_POINT) {
            fuzz_fail("a keytab parse never runs out of allocations", 0, 0);
        }
        fuzz_alloc_fail_arm(point);
        ret = gk5i_keytab_parse(data, size, &kt);
        fuzz_alloc_fail_arm(-1);
        if (ret == GK5_OK && (want != GK5_OK || kt->n != want_n)) {
            fuzz_fail("a keytab parsed out of memory is another", want_n, ret);
        }
        gk5i_keytab_free(kt);
        if (!fuzz_alloc_fail_hit()) {
            if (ret != want) {
                fuzz_fail("a keytab parse armed to fail answered otherwise",
                          want, ret);
            }
            break;
        }
        if (ret != GK5_OK && ret != want && ret != GK5_ERR_NOMEM &&
            ret != GK5_ERR_CRYPTO_BACKEND) {
            fuzz_fail("a keytab parse out of memory answered otherwise", want,
                      ret);
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Before anything allocates through OpenSSL. */
    fuzz_alloc_fail_install();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gk5i_keytab *kt = NULL;
    uint8_t *copy;
    uint32_t ret;
    size_t i;

    fuzz_trace_for(size);
    if (size == 0) {
        check_arguments();
    }
    /* An exact-size copy, so that ASan sees any read past the end. */
    copy = fuzz_dup(data, size);
    ret = gk5i_keytab_parse(copy, size, &kt);
    /* Names and keys are copies: nothing may point into the input. */
    memset(copy, 0xa5, size);
    if (ret != GK5_OK) {
        if (kt != NULL ||
            (ret != GK5_ERR_KEYTAB_FORMAT && ret != GK5_ERR_NOMEM)) {
            fuzz_fail("a refused keytab left a keytab or the wrong code", 0,
                      ret);
        }
    } else {
        if (kt == NULL) {
            fuzz_fail("a parsed keytab is NULL", 0, 0);
        }
        for (i = 0; i < kt->n; i++) {
            check_entry(kt, &kt->entries[i]);
        }
        check_fixed(kt);
    }
    check_load(data, size, ret, ret == GK5_OK ? kt->n : 0);
    /* Every allocation of a small file (at most two entries kept: the
     * sweep parses it once per allocation). */
    if (size <= 1024 && (ret != GK5_OK || kt->n <= 2)) {
        check_alloc_failures(data, size, ret, ret == GK5_OK ? kt->n : 0);
    }
    gk5i_keytab_free(kt);
    free(copy);
    return 0;
}
