/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The initiator: RFC 4121 4.1 over RFC 4120 3.2.  From a service ticket
 * in hand, the AP-REQ token out; with mutual authentication the
 * acceptor's AP-REP (or KRB-ERROR) token in; a gk5_ctx at the end.
 *
 * The first leg makes the authenticator (RFC 4120 5.5.1): the client
 * from the credential, RFC 4121 4.1.1's 0x8003 checksum (the channel
 * binding hash and the flags), ctime and cusec, a fresh subkey of the
 * session key's enctype, a random initial sequence number and, with
 * mutual authentication, RFC 4537's etype list; encrypts it under the
 * session key (usage 11) and frames the AP-REQ (TOK_ID 01 00).  Without
 * mutual authentication the context exists at once, keyed by our subkey;
 * with it the AP-REP's EncAPRepPart (usage 12) must echo our ctime and
 * cusec, and its subkey (of an enctype we offered) and sequence number
 * key the context and start its receive window.
 *
 * Nothing of a failed step is kept: every new value is made in locals and
 * written into the initiator only when the step succeeds, so a caller may
 * free it, or give it another answer, as if the failed call had never
 * happened.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gk5/tickets.h>

#include "../common/bytes.h"
#include "../common/trace.h"
#include "../mech/gss_framing.h"
#include "../mech/mech_int.h"
#include "krb5_int.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

/* RFC 4121 4.1: TOK_ID of the establishment tokens. */
#define TOK_AP_REQ 0x0100u
#define TOK_AP_REP 0x0200u
#define TOK_ERROR 0x0300u

/* RFC 4121 4.1.1: the authenticator checksum, its type and its length
 * without a delegation: Lgth (4), Bnd (16), Flags (4), little-endian. */
#define CKSUMTYPE_GSSAPI 0x8003
#define GSS_CKSUM_LEN 24
#define GSS_CKSUM_BND_LEN 16

/* The flags an initiator may ask for in the checksum (RFC 4121 4.1.1.1);
 * delegation is never done, so its flag is never set. */
#define ASKABLE_FLAGS                                                          \
    (GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |             \
     GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG)

/* The most enctypes offered in the RFC 4537 list (gk5_initiator_opts). */
#define ETYPES_MAX 16

/* Room for the AD-IF-RELEVANT element holding the RFC 4537 list (at most
 * ETYPES_MAX Int32s of a few bytes each). */
#define ETL_AD_MAX 160

enum init_state {
    ST_START,    /* the AP-REQ not yet made */
    ST_WAIT_REP, /* mutual: the AP-REQ sent, waiting for the AP-REP */
    ST_DONE,     /* the context is made, not yet taken */
    ST_TAKEN,    /* gk5_initiator_finish gave it away */
};

struct gk5_initiator {
    enum init_state state;
    bool mutual;
    uint32_t cksum_flags; /* the 0x8003 Flags field */
    uint32_t ctx_options; /* GK5_CTX_REPLAY | GK5_CTX_SEQUENCE */
    uint32_t endtime;     /* the ticket's: the context's expiry */
    uint8_t bnd[GSS_CKSUM_BND_LEN];
    size_t n_etypes; /* the RFC 4537 list (sent with mutual only) */
    int32_t etypes[ETYPES_MAX];
    /* The credential: the ticket's DER and the client's realm and name,
     * views into buf. */
    uint8_t *buf;
    size_t buf_len;
    struct gk5i_view ticket, crealm;
    struct gk5i_krb_principal cname;
    /* The session key's enctype and its usage 11 and 12 subkeys; the
     * session key itself is not kept. */
    const struct gk5_enctype *ses_et;
    struct gk5i_subkeys ses_sk[2];
    /* After the first leg (mutual): what the AP-REP must answer. */
    int64_t ctime;
    uint32_t cusec;
    uint8_t subkey[GK5_MAX_KEY_BYTES]; /* of ses_et */
    uint32_t seq;                      /* our initial sequence number */
    /* ST_DONE */
    gk5_ctx *ctx;
    int32_t ctx_enctype;
};

/* ---- the first leg ---- */

/* RFC 4537: the enctypes offered for the acceptor subkey, in order: the
 * caller's, else every enctype the table supports, in its preference
 * order.  Only those gk5 makes RFC 4121 contexts with: RFC 1964 (DES3)
 * contexts take no acceptor subkey. */
static void offered_etypes(const gk5_initiator_opts *opts,
                           struct gk5_initiator *init)
{
    const struct gk5_enctype *et;

    init->n_etypes = 0;
    if (opts != NULL && opts->enctypes != NULL && opts->n_enctypes != 0) {
        for (size_t i = 0; i < opts->n_enctypes; i++) {
            if (init->n_etypes < ETYPES_MAX &&
                gk5i_enctype_usable(opts->enctypes[i], &et) == GK5_OK &&
                !et->rfc1964) {
                init->etypes[init->n_etypes++] = et->num;
            }
        }
        return;
    }
    for (size_t i = 0; (et = gk5i_enctype_at(i)) != NULL; i++) {
        const struct gk5_enctype *usable = NULL;

        if (init->n_etypes < ETYPES_MAX &&
            gk5i_enctype_usable(et->num, &usable) == GK5_OK &&
            !usable->rfc1964) {
            init->etypes[init->n_etypes++] = usable->num;
        }
    }
}

/* Whether et is one the acceptor may answer with: our list, or our own
 * subkey's (which the acceptor uses when it found none in the list). */
static bool offered(const struct gk5_initiator *init, int32_t num)
{
    return num == init->ses_et->num ||
           gk5i_enctype_listed(init->etypes, init->n_etypes, num);
}

/* A copy of the credential's ticket and client name into one buffer. */
static uint32_t keep_cred(const struct gk5i_cc_cred *cred,
                          struct gk5_initiator *init)
{
    size_t need = cred->ticket.len + cred->client_realm.len, off = 0;

    for (uint32_t i = 0; i < cred->client.ncomp; i++) {
        need += cred->client.comp[i].len;
    }
    init->buf = gk5i_zalloc(need);
    if (init->buf == NULL) {
        return GK5_ERR_NOMEM;
    }
    init->buf_len = need;
#define KEEP(dst, src)                                                         \
    do {                                                                       \
        if ((src).len != 0) {                                                  \
            memcpy(init->buf + off, (src).p, (src).len);                       \
        }                                                                      \
        (dst).p = init->buf + off;                                             \
        (dst).len = (src).len;                                                 \
        off += (src).len;                                                      \
    } while (0)
    KEEP(init->ticket, cred->ticket);
    KEEP(init->crealm, cred->client_realm);
    init->cname.name_type = cred->client.name_type;
    init->cname.ncomp = cred->client.ncomp;
    for (uint32_t i = 0; i < cred->client.ncomp; i++) {
        KEEP(init->cname.comp[i], cred->client.comp[i]);
    }
#undef KEEP
    return GK5_OK;
}

uint32_t gk5i_initiator_from_cred(const struct gk5i_cc_cred *cred,
                                  const gk5_initiator_opts *opts,
                                  gk5_initiator **out)
{
    static const uint32_t usages[2] = {KU_AP_REQ_AUTH, KU_AP_REP_ENCPART};
    struct gk5i_krb_ticket tkt;
    const struct gk5_enctype *tkt_et = NULL;
    gk5_initiator *init = NULL;
    uint32_t req, err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (cred == NULL || cred->ticket.len == 0 || cred->ticket.p == NULL ||
        cred->is_skey || cred->client.ncomp == 0 ||
        cred->client.ncomp > GK5I_KRB_MAX_COMPONENTS ||
        (opts != NULL && opts->enctypes == NULL && opts->n_enctypes != 0) ||
        (opts != NULL && opts->n_enctypes > ETYPES_MAX)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    /* The table's verdict on the ticket's and the session key's enctypes:
     * rc4 and DES refused by name (RFC 8429) before any is used. */
    err = gk5i_decode_ticket(cred->ticket.p, cred->ticket.len, &tkt);
    if (err != GK5_OK) {
        return err;
    }
    err = gk5i_enctype_usable(tkt.enc_part.etype, &tkt_et);
    if (err != GK5_OK) {
        return err;
    }
    init = gk5i_zalloc(sizeof(*init));
    if (init == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_enctype_usable(cred->keytype, &init->ses_et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (cred->key_len != init->ses_et->key_bytes) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    req = opts != NULL ? opts->req_flags : 0;
    if (req == 0) {
        req = GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG;
    }
    init->mutual = (req & GK5_C_MUTUAL_FLAG) != 0;
    /* Every gk5 context protects and seals; MIT's initiator says so in
     * every checksum too. */
    init->cksum_flags =
        (req & ASKABLE_FLAGS) | GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG;
    if ((req & GK5_C_REPLAY_FLAG) != 0) {
        init->ctx_options |= GK5_CTX_REPLAY;
    }
    if ((req & GK5_C_SEQUENCE_FLAG) != 0) {
        init->ctx_options |= GK5_CTX_SEQUENCE;
    }
    init->endtime = cred->endtime;
    err = gk5i_bindings_md5(opts != NULL ? opts->cb : NULL, init->bnd);
    if (err != GK5_OK) {
        goto cleanup;
    }
    offered_etypes(opts, init);
    err = keep_cred(cred, init);
    if (err != GK5_OK) {
        goto cleanup;
    }
    /* The AP-REP's usage is needed only with mutual authentication. */
    err = gk5i_derive_subkeys_many(init->ses_et, cred->key, cred->key_len,
                                   usages, init->mutual ? 2 : 1, init->ses_sk);
    if (err != GK5_OK) {
        goto cleanup;
    }
    init->state = ST_START;
    *out = init;
    init = NULL;
cleanup:
    gk5_initiator_free(init);
    return err;
}

/* RFC 3961 encryption of plain[0..len) under uk into a new buffer. */
static uint32_t encrypt_part(gk5_ukey *uk, const struct gk5_enctype *et,
                             const uint8_t *plain, size_t len, uint8_t **enc,
                             size_t *enc_len)
{
    size_t n = gk5i_enc_data_size(et, len);
    uint8_t *p;
    uint32_t err;

    *enc = NULL;
    *enc_len = 0;
    p = gk5i_zalloc(n);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(p + et->conf_bytes, plain, len);
    err = gk5i_enc_data_seal(uk, et, p, len);
    if (err != GK5_OK) {
        gk5i_clear_free(p, n);
        return err;
    }
    *enc = p;
    *enc_len = n;
    return GK5_OK;
}

/* What the first leg makes, kept only when it all succeeds. */
struct first_leg {
    int64_t ctime;
    uint32_t cusec;
    uint8_t subkey[GK5_MAX_KEY_BYTES];
    uint32_t seq;
};

/* RFC 4120 5.5.1: the Authenticator, encrypted under the session key
 * (usage 11). */
static uint32_t make_authenticator(const struct gk5_initiator *init,
                                   const struct first_leg *leg, uint8_t **enc,
                                   size_t *enc_len)
{
    const struct gk5_enctype *et = init->ses_et;
    struct gk5i_krb_authenticator au;
    uint8_t ck[GSS_CKSUM_LEN], etl[ETL_AD_MAX];
    uint8_t *der = NULL;
    size_t der_len = 0, etl_len = 0;
    gk5_ukey *uk = NULL;
    uint32_t err;

    /* RFC 4121 4.1.1: Lgth, Bnd, Flags. */
    store_le32(ck, GSS_CKSUM_BND_LEN);
    memcpy(ck + 4, init->bnd, GSS_CKSUM_BND_LEN);
    store_le32(ck + 4 + GSS_CKSUM_BND_LEN, init->cksum_flags);

    memset(&au, 0, sizeof(au));
    au.crealm = init->crealm;
    au.cname = init->cname;
    au.has_cksum = true;
    au.cksum.cksumtype = CKSUMTYPE_GSSAPI;
    au.cksum.value.p = ck;
    au.cksum.value.len = sizeof(ck);
    au.ctime = leg->ctime;
    au.cusec = leg->cusec;
    au.has_subkey = true;
    au.subkey.keytype = et->num;
    au.subkey.value.p = leg->subkey;
    au.subkey.value.len = et->key_bytes;
    au.has_seq_number = true;
    au.seq_number = leg->seq;
    /* RFC 4537 asks for the list only where an AP-REP can answer it;
     * MIT's initiator sends it with mutual authentication alone. */
    if (init->mutual && init->n_etypes != 0) {
        err = gk5i_encode_etype_list_ad(init->etypes, init->n_etypes, etl,
                                        sizeof(etl), &etl_len);
        if (err != GK5_OK) {
            return err;
        }
        au.authorization_data.p = etl;
        au.authorization_data.len = etl_len;
    }
    err = gk5i_encode_authenticator(&au, NULL, 0, &der_len);
    if (err != GK5_OK) {
        return err;
    }
    der = gk5i_zalloc(der_len);
    if (der == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_encode_authenticator(&au, der, der_len, &der_len);
    if (err == GK5_OK) {
        err = gk5i_ukey_new(et, &init->ses_sk[0], &uk);
    }
    if (err == GK5_OK) {
        err = encrypt_part(uk, et, der, der_len, enc, enc_len);
    }
    gk5i_ukey_free(uk);
    gk5i_clear_free(der, der_len);
    return err;
}

/* RFC 4120 5.5.1 and RFC 4121 4.1: the AP-REQ, framed (TOK_ID 01 00),
 * encoded straight into the token. */
static uint32_t make_ap_req(const struct gk5_initiator *init,
                            const uint8_t *auth, size_t auth_len,
                            gk5_buffer *out)
{
    struct gk5i_krb_ap_req req;
    size_t der_len = 0, total, off;
    uint8_t *p;
    uint32_t err;

    memset(&req, 0, sizeof(req));
    /* MIT's etype-negotiation option (RFC 4537) stays inside MIT: its
     * AP_OPTS_WIRE_MASK keeps it off the wire, and acceptors look for the
     * list itself.  So only mutual-required is sent. */
    req.ap_options = init->mutual ? GK5I_AP_OPT_MUTUAL_REQUIRED : 0;
    req.ticket_der = init->ticket;
    req.authenticator.etype = init->ses_et->num;
    req.authenticator.cipher.p = auth;
    req.authenticator.cipher.len = auth_len;
    err = gk5i_encode_ap_req(&req, NULL, 0, &der_len);
    if (err != GK5_OK) {
        return err;
    }
    total = gk5i_frame_token_bytes(2 + der_len);
    if (total == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = malloc(total);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    off = gk5i_frame_put_mech(p, 2 + der_len, GK5I_MECH_KRB5);
    store_be16(p + off, TOK_AP_REQ);
    err = gk5i_encode_ap_req(&req, p + off + 2, der_len, &der_len);
    if (err != GK5_OK) {
        free(p);
        return err;
    }
    out->value = p;
    out->length = total;
    return GK5_OK;
}

/* The context: our send counter at our number, the receive window
 * expecting recv_seq. */
static uint32_t make_context(const struct gk5_initiator *init,
                             const struct gk5_enctype *et, const uint8_t *key,
                             bool acceptor_subkey, uint32_t send_seq,
                             uint32_t recv_seq, gk5_ctx **out)
{
    uint32_t ctxflags = GK5_CTXF_INITIATOR;
    gk5_ctx *ctx = NULL;
    uint32_t err;

    if (!et->rfc1964) {
        ctxflags |= GK5_CTXF_CFX;
    }
    if (acceptor_subkey) {
        ctxflags |= GK5_CTXF_ACCEPTOR_SUBKEY;
    }
    err = gk5i_ctx_new(et->num, ctxflags, init->endtime, send_seq, key,
                       et->key_bytes, &ctx);
    if (err != GK5_OK) {
        return err;
    }
    atomic_store(&ctx->options, init->ctx_options);
    gk5i_seq_set(&ctx->recv, true, recv_seq, 0);
    *out = ctx;
    return GK5_OK;
}

static uint32_t first_leg(gk5_initiator *init, gk5_buffer *out, int64_t now,
                          uint32_t now_usec)
{
    const struct gk5_enctype *et = init->ses_et;
    struct first_leg leg;
    uint8_t rnd[GK5_MAX_KEY_BYTES], seqb[4];
    uint8_t *auth = NULL;
    size_t auth_len = 0;
    gk5_buffer tok = {0, NULL};
    gk5_ctx *ctx = NULL;
    uint32_t err;

    memset(&leg, 0, sizeof(leg));
    leg.ctime = now;
    leg.cusec = now_usec;
    /* RFC 4121 2: the initiator's subkey, fresh for every context. */
    err = gk5i_pooled_confounder(rnd, et->keygen_bytes, NULL);
    if (err == GK5_OK) {
        err = gk5_c_random_to_key(et->num, rnd, et->keygen_bytes, leg.subkey,
                                  et->key_bytes);
    }
    if (err == GK5_OK) {
        err = gk5i_pooled_confounder(seqb, sizeof(seqb), NULL);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    /* 30 bits, as MIT: a number far from 2^32 either way. */
    leg.seq = load_be32(seqb) & 0x3fffffffu;
    err = make_authenticator(init, &leg, &auth, &auth_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = make_ap_req(init, auth, auth_len, &tok);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (!init->mutual) {
        /* No AP-REP: the acceptor's counter starts at ours too (as MIT's
         * and Heimdal's do, and gk5's acceptor). */
        err = make_context(init, et, leg.subkey, false, leg.seq, leg.seq, &ctx);
        if (err != GK5_OK) {
            goto cleanup;
        }
        init->ctx = ctx;
        init->ctx_enctype = et->num;
        init->state = ST_DONE;
    } else {
        init->ctime = leg.ctime;
        init->cusec = leg.cusec;
        memcpy(init->subkey, leg.subkey, sizeof(init->subkey));
        init->seq = leg.seq;
        init->state = ST_WAIT_REP;
    }
    *out = tok;
    tok.value = NULL;
    tok.length = 0;
cleanup:
    gk5_buffer_release(&tok);
    gk5i_clear_free(auth, auth_len);
    zap(rnd, sizeof(rnd));
    zap(&leg, sizeof(leg));
    return err;
}

/* ---- the second leg ---- */

/* RFC 3961 decryption of enc under uk into a new buffer; the plaintext
 * (DES3's zero padding cut off by the DER length) is (*plain)[0..*len),
 * the buffer's size *cap.  One in another key is not an answer to our
 * AP-REQ: AP_REP_MISMATCH. */
static uint32_t decrypt_part(gk5_ukey *uk, const struct gk5_enctype *et,
                             const struct gk5i_krb_enc_data *enc,
                             uint8_t **plain, size_t *cap, size_t *len)
{
    size_t n = enc->cipher.len;
    uint8_t *p;
    uint32_t err;

    *plain = NULL;
    *cap = 0;
    *len = 0;
    if (n < et->conf_bytes + et->mac_bytes) {
        return GK5_ERR_AP_REP_MISMATCH;
    }
    p = gk5i_zalloc(n);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    err = gk5i_enc_data_open(uk, et, enc->cipher, p, len);
    if (err != GK5_OK) {
        gk5i_clear_free(p, n);
        *len = 0;
        return err == GK5_ERR_INTEGRITY ? GK5_ERR_AP_REP_MISMATCH : err;
    }
    *plain = p;
    *cap = n;
    return GK5_OK;
}

/* RFC 4120 5.5.2: the AP-REP's EncAPRepPart (usage 12) must echo our
 * ctime and cusec; its subkey, when it has one, keys the context. */
static uint32_t read_ap_rep(gk5_initiator *init, const uint8_t *p, size_t len)
{
    struct gk5i_krb_ap_rep rep;
    struct gk5i_krb_enc_ap_rep_part part;
    const struct gk5_enctype *ctx_et = init->ses_et;
    const uint8_t *ctx_key = init->subkey;
    bool acc_subkey = false;
    uint8_t *plain = NULL;
    size_t cap = 0, plen = 0;
    gk5_ukey *uk = NULL;
    gk5_ctx *ctx = NULL;
    uint32_t err;

    err = gk5i_decode_ap_rep(p, len, &rep);
    if (err != GK5_OK) {
        return err;
    }
    if (rep.enc_part.etype != init->ses_et->num) {
        return GK5_ERR_AP_REP_MISMATCH;
    }
    err = gk5i_ukey_new(init->ses_et, &init->ses_sk[1], &uk);
    if (err != GK5_OK) {
        return err;
    }
    err = decrypt_part(uk, init->ses_et, &rep.enc_part, &plain, &cap, &plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_decode_enc_ap_rep_part(plain, plen, &part);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (part.ctime != init->ctime || part.cusec != init->cusec) {
        err = GK5_ERR_AP_REP_MISMATCH;
        goto cleanup;
    }
    /* An RFC 1964 context (DES3) is keyed by our subkey whatever the
     * AP-REP holds: MIT's acceptor sends a subkey there too, and MIT's
     * initiator ignores it for such contexts. */
    if (part.has_subkey && !init->ses_et->rfc1964) {
        err = gk5i_enctype_usable(part.subkey.keytype, &ctx_et);
        if (err != GK5_OK) {
            goto cleanup;
        }
        if (part.subkey.value.len != ctx_et->key_bytes) {
            err = GK5_ERR_DER;
            goto cleanup;
        }
        /* RFC 4537: the acceptor chooses among what we offered, never an
         * RFC 1964 enctype. */
        if (!offered(init, ctx_et->num) || ctx_et->rfc1964) {
            err = GK5_ERR_AP_NO_ENCTYPE;
            goto cleanup;
        }
        ctx_key = part.subkey.value.p;
        acc_subkey = true;
    }
    /* RFC 4121 4.1: without a seq-number the acceptor's first is 0. */
    err = make_context(init, ctx_et, ctx_key, acc_subkey, init->seq,
                       part.has_seq_number ? part.seq_number : 0, &ctx);
    if (err != GK5_OK) {
        goto cleanup;
    }
    init->ctx = ctx;
    init->ctx_enctype = ctx_et->num;
    init->state = ST_DONE;
    zap(init->subkey, sizeof(init->subkey));
cleanup:
    gk5i_ukey_free(uk);
    gk5i_clear_free(plain, cap);
    return err;
}

/* RFC 4121 4.1 and RFC 4120 3.2.6: the acceptor's refusal.  Its code as
 * a gk5 error code, and its words for gk5_krb_last_error(). */
static uint32_t read_krb_error(const uint8_t *p, size_t len, int64_t now)
{
    struct gk5i_krb_error e;
    uint32_t err;

    err = gk5i_decode_krb_error(p, len, &e);
    if (err != GK5_OK) {
        return err;
    }
    return gk5i_krb_error_note(&e, false, now);
}

static uint32_t second_leg(gk5_initiator *init, const gk5_buffer *in,
                           int64_t now)
{
    const uint8_t *p = in->value;
    size_t inner = 0;
    uint32_t err;

    err = gk5i_frame_parse(p, in->length, in->length, &inner);
    if (err != GK5_OK) {
        return err;
    }
    if (in->length - inner < 2) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    switch (load_be16(p + inner)) {
    case TOK_AP_REP:
        return read_ap_rep(init, p + inner + 2, in->length - inner - 2);
    case TOK_ERROR:
        return read_krb_error(p + inner + 2, in->length - inner - 2, now);
    default:
        return GK5_ERR_TOKEN_ID;
    }
}

uint32_t gk5i_initiator_step_at(uint32_t *minor, gk5_initiator *init,
                                const gk5_buffer *in, gk5_buffer *out,
                                int64_t now, uint32_t now_usec)
{
    bool empty = in == NULL || in->length == 0;
    const char *leg;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out != NULL) {
        out->length = 0;
        out->value = NULL;
    }
    gk5i_krb_error_clear();
    if (init == NULL || out == NULL ||
        (in != NULL && in->value == NULL && in->length != 0)) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    switch (init->state) {
    case ST_START:
        if (!empty) {
            return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
        }
        leg = "AP-REQ";
        err = first_leg(init, out, now, now_usec);
        break;
    case ST_WAIT_REP:
        if (empty) {
            return gk5i_status(minor, GK5_ERR_TOKEN_TRUNCATED);
        }
        leg = "answer";
        err = second_leg(init, in, now);
        break;
    default:
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    if (GK5_TRACE_ON()) {
        char words[256];

        gk5i_trace_words(err, words, sizeof(words));
        gk5i_trace("init: %s, session enctype %d: %s", leg,
                   (int)init->ses_et->num, err == GK5_OK ? "ok" : words);
    }
    if (err != GK5_OK) {
        return gk5i_status(minor, err);
    }
    return init->state == ST_WAIT_REP ? GK5_S_CONTINUE_NEEDED : GK5_S_COMPLETE;
}

/* ---- the pending state, for a caller that finishes in another process
 * (`gk5 init`) ----
 *
 * A gk5_initiator waiting for the AP-REP, as bytes; all integers
 * big-endian, no padding:
 *
 *   0   4  magic "gk5I"
 *   4   4  version, 1
 *   8   4  the session key's enctype
 *  12   4  the 0x8003 flags sent
 *  16   4  context options (GK5_CTX_REPLAY, GK5_CTX_SEQUENCE)
 *  20   4  endtime
 *  24   8  ctime (signed)
 *  32   4  cusec
 *  36   4  our initial sequence number
 *  40   1  the session key's usage-12 subkeys: raw flag, then Ke, Ki, Kc
 *          each as a length byte and the key
 *  ..   1+ our subkey: a length byte and the key
 *  ..   1  how many enctypes we offered (at most 16), then each in 4
 *  end-32  SHA-256 of everything before it
 *
 * It holds keys (the AP-REP's and our subkey): store it as a keytab.  The
 * digest catches a file damaged at rest, as gk5_ctx_export's does; it is
 * not a seal.  Not the session key nor the ticket: only the second leg
 * can be run from it. */
#define STATE_MAGIC "gk5I"
#define STATE_VERSION 1u
#define STATE_MAX 512

static void put_key(uint8_t *p, size_t *off, const uint8_t *k, size_t n)
{
    p[(*off)++] = (uint8_t)n;
    memcpy(p + *off, k, n);
    *off += n;
}

static uint32_t pending_save(const gk5_initiator *init, uint8_t **out,
                             size_t *out_len)
{
    const struct gk5i_subkeys *sk;
    uint8_t *p;
    size_t off = 0;
    uint32_t err;

    if (out == NULL || out_len == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    *out_len = 0;
    if (init == NULL || init->state != ST_WAIT_REP) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    sk = &init->ses_sk[1];
    p = malloc(STATE_MAX);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    memcpy(p, STATE_MAGIC, 4);
    store_be32(p + 4, STATE_VERSION);
    store_be32(p + 8, (uint32_t)init->ses_et->num);
    store_be32(p + 12, init->cksum_flags);
    store_be32(p + 16, init->ctx_options);
    store_be32(p + 20, init->endtime);
    store_be64(p + 24, (uint64_t)init->ctime);
    store_be32(p + 32, init->cusec);
    store_be32(p + 36, init->seq);
    off = 40;
    p[off++] = sk->raw ? 1 : 0;
    put_key(p, &off, sk->ke, sk->ke_len);
    put_key(p, &off, sk->ki, sk->ki_len);
    put_key(p, &off, sk->kc, sk->kc_len);
    put_key(p, &off, init->subkey, init->ses_et->key_bytes);
    p[off++] = (uint8_t)init->n_etypes;
    for (size_t i = 0; i < init->n_etypes; i++) {
        store_be32(p + off, (uint32_t)init->etypes[i]);
        off += 4;
    }
    err = gk5i_sha256(p, off, p + off);
    if (err != GK5_OK) {
        zap(p, STATE_MAX);
        free(p);
        return err;
    }
    *out = p;
    *out_len = off + GK5_SHA256_BYTES;
    return GK5_OK;
}

/* A key of exactly want bytes (want 0: any up to GK5_MAX_KEY_BYTES). */
static bool get_key(struct gk5i_rd *r, uint8_t *k, size_t *n, size_t want)
{
    const uint8_t *len = gk5i_get_bytes(r, 1), *b;

    if (len == NULL || *len > GK5_MAX_KEY_BYTES ||
        (want != 0 && *len != want)) {
        return false;
    }
    b = gk5i_get_bytes(r, *len);
    if (b == NULL) {
        return false;
    }
    memcpy(k, b, *len);
    *n = *len;
    return true;
}

static uint32_t pending_load(const uint8_t *in, size_t len, gk5_initiator **out)
{
    uint8_t digest[GK5_SHA256_BYTES];
    struct gk5i_subkeys shape;
    gk5_initiator *init = NULL;
    struct gk5i_rd r;
    const uint8_t *h, *n;
    size_t key_n = 0;
    uint32_t err;

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    /* The magic is public: a plain compare. */
    if (in == NULL || len < 40 + GK5_SHA256_BYTES ||
        memcmp(in, STATE_MAGIC, 4) != 0) {
        return GK5_ERR_IMPORT_VERSION;
    }
    if (load_be32(in + 4) != STATE_VERSION) {
        return GK5_ERR_IMPORT_VERSION;
    }
    err = gk5i_sha256(in, len - GK5_SHA256_BYTES, digest);
    if (err != GK5_OK) {
        return err;
    }
    if (!gk5i_equal_ct(digest, in + len - GK5_SHA256_BYTES, GK5_SHA256_BYTES)) {
        return GK5_ERR_IMPORT_DIGEST;
    }
    init = gk5i_zalloc(sizeof(*init));
    if (init == NULL) {
        return GK5_ERR_NOMEM;
    }
    gk5i_rd_init(&r, in, len - GK5_SHA256_BYTES);
    h = gk5i_get_bytes(&r, 40);
    err = gk5i_enctype_usable((int32_t)load_be32(h + 8), &init->ses_et);
    if (err != GK5_OK) {
        goto cleanup;
    }
    init->cksum_flags = load_be32(h + 12);
    init->ctx_options = load_be32(h + 16);
    init->endtime = load_be32(h + 20);
    init->ctime = (int64_t)load_be64(h + 24);
    init->cusec = load_be32(h + 32);
    init->seq = load_be32(h + 36);
    init->mutual = true;
    err = GK5_ERR_IMPORT_KEY_LENGTH;
    gk5i_subkeys_shape(init->ses_et, false, &shape);
    n = gk5i_get_bytes(&r, 1);
    if (n == NULL || *n != 0 ||
        !get_key(&r, init->ses_sk[1].ke, &init->ses_sk[1].ke_len,
                 shape.ke_len) ||
        !get_key(&r, init->ses_sk[1].ki, &init->ses_sk[1].ki_len,
                 shape.ki_len) ||
        !get_key(&r, init->ses_sk[1].kc, &init->ses_sk[1].kc_len,
                 shape.kc_len) ||
        !get_key(&r, init->subkey, &key_n, init->ses_et->key_bytes)) {
        goto cleanup;
    }
    n = gk5i_get_bytes(&r, 1);
    if (n == NULL || *n > ETYPES_MAX) {
        goto cleanup;
    }
    init->n_etypes = *n;
    for (size_t i = 0; i < init->n_etypes; i++) {
        const uint8_t *e = gk5i_get_bytes(&r, 4);

        if (e == NULL) {
            goto cleanup;
        }
        init->etypes[i] = (int32_t)load_be32(e);
    }
    if (!gk5i_rd_at_end(&r)) {
        goto cleanup;
    }
    init->state = ST_WAIT_REP;
    *out = init;
    init = NULL;
    err = GK5_OK;
cleanup:
    gk5_initiator_free(init);
    return err;
}

/* include/gk5/tickets.h: the pending state above, as public calls. */
GK5_EXPORT uint32_t gk5_initiator_save(uint32_t *minor,
                                       const gk5_initiator *init,
                                       gk5_buffer *out)
{
    uint8_t *p = NULL;
    size_t n = 0;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    out->length = 0;
    out->value = NULL;
    err = pending_save(init, &p, &n);
    if (err == GK5_OK) {
        out->value = p;
        out->length = n;
    }
    return gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_initiator_load(uint32_t *minor, const void *buf,
                                       size_t len, gk5_initiator **out)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    return gk5i_status(minor, pending_load(buf, len, out));
}

/* ---- the public calls ---- */

/* The server principal of target: "service@host" (GSS host-based,
 * KRB5_NT_SRV_HST) or a krb5 name with a '/' (KRB5_NT_PRINCIPAL). */
#define KRB5_NT_PRINCIPAL 1
#define KRB5_NT_SRV_HST 3

/* With a client keytab: a TGT in the cache at path for the client (opts'
 * principal, else the cache's), got as `kinit -k` gets one when the
 * cache holds none still valid for that client. */
static uint32_t tgt_from_keytab(const char *path, const gk5_initiator_opts *o)
{
    struct gk5i_ccache *cc = NULL;
    const struct gk5i_cc_cred *tgt = NULL;
    struct gk5i_name want;
    uint32_t err, minor = 0;
    bool have = false;

    memset(&want, 0, sizeof(want));
    err = gk5i_ccache_read(path, &cc);
    if (err == GK5_OK) {
        have = gk5i_ccache_tgt(cc, (int64_t)time(NULL), &tgt) == GK5_OK;
        if (have && o->principal != NULL) {
            /* Held for another client: not this one's TGT. */
            have = gk5i_name_parse(o->principal, false, &want) == GK5_OK &&
                   gk5i_name_matches(&want, cc->realm, &cc->principal);
        }
    } else if (err != GK5_ERR_CCACHE_NOT_FOUND &&
               err != GK5_ERR_CCACHE_FORMAT) {
        goto cleanup;
    }
    err = GK5_OK;
    if (have) {
        goto cleanup;
    }
    gk5_kinit_opts k = {
        .ccache = path,
        .config = o->config,
        .principal = o->principal,
        .keytab = o->client_keytab,
    };
    if (GK5_TRACE_ON()) {
        gk5i_trace("init: no valid TGT in %s: kinit with the keytab %s", path,
                   o->client_keytab);
    }
    if (GK5_ERROR(gk5_kinit(&minor, &k, NULL)) != 0) {
        err = minor != 0 ? minor : GK5_ERR_NO_TGT;
    }
cleanup:
    gk5i_name_free(&want);
    gk5i_ccache_free(cc);
    return err;
}

/* The target: with a '/' a krb5 principal name, otherwise RFC 2743 4.1's
 * host-based form (service@host).  name is left empty on failure. */
static uint32_t parse_target(const char *target, struct gk5i_name *name,
                             bool *hostbased)
{
    *hostbased = strchr(target, '/') == NULL;
    if (gk5i_name_parse(target, *hostbased, name) != GK5_OK ||
        (*hostbased && name->ncomp != 2)) {
        gk5i_name_free(name);
        return GK5_ERR_INVALID_ARGUMENT;
    }
    return GK5_OK;
}

/* The enctypes asked of the KDC for the service ticket: the caller's
 * (those gk5 can use; when none is, the first one's refusal says why,
 * RFC 8429), else the configuration's, which o then names too. */
static uint32_t ask_enctypes(struct gk5i_krb5_config *cfg,
                             gk5_initiator_opts *o)
{
    const struct gk5_enctype *et = NULL;
    size_t n = 0;
    uint32_t err;

    if (o->enctypes == NULL || o->n_enctypes == 0) {
        o->enctypes = cfg->tgs_enctypes;
        o->n_enctypes = cfg->n_tgs;
        return GK5_OK;
    }
    for (size_t i = 0; i < o->n_enctypes && n < GK5I_KRB_MAX_ETYPES; i++) {
        if (gk5i_enctype_usable(o->enctypes[i], &et) == GK5_OK) {
            cfg->tgs_enctypes[n++] = et->num;
        }
    }
    if (n == 0) {
        err = gk5i_enctype_usable(o->enctypes[0], &et);
        return err != GK5_OK ? err : GK5_ERR_INVALID_ARGUMENT;
    }
    cfg->n_tgs = n;
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_initiator_create(uint32_t *minor, const char *target,
                                         const gk5_initiator_opts *opts,
                                         gk5_initiator **out)
{
    struct gk5i_krb5_config *cfg = NULL;
    struct gk5i_ccache *cc = NULL;
    struct gk5i_owned_cred oc;
    struct gk5i_name name;
    struct gk5i_krb_principal server;
    struct gk5i_view realm;
    gk5_initiator_opts o;
    char *cc_path = NULL, cfg_err[256];
    bool hostbased;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    memset(&oc, 0, sizeof(oc));
    memset(&name, 0, sizeof(name));
    cfg_err[0] = '\0';
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    *out = NULL;
    gk5i_krb_error_clear();
    if (target == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    if (opts != NULL) {
        o = *opts;
    } else {
        memset(&o, 0, sizeof(o));
    }
    if ((o.enctypes == NULL && o.n_enctypes != 0) ||
        o.n_enctypes > ETYPES_MAX) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    if (parse_target(target, &name, &hostbased) != GK5_OK) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_BAD_NAME;
    }
    err = gk5i_config_load(o.config, &cfg, cfg_err, sizeof(cfg_err));
    if (err != GK5_OK) {
        if (GK5_TRACE_ON() && cfg_err[0] != '\0') {
            gk5i_trace("init: configuration: %s", cfg_err);
        }
        goto cleanup;
    }
    err = gk5i_ccache_resolve(o.ccache, &cc_path);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (o.client_keytab != NULL) {
        err = tgt_from_keytab(cc_path, &o);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    realm = name.realm;
    if (name.any_realm) {
        /* Only the TGT's realm is asked: the cache principal's. */
        err = gk5i_ccache_read(cc_path, &cc);
        if (err != GK5_OK) {
            goto cleanup;
        }
        realm = cc->realm;
    }
    memset(&server, 0, sizeof(server));
    server.name_type = hostbased ? KRB5_NT_SRV_HST : KRB5_NT_PRINCIPAL;
    server.ncomp = name.ncomp;
    memcpy(server.comp, name.comp, name.ncomp * sizeof(server.comp[0]));
    err = ask_enctypes(cfg, &o);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_get_service_cred(cfg, cc_path, realm, &server, &oc);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_initiator_from_cred(&oc.cred, &o, out);
cleanup:
    if (GK5_TRACE_ON() && err != GK5_OK) {
        char words[256];

        gk5i_trace_words(err, words, sizeof(words));
        gk5i_trace("init: %s: %s", target, words);
    }
    gk5i_owned_cred_clear(&oc);
    gk5i_ccache_free(cc);
    free(cc_path);
    gk5i_config_free(cfg);
    gk5i_name_free(&name);
    return err == GK5_OK ? GK5_S_COMPLETE : gk5i_status(minor, err);
}

GK5_EXPORT uint32_t gk5_initiator_step(uint32_t *minor, gk5_initiator *init,
                                       const gk5_buffer *in, gk5_buffer *out)
{
    struct timespec ts;

    /* CLOCK_REALTIME through the vDSO: no system call. */
    clock_gettime(CLOCK_REALTIME, &ts);
    return gk5i_initiator_step_at(minor, init, in, out, (int64_t)ts.tv_sec,
                                  (uint32_t)(ts.tv_nsec / 1000));
}

GK5_EXPORT uint32_t gk5_initiator_finish(uint32_t *minor, gk5_initiator *init,
                                         int32_t *enctype, gk5_ctx **ctx)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (enctype != NULL) {
        *enctype = 0;
    }
    if (ctx == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    *ctx = NULL;
    if (init == NULL || init->state != ST_DONE) {
        return gk5i_status(minor, GK5_ERR_CTX_NO_CONTEXT);
    }
    *ctx = init->ctx;
    if (enctype != NULL) {
        *enctype = init->ctx_enctype;
    }
    init->ctx = NULL;
    init->state = ST_TAKEN;
    return GK5_S_COMPLETE;
}

GK5_EXPORT void gk5_initiator_free(gk5_initiator *init)
{
    if (init == NULL) {
        return;
    }
    gk5_ctx_free(init->ctx);
    gk5i_subkeys_wipe(&init->ses_sk[0]);
    gk5i_subkeys_wipe(&init->ses_sk[1]);
    gk5i_clear_free(init->buf, init->buf_len);
    gk5i_clear_free(init, sizeof(*init));
}
