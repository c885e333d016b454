/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The initiator's second leg (RFC 4121 4.1 over RFC 4120 3.2): the
 * acceptor's answer with mutual authentication.  An AP-REP's
 * EncAPRepPart (usage 12) must echo our ctime and cusec, and its subkey
 * (of an enctype we offered) and sequence number key the context and
 * start its receive window; a KRB-ERROR is the acceptor's refusal, in
 * words for gk5_krb_last_error().
 */
#include <string.h>

#include "../common/bytes.h"
#include "../mech/gss_framing.h"
#include "initiator_int.h"

/* RFC 4121 4.1: TOK_ID of the acceptor's tokens. */
#define TOK_AP_REP 0x0200u
#define TOK_ERROR 0x0300u

/* Whether et is one the acceptor may answer with: our list, or our own
 * subkey's (which the acceptor uses when it found none in the list). */
static bool offered(const struct gk5_initiator *init, int32_t num)
{
    return num == init->ses_et->num ||
           gk5i_enctype_listed(init->etypes, init->n_etypes, num);
}

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
    err =
        gk5i_init_make_context(init, ctx_et, ctx_key, acc_subkey, init->seq,
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

uint32_t gk5i_init_second_leg(gk5_initiator *init, const gk5_buffer *in,
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
