/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5-bench, the program `gk5 bench` runs: what its parts share.
 *
 *   main.c         the options and the run: realm, enctypes, report
 *   run.c          one enctype: MIT session, gk5 import, sizes, threads
 *   ops.c          the operations measured (MIT, gk5, gk5-iov) and the
 *                  per-size state they run on
 *   floor.c        the raw OpenSSL floor: the same crypto, keyed once
 *   timing.c       clocks, timed rounds, the figures' statistics, threads
 *   report.c       the table, the CSV and the text around them
 *   alloc_count.c  the heap allocation counter (malloc interposed)
 *   contexts.c     --contexts: many live contexts, gk5 beside MIT
 *   accept.c       --accept: accepting AP-REQs, gk5_accept beside MIT
 *   init.c         --init: initiating from a cached ticket, gk5 beside MIT;
 *                  kinit and kvno as whole commands, gk5's beside MIT's
 *   scale.c        --scale: one context shared by threads, fixed keys
 *   clock.c        the monotonic clock every part reads
 *   nfs4.c         gk5 nfs4 bench (built with RPC): NFSv4 WRITE, READ and
 *                  GETATTR through gk5's RPCSEC_GSS
 *   rpc_echo.c     gk5 rpc echo (built with RPC): the echo program's calls,
 *                  timed, from N threads or N calls in flight
 *
 * Built without MIT krb5 (-Dmit=disabled), gk5-bench is main.c, clock.c
 * and scale.c: everything that sets gk5 beside MIT, and the throwaway MIT
 * realm it runs in, is left out (the GK5_HAVE_MIT block below).
 */
#ifndef GK5_BENCH_H
#define GK5_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include <gk5/gk5.h>

#include "crypto/crypto_int.h"

/* ---- What is measured ---- */

enum op {
    OP_WRAP_SEALED,
    OP_WRAP_1PASS, /* wrap-sealed with one-pass AES-SHA1 sealing on */
    OP_WRAP_INTEG,
    OP_UNWRAP,
    OP_GET_MIC,
    OP_VERIFY_MIC,
    OP__COUNT
};
extern const char *const op_names[OP__COUNT];

enum impl { IMPL_MIT, IMPL_GK5, IMPL_IOV, IMPL_FLOOR, IMPL__COUNT };
extern const char *const impl_names[IMPL__COUNT];

/* How an enctype's ciphertext is made (RFC 3961 5.3, RFC 8009 5). */
enum family {
    FAM_MTE, /* MAC-then-encrypt: AES-SHA1, Camellia, DES3 */
    FAM_ETM  /* encrypt-then-MAC over IV | C: AES-SHA2 */
};

#define MAX_SIZES 8
#define MAX_ENCTYPES 8
#define MAX_THREADS 64

struct config {
    int rounds;
    double min_time; /* seconds per round */
    double warmup;   /* seconds before the first round */
    size_t sizes[MAX_SIZES];
    size_t n_sizes;
    int32_t enctypes[MAX_ENCTYPES];
    size_t n_enctypes;
    bool want_op[OP__COUNT];
    int threads; /* 0: no thread section */
    size_t thread_size;
    bool csv;
    bool quick;
    bool cpu_clock; /* time single-thread rounds by the thread's CPU clock */
};

/* One figure: the best and worst of its rounds, in MB/s (10^6 message
 * bytes per second), and heap allocations per call (< 0: not counted). */
struct figure {
    bool have;
    double best, worst;
    int rounds;
    double allocs;
};

/* One row of the table: an op at a size, by each implementation. */
struct row_result {
    int32_t enctype;
    size_t size;
    enum op op;
    struct figure fig[IMPL__COUNT];
    struct figure restore; /* unwrap only: the IOV restore copy alone */
};

/* One row of the thread section: an op by one API, 1 and N threads. */
struct thread_result {
    int32_t enctype;
    enum op op;
    enum impl impl;
    struct figure one, many;         /* wall clock */
    struct figure one_cpu, many_cpu; /* per CPU second */
};

struct results {
    struct row_result *rows;
    size_t n_rows, cap_rows;
    struct thread_result *thr;
    size_t n_thr, cap_thr;
};

/* ---- clock.c ---- */

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

/* scale.c: --scale[=LIST]: one context shared by N threads (LIST, default
 * 1,2,4,8,16, capped at the CPUs online) against one context per thread,
 * fixed keys, no KDC: get_mic, verify_mic, wrap, unwrap at cfg's sizes
 * (default 64, 1024, 16384) for cfg's enctypes.  0, 1 (a call failed) or
 * 2 (a bad LIST). */
int bench_scale(const struct config *cfg, const char *threads_arg);

/* nfs4.c (built with RPC): `gk5-bench nfs4 bench ARGS`, what `gk5 nfs4
 * bench ARGS` runs; argv[0] is "bench".  The exit status. */
int bench_nfs4(int argc, char **argv);
/* rpc_echo.c (built with RPC): `gk5-bench rpc echo ARGS`, what `gk5 rpc
 * echo ARGS` runs; argv[0] is "echo".  The exit status. */
int bench_rpc_echo(int argc, char **argv);

#ifdef GK5_HAVE_MIT
/* Everything below sets gk5 beside MIT krb5 in a throwaway MIT realm:
 * built only with MIT krb5. */
#include <gssapi/gssapi_krb5.h>

#include "establish.h"

/* ---- Per (enctype, size): what the workers share, read-only ---- */

/* Pre-keyed OpenSSL contexts for the floor. */
struct floor_keys {
    EVP_CIPHER_CTX *enc, *dec; /* Ke, CBC-CTS (CS3) or DES3-CBC */
    EVP_MAC_CTX *ki;           /* Ki: HMAC or CMAC */
    EVP_MAC_CTX *kc;           /* Kc: HMAC or CMAC */
};

struct shared {
    const struct gk5_enctype *row;
    enum family fam;
    gk5_ctx *g;     /* initiator, imported from MIT */
    gss_ctx_id_t m; /* acceptor, MIT */
    size_t size;
    uint8_t *msg;
    gk5_buffer g_sealed, g_mic;      /* gk5's tokens: MIT takes them */
    gss_buffer_desc m_sealed, m_mic; /* MIT's tokens: gk5 takes them */
    /* m_sealed split as gk5_wrap_iov lays a token out (RRC 0): HEADER,
     * DATA, PADDING, TRAILER lengths; else unwrapped as a STREAM. */
    size_t split[4];
    bool split_ok;
    /* The floor's bytes: cipher input = confounder | message | header
     * copy (DES3: confounder | message | pad); MAC-alone input =
     * message | header. */
    const struct floor_keys *fk;
    size_t f_len, f_mac_len;
    uint8_t *f_plain; /* f_len bytes */
    uint8_t *f_ct;    /* f_len bytes: E(f_plain) */
    uint8_t f_tag[EVP_MAX_MD_SIZE];
    size_t f_tag_len;
};

/* One worker's private buffers and floor contexts. */
#define HDR_CAP 256
#define MIC_CAP 128
struct worker {
    const struct shared *s;
    uint8_t *work; /* size + HDR_CAP bytes: in-place data */
    uint8_t hdr[HDR_CAP], pad[64], trl[HDR_CAP], mic[MIC_CAP];
    struct floor_keys fk; /* copies of s->fk */
    uint8_t *f_out;       /* f_len bytes */
};

/* One operation on a worker; true on success. */
typedef bool (*op_fn)(struct worker *w);

/* ---- ops.c ---- */

/* [op][impl]: what each implementation runs for each op. */
extern const op_fn op_table[OP__COUNT][IMPL__COUNT];
/* The copy the in-place IOV unwrap makes before each call, alone. */
bool iov_restore_once(struct worker *w);
/* A worker on s: its buffers and its copies of the floor's contexts. */
int worker_init(struct worker *w, const struct shared *s);
void worker_free(struct worker *w);
/* The message of this size, tokens both ways (each checked once by the
 * other side) and the floor's bytes; 0, or -1 with why set. */
int shared_init(struct shared *s, const struct gk5_enctype *row,
                enum family fam, gk5_ctx *g, gss_ctx_id_t m,
                const struct floor_keys *fk, size_t size, char *why,
                size_t why_len);
void shared_free(struct shared *s);

/* ---- floor.c ---- */

bool floor_seal(struct worker *w);      /* encrypt + MAC */
bool floor_open(struct worker *w);      /* decrypt + MAC and compare */
bool floor_mac_alone(struct worker *w); /* MAC (Kc) alone */
/* Random keys of the enctype's lengths; 0 or -1. */
int floor_keys_new(const struct gk5_enctype *row, enum family fam,
                   struct floor_keys *fk);
int floor_keys_dup(const struct floor_keys *src, struct floor_keys *fk);
void floor_keys_free(struct floor_keys *fk);
/* s's floor bytes for its size, a pristine ciphertext and tag; 0 or -1. */
int floor_prepare(struct shared *s);

/* ---- timing.c ---- */

/* Time single-thread rounds by the thread's CPU clock, not
 * CLOCK_MONOTONIC (--cpu-clock). */
void timing_use_cpu_clock(bool on);
/* How much of a CPU the timing thread got over the single-threaded rounds
 * (cpu / wall, and the lowest round's share); false before any round. */
bool timing_cpu_share(double *share, double *min_share);
double spread_pct(const struct figure *f);
/* One row's figures, their rounds interleaved, and gk5's allocations per
 * call; false with why set if an operation failed. */
bool measure_row_timed(const struct config *cfg, struct worker *w,
                       struct row_result *r, char *why, size_t why_len);

/* N workers on one context. */
struct thr_group;
struct thr {
    pthread_t tid;
    struct thr_group *grp;
    struct worker w;
    op_fn fn;
    unsigned long calls;
    double cpu; /* the thread's CPU seconds while it ran the op */
    bool ok;
};
/* 1 thread and n threads, rounds interleaved; fig[0], fig[1]: wall-clock
 * MB/s of 1 and n threads; fig[2], fig[3]: MB per CPU second. */
bool thr_measure(const struct config *cfg, struct thr *t, int n, op_fn fn,
                 size_t size, struct figure fig[4]);

/* ---- alloc_count.c ---- */

/* False in a sanitizer build, which brings its own allocator. */
bool alloc_count_available(void);
void alloc_count_start(void);
/* Stops counting; the allocations since alloc_count_start. */
unsigned long alloc_count_stop(void);

/* ---- run.c ---- */

/* Establish a session of enctype et, import the initiator into gk5 and
 * measure into res; 0, or -1 with the error printed. */
int bench_enctype(const struct config *cfg, struct results *res,
                  gk5_mit_realm *realm, int32_t et);

/* ---- report.c ---- */

const char *et_name(int32_t et);
const char *size_name(size_t n, char *buf, size_t len);
void print_preamble(const struct config *cfg);
void print_results(const struct config *cfg, const struct results *res);
void print_csv(const struct config *cfg, const struct results *res);

/* ---- contexts.c ---- */

/* N contexts of each enctype, gk5 and MIT, printed as a table; the number
 * of enctypes that failed. */
int bench_contexts(gk5_mit_realm *realm, const int32_t *enctypes,
                   size_t n_enctypes, unsigned n);

/* ---- accept.c ---- */

/* n AP-REQs of each of cfg's enctypes accepted by gk5 and by MIT (and
 * with cfg->threads > 1 the thread section), printed as a table; the
 * number of enctypes that failed. */
int bench_accept(const struct config *cfg, gk5_mit_realm *realm, unsigned n);

/* ---- init.c ---- */

/* n contexts of each of cfg's enctypes initiated (both legs, mutual) by
 * gk5 and by MIT from a ticket in a FILE ccache, printed as a table; then
 * gk5 kinit / gk5 kvno beside MIT's kinit / kvno as whole commands (30
 * runs each, 10 with cfg->quick), a second table.  The number of enctypes
 * and commands that failed. */
int bench_init(const struct config *cfg, gk5_mit_realm *realm, unsigned n);
#endif /* GK5_HAVE_MIT */

#endif /* GK5_BENCH_H */
