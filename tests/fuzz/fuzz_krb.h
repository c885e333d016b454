/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Checks shared by the fuzz targets of the RFC 4120 codec
 * (src/der/rfc4120.h): field-by-field equality of decoded messages, the
 * DER round trip, AuthorizationData walks, and a lenient BER walk that
 * names the forms strict DER refuses (for the differential target).
 */
#ifndef GK5_FUZZ_KRB_H
#define GK5_FUZZ_KRB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der/rfc4120.h"

/* The message types, in the order fuzz_diff_krb5's first byte picks them
 * and the corpus generator writes them. */
enum fk_type {
    FK_AP_REQ,
    FK_AUTHENTICATOR,
    FK_ENC_TKT_PART,
    FK_AP_REP,
    FK_ENC_AP_REP_PART,
    FK_KRB_ERROR,
    FK_TICKET,
    FK_AS_REP,
    FK_TGS_REP,
    FK_ENC_KDC_REP_PART,
    FK_N_TYPES
};

/* Any decoded message (the decoder of its type fills its member). */
union fk_msg {
    struct gk5i_krb_ap_req ap_req;
    struct gk5i_krb_authenticator authenticator;
    struct gk5i_krb_enc_tkt_part enc_tkt_part;
    struct gk5i_krb_ap_rep ap_rep;
    struct gk5i_krb_enc_ap_rep_part enc_ap_rep_part;
    struct gk5i_krb_error krb_error;
    struct gk5i_krb_ticket ticket;
    struct gk5i_krb_kdc_rep kdc_rep;
    struct gk5i_krb_enc_kdc_rep_part enc_kdc_rep_part;
};

const char *fk_type_name(enum fk_type t);
/* gk5's decoder of type t. */
uint32_t fk_decode(enum fk_type t, const uint8_t *in, size_t len,
                   union fk_msg *m);
/* gk5's encoder of type t (rfc4120.h's contract). */
uint32_t fk_encode(enum fk_type t, const union fk_msg *m, uint8_t *out,
                   size_t cap, size_t *len);
/* Field-by-field equality (views by their bytes; an AP-REQ's or KDC-REP's
 * ticket_der, which says where the ticket's encoding lies, is not a
 * field). */
bool fk_equal(enum fk_type t, const union fk_msg *a, const union fk_msg *b);

bool fk_view_eq(struct gk5i_view a, struct gk5i_view b);
bool fk_principal_eq(const struct gk5i_krb_principal *a,
                     const struct gk5i_krb_principal *b);

/* gk5's decoder of type t, then, on success, fk_check_views and
 * fk_check_round_trip; any answer but GK5_OK, GK5_ERR_DER,
 * GK5_ERR_DER_LIMIT and GK5_ERR_KRB_MSG_TYPE aborts.  The first empty
 * input of a process (libFuzzer starts with one) also checks what
 * rfc4120.h promises for bad arguments: NULL pointers, inputs over
 * GK5I_KRB_MAX_MESSAGE, bad AuthorizationData positions, times outside
 * years 0..9999. */
uint32_t fk_decode_checked(enum fk_type t, const uint8_t *in, size_t len,
                           union fk_msg *m);

/* A decoded message's views lie inside in[0..len) and its numbers in
 * their fields' ranges; aborts otherwise. */
void fk_check_views(enum fk_type t, const uint8_t *in, size_t len,
                    const union fk_msg *m);

/* An RFC 2743 3.1 framed token (in[0] 0x60: the krb5 or Microsoft OID,
 * then TOK_ID tok_id_hi 00, RFC 1964 1.1) gives its inner message; any
 * other input is taken as the message itself.  False: framed, but not
 * well. */
bool fk_unframe(const uint8_t *in, size_t len, uint8_t tok_id_hi,
                const uint8_t **inner, size_t *inner_len);

/*
 * RFC 4120 codec: a decoded message re-encodes to the bytes it came from.
 * Checks that the encoder measures what it writes, answers
 * GK5_ERR_BUFFER_TOO_SMALL with the length needed one byte short, and
 * writes in[0..len) again.  Two tolerated inputs re-encode differently, by
 * design of the codec: a KerberosFlags BIT STRING longer than 32 bits
 * (written back as 32) and a negative seq-number (written back as the
 * UInt32 it reads as); for them the re-encoding must decode to the same
 * fields and re-encode to itself.  A negative nonce in an EncKDCRepPart
 * (MIT's KDC echoes the nonce as an Int32) is the seq-number's case.
 * Aborts (fuzz_fail) otherwise.
 */
void fk_check_round_trip(enum fk_type t, const uint8_t *in, size_t len,
                         const union fk_msg *m);

/*
 * Walks an AuthorizationData encoding (RFC 4120 5.2.6) with
 * gk5i_authz_next, checking that every element lies inside it, in order,
 * and that a failed step leaves nothing behind; each element's ad-data is
 * tried as an RFC 4537 EtypeList (gk5i_decode_etype_list, whose result
 * re-encodes through gk5i_encode_etype_list_ad) and, for AD-IF-RELEVANT,
 * as nested AuthorizationData (depth levels deep at most).  must_walk:
 * the view came from a decoder that checked it, so every step must
 * succeed.  Returns the number of elements at the top level.
 */
size_t fk_walk_authz(struct gk5i_view ad, bool must_walk, unsigned depth);

/*
 * Walks a SEQUENCE OF PA-DATA (gk5i_padata_next) as fk_walk_authz walks
 * AuthorizationData: elements inside it, in order, a refused step leaving
 * nothing behind.  Each padata-value is tried as ETYPE-INFO2
 * (fk_walk_etype_info2).  Returns the number of elements.
 */
size_t fk_walk_padata(struct gk5i_view seq, bool must_walk);
/* The same for ETYPE-INFO2 (gk5i_etype_info2_next); salt and s2kparams
 * inside the view, absent ones empty. */
size_t fk_walk_etype_info2(struct gk5i_view seq);

/*
 * Forms a lenient BER reader takes and strict DER refuses, found anywhere
 * in a value's tree (primitive contents are not looked into, except the
 * INTEGER, BIT STRING and GeneralizedTime values themselves).
 */
enum fk_form {
    FK_FORM_LEN_NONMINIMAL = 1u
                             << 0, /* long form where short fits, 0x00 lead */
    FK_FORM_LEN_INDEFINITE = 1u << 1, /* 0x80 ... 00 00 */
    FK_FORM_LEN_HUGE = 1u << 2,       /* more than four length octets */
    FK_FORM_TAG_HIGH = 1u << 3,       /* high tag number form (0x1f) */
    FK_FORM_TRAILING = 1u << 4,       /* bytes after the outermost value */
    FK_FORM_INT_NONMINIMAL = 1u << 5, /* 00 or ff before a redundant sign */
    FK_FORM_INT_EMPTY = 1u << 6,      /* INTEGER of no octets */
    FK_FORM_BITS_SHORT = 1u << 7,     /* BIT STRING of fewer than 32 bits */
    FK_FORM_BITS_UNUSED = 1u << 8,    /* unused-bits octet > 7 or bits set */
    FK_FORM_BITS_LONG = 1u << 9,      /* more than 32 bits (tolerated) */
    FK_FORM_TIME = 1u << 10, /* GeneralizedTime gk5i_krb_time_parse refuses */
    FK_FORM_CONSTRUCTED = 1u << 11, /* universal primitive type constructed */
    FK_FORM_PRIMITIVE = 1u << 12,   /* SEQUENCE or tagged value primitive */
    FK_FORM_UNPARSED = 1u << 13,    /* not BER at all where the walk went */
    FK_FORM_COUNT = 14
};
/* The forms found; *nvalues (may be NULL) the number of TLVs walked. */
unsigned fk_scan(const uint8_t *in, size_t len, size_t *nvalues);
const char *fk_form_name(unsigned bit_index);

#endif /* GK5_FUZZ_KRB_H */
