/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 storm: many RPCSEC_GSS contexts against a running NFSv4 server,
 * made by gk5's own initiator over several connections, as fast as it
 * can.  Built with libtirpc only (many contexts on one connection, as
 * gk5's AUTHs on one CLIENT); gk5 nfs4 (cli_nfs4.c) runs it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <pthread.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/tickets.h>

#include "cli.h"
#include "client.h"
#include "common/bytes.h"

/* Establish many RPCSEC_GSS contexts against a running server, as fast as
 * it can, with gk5's own initiator over several connections (one thread and
 * one TCP connection each): contexts per second, and, given the server's
 * PID, its resident memory and CPU time per context.  The service ticket is
 * in a FILE ccache before the timed phase (got once with gk5_kinit and
 * gk5_kvno), so each context is one fresh AP-REQ and one round trip: no
 * KDC exchange while timed, which the ccache's unchanged size and mtime
 * show.  Every context is then (untimed) used for one krb5p COMPOUND that
 * WRITEs and READs back, and compared; contexts stay open until the end,
 * then each is destroyed (RPCSEC_GSS_DESTROY). */

#define STORM_CHECK_BYTES 128u
/* The check's WRITEs cycle over this many slots of STORM_CHECK_BYTES in
 * the connection's file (128 KiB: far below MEM's Inode_Size). */
#define STORM_CHECK_SLOTS 1024u
/* Unanswered check calls in a row that end a connection's check. */
#define STORM_MAX_SILENT 3u
/* gk5_initiator_create and its AP-REQ, measured alone (no server). */
#define STORM_CALIBRATE 200u

/* What the server's /proc says at one moment. */
struct storm_proc {
    bool ok;
    uint64_t rss_kib;   /* VmRSS */
    uint64_t cpu_ticks; /* utime + stime, clock ticks */
};

enum storm_phase { STORM_WARM, STORM_MAKE, STORM_CHECK, STORM_DESTROY };

struct storm_conn {
    pthread_t tid;
    const struct nfs4_args *a;
    const gk5_rpc_auth_options *opts;
    pthread_barrier_t *start;
    enum storm_phase phase;
    CLIENT *clnt;
    AUTH *home;  /* the CLIENT's own AUTH (AUTH_NONE), put back after use */
    AUTH **auth; /* this connection's contexts */
    unsigned n;  /* how many it makes */
    unsigned made;
    unsigned checked, failed;
    struct nfs4_open_file f; /* the check's file */
    char name[64];
    bool opened;
    const uint8_t *seed; /* the run's random bytes, for the check's data */
    unsigned index;
    unsigned rep;
    char err[768]; /* the first failure, in words */
};

struct storm_rep {
    double rate, wall, srv_cpu_us, cli_cpu_us, kib_per_ctx;
    struct storm_proc before, after, checked, destroyed;
    unsigned checked_n, failed_n;
};

static bool storm_read_proc(long pid, struct storm_proc *p)
{
    char path[64], line[512];
    FILE *f;
    unsigned long long ut = 0, st = 0;
    bool rss = false;

    memset(p, 0, sizeof(*p));
    if (pid <= 0) {
        return false;
    }
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long v;
        if (sscanf(line, "VmRSS: %llu kB", &v) == 1) {
            p->rss_kib = v;
            rss = true;
        }
    }
    fclose(f);
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    /* The command name is in parentheses and may hold spaces: the fields
     * counted from the last ')'; utime and stime are fields 14 and 15. */
    bool got = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    const char *paren = got ? strrchr(line, ')') : NULL;
    if (!rss || paren == NULL ||
        sscanf(paren + 1,
               " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
               &st) != 2) {
        return false;
    }
    p->cpu_ticks = ut + st;
    p->ok = true;
    return true;
}

static double storm_cpu_seconds(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return 0;
    }
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The bytes context k of connection c writes in the check. */
static void storm_pattern(const struct storm_conn *c, unsigned k, uint8_t *buf)
{
    for (unsigned j = 0; j < STORM_CHECK_BYTES; j++) {
        buf[j] = (uint8_t)(c->seed[j % 32] ^ (k * 131u + j) ^ (k >> 8) ^
                           (c->index << 3) ^ (c->rep * 17u));
    }
}

/* One krb5p COMPOUND on context k: PUTFH, WRITE, READ of the same bytes;
 * 0, or -1 with the reason in c->err (first failure only), -2 when the
 * server did not answer in time. */
static int storm_check_one(struct storm_conn *c, unsigned k)
{
    nfs4_argop ops[3];
    nfs4_resop r[3];
    nfs4_compound_res res = {.ops = r, .max = 3};
    uint8_t data[STORM_CHECK_BYTES], back[STORM_CHECK_BYTES];
    uint64_t off = (uint64_t)(k % STORM_CHECK_SLOTS) * STORM_CHECK_BYTES;
    struct timeval tv = {(time_t)(c->a->timeout_ms / 1000),
                         (suseconds_t)(c->a->timeout_ms % 1000) * 1000};
    char words[512];
    enum clnt_stat st;

    storm_pattern(c, k, data);
    memset(ops, 0, sizeof(ops));
    memset(r, 0, sizeof(r));
    ops[0] = nfs4_putfh(&c->f.fh);
    ops[1].op = OP_WRITE;
    ops[1].u.write.stateid = c->f.stateid;
    ops[1].u.write.offset = off;
    ops[1].u.write.stable = FILE_SYNC4;
    ops[1].u.write.data = data;
    ops[1].u.write.len = STORM_CHECK_BYTES;
    ops[2].op = OP_READ;
    ops[2].u.read.stateid = c->f.stateid;
    ops[2].u.read.offset = off;
    ops[2].u.read.count = STORM_CHECK_BYTES;
    r[2].u.read.buf = back;
    r[2].u.read.cap = sizeof(back);
    c->clnt->cl_auth = c->auth[k];
    st = nfs4_compound(c->clnt, ops, 3, &res, tv);
    c->clnt->cl_auth = c->home;
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(c->clnt, c->auth[k], "WRITE+READ", words,
                           sizeof(words));
    } else if (res.status != NFS4_OK || res.n != 3) {
        snprintf(words, sizeof(words), "%s", nfs4_compound_error(&res));
    } else if (r[1].u.write.count != STORM_CHECK_BYTES ||
               r[2].u.read.len != STORM_CHECK_BYTES ||
               memcmp(back, data, STORM_CHECK_BYTES) != 0) {
        snprintf(words, sizeof(words),
                 "wrote %u bytes at %" PRIu64 ", read back %u that %s",
                 (unsigned)r[1].u.write.count, off, (unsigned)r[2].u.read.len,
                 r[2].u.read.len == STORM_CHECK_BYTES ? "differ"
                                                      : "fall short");
    } else {
        gk5_rpc_auth_info info;

        /* A server that lost the context answers CREDPROBLEM and the AUTH
         * makes a new one: the call passes, the context did not. */
        if (gk5_rpc_auth_inquire(c->auth[k], &info) == 0 &&
            info.established == 1) {
            return 0;
        }
        snprintf(words, sizeof(words),
                 "the server no longer knew the context: the call went on a "
                 "new one (%u made for this AUTH)",
                 (unsigned)info.established);
    }
    if (c->err[0] == '\0') {
        snprintf(c->err, sizeof(c->err), "connection %u, context %u: %s",
                 c->index, k, words);
    }
    return st == RPC_TIMEDOUT ? -2 : -1;
}

static void *storm_conn_main(void *arg)
{
    struct storm_conn *c = arg;
    gk5_rpc_error e;

    (void)pthread_barrier_wait(c->start);
    switch (c->phase) {
    case STORM_WARM:
        /* One context made and destroyed: the server's first-time work
         * (its credential, its caches) is not timed. */
        memset(&e, 0, sizeof(e));
        AUTH *w = gk5_rpc_auth_create(c->clnt, c->a->target,
                                      GK5_RPC_SVC_PRIVACY, c->opts, &e);
        if (w == NULL) {
            snprintf(c->err, sizeof(c->err),
                     "connection %u: cannot establish RPCSEC_GSS krb5p with "
                     "%s: %s",
                     c->index, c->a->target,
                     e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
            c->failed++;
            break;
        }
        auth_destroy(w);
        break;
    case STORM_MAKE:
        for (c->made = 0; c->made < c->n; c->made++) {
            memset(&e, 0, sizeof(e));
            c->auth[c->made] = gk5_rpc_auth_create(
                c->clnt, c->a->target, GK5_RPC_SVC_PRIVACY, c->opts, &e);
            if (c->auth[c->made] == NULL) {
                snprintf(c->err, sizeof(c->err),
                         "connection %u, context %u: cannot establish "
                         "RPCSEC_GSS krb5p with %s: %s",
                         c->index, c->made, c->a->target,
                         e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
                c->failed++;
                break;
            }
        }
        break;
    case STORM_CHECK: {
        unsigned silent = 0;

        for (unsigned k = 0; k < c->made; k++) {
            int rc = storm_check_one(c, k);

            if (rc == 0) {
                c->checked++;
                silent = 0;
                continue;
            }
            c->failed++;
            silent = rc == -2 ? silent + 1 : 0;
            if (silent == STORM_MAX_SILENT && k + 1 < c->made) {
                /* Each would wait out its timeout: stop here. */
                size_t used = strlen(c->err);
                snprintf(c->err + used, sizeof(c->err) - used,
                         "; %u calls in a row went unanswered: the last %u "
                         "contexts were not tried",
                         silent, c->made - k - 1);
                c->failed += c->made - k - 1;
                break;
            }
        }
        break;
    }
    case STORM_DESTROY:
        for (unsigned k = 0; k < c->made; k++) {
            auth_destroy(c->auth[k]); /* RPCSEC_GSS_DESTROY */
            c->auth[k] = NULL;
        }
        c->made = 0;
        break;
    }
    return NULL;
}

/* Run phase on every connection at once; its wall time in seconds (and
 * this process's CPU seconds in *cpu when not NULL), or -1 when a thread
 * could not start. */
static double storm_phase(struct storm_conn *c, unsigned n,
                          enum storm_phase phase, double *cpu)
{
    pthread_barrier_t start;
    double t0, t1, c0;

    if (pthread_barrier_init(&start, NULL, n + 1) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        c[i].phase = phase;
        c[i].start = &start;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&c[i].tid, NULL, storm_conn_main, &c[i]) != 0) {
            /* The barrier would never open: give up on the process. */
            cli_error("nfs4 storm: cannot start a thread");
            exit(CLI_EXIT_FAIL);
        }
    }
    c0 = storm_cpu_seconds();
    t0 = cli_now_s();
    (void)pthread_barrier_wait(&start);
    for (unsigned i = 0; i < n; i++) {
        pthread_join(c[i].tid, NULL);
    }
    t1 = cli_now_s();
    if (cpu != NULL) {
        *cpu = storm_cpu_seconds() - c0;
    }
    pthread_barrier_destroy(&start);
    return t1 - t0;
}

/* The ccache file's size and modification time: a TGS exchange while
 * timed would have appended its ticket. */
static bool storm_ccache_stamp(const char *path, struct stat *st)
{
    return path != NULL && stat(path, st) == 0;
}

static bool storm_ccache_same(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_ino == b->st_ino &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The initiator's credentials, before anything is timed: the client
 * keytab's TGT (gk5_kinit) into a private FILE ccache when no --ccache is
 * given, then the service ticket (gk5_kvno, from the KDC unless the cache
 * holds one).  *ccache gets the name the contexts use, *path its file,
 * *dir the private folder to remove (or NULL).  0, or -1 with the error
 * printed. */
static int storm_credentials(const struct nfs4_args *a, char **ccache,
                             char **path, char **dir, int32_t *session_et)
{
    uint32_t major, minor = 0;
    char service[300], words[256];
    const char *at = strchr(a->target, '@');

    *ccache = *path = *dir = NULL;
    if (strchr(a->target, '/') != NULL || at == NULL) {
        snprintf(service, sizeof(service), "%s", a->target);
    } else {
        snprintf(service, sizeof(service), "%.*s/%s", (int)(at - a->target),
                 a->target, at + 1);
    }
    if (a->ccache == NULL && a->client_keytab != NULL) {
        const char *tmp = getenv("TMPDIR");
        char d[PATH_MAX];
        gk5_kinit_info ki;

        if (tmp == NULL || tmp[0] != '/') {
            tmp = "/tmp";
        }
        snprintf(d, sizeof(d), "%s/gk5-storm-XXXXXX", tmp);
        if (mkdtemp(d) == NULL) {
            cli_error("%s: cannot make a folder for the ccache under %s: %s",
                      a->cmd, tmp, strerror(errno));
            return -1;
        }
        *dir = strdup(d);
        size_t n = strlen(d) + sizeof("FILE:/ccache");
        *ccache = malloc(n);
        if (*dir == NULL || *ccache == NULL) {
            cli_error("%s: out of memory", a->cmd);
            return -1;
        }
        snprintf(*ccache, n, "FILE:%s/ccache", d);
        gk5_kinit_opts ko = {
            .ccache = *ccache,
            .principal = a->client_principal,
            .keytab = a->client_keytab,
        };
        major = gk5_kinit(&minor, &ko, &ki);
        gk5_kinit_info_release(&ki);
        if (GK5_ERROR(major) != 0) {
            cli_error("%s: kinit with the keytab %s: %s", a->cmd,
                      a->client_keytab,
                      cli_gss_words(major, minor, words, sizeof(words)));
            return -1;
        }
    } else if (a->ccache != NULL) {
        *ccache = strdup(a->ccache);
        if (*ccache == NULL) {
            cli_error("%s: out of memory", a->cmd);
            return -1;
        }
    }
    gk5_kvno_opts vo = {
        .ccache = *ccache,
        .enctypes = a->n_enctypes > 0 ? a->enctypes : NULL,
        .n_enctypes = a->n_enctypes,
    };
    gk5_kvno_info vi;
    major = gk5_kvno(&minor, service, &vo, &vi);
    *session_et = vi.session_enctype;
    if (GK5_ERROR(major) == 0 && vi.ccache != NULL) {
        *path = strdup(vi.ccache);
    }
    gk5_kvno_info_release(&vi);
    if (GK5_ERROR(major) != 0) {
        cli_error("%s: the service ticket for %s: %s", a->cmd, service,
                  cli_gss_words(major, minor, words, sizeof(words)));
        return -1;
    }
    if (*path == NULL) {
        cli_error("%s: out of memory", a->cmd);
        return -1;
    }
    return 0;
}

/* What one context costs this client outside the RPC: gk5_initiator_create
 * (krb5.conf and the ccache read, the ticket found there) and the AP-REQ
 * (gk5_initiator_step), CPU microseconds each, measured alone. */
static int storm_calibrate(const struct nfs4_args *a, const char *ccache,
                           unsigned n, double *create_us, double *apreq_us)
{
    struct timespec t0, t1, t2;
    double create = 0, apreq = 0;
    char words[256];

    for (unsigned i = 0; i < n; i++) {
        gk5_initiator_opts io = {
            .ccache = ccache,
            .enctypes = a->n_enctypes > 0 ? a->enctypes : NULL,
            .n_enctypes = a->n_enctypes,
            .req_flags = GK5_C_MUTUAL_FLAG | GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG,
            .principal = a->client_principal,
        };
        gk5_initiator *init = NULL;
        gk5_buffer tok = {0, NULL};
        uint32_t minor = 0, major;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        major = gk5_initiator_create(&minor, a->target, &io, &init);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        if (GK5_ERROR(major) == 0) {
            major = gk5_initiator_step(&minor, init, NULL, &tok);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t2);
        gk5_buffer_release(&tok);
        gk5_initiator_free(init);
        if (GK5_ERROR(major) != 0) {
            cli_error("%s: gk5's initiator for %s: %s", a->cmd, a->target,
                      cli_gss_words(major, minor, words, sizeof(words)));
            return -1;
        }
        create += (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
        apreq += (double)(t2.tv_sec - t1.tv_sec) * 1e6 +
                 (double)(t2.tv_nsec - t1.tv_nsec) / 1e3;
    }
    *create_us = create / n;
    *apreq_us = apreq / n;
    return 0;
}

/* The check's files: one per connection, opened (created) by a client of
 * its own with its own krb5p context; NFSv4.0 stateids are the client's,
 * not a context's, so every context of the run may use them. */
static int storm_files_open(struct nfs4_client *setup,
                            const struct nfs4_args *a, struct storm_conn *c,
                            unsigned n)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int k = nfs4_split_path(a->path, buf, sizeof(buf), comp);

    if (k < 0) {
        cli_error("%s: '%s' is not a usable path", a->cmd, a->path);
        return -1;
    }
    if (nfs4_client_open(setup, a) != 0 ||
        nfs4_client_walk(setup, comp, k, a->path, &dir, &attrs) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        snprintf(c[i].name, sizeof(c[i].name), "gk5-storm-%ld-%u",
                 (long)getpid(), i);
        if (nfs4_client_open_file(setup, &dir, c[i].name, true, c[i].name,
                                  &c[i].f) != 0) {
            return -1;
        }
        c[i].opened = true;
    }
    return 0;
}

static void storm_files_close(struct nfs4_client *setup,
                              const struct nfs4_args *a, struct storm_conn *c,
                              unsigned n)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int k = nfs4_split_path(a->path, buf, sizeof(buf), comp);
    bool have_dir = false;

    for (unsigned i = 0; i < n; i++) {
        if (!c[i].opened) {
            continue;
        }
        (void)nfs4_client_close_file(setup, &c[i].f, c[i].name);
        if (!have_dir) {
            have_dir = k >= 0 && nfs4_client_walk(setup, comp, k, a->path, &dir,
                                                  &attrs) == 0;
        }
        if (have_dir) {
            nfs4_argop ops[2];
            nfs4_resop r[2];

            memset(ops, 0, sizeof(ops));
            ops[0] = nfs4_putfh(&dir);
            ops[1].op = OP_REMOVE;
            ops[1].u.remove.name = c[i].name;
            (void)nfs4_client_call(setup, ops, 2, r, c[i].name);
        }
        c[i].opened = false;
    }
    nfs4_client_close(setup);
}

static int storm_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b ? 1 : 0;
}

/* The median of n values (sorted in place). */
static double storm_median(double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), storm_cmp_double);
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One repetition: connect, warm up, the timed storm, the krb5p check,
 * destroy, disconnect.  0, or -1 with the error printed (r filled as far
 * as it got). */
static int storm_rep(const struct nfs4_args *a, const struct storm_opts *o,
                     const gk5_rpc_auth_options *opts, const char *cc_path,
                     const uint8_t *seed, unsigned rep, struct storm_conn *c,
                     struct storm_rep *r)
{
    unsigned per = o->contexts / o->connections;
    unsigned extra = o->contexts % o->connections;
    struct nfs4_client setup;
    struct stat cc0, cc1;
    char err[512];
    double cpu = 0, ticks = (double)sysconf(_SC_CLK_TCK);
    int ret = -1;

    memset(r, 0, sizeof(*r));
    memset(&setup, 0, sizeof(setup));
    memset(c, 0, o->connections * sizeof(*c));
    for (unsigned i = 0; i < o->connections; i++) {
        c[i].a = a;
        c[i].opts = opts;
        c[i].seed = seed;
        c[i].index = i;
        c[i].rep = rep;
        c[i].n = per + (i < extra ? 1 : 0);
        c[i].auth = calloc(c[i].n > 0 ? c[i].n : 1, sizeof(AUTH *));
        if (c[i].auth == NULL) {
            cli_error("%s: out of memory", a->cmd);
            goto cleanup;
        }
        if (cli_rpc_connect(a->hostport, NFS4_PROGRAM, NFS4_VERSION, &c[i].clnt,
                            err, sizeof(err)) != 0) {
            cli_error("%s: %s", a->cmd, err);
            goto cleanup;
        }
        c[i].home = c[i].clnt->cl_auth;
    }
    if (storm_phase(c, o->connections, STORM_WARM, NULL) < 0) {
        goto cleanup;
    }
    for (unsigned i = 0; i < o->connections; i++) {
        if (c[i].failed != 0) {
            cli_error("%s: warming up: %s", a->cmd, c[i].err);
            goto cleanup;
        }
    }

    /* The timed phase: nothing but contexts being made. */
    (void)storm_read_proc(o->server_pid, &r->before);
    if (!storm_ccache_stamp(cc_path, &cc0)) {
        cli_error("%s: %s: %s", a->cmd, cc_path, strerror(errno));
        goto cleanup;
    }
    r->wall = storm_phase(c, o->connections, STORM_MAKE, &cpu);
    (void)storm_read_proc(o->server_pid, &r->after);
    if (r->wall < 0) {
        goto cleanup;
    }
    unsigned made = 0;
    for (unsigned i = 0; i < o->connections; i++) {
        made += c[i].made;
        if (c[i].failed != 0) {
            cli_error("%s: %s", a->cmd, c[i].err);
        }
    }
    if (made != o->contexts) {
        cli_error("%s: repetition %u: %u of %u contexts established", a->cmd,
                  rep, made, o->contexts);
        goto cleanup;
    }
    if (!storm_ccache_stamp(cc_path, &cc1) || !storm_ccache_same(&cc0, &cc1)) {
        cli_error("%s: the ccache %s changed while contexts were made: the "
                  "initiator went to the KDC, so the time is not "
                  "establishment alone",
                  a->cmd, cc_path);
        goto cleanup;
    }
    r->rate = r->wall > 0 ? o->contexts / r->wall : 0;
    r->cli_cpu_us = cpu * 1e6 / o->contexts;
    if (r->before.ok && r->after.ok) {
        r->srv_cpu_us = (double)(r->after.cpu_ticks - r->before.cpu_ticks) /
                        ticks * 1e6 / o->contexts;
        r->kib_per_ctx =
            ((double)r->after.rss_kib - (double)r->before.rss_kib) /
            o->contexts;
    }

    /* Untimed: every context carries one krb5p WRITE and READ. */
    if (storm_files_open(&setup, a, c, o->connections) != 0 ||
        storm_phase(c, o->connections, STORM_CHECK, NULL) < 0) {
        goto cleanup;
    }
    (void)storm_read_proc(o->server_pid, &r->checked);
    for (unsigned i = 0; i < o->connections; i++) {
        r->checked_n += c[i].checked;
        r->failed_n += c[i].failed;
        if (c[i].failed != 0) {
            cli_error("%s: krb5p check: %u context%s failed; the first: %s",
                      a->cmd, c[i].failed, c[i].failed == 1 ? "" : "s",
                      c[i].err);
        }
    }
    ret = r->failed_n == 0 && r->checked_n == o->contexts ? 0 : -1;

cleanup:
    storm_files_close(&setup, a, c, o->connections);
    (void)storm_phase(c, o->connections, STORM_DESTROY, NULL);
    (void)storm_read_proc(o->server_pid, &r->destroyed);
    for (unsigned i = 0; i < o->connections; i++) {
        if (c[i].clnt != NULL) {
            c[i].clnt->cl_auth = c[i].home;
            clnt_destroy(c[i].clnt);
        }
        free(c[i].auth);
        c[i].clnt = NULL;
        c[i].auth = NULL;
    }
    return ret;
}

static void storm_kib(char *buf, size_t len, const struct storm_proc *p)
{
    if (p->ok) {
        snprintf(buf, len, "%" PRIu64, p->rss_kib);
    } else {
        snprintf(buf, len, "-");
    }
}

int cli_nfs4_storm(struct nfs4_args *a, const struct storm_opts *o)
{
    static struct storm_conn c[STORM_MAX_CONNECTIONS];
    struct storm_rep *reps = NULL;
    double *v = NULL;
    char *ccache = NULL, *cc_path = NULL, *dir = NULL;
    int32_t session_et = 0;
    uint8_t seed[32];
    double create_us = 0, apreq_us = 0;
    unsigned done = 0, checked = 0, failed = 0;
    int ret = CLI_EXIT_FAIL;
    gk5_enctype_desc ed;

    if (RAND_bytes(seed, sizeof(seed)) != 1) {
        cli_error("%s: no random bytes for the check's data", a->cmd);
        return CLI_EXIT_FAIL;
    }
    reps = calloc(o->repeat, sizeof(*reps));
    v = calloc(o->repeat, sizeof(*v));
    if (reps == NULL || v == NULL) {
        cli_error("%s: out of memory", a->cmd);
        goto cleanup;
    }
    if (storm_credentials(a, &ccache, &cc_path, &dir, &session_et) != 0) {
        goto cleanup;
    }
    if (storm_calibrate(a, cc_path,
                        o->contexts < STORM_CALIBRATE ? o->contexts
                                                      : STORM_CALIBRATE,
                        &create_us, &apreq_us) != 0) {
        goto cleanup;
    }
    /* Every context (and the check's own client) reads this cache: the
     * keytab has done its part. */
    a->ccache = cc_path;
    a->client_keytab = NULL;
    gk5_rpc_auth_options opts;
    memset(&opts, 0, sizeof(opts));
    opts.principal = a->client_principal;
    opts.ccache = cc_path;
    opts.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
    opts.n_enctypes = a->n_enctypes;
    opts.timeout_ms = a->timeout_ms;
    opts.establish = GK5_RPC_ESTABLISH_NATIVE;

    printf("gk5 nfs4 storm: %s, %s, %u contexts over %u connection%s (one "
           "TCP connection and thread each), %u repetition%s\n",
           a->hostport, a->target, o->contexts, o->connections,
           o->connections == 1 ? "" : "s", o->repeat,
           o->repeat == 1 ? "" : "s");
    printf("initiator: gk5's own; the service ticket (%s session key) from "
           "the FILE ccache %s, which the timed phase must leave unwritten "
           "(no KDC exchange)\n",
           gk5_enctype_describe(session_et, &ed) == GK5_OK ? ed.name : "?",
           cc_path);
    printf("client CPU per context outside the RPC, measured alone: "
           "gk5_initiator_create %.1f us (krb5.conf parsed and the ccache "
           "read each time), AP-REQ %.1f us\n",
           create_us, apreq_us);
    if (o->server_pid > 0) {
        struct storm_proc p;
        if (!storm_read_proc(o->server_pid, &p)) {
            cli_error("%s: --server-pid %ld: cannot read /proc/%ld/status "
                      "and /proc/%ld/stat",
                      a->cmd, o->server_pid, o->server_pid, o->server_pid);
            goto cleanup;
        }
        printf("server: PID %ld; RSS (VmRSS) rss0 before the storm, rss1 "
               "with every context made, rss2 after the check, rss3 after "
               "RPCSEC_GSS_DESTROY; srv-us/c its CPU (utime+stime, in "
               "ticks of %.0f ms: coarse for few contexts) per context while "
               "timed; cli-us/c this process's\n",
               o->server_pid, 1e3 / (double)sysconf(_SC_CLK_TCK));
    }
    printf("%-4s %11s %8s %9s %9s %10s %10s %8s %13s %10s %10s\n", "rep",
           "contexts/s", "wall-s", "srv-us/c", "cli-us/c", "rss0-KiB",
           "rss1-KiB", "KiB/ctx", "krb5p-check", "rss2-KiB", "rss3-KiB");
    ret = CLI_EXIT_OK;
    for (unsigned k = 0; k < o->repeat; k++) {
        struct storm_rep *r = &reps[k];
        char b0[24], b1[24], b2[24], b3[24], srv[24] = "-", kib[24] = "-",
                                             chk[40];
        int rc = storm_rep(a, o, &opts, cc_path, seed, k + 1, c, r);

        storm_kib(b0, sizeof(b0), &r->before);
        storm_kib(b1, sizeof(b1), &r->after);
        storm_kib(b2, sizeof(b2), &r->checked);
        storm_kib(b3, sizeof(b3), &r->destroyed);
        if (r->before.ok && r->after.ok) {
            snprintf(srv, sizeof(srv), "%.1f", r->srv_cpu_us);
            snprintf(kib, sizeof(kib), "%.2f", r->kib_per_ctx);
        }
        snprintf(chk, sizeof(chk), "%u/%u %s", r->checked_n, o->contexts,
                 r->checked_n == o->contexts && r->failed_n == 0 ? "ok"
                                                                 : "FAIL");
        printf("%-4u %11.1f %8.3f %9s %9.1f %10s %10s %8s %13s %10s %10s\n",
               k + 1, r->rate, r->wall, srv, r->cli_cpu_us, b0, b1, kib, chk,
               b2, b3);
        fflush(stdout);
        checked += r->checked_n;
        failed += o->contexts - r->checked_n;
        done++;
        if (rc != 0) {
            ret = CLI_EXIT_FAIL;
            break;
        }
    }

    /* The summary a script reads: key=value, "na" where not measured. */
    double rmin = 0, rmed = 0, rmax = 0, srv_med = -1, cli_med = 0;
    for (unsigned k = 0; k < done; k++) {
        v[k] = reps[k].rate;
    }
    if (done > 0) {
        rmed = storm_median(v, done);
        rmin = v[0];
        rmax = v[done - 1];
        for (unsigned k = 0; k < done; k++) {
            v[k] = reps[k].cli_cpu_us;
        }
        cli_med = storm_median(v, done);
        if (reps[0].before.ok && reps[0].after.ok) {
            for (unsigned k = 0; k < done; k++) {
                v[k] = reps[k].srv_cpu_us;
            }
            srv_med = storm_median(v, done);
        }
    }
    const struct storm_rep *r1 = &reps[0];
    bool mem = done > 0 && r1->before.ok && r1->after.ok;
    printf("result: status=%s contexts=%u connections=%u repeat=%u done=%u "
           "rate_min=%.1f rate_med=%.1f rate_max=%.1f cli_us=%.1f "
           "init_create_us=%.1f init_apreq_us=%.1f checked=%u failed=%u",
           ret == CLI_EXIT_OK ? "ok" : "failed", o->contexts, o->connections,
           o->repeat, done, rmin, rmed, rmax, cli_med, create_us, apreq_us,
           checked, failed);
    if (mem) {
        printf(" srv_us=%.1f rss_before_kib=%" PRIu64 " rss_after_kib=%" PRIu64
               " kib_per_ctx=%.2f rss_end_kib=%" PRIu64 "\n",
               srv_med, r1->before.rss_kib, r1->after.rss_kib, r1->kib_per_ctx,
               reps[done - 1].destroyed.ok ? reps[done - 1].destroyed.rss_kib
                                           : 0);
    } else {
        printf(" srv_us=na rss_before_kib=na rss_after_kib=na "
               "kib_per_ctx=na rss_end_kib=na\n");
    }

cleanup:
    if (dir != NULL) {
        uint32_t minor = 0;
        struct stat st;
        /* The cache exists once kinit has written it. */
        bool written = cc_path != NULL && stat(cc_path, &st) == 0;

        /* Both, whatever the first answers. */
        bool kept =
            written && GK5_ERROR(gk5_ccache_destroy(&minor, ccache)) != 0;

        if (rmdir(dir) != 0 || kept) {
            cli_warn("%s: could not remove the private ccache folder %s",
                     a->cmd, dir);
        }
    }
    free(ccache);
    free(cc_path);
    free(dir);
    free(reps);
    free(v);
    return ret;
}
