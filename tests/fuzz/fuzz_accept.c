/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the acceptor (src/krb5/acceptor.c) end to end, an
 * initiator's token in.  The credential holds the service key of the real
 * MIT AP-REQs in tests/vectors/mit_ap_req.txt (gk5/localhost@GK5.TEST,
 * aes256-cts-hmac-sha1-96, kvno 1), and every input is accepted at the
 * time they were made (gk5i_accept_at), so the seeds -- those AP-REQs --
 * go all the way through and mutations reach each check behind them.
 *
 * What must hold: a success gives a context that wraps and the names in
 * words; a refusal gives no context, minor words, and an answer token that
 * is empty or a framed KRB-ERROR (TOK_ID 03 00) or nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"

/* tests/vectors/mit_ap_req.txt: the service key and the capture time. */
static const uint8_t svc_key[32] = {
    0xc7, 0xb0, 0xdf, 0xca, 0x9b, 0xae, 0xbf, 0xd1, 0x0e, 0xc4, 0xb7,
    0xda, 0xfb, 0x57, 0x9e, 0x24, 0xea, 0x6a, 0x1d, 0x2b, 0x1c, 0x0a,
    0xc3, 0x14, 0x20, 0x00, 0xd0, 0x73, 0xce, 0x57, 0xa7, 0xb2};
#define CAPTURED 1796411437

static gk5_acceptor_cred *g_cred;

/* A 0x502 keytab of gk5/localhost@GK5.TEST, kvno 1, aes256-sha1. */
static void write_keytab(const char *path)
{
    static const uint8_t head[] = {
        0x05, 0x02, 0x00, 0x00, 0x00, 0x4d, /* version, entry length 77 */
        0x00, 0x02, 0x00, 0x08, 'G',  'K',  '5',  '.',  'T',  'E',  'S',
        'T',  0x00, 0x03, 'g',  'k',  '5',  0x00, 0x09, 'l',  'o',  'c',
        'a',  'l',  'h',  'o',  's',  't',  0x00, 0x00, 0x00, 0x01, 0x00,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x00, 0x20};
    static const uint8_t tail[] = {0x00, 0x00, 0x00, 0x01};
    FILE *f = fopen(path, "wb");

    if (f == NULL || fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
        fwrite(svc_key, 1, sizeof(svc_key), f) != sizeof(svc_key) ||
        fwrite(tail, 1, sizeof(tail), f) != sizeof(tail) || fclose(f) != 0) {
        fuzz_fail("cannot write the keytab", 0, 0);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[] = "/tmp/gk5-fuzz-accept.XXXXXX", path[64];
    gk5_acceptor_opts o;
    uint32_t minor = 0;

    (void)argc;
    (void)argv;
    fuzz_init();
    if (mkdtemp(dir) == NULL) {
        fuzz_fail("mkdtemp", 0, 0);
    }
    snprintf(path, sizeof(path), "%s/krb5.keytab", dir);
    write_keytab(path);
    memset(&o, 0, sizeof(o));
    o.keytab = path;
    o.flags = GK5_ACC_NO_RCACHE; /* every input is a first sight */
    if (GK5_ERROR(gk5_acceptor_cred_new(&minor, &o, &g_cred))) {
        fuzz_fail("no credential", 0, minor);
    }
    /* The keys are in memory now: the file is not read again unless a
     * ticket names a key the credential lacks, and then it is gone. */
    unlink(path);
    rmdir(dir);
    return 0;
}

static void check_refusal(uint32_t major, uint32_t minor, const gk5_ctx *ctx,
                          const gk5_buffer *out)
{
    size_t inner = 0;
    enum gk5i_frame_mech mech;

    if (ctx != NULL) {
        fuzz_fail("a refused AP-REQ left a context", major, minor);
    }
    if (gk5_display_status(major, minor)[0] == '\0') {
        fuzz_fail("a refusal without words", major, minor);
    }
    if (out->length == 0) {
        return;
    }
    if (gk5i_frame_parse_mech(out->value, out->length, out->length, &inner,
                              &mech) != GK5_OK ||
        out->length - inner < 2 ||
        load_be16((const uint8_t *)out->value + inner) != 0x0300) {
        fuzz_fail("a refusal answered with something not a KRB-ERROR", major,
                  minor);
    }
}

static void check_context(gk5_ctx *ctx, const gk5_accept_info *info)
{
    static const uint8_t text[] = "gk5 fuzz";
    gk5_buffer msg = {sizeof(text), (void *)(uintptr_t)text};
    gk5_buffer tok = {0, NULL};
    uint32_t minor = 0, major;

    if (ctx == NULL || info->initiator == NULL || info->acceptor == NULL) {
        fuzz_fail("an accepted AP-REQ without a context or names", 0, 0);
    }
    /* The tickets ended an hour after they were captured: by the real
     * clock the context may have expired, the one refusal a context just
     * accepted may give. */
    major = gk5_wrap(&minor, ctx, 1, GK5_QOP_DEFAULT, &msg, NULL, &tok);
    if (GK5_ERROR(major) && major != GK5_S_CONTEXT_EXPIRED) {
        fuzz_fail("an accepted context does not wrap", major, minor);
    }
    gk5_buffer_release(&tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    gk5_buffer in, out = {0, NULL};
    gk5_accept_info info;
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    fuzz_trace_for(size);
    /* An exact-size copy, so that ASan sees any read past the end. */
    copy = fuzz_dup(data, size);
    in.length = size;
    in.value = copy;
    major = gk5i_accept_at(&minor, g_cred, &in, NULL, &out, &ctx, &info,
                           CAPTURED, 0);
    if (GK5_ERROR(major)) {
        check_refusal(major, minor, ctx, &out);
    } else {
        check_context(ctx, &info);
        gk5_accept_info_release(&info);
    }
    gk5_ctx_free(ctx);
    gk5_buffer_release(&out);
    free(copy);
    return 0;
}
