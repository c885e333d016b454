/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * MIT's initiator against gk5's own acceptor: MIT's gss_init_sec_context
 * (in-process, credentials from the realm's client keytab) makes the
 * AP-REQ, gk5_accept (a credential on the realm's service keytab) accepts
 * it, MIT's initiator takes gk5's AP-REP, and the context then carries
 * tokens both ways.  Per session-key enctype gk5 supports and MIT's KDC
 * issues:
 *   - mutual authentication on (an AP-REP, an acceptor subkey) and off;
 *   - channel bindings: the same on both sides, one side only, different
 *     (GSS_S_BAD_BINDINGS from gk5, and a KRB-ERROR MIT's initiator
 *     refuses with the error code gk5 put in it);
 *   - the AP-REQ replayed to the same credential (GK5_ERR_AP_REPEAT);
 *   - per message: MIT's gss_wrap (sealed, integrity only), gss_get_mic
 *     and gss_wrap_iov (no TRAILER, RRC != 0) into gk5_unwrap and
 *     gk5_verify_mic, gk5_wrap, gk5_wrap_iov and gk5_get_mic into MIT's
 *     gss_unwrap and gss_verify_mic, a few hundred messages each way, and
 *     the receive window (gap, out of sequence, duplicate);
 * then an AP-REQ for a service the keytab has no key of (NO_CRED) and RFC
 * 4537 enctype negotiation (MIT offers two enctypes, its ticket's session
 * key being the second: the acceptor subkey is of the first).  What MIT's
 * authenticator holds (subkey, seq-number, the RFC 4537 list, the 0x8003
 * checksum's flags, other authorization data) is read independently with
 * MIT's own krb5_rd_req and printed as TAP diagnostics.
 *
 *   gk5 realm run --tap -- test_native_accept [--dump FILE]
 *
 * --dump FILE: also write some of MIT's AP-REQs, with the service key that
 * opens them, as known-answer blocks (tests/vectors/mit_ap_req.txt; the
 * tickets expire, so they are decoded with gk5i_accept_at at the time the
 * block records).  The realm: GK5_REALM_DIR (made by gk5 realm run), else
 * one of our own.  Output is TAP, one line per cell.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "bridge/lucid.h"
#include "establish.h"
#include "heimdal_kdc.h"
#include "tap_cells.h"

#define LONG_RUN 300 /* messages each way, in turn */
#define MSG_MAX 1500
#define ACCEPTOR_NAME "gk5@localhost"
#define TARGET "gk5@localhost"
#define NFS_TARGET "nfs@localhost"
#define CCACHE "MEMORY:gk5-native-accept"

/* RFC 4121 4.2.2 token flags */
#define CFX_SENT_BY_ACCEPTOR 0x01u
#define CFX_SEALED 0x02u
#define CFX_ACCEPTOR_SUBKEY 0x04u

static const size_t msg_lens[] = {0, 1, 13, 16, 17, 64, 1000};

struct world {
    gk5_mit_realm realm;
    char client_kt[PATH_MAX];
    char service_kt[PATH_MAX + 8]; /* "FILE:" and the path */
    gk5_acceptor_cred *cred;       /* service.keytab, gk5@localhost */
    krb5_context kc;
    krb5_keytab kt; /* service.keytab, for MIT's own reading */
    FILE *dump;
    unsigned dumped;
    /* MIT behaviour seen over the run */
    uint32_t seq_min, seq_max;
    unsigned rrc_wrap_min, rrc_wrap_max;
};

/* ---- Words ---- */

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

static const char *gk5_words(uint32_t major, uint32_t minor)
{
    static char text[256];

    snprintf(text, sizeof(text), "%s", gk5_display_status(major, minor));
    return text;
}

static const char *mit_words(OM_uint32 major, OM_uint32 minor)
{
    static char text[256];
    gk5_mit_status st = {major, minor, 1, NULL};

    return gk5_mit_status_text(&st, text, sizeof(text));
}

static void fill(uint8_t *p, size_t n, unsigned serial)
{
    uint32_t x = 0x27d4eb2du * (serial + 1u);

    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

static void append(char *why, size_t wl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *why, size_t wl, const char *fmt, ...)
{
    size_t used = strlen(why);
    va_list ap;

    if (used >= wl) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why + used, wl - used, fmt, ap);
    va_end(ap);
}

/* ---- RFC 2743 3.1 framing ---- */

/* The inner token's offset (after 0x60, the length and the mech OID) and
 * its TOK_ID; -1 if p is not a framed token. */
static long frame_inner(const uint8_t *p, size_t n, unsigned *tok_id)
{
    size_t off = 2, len;

    if (n < 2 || p[0] != 0x60) {
        return -1;
    }
    if (p[1] < 0x80) {
        len = p[1];
    } else {
        unsigned k = p[1] & 0x7fu;
        if (k == 0 || k > 4 || n < 2 + k) {
            return -1;
        }
        len = 0;
        for (unsigned i = 0; i < k; i++) {
            len = len << 8 | p[2 + i];
        }
        off += k;
    }
    if (off + len != n || off + 2 > n || p[off] != 0x06 ||
        off + 2 + p[off + 1] + 2 > n) {
        return -1;
    }
    off += 2 + p[off + 1];
    *tok_id = (unsigned)(p[off] << 8 | p[off + 1]);
    return (long)off + 2;
}

/* ---- MIT's AP-REQ as MIT itself reads it ---- */

struct peek {
    bool ok;
    char why[256];
    krb5_flags ap_options;
    int32_t tkt_etype, ses_etype, subkey_etype;
    krb5_kvno kvno;
    uint32_t seq;
    int32_t cksumtype;
    uint32_t cksum_len, gss_flags;
    bool bnd_zero;
    int32_t etypes[16];
    size_t n_etypes;
    bool etype_list;
    char ad[128]; /* authorization data types, "1[129] 143" */
    krb5_timestamp ctime;
};

/* RFC 4537: SEQUENCE OF Int32, short lengths only (a short list). */
static void peek_etype_list(struct peek *pk, const krb5_data *d)
{
    const uint8_t *p = (const uint8_t *)d->data;
    size_t n = d->length, i = 2;

    if (n < 2 || p[0] != 0x30 || p[1] >= 0x80 || (size_t)p[1] + 2 != n) {
        return;
    }
    pk->etype_list = true;
    while (i + 2 <= n && pk->n_etypes < 16) {
        size_t l = p[i + 1];
        int32_t v;
        if (p[i] != 0x02 || l == 0 || l > 4 || i + 2 + l > n) {
            return;
        }
        v = (p[i + 2] & 0x80) ? -1 : 0;
        for (size_t k = 0; k < l; k++) {
            v = (int32_t)((uint32_t)v << 8 | p[i + 2 + k]);
        }
        pk->etypes[pk->n_etypes++] = v;
        i += 2 + l;
    }
}

static void peek_ap_req(struct world *W, const gss_buffer_desc *tok,
                        struct peek *pk)
{
    krb5_auth_context ac = NULL;
    krb5_authenticator *au = NULL;
    krb5_ticket *tkt = NULL;
    krb5_data d;
    unsigned tok_id = 0;
    long off = frame_inner(tok->value, tok->length, &tok_id);
    krb5_error_code ret;

    memset(pk, 0, sizeof(*pk));
    if (off < 0 || tok_id != 0x0100) {
        snprintf(pk->why, sizeof(pk->why), "not a framed AP-REQ");
        return;
    }
    d.magic = KV5M_DATA;
    d.data = (char *)tok->value + off;
    d.length = (unsigned)(tok->length - (size_t)off);
    ret = krb5_auth_con_init(W->kc, &ac);
    if (ret == 0) {
        /* No KRB5_AUTH_CONTEXT_DO_TIME: no replay cache, gk5's to keep. */
        ret = krb5_auth_con_setflags(W->kc, ac, 0);
    }
    if (ret == 0) {
        ret = krb5_rd_req(W->kc, &ac, &d, NULL, W->kt, &pk->ap_options, &tkt);
    }
    if (ret == 0) {
        ret = krb5_auth_con_getauthenticator(W->kc, ac, &au);
    }
    if (ret != 0) {
        const char *m = krb5_get_error_message(W->kc, ret);
        snprintf(pk->why, sizeof(pk->why), "MIT krb5_rd_req: %s", m);
        krb5_free_error_message(W->kc, m);
        goto done;
    }
    pk->tkt_etype = tkt->enc_part.enctype;
    pk->kvno = tkt->enc_part.kvno;
    pk->ses_etype = tkt->enc_part2->session->enctype;
    pk->subkey_etype = au->subkey != NULL ? au->subkey->enctype : 0;
    pk->seq = au->seq_number;
    pk->ctime = au->ctime;
    if (au->checksum != NULL) {
        const uint8_t *c = au->checksum->contents;
        pk->cksumtype = au->checksum->checksum_type;
        pk->cksum_len = au->checksum->length;
        if (au->checksum->checksum_type == 0x8003 &&
            au->checksum->length >= 24) {
            static const uint8_t zero[16];
            pk->bnd_zero = memcmp(c + 4, zero, 16) == 0;
            pk->gss_flags = (uint32_t)c[20] | (uint32_t)c[21] << 8 |
                            (uint32_t)c[22] << 16 | (uint32_t)c[23] << 24;
        }
    }
    for (size_t i = 0;
         au->authorization_data != NULL && au->authorization_data[i] != NULL;
         i++) {
        krb5_authdata *ad = au->authorization_data[i];
        krb5_authdata **inner = NULL;
        append(pk->ad, sizeof(pk->ad), "%s%d", i > 0 ? " " : "",
               (int)ad->ad_type);
        if (ad->ad_type != KRB5_AUTHDATA_IF_RELEVANT ||
            krb5_decode_authdata_container(W->kc, KRB5_AUTHDATA_IF_RELEVANT, ad,
                                           &inner) != 0) {
            continue;
        }
        append(pk->ad, sizeof(pk->ad), "[");
        for (size_t j = 0; inner[j] != NULL; j++) {
            krb5_data c = {KV5M_DATA, inner[j]->length,
                           (char *)inner[j]->contents};
            append(pk->ad, sizeof(pk->ad), "%s%d", j > 0 ? " " : "",
                   (int)inner[j]->ad_type);
            if (inner[j]->ad_type == KRB5_AUTHDATA_ETYPE_NEGOTIATION) {
                peek_etype_list(pk, &c);
            }
        }
        append(pk->ad, sizeof(pk->ad), "]");
        krb5_free_authdata(W->kc, inner);
    }
    pk->ok = true;
    if (pk->seq < W->seq_min) {
        W->seq_min = pk->seq;
    }
    if (pk->seq > W->seq_max) {
        W->seq_max = pk->seq;
    }

done:
    if (au != NULL) {
        krb5_free_authenticator(W->kc, au);
    }
    if (tkt != NULL) {
        krb5_free_ticket(W->kc, tkt);
    }
    if (ac != NULL) {
        krb5_auth_con_free(W->kc, ac);
    }
}

static void print_peek(const struct peek *pk, const char *label)
{
    char list[128] = "";

    if (!pk->ok) {
        printf("# %s MIT's AP-REQ not readable by MIT: %s\n", label, pk->why);
        return;
    }
    for (size_t i = 0; i < pk->n_etypes; i++) {
        append(list, sizeof(list), "%s%d", i > 0 ? "," : "",
               (int)pk->etypes[i]);
    }
    printf("# %s MIT's AP-REQ: ap-options %#x, ticket etype %d kvno %u, "
           "session %d, subkey %d, seq-number %" PRIu32 "%s, checksum type "
           "%#x (%u bytes, flags %#x, bindings %s), authz-data %s, RFC 4537 "
           "list %s%s%s\n",
           label, (unsigned)pk->ap_options, (int)pk->tkt_etype,
           (unsigned)pk->kvno, (int)pk->ses_etype, (int)pk->subkey_etype,
           pk->seq, pk->seq >= 0x80000000u ? " (negative as Int32)" : "",
           (unsigned)pk->cksumtype, pk->cksum_len, pk->gss_flags,
           pk->bnd_zero ? "zero" : "set", pk->ad[0] ? pk->ad : "none",
           pk->etype_list ? "[" : "none", list, pk->etype_list ? "]" : "");
}

/* ---- MIT's initiator ---- */

static bool mit_init_cred(const struct world *W, const char *ccache,
                          krb5_enctype *ets, size_t n, gss_cred_id_t *cred,
                          char *why, size_t wl)
{
    gss_key_value_element_desc el[2] = {{"client_keytab", W->client_kt},
                                        {"ccache", ccache}};
    gss_key_value_set_desc store = {2, el};
    gss_buffer_desc nb = {strlen(GK5_MIT_CLIENT), (void *)GK5_MIT_CLIENT};
    gss_name_t client = GSS_C_NO_NAME;
    OM_uint32 major, minor = 0, rel = 0;

    *cred = GSS_C_NO_CREDENTIAL;
    major = gss_import_name(&minor, &nb, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                            &client);
    if (GSS_ERROR(major)) {
        snprintf(why, wl, "gss_import_name: %s", mit_words(major, minor));
        return false;
    }
    major = gss_acquire_cred_from(&minor, client, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &store, cred, NULL, NULL);
    (void)gss_release_name(&rel, &client);
    if (GSS_ERROR(major)) {
        snprintf(why, wl, "gss_acquire_cred_from: %s", mit_words(major, minor));
        return false;
    }
    major = gss_krb5_set_allowable_enctypes(&minor, *cred, (OM_uint32)n, ets);
    if (GSS_ERROR(major)) {
        snprintf(why, wl, "gss_krb5_set_allowable_enctypes: %s",
                 mit_words(major, minor));
        (void)gss_release_cred(&rel, cred);
        return false;
    }
    return true;
}

static gss_name_t target_name(const char *svc)
{
    gss_buffer_desc nb = {strlen(svc), (void *)(uintptr_t)svc};
    gss_name_t name = GSS_C_NO_NAME;
    OM_uint32 minor = 0;

    if (GSS_ERROR(
            gss_import_name(&minor, &nb, GSS_C_NT_HOSTBASED_SERVICE, &name))) {
        return GSS_C_NO_NAME;
    }
    return name;
}

/* Channel bindings: set A (IPv4 addresses and application data), set B
 * (the same addresses, other application data). */
static const uint8_t cb_addr[4] = {127, 0, 0, 1};
static const char cb_app_a[] = "tls-server-end-point:gk5 test A";
static const char cb_app_b[] = "tls-server-end-point:gk5 test B";

static void make_bindings(int which, struct gss_channel_bindings_struct *m,
                          gk5_channel_bindings *g)
{
    const char *app = which == 0 ? cb_app_a : cb_app_b;

    memset(m, 0, sizeof(*m));
    m->initiator_addrtype = GSS_C_AF_INET;
    m->initiator_address.length = sizeof(cb_addr);
    m->initiator_address.value = (void *)(uintptr_t)cb_addr;
    m->acceptor_addrtype = GSS_C_AF_INET;
    m->acceptor_address.length = sizeof(cb_addr);
    m->acceptor_address.value = (void *)(uintptr_t)cb_addr;
    m->application_data.length = strlen(app);
    m->application_data.value = (void *)(uintptr_t)app;
    memset(g, 0, sizeof(*g));
    g->initiator_addrtype = m->initiator_addrtype;
    g->initiator_address =
        (gk5_buffer){m->initiator_address.length, m->initiator_address.value};
    g->acceptor_addrtype = m->acceptor_addrtype;
    g->acceptor_address =
        (gk5_buffer){m->acceptor_address.length, m->acceptor_address.value};
    g->application_data =
        (gk5_buffer){m->application_data.length, m->application_data.value};
}

/* One establishment, MIT's initiator -> gk5_accept -> (AP-REP) -> MIT's
 * initiator.  Every result is kept for the cells to judge. */
struct est {
    /* in */
    gss_cred_id_t cred;
    gss_name_t target;
    bool mutual;
    int mit_cb; /* -1 none, else bindings set 0 or 1 */
    int gk5_cb;
    gk5_acceptor_cred *acred;
    /* out */
    OM_uint32 imaj1, imin1, imaj2, imin2, iflags;
    gss_buffer_desc ap_req; /* MIT's first token (kept) */
    uint32_t amaj, amin;
    gk5_buffer reply; /* gk5's output token */
    unsigned reply_id;
    gk5_ctx *g;
    gk5_accept_info info;
    gss_ctx_id_t mit;
    time_t when;
};

static void est_run(struct est *e)
{
    struct gss_channel_bindings_struct mcb;
    gk5_channel_bindings gcb, gcb_acc;
    gss_buffer_desc none = GSS_C_EMPTY_BUFFER, out = GSS_C_EMPTY_BUFFER;
    OM_uint32 req = GK5_MIT_REQ_FLAGS, rel = 0;

    if (!e->mutual) {
        req &= ~(OM_uint32)GSS_C_MUTUAL_FLAG;
    }
    e->mit = GSS_C_NO_CONTEXT;
    e->g = NULL;
    e->reply = (gk5_buffer){0, NULL};
    e->ap_req = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    e->amaj = GK5_S_FAILURE;
    e->imaj2 = GSS_S_FAILURE;
    memset(&e->info, 0, sizeof(e->info));
    if (e->gk5_cb >= 0) {
        struct gss_channel_bindings_struct unused;
        make_bindings(e->gk5_cb, &unused, &gcb_acc);
    }
    if (e->mit_cb >= 0) {
        make_bindings(e->mit_cb, &mcb, &gcb);
    }
    e->imaj1 = gss_init_sec_context(
        &e->imin1, e->cred, &e->mit, e->target, (gss_OID)gss_mech_krb5, req, 0,
        e->mit_cb >= 0 ? &mcb : GSS_C_NO_CHANNEL_BINDINGS, &none, NULL,
        &e->ap_req, &e->iflags, NULL);
    if (GSS_ERROR(e->imaj1)) {
        return;
    }
    e->when = time(NULL);
    gk5_buffer in = {e->ap_req.length, e->ap_req.value};
    e->amaj =
        gk5_accept(&e->amin, e->acred, &in, e->gk5_cb >= 0 ? &gcb_acc : NULL,
                   &e->reply, &e->g, &e->info);
    e->reply_id = 0;
    if (e->reply.length > 0 &&
        frame_inner(e->reply.value, e->reply.length, &e->reply_id) < 0) {
        e->reply_id = 0xffff;
    }
    if (e->imaj1 != GSS_S_CONTINUE_NEEDED) {
        e->imaj2 = e->imaj1;
        return;
    }
    if (e->reply.length == 0) {
        return;
    }
    gss_buffer_desc rep = {e->reply.length, e->reply.value};
    e->imaj2 = gss_init_sec_context(
        &e->imin2, e->cred, &e->mit, e->target, (gss_OID)gss_mech_krb5, req, 0,
        e->mit_cb >= 0 ? &mcb : GSS_C_NO_CHANNEL_BINDINGS, &rep, NULL, &out,
        &e->iflags, NULL);
    (void)gss_release_buffer(&rel, &out);
}

static void est_free(struct est *e)
{
    OM_uint32 rel = 0;

    (void)gss_release_buffer(&rel, &e->ap_req);
    (void)gss_delete_sec_context(&rel, &e->mit, GSS_C_NO_BUFFER);
    gk5_buffer_release(&e->reply);
    gk5_ctx_free(e->g);
    e->g = NULL;
    gk5_accept_info_release(&e->info);
}

/* ---- Per message ---- */

struct peers {
    gk5_ctx *gk5;
    gss_ctx_id_t mit;
    bool rfc1964;
    bool subkey; /* an acceptor subkey keys the tokens */
    char label[200];
    struct world *W;
};

static void cell_name(char *buf, size_t len, const struct peers *p,
                      const char *what)
{
    snprintf(buf, len, "%s %s", p->label, what);
}

static bool gk5_wrap_to_mit(struct peers *p, int conf, const uint8_t *msg,
                            size_t len, char *why, size_t wl)
{
    gk5_buffer in = {len, (void *)(uintptr_t)msg}, tok = {0, NULL};
    gss_buffer_desc mtok, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = -1, mconf = -1;
    gss_qop_t qop = 99;
    bool ok = false;

    major =
        gk5_wrap(&minor, p->gk5, conf, GK5_QOP_DEFAULT, &in, &conf_state, &tok);
    if (major != GK5_S_COMPLETE || conf_state != conf) {
        snprintf(why, wl, "gk5_wrap(len %zu): %s (conf_state %d)", len,
                 gk5_words(major, minor), conf_state);
        goto cleanup;
    }
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmaj = gss_unwrap(&mmin, p->mit, &mtok, &out, &mconf, &qop);
    if (mmaj != GSS_S_COMPLETE || out.length != len ||
        (len > 0 && memcmp(out.value, msg, len) != 0) || mconf != conf ||
        qop != 0) {
        snprintf(why, wl,
                 "MIT gss_unwrap(len %zu): %s, %zu bytes back, conf %d, qop %u",
                 len, mit_words(mmaj, mmin), out.length, mconf, (unsigned)qop);
        goto cleanup;
    }
    ok = true;
cleanup:
    gk5_buffer_release(&tok);
    (void)gss_release_buffer(&mmin, &out);
    return ok;
}

static bool gk5_mic_to_mit(struct peers *p, int conf, const uint8_t *msg,
                           size_t len, char *why, size_t wl)
{
    gk5_buffer in = {len, (void *)(uintptr_t)msg}, tok = {0, NULL};
    gss_buffer_desc mmsg = {len, (void *)(uintptr_t)msg}, mtok;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    gss_qop_t qop = 99;
    bool ok = false;

    (void)conf;
    major = gk5_get_mic(&minor, p->gk5, GK5_QOP_DEFAULT, &in, &tok);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, wl, "gk5_get_mic(len %zu): %s", len,
                 gk5_words(major, minor));
        goto cleanup;
    }
    mtok.length = tok.length;
    mtok.value = tok.value;
    mmaj = gss_verify_mic(&mmin, p->mit, &mmsg, &mtok, &qop);
    if (mmaj != GSS_S_COMPLETE || qop != 0) {
        snprintf(why, wl, "MIT gss_verify_mic(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    ok = true;
cleanup:
    gk5_buffer_release(&tok);
    return ok;
}

/* gk5_wrap_iov with HEADER, DATA and PADDING (no TRAILER: RRC != 0 for
 * CFX), the buffers end to end into MIT's plain gss_unwrap. */
static bool gk5_wrap_iov_to_mit(struct peers *p, int conf, const uint8_t *msg,
                                size_t len, char *why, size_t wl)
{
    gk5_iov_buffer iov[3];
    uint8_t data[MSG_MAX], *tok = NULL;
    gss_buffer_desc mtok, out = GSS_C_EMPTY_BUFFER;
    uint32_t major, minor = 0;
    OM_uint32 mmaj, mmin = 0;
    int conf_state = -1, mconf = -1;
    bool ok = false;

    memcpy(data, msg, len);
    iov[0] = (gk5_iov_buffer){
        GK5_IOV_BUFFER_TYPE_HEADER | GK5_IOV_BUFFER_FLAG_ALLOCATE, {0, NULL}};
    iov[1] = (gk5_iov_buffer){GK5_IOV_BUFFER_TYPE_DATA, {len, data}};
    iov[2] = (gk5_iov_buffer){
        GK5_IOV_BUFFER_TYPE_PADDING | GK5_IOV_BUFFER_FLAG_ALLOCATE, {0, NULL}};
    major = gk5_wrap_iov(&minor, p->gk5, conf, GK5_QOP_DEFAULT, &conf_state,
                         iov, 3);
    if (major != GK5_S_COMPLETE || conf_state != conf) {
        snprintf(why, wl, "gk5_wrap_iov(len %zu): %s", len,
                 gk5_words(major, minor));
        goto cleanup;
    }
    size_t h = iov[0].buffer.length, pad = iov[2].buffer.length;
    tok = malloc(h + len + pad + 1);
    if (tok == NULL) {
        snprintf(why, wl, "out of memory");
        goto cleanup;
    }
    memcpy(tok, iov[0].buffer.value, h);
    memcpy(tok + h, data, len);
    if (pad > 0) {
        memcpy(tok + h + len, iov[2].buffer.value, pad);
    }
    if (!p->rfc1964 && (h < 8 || (tok[6] << 8 | tok[7]) == 0)) {
        snprintf(why, wl, "gk5_wrap_iov sent RRC 0 without a TRAILER");
        goto cleanup;
    }
    mtok.length = h + len + pad;
    mtok.value = tok;
    mmaj = gss_unwrap(&mmin, p->mit, &mtok, &out, &mconf, NULL);
    if (mmaj != GSS_S_COMPLETE || out.length != len ||
        (len > 0 && memcmp(out.value, msg, len) != 0) || mconf != conf) {
        snprintf(why, wl, "MIT gss_unwrap of gk5_wrap_iov(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    ok = true;
cleanup:
    free(tok);
    gk5_release_iov(iov, 3);
    (void)gss_release_buffer(&mmin, &out);
    return ok;
}

static bool mit_wrap(struct peers *p, int conf, const uint8_t *msg, size_t len,
                     gss_buffer_desc *tok, char *why, size_t wl)
{
    gss_buffer_desc in = {len, (void *)(uintptr_t)msg};
    OM_uint32 mmaj, mmin = 0;
    int mconf = -1;

    mmaj = gss_wrap(&mmin, p->mit, conf, GSS_C_QOP_DEFAULT, &in, &mconf, tok);
    if (mmaj != GSS_S_COMPLETE || mconf != conf) {
        snprintf(why, wl, "MIT gss_wrap(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        return false;
    }
    if (!p->rfc1964 && tok->length >= 8) {
        const uint8_t *t = tok->value;
        unsigned rrc = (unsigned)(t[6] << 8 | t[7]);
        if (rrc < p->W->rrc_wrap_min) {
            p->W->rrc_wrap_min = rrc;
        }
        if (rrc > p->W->rrc_wrap_max) {
            p->W->rrc_wrap_max = rrc;
        }
    }
    return true;
}

/* gk5_unwrap must give back exactly msg with status `expect`. */
static bool gk5_unwrap_check(struct peers *p, const void *tok, size_t tok_len,
                             int conf, const uint8_t *msg, size_t len,
                             uint32_t expect, char *why, size_t wl)
{
    gk5_buffer in = {tok_len, (void *)(uintptr_t)tok}, out = {0, NULL};
    uint32_t major, minor = 0, qop = 99;
    int conf_state = -1;
    bool ok = false;

    major = gk5_unwrap(&minor, p->gk5, &in, &out, &conf_state, &qop);
    if (major != expect) {
        snprintf(why, wl, "gk5_unwrap(len %zu): %s (expected %s)", len,
                 gk5_words(major, minor), gk5_major_name(expect));
    } else if (GK5_ERROR(expect) == 0 &&
               (out.length != len ||
                (len > 0 && memcmp(out.value, msg, len) != 0) ||
                conf_state != conf || qop != 0)) {
        snprintf(why, wl,
                 "gk5_unwrap(len %zu): wrong plaintext (%zu bytes), conf "
                 "%d, qop %u",
                 len, out.length, conf_state, (unsigned)qop);
    } else {
        ok = true;
    }
    gk5_buffer_release(&out);
    return ok;
}

static bool mit_wrap_to_gk5(struct peers *p, int conf, const uint8_t *msg,
                            size_t len, char *why, size_t wl)
{
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    bool ok = mit_wrap(p, conf, msg, len, &tok, why, wl) &&
              gk5_unwrap_check(p, tok.value, tok.length, conf, msg, len,
                               GK5_S_COMPLETE, why, wl);

    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

static bool mit_get_mic(struct peers *p, const uint8_t *msg, size_t len,
                        gss_buffer_desc *tok, char *why, size_t wl)
{
    gss_buffer_desc in = {len, (void *)(uintptr_t)msg};
    OM_uint32 mmaj, mmin = 0;

    mmaj = gss_get_mic(&mmin, p->mit, GSS_C_QOP_DEFAULT, &in, tok);
    if (mmaj != GSS_S_COMPLETE) {
        snprintf(why, wl, "MIT gss_get_mic(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        return false;
    }
    return true;
}

static bool mit_mic_to_gk5(struct peers *p, int conf, const uint8_t *msg,
                           size_t len, char *why, size_t wl)
{
    gss_buffer_desc tok = GSS_C_EMPTY_BUFFER;
    OM_uint32 mmin = 0;
    gk5_buffer m = {len, (void *)(uintptr_t)msg};
    uint32_t major = GK5_S_FAILURE, minor = 0, qop = 99;
    bool ok = false;

    (void)conf;
    if (mit_get_mic(p, msg, len, &tok, why, wl)) {
        gk5_buffer t = {tok.length, tok.value};
        major = gk5_verify_mic(&minor, p->gk5, &m, &t, &qop);
        ok = major == GK5_S_COMPLETE && qop == 0;
        if (!ok) {
            snprintf(why, wl, "gk5_verify_mic(len %zu): %s", len,
                     gk5_words(major, minor));
        }
    }
    (void)gss_release_buffer(&mmin, &tok);
    return ok;
}

/* MIT gss_wrap_iov with HEADER, DATA and PADDING, no TRAILER. */
static bool mit_wrap_iov_to_gk5(struct peers *p, int conf, const uint8_t *msg,
                                size_t len, unsigned *rrc, char *why, size_t wl)
{
    gss_iov_buffer_desc iov[3];
    uint8_t data[MSG_MAX], *tok = NULL;
    OM_uint32 mmaj, mmin = 0;
    int mconf = -1;
    bool ok = false;

    memcpy(data, msg, len);
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[0].buffer = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = len;
    iov[1].buffer.value = data;
    iov[2].type = GSS_IOV_BUFFER_TYPE_PADDING | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[2].buffer = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    mmaj = gss_wrap_iov(&mmin, p->mit, conf, GSS_C_QOP_DEFAULT, &mconf, iov, 3);
    if (mmaj != GSS_S_COMPLETE || mconf != conf) {
        snprintf(why, wl, "MIT gss_wrap_iov(len %zu): %s", len,
                 mit_words(mmaj, mmin));
        goto cleanup;
    }
    size_t total = iov[0].buffer.length + len + iov[2].buffer.length;
    tok = malloc(total + 1);
    if (tok == NULL) {
        snprintf(why, wl, "out of memory");
        goto cleanup;
    }
    memcpy(tok, iov[0].buffer.value, iov[0].buffer.length);
    memcpy(tok + iov[0].buffer.length, data, len);
    if (iov[2].buffer.length > 0) {
        memcpy(tok + iov[0].buffer.length + len, iov[2].buffer.value,
               iov[2].buffer.length);
    }
    *rrc = p->rfc1964 || total < 8 ? 0 : (unsigned)(tok[6] << 8 | tok[7]);
    if (!p->rfc1964 && *rrc == 0) {
        snprintf(why, wl, "MIT gss_wrap_iov sent RRC 0: the case is vacuous");
        goto cleanup;
    }
    ok = gk5_unwrap_check(p, tok, total, conf, msg, len, GK5_S_COMPLETE, why,
                          wl);
cleanup:
    free(tok);
    (void)gss_release_iov_buffer(&mmin, iov, 3);
    return ok;
}

typedef bool (*one_msg_fn)(struct peers *p, int conf, const uint8_t *msg,
                           size_t len, char *why, size_t wl);

static void cell_over_lengths(struct peers *p, const char *what, one_msg_fn fn,
                              int conf)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512];
    bool ok = true;

    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        fill(msg, msg_lens[i], (unsigned)i);
        ok = fn(p, conf, msg, msg_lens[i], why, sizeof(why));
    }
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

static void cell_mit_wrap_iov(struct peers *p, int conf)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512], what[128];
    unsigned rrc = 0, rrc_max = 0;
    bool ok = true;

    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        fill(msg, msg_lens[i], (unsigned)i + 50);
        ok = mit_wrap_iov_to_gk5(p, conf, msg, msg_lens[i], &rrc, why,
                                 sizeof(why));
        rrc_max = rrc > rrc_max ? rrc : rrc_max;
    }
    if (p->rfc1964) {
        snprintf(what, sizeof(what),
                 "MIT->gk5 gss_wrap_iov %s (header, data, padding)",
                 conf ? "sealed" : "integ");
    } else {
        snprintf(what, sizeof(what),
                 "MIT->gk5 gss_wrap_iov %s (no trailer, RRC %u)",
                 conf ? "sealed" : "integ", rrc_max);
    }
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

/* CFX header fields of a token (RFC 4121 4.2.6). */
static bool hdr_fields(const uint8_t *t, size_t n, unsigned *flags,
                       unsigned *ec, unsigned *rrc, uint64_t *seq)
{
    if (n < 16 || t[0] != 0x05 || t[1] != 0x04 || t[3] != 0xff) {
        return false;
    }
    *flags = t[2];
    *ec = (unsigned)(t[4] << 8 | t[5]);
    *rrc = (unsigned)(t[6] << 8 | t[7]);
    *seq = 0;
    for (int i = 8; i < 16; i++) {
        *seq = *seq << 8 | t[i];
    }
    return true;
}

/* The first Wrap token each way: the flags RFC 4121 4.2.2 asks of each
 * side, MIT's number the authenticator's seq-number, gk5's the number
 * gk5_ctx_inquire reported (the AP-REP's, or with no AP-REP the
 * initiator's). */
static void cell_first_tokens(struct peers *p, uint32_t mit_seq, bool mutual)
{
    static const uint8_t msg[] = "the first message each way";
    gss_buffer_desc mt = GSS_C_EMPTY_BUFFER;
    gk5_buffer in = {sizeof(msg), (void *)(uintptr_t)msg}, gt = {0, NULL};
    gk5_ctx_info info;
    char why[1024] = "", name[512];
    unsigned mf = 0, mec = 0, mrrc = 0, gf = 0, gec = 0, grrc = 0;
    uint64_t mseq = 0, gseq = 0;
    uint32_t major, minor = 0;
    OM_uint32 mmin = 0;
    int cs = 0;
    bool ok = false;

    memset(&info, 0, sizeof(info));
    major = gk5_ctx_inquire(&minor, p->gk5, &info);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_ctx_inquire: %s",
                 gk5_words(major, minor));
        goto done;
    }
    if (info.initiator != 0 || info.cfx != !p->rfc1964 ||
        info.acceptor_subkey != (int)p->subkey ||
        (info.flags & (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE)) !=
            (GK5_CTX_REPLAY | GK5_CTX_SEQUENCE) ||
        (!mutual && info.send_seq != mit_seq)) {
        snprintf(why, sizeof(why),
                 "gk5_ctx_inquire: initiator %d cfx %d subkey %d flags %#x "
                 "send_seq %" PRIu64 " (MIT's seq-number %" PRIu32 ")",
                 info.initiator, info.cfx, info.acceptor_subkey,
                 (unsigned)info.flags, info.send_seq, mit_seq);
        goto done;
    }
    if (!mit_wrap(p, 1, msg, sizeof(msg), &mt, why, sizeof(why))) {
        goto done;
    }
    major = gk5_wrap(&minor, p->gk5, 1, GK5_QOP_DEFAULT, &in, &cs, &gt);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_wrap: %s", gk5_words(major, minor));
        goto done;
    }
    if (p->rfc1964) {
        ok = true;
    } else if (!hdr_fields(mt.value, mt.length, &mf, &mec, &mrrc, &mseq) ||
               !hdr_fields(gt.value, gt.length, &gf, &gec, &grrc, &gseq)) {
        snprintf(why, sizeof(why), "not RFC 4121 Wrap tokens");
    } else {
        unsigned want_m = CFX_SEALED | (p->subkey ? CFX_ACCEPTOR_SUBKEY : 0);
        unsigned want_g = want_m | CFX_SENT_BY_ACCEPTOR;
        printf("# %s MIT sends flags %#04x EC %u RRC %u seq %" PRIu64
               "; gk5 sends flags %#04x EC %u RRC %u seq %" PRIu64 "\n",
               p->label, mf, mec, mrrc, mseq, gf, gec, grrc, gseq);
        if (mf != want_m || gf != want_g || mseq != mit_seq ||
            gseq != info.send_seq) {
            snprintf(why, sizeof(why),
                     "want MIT flags %#x seq %" PRIu32 ", gk5 flags %#x seq "
                     "%" PRIu64,
                     want_m, mit_seq, want_g, info.send_seq);
        } else {
            ok = true;
        }
    }
    if (ok) {
        ok = gk5_unwrap_check(p, mt.value, mt.length, 1, msg, sizeof(msg),
                              GK5_S_COMPLETE, why, sizeof(why));
    }
    if (ok) {
        gss_buffer_desc t = {gt.length, gt.value}, out = GSS_C_EMPTY_BUFFER;
        int mconf = 0;
        OM_uint32 mmaj = gss_unwrap(&mmin, p->mit, &t, &out, &mconf, NULL);
        ok = mmaj == GSS_S_COMPLETE && out.length == sizeof(msg) &&
             memcmp(out.value, msg, sizeof(msg)) == 0;
        if (!ok) {
            snprintf(why, sizeof(why), "MIT gss_unwrap of gk5's first: %s",
                     mit_words(mmaj, mmin));
        }
        (void)gss_release_buffer(&mmin, &out);
    }
done:
    (void)gss_release_buffer(&mmin, &mt);
    gk5_buffer_release(&gt);
    cell_name(name, sizeof(name), p,
              "first token each way: flags and sequence numbers");
    cell(ok, name, "%s", why);
}

static void cell_long_run(struct peers *p)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512], what[96];
    bool ok = true;

    for (unsigned i = 0; i < 2 * LONG_RUN && ok; i++) {
        size_t len = (i * 37u) % 300u;
        bool from_gk5 = (i & 1) != 0;
        int conf = (i / 2) % 3 == 0;
        fill(msg, len, i + 1000);
        switch ((i / 2) % 3) {
        case 0:
        case 1:
            ok = from_gk5
                     ? gk5_wrap_to_mit(p, conf, msg, len, why, sizeof(why))
                     : mit_wrap_to_gk5(p, conf, msg, len, why, sizeof(why));
            break;
        default:
            ok = from_gk5 ? gk5_mic_to_mit(p, 0, msg, len, why, sizeof(why))
                          : mit_mic_to_gk5(p, 0, msg, len, why, sizeof(why));
            break;
        }
        if (!ok) {
            append(why, sizeof(why), " (message %u)", i);
        }
    }
    snprintf(what, sizeof(what),
             "%d messages each way in turn (wrap sealed, integ, MIC)",
             LONG_RUN);
    cell_name(name, sizeof(name), p, what);
    cell(ok, name, "%s", why);
}

/* MIT's tokens t0..t3 delivered t0, t2, t1, t1, t3: COMPLETE, GAP,
 * UNSEQ, DUPLICATE (no message), COMPLETE -- RFC 2743 1.2.3 with replay
 * and sequence detection on. */
static void cell_window(struct peers *p)
{
    static const uint32_t expect[5] = {GK5_S_COMPLETE, GK5_S_GAP_TOKEN,
                                       GK5_S_UNSEQ_TOKEN, GK5_S_DUPLICATE_TOKEN,
                                       GK5_S_COMPLETE};
    static const int order[5] = {0, 2, 1, 1, 3};
    gss_buffer_desc t[4];
    uint8_t msg[4][40];
    char why[1024] = "", name[512];
    OM_uint32 mmin = 0;
    bool ok = true;

    for (int i = 0; i < 4; i++) {
        t[i] = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
    }
    for (int i = 0; i < 4 && ok; i++) {
        fill(msg[i], sizeof(msg[i]), 7000u + (unsigned)i);
        ok = mit_wrap(p, 1, msg[i], sizeof(msg[i]), &t[i], why, sizeof(why));
    }
    for (int k = 0; k < 5 && ok; k++) {
        int i = order[k];
        ok = gk5_unwrap_check(p, t[i].value, t[i].length, 1, msg[i],
                              sizeof(msg[i]), expect[k], why, sizeof(why));
        if (!ok) {
            append(why, sizeof(why), " (token %d delivered %d-th)", i, k + 1);
        }
    }
    for (int i = 0; i < 4; i++) {
        (void)gss_release_buffer(&mmin, &t[i]);
    }
    cell_name(name, sizeof(name), p,
              "MIT->gk5 window: t0 t2 t1 t1 t3 -> COMPLETE GAP UNSEQ "
              "DUPLICATE COMPLETE");
    cell(ok, name, "%s", why);
}

static void run_messages(struct peers *p, uint32_t mit_seq, bool mutual)
{
    cell_first_tokens(p, mit_seq, mutual);
    cell_over_lengths(p, "MIT->gk5 gss_wrap sealed", mit_wrap_to_gk5, 1);
    cell_over_lengths(p, "MIT->gk5 gss_wrap integ", mit_wrap_to_gk5, 0);
    cell_over_lengths(p, "MIT->gk5 gss_get_mic", mit_mic_to_gk5, 0);
    cell_mit_wrap_iov(p, 1);
    cell_mit_wrap_iov(p, 0);
    cell_over_lengths(p, "gk5->MIT gk5_wrap sealed", gk5_wrap_to_mit, 1);
    cell_over_lengths(p, "gk5->MIT gk5_wrap integ", gk5_wrap_to_mit, 0);
    cell_over_lengths(p, "gk5->MIT gk5_get_mic", gk5_mic_to_mit, 0);
    cell_over_lengths(p, "gk5->MIT gk5_wrap_iov sealed (no trailer)",
                      gk5_wrap_iov_to_mit, 1);
    cell_over_lengths(p, "gk5->MIT gk5_wrap_iov integ (no trailer)",
                      gk5_wrap_iov_to_mit, 0);
    cell_long_run(p);
    cell_window(p);
}

/* ---- Known-answer dump ---- */

static void hex_out(FILE *f, const void *p, size_t n)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%02x", b[i]);
    }
}

static const char dump_header[] =
    "# Real AP-REQs made by MIT krb5's initiator (gss_init_sec_context,\n"
    "# MIT krb5 1.20.1-2+deb12u5, Debian 12) in the throwaway realm of\n"
    "# `gk5 realm run` (docs/design.md, \"The throwaway realm\"), each with\n"
    "# the service key that opens its ticket: known answers for gk5's\n"
    "# acceptor and DER codec.  Made by\n"
    "#\n"
    "#   build/tools/gk5 realm run -- \\\n"
    "#       build/tests/interop/test_native_accept --dump mit_ap_req.txt\n"
    "#\n"
    "# (every run gives new keys, tickets and times).  The realm's KDC (MIT\n"
    "# krb5kdc 1.20.1) issued the tickets, with its PAC in their\n"
    "# authorization data.  The tickets expire: decode them at `time`\n"
    "# (gk5i_accept_at), with a replay cache made before it.  gk5's own\n"
    "# acceptor accepted each one when it was captured (test_native_accept's\n"
    "# cells), as did MIT's krb5_rd_req.\n"
    "#\n"
    "# Fields:\n"
    "#   name             the session enctype and mutual (MIT asked for\n"
    "#                    mutual authentication) or nomutual; or the\n"
    "#                    context enctype and negotiated (RFC 4537: MIT\n"
    "#                    listed context_enctype first, its cached\n"
    "#                    ticket's session key second)\n"
    "#   realm, sname     the service, gk5/localhost@GK5.TEST\n"
    "#   cname            the client, as gk5_accept_info.initiator says it\n"
    "#   key_enctype, kvno, key\n"
    "#                    the service's long-term key from the realm's\n"
    "#                    service.keytab, which encrypts the ticket\n"
    "#   session_enctype  the ticket's session key's enctype\n"
    "#   context_enctype  the context's (acceptor subkey's, with mutual)\n"
    "#                    enctype gk5 chose\n"
    "#   mutual           1 if ap-options has mutual-required\n"
    "#   gss_flags        gk5_accept_info.gss_flags (RFC 2744 values; the\n"
    "#                    0x8003 checksum's flags plus TRANS)\n"
    "#   time             seconds since 1970 when gk5 accepted it (within\n"
    "#                    the clock skew of the authenticator's ctime)\n"
    "#   endtime          the ticket's endtime\n"
    "#   token            the AP-REQ as MIT sent it: RFC 2743 3.1 framing,\n"
    "#                    the krb5 OID, TOK_ID 01 00, the DER AP-REQ\n"
    "\n";

static void dump_block(struct world *W, const struct est *e, int32_t et,
                       const char *tag)
{
    krb5_principal princ = NULL;
    krb5_keytab_entry ent;
    const char *at;

    if (W->dump == NULL) {
        return;
    }
    memset(&ent, 0, sizeof(ent));
    if (krb5_parse_name(W->kc, GK5_MIT_SERVICE, &princ) != 0 ||
        krb5_kt_get_entry(W->kc, W->kt, princ, 0, e->info.ticket_enctype,
                          &ent) != 0) {
        printf("# --dump: no key of enctype %d in the service keytab\n",
               (int)e->info.ticket_enctype);
        krb5_free_principal(W->kc, princ);
        return;
    }
    at = strrchr(e->info.acceptor, '@');
    fprintf(W->dump,
            "source = MIT krb5 1.20.1 gss_init_sec_context (Debian 12), "
            "captured by tests/interop/test_native_accept.c --dump\n");
    fprintf(W->dump, "name = %s-%s\n", enctype_name(et), tag);
    fprintf(W->dump, "realm = \"%s\"\n", GK5_MIT_REALM_NAME);
    fprintf(W->dump, "sname = \"%.*s\"\n",
            at != NULL ? (int)(at - e->info.acceptor)
                       : (int)strlen(e->info.acceptor),
            e->info.acceptor);
    fprintf(W->dump, "cname = \"%s\"\n", e->info.initiator);
    fprintf(W->dump, "key_enctype = %d\n", (int)ent.key.enctype);
    fprintf(W->dump, "kvno = %u\n", (unsigned)ent.vno);
    fprintf(W->dump, "key = ");
    hex_out(W->dump, ent.key.contents, ent.key.length);
    fprintf(W->dump, "\nsession_enctype = %d\n", (int)e->info.session_enctype);
    fprintf(W->dump, "context_enctype = %d\n", (int)e->info.context_enctype);
    fprintf(W->dump, "mutual = %d\n", e->mutual ? 1 : 0);
    fprintf(W->dump, "gss_flags = %u\n", (unsigned)e->info.gss_flags);
    fprintf(W->dump, "time = %lld\n", (long long)e->when);
    fprintf(W->dump, "endtime = %lld\n", (long long)e->info.endtime);
    fprintf(W->dump, "token = ");
    hex_out(W->dump, e->ap_req.value, e->ap_req.length);
    fprintf(W->dump, "\n\n");
    fflush(W->dump);
    W->dumped++;
    krb5_free_keytab_entry_contents(W->kc, &ent);
    krb5_free_principal(W->kc, princ);
}

/* ---- The cases ---- */

/* Establish and judge the establishment; per-message cells when asked. */
static void run_establish(struct world *W, int32_t et, bool mutual,
                          bool messages)
{
    struct est e;
    struct peek pk;
    struct peers p;
    gss_name_t target = target_name(TARGET);
    char why[1024] = "", name[512], what[256];
    bool ok;

    memset(&e, 0, sizeof(e));
    memset(&p, 0, sizeof(p));
    p.W = W;
    p.rfc1964 = et == 16;
    snprintf(p.label, sizeof(p.label), "%s(%d) MIT->gk5_accept%s |",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth");
    e.target = target;
    e.mutual = mutual;
    e.mit_cb = e.gk5_cb = -1;
    e.acred = W->cred;
    krb5_enctype ket = et;
    ok = mit_init_cred(W, CCACHE, &ket, 1, &e.cred, why, sizeof(why));
    if (ok) {
        est_run(&e);
        peek_ap_req(W, &e.ap_req, &pk);
        print_peek(&pk, p.label);
    }
    if (ok && GSS_ERROR(e.imaj1)) {
        snprintf(why, sizeof(why), "MIT gss_init_sec_context: %s",
                 mit_words(e.imaj1, e.imin1));
        ok = false;
    } else if (ok && e.amaj != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_accept: %s", gk5_words(e.amaj, e.amin));
        ok = false;
    } else if (ok && mutual &&
               (e.reply_id != 0x0200 || e.imaj2 != GSS_S_COMPLETE)) {
        snprintf(why, sizeof(why),
                 "gk5's reply TOK_ID %04x; MIT's second "
                 "gss_init_sec_context: %s",
                 e.reply_id, mit_words(e.imaj2, e.imin2));
        ok = false;
    } else if (ok && !mutual &&
               (e.imaj1 != GSS_S_COMPLETE || e.reply.length != 0)) {
        snprintf(why, sizeof(why),
                 "MIT's first call %#x, gk5 replied %zu bytes (want none)",
                 (unsigned)e.imaj1, e.reply.length);
        ok = false;
    }
    snprintf(what, sizeof(what), "%s",
             mutual ? "MIT initiator -> gk5_accept -> AP-REP -> MIT complete"
                    : "MIT initiator -> gk5_accept, no reply token");
    cell_name(name, sizeof(name), &p, what);
    if (!cell(ok, name, "%s", why)) {
        goto cleanup;
    }

    /* What gk5 says it accepted. */
    uint32_t want_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                          GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG |
                          (mutual ? GK5_C_MUTUAL_FLAG : 0);
    ok = strcmp(e.info.initiator, GK5_MIT_CLIENT) == 0 &&
         strcmp(e.info.acceptor, GK5_MIT_SERVICE) == 0 &&
         e.info.session_enctype == et && e.info.context_enctype == et &&
         (e.info.gss_flags & want_flags) == want_flags &&
         (e.info.gss_flags & GK5_C_DELEG_FLAG) == 0 &&
         e.info.endtime > (int64_t)e.when &&
         e.info.authtime <= (int64_t)e.when + 300 &&
         (!pk.ok ||
          (pk.ses_etype == et && pk.tkt_etype == e.info.ticket_enctype));
    snprintf(what, sizeof(what),
             "gk5_accept_info: %s -> %s, session %d, context %d, ticket %d",
             e.info.initiator, e.info.acceptor, (int)e.info.session_enctype,
             (int)e.info.context_enctype, (int)e.info.ticket_enctype);
    cell_name(name, sizeof(name), &p, what);
    cell(ok, name,
         "gss_flags %#x (want %#x), ticket flags %#x, authtime %lld endtime "
         "%lld now %lld; MIT reads session %d ticket %d",
         (unsigned)e.info.gss_flags, (unsigned)want_flags,
         (unsigned)e.info.ticket_flags, (long long)e.info.authtime,
         (long long)e.info.endtime, (long long)e.when, (int)pk.ses_etype,
         (int)pk.tkt_etype);
    printf("# %s gk5 accepted: gss_flags %#x ticket_flags %#x, authz-data %zu "
           "bytes; MIT's initiator granted %#x\n",
           p.label, (unsigned)e.info.gss_flags, (unsigned)e.info.ticket_flags,
           e.info.authorization_data.length, (unsigned)e.iflags);

    /* The same AP-REQ again, to the same credential. */
    if (mutual) {
        gk5_buffer in = {e.ap_req.length, e.ap_req.value}, out = {0, NULL};
        gk5_ctx *ctx2 = NULL;
        uint32_t minor = 0;
        unsigned id = 0;
        uint32_t major =
            gk5_accept(&minor, W->cred, &in, NULL, &out, &ctx2, NULL);
        if (out.length > 0 && frame_inner(out.value, out.length, &id) < 0) {
            id = 0xffff;
        }
        cell_name(name, sizeof(name), &p,
                  "the AP-REQ replayed to the same credential -> "
                  "GK5_ERR_AP_REPEAT, a KRB-ERROR token");
        cell(GK5_ROUTINE_ERROR(major) == GK5_S_FAILURE &&
                 GK5_ERR_CODE(minor) == GK5_ERR_AP_REPEAT && ctx2 == NULL &&
                 id == 0x0300,
             name, "%s, reply TOK_ID %04x", gk5_words(major, minor), id);
        gk5_ctx_free(ctx2);
        gk5_buffer_release(&out);
    }

    if (W->dump != NULL && (mutual || et == 18)) {
        dump_block(W, &e, et, mutual ? "mutual" : "nomutual");
    }
    if (messages) {
        p.gk5 = e.g;
        p.mit = e.mit;
        p.subkey = mutual && !p.rfc1964;
        run_messages(&p, pk.ok ? pk.seq : 0, mutual);
    }

cleanup:
    est_free(&e);
    {
        OM_uint32 rel = 0;
        (void)gss_release_cred(&rel, &e.cred);
        (void)gss_release_name(&rel, &target);
    }
}

/* Channel bindings: mit_cb / gk5_cb are -1 (none) or a set; `good` whether
 * gk5 must accept. */
static void run_bindings(struct world *W, int32_t et, bool mutual, int mit_cb,
                         int gk5_cb)
{
    static const char *const cbn[] = {"none", "A", "B"};
    struct est e;
    gss_name_t target = target_name(TARGET);
    char why[1024] = "", name[512], label[160];
    bool good = mit_cb < 0 || gk5_cb < 0 || mit_cb == gk5_cb;
    bool ok = false;
    krb5_enctype ket = et;

    memset(&e, 0, sizeof(e));
    snprintf(label, sizeof(label),
             "%s(%d) MIT->gk5_accept%s | bindings MIT %s, gk5 %s ->",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth",
             cbn[mit_cb + 1], cbn[gk5_cb + 1]);
    e.target = target;
    e.mutual = mutual;
    e.mit_cb = mit_cb;
    e.gk5_cb = gk5_cb;
    e.acred = W->cred;
    if (!mit_init_cred(W, CCACHE, &ket, 1, &e.cred, why, sizeof(why))) {
        goto done;
    }
    est_run(&e);
    if (GSS_ERROR(e.imaj1)) {
        snprintf(why, sizeof(why), "MIT gss_init_sec_context: %s",
                 mit_words(e.imaj1, e.imin1));
        goto done;
    }
    if (good) {
        ok = e.amaj == GK5_S_COMPLETE &&
             (mutual ? e.imaj2 == GSS_S_COMPLETE : e.reply.length == 0);
        snprintf(why, sizeof(why), "gk5_accept: %s; MIT's second call: %s",
                 gk5_words(e.amaj, e.amin), mit_words(e.imaj2, e.imin2));
        if (ok) {
            /* One message each way over the context. */
            struct peers p = {
                .gk5 = e.g, .mit = e.mit, .rfc1964 = et == 16, .W = W};
            static const uint8_t m[] = "bound";
            ok = mit_wrap_to_gk5(&p, 1, m, sizeof(m), why, sizeof(why)) &&
                 gk5_wrap_to_mit(&p, 1, m, sizeof(m), why, sizeof(why));
        }
    } else {
        /* gk5 refuses; with mutual its KRB-ERROR makes MIT's initiator fail
         * with the code inside (KRB_AP_ERR_BAD_INTEGRITY, 31). */
        bool refused = e.amaj == GK5_S_BAD_BINDINGS &&
                       GK5_ERR_CODE(e.amin) == GK5_ERR_AP_BINDINGS &&
                       e.g == NULL;
        bool reply_ok =
            mutual ? e.reply_id == 0x0300 && GSS_ERROR(e.imaj2) &&
                         e.imin2 == (OM_uint32)KRB5KRB_AP_ERR_BAD_INTEGRITY
                   : e.reply.length == 0;
        ok = refused && reply_ok;
        snprintf(why, sizeof(why),
                 "gk5_accept: %s; reply %zu bytes TOK_ID %04x; MIT's second "
                 "call: %s",
                 gk5_words(e.amaj, e.amin), e.reply.length, e.reply_id,
                 mutual ? mit_words(e.imaj2, e.imin2) : "(none)");
        if (ok && mutual) {
            printf("# %s MIT's initiator on gk5's KRB-ERROR: %s\n", label,
                   mit_words(e.imaj2, e.imin2));
        }
    }
done:
    snprintf(name, sizeof(name), "%s %s", label,
             good ? "accepted, a message each way"
                  : (mutual ? "BAD_BINDINGS, KRB-ERROR, MIT's initiator fails"
                            : "BAD_BINDINGS, no reply"));
    cell(ok, name, "%s", why);
    est_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &e.cred);
    (void)gss_release_name(&rel, &target);
}

/* A ticket for nfs/localhost to a credential on service.keytab (which has
 * gk5/localhost only): named, and for any principal of the keytab. */
static void run_no_cred(struct world *W)
{
    for (int named = 1; named >= 0; named--) {
        gk5_acceptor_opts o = {.keytab = W->service_kt,
                               .principal = named ? ACCEPTOR_NAME : NULL};
        gk5_acceptor_cred *c = NULL;
        struct est e;
        gss_name_t target = target_name(NFS_TARGET);
        krb5_enctype ket = 18;
        char why[1024] = "", name[512];
        uint32_t minor = 0;
        bool ok = false;

        memset(&e, 0, sizeof(e));
        e.target = target;
        e.mutual = true;
        e.mit_cb = e.gk5_cb = -1;
        if (gk5_acceptor_cred_new(&minor, &o, &c) != GK5_S_COMPLETE) {
            snprintf(why, sizeof(why), "gk5_acceptor_cred_new: %s",
                     gk5_words(GK5_S_NO_CRED, minor));
        } else if (mit_init_cred(W, CCACHE, &ket, 1, &e.cred, why,
                                 sizeof(why))) {
            e.acred = c;
            est_run(&e);
            if (GSS_ERROR(e.imaj1)) {
                snprintf(why, sizeof(why), "MIT gss_init_sec_context: %s",
                         mit_words(e.imaj1, e.imin1));
            } else {
                ok = e.amaj == GK5_S_NO_CRED && e.g == NULL &&
                     e.reply_id == 0x0300 && GSS_ERROR(e.imaj2);
                snprintf(why, sizeof(why),
                         "gk5_accept: %s; reply TOK_ID %04x; MIT: %s",
                         gk5_words(e.amaj, e.amin), e.reply_id,
                         mit_words(e.imaj2, e.imin2));
                if (ok) {
                    printf("# nfs/localhost ticket to a %s credential: %s; "
                           "MIT's initiator: %s\n",
                           named ? ACCEPTOR_NAME : "any-principal",
                           gk5_words(e.amaj, e.amin),
                           mit_words(e.imaj2, e.imin2));
                }
            }
        }
        snprintf(name, sizeof(name),
                 "ticket for nfs/localhost, gk5 credential on service.keytab "
                 "(%s) -> NO_CRED, KRB-ERROR",
                 named ? "principal " ACCEPTOR_NAME : "any principal");
        cell(ok, name, "%s", why);
        est_free(&e);
        OM_uint32 rel = 0;
        (void)gss_release_cred(&rel, &e.cred);
        (void)gss_release_name(&rel, &target);
        gk5_acceptor_cred_free(c);
    }
}

/* RFC 4537: a service ticket with session key `ses` is cached first; MIT
 * then allows {want, ses}, reuses that ticket and lists both in its
 * authenticator: gk5's acceptor subkey is `want`, the session key stays
 * `ses`, and tokens flow under the subkey. */
/* A realm whose KDC has no key of et (its kdc.enctypes says so: Heimdal's
 * has no camellia): one skipped cell, saying why, for the enctype's. */
static bool realm_lacks(const struct world *W, int32_t et, const char *what)
{
    char name[128];

    if (gk5_realm_has_enctype(W->realm.dir, et)) {
        return false;
    }
    snprintf(name, sizeof(name), "%s(%d) %s", enctype_name(et), (int)et, what);
    skip_cell(name, "the realm's KDC has no key of this enctype "
                    "(kdc.enctypes)");
    return true;
}

static void run_negotiation(struct world *W, int32_t want, int32_t ses)
{
    static const char cc[] = "MEMORY:gk5-native-accept-4537";
    krb5_enctype first = ses, both[2] = {want, ses};
    struct est pre, e;
    struct peek pk;
    gss_name_t target = target_name(TARGET);
    char why[1024] = "", name[512];
    bool ok = false;
    struct peers p;

    memset(&pre, 0, sizeof(pre));
    memset(&e, 0, sizeof(e));
    memset(&pk, 0, sizeof(pk));
    memset(&p, 0, sizeof(p));
    snprintf(p.label, sizeof(p.label),
             "RFC 4537 MIT allows [%d,%d], ticket session key %d |", (int)want,
             (int)ses, (int)ses);
    pre.target = e.target = target;
    pre.mutual = e.mutual = true;
    pre.mit_cb = pre.gk5_cb = e.mit_cb = e.gk5_cb = -1;
    pre.acred = e.acred = W->cred;
    if (!mit_init_cred(W, cc, &first, 1, &pre.cred, why, sizeof(why))) {
        goto done;
    }
    est_run(&pre);
    if (pre.amaj != GK5_S_COMPLETE || pre.imaj2 != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "first context (caches the ticket): %s; %s",
                 gk5_words(pre.amaj, pre.amin),
                 mit_words(pre.imaj2, pre.imin2));
        goto done;
    }
    if (!mit_init_cred(W, cc, both, 2, &e.cred, why, sizeof(why))) {
        goto done;
    }
    est_run(&e);
    peek_ap_req(W, &e.ap_req, &pk);
    print_peek(&pk, p.label);
    if (e.amaj != GK5_S_COMPLETE || e.imaj2 != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_accept: %s; MIT: %s",
                 gk5_words(e.amaj, e.amin), mit_words(e.imaj2, e.imin2));
        goto done;
    }
    printf("# %s MIT offers %zu enctypes; gk5: session enctype %d, context "
           "enctype %d\n",
           p.label, pk.n_etypes, (int)e.info.session_enctype,
           (int)e.info.context_enctype);
    ok = e.info.session_enctype == ses && e.info.context_enctype == want &&
         pk.ok && pk.n_etypes == 2 && pk.etypes[0] == want &&
         pk.etypes[1] == ses;
    snprintf(why, sizeof(why),
             "session %d context %d; MIT's list has %zu (first %d)",
             (int)e.info.session_enctype, (int)e.info.context_enctype,
             pk.n_etypes, pk.n_etypes > 0 ? (int)pk.etypes[0] : 0);
done:
    snprintf(name, sizeof(name), "%s context enctype %d, session enctype %d",
             p.label, (int)want, (int)ses);
    if (cell(ok, name, "%s", why)) {
        p.gk5 = e.g;
        p.mit = e.mit;
        p.W = W;
        p.subkey = true;
        cell_over_lengths(&p, "MIT->gk5 gss_wrap sealed", mit_wrap_to_gk5, 1);
        cell_over_lengths(&p, "gk5->MIT gk5_wrap sealed", gk5_wrap_to_mit, 1);
        cell_over_lengths(&p, "MIT->gk5 gss_get_mic", mit_mic_to_gk5, 0);
        cell_over_lengths(&p, "gk5->MIT gk5_get_mic", gk5_mic_to_mit, 0);
        if (W->dump != NULL) {
            dump_block(W, &e, want, "negotiated");
        }
    }
    est_free(&pre);
    est_free(&e);
    OM_uint32 rel = 0;
    (void)gss_release_cred(&rel, &pre.cred);
    (void)gss_release_cred(&rel, &e.cred);
    (void)gss_release_name(&rel, &target);
}

int main(int argc, char **argv)
{
    static const int32_t enctypes[] = {18, 17, 19, 20, 25, 26,
#ifdef GK5_WITH_DES3
                                       16
#endif
    };
    struct world W;
    const char *dir = getenv("GK5_REALM_DIR");
    const char *dump_path = NULL;
    char err[512], kt[PATH_MAX];
    uint32_t minor = 0;
    int ret = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        dump_path = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: test_native_accept [--dump FILE]\n"
                        "(run through gk5 realm run --tap --)\n");
        return 2;
    }
    memset(&W, 0, sizeof(W));
    W.seq_min = UINT32_MAX;
    W.rrc_wrap_min = UINT32_MAX;
    if (dir != NULL && dir[0] != '\0') {
        if (gk5_mit_realm_attach(&W.realm, dir, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
    } else {
        if (gk5_mit_realm_tools_present(err, sizeof(err)) != 0) {
            printf("1..0 # SKIP %s\n", err);
            return 0;
        }
        if (gk5_mit_realm_start(&W.realm, err, sizeof(err)) != 0) {
            printf("Bail out! %s\n", err);
            return 1;
        }
        gk5_mit_realm_stop_on_signals(&W.realm);
    }
    if (gk5_mit_realm_path(W.client_kt, sizeof(W.client_kt), &W.realm,
                           "client.keytab") != 0 ||
        gk5_mit_realm_path(kt, sizeof(kt), &W.realm, "service.keytab") != 0) {
        printf("Bail out! realm path too long\n");
        goto done;
    }
    snprintf(W.service_kt, sizeof(W.service_kt), "FILE:%s", kt);
    if (krb5_init_context(&W.kc) != 0 ||
        krb5_kt_resolve(W.kc, W.service_kt, &W.kt) != 0) {
        printf("Bail out! MIT krb5_init_context / krb5_kt_resolve failed\n");
        goto done;
    }
    gk5_acceptor_opts opts = {.keytab = W.service_kt,
                              .principal = ACCEPTOR_NAME};
    uint32_t major = gk5_acceptor_cred_new(&minor, &opts, &W.cred);
    if (major != GK5_S_COMPLETE) {
        printf("Bail out! gk5_acceptor_cred_new(%s): %s\n", W.service_kt,
               gk5_words(major, minor));
        goto done;
    }
    /* A memory-only replay cache refuses, for one skew, authenticators
     * stamped no later than the second it was made in (the restart guard,
     * docs/design.md "The replay cache"): start in the next second. */
    for (time_t made = time(NULL); time(NULL) <= made;) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (dump_path != NULL) {
        W.dump = fopen(dump_path, "w");
        if (W.dump == NULL) {
            printf("Bail out! cannot write %s\n", dump_path);
            goto done;
        }
        fputs(dump_header, W.dump);
    }
    printf("# realm %s, KDC on 127.0.0.1:%d, %s; gk5 %s accepts with %s "
           "(%s)\n",
           GK5_MIT_REALM_NAME, W.realm.port, W.realm.dir, gk5_version(),
           W.service_kt, ACCEPTOR_NAME);

    for (size_t i = 0; i < sizeof(enctypes) / sizeof(enctypes[0]); i++) {
        int32_t et = enctypes[i];
        if (realm_lacks(&W, et, "every cell")) {
            continue;
        }
        run_establish(&W, et, true, true);
        run_establish(&W, et, false, true);
        run_bindings(&W, et, true, 0, 0);
        run_bindings(&W, et, true, 0, 1);
        run_bindings(&W, et, false, 0, 1);
        if (i == 0) {
            run_bindings(&W, et, true, 0, -1);
            run_bindings(&W, et, true, -1, 0);
            run_bindings(&W, et, false, 0, 0);
        }
    }
    run_no_cred(&W);
    run_negotiation(&W, 18, 17);
    /* Samba's AD KDC has no aes-sha2 keys. */
    if (!realm_lacks(&W, 20, "RFC 4537 negotiation [20,19]") &&
        !realm_lacks(&W, 19, "RFC 4537 negotiation [20,19]")) {
        run_negotiation(&W, 20, 19);
    }
    if (!realm_lacks(&W, 26, "RFC 4537 negotiation")) {
        run_negotiation(&W, 26, 18);
    }

    printf("# MIT's initiator seq-numbers seen: %" PRIu32 "..%" PRIu32
           " (never negative as Int32: %s); MIT's gss_wrap RRC %u..%u\n",
           W.seq_min, W.seq_max, W.seq_max < 0x80000000u ? "yes" : "no",
           W.rrc_wrap_min, W.rrc_wrap_max);
    if (W.dump != NULL) {
        printf("# --dump: %u AP-REQs written to %s\n", W.dumped, dump_path);
    }
    ret = tap_finish();

done:
    if (W.dump != NULL) {
        fclose(W.dump);
    }
    gk5_acceptor_cred_free(W.cred);
    if (W.kt != NULL) {
        krb5_kt_close(W.kc, W.kt);
    }
    if (W.kc != NULL) {
        krb5_free_context(W.kc);
    }
    gk5_mit_realm_stop(&W.realm);
    return ret;
}
