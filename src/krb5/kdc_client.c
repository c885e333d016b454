/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC client: the AS exchange (RFC 4120 3.1) with PA-ENC-TIMESTAMP
 * pre-authentication after KDC_ERR_PREAUTH_REQUIRED, the TGS exchange
 * (RFC 4120 3.3) with PA-TGS-REQ, the credentials they return (owning
 * their bytes), and a service ticket from the cache or by TGS.  The
 * requests are built in kdc_request.c, the replies checked in
 * kdc_reply.c, KRB-ERRORs put into words in kdc_error.c, and sent by
 * kdc_send.c.  Keys and passwords are wiped on every path.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/trace.h"
#include "kdc_int.h"

/* RFC 4120 6.2 name types. */
#define NT_SRV_INST 2

/* The most AS-REQs one exchange sends (the first, then one with
 * pre-authentication). */
#define AS_ROUNDS 2

/* ---- owned credentials ---- */

void gk5i_owned_cred_clear(struct gk5i_owned_cred *oc)
{
    if (oc == NULL) {
        return;
    }
    gk5i_clear_free(oc->buf, oc->len);
    zap(oc, sizeof(*oc));
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
    len = c->client_realm.len + gk5i_principal_bytes(&c->client) +
          c->server_realm.len + gk5i_principal_bytes(&c->server) +
          c->addrs.len + c->authdata.len + c->ticket.len + c->second_ticket.len;
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

bool gk5i_kdc_is_tgs_name(const struct gk5i_krb_principal *p)
{
    static const struct gk5i_view krbtgt = {(const uint8_t *)"krbtgt", 6};
    return p->ncomp == 2 && gk5i_view_equal(p->comp[0], krbtgt);
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
    err = gk5i_kdc_nonce(&req->body.nonce);
    if (err != GK5_OK) {
        return err;
    }
    free(*der);
    *der = NULL;
    err = gk5i_kdc_encode_req(req, der, der_len);
    if (err != GK5_OK) {
        return err;
    }
    free(*reply);
    *reply = NULL;
    return send_req(r->cfg, r->realm, *der, *der_len, GK5I_KRB_TAG_AS_REP,
                    reply, reply_len);
}

uint32_t gk5i_as_exchange(const struct gk5i_as_req *r,
                          struct gk5i_owned_cred *tgt)
{
    struct gk5i_krb_kdc_req req;
    struct gk5i_krb_principal krbtgt;
    struct gk5i_krb_error kerr;
    struct gk5i_kdc_client_key pa_key;
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
    gk5i_kdc_note_skew(r->cfg->clockskew);
    tgs_name(r->realm, &krbtgt);
    err = gk5i_kdc_as_req_make(r, &krbtgt, &req);
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
        err = gk5i_kdc_as_preauth(r, &kerr, &req, &pa_key, &pa, &pa_len);
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
    gk5i_kdc_note_skew(cfg->clockskew);
    /* Only the TGT's own realm: krbtgt/R@R asked of R's KDC. */
    if (!gk5i_kdc_is_tgs_name(&tgt->server) ||
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
    err = gk5i_kdc_tgs_subkey(ses_et, subkey);
    if (err == GK5_OK) {
        err = gk5i_kdc_tgs_req_make(cfg, tgt, ses_et, subkey, realm, server,
                                    etypes, n_etypes, &req, &body, &pa,
                                    &req_der, &req_len);
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
    return gk5i_get_service_cred_in(cfg, ccache_path, NULL, realm, server, out);
}

uint32_t gk5i_get_service_cred_in(const struct gk5i_krb5_config *cfg,
                                  const char *ccache_path,
                                  const struct gk5i_ccache *have,
                                  struct gk5i_view realm,
                                  const struct gk5i_krb_principal *server,
                                  struct gk5i_owned_cred *out)
{
    struct gk5i_ccache *read = NULL;
    const struct gk5i_ccache *cc = have;
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
    if (cc == NULL) {
        err = gk5i_ccache_read(ccache_path, &read);
        if (err != GK5_OK) {
            return err;
        }
        cc = read;
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
    gk5i_ccache_free(read);
    return err;
}
