/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 codec (src/der): every type round trips (struct, encode,
 * decode, the same fields, the same bytes again); messages written out by
 * hand from RFC 4120 section 5's ASN.1 decode field by field; and every
 * strictness rule refuses the shape it names, with the answer it names.
 *
 * The hand-written messages use a small spec language (build()): hex
 * pairs are bytes, "text" is ASCII, {..} is the contents of a value after
 * its minimal DER length, <..> the same after a long-form length of one
 * octet (81 nn, wrong below 128) and (..) after one of two octets (82 00
 * nn, a leading zero).  Each message can so be written as its ASN.1 reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "der/der.h"
#include "der/rfc4120.h"

/* ---- the spec language ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    assert_true(c >= 'A' && c <= 'F');
    return c - 'A' + 10;
}

/* Contents up to the closing bracket (or the end) into out. */
static size_t build_in(const char **s, uint8_t *out)
{
    size_t n = 0;

    while (**s != '\0' && **s != '}' && **s != '>' && **s != ')') {
        char c = **s;

        if (c == ' ' || c == '\n') {
            (*s)++;
        } else if (c == '"') {
            (*s)++;
            while (**s != '"') {
                assert_true(**s != '\0');
                out[n++] = (uint8_t) * (*s)++;
            }
            (*s)++;
        } else if (c == '{' || c == '<' || c == '(') {
            /* Contents first, 4 octets on, then the header in front. */
            size_t m, h;

            (*s)++;
            m = build_in(s, out + n + 5);
            assert_true(**s == (c == '{' ? '}' : c == '<' ? '>' : ')'));
            (*s)++;
            if (c == '<') {
                assert_true(m < 256);
                h = 2;
            } else if (c == '(') {
                assert_true(m < 256);
                h = 3;
            } else {
                h = m < 0x80 ? 1 : m < 0x100 ? 2 : m < 0x10000 ? 3 : 4;
            }
            memmove(out + n + h, out + n + 5, m);
            if (h == 1) {
                out[n] = (uint8_t)m;
            } else {
                out[n] = (uint8_t)(0x80 | (h - 1));
                for (size_t i = 1; i < h; i++) {
                    out[n + i] = (uint8_t)(m >> (8 * (h - 1 - i)));
                }
            }
            n += h + m;
        } else {
            out[n++] = (uint8_t)(hexval(c) << 4 | hexval((*s)[1]));
            *s += 2;
        }
    }
    return n;
}

static uint8_t specbuf[1u << 20];

static size_t build(const char *spec, uint8_t **out)
{
    size_t n = build_in(&spec, specbuf);

    assert_true(*spec == '\0');
    *out = specbuf;
    return n;
}

/* ---- one entry for every type ---- */

enum kind {
    K_TICKET,
    K_ENC_TKT_PART,
    K_AUTHENTICATOR,
    K_AP_REQ,
    K_AP_REP,
    K_ENC_AP_REP_PART,
    K_KRB_ERROR,
    K_AS_REP,
    K_TGS_REP,
    K_ENC_KDC_REP_PART,
    K_KDC_REQ, /* encoders only, from here on */
    K_KDC_REQ_BODY,
    K_ENC_DATA,
};

union msg {
    struct gk5i_krb_ticket ticket;
    struct gk5i_krb_enc_tkt_part etp;
    struct gk5i_krb_authenticator auth;
    struct gk5i_krb_ap_req ap_req;
    struct gk5i_krb_ap_rep ap_rep;
    struct gk5i_krb_enc_ap_rep_part earp;
    struct gk5i_krb_error err;
    struct gk5i_krb_kdc_rep kdc_rep;
    struct gk5i_krb_enc_kdc_rep_part ekrp;
    struct gk5i_krb_kdc_req kdc_req;
    struct gk5i_krb_kdc_req_body body;
    struct gk5i_krb_enc_data enc_data;
};

static uint32_t decode(enum kind k, const uint8_t *in, size_t len, union msg *m)
{
    switch (k) {
    case K_TICKET:
        return gk5i_decode_ticket(in, len, &m->ticket);
    case K_ENC_TKT_PART:
        return gk5i_decode_enc_tkt_part(in, len, &m->etp);
    case K_AUTHENTICATOR:
        return gk5i_decode_authenticator(in, len, &m->auth);
    case K_AP_REQ:
        return gk5i_decode_ap_req(in, len, &m->ap_req);
    case K_AP_REP:
        return gk5i_decode_ap_rep(in, len, &m->ap_rep);
    case K_ENC_AP_REP_PART:
        return gk5i_decode_enc_ap_rep_part(in, len, &m->earp);
    case K_KRB_ERROR:
        return gk5i_decode_krb_error(in, len, &m->err);
    case K_AS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_AS_REP, &m->kdc_rep);
    case K_TGS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_TGS_REP, &m->kdc_rep);
    case K_ENC_KDC_REP_PART:
        return gk5i_decode_enc_kdc_rep_part(in, len, &m->ekrp);
    case K_KDC_REQ:
    case K_KDC_REQ_BODY:
    case K_ENC_DATA:
        break; /* gk5 sends these and never reads them */
    }
    fail();
    return 0;
}

static uint32_t encode(enum kind k, const union msg *m, uint8_t *out,
                       size_t cap, size_t *len)
{
    switch (k) {
    case K_TICKET:
        return gk5i_encode_ticket(&m->ticket, out, cap, len);
    case K_ENC_TKT_PART:
        return gk5i_encode_enc_tkt_part(&m->etp, out, cap, len);
    case K_AUTHENTICATOR:
        return gk5i_encode_authenticator(&m->auth, out, cap, len);
    case K_AP_REQ:
        return gk5i_encode_ap_req(&m->ap_req, out, cap, len);
    case K_AP_REP:
        return gk5i_encode_ap_rep(&m->ap_rep, out, cap, len);
    case K_ENC_AP_REP_PART:
        return gk5i_encode_enc_ap_rep_part(&m->earp, out, cap, len);
    case K_KRB_ERROR:
        return gk5i_encode_krb_error(&m->err, out, cap, len);
    case K_AS_REP:
    case K_TGS_REP:
        return gk5i_encode_kdc_rep(&m->kdc_rep, out, cap, len);
    case K_ENC_KDC_REP_PART:
        return gk5i_encode_enc_kdc_rep_part(&m->ekrp, out, cap, len);
    case K_KDC_REQ:
        return gk5i_encode_kdc_req(&m->kdc_req, out, cap, len);
    case K_KDC_REQ_BODY:
        return gk5i_encode_kdc_req_body(&m->body, out, cap, len);
    case K_ENC_DATA:
        return gk5i_encode_enc_data(&m->enc_data, out, cap, len);
    }
    fail();
    return 0;
}

/* Decodes a spec; the answer must be want. */
static void expect(enum kind k, const char *spec, uint32_t want)
{
    uint8_t *in;
    size_t n = build(spec, &in);
    uint8_t *copy = malloc(n + 1); /* exact size: ASan sees an overread */
    union msg m;
    uint32_t ret;

    assert_non_null(copy);
    memcpy(copy, in, n);
    ret = decode(k, copy, n, &m);
    if (ret != want) {
        print_error("spec %s: got %u, want %u\n", spec, ret, want);
    }
    assert_int_equal(ret, want);
    free(copy);
}

/* Encodes m: measured, written into the exact room, refused one octet
 * short (with the length it needs); returns the encoding, malloc'ed. */
static uint8_t *encode_checked(enum kind k, const union msg *m, size_t *len)
{
    size_t need, got;
    uint8_t *out;

    assert_int_equal(encode(k, m, NULL, 0, &need), GK5_OK);
    assert_true(need > 0);
    out = malloc(need);
    assert_non_null(out);
    assert_int_equal(encode(k, m, out, need - 1, &got),
                     GK5_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(got, need);
    /* The tail it did write (key bytes among them, perhaps) is wiped. */
    for (size_t i = 0; i + 1 < need; i++) {
        assert_int_equal(out[i], 0);
    }
    assert_int_equal(encode(k, m, out, need, &got), GK5_OK);
    assert_int_equal(got, need);
    *len = need;
    return out;
}

/* Decodes in, then re-encodes what came out: the same bytes. */
static void reencode_same(enum kind k, const uint8_t *in, size_t len,
                          union msg *m)
{
    uint8_t *again;
    size_t n;

    assert_int_equal(decode(k, in, len, m), GK5_OK);
    again = encode_checked(k, m, &n);
    assert_int_equal(n, len);
    assert_memory_equal(again, in, len);
    free(again);
}

/* ---- comparing ---- */

static struct gk5i_view V(const char *s) {
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

static void
view_equal(struct gk5i_view a, struct gk5i_view b)
{
    assert_int_equal(a.len, b.len);
    if (a.len != 0) {
        assert_memory_equal(a.p, b.p, a.len);
    }
}

static void principal_equal(const struct gk5i_krb_principal *a,
                            const struct gk5i_krb_principal *b)
{
    assert_int_equal(a->name_type, b->name_type);
    assert_int_equal(a->ncomp, b->ncomp);
    for (uint32_t i = 0; i < a->ncomp; i++) {
        view_equal(a->comp[i], b->comp[i]);
    }
}

static void enc_data_equal(const struct gk5i_krb_enc_data *a,
                           const struct gk5i_krb_enc_data *b)
{
    assert_int_equal(a->etype, b->etype);
    assert_int_equal(a->has_kvno, b->has_kvno);
    if (a->has_kvno) {
        assert_int_equal(a->kvno, b->kvno);
    }
    view_equal(a->cipher, b->cipher);
}

static void key_equal(const struct gk5i_krb_key *a,
                      const struct gk5i_krb_key *b)
{
    assert_int_equal(a->keytype, b->keytype);
    view_equal(a->value, b->value);
}

static void ticket_equal(const struct gk5i_krb_ticket *a,
                         const struct gk5i_krb_ticket *b)
{
    view_equal(a->realm, b->realm);
    principal_equal(&a->sname, &b->sname);
    enc_data_equal(&a->enc_part, &b->enc_part);
}

/* ---- sample values ---- */

static const uint8_t cipher[] = {0xde, 0xad, 0xbe, 0xef, 0x00, 0x01};
static const uint8_t keyval[32] = {0x11, 0x22, 0x33, 0x44, 0x55};

static void sample_principal(struct gk5i_krb_principal *p, int32_t type,
                             const char *a, const char *b)
{
    memset(p, 0, sizeof(*p));
    p->name_type = type;
    p->comp[p->ncomp++] = V(a);
    if (b != NULL) {
        p->comp[p->ncomp++] = V(b);
    }
}

static void sample_ticket(struct gk5i_krb_ticket *t)
{
    memset(t, 0, sizeof(*t));
    t->realm = V("EXAMPLE.ORG");
    sample_principal(&t->sname, 2, "nfs", "server.example.org");
    t->enc_part.etype = 18;
    t->enc_part.has_kvno = true;
    t->enc_part.kvno = 0xfffffffeu; /* a UInt32 needing five octets */
    t->enc_part.cipher.p = cipher;
    t->enc_part.cipher.len = sizeof(cipher);
}

/* ---- KerberosTime ---- */

static uint32_t parse(const char *s, gk5i_krb_time *t)
{
    return gk5i_krb_time_parse((const uint8_t *)s, strlen(s), t);
}

static void test_time(void **state)
{
    static const char *const bad[] = {
        "20230230000000Z",   /* 30 February */
        "21000229000000Z",   /* 2100 is no leap year */
        "20231231235960Z",   /* a leap second */
        "20231231240000Z",   /* hour 24 */
        "20231231236000Z",   /* minute 60 */
        "20230001000000Z",   /* month 0 */
        "20231301000000Z",   /* month 13 */
        "20230100000000Z",   /* day 0 */
        "20230431000000Z",   /* 31 April */
        "20231231235959.5Z", /* a fraction */
        "202312312359.5Z",   /* a fraction in 15 octets */
        "20231231235959",    /* 14 octets, no Z */
        "202312312359590Z",  /* 16 octets */
        "20231231235959z",   /* lowercase z */
        "2023123123595 Z",   /* a space */
        "+0231231235959Z",   /* a sign */
        "",
    };
    gk5i_krb_time t;
    uint8_t s[15];

    (void)state;
    assert_int_equal(parse("19700101000000Z", &t), GK5_OK);
    assert_true(t == 0);
    assert_int_equal(parse("19691231235959Z", &t), GK5_OK);
    assert_true(t == -1);
    assert_int_equal(parse("20380119031408Z", &t), GK5_OK);
    assert_true(t == 2147483648LL);
    assert_int_equal(parse("20000229123456Z", &t), GK5_OK);
    assert_true(t == 951827696LL);
    assert_int_equal(parse("20240229000000Z", &t), GK5_OK);
    assert_int_equal(parse("00000101000000Z", &t), GK5_OK);
    assert_true(t == -62167219200LL);
    assert_int_equal(gk5i_krb_time_format(t, s), GK5_OK);
    assert_memory_equal(s, "00000101000000Z", 15);
    assert_int_equal(parse("99991231235959Z", &t), GK5_OK);
    assert_true(t == 253402300799LL);
    assert_int_equal(gk5i_krb_time_format(t, s), GK5_OK);
    assert_memory_equal(s, "99991231235959Z", 15);
    assert_int_equal(gk5i_krb_time_format(t + 1, s), GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_krb_time_format(-62167219201LL, s),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_krb_time_format(951827696LL, s), GK5_OK);
    assert_memory_equal(s, "20000229123456Z", 15);

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        t = 7;
        if (parse(bad[i], &t) != GK5_ERR_DER) {
            print_error("accepted time \"%s\"\n", bad[i]);
            fail();
        }
        assert_true(t == 0);
    }

    /* Every day of 1600..2400 formats and parses back to itself. */
    for (int64_t d = -135140; d <= 157054; d += 1) {
        gk5i_krb_time u = d * 86400 + 3661;

        assert_int_equal(gk5i_krb_time_format(u, s), GK5_OK);
        assert_int_equal(gk5i_krb_time_parse(s, 15, &t), GK5_OK);
        assert_true(t == u);
    }
}

/* ---- the DER primitives (der.h) ---- */

static void test_primitives(void **state)
{
    static const struct {
        int64_t v;
        const char *der;
    } ints[] = {
        {0, "020100"},
        {127, "02017f"},
        {128, "02020080"},
        {255, "020200ff"},
        {256, "02020100"},
        {-1, "0201ff"},
        {-128, "020180"},
        {-129, "0202ff7f"},
        {INT32_MAX, "02047fffffff"},
        {INT32_MIN, "020480000000"},
        {UINT32_MAX, "020500ffffffff"},
    };
    uint8_t buf[16];
    struct gk5i_bwr w;
    struct gk5i_rd r;

    (void)state;
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        uint8_t *want;
        size_t n = build(ints[i].der, &want);

        gk5i_bwr_init(&w, buf, sizeof(buf));
        gk5i_der_put_int(&w, ints[i].v);
        assert_false(w.bad);
        assert_int_equal(w.len, n);
        assert_memory_equal(gk5i_bwr_data(&w), want, n);
        gk5i_rd_init(&r, want, n);
        assert_true(gk5i_der_get_int(&r, INT64_MIN, INT64_MAX) == ints[i].v);
        assert_true(gk5i_rd_at_end(&r));
    }

    /* Lengths at the form boundaries, written and read. */
    for (size_t len = 0; len < 70000; len += len < 300 ? 1 : 997) {
        uint8_t hdr[8];
        size_t got;

        gk5i_bwr_init(&w, hdr, sizeof(hdr));
        gk5i_der_put_header(&w, GK5I_DER_OCTET_STRING, len);
        assert_false(w.bad);
        assert_int_equal(w.len, len < 0x80    ? 2
                                : len < 0x100 ? 3
                                : len < 65536 ? 4
                                              : 5);
        gk5i_rd_init(&r, gk5i_bwr_data(&w), w.len);
        r.left += len; /* as if the contents followed */
        got = gk5i_der_header(&r, GK5I_DER_OCTET_STRING);
        assert_false(r.bad);
        assert_int_equal(got, len);
    }

    /* Counting only, and counting on past the room. */
    gk5i_bwr_init(&w, NULL, 0);
    gk5i_der_put_int(&w, 1000);
    assert_int_equal(w.len, 4);
    assert_false(w.bad);
    gk5i_bwr_init(&w, buf, 3);
    gk5i_der_put_int(&w, 1000);
    assert_true(w.bad);
    assert_int_equal(w.len, 4);
    assert_null(gk5i_bwr_data(&w));
}

/* ---- messages written by hand ---- */

#define ENC_DATA "30{a0{020112} a1{020102} a2{04{deadbeef}}}"
#define AP_REP_WITH(pvno, mt) "6f{30{a0{" pvno "} a1{" mt "} a2{" ENC_DATA "}}}"
#define AP_REP AP_REP_WITH("020105", "02010f")
#define PRINC "30{a0{020103} a1{30{1b{\"host\"} 1b{\"h.ex\"}}}}"
#define TICKET_WITH(vno)                                                       \
    "61{30{a0{" vno "} a1{1b{\"EX\"}} a2{" PRINC "} a3{" ENC_DATA "}}}"
#define TICKET TICKET_WITH("020105")
#define AP_REQ_WITH(pvno, mt, opts, tkt)                                       \
    "6e{30{a0{" pvno "} a1{" mt "} a2{" opts "} a3{" tkt                       \
    "} a4{30{a0{020112} a2{04{010203}}}}}}"
#define OPTS "03{00 20000000}"
#define AP_REQ AP_REQ_WITH("020105", "02010e", OPTS, TICKET)
#define EARP_WITH(time, usec, rest)                                            \
    "7b{30{a0{18{\"" time "\"}} a1{" usec "} " rest "}}"

static void test_known_ap_rep(void **state)
{
    static const uint8_t want[] = {
        0x6f, 0x22, 0x30, 0x20, 0xa0, 0x03, 0x02, 0x01, 0x05, 0xa1, 0x03, 0x02,
        0x01, 0x0f, 0xa2, 0x14, 0x30, 0x12, 0xa0, 0x03, 0x02, 0x01, 0x12, 0xa1,
        0x03, 0x02, 0x01, 0x02, 0xa2, 0x06, 0x04, 0x04, 0xde, 0xad, 0xbe, 0xef};
    uint8_t *in;
    size_t n = build(AP_REP, &in);
    union msg m;

    (void)state;
    /* The spec language against octets counted by hand. */
    assert_int_equal(n, sizeof(want));
    assert_memory_equal(in, want, n);
    assert_int_equal(gk5i_decode_ap_rep(want, sizeof(want), &m.ap_rep), GK5_OK);
    assert_int_equal(m.ap_rep.enc_part.etype, 18);
    assert_true(m.ap_rep.enc_part.has_kvno);
    assert_int_equal(m.ap_rep.enc_part.kvno, 2);
    assert_int_equal(m.ap_rep.enc_part.cipher.len, 4);
    assert_ptr_equal(m.ap_rep.enc_part.cipher.p, want + 32); /* a view */
    reencode_same(K_AP_REP, want, sizeof(want), &m);
}

static void test_known_ap_req(void **state)
{
    uint8_t *in;
    size_t n = build(AP_REQ, &in);
    struct gk5i_krb_ap_req *a;
    union msg m, m2;
    uint8_t *again;
    size_t n2;

    (void)state;
    a = &m.ap_req;
    assert_int_equal(gk5i_decode_ap_req(in, n, a), GK5_OK);
    assert_int_equal(a->ap_options, GK5I_AP_OPT_MUTUAL_REQUIRED);
    view_equal(a->ticket.realm, V("EX"));
    assert_int_equal(a->ticket.sname.name_type, 3);
    assert_int_equal(a->ticket.sname.ncomp, 2);
    view_equal(a->ticket.sname.comp[0], V("host"));
    view_equal(a->ticket.sname.comp[1], V("h.ex"));
    assert_int_equal(a->ticket.enc_part.etype, 18);
    assert_int_equal(a->ticket.enc_part.kvno, 2);
    /* ticket_der: the whole Ticket, inside the message, decodable alone */
    assert_true(a->ticket_der.p > in && a->ticket_der.p < in + n);
    assert_int_equal(a->ticket_der.p[0], 0x61);
    assert_int_equal(
        gk5i_decode_ticket(a->ticket_der.p, a->ticket_der.len, &m2.ticket),
        GK5_OK);
    ticket_equal(&m2.ticket, &a->ticket);
    assert_int_equal(a->authenticator.etype, 18);
    assert_false(a->authenticator.has_kvno);
    assert_int_equal(a->authenticator.cipher.len, 3);
    reencode_same(K_AP_REQ, in, n, &m);

    /* The same bytes from the Ticket's fields rather than its bytes. */
    m.ap_req.ticket_der.p = NULL;
    m.ap_req.ticket_der.len = 0;
    again = encode_checked(K_AP_REQ, &m, &n2);
    assert_int_equal(n2, n);
    assert_memory_equal(again, in, n);
    free(again);

    /* ticket_der that is not a Ticket is not sent. */
    m.ap_req.ticket_der = V("\x61\x00");
    assert_int_equal(gk5i_encode_ap_req(&m.ap_req, NULL, 0, &n2),
                     GK5_ERR_INVALID_ARGUMENT);
}

static void test_known_krb_error(void **state)
{
    static const char minimal[] =
        "7e{30{a0{020105} a1{02011e} a4{18{\"20230102030405Z\"}} "
        "a5{020100} a6{020119} a9{1b{\"EX\"}} "
        "aa{30{a0{020102} a1{30{1b{\"krbtgt\"} 1b{\"EX\"}}}}}}}";
    static const char full[] =
        "7e{30{a0{020105} a1{02011e} a2{18{\"19991231235959Z\"}} "
        "a3{02030f423f} a4{18{\"20230102030405Z\"}} a5{020100} a6{020119} "
        "a7{1b{\"C.EX\"}} a8{30{a0{020101} a1{30{1b{\"alice\"}}}}} "
        "a9{1b{\"EX\"}} aa{30{a0{020102} a1{30{1b{\"krbtgt\"} 1b{\"EX\"}}}}} "
        "ab{1b{\"NEEDED_PREAUTH\"}} ac{04{3000}}}}";
    struct gk5i_krb_error *e;
    gk5i_krb_time t;
    uint8_t *in;
    size_t n;
    union msg m;

    (void)state;
    e = &m.err;
    n = build(minimal, &in);
    assert_int_equal(gk5i_decode_krb_error(in, n, e), GK5_OK);
    assert_false(e->has_ctime || e->has_cusec || e->has_crealm ||
                 e->has_cname || e->has_e_text || e->has_e_data);
    assert_int_equal(parse("20230102030405Z", &t), GK5_OK);
    assert_true(e->stime == t);
    assert_int_equal(e->susec, 0);
    assert_int_equal(e->error_code, 25);
    view_equal(e->realm, V("EX"));
    assert_int_equal(e->sname.name_type, 2);
    view_equal(e->sname.comp[0], V("krbtgt"));
    reencode_same(K_KRB_ERROR, in, n, &m);

    n = build(full, &in);
    assert_int_equal(gk5i_decode_krb_error(in, n, e), GK5_OK);
    assert_true(e->has_ctime && e->has_cusec && e->has_crealm && e->has_cname &&
                e->has_e_text && e->has_e_data);
    assert_int_equal(parse("19991231235959Z", &t), GK5_OK);
    assert_true(e->ctime == t);
    assert_int_equal(e->cusec, 999999);
    view_equal(e->crealm, V("C.EX"));
    assert_int_equal(e->cname.ncomp, 1);
    view_equal(e->cname.comp[0], V("alice"));
    view_equal(e->e_text, V("NEEDED_PREAUTH"));
    assert_int_equal(e->e_data.len, 2);
    reencode_same(K_KRB_ERROR, in, n, &m);
}

/* A negative seq-number, as old Heimdal and Windows send it, reads as the
 * UInt32 with its 32 bits (MIT's reading); it goes back out as the
 * non-negative RFC 4120 UInt32. */
static void test_negative_seq_number(void **state)
{
    static const struct {
        const char *der;
        uint32_t seq;
        const char *out;
    } cases[] = {
        {"020480000000", 0x80000000u, "02050080000000"},
        {"0201ff", 0xffffffffu, "020500ffffffff"},
        {"0202ff7f", 0xffffff7fu, "020500ffffff7f"},
        {"020500ffffffff", 0xffffffffu, "020500ffffffff"},
        {"02047fffffff", 0x7fffffffu, "02047fffffff"},
    };
    char spec[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t *in, *out, *want;
        size_t n, nout, nwant;
        union msg m;

        snprintf(spec, sizeof(spec),
                 EARP_WITH("20230102030405Z", "020100", "a3{%s}"),
                 cases[i].der);
        n = build(spec, &in);
        assert_int_equal(gk5i_decode_enc_ap_rep_part(in, n, &m.earp), GK5_OK);
        assert_true(m.earp.has_seq_number);
        assert_int_equal(m.earp.seq_number, cases[i].seq);
        assert_false(m.earp.has_subkey);
        out = encode_checked(K_ENC_AP_REP_PART, &m, &nout);
        snprintf(spec, sizeof(spec),
                 EARP_WITH("20230102030405Z", "020100", "a3{%s}"),
                 cases[i].out);
        nwant = build(spec, &want);
        assert_int_equal(nout, nwant);
        assert_memory_equal(out, want, nwant);
        free(out);
    }
    expect(K_ENC_AP_REP_PART,
           EARP_WITH("20230102030405Z", "020100", "a3{0205ff7fffffff}"),
           GK5_ERR_DER); /* below -2^31 */
    expect(K_ENC_AP_REP_PART,
           EARP_WITH("20230102030405Z", "020100", "a3{02050100000000}"),
           GK5_ERR_DER); /* 2^32 */
}

/* ---- round trips ---- */

static void test_round_trip_ticket(void **state)
{
    union msg m, d;
    uint8_t *enc;
    size_t n;

    (void)state;
    sample_ticket(&m.ticket);
    enc = encode_checked(K_TICKET, &m, &n);
    reencode_same(K_TICKET, enc, n, &d);
    ticket_equal(&d.ticket, &m.ticket);
    free(enc);

    m.ticket.enc_part.has_kvno = false;
    m.ticket.sname.ncomp = 0; /* an empty name-string is well-formed DER */
    enc = encode_checked(K_TICKET, &m, &n);
    reencode_same(K_TICKET, enc, n, &d);
    ticket_equal(&d.ticket, &m.ticket);
    free(enc);
}

static void test_round_trip_enc_tkt_part(void **state)
{
    static const int32_t etypes[] = {18, 17, 20};
    uint8_t ad[64], *caddr, *enc;
    size_t adlen, ncaddr, n;
    union msg m, d;
    struct gk5i_krb_enc_tkt_part *e = &m.etp;

    (void)state;
    assert_int_equal(
        gk5i_encode_etype_list_ad(etypes, 3, ad, sizeof(ad), &adlen), GK5_OK);
    ncaddr = build("30{30{a0{020102} a1{04{c0000201}}} "
                   "30{a0{020118} a1{04{20010db8000000000000000000000001}}}}",
                   &caddr);
    caddr = memcpy(malloc(ncaddr), caddr, ncaddr);

    memset(e, 0, sizeof(*e));
    e->flags = GK5I_TKT_FLG_FORWARDABLE | GK5I_TKT_FLG_RENEWABLE |
               GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT;
    e->key.keytype = 18;
    e->key.value.p = keyval;
    e->key.value.len = sizeof(keyval);
    e->crealm = V("EXAMPLE.ORG");
    sample_principal(&e->cname, 1, "alice", NULL);
    e->transited_type = 1;
    e->transited_contents = V("");
    e->authtime = 1700000000;
    e->has_starttime = true;
    e->starttime = 1700000001;
    e->endtime = 1700036000;
    e->has_renew_till = true;
    e->renew_till = 1700604800;
    e->caddr.p = caddr;
    e->caddr.len = ncaddr;
    e->authorization_data.p = ad;
    e->authorization_data.len = adlen;

    enc = encode_checked(K_ENC_TKT_PART, &m, &n);
    reencode_same(K_ENC_TKT_PART, enc, n, &d);
    assert_int_equal(d.etp.flags, e->flags);
    key_equal(&d.etp.key, &e->key);
    view_equal(d.etp.crealm, e->crealm);
    principal_equal(&d.etp.cname, &e->cname);
    assert_int_equal(d.etp.transited_type, 1);
    assert_int_equal(d.etp.transited_contents.len, 0);
    assert_true(d.etp.authtime == e->authtime);
    assert_true(d.etp.has_starttime && d.etp.starttime == e->starttime);
    assert_true(d.etp.endtime == e->endtime);
    assert_true(d.etp.has_renew_till && d.etp.renew_till == e->renew_till);
    view_equal(d.etp.caddr, e->caddr);
    view_equal(d.etp.authorization_data, e->authorization_data);
    free(enc);

    /* Without the OPTIONAL fields. */
    e->has_starttime = false;
    e->has_renew_till = false;
    e->caddr.p = NULL;
    e->caddr.len = 0;
    e->authorization_data.p = NULL;
    e->authorization_data.len = 0;
    enc = encode_checked(K_ENC_TKT_PART, &m, &n);
    reencode_same(K_ENC_TKT_PART, enc, n, &d);
    assert_false(d.etp.has_starttime || d.etp.has_renew_till);
    assert_int_equal(d.etp.caddr.len, 0);
    assert_int_equal(d.etp.authorization_data.len, 0);
    free(enc);

    /* Carried whole, but only if well-formed. */
    e->caddr.p = caddr;
    e->caddr.len = ncaddr - 1;
    assert_int_equal(gk5i_encode_enc_tkt_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    free(caddr);
}

static void sample_authenticator(struct gk5i_krb_authenticator *a,
                                 const uint8_t *ad, size_t adlen)
{
    static const uint8_t cksum[24] = {0x10, 0, 0, 0, 1, 2, 3};

    memset(a, 0, sizeof(*a));
    a->crealm = V("EXAMPLE.ORG");
    sample_principal(&a->cname, 1, "alice", NULL);
    a->has_cksum = true;
    a->cksum.cksumtype = 0x8003; /* RFC 4121 4.1.1 */
    a->cksum.value.p = cksum;
    a->cksum.value.len = sizeof(cksum);
    a->cusec = 999999;
    a->ctime = 1700000000;
    a->has_subkey = true;
    a->subkey.keytype = 20;
    a->subkey.value.p = keyval;
    a->subkey.value.len = sizeof(keyval);
    a->has_seq_number = true;
    a->seq_number = 0x9abcdef0u;
    a->authorization_data.p = ad;
    a->authorization_data.len = adlen;
}

static void test_round_trip_authenticator(void **state)
{
    static const int32_t etypes[] = {18};
    uint8_t ad[64], *enc;
    size_t adlen, n;
    union msg m, d;

    (void)state;
    assert_int_equal(
        gk5i_encode_etype_list_ad(etypes, 1, ad, sizeof(ad), &adlen), GK5_OK);
    sample_authenticator(&m.auth, ad, adlen);
    enc = encode_checked(K_AUTHENTICATOR, &m, &n);
    reencode_same(K_AUTHENTICATOR, enc, n, &d);
    view_equal(d.auth.crealm, m.auth.crealm);
    principal_equal(&d.auth.cname, &m.auth.cname);
    assert_true(d.auth.has_cksum);
    assert_int_equal(d.auth.cksum.cksumtype, 0x8003);
    view_equal(d.auth.cksum.value, m.auth.cksum.value);
    assert_int_equal(d.auth.cusec, 999999);
    assert_true(d.auth.ctime == m.auth.ctime);
    assert_true(d.auth.has_subkey);
    key_equal(&d.auth.subkey, &m.auth.subkey);
    assert_true(d.auth.has_seq_number);
    assert_int_equal(d.auth.seq_number, 0x9abcdef0u);
    view_equal(d.auth.authorization_data, m.auth.authorization_data);
    free(enc);

    m.auth.has_cksum = false;
    m.auth.has_subkey = false;
    m.auth.has_seq_number = false;
    m.auth.authorization_data.p = NULL;
    m.auth.authorization_data.len = 0;
    m.auth.cusec = 0;
    enc = encode_checked(K_AUTHENTICATOR, &m, &n);
    reencode_same(K_AUTHENTICATOR, enc, n, &d);
    assert_false(d.auth.has_cksum || d.auth.has_subkey ||
                 d.auth.has_seq_number);
    assert_int_equal(d.auth.authorization_data.len, 0);
    free(enc);

    /* What a decoder would refuse is not encoded. */
    m.auth.cusec = 1000000;
    assert_int_equal(gk5i_encode_authenticator(&m.auth, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.auth.cusec = 0;
    m.auth.ctime = 253402300800LL; /* year 10000 */
    assert_int_equal(gk5i_encode_authenticator(&m.auth, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.auth.ctime = 0;
    m.auth.cname.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    assert_int_equal(gk5i_encode_authenticator(&m.auth, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.auth.cname.ncomp = 1;
    m.auth.crealm.p = NULL; /* len stays 11 */
    assert_int_equal(gk5i_encode_authenticator(&m.auth, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
}

static void test_round_trip_ap_req(void **state)
{
    union msg m, d;
    uint8_t *enc;
    size_t n;

    (void)state;
    memset(&m, 0, sizeof(m));
    m.ap_req.ap_options =
        GK5I_AP_OPT_MUTUAL_REQUIRED | GK5I_AP_OPT_ETYPE_NEGOTIATION;
    sample_ticket(&m.ap_req.ticket);
    m.ap_req.authenticator.etype = 18;
    m.ap_req.authenticator.cipher.p = cipher;
    m.ap_req.authenticator.cipher.len = sizeof(cipher);
    enc = encode_checked(K_AP_REQ, &m, &n);
    reencode_same(K_AP_REQ, enc, n, &d);
    assert_int_equal(d.ap_req.ap_options, m.ap_req.ap_options);
    ticket_equal(&d.ap_req.ticket, &m.ap_req.ticket);
    enc_data_equal(&d.ap_req.authenticator, &m.ap_req.authenticator);
    free(enc);
}

static void test_round_trip_ap_rep(void **state)
{
    union msg m, d;
    uint8_t *enc;
    size_t n;

    (void)state;
    memset(&m, 0, sizeof(m));
    m.ap_rep.enc_part.etype = -1; /* a negative Int32 */
    m.ap_rep.enc_part.cipher.p = cipher;
    m.ap_rep.enc_part.cipher.len = sizeof(cipher);
    enc = encode_checked(K_AP_REP, &m, &n);
    reencode_same(K_AP_REP, enc, n, &d);
    enc_data_equal(&d.ap_rep.enc_part, &m.ap_rep.enc_part);
    free(enc);
}

static void test_round_trip_enc_ap_rep_part(void **state)
{
    union msg m, d;
    uint8_t *enc;
    size_t n;

    (void)state;
    memset(&m, 0, sizeof(m));
    m.earp.ctime = -86400 * 365; /* 1969: before the epoch is a time too */
    m.earp.cusec = 123456;
    m.earp.has_subkey = true;
    m.earp.subkey.keytype = 18;
    m.earp.subkey.value.p = keyval;
    m.earp.subkey.value.len = sizeof(keyval);
    m.earp.has_seq_number = true;
    m.earp.seq_number = 0;
    enc = encode_checked(K_ENC_AP_REP_PART, &m, &n);
    reencode_same(K_ENC_AP_REP_PART, enc, n, &d);
    assert_true(d.earp.ctime == m.earp.ctime);
    assert_int_equal(d.earp.cusec, 123456);
    assert_true(d.earp.has_subkey);
    key_equal(&d.earp.subkey, &m.earp.subkey);
    assert_true(d.earp.has_seq_number);
    assert_int_equal(d.earp.seq_number, 0);
    free(enc);
}

static void test_round_trip_krb_error(void **state)
{
    union msg m, d;
    uint8_t *enc;
    size_t n;

    (void)state;
    memset(&m, 0, sizeof(m));
    m.err.has_ctime = true;
    m.err.ctime = 1700000000;
    m.err.has_cusec = true;
    m.err.cusec = 5;
    m.err.stime = 1700000002;
    m.err.susec = 999999;
    m.err.error_code = 41; /* KRB_AP_ERR_MODIFIED */
    m.err.has_crealm = true;
    m.err.crealm = V("C.EX");
    m.err.has_cname = true;
    sample_principal(&m.err.cname, 1, "alice", NULL);
    m.err.realm = V("EX");
    sample_principal(&m.err.sname, 2, "nfs", "h.ex");
    m.err.has_e_text = true;
    m.err.e_text = V("");
    m.err.has_e_data = true;
    m.err.e_data.p = cipher;
    m.err.e_data.len = sizeof(cipher);
    enc = encode_checked(K_KRB_ERROR, &m, &n);
    reencode_same(K_KRB_ERROR, enc, n, &d);
    assert_true(d.err.has_ctime && d.err.ctime == m.err.ctime);
    assert_true(d.err.has_cusec && d.err.cusec == 5);
    assert_true(d.err.stime == m.err.stime);
    assert_int_equal(d.err.susec, 999999);
    assert_int_equal(d.err.error_code, 41);
    assert_true(d.err.has_crealm);
    view_equal(d.err.crealm, m.err.crealm);
    assert_true(d.err.has_cname);
    principal_equal(&d.err.cname, &m.err.cname);
    view_equal(d.err.realm, m.err.realm);
    principal_equal(&d.err.sname, &m.err.sname);
    assert_true(d.err.has_e_text);
    assert_int_equal(d.err.e_text.len, 0);
    assert_true(d.err.has_e_data);
    view_equal(d.err.e_data, m.err.e_data);
    free(enc);
}

/* ---- AuthorizationData and the RFC 4537 etype list ---- */

static void test_etype_list_ad(void **state)
{
    static const int32_t etypes[] = {18, 17, -1};
    /* AD-IF-RELEVANT { AD-GSS-API-ETYPE-NEGOTIATION (129) { 18 17 -1 } } */
    static const char want_spec[] = "30{30{a0{020101} a1{04{30{30{a0{02020081} "
                                    "a1{04{30{020112 020111 0201ff}}}}}}}}}";
    uint8_t ad[64], *want;
    size_t adlen, nwant, pos, pos2, n;
    struct gk5i_view v, data, data2;
    int32_t type, list[3];
    bool more;

    (void)state;
    assert_int_equal(
        gk5i_encode_etype_list_ad(etypes, 3, ad, sizeof(ad), &adlen), GK5_OK);
    nwant = build(want_spec, &want);
    assert_int_equal(adlen, nwant);
    assert_memory_equal(ad, want, nwant);

    v.p = ad;
    v.len = adlen;
    pos = 0;
    assert_int_equal(gk5i_authz_next(v, &pos, &more, &type, &data), GK5_OK);
    assert_true(more);
    assert_int_equal(type, GK5I_AD_IF_RELEVANT);
    pos2 = 0;
    assert_int_equal(gk5i_authz_next(data, &pos2, &more, &type, &data2),
                     GK5_OK);
    assert_true(more);
    assert_int_equal(type, GK5I_AD_GSS_API_ETYPE_NEGOTIATION);
    assert_int_equal(gk5i_decode_etype_list(data2, list, 3, &n), GK5_OK);
    assert_int_equal(n, 3);
    assert_int_equal(list[0], 18);
    assert_int_equal(list[1], 17);
    assert_int_equal(list[2], -1);
    assert_int_equal(gk5i_decode_etype_list(data2, list, 2, &n),
                     GK5_ERR_DER_LIMIT);
    assert_int_equal(n, 0);
    assert_int_equal(gk5i_authz_next(data, &pos2, &more, &type, &data2),
                     GK5_OK);
    assert_false(more);
    assert_int_equal(gk5i_authz_next(v, &pos, &more, &type, &data), GK5_OK);
    assert_false(more);

    /* An empty view has no elements; a bad one is refused. */
    v.p = NULL;
    v.len = 0;
    pos = 0;
    assert_int_equal(gk5i_authz_next(v, &pos, &more, &type, &data), GK5_OK);
    assert_false(more);
    v.p = ad;
    v.len = adlen - 1;
    pos = 0;
    assert_int_equal(gk5i_authz_next(v, &pos, &more, &type, &data),
                     GK5_ERR_DER);
    nwant = build("30{30{a0{020101} a1{04{}} 00}}", &want);
    v.p = want;
    v.len = nwant;
    pos = 0;
    assert_int_equal(gk5i_authz_next(v, &pos, &more, &type, &data),
                     GK5_ERR_DER);
    nwant = build("30{020112 0202007f}", &want); /* non-minimal INTEGER */
    v.len = nwant;
    assert_int_equal(gk5i_decode_etype_list(v, list, 3, &n), GK5_ERR_DER);
    nwant = build("30{} 00", &want);
    v.len = nwant;
    assert_int_equal(gk5i_decode_etype_list(v, list, 3, &n), GK5_ERR_DER);
    nwant = build("30{}", &want);
    v.len = nwant;
    assert_int_equal(gk5i_decode_etype_list(v, list, 3, &n), GK5_OK);
    assert_int_equal(n, 0);
}

/* ---- refusals ---- */

static void test_refusals(void **state)
{
    static const struct {
        enum kind k;
        const char *spec;
        uint32_t want;
    } cases[] = {
        /* the forms themselves are right */
        {K_AP_REP, AP_REP, GK5_OK},
        {K_AP_REQ, AP_REQ, GK5_OK},
        /* lengths */
        {K_AP_REP, "6f 80 30{a0{020105} a1{02010f} a2{" ENC_DATA "}} 0000",
         GK5_ERR_DER}, /* indefinite */
        {K_AP_REP, "6f<30{a0{020105} a1{02010f} a2{" ENC_DATA "}}>",
         GK5_ERR_DER}, /* long form below 128 */
        {K_AP_REP, "6f(30{a0{020105} a1{02010f} a2{" ENC_DATA "}})",
         GK5_ERR_DER}, /* a leading zero length octet */
        {K_AP_REP, AP_REP_WITH("02<05>", "02010f"), GK5_ERR_DER},
        {K_AP_REP, "6f 7f 30{a0{020105} a1{02010f} a2{" ENC_DATA "}}",
         GK5_ERR_DER}, /* longer than what follows */
        {K_AP_REP, "6f 85 0000000020", GK5_ERR_DER}, /* five octets */
        /* tags */
        {K_AP_REP, AP_REQ, GK5_ERR_DER}, /* another [APPLICATION n] */
        {K_AP_REP, "4f{30{a0{020105} a1{02010f} a2{" ENC_DATA "}}}",
         GK5_ERR_DER}, /* primitive */
        {K_AP_REP, "6f{31{a0{020105} a1{02010f} a2{" ENC_DATA "}}}",
         GK5_ERR_DER}, /* SET */
        {K_AP_REP, "6f{10{a0{020105} a1{02010f} a2{" ENC_DATA "}}}",
         GK5_ERR_DER}, /* SEQUENCE, primitive */
        {K_AP_REP, "6f{30{80{05} a1{02010f} a2{" ENC_DATA "}}}",
         GK5_ERR_DER}, /* [0] IMPLICIT */
        {K_AP_REP, AP_REP_WITH("22{020105}", "02010f"), GK5_ERR_DER},
        {K_AP_REP, AP_REP_WITH("0a0105", "02010f"), GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} bf1f{" ENC_DATA "}}}",
         GK5_ERR_DER}, /* a multi-octet tag */
        /* context tags: order, unknown, missing, twice */
        {K_AP_REP, "6f{30{a1{02010f} a0{020105} a2{" ENC_DATA "}}}",
         GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{" ENC_DATA "} a3{0500}}}",
         GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a2{" ENC_DATA "}}}", GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f}}}", GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a0{020105} a1{02010f} a2{" ENC_DATA "}}}",
         GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{30{a0{020112} a3{04{}}}}}}",
         GK5_ERR_DER}, /* EncryptedData [3] */
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{30{a0{020112}}}}}",
         GK5_ERR_DER}, /* no cipher */
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{30{a1{020101} a2{04{}}}}}}",
         GK5_ERR_DER}, /* no etype */
        /* bytes left over: inside a field, a SEQUENCE, the message, after */
        {K_AP_REP, AP_REP_WITH("020105 00", "02010f"), GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{" ENC_DATA "} 0500}}",
         GK5_ERR_DER},
        {K_AP_REP, "6f{30{a0{020105} a1{02010f} a2{" ENC_DATA "}} 0500}",
         GK5_ERR_DER},
        {K_AP_REP, AP_REP "00", GK5_ERR_DER},
        {K_AP_REQ, AP_REQ "6f00", GK5_ERR_DER},
        /* INTEGERs */
        {K_AP_REP, AP_REP_WITH("02020005", "02010f"), GK5_ERR_DER},
        {K_AP_REP, AP_REP_WITH("0202ffff", "02010f"), GK5_ERR_DER},
        {K_AP_REP, AP_REP_WITH("0200", "02010f"), GK5_ERR_DER},
        {K_AP_REP, AP_REP_WITH("0209010000000000000005", "02010f"),
         GK5_ERR_DER},
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{02050080000000} "
         "a2{04{}}}}}}",
         GK5_ERR_DER}, /* etype 2^31: not an Int32 */
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{020480000000} "
         "a2{04{}}}}}}",
         GK5_OK}, /* etype -2^31 */
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{020112} "
         "a1{0201ff} a2{04{}}}}}}",
         GK5_ERR_DER}, /* kvno -1: not a UInt32 */
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{020112} "
         "a1{02050100000000} a2{04{}}}}}}",
         GK5_ERR_DER}, /* kvno 2^32 */
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{020112} "
         "a1{020500ffffffff} a2{04{}}}}}}",
         GK5_OK},
        {K_AP_REP,
         "6f{30{a0{020105} a1{02010f} a2{30{a0{020112} "
         "a1{020500ffffffff} a2{24{04{}}}}}}}",
         GK5_ERR_DER}, /* a constructed OCTET STRING */
        /* pvno and msg-type: well-formed, wrong */
        {K_AP_REP, AP_REP_WITH("020104", "02010f"), GK5_ERR_KRB_MSG_TYPE},
        {K_AP_REP, AP_REP_WITH("020105", "02010e"), GK5_ERR_KRB_MSG_TYPE},
        /* outside Int32, still a well-formed INTEGER (MIT reads it) */
        {K_AP_REP, AP_REP_WITH("020105", "0205010000000f"),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AP_REP, AP_REP_WITH("020105", "0208800000000000000f"),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AP_REP, AP_REP_WITH("020105", "020900800000000000000f"),
         GK5_ERR_DER}, /* 9 octets: past any INTEGER gk5 reads */
        {K_AP_REQ, AP_REQ_WITH("020104", "02010e", OPTS, TICKET),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AP_REQ, AP_REQ_WITH("020105", "02010f", OPTS, TICKET),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", OPTS, TICKET_WITH("020104")),
         GK5_ERR_KRB_MSG_TYPE}, /* tkt-vno */
        {K_AP_REQ, AP_REQ_WITH("020104", "02010e", OPTS, TICKET) "00",
         GK5_ERR_DER}, /* malformed wins over the wrong type */
        {K_AP_REQ, AP_REQ_WITH("02020004", "02010e", OPTS, TICKET),
         GK5_ERR_DER},
        /* KerberosFlags */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{00 200000}", TICKET),
         GK5_ERR_DER}, /* 24 bits */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{}", TICKET),
         GK5_ERR_DER},
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{07 20000080}", TICKET),
         GK5_ERR_DER}, /* 25 bits */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{01 20000001}", TICKET),
         GK5_ERR_DER}, /* an unused bit set */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{08 2000000000}", TICKET),
         GK5_ERR_DER}, /* eight unused bits */
        {K_AP_REQ,
         AP_REQ_WITH("020105", "02010e", "23{03{00 20000000}}", TICKET),
         GK5_ERR_DER}, /* constructed */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{00 2000000000}", TICKET),
         GK5_OK}, /* 40 bits: RFC 4120 5.2.8 allows more than 32 */
        {K_AP_REQ, AP_REQ_WITH("020105", "02010e", "03{07 2000000080}", TICKET),
         GK5_OK}, /* 33 bits */
        /* strings */
        {K_AP_REQ,
         AP_REQ_WITH("020105", "02010e", OPTS,
                     "61{30{a0{020105} a1{0c{\"EX\"}} a2{" PRINC
                     "} a3{" ENC_DATA "}}}"),
         GK5_ERR_DER}, /* a UTF8String realm */
        {K_AP_REQ,
         AP_REQ_WITH("020105", "02010e", OPTS,
                     "61{30{a0{020105} a1{1b{\"EX\"}} a2{30{a0{"
                     "020101} a1{30{1b{\"a\"} 04{\"b\"}}}}} "
                     "a3{" ENC_DATA "}}}"),
         GK5_ERR_DER}, /* an OCTET STRING component */
        {K_AP_REQ,
         AP_REQ_WITH("020105", "02010e", OPTS,
                     "61{30{a0{020105} a1{1b{\"EX\"}} a2{30{a0{"
                     "020101} a1{30{1b{\"a\"}} 00}}} "
                     "a3{" ENC_DATA "}}}"),
         GK5_ERR_DER}, /* left over after the name-string */
        {K_AP_REQ,
         AP_REQ_WITH("020105", "02010e", OPTS,
                     "61{30{a0{020105} a1{1b{\"E\xff\"}} a2{" PRINC
                     "} a3{" ENC_DATA "}}}"),
         GK5_OK}, /* GeneralString bytes as they are */
        /* times and microseconds in a message */
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405Z", "020100", ""), GK5_OK},
        {K_ENC_AP_REP_PART, EARP_WITH("20230230030405Z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030460Z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405.5Z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("2023010203040Z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("202301020304050Z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405z", "020100", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, "7b{30{a0{17{\"230102030405Z\"}} a1{020100}}}",
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405Z", "02030f423f", ""),
         GK5_OK},
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405Z", "02030f4240", ""),
         GK5_ERR_DER}, /* Microseconds 1000000 */
        {K_ENC_AP_REP_PART, EARP_WITH("20230102030405Z", "0201ff", ""),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART,
         EARP_WITH("20230102030405Z", "020100", "a3{020101} a2{" ENC_DATA "}"),
         GK5_ERR_DER},
        {K_ENC_AP_REP_PART,
         EARP_WITH("20230102030405Z", "020100",
                   "a2{30{a0{020112} a1{04{0102}}}} a3{020101}"),
         GK5_OK},
        {K_ENC_AP_REP_PART,
         EARP_WITH("20230102030405Z", "020100", "a2{30{a0{020112}}}"),
         GK5_ERR_DER}, /* a key with no keyvalue */
        /* KRB-ERROR */
        {K_KRB_ERROR,
         "7e{30{a0{020105} a1{02011e} a5{020100} a4{18{\"20230102030405Z\"}} "
         "a6{020119} a9{1b{\"EX\"}} aa{" PRINC "}}}",
         GK5_ERR_DER}, /* susec before stime */
        {K_KRB_ERROR,
         "7e{30{a0{020105} a1{02011e} a4{18{\"20230102030405Z\"}} a5{020100} "
         "a6{020119} a9{1b{\"EX\"}}}}",
         GK5_ERR_DER}, /* no sname */
        {K_KRB_ERROR,
         "7e{30{a0{020105} a1{02011e} a4{18{\"20230102030405Z\"}} a5{020100} "
         "a6{020119} a9{1b{\"EX\"}} aa{" PRINC "} ad{0500}}}",
         GK5_ERR_DER}, /* [13] */
        {K_KRB_ERROR,
         "7e{30{a0{020105} a1{02010e} a4{18{\"20230102030405Z\"}} a5{020100} "
         "a6{020119} a9{1b{\"EX\"}} aa{" PRINC "}}}",
         GK5_ERR_KRB_MSG_TYPE},
        /* an empty input, and nothing that is a message */
        {K_AP_REQ, "", GK5_ERR_DER},
        {K_AP_REQ, "6e", GK5_ERR_DER},
        {K_AP_REQ, "6e00", GK5_ERR_DER},
        {K_TICKET, TICKET, GK5_OK},
        {K_TICKET, TICKET_WITH("020104"), GK5_ERR_KRB_MSG_TYPE},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect(cases[i].k, cases[i].spec, cases[i].want);
    }
}

/* EncTicketPart's own fields: flags, transited, caddr, authorization-data. */
#define ETP_WITH(flags, tr, rest)                                              \
    "63{30{a0{" flags "} a1{30{a0{020112} a1{04{00112233}}}} "                 \
    "a2{1b{\"EX\"}} a3{" PRINC "} a4{" tr "} "                                 \
    "a5{18{\"20230102030405Z\"}} " rest "}}"
#define ETP_END "a7{18{\"20230103030405Z\"}}"

static void test_refusals_enc_tkt_part(void **state)
{
    static const struct {
        const char *spec;
        uint32_t want;
    } cases[] = {
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}", ETP_END),
         GK5_OK},
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "a9{30{30{a0{020102} a1{04{7f000001}}}}} "
                          "aa{30{30{a0{020101} a1{04{3000}}}}}"),
         GK5_OK},
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "a9{30{}}"),
         GK5_OK}, /* an empty SEQUENCE OF */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "a9{30{30{a0{020102}}}}"),
         GK5_ERR_DER}, /* an address with no address */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "a9{30{30{a0{020102} a1{04{}}} 02{00}}}"),
         GK5_ERR_DER}, /* not a HostAddress */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "aa{30{30{a0{020101} a1{04{}}}}} "
                          "a9{30{30{a0{020102} a1{04{}}}}}"),
         GK5_ERR_DER}, /* [10] before [9] */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  ETP_END "aa{31{30{a0{020101} a1{04{}}}}}"),
         GK5_ERR_DER}, /* a SET OF */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101}}", ETP_END),
         GK5_ERR_DER}, /* transited with no contents */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}", ""),
         GK5_ERR_DER}, /* no endtime */
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  "a6{18{\"20230102030405Z\"}} " ETP_END
                  " a8{18{\"20230109030405Z\"}}"),
         GK5_OK},
        {ETP_WITH("03{00 40e00000}", "30{a0{020101} a1{04{}}}",
                  "a8{18{\"20230109030405Z\"}} " ETP_END),
         GK5_ERR_DER}, /* renew-till before endtime */
        {ETP_WITH("03{00 40e000}", "30{a0{020101} a1{04{}}}", ETP_END),
         GK5_ERR_DER}, /* 24 flag bits */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect(K_ENC_TKT_PART, cases[i].spec, cases[i].want);
    }
}

/* ---- limits ---- */

static void test_limits(void **state)
{
    char spec[4096], *p;
    uint8_t *big, *in;
    size_t n;
    union msg m;

    (void)state;
    /* PrincipalName: GK5I_KRB_MAX_COMPONENTS and one more. */
    for (int extra = 0; extra <= 1; extra++) {
        p = spec;
        p += sprintf(p, "6e{30{a0{020105} a1{02010e} a2{" OPTS "} a3{"
                        "61{30{a0{020105} a1{1b{\"EX\"}} "
                        "a2{30{a0{020101} a1{30{");
        for (int i = 0; i < GK5I_KRB_MAX_COMPONENTS + extra; i++) {
            p += sprintf(p, "1b{\"c%d\"}", i);
        }
        sprintf(p, "}}}} a3{" ENC_DATA "}}}} a4{" ENC_DATA "}}}");
        expect(K_AP_REQ, spec, extra ? GK5_ERR_DER_LIMIT : GK5_OK);
        if (!extra) {
            n = build(spec, &in);
            assert_int_equal(gk5i_decode_ap_req(in, n, &m.ap_req), GK5_OK);
            assert_int_equal(m.ap_req.ticket.sname.ncomp,
                             GK5I_KRB_MAX_COMPONENTS);
            view_equal(m.ap_req.ticket.sname.comp[9], V("c9"));
        }
    }

    /* The whole message: at the limit, and one octet past it. */
    big = calloc(1, GK5I_KRB_MAX_MESSAGE + 1);
    assert_non_null(big);
    for (int k = K_TICKET; k <= K_KRB_ERROR; k++) {
        assert_int_equal(
            decode((enum kind)k, big, GK5I_KRB_MAX_MESSAGE + 1, &m),
            GK5_ERR_DER_LIMIT);
        assert_int_equal(decode((enum kind)k, big, GK5I_KRB_MAX_MESSAGE, &m),
                         GK5_ERR_DER);
    }
    memset(&m, 0, sizeof(m));
    m.ap_rep.enc_part.etype = 18;
    m.ap_rep.enc_part.cipher.p = big;
    m.ap_rep.enc_part.cipher.len = GK5I_KRB_MAX_MESSAGE - 64;
    {
        size_t len;
        uint8_t *enc = encode_checked(K_AP_REP, &m, &len);
        union msg d;

        assert_int_equal(gk5i_decode_ap_rep(enc, len, &d.ap_rep), GK5_OK);
        assert_int_equal(d.ap_rep.enc_part.cipher.len,
                         GK5I_KRB_MAX_MESSAGE - 64);
        free(enc);
    }
    m.ap_rep.enc_part.cipher.len = GK5I_KRB_MAX_MESSAGE;
    assert_int_equal(gk5i_encode_ap_rep(&m.ap_rep, NULL, 0, &n),
                     GK5_ERR_DER_LIMIT);
    free(big);

    /* Depth bombs: indefinite forms all the way down, and definite
     * nesting far deeper than any RFC 4120 type goes, where a Ticket is
     * expected.  Each type's shape is fixed, so the first wrong tag ends
     * it: the decoders never recurse on what the input says. */
    p = spec;
    p += sprintf(p, "6e80");
    for (int i = 0; i < 500; i++) {
        p += sprintf(p, "3080");
    }
    expect(K_AP_REQ, spec, GK5_ERR_DER);
    p = spec;
    p += sprintf(p, "6e{30{a0{020105} a1{02010e} a2{" OPTS "} a3{");
    for (int i = 0; i < 300; i++) {
        p += sprintf(p, "%s", i % 2 ? "30{" : "a3{");
    }
    for (int i = 0; i < 300; i++) {
        *p++ = '}';
    }
    sprintf(p, "} a4{" ENC_DATA "}}}");
    expect(K_AP_REQ, spec, GK5_ERR_DER);
}

/* Every prefix of a valid AP-REQ is refused, read through a buffer of its
 * exact size (so that ASan sees any read past it); every one-octet change
 * is answered without a crash. */
static void test_truncation(void **state)
{
    static const int32_t etypes[] = {18, 17};
    uint8_t ad[64], *enc, *copy;
    size_t adlen, n;
    union msg m, d;

    (void)state;
    assert_int_equal(
        gk5i_encode_etype_list_ad(etypes, 2, ad, sizeof(ad), &adlen), GK5_OK);
    memset(&m, 0, sizeof(m));
    m.ap_req.ap_options = GK5I_AP_OPT_MUTUAL_REQUIRED;
    sample_ticket(&m.ap_req.ticket);
    m.ap_req.authenticator.etype = 18;
    m.ap_req.authenticator.has_kvno = true;
    m.ap_req.authenticator.kvno = 3;
    m.ap_req.authenticator.cipher.p = cipher;
    m.ap_req.authenticator.cipher.len = sizeof(cipher);
    enc = encode_checked(K_AP_REQ, &m, &n);

    for (size_t len = 0; len < n; len++) {
        copy = malloc(len == 0 ? 1 : len);
        assert_non_null(copy);
        memcpy(copy, enc, len);
        assert_int_not_equal(gk5i_decode_ap_req(copy, len, &d.ap_req), GK5_OK);
        free(copy);
    }
    copy = malloc(n + 1);
    assert_non_null(copy);
    memcpy(copy, enc, n);
    copy[n] = 0;
    assert_int_equal(gk5i_decode_ap_req(copy, n + 1, &d.ap_req), GK5_ERR_DER);
    assert_int_equal(gk5i_decode_ap_req(copy, n, &d.ap_req), GK5_OK);
    for (size_t i = 0; i < n; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            copy[i] ^= (uint8_t)(1u << bit);
            (void)!gk5i_decode_ap_req(copy, n, &d.ap_req);
            copy[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(copy);
    free(enc);

    /* The same for an Authenticator with every field. */
    sample_authenticator(&m.auth, ad, adlen);
    enc = encode_checked(K_AUTHENTICATOR, &m, &n);
    for (size_t len = 0; len < n; len++) {
        copy = malloc(len == 0 ? 1 : len);
        assert_non_null(copy);
        memcpy(copy, enc, len);
        assert_int_not_equal(gk5i_decode_authenticator(copy, len, &d.auth),
                             GK5_OK);
        free(copy);
    }
    free(enc);
}

/* ---- the KDC exchanges (RFC 4120 5.4, 5.2.7) ---- */

#define KEY "30{a0{020112} a1{04{00112233}}}"
#define LASTREQ "30{30{a0{020100} a1{18{\"20230102030405Z\"}}}}"
#define ETYPE_INFO2 "30{30{a0{020112} a1{1b{\"EXhost\"}}} 30{a0{020111}}}"
#define PADATA                                                                 \
    "30{30{a1{020113} a2{04{" ETYPE_INFO2 "}}} 30{a1{020102} a2{04{}}}}"
#define KDC_REP_WITH(app, pvno, mt, pa, rest)                                  \
    app "{30{a0{" pvno "} a1{" mt "} " pa " a3{1b{\"EX\"}} a4{" PRINC          \
        "} a5{" TICKET "} " rest "}}"
#define AS_REP                                                                 \
    KDC_REP_WITH("6b", "020105", "02010b", "a2{" PADATA "}", "a6{" ENC_DATA "}")
#define TGS_REP KDC_REP_WITH("6d", "020105", "02010d", "", "a6{" ENC_DATA "}")
#define EKRP_WITH8(app, lastreq, nonce, opt3, flags, opt6, opt8, tail)         \
    app "{30{a0{" KEY "} a1{" lastreq "} a2{" nonce "} " opt3 " a4{" flags     \
        "} a5{18{\"20230102030405Z\"}} " opt6                                  \
        " a7{18{\"20230102130405Z\"}} " opt8 " a9{1b{\"EX\"}} aa{" PRINC       \
        "} " tail "}}"
#define EKRP_WITH(app, lastreq, nonce, opt3, flags, opt6, tail)                \
    EKRP_WITH8(app, lastreq, nonce, opt3, flags, opt6, "", tail)
#define EKRP_FLAGS "03{00 40e00000}"
#define EKRP_APP(app) EKRP_WITH(app, LASTREQ, "02012a", "", EKRP_FLAGS, "", "")
#define EKRP EKRP_APP("79")

static void test_known_kdc_rep(void **state)
{
    uint8_t *in;
    size_t n = build(AS_REP, &in);
    struct gk5i_krb_kdc_rep *r;
    struct gk5i_krb_etype_info2 e;
    struct gk5i_view v;
    union msg m, m2;
    size_t pos = 0, ipos = 0;
    bool more;
    int32_t type;

    (void)state;
    r = &m.kdc_rep;
    assert_int_equal(gk5i_decode_kdc_rep(in, n, GK5I_KRB_TAG_AS_REP, r),
                     GK5_OK);
    assert_int_equal(r->msg_type, GK5I_KRB_TAG_AS_REP);
    view_equal(r->crealm, V("EX"));
    assert_int_equal(r->cname.ncomp, 2);
    view_equal(r->cname.comp[1], V("h.ex"));
    view_equal(r->ticket.realm, V("EX"));
    assert_int_equal(r->ticket_der.p[0], 0x61);
    assert_int_equal(
        gk5i_decode_ticket(r->ticket_der.p, r->ticket_der.len, &m2.ticket),
        GK5_OK);
    ticket_equal(&m2.ticket, &r->ticket);
    assert_int_equal(r->enc_part.etype, 18);
    assert_int_equal(r->enc_part.kvno, 2);
    assert_true(r->padata.p > in && r->padata.p[0] == 0x30);

    /* padata: ETYPE-INFO2, then an empty PA-ENC-TIMESTAMP. */
    assert_int_equal(gk5i_padata_next(r->padata, &pos, &more, &type, &v),
                     GK5_OK);
    assert_true(more);
    assert_int_equal(type, GK5I_PA_ETYPE_INFO2);
    assert_int_equal(gk5i_etype_info2_next(v, &ipos, &more, &e), GK5_OK);
    assert_true(more);
    assert_int_equal(e.etype, 18);
    assert_true(e.has_salt);
    view_equal(e.salt, V("EXhost"));
    assert_false(e.has_s2kparams);
    assert_int_equal(gk5i_etype_info2_next(v, &ipos, &more, &e), GK5_OK);
    assert_true(more);
    assert_int_equal(e.etype, 17);
    assert_false(e.has_salt);
    assert_int_equal(gk5i_etype_info2_next(v, &ipos, &more, &e), GK5_OK);
    assert_false(more);
    assert_int_equal(gk5i_padata_next(r->padata, &pos, &more, &type, &v),
                     GK5_OK);
    assert_true(more);
    assert_int_equal(type, GK5I_PA_ENC_TIMESTAMP);
    assert_int_equal(v.len, 0);
    assert_int_equal(gk5i_padata_next(r->padata, &pos, &more, &type, &v),
                     GK5_OK);
    assert_false(more);
    reencode_same(K_AS_REP, in, n, &m);

    /* A TGS-REP without padata. */
    n = build(TGS_REP, &in);
    assert_int_equal(decode(K_TGS_REP, in, n, &m), GK5_OK);
    assert_int_equal(m.kdc_rep.msg_type, GK5I_KRB_TAG_TGS_REP);
    assert_null(m.kdc_rep.padata.p);
    assert_int_equal(m.kdc_rep.padata.len, 0);
    reencode_same(K_TGS_REP, in, n, &m);

    /* Another message where a reply is expected: the other reply, an
     * error, an AP-REP -- well-formed, they are another message. */
    expect(K_TGS_REP, AS_REP, GK5_ERR_KRB_MSG_TYPE);
    expect(K_AS_REP, TGS_REP, GK5_ERR_KRB_MSG_TYPE);
    expect(K_AS_REP, AP_REP, GK5_ERR_KRB_MSG_TYPE);
    expect(K_AS_REP, "7e{}", GK5_ERR_KRB_MSG_TYPE);
    expect(K_AS_REP, "7e{} 00", GK5_ERR_DER);
    expect(K_AS_REP, "7e 05 00", GK5_ERR_DER);
    expect(K_AS_REP, "7f1e{}", GK5_ERR_DER); /* a multi-octet tag */
    expect(K_AS_REP, "30{}", GK5_ERR_DER);
    expect(K_AS_REP, "", GK5_ERR_DER);
    n = build(AS_REP, &in);
    assert_int_equal(gk5i_decode_kdc_rep(in, n, GK5I_KRB_TAG_AS_REQ, r),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_decode_kdc_rep(in, n, GK5I_KRB_TAG_AS_REP, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
}

static void test_refusals_kdc_rep(void **state)
{
    static const struct {
        enum kind k;
        const char *spec;
        uint32_t want;
    } cases[] = {
        {K_AS_REP, AS_REP, GK5_OK},
        {K_TGS_REP, TGS_REP, GK5_OK},
        /* pvno, msg-type, tkt-vno: well-formed, wrong */
        {K_AS_REP,
         KDC_REP_WITH("6b", "020104", "02010b", "", "a6{" ENC_DATA "}"),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010d", "", "a6{" ENC_DATA "}"),
         GK5_ERR_KRB_MSG_TYPE},
        {K_AS_REP,
         "6b{30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a4{" PRINC
         "} a5{" TICKET_WITH("020104") "} a6{" ENC_DATA "}}}",
         GK5_ERR_KRB_MSG_TYPE},
        /* ... but bad DER wins over a wrong msg-type */
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010d", "", "a6{" ENC_DATA "} 00"),
         GK5_ERR_DER},
        /* missing, unknown, out of order, repeated fields */
        {K_AS_REP, KDC_REP_WITH("6b", "020105", "02010b", "", ""), GK5_ERR_DER},
        {K_AS_REP,
         "6b{30{a0{020105} a1{02010b} a4{" PRINC "} a5{" TICKET "} a6{" ENC_DATA
         "}}}",
         GK5_ERR_DER},
        {K_AS_REP,
         "6b{30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a4{" PRINC "} a6{" ENC_DATA
         "}}}",
         GK5_ERR_DER},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "",
                      "a6{" ENC_DATA "} a7{0500}"),
         GK5_ERR_DER},
        {K_AS_REP,
         "6b{30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a2{" PADATA "} a4{" PRINC
         "} a5{" TICKET "} a6{" ENC_DATA "}}}",
         GK5_ERR_DER},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "a2{30{}} a2{30{}}",
                      "a6{" ENC_DATA "}"),
         GK5_ERR_DER},
        /* padata: empty is well-formed; its elements are checked */
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "a2{30{}}", "a6{" ENC_DATA "}"),
         GK5_OK},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b",
                      "a2{30{30{a0{020113} a1{04{}}}}}", "a6{" ENC_DATA "}"),
         GK5_ERR_DER}, /* tags [0] [1]: not PA-DATA's */
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "a2{30{30{a1{020113}}}}",
                      "a6{" ENC_DATA "}"),
         GK5_ERR_DER}, /* no padata-value */
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b",
                      "a2{30{30{a1{020113} a2{04{}}} 05}}", "a6{" ENC_DATA "}"),
         GK5_ERR_DER},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "a2{04{}}", "a6{" ENC_DATA "}"),
         GK5_ERR_DER},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "a2{30{} 00}",
                      "a6{" ENC_DATA "}"),
         GK5_ERR_DER},
        /* lengths, forms, trailing bytes */
        {K_AS_REP, AS_REP "00", GK5_ERR_DER},
        {K_AS_REP,
         "6b(30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a4{" PRINC "} a5{" TICKET
         "} a6{" ENC_DATA "}})",
         GK5_ERR_DER},
        {K_AS_REP,
         "4b{30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a4{" PRINC "} a5{" TICKET
         "} a6{" ENC_DATA "}}}",
         GK5_ERR_DER},
        {K_AS_REP,
         KDC_REP_WITH("6b", "020105", "02010b", "", "a6{" ENC_DATA " 00}"),
         GK5_ERR_DER},
        {K_AS_REP,
         "6b{30{a0{020105} a1{02010b} a3{1b{\"EX\"}} a4{" PRINC "} a5{" TICKET
         " 00} a6{" ENC_DATA "}}}",
         GK5_ERR_DER},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect(cases[i].k, cases[i].spec, cases[i].want);
    }
}

static void test_known_enc_kdc_rep_part(void **state)
{
    static const char *const full =
        EKRP_WITH8("7a", LASTREQ, "0204 80000001",
                   "a3{18{\"20240102030405Z\"}}", EKRP_FLAGS,
                   "a6{18{\"20230102030406Z\"}}", "a8{18{\"20230109030405Z\"}}",
                   "ab{30{30{a0{020102} a1{04{7f000001}}}}} "
                   "ac{30{30{a1{02020095} a2{04{0102}}}}}");
    static const char *const full_out =
        EKRP_WITH8("7a", LASTREQ, "0205 0080000001",
                   "a3{18{\"20240102030405Z\"}}", EKRP_FLAGS,
                   "a6{18{\"20230102030406Z\"}}", "a8{18{\"20230109030405Z\"}}",
                   "ab{30{30{a0{020102} a1{04{7f000001}}}}} "
                   "ac{30{30{a1{02020095} a2{04{0102}}}}}");
    struct gk5i_krb_enc_kdc_rep_part *e;
    union msg m;
    uint8_t *in, *out, *want;
    size_t n, nout, nwant, pos = 0;
    gk5i_krb_time t;
    struct gk5i_view v;
    int32_t type;
    bool more;

    (void)state;
    e = &m.ekrp;
    n = build(EKRP, &in);
    assert_int_equal(gk5i_decode_enc_kdc_rep_part(in, n, e), GK5_OK);
    assert_int_equal(e->tag, GK5I_KRB_TAG_ENC_AS_REP_PART);
    assert_int_equal(e->key.keytype, 18);
    assert_int_equal(e->key.value.len, 4);
    assert_int_equal(e->last_req.p[0], 0x30);
    assert_int_equal(e->nonce, 42);
    assert_false(e->has_key_expiration);
    assert_int_equal(e->flags,
                     GK5I_TKT_FLG_FORWARDABLE | GK5I_TKT_FLG_RENEWABLE |
                         GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT);
    assert_int_equal(parse("20230102030405Z", &t), GK5_OK);
    assert_int_equal(e->authtime, t);
    assert_false(e->has_starttime);
    assert_int_equal(e->endtime, t + 36000);
    assert_false(e->has_renew_till);
    view_equal(e->srealm, V("EX"));
    assert_int_equal(e->sname.ncomp, 2);
    assert_int_equal(e->caddr.len, 0);
    assert_int_equal(e->encrypted_pa_data.len, 0);
    reencode_same(K_ENC_KDC_REP_PART, in, n, &m);

    /* Either tag, kept. */
    n = build(EKRP_APP("7a"), &in);
    assert_int_equal(gk5i_decode_enc_kdc_rep_part(in, n, e), GK5_OK);
    assert_int_equal(e->tag, GK5I_KRB_TAG_ENC_TGS_REP_PART);
    reencode_same(K_ENC_KDC_REP_PART, in, n, &m);

    /* Every OPTIONAL field, and a nonce MIT's KDC echoed as a negative
     * Int32: read as the UInt32, written back as one. */
    n = build(full, &in);
    assert_int_equal(gk5i_decode_enc_kdc_rep_part(in, n, e), GK5_OK);
    assert_int_equal(e->nonce, 0x80000001u);
    assert_true(e->has_key_expiration);
    assert_true(e->has_starttime);
    assert_int_equal(e->starttime, t + 1);
    assert_true(e->has_renew_till);
    assert_int_equal(e->renew_till, t + 7 * 86400);
    assert_int_equal(e->caddr.p[0], 0x30);
    assert_int_equal(
        gk5i_padata_next(e->encrypted_pa_data, &pos, &more, &type, &v), GK5_OK);
    assert_true(more);
    assert_int_equal(type, 149);
    assert_int_equal(v.len, 2);
    out = encode_checked(K_ENC_KDC_REP_PART, &m, &nout);
    nwant = build(full_out, &want);
    assert_int_equal(nout, nwant);
    assert_memory_equal(out, want, nwant);
    reencode_same(K_ENC_KDC_REP_PART, out, nout, &m);
    free(out);
}

static void test_refusals_enc_kdc_rep_part(void **state)
{
    static const struct {
        const char *spec;
        uint32_t want;
    } cases[] = {
        {EKRP, GK5_OK},
        {EKRP_APP("7b"), GK5_ERR_DER}, /* EncAPRepPart's tag */
        {EKRP_APP("78"), GK5_ERR_DER},
        {EKRP_APP("59"), GK5_ERR_DER}, /* primitive */
        {EKRP "00", GK5_ERR_DER},
        /* LastReq: empty is well-formed; its elements are checked */
        {EKRP_WITH("79", "30{}", "02012a", "", EKRP_FLAGS, "", ""), GK5_OK},
        {EKRP_WITH("79", "30{30{a0{020100}}}", "02012a", "", EKRP_FLAGS, "",
                   ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", "30{30{a0{020100} a1{18{\"20230230030405Z\"}}}}",
                   "02012a", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", "30{30{a0{020100} a1{02012a}}}", "02012a", "",
                   EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", "30{30{a0{020100} a1{18{\"20230102030405Z\"}} 00}}",
                   "02012a", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", "31{}", "02012a", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        /* the nonce: Int32 or UInt32, nothing else */
        {EKRP_WITH("79", LASTREQ, "0205ff7fffffff", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02050100000000", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "0202002a", "", EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "0201ff", "", EKRP_FLAGS, "", ""), GK5_OK},
        /* times */
        {EKRP_WITH("79", LASTREQ, "02012a", "a3{18{\"2024010203040Z\"}}",
                   EKRP_FLAGS, "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS,
                   "a6{18{\"20230102030460Z\"}}", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS,
                   "a8{18{\"20230102030405Z\"}}", ""),
         GK5_ERR_DER}, /* renew-till before endtime's place */
        /* flags */
        {EKRP_WITH("79", LASTREQ, "02012a", "", "03{00 40e000}", "", ""),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", "03{08 40e00000}", "", ""),
         GK5_ERR_DER},
        /* caddr, encrypted-pa-data, anything after */
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS, "",
                   "ab{30{30{a1{020102} a2{04{}}}}}"),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS, "",
                   "ac{30{30{a0{020102} a1{04{}}}}}"),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS, "", "ac{30{}}"),
         GK5_OK},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS, "",
                   "ac{30{}} ab{30{}}"),
         GK5_ERR_DER},
        {EKRP_WITH("79", LASTREQ, "02012a", "", EKRP_FLAGS, "", "ad{0500}"),
         GK5_ERR_DER},
        /* missing fields */
        {"79{30{a0{" KEY "} a1{" LASTREQ "} a2{02012a}}}", GK5_ERR_DER},
        {"79{30{}}", GK5_ERR_DER},
        {"79{30{a0{" KEY "} a1{" LASTREQ "} a2{02012a} a4{" EKRP_FLAGS
         "} a5{18{\"20230102030405Z\"}} a7{18{\"20230102130405Z\"}} "
         "aa{" PRINC "}}}",
         GK5_ERR_DER},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect(K_ENC_KDC_REP_PART, cases[i].spec, cases[i].want);
    }
}

/* The walks over PA-DATA and ETYPE-INFO2: empty, malformed, positions. */
static void test_padata_etype_info2(void **state)
{
    struct gk5i_view seq, v;
    struct gk5i_krb_etype_info2 e;
    uint8_t *in;
    size_t n, pos;
    int32_t type;
    bool more;
    static const struct {
        const char *spec;
        uint32_t want; /* of the first step */
        bool more;
    } pa[] = {
        {"30{}", GK5_OK, false},
        {"30{30{a1{020102} a2{04{01}}}}", GK5_OK, true},
        {"30{30{a1{020102}}}", GK5_ERR_DER, false},
        {"30{30{a0{020102} a1{04{}}}}", GK5_ERR_DER, false},
        {"30{30{a1{020102} a2{04{}} a3{04{}}}}", GK5_ERR_DER, false},
        {"30{30{a1{0202ffff} a2{04{}}}}", GK5_ERR_DER, false},
        {"30{} 00", GK5_ERR_DER, false},
        {"31{}", GK5_ERR_DER, false},
        {"30 05 00", GK5_ERR_DER, false},
    };
    static const struct {
        const char *spec;
        uint32_t want;
        bool salt, s2k;
    } ei[] = {
        {"30{30{a0{020112}}}", GK5_OK, false, false},
        {"30{30{a0{020112} a1{1b{\"salt\"}}}}", GK5_OK, true, false},
        {"30{30{a0{020112} a2{04{00001000}}}}", GK5_OK, false, true},
        {"30{30{a0{020112} a1{1b{}} a2{04{00001000}}}}", GK5_OK, true, true},
        {"30{}", GK5_ERR_DER, false, false}, /* SIZE (1..MAX) */
        {"", GK5_ERR_DER, false, false},
        {"30{30{a1{1b{\"salt\"}}}}", GK5_ERR_DER, false, false},
        {"30{30{a0{020112} a2{04{}} a1{1b{}}}}", GK5_ERR_DER, false, false},
        {"30{30{a0{020112} a1{0c{\"salt\"}}}}", GK5_ERR_DER, false, false},
        {"30{30{a0{020112} a3{04{}}}}", GK5_ERR_DER, false, false},
        {"30{05 00}", GK5_ERR_DER, false, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(pa) / sizeof(pa[0]); i++) {
        n = build(pa[i].spec, &in);
        seq.p = in;
        seq.len = n;
        pos = 0;
        assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                         pa[i].want);
        assert_int_equal(more, pa[i].more);
        if (pa[i].want != GK5_OK) {
            assert_int_equal(pos, 0);
            assert_int_equal(type, 0);
            assert_null(v.p);
        } else if (more) {
            assert_int_equal(type, 2);
            assert_int_equal(v.len, 1);
            assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                             GK5_OK);
            assert_false(more);
        }
    }
    for (size_t i = 0; i < sizeof(ei) / sizeof(ei[0]); i++) {
        n = build(ei[i].spec, &in);
        seq.p = n == 0 ? NULL : in;
        seq.len = n;
        pos = 0;
        assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e),
                         ei[i].want);
        if (ei[i].want != GK5_OK) {
            assert_false(more);
            assert_int_equal(e.etype, 0);
            assert_false(e.has_salt);
            continue;
        }
        assert_true(more);
        assert_int_equal(e.etype, 18);
        assert_int_equal(e.has_salt, ei[i].salt);
        assert_int_equal(e.has_s2kparams, ei[i].s2k);
        if (e.has_s2kparams) {
            assert_int_equal(e.s2kparams.len, 4);
        }
        assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e), GK5_OK);
        assert_false(more);
    }

    /* The walk reads one element a step: bytes after the last are found
     * by the step that reaches them. */
    n = build("30{30{a0{020112}} 00}", &in);
    seq.p = in;
    seq.len = n;
    pos = 0;
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e), GK5_OK);
    assert_true(more);
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e), GK5_ERR_DER);
    assert_false(more);
    assert_int_equal(e.etype, 0);
    n = build("30{30{a1{020102} a2{04{}}} 00}", &in);
    seq.p = in;
    seq.len = n;
    pos = 0;
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v), GK5_OK);
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                     GK5_ERR_DER);
    assert_false(more);

    /* An empty view: no PA-DATA; arguments. */
    seq.p = NULL;
    seq.len = 0;
    pos = 0;
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v), GK5_OK);
    assert_false(more);
    seq.len = 1;
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e),
                     GK5_ERR_INVALID_ARGUMENT);
    n = build("30{30{a1{020102} a2{04{01}}}}", &in);
    seq.p = in;
    seq.len = n;
    pos = 1; /* inside the header */
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    pos = n + 1;
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, &e),
                     GK5_ERR_INVALID_ARGUMENT);
    pos = 0;
    assert_int_equal(gk5i_padata_next(seq, NULL, &more, &type, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_padata_next(seq, &pos, NULL, &type, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, NULL, &v),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_etype_info2_next(seq, NULL, &more, &e),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, NULL, &e),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_etype_info2_next(seq, &pos, &more, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    seq.len = GK5I_KRB_MAX_MESSAGE + 1;
    assert_int_equal(gk5i_padata_next(seq, &pos, &more, &type, &v),
                     GK5_ERR_DER_LIMIT);
}

static void sample_kdc_rep(struct gk5i_krb_kdc_rep *r, const uint8_t *padata,
                           size_t padata_len)
{
    memset(r, 0, sizeof(*r));
    r->msg_type = GK5I_KRB_TAG_AS_REP;
    r->padata.p = padata;
    r->padata.len = padata_len;
    r->crealm = V("EXAMPLE.ORG");
    sample_principal(&r->cname, 1, "alice", NULL);
    sample_ticket(&r->ticket);
    r->enc_part.etype = 18;
    r->enc_part.has_kvno = true;
    r->enc_part.kvno = 1;
    r->enc_part.cipher.p = cipher;
    r->enc_part.cipher.len = sizeof(cipher);
}

static void test_round_trip_kdc_rep(void **state)
{
    uint8_t *padata_spec, padata[256], *enc, *enc2;
    size_t np = build(PADATA, &padata_spec), n, n2;
    union msg m, d;

    (void)state;
    memcpy(padata, padata_spec, np);
    sample_kdc_rep(&m.kdc_rep, padata, np);
    enc = encode_checked(K_AS_REP, &m, &n);
    reencode_same(K_AS_REP, enc, n, &d);
    assert_int_equal(d.kdc_rep.msg_type, GK5I_KRB_TAG_AS_REP);
    view_equal(d.kdc_rep.padata, m.kdc_rep.padata);
    view_equal(d.kdc_rep.crealm, m.kdc_rep.crealm);
    principal_equal(&d.kdc_rep.cname, &m.kdc_rep.cname);
    ticket_equal(&d.kdc_rep.ticket, &m.kdc_rep.ticket);
    enc_data_equal(&d.kdc_rep.enc_part, &m.kdc_rep.enc_part);

    /* The Ticket as the KDC's bytes: the same message. */
    m.kdc_rep.ticket_der = d.kdc_rep.ticket_der;
    memset(&m.kdc_rep.ticket, 0, sizeof(m.kdc_rep.ticket));
    enc2 = encode_checked(K_AS_REP, &m, &n2);
    assert_int_equal(n2, n);
    assert_memory_equal(enc2, enc, n);
    free(enc2);

    /* A TGS-REP, no padata: the other tag and msg-type. */
    sample_kdc_rep(&m.kdc_rep, NULL, 0);
    m.kdc_rep.msg_type = GK5I_KRB_TAG_TGS_REP;
    enc2 = encode_checked(K_TGS_REP, &m, &n2);
    assert_int_equal(enc2[0], 0x6d);
    reencode_same(K_TGS_REP, enc2, n2, &d);
    assert_int_equal(d.kdc_rep.padata.len, 0);
    assert_int_equal(decode(K_AS_REP, enc2, n2, &d), GK5_ERR_KRB_MSG_TYPE);
    free(enc2);
    free(enc);

    /* What the decoder would refuse is not encoded. */
    sample_kdc_rep(&m.kdc_rep, padata, np);
    m.kdc_rep.msg_type = GK5I_KRB_TAG_AS_REQ;
    assert_int_equal(gk5i_encode_kdc_rep(&m.kdc_rep, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_rep.msg_type = GK5I_KRB_TAG_AS_REP;
    m.kdc_rep.padata.len = np - 1;
    assert_int_equal(gk5i_encode_kdc_rep(&m.kdc_rep, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_rep.padata.len = np;
    m.kdc_rep.ticket_der = V("\x61\x00");
    assert_int_equal(gk5i_encode_kdc_rep(&m.kdc_rep, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_rep.ticket_der.p = NULL;
    m.kdc_rep.ticket_der.len = 0;
    m.kdc_rep.cname.ncomp = GK5I_KRB_MAX_COMPONENTS + 1;
    assert_int_equal(gk5i_encode_kdc_rep(&m.kdc_rep, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
}

static void sample_ekrp(struct gk5i_krb_enc_kdc_rep_part *e)
{
    gk5i_krb_time t;

    assert_int_equal(parse("20230102030405Z", &t), GK5_OK);
    memset(e, 0, sizeof(*e));
    e->tag = GK5I_KRB_TAG_ENC_AS_REP_PART;
    e->key.keytype = 18;
    e->key.value.p = keyval;
    e->key.value.len = sizeof(keyval);
    e->nonce = 0x7fffffff;
    e->flags = GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT;
    e->authtime = t;
    e->endtime = t + 36000;
    e->srealm = V("EXAMPLE.ORG");
    sample_principal(&e->sname, 2, "krbtgt", "EXAMPLE.ORG");
}

static void test_round_trip_enc_kdc_rep_part(void **state)
{
    uint8_t *spec, lastreq[64], caddr[64], epa[64], *enc;
    size_t nl, nc, ne, n;
    union msg m, d;
    struct gk5i_krb_enc_kdc_rep_part *e = &m.ekrp, *g = &d.ekrp;

    (void)state;
    nl = build(LASTREQ, &spec);
    memcpy(lastreq, spec, nl);
    nc = build("30{30{a0{020102} a1{04{7f000001}}}}", &spec);
    memcpy(caddr, spec, nc);
    ne = build("30{30{a1{02020095} a2{04{0102}}}}", &spec);
    memcpy(epa, spec, ne);

    /* No LastReq given: the empty one goes out. */
    sample_ekrp(e);
    enc = encode_checked(K_ENC_KDC_REP_PART, &m, &n);
    reencode_same(K_ENC_KDC_REP_PART, enc, n, &d);
    assert_int_equal(g->last_req.len, 2); /* the LastReq, 30 00 */
    assert_memory_equal(g->last_req.p, "\x30\x00", 2);
    assert_int_equal(g->nonce, 0x7fffffff);
    key_equal(&g->key, &e->key);
    free(enc);

    /* Every field. */
    e->tag = GK5I_KRB_TAG_ENC_TGS_REP_PART;
    e->last_req.p = lastreq;
    e->last_req.len = nl;
    e->nonce = 0xffffffffu;
    e->has_key_expiration = true;
    e->key_expiration = e->authtime + 86400 * 90;
    e->has_starttime = true;
    e->starttime = e->authtime + 1;
    e->has_renew_till = true;
    e->renew_till = e->authtime + 86400 * 7;
    e->caddr.p = caddr;
    e->caddr.len = nc;
    e->encrypted_pa_data.p = epa;
    e->encrypted_pa_data.len = ne;
    enc = encode_checked(K_ENC_KDC_REP_PART, &m, &n);
    reencode_same(K_ENC_KDC_REP_PART, enc, n, &d);
    assert_int_equal(g->tag, GK5I_KRB_TAG_ENC_TGS_REP_PART);
    view_equal(g->last_req, e->last_req);
    assert_int_equal(g->nonce, 0xffffffffu);
    assert_true(g->has_key_expiration);
    assert_int_equal(g->key_expiration, e->key_expiration);
    assert_int_equal(g->flags, e->flags);
    assert_int_equal(g->starttime, e->starttime);
    assert_int_equal(g->renew_till, e->renew_till);
    assert_int_equal(g->endtime, e->endtime);
    view_equal(g->srealm, e->srealm);
    principal_equal(&g->sname, &e->sname);
    view_equal(g->caddr, e->caddr);
    view_equal(g->encrypted_pa_data, e->encrypted_pa_data);
    free(enc);

    /* Refused: a tag of neither, a LastReq, HostAddresses or
     * encrypted-pa-data that is not one, a time out of range. */
    e->tag = GK5I_KRB_TAG_ENC_AP_REP_PART;
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    e->tag = GK5I_KRB_TAG_ENC_AS_REP_PART;
    e->last_req.len = nl - 1;
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    e->last_req.p = caddr; /* [0] Int32, [1] OCTET STRING: no time */
    e->last_req.len = nc;
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    e->last_req.p = lastreq;
    e->last_req.len = nl;
    e->caddr.len = nc - 1;
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    e->caddr.len = nc;
    e->encrypted_pa_data.p = caddr;
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    e->encrypted_pa_data.p = epa;
    e->key_expiration = 253402300800; /* year 10000 */
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(e, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_enc_kdc_rep_part(NULL, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
}

/* The requests gk5 sends, against RFC 4120 5.4.1 written out by hand. */
#define REQ_BODY                                                               \
    "30{a0{03{00 40800010}} a1{30{a0{020101} a1{30{1b{\"alice\"}}}}} "         \
    "a2{1b{\"EXAMPLE.ORG\"}} "                                                 \
    "a3{30{a0{020102} a1{30{1b{\"krbtgt\"} 1b{\"EXAMPLE.ORG\"}}}}} "           \
    "a5{18{\"20230102130405Z\"}} a6{18{\"20230109030405Z\"}} "                 \
    "a7{02{12345678}} a8{30{020112 020111 020114}}}"
#define PA_TS_ENC "30{a0{18{\"20230102030405Z\"}} a1{02{01e240}}}"
#define PA_TS_DATA "30{a0{020112} a2{04{deadbeef0001}}}"

static void sample_req_body(struct gk5i_krb_kdc_req_body *b)
{
    gk5i_krb_time t;

    assert_int_equal(parse("20230102030405Z", &t), GK5_OK);
    memset(b, 0, sizeof(*b));
    b->kdc_options = GK5I_KDC_OPT_FORWARDABLE | GK5I_KDC_OPT_RENEWABLE |
                     GK5I_KDC_OPT_RENEWABLE_OK;
    b->has_cname = true;
    sample_principal(&b->cname, 1, "alice", NULL);
    b->realm = V("EXAMPLE.ORG");
    b->has_sname = true;
    sample_principal(&b->sname, 2, "krbtgt", "EXAMPLE.ORG");
    b->till = t + 36000;
    b->has_rtime = true;
    b->rtime = t + 7 * 86400;
    b->nonce = 0x12345678;
    b->n_etypes = 3;
    b->etypes[0] = 18;
    b->etypes[1] = 17;
    b->etypes[2] = 20;
}

static void test_kdc_req(void **state)
{
    uint8_t *want, *enc, *body, ts[64], pa[64];
    size_t nwant, n, nbody, nts, npa, got;
    union msg m, e;
    gk5i_krb_time t;

    (void)state;
    assert_int_equal(parse("20230102030405Z", &t), GK5_OK);

    /* PA-ENC-TS-ENC, then the EncryptedData that carries it. */
    assert_int_equal(gk5i_encode_pa_enc_ts_enc(t, 123456, NULL, 0, &nts),
                     GK5_OK);
    assert_int_equal(gk5i_encode_pa_enc_ts_enc(t, 123456, ts, nts - 1, &got),
                     GK5_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(got, nts);
    assert_int_equal(gk5i_encode_pa_enc_ts_enc(t, 123456, ts, sizeof(ts), &got),
                     GK5_OK);
    nwant = build(PA_TS_ENC, &want);
    assert_int_equal(got, nwant);
    assert_memory_equal(ts, want, nwant);
    assert_int_equal(gk5i_encode_pa_enc_ts_enc(t, 1000000, ts, sizeof(ts), &n),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        gk5i_encode_pa_enc_ts_enc(-62167219201, 0, ts, sizeof(ts), &n),
        GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_pa_enc_ts_enc(t, 0, ts, sizeof(ts), NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    memset(&e, 0, sizeof(e));
    e.enc_data.etype = 18;
    e.enc_data.cipher.p = cipher;
    e.enc_data.cipher.len = sizeof(cipher);
    enc = encode_checked(K_ENC_DATA, &e, &npa);
    nwant = build(PA_TS_DATA, &want);
    assert_int_equal(npa, nwant);
    assert_memory_equal(enc, want, nwant);
    memcpy(pa, enc, npa);
    free(enc);

    /* KDC-REQ-BODY alone. */
    sample_req_body(&m.body);
    body = encode_checked(K_KDC_REQ_BODY, &m, &nbody);
    nwant = build(REQ_BODY, &want);
    assert_int_equal(nbody, nwant);
    assert_memory_equal(body, want, nwant);

    /* AS-REQ: pvno [1], msg-type [2], padata [3], req-body [4]. */
    memset(&m, 0, sizeof(m));
    m.kdc_req.msg_type = GK5I_KRB_TAG_AS_REQ;
    m.kdc_req.n_padata = 2;
    m.kdc_req.padata[0].type = GK5I_PA_ENC_TIMESTAMP;
    m.kdc_req.padata[0].value.p = pa;
    m.kdc_req.padata[0].value.len = npa;
    m.kdc_req.padata[1].type = 149; /* REQ-ENC-PA-REP, empty */
    sample_req_body(&m.kdc_req.body);
    enc = encode_checked(K_KDC_REQ, &m, &n);
    nwant = build(
        "6a{30{a1{020105} a2{02010a} a3{30{30{a1{020102} a2{04{" PA_TS_DATA
        "}}} 30{a1{020200 95} a2{04{}}}}} a4{" REQ_BODY "}}}",
        &want);
    assert_int_equal(n, nwant);
    assert_memory_equal(enc, want, nwant);
    free(enc);

    /* TGS-REQ with the body's bytes given: the same as the body encoded. */
    m.kdc_req.msg_type = GK5I_KRB_TAG_TGS_REQ;
    m.kdc_req.n_padata = 1;
    m.kdc_req.body.has_cname = false;
    m.kdc_req.body.has_rtime = false;
    m.kdc_req.body.has_from = true;
    m.kdc_req.body.from = t;
    enc = encode_checked(K_KDC_REQ, &m, &n);
    assert_int_equal(enc[0], 0x6c);
    free(body);
    e.body = m.kdc_req.body;
    body = encode_checked(K_KDC_REQ_BODY, &e, &nbody);
    m.kdc_req.body_der.p = body;
    m.kdc_req.body_der.len = nbody;
    memset(&m.kdc_req.body, 0, sizeof(m.kdc_req.body)); /* not looked at */
    {
        size_t n2;
        uint8_t *enc2 = encode_checked(K_KDC_REQ, &m, &n2);

        assert_int_equal(n2, n);
        assert_memory_equal(enc2, enc, n);
        free(enc2);
    }
    /* No padata: no [3]. */
    m.kdc_req.n_padata = 0;
    free(enc);
    enc = encode_checked(K_KDC_REQ, &m, &n);
    {
        struct gk5i_rd r, app, seq, f;

        gk5i_rd_init(&r, enc, n);
        gk5i_der_enter(&r, GK5I_DER_APP(GK5I_KRB_TAG_TGS_REQ), &app);
        gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
        gk5i_der_enter(&seq, GK5I_DER_CTX(1), &f);
        gk5i_der_enter(&seq, GK5I_DER_CTX(2), &f);
        assert_true(gk5i_der_peek(&seq, GK5I_DER_CTX(4)));
    }
    free(enc);

    /* Refused. */
    m.kdc_req.body_der.len = nbody - 1; /* not one SEQUENCE */
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.body_der.len = 0;
    sample_req_body(&m.kdc_req.body);
    m.kdc_req.msg_type = GK5I_KRB_TAG_AS_REP;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.msg_type = GK5I_KRB_TAG_AS_REQ;
    m.kdc_req.n_padata = GK5I_KRB_MAX_PADATA + 1;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.n_padata = 1;
    m.kdc_req.padata[0].value.p = NULL;
    m.kdc_req.padata[0].value.len = 3;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.n_padata = 0;
    m.kdc_req.body.n_etypes = 0;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.body.n_etypes = GK5I_KRB_MAX_ETYPES + 1;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.body.n_etypes = GK5I_KRB_MAX_ETYPES;
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n), GK5_OK);
    m.kdc_req.body.nonce = 0x80000000u; /* MIT's KDC reads an Int32 */
    assert_int_equal(gk5i_encode_kdc_req(&m.kdc_req, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    m.kdc_req.body.nonce = 1;
    m.kdc_req.body.till = 253402300800;
    assert_int_equal(gk5i_encode_kdc_req_body(&m.kdc_req.body, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_kdc_req(NULL, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_enc_data(NULL, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    free(body);
}

/* Every prefix of a valid AS-REP and EncKDCRepPart is refused; every
 * one-bit change is answered without a crash. */
static void test_truncation_kdc(void **state)
{
    static const enum kind kinds[] = {K_AS_REP, K_ENC_KDC_REP_PART};
    static const char *const specs[] = {AS_REP, EKRP};
    union msg d;

    (void)state;
    for (size_t k = 0; k < 2; k++) {
        uint8_t *in, *copy;
        size_t n = build(specs[k], &in);

        for (size_t len = 0; len < n; len++) {
            copy = malloc(len == 0 ? 1 : len);
            assert_non_null(copy);
            memcpy(copy, in, len);
            assert_int_not_equal(decode(kinds[k], copy, len, &d), GK5_OK);
            free(copy);
        }
        copy = malloc(n);
        assert_non_null(copy);
        memcpy(copy, in, n);
        for (size_t i = 0; i < n; i++) {
            for (unsigned bit = 0; bit < 8; bit++) {
                copy[i] ^= (uint8_t)(1u << bit);
                (void)!decode(kinds[k], copy, n, &d);
                copy[i] ^= (uint8_t)(1u << bit);
            }
        }
        free(copy);
    }
}

static void test_arguments(void **state)
{
    union msg m;
    size_t n = 7;

    (void)state;
    assert_int_equal(gk5i_decode_ap_req(NULL, 5, &m.ap_req),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_decode_ap_req((const uint8_t *)"", 0, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_ap_rep(NULL, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(n, 0);
    memset(&m, 0, sizeof(m));
    assert_int_equal(gk5i_encode_ap_rep(&m.ap_rep, NULL, 0, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_encode_etype_list_ad(NULL, 2, NULL, 0, &n),
                     GK5_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_primitives),
        cmocka_unit_test(test_known_ap_rep),
        cmocka_unit_test(test_known_ap_req),
        cmocka_unit_test(test_known_krb_error),
        cmocka_unit_test(test_negative_seq_number),
        cmocka_unit_test(test_round_trip_ticket),
        cmocka_unit_test(test_round_trip_enc_tkt_part),
        cmocka_unit_test(test_round_trip_authenticator),
        cmocka_unit_test(test_round_trip_ap_req),
        cmocka_unit_test(test_round_trip_ap_rep),
        cmocka_unit_test(test_round_trip_enc_ap_rep_part),
        cmocka_unit_test(test_round_trip_krb_error),
        cmocka_unit_test(test_etype_list_ad),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_refusals_enc_tkt_part),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_known_kdc_rep),
        cmocka_unit_test(test_refusals_kdc_rep),
        cmocka_unit_test(test_known_enc_kdc_rep_part),
        cmocka_unit_test(test_refusals_enc_kdc_rep_part),
        cmocka_unit_test(test_padata_etype_info2),
        cmocka_unit_test(test_round_trip_kdc_rep),
        cmocka_unit_test(test_round_trip_enc_kdc_rep_part),
        cmocka_unit_test(test_kdc_req),
        cmocka_unit_test(test_truncation_kdc),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
