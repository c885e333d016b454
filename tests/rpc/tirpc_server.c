/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * tirpc_server: the echo program (echo_prog.h) on libtirpc's OWN server,
 * RPCSEC_GSS included (svc_auth_gss with MIT's acceptor), so that gk5's
 * RPCSEC_GSS client can be held against a peer gk5 did not write.
 *
 *   tirpc_server [--port N] [--program N] [--version N]
 *                [--keytab FILE] [--principal SERVICE@HOST] [--sec LIST]
 *
 * Listens on 127.0.0.1:PORT (0: any free port), prints
 * "tirpc_server: listening on 127.0.0.1:PORT" and serves until SIGTERM or
 * SIGINT.  --keytab sets KRB5_KTNAME (libtirpc's acceptor reads it);
 * --principal is the host-based service name given to
 * rpc_gss_set_svc_name (default gk5@localhost).  --sec limits the
 * flavours served (comma-separated sys, krb5, krb5i, krb5p; default all):
 * others get AUTH_TOOWEAK.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rpc/rpc.h>
#include <rpc/rpcsec_gss.h>

#include "echo_prog.h"

#define SEC_SYS 0x1u
#define SEC_KRB5 0x2u
#define SEC_KRB5I 0x4u
#define SEC_KRB5P 0x8u
#define SEC_ALL (SEC_SYS | SEC_KRB5 | SEC_KRB5I | SEC_KRB5P)

static unsigned allowed_sec = SEC_ALL;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int parse_sec_list(const char *list, unsigned *out)
{
    char *copy = strdup(list), *tok, *save = NULL;
    unsigned v = 0;
    int rc = 0;

    if (copy == NULL) {
        return -1;
    }
    for (tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "sys") == 0) {
            v |= SEC_SYS;
        } else if (strcmp(tok, "krb5") == 0) {
            v |= SEC_KRB5;
        } else if (strcmp(tok, "krb5i") == 0) {
            v |= SEC_KRB5I;
        } else if (strcmp(tok, "krb5p") == 0) {
            v |= SEC_KRB5P;
        } else {
            rc = -1;
        }
    }
    free(copy);
    *out = v;
    return (rc == 0 && v != 0) ? 0 : -1;
}

static const char *gss_service_name(rpc_gss_service_t s)
{
    switch (s) {
    case rpcsec_gss_svc_none:
        return "krb5";
    case rpcsec_gss_svc_integrity:
        return "krb5i";
    case rpcsec_gss_svc_privacy:
        return "krb5p";
    default:
        return "?";
    }
}

/* The call's flavour as a SEC_* bit, and for RPCSEC_GSS its raw
 * credential (NULL otherwise). */
static unsigned call_sec(struct svc_req *rq, rpc_gss_rawcred_t **raw)
{
    *raw = NULL;
    switch (rq->rq_cred.oa_flavor) {
    case AUTH_SYS:
        return SEC_SYS;
    case RPCSEC_GSS:
        if (!rpc_gss_getcred(rq, raw, NULL, NULL) || *raw == NULL) {
            return 0;
        }
        switch ((*raw)->service) {
        case rpcsec_gss_svc_none:
            return SEC_KRB5;
        case rpcsec_gss_svc_integrity:
            return SEC_KRB5I;
        case rpcsec_gss_svc_privacy:
            return SEC_KRB5P;
        default:
            return 0;
        }
    default:
        return 0;
    }
}

static void reply_whoami(SVCXPRT *xprt, struct svc_req *rq,
                         const rpc_gss_rawcred_t *raw)
{
    char text[1024];
    char *p = text;

    if (raw != NULL) {
        int n = 0;
        const char *name = "";

        if (raw->client_principal != NULL) {
            n = raw->client_principal->len;
            name = raw->client_principal->name;
        }
        snprintf(text, sizeof(text), "RPCSEC_GSS %s %.*s",
                 gss_service_name(raw->service), n, name);
    } else if (rq->rq_cred.oa_flavor == AUTH_SYS) {
        const struct authunix_parms *sys =
            (const struct authunix_parms *)rq->rq_clntcred;

        snprintf(text, sizeof(text), "AUTH_SYS sys uid=%u",
                 sys != NULL ? (unsigned)sys->aup_uid : 0u);
    } else {
        snprintf(text, sizeof(text), "AUTH_NONE none");
    }
    if (!svc_sendreply(xprt, XDRPROC(xdr_echo_string), &p)) {
        fprintf(stderr, "tirpc_server: WHOAMI reply failed\n");
    }
}

/* RFC 2203 5: the credential starts with version and gss_proc. */
static int is_gss_destroy(const struct svc_req *rq)
{
    const unsigned char *p = (const unsigned char *)rq->rq_cred.oa_base;

    return rq->rq_cred.oa_flavor == RPCSEC_GSS && rq->rq_cred.oa_length >= 8 &&
           p != NULL && p[4] == 0 && p[5] == 0 && p[6] == 0 && p[7] == 3;
}

static void echo_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
    rpc_gss_rawcred_t *raw = NULL;
    unsigned sec;

    /* libtirpc 1.3.3 hands RPCSEC_GSS_DESTROY (a NULL call) to the
     * program after it has freed the context, with the reply verifier
     * made: the program must answer, and rpc_gss_getcred would read the
     * freed context (it crashes). */
    if (is_gss_destroy(rq)) {
        if (!svc_sendreply(xprt, XDRPROC(xdr_void), NULL)) {
            fprintf(stderr, "tirpc_server: DESTROY reply failed\n");
        }
        return;
    }
    sec = call_sec(rq, &raw);

    if ((sec & allowed_sec) == 0) {
        svcerr_weakauth(xprt);
        return;
    }
    switch (rq->rq_proc) {
    case ECHO_PROC_NULL:
        if (!svc_sendreply(xprt, XDRPROC(xdr_void), NULL)) {
            fprintf(stderr, "tirpc_server: NULL reply failed\n");
        }
        return;
    case ECHO_PROC_ECHO:
    case ECHO_PROC_SINK: {
        echo_opaque arg = {0, NULL};

        if (!svc_getargs(xprt, XDRPROC(xdr_echo_opaque), (caddr_t)&arg)) {
            svcerr_decode(xprt);
            return;
        }
        if (rq->rq_proc == ECHO_PROC_ECHO) {
            if (!svc_sendreply(xprt, XDRPROC(xdr_echo_opaque), &arg)) {
                fprintf(stderr, "tirpc_server: ECHO reply of %u bytes failed\n",
                        arg.len);
            }
        } else {
            u_int len = arg.len;

            if (!svc_sendreply(xprt, XDRPROC(xdr_u_int), &len)) {
                fprintf(stderr, "tirpc_server: SINK reply failed\n");
            }
        }
        if (!svc_freeargs(xprt, XDRPROC(xdr_echo_opaque), (caddr_t)&arg)) {
            fprintf(stderr, "tirpc_server: svc_freeargs failed\n");
        }
        return;
    }
    case ECHO_PROC_WHOAMI:
        if (!svc_getargs(xprt, XDRPROC(xdr_void), NULL)) {
            svcerr_decode(xprt);
            return;
        }
        reply_whoami(xprt, rq, raw);
        return;
    case ECHO_PROC_SOURCE: {
        u_int n = 0;
        echo_opaque res = {0, NULL};
        size_t i;

        if (!svc_getargs(xprt, XDRPROC(xdr_u_int), (caddr_t)&n) ||
            n > ECHO_MAX_OPAQUE) {
            svcerr_decode(xprt);
            return;
        }
        res.val = malloc(n > 0 ? n : 1);
        if (res.val == NULL) {
            svcerr_systemerr(xprt);
            return;
        }
        for (i = 0; i < n; i++) {
            res.val[i] = (char)echo_source_byte(i);
        }
        res.len = n;
        if (!svc_sendreply(xprt, XDRPROC(xdr_echo_opaque), &res)) {
            fprintf(stderr, "tirpc_server: SOURCE reply of %u bytes failed\n",
                    n);
        }
        free(res.val);
        return;
    }
    default:
        svcerr_noproc(xprt);
        return;
    }
}

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v > UINT32_MAX) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tirpc_server [--port N] [--program N] [--version N]\n"
            "                    [--keytab FILE] [--principal SERVICE@HOST]\n"
            "                    [--sec sys,krb5,krb5i,krb5p]\n");
}

/* One pass of libtirpc's event loop that a signal can end without a race:
 * SIGTERM/SIGINT are blocked except inside ppoll. */
static int serve(const sigset_t *unblocked)
{
    struct pollfd *fds = NULL;
    int nfds = 0;

    while (!stop_requested) {
        int n, i;

        if (svc_max_pollfd > nfds) {
            struct pollfd *grown =
                realloc(fds, sizeof(*fds) * (size_t)svc_max_pollfd);

            if (grown == NULL) {
                free(fds);
                return -1;
            }
            fds = grown;
            nfds = svc_max_pollfd;
        }
        for (i = 0; i < svc_max_pollfd; i++) {
            fds[i] = svc_pollfd[i];
        }
        n = ppoll(fds, (nfds_t)svc_max_pollfd, NULL, unblocked);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("tirpc_server: ppoll");
            free(fds);
            return -1;
        }
        if (n > 0) {
            svc_getreq_poll(fds, n);
        }
    }
    free(fds);
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t port = 0, prog = ECHO_PROG, vers = ECHO_VERS;
    const char *principal = "gk5@localhost";
    int have_gss = 0, fd = -1, i, rc = 1;
    struct sockaddr_in sin;
    socklen_t slen = sizeof(sin);
    SVCXPRT *xprt = NULL;
    struct sigaction sa;
    sigset_t block, unblocked;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;

        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (val == NULL) {
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(opt, "--port") == 0) {
            if (parse_u32(val, &port) != 0 || port > 65535) {
                fprintf(stderr, "tirpc_server: bad --port %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--program") == 0) {
            if (parse_u32(val, &prog) != 0) {
                fprintf(stderr, "tirpc_server: bad --program %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--version") == 0) {
            if (parse_u32(val, &vers) != 0) {
                fprintf(stderr, "tirpc_server: bad --version %s\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--keytab") == 0) {
            if (setenv("KRB5_KTNAME", val, 1) != 0) {
                perror("tirpc_server: setenv");
                return 1;
            }
        } else if (strcmp(opt, "--principal") == 0) {
            principal = val;
        } else if (strcmp(opt, "--sec") == 0) {
            if (parse_sec_list(val, &allowed_sec) != 0) {
                fprintf(stderr, "tirpc_server: bad --sec %s\n", val);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &unblocked);
    sigdelset(&unblocked, SIGTERM);
    sigdelset(&unblocked, SIGINT);

    if (allowed_sec & (SEC_KRB5 | SEC_KRB5I | SEC_KRB5P)) {
        /* rpc_gss_set_svc_name takes char *: the literal is copied. */
        char *name = strdup(principal);
        char mech[] = "kerberos_v5";

        if (name == NULL) {
            goto cleanup;
        }
        have_gss = rpc_gss_set_svc_name(name, mech, 0, prog, vers);
        free(name);
        if (!have_gss) {
            rpc_gss_error_t e;

            rpc_gss_get_error(&e);
            fprintf(stderr,
                    "tirpc_server: rpc_gss_set_svc_name(%s) failed "
                    "(error %d, %s); is KRB5_KTNAME set?\n",
                    principal, e.rpc_gss_error, strerror(e.system_error));
            goto cleanup;
        }
    }

    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        perror("tirpc_server: socket");
        goto cleanup;
    }
    {
        int one = 1;

        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    }
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
        listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &slen) != 0) {
        perror("tirpc_server: bind/listen 127.0.0.1");
        goto cleanup;
    }
    xprt = svc_vc_create(fd, TIRPC_BUFSZ, TIRPC_BUFSZ);
    if (xprt == NULL) {
        fprintf(stderr, "tirpc_server: svc_vc_create failed\n");
        goto cleanup;
    }
    fd = -1; /* the transport owns it now */
    /* No netconfig: nothing is registered with rpcbind. */
    if (!svc_reg(xprt, prog, vers, echo_dispatch, NULL)) {
        fprintf(stderr, "tirpc_server: svc_reg failed\n");
        goto cleanup;
    }
    printf("tirpc_server: listening on 127.0.0.1:%u program %" PRIu32
           " version %" PRIu32 " (libtirpc; %s%s)\n",
           (unsigned)ntohs(sin.sin_port), prog, vers,
           have_gss ? "RPCSEC_GSS acceptor " : "AUTH_SYS only",
           have_gss ? principal : "");
    fflush(stdout);

    rc = serve(&unblocked) == 0 ? 0 : 1;
    svc_unreg(prog, vers);

cleanup:
    if (xprt != NULL) {
        svc_destroy(xprt);
    }
    if (fd >= 0) {
        close(fd);
    }
    return rc;
}
