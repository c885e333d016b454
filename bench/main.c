/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench: gk5, MIT krb5 and the OpenSSL floor side by side.
 * `gk5 bench ARGS` runs this program with ARGS (tools/cli_bench.c), so its
 * usage, messages and exit statuses are those of `gk5 bench`.
 *
 * One process, one run: a throwaway MIT realm (support/realm/realm.c),
 * then for each enctype a session measured (run.c), then the report
 * (report.c), or with --contexts the many-contexts table (contexts.c), or
 * with --accept the acceptor table (accept.c), or with --init the
 * initiator table and the whole-commands table (init.c).  --scale
 * (scale.c) needs no realm and no MIT krb5, nor do `gk5-bench nfs4 bench`
 * (nfs4.c) and `gk5-bench rpc echo` (rpc_echo.c), what `gk5 nfs4 bench`
 * and `gk5 rpc echo` run: a gk5-bench built without MIT (-Dmit=disabled)
 * runs those and names its reason for the others.
 * bench.h lists the parts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bench.h"
#include "cli.h"
#include "common/util.h"

static void bench_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 bench [--quick] [--csv] [--threads N] [--rounds N]\n"
            "                 [--min-time SECONDS] [--sizes LIST] "
            "[--enctypes LIST]\n"
            "                 [--ops LIST] [--cpu-clock] [--contexts[=N]]\n"
            "                 [--accept[=N]] [--init[=N]] [--scale[=LIST]]\n"
            "\n"
            "Measure gk5 against MIT krb5 and the raw OpenSSL floor in one "
            "run.  A\nthrowaway MIT KDC on 127.0.0.1 (as `gk5 demo`) issues a "
            "session for each\nenctype (17, 18, 19, 20, 25, 26; and 16 with "
            "-Ddes3=true); MIT keeps the\nacceptor, gk5 imports the initiator. "
            " For each size: sealed and\nintegrity-only wrap, unwrap, get_mic "
            "and verify_mic, by MIT, by gk5's\ncontiguous API and by its IOV "
            "API with caller buffers, beside the OpenSSL\nfloor for the same "
            "crypto (encrypt + MAC, decrypt + MAC, MAC alone) with\npre-keyed "
            "EVP contexts.  Prints MB/s, the ratios gk5/MIT and gk5/floor,\n"
            "and gk5's heap allocations per call.\n"
            "\n"
            "  --quick           a smoke test under 30 s: 16 KiB only, 2 "
            "short rounds,\n"
            "                    no thread section unless --threads is given\n"
            "  --csv             one line per figure, for machines\n"
            "  --threads N       N threads on one context at 16 KiB against "
            "one thread\n"
            "                    (default 2; 0 = skip)\n"
            "  --rounds N        timed rounds per figure (default 3)\n"
            "  --min-time S      seconds per round (default 0.3)\n"
            "  --sizes LIST      message sizes, e.g. 1k,16k,1m (default "
            "64,256,1k,16k,1m)\n"
            "  --enctypes LIST   enctype numbers or names (default: all the "
            "KDC issues)\n"
            "  --ops LIST        some of wrap-sealed, wrap-1pass, "
            "wrap-integ, unwrap,\n"
            "                    get_mic, verify_mic (default: all)\n"
            "  --cpu-clock       time single-thread rounds by the thread's CPU "
            "time, not\n"
            "                    CLOCK_MONOTONIC: for a shared, busy machine "
            "(threads\n"
            "                    are always timed by CLOCK_MONOTONIC)\n"
            "  --contexts[=N]    instead: N live acceptor contexts per enctype "
            "(default\n"
            "                    10000; 200 with --quick), gk5 and MIT: us per "
            "import,\n"
            "                    per first wrap + unwrap and per free, heap "
            "bytes per\n"
            "                    context, as ratios\n"
            "  --accept[=N]      instead: N AP-REQs per enctype (default "
            "10000; 1000 with\n"
            "                    --quick), made by MIT's initiator, accepted "
            "by gk5_accept\n"
            "                    and by MIT's gss_accept_sec_context, replay "
            "cache on and\n"
            "                    off: us per accept, heap bytes per accepted "
            "context,\n"
            "                    allocations, as ratios; --threads N: N "
            "threads on one\n"
            "                    credential against one\n"
            "  --init[=N]        instead: N contexts per enctype (default "
            "10000; 1000 with\n"
            "                    --quick) initiated from a service ticket in a "
            "FILE ccache,\n"
            "                    both legs with mutual authentication, by gk5 "
            "and by MIT's\n"
            "                    gss_init_sec_context, with a credential in "
            "hand and the\n"
            "                    default one: us per context (the initiator's "
            "calls only),\n"
            "                    heap bytes per context, allocations, as "
            "ratios; then\n"
            "                    gk5 kinit and gk5 kvno beside MIT's kinit "
            "and kvno as\n"
            "                    whole commands, 30 runs each (10 with "
            "--quick): ms per\n"
            "                    run from spawn to exit, as ratios\n"
            "  --scale[=LIST]    instead: one context shared by N threads "
            "against one\n"
            "                    context per thread, N from LIST (default "
            "1,2,4,8,16,\n"
            "                    capped at the CPUs online): get_mic, "
            "verify_mic, wrap,\n"
            "                    unwrap at 64 B, 1 KiB, 16 KiB (or --sizes), "
            "aes256-sha1\n"
            "                    (or --enctypes); aggregate calls/s, MB/s "
            "and shared/own,\n"
            "                    after what moving one cache line between "
            "two CPUs\n"
            "                    costs here.  Fixed keys: needs no KDC, no "
            "file\n"
            "\n"
            "The full run takes several minutes.  Needs the MIT KDC programs: "
            "apt-get\ninstall krb5-kdc krb5-admin-server\n");
#ifndef GK5_HAVE_MIT
    fprintf(f, "\nThis gk5-bench was built without MIT krb5 (-Dmit=disabled): "
               "only --scale runs.\n");
#endif
}

/* The words of --ops and of the report. */
const char *const op_names[OP__COUNT] = {
    [OP_WRAP_SEALED] = "wrap-sealed", [OP_WRAP_1PASS] = "wrap-1pass",
    [OP_WRAP_INTEG] = "wrap-integ",   [OP_UNWRAP] = "unwrap",
    [OP_GET_MIC] = "get_mic",         [OP_VERIFY_MIC] = "verify_mic",
};

/* Comma-separated list; each item through parse_item, which prints what
 * is wrong with a bad one. */
static int parse_list(const char *arg, const char *what,
                      int (*parse_item)(const char *item, void *slot),
                      void *slots, size_t slot_size, size_t max, size_t *count)
{
    char buf[256];
    char *save = NULL;

    if (strlen(arg) >= sizeof(buf)) {
        cli_error("bench: --%s: list too long", what);
        return -1;
    }
    snprintf(buf, sizeof(buf), "%s", arg);
    *count = 0;
    for (char *item = strtok_r(buf, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        if (*count == max) {
            cli_error("bench: --%s: at most %zu", what, max);
            return -1;
        }
        if (parse_item(item, (uint8_t *)slots + *count * slot_size) != 0) {
            return -1; /* parse_item said why */
        }
        (*count)++;
    }
    if (*count == 0) {
        cli_error("bench: --%s: empty list: nothing to measure", what);
        return -1;
    }
    return 0;
}

static int parse_size_item(const char *item, void *slot)
{
    size_t *size = slot;

    if (cli_parse_size(item, 64u << 20, size) != 0 || *size == 0) {
        cli_error("bench: --sizes: '%s' is not a size from 1 byte to 64m",
                  item);
        return -1;
    }
    return 0;
}

static int parse_enctype_item(const char *item, void *slot)
{
    int32_t et = 0;

    if (gk5_enctype_from_name(item, &et) != GK5_OK) {
        cli_error("bench: --enctypes: unknown enctype '%s' (see 'gk5 "
                  "enctypes')",
                  item);
        return -1;
    }
    *(int32_t *)slot = et;
    return 0;
}

/* Comma-separated op names into want[]. */
static int parse_ops(const char *arg, bool want[OP__COUNT])
{
    char buf[256];
    char *save = NULL;
    bool any = false;

    if (strlen(arg) >= sizeof(buf)) {
        cli_error("bench: ops list too long");
        return -1;
    }
    snprintf(buf, sizeof(buf), "%s", arg);
    for (char *item = strtok_r(buf, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        int op = 0;

        while (op < OP__COUNT && strcmp(op_names[op], item) != 0) {
            op++;
        }
        if (op == OP__COUNT) {
            cli_error("bench: unknown op '%s' (wrap-sealed, wrap-1pass, "
                      "wrap-integ, unwrap, get_mic, verify_mic)",
                      item);
            return -1;
        }
        want[op] = true;
        any = true;
    }
    if (!any) {
        cli_error("bench: empty ops list");
        return -1;
    }
    return 0;
}

static const int32_t default_enctypes[] = {17, 18, 19, 20, 25, 26,
#ifdef GK5_WITH_DES3
                                           16
#endif
};

#ifdef GK5_HAVE_MIT
/* The runs that set gk5 beside MIT krb5, in a throwaway MIT realm: the
 * default run, or --contexts, --accept or --init (a count above 0). */
static int run_against_mit(struct config *cfg, unsigned contexts,
                           unsigned accepts, unsigned inits)
{
    struct results res;
    gk5_mit_realm realm;
    char err[512];
    double t0;
    int failed = 0;

    memset(&res, 0, sizeof(res));
    timing_use_cpu_clock(cfg->cpu_clock);
    setvbuf(stdout, NULL, _IOLBF, 0);
    t0 = now_s();
    if (gk5_mit_realm_start(&realm, err, sizeof(err)) != 0) {
        cli_error("bench: %s", err);
        return CLI_EXIT_FAIL;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    if (contexts > 0) {
        failed = bench_contexts(&realm, cfg->enctypes, cfg->n_enctypes,
                                cfg->quick ? 200 : contexts);
        gk5_mit_realm_stop(&realm);
        printf("\n%.0f s in all (the KDC is stopped).\n", now_s() - t0);
        return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    if (accepts > 0) {
        failed = bench_accept(cfg, &realm, accepts);
        gk5_mit_realm_stop(&realm);
        printf("\n%.0f s in all (the KDC is stopped).%s\n", now_s() - t0,
               failed != 0 ? "  SOME ENCTYPES FAILED." : "");
        return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    if (inits > 0) {
        failed = bench_init(cfg, &realm, inits);
        gk5_mit_realm_stop(&realm);
        printf("\n%.0f s in all (the KDC is stopped).%s\n", now_s() - t0,
               failed != 0 ? "  SOME ENCTYPES OR COMMANDS FAILED." : "");
        return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    for (size_t i = 0; i < cfg->n_enctypes; i++) {
        if (bench_enctype(cfg, &res, &realm, cfg->enctypes[i]) != 0) {
            failed++;
        }
    }
    gk5_mit_realm_stop(&realm);

    if (cfg->csv) {
        print_csv(cfg, &res);
    } else {
        print_preamble(cfg);
        print_results(cfg, &res);
        printf("\n%.0f s in all (the KDC is stopped).%s\n", now_s() - t0,
               failed != 0 ? "  SOME ENCTYPES FAILED." : "");
    }
    free(res.rows);
    free(res.thr);
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
#else
/* Built without MIT krb5: the runs that need it name their reason. */
static int run_against_mit(struct config *cfg, unsigned contexts,
                           unsigned accepts, unsigned inits)
{
    const char *run = contexts > 0  ? "--contexts"
                      : accepts > 0 ? "--accept"
                      : inits > 0   ? "--init"
                                    : "the default run";

    (void)cfg;
    cli_error("bench: %s sets gk5 beside MIT krb5 in a throwaway MIT realm, "
              "and this gk5-bench was built without MIT krb5 "
              "(-Dmit=disabled): only --scale runs",
              run);
    return CLI_EXIT_USAGE;
}
#endif

int main(int argc, char **argv)
{
    enum {
        OPT_ROUNDS = 256,
        OPT_MIN_TIME,
        OPT_SIZES,
        OPT_ENCTYPES,
        OPT_OPS,
        OPT_CPU_CLOCK,
        OPT_CONTEXTS,
        OPT_ACCEPT,
        OPT_INIT,
        OPT_SCALE
    };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"quick", no_argument, NULL, 'q'},
        {"csv", no_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 't'},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"min-time", required_argument, NULL, OPT_MIN_TIME},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"enctypes", required_argument, NULL, OPT_ENCTYPES},
        {"ops", required_argument, NULL, OPT_OPS},
        {"cpu-clock", no_argument, NULL, OPT_CPU_CLOCK},
        {"contexts", optional_argument, NULL, OPT_CONTEXTS},
        {"accept", optional_argument, NULL, OPT_ACCEPT},
        {"init", optional_argument, NULL, OPT_INIT},
        {"scale", optional_argument, NULL, OPT_SCALE},
        {NULL, 0, NULL, 0},
    };
    unsigned contexts = 0, accepts = 0, inits = 0;
    bool accepts_given = false, inits_given = false, scale = false;
    const char *scale_threads = NULL;
    struct config cfg;
    bool threads_given = false, rounds_given = false, time_given = false;
    bool sizes_given = false, ops_given = false;
    uint32_t v;
    char *end = NULL;
    int c;

#ifdef GK5_HAVE_RPC
    /* `gk5 nfs4 bench ARGS` runs `gk5-bench nfs4 bench ARGS` (nfs4.c). */
    if (argc > 1 && strcmp(argv[1], "nfs4") == 0) {
        if (argc < 3 || strcmp(argv[2], "bench") != 0) {
            cli_error("gk5-bench nfs4: only 'bench' (as gk5 nfs4 bench)");
            return CLI_EXIT_USAGE;
        }
        return bench_nfs4(argc - 2, argv + 2);
    }
    /* `gk5 rpc echo ARGS` runs `gk5-bench rpc echo ARGS` (rpc_echo.c). */
    if (argc > 1 && strcmp(argv[1], "rpc") == 0) {
        if (argc < 3 || strcmp(argv[2], "echo") != 0) {
            cli_error("gk5-bench rpc: only 'echo' (as gk5 rpc echo)");
            return CLI_EXIT_USAGE;
        }
        return bench_rpc_echo(argc - 2, argv + 2);
    }
#endif
    memset(&cfg, 0, sizeof(cfg));
    cfg.rounds = 3;
    cfg.min_time = 0.3;
    cfg.warmup = 0.03;
    cfg.threads = 2;
    cfg.thread_size = 16384;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":hqct:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            bench_usage(stdout);
            return CLI_EXIT_OK;
        case 'q':
            cfg.quick = true;
            break;
        case 'c':
            cfg.csv = true;
            break;
        case 't':
            if (cli_parse_u32(optarg, &v) != 0 || v > MAX_THREADS) {
                cli_error("bench: --threads takes 0..%d", MAX_THREADS);
                return CLI_EXIT_USAGE;
            }
            cfg.threads = (int)v;
            threads_given = true;
            break;
        case OPT_ROUNDS:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > 100) {
                cli_error("bench: --rounds takes 1..100");
                return CLI_EXIT_USAGE;
            }
            cfg.rounds = (int)v;
            rounds_given = true;
            break;
        case OPT_MIN_TIME:
            errno = 0;
            cfg.min_time = strtod(optarg, &end);
            if (errno != 0 || end == optarg || *end != '\0' ||
                !(cfg.min_time > 0.0 && cfg.min_time <= 60.0)) {
                cli_error("bench: --min-time takes seconds, 0 < S <= 60");
                return CLI_EXIT_USAGE;
            }
            time_given = true;
            break;
        case OPT_SIZES:
            if (parse_list(optarg, "sizes", parse_size_item, cfg.sizes,
                           sizeof(cfg.sizes[0]), MAX_SIZES,
                           &cfg.n_sizes) != 0) {
                return CLI_EXIT_USAGE;
            }
            sizes_given = true;
            break;
        case OPT_ENCTYPES:
            if (parse_list(optarg, "enctypes", parse_enctype_item, cfg.enctypes,
                           sizeof(cfg.enctypes[0]), MAX_ENCTYPES,
                           &cfg.n_enctypes) != 0) {
                return CLI_EXIT_USAGE;
            }
            /* Before the KDC starts: a list with an enctype gk5 cannot
             * measure (rc4, single DES, des3 not built, unknown) is an
             * error that says why, not a run that skips it. */
            for (size_t i = 0; i < cfg.n_enctypes; i++) {
                uint32_t refusal = gk5_enctype_check(cfg.enctypes[i]);

                if (refusal != GK5_OK) {
                    cli_error("bench: --enctypes: %s", gk5_strerror(refusal));
                    return CLI_EXIT_FAIL;
                }
            }
            break;
        case OPT_CPU_CLOCK:
            cfg.cpu_clock = true;
            break;
        case OPT_CONTEXTS:
            contexts = 10000;
            if (optarg != NULL &&
                (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > 1000000)) {
                cli_error("bench: --contexts takes 1..1000000 (default "
                          "10000)");
                return CLI_EXIT_USAGE;
            }
            if (optarg != NULL) {
                contexts = v;
            }
            break;
        case OPT_ACCEPT:
            accepts = 10000;
            if (optarg != NULL &&
                (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > 100000)) {
                cli_error("bench: --accept takes 1..100000 (default 10000)");
                return CLI_EXIT_USAGE;
            }
            if (optarg != NULL) {
                accepts = v;
                accepts_given = true;
            }
            break;
        case OPT_INIT:
            inits = 10000;
            if (optarg != NULL &&
                (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > 100000)) {
                cli_error("bench: --init takes 1..100000 (default 10000)");
                return CLI_EXIT_USAGE;
            }
            if (optarg != NULL) {
                inits = v;
                inits_given = true;
            }
            break;
        case OPT_SCALE:
            scale = true;
            scale_threads = optarg;
            break;
        case OPT_OPS:
            if (parse_ops(optarg, cfg.want_op) != 0) {
                return CLI_EXIT_USAGE;
            }
            ops_given = true;
            break;
        default:
            return cli_option_error("bench", c, argv);
        }
    }
    if ((contexts > 0) + (accepts > 0) + (inits > 0) + scale > 1) {
        cli_error("bench: --contexts, --accept, --init and --scale are "
                  "separate runs: one at a time");
        return CLI_EXIT_USAGE;
    }
    if (optind < argc) {
        cli_error("bench: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (scale) {
        /* No KDC and no file: fixed-key contexts (scale.c); aes256-sha1
         * unless --enctypes, 64 B, 1 KiB and 16 KiB unless --sizes. */
        if (cfg.n_enctypes == 0) {
            cfg.enctypes[0] = 18;
            cfg.n_enctypes = 1;
        }
        if (cfg.quick && !rounds_given) {
            cfg.rounds = 1;
        }
        if (cfg.quick && !time_given) {
            cfg.min_time = 0.05;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        return bench_scale(&cfg, scale_threads) == 0 ? CLI_EXIT_OK
                                                     : CLI_EXIT_FAIL;
    }
    if (cfg.quick) {
        if (!rounds_given) {
            cfg.rounds = 2;
        }
        if (!time_given) {
            cfg.min_time = 0.07;
        }
        cfg.warmup = 0.01;
        if (!sizes_given) {
            cfg.sizes[0] = 16384;
            cfg.n_sizes = 1;
        }
        if (!threads_given) {
            cfg.threads = 0;
        }
        if (!accepts_given && accepts > 0) {
            accepts = 1000;
        }
        if (!inits_given && inits > 0) {
            inits = 1000;
        }
    }
    if (cfg.n_sizes == 0) {
        /* 64 and 256 bytes: what RPCSEC_GSS verifiers and headers are. */
        cfg.sizes[0] = 64;
        cfg.sizes[1] = 256;
        cfg.sizes[2] = 1024;
        cfg.sizes[3] = 16384;
        cfg.sizes[4] = 1u << 20;
        cfg.n_sizes = 5;
    }
    if (cfg.n_enctypes == 0) {
        memcpy(cfg.enctypes, default_enctypes, sizeof(default_enctypes));
        cfg.n_enctypes = GK5_ARRAY_SIZE(default_enctypes);
    }
    if (!ops_given) {
        for (int op = 0; op < OP__COUNT; op++) {
            cfg.want_op[op] = true;
        }
    }
    if (cfg.threads == 1) {
        cfg.threads = 0; /* 1 against 1 says nothing */
    }

    return run_against_mit(&cfg, contexts, accepts, inits);
}
