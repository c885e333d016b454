/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * tirpc_client: the echo program (echo_prog.h) through libtirpc's OWN
 * client, RPCSEC_GSS included (rpc_gss_seccreate on MIT's initiator), so
 * that gk5's RPCSEC_GSS server can be held against a peer gk5 did not
 * write.  Options follow `gk5 rpc echo` so a benchmark can compare them.
 *
 *   tirpc_client HOST:PORT --sec sys|krb5|krb5i|krb5p
 *       [--program N] [--version N] [--target SERVICE@HOST]
 *       [--proc null|echo|sink|source|whoami] [--size BYTES (4k, 64k, 1m)]
 *       [--calls N] [--seconds S]
 *       [--client-keytab FILE] [--client-principal NAME] [--ccache NAME]
 *       [--expect-enctype NAME|NUM] [--expect TEXT]
 *
 * Every reply is checked (ECHO: the same bytes; SINK: the length; SOURCE:
 * byte i = i % 251; WHOAMI: contains TEXT when --expect is given).  Prints
 * the line `gk5 rpc echo` prints: the service, the context's enctype,
 * calls, calls/s and MB/s (10^6 payload bytes each way per second).
 * Exit 0 when every call passed, 1 when one failed, 2 for bad usage, and
 * 77 (with a line saying SKIP and why) when libtirpc's client cannot carry
 * the request: krb5i/krb5p bodies are marshalled into its record buffer,
 * which is capped at 256 KiB (docs/design.md, "libtirpc"), so larger ones
 * are refused here instead of crashing inside libtirpc.
 *
 * Initial credentials: the ccache in KRB5CCNAME (kinit beforehand) or
 * --ccache, or with --client-keytab fresh ones from that keytab into a
 * MEMORY ccache.  The session key's enctype is whatever MIT's profile
 * negotiates (default_tgs_enctypes: the matrix narrows it with a
 * KRB5_CONFIG of its own in front of the realm's); --expect-enctype fails
 * the run when the context has another.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5.h>
#include <rpc/rpc.h>
#include <rpc/rpcsec_gss.h>

#include "echo_prog.h"

#define EXIT_SKIP 77

/* Body bytes (arguments or results, before wrapping) that libtirpc's
 * client can carry under krb5i/krb5p: its 256 KiB record buffer less room
 * for the call header, credential, verifier and the body's own MIC. */
#define TIRPC_GSS_BODY_CAP (TIRPC_BUFSZ - 4096u)

static const struct {
    const char *name;
    int32_t num;
} enctype_names[] = {
    {"des3-cbc-sha1", 16},
    {"aes128-cts-hmac-sha1-96", 17},
    {"aes256-cts-hmac-sha1-96", 18},
    {"aes128-cts-hmac-sha256-128", 19},
    {"aes256-cts-hmac-sha384-192", 20},
    {"rc4-hmac", 23},
    {"arcfour-hmac", 23},
    {"camellia128-cts-cmac", 25},
    {"camellia256-cts-cmac", 26},
};

static const char *enctype_name(int32_t num)
{
    size_t i;

    for (i = 0; i < sizeof(enctype_names) / sizeof(enctype_names[0]); i++) {
        if (enctype_names[i].num == num) {
            return enctype_names[i].name;
        }
    }
    return "unknown";
}

static int parse_enctype(const char *s, int32_t *out)
{
    size_t i;
    char *end;
    long v;

    for (i = 0; i < sizeof(enctype_names) / sizeof(enctype_names[0]); i++) {
        if (strcmp(enctype_names[i].name, s) == 0) {
            *out = enctype_names[i].num;
            return 0;
        }
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v <= 0 || v > 0xffff) {
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
        return -1;
    }
    *out = v;
    return 0;
}

/* "1024", "4k", "64K", "1m", "4M": binary units. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v, mul = 1;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-') {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        mul = 1024;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        mul = 1024 * 1024;
        end++;
    }
    if (*end != '\0' || v > ECHO_MAX_OPAQUE / mul) {
        return -1;
    }
    *out = (size_t)(v * mul);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void gss_words(const char *what, OM_uint32 major, OM_uint32 minor)
{
    OM_uint32 m, ctx = 0;
    gss_buffer_desc b = GSS_C_EMPTY_BUFFER;

    fprintf(stderr, "tirpc_client: %s failed:", what);
    do {
        if (gss_display_status(&m, major, GSS_C_GSS_CODE, GSS_C_NO_OID, &ctx,
                               &b) != GSS_S_COMPLETE) {
            break;
        }
        fprintf(stderr, " %.*s;", (int)b.length, (const char *)b.value);
        gss_release_buffer(&m, &b);
    } while (ctx != 0);
    ctx = 0;
    do {
        if (gss_display_status(&m, minor, GSS_C_MECH_CODE, GSS_C_NO_OID, &ctx,
                               &b) != GSS_S_COMPLETE) {
            break;
        }
        fprintf(stderr, " %.*s;", (int)b.length, (const char *)b.value);
        gss_release_buffer(&m, &b);
    } while (ctx != 0);
    fprintf(stderr, "\n");
}

/* The enctype of the key that protects the context's messages (the
 * acceptor subkey when there is one): MIT answers
 * GSS_C_INQ_SSPI_SESSION_KEY with the key and the OID
 * 1.2.840.113554.1.2.2.4.<enctype>.  0 if it cannot tell. */
static int32_t context_enctype(gss_ctx_id_t ctx)
{
    static const unsigned char prefix[] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                           0x12, 0x01, 0x02, 0x02, 0x04};
    OM_uint32 major, minor;
    gss_buffer_set_t set = GSS_C_NO_BUFFER_SET;
    int32_t et = 0;

    if (ctx == GSS_C_NO_CONTEXT) {
        return 0;
    }
    major = gss_inquire_sec_context_by_oid(&minor, ctx,
                                           GSS_C_INQ_SSPI_SESSION_KEY, &set);
    if (major == GSS_S_COMPLETE && set != GSS_C_NO_BUFFER_SET &&
        set->count >= 2 && set->elements[1].length > sizeof(prefix) &&
        memcmp(set->elements[1].value, prefix, sizeof(prefix)) == 0) {
        const unsigned char *p = set->elements[1].value;
        size_t i;
        uint32_t v = 0;

        for (i = sizeof(prefix); i < set->elements[1].length; i++) {
            v = (v << 7) | (p[i] & 0x7fu);
            if ((p[i] & 0x80u) == 0) {
                break;
            }
        }
        et = (int32_t)v;
    }
    if (set != GSS_C_NO_BUFFER_SET) {
        gss_release_buffer_set(&minor, &set);
    }
    return et;
}

/* Initial credentials for gk5-client from --client-keytab, into a MEMORY
 * ccache that becomes the default (KRB5CCNAME) for the rest of the run.
 * Not gss_acquire_cred_from and rpc_gss_options_req_t.my_cred: libtirpc
 * 1.3.3's rpc_gss_seccreate copies my_cred and req_flags into a local
 * that it has already used, so they are ignored (fixed in 1.3.5); the
 * default ccache is what its client reaches.  --ccache names an existing
 * one instead.  0, or -1 with the reason printed. */
static int setup_ccache(const char *keytab, const char *ccache,
                        const char *principal)
{
    krb5_context kc = NULL;
    krb5_keytab kt = NULL;
    krb5_principal client = NULL;
    krb5_creds creds;
    krb5_ccache cc = NULL;
    krb5_error_code ret;
    char name[64];
    int have_creds = 0, rc = -1;
    const char *what = "krb5_init_context";

    if (keytab == NULL) {
        if (ccache != NULL && setenv("KRB5CCNAME", ccache, 1) != 0) {
            perror("tirpc_client: setenv KRB5CCNAME");
            return -1;
        }
        return 0;
    }
    memset(&creds, 0, sizeof(creds));
    snprintf(name, sizeof(name), "MEMORY:tirpc_client.%ld", (long)getpid());
    ret = krb5_init_context(&kc);
    if (ret != 0) {
        fprintf(stderr, "tirpc_client: krb5_init_context: error %ld\n",
                (long)ret);
        return -1;
    }
    what = "krb5_kt_resolve(--client-keytab)";
    ret = krb5_kt_resolve(kc, keytab, &kt);
    if (ret != 0) {
        goto cleanup;
    }
    if (principal != NULL) {
        what = "krb5_parse_name(--client-principal)";
        ret = krb5_parse_name(kc, principal, &client);
    } else {
        /* The keytab's first principal, as kinit -k does with no name. */
        krb5_kt_cursor cur;
        krb5_keytab_entry ent;

        what = "reading the client keytab";
        ret = krb5_kt_start_seq_get(kc, kt, &cur);
        if (ret == 0) {
            ret = krb5_kt_next_entry(kc, kt, &ent, &cur);
            if (ret == 0) {
                ret = krb5_copy_principal(kc, ent.principal, &client);
                krb5_free_keytab_entry_contents(kc, &ent);
            }
            krb5_kt_end_seq_get(kc, kt, &cur);
        }
    }
    if (ret != 0) {
        goto cleanup;
    }
    what = "krb5_get_init_creds_keytab";
    ret = krb5_get_init_creds_keytab(kc, &creds, client, kt, 0, NULL, NULL);
    if (ret != 0) {
        goto cleanup;
    }
    have_creds = 1;
    what = "storing the credentials";
    ret = krb5_cc_resolve(kc, name, &cc);
    if (ret == 0) {
        ret = krb5_cc_initialize(kc, cc, client);
    }
    if (ret == 0) {
        ret = krb5_cc_store_cred(kc, cc, &creds);
    }
    if (ret != 0) {
        goto cleanup;
    }
    if (setenv("KRB5CCNAME", name, 1) != 0) {
        perror("tirpc_client: setenv KRB5CCNAME");
        goto cleanup;
    }
    rc = 0;

cleanup:
    if (rc != 0 && ret != 0) {
        const char *msg = krb5_get_error_message(kc, ret);

        fprintf(stderr, "tirpc_client: %s: %s\n", what, msg);
        krb5_free_error_message(kc, msg);
    }
    /* A MEMORY ccache lives on after its handle is closed. */
    if (cc != NULL) {
        krb5_cc_close(kc, cc);
    }
    if (have_creds) {
        krb5_free_cred_contents(kc, &creds);
    }
    krb5_free_principal(kc, client);
    if (kt != NULL) {
        krb5_kt_close(kc, kt);
    }
    krb5_free_context(kc);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tirpc_client HOST:PORT --sec sys|krb5|krb5i|krb5p\n"
               "         [--program N] [--version N] [--target SERVICE@HOST]\n"
               "         [--proc null|echo|sink|source|whoami] [--size BYTES]\n"
               "         [--calls N] [--seconds S] [--client-keytab FILE]\n"
               "         [--client-principal NAME] [--ccache NAME]\n"
               "         [--expect-enctype NAME|NUM] [--expect TEXT]\n");
}

static CLIENT *connect_client(const char *hostport, uint32_t prog,
                              uint32_t vers)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    uint64_t port;
    struct sockaddr_in sin;
    struct netbuf nb;
    CLIENT *clnt;
    int fd;

    if (colon == NULL || (size_t)(colon - hostport) >= sizeof(host) ||
        parse_u64(colon + 1, &port) != 0 || port == 0 || port > 65535) {
        fprintf(stderr, "tirpc_client: bad address %s (want HOST:PORT)\n",
                hostport);
        return NULL;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    if (strcmp(host, "localhost") == 0) {
        strcpy(host, "127.0.0.1");
    }
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
        fprintf(stderr, "tirpc_client: %s is not an IPv4 address\n", host);
        return NULL;
    }
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        perror("tirpc_client: socket");
        return NULL;
    }
    if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
        fprintf(stderr, "tirpc_client: connect %s: %s\n", hostport,
                strerror(errno));
        close(fd);
        return NULL;
    }
    nb.maxlen = nb.len = sizeof(sin);
    nb.buf = &sin;
    clnt = clnt_vc_create(fd, &nb, prog, vers, TIRPC_BUFSZ, TIRPC_BUFSZ);
    if (clnt == NULL) {
        clnt_pcreateerror("tirpc_client: clnt_vc_create");
        close(fd);
        return NULL;
    }
    clnt_control(clnt, CLSET_FD_CLOSE, NULL);
    return clnt;
}

/* One call of proc, its reply checked.  0 or -1 (reason printed). */
static int one_call(CLIENT *clnt, int proc, uint8_t *payload, size_t size,
                    uint64_t n, const char *expect, int verbose)
{
    struct timeval tv = {60, 0};
    enum clnt_stat st;

    switch (proc) {
    case ECHO_PROC_NULL:
        st = clnt_call(clnt, ECHO_PROC_NULL, XDRPROC(xdr_void), NULL,
                       XDRPROC(xdr_void), NULL, tv);
        break;
    case ECHO_PROC_ECHO:
    case ECHO_PROC_SINK: {
        echo_opaque arg, res = {0, NULL};
        u_int len = 0;

        echo_fill(payload, size, n);
        arg.len = (u_int)size;
        arg.val = (char *)payload;
        if (proc == ECHO_PROC_ECHO) {
            st = clnt_call(clnt, ECHO_PROC_ECHO, XDRPROC(xdr_echo_opaque), &arg,
                           XDRPROC(xdr_echo_opaque), &res, tv);
            if (st == RPC_SUCCESS) {
                int same = res.len == size &&
                           (size == 0 || memcmp(res.val, payload, size) == 0);

                xdr_free(XDRPROC(xdr_echo_opaque), &res);
                if (!same) {
                    fprintf(stderr,
                            "tirpc_client: call %" PRIu64 ": ECHO of %zu "
                            "bytes came back different (%u bytes)\n",
                            n, size, res.len);
                    return -1;
                }
            }
        } else {
            st = clnt_call(clnt, ECHO_PROC_SINK, XDRPROC(xdr_echo_opaque), &arg,
                           XDRPROC(xdr_u_int), &len, tv);
            if (st == RPC_SUCCESS && len != size) {
                fprintf(stderr,
                        "tirpc_client: call %" PRIu64 ": SINK of %zu bytes "
                        "answered %u\n",
                        n, size, len);
                return -1;
            }
        }
        break;
    }
    case ECHO_PROC_SOURCE: {
        u_int want = (u_int)size;
        echo_opaque res = {0, NULL};

        st = clnt_call(clnt, ECHO_PROC_SOURCE, XDRPROC(xdr_u_int), &want,
                       XDRPROC(xdr_echo_opaque), &res, tv);
        if (st == RPC_SUCCESS) {
            size_t i;
            int ok = res.len == size;

            for (i = 0; ok && i < size; i++) {
                ok = (uint8_t)res.val[i] == echo_source_byte(i);
            }
            xdr_free(XDRPROC(xdr_echo_opaque), &res);
            if (!ok) {
                fprintf(stderr,
                        "tirpc_client: call %" PRIu64 ": SOURCE of %zu bytes "
                        "came back wrong (%u bytes)\n",
                        n, size, res.len);
                return -1;
            }
        }
        break;
    }
    case ECHO_PROC_WHOAMI: {
        char *s = NULL;

        st = clnt_call(clnt, ECHO_PROC_WHOAMI, XDRPROC(xdr_void), NULL,
                       XDRPROC(xdr_echo_string), &s, tv);
        if (st == RPC_SUCCESS) {
            int ok = expect == NULL || strstr(s, expect) != NULL;

            if (verbose || !ok) {
                printf("tirpc_client: WHOAMI: %s\n", s);
            }
            xdr_free(XDRPROC(xdr_echo_string), &s);
            if (!ok) {
                fprintf(stderr, "tirpc_client: WHOAMI does not name \"%s\"\n",
                        expect);
                return -1;
            }
        }
        break;
    }
    default:
        return -1;
    }
    if (st != RPC_SUCCESS) {
        char what[64];

        snprintf(what, sizeof(what), "tirpc_client: call %" PRIu64, n);
        clnt_perror(clnt, what);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *hostport = NULL, *sec = NULL, *target = "gk5@localhost";
    const char *procname = "echo", *keytab = NULL, *ccache = NULL;
    const char *cprinc = NULL, *expect = NULL;
    uint64_t prog = ECHO_PROG, vers = ECHO_VERS, calls = 0, u;
    double seconds = 0, t0, el;
    size_t size = 1024;
    int32_t want_enctype = 0, enctype = 0;
    int proc = ECHO_PROC_ECHO, i, rc = 1, gss = 1;
    rpc_gss_service_t svc = rpcsec_gss_svc_none;
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    uint8_t *payload = NULL;
    uint64_t done = 0;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;

        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (opt[0] != '-') {
            if (hostport != NULL) {
                usage(stderr);
                return 2;
            }
            hostport = opt;
            continue;
        }
        if (val == NULL) {
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(opt, "--sec") == 0) {
            sec = val;
        } else if (strcmp(opt, "--program") == 0) {
            if (parse_u64(val, &prog) != 0 || prog > UINT32_MAX) {
                fprintf(stderr, "tirpc_client: bad --program %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--version") == 0) {
            if (parse_u64(val, &vers) != 0 || vers > UINT32_MAX) {
                fprintf(stderr, "tirpc_client: bad --version %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--target") == 0) {
            target = val;
        } else if (strcmp(opt, "--proc") == 0) {
            procname = val;
        } else if (strcmp(opt, "--size") == 0) {
            if (parse_size(val, &size) != 0) {
                fprintf(stderr, "tirpc_client: bad --size %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--calls") == 0) {
            if (parse_u64(val, &calls) != 0 || calls == 0) {
                fprintf(stderr, "tirpc_client: bad --calls %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--seconds") == 0) {
            char *end;

            seconds = strtod(val, &end);
            if (end == val || *end != '\0' || !(seconds > 0) ||
                seconds > 3600) {
                fprintf(stderr, "tirpc_client: bad --seconds %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--client-keytab") == 0) {
            keytab = val;
        } else if (strcmp(opt, "--client-principal") == 0) {
            cprinc = val;
        } else if (strcmp(opt, "--ccache") == 0) {
            ccache = val;
        } else if (strcmp(opt, "--expect-enctype") == 0) {
            if (parse_enctype(val, &want_enctype) != 0) {
                fprintf(stderr, "tirpc_client: bad --expect-enctype %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--expect") == 0) {
            expect = val;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (hostport == NULL || sec == NULL) {
        usage(stderr);
        return 2;
    }
    if (strcmp(sec, "sys") == 0) {
        gss = 0;
    } else if (strcmp(sec, "krb5") == 0) {
        svc = rpcsec_gss_svc_none;
    } else if (strcmp(sec, "krb5i") == 0) {
        svc = rpcsec_gss_svc_integrity;
    } else if (strcmp(sec, "krb5p") == 0) {
        svc = rpcsec_gss_svc_privacy;
    } else {
        fprintf(stderr, "tirpc_client: bad --sec %s\n", sec);
        return 2;
    }
    if (strcmp(procname, "null") == 0 || strcmp(procname, "ping") == 0) {
        proc = ECHO_PROC_NULL;
    } else if (strcmp(procname, "echo") == 0) {
        proc = ECHO_PROC_ECHO;
    } else if (strcmp(procname, "whoami") == 0) {
        proc = ECHO_PROC_WHOAMI;
    } else if (strcmp(procname, "sink") == 0) {
        proc = ECHO_PROC_SINK;
    } else if (strcmp(procname, "source") == 0) {
        proc = ECHO_PROC_SOURCE;
    } else {
        fprintf(stderr, "tirpc_client: bad --proc %s\n", procname);
        return 2;
    }
    if (proc == ECHO_PROC_NULL || proc == ECHO_PROC_WHOAMI) {
        size = 0;
    }
    if (gss && svc != rpcsec_gss_svc_none && size > TIRPC_GSS_BODY_CAP) {
        printf("tirpc_client: SKIP: libtirpc's client cannot carry %s bodies "
               "above 256 KiB (its record buffer; docs/design.md): %zu bytes "
               "asked, %u allowed here\n",
               sec, size, TIRPC_GSS_BODY_CAP);
        return EXIT_SKIP;
    }
    if (calls == 0 && seconds == 0) {
        calls = 1;
    }

    payload = malloc(size > 0 ? size : 1);
    if (payload == NULL) {
        fprintf(stderr, "tirpc_client: out of memory\n");
        return 1;
    }
    clnt = connect_client(hostport, (uint32_t)prog, (uint32_t)vers);
    if (clnt == NULL) {
        goto cleanup;
    }
    if (!gss) {
        auth = authunix_create_default();
        if (auth == NULL) {
            fprintf(stderr, "tirpc_client: authunix_create_default failed\n");
            goto cleanup;
        }
    } else {
        rpc_gss_options_req_t req;
        rpc_gss_options_ret_t ret;
        char *t = strdup(target);
        char mech[] = "kerberos_v5";

        if (t == NULL || setup_ccache(keytab, ccache, cprinc) != 0) {
            free(t);
            goto cleanup;
        }
        memset(&req, 0, sizeof(req));
        memset(&ret, 0, sizeof(ret));
        req.req_flags = GSS_C_MUTUAL_FLAG;
        req.my_cred = GSS_C_NO_CREDENTIAL;
        auth = rpc_gss_seccreate(clnt, t, mech, svc, NULL, &req, &ret);
        free(t);
        if (auth == NULL) {
            rpc_gss_error_t e;

            rpc_gss_get_error(&e);
            fprintf(stderr,
                    "tirpc_client: rpc_gss_seccreate(%s, %s) failed "
                    "(rpc_gss_error %d, %s)\n",
                    target, sec, e.rpc_gss_error, strerror(e.system_error));
            if (ret.major_status != 0) {
                gss_words("context establishment", (OM_uint32)ret.major_status,
                          (OM_uint32)ret.minor_status);
            } else {
                /* No GSS status: the server rejected RPCSEC_GSS_INIT. */
                clnt_perror(clnt, "tirpc_client: RPCSEC_GSS_INIT");
            }
            goto cleanup;
        }
        enctype = context_enctype(ret.gss_context);
        if (want_enctype != 0 && enctype != want_enctype) {
            fprintf(stderr,
                    "tirpc_client: the context's enctype is %s (%d), not "
                    "%s (%d) as --expect-enctype asks\n",
                    enctype_name(enctype), (int)enctype,
                    enctype_name(want_enctype), (int)want_enctype);
            goto cleanup;
        }
    }
    clnt->cl_auth = auth;

    t0 = now_s();
    for (;;) {
        if (calls != 0 && done >= calls) {
            break;
        }
        if (seconds > 0 && done > 0 && now_s() - t0 >= seconds) {
            break;
        }
        if (one_call(clnt, proc, payload, size, done, expect,
                     calls == 1 && seconds == 0) != 0) {
            fprintf(stderr,
                    "tirpc_client: %s %s failed after %" PRIu64 " good calls\n",
                    procname, sec, done);
            goto cleanup;
        }
        done++;
    }
    el = now_s() - t0;
    if (el <= 0) {
        el = 1e-9;
    }
    u = done * (uint64_t)size;
    /* The line of `gk5 rpc echo`, word for word where it can be. */
    if (gss) {
        printf("tirpc_client: %s, enctype %s (%d): ", sec,
               enctype_name(enctype), (int)enctype);
    } else {
        printf("tirpc_client: AUTH_SYS: ");
    }
    printf("%s %zu bytes, 1 thread: %" PRIu64 " calls in %.2f s, %.0f "
           "calls/s, %.2f MB/s %s\n",
           procname, size, done, el, (double)done / el, (double)u / el / 1e6,
           proc == ECHO_PROC_ECHO     ? "each way"
           : proc == ECHO_PROC_SINK   ? "to the server"
           : proc == ECHO_PROC_SOURCE ? "from the server"
                                      : "(no payload)");
    rc = 0;

cleanup:
    if (auth != NULL) {
        auth_destroy(auth); /* RPCSEC_GSS_DESTROY for a GSS context */
    }
    if (clnt != NULL) {
        clnt->cl_auth = NULL;
        clnt_destroy(clnt);
    }
    free(payload);
    return rc;
}
