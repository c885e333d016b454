/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the KDC client's rooms share.  kdc_client.c the AS and TGS
 * exchanges and the credentials they return; kdc_request.c the requests
 * (the client's key, PA-ENC-TIMESTAMP, PA-TGS-REQ); kdc_reply.c a reply
 * read and checked; kdc_error.c KRB-ERRORs in words and what this thread
 * noted of them.  What the rest of src/krb5 calls is in krb5_int.h.
 */
#ifndef GK5_KRB5_KDC_INT_H
#define GK5_KRB5_KDC_INT_H

#include "krb5_int.h"

/* ---- kdc_error.c ---- */
/* The skew this thread's exchange allows, for the words of
 * KRB_AP_ERR_SKEW. */
GK5_HIDDEN void gk5i_kdc_note_skew(uint32_t skew);
/* The enctype of the ticket the reply being checked is refused for (what
 * gk5i_kdc_refused_ticket returns); 0: none. */
GK5_HIDDEN void gk5i_kdc_refuse_ticket(int32_t etype);

/* ---- kdc_request.c ---- */
/* The client's long-term key for one enctype (gk5i_kdc_client_key_make). */
struct gk5i_kdc_client_key {
    const struct gk5_enctype *et;
    uint8_t key[GK5_MAX_KEY_BYTES];
};
/* A new 31-bit nonce. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_nonce(uint32_t *nonce);
/* req encoded into a malloc'd *out. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_encode_req(
    const struct gk5i_krb_kdc_req *req, uint8_t **out, size_t *len);
/* The client's key for etype: from r's keytab, or string-to-key of r's
 * password with info's salt and s2kparams (info NULL: the default salt). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_client_key_make(
    const struct gk5i_as_req *r, int32_t etype,
    const struct gk5i_krb_etype_info2 *info, struct gk5i_kdc_client_key *ck);
/* The ETYPE-INFO2 entry in padata of the first of ours the KDC lists;
 * *found false when none.  GK5_ERR_KDC_REPLY when padata is malformed. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_pick_etype_info2(
    struct gk5i_view padata, const int32_t *ours, size_t n_ours,
    struct gk5i_krb_etype_info2 *pick, bool *found);
/* The AS-REQ for r, asking for krbtgt (its times and nonce set per round). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_as_req_make(
    const struct gk5i_as_req *r, const struct gk5i_krb_principal *krbtgt,
    struct gk5i_krb_kdc_req *req);
/* After KDC_ERR_PREAUTH_REQUIRED (kerr): the client's key into *pa_key and
 * a PA-ENC-TIMESTAMP with it into req (its bytes in *pa, freed first). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_as_preauth(
    const struct gk5i_as_req *r, const struct gk5i_krb_error *kerr,
    struct gk5i_krb_kdc_req *req, struct gk5i_kdc_client_key *pa_key,
    uint8_t **pa, size_t *pa_len);
/* A new subkey of ses_et for a TGS-REQ. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_kdc_tgs_subkey(const struct gk5_enctype *ses_et, uint8_t *subkey);
/* The TGS-REQ for realm/server on tgt with subkey, encoded into *der (the
 * body's DER in *body and the PA-TGS-REQ in *pa, both the caller's to
 * free). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_tgs_req_make(
    const struct gk5i_krb5_config *cfg, const struct gk5i_cc_cred *tgt,
    const struct gk5_enctype *ses_et, const uint8_t *subkey,
    struct gk5i_view realm, const struct gk5i_krb_principal *server,
    const int32_t *etypes, size_t n_etypes, struct gk5i_krb_kdc_req *req,
    uint8_t **body, uint8_t **pa, uint8_t **der, size_t *der_len);

/* ---- kdc_client.c ---- */
/* Whether p is krbtgt/ANY: a ticket-granting service. */
GK5_HIDDEN bool gk5i_kdc_is_tgs_name(const struct gk5i_krb_principal *p);

#endif /* GK5_KRB5_KDC_INT_H */
