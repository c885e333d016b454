/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* Shared pieces of gk5's fuzz targets (see fuzz_common.h). */
#include "fuzz_common.h"

#include "common/bytes.h"
#include "common/trace.h"
#include "crypto/crypto_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

const int32_t fuzz_enctypes[FUZZ_N_ENCTYPES] = {
    17, /* aes128-cts-hmac-sha1-96 */
    18, /* aes256-cts-hmac-sha1-96 */
    19, /* aes128-cts-hmac-sha256-128 */
    20, /* aes256-cts-hmac-sha384-192 */
    25, /* camellia128-cts-cmac */
    26, /* camellia256-cts-cmac */
    16, /* des3-cbc-sha1 (only with -Ddes3=true) */
};

/* Send sequence numbers of the two roles' pristine contexts. */
#define FUZZ_SEQ_INITIATOR 1000u
#define FUZZ_SEQ_ACCEPTOR 2000u

/* Pristine contexts' exports, [enctype][initiator][acceptor subkey], and
 * contexts verified to be in that state, kept for the next input. */
static gk5_buffer pristine[FUZZ_N_ENCTYPES][2][2];
static gk5_ctx *spare[FUZZ_N_ENCTYPES][2][2];
static bool usable[FUZZ_N_ENCTYPES];
static bool initialized;
static bool no_reuse;

void fuzz_fail(const char *what, uint32_t major, uint32_t minor)
{
    fprintf(stderr, "gk5 fuzz: %s (major 0x%08x minor 0x%08x: %s)\n", what,
            (unsigned)major, (unsigned)minor, gk5_display_status(major, minor));
    abort();
}

static int enctype_index(int32_t enctype)
{
    for (int i = 0; i < FUZZ_N_ENCTYPES; i++) {
        if (fuzz_enctypes[i] == enctype) {
            return i;
        }
    }
    return -1;
}

uint8_t fuzz_enctype_byte(int32_t enctype)
{
    int i = enctype_index(enctype);

    return i < 0 ? 0xff : (uint8_t)i;
}

bool fuzz_des3(int32_t enctype)
{
    const struct gk5_enctype *row = gk5i_enctype_get(enctype);

    return row != NULL && row->family == GK5I_FAMILY_DES3;
}

bool fuzz_rfc1964(int32_t enctype)
{
    const struct gk5_enctype *row = gk5i_enctype_get(enctype);

    return row != NULL && row->rfc1964;
}

size_t fuzz_seed_key(int32_t enctype, unsigned which, uint8_t *key, size_t cap)
{
    /* key = SHA-512("gk5 fuzz seed key\0" | be32 enctype | be32 which),
     * truncated to the enctype's key length. */
    static const char label[] = "gk5 fuzz seed key";
    uint8_t md[64];
    unsigned int mdlen = 0;
    uint8_t in[sizeof(label) + 8];
    size_t klen = 0;

    if (gk5_c_key_length(enctype, &klen) != 0 || klen > cap ||
        klen > sizeof(md)) {
        return 0;
    }
    memcpy(in, label, sizeof(label));
    in[sizeof(label) + 0] = (uint8_t)(enctype >> 24);
    in[sizeof(label) + 1] = (uint8_t)(enctype >> 16);
    in[sizeof(label) + 2] = (uint8_t)(enctype >> 8);
    in[sizeof(label) + 3] = (uint8_t)enctype;
    in[sizeof(label) + 4] = (uint8_t)(which >> 24);
    in[sizeof(label) + 5] = (uint8_t)(which >> 16);
    in[sizeof(label) + 6] = (uint8_t)(which >> 8);
    in[sizeof(label) + 7] = (uint8_t)which;
    if (EVP_Digest(in, sizeof(in), md, &mdlen, EVP_sha512(), NULL) != 1 ||
        mdlen < klen) {
        return 0;
    }
    memcpy(key, md, klen);
    if (fuzz_des3(enctype)) {
        /* DES keys carry odd parity in each byte's low bit. */
        for (size_t i = 0; i < klen; i++) {
            uint8_t b = (uint8_t)(key[i] & 0xfe);
            key[i] = (uint8_t)(b | !(__builtin_popcount(b) & 1));
        }
    }
    return klen;
}

static void put32_host(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

size_t fuzz_gssd_buffer(const struct fuzz_cfg *cfg, bool peer, uint8_t *buf,
                        size_t cap)
{
    bool initiator = peer ? !cfg->initiator : cfg->initiator;

    return fuzz_gssd_buffer_seq(
        cfg, peer, initiator ? FUZZ_SEQ_INITIATOR : FUZZ_SEQ_ACCEPTOR, buf,
        cap);
}

size_t fuzz_gssd_buffer_seq(const struct fuzz_cfg *cfg, bool peer, uint64_t seq,
                            uint8_t *buf, size_t cap)
{
    uint8_t key[64];
    size_t klen = fuzz_seed_key(cfg->enctype, 0, key, sizeof(key));
    bool initiator = peer ? !cfg->initiator : cfg->initiator;
    bool cfx = !fuzz_rfc1964(cfg->enctype);
    uint32_t flags = 0;

    /* docs/design.md, "The rpc.gssd context buffer": host byte order, u32
     * flags, u32 endtime, u64 send_seq, u32 enctype, key. */
    if (klen == 0 || cap < 20 + klen) {
        return 0;
    }
    if (initiator) {
        flags |= GK5_GSSD_FLAG_INITIATOR;
    }
    if (cfx) {
        flags |= GK5_GSSD_FLAG_CFX;
        if (cfg->acceptor_subkey) {
            flags |= GK5_GSSD_FLAG_ACCEPTOR_SUBKEY;
        }
    }
    put32_host(buf, flags);
    put32_host(buf + 4, 0); /* endtime: none */
    memcpy(buf + 8, &seq, sizeof(seq));
    put32_host(buf + 16, (uint32_t)cfg->enctype);
    memcpy(buf + 20, key, klen);
    return 20 + klen;
}

void fuzz_init(void)
{
    gk5_enctype_desc d;

    if (initialized) {
        return;
    }
    no_reuse = getenv("FUZZ_CTX_NO_REUSE") != NULL;
    /* Every supported row of the table must be in fuzz_enctypes. */
    for (size_t i = 0; gk5_enctype_row(i, &d) == 0; i++) {
        if (d.state == GK5_ENCTYPE_SUPPORTED && enctype_index(d.enctype) < 0) {
            fprintf(stderr,
                    "gk5 fuzz: enctype %d (%s) is supported but not "
                    "in fuzz_enctypes\n",
                    (int)d.enctype, d.name);
            abort();
        }
    }
    for (int e = 0; e < FUZZ_N_ENCTYPES; e++) {
        usable[e] = gk5_enctype_check(fuzz_enctypes[e]) == 0;
        if (!usable[e]) {
            continue;
        }
        for (int r = 0; r < 2; r++) {
            for (int s = 0; s < 2; s++) {
                struct fuzz_cfg cfg = {fuzz_enctypes[e], r != 0, s != 0};
                uint8_t buf[128];
                size_t len = fuzz_gssd_buffer(&cfg, false, buf, sizeof(buf));
                gk5_ctx *ctx = NULL;
                uint32_t minor = 0, major;

                if (len == 0) {
                    fuzz_fail("cannot build a gssd buffer", 0, 0);
                }
                major = gk5_ctx_import_gssd(&minor, buf, len, &ctx);
                if (major != GK5_S_COMPLETE) {
                    fuzz_fail("pristine gk5_ctx_import_gssd failed", major,
                              minor);
                }
                major = gk5_ctx_export(&minor, ctx, &pristine[e][r][s]);
                gk5_ctx_free(ctx);
                if (major != GK5_S_COMPLETE) {
                    fuzz_fail("pristine gk5_ctx_export failed", major, minor);
                }
            }
        }
    }
    initialized = true;
}

void fuzz_trace_for(size_t size)
{
    static int current = -1;
    const char *force = getenv("FUZZ_TRACE");
    int want = force != NULL ? force[0] == '1' : (int)(size & 1u);

    if (want == current) {
        return;
    }
    if (want) {
        setenv("GK5_TRACE", "/dev/null", 1);
    } else {
        unsetenv("GK5_TRACE");
    }
    gk5i_trace_reset();
    current = want;
}

bool fuzz_take_cfg(const uint8_t **data, size_t *size, struct fuzz_cfg *cfg,
                   uint8_t *b1)
{
    unsigned e;

    fuzz_trace_for(*size);
    if (*size < 2) {
        return false;
    }
    e = (*data)[0] % FUZZ_N_ENCTYPES;
    if (!usable[e]) {
        return false;
    }
    *b1 = (*data)[1];
    cfg->enctype = fuzz_enctypes[e];
    cfg->initiator = (*b1 & FUZZ_B1_ACCEPTOR) == 0;
    cfg->acceptor_subkey =
        !fuzz_rfc1964(cfg->enctype) && (*b1 & FUZZ_B1_SUBKEY) != 0;
    *data += 2;
    *size -= 2;
    return true;
}

gk5_ctx *fuzz_ctx_fresh(const struct fuzz_cfg *cfg, bool peer)
{
    int e = enctype_index(cfg->enctype);
    bool initiator = peer ? !cfg->initiator : cfg->initiator;
    const gk5_buffer *b;
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    if (e < 0 || !usable[e]) {
        fuzz_fail("fuzz_ctx_fresh: enctype not usable", 0, 0);
    }
    if (spare[e][initiator][cfg->acceptor_subkey] != NULL) {
        ctx = spare[e][initiator][cfg->acceptor_subkey];
        spare[e][initiator][cfg->acceptor_subkey] = NULL;
        return ctx;
    }
    b = &pristine[e][initiator][cfg->acceptor_subkey];
    major = gk5_ctx_import(&minor, b->value, b->length, &ctx);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("re-import of a pristine context failed", major, minor);
    }
    return ctx;
}

void fuzz_ctx_done(const struct fuzz_cfg *cfg, bool peer, gk5_ctx *ctx)
{
    int e = enctype_index(cfg->enctype);
    bool initiator = peer ? !cfg->initiator : cfg->initiator;
    const gk5_buffer *b;
    gk5_buffer now = {0, NULL};
    uint32_t minor = 0;

    if (ctx == NULL) {
        return;
    }
    if (no_reuse || e < 0 || spare[e][initiator][cfg->acceptor_subkey] ||
        gk5_ctx_export(&minor, ctx, &now) != GK5_S_COMPLETE) {
        gk5_ctx_free(ctx);
        return;
    }
    b = &pristine[e][initiator][cfg->acceptor_subkey];
    if (now.length == b->length &&
        memcmp(now.value, b->value, b->length) == 0) {
        spare[e][initiator][cfg->acceptor_subkey] = ctx;
    } else {
        gk5_ctx_free(ctx);
    }
    gk5_buffer_release(&now);
}

uint8_t fuzz_u8(struct fuzz_in *in)
{
    uint8_t v = 0;

    if (in->n > 0) {
        v = in->p[0];
        in->p++;
        in->n--;
    }
    return v;
}

uint16_t fuzz_u16(struct fuzz_in *in)
{
    uint16_t hi = fuzz_u8(in);

    return (uint16_t)(hi << 8 | fuzz_u8(in));
}

uint32_t fuzz_u32(struct fuzz_in *in)
{
    uint32_t hi = fuzz_u16(in);

    return hi << 16 | fuzz_u16(in);
}

size_t fuzz_bytes(struct fuzz_in *in, const uint8_t **p, size_t max)
{
    size_t n = in->n < max ? in->n : max;

    *p = in->p;
    in->p += n;
    in->n -= n;
    return n;
}

void fuzz_take_flips(struct fuzz_in *in, struct fuzz_flips *f)
{
    f->n = fuzz_u8(in) % (FUZZ_MAX_FLIPS + 1);
    for (unsigned i = 0; i < f->n; i++) {
        f->pos[i] = fuzz_u16(in);
        f->xor_[i] = fuzz_u8(in);
    }
}

bool fuzz_apply_flips(const struct fuzz_flips *f, uint8_t *p, size_t len)
{
    uint8_t *orig;
    bool changed;

    if (len == 0 || f->n == 0) {
        return false;
    }
    orig = malloc(len);
    if (orig == NULL) {
        abort();
    }
    memcpy(orig, p, len);
    for (unsigned i = 0; i < f->n; i++) {
        p[f->pos[i] % len] ^= f->xor_[i];
    }
    changed = memcmp(orig, p, len) != 0;
    free(orig);
    return changed;
}

uint8_t *fuzz_dup(const void *p, size_t n)
{
    uint8_t *q = calloc(n == 0 ? 1 : n, 1);

    if (q == NULL) {
        abort();
    }
    if (p != NULL && n != 0) {
        memcpy(q, p, n);
    }
    return q;
}

void fuzz_set_rrc(uint8_t *tok, size_t len, uint16_t rrc)
{
    size_t body, left, r;
    uint8_t *tmp;

    if (len <= 16) {
        return;
    }
    body = len - 16;
    /* Back to RRC 0 (rotate left by the stated RRC), then right by the new
     * one: in total, right by (rrc - old) mod body. */
    left = (size_t)(tok[6] << 8 | tok[7]) % body;
    r = (rrc % body + body - left) % body;
    tmp = fuzz_dup(tok + 16, body);
    /* Right rotation by r: byte i moves to (i + r) mod body. */
    memcpy(tok + 16 + r, tmp, body - r);
    memcpy(tok + 16, tmp + body - r, r);
    free(tmp);
    tok[6] = (uint8_t)(rrc >> 8);
    tok[7] = (uint8_t)rrc;
}

/* ---- The failing allocator ---- */

/* Allocations left before the failure (-1: none armed), whether every
 * later one fails too, and whether the failure point was reached. */
static long alloc_left = -1;
static bool alloc_all;
static bool alloc_hit;

static bool alloc_fails(void)
{
    if (alloc_left < 0) {
        return false;
    }
    if (alloc_left > 0) {
        alloc_left--;
        return false;
    }
    if (!alloc_all) {
        alloc_left = -1;
    }
    alloc_hit = true;
    return true;
}

static void *fail_malloc(size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return alloc_fails() ? NULL : malloc(n);
}

static void *fail_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return alloc_fails() ? NULL : realloc(p, n);
}

static void fail_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    free(p);
}

void fuzz_alloc_fail_install(void)
{
    if (CRYPTO_set_mem_functions(fail_malloc, fail_realloc, fail_free) != 1) {
        fuzz_fail("CRYPTO_set_mem_functions: OpenSSL has already allocated", 0,
                  0);
    }
}

static void arm(long point, bool all)
{
    alloc_left = point;
    alloc_all = all && point >= 0;
    if (point >= 0) {
        alloc_hit = false;
    }
}

void fuzz_alloc_fail_arm(long point)
{
    arm(point, false);
}

void fuzz_alloc_fail_arm_all(long point)
{
    arm(point, true);
}

bool fuzz_alloc_fail_hit(void)
{
    return alloc_hit;
}

size_t fuzz_pac_build(const struct fuzz_pac_buf *bufs, unsigned n, uint8_t *out,
                      size_t cap, size_t *offs)
{
    struct gk5i_wr w;
    size_t at = 8 + (size_t)n * 16;
    uint8_t *h;

    gk5i_wr_init(&w, out, cap);
    h = gk5i_wr_reserve(&w, at);
    if (h == NULL) {
        return 0;
    }
    store_le32(h, n);
    store_le32(h + 4, 0);
    for (unsigned i = 0; i < n; i++) {
        size_t pad = (8 - bufs[i].len % 8) % 8;

        at = (at + 7) & ~(size_t)7;
        offs[i] = at;
        store_le32(h + 8 + 16 * i, bufs[i].type);
        store_le32(h + 12 + 16 * i, (uint32_t)bufs[i].len);
        store_le32(h + 16 + 16 * i, (uint32_t)at);
        store_le32(h + 20 + 16 * i, (uint32_t)((uint64_t)at >> 32));
        if (bufs[i].p != NULL) {
            gk5i_put_bytes(&w, bufs[i].p, bufs[i].len);
        } else {
            gk5i_put_fill(&w, 0, bufs[i].len);
        }
        gk5i_put_fill(&w, 0, pad);
        at += bufs[i].len + pad;
    }
    return w.bad ? 0 : at;
}

size_t fuzz_pac_client_info(int64_t filetime, const uint16_t *name, size_t n,
                            uint8_t *out, size_t cap)
{
    struct gk5i_wr w;
    uint8_t *t;

    gk5i_wr_init(&w, out, cap);
    t = gk5i_wr_reserve(&w, 8);
    if (t != NULL) {
        store_le32(t, (uint32_t)(uint64_t)filetime);
        store_le32(t + 4, (uint32_t)((uint64_t)filetime >> 32));
    }
    gk5i_put_u16le(&w, (uint16_t)(2 * n));
    for (size_t i = 0; i < n; i++) {
        gk5i_put_u16le(&w, name[i]);
    }
    return w.bad ? 0 : cap - w.left;
}

void fuzz_pac_sign(uint8_t *pac, size_t len, size_t sig_at, size_t sig_len)
{
    uint8_t key[32], ck[64];
    size_t klen = fuzz_seed_key(FUZZ_PAC_ENCTYPE, 0, key, sizeof(key));
    size_t cl = sizeof(ck);

    if (klen == 0 ||
        gk5_c_checksum(FUZZ_PAC_ENCTYPE, key, klen, FUZZ_PAC_KEY_USAGE, pac,
                       len, ck, &cl) != GK5_OK) {
        fuzz_fail("gk5_c_checksum for a PAC", 0, 0);
    }
    memset(pac + sig_at, 0, sig_len);
    memcpy(pac + sig_at, ck, cl < sig_len ? cl : sig_len);
}
