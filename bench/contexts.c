/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench --contexts N: what a server holding many contexts pays, gk5
 * beside MIT krb5, for each enctype, in one run.
 *
 * One MIT context pair is established in the bench's realm; the
 * acceptor is exported (gss_export_sec_context) and the initiator seals
 * one token.  Then N acceptor contexts are made from that state -- MIT's by
 * gss_import_sec_context of the exported token, gk5's by
 * gk5_ctx_import_lucid of the same context's lucid data -- all kept alive
 * at once; each seals one message and unseals the initiator's token (its
 * first use in both directions: lazily keyed state is counted here); then
 * all are freed.  Printed: microseconds per import, per first pair of
 * messages and per free, and heap bytes per live context after both
 * directions were used (glibc's mallinfo2, in use before and after), as
 * ratios gk5/MIT.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bench.h"
#include "bridge/lucid.h"
#include "cli.h"

struct ctx_figures {
    double import_us, first_us, free_us, bytes;
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t heap_in_use(void)
{
    return mallinfo2().uordblks;
}

/* One implementation's three steps on context i of n. */
struct ctx_impl {
    const char *name;
    int (*import)(void *st, unsigned i);
    int (*first)(void *st, unsigned i); /* one sealed wrap, one unwrap */
    void (*release)(void *st, unsigned i);
};

static int measure(const struct ctx_impl *im, void *st, unsigned n,
                   struct ctx_figures *f)
{
    size_t h0, h1;
    double t0;
    unsigned made = 0;
    int ret = -1;

    h0 = heap_in_use();
    t0 = now();
    for (; made < n; made++) {
        if (im->import(st, made) != 0) {
            cli_error("bench: %s: importing context %u failed", im->name, made);
            goto cleanup;
        }
    }
    f->import_us = (now() - t0) / n * 1e6;
    t0 = now();
    for (unsigned i = 0; i < n; i++) {
        if (im->first(st, i) != 0) {
            cli_error("bench: %s: the first messages of context %u failed",
                      im->name, i);
            goto cleanup;
        }
    }
    f->first_us = (now() - t0) / n * 1e6;
    h1 = heap_in_use();
    f->bytes = h1 > h0 ? (double)(h1 - h0) / n : 0;
    ret = 0;

cleanup:
    t0 = now();
    for (unsigned i = 0; i < made; i++) {
        im->release(st, i);
    }
    f->free_us = made > 0 ? (now() - t0) / made * 1e6 : 0;
    return ret;
}

/* What both implementations start from. */
struct start {
    gss_buffer_desc exported; /* MIT's acceptor export */
    gss_buffer_desc token;    /* the initiator's sealed token */
    const gk5_lucid_ctx *lucid;
    uint8_t msg[64];
    gss_ctx_id_t *mit;
    gk5_ctx **gk5;
};

static int mit_import(void *p, unsigned i)
{
    struct start *s = p;
    gss_buffer_desc copy = s->exported; /* MIT reads it only */
    OM_uint32 minor;

    return GSS_ERROR(gss_import_sec_context(&minor, &copy, &s->mit[i])) ? -1
                                                                        : 0;
}

static int mit_first(void *p, unsigned i)
{
    struct start *s = p;
    gss_buffer_desc in = {sizeof(s->msg), s->msg}, tok = s->token;
    gss_buffer_desc out = GSS_C_EMPTY_BUFFER, back = GSS_C_EMPTY_BUFFER;
    OM_uint32 minor, tmp;
    int bad = GSS_ERROR(gss_wrap(&minor, s->mit[i], 1, 0, &in, NULL, &out)) ||
              GSS_ERROR(gss_unwrap(&minor, s->mit[i], &tok, &back, NULL, NULL));

    (void)gss_release_buffer(&tmp, &out);
    (void)gss_release_buffer(&tmp, &back);
    return bad ? -1 : 0;
}

static void mit_release(void *p, unsigned i)
{
    struct start *s = p;
    OM_uint32 tmp;

    (void)gss_delete_sec_context(&tmp, &s->mit[i], GSS_C_NO_BUFFER);
}

static int gk5_import(void *p, unsigned i)
{
    struct start *s = p;
    uint32_t minor;

    return GK5_ERROR(gk5_ctx_import_lucid(&minor, s->lucid, &s->gk5[i])) != 0
               ? -1
               : 0;
}

static int gk5_first(void *p, unsigned i)
{
    struct start *s = p;
    gk5_buffer in = {sizeof(s->msg), s->msg};
    gk5_buffer tok = {s->token.length, s->token.value};
    gk5_buffer out = {0, NULL}, back = {0, NULL};
    uint32_t minor;
    int bad = GK5_ERROR(gk5_wrap(&minor, s->gk5[i], 1, 0, &in, NULL, &out)) ||
              GK5_ERROR(gk5_unwrap(&minor, s->gk5[i], &tok, &back, NULL, NULL));

    gk5_buffer_release(&out);
    gk5_buffer_release(&back);
    return bad ? -1 : 0;
}

static void gk5_release(void *p, unsigned i)
{
    struct start *s = p;

    gk5_ctx_free(s->gk5[i]);
}

static const struct ctx_impl mit_impl = {"MIT", mit_import, mit_first,
                                         mit_release};
static const struct ctx_impl gk5_impl = {"gk5", gk5_import, gk5_first,
                                         gk5_release};

/* The exported acceptor, one initiator token and the acceptor's lucid
 * data, from one MIT pair of enctype et. */
static int one_enctype(gk5_mit_realm *realm, int32_t et, unsigned n,
                       struct ctx_figures *g, struct ctx_figures *m)
{
    gk5_mit_status st;
    gk5_mit_pair pair;
    gk5_mit_lucid *lucid = NULL;
    struct start s;
    gss_ctx_id_t copy = GSS_C_NO_CONTEXT;
    gss_buffer_desc in;
    OM_uint32 minor, tmp;
    char words[512];
    int ret = -1;

    memset(&pair, 0, sizeof(pair));
    memset(&s, 0, sizeof(s));
    in.length = sizeof(s.msg);
    in.value = s.msg;
    if (GK5_ERROR(gk5_mit_establish(&st, realm, et, &pair)) != 0) {
        cli_error("bench: contexts of enctype %d: %s", (int)et,
                  gk5_mit_status_text(&st, words, sizeof(words)));
        return -1;
    }
    if (GSS_ERROR(gss_wrap(&minor, pair.init, 1, 0, &in, NULL, &s.token)) ||
        GSS_ERROR(gss_export_sec_context(&minor, &pair.acc, &s.exported))) {
        cli_error("bench: contexts of enctype %d: MIT's wrap or export failed",
                  (int)et);
        goto cleanup;
    }
    gss_buffer_desc c2 = s.exported;
    if (GSS_ERROR(gss_import_sec_context(&minor, &c2, &copy)) ||
        GK5_ERROR(gk5_mit_export_lucid(&st, &copy, &lucid)) != 0) {
        cli_error("bench: contexts of enctype %d: no lucid data", (int)et);
        goto cleanup;
    }
    s.lucid = gk5_mit_lucid_fields(lucid);
    s.mit = calloc(n, sizeof(*s.mit));
    s.gk5 = calloc(n, sizeof(*s.gk5));
    /* MIT first, then gk5: each starts from the heap the other left. */
    if (s.mit == NULL || s.gk5 == NULL || measure(&mit_impl, &s, n, m) != 0 ||
        measure(&gk5_impl, &s, n, g) != 0) {
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(s.mit);
    free(s.gk5);
    gk5_mit_lucid_free(lucid);
    if (copy != GSS_C_NO_CONTEXT) {
        (void)gss_delete_sec_context(&tmp, &copy, GSS_C_NO_BUFFER);
    }
    (void)gss_release_buffer(&tmp, &s.token);
    (void)gss_release_buffer(&tmp, &s.exported);
    gk5_mit_pair_release(&pair);
    return ret;
}

int bench_contexts(gk5_mit_realm *realm, const int32_t *enctypes,
                   size_t n_enctypes, unsigned n)
{
    int failed = 0;

    printf("Many live contexts: %u acceptor contexts per enctype kept alive "
           "at once, each\nimported (gk5: gk5_ctx_import_lucid; MIT: "
           "gss_import_sec_context), then one\nsealed wrap and one unwrap "
           "each (first use, both directions), then freed.\nus per "
           "context; bytes = heap in use per live context after both "
           "directions.\n\n",
           n);
    printf("%-28s %8s %8s %8s %8s %7s %9s %9s %6s %8s %8s\n", "enctype",
           "gk5 imp", "MIT imp", "gk5 1st", "MIT 1st", "i+1 g/M", "gk5 B",
           "MIT B", "B g/M", "gk5 free", "MIT free");
    for (size_t i = 0; i < n_enctypes; i++) {
        struct ctx_figures g, m;
        gk5_enctype_desc d;
        const char *name =
            gk5_enctype_describe(enctypes[i], &d) == GK5_OK ? d.name : "?";

        memset(&g, 0, sizeof(g));
        memset(&m, 0, sizeof(m));
        if (one_enctype(realm, enctypes[i], n, &g, &m) != 0) {
            failed++;
            continue;
        }
        printf("%-28s %8.1f %8.1f %8.1f %8.1f %7.2f %9.0f %9.0f %6.2f %8.2f "
               "%8.2f\n",
               name, g.import_us, m.import_us, g.first_us, m.first_us,
               (g.import_us + g.first_us) / (m.import_us + m.first_us), g.bytes,
               m.bytes, m.bytes > 0 ? g.bytes / m.bytes : 0, g.free_us,
               m.free_us);
    }
    return failed;
}
