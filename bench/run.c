/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench: one enctype's run.  A session established by MIT in the
 * throwaway realm, its initiator imported into gk5, the floor keyed; then
 * every size and op, and the thread section, into the results.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gk5/gk5.h>

#include "bench.h"
#include "bridge/lucid.h"
#include "cli.h"

/* wrap-sealed runs on the serial path (every path beside OpenSSL's EVP
 * layer off: EVP AES-CBC, then or after the HMAC), wrap-1pass is the same
 * calls as gk5 ships them (AES-NI, one pass where it applies); every other
 * row runs as gk5 ships. */
static bool measure_row(const struct config *cfg, struct worker *w,
                        struct row_result *r, char *why, size_t why_len)
{
    bool ok;

    (void)gk5i_onepass_set_enabled(r->op != OP_WRAP_SEALED);
    ok = measure_row_timed(cfg, w, r, why, why_len);
    (void)gk5i_onepass_set_enabled(true);
    return ok;
}

/* The shipped path differs from the serial one for every enctype but
 * DES3 on a CPU with AES-NI and SHA-NI: AES on AES-NI (one pass for aes-sha1
 * and aes128-sha256), Camellia and its CMAC on OpenSSL's low-level
 * Camellia. */
static bool onepass_applies(const struct gk5_enctype *row)
{
    return !row->rfc1964 && gk5i_onepass_set_enabled(true);
}

#define THREAD_OPS 4
static const enum op thread_ops[THREAD_OPS] = {OP_WRAP_SEALED, OP_UNWRAP,
                                               OP_GET_MIC, OP_VERIFY_MIC};
static const enum impl thread_impls[3] = {IMPL_GK5, IMPL_IOV, IMPL_FLOOR};

static void *grow(void *p, size_t *cap, size_t elem)
{
    size_t ncap = *cap == 0 ? 64 : *cap * 2;
    void *q = realloc(p, ncap * elem);

    if (q != NULL) {
        *cap = ncap;
    }
    return q;
}

static struct row_result *add_row(struct results *res)
{
    if (res->n_rows == res->cap_rows) {
        struct row_result *q =
            grow(res->rows, &res->cap_rows, sizeof(*res->rows));
        if (q == NULL) {
            return NULL;
        }
        res->rows = q;
    }
    memset(&res->rows[res->n_rows], 0, sizeof(res->rows[0]));
    return &res->rows[res->n_rows++];
}

static struct thread_result *add_thr(struct results *res)
{
    if (res->n_thr == res->cap_thr) {
        struct thread_result *q =
            grow(res->thr, &res->cap_thr, sizeof(*res->thr));
        if (q == NULL) {
            return NULL;
        }
        res->thr = q;
    }
    memset(&res->thr[res->n_thr], 0, sizeof(res->thr[0]));
    return &res->thr[res->n_thr++];
}

static void progress(const struct config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void progress(const struct config *cfg, const char *fmt, ...)
{
    va_list ap;

    (void)cfg;
    if (!isatty(STDERR_FILENO)) {
        return;
    }
    va_start(ap, fmt);
    fputs("gk5 bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* All sizes and ops for one session; returns 0 or -1 (why set). */
static int bench_sizes(const struct config *cfg, struct results *res,
                       const struct gk5_enctype *row, enum family fam,
                       gk5_ctx *g, gss_ctx_id_t m, const struct floor_keys *fk,
                       char *why, size_t why_len)
{
    for (size_t si = 0; si < cfg->n_sizes; si++) {
        struct shared s;
        struct worker w;
        char sz[32];
        int ret = -1;

        if (shared_init(&s, row, fam, g, m, fk, cfg->sizes[si], why, why_len) !=
                0 ||
            worker_init(&w, &s) != 0) {
            shared_free(&s);
            return -1;
        }
        progress(cfg, "%s, %s", row->name, size_name(s.size, sz, sizeof(sz)));
        for (int op = 0; op < OP__COUNT; op++) {
            struct row_result *r;

            if (!cfg->want_op[op] ||
                (op == OP_WRAP_1PASS && !onepass_applies(row))) {
                continue;
            }
            r = add_row(res);

            if (r == NULL) {
                snprintf(why, why_len, "out of memory");
                goto next;
            }
            r->enctype = row->num;
            r->size = s.size;
            r->op = (enum op)op;
            if (!measure_row(cfg, &w, r, why, why_len)) {
                goto next;
            }
        }
        ret = 0;

    next:
        worker_free(&w);
        shared_free(&s);
        if (ret != 0) {
            return -1;
        }
    }
    return 0;
}

/* N threads against 1 on the same context, at cfg->thread_size. */
static int bench_threads(const struct config *cfg, struct results *res,
                         const struct gk5_enctype *row, enum family fam,
                         gk5_ctx *g, gss_ctx_id_t m,
                         const struct floor_keys *fk, char *why, size_t why_len)
{
    struct shared s;
    struct thr *t = NULL;
    int n = cfg->threads, inited = 0, ret = -1;

    if (shared_init(&s, row, fam, g, m, fk, cfg->thread_size, why, why_len) !=
        0) {
        goto cleanup;
    }
    t = calloc((size_t)n, sizeof(*t));
    if (t == NULL) {
        snprintf(why, why_len, "out of memory");
        goto cleanup;
    }
    for (; inited < n; inited++) {
        if (worker_init(&t[inited].w, &s) != 0) {
            snprintf(why, why_len, "out of memory");
            goto cleanup;
        }
    }
    progress(cfg, "%s, %d threads", row->name, n);
    for (int oi = 0; oi < THREAD_OPS; oi++) {
        for (int ii = 0; ii < 3; ii++) {
            enum op op = thread_ops[oi];
            enum impl im = thread_impls[ii];
            struct thread_result *tr;

            if (!cfg->want_op[op]) {
                continue;
            }
            tr = add_thr(res);
            if (tr == NULL) {
                snprintf(why, why_len, "out of memory");
                goto cleanup;
            }
            tr->enctype = row->num;
            tr->op = op;
            tr->impl = im;
            struct figure fig[4];

            if (!thr_measure(cfg, t, n, op_table[op][im], s.size, fig)) {
                snprintf(why, why_len, "%s %s failed in a thread",
                         impl_names[im], op_names[op]);
                goto cleanup;
            }
            tr->one = fig[0];
            tr->many = fig[1];
            tr->one_cpu = fig[2];
            tr->many_cpu = fig[3];
        }
    }
    ret = 0;

cleanup:
    for (int i = 0; i < inited; i++) {
        worker_free(&t[i].w);
    }
    free(t);
    shared_free(&s);
    return ret;
}

static enum family family_of(const struct gk5_enctype *row)
{
    /* RFC 8009 is the only encrypt-then-MAC family. */
    return row->family == GK5I_FAMILY_AES_SHA2 ? FAM_ETM : FAM_MTE;
}

/* Establish a session, import the initiator into gk5, and measure. */
int bench_enctype(const struct config *cfg, struct results *res,
                  gk5_mit_realm *realm, int32_t et)
{
    const struct gk5_enctype *row = NULL;
    struct floor_keys fk;
    gk5_mit_pair pair;
    gk5_mit_status st;
    gk5_ctx *g = NULL;
    int32_t got = 0;
    uint32_t minor = 0;
    char text[512], why[512] = "";
    enum family fam;
    int ret = -1;

    memset(&fk, 0, sizeof(fk));
    memset(&pair, 0, sizeof(pair));
    if (gk5i_enctype_usable(et, &row) != GK5_OK) {
        cli_warn("bench: %s (%d) is not usable in this build: skipped",
                 et_name(et), (int)et);
        return 0;
    }
    fam = family_of(row);
    progress(cfg, "%s: establishing a context with MIT", row->name);
    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        snprintf(why, sizeof(why), "MIT: %s",
                 gk5_mit_status_text(&st, text, sizeof(text)));
        goto cleanup;
    }
    if (GK5_ERROR(gk5_mit_import_by_path(&st, &pair.init, GK5_MIT_PATH_LUCID,
                                         &got, &g)) != 0) {
        snprintf(why, sizeof(why), "import: %s",
                 gk5_mit_status_text(&st, text, sizeof(text)));
        goto cleanup;
    }
    if (gk5i_enctype_canonical(got) != et) {
        snprintf(why, sizeof(why), "the KDC issued enctype %d, not %d",
                 (int)got, (int)et);
        goto cleanup;
    }
    /* Unwrapping one token again and again is a replay: measure with the
     * receive window's reports off. */
    if (gk5_ctx_set_flags(&minor, g, 0) != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_ctx_set_flags failed");
        goto cleanup;
    }
    if (floor_keys_new(row, fam, &fk) != 0) {
        snprintf(why, sizeof(why), "cannot key the OpenSSL floor");
        goto cleanup;
    }
    if (bench_sizes(cfg, res, row, fam, g, pair.acc, &fk, why, sizeof(why)) !=
        0) {
        goto cleanup;
    }
    if (cfg->threads > 0 && bench_threads(cfg, res, row, fam, g, pair.acc, &fk,
                                          why, sizeof(why)) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    if (ret != 0) {
        cli_error("bench: %s (%d): %s", et_name(et), (int)et, why);
    }
    floor_keys_free(&fk);
    gk5_ctx_free(g);
    gk5_mit_pair_release(&pair);
    return ret;
}
