/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the Windows PAC reader of natively accepted names
 * (src/krb5/pac.c).  Byte 0 chooses (modulo 4):
 *
 *   0 raw:    the rest is a PAC.  When gk5i_pac_parse takes it, it has
 *             1 to 4096 buffers (MIT's limits), their headers fit, every
 *             buffer from gk5i_pac_buffer_at lies after them, inside the
 *             input, 8-aligned; gk5i_pac_find answers 1 (that buffer), 0
 *             or -1 as a count of the types says.  gk5i_pac_verify, with
 *             the enctype-18 seed key, authtime FUZZ_PAC_AUTHTIME and
 *             the client of components "alice" and "x/y@z" ("alice/x/y@z"
 *             in a PAC), is true only where the server signature is the
 *             key's checksum over the PAC with both signatures zeroed.
 *   1 signed: the rest describes a PAC that the target builds and signs
 *             (mode_signed: the client info, buffers from the input, the
 *             server and KDC signatures, in an order from the input), a
 *             client of its own and an authtime; then up to 8 byte flips.
 *             Where the client info names the client at authtime as MIT
 *             1.20 compares names (the components joined by '/', nothing
 *             escaped, equal as C strings: up to a NUL; no unpaired
 *             surrogate), the signatures are well formed (a server
 *             checksum of the key's type, at least as long as it: what
 *             follows is zeroed and not compared) and every changed byte
 *             is a zeroed one, verify must be true; where a signature is
 *             not well formed, the authtime or name differ on purpose or
 *             another byte changed, false (where the input adds a second
 *             KDC signature, which one MIT zeroes is the order's: only
 *             MIT judges).  An allocation that fails under verify (the
 *             input may arm one) never gives true.
 *   2 authz:  the rest is AuthorizationData (DER) for gk5i_authz_names:
 *             on GK5_OK the PAC it finds lies inside the input (and goes
 *             through mode 0's layout checks when it parses).
 *   3 attr:   the rest is an attribute name.  Where gk5i_pac_attr_type
 *             takes it, gk5i_pac_attr_name of the type names the same
 *             type again; the name of the type in the input's first four
 *             bytes (little-endian) is taken back as that type (type 0
 *             aside: "urn:mspac:0" names no buffer, as with MIT).
 *
 * With MIT krb5 (FUZZ_PAC_MIT) modes 0 and 1 are also differential
 * against libkrb5's exported PAC functions (Debian 12: 1.20.1):
 * gk5i_pac_parse takes exactly what krb5_pac_parse takes; then
 * krb5_pac_get_types gives the same types in the same order and
 * krb5_pac_get_buffer the same bytes for each type that occurs once (and
 * refuses those that occur more often, where gk5i_pac_find says -1); and
 * gk5i_pac_verify is true exactly where krb5_pac_verify (the same key, no
 * KDC key, the same authtime -- MIT's 32-bit krb5_timestamp -- and
 * client) returns 0.  Mode 1 then also signs with checksum types other
 * than the key's own where MIT can make them (krb5_c_make_checksum).
 * One difference is intended and counted, not failed (FUZZ_DIFF_STATS
 * set: printed at exit):
 *
 *   other-cksum  MIT verifies a server signature of a keyed checksum type
 *                its krb5_c_verify_checksum allows with the key but which
 *                is not the key's own type (hmac-md5-rc4, -138, with any
 *                key; hmac-sha384-192-aes256, 20, with this aes256-sha1
 *                key, the same length); gk5 takes only the ticket key's
 *                checksum type (pac.h), so it calls that PAC unverified.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "fuzz_common.h"
#include "krb5/pac.h"

#ifdef FUZZ_PAC_MIT
#include <krb5.h>
#endif

enum { MODE_RAW, MODE_SIGNED, MODE_AUTHZ, MODE_ATTR, MODE_COUNT };

/* FILETIME ticks per second; seconds from 1601 to 1970. */
#define TICKS 10000000LL
#define FILETIME_1970 11644473600LL
#define SIG_TYPE_BYTES 4u
#define MAX_COMPS 3
#define MAX_COMP_CHARS 12

static const struct gk5_enctype *pac_et;
static uint8_t pac_key[32];
/* Its subkeys for the signature's usage, as the keytab makes them. */
static struct gk5i_subkeys pac_sk;

_Static_assert(FUZZ_PAC_KEY_USAGE == KU_PAC_SIGNATURE,
               "the seeds' signatures and pac.c's usage");

/* ---- the principal ---- */

struct principal {
    struct gk5i_krb_principal k;
    uint8_t bytes[MAX_COMPS][MAX_COMP_CHARS * 4];
};

static void principal_fixed(struct principal *pr)
{
    static const char *const comps[] = {FUZZ_PAC_COMP0, FUZZ_PAC_COMP1};

    memset(pr, 0, sizeof(*pr));
    pr->k.name_type = 1;
    pr->k.ncomp = 2;
    for (unsigned i = 0; i < 2; i++) {
        pr->k.comp[i].p = (const uint8_t *)comps[i];
        pr->k.comp[i].len = strlen(comps[i]);
    }
}

#ifdef FUZZ_PAC_MIT
static krb5_context kctx;
static unsigned long n_other_cksum, n_mit_verified;

static void print_stats(void)
{
    fprintf(stderr,
            "fuzz_pac: MIT verified %lu, of which other-cksum %lu (gk5: "
            "unverified)\n",
            n_mit_verified, n_other_cksum);
}

static bool mit_parse(const uint8_t *p, size_t len, krb5_pac *out)
{
    return krb5_pac_parse(kctx, p, len, out) == 0;
}

/* The same types in the same order, the same bytes for each type that
 * occurs once; a type that occurs more often refused by both. */
static void mit_compare_buffers(const struct gk5i_pac *pac, krb5_pac mp)
{
    krb5_ui_4 *types = NULL;
    size_t n = 0;

    if (krb5_pac_get_types(kctx, mp, &n, &types) != 0) {
        fuzz_fail("krb5_pac_get_types failed on a parsed PAC", 0, 0);
    }
    if (n != pac->count) {
        fuzz_fail("MIT counts other buffers", (uint32_t)n, pac->count);
    }
    for (uint32_t i = 0; i < pac->count; i++) {
        struct gk5i_view d, f;
        krb5_data md = {0};
        uint32_t t;

        gk5i_pac_buffer_at(pac, i, &t, &d);
        if (types[i] != t) {
            fuzz_fail("MIT gives another type", types[i], t);
        }
        int found = gk5i_pac_find(pac, t, &f);
        krb5_error_code ret = krb5_pac_get_buffer(kctx, mp, t, &md);
        if ((ret == 0) != (found == 1)) {
            fuzz_fail("MIT and gk5 disagree on a buffer's uniqueness",
                      (uint32_t)ret, (uint32_t)found);
        }
        if (ret == 0) {
            if (md.length != f.len ||
                (f.len != 0 && memcmp(md.data, f.p, f.len) != 0)) {
                fuzz_fail("MIT gives other bytes for a buffer", t, md.length);
            }
            krb5_free_data_contents(kctx, &md);
        }
    }
    free(types);
}

/* krb5_pac_verify's answer (0: verified). */
static krb5_error_code mit_verify(krb5_pac mp, int64_t authtime,
                                  const struct gk5i_krb_principal *cname)
{
    krb5_data comps[GK5I_KRB_MAX_COMPONENTS];
    krb5_principal_data pd;
    krb5_keyblock kb;

    memset(&pd, 0, sizeof(pd));
    pd.magic = KV5M_PRINCIPAL;
    pd.realm.magic = KV5M_DATA;
    pd.realm.data = (char *)"EXAMPLE.COM";
    pd.realm.length = 11;
    pd.data = comps;
    pd.length = (krb5_int32)cname->ncomp;
    pd.type = cname->name_type;
    for (uint32_t i = 0; i < cname->ncomp; i++) {
        comps[i].magic = KV5M_DATA;
        comps[i].data = (char *)(uintptr_t)cname->comp[i].p;
        comps[i].length = (unsigned)cname->comp[i].len;
    }
    memset(&kb, 0, sizeof(kb));
    kb.magic = KV5M_KEYBLOCK;
    kb.enctype = FUZZ_PAC_ENCTYPE;
    kb.length = sizeof(pac_key);
    kb.contents = pac_key;
    /* MIT's authtime is a 32-bit krb5_timestamp. */
    return krb5_pac_verify(kctx, mp, (krb5_timestamp)(uint32_t)authtime, &pd,
                           &kb, NULL);
}
#endif

/* ---- properties of a PAC ---- */

/* Every buffer inside the PAC, after the headers, 8-aligned; gk5i_pac_find
 * as a count of the types says. */
static void check_layout(const struct gk5i_pac *pac, const uint8_t *p,
                         size_t len)
{
    size_t header;

    if (pac->p != p || pac->len != len || pac->count > (len - 8) / 16) {
        fuzz_fail("parsed PAC: wrong view or headers past its end", pac->count,
                  (uint32_t)len);
    }
    /* MIT (1.20.1 on) parses 1 to 4096 buffers. */
    if (pac->count < 1 || pac->count > 4096) {
        fuzz_fail("parsed PAC of a count MIT refuses", pac->count, 0);
    }
    header = 8 + (size_t)pac->count * 16;
    for (uint32_t i = 0; i < pac->count; i++) {
        struct gk5i_view d, f;
        uint32_t t, same = 0;

        gk5i_pac_buffer_at(pac, i, &t, &d);
        if (d.p < p + header || d.p > p + len ||
            d.len > (size_t)(p + len - d.p) || (size_t)(d.p - p) % 8 != 0) {
            fuzz_fail("PAC buffer outside the PAC or misaligned", i, t);
        }
        for (uint32_t j = 0; j < pac->count; j++) {
            struct gk5i_view e;
            uint32_t u;

            gk5i_pac_buffer_at(pac, j, &u, &e);
            same += u == t;
        }
        int want = same == 1 ? 1 : -1;
        f.p = NULL;
        if (gk5i_pac_find(pac, t, &f) != want ||
            gk5i_pac_find(pac, t, NULL) != want ||
            (want == 1 && (f.p != d.p || f.len != d.len))) {
            fuzz_fail("gk5i_pac_find disagrees with the buffers", t, same);
        }
        /* A type next to it that no buffer has. */
        uint32_t other = t ^ 0x80000000u;
        same = 0;
        for (uint32_t j = 0; j < pac->count; j++) {
            struct gk5i_view e;
            uint32_t u;

            gk5i_pac_buffer_at(pac, j, &u, &e);
            same += u == other;
        }
        if (same == 0 && gk5i_pac_find(pac, other, &f) != 0) {
            fuzz_fail("gk5i_pac_find finds a type no buffer has", other, 0);
        }
    }
}

/* The server signature, checked from the definition: the one buffer 6,
 * the key's checksum type, its checksum (usage 17; what follows the
 * checksum in the buffer not compared) over the PAC with the signature
 * bytes of buffer 6 and of the first buffer 7 zeroed. */
static bool server_signature_holds(const struct gk5i_pac *pac)
{
    struct gk5i_view sig, priv = {NULL, 0};
    bool ok = false;

    for (uint32_t i = 0; i < pac->count && priv.p == NULL; i++) {
        uint32_t t;

        gk5i_pac_buffer_at(pac, i, &t, &sig);
        if (t == GK5I_PAC_PRIVSVR_CHECKSUM) {
            priv = sig;
        }
    }
    if (gk5i_pac_find(pac, GK5I_PAC_SERVER_CHECKSUM, &sig) != 1 ||
        sig.len < SIG_TYPE_BYTES + pac_et->cksum_bytes || priv.p == NULL ||
        priv.len < SIG_TYPE_BYTES ||
        load_le32(sig.p) != (uint32_t)pac_et->cksumtype) {
        return false;
    }
    uint8_t *copy = fuzz_dup(pac->p, pac->len);
    memset(copy + (sig.p - pac->p) + SIG_TYPE_BYTES, 0,
           sig.len - SIG_TYPE_BYTES);
    memset(copy + (priv.p - pac->p) + SIG_TYPE_BYTES, 0,
           priv.len - SIG_TYPE_BYTES);
    ok = gk5_c_verify_checksum(FUZZ_PAC_ENCTYPE, pac_key, sizeof(pac_key),
                               FUZZ_PAC_KEY_USAGE, copy, pac->len,
                               sig.p + SIG_TYPE_BYTES,
                               pac_et->cksum_bytes) == GK5_OK;
    free(copy);
    return ok;
}

/* Parse, layout, verify (and MIT's answers); gk5's verdict, or -1 when it
 * does not parse.  fail_alloc: the first allocation under verify fails. */
static int check_pac(const uint8_t *p, size_t len, int64_t authtime,
                     const struct gk5i_krb_principal *cname, bool fail_alloc,
                     bool other_cksum)
{
    struct gk5i_pac pac;
    bool parsed = gk5i_pac_parse(p, len, &pac);
    bool verified, hit = false;

#ifdef FUZZ_PAC_MIT
    krb5_pac mp = NULL;
    if (mit_parse(p, len, &mp) != parsed) {
        fuzz_fail(parsed ? "gk5 parses a PAC MIT refuses"
                         : "gk5 refuses a PAC MIT parses",
                  (uint32_t)len, 0);
    }
#else
    (void)other_cksum;
#endif
    if (!parsed) {
        return -1;
    }
    check_layout(&pac, p, len);
    if (fail_alloc) {
        fuzz_alloc_fail_arm(0);
    }
    verified = gk5i_pac_verify(&pac, pac_et, &pac_sk, authtime, cname);
    if (fail_alloc) {
        hit = fuzz_alloc_fail_hit();
        fuzz_alloc_fail_arm(-1);
        if (hit && verified) {
            fuzz_fail("a PAC verified though an allocation failed", 0, 0);
        }
    }
    if (verified && !server_signature_holds(&pac)) {
        fuzz_fail("a PAC verified whose server signature does not hold", 0, 0);
    }
#ifdef FUZZ_PAC_MIT
    mit_compare_buffers(&pac, mp);
    krb5_error_code mit_ret = mit_verify(mp, authtime, cname);
    bool mit_ok = mit_ret == 0;
    krb5_pac_free(kctx, mp);
    n_mit_verified += mit_ok;
    if (!hit && mit_ok != verified) {
        if (mit_ok && other_cksum) {
            n_other_cksum++;
        } else {
            /* minor: MIT's error code */
            fuzz_fail(verified ? "gk5 verifies a PAC MIT does not"
                               : "MIT verifies a PAC gk5 does not",
                      (uint32_t)len, (uint32_t)mit_ret);
        }
    }
#endif
    return hit ? -1 : verified;
}

/* ---- mode 1: a PAC built and signed here ---- */

/* Characters of the client's components: their UTF-8, their UTF-16 and
 * the letter MIT's unparser escapes them with (0: none). */
static const struct {
    uint8_t n8;
    char u8[4];
    uint8_t n16;
    uint16_t u16[2];
    char esc;
} alphabet[] = {
    {1, "a", 1, {'a'}, 0},
    {1, "Z", 1, {'Z'}, 0},
    {1, "0", 1, {'0'}, 0},
    {1, ".", 1, {'.'}, 0},
    {1, "/", 1, {'/'}, '/'},
    {1, "@", 1, {'@'}, '@'},
    {1, "\\", 1, {'\\'}, '\\'},
    {1, "\n", 1, {'\n'}, 'n'},
    {1, "\t", 1, {'\t'}, 't'},
    {1, "\b", 1, {'\b'}, 'b'},
    {1, {0}, 1, {0}, '0'},
    {2, "\xc3\xa9", 1, {0xe9}, 0},
    {3, "\xe2\x82\xac", 1, {0x20ac}, 0},
    {4, "\xf0\x9f\x98\x80", 2, {0xd83d, 0xde00}, 0},
    {3, "\xef\xbf\xbd", 1, {0xfffd}, 0},
};
#define N_ALPHA (sizeof(alphabet) / sizeof(alphabet[0]))

/* ctl bits. */
#define S_RAW_CLIENT 0x01u /* the client info's bytes from the input */
#define S_WRONG_TIME 0x02u /* authtime one second off */
#define S_NO_PRIVSVR 0x04u /* no KDC signature */
#define S_NUL_TAIL 0x08u   /* the name goes on after a NUL */
#define S_DUP_SERVER 0x10u /* two server signatures */
#define S_SIG_TYPE 0x20u   /* the server signature's type from the input */
#define S_SIG_LEN 0x40u    /* its length from the input */
#define S_SUBSECOND 0x80u  /* the FILETIME's ticks past the second */
/* ctl2 bits. */
#define S2_BIG 0x01u        /* a buffer that takes the PAC past 2048 bytes */
#define S2_FAIL_ALLOC 0x02u /* the first allocation under verify fails */
#define S2_WRONG_NAME 0x04u /* the name's first character changed */
#define S2_ESCAPES 0x08u    /* the name in MIT's parser's escapes */
#define S2_BAD_TAIL 0x10u   /* an unpaired surrogate after the name */
#define S2_TIME_WRAP 0x20u  /* authtime 2^32 later than the PAC's */

#define MAX_BUFS 8

static void mode_signed(struct fuzz_in *in)
{
    struct fuzz_pac_buf bufs[MAX_BUFS], order[MAX_BUFS];
    size_t offs[MAX_BUFS];
    uint8_t ci[10 + 2 * (MAX_COMPS * (MAX_COMP_CHARS * 2 + 1) + 4)];
    uint16_t name[MAX_COMPS * (MAX_COMP_CHARS * 2 + 1) + 4];
    struct principal pr;
    unsigned n = 0, nname = 0;
    /* What verify must answer: the signatures' side and the client's. */
    bool expect_sig = true, expect_client = true, sig_known = true;
    int32_t sig_type = pac_et->cksumtype;
    size_t sig_len = SIG_TYPE_BYTES + pac_et->cksum_bytes;
    size_t priv_len;
    bool other_cksum = false;

    unsigned ctl = fuzz_u8(in), ctl2 = fuzz_u8(in);
    int64_t authtime = fuzz_u32(in);

    /* The client: 0 to 3 components of the alphabet's characters, and its
     * name as MIT 1.20 compares it: joined by '/', nothing escaped. */
    memset(&pr, 0, sizeof(pr));
    pr.k.name_type = 1;
    pr.k.ncomp = fuzz_u8(in) % (MAX_COMPS + 1);
    for (uint32_t c = 0; c < pr.k.ncomp; c++) {
        unsigned chars = fuzz_u8(in) % (MAX_COMP_CHARS + 1);
        size_t len = 0;

        if (c != 0) {
            name[nname++] = '/';
        }
        for (unsigned k = 0; k < chars; k++) {
            unsigned a = fuzz_u8(in) % N_ALPHA;

            memcpy(pr.bytes[c] + len, alphabet[a].u8, alphabet[a].n8);
            len += alphabet[a].n8;
            if ((ctl2 & S2_ESCAPES) && alphabet[a].esc != 0) {
                /* MIT's parser's escapes: the name then says more than
                 * the client's, whatever NUL it holds (escaped too). */
                name[nname++] = '\\';
                name[nname++] = (uint16_t)alphabet[a].esc;
                expect_client = false;
            } else {
                for (unsigned u = 0; u < alphabet[a].n16; u++) {
                    name[nname++] = alphabet[a].u16[u];
                }
            }
        }
        pr.k.comp[c].p = pr.bytes[c];
        pr.k.comp[c].len = len;
    }
    if ((ctl2 & S2_WRONG_NAME) && nname > 0) {
        /* No joined name here starts with 'q'. */
        name[0] = 'q';
        expect_client = false;
    }
    if (ctl & S_NUL_TAIL) {
        /* Compared as C strings: what follows a NUL does not count... */
        name[nname++] = 0;
        name[nname++] = 'Z';
        name[nname++] = 'q';
    }
    if (ctl2 & S2_BAD_TAIL) {
        /* ...but an unpaired surrogate anywhere refuses the name. */
        name[nname++] = 0xd800;
        expect_client = false;
    }

    /* The client info. */
    int64_t filetime =
        (authtime + ((ctl & S_WRONG_TIME) ? 1 : 0) + FILETIME_1970) * TICKS;
    if (ctl & S_SUBSECOND) {
        filetime += fuzz_u32(in) % TICKS;
    }
    if (ctl & S_WRONG_TIME) {
        expect_client = false;
    }
    if (ctl2 & S2_TIME_WRAP) {
        /* MIT's 32-bit krb5_timestamp: equal all the same. */
        authtime += (int64_t)1 << 32;
    }
    if (ctl & S_RAW_CLIENT) {
        const uint8_t *raw;
        size_t rl = fuzz_bytes(in, &raw, fuzz_u8(in));

        bufs[n++] = (struct fuzz_pac_buf){GK5I_PAC_CLIENT_INFO, raw, rl};
    } else {
        size_t cl = fuzz_pac_client_info(filetime, name, nname, ci, sizeof(ci));

        if (cl == 0) {
            fuzz_fail("client info does not fit", (uint32_t)nname, 0);
        }
        bufs[n++] = (struct fuzz_pac_buf){GK5I_PAC_CLIENT_INFO, ci, cl};
    }

    /* Other buffers from the input. */
    unsigned extra = fuzz_u8(in) % 4;
    for (unsigned k = 0; k < extra; k++) {
        uint32_t type = fuzz_u32(in);
        const uint8_t *b;
        size_t bl = fuzz_bytes(in, &b, fuzz_u8(in));

        bufs[n++] = (struct fuzz_pac_buf){type, b, bl};
        if (type == GK5I_PAC_SERVER_CHECKSUM || type == GK5I_PAC_CLIENT_INFO) {
            expect_sig = false; /* one of those twice */
        }
        if (type == GK5I_PAC_PRIVSVR_CHECKSUM) {
            /* Which one is first (and zeroed) is the order's: MIT alone
             * judges. */
            sig_known = false;
        }
    }
    if (ctl2 & S2_BIG) {
        bufs[n++] = (struct fuzz_pac_buf){0x7fff, NULL, 2100};
    }

    /* The signatures. */
    if (ctl & S_SIG_TYPE) {
        sig_type = (int32_t)fuzz_u32(in);
    }
#ifdef FUZZ_PAC_MIT
    size_t mit_len = 0;
    bool by_mit = sig_type != pac_et->cksumtype &&
                  krb5_c_checksum_length(kctx, sig_type, &mit_len) == 0 &&
                  mit_len <= 64;
    if (by_mit) {
        sig_len = SIG_TYPE_BYTES + mit_len;
    }
#endif
    if (ctl & S_SIG_LEN) {
        sig_len = fuzz_u8(in) % 40;
    }
    if (sig_type != pac_et->cksumtype ||
        sig_len < SIG_TYPE_BYTES + pac_et->cksum_bytes) {
        expect_sig = false;
        other_cksum = sig_type != pac_et->cksumtype;
    }
    unsigned server_at = n;
    bufs[n++] = (struct fuzz_pac_buf){GK5I_PAC_SERVER_CHECKSUM, NULL, sig_len};
    if (ctl & S_DUP_SERVER) {
        bufs[n++] =
            (struct fuzz_pac_buf){GK5I_PAC_SERVER_CHECKSUM, NULL, sig_len};
        expect_sig = false;
    }
    unsigned priv_at = MAX_BUFS;
    priv_len = fuzz_u8(in) % 28;
    if (ctl & S_NO_PRIVSVR) {
        expect_sig = false;
    } else {
        priv_at = n;
        bufs[n++] =
            (struct fuzz_pac_buf){GK5I_PAC_PRIVSVR_CHECKSUM, NULL, priv_len};
        if (priv_len < SIG_TYPE_BYTES) {
            expect_sig = false;
        }
    }

    /* Rotated, laid out, the types written, signed. */
    unsigned rot = fuzz_u8(in) % n;
    unsigned server_pos = 0, priv_pos = MAX_BUFS;
    for (unsigned k = 0; k < n; k++) {
        order[k] = bufs[(k + rot) % n];
        if ((k + rot) % n == server_at) {
            server_pos = k;
        }
        if ((k + rot) % n == priv_at) {
            priv_pos = k;
        }
    }
    size_t cap = 8 + 16 * n;
    for (unsigned k = 0; k < n; k++) {
        cap += order[k].len + 8;
    }
    uint8_t *pac = fuzz_dup(NULL, cap);
    size_t len = fuzz_pac_build(order, n, pac, cap, offs);
    if (len == 0) {
        fuzz_fail("PAC does not fit", (uint32_t)cap, 0);
    }
    size_t sig_at = offs[server_pos];
    if (sig_len >= SIG_TYPE_BYTES) {
        store_le32(pac + sig_at, (uint32_t)sig_type);
    }
    if ((ctl & S_DUP_SERVER) && sig_len >= SIG_TYPE_BYTES) {
        store_le32(pac + offs[server_pos + 1 < n ? server_pos + 1 : 0],
                   (uint32_t)sig_type);
    }
    if (priv_pos != MAX_BUFS && priv_len >= SIG_TYPE_BYTES) {
        store_le32(pac + offs[priv_pos], (uint32_t)pac_et->cksumtype);
    }
    if (sig_len > SIG_TYPE_BYTES) {
#ifdef FUZZ_PAC_MIT
        if (by_mit) {
            krb5_keyblock kb = {KV5M_KEYBLOCK, FUZZ_PAC_ENCTYPE,
                                sizeof(pac_key), pac_key};
            krb5_data d = {KV5M_DATA, (unsigned)len, (char *)pac};
            krb5_checksum ck;

            if (krb5_c_make_checksum(kctx, sig_type, &kb, FUZZ_PAC_KEY_USAGE,
                                     &d, &ck) == 0) {
                size_t m = sig_len - SIG_TYPE_BYTES;
                memcpy(pac + sig_at + SIG_TYPE_BYTES, ck.contents,
                       ck.length < m ? ck.length : m);
                krb5_free_checksum_contents(kctx, &ck);
            }
        } else
#endif
        {
            fuzz_pac_sign(pac, len, sig_at + SIG_TYPE_BYTES,
                          sig_len - SIG_TYPE_BYTES);
        }
    }
    /* The KDC signature's bytes: zeroed before checking, so any do. */
    if (priv_pos != MAX_BUFS && priv_len > SIG_TYPE_BYTES) {
        memset(pac + offs[priv_pos] + SIG_TYPE_BYTES, 0xa5,
               priv_len - SIG_TYPE_BYTES);
    }

    /* Flips: a byte changed outside the KDC signature's bytes and what
     * follows the server's checksum (both zeroed) breaks it. */
    struct fuzz_flips fl;
    uint8_t *orig = fuzz_dup(pac, len);
    fuzz_take_flips(in, &fl);
    fuzz_apply_flips(&fl, pac, len);
    size_t sig_end = sig_at + SIG_TYPE_BYTES + pac_et->cksum_bytes;
    for (size_t i = 0; i < len; i++) {
        bool in_priv = priv_pos != MAX_BUFS && priv_len > SIG_TYPE_BYTES &&
                       i >= offs[priv_pos] + SIG_TYPE_BYTES &&
                       i < offs[priv_pos] + priv_len;
        bool after_sig = i >= sig_end && i < sig_at + sig_len;
        if (pac[i] != orig[i] && !in_priv && !after_sig) {
            expect_sig = false;
        }
    }
    free(orig);

    int got = check_pac(pac, len, authtime, &pr.k, (ctl2 & S2_FAIL_ALLOC) != 0,
                        other_cksum);
    if (got == 1 && sig_known && !expect_sig) {
        fuzz_fail("a PAC verifies whose signatures are wrong", ctl, ctl2);
    }
    if (got >= 0 && sig_known && !(ctl & S_RAW_CLIENT) &&
        got != (expect_sig && expect_client)) {
        fuzz_fail(got ? "a PAC verifies that names another client or time"
                      : "a PAC signed here does not verify",
                  ctl, ctl2);
    }
    free(pac);
}

/* ---- modes 2 and 3 ---- */

static void mode_authz(const uint8_t *p, size_t len)
{
    struct gk5i_authz_names names;
    struct gk5i_view ad = {p, len};

    if (gk5i_authz_names(ad, &names) != GK5_OK) {
        return;
    }
    if ((names.pac.p != NULL) != (names.npac != 0)) {
        fuzz_fail("a PAC found but none counted, or none found but counted",
                  names.npac, 0);
    }
    if (names.pac.p == NULL) {
        if (names.pac.len != 0) {
            fuzz_fail("no PAC, but a length", (uint32_t)names.pac.len, 0);
        }
        return;
    }
    if (names.pac.p < p || names.pac.p > p + len ||
        names.pac.len > (size_t)(p + len - names.pac.p)) {
        fuzz_fail("the PAC found lies outside the authorization data",
                  (uint32_t)(names.pac.p - p), (uint32_t)names.pac.len);
    }
    struct gk5i_pac pac;
    if (gk5i_pac_parse(names.pac.p, names.pac.len, &pac)) {
        check_layout(&pac, names.pac.p, names.pac.len);
    }
}

static void mode_attr(const uint8_t *p, size_t len)
{
    char text[GK5I_PAC_ATTR_MAX];
    uint32_t type, back;
    size_t n;

    if (gk5i_pac_attr_type((const char *)p, len, &type)) {
        n = gk5i_pac_attr_name(type, text);
        if (n >= sizeof(text) || strlen(text) != n) {
            fuzz_fail("attribute name cut or not terminated", type,
                      (uint32_t)n);
        }
        if (!gk5i_pac_attr_type(text, n, &back) || back != type) {
            fuzz_fail("an attribute's name does not name its type", type, back);
        }
    }
    if (len >= 4) {
        type = load_le32(p);
        n = gk5i_pac_attr_name(type, text);
        if (n >= sizeof(text) || strlen(text) != n ||
            strncmp(text, "urn:mspac:", 10) != 0) {
            fuzz_fail("attribute name cut or not terminated", type,
                      (uint32_t)n);
        }
        bool ok = gk5i_pac_attr_type(text, n, &back);
        if (type != 0 && (!ok || back != type)) {
            fuzz_fail("a buffer's attribute name does not name it", type, back);
        }
        if (type == 0 && ok) {
            fuzz_fail("\"urn:mspac:0\" names a buffer", 0, back);
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_alloc_fail_install();
    pac_et = gk5i_enctype_get(FUZZ_PAC_ENCTYPE);
    if (pac_et == NULL ||
        fuzz_seed_key(FUZZ_PAC_ENCTYPE, 0, pac_key, sizeof(pac_key)) !=
            sizeof(pac_key) ||
        gk5i_derive_subkeys(pac_et, pac_key, sizeof(pac_key), KU_PAC_SIGNATURE,
                            &pac_sk) != GK5_OK) {
        fuzz_fail("no aes256-sha1 seed key", 0, 0);
    }
    /* OpenSSL's algorithms fetched once, before any allocation fails:
     * a signed PAC (no client info) checked once. */
    struct fuzz_pac_buf sigs[2] = {{GK5I_PAC_SERVER_CHECKSUM, NULL, 16},
                                   {GK5I_PAC_PRIVSVR_CHECKSUM, NULL, 16}};
    uint8_t warm[8 + 2 * 16 + 2 * 16];
    size_t offs[2], wl = fuzz_pac_build(sigs, 2, warm, sizeof(warm), offs);
    struct gk5i_pac wp;
    struct principal fixed;
    store_le32(warm + offs[0], (uint32_t)pac_et->cksumtype);
    fuzz_pac_sign(warm, wl, offs[0] + SIG_TYPE_BYTES, 12);
    principal_fixed(&fixed);
    if (wl == 0 || !gk5i_pac_parse(warm, wl, &wp) ||
        !server_signature_holds(&wp) ||
        gk5i_pac_verify(&wp, pac_et, &pac_sk, FUZZ_PAC_AUTHTIME, &fixed.k)) {
        fuzz_fail("a PAC signed here: its signature, or no client info", 0, 0);
    }
#ifdef FUZZ_PAC_MIT
    setenv("KRB5_CONFIG", "/dev/null", 1);
    if (krb5_init_context(&kctx) != 0) {
        fuzz_fail("krb5_init_context failed", 0, 0);
    }
    if (getenv("FUZZ_DIFF_STATS") != NULL) {
        atexit(print_stats);
    }
#endif
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct principal fixed;
    struct fuzz_in in;

    if (size == 0) {
        return 0;
    }
    in.p = data + 1;
    in.n = size - 1;
    switch (data[0] % MODE_COUNT) {
    case MODE_RAW:
        principal_fixed(&fixed);
        (void)check_pac(in.p, in.n, FUZZ_PAC_AUTHTIME, &fixed.k, false, false);
        break;
    case MODE_SIGNED:
        mode_signed(&in);
        break;
    case MODE_AUTHZ:
        mode_authz(in.p, in.n);
        break;
    default:
        mode_attr(in.p, in.n);
        break;
    }
    return 0;
}
