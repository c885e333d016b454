/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 rpc echo: calls of the echo program (support/echo) for --seconds or
 * --calls, from --threads N connections or with --inflight N calls out on
 * one connection of gk5's own client; calls/s and MB/s.  `gk5 rpc echo
 * ARGS` runs `gk5-bench rpc echo ARGS` (tools/cli_rpc.c): the client
 * options, connection and AUTH are tools/cli_rpc_client.c's, shared with
 * gk5 rpc ping, so both say the same words.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GK5_HAVE_TIRPC
#include <rpc/rpc.h>
#endif

#include <gk5/rpcsec.h>

#include "bench.h"
#include "cli.h"
#include "cli_rpc_client.h"
#include "common/util.h"
#include "echo.h"

/* A positive number of seconds, fractions allowed. */
static int parse_seconds(const char *s, double *out)
{
    char *end = NULL;
    double v;

    if (s == NULL || ((*s < '0' || *s > '9') && *s != '.')) {
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !(v > 0) || v > 86400.0 * 365) {
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- gk5 rpc echo ---- */

enum echo_proc { ECHO_ECHO, ECHO_SINK, ECHO_SOURCE, ECHO_NULL };

static const char *const echo_proc_names[] = {"echo", "sink", "source", "null"};
static const uint32_t echo_proc_nums[] = {
    GK5_ECHO_PROC_ECHO, GK5_ECHO_PROC_SINK, GK5_ECHO_PROC_SOURCE,
    GK5_ECHO_PROC_NULL};

struct echo_run {
    enum echo_proc proc;
    size_t size;
    uint64_t max_calls; /* per thread; 0: no limit */
    double seconds;     /* 0: no limit */
    double start;
#ifdef GK5_HAVE_TIRPC
    struct timeval tv;
#endif
    double end;           /* --inflight: when the last reply was checked */
    gk5_rpc_clnt *native; /* gk5's client, shared by the threads; or NULL */
#ifdef GK5_HAVE_TIRPC
    AUTH *auth; /* ours, for the words of a failure; NULL otherwise */
#endif
    atomic_bool stop;
};

struct echo_thread {
    struct echo_run *run;
#ifdef GK5_HAVE_TIRPC
    CLIENT *clnt;
#endif
    unsigned index;
    uint64_t calls;
    double end;
    uint8_t *send, *recv;
    bool failed;
    char why[1024];
    pthread_t tid;
    bool started;
};

/* As echo_one, on gk5's own client (t->send holds 8 + size + 4 bytes, the
 * pattern from byte 4). */
static bool echo_one_native(struct echo_thread *t, uint64_t call)
{
    struct echo_run *r = t->run;
    gk5_buffer args, res = {0, NULL};
    gk5_rpc_error e;
    bool good;

    gk5_echo_source_fill(t->send + 4, r->size < 12 ? r->size : 12);
    if (gk5_echo_args(echo_proc_nums[r->proc], r->size, t->index, call, t->send,
                      8 + r->size + 4, &args) != 0) {
        snprintf(t->why, sizeof(t->why),
                 "thread %u, call %llu: arguments "
                 "do not encode",
                 t->index, (unsigned long long)call + 1);
        return false;
    }
    if (gk5_rpc_clnt_call(r->native, echo_proc_nums[r->proc], &args, &res,
                          &e) != 0) {
        snprintf(t->why, sizeof(t->why),
                 "thread %u, call %llu (%s of %zu bytes): %s", t->index,
                 (unsigned long long)call + 1, echo_proc_names[r->proc],
                 r->size, e.text);
        return false;
    }
    good = gk5_echo_check(echo_proc_nums[r->proc], r->size, t->index, call,
                          &res, t->why, sizeof(t->why));
    gk5_buffer_release(&res);
    return good;
}

#ifdef GK5_HAVE_TIRPC
/* One call of t's proc; false with t->why on any failure or mismatch. */
static bool echo_one(struct echo_thread *t, uint64_t call)
{
    struct echo_run *r = t->run;
    struct cli_rpc_opaque args = {(char *)t->send, (u_int)r->size,
                                  (u_int)r->size};
    struct cli_rpc_opaque res = {(char *)t->recv, 0, (u_int)r->size};
    u_int n = (u_int)r->size, got = 0;
    enum clnt_stat st;
    char what[96];

    snprintf(what, sizeof(what), "thread %u, call %llu (%s of %zu bytes)",
             t->index, (unsigned long long)call + 1, echo_proc_names[r->proc],
             r->size);
    /* Every request differs: a reply to another call cannot pass. */
    if (r->proc != ECHO_SOURCE && r->size > 0) {
        uint8_t stamp[GK5_ECHO_STAMP_SIZE];

        gk5_echo_stamp(stamp, t->index, call);
        memcpy(t->send, stamp, r->size < sizeof(stamp) ? r->size : 12);
    }
    switch (r->proc) {
    case ECHO_ECHO:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc],
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &args,
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &res, r->tv);
        break;
    case ECHO_SINK:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc],
                       CLI_XDR_PROC(cli_rpc_xdr_opaque), &args,
                       CLI_XDR_PROC(xdr_u_int), &got, r->tv);
        break;
    case ECHO_NULL:
        st = clnt_call(t->clnt, echo_proc_nums[r->proc], CLI_XDR_PROC(xdr_void),
                       NULL, CLI_XDR_PROC(xdr_void), NULL, r->tv);
        break;
    case ECHO_SOURCE:
    default:
        st =
            clnt_call(t->clnt, echo_proc_nums[r->proc], CLI_XDR_PROC(xdr_u_int),
                      &n, CLI_XDR_PROC(cli_rpc_xdr_opaque), &res, r->tv);
        break;
    }
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(t->clnt, r->auth, what, t->why, sizeof(t->why));
        return false;
    }
    switch (r->proc) {
    case ECHO_NULL:
        break;
    case ECHO_ECHO:
        if (res.len != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the reply has %u bytes, not %zu", what, res.len,
                     r->size);
            return false;
        }
        for (size_t i = 0; i < r->size; i++) {
            if (t->recv[i] != t->send[i]) {
                snprintf(t->why, sizeof(t->why),
                         "%s: the reply differs from the request at byte %zu "
                         "(0x%02x, not 0x%02x)",
                         what, i, t->recv[i], t->send[i]);
                return false;
            }
        }
        break;
    case ECHO_SINK:
        if (got != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the server counted %u bytes, not %zu", what, got,
                     r->size);
            return false;
        }
        break;
    case ECHO_SOURCE: {
        size_t bad;

        if (res.len != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: the reply has %u bytes, not %zu", what, res.len,
                     r->size);
            return false;
        }
        bad = gk5_echo_source_check(t->recv, r->size);
        if (bad != r->size) {
            snprintf(t->why, sizeof(t->why),
                     "%s: byte %zu of the reply is 0x%02x, not the pattern's "
                     "0x%02x",
                     what, bad, t->recv[bad], gk5_echo_source_byte(bad));
            return false;
        }
        break;
    }
    }
    return true;
}

#endif /* GK5_HAVE_TIRPC */

static void *echo_thread_main(void *p)
{
    struct echo_thread *t = p;
    struct echo_run *r = t->run;

    for (;;) {
        if (atomic_load(&r->stop) ||
            (r->max_calls > 0 && t->calls >= r->max_calls)) {
            break;
        }
        if (r->seconds > 0 && now_s() - r->start >= r->seconds) {
            break;
        }
#ifdef GK5_HAVE_TIRPC
        bool good = r->native != NULL ? echo_one_native(t, t->calls)
                                      : echo_one(t, t->calls);
#else
        bool good = echo_one_native(t, t->calls);
#endif
        if (!good) {
            t->failed = true;
            atomic_store(&r->stop, true);
            break;
        }
        t->calls++;
    }
    t->end = now_s();
    return NULL;
}

/* ---- gk5 rpc echo --inflight: gk5's own transport ---- */

/* One connection of gk5's own client, `inflight` calls kept out by this
 * thread.  Prints as the libtirpc path does; 0 or -1 with err. */
static int echo_inflight(const struct client_args *a, struct echo_run *r,
                         uint32_t inflight, uint64_t *total, char *err,
                         size_t err_len, char *desc, size_t desc_len)
{
    gk5_rpc_clnt *clnt = NULL;
    gk5_rpc_error e;
    uint64_t *ids = NULL, *nums = NULL, sent = 0, done = 0;
    uint8_t *buf = NULL;
    size_t cap = 8 + r->size + 4;
    int ret = -1;

    *total = 0;
    ids = calloc(inflight, sizeof(*ids));
    nums = calloc(inflight, sizeof(*nums));
    buf = malloc(cap);
    if (ids == NULL || nums == NULL || buf == NULL) {
        snprintf(err, err_len, "out of memory");
        goto cleanup;
    }
    if (rpc_native_connect(a, inflight, &clnt, err, err_len) != 0) {
        goto cleanup;
    }
    gk5_echo_source_fill(buf + 4, r->size);
    r->start = now_s();
    for (;;) {
        bool more = !atomic_load(&r->stop) &&
                    (r->max_calls == 0 || sent < r->max_calls) &&
                    (r->seconds <= 0 || now_s() - r->start < r->seconds);
        if (more && sent - done < inflight) {
            gk5_buffer args;
            uint32_t i = (uint32_t)(sent % inflight);
            gk5_echo_source_fill(buf + 4, r->size < 12 ? r->size : 12);
            if (gk5_echo_args(echo_proc_nums[r->proc], r->size, 0, sent, buf,
                              cap, &args) != 0) {
                snprintf(err, err_len, "call %llu: arguments do not encode",
                         (unsigned long long)sent + 1);
                goto cleanup;
            }
            if (gk5_rpc_clnt_send(clnt, echo_proc_nums[r->proc], &args, &ids[i],
                                  &e) != 0) {
                snprintf(err, err_len, "call %llu (%s of %zu bytes): %s",
                         (unsigned long long)sent + 1, echo_proc_names[r->proc],
                         r->size, e.text);
                goto cleanup;
            }
            nums[i] = sent++;
            continue;
        }
        if (done == sent) {
            break;
        }
        /* The oldest call out. */
        uint32_t i = (uint32_t)(done % inflight);
        gk5_buffer results = {0, NULL};
        if (gk5_rpc_clnt_wait(clnt, ids[i], &results, &e) != 0) {
            snprintf(err, err_len, "call %llu (%s of %zu bytes): %s",
                     (unsigned long long)nums[i] + 1, echo_proc_names[r->proc],
                     r->size, e.text);
            done++;
            goto cleanup;
        }
        done++;
        bool good = gk5_echo_check(echo_proc_nums[r->proc], r->size, 0, nums[i],
                                   &results, err, err_len);
        gk5_buffer_release(&results);
        if (!good) {
            goto cleanup;
        }
        r->end = now_s();
    }
    *total = done;
    rpc_describe_native(a, clnt, inflight, desc, desc_len);
    ret = 0;

cleanup:
    /* Calls still out are collected before the connection goes. */
    while (clnt != NULL && done < sent) {
        gk5_buffer results = {0, NULL};
        if (gk5_rpc_clnt_wait(clnt, ids[done % inflight], &results, &e) == 0) {
            gk5_buffer_release(&results);
        }
        done++;
    }
    gk5_rpc_clnt_free(clnt);
    free(buf);
    free(ids);
    free(nums);
    return ret;
}

static void echo_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 rpc echo HOST:PORT [--program N --version N] [--sec "
            "S] [--target T]\n"
            "                    [--proc echo|sink|source|null] [--size BYTES] "
            "[--seconds S]\n"
            "                    [--calls N] [--threads N] [client "
            "options]\n"
            "\n"
            "Call the echo program of 'gk5 rpc serve' for S seconds (or N "
            "calls) and check\nevery reply: ECHO sends BYTES and wants them "
            "back, SINK sends them and wants\ntheir count, SOURCE asks for "
            "BYTES of its pattern (byte i = i %% 251).  Prints\ncalls, calls "
            "per second, MB/s (10^6 payload bytes each way per second) "
            "and\nthe enctype.  With --threads N every thread has its own "
            "connection; all\nshare one AUTH (one RPCSEC_GSS context).\n"
            "\n"
            "  --program N, --version N\n"
            "                        default: 0x20000099 and 1, the echo "
            "program\n"
            "  --proc P              echo (default), sink, source, or null "
            "(procedure 0;\n"
            "                        --size is ignored)\n"
            "  --size BYTES          payload per call, with an optional k or "
            "m suffix (KiB,\n"
            "                        MiB): 4k, 64k, 1m; default 1024; at most "
            "64m\n"
            "  --seconds S           how long to run (fractions allowed); "
            "default 2, or no\n"
            "                        limit with --calls\n"
            "  --calls N             stop after N calls per thread (and at "
            "--seconds, if\n"
            "                        given)\n"
            "  --threads N           connections and threads, 1..%d; "
            "default 1\n"
            "  --inflight N          one connection of gk5's own RPC client "
            "(not libtirpc's)\n"
            "                        keeping N calls outstanding (1..%d), "
            "their replies\n"
            "                        matched by XID; not with --threads\n",
            RPC_MAX_THREADS, RPC_MAX_INFLIGHT);
    fputs(rpc_client_options_help, f);
    fprintf(f, "\nExit status: 0 every call succeeded and every reply was "
               "right; 1 a call\nfailed or a reply was wrong (which call and "
               "why is printed); 2 bad usage.\n");
}

int bench_rpc_echo(int argc, char **argv)
{
    struct client_args a;
    struct echo_run run;
    struct echo_thread *threads = NULL;
    uint32_t nthreads = 1, calls = 0, inflight = 0;
#ifdef GK5_HAVE_TIRPC
    AUTH *auth = NULL;
#endif
    char err[1024], desc[256];
    double seconds = 0, end = 0, elapsed;
    uint64_t total = 0;
    bool have_seconds = false;
    int c, ret = CLI_EXIT_FAIL;

    rpc_client_args_init(&a, "rpc echo");
    a.prog = GK5_ECHO_PROG;
    a.vers = GK5_ECHO_VERS;
    memset(&run, 0, sizeof(run));
    run.proc = ECHO_ECHO;
    run.size = 1024;
    atomic_init(&run.stop, false);
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", rpc_client_longopts, NULL)) !=
           -1) {
        int r;

        switch (c) {
        case OPT_HELP:
            echo_usage(stdout);
            return CLI_EXIT_OK;
        case OPT_SIZE:
            if (cli_parse_size(optarg, GK5_ECHO_MAX_OPAQUE, &run.size) != 0) {
                cli_error("rpc echo: --size: '%s' is not a size up to 64m "
                          "(BYTES, or with a k or m suffix)",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_PROC: {
            bool found = false;

            for (size_t i = 0; i < GK5_ARRAY_SIZE(echo_proc_names); i++) {
                if (strcmp(optarg, echo_proc_names[i]) == 0) {
                    run.proc = (enum echo_proc)i;
                    found = true;
                }
            }
            if (!found) {
                cli_error("rpc echo: --proc: '%s' is not echo, sink, source "
                          "or null",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        }
        case OPT_SECONDS:
            if (parse_seconds(optarg, &seconds) != 0) {
                cli_error("rpc echo: --seconds: '%s' is not a positive "
                          "number of seconds",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            have_seconds = true;
            continue;
        case OPT_THREADS:
            if (rpc_parse_num(optarg, &nthreads) != 0 || nthreads == 0 ||
                nthreads > RPC_MAX_THREADS) {
                cli_error("rpc echo: --threads: '%s' is not a number from 1 "
                          "to %d",
                          optarg, RPC_MAX_THREADS);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_CALLS:
            if (rpc_parse_num(optarg, &calls) != 0 || calls == 0) {
                cli_error("rpc echo: --calls: '%s' is not a positive number",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            continue;
        case OPT_INFLIGHT:
            if (rpc_parse_num(optarg, &inflight) != 0 || inflight == 0 ||
                inflight > RPC_MAX_INFLIGHT) {
                cli_error("rpc echo: --inflight: '%s' is not a number from 1 "
                          "to %d",
                          optarg, RPC_MAX_INFLIGHT);
                return CLI_EXIT_USAGE;
            }
            continue;
        default:
            break;
        }
        r = rpc_take_client_option(&a, c, argv);
        if (r != CLI_EXIT_OK) {
            return r;
        }
    }
    if (rpc_client_args_check(&a, argc, argv) != 0) {
        return CLI_EXIT_USAGE;
    }
    if (run.proc == ECHO_NULL) {
        run.size = 0;
    }
    run.max_calls = calls;
    run.seconds = have_seconds ? seconds : (calls > 0 ? 0 : 2.0);
#ifdef GK5_HAVE_TIRPC
    run.tv = rpc_ms_to_timeval(a.timeout_ms);
#endif
    if (inflight > 0 && nthreads > 1) {
        cli_error("rpc echo: --inflight keeps calls out on one connection "
                  "from one thread: not with --threads");
        return CLI_EXIT_USAGE;
    }
    if (inflight > 0 || a.native) {
        /* One connection of gk5's own client: N calls from one thread, or
         * one each from N threads. */
        if (a.native && inflight == 0) {
            goto threads;
        }
        if (echo_inflight(&a, &run, inflight, &total, err, sizeof(err), desc,
                          sizeof(desc)) != 0) {
            cli_error("rpc echo: %s", err);
            return CLI_EXIT_FAIL;
        }
        end = run.end;
        goto report;
    }

threads:
    threads = calloc(nthreads, sizeof(*threads));
    if (threads == NULL) {
        cli_error("rpc echo: out of memory");
        goto cleanup;
    }
    if (a.native &&
        rpc_native_connect(&a, nthreads, &run.native, err, sizeof(err)) != 0) {
        cli_error("rpc echo: %s", err);
        goto cleanup;
    }
    for (uint32_t i = 0; i < nthreads; i++) {
        struct echo_thread *t = &threads[i];
        /* gk5's client takes the arguments XDR-encoded: room for the
         * length word and padding around the payload. */
        size_t room = a.native ? 8 + run.size + 4 : run.size;

        t->run = &run;
        t->index = i;
        t->send = malloc(room > 0 ? room : 1);
        t->recv = malloc(run.size > 0 ? run.size : 1);
        if (t->send == NULL || t->recv == NULL) {
            cli_error("rpc echo: out of memory");
            goto cleanup;
        }
        /* The pattern for ECHO and SINK too: easy to recognise in a
         * capture; the first 12 bytes are stamped per call. */
        gk5_echo_source_fill(t->send + (a.native ? 4 : 0), run.size);
        if (a.native) {
            continue;
        }
#ifdef GK5_HAVE_TIRPC
        if (cli_rpc_connect(a.hostport, a.prog, a.vers, &t->clnt, err,
                            sizeof(err)) != 0) {
            cli_error("rpc echo: %s", err);
            goto cleanup;
        }
        if (i == 0) {
            if (rpc_client_auth(&a, t->clnt, &auth, err, sizeof(err)) != 0) {
                cli_error("rpc echo: %s", err);
                goto cleanup;
            }
        } else {
            auth_destroy(t->clnt->cl_auth);
            t->clnt->cl_auth = auth;
        }
#endif
    }
#ifdef GK5_HAVE_TIRPC
    run.auth = a.sec->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS ? auth : NULL;
#endif

    run.start = now_s();
    for (uint32_t i = 0; i < nthreads; i++) {
        int e = pthread_create(&threads[i].tid, NULL, echo_thread_main,
                               &threads[i]);

        if (e != 0) {
            cli_error("rpc echo: cannot start thread %u: %s", i, strerror(e));
            atomic_store(&run.stop, true);
            break;
        }
        threads[i].started = true;
    }
    ret = CLI_EXIT_OK;
    for (uint32_t i = 0; i < nthreads; i++) {
        if (!threads[i].started) {
            ret = CLI_EXIT_FAIL;
            continue;
        }
        pthread_join(threads[i].tid, NULL);
        total += threads[i].calls;
        if (threads[i].end > end) {
            end = threads[i].end;
        }
    }
    for (uint32_t i = 0; i < nthreads; i++) {
        if (threads[i].failed) {
            cli_error("rpc echo: %s", threads[i].why);
            ret = CLI_EXIT_FAIL;
        }
    }
    if (ret != CLI_EXIT_OK) {
        goto cleanup;
    }
    if (run.native != NULL) {
        rpc_describe_native(&a, run.native, nthreads, desc, sizeof(desc));
    }
#ifdef GK5_HAVE_TIRPC
    else {
        rpc_describe_auth(&a, auth, desc, sizeof(desc));
    }
#endif

report:
    ret = CLI_EXIT_OK;
    elapsed = end - run.start;
    if (elapsed <= 0) {
        elapsed = 1e-9;
    }
    printf("gk5 rpc echo: %s: %s %zu bytes, %u thread%s: %llu calls in %.2f "
           "s, %.0f calls/s, %.2f MB/s %s\n",
           desc, echo_proc_names[run.proc], run.size, nthreads,
           nthreads == 1 ? "" : "s", (unsigned long long)total, elapsed,
           (double)total / elapsed,
           (double)total * (double)run.size / elapsed / 1e6,
           run.proc == ECHO_ECHO     ? "each way"
           : run.proc == ECHO_SINK   ? "to the server"
           : run.proc == ECHO_SOURCE ? "from the server"
                                     : "(no payload)");
    if (fflush(stdout) != 0) {
        ret = CLI_EXIT_FAIL;
    }

cleanup:
    gk5_rpc_clnt_free(run.native);
#ifdef GK5_HAVE_TIRPC
    if (auth != NULL) {
        auth_destroy(auth);
    }
#endif
    if (threads != NULL) {
        for (uint32_t i = 0; i < nthreads; i++) {
#ifdef GK5_HAVE_TIRPC
            if (threads[i].clnt != NULL) {
                threads[i].clnt->cl_auth = NULL;
                clnt_destroy(threads[i].clnt);
            }
#endif
            free(threads[i].send);
            free(threads[i].recv);
        }
        free(threads);
    }
    return ret;
}
