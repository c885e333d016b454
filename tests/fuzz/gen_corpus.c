/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Writes the seed corpora of the fuzz targets: valid tokens, ciphertexts
 * and context buffers made from the same seed keys the targets use
 * (fuzz_common.c), each prefixed with the configuration bytes the target
 * reads first.
 *
 *   gen_corpus DIR      writes DIR/<target>/<name> for every target
 *
 * Confounders are random, so tokens differ from run to run; names do not.
 * Run it once in a -Ddes3=true build to include the DES3 (RFC 1964) seeds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "common/util.h"
#include "der/der.h"
#include "fuzz_krb.h"
#include "krb5/pac.h"
#include "mech/gss_framing.h"
#include "v1forge.h"

static const char *outdir;
static int failures;

/* A growing byte string. */
struct seed {
    uint8_t p[16384];
    size_t n;
};

static void s_reset(struct seed *s)
{
    s->n = 0;
}

static void s_put(struct seed *s, const void *p, size_t n)
{
    if (n > sizeof(s->p) - s->n) {
        fprintf(stderr, "gen_corpus: seed too large\n");
        exit(1);
    }
    if (n != 0) {
        memcpy(s->p + s->n, p, n);
    }
    s->n += n;
}

static void s_u8(struct seed *s, unsigned v)
{
    uint8_t b = (uint8_t)v;
    s_put(s, &b, 1);
}

static void s_u16(struct seed *s, unsigned v)
{
    s_u8(s, (v >> 8) & 0xff);
    s_u8(s, v & 0xff);
}

static void s_u32(struct seed *s, uint32_t v)
{
    s_u16(s, v >> 16);
    s_u16(s, v & 0xffff);
}

static void mkdir_p(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_corpus: mkdir %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void write_seed(const char *target, const char *name,
                       const struct seed *s)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", outdir, target);
    mkdir_p(path);
    snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(s->p, 1, s->n, f) != s->n || fclose(f) != 0) {
        fprintf(stderr, "gen_corpus: cannot write %s\n", path);
        exit(1);
    }
}

static void check(uint32_t major, uint32_t minor, const char *what)
{
    if (GK5_ERROR(major) != 0) {
        fprintf(stderr, "gen_corpus: %s: %s\n", what,
                gk5_display_status(major, minor));
        failures++;
    }
}

static const char *et_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == 0 ? d.name : "unknown";
}

static const uint8_t message[] = "gk5 fuzz corpus: a message of some length, "
                                 "longer than one cipher block";

/* Configuration bytes for cfg plus extra b1 bits. */
static void s_cfg(struct seed *s, const struct fuzz_cfg *cfg, unsigned bits)
{
    s_u8(s, fuzz_enctype_byte(cfg->enctype));
    s_u8(s, (cfg->initiator ? 0 : FUZZ_B1_ACCEPTOR) |
                (cfg->acceptor_subkey ? FUZZ_B1_SUBKEY : 0) | bits);
}

static void cfg_name(char *buf, size_t len, const struct fuzz_cfg *cfg,
                     const char *what)
{
    snprintf(buf, len, "%s-%s-%s%s", what, et_name(cfg->enctype),
             cfg->initiator ? "to-initiator" : "to-acceptor",
             cfg->acceptor_subkey ? "-subkey" : "");
}

/* A Wrap token from cfg's peer. */
static void peer_wrap(const struct fuzz_cfg *cfg, int conf, gk5_buffer *tok)
{
    gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
    gk5_buffer msg = {sizeof(message) - 1, NULL};
    uint32_t minor = 0;
    int conf_state = 0;

    msg.value = fuzz_dup(message, msg.length);
    check(gk5_wrap(&minor, tx, conf, GK5_QOP_DEFAULT, &msg, &conf_state, tok),
          minor, "wrap");
    free(msg.value);
    fuzz_ctx_done(cfg, true, tx);
}

static void peer_mic(const struct fuzz_cfg *cfg, gk5_buffer *tok)
{
    gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
    gk5_buffer msg = {sizeof(message) - 1, NULL};
    uint32_t minor = 0;

    msg.value = fuzz_dup(message, msg.length);
    check(gk5_get_mic(&minor, tx, GK5_QOP_DEFAULT, &msg, tok), minor,
          "get_mic");
    free(msg.value);
    fuzz_ctx_done(cfg, true, tx);
}

static void per_message_seeds(const struct fuzz_cfg *cfg)
{
    struct seed s;
    char name[256], full[300];
    bool rfc4121 = !fuzz_rfc1964(cfg->enctype);

    for (int conf = 0; conf < 2; conf++) {
        gk5_buffer tok = {0, NULL};
        const char *cn = conf ? "sealed" : "integ";

        peer_wrap(cfg, conf, &tok);
        if (tok.value == NULL) {
            continue;
        }
        /* unwrap, diff_mit, inspect: raw token. */
        cfg_name(name, sizeof(name), cfg, cn);
        s_reset(&s);
        s_cfg(&s, cfg, 0);
        s_put(&s, tok.value, tok.length);
        write_seed("unwrap", name, &s);
        write_seed("diff_mit", name, &s);
        s_reset(&s);
        s_put(&s, tok.value, tok.length);
        write_seed("inspect", name, &s);
        if (rfc4121) {
            /* The same token as MIT's IOV wrap and Windows send it:
             * RRC = 16 + checksum length (sealed) or checksum length. */
            size_t cks = 0;
            uint8_t *rot = fuzz_dup(tok.value, tok.length);
            if (gk5_c_checksum_length(cfg->enctype, &cks) != 0) {
                failures++;
            }
            fuzz_set_rrc(rot, tok.length, (uint16_t)(conf ? 16 + cks : cks));
            snprintf(full, sizeof(full), "%s-rrc", name);
            s_reset(&s);
            s_cfg(&s, cfg, 0);
            s_put(&s, rot, tok.length);
            write_seed("unwrap", full, &s);
            write_seed("diff_mit", full, &s);
            s_reset(&s);
            s_put(&s, rot, tok.length);
            write_seed("inspect", full, &s);
            free(rot);
        }
        /* unwrap_iov raw: as a STREAM, and cut at 16 | data | trailer. */
        s_reset(&s);
        s_cfg(&s, cfg, 0);
        s_u8(&s, 0); /* STREAM, no SIGN_ONLY */
        s_u16(&s, 0);
        s_u16(&s, 0);
        s_u8(&s, 0); /* no sign-only bytes */
        s_put(&s, tok.value, tok.length);
        snprintf(full, sizeof(full), "%s-stream", name);
        write_seed("unwrap_iov", full, &s);
        gk5_buffer_release(&tok);

        /* Generate-mode seeds: no flips, no rotation, the message. */
        s_reset(&s);
        s_cfg(&s, cfg, FUZZ_B1_GENERATE | (conf ? FUZZ_B1_CONF : 0));
        s_u16(&s, 0);
        s_u8(&s, 0);
        s_u8(&s, 0);
        s_put(&s, message, sizeof(message) - 1);
        snprintf(full, sizeof(full), "%s-gen", name);
        write_seed("unwrap", full, &s);
        write_seed("diff_mit", full, &s);
        s.p[1] |= 0x10; /* diff_mit: MIT sends */
        snprintf(full, sizeof(full), "%s-gen-mit-sends", name);
        write_seed("diff_mit", full, &s);
        if (rfc4121) {
            s.p[1] &= (uint8_t)~0x10u;
            s.p[2] = 0;
            s.p[3] = 28;
            s.p[4] = 1;
            snprintf(full, sizeof(full), "%s-gen-rrc28", name);
            write_seed("unwrap", full, &s);
            write_seed("diff_mit", full, &s);
        }
        /* unwrap_iov generate: same layout; no TRAILER + SIGN_ONLY before,
         * as a STREAM; gk5 allocating + SIGN_ONLY after, STREAM with
         * another RRC; no TRAILER + allocating, contiguous unwrap. */
        static const uint8_t layouts[] = {0x00, 0x15, 0x2a, 0x73};
        for (size_t li = 0; li < sizeof(layouts); li++) {
            unsigned layout = layouts[li];
            s_reset(&s);
            s_cfg(&s, cfg, FUZZ_B1_GENERATE | (conf ? FUZZ_B1_CONF : 0));
            s_u8(&s, layout);
            s_u8(&s, (unsigned)li); /* DATA pieces - 1 */
            s_u16(&s, 28);
            s_u8(&s, 0); /* no flips */
            s_u8(&s, 5);
            s_put(&s, "sign!", 5);
            s_put(&s, message, sizeof(message) - 1);
            snprintf(full, sizeof(full), "%s-gen-layout%02x", name, layout);
            write_seed("unwrap_iov", full, &s);
        }
    }

    /* MIC: raw (u16 message length, message, token) and generate. */
    {
        gk5_buffer tok = {0, NULL};
        peer_mic(cfg, &tok);
        if (tok.value != NULL) {
            cfg_name(name, sizeof(name), cfg, "mic");
            for (unsigned iov = 0; iov < 2; iov++) {
                s_reset(&s);
                s_cfg(&s, cfg, iov ? 0x10 : 0);
                s_u16(&s, sizeof(message) - 1);
                s_put(&s, message, sizeof(message) - 1);
                s_put(&s, tok.value, tok.length);
                snprintf(full, sizeof(full), "%s%s", name, iov ? "-iov" : "");
                write_seed("verify_mic", full, &s);
            }
            s_reset(&s);
            s_put(&s, tok.value, tok.length);
            write_seed("inspect", name, &s);
            s_reset(&s);
            s_cfg(&s, cfg, FUZZ_B1_GENERATE);
            s_u8(&s, 0);
            s_u8(&s, 0);
            s_put(&s, message, sizeof(message) - 1);
            snprintf(full, sizeof(full), "%s-gen", name);
            write_seed("verify_mic", full, &s);
            gk5_buffer_release(&tok);
        }
    }
}

/* The lucid fields as fuzz_import_gssd.c decodes them. */
struct lucid_seed {
    uint32_t version, protocol, sign_alg, seal_alg, have_subkey;
    int32_t et[3];   /* rfc1964 ctx_key, cfx ctx_key, acceptor_subkey */
    uint8_t klen[3]; /* key lengths (bit 7: NULL data) */
};

static void s_lucid(struct seed *s, unsigned mode, bool initiator,
                    const struct lucid_seed *l)
{
    uint8_t key[64];

    s_u8(s, mode);
    s_u32(s, l->version);
    s_u32(s, initiator ? 1 : 0);
    s_u32(s, 0); /* endtime: none */
    s_u32(s, 0); /* send_seq, high */
    s_u32(s, initiator ? 1000 : 2000);
    s_u32(s, 0); /* recv_seq, high */
    s_u32(s, initiator ? 2000 : 1000);
    s_u32(s, l->protocol);
    s_u32(s, l->sign_alg);
    s_u32(s, l->seal_alg);
    for (int k = 0; k < 3; k++) {
        size_t n = l->klen[k] & 0x7fu;
        if (k == 1) { /* have_acceptor_subkey precedes the cfx keys */
            s_u32(s, l->have_subkey);
        }
        s_u32(s, (uint32_t)l->et[k]);
        s_u8(s, l->klen[k]);
        memset(key, 0, sizeof(key));
        (void)fuzz_seed_key(l->et[k], (unsigned)k & 1u, key, sizeof(key));
        s_put(s, key, n < sizeof(key) ? n : sizeof(key));
    }
}

/* Lucid contexts for one configuration: the valid one, then each field
 * that import must refuse. */
static void lucid_seeds(const struct fuzz_cfg *cfg)
{
    int32_t et = cfg->enctype;
    uint8_t key[64];
    uint8_t kl = (uint8_t)fuzz_seed_key(et, 0, key, sizeof(key));
    bool des3 = fuzz_rfc1964(et);
    struct lucid_seed ok = {1,
                            des3 ? 0 : 1,
                            4,
                            2,
                            cfg->acceptor_subkey,
                            {des3 ? et : 0, des3 ? 0 : et, des3 ? 0 : et},
                            {des3 ? kl : 0, des3 ? 0 : kl, des3 ? 0 : kl}};
    struct lucid_seed l;
    struct seed s;
    char name[256];
    static const struct {
        const char *what;
        unsigned mode;
    } misuse[] = {{"null-out", 0x03}, {"null-in", 0x05}, {"null-minor", 0x09}};

    cfg_name(name, sizeof(name), cfg, "lucid");
    s_reset(&s);
    s_lucid(&s, 1, cfg->initiator, &ok);
    write_seed("import_gssd", name, &s);
    if (cfg->initiator || cfg->acceptor_subkey) {
        return; /* the refusals below once per enctype */
    }
    for (int i = 0; i < 7; i++) {
        const char *what = "";
        l = ok;
        switch (i) {
        case 0:
            l.version = 2;
            what = "version2";
            break;
        case 1:
            l.protocol = 2;
            what = "protocol2";
            break;
        case 2:
            l.klen[des3 ? 0 : 1] |= 0x80;
            what = "key-null";
            break;
        case 3:
            l.klen[des3 ? 0 : 1] = (uint8_t)(kl - 1);
            what = "key-short";
            break;
        case 4:
            l.protocol = des3 ? 1 : 0;
            l.et[0] = et;
            l.klen[0] = kl;
            l.et[1] = l.et[2] = et;
            l.klen[1] = l.klen[2] = kl;
            what = "other-protocol";
            break;
        case 5:
            l.sign_alg = 0;
            l.protocol = 0;
            l.et[0] = et;
            l.klen[0] = kl;
            what = "sign-alg0";
            break;
        case 6:
            l.seal_alg = 0xffff;
            l.protocol = 0;
            l.et[0] = et;
            l.klen[0] = kl;
            what = "seal-none";
            break;
        }
        snprintf(name, sizeof(name), "lucid-%s-%s", et_name(et), what);
        s_reset(&s);
        s_lucid(&s, 1, false, &l);
        write_seed("import_gssd", name, &s);
    }
    for (size_t i = 0; i < sizeof(misuse) / sizeof(misuse[0]); i++) {
        snprintf(name, sizeof(name), "lucid-%s-%s", et_name(et),
                 misuse[i].what);
        s_reset(&s);
        s_lucid(&s, misuse[i].mode, false, &ok);
        write_seed("import_gssd", name, &s);
    }
}

/*
 * DES3 (RFC 1964) tokens with a valid checksum that gk5 must still refuse,
 * made by the independent maker (v1forge.c) with the peer's key: padding
 * wrong in each way gk5 checks, the receiver's own direction bytes, a body
 * shorter than a block or not whole blocks; and the good token beside
 * them.  For gk5_unwrap (raw), gk5_unwrap_iov (raw: STREAM, and HEADER |
 * DATA [| PADDING] | TRAILER cut after the confounder) and verify_mic.
 */
static void des3_forged_seeds(const struct fuzz_cfg *cfg)
{
    static const struct {
        const char *name;
        size_t msg_len;
        uint8_t pad[16];
        size_t pad_len;
    } pads[] = {
        {"pad-good", 7, {1}, 1},
        {"pad-zero", 7, {0}, 1},
        {"pad-big", 7, {100}, 1},
        {"pad-differ", 6, {3, 2}, 2},
        {"pad-nine", 0, {9, 9, 9, 9, 9, 9, 9, 9}, 8},
        {"pad-into-msg", 5, {8, 8, 8}, 3},
        {"pad-sixteen",
         0,
         {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
         16},
    };
    static const uint8_t to_initiator[4] = {0xff, 0xff, 0xff, 0xff};
    static const uint8_t to_acceptor[4] = {0, 0, 0, 0};
    const uint8_t *dir = cfg->initiator ? to_initiator : to_acceptor;
    const uint8_t *own = cfg->initiator ? to_acceptor : to_initiator;
    uint8_t key[GK5T_V1_KEY_BYTES], body[64], tok[256];
    struct seed s;
    char name[256], full[300];

    if (fuzz_seed_key(cfg->enctype, 0, key, sizeof(key)) != sizeof(key)) {
        failures++;
        return;
    }
    for (size_t i = 0; i < sizeof(pads) / sizeof(pads[0]) + 4; i++) {
        for (int sealed = 0; sealed < 2; sealed++) {
            const uint8_t *d = dir;
            size_t blen = 8, len;
            const char *what;

            memset(body, 0xc5, 8); /* confounder */
            if (i < sizeof(pads) / sizeof(pads[0])) {
                memcpy(body + blen, "message", pads[i].msg_len);
                blen += pads[i].msg_len;
                memcpy(body + blen, pads[i].pad, pads[i].pad_len);
                blen += pads[i].pad_len;
                what = pads[i].name;
            } else if (i == sizeof(pads) / sizeof(pads[0])) {
                memcpy(body + blen, "message\1", 8);
                blen += 8;
                d = own;
                what = "reflected";
            } else if (i == sizeof(pads) / sizeof(pads[0]) + 1) {
                blen = sealed ? 0 : 4; /* less than a block */
                what = "short-body";
            } else if (i == sizeof(pads) / sizeof(pads[0]) + 2) {
                if (sealed) {
                    continue; /* encryption needs whole blocks */
                }
                memcpy(body + blen, "message\1!", 9);
                blen += 9;
                what = "ragged-body";
            } else {
                if (sealed) {
                    continue;
                }
                /* After the confounder, less than a block. */
                memcpy(body + blen, "ab\1", 3);
                blen += 3;
                what = "short-after-confounder";
            }
            len = gk5t_v1_encode(key, GK5T_V1_TOK_WRAP,
                                 sealed ? GK5T_V1_SEAL_DES3 : GK5T_V1_SEAL_NONE,
                                 1000, d, body, blen, tok, sizeof(tok));
            if (len == 0) {
                failures++;
                continue;
            }
            snprintf(name, sizeof(name), "forged-%s-%s-%s",
                     sealed ? "sealed" : "integ", what,
                     cfg->initiator ? "to-initiator" : "to-acceptor");
            s_reset(&s);
            s_cfg(&s, cfg, 0);
            s_put(&s, tok, len);
            write_seed("unwrap", name, &s);
            /* unwrap_iov raw: layout, split, split, sign-only length. */
            for (unsigned layout = 0; layout < 4; layout++) {
                size_t hdr = len - blen + (blen >= 8 ? 8 : 0);
                s_reset(&s);
                s_cfg(&s, cfg, 0);
                s_u8(&s, layout);
                s_u16(&s, (unsigned)hdr);
                s_u16(&s, (unsigned)(len - hdr));
                s_u8(&s, 0);
                s_put(&s, tok, len);
                snprintf(full, sizeof(full), "%s-layout%u", name, layout);
                write_seed("unwrap_iov", full, &s);
            }
            if (i == 0) { /* a HEADER that ends inside the OID */
                s_reset(&s);
                s_cfg(&s, cfg, 0);
                s_u8(&s, 1); /* HEADER | DATA */
                s_u16(&s, 5);
                s_u16(&s, 0);
                s_u8(&s, 0);
                s_put(&s, tok, len);
                snprintf(full, sizeof(full), "%s-header5", name);
                write_seed("unwrap_iov", full, &s);
            }
        }
    }
    /* MICs: the good one; from the receiver's own direction; with
     * direction bytes that disagree; and cut short (the DER length made to
     * agree): 4 bytes of the checksum, or all but 5 or 1 header bytes. */
    static const char *const mic_kinds[] = {
        "good", "reflected", "mixed-dir", "short-cksum", "header5", "header1"};
    for (size_t k = 0; k < sizeof(mic_kinds) / sizeof(mic_kinds[0]); k++) {
        static const uint8_t msg[] = "message";
        uint8_t mixed[4];
        const uint8_t *d = k == 1 ? own : dir;
        size_t len;

        memcpy(mixed, dir, 4);
        mixed[3] ^= 0x01;
        len = gk5t_v1_encode(key, GK5T_V1_TOK_MIC, GK5T_V1_SEAL_NONE, 1000,
                             k == 2 ? mixed : d, msg, sizeof(msg) - 1, tok,
                             sizeof(tok));
        if (len == 0 || tok[1] >= 0x80) {
            failures++;
            continue;
        }
        if (k >= 3) { /* keep the OID and `keep` bytes after it */
            size_t keep = k == 3 ? 32 : k == 4 ? 5 : 1;
            tok[1] = (uint8_t)(sizeof(gk5t_krb5_oid_der) + keep);
            len = 2 + sizeof(gk5t_krb5_oid_der) + keep;
        }
        for (int iov = 0; iov < 2; iov++) {
            s_reset(&s);
            s_cfg(&s, cfg, iov ? 0x10 : 0);
            s_u16(&s, sizeof(msg) - 1);
            s_put(&s, msg, sizeof(msg) - 1);
            s_put(&s, tok, len);
            snprintf(name, sizeof(name), "forged-mic-%s-%s%s", mic_kinds[k],
                     cfg->initiator ? "to-initiator" : "to-acceptor",
                     iov ? "-iov" : "");
            write_seed("verify_mic", name, &s);
        }
    }
}

static void import_seeds(const struct fuzz_cfg *cfg)
{
    struct seed s;
    char name[256];
    uint8_t buf[128];
    size_t len = fuzz_gssd_buffer(cfg, false, buf, sizeof(buf));
    gk5_ctx *rx = fuzz_ctx_fresh(cfg, false);
    gk5_buffer exp = {0, NULL};
    uint32_t minor = 0;

    cfg_name(name, sizeof(name), cfg, "gssd");
    s_reset(&s);
    s_u8(&s, 0); /* mode: a gssd buffer */
    s_put(&s, buf, len);
    write_seed("import_gssd", name, &s);
    lucid_seeds(cfg);

    /* gk5's own format: pristine, then after tokens 0, 1 and 5 of the
     * peer's (a window with a gap). */
    for (int round = 0; round < 2; round++) {
        check(gk5_ctx_export(&minor, rx, &exp), minor, "export");
        s_reset(&s);
        s_u8(&s, 3);
        s_u32(&s, 0);
        s_u32(&s, cfg->initiator ? 2000 + 6 : 1000 + 6);
        s_put(&s, exp.value, exp.length);
        cfg_name(name, sizeof(name), cfg,
                 round == 0 ? "export" : "export-window");
        write_seed("import", name, &s);
        if (round == 0) {
            /* The same with fuzz_import.c's misuse bit. */
            char misuse[300];
            s.p[0] |= 0x40;
            snprintf(misuse, sizeof(misuse), "misuse-%s", name);
            write_seed("import", misuse, &s);
        }
        gk5_buffer_release(&exp);
        if (round == 0) {
            gk5_ctx *tx = fuzz_ctx_fresh(cfg, true);
            for (int i = 0; i < 6; i++) {
                gk5_buffer msg = {1, NULL}, tok = {0, NULL};
                gk5_buffer out = {0, NULL};
                uint32_t qop = 0;
                int conf = 0;
                msg.value = fuzz_dup("m", 1);
                check(gk5_wrap(&minor, tx, 1, 0, &msg, &conf, &tok), minor,
                      "wrap");
                if (i == 0 || i == 1 || i == 5) {
                    check(gk5_unwrap(&minor, rx, &tok, &out, &conf, &qop),
                          minor, "unwrap");
                }
                gk5_buffer_release(&out);
                gk5_buffer_release(&tok);
                free(msg.value);
            }
            fuzz_ctx_done(cfg, true, tx);
        }
    }
    fuzz_ctx_done(cfg, false, rx);
}

static void decrypt_seeds(int32_t et)
{
    static const uint32_t usages[] = {22, 24, 2, 3, 1024};
    uint8_t key[64];
    size_t key_len = fuzz_seed_key(et, 0, key, sizeof(key));
    struct fuzz_cfg cfg = {et, true, false};
    struct seed s;
    char name[256];

    for (size_t u = 0; u < (sizeof(usages) / sizeof((usages)[0])); u++) {
        for (size_t len = 0; len <= 48; len += 17) {
            uint8_t ct[256];
            size_t ct_len = sizeof(ct);
            uint32_t err = gk5_c_encrypt(et, key, key_len, usages[u], message,
                                         len, ct, &ct_len);
            if (err != 0) {
                fprintf(stderr, "gen_corpus: encrypt: %s\n", gk5_strerror(err));
                failures++;
                continue;
            }
            s_reset(&s);
            s_cfg(&s, &cfg, 0);
            s_u32(&s, usages[u]);
            s_u8(&s, 1); /* no capacity slack */
            s_put(&s, ct, ct_len);
            snprintf(name, sizeof(name), "%s-usage%u-len%zu", et_name(et),
                     (unsigned)usages[u], len);
            write_seed("decrypt", name, &s);
        }
        s_reset(&s);
        s_cfg(&s, &cfg, FUZZ_B1_GENERATE);
        s_u32(&s, usages[u]);
        s_u8(&s, 1);
        s_u8(&s, 0); /* no flips */
        s_put(&s, message, sizeof(message) - 1);
        snprintf(name, sizeof(name), "%s-usage%u-gen", et_name(et),
                 (unsigned)usages[u]);
        write_seed("decrypt", name, &s);
    }
}

/* gssd buffers gk5 must refuse: rejected and unknown enctypes, bad sizes. */
static void import_gssd_negative(void)
{
    static const struct {
        int32_t enctype;
        size_t key_len;
        const char *name;
    } bad[] = {
        {23, 16, "rc4-hmac"},   {1, 8, "des-cbc-crc"}, {3, 8, "des-cbc-md5"},
        {6, 24, "des3-alias6"}, {99, 16, "unknown99"},
    };
    struct seed s;
    char name[256];

    for (size_t i = 0; i < (sizeof(bad) / sizeof((bad)[0])); i++) {
        uint32_t flags = GK5_GSSD_FLAG_INITIATOR |
                         (fuzz_rfc1964(bad[i].enctype) ? 0 : GK5_GSSD_FLAG_CFX);
        uint32_t zero = 0, et = (uint32_t)bad[i].enctype;
        uint64_t seq = 7;
        s_reset(&s);
        s_u8(&s, 0); /* mode: a gssd buffer */
        s_put(&s, &flags, 4);
        s_put(&s, &zero, 4);
        s_put(&s, &seq, 8);
        s_put(&s, &et, 4);
        for (size_t k = 0; k < bad[i].key_len; k++) {
            s_u8(&s, (unsigned)(0x11 * (k + 1)));
        }
        snprintf(name, sizeof(name), "gssd-%s", bad[i].name);
        write_seed("import_gssd", name, &s);
        /* The same key in a lucid context, both protocols. */
        for (uint32_t proto = 0; proto < 2; proto++) {
            struct lucid_seed l = {
                1,
                proto,
                4,
                2,
                0,
                {bad[i].enctype, bad[i].enctype, 0},
                {(uint8_t)bad[i].key_len, (uint8_t)bad[i].key_len, 0}};
            s_reset(&s);
            s_lucid(&s, 1, true, &l);
            snprintf(name, sizeof(name), "lucid-proto%u-%s", (unsigned)proto,
                     bad[i].name);
            write_seed("import_gssd", name, &s);
        }
    }
    /* Misuse: a NULL output pointer; a NULL buffer with a length. */
    s_reset(&s);
    s_u8(&s, 0x02);
    s_put(&s, "0123456789abcdefghijklmnopqrstuvwxyz0123", 40);
    write_seed("import_gssd", "gssd-null-out", &s);
    s.p[0] = 0x04;
    write_seed("import_gssd", "gssd-null-in", &s);
    s.n = 1; /* a NULL buffer of length 0: too short, not misuse */
    write_seed("import_gssd", "gssd-null-in-empty", &s);
    s.p[0] = 0x08;
    s.n = 41;
    write_seed("import_gssd", "gssd-null-minor", &s);
}

/* unwrap_iov generate mode, RFC 1964: the receiver re-cuts the body
 * (fuzz_unwrap_iov.c, recut()): the pad in DATA pieces, across them, after
 * an empty SIGN_ONLY, with and without an empty PADDING. */
static void des3_recut_seeds(const struct fuzz_cfg *cfg)
{
    static const struct {
        uint8_t layout; /* sender's layout byte; bits 4-5 = 2: re-cut */
        uint16_t rrc;   /* cut points (7 bits each) and bits 14-15 */
        size_t msg_len;
    } cuts[] = {
        {0x20, 0x0000, 21},
        {0x20, 0x8000 | 3 | 11 << 7, 21},
        {0x24, 0x4000 | 1 | 2 << 7, 13},
        {0x28, 0xc000 | 2 | 5 << 7, 13},
        {0x2c, 0x4000 | 9 | 1 << 7, 24},
        {0x21, 0x8000 | 4 | 4 << 7, 0},
        {0x29, 0x0000 | 6 | 7 << 7, 7},
        {0x20, 0xc000 | 0x7f | 0x7f << 7, 40},
    };
    struct seed s;
    char name[160], full[220];

    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        for (unsigned conf = 0; conf < 2; conf++) {
            s_reset(&s);
            s_cfg(&s, cfg, FUZZ_B1_GENERATE | (conf ? FUZZ_B1_CONF : 0));
            s_u8(&s, cuts[i].layout);
            s_u8(&s, (unsigned)i % 4); /* DATA pieces - 1 */
            s_u16(&s, cuts[i].rrc);
            s_u8(&s, 0); /* no flips */
            s_u8(&s, (cuts[i].layout & 0x0c) != 0 ? 4 : 0);
            s_put(&s, "sign", (cuts[i].layout & 0x0c) != 0 ? 4 : 0);
            s_put(&s, message, cuts[i].msg_len);
            snprintf(name, sizeof(name), "recut%zu%s", i,
                     conf ? "-sealed" : "");
            cfg_name(full, sizeof(full), cfg, name);
            write_seed("unwrap_iov", full, &s);
        }
    }
}

/* fuzz_faults: every operation, the Nth allocation failing once or from
 * then on, sealed and integrity-only where the operation has the choice. */
static void fault_seeds(const struct fuzz_cfg *cfg)
{
    static const char *const ops[] = {
        "import-gssd", "import",     "export",   "wrap",       "unwrap",
        "get-mic",     "verify-mic", "wrap-iov", "unwrap-iov", "import-lucid"};
    char name[160], full[200];
    struct seed s;

    for (unsigned op = 0; op < sizeof(ops) / sizeof(ops[0]); op++) {
        bool has_conf = strstr(ops[op], "wrap") != NULL;
        for (unsigned all = 0; all < 2; all++) {
            for (unsigned conf = 0; conf < (has_conf ? 2u : 1u); conf++) {
                snprintf(name, sizeof(name), "faults-%s-%s%s", ops[op],
                         all ? "from-n" : "nth", conf ? "-sealed" : "");
                cfg_name(full, sizeof(full), cfg, name);
                s_reset(&s);
                s_cfg(&s, cfg, (all ? 0x10u : 0) | (conf ? FUZZ_B1_CONF : 0));
                s_u8(&s, op);
                s_put(&s, message, sizeof(message) - 1);
                write_seed("faults", full, &s);
            }
        }
    }
}

/* ---- the RFC 4120 codec's targets (fuzz_krb.h) ---- */

/* fuzz_<target>'s seed name, and the same message for fuzz_diff_krb5 with
 * its type byte in front. */
static void krb_write(const char *target, const char *name, enum fk_type t,
                      const uint8_t *p, size_t n)
{
    struct seed s;

    s_reset(&s);
    s_put(&s, p, n);
    write_seed(target, name, &s);
    s_reset(&s);
    s_u8(&s, (unsigned)t);
    s_put(&s, p, n);
    write_seed("diff_krb5", name, &s);
}

/* Encodes m with gk5's encoder into s. */
static void krb_encode(enum fk_type t, const union fk_msg *m, struct seed *s)
{
    size_t n = 0;
    uint32_t ret;

    s_reset(s);
    ret = fk_encode(t, m, s->p, sizeof(s->p), &n);
    if (ret != GK5_OK) {
        fprintf(stderr, "gen_corpus: encoding a %s: error %u\n",
                fk_type_name(t), (unsigned)ret);
        failures++;
        return;
    }
    s->n = n;
}

/* The message framed as an RFC 2743 3.1 token with TOK_ID hi 00. */
static void krb_write_framed(const char *target, const char *name,
                             enum gk5i_frame_mech mech, uint8_t hi,
                             const struct seed *msg)
{
    struct seed s;
    size_t off;

    s_reset(&s);
    off = gk5i_frame_put_mech(s.p, msg->n + 2, mech);
    s.n = off;
    s_u8(&s, hi);
    s_u8(&s, 0);
    s_put(&s, msg->p, msg->n);
    write_seed(target, name, &s);
}

static const uint8_t realm[] = "GK5.TEST";
static const uint8_t skew[] = "Clock skew too great";
static const uint8_t svc[] = "gk5", host[] = "localhost", user[] = "gk5-client";
static uint8_t fill[256];

#define VIEW(a) ((struct gk5i_view){(a), sizeof(a) - 1})
#define FILL(n) ((struct gk5i_view){fill, (n)})

static void krb_principals(struct gk5i_krb_principal *sname,
                           struct gk5i_krb_principal *cname)
{
    memset(sname, 0, sizeof(*sname));
    sname->name_type = 3; /* NT-SRV-HST */
    sname->ncomp = 2;
    sname->comp[0] = VIEW(svc);
    sname->comp[1] = VIEW(host);
    memset(cname, 0, sizeof(*cname));
    cname->name_type = 1; /* NT-PRINCIPAL */
    cname->ncomp = 1;
    cname->comp[0] = VIEW(user);
}

static void krb_ticket(struct gk5i_krb_ticket *t, bool kvno)
{
    struct gk5i_krb_principal cname;

    memset(t, 0, sizeof(*t));
    t->realm = VIEW(realm);
    krb_principals(&t->sname, &cname);
    t->enc_part.etype = 18;
    t->enc_part.has_kvno = kvno;
    t->enc_part.kvno = kvno ? 2 : 0;
    t->enc_part.cipher = FILL(200);
}

/* AuthorizationData holding the RFC 4537 etype list an initiator sends,
 * in out (a seed's buffer). */
static struct gk5i_view krb_etype_ad(struct seed *out)
{
    static const int32_t ets[] = {18, 17, 20, 19, 16, 23};
    size_t n = 0;

    s_reset(out);
    if (gk5i_encode_etype_list_ad(ets, 6, out->p, sizeof(out->p), &n) !=
        GK5_OK) {
        fprintf(stderr, "gen_corpus: encoding an etype list failed\n");
        failures++;
    }
    out->n = n;
    return (struct gk5i_view){out->p, n};
}

/* HostAddresses: one IPv4 (2) and one IPv6 (24) address. */
static const uint8_t caddr_der[] = {
    0x30, 0x2a, 0x30, 0x0d, 0xa0, 0x03, 0x02, 0x01, 0x02, 0xa1, 0x06,
    0x04, 0x04, 0x7f, 0x00, 0x00, 0x01, 0x30, 0x19, 0xa0, 0x03, 0x02,
    0x01, 0x18, 0xa1, 0x12, 0x04, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};

static void krb_seeds(void)
{
    union fk_msg m;
    struct gk5i_krb_principal sname, cname;
    struct seed s, ad, tkt;

    for (size_t i = 0; i < sizeof(fill); i++) {
        fill[i] = (uint8_t)(i * 7 + 3);
    }
    krb_principals(&sname, &cname);

    /* Ticket and EncTicketPart. */
    krb_ticket(&m.ticket, true);
    krb_encode(FK_TICKET, &m, &s);
    krb_write("ticket", "ticket", FK_TICKET, s.p, s.n);
    krb_ticket(&m.ticket, false);
    krb_encode(FK_TICKET, &m, &s);
    krb_write("ticket", "ticket-no-kvno", FK_TICKET, s.p, s.n);

    memset(&m, 0, sizeof(m));
    m.enc_tkt_part.flags = GK5I_TKT_FLG_FORWARDABLE | GK5I_TKT_FLG_INITIAL |
                           GK5I_TKT_FLG_PRE_AUTHENT;
    m.enc_tkt_part.key.keytype = 18;
    m.enc_tkt_part.key.value = FILL(32);
    m.enc_tkt_part.crealm = VIEW(realm);
    m.enc_tkt_part.cname = cname;
    m.enc_tkt_part.transited_type = 1; /* DOMAIN-X500-COMPRESS */
    m.enc_tkt_part.authtime = 1700000000;
    m.enc_tkt_part.endtime = 1700086400;
    krb_encode(FK_ENC_TKT_PART, &m, &s);
    krb_write("ticket", "enc-tkt-part-min", FK_ENC_TKT_PART, s.p, s.n);
    m.enc_tkt_part.flags |=
        GK5I_TKT_FLG_RENEWABLE | GK5I_TKT_FLG_OK_AS_DELEGATE;
    m.enc_tkt_part.transited_contents = VIEW(realm);
    m.enc_tkt_part.has_starttime = true;
    m.enc_tkt_part.starttime = 1700000001;
    m.enc_tkt_part.has_renew_till = true;
    m.enc_tkt_part.renew_till = 253402300799; /* 9999-12-31 23:59:59 */
    m.enc_tkt_part.caddr = (struct gk5i_view){caddr_der, sizeof(caddr_der)};
    m.enc_tkt_part.authorization_data = krb_etype_ad(&ad);
    krb_encode(FK_ENC_TKT_PART, &m, &s);
    krb_write("ticket", "enc-tkt-part-full", FK_ENC_TKT_PART, s.p, s.n);
    m.enc_tkt_part.authtime = 0;             /* 19700101000000Z */
    m.enc_tkt_part.starttime = -62167219200; /* 00000101000000Z */
    m.enc_tkt_part.endtime = 951782400;      /* 20000229000000Z */
    krb_encode(FK_ENC_TKT_PART, &m, &s);
    krb_write("ticket", "enc-tkt-part-times", FK_ENC_TKT_PART, s.p, s.n);

    /* Authenticator. */
    memset(&m, 0, sizeof(m));
    m.authenticator.crealm = VIEW(realm);
    m.authenticator.cname = cname;
    m.authenticator.cusec = 999999;
    m.authenticator.ctime = 1700000000;
    krb_encode(FK_AUTHENTICATOR, &m, &s);
    krb_write("authenticator", "authenticator-min", FK_AUTHENTICATOR, s.p, s.n);
    m.authenticator.has_cksum = true;
    m.authenticator.cksum.cksumtype = 0x8003; /* RFC 4121 4.1.1 */
    m.authenticator.cksum.value = FILL(24);
    m.authenticator.has_subkey = true;
    m.authenticator.subkey.keytype = 18;
    m.authenticator.subkey.value = FILL(32);
    m.authenticator.has_seq_number = true;
    m.authenticator.seq_number = 0x12345678;
    m.authenticator.authorization_data = krb_etype_ad(&ad);
    krb_encode(FK_AUTHENTICATOR, &m, &s);
    krb_write("authenticator", "authenticator-full", FK_AUTHENTICATOR, s.p,
              s.n);
    m.authenticator.seq_number = 0xfffffff0u;
    krb_encode(FK_AUTHENTICATOR, &m, &s);
    krb_write("authenticator", "authenticator-seq-high", FK_AUTHENTICATOR, s.p,
              s.n);
    /* The AuthorizationData alone, and the EtypeList alone. */
    write_seed("authenticator", "authz-etype-list", &ad);
    {
        struct gk5i_view inner = {NULL, 0}, list = {NULL, 0};
        struct gk5i_view whole = {ad.p, ad.n};
        size_t pos = 0, ipos = 0;
        int32_t type;
        bool more;

        if (gk5i_authz_next(whole, &pos, &more, &type, &inner) != GK5_OK ||
            gk5i_authz_next(inner, &ipos, &more, &type, &list) != GK5_OK) {
            fprintf(stderr, "gen_corpus: the etype list AD does not walk\n");
            failures++;
        }
        s_reset(&s);
        s_put(&s, list.p, list.len);
        write_seed("authenticator", "etype-list", &s);
    }

    /* AP-REQ: the ticket copied in, raw and framed with both OIDs. */
    krb_ticket(&m.ticket, true);
    krb_encode(FK_TICKET, &m, &tkt);
    memset(&m, 0, sizeof(m));
    m.ap_req.ap_options = GK5I_AP_OPT_MUTUAL_REQUIRED;
    m.ap_req.ticket_der = (struct gk5i_view){tkt.p, tkt.n};
    m.ap_req.authenticator.etype = 18;
    m.ap_req.authenticator.cipher = FILL(180);
    krb_encode(FK_AP_REQ, &m, &s);
    krb_write("ap_req", "ap-req", FK_AP_REQ, s.p, s.n);
    krb_write_framed("ap_req", "ap-req-framed", GK5I_MECH_KRB5, 0x01, &s);
    krb_write_framed("ap_req", "ap-req-framed-ms-oid", GK5I_MECH_MS_KRB5, 0x01,
                     &s);
    m.ap_req.ap_options = GK5I_AP_OPT_USE_SESSION_KEY |
                          GK5I_AP_OPT_MUTUAL_REQUIRED |
                          GK5I_AP_OPT_ETYPE_NEGOTIATION;
    m.ap_req.authenticator.has_kvno = true;
    m.ap_req.authenticator.kvno = 0xffffffffu;
    krb_encode(FK_AP_REQ, &m, &s);
    krb_write("ap_req", "ap-req-options-kvno", FK_AP_REQ, s.p, s.n);

    /* AP-REP and EncAPRepPart. */
    memset(&m, 0, sizeof(m));
    m.ap_rep.enc_part.etype = 18;
    m.ap_rep.enc_part.cipher = FILL(100);
    krb_encode(FK_AP_REP, &m, &s);
    krb_write("ap_rep", "ap-rep", FK_AP_REP, s.p, s.n);
    krb_write_framed("ap_rep", "ap-rep-framed", GK5I_MECH_KRB5, 0x02, &s);
    memset(&m, 0, sizeof(m));
    m.enc_ap_rep_part.ctime = 1700000000;
    m.enc_ap_rep_part.cusec = 12;
    krb_encode(FK_ENC_AP_REP_PART, &m, &s);
    krb_write("ap_rep", "enc-ap-rep-part-min", FK_ENC_AP_REP_PART, s.p, s.n);
    m.enc_ap_rep_part.has_subkey = true;
    m.enc_ap_rep_part.subkey.keytype = 20;
    m.enc_ap_rep_part.subkey.value = FILL(32);
    m.enc_ap_rep_part.has_seq_number = true;
    m.enc_ap_rep_part.seq_number = 0x80000000u;
    krb_encode(FK_ENC_AP_REP_PART, &m, &s);
    krb_write("ap_rep", "enc-ap-rep-part-full", FK_ENC_AP_REP_PART, s.p, s.n);

    /* KRB-ERROR. */
    memset(&m, 0, sizeof(m));
    m.krb_error.stime = 1700000000;
    m.krb_error.susec = 5;
    m.krb_error.error_code = 41; /* KRB_AP_ERR_MODIFIED */
    m.krb_error.realm = VIEW(realm);
    m.krb_error.sname = sname;
    krb_encode(FK_KRB_ERROR, &m, &s);
    krb_write("krb_error", "krb-error-min", FK_KRB_ERROR, s.p, s.n);
    krb_write_framed("krb_error", "krb-error-framed", GK5I_MECH_KRB5, 0x03, &s);
    m.krb_error.has_ctime = true;
    m.krb_error.ctime = 1699999999;
    m.krb_error.has_cusec = true;
    m.krb_error.cusec = 999999;
    m.krb_error.error_code = INT32_MAX;
    m.krb_error.has_crealm = true;
    m.krb_error.crealm = VIEW(realm);
    m.krb_error.has_cname = true;
    m.krb_error.cname = cname;
    m.krb_error.has_e_text = true;
    m.krb_error.e_text = VIEW(skew);
    m.krb_error.has_e_data = true;
    m.krb_error.e_data = FILL(16);
    krb_encode(FK_KRB_ERROR, &m, &s);
    krb_write("krb_error", "krb-error-full", FK_KRB_ERROR, s.p, s.n);
}

/* ---- fuzz_pac: Windows PACs (src/krb5/pac.c) ---- */

enum { PAC_RAW, PAC_SIGNED, PAC_AUTHZ, PAC_ATTR };

/* A client info for name (ASCII) at authtime. */
static size_t pac_client_info(int64_t authtime, const char *name, uint8_t *out,
                              size_t cap)
{
    uint16_t units[64];
    size_t n = strlen(name);

    for (size_t i = 0; i < n && i < 64; i++) {
        units[i] = (uint8_t)name[i];
    }
    return fuzz_pac_client_info((authtime + 11644473600LL) * 10000000LL, units,
                                n < 64 ? n : 64, out, cap);
}

/* A PAC as MIT's KDC makes one (client info, ticket checksum, then the
 * server and KDC signatures), with extra buffers first, signed with the
 * fuzz key for FUZZ_PAC_AUTHTIME and the fixed client (unless unsigned);
 * its length in out. */
static size_t pac_kdc(const struct fuzz_pac_buf *extra, unsigned nextra,
                      bool sign, uint8_t *out, size_t cap)
{
    struct fuzz_pac_buf b[8];
    size_t offs[8], len;
    uint8_t ci[64];
    unsigned n = 0;

    for (unsigned i = 0; i < nextra; i++) {
        b[n++] = extra[i];
    }
    b[n++] = (struct fuzz_pac_buf){
        GK5I_PAC_CLIENT_INFO, ci,
        pac_client_info(FUZZ_PAC_AUTHTIME, FUZZ_PAC_COMP0 "/" FUZZ_PAC_COMP1,
                        ci, sizeof(ci))};
    b[n++] = (struct fuzz_pac_buf){16, NULL, 16}; /* ticket checksum */
    b[n++] = (struct fuzz_pac_buf){GK5I_PAC_SERVER_CHECKSUM, NULL, 16};
    b[n++] = (struct fuzz_pac_buf){GK5I_PAC_PRIVSVR_CHECKSUM, NULL, 16};
    len = fuzz_pac_build(b, n, out, cap, offs);
    if (len == 0) {
        fprintf(stderr, "gen_corpus: PAC too large\n");
        exit(1);
    }
    for (unsigned i = n - 3; i < n; i++) {
        store_le32(out + offs[i], 16); /* hmac-sha1-96-aes256 */
    }
    if (sign) {
        fuzz_pac_sign(out, len, offs[n - 2] + 4, 12);
    }
    /* The ticket checksum and KDC signature: bytes of the KDC's key. */
    memset(out + offs[n - 3] + 4, 0x3c, 12);
    memset(out + offs[n - 1] + 4, 0x5a, 12);
    return len;
}

static void pac_write(const char *name, unsigned mode, const uint8_t *p,
                      size_t len)
{
    struct seed s;

    s_reset(&s);
    s_u8(&s, mode);
    s_put(&s, p, len);
    write_seed("pac", name, &s);
}

/* PAC header fields, little-endian, for the malformed ones. */
static void pac_set(uint8_t *p, size_t at, uint32_t v)
{
    store_le32(p + at, v);
}

static void pac_raw_seeds(void)
{
    static uint8_t p[4096], q[4096];
    static const uint8_t logon[64] = {1, 0x10, 8, 0, 0xcc, 0xcc, 0xcc, 0xcc};
    static const uint8_t upn[24] = {0x10, 0, 0x10, 0};
    struct fuzz_pac_buf extra[2] = {{GK5I_PAC_LOGON_INFO, logon, sizeof(logon)},
                                    {GK5I_PAC_UPN_DNS_INFO, upn, sizeof(upn)}};
    struct fuzz_pac_buf big = {0x7fff, NULL, 2100};
    size_t len;

    len = pac_kdc(NULL, 0, true, p, sizeof(p));
    pac_write("raw-kdc", PAC_RAW, p, len);
    len = pac_kdc(extra, 2, true, p, sizeof(p));
    pac_write("raw-kdc-logon-upn", PAC_RAW, p, len);
    len = pac_kdc(&big, 1, true, p, sizeof(p));
    pac_write("raw-kdc-big", PAC_RAW, p, len);
    len = pac_kdc(extra, 2, false, p, sizeof(p));
    pac_write("raw-unsigned", PAC_RAW, p, len);

    /* Malformed: each one field of raw-kdc (4 buffers; the first, the
     * client info, at 72) changed. */
    len = pac_kdc(NULL, 0, true, p, sizeof(p));
    pac_write("raw-short", PAC_RAW, p, 7);
    pac_write("raw-header-only", PAC_RAW, p, 8);
    memcpy(q, p, len);
    pac_set(q, 4, 1);
    pac_write("raw-version-1", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 0, 0);
    pac_write("raw-no-buffers", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 0, 5000);
    pac_write("raw-count-5000", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 0, (uint32_t)(len - 8) / 16 + 1);
    pac_write("raw-count-past-end", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 16, 76);
    pac_write("raw-misaligned", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 16, 64);
    pac_write("raw-offset-in-headers", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 16, (uint32_t)len + 8);
    pac_write("raw-offset-past-end", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 20, 1);
    pac_write("raw-offset-high", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 12, (uint32_t)len);
    pac_write("raw-size-past-end", PAC_RAW, q, len);
    memcpy(q, p, len);
    pac_set(q, 12, 0);
    pac_set(q, 16, (uint32_t)len);
    pac_write("raw-empty-at-end", PAC_RAW, q, len);
    /* Types: the client info twice, the server signature twice. */
    memcpy(q, p, len);
    pac_set(q, 24, GK5I_PAC_CLIENT_INFO);
    pac_set(q, 56, GK5I_PAC_SERVER_CHECKSUM);
    pac_write("raw-dup-types", PAC_RAW, q, len);
    /* The server signature (the third buffer) of another type. */
    memcpy(q, p, len);
    q[load_le32(q + 48)] = 15;
    pac_write("raw-sig-type-15", PAC_RAW, q, len);
}

/* Mode 1's input (fuzz_pac.c, mode_signed): the fields in its order. */
struct pac_signed {
    unsigned ctl, ctl2;
    uint32_t authtime;
    const char *comps[3]; /* alphabet indices, as characters 'a' + i */
    unsigned ncomp;
    uint32_t subsecond;
    const uint8_t *raw_client;
    size_t raw_client_len;
    unsigned nextra;
    uint32_t extra_type[3];
    unsigned extra_len[3];
    uint32_t sig_type;
    unsigned sig_len;
    unsigned priv_len;
    unsigned rot;
    unsigned nflips;
    uint16_t flip_pos[4];
    uint8_t flip_xor[4];
};

static void pac_signed_write(const char *name, const struct pac_signed *d)
{
    struct seed s;

    s_reset(&s);
    s_u8(&s, PAC_SIGNED);
    s_u8(&s, d->ctl);
    s_u8(&s, d->ctl2);
    s_u32(&s, d->authtime);
    s_u8(&s, d->ncomp);
    for (unsigned c = 0; c < d->ncomp; c++) {
        size_t n = strlen(d->comps[c]);

        s_u8(&s, (unsigned)n);
        for (size_t k = 0; k < n; k++) {
            s_u8(&s, (unsigned)(d->comps[c][k] - 'a'));
        }
    }
    if (d->ctl & 0x80) {
        s_u32(&s, d->subsecond);
    }
    if (d->ctl & 0x01) {
        s_u8(&s, (unsigned)d->raw_client_len);
        s_put(&s, d->raw_client, d->raw_client_len);
    }
    s_u8(&s, d->nextra);
    for (unsigned k = 0; k < d->nextra; k++) {
        s_u32(&s, d->extra_type[k]);
        s_u8(&s, d->extra_len[k]);
        for (unsigned i = 0; i < d->extra_len[k]; i++) {
            s_u8(&s, 0x40 + i);
        }
    }
    if (d->ctl & 0x20) {
        s_u32(&s, d->sig_type);
    }
    if (d->ctl & 0x40) {
        s_u8(&s, d->sig_len);
    }
    s_u8(&s, d->priv_len);
    s_u8(&s, d->rot);
    s_u8(&s, d->nflips);
    for (unsigned k = 0; k < d->nflips; k++) {
        s_u16(&s, d->flip_pos[k]);
        s_u8(&s, d->flip_xor[k]);
    }
    write_seed("pac", name, &s);
}

static void pac_signed_seeds(void)
{
    /* Alphabet indices (fuzz_pac.c): a=a b=Z c=0 d=. e=/ f=@ g=\ h=\n
     * i=\t j=\b k=NUL l=e-acute m=euro n=U+1F600 o=U+FFFD. */
    const struct pac_signed base = {
        .authtime = FUZZ_PAC_AUTHTIME,
        .comps = {"abcd", "efa", "ghij"},
        .ncomp = 3,
        .priv_len = 16,
    };
    struct pac_signed d;
    uint8_t ci[64];

    d = base;
    pac_signed_write("signed", &d);
    d = base;
    d.comps[0] = "almno";
    d.ncomp = 1;
    pac_signed_write("signed-utf16", &d);
    d = base;
    d.ncomp = 0;
    pac_signed_write("signed-no-components", &d);
    d = base;
    d.comps[1] = "";
    pac_signed_write("signed-empty-component", &d);
    d = base;
    d.comps[0] = "akb";
    d.ctl = 0x08; /* a NUL, then more after the name's NUL */
    pac_signed_write("signed-nul", &d);
    d = base;
    d.ctl2 = 0x08; /* MIT's parser's escapes */
    pac_signed_write("signed-escaped", &d);
    d = base;
    d.ctl2 = 0x04; /* first character changed */
    pac_signed_write("signed-wrong-name", &d);
    d = base;
    d.ctl2 = 0x10; /* unpaired surrogate after it */
    pac_signed_write("signed-bad-tail", &d);
    d = base;
    d.ctl = 0x02; /* a second off */
    pac_signed_write("signed-wrong-time", &d);
    d = base;
    d.ctl = 0x80;
    d.subsecond = 9999999;
    pac_signed_write("signed-subsecond", &d);
    d = base;
    d.authtime = 0xf90a8d00u; /* after 2038 */
    pac_signed_write("signed-after-2038", &d);
    d = base;
    d.authtime = 0xffffffffu; /* the last second MIT reads */
    pac_signed_write("signed-last-second", &d);
    d = base;
    d.authtime = 0xffffffffu;
    d.ctl = 0x02; /* 2^32: past it */
    pac_signed_write("signed-past-last-second", &d);
    d = base;
    d.authtime = 0;
    pac_signed_write("signed-1970", &d);
    d = base;
    d.ctl2 = 0x20; /* authtime 2^32 later: MIT's 32 bits */
    pac_signed_write("signed-time-wrap", &d);
    d = base;
    d.ctl = 0x04;
    pac_signed_write("signed-no-kdc-sig", &d);
    d = base;
    d.priv_len = 3;
    pac_signed_write("signed-short-kdc-sig", &d);
    d = base;
    d.priv_len = 4;
    pac_signed_write("signed-empty-kdc-sig", &d);
    d = base;
    d.ctl = 0x10;
    pac_signed_write("signed-two-server-sigs", &d);
    d = base;
    d.ctl = 0x40;
    d.sig_len = 30; /* a RODCIdentifier and more after the checksum */
    pac_signed_write("signed-sig-trailing", &d);
    d = base;
    d.ctl = 0x40;
    d.sig_len = 15;
    pac_signed_write("signed-sig-short", &d);
    d = base;
    d.ctl = 0x40;
    d.sig_len = 2;
    pac_signed_write("signed-sig-no-type", &d);
    d = base;
    d.ctl = 0x60;
    d.sig_type = (uint32_t)-138; /* hmac-md5-rc4: MIT makes it with any key */
    d.sig_len = 20;
    pac_signed_write("signed-sig-hmac-md5", &d);
    d = base;
    d.ctl = 0x60;
    d.sig_type = 20; /* hmac-sha384-192-aes256 */
    d.sig_len = 28;
    pac_signed_write("signed-sig-sha384", &d);
    d = base;
    d.ctl = 0x20;
    d.sig_type = 15; /* hmac-sha1-96-aes128: not this key's */
    pac_signed_write("signed-sig-other-type", &d);
    d = base;
    d.nextra = 3;
    d.extra_type[0] = GK5I_PAC_LOGON_INFO;
    d.extra_len[0] = 40;
    d.extra_type[1] = 16;
    d.extra_len[1] = 16;
    d.extra_type[2] = GK5I_PAC_UPN_DNS_INFO;
    d.extra_len[2] = 7;
    d.rot = 2;
    pac_signed_write("signed-kdc-buffers", &d);
    d = base;
    d.nextra = 1;
    d.extra_type[0] = GK5I_PAC_PRIVSVR_CHECKSUM;
    d.extra_len[0] = 0;
    pac_signed_write("signed-two-kdc-sigs-short-first", &d);
    d.rot = 2; /* the server's and KDC's first, the short one last */
    pac_signed_write("signed-two-kdc-sigs", &d);
    d = base;
    d.nextra = 1;
    d.extra_type[0] = GK5I_PAC_CLIENT_INFO;
    d.extra_len[0] = 12;
    pac_signed_write("signed-two-client-infos", &d);
    d = base;
    d.ctl2 = 0x01 | 0x02; /* past 2048 bytes; its copy's allocation fails */
    pac_signed_write("signed-big-alloc-fails", &d);
    d = base;
    d.ctl2 = 0x01;
    pac_signed_write("signed-big", &d);
    d = base;
    d.ctl2 = 0x02;
    pac_signed_write("signed-alloc-fails", &d);
    d = base;
    d.nflips = 1;
    d.flip_pos[0] = 8 + 4 * 16 + 12 * 4 + 1; /* somewhere in the buffers */
    d.flip_xor[0] = 0x01;
    pac_signed_write("signed-flip", &d);
    d = base;
    d.nflips = 2;
    d.flip_pos[0] = 1; /* the count's second byte */
    d.flip_xor[0] = 0x80;
    d.flip_pos[1] = 4; /* the version */
    d.flip_xor[1] = 0x01;
    pac_signed_write("signed-flip-header", &d);

    /* The client info from the input. */
    d = base;
    d.ctl = 0x01;
    d.ncomp = 1;
    d.comps[0] = "a";
    d.raw_client = ci;
    d.raw_client_len = pac_client_info(FUZZ_PAC_AUTHTIME, "a", ci, sizeof(ci));
    pac_signed_write("signed-raw-client", &d);
    d.raw_client_len = 9;
    pac_signed_write("signed-raw-client-short", &d);
    ci[8] = 3; /* an odd name length */
    d.raw_client_len = 13;
    pac_signed_write("signed-raw-client-odd", &d);
    ci[8] = 40; /* past the buffer */
    pac_signed_write("signed-raw-client-long", &d);
    d.raw_client_len = pac_client_info(-11644473601LL, "a", ci, sizeof(ci));
    pac_signed_write("signed-raw-client-before-1601", &d);
    /* A surrogate pair, a lone high one at the end and one before 'a'. */
    static const uint16_t pair[] = {0xd83d, 0xde00};
    static const uint16_t high_end[] = {'a', 0xd83d};
    static const uint16_t high_a[] = {0xd83d, 'a'};
    static const uint16_t low[] = {0xde00};
    static const uint16_t high_e000[] = {0xd83d, 0xe000};
    int64_t ft = (FUZZ_PAC_AUTHTIME + 11644473600LL) * 10000000LL;
    d.comps[0] = "n";
    d.raw_client_len = fuzz_pac_client_info(ft, pair, 2, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-pair", &d);
    d.raw_client_len = fuzz_pac_client_info(ft, high_end, 2, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-high-end", &d);
    d.raw_client_len = fuzz_pac_client_info(ft, high_a, 2, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-high-a", &d);
    d.raw_client_len = fuzz_pac_client_info(ft, low, 1, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-low", &d);
    d.raw_client_len = fuzz_pac_client_info(ft, high_e000, 2, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-high-e000", &d);
    /* FILETIMEs MIT refuses: zero, the top bit set, past 2^32 s. */
    d.comps[0] = "a";
    d.raw_client_len =
        fuzz_pac_client_info(0, (const uint16_t[]){'a'}, 1, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-time-0", &d);
    d.raw_client_len = fuzz_pac_client_info(INT64_MIN, (const uint16_t[]){'a'},
                                            1, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-time-negative", &d);
    d.raw_client_len =
        fuzz_pac_client_info((11644473600LL + 4294967296LL) * 10000000LL,
                             (const uint16_t[]){'a'}, 1, ci, sizeof(ci));
    pac_signed_write("signed-raw-client-time-2106", &d);
}

/* AuthorizationData of n elements (backwards: the last first). */
struct pac_ad {
    int32_t type;
    const uint8_t *p;
    size_t len;
};

static size_t pac_authz(const struct pac_ad *ad, unsigned n, uint8_t *out,
                        size_t cap)
{
    struct gk5i_bwr w;
    size_t all;

    gk5i_bwr_init(&w, out, cap);
    all = w.len;
    for (unsigned i = n; i-- > 0;) {
        size_t el = w.len, f;

        f = w.len;
        gk5i_der_put_prim(&w, GK5I_DER_OCTET_STRING, ad[i].p, ad[i].len);
        gk5i_der_put_close(&w, GK5I_DER_CTX(1), f);
        f = w.len;
        gk5i_der_put_int(&w, ad[i].type);
        gk5i_der_put_close(&w, GK5I_DER_CTX(0), f);
        gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, el);
    }
    gk5i_der_put_close(&w, GK5I_DER_SEQUENCE, all);
    if (gk5i_bwr_data(&w) == NULL) {
        fprintf(stderr, "gen_corpus: authorization data too large\n");
        exit(1);
    }
    memmove(out, gk5i_bwr_data(&w), w.len);
    return w.len;
}

static void pac_authz_seeds(void)
{
    static uint8_t pac[4096], a[8192], b[8192], c[8192];
    static const uint8_t cammac[] = {0x30, 0x00};
    size_t pl = pac_kdc(NULL, 0, true, pac, sizeof(pac));
    size_t al, bl, cl;

    struct pac_ad one[] = {{GK5I_AD_WIN2K_PAC, pac, pl}};
    al = pac_authz(one, 1, a, sizeof(a));
    pac_write("authz-pac", PAC_AUTHZ, a, al);
    /* AD-IF-RELEVANT { PAC }, as AD and MIT's KDC send it. */
    struct pac_ad rel[] = {{GK5I_AD_IF_RELEVANT, a, al}};
    bl = pac_authz(rel, 1, b, sizeof(b));
    pac_write("authz-if-relevant-pac", PAC_AUTHZ, b, bl);
    /* A CAMMAC, then the PAC two containers down, then another PAC. */
    struct pac_ad many[] = {{GK5I_AD_CAMMAC, cammac, sizeof(cammac)},
                            {GK5I_AD_IF_RELEVANT, b, bl},
                            {GK5I_AD_WIN2K_PAC, pac, 8}};
    cl = pac_authz(many, 3, c, sizeof(c));
    pac_write("authz-cammac-nested", PAC_AUTHZ, c, cl);
    /* Six containers deep: past the four opened. */
    memcpy(a, b, bl);
    al = bl;
    for (int depth = 2; depth <= 6; depth++) {
        struct pac_ad wrap[] = {{GK5I_AD_IF_RELEVANT, a, al}};
        bl = pac_authz(wrap, 1, b, sizeof(b));
        memcpy(a, b, bl);
        al = bl;
    }
    pac_write("authz-too-deep", PAC_AUTHZ, a, al);
    /* A container of what is not authorization data. */
    struct pac_ad bad[] = {{GK5I_AD_IF_RELEVANT, cammac + 1, 1}};
    cl = pac_authz(bad, 1, c, sizeof(c));
    pac_write("authz-bad-container", PAC_AUTHZ, c, cl);
    pac_write("authz-truncated", PAC_AUTHZ, c, cl - 1);
    pac_write("authz-empty", PAC_AUTHZ, c, 0);
    /* Types the reader passes over (AD-KDC-ISSUED, a negative one). */
    struct pac_ad other[] = {{4, cammac, sizeof(cammac)},
                             {-130, cammac, 1},
                             {GK5I_AD_WIN2K_PAC, pac, pl}};
    cl = pac_authz(other, 3, c, sizeof(c));
    pac_write("authz-other-types", PAC_AUTHZ, c, cl);
    struct pac_ad none[] = {{GK5I_AD_CAMMAC, cammac, sizeof(cammac)}};
    cl = pac_authz(none, 1, c, sizeof(c));
    pac_write("authz-cammac-only", PAC_AUTHZ, c, cl);
}

static void pac_attr_seeds(void)
{
#define ATTR(name, text)                                                       \
    {                                                                          \
        name, text, sizeof(text) - 1                                           \
    }
    static const struct {
        const char *name, *text;
        size_t len;
    } attrs[] = {
        ATTR("attr-whole", "urn:mspac:"),
        ATTR("attr-logon-info", "URN:MSPAC:Logon-Info"),
        ATTR("attr-client-info", "urn:mspac:client-info"),
        ATTR("attr-upn", "urn:mspac:upn-dns-info"),
        ATTR("attr-number", "urn:mspac:16"),
        ATTR("attr-number-max", "urn:mspac:4294967295"),
        ATTR("attr-number-past", "urn:mspac:4294967296"),
        ATTR("attr-number-long", "urn:mspac:00000000016"),
        ATTR("attr-zero", "urn:mspac:0"),
        ATTR("attr-negative", "urn:mspac:-2147483648"),
        ATTR("attr-negative-past", "urn:mspac:-2147483649"),
        ATTR("attr-negative-zero", "urn:mspac:-0"),
        ATTR("attr-minus", "urn:mspac:-"),
        ATTR("attr-letters", "urn:mspac:1x"),
        ATTR("attr-plus", "urn:mspac:+1"),
        ATTR("attr-other", "urn:other:1"),
        /* First four bytes: the types 0, 1, 2^31 and 2^32 - 1. */
        ATTR("attr-type-0", "\x00\x00\x00\x00"),
        ATTR("attr-type-1", "\x01\x00\x00\x00"),
        ATTR("attr-type-2-31", "\x00\x00\x00\x80"),
        ATTR("attr-type-whole", "\xff\xff\xff\xff"),
    };
#undef ATTR

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        pac_write(attrs[i].name, PAC_ATTR, (const uint8_t *)attrs[i].text,
                  attrs[i].len);
    }
}

static void pac_seeds(void)
{
    pac_raw_seeds();
    pac_signed_seeds();
    pac_authz_seeds();
    pac_attr_seeds();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    outdir = argv[1];
    mkdir_p(outdir);
    fuzz_init();
    for (int e = 0; e < FUZZ_N_ENCTYPES; e++) {
        int32_t et = fuzz_enctypes[e];
        if (gk5_enctype_check(et) != 0) {
            continue;
        }
        for (int r = 0; r < 2; r++) {
            for (int k = 0; k < (fuzz_rfc1964(et) ? 1 : 2); k++) {
                struct fuzz_cfg cfg = {et, r != 0, k != 0};
                per_message_seeds(&cfg);
                import_seeds(&cfg);
                if (r == k) { /* to the initiator; to the acceptor, subkey */
                    fault_seeds(&cfg);
                }
                if (fuzz_rfc1964(et)) {
                    des3_forged_seeds(&cfg);
                    des3_recut_seeds(&cfg);
                }
            }
        }
        decrypt_seeds(et);
    }
    import_gssd_negative();
    krb_seeds();
    pac_seeds();
    if (failures != 0) {
        fprintf(stderr, "gen_corpus: %d failures\n", failures);
        return 1;
    }
    return 0;
}
