/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The initiator's first leg (RFC 4121 4.1 over RFC 4120 3.2): the
 * authenticator (RFC 4120 5.5.1) with RFC 4121 4.1.1's 0x8003 checksum,
 * a fresh subkey, a random initial sequence number and, with mutual
 * authentication, RFC 4537's etype list; encrypted under the session key
 * (usage 11) and framed as the AP-REQ token (TOK_ID 01 00).  Without
 * mutual authentication the context exists at once, keyed by our subkey.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/bytes.h"
#include "../mech/gss_framing.h"
#include "../mech/mech_int.h"
#include "initiator_int.h"

/* RFC 4121 4.1: TOK_ID of the AP-REQ. */
#define TOK_AP_REQ 0x0100u

/* RFC 4121 4.1.1: the authenticator checksum's type and its length
 * without a delegation: Lgth (4), Bnd (16), Flags (4), little-endian. */
#define CKSUMTYPE_GSSAPI 0x8003
#define GSS_CKSUM_LEN 24

/* Room for the AD-IF-RELEVANT element holding the RFC 4537 list (at most
 * ETYPES_MAX Int32s of a few bytes each). */
#define ETL_AD_MAX 160

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
uint32_t gk5i_init_make_context(const struct gk5_initiator *init,
                                const struct gk5_enctype *et,
                                const uint8_t *key, bool acceptor_subkey,
                                uint32_t send_seq, uint32_t recv_seq,
                                gk5_ctx **out)
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

uint32_t gk5i_init_first_leg(gk5_initiator *init, gk5_buffer *out, int64_t now,
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
        err = gk5i_init_make_context(init, et, leg.subkey, false, leg.seq,
                                     leg.seq, &ctx);
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
