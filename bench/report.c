/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench's output: the text before the tables, one table per enctype
 * (MB/s, the ratios gk5/MIT and gk5/floor, allocations per call, spread),
 * the thread section, and the same figures as CSV.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bench.h"

const char *size_name(size_t n, char *buf, size_t len)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0) {
        snprintf(buf, len, "%zuMiB", n >> 20);
    } else if (n >= 1024 && n % 1024 == 0) {
        snprintf(buf, len, "%zuKiB", n >> 10);
    } else {
        snprintf(buf, len, "%zuB", n);
    }
    return buf;
}

const char *et_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "?";
}

static void print_mbps(const struct figure *f)
{
    if (f->have) {
        printf(" %9.1f", f->best);
    } else {
        printf(" %9s", "-");
    }
}

static void print_ratio(const struct figure *a, const struct figure *b)
{
    if (a->have && b->have && b->best > 0) {
        printf(" %8.2f", a->best / b->best);
    } else {
        printf(" %8s", "-");
    }
}

static void allocs_text(double a, char *buf, size_t len)
{
    if (a < 0) {
        snprintf(buf, len, "?");
    } else if (a == (double)(long)a) {
        snprintf(buf, len, "%ld", (long)a);
    } else {
        snprintf(buf, len, "%.2f", a);
    }
}

static void print_table_header(void)
{
    printf("%-11s %6s %9s %9s %9s %9s %8s %8s %8s %9s %5s\n", "op", "size",
           "MIT", "gk5", "gk5-iov", "floor", "gk5/MIT", "gk5/flr", "iov/flr",
           "allocs", "+-%");
}

static void print_row(const struct row_result *r)
{
    const struct figure *f = r->fig;
    char sz[32], a1[16], a2[16], al[40];
    double spread = 0;

    for (int i = 0; i < IMPL__COUNT; i++) {
        if (spread_pct(&f[i]) > spread) {
            spread = spread_pct(&f[i]);
        }
    }
    allocs_text(f[IMPL_GK5].allocs, a1, sizeof(a1));
    allocs_text(f[IMPL_IOV].allocs, a2, sizeof(a2));
    snprintf(al, sizeof(al), "%s/%s", a1, a2);
    printf("%-11s %6s", op_names[r->op], size_name(r->size, sz, sizeof(sz)));
    print_mbps(&f[IMPL_MIT]);
    print_mbps(&f[IMPL_GK5]);
    print_mbps(&f[IMPL_IOV]);
    print_mbps(&f[IMPL_FLOOR]);
    print_ratio(&f[IMPL_GK5], &f[IMPL_MIT]);
    print_ratio(&f[IMPL_GK5], &f[IMPL_FLOOR]);
    print_ratio(&f[IMPL_IOV], &f[IMPL_FLOOR]);
    printf(" %9s %5.1f\n", al, spread);
}

static void csv_figure(const char *section, int32_t et, const char *op,
                       size_t size, const char *impl, int threads,
                       const struct figure *f)
{
    char a[16];

    if (!f->have) {
        return;
    }
    allocs_text(f->allocs, a, sizeof(a));
    printf("%s,%d,%s,%s,%zu,%s,%d,%.2f,%.2f,%.2f,%d,%s\n", section, (int)et,
           et_name(et), op, size, impl, threads, f->best, f->worst,
           spread_pct(f), f->rounds, f->allocs < 0 ? "" : a);
}

static void print_threads(const struct config *cfg, const struct results *res)
{
    int32_t last = 0;

    if (res->n_thr == 0) {
        return;
    }
    printf("\nThreads: %d on one gk5 context at %zu bytes (aggregate MB/s; "
           "scaling = %d threads / 1 thread;\nthe floor's threads each "
           "have their own OpenSSL contexts: what the machine allows;\n"
           "gk5 as shipped, one-pass sealing on where it applies).  "
           "cpu-scal = %d x (MB per\nCPU second with %d threads) / (the same "
           "with 1): the scaling if each thread had a\nCPU to itself, which "
           "shows the cost of sharing the context even when other work\n"
           "keeps the CPUs busy.\n",
           cfg->threads, cfg->thread_size, cfg->threads, cfg->threads,
           cfg->threads);
    printf("%-11s %-8s %9s %9s %8s %8s %5s\n", "op", "api", "1 thread", "N thr",
           "scaling", "cpu-scal", "+-%");
    for (size_t i = 0; i < res->n_thr; i++) {
        const struct thread_result *t = &res->thr[i];
        double sp = spread_pct(&t->one) > spread_pct(&t->many)
                        ? spread_pct(&t->one)
                        : spread_pct(&t->many);

        if (t->enctype != last) {
            printf("%s (%d)\n", et_name(t->enctype), (int)t->enctype);
            last = t->enctype;
        }
        printf("%-11s %-8s", op_names[t->op], impl_names[t->impl]);
        print_mbps(&t->one);
        print_mbps(&t->many);
        print_ratio(&t->many, &t->one);
        if (t->one_cpu.have && t->one_cpu.best > 0) {
            printf(" %8.2f", cfg->threads * t->many_cpu.best / t->one_cpu.best);
        } else {
            printf(" %8s", "-");
        }
        printf(" %5.1f\n", sp);
    }
}

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(buf, len, "unknown CPU");
    if (f == NULL) {
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');

            if (p != NULL) {
                p += 1 + strspn(p + 1, " \t");
                p[strcspn(p, "\n")] = '\0';
                snprintf(buf, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

void print_preamble(const struct config *cfg)
{
    struct utsname u;
    char cpu[256];
    double share = 0, min_share = 0;

    cpu_model(cpu, sizeof(cpu));
    if (uname(&u) != 0) {
        memset(&u, 0, sizeof(u));
    }
    printf("gk5 bench: gk5 %s, %s, MIT krb5 (system libgssapi_krb5)\n",
           gk5_version(), OpenSSL_version(OPENSSL_VERSION));
    printf("machine: %s, %ld CPUs online, %s %s\n", cpu,
           sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release);
    printf("%s: each figure is the best of %d round%s of >= %.2f s "
           "(%s);\n"
           "+-%% is the widest spread (best - worst) / best of the row's "
           "figures.\n",
           cfg->quick ? "quick run (a smoke test, not for the record)"
                      : "full run",
           cfg->rounds, cfg->rounds == 1 ? "" : "s", cfg->min_time,
           cfg->cpu_clock ? "the thread's CPU time, --cpu-clock"
                          : "CLOCK_MONOTONIC");
    printf("MB/s = 10^6 message bytes per second.  MIT: the acceptor of a "
           "session MIT\nestablished; gk5: its initiator, imported by lucid "
           "export; each takes the\nother's tokens.  gk5 = contiguous API "
           "(gk5_wrap, ...; output released each\ncall); gk5-iov = IOV API "
           "with the caller's buffers, in place.\n"
           "floor = the same crypto over the same bytes with OpenSSL EVP "
           "contexts keyed\nonce: encrypt + MAC (wrap-sealed), decrypt + MAC "
           "(unwrap), MAC alone\n(wrap-integ, get_mic, verify_mic).\n"
           "unwrap: the same token every call, so gk5 runs with replay and "
           "sequence\ndetection off (gk5_ctx_set_flags); MIT keeps them on "
           "and reports DUPLICATE\n(supplementary) while still decrypting.  "
           "gk5-iov unwrap copies the token back\ninto its buffers before "
           "each call; the time of that copy, measured alone, is\n"
           "subtracted.\n"
           "wrap-sealed runs gk5's serial path (OpenSSL's EVP AES, and the "
           "MAC before or\nafter it); wrap-1pass what gk5 ships: on AES-NI "
           "and SHA-NI CPUs, AES on\nAES-NI (for aes-sha1 and aes128-sha256 "
           "the one-pass sealing that interleaves\nthe CBC and the HMAC over "
           "each 64-byte piece), Camellia and its CMAC on\nOpenSSL's "
           "low-level Camellia.  Every other row runs as gk5 ships.\n");
    if (timing_cpu_share(&share, &min_share)) {
        printf("CPU share of the timing thread over the single-threaded "
               "rounds: %.0f%% (lowest\nround %.0f%%); well under 100%% "
               "means other work shared the CPU and the\nfigures are "
               "low by about that much.\n",
               100.0 * share, 100.0 * min_share);
    }
    if (alloc_count_available()) {
        printf("allocs = heap allocations per call (malloc, calloc, "
               "realloc, OpenSSL's\nincluded), gk5/gk5-iov.\n");
    } else {
        printf("allocs: not counted in a sanitizer build.\n");
    }
}

void print_results(const struct config *cfg, const struct results *res)
{
    int32_t last = 0;

    for (size_t i = 0; i < res->n_rows; i++) {
        const struct row_result *r = &res->rows[i];

        if (r->enctype != last) {
            printf("\n%s (%d)\n", et_name(r->enctype), (int)r->enctype);
            print_table_header();
            last = r->enctype;
        }
        print_row(r);
    }
    print_threads(cfg, res);
}

void print_csv(const struct config *cfg, const struct results *res)
{
    printf("section,enctype,enctype_name,op,size,impl,threads,best_MBps,"
           "worst_MBps,spread_pct,rounds,allocs_per_call\n");
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct row_result *r = &res->rows[i];

        for (int im = 0; im < IMPL__COUNT; im++) {
            csv_figure("single", r->enctype, op_names[r->op], r->size,
                       impl_names[im], 1, &r->fig[im]);
        }
        csv_figure("single", r->enctype, op_names[r->op], r->size,
                   "gk5-iov-restore", 1, &r->restore);
    }
    for (size_t i = 0; i < res->n_thr; i++) {
        const struct thread_result *t = &res->thr[i];

        csv_figure("threads", t->enctype, op_names[t->op], cfg->thread_size,
                   impl_names[t->impl], 1, &t->one);
        csv_figure("threads", t->enctype, op_names[t->op], cfg->thread_size,
                   impl_names[t->impl], cfg->threads, &t->many);
        csv_figure("threads-per-cpu-second", t->enctype, op_names[t->op],
                   cfg->thread_size, impl_names[t->impl], 1, &t->one_cpu);
        csv_figure("threads-per-cpu-second", t->enctype, op_names[t->op],
                   cfg->thread_size, impl_names[t->impl], cfg->threads,
                   &t->many_cpu);
    }
}
