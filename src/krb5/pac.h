/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The Windows PAC (MS-PAC 2.3-2.8) in a ticket's authorization data, read
 * the way MIT's acceptor reads it, so that a natively accepted initiator's
 * name answers RFC 6680's name-attribute calls as MIT's does:
 *
 *   - found as the first AD-WIN2K-PAC (128) of the ticket's authorization
 *     data, AD-IF-RELEVANT containers opened in place;
 *   - its layout checked (version 0, 1 to 4096 buffers, their headers
 *     inside it, each buffer 8-aligned, after the headers and inside the
 *     PAC);
 *   - "verified" as MIT 1.20 verifies it: the server signature (buffer
 *     6, one) is the ticket key's checksum type, key usage 17, over the
 *     PAC with the server and the (first) KDC signature (7) zeroed, and
 *     the client info (buffer 10) names the ticket's client at its
 *     authtime (the components joined by '/', nothing escaped, no
 *     realm);
 *   - its attributes named "urn:mspac:" (the whole PAC) and
 *     "urn:mspac:logon-info" and so on per buffer type, other types
 *     "urn:mspac:N"; an unverified PAC is listed but has no values.
 *
 * Zero-copy: a gk5i_pac is a view of bytes the caller keeps.  Nothing
 * here allocates except gk5i_pac_verify's copy of the PAC to zero the
 * signatures in.
 */
#ifndef GK5_PAC_H
#define GK5_PAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../crypto/crypto_int.h"
#include "../der/rfc4120.h"

/* Authorization data types (RFC 4120 7.5.4, RFC 7751). */
#define GK5I_AD_CAMMAC 96
#define GK5I_AD_WIN2K_PAC 128

/* PAC buffer types (MS-PAC 2.4). */
#define GK5I_PAC_LOGON_INFO 1
#define GK5I_PAC_CREDENTIALS_INFO 2
#define GK5I_PAC_SERVER_CHECKSUM 6
#define GK5I_PAC_PRIVSVR_CHECKSUM 7
#define GK5I_PAC_CLIENT_INFO 10
#define GK5I_PAC_DELEGATION_INFO 11
#define GK5I_PAC_UPN_DNS_INFO 12

/* RFC 4120 7.5.1's usage 17 (KERB_NON_KERB_CKSUM_SALT, MS-PAC 2.8.1):
 * the server signature's key usage. */
#define KU_PAC_SIGNATURE 17u

/* The attribute type that stands for the whole PAC. */
#define GK5I_PAC_WHOLE 0xffffffffu

/* The longest attribute name gk5i_pac_attr_name writes, with its NUL. */
#define GK5I_PAC_ATTR_MAX 32

struct gk5i_pac {
    const uint8_t *p;
    size_t len;
    uint32_t count; /* buffers */
};

/* What a ticket's authorization data holds for names: the first PAC
 * (pac.p NULL: none) and how many there are, whether an AD-CAMMAC is
 * anywhere in it (MIT then names auth indicators, which gk5 does not
 * read), and whether containers went deeper than gk5 looks (4).  A
 * caller that must answer as MIT would leaves several PACs and
 * too_deep to MIT. */
struct gk5i_authz_names {
    struct gk5i_view pac;
    uint32_t npac;
    bool cammac;
    bool too_deep;
};

/* Walk authorization data (the DER of a ticket's field) for the PAC and
 * a CAMMAC.  GK5_OK, or the DER walker's error for data that does not
 * decode. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_authz_names(struct gk5i_view authz,
                                             struct gk5i_authz_names *out);

/* Check a PAC's layout; false for one MIT's parser refuses (its acceptor
 * then refuses the AP-REQ). */
GK5_HIDDEN GK5_WUR bool gk5i_pac_parse(const uint8_t *p, size_t len,
                                       struct gk5i_pac *out);

/* Buffer i (< count) of a parsed PAC: its type and bytes. */
GK5_HIDDEN void gk5i_pac_buffer_at(const struct gk5i_pac *pac, uint32_t i,
                                   uint32_t *type, struct gk5i_view *data);

/* The one buffer of a type: 1 (in *data), 0 when there is none, -1 when
 * there are several (MIT refuses those). */
GK5_HIDDEN int gk5i_pac_find(const struct gk5i_pac *pac, uint32_t type,
                             struct gk5i_view *data);

/* MIT's verdict on a PAC (above), with the ticket key's subkeys for
 * KU_PAC_SIGNATURE, the ticket's authtime and client. */
GK5_HIDDEN bool gk5i_pac_verify(const struct gk5i_pac *pac,
                                const struct gk5_enctype *tkt_et,
                                const struct gk5i_subkeys *sk, int64_t authtime,
                                const struct gk5i_krb_principal *cname);

/* The attribute name of a buffer type (GK5I_PAC_WHOLE: "urn:mspac:")
 * into buf (GK5I_PAC_ATTR_MAX bytes); its length. */
GK5_HIDDEN size_t gk5i_pac_attr_name(uint32_t type,
                                     char buf[GK5I_PAC_ATTR_MAX]);

/* The buffer type an attribute name asks for (case aside, as MIT
 * matches): true with *type (GK5I_PAC_WHOLE for the whole PAC). */
GK5_HIDDEN bool gk5i_pac_attr_type(const char *attr, size_t len,
                                   uint32_t *type);

#endif /* GK5_PAC_H */
