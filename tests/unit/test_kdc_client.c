/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The AS and TGS exchanges (src/krb5/kdc_client.c) and their reply checks
 * (kdc_reply.c) against a fake KDC: a thread on 127.0.0.1 (UDP)
 * answering each request with a reply crafted by the codec's encoders.
 *
 * An AS-REQ is answered under a known password's key.  A TGS-REQ is read
 * as a KDC reads it: the PA-TGS-REQ's AP-REQ must carry the TGT the test
 * made, its authenticator must open with the TGT's session key (usage 7)
 * and checksum the KDC-REQ-BODY's bytes (usage 6); the reply names the
 * service the body asks for, carries the body's nonce, and is encrypted
 * with the authenticator's subkey (usage 9) -- or, as RFC 4120 allows,
 * the session key (usage 8).
 *
 * Each crafted flaw must be refused with its own code after the KDC was
 * asked, and leave no credential behind -- through gk5i_get_service_cred,
 * nothing in the cache either.  The fake KDC's own failures (a request it
 * cannot read) come back as a KRB-ERROR and fail the case that sent it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "krb5/krb5_int.h"

#define REALM "FAKE.TEST"
#define OTHER_REALM "OTHER.REALM"
#define USER "user"
#define PASSWORD "fake-kdc-password"
#define SERVICE "host"
#define HOST "server.fake.test"
#define ET 18 /* aes256-cts-hmac-sha1-96: every key of the test */

/* RFC 4120 7.5.1 key usages. */
#define KU_AS_REP_ENCPART 3
#define KU_TGS_REQ_AUTH_CKSUM 6
#define KU_TGS_REQ_AUTH 7
#define KU_TGS_REP_ENCPART_SESSKEY 8
#define KU_TGS_REP_ENCPART_SUBKEY 9

/* RFC 4120 7.5.9 error codes the fake KDC sends. */
#define KDC_ERR_S_PRINCIPAL_UNKNOWN 7
#define KRB_AP_ERR_SKEW 37
#define KRB_ERR_GENERIC 60

/* The DER tags of the requests (RFC 4120 5.4.1). */
#define TAG_AS_REQ (0x60 | GK5I_KRB_TAG_AS_REQ)
#define TAG_TGS_REQ (0x60 | GK5I_KRB_TAG_TGS_REQ)

/* The service ticket's flags. */
#define SVC_FLAGS                                                              \
    (GK5I_TKT_FLG_FORWARDABLE | GK5I_TKT_FLG_RENEWABLE |                       \
     GK5I_TKT_FLG_PRE_AUTHENT)

enum flaw {
    FLAW_NONE,
    FLAW_GARBAGE,
    FLAW_NONCE,
    FLAW_CNAME,
    FLAW_SNAME,       /* the encrypted part names another service */
    FLAW_TKT_SNAME,   /* the ticket's clear sname is not the encrypted one */
    FLAW_RC4_KEY,     /* an rc4-hmac session key */
    FLAW_RC4_TICKET,  /* TGS-REP: a ticket in the service's rc4-hmac key */
    FLAW_SESSKEY,     /* TGS-REP under the TGT's session key, usage 8 */
    FLAW_WRONG_USAGE, /* TGS-REP under the TGT's session key, usage 9 */
    FLAW_REFERRAL,    /* TGS-REP for krbtgt/OTHER.REALM@REALM */
    FLAW_SREALM,      /* TGS-REP for the service in OTHER.REALM */
    FLAW_S_UNKNOWN,   /* KRB-ERROR KDC_ERR_S_PRINCIPAL_UNKNOWN */
    FLAW_SKEW,        /* KRB-ERROR KRB_AP_ERR_SKEW, stime 1000 s ahead */
};

/* The keys the fake KDC made: the AS-REP's and the TGT's session key (one
 * TGT, the AS case's or the test's), the service ticket's. */
static const uint8_t tgt_key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t svc_key[32] = {0x5e, 0x12, 0x9a, 0x33, 0x07, 0xc1};

/* What the main thread and the fake KDC share, under kdc_lock. */
static pthread_mutex_t kdc_lock = PTHREAD_MUTEX_INITIALIZER;
static enum flaw kdc_flaw;
static unsigned kdc_as_reqs, kdc_tgs_reqs;
static char kdc_fail[256];      /* the fake KDC's first failure, or "" */
static uint8_t kdc_ticket[512]; /* the last service Ticket it sent */
static size_t kdc_ticket_len;

static atomic_bool kdc_stop;
static int kdc_fd = -1;
static uint16_t kdc_port;
static pthread_t kdc_thread;
static bool kdc_started;
static char conf_path[64], cc_path[64];
static struct gk5i_krb5_config *cfg;

/* Set up before the fake KDC starts, read-only after. */
static gk5i_krb_time t0; /* the tickets' times count from here */
static struct gk5i_krb_principal client_p, service_p, krbtgt_p;
static uint8_t tgt_ticket[256];
static size_t tgt_ticket_len;
static struct gk5i_cc_cred tgt;

static struct gk5i_view sv(const char *s)
{
    return (struct gk5i_view){(const uint8_t *)s, strlen(s)};
}

static void kdc_failf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void kdc_failf(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&kdc_lock);
    if (kdc_fail[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(kdc_fail, sizeof(kdc_fail), fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&kdc_lock);
}

/* ---- reading the requests: a small DER walker ---- */

struct tlv {
    uint8_t tag;
    const uint8_t *v; /* the value */
    size_t len;       /* its length */
    size_t total;     /* the header's and the value's */
};

/* One DER TLV at p[0..n); false when it does not fit. */
static bool tlv_read(const uint8_t *p, size_t n, struct tlv *t)
{
    size_t h = 2, l;

    if (n < 2) {
        return false;
    }
    t->tag = p[0];
    l = p[1];
    if (l & 0x80u) {
        size_t k = l & 0x7fu;
        if (k == 0 || k > 3 || n < 2 + k) {
            return false;
        }
        l = 0;
        for (size_t i = 0; i < k; i++) {
            l = (l << 8) | p[2 + i];
        }
        h = 2 + k;
    }
    if (l > n - h) {
        return false;
    }
    t->v = p + h;
    t->len = l;
    t->total = h + l;
    return true;
}

/* The field [k] among the TLVs of seq[0..n) (a SEQUENCE's value). */
static bool tlv_field(const uint8_t *seq, size_t n, unsigned k, struct tlv *out)
{
    for (size_t o = 0; o < n; o += out->total) {
        if (!tlv_read(seq + o, n - o, out)) {
            return false;
        }
        if (out->tag == (0xa0u | k)) {
            return true;
        }
    }
    return false;
}

/* A field holding a non-negative INTEGER of at most 32 bits. */
static bool field_uint(struct tlv f, uint32_t *v)
{
    struct tlv i;
    if (!tlv_read(f.v, f.len, &i) || i.tag != 0x02 || i.len < 1 || i.len > 5 ||
        (i.v[0] & 0x80u) || (i.len == 5 && i.v[0] != 0)) {
        return false;
    }
    *v = 0;
    for (size_t k = 0; k < i.len; k++) {
        *v = (*v << 8) | i.v[k];
    }
    return true;
}

/* A field holding a PrincipalName (views into the request). */
static bool field_principal(struct tlv f, struct gk5i_krb_principal *p)
{
    struct tlv seq, nt, ns, names, s;
    uint32_t type = 0;

    memset(p, 0, sizeof(*p));
    if (!tlv_read(f.v, f.len, &seq) || seq.tag != 0x30 ||
        !tlv_field(seq.v, seq.len, 0, &nt) || !field_uint(nt, &type) ||
        !tlv_field(seq.v, seq.len, 1, &ns) || !tlv_read(ns.v, ns.len, &names) ||
        names.tag != 0x30) {
        return false;
    }
    p->name_type = (int32_t)type;
    for (size_t o = 0; o < names.len; o += s.total) {
        if (p->ncomp == GK5I_KRB_MAX_COMPONENTS ||
            !tlv_read(names.v + o, names.len - o, &s) || s.tag != 0x1b) {
            return false;
        }
        p->comp[p->ncomp].p = s.v;
        p->comp[p->ncomp].len = s.len;
        p->ncomp++;
    }
    return p->ncomp > 0;
}

/* What the fake KDC reads of a KDC-REQ (views into it). */
struct req_view {
    uint8_t tag;             /* TAG_AS_REQ or TAG_TGS_REQ */
    struct gk5i_view padata; /* SEQUENCE OF PA-DATA, empty when absent */
    struct gk5i_view body;   /* the KDC-REQ-BODY's whole encoding */
    uint32_t nonce;
    struct gk5i_view realm;
    struct gk5i_krb_principal sname;
};

static bool read_req(const uint8_t *p, size_t n, struct req_view *r)
{
    struct tlv app, seq, f, body, realm;

    memset(r, 0, sizeof(*r));
    if (!tlv_read(p, n, &app) || app.total != n ||
        (app.tag != TAG_AS_REQ && app.tag != TAG_TGS_REQ) ||
        !tlv_read(app.v, app.len, &seq) || seq.tag != 0x30 ||
        !tlv_field(seq.v, seq.len, 4, &f) || !tlv_read(f.v, f.len, &body) ||
        body.tag != 0x30) {
        return false;
    }
    r->tag = app.tag;
    r->body.p = f.v;
    r->body.len = body.total;
    if (tlv_field(seq.v, seq.len, 3, &f)) {
        r->padata.p = f.v;
        r->padata.len = f.len;
    }
    if (!tlv_field(body.v, body.len, 7, &f) || !field_uint(f, &r->nonce) ||
        !tlv_field(body.v, body.len, 2, &f) || !tlv_read(f.v, f.len, &realm) ||
        realm.tag != 0x1b || !tlv_field(body.v, body.len, 3, &f) ||
        !field_principal(f, &r->sname)) {
        return false;
    }
    r->realm.p = realm.v;
    r->realm.len = realm.len;
    return true;
}

/* ---- the fake KDC's crypto: RFC 3961 with ET ---- */

static gk5_ukey *ukey_for(const uint8_t *key, uint32_t usage)
{
    const struct gk5_enctype *et = gk5i_enctype_get(ET);
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;

    memset(&sk, 0, sizeof(sk));
    if (gk5i_derive_subkeys(et, key, et->key_bytes, usage, &sk) != GK5_OK ||
        gk5i_ukey_new(et, &sk, &uk) != GK5_OK) {
        uk = NULL;
    }
    gk5i_subkeys_wipe(&sk);
    return uk;
}

static bool seal(const uint8_t *key, uint32_t usage, const uint8_t *plain,
                 size_t plen, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct gk5_enctype *et = gk5i_enctype_get(ET);
    size_t n = et->conf_bytes + plen + et->mac_bytes;
    gk5_crypto_iov iov[3];
    gk5_ukey *uk;
    bool ok;

    if (n > cap || (uk = ukey_for(key, usage)) == NULL) {
        return false;
    }
    memcpy(out + et->conf_bytes, plain, plen);
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, out, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, out + et->conf_bytes, plen};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER,
                              out + et->conf_bytes + plen, et->mac_bytes};
    ok = gk5i_encrypt_iov(uk, NULL, iov, 3) == GK5_OK;
    gk5i_ukey_free(uk);
    *out_len = n;
    return ok;
}

/* The plaintext of c, at out[0..*plen). */
static bool unseal(const uint8_t *key, uint32_t usage, struct gk5i_view c,
                   uint8_t *out, size_t cap, size_t *plen)
{
    const struct gk5_enctype *et = gk5i_enctype_get(ET);
    gk5_crypto_iov iov[3];
    gk5_ukey *uk;
    bool ok;

    if (c.len < et->conf_bytes + et->mac_bytes || c.len > cap ||
        (uk = ukey_for(key, usage)) == NULL) {
        return false;
    }
    memcpy(out, c.p, c.len);
    *plen = c.len - et->conf_bytes - et->mac_bytes;
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, out, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, out + et->conf_bytes, *plen};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER,
                              out + et->conf_bytes + *plen, et->mac_bytes};
    ok = gk5i_decrypt_iov(uk, iov, 3) == GK5_OK;
    gk5i_ukey_free(uk);
    memmove(out, out + et->conf_bytes, *plen);
    return ok;
}

/* ---- the replies ---- */

static size_t make_error(const struct req_view *r, int32_t code,
                         gk5i_krb_time stime, const char *text, uint8_t *out,
                         size_t cap)
{
    struct gk5i_krb_error e;
    size_t len = 0;

    memset(&e, 0, sizeof(e));
    e.stime = stime;
    e.error_code = code;
    e.realm = sv(REALM);
    e.sname = r != NULL ? r->sname : krbtgt_p;
    if (text != NULL) {
        e.has_e_text = true;
        e.e_text = sv(text);
    }
    if (gk5i_encode_krb_error(&e, out, cap, &len) != GK5_OK) {
        kdc_failf("the KRB-ERROR does not encode");
        return 0;
    }
    return len;
}

static size_t make_as_reply(enum flaw fl, uint32_t nonce, uint8_t *out,
                            size_t cap)
{
    static const uint8_t tkt_cipher[64] = {0x42};
    uint8_t ckey[32], plain[1024], enc[1200];
    const char *salt = REALM USER;
    struct gk5i_krb_enc_kdc_rep_part part;
    struct gk5i_krb_kdc_rep rep;
    size_t plen = 0, elen = 0, len = 0;
    gk5i_krb_time now = (gk5i_krb_time)time(NULL);

    if (fl == FLAW_GARBAGE) {
        memcpy(out, "\x6b\x03not a reply", 14);
        return 14;
    }
    memset(&part, 0, sizeof(part));
    part.tag = 25;
    part.key.keytype = fl == FLAW_RC4_KEY ? 23 : ET;
    part.key.value.p = tgt_key;
    part.key.value.len = fl == FLAW_RC4_KEY ? 16 : 32;
    part.nonce = fl == FLAW_NONCE ? nonce ^ 1u : nonce;
    part.flags = GK5I_TKT_FLG_INITIAL;
    part.authtime = now;
    part.endtime = now + 3600;
    part.srealm = sv(REALM);
    part.sname = krbtgt_p;
    if (fl == FLAW_SNAME) {
        part.sname.comp[0] = sv("evil");
    }
    memset(&rep, 0, sizeof(rep));
    rep.msg_type = GK5I_KRB_TAG_AS_REP;
    rep.crealm = part.srealm;
    rep.cname = client_p;
    if (fl == FLAW_CNAME) {
        rep.cname.comp[0] = sv("mallory");
    }
    rep.ticket.realm = part.srealm;
    rep.ticket.sname = part.sname;
    rep.ticket.enc_part.etype = ET;
    rep.ticket.enc_part.has_kvno = true;
    rep.ticket.enc_part.kvno = 1;
    rep.ticket.enc_part.cipher.p = tkt_cipher;
    rep.ticket.enc_part.cipher.len = sizeof(tkt_cipher);
    rep.enc_part.etype = ET;
    if (gk5_c_string_to_key(ET, PASSWORD, strlen(PASSWORD), salt, strlen(salt),
                            NULL, 0, ckey, sizeof(ckey)) != GK5_OK ||
        gk5i_encode_enc_kdc_rep_part(&part, plain, sizeof(plain), &plen) !=
            GK5_OK ||
        !seal(ckey, KU_AS_REP_ENCPART, plain, plen, enc, sizeof(enc), &elen)) {
        zap(ckey, sizeof(ckey));
        kdc_failf("the AS-REP's encrypted part does not encode");
        return 0;
    }
    zap(ckey, sizeof(ckey));
    zap(plain, sizeof(plain));
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = elen;
    if (gk5i_encode_kdc_rep(&rep, out, cap, &len) != GK5_OK) {
        kdc_failf("the AS-REP does not encode");
        return 0;
    }
    return len;
}

/* A TGS-REQ read as a KDC reads it: the PA-TGS-REQ's AP-REQ carries the
 * TGT, its authenticator opens with the TGT's session key, names the TGT's
 * client, checksums the body, and carries the subkey. */
static bool open_tgs_req(const struct req_view *r, uint8_t subkey[32])
{
    struct gk5i_krb_ap_req ap;
    struct gk5i_krb_authenticator a;
    struct gk5i_view v = {NULL, 0};
    uint8_t plain[1024];
    size_t pos = 0, plen = 0;
    bool more = true, found = false, ok = false;
    int32_t type = 0;

    while (more && !found) {
        if (gk5i_padata_next(r->padata, &pos, &more, &type, &v) != GK5_OK) {
            kdc_failf("the TGS-REQ's padata do not decode");
            return false;
        }
        found = more && type == GK5I_PA_TGS_REQ;
    }
    if (!found) {
        kdc_failf("no PA-TGS-REQ");
        return false;
    }
    if (gk5i_decode_ap_req(v.p, v.len, &ap) != GK5_OK) {
        kdc_failf("the PA-TGS-REQ's AP-REQ does not decode");
    } else if (!gk5i_view_equal(ap.ticket_der, tgt.ticket)) {
        kdc_failf("the AP-REQ's ticket is not the TGT");
    } else if (ap.authenticator.etype != ET ||
               !unseal(tgt_key, KU_TGS_REQ_AUTH, ap.authenticator.cipher, plain,
                       sizeof(plain), &plen)) {
        kdc_failf("the authenticator does not open with the TGT's session "
                  "key (usage 7)");
    } else if (gk5i_decode_authenticator(plain, plen, &a) != GK5_OK) {
        kdc_failf("the authenticator does not decode");
    } else if (!gk5i_principal_equal(a.crealm, &a.cname, sv(REALM),
                                     &client_p)) {
        kdc_failf("the authenticator names another client");
    } else if (!a.has_cksum ||
               a.cksum.cksumtype != gk5i_enctype_get(ET)->cksumtype ||
               gk5_c_verify_checksum(ET, tgt_key, sizeof(tgt_key),
                                     KU_TGS_REQ_AUTH_CKSUM, r->body.p,
                                     r->body.len, a.cksum.value.p,
                                     a.cksum.value.len) != GK5_OK) {
        kdc_failf("the authenticator's checksum (hmac-sha1-96-aes256, usage "
                  "6) is not the body's");
    } else if (!a.has_subkey || a.subkey.keytype != ET ||
               a.subkey.value.len != 32) {
        kdc_failf("the authenticator carries no aes256 subkey");
    } else {
        memcpy(subkey, a.subkey.value.p, 32);
        ok = true;
    }
    zap(plain, sizeof(plain));
    return ok;
}

static size_t make_tgs_reply(enum flaw fl, const struct req_view *r,
                             const uint8_t *subkey, uint8_t *out, size_t cap)
{
    static const uint8_t tkt_cipher[80] = {0x53, 0x54};
    struct gk5i_krb_enc_kdc_rep_part part;
    struct gk5i_krb_kdc_rep rep;
    uint8_t plain[1024], enc[1200], tkt[512];
    size_t plen = 0, elen = 0, len = 0, tlen = 0;
    const uint8_t *key = subkey;
    uint32_t usage = KU_TGS_REP_ENCPART_SUBKEY;

    if (fl == FLAW_S_UNKNOWN) {
        return make_error(r, KDC_ERR_S_PRINCIPAL_UNKNOWN, time(NULL),
                          "Server not found in Kerberos database", out, cap);
    }
    if (fl == FLAW_SKEW) {
        return make_error(r, KRB_AP_ERR_SKEW, time(NULL) + 1000, NULL, out,
                          cap);
    }
    memset(&part, 0, sizeof(part));
    part.tag = 26;
    part.key.keytype = fl == FLAW_RC4_KEY ? 23 : ET;
    part.key.value.p = svc_key;
    part.key.value.len = fl == FLAW_RC4_KEY ? 16 : 32;
    part.nonce = fl == FLAW_NONCE ? r->nonce ^ 1u : r->nonce;
    part.flags = SVC_FLAGS;
    part.authtime = t0 - 60;
    part.has_starttime = true;
    part.starttime = t0;
    part.endtime = t0 + 1800;
    part.has_renew_till = true;
    part.renew_till = t0 + 7200;
    part.srealm = r->realm;
    part.sname = r->sname;
    if (fl == FLAW_SNAME) {
        part.sname.comp[0] = sv("evil");
    } else if (fl == FLAW_REFERRAL) {
        part.sname.name_type = 2;
        part.sname.ncomp = 2;
        part.sname.comp[0] = sv("krbtgt");
        part.sname.comp[1] = sv(OTHER_REALM);
    } else if (fl == FLAW_SREALM) {
        part.srealm = sv(OTHER_REALM);
    }
    if (fl == FLAW_SESSKEY || fl == FLAW_WRONG_USAGE) {
        key = tgt_key;
        usage = fl == FLAW_SESSKEY ? KU_TGS_REP_ENCPART_SESSKEY
                                   : KU_TGS_REP_ENCPART_SUBKEY;
    }
    memset(&rep, 0, sizeof(rep));
    rep.msg_type = GK5I_KRB_TAG_TGS_REP;
    rep.crealm = sv(REALM);
    rep.cname = client_p;
    if (fl == FLAW_CNAME) {
        rep.cname.comp[0] = sv("mallory");
    }
    rep.ticket.realm = part.srealm;
    rep.ticket.sname = part.sname;
    if (fl == FLAW_TKT_SNAME) {
        rep.ticket.sname.comp[0] = sv("evil");
    }
    rep.ticket.enc_part.etype = fl == FLAW_RC4_TICKET ? 23 : ET;
    rep.ticket.enc_part.has_kvno = true;
    rep.ticket.enc_part.kvno = 3;
    rep.ticket.enc_part.cipher.p = tkt_cipher;
    rep.ticket.enc_part.cipher.len = sizeof(tkt_cipher);
    rep.enc_part.etype = ET;
    if (gk5i_encode_enc_kdc_rep_part(&part, plain, sizeof(plain), &plen) !=
            GK5_OK ||
        !seal(key, usage, plain, plen, enc, sizeof(enc), &elen)) {
        kdc_failf("the TGS-REP's encrypted part does not encode");
        return 0;
    }
    zap(plain, sizeof(plain));
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = elen;
    if (gk5i_encode_ticket(&rep.ticket, tkt, sizeof(tkt), &tlen) != GK5_OK ||
        gk5i_encode_kdc_rep(&rep, out, cap, &len) != GK5_OK) {
        kdc_failf("the TGS-REP does not encode");
        return 0;
    }
    pthread_mutex_lock(&kdc_lock);
    memcpy(kdc_ticket, tkt, tlen);
    kdc_ticket_len = tlen;
    pthread_mutex_unlock(&kdc_lock);
    return len;
}

/* The reply to one datagram (0: none). */
static size_t answer(const uint8_t *p, size_t n, uint8_t *out, size_t cap)
{
    struct req_view r;
    uint8_t subkey[32];
    enum flaw fl;
    size_t len;
    char why[sizeof(kdc_fail)];

    pthread_mutex_lock(&kdc_lock);
    fl = kdc_flaw;
    if (n > 0 && p[0] == TAG_TGS_REQ) {
        kdc_tgs_reqs++;
    } else {
        kdc_as_reqs++;
    }
    pthread_mutex_unlock(&kdc_lock);
    if (!read_req(p, n, &r)) {
        kdc_failf("a request that does not parse");
        return make_error(NULL, KRB_ERR_GENERIC, time(NULL), "unreadable", out,
                          cap);
    }
    if (r.tag == TAG_AS_REQ) {
        return make_as_reply(fl, r.nonce, out, cap);
    }
    if (!gk5i_view_equal(r.realm, sv(REALM)) ||
        !gk5i_principal_equal(r.realm, &r.sname, sv(REALM), &service_p)) {
        kdc_failf("the TGS-REQ asks for another service");
    }
    if (!open_tgs_req(&r, subkey)) {
        pthread_mutex_lock(&kdc_lock);
        memcpy(why, kdc_fail, sizeof(why));
        pthread_mutex_unlock(&kdc_lock);
        return make_error(&r, KRB_ERR_GENERIC, time(NULL), why, out, cap);
    }
    len = make_tgs_reply(fl, &r, subkey, out, cap);
    zap(subkey, sizeof(subkey));
    return len;
}

/* Bounded: the socket's receive timeout brings the loop back to kdc_stop
 * every 100 ms. */
static void *kdc_main(void *arg)
{
    uint8_t req[4096], rep[4096];

    (void)arg;
    while (!atomic_load(&kdc_stop)) {
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(kdc_fd, req, sizeof(req), 0,
                             (struct sockaddr *)&from, &fl);
        size_t rl;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                continue;
            }
            kdc_failf("recvfrom: %s", strerror(errno));
            return NULL;
        }
        rl = answer(req, (size_t)n, rep, sizeof(rep));
        if (rl > 0) {
            (void)sendto(kdc_fd, rep, rl, 0, (struct sockaddr *)&from, fl);
        }
    }
    return NULL;
}

/* ---- the test's side ---- */

static void make_tgt(void)
{
    static const uint8_t tkt_cipher[96] = {0x71, 0x72};
    struct gk5i_krb_ticket t;

    memset(&t, 0, sizeof(t));
    t.realm = sv(REALM);
    t.sname = krbtgt_p;
    t.enc_part.etype = ET;
    t.enc_part.has_kvno = true;
    t.enc_part.kvno = 1;
    t.enc_part.cipher.p = tkt_cipher;
    t.enc_part.cipher.len = sizeof(tkt_cipher);
    if (gk5i_encode_ticket(&t, tgt_ticket, sizeof(tgt_ticket),
                           &tgt_ticket_len) != GK5_OK) {
        tgt_ticket_len = 0; /* setup fails */
    }

    memset(&tgt, 0, sizeof(tgt));
    tgt.client_realm = sv(REALM);
    tgt.client = client_p;
    tgt.server_realm = sv(REALM);
    tgt.server = krbtgt_p;
    tgt.keytype = ET;
    memcpy(tgt.key, tgt_key, sizeof(tgt_key));
    tgt.key_len = sizeof(tgt_key);
    tgt.authtime = (uint32_t)(t0 - 60);
    tgt.starttime = tgt.authtime;
    tgt.endtime = (uint32_t)(t0 + 36000);
    tgt.flags = GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT;
    tgt.ticket.p = tgt_ticket;
    tgt.ticket.len = tgt_ticket_len;
}

static void teardown_files(void)
{
    if (conf_path[0] != '\0') {
        unlink(conf_path);
    }
    if (cc_path[0] != '\0') {
        unlink(cc_path);
    }
}

static int teardown(void **state)
{
    (void)state;
    if (kdc_started) {
        atomic_store(&kdc_stop, true);
        pthread_join(kdc_thread, NULL);
        kdc_started = false;
    }
    if (kdc_fd >= 0) {
        close(kdc_fd);
        kdc_fd = -1;
    }
    gk5i_config_free(cfg);
    cfg = NULL;
    teardown_files();
    return 0;
}

static int setup(void **state)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    struct timeval tv = {0, 100000};
    char err[256];
    FILE *f;

    t0 = (gk5i_krb_time)time(NULL);
    client_p.name_type = 1;
    client_p.ncomp = 1;
    client_p.comp[0] = sv(USER);
    service_p.name_type = 3;
    service_p.ncomp = 2;
    service_p.comp[0] = sv(SERVICE);
    service_p.comp[1] = sv(HOST);
    krbtgt_p.name_type = 2;
    krbtgt_p.ncomp = 2;
    krbtgt_p.comp[0] = sv("krbtgt");
    krbtgt_p.comp[1] = sv(REALM);
    make_tgt();
    snprintf(conf_path, sizeof(conf_path), "/tmp/gk5-kdcc-%ld.conf",
             (long)getpid());
    snprintf(cc_path, sizeof(cc_path), "/tmp/gk5-kdcc-%ld.cc", (long)getpid());

    kdc_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (tgt_ticket_len == 0 || kdc_fd < 0 ||
        setsockopt(kdc_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
        bind(kdc_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(kdc_fd, (struct sockaddr *)&a, &al) != 0) {
        goto fail;
    }
    kdc_port = ntohs(a.sin_port);
    f = fopen(conf_path, "w");
    if (f == NULL) {
        goto fail;
    }
    /* request_timeout: a silent fake KDC costs a case 5 s, not 10. */
    fprintf(f,
            "[libdefaults]\n default_realm = " REALM "\n"
            " request_timeout = 5\n"
            "[realms]\n " REALM " = {\n  kdc = 127.0.0.1:%u\n }\n",
            (unsigned)kdc_port);
    if (fclose(f) != 0 ||
        gk5i_config_load(conf_path, &cfg, err, sizeof(err)) != GK5_OK) {
        goto fail;
    }
    atomic_store(&kdc_stop, false);
    if (pthread_create(&kdc_thread, NULL, kdc_main, NULL) != 0) {
        goto fail;
    }
    kdc_started = true;
    return 0;
fail:
    (void)teardown(state);
    return -1;
}

static void set_flaw(enum flaw fl)
{
    pthread_mutex_lock(&kdc_lock);
    kdc_flaw = fl;
    kdc_fail[0] = '\0';
    pthread_mutex_unlock(&kdc_lock);
}

/* Fails the case when the fake KDC could not read what it was sent. */
static void kdc_check(void)
{
    char msg[sizeof(kdc_fail)];
    pthread_mutex_lock(&kdc_lock);
    memcpy(msg, kdc_fail, sizeof(msg));
    pthread_mutex_unlock(&kdc_lock);
    if (msg[0] != '\0') {
        fail_msg("fake KDC: %s", msg);
    }
}

static unsigned tgs_reqs(void)
{
    unsigned n;
    pthread_mutex_lock(&kdc_lock);
    n = kdc_tgs_reqs;
    pthread_mutex_unlock(&kdc_lock);
    return n;
}

static size_t count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    size_t n = 0;
    assert_non_null(d);
    while (readdir(d) != NULL) {
        n++;
    }
    closedir(d);
    return n;
}

static void expect_empty(const struct gk5i_owned_cred *oc)
{
    assert_null(oc->buf);
    assert_int_equal(oc->cred.key_len, 0);
    assert_int_equal(oc->cred.ticket.len, 0);
    assert_int_equal(oc->cred.server.ncomp, 0);
}

/* ---- the AS exchange ---- */

static uint32_t run_as(enum flaw fl, struct gk5i_owned_cred *out)
{
    struct gk5i_as_req r;
    uint32_t ret;

    set_flaw(fl);
    memset(&r, 0, sizeof(r));
    r.cfg = cfg;
    r.realm = sv(REALM);
    r.client = &client_p;
    r.password = PASSWORD;
    ret = gk5i_as_exchange(&r, out);
    kdc_check();
    return ret;
}

static void test_good(void **state)
{
    struct gk5i_owned_cred c;
    (void)state;
    assert_int_equal(run_as(FLAW_NONE, &c), GK5_OK);
    assert_int_equal(c.cred.keytype, ET);
    assert_int_equal(c.cred.key_len, 32);
    assert_memory_equal(c.cred.key, tgt_key, 32);
    assert_true(c.cred.ticket.len > 0);
    assert_true(gk5i_principal_equal(c.cred.server_realm, &c.cred.server,
                                     sv(REALM), &krbtgt_p));
    gk5i_owned_cred_clear(&c);
}

static void expect_refused(enum flaw fl, uint32_t code)
{
    struct gk5i_owned_cred c;
    uint32_t err = run_as(fl, &c);
    assert_int_equal(GK5_ERR_CODE(err), code);
    expect_empty(&c);
}

static void test_garbage(void **state)
{
    (void)state;
    expect_refused(FLAW_GARBAGE, GK5_ERR_KDC_REPLY);
}

static void test_nonce(void **state)
{
    (void)state;
    expect_refused(FLAW_NONCE, GK5_ERR_KDC_NONCE);
}

static void test_cname(void **state)
{
    (void)state;
    expect_refused(FLAW_CNAME, GK5_ERR_KDC_CNAME);
}

static void test_sname(void **state)
{
    (void)state;
    expect_refused(FLAW_SNAME, GK5_ERR_KDC_SNAME);
}

static void test_rc4_key(void **state)
{
    struct gk5i_owned_cred c;
    (void)state;
    expect_refused(FLAW_RC4_KEY, GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(GK5_ERR_ENCTYPE(run_as(FLAW_RC4_KEY, &c)), 23);
    expect_empty(&c);
}

static void test_error_words(void **state)
{
    struct gk5i_krb_error e;
    (void)state;
    memset(&e, 0, sizeof(e));
    e.error_code = 24;
    e.has_e_text = true;
    e.e_text.p = (const uint8_t *)"bad\npassword";
    e.e_text.len = 12;
    assert_int_equal(gk5i_krb_error_note(&e, true, 0),
                     GK5_ERR_KDC_PREAUTH_FAILED);
    assert_string_equal(gk5_krb_last_error(),
                        "KDC_ERR_PREAUTH_FAILED (24): bad?password");
    memset(&e, 0, sizeof(e));
    e.error_code = 37;
    e.stime = 1000;
    assert_int_equal(gk5i_krb_error_note(&e, true, 1412), GK5_ERR_AP_SKEW);
    assert_string_equal(gk5_krb_last_error(),
                        "KRB_AP_ERR_SKEW (37): clocks differ by 412 s, more "
                        "than the 300 s allowed");
    gk5i_krb_error_clear();
    assert_null(gk5_krb_last_error());
}

/* ---- the TGS exchange ---- */

static uint32_t run_tgs(enum flaw fl, struct gk5i_owned_cred *out)
{
    unsigned before = tgs_reqs();
    uint32_t ret;

    set_flaw(fl);
    ret = gk5i_tgs_exchange(cfg, &tgt, sv(REALM), &service_p, NULL, 0, out);
    kdc_check();
    /* Asked once: a refusal comes from the reply, not from before. */
    assert_int_equal(tgs_reqs(), before + 1);
    return ret;
}

/* The service credential as the fake KDC's encrypted part has it. */
static void expect_service_cred(const struct gk5i_owned_cred *c)
{
    struct gk5i_krb_ticket t;

    assert_non_null(c->buf);
    assert_true(gk5i_principal_equal(c->cred.client_realm, &c->cred.client,
                                     sv(REALM), &client_p));
    assert_true(gk5i_principal_equal(c->cred.server_realm, &c->cred.server,
                                     sv(REALM), &service_p));
    assert_int_equal(c->cred.keytype, ET);
    assert_int_equal(c->cred.key_len, 32);
    assert_memory_equal(c->cred.key, svc_key, 32);
    assert_int_equal(c->cred.authtime, (uint32_t)(t0 - 60));
    assert_int_equal(c->cred.starttime, (uint32_t)t0);
    assert_int_equal(c->cred.endtime, (uint32_t)(t0 + 1800));
    assert_int_equal(c->cred.renew_till, (uint32_t)(t0 + 7200));
    assert_int_equal(c->cred.flags, SVC_FLAGS);
    assert_false(c->cred.is_skey);
    /* The ticket as it came. */
    pthread_mutex_lock(&kdc_lock);
    assert_int_equal(c->cred.ticket.len, kdc_ticket_len);
    assert_memory_equal(c->cred.ticket.p, kdc_ticket, kdc_ticket_len);
    pthread_mutex_unlock(&kdc_lock);
    assert_int_equal(
        gk5i_decode_ticket(c->cred.ticket.p, c->cred.ticket.len, &t), GK5_OK);
    assert_true(gk5i_principal_equal(t.realm, &t.sname, sv(REALM), &service_p));
    assert_int_equal(t.enc_part.kvno, 3);
}

static void test_tgs_good(void **state)
{
    struct gk5i_owned_cred c;
    (void)state;
    assert_int_equal(run_tgs(FLAW_NONE, &c), GK5_OK);
    expect_service_cred(&c);
    assert_null(gk5_krb_last_error());
    gk5i_owned_cred_clear(&c);
}

/* RFC 4120 5.4.2: a KDC may encrypt the reply with the TGT's session key
 * (usage 8) in place of the subkey (usage 9). */
static void test_tgs_session_key(void **state)
{
    struct gk5i_owned_cred c;
    (void)state;
    assert_int_equal(run_tgs(FLAW_SESSKEY, &c), GK5_OK);
    expect_service_cred(&c);
    gk5i_owned_cred_clear(&c);
}

static void expect_tgs_refused(enum flaw fl, uint32_t code)
{
    struct gk5i_owned_cred c;
    uint32_t err = run_tgs(fl, &c);
    assert_int_equal(GK5_ERR_CODE(err), code);
    expect_empty(&c);
}

/* The session key with the subkey's usage opens nothing. */
static void test_tgs_wrong_usage(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_WRONG_USAGE, GK5_ERR_KDC_MODIFIED);
}

/* CVE-2017-11103: the service is the encrypted part's. */
static void test_tgs_sname(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_SNAME, GK5_ERR_KDC_SNAME);
}

static void test_tgs_ticket_sname(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_TKT_SNAME, GK5_ERR_KDC_SNAME);
}

static void test_tgs_cname(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_CNAME, GK5_ERR_KDC_CNAME);
}

static void test_tgs_nonce(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_NONCE, GK5_ERR_KDC_NONCE);
}

static void test_tgs_referral(void **state)
{
    struct gk5i_owned_cred c;
    unsigned before;
    (void)state;
    expect_tgs_refused(FLAW_REFERRAL, GK5_ERR_KDC_REFERRAL);
    expect_tgs_refused(FLAW_SREALM, GK5_ERR_KDC_REFERRAL);
    /* Another realm's service is refused before the KDC is asked. */
    before = tgs_reqs();
    assert_int_equal(
        gk5i_tgs_exchange(cfg, &tgt, sv(OTHER_REALM), &service_p, NULL, 0, &c),
        GK5_ERR_KDC_REFERRAL);
    expect_empty(&c);
    assert_int_equal(tgs_reqs(), before);
}

static void test_tgs_principal_unknown(void **state)
{
    (void)state;
    expect_tgs_refused(FLAW_S_UNKNOWN, GK5_ERR_KDC_PRINCIPAL_UNKNOWN);
    assert_non_null(gk5_krb_last_error());
    assert_string_equal(gk5_krb_last_error(),
                        "KDC_ERR_S_PRINCIPAL_UNKNOWN (7): Server not found in "
                        "Kerberos database");
}

static void test_tgs_skew(void **state)
{
    static const char head[] = "KRB_AP_ERR_SKEW (37): clocks differ by ";
    const char *w;
    char *end = NULL;
    long d;
    (void)state;
    expect_tgs_refused(FLAW_SKEW, GK5_ERR_AP_SKEW);
    w = gk5_krb_last_error();
    assert_non_null(w);
    assert_memory_equal(w, head, sizeof(head) - 1);
    d = strtol(w + sizeof(head) - 1, &end, 10);
    /* 1000 s, give or take the second that may turn during the exchange. */
    assert_in_range(d, 999, 1001);
    assert_string_equal(end, " s, more than the 300 s allowed");
}

/* ---- gk5i_get_service_cred: the cache around the exchange ---- */

static void write_cache(void)
{
    assert_int_equal(gk5i_ccache_write(cc_path, sv(REALM), &client_p, &tgt, 1),
                     GK5_OK);
}

static uint8_t *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = malloc(1 << 16);
    assert_non_null(f);
    assert_non_null(p);
    *len = fread(p, 1, 1 << 16, f);
    assert_true(*len < (1 << 16));
    assert_int_equal(fclose(f), 0);
    return p;
}

static void test_service_cred_good(void **state)
{
    struct gk5i_owned_cred c, again;
    struct gk5i_ccache *cc = NULL;
    const struct gk5i_cc_cred *found;
    size_t fds;
    unsigned before;
    (void)state;

    write_cache();
    set_flaw(FLAW_NONE);
    fds = count_fds();
    before = tgs_reqs();
    assert_int_equal(
        gk5i_get_service_cred(cfg, cc_path, sv(REALM), &service_p, &c), GK5_OK);
    kdc_check();
    assert_int_equal(tgs_reqs(), before + 1);
    expect_service_cred(&c);
    assert_int_equal(count_fds(), fds);

    /* Stored: the cache has it, and the next call takes it from there. */
    assert_int_equal(gk5i_ccache_read(cc_path, &cc), GK5_OK);
    assert_int_equal(cc->n, 2);
    found = gk5i_ccache_find(cc, sv(REALM), &service_p, (int64_t)time(NULL));
    assert_non_null(found);
    assert_memory_equal(found->key, svc_key, 32);
    assert_int_equal(found->ticket.len, c.cred.ticket.len);
    assert_memory_equal(found->ticket.p, c.cred.ticket.p, c.cred.ticket.len);
    gk5i_ccache_free(cc);
    assert_int_equal(
        gk5i_get_service_cred(cfg, cc_path, sv(REALM), &service_p, &again),
        GK5_OK);
    assert_int_equal(tgs_reqs(), before + 1);
    assert_memory_equal(again.cred.key, svc_key, 32);
    assert_int_equal(count_fds(), fds);
    gk5i_owned_cred_clear(&again);
    gk5i_owned_cred_clear(&c);
}

/* A cached ticket whose session key is of an enctype asked for serves
 * even when a newer one of another type follows it in the cache (a cache
 * holding a ticket per session-key type, as `gk5 kvno -e` leaves it):
 * no TGS exchange, nothing appended. */
static void test_service_cred_older_type(void **state)
{
    struct gk5i_owned_cred c, again;
    struct gk5i_cc_cred newer;
    struct gk5i_ccache *cc = NULL;
    int32_t saved[GK5I_KRB_MAX_ETYPES];
    size_t saved_n = cfg->n_tgs;
    unsigned before;
    (void)state;

    write_cache();
    set_flaw(FLAW_NONE);
    assert_int_equal(
        gk5i_get_service_cred(cfg, cc_path, sv(REALM), &service_p, &c), GK5_OK);
    kdc_check();
    expect_service_cred(&c);
    /* A newer ticket for the same service, its session key aes128. */
    newer = c.cred;
    newer.keytype = 17;
    newer.key_len = 16;
    newer.authtime++;
    assert_int_equal(gk5i_ccache_append(cc_path, &newer), GK5_OK);

    memcpy(saved, cfg->tgs_enctypes, sizeof(saved));
    cfg->tgs_enctypes[0] = ET;
    cfg->n_tgs = 1;
    before = tgs_reqs();
    assert_int_equal(
        gk5i_get_service_cred(cfg, cc_path, sv(REALM), &service_p, &again),
        GK5_OK);
    memcpy(cfg->tgs_enctypes, saved, sizeof(saved));
    cfg->n_tgs = saved_n;
    assert_int_equal(tgs_reqs(), before);
    assert_int_equal(again.cred.keytype, ET);
    assert_memory_equal(again.cred.key, svc_key, 32);
    assert_int_equal(gk5i_ccache_read(cc_path, &cc), GK5_OK);
    assert_int_equal(cc->n, 3); /* the TGT and the two tickets */
    gk5i_ccache_free(cc);
    gk5i_owned_cred_clear(&again);
    gk5i_owned_cred_clear(&c);
}

/* A ticket in the service's rc4 key (an AES session key): refused
 * (RFC 8429), and gk5i_kdc_refused_ticket says it was the ticket's
 * enctype; for an rc4 session key it says nothing, and
 * gk5i_krb_error_clear forgets it. */
static void test_tgs_rc4_ticket(void **state)
{
    struct gk5i_owned_cred c;
    uint32_t err;
    (void)state;

    err = run_tgs(FLAW_RC4_TICKET, &c);
    assert_int_equal(GK5_ERR_CODE(err), GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(GK5_ERR_ENCTYPE(err), 23);
    expect_empty(&c);
    assert_int_equal(gk5i_kdc_refused_ticket(), 23);
    gk5i_krb_error_clear();
    assert_int_equal(gk5i_kdc_refused_ticket(), 0);

    assert_int_equal(run_tgs(FLAW_RC4_TICKET, &c), err);
    assert_int_equal(gk5i_kdc_refused_ticket(), 23);
    err = run_tgs(FLAW_RC4_KEY, &c);
    assert_int_equal(GK5_ERR_ENCTYPE(err), 23);
    assert_int_equal(gk5i_kdc_refused_ticket(), 0);
    assert_int_equal(run_tgs(FLAW_NONE, &c), GK5_OK);
    assert_int_equal(gk5i_kdc_refused_ticket(), 0);
    gk5i_owned_cred_clear(&c);
}

/* rc4 refused (RFC 8429), through the exchange and through the cache:
 * nothing appended. */
static void test_tgs_rc4_key(void **state)
{
    struct gk5i_owned_cred c;
    uint8_t *b0, *b1;
    size_t l0, l1, fds;
    unsigned before;
    uint32_t err;
    (void)state;

    err = run_tgs(FLAW_RC4_KEY, &c);
    assert_int_equal(GK5_ERR_CODE(err), GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(GK5_ERR_ENCTYPE(err), 23);
    expect_empty(&c);

    write_cache();
    b0 = file_bytes(cc_path, &l0);
    fds = count_fds();
    before = tgs_reqs();
    err = gk5i_get_service_cred(cfg, cc_path, sv(REALM), &service_p, &c);
    kdc_check();
    assert_int_equal(tgs_reqs(), before + 1);
    assert_int_equal(GK5_ERR_CODE(err), GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(GK5_ERR_ENCTYPE(err), 23);
    expect_empty(&c);
    assert_int_equal(count_fds(), fds);
    b1 = file_bytes(cc_path, &l1);
    assert_int_equal(l1, l0);
    assert_memory_equal(b1, b0, l0);
    free(b0);
    free(b1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_words),
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_nonce),
        cmocka_unit_test(test_cname),
        cmocka_unit_test(test_sname),
        cmocka_unit_test(test_rc4_key),
        cmocka_unit_test(test_tgs_good),
        cmocka_unit_test(test_tgs_session_key),
        cmocka_unit_test(test_tgs_wrong_usage),
        cmocka_unit_test(test_tgs_sname),
        cmocka_unit_test(test_tgs_ticket_sname),
        cmocka_unit_test(test_tgs_cname),
        cmocka_unit_test(test_tgs_nonce),
        cmocka_unit_test(test_tgs_referral),
        cmocka_unit_test(test_tgs_principal_unknown),
        cmocka_unit_test(test_tgs_skew),
        cmocka_unit_test(test_service_cred_good),
        cmocka_unit_test(test_service_cred_older_type),
        cmocka_unit_test(test_tgs_rc4_key),
        cmocka_unit_test(test_tgs_rc4_ticket),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
