/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the KDC client's reply processing (src/krb5/
 * kdc_reply.c) without a network, through its seam gk5i_kdc_reply: what
 * the AS and TGS exchanges call with the reply a KDC sent and what their
 * request said (nonce, client, service, time, keys).
 *
 * Byte 0 chooses: bits 0-2 the enctype (fuzz_enctypes), 0x08 a TGS-REP
 * (else an AS-REP), 0x10 "generated": the rest of the input is the
 * plaintext of the EncKDCRepPart, which the harness encrypts with the
 * known key (the client's, usage 3; the TGS subkey, usage 9, or with 0x40
 * the TGT session key, usage 8) inside a KDC-REP it builds with the names
 * the request asked for -- so mutations reach the nonce, name, enctype and
 * time checks behind the decryption.  0x20: the AS key is the one made for
 * pre-authentication (else the keytab's); 0x80: a KDC_ERR_PREAUTH_REQUIRED
 * may come back.  Otherwise the rest is the reply as a KDC sent it.
 *
 * What must hold: a refusal returns nothing (the owned credential empty)
 * and leaks nothing; a credential's every field is what the reply's
 * encrypted part said (opened here apart from the library), its enctypes
 * usable (never rc4 or DES), its times inside what was asked; a KRB-ERROR
 * leaves gk5_krb_last_error() words without control bytes, anything else
 * none.
 *
 * FUZZ_GEN_CORPUS=DIR in the environment writes the seed corpus (valid
 * replies of each kind, KRB-ERRORs) into DIR and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"

#define REALM "FUZZ.TEST"
#define NOW 1796411437
#define TILL (NOW + 36000)
#define SKEW 300
#define NONCE 0x1234567u
#define KVNO 2

#define KU_AS_REP 3
#define KU_TGS_REP_SESSKEY 8
#define KU_TGS_REP_SUBKEY 9

#define B0_TGS 0x08u
#define B0_GENERATE 0x10u
#define B0_PA_KEY 0x20u
#define B0_SESSKEY 0x40u
#define B0_PREAUTH_OK 0x80u

static struct gk5i_keytab *g_kt;
static struct gk5i_krb_principal g_client, g_krbtgt, g_service;
static struct gk5i_as_req g_as;

static struct gk5i_view sv(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

static void put(uint8_t *b, size_t *n, size_t cap, const void *p, size_t len)
{
    if (*n + len > cap) {
        fuzz_fail("keytab buffer", 0, 0);
    }
    memcpy(b + *n, p, len);
    *n += len;
}

static void put_be(uint8_t *b, size_t *n, size_t cap, uint32_t v, size_t w)
{
    uint8_t x[4];

    for (size_t i = 0; i < w; i++) {
        x[i] = (uint8_t)(v >> (8 * (w - 1 - i)));
    }
    put(b, n, cap, x, w);
}

static void put_str(uint8_t *b, size_t *n, size_t cap, const char *s)
{
    put_be(b, n, cap, (uint32_t)strlen(s), 2);
    put(b, n, cap, s, strlen(s));
}

/* A 0x502 keytab in memory: alice@FUZZ.TEST, a key of every enctype. */
static void make_keytab(void)
{
    uint8_t b[4096];
    size_t n = 0;

    put(b, &n, sizeof(b), "\x05\x02", 2);
    for (size_t i = 0; i < FUZZ_N_ENCTYPES; i++) {
        uint8_t key[64];
        size_t klen = fuzz_seed_key(fuzz_enctypes[i], 0, key, sizeof(key));
        size_t at = n;

        if (klen == 0) {
            continue;
        }
        put_be(b, &n, sizeof(b), 0, 4);
        put_be(b, &n, sizeof(b), 1, 2);
        put_str(b, &n, sizeof(b), REALM);
        put_str(b, &n, sizeof(b), "alice");
        put_be(b, &n, sizeof(b), 1, 4);
        put_be(b, &n, sizeof(b), NOW - 86400, 4);
        put_be(b, &n, sizeof(b), KVNO, 1);
        put_be(b, &n, sizeof(b), (uint32_t)fuzz_enctypes[i], 2);
        put_be(b, &n, sizeof(b), (uint32_t)klen, 2);
        put(b, &n, sizeof(b), key, klen);
        put_be(b, &n, sizeof(b), KVNO, 4);
        b[at] = (uint8_t)((n - at - 4) >> 24);
        b[at + 1] = (uint8_t)((n - at - 4) >> 16);
        b[at + 2] = (uint8_t)((n - at - 4) >> 8);
        b[at + 3] = (uint8_t)(n - at - 4);
    }
    if (gk5i_keytab_parse(b, n, &g_kt) != GK5_OK) {
        fuzz_fail("the harness's keytab does not parse", 0, 0);
    }
}

static void write_corpus(const char *dir);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *gen = getenv("FUZZ_GEN_CORPUS");

    (void)argc;
    (void)argv;
    fuzz_init();
    memset(&g_client, 0, sizeof(g_client));
    g_client.name_type = 1;
    g_client.ncomp = 1;
    g_client.comp[0] = sv("alice");
    memset(&g_krbtgt, 0, sizeof(g_krbtgt));
    g_krbtgt.name_type = 2;
    g_krbtgt.ncomp = 2;
    g_krbtgt.comp[0] = sv("krbtgt");
    g_krbtgt.comp[1] = sv(REALM);
    memset(&g_service, 0, sizeof(g_service));
    g_service.name_type = 3;
    g_service.ncomp = 2;
    g_service.comp[0] = sv("nfs");
    g_service.comp[1] = sv("host.fuzz.test");
    make_keytab();
    memset(&g_as, 0, sizeof(g_as));
    g_as.realm = sv(REALM);
    g_as.client = &g_client;
    g_as.keytab = g_kt;
    if (gen != NULL) {
        write_corpus(gen);
        exit(0);
    }
    return 0;
}

/* The request byte 0 describes, with its keys (of enctype et). */
struct req {
    int32_t et;
    uint8_t key[64];    /* AS: the client's; TGS: the TGT session key */
    uint8_t subkey[64]; /* TGS */
    size_t klen;
    struct gk5i_kdc_expect x;
};

static bool make_req(uint8_t b0, struct req *r)
{
    const struct gk5_enctype *e = NULL;

    memset(r, 0, sizeof(*r));
    r->et = fuzz_enctypes[(b0 & 7u) % FUZZ_N_ENCTYPES];
    r->klen = fuzz_seed_key(r->et, 0, r->key, sizeof(r->key));
    if (r->klen == 0 || gk5i_enctype_usable(r->et, &e) != GK5_OK) {
        return false;
    }
    (void)fuzz_seed_key(r->et, 1, r->subkey, sizeof(r->subkey));
    r->x.tgs = (b0 & B0_TGS) != 0;
    r->x.nonce = NONCE;
    r->x.crealm = sv(REALM);
    r->x.cname = &g_client;
    r->x.srealm = sv(REALM);
    r->x.sname = r->x.tgs ? &g_service : &g_krbtgt;
    r->x.now = NOW;
    r->x.till = TILL;
    r->x.skew = SKEW;
    if (r->x.tgs) {
        r->x.ses_etype = r->et;
        r->x.ses_key = r->key;
        r->x.subkey = r->subkey;
    } else {
        r->x.as = &g_as;
        if ((b0 & B0_PA_KEY) != 0) {
            r->x.pa_etype = r->et;
            r->x.pa_key = r->key;
        }
        r->x.preauth_ok = (b0 & B0_PREAUTH_OK) != 0;
    }
    return true;
}

static uint32_t reply_usage(uint8_t b0)
{
    if ((b0 & B0_TGS) == 0) {
        return KU_AS_REP;
    }
    return (b0 & B0_SESSKEY) != 0 ? KU_TGS_REP_SESSKEY : KU_TGS_REP_SUBKEY;
}

/* RFC 3961 encryption with a fixed (zero) confounder: the same input
 * gives the same reply in every run.  *out malloc'd. */
static void encrypt_fixed(int32_t et, const uint8_t *key, size_t klen,
                          uint32_t usage, const uint8_t *plain, size_t plen,
                          uint8_t **out, size_t *out_len)
{
    const struct gk5_enctype *e = NULL;
    uint8_t conf[64] = {0};

    if (gk5i_enctype_usable(et, &e) != GK5_OK ||
        gk5_c_encrypt_length(et, plen, out_len) != GK5_OK) {
        fuzz_fail("encrypt_fixed: enctype", 0, 0);
    }
    *out = fuzz_dup(NULL, *out_len);
    if (gk5_c_encrypt_confounder(et, key, klen, usage, conf, e->conf_bytes,
                                 plain, plen, *out, out_len) != GK5_OK) {
        fuzz_fail("encrypt_fixed", 0, 0);
    }
}

/* A KDC-REP of the request's type and names around the encrypted part
 * (plain under the key usage says); *out malloc'd. */
static void build_reply(const struct req *r, uint8_t b0, const uint8_t *plain,
                        size_t plen, uint8_t **out, size_t *out_len)
{
    static const uint8_t tkt_cipher[48] = {0x5a};
    struct gk5i_krb_kdc_rep rep;
    uint8_t *enc = NULL;
    size_t enc_len = 0;
    uint32_t usage = reply_usage(b0);
    const uint8_t *key = usage == KU_TGS_REP_SUBKEY ? r->subkey : r->key;

    encrypt_fixed(r->et, key, r->klen, usage, plain, plen, &enc, &enc_len);
    memset(&rep, 0, sizeof(rep));
    rep.msg_type = r->x.tgs ? GK5I_KRB_TAG_TGS_REP : GK5I_KRB_TAG_AS_REP;
    rep.crealm = r->x.crealm;
    rep.cname = *r->x.cname;
    rep.ticket.realm = r->x.srealm;
    rep.ticket.sname = *r->x.sname;
    rep.ticket.enc_part.etype = r->et;
    rep.ticket.enc_part.has_kvno = true;
    rep.ticket.enc_part.kvno = KVNO;
    rep.ticket.enc_part.cipher.p = tkt_cipher;
    rep.ticket.enc_part.cipher.len = sizeof(tkt_cipher);
    rep.enc_part.etype = r->et;
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = enc_len;
    if (gk5i_encode_kdc_rep(&rep, NULL, 0, out_len) != GK5_OK) {
        fuzz_fail("build_reply: length", 0, 0);
    }
    *out = fuzz_dup(NULL, *out_len);
    if (gk5i_encode_kdc_rep(&rep, *out, *out_len, out_len) != GK5_OK) {
        fuzz_fail("build_reply", 0, 0);
    }
    free(enc);
}

/* KerberosTime into the credential cache's 32 bits. */
static uint32_t clamp(gk5i_krb_time t)
{
    if (t < 0) {
        return 0;
    }
    return t > (gk5i_krb_time)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static bool is_weak(int32_t e)
{
    /* RFC 8429 (rc4) and RFC 6649 (single DES): never in a credential. */
    return e == 1 || e == 2 || e == 3 || e == 23 || e == 24;
}

static bool principal_same(const struct gk5i_krb_principal *a,
                           const struct gk5i_krb_principal *b)
{
    if (a->ncomp != b->ncomp) {
        return false;
    }
    for (uint32_t i = 0; i < a->ncomp; i++) {
        if (!gk5i_view_equal(a->comp[i], b->comp[i])) {
            return false;
        }
    }
    return true;
}

/* The reply opened here, apart from the library: the encrypted part
 * decrypted with whichever of the request's keys opens it. */
static void check_cred(const struct req *r, const uint8_t *reply, size_t len,
                       const struct gk5i_owned_cred *oc)
{
    const struct gk5i_cc_cred *c = &oc->cred;
    struct gk5i_krb_kdc_rep rep;
    struct gk5i_krb_enc_kdc_rep_part part;
    const struct gk5_enctype *ket = NULL, *tet = NULL;
    uint8_t *plain;
    size_t plen;
    int32_t type = r->x.tgs ? GK5I_KRB_TAG_TGS_REP : GK5I_KRB_TAG_AS_REP;
    bool opened = false;
    gk5i_krb_time start;
    uint8_t as_key[64];
    size_t as_klen;
    int32_t rep_et;

    if (oc->buf == NULL || c->ticket.len == 0) {
        fuzz_fail("kdc_reply: a success with an empty credential", 0, 0);
    }
    if (gk5i_decode_kdc_rep(reply, len, type, &rep) != GK5_OK) {
        fuzz_fail("kdc_reply: a success on a reply that does not decode", 0, 0);
    }
    /* An AS-REP may come in any enctype the client has a key of (the
     * keytab holds seed key 0 of each, as the pre-authentication key is);
     * a TGS-REP only in the session key's. */
    rep_et = gk5i_enctype_canonical(rep.enc_part.etype);
    if (r->x.tgs && rep_et != r->et) {
        fuzz_fail("kdc_reply: a TGS-REP in another enctype accepted", 0, 0);
    }
    as_klen = fuzz_seed_key(rep_et, 0, as_key, sizeof(as_key));
    plain = fuzz_dup(NULL, rep.enc_part.cipher.len);
    for (int k = 0; k < 2 && !opened; k++) {
        const uint8_t *key = as_key;
        size_t klen = as_klen;
        uint32_t usage = KU_AS_REP;

        if (r->x.tgs) {
            key = k == 0 ? r->subkey : r->key;
            klen = r->klen;
            usage = k == 0 ? KU_TGS_REP_SUBKEY : KU_TGS_REP_SESSKEY;
        }
        plen = rep.enc_part.cipher.len;
        opened = klen != 0 &&
                 gk5_c_decrypt(rep_et, key, klen, usage, rep.enc_part.cipher.p,
                               rep.enc_part.cipher.len, plain, &plen) == GK5_OK;
    }
    if (!opened) {
        fuzz_fail("kdc_reply: a success on a part the keys do not open", 0, 0);
    }
    if (fuzz_des3(rep_et) && plen >= 2) {
        /* DES3's zero padding: the DER length says where it ends. */
        size_t hdr = 2, vlen = plain[1];

        if ((plain[1] & 0x80) != 0) {
            hdr = 2 + (plain[1] & 0x7fu);
            vlen = 0;
            for (size_t i = 2; i < hdr && i < plen; i++) {
                vlen = (vlen << 8) | plain[i];
            }
        }
        if (hdr + vlen <= plen) {
            plen = hdr + vlen;
        }
    }
    if (gk5i_decode_enc_kdc_rep_part(plain, plen, &part) != GK5_OK) {
        fuzz_fail("kdc_reply: a success on a part that does not decode", 0, 0);
    }
    if (gk5i_enctype_usable(c->keytype, &ket) != GK5_OK ||
        gk5i_enctype_usable(rep.ticket.enc_part.etype, &tet) != GK5_OK ||
        is_weak(c->keytype) || is_weak(part.key.keytype) ||
        is_weak(rep.ticket.enc_part.etype) || ket->num != c->keytype) {
        fuzz_fail("kdc_reply: a credential of an enctype not usable", 0, 0);
    }
    if (gk5i_enctype_canonical(part.key.keytype) != c->keytype ||
        c->key_len != part.key.value.len || c->key_len != ket->key_bytes ||
        memcmp(c->key, part.key.value.p, c->key_len) != 0) {
        fuzz_fail("kdc_reply: the session key is not the reply's", 0, 0);
    }
    if (part.nonce != NONCE) {
        fuzz_fail("kdc_reply: a success with another nonce", 0, 0);
    }
    start = part.has_starttime ? part.starttime : part.authtime;
    if (c->authtime != clamp(part.authtime) || c->starttime != clamp(start) ||
        c->endtime != clamp(part.endtime) ||
        c->renew_till != (part.has_renew_till ? clamp(part.renew_till) : 0u) ||
        c->flags != part.flags) {
        fuzz_fail("kdc_reply: the times or flags are not the reply's", 0, 0);
    }
    if (part.endtime <= NOW || part.endtime > TILL + SKEW ||
        part.endtime <= start ||
        (part.has_renew_till && part.renew_till < part.endtime)) {
        fuzz_fail("kdc_reply: a success with times outside the request", 0, 0);
    }
    if (!gk5i_view_equal(c->server_realm, part.srealm) ||
        !principal_same(&c->server, &part.sname) ||
        !gk5i_view_equal(c->server_realm, r->x.srealm) ||
        !principal_same(&c->server, r->x.sname) ||
        !gk5i_view_equal(c->client_realm, r->x.crealm) ||
        !principal_same(&c->client, r->x.cname)) {
        fuzz_fail("kdc_reply: the names are not the reply's and request's", 0,
                  0);
    }
    if (!gk5i_view_equal(c->ticket, rep.ticket_der)) {
        fuzz_fail("kdc_reply: the ticket is not the reply's", 0, 0);
    }
    free(plain);
}

static void check_words(bool krb_error)
{
    const char *w = gk5_krb_last_error();

    if (w == NULL) {
        if (krb_error) {
            fuzz_fail("kdc_reply: a KRB-ERROR without words", 0, 0);
        }
        return;
    }
    if (!krb_error) {
        fuzz_fail("kdc_reply: words without a KRB-ERROR", 0, 0);
    }
    for (size_t i = 0; i < 512; i++) {
        if (w[i] == '\0') {
            return;
        }
        if ((uint8_t)w[i] < 0x20 || (uint8_t)w[i] >= 0x7f) {
            fuzz_fail("kdc_reply: a control byte in gk5_krb_last_error", 0, 0);
        }
    }
    fuzz_fail("kdc_reply: gk5_krb_last_error not terminated", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct req r;
    struct gk5i_owned_cred oc;
    struct gk5i_krb_error kerr, kerr2;
    uint8_t *reply;
    size_t len;
    bool preauth = true, is_error;
    uint8_t b0;
    uint32_t err;

    fuzz_trace_for(size);
    if (size < 1 || !make_req(data[0], &r)) {
        return 0;
    }
    b0 = data[0];
    if ((b0 & B0_GENERATE) != 0) {
        build_reply(&r, b0, data + 1, size - 1, &reply, &len);
    } else {
        reply = fuzz_dup(data + 1, size - 1);
        len = size - 1;
    }
    gk5i_krb_error_clear();
    memset(&oc, 0xa5, sizeof(oc));
    err = gk5i_kdc_reply(&r.x, reply, len, &kerr, &preauth, &oc);
    is_error = len > 0 && reply[0] == 0x7e &&
               gk5i_decode_krb_error(reply, len, &kerr2) == GK5_OK;
    if (err != GK5_OK) {
        static const struct gk5i_owned_cred empty;

        if (memcmp(&oc, &empty, sizeof(oc)) != 0 || preauth) {
            fuzz_fail("kdc_reply: a refusal left something", err, 0);
        }
        check_words(is_error);
    } else if (preauth) {
        if (!is_error || kerr2.error_code != 25 || !r.x.preauth_ok ||
            oc.buf != NULL || kerr.error_code != 25) {
            fuzz_fail("kdc_reply: a pre-authentication request out of turn", 0,
                      0);
        }
        check_words(false);
    } else {
        if (is_error) {
            fuzz_fail("kdc_reply: a KRB-ERROR accepted", 0, 0);
        }
        check_words(false);
        check_cred(&r, reply, len, &oc);
    }
    gk5i_owned_cred_clear(&oc);
    free(reply);
    return 0;
}

/* ---- the seed corpus ---- */

static void write_file(const char *dir, const char *name, uint8_t b0,
                       const uint8_t *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(&b0, 1, 1, f) != 1 ||
        (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fuzz_fail("cannot write a seed", 0, 0);
    }
}

/* A valid EncKDCRepPart for r (*out malloc'd). */
static void good_part(const struct req *r, bool renew, uint8_t **out,
                      size_t *len)
{
    struct gk5i_krb_enc_kdc_rep_part p;
    uint8_t key[64];
    size_t klen = fuzz_seed_key(r->et, 2, key, sizeof(key));

    memset(&p, 0, sizeof(p));
    p.tag = r->x.tgs ? 26 : 25;
    p.key.keytype = r->et;
    p.key.value.p = key;
    p.key.value.len = klen;
    p.nonce = NONCE;
    p.flags = GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT;
    p.authtime = NOW - 10;
    p.has_starttime = renew;
    p.starttime = NOW - 5;
    p.endtime = NOW + 3600;
    p.has_renew_till = renew;
    p.renew_till = NOW + 86400;
    p.srealm = r->x.srealm;
    p.sname = *r->x.sname;
    if (gk5i_encode_enc_kdc_rep_part(&p, NULL, 0, len) != GK5_OK) {
        fuzz_fail("good_part: length", 0, 0);
    }
    *out = fuzz_dup(NULL, *len);
    if (gk5i_encode_enc_kdc_rep_part(&p, *out, *len, len) != GK5_OK) {
        fuzz_fail("good_part", 0, 0);
    }
}

static void write_error(const char *dir, const char *name, uint8_t b0,
                        int32_t code, const char *text)
{
    struct gk5i_krb_error e;
    uint8_t buf[1024];
    size_t n = 0;

    memset(&e, 0, sizeof(e));
    e.stime = NOW + 1000;
    e.error_code = code;
    e.realm = sv(REALM);
    e.sname = g_krbtgt;
    e.has_e_text = text != NULL;
    e.e_text = text != NULL ? sv(text) : sv("");
    if (gk5i_encode_krb_error(&e, buf, sizeof(buf), &n) != GK5_OK) {
        fuzz_fail("write_error", 0, 0);
    }
    write_file(dir, name, b0, buf, n);
}

static void write_corpus(const char *dir)
{
    static const uint8_t modes[] = {
        0,                   /* AS, keytab key */
        B0_PA_KEY,           /* AS, pre-authentication key */
        B0_TGS,              /* TGS, subkey */
        B0_TGS | B0_SESSKEY, /* TGS, session key */
    };

    for (size_t i = 0; i < FUZZ_N_ENCTYPES; i++) {
        for (size_t m = 0; m < sizeof(modes); m++) {
            uint8_t b0 = (uint8_t)(i | modes[m]);
            struct req r;
            uint8_t *part, *reply;
            size_t plen, rlen;
            char name[64];
            struct gk5i_owned_cred oc;
            struct gk5i_krb_error kerr;
            bool pa = false;

            if (!make_req(b0, &r)) {
                continue;
            }
            good_part(&r, m % 2 == 0, &part, &plen);
            build_reply(&r, b0, part, plen, &reply, &rlen);
            if (gk5i_kdc_reply(&r.x, reply, rlen, &kerr, &pa, &oc) != GK5_OK ||
                pa) {
                fuzz_fail("a seed reply is refused", 0, 0);
            }
            gk5i_owned_cred_clear(&oc);
            snprintf(name, sizeof(name), "gen-%d-%02x", (int)r.et, b0);
            write_file(dir, name, (uint8_t)(b0 | B0_GENERATE), part, plen);
            snprintf(name, sizeof(name), "raw-%d-%02x", (int)r.et, b0);
            write_file(dir, name, b0, reply, rlen);
            free(part);
            free(reply);
        }
    }
    write_error(dir, "err-preauth", B0_PREAUTH_OK, 25, NULL);
    write_error(dir, "err-preauth-twice", 0, 25, "again");
    write_error(dir, "err-skew", B0_TGS, 37, "clock skew too great\n\x1b[0m");
    write_error(dir, "err-unknown", 0, 6, "Client not found\0");
    write_error(dir, "err-code", B0_TGS, 99999, NULL);
}
