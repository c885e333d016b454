/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench --init N: what initiating a context costs from a ticket
 * already in the credential cache, gk5's own initiator
 * (gk5_initiator_*, include/gk5/accept.h) beside MIT krb5's
 * gss_init_sec_context, for each enctype, in one run.
 *
 * Before any clock starts, MIT's krb5 API fills a FILE ccache of the
 * realm's folder (one per enctype) with the client's TGT (from its
 * keytab) and a service ticket for the realm's service whose session key
 * is of the enctype; nothing asks the KDC after that.  Then N + INI_WARM
 * contexts, each both legs with mutual authentication (the bench's usual
 * flags): the AP-REQ made, accepted, the AP-REP taken, the context
 * complete.  Four configurations:
 *   gk5 "acq": gk5i_initiator_from_cred on the credential read once from
 *   the ccache (gk5i_ccache_read + gk5i_ccache_find), the session key's
 *   enctype alone offered for the subkey; both steps, gk5_initiator_finish
 *   and gk5_initiator_free;
 *   MIT "acq": gss_init_sec_context on a credential acquired once
 *   (gss_acquire_cred_from on the ccache; gss_krb5_set_allowable_enctypes
 *   to the enctype), both legs -- MIT reads the service ticket from its
 *   FILE ccache at each first leg, as it keeps none in memory;
 *   gk5 "dflt": gk5_initiator_create (the configuration and the ccache of
 *   $KRB5CCNAME read each time, as MIT's default credential is) + the rest
 *   as above, every enctype offered;
 *   MIT "dflt": gss_init_sec_context with GSS_C_NO_CREDENTIAL.
 * The acceptor answers each AP-REQ: gk5_accept for gk5's initiator, MIT's
 * gss_accept_sec_context for MIT's, both without a replay cache.  An
 * AP-REP answers one AP-REQ (its ctime, cusec and subkey), so it cannot
 * be made ahead: the clock runs around the initiator's calls only (two
 * timed sections per context, summed), never around the acceptor's.  The
 * first INI_WARM contexts warm up (in the last half of them the
 * initiator's calls are counted by the allocation counter); the N others
 * are made in INI_BATCHES batches and the median batch gives the
 * microseconds per context.  Every established initiator context is kept
 * until the end of the configuration (the acceptor's freed at once), so
 * the heap in use after all N, less before, is what each costs a client.
 * No thread section.
 *
 * Then, in the same realm, whole commands (bench_commands below): gk5
 * kinit and gk5 kvno beside MIT's kinit and kvno, each run a process of
 * its own timed from posix_spawn to waitpid, what a user waits for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>

#include "bench.h"
#include "cli.h"
#include "krb5/krb5_int.h"

#define INI_WARM 64u
#define INI_BATCHES 10u

enum { CFG_GK5_ACQ, CFG_MIT_ACQ, CFG_GK5_DFLT, CFG_MIT_DFLT, CFG__COUNT };

/* Everything one enctype's run shares. */
struct ini_state {
    const struct config *cfg;
    int32_t et;
    char client_kt[PATH_MAX], service_kt[PATH_MAX];
    char cc_path[PATH_MAX];
    char cc_name[PATH_MAX + 8]; /* "FILE:" cc_path */
    /* gk5: the credential read once, and the acceptor. */
    struct gk5i_ccache *cc;
    const struct gk5i_cc_cred *cred;
    gk5_acceptor_cred *gacc;
    /* MIT: the service's name, the acquired initiator credential, the
     * acceptor's. */
    gss_name_t service;
    gss_cred_id_t mcred, macc;
    gk5_ctx **g;     /* one slot per context */
    gss_ctx_id_t *m; /* one slot per context */
    /* While counting: the initiator's allocations so far. */
    bool counting;
    unsigned long allocs;
    char why[512];
};

/* MIT's words for a major and minor status of its krb5 mechanism. */
static const char *mit_words(OM_uint32 major, OM_uint32 minor, char *buf,
                             size_t len)
{
    gk5_mit_status st = {major, minor, 1, NULL};

    return gk5_mit_status_text(&st, buf, len);
}

static double heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();

    return (double)(mi.uordblks + mi.hblkhd);
}

static double clock_s(const struct config *cfg)
{
    struct timespec ts;

    if (!cfg->cpu_clock) {
        return now_s();
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A timed section of the initiator: the clock, and the allocation counter
 * while counting. */
static double section_start(struct ini_state *s)
{
    if (s->counting) {
        alloc_count_start();
    }
    return clock_s(s->cfg);
}

static void section_end(struct ini_state *s, double t0, double *spent)
{
    *spent += clock_s(s->cfg) - t0;
    if (s->counting) {
        s->allocs += alloc_count_stop();
    }
}

/* ---- Setting up: the ccache, the credentials ---- */

/* The client's TGT and a service ticket with a session key of s->et into
 * a new FILE ccache, by MIT's krb5 API; 0, or -1 with why set. */
static int ccache_fill(struct ini_state *s)
{
    krb5_context k = NULL;
    krb5_principal client = NULL, server = NULL;
    krb5_keytab kt = NULL;
    krb5_ccache cc = NULL;
    krb5_creds tgt, in, *out = NULL;
    krb5_error_code code;
    const char *call = "krb5_init_context";
    int ret = -1;

    memset(&tgt, 0, sizeof(tgt));
    memset(&in, 0, sizeof(in));
    code = krb5_init_context(&k);
    if (code != 0) {
        snprintf(s->why, sizeof(s->why), "krb5_init_context: error %d",
                 (int)code);
        return -1;
    }
    if ((call = "krb5_parse_name",
         code = krb5_parse_name(k, GK5_MIT_CLIENT, &client)) != 0 ||
        (code = krb5_parse_name(k, GK5_MIT_SERVICE, &server)) != 0 ||
        (call = "krb5_kt_resolve",
         code = krb5_kt_resolve(k, s->client_kt, &kt)) != 0 ||
        (call = "krb5_get_init_creds_keytab",
         code = krb5_get_init_creds_keytab(k, &tgt, client, kt, 0, NULL,
                                           NULL)) != 0 ||
        (call = "krb5_cc_resolve",
         code = krb5_cc_resolve(k, s->cc_name, &cc)) != 0 ||
        (call = "krb5_cc_initialize",
         code = krb5_cc_initialize(k, cc, client)) != 0 ||
        (call = "krb5_cc_store_cred", code = krb5_cc_store_cred(k, cc, &tgt)) !=
            0) {
        goto cleanup;
    }
    /* The service ticket, its session key of et alone; stored in cc. */
    in.client = client;
    in.server = server;
    in.keyblock.enctype = s->et;
    call = "krb5_get_credentials";
    code = krb5_get_credentials(k, 0, cc, &in, &out);
    if (code != 0) {
        goto cleanup;
    }
    if (out->keyblock.enctype != s->et) {
        snprintf(s->why, sizeof(s->why),
                 "the KDC issued a session key of enctype %d",
                 (int)out->keyblock.enctype);
        code = 0;
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (ret != 0 && code != 0) {
        const char *m = krb5_get_error_message(k, code);

        snprintf(s->why, sizeof(s->why), "%s: %s", call, m);
        krb5_free_error_message(k, m);
    }
    /* The ccache file stays: the runs read it. */
    in.client = in.server = NULL;
    krb5_free_creds(k, out);
    krb5_free_cred_contents(k, &tgt);
    if (cc != NULL) {
        krb5_cc_close(k, cc);
    }
    if (kt != NULL) {
        krb5_kt_close(k, kt);
    }
    krb5_free_principal(k, client);
    krb5_free_principal(k, server);
    krb5_free_context(k);
    return ret;
}

/* The realm's service ticket (GK5_MIT_SERVICE) in cc, or NULL. */
static const struct gk5i_cc_cred *service_cred(const struct gk5i_ccache *cc)
{
    static const char realm[] = GK5_MIT_REALM_NAME;
    struct gk5i_krb_principal server;

    memset(&server, 0, sizeof(server));
    server.name_type = 1; /* KRB5_NT_PRINCIPAL */
    server.ncomp = 2;
    server.comp[0] = (struct gk5i_view){(const uint8_t *)"gk5", 3};
    server.comp[1] = (struct gk5i_view){(const uint8_t *)"localhost", 9};
    return gk5i_ccache_find(
        cc, (struct gk5i_view){(const uint8_t *)realm, sizeof(realm) - 1},
        &server, (int64_t)time(NULL));
}

/* gk5's credential, read once from the ccache; 0 or -1 with why set. */
static int gk5_cred_read(struct ini_state *s)
{
    uint32_t err;

    err = gk5i_ccache_read(s->cc_path, &s->cc);
    if (err != GK5_OK) {
        snprintf(s->why, sizeof(s->why), "gk5i_ccache_read: %s",
                 gk5_display_status(0, err));
        return -1;
    }
    s->cred = service_cred(s->cc);
    if (s->cred == NULL) {
        snprintf(s->why, sizeof(s->why),
                 "gk5i_ccache_find: no ticket for %s in %.400s",
                 GK5_MIT_SERVICE, s->cc_path);
        return -1;
    }
    return 0;
}

/* Both acceptors (no replay cache), MIT's initiator credential and the
 * service's name; 0 or -1 with why set. */
static int creds_make(struct ini_state *s)
{
    gk5_acceptor_opts opts = {.keytab = s->service_kt,
                              .principal = GK5_MIT_SERVICE,
                              .flags = GK5_ACC_NO_RCACHE};
    gss_key_value_element_desc acc_el[2] = {{"keytab", s->service_kt},
                                            {"rcache", "none:"}};
    gss_key_value_set_desc acc_store = {2, acc_el};
    gss_key_value_element_desc ini_el[1] = {{"ccache", s->cc_name}};
    gss_key_value_set_desc ini_store = {1, ini_el};
    gss_buffer_desc cname = {strlen(GK5_MIT_CLIENT), (void *)GK5_MIT_CLIENT};
    gss_buffer_desc sname = {strlen(GK5_MIT_SERVICE), (void *)GK5_MIT_SERVICE};
    gss_name_t client = GSS_C_NO_NAME;
    krb5_enctype et = s->et;
    uint32_t minor32 = 0, major32;
    OM_uint32 major, minor, tmp;
    char words[512];
    int ret = -1;

    major32 = gk5_acceptor_cred_new(&minor32, &opts, &s->gacc);
    if (GK5_ERROR(major32)) {
        snprintf(s->why, sizeof(s->why), "gk5_acceptor_cred_new: %s",
                 gk5_display_status(major32, minor32));
        return -1;
    }
    if (GSS_ERROR(major = gss_import_name(&minor, &cname,
                                          (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                                          &client)) ||
        GSS_ERROR(major = gss_import_name(&minor, &sname,
                                          (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                                          &s->service))) {
        snprintf(s->why, sizeof(s->why), "gss_import_name: %s",
                 mit_words(major, minor, words, sizeof(words)));
        goto cleanup;
    }
    major = gss_acquire_cred_from(
        &minor, client, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
        GSS_C_INITIATE, &ini_store, &s->mcred, NULL, NULL);
    if (GSS_ERROR(major) || GSS_ERROR(major = gss_krb5_set_allowable_enctypes(
                                          &minor, s->mcred, 1, &et))) {
        snprintf(s->why, sizeof(s->why), "the initiator's credential: %s",
                 mit_words(major, minor, words, sizeof(words)));
        goto cleanup;
    }
    major = gss_acquire_cred_from(&minor, s->service, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &acc_store, &s->macc, NULL, NULL);
    if (GSS_ERROR(major)) {
        snprintf(s->why, sizeof(s->why), "the acceptor's credential: %s",
                 mit_words(major, minor, words, sizeof(words)));
        goto cleanup;
    }
    ret = 0;

cleanup:
    (void)gss_release_name(&tmp, &client);
    return ret;
}

static void creds_free(struct ini_state *s)
{
    OM_uint32 tmp;

    gk5_acceptor_cred_free(s->gacc);
    s->gacc = NULL;
    (void)gss_release_cred(&tmp, &s->mcred);
    (void)gss_release_cred(&tmp, &s->macc);
    (void)gss_release_name(&tmp, &s->service);
    gk5i_ccache_free(s->cc);
    s->cc = NULL;
    s->cred = NULL;
}

/* ---- One context ---- */

/* gk5's initiator (from the credential in hand, or from the ccache and
 * the configuration by gk5_initiator_create), gk5_accept answering;
 * the initiator's time added to *spent; the context into slot i. */
static int gk5_one(struct ini_state *s, bool dflt, unsigned i, double *spent,
                   int32_t *ctx_et)
{
    gk5_initiator_opts opts;
    gk5_initiator *init = NULL;
    gk5_buffer tok = {0, NULL}, rep = {0, NULL}, fin = {0, NULL};
    gk5_ctx *acc = NULL;
    const char *call = "";
    uint32_t minor = 0, major;
    double t0;
    int ret = -1;

    memset(&opts, 0, sizeof(opts));
    opts.enctypes = &s->et;
    opts.n_enctypes = 1;
    t0 = section_start(s);
    if (dflt) {
        call = "gk5_initiator_create";
        major = gk5_initiator_create(&minor, GK5_MIT_SERVICE, NULL, &init);
    } else {
        uint32_t err = gk5i_initiator_from_cred(s->cred, &opts, &init);

        call = "gk5i_initiator_from_cred";
        major = err == GK5_OK ? GK5_S_COMPLETE : GK5_S_FAILURE;
        minor = err;
    }
    if (!GK5_ERROR(major)) {
        call = "gk5_initiator_step (AP-REQ)";
        major = gk5_initiator_step(&minor, init, NULL, &tok);
    }
    section_end(s, t0, spent);
    if (major != GK5_S_CONTINUE_NEEDED) {
        goto cleanup;
    }
    /* The acceptor's turn: not timed. */
    call = "gk5_accept";
    major = gk5_accept(&minor, s->gacc, &tok, NULL, &rep, &acc, NULL);
    if (GK5_ERROR(major)) {
        goto cleanup;
    }
    t0 = section_start(s);
    gk5_buffer_release(&tok);
    call = "gk5_initiator_step (AP-REP)";
    major = gk5_initiator_step(&minor, init, &rep, &fin);
    if (major == GK5_S_COMPLETE) {
        call = "gk5_initiator_finish";
        major = gk5_initiator_finish(&minor, init, ctx_et, &s->g[i]);
    } else if (!GK5_ERROR(major)) {
        major = GK5_S_FAILURE; /* continue after the AP-REP */
    }
    gk5_buffer_release(&fin);
    gk5_initiator_free(init);
    init = NULL;
    section_end(s, t0, spent);
    if (GK5_ERROR(major)) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (ret != 0) {
        snprintf(s->why, sizeof(s->why), "%s: %s", call,
                 GK5_ERROR(major) ? gk5_display_status(major, minor)
                                  : "not what was expected");
    }
    gk5_initiator_free(init);
    gk5_buffer_release(&tok);
    gk5_buffer_release(&rep);
    gk5_ctx_free(acc);
    return ret;
}

/* MIT's initiator (the acquired credential, or the default one), MIT's
 * acceptor answering. */
static int mit_one(struct ini_state *s, bool dflt, unsigned i, double *spent)
{
    gss_cred_id_t cred = dflt ? GSS_C_NO_CREDENTIAL : s->mcred;
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER, rep = GSS_C_EMPTY_BUFFER;
    gss_buffer_desc fin = GSS_C_EMPTY_BUFFER;
    gss_ctx_id_t acc = GSS_C_NO_CONTEXT;
    const char *call = "gss_init_sec_context (AP-REQ)";
    OM_uint32 major, minor = 0, tmp;
    char words[512];
    double t0;
    int ret = -1;

    t0 = section_start(s);
    major = gss_init_sec_context(&minor, cred, &s->m[i], s->service,
                                 (gss_OID)gss_mech_krb5, GK5_MIT_REQ_FLAGS, 0,
                                 GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER,
                                 NULL, &tok, NULL, NULL);
    section_end(s, t0, spent);
    if (major != GSS_S_CONTINUE_NEEDED) {
        goto cleanup;
    }
    call = "gss_accept_sec_context";
    major = gss_accept_sec_context(&minor, &acc, s->macc, &tok,
                                   GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL, &rep,
                                   NULL, NULL, NULL);
    if (major != GSS_S_COMPLETE) {
        goto cleanup;
    }
    t0 = section_start(s);
    (void)gss_release_buffer(&tmp, &tok);
    call = "gss_init_sec_context (AP-REP)";
    major = gss_init_sec_context(&minor, cred, &s->m[i], s->service,
                                 (gss_OID)gss_mech_krb5, GK5_MIT_REQ_FLAGS, 0,
                                 GSS_C_NO_CHANNEL_BINDINGS, &rep, NULL, &fin,
                                 NULL, NULL);
    (void)gss_release_buffer(&tmp, &fin);
    section_end(s, t0, spent);
    if (major != GSS_S_COMPLETE) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (ret != 0) {
        snprintf(s->why, sizeof(s->why), "%s: %s", call,
                 GSS_ERROR(major)
                     ? mit_words(major, minor, words, sizeof(words))
                     : "not what was expected");
    }
    (void)gss_release_buffer(&tmp, &tok);
    (void)gss_release_buffer(&tmp, &rep);
    (void)gss_delete_sec_context(&tmp, &acc, GSS_C_NO_BUFFER);
    return ret;
}

static int one_ctx(struct ini_state *s, int c, unsigned i, double *spent)
{
    switch (c) {
    case CFG_GK5_ACQ:
        return gk5_one(s, false, i, spent, NULL);
    case CFG_GK5_DFLT:
        return gk5_one(s, true, i, spent, NULL);
    case CFG_MIT_ACQ:
        return mit_one(s, false, i, spent);
    default:
        return mit_one(s, true, i, spent);
    }
}

static void release_all(struct ini_state *s, unsigned n)
{
    OM_uint32 tmp;

    for (unsigned i = 0; i < n; i++) {
        gk5_ctx_free(s->g[i]);
        s->g[i] = NULL;
        (void)gss_delete_sec_context(&tmp, &s->m[i], GSS_C_NO_BUFFER);
    }
}

/* ---- One configuration ---- */

struct ini_fig {
    bool have;
    double us, fastest_us, slowest_us; /* median, best, worst batch */
    double bytes;                      /* heap per held context */
    double allocs;                     /* per context; < 0: not counted */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static int measure(struct ini_state *s, int c, unsigned n, struct ini_fig *f)
{
    unsigned nb = n < INI_BATCHES ? n : INI_BATCHES;
    double us[INI_BATCHES], h0, spent = 0;
    int ret = -1;

    memset(f, 0, sizeof(*f));
    s->allocs = 0;
    for (unsigned i = 0; i < INI_WARM; i++) {
        s->counting = i >= INI_WARM / 2;
        if (one_ctx(s, c, i, &spent) != 0) {
            s->counting = false;
            goto cleanup;
        }
    }
    s->counting = false;
    f->allocs = alloc_count_available()
                    ? (double)s->allocs / (INI_WARM - INI_WARM / 2)
                    : -1.0;
    h0 = heap_in_use();
    for (unsigned b = 0; b < nb; b++) {
        unsigned lo = INI_WARM + (unsigned)((uint64_t)n * b / nb);
        unsigned hi = INI_WARM + (unsigned)((uint64_t)n * (b + 1) / nb);

        spent = 0;
        for (unsigned i = lo; i < hi; i++) {
            if (one_ctx(s, c, i, &spent) != 0) {
                goto cleanup;
            }
        }
        us[b] = spent / (hi - lo) * 1e6;
    }
    f->bytes = (heap_in_use() - h0) / n;
    qsort(us, nb, sizeof(us[0]), cmp_double);
    f->us = nb % 2 ? us[nb / 2] : (us[nb / 2 - 1] + us[nb / 2]) / 2;
    f->fastest_us = us[0];
    f->slowest_us = us[nb - 1];
    f->have = true;
    ret = 0;

cleanup:
    release_all(s, INI_WARM + n);
    return ret;
}

/* ---- One enctype ---- */

struct ini_result {
    int32_t et;
    struct ini_fig fig[CFG__COUNT];
};

/* One gk5 context as a check that the run measures what it says, and
 * what it is keyed with.  1: gk5 refuses the enctype (said, not a
 * failure); 0; -1. */
static int probe(struct ini_state *s, char *note, size_t note_len)
{
    gk5_initiator_opts opts;
    gk5_initiator *init = NULL;
    int32_t ctx_et = 0;
    double spent = 0;
    uint32_t err;

    memset(&opts, 0, sizeof(opts));
    opts.enctypes = &s->et;
    opts.n_enctypes = 1;
    err = gk5i_initiator_from_cred(s->cred, &opts, &init);
    gk5_initiator_free(init);
    if (err != GK5_OK && (GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_REJECTED ||
                          GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_NOT_BUILT ||
                          GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_UNKNOWN)) {
        snprintf(note, note_len, "gk5 refuses it: %s",
                 gk5_display_status(0, err));
        return 1;
    }
    if (gk5_one(s, false, 0, &spent, &ctx_et) != 0) {
        return -1;
    }
    gk5_ctx_free(s->g[0]);
    s->g[0] = NULL;
    snprintf(note, note_len, "session key %s, context key %s (acq)",
             et_name(s->cred->keytype), et_name(ctx_et));
    return 0;
}

static int one_enctype(const struct config *cfg, gk5_mit_realm *realm,
                       int32_t et, unsigned n, struct ini_result *r, char *note,
                       size_t note_len)
{
    struct ini_state *s = calloc(1, sizeof(*s));
    char old_cc[PATH_MAX + 8];
    const char *env = getenv("KRB5CCNAME");
    bool had_cc = env != NULL && strlen(env) < sizeof(old_cc);
    int ret = -1;

    memset(r, 0, sizeof(*r));
    r->et = et;
    if (s == NULL) {
        cli_error("bench: init %s: out of memory", et_name(et));
        return -1;
    }
    if (had_cc) {
        snprintf(old_cc, sizeof(old_cc), "%s", env);
    }
    s->cfg = cfg;
    s->et = et;
    if (gk5_mit_realm_path(s->client_kt, sizeof(s->client_kt), realm,
                           "client.keytab") != 0 ||
        gk5_mit_realm_path(s->service_kt, sizeof(s->service_kt), realm,
                           "service.keytab") != 0 ||
        gk5_mit_realm_path(s->cc_path, sizeof(s->cc_path), realm,
                           "init.ccache") != 0) {
        snprintf(s->why, sizeof(s->why), "a path does not fit");
        goto cleanup;
    }
    snprintf(s->cc_name, sizeof(s->cc_name), "FILE:%s", s->cc_path);
    /* The default credential of both (MIT's and gk5_initiator_create's):
     * this enctype's ccache. */
    setenv("KRB5CCNAME", s->cc_name, 1);
    s->g = calloc(INI_WARM + n, sizeof(*s->g));
    s->m = calloc(INI_WARM + n, sizeof(*s->m));
    if (s->g == NULL || s->m == NULL) {
        snprintf(s->why, sizeof(s->why), "out of memory for %u contexts", n);
        goto cleanup;
    }
    if (ccache_fill(s) != 0 || gk5_cred_read(s) != 0 || creds_make(s) != 0) {
        goto cleanup;
    }
    ret = probe(s, note, note_len);
    if (ret != 0) {
        goto cleanup;
    }
    ret = -1;
    for (int c = 0; c < CFG__COUNT; c++) {
        if (measure(s, c, n, &r->fig[c]) != 0) {
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    if (ret < 0) {
        cli_error("bench: init %s: %s", et_name(et), s->why);
    }
    creds_free(s);
    free(s->g);
    free(s->m);
    if (s->cc_path[0] != '\0') {
        (void)unlink(s->cc_path);
    }
    if (had_cc) {
        setenv("KRB5CCNAME", old_cc, 1);
    } else {
        unsetenv("KRB5CCNAME");
    }
    free(s);
    return ret;
}

/* ---- The report ---- */

static void print_row(const char *name, const char *cred,
                      const struct ini_fig *g, const struct ini_fig *m)
{
    double spread = 0;
    char al[32];

    for (int i = 0; i < 2; i++) {
        const struct ini_fig *f = i == 0 ? g : m;
        double sp = 100.0 * (f->slowest_us - f->fastest_us) / f->fastest_us;

        if (sp > spread) {
            spread = sp;
        }
    }
    if (g->allocs < 0 || m->allocs < 0) {
        snprintf(al, sizeof(al), "?");
    } else {
        snprintf(al, sizeof(al), "%.0f/%.0f", g->allocs, m->allocs);
    }
    printf("%-26s %-4s %7.1f %7.1f %6.2f %9.0f %9.0f %7.0f %7.0f %6.2f %9s "
           "%5.1f\n",
           name, cred, g->us, m->us, g->us > 0 ? m->us / g->us : 0, 1e6 / g->us,
           1e6 / m->us, g->bytes, m->bytes,
           m->bytes > 0 ? g->bytes / m->bytes : 0, al, spread);
}

/* ---- Whole commands ---- */

/*
 * gk5 kinit and gk5 kvno beside MIT's kinit and kvno, as a user runs them:
 * each run is the program started by posix_spawn (stdin, stdout and stderr
 * on /dev/null; KRB5_CONFIG and KRB5CCNAME the realm's) and waited for,
 * timed by CLOCK_MONOTONIC from just before the spawn to just after
 * waitpid, its exit status checked.  The two programs take turns run by
 * run (which of them goes first alternates), after one untimed run of
 * each.  Before each kinit the ccache file is removed; before each kvno
 * it is rewritten with a copy of a cache that holds only the client's
 * TGT, so that every kvno makes one TGS exchange and stores the ticket.
 * Both outside the time.
 */

#define WC_RUNS 30u
#define WC_RUNS_QUICK 10u
#define WC_ARGS 8

extern char **environ;

enum { WC_KINIT, WC_KVNO, WC__COUNT };
enum { WC_GK5, WC_MIT, WC__PROGS };

static const char *const wc_names[WC__COUNT] = {"kinit -k -t client.keytab",
                                                "kvno " GK5_MIT_SERVICE};
static const char *const wc_mit_progs[WC__COUNT] = {"kinit", "kvno"};

struct wc_state {
    char gk5[PATH_MAX];            /* "" if not found */
    char mit[WC__COUNT][PATH_MAX]; /* "" if not on PATH */
    char client_kt[PATH_MAX], cc_path[PATH_MAX], err_path[PATH_MAX];
    char conf_env[PATH_MAX + 16]; /* "KRB5_CONFIG=..." */
    char cc_env[PATH_MAX + 24];   /* "KRB5CCNAME=FILE:..." */
    char **envp;                  /* the children's environment */
    int null_fd;                  /* /dev/null, for the children */
    uint8_t *tgt;                 /* the TGT-only cache */
    size_t tgt_len;
    char why[1024];
};

/* Milliseconds per run: median, fastest, slowest. */
struct wc_fig {
    double ms, min_ms, max_ms;
};

/* gk5 beside this program (both installed in bindir), else in the build
 * tree (build/bench/gk5-bench, build/tools/gk5); looked lists the
 * places tried when it is not found. */
static bool wc_find_gk5(struct wc_state *s, char *looked, size_t looked_len)
{
    static const char *const rel[] = {"gk5", "../tools/gk5"};
    char self[PATH_MAX], cand[PATH_MAX + 16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    snprintf(looked, looked_len, "/proc/self/exe: unreadable");
    if (len <= 0) {
        return false;
    }
    self[len] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) {
        return false;
    }
    *slash = '\0';
    looked[0] = '\0';
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        size_t used = strlen(looked);
        int w = snprintf(cand, sizeof(cand), "%s/%s", self, rel[i]);

        if (w > 0 && (size_t)w < sizeof(cand) && access(cand, X_OK) == 0 &&
            realpath(cand, s->gk5) != NULL) {
            return true;
        }
        snprintf(looked + used, looked_len - used, "%s%s", i > 0 ? ", " : "",
                 cand);
    }
    s->gk5[0] = '\0';
    return false;
}

/* name in a folder of $PATH, as a shell finds it; false if in none. */
static bool wc_find_on_path(const char *name, char *out, size_t out_len)
{
    const char *path = getenv("PATH");
    const char *p;

    if (path == NULL || *path == '\0') {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    for (p = path;;) {
        const char *end = strchr(p, ':');
        size_t dlen = end != NULL ? (size_t)(end - p) : strlen(p);
        struct stat st;
        int w = dlen == 0
                    ? snprintf(out, out_len, "./%s", name)
                    : snprintf(out, out_len, "%.*s/%s", (int)dlen, p, name);

        if (w > 0 && (size_t)w < out_len && stat(out, &st) == 0 &&
            S_ISREG(st.st_mode) && access(out, X_OK) == 0) {
            return true;
        }
        if (end == NULL) {
            break;
        }
        p = end + 1;
    }
    out[0] = '\0';
    return false;
}

/* environ with KRB5_CONFIG and KRB5CCNAME the realm's; 0 or -1. */
static int wc_environ(struct wc_state *s)
{
    size_t count = 0, j = 0;

    while (environ[count] != NULL) {
        count++;
    }
    s->envp = calloc(count + 3, sizeof(*s->envp));
    if (s->envp == NULL) {
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (strncmp(environ[i], "KRB5_CONFIG=", 12) != 0 &&
            strncmp(environ[i], "KRB5CCNAME=", 11) != 0) {
            s->envp[j++] = environ[i];
        }
    }
    s->envp[j++] = s->conf_env;
    s->envp[j] = s->cc_env;
    return 0;
}

/* The command line of prog's c, argv[0] the program's path. */
static void wc_argv(struct wc_state *s, int c, int prog, char *argv[WC_ARGS])
{
    size_t i = 0;

    if (prog == WC_GK5) {
        argv[i++] = s->gk5;
        argv[i++] = (char *)(c == WC_KINIT ? "kinit" : "kvno");
    } else {
        argv[i++] = s->mit[c];
    }
    if (c == WC_KINIT) {
        argv[i++] = (char *)"-k";
        argv[i++] = (char *)"-t";
        argv[i++] = s->client_kt;
        argv[i++] = (char *)GK5_MIT_CLIENT;
    } else {
        argv[i++] = (char *)GK5_MIT_SERVICE;
    }
    argv[i] = NULL;
}

/* The ccache as run c starts from: no file before kinit, the TGT-only
 * cache before kvno; 0 or -1 with why set. */
static int wc_prepare(struct wc_state *s, int c)
{
    size_t done = 0;
    int fd;

    if (unlink(s->cc_path) != 0 && errno != ENOENT) {
        snprintf(s->why, sizeof(s->why), "unlink %.400s: %s", s->cc_path,
                 strerror(errno));
        return -1;
    }
    if (c == WC_KINIT) {
        return 0;
    }
    fd = open(s->cc_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(s->why, sizeof(s->why), "create %.400s: %s", s->cc_path,
                 strerror(errno));
        return -1;
    }
    while (done < s->tgt_len) {
        ssize_t w = write(fd, s->tgt + done, s->tgt_len - done);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            snprintf(s->why, sizeof(s->why), "write %.400s: %s", s->cc_path,
                     w < 0 ? strerror(errno) : "nothing written");
            (void)close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0) {
        snprintf(s->why, sizeof(s->why), "close %.400s: %s", s->cc_path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* argv once, its output to /dev/null or (capture) to err_path; the wall
 * clock from the spawn to waitpid into *secs.  0 if it exited 0; else -1
 * with why set (how it ended). */
static int wc_spawn(struct wc_state *s, char *const argv[], bool capture,
                    double *secs)
{
    posix_spawn_file_actions_t fa;
    struct timespec t0, t1;
    pid_t pid = -1, got = -1;
    int out_fd = s->null_fd, status = 0, rc;

    if (capture) {
        out_fd =
            open(s->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (out_fd < 0) {
            snprintf(s->why, sizeof(s->why), "create %.400s: %s", s->err_path,
                     strerror(errno));
            return -1;
        }
    }
    rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        if ((rc = posix_spawn_file_actions_adddup2(&fa, s->null_fd, 0)) == 0 &&
            (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1)) == 0) {
            rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
        }
        if (rc == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t0);
            rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, s->envp);
            if (rc == 0) {
                do {
                    got = waitpid(pid, &status, 0);
                } while (got < 0 && errno == EINTR);
            }
            clock_gettime(CLOCK_MONOTONIC, &t1);
        }
        (void)posix_spawn_file_actions_destroy(&fa);
    }
    if (capture) {
        (void)close(out_fd);
    }
    if (rc != 0) {
        snprintf(s->why, sizeof(s->why), "cannot run %.400s: %s", argv[0],
                 strerror(rc));
        return -1;
    }
    if (got != pid) {
        snprintf(s->why, sizeof(s->why), "waitpid: %s", strerror(errno));
        return -1;
    }
    *secs = (double)(t1.tv_sec - t0.tv_sec) +
            (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return 0;
    }
    if (WIFEXITED(status)) {
        snprintf(s->why, sizeof(s->why), "exit status %d", WEXITSTATUS(status));
    } else {
        snprintf(s->why, sizeof(s->why), "killed by signal %d",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return -1;
}

/* One run of prog's c from its starting ccache; the time into *secs.  On
 * failure why says the command, how it ended and (from a second run with
 * its output kept) the first of what it printed. */
static int wc_one(struct wc_state *s, int c, int prog, double *secs)
{
    char *argv[WC_ARGS], line[512], ended[128], said[400];
    size_t used = 0;
    ssize_t got;
    int fd;

    wc_argv(s, c, prog, argv);
    if (wc_prepare(s, c) != 0) {
        return -1;
    }
    if (wc_spawn(s, argv, false, secs) == 0) {
        return 0;
    }
    snprintf(ended, sizeof(ended), "%.120s", s->why);
    line[0] = '\0';
    for (size_t i = 0; argv[i] != NULL; i++) {
        used = strlen(line);
        snprintf(line + used, sizeof(line) - used, "%s%s", i > 0 ? " " : "",
                 argv[i]);
    }
    said[0] = '\0';
    if (strncmp(ended, "exit status", 11) == 0 && wc_prepare(s, c) == 0 &&
        wc_spawn(s, argv, true, secs) != 0 &&
        (fd = open(s->err_path, O_RDONLY | O_CLOEXEC)) >= 0) {
        got = read(fd, said, sizeof(said) - 1);
        (void)close(fd);
        said[got > 0 ? got : 0] = '\0';
        for (char *p = said; *p != '\0'; p++) {
            if (*p == '\n' || *p == '\r') {
                *p = p[1] != '\0' ? ' ' : '\0';
            }
        }
    }
    snprintf(s->why, sizeof(s->why), "`%.400s` failed (%s)%s%.400s", line,
             ended, said[0] != '\0' ? ": " : "", said);
    return -1;
}

/* Whether the ccache file holds the realm's service ticket: 1, 0, or -1
 * with why set (gk5 cannot read it). */
static int wc_has_service(struct wc_state *s)
{
    struct gk5i_ccache *cc = NULL;
    uint32_t err = gk5i_ccache_read(s->cc_path, &cc);
    int has;

    if (err != GK5_OK) {
        snprintf(s->why, sizeof(s->why), "gk5i_ccache_read %.400s: %s",
                 s->cc_path, gk5_display_status(0, err));
        return -1;
    }
    has = service_cred(cc) != NULL;
    gk5i_ccache_free(cc);
    return has;
}

/* The TGT-only cache the kvno runs start from: one kinit (MIT's if it is
 * there, else gk5's), read into memory; 0 or -1 with why set. */
static int wc_make_tgt(struct wc_state *s, const char **by)
{
    int prog = s->mit[WC_KINIT][0] != '\0' ? WC_MIT : WC_GK5;
    double secs;
    struct stat st;
    ssize_t got;
    int fd, has;

    *by = prog == WC_MIT ? "MIT's kinit" : "gk5 kinit";
    errno = 0;
    if (wc_one(s, WC_KINIT, prog, &secs) != 0) {
        return -1;
    }
    has = wc_has_service(s);
    if (has != 0) {
        if (has > 0) {
            snprintf(s->why, sizeof(s->why),
                     "the cache %s made holds a service ticket already", *by);
        }
        return -1;
    }
    fd = open(s->cc_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
        st.st_size > (1 << 20) ||
        (s->tgt = malloc((size_t)st.st_size)) == NULL ||
        (got = read(fd, s->tgt, (size_t)st.st_size)) != st.st_size) {
        snprintf(s->why, sizeof(s->why), "reading %.400s: %s", s->cc_path,
                 errno != 0 ? strerror(errno) : "short");
        if (fd >= 0) {
            (void)close(fd);
        }
        return -1;
    }
    (void)close(fd);
    s->tgt_len = (size_t)st.st_size;
    return 0;
}

/* runs of each program of c, taking turns; 0 or -1 with why set. */
static int wc_measure(struct wc_state *s, int c, unsigned runs,
                      struct wc_fig fig[WC__PROGS])
{
    double *ms[WC__PROGS], secs = 0;
    int ret = -1;

    ms[WC_GK5] = calloc(runs, sizeof(double));
    ms[WC_MIT] = calloc(runs, sizeof(double));
    if (ms[WC_GK5] == NULL || ms[WC_MIT] == NULL) {
        snprintf(s->why, sizeof(s->why), "out of memory");
        goto cleanup;
    }
    /* One untimed run of each; kvno's must leave the service ticket. */
    for (int prog = 0; prog < WC__PROGS; prog++) {
        if (wc_one(s, c, prog, &secs) != 0) {
            goto cleanup;
        }
        if (c == WC_KVNO) {
            int has = wc_has_service(s);

            if (has == 0) {
                snprintf(s->why, sizeof(s->why),
                         "%s kvno exited 0 but left no ticket for %s in the "
                         "cache",
                         prog == WC_GK5 ? "gk5" : "MIT's", GK5_MIT_SERVICE);
            }
            if (has <= 0) {
                goto cleanup;
            }
        }
    }
    for (unsigned i = 0; i < runs; i++) {
        for (int k = 0; k < WC__PROGS; k++) {
            int prog = i % 2 == 0 ? k : WC__PROGS - 1 - k;

            if (wc_one(s, c, prog, &secs) != 0) {
                goto cleanup;
            }
            ms[prog][i] = secs * 1e3;
        }
    }
    for (int prog = 0; prog < WC__PROGS; prog++) {
        double *v = ms[prog];

        qsort(v, runs, sizeof(v[0]), cmp_double);
        fig[prog].ms =
            runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
        fig[prog].min_ms = v[0];
        fig[prog].max_ms = v[runs - 1];
    }
    ret = 0;

cleanup:
    free(ms[WC_GK5]);
    free(ms[WC_MIT]);
    return ret;
}

static void wc_print_row(const char *name, const struct wc_fig *g,
                         const struct wc_fig *m)
{
    char gr[32], mr[32];

    snprintf(gr, sizeof(gr), "%.2f-%.2f", g->min_ms, g->max_ms);
    snprintf(mr, sizeof(mr), "%.2f-%.2f", m->min_ms, m->max_ms);
    printf("%-32s %7.2f %7.2f %7.2f %13s %13s\n", name, g->ms, m->ms,
           g->ms > 0 ? m->ms / g->ms : 0, gr, mr);
}

/* The whole-commands table, in realm; the number of commands that
 * failed (a skipped one is not a failure). */
static int bench_commands(const struct config *cfg, gk5_mit_realm *realm)
{
    struct wc_state *s = calloc(1, sizeof(*s));
    unsigned runs = cfg->quick ? WC_RUNS_QUICK : WC_RUNS;
    char looked[2 * PATH_MAX + 64], conf[PATH_MAX];
    const char *tgt_by = "";
    int failures = 0;

    printf("\nWhole commands: gk5 kinit and gk5 kvno beside MIT's kinit and "
           "kvno, %u runs\nof each, the two programs taking turns run by run "
           "(which goes first\nalternates), after one untimed run of each.  "
           "Each run is the program\nstarted by posix_spawn (stdin, stdout "
           "and stderr on /dev/null, KRB5_CONFIG\nand KRB5CCNAME the "
           "realm's) and timed by CLOCK_MONOTONIC from the spawn to\n"
           "waitpid; a run that does not exit 0 fails the bench.  kinit -k "
           "-t\nclient.keytab %s into a FILE ccache removed before each "
           "run;\nkvno %s with the ccache holding only a TGT (a copy\nput in "
           "place before each run, outside the time): one TGS exchange, the\n"
           "ticket stored back in the cache.\n",
           runs, GK5_MIT_CLIENT, GK5_MIT_SERVICE);
    printf("The time is the whole command's: fork and exec, the dynamic "
           "loader and the\nlibraries each program links (gk5: libgk5 and "
           "OpenSSL's libcrypto, and with\n-Dmit MIT's libraries as well, "
           "for its other commands; MIT: libkrb5,\nlibk5crypto and the "
           "rest), OpenSSL 3's initialisation in gk5 (its config\nand first "
           "fetches: about 1.3 ms with OpenSSL 3.0 where this was written),\n"
           "reading krb5.conf and the keytab or the ccache, the round trip to "
           "the KDC\non 127.0.0.1 and the KDC's own work (AS: the client's "
           "key and a TGT; TGS:\nthe TGT checked and a ticket made), writing "
           "the ccache, and the exit.  A gap\nhere that the per-context rows "
           "above do not show is in those.  ms =\nmilliseconds per run, the "
           "median of the runs; min-max = the fastest and the\nslowest run; "
           "MIT/gk5 = MIT ms / gk5 ms (> 1: gk5 faster).\n\n");
    if (s == NULL) {
        cli_error("bench: whole commands: out of memory");
        return 1;
    }
    s->null_fd = -1;
    if (!wc_find_gk5(s, looked, sizeof(looked))) {
        printf("whole commands skipped: gk5 not found (looked for %s)\n",
               looked);
        goto cleanup;
    }
    for (int c = 0; c < WC__COUNT; c++) {
        (void)wc_find_on_path(wc_mit_progs[c], s->mit[c], sizeof(s->mit[c]));
    }
    if (gk5_mit_realm_path(s->client_kt, sizeof(s->client_kt), realm,
                           "client.keytab") != 0 ||
        gk5_mit_realm_path(s->cc_path, sizeof(s->cc_path), realm,
                           "commands.ccache") != 0 ||
        gk5_mit_realm_path(s->err_path, sizeof(s->err_path), realm,
                           "commands.out") != 0 ||
        gk5_mit_realm_path(conf, sizeof(conf), realm, "krb5.conf") != 0) {
        cli_error("bench: whole commands: a path does not fit");
        failures++;
        goto cleanup;
    }
    snprintf(s->conf_env, sizeof(s->conf_env), "KRB5_CONFIG=%s", conf);
    snprintf(s->cc_env, sizeof(s->cc_env), "KRB5CCNAME=FILE:%s", s->cc_path);
    s->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (s->null_fd < 0 || wc_environ(s) != 0) {
        cli_error("bench: whole commands: /dev/null or the environment: %s",
                  strerror(errno));
        failures++;
        goto cleanup;
    }
    printf("gk5: %s; MIT: %s, %s\n\n", s->gk5,
           s->mit[WC_KINIT][0] != '\0' ? s->mit[WC_KINIT]
                                       : "(no kinit on PATH)",
           s->mit[WC_KVNO][0] != '\0' ? s->mit[WC_KVNO] : "(no kvno on PATH)");
    printf("%-32s %7s %7s %7s %13s %13s\n", "command", "gk5 ms", "MIT ms",
           "MIT/gk5", "gk5 min-max", "MIT min-max");
    for (int c = 0; c < WC__COUNT; c++) {
        struct wc_fig fig[WC__PROGS];

        if (s->mit[c][0] == '\0') {
            printf("%-32s skipped: MIT's %s is not on PATH\n", wc_names[c],
                   wc_mit_progs[c]);
            continue;
        }
        if ((c == WC_KVNO && wc_make_tgt(s, &tgt_by) != 0) ||
            wc_measure(s, c, runs, fig) != 0) {
            cli_error("bench: whole commands: %s: %s", wc_names[c], s->why);
            failures++;
            continue;
        }
        wc_print_row(wc_names[c], &fig[WC_GK5], &fig[WC_MIT]);
        if (c == WC_KVNO) {
            printf("%-32s (the TGT-only cache made by %s)\n", "", tgt_by);
        }
    }

cleanup:
    if (s->cc_path[0] != '\0') {
        (void)unlink(s->cc_path);
    }
    if (s->err_path[0] != '\0') {
        (void)unlink(s->err_path);
    }
    if (s->null_fd >= 0) {
        (void)close(s->null_fd);
    }
    free(s->envp);
    free(s->tgt);
    free(s);
    return failures;
}

int bench_init(const struct config *cfg, gk5_mit_realm *realm, unsigned n)
{
    int failures = 0;

    printf("Initiating contexts from a cached ticket: %u per enctype and "
           "configuration,\neach both legs with mutual authentication "
           "(AP-REQ out, AP-REP in), every\nestablished context kept until "
           "all are made.  A FILE ccache holds the TGT\nand a service "
           "ticket of the enctype, got before any clock starts.  acq: gk5\n"
           "from the credential read once from the ccache "
           "(gk5i_initiator_from_cred),\nMIT gss_init_sec_context on a "
           "credential acquired once from the ccache (MIT\nreads the file "
           "each first leg); dflt: gk5_initiator_create (configuration\nand "
           "ccache read each time), MIT with GSS_C_NO_CREDENTIAL.  The "
           "acceptor's\nanswer (gk5_accept, or MIT's "
           "gss_accept_sec_context; no replay cache) is\nmade between the "
           "legs and left out of the time: only the initiator's calls\nare "
           "timed (create + AP-REQ, then AP-REP + finish + free).\n",
           n);
    printf("us = microseconds per context, the median of %u batches (%s);\n"
           "ctx/s = 10^6 / us; g/M = MIT us / gk5 us (> 1: gk5 faster); B = "
           "heap bytes\nheld per established initiator context (in use after "
           "all N, less before, / N);\nallocs = the initiator's heap "
           "allocations per context, gk5/MIT; +-%% = the\nwidest (slowest - "
           "fastest) / fastest batch of the row.\n\n",
           INI_BATCHES,
           cfg->cpu_clock ? "the thread's CPU time, --cpu-clock"
                          : "CLOCK_MONOTONIC");
    printf("%-26s %-4s %7s %7s %6s %9s %9s %7s %7s %6s %9s %5s\n", "enctype",
           "cred", "gk5 us", "MIT us", "g/M", "gk5 ctx/s", "MIT ctx/s", "gk5 B",
           "MIT B", "B g/M", "allocs", "+-%");
    for (size_t i = 0; i < cfg->n_enctypes; i++) {
        struct ini_result r;
        char note[256] = "";
        const char *name = et_name(cfg->enctypes[i]);
        int rc = one_enctype(cfg, realm, cfg->enctypes[i], n, &r, note,
                             sizeof(note));

        if (rc < 0) {
            failures++;
            continue;
        }
        if (rc > 0) {
            printf("%-26s %s\n", name, note);
            continue;
        }
        print_row(name, "acq", &r.fig[CFG_GK5_ACQ], &r.fig[CFG_MIT_ACQ]);
        print_row("", "dflt", &r.fig[CFG_GK5_DFLT], &r.fig[CFG_MIT_DFLT]);
        printf("%-26s %s\n", "", note);
    }
    return failures + bench_commands(cfg, realm);
}
