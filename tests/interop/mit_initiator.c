/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * mit_initiator: MIT's GSS-API initiator, one token per file, for the
 * test of `gk5 accept` (test_cli_accept.sh).
 *
 *   mit_initiator --target SERVICE@HOST --client-keytab FILE
 *                 --principal NAME --out APREQ [--no-mutual]
 *                 [--reply APREP] [--wrap FILE] [--mic FILE]
 *                 [--unwrap FILE] < MESSAGE
 *
 * Initial credentials come from the client keytab into a MEMORY: ccache.
 * It writes the AP-REQ token (gss_init_sec_context) to --out; with mutual
 * authentication (the default) it waits for the file --reply to appear
 * and takes the AP-REP from it.  Then MESSAGE (stdin) is sealed with
 * gss_wrap into --wrap and signed with gss_get_mic into --mic, and, with
 * --unwrap, it waits for that file (a Wrap token from the acceptor) and
 * writes its message on stdout.
 *
 * Every file is written to a temporary name and renamed, so that the
 * other side sees it whole once it exists; a file waited for is read once
 * it exists.  Waits end after 60 s.  Exit status: 0, 1 (MIT's words on
 * stderr), 2 bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#define WAIT_S 60

static void mit_words(const char *what, OM_uint32 major, OM_uint32 minor)
{
    OM_uint32 rel, ctx = 0;
    gss_buffer_desc buf = GSS_C_EMPTY_BUFFER;

    fprintf(stderr, "mit_initiator: %s:", what);
    do {
        if (GSS_ERROR(gss_display_status(&rel, major, GSS_C_GSS_CODE,
                                         GSS_C_NO_OID, &ctx, &buf))) {
            break;
        }
        fprintf(stderr, " %.*s", (int)buf.length, (char *)buf.value);
        (void)gss_release_buffer(&rel, &buf);
    } while (ctx != 0);
    ctx = 0;
    do {
        if (GSS_ERROR(gss_display_status(&rel, minor, GSS_C_MECH_CODE,
                                         (gss_OID)gss_mech_krb5, &ctx, &buf))) {
            break;
        }
        fprintf(stderr, "; %.*s", (int)buf.length, (char *)buf.value);
        (void)gss_release_buffer(&rel, &buf);
    } while (ctx != 0);
    fputc('\n', stderr);
}

static int write_file(const char *path, const void *p, size_t n)
{
    char tmp[4096];
    FILE *f;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
        return -1;
    }
    f = fopen(tmp, "wb");
    if (f == NULL) {
        fprintf(stderr, "mit_initiator: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if ((n != 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "mit_initiator: %s: write error\n", tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "mit_initiator: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int read_stream(FILE *f, gss_buffer_desc *out)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);

    while (buf != NULL) {
        size_t got;

        if (n == cap) {
            char *bigger = realloc(buf, cap * 2);

            if (bigger == NULL) {
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                break;
            }
            out->value = buf;
            out->length = n;
            return 0;
        }
    }
    free(buf);
    return -1;
}

/* Wait for path to exist, then read it whole. */
static int wait_read(const char *path, gss_buffer_desc *out)
{
    struct timespec tick = {0, 20 * 1000 * 1000};
    struct stat st;
    FILE *f;
    int ret;

    for (int i = 0; stat(path, &st) != 0; i++) {
        if (i >= WAIT_S * 50) {
            fprintf(stderr, "mit_initiator: %s did not appear in %d s\n", path,
                    WAIT_S);
            return -1;
        }
        nanosleep(&tick, NULL);
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "mit_initiator: %s: %s\n", path, strerror(errno));
        return -1;
    }
    ret = read_stream(f, out);
    fclose(f);
    if (ret != 0) {
        fprintf(stderr, "mit_initiator: %s: read error\n", path);
    }
    return ret;
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: mit_initiator --target SERVICE@HOST --client-keytab FILE\n"
        "           --principal NAME --out APREQ [--no-mutual] "
        "[--reply APREP]\n"
        "           [--wrap FILE] [--mic FILE] [--unwrap FILE] < MESSAGE\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"target", required_argument, NULL, 't'},
        {"client-keytab", required_argument, NULL, 'k'},
        {"principal", required_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'o'},
        {"no-mutual", no_argument, NULL, 'n'},
        {"reply", required_argument, NULL, 'r'},
        {"wrap", required_argument, NULL, 'w'},
        {"mic", required_argument, NULL, 'm'},
        {"unwrap", required_argument, NULL, 'u'},
        {NULL, 0, NULL, 0},
    };
    const char *target = NULL, *keytab = NULL, *principal = NULL;
    const char *out_path = NULL, *reply_path = NULL, *wrap_path = NULL;
    const char *mic_path = NULL, *unwrap_path = NULL;
    OM_uint32 flags = GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG |
                      GSS_C_SEQUENCE_FLAG | GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG;
    OM_uint32 major, minor, rel;
    gss_key_value_element_desc elems[2];
    gss_key_value_set_desc store = {0, elems};
    gss_name_t client = GSS_C_NO_NAME, service = GSS_C_NO_NAME;
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;
    gss_buffer_desc in = GSS_C_EMPTY_BUFFER, out = GSS_C_EMPTY_BUFFER;
    gss_buffer_desc msg = GSS_C_EMPTY_BUFFER, name;
    int c, conf = 0, ret = 1;

    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            target = optarg;
            break;
        case 'k':
            keytab = optarg;
            break;
        case 'p':
            principal = optarg;
            break;
        case 'o':
            out_path = optarg;
            break;
        case 'n':
            flags &= ~(OM_uint32)GSS_C_MUTUAL_FLAG;
            break;
        case 'r':
            reply_path = optarg;
            break;
        case 'w':
            wrap_path = optarg;
            break;
        case 'm':
            mic_path = optarg;
            break;
        case 'u':
            unwrap_path = optarg;
            break;
        default:
            usage();
            return 2;
        }
    }
    if (optind != argc || target == NULL || keytab == NULL ||
        principal == NULL || out_path == NULL ||
        ((flags & GSS_C_MUTUAL_FLAG) != 0 && reply_path == NULL)) {
        usage();
        return 2;
    }
    if (read_stream(stdin, &msg) != 0) {
        fprintf(stderr, "mit_initiator: cannot read the message\n");
        return 1;
    }

    /* gss_import_name does not write the buffer it is given. */
    name.value = (void *)(uintptr_t)principal;
    name.length = strlen(principal);
    major = gss_import_name(&minor, &name, GSS_KRB5_NT_PRINCIPAL_NAME, &client);
    if (GSS_ERROR(major)) {
        mit_words("gss_import_name (client)", major, minor);
        goto cleanup;
    }
    name.value = (void *)(uintptr_t)target;
    name.length = strlen(target);
    major =
        gss_import_name(&minor, &name, GSS_C_NT_HOSTBASED_SERVICE, &service);
    if (GSS_ERROR(major)) {
        mit_words("gss_import_name (target)", major, minor);
        goto cleanup;
    }
    elems[store.count++] =
        (gss_key_value_element_desc){"client_keytab", keytab};
    elems[store.count++] =
        (gss_key_value_element_desc){"ccache", "MEMORY:mit_initiator"};
    major = gss_acquire_cred_from(&minor, client, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5,
                                  GSS_C_INITIATE, &store, &cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        mit_words("gss_acquire_cred_from", major, minor);
        goto cleanup;
    }

    major = gss_init_sec_context(
        &minor, cred, &ctx, service, (gss_OID)gss_mech_krb5, flags, 0,
        GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, &out, NULL, NULL);
    if (GSS_ERROR(major)) {
        mit_words("gss_init_sec_context", major, minor);
        goto cleanup;
    }
    if (write_file(out_path, out.value, out.length) != 0) {
        goto cleanup;
    }
    (void)gss_release_buffer(&rel, &out);
    if (major == GSS_S_CONTINUE_NEEDED) {
        if (wait_read(reply_path, &in) != 0) {
            goto cleanup;
        }
        major = gss_init_sec_context(
            &minor, cred, &ctx, service, (gss_OID)gss_mech_krb5, flags, 0,
            GSS_C_NO_CHANNEL_BINDINGS, &in, NULL, &out, NULL, NULL);
        free(in.value);
        in.value = NULL;
        in.length = 0;
        if (GSS_ERROR(major)) {
            mit_words("gss_init_sec_context (the AP-REP)", major, minor);
            goto cleanup;
        }
        if (major != GSS_S_COMPLETE) {
            fprintf(stderr, "mit_initiator: not complete after the AP-REP\n");
            goto cleanup;
        }
        (void)gss_release_buffer(&rel, &out);
    }

    if (wrap_path != NULL) {
        major = gss_wrap(&minor, ctx, 1, GSS_C_QOP_DEFAULT, &msg, &conf, &out);
        if (GSS_ERROR(major)) {
            mit_words("gss_wrap", major, minor);
            goto cleanup;
        }
        if (write_file(wrap_path, out.value, out.length) != 0) {
            goto cleanup;
        }
        (void)gss_release_buffer(&rel, &out);
    }
    if (mic_path != NULL) {
        major = gss_get_mic(&minor, ctx, GSS_C_QOP_DEFAULT, &msg, &out);
        if (GSS_ERROR(major)) {
            mit_words("gss_get_mic", major, minor);
            goto cleanup;
        }
        if (write_file(mic_path, out.value, out.length) != 0) {
            goto cleanup;
        }
        (void)gss_release_buffer(&rel, &out);
    }
    if (unwrap_path != NULL) {
        if (wait_read(unwrap_path, &in) != 0) {
            goto cleanup;
        }
        major = gss_unwrap(&minor, ctx, &in, &out, &conf, NULL);
        if (GSS_ERROR(major)) {
            mit_words("gss_unwrap", major, minor);
            goto cleanup;
        }
        if ((out.length != 0 &&
             fwrite(out.value, 1, out.length, stdout) != out.length) ||
            fflush(stdout) != 0) {
            fprintf(stderr, "mit_initiator: cannot write the message\n");
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    free(in.value);
    free(msg.value);
    (void)gss_release_buffer(&rel, &out);
    (void)gss_delete_sec_context(&rel, &ctx, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&rel, &cred);
    (void)gss_release_name(&rel, &client);
    (void)gss_release_name(&rel, &service);
    return ret;
}
