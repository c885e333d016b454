/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * mit_roundtrip: a context established by MIT krb5's GSS-API, handed to
 * gk5 for the per-message work.
 *
 * Both ends run in this one process so that the example needs nothing but
 * a realm: the initiator is plain MIT GSS-API code, as an existing program
 * already has it (gss_init_sec_context() until complete), then
 * gk5_ctx_from_mit() takes the context over; the acceptor uses libgk5_mit's
 * helpers (gk5_mit_acceptor_*), which do the same for a server.  After
 * that every token is gk5's:
 *
 *   1. the initiator seals a message; the acceptor unwraps it
 *   2. the acceptor seals a reply; the initiator unwraps it
 *   3. a reply with one bit flipped is refused (GSS_S_BAD_SIG)
 *
 *     mit_roundtrip SERVICE@HOST [KEYTAB]
 *
 * SERVICE@HOST names the acceptor (e.g. nfs@server.example.org); KEYTAB
 * holds its key (default: KRB5_KTNAME or /etc/krb5.keytab).  The
 * initiator uses MIT's default credentials: the ccache of kinit
 * (KRB5CCNAME), or initial credentials MIT gets from the client keytab
 * named by KRB5_CLIENT_KTNAME.  gk5's tests run it in a throwaway realm
 * (`gk5 realm run`).
 *
 * Build against an installed gk5:
 *
 *     cc -o mit_roundtrip mit_roundtrip.c \
 *         $(pkg-config --cflags --libs gk5-mit)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_krb5.h>

#include <gk5/mit.h>

/* Words for a status of one of MIT's own calls (gss_init_sec_context):
 * RFC 2744's gss_display_status loop, major words then MIT's minor. */
static void report_mit(const char *what, OM_uint32 major, OM_uint32 minor)
{
    const struct {
        OM_uint32 code;
        int type;
    } parts[] = {{major, GSS_C_GSS_CODE}, {minor, GSS_C_MECH_CODE}};
    const char *sep = " ";

    fprintf(stderr, "%s:", what);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        OM_uint32 ctx = 0;

        if (parts[i].type == GSS_C_MECH_CODE && parts[i].code == 0) {
            continue;
        }
        do {
            gss_buffer_desc words = GSS_C_EMPTY_BUFFER;
            OM_uint32 m = 0;

            if (GSS_ERROR(gss_display_status(&m, parts[i].code, parts[i].type,
                                             GSS_C_NO_OID, &ctx, &words))) {
                break;
            }
            fprintf(stderr, "%s%.*s", sep, (int)words.length,
                    (const char *)words.value);
            sep = "; ";
            (void)gss_release_buffer(&m, &words);
        } while (ctx != 0);
    }
    fprintf(stderr, "\n");
}

/* Words for a status of a gk5 or libgk5_mit call: gk5's words, and for an
 * MIT failure inside libgk5_mit (minor GK5_ERR_MIT) also the MIT call that
 * failed and MIT's words. */
static void report(const char *what, uint32_t major, uint32_t minor)
{
    fprintf(stderr, "%s: %s: %s\n", what, gk5_major_name(major),
            gk5_mit_display_status(major, minor));
}

/* The token exchange.  The initiator speaks first; each side's output is
 * the other's input until the initiator says GSS_S_COMPLETE.  With mutual
 * authentication that is two legs: AP-REQ, then AP-REP. */
static int establish(gss_name_t target, gk5_mit_acceptor *acc,
                     gss_ctx_id_t *mit_init)
{
    /* Mutual authentication, and the services the per-message calls need. */
    const OM_uint32 req_flags = GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG |
                                GSS_C_CONF_FLAG | GSS_C_REPLAY_FLAG |
                                GSS_C_SEQUENCE_FLAG;
    gk5_buffer from_acceptor = {0, NULL};
    uint32_t acc_major = GK5_S_CONTINUE_NEEDED;
    int ret = -1;

    for (int leg = 0; leg < 10; leg++) {
        gss_buffer_desc in = {from_acceptor.length, from_acceptor.value};
        gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0;
        OM_uint32 rel = 0;
        OM_uint32 major;

        major = gss_init_sec_context(&minor, GSS_C_NO_CREDENTIAL, mit_init,
                                     target, gss_mech_krb5, req_flags, 0,
                                     GSS_C_NO_CHANNEL_BINDINGS, &in, NULL, &out,
                                     NULL, NULL);
        gk5_buffer_release(&from_acceptor);
        if (GSS_ERROR(major)) {
            report_mit("gss_init_sec_context", major, minor);
            (void)gss_release_buffer(&rel, &out);
            goto cleanup;
        }
        if (out.length > 0) {
            gk5_buffer to_acceptor = {out.length, out.value};
            uint32_t gk5_minor = 0;

            acc_major = gk5_mit_acceptor_step(&gk5_minor, acc, &to_acceptor,
                                              &from_acceptor);
            (void)gss_release_buffer(&rel, &out);
            if (GK5_ERROR(acc_major)) {
                report("gk5_mit_acceptor_step", acc_major, gk5_minor);
                goto cleanup;
            }
        }
        if (major == GSS_S_COMPLETE) {
            if (acc_major != GK5_S_COMPLETE) {
                fprintf(stderr, "the initiator finished before the "
                                "acceptor\n");
                goto cleanup;
            }
            printf("established in %d legs\n", leg + 1);
            ret = 0;
            goto cleanup;
        }
    }
    fprintf(stderr, "no context after 10 legs\n");

cleanup:
    gk5_buffer_release(&from_acceptor);
    return ret;
}

/* Seal text on one end and unwrap it on the other; prints what arrived. */
static int send_sealed(gk5_ctx *from, gk5_ctx *to, char *text,
                       const char *label)
{
    gk5_buffer msg = {strlen(text), text};
    gk5_buffer token = {0, NULL};
    gk5_buffer plain = {0, NULL};
    uint32_t minor = 0;
    uint32_t major;
    int conf_state = 0;
    int ret = -1;

    major =
        gk5_wrap(&minor, from, 1, GK5_QOP_DEFAULT, &msg, &conf_state, &token);
    if (GK5_ERROR(major)) {
        report("gk5_wrap", major, minor);
        goto cleanup;
    }
    /* A replayed or reordered token is GK5_S_COMPLETE plus a supplementary
     * bit, not an error: test both. */
    major = gk5_unwrap(&minor, to, &token, &plain, &conf_state, NULL);
    if (GK5_ERROR(major) || GK5_SUPPLEMENTARY_INFO(major)) {
        report("gk5_unwrap", major, minor);
        goto cleanup;
    }
    printf("%-10s \"%.*s\" (%zu-byte %s token)\n", label, (int)plain.length,
           (const char *)plain.value, token.length,
           conf_state ? "sealed" : "integrity-only");
    ret = 0;

cleanup:
    gk5_buffer_release(&plain);
    gk5_buffer_release(&token);
    return ret;
}

int main(int argc, char **argv)
{
    char hello[] = "Hello from the initiator";
    char reply[] = "Hello back from the acceptor";
    char forged[] = "This reply was changed on the way";
    gss_buffer_desc target_text;
    gss_name_t target = GSS_C_NO_NAME;
    gss_ctx_id_t mit_init = GSS_C_NO_CONTEXT;
    gk5_mit_acceptor_cred *cred = NULL;
    gk5_mit_acceptor *acc = NULL;
    gk5_ctx *initiator = NULL;
    gk5_ctx *acceptor = NULL;
    gk5_ctx_info info;
    gk5_buffer msg = {strlen(forged), forged};
    gk5_buffer token = {0, NULL};
    gk5_buffer plain = {0, NULL};
    char *client = NULL;
    int32_t enctype = 0;
    OM_uint32 mit_minor = 0;
    OM_uint32 mit_major;
    uint32_t minor = 0;
    uint32_t major;
    int ret = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: mit_roundtrip SERVICE@HOST [KEYTAB]\n");
        return 2;
    }

    /* ---- The acceptor's credential: its key from the keytab ---- */
    major = gk5_mit_acceptor_cred_create(&minor, argc > 2 ? argv[2] : NULL,
                                         argv[1], &cred);
    if (GK5_ERROR(major)) {
        report("gk5_mit_acceptor_cred_create", major, minor);
        goto cleanup;
    }
    major = gk5_mit_acceptor_create(&minor, cred, &acc);
    if (GK5_ERROR(major)) {
        report("gk5_mit_acceptor_create", major, minor);
        goto cleanup;
    }

    /* ---- The initiator: MIT's GSS-API, as any MIT program does it ---- */
    target_text.value = argv[1];
    target_text.length = strlen(argv[1]);
    mit_major = gss_import_name(&mit_minor, &target_text,
                                GSS_C_NT_HOSTBASED_SERVICE, &target);
    if (GSS_ERROR(mit_major)) {
        report_mit("gss_import_name", mit_major, mit_minor);
        goto cleanup;
    }
    if (establish(target, acc, &mit_init) != 0) {
        goto cleanup;
    }

    /* ---- Hand both ends to gk5 ----
     * gk5_ctx_from_mit() exports MIT's context as a lucid context, which
     * consumes it (mit_init is GSS_C_NO_CONTEXT afterwards, as after
     * rpc.gssd), and imports it.  An rc4-hmac session key is refused here
     * with GSS_S_UNAVAILABLE and words naming RFC 8429. */
    major = gk5_ctx_from_mit(&minor, &mit_init, &initiator);
    if (GK5_ERROR(major)) {
        report("gk5_ctx_from_mit", major, minor);
        goto cleanup;
    }
    /* The helper's finish step does the same for the acceptor and also
     * says who the client is. */
    major = gk5_mit_acceptor_finish(&minor, acc, &client, NULL, &enctype,
                                    &acceptor);
    if (GK5_ERROR(major)) {
        report("gk5_mit_acceptor_finish", major, minor);
        goto cleanup;
    }
    major = gk5_ctx_inquire(&minor, initiator, &info);
    if (GK5_ERROR(major)) {
        report("gk5_ctx_inquire", major, minor);
        goto cleanup;
    }
    printf("client:    %s\n", client);
    printf("enctype:   %s (%d)%s\n", info.enctype_name, (int)info.enctype,
           info.acceptor_subkey ? ", acceptor subkey" : "");

    /* ---- 1 and 2: sealed messages both ways ---- */
    if (send_sealed(initiator, acceptor, hello, "acceptor:") != 0 ||
        send_sealed(acceptor, initiator, reply, "initiator:") != 0) {
        goto cleanup;
    }

    /* ---- 3. A reply changed in transit: one bit of its checksum ---- */
    major = gk5_wrap(&minor, acceptor, 1, GK5_QOP_DEFAULT, &msg, NULL, &token);
    if (GK5_ERROR(major)) {
        report("gk5_wrap", major, minor);
        goto cleanup;
    }
    ((uint8_t *)token.value)[token.length - 1] ^= 0x01;
    major = gk5_unwrap(&minor, initiator, &token, &plain, NULL, NULL);
    if (major != GK5_S_BAD_SIG) {
        report("the changed token was not refused", major, minor);
        goto cleanup;
    }
    printf("tamper:    refused: %s: %s\n", gk5_major_name(major),
           gk5_mit_display_status(major, minor));

    printf("ok\n");
    ret = 0;

cleanup:
    gk5_buffer_release(&plain);
    gk5_buffer_release(&token);
    free(client);
    gk5_ctx_free(acceptor);
    gk5_ctx_free(initiator);
    gk5_mit_acceptor_free(acc); /* NULL is fine for all of these */
    gk5_mit_acceptor_cred_free(cred);
    (void)gss_delete_sec_context(&mit_minor, &mit_init, GSS_C_NO_BUFFER);
    (void)gss_release_name(&mit_minor, &target);
    return ret;
}
