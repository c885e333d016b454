/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * test_interposer_api (meson test 'interposer-api', TAP): gk5_mech.so, the
 * mechglue interposer, seen only through MIT's public GSS-API.
 *
 *   gk5 realm run --tap -- test_interposer_api /path/to/gk5_mech.so
 *
 * The test writes its own GSS_MECH_CONFIG naming argv[1] as the interposer
 * for the krb5 OIDs and sets GK5_TRACE before its first GSS-API call.  In
 * one process it then holds two kinds of krb5 context:
 *
 *   interposed  made with gss_mech_krb5 (or GSS_C_NO_OID), or imported
 *               with the krb5 OID: the module serves its per-message
 *               calls with gk5;
 *   plain       made with the "special" OID (the DER bytes of the
 *               interposer's OID from the config line, then krb5's), or
 *               imported with it: MIT's krb5 mechanism, which the
 *               mechglue reaches without the module.
 *
 * Cells, per session-key enctype (the AES, AES-SHA2 and Camellia ones):
 * interposed initiator with plain acceptor and plain initiator with
 * interposed acceptor, both directions: wrap sealed and integrity-only,
 * MIC, IOV wrap with and without a trailer (RRC), unwrap_iov, MIC IOV,
 * wrap_iov_length and wrap_size_limit against MIT's answers; the same
 * bytes as MIT for a MIC and an integrity-only Wrap token from twin
 * contexts (one exported MIT context imported twice); the same major
 * status as MIT for each token of a replayed, reordered and gapped stream
 * (twin acceptors); tampered and truncated tokens refused with no
 * plaintext out and no state change; the calls the module passes to MIT
 * (inquire_context, context_time, pseudo_random, lucid export, export).
 * rc4 and des3 contexts must stay with MIT and still work.  At the end
 * the trace must show gk5 serving every enctype with non-zero counts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, setenv, realpath */
#endif
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#define TARGET "gk5@localhost"
/* The OID the test's config line gives the module (the module's default,
 * GK5_INTERPOSER_OID_TEXT).  MIT's mechglue makes the special OIDs from the
 * config OID's DER bytes; its parser takes arcs of an unsigned long only,
 * so a 2.25.<UUID> OID would not do. */
#define INTERPOSER_OID_TEXT "1.3.6.1.4.1.32473.4121.1"
#define KRB5_OID9 "\x2a\x86\x48\x86\xf7\x12\x01\x02\x02"
#define GK5_MINOR_BASE 0x865ea700u
#define FLAGS                                                                  \
    (GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |             \
     GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIG 70000u

static uint8_t special_bytes[64];
static gss_OID_desc special_oid = {0, special_bytes};
static gss_OID_set_desc special_set = {1, &special_oid};
static gss_OID_desc krb5_oid = {9, (void *)KRB5_OID9};

static const struct enctype {
    int32_t et;
    const char *name;
} enctypes[] = {
    {18, "aes256-cts-hmac-sha1-96"},    {17, "aes128-cts-hmac-sha1-96"},
    {20, "aes256-cts-hmac-sha384-192"}, {19, "aes128-cts-hmac-sha256-128"},
    {26, "camellia256-cts-cmac"},       {25, "camellia128-cts-cmac"},
};

static const size_t sizes[] = {0, 1, 1000, BIG};

static int g_n;
static int g_failed;
static char g_why[2048];
static char g_client_kt[1024], g_service_kt[1024];
static char g_tmp[256], g_conf[512], g_trace[512];
static char g_module[PATH_MAX];
static int g_ccache_serial;
/* The next initiator uses the last one's ccache (its service ticket, and
 * so the same PAC). */
static bool g_same_ccache;

/* ---- TAP ---- */

/* Say why the cell about to be reported fails (kept: first reason wins). */
static bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool fail(const char *fmt, ...)
{
    va_list ap;

    if (g_why[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(g_why, sizeof(g_why), fmt, ap);
        va_end(ap);
    }
    return false;
}

/* One TAP line, then the reason of a failure as a diagnostic. */
static bool report(bool ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool report(bool ok, const char *fmt, ...)
{
    va_list ap;

    g_n++;
    printf("%s %d - ", ok ? "ok" : "not ok", g_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!ok) {
        g_failed++;
        printf("# %s\n", g_why[0] != '\0' ? g_why : "(no reason recorded)");
    }
    g_why[0] = '\0';
    fflush(stdout);
    return ok;
}

static void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void skip(const char *fmt, ...)
{
    va_list ap;

    g_n++;
    printf("ok %d # SKIP ", g_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    g_why[0] = '\0';
    fflush(stdout);
}

/* ---- status words ---- */

static size_t display(char *buf, size_t len, OM_uint32 code, int type)
{
    OM_uint32 major, minor, more = 0;
    gss_buffer_desc msg = GSS_C_EMPTY_BUFFER;
    size_t used = 0;

    buf[0] = '\0';
    do {
        major = gss_display_status(
            &minor, code, type,
            type == GSS_C_MECH_CODE ? (gss_OID)gss_mech_krb5 : GSS_C_NO_OID,
            &more, &msg);
        if (GSS_ERROR(major)) {
            break;
        }
        if (used + 3 < len) {
            used += (size_t)snprintf(buf + used, len - used, "%s%.*s",
                                     used > 0 ? "; " : "", (int)msg.length,
                                     (const char *)msg.value);
        }
        (void)gss_release_buffer(&minor, &msg);
    } while (more != 0);
    return strlen(buf);
}

/* "0xMAJOR (words) minor 0xMINOR (words)": four rotating buffers, so one
 * printf can hold several. */
static const char *words(OM_uint32 major, OM_uint32 minor)
{
    static char bufs[4][768];
    static int k;
    char *b = bufs[k++ % 4];
    char maj[300], min[300];

    display(maj, sizeof(maj), major, GSS_C_GSS_CODE);
    display(min, sizeof(min), minor, GSS_C_MECH_CODE);
    snprintf(b, sizeof(bufs[0]), "0x%08x (%s), minor 0x%08x (%s)",
             (unsigned)major, maj, (unsigned)minor, min);
    return b;
}

/* ---- messages and buffers ---- */

static void fill(uint8_t *p, size_t n, unsigned serial)
{
    uint32_t x = 0x9e3779b9u * (serial + 1u);

    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

static uint8_t *message(size_t n, unsigned serial)
{
    uint8_t *p = malloc(n > 0 ? n : 1);

    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(99);
    }
    fill(p, n, serial);
    return p;
}

static void release(gss_buffer_desc *b)
{
    OM_uint32 minor;

    (void)gss_release_buffer(&minor, b);
}

static bool same_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}

/* ---- the trace ---- */

static char *read_file(const char *path, long from)
{
    FILE *f = fopen(path, "r");
    char *text;
    long size;

    if (f == NULL) {
        return strdup("");
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    if (from > size) {
        from = size;
    }
    fseek(f, from, SEEK_SET);
    text = calloc(1, (size_t)(size - from) + 1);
    if (text != NULL &&
        fread(text, 1, (size_t)(size - from), f) != (size_t)(size - from)) {
        text[0] = '\0';
    }
    fclose(f);
    return text;
}

static long trace_mark(void)
{
    struct stat st;

    return stat(g_trace, &st) == 0 ? (long)st.st_size : 0;
}

/* The trace lines written since mark, NUL-terminated (caller frees). */
static char *trace_since(long mark)
{
    return read_file(g_trace, mark);
}

/* ---- contexts ---- */

static const char *kind(bool plain)
{
    return plain ? "MIT" : "gk5";
}

static gss_name_t target_name(void)
{
    gss_buffer_desc b = {strlen(TARGET), (void *)TARGET};
    gss_name_t name = GSS_C_NO_NAME;
    OM_uint32 major, minor;

    major = gss_import_name(&minor, &b, GSS_C_NT_HOSTBASED_SERVICE, &name);
    if (GSS_ERROR(major)) {
        fail("gss_import_name(%s): %s", TARGET, words(major, minor));
    }
    return name;
}

/* Initiator credential from client.keytab in a MEMORY ccache of its own,
 * limited to one enctype (et 0: no limit). */
static bool initiator_cred(bool plain, int32_t et, gss_cred_id_t *cred)
{
    char ccache[64];
    gss_key_value_element_desc el[2];
    gss_key_value_set_desc store = {2, el};
    OM_uint32 major, minor;

    snprintf(ccache, sizeof(ccache), "MEMORY:gk5-api-%d",
             g_same_ccache ? g_ccache_serial : ++g_ccache_serial);
    el[0].key = "client_keytab";
    el[0].value = g_client_kt;
    el[1].key = "ccache";
    el[1].value = ccache;
    *cred = GSS_C_NO_CREDENTIAL;
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  plain ? &special_set
                                        : (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &store, cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        return fail("gss_acquire_cred_from(%s initiator): %s", kind(plain),
                    words(major, minor));
    }
    if (et != 0) {
        krb5_enctype want = et;
        major = gss_krb5_set_allowable_enctypes(&minor, *cred, 1, &want);
        if (GSS_ERROR(major)) {
            (void)gss_release_cred(&minor, cred);
            return fail("gss_krb5_set_allowable_enctypes(%s, %d): %s",
                        kind(plain), (int)et, words(major, minor));
        }
    }
    return true;
}

static bool acceptor_cred(bool plain, gss_cred_id_t *cred)
{
    gss_key_value_element_desc el = {"keytab", g_service_kt};
    gss_key_value_set_desc store = {1, &el};
    OM_uint32 major, minor;

    *cred = GSS_C_NO_CREDENTIAL;
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  plain ? &special_set
                                        : (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_ACCEPT, &store, cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        return fail("gss_acquire_cred_from(%s acceptor): %s", kind(plain),
                    words(major, minor));
    }
    return true;
}

enum how {
    HOW_CRED,    /* creds acquired for their mechanism */
    HOW_DEFAULT, /* interposed sides: GSS_C_NO_OID initiator mech, and
                    GSS_C_NO_CREDENTIAL acceptor (KRB5_KTNAME) */
};

struct pair {
    gss_ctx_id_t init, acc;
    gss_name_t src;          /* the acceptor's src_name */
    gss_cred_id_t delegated; /* the acceptor's delegated_cred_handle */
    OM_uint32 acc_flags;     /* the acceptor's ret_flags */
    bool init_plain, acc_plain;
    int32_t et;
    char label[96];
};

static void pair_release(struct pair *p)
{
    OM_uint32 minor;

    (void)gss_delete_sec_context(&minor, &p->init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &p->acc, GSS_C_NO_BUFFER);
    (void)gss_release_name(&minor, &p->src);
    (void)gss_release_cred(&minor, &p->delegated);
}

/* The initiator's flags for establish(); FLAGS unless a cell sets more. */
static OM_uint32 g_req_flags = FLAGS;
/* An acceptor credential for establish() instead of its own (not
 * released there). */
static gss_cred_id_t g_acc_cred = GSS_C_NO_CREDENTIAL;

/* Run the token exchange to completion on both sides. */
static bool establish(struct pair *p, int32_t et, bool init_plain,
                      bool acc_plain, enum how how)
{
    gss_cred_id_t icred = GSS_C_NO_CREDENTIAL, acred = GSS_C_NO_CREDENTIAL;
    gss_name_t target;
    gss_buffer_desc itok = GSS_C_EMPTY_BUFFER, atok = GSS_C_EMPTY_BUFFER;
    OM_uint32 imaj = GSS_S_CONTINUE_NEEDED, amaj = GSS_S_CONTINUE_NEEDED;
    OM_uint32 minor, rel;
    gss_OID mech = init_plain ? &special_oid : (gss_OID)gss_mech_krb5;
    bool ok = false;

    memset(p, 0, sizeof(*p));
    p->init = GSS_C_NO_CONTEXT;
    p->acc = GSS_C_NO_CONTEXT;
    p->src = GSS_C_NO_NAME;
    p->delegated = GSS_C_NO_CREDENTIAL;
    p->init_plain = init_plain;
    p->acc_plain = acc_plain;
    p->et = et;
    snprintf(p->label, sizeof(p->label), "%s init / %s acc", kind(init_plain),
             kind(acc_plain));
    target = target_name();
    if (target == GSS_C_NO_NAME) {
        return false;
    }
    if (how == HOW_DEFAULT && !init_plain) {
        mech = GSS_C_NO_OID;
    }
    if (!initiator_cred(init_plain, et, &icred)) {
        goto cleanup;
    }
    if (g_acc_cred == GSS_C_NO_CREDENTIAL && (how == HOW_CRED || acc_plain) &&
        !acceptor_cred(acc_plain, &acred)) {
        goto cleanup;
    }
    for (int round = 0; round < 8; round++) {
        if (imaj == GSS_S_CONTINUE_NEEDED) {
            release(&itok);
            imaj = gss_init_sec_context(
                &minor, icred, &p->init, target, mech, g_req_flags, 0,
                GSS_C_NO_CHANNEL_BINDINGS, &atok, NULL, &itok, NULL, NULL);
            if (GSS_ERROR(imaj)) {
                fail("gss_init_sec_context (%s): %s", kind(init_plain),
                     words(imaj, minor));
                goto cleanup;
            }
        }
        if (itok.length == 0 && amaj != GSS_S_CONTINUE_NEEDED) {
            break;
        }
        if (itok.length > 0) {
            release(&atok);
            gss_name_t *src = p->src == GSS_C_NO_NAME ? &p->src : NULL;
            gss_cred_id_t *deleg =
                p->delegated == GSS_C_NO_CREDENTIAL ? &p->delegated : NULL;
            amaj = gss_accept_sec_context(
                &minor, &p->acc,
                g_acc_cred != GSS_C_NO_CREDENTIAL ? g_acc_cred : acred, &itok,
                GSS_C_NO_CHANNEL_BINDINGS, src, NULL, &atok, &p->acc_flags,
                NULL, deleg);
            release(&itok);
            if (GSS_ERROR(amaj)) {
                fail("gss_accept_sec_context (%s): %s", kind(acc_plain),
                     words(amaj, minor));
                goto cleanup;
            }
        }
        if (imaj == GSS_S_COMPLETE && amaj == GSS_S_COMPLETE) {
            break;
        }
    }
    if (imaj != GSS_S_COMPLETE || amaj != GSS_S_COMPLETE) {
        fail("establishment did not complete (init 0x%x, acc 0x%x)",
             (unsigned)imaj, (unsigned)amaj);
        goto cleanup;
    }
    ok = true;

cleanup:
    release(&itok);
    release(&atok);
    (void)gss_release_cred(&rel, &icred);
    (void)gss_release_cred(&rel, &acred);
    (void)gss_release_name(&rel, &target);
    if (!ok) {
        pair_release(p);
    }
    return ok;
}

/* The session key's enctype as MIT sees it: a lucid export of a plain
 * context (which the export deletes).  0 when unknown. */
static int32_t plain_lucid_enctype(gss_ctx_id_t *ctx)
{
    void *lucid = NULL;
    OM_uint32 major, minor;
    int32_t et = 0;

    major = gss_krb5_export_lucid_sec_context(&minor, ctx, 1, &lucid);
    if (GSS_ERROR(major)) {
        fail("gss_krb5_export_lucid_sec_context: %s", words(major, minor));
        return 0;
    }
    gss_krb5_lucid_context_v1_t *l = lucid;
    if (l->protocol == 0) {
        et = (int32_t)l->rfc1964_kd.ctx_key.type;
    } else if (l->cfx_kd.have_acceptor_subkey) {
        et = (int32_t)l->cfx_kd.acceptor_subkey.type;
    } else {
        et = (int32_t)l->cfx_kd.ctx_key.type;
    }
    (void)gss_krb5_free_lucid_sec_context(&minor, lucid);
    return et;
}

/* Export *ctx (deleted by the export). */
static bool export_ctx(gss_ctx_id_t *ctx, gss_buffer_desc *out)
{
    OM_uint32 major, minor;

    major = gss_export_sec_context(&minor, ctx, out);
    if (GSS_ERROR(major)) {
        return fail("gss_export_sec_context: %s", words(major, minor));
    }
    if (out->length < 4 || (size_t)load_be32(out->value) + 4 > out->length) {
        return fail("exported token of %zu bytes has no OID header",
                    out->length);
    }
    return true;
}

/* Import an exported token with its OID header replaced by oid. */
static bool import_as(const gss_buffer_desc *exp, const gss_OID_desc *oid,
                      gss_ctx_id_t *ctx)
{
    const uint8_t *e = exp->value;
    size_t old = load_be32(e);
    size_t body = exp->length - 4 - old;
    gss_buffer_desc tok;
    OM_uint32 major, minor;
    uint8_t *t = malloc(4 + oid->length + body);

    if (t == NULL) {
        return fail("out of memory");
    }
    t[0] = (uint8_t)(oid->length >> 24);
    t[1] = (uint8_t)(oid->length >> 16);
    t[2] = (uint8_t)(oid->length >> 8);
    t[3] = (uint8_t)oid->length;
    memcpy(t + 4, oid->elements, oid->length);
    memcpy(t + 4 + oid->length, e + 4 + old, body);
    tok.length = 4 + oid->length + body;
    tok.value = t;
    *ctx = GSS_C_NO_CONTEXT;
    major = gss_import_sec_context(&minor, &tok, ctx);
    free(t);
    if (GSS_ERROR(major)) {
        return fail("gss_import_sec_context (%s OID header): %s",
                    oid->length == special_oid.length ? "special" : "krb5",
                    words(major, minor));
    }
    return true;
}

/* Two contexts with the same state from one exported token: *gk5 with the
 * krb5 OID header (interposed), *mit with the special one (plain). */
static bool twins(gss_ctx_id_t *from, gss_ctx_id_t *gk5, gss_ctx_id_t *mit)
{
    gss_buffer_desc exp = GSS_C_EMPTY_BUFFER;
    bool ok = export_ctx(from, &exp) && import_as(&exp, &krb5_oid, gk5) &&
              import_as(&exp, &special_oid, mit);

    release(&exp);
    return ok;
}

/* ---- contiguous per-message calls ---- */

static bool wrap_unwrap(gss_ctx_id_t s, gss_ctx_id_t r, int conf,
                        const uint8_t *msg, size_t len)
{
    gss_buffer_desc in = {len, (void *)(uintptr_t)msg};
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;
    int cs = -1, rcs = -1;
    gss_qop_t qop = 99;
    bool ok = false;

    major = gss_wrap(&minor, s, conf, GSS_C_QOP_DEFAULT, &in, &cs, &tok);
    if (major != GSS_S_COMPLETE || cs != conf) {
        fail("gss_wrap(conf %d, len %zu): %s, conf_state %d", conf, len,
             words(major, minor), cs);
        goto cleanup;
    }
    major = gss_unwrap(&minor, r, &tok, &out, &rcs, &qop);
    if (major != GSS_S_COMPLETE) {
        fail("gss_unwrap(conf %d, len %zu): %s", conf, len,
             words(major, minor));
        goto cleanup;
    }
    if (!same_bytes(out.value, out.length, msg, len) || rcs != conf ||
        qop != 0) {
        fail("gss_unwrap(conf %d, len %zu): %zu bytes, %s, conf_state %d, "
             "qop %u",
             conf, len, out.length,
             same_bytes(out.value, out.length, msg, len) ? "equal"
                                                         : "different",
             rcs, (unsigned)qop);
        goto cleanup;
    }
    ok = true;

cleanup:
    release(&tok);
    release(&out);
    return ok;
}

static bool mic_verify(gss_ctx_id_t s, gss_ctx_id_t r, const uint8_t *msg,
                       size_t len)
{
    gss_buffer_desc in = {len, (void *)(uintptr_t)msg},
                    tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;
    gss_qop_t qop = 99;
    bool ok = false;

    major = gss_get_mic(&minor, s, GSS_C_QOP_DEFAULT, &in, &tok);
    if (major != GSS_S_COMPLETE) {
        fail("gss_get_mic(len %zu): %s", len, words(major, minor));
        goto cleanup;
    }
    major = gss_verify_mic(&minor, r, &in, &tok, &qop);
    if (major != GSS_S_COMPLETE || qop != 0) {
        fail("gss_verify_mic(len %zu): %s, qop %u", len, words(major, minor),
             (unsigned)qop);
        goto cleanup;
    }
    ok = true;

cleanup:
    release(&tok);
    return ok;
}

enum op { OP_SEALED, OP_INTEG, OP_MIC };
static const char *const op_names[] = {"wrap sealed", "wrap integ",
                                       "get_mic/verify_mic"};

static void cell_contiguous(const struct pair *p, bool from_init, enum op op)
{
    gss_ctx_id_t s = from_init ? p->init : p->acc;
    gss_ctx_id_t r = from_init ? p->acc : p->init;
    bool s_plain = from_init ? p->init_plain : p->acc_plain;
    bool ok = true;

    for (size_t i = 0; i < ARRAY_SIZE(sizes) && ok; i++) {
        uint8_t *msg = message(sizes[i], (unsigned)(i + 10 * op));
        ok = op == OP_MIC ? mic_verify(s, r, msg, sizes[i])
                          : wrap_unwrap(s, r, op == OP_SEALED, msg, sizes[i]);
        free(msg);
    }
    report(ok, "%d %s | %s->%s %s, sizes 0/1/1000/70000", (int)p->et, p->label,
           kind(s_plain), kind(!s_plain), op_names[op]);
}

/* ---- IOV ---- */

enum layout { L_TRAILER, L_NO_TRAILER };

struct iovtok {
    gss_iov_buffer_desc iov[4];
    int n;
    uint8_t *concat;
    size_t clen;
    unsigned rrc;
};

static void iovtok_free(struct iovtok *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->iov[i].buffer.value);
    }
    free(t->concat);
    memset(t, 0, sizeof(*t));
}

static void iov_set(gss_iov_buffer_desc *iov, OM_uint32 type, void *p,
                    size_t len)
{
    iov->type = type;
    iov->buffer.value = p;
    iov->buffer.length = len;
}

/* gss_wrap_iov_length, buffers of those sizes, gss_wrap_iov into them: the
 * lengths must not change; the buffers laid end to end are the token. */
static bool iov_wrap(gss_ctx_id_t s, int conf, enum layout layout,
                     const uint8_t *msg, size_t len, struct iovtok *t)
{
    size_t want[4];
    OM_uint32 major, minor;
    int cs = -1;

    memset(t, 0, sizeof(*t));
    iov_set(&t->iov[0], GSS_IOV_BUFFER_TYPE_HEADER, NULL, 0);
    iov_set(&t->iov[1], GSS_IOV_BUFFER_TYPE_DATA, NULL, len);
    t->n = 2;
    if (layout == L_TRAILER) {
        iov_set(&t->iov[2], GSS_IOV_BUFFER_TYPE_PADDING, NULL, 0);
        iov_set(&t->iov[3], GSS_IOV_BUFFER_TYPE_TRAILER, NULL, 0);
        t->n = 4;
    }
    major = gss_wrap_iov_length(&minor, s, conf, GSS_C_QOP_DEFAULT, &cs, t->iov,
                                t->n);
    if (major != GSS_S_COMPLETE) {
        return fail("gss_wrap_iov_length(conf %d, len %zu): %s", conf, len,
                    words(major, minor));
    }
    for (int i = 0; i < t->n; i++) {
        want[i] = t->iov[i].buffer.length;
        t->iov[i].buffer.value = malloc(want[i] > 0 ? want[i] : 1);
        if (t->iov[i].buffer.value == NULL) {
            return fail("out of memory");
        }
    }
    if (len > 0) {
        memcpy(t->iov[1].buffer.value, msg, len);
    }
    cs = -1;
    major = gss_wrap_iov(&minor, s, conf, GSS_C_QOP_DEFAULT, &cs, t->iov, t->n);
    if (major != GSS_S_COMPLETE || cs != conf) {
        return fail("gss_wrap_iov(conf %d, len %zu): %s, conf_state %d", conf,
                    len, words(major, minor), cs);
    }
    t->clen = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->iov[i].buffer.length != want[i]) {
            return fail("gss_wrap_iov(conf %d, len %zu): buffer %d is %zu "
                        "bytes, gss_wrap_iov_length said %zu",
                        conf, len, i, t->iov[i].buffer.length, want[i]);
        }
        t->clen += want[i];
    }
    t->concat = malloc(t->clen);
    if (t->concat == NULL) {
        return fail("out of memory");
    }
    size_t at = 0;
    for (int i = 0; i < t->n; i++) {
        memcpy(t->concat + at, t->iov[i].buffer.value, want[i]);
        at += want[i];
    }
    t->rrc = t->clen >= 8 ? (unsigned)(t->concat[6] << 8 | t->concat[7]) : 0;
    if (layout == L_TRAILER && t->rrc != 0) {
        return fail("gss_wrap_iov with a trailer sent RRC %u", t->rrc);
    }
    if (layout == L_NO_TRAILER && t->rrc == 0) {
        return fail("gss_wrap_iov without a trailer sent RRC 0");
    }
    return true;
}

/* Unwrap an IOV token with gss_unwrap_iov in the layout it was made in
 * (in place, on copies of its buffers). */
static bool iov_unwrap(gss_ctx_id_t r, const struct iovtok *t, int conf,
                       const uint8_t *msg, size_t len, OM_uint32 *major_out,
                       OM_uint32 *minor_out, bool *plaintext_left)
{
    gss_iov_buffer_desc iov[4];
    OM_uint32 major, minor;
    int cs = -1;
    gss_qop_t qop = 99;
    bool ok = false;

    memset(iov, 0, sizeof(iov));
    for (int i = 0; i < t->n; i++) {
        size_t n = t->iov[i].buffer.length;
        iov_set(&iov[i], t->iov[i].type, malloc(n > 0 ? n : 1), n);
        if (iov[i].buffer.value == NULL) {
            fail("out of memory");
            goto cleanup;
        }
        memcpy(iov[i].buffer.value, t->iov[i].buffer.value, n);
    }
    major = gss_unwrap_iov(&minor, r, &cs, &qop, iov, t->n);
    if (major_out != NULL) {
        *major_out = major;
        *minor_out = minor;
    }
    if (plaintext_left != NULL) {
        *plaintext_left = len > 0 && iov[1].buffer.length == len &&
                          memcmp(iov[1].buffer.value, msg, len) == 0;
    }
    if (major != GSS_S_COMPLETE) {
        fail("gss_unwrap_iov(conf %d, len %zu, RRC %u): %s", conf, len, t->rrc,
             words(major, minor));
        goto cleanup;
    }
    if (!same_bytes(iov[1].buffer.value, iov[1].buffer.length, msg, len) ||
        cs != conf || qop != 0) {
        fail("gss_unwrap_iov(conf %d, len %zu, RRC %u): data %s, "
             "conf_state %d, qop %u",
             conf, len, t->rrc,
             same_bytes(iov[1].buffer.value, iov[1].buffer.length, msg, len)
                 ? "equal"
                 : "different",
             cs, (unsigned)qop);
        goto cleanup;
    }
    ok = true;

cleanup:
    for (int i = 0; i < t->n; i++) {
        free(iov[i].buffer.value);
    }
    return ok;
}

static bool unwrap_expect(gss_ctx_id_t r, const void *tok, size_t tlen,
                          int conf, const uint8_t *msg, size_t len)
{
    gss_buffer_desc in = {tlen, (void *)(uintptr_t)tok},
                    out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;
    int cs = -1;
    gss_qop_t qop = 99;
    bool ok = true;

    major = gss_unwrap(&minor, r, &in, &out, &cs, &qop);
    if (major != GSS_S_COMPLETE) {
        ok = fail("gss_unwrap(conf %d, len %zu, token %zu bytes): %s", conf,
                  len, tlen, words(major, minor));
    } else if (!same_bytes(out.value, out.length, msg, len) || cs != conf ||
               qop != 0) {
        ok = fail("gss_unwrap(conf %d, len %zu): %zu bytes out, conf_state "
                  "%d, qop %u",
                  conf, len, out.length, cs, (unsigned)qop);
    }
    release(&out);
    return ok;
}

enum how_unwrap { U_CONTIGUOUS, U_IOV };

static void cell_iov(const struct pair *p, bool from_init, enum layout layout,
                     enum how_unwrap how)
{
    gss_ctx_id_t s = from_init ? p->init : p->acc;
    gss_ctx_id_t r = from_init ? p->acc : p->init;
    bool s_plain = from_init ? p->init_plain : p->acc_plain;
    unsigned rrc_seen = 0;
    bool ok = true;

    for (int conf = 1; conf >= 0 && ok; conf--) {
        for (size_t i = 0; i < ARRAY_SIZE(sizes) && ok; i++) {
            struct iovtok t;
            uint8_t *msg = message(sizes[i], (unsigned)(i + 100));
            ok = iov_wrap(s, conf, layout, msg, sizes[i], &t) &&
                 (how == U_CONTIGUOUS
                      ? unwrap_expect(r, t.concat, t.clen, conf, msg, sizes[i])
                      : iov_unwrap(r, &t, conf, msg, sizes[i], NULL, NULL,
                                   NULL));
            rrc_seen = t.rrc > rrc_seen ? t.rrc : rrc_seen;
            iovtok_free(&t);
            free(msg);
        }
    }
    report(ok,
           "%d %s | %s->%s wrap_iov %s (RRC up to %u) -> %s, sealed+integ, "
           "wrap_iov_length agrees",
           (int)p->et, p->label, kind(s_plain), kind(!s_plain),
           layout == L_TRAILER ? "header|data|padding|trailer" : "header|data",
           rrc_seen, how == U_CONTIGUOUS ? "gss_unwrap" : "gss_unwrap_iov");
}

/* The sender's ALLOCATE flags: the mechanism allocates header, padding and
 * trailer itself. */
static void cell_iov_allocate(const struct pair *p, bool from_init)
{
    gss_ctx_id_t s = from_init ? p->init : p->acc;
    gss_ctx_id_t r = from_init ? p->acc : p->init;
    bool s_plain = from_init ? p->init_plain : p->acc_plain;
    gss_iov_buffer_desc iov[4];
    OM_uint32 major, minor;
    uint8_t *msg = message(1000, 7), *data = message(1000, 7), *tok = NULL;
    int cs = -1;
    bool ok = false;

    iov_set(&iov[0], GSS_IOV_BUFFER_TYPE_HEADER | GSS_IOV_BUFFER_FLAG_ALLOCATE,
            NULL, 0);
    iov_set(&iov[1], GSS_IOV_BUFFER_TYPE_DATA, data, 1000);
    iov_set(&iov[2], GSS_IOV_BUFFER_TYPE_PADDING | GSS_IOV_BUFFER_FLAG_ALLOCATE,
            NULL, 0);
    iov_set(&iov[3], GSS_IOV_BUFFER_TYPE_TRAILER | GSS_IOV_BUFFER_FLAG_ALLOCATE,
            NULL, 0);
    major = gss_wrap_iov(&minor, s, 1, GSS_C_QOP_DEFAULT, &cs, iov, 4);
    if (major != GSS_S_COMPLETE || cs != 1) {
        fail("gss_wrap_iov(ALLOCATE): %s", words(major, minor));
        goto cleanup;
    }
    size_t n = iov[0].buffer.length + 1000 + iov[2].buffer.length +
               iov[3].buffer.length;
    tok = malloc(n);
    if (tok == NULL) {
        fail("out of memory");
        goto cleanup;
    }
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        if (iov[i].buffer.length > 0) {
            memcpy(tok + at, iov[i].buffer.value, iov[i].buffer.length);
            at += iov[i].buffer.length;
        }
    }
    ok = unwrap_expect(r, tok, n, 1, msg, 1000);

cleanup:
    free(tok);
    free(msg);
    iov[1].type = GSS_IOV_BUFFER_TYPE_EMPTY; /* ours, not the mech's */
    (void)gss_release_iov_buffer(&minor, iov, 4);
    free(data);
    report(ok, "%d %s | %s->%s wrap_iov with ALLOCATE flags -> gss_unwrap",
           (int)p->et, p->label, kind(s_plain), kind(!s_plain));
}

/* A MIC over two DATA buffers: gss_get_mic_iov_length, then
 * gss_get_mic_iov into a buffer of that size. */
static bool mic_iov_make(gss_ctx_id_t s, const uint8_t *msg, size_t len,
                         gss_buffer_desc *mic)
{
    gss_iov_buffer_desc iov[3];
    OM_uint32 major, minor;
    size_t half = len / 2;

    mic->length = 0;
    mic->value = NULL;
    iov_set(&iov[0], GSS_IOV_BUFFER_TYPE_DATA, (void *)(uintptr_t)msg, half);
    iov_set(&iov[1], GSS_IOV_BUFFER_TYPE_DATA, (void *)(uintptr_t)(msg + half),
            len - half);
    iov_set(&iov[2], GSS_IOV_BUFFER_TYPE_MIC_TOKEN, NULL, 0);
    major = gss_get_mic_iov_length(&minor, s, GSS_C_QOP_DEFAULT, iov, 3);
    if (major != GSS_S_COMPLETE || iov[2].buffer.length == 0) {
        return fail("gss_get_mic_iov_length(len %zu): %s, %zu bytes", len,
                    words(major, minor), iov[2].buffer.length);
    }
    size_t want = iov[2].buffer.length;
    iov[2].buffer.value = malloc(want);
    if (iov[2].buffer.value == NULL) {
        return fail("out of memory");
    }
    major = gss_get_mic_iov(&minor, s, GSS_C_QOP_DEFAULT, iov, 3);
    if (major != GSS_S_COMPLETE || iov[2].buffer.length != want) {
        free(iov[2].buffer.value);
        return fail("gss_get_mic_iov(len %zu): %s, %zu bytes (length said "
                    "%zu)",
                    len, words(major, minor), iov[2].buffer.length, want);
    }
    mic->length = want;
    mic->value = iov[2].buffer.value;
    return true;
}

static OM_uint32 mic_iov_check(gss_ctx_id_t r, const uint8_t *msg, size_t len,
                               const gss_buffer_desc *mic, OM_uint32 *minor)
{
    gss_iov_buffer_desc iov[3];
    gss_qop_t qop = 99;
    size_t half = len / 3;

    iov_set(&iov[0], GSS_IOV_BUFFER_TYPE_DATA, (void *)(uintptr_t)msg, half);
    iov_set(&iov[1], GSS_IOV_BUFFER_TYPE_DATA, (void *)(uintptr_t)(msg + half),
            len - half);
    iov_set(&iov[2], GSS_IOV_BUFFER_TYPE_MIC_TOKEN, mic->value, mic->length);
    return gss_verify_mic_iov(minor, r, &qop, iov, 3);
}

enum mic_way { MIC_IOV_IOV, MIC_IOV_FLAT, MIC_FLAT_IOV };
static const char *const mic_way_names[] = {"get_mic_iov -> verify_mic_iov",
                                            "get_mic_iov -> verify_mic",
                                            "get_mic -> verify_mic_iov"};

static void cell_mic_iov(const struct pair *p, bool from_init, enum mic_way way)
{
    gss_ctx_id_t s = from_init ? p->init : p->acc;
    gss_ctx_id_t r = from_init ? p->acc : p->init;
    bool s_plain = from_init ? p->init_plain : p->acc_plain;
    bool ok = true;

    for (size_t i = 0; i < ARRAY_SIZE(sizes) && ok; i++) {
        uint8_t *msg = message(sizes[i], (unsigned)(i + 200));
        gss_buffer_desc in = {sizes[i], msg}, mic = GSS_C_EMPTY_BUFFER;
        OM_uint32 major, minor;
        gss_qop_t qop;
        bool mine = false;

        if (way == MIC_FLAT_IOV) {
            major = gss_get_mic(&minor, s, GSS_C_QOP_DEFAULT, &in, &mic);
            if (major != GSS_S_COMPLETE) {
                ok = fail("gss_get_mic(len %zu): %s", sizes[i],
                          words(major, minor));
            }
        } else {
            ok = mic_iov_make(s, msg, sizes[i], &mic);
            mine = true;
        }
        if (ok) {
            major = way == MIC_IOV_FLAT
                        ? gss_verify_mic(&minor, r, &in, &mic, &qop)
                        : mic_iov_check(r, msg, sizes[i], &mic, &minor);
            if (major != GSS_S_COMPLETE) {
                ok = fail("%s(len %zu): %s",
                          way == MIC_IOV_FLAT ? "gss_verify_mic"
                                              : "gss_verify_mic_iov",
                          sizes[i], words(major, minor));
            }
        }
        if (mine) {
            free(mic.value);
        } else {
            release(&mic);
        }
        free(msg);
    }
    report(ok, "%d %s | %s->%s %s, sizes 0/1/1000/70000", (int)p->et, p->label,
           kind(s_plain), kind(!s_plain), mic_way_names[way]);
}

/* gss_wrap_size_limit of the interposed side equals its plain peer's. */
static void cell_size_limit(const struct pair *p)
{
    static const OM_uint32 outs[] = {16, 64, 100, 1000, 65536, 70000};
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? p->init : p->acc;
    bool ok = true;

    for (int conf = 0; conf < 2 && ok; conf++) {
        for (size_t i = 0; i < ARRAY_SIZE(outs) && ok; i++) {
            OM_uint32 gmaj, mmaj, gmin, mmin, glim = 0, mlim = 0;
            gmaj = gss_wrap_size_limit(&gmin, g, conf, GSS_C_QOP_DEFAULT,
                                       outs[i], &glim);
            mmaj = gss_wrap_size_limit(&mmin, m, conf, GSS_C_QOP_DEFAULT,
                                       outs[i], &mlim);
            if (gmaj != mmaj || glim != mlim) {
                ok = fail("conf %d, output %u: gk5 %s max %u; MIT %s max %u",
                          conf, (unsigned)outs[i], words(gmaj, gmin),
                          (unsigned)glim, words(mmaj, mmin), (unsigned)mlim);
            }
        }
    }
    report(ok, "%d %s | gss_wrap_size_limit: gk5 == MIT (conf 0/1, 6 sizes)",
           (int)p->et, p->label);
}

/* ---- tampering (the interposed side receives) ---- */

static bool refused(OM_uint32 major)
{
    OM_uint32 r = GSS_ROUTINE_ERROR(major);

    return r == GSS_S_BAD_SIG || r == GSS_S_DEFECTIVE_TOKEN;
}

static char g_tamper_words[512];
static OM_uint32 g_tamper_minor;

/* The minor of a refusal must have words. */
static bool minor_has_words(OM_uint32 minor, const char *what)
{
    char text[512];

    if (display(text, sizeof(text), minor, GSS_C_MECH_CODE) == 0) {
        return fail("%s: minor 0x%08x has no words from gss_display_status",
                    what, (unsigned)minor);
    }
    if (g_tamper_words[0] == '\0') {
        snprintf(g_tamper_words, sizeof(g_tamper_words), "%s", text);
        g_tamper_minor = minor;
    }
    return true;
}

static bool tampered_unwrap(gss_ctx_id_t r, const uint8_t *bad, size_t n,
                            const char *what)
{
    gss_buffer_desc in = {n, (void *)(uintptr_t)bad}, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;
    int cs = -1;
    gss_qop_t qop = 0;
    bool ok = true;

    major = gss_unwrap(&minor, r, &in, &out, &cs, &qop);
    if (!refused(major)) {
        ok = fail("%s: gss_unwrap gave %s, not BAD_SIG/DEFECTIVE_TOKEN", what,
                  words(major, minor));
    } else if (out.length != 0 || out.value != NULL) {
        ok = fail("%s: gss_unwrap refused it (%s) but left %zu bytes in "
                  "the output buffer",
                  what, words(major, minor), out.length);
    } else {
        ok = minor_has_words(minor, what);
    }
    release(&out);
    return ok;
}

static void cell_tamper_wrap(const struct pair *p, int conf)
{
    static const uint8_t msg[] = "do not let this through altered";
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? p->init : p->acc;
    gss_buffer_desc in = {sizeof(msg), (void *)(uintptr_t)msg},
                    tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;
    uint8_t *bad = NULL;
    char what[96];
    bool ok = false;

    major = gss_wrap(&minor, m, conf, GSS_C_QOP_DEFAULT, &in, NULL, &tok);
    if (major != GSS_S_COMPLETE) {
        fail("MIT gss_wrap: %s", words(major, minor));
        goto done;
    }
    bad = malloc(tok.length);
    if (bad == NULL) {
        fail("out of memory");
        goto done;
    }
    const size_t where[] = {0,
                            1,
                            2,
                            3,
                            4,
                            5,
                            6,
                            7,
                            8,
                            15,
                            16,
                            17,
                            20,
                            31,
                            40,
                            47,
                            tok.length / 2,
                            tok.length - 1};
    ok = true;
    for (size_t w = 0; w < ARRAY_SIZE(where) && ok; w++) {
        size_t at = where[w] % tok.length;
        memcpy(bad, tok.value, tok.length);
        bad[at] ^= 0x01;
        snprintf(what, sizeof(what), "bit 0 of byte %zu of %zu flipped", at,
                 tok.length);
        ok = tampered_unwrap(g, bad, tok.length, what);
    }
    const size_t cuts[] = {tok.length - 1, tok.length / 2, 16, 15, 8, 1};
    for (size_t c = 0; c < ARRAY_SIZE(cuts) && ok; c++) {
        snprintf(what, sizeof(what), "cut to %zu of %zu bytes", cuts[c],
                 tok.length);
        ok = tampered_unwrap(g, tok.value, cuts[c], what);
    }
    /* One byte appended. */
    if (ok) {
        uint8_t *longer = malloc(tok.length + 1);
        if (longer == NULL) {
            ok = fail("out of memory");
        } else {
            memcpy(longer, tok.value, tok.length);
            longer[tok.length] = 0;
            ok =
                tampered_unwrap(g, longer, tok.length + 1, "one byte appended");
            free(longer);
        }
    }
    if (ok) {
        ok = unwrap_expect(g, tok.value, tok.length, conf, msg, sizeof(msg));
        if (!ok) {
            size_t used = strlen(g_why);
            snprintf(g_why + used, sizeof(g_why) - used,
                     " (the intact token after its tampered copies)");
        }
    }

done:
    free(bad);
    release(&tok);
    report(ok,
           "%d %s | gk5 refuses a tampered/truncated %s Wrap token "
           "(BAD_SIG/DEFECTIVE, empty output, words), then takes the "
           "intact one",
           (int)p->et, p->label, conf ? "sealed" : "integ");
}

static void cell_tamper_mic(const struct pair *p)
{
    static const uint8_t msg[] = "sign this and only this";
    uint8_t other[sizeof(msg)];
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? p->init : p->acc;
    gss_buffer_desc in = {sizeof(msg), (void *)(uintptr_t)msg},
                    tok = GSS_C_EMPTY_BUFFER;
    gss_buffer_desc bt, alt = {sizeof(other), other};
    OM_uint32 major, minor;
    gss_qop_t qop;
    uint8_t *bad = NULL;
    char what[96];
    bool ok = false;

    major = gss_get_mic(&minor, m, GSS_C_QOP_DEFAULT, &in, &tok);
    if (major != GSS_S_COMPLETE) {
        fail("MIT gss_get_mic: %s", words(major, minor));
        goto done;
    }
    bad = malloc(tok.length);
    if (bad == NULL) {
        fail("out of memory");
        goto done;
    }
    const size_t where[] = {0, 1, 2, 3, 7, 8, 15, 16, 20, tok.length - 1};
    ok = true;
    for (size_t w = 0; w <= ARRAY_SIZE(where) + 2 && ok; w++) {
        size_t n = tok.length;
        memcpy(bad, tok.value, tok.length);
        bt.value = bad;
        gss_buffer_t mp = &in;
        if (w < ARRAY_SIZE(where)) {
            bad[where[w] % n] ^= 0x80;
            snprintf(what, sizeof(what), "MIC byte %zu flipped", where[w] % n);
        } else if (w == ARRAY_SIZE(where)) {
            memcpy(other, msg, sizeof(msg));
            other[3] ^= 0x01;
            mp = &alt;
            snprintf(what, sizeof(what), "message altered");
        } else if (w == ARRAY_SIZE(where) + 1) {
            n = tok.length - 1;
            snprintf(what, sizeof(what), "MIC cut by one byte");
        } else {
            n = 10;
            snprintf(what, sizeof(what), "MIC cut to 10 bytes");
        }
        bt.length = n;
        major = gss_verify_mic(&minor, g, mp, &bt, &qop);
        if (!refused(major)) {
            ok = fail("%s: gss_verify_mic gave %s", what, words(major, minor));
        } else {
            ok = minor_has_words(minor, what);
        }
    }
    if (ok) {
        major = gss_verify_mic(&minor, g, &in, &tok, &qop);
        if (major != GSS_S_COMPLETE) {
            ok = fail("the intact MIC after its tampered copies: %s",
                      words(major, minor));
        }
    }

done:
    free(bad);
    release(&tok);
    report(ok,
           "%d %s | gk5 refuses a tampered/truncated MIC and an altered "
           "message, then takes the intact MIC",
           (int)p->et, p->label);
}

/* IOV: a flipped bit in the data of a sealed token unwrapped in place must
 * not leave the plaintext in the DATA buffer; a flipped MIC over IOVs. */
static void cell_tamper_iov(const struct pair *p)
{
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? p->init : p->acc;
    uint8_t *msg = message(1000, 300);
    struct iovtok t;
    gss_buffer_desc mic = GSS_C_EMPTY_BUFFER;
    OM_uint32 major = 0, minor = 0;
    bool ok = false, left = false;

    memset(&t, 0, sizeof(t));
    if (!iov_wrap(m, 1, L_TRAILER, msg, 1000, &t)) {
        goto done;
    }
    ((uint8_t *)t.iov[1].buffer.value)[500] ^= 0x10;
    (void)iov_unwrap(g, &t, 1, msg, 1000, &major, &minor, &left);
    g_why[0] = '\0';
    if (!refused(major)) {
        fail("flipped data bit: gss_unwrap_iov gave %s", words(major, minor));
        goto done;
    }
    if (left) {
        fail("flipped data bit: gss_unwrap_iov refused it (%s) but the "
             "DATA buffer holds the plaintext",
             words(major, minor));
        goto done;
    }
    if (!minor_has_words(minor, "unwrap_iov")) {
        goto done;
    }
    ((uint8_t *)t.iov[1].buffer.value)[500] ^= 0x10;
    if (!iov_unwrap(g, &t, 1, msg, 1000, NULL, NULL, NULL)) {
        goto done;
    }
    if (!mic_iov_make(m, msg, 1000, &mic)) {
        goto done;
    }
    ((uint8_t *)mic.value)[mic.length - 1] ^= 0x01;
    major = mic_iov_check(g, msg, 1000, &mic, &minor);
    if (!refused(major)) {
        fail("flipped MIC bit: gss_verify_mic_iov gave %s",
             words(major, minor));
        goto done;
    }
    ((uint8_t *)mic.value)[mic.length - 1] ^= 0x01;
    major = mic_iov_check(g, msg, 1000, &mic, &minor);
    if (major != GSS_S_COMPLETE) {
        fail("the intact MIC (IOV) after its tampered copy: %s",
             words(major, minor));
        goto done;
    }
    ok = true;

done:
    free(mic.value);
    iovtok_free(&t);
    free(msg);
    report(ok,
           "%d %s | gk5 refuses tampered IOV tokens (no plaintext left in "
           "DATA), then takes the intact ones",
           (int)p->et, p->label);
}

/* ---- byte compatibility: twins from one exported MIT initiator ---- */

static void cell_same_bytes(int32_t et)
{
    struct pair p;
    gss_ctx_id_t g = GSS_C_NO_CONTEXT, m = GSS_C_NO_CONTEXT;
    OM_uint32 minor;
    bool ok = false;

    if (!establish(&p, et, true, true, HOW_CRED) || !twins(&p.init, &g, &m)) {
        report(false,
               "%d twins: plain pair, initiator exported and imported "
               "as gk5 and as MIT",
               (int)et);
        pair_release(&p);
        return;
    }
    report(true,
           "%d twins: plain pair, initiator exported and imported as gk5 "
           "and as MIT",
           (int)et);
    /* In turn: MIC, integrity-only Wrap, MIC over IOVs; each at the same
     * sequence number on both twins; the acceptor takes gk5's. */
    static const size_t lens[] = {0, 1, 1000, BIG};
    for (int what = 0; what < 3; what++) {
        ok = true;
        for (size_t i = 0; i < ARRAY_SIZE(lens) && ok; i++) {
            uint8_t *msg = message(lens[i], (unsigned)(400 + i));
            gss_buffer_desc in = {lens[i], msg};
            gss_buffer_desc gt = GSS_C_EMPTY_BUFFER, mt = GSS_C_EMPTY_BUFFER;
            OM_uint32 gmaj, mmaj, gmin, mmin;
            bool own = what == 2;
            if (what == 0) {
                gmaj = gss_get_mic(&gmin, g, GSS_C_QOP_DEFAULT, &in, &gt);
                mmaj = gss_get_mic(&mmin, m, GSS_C_QOP_DEFAULT, &in, &mt);
            } else if (what == 1) {
                gmaj = gss_wrap(&gmin, g, 0, GSS_C_QOP_DEFAULT, &in, NULL, &gt);
                mmaj = gss_wrap(&mmin, m, 0, GSS_C_QOP_DEFAULT, &in, NULL, &mt);
            } else {
                gmaj = mic_iov_make(g, msg, lens[i], &gt) ? GSS_S_COMPLETE
                                                          : GSS_S_FAILURE;
                mmaj = mic_iov_make(m, msg, lens[i], &mt) ? GSS_S_COMPLETE
                                                          : GSS_S_FAILURE;
                gmin = mmin = 0;
            }
            if (gmaj != GSS_S_COMPLETE || mmaj != GSS_S_COMPLETE) {
                ok = fail("len %zu: gk5 %s; MIT %s", lens[i], words(gmaj, gmin),
                          words(mmaj, mmin));
            } else if (!same_bytes(gt.value, gt.length, mt.value, mt.length)) {
                size_t k = 0;
                while (k < gt.length && k < mt.length &&
                       ((uint8_t *)gt.value)[k] == ((uint8_t *)mt.value)[k]) {
                    k++;
                }
                ok = fail("len %zu: gk5 token %zu bytes, MIT %zu bytes, "
                          "first difference at byte %zu",
                          lens[i], gt.length, mt.length, k);
            } else if (what == 1) {
                ok = unwrap_expect(p.acc, gt.value, gt.length, 0, msg, lens[i]);
            } else {
                gss_qop_t qop;
                gmaj = gss_verify_mic(&gmin, p.acc, &in, &gt, &qop);
                if (gmaj != GSS_S_COMPLETE) {
                    ok = fail("len %zu: MIT acceptor verifying gk5's MIC: %s",
                              lens[i], words(gmaj, gmin));
                }
            }
            if (own) {
                free(gt.value);
                free(mt.value);
            } else {
                release(&gt);
                release(&mt);
            }
            free(msg);
        }
        report(ok,
               "%d twins: %s from gk5 and MIT twins byte-identical (sizes "
               "0/1/1000/70000), MIT acceptor takes it",
               (int)et,
               what == 0   ? "gss_get_mic"
               : what == 1 ? "gss_wrap conf 0"
                           : "gss_get_mic_iov");
    }
    (void)gss_delete_sec_context(&minor, &g, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &m, GSS_C_NO_BUFFER);
    pair_release(&p);
}

/* ---- sequence statuses: twin acceptors fed the same stream ---- */

#define STREAM_TOKENS 140

static void cell_replay_statuses(int32_t et)
{
    /* Token indices in delivery order: in order, duplicates, a gap, late
     * ones inside the window, one far ahead, old ones outside it. */
    static const struct {
        int tok;
        const char *what;
    } plan[] = {
        {0, "first"},
        {1, "in order"},
        {2, "in order"},
        {2, "duplicate of the last"},
        {0, "duplicate of an older one"},
        {4, "gap (3 missing)"},
        {3, "the missing one, late"},
        {3, "duplicate of the late one"},
        {5, "in order again"},
        {7, "gap (6 missing)"},
        {6, "late"},
        {9, "gap (8 missing)"},
        {8, "late"},
        {10, "in order"},
        {100, "far ahead (gap 89)"},
        {36, "64 behind the newest, not seen"},
        {37, "63 behind the newest, not seen"},
        {38, "62 behind the newest, not seen"},
        {11, "89 behind the newest, not seen"},
        {101, "in order after the jump"},
        {38, "duplicate, 63 behind the newest"},
        {37, "duplicate, now 64 behind the newest"},
        {139, "ahead again (gap 37)"},
        {120, "late, inside the window"},
        {60, "79 behind the newest, not seen"},
        {138, "late by one"},
        {139, "duplicate of the newest"},
    };
    struct pair p;
    gss_ctx_id_t g = GSS_C_NO_CONTEXT, m = GSS_C_NO_CONTEXT;
    gss_buffer_desc toks[STREAM_TOKENS];
    uint8_t msgs[STREAM_TOKENS][16];
    OM_uint32 minor;
    int made = 0;

    memset(toks, 0, sizeof(toks));
    if (!establish(&p, et, true, true, HOW_CRED) || !twins(&p.acc, &g, &m)) {
        report(false,
               "%d acceptor twins: plain pair, acceptor exported and "
               "imported as gk5 and as MIT",
               (int)et);
        pair_release(&p);
        return;
    }
    report(true,
           "%d acceptor twins: plain pair, acceptor exported and imported "
           "as gk5 and as MIT",
           (int)et);
    for (made = 0; made < STREAM_TOKENS; made++) {
        gss_buffer_desc in = {sizeof(msgs[0]), msgs[made]};
        OM_uint32 major;
        fill(msgs[made], sizeof(msgs[0]), (unsigned)made + 500);
        major = gss_wrap(&minor, p.init, made % 2, GSS_C_QOP_DEFAULT, &in, NULL,
                         &toks[made]);
        if (major != GSS_S_COMPLETE) {
            report(fail("token %d: %s", made, words(major, minor)),
                   "%d MIT initiator makes the stream", (int)et);
            goto cleanup;
        }
    }
    for (size_t s = 0; s < ARRAY_SIZE(plan); s++) {
        int k = plan[s].tok;
        gss_buffer_desc go = GSS_C_EMPTY_BUFFER, mo = GSS_C_EMPTY_BUFFER;
        OM_uint32 gmaj, mmaj, gmin = 0, mmin = 0;
        bool ok = true;

        gmaj = gss_unwrap(&gmin, g, &toks[k], &go, NULL, NULL);
        mmaj = gss_unwrap(&mmin, m, &toks[k], &mo, NULL, NULL);
        if (gmaj != mmaj) {
            ok = fail("gk5 %s; MIT %s", words(gmaj, gmin), words(mmaj, mmin));
        } else if (!GSS_ERROR(gmaj) &&
                   (!same_bytes(go.value, go.length, msgs[k],
                                sizeof(msgs[0])) ||
                    !same_bytes(mo.value, mo.length, msgs[k],
                                sizeof(msgs[0])))) {
            ok = fail("status 0x%08x on both, but the plaintext differs "
                      "(gk5 %zu bytes, MIT %zu bytes)",
                      (unsigned)gmaj, go.length, mo.length);
        }
        report(ok,
               "%d stream step %zu, token #%d (%s): gk5 status == MIT's "
               "(0x%08x)",
               (int)et, s, k, plan[s].what, (unsigned)mmaj);
        release(&go);
        release(&mo);
    }

cleanup:
    for (int i = 0; i < STREAM_TOKENS; i++) {
        release(&toks[i]);
    }
    (void)gss_delete_sec_context(&minor, &g, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &m, GSS_C_NO_BUFFER);
    pair_release(&p);
}

/* ---- calls the module passes to MIT ---- */

static bool name_text(gss_name_t name, char *buf, size_t len)
{
    gss_buffer_desc b = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor;

    buf[0] = '\0';
    major = gss_display_name(&minor, name, &b, NULL);
    if (GSS_ERROR(major) || b.length == 0) {
        release(&b);
        return false;
    }
    snprintf(buf, len, "%.*s", (int)b.length, (const char *)b.value);
    release(&b);
    return true;
}

/* gk5's side of p against the MIT context of the same role in other (the
 * pair of the opposite shape, established just before or after). */
static void cell_inquire(const struct pair *p, const struct pair *other)
{
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? other->acc : other->init;
    gss_name_t src[2] = {GSS_C_NO_NAME, GSS_C_NO_NAME};
    gss_name_t targ[2] = {GSS_C_NO_NAME, GSS_C_NO_NAME};
    OM_uint32 major[2], minor, life[2] = {0, 0}, flags[2] = {0, 0};
    gss_OID mech[2] = {GSS_C_NO_OID, GSS_C_NO_OID};
    int local[2] = {-1, -1}, open[2] = {-1, -1};
    char s[2][256], t[2][256];
    bool ok = true;

    for (int i = 0; i < 2; i++) {
        major[i] = gss_inquire_context(&minor, i == 0 ? g : m, &src[i],
                                       &targ[i], &life[i], &mech[i], &flags[i],
                                       &local[i], &open[i]);
        if (GSS_ERROR(major[i])) {
            ok = fail("gss_inquire_context (%s): %s", i == 0 ? "gk5" : "MIT",
                      words(major[i], minor));
        }
    }
    if (ok) {
        bool g_init = !p->init_plain;
        if (mech[0] == GSS_C_NO_OID || mech[0]->length != krb5_oid.length ||
            memcmp(mech[0]->elements, krb5_oid.elements, krb5_oid.length) !=
                0) {
            ok = fail("mech is not gss_mech_krb5 (%u bytes)",
                      mech[0] == GSS_C_NO_OID ? 0 : (unsigned)mech[0]->length);
        } else if (!name_text(src[0], s[0], sizeof(s[0])) ||
                   !name_text(targ[0], t[0], sizeof(t[0])) ||
                   !name_text(src[1], s[1], sizeof(s[1])) ||
                   !name_text(targ[1], t[1], sizeof(t[1]))) {
            ok = fail("a name does not display");
        } else if (strcmp(s[0], s[1]) != 0 || strcmp(t[0], t[1]) != 0 ||
                   strstr(s[0], "gk5-client@GK5.TEST") == NULL) {
            ok = fail("gk5 side: %s -> %s; MIT %s: %s -> %s", s[0], t[0],
                      g_init ? "initiator" : "acceptor", s[1], t[1]);
        } else if (local[0] != (g_init ? 1 : 0) || open[0] != 1) {
            ok = fail("locally_initiated %d, open %d", local[0], open[0]);
        } else if ((flags[0] & FLAGS) != FLAGS || flags[0] != flags[1]) {
            ok = fail("flags 0x%x (MIT %s 0x%x), want 0x%x and MIT's",
                      (unsigned)flags[0], g_init ? "initiator" : "acceptor",
                      (unsigned)flags[1], FLAGS);
        } else if (life[0] == 0 ||
                   (life[0] > life[1] ? life[0] - life[1] : life[1] - life[0]) >
                       5) {
            ok = fail("lifetime %u, MIT %s %u", (unsigned)life[0],
                      g_init ? "initiator" : "acceptor", (unsigned)life[1]);
        } else {
            printf("# %s: %s -> %s, flags 0x%x, %u s\n", p->label, s[0], t[0],
                   (unsigned)flags[0], (unsigned)life[0]);
        }
    }
    for (int i = 0; i < 2; i++) {
        (void)gss_release_name(&minor, &src[i]);
        (void)gss_release_name(&minor, &targ[i]);
    }
    report(ok,
           "%d %s | gss_inquire_context on gk5's side: mech krb5, names, "
           "flags, lifetime as MIT's context of the same role",
           (int)p->et, p->label);

    OM_uint32 gt = 0, mt = 0, gmaj, mmaj, gmin, mmin;
    gmaj = gss_context_time(&gmin, g, &gt);
    mmaj = gss_context_time(&mmin, m, &mt);
    ok = gmaj == GSS_S_COMPLETE && mmaj == GSS_S_COMPLETE && gt > 0 &&
         (gt > mt ? gt - mt : mt - gt) <= 5;
    if (!ok) {
        fail("gk5 side %s, %u s; MIT %s, %u s", words(gmaj, gmin), (unsigned)gt,
             words(mmaj, mmin), (unsigned)mt);
    }
    report(ok,
           "%d %s | gss_context_time on gk5's side (%u s, MIT's context of "
           "the same role %u s)",
           (int)p->et, p->label, (unsigned)gt, (unsigned)mt);
}

static void cell_prf(const struct pair *p)
{
    static const char seed[] = "gk5 interposer PRF";
    gss_ctx_id_t g = p->init_plain ? p->acc : p->init;
    gss_ctx_id_t m = p->init_plain ? p->init : p->acc;
    gss_buffer_desc in = {sizeof(seed) - 1, (void *)(uintptr_t)seed};

    for (int key = GSS_C_PRF_KEY_FULL; key <= GSS_C_PRF_KEY_PARTIAL; key++) {
        gss_buffer_desc go = GSS_C_EMPTY_BUFFER, mo = GSS_C_EMPTY_BUFFER;
        OM_uint32 gmaj, mmaj, gmin, mmin;
        bool ok = true;

        gmaj = gss_pseudo_random(&gmin, g, key, &in, 44, &go);
        mmaj = gss_pseudo_random(&mmin, m, key, &in, 44, &mo);
        if (gmaj != GSS_S_COMPLETE || mmaj != GSS_S_COMPLETE) {
            ok = fail("gk5 side %s; MIT %s", words(gmaj, gmin),
                      words(mmaj, mmin));
        } else if (go.length != 44 ||
                   !same_bytes(go.value, go.length, mo.value, mo.length)) {
            ok = fail("outputs differ (%zu and %zu bytes)", go.length,
                      mo.length);
        }
        report(ok,
               "%d %s | gss_pseudo_random(%s, 44 bytes) on gk5's side == "
               "MIT peer's",
               (int)p->et, p->label,
               key == GSS_C_PRF_KEY_FULL ? "KEY_FULL" : "KEY_PARTIAL");
        release(&go);
        release(&mo);
    }
}

/* A fresh interposed initiator: 3 wraps (MIT peer takes them), then the
 * lucid export must carry gk5's send sequence number (first token's + 3). */
static void cell_lucid(int32_t et)
{
    struct pair p;
    void *lucid = NULL;
    uint64_t first = 0;
    OM_uint32 major, minor;
    bool ok = false;

    if (!establish(&p, et, false, true, HOW_CRED)) {
        report(false, "%d lucid: establish gk5 init / MIT acc", (int)et);
        return;
    }
    for (int i = 0; i < 3; i++) {
        static const uint8_t msg[] = "count me";
        gss_buffer_desc in = {sizeof(msg), (void *)(uintptr_t)msg};
        gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
        major = gss_wrap(&minor, p.init, 1, GSS_C_QOP_DEFAULT, &in, NULL, &tok);
        if (major != GSS_S_COMPLETE || tok.length < 16) {
            fail("gss_wrap %d: %s", i, words(major, minor));
            release(&tok);
            goto cleanup;
        }
        /* RFC 4121 4.2.6.2: SND_SEQ is octets 8-15 of the header. */
        if (i == 0) {
            first = load_be64((const uint8_t *)tok.value + 8);
        }
        bool taken =
            unwrap_expect(p.acc, tok.value, tok.length, 1, msg, sizeof(msg));
        release(&tok);
        if (!taken) {
            goto cleanup;
        }
    }
    major = gss_krb5_export_lucid_sec_context(&minor, &p.init, 1, &lucid);
    if (GSS_ERROR(major)) {
        fail("gss_krb5_export_lucid_sec_context: %s", words(major, minor));
        goto cleanup;
    }
    gss_krb5_lucid_context_v1_t *l = lucid;
    if (l->send_seq != first + 3 || l->initiate != 1 || l->protocol != 1) {
        fail("lucid send_seq %llu (first token's %llu, want +3), initiate "
             "%u, protocol %u",
             (unsigned long long)l->send_seq, (unsigned long long)first,
             l->initiate, l->protocol);
        goto cleanup;
    }
    ok = true;

cleanup:
    if (lucid != NULL) {
        (void)gss_krb5_free_lucid_sec_context(&minor, lucid);
    }
    report(ok,
           "%d lucid export of a gk5-served initiator after 3 wraps: "
           "send_seq is gk5's (first + 3)",
           (int)et);
    pair_release(&p);
}

/* gss_export_sec_context: refused once gk5 has used the context (its
 * sequence numbers are not MIT's), allowed before; the unused one's
 * export imported as MIT works with the peer. */
static void cell_export(int32_t et)
{
    struct pair p;
    gss_buffer_desc exp = GSS_C_EMPTY_BUFFER;
    gss_ctx_id_t back = GSS_C_NO_CONTEXT;
    OM_uint32 major, minor;
    uint8_t *msg = message(100, 600);
    bool ok;

    /* Used: one wrap from the gk5 initiator. */
    if (!establish(&p, et, false, true, HOW_CRED)) {
        report(false, "%d export: establish gk5 init / MIT acc", (int)et);
        free(msg);
        return;
    }
    ok = wrap_unwrap(p.init, p.acc, 1, msg, 100);
    if (ok) {
        major = gss_export_sec_context(&minor, &p.init, &exp);
        if (!GSS_ERROR(major)) {
            ok = fail("export of a used gk5 context succeeded (%s, %zu "
                      "bytes)",
                      words(major, minor), exp.length);
        } else if (p.init == GSS_C_NO_CONTEXT) {
            ok = fail("export refused (%s) but the handle is gone",
                      words(major, minor));
        } else {
            ok = wrap_unwrap(p.init, p.acc, 0, msg, 100);
            if (!ok) {
                size_t used = strlen(g_why);
                snprintf(g_why + used, sizeof(g_why) - used,
                         " (the context after its refused export)");
            }
        }
        release(&exp);
    }
    report(ok,
           "%d gss_export_sec_context of a used gk5 context refused "
           "(GSS_ERROR), context still works",
           (int)et);
    pair_release(&p);

    /* Unused: exported, imported as MIT, used with the peer. */
    ok = establish(&p, et, false, true, HOW_CRED) &&
         export_ctx(&p.init, &exp) && import_as(&exp, &special_oid, &back) &&
         wrap_unwrap(back, p.acc, 1, msg, 100) &&
         wrap_unwrap(p.acc, back, 1, msg, 100);
    report(ok,
           "%d gss_export_sec_context of an unused gk5 context works; "
           "imported as MIT it talks to the peer",
           (int)et);
    release(&exp);
    (void)gss_delete_sec_context(&minor, &back, GSS_C_NO_BUFFER);
    pair_release(&p);
    free(msg);
}

/* ---- one enctype ---- */

static void check_served(long mark, int32_t et, const char *name,
                         const char *what)
{
    char *text = trace_since(mark);
    char want[96];
    int served = 0;
    bool ok;

    snprintf(want, sizeof(want), "(%d)", (int)et);
    for (char *line = strtok(text, "\n"); line != NULL;
         line = strtok(NULL, "\n")) {
        char *at = strstr(line, "served by gk5: ");
        if (at != NULL && strstr(at, want) != NULL &&
            strstr(at, name) != NULL) {
            served++;
        }
    }
    ok = served == 1;
    if (!ok) {
        fail("%d 'served by gk5: %s %s' lines since establishment (want 1)",
             served, name, want);
    }
    report(ok, "%d %s | trace: context served by gk5 (%s)", (int)et, what,
           name);
    free(text);
}

static void run_enctype(const struct enctype *e)
{
    struct pair pairs[2];
    bool up[2];

    for (int k = 0; k < 2; k++) {
        long mark = trace_mark();
        bool init_plain = k == 1;
        up[k] = establish(&pairs[k], e->et, init_plain, !init_plain, HOW_CRED);
        report(up[k], "%d %s: context established", (int)e->et,
               k == 0 ? "gk5 init / MIT acc" : "MIT init / gk5 acc");
        if (!up[k]) {
            continue;
        }
        /* The session key really is of this type (the MIT side's view,
         * through a copy of it: the lucid export deletes what it reads). */
        gss_buffer_desc exp = GSS_C_EMPTY_BUFFER;
        gss_ctx_id_t *mside = init_plain ? &pairs[k].init : &pairs[k].acc;
        gss_ctx_id_t copy = GSS_C_NO_CONTEXT;
        int32_t got = 0;
        if (export_ctx(mside, &exp) && import_as(&exp, &special_oid, mside) &&
            import_as(&exp, &special_oid, &copy)) {
            got = plain_lucid_enctype(&copy);
        }
        release(&exp);
        report(got == e->et, "%d %s | MIT's side says the key is enctype %d",
               (int)e->et, pairs[k].label, (int)got);
        check_served(mark, e->et, e->name, pairs[k].label);
        if (*mside == GSS_C_NO_CONTEXT) {
            up[k] = false;
        }
    }
    for (int k = 0; k < 2; k++) {
        const struct pair *p = &pairs[k];
        if (!up[k]) {
            continue;
        }
        for (int dir = 1; dir >= 0; dir--) {
            for (int op = OP_SEALED; op <= OP_MIC; op++) {
                cell_contiguous(p, dir == 1, (enum op)op);
            }
        }
        for (int dir = 1; dir >= 0; dir--) {
            cell_iov(p, dir == 1, L_TRAILER, U_CONTIGUOUS);
            cell_iov(p, dir == 1, L_TRAILER, U_IOV);
            cell_iov(p, dir == 1, L_NO_TRAILER, U_CONTIGUOUS);
            cell_iov(p, dir == 1, L_NO_TRAILER, U_IOV);
            cell_iov_allocate(p, dir == 1);
            for (int w = MIC_IOV_IOV; w <= MIC_FLAT_IOV; w++) {
                cell_mic_iov(p, dir == 1, (enum mic_way)w);
            }
        }
        cell_size_limit(p);
        cell_tamper_wrap(p, 1);
        cell_tamper_wrap(p, 0);
        cell_tamper_mic(p);
        cell_tamper_iov(p);
        if (up[1 - k]) {
            cell_inquire(p, &pairs[1 - k]);
        }
        cell_prf(p);
        /* After all of that, both directions still work. */
        uint8_t *msg = message(1000, 900);
        bool ok = wrap_unwrap(p->init, p->acc, 1, msg, 1000) &&
                  wrap_unwrap(p->acc, p->init, 1, msg, 1000);
        free(msg);
        report(ok, "%d %s | both directions still work at the end", (int)e->et,
               p->label);
    }
    cell_same_bytes(e->et);
    cell_replay_statuses(e->et);
    cell_lucid(e->et);
    cell_export(e->et);
    if (up[0]) {
        pair_release(&pairs[0]);
    }
    if (up[1]) {
        pair_release(&pairs[1]);
    }
}

/* The defaults: GSS_C_NO_OID initiator mech, GSS_C_NO_CREDENTIAL
 * acceptor; both interposed (gk5 on both ends). */
static void run_defaults(void)
{
    struct pair p;
    long mark = trace_mark();
    bool ok = establish(&p, 18, false, false, HOW_DEFAULT);

    report(ok, "defaults (GSS_C_NO_OID initiator, GSS_C_NO_CREDENTIAL "
               "acceptor): established, gk5 on both ends");
    if (!ok) {
        return;
    }
    char *text = trace_since(mark);
    int served = 0;
    for (char *at = text; (at = strstr(at, "served by gk5: ")) != NULL; at++) {
        served++;
    }
    if (served != 2) {
        fail("%d 'served by gk5' lines (want 2)", served);
    }
    report(served == 2, "defaults: trace shows both contexts served by gk5");
    /* Native acceptance is off unless the config line asks for it. */
    bool off = strstr(text, "accept by MIT (native accept is off)") != NULL &&
               strstr(text, "accepted natively") == NULL;
    if (!off) {
        fail("trace: %s", text);
    }
    report(off, "defaults: no [accept=native] on the config line: the "
                "accept goes to MIT (trace says so)");
    free(text);
    ok = true;
    for (size_t i = 0; i < ARRAY_SIZE(sizes) && ok; i++) {
        uint8_t *msg = message(sizes[i], (unsigned)i + 700);
        ok = wrap_unwrap(p.init, p.acc, 1, msg, sizes[i]) &&
             wrap_unwrap(p.acc, p.init, 0, msg, sizes[i]) &&
             mic_verify(p.init, p.acc, msg, sizes[i]) &&
             mic_verify(p.acc, p.init, msg, sizes[i]);
        free(msg);
    }
    report(ok, "defaults: gk5<->gk5 wrap/unwrap and MIC both ways");
    pair_release(&p);
}

/* rc4, and des3 in a build without it: the module leaves them with MIT;
 * they must still work.  In a -Ddes3=true build (GK5_DES3=1) gk5 serves
 * des3 (RFC 1964 tokens), and they must work just the same. */
static void run_left_with_mit(int32_t et, const char *name, bool optional,
                              bool gk5_serves)
{
    for (int k = 0; k < 2; k++) {
        struct pair p;
        bool init_plain = k == 1;
        long mark = trace_mark();
        bool ok = establish(&p, et, init_plain, !init_plain, HOW_CRED);

        if (!ok && optional) {
            skip("%d (%s) %s: not established here (%s)", (int)et, name,
                 init_plain ? "MIT init / gk5 acc" : "gk5 init / MIT acc",
                 g_why);
            continue;
        }
        report(ok, "%d (%s) %s: context established", (int)et, name,
               init_plain ? "MIT init / gk5 acc" : "gk5 init / MIT acc");
        if (!ok) {
            continue;
        }
        /* Which key did the KDC issue?  Ask MIT, through a copy. */
        gss_buffer_desc exp = GSS_C_EMPTY_BUFFER;
        gss_ctx_id_t *mside = init_plain ? &p.init : &p.acc;
        gss_ctx_id_t copy = GSS_C_NO_CONTEXT;
        int32_t got = 0;
        if (export_ctx(mside, &exp) && import_as(&exp, &special_oid, mside) &&
            import_as(&exp, &special_oid, &copy)) {
            got = plain_lucid_enctype(&copy);
        }
        release(&exp);
        /* des3 is exported as des3-cbc-raw (6). */
        bool issued = got == et || (et == 16 && got == 6);
        if (!issued && optional) {
            skip("%d (%s): the KDC issued enctype %d", (int)et, name, (int)got);
            pair_release(&p);
            continue;
        }
        report(issued, "%d (%s) %s | MIT's side says the key is enctype %d",
               (int)et, name, p.label, (int)got);

        char *text = trace_since(mark);
        bool stays = strstr(text, "stays with MIT") != NULL;
        bool served = strstr(text, "served by gk5") != NULL;
        bool as_expected = gk5_serves ? (served && !stays) : (stays && !served);
        if (!as_expected) {
            fail("trace since establishment: %s", text);
        }
        report(as_expected, "%d (%s) %s | trace: %s", (int)et, name, p.label,
               gk5_serves ? "served by gk5" : "stays with MIT");
        free(text);

        ok = *mside != GSS_C_NO_CONTEXT;
        for (size_t i = 0; i < ARRAY_SIZE(sizes) && ok; i++) {
            uint8_t *msg = message(sizes[i], (unsigned)i + 800);
            ok = wrap_unwrap(p.init, p.acc, 1, msg, sizes[i]) &&
                 wrap_unwrap(p.acc, p.init, 1, msg, sizes[i]) &&
                 wrap_unwrap(p.init, p.acc, 0, msg, sizes[i]) &&
                 wrap_unwrap(p.acc, p.init, 0, msg, sizes[i]) &&
                 mic_verify(p.init, p.acc, msg, sizes[i]) &&
                 mic_verify(p.acc, p.init, msg, sizes[i]);
            free(msg);
        }
        report(ok, "%d (%s) %s | wrap sealed/integ and MIC both ways", (int)et,
               name, p.label);
        pair_release(&p);
    }
}

/* ---- many threads on one interposed context ---- */

/* Servers (Ganesha) call wrap and unwrap on one context from worker
 * threads: THREADS threads seal on the interposed initiator at once and
 * unseal, at once, on the interposed acceptor what a plain MIT initiator
 * sent; every message must come back whole (late tokens are only flagged
 * UNSEQ/GAP, never refused), and every sealed token must be one the plain
 * acceptor takes, each with its own sequence number. */
enum { THREADS = 4, PER_THREAD = 200 };

struct worker {
    pthread_t tid;
    gss_ctx_id_t ctx;
    int index;
    gss_buffer_desc tok[PER_THREAD];
    bool ok;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void *seal_worker(void *arg)
{
    struct worker *w = arg;
    OM_uint32 minor;

    w->ok = true;
    for (int i = 0; i < PER_THREAD && w->ok; i++) {
        uint8_t msg[64];
        gss_buffer_desc in = {sizeof(msg), msg};
        fill(msg, sizeof(msg), (unsigned)(w->index * PER_THREAD + i));
        w->ok = !GSS_ERROR(gss_wrap(&minor, w->ctx, 1, GSS_C_QOP_DEFAULT, &in,
                                    NULL, &w->tok[i]));
    }
    return NULL;
}

static void *unseal_worker(void *arg)
{
    struct worker *w = arg;
    OM_uint32 minor, major, tmp;

    w->ok = true;
    for (int i = 0; i < PER_THREAD && w->ok; i++) {
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        uint8_t want[64];
        fill(want, sizeof(want), (unsigned)(w->index * PER_THREAD + i));
        major = gss_unwrap(&minor, w->ctx, &w->tok[i], &out, NULL, NULL);
        w->ok = !GSS_ERROR(major) &&
                same_bytes(out.value, out.length, want, sizeof(want));
        (void)gss_release_buffer(&tmp, &out);
    }
    return NULL;
}

static void run_threads(void)
{
    struct pair gk5_init, mit_init;
    struct worker w[THREADS];
    OM_uint32 minor, major, tmp;
    bool ok;

    memset(w, 0, sizeof(w));
    if (!establish(&gk5_init, 18, false, true, HOW_CRED) ||
        !establish(&mit_init, 18, true, false, HOW_CRED)) {
        report(false, "threads: contexts established (%s)", g_why);
        return;
    }
    for (int t = 0; t < THREADS; t++) {
        w[t].ctx = gk5_init.init;
        w[t].index = t;
        pthread_create(&w[t].tid, NULL, seal_worker, &w[t]);
    }
    ok = true;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(w[t].tid, NULL);
        ok = ok && w[t].ok;
    }
    report(ok, "threads: %d threads x %d gss_wrap on one interposed context",
           THREADS, PER_THREAD);
    /* Every token carries its own sequence number (RFC 4121 4.2.6.2:
     * SND_SEQ, bytes 8-15 of the header, in the clear) and the plain
     * acceptor takes each one.  (MIT's own duplicate flag cannot be the
     * judge: its window misreports after jumps of 64 or more.) */
    int bad = 0, dup = 0;
    uint64_t seqs[THREADS * PER_THREAD];
    size_t nseq = 0;
    for (int t = 0; t < THREADS; t++) {
        for (int i = 0; i < PER_THREAD; i++) {
            gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
            if (w[t].tok[i].value == NULL || w[t].tok[i].length < 16) {
                bad++;
                continue;
            }
            seqs[nseq++] = load_be64((const uint8_t *)w[t].tok[i].value + 8);
            major = gss_unwrap(&minor, gk5_init.acc, &w[t].tok[i], &out, NULL,
                               NULL);
            bad += GSS_ERROR(major) ? 1 : 0;
            (void)gss_release_buffer(&tmp, &out);
            release(&w[t].tok[i]);
        }
    }
    qsort(seqs, nseq, sizeof(seqs[0]), cmp_u64);
    for (size_t i = 1; i < nseq; i++) {
        dup += seqs[i] == seqs[i - 1] ? 1 : 0;
    }
    report(bad == 0 && dup == 0 && nseq == THREADS * PER_THREAD,
           "threads: all %d tokens have distinct sequence numbers and MIT "
           "unseals each (%d refused, %d numbers sent twice)",
           THREADS * PER_THREAD, bad, dup);

    /* The other way: a plain initiator seals, THREADS threads unseal on
     * the interposed acceptor at once. */
    ok = true;
    for (int t = 0; t < THREADS && ok; t++) {
        w[t].ctx = mit_init.acc;
        for (int i = 0; i < PER_THREAD && ok; i++) {
            uint8_t msg[64];
            gss_buffer_desc in = {sizeof(msg), msg};
            fill(msg, sizeof(msg), (unsigned)(t * PER_THREAD + i));
            ok =
                !GSS_ERROR(gss_wrap(&minor, mit_init.init, 1, GSS_C_QOP_DEFAULT,
                                    &in, NULL, &w[t].tok[i]));
        }
    }
    for (int t = 0; t < THREADS && ok; t++) {
        pthread_create(&w[t].tid, NULL, unseal_worker, &w[t]);
    }
    for (int t = 0; t < THREADS && ok; t++) {
        pthread_join(w[t].tid, NULL);
        ok = ok && w[t].ok;
    }
    report(ok,
           "threads: %d threads x %d gss_unwrap at once on one "
           "interposed context, every message whole",
           THREADS, PER_THREAD);
    for (int t = 0; t < THREADS; t++) {
        for (int i = 0; i < PER_THREAD; i++) {
            release(&w[t].tok[i]);
        }
    }
    pair_release(&gk5_init);
    pair_release(&mit_init);
}

/* ---- the whole trace ---- */

struct served {
    char id[40];
    int32_t et;
};

static void check_trace(void)
{
    static const char *const counters[8] = {
        "wrap",     "unwrap",     "get_mic",     "verify_mic",
        "wrap_iov", "unwrap_iov", "get_mic_iov", "verify_mic_iov"};
    unsigned long sums[ARRAY_SIZE(enctypes)][8];
    int contexts[ARRAY_SIZE(enctypes)];
    struct served live[256];
    int nlive = 0, deleted_unknown = 0;
    char *text = read_file(g_trace, 0);

    memset(sums, 0, sizeof(sums));
    memset(contexts, 0, sizeof(contexts));
    for (char *line = strtok(text, "\n"); line != NULL;
         line = strtok(NULL, "\n")) {
        char id[40];
        char *at = strstr(line, "gk5_mech: context ");
        if (at == NULL || sscanf(at, "gk5_mech: context %39s", id) != 1) {
            continue;
        }
        char *sv = strstr(at, " served by gk5: ");
        char *del = strstr(at, " deleted; gk5 served ");
        if (sv != NULL) {
            char *paren = strrchr(sv, '(');
            int et = 0;
            char *open = strchr(sv, '(');
            if (open != NULL && paren != NULL) {
                et = atoi(open + 1);
            }
            int slot = -1;
            for (int i = 0; i < nlive; i++) {
                if (strcmp(live[i].id, id) == 0) {
                    slot = i;
                }
            }
            if (slot < 0 && nlive < (int)ARRAY_SIZE(live)) {
                slot = nlive++;
            }
            if (slot >= 0) {
                snprintf(live[slot].id, sizeof(live[slot].id), "%s", id);
                live[slot].et = et;
            }
        } else if (del != NULL) {
            unsigned long n[8];
            if (sscanf(del,
                       " deleted; gk5 served wrap %lu, unwrap %lu, get_mic "
                       "%lu, verify_mic %lu, wrap_iov %lu, unwrap_iov %lu, "
                       "get_mic_iov %lu, verify_mic_iov %lu",
                       &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6],
                       &n[7]) != 8) {
                continue;
            }
            int slot = -1;
            for (int i = 0; i < nlive; i++) {
                if (strcmp(live[i].id, id) == 0) {
                    slot = i;
                }
            }
            if (slot < 0) {
                bool any = false;
                for (int c = 0; c < 8; c++) {
                    any = any || n[c] != 0;
                }
                deleted_unknown += any ? 1 : 0;
                continue;
            }
            for (size_t e = 0; e < ARRAY_SIZE(enctypes); e++) {
                if (enctypes[e].et == live[slot].et) {
                    contexts[e]++;
                    for (int c = 0; c < 8; c++) {
                        sums[e][c] += n[c];
                    }
                }
            }
            live[slot] = live[--nlive];
        }
    }
    for (size_t e = 0; e < ARRAY_SIZE(enctypes); e++) {
        bool ok = contexts[e] > 0;
        char counts[256];
        size_t used = 0;
        for (int c = 0; c < 8; c++) {
            used += (size_t)snprintf(counts + used, sizeof(counts) - used,
                                     "%s%s %lu", c ? ", " : "", counters[c],
                                     sums[e][c]);
            ok = ok && sums[e][c] > 0;
        }
        if (!ok) {
            fail("%d contexts deleted; %s", contexts[e], counts);
        }
        report(ok,
               "trace: %s (%d) served by gk5 in %d contexts, every "
               "per-message call counted",
               enctypes[e].name, (int)enctypes[e].et, contexts[e]);
        printf("# %s: %s\n", enctypes[e].name, counts);
    }
    if (nlive > 0) {
        fail("%d contexts served by gk5 have no 'deleted' line (first %s)",
             nlive, live[0].id);
    }
    report(nlive == 0, "trace: every context gk5 served has its 'deleted' "
                       "line");
    if (deleted_unknown > 0) {
        printf("# %d 'deleted' lines with counts for contexts without a "
               "'served' line\n",
               deleted_unknown);
    }
    free(text);
}

/* ---- native acceptance ([accept=native] on the config line) ---- */

/* How many lines since mark hold what. */
static int trace_count(long mark, const char *what)
{
    char *text = trace_since(mark);
    int n = 0;

    for (char *at = text; (at = strstr(at, what)) != NULL; at++) {
        n++;
    }
    free(text);
    return n;
}

static bool trace_has(long mark, const char *what)
{
    return trace_count(mark, what) > 0;
}

/* gss_inquire_name's attribute list and gss_get_name_attribute of each
 * attribute MIT lists (its whole PAC and each buffer of it, RFC 6680):
 * the same answers from both names (status, value, authenticated,
 * complete, more), and the same refusal of an attribute neither has. */
static bool same_attributes(gss_name_t a, gss_name_t b, char *why, size_t len)
{
    gss_buffer_set_t set[2] = {GSS_C_NO_BUFFER_SET, GSS_C_NO_BUFFER_SET};
    OM_uint32 major[2], minor;
    gss_name_t n[2] = {a, b};
    bool ok = true;

    for (int i = 0; i < 2; i++) {
        major[i] = gss_inquire_name(&minor, n[i], NULL, NULL, &set[i]);
    }
    size_t count[2] = {set[0] != GSS_C_NO_BUFFER_SET ? set[0]->count : 0,
                       set[1] != GSS_C_NO_BUFFER_SET ? set[1]->count : 0};
    if (major[0] != major[1] || count[0] != count[1]) {
        char names[512] = "";
        size_t used = 0;
        for (size_t k = 0; k < count[1] && used < sizeof(names); k++) {
            used += (size_t)snprintf(names + used, sizeof(names) - used,
                                     " %.*s", (int)set[1]->elements[k].length,
                                     (const char *)set[1]->elements[k].value);
        }
        ok = fail("gss_inquire_name: native 0x%x with %zu attributes, MIT "
                  "0x%x with %zu:%s",
                  (unsigned)major[0], count[0], (unsigned)major[1], count[1],
                  names);
    }
    static char unknown[] = "urn:gk5:no-such-attribute";
    size_t tries = ok ? count[1] + 1 : 0;
    for (size_t k = 0; ok && k < tries; k++) {
        gss_buffer_desc attr = {sizeof(unknown) - 1, unknown};
        if (k < count[1]) {
            attr = set[1]->elements[k];
            if (!same_bytes(attr.value, attr.length, set[0]->elements[k].value,
                            set[0]->elements[k].length)) {
                ok = fail("gss_inquire_name: attribute %zu is \"%.*s\" "
                          "natively, \"%.*s\" from MIT",
                          k, (int)set[0]->elements[k].length,
                          (const char *)set[0]->elements[k].value,
                          (int)attr.length, (const char *)attr.value);
                break;
            }
        }
        gss_buffer_desc v[2] = {GSS_C_EMPTY_BUFFER, GSS_C_EMPTY_BUFFER};
        gss_buffer_desc d[2] = {GSS_C_EMPTY_BUFFER, GSS_C_EMPTY_BUFFER};
        int au[2] = {-7, -7}, co[2] = {-7, -7}, more[2] = {-1, -1};
        OM_uint32 gm[2];
        for (int i = 0; i < 2; i++) {
            gm[i] = gss_get_name_attribute(&minor, n[i], &attr, &au[i], &co[i],
                                           &v[i], &d[i], &more[i]);
        }
        if (gm[0] != gm[1] || au[0] != au[1] || co[0] != co[1] ||
            more[0] != more[1] ||
            !same_bytes(v[0].value, v[0].length, v[1].value, v[1].length) ||
            !same_bytes(d[0].value, d[0].length, d[1].value, d[1].length)) {
            ok = fail(
                "gss_get_name_attribute \"%.*s\": native 0x%x "
                "(%zu bytes, authenticated %d, complete %d, more %d), "
                "MIT 0x%x (%zu bytes, %d, %d, %d); values %s, "
                "display values %zu and %zu bytes",
                (int)attr.length, (const char *)attr.value, (unsigned)gm[0],
                v[0].length, au[0], co[0], more[0], (unsigned)gm[1],
                v[1].length, au[1], co[1], more[1],
                same_bytes(v[0].value, v[0].length, v[1].value, v[1].length)
                    ? "equal"
                    : "differ",
                d[0].length, d[1].length);
        }
        for (int i = 0; i < 2; i++) {
            release(&v[i]);
            release(&d[i]);
        }
    }
    if (ok) {
        snprintf(why, len, "%zu name attributes the same", count[1]);
    }
    for (int i = 0; i < 2; i++) {
        (void)gss_release_buffer_set(&minor, &set[i]);
    }
    return ok;
}

/* gss_display_name (text and type) and gss_export_name of two names:
 * the same, byte for byte. */
static bool same_name(gss_name_t a, gss_name_t b, char *shown, size_t len)
{
    gss_buffer_desc d[2] = {GSS_C_EMPTY_BUFFER, GSS_C_EMPTY_BUFFER};
    gss_buffer_desc e[2] = {GSS_C_EMPTY_BUFFER, GSS_C_EMPTY_BUFFER};
    gss_buffer_desc l[2] = {GSS_C_EMPTY_BUFFER, GSS_C_EMPTY_BUFFER};
    gss_OID type[2] = {GSS_C_NO_OID, GSS_C_NO_OID};
    OM_uint32 dm[2], em[2], lm[2], minor;
    gss_name_t n[2] = {a, b};
    char attrs[64];
    bool ok = true;

    for (int i = 0; i < 2; i++) {
        dm[i] = gss_display_name(&minor, n[i], &d[i], &type[i]);
        em[i] = gss_export_name(&minor, n[i], &e[i]);
        lm[i] = gss_localname(&minor, n[i], GSS_C_NO_OID, &l[i]);
    }
    if (GSS_ERROR(dm[0]) || GSS_ERROR(dm[1]) || GSS_ERROR(em[0]) ||
        GSS_ERROR(em[1])) {
        ok = fail("display 0x%x/0x%x, export 0x%x/0x%x", (unsigned)dm[0],
                  (unsigned)dm[1], (unsigned)em[0], (unsigned)em[1]);
    } else if (!same_bytes(d[0].value, d[0].length, d[1].value, d[1].length)) {
        ok = fail("display: native \"%.*s\", MIT \"%.*s\"", (int)d[0].length,
                  (const char *)d[0].value, (int)d[1].length,
                  (const char *)d[1].value);
    } else if (type[0] == GSS_C_NO_OID || type[1] == GSS_C_NO_OID ||
               !same_bytes(type[0]->elements, type[0]->length,
                           type[1]->elements, type[1]->length)) {
        ok = fail("display name types differ");
    } else if (!same_bytes(e[0].value, e[0].length, e[1].value, e[1].length)) {
        ok = fail("gss_export_name differs (%zu and %zu bytes)", e[0].length,
                  e[1].length);
    } else if (lm[0] != lm[1] ||
               !same_bytes(l[0].value, l[0].length, l[1].value, l[1].length)) {
        ok = fail("gss_localname: native 0x%x \"%.*s\", MIT 0x%x \"%.*s\"",
                  (unsigned)lm[0], (int)l[0].length, (const char *)l[0].value,
                  (unsigned)lm[1], (int)l[1].length, (const char *)l[1].value);
    } else if (!same_attributes(a, b, attrs, sizeof(attrs))) {
        ok = false;
    } else {
        /* (gss_compare_name of the two says "different": the mechglue
         * compares the names' mechanisms first, krb5 and the special
         * OID.) */
        snprintf(shown, len, "%.*s, localname %s, %s", (int)d[0].length,
                 (const char *)d[0].value, GSS_ERROR(lm[0]) ? "none" : "same",
                 attrs);
    }
    for (int i = 0; i < 2; i++) {
        release(&d[i]);
        release(&e[i]);
        release(&l[i]);
    }
    return ok;
}

/* A natively accepted context against MIT's own acceptor (the stock
 * path) for the same initiator: accept outputs, names, inquire_context,
 * context_time, wrap_size_limit, per-message calls, export and import. */
static void run_native_enctype(const struct enctype *e, enum how how)
{
    struct pair nat, stock;
    long mark = trace_mark();
    const char *how_name =
        how == HOW_CRED ? "acquired credential" : "GSS_C_NO_CREDENTIAL";
    char shown[512];
    bool ok;

    ok = establish(&nat, e->et, true, false, how);
    report(ok, "%d native (%s): MIT init / gk5 acc established", (int)e->et,
           how_name);
    if (!ok) {
        return;
    }
    ok = trace_count(mark, "accepted natively") == 1 &&
         !trace_has(mark, "accept by MIT");
    if (!ok) {
        char *t = trace_since(mark);
        fail("trace: %s", t);
        free(t);
    }
    report(ok, "%d native (%s) | trace: one 'accepted natively' line",
           (int)e->et, how_name);
    /* The stock acceptor gets the same ticket: the names' PAC attributes
     * are then the same bytes. */
    g_same_ccache = true;
    ok = establish(&stock, e->et, true, true, HOW_CRED);
    g_same_ccache = false;
    if (!ok) {
        report(false, "%d native: the stock MIT acceptor", (int)e->et);
        pair_release(&nat);
        return;
    }
    ok = nat.src != GSS_C_NO_NAME && stock.src != GSS_C_NO_NAME &&
         same_name(nat.src, stock.src, shown, sizeof(shown));
    report(ok,
           "%d native | src_name: gss_display_name, its type, "
           "gss_export_name, gss_localname as MIT's acceptor (%s)",
           (int)e->et, ok ? shown : "-");
    ok = nat.acc_flags == stock.acc_flags &&
         nat.delegated == GSS_C_NO_CREDENTIAL;
    if (!ok) {
        fail("ret_flags 0x%x, MIT's 0x%x; delegated %p",
             (unsigned)nat.acc_flags, (unsigned)stock.acc_flags,
             (void *)nat.delegated);
    }
    report(ok,
           "%d native | ret_flags as MIT's (0x%x), no delegated "
           "credential",
           (int)e->et, (unsigned)nat.acc_flags);
    /* gss_inquire_context against MIT's acceptor: cell_inquire compares
     * p's interposed side with other's MIT side of the same role. */
    stock.init_plain = true;
    cell_inquire(&nat, &stock);
    /* Names from gss_inquire_context too. */
    gss_name_t s[2] = {GSS_C_NO_NAME, GSS_C_NO_NAME};
    gss_name_t t[2] = {GSS_C_NO_NAME, GSS_C_NO_NAME};
    OM_uint32 minor, m0, m1;
    m0 = gss_inquire_context(&minor, nat.acc, &s[0], &t[0], NULL, NULL, NULL,
                             NULL, NULL);
    m1 = gss_inquire_context(&minor, stock.acc, &s[1], &t[1], NULL, NULL, NULL,
                             NULL, NULL);
    char shown2[512];
    ok = !GSS_ERROR(m0) && !GSS_ERROR(m1) &&
         same_name(s[0], s[1], shown, sizeof(shown)) &&
         same_name(t[0], t[1], shown2, sizeof(shown2));
    report(ok,
           "%d native | gss_inquire_context's src_name and targ_name as "
           "MIT's (%s -> %s)",
           (int)e->et, ok ? shown : "-", ok ? shown2 : "-");
    for (int i = 0; i < 2; i++) {
        (void)gss_release_name(&minor, &s[i]);
        (void)gss_release_name(&minor, &t[i]);
    }
    /* wrap_size_limit against MIT's acceptor (p's gk5 side is acc). */
    struct pair both = nat;
    both.init = stock.acc; /* cell_size_limit: the MIT side of the role */
    cell_size_limit(&both);
    for (int dir = 1; dir >= 0; dir--) {
        for (int op = OP_SEALED; op <= OP_MIC; op++) {
            cell_contiguous(&nat, dir == 1, (enum op)op);
        }
        cell_iov(&nat, dir == 1, L_TRAILER, U_IOV);
        cell_mic_iov(&nat, dir == 1, MIC_IOV_IOV);
    }
    cell_tamper_wrap(&nat, 1);
    cell_tamper_mic(&nat);
    /* Export (after use: gk5's own format keeps the sequence state) and
     * import; the imported context goes on talking to the initiator.  The
     * mechglue heads the token with the special OID, for which its import
     * calls MIT's own krb5 mechanism, which cannot read gk5's format: the
     * token comes back to the module under the krb5 OID. */
    gss_buffer_desc exp = GSS_C_EMPTY_BUFFER;
    gss_ctx_id_t back = GSS_C_NO_CONTEXT;
    uint8_t *msg = message(1000, 950);
    mark = trace_mark();
    ok = export_ctx(&nat.acc, &exp) && nat.acc == GSS_C_NO_CONTEXT &&
         import_as(&exp, &krb5_oid, &back) &&
         wrap_unwrap(nat.init, back, 1, msg, 1000) &&
         wrap_unwrap(back, nat.init, 1, msg, 1000) &&
         mic_verify(back, nat.init, msg, 1000) &&
         trace_has(mark, "imported natively");
    report(ok,
           "%d native | gss_export_sec_context of a used native context, "
           "imported: talks to the initiator both ways",
           (int)e->et);
    OM_uint32 tr = 0, tm = 0;
    ok = gss_context_time(&minor, back, &tr) == GSS_S_COMPLETE &&
         gss_context_time(&minor, stock.acc, &tm) == GSS_S_COMPLETE && tr > 0 &&
         (tr > tm ? tr - tm : tm - tr) <= 5;
    report(ok,
           "%d native | gss_context_time of the imported context %u s, "
           "MIT's acceptor %u s",
           (int)e->et, (unsigned)tr, (unsigned)tm);
    free(msg);
    release(&exp);
    mark = trace_mark();
    ok = gss_delete_sec_context(&minor, &back, GSS_C_NO_BUFFER) ==
             GSS_S_COMPLETE &&
         back == GSS_C_NO_CONTEXT && trace_has(mark, "deleted; gk5 served");
    report(ok, "%d native | gss_delete_sec_context: trace counts the calls",
           (int)e->et);
    pair_release(&nat);
    pair_release(&stock);
}

/* A context that must go to MIT's acceptor, with a trace line saying why,
 * and still work. */
static void native_fallback(const char *what, int32_t et, const char *why,
                            bool optional)
{
    struct pair p;
    long mark = trace_mark();
    bool ok = establish(&p, et, true, false, HOW_CRED);

    if (!ok && optional) {
        skip("native fallback, %s: not established here (%s)", what, g_why);
        g_why[0] = '\0';
        return;
    }
    report(ok, "native fallback, %s: established", what);
    if (!ok) {
        return;
    }
    char *t = trace_since(mark);
    ok = strstr(t, "accept by MIT (") != NULL && strstr(t, why) != NULL &&
         strstr(t, "accepted natively") == NULL;
    if (!ok) {
        fail("trace: %s", t);
    }
    free(t);
    report(ok, "native fallback, %s | trace: accept by MIT (%s)", what, why);
    uint8_t *msg = message(100, 960);
    ok = wrap_unwrap(p.init, p.acc, 1, msg, 100) &&
         wrap_unwrap(p.acc, p.init, 1, msg, 100) &&
         mic_verify(p.acc, p.init, msg, 100);
    free(msg);
    report(ok, "native fallback, %s | wrap and MIC both ways", what);
    if (strstr(what, "deleg") != NULL) {
        report(p.delegated != GSS_C_NO_CREDENTIAL,
               "native fallback, %s | MIT's acceptor gave the delegated "
               "credential",
               what);
    }
    pair_release(&p);
}

/* The same AP-REQ twice: the second is gk5's to refuse (a replay), not
 * MIT's to take. */
static void native_replay(void)
{
    gss_cred_id_t icred = GSS_C_NO_CREDENTIAL, acred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t ictx = GSS_C_NO_CONTEXT, a1 = GSS_C_NO_CONTEXT,
                 a2 = GSS_C_NO_CONTEXT;
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER, o1 = GSS_C_EMPTY_BUFFER,
                    o2 = GSS_C_EMPTY_BUFFER;
    gss_name_t target = target_name();
    OM_uint32 minor, m1 = 0, m2 = 0, maj1 = GSS_S_FAILURE, maj2 = 0;
    long mark;
    bool ok = false;

    if (initiator_cred(true, 18, &icred) && acceptor_cred(false, &acred) &&
        !GSS_ERROR(
            gss_init_sec_context(&minor, icred, &ictx, target, &special_oid,
                                 FLAGS, 0, GSS_C_NO_CHANNEL_BINDINGS,
                                 GSS_C_NO_BUFFER, NULL, &tok, NULL, NULL))) {
        maj1 = gss_accept_sec_context(&m1, &a1, acred, &tok,
                                      GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL,
                                      &o1, NULL, NULL, NULL);
        mark = trace_mark();
        maj2 = gss_accept_sec_context(&m2, &a2, acred, &tok,
                                      GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL,
                                      &o2, NULL, NULL, NULL);
        ok = maj1 == GSS_S_COMPLETE && GSS_ERROR(maj2) &&
             a2 == GSS_C_NO_CONTEXT && trace_has(mark, "refused natively") &&
             !trace_has(mark, "accept by MIT") && o2.length > 0 &&
             (m2 & 0xffffff00u) == GK5_MINOR_BASE;
        if (!ok) {
            char *t = trace_since(mark);
            fail("first %s; second %s, %zu-byte answer; trace: %s",
                 words(maj1, m1), words(maj2, m2), o2.length, t);
            free(t);
        }
    }
    report(ok,
           "native: a replayed AP-REQ is refused by gk5 (%s), with a "
           "KRB-ERROR token, not retried by MIT",
           ok ? words(maj2, m2) : "-");
    release(&tok);
    release(&o1);
    release(&o2);
    (void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &a1, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&minor, &icred);
    (void)gss_release_cred(&minor, &acred);
    (void)gss_release_name(&minor, &target);
}

/* gss_acquire_cred (not _from) with the service's host-based name: the
 * credential Ganesha and other servers make. */
static void native_named_cred(void)
{
    gss_name_t name = target_name();
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    OM_uint32 major, minor;
    struct pair p;
    long mark = trace_mark();
    bool ok;

    major = gss_acquire_cred(&minor, name, GSS_C_INDEFINITE,
                             (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                             &cred, NULL, NULL);
    ok = !GSS_ERROR(major);
    if (!ok) {
        fail("gss_acquire_cred(%s): %s", TARGET, words(major, minor));
    }
    if (ok) {
        g_acc_cred = cred;
        ok = establish(&p, 18, true, false, HOW_CRED);
        g_acc_cred = GSS_C_NO_CREDENTIAL;
        if (ok) {
            ok = trace_count(mark, "accepted natively") == 1;
            if (!ok) {
                char *t = trace_since(mark);
                fail("trace: %s", t);
                free(t);
            }
            pair_release(&p);
        }
    }
    report(ok,
           "native: gss_acquire_cred(%s, GSS_C_ACCEPT) credential accepts "
           "natively",
           TARGET);
    (void)gss_release_cred(&minor, &cred);
    (void)gss_release_name(&minor, &name);
}

/* A krb5.conf asking for forwardable tickets in front of the realm's. */
static bool forwardable_config(char *saved, size_t len)
{
    char path[600], list[2700];
    const char *was = getenv("KRB5_CONFIG");
    FILE *f;

    snprintf(saved, len, "%s", was != NULL ? was : "");
    snprintf(path, sizeof(path), "%s/forwardable.conf", g_tmp);
    f = fopen(path, "w");
    if (f == NULL) {
        return fail("cannot write %s", path);
    }
    fprintf(f, "[libdefaults]\n    forwardable = true\n");
    fclose(f);
    snprintf(list, sizeof(list), "%s:%s", path, saved);
    setenv("KRB5_CONFIG", list, 1);
    return true;
}

/* A credential store gk5 would have to honour more of than the keytab (a
 * replay cache of MIT's): the credential stays MIT's. */
static void native_store_fallback(void)
{
    gss_key_value_element_desc el[2] = {{"keytab", g_service_kt},
                                        {"rcache", "none:"}};
    gss_key_value_set_desc store = {2, el};
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    OM_uint32 major, minor;

    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &store, &cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        fail("gss_acquire_cred_from(keytab, rcache): %s", words(major, minor));
        report(false, "native fallback, a keytab and rcache store");
        return;
    }
    g_acc_cred = cred;
    native_fallback("a keytab and rcache credential store", 18,
                    "not made by gss_acquire_cred from a keytab", false);
    g_acc_cred = GSS_C_NO_CREDENTIAL;
    (void)gss_release_cred(&minor, &cred);
}

/* SPNEGO (RFC 4178) over the module: MIT's SPNEGO on both ends, krb5
 * inside; the acceptor's krb5 context is accepted natively and serves
 * SPNEGO's mechListMIC and the messages. */
static void native_spnego(void)
{
    static gss_OID_desc spnego = {6, (void *)"\x2b\x06\x01\x05\x05\x02"};
    gss_cred_id_t icred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t ic = GSS_C_NO_CONTEXT, ac = GSS_C_NO_CONTEXT;
    gss_buffer_desc it = GSS_C_EMPTY_BUFFER, at = GSS_C_EMPTY_BUFFER;
    gss_name_t target = target_name();
    OM_uint32 imaj = GSS_S_CONTINUE_NEEDED, amaj = GSS_S_CONTINUE_NEEDED;
    OM_uint32 minor;
    gss_OID mech = GSS_C_NO_OID;
    long mark = trace_mark();
    char ccache[64];
    gss_key_value_element_desc el[2] = {{"client_keytab", g_client_kt},
                                        {"ccache", ccache}};
    gss_key_value_set_desc store = {2, el};
    gss_OID_set_desc spnego_set = {1, &spnego};
    OM_uint32 major;
    bool ok = true;

    /* SPNEGO offers krb5 (through the module on both ends here), which the
     * acceptor's mechglue gives the module. */
    snprintf(ccache, sizeof(ccache), "MEMORY:gk5-api-%d", ++g_ccache_serial);
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  &spnego_set, GSS_C_INITIATE, &store, &icred,
                                  NULL, NULL);
    if (GSS_ERROR(major)) {
        ok = fail("gss_acquire_cred_from(SPNEGO initiator): %s",
                  words(major, minor));
    }
    for (int round = 0; ok && round < 8; round++) {
        if (imaj == GSS_S_CONTINUE_NEEDED) {
            release(&it);
            imaj = gss_init_sec_context(&minor, icred, &ic, target, &spnego,
                                        FLAGS, 0, GSS_C_NO_CHANNEL_BINDINGS,
                                        &at, NULL, &it, NULL, NULL);
            if (GSS_ERROR(imaj)) {
                ok =
                    fail("SPNEGO gss_init_sec_context: %s", words(imaj, minor));
                break;
            }
        }
        if (it.length > 0) {
            release(&at);
            amaj = gss_accept_sec_context(&minor, &ac, GSS_C_NO_CREDENTIAL, &it,
                                          GSS_C_NO_CHANNEL_BINDINGS, NULL,
                                          &mech, &at, NULL, NULL, NULL);
            release(&it);
            if (GSS_ERROR(amaj)) {
                ok = fail("SPNEGO gss_accept_sec_context: %s",
                          words(amaj, minor));
                break;
            }
        } else if (amaj != GSS_S_CONTINUE_NEEDED) {
            break;
        }
        if (imaj == GSS_S_COMPLETE && amaj == GSS_S_COMPLETE) {
            break;
        }
    }
    if (ok && (imaj != GSS_S_COMPLETE || amaj != GSS_S_COMPLETE)) {
        ok = fail("SPNEGO did not complete (init 0x%x, acc 0x%x)",
                  (unsigned)imaj, (unsigned)amaj);
    }
    if (ok) {
        uint8_t *msg = message(100, 970);
        ok = wrap_unwrap(ic, ac, 1, msg, 100) &&
             wrap_unwrap(ac, ic, 1, msg, 100) && mic_verify(ic, ac, msg, 100);
        free(msg);
    }
    if (ok && trace_count(mark, "accepted natively") != 1) {
        char *t = trace_since(mark);
        ok = fail("trace: %s", t);
        free(t);
    }
    report(ok, "native: SPNEGO on both ends (MIT's), krb5 inside accepted "
               "natively; wrap and MIC both ways");
    release(&it);
    release(&at);
    (void)gss_delete_sec_context(&minor, &ic, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &ac, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&minor, &icred);
    (void)gss_release_name(&minor, &target);
}

static void run_native(void)
{
    long mark = trace_mark();

    for (size_t i = 0; i < ARRAY_SIZE(enctypes); i++) {
        run_native_enctype(&enctypes[i], HOW_CRED);
    }
    run_native_enctype(&enctypes[0], HOW_DEFAULT);
    native_named_cred();
    native_replay();
    native_fallback("rc4-hmac ticket", 23, "rc4", false);
    native_store_fallback();
    native_spnego();
    g_req_flags = FLAGS | GSS_C_DCE_STYLE;
    native_fallback("DCE style", 18, "DCE", false);
    g_req_flags = FLAGS;
    char saved[2048];
    if (forwardable_config(saved, sizeof(saved))) {
        g_req_flags = FLAGS | GSS_C_DELEG_FLAG;
        native_fallback("delegation with a forwarded TGT", 18, "delegated",
                        false);
        g_req_flags = FLAGS;
        setenv("KRB5_CONFIG", saved, 1);
    }
    (void)mark;
}

/* ---- set-up ---- */

/* The DER body of a dotted OID (X.690 8.19), into special_bytes, then
 * krb5's OID after it: the special OID. */
static bool make_special_oid(const char *text)
{
    unsigned long long arcs[32];
    size_t n = 0, len = 0;
    const char *p = text;

    while (*p != '\0' && n < ARRAY_SIZE(arcs)) {
        char *end;
        arcs[n++] = strtoull(p, &end, 10);
        if (end == p || (*end != '.' && *end != '\0')) {
            return false;
        }
        p = *end == '.' ? end + 1 : end;
    }
    if (n < 2) {
        return false;
    }
    for (size_t i = 1; i < n; i++) {
        /* The first two arcs share one subidentifier. */
        unsigned long long v = i == 1 ? arcs[0] * 40 + arcs[1] : arcs[i];
        uint8_t tmp[10];
        size_t k = 0;
        do {
            tmp[k++] = (uint8_t)(v & 0x7f);
            v >>= 7;
        } while (v != 0);
        if (len + k + krb5_oid.length > sizeof(special_bytes)) {
            return false;
        }
        while (k > 0) {
            k--;
            special_bytes[len++] = (uint8_t)(tmp[k] | (k > 0 ? 0x80 : 0));
        }
    }
    memcpy(special_bytes + len, krb5_oid.elements, krb5_oid.length);
    special_oid.length = (OM_uint32)(len + krb5_oid.length);
    return true;
}

static bool g_native;

static bool setup(const char *module)
{
    const char *dir = getenv("GK5_REALM_DIR");
    FILE *f;

    if (dir == NULL || dir[0] == '\0') {
        printf("Bail out! GK5_REALM_DIR is not set: run under "
               "gk5 realm run --tap\n");
        return false;
    }
    /* meson passes a path relative to the build folder. */
    if (realpath(module, g_module) == NULL || access(g_module, R_OK) != 0) {
        printf("Bail out! %s: not a readable module\n", module);
        return false;
    }
    if (!make_special_oid(INTERPOSER_OID_TEXT)) {
        printf("Bail out! cannot encode %s\n", INTERPOSER_OID_TEXT);
        return false;
    }
    snprintf(g_client_kt, sizeof(g_client_kt), "%s/client.keytab", dir);
    snprintf(g_service_kt, sizeof(g_service_kt), "%s/service.keytab", dir);
    const char *tmpdir = getenv("TMPDIR");
    snprintf(g_tmp, sizeof(g_tmp), "%s/gk5-api-XXXXXX",
             tmpdir != NULL && tmpdir[0] != '\0' ? tmpdir : "/tmp");
    if (mkdtemp(g_tmp) == NULL) {
        printf("Bail out! mkdtemp %s failed\n", g_tmp);
        return false;
    }
    snprintf(g_conf, sizeof(g_conf), "%s/mech.conf", g_tmp);
    snprintf(g_trace, sizeof(g_trace), "%s/trace", g_tmp);
    f = fopen(g_conf, "w");
    if (f == NULL) {
        printf("Bail out! cannot write %s\n", g_conf);
        return false;
    }
    /* Native acceptance, and an option the module does not know (named
     * in the trace, ignored). */
    fprintf(f, "gk5_mech %s %s %s<interposer>\n", INTERPOSER_OID_TEXT, g_module,
            g_native ? "[accept=native gk5-test-unknown] " : "");
    fclose(f);
    /* Before the first GSS-API call: the mechglue reads them once. */
    setenv("GSS_MECH_CONFIG", g_conf, 1);
    setenv("GK5_TRACE", g_trace, 1);
    /* For the GSS_C_NO_CREDENTIAL acceptor. */
    setenv("KRB5_KTNAME", g_service_kt, 1);
    return true;
}

static void teardown(void)
{
    if (getenv("GK5_KEEP_TRACE") != NULL) {
        printf("# trace kept in %s\n", g_trace);
        return;
    }
    unlink(g_conf);
    unlink(g_trace);
    rmdir(g_tmp);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "native") == 0)) {
        printf("Bail out! usage: %s /abs/path/gk5_mech.so [native]\n", argv[0]);
        return 2;
    }
    g_native = argc == 3;
    if (!setup(argv[1])) {
        return 1;
    }
    printf("# module %s, GSS_MECH_CONFIG %s\n", g_module, g_conf);
    if (g_native) {
        run_native();
        char *t = read_file(g_trace, 0);
        bool ok =
            strstr(t, "unknown option \"gk5-test-unknown\" ignored") != NULL &&
            strstr(t, "accept: native (config line of") != NULL;
        free(t);
        report(ok, "native: the config line's options read by the module "
                   "(accept=native; an unknown option named in the trace)");
        teardown();
        printf("1..%d\n", g_n);
        if (g_failed > 0) {
            printf("# %d of %d failed\n", g_failed, g_n);
        }
        return g_failed > 0 ? 1 : 0;
    }

    run_defaults();
    for (size_t i = 0; i < ARRAY_SIZE(enctypes); i++) {
        run_enctype(&enctypes[i]);
    }
    const char *des3 = getenv("GK5_DES3");
    run_threads();
    run_left_with_mit(23, "arcfour-hmac", false, false);
    run_left_with_mit(16, "des3-cbc-sha1", true,
                      des3 != NULL && strcmp(des3, "1") == 0);

    /* Every tamper refusal came with words; show one. */
    if ((g_tamper_minor & 0xffffff00u) != GK5_MINOR_BASE) {
        fail("minor 0x%08x is not in gk5's range 0x%08x-0x%08x",
             (unsigned)g_tamper_minor, GK5_MINOR_BASE, GK5_MINOR_BASE + 0xff);
    }
    report(g_tamper_words[0] != '\0' &&
               (g_tamper_minor & 0xffffff00u) == GK5_MINOR_BASE,
           "a tampered token's minor is a gk5 code (0x%08x) with words: %s",
           (unsigned)g_tamper_minor, g_tamper_words);

    check_trace();
    teardown();

    printf("1..%d\n", g_n);
    if (g_failed > 0) {
        printf("# %d of %d failed\n", g_failed, g_n);
    }
    return g_failed > 0 ? 1 : 0;
}
