/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * interposer_bench: MIT GSS-API per-message calls timed in this process,
 * for bench/interposer_bench.sh, which runs it twice in one throwaway
 * realm: once plain (MIT's krb5 mechanism does the calls) and once with
 * GSS_MECH_CONFIG naming gk5_mech.so (the same calls, served by gk5 through
 * MIT's mechglue).  With --direct it also times gk5 called directly on the
 * same contexts (moved into gk5 by gk5_ctx_from_mit, a lucid export), so
 * that the interposer's own cost shows in one process.
 *
 *   interposer_bench --label L [--direct] [--seconds S] [--enctypes LIST]
 *   interposer_bench --label L --accept N [--enctypes LIST]
 *
 * LIST: aes128-sha1, aes256-sha1, aes128-sha256, aes256-sha384,
 * camellia128, camellia256 or their numbers, comma-separated (default:
 * all); anything else is refused with exit status 2.
 * Prints one CSV line per cell: label,enctype,op,size,MB/s.  With
 * --accept: N AP-REQs made first (MIT's initiator, mutual authentication),
 * then only gss_accept_sec_context timed on each, in a fresh context,
 * with the initiator's name asked for and released:
 * label,enctype,accept,N,microseconds per accept (MIT's acceptor, MIT's
 * with the interposer's takeover, or gk5's own behind [accept=native],
 * as the process's GSS_MECH_CONFIG says).  The context
 * pair is established in this process with MIT's GSS-API (initiator from
 * GK5_REALM_DIR/client.keytab, acceptor from service.keytab, target
 * gk5@localhost), one session-key enctype at a time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/gk5.h>
#include <gk5/mit.h>

static const char *label = "mit";
static int accept_n;
static double seconds = 0.3;
static int direct;

static const size_t sizes[] = {1024, 16384, 1048576};
static const struct {
    const char *name;
    int32_t etype;
} enctypes[] = {
    {"aes128-sha1", 17},   {"aes256-sha1", 18}, {"aes128-sha256", 19},
    {"aes256-sha384", 20}, {"camellia128", 25}, {"camellia256", 26},
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, OM_uint32 major, OM_uint32 minor)
{
    OM_uint32 ctx = 0, tmp;
    gss_buffer_desc w = GSS_C_EMPTY_BUFFER;

    fprintf(stderr, "interposer_bench: %s failed: major 0x%x", what, major);
    if (!GSS_ERROR(gss_display_status(&tmp, minor, GSS_C_MECH_CODE,
                                      GSS_C_NO_OID, &ctx, &w))) {
        fprintf(stderr, ": %.*s", (int)w.length, (const char *)w.value);
        (void)gss_release_buffer(&tmp, &w);
    }
    fputc('\n', stderr);
    exit(1);
}

/* The initiator's credential (client.keytab, session keys of etype
 * only), the acceptor's (service.keytab) and the target's name. */
static void creds(int32_t etype, gss_cred_id_t *icred, gss_cred_id_t *acred,
                  gss_name_t *target)
{
    const char *dir = getenv("GK5_REALM_DIR");
    char ckt[512], skt[512], cc[64];
    gss_key_value_element_desc ie[2], ae[1];
    gss_key_value_set_desc is = {2, ie}, as = {1, ae};
    gss_buffer_desc nb;
    OM_uint32 major, minor;
    krb5_enctype et = etype;

    if (dir == NULL) {
        fprintf(stderr, "interposer_bench: run inside gk5 realm run\n");
        exit(2);
    }
    snprintf(ckt, sizeof(ckt), "%s/client.keytab", dir);
    snprintf(skt, sizeof(skt), "%s/service.keytab", dir);
    snprintf(cc, sizeof(cc), "MEMORY:iba-%d", (int)etype);
    ie[0] = (gss_key_value_element_desc){"client_keytab", ckt};
    ie[1] = (gss_key_value_element_desc){"ccache", cc};
    ae[0] = (gss_key_value_element_desc){"keytab", skt};
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &is, icred, NULL, NULL);
    if (GSS_ERROR(major)) {
        die("gss_acquire_cred_from (initiator)", major, minor);
    }
    major = gss_krb5_set_allowable_enctypes(&minor, *icred, 1, &et);
    if (GSS_ERROR(major)) {
        die("gss_krb5_set_allowable_enctypes", major, minor);
    }
    major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &as, acred, NULL, NULL);
    if (GSS_ERROR(major)) {
        die("gss_acquire_cred_from (acceptor)", major, minor);
    }
    nb.value = (void *)"gk5@localhost";
    nb.length = strlen(nb.value);
    major = gss_import_name(&minor, &nb, GSS_C_NT_HOSTBASED_SERVICE, target);
    if (GSS_ERROR(major)) {
        die("gss_import_name", major, minor);
    }
}

/* An initiator and an acceptor context of MIT's GSS-API (interposed when
 * the process has the interposer configured) with session key etype. */
static void establish(int32_t etype, gss_ctx_id_t *ic, gss_ctx_id_t *ac)
{
    gss_cred_id_t icred = GSS_C_NO_CREDENTIAL, acred = GSS_C_NO_CREDENTIAL;
    gss_buffer_desc t1 = GSS_C_EMPTY_BUFFER, t2 = GSS_C_EMPTY_BUFFER;
    gss_name_t target = GSS_C_NO_NAME;
    OM_uint32 major, minor, tmp;

    creds(etype, &icred, &acred, &target);
    *ic = *ac = GSS_C_NO_CONTEXT;
    major = gss_init_sec_context(
        &minor, icred, ic, target, (gss_OID)gss_mech_krb5,
        GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |
            GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG,
        0, GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, &t1, NULL, NULL);
    if (major != GSS_S_CONTINUE_NEEDED) {
        die("gss_init_sec_context", major, minor);
    }
    major = gss_accept_sec_context(&minor, ac, acred, &t1,
                                   GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL, &t2,
                                   NULL, NULL, NULL);
    if (major != GSS_S_COMPLETE) {
        die("gss_accept_sec_context", major, minor);
    }
    (void)gss_release_buffer(&tmp, &t1);
    major = gss_init_sec_context(
        &minor, icred, ic, target, (gss_OID)gss_mech_krb5, 0, 0,
        GSS_C_NO_CHANNEL_BINDINGS, &t2, NULL, &t1, NULL, NULL);
    if (major != GSS_S_COMPLETE) {
        die("gss_init_sec_context (second leg)", major, minor);
    }
    (void)gss_release_buffer(&tmp, &t1);
    (void)gss_release_buffer(&tmp, &t2);
    (void)gss_release_name(&tmp, &target);
    (void)gss_release_cred(&tmp, &icred);
    (void)gss_release_cred(&tmp, &acred);
}

/* Microseconds per gss_accept_sec_context over accept_n fresh AP-REQs. */
static double run_accept(int32_t etype)
{
    gss_cred_id_t icred = GSS_C_NO_CREDENTIAL, acred = GSS_C_NO_CREDENTIAL;
    gss_name_t target = GSS_C_NO_NAME;
    gss_buffer_desc *tok = calloc((size_t)accept_n, sizeof(*tok));
    gss_ctx_id_t *acc = calloc((size_t)accept_n, sizeof(*acc));
    OM_uint32 major, minor, tmp;
    double t0, spent;

    if (tok == NULL || acc == NULL) {
        fprintf(stderr, "interposer_bench: out of memory\n");
        exit(1);
    }
    creds(etype, &icred, &acred, &target);
    for (int i = 0; i < accept_n; i++) {
        gss_ctx_id_t ic = GSS_C_NO_CONTEXT;

        major = gss_init_sec_context(
            &minor, icred, &ic, target, (gss_OID)gss_mech_krb5,
            GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |
                GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG,
            0, GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, &tok[i], NULL,
            NULL);
        if (major != GSS_S_CONTINUE_NEEDED) {
            die("gss_init_sec_context", major, minor);
        }
        (void)gss_delete_sec_context(&tmp, &ic, GSS_C_NO_BUFFER);
    }
    t0 = now();
    for (int i = 0; i < accept_n; i++) {
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        gss_name_t src = GSS_C_NO_NAME;

        /* As a server asks: the initiator's name too (released here, as
         * a server would once it has looked at it). */
        acc[i] = GSS_C_NO_CONTEXT;
        major = gss_accept_sec_context(&minor, &acc[i], acred, &tok[i],
                                       GSS_C_NO_CHANNEL_BINDINGS, &src, NULL,
                                       &out, NULL, NULL, NULL);
        if (major != GSS_S_COMPLETE) {
            die("gss_accept_sec_context", major, minor);
        }
        (void)gss_release_buffer(&tmp, &out);
        (void)gss_release_name(&tmp, &src);
    }
    spent = now() - t0;
    for (int i = 0; i < accept_n; i++) {
        (void)gss_delete_sec_context(&tmp, &acc[i], GSS_C_NO_BUFFER);
        (void)gss_release_buffer(&tmp, &tok[i]);
    }
    free(tok);
    free(acc);
    (void)gss_release_name(&tmp, &target);
    (void)gss_release_cred(&tmp, &icred);
    (void)gss_release_cred(&tmp, &acred);
    return spent * 1e6 / accept_n;
}

enum op { OP_WRAP, OP_UNWRAP, OP_MIC, OP_VERIFY };
static const char *const op_names[] = {"wrap", "unwrap", "get_mic",
                                       "verify_mic"};

/* MB/s of op on size-byte messages through MIT's API: the sender makes
 * the tokens, the receiver takes them (unwrap and verify need fresh
 * sequence numbers, so tokens are made in batches ahead, untimed). */
static double run_gss(gss_ctx_id_t snd, gss_ctx_id_t rcv, enum op op,
                      size_t size)
{
    enum { BATCH = 64 };
    gss_buffer_desc msg = {size, calloc(1, size)}, tok[BATCH], out;
    OM_uint32 major = 0, minor, tmp;
    double t0, spent = 0;
    unsigned long n = 0;

    if (msg.value == NULL) {
        exit(1);
    }
    while (spent < seconds) {
        for (int i = 0; i < BATCH; i++) {
            tok[i] = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
        }
        if (op == OP_UNWRAP || op == OP_VERIFY) {
            for (int i = 0; i < BATCH; i++) {
                major = op == OP_UNWRAP
                            ? gss_wrap(&minor, snd, 1, 0, &msg, NULL, &tok[i])
                            : gss_get_mic(&minor, snd, 0, &msg, &tok[i]);
                if (GSS_ERROR(major)) {
                    die("making tokens", major, minor);
                }
            }
        }
        t0 = now();
        for (int i = 0; i < BATCH; i++) {
            out = (gss_buffer_desc)GSS_C_EMPTY_BUFFER;
            switch (op) {
            case OP_WRAP:
                major = gss_wrap(&minor, snd, 1, 0, &msg, NULL, &out);
                break;
            case OP_MIC:
                major = gss_get_mic(&minor, snd, 0, &msg, &out);
                break;
            case OP_UNWRAP:
                major = gss_unwrap(&minor, rcv, &tok[i], &out, NULL, NULL);
                break;
            case OP_VERIFY:
                major = gss_verify_mic(&minor, rcv, &msg, &tok[i], NULL);
                break;
            }
            if (GSS_ERROR(major)) {
                die(op_names[op], major, minor);
            }
            (void)gss_release_buffer(&tmp, &out);
        }
        spent += now() - t0;
        n += BATCH;
        for (int i = 0; i < BATCH; i++) {
            (void)gss_release_buffer(&tmp, &tok[i]);
        }
    }
    free(msg.value);
    return (double)n * (double)size / spent / 1e6;
}

/* The same through gk5 called directly. */
static double run_gk5(gk5_ctx *snd, gk5_ctx *rcv, enum op op, size_t size)
{
    enum { BATCH = 64 };
    gk5_buffer msg = {size, calloc(1, size)}, tok[BATCH], out;
    uint32_t major = 0, minor;
    double t0, spent = 0;
    unsigned long n = 0;

    if (msg.value == NULL) {
        exit(1);
    }
    while (spent < seconds) {
        memset(tok, 0, sizeof(tok));
        if (op == OP_UNWRAP || op == OP_VERIFY) {
            for (int i = 0; i < BATCH; i++) {
                major = op == OP_UNWRAP
                            ? gk5_wrap(&minor, snd, 1, 0, &msg, NULL, &tok[i])
                            : gk5_get_mic(&minor, snd, 0, &msg, &tok[i]);
                if (GK5_ERROR(major)) {
                    fprintf(stderr, "gk5: %s\n",
                            gk5_display_status(major, minor));
                    exit(1);
                }
            }
        }
        t0 = now();
        for (int i = 0; i < BATCH; i++) {
            memset(&out, 0, sizeof(out));
            switch (op) {
            case OP_WRAP:
                major = gk5_wrap(&minor, snd, 1, 0, &msg, NULL, &out);
                break;
            case OP_MIC:
                major = gk5_get_mic(&minor, snd, 0, &msg, &out);
                break;
            case OP_UNWRAP:
                major = gk5_unwrap(&minor, rcv, &tok[i], &out, NULL, NULL);
                break;
            case OP_VERIFY:
                major = gk5_verify_mic(&minor, rcv, &msg, &tok[i], NULL);
                break;
            }
            if (GK5_ERROR(major)) {
                fprintf(stderr, "gk5 %s: %s\n", op_names[op],
                        gk5_display_status(major, minor));
                exit(1);
            }
            gk5_buffer_release(&out);
        }
        spent += now() - t0;
        n += BATCH;
        for (int i = 0; i < BATCH; i++) {
            gk5_buffer_release(&tok[i]);
        }
    }
    free(msg.value);
    return (double)n * (double)size / spent / 1e6;
}

/* --enctypes LIST: names of the table above or their numbers, comma-
 * separated, into a mask over the table; false (and a message) for an item
 * that is neither. */
static bool parse_enctypes(const char *list, unsigned *mask)
{
    const char *p = list;

    *mask = 0;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        bool found = false;

        for (size_t e = 0; e < sizeof(enctypes) / sizeof(enctypes[0]); e++) {
            char num[16];

            snprintf(num, sizeof(num), "%d", (int)enctypes[e].etype);
            if ((strlen(enctypes[e].name) == len &&
                 strncmp(p, enctypes[e].name, len) == 0) ||
                (strlen(num) == len && strncmp(p, num, len) == 0)) {
                *mask |= 1u << e;
                found = true;
            }
        }
        if (!found) {
            fprintf(stderr,
                    "interposer_bench: --enctypes: '%.*s' is not one of "
                    "aes128-sha1 (17), aes256-sha1 (18), aes128-sha256 (19), "
                    "aes256-sha384 (20), camellia128 (25), camellia256 (26)\n",
                    (int)len, p);
            return false;
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
    if (*mask == 0) {
        fprintf(stderr, "interposer_bench: --enctypes: an empty list\n");
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    unsigned only = ~0u;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            label = argv[++i];
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--enctypes") == 0 && i + 1 < argc) {
            if (!parse_enctypes(argv[++i], &only)) {
                return 2;
            }
        } else if (strcmp(argv[i], "--direct") == 0) {
            direct = 1;
        } else if (strcmp(argv[i], "--accept") == 0 && i + 1 < argc) {
            accept_n = atoi(argv[++i]);
            if (accept_n < 1 || accept_n > 1000000) {
                fprintf(stderr, "interposer_bench: --accept takes 1 to "
                                "1000000\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: interposer_bench --label L [--direct] "
                            "[--seconds S] [--enctypes a,b] [--accept N]\n");
            return 2;
        }
    }
    if (seconds <= 0 || seconds > 60) {
        seconds = 0.3;
    }
    for (size_t e = 0; e < sizeof(enctypes) / sizeof(enctypes[0]); e++) {
        gss_ctx_id_t ic, ac;
        OM_uint32 tmp;

        if ((only & (1u << e)) == 0) {
            continue;
        }
        if (accept_n > 0) {
            printf("%s,%s,accept,%d,%.1f\n", label, enctypes[e].name, accept_n,
                   run_accept(enctypes[e].etype));
            fflush(stdout);
            continue;
        }
        establish(enctypes[e].etype, &ic, &ac);
        for (int op = OP_WRAP; op <= OP_VERIFY; op++) {
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                printf("%s,%s,%s,%zu,%.1f\n", label, enctypes[e].name,
                       op_names[op], sizes[s],
                       run_gss(ic, ac, (enum op)op, sizes[s]));
                fflush(stdout);
            }
        }
        if (direct) {
            gk5_ctx *gi = NULL, *ga = NULL;
            uint32_t m1, m2;
            if (GK5_ERROR(gk5_ctx_from_mit(&m1, &ic, &gi)) ||
                GK5_ERROR(gk5_ctx_from_mit(&m2, &ac, &ga))) {
                fprintf(stderr, "interposer_bench: gk5_ctx_from_mit failed\n");
                return 1;
            }
            for (int op = OP_WRAP; op <= OP_VERIFY; op++) {
                for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                    printf("%s-direct,%s,%s,%zu,%.1f\n", label,
                           enctypes[e].name, op_names[op], sizes[s],
                           run_gk5(gi, ga, (enum op)op, sizes[s]));
                    fflush(stdout);
                }
            }
            gk5_ctx_free(gi);
            gk5_ctx_free(ga);
        }
        (void)gss_delete_sec_context(&tmp, &ic, GSS_C_NO_BUFFER);
        (void)gss_delete_sec_context(&tmp, &ac, GSS_C_NO_BUFFER);
    }
    return 0;
}
