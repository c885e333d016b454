/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the RFC 4120 decoders share among their files (rfc4120_decode_*.c):
 * the answers combined (worst, finish), the [n] EXPLICIT fields around a
 * primitive, the sub-types several messages hold, the entry points' start
 * and end, and the walk over a SEQUENCE OF carried whole.  The contracts
 * are at the definitions, in rfc4120_decode_fields.c; the decoders' own
 * rules (depth, the order of answers) head that file.  The encoders
 * (rfc4120_encode_*.c) share the same kinds of pieces, defined in
 * rfc4120_encode_fields.c.
 */
#ifndef GK5_DER_RFC4120_INT_H
#define GK5_DER_RFC4120_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der.h"
#include "rfc4120.h"

/* RFC 4120 5.2.4: Microseconds ::= INTEGER (0..999999). */
#define GK5I_KRB_USEC_MAX 999999
#define GK5I_KRB_PVNO 5

/* ---- decoding: answers ---- */

GK5_HIDDEN bool gk5i_dec_too_deep(unsigned depth, unsigned levels);
GK5_HIDDEN uint32_t gk5i_dec_worst(uint32_t a, uint32_t b);
GK5_HIDDEN uint32_t gk5i_dec_finish(const struct gk5i_rd *r, uint32_t ret);

/* ---- decoding: [n] EXPLICIT around a primitive ---- */

GK5_HIDDEN int32_t gk5i_dec_int32_field(struct gk5i_rd *r, unsigned n);
GK5_HIDDEN uint32_t gk5i_dec_usec_field(struct gk5i_rd *r, unsigned n);
GK5_HIDDEN uint32_t gk5i_dec_seq_number_field(struct gk5i_rd *r, unsigned n);
GK5_HIDDEN struct gk5i_view gk5i_dec_prim_field(struct gk5i_rd *r, unsigned n,
                                                uint8_t tag);
GK5_HIDDEN gk5i_krb_time gk5i_dec_time_field(struct gk5i_rd *r, unsigned n);
GK5_HIDDEN uint32_t gk5i_dec_flags_field(struct gk5i_rd *r, unsigned n);
GK5_HIDDEN uint32_t gk5i_dec_check_int_field(struct gk5i_rd *r, unsigned n,
                                             int32_t want);

/* ---- decoding: sub-types, and the [n] EXPLICIT around them ---- */

/* SEQUENCE { [first] Int32, [first + 1] OCTET STRING }: first 0 for the
 * RFC 4120 5.2 types of that shape, 1 for PA-DATA. */
GK5_HIDDEN uint32_t gk5i_dec_type_and_octets(struct gk5i_rd *r, unsigned depth,
                                             unsigned first, int32_t *type,
                                             struct gk5i_view *value);
GK5_HIDDEN uint32_t gk5i_dec_key_field(struct gk5i_rd *r, unsigned depth,
                                       unsigned n, struct gk5i_krb_key *out);
GK5_HIDDEN uint32_t gk5i_dec_principal_field(struct gk5i_rd *r, unsigned depth,
                                             unsigned n,
                                             struct gk5i_krb_principal *out);
GK5_HIDDEN uint32_t gk5i_dec_enc_data_field(struct gk5i_rd *r, unsigned depth,
                                            unsigned n,
                                            struct gk5i_krb_enc_data *out);
/* [n] EXPLICIT SEQUENCE OF gk5i_dec_type_and_octets (its first tag
 * first), checked and returned whole. */
GK5_HIDDEN uint32_t gk5i_dec_list_field(struct gk5i_rd *r, unsigned depth,
                                        unsigned n, unsigned first,
                                        struct gk5i_view *whole);
/* Ticket (rfc4120_decode_ap.c), which a KDC-REP holds too. */
GK5_HIDDEN uint32_t gk5i_dec_ticket(struct gk5i_rd *r, unsigned depth,
                                    struct gk5i_krb_ticket *out);

/* ---- decoding: entry points ---- */

GK5_HIDDEN uint32_t gk5i_dec_start(struct gk5i_rd *r, const uint8_t *in,
                                   size_t len, void *out, size_t size);
GK5_HIDDEN uint32_t gk5i_dec_end(const struct gk5i_rd *r, uint32_t ret,
                                 void *out, size_t size);
GK5_HIDDEN uint32_t gk5i_dec_seq_of_next(struct gk5i_view seq,
                                         const size_t *pos,
                                         struct gk5i_rd *elem, bool *at_end);
/* The walk of gk5i_authz_next and gk5i_padata_next: the next element of a
 * SEQUENCE OF gk5i_dec_type_and_octets (its first tag first). */
GK5_HIDDEN uint32_t gk5i_dec_pair_next(struct gk5i_view seq, size_t *pos,
                                       unsigned first, bool *more,
                                       int32_t *type, struct gk5i_view *value);

/* ---- encoding: [n] EXPLICIT around a primitive ---- */

GK5_HIDDEN bool gk5i_enc_view_ok(struct gk5i_view v);
GK5_HIDDEN void gk5i_enc_int_field(struct gk5i_bwr *w, unsigned n, int64_t v);
GK5_HIDDEN uint32_t gk5i_enc_usec_field(struct gk5i_bwr *w, unsigned n,
                                        uint32_t usec);
GK5_HIDDEN uint32_t gk5i_enc_prim_field(struct gk5i_bwr *w, unsigned n,
                                        uint8_t tag, struct gk5i_view v);
GK5_HIDDEN uint32_t gk5i_enc_time_field(struct gk5i_bwr *w, unsigned n,
                                        gk5i_krb_time t);
GK5_HIDDEN void gk5i_enc_flags_field(struct gk5i_bwr *w, unsigned n,
                                     uint32_t flags);

/* ---- encoding: sub-types, and the [n] EXPLICIT around them ---- */

GK5_HIDDEN uint32_t gk5i_enc_type_and_octets_field(struct gk5i_bwr *w,
                                                   unsigned n, int32_t type,
                                                   struct gk5i_view value);
GK5_HIDDEN uint32_t gk5i_enc_list_field(struct gk5i_bwr *w, unsigned n,
                                        struct gk5i_view whole);
GK5_HIDDEN uint32_t gk5i_enc_principal_field(
    struct gk5i_bwr *w, unsigned n, const struct gk5i_krb_principal *p);
GK5_HIDDEN uint32_t gk5i_enc_enc_data_field(struct gk5i_bwr *w, unsigned n,
                                            const struct gk5i_krb_enc_data *e);
GK5_HIDDEN void gk5i_enc_message_close(struct gk5i_bwr *w, unsigned app,
                                       size_t mark);
/* Ticket (rfc4120_encode_ap.c), which a KDC-REP holds too. */
GK5_HIDDEN uint32_t gk5i_enc_ticket(struct gk5i_bwr *w,
                                    const struct gk5i_krb_ticket *m);

/* ---- encoding: entry points ---- */

GK5_HIDDEN uint32_t gk5i_enc_start(struct gk5i_bwr *w, const void *m,
                                   uint8_t *out, size_t cap, size_t *len);
GK5_HIDDEN uint32_t gk5i_enc_end(struct gk5i_bwr *w, uint32_t ret, uint8_t *out,
                                 size_t cap, size_t *len);

#endif /* GK5_DER_RFC4120_INT_H */
