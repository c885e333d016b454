/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 bench: gk5, MIT krb5 and the OpenSSL floor side by side (issue 5).
 *
 * One process, one run.  A throwaway MIT realm (src/bridge/mit_realm.c),
 * and for each enctype a context pair established by MIT's GSS-API: the
 * initiator moves into gk5 (lucid import), the acceptor stays MIT.  gk5
 * wraps and MICs in the initiator's direction and unwraps and verifies
 * MIT's tokens; MIT does the same with gk5's tokens, so every side handles
 * tokens of the right direction from one session.  The floor is the same
 * crypto over the same bytes with OpenSSL EVP contexts keyed once.
 *
 * Heap allocations are counted by malloc/calloc/realloc defined here,
 * which forward to glibc's __libc_* functions: the bench lives in the gk5
 * executable, so these replace the allocator's entry points for the whole
 * program (and for OpenSSL and MIT inside it) but only count while a
 * measurement asks them to.  Under a sanitizer, which brings its own
 * allocator, they are left out and no counts are printed.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi_krb5.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bridge/gk5_mit.h"
#include "bridge/mit_realm.h"
#include "bench_contexts.h"
#include "cli.h"
#include "common/util.h"
#include "crypto/crypto_int.h"

/* ---- The allocation counter ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_NO_COUNTER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define BENCH_NO_COUNTER 1
#endif
#endif

static atomic_bool g_counting;
static atomic_ulong g_allocs;

#ifndef BENCH_NO_COUNTER
#define BENCH_HAVE_COUNTER 1
/* glibc's allocator under its exported internal names. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

static inline void count_alloc(void)
{
    if (atomic_load_explicit(&g_counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size)
{
    count_alloc();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    count_alloc();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    count_alloc();
    return __libc_realloc(p, size);
}
#else
#define BENCH_HAVE_COUNTER 0
#endif

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

static const char *const op_names[OP__COUNT] = {
    [OP_WRAP_SEALED] = "wrap-sealed", [OP_WRAP_1PASS] = "wrap-1pass",
    [OP_WRAP_INTEG] = "wrap-integ",   [OP_UNWRAP] = "unwrap",
    [OP_GET_MIC] = "get_mic",         [OP_VERIFY_MIC] = "verify_mic",
};

enum impl { IMPL_MIT, IMPL_GK5, IMPL_IOV, IMPL_FLOOR, IMPL__COUNT };

static const char *const impl_names[IMPL__COUNT] = {
    [IMPL_MIT] = "mit",
    [IMPL_GK5] = "gk5",
    [IMPL_IOV] = "gk5-iov",
    [IMPL_FLOOR] = "floor",
};

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

static double spread_pct(const struct figure *f)
{
    return f->have && f->best > 0 ? 100.0 * (f->best - f->worst) / f->best
                                  : 0.0;
}

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

static const uint8_t zero_iv[EVP_MAX_IV_LENGTH];

/* ---- Small helpers ---- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *size_name(size_t n, char *buf, size_t len)
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

static void set_iov(gk5_iov_buffer *b, uint32_t type, void *value,
                    size_t length)
{
    b->type = type;
    b->buffer.value = value;
    b->buffer.length = length;
}

/* ---- The operations (each returns true on success) ---- */

typedef bool (*op_fn)(struct worker *w);

static bool gk5_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg}, out = {0, NULL};
    uint32_t major, minor = 0;
    int conf_state = 0;

    major =
        gk5_wrap(&minor, s->g, conf, GK5_QOP_DEFAULT, &in, &conf_state, &out);
    gk5_buffer_release(&out);
    return major == GK5_S_COMPLETE;
}

static bool gk5_wrap_sealed(struct worker *w)
{
    return gk5_wrap_once(w, 1);
}

static bool gk5_wrap_integ(struct worker *w)
{
    return gk5_wrap_once(w, 0);
}

static bool gk5_unwrap_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->m_sealed.length, s->m_sealed.value};
    gk5_buffer out = {0, NULL};
    uint32_t major, minor = 0, qop = 0;
    int conf_state = 0;

    major = gk5_unwrap(&minor, s->g, &in, &out, &conf_state, &qop);
    gk5_buffer_release(&out);
    return GK5_ERROR(major) == 0;
}

static bool gk5_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg}, tok = {0, NULL};
    uint32_t major, minor = 0;

    major = gk5_get_mic(&minor, s->g, GK5_QOP_DEFAULT, &in, &tok);
    gk5_buffer_release(&tok);
    return major == GK5_S_COMPLETE;
}

static bool gk5_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_buffer in = {s->size, s->msg};
    gk5_buffer tok = {s->m_mic.length, s->m_mic.value};
    uint32_t major, minor = 0, qop = 0;

    major = gk5_verify_mic(&minor, s->g, &in, &tok, &qop);
    return GK5_ERROR(major) == 0;
}

/* IOV wrap with the caller's buffers, in place over w->work. */
static bool iov_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0;
    int conf_state = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, w->hdr, sizeof(w->hdr));
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, w->work, s->size);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, w->pad, sizeof(w->pad));
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, w->trl, sizeof(w->trl));
    major =
        gk5_wrap_iov(&minor, s->g, conf, GK5_QOP_DEFAULT, &conf_state, iov, 4);
    return major == GK5_S_COMPLETE;
}

static bool iov_wrap_sealed(struct worker *w)
{
    return iov_wrap_once(w, 1);
}

static bool iov_wrap_integ(struct worker *w)
{
    return iov_wrap_once(w, 0);
}

/* Put MIT's sealed token back into the worker's buffers (unwrap works in
 * place); returns the IOV count. */
static int iov_restore(struct worker *w, gk5_iov_buffer *iov)
{
    const struct shared *s = w->s;
    const uint8_t *t = s->m_sealed.value;
    const size_t *sp = s->split;
    int n = 0;

    if (!s->split_ok) {
        memcpy(w->work, t, s->m_sealed.length);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_STREAM, w->work,
                s->m_sealed.length);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_DATA, NULL, 0);
        return n;
    }
    memcpy(w->hdr, t, sp[0]);
    memcpy(w->work, t + sp[0], sp[1]);
    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_HEADER, w->hdr, sp[0]);
    set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_DATA, w->work, sp[1]);
    if (sp[2] != 0) {
        memcpy(w->pad, t + sp[0] + sp[1], sp[2]);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_PADDING, w->pad, sp[2]);
    }
    if (sp[3] != 0) {
        memcpy(w->trl, t + sp[0] + sp[1] + sp[2], sp[3]);
        set_iov(&iov[n++], GK5_IOV_BUFFER_TYPE_TRAILER, w->trl, sp[3]);
    }
    return n;
}

static bool iov_unwrap_once(struct worker *w)
{
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0, qop = 0;
    int conf_state = 0, n = iov_restore(w, iov);

    major = gk5_unwrap_iov(&minor, w->s->g, &conf_state, &qop, iov, n);
    return GK5_ERROR(major) == 0;
}

/* The copy iov_unwrap_once makes, alone: subtracted from its time. */
static bool iov_restore_once(struct worker *w)
{
    gk5_iov_buffer iov[4];

    (void)iov_restore(w, iov);
    /* Keep the copies from being optimised away. */
    __asm__ __volatile__("" : : "r"(iov) : "memory");
    return true;
}

static bool iov_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[2];
    uint32_t major, minor = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, s->msg, s->size);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, w->mic, sizeof(w->mic));
    major = gk5_get_mic_iov(&minor, s->g, GK5_QOP_DEFAULT, iov, 2);
    return major == GK5_S_COMPLETE;
}

static bool iov_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gk5_iov_buffer iov[2];
    uint32_t major, minor = 0, qop = 0;

    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_DATA, s->msg, s->size);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_MIC_TOKEN, s->m_mic.value,
            s->m_mic.length);
    major = gk5_verify_mic_iov(&minor, s->g, &qop, iov, 2);
    return GK5_ERROR(major) == 0;
}

static bool mit_wrap_once(struct worker *w, int conf)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg}, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;
    int conf_state = 0;

    major =
        gss_wrap(&minor, s->m, conf, GSS_C_QOP_DEFAULT, &in, &conf_state, &out);
    (void)gss_release_buffer(&minor, &out);
    return major == GSS_S_COMPLETE;
}

static bool mit_wrap_sealed(struct worker *w)
{
    return mit_wrap_once(w, 1);
}

static bool mit_wrap_integ(struct worker *w)
{
    return mit_wrap_once(w, 0);
}

/* MIT keeps replay and sequence detection on: a repeated token is
 * reported as DUPLICATE (supplementary) and still decrypted. */
static bool mit_unwrap_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->g_sealed.length, s->g_sealed.value};
    gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;
    gss_qop_t qop = 0;
    int conf_state = 0;

    major = gss_unwrap(&minor, s->m, &in, &out, &conf_state, &qop);
    (void)gss_release_buffer(&minor, &out);
    return !GSS_ERROR(major);
}

static bool mit_get_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg}, tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0;

    major = gss_get_mic(&minor, s->m, GSS_C_QOP_DEFAULT, &in, &tok);
    (void)gss_release_buffer(&minor, &tok);
    return major == GSS_S_COMPLETE;
}

static bool mit_verify_mic_once(struct worker *w)
{
    const struct shared *s = w->s;
    gss_buffer_desc in = {s->size, s->msg};
    gss_buffer_desc tok = {s->g_mic.length, s->g_mic.value};
    OM_uint32 major, minor = 0;
    gss_qop_t qop = 0;

    major = gss_verify_mic(&minor, s->m, &in, &tok, &qop);
    return !GSS_ERROR(major);
}

/* ---- The floor: OpenSSL EVP, keyed once ---- */

static bool floor_mac(EVP_MAC_CTX *mac, const uint8_t *prefix,
                      size_t prefix_len, const uint8_t *p, size_t n,
                      uint8_t *tag, size_t *tag_len)
{
    return EVP_MAC_init(mac, NULL, 0, NULL) &&
           (prefix_len == 0 || EVP_MAC_update(mac, prefix, prefix_len)) &&
           EVP_MAC_update(mac, p, n) &&
           EVP_MAC_final(mac, tag, tag_len, EVP_MAX_MD_SIZE);
}

static bool floor_cipher(EVP_CIPHER_CTX *c, const uint8_t *in, uint8_t *out,
                         size_t n)
{
    int outl = 0;

    return EVP_CipherInit_ex2(c, NULL, NULL, zero_iv, -1, NULL) &&
           EVP_CipherUpdate(c, out, &outl, in, (int)n) && (size_t)outl == n;
}

/* encrypt + MAC: MtE MACs the plaintext, EtM the IV and ciphertext. */
static bool floor_seal(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    if (s->fam == FAM_MTE) {
        return floor_mac(w->fk.ki, NULL, 0, s->f_plain, s->f_len, tag,
                         &tag_len) &&
               floor_cipher(w->fk.enc, s->f_plain, w->f_out, s->f_len);
    }
    return floor_cipher(w->fk.enc, s->f_plain, w->f_out, s->f_len) &&
           floor_mac(w->fk.ki, zero_iv, s->row->block_bytes, w->f_out, s->f_len,
                     tag, &tag_len);
}

/* decrypt + MAC (and the compare) over the pristine ciphertext. */
static bool floor_open(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    if (s->fam == FAM_MTE) {
        return floor_cipher(w->fk.dec, s->f_ct, w->f_out, s->f_len) &&
               floor_mac(w->fk.ki, NULL, 0, w->f_out, s->f_len, tag,
                         &tag_len) &&
               CRYPTO_memcmp(tag, s->f_tag, s->row->mac_bytes) == 0;
    }
    return floor_mac(w->fk.ki, zero_iv, s->row->block_bytes, s->f_ct, s->f_len,
                     tag, &tag_len) &&
           CRYPTO_memcmp(tag, s->f_tag, s->row->mac_bytes) == 0 &&
           floor_cipher(w->fk.dec, s->f_ct, w->f_out, s->f_len);
}

/* MAC alone (Kc) over message | header. */
static bool floor_mac_alone(struct worker *w)
{
    const struct shared *s = w->s;
    uint8_t tag[EVP_MAX_MD_SIZE];
    size_t tag_len = 0;

    return floor_mac(w->fk.kc, NULL, 0, s->f_plain, s->f_mac_len, tag,
                     &tag_len);
}

static const op_fn op_table[OP__COUNT][IMPL__COUNT] = {
    [OP_WRAP_1PASS] = {mit_wrap_sealed, gk5_wrap_sealed, iov_wrap_sealed,
                       floor_seal},
    [OP_WRAP_SEALED] = {mit_wrap_sealed, gk5_wrap_sealed, iov_wrap_sealed,
                        floor_seal},
    [OP_WRAP_INTEG] = {mit_wrap_integ, gk5_wrap_integ, iov_wrap_integ,
                       floor_mac_alone},
    [OP_UNWRAP] = {mit_unwrap_once, gk5_unwrap_once, iov_unwrap_once,
                   floor_open},
    [OP_GET_MIC] = {mit_get_mic_once, gk5_get_mic_once, iov_get_mic_once,
                    floor_mac_alone},
    [OP_VERIFY_MIC] = {mit_verify_mic_once, gk5_verify_mic_once,
                       iov_verify_mic_once, floor_mac_alone},
};

static void floor_keys_free(struct floor_keys *fk)
{
    EVP_CIPHER_CTX_free(fk->enc);
    EVP_CIPHER_CTX_free(fk->dec);
    EVP_MAC_CTX_free(fk->ki);
    EVP_MAC_CTX_free(fk->kc);
    memset(fk, 0, sizeof(*fk));
}

static EVP_CIPHER_CTX *floor_cipher_new(const struct gk5_enctype *row,
                                        const uint8_t *key, int enc)
{
    const char *name = row->cts_cipher != NULL ? row->cts_cipher : row->cipher;
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
                                         (char *)(uintptr_t) "CS3", 0),
        OSSL_PARAM_construct_end(),
    };
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, name, NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    bool ok = cipher != NULL && ctx != NULL &&
              EVP_CipherInit_ex2(ctx, cipher, key, zero_iv, enc,
                                 row->cts_cipher != NULL ? params : NULL) &&
              EVP_CIPHER_CTX_set_padding(ctx, 0);

    EVP_CIPHER_free(cipher);
    if (!ok) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static EVP_MAC_CTX *floor_mac_new(const struct gk5_enctype *row,
                                  const uint8_t *key, size_t key_len)
{
    OSSL_PARAM params[2];
    EVP_MAC *mac;
    EVP_MAC_CTX *ctx = NULL;

    if (row->digest != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_DIGEST, (char *)(uintptr_t)row->digest, 0);
    } else {
        params[0] = OSSL_PARAM_construct_utf8_string(
            OSSL_MAC_PARAM_CIPHER, (char *)(uintptr_t)row->cipher, 0);
    }
    params[1] = OSSL_PARAM_construct_end();
    mac = EVP_MAC_fetch(NULL, row->digest != NULL ? "HMAC" : "CMAC", NULL);
    if (mac != NULL) {
        ctx = EVP_MAC_CTX_new(mac);
    }
    if (ctx != NULL && !EVP_MAC_init(ctx, key, key_len, params)) {
        EVP_MAC_CTX_free(ctx);
        ctx = NULL;
    }
    EVP_MAC_free(mac);
    return ctx;
}

/* Random keys of the enctype's lengths: the speed does not depend on the
 * key, only on the algorithms and lengths. */
static int floor_keys_new(const struct gk5_enctype *row, enum family fam,
                          struct floor_keys *fk)
{
    uint8_t ke[GK5_MAX_KEY_BYTES], kmac[GK5_MAX_KEY_BYTES];
    size_t mac_key_len = fam == FAM_ETM ? row->mac_bytes : row->key_bytes;
    int ret = -1;

    memset(fk, 0, sizeof(*fk));
    if (row->key_bytes > sizeof(ke) || mac_key_len > sizeof(kmac) ||
        RAND_bytes(ke, (int)row->key_bytes) != 1 ||
        RAND_bytes(kmac, (int)mac_key_len) != 1) {
        goto cleanup;
    }
    fk->enc = floor_cipher_new(row, ke, 1);
    fk->dec = floor_cipher_new(row, ke, 0);
    fk->ki = floor_mac_new(row, kmac, mac_key_len);
    fk->kc = floor_mac_new(row, kmac, mac_key_len);
    if (fk->enc != NULL && fk->dec != NULL && fk->ki != NULL &&
        fk->kc != NULL) {
        ret = 0;
    }

cleanup:
    if (ret != 0) {
        floor_keys_free(fk);
    }
    zap(ke, sizeof(ke));
    zap(kmac, sizeof(kmac));
    return ret;
}

static int floor_keys_dup(const struct floor_keys *src, struct floor_keys *fk)
{
    memset(fk, 0, sizeof(*fk));
    fk->enc = EVP_CIPHER_CTX_new();
    fk->dec = EVP_CIPHER_CTX_new();
    if (fk->enc == NULL || fk->dec == NULL ||
        !EVP_CIPHER_CTX_copy(fk->enc, src->enc) ||
        !EVP_CIPHER_CTX_copy(fk->dec, src->dec)) {
        floor_keys_free(fk);
        return -1;
    }
    fk->ki = EVP_MAC_CTX_dup(src->ki);
    fk->kc = EVP_MAC_CTX_dup(src->kc);
    if (fk->ki == NULL || fk->kc == NULL) {
        floor_keys_free(fk);
        return -1;
    }
    return 0;
}

/* ---- Workers ---- */

static void worker_free(struct worker *w)
{
    free(w->work);
    free(w->f_out);
    floor_keys_free(&w->fk);
    memset(w, 0, sizeof(*w));
}

static int worker_init(struct worker *w, const struct shared *s)
{
    memset(w, 0, sizeof(*w));
    w->s = s;
    w->work = malloc(s->size + HDR_CAP);
    w->f_out = malloc(s->f_len);
    if (w->work == NULL || w->f_out == NULL ||
        floor_keys_dup(s->fk, &w->fk) != 0) {
        worker_free(w);
        return -1;
    }
    memcpy(w->work, s->msg, s->size);
    return 0;
}

/* ---- Timing ---- */

/* How much of a CPU the timing thread got while timing single-threaded
 * rounds: on a shared machine the figures are only as good as this. */
static struct {
    double cpu, wall, min_share;
    unsigned long rounds;
} g_share;

static double thread_cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note_share(double cpu, double wall)
{
    double share = wall > 0 ? cpu / wall : 1.0;

    if (g_share.rounds == 0 || share < g_share.min_share) {
        g_share.min_share = share;
    }
    g_share.cpu += cpu;
    g_share.wall += wall;
    g_share.rounds++;
}

/* The clock single-thread rounds are timed by: CLOCK_MONOTONIC, or with
 * --cpu-clock the thread's CPU time. */
static bool g_cpu_clock;

static double round_clock(void)
{
    return g_cpu_clock ? thread_cpu_s() : now_s();
}

/* Runs fn for at least min_time seconds; *mbps = size bytes per call. */
static bool time_round(op_fn fn, struct worker *w, size_t size, double min_time,
                       double *mbps)
{
    unsigned long calls = 0, batch = 1;
    double c0 = thread_cpu_s(), w0 = now_s(), t0 = round_clock(), t = t0;

    do {
        double b0 = t;

        for (unsigned long i = 0; i < batch; i++) {
            if (!fn(w)) {
                return false;
            }
        }
        calls += batch;
        t = round_clock();
        /* Read the clock about every millisecond, not every call. */
        if (t - b0 < 0.001 && batch < (1ul << 20)) {
            batch *= 2;
        }
    } while (t - t0 < min_time);
    *mbps = (double)calls * (double)size / (t - t0) / 1e6;
    note_share(thread_cpu_s() - c0, now_s() - w0);
    return true;
}

/* Heap allocations per call, over a few calls after the warm-up. */
static double count_allocs(op_fn fn, struct worker *w)
{
    const unsigned long calls = 16;
    unsigned long n;

    if (!BENCH_HAVE_COUNTER) {
        return -1.0;
    }
    atomic_store(&g_allocs, 0);
    atomic_store(&g_counting, true);
    for (unsigned long i = 0; i < calls; i++) {
        if (!fn(w)) {
            atomic_store(&g_counting, false);
            return -1.0;
        }
    }
    atomic_store(&g_counting, false);
    n = atomic_load(&g_allocs);
    return (double)n / (double)calls;
}

static void figure_add(struct figure *f, double mbps)
{
    if (f->rounds == 0 || mbps > f->best) {
        f->best = mbps;
    }
    if (f->rounds == 0 || mbps < f->worst) {
        f->worst = mbps;
    }
    f->rounds++;
    f->have = true;
}

/* The in-place IOV unwrap less the time of restoring its token (both per
 * call, from rates over the same size). */
static void subtract_restore(struct figure *f, const struct figure *restore)
{
    if (!f->have || !restore->have || restore->best <= 0) {
        return;
    }
    double t_r = 1.0 / restore->best;
    double tb = 1.0 / f->best - t_r, tw = 1.0 / f->worst - t_r;

    if (tb > 0 && tw > 0) {
        f->best = 1.0 / tb;
        f->worst = 1.0 / tw;
    }
}

/* The figures of one row with their rounds interleaved (MIT, gk5,
 * gk5-iov, floor, then the next round), so that a change in the machine's
 * load falls on all of them alike and the ratios hold up better than the
 * absolute figures do. */
static bool measure_row_timed(const struct config *cfg, struct worker *w,
                              struct row_result *r, char *why, size_t why_len)
{
    op_fn fns[IMPL__COUNT + 1];
    struct figure *figs[IMPL__COUNT + 1];
    const char *names[IMPL__COUNT + 1];
    double mbps = 0;
    int n = 0;

    for (int im = 0; im < IMPL__COUNT; im++) {
        fns[n] = op_table[r->op][im];
        figs[n] = &r->fig[im];
        names[n++] = impl_names[im];
    }
    if (r->op == OP_UNWRAP) {
        fns[n] = iov_restore_once;
        figs[n] = &r->restore;
        names[n++] = "restore";
    }
    for (int i = 0; i < n; i++) {
        memset(figs[i], 0, sizeof(*figs[i]));
        figs[i]->allocs = -1.0;
        if (!time_round(fns[i], w, r->size, cfg->warmup, &mbps)) {
            snprintf(why, why_len, "%s %s failed", names[i], op_names[r->op]);
            return false;
        }
    }
    for (int round = 0; round < cfg->rounds; round++) {
        for (int i = 0; i < n; i++) {
            if (!time_round(fns[i], w, r->size, cfg->min_time, &mbps)) {
                snprintf(why, why_len, "%s %s failed while timing", names[i],
                         op_names[r->op]);
                return false;
            }
            figure_add(figs[i], mbps);
        }
    }
    for (int im = IMPL_GK5; im < IMPL__COUNT; im++) {
        r->fig[im].allocs = count_allocs(op_table[r->op][im], w);
    }
    if (r->op == OP_UNWRAP) {
        subtract_restore(&r->fig[IMPL_IOV], &r->restore);
    }
    return true;
}

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

/* ---- Threads: N workers on one context ---- */

struct thr_group {
    atomic_int ready;
    atomic_bool go, stop;
};

struct thr {
    pthread_t tid;
    struct thr_group *grp;
    struct worker w;
    op_fn fn;
    unsigned long calls;
    double cpu; /* the thread's CPU seconds while it ran the op */
    bool ok;
};

static void *thr_main(void *arg)
{
    struct thr *t = arg;

    double c0;

    atomic_fetch_add(&t->grp->ready, 1);
    while (!atomic_load(&t->grp->go)) {
        sched_yield();
    }
    c0 = thread_cpu_s();
    while (!atomic_load_explicit(&t->grp->stop, memory_order_relaxed)) {
        if (!t->fn(&t->w)) {
            t->ok = false;
            break;
        }
        t->calls++;
    }
    t->cpu = thread_cpu_s() - c0;
    return NULL;
}

/* One round with n threads started together: aggregate MB/s by the wall
 * clock, and MB per second of CPU time the threads used (*cpu_mbps). */
static bool thr_round(struct thr *t, int n, op_fn fn, size_t size, double secs,
                      double *mbps, double *cpu_mbps)
{
    struct thr_group grp;
    struct timespec ts;
    unsigned long calls = 0;
    double cpu = 0;
    bool ok = true;
    int started = 0;
    double t0, t1;

    atomic_init(&grp.ready, 0);
    atomic_init(&grp.go, false);
    atomic_init(&grp.stop, false);
    for (int i = 0; i < n; i++) {
        t[i].grp = &grp;
        t[i].fn = fn;
        t[i].calls = 0;
        t[i].cpu = 0;
        t[i].ok = true;
        if (pthread_create(&t[i].tid, NULL, thr_main, &t[i]) != 0) {
            ok = false;
            break;
        }
        started++;
    }
    if (ok) {
        while (atomic_load(&grp.ready) < n) {
            sched_yield();
        }
    } else {
        atomic_store(&grp.stop, true);
    }
    t0 = now_s();
    atomic_store(&grp.go, true);
    if (ok) {
        ts.tv_sec = (time_t)secs;
        ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        atomic_store(&grp.stop, true);
    }
    for (int i = 0; i < started; i++) {
        pthread_join(t[i].tid, NULL);
        calls += t[i].calls;
        cpu += t[i].cpu;
        ok = ok && t[i].ok;
    }
    t1 = now_s();
    *mbps = (double)calls * (double)size / (t1 - t0) / 1e6;
    *cpu_mbps = cpu > 0 ? (double)calls * (double)size / cpu / 1e6 : 0;
    return ok;
}

/* 1 thread and n threads, rounds interleaved; fig[0], fig[1]: wall-clock
 * MB/s of 1 and n threads; fig[2], fig[3]: MB per CPU second. */
static bool thr_measure(const struct config *cfg, struct thr *t, int n,
                        op_fn fn, size_t size, struct figure fig[4])
{
    double mbps = 0, cpu_mbps = 0;

    memset(fig, 0, 4 * sizeof(fig[0]));
    for (int i = 0; i < 4; i++) {
        fig[i].allocs = -1.0;
    }
    if (!thr_round(t, n, fn, size, cfg->warmup, &mbps, &cpu_mbps)) {
        return false;
    }
    for (int r = 0; r < cfg->rounds; r++) {
        for (int k = 0; k < 2; k++) {
            if (!thr_round(t, k == 0 ? 1 : n, fn, size, cfg->min_time, &mbps,
                           &cpu_mbps)) {
                return false;
            }
            figure_add(&fig[k], mbps);
            figure_add(&fig[2 + k], cpu_mbps);
        }
    }
    return true;
}

/* ---- Results ---- */

#define THREAD_OPS 4
static const enum op thread_ops[THREAD_OPS] = {OP_WRAP_SEALED, OP_UNWRAP,
                                               OP_GET_MIC, OP_VERIFY_MIC};
static const enum impl thread_impls[3] = {IMPL_GK5, IMPL_IOV, IMPL_FLOOR};

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

static const char *et_name(int32_t et)
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

/* ---- One enctype ---- */

/* Find the split of MIT's sealed token into gk5_wrap_iov's layout. */
static void find_split(struct shared *s)
{
    gk5_iov_buffer iov[4];
    uint32_t major, minor = 0;
    size_t total;

    s->split_ok = false;
    set_iov(&iov[0], GK5_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    set_iov(&iov[1], GK5_IOV_BUFFER_TYPE_DATA, NULL, s->size);
    set_iov(&iov[2], GK5_IOV_BUFFER_TYPE_PADDING, NULL, 0);
    set_iov(&iov[3], GK5_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
    major = gk5_wrap_iov_length(&minor, s->g, 1, GK5_QOP_DEFAULT, NULL, iov, 4);
    if (major != GK5_S_COMPLETE) {
        return;
    }
    total = 0;
    for (int i = 0; i < 4; i++) {
        s->split[i] = iov[i].buffer.length;
        total += s->split[i];
    }
    s->split_ok = total == s->m_sealed.length && s->split[0] <= HDR_CAP &&
                  s->split[2] <= 64 && s->split[3] <= HDR_CAP;
}

/* Tokens both ways, checked once by the other side before timing. */
static int make_tokens(struct shared *s, char *why, size_t why_len)
{
    gk5_buffer in = {s->size, s->msg}, out = {0, NULL}, tok;
    gss_buffer_desc mmsg = {s->size, s->msg}, mout = GSS_C_EMPTY_BUFFER;
    gss_buffer_desc mtok;
    uint32_t major, minor = 0, qop = 0;
    OM_uint32 mmaj, mmin = 0;
    gss_qop_t mqop = 0;
    int conf_state = 0, ret = -1;

    major = gk5_wrap(&minor, s->g, 1, GK5_QOP_DEFAULT, &in, &conf_state,
                     &s->g_sealed);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, why_len, "gk5_wrap: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    major = gk5_get_mic(&minor, s->g, GK5_QOP_DEFAULT, &in, &s->g_mic);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, why_len, "gk5_get_mic: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    mmaj = gss_wrap(&mmin, s->m, 1, GSS_C_QOP_DEFAULT, &mmsg, &conf_state,
                    &s->m_sealed);
    if (mmaj == GSS_S_COMPLETE) {
        mmaj = gss_get_mic(&mmin, s->m, GSS_C_QOP_DEFAULT, &mmsg, &s->m_mic);
    }
    if (mmaj != GSS_S_COMPLETE) {
        snprintf(why, why_len, "MIT gss_wrap/gss_get_mic failed (%u, %u)",
                 (unsigned)mmaj, (unsigned)mmin);
        goto cleanup;
    }
    /* Each side takes the other's tokens. */
    mtok.length = s->g_sealed.length;
    mtok.value = s->g_sealed.value;
    mmaj = gss_unwrap(&mmin, s->m, &mtok, &mout, &conf_state, &mqop);
    if (GSS_ERROR(mmaj) || mout.length != s->size ||
        memcmp(mout.value, s->msg, s->size) != 0) {
        snprintf(why, why_len, "MIT could not unwrap gk5's token");
        goto cleanup;
    }
    mtok.length = s->g_mic.length;
    mtok.value = s->g_mic.value;
    mmaj = gss_verify_mic(&mmin, s->m, &mmsg, &mtok, &mqop);
    if (GSS_ERROR(mmaj)) {
        snprintf(why, why_len, "MIT could not verify gk5's MIC");
        goto cleanup;
    }
    tok.length = s->m_sealed.length;
    tok.value = s->m_sealed.value;
    major = gk5_unwrap(&minor, s->g, &tok, &out, &conf_state, &qop);
    if (GK5_ERROR(major) != 0 || out.length != s->size ||
        memcmp(out.value, s->msg, s->size) != 0) {
        snprintf(why, why_len, "gk5_unwrap of MIT's token: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    tok.length = s->m_mic.length;
    tok.value = s->m_mic.value;
    major = gk5_verify_mic(&minor, s->g, &in, &tok, &qop);
    if (GK5_ERROR(major) != 0) {
        snprintf(why, why_len, "gk5_verify_mic of MIT's MIC: %s",
                 gk5_display_status(major, minor));
        goto cleanup;
    }
    find_split(s);
    ret = 0;

cleanup:
    gk5_buffer_release(&out);
    (void)gss_release_buffer(&mmin, &mout);
    return ret;
}

/* The floor's bytes for this size, and a pristine ciphertext and tag. */
static int make_floor(struct shared *s)
{
    const struct gk5_enctype *row = s->row;
    size_t pad = 0;
    struct worker w;
    int ret = -1;

    if (row->rfc1964) {
        /* RFC 1964 1.2.2.3: 1..8 pad bytes after confounder | message. */
        pad = row->block_bytes - s->size % row->block_bytes;
        s->f_len = row->conf_bytes + s->size + pad;
        s->f_mac_len = 8 + s->size;
    } else {
        s->f_len = row->conf_bytes + s->size + 16;
        s->f_mac_len = s->size + 16;
    }
    s->f_plain = malloc(s->f_len);
    s->f_ct = malloc(s->f_len);
    if (s->f_plain == NULL || s->f_ct == NULL ||
        RAND_bytes(s->f_plain, (int)s->f_len) != 1) {
        return -1;
    }
    if (worker_init(&w, s) != 0) {
        return -1;
    }
    /* The pristine ciphertext and tag floor_open checks. */
    if (s->fam == FAM_MTE) {
        if (floor_mac(w.fk.ki, NULL, 0, s->f_plain, s->f_len, s->f_tag,
                      &s->f_tag_len) &&
            floor_cipher(w.fk.enc, s->f_plain, s->f_ct, s->f_len)) {
            ret = 0;
        }
    } else if (floor_cipher(w.fk.enc, s->f_plain, s->f_ct, s->f_len) &&
               floor_mac(w.fk.ki, zero_iv, row->block_bytes, s->f_ct, s->f_len,
                         s->f_tag, &s->f_tag_len)) {
        ret = 0;
    }
    if (ret == 0 && !floor_open(&w)) {
        ret = -1;
    }
    worker_free(&w);
    return ret;
}

static void shared_free(struct shared *s)
{
    OM_uint32 minor = 0;

    free(s->msg);
    free(s->f_plain);
    free(s->f_ct);
    gk5_buffer_release(&s->g_sealed);
    gk5_buffer_release(&s->g_mic);
    (void)gss_release_buffer(&minor, &s->m_sealed);
    (void)gss_release_buffer(&minor, &s->m_mic);
    s->msg = s->f_plain = s->f_ct = NULL;
}

static int shared_init(struct shared *s, const struct gk5_enctype *row,
                       enum family fam, gk5_ctx *g, gss_ctx_id_t m,
                       const struct floor_keys *fk, size_t size, char *why,
                       size_t why_len)
{
    memset(s, 0, sizeof(*s));
    s->row = row;
    s->fam = fam;
    s->g = g;
    s->m = m;
    s->fk = fk;
    s->size = size;
    s->msg = malloc(size != 0 ? size : 1);
    if (s->msg == NULL || RAND_bytes(s->msg, (int)size) != 1) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (make_tokens(s, why, why_len) != 0) {
        return -1;
    }
    if (make_floor(s) != 0) {
        snprintf(why, why_len, "the OpenSSL floor failed");
        return -1;
    }
    return 0;
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
static int bench_enctype(const struct config *cfg, struct results *res,
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

/* ---- Output around the tables ---- */

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

static void print_preamble(const struct config *cfg)
{
    struct utsname u;
    char cpu[256];

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
    if (g_share.rounds != 0 && g_share.wall > 0) {
        printf("CPU share of the timing thread over the single-threaded "
               "rounds: %.0f%% (lowest\nround %.0f%%); well under 100%% "
               "means other work shared the CPU and the\nfigures are "
               "low by about that much.\n",
               100.0 * g_share.cpu / g_share.wall, 100.0 * g_share.min_share);
    }
    if (BENCH_HAVE_COUNTER) {
        printf("allocs = heap allocations per call (malloc, calloc, "
               "realloc, OpenSSL's\nincluded), gk5/gk5-iov.\n");
    } else {
        printf("allocs: not counted in a sanitizer build.\n");
    }
}

static void print_results(const struct config *cfg, const struct results *res)
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

static void print_csv(const struct config *cfg, const struct results *res)
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

/* ---- Options ---- */

static void bench_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 bench [--quick] [--csv] [--threads N] [--rounds N]\n"
            "                 [--min-time SECONDS] [--sizes LIST] "
            "[--enctypes LIST]\n"
            "                 [--ops LIST] [--cpu-clock] [--contexts[=N]]\n"
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
            "\n"
            "The full run takes several minutes.  Needs the MIT KDC programs: "
            "apt-get\ninstall krb5-kdc krb5-admin-server\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    unsigned long long v;

    if (*s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0) {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        v <<= 10;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v <<= 20;
        end++;
    }
    if (*end != '\0' || v == 0 || v > (64ull << 20)) {
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

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
    if (parse_size(item, slot) != 0) {
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

int gk5_cli_bench(int argc, char **argv)
{
    enum {
        OPT_ROUNDS = 256,
        OPT_MIN_TIME,
        OPT_SIZES,
        OPT_ENCTYPES,
        OPT_OPS,
        OPT_CPU_CLOCK,
        OPT_CONTEXTS
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
        {NULL, 0, NULL, 0},
    };
    unsigned contexts = 0;
    struct config cfg;
    struct results res;
    gk5_mit_realm realm;
    bool threads_given = false, rounds_given = false, time_given = false;
    bool sizes_given = false, ops_given = false;
    uint32_t v;
    char err[512], *end = NULL;
    double t0;
    int c, failed = 0;

    memset(&cfg, 0, sizeof(cfg));
    memset(&res, 0, sizeof(res));
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
    if (optind < argc) {
        cli_error("bench: unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
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

    g_cpu_clock = cfg.cpu_clock;
    setvbuf(stdout, NULL, _IOLBF, 0);
    t0 = now_s();
    if (gk5_mit_realm_start(&realm, err, sizeof(err)) != 0) {
        cli_error("bench: %s", err);
        return CLI_EXIT_FAIL;
    }
    gk5_mit_realm_stop_on_signals(&realm);
    if (contexts > 0) {
        failed = bench_contexts(&realm, cfg.enctypes, cfg.n_enctypes,
                                cfg.quick ? 200 : contexts);
        gk5_mit_realm_stop(&realm);
        printf("\n%.0f s in all (the KDC is stopped).\n", now_s() - t0);
        return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    for (size_t i = 0; i < cfg.n_enctypes; i++) {
        if (bench_enctype(&cfg, &res, &realm, cfg.enctypes[i]) != 0) {
            failed++;
        }
    }
    gk5_mit_realm_stop(&realm);

    if (cfg.csv) {
        print_csv(&cfg, &res);
    } else {
        print_preamble(&cfg);
        print_results(&cfg, &res);
        printf("\n%.0f s in all (the KDC is stopped).%s\n", now_s() - t0,
               failed != 0 ? "  SOME ENCTYPES FAILED." : "");
    }
    free(res.rows);
    free(res.thr);
    return failed == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
