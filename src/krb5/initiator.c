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
 * The legs are in initiator_ap_req.c and initiator_ap_rep.c, the pending
 * state in initiator_state.c; this file makes an initiator, steps it,
 * hands over its context and frees it.
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

#include "../common/trace.h"
#include "../mech/mech_int.h"
#include "initiator_int.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

/* The flags an initiator may ask for in the checksum (RFC 4121 4.1.1.1);
 * delegation is never done, so its flag is never set. */
#define ASKABLE_FLAGS                                                          \
    (GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |             \
     GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG)

/* ---- making one from a ticket ---- */

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

/* ---- a step ---- */

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
        err = gk5i_init_first_leg(init, out, now, now_usec);
        break;
    case ST_WAIT_REP:
        if (empty) {
            return gk5i_status(minor, GK5_ERR_TOKEN_TRUNCATED);
        }
        leg = "answer";
        err = gk5i_init_second_leg(init, in, now);
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
    err = gk5i_get_service_cred_in(cfg, cc_path, cc, realm, &server, &oc);
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
