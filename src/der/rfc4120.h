/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 messages gk5 reads and writes, in strict DER: one decoder
 * and one encoder per type, named after the type.
 *
 * Decoders return views into the input (struct gk5i_view: pointer and
 * length) and allocate nothing; the caller keeps the input alive while it
 * uses them.  Every decoder is strict DER: definite, minimal lengths; no
 * indefinite form; context tags in order; an unknown context tag is
 * refused (RFC 4120 5: every field of these types is critical, and the
 * types have no extension markers); INTEGERs checked against the field's
 * range; KerberosTime exactly YYYYMMDDHHMMSSZ.  Tolerated, because named
 * peers send them: negative Int32 sequence numbers (old Heimdal and
 * Windows; read as their two's complement UInt32, as MIT does), and
 * GeneralString/KerberosString bytes as they are (no character set check).
 *
 * Limits (GK5_ERR_DER_LIMIT when passed): a message of at most
 * GK5I_KRB_MAX_MESSAGE bytes, nesting at most GK5I_DER_MAX_DEPTH deep, a
 * PrincipalName of at most GK5I_KRB_MAX_COMPONENTS components.  A ticket
 * whose PAC lists many groups (Active Directory) reaches tens of KiB;
 * these limits let it through.
 *
 * Encoders write backwards (the last field first) through the same walk
 * that measures: with out NULL they only set *len; otherwise the encoding
 * is out[0..*len).  A decoder's output re-encodes to the bytes it came
 * from (the tests and fuzz targets hold every type to that), with two
 * tolerated exceptions that re-encode in their canonical form instead: a
 * KerberosFlags BIT STRING longer than 32 bits (written as 32) and a
 * negative seq-number (written as the UInt32 RFC 4120 says it is).
 *
 * Return values, every function: GK5_OK; GK5_ERR_DER (not strict DER of
 * the type: a bad tag, length, form, missing or unknown field, a value out
 * of range, bytes after the end); GK5_ERR_DER_LIMIT; GK5_ERR_KRB_MSG_TYPE
 * (pvno not 5, or msg-type not the type's); encoders also
 * GK5_ERR_BUFFER_TOO_SMALL and GK5_ERR_INVALID_ARGUMENT (a field a
 * decoder would refuse: more components than the limit, a time before
 * year 0 or after 9999).
 */
#ifndef GK5_DER_RFC4120_H
#define GK5_DER_RFC4120_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gk5/gk5.h>
#include "../common/util.h"

/* A run of bytes inside a decoded message (or, for encoding, the caller's
 * bytes to copy in).  len 0 with p NULL: absent or empty. */
struct gk5i_view {
    const uint8_t *p;
    size_t len;
};

/* Whether two views hold the same bytes.  For public bytes only (names,
 * realms, OIDs): the compare is not constant-time. */
static inline bool gk5i_view_equal(struct gk5i_view a, struct gk5i_view b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

#define GK5I_KRB_MAX_MESSAGE (256u * 1024u) /* bytes, whole message */
#define GK5I_DER_MAX_DEPTH 16               /* nested constructed values */
#define GK5I_KRB_MAX_COMPONENTS 10          /* PrincipalName components */

/* RFC 4120 5.10 application tags (msg-type numbers for the messages). */
#define GK5I_KRB_TAG_TICKET 1
#define GK5I_KRB_TAG_AUTHENTICATOR 2
#define GK5I_KRB_TAG_ENC_TKT_PART 3
#define GK5I_KRB_TAG_AP_REQ 14
#define GK5I_KRB_TAG_AP_REP 15
#define GK5I_KRB_TAG_ENC_AP_REP_PART 27
#define GK5I_KRB_TAG_ERROR 30

/* RFC 4120 5.5.1 APOptions bits (bit 0 is the most significant bit of the
 * first octet: the value below is the 32-bit big-endian word). */
#define GK5I_AP_OPT_USE_SESSION_KEY 0x40000000u /* bit 1 */
#define GK5I_AP_OPT_MUTUAL_REQUIRED 0x20000000u /* bit 2 */
/* RFC 4537: the client sent an etype list (MIT's AP_OPTS_ETYPE_NEGOTIATION). */
#define GK5I_AP_OPT_ETYPE_NEGOTIATION 0x00000002u /* bit 30 */

/* RFC 4120 5.3 TicketFlags bits, as the 32-bit big-endian word. */
#define GK5I_TKT_FLG_FORWARDABLE 0x40000000u
#define GK5I_TKT_FLG_FORWARDED 0x20000000u
#define GK5I_TKT_FLG_PROXIABLE 0x10000000u
#define GK5I_TKT_FLG_PROXY 0x08000000u
#define GK5I_TKT_FLG_MAY_POSTDATE 0x04000000u
#define GK5I_TKT_FLG_POSTDATED 0x02000000u
#define GK5I_TKT_FLG_INVALID 0x01000000u
#define GK5I_TKT_FLG_RENEWABLE 0x00800000u
#define GK5I_TKT_FLG_INITIAL 0x00400000u
#define GK5I_TKT_FLG_PRE_AUTHENT 0x00200000u
#define GK5I_TKT_FLG_HW_AUTHENT 0x00100000u
#define GK5I_TKT_FLG_TRANSIT_POLICY_CHECKED 0x00080000u
#define GK5I_TKT_FLG_OK_AS_DELEGATE 0x00040000u

/* RFC 4120 7.5.4 authorization data types the acceptor looks at. */
#define GK5I_AD_IF_RELEVANT 1
#define GK5I_AD_GSS_API_ETYPE_NEGOTIATION 129 /* RFC 4537 */

/* KerberosTime: seconds since the epoch, UTC.  Years 0000..9999 are
 * representable; gk5 stores them as int64_t. */
typedef int64_t gk5i_krb_time;

/* PrincipalName (RFC 4120 5.2.2): name-type and the components. */
struct gk5i_krb_principal {
    int32_t name_type;
    uint32_t ncomp; /* 0..GK5I_KRB_MAX_COMPONENTS */
    struct gk5i_view comp[GK5I_KRB_MAX_COMPONENTS];
};

/* EncryptionKey (RFC 4120 5.2.9). */
struct gk5i_krb_key {
    int32_t keytype;
    struct gk5i_view value;
};

/* EncryptedData (RFC 4120 5.2.9). */
struct gk5i_krb_enc_data {
    int32_t etype;
    bool has_kvno;
    uint32_t kvno;
    struct gk5i_view cipher;
};

/* Checksum (RFC 4120 5.2.9). */
struct gk5i_krb_checksum {
    int32_t cksumtype;
    struct gk5i_view value;
};

/* Ticket (RFC 4120 5.3): [APPLICATION 1]; tkt-vno must be 5. */
struct gk5i_krb_ticket {
    struct gk5i_view realm;
    struct gk5i_krb_principal sname;
    struct gk5i_krb_enc_data enc_part;
};

/* EncTicketPart (RFC 4120 5.3): [APPLICATION 3].  caddr and
 * authorization_data are the encodings of the whole SEQUENCE OF (tag and
 * length included; len 0 when absent), checked to be well-formed
 * HostAddresses / AuthorizationData but otherwise carried opaquely. */
struct gk5i_krb_enc_tkt_part {
    uint32_t flags; /* GK5I_TKT_FLG_*: the first 32 bits of the BIT STRING */
    struct gk5i_krb_key key;
    struct gk5i_view crealm;
    struct gk5i_krb_principal cname;
    int32_t transited_type;
    struct gk5i_view transited_contents;
    gk5i_krb_time authtime;
    bool has_starttime;
    gk5i_krb_time starttime;
    gk5i_krb_time endtime;
    bool has_renew_till;
    gk5i_krb_time renew_till;
    struct gk5i_view caddr;
    struct gk5i_view authorization_data;
};

/* Authenticator (RFC 4120 5.5.1): [APPLICATION 2]; authenticator-vno 5. */
struct gk5i_krb_authenticator {
    struct gk5i_view crealm;
    struct gk5i_krb_principal cname;
    bool has_cksum;
    struct gk5i_krb_checksum cksum;
    uint32_t cusec; /* Microseconds: 0..999999 */
    gk5i_krb_time ctime;
    bool has_subkey;
    struct gk5i_krb_key subkey;
    bool has_seq_number;
    uint32_t seq_number; /* a negative Int32 on the wire reads as 2^32 + n */
    struct gk5i_view authorization_data; /* whole encoding, as above */
};

/* AP-REQ (RFC 4120 5.5.1): [APPLICATION 14].  ticket_der is the Ticket's
 * whole encoding inside the message. */
struct gk5i_krb_ap_req {
    uint32_t ap_options; /* GK5I_AP_OPT_*: the first 32 bits */
    struct gk5i_krb_ticket ticket;
    struct gk5i_view ticket_der;
    struct gk5i_krb_enc_data authenticator;
};

/* AP-REP (RFC 4120 5.5.2): [APPLICATION 15]. */
struct gk5i_krb_ap_rep {
    struct gk5i_krb_enc_data enc_part;
};

/* EncAPRepPart (RFC 4120 5.5.2): [APPLICATION 27]. */
struct gk5i_krb_enc_ap_rep_part {
    gk5i_krb_time ctime;
    uint32_t cusec;
    bool has_subkey;
    struct gk5i_krb_key subkey;
    bool has_seq_number;
    uint32_t seq_number;
};

/* KRB-ERROR (RFC 4120 5.9.1): [APPLICATION 30]. */
struct gk5i_krb_error {
    bool has_ctime;
    gk5i_krb_time ctime;
    bool has_cusec;
    uint32_t cusec;
    gk5i_krb_time stime;
    uint32_t susec;
    int32_t error_code;
    bool has_crealm;
    struct gk5i_view crealm;
    bool has_cname;
    struct gk5i_krb_principal cname;
    struct gk5i_view realm;
    struct gk5i_krb_principal sname;
    bool has_e_text;
    struct gk5i_view e_text;
    bool has_e_data;
    struct gk5i_view e_data;
};

/* ---- the KDC exchanges (RFC 4120 5.4, RFC 6113 5.3.2 via 4120's
 * ETYPE-INFO2 5.2.7.5, PA-ENC-TIMESTAMP 5.2.7.2) ---- */

#define GK5I_KRB_TAG_AS_REQ 10
#define GK5I_KRB_TAG_AS_REP 11
#define GK5I_KRB_TAG_TGS_REQ 12
#define GK5I_KRB_TAG_TGS_REP 13
#define GK5I_KRB_TAG_ENC_AS_REP_PART 25
#define GK5I_KRB_TAG_ENC_TGS_REP_PART 26

/* RFC 4120 7.5.2 PA-DATA types gk5 sends or reads. */
#define GK5I_PA_TGS_REQ 1
#define GK5I_PA_ENC_TIMESTAMP 2
#define GK5I_PA_ETYPE_INFO2 19

/* RFC 4120 5.4.1 KDCOptions bits, as the 32-bit big-endian word. */
#define GK5I_KDC_OPT_FORWARDABLE 0x40000000u  /* bit 1 */
#define GK5I_KDC_OPT_PROXIABLE 0x10000000u    /* bit 3 */
#define GK5I_KDC_OPT_RENEWABLE 0x00800000u    /* bit 8 */
#define GK5I_KDC_OPT_CANONICALIZE 0x00010000u /* bit 15 (RFC 6806) */
#define GK5I_KDC_OPT_RENEWABLE_OK 0x00000010u /* bit 27 */

/* At most this many PA-DATA a request carries, enctypes it lists. */
#define GK5I_KRB_MAX_PADATA 4
#define GK5I_KRB_MAX_ETYPES 16

/* PA-DATA (RFC 4120 5.2.7). */
struct gk5i_krb_pa_data {
    int32_t type;
    struct gk5i_view value;
};

/* KDC-REQ-BODY (RFC 4120 5.4.1), what gk5 sends: no addresses,
 * enc-authorization-data or additional-tickets (never encoded). */
struct gk5i_krb_kdc_req_body {
    uint32_t kdc_options; /* GK5I_KDC_OPT_* */
    bool has_cname;       /* AS-REQ: the client; TGS-REQ: absent */
    struct gk5i_krb_principal cname;
    struct gk5i_view realm; /* the server's realm */
    bool has_sname;
    struct gk5i_krb_principal sname;
    bool has_from;
    gk5i_krb_time from;
    gk5i_krb_time till;
    bool has_rtime;
    gk5i_krb_time rtime;
    uint32_t nonce;  /* UInt32; gk5 sends 0..2^31-1 (MIT's KDC reads an
                        Int32) */
    size_t n_etypes; /* 1..GK5I_KRB_MAX_ETYPES */
    int32_t etypes[GK5I_KRB_MAX_ETYPES];
};

/* AS-REQ or TGS-REQ (RFC 4120 5.4.1): msg_type GK5I_KRB_TAG_AS_REQ or
 * _TGS_REQ.  body_der, when not empty, is copied in as the body (a
 * TGS-REQ's authenticator checksums exactly those bytes); otherwise body
 * is encoded. */
struct gk5i_krb_kdc_req {
    int32_t msg_type;
    size_t n_padata; /* 0..GK5I_KRB_MAX_PADATA */
    struct gk5i_krb_pa_data padata[GK5I_KRB_MAX_PADATA];
    struct gk5i_krb_kdc_req_body body;
    struct gk5i_view body_der;
};

/* AS-REP or TGS-REP (RFC 4120 5.4.2).  padata is the whole SEQUENCE OF
 * PA-DATA encoding (walk it with gk5i_padata_next), empty when absent;
 * ticket_der is where the Ticket's encoding lies (stored as it came). */
struct gk5i_krb_kdc_rep {
    int32_t msg_type; /* GK5I_KRB_TAG_AS_REP or _TGS_REP */
    struct gk5i_view padata;
    struct gk5i_view crealm;
    struct gk5i_krb_principal cname;
    struct gk5i_krb_ticket ticket;
    struct gk5i_view ticket_der;
    struct gk5i_krb_enc_data enc_part;
};

/* EncASRepPart / EncTGSRepPart (RFC 4120 5.4.2), one shape under
 * [APPLICATION 25] or [APPLICATION 26]: RFC 4120 lets a client take
 * either tag in either reply (MIT's KDC long sent 26 in AS replies).
 * last_req, caddr and encrypted_pa_data (RFC 6806 [12]) are kept as
 * their whole encodings, empty when absent; never interpreted. */
struct gk5i_krb_enc_kdc_rep_part {
    int32_t tag; /* 25 or 26, as it came */
    struct gk5i_krb_key key;
    struct gk5i_view last_req;
    uint32_t nonce; /* a negative Int32 on the wire reads as 2^32 + n */
    bool has_key_expiration;
    gk5i_krb_time key_expiration;
    uint32_t flags; /* GK5I_TKT_FLG_* */
    gk5i_krb_time authtime;
    bool has_starttime;
    gk5i_krb_time starttime;
    gk5i_krb_time endtime;
    bool has_renew_till;
    gk5i_krb_time renew_till;
    struct gk5i_view srealm;
    struct gk5i_krb_principal sname;
    struct gk5i_view caddr;
    struct gk5i_view encrypted_pa_data;
};

/* ETYPE-INFO2-ENTRY (RFC 4120 5.2.7.5). */
struct gk5i_krb_etype_info2 {
    int32_t etype;
    bool has_salt;
    struct gk5i_view salt; /* KerberosString */
    bool has_s2kparams;
    struct gk5i_view s2kparams;
};

/* ---- decoders (rfc4120_decode_*.c) ----
 * Each reads exactly in[0..len): bytes after the message are GK5_ERR_DER.
 * *out is zeroed first; on failure it holds nothing to rely on. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_ticket(const uint8_t *in, size_t len,
                                               struct gk5i_krb_ticket *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_enc_tkt_part(
    const uint8_t *in, size_t len, struct gk5i_krb_enc_tkt_part *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_authenticator(
    const uint8_t *in, size_t len, struct gk5i_krb_authenticator *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_ap_req(const uint8_t *in, size_t len,
                                               struct gk5i_krb_ap_req *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_ap_rep(const uint8_t *in, size_t len,
                                               struct gk5i_krb_ap_rep *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_enc_ap_rep_part(
    const uint8_t *in, size_t len, struct gk5i_krb_enc_ap_rep_part *out);
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_krb_error(const uint8_t *in, size_t len,
                                                  struct gk5i_krb_error *out);

/* AS-REP or TGS-REP: msg_type is the one expected (GK5_ERR_KRB_MSG_TYPE
 * for the other, or for any other message). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_kdc_rep(const uint8_t *in, size_t len,
                                                int32_t msg_type,
                                                struct gk5i_krb_kdc_rep *out);
/* EncASRepPart or EncTGSRepPart (either tag; out->tag says which). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_enc_kdc_rep_part(
    const uint8_t *in, size_t len, struct gk5i_krb_enc_kdc_rep_part *out);
/* METHOD-DATA or any SEQUENCE OF PA-DATA (a KRB-ERROR's e-data, a
 * KDC-REP's padata), walked as gk5i_authz_next walks AuthorizationData:
 * *pos starts at 0; GK5_OK with *more false at the end. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_padata_next(struct gk5i_view seq, size_t *pos,
                                             bool *more, int32_t *type,
                                             struct gk5i_view *value);
/* ETYPE-INFO2 (SEQUENCE SIZE (1..MAX) OF ETYPE-INFO2-ENTRY), walked the
 * same way. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_etype_info2_next(struct gk5i_view seq, size_t *pos, bool *more,
                      struct gk5i_krb_etype_info2 *entry);

/* AuthorizationData walking (RFC 4120 5.2.6), over the whole encoding a
 * decoder returned (authorization_data above).  *pos starts at 0; each call
 * gives the next element's ad-type and ad-data (the OCTET STRING's
 * contents) and returns GK5_OK, or GK5_ERR_DER, or GK5_ERR_DER_LIMIT; at
 * the end it returns GK5_OK with *more false.  An empty view has no
 * elements. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_authz_next(struct gk5i_view ad, size_t *pos,
                                            bool *more, int32_t *ad_type,
                                            struct gk5i_view *ad_data);
/* RFC 4537 EtypeList (SEQUENCE OF Int32): up to max enctypes into out in
 * order, the count in *n; more than max is GK5_ERR_DER_LIMIT. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_decode_etype_list(struct gk5i_view in,
                                                   int32_t *out, size_t max,
                                                   size_t *n);

/* ---- encoders (rfc4120_encode_*.c) ----
 * out NULL: *len = the encoding's length, nothing written.  Otherwise
 * cap is out's room and the encoding is out[0..*len) (GK5_ERR_BUFFER_TOO_
 * SMALL, *len = the length needed, when it does not fit).  Views with len
 * 0 and p NULL are absent OPTIONAL fields where the type has a has_ flag
 * or the field is OPTIONAL (caddr, authorization_data). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_ticket(const struct gk5i_krb_ticket *m,
                                               uint8_t *out, size_t cap,
                                               size_t *len);
GK5_HIDDEN GK5_WUR uint32_t
gk5i_encode_enc_tkt_part(const struct gk5i_krb_enc_tkt_part *m, uint8_t *out,
                         size_t cap, size_t *len);
GK5_HIDDEN GK5_WUR uint32_t
gk5i_encode_authenticator(const struct gk5i_krb_authenticator *m, uint8_t *out,
                          size_t cap, size_t *len);
/* ticket_der, when not empty, is copied in as the Ticket (an initiator
 * sends the ticket bytes it was given); otherwise ticket is encoded. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_ap_req(const struct gk5i_krb_ap_req *m,
                                               uint8_t *out, size_t cap,
                                               size_t *len);
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_ap_rep(const struct gk5i_krb_ap_rep *m,
                                               uint8_t *out, size_t cap,
                                               size_t *len);
GK5_HIDDEN GK5_WUR uint32_t
gk5i_encode_enc_ap_rep_part(const struct gk5i_krb_enc_ap_rep_part *m,
                            uint8_t *out, size_t cap, size_t *len);
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_krb_error(
    const struct gk5i_krb_error *m, uint8_t *out, size_t cap, size_t *len);
/* AuthorizationData of one AD-IF-RELEVANT element holding one RFC 4537
 * etype list (what an initiator sends in its authenticator). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_etype_list_ad(const int32_t *etypes,
                                                      size_t n, uint8_t *out,
                                                      size_t cap, size_t *len);

/* KDC-REQ-BODY alone (what a TGS-REQ's authenticator checksums). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_encode_kdc_req_body(const struct gk5i_krb_kdc_req_body *m, uint8_t *out,
                         size_t cap, size_t *len);
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_kdc_req(
    const struct gk5i_krb_kdc_req *m, uint8_t *out, size_t cap, size_t *len);
/* PA-ENC-TS-ENC (RFC 4120 5.2.7.2): the plaintext of PA-ENC-TIMESTAMP. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_pa_enc_ts_enc(gk5i_krb_time patimestamp,
                                                      uint32_t pausec,
                                                      uint8_t *out, size_t cap,
                                                      size_t *len);
/* EncryptedData alone (PA-ENC-TIMESTAMP's padata-value). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_enc_data(
    const struct gk5i_krb_enc_data *m, uint8_t *out, size_t cap, size_t *len);
/* EncASRepPart/EncTGSRepPart under m->tag (tests and the fuzzers' KDC). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_encode_enc_kdc_rep_part(const struct gk5i_krb_enc_kdc_rep_part *m,
                             uint8_t *out, size_t cap, size_t *len);
/* AS-REP/TGS-REP (tests and the fake KDCs of the tests); ticket_der, when
 * not empty, is copied in as the Ticket. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_encode_kdc_rep(
    const struct gk5i_krb_kdc_rep *m, uint8_t *out, size_t cap, size_t *len);

/* KerberosTime conversions (rfc4120_time.c), exposed for the tests:
 * exactly 15 bytes YYYYMMDDHHMMSSZ with a valid calendar date and time
 * (seconds 00..59: RFC 4120 5.2.3 forbids leap seconds' 60). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_krb_time_parse(const uint8_t *s, size_t len,
                                                gk5i_krb_time *t);
GK5_HIDDEN GK5_WUR uint32_t gk5i_krb_time_format(gk5i_krb_time t,
                                                 uint8_t out[15]);

#endif /* GK5_DER_RFC4120_H */
