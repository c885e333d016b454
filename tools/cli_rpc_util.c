/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPC pieces gk5 rpc, gk5 nfs4, gk5 demo and gk5-bench share (cli.h):
 * --establish, connecting gk5's own client or libtirpc's clnt_vc, a
 * listening socket, the opaque<> XDR routine and the words for a failed
 * call.  Linked by gk5 and gk5-bench (its NFSv4 run) as a static library
 * beside cli_util.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef GK5_HAVE_TIRPC
#include <rpc/rpc.h>
#endif

#include <gk5/crypto.h>
#include <gk5/rpcsec.h>

#include "common/util.h"
#include "cli.h"
#include "echo.h"

/* libtirpc caps a stream's record buffers at 256 KiB; larger records are
 * sent as several fragments. */
#define RPC_RECORD_BUF (256u * 1024u)

int cli_rpc_split_hostport(const char *arg, char *host, size_t host_len,
                           char *port, size_t port_len)
{
    const char *colon, *h = arg;
    size_t hn;
    uint32_t p;

    if (arg[0] == '[') {
        const char *close = strchr(arg, ']');

        if (close == NULL || close[1] != ':') {
            return -1;
        }
        h = arg + 1;
        hn = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(arg, ':');
        if (colon == NULL) {
            return -1;
        }
        hn = (size_t)(colon - arg);
    }
    if (hn == 0 || hn >= host_len || strlen(colon + 1) >= port_len ||
        cli_parse_u32(colon + 1, &p) != 0 || p > 65535) {
        return -1;
    }
    memcpy(host, h, hn);
    host[hn] = '\0';
    strcpy(port, colon + 1);
    return 0;
}

/* "127.0.0.1:PORT" or "[::1]:PORT" for a socket address. */
static void format_sockaddr(const struct sockaddr *sa, socklen_t len, char *out,
                            size_t out_len)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];

    if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, out_len, "?");
    } else if (sa->sa_family == AF_INET6) {
        snprintf(out, out_len, "[%s]:%s", host, serv);
    } else {
        snprintf(out, out_len, "%s:%s", host, serv);
    }
}

#ifdef GK5_HAVE_TIRPC
bool_t cli_rpc_xdr_opaque(XDR *xdrs, struct cli_rpc_opaque *o)
{
    /* Decoding into a buffer of ours: xdr_bytes fills it if the length is
     * at most max (and allocates one if val is NULL). */
    return xdr_bytes(xdrs, &o->val, &o->len, o->max);
}

#endif /* GK5_HAVE_TIRPC */

int cli_rpc_parse_establish(const char *cmd, const char *arg,
                            gk5_rpc_establish *out)
{
    if (strcmp(arg, "native") == 0) {
        *out = GK5_RPC_ESTABLISH_NATIVE;
    } else if (strcmp(arg, "mit") == 0) {
        if (!gk5_rpc_establish_available(GK5_RPC_ESTABLISH_MIT)) {
            cli_error("%s: --establish mit: this gk5 was built without MIT "
                      "krb5 (-Dmit=disabled): only native establishment "
                      "(gk5's own initiator and acceptor) is available",
                      cmd);
            return -1;
        }
        *out = GK5_RPC_ESTABLISH_MIT;
    } else {
        cli_error("%s: --establish: '%s' is not native or mit", cmd, arg);
        return -1;
    }
    return 0;
}

#ifdef GK5_HAVE_TIRPC
static const char *auth_stat_words(enum auth_stat why)
{
    switch ((int)why) {
    case AUTH_OK:
        return "authentication OK";
    case AUTH_BADCRED:
        return "invalid client credential";
    case AUTH_REJECTEDCRED:
        return "server rejected credential";
    case AUTH_BADVERF:
        return "invalid client verifier";
    case AUTH_REJECTEDVERF:
        return "server rejected verifier";
    case AUTH_TOOWEAK:
        return "client credential too weak";
    case AUTH_INVALIDRESP:
        return "invalid server verifier";
    case AUTH_FAILED:
        return "failed (unspecified error)";
    case 13:
        return "RPCSEC_GSS_CREDPROBLEM (no credentials for user)";
    case 14:
        return "RPCSEC_GSS_CTXPROBLEM (problem with context)";
    }
    return "unknown authentication error";
}

/* Words from the CLIENT's own error (clnt_sperror's static buffer is not
 * thread-safe) and, for our AUTH, what gk5 says went wrong. */
void cli_rpc_call_error(CLIENT *clnt, AUTH *auth, const char *what, char *buf,
                        size_t len)
{
    struct rpc_err e;
    char detail[160] = "";
    const gk5_rpc_error *ge = NULL;

    memset(&e, 0, sizeof(e));
    clnt_geterr(clnt, &e);
    switch (e.re_status) {
    case RPC_CANTSEND:
    case RPC_CANTRECV:
        if (e.re_errno != 0) {
            char eb[128];

            snprintf(detail, sizeof(detail), "; %s",
                     strerror_r(e.re_errno, eb, sizeof(eb)));
        }
        break;
    case RPC_VERSMISMATCH:
    case RPC_PROGVERSMISMATCH:
        snprintf(detail, sizeof(detail), "; low version %lu, high version %lu",
                 (unsigned long)e.re_vers.low, (unsigned long)e.re_vers.high);
        break;
    case RPC_AUTHERROR:
        snprintf(detail, sizeof(detail), "; why = %s",
                 auth_stat_words(e.re_why));
        break;
    default:
        break;
    }
    if (auth != NULL) {
        ge = gk5_rpc_auth_last_error(auth);
    }
    snprintf(buf, len, "%s: %s%s%s%s", what, clnt_sperrno(e.re_status), detail,
             ge != NULL ? "; gk5: " : "", ge != NULL ? ge->text : "");
}

#endif /* GK5_HAVE_TIRPC */

/* HOST:PORT (or ADDRESS:PORT with AI_NUMERICHOST) to TCP addresses; 0, or
 * -1 with words in err. */
static int resolve_stream(const char *hostport, int flags, char *host,
                          size_t host_len, struct addrinfo **res, char *err,
                          size_t err_len)
{
    struct addrinfo hints;
    char port[16];

    *res = NULL;
    if (cli_rpc_split_hostport(hostport, host, host_len, port, sizeof(port)) !=
        0) {
        snprintf(err, err_len, "'%s' is not %s:PORT", hostport,
                 (flags & AI_NUMERICHOST) != 0 ? "ADDRESS" : "HOST");
        return -1;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    int gai = getaddrinfo(host, port, &hints, res);
    if (gai != 0) {
        snprintf(err, err_len,
                 (flags & AI_NUMERICHOST) != 0
                     ? "'%s' is not a numeric address: %s"
                     : "cannot resolve '%s': %s",
                 host, gai_strerror(gai));
        *res = NULL;
        return -1;
    }
    return 0;
}

/* The end of a connect or listen: the socket closed unless it was handed
 * over (fd -1), the address lookup freed; ret passed through. */
static int socket_done(int fd, struct addrinfo *res, int ret)
{
    if (fd >= 0) {
        close(fd);
    }
    if (res != NULL) {
        freeaddrinfo(res);
    }
    return ret;
}

#ifdef GK5_HAVE_TIRPC
int cli_rpc_connect(const char *hostport, uint32_t prog, uint32_t vers,
                    CLIENT **out, char *err, size_t err_len)
{
    struct addrinfo *res = NULL;
    char host[NI_MAXHOST];
    int fd = -1, saved = 0, ret = -1;
    const int one = 1;

    *out = NULL;
    if (resolve_stream(hostport, AI_NUMERICSERV, host, sizeof(host), &res, err,
                       err_len) != 0) {
        goto cleanup;
    }
    for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            struct netbuf nb;

            /* Calls are small records that wait for their replies. */
            (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            nb.maxlen = nb.len = (unsigned)ai->ai_addrlen;
            nb.buf = ai->ai_addr;
            *out = clnt_vc_create(fd, &nb, prog, vers, RPC_RECORD_BUF,
                                  RPC_RECORD_BUF);
            if (*out == NULL) {
                snprintf(err, err_len, "%s",
                         clnt_sperrno(rpc_createerr.cf_stat));
                goto cleanup;
            }
            (void)clnt_control(*out, CLSET_FD_CLOSE, NULL);
            fd = -1;
            ret = 0;
            goto cleanup;
        }
        saved = errno;
        close(fd);
        fd = -1;
    }
    snprintf(err, err_len, "cannot connect to %s: %s", hostport,
             strerror(saved));

cleanup:
    return socket_done(fd, res, ret);
}

#endif /* GK5_HAVE_TIRPC */

int cli_rpc_listen(const char *hostport, int *fd_out, char *bound,
                   size_t bound_len, char *err, size_t err_len)
{
    struct addrinfo *res = NULL;
    struct sockaddr_storage ss;
    socklen_t sslen = sizeof(ss);
    char host[NI_MAXHOST];
    int fd = -1, ret = -1;
    const int one = 1;

    *fd_out = -1;
    /* Exactly the address given: no name lookup, no wildcard. */
    if (resolve_stream(hostport, AI_NUMERICHOST | AI_NUMERICSERV, host,
                       sizeof(host), &res, err, err_len) != 0) {
        goto cleanup;
    }
    fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC,
                res->ai_protocol);
    if (fd < 0) {
        snprintf(err, err_len, "socket: %s", strerror(errno));
        goto cleanup;
    }
    /* A restarted server may take the port over from TIME_WAIT; a port
     * that somebody listens on still fails with EADDRINUSE. */
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (res->ai_family == AF_INET6) {
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
        snprintf(err, err_len, "cannot bind %s: %s", hostport, strerror(errno));
        goto cleanup;
    }
    /* A server that holds up to max_connections (1,024 by default) is
     * connected to in bursts: the backlog the kernel allows (SOMAXCONN,
     * capped by net.core.somaxconn), so that a burst waits in the queue.
     * Past a full queue the kernel drops the SYN, and the client, a
     * legitimate one among them, tries again a second later. */
    if (listen(fd, SOMAXCONN) != 0) {
        snprintf(err, err_len, "cannot listen on %s: %s", hostport,
                 strerror(errno));
        goto cleanup;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sslen) != 0) {
        snprintf(err, err_len, "getsockname: %s", strerror(errno));
        goto cleanup;
    }
    format_sockaddr((struct sockaddr *)&ss, sslen, bound, bound_len);
    *fd_out = fd;
    fd = -1;
    ret = 0;

cleanup:
    return socket_done(fd, res, ret);
}

/* ---- gk5's own RPC client ---- */

int cli_rpc_native_connect(const char *hostport, uint32_t prog, uint32_t vers,
                           const char *target, gk5_rpc_service svc,
                           const char *sec_name,
                           const gk5_rpc_clnt_options *opts, gk5_rpc_clnt **out,
                           char *err, size_t err_len)
{
    gk5_rpc_error e;
    struct addrinfo *res = NULL;
    char host[NI_MAXHOST];
    bool gss = opts->flavor == GK5_RPC_FLAVOR_RPCSEC_GSS;
    int ret = -1;

    *out = NULL;
    if (resolve_stream(hostport, AI_NUMERICSERV, host, sizeof(host), &res, err,
                       err_len) != 0) {
        return -1;
    }
    for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        memset(&e, 0, sizeof(e));
        if (gk5_rpc_clnt_create(ai->ai_addr, ai->ai_addrlen, prog, vers,
                                gss ? target : NULL, svc, opts, out, &e) == 0) {
            ret = 0;
            break;
        }
        if (gss && e.code != GK5_RPC_E_TRANSPORT) {
            snprintf(err, err_len, "cannot establish RPCSEC_GSS %s with %s: %s",
                     sec_name, target,
                     e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
            break;
        }
        /* A transport failure: the connection, or the INIT legs on it
         * (the words say which). */
        snprintf(err, err_len, "cannot connect to %s%s%s%s: %s", hostport,
                 gss ? " and establish RPCSEC_GSS " : "", gss ? sec_name : "",
                 gss ? " there" : "",
                 e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
    }
    freeaddrinfo(res);
    return ret;
}
