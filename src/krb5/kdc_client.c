/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC client: the AS exchange (RFC 4120 3.1) with PA-ENC-TIMESTAMP
 * pre-authentication, the TGS exchange (RFC 4120 3.3) with PA-TGS-REQ, and
 * a KRB-ERROR in words for gk5_krb_last_error().
 *
 * A reply is checked whole before anything of it is returned: its type,
 * the decryption of its encrypted part, the nonce, the client, the
 * service named in the ENCRYPTED part (never the ticket's clear sname:
 * Heimdal's CVE-2017-11103), the enctypes of the ticket, the reply and
 * the session key (rc4 and DES refused, RFC 8429), and the times.  Keys,
 * passwords and decrypted parts are wiped on every path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/trace.h"
#include "krb5_int.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_PA_ENC_TS 1
#define KU_AS_REP_ENCPART 3
#define KU_TGS_REQ_AUTH_CKSUM 6
#define KU_TGS_REQ_AUTH 7
#define KU_TGS_REP_ENCPART_SESSKEY 8
#define KU_TGS_REP_ENCPART_SUBKEY 9

/* RFC 4120 7.5.9 error codes the client acts on. */
#define KDC_ERR_C_PRINCIPAL_UNKNOWN 6
#define KDC_ERR_S_PRINCIPAL_UNKNOWN 7
#define KDC_ERR_ETYPE_NOSUPP 14
#define KDC_ERR_KEY_EXPIRED 23
#define KDC_ERR_PREAUTH_FAILED 24
#define KDC_ERR_PREAUTH_REQUIRED 25
#define KRB_AP_ERR_BAD_INTEGRITY 31
#define KRB_AP_ERR_TKT_EXPIRED 32
#define KRB_AP_ERR_TKT_NYV 33
#define KRB_AP_ERR_REPEAT 34
#define KRB_AP_ERR_NOT_US 35
#define KRB_AP_ERR_BADMATCH 36
#define KRB_AP_ERR_SKEW 37
#define KRB_AP_ERR_MODIFIED 41
#define KRB_AP_ERR_BADKEYVER 44
#define KRB_AP_ERR_NOKEY 45
#define KRB_AP_ERR_METHOD 48
#define KRB_AP_ERR_INAPP_CKSUM 50

/* RFC 4120 6.2 name types. */
#define NT_SRV_INST 2

/* The most AS-REQs one exchange sends (the first, then one with
 * pre-authentication). */
#define AS_ROUNDS 2

/* ---- KRB-ERRORs in words ---- */

/* RFC 4120 7.5.9, and RFC 4556/6113 for the codes above 61. */
static const char *const krb_error_names[] = {
    [0] = "KDC_ERR_NONE",
    [1] = "KDC_ERR_NAME_EXP",
    [2] = "KDC_ERR_SERVICE_EXP",
    [3] = "KDC_ERR_BAD_PVNO",
    [4] = "KDC_ERR_C_OLD_MAST_KVNO",
    [5] = "KDC_ERR_S_OLD_MAST_KVNO",
    [6] = "KDC_ERR_C_PRINCIPAL_UNKNOWN",
    [7] = "KDC_ERR_S_PRINCIPAL_UNKNOWN",
    [8] = "KDC_ERR_PRINCIPAL_NOT_UNIQUE",
    [9] = "KDC_ERR_NULL_KEY",
    [10] = "KDC_ERR_CANNOT_POSTDATE",
    [11] = "KDC_ERR_NEVER_VALID",
    [12] = "KDC_ERR_POLICY",
    [13] = "KDC_ERR_BADOPTION",
    [14] = "KDC_ERR_ETYPE_NOSUPP",
    [15] = "KDC_ERR_SUMTYPE_NOSUPP",
    [16] = "KDC_ERR_PADATA_TYPE_NOSUPP",
    [17] = "KDC_ERR_TRTYPE_NOSUPP",
    [18] = "KDC_ERR_CLIENT_REVOKED",
    [19] = "KDC_ERR_SERVICE_REVOKED",
    [20] = "KDC_ERR_TGT_REVOKED",
    [21] = "KDC_ERR_CLIENT_NOTYET",
    [22] = "KDC_ERR_SERVICE_NOTYET",
    [23] = "KDC_ERR_KEY_EXPIRED",
    [24] = "KDC_ERR_PREAUTH_FAILED",
    [25] = "KDC_ERR_PREAUTH_REQUIRED",
    [26] = "KDC_ERR_SERVER_NOMATCH",
    [27] = "KDC_ERR_MUST_USE_USER2USER",
    [28] = "KDC_ERR_PATH_NOT_ACCEPTED",
    [29] = "KDC_ERR_SVC_UNAVAILABLE",
    [31] = "KRB_AP_ERR_BAD_INTEGRITY",
    [32] = "KRB_AP_ERR_TKT_EXPIRED",
    [33] = "KRB_AP_ERR_TKT_NYV",
    [34] = "KRB_AP_ERR_REPEAT",
    [35] = "KRB_AP_ERR_NOT_US",
    [36] = "KRB_AP_ERR_BADMATCH",
    [37] = "KRB_AP_ERR_SKEW",
    [38] = "KRB_AP_ERR_BADADDR",
    [39] = "KRB_AP_ERR_BADVERSION",
    [40] = "KRB_AP_ERR_MSG_TYPE",
    [41] = "KRB_AP_ERR_MODIFIED",
    [42] = "KRB_AP_ERR_BADORDER",
    [44] = "KRB_AP_ERR_BADKEYVER",
    [45] = "KRB_AP_ERR_NOKEY",
    [46] = "KRB_AP_ERR_MUT_FAIL",
    [47] = "KRB_AP_ERR_BADDIRECTION",
    [48] = "KRB_AP_ERR_METHOD",
    [49] = "KRB_AP_ERR_BADSEQ",
    [50] = "KRB_AP_ERR_INAPP_CKSUM",
    [51] = "KRB_AP_PATH_NOT_ACCEPTED",
    [52] = "KRB_ERR_RESPONSE_TOO_BIG",
    [60] = "KRB_ERR_GENERIC",
    [61] = "KRB_ERR_FIELD_TOOLONG",
    [62] = "KDC_ERROR_CLIENT_NOT_TRUSTED",
    [63] = "KDC_ERROR_KDC_NOT_TRUSTED",
    [64] = "KDC_ERROR_INVALID_SIG",
    [65] = "KDC_ERR_KEY_TOO_WEAK",
    [66] = "KDC_ERR_CERTIFICATE_MISMATCH",
    [67] = "KRB_AP_ERR_NO_TGT",
    [68] = "KDC_ERR_WRONG_REALM",
    [69] = "KRB_AP_ERR_USER_TO_USER_REQUIRED",
    [70] = "KDC_ERR_CANT_VERIFY_CERTIFICATE",
    [71] = "KDC_ERR_INVALID_CERTIFICATE",
    [72] = "KDC_ERR_REVOKED_CERTIFICATE",
    [73] = "KDC_ERR_REVOCATION_STATUS_UNKNOWN",
    [74] = "KDC_ERR_REVOCATION_STATUS_UNAVAILABLE",
    [75] = "KDC_ERR_CLIENT_NAME_MISMATCH",
    [76] = "KDC_ERR_KDC_NAME_MISMATCH",
    [93] = "KDC_ERR_UNKNOWN_CRITICAL_FAST_OPTIONS",
};

#define LAST_ERROR_MAX 512
static _Thread_local char last_error[LAST_ERROR_MAX];
static _Thread_local bool last_error_set;
/* The skew this thread's exchange allows, for the words of
 * KRB_AP_ERR_SKEW (the KRB-ERROR does not carry the peer's). */
static _Thread_local uint32_t note_skew = 300;
/* The enctype of the ticket whose encrypted part (the service's key) the
 * last reply on this thread was refused for; 0 if none. */
static _Thread_local int32_t refused_ticket;

static const char *krb_error_name(int32_t code)
{
    if (code >= 0 && (size_t)code < GK5_ARRAY_SIZE(krb_error_names) &&
        krb_error_names[code] != NULL) {
        return krb_error_names[code];
    }
    return "unknown KRB-ERROR";
}

void gk5i_krb_error_clear(void)
{
    last_error_set = false;
    last_error[0] = '\0';
    refused_ticket = 0;
}

int32_t gk5i_kdc_refused_ticket(void)
{
    return refused_ticket;
}

GK5_EXPORT const char *gk5_krb_last_error(void)
{
    return last_error_set ? last_error : NULL;
}

static uint32_t kdc_error_code(int32_t code)
{
    switch (code) {
    case KDC_ERR_C_PRINCIPAL_UNKNOWN:
    case KDC_ERR_S_PRINCIPAL_UNKNOWN:
        return GK5_ERR_KDC_PRINCIPAL_UNKNOWN;
    case KDC_ERR_KEY_EXPIRED:
        return GK5_ERR_KDC_KEY_EXPIRED;
    case KDC_ERR_PREAUTH_FAILED:
        return GK5_ERR_KDC_PREAUTH_FAILED;
    case KDC_ERR_ETYPE_NOSUPP:
        return GK5_ERR_KDC_ETYPE_NOSUPP;
    case KRB_AP_ERR_SKEW:
        return GK5_ERR_AP_SKEW;
    default:
        return GK5_ERR_KDC_ERROR;
    }
}

static uint32_t acceptor_error_code(int32_t code)
{
    switch (code) {
    case KRB_AP_ERR_BAD_INTEGRITY:
    case KRB_AP_ERR_MODIFIED:
        return GK5_ERR_AP_MODIFIED;
    case KRB_AP_ERR_TKT_EXPIRED:
        return GK5_ERR_AP_TKT_EXPIRED;
    case KRB_AP_ERR_TKT_NYV:
        return GK5_ERR_AP_TKT_NYV;
    case KRB_AP_ERR_REPEAT:
        return GK5_ERR_AP_REPEAT;
    case KRB_AP_ERR_NOT_US:
        return GK5_ERR_AP_WRONG_PRINC;
    case KRB_AP_ERR_BADMATCH:
        return GK5_ERR_AP_BADMATCH;
    case KRB_AP_ERR_SKEW:
        return GK5_ERR_AP_SKEW;
    case KRB_AP_ERR_BADKEYVER:
        return GK5_ERR_AP_BADKEYVER;
    case KRB_AP_ERR_NOKEY:
        return GK5_ERR_AP_NOKEY;
    case KRB_AP_ERR_METHOD:
        return GK5_ERR_AP_USER_TO_USER;
    case KRB_AP_ERR_INAPP_CKSUM:
        return GK5_ERR_AP_CHECKSUM;
    default:
        return GK5_ERR_ACCEPTOR_ERROR;
    }
}

/* Appends the peer's text, its control and non-ASCII bytes as '?': the
 * words end up on a terminal. */
static void append_text(char *buf, size_t cap, size_t *o, struct gk5i_view t)
{
    for (size_t i = 0; i < t.len && *o + 1 < cap; i++) {
        uint8_t c = t.p[i];
        buf[(*o)++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[*o < cap ? *o : cap - 1] = '\0';
}

uint32_t gk5i_krb_error_note(const struct gk5i_krb_error *e, bool as_kdc,
                             int64_t now)
{
    size_t o;
    int n;

    n = snprintf(last_error, sizeof(last_error), "%s (%d)",
                 krb_error_name(e->error_code), (int)e->error_code);
    o = n < 0 ? 0 : (size_t)n;
    if (o >= sizeof(last_error)) {
        o = sizeof(last_error) - 1;
    }
    if (e->error_code == KRB_AP_ERR_SKEW) {
        int64_t d = e->stime - now;
        n = snprintf(last_error + o, sizeof(last_error) - o,
                     ": clocks differ by %lld s, more than the %u s allowed",
                     (long long)(d < 0 ? -d : d), (unsigned)note_skew);
        o += n < 0 ? 0 : (size_t)n;
        if (o >= sizeof(last_error)) {
            o = sizeof(last_error) - 1;
        }
    }
    if (e->has_e_text && e->e_text.len > 0 && o + 3 < sizeof(last_error)) {
        struct gk5i_view t = e->e_text;
        /* MIT's KDC ends some texts with a NUL. */
        while (t.len > 0 && t.p[t.len - 1] == '\0') {
            t.len--;
        }
        if (t.len > 0) {
            last_error[o++] = ':';
            last_error[o++] = ' ';
            append_text(last_error, sizeof(last_error), &o, t);
        }
    }
    last_error_set = true;
    if (GK5_TRACE_ON()) {
        gk5i_trace("krb-error from the %s: %s", as_kdc ? "KDC" : "acceptor",
                   last_error);
    }
    return as_kdc ? kdc_error_code(e->error_code)
                  : acceptor_error_code(e->error_code);
}

/* ---- owned credentials ---- */

void gk5i_owned_cred_clear(struct gk5i_owned_cred *oc)
{
    if (oc == NULL) {
        return;
    }
    gk5i_clear_free(oc->buf, oc->len);
    zap(oc, sizeof(*oc));
}

static size_t principal_bytes(const struct gk5i_krb_principal *p)
{
    size_t n = 0;
    for (uint32_t i = 0; i < p->ncomp && i < GK5I_KRB_MAX_COMPONENTS; i++) {
        n += p->comp[i].len;
    }
    return n;
}

static struct gk5i_view copy_view(uint8_t *buf, size_t *o, struct gk5i_view v)
{
    struct gk5i_view r = {NULL, 0};
    if (v.len == 0) {
        return r;
    }
    memcpy(buf + *o, v.p, v.len);
    r.p = buf + *o;
    r.len = v.len;
    *o += v.len;
    return r;
}

static void copy_principal(uint8_t *buf, size_t *o,
                           struct gk5i_krb_principal *p)
{
    for (uint32_t i = 0; i < p->ncomp; i++) {
        p->comp[i] = copy_view(buf, o, p->comp[i]);
    }
}

uint32_t gk5i_owned_cred_copy(const struct gk5i_cc_cred *c,
                              struct gk5i_owned_cred *oc)
{
    size_t len, o = 0;

    if (oc == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(oc, 0, sizeof(*oc));
    if (c == NULL || c->client.ncomp > GK5I_KRB_MAX_COMPONENTS ||
        c->server.ncomp > GK5I_KRB_MAX_COMPONENTS ||
        c->key_len > sizeof(c->key)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    len = c->client_realm.len + principal_bytes(&c->client) +
          c->server_realm.len + principal_bytes(&c->server) + c->addrs.len +
          c->authdata.len + c->ticket.len + c->second_ticket.len;
    oc->buf = gk5i_zalloc(len > 0 ? len : 1);
    if (oc->buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    oc->len = len > 0 ? len : 1;
    oc->cred = *c;
    oc->cred.client_realm = copy_view(oc->buf, &o, c->client_realm);
    copy_principal(oc->buf, &o, &oc->cred.client);
    oc->cred.server_realm = copy_view(oc->buf, &o, c->server_realm);
    copy_principal(oc->buf, &o, &oc->cred.server);
    oc->cred.addrs = copy_view(oc->buf, &o, c->addrs);
    oc->cred.authdata = copy_view(oc->buf, &o, c->authdata);
    oc->cred.ticket = copy_view(oc->buf, &o, c->ticket);
    oc->cred.second_ticket = copy_view(oc->buf, &o, c->second_ticket);
    return GK5_OK;
}

/* ---- small helpers ---- */

/* A 31-bit nonce: MIT's KDC reads the field as an Int32. */
static uint32_t new_nonce(uint32_t *nonce)
{
    uint8_t b[4];
    uint32_t err = gk5i_pooled_confounder(b, sizeof(b), NULL);
    if (err != GK5_OK) {
        return err;
    }
    *nonce = (((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
              ((uint32_t)b[2] << 8) | b[3]) &
             0x7fffffffu;
    return GK5_OK;
}

/* A view as a NUL-terminated string (for krb5.conf lookups and traces). */
static char *view_str(struct gk5i_view v)
{
    char *s = malloc(v.len + 1);
    if (s != NULL) {
        if (v.len > 0) {
            memcpy(s, v.p, v.len);
        }
        s[v.len] = '\0';
    }
    return s;
}

static void trace_principal(const char *what, struct gk5i_view realm,
                            const struct gk5i_krb_principal *p)
{
    char *s = NULL;
    if (gk5i_principal_unparse(realm, p, &s) == GK5_OK) {
        gk5i_trace("%s %s", what, s);
    }
    free(s);
}

static uint32_t clamp_u32(gk5i_krb_time t)
{
    if (t < 0) {
        return 0;
    }
    return t > (gk5i_krb_time)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

/* krbtgt/REALM: the ticket-granting service of realm (RFC 4120 7.3). */
static void tgs_name(struct gk5i_view realm, struct gk5i_krb_principal *p)
{
    memset(p, 0, sizeof(*p));
    p->name_type = NT_SRV_INST;
    p->ncomp = 2;
    p->comp[0].p = (const uint8_t *)"krbtgt";
    p->comp[0].len = 6;
    p->comp[1] = realm;
}

static bool is_tgs_name(const struct gk5i_krb_principal *p)
{
    static const struct gk5i_view krbtgt = {(const uint8_t *)"krbtgt", 6};
    return p->ncomp == 2 && gk5i_view_equal(p->comp[0], krbtgt);
}

/* The usable enctypes of list, in order (rc4, DES and unbuilt des3 out). */
static size_t filter_etypes(const int32_t *list, size_t n, int32_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < GK5I_KRB_MAX_ETYPES; i++) {
        const struct gk5_enctype *et = NULL;
        bool dup = false;
        if (gk5i_enctype_usable(list[i], &et) != GK5_OK) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("kdc: enctype %d left out of the request",
                           (int)list[i]);
            }
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            dup = dup || out[j] == et->num;
        }
        if (!dup) {
            out[k++] = et->num;
        }
    }
    return k;
}

/* RFC 3961 encryption of plain under key (usage), into a malloc'd
 * ciphertext. */
static uint32_t encrypt_part(const struct gk5_enctype *et, const uint8_t *key,
                             uint32_t usage, const uint8_t *plain, size_t plen,
                             uint8_t **out, size_t *out_len)
{
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    size_t n = gk5i_enc_data_size(et, plen);
    uint8_t *enc = NULL;
    uint32_t err;

    *out = NULL;
    *out_len = 0;
    memset(&sk, 0, sizeof(sk));
    err = gk5i_derive_subkeys(et, key, et->key_bytes, usage, &sk);
    if (err == GK5_OK) {
        err = gk5i_ukey_new(et, &sk, &uk);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    enc = gk5i_zalloc(n);
    if (enc == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    memcpy(enc + et->conf_bytes, plain, plen);
    err = gk5i_enc_data_seal(uk, et, enc, plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    *out = enc;
    *out_len = n;
    enc = NULL;
cleanup:
    gk5i_subkeys_wipe(&sk);
    gk5i_ukey_free(uk);
    gk5i_clear_free(enc, n);
    return err;
}

/* RFC 3961 decryption of enc under key (usage) into a malloc'd plaintext
 * (*plain_cap bytes to wipe, the message in the first *plain_len).
 * GK5_ERR_KDC_MODIFIED when it does not verify. */
static uint32_t decrypt_part(const struct gk5_enctype *et, const uint8_t *key,
                             uint32_t usage,
                             const struct gk5i_krb_enc_data *enc,
                             uint8_t **plain, size_t *plain_cap,
                             size_t *plain_len)
{
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    size_t n = enc->cipher.len;
    uint8_t *buf = NULL;
    uint32_t err;

    *plain = NULL;
    *plain_cap = 0;
    *plain_len = 0;
    memset(&sk, 0, sizeof(sk));
    if (n < et->conf_bytes + et->mac_bytes) {
        return GK5_ERR_KDC_MODIFIED;
    }
    err = gk5i_derive_subkeys(et, key, et->key_bytes, usage, &sk);
    if (err == GK5_OK) {
        err = gk5i_ukey_new(et, &sk, &uk);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    buf = gk5i_zalloc(n);
    if (buf == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    /* A reply that does not verify was sealed in another key or changed
     * on the way; DES3 padding that is not zeros after a DER value is a
     * malformed reply. */
    err = gk5i_enc_data_open(uk, et, enc->cipher, buf, plain_len);
    if (err == GK5_ERR_INTEGRITY) {
        err = GK5_ERR_KDC_MODIFIED;
    } else if (err == GK5_ERR_DER) {
        err = GK5_ERR_KDC_REPLY;
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    *plain = buf;
    *plain_cap = n;
    buf = NULL;
cleanup:
    gk5i_subkeys_wipe(&sk);
    gk5i_ukey_free(uk);
    gk5i_clear_free(buf, n);
    return err;
}

/* ---- the reply ---- */

/* RFC 4120 3.1.5 and 3.3.4: the checks of the decrypted reply, then the
 * credential (every field from the encrypted part, the ticket as it
 * came). */
static uint32_t check_reply(const struct gk5i_krb_kdc_rep *rep,
                            const struct gk5i_krb_enc_kdc_rep_part *part,
                            const struct gk5i_kdc_expect *x,
                            struct gk5i_owned_cred *out)
{
    const struct gk5_enctype *key_et = NULL, *tkt_et = NULL;
    struct gk5i_cc_cred c;
    gk5i_krb_time start;
    uint32_t err;

    if (part->nonce != x->nonce) {
        return GK5_ERR_KDC_NONCE;
    }
    if (!gk5i_principal_equal(rep->crealm, &rep->cname, x->crealm, x->cname)) {
        return GK5_ERR_KDC_CNAME;
    }
    /* CVE-2017-11103: the service is the encrypted part's. */
    if (!gk5i_principal_equal(part->srealm, &part->sname, x->srealm,
                              x->sname)) {
        if (x->tgs && (!gk5i_view_equal(part->srealm, x->srealm) ||
                       (is_tgs_name(&part->sname) && !is_tgs_name(x->sname)))) {
            return GK5_ERR_KDC_REFERRAL;
        }
        return GK5_ERR_KDC_SNAME;
    }
    /* The ticket's clear name is the KDC's too: one that differs from the
     * encrypted part's was changed on the way. */
    if (!gk5i_principal_equal(rep->ticket.realm, &rep->ticket.sname,
                              part->srealm, &part->sname)) {
        return GK5_ERR_KDC_SNAME;
    }
    err = gk5i_enctype_usable(rep->ticket.enc_part.etype, &tkt_et);
    if (err != GK5_OK) {
        refused_ticket = rep->ticket.enc_part.etype;
        return err;
    }
    err = gk5i_enctype_usable(part->key.keytype, &key_et);
    if (err != GK5_OK) {
        return err;
    }
    if (part->key.value.len != key_et->key_bytes) {
        return GK5_ERR_KDC_REPLY;
    }
    start = part->has_starttime ? part->starttime : part->authtime;
    if (part->endtime <= start || part->endtime <= x->now ||
        (x->till != 0 && part->endtime > x->till + x->skew) ||
        (part->has_renew_till && part->renew_till < part->endtime)) {
        return GK5_ERR_KDC_REPLY;
    }
    memset(&c, 0, sizeof(c));
    c.client_realm = x->crealm;
    c.client = *x->cname;
    c.server_realm = part->srealm;
    c.server = part->sname;
    c.keytype = key_et->num;
    memcpy(c.key, part->key.value.p, key_et->key_bytes);
    c.key_len = key_et->key_bytes;
    c.authtime = clamp_u32(part->authtime);
    c.starttime = clamp_u32(start);
    c.endtime = clamp_u32(part->endtime);
    c.renew_till = part->has_renew_till ? clamp_u32(part->renew_till) : 0;
    c.flags = part->flags;
    c.ticket = rep->ticket_der;
    err = gk5i_owned_cred_copy(&c, out);
    zap(&c, sizeof(c));
    return err;
}

/* Decode what the KDC sent: a KRB-ERROR (into *krb_err, *is_error true)
 * or the expected KDC-REP. */
static uint32_t read_reply(const uint8_t *in, size_t len, int32_t msg_type,
                           struct gk5i_krb_kdc_rep *rep,
                           struct gk5i_krb_error *krb_err, bool *is_error)
{
    *is_error = false;
    if (len > 0 && in[0] == (0x60 | GK5I_KRB_TAG_ERROR)) {
        if (gk5i_decode_krb_error(in, len, krb_err) != GK5_OK) {
            return GK5_ERR_KDC_REPLY;
        }
        *is_error = true;
        return GK5_OK;
    }
    if (gk5i_decode_kdc_rep(in, len, msg_type, rep) != GK5_OK) {
        return GK5_ERR_KDC_REPLY;
    }
    return GK5_OK;
}

/* Encode a request into a malloc'd buffer. */
static uint32_t encode_req(const struct gk5i_krb_kdc_req *req, uint8_t **out,
                           size_t *len)
{
    uint32_t err;

    *out = NULL;
    err = gk5i_encode_kdc_req(req, NULL, 0, len);
    if (err != GK5_OK) {
        return err;
    }
    *out = malloc(*len);
    if (*out == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_encode_kdc_req(req, *out, *len, len);
    if (err != GK5_OK) {
        free(*out);
        *out = NULL;
    }
    return err;
}

static uint32_t send_req(const struct gk5i_krb5_config *cfg,
                         struct gk5i_view realm, const uint8_t *req,
                         size_t req_len, uint8_t expect_tag, uint8_t **reply,
                         size_t *reply_len)
{
    struct gk5i_kdc_addr kdcs[GK5I_MAX_KDCS];
    size_t n = 0;
    char *r = view_str(realm);
    uint32_t err;

    if (r == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_config_kdcs(cfg, r, kdcs, GK5_ARRAY_SIZE(kdcs), &n);
    free(r);
    if (err != GK5_OK) {
        return err;
    }
    if (n == 0) {
        return GK5_ERR_CONFIG_NO_KDC;
    }
    return gk5i_kdc_send(kdcs, n, req, req_len, expect_tag,
                         cfg->udp_preference_limit, cfg->request_timeout_ms,
                         reply, reply_len);
}

/* ---- the AS exchange ---- */

/* The client's long-term key for one enctype: from the keytab, or by
 * string-to-key of the password with the salt (default: the realm and
 * the components, RFC 4120 4) and s2kparams. */
struct client_key {
    const struct gk5_enctype *et;
    uint8_t key[GK5_MAX_KEY_BYTES];
};

static uint32_t client_key_make(const struct gk5i_as_req *r, int32_t etype,
                                const struct gk5i_krb_etype_info2 *info,
                                struct client_key *ck)
{
    uint8_t salt_buf[512];
    const uint8_t *salt = salt_buf;
    const uint8_t *params = NULL;
    size_t salt_len = 0, params_len = 0;
    uint32_t err;

    memset(ck, 0, sizeof(*ck));
    err = gk5i_enctype_usable(etype, &ck->et);
    if (err != GK5_OK) {
        return err;
    }
    if (r->keytab != NULL) {
        const struct gk5i_kt_entry *e = gk5i_keytab_find(
            r->keytab, r->realm, r->client, false, 0, ck->et->num, &err);
        if (e == NULL) {
            return GK5_ERR_KEYTAB_NO_KEYS;
        }
        memcpy(ck->key, e->key, ck->et->key_bytes);
        return GK5_OK;
    }
    if (info != NULL && info->has_salt) {
        salt = info->salt.p;
        salt_len = info->salt.len;
    } else {
        size_t need = r->realm.len + principal_bytes(r->client);
        if (need > sizeof(salt_buf)) {
            return GK5_ERR_INVALID_ARGUMENT;
        }
        if (r->realm.len > 0) {
            memcpy(salt_buf, r->realm.p, r->realm.len);
        }
        salt_len = r->realm.len;
        for (uint32_t i = 0; i < r->client->ncomp; i++) {
            memcpy(salt_buf + salt_len, r->client->comp[i].p,
                   r->client->comp[i].len);
            salt_len += r->client->comp[i].len;
        }
    }
    if (info != NULL && info->has_s2kparams) {
        params = info->s2kparams.p;
        params_len = info->s2kparams.len;
    }
    err = gk5_c_string_to_key_flags(
        ck->et->num, r->password, strlen(r->password), salt_len ? salt : NULL,
        salt_len, params, params_len, 0, ck->key, ck->et->key_bytes);
    if (GK5_TRACE_ON()) {
        gk5i_trace("as: string-to-key for %s, salt %zu bytes%s: %s",
                   ck->et->name, salt_len, params != NULL ? ", s2kparams" : "",
                   gk5_strerror(err));
    }
    return err;
}

/* ETYPE-INFO2 (PA 19) in a SEQUENCE OF PA-DATA: the entry of the first
 * enctype of ours (in our order) the KDC lists; *found false when none. */
static uint32_t pick_etype_info2(struct gk5i_view padata, const int32_t *ours,
                                 size_t n_ours,
                                 struct gk5i_krb_etype_info2 *pick, bool *found)
{
    size_t pos = 0;
    bool more = true;

    *found = false;
    memset(pick, 0, sizeof(*pick));
    while (more) {
        int32_t type = 0;
        struct gk5i_view value = {NULL, 0};
        if (gk5i_padata_next(padata, &pos, &more, &type, &value) != GK5_OK) {
            return GK5_ERR_KDC_REPLY;
        }
        if (!more || type != GK5I_PA_ETYPE_INFO2) {
            continue;
        }
        for (size_t i = 0; i < n_ours && !*found; i++) {
            size_t ipos = 0;
            bool imore = true;
            while (imore) {
                struct gk5i_krb_etype_info2 e;
                if (gk5i_etype_info2_next(value, &ipos, &imore, &e) != GK5_OK) {
                    return GK5_ERR_KDC_REPLY;
                }
                if (imore && gk5i_enctype_canonical(e.etype) == ours[i]) {
                    *pick = e;
                    *found = true;
                    break;
                }
            }
        }
        if (*found) {
            return GK5_OK;
        }
    }
    return GK5_OK;
}

/* RFC 4120 5.2.7.2 PA-ENC-TIMESTAMP: PA-ENC-TS-ENC under the client key,
 * usage 1; *out (malloc'd) is the EncryptedData. */
static uint32_t make_pa_enc_ts(const struct client_key *ck, gk5i_krb_time now,
                               uint32_t usec, uint8_t **out, size_t *out_len)
{
    struct gk5i_krb_enc_data ed;
    uint8_t ts[64];
    uint8_t *enc = NULL;
    size_t ts_len = 0, enc_len = 0;
    uint32_t err;

    *out = NULL;
    *out_len = 0;
    err = gk5i_encode_pa_enc_ts_enc(now, usec, ts, sizeof(ts), &ts_len);
    if (err == GK5_OK) {
        err = encrypt_part(ck->et, ck->key, KU_PA_ENC_TS, ts, ts_len, &enc,
                           &enc_len);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    memset(&ed, 0, sizeof(ed));
    ed.etype = ck->et->num;
    ed.cipher.p = enc;
    ed.cipher.len = enc_len;
    err = gk5i_encode_enc_data(&ed, NULL, 0, out_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    *out = malloc(*out_len);
    if (*out == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = gk5i_encode_enc_data(&ed, *out, *out_len, out_len);
    if (err != GK5_OK) {
        free(*out);
        *out = NULL;
    }
cleanup:
    zap(ts, sizeof(ts));
    free(enc);
    return err;
}

/* The AS-REP: key from the reply's ETYPE-INFO2 (or the one used for
 * pre-authentication when the enctype is the same), decrypt (usage 3),
 * check. */
static uint32_t open_as_rep(const struct gk5i_krb_kdc_rep *rep,
                            const struct gk5i_kdc_expect *x,
                            struct gk5i_owned_cred *tgt)
{
    struct gk5i_krb_enc_kdc_rep_part part;
    struct gk5i_krb_etype_info2 info;
    struct client_key ck;
    const struct gk5_enctype *et = NULL, *pa_et = NULL;
    uint8_t *plain = NULL;
    size_t cap = 0, plen = 0;
    bool found = false;
    int32_t want;
    uint32_t err;

    memset(&ck, 0, sizeof(ck));
    err = gk5i_enctype_usable(rep->enc_part.etype, &et);
    if (err != GK5_OK) {
        return err;
    }
    want = et->num;
    if (x->pa_key != NULL &&
        gk5i_enctype_usable(x->pa_etype, &pa_et) == GK5_OK && pa_et == et) {
        ck.et = et;
        memcpy(ck.key, x->pa_key, et->key_bytes);
    } else {
        err = pick_etype_info2(rep->padata, &want, 1, &info, &found);
        if (err == GK5_OK) {
            err = client_key_make(x->as, want, found ? &info : NULL, &ck);
        }
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    err = decrypt_part(ck.et, ck.key, KU_AS_REP_ENCPART, &rep->enc_part, &plain,
                       &cap, &plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (gk5i_decode_enc_kdc_rep_part(plain, plen, &part) != GK5_OK) {
        err = GK5_ERR_KDC_REPLY;
        goto cleanup;
    }
    err = check_reply(rep, &part, x, tgt);
    zap(&part, sizeof(part));
cleanup:
    gk5i_clear_free(plain, cap);
    zap(&ck, sizeof(ck));
    return err;
}

/* The TGS-REP's encrypted part: with the subkey (usage 9), else with the
 * session key (usage 8), as RFC 4120 5.4.2 allows either. */
static uint32_t open_tgs_rep(const struct gk5i_krb_kdc_rep *rep,
                             const struct gk5i_kdc_expect *x,
                             struct gk5i_owned_cred *out)
{
    struct gk5i_krb_enc_kdc_rep_part part;
    const struct gk5_enctype *et = NULL, *ses_et = NULL;
    uint8_t *plain = NULL;
    size_t cap = 0, plen = 0;
    uint32_t err;

    err = gk5i_enctype_usable(x->ses_etype, &ses_et);
    if (err != GK5_OK) {
        return err;
    }
    err = gk5i_enctype_usable(rep->enc_part.etype, &et);
    if (err != GK5_OK) {
        return err;
    }
    if (et != ses_et) {
        return GK5_ERR_KDC_MODIFIED;
    }
    err = decrypt_part(et, x->subkey, KU_TGS_REP_ENCPART_SUBKEY, &rep->enc_part,
                       &plain, &cap, &plen);
    if (err == GK5_ERR_KDC_MODIFIED) {
        err = decrypt_part(et, x->ses_key, KU_TGS_REP_ENCPART_SESSKEY,
                           &rep->enc_part, &plain, &cap, &plen);
    }
    if (err != GK5_OK) {
        return err;
    }
    if (gk5i_decode_enc_kdc_rep_part(plain, plen, &part) != GK5_OK) {
        err = GK5_ERR_KDC_REPLY;
    } else {
        err = check_reply(rep, &part, x, out);
    }
    zap(&part, sizeof(part));
    gk5i_clear_free(plain, cap);
    return err;
}

uint32_t gk5i_kdc_reply(const struct gk5i_kdc_expect *x, const uint8_t *reply,
                        size_t len, struct gk5i_krb_error *kerr, bool *preauth,
                        struct gk5i_owned_cred *out)
{
    struct gk5i_krb_kdc_rep rep;
    bool is_error = false;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof(*out));
    if (preauth != NULL) {
        *preauth = false;
    }
    if (x == NULL || kerr == NULL || preauth == NULL ||
        (reply == NULL && len != 0) || x->cname == NULL || x->sname == NULL ||
        (x->tgs ? x->ses_key == NULL || x->subkey == NULL
                : x->as == NULL || x->as->client == NULL ||
                      (x->as->password == NULL) == (x->as->keytab == NULL))) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    note_skew = x->skew;
    refused_ticket = 0;
    err = read_reply(reply, len,
                     x->tgs ? GK5I_KRB_TAG_TGS_REP : GK5I_KRB_TAG_AS_REP, &rep,
                     kerr, &is_error);
    if (err != GK5_OK) {
        return err;
    }
    if (is_error) {
        if (x->preauth_ok && kerr->error_code == KDC_ERR_PREAUTH_REQUIRED) {
            *preauth = true;
            return GK5_OK;
        }
        return gk5i_krb_error_note(kerr, true, x->now);
    }
    err = x->tgs ? open_tgs_rep(&rep, x, out) : open_as_rep(&rep, x, out);
    if (err != GK5_OK) {
        gk5i_owned_cred_clear(out);
    }
    return err;
}

/* The AS-REQ for r: the client, krbtgt/REALM, the enctypes asked for
 * (with a keytab only those it has a key of for the client: a reply in
 * another could not be read), the options. */
static uint32_t as_req_make(const struct gk5i_as_req *r,
                            const struct gk5i_krb_principal *krbtgt,
                            struct gk5i_krb_kdc_req *req)
{
    memset(req, 0, sizeof(*req));
    req->msg_type = GK5I_KRB_TAG_AS_REQ;
    req->body.has_cname = true;
    req->body.cname = *r->client;
    req->body.realm = r->realm;
    req->body.has_sname = true;
    req->body.sname = *krbtgt;
    req->body.n_etypes = filter_etypes(
        r->etypes != NULL ? r->etypes : r->cfg->tkt_enctypes,
        r->etypes != NULL ? r->n_etypes : r->cfg->n_tkt, req->body.etypes);
    if (r->keytab != NULL) {
        size_t k = 0;
        for (size_t i = 0; i < req->body.n_etypes; i++) {
            uint32_t e2;
            if (gk5i_keytab_find(r->keytab, r->realm, r->client, false, 0,
                                 req->body.etypes[i], &e2) != NULL) {
                req->body.etypes[k++] = req->body.etypes[i];
            }
        }
        if (k == 0) {
            return GK5_ERR_KEYTAB_NO_KEYS;
        }
        req->body.n_etypes = k;
    }
    if (req->body.n_etypes == 0) {
        return GK5_ERR_KDC_ETYPE_NOSUPP;
    }
    if (r->forwardable) {
        req->body.kdc_options |= GK5I_KDC_OPT_FORWARDABLE;
    }
    return GK5_OK;
}

/* One round's request on its way: the times from now, a new nonce,
 * encoded (into *der, freed first) and sent; the KDC's answer in *reply
 * (freed first). */
static uint32_t as_send(const struct gk5i_as_req *r,
                        struct gk5i_krb_kdc_req *req, uint8_t **der,
                        size_t *der_len, uint8_t **reply, size_t *reply_len)
{
    uint32_t lifetime = r->lifetime ? r->lifetime : r->cfg->ticket_lifetime;
    uint32_t renew = r->renew ? r->renew : r->cfg->renew_lifetime;
    struct timespec ts;
    uint32_t err;

    clock_gettime(CLOCK_REALTIME, &ts);
    req->body.till = (gk5i_krb_time)ts.tv_sec + lifetime;
    req->body.has_rtime = renew > 0;
    req->body.rtime = (gk5i_krb_time)ts.tv_sec + renew;
    if (renew > 0) {
        req->body.kdc_options |= GK5I_KDC_OPT_RENEWABLE;
    }
    err = new_nonce(&req->body.nonce);
    if (err != GK5_OK) {
        return err;
    }
    free(*der);
    *der = NULL;
    err = encode_req(req, der, der_len);
    if (err != GK5_OK) {
        return err;
    }
    free(*reply);
    *reply = NULL;
    return send_req(r->cfg, r->realm, *der, *der_len, GK5I_KRB_TAG_AS_REP,
                    reply, reply_len);
}

/* The KDC asked for pre-authentication (its e-data in kerr): the client's
 * key for the enctype and salt it names, and a PA-ENC-TIMESTAMP with it in
 * req (its bytes in *pa, freed first). */
static uint32_t as_preauth(const struct gk5i_as_req *r,
                           const struct gk5i_krb_error *kerr,
                           struct gk5i_krb_kdc_req *req,
                           struct client_key *pa_key, uint8_t **pa,
                           size_t *pa_len)
{
    struct gk5i_view e_data =
        kerr->has_e_data ? kerr->e_data : (struct gk5i_view){0};
    struct gk5i_krb_etype_info2 info;
    struct timespec ts;
    bool found = false;
    uint32_t err;

    if (GK5_TRACE_ON()) {
        gk5i_trace("as: the KDC asks for pre-authentication");
    }
    err = pick_etype_info2(e_data, req->body.etypes, req->body.n_etypes, &info,
                           &found);
    if (err != GK5_OK) {
        return err;
    }
    err = client_key_make(r, found ? info.etype : req->body.etypes[0],
                          found ? &info : NULL, pa_key);
    if (err != GK5_OK) {
        return err;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    free(*pa);
    *pa = NULL;
    err = make_pa_enc_ts(pa_key, (gk5i_krb_time)ts.tv_sec,
                         (uint32_t)(ts.tv_nsec / 1000), pa, pa_len);
    if (err != GK5_OK) {
        return err;
    }
    req->n_padata = 1;
    req->padata[0].type = GK5I_PA_ENC_TIMESTAMP;
    req->padata[0].value.p = *pa;
    req->padata[0].value.len = *pa_len;
    if (GK5_TRACE_ON()) {
        gk5i_trace("as: PA-ENC-TIMESTAMP with %s", pa_key->et->name);
    }
    return GK5_OK;
}

uint32_t gk5i_as_exchange(const struct gk5i_as_req *r,
                          struct gk5i_owned_cred *tgt)
{
    struct gk5i_krb_kdc_req req;
    struct gk5i_krb_principal krbtgt;
    struct gk5i_krb_error kerr;
    struct client_key pa_key;
    struct gk5i_kdc_expect x;
    uint8_t *req_der = NULL, *reply = NULL, *pa = NULL;
    size_t req_len = 0, reply_len = 0, pa_len = 0;
    bool have_pa_key = false;
    uint32_t err = GK5_ERR_KDC_REPLY;

    if (tgt == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(tgt, 0, sizeof(*tgt));
    zap(&pa_key, sizeof(pa_key));
    gk5i_krb_error_clear();
    if (r == NULL || r->cfg == NULL || r->client == NULL || r->realm.len == 0 ||
        r->client->ncomp == 0 || r->client->ncomp > GK5I_KRB_MAX_COMPONENTS ||
        (r->password == NULL) == (r->keytab == NULL)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    note_skew = r->cfg->clockskew;
    tgs_name(r->realm, &krbtgt);
    err = as_req_make(r, &krbtgt, &req);
    if (err != GK5_OK) {
        return err;
    }
    if (GK5_TRACE_ON()) {
        trace_principal("as: asking for a TGT for", r->realm, r->client);
    }
    for (int round = 0; round < AS_ROUNDS; round++) {
        bool need_pa = false;

        err = as_send(r, &req, &req_der, &req_len, &reply, &reply_len);
        if (err != GK5_OK) {
            goto cleanup;
        }
        memset(&x, 0, sizeof(x));
        x.nonce = req.body.nonce;
        x.crealm = r->realm;
        x.cname = r->client;
        x.srealm = r->realm;
        x.sname = &krbtgt;
        x.now = (gk5i_krb_time)time(NULL);
        x.till = req.body.till;
        x.skew = r->cfg->clockskew;
        x.as = r;
        if (have_pa_key) {
            x.pa_etype = pa_key.et->num;
            x.pa_key = pa_key.key;
        }
        /* Only the first round's KDC_ERR_PREAUTH_REQUIRED is answered; a
         * second is noted as any other KRB-ERROR. */
        x.preauth_ok = round == 0;
        err = gk5i_kdc_reply(&x, reply, reply_len, &kerr, &need_pa, tgt);
        if (err != GK5_OK || !need_pa) {
            goto cleanup;
        }
        err = as_preauth(r, &kerr, &req, &pa_key, &pa, &pa_len);
        if (err != GK5_OK) {
            goto cleanup;
        }
        have_pa_key = true;
    }
    /* A second KDC_ERR_PREAUTH_REQUIRED is noted above. */
    err = GK5_ERR_KDC_REPLY;
cleanup:
    if (GK5_TRACE_ON()) {
        gk5i_trace("as: %s", gk5_strerror(err));
    }
    if (err != GK5_OK) {
        gk5i_owned_cred_clear(tgt);
    }
    zap(&pa_key, sizeof(pa_key));
    free(req_der);
    free(reply);
    free(pa);
    return err;
}

/* ---- the TGS exchange ---- */

/* RFC 4120 5.5.1 and 7.2: the AP-REQ of PA-TGS-REQ.  The authenticator's
 * cksum is the session key's mandatory checksum (usage 6) of the
 * KDC-REQ-BODY's bytes; it carries the subkey; encrypted with usage 7. */
static uint32_t make_pa_tgs_req(const struct gk5i_cc_cred *tgt,
                                const struct gk5_enctype *ses_et,
                                const uint8_t *subkey, uint8_t *body_der,
                                size_t body_len, uint8_t **out, size_t *out_len)
{
    struct gk5i_krb_authenticator a;
    struct gk5i_krb_ap_req ap;
    struct gk5i_subkeys sk;
    struct timespec ts;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[2];
    uint8_t cksum[64];
    uint8_t *auth = NULL, *enc = NULL;
    size_t auth_len = 0, enc_len = 0;
    uint32_t err;

    *out = NULL;
    *out_len = 0;
    memset(&sk, 0, sizeof(sk));
    if (ses_et->cksum_bytes > sizeof(cksum)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    err = gk5i_derive_subkeys(ses_et, tgt->key, ses_et->key_bytes,
                              KU_TGS_REQ_AUTH_CKSUM, &sk);
    if (err == GK5_OK) {
        err = gk5i_ukey_new(ses_et, &sk, &uk);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, body_der, body_len};
    iov[1] =
        (gk5_crypto_iov){GK5_CRYPTO_IOV_CHECKSUM, cksum, ses_et->cksum_bytes};
    err = gk5i_checksum_iov(uk, iov, GK5_ARRAY_SIZE(iov));
    if (err != GK5_OK) {
        goto cleanup;
    }

    clock_gettime(CLOCK_REALTIME, &ts);
    memset(&a, 0, sizeof(a));
    a.crealm = tgt->client_realm;
    a.cname = tgt->client;
    a.has_cksum = true;
    a.cksum.cksumtype = ses_et->cksumtype;
    a.cksum.value.p = cksum;
    a.cksum.value.len = ses_et->cksum_bytes;
    a.ctime = (gk5i_krb_time)ts.tv_sec;
    a.cusec = (uint32_t)(ts.tv_nsec / 1000);
    a.has_subkey = true;
    a.subkey.keytype = ses_et->num;
    a.subkey.value.p = subkey;
    a.subkey.value.len = ses_et->key_bytes;
    err = gk5i_encode_authenticator(&a, NULL, 0, &auth_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    auth = gk5i_zalloc(auth_len);
    if (auth == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = gk5i_encode_authenticator(&a, auth, auth_len, &auth_len);
    if (err == GK5_OK) {
        err = encrypt_part(ses_et, tgt->key, KU_TGS_REQ_AUTH, auth, auth_len,
                           &enc, &enc_len);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    memset(&ap, 0, sizeof(ap));
    ap.ticket_der = tgt->ticket;
    ap.authenticator.etype = ses_et->num;
    ap.authenticator.cipher.p = enc;
    ap.authenticator.cipher.len = enc_len;
    err = gk5i_encode_ap_req(&ap, NULL, 0, out_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    *out = malloc(*out_len);
    if (*out == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = gk5i_encode_ap_req(&ap, *out, *out_len, out_len);
    if (err != GK5_OK) {
        free(*out);
        *out = NULL;
    }
cleanup:
    zap(&a, sizeof(a));
    gk5i_subkeys_wipe(&sk);
    gk5i_ukey_free(uk);
    gk5i_clear_free(auth, auth_len);
    free(enc);
    return err;
}

/* A new subkey for a TGS-REQ (RFC 4120 5.4.1: the reply is sealed in it),
 * of the TGT's session key's enctype. */
static uint32_t tgs_subkey(const struct gk5_enctype *ses_et, uint8_t *subkey)
{
    uint8_t rnd[GK5_MAX_KEY_BYTES];
    uint32_t err = gk5i_pooled_confounder(rnd, ses_et->keygen_bytes, NULL);

    if (err == GK5_OK) {
        err = gk5_c_random_to_key(ses_et->num, rnd, ses_et->keygen_bytes,
                                  subkey, ses_et->key_bytes);
    }
    zap(rnd, sizeof(rnd));
    return err;
}

/* The TGS-REQ for server in realm on tgt: the body (its DER in *body, which
 * the PA-TGS-REQ's authenticator checksums), the PA-TGS-REQ (in *pa) with
 * the subkey, all encoded into *der. */
static uint32_t tgs_req_make(const struct gk5i_krb5_config *cfg,
                             const struct gk5i_cc_cred *tgt,
                             const struct gk5_enctype *ses_et,
                             const uint8_t *subkey, struct gk5i_view realm,
                             const struct gk5i_krb_principal *server,
                             const int32_t *etypes, size_t n_etypes,
                             struct gk5i_krb_kdc_req *req, uint8_t **body,
                             uint8_t **pa, uint8_t **der, size_t *der_len)
{
    size_t body_len = 0, pa_len = 0;
    uint32_t err;

    memset(req, 0, sizeof(*req));
    req->msg_type = GK5I_KRB_TAG_TGS_REQ;
    req->body.realm = realm;
    req->body.has_sname = true;
    req->body.sname = *server;
    req->body.till = tgt->endtime;
    req->body.n_etypes =
        filter_etypes(etypes != NULL ? etypes : cfg->tgs_enctypes,
                      etypes != NULL ? n_etypes : cfg->n_tgs, req->body.etypes);
    if (req->body.n_etypes == 0) {
        return GK5_ERR_KDC_ETYPE_NOSUPP;
    }
    err = new_nonce(&req->body.nonce);
    if (err == GK5_OK) {
        err = gk5i_encode_kdc_req_body(&req->body, NULL, 0, &body_len);
    }
    if (err != GK5_OK) {
        return err;
    }
    *body = malloc(body_len);
    if (*body == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_encode_kdc_req_body(&req->body, *body, body_len, &body_len);
    if (err == GK5_OK) {
        err =
            make_pa_tgs_req(tgt, ses_et, subkey, *body, body_len, pa, &pa_len);
    }
    if (err != GK5_OK) {
        return err;
    }
    req->n_padata = 1;
    req->padata[0].type = GK5I_PA_TGS_REQ;
    req->padata[0].value.p = *pa;
    req->padata[0].value.len = pa_len;
    req->body_der.p = *body;
    req->body_der.len = body_len;
    return encode_req(req, der, der_len);
}

uint32_t gk5i_tgs_exchange(const struct gk5i_krb5_config *cfg,
                           const struct gk5i_cc_cred *tgt,
                           struct gk5i_view realm,
                           const struct gk5i_krb_principal *server,
                           const int32_t *etypes, size_t n_etypes,
                           struct gk5i_owned_cred *out)
{
    struct gk5i_krb_kdc_req req;
    struct gk5i_krb_error kerr;
    struct gk5i_kdc_expect x;
    const struct gk5_enctype *ses_et = NULL;
    uint8_t subkey[GK5_MAX_KEY_BYTES];
    uint8_t *body = NULL, *pa = NULL, *req_der = NULL, *reply = NULL;
    size_t req_len = 0, reply_len = 0;
    bool need_pa = false;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof(*out));
    gk5i_krb_error_clear();
    if (cfg == NULL || tgt == NULL || server == NULL || server->ncomp == 0 ||
        server->ncomp > GK5I_KRB_MAX_COMPONENTS) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    note_skew = cfg->clockskew;
    /* Only the TGT's own realm: krbtgt/R@R asked of R's KDC. */
    if (!is_tgs_name(&tgt->server) ||
        !gk5i_view_equal(tgt->server.comp[1], tgt->server_realm) ||
        !gk5i_view_equal(realm, tgt->server_realm)) {
        return GK5_ERR_KDC_REFERRAL;
    }
    err = gk5i_enctype_usable(tgt->keytype, &ses_et);
    if (err != GK5_OK) {
        return err;
    }
    if (tgt->key_len != ses_et->key_bytes) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    err = tgs_subkey(ses_et, subkey);
    if (err == GK5_OK) {
        err = tgs_req_make(cfg, tgt, ses_et, subkey, realm, server, etypes,
                           n_etypes, &req, &body, &pa, &req_der, &req_len);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (GK5_TRACE_ON()) {
        trace_principal("tgs: asking for", realm, server);
    }
    err = send_req(cfg, realm, req_der, req_len, GK5I_KRB_TAG_TGS_REP, &reply,
                   &reply_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    memset(&x, 0, sizeof(x));
    x.nonce = req.body.nonce;
    x.crealm = tgt->client_realm;
    x.cname = &tgt->client;
    x.srealm = realm;
    x.sname = server;
    x.now = (gk5i_krb_time)time(NULL);
    x.till = req.body.till;
    x.skew = cfg->clockskew;
    x.tgs = true;
    x.ses_etype = ses_et->num;
    x.ses_key = tgt->key;
    x.subkey = subkey;
    err = gk5i_kdc_reply(&x, reply, reply_len, &kerr, &need_pa, out);
cleanup:
    if (GK5_TRACE_ON()) {
        gk5i_trace("tgs: %s", gk5_strerror(err));
    }
    if (err != GK5_OK) {
        gk5i_owned_cred_clear(out);
    }
    zap(subkey, sizeof(subkey));
    free(body);
    free(pa);
    free(req_der);
    free(reply);
    return err;
}

/* ---- from the cache ---- */

uint32_t gk5i_ccache_tgt(const struct gk5i_ccache *cc, int64_t now,
                         const struct gk5i_cc_cred **tgt)
{
    struct gk5i_krb_principal krbtgt;

    tgs_name(cc->realm, &krbtgt);
    *tgt = gk5i_ccache_find(cc, cc->realm, &krbtgt, now);
    if (*tgt != NULL) {
        return GK5_OK;
    }
    return gk5i_ccache_find(cc, cc->realm, &krbtgt, INT64_MIN) != NULL
               ? GK5_ERR_TICKET_EXPIRED
               : GK5_ERR_NO_TGT;
}

uint32_t gk5i_get_service_cred(const struct gk5i_krb5_config *cfg,
                               const char *ccache_path, struct gk5i_view realm,
                               const struct gk5i_krb_principal *server,
                               struct gk5i_owned_cred *out)
{
    struct gk5i_ccache *cc = NULL;
    const struct gk5i_cc_cred *c, *tgt;
    const struct gk5_enctype *et = NULL;
    int64_t now = (int64_t)time(NULL);
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof(*out));
    if (cfg == NULL || ccache_path == NULL || server == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    err = gk5i_ccache_read(ccache_path, &cc);
    if (err != GK5_OK) {
        return err;
    }
    /* A cached ticket serves only when its session key is of an enctype
     * asked for (cfg->tgs_enctypes: krb5.conf's, or the caller's), as
     * MIT's cache lookup for the supported enctypes does: the newest such
     * one, whatever newer tickets of other types follow it; else the KDC
     * is asked again. */
    c = gk5i_ccache_find_keytype(cc, realm, server, now, cfg->tgs_enctypes,
                                 cfg->n_tgs);
    if (c != NULL && gk5i_enctype_usable(c->keytype, &et) == GK5_OK &&
        gk5i_enctype_listed(cfg->tgs_enctypes, cfg->n_tgs, et->num)) {
        if (GK5_TRACE_ON()) {
            trace_principal("ccache: a valid ticket for", realm, server);
        }
        err = gk5i_owned_cred_copy(c, out);
        goto cleanup;
    }
    /* The client's realm's TGT (no cross-realm). */
    err = gk5i_ccache_tgt(cc, now, &tgt);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_tgs_exchange(cfg, tgt, realm, server, NULL, 0, out);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_ccache_append(ccache_path, &out->cred);
    if (err != GK5_OK) {
        gk5i_owned_cred_clear(out);
    }
cleanup:
    gk5i_ccache_free(cc);
    return err;
}
