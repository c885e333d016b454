/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC's reply (RFC 4120 3.1.5, 3.3.4): a KRB-ERROR noted in words,
 * or an AS-REP or TGS-REP opened and checked whole before anything of it
 * is returned: its type, the decryption of its encrypted part, the nonce,
 * the client, the service named in the ENCRYPTED part (never the
 * ticket's clear sname: Heimdal's CVE-2017-11103), the enctypes of the
 * ticket, the reply and the session key (rc4 and DES refused, RFC 8429),
 * and the times.  Keys and decrypted parts are wiped on every path.
 */
#include <string.h>

#include "kdc_int.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_AS_REP_ENCPART 3
#define KU_TGS_REP_ENCPART_SESSKEY 8
#define KU_TGS_REP_ENCPART_SUBKEY 9

/* RFC 4120 7.5.9: the KDC asks for pre-authentication. */
#define KDC_ERR_PREAUTH_REQUIRED 25

static uint32_t clamp_u32(gk5i_krb_time t)
{
    if (t < 0) {
        return 0;
    }
    return t > (gk5i_krb_time)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
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
                       (gk5i_kdc_is_tgs_name(&part->sname) &&
                        !gk5i_kdc_is_tgs_name(x->sname)))) {
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
        gk5i_kdc_refuse_ticket(rep->ticket.enc_part.etype);
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

/* The AS-REP: key from the reply's ETYPE-INFO2 (or the one used for
 * pre-authentication when the enctype is the same), decrypt (usage 3),
 * check. */
static uint32_t open_as_rep(const struct gk5i_krb_kdc_rep *rep,
                            const struct gk5i_kdc_expect *x,
                            struct gk5i_owned_cred *tgt)
{
    struct gk5i_krb_enc_kdc_rep_part part;
    struct gk5i_krb_etype_info2 info;
    struct gk5i_kdc_client_key ck;
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
        err = gk5i_kdc_pick_etype_info2(rep->padata, &want, 1, &info, &found);
        if (err == GK5_OK) {
            err = gk5i_kdc_client_key_make(x->as, want, found ? &info : NULL,
                                           &ck);
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
    gk5i_kdc_note_skew(x->skew);
    gk5i_kdc_refuse_ticket(0);
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
