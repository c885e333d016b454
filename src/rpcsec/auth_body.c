/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The libtirpc AUTH's bodies (RFC 2203 5.3.2, 5.3.3): the arguments
 * wrapped, the reply's verifier validated, the results read whole and
 * unwrapped, each on its call's slot.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include <gk5/gk5.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "common/xdr.h"
#include "rpcsec/auth_int.h"

/* The call's slot, or NULL (and the error) when marshal did not run. */
static struct call_slot *slot_for_call(const struct priv *p, const char *op)
{
    struct call_slot *s = gk5i_auth_slot_find(p->serial, 1);

    if (s->cc == NULL) {
        if (!s->failed) {
            gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                         "RPCSEC_GSS %s without a call marshalled on this "
                         "thread",
                         op);
            s->failed = 1;
        }
        return NULL;
    }
    return s;
}

/* RFC 2203 5.3.2 and 5.3.3.4 with rpc_gss_svc_none: the arguments or
 * results go as they are; what is said if they do not encode or decode. */
static bool_t plain_body(struct call_slot *s, XDR *xdrs, xdrproc_t proc,
                         caddr_t obj, int code, const char *what)
{
    bool_t ok = (*proc)(xdrs, obj);

    if (!ok) {
        gk5i_rpc_err(&s->err, code, "%s", what);
    }
    return ok;
}

/* The end of a call body's processing: its XDR stream closed, the buffer
 * (len bytes) wiped if it held privacy plaintext, and freed. */
static void body_release(XDR *mx, int have_mx, uint8_t *buf, size_t len,
                         gk5_rpc_service service)
{
    if (have_mx) {
        XDR_DESTROY(mx);
    }
    if (buf != NULL && service == GK5_RPC_SVC_PRIVACY) {
        zap(buf, len);
    }
    free(buf);
}

/* RFC 2203 5.3.2: the arguments, as they are (none), or as
 * rpc_gss_integ_data / rpc_gss_priv_data built in one buffer and sealed in
 * place. */
bool_t gk5i_auth_op_wrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_args,
                         caddr_t args)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "wrap");
    uint8_t *buf = NULL;
    size_t cap = 0, head = 0, tail = 0, off = 0, out_len = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_args, args, GK5_RPC_E_TRANSPORT,
                        "encoding the call's arguments failed");
        goto cleanup;
    }
    /* xdr_sizeof answers 0 both for void and for failure; a failure shows
     * when the arguments do not fit the buffer below. */
    size_t size = xdr_sizeof(xdr_args, args);
    if (size > p->est.max_body) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG,
                     "arguments of %zu bytes are larger than the %zu bytes "
                     "allowed (max_body)",
                     size, p->est.max_body);
        goto cleanup;
    }
    size_t len = 4 + size; /* seq_num, then the arguments */
    if (gk5i_rpc_body_room(s->cc->gss, s->service, len, &head, &tail,
                           &s->err) != 0) {
        goto cleanup;
    }
    cap = head + len + tail;
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte call body", cap);
        goto cleanup;
    }
    gk5i_put32(buf + head, s->seq);
    xdrmem_create(&mx, (char *)buf + head + 4, (u_int)size, XDR_ENCODE);
    have_mx = 1;
    if (!(*xdr_args)(&mx, args) || XDR_GETPOS(&mx) != size) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_INVALID,
                     "encoding the call's arguments failed");
        goto cleanup;
    }
    if (gk5i_rpc_body_seal(s->cc->gss, s->service, buf, head, len, cap, &off,
                           &out_len, &s->err) != 0) {
        goto cleanup;
    }
    if (out_len > UINT_MAX ||
        !XDR_PUTBYTES(xdrs, (char *)buf + off, (u_int)out_len)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TRANSPORT,
                     "sending the %zu-byte call body failed", out_len);
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The arguments, if sealing stopped half-way. */
    body_release(&mx, have_mx, buf, cap, s->service);
    if (!ok) {
        gk5i_auth_slot_end_call(s);
        s->failed = 1;
    }
    return ok;
}

/* RFC 2203 5.3.3.2: the reply verifier is the MIC of this call's seq_num. */
bool_t gk5i_auth_op_validate(AUTH *auth, struct opaque_auth *verf)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "validate");

    if (s == NULL) {
        return FALSE;
    }
    if (verf == NULL || verf->oa_flavor != RPCSEC_GSS) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_BAD_VERIFIER,
                     "the reply's verifier is of flavour %d, not RPCSEC_GSS "
                     "(RFC 2203 5.3.3.2)",
                     verf != NULL ? (int)verf->oa_flavor : -1);
    } else if (gk5i_rpc_verify_u32(s->cc->gss, s->seq, verf->oa_base,
                                   verf->oa_length, &s->err) == 0) {
        return TRUE;
    } else {
        char words[sizeof(s->err.text)];
        memcpy(words, s->err.text, sizeof(words));
        (void)snprintf(s->err.text, sizeof(s->err.text),
                       "the reply's verifier is not the MIC of the call's "
                       "sequence number %u (RFC 2203 5.3.3.2): %.400s",
                       s->seq, words);
    }
    if (s->err.rpc_stat == 0) {
        s->err.rpc_stat = RPC_AUTHERROR;
    }
    gk5i_auth_slot_end_call(s);
    s->failed = 1;
    return FALSE;
}

/* rpc_gss_integ_data's checksum (RFC 2203 5.3.2.2), an opaque<> of at
 * most GK5I_RPC_MAX_AUTH_BYTES with its padding, read from the stream
 * into at (room for it); *total grows by its length on the wire. */
static GK5I_RPC_WUR int read_checksum(XDR *xdrs, uint8_t *at, size_t *total,
                                      gk5_rpc_error *err)
{
    u_int n2 = 0;

    if (!xdr_u_int(xdrs, &n2) || n2 > GK5I_RPC_MAX_AUTH_BYTES - 3) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply's integrity checksum is missing or too "
                     "long");
        return -1;
    }
    gk5i_put32(at, n2);
    size_t n2p = (size_t)n2 + gk5i_xdr_pad(n2);
    if (n2p > 0 && !XDR_GETBYTES(xdrs, (char *)at + 4, (u_int)n2p)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply's integrity checksum is truncated");
        return -1;
    }
    *total += 4 + n2p;
    return 0;
}

/* Read the reply body (one opaque<> for privacy, two for integrity) from
 * the stream into one buffer laid out as on the wire. */
static GK5I_RPC_WUR int read_body(XDR *xdrs, gk5_rpc_service svc, size_t max,
                                  uint8_t **out, size_t *out_len,
                                  gk5_rpc_error *err)
{
    uint8_t *buf = NULL;
    u_int n = 0;
    int ret = -1;

    *out = NULL;
    *out_len = 0;
    /* max bounds the results, the XDR data after the seq_num, as
     * gk5i_rpc_body_open has it: databody_integ carries the seq_num too,
     * a privacy token its own pieces. */
    size_t limit =
        svc == GK5_RPC_SVC_PRIVACY ? max + GK5I_RPC_PRIV_SLACK : max + 4;
    if (!xdr_u_int(xdrs, &n)) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is missing (no length)");
        goto cleanup;
    }
    if (n > limit) {
        gk5i_rpc_err(err, GK5_RPC_E_TOO_BIG,
                     "the reply body of %u bytes is larger than max_body "
                     "(%zu bytes of results) allows",
                     n, max);
        goto cleanup;
    }
    size_t first = 4 + (size_t)n + gk5i_xdr_pad(n);
    size_t cap = first;
    if (svc == GK5_RPC_SVC_INTEGRITY) {
        cap += 4 + GK5I_RPC_MAX_AUTH_BYTES;
    }
    buf = malloc(cap);
    if (buf == NULL) {
        gk5i_rpc_err(err, GK5_RPC_E_NOMEM,
                     "out of memory for a %zu-byte reply body", cap);
        goto cleanup;
    }
    gk5i_put32(buf, n);
    if (!XDR_GETBYTES(xdrs, (char *)buf + 4, (u_int)(first - 4))) {
        gk5i_rpc_err(err, GK5_RPC_E_MALFORMED,
                     "the reply body is shorter than its length, %u bytes", n);
        goto cleanup;
    }
    size_t total = first;
    if (svc == GK5_RPC_SVC_INTEGRITY &&
        read_checksum(xdrs, buf + first, &total, err) != 0) {
        goto cleanup;
    }
    *out = buf;
    *out_len = total;
    buf = NULL;
    ret = 0;

cleanup:
    free(buf);
    return ret;
}

/* RFC 2203 5.3.3.4: the results, checked (and decrypted) with their seq_num
 * before a byte reaches xdr_results. */
bool_t gk5i_auth_op_unwrap(AUTH *auth, XDR *xdrs, xdrproc_t xdr_results,
                           caddr_t results)
{
    struct priv *p = auth->ah_private;
    struct call_slot *s = slot_for_call(p, "unwrap");
    uint8_t *buf = NULL, *data = NULL;
    size_t len = 0, data_len = 0, used = 0;
    XDR mx;
    int have_mx = 0;
    bool_t ok = FALSE;

    if (s == NULL) {
        return FALSE;
    }
    if (s->service == GK5_RPC_SVC_NONE) {
        ok = plain_body(s, xdrs, xdr_results, results, GK5_RPC_E_MALFORMED,
                        "the results do not decode");
        goto cleanup;
    }
    if (read_body(xdrs, s->service, p->est.max_body, &buf, &len, &s->err) !=
            0 ||
        gk5i_rpc_body_open(s->cc->gss, s->service, s->seq, buf, len,
                           p->est.max_body, &data, &data_len, &used,
                           &s->err) != 0) {
        goto cleanup;
    }
    if (data_len > UINT_MAX) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_TOO_BIG, "results of %zu bytes",
                     data_len);
        goto cleanup;
    }
    xdrmem_create(&mx, (char *)data, (u_int)data_len, XDR_DECODE);
    have_mx = 1;
    if (!(*xdr_results)(&mx, results)) {
        gk5i_rpc_err(&s->err, GK5_RPC_E_MALFORMED,
                     "the results (%zu bytes, %s) do not decode", data_len,
                     gk5_rpc_service_name(s->service));
        goto cleanup;
    }
    ok = TRUE;

cleanup:
    /* The decrypted results. */
    body_release(&mx, have_mx, buf, len, s->service);
    if (!ok) {
        s->failed = 1;
    } else {
        s->failed = 0;
        gk5i_rpc_err_clear(&s->err);
    }
    gk5i_auth_slot_end_call(s);
    return ok;
}
