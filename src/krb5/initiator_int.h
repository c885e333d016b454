/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the initiator's rooms share: the initiator itself and its states,
 * and the calls each leg makes.  initiator.c making one (from a ticket,
 * or from the cache and the KDC), stepping, finishing and freeing it;
 * initiator_ap_req.c the first leg (the authenticator, the AP-REQ);
 * initiator_ap_rep.c the second leg (the acceptor's AP-REP or KRB-ERROR);
 * initiator_state.c the pending state as bytes (gk5_initiator_save,
 * gk5_initiator_load).
 */
#ifndef GK5_KRB5_INITIATOR_INT_H
#define GK5_KRB5_INITIATOR_INT_H

#include "krb5_int.h"

/* RFC 4121 4.1.1: the Bnd field of the authenticator checksum (the
 * channel bindings' MD5). */
#define GSS_CKSUM_BND_LEN 16

/* The most enctypes offered in the RFC 4537 list (gk5_initiator_opts). */
#define ETYPES_MAX 16

enum init_state {
    ST_START,    /* the AP-REQ not yet made */
    ST_WAIT_REP, /* mutual: the AP-REQ sent, waiting for the AP-REP */
    ST_DONE,     /* the context is made, not yet taken */
    ST_TAKEN,    /* gk5_initiator_finish gave it away */
};

struct gk5_initiator {
    enum init_state state;
    bool mutual;
    uint32_t cksum_flags; /* the 0x8003 Flags field */
    uint32_t ctx_options; /* GK5_CTX_REPLAY | GK5_CTX_SEQUENCE */
    uint32_t endtime;     /* the ticket's: the context's expiry */
    uint8_t bnd[GSS_CKSUM_BND_LEN];
    size_t n_etypes; /* the RFC 4537 list (sent with mutual only) */
    int32_t etypes[ETYPES_MAX];
    /* The credential: the ticket's DER and the client's realm and name,
     * views into buf. */
    uint8_t *buf;
    size_t buf_len;
    struct gk5i_view ticket, crealm;
    struct gk5i_krb_principal cname;
    /* The session key's enctype and its usage 11 and 12 subkeys; the
     * session key itself is not kept. */
    const struct gk5_enctype *ses_et;
    struct gk5i_subkeys ses_sk[2];
    /* After the first leg (mutual): what the AP-REP must answer. */
    int64_t ctime;
    uint32_t cusec;
    uint8_t subkey[GK5_MAX_KEY_BYTES]; /* of ses_et */
    uint32_t seq;                      /* our initial sequence number */
    /* ST_DONE */
    gk5_ctx *ctx;
    int32_t ctx_enctype;
};

/* ---- initiator_ap_req.c ---- */
/* The context: our send counter at send_seq, the receive window
 * expecting recv_seq, keyed by key (of et). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_init_make_context(
    const struct gk5_initiator *init, const struct gk5_enctype *et,
    const uint8_t *key, bool acceptor_subkey, uint32_t send_seq,
    uint32_t recv_seq, gk5_ctx **out);
/* From ST_START: the AP-REQ token into *out (ST_WAIT_REP with mutual
 * authentication, else ST_DONE with the context). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_init_first_leg(gk5_initiator *init,
                                                gk5_buffer *out, int64_t now,
                                                uint32_t now_usec);

/* ---- initiator_ap_rep.c ---- */
/* From ST_WAIT_REP: the acceptor's token in; an AP-REP makes the context
 * (ST_DONE), a KRB-ERROR is its code and words. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_init_second_leg(gk5_initiator *init,
                                                 const gk5_buffer *in,
                                                 int64_t now);

#endif /* GK5_KRB5_INITIATOR_INT_H */
