/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Checks shared by the fuzz targets of the RFC 4120 codec: see
 * fuzz_krb.h.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "der/rfc4120_int.h"
#include "fuzz_krb.h"
#include "mech/gss_framing.h"

static const char *const type_names[FK_N_TYPES] = {
    [FK_AP_REQ] = "ap-req",
    [FK_AUTHENTICATOR] = "authenticator",
    [FK_ENC_TKT_PART] = "enc-tkt-part",
    [FK_AP_REP] = "ap-rep",
    [FK_ENC_AP_REP_PART] = "enc-ap-rep-part",
    [FK_KRB_ERROR] = "krb-error",
    [FK_TICKET] = "ticket",
    [FK_AS_REP] = "as-rep",
    [FK_TGS_REP] = "tgs-rep",
    [FK_ENC_KDC_REP_PART] = "enc-kdc-rep-part",
};

const char *fk_type_name(enum fk_type t)
{
    return (unsigned)t < FK_N_TYPES ? type_names[t] : "?";
}

uint32_t fk_decode(enum fk_type t, const uint8_t *in, size_t len,
                   union fk_msg *m)
{
    switch (t) {
    case FK_AP_REQ:
        return gk5i_decode_ap_req(in, len, &m->ap_req);
    case FK_AUTHENTICATOR:
        return gk5i_decode_authenticator(in, len, &m->authenticator);
    case FK_ENC_TKT_PART:
        return gk5i_decode_enc_tkt_part(in, len, &m->enc_tkt_part);
    case FK_AP_REP:
        return gk5i_decode_ap_rep(in, len, &m->ap_rep);
    case FK_ENC_AP_REP_PART:
        return gk5i_decode_enc_ap_rep_part(in, len, &m->enc_ap_rep_part);
    case FK_KRB_ERROR:
        return gk5i_decode_krb_error(in, len, &m->krb_error);
    case FK_TICKET:
        return gk5i_decode_ticket(in, len, &m->ticket);
    case FK_AS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_AS_REP, &m->kdc_rep);
    case FK_TGS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_TGS_REP, &m->kdc_rep);
    case FK_ENC_KDC_REP_PART:
        return gk5i_decode_enc_kdc_rep_part(in, len, &m->enc_kdc_rep_part);
    default:
        abort();
    }
}

uint32_t fk_encode(enum fk_type t, const union fk_msg *m, uint8_t *out,
                   size_t cap, size_t *len)
{
    switch (t) {
    case FK_AP_REQ:
        return gk5i_encode_ap_req(&m->ap_req, out, cap, len);
    case FK_AUTHENTICATOR:
        return gk5i_encode_authenticator(&m->authenticator, out, cap, len);
    case FK_ENC_TKT_PART:
        return gk5i_encode_enc_tkt_part(&m->enc_tkt_part, out, cap, len);
    case FK_AP_REP:
        return gk5i_encode_ap_rep(&m->ap_rep, out, cap, len);
    case FK_ENC_AP_REP_PART:
        return gk5i_encode_enc_ap_rep_part(&m->enc_ap_rep_part, out, cap, len);
    case FK_KRB_ERROR:
        return gk5i_encode_krb_error(&m->krb_error, out, cap, len);
    case FK_TICKET:
        return gk5i_encode_ticket(&m->ticket, out, cap, len);
    case FK_AS_REP:
    case FK_TGS_REP:
        return gk5i_encode_kdc_rep(&m->kdc_rep, out, cap, len);
    case FK_ENC_KDC_REP_PART:
        return gk5i_encode_enc_kdc_rep_part(&m->enc_kdc_rep_part, out, cap,
                                            len);
    default:
        abort();
    }
}

/* v lies within outer (an empty v anywhere). */
static bool inside(struct gk5i_view outer, struct gk5i_view v)
{
    return v.len == 0 || (v.p >= outer.p && v.len <= outer.len &&
                          (size_t)(v.p - outer.p) <= outer.len - v.len);
}

/* ---- equality ---- */

bool fk_view_eq(struct gk5i_view a, struct gk5i_view b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

bool fk_principal_eq(const struct gk5i_krb_principal *a,
                     const struct gk5i_krb_principal *b)
{
    if (a->name_type != b->name_type || a->ncomp != b->ncomp) {
        return false;
    }
    for (uint32_t i = 0; i < a->ncomp; i++) {
        if (!fk_view_eq(a->comp[i], b->comp[i])) {
            return false;
        }
    }
    return true;
}

static bool key_eq(const struct gk5i_krb_key *a, const struct gk5i_krb_key *b)
{
    return a->keytype == b->keytype && fk_view_eq(a->value, b->value);
}

static bool enc_data_eq(const struct gk5i_krb_enc_data *a,
                        const struct gk5i_krb_enc_data *b)
{
    return a->etype == b->etype && a->has_kvno == b->has_kvno &&
           a->kvno == b->kvno && fk_view_eq(a->cipher, b->cipher);
}

static bool ticket_eq(const struct gk5i_krb_ticket *a,
                      const struct gk5i_krb_ticket *b)
{
    return fk_view_eq(a->realm, b->realm) &&
           fk_principal_eq(&a->sname, &b->sname) &&
           enc_data_eq(&a->enc_part, &b->enc_part);
}

static bool enc_tkt_part_eq(const struct gk5i_krb_enc_tkt_part *a,
                            const struct gk5i_krb_enc_tkt_part *b)
{
    return a->flags == b->flags && key_eq(&a->key, &b->key) &&
           fk_view_eq(a->crealm, b->crealm) &&
           fk_principal_eq(&a->cname, &b->cname) &&
           a->transited_type == b->transited_type &&
           fk_view_eq(a->transited_contents, b->transited_contents) &&
           a->authtime == b->authtime && a->has_starttime == b->has_starttime &&
           a->starttime == b->starttime && a->endtime == b->endtime &&
           a->has_renew_till == b->has_renew_till &&
           a->renew_till == b->renew_till && fk_view_eq(a->caddr, b->caddr) &&
           fk_view_eq(a->authorization_data, b->authorization_data);
}

static bool authenticator_eq(const struct gk5i_krb_authenticator *a,
                             const struct gk5i_krb_authenticator *b)
{
    return fk_view_eq(a->crealm, b->crealm) &&
           fk_principal_eq(&a->cname, &b->cname) &&
           a->has_cksum == b->has_cksum &&
           a->cksum.cksumtype == b->cksum.cksumtype &&
           fk_view_eq(a->cksum.value, b->cksum.value) && a->cusec == b->cusec &&
           a->ctime == b->ctime && a->has_subkey == b->has_subkey &&
           key_eq(&a->subkey, &b->subkey) &&
           a->has_seq_number == b->has_seq_number &&
           a->seq_number == b->seq_number &&
           fk_view_eq(a->authorization_data, b->authorization_data);
}

static bool enc_ap_rep_part_eq(const struct gk5i_krb_enc_ap_rep_part *a,
                               const struct gk5i_krb_enc_ap_rep_part *b)
{
    return a->ctime == b->ctime && a->cusec == b->cusec &&
           a->has_subkey == b->has_subkey && key_eq(&a->subkey, &b->subkey) &&
           a->has_seq_number == b->has_seq_number &&
           a->seq_number == b->seq_number;
}

static bool krb_error_eq(const struct gk5i_krb_error *a,
                         const struct gk5i_krb_error *b)
{
    return a->has_ctime == b->has_ctime && a->ctime == b->ctime &&
           a->has_cusec == b->has_cusec && a->cusec == b->cusec &&
           a->stime == b->stime && a->susec == b->susec &&
           a->error_code == b->error_code && a->has_crealm == b->has_crealm &&
           fk_view_eq(a->crealm, b->crealm) && a->has_cname == b->has_cname &&
           fk_principal_eq(&a->cname, &b->cname) &&
           fk_view_eq(a->realm, b->realm) &&
           fk_principal_eq(&a->sname, &b->sname) &&
           a->has_e_text == b->has_e_text && fk_view_eq(a->e_text, b->e_text) &&
           a->has_e_data == b->has_e_data && fk_view_eq(a->e_data, b->e_data);
}

static bool kdc_rep_eq(const struct gk5i_krb_kdc_rep *a,
                       const struct gk5i_krb_kdc_rep *b)
{
    return a->msg_type == b->msg_type && fk_view_eq(a->padata, b->padata) &&
           fk_view_eq(a->crealm, b->crealm) &&
           fk_principal_eq(&a->cname, &b->cname) &&
           ticket_eq(&a->ticket, &b->ticket) &&
           enc_data_eq(&a->enc_part, &b->enc_part);
}

static bool enc_kdc_rep_part_eq(const struct gk5i_krb_enc_kdc_rep_part *a,
                                const struct gk5i_krb_enc_kdc_rep_part *b)
{
    return a->tag == b->tag && key_eq(&a->key, &b->key) &&
           fk_view_eq(a->last_req, b->last_req) && a->nonce == b->nonce &&
           a->has_key_expiration == b->has_key_expiration &&
           a->key_expiration == b->key_expiration && a->flags == b->flags &&
           a->authtime == b->authtime && a->has_starttime == b->has_starttime &&
           a->starttime == b->starttime && a->endtime == b->endtime &&
           a->has_renew_till == b->has_renew_till &&
           a->renew_till == b->renew_till && fk_view_eq(a->srealm, b->srealm) &&
           fk_principal_eq(&a->sname, &b->sname) &&
           fk_view_eq(a->caddr, b->caddr) &&
           fk_view_eq(a->encrypted_pa_data, b->encrypted_pa_data);
}

bool fk_equal(enum fk_type t, const union fk_msg *a, const union fk_msg *b)
{
    switch (t) {
    case FK_AP_REQ:
        return a->ap_req.ap_options == b->ap_req.ap_options &&
               ticket_eq(&a->ap_req.ticket, &b->ap_req.ticket) &&
               enc_data_eq(&a->ap_req.authenticator, &b->ap_req.authenticator);
    case FK_AUTHENTICATOR:
        return authenticator_eq(&a->authenticator, &b->authenticator);
    case FK_ENC_TKT_PART:
        return enc_tkt_part_eq(&a->enc_tkt_part, &b->enc_tkt_part);
    case FK_AP_REP:
        return enc_data_eq(&a->ap_rep.enc_part, &b->ap_rep.enc_part);
    case FK_ENC_AP_REP_PART:
        return enc_ap_rep_part_eq(&a->enc_ap_rep_part, &b->enc_ap_rep_part);
    case FK_KRB_ERROR:
        return krb_error_eq(&a->krb_error, &b->krb_error);
    case FK_TICKET:
        return ticket_eq(&a->ticket, &b->ticket);
    case FK_AS_REP:
    case FK_TGS_REP:
        return kdc_rep_eq(&a->kdc_rep, &b->kdc_rep);
    case FK_ENC_KDC_REP_PART:
        return enc_kdc_rep_part_eq(&a->enc_kdc_rep_part, &b->enc_kdc_rep_part);
    default:
        abort();
    }
}

/* ---- views inside the input ---- */

static bool in_input(struct gk5i_view v, const uint8_t *in, size_t len)
{
    struct gk5i_view all = {in, len};

    return v.p == NULL ? v.len == 0 : inside(all, v);
}

static bool principal_in(const struct gk5i_krb_principal *p, const uint8_t *in,
                         size_t len)
{
    if (p->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        return false;
    }
    for (uint32_t i = 0; i < p->ncomp; i++) {
        if (!in_input(p->comp[i], in, len)) {
            return false;
        }
    }
    return true;
}

static bool ticket_in(const struct gk5i_krb_ticket *t, const uint8_t *in,
                      size_t len)
{
    return in_input(t->realm, in, len) && principal_in(&t->sname, in, len) &&
           in_input(t->enc_part.cipher, in, len);
}

void fk_check_views(enum fk_type t, const uint8_t *in, size_t len,
                    const union fk_msg *m)
{
    bool ok;

    switch (t) {
    case FK_AP_REQ:
        ok = ticket_in(&m->ap_req.ticket, in, len) &&
             in_input(m->ap_req.ticket_der, in, len) &&
             m->ap_req.ticket_der.len != 0 &&
             in_input(m->ap_req.authenticator.cipher, in, len);
        break;
    case FK_AUTHENTICATOR: {
        const struct gk5i_krb_authenticator *a = &m->authenticator;

        ok = in_input(a->crealm, in, len) && principal_in(&a->cname, in, len) &&
             in_input(a->cksum.value, in, len) &&
             in_input(a->subkey.value, in, len) &&
             in_input(a->authorization_data, in, len) &&
             (a->has_cksum || a->cksum.value.len == 0) &&
             (a->has_subkey || a->subkey.value.len == 0) &&
             (a->has_seq_number || a->seq_number == 0) && a->cusec <= 999999;
        break;
    }
    case FK_ENC_TKT_PART: {
        const struct gk5i_krb_enc_tkt_part *e = &m->enc_tkt_part;

        ok = in_input(e->key.value, in, len) && in_input(e->crealm, in, len) &&
             principal_in(&e->cname, in, len) &&
             in_input(e->transited_contents, in, len) &&
             in_input(e->caddr, in, len) &&
             in_input(e->authorization_data, in, len);
        break;
    }
    case FK_AP_REP:
        ok = in_input(m->ap_rep.enc_part.cipher, in, len);
        break;
    case FK_ENC_AP_REP_PART:
        ok = in_input(m->enc_ap_rep_part.subkey.value, in, len) &&
             m->enc_ap_rep_part.cusec <= 999999;
        break;
    case FK_KRB_ERROR: {
        const struct gk5i_krb_error *e = &m->krb_error;

        ok = in_input(e->crealm, in, len) && principal_in(&e->cname, in, len) &&
             in_input(e->realm, in, len) && principal_in(&e->sname, in, len) &&
             in_input(e->e_text, in, len) && in_input(e->e_data, in, len) &&
             e->susec <= 999999 && e->cusec <= 999999 &&
             (e->has_e_text || e->e_text.len == 0) &&
             (e->has_e_data || e->e_data.len == 0);
        break;
    }
    case FK_TICKET:
        ok = ticket_in(&m->ticket, in, len);
        break;
    case FK_AS_REP:
    case FK_TGS_REP: {
        const struct gk5i_krb_kdc_rep *r = &m->kdc_rep;

        ok = (r->msg_type ==
              (t == FK_AS_REP ? GK5I_KRB_TAG_AS_REP : GK5I_KRB_TAG_TGS_REP)) &&
             in_input(r->padata, in, len) && in_input(r->crealm, in, len) &&
             principal_in(&r->cname, in, len) &&
             ticket_in(&r->ticket, in, len) &&
             in_input(r->ticket_der, in, len) && r->ticket_der.len != 0 &&
             in_input(r->enc_part.cipher, in, len);
        break;
    }
    case FK_ENC_KDC_REP_PART: {
        const struct gk5i_krb_enc_kdc_rep_part *e = &m->enc_kdc_rep_part;

        ok = (e->tag == GK5I_KRB_TAG_ENC_AS_REP_PART ||
              e->tag == GK5I_KRB_TAG_ENC_TGS_REP_PART) &&
             in_input(e->key.value, in, len) &&
             in_input(e->last_req, in, len) && e->last_req.len >= 2 &&
             in_input(e->srealm, in, len) && principal_in(&e->sname, in, len) &&
             in_input(e->caddr, in, len) &&
             in_input(e->encrypted_pa_data, in, len) &&
             (e->has_key_expiration || e->key_expiration == 0) &&
             (e->has_starttime || e->starttime == 0) &&
             (e->has_renew_till || e->renew_till == 0);
        break;
    }
    default:
        abort();
    }
    if (!ok) {
        fuzz_fail("a decoded field lies outside the input or its range", 0, 0);
    }
}

/* ---- round trip ---- */

/* The codec's two tolerated forms that re-encode differently. */
static bool tolerated_form(enum fk_type t, const uint8_t *in, size_t len,
                           const union fk_msg *m)
{
    if ((fk_scan(in, len, NULL) & FK_FORM_BITS_LONG) != 0) {
        return true;
    }
    switch (t) {
    case FK_AUTHENTICATOR:
        return m->authenticator.has_seq_number &&
               m->authenticator.seq_number >= 0x80000000u;
    case FK_ENC_AP_REP_PART:
        return m->enc_ap_rep_part.has_seq_number &&
               m->enc_ap_rep_part.seq_number >= 0x80000000u;
    case FK_ENC_KDC_REP_PART:
        return m->enc_kdc_rep_part.nonce >= 0x80000000u;
    default:
        return false;
    }
}

/* Encodes m into a heap block of exactly its length (ASan sees any write
 * past it); checks the measuring walk and the short buffer answer. */
static uint8_t *encode_exact(enum fk_type t, const union fk_msg *m, size_t *len)
{
    uint8_t *out;
    size_t need = 0, got = 0;
    uint32_t ret;

    ret = fk_encode(t, m, NULL, 0, &need);
    if (ret != GK5_OK || need == 0) {
        fuzz_fail("a decoded message does not re-encode", ret, 0);
    }
    out = fuzz_dup(NULL, need);
    ret = fk_encode(t, m, out, need - 1, &got);
    if (ret != GK5_ERR_BUFFER_TOO_SMALL || got != need) {
        fuzz_fail("the encoder's answer to a short buffer is wrong", ret, 0);
    }
    got = 0;
    ret = fk_encode(t, m, out, need, &got);
    if (ret != GK5_OK || got != need) {
        fuzz_fail("the encoder writes another length than it measured", ret, 0);
    }
    *len = need;
    return out;
}

void fk_check_round_trip(enum fk_type t, const uint8_t *in, size_t len,
                         const union fk_msg *m)
{
    union fk_msg again;
    uint8_t *out, *out2;
    size_t n, n2;
    uint32_t ret;

    out = encode_exact(t, m, &n);
    if (n == len && memcmp(out, in, len) == 0) {
        free(out);
        return;
    }
    if (!tolerated_form(t, in, len, m)) {
        fuzz_fail("a decoded message re-encodes to other bytes", 0, 0);
    }
    ret = fk_decode(t, out, n, &again);
    if (ret != GK5_OK || !fk_equal(t, m, &again)) {
        fuzz_fail("a re-encoded message decodes to other fields", ret, 0);
    }
    out2 = encode_exact(t, &again, &n2);
    if (n2 != n || memcmp(out2, out, n) != 0) {
        fuzz_fail("a re-encoding is not its own re-encoding", 0, 0);
    }
    free(out2);
    free(out);
}

/* The decoder of type t with out NULL. */
static uint32_t decode_to_null(enum fk_type t, const uint8_t *in, size_t len)
{
    switch (t) {
    case FK_AP_REQ:
        return gk5i_decode_ap_req(in, len, NULL);
    case FK_AUTHENTICATOR:
        return gk5i_decode_authenticator(in, len, NULL);
    case FK_ENC_TKT_PART:
        return gk5i_decode_enc_tkt_part(in, len, NULL);
    case FK_AP_REP:
        return gk5i_decode_ap_rep(in, len, NULL);
    case FK_ENC_AP_REP_PART:
        return gk5i_decode_enc_ap_rep_part(in, len, NULL);
    case FK_KRB_ERROR:
        return gk5i_decode_krb_error(in, len, NULL);
    case FK_TICKET:
        return gk5i_decode_ticket(in, len, NULL);
    case FK_AS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_AS_REP, NULL);
    case FK_TGS_REP:
        return gk5i_decode_kdc_rep(in, len, GK5I_KRB_TAG_TGS_REP, NULL);
    case FK_ENC_KDC_REP_PART:
        return gk5i_decode_enc_kdc_rep_part(in, len, NULL);
    default:
        abort();
    }
}

static void want(uint32_t got, uint32_t expected, const char *what)
{
    if (got != expected) {
        fuzz_fail(what, got, expected);
    }
}

/* What a decoder left of its reader: all of it when it refused before
 * reading (and the reader is not bad), none when it read its value. */
static void want_left(const struct gk5i_rd *r, size_t left, const char *what)
{
    if (r->bad || gk5i_rd_left(r) != left) {
        fuzz_fail(what, (uint32_t)gk5i_rd_left(r), (uint32_t)left);
    }
}

/* The KDC reply decoder takes only the two replies' msg-types, and the
 * ETYPE-INFO2 walk (as the AuthorizationData walk above) every output and
 * a view with bytes behind its length. */
static void check_kdc_arguments(const uint8_t *huge, size_t big)
{
    static const uint8_t seq[] = {0x30, 0x00};
    struct gk5i_krb_kdc_rep rep;
    struct gk5i_krb_etype_info2 e;
    struct gk5i_view v = {seq, sizeof(seq)};
    size_t pos = 0;
    bool more = true;

    want(gk5i_decode_kdc_rep(seq, sizeof(seq), GK5I_KRB_TAG_AP_REP, &rep),
         GK5_ERR_INVALID_ARGUMENT, "kdc_rep takes a msg-type not a reply's");
    want(gk5i_decode_kdc_rep(seq, sizeof(seq), GK5I_KRB_TAG_AS_REQ, &rep),
         GK5_ERR_INVALID_ARGUMENT, "kdc_rep takes a request's msg-type");
    want(gk5i_etype_info2_next(v, NULL, &more, &e), GK5_ERR_INVALID_ARGUMENT,
         "etype_info2_next takes pos NULL");
    if (more) {
        fuzz_fail("etype_info2_next refused, more left true", 0, 0);
    }
    want(gk5i_etype_info2_next(v, &pos, NULL, &e), GK5_ERR_INVALID_ARGUMENT,
         "etype_info2_next takes more NULL");
    want(gk5i_etype_info2_next(v, &pos, &more, NULL), GK5_ERR_INVALID_ARGUMENT,
         "etype_info2_next takes entry NULL");
    want(gk5i_etype_info2_next(v, NULL, NULL, NULL), GK5_ERR_INVALID_ARGUMENT,
         "etype_info2_next takes no outputs");
    v.p = NULL;
    want(gk5i_etype_info2_next(v, &pos, &more, &e), GK5_ERR_INVALID_ARGUMENT,
         "etype_info2_next takes NULL with a length");
    v.len = 0;
    want(gk5i_etype_info2_next(v, &pos, &more, &e), GK5_ERR_DER,
         "etype_info2_next takes an empty ETYPE-INFO2");
    v.p = huge;
    v.len = big;
    want(gk5i_etype_info2_next(v, &pos, &more, &e), GK5_ERR_DER_LIMIT,
         "etype_info2_next takes more than GK5I_KRB_MAX_MESSAGE");
    want(gk5i_padata_next(v, &pos, &more, &e.etype, &e.salt), GK5_ERR_DER_LIMIT,
         "padata_next takes more than GK5I_KRB_MAX_MESSAGE");
}

/* The decoders other decoders enter (Ticket and the sub-types), entered
 * at the nesting limit where no constructed value fits, refuse with
 * GK5_ERR_DER_LIMIT (Ticket and the (type, octets) pair before reading:
 * the reader neither moved nor bad; the [n] fields once inside their
 * tag); at depth 0 each reads its value whole. */
static void check_depth_limit(void)
{
    /* A Ticket: [APPLICATION 1] SEQUENCE { tkt-vno [0] 5, realm [1] "R",
     * sname [2] { [0] 1, [1] { "svc" } }, enc-part [3] { [0] 17, [2] 00 } }
     */
    static const uint8_t ticket[] = {
        0x61, 0x2c, 0x30, 0x2a, 0xa0, 0x03, 0x02, 0x01, 0x05, 0xa1, 0x03, 0x1b,
        0x01, 0x52, 0xa2, 0x10, 0x30, 0x0e, 0xa0, 0x03, 0x02, 0x01, 0x01, 0xa1,
        0x07, 0x30, 0x05, 0x1b, 0x03, 0x73, 0x76, 0x63, 0xa3, 0x0c, 0x30, 0x0a,
        0xa0, 0x03, 0x02, 0x01, 0x11, 0xa2, 0x03, 0x04, 0x01, 0x00};
    /* [0] { SEQUENCE { [0] 17, [1] 16 octets } }, the shape of an
     * EncryptionKey field. */
    static const uint8_t key[] = {
        0xa0, 0x1b, 0x30, 0x19, 0xa0, 0x03, 0x02, 0x01, 0x11, 0xa1,
        0x12, 0x04, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
        0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
    /* [0] { SEQUENCE OF { SEQUENCE { [0] 1, [1] "" } } } */
    static const uint8_t list[] = {0xa0, 0x0d, 0x30, 0x0b, 0x30,
                                   0x09, 0xa0, 0x03, 0x02, 0x01,
                                   0x01, 0xa1, 0x02, 0x04, 0x00};
    const unsigned depths[] = {GK5I_DER_MAX_DEPTH, 0};
    struct gk5i_krb_ticket t;
    struct gk5i_krb_key k;
    struct gk5i_krb_principal pn;
    struct gk5i_krb_enc_data ed;
    struct gk5i_view whole, value;
    int32_t type;
    struct gk5i_rd r;

    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        unsigned d = depths[i];
        bool deep = d != 0;
        uint32_t expect = deep ? GK5_ERR_DER_LIMIT : GK5_OK;

        /* Zeroed, as the entry points zero their outputs (a name's
         * components are counted up from 0). */
        memset(&t, 0, sizeof(t));
        memset(&k, 0, sizeof(k));
        memset(&pn, 0, sizeof(pn));
        memset(&ed, 0, sizeof(ed));
        gk5i_rd_init(&r, ticket, sizeof(ticket));
        want(gk5i_dec_ticket(&r, d, &t), expect, "a Ticket at a depth");
        want_left(&r, deep ? sizeof(ticket) : 0, "a Ticket at a depth");
        gk5i_rd_init(&r, key, sizeof(key));
        want(gk5i_dec_key_field(&r, d, 0, &k), expect, "a key at a depth");
        gk5i_rd_init(&r, list, sizeof(list));
        want(gk5i_dec_list_field(&r, d, 0, 0, &whole), expect,
             "a SEQUENCE OF at a depth");
        /* The element of that list. */
        gk5i_rd_init(&r, list + 4, sizeof(list) - 4);
        want(gk5i_dec_type_and_octets(&r, d, 0, &type, &value), expect,
             "a (type, octets) pair at a depth");
        want_left(&r, deep ? sizeof(list) - 4 : 0,
                  "a (type, octets) pair at a depth");
        /* The Ticket's sname [2] and enc-part [3]. */
        gk5i_rd_init(&r, ticket + 14, 18);
        want(gk5i_dec_principal_field(&r, d, 2, &pn), expect,
             "a PrincipalName at a depth");
        gk5i_rd_init(&r, ticket + 32, sizeof(ticket) - 32);
        want(gk5i_dec_enc_data_field(&r, d, 3, &ed), expect,
             "an EncryptedData at a depth");
    }
}

/* What rfc4120.h says of arguments no message can bring: NULL pointers,
 * inputs over GK5I_KRB_MAX_MESSAGE, an AuthorizationData position that
 * is not an element's, times outside years 0..9999. */
static void check_arguments(void)
{
    static const uint8_t seq[] = {0x30, 0x00};
    const size_t big = GK5I_KRB_MAX_MESSAGE + 1;
    uint8_t *huge = fuzz_dup(NULL, big);
    struct gk5i_view v = {huge, big}, data;
    union fk_msg m;
    uint8_t s[15];
    gk5i_krb_time t;
    int32_t et[1], type;
    size_t pos = 0, n;
    bool more;

    for (int i = 0; i < FK_N_TYPES; i++) {
        enum fk_type ty = (enum fk_type)i;

        want(decode_to_null(ty, seq, sizeof(seq)), GK5_ERR_INVALID_ARGUMENT,
             "a decoder takes out NULL");
        want(fk_decode(ty, NULL, 1, &m), GK5_ERR_INVALID_ARGUMENT,
             "a decoder takes in NULL with a length");
        want(fk_decode(ty, NULL, 0, &m), GK5_ERR_DER,
             "a decoder takes no input");
        want(fk_decode(ty, huge, big, &m), GK5_ERR_DER_LIMIT,
             "a decoder takes more than GK5I_KRB_MAX_MESSAGE");
    }
    want(gk5i_authz_next(v, &pos, &more, &type, &data), GK5_ERR_DER_LIMIT,
         "authz_next takes more than GK5I_KRB_MAX_MESSAGE");
    v.p = NULL;
    want(gk5i_authz_next(v, &pos, &more, &type, &data),
         GK5_ERR_INVALID_ARGUMENT, "authz_next takes NULL with a length");
    v.p = seq;
    v.len = sizeof(seq);
    want(gk5i_authz_next(v, NULL, &more, &type, &data),
         GK5_ERR_INVALID_ARGUMENT, "authz_next takes pos NULL");
    want(gk5i_authz_next(v, &pos, NULL, &type, &data), GK5_ERR_INVALID_ARGUMENT,
         "authz_next takes more NULL");
    want(gk5i_authz_next(v, &pos, &more, NULL, &data), GK5_ERR_INVALID_ARGUMENT,
         "authz_next takes ad_type NULL");
    want(gk5i_authz_next(v, &pos, &more, &type, NULL), GK5_ERR_INVALID_ARGUMENT,
         "authz_next takes ad_data NULL");
    pos = 1; /* inside the SEQUENCE OF's header */
    want(gk5i_authz_next(v, &pos, &more, &type, &data),
         GK5_ERR_INVALID_ARGUMENT, "authz_next takes a position in a header");
    pos = 3; /* past the end */
    want(gk5i_authz_next(v, &pos, &more, &type, &data),
         GK5_ERR_INVALID_ARGUMENT, "authz_next takes a position past the end");
    v.p = huge;
    v.len = big;
    want(gk5i_decode_etype_list(v, et, 1, &n), GK5_ERR_DER_LIMIT,
         "an etype list takes more than GK5I_KRB_MAX_MESSAGE");
    v.p = seq;
    v.len = sizeof(seq);
    want(gk5i_decode_etype_list(v, et, 1, NULL), GK5_ERR_INVALID_ARGUMENT,
         "an etype list takes n NULL");
    want(gk5i_decode_etype_list(v, NULL, 1, &n), GK5_ERR_INVALID_ARGUMENT,
         "an etype list takes out NULL with max");
    v.p = NULL;
    want(gk5i_decode_etype_list(v, et, 1, &n), GK5_ERR_INVALID_ARGUMENT,
         "an etype list takes NULL with a length");
    v.len = 0;
    want(gk5i_decode_etype_list(v, et, 1, &n), GK5_ERR_DER,
         "an etype list takes no input");
    v.p = seq;
    v.len = sizeof(seq);
    want(gk5i_decode_etype_list(v, NULL, 0, &n), GK5_OK,
         "an empty etype list needs room");
    want(gk5i_krb_time_parse(seq, 15, NULL), GK5_ERR_INVALID_ARGUMENT,
         "time_parse takes t NULL");
    want(gk5i_krb_time_parse(NULL, 15, &t), GK5_ERR_INVALID_ARGUMENT,
         "time_parse takes s NULL");
    want(gk5i_krb_time_parse(NULL, 0, &t), GK5_ERR_DER,
         "time_parse takes an empty time");
    want(gk5i_krb_time_format(0, NULL), GK5_ERR_INVALID_ARGUMENT,
         "time_format takes out NULL");
    want(gk5i_krb_time_format(-62167219201, s), GK5_ERR_INVALID_ARGUMENT,
         "time_format takes a time before year 0");
    want(gk5i_krb_time_format(253402300800, s), GK5_ERR_INVALID_ARGUMENT,
         "time_format takes a time after year 9999");
    check_kdc_arguments(huge, big);
    check_depth_limit();
    free(huge);
}

uint32_t fk_decode_checked(enum fk_type t, const uint8_t *in, size_t len,
                           union fk_msg *m)
{
    static bool arguments_checked;
    uint32_t ret;

    /* libFuzzer runs the empty input first in every process. */
    if (len == 0 && !arguments_checked) {
        check_arguments();
        arguments_checked = true;
    }
    ret = fk_decode(t, in, len, m);
    if (ret == GK5_OK) {
        fk_check_views(t, in, len, m);
        fk_check_round_trip(t, in, len, m);
    } else if (ret != GK5_ERR_DER && ret != GK5_ERR_DER_LIMIT &&
               ret != GK5_ERR_KRB_MSG_TYPE) {
        fuzz_fail("a decoder's answer is not one it documents", ret, 0);
    }
    return ret;
}

/* ---- RFC 2743 framing ---- */

bool fk_unframe(const uint8_t *in, size_t len, uint8_t tok_id_hi,
                const uint8_t **inner, size_t *inner_len)
{
    enum gk5i_frame_mech mech;
    size_t off = 0;

    *inner = in;
    *inner_len = len;
    if (len == 0 || in[0] != 0x60) {
        return true;
    }
    if (gk5i_frame_parse_mech(in, len, len, &off, &mech) != GK5_OK) {
        return false;
    }
    if (off > len || len - off < 2 || in[off] != tok_id_hi ||
        in[off + 1] != 0x00) {
        return false;
    }
    *inner = in + off + 2;
    *inner_len = len - off - 2;
    return true;
}

/* ---- AuthorizationData ---- */

/* RFC 4537: an EtypeList, and the AD-IF-RELEVANT wrapping of it that an
 * initiator sends, which must walk back to the same list. */
static void try_etype_list(struct gk5i_view data)
{
    int32_t et[16], et2[16];
    size_t n = 99, n2 = 0, len = 0, pos = 0, ipos = 0;
    uint8_t *ad;
    struct gk5i_view inner, elist;
    int32_t type = 0;
    bool more = false;
    uint32_t ret;

    ret = gk5i_decode_etype_list(data, et, 16, &n);
    if (ret != GK5_OK) {
        if (n != 0) {
            fuzz_fail("a refused etype list reports a count", ret, 0);
        }
        return;
    }
    if (n > 0) {
        /* One fewer than there are: the limit must be reported. */
        ret = gk5i_decode_etype_list(data, et2, n - 1, &n2);
        if (ret != GK5_ERR_DER_LIMIT || n2 != 0) {
            fuzz_fail("an etype list over max is not GK5_ERR_DER_LIMIT", ret,
                      0);
        }
    }
    ret = gk5i_encode_etype_list_ad(et, n, NULL, 0, &len);
    if (ret != GK5_OK) {
        fuzz_fail("a decoded etype list does not encode", ret, 0);
    }
    ad = fuzz_dup(NULL, len);
    ret = gk5i_encode_etype_list_ad(et, n, ad, len, &len);
    if (ret != GK5_OK) {
        fuzz_fail("a decoded etype list does not encode", ret, 0);
    }
    inner.p = ad;
    inner.len = len;
    ret = gk5i_authz_next(inner, &pos, &more, &type, &inner);
    if (ret != GK5_OK || !more || type != GK5I_AD_IF_RELEVANT) {
        fuzz_fail("the etype list AD is not one AD-IF-RELEVANT", ret, 0);
    }
    ret = gk5i_authz_next(inner, &ipos, &more, &type, &elist);
    if (ret != GK5_OK || !more || type != GK5I_AD_GSS_API_ETYPE_NEGOTIATION) {
        fuzz_fail("the AD-IF-RELEVANT does not hold the etype list", ret, 0);
    }
    ret = gk5i_decode_etype_list(elist, et2, 16, &n2);
    if (ret != GK5_OK || n2 != n ||
        (n != 0 && memcmp(et, et2, n * sizeof(et[0])) != 0)) {
        fuzz_fail("the etype list AD does not give the list back", ret, 0);
    }
    free(ad);
}

size_t fk_walk_authz(struct gk5i_view ad, bool must_walk, unsigned depth)
{
    size_t pos = 0, count = 0, last = 0;
    bool more = true;

    while (more) {
        struct gk5i_view data;
        int32_t type;
        size_t before = pos;
        uint32_t ret = gk5i_authz_next(ad, &pos, &more, &type, &data);

        if (ret != GK5_OK) {
            if (must_walk || more || type != 0 || data.p != NULL ||
                data.len != 0 || pos != before) {
                fuzz_fail("a refused AuthorizationData step left state", ret,
                          0);
            }
            return count;
        }
        if (!more) {
            if (pos != before || data.len != 0 || type != 0) {
                fuzz_fail("the end of AuthorizationData left state", 0, 0);
            }
            break;
        }
        if (pos <= last || pos > ad.len || !inside(ad, data)) {
            fuzz_fail("an AuthorizationData element is out of place", 0, 0);
        }
        last = pos;
        count++;
        try_etype_list(data);
        if (type == GK5I_AD_IF_RELEVANT && depth > 0) {
            (void)fk_walk_authz(data, false, depth - 1);
        }
    }
    return count;
}

/* ---- PA-DATA and ETYPE-INFO2 ---- */

size_t fk_walk_etype_info2(struct gk5i_view seq)
{
    size_t pos = 0, count = 0, last = 0;
    bool more = true;

    while (more) {
        struct gk5i_krb_etype_info2 e;
        size_t before = pos;
        uint32_t ret = gk5i_etype_info2_next(seq, &pos, &more, &e);

        if (ret != GK5_OK) {
            if (more || e.etype != 0 || e.has_salt || e.has_s2kparams ||
                e.salt.p != NULL || e.s2kparams.p != NULL || pos != before) {
                fuzz_fail("a refused ETYPE-INFO2 step left state", ret, 0);
            }
            return count;
        }
        if (!more) {
            if (pos != before || count == 0) {
                fuzz_fail("ETYPE-INFO2 ended wrong", 0, 0);
            }
            break;
        }
        if (pos <= last || pos > seq.len || !inside(seq, e.salt) ||
            !inside(seq, e.s2kparams) || (!e.has_salt && e.salt.len != 0) ||
            (!e.has_s2kparams && e.s2kparams.len != 0)) {
            fuzz_fail("an ETYPE-INFO2 entry is out of place", 0, 0);
        }
        last = pos;
        count++;
    }
    return count;
}

size_t fk_walk_padata(struct gk5i_view seq, bool must_walk)
{
    size_t pos = 0, count = 0, last = 0;
    bool more = true;

    while (more) {
        struct gk5i_view value;
        int32_t type;
        size_t before = pos;
        uint32_t ret = gk5i_padata_next(seq, &pos, &more, &type, &value);

        if (ret != GK5_OK) {
            if (must_walk || more || type != 0 || value.p != NULL ||
                value.len != 0 || pos != before) {
                fuzz_fail("a refused PA-DATA step left state", ret, 0);
            }
            return count;
        }
        if (!more) {
            if (pos != before || value.len != 0 || type != 0) {
                fuzz_fail("the end of PA-DATA left state", 0, 0);
            }
            break;
        }
        if (pos <= last || pos > seq.len || !inside(seq, value)) {
            fuzz_fail("a PA-DATA element is out of place", 0, 0);
        }
        last = pos;
        count++;
        (void)fk_walk_etype_info2(value);
    }
    return count;
}

/* ---- lenient BER walk ---- */

static const char *const form_names[FK_FORM_COUNT] = {
    "non-minimal length",
    "indefinite length",
    "length of 5+ octets",
    "high tag number",
    "trailing bytes",
    "non-minimal INTEGER",
    "empty INTEGER",
    "BIT STRING < 32 bits",
    "BIT STRING unused bits",
    "BIT STRING > 32 bits",
    "bad KerberosTime",
    "constructed primitive type",
    "primitive SEQUENCE or tag",
    "not BER",
};

const char *fk_form_name(unsigned bit_index)
{
    return bit_index < FK_FORM_COUNT ? form_names[bit_index] : "?";
}

struct scan {
    unsigned forms;
    size_t values;
};

/* Walks the TLV at p[0..n) and, if constructed, what it holds (the
 * indefinite form's contents run to its end-of-contents octets); notes
 * the forms found in s.  Returns the bytes it took, 0 where it could not
 * read on. */
static size_t walk(struct scan *s, const uint8_t *p, size_t n, unsigned depth);

/* The contents of an indefinite length, up to and with its end-of-contents
 * octets (*used bytes); false if they do not end. */
static bool walk_contents_indef(struct scan *s, const uint8_t *p, size_t n,
                                unsigned depth, size_t *used)
{
    size_t at = 0;

    while (at + 2 <= n && !(p[at] == 0 && p[at + 1] == 0)) {
        size_t k = walk(s, p + at, n - at, depth + 1);

        if (k == 0) {
            return false;
        }
        at += k;
    }
    if (at + 2 > n) {
        return false;
    }
    *used = at + 2;
    return true;
}

static size_t walk(struct scan *s, const uint8_t *p, size_t n, unsigned depth)
{
    size_t at = 1, len = 0, used = 0, octets = 0;
    uint8_t tag;
    unsigned number;
    bool constructed;

    if (n < 2 || depth > 64) {
        s->forms |= FK_FORM_UNPARSED;
        return 0;
    }
    s->values++;
    tag = p[0];
    constructed = (tag & 0x20) != 0;
    number = tag & 0x1f;
    if (number == 0x1f) {
        s->forms |= FK_FORM_TAG_HIGH;
        number = 0;
        do {
            if (at >= n || number > 0xffffff) {
                s->forms |= FK_FORM_UNPARSED;
                return 0;
            }
            number = number << 7 | (p[at] & 0x7f);
        } while (p[at++] & 0x80);
    }
    if (at >= n) {
        s->forms |= FK_FORM_UNPARSED;
        return 0;
    }
    if (p[at] == 0x80) {
        at++;
        if (!constructed) {
            s->forms |= FK_FORM_UNPARSED;
            return 0;
        }
        s->forms |= FK_FORM_LEN_INDEFINITE;
        if (!walk_contents_indef(s, p + at, n - at, depth, &used)) {
            s->forms |= FK_FORM_UNPARSED;
            return 0;
        }
        return at + used;
    }
    if (p[at] & 0x80) {
        size_t k = p[at++] & 0x7f;

        octets = k;
        if (k > 8 || k > n - at) {
            s->forms |= FK_FORM_UNPARSED;
            return 0;
        }
        if (p[at] == 0) {
            s->forms |= FK_FORM_LEN_NONMINIMAL;
        }
        for (size_t i = 0; i < k; i++) {
            len = len << 8 | p[at++];
        }
        if (len < 0x80) {
            s->forms |= FK_FORM_LEN_NONMINIMAL;
        }
    } else {
        len = p[at++];
    }
    if (len > n - at) {
        s->forms |= FK_FORM_UNPARSED;
        return 0;
    }
    if (octets > 4) {
        s->forms |= FK_FORM_LEN_HUGE; /* only once it proved a length */
    }
    p += at;
    if ((tag & 0xc0) == 0 && number != 0x10 && number != 0x11 && constructed) {
        s->forms |= FK_FORM_CONSTRUCTED; /* BER's constructed strings */
    }
    if (((tag & 0xc0) == 0 && (number == 0x10 || number == 0x11)) ||
        (tag & 0xc0) != 0) {
        if (!constructed) {
            s->forms |= FK_FORM_PRIMITIVE;
        }
    }
    if (constructed) {
        size_t off = 0;

        while (off < len) {
            size_t k = walk(s, p + off, len - off, depth + 1);

            if (k == 0) {
                return 0;
            }
            off += k;
        }
    } else if (tag == 0x02) {
        if (len == 0) {
            s->forms |= FK_FORM_INT_EMPTY;
        } else if (len > 1 && ((p[0] == 0x00 && !(p[1] & 0x80)) ||
                               (p[0] == 0xff && (p[1] & 0x80)))) {
            s->forms |= FK_FORM_INT_NONMINIMAL;
        }
    } else if (tag == 0x03) {
        if (len == 0 || p[0] > 7 ||
            (len > 1 && (p[len - 1] & ((1u << p[0]) - 1)) != 0) ||
            (len == 1 && p[0] != 0)) {
            s->forms |= FK_FORM_BITS_UNUSED;
        } else if ((len - 1) * 8 - p[0] < 32) {
            s->forms |= FK_FORM_BITS_SHORT;
        } else if (len > 5) {
            s->forms |= FK_FORM_BITS_LONG;
        }
    } else if (tag == 0x18) {
        gk5i_krb_time t;

        if (gk5i_krb_time_parse(p, len, &t) != GK5_OK) {
            s->forms |= FK_FORM_TIME;
        }
    }
    return at + len;
}

unsigned fk_scan(const uint8_t *in, size_t len, size_t *nvalues)
{
    struct scan s = {0, 0};
    size_t k = walk(&s, in, len, 0);

    if (k != 0 && k < len) {
        s.forms |= FK_FORM_TRAILING;
    }
    if (nvalues != NULL) {
        *nvalues = s.values;
    }
    return s.forms;
}
