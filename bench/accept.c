/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench --accept N: what accepting a context costs, gk5's own
 * acceptor (gk5_accept, include/gk5/accept.h) beside MIT krb5's
 * gss_accept_sec_context, for each enctype, in one run.
 *
 * MIT's initiator makes N + ACC_WARM distinct AP-REQs to the realm's
 * service before any clock starts: each the first token of a fresh
 * gss_init_sec_context with mutual authentication (the bench's usual
 * flags), its context deleted once the token is out.  One set serves every
 * configuration, since each accepts it into a replay cache of its own:
 *   gk5 on one gk5_acceptor_cred, replay cache on (the default) and off
 *   (GK5_ACC_NO_RCACHE);
 *   MIT on one credential from gss_acquire_cred_from, its replay cache a
 *   fresh file2: cache in the realm's folder (nothing under /var/tmp), or
 *   none: (the cred store's "rcache": MIT opens the cache when the
 *   credential is acquired, so KRB5RCACHETYPE or KRB5RCACHEDIR changed
 *   later would not reach it).
 * The first ACC_WARM tokens warm up (the last half of them counted by the
 * allocation counter); the N others are accepted in ACC_BATCHES batches
 * and the median batch gives the microseconds per accept.  Every accepted
 * context is kept until the end of the configuration, so the heap in use
 * after all N, less before, is what each costs a server (gk5: the context;
 * its replay cache is one table made whole with the credential, 20 bytes
 * an entry; MIT: its gss context, its cache being on disk).  gk5's
 * credentials with a replay cache are made before the tokens (see
 * gk5_cred_new).  With --threads T the
 * same N tokens are shared out among T threads on one credential (replay
 * cache on) against one thread, a fresh credential each round.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>

#include "bench.h"
#include "cli.h"

#define ACC_WARM 64u
#define ACC_BATCHES 10u
/* Tokens older than this are made again: an authenticator must be
 * within the clock skew (300 s) of its acceptance. */
#define ACC_TOKEN_MAX_AGE 120.0
/* Thread rounds at most (each takes two credentials made ahead). */
#define ACC_THREAD_ROUNDS 5
#define ACC_SPARES (1 + 2 * ACC_THREAD_ROUNDS)

/* Everything one enctype's run shares. */
struct acc_state {
    int32_t et;
    char client_kt[PATH_MAX], service_kt[PATH_MAX];
    char rc_dir[PATH_MAX];
    char rc_name[PATH_MAX + 16]; /* MIT's cache of this configuration */
    unsigned rc_serial;
    gss_buffer_desc *tok; /* ACC_WARM + n of them */
    unsigned n_tok;
    double made_at;
    gk5_acceptor_cred *gcred;
    /* Credentials with a replay cache, made before the tokens. */
    gk5_acceptor_cred *spare[ACC_SPARES];
    unsigned n_spare, next_spare;
    gss_cred_id_t mcred;
    gk5_ctx **g;      /* one slot per token */
    gss_ctx_id_t *m;  /* one slot per token */
    atomic_flag fail; /* set by the first failure, which fills why */
    char why[512];
};

/* "call: words" into why, the first time only (threads may fail
 * together). */
static void failed(struct acc_state *s, const char *call, const char *words)
{
    if (!atomic_flag_test_and_set(&s->fail)) {
        snprintf(s->why, sizeof(s->why), "%s: %s", call, words);
    }
}

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

/* ---- The tokens: MIT's initiator ---- */

static void tokens_free(struct acc_state *s)
{
    OM_uint32 tmp;

    for (unsigned i = 0; s->tok != NULL && i < s->n_tok; i++) {
        (void)gss_release_buffer(&tmp, &s->tok[i]);
    }
    free(s->tok);
    s->tok = NULL;
    s->n_tok = 0;
}

/* n fresh AP-REQs of enctype s->et into s->tok; 0, or -1 with why set.
 * One credential (client keytab, a MEMORY ccache of this run) asks the
 * KDC for the service ticket once; every token after that is made
 * locally. */
static int tokens_make(struct acc_state *s, unsigned n)
{
    char ccache[64], words[512];
    gss_key_value_element_desc el[2] = {{"client_keytab", s->client_kt},
                                        {"ccache", ccache}};
    gss_key_value_set_desc store = {2, el};
    gss_buffer_desc cname = {strlen(GK5_MIT_CLIENT), (void *)GK5_MIT_CLIENT};
    gss_buffer_desc sname = {strlen(GK5_MIT_SERVICE), (void *)GK5_MIT_SERVICE};
    gss_name_t client = GSS_C_NO_NAME, service = GSS_C_NO_NAME;
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    krb5_enctype et = s->et;
    krb5_context kctx = NULL;
    krb5_ccache cc = NULL;
    OM_uint32 major, minor, tmp;
    int ret = -1;

    tokens_free(s);
    snprintf(ccache, sizeof(ccache), "MEMORY:gk5-bench-accept-%ld-%d",
             (long)getpid(), (int)et);
    s->tok = calloc(n, sizeof(*s->tok));
    if (s->tok == NULL) {
        snprintf(s->why, sizeof(s->why), "out of memory for %u tokens", n);
        return -1;
    }
    if (GSS_ERROR(major = gss_import_name(&minor, &cname,
                                          (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                                          &client)) ||
        GSS_ERROR(major = gss_import_name(&minor, &sname,
                                          (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                                          &service))) {
        snprintf(s->why, sizeof(s->why), "gss_import_name: %s",
                 mit_words(major, minor, words, sizeof(words)));
        goto cleanup;
    }
    major = gss_acquire_cred_from(&minor, client, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &store, &cred, NULL, NULL);
    if (GSS_ERROR(major) || GSS_ERROR(major = gss_krb5_set_allowable_enctypes(
                                          &minor, cred, 1, &et))) {
        snprintf(s->why, sizeof(s->why), "the initiator's credential: %s",
                 mit_words(major, minor, words, sizeof(words)));
        goto cleanup;
    }
    for (s->n_tok = 0; s->n_tok < n; s->n_tok++) {
        gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;

        major = gss_init_sec_context(
            &minor, cred, &ctx, service, (gss_OID)gss_mech_krb5,
            GK5_MIT_REQ_FLAGS, 0, GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER,
            NULL, &s->tok[s->n_tok], NULL, NULL);
        (void)gss_delete_sec_context(&tmp, &ctx, GSS_C_NO_BUFFER);
        if (major != GSS_S_CONTINUE_NEEDED) {
            (void)gss_release_buffer(&tmp, &s->tok[s->n_tok]);
            snprintf(s->why, sizeof(s->why),
                     "gss_init_sec_context (token %u): %s", s->n_tok,
                     GSS_ERROR(major)
                         ? mit_words(major, minor, words, sizeof(words))
                         : "complete without the AP-REP: no mutual "
                           "authentication");
            goto cleanup;
        }
    }
    s->made_at = now_s();
    ret = 0;

cleanup:
    (void)gss_release_cred(&tmp, &cred);
    (void)gss_release_name(&tmp, &client);
    (void)gss_release_name(&tmp, &service);
    /* The MEMORY ccache outlives the credential: destroy it. */
    if (krb5_init_context(&kctx) == 0) {
        if (krb5_cc_resolve(kctx, ccache, &cc) == 0) {
            (void)krb5_cc_destroy(kctx, cc);
        }
        krb5_free_context(kctx);
    }
    if (ret != 0) {
        tokens_free(s);
    }
    return ret;
}

/* The tokens again if they are getting old; 0 or -1 with why set. */
static int tokens_fresh(struct acc_state *s)
{
    unsigned n = s->n_tok;

    return now_s() - s->made_at < ACC_TOKEN_MAX_AGE ? 0 : tokens_make(s, n);
}

/* ---- The two acceptors ---- */

/* n credentials with a replay cache (the default options), then a wait
 * for the next second, so that every token made after is younger than
 * each cache; 0 or -1 with why set. */
static int spares_make(struct acc_state *s, unsigned n)
{
    gk5_acceptor_opts opts = {.keytab = s->service_kt,
                              .principal = GK5_MIT_SERVICE};
    struct timespec ts = {0, 10 * 1000 * 1000};
    uint32_t minor = 0, major;
    time_t made;

    for (; s->n_spare < n; s->n_spare++) {
        major = gk5_acceptor_cred_new(&minor, &opts, &s->spare[s->n_spare]);
        if (GK5_ERROR(major)) {
            failed(s, "gk5_acceptor_cred_new",
                   gk5_display_status(major, minor));
            return -1;
        }
    }
    made = time(NULL);
    while (time(NULL) <= made) {
        nanosleep(&ts, NULL);
    }
    return 0;
}

static void spares_free(struct acc_state *s)
{
    for (unsigned i = 0; i < s->n_spare; i++) {
        gk5_acceptor_cred_free(s->spare[i]);
    }
    s->n_spare = s->next_spare = 0;
}

struct acc_impl {
    const char *name;
    int (*cred_new)(struct acc_state *s, bool rcache);
    int (*accept)(struct acc_state *s, unsigned i); /* token i, slot i */
    void (*release)(struct acc_state *s, unsigned i);
    void (*cred_free)(struct acc_state *s);
};

/* A credential with a replay cache comes from those made before the
 * tokens: a new memory-only cache refuses, as replays, authenticators
 * stamped at or before the second it was made, for one clock skew (a
 * restarted server cannot tell what its last life accepted). */
static int gk5_cred_new(struct acc_state *s, bool rcache)
{
    gk5_acceptor_opts opts = {
        .keytab = s->service_kt,
        .principal = GK5_MIT_SERVICE,
        .flags = GK5_ACC_NO_RCACHE,
    };
    uint32_t minor = 0, major;

    if (rcache) {
        if (s->next_spare == s->n_spare) {
            failed(s, "gk5_acceptor_cred_new",
                   "no credential made before the tokens is left");
            return -1;
        }
        s->gcred = s->spare[s->next_spare];
        s->spare[s->next_spare++] = NULL;
        return 0;
    }
    major = gk5_acceptor_cred_new(&minor, &opts, &s->gcred);
    if (GK5_ERROR(major)) {
        failed(s, "gk5_acceptor_cred_new", gk5_display_status(major, minor));
        return -1;
    }
    return 0;
}

static int gk5_acc(struct acc_state *s, unsigned i)
{
    gk5_buffer in = {s->tok[i].length, s->tok[i].value};
    gk5_buffer out = {0, NULL};
    uint32_t minor = 0;
    uint32_t major =
        gk5_accept(&minor, s->gcred, &in, NULL, &out, &s->g[i], NULL);

    gk5_buffer_release(&out);
    if (GK5_ERROR(major)) {
        failed(s, "gk5_accept", gk5_display_status(major, minor));
        return -1;
    }
    return 0;
}

static void gk5_rel(struct acc_state *s, unsigned i)
{
    gk5_ctx_free(s->g[i]);
    s->g[i] = NULL;
}

static void gk5_cred_free(struct acc_state *s)
{
    gk5_acceptor_cred_free(s->gcred);
    s->gcred = NULL;
}

static int mit_cred_new(struct acc_state *s, bool rcache)
{
    gss_key_value_element_desc el[2] = {{"keytab", s->service_kt},
                                        {"rcache", s->rc_name}};
    gss_key_value_set_desc store = {2, el};
    gss_buffer_desc sname = {strlen(GK5_MIT_SERVICE), (void *)GK5_MIT_SERVICE};
    gss_name_t service = GSS_C_NO_NAME;
    OM_uint32 major, minor, tmp;
    char words[512];

    if (rcache) {
        snprintf(s->rc_name, sizeof(s->rc_name), "file2:%s/rc-%u", s->rc_dir,
                 s->rc_serial++);
    } else {
        snprintf(s->rc_name, sizeof(s->rc_name), "none:");
    }
    major = gss_import_name(&minor, &sname, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                            &service);
    if (!GSS_ERROR(major)) {
        major = gss_acquire_cred_from(
            &minor, service, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
            GSS_C_ACCEPT, &store, &s->mcred, NULL, NULL);
    }
    (void)gss_release_name(&tmp, &service);
    if (GSS_ERROR(major)) {
        failed(s, "gss_acquire_cred_from (acceptor)",
               mit_words(major, minor, words, sizeof(words)));
        return -1;
    }
    return 0;
}

static int mit_acc(struct acc_state *s, unsigned i)
{
    gss_buffer_desc in = s->tok[i], out = GSS_C_EMPTY_BUFFER;
    OM_uint32 minor = 0, tmp;
    OM_uint32 major = gss_accept_sec_context(&minor, &s->m[i], s->mcred, &in,
                                             GSS_C_NO_CHANNEL_BINDINGS, NULL,
                                             NULL, &out, NULL, NULL, NULL);
    char words[512];

    (void)gss_release_buffer(&tmp, &out);
    if (major != GSS_S_COMPLETE) {
        failed(s, "gss_accept_sec_context",
               GSS_ERROR(major) ? mit_words(major, minor, words, sizeof(words))
                                : "not complete after the AP-REQ");
        return -1;
    }
    return 0;
}

static void mit_rel(struct acc_state *s, unsigned i)
{
    OM_uint32 tmp;

    (void)gss_delete_sec_context(&tmp, &s->m[i], GSS_C_NO_BUFFER);
}

static void mit_cred_free(struct acc_state *s)
{
    OM_uint32 tmp;

    (void)gss_release_cred(&tmp, &s->mcred);
    if (strncmp(s->rc_name, "file2:", 6) == 0) {
        (void)unlink(s->rc_name + 6);
    }
    s->rc_name[0] = '\0';
}

static const struct acc_impl gk5_impl = {"gk5", gk5_cred_new, gk5_acc, gk5_rel,
                                         gk5_cred_free};
static const struct acc_impl mit_impl = {"MIT", mit_cred_new, mit_acc, mit_rel,
                                         mit_cred_free};

/* ---- One configuration, one thread ---- */

struct acc_fig {
    bool have;
    double us, fastest_us, slowest_us; /* median, best, worst batch */
    double bytes;                      /* heap per accepted context */
    double allocs;                     /* per accept; < 0: not counted */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
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

static void release_all(const struct acc_impl *im, struct acc_state *s)
{
    for (unsigned i = 0; i < s->n_tok; i++) {
        im->release(s, i);
    }
}

static int measure(const struct config *cfg, const struct acc_impl *im,
                   struct acc_state *s, bool rcache, struct acc_fig *f)
{
    unsigned n = s->n_tok - ACC_WARM;
    unsigned nb = n < ACC_BATCHES ? n : ACC_BATCHES;
    double us[ACC_BATCHES], h0;
    unsigned long allocs;
    int ret = -1;

    memset(f, 0, sizeof(*f));
    if (tokens_fresh(s) != 0 || im->cred_new(s, rcache) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < ACC_WARM; i++) {
        if (i == ACC_WARM / 2) {
            alloc_count_start();
        }
        if (im->accept(s, i) != 0) {
            (void)alloc_count_stop();
            goto cleanup;
        }
    }
    allocs = alloc_count_stop();
    f->allocs = alloc_count_available()
                    ? (double)allocs / (ACC_WARM - ACC_WARM / 2)
                    : -1.0;
    h0 = heap_in_use();
    for (unsigned b = 0; b < nb; b++) {
        unsigned lo = ACC_WARM + (unsigned)((uint64_t)n * b / nb);
        unsigned hi = ACC_WARM + (unsigned)((uint64_t)n * (b + 1) / nb);
        double t0 = clock_s(cfg);

        for (unsigned i = lo; i < hi; i++) {
            if (im->accept(s, i) != 0) {
                goto cleanup;
            }
        }
        us[b] = (clock_s(cfg) - t0) / (hi - lo) * 1e6;
    }
    f->bytes = (heap_in_use() - h0) / n;
    qsort(us, nb, sizeof(us[0]), cmp_double);
    f->us = nb % 2 ? us[nb / 2] : (us[nb / 2 - 1] + us[nb / 2]) / 2;
    f->fastest_us = us[0];
    f->slowest_us = us[nb - 1];
    f->have = true;
    ret = 0;

cleanup:
    release_all(im, s);
    im->cred_free(s);
    return ret;
}

/* ---- T threads on one credential ---- */

struct acc_pool {
    const struct acc_impl *im;
    struct acc_state *s;
    atomic_uint next; /* the next token to take */
    unsigned end;
    atomic_int ready;
    atomic_bool go;
};

struct acc_worker {
    pthread_t tid;
    struct acc_pool *p;
    bool ok;
};

static void *pool_main(void *arg)
{
    struct acc_worker *w = arg;
    struct acc_pool *p = w->p;

    atomic_fetch_add(&p->ready, 1);
    while (!atomic_load(&p->go)) {
        sched_yield();
    }
    for (;;) {
        unsigned i = atomic_fetch_add(&p->next, 1);

        if (i >= p->end) {
            break;
        }
        if (p->im->accept(p->s, i) != 0) {
            w->ok = false;
            atomic_store(&p->next, p->end); /* the others stop too */
            break;
        }
    }
    return NULL;
}

/* All N timed tokens accepted by t threads on one fresh credential with
 * its replay cache on; *rate = accepts per second of wall clock. */
static int pool_round(const struct acc_impl *im, struct acc_state *s, int t,
                      double *rate)
{
    struct acc_worker w[MAX_THREADS];
    struct acc_pool p;
    int started = 0, ret = -1;
    double t0;

    if (tokens_fresh(s) != 0 || im->cred_new(s, true) != 0) {
        return -1;
    }
    p.im = im;
    p.s = s;
    atomic_init(&p.next, ACC_WARM);
    p.end = s->n_tok;
    atomic_init(&p.ready, 0);
    atomic_init(&p.go, false);
    for (; started < t; started++) {
        w[started].p = &p;
        w[started].ok = true;
        if (pthread_create(&w[started].tid, NULL, pool_main, &w[started]) !=
            0) {
            failed(s, "pthread_create", "cannot start a thread");
            atomic_store(&p.next, p.end);
            break;
        }
    }
    while (atomic_load(&p.ready) < started) {
        sched_yield();
    }
    t0 = now_s();
    atomic_store(&p.go, true);
    ret = started == t ? 0 : -1;
    for (int i = 0; i < started; i++) {
        pthread_join(w[i].tid, NULL);
        if (!w[i].ok) {
            ret = -1;
        }
    }
    *rate = (s->n_tok - ACC_WARM) / (now_s() - t0);
    release_all(im, s);
    im->cred_free(s);
    return ret;
}

struct acc_thr_fig {
    bool have;
    double one, many;               /* median accepts/s */
    double one_spread, many_spread; /* (best - worst) / best, % */
};

static double median_spread(double *v, int n, double *spread)
{
    qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
    *spread = v[n - 1] > 0 ? 100.0 * (v[n - 1] - v[0]) / v[n - 1] : 0;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int thread_rounds(const struct config *cfg)
{
    return cfg->rounds < ACC_THREAD_ROUNDS ? cfg->rounds : ACC_THREAD_ROUNDS;
}

static int measure_threads(const struct config *cfg, const struct acc_impl *im,
                           struct acc_state *s, struct acc_thr_fig *f)
{
    double one[100], many[100];

    memset(f, 0, sizeof(*f));
    for (int r = 0; r < thread_rounds(cfg); r++) {
        if (pool_round(im, s, 1, &one[r]) != 0 ||
            pool_round(im, s, cfg->threads, &many[r]) != 0) {
            return -1;
        }
    }
    f->one = median_spread(one, thread_rounds(cfg), &f->one_spread);
    f->many = median_spread(many, thread_rounds(cfg), &f->many_spread);
    f->have = true;
    return 0;
}

/* ---- One enctype ---- */

enum { CFG_GK5_RC, CFG_MIT_RC, CFG_GK5_NORC, CFG_MIT_NORC, CFG__COUNT };

struct acc_result {
    int32_t et;
    struct acc_fig fig[CFG__COUNT];
    struct acc_thr_fig thr[2]; /* gk5, MIT */
};

/* Token 0 through each acceptor, without a replay cache, as a check that
 * the run measures what it says: the ticket's session key is of et.
 * 1: gk5 refuses the enctype (said, not a failure); 0; -1. */
static int probe(struct acc_state *s, char *note, size_t note_len)
{
    gk5_acceptor_opts opts = {.keytab = s->service_kt,
                              .principal = GK5_MIT_SERVICE,
                              .flags = GK5_ACC_NO_RCACHE};
    gk5_buffer in = {s->tok[0].length, s->tok[0].value};
    gk5_buffer out = {0, NULL};
    gk5_accept_info info;
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;
    int ret = -1;

    memset(&info, 0, sizeof(info));
    major = gk5_acceptor_cred_new(&minor, &opts, &s->gcred);
    if (GK5_ERROR(major)) {
        failed(s, "gk5_acceptor_cred_new", gk5_display_status(major, minor));
        return -1;
    }
    major = gk5_accept(&minor, s->gcred, &in, NULL, &out, &ctx, &info);
    gk5_buffer_release(&out);
    gk5_ctx_free(ctx);
    gk5_cred_free(s);
    if (GK5_ERROR(major) == GK5_S_UNAVAILABLE) {
        snprintf(note, note_len, "gk5 refuses it: %s",
                 gk5_display_status(major, minor));
        return 1;
    }
    if (GK5_ERROR(major)) {
        failed(s, "gk5_accept", gk5_display_status(major, minor));
        return -1;
    }
    if (info.session_enctype != s->et) {
        failed(s, "the KDC", "issued a session key of another enctype");
        goto cleanup;
    }
    snprintf(note, note_len, "ticket %s, subkey %s",
             et_name(info.ticket_enctype), et_name(info.context_enctype));
    /* MIT's turn, the same token. */
    if (mit_cred_new(s, false) != 0) {
        goto cleanup;
    }
    ret = mit_acc(s, 0);
    mit_rel(s, 0);
    mit_cred_free(s);

cleanup:
    gk5_accept_info_release(&info);
    return ret;
}

static int one_enctype(const struct config *cfg, gk5_mit_realm *realm,
                       int32_t et, unsigned n, struct acc_result *r, char *note,
                       size_t note_len)
{
    static const struct {
        const struct acc_impl *im;
        bool rcache;
    } cfgs[CFG__COUNT] = {
        [CFG_GK5_RC] = {&gk5_impl, true},
        [CFG_MIT_RC] = {&mit_impl, true},
        [CFG_GK5_NORC] = {&gk5_impl, false},
        [CFG_MIT_NORC] = {&mit_impl, false},
    };
    struct acc_state *s = calloc(1, sizeof(*s));
    int ret = -1;

    memset(r, 0, sizeof(*r));
    r->et = et;
    if (s == NULL) {
        cli_error("bench: accept %s: out of memory", et_name(et));
        return -1;
    }
    atomic_flag_clear(&s->fail);
    s->et = et;
    if (gk5_mit_realm_path(s->client_kt, sizeof(s->client_kt), realm,
                           "client.keytab") != 0 ||
        gk5_mit_realm_path(s->service_kt, sizeof(s->service_kt), realm,
                           "service.keytab") != 0 ||
        gk5_mit_realm_path(s->rc_dir, sizeof(s->rc_dir), realm,
                           "accept-rcache") != 0 ||
        (mkdir(s->rc_dir, 0700) != 0 && errno != EEXIST)) {
        snprintf(s->why, sizeof(s->why), "no folder for the replay caches");
        goto cleanup;
    }
    s->g = calloc(ACC_WARM + n, sizeof(*s->g));
    s->m = calloc(ACC_WARM + n, sizeof(*s->m));
    if (s->g == NULL || s->m == NULL) {
        snprintf(s->why, sizeof(s->why), "out of memory for %u contexts", n);
        goto cleanup;
    }
    if (spares_make(s, 1 + (cfg->threads > 1 ? 2 * thread_rounds(cfg) : 0)) !=
            0 ||
        tokens_make(s, ACC_WARM + n) != 0) {
        goto cleanup;
    }
    ret = probe(s, note, note_len);
    if (ret != 0) {
        ret = ret > 0 ? 1 : -1;
        goto cleanup;
    }
    ret = -1;
    for (int c = 0; c < CFG__COUNT; c++) {
        if (measure(cfg, cfgs[c].im, s, cfgs[c].rcache, &r->fig[c]) != 0) {
            goto cleanup;
        }
    }
    if (cfg->threads > 1 &&
        (measure_threads(cfg, &gk5_impl, s, &r->thr[0]) != 0 ||
         measure_threads(cfg, &mit_impl, s, &r->thr[1]) != 0)) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (ret < 0) {
        cli_error("bench: accept %s: %s", et_name(et), s->why);
    }
    tokens_free(s);
    spares_free(s);
    free(s->g);
    free(s->m);
    if (s->rc_dir[0] != '\0') {
        (void)rmdir(s->rc_dir);
    }
    free(s);
    return ret;
}

/* ---- The report ---- */

static void print_row(const char *name, const char *rc, const struct acc_fig *g,
                      const struct acc_fig *m)
{
    double spread = 0;
    char al[32];

    for (int i = 0; i < 2; i++) {
        const struct acc_fig *f = i == 0 ? g : m;
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
           name, rc, g->us, m->us, g->us > 0 ? m->us / g->us : 0, 1e6 / g->us,
           1e6 / m->us, g->bytes, m->bytes,
           m->bytes > 0 ? g->bytes / m->bytes : 0, al, spread);
}

static void print_threads(const struct config *cfg,
                          const struct acc_result *res, size_t n)
{
    printf(
        "\nThreads: %d on one credential (replay cache on: gk5's in memory, "
        "MIT's file2:\ncache, each round a fresh one) share the same AP-REQs "
        "out, against 1 thread\non the same.  Aggregate accepts per second "
        "of wall clock, the median of %d\nround%s; scaling = %d threads / 1 "
        "thread; g/M = gk5 / MIT with %d threads.\n",
        cfg->threads, thread_rounds(cfg), thread_rounds(cfg) == 1 ? "" : "s",
        cfg->threads, cfg->threads);
    printf("%-26s %9s %9s %7s %9s %9s %7s %6s %5s\n", "enctype", "gk5 1thr",
           "gk5 Nthr", "scaling", "MIT 1thr", "MIT Nthr", "scaling", "g/M",
           "+-%");
    for (size_t i = 0; i < n; i++) {
        const struct acc_thr_fig *g = &res[i].thr[0], *m = &res[i].thr[1];
        double sp = 0, v[4];

        if (!g->have || !m->have) {
            continue;
        }
        v[0] = g->one_spread;
        v[1] = g->many_spread;
        v[2] = m->one_spread;
        v[3] = m->many_spread;
        for (int k = 0; k < 4; k++) {
            sp = v[k] > sp ? v[k] : sp;
        }
        printf("%-26s %9.0f %9.0f %7.2f %9.0f %9.0f %7.2f %6.2f %5.1f\n",
               et_name(res[i].et), g->one, g->many, g->many / g->one, m->one,
               m->many, m->many / m->one, g->many / m->many, sp);
    }
}

int bench_accept(const struct config *cfg, gk5_mit_realm *realm, unsigned n)
{
    struct acc_result res[MAX_ENCTYPES];
    size_t n_res = 0;
    int failures = 0;

    printf("Accepting contexts: %u distinct AP-REQs per enctype, made by "
           "MIT's initiator\n(gss_init_sec_context, mutual authentication; "
           "each a fresh context's first\ntoken) before the clock starts, "
           "then accepted one after another, every\ncontext kept until all "
           "are in.  gk5: gk5_accept on one gk5_acceptor_cred;\nMIT: "
           "gss_accept_sec_context on one credential from "
           "gss_acquire_cred_from\n(the service keytab).  rc = the replay "
           "cache: on (gk5's in memory; MIT's a\nfresh file2: cache in the "
           "realm's folder) or off (GK5_ACC_NO_RCACHE; MIT's\nnone:).  Each "
           "configuration starts with an empty cache of its own.\n",
           n);
    printf("us = microseconds per accept (AP-REP made and released), the "
           "median of %u\nbatches (%s); acc/s = 10^6 / us; g/M = gk5 "
           "acc/s / MIT acc/s (> 1:\ngk5 faster); B = heap bytes held per "
           "accepted context (in use after all N,\nless before, / N; gk5's "
           "replay cache is a table made with the credential,\n20 bytes an "
           "entry, MIT's is on disk); allocs = heap allocations per "
           "accept,\ngk5/MIT; +-%% = the widest (slowest - fastest) / "
           "fastest batch of the row.\nUnder each enctype: the ticket's "
           "enctype (the service key the KDC chose) and\nthe acceptor "
           "subkey's.\n\n",
           ACC_BATCHES,
           cfg->cpu_clock ? "the thread's CPU time, --cpu-clock"
                          : "CLOCK_MONOTONIC");
    printf("%-26s %-4s %7s %7s %6s %9s %9s %7s %7s %6s %9s %5s\n", "enctype",
           "rc", "gk5 us", "MIT us", "g/M", "gk5 acc/s", "MIT acc/s", "gk5 B",
           "MIT B", "B g/M", "allocs", "+-%");
    for (size_t i = 0; i < cfg->n_enctypes; i++) {
        struct acc_result *r = &res[n_res];
        char note[256] = "";
        const char *name = et_name(cfg->enctypes[i]);
        int rc =
            one_enctype(cfg, realm, cfg->enctypes[i], n, r, note, sizeof(note));

        if (rc < 0) {
            failures++;
            continue;
        }
        if (rc > 0) {
            printf("%-26s %s\n", name, note);
            continue;
        }
        n_res++;
        print_row(name, "on", &r->fig[CFG_GK5_RC], &r->fig[CFG_MIT_RC]);
        print_row("", "off", &r->fig[CFG_GK5_NORC], &r->fig[CFG_MIT_NORC]);
        printf("%-26s %s\n", "", note);
    }
    if (cfg->threads > 1 && n_res > 0) {
        print_threads(cfg, res, n_res);
    }
    return failures;
}
