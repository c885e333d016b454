/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * include/gk5/tickets.h: kinit, kvno, klist and kdestroy as public calls,
 * over the KDC client (kdc_client.c), the FILE credential cache
 * (ccache.c), krb5.conf (config.c) and keytabs (keytab_file.c).  The
 * initiator's pending state (gk5_initiator_save/_load) is in
 * initiator_state.c.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gk5/tickets.h>

#include "../mech/mech_int.h"
#include "krb5_int.h"

#define NT_PRINCIPAL 1
#define NT_SRV_INST 2
#define PASSWORD_MAX 1024

/* A keytab name's path: "FILE:" and "WRFILE:" dropped. */
static const char *keytab_path(const char *name)
{
    if (strncmp(name, "FILE:", 5) == 0) {
        return name + 5;
    }
    if (strncmp(name, "WRFILE:", 7) == 0) {
        return name + 7;
    }
    return name;
}

/* A parsed name as a principal of type name_type; a name without a realm
 * takes dflt (GK5_ERR_CONFIG_REALM when that is empty). */
static uint32_t name_principal(const struct gk5i_name *n, struct gk5i_view dflt,
                               int32_t name_type, struct gk5i_view *realm,
                               struct gk5i_krb_principal *p)
{
    memset(p, 0, sizeof(*p));
    p->name_type = name_type;
    p->ncomp = n->ncomp;
    for (uint32_t i = 0; i < n->ncomp; i++) {
        p->comp[i] = n->comp[i];
    }
    if (!n->any_realm) {
        *realm = n->realm;
        return GK5_OK;
    }
    if (dflt.p == NULL || dflt.len == 0) {
        return GK5_ERR_CONFIG_REALM;
    }
    *realm = dflt;
    return GK5_OK;
}

static struct gk5i_view cstr_view(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, s != NULL ? strlen(s) : 0};
    return v;
}

/* An enctype list from a caller: both or neither, at most the protocol's
 * bound. */
static bool etypes_ok(const int32_t *e, size_t n)
{
    return (e == NULL) == (n == 0) && n <= GK5I_KRB_MAX_ETYPES;
}

GK5_EXPORT uint32_t gk5_ccache_resolve(uint32_t *minor, const char *name,
                                       char **path)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (path == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    return gk5i_status(minor, gk5i_ccache_resolve(name, path));
}

/* A kinit's or kvno's answer: a name that does not parse is BAD_NAME (RFC
 * 2744), anything else as its code says. */
static uint32_t tkt_status(uint32_t *minor, uint32_t err, bool bad_name)
{
    if (err == GK5_OK) {
        return GK5_S_COMPLETE;
    }
    if (bad_name) {
        *minor = GK5_ERR_INVALID_ARGUMENT;
        return GK5_S_BAD_NAME;
    }
    return gk5i_status(minor, err);
}

/* ---- kinit ---- */

/* The client as kinit finds it: the name given, else the keytab's first
 * principal, else the login name; *bad_name for a name that does not
 * parse or a login name that is unknown (GK5_S_BAD_NAME). */
static uint32_t kinit_client(const gk5_kinit_opts *o,
                             const struct gk5i_krb5_config *cfg,
                             const struct gk5i_keytab *kt,
                             struct gk5i_name *name, struct gk5i_view *realm,
                             struct gk5i_krb_principal *client, bool *bad_name)
{
    struct gk5i_view dflt = cstr_view(cfg->default_realm);
    uint32_t err;

    if (o->principal != NULL) {
        if (gk5i_name_parse(o->principal, false, name) != GK5_OK) {
            *bad_name = true;
            return GK5_ERR_INVALID_ARGUMENT;
        }
        return name_principal(name, dflt, NT_PRINCIPAL, realm, client);
    }
    if (kt != NULL) {
        if (kt->n == 0) {
            return GK5_ERR_KEYTAB_NO_KEYS;
        }
        memset(client, 0, sizeof(*client));
        client->name_type = NT_PRINCIPAL;
        client->ncomp = kt->entries[0].ncomp;
        memcpy(client->comp, kt->entries[0].comp, sizeof(client->comp));
        *realm = kt->entries[0].realm;
        return GK5_OK;
    }
    {
        struct passwd pwd, *pw = NULL;
        char buf[4096];

        if (getpwuid_r(geteuid(), &pwd, buf, sizeof(buf), &pw) != 0 ||
            pw == NULL) {
            *bad_name = true;
            return GK5_ERR_INVALID_ARGUMENT;
        }
        err = gk5i_name_parse(pw->pw_name, false, name);
    }
    if (err != GK5_OK) {
        return err;
    }
    return name_principal(name, dflt, NT_PRINCIPAL, realm, client);
}

/* The password: the caller's, or the callback's into pw (PASSWORD_MAX). */
static uint32_t kinit_password(const gk5_kinit_opts *o, const char *who,
                               char **pw)
{
    if (o->password != NULL) {
        return GK5_OK;
    }
    if (o->password_cb == NULL) {
        return GK5_ERR_PASSWORD;
    }
    *pw = gk5i_zalloc(PASSWORD_MAX);
    if (*pw == NULL) {
        return GK5_ERR_NOMEM;
    }
    if (o->password_cb(o->password_arg, who, *pw, PASSWORD_MAX) != 0 ||
        memchr(*pw, '\0', PASSWORD_MAX) == NULL) {
        return GK5_ERR_PASSWORD;
    }
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_kinit(uint32_t *minor, const gk5_kinit_opts *o,
                              gk5_kinit_info *info)
{
    gk5_kinit_info scratch;
    struct gk5i_krb5_config *cfg = NULL;
    struct gk5i_keytab *kt = NULL;
    struct gk5i_kt_stamp stamp;
    struct gk5i_name name;
    struct gk5i_krb_principal client;
    struct gk5i_view realm = {NULL, 0};
    struct gk5i_owned_cred tgt;
    struct gk5i_as_req req;
    char *password = NULL;
    bool bad_name = false;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (info == NULL) {
        info = &scratch;
    }
    memset(info, 0, sizeof(*info));
    memset(&name, 0, sizeof(name));
    memset(&tgt, 0, sizeof(tgt));
    gk5i_krb_error_clear();
    info->step = GK5_TKT_STEP_ARGUMENTS;
    if (o == NULL || !etypes_ok(o->enctypes, o->n_enctypes) ||
        (o->flags & ~GK5_KINIT_FORWARDABLE) != 0) {
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_CONFIG;
    err = gk5i_config_load(o->config, &cfg, info->detail, sizeof(info->detail));
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (o->keytab != NULL) {
        info->step = GK5_TKT_STEP_KEYTAB;
        err = gk5i_keytab_load(keytab_path(o->keytab), &kt, &stamp);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    info->step = GK5_TKT_STEP_PRINCIPAL;
    err = kinit_client(o, cfg, kt, &name, &realm, &client, &bad_name);
    if (err == GK5_OK) {
        err = gk5i_principal_unparse(realm, &client, &info->principal);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_CCACHE;
    err = gk5i_ccache_resolve(o->ccache, &info->ccache);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (kt == NULL) {
        info->step = GK5_TKT_STEP_PASSWORD;
        err = kinit_password(o, info->principal, &password);
        if (err != GK5_OK) {
            goto cleanup;
        }
    }
    info->step = GK5_TKT_STEP_KDC;
    memset(&req, 0, sizeof(req));
    req.cfg = cfg;
    req.realm = realm;
    req.client = &client;
    req.password =
        kt != NULL ? NULL : (password != NULL ? password : o->password);
    req.keytab = kt;
    req.lifetime = o->lifetime;
    req.renew = o->renew;
    req.forwardable = (o->flags & GK5_KINIT_FORWARDABLE) || cfg->forwardable;
    req.etypes = o->enctypes;
    req.n_etypes = o->n_enctypes;
    err = gk5i_as_exchange(&req, &tgt);
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_STORE;
    err = gk5i_ccache_write(info->ccache, realm, &client, &tgt.cred, 1);
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_NONE;
cleanup:
    if (password != NULL) {
        gk5i_clear_free(password, PASSWORD_MAX);
    }
    gk5i_owned_cred_clear(&tgt);
    gk5i_keytab_free(kt);
    gk5i_name_free(&name);
    gk5i_config_free(cfg);
    if (info == &scratch) {
        gk5_kinit_info_release(&scratch);
    }
    return tkt_status(minor, err, bad_name);
}

GK5_EXPORT void gk5_kinit_info_release(gk5_kinit_info *info)
{
    if (info == NULL) {
        return;
    }
    free(info->principal);
    free(info->ccache);
    memset(info, 0, sizeof(*info)); /* not a wipe: the caller's, reset */
}

/* ---- kvno ---- */

/* A TGS exchange for the enctypes asked, with the cache's TGT, the
 * ticket appended to the cache. */
static uint32_t kvno_tgs(const struct gk5i_krb5_config *cfg,
                         const struct gk5i_ccache *cc, const char *path,
                         struct gk5i_view realm,
                         const struct gk5i_krb_principal *server,
                         const gk5_kvno_opts *o, gk5_kvno_info *info,
                         struct gk5i_owned_cred *out)
{
    struct gk5i_krb_principal krbtgt;
    const struct gk5i_cc_cred *tgt;
    uint32_t err;

    memset(&krbtgt, 0, sizeof(krbtgt));
    krbtgt.name_type = NT_SRV_INST;
    krbtgt.ncomp = 2;
    krbtgt.comp[0].p = (const uint8_t *)"krbtgt";
    krbtgt.comp[0].len = 6;
    krbtgt.comp[1] = cc->realm;
    tgt = gk5i_ccache_find(cc, cc->realm, &krbtgt, (int64_t)time(NULL));
    if (tgt == NULL) {
        return GK5_ERR_NO_TGT;
    }
    err = gk5i_tgs_exchange(cfg, tgt, realm, server, o->enctypes, o->n_enctypes,
                            out);
    if (err != GK5_OK) {
        return err;
    }
    info->step = GK5_TKT_STEP_STORE;
    return gk5i_ccache_append(path, &out->cred);
}

/* Every enctype of a caller's list is one gk5 can use: the first that is
 * not says why (RFC 8429 for rc4 and DES). */
static uint32_t etypes_usable(const int32_t *e, size_t n)
{
    const struct gk5_enctype *et = NULL;
    uint32_t err = GK5_OK;

    if (!etypes_ok(e, n)) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n && err == GK5_OK; i++) {
        err = gk5i_enctype_usable(e[i], &et);
    }
    return err;
}

/* What kvno reports of the service ticket it got: the key version and
 * enctype of its encrypted part, the session key's enctype. */
static uint32_t kvno_describe(const struct gk5i_cc_cred *cred,
                              gk5_kvno_info *info)
{
    struct gk5i_krb_ticket t;
    uint32_t err = gk5i_decode_ticket(cred->ticket.p, cred->ticket.len, &t);

    if (err != GK5_OK) {
        return err;
    }
    info->kvno = t.enc_part.has_kvno ? t.enc_part.kvno : 0;
    info->session_enctype = cred->keytype;
    info->ticket_enctype = t.enc_part.etype;
    info->step = GK5_TKT_STEP_NONE;
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_kvno(uint32_t *minor, const char *service,
                             const gk5_kvno_opts *opts, gk5_kvno_info *info)
{
    gk5_kvno_info scratch;
    gk5_kvno_opts o;
    struct gk5i_krb5_config *cfg = NULL;
    struct gk5i_ccache *cc = NULL;
    struct gk5i_name name;
    struct gk5i_krb_principal server;
    struct gk5i_view realm = {NULL, 0};
    struct gk5i_owned_cred oc;
    bool bad_name = false;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (info == NULL) {
        info = &scratch;
    }
    memset(info, 0, sizeof(*info));
    memset(&name, 0, sizeof(name));
    memset(&oc, 0, sizeof(oc));
    gk5i_krb_error_clear();
    if (opts != NULL) {
        o = *opts;
    } else {
        memset(&o, 0, sizeof(o));
    }
    info->step = GK5_TKT_STEP_ARGUMENTS;
    err = etypes_usable(o.enctypes, o.n_enctypes);
    if (err != GK5_OK) {
        goto cleanup;
    }
    if (service == NULL) {
        info->step = GK5_TKT_STEP_PRINCIPAL;
        bad_name = true;
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_CONFIG;
    err = gk5i_config_load(o.config, &cfg, info->detail, sizeof(info->detail));
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_CCACHE;
    err = gk5i_ccache_resolve(o.ccache, &info->ccache);
    if (err == GK5_OK) {
        err = gk5i_ccache_read(info->ccache, &cc);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_PRINCIPAL;
    if (gk5i_name_parse(service, false, &name) != GK5_OK) {
        bad_name = true;
        err = GK5_ERR_INVALID_ARGUMENT;
        goto cleanup;
    }
    err = name_principal(&name, cc->realm, NT_SRV_INST, &realm, &server);
    if (err == GK5_OK) {
        err = gk5i_principal_unparse(realm, &server, &info->server);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_KDC;
    if (o.n_enctypes != 0) {
        err = kvno_tgs(cfg, cc, info->ccache, realm, &server, &o, info, &oc);
    } else {
        err = gk5i_get_service_cred_in(cfg, info->ccache, cc, realm, &server,
                                       &oc);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    info->step = GK5_TKT_STEP_KDC;
    err = kvno_describe(&oc.cred, info);
cleanup:
    if (err != GK5_OK && info->step == GK5_TKT_STEP_KDC) {
        /* The KDC's reply refused for its ticket's enctype: which. */
        info->ticket_enctype = gk5i_kdc_refused_ticket();
    }
    gk5i_owned_cred_clear(&oc);
    gk5i_name_free(&name);
    gk5i_ccache_free(cc);
    gk5i_config_free(cfg);
    if (info == &scratch) {
        gk5_kvno_info_release(&scratch);
    }
    return tkt_status(minor, err, bad_name);
}

GK5_EXPORT void gk5_kvno_info_release(gk5_kvno_info *info)
{
    if (info == NULL) {
        return;
    }
    free(info->server);
    free(info->ccache);
    memset(info, 0, sizeof(*info)); /* not a wipe: the caller's, reset */
}

/* ---- klist ---- */

static uint32_t describe_cred(const struct gk5i_cc_cred *c, gk5_ccache_cred *d)
{
    struct gk5i_krb_ticket t;
    uint32_t err;

    err = gk5i_principal_unparse(c->client_realm, &c->client, &d->client);
    if (err == GK5_OK) {
        err = gk5i_principal_unparse(c->server_realm, &c->server, &d->server);
    }
    if (err != GK5_OK) {
        return err;
    }
    d->authtime = c->authtime;
    d->starttime = c->starttime;
    d->endtime = c->endtime;
    d->renew_till = c->renew_till;
    d->flags = c->flags;
    d->session_enctype = c->keytype;
    d->config = c->config ? 1 : 0;
    d->is_skey = c->is_skey ? 1 : 0;
    if (c->ticket.len != 0 &&
        gk5i_decode_ticket(c->ticket.p, c->ticket.len, &t) == GK5_OK) {
        d->ticket_decoded = 1;
        d->ticket_enctype = t.enc_part.etype;
    }
    return GK5_OK;
}

GK5_EXPORT uint32_t gk5_ccache_list(uint32_t *minor, const char *ccache,
                                    gk5_ccache_info **out)
{
    struct gk5i_ccache *cc = NULL;
    gk5_ccache_info *info = NULL;
    char *path = NULL;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    if (out == NULL) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    *out = NULL;
    err = gk5i_ccache_resolve(ccache, &path);
    if (err == GK5_OK) {
        err = gk5i_ccache_read(path, &cc);
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = GK5_ERR_NOMEM;
    info = calloc(1, sizeof(*info));
    if (info == NULL) {
        goto cleanup;
    }
    info->path = path;
    path = NULL;
    info->version = cc->version & 0xffu;
    if (cc->n != 0) {
        info->creds = calloc(cc->n, sizeof(*info->creds));
        if (info->creds == NULL) {
            goto cleanup;
        }
    }
    err = gk5i_principal_unparse(cc->realm, &cc->principal, &info->principal);
    for (size_t i = 0; err == GK5_OK && i < cc->n; i++) {
        err = describe_cred(&cc->creds[i], &info->creds[i]);
        info->n = i + 1;
    }
    if (err != GK5_OK) {
        goto cleanup;
    }
    *out = info;
    info = NULL;
cleanup:
    gk5_ccache_info_free(info);
    gk5i_ccache_free(cc);
    free(path);
    return err == GK5_OK ? GK5_S_COMPLETE : gk5i_status(minor, err);
}

GK5_EXPORT void gk5_ccache_info_free(gk5_ccache_info *info)
{
    if (info == NULL) {
        return;
    }
    for (size_t i = 0; i < info->n; i++) {
        free(info->creds[i].client);
        free(info->creds[i].server);
    }
    free(info->creds);
    free(info->principal);
    free(info->path);
    free(info);
}

/* ---- kdestroy ---- */

GK5_EXPORT uint32_t gk5_ccache_destroy(uint32_t *minor, const char *ccache)
{
    char *path = NULL;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    err = gk5i_ccache_resolve(ccache, &path);
    if (err == GK5_OK) {
        err = gk5i_ccache_destroy(path);
    }
    free(path);
    return err == GK5_OK ? GK5_S_COMPLETE : gk5i_status(minor, err);
}
