/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's initiator (src/krb5/initiator*.c) against gk5's acceptor, with no
 * KDC: the test is the KDC.  It writes an MIT keytab (0x502) with known
 * keys for nfs/server.test@GK5.TEST, makes service tickets with the
 * RFC 4120 encoders and the public crypto calls (EncTicketPart under the
 * service key, usage 2), and hands them to the initiator through its seam
 * (gk5i_initiator_from_cred), as the credential cache would.
 *
 * For every enctype gk5 supports, with and without mutual authentication:
 * the AP-REQ as RFC 4121 4.1 and 4.1.1 describe it (opened here with the
 * session key), gk5_accept() taking it, the AP-REP finishing the
 * initiator, and Wrap and MIC tokens both ways on the two contexts.  Then
 * RFC 4537 negotiation (the acceptor subkey of the enctype we offered),
 * channel bindings that match and that do not, and the answers an
 * initiator must refuse: an AP-REP with another ctime or under another
 * key, a KRB-ERROR (a clock skew, with its words), every truncation of an
 * AP-REP, a wrong TOK_ID; each leaves the initiator as it was.  Refused
 * credentials (rc4, DES, a ticket gk5 will not use), and the calls out of
 * order.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"
#include "mech/mech_int.h"

#define REALM "GK5.TEST"
#define HOST "server.test"

#define ET_DES_CBC_MD5 3
#define ET_DES3 16
#define ET_AES128 17
#define ET_AES256 18
#define ET_AES128_SHA2 19
#define ET_AES256_SHA2 20
#define ET_RC4 23
#define ET_CAMELLIA128 25
#define ET_CAMELLIA256 26

#define KU_TICKET 2
#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

#define KRB_AP_ERR_SKEW 37
#define KVNO 3

/* The enctypes gk5 supports in every build (des3 is added when built). */
static const int32_t all_ets[] = {
    ET_AES256,      ET_AES128,      ET_AES256_SHA2,
    ET_AES128_SHA2, ET_CAMELLIA256, ET_CAMELLIA128,
#ifdef GK5_WITH_DES3
    ET_DES3,
#endif
};

/* The default RFC 4537 list: every RFC 4121 enctype gk5 supports (DES3
 * takes no acceptor subkey, so it is never offered). */
#define N_DEFAULT_ETL 6

static char g_dir[64];
static char g_keytab[128];
static gk5_acceptor_cred *g_cred;      /* the keytab, a replay cache */
static gk5_acceptor_cred *g_cred_norc; /* for acceptors at a chosen time */

/* ---- keys, the keytab, tickets ---- */

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
        return 8;
    }
}

static void kt_key(int32_t et, uint8_t *out)
{
    for (size_t i = 0; i < key_len(et); i++) {
        out[i] = (uint8_t)(et * 11 + i * 5 + 3);
    }
}

static void put(uint8_t *b, size_t *n, const void *p, size_t len)
{
    assert_true(*n + len <= 8192);
    memcpy(b + *n, p, len);
    *n += len;
}

static void put16(uint8_t *b, size_t *n, uint16_t v)
{
    uint8_t x[2];

    store_be16(x, v);
    put(b, n, x, 2);
}

static void put32(uint8_t *b, size_t *n, uint32_t v)
{
    uint8_t x[4];

    store_be32(x, v);
    put(b, n, x, 4);
}

static void put_str(uint8_t *b, size_t *n, const char *s)
{
    put16(b, n, (uint16_t)strlen(s));
    put(b, n, s, strlen(s));
}

/* An MIT 0x502 keytab (krb5_int.h describes it) with a key of every
 * enctype gk5 supports for nfs/server.test@GK5.TEST. */
static void kt_write(const char *path)
{
    static uint8_t b[8192];
    size_t n = 0;
    FILE *f;

    put(b, &n, "\x05\x02", 2);
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        uint8_t key[32];
        size_t at = n;

        kt_key(all_ets[i], key);
        put32(b, &n, 0);
        put16(b, &n, 2);
        put_str(b, &n, REALM);
        put_str(b, &n, "nfs");
        put_str(b, &n, HOST);
        put32(b, &n, 3);
        put32(b, &n, 0x60000000u);
        b[n++] = KVNO;
        put16(b, &n, (uint16_t)all_ets[i]);
        put16(b, &n, (uint16_t)key_len(all_ets[i]));
        put(b, &n, key, key_len(all_ets[i]));
        put32(b, &n, KVNO);
        store_be32(b + at, (uint32_t)(n - at - 4));
    }
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

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

/* A service ticket as a credential cache would hold it. */
struct tcred {
    struct gk5i_cc_cred cred;
    uint8_t *ticket;
};

/* The ticket's enctype tkt_et (encrypted under the keytab's key when gk5
 * supports it; random bytes otherwise, which the initiator must refuse
 * before anything reads them) and a session key of ses_et. */
static void make_cred(int32_t tkt_et, int32_t ses_et, struct tcred *t)
{
    struct gk5i_krb_enc_tkt_part tp;
    struct gk5i_krb_ticket tk;
    const struct gk5_enctype *e = NULL;
    uint8_t tkt_key[32], *tp_der, *enc;
    size_t n = 0, enc_len = 0;
    int64_t now = (int64_t)time(NULL);

    memset(t, 0, sizeof(*t));
    t->cred.keytype = ses_et;
    t->cred.key_len = key_len(ses_et);
    assert_int_equal(RAND_bytes(t->cred.key, (int)t->cred.key_len), 1);
    t->cred.client_realm = sv(REALM);
    t->cred.client = princ(1, "alice", NULL);
    t->cred.server_realm = sv(REALM);
    t->cred.server = princ(3, "nfs", HOST);
    t->cred.authtime = (uint32_t)(now - 120);
    t->cred.starttime = (uint32_t)(now - 60);
    t->cred.endtime = (uint32_t)(now + 36000);
    t->cred.flags = GK5I_TKT_FLG_INITIAL | GK5I_TKT_FLG_PRE_AUTHENT;

    memset(&tp, 0, sizeof(tp));
    tp.flags = t->cred.flags;
    tp.key.keytype = ses_et;
    tp.key.value.p = t->cred.key;
    tp.key.value.len = t->cred.key_len;
    tp.crealm = sv(REALM);
    tp.cname = princ(1, "alice", NULL);
    tp.transited_type = 1;
    tp.authtime = now - 120;
    tp.has_starttime = true;
    tp.starttime = now - 60;
    tp.endtime = now + 36000;
    assert_int_equal(gk5i_encode_enc_tkt_part(&tp, NULL, 0, &n), GK5_OK);
    tp_der = malloc(n);
    assert_non_null(tp_der);
    assert_int_equal(gk5i_encode_enc_tkt_part(&tp, tp_der, n, &n), GK5_OK);
    if (gk5i_enctype_usable(tkt_et, &e) == GK5_OK) {
        kt_key(tkt_et, tkt_key);
        assert_int_equal(gk5_c_encrypt_length(tkt_et, n, &enc_len), GK5_OK);
        enc = malloc(enc_len);
        assert_non_null(enc);
        assert_int_equal(gk5_c_encrypt(tkt_et, tkt_key, key_len(tkt_et),
                                       KU_TICKET, tp_der, n, enc, &enc_len),
                         GK5_OK);
    } else {
        enc_len = n + 24;
        enc = malloc(enc_len);
        assert_non_null(enc);
        assert_int_equal(RAND_bytes(enc, (int)enc_len), 1);
    }
    memset(&tk, 0, sizeof(tk));
    tk.realm = sv(REALM);
    tk.sname = princ(3, "nfs", HOST);
    tk.enc_part.etype = tkt_et;
    tk.enc_part.has_kvno = true;
    tk.enc_part.kvno = KVNO;
    tk.enc_part.cipher.p = enc;
    tk.enc_part.cipher.len = enc_len;
    assert_int_equal(gk5i_encode_ticket(&tk, NULL, 0, &n), GK5_OK);
    t->ticket = malloc(n);
    assert_non_null(t->ticket);
    assert_int_equal(gk5i_encode_ticket(&tk, t->ticket, n, &n), GK5_OK);
    t->cred.ticket.p = t->ticket;
    t->cred.ticket.len = n;
    free(tp_der);
    free(enc);
}

static void tcred_free(struct tcred *t)
{
    free(t->ticket);
    OPENSSL_cleanse(t, sizeof(*t));
}

/* ---- setup ---- */

static gk5_acceptor_cred *acceptor(uint32_t flags)
{
    gk5_acceptor_opts o;
    gk5_acceptor_cred *cred = NULL;
    uint32_t minor = 0;

    memset(&o, 0, sizeof(o));
    o.keytab = g_keytab;
    o.principal = "nfs@" HOST;
    o.flags = flags;
    o.rcache_max = 4096;
    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_COMPLETE);
    return cred;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof(g_dir), "/tmp/gk5-init-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    snprintf(g_keytab, sizeof(g_keytab), "%s/keytab", g_dir);
    kt_write(g_keytab);
    g_cred = acceptor(0);
    g_cred_norc = acceptor(GK5_ACC_NO_RCACHE);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gk5_acceptor_cred_free(g_cred);
    gk5_acceptor_cred_free(g_cred_norc);
    unlink(g_keytab);
    rmdir(g_dir);
    return 0;
}

/* ---- the AP-REQ as sent ---- */

static void md5(const void *p, size_t n, uint8_t out[16])
{
    unsigned int len = 0;

    assert_int_equal(EVP_Digest(p, n, out, &len, EVP_md5(), NULL), 1);
}

/* b's bytes at buf[*n] (none for an empty buffer, whose value may be
 * NULL). */
static void put_bytes(uint8_t *buf, size_t *n, gk5_buffer b)
{
    if (b.length != 0) {
        memcpy(buf + *n, b.value, b.length);
        *n += b.length;
    }
}

/* RFC 4121 4.1.1.2, computed here apart from the initiator. */
static void bindings_md5(const gk5_channel_bindings *cb, uint8_t out[16])
{
    uint8_t buf[512];
    size_t n = 0;

    store_le32(buf + n, cb->initiator_addrtype), n += 4;
    store_le32(buf + n, (uint32_t)cb->initiator_address.length), n += 4;
    put_bytes(buf, &n, cb->initiator_address);
    store_le32(buf + n, cb->acceptor_addrtype), n += 4;
    store_le32(buf + n, (uint32_t)cb->acceptor_address.length), n += 4;
    put_bytes(buf, &n, cb->acceptor_address);
    store_le32(buf + n, (uint32_t)cb->application_data.length), n += 4;
    put_bytes(buf, &n, cb->application_data);
    md5(buf, n, out);
}

/* Open the AP-REQ token as an acceptor would and check what RFC 4121 4.1
 * asks of it. */
static void check_ap_req(const gk5_buffer *tok, const struct tcred *t,
                         bool mutual, const gk5_channel_bindings *cb,
                         uint32_t want_flags, size_t n_etl)
{
    const uint8_t *p = tok->value;
    struct gk5i_krb_ap_req req;
    struct gk5i_krb_authenticator au;
    uint8_t plain[2048], bnd[16] = {0};
    size_t inner = 0, plen = sizeof(plain), pos = 0;
    bool more = true, saw_etl = false;
    int32_t ses_et = t->cred.keytype;

    assert_int_equal(gk5i_frame_parse(p, tok->length, tok->length, &inner),
                     GK5_OK);
    assert_int_equal(load_be16(p + inner), 0x0100);
    assert_int_equal(
        gk5i_decode_ap_req(p + inner + 2, tok->length - inner - 2, &req),
        GK5_OK);
    assert_int_equal(req.ap_options, mutual ? GK5I_AP_OPT_MUTUAL_REQUIRED : 0u);
    assert_int_equal(req.ticket_der.len, t->cred.ticket.len);
    assert_memory_equal(req.ticket_der.p, t->cred.ticket.p, t->cred.ticket.len);
    assert_int_equal(req.authenticator.etype, ses_et);
    assert_false(req.authenticator.has_kvno);
    assert_int_equal(gk5_c_decrypt(ses_et, t->cred.key, t->cred.key_len,
                                   KU_AP_REQ_AUTH, req.authenticator.cipher.p,
                                   req.authenticator.cipher.len, plain, &plen),
                     GK5_OK);
    /* DES3 leaves its zero padding: the DER length says where it ends. */
    plen = (plain[1] & 0x80) == 0
               ? 2u + plain[1]
               : 2u + (plain[1] & 0x7f) +
                     (plain[1] == 0x81 ? plain[2] : load_be16(plain + 2));
    assert_int_equal(gk5i_decode_authenticator(plain, plen, &au), GK5_OK);
    assert_true(gk5i_view_equal(au.crealm, sv(REALM)));
    assert_int_equal(au.cname.ncomp, 1);
    assert_true(gk5i_view_equal(au.cname.comp[0], sv("alice")));
    assert_true(au.has_cksum);
    assert_int_equal(au.cksum.cksumtype, 0x8003);
    assert_int_equal(au.cksum.value.len, 24);
    assert_int_equal(load_le32(au.cksum.value.p), 16);
    if (cb != NULL) {
        bindings_md5(cb, bnd);
    }
    assert_memory_equal(au.cksum.value.p + 4, bnd, 16);
    assert_int_equal(load_le32(au.cksum.value.p + 20), want_flags);
    assert_int_equal(want_flags & GK5_C_DELEG_FLAG, 0);
    assert_true(au.has_subkey);
    assert_int_equal(au.subkey.keytype, ses_et);
    assert_int_equal(au.subkey.value.len, key_len(ses_et));
    assert_true(au.has_seq_number);
    assert_true(au.seq_number < (1u << 30));
    while (more) {
        int32_t type, itype;
        struct gk5i_view data, idata;
        size_t ipos = 0;
        bool imore = true;

        assert_int_equal(
            gk5i_authz_next(au.authorization_data, &pos, &more, &type, &data),
            GK5_OK);
        if (!more) {
            break;
        }
        assert_int_equal(type, GK5I_AD_IF_RELEVANT);
        while (imore) {
            int32_t list[32];
            size_t n = 0;

            assert_int_equal(
                gk5i_authz_next(data, &ipos, &imore, &itype, &idata), GK5_OK);
            if (!imore) {
                break;
            }
            assert_int_equal(itype, GK5I_AD_GSS_API_ETYPE_NEGOTIATION);
            assert_int_equal(gk5i_decode_etype_list(idata, list, 32, &n),
                             GK5_OK);
            assert_int_equal(n, n_etl);
            saw_etl = true;
        }
    }
    assert_int_equal(saw_etl, mutual && n_etl != 0);
    OPENSSL_cleanse(plain, sizeof(plain));
}

/* ---- both ends ---- */

static void must(uint32_t major, uint32_t minor)
{
    if (major != GK5_S_COMPLETE) {
        fail_msg("%s", gk5_display_status(major, minor));
    }
}

/* Wrap (sealed and not) and MIC tokens from a to b, each verdict
 * COMPLETE: the sequence numbers line up from the first. */
static void one_way(gk5_ctx *a, gk5_ctx *b, const char *msg)
{
    gk5_buffer in = {strlen(msg), (void *)(uintptr_t)msg};
    gk5_buffer tok = {0, NULL}, got = {0, NULL};
    uint32_t minor = 0, qop = 0;
    int conf = -1;

    for (int c = 1; c >= 0; c--) {
        must(gk5_wrap(&minor, a, c, 0, &in, &conf, &tok), minor);
        assert_int_equal(conf, c);
        must(gk5_unwrap(&minor, b, &tok, &got, &conf, &qop), minor);
        assert_int_equal(conf, c);
        assert_int_equal(got.length, in.length);
        assert_memory_equal(got.value, in.value, in.length);
        gk5_buffer_release(&tok);
        gk5_buffer_release(&got);
    }
    must(gk5_get_mic(&minor, a, 0, &in, &tok), minor);
    must(gk5_verify_mic(&minor, b, &in, &tok, &qop), minor);
    /* The same token again is a duplicate, with replay detection on. */
    assert_int_equal(gk5_verify_mic(&minor, b, &in, &tok, &qop),
                     GK5_S_DUPLICATE_TOKEN);
    gk5_buffer_release(&tok);
}

static void both_ways(gk5_ctx *ini, gk5_ctx *acc)
{
    one_way(ini, acc, "from the initiator");
    one_way(acc, ini, "from the acceptor");
    one_way(ini, acc, "and back again");
}

struct run {
    int32_t ses_et;
    bool no_mutual;
    const int32_t *etypes; /* offered (RFC 4537) */
    size_t n_etypes;
    size_t n_etl; /* how many of them the AP-REQ lists */
    const gk5_channel_bindings *cb_init, *cb_acc;
    int32_t want_ctx_et; /* 0: the acceptor's choice, whatever it is */
};

/* The initiator to gk5_accept() and back: the AP-REQ checked, what the
 * acceptor learned checked, the calls out of order refused; the two
 * contexts and the context enctype out. */
static void establish(const struct run *r, gk5_ctx **ictx, gk5_ctx **actx,
                      int32_t *ctx_et)
{
    struct tcred t;
    gk5_initiator_opts o;
    gk5_initiator *init = NULL;
    gk5_buffer tok = {0, NULL}, rep = {0, NULL}, last = {0, NULL};
    gk5_accept_info info;
    gk5_ctx *again = NULL;
    uint32_t major, minor = 0, want_flags;
    int32_t et = -1;
    bool mutual = !r->no_mutual;

    make_cred(r->ses_et, r->ses_et, &t);
    memset(&o, 0, sizeof(o));
    o.req_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                  (mutual ? GK5_C_MUTUAL_FLAG : 0u);
    o.cb = r->cb_init;
    o.enctypes = r->etypes;
    o.n_enctypes = r->n_etypes;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, &o, &init), GK5_OK);
    /* The options are read only while the initiator is made. */
    memset(&o, 0xa5, sizeof(o));

    /* Not complete yet: nothing to finish. */
    assert_int_equal(gk5_initiator_finish(&minor, init, &et, &again),
                     GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_null(again);

    major = gk5_initiator_step(&minor, init, NULL, &tok);
    assert_int_equal(major, mutual ? GK5_S_CONTINUE_NEEDED : GK5_S_COMPLETE);
    assert_int_equal(minor, 0);
    want_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG | GK5_C_CONF_FLAG |
                 GK5_C_INTEG_FLAG | (mutual ? GK5_C_MUTUAL_FLAG : 0u);
    check_ap_req(&tok, &t, mutual, r->cb_init, want_flags,
                 r->etypes != NULL ? r->n_etl : N_DEFAULT_ETL);

    major = gk5_accept(&minor, g_cred, &tok, r->cb_acc, &rep, actx, &info);
    must(major, minor);
    assert_string_equal(info.initiator, "alice@" REALM);
    assert_string_equal(info.acceptor, "nfs/" HOST "@" REALM);
    assert_int_equal(info.session_enctype, r->ses_et);
    assert_int_equal(info.gss_flags & GK5_C_MUTUAL_FLAG,
                     mutual ? GK5_C_MUTUAL_FLAG : 0u);
    assert_int_equal(info.gss_flags & GK5_C_DELEG_FLAG, 0);
    if (r->want_ctx_et != 0) {
        assert_int_equal(info.context_enctype, r->want_ctx_et);
    }
    if (mutual) {
        assert_true(rep.length > 0);
        major = gk5_initiator_step(&minor, init, &rep, &last);
        must(major, minor);
        assert_int_equal(last.length, 0);
        assert_null(last.value);
    } else {
        assert_int_equal(rep.length, 0);
    }
    must(gk5_initiator_finish(&minor, init, &et, ictx), minor);
    assert_non_null(*ictx);
    assert_int_equal(et, info.context_enctype);
    *ctx_et = et;
    /* Once only; and no step after completion. */
    assert_int_equal(gk5_initiator_finish(&minor, init, &et, &again),
                     GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_null(again);
    assert_int_equal(et, 0);
    assert_int_equal(gk5_initiator_step(&minor, init, NULL, &last),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(last.length, 0);
    gk5_initiator_free(init);
    tcred_free(&t);
    gk5_buffer_release(&tok);
    gk5_buffer_release(&rep);
    gk5_accept_info_release(&info);
}

static void check_pair(gk5_ctx *ictx, gk5_ctx *actx, int32_t ctx_et,
                       bool acc_subkey)
{
    gk5_ctx_info ii, ai;
    uint32_t minor = 0;

    must(gk5_ctx_inquire(&minor, ictx, &ii), minor);
    must(gk5_ctx_inquire(&minor, actx, &ai), minor);
    assert_int_equal(ii.enctype, ctx_et);
    assert_int_equal(ai.enctype, ctx_et);
    assert_int_equal(ii.initiator, 1);
    assert_int_equal(ai.initiator, 0);
    assert_int_equal(ii.acceptor_subkey, acc_subkey ? 1 : 0);
    assert_int_equal(ai.acceptor_subkey, acc_subkey ? 1 : 0);
    assert_int_equal(ii.cfx, ctx_et == ET_DES3 ? 0 : 1);
    assert_int_equal(ii.flags, GK5_CTX_REPLAY | GK5_CTX_SEQUENCE);
    assert_true(ii.endtime > (uint32_t)time(NULL));
    both_ways(ictx, actx);
}

/* establish() and both contexts used. */
static void round_trip(const struct run *r, bool acc_subkey)
{
    gk5_ctx *ictx = NULL, *actx = NULL;
    int32_t et = 0;

    establish(r, &ictx, &actx, &et);
    if (r->want_ctx_et != 0) {
        assert_int_equal(et, r->want_ctx_et);
    }
    check_pair(ictx, actx, et, acc_subkey);
    gk5_ctx_free(ictx);
    gk5_ctx_free(actx);
}

/* Every enctype, mutual and not: the contexts agree and work.  Without
 * mutual authentication there is no acceptor subkey; with it, the
 * acceptor's is of the first enctype of our (default) list; RFC 1964
 * (DES3) contexts have none. */
static void test_every_enctype(void **state)
{
    (void)state;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        struct run mutual = {.ses_et = all_ets[i]};
        struct run plain = {
            .ses_et = all_ets[i], .no_mutual = true, .want_ctx_et = all_ets[i]};

        if (all_ets[i] == ET_DES3) {
            mutual.want_ctx_et = ET_DES3;
        }
        round_trip(&mutual, all_ets[i] != ET_DES3);
        round_trip(&plain, false);
    }
}

/* RFC 4537: the acceptor subkey is the first enctype of our list that
 * the acceptor makes RFC 4121 contexts with (rc4 is never offered);
 * without mutual authentication no list is sent and none is used. */
static void test_etype_negotiation(void **state)
{
    static const int32_t offer[] = {ET_RC4, ET_AES256_SHA2, ET_AES128};
    static const int32_t offer2[] = {ET_CAMELLIA128, ET_AES256};
    struct run a = {.ses_et = ET_AES128,
                    .etypes = offer,
                    .n_etypes = 3,
                    .n_etl = 2,
                    .want_ctx_et = ET_AES256_SHA2};
    struct run b = {.ses_et = ET_AES256_SHA2,
                    .etypes = offer2,
                    .n_etypes = 2,
                    .n_etl = 2,
                    .want_ctx_et = ET_CAMELLIA128};
    struct run c = {.ses_et = ET_AES128,
                    .no_mutual = true,
                    .etypes = offer2,
                    .n_etypes = 2,
                    .n_etl = 2,
                    .want_ctx_et = ET_AES128};

    (void)state;
    round_trip(&a, true);
    round_trip(&b, true);
    round_trip(&c, false);
}

static const uint8_t addr_a[] = {127, 0, 0, 1};
static const uint8_t addr_b[] = {192, 0, 2, 7};
static const gk5_channel_bindings cb_1 = {
    .initiator_addrtype = 2,
    .initiator_address = {sizeof(addr_a), (void *)(uintptr_t)addr_a},
    .acceptor_addrtype = 2,
    .acceptor_address = {sizeof(addr_b), (void *)(uintptr_t)addr_b},
    .application_data = {5, (void *)(uintptr_t) "tls-x"},
};
static const gk5_channel_bindings cb_2 = {
    .application_data = {5, (void *)(uintptr_t) "tls-y"},
};

/* Channel bindings: the same on both sides, ours only, the acceptor's
 * only (we send zeros: accepted), and different ones (refused, with a
 * KRB-ERROR that the initiator turns into a failure). */
static void test_channel_bindings(void **state)
{
    struct tcred t;
    gk5_initiator_opts o;
    gk5_initiator *init = NULL;
    gk5_buffer tok = {0, NULL}, rep = {0, NULL}, last = {0, NULL};
    gk5_ctx *actx = NULL;
    uint32_t major, minor = 0;

    (void)state;
    for (int m = 0; m < 2; m++) {
        struct run same = {.ses_et = ET_AES256,
                           .no_mutual = m == 1,
                           .cb_init = &cb_1,
                           .cb_acc = &cb_1};
        struct run ours = {
            .ses_et = ET_AES128_SHA2, .no_mutual = m == 1, .cb_init = &cb_2};
        struct run theirs = {
            .ses_et = ET_CAMELLIA256, .no_mutual = m == 1, .cb_acc = &cb_1};

        round_trip(&same, m == 0);
        round_trip(&ours, m == 0);
        round_trip(&theirs, m == 0);
    }

    make_cred(ET_AES256, ET_AES256, &t);
    memset(&o, 0, sizeof(o));
    o.cb = &cb_1;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, &o, &init), GK5_OK);
    assert_int_equal(gk5_initiator_step(&minor, init, NULL, &tok),
                     GK5_S_CONTINUE_NEEDED);
    major = gk5_accept(&minor, g_cred, &tok, &cb_2, &rep, &actx, NULL);
    assert_int_equal(major, GK5_S_BAD_BINDINGS);
    assert_int_equal(minor, GK5_ERR_AP_BINDINGS);
    assert_null(actx);
    /* The acceptor's KRB-ERROR (KRB_AP_ERR_BAD_INTEGRITY) ends it. */
    assert_true(rep.length > 0);
    major = gk5_initiator_step(&minor, init, &rep, &last);
    assert_true(GK5_ERROR(major) != 0);
    assert_true(minor != 0);
    assert_int_equal(last.length, 0);
    assert_non_null(gk5_krb_last_error());
    gk5_buffer_release(&tok);
    gk5_buffer_release(&rep);
    gk5_initiator_free(init);
    tcred_free(&t);
}

/* ---- answers the initiator refuses ---- */

/* An AP-REP token under key (usage 12) with the given ctime and cusec
 * and, if sub_et, an acceptor subkey of that enctype. */
static void forge_ap_rep(int32_t et, const uint8_t *key, size_t klen,
                         int64_t ctime, uint32_t cusec, int32_t sub_et,
                         gk5_buffer *out)
{
    struct gk5i_krb_enc_ap_rep_part part;
    struct gk5i_krb_ap_rep rep;
    uint8_t der[256], enc[512], sub[32], body[1024];
    size_t n = 0, enc_len = sizeof(enc), body_len = 0, total, off;
    uint8_t *p;

    memset(&part, 0, sizeof(part));
    part.ctime = ctime;
    part.cusec = cusec;
    if (sub_et != 0) {
        assert_int_equal(RAND_bytes(sub, (int)key_len(sub_et)), 1);
        part.has_subkey = true;
        part.subkey.keytype = sub_et;
        part.subkey.value.p = sub;
        part.subkey.value.len = key_len(sub_et);
    }
    part.has_seq_number = true;
    part.seq_number = 77;
    assert_int_equal(gk5i_encode_enc_ap_rep_part(&part, der, sizeof(der), &n),
                     GK5_OK);
    assert_int_equal(
        gk5_c_encrypt(et, key, klen, KU_AP_REP_ENCPART, der, n, enc, &enc_len),
        GK5_OK);
    memset(&rep, 0, sizeof(rep));
    rep.enc_part.etype = et;
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = enc_len;
    assert_int_equal(gk5i_encode_ap_rep(&rep, body, sizeof(body), &body_len),
                     GK5_OK);
    total = gk5i_frame_token_bytes(2 + body_len);
    p = malloc(total);
    assert_non_null(p);
    off = gk5i_frame_put(p, 2 + body_len);
    store_be16(p + off, 0x0200);
    memcpy(p + off + 2, body, body_len);
    out->value = p;
    out->length = total;
}

/* A KRB-ERROR token (TOK_ID 03 00) with code and the server's time. */
static void forge_error(int32_t code, int64_t stime, gk5_buffer *out)
{
    struct gk5i_krb_error e;
    uint8_t body[512];
    size_t n = 0, total, off;
    uint8_t *p;

    memset(&e, 0, sizeof(e));
    e.stime = stime;
    e.susec = 1;
    e.error_code = code;
    e.realm = sv(REALM);
    e.sname = princ(3, "nfs", HOST);
    assert_int_equal(gk5i_encode_krb_error(&e, body, sizeof(body), &n), GK5_OK);
    total = gk5i_frame_token_bytes(2 + n);
    p = malloc(total);
    assert_non_null(p);
    off = gk5i_frame_put(p, 2 + n);
    store_be16(p + off, 0x0300);
    memcpy(p + off + 2, body, n);
    out->value = p;
    out->length = total;
}

/* A refusal of an answer: exactly major and minor, nothing out, and the
 * initiator still waiting (nothing to finish). */
static void expect_refused(gk5_initiator *init, const gk5_buffer *in,
                           int64_t now, uint32_t major, uint32_t minor_want)
{
    gk5_buffer out = {7, (void *)(uintptr_t)in};
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;

    assert_int_equal(gk5i_initiator_step_at(&minor, init, in, &out, now, 0),
                     major);
    assert_int_equal(minor, minor_want);
    assert_int_equal(out.length, 0);
    assert_null(out.value);
    assert_non_null(gk5_display_status(major, minor));
    assert_int_equal(gk5_initiator_finish(&minor, init, NULL, &ctx),
                     GK5_S_NO_CONTEXT);
    assert_null(ctx);
}

/* Every bad answer in turn on one initiator, then the real AP-REP still
 * completes it: a refused answer changed nothing. */
static void test_bad_answers(void **state)
{
    const int64_t now = (int64_t)time(NULL);
    const uint32_t usec = 123456;
    struct tcred t;
    gk5_initiator *init = NULL;
    gk5_buffer tok = {0, NULL}, rep = {0, NULL}, bad = {0, NULL};
    gk5_ctx *actx = NULL, *ictx = NULL;
    uint8_t other[32];
    uint32_t minor = 0;
    int32_t et = 0;

    (void)state;
    make_cred(ET_AES256, ET_AES256, &t);
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init), GK5_OK);
    /* The first leg takes no input. */
    tok.value = (void *)(uintptr_t) "x";
    tok.length = 1;
    assert_int_equal(
        gk5i_initiator_step_at(&minor, init, &tok, &rep, now, usec),
        GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    tok.value = NULL;
    tok.length = 0;
    assert_int_equal(
        gk5i_initiator_step_at(&minor, init, NULL, &tok, now, usec),
        GK5_S_CONTINUE_NEEDED);
    must(gk5i_accept_at(&minor, g_cred_norc, &tok, NULL, &rep, &actx, NULL, now,
                        0),
         minor);

    /* Another ctime, another cusec: not the answer to our AP-REQ. */
    forge_ap_rep(ET_AES256, t.cred.key, t.cred.key_len, now + 1, usec, 0, &bad);
    expect_refused(init, &bad, now, GK5_S_FAILURE, GK5_ERR_AP_REP_MISMATCH);
    gk5_buffer_release(&bad);
    forge_ap_rep(ET_AES256, t.cred.key, t.cred.key_len, now, usec + 1, 0, &bad);
    expect_refused(init, &bad, now, GK5_S_FAILURE, GK5_ERR_AP_REP_MISMATCH);
    gk5_buffer_release(&bad);
    /* Under another key, or labelled with another enctype. */
    assert_int_equal(RAND_bytes(other, sizeof(other)), 1);
    forge_ap_rep(ET_AES256, other, 32, now, usec, 0, &bad);
    expect_refused(init, &bad, now, GK5_S_FAILURE, GK5_ERR_AP_REP_MISMATCH);
    gk5_buffer_release(&bad);
    forge_ap_rep(ET_AES256_SHA2, other, 32, now, usec, 0, &bad);
    expect_refused(init, &bad, now, GK5_S_FAILURE, GK5_ERR_AP_REP_MISMATCH);
    gk5_buffer_release(&bad);
    /* An acceptor subkey we did not offer (the list is the defaults,
     * which have no rc4), or rc4 at all (RFC 8429). */
    forge_ap_rep(ET_AES256, t.cred.key, t.cred.key_len, now, usec, ET_RC4,
                 &bad);
    {
        gk5_buffer out = {0, NULL};
        uint32_t major =
            gk5i_initiator_step_at(&minor, init, &bad, &out, now, 0);

        assert_int_equal(major, GK5_S_UNAVAILABLE);
        assert_int_equal(GK5_ERR_CODE(minor), GK5_ERR_ENCTYPE_REJECTED);
        assert_int_equal(GK5_ERR_ENCTYPE(minor), ET_RC4);
        assert_non_null(strstr(gk5_strerror(minor), "8429"));
    }
    gk5_buffer_release(&bad);

    /* A clock skew refusal: the words say by how much. */
    forge_error(KRB_AP_ERR_SKEW, now + 412, &bad);
    expect_refused(init, &bad, now, GK5_S_FAILURE, GK5_ERR_AP_SKEW);
    assert_non_null(gk5_krb_last_error());
    assert_non_null(strstr(gk5_krb_last_error(), "412"));
    gk5_buffer_release(&bad);

    /* Every truncation of the real AP-REP, and a wrong TOK_ID. */
    for (size_t n = 1; n < rep.length; n++) {
        gk5_buffer cut = {n, rep.value};
        gk5_buffer out = {0, NULL};

        assert_int_equal(
            gk5i_initiator_step_at(&minor, init, &cut, &out, now, 0),
            GK5_S_DEFECTIVE_TOKEN);
        assert_int_equal(out.length, 0);
    }
    {
        uint8_t *copy = malloc(rep.length);
        gk5_buffer wrong = {rep.length, copy};
        size_t inner = 0;

        assert_non_null(copy);
        memcpy(copy, rep.value, rep.length);
        assert_int_equal(gk5i_frame_parse(copy, rep.length, rep.length, &inner),
                         GK5_OK);
        copy[inner] = 0x01; /* 01 00: an AP-REQ's */
        expect_refused(init, &wrong, now, GK5_S_DEFECTIVE_TOKEN,
                       GK5_ERR_TOKEN_ID);
        /* One byte appended. */
        free(copy);
        copy = malloc(rep.length + 1);
        assert_non_null(copy);
        memcpy(copy, rep.value, rep.length);
        copy[rep.length] = 0;
        wrong.value = copy;
        wrong.length = rep.length + 1;
        assert_true(GK5_ERROR(gk5i_initiator_step_at(&minor, init, &wrong, &bad,
                                                     now, 0)) ==
                    GK5_S_DEFECTIVE_TOKEN);
        free(copy);
    }
    /* An empty answer. */
    expect_refused(init, &bad, now, GK5_S_DEFECTIVE_TOKEN,
                   GK5_ERR_TOKEN_TRUNCATED);

    /* Still waiting: the real answer completes it. */
    must(gk5i_initiator_step_at(&minor, init, &rep, &bad, now, 0), minor);
    assert_null(gk5_krb_last_error());
    must(gk5_initiator_finish(&minor, init, &et, &ictx), minor);
    /* The acceptor's subkey, of the first enctype of our default list. */
    check_pair(ictx, actx, et, true);

    gk5_ctx_free(ictx);
    gk5_ctx_free(actx);
    gk5_buffer_release(&tok);
    gk5_buffer_release(&rep);
    gk5_initiator_free(init);
    tcred_free(&t);
}

/* A clock off by more than the skew: gk5's acceptor answers
 * KRB_AP_ERR_SKEW with its time, and the initiator says so. */
static void test_skew_from_acceptor(void **state)
{
    const int64_t now = (int64_t)time(NULL);
    struct tcred t;
    gk5_initiator *init = NULL;
    gk5_buffer tok = {0, NULL}, rep = {0, NULL}, out = {0, NULL};
    gk5_ctx *actx = NULL;
    uint32_t minor = 0;

    (void)state;
    make_cred(ET_AES128, ET_AES128, &t);
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init), GK5_OK);
    assert_int_equal(
        gk5i_initiator_step_at(&minor, init, NULL, &tok, now - 1000, 0),
        GK5_S_CONTINUE_NEEDED);
    assert_int_equal(gk5i_accept_at(&minor, g_cred_norc, &tok, NULL, &rep,
                                    &actx, NULL, now, 0),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_AP_SKEW);
    assert_true(rep.length > 0);
    assert_int_equal(
        gk5i_initiator_step_at(&minor, init, &rep, &out, now - 1000, 0),
        GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_AP_SKEW);
    assert_non_null(gk5_krb_last_error());
    assert_non_null(strstr(gk5_krb_last_error(), "1000"));
    /* The next call that could receive one clears it. */
    gk5_buffer_release(&out);
    assert_int_equal(gk5_initiator_step(&minor, NULL, NULL, &out),
                     GK5_S_FAILURE);
    assert_null(gk5_krb_last_error());
    gk5_buffer_release(&tok);
    gk5_buffer_release(&rep);
    gk5_initiator_free(init);
    tcred_free(&t);
}

/* ---- refused credentials and calls out of order ---- */

static void expect_cred_refused(int32_t tkt_et, int32_t ses_et, uint32_t code,
                                int32_t et)
{
    struct tcred t;
    gk5_initiator *init = (gk5_initiator *)(uintptr_t)&t;
    uint32_t err;

    make_cred(tkt_et, ses_et, &t);
    err = gk5i_initiator_from_cred(&t.cred, NULL, &init);
    assert_int_equal(GK5_ERR_CODE(err), code);
    assert_int_equal(GK5_ERR_ENCTYPE(err), et);
    assert_null(init);
    if (code == GK5_ERR_ENCTYPE_REJECTED) {
        uint32_t minor = 0;

        assert_int_equal(gk5i_status(&minor, err), GK5_S_UNAVAILABLE);
        /* rc4 by RFC 8429, DES by RFC 6649 (and 8429). */
        assert_non_null(
            strstr(gk5_strerror(err), et == ET_RC4 ? "RFC 8429" : "RFC"));
    }
    tcred_free(&t);
}

static void test_refused_creds(void **state)
{
    struct tcred t;
    gk5_initiator *init = NULL;
    gk5_initiator_opts o;

    (void)state;
    expect_cred_refused(ET_AES256, ET_RC4, GK5_ERR_ENCTYPE_REJECTED, ET_RC4);
    expect_cred_refused(ET_AES256, ET_DES_CBC_MD5, GK5_ERR_ENCTYPE_REJECTED,
                        ET_DES_CBC_MD5);
    expect_cred_refused(ET_RC4, ET_AES256, GK5_ERR_ENCTYPE_REJECTED, ET_RC4);
#ifndef GK5_WITH_DES3
    expect_cred_refused(ET_AES256, ET_DES3, GK5_ERR_ENCTYPE_NOT_BUILT, ET_DES3);
#endif

    make_cred(ET_AES256, ET_AES256, &t);
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_initiator_from_cred(NULL, NULL, &init),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_null(init);
    /* A key of the wrong length, a user-to-user ticket, a ticket that is
     * not one, too many enctypes. */
    t.cred.key_len--;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init),
                     GK5_ERR_INVALID_ARGUMENT);
    t.cred.key_len++;
    t.cred.is_skey = true;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init),
                     GK5_ERR_INVALID_ARGUMENT);
    t.cred.is_skey = false;
    t.cred.ticket.len--;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init),
                     GK5_ERR_DER);
    t.cred.ticket.len++;
    memset(&o, 0, sizeof(o));
    o.n_enctypes = 1;
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, &o, &init),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_null(init);
    tcred_free(&t);
}

static void test_out_of_order(void **state)
{
    struct tcred t;
    gk5_initiator *init = NULL;
    gk5_buffer out = {0, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0;
    int32_t et = 7;

    (void)state;
    assert_int_equal(gk5_initiator_step(NULL, NULL, NULL, &out),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_initiator_step(&minor, NULL, NULL, &out),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_initiator_finish(&minor, NULL, &et, &ctx),
                     GK5_S_NO_CONTEXT);
    assert_int_equal(minor, GK5_ERR_CTX_NO_CONTEXT);
    assert_int_equal(et, 0);
    assert_int_equal(gk5_initiator_finish(NULL, NULL, NULL, &ctx),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    gk5_initiator_free(NULL);

    make_cred(ET_AES128_SHA2, ET_AES128_SHA2, &t);
    assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init), GK5_OK);
    assert_int_equal(gk5_initiator_step(&minor, init, NULL, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_initiator_finish(&minor, init, NULL, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(gk5_initiator_step(&minor, init, NULL, &out),
                     GK5_S_CONTINUE_NEEDED);
    gk5_buffer_release(&out);
    /* Freed while waiting for the AP-REP, and (below) with a context not
     * taken: no leak either way. */
    gk5_initiator_free(init);
    init = NULL;
    {
        gk5_initiator_opts o;

        memset(&o, 0, sizeof(o));
        o.req_flags = GK5_C_INTEG_FLAG;
        assert_int_equal(gk5i_initiator_from_cred(&t.cred, &o, &init), GK5_OK);
        assert_int_equal(gk5_initiator_step(&minor, init, NULL, &out),
                         GK5_S_COMPLETE);
        gk5_buffer_release(&out);
        assert_int_equal(gk5_initiator_step(&minor, init, NULL, &out),
                         GK5_S_FAILURE);
        assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
        gk5_initiator_free(init);
    }
    tcred_free(&t);
}

/* The pending state (`gk5 init` keeps it in a file between its runs):
 * saved while waiting for the AP-REP, loaded in a fresh initiator that
 * finishes; damaged bytes refused; nothing to save in any other state. */
static void test_pending_state(void **state)
{
    for (size_t i = 0; i < GK5_ARRAY_SIZE(all_ets); i++) {
        struct tcred t;
        gk5_initiator *init = NULL, *back = NULL;
        gk5_buffer tok = {0, NULL}, rep = {0, NULL}, out = {0, NULL};
        gk5_buffer saved = {0, NULL};
        gk5_ctx *ictx = NULL, *actx = NULL;
        uint8_t *buf = NULL;
        size_t len = 0;
        uint32_t minor = 0;
        int32_t et = 0;

        (void)state;
        make_cred(all_ets[i], all_ets[i], &t);
        assert_int_equal(gk5i_initiator_from_cred(&t.cred, NULL, &init),
                         GK5_OK);
        assert_int_equal(gk5_initiator_save(&minor, init, &saved),
                         GK5_S_FAILURE);
        assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
        assert_int_equal(gk5_initiator_step(&minor, init, NULL, &tok),
                         GK5_S_CONTINUE_NEEDED);
        must(gk5_initiator_save(&minor, init, &saved), minor);
        buf = saved.value;
        len = saved.length;
        gk5_initiator_free(init);
        for (size_t j = 0; j < len; j += 7) {
            buf[j] ^= 0x10;
            assert_true(GK5_ERROR(gk5_initiator_load(&minor, buf, len, &back)));
            assert_null(back);
            buf[j] ^= 0x10;
        }
        assert_true(GK5_ERROR(gk5_initiator_load(&minor, buf, len - 1, &back)));
        must(gk5_initiator_load(&minor, buf, len, &back), minor);
        must(gk5_accept(&minor, g_cred, &tok, NULL, &rep, &actx, NULL), minor);
        must(gk5_initiator_step(&minor, back, &rep, &out), minor);
        must(gk5_initiator_finish(&minor, back, &et, &ictx), minor);
        check_pair(ictx, actx, et, all_ets[i] != ET_DES3);
        gk5_ctx_free(ictx);
        gk5_ctx_free(actx);
        gk5_initiator_free(back);
        gk5_buffer_release(&saved);
        gk5_buffer_release(&tok);
        gk5_buffer_release(&rep);
        tcred_free(&t);
    }
}

/* The public create: a target that does not parse is a bad name. */
static void test_create_names(void **state)
{
    gk5_initiator *init = (gk5_initiator *)(uintptr_t)state;
    uint32_t minor = 0;

    (void)state;
    assert_int_equal(gk5_initiator_create(NULL, "nfs@h", NULL, &init),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_initiator_create(&minor, "nfs@h", NULL, NULL),
                     GK5_S_FAILURE);
    assert_int_equal(gk5_initiator_create(&minor, NULL, NULL, &init),
                     GK5_S_FAILURE);
    assert_null(init);
    assert_int_equal(gk5_initiator_create(&minor, "", NULL, &init),
                     GK5_S_BAD_NAME);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_initiator_create(&minor, "nfs", NULL, &init),
                     GK5_S_BAD_NAME);
    assert_int_equal(gk5_initiator_create(&minor, "nfs//h@R", NULL, &init),
                     GK5_S_BAD_NAME);
    assert_null(init);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_enctype),
        cmocka_unit_test(test_etype_negotiation),
        cmocka_unit_test(test_channel_bindings),
        cmocka_unit_test(test_bad_answers),
        cmocka_unit_test(test_skew_from_acceptor),
        cmocka_unit_test(test_refused_creds),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_pending_state),
        cmocka_unit_test(test_create_names),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
