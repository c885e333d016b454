/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * test_many_contexts: many RPCSEC_GSS contexts at once against one server.
 *
 *   test_many_contexts HOST:PORT --client-keytab FILE [--contexts N]
 *                      [--threads T] [--rounds R] [--target SERVICE@HOST]
 *                      [--principal NAME] [--service krb5|krb5i|krb5p]
 *
 * T threads each open one connection and establish N/T AUTHs on it with
 * gk5_rpc_auth_create (so N separate contexts, created concurrently),
 * services krb5, krb5i, krb5p in turn (or all --service).  Then, R times over,
 * every thread switches its connection's cl_auth from context to context and
 * calls ECHO (a payload unique to the context and round, sizes 0..~8 KiB) and
 * WHOAMI (it must name the service and the client principal, NAME,
 * default gk5-client@GK5.TEST), checking every reply; calls on one
 * connection interleave contexts, and the threads interleave with each
 * other.  Finally every context is destroyed (RPCSEC_GSS_DESTROY).
 * Prints one line per failure and a summary; exit 0 only if every
 * context was made and every reply was right.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <gk5/rpcsec.h>

#include "echo_prog.h"

#define MAX_CONTEXTS 1024
#define MAX_THREADS 64

static const char *opt_target = "gk5@localhost";
static const char *opt_keytab;
static const char *opt_principal = "gk5-client@GK5.TEST";
static struct sockaddr_in server_addr;
static unsigned opt_contexts = 64, opt_threads = 8, opt_rounds = 4;
static gk5_rpc_service opt_service; /* 0: krb5, krb5i, krb5p in turn */
static atomic_uint failures;

struct worker {
    pthread_t tid;
    unsigned index;
    unsigned first, count; /* contexts first .. first+count-1 */
    CLIENT *clnt;
    AUTH *auth[MAX_CONTEXTS];
    gk5_rpc_service svc[MAX_CONTEXTS];
    unsigned made, calls;
};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;

    atomic_fetch_add(&failures, 1);
    va_start(ap, fmt);
    fputs("test_many_contexts: FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static CLIENT *connect_client(void)
{
    struct netbuf nb;
    CLIENT *clnt;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0) {
        return NULL;
    }
    if (connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) !=
        0) {
        close(fd);
        return NULL;
    }
    nb.maxlen = nb.len = sizeof(server_addr);
    nb.buf = &server_addr;
    clnt = clnt_vc_create(fd, &nb, ECHO_PROG, ECHO_VERS, 0, 0);
    if (clnt == NULL) {
        close(fd);
        return NULL;
    }
    clnt_control(clnt, CLSET_FD_CLOSE, NULL);
    /* clnt_vc_create installs libtirpc's AUTH_NONE; the contexts take its
     * place in turn. */
    if (clnt->cl_auth != NULL) {
        auth_destroy(clnt->cl_auth);
        clnt->cl_auth = NULL;
    }
    return clnt;
}

static const char *last_error(AUTH *auth)
{
    const gk5_rpc_error *e = gk5_rpc_auth_last_error(auth);

    return e != NULL ? e->text : "(no gk5 error recorded)";
}

static void call_context(struct worker *w, unsigned i, unsigned round)
{
    unsigned ctx = w->first + i;
    struct timeval tv = {30, 0};
    size_t size = ((size_t)ctx * 131 + (size_t)round * 977) % 8192;
    uint8_t *payload = malloc(size + 1);
    echo_opaque arg, res = {0, NULL};
    char *who = NULL, want[256];
    enum clnt_stat st;

    if (payload == NULL) {
        fail("out of memory");
        return;
    }
    w->clnt->cl_auth = w->auth[i];
    echo_fill(payload, size, ((uint64_t)ctx << 32) | round);
    arg.len = (u_int)size;
    arg.val = (char *)payload;
    st = clnt_call(w->clnt, ECHO_PROC_ECHO, XDRPROC(xdr_echo_opaque), &arg,
                   XDRPROC(xdr_echo_opaque), &res, tv);
    w->calls++;
    if (st != RPC_SUCCESS) {
        fail("context %u (%s) round %u: ECHO of %zu bytes: %s; %s", ctx,
             gk5_rpc_service_name(w->svc[i]), round, size, clnt_sperrno(st),
             last_error(w->auth[i]));
    } else if (res.len != size ||
               (size > 0 && memcmp(res.val, payload, size) != 0)) {
        fail("context %u (%s) round %u: ECHO of %zu bytes came back "
             "different (%u bytes)",
             ctx, gk5_rpc_service_name(w->svc[i]), round, size, res.len);
    }
    xdr_free(XDRPROC(xdr_echo_opaque), &res);
    free(payload);

    st = clnt_call(w->clnt, ECHO_PROC_WHOAMI, XDRPROC(xdr_void), NULL,
                   XDRPROC(xdr_echo_string), &who, tv);
    w->calls++;
    snprintf(want, sizeof(want), "RPCSEC_GSS %s %s",
             gk5_rpc_service_name(w->svc[i]), opt_principal);
    if (st != RPC_SUCCESS) {
        fail("context %u (%s) round %u: WHOAMI: %s; %s", ctx,
             gk5_rpc_service_name(w->svc[i]), round, clnt_sperrno(st),
             last_error(w->auth[i]));
    } else if (who == NULL || strcmp(who, want) != 0) {
        fail("context %u round %u: WHOAMI says \"%s\", not \"%s\"", ctx, round,
             who != NULL ? who : "(null)", want);
    }
    xdr_free(XDRPROC(xdr_echo_string), &who);
    w->clnt->cl_auth = NULL;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    gk5_rpc_auth_options opts;
    unsigned i, round;

    w->clnt = connect_client();
    if (w->clnt == NULL) {
        fail("thread %u: cannot connect: %s", w->index, strerror(errno));
        return NULL;
    }
    memset(&opts, 0, sizeof(opts));
    opts.client_keytab = opt_keytab;
    opts.principal = opt_principal;
    for (i = 0; i < w->count; i++) {
        gk5_rpc_error err;
        unsigned ctx = w->first + i;

        memset(&err, 0, sizeof(err));
        w->svc[i] = opt_service != 0
                        ? opt_service
                        : (gk5_rpc_service)(GK5_RPC_SVC_NONE + ctx % 3);
        w->auth[i] =
            gk5_rpc_auth_create(w->clnt, opt_target, w->svc[i], &opts, &err);
        if (w->auth[i] == NULL) {
            fail("context %u (%s): gk5_rpc_auth_create: %s", ctx,
                 gk5_rpc_service_name(w->svc[i]), err.text);
            continue;
        }
        w->made++;
    }
    for (round = 0; round < opt_rounds; round++) {
        for (i = 0; i < w->count; i++) {
            if (w->auth[i] != NULL) {
                call_context(w, i, round);
            }
        }
    }
    return NULL;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

int main(int argc, char **argv)
{
    struct worker *w = NULL;
    const char *hostport = NULL, *colon;
    unsigned i, port = 0, made = 0, calls = 0, per, extra, next = 0;
    struct timespec t0, t1;
    double el;
    char host[64];

    for (i = 1; i < (unsigned)argc; i++) {
        const char *opt = argv[i];
        const char *val = (i + 1 < (unsigned)argc) ? argv[i + 1] : NULL;
        int bad = 0;

        if (opt[0] != '-') {
            hostport = opt;
            continue;
        }
        if (val == NULL) {
            bad = 1;
        } else if (strcmp(opt, "--contexts") == 0) {
            bad = parse_uint(val, 1, MAX_CONTEXTS, &opt_contexts);
        } else if (strcmp(opt, "--threads") == 0) {
            bad = parse_uint(val, 1, MAX_THREADS, &opt_threads);
        } else if (strcmp(opt, "--rounds") == 0) {
            bad = parse_uint(val, 1, 1000, &opt_rounds);
        } else if (strcmp(opt, "--target") == 0) {
            opt_target = val;
        } else if (strcmp(opt, "--client-keytab") == 0) {
            opt_keytab = val;
        } else if (strcmp(opt, "--principal") == 0) {
            opt_principal = val;
        } else if (strcmp(opt, "--service") == 0) {
            bad = gk5_rpc_service_parse(val, &opt_service);
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr,
                    "usage: test_many_contexts HOST:PORT --client-keytab "
                    "FILE [--contexts N]\n"
                    "       [--threads T] [--rounds R] [--target "
                    "SERVICE@HOST] [--principal NAME]\n"
                    "       [--service krb5|krb5i|krb5p]\n");
            return 2;
        }
        i++;
    }
    colon = hostport != NULL ? strrchr(hostport, ':') : NULL;
    if (colon == NULL || (size_t)(colon - hostport) >= sizeof(host) ||
        parse_uint(colon + 1, 1, 65535, &port) != 0) {
        fprintf(stderr, "test_many_contexts: want HOST:PORT\n");
        return 2;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    memset(&server_addr, 0, sizeof(server_addr));
    server_addr.sin_family = AF_INET;
    server_addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host,
                  &server_addr.sin_addr) != 1) {
        fprintf(stderr, "test_many_contexts: %s is not an IPv4 address\n",
                host);
        return 2;
    }
    if (opt_threads > opt_contexts) {
        opt_threads = opt_contexts;
    }

    w = calloc(opt_threads, sizeof(*w));
    if (w == NULL) {
        return 1;
    }
    per = opt_contexts / opt_threads;
    extra = opt_contexts % opt_threads;
    /* libtirpc 1.3.3 makes its AUTH_NONE (installed by every
     * clnt_vc_create) once per process, but reads the pointer before
     * taking its lock: threads creating their first CLIENTs at once can
     * each make one, and all but one leak.  Make it here, first. */
    (void)authnone_create();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < opt_threads; i++) {
        w[i].index = i;
        w[i].first = next;
        w[i].count = per + (i < extra ? 1 : 0);
        next += w[i].count;
        if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0) {
            fail("pthread_create");
            w[i].count = 0;
            w[i].tid = pthread_self();
        }
    }
    for (i = 0; i < opt_threads; i++) {
        if (!pthread_equal(w[i].tid, pthread_self())) {
            pthread_join(w[i].tid, NULL);
        }
        made += w[i].made;
        calls += w[i].calls;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    el = (double)(t1.tv_sec - t0.tv_sec) +
         (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    /* Every context still works after all the others were used: one more
     * NULL call on each, then RPCSEC_GSS_DESTROY. */
    for (i = 0; i < opt_threads; i++) {
        unsigned j;

        for (j = 0; j < w[i].count; j++) {
            struct timeval tv = {30, 0};
            gk5_rpc_auth_info info;

            if (w[i].auth[j] == NULL) {
                continue;
            }
            if (gk5_rpc_auth_inquire(w[i].auth[j], &info) != 0 ||
                info.established < 1) {
                fail("context %u: gk5_rpc_auth_inquire", w[i].first + j);
            }
            if (w[i].clnt != NULL) {
                w[i].clnt->cl_auth = w[i].auth[j];
                if (clnt_call(w[i].clnt, ECHO_PROC_NULL, XDRPROC(xdr_void),
                              NULL, XDRPROC(xdr_void), NULL,
                              tv) != RPC_SUCCESS) {
                    fail("context %u: final NULL call: %s", w[i].first + j,
                         last_error(w[i].auth[j]));
                }
                w[i].clnt->cl_auth = NULL;
            }
            auth_destroy(w[i].auth[j]);
        }
        if (w[i].clnt != NULL) {
            clnt_destroy(w[i].clnt);
        }
    }
    free(w);
    printf("test_many_contexts: %u of %u contexts on %u connections, %u "
           "calls in %.2f s, %u failures\n",
           made, opt_contexts, opt_threads, calls, el, atomic_load(&failures));
    return (made == opt_contexts && atomic_load(&failures) == 0) ? 0 : 1;
}
