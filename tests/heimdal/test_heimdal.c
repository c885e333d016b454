/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Heimdal as a second interop peer: GSS-API krb5 contexts that
 * Heimdal's own GSS-API establishes against the throwaway MIT KDC of
 * `gk5 realm run` (Heimdal reads the same krb5.conf through
 * KRB5_CONFIG, and the same keytabs), one side moved into gk5 and the
 * other kept where it was, then tokens both ways.
 *
 * This process links Heimdal's libgssapi and libkrb5 and the shipped
 * libgk5 (which links only OpenSSL).  MIT and Heimdal export the same gss_*
 * names, so the MIT acceptor lives in a separate process, mit_peer (argv[1]),
 * reached over pipes (wire.h).  The kinds of case, per enctype and per
 * import path (lucid fields, rpc.gssd buffer):
 *   A   Heimdal initiator -> MIT acceptor; gk5 takes Heimdal's initiator
 *       (gss_krb5_export_lucid_sec_context, converted field by field)
 *   A'  the same pair; gk5 takes MIT's acceptor (in mit_peer)
 *   B   Heimdal initiator -> Heimdal acceptor; gk5 takes the initiator
 *   B'  the same pair; gk5 takes the acceptor
 * and the same four without mutual authentication for one enctype; and
 *   N   Heimdal initiator -> gk5's own acceptor (gk5_accept on the realm's
 *       service keytab): the AP-REQ, gk5's AP-REP back to Heimdal, the
 *       AP-REQ replayed (GK5_ERR_AP_REPEAT); per enctype with mutual
 *       authentication, and without it for one.  Then
 * Wrap sealed and integrity-only, MIC, IOV Wrap with RRC != 0, replays and
 * tampered tokens, both directions.  Enctypes Heimdal does not know are
 * reported as skipped; ones gk5 refuses (rc4, des3 when not built) must be
 * refused on import.  With -Ddes3=true the DES3 cases run too, among them
 * Heimdal's 51-byte DES3 MIC tokens as Heimdal sends them.
 *
 * What Heimdal does differently from MIT is printed as TAP diagnostics as
 * it is seen, and summed up at the end.  Output is TAP, one line per cell.
 *
 *   gk5 realm run --tap -- test_heimdal [--quick | --dump FILE] MIT_PEER
 * --quick: aes256-cts-hmac-sha1-96 only, the lucid path, 100-message runs
 * (about 100 cells in under 2 s, for a demo), no N cases.
 * --dump FILE: also write the AP-REQs of the N cases, with the service
 * key, as known-answer blocks (tests/vectors/heimdal_ap_req.txt).  `gk5 demo`
 * runs it so against its own realm (tools/demo_heimdal.c): the realm comes, as
 * from gk5 realm run, through GK5_REALM_DIR (client.keytab, service.keytab) and
 * KRB5_CONFIG, and the demo sums up the TAP per case label (the cell name
 * before " | ") and prints the "What Heimdal did differently" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "tap_cells.h"
#include "wire.h"

/* gk5's IOV and buffer types are laid out as GSS-API's (gk5.h): the IOV
 * arrays below are handed to either. */
_Static_assert(sizeof(gk5_iov_buffer) == sizeof(gss_iov_buffer_desc) &&
                   offsetof(gk5_iov_buffer, buffer) ==
                       offsetof(gss_iov_buffer_desc, buffer) &&
                   sizeof(gk5_buffer) == sizeof(gss_buffer_desc),
               "gk5_iov_buffer and gss_iov_buffer_desc differ");

#ifndef HEIMDAL_VERSION
#define HEIMDAL_VERSION "(version unknown)"
#endif

#define CLIENT "gk5-client@GK5.TEST"
#define SERVICE "gk5/localhost@GK5.TEST"
#define LONG_RUN 1000 /* messages each way (100 with --quick) */
#define MSG_MAX 1500
#define REQ_FLAGS                                                              \
    (GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |             \
     GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG)

/* RFC 4121 4.2.2 token flags */
#define CFX_SENT_BY_ACCEPTOR 0x01u
#define CFX_SEALED 0x02u
#define CFX_ACCEPTOR_SUBKEY 0x04u

static const size_t msg_lens[] = {0, 1, 13, 16, 17, 64, 1000};

/* --quick: one enctype, the lucid path, shorter runs (a demo's size). */
static bool g_quick;

/* ---- What Heimdal did differently, each said once and summed up ---- */

enum quirk {
    Q_EXPORT_KEEPS_CONTEXT,
    Q_LUCID_CTX_KEY_IS_SUBKEY,
    Q_LUCID_DES3_ENCTYPE,
    Q_WRAP_RRC,
    Q_INTEG_CHECKSUM_FIRST,
    Q_BURNS_NUMBER,
    Q_FORGED_SEQ_GAP,
    Q_NONMUTUAL_RECV_SEQ,
    Q_NONMUTUAL_FIRST_LOST,
    Q_FORGED_MIC,
    Q_WRITES_INPUT_RRC,
    Q_WRITES_INPUT_RFC1964,
    Q_DES3_MIC_TRAILING,
    Q_DES3_FAILURE,
    Q_DES3_BAD_MECH,
    Q_NO_IOV_RFC1964,
    Q__COUNT
};

static bool g_quirk_seen[Q__COUNT];
static char g_quirk_text[Q__COUNT][512];

static void quirk(enum quirk q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void quirk(enum quirk q, const char *fmt, ...)
{
    va_list ap;

    if (g_quirk_seen[q]) {
        return;
    }
    g_quirk_seen[q] = true;
    va_start(ap, fmt);
    vsnprintf(g_quirk_text[q], sizeof(g_quirk_text[q]), fmt, ap);
    va_end(ap);
    printf("# Heimdal differs: %s\n", g_quirk_text[q]);
}

/* ---- Words ---- */

static const char *enctype_name(int32_t et)
{
    gk5_enctype_desc d;

    return gk5_enctype_describe(et, &d) == GK5_OK ? d.name : "unknown";
}

/* "GSS_S_BAD_SIG", "GSS_S_COMPLETE+DUPLICATE_TOKEN", ... */
static const char *status_name(uint32_t major, char *buf, size_t len)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } sup[] = {{GK5_S_CONTINUE_NEEDED, "CONTINUE_NEEDED"},
               {GK5_S_DUPLICATE_TOKEN, "DUPLICATE_TOKEN"},
               {GK5_S_OLD_TOKEN, "OLD_TOKEN"},
               {GK5_S_UNSEQ_TOKEN, "UNSEQ_TOKEN"},
               {GK5_S_GAP_TOKEN, "GAP_TOKEN"}};
    size_t used;

    snprintf(buf, len, "%s", gk5_major_name(GK5_ERROR(major)));
    for (size_t i = 0; i < sizeof(sup) / sizeof(sup[0]); i++) {
        if ((major & sup[i].bit) != 0) {
            used = strlen(buf);
            snprintf(buf + used, len - used, "+%s", sup[i].name);
        }
    }
    return buf;
}

static void heim_words(char *buf, size_t len, const char *call, OM_uint32 major,
                       OM_uint32 minor)
{
    char name[96];
    size_t used;
    OM_uint32 ctx = 0, m = 0;

    snprintf(buf, len, "Heimdal %s: %s", call,
             status_name(major, name, sizeof(name)));
    if (minor == 0) {
        return;
    }
    do {
        gss_buffer_desc s = GSS_C_EMPTY_BUFFER;
        if (GSS_ERROR(gss_display_status(&m, minor, GSS_C_MECH_CODE,
                                         GSS_KRB5_MECHANISM, &ctx, &s))) {
            break;
        }
        used = strlen(buf);
        snprintf(buf + used, len - used, ": %.*s", (int)s.length,
                 (const char *)s.value);
        (void)gss_release_buffer(&m, &s);
    } while (ctx != 0);
}

/* Deterministic message bytes, different per length and serial. */
static void fill(uint8_t *p, size_t n, unsigned serial)
{
    uint32_t x = 0x85ebca6bu * (serial + 1u);

    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

/* ---- The MIT process ---- */

struct remote {
    pid_t pid;
    int to, from;
};

static int remote_start(struct remote *rm, const char *path)
{
    int down[2] = {-1, -1}, up[2] = {-1, -1};

    rm->pid = -1;
    rm->to = rm->from = -1;
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) {
        goto fail;
    }
    rm->pid = fork();
    if (rm->pid < 0) {
        goto fail;
    }
    if (rm->pid == 0) {
        if (dup2(down[0], 0) < 0 || dup2(up[1], 1) < 0) {
            _exit(127);
        }
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    rm->to = down[1];
    rm->from = up[0];
    return 0;

fail:
    for (int i = 0; i < 2; i++) {
        if (down[i] >= 0) {
            close(down[i]);
        }
        if (up[i] >= 0) {
            close(up[i]);
        }
    }
    return -1;
}

static void remote_stop(struct remote *rm)
{
    uint32_t w[4] = {WIRE_QUIT, 0, 0, 0};
    int status;

    if (rm->pid <= 0) {
        return;
    }
    (void)wire_send(rm->to, w, NULL, 0, NULL, 0);
    close(rm->to);
    close(rm->from);
    while (waitpid(rm->pid, &status, 0) < 0 && errno == EINTR) {
    }
    rm->pid = -1;
}

/* One request and its reply; -1 when the pipe broke. */
static int remote_call(struct remote *rm, uint32_t op, uint32_t arg,
                       const void *a, size_t a_len, const void *b, size_t b_len,
                       struct wire_frame *reply)
{
    uint32_t w[4] = {op, arg, 0, 0};

    memset(reply, 0, sizeof(*reply));
    if (wire_send(rm->to, w, a, a_len, b, b_len) != 0) {
        return -1;
    }
    return wire_recv(rm->from, reply);
}

/* ---- Endpoints: a context in Heimdal, in gk5 here, or in mit_peer ---- */

enum ep_kind { EP_HEIMDAL, EP_GK5, EP_REMOTE };

struct ep {
    enum ep_kind kind;
    const char *name; /* "gk5", "Heimdal", "MIT" */
    bool is_gk5;      /* a gk5 context, here or in mit_peer */
    gss_ctx_id_t h;
    gk5_ctx *g;
    struct remote *rm;
    /* Heimdal DES3 MIC tokens: drop the 2 bytes after SGN_CKSUM (see
     * cell_des3_mic_as_sent) so that the other cells test the crypto. */
    bool trim_des3_mic;
};

/* The answer of one operation on an endpoint. */
struct res {
    uint32_t major, minor;
    int conf;
    size_t hdr_len; /* wrap_iov: the HEADER buffer's length */
    bool leaked;    /* a failed call still handed back bytes */
    uint8_t *p;     /* output, malloc'd */
    size_t n;
    char words[640];
};

static void res_init(struct res *r)
{
    memset(r, 0, sizeof(*r));
    r->conf = -1;
}

static void res_free(struct res *r)
{
    free(r->p);
    r->p = NULL;
    r->n = 0;
}

static void res_take(struct res *r, const void *p, size_t n)
{
    r->p = malloc(n > 0 ? n : 1);
    if (r->p == NULL) {
        r->major = GSS_S_FAILURE;
        snprintf(r->words, sizeof(r->words), "out of memory");
        return;
    }
    if (n > 0) {
        memcpy(r->p, p, n);
    }
    r->n = n;
}

static void gk5_words(struct res *r, const char *call)
{
    snprintf(r->words, sizeof(r->words), "gk5 %s: %s", call,
             gk5_display_status(r->major, r->minor));
}

static void res_from_remote(struct res *r, int rc, struct wire_frame *f,
                            const char *call)
{
    if (rc != 0) {
        r->major = GSS_S_FAILURE;
        snprintf(r->words, sizeof(r->words), "%s: mit_peer did not answer",
                 call);
        return;
    }
    r->major = f->w[0];
    r->minor = f->w[1];
    r->conf = (int)f->w[2];
    r->hdr_len = f->w[2];
    r->leaked = f->w[3] != 0;
    if (!GSS_ERROR(r->major) && f->len[0] > 0) {
        res_take(r, f->buf[0], f->len[0]);
    } else if (!GSS_ERROR(r->major)) {
        res_take(r, NULL, 0);
    }
    snprintf(r->words, sizeof(r->words), "%.*s", (int)f->len[1],
             f->buf[1] != NULL ? (const char *)f->buf[1] : "");
    wire_frame_free(f);
}

/* Did Heimdal write into the input token it was given (a copy)? */
static void note_input_written(const uint8_t *orig, const uint8_t *given,
                               size_t n)
{
    if (n == 0 || memcmp(orig, given, n) == 0) {
        return;
    }
    if (n >= 8 && orig[0] == 0x05 && orig[1] == 0x04) {
        quirk(Q_WRITES_INPUT_RRC,
              "gss_unwrap un-rotates a Wrap token with RRC != 0 (RRC %u "
              "here) in place, in the caller's input buffer (RFC 2744 makes "
              "it an input); MIT and gk5 leave the token as it was",
              (unsigned)(orig[6] << 8 | orig[7]));
    } else {
        quirk(Q_WRITES_INPUT_RFC1964,
              "gss_unwrap / gss_verify_mic of a DES3 (RFC 1964) token write "
              "into the caller's input buffer: the token cannot be handed "
              "over again (or kept) afterwards");
    }
}

/* Heimdal's DES3 MIC token (short DER length) less its last 2 bytes. */
static void des3_mic_trim(struct res *r)
{
    if (r->n == 51 && r->p[0] == 0x60 && r->p[1] == 49) {
        r->p[1] = 47;
        r->n = 49;
    }
}

static void ep_wrap(struct ep *e, int conf, const uint8_t *m, size_t n,
                    struct res *r)
{
    res_init(r);
    if (e->kind == EP_GK5) {
        gk5_buffer in = {n, (void *)(uintptr_t)m}, out = {0, NULL};
        r->major = gk5_wrap(&r->minor, e->g, conf, GK5_QOP_DEFAULT, &in,
                            &r->conf, &out);
        if (r->major == GK5_S_COMPLETE) {
            res_take(r, out.value, out.length);
        } else {
            gk5_words(r, "gk5_wrap");
        }
        gk5_buffer_release(&out);
    } else if (e->kind == EP_HEIMDAL) {
        gss_buffer_desc in = {n, (void *)(uintptr_t)m};
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0, rel = 0;
        r->major = gss_wrap(&minor, e->h, conf, GSS_C_QOP_DEFAULT, &in,
                            &r->conf, &out);
        r->minor = minor;
        if (r->major == GSS_S_COMPLETE) {
            res_take(r, out.value, out.length);
        } else {
            heim_words(r->words, sizeof(r->words), "gss_wrap", r->major, minor);
        }
        (void)gss_release_buffer(&rel, &out);
    } else {
        struct wire_frame f;
        int rc =
            remote_call(e->rm, WIRE_WRAP, (uint32_t)conf, m, n, NULL, 0, &f);
        res_from_remote(r, rc, &f, "wrap");
    }
}

static void ep_unwrap(struct ep *e, const uint8_t *t, size_t n, struct res *r)
{
    res_init(r);
    if (e->kind == EP_GK5) {
        gk5_buffer in = {n, (void *)(uintptr_t)t}, out = {0, NULL};
        uint32_t qop = 0;
        r->major = gk5_unwrap(&r->minor, e->g, &in, &out, &r->conf, &qop);
        if (!GK5_ERROR(r->major)) {
            res_take(r, out.value, out.length);
        } else {
            r->leaked = out.value != NULL || out.length != 0;
            gk5_words(r, "gk5_unwrap");
        }
        gk5_buffer_release(&out);
    } else if (e->kind == EP_HEIMDAL) {
        /* On a copy: Heimdal writes into the input token. */
        uint8_t *copy = malloc(n > 0 ? n : 1);
        gss_buffer_desc in = {n, copy};
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0, rel = 0;
        if (copy == NULL) {
            r->major = GSS_S_FAILURE;
            return;
        }
        if (n > 0) {
            memcpy(copy, t, n);
        }
        r->major = gss_unwrap(&minor, e->h, &in, &out, &r->conf, NULL);
        r->minor = minor;
        note_input_written(t, copy, n);
        free(copy);
        if (r->major == GSS_S_COMPLETE) {
            res_take(r, out.value, out.length);
        } else {
            /* Heimdal answers a supplementary status (GAP, UNSEQ,
             * DUPLICATE) without a message: say so, not "complete". */
            r->leaked = out.value != NULL || out.length != 0;
            heim_words(r->words, sizeof(r->words), "gss_unwrap", r->major,
                       minor);
        }
        (void)gss_release_buffer(&rel, &out);
    } else {
        struct wire_frame f;
        int rc = remote_call(e->rm, WIRE_UNWRAP, 0, t, n, NULL, 0, &f);
        res_from_remote(r, rc, &f, "unwrap");
    }
}

static void ep_get_mic(struct ep *e, const uint8_t *m, size_t n, struct res *r)
{
    res_init(r);
    if (e->kind == EP_GK5) {
        gk5_buffer in = {n, (void *)(uintptr_t)m}, out = {0, NULL};
        r->major = gk5_get_mic(&r->minor, e->g, GK5_QOP_DEFAULT, &in, &out);
        if (r->major == GK5_S_COMPLETE) {
            res_take(r, out.value, out.length);
        } else {
            gk5_words(r, "gk5_get_mic");
        }
        gk5_buffer_release(&out);
    } else if (e->kind == EP_HEIMDAL) {
        gss_buffer_desc in = {n, (void *)(uintptr_t)m};
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0, rel = 0;
        r->major = gss_get_mic(&minor, e->h, GSS_C_QOP_DEFAULT, &in, &out);
        r->minor = minor;
        if (r->major == GSS_S_COMPLETE) {
            res_take(r, out.value, out.length);
            if (e->trim_des3_mic) {
                des3_mic_trim(r);
            }
        } else {
            heim_words(r->words, sizeof(r->words), "gss_get_mic", r->major,
                       minor);
        }
        (void)gss_release_buffer(&rel, &out);
    } else {
        struct wire_frame f;
        int rc = remote_call(e->rm, WIRE_GET_MIC, 0, m, n, NULL, 0, &f);
        res_from_remote(r, rc, &f, "get_mic");
    }
}

static void ep_verify_mic(struct ep *e, const uint8_t *m, size_t mn,
                          const uint8_t *t, size_t tn, struct res *r)
{
    res_init(r);
    if (e->kind == EP_GK5) {
        gk5_buffer msg = {mn, (void *)(uintptr_t)m};
        gk5_buffer tok = {tn, (void *)(uintptr_t)t};
        uint32_t qop = 0;
        r->major = gk5_verify_mic(&r->minor, e->g, &msg, &tok, &qop);
        if (r->major != GK5_S_COMPLETE) {
            gk5_words(r, "gk5_verify_mic");
        }
    } else if (e->kind == EP_HEIMDAL) {
        uint8_t *copy = malloc(tn > 0 ? tn : 1);
        gss_buffer_desc msg = {mn, (void *)(uintptr_t)m};
        gss_buffer_desc tok = {tn, copy};
        OM_uint32 minor = 0;
        if (copy == NULL) {
            r->major = GSS_S_FAILURE;
            return;
        }
        if (tn > 0) {
            memcpy(copy, t, tn);
        }
        r->major = gss_verify_mic(&minor, e->h, &msg, &tok, NULL);
        r->minor = minor;
        note_input_written(t, copy, tn);
        free(copy);
        if (r->major != GSS_S_COMPLETE) {
            heim_words(r->words, sizeof(r->words), "gss_verify_mic", r->major,
                       minor);
        }
    } else {
        struct wire_frame f;
        int rc = remote_call(e->rm, WIRE_VERIFY_MIC, 0, m, mn, t, tn, &f);
        res_from_remote(r, rc, &f, "verify_mic");
    }
}

/* HEADER, DATA and PADDING, no TRAILER: the token is the buffers end to
 * end, r->hdr_len the HEADER's length.  gk5_iov_buffer and Heimdal's
 * gss_iov_buffer_desc share layout and type numbers. */
static void ep_wrap_iov(struct ep *e, int conf, const uint8_t *m, size_t n,
                        struct res *r)
{
    gss_iov_buffer_desc iov[3];
    uint8_t data[MSG_MAX];

    res_init(r);
    if (e->kind == EP_REMOTE) {
        struct wire_frame f;
        int rc = remote_call(e->rm, WIRE_WRAP_IOV, (uint32_t)conf, m, n, NULL,
                             0, &f);
        res_from_remote(r, rc, &f, "wrap_iov");
        r->conf = conf;
        return;
    }
    memcpy(data, m, n);
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[0].buffer.length = 0;
    iov[0].buffer.value = NULL;
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = n;
    iov[1].buffer.value = data;
    iov[2].type = GSS_IOV_BUFFER_TYPE_PADDING | GSS_IOV_BUFFER_FLAG_ALLOCATE;
    iov[2].buffer.length = 0;
    iov[2].buffer.value = NULL;
    if (e->kind == EP_GK5) {
        r->major = gk5_wrap_iov(&r->minor, e->g, conf, GK5_QOP_DEFAULT,
                                &r->conf, (gk5_iov_buffer *)(void *)iov, 3);
        if (r->major != GK5_S_COMPLETE) {
            gk5_words(r, "gk5_wrap_iov");
        }
    } else {
        OM_uint32 minor = 0;
        r->major = gss_wrap_iov(&minor, e->h, conf, GSS_C_QOP_DEFAULT, &r->conf,
                                iov, 3);
        r->minor = minor;
        if (r->major != GSS_S_COMPLETE) {
            heim_words(r->words, sizeof(r->words), "gss_wrap_iov", r->major,
                       minor);
        }
    }
    if (r->major == GSS_S_COMPLETE) {
        size_t h = iov[0].buffer.length, pad = iov[2].buffer.length;
        r->p = malloc(h + n + pad + 1);
        if (r->p == NULL) {
            r->major = GSS_S_FAILURE;
        } else {
            memcpy(r->p, iov[0].buffer.value, h);
            memcpy(r->p + h, data, n);
            if (pad > 0) {
                memcpy(r->p + h + n, iov[2].buffer.value, pad);
            }
            r->n = h + n + pad;
            r->hdr_len = h;
        }
    }
    if (e->kind == EP_GK5) {
        gk5_release_iov((gk5_iov_buffer *)(void *)iov, 3);
    } else {
        OM_uint32 minor = 0;
        (void)gss_release_iov_buffer(&minor, iov, 3);
    }
}

/* The token split as the sender laid it out: HEADER = its first hdr_len
 * bytes, DATA = the rest, unwrapped in place in a copy. */
static void ep_unwrap_iov(struct ep *e, const uint8_t *t, size_t n,
                          size_t hdr_len, struct res *r)
{
    gss_iov_buffer_desc iov[2];
    uint8_t *copy;

    res_init(r);
    if (e->kind == EP_REMOTE) {
        struct wire_frame f;
        int rc = remote_call(e->rm, WIRE_UNWRAP_IOV, (uint32_t)hdr_len, t, n,
                             NULL, 0, &f);
        res_from_remote(r, rc, &f, "unwrap_iov");
        return;
    }
    copy = malloc(n > 0 ? n : 1);
    if (copy == NULL || hdr_len > n) {
        free(copy);
        r->major = GSS_S_FAILURE;
        snprintf(r->words, sizeof(r->words), "bad split");
        return;
    }
    memcpy(copy, t, n);
    iov[0].type = GSS_IOV_BUFFER_TYPE_HEADER;
    iov[0].buffer.length = hdr_len;
    iov[0].buffer.value = copy;
    iov[1].type = GSS_IOV_BUFFER_TYPE_DATA;
    iov[1].buffer.length = n - hdr_len;
    iov[1].buffer.value = copy + hdr_len;
    if (e->kind == EP_GK5) {
        uint32_t qop = 0;
        r->major = gk5_unwrap_iov(&r->minor, e->g, &r->conf, &qop,
                                  (gk5_iov_buffer *)(void *)iov, 2);
        if (GK5_ERROR(r->major)) {
            gk5_words(r, "gk5_unwrap_iov");
        }
    } else {
        OM_uint32 minor = 0;
        r->major = gss_unwrap_iov(&minor, e->h, &r->conf, NULL, iov, 2);
        r->minor = minor;
        if (r->major != GSS_S_COMPLETE) {
            heim_words(r->words, sizeof(r->words), "gss_unwrap_iov", r->major,
                       minor);
        }
    }
    if (r->major == GSS_S_COMPLETE) {
        res_take(r, iov[1].buffer.value, iov[1].buffer.length);
    }
    free(copy);
}

/* ---- One case: a context pair, one side in gk5 ---- */

struct kase {
    struct ep *gk5;
    struct ep *peer;
    bool rfc1964;    /* des3: RFC 1964 tokens */
    uint64_t g_send; /* gk5's first sequence number (its lucid send_seq) */
    uint64_t g_recv; /* the peer's first, as gk5 was told (recv_seq) */
    bool g_acceptor; /* gk5 holds the acceptor's side */
    bool subkey;     /* tokens made with an acceptor subkey */
    bool gssd;       /* imported through the rpc.gssd buffer */
    bool mutual;     /* mutual authentication (an AP-REP) was done */
    gk5_ctx *raw;    /* non-mutual: the unfixed Heimdal lucid, in gk5 */
    char label[200];
};

static void cell_name(char *buf, size_t len, const struct kase *k,
                      const char *what)
{
    snprintf(buf, len, "%s %s", k->label, what);
}

/* Is the receiver's answer the message we sent? */
static bool got_message(const struct res *r, int conf, const uint8_t *m,
                        size_t n)
{
    return r->major == GSS_S_COMPLETE && r->n == n &&
           (n == 0 || memcmp(r->p, m, n) == 0) && (conf < 0 || r->conf == conf);
}

static bool wrap_once(struct ep *from, struct ep *to, int conf,
                      const uint8_t *m, size_t n, char *why, size_t wl)
{
    struct res w, u;
    bool ok = false;

    ep_wrap(from, conf, m, n, &w);
    if (w.major != GSS_S_COMPLETE || w.conf != conf) {
        snprintf(why, wl, "%s wrap(len %zu): %s (conf_state %d)", from->name, n,
                 w.words, w.conf);
        res_free(&w);
        return false;
    }
    ep_unwrap(to, w.p, w.n, &u);
    if (got_message(&u, conf, m, n)) {
        ok = true;
    } else {
        char st[96];
        snprintf(why, wl, "%s unwrap(len %zu): %s %s (%zu bytes back, conf %d)",
                 to->name, n, status_name(u.major, st, sizeof(st)), u.words,
                 u.n, u.conf);
    }
    res_free(&w);
    res_free(&u);
    return ok;
}

static bool mic_once(struct ep *from, struct ep *to, const uint8_t *m, size_t n,
                     char *why, size_t wl)
{
    struct res t, v;
    bool ok = false;

    ep_get_mic(from, m, n, &t);
    if (t.major != GSS_S_COMPLETE) {
        snprintf(why, wl, "%s get_mic(len %zu): %s", from->name, n, t.words);
        res_free(&t);
        return false;
    }
    ep_verify_mic(to, m, n, t.p, t.n, &v);
    if (v.major == GSS_S_COMPLETE) {
        ok = true;
    } else {
        char st[96];
        snprintf(why, wl, "%s verify_mic(len %zu): %s %s", to->name, n,
                 status_name(v.major, st, sizeof(st)), v.words);
    }
    res_free(&t);
    res_free(&v);
    return ok;
}

/* The CFX header fields of a token (RFC 4121 4.2.6). */
struct hdr {
    unsigned tok_id, flags, filler, ec, rrc;
    uint64_t seq;
};

static bool parse_hdr(const uint8_t *p, size_t n, struct hdr *h)
{
    if (n < 16) {
        return false;
    }
    h->tok_id = (unsigned)(p[0] << 8 | p[1]);
    h->flags = p[2];
    h->filler = p[3];
    h->ec = (unsigned)(p[4] << 8 | p[5]);
    h->rrc = (unsigned)(p[6] << 8 | p[7]);
    h->seq = 0;
    for (int i = 8; i < 16; i++) {
        h->seq = h->seq << 8 | p[i];
    }
    return true;
}

/* The first token each way: sequence numbers where the lucid export says,
 * flags as RFC 4121 4.2.2 wants them for each side, and what the peer
 * does with EC and RRC. */
static void cell_first_tokens(struct kase *k)
{
    static const uint8_t msg[] = "the first message each way";
    struct res gw, gw2, gu, pw, pu;
    struct hdr gh, ph;
    char why[1024] = "", name[512], st[96];
    bool ok = false;

    res_init(&gw2);
    res_init(&gu);
    res_init(&pw);
    res_init(&pu);
    ep_wrap(k->gk5, 1, msg, sizeof(msg), &gw);
    if (gw.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "%s", gw.words);
        goto done;
    }
    ep_unwrap(k->peer, gw.p, gw.n, &gu);
    if (!k->mutual && k->g_acceptor && strcmp(k->peer->name, "Heimdal") == 0 &&
        gu.major == GSS_S_GAP_TOKEN && gu.n == 0) {
        /* gk5 sends from the number its export gave, as MIT's and
         * Heimdal's own acceptors do; Heimdal's initiator expected 0. */
        quirk(Q_NONMUTUAL_FIRST_LOST,
              "without mutual authentication Heimdal's initiator expects "
              "the acceptor's numbers to start at 0, but every acceptor "
              "(MIT's, Heimdal's own, gk5 given either export) starts at "
              "the initiator's number: the acceptor's first Wrap token is "
              "answered GSS_S_GAP_TOKEN and its message dropped, between "
              "two Heimdal peers too");
        res_free(&gu);
        ep_wrap(k->gk5, 1, msg, sizeof(msg), &gw2);
        if (gw2.major == GSS_S_COMPLETE) {
            ep_unwrap(k->peer, gw2.p, gw2.n, &gu);
        }
    }
    if (!got_message(&gu, 1, msg, sizeof(msg))) {
        snprintf(why, sizeof(why), "%s unwrap of gk5's first token: %s %s",
                 k->peer->name, status_name(gu.major, st, sizeof(st)),
                 gu.words);
        goto done;
    }
    ep_wrap(k->peer, 1, msg, sizeof(msg), &pw);
    if (pw.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "%s", pw.words);
        goto done;
    }
    if (k->raw != NULL) {
        /* The Heimdal initiator's own lucid fields, without the fix-up:
         * recv_seq 0 where the acceptor starts at the initiator's number. */
        gk5_buffer in = {pw.n, pw.p}, out = {0, NULL};
        uint32_t minor = 0, qop = 0;
        int conf = 0;
        uint32_t major = gk5_unwrap(&minor, k->raw, &in, &out, &conf, &qop);
        gk5_buffer_release(&out);
        if (major != (GK5_S_COMPLETE | GK5_S_GAP_TOKEN)) {
            snprintf(why, sizeof(why),
                     "gk5 with Heimdal's unfixed lucid (recv_seq 0): %s, "
                     "expected GSS_S_COMPLETE+GAP_TOKEN",
                     status_name(major, st, sizeof(st)));
            goto done;
        }
    }
    ep_unwrap(k->gk5, pw.p, pw.n, &pu);
    if (!got_message(&pu, 1, msg, sizeof(msg))) {
        snprintf(why, sizeof(why), "gk5 unwrap of %s's first token: %s %s",
                 k->peer->name, status_name(pu.major, st, sizeof(st)),
                 pu.words);
        goto done;
    }
    if (k->rfc1964) {
        ok = true; /* RFC 1964 headers carry no plain sequence number */
        goto done;
    }
    if (!parse_hdr(gw.p, gw.n, &gh) || !parse_hdr(pw.p, pw.n, &ph)) {
        snprintf(why, sizeof(why), "short token");
        goto done;
    }
    unsigned want_g = CFX_SEALED | (k->g_acceptor ? CFX_SENT_BY_ACCEPTOR : 0) |
                      (k->subkey ? CFX_ACCEPTOR_SUBKEY : 0);
    unsigned want_p = want_g ^ CFX_SENT_BY_ACCEPTOR;
    printf("# %s sends flags %#04x EC %u RRC %u seq %llu; %s sends flags "
           "%#04x EC %u RRC %u seq %llu\n",
           k->gk5->name, gh.flags, gh.ec, gh.rrc, (unsigned long long)gh.seq,
           k->peer->name, ph.flags, ph.ec, ph.rrc, (unsigned long long)ph.seq);
    if (gh.tok_id != 0x0504 || ph.tok_id != 0x0504 || gh.filler != 0xff ||
        ph.filler != 0xff || gh.flags != want_g || ph.flags != want_p) {
        snprintf(why, sizeof(why),
                 "headers: gk5 %04x flags %#x filler %#x, %s %04x flags %#x "
                 "filler %#x; want flags %#x and %#x",
                 gh.tok_id, gh.flags, gh.filler, k->peer->name, ph.tok_id,
                 ph.flags, ph.filler, want_g, want_p);
        goto done;
    }
    if (gh.seq != k->g_send || ph.seq != k->g_recv) {
        snprintf(why, sizeof(why),
                 "sequence numbers: gk5 sent %llu (export said %llu), %s "
                 "sent %llu (export said %llu)",
                 (unsigned long long)gh.seq, (unsigned long long)k->g_send,
                 k->peer->name, (unsigned long long)ph.seq,
                 (unsigned long long)k->g_recv);
        goto done;
    }
    if (strcmp(k->peer->name, "Heimdal") == 0 && ph.rrc != 0) {
        quirk(Q_WRAP_RRC,
              "plain gss_wrap rotates every token (RFC 4121 4.2.5): RRC = "
              "16 + checksum length sealed (%u here), the checksum length "
              "integrity-only; MIT's gss_wrap and gk5 send RRC 0",
              ph.rrc);
    }
    ok = true;

done:
    cell_name(name, sizeof(name), k,
              "first token each way: flags, filler, sequence numbers as "
              "exported");
    cell(ok, name, "%s", why);
    res_free(&gw);
    res_free(&gw2);
    res_free(&gu);
    res_free(&pw);
    res_free(&pu);
}

typedef bool (*one_msg_fn)(struct kase *k, int conf, const uint8_t *m, size_t n,
                           char *why, size_t wl);

static bool wrap_g2p(struct kase *k, int conf, const uint8_t *m, size_t n,
                     char *why, size_t wl)
{
    return wrap_once(k->gk5, k->peer, conf, m, n, why, wl);
}
static bool wrap_p2g(struct kase *k, int conf, const uint8_t *m, size_t n,
                     char *why, size_t wl)
{
    return wrap_once(k->peer, k->gk5, conf, m, n, why, wl);
}
static bool mic_g2p(struct kase *k, int conf, const uint8_t *m, size_t n,
                    char *why, size_t wl)
{
    (void)conf;
    return mic_once(k->gk5, k->peer, m, n, why, wl);
}
static bool mic_p2g(struct kase *k, int conf, const uint8_t *m, size_t n,
                    char *why, size_t wl)
{
    (void)conf;
    return mic_once(k->peer, k->gk5, m, n, why, wl);
}

static void cell_over_lengths(struct kase *k, bool from_gk5, const char *what,
                              one_msg_fn fn, int conf)
{
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512], full[160];
    bool ok = true;

    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        fill(msg, msg_lens[i], (unsigned)i);
        ok = fn(k, conf, msg, msg_lens[i], why, sizeof(why));
    }
    snprintf(full, sizeof(full), "%s->%s %s",
             from_gk5 ? k->gk5->name : k->peer->name,
             from_gk5 ? k->peer->name : k->gk5->name, what);
    cell_name(name, sizeof(name), k, full);
    cell(ok, name, "%s", why);
}

/* Integrity-only Wrap from Heimdal: the rotation puts the checksum in
 * front of the message.  Said once. */
static void note_integ_layout(struct kase *k)
{
    static const uint8_t msg[] = "where is the checksum";
    struct res w, u;
    struct hdr h;

    if (k->rfc1964 || strcmp(k->peer->name, "Heimdal") != 0 ||
        g_quirk_seen[Q_INTEG_CHECKSUM_FIRST]) {
        return;
    }
    ep_wrap(k->peer, 0, msg, sizeof(msg), &w);
    if (w.major == GSS_S_COMPLETE && parse_hdr(w.p, w.n, &h) &&
        w.n == 16 + sizeof(msg) + h.ec && h.rrc == h.ec &&
        memcmp(w.p + 16 + h.ec, msg, sizeof(msg)) == 0) {
        quirk(Q_INTEG_CHECKSUM_FIRST,
              "integrity-only gss_wrap tokens carry EC = RRC = %u: the "
              "checksum comes right after the header and the message last",
              h.ec);
    }
    /* Deliver it, so that gk5's window stays in order. */
    if (w.major == GSS_S_COMPLETE) {
        ep_unwrap(k->gk5, w.p, w.n, &u);
        res_free(&u);
    }
    res_free(&w);
}

/* IOV Wrap without a TRAILER (RRC != 0): two tokens per message, the
 * receiver takes one whole (contiguous unwrap, any RRC) and one split as
 * the sender laid it out (unwrap_iov, HEADER + DATA). */
static void cell_wrap_iov(struct kase *k, bool from_gk5, int conf)
{
    struct ep *from = from_gk5 ? k->gk5 : k->peer;
    struct ep *to = from_gk5 ? k->peer : k->gk5;
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512], what[200], st[96];
    unsigned rrc = 0, ec = 0;
    bool ok = true;

    snprintf(what, sizeof(what), "%s->%s wrap_iov %s", from->name, to->name,
             conf ? "sealed" : "integ");
    if (k->rfc1964) {
        cell_name(name, sizeof(name), k, what);
        skip_cell(name, "Heimdal 7.8 has no IOV for RFC 1964 (DES3) tokens");
        quirk(Q_NO_IOV_RFC1964,
              "gss_wrap_iov fails (GSS_S_FAILURE) on a DES3 (RFC 1964) "
              "context");
        return;
    }
    for (size_t i = 0; i < sizeof(msg_lens) / sizeof(msg_lens[0]) && ok; i++) {
        size_t n = msg_lens[i];
        fill(msg, n, (unsigned)i + 50);
        for (int split = 0; split < 2 && ok; split++) {
            struct res w, u;
            struct hdr h;
            ep_wrap_iov(from, conf, msg, n, &w);
            if (w.major != GSS_S_COMPLETE || !parse_hdr(w.p, w.n, &h)) {
                snprintf(why, sizeof(why), "%s wrap_iov(len %zu): %s",
                         from->name, n, w.words);
                ok = false;
                res_free(&w);
                break;
            }
            rrc = h.rrc;
            ec = h.ec;
            if (h.rrc == 0) {
                snprintf(why, sizeof(why),
                         "%s wrap_iov sent RRC 0: the case would be vacuous",
                         from->name);
                ok = false;
            } else if (split) {
                ep_unwrap_iov(to, w.p, w.n, w.hdr_len, &u);
                ok = got_message(&u, conf, msg, n);
                if (!ok) {
                    snprintf(why, sizeof(why),
                             "%s unwrap_iov(len %zu, header %zu): %s %s",
                             to->name, n, w.hdr_len,
                             status_name(u.major, st, sizeof(st)), u.words);
                }
                res_free(&u);
            } else {
                ep_unwrap(to, w.p, w.n, &u);
                ok = got_message(&u, conf, msg, n);
                if (!ok) {
                    snprintf(why, sizeof(why), "%s unwrap(len %zu): %s %s",
                             to->name, n, status_name(u.major, st, sizeof(st)),
                             u.words);
                }
                res_free(&u);
            }
            res_free(&w);
        }
    }
    size_t used = strlen(what);
    snprintf(what + used, sizeof(what) - used,
             " (no trailer, EC %u RRC %u; whole and split)", ec, rrc);
    cell_name(name, sizeof(name), k, what);
    cell(ok, name, "%s", why);
}

/* 1000 messages one way, wrap sealed, wrap integ and MIC in turn, every
 * answer exactly COMPLETE. */
static void cell_long_run(struct kase *k, bool from_gk5)
{
    struct ep *from = from_gk5 ? k->gk5 : k->peer;
    struct ep *to = from_gk5 ? k->peer : k->gk5;
    uint8_t msg[MSG_MAX];
    char why[1024] = "", name[512], what[160];
    bool ok = true;

    unsigned count = g_quick ? LONG_RUN / 10 : LONG_RUN;

    for (unsigned i = 0; i < count && ok; i++) {
        size_t n = (i * 37u) % 300u;
        fill(msg, n, i + 1000);
        ok = i % 3 == 2
                 ? mic_once(from, to, msg, n, why, sizeof(why))
                 : wrap_once(from, to, i % 3 == 0, msg, n, why, sizeof(why));
        if (!ok) {
            size_t used = strlen(why);
            snprintf(why + used, sizeof(why) - used, " (message %u)", i);
        }
    }
    snprintf(what, sizeof(what), "%s->%s %u messages in sequence", from->name,
             to->name, count);
    cell_name(name, sizeof(name), k, what);
    cell(ok, name, "%s", why);
}

/* A replayed Wrap token and a replayed MIC.  gk5 must answer exactly
 * DUPLICATE_TOKEN; a peer must flag the duplicate and raise no error. */
static void cell_replay(struct kase *k, bool to_gk5)
{
    static const uint8_t msg[] = "replay me";
    struct ep *from = to_gk5 ? k->peer : k->gk5;
    struct ep *to = to_gk5 ? k->gk5 : k->peer;
    struct res w, u, t, v;
    char why[1024] = "", name[512], what[160], st[96];
    bool ok = false;

    res_init(&u);
    res_init(&t);
    res_init(&v);
    ep_wrap(from, 1, msg, sizeof(msg), &w);
    if (w.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "%s", w.words);
        goto done;
    }
    ep_unwrap(to, w.p, w.n, &u);
    if (!got_message(&u, 1, msg, sizeof(msg))) {
        snprintf(why, sizeof(why), "first delivery: %s %s",
                 status_name(u.major, st, sizeof(st)), u.words);
        goto done;
    }
    res_free(&u);
    ep_unwrap(to, w.p, w.n, &u);
    if (to->is_gk5
            ? u.major != GK5_S_DUPLICATE_TOKEN
            : (GSS_ERROR(u.major) || (u.major & GSS_S_DUPLICATE_TOKEN) == 0)) {
        snprintf(why, sizeof(why), "replayed wrap: %s %s",
                 status_name(u.major, st, sizeof(st)), u.words);
        goto done;
    }
    ep_get_mic(from, msg, sizeof(msg), &t);
    if (t.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "%s", t.words);
        goto done;
    }
    ep_verify_mic(to, msg, sizeof(msg), t.p, t.n, &v);
    if (v.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "first MIC: %s %s",
                 status_name(v.major, st, sizeof(st)), v.words);
        goto done;
    }
    res_free(&v);
    ep_verify_mic(to, msg, sizeof(msg), t.p, t.n, &v);
    if (to->is_gk5
            ? v.major != GK5_S_DUPLICATE_TOKEN
            : (GSS_ERROR(v.major) || (v.major & GSS_S_DUPLICATE_TOKEN) == 0)) {
        snprintf(why, sizeof(why), "replayed MIC: %s %s",
                 status_name(v.major, st, sizeof(st)), v.words);
        goto done;
    }
    ok = true;

done:
    snprintf(what, sizeof(what),
             "%s->%s replayed wrap and MIC -> %s says "
             "DUPLICATE_TOKEN",
             from->name, to->name, to->name);
    cell_name(name, sizeof(name), k, what);
    cell(ok, name, "%s", why);
    res_free(&w);
    res_free(&u);
    res_free(&t);
    res_free(&v);
}

/* Tampered tokens: a fresh token per position, one byte flipped: the
 * receiver must refuse it (BAD_SIG or DEFECTIVE_TOKEN) and give back no
 * plaintext; then the intact token.  gk5 and MIT change no state on a
 * failed token, so the intact one passes; Heimdal records the number
 * before it checks the token (see the summary). */
static void cell_tamper(struct kase *k, bool to_gk5, const char *kind)
{
    static const uint8_t msg[] = "do not let this through altered";
    struct ep *from = to_gk5 ? k->peer : k->gk5;
    struct ep *to = to_gk5 ? k->gk5 : k->peer;
    bool is_mic = strcmp(kind, "mic") == 0;
    int conf = strcmp(kind, "sealed") == 0;
    char why[1024] = "", name[512], what[200], st[96];
    bool ok = true;
    bool heimdal_rx = strcmp(to->name, "Heimdal") == 0;

    /* Positions: in the header, the middle of what follows it, the last
     * byte.  In the header, the sequence number (byte 12) -- except for
     * Heimdal, which reads the number before it checks the token (that
     * is cell_forged_seq): byte 4 (EC, or the MIC's filler) there. */
    for (int w = 0; w < 3 && ok; w++) {
        struct res t, r;
        ok = false;
        if (is_mic) {
            ep_get_mic(from, msg, sizeof(msg), &t);
        } else {
            ep_wrap(from, conf, msg, sizeof(msg), &t);
        }
        if (t.major != GSS_S_COMPLETE) {
            snprintf(why, sizeof(why), "%s", t.words);
            res_free(&t);
            break;
        }
        /* RFC 1964: the token header starts after 13 bytes of framing
         * (Heimdal answers BAD_MECH for a flip in the OID). */
        size_t hdr4 = k->rfc1964 ? 13 + 4 : 4;
        /* The middle of what follows the header; for RFC 1964 past the
         * first 8 checksum bytes (byte 37 on), which are the IV of the
         * encrypted sequence number: a flip there is a forged number. */
        size_t body = k->rfc1964 ? 37 : 16;
        size_t pos = w == 0   ? (heimdal_rx ? hdr4 : 12)
                     : w == 1 ? body + (t.n - body) / 2
                              : t.n - 1;
        t.p[pos] ^= 0x01;
        if (is_mic) {
            ep_verify_mic(to, msg, sizeof(msg), t.p, t.n, &r);
        } else {
            ep_unwrap(to, t.p, t.n, &r);
        }
        uint32_t routine = GK5_ROUTINE_ERROR(r.major);
        if (heimdal_rx && k->rfc1964 && routine == GK5_S_FAILURE) {
            quirk(Q_DES3_FAILURE,
                  "a DES3 (RFC 1964) Wrap token that fails its integrity "
                  "check is answered GSS_S_FAILURE (minor: decrypt "
                  "integrity check failed), not GSS_S_BAD_SIG; for DES3 "
                  "a flip in the first 8 checksum bytes (the IV of the "
                  "encrypted sequence number) is a forged number, "
                  "answered GAP/UNSEQ without an integrity check");
            routine = GK5_S_BAD_SIG;
        }
        if (heimdal_rx && k->rfc1964 && routine == GK5_S_BAD_MECH) {
            quirk(Q_DES3_BAD_MECH,
                  "a DES3 (RFC 1964) Wrap token whose padding is wrong "
                  "after decryption is answered GSS_S_BAD_MECH");
            routine = GK5_S_BAD_SIG;
        }
        if ((routine != GK5_S_BAD_SIG && routine != GK5_S_DEFECTIVE_TOKEN) ||
            r.leaked || (r.p != NULL && r.n > 0)) {
            snprintf(why, sizeof(why), "byte %zu flipped: %s %s%s", pos,
                     status_name(r.major, st, sizeof(st)), r.words,
                     r.leaked || r.n > 0 ? " and plaintext came out" : "");
            res_free(&r);
            res_free(&t);
            break;
        }
        res_free(&r);
        t.p[pos] ^= 0x01;
        if (is_mic) {
            ep_verify_mic(to, msg, sizeof(msg), t.p, t.n, &r);
        } else {
            ep_unwrap(to, t.p, t.n, &r);
        }
        bool intact_ok = is_mic ? r.major == GSS_S_COMPLETE
                                : got_message(&r, conf, msg, sizeof(msg));
        if (!intact_ok && heimdal_rx && r.major == GSS_S_DUPLICATE_TOKEN &&
            r.n == 0) {
            quirk(Q_BURNS_NUMBER,
                  "gss_unwrap and gss_verify_mic record a token's sequence "
                  "number before checking it: after a tampered copy is "
                  "refused (BAD_MIC), the genuine token is "
                  "GSS_S_DUPLICATE_TOKEN and never delivered");
            intact_ok = true;
        }
        if (!intact_ok) {
            snprintf(why, sizeof(why),
                     "the intact token after its tampered copy (byte %zu): "
                     "%s %s",
                     pos, status_name(r.major, st, sizeof(st)), r.words);
        }
        ok = intact_ok;
        res_free(&r);
        res_free(&t);
    }
    snprintf(what, sizeof(what),
             "%s->%s tampered %s -> %s says BAD_SIG/DEFECTIVE, no plaintext",
             from->name, to->name, kind, to->name);
    cell_name(name, sizeof(name), k, what);
    cell(ok, name, "%s", why);
}

/* Add delta to the sequence number of a CFX token (octets 8-15). */
static void seq_add(uint8_t *p, int64_t delta)
{
    uint64_t seq = 0;

    for (int i = 8; i < 16; i++) {
        seq = seq << 8 | p[i];
    }
    seq += (uint64_t)delta;
    for (int i = 15; i >= 8; i--) {
        p[i] = (uint8_t)seq;
        seq >>= 8;
    }
}

/* Heimdal only, and last (it disturbs Heimdal's window): gk5's Wrap token
 * with its sequence number moved 2 ahead, then a MIC token whose
 * number is 5 ahead and whose checksum is all zeros -- a forgery anyone
 * can make.  Neither may come back COMPLETE, and no plaintext may come
 * out.  Heimdal 7.8 answers both with a supplementary status alone,
 * without checking them. */
static void cell_forged_seq(struct kase *k)
{
    static const uint8_t msg[] = "a forged sequence number";
    struct res t, r, g, mt, mr;
    char why[1024] = "", name[512], st[96], st2[96], st3[96];
    bool ok = false, genuine_lost = false;

    if (k->rfc1964 || strcmp(k->peer->name, "Heimdal") != 0) {
        return;
    }
    res_init(&r);
    res_init(&g);
    res_init(&mt);
    res_init(&mr);
    ep_wrap(k->gk5, 1, msg, sizeof(msg), &t);
    if (t.major != GSS_S_COMPLETE) {
        snprintf(why, sizeof(why), "%s", t.words);
        goto done;
    }
    seq_add(t.p, 2);
    ep_unwrap(k->peer, t.p, t.n, &r);
    if (r.major == GSS_S_COMPLETE || r.leaked || r.n != 0) {
        snprintf(why, sizeof(why),
                 "forged Wrap: Heimdal says %s, %zu bytes "
                 "back",
                 status_name(r.major, st, sizeof(st)), r.n);
        goto done;
    }
    /* The genuine token, after its forged copy: noted, not judged. */
    seq_add(t.p, -2);
    ep_unwrap(k->peer, t.p, t.n, &g);
    genuine_lost = g.major != GSS_S_COMPLETE && !GSS_ERROR(g.major);
    ep_get_mic(k->gk5, msg, sizeof(msg), &mt);
    if (mt.major != GSS_S_COMPLETE || mt.n <= 16) {
        snprintf(why, sizeof(why), "%s", mt.words);
        goto done;
    }
    seq_add(mt.p, 5);
    memset(mt.p + 16, 0, mt.n - 16);
    ep_verify_mic(k->peer, msg, sizeof(msg), mt.p, mt.n, &mr);
    if (mr.major == GSS_S_COMPLETE) {
        snprintf(why, sizeof(why),
                 "forged MIC (zero checksum): Heimdal says "
                 "GSS_S_COMPLETE");
        goto done;
    }
    ok = true;
    if (!GSS_ERROR(r.major)) {
        quirk(Q_FORGED_SEQ_GAP,
              "gss_unwrap answers a token whose sequence number is out of "
              "order with the supplementary status alone (%s: no error "
              "bit, no message) before any integrity check: a forged "
              "number is never BAD_MIC%s",
              status_name(r.major, st, sizeof(st)),
              genuine_lost ? ", and the genuine token right after it is "
                             "dropped the same way"
                           : "");
    }
    if (!GSS_ERROR(mr.major)) {
        quirk(Q_FORGED_MIC,
              "gss_verify_mic of a MIC token whose number is ahead and "
              "whose checksum is all zeros answers %s -- no error bit -- "
              "without computing the checksum: a caller that tests "
              "GSS_ERROR() accepts a forged MIC (contexts with "
              "GSS_C_SEQUENCE_FLAG; MIT and gk5 check the checksum first "
              "and answer BAD_SIG)",
              status_name(mr.major, st2, sizeof(st2)));
    }
    printf("# Heimdal answers a forged Wrap number: %s (the genuine token "
           "after it: %s); a forged MIC: %s\n",
           status_name(r.major, st, sizeof(st)),
           status_name(g.major, st3, sizeof(st3)),
           status_name(mr.major, st2, sizeof(st2)));

done:
    cell_name(name, sizeof(name), k,
              "gk5->Heimdal forged sequence number (Wrap, 2 ahead) and forged "
              "MIC "
              "(number ahead, zero checksum): not COMPLETE, no plaintext");
    cell(ok, name, "%s", why);
    res_free(&t);
    res_free(&r);
    res_free(&g);
    res_free(&mt);
    res_free(&mr);
}

/* Heimdal's DES3 MIC tokens as Heimdal makes them: 51 bytes, the DER
 * length covering 2 bytes after the 20-byte SGN_CKSUM.  Whether gk5 takes
 * them; after this cell the Heimdal side drops the 2 bytes, so that the
 * other cells test the crypto. */
static int g_mit_takes_des3_mic = -1; /* seen in case A: 1 yes, 0 no */

static void cell_des3_mic_as_sent(struct kase *k)
{
    static const uint8_t msg[] = "a DES3 MIC as Heimdal makes it";
    struct res t, v;
    char name[512], st[96];

    if (!k->rfc1964 || strcmp(k->peer->name, "Heimdal") != 0) {
        return;
    }
    res_init(&v);
    cell_name(name, sizeof(name), k,
              "Heimdal->gk5 DES3 MIC as Heimdal makes it (51 bytes, 2 after "
              "SGN_CKSUM): gk5 verifies it");
    ep_get_mic(k->peer, msg, sizeof(msg), &t);
    if (t.major != GSS_S_COMPLETE || t.n != 51 || t.p[1] != 49) {
        cell(false, name, "Heimdal's MIC: %s, %zu bytes", t.words, t.n);
        goto done;
    }
    quirk(Q_DES3_MIC_TRAILING,
          "DES3 (RFC 1964) MIC tokens are 51 bytes, MIT's 49: the DER length "
          "covers 2 bytes after the 20-byte SGN_CKSUM that Heimdal's "
          "mic_des3 never writes (it sizes the token for 36 bytes after "
          "TOK_ID, 34 are used); MIT %s them",
          g_mit_takes_des3_mic == 1   ? "accepts"
          : g_mit_takes_des3_mic == 0 ? "refuses"
                                      : "(not seen here)");
    ep_verify_mic(k->gk5, msg, sizeof(msg), t.p, t.n, &v);
    if (v.major == GSS_S_COMPLETE) {
        cell(true, name, "%s", "");
    } else {
        /* The same token less the 2 bytes: gk5 has recorded nothing yet. */
        uint32_t first = v.major;
        des3_mic_trim(&t);
        res_free(&v);
        ep_verify_mic(k->gk5, msg, sizeof(msg), t.p, t.n, &v);
        cell(false, name, "gk5: %s, then without the 2 bytes: %s",
             status_name(first, st, sizeof(st)), v.words);
    }
    k->peer->trim_des3_mic = true;

done:
    res_free(&t);
    res_free(&v);
}

static void run_suite(struct kase *k)
{
    cell_first_tokens(k);
    cell_des3_mic_as_sent(k);
    note_integ_layout(k);
    cell_over_lengths(k, true, "wrap sealed", wrap_g2p, 1);
    cell_over_lengths(k, true, "wrap integ", wrap_g2p, 0);
    cell_over_lengths(k, false, "wrap sealed", wrap_p2g, 1);
    cell_over_lengths(k, false, "wrap integ", wrap_p2g, 0);
    cell_over_lengths(k, true, "get_mic/verify_mic", mic_g2p, 0);
    cell_over_lengths(k, false, "get_mic/verify_mic", mic_p2g, 0);
    cell_wrap_iov(k, false, 1);
    cell_wrap_iov(k, false, 0);
    cell_wrap_iov(k, true, 1);
    cell_wrap_iov(k, true, 0);
    cell_long_run(k, true);
    cell_long_run(k, false);
    cell_replay(k, true);
    cell_replay(k, false);
    cell_tamper(k, true, "sealed");
    cell_tamper(k, true, "integ");
    cell_tamper(k, true, "mic");
    cell_tamper(k, false, "sealed");
    cell_tamper(k, false, "integ");
    cell_tamper(k, false, "mic");
    cell_forged_seq(k);
}

/* ---- Heimdal: credentials and establishment ---- */

struct heim {
    krb5_context kc;
    krb5_principal client, service;
    krb5_keytab service_kt;
    krb5_creds tgt; /* from client.keytab, once */
    gss_cred_id_t acc_cred;
    gss_name_t target;
};

static int heim_setup(struct heim *H, const char *dir, char *err, size_t el)
{
    char kt[600];
    krb5_keytab client_kt = NULL;
    krb5_error_code ret;
    OM_uint32 major, minor = 0;
    gss_buffer_desc nb = {strlen(SERVICE), (void *)SERVICE};

    memset(H, 0, sizeof(*H));
    H->acc_cred = GSS_C_NO_CREDENTIAL;
    H->target = GSS_C_NO_NAME;
    ret = krb5_init_context(&H->kc);
    if (ret != 0) {
        snprintf(err, el, "krb5_init_context: %d", ret);
        return -1;
    }
    snprintf(kt, sizeof(kt), "FILE:%s/client.keytab", dir);
    ret = krb5_parse_name(H->kc, CLIENT, &H->client);
    if (ret == 0) {
        ret = krb5_parse_name(H->kc, SERVICE, &H->service);
    }
    if (ret == 0) {
        ret = krb5_kt_resolve(H->kc, kt, &client_kt);
    }
    if (ret == 0) {
        ret = krb5_get_init_creds_keytab(H->kc, &H->tgt, H->client, client_kt,
                                         0, NULL, NULL);
    }
    if (client_kt != NULL) {
        (void)krb5_kt_close(H->kc, client_kt);
    }
    if (ret != 0) {
        const char *m = krb5_get_error_message(H->kc, ret);
        snprintf(err, el, "Heimdal's initial credentials for %s: %s", CLIENT,
                 m);
        krb5_free_error_message(H->kc, m);
        return -1;
    }
    snprintf(kt, sizeof(kt), "FILE:%s/service.keytab", dir);
    ret = krb5_kt_resolve(H->kc, kt, &H->service_kt);
    if (ret != 0) {
        snprintf(err, el, "krb5_kt_resolve(%s) failed", kt);
        return -1;
    }
    major = gss_krb5_import_cred(&minor, NULL, H->service, H->service_kt,
                                 &H->acc_cred);
    if (GSS_ERROR(major)) {
        heim_words(err, el, "gss_krb5_import_cred (acceptor)", major, minor);
        return -1;
    }
    major =
        gss_import_name(&minor, &nb, GSS_KRB5_NT_PRINCIPAL_NAME, &H->target);
    if (GSS_ERROR(major)) {
        heim_words(err, el, "gss_import_name", major, minor);
        return -1;
    }
    return 0;
}

static void heim_teardown(struct heim *H)
{
    OM_uint32 minor = 0;

    if (H->kc == NULL) {
        return;
    }
    (void)gss_release_cred(&minor, &H->acc_cred);
    (void)gss_release_name(&minor, &H->target);
    krb5_free_cred_contents(H->kc, &H->tgt);
    if (H->service_kt != NULL) {
        (void)krb5_kt_close(H->kc, H->service_kt);
    }
    krb5_free_principal(H->kc, H->client);
    krb5_free_principal(H->kc, H->service);
    krb5_free_context(H->kc);
    H->kc = NULL;
}

/* An initiator credential of its own per case: a fresh MEMORY ccache
 * holding the TGT (a ticket cached by an earlier case would otherwise be
 * reused whatever its enctype), allowed only `et`. */
struct init_cred {
    krb5_ccache cc;
    gss_cred_id_t cred;
};

static int init_cred_make(struct heim *H, int32_t et, struct init_cred *ic,
                          char *err, size_t el)
{
    OM_uint32 major, minor = 0;
    krb5_error_code ret;

    ic->cc = NULL;
    ic->cred = GSS_C_NO_CREDENTIAL;
    ret = krb5_cc_new_unique(H->kc, "MEMORY", NULL, &ic->cc);
    if (ret == 0) {
        ret = krb5_cc_initialize(H->kc, ic->cc, H->client);
    }
    if (ret == 0) {
        ret = krb5_cc_store_cred(H->kc, ic->cc, &H->tgt);
    }
    if (ret != 0) {
        snprintf(err, el, "MEMORY ccache: error %d", ret);
        return -1;
    }
    major = gss_krb5_import_cred(&minor, ic->cc, NULL, NULL, &ic->cred);
    if (GSS_ERROR(major)) {
        heim_words(err, el, "gss_krb5_import_cred (initiator)", major, minor);
        return -1;
    }
    major = gss_krb5_set_allowable_enctypes(&minor, ic->cred, 1, &et);
    if (GSS_ERROR(major)) {
        heim_words(err, el, "gss_krb5_set_allowable_enctypes", major, minor);
        return -1;
    }
    return 0;
}

static void init_cred_free(struct heim *H, struct init_cred *ic)
{
    OM_uint32 minor = 0;

    (void)gss_release_cred(&minor, &ic->cred);
    if (ic->cc != NULL) {
        (void)krb5_cc_destroy(H->kc, ic->cc);
        ic->cc = NULL;
    }
}

/* The session key's enctype of the service ticket in the case's ccache. */
static int32_t ticket_enctype(struct heim *H, struct init_cred *ic)
{
    krb5_creds match, out;
    int32_t et = 0;

    memset(&match, 0, sizeof(match));
    match.client = H->client;
    match.server = H->service;
    if (krb5_cc_retrieve_cred(H->kc, ic->cc, 0, &match, &out) == 0) {
        et = out.session.keytype;
        krb5_free_cred_contents(H->kc, &out);
    }
    return et;
}

/* Heimdal initiator against an acceptor: Heimdal's own (acc != NULL) or
 * MIT's in mit_peer (rm != NULL).  Returns 0 and the flags each side was
 * granted, or -1 with why. */
static int establish(struct heim *H, struct init_cred *ic, bool mutual,
                     gss_ctx_id_t *init, gss_ctx_id_t *acc, struct remote *rm,
                     OM_uint32 *init_flags, OM_uint32 *acc_flags, char *why,
                     size_t wl)
{
    gss_buffer_desc to_acc = GSS_C_EMPTY_BUFFER, to_init = GSS_C_EMPTY_BUFFER;
    OM_uint32 imaj = GSS_S_CONTINUE_NEEDED, amaj = GSS_S_CONTINUE_NEEDED;
    OM_uint32 minor = 0, rel = 0;
    OM_uint32 req = mutual ? REQ_FLAGS : REQ_FLAGS & ~GSS_C_MUTUAL_FLAG;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    int ret = -1;

    *init_flags = *acc_flags = 0;
    for (int round = 0; round < 4; round++) {
        if (imaj == GSS_S_CONTINUE_NEEDED) {
            gss_buffer_desc in = {reply_len, reply};
            imaj = gss_init_sec_context(&minor, ic->cred, init, H->target,
                                        GSS_KRB5_MECHANISM, req, 0,
                                        GSS_C_NO_CHANNEL_BINDINGS, &in, NULL,
                                        &to_acc, init_flags, NULL);
            free(reply);
            reply = NULL;
            reply_len = 0;
            if (GSS_ERROR(imaj)) {
                heim_words(why, wl, "gss_init_sec_context", imaj, minor);
                goto cleanup;
            }
        }
        if (to_acc.length > 0) {
            if (acc != NULL) {
                amaj = gss_accept_sec_context(&minor, acc, H->acc_cred, &to_acc,
                                              GSS_C_NO_CHANNEL_BINDINGS, NULL,
                                              NULL, &to_init, acc_flags, NULL,
                                              NULL);
                if (GSS_ERROR(amaj)) {
                    heim_words(why, wl, "gss_accept_sec_context", amaj, minor);
                    goto cleanup;
                }
                reply_len = to_init.length;
                reply = malloc(reply_len + 1);
                if (reply != NULL && reply_len > 0) {
                    memcpy(reply, to_init.value, reply_len);
                }
                (void)gss_release_buffer(&rel, &to_init);
            } else {
                struct wire_frame f;
                if (remote_call(rm, WIRE_ACCEPT, 0, to_acc.value, to_acc.length,
                                NULL, 0, &f) != 0) {
                    snprintf(why, wl, "mit_peer did not answer");
                    goto cleanup;
                }
                amaj = f.w[0];
                *acc_flags = f.w[2];
                if (GSS_ERROR(amaj)) {
                    snprintf(why, wl, "%.*s", (int)f.len[1],
                             f.buf[1] != NULL ? (char *)f.buf[1] : "");
                    wire_frame_free(&f);
                    goto cleanup;
                }
                reply = f.buf[0];
                reply_len = f.len[0];
                f.buf[0] = NULL;
                wire_frame_free(&f);
            }
            (void)gss_release_buffer(&rel, &to_acc);
        }
        if (imaj == GSS_S_COMPLETE && amaj == GSS_S_COMPLETE &&
            reply_len == 0) {
            break;
        }
    }
    if (imaj != GSS_S_COMPLETE || amaj != GSS_S_COMPLETE) {
        snprintf(why, wl, "establishment did not complete (%#x, %#x)",
                 (unsigned)imaj, (unsigned)amaj);
        goto cleanup;
    }
    if ((*init_flags & req) != req || (*acc_flags & req) != req) {
        snprintf(why, wl, "flags not granted: initiator %#x acceptor %#x",
                 (unsigned)*init_flags, (unsigned)*acc_flags);
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(reply);
    (void)gss_release_buffer(&rel, &to_acc);
    (void)gss_release_buffer(&rel, &to_init);
    return ret;
}

/* ---- Heimdal's lucid export into gk5 ---- */

/* Heimdal's gss_krb5_lucid_context_v1_t into gk5's, field by field (the
 * two follow MIT's layout with different key pointer constness). */
static void lucid_to_gk5(const gss_krb5_lucid_context_v1_t *h, gk5_lucid_ctx *g)
{
    memset(g, 0, sizeof(*g));
    g->version = h->version;
    g->initiate = h->initiate;
    g->endtime = h->endtime;
    g->send_seq = h->send_seq;
    g->recv_seq = h->recv_seq;
    g->protocol = h->protocol;
    g->rfc1964_kd.sign_alg = h->rfc1964_kd.sign_alg;
    g->rfc1964_kd.seal_alg = h->rfc1964_kd.seal_alg;
    g->rfc1964_kd.ctx_key.type = h->rfc1964_kd.ctx_key.type;
    g->rfc1964_kd.ctx_key.length = h->rfc1964_kd.ctx_key.length;
    g->rfc1964_kd.ctx_key.data = h->rfc1964_kd.ctx_key.data;
    g->cfx_kd.have_acceptor_subkey = h->cfx_kd.have_acceptor_subkey;
    g->cfx_kd.ctx_key.type = h->cfx_kd.ctx_key.type;
    g->cfx_kd.ctx_key.length = h->cfx_kd.ctx_key.length;
    g->cfx_kd.ctx_key.data = h->cfx_kd.ctx_key.data;
    g->cfx_kd.acceptor_subkey.type = h->cfx_kd.acceptor_subkey.type;
    g->cfx_kd.acceptor_subkey.length = h->cfx_kd.acceptor_subkey.length;
    g->cfx_kd.acceptor_subkey.data = h->cfx_kd.acceptor_subkey.data;
}

/* The key tokens are made with, as rpc.gssd picks it. */
static const gss_krb5_lucid_key_t *
token_key(const gss_krb5_lucid_context_v1_t *h)
{
    if (h->protocol == 0) {
        return &h->rfc1964_kd.ctx_key;
    }
    return h->cfx_kd.have_acceptor_subkey ? &h->cfx_kd.acceptor_subkey
                                          : &h->cfx_kd.ctx_key;
}

/* rpc.gssd's buffer for the kernel (docs/design.md, "The rpc.gssd context
 * buffer"): u32 flags, u32 endtime, u64 send_seq, u32 enctype, the raw key;
 * host order, no padding. */
static uint8_t *lucid_to_gssd(const gss_krb5_lucid_context_v1_t *h, size_t *len)
{
    const gss_krb5_lucid_key_t *key = token_key(h);
    uint32_t flags = 0, endtime = h->endtime, et = key->type;
    uint64_t seq = h->send_seq;
    uint8_t *buf, *p;

    if (h->initiate) {
        flags |= GK5_GSSD_FLAG_INITIATOR;
    }
    if (h->protocol != 0) {
        flags |= GK5_GSSD_FLAG_CFX;
        if (h->cfx_kd.have_acceptor_subkey) {
            flags |= GK5_GSSD_FLAG_ACCEPTOR_SUBKEY;
        }
    }
    *len = 4 + 4 + 8 + 4 + key->length;
    buf = malloc(*len);
    if (buf == NULL) {
        return NULL;
    }
    p = buf;
    memcpy(p, &flags, 4);
    memcpy(p + 4, &endtime, 4);
    memcpy(p + 8, &seq, 8);
    memcpy(p + 16, &et, 4);
    memcpy(p + 20, key->data, key->length);
    return buf;
}

/* Import Heimdal's export into gk5 by path. */
static uint32_t import_lucid(const gss_krb5_lucid_context_v1_t *h, bool gssd,
                             uint32_t *minor, gk5_ctx **out)
{
    uint32_t major;

    if (gssd) {
        size_t len = 0;
        uint8_t *buf = lucid_to_gssd(h, &len);
        if (buf == NULL) {
            *minor = GK5_ERR_NOMEM;
            return GK5_S_FAILURE;
        }
        major = gk5_ctx_import_gssd(minor, buf, len, out);
        explicit_bzero(buf, len); /* it holds the key */
        free(buf);
    } else {
        gk5_lucid_ctx g;
        lucid_to_gk5(h, &g);
        major = gk5_ctx_import_lucid(minor, &g, out);
    }
    return major;
}

/* Export *ctx (Heimdal); the context stays usable in Heimdal (unlike
 * MIT's, Heimdal's export is an inquiry).  0 or -1 with why. */
static int export_lucid(gss_ctx_id_t *ctx, gss_krb5_lucid_context_v1_t **out,
                        char *why, size_t wl)
{
    OM_uint32 major, minor = 0;
    void *p = NULL;

    *out = NULL;
    major = gss_krb5_export_lucid_sec_context(&minor, ctx, 1, &p);
    if (GSS_ERROR(major)) {
        heim_words(why, wl, "gss_krb5_export_lucid_sec_context", major, minor);
        return -1;
    }
    if (*ctx != GSS_C_NO_CONTEXT) {
        quirk(Q_EXPORT_KEEPS_CONTEXT,
              "gss_krb5_export_lucid_sec_context does not consume the "
              "context (MIT's deletes it): Heimdal and the importer would "
              "both send from the same sequence numbers unless the caller "
              "deletes it (here it is deleted)");
    }
    *out = p;
    return 0;
}

static void lucid_free(gss_krb5_lucid_context_v1_t *l)
{
    OM_uint32 minor = 0;

    if (l != NULL) {
        (void)gss_krb5_free_lucid_sec_context(&minor, l);
    }
}

/* ---- The cases ---- */

enum kind { K_A, K_A2, K_B, K_B2, K__COUNT };

static const char *const kind_label[K__COUNT] = {
    [K_A] = "Heimdal->MIT, gk5=Heimdal's initiator",
    [K_A2] = "Heimdal->MIT, gk5=MIT's acceptor",
    [K_B] = "Heimdal->Heimdal, gk5=Heimdal's initiator",
    [K_B2] = "Heimdal->Heimdal, gk5=Heimdal's acceptor",
};

struct world {
    struct heim H;
    struct remote rm;
    gk5_acceptor_cred *acred; /* gk5's own acceptor: service.keytab */
    char acred_err[512];      /* why there is none */
    FILE *dump;               /* --dump: Heimdal's AP-REQs as vectors */
    unsigned dumped;
};

static const char dump_header[] =
    "# Real AP-REQs made by Heimdal's initiator (gss_init_sec_context,\n"
    "# Heimdal 7.8, Debian 12: libgssapi3-heimdal, heimdal-multidev) against\n"
    "# the throwaway MIT realm of `gk5 realm run` (docs/design.md,\n"
    "# \"Heimdal\"), each with the service key that opens its ticket:\n"
    "# known answers for gk5's acceptor and DER codec.  Made by\n"
    "#\n"
    "#   build/tools/gk5 realm run -- build/tests/heimdal/test_heimdal \\\n"
    "#       --dump heimdal_ap_req.txt build/tests/heimdal/mit_peer\n"
    "#\n"
    "# (every run gives new keys, tickets and times).  MIT's krb5kdc 1.20.1\n"
    "# issued the tickets (its PAC in their authorization data); Heimdal\n"
    "# asked for them forwardable.  The tickets expire: decode them at\n"
    "# `time` (gk5i_accept_at), with a replay cache made before it.  gk5's\n"
    "# own acceptor accepted each one when it was captured (test_heimdal's\n"
    "# Heimdal->gk5_accept cells).\n"
    "#\n"
    "# Fields: as in mit_ap_req.txt --\n"
    "#   name             session enctype, and mutual or nomutual\n"
    "#   realm, sname     the service, gk5/localhost@GK5.TEST\n"
    "#   cname            the client, as gk5_accept_info.initiator says it\n"
    "#   key_enctype, kvno, key\n"
    "#                    the service's long-term key from the realm's\n"
    "#                    service.keytab, which encrypts the ticket\n"
    "#   session_enctype  the ticket's session key's enctype\n"
    "#   context_enctype  the context's (acceptor subkey's, with mutual)\n"
    "#                    enctype gk5 chose\n"
    "#   mutual           1 if ap-options has mutual-required\n"
    "#   gss_flags        gk5_accept_info.gss_flags (RFC 2744 values)\n"
    "#   time             seconds since 1970 when gk5 accepted it\n"
    "#   endtime          the ticket's endtime\n"
    "#   token            the AP-REQ as Heimdal sent it: RFC 2743 3.1\n"
    "#                    framing, the krb5 OID, TOK_ID 01 00, the DER\n"
    "#                    AP-REQ\n"
    "\n";

static void hex_out(FILE *f, const void *p, size_t n)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%02x", b[i]);
    }
}

/* One block of --dump: the AP-REQ gk5 accepted and the key that opens
 * its ticket (Heimdal's own reading of service.keytab). */
static void dump_ap_req(struct world *W, int32_t et, bool mutual,
                        const gss_buffer_desc *tok, const gk5_accept_info *info,
                        time_t when)
{
    krb5_keytab_entry ent;
    const char *at = strrchr(info->acceptor, '@');

    memset(&ent, 0, sizeof(ent));
    if (krb5_kt_get_entry(W->H.kc, W->H.service_kt, W->H.service, 0,
                          info->ticket_enctype, &ent) != 0) {
        printf("# --dump: no key of enctype %d in the service keytab\n",
               (int)info->ticket_enctype);
        return;
    }
    fprintf(W->dump, "source = Heimdal 7.8 gss_init_sec_context (Debian 12), "
                     "captured by tests/heimdal/test_heimdal.c --dump\n");
    fprintf(W->dump, "name = %s-%s\n", enctype_name(et),
            mutual ? "mutual" : "nomutual");
    fprintf(W->dump, "realm = \"GK5.TEST\"\n");
    fprintf(W->dump, "sname = \"%.*s\"\n",
            at != NULL ? (int)(at - info->acceptor)
                       : (int)strlen(info->acceptor),
            info->acceptor);
    fprintf(W->dump, "cname = \"%s\"\n", info->initiator);
    fprintf(W->dump, "key_enctype = %d\n", (int)ent.keyblock.keytype);
    fprintf(W->dump, "kvno = %u\n", (unsigned)ent.vno);
    fprintf(W->dump, "key = ");
    hex_out(W->dump, ent.keyblock.keyvalue.data, ent.keyblock.keyvalue.length);
    fprintf(W->dump, "\nsession_enctype = %d\n", (int)info->session_enctype);
    fprintf(W->dump, "context_enctype = %d\n", (int)info->context_enctype);
    fprintf(W->dump, "mutual = %d\n", mutual ? 1 : 0);
    fprintf(W->dump, "gss_flags = %u\n", (unsigned)info->gss_flags);
    fprintf(W->dump, "time = %lld\n", (long long)when);
    fprintf(W->dump, "endtime = %lld\n", (long long)info->endtime);
    fprintf(W->dump, "token = ");
    hex_out(W->dump, tok->value, tok->length);
    fprintf(W->dump, "\n\n");
    fflush(W->dump);
    W->dumped++;
    krb5_kt_free_entry(W->H.kc, &ent);
}

static void check_gk5_inquire(struct kase *k, const gk5_lucid_ctx *f,
                              int32_t want)
{
    gk5_ctx_info info;
    uint32_t major, minor = 0;
    char why[512] = "", name[512];
    bool ok = false;

    memset(&info, 0, sizeof(info));
    major = gk5_ctx_inquire(&minor, k->gk5->g, &info);
    if (major != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_ctx_inquire: %s",
                 gk5_display_status(major, minor));
    } else if (info.initiator != (f->initiate != 0) ||
               info.cfx != (f->protocol != 0) ||
               info.acceptor_subkey !=
                   (f->protocol != 0 && f->cfx_kd.have_acceptor_subkey != 0) ||
               info.enctype != want || info.send_seq != f->send_seq) {
        snprintf(why, sizeof(why),
                 "gk5 says initiator %d cfx %d subkey %d enctype %d "
                 "send_seq %llu; Heimdal's export says initiate %u protocol "
                 "%u subkey %u enctype %d send_seq %llu",
                 info.initiator, info.cfx, info.acceptor_subkey,
                 (int)info.enctype, (unsigned long long)info.send_seq,
                 f->initiate, f->protocol, f->cfx_kd.have_acceptor_subkey,
                 (int)want, (unsigned long long)f->send_seq);
    } else {
        ok = true;
    }
    cell_name(name, sizeof(name), k, "gk5_ctx_inquire agrees with the export");
    cell(ok, name, "%s", why);
}

/* One case of `kind` for enctype et, by import path. */
static void run_case(struct world *W, int32_t et, enum kind kind, bool gssd,
                     bool mutual)
{
    struct heim *H = &W->H;
    struct init_cred ic = {NULL, GSS_C_NO_CREDENTIAL};
    gss_ctx_id_t init = GSS_C_NO_CONTEXT, acc = GSS_C_NO_CONTEXT;
    gss_krb5_lucid_context_v1_t *hl = NULL, *hl_peer = NULL;
    struct wire_info mi;
    OM_uint32 init_flags = 0, acc_flags = 0, minor = 0;
    struct ep g = {0}, peer = {0};
    struct kase k;
    char why[1024] = "", name[512], what[256];
    bool to_mit = kind == K_A || kind == K_A2;
    bool ok;

    memset(&k, 0, sizeof(k));
    memset(&mi, 0, sizeof(mi));
    snprintf(k.label, sizeof(k.label), "%s(%d) %s%s (%s) |", enctype_name(et),
             (int)et, kind_label[kind], mutual ? "" : ", no mutual auth",
             gssd ? "gssd" : "lucid");
    k.rfc1964 = et == 16;
    k.gssd = gssd;
    k.mutual = mutual;
    k.gk5 = &g;
    k.peer = &peer;

    /* Establish: Heimdal's initiator, and Heimdal's or MIT's acceptor. */
    ok = init_cred_make(H, et, &ic, why, sizeof(why)) == 0 &&
         establish(H, &ic, mutual, &init, to_mit ? NULL : &acc,
                   to_mit ? &W->rm : NULL, &init_flags, &acc_flags, why,
                   sizeof(why)) == 0;
    snprintf(what, sizeof(what),
             "Heimdal's initiator and %s's acceptor establish the context "
             "(flags granted)",
             to_mit ? "MIT" : "Heimdal");
    cell_name(name, sizeof(name), &k, what);
    if (!cell(ok, name, "%s", why)) {
        goto cleanup;
    }

    /* DES3: does MIT take Heimdal's 51-byte MIC token?  Before the
     * export, so that gk5 continues after the number Heimdal used. */
    if (et == 16 && kind == K_A) {
        static const uint8_t m[] = "a DES3 MIC as Heimdal makes it";
        struct ep hp = {.kind = EP_HEIMDAL, .name = "Heimdal", .h = init};
        struct ep mp = {.kind = EP_REMOTE, .name = "MIT", .rm = &W->rm};
        struct res t, v;
        res_init(&v);
        ep_get_mic(&hp, m, sizeof(m), &t);
        if (t.major == GSS_S_COMPLETE) {
            ep_verify_mic(&mp, m, sizeof(m), t.p, t.n, &v);
        }
        g_mit_takes_des3_mic = v.major == GSS_S_COMPLETE;
        cell_name(name, sizeof(name), &k,
                  "Heimdal->MIT DES3 MIC as Heimdal makes it: MIT verifies "
                  "it");
        cell(t.major == GSS_S_COMPLETE && v.major == GSS_S_COMPLETE, name,
             "%zu-byte token: %s %s", t.n, t.words, v.words);
        res_free(&t);
        res_free(&v);
    }

    /* The initiator's subkey (its authenticator's), to compare with what
     * MIT's acceptor exports as ctx_key. */
    uint64_t init_subkey_hash = 0;
    {
        krb5_keyblock *sub = NULL;
        OM_uint32 m = 0;
        if (!GSS_ERROR(gsskrb5_get_initiator_subkey(&m, init, &sub)) &&
            sub != NULL) {
            init_subkey_hash =
                wire_fnv1a(sub->keyvalue.data, sub->keyvalue.length);
            krb5_free_keyblock(H->kc, sub);
        }
    }

    /* Which side goes to gk5, and what the other keeps. */
    gss_ctx_id_t *exported = kind == K_B2 ? &acc : &init;
    bool g_is_remote = kind == K_A2;
    ok = true;
    if (!g_is_remote) {
        ok = export_lucid(exported, &hl, why, sizeof(why)) == 0;
    } else {
        /* Heimdal's initiator stays; its export is only read. */
        ok = export_lucid(&init, &hl_peer, why, sizeof(why)) == 0;
    }
    if (ok && to_mit) {
        struct wire_frame f;
        uint32_t op = g_is_remote ? WIRE_EXPORT : WIRE_INFO;
        if (remote_call(&W->rm, op, gssd ? WIRE_PATH_GSSD : WIRE_PATH_LUCID,
                        NULL, 0, NULL, 0, &f) != 0) {
            snprintf(why, sizeof(why), "mit_peer did not answer");
            ok = false;
        } else if (f.w[0] != GSS_S_COMPLETE || f.len[0] != sizeof(mi)) {
            snprintf(why, sizeof(why), "mit_peer %s: %.*s",
                     g_is_remote ? "export" : "info", (int)f.len[1],
                     f.buf[1] != NULL ? (char *)f.buf[1] : "");
            ok = false;
        } else {
            memcpy(&mi, f.buf[0], sizeof(mi));
        }
        wire_frame_free(&f);
    }
    cell_name(name, sizeof(name), &k,
              g_is_remote ? "MIT exports its acceptor into gk5 (mit_peer)"
                          : "Heimdal exports a lucid context (version 1)");
    if (!cell(ok, name, "%s", why)) {
        goto cleanup;
    }

    /* The enctype: the ticket's session key, and the token key on both
     * sides, all the one asked for. */
    const gss_krb5_lucid_context_v1_t *hx = hl != NULL ? hl : hl_peer;
    int32_t tkt = ticket_enctype(H, &ic);
    int32_t lucid_et = (int32_t)token_key(hx)->type;
    int32_t mit_et = to_mit ? (int32_t)mi.token_enctype : et;
    /* MIT exports a DES3 key as des3-cbc-raw (6). */
    bool et_ok = tkt == et && lucid_et == et &&
                 (mit_et == et || (et == 16 && mit_et == 6));
    bool shape = hx->version == 1 && hx->protocol == (et == 16 ? 0u : 1u) &&
                 (et == 16 || hx->cfx_kd.have_acceptor_subkey == (mutual != 0));
    snprintf(what, sizeof(what),
             "session key enctype %d: ticket %d, Heimdal's lucid %d%s", (int)et,
             (int)tkt, (int)lucid_et, to_mit ? ", MIT's lucid" : "");
    if (to_mit) {
        size_t used = strlen(what);
        snprintf(what + used, sizeof(what) - used, " %d", (int)mit_et);
    }
    cell_name(name, sizeof(name), &k, what);
    if (!cell(et_ok && shape, name,
              "lucid: version %u initiate %u protocol %u subkey %u ctx_key "
              "%u acceptor_subkey %u",
              hx->version, hx->initiate, hx->protocol,
              hx->cfx_kd.have_acceptor_subkey, hx->cfx_kd.ctx_key.type,
              hx->cfx_kd.acceptor_subkey.type)) {
        goto cleanup;
    }
    if (hx->protocol == 1 && hx->cfx_kd.have_acceptor_subkey &&
        hx->cfx_kd.ctx_key.length == hx->cfx_kd.acceptor_subkey.length &&
        memcmp(hx->cfx_kd.ctx_key.data, hx->cfx_kd.acceptor_subkey.data,
               hx->cfx_kd.ctx_key.length) == 0 &&
        (!to_mit || !mi.keys_equal)) {
        quirk(Q_LUCID_CTX_KEY_IS_SUBKEY,
              "the lucid cfx_kd.ctx_key is the acceptor subkey too (both "
              "key fields hold the token key); MIT's ctx_key is another "
              "key%s",
              init_subkey_hash != 0 && init_subkey_hash == mi.ctx_key_hash
                  ? ", the initiator's subkey (seen here: MIT's ctx_key is "
                    "the subkey Heimdal's initiator sent)"
                  : "");
    }
    if (hx->protocol == 0 && hx->rfc1964_kd.ctx_key.type == 16) {
        quirk(Q_LUCID_DES3_ENCTYPE,
              "a DES3 lucid context names its key des3-cbc-sha1 (16); MIT "
              "names it des3-cbc-raw (6)");
    }
    if (!mutual && hl != NULL && hl->initiate && hl->recv_seq == 0) {
        quirk(Q_NONMUTUAL_RECV_SEQ,
              "without mutual authentication the initiator's lucid recv_seq "
              "is 0 (MIT's is the initiator's send_seq), while the acceptor "
              "sends from the initiator's own number (send_seq %llu here); "
              "the test imports recv_seq = send_seq and shows the unfixed "
              "import reporting GAP_TOKEN",
              (unsigned long long)hl->send_seq);
    }

    /* Into gk5. */
    uint32_t major = GK5_S_COMPLETE;
    gk5_lucid_ctx fields;
    memset(&fields, 0, sizeof(fields));
    if (!g_is_remote) {
        if (!mutual && hl->initiate && hl->recv_seq == 0) {
            uint32_t rminor = 0;
            if (!gssd &&
                import_lucid(hl, false, &rminor, &k.raw) != GK5_S_COMPLETE) {
                k.raw = NULL;
            }
            hl->recv_seq = hl->send_seq;
        }
        major = import_lucid(hl, gssd, &minor, &g.g);
        lucid_to_gk5(hl, &fields);
        k.g_send = hl->send_seq;
        k.g_recv = hl->recv_seq;
        k.g_acceptor = !hl->initiate;
        k.subkey = hl->protocol == 1 && hl->cfx_kd.have_acceptor_subkey;
        /* The exported Heimdal context is not used again. */
        (void)gss_delete_sec_context(&minor, exported, GSS_C_NO_BUFFER);
    } else {
        k.g_send = mi.send_seq;
        k.g_recv = mi.recv_seq;
        k.g_acceptor = !mi.initiate;
        k.subkey = mi.protocol == 1 && mi.have_acceptor_subkey;
    }
    snprintf(what, sizeof(what), "gk5 imports it (%s)",
             gssd ? "rpc.gssd buffer, gk5_ctx_import_gssd"
                  : "gk5_ctx_import_lucid");
    cell_name(name, sizeof(name), &k, what);
    if (!cell(major == GK5_S_COMPLETE, name, "%s",
              gk5_display_status(major, minor))) {
        goto cleanup;
    }
    printf("# export: initiate %u send_seq %llu recv_seq %llu subkey %u "
           "endtime %u\n",
           g_is_remote ? mi.initiate : hl->initiate,
           (unsigned long long)k.g_send, (unsigned long long)k.g_recv,
           (unsigned)k.subkey, g_is_remote ? mi.endtime : hl->endtime);

    g.name = "gk5";
    g.is_gk5 = true;
    if (g_is_remote) {
        g.kind = EP_REMOTE;
        g.rm = &W->rm;
        peer.kind = EP_HEIMDAL;
        peer.name = "Heimdal";
        peer.h = init;
    } else {
        g.kind = EP_GK5;
        check_gk5_inquire(&k, &fields, et);
        if (to_mit) {
            peer.kind = EP_REMOTE;
            peer.name = "MIT";
            peer.rm = &W->rm;
        } else {
            peer.kind = EP_HEIMDAL;
            peer.name = "Heimdal";
            peer.h = kind == K_B2 ? init : acc;
        }
    }
    run_suite(&k);

cleanup:
    gk5_ctx_free(g.g);
    gk5_ctx_free(k.raw);
    lucid_free(hl);
    lucid_free(hl_peer);
    (void)gss_delete_sec_context(&minor, &init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &acc, GSS_C_NO_BUFFER);
    init_cred_free(H, &ic);
}

/* Heimdal's initiator against gk5's own acceptor: the AP-REQ from
 * Heimdal's gss_init_sec_context goes to gk5_accept (a credential on the
 * realm's service keytab, principal gk5@localhost), gk5's AP-REP back to
 * Heimdal, and the context in gk5 is the acceptor's side of the suite.
 * Heimdal's initiator is only read (its lucid export: its first sequence
 * number and token key), never moved. */
static void run_native_accept(struct world *W, int32_t et, bool mutual)
{
    struct heim *H = &W->H;
    struct init_cred ic = {NULL, GSS_C_NO_CREDENTIAL};
    gss_ctx_id_t init = GSS_C_NO_CONTEXT;
    gss_buffer_desc to_acc = GSS_C_EMPTY_BUFFER, out = GSS_C_EMPTY_BUFFER;
    gss_krb5_lucid_context_v1_t *hl = NULL;
    OM_uint32 req = mutual ? REQ_FLAGS : REQ_FLAGS & ~GSS_C_MUTUAL_FLAG;
    OM_uint32 imaj, imin = 0, iflags = 0, rel = 0;
    gk5_buffer reply = {0, NULL};
    gk5_accept_info info;
    struct ep g = {0}, peer = {0};
    struct kase k;
    char why[1024] = "", name[512], what[256];
    uint32_t amaj = GK5_S_FAILURE, amin = 0;
    time_t when = 0;
    bool ok = false;

    memset(&k, 0, sizeof(k));
    memset(&info, 0, sizeof(info));
    snprintf(k.label, sizeof(k.label), "%s(%d) Heimdal->gk5_accept%s |",
             enctype_name(et), (int)et, mutual ? "" : ", no mutual auth");
    k.rfc1964 = et == 16;
    k.mutual = mutual;
    k.gk5 = &g;
    k.peer = &peer;
    g.kind = EP_GK5;
    g.name = "gk5";
    g.is_gk5 = true;
    peer.kind = EP_HEIMDAL;
    peer.name = "Heimdal";

    if (W->acred == NULL) {
        snprintf(why, sizeof(why), "no gk5 acceptor credential: %s",
                 W->acred_err);
        goto establish_done;
    }
    if (init_cred_make(H, et, &ic, why, sizeof(why)) != 0) {
        goto establish_done;
    }
    {
        gss_buffer_desc none = GSS_C_EMPTY_BUFFER;
        imaj = gss_init_sec_context(
            &imin, ic.cred, &init, H->target, GSS_KRB5_MECHANISM, req, 0,
            GSS_C_NO_CHANNEL_BINDINGS, &none, NULL, &to_acc, &iflags, NULL);
    }
    if (GSS_ERROR(imaj)) {
        heim_words(why, sizeof(why), "gss_init_sec_context", imaj, imin);
        goto establish_done;
    }
    {
        gk5_buffer in = {to_acc.length, to_acc.value};
        when = time(NULL);
        amaj = gk5_accept(&amin, W->acred, &in, NULL, &reply, &g.g, &info);
    }
    if (amaj != GK5_S_COMPLETE) {
        snprintf(why, sizeof(why), "gk5_accept: %s",
                 gk5_display_status(amaj, amin));
        goto establish_done;
    }
    if (mutual) {
        gss_buffer_desc rep = {reply.length, reply.value};
        if (imaj != GSS_S_CONTINUE_NEEDED || reply.length == 0) {
            snprintf(why, sizeof(why),
                     "Heimdal's first call %#x, gk5 replied %zu bytes",
                     (unsigned)imaj, reply.length);
            goto establish_done;
        }
        imaj = gss_init_sec_context(
            &imin, ic.cred, &init, H->target, GSS_KRB5_MECHANISM, req, 0,
            GSS_C_NO_CHANNEL_BINDINGS, &rep, NULL, &out, &iflags, NULL);
        if (imaj != GSS_S_COMPLETE) {
            heim_words(why, sizeof(why), "gss_init_sec_context (gk5's AP-REP)",
                       imaj, imin);
            goto establish_done;
        }
    } else if (imaj != GSS_S_COMPLETE || reply.length != 0) {
        snprintf(why, sizeof(why),
                 "Heimdal's first call %#x, gk5 replied %zu bytes (want none)",
                 (unsigned)imaj, reply.length);
        goto establish_done;
    }
    if ((iflags & req) != req) {
        snprintf(why, sizeof(why), "Heimdal's initiator granted %#x of %#x",
                 (unsigned)iflags, (unsigned)req);
        goto establish_done;
    }
    ok = true;

establish_done:
    cell_name(name, sizeof(name), &k,
              mutual ? "Heimdal initiator -> gk5_accept -> AP-REP -> Heimdal "
                       "complete"
                     : "Heimdal initiator -> gk5_accept, no reply token");
    if (!cell(ok, name, "%s", why)) {
        goto cleanup;
    }

    /* The session key the ticket has, the token key Heimdal's initiator
     * keeps, and what gk5 says it accepted: all the enctype asked for. */
    ok = export_lucid(&init, &hl, why, sizeof(why)) == 0;
    int32_t tkt = ticket_enctype(H, &ic);
    int32_t lucid_et = ok ? (int32_t)token_key(hl)->type : 0;
    uint32_t want_flags = GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG |
                          GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG |
                          (mutual ? GK5_C_MUTUAL_FLAG : 0);
    ok = ok && tkt == et && lucid_et == et && info.session_enctype == et &&
         info.context_enctype == et && strcmp(info.initiator, CLIENT) == 0 &&
         strcmp(info.acceptor, SERVICE) == 0 &&
         (info.gss_flags & want_flags) == want_flags &&
         (et == 16 || hl->cfx_kd.have_acceptor_subkey == (mutual ? 1u : 0u));
    snprintf(what, sizeof(what),
             "session key enctype %d: ticket %d, gk5 session %d context %d, "
             "Heimdal's token key %d",
             (int)et, (int)tkt, (int)info.session_enctype,
             (int)info.context_enctype, (int)lucid_et);
    cell_name(name, sizeof(name), &k, what);
    if (!cell(ok, name,
              "%s; gk5: %s -> %s, gss_flags %#x (want %#x); Heimdal's lucid "
              "subkey %u",
              why, info.initiator != NULL ? info.initiator : "?",
              info.acceptor != NULL ? info.acceptor : "?",
              (unsigned)info.gss_flags, (unsigned)want_flags,
              hl != NULL ? hl->cfx_kd.have_acceptor_subkey : 0u)) {
        goto cleanup;
    }
    printf("# %s gk5 accepted: gss_flags %#x ticket_flags %#x, ticket "
           "enctype %d; Heimdal's initiator granted %#x, send_seq %llu "
           "recv_seq %llu\n",
           k.label, (unsigned)info.gss_flags, (unsigned)info.ticket_flags,
           (int)info.ticket_enctype, (unsigned)iflags,
           (unsigned long long)hl->send_seq, (unsigned long long)hl->recv_seq);

    if (W->dump != NULL) {
        dump_ap_req(W, et, mutual, &to_acc, &info, when);
    }

    /* The same AP-REQ again, to the same credential. */
    {
        gk5_buffer in = {to_acc.length, to_acc.value}, o2 = {0, NULL};
        gk5_ctx *c2 = NULL;
        uint32_t m2 = 0;
        uint32_t a2 = gk5_accept(&m2, W->acred, &in, NULL, &o2, &c2, NULL);
        cell_name(name, sizeof(name), &k,
                  "Heimdal's AP-REQ replayed to the same credential -> "
                  "GK5_ERR_AP_REPEAT");
        cell(GK5_ROUTINE_ERROR(a2) == GK5_S_FAILURE &&
                 GK5_ERR_CODE(m2) == GK5_ERR_AP_REPEAT && c2 == NULL &&
                 (o2.length > 0) == mutual,
             name, "%s, %zu-byte reply", gk5_display_status(a2, m2), o2.length);
        gk5_ctx_free(c2);
        gk5_buffer_release(&o2);
    }

    {
        gk5_ctx_info gi;
        uint32_t m = 0;
        memset(&gi, 0, sizeof(gi));
        if (gk5_ctx_inquire(&m, g.g, &gi) != GK5_S_COMPLETE) {
            goto cleanup;
        }
        k.g_send = gi.send_seq;
    }
    k.g_recv = hl->send_seq;
    k.g_acceptor = true;
    k.subkey = mutual && et != 16;
    peer.h = init;
    run_suite(&k);

cleanup:
    lucid_free(hl);
    gk5_ctx_free(g.g);
    gk5_accept_info_release(&info);
    gk5_buffer_release(&reply);
    (void)gss_release_buffer(&rel, &to_acc);
    (void)gss_release_buffer(&rel, &out);
    (void)gss_delete_sec_context(&rel, &init, GSS_C_NO_BUFFER);
    init_cred_free(H, &ic);
}

/* Heimdal makes a context gk5 must refuse (rc4: RFC 8429; des3 when not
 * built): both roles, both paths, after checking the KDC really issued
 * that type. */
static void run_refusal(struct world *W, int32_t et, uint32_t code,
                        const char *words)
{
    struct heim *H = &W->H;
    struct init_cred ic = {NULL, GSS_C_NO_CREDENTIAL};
    gss_ctx_id_t init = GSS_C_NO_CONTEXT, acc = GSS_C_NO_CONTEXT;
    OM_uint32 fi = 0, fa = 0, minor = 0;
    char why[1024] = "", name[512], label[128];

    snprintf(label, sizeof(label), "%s(%d) refused, Heimdal->Heimdal |",
             enctype_name(et), (int)et);
    if (init_cred_make(H, et, &ic, why, sizeof(why)) != 0 ||
        establish(H, &ic, true, &init, &acc, NULL, &fi, &fa, why,
                  sizeof(why)) != 0) {
        snprintf(name, sizeof(name), "%s Heimdal establishes the context",
                 label);
        cell(false, name, "%s", why);
        goto cleanup;
    }
    for (int side = 0; side < 2; side++) {
        gss_krb5_lucid_context_v1_t *hl = NULL;
        const char *role = side == 0 ? "initiator" : "acceptor";
        int32_t got = 0, tkt = ticket_enctype(H, &ic);
        bool ok =
            export_lucid(side == 0 ? &init : &acc, &hl, why, sizeof(why)) == 0;
        if (ok) {
            got = (int32_t)token_key(hl)->type;
        }
        snprintf(name, sizeof(name),
                 "%s Heimdal %s context really is enctype %d (lucid %d, "
                 "ticket %d)",
                 label, role, (int)et, (int)got, (int)tkt);
        if (!cell(ok && got == et && tkt == et, name, "%s", why)) {
            lucid_free(hl);
            continue;
        }
        for (int path = 0; path < 2; path++) {
            gk5_ctx *ctx = NULL;
            uint32_t m = 0;
            uint32_t major = import_lucid(hl, path == 1, &m, &ctx);
            const char *text = gk5_display_status(major, m);
            bool refused = major == GK5_S_UNAVAILABLE && ctx == NULL &&
                           GK5_ERR_CODE(m) == code &&
                           GK5_ERR_ENCTYPE(m) == et &&
                           strstr(text, words) != NULL;
            snprintf(name, sizeof(name),
                     "%s gk5 refuses the %s's %s import: UNAVAILABLE, \"%s\"",
                     label, role, path == 1 ? "gssd" : "lucid", words);
            cell(refused, name, "got: %s (ctx %p)", text, (void *)ctx);
            gk5_ctx_free(ctx);
        }
        if (hl->protocol == 0) {
            printf("# Heimdal's %s lucid: protocol 0, sign_alg %u seal_alg "
                   "%u, key type %u\n",
                   role, hl->rfc1964_kd.sign_alg, hl->rfc1964_kd.seal_alg,
                   hl->rfc1964_kd.ctx_key.type);
        }
        lucid_free(hl);
    }

cleanup:
    (void)gss_delete_sec_context(&minor, &init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &acc, GSS_C_NO_BUFFER);
    init_cred_free(H, &ic);
}

int main(int argc, char **argv)
{
    /* gk5's RFC 4121 enctypes first, then the others gk5 knows. */
    static const int32_t candidates[] = {18, 17, 20, 19, 26, 25, 16, 23};
    const char *dir = getenv("GK5_REALM_DIR");
    struct world W;
    char err[1024];
    int ret = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    int argi = 1;
    const char *dump_path = NULL;
    if (argi < argc && strcmp(argv[argi], "--quick") == 0) {
        g_quick = true;
        argi++;
    } else if (argi + 1 < argc && strcmp(argv[argi], "--dump") == 0) {
        dump_path = argv[argi + 1];
        argi += 2;
    }
    const char *peer_path = argi < argc ? argv[argi] : NULL;
    if (argi + 1 != argc || peer_path[0] == '-') {
        fprintf(stderr, "usage: test_heimdal [--quick | --dump FILE] "
                        "MIT_PEER\n"
                        "(run through gk5 realm run --tap --)\n");
        return 2;
    }
    if (dir == NULL || dir[0] == '\0') {
        printf("1..0 # SKIP GK5_REALM_DIR is not set: run through "
               "gk5 realm run --tap -- test_heimdal MIT_PEER\n");
        return 0;
    }
    /* A dead mit_peer must fail a call, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    memset(&W, 0, sizeof(W));
    W.rm.pid = -1;
    if (heim_setup(&W.H, dir, err, sizeof(err)) != 0) {
        printf("Bail out! %s\n", err);
        goto done;
    }
    if (dump_path != NULL) {
        W.dump = fopen(dump_path, "w");
        if (W.dump == NULL) {
            printf("Bail out! cannot write %s\n", dump_path);
            goto done;
        }
        fputs(dump_header, W.dump);
    }
    if (remote_start(&W.rm, peer_path) != 0) {
        printf("Bail out! cannot start %s: %s\n", peer_path, strerror(errno));
        goto done;
    }
    if (!g_quick) {
        /* gk5's own acceptor, on the realm's service keytab.  A memory-only
         * replay cache refuses, for one skew, authenticators stamped no
         * later than the second it was made in (the restart guard):
         * Heimdal's first comes in a later second. */
        char kt[600];
        uint32_t am = 0;
        snprintf(kt, sizeof(kt), "FILE:%s/service.keytab", dir);
        gk5_acceptor_opts ao = {.keytab = kt, .principal = "gk5@localhost"};
        if (gk5_acceptor_cred_new(&am, &ao, &W.acred) != GK5_S_COMPLETE) {
            snprintf(W.acred_err, sizeof(W.acred_err),
                     "gk5_acceptor_cred_new(%.300s): %s", kt,
                     gk5_display_status(GK5_S_NO_CRED, am));
            W.acred = NULL;
        }
        for (time_t made = time(NULL); time(NULL) <= made;) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    printf("# Heimdal %s (pkg-config heimdal-gssapi) beside gk5 %s; MIT in "
           "%s (pid %d); realm %s%s\n",
           HEIMDAL_VERSION, gk5_version(), peer_path, (int)W.rm.pid, dir,
           g_quick ? "; --quick" : "");

    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        int32_t et = candidates[i];
        uint32_t gk5_state = gk5_enctype_check(et);
        char nm[160];
        if (g_quick && et != 18) {
            continue;
        }
        if (krb5_enctype_valid(W.H.kc, et) != 0) {
            snprintf(nm, sizeof(nm), "%s(%d) with Heimdal", enctype_name(et),
                     (int)et);
            skip_cell(nm, "Heimdal's krb5 does not know this enctype "
                          "(krb5_enctype_valid refuses it)");
            continue;
        }
        if (GK5_ERR_CODE(gk5_state) == GK5_ERR_ENCTYPE_REJECTED) {
            run_refusal(&W, et, GK5_ERR_ENCTYPE_REJECTED, "RFC 8429");
            continue;
        }
        if (GK5_ERR_CODE(gk5_state) == GK5_ERR_ENCTYPE_NOT_BUILT) {
            run_refusal(&W, et, GK5_ERR_ENCTYPE_NOT_BUILT, "not built");
            continue;
        }
        for (int kind = 0; kind < K__COUNT; kind++) {
            for (int path = 0; path < (g_quick ? 1 : 2); path++) {
                run_case(&W, et, (enum kind)kind, path == 1, true);
            }
        }
        /* Without mutual authentication (no AP-REP, no acceptor subkey):
         * one enctype. */
        if (et == 18 && !g_quick) {
            for (int kind = 0; kind < K__COUNT; kind++) {
                for (int path = 0; path < 2; path++) {
                    run_case(&W, et, (enum kind)kind, path == 1, false);
                }
            }
        }
        /* Heimdal's initiator against gk5's own acceptor (gk5_accept). */
        if (!g_quick) {
            run_native_accept(&W, et, true);
            if (et == 18) {
                run_native_accept(&W, et, false);
            }
        }
    }

    printf("# What Heimdal did differently from MIT:\n");
    for (int q = 0; q < Q__COUNT; q++) {
        if (g_quirk_seen[q]) {
            printf("#   - %s\n", g_quirk_text[q]);
        }
    }
    if (W.dump != NULL) {
        printf("# --dump: %u AP-REQs written to %s\n", W.dumped, dump_path);
    }
    ret = tap_finish();

done:
    if (W.dump != NULL) {
        fclose(W.dump);
    }
    gk5_acceptor_cred_free(W.acred);
    remote_stop(&W.rm);
    heim_teardown(&W.H);
    return ret;
}
