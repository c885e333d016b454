/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 inspect — decode a GSS-API krb5 per-message token's header without
 * keys, for people debugging interop: RFC 4121 MIC and Wrap tokens, RFC 1964
 * MIC, Wrap and context-deletion tokens inside their RFC 2743 3.1 framing.
 *
 * cli_inspect_decode() is the decoder: it reads only the bytes it is given
 * and is a fuzz target.  It reads through the library's own parsers: the
 * bounded reader (src/common/bytes.h), the token headers
 * (src/mech/token_header.h) and the DER length of the RFC 2743 framing
 * (src/mech/gss_framing.h); what it adds is the description of whatever
 * it finds, where the library only refuses.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mech/gss_framing.h"
#include "mech/token_header.h"

/* Records the first problem; returns -1 for the caller to pass up. */
static int problem(struct cli_token_info *ti, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int problem(struct cli_token_info *ti, const char *fmt, ...)
{
    va_list ap;

    if (ti->problem[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(ti->problem, sizeof(ti->problem), fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int truncated(struct cli_token_info *ti, const char *field)
{
    return problem(ti, "truncated: the token ends inside %s", field);
}

/* ---- RFC 4121 ---- */

/* RFC 4121 4.2.6.1 (MIC) and 4.2.6.2 (Wrap); n >= 2 (TOK_ID is there). */
static int decode_rfc4121(const uint8_t *p, size_t n, bool wrap,
                          struct cli_token_info *ti)
{
    struct gk5i_cfx_header h;
    struct gk5i_rd r;
    size_t payload;

    ti->kind = wrap ? CLI_TOKEN_RFC4121_WRAP : CLI_TOKEN_RFC4121_MIC;
    gk5i_rd_init(&r, p, n);
    gk5i_cfx_get_header(&r, &h);
    ti->tok_id = h.tok_id;
    ti->have_tok_id = true;
    /* A short header: the first field the input ends inside. */
    if (n <= CFX_OFF_FLAGS) {
        return truncated(ti, "Flags");
    }
    ti->flags = h.flags;
    if (wrap) {
        if (n <= CFX_OFF_FILLER) {
            return truncated(ti, "the filler byte");
        }
        if (h.filler != 0xff) {
            problem(ti, "filler byte is %02x, not ff", h.filler);
        }
        if (n < CFX_OFF_EC + 2) {
            return truncated(ti, "EC");
        }
        ti->ec = h.ec;
        if (n < CFX_OFF_RRC + 2) {
            return truncated(ti, "RRC");
        }
        ti->rrc = h.rrc;
    } else {
        uint8_t fill[5];

        if (n < CFX_OFF_SEQ) {
            return truncated(ti, "the filler bytes");
        }
        gk5i_cfx_mic_filler(&h, fill);
        for (size_t i = 0; i < sizeof(fill); i++) {
            if (fill[i] != 0xff) {
                problem(ti, "filler byte %zu is %02x, not ff",
                        i + CFX_OFF_FILLER, fill[i]);
                break;
            }
        }
    }
    if (r.bad) {
        return truncated(ti, "SND_SEQ");
    }
    ti->snd_seq = h.seq;
    ti->have_seq = true;
    ti->header_len = CFX_HDR_LEN;
    payload = gk5i_rd_left(&r);
    if ((ti->flags & ~CFX_FLAGS_KNOWN) != 0) {
        problem(ti, "unknown flag bits 0x%02x", ti->flags & ~CFX_FLAGS_KNOWN);
    }
    if (!wrap) {
        ti->cksum_len = payload;
        if ((ti->flags & CFX_FLAG_SEALED) != 0) {
            problem(ti, "the Sealed flag is set in a MIC token");
        }
        if (payload == 0) {
            return problem(ti, "no checksum after the 16-byte header");
        }
        return ti->problem[0] == '\0' ? 0 : -1;
    }
    ti->body_len = payload;
    if ((ti->flags & CFX_FLAG_SEALED) != 0) {
        /* E(confounder | data | EC filler | header) | checksum: at least
         * the EC filler and the header copy are inside. */
        if (payload < (size_t)ti->ec + 16) {
            return problem(ti,
                           "sealed payload of %zu bytes cannot hold EC (%u) "
                           "filler bytes and the 16-byte header copy",
                           payload, (unsigned)ti->ec);
        }
    } else {
        /* data | checksum, EC = the checksum length. */
        if (ti->ec == 0) {
            return problem(ti, "EC is 0: an integrity-only Wrap token puts "
                               "the checksum length in EC");
        }
        if (ti->ec > payload) {
            return problem(ti,
                           "EC (%u) is larger than the %zu bytes after the "
                           "header",
                           (unsigned)ti->ec, payload);
        }
        ti->cksum_len = ti->ec;
        ti->data_len = payload - ti->ec;
    }
    return ti->problem[0] == '\0' ? 0 : -1;
}

/* ---- RFC 2743 3.1 framing and RFC 1964 ---- */

static const struct {
    const char *dotted;
    const char *name;
} known_oids[] = {
    {"1.2.840.113554.1.2.2", "Kerberos V5"},
    {"1.2.840.48018.1.2.2", "Kerberos V5, Microsoft's OID"},
    {"1.3.5.1.5.2", "Kerberos V5, pre-RFC 1964 OID"},
    {"1.3.6.1.5.5.2", "SPNEGO"},
    {"1.3.6.1.5.2.5", "IAKERB"},
};

/* The krb5 mechs whose per-message tokens are RFC 1964's. */
static bool oid_is_krb5(const char *dotted)
{
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(dotted, known_oids[i].dotted) == 0) {
            return true;
        }
    }
    return false;
}

/* X.690 8.19: OBJECT IDENTIFIER contents into dotted form. */
static int decode_oid(const uint8_t *c, size_t len, struct cli_token_info *ti)
{
    size_t used = 0;
    uint64_t v = 0;
    bool first = true;
    bool in_arc = false;

    ti->oid[0] = '\0';
    if (len == 0) {
        return problem(ti, "empty mech OID");
    }
    for (size_t i = 0; i < len; i++) {
        int w;

        if (!in_arc && c[i] == 0x80) {
            return problem(ti, "mech OID is not DER (a sub-identifier "
                               "starts with 0x80)");
        }
        if (v > (UINT64_MAX >> 7)) {
            return problem(ti, "mech OID has an arc too large to show");
        }
        v = v << 7 | (c[i] & 0x7fu);
        in_arc = (c[i] & 0x80u) != 0;
        if (in_arc) {
            continue;
        }
        if (first) {
            uint64_t top = v < 40 ? 0 : (v < 80 ? 1 : 2);

            w = snprintf(ti->oid + used, sizeof(ti->oid) - used, "%llu.%llu",
                         (unsigned long long)top,
                         (unsigned long long)(v - 40 * top));
            first = false;
        } else {
            w = snprintf(ti->oid + used, sizeof(ti->oid) - used, ".%llu",
                         (unsigned long long)v);
        }
        if (w < 0 || (size_t)w >= sizeof(ti->oid) - used) {
            return problem(ti, "mech OID too long to show");
        }
        used += (size_t)w;
        v = 0;
    }
    if (in_arc) {
        return problem(ti, "mech OID ends inside a sub-identifier");
    }
    for (size_t i = 0; i < sizeof(known_oids) / sizeof(known_oids[0]); i++) {
        if (strcmp(ti->oid, known_oids[i].dotted) == 0) {
            ti->oid_name = known_oids[i].name;
        }
    }
    return 0;
}

/* RFC 1964 1.2.1 SGN_ALG: name and checksum length (0 if unknown). */
static const char *sgn_alg_name(uint16_t alg, size_t *cksum_len)
{
    switch (alg) {
    case 0x0000:
        *cksum_len = 8;
        return "DES MAC MD5";
    case 0x0001:
        *cksum_len = 8;
        return "MD2.5";
    case 0x0002:
        *cksum_len = 8;
        return "DES MAC";
    case 0x0004:
        *cksum_len = 20;
        return "HMAC SHA1 DES3-KD";
    case 0x0011:
        *cksum_len = 8;
        return "HMAC MD5 (RC4-HMAC)";
    default:
        *cksum_len = 0;
        return NULL;
    }
}

/* RFC 1964 1.2.2 SEAL_ALG (and MIT's DES3 and RC4 values). */
static const char *seal_alg_name(uint16_t alg)
{
    switch (alg) {
    case 0x0000:
        return "DES";
    case 0x0002:
        return "DES3-KD";
    case 0x0010:
        return "RC4";
    case 0xffff:
        return "none: integrity only";
    default:
        return NULL;
    }
}

/* The sealing algorithm that goes with a signing algorithm. */
static bool algs_agree(uint16_t sgn, uint16_t seal)
{
    if (seal == 0xffff) {
        return true;
    }
    switch (sgn) {
    case 0x0004:
        return seal == 0x0002;
    case 0x0011:
        return seal == 0x0010;
    default:
        return seal == 0x0000;
    }
}

/* RFC 1964 1.2.1 / 1.2.2 / 1.2.3: h read at r from a token of have bytes
 * (TOK_ID onward; have >= 2), r after the header. */
static int decode_rfc1964(struct gk5i_rd *r, const struct gk5i_v1_header *h,
                          size_t have, struct cli_token_info *ti)
{
    const uint8_t *body_at;
    const char *name;
    uint16_t tok = ti->tok_id;
    bool wrap = tok == TOK_ID_V1_WRAP;
    size_t body;

    ti->kind = wrap ? CLI_TOKEN_RFC1964_WRAP
                    : (tok == TOK_ID_V1_MIC ? CLI_TOKEN_RFC1964_MIC
                                            : CLI_TOKEN_RFC1964_DELETE);
    if (have < V1_OFF_SEAL_ALG) {
        return truncated(ti, "SGN_ALG");
    }
    ti->sgn_alg = h->sgn_alg;
    if (have < V1_OFF_FILLER) {
        return truncated(ti, "SEAL_ALG");
    }
    ti->seal_alg = h->seal_alg;
    ti->have_algs = true;
    name = sgn_alg_name(ti->sgn_alg, &ti->cksum_len);
    if (name == NULL) {
        return problem(ti, "unknown SGN_ALG %02x %02x", ti->sgn_alg & 0xffu,
                       ti->sgn_alg >> 8);
    }
    if (!wrap && ti->seal_alg != V1_SEAL_ALG_NONE) {
        problem(ti,
                "SEAL_ALG field of a %s token is %02x %02x, not the "
                "filler ff ff",
                tok == TOK_ID_V1_MIC ? "MIC" : "deletion", ti->seal_alg & 0xffu,
                ti->seal_alg >> 8);
    } else if (wrap && seal_alg_name(ti->seal_alg) == NULL) {
        problem(ti, "unknown SEAL_ALG %02x %02x", ti->seal_alg & 0xffu,
                ti->seal_alg >> 8);
    } else if (!algs_agree(ti->sgn_alg, ti->seal_alg)) {
        problem(ti, "SEAL_ALG %s does not go with SGN_ALG %s",
                seal_alg_name(ti->seal_alg), name);
    }
    if (r->bad) {
        return truncated(ti, "the filler");
    }
    if (h->filler != V1_FILLER) {
        problem(ti, "filler is %02x %02x, not ff ff", h->filler >> 8,
                h->filler & 0xffu);
    }
    gk5i_skip(r, V1_SEQ_BYTES);
    if (r->bad) {
        return truncated(ti, "SND_SEQ");
    }
    ti->header_len = V1_HDR_LEN + V1_SEQ_BYTES;
    gk5i_skip(r, ti->cksum_len);
    if (r->bad) {
        return truncated(ti, "SGN_CKSUM");
    }
    if (!wrap) {
        if (gk5i_rd_left(r) != 0) {
            return problem(ti, "%zu byte%s after SGN_CKSUM", gk5i_rd_left(r),
                           gk5i_rd_left(r) == 1 ? "" : "s");
        }
        return ti->problem[0] == '\0' ? 0 : -1;
    }
    ti->conf_len = V1_CONF_BYTES;
    gk5i_skip(r, ti->conf_len);
    if (r->bad) {
        return truncated(ti, "the confounder");
    }
    body = gk5i_rd_left(r);
    body_at = gk5i_get_bytes(r, body);
    ti->body_len = body;
    ti->pad = -1;
    if (body == 0) {
        return problem(ti, "no data or pad after the confounder (at least "
                           "one pad byte is always sent)");
    }
    if (ti->sgn_alg != 0x0011 && body % 8 != 0) {
        return problem(ti,
                       "data + pad is %zu bytes, not a whole number of "
                       "8-byte blocks",
                       body);
    }
    if (ti->seal_alg == V1_SEAL_ALG_NONE) {
        /* In the clear: the last byte is the pad length (RFC 1964 1.2.2.3;
         * RC4 always pads with one byte of 1). */
        uint8_t pad = body_at[body - 1];
        size_t max = ti->sgn_alg == 0x0011 ? 1 : 8;

        ti->pad = pad;
        if (pad == 0 || pad > max || pad > body) {
            return problem(ti, "pad byte %u is not a valid pad (1..%zu)",
                           (unsigned)pad, max);
        }
        for (size_t i = 0; i < pad; i++) {
            if (body_at[body - 1 - i] != pad) {
                return problem(ti, "the %u pad bytes are not all %u",
                               (unsigned)pad, (unsigned)pad);
            }
        }
        ti->data_len = body - pad;
    }
    return ti->problem[0] == '\0' ? 0 : -1;
}

/* RFC 2743 3.1: 0x60, DER length, 0x06 OID, then the inner token. */
static int decode_framed(const uint8_t *p, size_t n, struct cli_token_info *ti)
{
    struct gk5i_der_len dl;
    struct gk5i_v1_header h;
    struct gk5i_rd r;
    struct gk5i_rd in;
    uint8_t tag;
    uint8_t olen;
    const uint8_t *oid;
    size_t avail;
    size_t have;

    gk5i_rd_init(&r, p + 1, n - 1); /* after the 0x60 */
    switch (gk5i_der_get_length(&r, sizeof(size_t), &dl)) {
    case GK5I_DER_OK:
        break;
    case GK5I_DER_INDEFINITE:
        return problem(ti, "indefinite DER length (0x80): not DER");
    case GK5I_DER_TOO_LONG:
        return problem(ti, "DER length of %zu octets is too long",
                       dl.octets - 1);
    case GK5I_DER_TRUNCATED:
    default:
        return truncated(ti, "the DER length");
    }
    ti->der_len = dl.len;
    ti->der_octets = dl.octets;
    if (!dl.minimal) {
        problem(ti, "DER length %zu is not in its shortest form", ti->der_len);
    }
    avail = gk5i_rd_left(&r);
    if (ti->der_len > avail) {
        problem(ti,
                "truncated: the DER length says %zu bytes follow, the input "
                "has %zu",
                ti->der_len, avail);
    } else if (ti->der_len < avail) {
        problem(ti, "%zu byte%s after the end of the token",
                avail - ti->der_len, avail - ti->der_len == 1 ? "" : "s");
    }
    /* Decode the token itself: what the length covers, or what is there. */
    gk5i_rd_init(&in, r.p, ti->der_len < avail ? ti->der_len : avail);
    tag = gk5i_get_u8(&in);
    if (in.bad) {
        return truncated(ti, "the mech OID");
    }
    if (tag != 0x06) {
        return problem(ti,
                       "expected the mech OID (tag 06) after the length, "
                       "found tag %02x",
                       tag);
    }
    olen = gk5i_get_u8(&in);
    if (in.bad) {
        return truncated(ti, "the mech OID");
    }
    if (olen >= 0x80) {
        return problem(ti, "mech OID with a long-form length");
    }
    oid = gk5i_get_bytes(&in, olen);
    if (in.bad) {
        return truncated(ti, "the mech OID");
    }
    if (decode_oid(oid, olen, ti) != 0) {
        return -1;
    }
    ti->framing_len = (size_t)(in.p - p);
    have = gk5i_rd_left(&in);
    gk5i_v1_get_header(&in, &h);
    if (have < 2) {
        return truncated(ti, "TOK_ID");
    }
    ti->tok_id = h.tok_id;
    ti->have_tok_id = true;
    if (!oid_is_krb5(ti->oid)) {
        return problem(ti, "mech OID %s%s%s%s is not Kerberos V5", ti->oid,
                       ti->oid_name != NULL ? " (" : "",
                       ti->oid_name != NULL ? ti->oid_name : "",
                       ti->oid_name != NULL ? ")" : "");
    }
    switch (ti->tok_id) {
    case TOK_ID_V1_MIC:
    case TOK_ID_V1_WRAP:
    case TOK_ID_V1_DELETE:
        return decode_rfc1964(&in, &h, have, ti);
    case 0x0100:
        return problem(ti, "a context-establishment token (AP-REQ), not a "
                           "per-message token");
    case 0x0200:
        return problem(ti, "a context-establishment token (AP-REP), not a "
                           "per-message token");
    case 0x0300:
        return problem(ti, "a context-establishment token (KRB-ERROR), not "
                           "a per-message token");
    case TOK_ID_CFX_MIC:
    case TOK_ID_CFX_WRAP:
        return problem(ti,
                       "RFC 4121 TOK_ID %02x %02x inside RFC 2743 "
                       "framing: RFC 4121 per-message tokens are not "
                       "framed",
                       ti->tok_id >> 8, ti->tok_id & 0xffu);
    default:
        return problem(ti, "unknown TOK_ID %02x %02x", ti->tok_id >> 8,
                       ti->tok_id & 0xffu);
    }
}

int cli_inspect_decode(const uint8_t *p, size_t n, struct cli_token_info *ti)
{
    memset(ti, 0, sizeof(*ti));
    ti->length = n;
    ti->pad = -1;
    if (n == 0 || p == NULL) {
        return problem(ti, "empty input");
    }
    if (p[0] == 0x60) {
        return decode_framed(p, n, ti);
    }
    if (n >= 2 && p[0] == 0x04 && p[1] == 0x04) {
        return decode_rfc4121(p, n, false, ti);
    }
    if (n >= 2 && p[0] == 0x05 && p[1] == 0x04) {
        return decode_rfc4121(p, n, true, ti);
    }
    if (n >= 2) {
        return problem(ti,
                       "unknown token: it starts %02x %02x (RFC 4121 tokens "
                       "start 04 04 or 05 04, RFC 1964 tokens 60)",
                       p[0], p[1]);
    }
    return problem(ti, "unknown token: a single byte %02x", p[0]);
}

/* ---- printing ---- */

static const char *kind_name(enum cli_token_kind k)
{
    switch (k) {
    case CLI_TOKEN_RFC4121_MIC:
        return "RFC 4121 MIC";
    case CLI_TOKEN_RFC4121_WRAP:
        return "RFC 4121 Wrap";
    case CLI_TOKEN_RFC1964_MIC:
        return "RFC 1964 MIC";
    case CLI_TOKEN_RFC1964_WRAP:
        return "RFC 1964 Wrap";
    case CLI_TOKEN_RFC1964_DELETE:
        return "RFC 1964 context deletion";
    case CLI_TOKEN_UNKNOWN:
    default:
        return "unknown";
    }
}

#define FIELD "%-11s "

static void print_flags(FILE *f, uint8_t flags)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } names[] = {
        {CFX_FLAG_SENT_BY_ACCEPTOR, "SentByAcceptor"},
        {CFX_FLAG_SEALED, "Sealed"},
        {CFX_FLAG_ACCEPTOR_SUBKEY, "AcceptorSubkey"},
    };
    const char *sep = "";

    fprintf(f, FIELD "0x%02x (", "flags", flags);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if ((flags & names[i].bit) != 0) {
            fprintf(f, "%s%s", sep, names[i].name);
            sep = ", ";
        }
    }
    if ((flags & ~CFX_FLAGS_KNOWN) != 0) {
        fprintf(f, "%sunknown 0x%02x", sep, flags & ~CFX_FLAGS_KNOWN);
        sep = ", ";
    }
    fprintf(f, "%s)\n", *sep == '\0' ? "none" : "");
    fprintf(f, FIELD "%s\n", "sent by",
            (flags & CFX_FLAG_SENT_BY_ACCEPTOR) != 0 ? "the acceptor"
                                                     : "the initiator");
}

static void print_rfc4121(FILE *f, const struct cli_token_info *ti)
{
    bool wrap = ti->kind == CLI_TOKEN_RFC4121_WRAP;

    if (ti->length < 3) {
        return;
    }
    print_flags(f, ti->flags);
    if (wrap && ti->length >= 6) {
        fprintf(f, FIELD "%u\n", "EC", (unsigned)ti->ec);
    }
    if (wrap && ti->length >= 8) {
        fprintf(f, FIELD "%u\n", "RRC", (unsigned)ti->rrc);
    }
    if (!ti->have_seq) {
        return;
    }
    fprintf(f, FIELD "%llu (0x%016llx)\n", "SND_SEQ",
            (unsigned long long)ti->snd_seq, (unsigned long long)ti->snd_seq);
    fprintf(f, FIELD "%zu bytes\n", "header", ti->header_len);
    if (!wrap) {
        fprintf(f, FIELD "%zu bytes\n", "checksum", ti->cksum_len);
        return;
    }
    if ((ti->flags & CFX_FLAG_SEALED) != 0) {
        fprintf(f,
                FIELD "%zu bytes, encrypted: E(confounder | data | %u filler "
                      "bytes | header) | checksum%s\n",
                "payload", ti->body_len, (unsigned)ti->ec,
                ti->rrc != 0 ? ", rotated right by RRC" : "");
    } else if (ti->cksum_len != 0) {
        fprintf(f, FIELD "%zu bytes: data | checksum%s\n", "payload",
                ti->body_len, ti->rrc != 0 ? ", rotated right by RRC" : "");
        fprintf(f, FIELD "%zu bytes, in the clear\n", "data", ti->data_len);
        fprintf(f, FIELD "%zu bytes (EC)\n", "checksum", ti->cksum_len);
    } else {
        fprintf(f, FIELD "%zu bytes\n", "payload", ti->body_len);
    }
}

static void print_rfc1964(FILE *f, const struct cli_token_info *ti)
{
    size_t cl = 0;
    const char *sn;
    const char *en;
    bool wrap = ti->kind == CLI_TOKEN_RFC1964_WRAP;

    if (!ti->have_algs) {
        return;
    }
    sn = sgn_alg_name(ti->sgn_alg, &cl);
    en = seal_alg_name(ti->seal_alg);
    fprintf(f, FIELD "0x%04x, bytes %02x %02x (%s)\n", "SGN_ALG", ti->sgn_alg,
            ti->sgn_alg & 0xffu, ti->sgn_alg >> 8, sn != NULL ? sn : "unknown");
    if (wrap) {
        fprintf(f, FIELD "0x%04x, bytes %02x %02x (%s)\n", "SEAL_ALG",
                ti->seal_alg, ti->seal_alg & 0xffu, ti->seal_alg >> 8,
                en != NULL ? en : "unknown");
    } else {
        fprintf(f, FIELD "bytes %02x %02x (filler in a %s)\n", "SEAL_ALG",
                ti->seal_alg & 0xffu, ti->seal_alg >> 8,
                ti->kind == CLI_TOKEN_RFC1964_MIC ? "MIC" : "deletion token");
    }
    if (ti->header_len == 0) {
        return;
    }
    fprintf(f,
            FIELD "8 bytes, encrypted with the session key: the sequence "
                  "number and\n" FIELD "direction cannot be read without "
                  "it\n",
            "SND_SEQ", "");
    fprintf(f, FIELD "%zu bytes (TOK_ID .. SND_SEQ)\n", "header",
            ti->header_len);
    fprintf(f, FIELD "%zu bytes\n", "SGN_CKSUM", ti->cksum_len);
    if (!wrap || ti->conf_len == 0) {
        return;
    }
    fprintf(f, FIELD "%zu bytes%s\n", "confounder", ti->conf_len,
            ti->seal_alg != 0xffff ? ", encrypted" : "");
    if (ti->seal_alg != 0xffff) {
        fprintf(f, FIELD "%zu bytes, encrypted (data, then 1..8 pad bytes)\n",
                "data+pad", ti->body_len);
    } else if (ti->problem[0] == '\0') {
        fprintf(f, FIELD "%zu bytes: %zu data, %d pad\n", "data+pad",
                ti->body_len, ti->data_len, ti->pad);
    } else {
        fprintf(f, FIELD "%zu bytes\n", "data+pad", ti->body_len);
    }
}

void cli_inspect_print(FILE *f, const struct cli_token_info *ti)
{
    fprintf(f, FIELD "%s", "kind", kind_name(ti->kind));
    if (ti->have_tok_id) {
        fprintf(f, " (TOK_ID %02x %02x)", ti->tok_id >> 8, ti->tok_id & 0xffu);
    }
    fprintf(f, "\n" FIELD "%zu bytes\n", "length", ti->length);
    if (ti->oid[0] != '\0') {
        fprintf(f,
                FIELD "%zu bytes: 0x60, DER length %zu (%zu octet%s), mech "
                      "OID %s%s%s%s\n",
                "framing", ti->framing_len, ti->der_len, ti->der_octets,
                ti->der_octets == 1 ? "" : "s", ti->oid,
                ti->oid_name != NULL ? " (" : "",
                ti->oid_name != NULL ? ti->oid_name : "",
                ti->oid_name != NULL ? ")" : "");
    }
    switch (ti->kind) {
    case CLI_TOKEN_RFC4121_MIC:
    case CLI_TOKEN_RFC4121_WRAP:
        print_rfc4121(f, ti);
        break;
    case CLI_TOKEN_RFC1964_MIC:
    case CLI_TOKEN_RFC1964_WRAP:
    case CLI_TOKEN_RFC1964_DELETE:
        print_rfc1964(f, ti);
        break;
    case CLI_TOKEN_UNKNOWN:
    default:
        break;
    }
}

/* ---- the command ---- */

static void inspect_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 inspect [FILE]\n"
            "\n"
            "Decode a GSS-API Kerberos V5 per-message token without keys:\n"
            "its kind (RFC 4121 MIC or Wrap; RFC 1964 MIC, Wrap or context\n"
            "deletion inside RFC 2743 framing), the flags by name, EC, RRC\n"
            "and SND_SEQ (RFC 4121), SGN_ALG and SEAL_ALG by name (RFC 1964,\n"
            "whose SND_SEQ is encrypted), and the length of each part.\n"
            "\n"
            "FILE holds the token as raw bytes, or as hex digits (spaces and\n"
            "newlines allowed).  Without FILE, or with '-', standard input.\n"
            "\n"
            "Options:\n"
            "  -h, --help  this text\n"
            "\n"
            "Exit status: 0 a well-formed token; 1 a malformed or unknown "
            "token (the\nproblem is named), or the input cannot be read; "
            "2 bad usage.\n");
}

static bool is_hex_space(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F') || c == ' ' || c == '\t' || c == '\n' ||
           c == '\r';
}

/* Hex text (all hex digits and white space, at least one digit) is
 * decoded in place; anything else is taken as raw bytes. */
static int maybe_unhex(uint8_t *buf, size_t *len)
{
    size_t digits = 0;
    size_t out = 0;
    int hi = -1;

    for (size_t i = 0; i < *len; i++) {
        if (!is_hex_space(buf[i])) {
            return 0; /* raw */
        }
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
            buf[i] != '\r') {
            digits++;
        }
    }
    if (digits == 0) {
        return 0;
    }
    if (digits % 2 != 0) {
        cli_error("inspect: the hex input has an odd number of digits (%zu)",
                  digits);
        return -1;
    }
    for (size_t i = 0; i < *len; i++) {
        uint8_t c = buf[i];
        int d;

        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        }
        d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (hi < 0) {
            hi = d;
        } else {
            buf[out++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    *len = out;
    return 0;
}

int gk5_cli_inspect(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_token_info ti;
    const char *path = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    int ret = CLI_EXIT_FAIL;
    int c;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            inspect_usage(stdout);
            return CLI_EXIT_OK;
        }
        return cli_option_error("inspect", c, argv);
    }
    if (optind < argc) {
        path = argv[optind++];
    }
    if (optind < argc) {
        cli_error("inspect: unexpected argument '%s'", argv[optind]);
        fprintf(stderr, "Try 'gk5 inspect --help'.\n");
        return CLI_EXIT_USAGE;
    }
    if (path == NULL || strcmp(path, "-") == 0) {
        if (cli_read_all(stdin, &buf, &len) != 0) {
            goto cleanup;
        }
    } else if (cli_read_file(path, &buf, &len) != 0) {
        goto cleanup;
    }
    if (maybe_unhex(buf, &len) != 0) {
        goto cleanup;
    }
    if (cli_inspect_decode(buf, len, &ti) == 0) {
        ret = CLI_EXIT_OK;
    }
    cli_inspect_print(stdout, &ti);
    if (fflush(stdout) != 0) {
        cli_error("inspect: cannot write output");
        ret = CLI_EXIT_FAIL;
        goto cleanup;
    }
    if (ti.problem[0] != '\0') {
        cli_error("inspect: %s", ti.problem);
    }

cleanup:
    free(buf);
    return ret;
}
