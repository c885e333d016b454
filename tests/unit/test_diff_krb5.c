/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 decoders against MIT's, as a unit test: replays the fuzz
 * target tests/fuzz/fuzz_diff_krb5.c (its checks, its classes of allowed
 * disagreement) over its committed seed corpus, given as the one argument,
 * so that every build with MIT runs the differential on real MIT messages
 * and gk5's own encodings.  Any broken property aborts (fuzz_fail).
 *
 * Then the KDC exchange, both ways: gk5's AS-REQ and TGS-REQ read by
 * MIT's decode_krb5_as_req / _tgs_req (what MIT's KDC runs), every field
 * compared; MIT's AS-REP, TGS-REP, EncKDCRepPart, PA-DATA sequence and
 * ETYPE-INFO2 (encode_krb5_*) read by gk5, every field compared; MIT's
 * PA-ENC-TS-ENC and gk5's the same bytes.  MIT exports these entry points
 * without prototypes, and two of the structs are MIT-internal (k5-int.h):
 * they are declared here as MIT lays them out.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <krb5.h>

#include "../fuzz/fuzz_common.h"
#include "der/rfc4120.h"

/* k5-int.h's layouts. */
typedef struct {
    krb5_magic magic;
    krb5_enctype etype;
    unsigned int length; /* UINT_MAX: no salt */
    krb5_octet *salt;
    krb5_data s2kparams;
} mit_etype_info_entry;
typedef struct {
    krb5_timestamp patimestamp;
    krb5_int32 pausec;
} mit_pa_enc_ts;

krb5_error_code decode_krb5_as_req(const krb5_data *, krb5_kdc_req **);
krb5_error_code decode_krb5_tgs_req(const krb5_data *, krb5_kdc_req **);
krb5_error_code encode_krb5_as_rep(const krb5_kdc_rep *, krb5_data **);
krb5_error_code encode_krb5_tgs_rep(const krb5_kdc_rep *, krb5_data **);
krb5_error_code encode_krb5_enc_kdc_rep_part(const krb5_enc_kdc_rep_part *,
                                             krb5_data **);
krb5_error_code encode_krb5_padata_sequence(krb5_pa_data *const *,
                                            krb5_data **);
krb5_error_code encode_krb5_etype_info2(mit_etype_info_entry *const *,
                                        krb5_data **);
krb5_error_code encode_krb5_pa_enc_ts(const mit_pa_enc_ts *, krb5_data **);
void krb5_free_kdc_req(krb5_context, krb5_kdc_req *);

#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "test_diff_krb5: %s:%d: %s\n", __FILE__, __LINE__, \
                    #c);                                                       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define MAX_SEED (300u * 1024u)

static krb5_context kctx;

static struct gk5i_view V(const char *s) {
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

static bool
data_is(const krb5_data *d, struct gk5i_view v)
{
    return d->length == v.len &&
           (v.len == 0 || memcmp(d->data, v.p, v.len) == 0);
}

static bool princ_is(krb5_const_principal p, struct gk5i_view realm,
                     const struct gk5i_krb_principal *g)
{
    if (p == NULL || !data_is(&p->realm, realm) || p->type != g->name_type ||
        p->length != (krb5_int32)g->ncomp) {
        return false;
    }
    for (uint32_t i = 0; i < g->ncomp; i++) {
        if (!data_is(&p->data[i], g->comp[i])) {
            return false;
        }
    }
    return true;
}

static void set_principal(struct gk5i_krb_principal *p, int32_t type,
                          const char *a, const char *b)
{
    memset(p, 0, sizeof(*p));
    p->name_type = type;
    p->comp[p->ncomp++] = V(a);
    if (b != NULL) {
        p->comp[p->ncomp++] = V(b);
    }
}

/* gk5's AS-REQ and TGS-REQ, read by MIT's KDC decoders. */
static void check_requests(void)
{
    static const uint8_t cipher[] = {1, 2, 3, 4, 5};
    struct gk5i_krb_kdc_req q;
    struct gk5i_krb_kdc_req_body *b = &q.body;
    uint8_t buf[1024];
    size_t n;

    for (int tgs = 0; tgs <= 1; tgs++) {
        krb5_kdc_req *m = NULL;
        krb5_data d;

        memset(&q, 0, sizeof(q));
        q.msg_type = tgs ? GK5I_KRB_TAG_TGS_REQ : GK5I_KRB_TAG_AS_REQ;
        q.n_padata = 2;
        q.padata[0].type = tgs ? GK5I_PA_TGS_REQ : GK5I_PA_ENC_TIMESTAMP;
        q.padata[0].value.p = cipher;
        q.padata[0].value.len = sizeof(cipher);
        q.padata[1].type = 149;
        b->kdc_options = GK5I_KDC_OPT_FORWARDABLE | GK5I_KDC_OPT_RENEWABLE_OK |
                         GK5I_KDC_OPT_CANONICALIZE;
        b->has_cname = !tgs;
        set_principal(&b->cname, 1, "alice", NULL);
        b->realm = V("EXAMPLE.ORG");
        b->has_sname = true;
        set_principal(&b->sname, 2, tgs ? "nfs" : "krbtgt",
                      tgs ? "server.example.org" : "EXAMPLE.ORG");
        b->has_from = tgs;
        b->from = 1700000000;
        b->till = 1700036000;
        b->has_rtime = !tgs;
        b->rtime = 1700600000;
        b->nonce = 0x7ffffffe;
        b->n_etypes = 3;
        b->etypes[0] = 20;
        b->etypes[1] = 18;
        b->etypes[2] = -128;
        CHECK(gk5i_encode_kdc_req(&q, buf, sizeof(buf), &n) == GK5_OK);
        d.magic = KV5M_DATA;
        d.length = (unsigned int)n;
        d.data = (char *)buf;
        CHECK((tgs ? decode_krb5_tgs_req(&d, &m)
                   : decode_krb5_as_req(&d, &m)) == 0);
        CHECK(m->msg_type == (krb5_msgtype)q.msg_type);
        CHECK(m->padata != NULL && m->padata[0] != NULL &&
              m->padata[1] != NULL && m->padata[2] == NULL);
        CHECK(m->padata[0]->pa_type == q.padata[0].type &&
              m->padata[0]->length == sizeof(cipher) &&
              memcmp(m->padata[0]->contents, cipher, sizeof(cipher)) == 0);
        CHECK(m->padata[1]->pa_type == 149 && m->padata[1]->length == 0);
        CHECK((uint32_t)m->kdc_options == b->kdc_options);
        if (tgs) {
            CHECK(m->client == NULL);
        } else {
            CHECK(princ_is(m->client, b->realm, &b->cname));
        }
        CHECK(princ_is(m->server, b->realm, &b->sname));
        CHECK(m->from == (tgs ? 1700000000 : 0));
        CHECK(m->till == 1700036000);
        CHECK(m->rtime == (tgs ? 0 : 1700600000));
        CHECK((uint32_t)m->nonce == b->nonce);
        CHECK(m->nktypes == 3 && m->ktype[0] == 20 && m->ktype[1] == 18 &&
              m->ktype[2] == -128);
        CHECK(m->addresses == NULL && m->second_ticket == NULL &&
              m->authorization_data.ciphertext.length == 0);
        krb5_free_kdc_req(kctx, m);
    }
}

/* MIT's AS-REP, TGS-REP and EncKDCRepPart, read by gk5. */
static void check_replies(void)
{
    static uint8_t key[16] = {9, 8, 7}, ciph[] = {0xca, 0xfe}, tciph[] = {7};
    static uint8_t pa1[] = {1, 2}, addr[4] = {10, 0, 0, 1};
    krb5_principal client, server;
    krb5_ticket ticket;
    krb5_pa_data p1 = {KV5M_PA_DATA, 19, sizeof(pa1), pa1};
    krb5_pa_data p2 = {KV5M_PA_DATA, 2, 0, NULL};
    krb5_pa_data *pa[] = {&p1, &p2, NULL};
    krb5_keyblock kb;
    krb5_last_req_entry lr1 = {KV5M_LAST_REQ_ENTRY, 0, 1700000000};
    krb5_last_req_entry lr2 = {KV5M_LAST_REQ_ENTRY, -6, 1690000000};
    krb5_last_req_entry *lr[] = {&lr1, &lr2, NULL};
    krb5_address a1 = {KV5M_ADDRESS, ADDRTYPE_INET, sizeof(addr), addr};
    krb5_address *addrs[] = {&a1, NULL};
    krb5_enc_kdc_rep_part part;
    krb5_kdc_rep rep;
    krb5_data *out = NULL;

    CHECK(krb5_build_principal(kctx, &client, 11, "EXAMPLE.ORG", "alice",
                               NULL) == 0);
    CHECK(krb5_build_principal(kctx, &server, 11, "EXAMPLE.ORG", "krbtgt",
                               "EXAMPLE.ORG", NULL) == 0);
    client->type = KRB5_NT_PRINCIPAL;
    server->type = KRB5_NT_SRV_INST;
    memset(&ticket, 0, sizeof(ticket));
    ticket.server = server;
    ticket.enc_part.enctype = 18;
    ticket.enc_part.kvno = 3;
    ticket.enc_part.ciphertext.length = sizeof(tciph);
    ticket.enc_part.ciphertext.data = (char *)tciph;
    for (int tgs = 0; tgs <= 1; tgs++) {
        int32_t want = tgs ? GK5I_KRB_TAG_TGS_REP : GK5I_KRB_TAG_AS_REP;
        int32_t other = tgs ? GK5I_KRB_TAG_AS_REP : GK5I_KRB_TAG_TGS_REP;
        struct gk5i_krb_kdc_rep g;
        struct gk5i_view v;
        size_t pos = 0;
        int32_t type;
        bool more;

        memset(&rep, 0, sizeof(rep));
        rep.msg_type = tgs ? KRB5_TGS_REP : KRB5_AS_REP;
        rep.padata = tgs ? NULL : pa;
        rep.client = client;
        rep.ticket = &ticket;
        rep.enc_part.enctype = 17;
        rep.enc_part.ciphertext.length = sizeof(ciph);
        rep.enc_part.ciphertext.data = (char *)ciph;
        CHECK((tgs ? encode_krb5_tgs_rep(&rep, &out)
                   : encode_krb5_as_rep(&rep, &out)) == 0);
        CHECK(gk5i_decode_kdc_rep((const uint8_t *)out->data, out->length,
                                  other, &g) == GK5_ERR_KRB_MSG_TYPE);
        CHECK(gk5i_decode_kdc_rep((const uint8_t *)out->data, out->length, want,
                                  &g) == GK5_OK);
        CHECK(g.msg_type == want);
        CHECK(princ_is(client, g.crealm, &g.cname));
        CHECK(princ_is(server, g.ticket.realm, &g.ticket.sname));
        CHECK(g.ticket.enc_part.etype == 18 && g.ticket.enc_part.has_kvno &&
              g.ticket.enc_part.kvno == 3 &&
              g.ticket.enc_part.cipher.len == 1 &&
              g.ticket.enc_part.cipher.p[0] == 7);
        CHECK(g.enc_part.etype == 17 && !g.enc_part.has_kvno &&
              g.enc_part.cipher.len == sizeof(ciph) &&
              memcmp(g.enc_part.cipher.p, ciph, sizeof(ciph)) == 0);
        if (tgs) {
            CHECK(g.padata.len == 0);
        } else {
            CHECK(gk5i_padata_next(g.padata, &pos, &more, &type, &v) ==
                      GK5_OK &&
                  more && type == 19 && v.len == 2 && memcmp(v.p, pa1, 2) == 0);
            CHECK(gk5i_padata_next(g.padata, &pos, &more, &type, &v) ==
                      GK5_OK &&
                  more && type == 2 && v.len == 0);
            CHECK(gk5i_padata_next(g.padata, &pos, &more, &type, &v) ==
                      GK5_OK &&
                  !more);
        }
        krb5_free_data(kctx, out);
        out = NULL;
    }

    memset(&part, 0, sizeof(part));
    kb.magic = KV5M_KEYBLOCK;
    kb.enctype = 17;
    kb.length = sizeof(key);
    kb.contents = key;
    part.session = &kb;
    part.last_req = lr;
    part.nonce = -2; /* what MIT's KDC echoes for a nonce of 2^32 - 2 */
    part.key_exp = 1800000000;
    part.flags = (krb5_flags)(GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_RENEWABLE);
    part.times.authtime = 1700000000;
    part.times.starttime = 1700000001;
    part.times.endtime = 1700036000;
    part.times.renew_till = 1700600000;
    part.server = server;
    part.caddrs = addrs;
    part.enc_padata = pa;
    for (int tgs = 0; tgs <= 1; tgs++) {
        struct gk5i_krb_enc_kdc_rep_part g;
        struct gk5i_view v;
        size_t pos = 0;
        int32_t type;
        bool more;

        part.msg_type = tgs ? KRB5_TGS_REP : KRB5_AS_REP;
        CHECK(encode_krb5_enc_kdc_rep_part(&part, &out) == 0);
        CHECK(gk5i_decode_enc_kdc_rep_part((const uint8_t *)out->data,
                                           out->length, &g) == GK5_OK);
        CHECK(g.tag == GK5I_KRB_TAG_ENC_AS_REP_PART ||
              g.tag == GK5I_KRB_TAG_ENC_TGS_REP_PART);
        CHECK(g.key.keytype == 17 && g.key.value.len == sizeof(key) &&
              memcmp(g.key.value.p, key, sizeof(key)) == 0);
        CHECK(g.nonce == 0xfffffffeu);
        CHECK(g.has_key_expiration && g.key_expiration == 1800000000);
        CHECK(g.flags == (GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_RENEWABLE));
        CHECK(g.authtime == 1700000000 && g.has_starttime &&
              g.starttime == 1700000001 && g.endtime == 1700036000 &&
              g.has_renew_till && g.renew_till == 1700600000);
        CHECK(princ_is(server, g.srealm, &g.sname));
        CHECK(gk5i_authz_next(g.caddr, &pos, &more, &type, &v) == GK5_OK &&
              more && type == ADDRTYPE_INET && v.len == 4 &&
              memcmp(v.p, addr, 4) == 0);
        pos = 0;
        CHECK(gk5i_padata_next(g.encrypted_pa_data, &pos, &more, &type, &v) ==
                  GK5_OK &&
              more && type == 19);
        /* LastReq: the entries' types and times, as their bytes. */
        CHECK(g.last_req.len > 2 && g.last_req.p[0] == 0x30);
        CHECK(memmem(g.last_req.p, g.last_req.len, "20231114221320Z", 15) !=
              NULL);
        CHECK(memmem(g.last_req.p, g.last_req.len, "\xa0\x03\x02\x01\xfa", 5) !=
              NULL);
        krb5_free_data(kctx, out);
        out = NULL;
    }
    krb5_free_principal(kctx, client);
    krb5_free_principal(kctx, server);
}

/* MIT's PA-DATA sequence and ETYPE-INFO2 walked by gk5; PA-ENC-TS-ENC,
 * the same bytes from both. */
static void check_preauth(void)
{
    static uint8_t s2k[4] = {0, 0, 0x10, 0};
    krb5_pa_data p1 = {KV5M_PA_DATA, 19, 3, (krb5_octet *)"abc"};
    krb5_pa_data *pa[] = {&p1, NULL};
    mit_etype_info_entry e1, e2, e3;
    mit_etype_info_entry *ei[] = {&e1, &e2, &e3, NULL};
    mit_pa_enc_ts ts = {1700000000, 123456};
    struct gk5i_krb_etype_info2 g;
    struct gk5i_view v, whole;
    krb5_data *out = NULL;
    uint8_t buf[64];
    size_t pos = 0, n;
    int32_t type;
    bool more;

    CHECK(encode_krb5_padata_sequence(pa, &out) == 0);
    whole.p = (const uint8_t *)out->data;
    whole.len = out->length;
    CHECK(gk5i_padata_next(whole, &pos, &more, &type, &v) == GK5_OK && more &&
          type == 19 && v.len == 3 && memcmp(v.p, "abc", 3) == 0);
    CHECK(gk5i_padata_next(whole, &pos, &more, &type, &v) == GK5_OK && !more);
    krb5_free_data(kctx, out);

    memset(&e1, 0, sizeof(e1));
    e1.etype = 18;
    e1.length = 14;
    e1.salt = (krb5_octet *)"EXAMPLE.ORGbob";
    e2 = e1;
    e2.etype = 17;
    e2.length = UINT_MAX; /* no salt */
    e2.salt = NULL;
    e3 = e1;
    e3.etype = 20;
    e3.s2kparams.length = sizeof(s2k);
    e3.s2kparams.data = (char *)s2k;
    CHECK(encode_krb5_etype_info2(ei, &out) == 0);
    whole.p = (const uint8_t *)out->data;
    whole.len = out->length;
    pos = 0;
    CHECK(gk5i_etype_info2_next(whole, &pos, &more, &g) == GK5_OK && more &&
          g.etype == 18 && g.has_salt && g.salt.len == 14 &&
          memcmp(g.salt.p, "EXAMPLE.ORGbob", 14) == 0 && !g.has_s2kparams);
    CHECK(gk5i_etype_info2_next(whole, &pos, &more, &g) == GK5_OK && more &&
          g.etype == 17 && !g.has_salt && !g.has_s2kparams);
    CHECK(gk5i_etype_info2_next(whole, &pos, &more, &g) == GK5_OK && more &&
          g.etype == 20 && g.has_salt && g.has_s2kparams &&
          g.s2kparams.len == 4 && memcmp(g.s2kparams.p, s2k, 4) == 0);
    CHECK(gk5i_etype_info2_next(whole, &pos, &more, &g) == GK5_OK && !more);
    krb5_free_data(kctx, out);

    CHECK(encode_krb5_pa_enc_ts(&ts, &out) == 0);
    CHECK(gk5i_encode_pa_enc_ts_enc(1700000000, 123456, buf, sizeof(buf), &n) ==
          GK5_OK);
    CHECK(n == out->length && memcmp(buf, out->data, n) == 0);
    krb5_free_data(kctx, out);
}

int main(int argc, char **argv)
{
    static uint8_t buf[MAX_SEED];
    int fargc = 0;
    char **fargv = NULL;
    unsigned runs = 0;
    struct dirent *e;
    DIR *d;

    if (argc != 2) {
        fprintf(stderr, "usage: test_diff_krb5 CORPUS_DIR\n");
        return 2;
    }
    d = opendir(argv[1]);
    if (d == NULL) {
        fprintf(stderr, "test_diff_krb5: cannot open %s\n", argv[1]);
        return 1;
    }
    LLVMFuzzerInitialize(&fargc, &fargv);
    CHECK(krb5_init_context(&kctx) == 0);
    check_requests();
    check_replies();
    check_preauth();
    krb5_free_context(kctx);
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        size_t n;
        FILE *f;

        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
        f = fopen(path, "rb");
        if (f == NULL) {
            fprintf(stderr, "test_diff_krb5: cannot read %s\n", path);
            closedir(d);
            return 1;
        }
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        runs++;
    }
    closedir(d);
    if (runs == 0) {
        fprintf(stderr, "test_diff_krb5: no inputs in %s\n", argv[1]);
        return 1;
    }
    printf("ok: %u inputs, gk5 and MIT agree or differ only as classified\n",
           runs);
    return 0;
}
