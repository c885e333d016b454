/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Build an established MIT krb5 GSS-API security context from a fixed key,
 * without a KDC: hand-write the interprocess token that MIT krb5 1.20's
 * gss_export_sec_context() would produce (the mechglue's 4-byte OID length
 * and OID, then lib/gssapi/krb5/ser_sctx.c's serialization) and give it to
 * gss_import_sec_context().
 *
 * Used by the differential fuzz target only (tests/fuzz/fuzz_diff_mit.c).
 */
#ifndef GK5_FUZZ_MIT_CTX_H
#define GK5_FUZZ_MIT_CTX_H

#include <stddef.h>
#include <stdint.h>

#include <gssapi/gssapi.h>

struct mit_ctx_params {
    int32_t enctype;    /* the session key's (or acceptor subkey's) enctype */
    const uint8_t *key; /* the key gk5 gets in its rpc.gssd buffer */
    size_t key_len;
    int initiator;       /* 1: we initiated the context */
    int acceptor_subkey; /* 1: key is the acceptor subkey (RFC 4121 only) */
    /* With acceptor_subkey, MIT also holds the initiator's subkey (the
     * ctx->subkey slot); gk5's rpc.gssd buffer does not carry it, so it must
     * differ from key (else MIT would accept tokens without the
     * AcceptorSubkey flag that gk5, holding one key, rightly refuses). */
    const uint8_t *other_key;
    uint64_t send_seq;
    uint64_t recv_seq;
};

/* Writes the token into a malloc'd buffer; 0 or -1. */
int mit_ctx_token(const struct mit_ctx_params *p, uint8_t **out,
                  size_t *out_len);
/* Token + gss_import_sec_context.  Returns the GSS major status. */
OM_uint32 mit_ctx_import(const struct mit_ctx_params *p, gss_ctx_id_t *ctx);

#endif /* GK5_FUZZ_MIT_CTX_H */
