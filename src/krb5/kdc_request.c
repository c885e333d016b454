/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC client's requests: the AS-REQ (RFC 4120 3.1.1) and, when the
 * KDC asks for it, its PA-ENC-TIMESTAMP (RFC 4120 5.2.7.2) under the
 * client's long-term key (from the keytab, or string-to-key with
 * ETYPE-INFO2's salt and s2kparams); the TGS-REQ (RFC 4120 3.3.1) with
 * its PA-TGS-REQ, whose authenticator checksums the body and carries a
 * fresh subkey.  Only enctypes gk5 uses are asked for (rc4, DES and an
 * unbuilt des3 left out); each request has a new 31-bit nonce.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/trace.h"
#include "kdc_int.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_PA_ENC_TS 1
#define KU_TGS_REQ_AUTH_CKSUM 6
#define KU_TGS_REQ_AUTH 7

/* A 31-bit nonce: MIT's KDC reads the field as an Int32. */
uint32_t gk5i_kdc_nonce(uint32_t *nonce)
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

/* Encode a request into a malloc'd buffer. */
uint32_t gk5i_kdc_encode_req(const struct gk5i_krb_kdc_req *req, uint8_t **out,
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

/* ---- the AS-REQ ---- */

/* The client's long-term key for one enctype: from the keytab, or by
 * string-to-key of the password with the salt (default: the realm and
 * the components, RFC 4120 4) and s2kparams. */
uint32_t gk5i_kdc_client_key_make(const struct gk5i_as_req *r, int32_t etype,
                                  const struct gk5i_krb_etype_info2 *info,
                                  struct gk5i_kdc_client_key *ck)
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
        size_t need = r->realm.len + gk5i_principal_bytes(r->client);
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
uint32_t gk5i_kdc_pick_etype_info2(struct gk5i_view padata, const int32_t *ours,
                                   size_t n_ours,
                                   struct gk5i_krb_etype_info2 *pick,
                                   bool *found)
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
static uint32_t make_pa_enc_ts(const struct gk5i_kdc_client_key *ck,
                               gk5i_krb_time now, uint32_t usec, uint8_t **out,
                               size_t *out_len)
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

/* The AS-REQ for r: the client, krbtgt/REALM, the enctypes asked for
 * (with a keytab only those it has a key of for the client: a reply in
 * another could not be read), the options. */
uint32_t gk5i_kdc_as_req_make(const struct gk5i_as_req *r,
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

/* The KDC asked for pre-authentication (its e-data in kerr): the client's
 * key for the enctype and salt it names, and a PA-ENC-TIMESTAMP with it in
 * req (its bytes in *pa, freed first). */
uint32_t gk5i_kdc_as_preauth(const struct gk5i_as_req *r,
                             const struct gk5i_krb_error *kerr,
                             struct gk5i_krb_kdc_req *req,
                             struct gk5i_kdc_client_key *pa_key, uint8_t **pa,
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
    err = gk5i_kdc_pick_etype_info2(e_data, req->body.etypes,
                                    req->body.n_etypes, &info, &found);
    if (err != GK5_OK) {
        return err;
    }
    err = gk5i_kdc_client_key_make(r, found ? info.etype : req->body.etypes[0],
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

/* ---- the TGS-REQ ---- */

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
uint32_t gk5i_kdc_tgs_subkey(const struct gk5_enctype *ses_et, uint8_t *subkey)
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
uint32_t gk5i_kdc_tgs_req_make(const struct gk5i_krb5_config *cfg,
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
    err = gk5i_kdc_nonce(&req->body.nonce);
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
    return gk5i_kdc_encode_req(req, der, der_len);
}
