/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The echo program (rpc_echo_prog.h) on libgk5_rpc's message-level
 * server, and the calls of gk5's own client: arguments and results go
 * through the bounded reader and writer of src/common/xdr.h, every byte
 * of the arguments used.
 */
#include "echo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "common/xdr.h"

/* ---- The server side ---- */

/* A results buffer of cap bytes for the writer; -1 when out of memory. */
static int results_start(gk5_buffer *results, struct gk5i_wr *w, size_t cap)
{
    results->value = malloc(cap > 0 ? cap : 1);
    if (results->value == NULL) {
        return -1;
    }
    results->length = cap;
    gk5i_wr_init(w, results->value, cap);
    return 0;
}

/* The results as written: 0, or -1 (freed) when they did not fit. */
static int results_end(gk5_buffer *results, const struct gk5i_wr *w)
{
    if (w->bad) {
        free(results->value);
        results->value = NULL;
        results->length = 0;
        return -1;
    }
    results->length -= w->left;
    return 0;
}

/* AUTH_SYS's credential (RFC 5531 appendix A): stamp, machinename<255>,
 * uid, gid, gids<16>; all of it. */
static bool sys_ids(const gk5_rpc_call *call, uint32_t *uid, uint32_t *gid)
{
    struct gk5i_rd r;
    size_t clen = 0, n = 0;
    const void *cred = gk5_rpc_call_cred(call, &clen);

    gk5i_rd_init(&r, cred, cred != NULL ? clen : 0);
    (void)gk5i_xdr_get_u32(&r); /* stamp */
    (void)gk5i_xdr_get_opaque(&r, 255, &n);
    *uid = gk5i_xdr_get_u32(&r);
    *gid = gk5i_xdr_get_u32(&r);
    n = gk5i_xdr_get_u32(&r);
    if (n > 16) {
        return false;
    }
    gk5i_skip(&r, 4 * n);
    return gk5i_rd_at_end(&r);
}

static void whoami_text(const gk5_rpc_call *call, char *out, size_t len)
{
    switch (gk5_rpc_call_flavor(call)) {
    case GK5_RPC_FLAVOR_RPCSEC_GSS: {
        const char *who = gk5_rpc_call_principal(call);

        snprintf(out, len, "RPCSEC_GSS %s %s",
                 gk5_rpc_service_name(gk5_rpc_call_service(call)),
                 who != NULL ? who : "?");
        break;
    }
    case GK5_RPC_FLAVOR_SYS: {
        uint32_t uid = 0, gid = 0;

        if (sys_ids(call, &uid, &gid)) {
            snprintf(out, len, "AUTH_SYS uid=%u gid=%u", (unsigned)uid,
                     (unsigned)gid);
        } else {
            snprintf(out, len, "AUTH_SYS (undecodable credential)");
        }
        break;
    }
    case GK5_RPC_FLAVOR_NONE:
        snprintf(out, len, "AUTH_NONE");
        break;
    default:
        snprintf(out, len, "flavor %u", gk5_rpc_call_flavor(call));
        break;
    }
}

/* One procedure of the echo program on the whole of its arguments (every
 * byte must be used); the results written into results.  The accept_stat. */
static uint32_t echo_proc(const gk5_rpc_call *call, gk5_buffer *results)
{
    struct gk5i_rd r;
    struct gk5i_wr w;
    size_t len = 0, n = 0;
    const uint8_t *data;
    const void *args = gk5_rpc_call_args(call, &len);
    char who[GK5_ECHO_MAX_STRING];

    gk5i_rd_init(&r, args, args != NULL ? len : 0);
    switch (gk5_rpc_call_proc(call)) {
    case GK5_ECHO_PROC_NULL:
        return gk5i_rd_at_end(&r) ? GK5_RPC_SUCCESS : GK5_RPC_GARBAGE_ARGS;
    case GK5_ECHO_PROC_ECHO:
        data = gk5i_xdr_get_opaque(&r, GK5_ECHO_MAX_OPAQUE, &n);
        if (!gk5i_rd_at_end(&r)) {
            return GK5_RPC_GARBAGE_ARGS;
        }
        if (results_start(results, &w, gk5i_xdr_opaque_size(n)) != 0) {
            return GK5_RPC_SYSTEM_ERR;
        }
        gk5i_xdr_put_opaque(&w, data, n);
        break;
    case GK5_ECHO_PROC_WHOAMI:
        if (!gk5i_rd_at_end(&r)) {
            return GK5_RPC_GARBAGE_ARGS;
        }
        whoami_text(call, who, sizeof(who));
        if (results_start(results, &w, gk5i_xdr_opaque_size(strlen(who))) !=
            0) {
            return GK5_RPC_SYSTEM_ERR;
        }
        gk5i_xdr_put_string(&w, who);
        break;
    case GK5_ECHO_PROC_SINK:
        /* Counted where it lies: the bytes are stepped over, not copied. */
        (void)gk5i_xdr_get_opaque(&r, GK5_ECHO_MAX_OPAQUE, &n);
        if (!gk5i_rd_at_end(&r)) {
            return GK5_RPC_GARBAGE_ARGS;
        }
        if (results_start(results, &w, 4) != 0) {
            return GK5_RPC_SYSTEM_ERR;
        }
        gk5i_xdr_put_u32(&w, (uint32_t)n);
        break;
    case GK5_ECHO_PROC_SOURCE: {
        uint8_t *at;

        n = gk5i_xdr_get_u32(&r);
        if (!gk5i_rd_at_end(&r) || n > GK5_ECHO_MAX_OPAQUE) {
            return GK5_RPC_GARBAGE_ARGS;
        }
        /* Written straight into the results, not built and copied. */
        if (results_start(results, &w, gk5i_xdr_opaque_size(n)) != 0) {
            return GK5_RPC_SYSTEM_ERR;
        }
        gk5i_xdr_put_u32(&w, (uint32_t)n);
        at = gk5i_wr_reserve(&w, n);
        if (at != NULL) {
            gk5_echo_source_fill(at, n);
        }
        gk5i_put_fill(&w, 0, gk5i_xdr_padding(n));
        break;
    }
    default:
        return GK5_RPC_PROC_UNAVAIL;
    }
    return results_end(results, &w) == 0 ? GK5_RPC_SUCCESS : GK5_RPC_SYSTEM_ERR;
}

int gk5_echo_dispatch(void *arg, const gk5_rpc_call *call,
                      uint32_t *accept_stat, gk5_buffer *results)
{
    const struct gk5_echo_id *prog = arg;

    results->length = 0;
    results->value = NULL;
    *accept_stat = GK5_RPC_SUCCESS;
    if (gk5_rpc_call_prog(call) != prog->prog) {
        *accept_stat = GK5_RPC_PROG_UNAVAIL;
        return 0;
    }
    if (gk5_rpc_call_vers(call) != prog->vers) {
        /* RFC 5531 9: PROG_MISMATCH carries the lowest and highest
         * version. */
        struct gk5i_wr w;

        *accept_stat = GK5_RPC_PROG_MISMATCH;
        if (results_start(results, &w, 8) != 0) {
            *accept_stat = GK5_RPC_SYSTEM_ERR;
            return 0;
        }
        gk5i_xdr_put_u32(&w, prog->vers);
        gk5i_xdr_put_u32(&w, prog->vers);
        (void)results_end(results, &w); /* 8 bytes: they fit */
        return 0;
    }
    *accept_stat = echo_proc(call, results);
    return 0;
}

/* ---- gk5's own client: one call's arguments and its results ---- */

void gk5_echo_stamp(uint8_t stamp[GK5_ECHO_STAMP_SIZE], unsigned index,
                    uint64_t call)
{
    store_be32(stamp, index);
    store_be64(stamp + 4, call);
}

int gk5_echo_args(uint32_t proc, size_t size, unsigned index, uint64_t call,
                  uint8_t *buf, size_t cap, gk5_buffer *args)
{
    struct gk5i_wr w;
    uint8_t stamp[GK5_ECHO_STAMP_SIZE];

    gk5i_wr_init(&w, buf, cap);
    gk5_echo_stamp(stamp, index, call);
    switch (proc) {
    case GK5_ECHO_PROC_ECHO:
    case GK5_ECHO_PROC_SINK:
        gk5i_xdr_put_u32(&w, (uint32_t)size);
        (void)gk5i_wr_reserve(&w, size); /* the pattern, in place */
        gk5i_put_fill(&w, 0, gk5i_xdr_padding(size));
        if (!w.bad) {
            memcpy(buf + 4, stamp, size < sizeof(stamp) ? size : sizeof(stamp));
        }
        break;
    case GK5_ECHO_PROC_SOURCE:
        gk5i_xdr_put_u32(&w, (uint32_t)size);
        break;
    default: /* NULL */
        break;
    }
    args->value = buf;
    args->length = cap - w.left;
    return w.bad ? -1 : 0;
}

bool gk5_echo_check(uint32_t proc, size_t size, unsigned index, uint64_t call,
                    const gk5_buffer *res, char *why, size_t why_len)
{
    struct gk5i_rd rd;
    const uint8_t *data;
    size_t n = 0, from = 0, bad = 0;
    uint8_t stamp[GK5_ECHO_STAMP_SIZE];

    gk5_echo_stamp(stamp, index, call);
    gk5i_rd_init(&rd, res->value, res->length);
    switch (proc) {
    case GK5_ECHO_PROC_SINK:
        n = gk5i_xdr_get_u32(&rd);
        if (!rd.bad && n != size) {
            snprintf(why, why_len,
                     "call %llu: the server counted %zu bytes, "
                     "not %zu",
                     (unsigned long long)call + 1, n, size);
            return false;
        }
        break;
    case GK5_ECHO_PROC_ECHO:
    case GK5_ECHO_PROC_SOURCE:
        data = gk5i_xdr_get_opaque(&rd, GK5_ECHO_MAX_OPAQUE, &n);
        if (rd.bad) {
            break;
        }
        if (n != size) {
            snprintf(why, why_len,
                     "call %llu: the reply has %zu bytes, not "
                     "%zu",
                     (unsigned long long)call + 1, n, size);
            return false;
        }
        /* ECHO's first bytes are the call's stamp, the rest (and all of
         * SOURCE) the pattern, checked a stretch at a time. */
        from = proc == GK5_ECHO_PROC_ECHO
                   ? (n < sizeof(stamp) ? n : sizeof(stamp))
                   : 0;
        bad = n;
        for (size_t i = 0; i < from && bad == n; i++) {
            if (data[i] != stamp[i]) {
                bad = i;
            }
        }
        if (bad == n) {
            bad = gk5_echo_source_check_from(data, n, from);
        }
        if (bad < n) {
            uint8_t want = bad < from ? stamp[bad] : gk5_echo_source_byte(bad);
            snprintf(why, why_len,
                     "call %llu: byte %zu of the reply is "
                     "0x%02x, not 0x%02x",
                     (unsigned long long)call + 1, bad, data[bad], want);
            return false;
        }
        break;
    default: /* NULL: no results */
        break;
    }
    if (!gk5i_rd_at_end(&rd)) {
        snprintf(why, why_len,
                 "call %llu: the results (%zu bytes) do not "
                 "decode",
                 (unsigned long long)call + 1, res->length);
        return false;
    }
    return true;
}
