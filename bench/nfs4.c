/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 bench: WRITE and READ MB/s and GETATTR calls/s against an
 * NFSv4.0 server, for each service of --sec and size of --size, N threads
 * (one client and connection each, one call out at a time, or M with
 * --inflight M on gk5's own client), as ratios to sys.  `gk5 nfs4 bench
 * ARGS` runs `gk5-bench nfs4 bench ARGS` (tools/cli_nfs4.c): the options
 * and their words are support/nfs4/cmdline.c's, the client
 * support/nfs4/client.c's, both shared with gk5.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "client.h"

#define BENCH_SPAN (1024u * 1024u) /* offsets cycle below 1 MiB (+ size) */
/* libtirpc's client marshals krb5i/krb5p bodies into its 256 KiB record
 * buffer (docs/design.md, "libtirpc"): above this it cannot carry a call
 * or reply. */
#define BENCH_LIBTIRPC_MAX (192u * 1024u)

enum bench_op { BENCH_WRITE, BENCH_READ, BENCH_GETATTR };
static const char *const bench_op_names[] = {"WRITE", "READ", "GETATTR"};

struct bench_worker {
    pthread_t tid;
    struct nfs4_client c;
    struct nfs4_open_file f;
    char name[64];
    bool opened;
    uint32_t size;
    enum bench_op op;
    double deadline;
    pthread_barrier_t *start;
    uint8_t *buf; /* --inflight: one size's room per call out */
    uint64_t calls;
    int failed;
};

/* Call k of the worker's operation into ops and r (a READ into buf); its
 * offset. */
static uint64_t bench_build(struct bench_worker *w, uint64_t k, nfs4_argop *ops,
                            nfs4_resop *r, uint8_t *buf)
{
    nfs4_bitmap mask = {0};
    uint64_t off = w->size < BENCH_SPAN ? (k * w->size) % BENCH_SPAN : 0;

    memset(ops, 0, 2 * sizeof(*ops));
    memset(r, 0, 2 * sizeof(*r));
    ops[0] = nfs4_putfh(&w->f.fh);
    switch (w->op) {
    case BENCH_WRITE:
        ops[1].op = OP_WRITE;
        ops[1].u.write.stateid = w->f.stateid;
        ops[1].u.write.offset = off;
        ops[1].u.write.stable = UNSTABLE4;
        ops[1].u.write.data = w->buf;
        ops[1].u.write.len = w->size;
        break;
    case BENCH_READ:
        ops[1].op = OP_READ;
        ops[1].u.read.stateid = w->f.stateid;
        ops[1].u.read.offset = off;
        ops[1].u.read.count = w->size;
        r[1].u.read.buf = buf;
        r[1].u.read.cap = w->size;
        break;
    case BENCH_GETATTR:
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
        nfs4_bitmap_set(&mask, FATTR4_CHANGE);
        ops[1] = nfs4_getattr(&mask);
        break;
    }
    return off;
}

/* A READ answered in full; 0 or -1 (error printed). */
static int bench_check(struct bench_worker *w, const nfs4_resop *r,
                       uint64_t off)
{
    if (w->op == BENCH_READ && r[1].u.read.len != w->size) {
        cli_error("%s: %s: READ of %u bytes at %" PRIu64 " returned %u",
                  w->c.a->cmd, w->name, (unsigned)w->size, off,
                  (unsigned)r[1].u.read.len);
        return -1;
    }
    return 0;
}

/* One call of the worker's operation; 0 or -1 (error printed). */
static int bench_call(struct bench_worker *w, uint64_t k)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];
    uint64_t off;

    if (nfs4_client_keep_lease(&w->c) != 0) {
        return -1;
    }
    off = bench_build(w, k, ops, r, w->buf);
    if (nfs4_client_call(&w->c, ops, 2, r, w->name) != 0) {
        return -1;
    }
    return bench_check(w, r, off);
}

/* --inflight: the worker's calls kept out on its gk5 client until the
 * deadline, each READ into its own buffer; the calls still out then are
 * collected and counted. */
static void bench_inflight(struct bench_worker *w)
{
    uint32_t n = w->c.a->inflight;
    struct nfs4_io_slot *s = calloc(n, sizeof(*s));
    uint64_t sent = 0, done = 0;

    if (s == NULL) {
        cli_error("%s: out of memory", w->c.a->cmd);
        w->failed = 1;
        return;
    }
    for (;;) {
        while (!w->failed && sent - done < n && now_s() < w->deadline) {
            struct nfs4_io_slot *slot = &s[sent % n];
            nfs4_argop ops[2];

            if (nfs4_client_keep_lease(&w->c) != 0) {
                w->failed = 1;
                break;
            }
            slot->off = bench_build(w, sent, ops, slot->r,
                                    w->buf + (size_t)(sent % n) * w->size);
            if (nfs4_client_send(&w->c, ops, 2, slot->r, &slot->id) != 0) {
                w->failed = 1;
                break;
            }
            sent++;
        }
        if (done == sent) {
            break;
        }
        struct nfs4_io_slot *slot = &s[done % n];
        done++;
        if (w->failed) {
            gk5_buffer body = {0, NULL};
            if (gk5_rpc_clnt_wait(w->c.rpc, slot->id, &body, NULL) == 0) {
                gk5_buffer_release(&body);
            }
            continue;
        }
        if (nfs4_client_wait(&w->c, slot->id, slot->r, 2, w->name) != 0 ||
            bench_check(w, slot->r, slot->off) != 0) {
            w->failed = 1;
            continue;
        }
        w->calls++;
    }
    free(s);
}

static void *bench_worker_main(void *arg)
{
    struct bench_worker *w = arg;

    (void)pthread_barrier_wait(w->start);
    if (w->c.rpc != NULL && w->c.a->inflight > 0) {
        bench_inflight(w);
        return NULL;
    }
    for (uint64_t k = 0; now_s() < w->deadline; k++) {
        if (bench_call(w, k) != 0) {
            w->failed = 1;
            break;
        }
        w->calls++;
    }
    return NULL;
}

/* Run op on every worker at once for seconds; the aggregate per second
 * (calls), or -1. */
static double bench_phase(struct bench_worker *w, unsigned n, enum bench_op op,
                          double seconds)
{
    pthread_barrier_t start;
    double t0, t1;
    uint64_t calls = 0;
    int failed = 0;

    if (pthread_barrier_init(&start, NULL, n + 1) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        w[i].op = op;
        w[i].calls = 0;
        w[i].failed = 0;
        w[i].start = &start;
        w[i].deadline = 1e300;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&w[i].tid, NULL, bench_worker_main, &w[i]) != 0) {
            /* The barrier would never open: give up on the process. */
            cli_error("nfs4 bench: cannot start a thread");
            exit(CLI_EXIT_FAIL);
        }
    }
    t0 = now_s();
    for (unsigned i = 0; i < n; i++) {
        w[i].deadline = t0 + seconds;
    }
    (void)pthread_barrier_wait(&start);
    for (unsigned i = 0; i < n; i++) {
        pthread_join(w[i].tid, NULL);
        calls += w[i].calls;
        failed |= w[i].failed;
    }
    t1 = now_s();
    pthread_barrier_destroy(&start);
    return failed ? -1 : (double)calls / (t1 - t0);
}

struct bench_opts {
    const char *dir;
    const char *secs[4];
    unsigned n_secs;
    uint32_t sizes[BENCH_MAX_SIZES];
    unsigned n_sizes;
    double seconds;
    unsigned threads;
};

/* The workers' clients, directory and files for one service. */
/* The worker's file made BENCH_SPAN + len bytes long by one untimed WRITE
 * at its end: the timed phases are bounded by time, so a WRITE phase on a
 * slow machine may cover less of the span than the READ phase then cycles
 * over, and a READ there must not meet the end of the file (what no WRITE
 * reached reads as zeros).  0 or -1 (error printed). */
static int bench_extend(struct bench_worker *w, uint32_t len)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];

    memset(ops, 0, sizeof(ops));
    memset(r, 0, sizeof(r));
    ops[0] = nfs4_putfh(&w->f.fh);
    ops[1].op = OP_WRITE;
    ops[1].u.write.stateid = w->f.stateid;
    ops[1].u.write.offset = BENCH_SPAN;
    ops[1].u.write.stable = UNSTABLE4;
    ops[1].u.write.data = w->buf;
    ops[1].u.write.len = len;
    return nfs4_client_call(&w->c, ops, 2, r, w->name);
}

static int bench_setup(struct nfs4_args *a, const struct bench_opts *o,
                       struct bench_worker *w, uint32_t max_size)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int n = nfs4_split_path(o->dir, buf, sizeof(buf), comp);

    if (n < 0) {
        cli_error("%s: '%s' is not a usable path", a->cmd, o->dir);
        return -1;
    }
    a->rsize = a->wsize = max_size;
    for (unsigned i = 0; i < o->threads; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        snprintf(w[i].name, sizeof(w[i].name), "gk5-bench-%ld-%u",
                 (long)getpid(), i);
        w[i].buf = calloc(a->inflight > 0 ? a->inflight : 1, max_size);
        if (w[i].buf == NULL || nfs4_client_open(&w[i].c, a) != 0 ||
            nfs4_client_walk(&w[i].c, comp, n, o->dir, &dir, &attrs) != 0 ||
            nfs4_client_open_file(&w[i].c, &dir, w[i].name, true, w[i].name,
                                  &w[i].f) != 0) {
            return -1;
        }
        w[i].opened = true;
        if (bench_extend(&w[i], max_size) != 0) {
            return -1;
        }
    }
    return 0;
}

static void bench_teardown(struct bench_worker *w, unsigned n,
                           const char *dirpath)
{
    for (unsigned i = 0; i < n; i++) {
        if (w[i].opened) {
            char path[1200];
            const char *comp[NFS4_MAX_COMPONENTS];
            char buf[1024];
            nfs4_fh dir;
            nfs4_attrs attrs;
            int k = nfs4_split_path(dirpath, buf, sizeof(buf), comp);

            (void)nfs4_client_close_file(&w[i].c, &w[i].f, w[i].name);
            snprintf(path, sizeof(path), "%s/%s", dirpath, w[i].name);
            if (k >= 0 && nfs4_client_walk(&w[i].c, comp, k, dirpath, &dir,
                                           &attrs) == 0) {
                nfs4_argop ops[2];
                nfs4_resop r[2];
                memset(ops, 0, sizeof(ops));
                ops[0] = nfs4_putfh(&dir);
                ops[1].op = OP_REMOVE;
                ops[1].u.remove.name = w[i].name;
                (void)nfs4_client_call(&w[i].c, ops, 2, r, path);
            }
        }
        nfs4_client_close(&w[i].c);
        free(w[i].buf);
        memset(&w[i], 0, sizeof(w[i]));
    }
}

static const char *size_text(uint32_t size, char *buf, size_t len)
{
    if (size % (1024u * 1024u) == 0) {
        snprintf(buf, len, "%um", size / (1024u * 1024u));
    } else if (size % 1024u == 0) {
        snprintf(buf, len, "%uk", size / 1024u);
    } else {
        snprintf(buf, len, "%u", size);
    }
    return buf;
}

static int cmd_bench(struct nfs4_args *a, const struct bench_opts *o)
{
    static struct bench_worker w[BENCH_MAX_THREADS];
    /* [sec][size][op]: MB/s (WRITE, READ) or calls/s (GETATTR) */
    double v[4][BENCH_MAX_SIZES][3];
    bool na[4][BENCH_MAX_SIZES];
    uint32_t max_size = 0;
    int sys_index = -1, ret = 0;
    char sz[32];

    memset(na, 0, sizeof(na));
    for (unsigned j = 0; j < o->n_sizes; j++) {
        max_size = o->sizes[j] > max_size ? o->sizes[j] : max_size;
    }
    unsigned out = o->threads * (a->inflight > 0 ? a->inflight : 1);
    printf("gk5 nfs4 bench: %s, client %s, %u call%s in flight, %.1f s per "
           "cell\n",
           a->hostport,
           a->via_libtirpc ? "libtirpc (rpc_gss_seccreate, MIT)"
           : a->native     ? "gk5 (gk5 transport)"
                           : "gk5 (RPCSEC_GSS AUTH)",
           out, out == 1 ? "" : "s", o->seconds);
    for (unsigned s = 0; s < o->n_secs; s++) {
        struct nfs4_args sa = *a;
        uint32_t top = max_size;

        sa.sec_name = o->secs[s];
        sa.sys = strcmp(o->secs[s], "sys") == 0;
        if (sa.sys) {
            sys_index = (int)s;
        } else if (gk5_rpc_service_parse(o->secs[s], &sa.svc) != 0) {
            cli_error("%s: --sec: '%s' is not one of sys, krb5, krb5i, krb5p",
                      a->cmd, o->secs[s]);
            return CLI_EXIT_USAGE;
        }
        if (a->via_libtirpc && !sa.sys && sa.svc != GK5_RPC_SVC_NONE &&
            top > BENCH_LIBTIRPC_MAX) {
            top = BENCH_LIBTIRPC_MAX;
        }
        if (bench_setup(&sa, o, w, top) != 0) {
            bench_teardown(w, o->threads, o->dir);
            return CLI_EXIT_FAIL;
        }
        for (unsigned j = 0; j < o->n_sizes; j++) {
            if (o->sizes[j] > top) {
                na[s][j] = true;
                continue;
            }
            for (unsigned i = 0; i < o->threads; i++) {
                w[i].size = o->sizes[j];
            }
            for (int op = BENCH_WRITE; op <= BENCH_GETATTR; op++) {
                if (op == BENCH_GETATTR && j > 0) {
                    v[s][j][op] = v[s][0][op];
                    continue;
                }
                double rate =
                    bench_phase(w, o->threads, (enum bench_op)op, o->seconds);
                if (rate < 0) {
                    bench_teardown(w, o->threads, o->dir);
                    return CLI_EXIT_FAIL;
                }
                v[s][j][op] = op == BENCH_GETATTR
                                  ? rate
                                  : rate * o->sizes[j] / 1e6; /* MB/s */
            }
        }
        bench_teardown(w, o->threads, o->dir);
    }
    printf("%-7s %-6s %-8s %12s %8s\n", "sec", "size", "op", "value", "vs-sys");
    for (unsigned s = 0; s < o->n_secs; s++) {
        for (unsigned j = 0; j < o->n_sizes; j++) {
            for (int op = BENCH_WRITE; op <= BENCH_GETATTR; op++) {
                char val[32], ratio[16] = "-";
                if (op == BENCH_GETATTR && j > 0) {
                    continue;
                }
                if (na[s][j]) {
                    if (op != BENCH_GETATTR) {
                        printf("%-7s %-6s %-8s %12s %8s\n", o->secs[s],
                               size_text(o->sizes[j], sz, sizeof(sz)),
                               bench_op_names[op], "n/a", "-");
                    }
                    continue;
                }
                snprintf(val, sizeof(val),
                         op == BENCH_GETATTR ? "%.0f/s" : "%.1f MB/s",
                         v[s][j][op]);
                if (sys_index >= 0 && !na[sys_index][j] &&
                    v[sys_index][j][op] > 0) {
                    snprintf(ratio, sizeof(ratio), "%.2f",
                             v[s][j][op] / v[sys_index][j][op]);
                }
                printf("%-7s %-6s %-8s %12s %8s\n", o->secs[s],
                       op == BENCH_GETATTR
                           ? "-"
                           : size_text(o->sizes[j], sz, sizeof(sz)),
                       bench_op_names[op], val, ratio);
            }
        }
    }
    for (unsigned s = 0; s < o->n_secs; s++) {
        for (unsigned j = 0; j < o->n_sizes; j++) {
            if (na[s][j]) {
                printf("n/a: %s %s: libtirpc's client cannot carry krb5i/krb5p "
                       "bodies above about 256 KiB (its record buffer)\n",
                       o->secs[s], size_text(o->sizes[j], sz, sizeof(sz)));
            }
        }
    }
    return ret;
}

/* Lists, credentials for libtirpc's client, then the run. */
static int bench_main(struct nfs4_args *a, struct bench_opts *o, char *sec_list,
                      char *size_list)
{
    for (char *save = NULL, *t = strtok_r(sec_list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        gk5_rpc_service svc;
        if (o->n_secs == 4 ||
            (strcmp(t, "sys") != 0 && gk5_rpc_service_parse(t, &svc) != 0)) {
            cli_error("%s: --sec: '%s' is not a list of sys, krb5, krb5i, "
                      "krb5p",
                      a->cmd, t);
            return CLI_EXIT_USAGE;
        }
        o->secs[o->n_secs++] = t;
    }
    for (char *save = NULL, *t = strtok_r(size_list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        if (o->n_sizes == BENCH_MAX_SIZES ||
            nfs4_parse_io_size(t, &o->sizes[o->n_sizes]) != 0) {
            cli_error("%s: --size: '%s' is not a list of sizes up to 4m",
                      a->cmd, t);
            return CLI_EXIT_USAGE;
        }
        o->n_sizes++;
    }
    if (o->n_secs == 0 || o->n_sizes == 0) {
        cli_error("%s: --sec and --size need at least one entry", a->cmd);
        return CLI_EXIT_USAGE;
    }
    o->dir = a->path;
    if (a->via_libtirpc && a->client_keytab != NULL) {
        /* MIT's initiator gets initial credentials from the client keytab
         * into a ccache of this process. */
        if (setenv("KRB5_CLIENT_KTNAME", a->client_keytab, 1) != 0 ||
            (a->ccache == NULL &&
             setenv("KRB5CCNAME", "MEMORY:gk5-nfs4-bench", 1) != 0)) {
            cli_error("%s: setenv: %s", a->cmd, strerror(errno));
            return CLI_EXIT_FAIL;
        }
    }
    if (a->via_libtirpc && a->ccache != NULL &&
        setenv("KRB5CCNAME", a->ccache, 1) != 0) {
        cli_error("%s: setenv: %s", a->cmd, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return cmd_bench(a, o) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

int bench_nfs4(int argc, char **argv)
{
    struct nfs4_cmdline cl;
    struct bench_opts bo;
    int ret = nfs4_cmdline_parse(NFS4_BENCH, argc, argv, &cl);

    if (ret >= 0) {
        return ret;
    }
    memset(&bo, 0, sizeof(bo));
    bo.seconds = cl.seconds;
    bo.threads = cl.threads;
    return bench_main(&cl.a, &bo, cl.sec_list, cl.size_list);
}
