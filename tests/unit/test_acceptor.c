/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5_accept() (src/krb5/acceptor.c) with no KDC: the test is the KDC and
 * the initiator.  It writes an MIT keytab (0x502) with known keys for
 * nfs/server.test@GK5.TEST, makes tickets and authenticators with the
 * RFC 4120 encoders and the public crypto calls (RFC 4120 7.5.1 usages 2,
 * 10, 11, 12), frames AP-REQs (RFC 2743 3.1, RFC 4121 4.1) and hands them
 * to the acceptor at a chosen time (gk5i_accept_at).
 *
 * Every check of the acceptor is met once each way, each refusal with its
 * exact major and minor status, no context, and (for a mutual AP-REQ that
 * got far enough to name the service) the KRB-ERROR token; every accepted
 * context is then used: the AP-REP is opened as an initiator would, the
 * initiator's side imported from a lucid context, and Wrap and MIC tokens
 * go both ways.  Also: RFC 4537 enctype negotiation, channel bindings,
 * the replay cache (repeats, a full cache, the restart guard, eight
 * threads), keytab rotation, tracing, and every truncation and one bit
 * flip per byte of an AP-REQ.
 *
 * The time given to the acceptor is the real time plus TIME_AHEAD: a
 * memory-only replay cache refuses authenticators from before it was made
 * for one skew (rcache.c, "the restart guard"), and these are made after.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include "common/trace.h"
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"

#define REALM "GK5.TEST"
#define HOST "server.test"
#define SERVICE "nfs/server.test@GK5.TEST"

#define ET_DES_CBC_MD5 3
#define ET_AES128 17
#define ET_AES256 18
#define ET_AES128_SHA2 19
#define ET_AES256_SHA2 20
#define ET_RC4 23
#define ET_CAMELLIA128 25
#define ET_CAMELLIA256 26
#define ET_DES3 16

#define KU_TICKET 2
#define KU_AP_REQ_AUTH_CKSUM 10
#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

/* RFC 4120 7.5.9 */
#define KDC_ERR_POLICY 12
#define KDC_ERR_ETYPE_NOSUPP 14
#define KRB_AP_ERR_BAD_INTEGRITY 31
#define KRB_AP_ERR_TKT_EXPIRED 32
#define KRB_AP_ERR_TKT_NYV 33
#define KRB_AP_ERR_REPEAT 34
#define KRB_AP_ERR_NOT_US 35
#define KRB_AP_ERR_BADMATCH 36
#define KRB_AP_ERR_SKEW 37
#define KRB_AP_ERR_BADVERSION 39
#define KRB_AP_ERR_MODIFIED 41
#define KRB_AP_ERR_BADKEYVER 44
#define KRB_AP_ERR_NOKEY 45
#define KRB_AP_ERR_METHOD 48
#define KRB_AP_ERR_INAPP_CKSUM 50
#define KRB_ERR_GENERIC 60
#define NO_ERROR_TOKEN 0 /* out must stay empty */

#define TIME_AHEAD 2000 /* past the replay cache's restart guard */
#define NOW_USEC 500000u

#define DEFAULT_TKT_FLAGS                                                      \
    (GK5I_TKT_FLG_FORWARDABLE | GK5I_TKT_FLG_RENEWABLE |                       \
     GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT)
#define DEFAULT_GSS_FLAGS                                                      \
    (GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG | GK5_C_CONF_FLAG |               \
     GK5_C_INTEG_FLAG)

static const uint8_t krb5_oid[GK5I_FRAME_OID_BYTES] = {
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02};
static const uint8_t ms_oid[GK5I_FRAME_OID_BYTES] = {
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x82, 0xf7, 0x12, 0x01, 0x02, 0x02};

/* A ticket's AuthorizationData: one AD-WIN2K-PAC (128) element, carried
 * opaquely. */
static const uint8_t pac_ad[] = {0x30, 0x13, 0x30, 0x11, 0xa0, 0x04, 0x02,
                                 0x02, 0x00, 0x80, 0xa1, 0x09, 0x04, 0x07,
                                 'P',  'A',  'C',  'D',  'A',  'T',  'A'};

static int64_t g_now;
static char g_dir[64];
static char g_keytab[128];
static gk5_acceptor_cred *g_cred;      /* replay cache on */
static gk5_acceptor_cred *g_cred_norc; /* GK5_ACC_NO_RCACHE */

/* ---- keys and the keytab ---- */

static size_t key_len(int32_t et)
{
    switch (et) {
    case ET_AES128:
    case ET_AES128_SHA2:
    case ET_CAMELLIA128:
    case ET_RC4:
        return 16;
    case ET_AES256:
    case ET_AES256_SHA2:
    case ET_CAMELLIA256:
        return 32;
    case ET_DES3:
        return 24;
    default:
        return 8; /* single DES */
    }
}

/* The known key of svc's kvno for et. */
static void kt_key(const char *svc, int32_t et, uint32_t kvno, uint8_t *out)
{
    for (size_t i = 0; i < key_len(et); i++) {
        out[i] = (uint8_t)(svc[0] * 31 + et * 7 + kvno * 13 + i * 3 + 1);
    }
}

struct kt_ent {
    const char *svc;
    int32_t et;
    uint32_t kvno;
};

static const struct kt_ent main_keytab[] = {
    {"nfs", ET_AES256, 1},      {"nfs", ET_AES128, 1},
    {"nfs", ET_AES256_SHA2, 1}, {"nfs", ET_AES128_SHA2, 1},
    {"nfs", ET_CAMELLIA256, 1}, {"nfs", ET_AES256, 2},
    {"nfs", ET_AES128, 2},      {"nfs", ET_AES256_SHA2, 2},
    {"nfs", ET_AES128_SHA2, 2}, {"nfs", ET_CAMELLIA256, 2},
    {"host", ET_AES256, 1},
#ifdef GK5_WITH_DES3
    {"nfs", ET_DES3, 2},
#endif
};

/* RFC 1964 (DES3) contexts: no acceptor subkey, other tokens. */
static bool rfc1964(int32_t et)
{
    return et == ET_DES3;
}

struct wbuf {
    uint8_t p[8192];
    size_t len;
};

static void w_put(struct wbuf *b, const void *p, size_t n)
{
    assert_true(b->len + n <= sizeof(b->p));
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void w_u8(struct wbuf *b, uint8_t v)
{
    w_put(b, &v, 1);
}

static void w_u16(struct wbuf *b, uint16_t v)
{
    uint8_t x[2];

    store_be16(x, v);
    w_put(b, x, 2);
}

static void w_u32(struct wbuf *b, uint32_t v)
{
    uint8_t x[4];

    store_be32(x, v);
    w_put(b, x, 4);
}

static void w_str(struct wbuf *b, const char *s)
{
    w_u16(b, (uint16_t)strlen(s));
    w_put(b, s, strlen(s));
}

/* An MIT 0x502 keytab of the entries (krb5_int.h's keytab.c comment),
 * its mtime set to mtime. */
static void kt_write(const char *path, const struct kt_ent *e, size_t n,
                     time_t mtime)
{
    static struct wbuf b;
    struct timespec ts[2];
    FILE *f;

    memset(&b, 0, sizeof(b));
    w_u8(&b, 0x05);
    w_u8(&b, 0x02);
    for (size_t i = 0; i < n; i++) {
        uint8_t key[32];
        size_t at = b.len;

        kt_key(e[i].svc, e[i].et, e[i].kvno, key);
        w_u32(&b, 0); /* the record length, filled below */
        w_u16(&b, 2);
        w_str(&b, REALM);
        w_str(&b, e[i].svc);
        w_str(&b, HOST);
        w_u32(&b, 3); /* KRB5_NT_SRV_HST */
        w_u32(&b, 0x60000000u);
        w_u8(&b, (uint8_t)e[i].kvno);
        w_u16(&b, (uint16_t)e[i].et);
        w_u16(&b, (uint16_t)key_len(e[i].et));
        w_put(&b, key, key_len(e[i].et));
        w_u32(&b, e[i].kvno);
        store_be32(b.p + at, (uint32_t)(b.len - at - 4));
    }
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.p, 1, b.len, f), b.len);
    assert_int_equal(fclose(f), 0);
    ts[0].tv_sec = mtime;
    ts[0].tv_nsec = 0;
    ts[1] = ts[0];
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static gk5_acceptor_cred *cred_new(const char *keytab, const char *principal,
                                   uint32_t skew, uint32_t flags,
                                   size_t rcache_max)
{
    gk5_acceptor_opts o;
    gk5_acceptor_cred *cred = NULL;
    uint32_t minor = 0;

    memset(&o, 0, sizeof(o));
    o.keytab = keytab;
    o.principal = principal;
    o.clockskew = skew;
    o.flags = flags;
    o.rcache_max = rcache_max != 0 ? rcache_max : 4096;
    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    assert_non_null(cred);
    return cred;
}

/* ---- forging AP-REQs ---- */

enum cksum_kind {
    CK_GSS,        /* RFC 4121 4.1.1 0x8003 */
    CK_NONE,       /* no checksum */
    CK_KEYED,      /* the session enctype's keyed checksum over nothing */
    CK_KEYED_BAD,  /* the same, one byte changed */
    CK_UNKEYED,    /* rsa-md5 (7) */
    CK_OTHER_KEYED /* a keyed type not the session enctype's */
};

enum frame_kind { FR_KRB5, FR_MS, FR_RAW };

/* One AP-REQ; a zeroed struct is a good one: a mutual AP-REQ from
 * alice@GK5.TEST for nfs/server.test@GK5.TEST, an aes256 ticket of kvno
 * 2, a session key of the ticket's enctype, a 0x8003 checksum without
 * bindings, an initiator subkey and a sequence number. */
struct forge {
    /* the ticket */
    const char *svc; /* "nfs" */
    const char *srealm;
    int32_t tkt_et; /* 0: aes256 */
    uint32_t kvno;  /* 0: 2 */
    bool no_kvno;
    const char *key_svc; /* whose key encrypts the ticket (svc's) */
    int32_t ses_et;      /* 0: tkt_et */
    bool ses_short;      /* the session key one byte short */
    uint32_t tkt_flags;  /* added to DEFAULT_TKT_FLAGS */
    int64_t start_off;   /* 0: -60 */
    int64_t end_off;     /* 0: +36000 */
    const char *transited;
    bool no_authz;
    size_t tkt_trailer; /* bytes after the EncTicketPart's DER, encrypted */
    uint8_t tkt_trailer_byte;
    /* the authenticator */
    const char *auth_cname; /* "alice" */
    int64_t ctime_off;
    enum cksum_kind ck;
    bool flags_set; /* gss_flags instead of the default */
    uint32_t gss_flags;
    uint32_t lgth; /* 0: 16 */
    size_t ck_len; /* 0: all of it; else cut or zero-extended */
    const gk5_channel_bindings *cb; /* hashed into Bnd; NULL: zeros */
    bool deleg;
    uint16_t dlgopt; /* 0: 1 */
    int dlgth_extra; /* added to Dlgth (a lie) */
    bool no_subkey;
    int32_t subkey_et; /* 0: ses_et */
    bool subkey_short; /* the subkey one byte short */
    bool no_seq;
    const int32_t *etl; /* RFC 4537 list */
    size_t n_etl;
    /* the AP-REQ */
    bool no_mutual;
    bool use_session_key;
    int32_t auth_et; /* the authenticator's etype label; 0: ses_et */
    enum frame_kind frame;
    uint16_t tok_id; /* 0: 01 00 */
};

struct forged {
    uint8_t *tok;
    size_t len;
    const char *svc, *srealm; /* the ticket's service */
    int32_t tkt_et;
    int32_t ses_et;
    uint8_t ses_key[32];
    size_t ses_len;
    bool has_sub;
    int32_t sub_et;
    uint8_t sub_key[32];
    size_t sub_len;
    bool has_seq;
    uint32_t seq;
    int64_t ctime;
    uint32_t cusec;
    bool mutual;
    int64_t authtime, starttime, endtime, renew_till;
    size_t tkt_der_len; /* the EncTicketPart's DER, without a trailer */
    uint32_t tkt_flags;
    /* where the two ciphertexts lie in tok */
    size_t tkt_off, tkt_len, auth_off, auth_len;
};

static struct gk5i_view sv(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};

    return v;
}

static struct gk5i_krb_principal princ(int32_t type, const char *a,
                                       const char *b)
{
    struct gk5i_krb_principal p;

    memset(&p, 0, sizeof(p));
    p.name_type = type;
    p.comp[p.ncomp++] = sv(a);
    if (b != NULL) {
        p.comp[p.ncomp++] = sv(b);
    }
    return p;
}

/* RFC 3961 encryption under key; for an enctype gk5 will not encrypt
 * with (rc4, DES), bytes of about the right length that the acceptor must
 * refuse before decrypting them. */
static void seal(int32_t et, const uint8_t *key, size_t klen, uint32_t usage,
                 const uint8_t *in, size_t in_len, uint8_t **out,
                 size_t *out_len)
{
    const struct gk5_enctype *e = NULL;
    size_t n = 0;

    if (gk5i_enctype_usable(et, &e) != GK5_OK || klen != e->key_bytes) {
        n = in_len + 24;
        *out = malloc(n);
        assert_non_null(*out);
        assert_int_equal(RAND_bytes(*out, (int)n), 1);
        *out_len = n;
        return;
    }
    assert_int_equal(gk5_c_encrypt_length(et, in_len, &n), GK5_OK);
    *out = malloc(n);
    assert_non_null(*out);
    assert_int_equal(gk5_c_encrypt(et, key, klen, usage, in, in_len, *out, &n),
                     GK5_OK);
    *out_len = n;
}

static void md5(const void *p, size_t n, uint8_t out[16])
{
    unsigned int len = 0;

    assert_int_equal(EVP_Digest(p, n, out, &len, EVP_md5(), NULL), 1);
    assert_int_equal(len, 16);
}

static void cb_u32(uint8_t *buf, size_t *n, uint32_t v)
{
    store_le32(buf + *n, v);
    *n += 4;
}

static void cb_bytes(uint8_t *buf, size_t *n, const gk5_buffer *b)
{
    if (b->length != 0) {
        memcpy(buf + *n, b->value, b->length);
    }
    *n += b->length;
}

/* RFC 4121 4.1.1.2: the MD5 of the channel bindings, integers
 * little-endian, computed here independently of the acceptor. */
static void bindings_md5(const gk5_channel_bindings *cb, uint8_t out[16])
{
    uint8_t buf[1024];
    size_t n = 0;

    assert_true(cb->initiator_address.length + cb->acceptor_address.length +
                    cb->application_data.length + 20 <=
                sizeof(buf));
    cb_u32(buf, &n, cb->initiator_addrtype);
    cb_u32(buf, &n, (uint32_t)cb->initiator_address.length);
    cb_bytes(buf, &n, &cb->initiator_address);
    cb_u32(buf, &n, cb->acceptor_addrtype);
    cb_u32(buf, &n, (uint32_t)cb->acceptor_address.length);
    cb_bytes(buf, &n, &cb->acceptor_address);
    cb_u32(buf, &n, (uint32_t)cb->application_data.length);
    cb_bytes(buf, &n, &cb->application_data);
    md5(buf, n, out);
}

/* The checksum's bytes into ck (room 256); its type and length out. */
static void make_cksum(const struct forge *f, struct forged *o, uint8_t *ck,
                       int32_t *type, size_t *len)
{
    const struct gk5_enctype *e = NULL;
    uint32_t flags;
    size_t n = 0;

    switch (f->ck) {
    case CK_KEYED:
    case CK_KEYED_BAD:
        assert_int_equal(gk5i_enctype_usable(o->ses_et, &e), GK5_OK);
        *type = e->cksumtype;
        n = 256;
        assert_int_equal(gk5_c_checksum(o->ses_et, o->ses_key, o->ses_len,
                                        KU_AP_REQ_AUTH_CKSUM, "", 0, ck, &n),
                         GK5_OK);
        if (f->ck == CK_KEYED_BAD) {
            ck[n / 2] ^= 0x01;
        }
        *len = n;
        return;
    case CK_OTHER_KEYED:
        /* hmac-sha1-96-aes256 (16) with an aes128 session key */
        assert_int_equal(o->ses_et, ET_AES128);
        *type = 16;
        n = 256;
        assert_int_equal(gk5_c_checksum(o->ses_et, o->ses_key, o->ses_len,
                                        KU_AP_REQ_AUTH_CKSUM, "", 0, ck, &n),
                         GK5_OK);
        *len = n;
        return;
    case CK_UNKEYED:
        *type = 7; /* rsa-md5 */
        md5("", 0, ck);
        *len = 16;
        return;
    case CK_NONE:
        *len = 0;
        return;
    case CK_GSS:
        break;
    }
    *type = 0x8003;
    flags = f->flags_set
                ? f->gss_flags
                : DEFAULT_GSS_FLAGS | (o->mutual ? GK5_C_MUTUAL_FLAG : 0u);
    if (f->deleg) {
        flags |= GK5_C_DELEG_FLAG;
    }
    store_le32(ck, f->lgth != 0 ? f->lgth : 16);
    if (f->cb != NULL) {
        bindings_md5(f->cb, ck + 4);
    } else {
        memset(ck + 4, 0, 16);
    }
    store_le32(ck + 20, flags);
    n = 24;
    if (f->deleg) {
        /* DlgOpt, Dlgth, then a stand-in for the KRB-CRED (the acceptor
         * skips it) */
        static const uint8_t krb_cred[] = {0x76, 0x05, 0x30, 0x03,
                                           0xa0, 0x01, 0x05};

        store_le16(ck + n, f->dlgopt != 0 ? f->dlgopt : 1);
        store_le16(ck + n + 2,
                   (uint16_t)((int)sizeof(krb_cred) + f->dlgth_extra));
        memcpy(ck + n + 4, krb_cred, sizeof(krb_cred));
        n += 4 + sizeof(krb_cred);
    }
    if (f->ck_len != 0) {
        assert_true(f->ck_len <= 256);
        if (f->ck_len > n) {
            memset(ck + n, 0, f->ck_len - n);
        }
        n = f->ck_len;
    }
    *len = n;
}

static uint32_t g_seq_counter = 0x1000;

static void forge(const struct forge *f, int64_t now, struct forged *o)
{
    const char *svc = f->svc != NULL ? f->svc : "nfs";
    const char *key_svc = f->key_svc != NULL ? f->key_svc : svc;
    struct gk5i_krb_enc_tkt_part tp;
    struct gk5i_krb_authenticator au;
    struct gk5i_krb_ap_req req;
    uint8_t tkt_key[32], ck[256], etl_ad[128];
    uint8_t *tp_der = NULL, *tkt_enc = NULL, *au_der = NULL, *au_enc = NULL;
    uint8_t *req_der = NULL, *hit;
    size_t n, tkt_enc_len = 0, au_enc_len = 0, ck_len = 0;
    uint32_t kvno = f->kvno != 0 ? f->kvno : 2;
    int32_t ck_type = 0;

    memset(o, 0, sizeof(*o));
    o->svc = svc;
    o->srealm = f->srealm != NULL ? f->srealm : REALM;
    o->mutual = !f->no_mutual;
    o->tkt_et = f->tkt_et != 0 ? f->tkt_et : ET_AES256;
    o->ses_et = f->ses_et != 0 ? f->ses_et : o->tkt_et;
    o->ses_len = key_len(o->ses_et);
    assert_int_equal(RAND_bytes(o->ses_key, (int)o->ses_len), 1);

    /* EncTicketPart, under the service key (usage 2) */
    memset(&tp, 0, sizeof(tp));
    o->tkt_flags = DEFAULT_TKT_FLAGS | f->tkt_flags;
    o->authtime = now - 120;
    o->starttime = now + (f->start_off != 0 ? f->start_off : -60);
    o->endtime = now + (f->end_off != 0 ? f->end_off : 36000);
    o->renew_till = now + 86400;
    tp.flags = o->tkt_flags;
    tp.key.keytype = o->ses_et;
    tp.key.value.p = o->ses_key;
    tp.key.value.len = o->ses_len - (f->ses_short ? 1 : 0);
    tp.crealm = sv(REALM);
    tp.cname = princ(1, "alice", NULL);
    tp.transited_type = 1;
    if (f->transited != NULL) {
        tp.transited_contents = sv(f->transited);
    }
    tp.authtime = o->authtime;
    tp.has_starttime = true;
    tp.starttime = o->starttime;
    tp.endtime = o->endtime;
    tp.has_renew_till = true;
    tp.renew_till = o->renew_till;
    if (!f->no_authz) {
        tp.authorization_data.p = pac_ad;
        tp.authorization_data.len = sizeof(pac_ad);
    }
    assert_int_equal(gk5i_encode_enc_tkt_part(&tp, NULL, 0, &n), GK5_OK);
    tp_der = malloc(n + f->tkt_trailer);
    assert_non_null(tp_der);
    assert_int_equal(gk5i_encode_enc_tkt_part(&tp, tp_der, n, &n), GK5_OK);
    o->tkt_der_len = n;
    memset(tp_der + n, f->tkt_trailer_byte, f->tkt_trailer);
    n += f->tkt_trailer;
    kt_key(key_svc, o->tkt_et, kvno, tkt_key);
    seal(o->tkt_et, tkt_key, key_len(o->tkt_et), KU_TICKET, tp_der, n, &tkt_enc,
         &tkt_enc_len);

    /* Authenticator, under the session key (usage 11) */
    memset(&au, 0, sizeof(au));
    au.crealm = sv(REALM);
    au.cname = princ(1, f->auth_cname != NULL ? f->auth_cname : "alice", NULL);
    make_cksum(f, o, ck, &ck_type, &ck_len);
    if (f->ck != CK_NONE) {
        au.has_cksum = true;
        au.cksum.cksumtype = ck_type;
        au.cksum.value.p = ck;
        au.cksum.value.len = ck_len;
    }
    o->ctime = now + f->ctime_off;
    o->cusec = (uint32_t)(g_seq_counter * 7919u % 1000000u);
    au.ctime = o->ctime;
    au.cusec = o->cusec;
    if (!f->no_subkey) {
        o->has_sub = true;
        o->sub_et = f->subkey_et != 0 ? f->subkey_et : o->ses_et;
        o->sub_len = key_len(o->sub_et);
        assert_int_equal(RAND_bytes(o->sub_key, (int)o->sub_len), 1);
        au.has_subkey = true;
        au.subkey.keytype = o->sub_et;
        au.subkey.value.p = o->sub_key;
        au.subkey.value.len = o->sub_len - (f->subkey_short ? 1 : 0);
    }
    if (!f->no_seq) {
        o->has_seq = true;
        o->seq = g_seq_counter++;
        au.has_seq_number = true;
        au.seq_number = o->seq;
    }
    if (f->n_etl != 0) {
        assert_int_equal(gk5i_encode_etype_list_ad(f->etl, f->n_etl, etl_ad,
                                                   sizeof(etl_ad), &n),
                         GK5_OK);
        au.authorization_data.p = etl_ad;
        au.authorization_data.len = n;
    }
    assert_int_equal(gk5i_encode_authenticator(&au, NULL, 0, &n), GK5_OK);
    au_der = malloc(n);
    assert_non_null(au_der);
    assert_int_equal(gk5i_encode_authenticator(&au, au_der, n, &n), GK5_OK);
    seal(o->ses_et, o->ses_key, o->ses_len - (f->ses_short ? 1 : 0),
         KU_AP_REQ_AUTH, au_der, n, &au_enc, &au_enc_len);

    /* AP-REQ */
    memset(&req, 0, sizeof(req));
    req.ap_options = (o->mutual ? GK5I_AP_OPT_MUTUAL_REQUIRED : 0u) |
                     (f->use_session_key ? GK5I_AP_OPT_USE_SESSION_KEY : 0u) |
                     (f->n_etl != 0 ? GK5I_AP_OPT_ETYPE_NEGOTIATION : 0u);
    req.ticket.realm = sv(o->srealm);
    req.ticket.sname = princ(3, svc, HOST);
    req.ticket.enc_part.etype = o->tkt_et;
    req.ticket.enc_part.has_kvno = !f->no_kvno;
    req.ticket.enc_part.kvno = kvno;
    req.ticket.enc_part.cipher.p = tkt_enc;
    req.ticket.enc_part.cipher.len = tkt_enc_len;
    req.authenticator.etype = f->auth_et != 0 ? f->auth_et : o->ses_et;
    req.authenticator.cipher.p = au_enc;
    req.authenticator.cipher.len = au_enc_len;
    assert_int_equal(gk5i_encode_ap_req(&req, NULL, 0, &n), GK5_OK);
    req_der = malloc(n);
    assert_non_null(req_der);
    assert_int_equal(gk5i_encode_ap_req(&req, req_der, n, &n), GK5_OK);

    if (f->frame == FR_RAW) {
        o->tok = req_der;
        o->len = n;
        req_der = NULL;
    } else {
        size_t total = gk5i_frame_token_bytes(2 + n), off;

        o->tok = malloc(total);
        assert_non_null(o->tok);
        off = gk5i_frame_put_mech(o->tok, 2 + n,
                                  f->frame == FR_MS ? GK5I_MECH_MS_KRB5
                                                    : GK5I_MECH_KRB5);
        store_be16(o->tok + off, f->tok_id != 0 ? f->tok_id : 0x0100);
        memcpy(o->tok + off + 2, req_der, n);
        o->len = total;
    }
    hit = memmem(o->tok, o->len, tkt_enc, tkt_enc_len);
    assert_non_null(hit);
    o->tkt_off = (size_t)(hit - o->tok);
    o->tkt_len = tkt_enc_len;
    hit = memmem(o->tok, o->len, au_enc, au_enc_len);
    assert_non_null(hit);
    o->auth_off = (size_t)(hit - o->tok);
    o->auth_len = au_enc_len;

    OPENSSL_cleanse(tkt_key, sizeof(tkt_key));
    free(tp_der);
    free(tkt_enc);
    free(au_der);
    free(au_enc);
    free(req_der);
}

static void forged_free(struct forged *o)
{
    free(o->tok);
    memset(o, 0, sizeof(*o));
}

/* ---- accepting ---- */

struct acc {
    uint32_t major, minor;
    gk5_buffer out;
    gk5_ctx *ctx;
    gk5_accept_info info;
};

static void accept_bytes(gk5_acceptor_cred *cred, const uint8_t *tok,
                         size_t len, const gk5_channel_bindings *cb,
                         int64_t now, struct acc *a)
{
    gk5_buffer in = {len, (void *)(uintptr_t)tok};

    memset(a, 0, sizeof(*a));
    /* Outputs the acceptor must overwrite, failure or not. */
    a->ctx = (gk5_ctx *)(uintptr_t)a;
    a->info.gss_flags = 0xdeadbeefu;
    a->out.length = 7;
    a->out.value = NULL;
    a->major = gk5i_accept_at(&a->minor, cred, &in, cb, &a->out, &a->ctx,
                              &a->info, now, NOW_USEC);
}

static void accept_forged(gk5_acceptor_cred *cred, const struct forged *fg,
                          const gk5_channel_bindings *cb, struct acc *a)
{
    accept_bytes(cred, fg->tok, fg->len, cb, g_now, a);
}

static void acc_release(struct acc *a)
{
    gk5_buffer_release(&a->out);
    gk5_ctx_free(a->ctx);
    gk5_accept_info_release(&a->info);
    memset(a, 0, sizeof(*a));
}

static void check_words(uint32_t major, uint32_t minor)
{
    const char *w = gk5_display_status(major, minor);

    assert_non_null(w);
    assert_true(strlen(w) > 0);
    w = gk5_display_status(0, minor);
    assert_true(strlen(w) > 0);
    w = gk5_strerror(minor);
    assert_true(strlen(w) > 0);
}

/* The KRB-ERROR token in out (TOK_ID 03 00): its code, the server's time
 * and the service of fg's ticket. */
static void check_error_token(const gk5_buffer *out, const struct forged *fg,
                              int32_t code, int64_t now,
                              enum gk5i_frame_mech want_mech)
{
    struct gk5i_krb_error e;
    enum gk5i_frame_mech mech;
    const uint8_t *p = out->value;
    size_t inner = 0;

    assert_true(out->length > 0);
    assert_int_equal(
        gk5i_frame_parse_mech(p, out->length, out->length, &inner, &mech),
        GK5_OK);
    assert_int_equal(mech, want_mech);
    assert_true(out->length - inner >= 2);
    assert_int_equal(load_be16(p + inner), 0x0300);
    assert_int_equal(
        gk5i_decode_krb_error(p + inner + 2, out->length - inner - 2, &e),
        GK5_OK);
    assert_int_equal(e.error_code, code);
    assert_int_equal(e.stime, now);
    assert_int_equal(e.susec, NOW_USEC);
    assert_false(e.has_ctime);
    assert_false(e.has_cname);
    assert_int_equal(e.realm.len, strlen(fg->srealm));
    assert_memory_equal(e.realm.p, fg->srealm, strlen(fg->srealm));
    assert_int_equal(e.sname.ncomp, 2);
    assert_int_equal(e.sname.comp[0].len, strlen(fg->svc));
    assert_memory_equal(e.sname.comp[0].p, fg->svc, strlen(fg->svc));
    assert_int_equal(e.sname.comp[1].len, strlen(HOST));
    assert_memory_equal(e.sname.comp[1].p, HOST, strlen(HOST));
}

/* A refusal: exactly major and minor, no context, info zeroed, words for
 * both, and out the KRB-ERROR with code (or empty: NO_ERROR_TOKEN). */
static void expect_refused_at(struct acc *a, const struct forged *fg,
                              uint32_t major, uint32_t minor, int32_t code,
                              int64_t now)
{
    assert_int_equal(a->major, major);
    assert_int_equal(a->minor, minor);
    assert_null(a->ctx);
    assert_null(a->info.initiator);
    assert_null(a->info.acceptor);
    assert_int_equal(a->info.gss_flags, 0);
    assert_null(a->info.authorization_data.value);
    check_words(major, minor);
    if (code == NO_ERROR_TOKEN) {
        assert_int_equal(a->out.length, 0);
        assert_null(a->out.value);
    } else {
        check_error_token(&a->out, fg, code, now, GK5I_MECH_KRB5);
    }
    acc_release(a);
}

static void expect_refused(struct acc *a, const struct forged *fg,
                           uint32_t major, uint32_t minor, int32_t code)
{
    expect_refused_at(a, fg, major, minor, code, g_now);
}

/* Forge f, accept it on cred and expect the refusal. */
static void refuse(gk5_acceptor_cred *cred, const struct forge *f,
                   const gk5_channel_bindings *cb, uint32_t major,
                   uint32_t minor, int32_t code)
{
    struct forged fg;
    struct acc a;

    forge(f, g_now, &fg);
    accept_forged(cred, &fg, cb, &a);
    expect_refused(&a, &fg, major, minor, code);
    forged_free(&fg);
}

static void expect_ok(const struct acc *a)
{
    if (a->major != GK5_S_COMPLETE) {
        print_error("accept: %s\n", gk5_display_status(a->major, a->minor));
    }
    assert_int_equal(a->major, GK5_S_COMPLETE);
    assert_int_equal(a->minor, 0);
    assert_non_null(a->ctx);
    assert_non_null(a->info.initiator);
}

/* DES3 plaintext keeps the encryptor's zero padding (fewer than a
 * block): the DER value's own length says where it ends. */
static size_t der_unpad(const uint8_t *p, size_t len)
{
    size_t hdr = 2, n = 0;

    assert_true(len >= 2);
    if (p[1] < 0x80) {
        n = p[1];
    } else {
        hdr += p[1] & 0x7fu;
        assert_true(hdr <= len && hdr <= 6);
        for (size_t i = 2; i < hdr; i++) {
            n = n << 8 | p[i];
        }
    }
    assert_true(hdr + n <= len && len - (hdr + n) < 8);
    return hdr + n;
}

/* What the initiator learns from the AP-REP. */
struct rep {
    bool has_sub;
    int32_t sub_et;
    uint8_t sub_key[32];
    size_t sub_len;
    uint32_t seq;
};

/* RFC 4121 4.1, RFC 4120 5.5.2: open the AP-REP as the initiator does. */
static void read_ap_rep(const gk5_buffer *out, const struct forged *fg,
                        enum gk5i_frame_mech want_mech, struct rep *r)
{
    struct gk5i_krb_ap_rep rep;
    struct gk5i_krb_enc_ap_rep_part part;
    enum gk5i_frame_mech mech;
    const uint8_t *p = out->value;
    uint8_t *plain;
    size_t inner = 0, plen;

    memset(r, 0, sizeof(*r));
    assert_true(out->length > 0);
    assert_int_equal(
        gk5i_frame_parse_mech(p, out->length, out->length, &inner, &mech),
        GK5_OK);
    assert_int_equal(mech, want_mech);
    assert_memory_equal(p + inner - GK5I_FRAME_OID_BYTES,
                        want_mech == GK5I_MECH_MS_KRB5 ? ms_oid : krb5_oid,
                        GK5I_FRAME_OID_BYTES);
    assert_int_equal(load_be16(p + inner), 0x0200);
    assert_int_equal(
        gk5i_decode_ap_rep(p + inner + 2, out->length - inner - 2, &rep),
        GK5_OK);
    assert_int_equal(rep.enc_part.etype, fg->ses_et);
    assert_false(rep.enc_part.has_kvno);
    plen = rep.enc_part.cipher.len;
    plain = malloc(plen);
    assert_non_null(plain);
    assert_int_equal(gk5_c_decrypt(fg->ses_et, fg->ses_key, fg->ses_len,
                                   KU_AP_REP_ENCPART, rep.enc_part.cipher.p,
                                   rep.enc_part.cipher.len, plain, &plen),
                     GK5_OK);
    if (rfc1964(fg->ses_et)) {
        plen = der_unpad(plain, plen);
    }
    assert_int_equal(gk5i_decode_enc_ap_rep_part(plain, plen, &part), GK5_OK);
    assert_int_equal(part.ctime, fg->ctime);
    assert_int_equal(part.cusec, fg->cusec);
    assert_true(part.has_seq_number);
    r->seq = part.seq_number;
    r->has_sub = part.has_subkey;
    if (part.has_subkey) {
        r->sub_et = part.subkey.keytype;
        r->sub_len = part.subkey.value.len;
        assert_int_equal(r->sub_len, key_len(r->sub_et));
        memcpy(r->sub_key, part.subkey.value.p, r->sub_len);
    }
    OPENSSL_cleanse(plain, plen);
    free(plain);
}

static void wrap_to(gk5_ctx *from, gk5_ctx *to, int conf, const char *msg)
{
    gk5_buffer in = {strlen(msg), (void *)(uintptr_t)msg};
    gk5_buffer tok = {0, NULL}, back = {0, NULL};
    uint32_t minor = 0;
    int conf_state = -1;

    assert_int_equal(gk5_wrap(&minor, from, conf, 0, &in, NULL, &tok),
                     GK5_S_COMPLETE);
    assert_int_equal(gk5_unwrap(&minor, to, &tok, &back, &conf_state, NULL),
                     GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    assert_int_equal(conf_state, conf);
    assert_int_equal(back.length, in.length);
    assert_memory_equal(back.value, msg, in.length);
    gk5_buffer_release(&tok);
    gk5_buffer_release(&back);
}

static void mic_to(gk5_ctx *from, gk5_ctx *to, const char *msg)
{
    gk5_buffer in = {strlen(msg), (void *)(uintptr_t)msg};
    gk5_buffer tok = {0, NULL};
    uint32_t minor = 0;

    assert_int_equal(gk5_get_mic(&minor, from, 0, &in, &tok), GK5_S_COMPLETE);
    assert_int_equal(gk5_verify_mic(&minor, to, &in, &tok, NULL),
                     GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    gk5_buffer_release(&tok);
}

/* The initiator's side from a lucid context, as MIT would export it, and
 * tokens both ways: every one must come through with no supplementary
 * status, so keys, directions and both sequence numbers agree. */
static void exchange(gk5_ctx *acc, const struct forged *fg, const struct rep *r,
                     int32_t want_et, uint32_t gss_flags)
{
    gk5_buffer msg = {5, (void *)(uintptr_t) "again"};
    gk5_buffer tok = {0, NULL}, back = {0, NULL};
    gk5_lucid_ctx l;
    gk5_ctx_info ci;
    gk5_ctx *ini = NULL;
    uint32_t minor = 0;

    assert_int_equal(gk5_ctx_inquire(&minor, acc, &ci), GK5_S_COMPLETE);
    assert_int_equal(ci.enctype, want_et);
    assert_int_equal(ci.initiator, 0);
    assert_int_equal(ci.cfx, !rfc1964(want_et));
    assert_int_equal(ci.acceptor_subkey, r != NULL && r->has_sub);
    assert_int_equal(ci.endtime, (uint32_t)fg->endtime);
    assert_int_equal(ci.send_seq, r != NULL ? r->seq : fg->seq);
    /* replay and sequence detection as the initiator asked */
    assert_int_equal(ci.flags, gss_flags & (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE));

    memset(&l, 0, sizeof(l));
    l.version = 1;
    l.initiate = 1;
    l.send_seq = fg->has_seq ? fg->seq : 0;
    l.recv_seq = r != NULL ? r->seq : l.send_seq;
    l.protocol = rfc1964(want_et) ? 0 : 1;
    if (fg->has_sub) {
        l.cfx_kd.ctx_key.type = (uint32_t)fg->sub_et;
        l.cfx_kd.ctx_key.length = (uint32_t)fg->sub_len;
        l.cfx_kd.ctx_key.data = fg->sub_key;
    } else {
        l.cfx_kd.ctx_key.type = (uint32_t)fg->ses_et;
        l.cfx_kd.ctx_key.length = (uint32_t)fg->ses_len;
        l.cfx_kd.ctx_key.data = fg->ses_key;
    }
    if (l.protocol == 0) {
        l.rfc1964_kd.sign_alg = 4; /* HMAC SHA1 DES3-KD */
        l.rfc1964_kd.seal_alg = 2; /* DES3 */
        l.rfc1964_kd.ctx_key = l.cfx_kd.ctx_key;
        memset(&l.cfx_kd, 0, sizeof(l.cfx_kd));
    }
    if (r != NULL && r->has_sub) {
        l.cfx_kd.have_acceptor_subkey = 1;
        l.cfx_kd.acceptor_subkey.type = (uint32_t)r->sub_et;
        l.cfx_kd.acceptor_subkey.length = (uint32_t)r->sub_len;
        l.cfx_kd.acceptor_subkey.data = r->sub_key;
    }
    assert_int_equal(gk5_ctx_import_lucid(&minor, &l, &ini), GK5_S_COMPLETE);
    assert_int_equal(
        gk5_ctx_set_flags(&minor, ini, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE),
        GK5_S_COMPLETE);
    for (int i = 0; i < 2; i++) {
        wrap_to(ini, acc, 1, "from the initiator, sealed");
        wrap_to(acc, ini, 1, "from the acceptor, sealed");
        wrap_to(ini, acc, 0, "from the initiator, signed");
        wrap_to(acc, ini, 0, "from the acceptor, signed");
        mic_to(ini, acc, "a MIC from the initiator");
        mic_to(acc, ini, "a MIC from the acceptor");
    }
    /* the same token twice: a duplicate when the flags ask for it */
    assert_int_equal(gk5_wrap(&minor, ini, 1, 0, &msg, NULL, &tok),
                     GK5_S_COMPLETE);
    assert_int_equal(gk5_unwrap(&minor, acc, &tok, &back, NULL, NULL),
                     GK5_S_COMPLETE);
    gk5_buffer_release(&back);
    assert_int_equal(gk5_unwrap(&minor, acc, &tok, &back, NULL, NULL),
                     (gss_flags & GK5_C_REPLAY_FLAG) != 0
                         ? GK5_S_DUPLICATE_TOKEN
                         : GK5_S_COMPLETE);
    gk5_buffer_release(&back);
    gk5_buffer_release(&tok);
    gk5_ctx_free(ini);
}

static void check_info(const gk5_accept_info *i, const struct forged *fg,
                       int32_t ctx_et, uint32_t gss_flags)
{
    assert_string_equal(i->initiator, "alice@" REALM);
    assert_string_equal(i->acceptor, SERVICE);
    assert_int_equal(i->gss_flags, gss_flags);
    assert_int_equal(i->ticket_flags, fg->tkt_flags);
    assert_int_equal(i->ticket_enctype, fg->tkt_et);
    assert_int_equal(i->session_enctype, fg->ses_et);
    assert_int_equal(i->context_enctype, ctx_et);
    assert_int_equal(i->authtime, fg->authtime);
    assert_int_equal(i->starttime, fg->starttime);
    assert_int_equal(i->endtime, fg->endtime);
    assert_int_equal(i->renew_till, fg->renew_till);
    assert_int_equal(i->authorization_data.length, sizeof(pac_ad));
    assert_memory_equal(i->authorization_data.value, pac_ad, sizeof(pac_ad));
}

/* The AP-REPs' sequence numbers: 30 random bits each. */
static uint32_t g_rep_seq_or, g_rep_seq_and = 0xffffffffu;

#define FLAGS_MUTUAL (DEFAULT_GSS_FLAGS | GK5_C_MUTUAL_FLAG | GK5_C_TRANS_FLAG)
#define FLAGS_PLAIN (DEFAULT_GSS_FLAGS | GK5_C_TRANS_FLAG)

/* Accept f on cred (bindings cb), expect success, open the AP-REP when
 * mutual, check the context's enctype and info flags, use the context. */
static void accept_and_use(gk5_acceptor_cred *cred, const struct forge *f,
                           const gk5_channel_bindings *cb, int32_t ctx_et,
                           uint32_t gss_flags)
{
    struct forged fg;
    struct acc a;
    struct rep r;

    forge(f, g_now, &fg);
    accept_forged(cred, &fg, cb, &a);
    expect_ok(&a);
    if (ctx_et == 0) {
        ctx_et = fg.has_sub ? fg.sub_et : fg.ses_et;
    }
    check_info(&a.info, &fg, ctx_et, gss_flags);
    if (fg.mutual) {
        read_ap_rep(&a.out, &fg,
                    f->frame == FR_MS ? GK5I_MECH_MS_KRB5 : GK5I_MECH_KRB5, &r);
        assert_int_equal(r.has_sub, !rfc1964(ctx_et));
        if (r.has_sub) {
            assert_int_equal(r.sub_et, ctx_et);
        }
        exchange(a.ctx, &fg, &r, ctx_et, gss_flags);
        g_rep_seq_or |= r.seq;
        g_rep_seq_and &= r.seq;
    } else {
        assert_int_equal(a.out.length, 0);
        exchange(a.ctx, &fg, NULL, ctx_et, gss_flags);
    }
    acc_release(&a);
    forged_free(&fg);
}

/* ---- setup ---- */

static int group_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof(g_dir), "/tmp/gk5-acceptor-XXXXXX");
    if (mkdtemp(g_dir) == NULL) {
        return -1;
    }
    snprintf(g_keytab, sizeof(g_keytab), "%s/krb5.keytab", g_dir);
    g_now = (int64_t)time(NULL) + TIME_AHEAD;
    return 0;
}

static int group_teardown(void **state)
{
    char path[192];

    (void)state;
    gk5_acceptor_cred_free(g_cred);
    gk5_acceptor_cred_free(g_cred_norc);
    g_cred = g_cred_norc = NULL;
    unlink(g_keytab);
    snprintf(path, sizeof(path), "%s/rot.keytab", g_dir);
    unlink(path);
    rmdir(g_dir);
    return 0;
}

static void test_cred(void **state)
{
    gk5_acceptor_opts o;
    gk5_acceptor_cred *cred = (gk5_acceptor_cred *)(uintptr_t)&o;
    uint32_t minor = 0;
    char missing[192];

    (void)state;
    kt_write(g_keytab, main_keytab, GK5_ARRAY_SIZE(main_keytab),
             (time_t)(g_now - TIME_AHEAD - 100));
    g_cred = cred_new(g_keytab, NULL, 0, 0, 0);
    g_cred_norc = cred_new(g_keytab, NULL, 0, GK5_ACC_NO_RCACHE, 0);

    memset(&o, 0, sizeof(o));
    snprintf(missing, sizeof(missing), "%s/none.keytab", g_dir);
    o.keytab = missing;
    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_KEYTAB_READ);
    assert_null(cred);
    o.keytab = g_keytab;
    o.principal = "cifs@" HOST;
    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_KEYTAB_NO_KEYS);
    o.principal = NULL;
    o.keytab = "MEMORY:x";
    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_BAD_NAME);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_acceptor_cred_new(NULL, &o, &cred),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    gk5_acceptor_cred_free(NULL);
}

/* ---- success ---- */

static const int32_t all_ets[] = {ET_AES256, ET_AES128, ET_AES256_SHA2,
                                  ET_AES128_SHA2, ET_CAMELLIA256};

static void test_each_enctype(void **state)
{
    /* A session key of another enctype than the ticket's. */
    static const int32_t other[] = {ET_AES128_SHA2, ET_AES256_SHA2,
                                    ET_CAMELLIA256, ET_AES256, ET_AES128};

    (void)state;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        struct forge f;

        memset(&f, 0, sizeof(f));
        f.tkt_et = all_ets[i];
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
        f.no_mutual = true;
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_PLAIN);
        f.ses_et = other[i];
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_PLAIN);
        f.no_mutual = false;
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
        /* the old key, and no kvno at all (the newest key) */
        f.kvno = 1;
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
        f.kvno = 0;
        f.no_kvno = true;
        accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    }
    /* the acceptor's first numbers: 30 bits, not all the same */
    assert_int_equal(g_rep_seq_or & 0xc0000000u, 0);
    assert_int_not_equal(g_rep_seq_or, g_rep_seq_and);
}

/* MUTUAL in the 0x8003 flags but not in the ap-options: no AP-REP, and
 * info does not claim mutual authentication. */
static void test_mutual_flag_without_option(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.no_mutual = true;
    f.flags_set = true;
    f.gss_flags = DEFAULT_GSS_FLAGS | GK5_C_MUTUAL_FLAG;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_PLAIN);
    /* the ap-option without the flag: mutual all the same (RFC 4120) */
    f.no_mutual = false;
    f.gss_flags = DEFAULT_GSS_FLAGS;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
}

/* No initiator subkey, no sequence number: the session key keys the
 * context (without mutual) and the initiator's numbers start at 0. */
static void test_no_subkey_no_seq(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.no_subkey = true;
    f.no_seq = true;
    f.no_mutual = true;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_PLAIN);
    f.no_mutual = false;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.ses_et = ET_AES128_SHA2;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
}

static void test_no_authz(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.no_authz = true;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_ok(&a);
    assert_int_equal(a.info.authorization_data.length, 0);
    assert_null(a.info.authorization_data.value);
    acc_release(&a);
    forged_free(&fg);
}

/* ---- RFC 4537 ---- */

static void test_etype_negotiation(void **state)
{
    static const int32_t sha2_first[] = {ET_AES256_SHA2, ET_AES256};
    static const int32_t only_rc4[] = {ET_RC4};
    static const int32_t weak_then_des3[] = {ET_RC4, ET_DES3, ET_DES_CBC_MD5};
    static const int32_t unknown_then_aes[] = {9999, -135, ET_AES128_SHA2};
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.tkt_et = ET_AES256;
    f.ses_et = ET_AES128;
    f.etl = sha2_first;
    f.n_etl = GK5_ARRAY_SIZE(sha2_first);
    accept_and_use(g_cred, &f, NULL, ET_AES256_SHA2, FLAGS_MUTUAL);
    f.etl = unknown_then_aes;
    f.n_etl = GK5_ARRAY_SIZE(unknown_then_aes);
    accept_and_use(g_cred, &f, NULL, ET_AES128_SHA2, FLAGS_MUTUAL);

    /* nothing usable: refused (des3 makes RFC 1964 contexts: no subkey) */
    f.etl = only_rc4;
    f.n_etl = GK5_ARRAY_SIZE(only_rc4);
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_NO_ENCTYPE,
           KDC_ERR_ETYPE_NOSUPP);
    f.etl = weak_then_des3;
    f.n_etl = GK5_ARRAY_SIZE(weak_then_des3);
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_NO_ENCTYPE,
           KDC_ERR_ETYPE_NOSUPP);
    /* without mutual there is no acceptor subkey: the list is not used */
    f.no_mutual = true;
    accept_and_use(g_cred, &f, NULL, ET_AES128, FLAGS_PLAIN);

    /* no list: the initiator subkey's enctype */
    f.no_mutual = false;
    f.etl = NULL;
    f.n_etl = 0;
    f.subkey_et = ET_AES128_SHA2;
    accept_and_use(g_cred, &f, NULL, ET_AES128_SHA2, FLAGS_MUTUAL);
    f.subkey_et = ET_CAMELLIA128;
    accept_and_use(g_cred, &f, NULL, ET_CAMELLIA128, FLAGS_MUTUAL);
}

/* Bytes after the EncTicketPart inside the ciphertext: the CTS enctypes
 * have no padding, so any is refused; DES3 keeps its zero padding, so
 * fewer zeros than a block are taken and anything else refused. */
static void test_ticket_trailer(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.tkt_trailer = 1;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        f.tkt_et = all_ets[i];
        refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_DER,
               KRB_AP_ERR_BADVERSION);
    }
#ifdef GK5_WITH_DES3
    /* the encryptor pads to a block with zeros as well: taken while all
     * the zeros after the DER are fewer than a block */
    f.tkt_et = ET_DES3;
    f.ses_et = ET_AES256;
    for (size_t n = 1; n <= 16; n++) {
        struct forged fg;
        struct acc a;
        size_t zeros;

        f.tkt_trailer = n;
        forge(&f, g_now, &fg);
        zeros = (fg.tkt_der_len + n + 7) / 8 * 8 - fg.tkt_der_len;
        accept_forged(g_cred, &fg, NULL, &a);
        if (zeros < 8) {
            expect_ok(&a);
            acc_release(&a);
        } else {
            expect_refused(&a, &fg, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_DER,
                           KRB_AP_ERR_BADVERSION);
        }
        forged_free(&fg);
    }
    f.tkt_trailer = 1;
    f.tkt_trailer_byte = 0x01;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_DER,
           KRB_AP_ERR_BADVERSION);
#endif
}

#ifdef GK5_WITH_DES3
/* -Ddes3=true: DES3 tickets, session keys and subkeys make RFC 1964
 * contexts, never with an acceptor subkey; a DES3 entry of an RFC 4537
 * list is passed over (it makes no RFC 4121 context). */
static void test_des3(void **state)
{
    static const int32_t des3_first[] = {ET_DES3, ET_AES128_SHA2};
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.tkt_et = ET_DES3;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.no_mutual = true;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_PLAIN);
    f.no_mutual = false;
    f.no_subkey = true;
    f.no_seq = true;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    /* an aes ticket, a DES3 session key or subkey */
    memset(&f, 0, sizeof(f));
    f.ses_et = ET_DES3;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.ses_et = 0;
    f.subkey_et = ET_DES3;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.subkey_et = 0;
    f.etl = des3_first;
    f.n_etl = GK5_ARRAY_SIZE(des3_first);
    accept_and_use(g_cred, &f, NULL, ET_AES128_SHA2, FLAGS_MUTUAL);
    /* keyed non-0x8003 checksum with a DES3 session key */
    memset(&f, 0, sizeof(f));
    f.tkt_et = ET_DES3;
    f.ck = CK_KEYED;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
}
#endif

/* ---- the ticket: service, key, times ---- */

static void test_wrong_service(void **state)
{
    gk5_acceptor_cred *nfs_only, *nfs_krb5;
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.svc = "cifs";
    f.key_svc = "nfs";
    refuse(g_cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_WRONG_PRINC,
           KRB_AP_ERR_NOT_US);
    f.svc = NULL;
    f.srealm = "OTHER.TEST";
    refuse(g_cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_WRONG_PRINC,
           KRB_AP_ERR_NOT_US);

    /* host/server.test is in the keytab: any-principal credentials take
     * it, one restricted to nfs does not */
    memset(&f, 0, sizeof(f));
    f.svc = "host";
    f.kvno = 1;
    {
        struct forged fg;
        struct acc a;

        forge(&f, g_now, &fg);
        accept_forged(g_cred, &fg, NULL, &a);
        expect_ok(&a);
        assert_string_equal(a.info.acceptor, "host/" HOST "@" REALM);
        acc_release(&a);
        forged_free(&fg);
    }
    nfs_only = cred_new(g_keytab, "nfs@" HOST, 0, 0, 0);
    nfs_krb5 = cred_new(g_keytab, "nfs/" HOST "@" REALM, 0, 0, 0);
    refuse(nfs_only, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_WRONG_PRINC,
           KRB_AP_ERR_NOT_US);
    refuse(nfs_krb5, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_WRONG_PRINC,
           KRB_AP_ERR_NOT_US);
    memset(&f, 0, sizeof(f));
    accept_and_use(nfs_only, &f, NULL, 0, FLAGS_MUTUAL);
    accept_and_use(nfs_krb5, &f, NULL, 0, FLAGS_MUTUAL);
    gk5_acceptor_cred_free(nfs_only);
    gk5_acceptor_cred_free(nfs_krb5);
}

static void test_kvno_and_enctype(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.kvno = 7;
    refuse(g_cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_BADKEYVER,
           KRB_AP_ERR_BADKEYVER);
    f.kvno = 2 + 256; /* a 32-bit kvno is compared in 32 bits */
    refuse(g_cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_BADKEYVER,
           KRB_AP_ERR_BADKEYVER);
    f.kvno = 0;
    f.tkt_et = ET_CAMELLIA128; /* usable, but not in the keytab */
    refuse(g_cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_NOKEY, KRB_AP_ERR_NOKEY);
    /* the right kvno and enctype, but another service's key */
    memset(&f, 0, sizeof(f));
    f.key_svc = "host";
    refuse(g_cred, &f, NULL, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
           KRB_AP_ERR_MODIFIED);
    /* the authenticator labelled with another enctype than the session
     * key's */
    memset(&f, 0, sizeof(f));
    f.auth_et = ET_AES128;
    refuse(g_cred, &f, NULL, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
           KRB_AP_ERR_MODIFIED);
    /* keys not of their enctype's length: the session key inside the
     * ticket, the initiator's subkey */
    f.auth_et = 0;
    f.ses_short = true;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_DER,
           KRB_AP_ERR_BADVERSION);
    f.ses_short = false;
    f.subkey_short = true;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_DER,
           KRB_AP_ERR_BADVERSION);
}

static void test_ticket_times(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.end_off = -301;
    refuse(g_cred, &f, NULL, GK5_S_CREDENTIALS_EXPIRED, GK5_ERR_AP_TKT_EXPIRED,
           KRB_AP_ERR_TKT_EXPIRED);
    f.end_off = -4000;
    refuse(g_cred, &f, NULL, GK5_S_CREDENTIALS_EXPIRED, GK5_ERR_AP_TKT_EXPIRED,
           KRB_AP_ERR_TKT_EXPIRED);
    f.end_off = 0;
    f.start_off = 301;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_CREDENTIAL, GK5_ERR_AP_TKT_NYV,
           KRB_AP_ERR_TKT_NYV);
    f.start_off = 0;
    f.tkt_flags = GK5I_TKT_FLG_INVALID;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_CREDENTIAL, GK5_ERR_AP_TKT_NYV,
           KRB_AP_ERR_TKT_NYV);
    /* within the skew either way: accepted */
    f.tkt_flags = 0;
    f.end_off = -299;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.end_off = 0;
    f.start_off = 299;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.start_off = 0;
    f.tkt_flags = GK5I_TKT_FLG_POSTDATED | GK5I_TKT_FLG_OK_AS_DELEGATE;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
}

static void test_skew(void **state)
{
    gk5_acceptor_cred *wide;
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.ctime_off = -301;
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW);
    f.ctime_off = 301;
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW);
    f.ctime_off = -299;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.ctime_off = 299;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);

    /* opts.clockskew: 600 takes 301 off, 100 refuses 101 */
    wide = cred_new(g_keytab, NULL, 600, 0, 0);
    f.ctime_off = -301;
    accept_and_use(wide, &f, NULL, 0, FLAGS_MUTUAL);
    f.ctime_off = -599;
    accept_and_use(wide, &f, NULL, 0, FLAGS_MUTUAL);
    f.ctime_off = -601;
    refuse(wide, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW);
    f.ctime_off = 0;
    f.end_off = -500; /* expiry also within the wider skew */
    accept_and_use(wide, &f, NULL, 0, FLAGS_MUTUAL);
    gk5_acceptor_cred_free(wide);
    wide = cred_new(g_keytab, NULL, 100, 0, 0);
    f.end_off = 0;
    f.ctime_off = -101;
    refuse(wide, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW);
    f.ctime_off = -99;
    accept_and_use(wide, &f, NULL, 0, FLAGS_MUTUAL);
    gk5_acceptor_cred_free(wide);
}

/* ---- integrity ---- */

static void test_tampered(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &fg);
    fg.tok[fg.tkt_off + fg.tkt_len / 2] ^= 0x20;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
                   KRB_AP_ERR_MODIFIED);
    fg.tok[fg.tkt_off + fg.tkt_len / 2] ^= 0x20;
    fg.tok[fg.auth_off + fg.auth_len - 1] ^= 0x01;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
                   KRB_AP_ERR_MODIFIED);
    fg.tok[fg.auth_off + fg.auth_len - 1] ^= 0x01;
    fg.tok[fg.auth_off] ^= 0x80;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
                   KRB_AP_ERR_MODIFIED);
    /* restored: the failures above stored nothing in the replay cache */
    fg.tok[fg.auth_off] ^= 0x80;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
}

/* ---- the authenticator checksum ---- */

static void test_checksum(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.lgth = 15;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.lgth = 0;
    f.ck_len = 23;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.ck_len = 0;
    /* the DCE style flag */
    f.flags_set = true;
    f.gss_flags = FLAGS_MUTUAL | GK5_C_DCE_STYLE;
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_DCE_STYLE,
           KRB_ERR_GENERIC);
    /* extra bytes after the flags without delegation: taken */
    f.flags_set = false;
    f.ck_len = 40;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.ck_len = 0;

    /* another checksum type: the session key's keyed one over nothing */
    f.ck = CK_KEYED;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        f.tkt_et = all_ets[i];
        accept_and_use(g_cred, &f, NULL, 0,
                       DEFAULT_GSS_FLAGS | GK5_C_MUTUAL_FLAG |
                           GK5_C_TRANS_FLAG);
    }
    f.tkt_et = 0;
    f.ck = CK_KEYED_BAD;
    refuse(g_cred, &f, NULL, GK5_S_BAD_SIG, GK5_ERR_AP_MODIFIED,
           KRB_AP_ERR_MODIFIED);
    f.ck = CK_UNKEYED;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.ck = CK_OTHER_KEYED;
    f.tkt_et = ET_AES128;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.tkt_et = 0;

    /* no checksum (MS-KILE): no flags asked for */
    f.ck = CK_NONE;
    accept_and_use(g_cred, &f, NULL, 0, GK5_C_MUTUAL_FLAG | GK5_C_TRANS_FLAG);
    f.no_mutual = true;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_ok(&a);
    assert_int_equal(a.info.gss_flags, GK5_C_TRANS_FLAG);
    acc_release(&a);
    forged_free(&fg);
}

static void test_delegation(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.deleg = true;
    /* taken, the flag cleared: gk5 keeps no delegated credential */
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.dlgopt = 2;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.dlgopt = 0;
    f.dlgth_extra = 1;
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
    f.dlgth_extra = 0;
    f.ck_len = 26; /* DlgOpt but no Dlgth */
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_AP_CHECKSUM,
           KRB_AP_ERR_INAPP_CKSUM);
}

static void test_badmatch(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.auth_cname = "mallory";
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_CREDENTIAL, GK5_ERR_AP_BADMATCH,
           KRB_AP_ERR_BADMATCH);
}

static void test_bindings(void **state)
{
    static const uint8_t ia[] = {192, 0, 2, 1}, aa[] = {192, 0, 2, 2};
    static const char app[] = "tls-server-end-point:0123456789abcdef";
    gk5_channel_bindings cb1, cb2;
    struct forge f;

    (void)state;
    memset(&cb1, 0, sizeof(cb1));
    cb1.initiator_addrtype = 2;
    cb1.initiator_address.value = (void *)(uintptr_t)ia;
    cb1.initiator_address.length = sizeof(ia);
    cb1.acceptor_addrtype = 2;
    cb1.acceptor_address.value = (void *)(uintptr_t)aa;
    cb1.acceptor_address.length = sizeof(aa);
    cb1.application_data.value = (void *)(uintptr_t)app;
    cb1.application_data.length = strlen(app);
    cb2 = cb1;
    cb2.application_data.length--;

    memset(&f, 0, sizeof(f));
    f.cb = &cb1;
    accept_and_use(g_cred, &f, &cb1, 0, FLAGS_MUTUAL);
    refuse(g_cred, &f, &cb2, GK5_S_BAD_BINDINGS, GK5_ERR_AP_BINDINGS,
           KRB_AP_ERR_BAD_INTEGRITY);
    /* the acceptor gave none: not compared */
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    /* the initiator sent none (zeros): accepted */
    f.cb = NULL;
    accept_and_use(g_cred, &f, &cb1, 0, FLAGS_MUTUAL);
    /* application data only (RFC 5929 style) */
    memset(&cb2, 0, sizeof(cb2));
    cb2.application_data = cb1.application_data;
    f.cb = &cb2;
    accept_and_use(g_cred, &f, &cb2, 0, FLAGS_MUTUAL);
    refuse(g_cred, &f, &cb1, GK5_S_BAD_BINDINGS, GK5_ERR_AP_BINDINGS,
           KRB_AP_ERR_BAD_INTEGRITY);
}

/* ---- what is refused by design ---- */

static void test_refused_modes(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.use_session_key = true;
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_USER_TO_USER,
           KRB_AP_ERR_METHOD);
    f.use_session_key = false;

    /* a raw AP-REQ, without the framing: DCE style */
    f.frame = FR_RAW;
    forge(&f, g_now, &fg);
    assert_int_equal(fg.tok[0], 0x6e);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_DCE_STYLE,
                   NO_ERROR_TOKEN);
    forged_free(&fg);
    f.frame = FR_KRB5;

    /* a cross-realm path the KDC did not check */
    f.transited = "OTHER.TEST,";
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_TRANSITED,
           KDC_ERR_POLICY);
    f.tkt_flags = GK5I_TKT_FLG_TRANSIT_POLICY_CHECKED;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
}

/* rc4 (RFC 8429) and single DES (RFC 6649): refused by name, the RFC in
 * the words. */
static void expect_enctype_refused(gk5_acceptor_cred *cred,
                                   const struct forge *f, int32_t et)
{
    const char *rfc = et == ET_RC4 ? "RFC 8429" : "RFC 6649";
    struct forged fg;
    struct acc a;
    const char *w;

    forge(f, g_now, &fg);
    accept_forged(cred, &fg, NULL, &a);
    assert_int_equal(a.major, GK5_S_UNAVAILABLE);
    assert_int_equal(GK5_ERR_CODE(a.minor), GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(GK5_ERR_ENCTYPE(a.minor), et);
    w = gk5_display_status(a.major, a.minor);
    if (strstr(w, rfc) == NULL) {
        print_error("words: %s\n", w);
    }
    assert_non_null(strstr(w, rfc));
    expect_refused(&a, &fg, GK5_S_UNAVAILABLE,
                   GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, et),
                   f->no_mutual ? NO_ERROR_TOKEN : KDC_ERR_ETYPE_NOSUPP);
    forged_free(&fg);
}

static void test_weak_enctypes(void **state)
{
    struct forge f;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.tkt_et = ET_RC4;
    expect_enctype_refused(g_cred, &f, ET_RC4);
    f.tkt_et = ET_DES_CBC_MD5;
    expect_enctype_refused(g_cred, &f, ET_DES_CBC_MD5);
    f.no_mutual = true;
    expect_enctype_refused(g_cred, &f, ET_DES_CBC_MD5);
    /* a good ticket carrying a weak session key */
    f.no_mutual = false;
    f.tkt_et = ET_AES256;
    f.ses_et = ET_RC4;
    f.no_subkey = true;
    expect_enctype_refused(g_cred, &f, ET_RC4);
    f.ses_et = ET_DES_CBC_MD5;
    expect_enctype_refused(g_cred, &f, ET_DES_CBC_MD5);
    /* ... or a weak initiator subkey */
    f.ses_et = 0;
    f.no_subkey = false;
    f.subkey_et = ET_RC4;
    expect_enctype_refused(g_cred, &f, ET_RC4);
}

/* ---- framing ---- */

static void test_framing(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;
    uint8_t *pvno, *oid;
    static const uint8_t pvno5[] = {0xa0, 0x03, 0x02, 0x01, 0x05};

    (void)state;
    memset(&f, 0, sizeof(f));
    f.tok_id = 0x0200;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_TOKEN_ID,
                   NO_ERROR_TOKEN);
    forged_free(&fg);
    f.tok_id = 0x0101;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_TOKEN_ID,
                   NO_ERROR_TOKEN);
    forged_free(&fg);
    f.tok_id = 0;

    /* Microsoft's OID: accepted, answered with the same OID */
    f.frame = FR_MS;
    accept_and_use(g_cred, &f, NULL, 0, FLAGS_MUTUAL);
    f.frame = FR_KRB5;

    /* pvno 4: the first [0] INTEGER 5 after the TOK_ID */
    forge(&f, g_now, &fg);
    oid = memmem(fg.tok, fg.len, krb5_oid, sizeof(krb5_oid));
    assert_non_null(oid);
    pvno = memmem(oid + sizeof(krb5_oid),
                  fg.len - (size_t)(oid - fg.tok) - sizeof(krb5_oid), pvno5,
                  sizeof(pvno5));
    assert_non_null(pvno);
    assert_true(pvno - oid < 24);
    pvno[4] = 4;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_KRB_MSG_TYPE,
                   NO_ERROR_TOKEN);
    /* the same with pvno 5 again but the mech OID changed */
    pvno[4] = 5;
    oid[GK5I_FRAME_OID_BYTES - 1] = 0x03;
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_DEFECTIVE_TOKEN, GK5_ERR_TOKEN_FRAMING,
                   NO_ERROR_TOKEN);
    forged_free(&fg);
}

/* ---- KRB-ERROR answers ---- */

static void test_krb_error(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.ctime_off = -1000;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    assert_int_equal(a.major, GK5_S_FAILURE);
    check_error_token(&a.out, &fg, KRB_AP_ERR_SKEW, g_now, GK5I_MECH_KRB5);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW);
    /* stime is the acceptor's clock */
    accept_bytes(g_cred, fg.tok, fg.len, NULL, g_now + 17, &a);
    expect_refused_at(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_SKEW, KRB_AP_ERR_SKEW,
                      g_now + 17);
    forged_free(&fg);

    /* framed with Microsoft's OID when the AP-REQ was */
    f.frame = FR_MS;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    assert_int_equal(a.minor, GK5_ERR_AP_SKEW);
    check_error_token(&a.out, &fg, KRB_AP_ERR_SKEW, g_now, GK5I_MECH_MS_KRB5);
    assert_null(a.ctx);
    acc_release(&a);
    forged_free(&fg);

    /* no mutual authentication asked for: no answer */
    f.frame = FR_KRB5;
    f.no_mutual = true;
    refuse(g_cred, &f, NULL, GK5_S_FAILURE, GK5_ERR_AP_SKEW, NO_ERROR_TOKEN);
    f.ctime_off = 0;
    f.auth_cname = "mallory";
    refuse(g_cred, &f, NULL, GK5_S_DEFECTIVE_CREDENTIAL, GK5_ERR_AP_BADMATCH,
           NO_ERROR_TOKEN);
}

/* ---- the replay cache ---- */

static void test_replay(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_REPEAT,
                   KRB_AP_ERR_REPEAT);
    /* a second later, still a repeat */
    accept_bytes(g_cred, fg.tok, fg.len, NULL, g_now + 1, &a);
    expect_refused_at(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_REPEAT,
                      KRB_AP_ERR_REPEAT, g_now + 1);
    /* without a replay cache: taken every time */
    for (int i = 0; i < 3; i++) {
        accept_forged(g_cred_norc, &fg, NULL, &a);
        expect_ok(&a);
        acc_release(&a);
    }
    forged_free(&fg);

    /* the ticket may be used again with a new authenticator */
    f.no_mutual = true;
    forge(&f, g_now, &fg);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    accept_forged(g_cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_REPEAT, NO_ERROR_TOKEN);
    forged_free(&fg);
}

/* A memory-only cache just made cannot know what an earlier process
 * accepted: authenticators from before it began are refused for one skew
 * (their own minor code), later ones taken. */
static void test_rcache_restart_guard(void **state)
{
    gk5_acceptor_cred *fresh = cred_new(g_keytab, NULL, 0, 0, 0);
    int64_t born = (int64_t)time(NULL);
    struct forge f;
    struct forged fg;
    struct acc a;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.ctime_off = -5;
    forge(&f, born + 2, &fg);
    accept_bytes(fresh, fg.tok, fg.len, NULL, born + 2, &a);
    expect_refused_at(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_BEFORE_START,
                      KRB_AP_ERR_REPEAT, born + 2);
    forged_free(&fg);
    /* made after the cache began: taken (two seconds of slack for a
     * clock tick between making the credential and reading it here) */
    f.ctime_off = 0;
    forge(&f, born + 2, &fg);
    accept_bytes(fresh, fg.tok, fg.len, NULL, born + 2, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    /* a skew after it began, an old authenticator is only old */
    f.ctime_off = -250;
    forge(&f, born + 400, &fg);
    accept_bytes(fresh, fg.tok, fg.len, NULL, born + 400, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    /* no replay cache, no guard */
    f.ctime_off = -5;
    forge(&f, born + 2, &fg);
    accept_bytes(g_cred_norc, fg.tok, fg.len, NULL, born + 2, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    gk5_acceptor_cred_free(fresh);
}

#define RC_MAX 64
#define RC_TRIES 2000

static void test_rcache_full(void **state)
{
    gk5_acceptor_cred *small = cred_new(g_keytab, NULL, 0, 0, RC_MAX);
    struct forged first, fg;
    struct forge f;
    struct acc a;
    size_t ok = 0;
    bool full = false;

    (void)state;
    memset(&f, 0, sizeof(f));
    f.no_mutual = true;
    forge(&f, g_now, &first);
    accept_forged(small, &first, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    ok++;
    for (int i = 0; i < RC_TRIES && !full; i++) {
        forge(&f, g_now, &fg);
        accept_forged(small, &fg, NULL, &a);
        if (a.major == GK5_S_COMPLETE) {
            ok++;
            acc_release(&a);
        } else {
            /* never a false repeat: every AP-REQ here is new */
            expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_RCACHE_FULL,
                           NO_ERROR_TOKEN);
            full = true;
        }
        forged_free(&fg);
    }
    assert_true(full);
    assert_true(ok <= RC_MAX);
    /* a live entry is never forgotten to make room */
    accept_forged(small, &first, NULL, &a);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_REPEAT, NO_ERROR_TOKEN);
    /* mutual: the KRB-ERROR says REPEAT (RFC 4120 has no "full") */
    f.no_mutual = false;
    full = false;
    for (int i = 0; i < RC_TRIES; i++) {
        forge(&f, g_now, &fg);
        accept_forged(small, &fg, NULL, &a);
        if (a.major != GK5_S_COMPLETE) {
            expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_RCACHE_FULL,
                           KRB_AP_ERR_REPEAT);
            full = true;
        }
        acc_release(&a);
        forged_free(&fg);
        if (full) {
            break;
        }
    }
    assert_true(full);
    /* once the entries outlive the skew, room again */
    f.no_mutual = true;
    forge(&f, g_now + 700, &fg);
    accept_bytes(small, fg.tok, fg.len, NULL, g_now + 700, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    forged_free(&first);
    gk5_acceptor_cred_free(small);
}

/* ---- every truncation, a bit flip at every byte ---- */

static void test_truncate_and_flip(void **state)
{
    struct forge f;
    struct forged fg;
    struct acc a;
    uint8_t *tok;
    size_t successes = 0;

    (void)state;
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &fg);
    tok = malloc(fg.len + 1);
    assert_non_null(tok);
    for (size_t n = 0; n < fg.len; n++) {
        memcpy(tok, fg.tok, n);
        accept_bytes(g_cred_norc, tok, n, NULL, g_now, &a);
        assert_int_not_equal(a.major, GK5_S_COMPLETE);
        assert_int_not_equal(a.minor, 0);
        assert_null(a.ctx);
        assert_null(a.info.initiator);
        acc_release(&a);
    }
    /* a byte appended */
    memcpy(tok, fg.tok, fg.len);
    tok[fg.len] = 0;
    accept_bytes(g_cred_norc, tok, fg.len + 1, NULL, g_now, &a);
    assert_int_not_equal(a.major, GK5_S_COMPLETE);
    assert_null(a.ctx);
    acc_release(&a);

    for (size_t i = 0; i < fg.len; i++) {
        bool in_cipher = (i >= fg.tkt_off && i < fg.tkt_off + fg.tkt_len) ||
                         (i >= fg.auth_off && i < fg.auth_off + fg.auth_len);

        memcpy(tok, fg.tok, fg.len);
        tok[i] ^= (uint8_t)(1u << (i % 8));
        accept_bytes(g_cred_norc, tok, fg.len, NULL, g_now, &a);
        if (a.major == GK5_S_COMPLETE) {
            /* an unprotected field (ap-options, kvno ...) */
            assert_false(in_cipher);
            assert_non_null(a.ctx);
            successes++;
        } else {
            assert_int_not_equal(a.minor, 0);
            assert_null(a.ctx);
            assert_null(a.info.initiator);
            if (in_cipher) {
                assert_int_equal(a.major, GK5_S_BAD_SIG);
                assert_int_equal(a.minor, GK5_ERR_AP_MODIFIED);
            }
        }
        acc_release(&a);
    }
    /* most flips are refused */
    assert_true(successes < 16);
    free(tok);
    /* unchanged, it is still good */
    accept_forged(g_cred_norc, &fg, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
}

/* ---- threads ---- */

#define NTHREADS 8
#define PER_THREAD 16

struct thr {
    gk5_acceptor_cred *cred;
    pthread_barrier_t *barrier;
    const struct forged *fg; /* PER_THREAD of them, or one shared */
    size_t n;
    uint32_t major[PER_THREAD], minor[PER_THREAD];
    bool ctx[PER_THREAD];
};

static void *accept_thread(void *arg)
{
    struct thr *t = arg;

    pthread_barrier_wait(t->barrier);
    for (size_t i = 0; i < t->n; i++) {
        gk5_buffer in = {t->fg[i].len, t->fg[i].tok};
        gk5_buffer out = {0, NULL};
        gk5_accept_info info;
        gk5_ctx *ctx = NULL;

        t->major[i] = gk5i_accept_at(&t->minor[i], t->cred, &in, NULL, &out,
                                     &ctx, &info, g_now, NOW_USEC);
        t->ctx[i] = ctx != NULL;
        if (t->major[i] == GK5_S_COMPLETE) {
            gk5_accept_info_release(&info);
        }
        gk5_ctx_free(ctx);
        gk5_buffer_release(&out);
    }
    return NULL;
}

static void run_threads(struct thr *t)
{
    pthread_t th[NTHREADS];
    pthread_barrier_t barrier;

    assert_int_equal(pthread_barrier_init(&barrier, NULL, NTHREADS), 0);
    for (int i = 0; i < NTHREADS; i++) {
        t[i].barrier = &barrier;
        assert_int_equal(pthread_create(&th[i], NULL, accept_thread, &t[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
    }
    pthread_barrier_destroy(&barrier);
}

static void test_threads(void **state)
{
    static struct forged fg[NTHREADS][PER_THREAD];
    static struct thr t[NTHREADS];
    struct forge f;
    struct forged same;
    size_t wins = 0;

    (void)state;
    memset(&f, 0, sizeof(f));
    memset(t, 0, sizeof(t));
    for (int i = 0; i < NTHREADS; i++) {
        for (int j = 0; j < PER_THREAD; j++) {
            f.no_mutual = (j % 2) != 0;
            f.tkt_et = all_ets[(i + j) % GK5_ARRAY_SIZE(all_ets)];
            forge(&f, g_now, &fg[i][j]);
        }
        t[i].cred = g_cred;
        t[i].fg = fg[i];
        t[i].n = PER_THREAD;
    }
    run_threads(t);
    for (int i = 0; i < NTHREADS; i++) {
        for (int j = 0; j < PER_THREAD; j++) {
            assert_int_equal(t[i].major[j], GK5_S_COMPLETE);
            assert_true(t[i].ctx[j]);
            forged_free(&fg[i][j]);
        }
    }

    /* one AP-REQ, eight threads at once: exactly one wins */
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &same);
    memset(t, 0, sizeof(t));
    for (int i = 0; i < NTHREADS; i++) {
        t[i].cred = g_cred;
        t[i].fg = &same;
        t[i].n = 1;
    }
    run_threads(t);
    for (int i = 0; i < NTHREADS; i++) {
        if (t[i].major[0] == GK5_S_COMPLETE) {
            wins++;
            assert_true(t[i].ctx[0]);
        } else {
            assert_int_equal(t[i].major[0], GK5_S_FAILURE);
            assert_int_equal(t[i].minor[0], GK5_ERR_AP_REPEAT);
            assert_false(t[i].ctx[0]);
        }
    }
    assert_int_equal(wins, 1);
    forged_free(&same);
}

/* ---- keytab rotation ---- */

static void test_keytab_rotation(void **state)
{
    static const struct kt_ent before[] = {{"nfs", ET_AES256, 2}};
    static const struct kt_ent after[] = {{"nfs", ET_AES256, 2},
                                          {"nfs", ET_AES256, 3}};
    gk5_acceptor_cred *cred;
    char path[192];
    struct forge f;
    struct forged fg;
    struct acc a;
    time_t base = (time_t)(g_now - TIME_AHEAD - 100);

    (void)state;
    snprintf(path, sizeof(path), "%s/rot.keytab", g_dir);
    kt_write(path, before, GK5_ARRAY_SIZE(before), base);
    cred = cred_new(path, NULL, 0, 0, 0);
    memset(&f, 0, sizeof(f));
    f.kvno = 3;
    refuse(cred, &f, NULL, GK5_S_NO_CRED, GK5_ERR_AP_BADKEYVER,
           KRB_AP_ERR_BADKEYVER);
    f.kvno = 2;
    accept_and_use(cred, &f, NULL, 0, FLAGS_MUTUAL);

    /* kvno 3 appears: the credential reads the file again when a ticket
     * asks for a key it lacks (at most once a second) */
    kt_write(path, after, GK5_ARRAY_SIZE(after), base + 50);
    f.kvno = 3;
    forge(&f, g_now + 1, &fg);
    accept_bytes(cred, fg.tok, fg.len, NULL, g_now + 1, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    f.kvno = 2;
    forge(&f, g_now + 1, &fg);
    accept_bytes(cred, fg.tok, fg.len, NULL, g_now + 1, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);

    /* a keytab rewritten to garbage leaves the keys as they were */
    {
        FILE *fp = fopen(path, "wb");
        struct timespec ts[2] = {{base + 60, 0}, {base + 60, 0}};

        assert_non_null(fp);
        assert_int_equal(fputs("not a keytab", fp) >= 0, 1);
        assert_int_equal(fclose(fp), 0);
        assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    }
    f.kvno = 3;
    forge(&f, g_now + 20, &fg);
    accept_bytes(cred, fg.tok, fg.len, NULL, g_now + 20, &a);
    expect_ok(&a);
    acc_release(&a);
    forged_free(&fg);
    gk5_acceptor_cred_free(cred);
}

/* ---- tracing ---- */

static void test_trace(void **state)
{
    char path[] = "/tmp/gk5-acceptor-trace-XXXXXX";
    char text[8192], want[256];
    gk5_acceptor_cred *cred;
    struct forge f;
    struct forged fg;
    struct acc a;
    ssize_t got;
    int fd;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(setenv("GK5_TRACE", path, 1), 0);
    gk5i_trace_reset();
    cred = cred_new(g_keytab, "nfs@" HOST, 0, 0, 0);
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &fg);
    accept_forged(cred, &fg, NULL, &a);
    expect_ok(&a);
    acc_release(&a);
    accept_forged(cred, &fg, NULL, &a);
    expect_refused(&a, &fg, GK5_S_FAILURE, GK5_ERR_AP_REPEAT,
                   KRB_AP_ERR_REPEAT);
    snprintf(want, sizeof(want),
             "accept: AP-REQ (%zu bytes) for " SERVICE
             ", ticket enctype 18 kvno 2: refused: ",
             fg.len);
    accept_bytes(cred, fg.tok, 3, NULL, g_now, &a);
    assert_int_not_equal(a.major, GK5_S_COMPLETE);
    acc_release(&a);
    forged_free(&fg);
    gk5_acceptor_cred_free(cred);
    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();

    got = read(fd, text, sizeof(text) - 1);
    assert_true(got > 0);
    text[got] = '\0';
    assert_non_null(strstr(text, "acceptor: credential from keytab "));
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "accept: token (3 bytes) refused: "));
    close(fd);
    unlink(path);
}

/* ---- arguments ---- */

static void test_arguments(void **state)
{
    struct forge f;
    struct forged fg;
    gk5_buffer in, out = {0, NULL}, nullin = {5, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;

    (void)state;
    memset(&f, 0, sizeof(f));
    forge(&f, g_now, &fg);
    in.value = fg.tok;
    in.length = fg.len;
    assert_int_equal(gk5_accept(NULL, g_cred, &in, NULL, &out, &ctx, NULL),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_accept(&minor, NULL, &in, NULL, &out, &ctx, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_accept(&minor, g_cred, NULL, NULL, &out, &ctx, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(gk5_accept(&minor, g_cred, &in, NULL, NULL, &ctx, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(gk5_accept(&minor, g_cred, &in, NULL, &out, NULL, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(
        gk5_accept(&minor, g_cred, &nullin, NULL, &out, &ctx, NULL),
        GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    nullin.length = 0;
    assert_int_equal(
        gk5_accept(&minor, g_cred, &nullin, NULL, &out, &ctx, NULL),
        GK5_S_DEFECTIVE_TOKEN);
    assert_int_equal(minor, GK5_ERR_TOKEN_TRUNCATED);
    assert_null(ctx);
    assert_int_equal(out.length, 0);
    forged_free(&fg);

    /* the real clock: gk5_accept() itself, info NULL */
    forge(&f, (int64_t)time(NULL), &fg);
    in.value = fg.tok;
    in.length = fg.len;
    assert_int_equal(
        gk5_accept(&minor, g_cred_norc, &in, NULL, &out, &ctx, NULL),
        GK5_S_COMPLETE);
    assert_non_null(ctx);
    assert_true(out.length > 0);
    gk5_ctx_free(ctx);
    gk5_buffer_release(&out);
    forged_free(&fg);
    gk5_accept_info_release(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cred),
        cmocka_unit_test(test_each_enctype),
        cmocka_unit_test(test_mutual_flag_without_option),
        cmocka_unit_test(test_no_subkey_no_seq),
        cmocka_unit_test(test_no_authz),
        cmocka_unit_test(test_etype_negotiation),
        cmocka_unit_test(test_ticket_trailer),
#ifdef GK5_WITH_DES3
        cmocka_unit_test(test_des3),
#endif
        cmocka_unit_test(test_wrong_service),
        cmocka_unit_test(test_kvno_and_enctype),
        cmocka_unit_test(test_ticket_times),
        cmocka_unit_test(test_skew),
        cmocka_unit_test(test_tampered),
        cmocka_unit_test(test_checksum),
        cmocka_unit_test(test_delegation),
        cmocka_unit_test(test_badmatch),
        cmocka_unit_test(test_bindings),
        cmocka_unit_test(test_refused_modes),
        cmocka_unit_test(test_weak_enctypes),
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_krb_error),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_rcache_restart_guard),
        cmocka_unit_test(test_rcache_full),
        cmocka_unit_test(test_truncate_and_flip),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_keytab_rotation),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_arguments),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
