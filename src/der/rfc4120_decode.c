/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Strict DER decoders for the RFC 4120 messages of rfc4120.h.
 *
 * One decoder per type, each reading one value of its type from a bounded
 * reader.  `depth` is the number of constructed values around the one the
 * decoder reads; each decoder knows how deep its own type goes (the
 * LEVELS it opens on its deepest path) and refuses, before reading, when
 * that would pass GK5I_DER_MAX_DEPTH.  RFC 4120 gives these types a fixed
 * shape, so the depth of a message is bounded by its type (an AP-REQ
 * reaches 9); the check keeps the bound stated, should a recursive type
 * ever be added.
 *
 * Malformed DER sets the reader's sticky `bad` (der.h); a decoder turns
 * that into GK5_ERR_DER when it returns.  The other answers travel as
 * return values and are combined with worst(): a limit passed is the
 * cause of whatever went wrong after it, and a wrong pvno, msg-type or
 * vno is reported only for a message that is otherwise well-formed.
 */
#include <string.h>

#include "der.h"
#include "rfc4120.h"

/* RFC 4120 5.2.4: Microseconds ::= INTEGER (0..999999). */
#define KRB_USEC_MAX 999999
#define KRB_PVNO 5

static bool too_deep(unsigned depth, unsigned levels)
{
    return depth + levels > GK5I_DER_MAX_DEPTH;
}

static int rank(uint32_t ret)
{
    switch (ret) {
    case GK5_OK:
        return 0;
    case GK5_ERR_KRB_MSG_TYPE:
        return 1;
    case GK5_ERR_DER:
        return 2;
    default: /* GK5_ERR_DER_LIMIT */
        return 3;
    }
}

static uint32_t worst(uint32_t a, uint32_t b)
{
    return rank(b) > rank(a) ? b : a;
}

/* The answer of a decoder whose reader is r: ret, unless r went bad. */
static uint32_t finish(const struct gk5i_rd *r, uint32_t ret)
{
    return worst(ret, r->bad ? GK5_ERR_DER : GK5_OK);
}

/* ---- KerberosTime (RFC 4120 5.2.3) ---- */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar:
 * counted in 400-year eras from a year that starts in March, so the leap
 * day is the last day of its year. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool leap_year(unsigned y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* n decimal digits, or -1. */
static int digits(const uint8_t *s, size_t n)
{
    int v = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* RFC 4120 5.2.3: KerberosTime is a GeneralizedTime "YYYYMMDDHHMMSSZ",
 * UTC with no fraction, and never the leap second's 60. */
uint32_t gk5i_krb_time_parse(const uint8_t *s, size_t len, gk5i_krb_time *t)
{
    static const uint8_t mdays[12] = {31, 28, 31, 30, 31, 30,
                                      31, 31, 30, 31, 30, 31};
    int year, mon, day, hour, min, sec;

    if (t == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *t = 0;
    if (s == NULL || len != 15 || s[14] != 'Z') {
        return s == NULL && len != 0 ? GK5_ERR_INVALID_ARGUMENT : GK5_ERR_DER;
    }
    year = digits(s, 4);
    mon = digits(s + 4, 2);
    day = digits(s + 6, 2);
    hour = digits(s + 8, 2);
    min = digits(s + 10, 2);
    sec = digits(s + 12, 2);
    if (year < 0 || mon < 1 || mon > 12 || day < 1 || hour < 0 || hour > 23 ||
        min < 0 || min > 59 || sec < 0 || sec > 59) {
        return GK5_ERR_DER;
    }
    if (day > mdays[mon - 1] + (mon == 2 && leap_year((unsigned)year))) {
        return GK5_ERR_DER;
    }
    *t = days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 +
         hour * 3600 + min * 60 + sec;
    return GK5_OK;
}

uint32_t gk5i_krb_time_format(gk5i_krb_time t, uint8_t out[15])
{
    int64_t days, secs, year;
    unsigned mon, day;
    unsigned f[6];

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(out, '0', 15);
    days = t / 86400;
    secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    civil_from_days(days, &year, &mon, &day);
    if (year < 0 || year > 9999) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    f[0] = (unsigned)year / 100;
    f[1] = (unsigned)year % 100;
    f[2] = mon;
    f[3] = day;
    f[4] = (unsigned)(secs / 3600);
    f[5] = (unsigned)(secs / 60 % 60);
    for (size_t i = 0; i < 6; i++) {
        out[2 * i] = (uint8_t)('0' + f[i] / 10);
        out[2 * i + 1] = (uint8_t)('0' + f[i] % 10);
    }
    out[12] = (uint8_t)('0' + secs % 60 / 10);
    out[13] = (uint8_t)('0' + secs % 10);
    out[14] = 'Z';
    return GK5_OK;
}

/* ---- fields ---- */

static int64_t get_int_field(struct gk5i_rd *r, unsigned n, int64_t min,
                             int64_t max)
{
    struct gk5i_rd f;
    int64_t v;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    v = gk5i_der_get_int(&f, min, max);
    gk5i_der_leave(r, &f);
    return v;
}

/* RFC 4120 5.2.4: Int32. */
static int32_t get_int32_field(struct gk5i_rd *r, unsigned n)
{
    return (int32_t)get_int_field(r, n, INT32_MIN, INT32_MAX);
}

/* RFC 4120 5.2.4: UInt32 (kvno). */
static uint32_t get_uint32_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)get_int_field(r, n, 0, UINT32_MAX);
}

static uint32_t get_usec_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)get_int_field(r, n, 0, KRB_USEC_MAX);
}

/* seq-number is a UInt32 (RFC 4120 5.5.1), but old Heimdal and Windows
 * send it as an Int32, negative from 2^31 on; MIT reads those as the
 * UInt32 with the same 32 bits, and so does gk5. */
static uint32_t get_seq_number_field(struct gk5i_rd *r, unsigned n)
{
    return (uint32_t)(int64_t)get_int_field(r, n, INT32_MIN, UINT32_MAX);
}

static struct gk5i_view get_prim_field(struct gk5i_rd *r, unsigned n,
                                       uint8_t tag)
{
    struct gk5i_rd f;
    struct gk5i_view v;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    v.p = gk5i_der_get_prim(&f, tag, &v.len);
    gk5i_der_leave(r, &f);
    return v;
}

static gk5i_krb_time get_time_field(struct gk5i_rd *r, unsigned n)
{
    struct gk5i_view v = get_prim_field(r, n, GK5I_DER_GENERALIZED_TIME);
    gk5i_krb_time t = 0;

    if (!r->bad && gk5i_krb_time_parse(v.p, v.len, &t) != GK5_OK) {
        gk5i_der_refuse(r);
    }
    return t;
}

/*
 * KerberosFlags (RFC 4120 5.2.8): BIT STRING (SIZE (32..MAX)), "no fewer
 * than 32" bits.  MIT, Heimdal (its compiler's rfc1510 bit string option)
 * and Windows all send exactly 32: 05 contents octets, 00 unused bits.
 * gk5 takes what the RFC allows, 32 bits or more, and refuses fewer, which
 * no known peer sends.  The unused-bits octet is 0..7 and the bits it
 * covers are zero (X.690 11.2.1); bits past the 32nd name no flag gk5
 * knows and are dropped, so a longer string re-encodes as 32 bits.
 */
static uint32_t get_flags_field(struct gk5i_rd *r, unsigned n)
{
    struct gk5i_view v = get_prim_field(r, n, GK5I_DER_BIT_STRING);
    unsigned unused;

    if (r->bad || v.len < 5) {
        gk5i_der_refuse(r);
        return 0;
    }
    unused = v.p[0];
    if (unused > 7 || (v.len - 1) * 8 - unused < 32 ||
        (v.p[v.len - 1] & ((1u << unused) - 1)) != 0) {
        gk5i_der_refuse(r);
        return 0;
    }
    return load_be32(v.p + 1);
}

/* ---- types ---- */

/*
 * The shape RFC 4120 gives five types: SEQUENCE { [0] Int32, [1] OCTET
 * STRING } is EncryptionKey and Checksum (5.2.9), TransitedEncoding (5.3),
 * HostAddress (5.2.5) and an AuthorizationData element (5.2.6).  LEVELS 2.
 */
static uint32_t decode_type_and_octets(struct gk5i_rd *r, unsigned depth,
                                       int32_t *type, struct gk5i_view *value)
{
    struct gk5i_rd seq;

    if (too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    *type = get_int32_field(&seq, 0);
    *value = get_prim_field(&seq, 1, GK5I_DER_OCTET_STRING);
    gk5i_der_leave(r, &seq);
    return finish(r, GK5_OK);
}

/* HostAddresses (5.2.5) and AuthorizationData (5.2.6): a SEQUENCE OF that
 * shape, checked and returned whole (tag and length included).  LEVELS 3. */
static uint32_t decode_type_and_octets_list(struct gk5i_rd *r, unsigned depth,
                                            struct gk5i_view *whole)
{
    const uint8_t *start = r->p;
    struct gk5i_rd seq;
    uint32_t ret = GK5_OK;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    while (ret == GK5_OK && gk5i_rd_left(&seq) > 0) {
        int32_t type;
        struct gk5i_view value;

        ret = decode_type_and_octets(&seq, depth + 1, &type, &value);
    }
    gk5i_der_leave(r, &seq);
    ret = finish(r, ret);
    if (ret == GK5_OK) {
        whole->p = start;
        whole->len = (size_t)(r->p - start);
    }
    return ret;
}

/* PrincipalName (RFC 4120 5.2.2).  LEVELS 3. */
static uint32_t decode_principal(struct gk5i_rd *r, unsigned depth,
                                 struct gk5i_krb_principal *out)
{
    struct gk5i_rd seq, f, names;
    uint32_t ret = GK5_OK;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->name_type = get_int32_field(&seq, 0);
    gk5i_der_enter(&seq, GK5I_DER_CTX(1), &f);
    gk5i_der_enter(&f, GK5I_DER_SEQUENCE, &names);
    while (gk5i_rd_left(&names) > 0) {
        struct gk5i_view *c;

        if (out->ncomp == GK5I_KRB_MAX_COMPONENTS) {
            ret = GK5_ERR_DER_LIMIT;
            break;
        }
        c = &out->comp[out->ncomp++];
        c->p = gk5i_der_get_prim(&names, GK5I_DER_GENERAL_STRING, &c->len);
    }
    gk5i_der_leave(&f, &names);
    gk5i_der_leave(&seq, &f);
    gk5i_der_leave(r, &seq);
    return finish(r, ret);
}

/* EncryptedData (RFC 4120 5.2.9).  LEVELS 2. */
static uint32_t decode_enc_data(struct gk5i_rd *r, unsigned depth,
                                struct gk5i_krb_enc_data *out)
{
    struct gk5i_rd seq;

    if (too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->etype = get_int32_field(&seq, 0);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(1))) {
        out->has_kvno = true;
        out->kvno = get_uint32_field(&seq, 1);
    }
    out->cipher = get_prim_field(&seq, 2, GK5I_DER_OCTET_STRING);
    gk5i_der_leave(r, &seq);
    return finish(r, GK5_OK);
}

/* The [n] EXPLICIT around a sub-type: opens f, the decoder reads inside. */
static uint32_t decode_key_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                                 struct gk5i_krb_key *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_type_and_octets(&f, depth + 1, &out->keytype, &out->value);
    gk5i_der_leave(r, &f);
    return ret;
}

static uint32_t decode_principal_field(struct gk5i_rd *r, unsigned depth,
                                       unsigned n,
                                       struct gk5i_krb_principal *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_principal(&f, depth + 1, out);
    gk5i_der_leave(r, &f);
    return ret;
}

static uint32_t decode_enc_data_field(struct gk5i_rd *r, unsigned depth,
                                      unsigned n, struct gk5i_krb_enc_data *out)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_enc_data(&f, depth + 1, out);
    gk5i_der_leave(r, &f);
    return ret;
}

static uint32_t decode_list_field(struct gk5i_rd *r, unsigned depth, unsigned n,
                                  struct gk5i_view *whole)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_type_and_octets_list(&f, depth + 1, whole);
    gk5i_der_leave(r, &f);
    return ret;
}

/* INTEGER (5) or (msg-type): a wrong value, well-formed, is a message of
 * another kind or version (GK5_ERR_KRB_MSG_TYPE), not bad DER -- also one
 * outside Int32 (up to 64 bits), which MIT's decoders read and ignore for
 * msg-type. */
static uint32_t check_int_field(struct gk5i_rd *r, unsigned n, int32_t want)
{
    int64_t v = get_int_field(r, n, INT64_MIN, INT64_MAX);

    return !r->bad && v != want ? GK5_ERR_KRB_MSG_TYPE : GK5_OK;
}

/* Ticket (RFC 4120 5.3).  LEVELS 3, the sub-types below. */
static uint32_t decode_ticket(struct gk5i_rd *r, unsigned depth,
                              struct gk5i_krb_ticket *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_TICKET), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO); /* tkt-vno */
    out->realm = get_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 2, &out->sname));
    ret = worst(ret, decode_enc_data_field(&seq, depth + 2, 3, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* EncTicketPart (RFC 4120 5.3).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_tkt_part(struct gk5i_rd *r, unsigned depth,
                                    struct gk5i_krb_enc_tkt_part *out)
{
    struct gk5i_rd app, seq, f;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_TKT_PART), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    out->flags = get_flags_field(&seq, 0);
    ret = decode_key_field(&seq, depth + 2, 1, &out->key);
    out->crealm = get_prim_field(&seq, 2, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 3, &out->cname));
    gk5i_der_enter(&seq, GK5I_DER_CTX(4), &f);
    ret = worst(ret, decode_type_and_octets(&f, depth + 3, &out->transited_type,
                                            &out->transited_contents));
    gk5i_der_leave(&seq, &f);
    out->authtime = get_time_field(&seq, 5);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(6))) {
        out->has_starttime = true;
        out->starttime = get_time_field(&seq, 6);
    }
    out->endtime = get_time_field(&seq, 7);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        out->has_renew_till = true;
        out->renew_till = get_time_field(&seq, 8);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(9))) {
        ret = worst(ret, decode_list_field(&seq, depth + 2, 9, &out->caddr));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(10))) {
        ret = worst(ret, decode_list_field(&seq, depth + 2, 10,
                                           &out->authorization_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* Authenticator (RFC 4120 5.5.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_authenticator(struct gk5i_rd *r, unsigned depth,
                                     struct gk5i_krb_authenticator *out)
{
    struct gk5i_rd app, seq, f;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AUTHENTICATOR), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO); /* authenticator-vno */
    out->crealm = get_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 2, &out->cname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_cksum = true;
        gk5i_der_enter(&seq, GK5I_DER_CTX(3), &f);
        ret = worst(ret,
                    decode_type_and_octets(&f, depth + 3, &out->cksum.cksumtype,
                                           &out->cksum.value));
        gk5i_der_leave(&seq, &f);
    }
    out->cusec = get_usec_field(&seq, 4);
    out->ctime = get_time_field(&seq, 5);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(6))) {
        out->has_subkey = true;
        ret = worst(ret, decode_key_field(&seq, depth + 2, 6, &out->subkey));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(7))) {
        out->has_seq_number = true;
        out->seq_number = get_seq_number_field(&seq, 7);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        ret = worst(ret, decode_list_field(&seq, depth + 2, 8,
                                           &out->authorization_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* AP-REQ (RFC 4120 5.5.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_ap_req(struct gk5i_rd *r, unsigned depth,
                              struct gk5i_krb_ap_req *out)
{
    struct gk5i_rd app, seq, f;
    const uint8_t *start;
    uint32_t ret, tret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AP_REQ), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO);
    ret = worst(ret, check_int_field(&seq, 1, GK5I_KRB_TAG_AP_REQ));
    out->ap_options = get_flags_field(&seq, 2);
    gk5i_der_enter(&seq, GK5I_DER_CTX(3), &f);
    start = f.p;
    tret = decode_ticket(&f, depth + 3, &out->ticket);
    if (tret == GK5_OK || tret == GK5_ERR_KRB_MSG_TYPE) {
        out->ticket_der.p = start;
        out->ticket_der.len = (size_t)(f.p - start);
    }
    ret = worst(ret, tret);
    gk5i_der_leave(&seq, &f);
    ret = worst(ret,
                decode_enc_data_field(&seq, depth + 2, 4, &out->authenticator));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* AP-REP (RFC 4120 5.5.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_ap_rep(struct gk5i_rd *r, unsigned depth,
                              struct gk5i_krb_ap_rep *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_AP_REP), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO);
    ret = worst(ret, check_int_field(&seq, 1, GK5I_KRB_TAG_AP_REP));
    ret = worst(ret, decode_enc_data_field(&seq, depth + 2, 2, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* EncAPRepPart (RFC 4120 5.5.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_ap_rep_part(struct gk5i_rd *r, unsigned depth,
                                       struct gk5i_krb_enc_ap_rep_part *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret = GK5_OK;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_AP_REP_PART), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    out->ctime = get_time_field(&seq, 0);
    out->cusec = get_usec_field(&seq, 1);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_subkey = true;
        ret = decode_key_field(&seq, depth + 2, 2, &out->subkey);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_seq_number = true;
        out->seq_number = get_seq_number_field(&seq, 3);
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* KRB-ERROR (RFC 4120 5.9.1).  LEVELS 3, the sub-types below. */
static uint32_t decode_krb_error(struct gk5i_rd *r, unsigned depth,
                                 struct gk5i_krb_error *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_APP(GK5I_KRB_TAG_ERROR), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO);
    ret = worst(ret, check_int_field(&seq, 1, GK5I_KRB_TAG_ERROR));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_ctime = true;
        out->ctime = get_time_field(&seq, 2);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_cusec = true;
        out->cusec = get_usec_field(&seq, 3);
    }
    out->stime = get_time_field(&seq, 4);
    out->susec = get_usec_field(&seq, 5);
    out->error_code = get_int32_field(&seq, 6);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(7))) {
        out->has_crealm = true;
        out->crealm = get_prim_field(&seq, 7, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        out->has_cname = true;
        ret =
            worst(ret, decode_principal_field(&seq, depth + 2, 8, &out->cname));
    }
    out->realm = get_prim_field(&seq, 9, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 10, &out->sname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(11))) {
        out->has_e_text = true;
        out->e_text = get_prim_field(&seq, 11, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(12))) {
        out->has_e_data = true;
        out->e_data = get_prim_field(&seq, 12, GK5I_DER_OCTET_STRING);
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* ---- the KDC exchanges (RFC 4120 5.4, 5.2.7) ---- */

/* PA-DATA (RFC 4120 5.2.7): SEQUENCE { padata-type [1] Int32,
 * padata-value [2] OCTET STRING } -- the tags start at 1.  LEVELS 2. */
static uint32_t decode_pa_data(struct gk5i_rd *r, unsigned depth, int32_t *type,
                               struct gk5i_view *value)
{
    struct gk5i_rd seq;

    if (too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    *type = get_int32_field(&seq, 1);
    *value = get_prim_field(&seq, 2, GK5I_DER_OCTET_STRING);
    gk5i_der_leave(r, &seq);
    return finish(r, GK5_OK);
}

/* SEQUENCE OF PA-DATA (METHOD-DATA, a KDC-REP's padata, RFC 6806's
 * encrypted-pa-data), checked and returned whole.  Empty is allowed: the
 * ASN.1 gives no SIZE.  LEVELS 3. */
static uint32_t decode_pa_data_list(struct gk5i_rd *r, unsigned depth,
                                    struct gk5i_view *whole)
{
    const uint8_t *at = r->p;
    struct gk5i_rd seq;
    uint32_t ret = GK5_OK;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    while (ret == GK5_OK && gk5i_rd_left(&seq) > 0) {
        int32_t type;
        struct gk5i_view value;

        ret = decode_pa_data(&seq, depth + 1, &type, &value);
    }
    gk5i_der_leave(r, &seq);
    ret = finish(r, ret);
    if (ret == GK5_OK) {
        whole->p = at;
        whole->len = (size_t)(r->p - at);
    }
    return ret;
}

static uint32_t decode_pa_data_list_field(struct gk5i_rd *r, unsigned depth,
                                          unsigned n, struct gk5i_view *whole)
{
    struct gk5i_rd f;
    uint32_t ret;

    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    ret = decode_pa_data_list(&f, depth + 1, whole);
    gk5i_der_leave(r, &f);
    return ret;
}

/* LastReq (RFC 4120 5.4.2): SEQUENCE OF SEQUENCE { lr-type [0] Int32,
 * lr-value [1] KerberosTime }, checked and returned whole.  LEVELS 4 (the
 * time's [1] inside the element inside the SEQUENCE OF). */
static uint32_t decode_last_req_field(struct gk5i_rd *r, unsigned depth,
                                      unsigned n, struct gk5i_view *whole)
{
    struct gk5i_rd f, list, elem;
    const uint8_t *at;

    if (too_deep(depth, 4)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_CTX(n), &f);
    at = f.p;
    gk5i_der_enter(&f, GK5I_DER_SEQUENCE, &list);
    while (gk5i_rd_left(&list) > 0) {
        gk5i_der_enter(&list, GK5I_DER_SEQUENCE, &elem);
        (void)get_int32_field(&elem, 0);
        (void)get_time_field(&elem, 1);
        gk5i_der_leave(&list, &elem);
    }
    gk5i_der_leave(&f, &list);
    if (!f.bad) {
        whole->p = at;
        whole->len = (size_t)(f.p - at);
    }
    gk5i_der_leave(r, &f);
    return finish(r, GK5_OK);
}

/*
 * The nonce (RFC 4120 5.4.1) is a UInt32, but MIT's KDC reads and echoes
 * it as an Int32 (krb5_int32): a nonce of 2^31 or more, should a client
 * send one, comes back negative.  Read as the seq-number is: the UInt32
 * with the same 32 bits.
 */
static uint32_t get_nonce_field(struct gk5i_rd *r, unsigned n)
{
    return get_seq_number_field(r, n);
}

/* The [APPLICATION n] of a reply that is not the one expected: a
 * well-formed value of another message (a KRB-ERROR, the other reply) is
 * GK5_ERR_KRB_MSG_TYPE, anything else bad DER. */
static uint32_t other_message(struct gk5i_rd *r)
{
    uint8_t tag = gk5i_rd_left(r) > 0 ? r->p[0] : 0;
    struct gk5i_rd in;

    if ((tag & 0xe0) != 0x60 || (tag & 0x1f) == 0x1f) {
        gk5i_der_refuse(r);
        return finish(r, GK5_OK);
    }
    gk5i_der_enter(r, tag, &in);
    return finish(r, GK5_ERR_KRB_MSG_TYPE);
}

/* AS-REP / TGS-REP (RFC 4120 5.4.2).  LEVELS 3, the sub-types below. */
static uint32_t decode_kdc_rep(struct gk5i_rd *r, unsigned depth,
                               int32_t msg_type, struct gk5i_krb_kdc_rep *out)
{
    struct gk5i_rd app, seq, f;
    const uint8_t *at;
    uint32_t ret, tret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    if (!gk5i_der_peek(r, GK5I_DER_APP(msg_type))) {
        return other_message(r);
    }
    gk5i_der_enter(r, GK5I_DER_APP(msg_type), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = check_int_field(&seq, 0, KRB_PVNO);
    ret = worst(ret, check_int_field(&seq, 1, msg_type));
    out->msg_type = msg_type;
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        ret = worst(
            ret, decode_pa_data_list_field(&seq, depth + 2, 2, &out->padata));
    }
    out->crealm = get_prim_field(&seq, 3, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 4, &out->cname));
    gk5i_der_enter(&seq, GK5I_DER_CTX(5), &f);
    at = f.p;
    tret = decode_ticket(&f, depth + 3, &out->ticket);
    if (tret == GK5_OK || tret == GK5_ERR_KRB_MSG_TYPE) {
        out->ticket_der.p = at;
        out->ticket_der.len = (size_t)(f.p - at);
    }
    ret = worst(ret, tret);
    gk5i_der_leave(&seq, &f);
    ret = worst(ret, decode_enc_data_field(&seq, depth + 2, 6, &out->enc_part));
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* EncASRepPart / EncTGSRepPart (RFC 4120 5.4.2; encrypted-pa-data [12],
 * RFC 6806 11).  LEVELS 3, the sub-types below. */
static uint32_t decode_enc_kdc_rep_part(struct gk5i_rd *r, unsigned depth,
                                        struct gk5i_krb_enc_kdc_rep_part *out)
{
    struct gk5i_rd app, seq;
    uint32_t ret;

    if (too_deep(depth, 3)) {
        return GK5_ERR_DER_LIMIT;
    }
    out->tag = gk5i_der_peek(r, GK5I_DER_APP(GK5I_KRB_TAG_ENC_TGS_REP_PART))
                   ? GK5I_KRB_TAG_ENC_TGS_REP_PART
                   : GK5I_KRB_TAG_ENC_AS_REP_PART;
    gk5i_der_enter(r, GK5I_DER_APP(out->tag), &app);
    gk5i_der_enter(&app, GK5I_DER_SEQUENCE, &seq);
    ret = decode_key_field(&seq, depth + 2, 0, &out->key);
    ret = worst(ret, decode_last_req_field(&seq, depth + 2, 1, &out->last_req));
    out->nonce = get_nonce_field(&seq, 2);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(3))) {
        out->has_key_expiration = true;
        out->key_expiration = get_time_field(&seq, 3);
    }
    out->flags = get_flags_field(&seq, 4);
    out->authtime = get_time_field(&seq, 5);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(6))) {
        out->has_starttime = true;
        out->starttime = get_time_field(&seq, 6);
    }
    out->endtime = get_time_field(&seq, 7);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(8))) {
        out->has_renew_till = true;
        out->renew_till = get_time_field(&seq, 8);
    }
    out->srealm = get_prim_field(&seq, 9, GK5I_DER_GENERAL_STRING);
    ret = worst(ret, decode_principal_field(&seq, depth + 2, 10, &out->sname));
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(11))) {
        ret = worst(ret, decode_list_field(&seq, depth + 2, 11, &out->caddr));
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(12))) {
        ret = worst(ret, decode_pa_data_list_field(&seq, depth + 2, 12,
                                                   &out->encrypted_pa_data));
    }
    gk5i_der_leave(&app, &seq);
    gk5i_der_leave(r, &app);
    return finish(r, ret);
}

/* ETYPE-INFO2-ENTRY (RFC 4120 5.2.7.5).  LEVELS 2. */
static uint32_t decode_etype_info2_entry(struct gk5i_rd *r, unsigned depth,
                                         struct gk5i_krb_etype_info2 *out)
{
    struct gk5i_rd seq;

    if (too_deep(depth, 2)) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_der_enter(r, GK5I_DER_SEQUENCE, &seq);
    out->etype = get_int32_field(&seq, 0);
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(1))) {
        out->has_salt = true;
        out->salt = get_prim_field(&seq, 1, GK5I_DER_GENERAL_STRING);
    }
    if (gk5i_der_peek(&seq, GK5I_DER_CTX(2))) {
        out->has_s2kparams = true;
        out->s2kparams = get_prim_field(&seq, 2, GK5I_DER_OCTET_STRING);
    }
    gk5i_der_leave(r, &seq);
    return finish(r, GK5_OK);
}

/* ---- entry points ---- */

/* The whole of in[0..len) is one message: the size limit first, then
 * nothing may follow it.  *out (size bytes) is zeroed first. */
static uint32_t start(struct gk5i_rd *r, const uint8_t *in, size_t len,
                      void *out, size_t size)
{
    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    zap(out, size); /* zeroed: the outputs start empty */
    if (in == NULL && len != 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(r, in, len);
    return GK5_OK;
}

/* The decoder's verdict, refused too if bytes follow the message; on
 * failure *out (size bytes) holds nothing to rely on. */
static uint32_t end(const struct gk5i_rd *r, uint32_t ret, void *out,
                    size_t size)
{
    ret = worst(ret, gk5i_rd_at_end(r) ? GK5_OK : GK5_ERR_DER);
    if (ret != GK5_OK) {
        zap(out, size);
    }
    return ret;
}

uint32_t gk5i_decode_ticket(const uint8_t *in, size_t len,
                            struct gk5i_krb_ticket *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_ticket(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_enc_tkt_part(const uint8_t *in, size_t len,
                                  struct gk5i_krb_enc_tkt_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_enc_tkt_part(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_authenticator(const uint8_t *in, size_t len,
                                   struct gk5i_krb_authenticator *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_authenticator(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_ap_req(const uint8_t *in, size_t len,
                            struct gk5i_krb_ap_req *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_ap_req(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_ap_rep(const uint8_t *in, size_t len,
                            struct gk5i_krb_ap_rep *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_ap_rep(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_enc_ap_rep_part(const uint8_t *in, size_t len,
                                     struct gk5i_krb_enc_ap_rep_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_enc_ap_rep_part(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_krb_error(const uint8_t *in, size_t len,
                               struct gk5i_krb_error *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK
               ? ret
               : end(&r, decode_krb_error(&r, 0, out), out, sizeof(*out));
}

uint32_t gk5i_decode_kdc_rep(const uint8_t *in, size_t len, int32_t msg_type,
                             struct gk5i_krb_kdc_rep *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    if (ret == GK5_OK && msg_type != GK5I_KRB_TAG_AS_REP &&
        msg_type != GK5I_KRB_TAG_TGS_REP) {
        ret = GK5_ERR_INVALID_ARGUMENT;
    }
    return ret != GK5_OK ? ret
                         : end(&r, decode_kdc_rep(&r, 0, msg_type, out), out,
                               sizeof(*out));
}

uint32_t gk5i_decode_enc_kdc_rep_part(const uint8_t *in, size_t len,
                                      struct gk5i_krb_enc_kdc_rep_part *out)
{
    struct gk5i_rd r;
    uint32_t ret = start(&r, in, len, out, sizeof(*out));

    return ret != GK5_OK ? ret
                         : end(&r, decode_enc_kdc_rep_part(&r, 0, out), out,
                               sizeof(*out));
}

/* ---- AuthorizationData (RFC 4120 5.2.6) and EtypeList (RFC 4537) ---- */

/*
 * The walks over a SEQUENCE OF carried whole (AuthorizationData, PA-DATA,
 * ETYPE-INFO2).  *pos 0 is before the SEQUENCE OF header (which is at
 * least two octets, so no element starts there) and afterwards the offset
 * of the next element.  The header is read again on every call: it is a
 * few octets, and no state beyond *pos is needed.
 *
 * seq_of_next checks the view, its header and *pos and, unless the walk
 * is at its end (GK5_OK, *at_end true), gives a reader over the rest from
 * the next element on; the caller reads one element from it and moves *pos
 * to where the reader stopped.
 */
static uint32_t seq_of_next(struct gk5i_view seq, const size_t *pos,
                            struct gk5i_rd *elem, bool *at_end)
{
    struct gk5i_rd r, in;
    size_t first, offset;

    *at_end = true;
    if (seq.len == 0) {
        return GK5_OK;
    }
    if (seq.len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(&r, seq.p, seq.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &in);
    if (!gk5i_rd_at_end(&r) || in.bad) {
        return GK5_ERR_DER;
    }
    first = (size_t)(in.p - seq.p);
    offset = *pos == 0 ? first : *pos;
    if (offset < first || offset > seq.len) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (offset == seq.len) {
        return GK5_OK;
    }
    *at_end = false;
    gk5i_rd_init(elem, seq.p + offset, seq.len - offset);
    return GK5_OK;
}

uint32_t gk5i_authz_next(struct gk5i_view ad, size_t *pos, bool *more,
                         int32_t *ad_type, struct gk5i_view *ad_data)
{
    struct gk5i_rd elem;
    bool at_end;
    uint32_t ret;

    if (more != NULL) {
        *more = false;
    }
    if (ad_type != NULL) {
        *ad_type = 0;
    }
    if (ad_data != NULL) {
        memset(ad_data, 0, sizeof(*ad_data));
    }
    if (pos == NULL || more == NULL || ad_type == NULL || ad_data == NULL ||
        (ad.p == NULL && ad.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = seq_of_next(ad, pos, &elem, &at_end);
    if (ret != GK5_OK || at_end) {
        return ret;
    }
    ret = decode_type_and_octets(&elem, 1, ad_type, ad_data);
    if (ret != GK5_OK) {
        *ad_type = 0;
        zap(ad_data, sizeof(*ad_data));
        return ret;
    }
    *pos = (size_t)(elem.p - ad.p);
    *more = true;
    return GK5_OK;
}

/* RFC 4120 5.2.7: METHOD-DATA ::= SEQUENCE OF PA-DATA, and a KDC-REP's
 * padata; an empty SEQUENCE OF walks to its end at once. */
uint32_t gk5i_padata_next(struct gk5i_view seq, size_t *pos, bool *more,
                          int32_t *type, struct gk5i_view *value)
{
    struct gk5i_rd elem;
    bool at_end;
    uint32_t ret;

    if (more != NULL) {
        *more = false;
    }
    if (type != NULL) {
        *type = 0;
    }
    if (value != NULL) {
        memset(value, 0, sizeof(*value));
    }
    if (pos == NULL || more == NULL || type == NULL || value == NULL ||
        (seq.p == NULL && seq.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = seq_of_next(seq, pos, &elem, &at_end);
    if (ret != GK5_OK || at_end) {
        return ret;
    }
    ret = decode_pa_data(&elem, 1, type, value);
    if (ret != GK5_OK) {
        *type = 0;
        zap(value, sizeof(*value));
        return ret;
    }
    *pos = (size_t)(elem.p - seq.p);
    *more = true;
    return GK5_OK;
}

/* RFC 4120 5.2.7.5: ETYPE-INFO2 ::= SEQUENCE SIZE (1..MAX) OF
 * ETYPE-INFO2-ENTRY, so an empty one is refused (on the first call). */
uint32_t gk5i_etype_info2_next(struct gk5i_view seq, size_t *pos, bool *more,
                               struct gk5i_krb_etype_info2 *entry)
{
    struct gk5i_rd elem;
    bool at_end;
    uint32_t ret;

    if (more != NULL) {
        *more = false;
    }
    if (entry != NULL) {
        memset(entry, 0, sizeof(*entry));
    }
    if (pos == NULL || more == NULL || entry == NULL ||
        (seq.p == NULL && seq.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    ret = seq_of_next(seq, pos, &elem, &at_end);
    if (ret != GK5_OK) {
        return ret;
    }
    if (at_end) {
        /* At its start, the walk is at its end only when it is empty. */
        return *pos == 0 ? GK5_ERR_DER : GK5_OK;
    }
    ret = decode_etype_info2_entry(&elem, 1, entry);
    if (ret != GK5_OK) {
        zap(entry, sizeof(*entry));
        return ret;
    }
    *pos = (size_t)(elem.p - seq.p);
    *more = true;
    return GK5_OK;
}

/* RFC 4537 2: EtypeList ::= SEQUENCE OF Int32, the whole of in. */
uint32_t gk5i_decode_etype_list(struct gk5i_view in, int32_t *out, size_t max,
                                size_t *n)
{
    struct gk5i_rd r, seq;
    uint32_t ret = GK5_OK;
    size_t count = 0;

    if (n != NULL) {
        *n = 0;
    }
    if (n == NULL || (out == NULL && max != 0) ||
        (in.p == NULL && in.len != 0)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (in.len > GK5I_KRB_MAX_MESSAGE) {
        return GK5_ERR_DER_LIMIT;
    }
    gk5i_rd_init(&r, in.p, in.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &seq);
    while (gk5i_rd_left(&seq) > 0) {
        int32_t e = (int32_t)gk5i_der_get_int(&seq, INT32_MIN, INT32_MAX);

        if (count == max) {
            ret = GK5_ERR_DER_LIMIT;
            break;
        }
        out[count++] = e;
    }
    gk5i_der_leave(&r, &seq);
    ret = end(&r, finish(&r, ret), out, max * sizeof(*out));
    if (ret == GK5_OK) {
        *n = count;
    }
    return ret;
}
