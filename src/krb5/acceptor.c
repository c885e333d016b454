/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The acceptor: RFC 4121 4.1 over RFC 4120 3.2.  One AP-REQ in, one
 * gk5_ctx and the AP-REP (or a KRB-ERROR) out, in one call.
 *
 * The order of the checks (docs/design.md, "The acceptor"):
 *   framing and TOK_ID -> AP-REQ (DER) -> ap-options -> the ticket's
 *   enctype (rc4 and DES refused here, RFC 8429) -> the keytab key ->
 *   EncTicketPart (usage 2) -> the session key's enctype ->
 *   Authenticator (usage 11) -> client match -> clock skew, ticket times
 *   and the INVALID flag -> transited -> the authenticator checksum
 *   (0x8003: bindings, flags, DCE style) -> the replay cache -> subkeys,
 *   the AP-REP (usage 12) and the context.
 * Everything is checked before anything is kept: the replay cache stores
 * an authenticator only after every check of its content passed, and the
 * context exists only when the call succeeds.  Decoded fields are views
 * into the token and into one scratch buffer holding the decrypted parts,
 * wiped before return.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/bytes.h"
#include "../common/trace.h"
#include "../mech/gss_framing.h"
#include "../mech/mech_int.h"
#include "krb5_int.h"
#include "pac.h"

/* RFC 4120 7.5.1 key usages. */
#define KU_TICKET 2
#define KU_AP_REQ_AUTH_CKSUM 10
#define KU_AP_REQ_AUTH 11
#define KU_AP_REP_ENCPART 12

/* RFC 4121 4.1: TOK_ID of the establishment tokens. */
#define TOK_AP_REQ 0x0100u
#define TOK_AP_REP 0x0200u
#define TOK_ERROR 0x0300u

/* RFC 4121 4.1.1: the authenticator checksum type and its flags. */
#define CKSUMTYPE_GSSAPI 0x8003
#define GSS_CKSUM_MIN 24 /* Lgth, Bnd, Flags */
#define GSS_CKSUM_BND_LEN 16

/* RFC 4120 7.5.9 error codes the acceptor answers with. */
#define KDC_ERR_POLICY 12
#define KDC_ERR_ETYPE_NOSUPP 14
#define KRB_AP_ERR_BAD_INTEGRITY 31
#define KRB_AP_ERR_TKT_EXPIRED 32
#define KRB_AP_ERR_TKT_NYV 33
#define KRB_AP_ERR_REPEAT 34
#define KRB_AP_ERR_NOT_US 35
#define KRB_AP_ERR_BADMATCH 36
#define KRB_AP_ERR_SKEW 37
#define KRB_AP_ERR_BADVERSION 39
#define KRB_AP_ERR_MSG_TYPE 40
#define KRB_AP_ERR_MODIFIED 41
#define KRB_AP_ERR_BADKEYVER 44
#define KRB_AP_ERR_NOKEY 45
#define KRB_AP_ERR_METHOD 48
#define KRB_AP_ERR_INAPP_CKSUM 50
#define KRB_ERR_GENERIC 60

/* The most enctypes read from an RFC 4537 list. */
#define ETYPE_LIST_MAX 32
/* Decrypted ticket and authenticator parts up to this size stay on the
 * stack; a larger ticket (a PAC with many groups) is decrypted on the
 * heap. */
#define SCRATCH_STACK 3072

/* What one accept works on; everything wiped at the end. */
struct accept_state {
    enum gk5i_frame_mech mech;
    struct gk5i_krb_ap_req req;
    bool have_req; /* req decoded: a KRB-ERROR can name the service */
    struct gk5i_krb_enc_tkt_part tkt;
    struct gk5i_krb_authenticator auth;
    const struct gk5_enctype *tkt_et; /* the ticket's encryption */
    struct gk5i_subkeys pac_sk;       /* its key's, usage 17 (the PAC's) */
    const struct gk5_enctype *ses_et; /* the session key's */
    struct gk5i_subkeys ses_sk[2];    /* usages 11 and 12 */
    uint8_t *tkt_plain, *auth_plain;  /* into scratch or heap */
    size_t tkt_plain_cap, auth_plain_cap;
    bool tkt_heap, auth_heap;
    uint32_t gss_flags;
    bool deleg_offered; /* the 0x8003 checksum carried a KRB-CRED */
    uint64_t peer_seq;
    /* the context's key */
    const struct gk5_enctype *ctx_et;
    uint8_t ctx_key[GK5_MAX_KEY_BYTES];
    bool acceptor_subkey;
    uint32_t acc_seq;
};

/* The KRB-ERROR code for a refusal. */
static int32_t krb_error_code(uint32_t err)
{
    switch (GK5_ERR_CODE(err)) {
    case GK5_ERR_AP_WRONG_PRINC:
        return KRB_AP_ERR_NOT_US;
    case GK5_ERR_AP_BADKEYVER:
        return KRB_AP_ERR_BADKEYVER;
    case GK5_ERR_AP_NOKEY:
        return KRB_AP_ERR_NOKEY;
    case GK5_ERR_AP_MODIFIED:
        return KRB_AP_ERR_MODIFIED;
    case GK5_ERR_AP_SKEW:
        return KRB_AP_ERR_SKEW;
    case GK5_ERR_AP_TKT_EXPIRED:
        return KRB_AP_ERR_TKT_EXPIRED;
    case GK5_ERR_AP_TKT_NYV:
        return KRB_AP_ERR_TKT_NYV;
    case GK5_ERR_AP_BADMATCH:
        return KRB_AP_ERR_BADMATCH;
    case GK5_ERR_AP_REPEAT:
    case GK5_ERR_AP_BEFORE_START:
    case GK5_ERR_RCACHE_FULL:
        return KRB_AP_ERR_REPEAT;
    case GK5_ERR_AP_TRANSITED:
        return KDC_ERR_POLICY;
    case GK5_ERR_AP_USER_TO_USER:
        return KRB_AP_ERR_METHOD;
    case GK5_ERR_AP_CHECKSUM:
        return KRB_AP_ERR_INAPP_CKSUM;
    case GK5_ERR_AP_BINDINGS:
        return KRB_AP_ERR_BAD_INTEGRITY;
    case GK5_ERR_ENCTYPE_UNKNOWN:
    case GK5_ERR_ENCTYPE_REJECTED:
    case GK5_ERR_ENCTYPE_NOT_BUILT:
    case GK5_ERR_AP_NO_ENCTYPE:
        return KDC_ERR_ETYPE_NOSUPP;
    case GK5_ERR_KRB_MSG_TYPE:
        return KRB_AP_ERR_MSG_TYPE;
    case GK5_ERR_DER:
    case GK5_ERR_DER_LIMIT:
        return KRB_AP_ERR_BADVERSION;
    default:
        return KRB_ERR_GENERIC;
    }
}

/* A framed token of TOK_ID tok_id around inner[0..len) into out
 * (malloc'd, as gk5_buffer_release frees). */
static uint32_t frame_token(enum gk5i_frame_mech mech, uint16_t tok_id,
                            const uint8_t *inner, size_t len, gk5_buffer *out)
{
    size_t total = gk5i_frame_token_bytes(2 + len), off;
    uint8_t *p;

    if (total == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = malloc(total);
    if (p == NULL) {
        return GK5_ERR_NOMEM;
    }
    off = gk5i_frame_put_mech(p, 2 + len, mech);
    store_be16(p + off, tok_id);
    memcpy(p + off + 2, inner, len);
    out->value = p;
    out->length = total;
    return GK5_OK;
}

/* RFC 4121 4.1 (and RFC 4120 3.2.6): the KRB-ERROR an initiator waiting
 * for an AP-REP gets.  For KRB_AP_ERR_SKEW its stime lets the initiator
 * see the server's clock.  Best effort: on failure out stays empty. */
static void error_token(const struct accept_state *st, uint32_t err,
                        int64_t now, uint32_t now_usec, gk5_buffer *out)
{
    struct gk5i_krb_error e;
    uint8_t *buf = NULL;
    size_t len = 0;

    memset(&e, 0, sizeof(e));
    e.stime = now;
    e.susec = now_usec;
    e.error_code = krb_error_code(err);
    e.realm = st->req.ticket.realm;
    e.sname = st->req.ticket.sname;
    if (gk5i_encode_krb_error(&e, NULL, 0, &len) != GK5_OK) {
        return;
    }
    buf = malloc(len);
    if (buf == NULL) {
        return;
    }
    if (gk5i_encode_krb_error(&e, buf, len, &len) == GK5_OK) {
        (void)frame_token(st->mech, TOK_ERROR, buf, len, out);
    }
    free(buf);
}

/* Room for a decrypted part: the stack buffer when it fits, else the
 * heap. */
static uint8_t *plain_buffer(uint8_t *stack, size_t stack_len, size_t need,
                             bool *heap)
{
    *heap = need > stack_len;
    return *heap ? gk5i_zalloc(need) : stack;
}

/* An EncryptedData of the request opened under uk into plain (room for
 * its cipher); one that does not verify is AP_MODIFIED. */
static uint32_t open_part(gk5_ukey *uk, const struct gk5_enctype *et,
                          const struct gk5i_krb_enc_data *enc, uint8_t *plain,
                          size_t *len)
{
    uint32_t err = gk5i_enc_data_open(uk, et, enc->cipher, plain, len);

    return err == GK5_ERR_INTEGRITY ? GK5_ERR_AP_MODIFIED : err;
}

uint32_t gk5i_bindings_md5(const gk5_channel_bindings *cb, uint8_t out[16])
{
    uint8_t f[5][4];
    struct gk5i_md5_seg seg[8];

    if (cb == NULL) {
        memset(out, 0, 16);
        return GK5_OK;
    }
    store_le32(f[0], cb->initiator_addrtype);
    store_le32(f[1], (uint32_t)cb->initiator_address.length);
    store_le32(f[2], cb->acceptor_addrtype);
    store_le32(f[3], (uint32_t)cb->acceptor_address.length);
    store_le32(f[4], (uint32_t)cb->application_data.length);
    seg[0] = (struct gk5i_md5_seg){f[0], 4};
    seg[1] = (struct gk5i_md5_seg){f[1], 4};
    seg[2] = (struct gk5i_md5_seg){cb->initiator_address.value,
                                   cb->initiator_address.length};
    seg[3] = (struct gk5i_md5_seg){f[2], 4};
    seg[4] = (struct gk5i_md5_seg){f[3], 4};
    seg[5] = (struct gk5i_md5_seg){cb->acceptor_address.value,
                                   cb->acceptor_address.length};
    seg[6] = (struct gk5i_md5_seg){f[4], 4};
    seg[7] = (struct gk5i_md5_seg){cb->application_data.value,
                                   cb->application_data.length};
    return gk5i_md5(seg, GK5_ARRAY_SIZE(seg), out);
}

/* RFC 4121 4.1.1: the authenticator checksum.  With the 0x8003 type:
 * Lgth 16, the binding hash (compared when the acceptor has bindings and
 * the initiator sent some: MIT and Heimdal initiators without bindings
 * send zeros), the flags; a delegation (DlgOpt 1, a KRB-CRED) is skipped
 * and the flag cleared, as gk5 does not take delegated credentials.
 * Without a checksum (MS-KILE 3.4.5.2.1 allows it) no flags are asked
 * for; another type must be the session key's own keyed checksum over no
 * data (RFC 4120 5.5.1), as raw-krb5 peers send it and MIT takes it: an
 * unkeyed checksum would let anyone choose the flags. */
static uint32_t check_gss_checksum(struct accept_state *st,
                                   const gk5_channel_bindings *cb,
                                   const uint8_t *ses_key)
{
    const struct gk5i_krb_checksum *ck = &st->auth.cksum;
    struct gk5i_rd r;
    uint32_t lgth, flags, err;
    const uint8_t *bnd;

    if (!st->auth.has_cksum) {
        st->gss_flags = 0;
        return GK5_OK;
    }
    if (ck->cksumtype != CKSUMTYPE_GSSAPI) {
        if (ck->cksumtype != st->ses_et->cksumtype) {
            return GK5_ERR_AP_CHECKSUM;
        }
        err = gk5_c_verify_checksum(st->ses_et->num, ses_key,
                                    st->ses_et->key_bytes, KU_AP_REQ_AUTH_CKSUM,
                                    "", 0, ck->value.p, ck->value.len);
        if (err == GK5_ERR_INTEGRITY) {
            return GK5_ERR_AP_MODIFIED;
        }
        if (err != GK5_OK) {
            return err;
        }
        st->gss_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                        GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG;
        return GK5_OK;
    }
    if (ck->value.len < GSS_CKSUM_MIN) {
        return GK5_ERR_AP_CHECKSUM;
    }
    gk5i_rd_init(&r, ck->value.p, ck->value.len);
    lgth = load_le32(gk5i_get_bytes(&r, 4));
    bnd = gk5i_get_bytes(&r, GSS_CKSUM_BND_LEN);
    flags = load_le32(gk5i_get_bytes(&r, 4));
    if (lgth != GSS_CKSUM_BND_LEN) {
        return GK5_ERR_AP_CHECKSUM;
    }
    if ((flags & GK5_C_DCE_STYLE) != 0) {
        return GK5_ERR_AP_DCE_STYLE;
    }
    if (cb != NULL) {
        static const uint8_t zero[GSS_CKSUM_BND_LEN];
        uint8_t want[GK5_MD5_BYTES];

        /* Public values (a hash of public addresses), but compared in
         * constant time all the same. */
        if (!gk5i_equal_ct(bnd, zero, GSS_CKSUM_BND_LEN)) {
            err = gk5i_bindings_md5(cb, want);
            if (err != GK5_OK) {
                return err;
            }
            if (!gk5i_equal_ct(bnd, want, GSS_CKSUM_BND_LEN)) {
                return GK5_ERR_AP_BINDINGS;
            }
        }
    }
    if ((flags & GK5_C_DELEG_FLAG) != 0) {
        /* DlgOpt (16 bits, 1), Dlgth (16 bits), the KRB-CRED: well-formed
         * lengths, but the credential itself is not taken. */
        uint16_t dlgopt, dlgth;
        const uint8_t *p = gk5i_get_bytes(&r, 4);

        if (p == NULL) {
            return GK5_ERR_AP_CHECKSUM;
        }
        dlgopt = load_le16(p);
        dlgth = load_le16(p + 2);
        if (dlgopt != 1 || gk5i_get_bytes(&r, dlgth) == NULL) {
            return GK5_ERR_AP_CHECKSUM;
        }
        flags &= ~GK5_C_DELEG_FLAG;
        st->deleg_offered = true;
    }
    st->gss_flags =
        flags & (GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                 GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG | GK5_C_IDENTIFY_FLAG);
    return GK5_OK;
}

/* RFC 4537: the first enctype of the initiator's list (in an
 * AD-IF-RELEVANT element of the authenticator) that gk5 makes RFC 4121
 * contexts with; NULL when there is no list or no such enctype. */
static uint32_t negotiated_enctype(const struct accept_state *st,
                                   const struct gk5_enctype **out)
{
    size_t pos = 0;
    bool more = true;

    *out = NULL;
    while (more) {
        struct gk5i_view data, idata;
        int32_t type, itype;
        size_t ipos = 0;
        bool imore = true;
        uint32_t err;

        err = gk5i_authz_next(st->auth.authorization_data, &pos, &more, &type,
                              &data);
        if (err != GK5_OK) {
            return err;
        }
        if (!more || type != GK5I_AD_IF_RELEVANT) {
            continue;
        }
        while (imore) {
            int32_t list[ETYPE_LIST_MAX];
            size_t n = 0;

            err = gk5i_authz_next(data, &ipos, &imore, &itype, &idata);
            if (err != GK5_OK) {
                return err;
            }
            if (!imore || itype != GK5I_AD_GSS_API_ETYPE_NEGOTIATION) {
                continue;
            }
            err = gk5i_decode_etype_list(idata, list, ETYPE_LIST_MAX, &n);
            if (err != GK5_OK) {
                return err;
            }
            for (size_t i = 0; i < n; i++) {
                const struct gk5_enctype *et = NULL;

                if (gk5i_enctype_usable(list[i], &et) == GK5_OK &&
                    !et->rfc1964) {
                    *out = et;
                    return GK5_OK;
                }
            }
            return GK5_ERR_AP_NO_ENCTYPE;
        }
    }
    return GK5_OK;
}

/* The context's key: RFC 4121 2 says the acceptor subkey when there is
 * one, else the initiator's subkey, else the session key.  With mutual
 * authentication an RFC 4121 context gets a fresh acceptor subkey (of the
 * negotiated enctype, else the initiator subkey's), as MIT's acceptor
 * does; RFC 1964 (DES3) contexts never do. */
static uint32_t choose_key(struct accept_state *st, bool mutual,
                           const uint8_t *ses_key)
{
    const struct gk5_enctype *base_et = st->ses_et, *neg = NULL;
    const uint8_t *base = ses_key;
    uint8_t rnd[GK5_MAX_KEY_BYTES];
    uint32_t err;

    if (st->auth.has_subkey) {
        err = gk5i_enctype_usable(st->auth.subkey.keytype, &base_et);
        if (err != GK5_OK) {
            return err;
        }
        if (st->auth.subkey.value.len != base_et->key_bytes) {
            return GK5_ERR_DER;
        }
        base = st->auth.subkey.value.p;
    }
    st->ctx_et = base_et;
    memcpy(st->ctx_key, base, base_et->key_bytes);
    if (!mutual || base_et->rfc1964) {
        return GK5_OK;
    }
    err = negotiated_enctype(st, &neg);
    if (err != GK5_OK) {
        return err;
    }
    st->ctx_et = neg != NULL ? neg : base_et;
    err = gk5i_pooled_confounder(rnd, st->ctx_et->keygen_bytes, NULL);
    if (err == GK5_OK) {
        err =
            gk5_c_random_to_key(st->ctx_et->num, rnd, st->ctx_et->keygen_bytes,
                                st->ctx_key, st->ctx_et->key_bytes);
    }
    zap(rnd, sizeof(rnd));
    if (err != GK5_OK) {
        return err;
    }
    st->acceptor_subkey = true;
    return GK5_OK;
}

/* RFC 4120 5.5.2: the AP-REP, its EncAPRepPart under the session key
 * (usage 12), framed as TOK_ID 02 00. */
static uint32_t make_ap_rep(struct accept_state *st, gk5_buffer *out)
{
    struct gk5i_krb_enc_ap_rep_part part;
    struct gk5i_krb_ap_rep rep;
    const struct gk5_enctype *et = st->ses_et;
    gk5_ukey *uk = NULL;
    uint8_t *enc = NULL, *der = NULL;
    size_t plen = 0, enc_len = 0, der_len = 0;
    uint32_t err;

    memset(&part, 0, sizeof(part));
    part.ctime = st->auth.ctime;
    part.cusec = st->auth.cusec;
    if (st->acceptor_subkey) {
        part.has_subkey = true;
        part.subkey.keytype = st->ctx_et->num;
        part.subkey.value.p = st->ctx_key;
        part.subkey.value.len = st->ctx_et->key_bytes;
    }
    part.has_seq_number = true;
    part.seq_number = st->acc_seq;
    err = gk5i_encode_enc_ap_rep_part(&part, NULL, 0, &plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    enc_len = gk5i_enc_data_size(et, plen);
    enc = gk5i_zalloc(enc_len);
    if (enc == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = gk5i_encode_enc_ap_rep_part(&part, enc + et->conf_bytes, plen, &plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_ukey_new(et, &st->ses_sk[1], &uk);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = gk5i_enc_data_seal(uk, et, enc, plen);
    if (err != GK5_OK) {
        goto cleanup;
    }
    memset(&rep, 0, sizeof(rep));
    rep.enc_part.etype = et->num;
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = enc_len;
    err = gk5i_encode_ap_rep(&rep, NULL, 0, &der_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    der = gk5i_zalloc(der_len);
    if (der == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = gk5i_encode_ap_rep(&rep, der, der_len, &der_len);
    if (err != GK5_OK) {
        goto cleanup;
    }
    err = frame_token(st->mech, TOK_AP_REP, der, der_len, out);
cleanup:
    gk5i_ukey_free(uk);
    gk5i_clear_free(enc, enc_len);
    gk5i_free(der);
    return err;
}

/* RFC 4120 3.2.3: times.  The authenticator's within the skew of ours;
 * the ticket started (within the skew), not ended (within the skew), not
 * marked invalid (a postdated ticket the KDC has not validated). */
static uint32_t check_times(const struct accept_state *st, int64_t now,
                            int64_t skew)
{
    int64_t start =
        st->tkt.has_starttime ? st->tkt.starttime : st->tkt.authtime;

    if (st->auth.ctime > now + skew || st->auth.ctime < now - skew) {
        return GK5_ERR_AP_SKEW;
    }
    if ((st->tkt.flags & GK5I_TKT_FLG_INVALID) != 0 || start - skew > now) {
        return GK5_ERR_AP_TKT_NYV;
    }
    if (now - skew > st->tkt.endtime) {
        return GK5_ERR_AP_TKT_EXPIRED;
    }
    return GK5_OK;
}

/* Decrypt and decode the ticket (keytab key, usage 2). */
static uint32_t open_ticket(gk5_acceptor_cred *cred, struct accept_state *st,
                            uint8_t *stack, size_t stack_len, int64_t now)
{
    const struct gk5i_krb_ticket *t = &st->req.ticket;
    gk5_ukey *uk = NULL;
    size_t len = 0;
    uint32_t err;

    /* The table's verdict on the ticket's enctype first: rc4 and DES
     * tickets are refused by name (RFC 8429), not as a missing key. */
    err = gk5i_enctype_usable(t->enc_part.etype, &st->tkt_et);
    if (err != GK5_OK) {
        return err;
    }
    err = gk5i_cred_ticket_key(cred, t->realm, &t->sname, t->enc_part.has_kvno,
                               t->enc_part.kvno, t->enc_part.etype, now, &uk,
                               &st->pac_sk);
    if (err != GK5_OK) {
        return err;
    }
    st->tkt_plain_cap = t->enc_part.cipher.len;
    st->tkt_plain =
        plain_buffer(stack, stack_len, st->tkt_plain_cap, &st->tkt_heap);
    if (st->tkt_plain == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = open_part(uk, st->tkt_et, &t->enc_part, st->tkt_plain, &len);
    if (err == GK5_OK) {
        err = gk5i_decode_enc_tkt_part(st->tkt_plain, len, &st->tkt);
    }
cleanup:
    gk5i_ukey_free(uk);
    return err;
}

/* Check the session key, derive its usage 11 and 12 keys, decrypt and
 * decode the authenticator. */
static uint32_t open_authenticator(struct accept_state *st, uint8_t *stack,
                                   size_t stack_len)
{
    static const uint32_t usages[2] = {KU_AP_REQ_AUTH, KU_AP_REP_ENCPART};
    const struct gk5i_krb_enc_data *enc = &st->req.authenticator;
    gk5_ukey *uk = NULL;
    size_t len = 0;
    uint32_t err;

    err = gk5i_enctype_usable(st->tkt.key.keytype, &st->ses_et);
    if (err != GK5_OK) {
        return err;
    }
    if (st->tkt.key.value.len != st->ses_et->key_bytes) {
        return GK5_ERR_DER;
    }
    if (enc->etype != st->ses_et->num) {
        return GK5_ERR_AP_MODIFIED;
    }
    err =
        gk5i_derive_subkeys_many(st->ses_et, st->tkt.key.value.p,
                                 st->tkt.key.value.len, usages, 2, st->ses_sk);
    if (err != GK5_OK) {
        return err;
    }
    err = gk5i_ukey_new(st->ses_et, &st->ses_sk[0], &uk);
    if (err != GK5_OK) {
        return err;
    }
    st->auth_plain_cap = enc->cipher.len;
    st->auth_plain =
        plain_buffer(stack, stack_len, st->auth_plain_cap, &st->auth_heap);
    if (st->auth_plain == NULL) {
        err = GK5_ERR_NOMEM;
        goto cleanup;
    }
    err = open_part(uk, st->ses_et, enc, st->auth_plain, &len);
    if (err == GK5_OK) {
        err = gk5i_decode_authenticator(st->auth_plain, len, &st->auth);
    }
cleanup:
    gk5i_ukey_free(uk);
    return err;
}

/* The context, keyed with ctx_key; its receive window expects the
 * initiator's number, its counter starts at ours. */
static uint32_t make_context(struct accept_state *st, bool mutual,
                             gk5_ctx **out)
{
    uint32_t ctxflags = 0, options = 0, endtime;
    uint64_t send_seq = mutual ? st->acc_seq : st->peer_seq;
    gk5_ctx *ctx = NULL;
    uint32_t err;

    if (!st->ctx_et->rfc1964) {
        ctxflags |= GK5_CTXF_CFX;
    }
    if (st->acceptor_subkey) {
        ctxflags |= GK5_CTXF_ACCEPTOR_SUBKEY;
    }
    if (st->tkt.endtime <= 0) {
        endtime = 1;
    } else if (st->tkt.endtime > (int64_t)UINT32_MAX) {
        endtime = UINT32_MAX;
    } else {
        endtime = (uint32_t)st->tkt.endtime;
    }
    err = gk5i_ctx_new(st->ctx_et->num, ctxflags, endtime, send_seq,
                       st->ctx_key, st->ctx_et->key_bytes, &ctx);
    if (err != GK5_OK) {
        return err;
    }
    if ((st->gss_flags & GK5_C_REPLAY_FLAG) != 0) {
        options |= GK5_CTX_REPLAY;
    }
    if ((st->gss_flags & GK5_C_SEQUENCE_FLAG) != 0) {
        options |= GK5_CTX_SEQUENCE;
    }
    atomic_store(&ctx->options, options);
    gk5i_seq_set(&ctx->recv, true, st->peer_seq, 0);
    *out = ctx;
    return GK5_OK;
}

static uint32_t fill_info(const struct accept_state *st, bool mutual,
                          gk5_accept_info *info)
{
    uint32_t err;

    err = gk5i_principal_unparse(st->tkt.crealm, &st->tkt.cname,
                                 &info->initiator);
    if (err == GK5_OK) {
        err = gk5i_principal_unparse(st->req.ticket.realm,
                                     &st->req.ticket.sname, &info->acceptor);
    }
    if (err != GK5_OK) {
        return err;
    }
    /* MUTUAL is what the ap-options asked for and the AP-REP answered,
     * not the 0x8003 flag: an initiator that sets only the flag gets no
     * AP-REP, so no mutual authentication took place. */
    info->gss_flags = (st->gss_flags & ~GK5_C_MUTUAL_FLAG) | GK5_C_TRANS_FLAG |
                      (mutual ? GK5_C_MUTUAL_FLAG : 0);
    info->ticket_flags = st->tkt.flags;
    info->ticket_enctype = st->tkt_et->num;
    info->session_enctype = st->ses_et->num;
    info->context_enctype = st->ctx_et->num;
    info->authtime = st->tkt.authtime;
    info->starttime =
        st->tkt.has_starttime ? st->tkt.starttime : st->tkt.authtime;
    info->endtime = st->tkt.endtime;
    info->renew_till = st->tkt.has_renew_till ? st->tkt.renew_till : 0;
    if (st->tkt.authorization_data.len != 0) {
        info->authorization_data.value = malloc(st->tkt.authorization_data.len);
        if (info->authorization_data.value == NULL) {
            return GK5_ERR_NOMEM;
        }
        memcpy(info->authorization_data.value, st->tkt.authorization_data.p,
               st->tkt.authorization_data.len);
        info->authorization_data.length = st->tkt.authorization_data.len;
    }
    return GK5_OK;
}

static void trace_outcome(const struct accept_state *st, uint32_t err,
                          const gk5_ctx *ctx, size_t in_len)
{
    char words[256];

    if (err == GK5_OK) {
        gk5i_trace_import("accept", ctx, 0, in_len);
        return;
    }
    gk5i_trace_words(err, words, sizeof(words));
    if (st->have_req) {
        char *svc = NULL;

        if (gk5i_principal_unparse(st->req.ticket.realm, &st->req.ticket.sname,
                                   &svc) != GK5_OK) {
            svc = NULL;
        }
        gk5i_trace("accept: AP-REQ (%zu bytes) for %s, ticket enctype %d "
                   "kvno %u: refused: %s",
                   in_len, svc != NULL ? svc : "?",
                   (int)st->req.ticket.enc_part.etype,
                   (unsigned)st->req.ticket.enc_part.kvno, words);
        free(svc);
    } else {
        gk5i_trace("accept: token (%zu bytes) refused: %s", in_len, words);
    }
}

/* RFC 4121 4.1: the framing and TOK_ID, then the AP-REQ itself. */
static uint32_t read_ap_req(const gk5_buffer *in, struct accept_state *st)
{
    const uint8_t *p = in->value;
    size_t inner = 0;
    uint32_t err;

    /* A raw AP-REQ without the framing is what DCE-style peers send. */
    if (in->length > 0 && p[0] == (0x60u | 0x0e)) {
        return GK5_ERR_AP_DCE_STYLE;
    }
    err = gk5i_frame_parse_mech(p, in->length, in->length, &inner, &st->mech);
    if (err != GK5_OK) {
        return err;
    }
    if (in->length - inner < 2) {
        return GK5_ERR_TOKEN_TRUNCATED;
    }
    if (load_be16(p + inner) != TOK_AP_REQ) {
        return GK5_ERR_TOKEN_ID;
    }
    err = gk5i_decode_ap_req(p + inner + 2, in->length - inner - 2, &st->req);
    if (err != GK5_OK) {
        return err;
    }
    st->have_req = true;
    return GK5_OK;
}

/* The outputs of an accept, empty (also when the call then fails). */
static void clear_outputs(gk5_buffer *out, gk5_ctx **ctx, gk5_accept_info *info)
{
    if (info != NULL) {
        memset(info, 0, sizeof(*info)); /* not a wipe: the caller's, reset */
    }
    if (out != NULL) {
        out->length = 0;
        out->value = NULL;
    }
    if (ctx != NULL) {
        *ctx = NULL;
    }
}

/* The AP-REQ in, checked against cred at now: its ticket and
 * authenticator opened (their plaintext in the stack buffers when it
 * fits), the names, times, transited path and GSS checksum checked.
 * *mutual: whether the initiator asked for an AP-REP (known as soon as
 * the request parses, for the error token). */
static uint32_t check_request(gk5_acceptor_cred *cred, const gk5_buffer *in,
                              const gk5_channel_bindings *cb, int64_t now,
                              struct accept_state *st, uint8_t *tkt_stack,
                              uint8_t *auth_stack, size_t stack_len,
                              bool *mutual)
{
    uint32_t err = read_ap_req(in, st);

    if (err != GK5_OK) {
        return err;
    }
    *mutual = (st->req.ap_options & GK5I_AP_OPT_MUTUAL_REQUIRED) != 0;
    if ((st->req.ap_options & GK5I_AP_OPT_USE_SESSION_KEY) != 0) {
        return GK5_ERR_AP_USER_TO_USER;
    }
    err = open_ticket(cred, st, tkt_stack, stack_len, now);
    if (err == GK5_OK) {
        err = open_authenticator(st, auth_stack, stack_len);
    }
    if (err != GK5_OK) {
        return err;
    }
    /* RFC 4120 3.2.3: the client the authenticator names must be the
     * ticket's. */
    if (!gk5i_principal_equal(st->auth.crealm, &st->auth.cname, st->tkt.crealm,
                              &st->tkt.cname)) {
        return GK5_ERR_AP_BADMATCH;
    }
    err = check_times(st, now, cred->skew);
    if (err != GK5_OK) {
        return err;
    }
    /* RFC 4120 2.7: a path the KDC did not check is the server's to
     * check, against a realm policy gk5 has none of: refused. */
    if (st->tkt.transited_contents.len != 0 &&
        (st->tkt.flags & GK5I_TKT_FLG_TRANSIT_POLICY_CHECKED) == 0) {
        return GK5_ERR_AP_TRANSITED;
    }
    return check_gss_checksum(st, cb, st->tkt.key.value.p);
}

/* The checked request's answer: the context's key and sequence numbers,
 * the replay check (last of the checks), the AP-REP when mutual, the
 * context, and the initiator's description when info is asked for. */
static uint32_t answer_request(gk5_acceptor_cred *cred, struct accept_state *st,
                               bool mutual, int64_t now, gk5_buffer *out,
                               gk5_ctx **made, gk5_accept_info *got)
{
    uint32_t err;

    /* RFC 4121 4.1: without a seq-number in the authenticator the
     * initiator's first number is 0. */
    st->peer_seq = st->auth.has_seq_number ? st->auth.seq_number : 0;
    err = choose_key(st, mutual, st->tkt.key.value.p);
    if (err != GK5_OK) {
        return err;
    }
    if (mutual) {
        uint8_t rnd[4];

        err = gk5i_pooled_confounder(rnd, sizeof(rnd), NULL);
        if (err != GK5_OK) {
            return err;
        }
        /* 30 bits, as MIT: a number far from 2^32 either way. */
        st->acc_seq = load_be32(rnd) & 0x3fffffffu;
    }
    /* A replay?  The tag is the authenticator's MAC, which only a holder
     * of the session key could have made. */
    if (cred->rc != NULL) {
        const struct gk5i_view c = st->req.authenticator.cipher;
        size_t tag_len = st->ses_et->mac_bytes;

        err = gk5i_rcache_check_store(cred->rc, c.p + c.len - tag_len, tag_len,
                                      st->auth.ctime, st->auth.cusec,
                                      (time_t)now);
        if (err != GK5_OK) {
            return err;
        }
    }
    if (mutual) {
        err = make_ap_rep(st, out);
        if (err != GK5_OK) {
            return err;
        }
    }
    err = make_context(st, mutual, made);
    if (err == GK5_OK && got != NULL) {
        err = fill_info(st, mutual, got);
    }
    return err;
}

/* The keys and plaintexts an accept held, wiped; heap copies freed. */
static void wipe_state(struct accept_state *st)
{
    zap(st->ctx_key, sizeof(st->ctx_key));
    gk5i_subkeys_wipe(&st->pac_sk);
    gk5i_subkeys_wipe(&st->ses_sk[0]);
    gk5i_subkeys_wipe(&st->ses_sk[1]);
    if (st->tkt_plain != NULL) {
        zap(st->tkt_plain, st->tkt_plain_cap);
        if (st->tkt_heap) {
            gk5i_free(st->tkt_plain);
        }
    }
    if (st->auth_plain != NULL) {
        zap(st->auth_plain, st->auth_plain_cap);
        if (st->auth_heap) {
            gk5i_free(st->auth_plain);
        }
    }
}

/* The ticket's PAC and CAMMAC, as gk5i_accept_more tells them. */
static void names_verdict(const struct accept_state *st,
                          struct gk5i_accept_more *more)
{
    struct gk5i_authz_names names;
    struct gk5i_pac pac;

    if (gk5i_authz_names(st->tkt.authorization_data, &names) != GK5_OK ||
        names.npac > 1 || names.too_deep) {
        more->pac = GK5I_PAC_MALFORMED;
        return;
    }
    more->cammac = names.cammac;
    if (names.pac.p == NULL) {
        more->pac = GK5I_PAC_NONE;
        return;
    }
    more->pac_offset = (size_t)(names.pac.p - st->tkt.authorization_data.p);
    more->pac_len = names.pac.len;
    if (!gk5i_pac_parse(names.pac.p, names.pac.len, &pac)) {
        more->pac = GK5I_PAC_MALFORMED;
    } else if (gk5i_pac_verify(&pac, st->tkt_et, &st->pac_sk, st->tkt.authtime,
                               &st->tkt.cname)) {
        more->pac = GK5I_PAC_VERIFIED;
    } else {
        more->pac = GK5I_PAC_UNVERIFIED;
    }
}

/* gk5i_accept_at, and what gk5i_accept_more tells. */
static uint32_t accept_full(uint32_t *minor, gk5_acceptor_cred *cred,
                            const gk5_buffer *in,
                            const gk5_channel_bindings *cb, gk5_buffer *out,
                            gk5_ctx **ctx, gk5_accept_info *info, int64_t now,
                            uint32_t now_usec, struct gk5i_accept_more *more)
{
    uint8_t tkt_stack[SCRATCH_STACK], auth_stack[SCRATCH_STACK];
    struct accept_state st;
    gk5_accept_info got;
    gk5_ctx *made = NULL;
    bool mutual = false;
    uint32_t err;

    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = 0;
    memset(&st, 0, sizeof(st));
    memset(&got, 0, sizeof(got));
    clear_outputs(out, ctx, info);
    if (cred == NULL || in == NULL || out == NULL || ctx == NULL ||
        (in->value == NULL && in->length != 0)) {
        return gk5i_status(minor, GK5_ERR_INVALID_ARGUMENT);
    }
    err = check_request(cred, in, cb, now, &st, tkt_stack, auth_stack,
                        SCRATCH_STACK, &mutual);
    if (err == GK5_OK) {
        err = answer_request(cred, &st, mutual, now, out, &made,
                             info != NULL ? &got : NULL);
    }
    if (GK5_TRACE_ON()) {
        trace_outcome(&st, err, made, in->length);
    }
    if (err != GK5_OK) {
        gk5_ctx_free(made);
        gk5_accept_info_release(&got);
        gk5_buffer_release(out);
        if (st.have_req && mutual) {
            error_token(&st, err, now, now_usec, out);
        }
    } else {
        *ctx = made;
        if (info != NULL) {
            *info = got;
        }
        if (more != NULL) {
            more->deleg_offered = st.deleg_offered;
            names_verdict(&st, more);
        }
    }
    wipe_state(&st);
    return err == GK5_OK ? GK5_S_COMPLETE : gk5i_status(minor, err);
}

uint32_t gk5i_accept_at(uint32_t *minor, gk5_acceptor_cred *cred,
                        const gk5_buffer *in, const gk5_channel_bindings *cb,
                        gk5_buffer *out, gk5_ctx **ctx, gk5_accept_info *info,
                        int64_t now, uint32_t now_usec)
{
    return accept_full(minor, cred, in, cb, out, ctx, info, now, now_usec,
                       NULL);
}

uint32_t gk5i_accept_more(uint32_t *minor, gk5_acceptor_cred *cred,
                          const gk5_buffer *in, const gk5_channel_bindings *cb,
                          gk5_buffer *out, gk5_ctx **ctx, gk5_accept_info *info,
                          struct gk5i_accept_more *more)
{
    struct timespec ts;

    memset(more, 0, sizeof(*more));
    clock_gettime(CLOCK_REALTIME, &ts);
    return accept_full(minor, cred, in, cb, out, ctx, info, (int64_t)ts.tv_sec,
                       (uint32_t)(ts.tv_nsec / 1000), more);
}

GK5_EXPORT uint32_t gk5_accept(uint32_t *minor, gk5_acceptor_cred *cred,
                               const gk5_buffer *in,
                               const gk5_channel_bindings *cb, gk5_buffer *out,
                               gk5_ctx **ctx, gk5_accept_info *info)
{
    struct timespec ts;

    /* CLOCK_REALTIME through the vDSO: no system call. */
    clock_gettime(CLOCK_REALTIME, &ts);
    return gk5i_accept_at(minor, cred, in, cb, out, ctx, info,
                          (int64_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000));
}

GK5_EXPORT void gk5_accept_info_release(gk5_accept_info *info)
{
    if (info == NULL) {
        return;
    }
    free(info->initiator);
    free(info->acceptor);
    /* The PAC may name groups: wiped like any output. */
    gk5_buffer_release(&info->authorization_data);
    zap(info, sizeof(*info));
}
