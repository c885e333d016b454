/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_ctx_import_gssd, the rpc.gssd / gssproxy context
 * buffer (DESIGN.md "The rpc.gssd context buffer": u32 flags, u32 endtime,
 * u64 send_seq, u32 enctype, key; host byte order).
 *
 * The input is the buffer.  A context that imports must behave: inquire
 * agrees with the buffer, wrap and get_mic work (unless it has expired),
 * and export then import gives back the same export.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static void exercise(gk5_ctx *ctx, const uint8_t *buf, size_t len)
{
    static const uint8_t text[] = "gk5 fuzz";
    gk5_ctx_info info;
    gk5_buffer msg = {sizeof(text), NULL}, tok = {0, NULL};
    gk5_buffer e1 = {0, NULL}, e2 = {0, NULL};
    gk5_ctx *again = NULL;
    uint32_t minor = 0, major, flags, endtime;
    uint64_t seq;
    size_t in_max = 0;
    int conf = -1;

    memcpy(&flags, buf, 4);
    memcpy(&endtime, buf + 4, 4);
    memcpy(&seq, buf + 8, 8);
    major = gk5_ctx_inquire(&minor, ctx, &info);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("inquire failed on an imported context", major, minor);
    }
    if (info.initiator != ((flags & GK5_GSSD_FLAG_INITIATOR) != 0) ||
        info.endtime != endtime || info.send_seq != seq ||
        info.acceptor_subkey !=
            ((flags & GK5_GSSD_FLAG_ACCEPTOR_SUBKEY) != 0)) {
        fuzz_fail("inquire disagrees with the imported buffer", 0, 0);
    }
    (void)len;

    msg.value = fuzz_dup(text, sizeof(text));
    major = gk5_wrap(&minor, ctx, 1, GK5_QOP_DEFAULT, &msg, &conf, &tok);
    if (major != GK5_S_COMPLETE && major != GK5_S_CONTEXT_EXPIRED &&
        major != GK5_S_FAILURE) {
        fuzz_fail("wrap on an imported context", major, minor);
    }
    gk5_buffer_release(&tok);
    major = gk5_get_mic(&minor, ctx, GK5_QOP_DEFAULT, &msg, &tok);
    if (major != GK5_S_COMPLETE && major != GK5_S_CONTEXT_EXPIRED &&
        major != GK5_S_FAILURE) {
        fuzz_fail("get_mic on an imported context", major, minor);
    }
    gk5_buffer_release(&tok);
    (void)gk5_wrap_size_limit(&minor, ctx, 1, GK5_QOP_DEFAULT, 1000, &in_max);
    free(msg.value);

    major = gk5_ctx_export(&minor, ctx, &e1);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("export of an imported context failed", major, minor);
    }
    major = gk5_ctx_import(&minor, e1.value, e1.length, &again);
    if (major != GK5_S_COMPLETE) {
        fuzz_fail("import of our own export failed", major, minor);
    }
    major = gk5_ctx_export(&minor, again, &e2);
    if (major != GK5_S_COMPLETE || e1.length != e2.length ||
        memcmp(e1.value, e2.value, e1.length) != 0) {
        fuzz_fail("export(import(export(ctx))) differs from export(ctx)", major,
                  minor);
    }
    gk5_buffer_release(&e1);
    gk5_buffer_release(&e2);
    gk5_ctx_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = fuzz_dup(data, size);
    gk5_ctx *ctx = NULL;
    uint32_t minor = 0, major;

    major = gk5_ctx_import_gssd(&minor, buf, size, &ctx);
    if (major == GK5_S_COMPLETE) {
        if (ctx == NULL || size < 20) {
            fuzz_fail("import_gssd succeeded without a context", major, minor);
        }
        exercise(ctx, buf, size);
    } else if (ctx != NULL) {
        fuzz_fail("import_gssd failed but wrote a context", major, minor);
    }
    gk5_ctx_free(ctx);
    free(buf);
    return 0;
}
