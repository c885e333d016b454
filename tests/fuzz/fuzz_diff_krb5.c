/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Differential libFuzzer target: the same bytes through gk5's RFC 4120
 * decoders (src/der/rfc4120_decode_*.c) and MIT libkrb5's exported ones
 * (decode_krb5_ap_req, _authenticator, _enc_tkt_part, _ap_rep,
 * _ap_rep_enc_part, _error, _ticket, _as_rep, _tgs_rep, _enc_kdc_rep_part,
 * their encode_krb5_* twins and five free functions: not in MIT's public
 * headers, so declared here).  Input: byte
 * 0 picks the type (enum fk_type, modulo the count), the rest is the message.
 *
 * Where both accept, every field must be the same: ap-options, the
 * ticket's realm, sname (type and components) and enc-part (etype, kvno --
 * MIT's 0 for absent -- and cipher), times (MIT's 32-bit krb5_timestamp:
 * compared modulo 2^32), cusec, seq-number (MIT's krb5_ui_4), keys,
 * checksum, AuthorizationData and HostAddresses element by element, flags,
 * transited, error-code, e-text, e-data; for the KDC's replies msg-type,
 * padata and encrypted-pa-data element by element, crealm/cname, the
 * ticket, enc-part, the key, LastReq entry by entry, nonce (MIT's
 * krb5_int32, compared as its 32 bits), key-expiration, flags, the four
 * times, srealm/sname, caddr.  An EncKDCRepPart's tag is not compared:
 * MIT's decoder takes either and its struct does not say which.
 *
 * Whatever MIT alone accepts, gk5 must accept once MIT has re-encoded it
 * (MIT's exported encode_krb5_*, DER), and read the same fields, unless
 * a value is out of gk5's range (limit, usec, error-code-high,
 * kvno-negative below): so gk5 refused the form, never the content.
 *
 * Where they disagree, the input must fall in one of these classes, else
 * the run stops (fuzz_fail):
 *
 * MIT accepts, gk5 refuses -- gk5 is strict DER (rfc4120.h), MIT is a BER
 * reader; the first class that applies is counted:
 *   form: <name>   a form the lenient walk of fuzz_krb.c (fk_scan) finds:
 *                  non-minimal length, indefinite length, length of 5+
 *                  octets, high tag number, trailing bytes after the
 *                  message (MIT ignores them), non-minimal or empty
 *                  INTEGER, BIT STRING shorter than 32 bits or with
 *                  unused bits set (MIT pads and masks), KerberosTime
 *                  that is not a valid YYYYMMDDHHMMSSZ (MIT's timegm
 *                  normalises Feb 31 or second 60), a constructed string
 *                  or INTEGER, a primitive SEQUENCE or tag, bytes the walk
 *                  cannot read (MIT stops reading a SEQUENCE after its
 *                  last known field and never looks at what follows);
 *   limit          a PrincipalName of more than GK5I_KRB_MAX_COMPONENTS
 *                  components (GK5_ERR_DER_LIMIT, unless gk5 stopped
 *                  reading before it);
 *   usec           Microseconds outside RFC 4120's 0..999999 (MIT's
 *                  krb5_int32 takes any Int32);
 *   error-code-high  error-code above 2^31 - 1 (MIT's krb5_ui_4; RFC 4120
 *                  says Int32);
 *   kvno-negative  a negative kvno (also in an AS-REP or TGS-REP): MIT
 *                  reads kvno as an Int32 and keeps
 *                  its bits, RFC 4120 says UInt32 (gk5 tolerates the
 *                  negative form only for seq-number, after named peers);
 *   vno            GK5_ERR_KRB_MSG_TYPE, a msg-type not the type's, of any
 *                  INTEGER up to 64 bits (AP-REQ,
 *                  AP-REP, KRB-ERROR, AS-REP, TGS-REP): MIT's decoders
 *                  check pvno, tkt-vno and authenticator-vno, but not
 *                  msg-type;
 *   skipped        MIT's re-encoding has fewer values than the input (not
 *                  counting the empty cname MIT writes for a KRB-ERROR
 *                  crealm that came without one)
 *                  (and none of the forms above is there): MIT skipped
 *                  fields it does not know (an unknown or repeated context
 *                  tag: RFC 4120's types have no extension marker, and
 *                  gk5 refuses them).
 *
 * gk5 accepts, MIT refuses -- the value is in RFC 4120's range and MIT's
 * C type is narrower:
 *   transited-type       tr-type outside 0..255 (MIT's krb5_octet);
 *   error-code-negative  a negative error-code (MIT's krb5_ui_4);
 *   kvno-high      a kvno of 2^31 or more (MIT reads kvno as an Int32 and
 *                  refuses it; RFC 4120's UInt32 allows it);
 *   nonce-high     an EncKDCRepPart's nonce of 2^31 or more as the
 *                  positive INTEGER RFC 4120's UInt32 says it is (MIT's
 *                  krb5_int32 refuses it; gk5 also takes the negative
 *                  Int32 form MIT's KDC echoes, which MIT reads too).
 *
 * With FUZZ_DIFF_STATS set, the counts are printed at exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <krb5.h>

#include "der/der.h"
#include "fuzz_common.h"
#include "fuzz_krb.h"

/* MIT libkrb5's ASN.1 entry points (exported, no public prototype). */
krb5_error_code decode_krb5_ap_req(const krb5_data *, krb5_ap_req **);
krb5_error_code decode_krb5_authenticator(const krb5_data *,
                                          krb5_authenticator **);
krb5_error_code decode_krb5_enc_tkt_part(const krb5_data *,
                                         krb5_enc_tkt_part **);
krb5_error_code decode_krb5_ap_rep(const krb5_data *, krb5_ap_rep **);
krb5_error_code decode_krb5_ap_rep_enc_part(const krb5_data *,
                                            krb5_ap_rep_enc_part **);
krb5_error_code decode_krb5_error(const krb5_data *, krb5_error **);
krb5_error_code decode_krb5_ticket(const krb5_data *, krb5_ticket **);
krb5_error_code encode_krb5_ap_req(const krb5_ap_req *, krb5_data **);
krb5_error_code encode_krb5_authenticator(const krb5_authenticator *,
                                          krb5_data **);
krb5_error_code encode_krb5_enc_tkt_part(const krb5_enc_tkt_part *,
                                         krb5_data **);
krb5_error_code encode_krb5_ap_rep(const krb5_ap_rep *, krb5_data **);
krb5_error_code encode_krb5_ap_rep_enc_part(const krb5_ap_rep_enc_part *,
                                            krb5_data **);
krb5_error_code encode_krb5_error(const krb5_error *, krb5_data **);
krb5_error_code encode_krb5_ticket(const krb5_ticket *, krb5_data **);
void krb5_free_ap_req(krb5_context, krb5_ap_req *);
void krb5_free_enc_tkt_part(krb5_context, krb5_enc_tkt_part *);
void krb5_free_ap_rep(krb5_context, krb5_ap_rep *);
krb5_error_code decode_krb5_as_rep(const krb5_data *, krb5_kdc_rep **);
krb5_error_code decode_krb5_tgs_rep(const krb5_data *, krb5_kdc_rep **);
krb5_error_code decode_krb5_enc_kdc_rep_part(const krb5_data *,
                                             krb5_enc_kdc_rep_part **);
krb5_error_code encode_krb5_as_rep(const krb5_kdc_rep *, krb5_data **);
krb5_error_code encode_krb5_tgs_rep(const krb5_kdc_rep *, krb5_data **);
krb5_error_code encode_krb5_enc_kdc_rep_part(const krb5_enc_kdc_rep_part *,
                                             krb5_data **);
void krb5_free_kdc_rep(krb5_context, krb5_kdc_rep *);
void krb5_free_enc_kdc_rep_part(krb5_context, krb5_enc_kdc_rep_part *);

static krb5_context kctx;

/* What MIT decoded (one member set, by type). */
union mit_msg {
    void *any;
    krb5_ap_req *ap_req;
    krb5_authenticator *authenticator;
    krb5_enc_tkt_part *enc_tkt_part;
    krb5_ap_rep *ap_rep;
    krb5_ap_rep_enc_part *enc_ap_rep_part;
    krb5_error *krb_error;
    krb5_ticket *ticket;
    krb5_kdc_rep *kdc_rep;
    krb5_enc_kdc_rep_part *enc_kdc_rep_part;
};

/* ---- counts ---- */

enum cls {
    CLS_LIMIT = FK_FORM_COUNT,
    CLS_USEC,
    CLS_ERROR_CODE_HIGH,
    CLS_KVNO_NEGATIVE,
    CLS_VNO,
    CLS_SKIPPED,
    CLS_TRANSITED_TYPE,
    CLS_ERROR_CODE_NEGATIVE,
    CLS_KVNO_HIGH,
    CLS_NONCE_HIGH,
    CLS_COUNT
};

static const char *const cls_names[CLS_COUNT - FK_FORM_COUNT] = {
    "limit",     "usec",       "error-code-high", "kvno-negative",
    "vno",       "skipped",    "transited-type",  "error-code-negative",
    "kvno-high", "nonce-high",
};

static unsigned long n_both, n_neither, n_class[CLS_COUNT];
static unsigned long n_type_both[FK_N_TYPES], n_vno[FK_N_TYPES];

static void print_stats(void)
{
    fprintf(stderr, "diff_krb5: both accept %lu, both refuse %lu\n", n_both,
            n_neither);
    for (int t = 0; t < FK_N_TYPES; t++) {
        fprintf(stderr, "diff_krb5:   both accept %-16s %lu (vno only: %lu)\n",
                fk_type_name((enum fk_type)t), n_type_both[t], n_vno[t]);
    }
    for (unsigned c = 0; c < CLS_COUNT; c++) {
        if (n_class[c] == 0) {
            continue;
        }
        fprintf(stderr, "diff_krb5:   %s %-28s %lu\n",
                c < FK_FORM_COUNT ? "form:" : "class:",
                c < FK_FORM_COUNT ? fk_form_name(c)
                                  : cls_names[c - FK_FORM_COUNT],
                n_class[c]);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("KRB5_CONFIG", "/dev/null", 1);
    if (krb5_init_context(&kctx) != 0) {
        fuzz_fail("krb5_init_context failed", 0, 0);
    }
    if (getenv("FUZZ_DIFF_STATS") != NULL) {
        atexit(print_stats);
    }
    return 0;
}

/* ---- MIT's side ---- */

static krb5_error_code mit_decode(enum fk_type t, const uint8_t *in, size_t len,
                                  union mit_msg *m)
{
    krb5_data d;

    d.magic = KV5M_DATA;
    d.length = (unsigned int)len;
    d.data = (char *)(uintptr_t)in; /* MIT's decoders only read it */
    m->any = NULL;
    switch (t) {
    case FK_AP_REQ:
        return decode_krb5_ap_req(&d, &m->ap_req);
    case FK_AUTHENTICATOR:
        return decode_krb5_authenticator(&d, &m->authenticator);
    case FK_ENC_TKT_PART:
        return decode_krb5_enc_tkt_part(&d, &m->enc_tkt_part);
    case FK_AP_REP:
        return decode_krb5_ap_rep(&d, &m->ap_rep);
    case FK_ENC_AP_REP_PART:
        return decode_krb5_ap_rep_enc_part(&d, &m->enc_ap_rep_part);
    case FK_KRB_ERROR:
        return decode_krb5_error(&d, &m->krb_error);
    case FK_TICKET:
        return decode_krb5_ticket(&d, &m->ticket);
    case FK_AS_REP:
        return decode_krb5_as_rep(&d, &m->kdc_rep);
    case FK_TGS_REP:
        return decode_krb5_tgs_rep(&d, &m->kdc_rep);
    case FK_ENC_KDC_REP_PART:
        return decode_krb5_enc_kdc_rep_part(&d, &m->enc_kdc_rep_part);
    default:
        abort();
    }
}

static krb5_error_code mit_encode(enum fk_type t, const union mit_msg *m,
                                  krb5_data **out)
{
    switch (t) {
    case FK_AP_REQ:
        return encode_krb5_ap_req(m->ap_req, out);
    case FK_AUTHENTICATOR:
        return encode_krb5_authenticator(m->authenticator, out);
    case FK_ENC_TKT_PART:
        return encode_krb5_enc_tkt_part(m->enc_tkt_part, out);
    case FK_AP_REP:
        return encode_krb5_ap_rep(m->ap_rep, out);
    case FK_ENC_AP_REP_PART:
        return encode_krb5_ap_rep_enc_part(m->enc_ap_rep_part, out);
    case FK_KRB_ERROR:
        return encode_krb5_error(m->krb_error, out);
    case FK_TICKET:
        return encode_krb5_ticket(m->ticket, out);
    case FK_AS_REP:
        return encode_krb5_as_rep(m->kdc_rep, out);
    case FK_TGS_REP:
        return encode_krb5_tgs_rep(m->kdc_rep, out);
    case FK_ENC_KDC_REP_PART:
        return encode_krb5_enc_kdc_rep_part(m->enc_kdc_rep_part, out);
    default:
        abort();
    }
}

static void mit_free(enum fk_type t, union mit_msg *m)
{
    if (m->any == NULL) {
        return;
    }
    switch (t) {
    case FK_AP_REQ:
        krb5_free_ap_req(kctx, m->ap_req);
        break;
    case FK_AUTHENTICATOR:
        krb5_free_authenticator(kctx, m->authenticator);
        break;
    case FK_ENC_TKT_PART:
        krb5_free_enc_tkt_part(kctx, m->enc_tkt_part);
        break;
    case FK_AP_REP:
        krb5_free_ap_rep(kctx, m->ap_rep);
        break;
    case FK_ENC_AP_REP_PART:
        krb5_free_ap_rep_enc_part(kctx, m->enc_ap_rep_part);
        break;
    case FK_KRB_ERROR:
        krb5_free_error(kctx, m->krb_error);
        break;
    case FK_TICKET:
        krb5_free_ticket(kctx, m->ticket);
        break;
    case FK_AS_REP:
    case FK_TGS_REP:
        krb5_free_kdc_rep(kctx, m->kdc_rep);
        break;
    case FK_ENC_KDC_REP_PART:
        krb5_free_enc_kdc_rep_part(kctx, m->enc_kdc_rep_part);
        break;
    default:
        abort();
    }
    m->any = NULL;
}

/* ---- field comparison: the name of the first field that differs ---- */

static bool bytes_eq(struct gk5i_view v, const void *p, unsigned int len)
{
    return v.len == len && (len == 0 || memcmp(v.p, p, len) == 0);
}

static bool data_eq(struct gk5i_view v, const krb5_data *d)
{
    return bytes_eq(v, d->data, d->length);
}

static bool principal_eq(struct gk5i_view realm,
                         const struct gk5i_krb_principal *p,
                         krb5_const_principal q)
{
    if (q == NULL || !data_eq(realm, &q->realm) || p->name_type != q->type ||
        q->length < 0 || p->ncomp != (uint32_t)q->length) {
        return false;
    }
    for (uint32_t i = 0; i < p->ncomp; i++) {
        if (!data_eq(p->comp[i], &q->data[i])) {
            return false;
        }
    }
    return true;
}

static bool enc_data_eq(const struct gk5i_krb_enc_data *a,
                        const krb5_enc_data *b)
{
    return a->etype == b->enctype &&
           (a->has_kvno ? a->kvno : 0) == (uint32_t)b->kvno &&
           data_eq(a->cipher, &b->ciphertext);
}

static bool key_eq(const struct gk5i_krb_key *a, const krb5_keyblock *b)
{
    return b != NULL && a->keytype == b->enctype &&
           bytes_eq(a->value, b->contents, b->length);
}

static bool time_eq(gk5i_krb_time a, krb5_timestamp b)
{
    return (uint32_t)(uint64_t)a == (uint32_t)b;
}

/* AuthorizationData and HostAddresses have one shape: the walk of one
 * against MIT's array of (type, contents). */
struct mit_elem {
    int32_t type;
    unsigned int length;
    const uint8_t *contents;
};

static bool list_eq(struct gk5i_view whole, const struct mit_elem *e, size_t n)
{
    size_t pos = 0, i = 0;
    bool more = true;

    while (true) {
        int32_t type;
        struct gk5i_view data;

        if (gk5i_authz_next(whole, &pos, &more, &type, &data) != GK5_OK) {
            fuzz_fail("a decoded SEQUENCE OF does not walk", 0, 0);
        }
        if (!more) {
            return i == n;
        }
        if (i == n || type != e[i].type ||
            !bytes_eq(data, e[i].contents, e[i].length)) {
            return false;
        }
        i++;
    }
}

static bool authz_eq(struct gk5i_view whole, krb5_authdata *const *ad)
{
    struct mit_elem e[256];
    size_t n = 0;

    for (; ad != NULL && ad[n] != NULL; n++) {
        if (n == 256) {
            return false;
        }
        e[n].type = ad[n]->ad_type;
        e[n].length = ad[n]->length;
        e[n].contents = ad[n]->contents;
    }
    return list_eq(whole, e, n);
}

static bool addrs_eq(struct gk5i_view whole, krb5_address *const *a)
{
    struct mit_elem e[256];
    size_t n = 0;

    for (; a != NULL && a[n] != NULL; n++) {
        if (n == 256) {
            return false;
        }
        e[n].type = a[n]->addrtype;
        e[n].length = a[n]->length;
        e[n].contents = a[n]->contents;
    }
    return list_eq(whole, e, n);
}

static const char *diff_ticket(const struct gk5i_krb_ticket *a,
                               const krb5_ticket *b)
{
    if (!principal_eq(a->realm, &a->sname, b->server)) {
        return "ticket realm/sname";
    }
    if (!enc_data_eq(&a->enc_part, &b->enc_part)) {
        return "ticket enc-part";
    }
    return NULL;
}

static const char *diff_ap_req(const struct gk5i_krb_ap_req *a,
                               const krb5_ap_req *b)
{
    if (a->ap_options != (uint32_t)b->ap_options) {
        return "ap-options";
    }
    if (b->ticket == NULL) {
        return "ticket";
    }
    if (diff_ticket(&a->ticket, b->ticket) != NULL) {
        return diff_ticket(&a->ticket, b->ticket);
    }
    if (!enc_data_eq(&a->authenticator, &b->authenticator)) {
        return "authenticator";
    }
    return NULL;
}

static const char *diff_authenticator(const struct gk5i_krb_authenticator *a,
                                      const krb5_authenticator *b)
{
    if (!principal_eq(a->crealm, &a->cname, b->client)) {
        return "crealm/cname";
    }
    if (a->has_cksum != (b->checksum != NULL) ||
        (a->has_cksum && (a->cksum.cksumtype != b->checksum->checksum_type ||
                          !bytes_eq(a->cksum.value, b->checksum->contents,
                                    b->checksum->length)))) {
        return "cksum";
    }
    if ((int32_t)a->cusec != b->cusec) {
        return "cusec";
    }
    if (!time_eq(a->ctime, b->ctime)) {
        return "ctime";
    }
    if (a->has_subkey != (b->subkey != NULL) ||
        (a->has_subkey && !key_eq(&a->subkey, b->subkey))) {
        return "subkey";
    }
    if ((a->has_seq_number ? a->seq_number : 0) != (uint32_t)b->seq_number) {
        return "seq-number";
    }
    if (!authz_eq(a->authorization_data, b->authorization_data)) {
        return "authorization-data";
    }
    return NULL;
}

static const char *diff_enc_tkt_part(const struct gk5i_krb_enc_tkt_part *a,
                                     const krb5_enc_tkt_part *b)
{
    if (a->flags != (uint32_t)b->flags) {
        return "flags";
    }
    if (!key_eq(&a->key, b->session)) {
        return "key";
    }
    if (!principal_eq(a->crealm, &a->cname, b->client)) {
        return "crealm/cname";
    }
    if (a->transited_type != b->transited.tr_type ||
        !data_eq(a->transited_contents, &b->transited.tr_contents)) {
        return "transited";
    }
    if (!time_eq(a->authtime, b->times.authtime) ||
        !time_eq(a->has_starttime ? a->starttime : 0, b->times.starttime) ||
        !time_eq(a->endtime, b->times.endtime) ||
        !time_eq(a->has_renew_till ? a->renew_till : 0, b->times.renew_till)) {
        return "times";
    }
    if (!addrs_eq(a->caddr, b->caddrs)) {
        return "caddr";
    }
    if (!authz_eq(a->authorization_data, b->authorization_data)) {
        return "authorization-data";
    }
    return NULL;
}

static const char *
diff_enc_ap_rep_part(const struct gk5i_krb_enc_ap_rep_part *a,
                     const krb5_ap_rep_enc_part *b)
{
    if (!time_eq(a->ctime, b->ctime) || (int32_t)a->cusec != b->cusec) {
        return "ctime/cusec";
    }
    if (a->has_subkey != (b->subkey != NULL) ||
        (a->has_subkey && !key_eq(&a->subkey, b->subkey))) {
        return "subkey";
    }
    if ((a->has_seq_number ? a->seq_number : 0) != (uint32_t)b->seq_number) {
        return "seq-number";
    }
    return NULL;
}

static const char *diff_krb_error(const struct gk5i_krb_error *a,
                                  const krb5_error *b)
{
    if (!time_eq(a->has_ctime ? a->ctime : 0, b->ctime) ||
        (int32_t)(a->has_cusec ? a->cusec : 0) != b->cusec) {
        return "ctime/cusec";
    }
    if (!time_eq(a->stime, b->stime) || (int32_t)a->susec != b->susec) {
        return "stime/susec";
    }
    if ((uint32_t)a->error_code != (uint32_t)b->error) {
        return "error-code";
    }
    if (a->has_cname) {
        if (!principal_eq(a->crealm, &a->cname, b->client)) {
            return "crealm/cname";
        }
    } else if (b->client != NULL && (b->client->length != 0 ||
                                     !data_eq(a->crealm, &b->client->realm))) {
        return "crealm (no cname)";
    }
    if (!principal_eq(a->realm, &a->sname, b->server)) {
        return "realm/sname";
    }
    if (!data_eq(a->e_text, &b->text)) {
        return "e-text";
    }
    if (!data_eq(a->e_data, &b->e_data)) {
        return "e-data";
    }
    return NULL;
}

/* A SEQUENCE OF PA-DATA against MIT's array. */
static bool padata_eq(struct gk5i_view whole, krb5_pa_data *const *pa)
{
    size_t pos = 0, i = 0;
    bool more = true;

    while (true) {
        int32_t type;
        struct gk5i_view value;

        if (gk5i_padata_next(whole, &pos, &more, &type, &value) != GK5_OK) {
            fuzz_fail("a decoded SEQUENCE OF PA-DATA does not walk", 0, 0);
        }
        if (!more) {
            return pa == NULL || pa[i] == NULL;
        }
        if (pa == NULL || pa[i] == NULL || type != pa[i]->pa_type ||
            !bytes_eq(value, pa[i]->contents, pa[i]->length)) {
            return false;
        }
        i++;
    }
}

/* LastReq (a decoder checked it) against MIT's entries. */
static bool last_req_eq(struct gk5i_view whole, krb5_last_req_entry *const *lr)
{
    struct gk5i_rd r, list, elem, f;
    size_t i = 0;

    gk5i_rd_init(&r, whole.p, whole.len);
    gk5i_der_enter(&r, GK5I_DER_SEQUENCE, &list);
    while (gk5i_rd_left(&list) > 0) {
        struct gk5i_view v;
        gk5i_krb_time t = 0;
        int64_t type;

        gk5i_der_enter(&list, GK5I_DER_SEQUENCE, &elem);
        gk5i_der_enter(&elem, GK5I_DER_CTX(0), &f);
        type = gk5i_der_get_int(&f, INT32_MIN, INT32_MAX);
        gk5i_der_leave(&elem, &f);
        gk5i_der_enter(&elem, GK5I_DER_CTX(1), &f);
        v.p = gk5i_der_get_prim(&f, GK5I_DER_GENERALIZED_TIME, &v.len);
        gk5i_der_leave(&elem, &f);
        gk5i_der_leave(&list, &elem);
        if (list.bad || gk5i_krb_time_parse(v.p, v.len, &t) != GK5_OK) {
            fuzz_fail("a decoded LastReq does not read", 0, 0);
        }
        if (lr == NULL || lr[i] == NULL || lr[i]->lr_type != type ||
            !time_eq(t, lr[i]->value)) {
            return false;
        }
        i++;
    }
    return lr == NULL || lr[i] == NULL;
}

static const char *diff_kdc_rep(const struct gk5i_krb_kdc_rep *a,
                                const krb5_kdc_rep *b)
{
    if ((krb5_msgtype)a->msg_type != b->msg_type) {
        return "msg-type";
    }
    if (!padata_eq(a->padata, b->padata)) {
        return "padata";
    }
    if (!principal_eq(a->crealm, &a->cname, b->client)) {
        return "crealm/cname";
    }
    if (b->ticket == NULL) {
        return "ticket";
    }
    if (diff_ticket(&a->ticket, b->ticket) != NULL) {
        return diff_ticket(&a->ticket, b->ticket);
    }
    if (!enc_data_eq(&a->enc_part, &b->enc_part)) {
        return "enc-part";
    }
    return NULL;
}

/* Set while gk5's reading of MIT's own re-encoding is compared with what
 * MIT decoded: MIT's encoder writes an EncKDCRepPart's renew-till only
 * when the renewable flag is set, so a renew-till without the flag is in
 * MIT's structure and not in its encoding. */
static bool reading_mit_encoding;

static const char *
diff_enc_kdc_rep_part(const struct gk5i_krb_enc_kdc_rep_part *a,
                      const krb5_enc_kdc_rep_part *b)
{
    krb5_timestamp mit_renew_till = b->times.renew_till;

    if (reading_mit_encoding && !a->has_renew_till &&
        (b->flags & TKT_FLG_RENEWABLE) == 0) {
        mit_renew_till = 0;
    }
    if (!key_eq(&a->key, b->session)) {
        return "key";
    }
    if (!last_req_eq(a->last_req, b->last_req)) {
        return "last-req";
    }
    if (a->nonce != (uint32_t)b->nonce) {
        return "nonce";
    }
    if (!time_eq(a->has_key_expiration ? a->key_expiration : 0, b->key_exp)) {
        return "key-expiration";
    }
    if (a->flags != (uint32_t)b->flags) {
        return "flags";
    }
    /* MIT fills an absent starttime with authtime. */
    if (!time_eq(a->authtime, b->times.authtime) ||
        !time_eq(a->has_starttime ? a->starttime : a->authtime,
                 b->times.starttime) ||
        !time_eq(a->endtime, b->times.endtime) ||
        !time_eq(a->has_renew_till ? a->renew_till : 0, mit_renew_till)) {
        return "times";
    }
    if (!principal_eq(a->srealm, &a->sname, b->server)) {
        return "srealm/sname";
    }
    if (!addrs_eq(a->caddr, b->caddrs)) {
        return "caddr";
    }
    if (!padata_eq(a->encrypted_pa_data, b->enc_padata)) {
        return "encrypted-pa-data";
    }
    return NULL;
}

static const char *diff(enum fk_type t, const union fk_msg *a,
                        const union mit_msg *b)
{
    switch (t) {
    case FK_AP_REQ:
        return diff_ap_req(&a->ap_req, b->ap_req);
    case FK_AUTHENTICATOR:
        return diff_authenticator(&a->authenticator, b->authenticator);
    case FK_ENC_TKT_PART:
        return diff_enc_tkt_part(&a->enc_tkt_part, b->enc_tkt_part);
    case FK_AP_REP:
        return enc_data_eq(&a->ap_rep.enc_part, &b->ap_rep->enc_part)
                   ? NULL
                   : "enc-part";
    case FK_ENC_AP_REP_PART:
        return diff_enc_ap_rep_part(&a->enc_ap_rep_part, b->enc_ap_rep_part);
    case FK_KRB_ERROR:
        return diff_krb_error(&a->krb_error, b->krb_error);
    case FK_TICKET:
        return diff_ticket(&a->ticket, b->ticket);
    case FK_AS_REP:
    case FK_TGS_REP:
        return diff_kdc_rep(&a->kdc_rep, b->kdc_rep);
    case FK_ENC_KDC_REP_PART:
        return diff_enc_kdc_rep_part(&a->enc_kdc_rep_part, b->enc_kdc_rep_part);
    default:
        abort();
    }
}

/* ---- classes ---- */

static bool too_many(krb5_const_principal p)
{
    return p != NULL && p->length > GK5I_KRB_MAX_COMPONENTS;
}

/* A PrincipalName past gk5's limit anywhere in what MIT decoded. */
static bool mit_over_limit(enum fk_type t, const union mit_msg *m)
{
    switch (t) {
    case FK_AP_REQ:
        return too_many(m->ap_req->ticket->server);
    case FK_AUTHENTICATOR:
        return too_many(m->authenticator->client);
    case FK_ENC_TKT_PART:
        return too_many(m->enc_tkt_part->client);
    case FK_KRB_ERROR:
        return too_many(m->krb_error->client) || too_many(m->krb_error->server);
    case FK_TICKET:
        return too_many(m->ticket->server);
    case FK_AS_REP:
    case FK_TGS_REP:
        return too_many(m->kdc_rep->client) ||
               too_many(m->kdc_rep->ticket->server);
    case FK_ENC_KDC_REP_PART:
        return too_many(m->enc_kdc_rep_part->server);
    default:
        return false;
    }
}

static bool bad_usec(krb5_int32 v)
{
    return v < 0 || v > 999999;
}

/* A value MIT keeps that RFC 4120's range (and gk5) refuses: the class,
 * or 0. */
static enum cls mit_out_of_range(enum fk_type t, const union mit_msg *m)
{
    switch (t) {
    case FK_AUTHENTICATOR:
        return bad_usec(m->authenticator->cusec) ? CLS_USEC : 0;
    case FK_ENC_AP_REP_PART:
        return bad_usec(m->enc_ap_rep_part->cusec) ? CLS_USEC : 0;
    case FK_KRB_ERROR:
        if (bad_usec(m->krb_error->cusec) || bad_usec(m->krb_error->susec)) {
            return CLS_USEC;
        }
        return m->krb_error->error > INT32_MAX ? CLS_ERROR_CODE_HIGH : 0;
    default:
        return 0;
    }
}

/* MIT reads a kvno as an Int32 and stores its bits in an unsigned int: a
 * kvno of 2^31 or more in MIT's hands was negative on the wire (MIT
 * refuses the positive form), which RFC 4120's UInt32 (and gk5) refuse. */
static bool mit_negative_kvno(enum fk_type t, const union mit_msg *m)
{
    switch (t) {
    case FK_AP_REQ:
        return m->ap_req->ticket->enc_part.kvno > INT32_MAX ||
               m->ap_req->authenticator.kvno > INT32_MAX;
    case FK_AP_REP:
        return m->ap_rep->enc_part.kvno > INT32_MAX;
    case FK_TICKET:
        return m->ticket->enc_part.kvno > INT32_MAX;
    case FK_AS_REP:
    case FK_TGS_REP:
        return m->kdc_rep->ticket->enc_part.kvno > INT32_MAX ||
               m->kdc_rep->enc_part.kvno > INT32_MAX;
    default:
        return false;
    }
}

/* gk5's kvno of 2^31 or more: MIT's Int32 reading refuses it. */
static bool gk5_high_kvno(enum fk_type t, const union fk_msg *g)
{
    switch (t) {
    case FK_AP_REQ:
        return g->ap_req.ticket.enc_part.kvno > INT32_MAX ||
               g->ap_req.authenticator.kvno > INT32_MAX;
    case FK_AP_REP:
        return g->ap_rep.enc_part.kvno > INT32_MAX;
    case FK_TICKET:
        return g->ticket.enc_part.kvno > INT32_MAX;
    case FK_AS_REP:
    case FK_TGS_REP:
        return g->kdc_rep.ticket.enc_part.kvno > INT32_MAX ||
               g->kdc_rep.enc_part.kvno > INT32_MAX;
    default:
        return false;
    }
}

/* An empty PrincipalName as MIT writes it: [8], SEQUENCE, [0], INTEGER,
 * [1], SEQUENCE OF. */
#define EMPTY_CNAME_VALUES 6

/* The length at p[*at] (BER, definite), moving *at past it; false where
 * it cannot be read. */
static bool ber_len(const uint8_t *p, size_t n, size_t *at, size_t *len)
{
    size_t k;

    if (*at >= n) {
        return false;
    }
    if (!(p[*at] & 0x80)) {
        *len = p[(*at)++];
        return true;
    }
    k = p[(*at)++] & 0x7f;
    if (k == 0 || k > 4 || n - *at < k) {
        return false;
    }
    *len = 0;
    while (k-- > 0) {
        *len = *len << 8 | p[(*at)++];
    }
    return true;
}

/* Whether a message's top-level SEQUENCE (inside its [APPLICATION n])
 * holds a field with this tag before the first field tagged stop (MIT
 * reads fields in order: one that comes later is skipped); true also where
 * the walk cannot tell, so that nothing is discounted then. */
static bool top_field_before(const uint8_t *in, size_t n, uint8_t tag,
                             uint8_t stop)
{
    size_t at = 1, len, end;

    if (n < 2 || !ber_len(in, n, &at, &len) || at >= n || in[at] != 0x30) {
        return true;
    }
    at++;
    if (!ber_len(in, n, &at, &len) || len > n - at) {
        return true;
    }
    end = at + len;
    while (at < end) {
        uint8_t t = in[at++];

        if (t == tag) {
            return true;
        }
        if (t == stop) {
            return false;
        }
        if (!ber_len(in, end, &at, &len) || len > end - at) {
            return true;
        }
        at += len;
    }
    return false;
}

/* MIT took it, gk5 did not (ret): the class, or fuzz_fail. */
static void classify_mit_only(enum fk_type t, const uint8_t *in, size_t len,
                              uint32_t ret, const union mit_msg *m)
{
    size_t nin = 0, nre = 0;
    unsigned forms = fk_scan(in, len, &nin) & ~(unsigned)FK_FORM_BITS_LONG;
    krb5_data *re = NULL;
    union fk_msg g;
    const char *why;
    uint32_t gret;

    /* Values gk5 refuses wherever they stand. */
    if (mit_over_limit(t, m)) {
        n_class[CLS_LIMIT]++;
        return;
    }
    if (mit_out_of_range(t, m) != 0) {
        n_class[mit_out_of_range(t, m)]++;
        return;
    }
    if (mit_negative_kvno(t, m)) {
        n_class[CLS_KVNO_NEGATIVE]++;
        return;
    }
    /* Otherwise gk5 must read what MIT read once it is in DER (MIT's own
     * encoding of it): then gk5 refused the form, not the content. */
    /* A KDC-REP's msg-type MIT neither checks nor re-encodes as the type's
     * own: vno, without the comparison through MIT's encoding. */
    if ((t == FK_AS_REP || t == FK_TGS_REP) &&
        m->kdc_rep->msg_type !=
            (krb5_msgtype)(t == FK_AS_REP ? KRB5_AS_REP : KRB5_TGS_REP)) {
        n_class[CLS_VNO]++;
        n_vno[t]++;
        return;
    }
    if (mit_encode(t, m, &re) != 0) {
        fuzz_fail("MIT cannot re-encode what it decoded", 0, 0);
    }
    gret = fk_decode(t, (const uint8_t *)re->data, re->length, &g);
    if (gret != GK5_OK) {
        fuzz_fail("gk5 refuses MIT's encoding of what MIT decoded",
                  GK5_S_FAILURE, gret);
    }
    reading_mit_encoding = true;
    why = diff(t, &g, m);
    reading_mit_encoding = false;
    if (why != NULL) {
        fprintf(stderr, "diff_krb5: %s: field %s differs\n", fk_type_name(t),
                why);
        fuzz_fail("gk5 reads MIT's encoding otherwise than MIT", 0, 0);
    }
    (void)fk_scan((const uint8_t *)re->data, re->length, &nre);
    krb5_free_data(kctx, re);
    /* MIT keeps a KRB-ERROR's crealm that came without a cname as a
     * principal of no components, which its encoder writes as an empty
     * cname: values the input never had, not counted against it. */
    if (t == FK_KRB_ERROR && g.krb_error.has_cname &&
        g.krb_error.cname.ncomp == 0 &&
        !top_field_before(in, len, 0xa8, 0xa9)) {
        nre = nre > EMPTY_CNAME_VALUES ? nre - EMPTY_CNAME_VALUES : 0;
    }
    if (ret == GK5_ERR_KRB_MSG_TYPE) {
        n_class[CLS_VNO]++;
        n_vno[t]++;
        return;
    }
    for (unsigned c = 0; c < FK_FORM_COUNT; c++) {
        if (forms & (1u << c)) {
            n_class[c]++;
            return;
        }
    }
    if (nin > nre) {
        n_class[CLS_SKIPPED]++;
        return;
    }
    fprintf(stderr, "diff_krb5: %s: MIT accepts, gk5 refuses (%u), no class\n",
            fk_type_name(t), (unsigned)ret);
    fuzz_fail("an unclassified input MIT accepts and gk5 refuses",
              GK5_S_FAILURE, ret);
}

/* gk5 took it, MIT did not (code): the class, or fuzz_fail. */
static void classify_gk5_only(enum fk_type t, const union fk_msg *g,
                              krb5_error_code code)
{
    if (t == FK_ENC_TKT_PART && (g->enc_tkt_part.transited_type < 0 ||
                                 g->enc_tkt_part.transited_type > 255)) {
        n_class[CLS_TRANSITED_TYPE]++;
        return;
    }
    if (t == FK_KRB_ERROR && g->krb_error.error_code < 0) {
        n_class[CLS_ERROR_CODE_NEGATIVE]++;
        return;
    }
    if (gk5_high_kvno(t, g)) {
        n_class[CLS_KVNO_HIGH]++;
        return;
    }
    if (t == FK_ENC_KDC_REP_PART && g->enc_kdc_rep_part.nonce > INT32_MAX) {
        n_class[CLS_NONCE_HIGH]++;
        return;
    }
    fprintf(stderr, "diff_krb5: %s: gk5 accepts, MIT refuses (%s), no class\n",
            fk_type_name(t), krb5_get_error_message(kctx, code));
    fuzz_fail("an unclassified input gk5 accepts and MIT refuses", 0,
              (uint32_t)code);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum fk_type t;
    uint8_t *msg;
    size_t len;
    union fk_msg g;
    union mit_msg m;
    uint32_t gret;
    krb5_error_code mret;

    if (size < 1) {
        return 0;
    }
    t = (enum fk_type)(data[0] % FK_N_TYPES);
    len = size - 1;
    msg = fuzz_dup(data + 1, len);
    gret = fk_decode_checked(t, msg, len, &g);
    mret = mit_decode(t, msg, len, &m);
    if (gret == GK5_OK && mret == 0) {
        const char *why = diff(t, &g, &m);

        if (why != NULL) {
            fprintf(stderr, "diff_krb5: %s: field %s differs\n",
                    fk_type_name(t), why);
            fuzz_fail("gk5 and MIT read different fields", 0, 0);
        }
        n_both++;
        n_type_both[t]++;
    } else if (mret == 0) {
        classify_mit_only(t, msg, len, gret, &m);
    } else if (gret == GK5_OK) {
        classify_gk5_only(t, &g, mret);
    } else {
        n_neither++;
    }
    mit_free(t, &m);
    free(msg);
    return 0;
}
