/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A fixed-key MIT krb5 GSS-API context without a KDC (see mit_ctx.h).
 *
 * The layout written here is MIT krb5 1.20's interprocess context token,
 * field for field, read from its serializers (lib/gssapi/krb5/ser_sctx.c
 * kg_ctx_internalize; lib/krb5/krb/ser_ctx.c, ser_actx.c, ser_princ.c,
 * ser_key.c; lib/gssapi/generic/util_seqstate.c) and from the mechglue's
 * gss_import_sec_context (4-byte big-endian OID length, OID, mech token).
 * Integers are big-endian 32-bit (int64 fields 64-bit) with KV5M_* magic
 * numbers around each substructure.  Optional substructures are left out:
 * MIT's reader treats a wrong magic number as "absent" and does not consume
 * it.  The one host-order blob is the receive-window struct, which MIT
 * copies with memcpy.
 */
#include "mit_ctx.h"

#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>

/* com_err code of KG_CONTEXT: table "k5g" (base 39756032), entry 8. */
#define MIT_KG_CONTEXT 39756040
/* RFC 1964 algorithm numbers as MIT keeps them for DES3. */
#define MIT_SGN_ALG_HMAC_SHA1_DES3_KD 4
#define MIT_SEAL_ALG_DES3KD 2
#define MIT_ENCTYPE_DES3_CBC_RAW 6

/* lib/gssapi/generic/util_seqstate.c struct g_seqnum_state_st (host
 * layout, copied as bytes). */
struct mit_seqstate {
    int do_replay;
    int do_sequence;
    uint64_t seqmask;
    uint64_t base;
    uint64_t next;
    uint64_t recvmap;
};

struct wbuf {
    uint8_t *p;
    size_t len, cap;
    int failed;
};

static void put_bytes(struct wbuf *w, const void *src, size_t n)
{
    if (w->failed) {
        return;
    }
    if (w->cap - w->len < n) {
        size_t cap = (w->cap + n) * 2;
        uint8_t *q = realloc(w->p, cap);
        if (q == NULL) {
            w->failed = 1;
            return;
        }
        w->p = q;
        w->cap = cap;
    }
    if (n != 0) {
        memcpy(w->p + w->len, src, n);
    }
    w->len += n;
}

static void put32(struct wbuf *w, int64_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8),
                    (uint8_t)u};
    put_bytes(w, b, sizeof(b));
}

static void put64(struct wbuf *w, uint64_t v)
{
    put32(w, (int64_t)(uint32_t)(v >> 32));
    put32(w, (int64_t)(uint32_t)v);
}

/* ser_key.c: magic, enctype, length, contents, magic. */
static void put_keyblock(struct wbuf *w, int32_t enctype, const uint8_t *key,
                         size_t len)
{
    put32(w, KV5M_KEYBLOCK);
    put32(w, enctype);
    put32(w, (int64_t)len);
    put_bytes(w, key, len);
    put32(w, KV5M_KEYBLOCK);
}

/* ser_princ.c: magic, length, unparsed name, magic. */
static void put_principal(struct wbuf *w, const char *name)
{
    size_t n = strlen(name);

    put32(w, KV5M_PRINCIPAL);
    put32(w, (int64_t)n);
    put_bytes(w, name, n);
    put32(w, KV5M_PRINCIPAL);
}

static int32_t mandatory_cksumtype(int32_t enctype)
{
    switch (enctype) {
    case 17:
        return 15; /* hmac-sha1-96-aes128 */
    case 18:
        return 16; /* hmac-sha1-96-aes256 */
    case 19:
        return 19; /* hmac-sha256-128-aes128 */
    case 20:
        return 20; /* hmac-sha384-192-aes256 */
    case 25:
        return 17; /* cmac-camellia128 */
    case 26:
        return 18; /* cmac-camellia256 */
    case 16:
        return 12; /* hmac-sha1-des3-kd */
    default:
        return 0;
    }
}

int mit_ctx_token(const struct mit_ctx_params *p, uint8_t **out,
                  size_t *out_len)
{
    static const uint8_t krb5_oid[] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                       0x12, 0x01, 0x02, 0x02};
    /* Neither replay nor sequence detection: gk5's window starts at the
     * first authenticated token while MIT's starts at recv_seq, so their
     * supplementary bits differ by design; the differential target compares
     * accept/reject and plaintext. */
    const OM_uint32 gss_flags = GSS_C_MUTUAL_FLAG | GSS_C_CONF_FLAG |
                                GSS_C_INTEG_FLAG | GSS_C_TRANS_FLAG;
    const int des3 = p->enctype == 16 || p->enctype == 6;
    const int32_t cksumtype = mandatory_cksumtype(des3 ? 16 : p->enctype);
    struct mit_seqstate seq;
    struct wbuf w = {NULL, 0, 0, 0};
    uint8_t seed[16] = {0};

    *out = NULL;
    *out_len = 0;
    if (cksumtype == 0 || (des3 && p->acceptor_subkey) ||
        (p->acceptor_subkey && p->other_key == NULL)) {
        return -1;
    }

    /* mechglue: OID length and OID */
    put32(&w, (int64_t)sizeof(krb5_oid));
    put_bytes(&w, krb5_oid, sizeof(krb5_oid));

    /* kg_ctx_internalize: fixed part */
    put32(&w, MIT_KG_CONTEXT);
    put32(&w, p->initiator ? 1 : 0);       /* initiate */
    put32(&w, 1);                          /* established */
    put32(&w, p->acceptor_subkey ? 1 : 0); /* have_acceptor_subkey */
    put32(&w, 0);                          /* seed_init */
    put32(&w, (int64_t)gss_flags);
    put_bytes(&w, seed, sizeof(seed));
    put32(&w, des3 ? MIT_SGN_ALG_HMAC_SHA1_DES3_KD : -1); /* signalg */
    put32(&w, des3 ? 20 : 0);                             /* cksum_size */
    put32(&w, des3 ? MIT_SEAL_ALG_DES3KD : -1);           /* sealalg */
    put32(&w, 0);                                         /* authtime */
    put32(&w, 0);                                         /* starttime */
    put32(&w, (int64_t)0xffffffffu); /* endtime: never (unsigned) */
    put32(&w, 0);                    /* renew_till */
    put32(&w, 0);                    /* krb_flags */
    put64(&w, p->send_seq);
    put64(&w, p->recv_seq);

    /* mech_used */
    put32(&w, KV5M_GSS_OID);
    put32(&w, (int64_t)sizeof(krb5_oid));
    put_bytes(&w, krb5_oid, sizeof(krb5_oid));
    put32(&w, KV5M_GSS_OID);

    /* here, there (the initiator's name must be present) */
    put_principal(&w, p->initiator ? "client@GK5.FUZZ" : "host/fuzz@GK5.FUZZ");
    put_principal(&w, p->initiator ? "host/fuzz@GK5.FUZZ" : "client@GK5.FUZZ");

    /* subkey: the session key or initiator subkey.  enc and seq: what
     * kg_setup_keys() makes (copies as des3-cbc-raw for DES3, absent for
     * RFC 4121). */
    if (p->acceptor_subkey) {
        put_keyblock(&w, p->enctype, p->other_key, p->key_len);
    } else {
        put_keyblock(&w, des3 ? 16 : p->enctype, p->key, p->key_len);
    }
    if (des3) {
        put_keyblock(&w, MIT_ENCTYPE_DES3_CBC_RAW, p->key, p->key_len);
        put_keyblock(&w, MIT_ENCTYPE_DES3_CBC_RAW, p->key, p->key_len);
    }

    /* seqstate */
    memset(&seq, 0, sizeof(seq));
    seq.do_replay = 0;
    seq.do_sequence = 0;
    seq.seqmask = des3 ? UINT32_MAX : UINT64_MAX;
    seq.base = p->recv_seq;
    put32(&w, KV5M_GSS_QUEUE);
    put_bytes(&w, &seq, sizeof(seq));
    put32(&w, KV5M_GSS_QUEUE);

    /* krb5_context: no realm, no tgs enctypes, clockskew, kdc default
     * options, library options, profile_secure, fcc format; no os context,
     * no profile. */
    put32(&w, KV5M_CONTEXT);
    put32(&w, 0);
    put32(&w, 0);
    put32(&w, 300);
    put32(&w, 0);
    put32(&w, 0);
    put32(&w, 0);
    put32(&w, 0x0504);
    put32(&w, KV5M_CONTEXT);

    /* auth_context: flags, remote and local seq, req and safe cksumtype,
     * empty cstate; no addresses, keys or authenticator. */
    put32(&w, KV5M_AUTH_CONTEXT);
    put32(&w, 0);
    put32(&w, (int64_t)(uint32_t)p->recv_seq);
    put32(&w, (int64_t)(uint32_t)p->send_seq);
    put32(&w, 0);
    put32(&w, 0);
    put32(&w, 0);
    put32(&w, KV5M_AUTH_CONTEXT);

    put32(&w, des3 ? 0 : 1); /* proto */
    put32(&w, cksumtype);    /* cksumtype (of subkey) */
    if (p->acceptor_subkey) {
        put_keyblock(&w, p->enctype, p->key, p->key_len);
    }
    put32(&w, p->acceptor_subkey ? cksumtype : 0);
    put32(&w, 0);              /* cred_rcache */
    put32(&w, 0);              /* authdata count */
    put32(&w, MIT_KG_CONTEXT); /* trailer */

    if (w.failed) {
        free(w.p);
        return -1;
    }
    *out = w.p;
    *out_len = w.len;
    return 0;
}

OM_uint32 mit_ctx_import(const struct mit_ctx_params *p, gss_ctx_id_t *ctx)
{
    OM_uint32 major, minor;
    gss_buffer_desc tok;
    uint8_t *buf = NULL;
    size_t len = 0;

    *ctx = GSS_C_NO_CONTEXT;
    if (mit_ctx_token(p, &buf, &len) != 0) {
        return GSS_S_FAILURE;
    }
    tok.value = buf;
    tok.length = len;
    major = gss_import_sec_context(&minor, &tok, ctx);
    free(buf);
    return major;
}
