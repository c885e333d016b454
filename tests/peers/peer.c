/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * TAP output, connections and AUTHs for the real-server tests (peer.h).
 */
#include "peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef GK5_HAVE_MIT
/* libtirpc's own RPCSEC_GSS client (--via libtirpc), on MIT's GSS-API. */
#include <rpc/rpcsec_gss.h>
#endif

#include <gk5/crypto.h>

#define CLIENT_PRINCIPAL "gk5-client@GK5.TEST"
#define CLIENT_CCACHE "MEMORY:gk5-peers"

/* ---- TAP ---- */

static unsigned tap_count;
static unsigned tap_failed;

static void tap_line(const char *prefix, const char *fmt, va_list ap,
                     const char *suffix)
{
    char desc[1024];

    vsnprintf(desc, sizeof(desc), fmt, ap);
    /* A '#' in a description would start a TAP directive. */
    for (char *p = desc; *p != '\0'; p++) {
        if (*p == '#' || *p == '\n') {
            *p = ' ';
        }
    }
    printf("%s %u - %s%s\n", prefix, ++tap_count, desc, suffix);
    fflush(stdout);
}

bool tap_result(bool ok, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    tap_line(ok ? "ok" : "not ok", fmt, ap, "");
    va_end(ap);
    if (!ok) {
        tap_failed++;
    }
    return ok;
}

void tap_skip(const char *why, const char *fmt, ...)
{
    char suffix[512];
    va_list ap;

    snprintf(suffix, sizeof(suffix), " # SKIP %s", why);
    va_start(ap, fmt);
    tap_line("ok", fmt, ap, suffix);
    va_end(ap);
}

void tap_diag(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    char *line, *save = NULL;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        printf("# %s\n", line);
    }
    fflush(stdout);
}

int tap_done(void)
{
    printf("1..%u\n", tap_count);
    fflush(stdout);
    return tap_failed == 0 ? 0 : 1;
}

/* ---- Flavours ---- */

static const char *const flavor_names[PEER_N_FLAVORS] = {
    [PEER_SYS] = "sys",
    [PEER_KRB5] = "krb5",
    [PEER_KRB5I] = "krb5i",
    [PEER_KRB5P] = "krb5p",
};

const char *peer_flavor_name(peer_flavor f)
{
    return (unsigned)f < PEER_N_FLAVORS ? flavor_names[f] : "?";
}

int peer_flavor_parse(const char *name, peer_flavor *f)
{
    for (unsigned i = 0; i < PEER_N_FLAVORS; i++) {
        if (strcmp(name, flavor_names[i]) == 0) {
            *f = (peer_flavor)i;
            return 0;
        }
    }
    return -1;
}

const char *peer_via_name(peer_via via)
{
    return via == PEER_VIA_GK5 ? "gk5" : "libtirpc";
}

/* ---- Configuration ---- */

static int parse_port(const char *s, uint16_t *port)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || *s == '\0' || *end != '\0' || v == 0 || v > 65535) {
        return -1;
    }
    *port = (uint16_t)v;
    return 0;
}

int peer_config_init(peer_config *cfg, const char *port_env)
{
    const char *env = getenv(port_env);

    cfg->via = PEER_VIA_GK5;
    cfg->realm_dir = getenv("GK5_REALM_DIR");
    cfg->port = 0;
    if (cfg->timeout_s == 0) {
        cfg->timeout_s = 60;
    }
    if (env != NULL && parse_port(env, &cfg->port) != 0) {
        fprintf(stderr, "%s=%s is not a port\n", port_env, env);
        return -1;
    }
    return 0;
}

int peer_config_option(peer_config *cfg, const char *opt, const char *val)
{
    if (strcmp(opt, "--via") == 0) {
        if (strcmp(val, "gk5") == 0) {
            cfg->via = PEER_VIA_GK5;
        } else if (strcmp(val, "libtirpc") == 0) {
            cfg->via = PEER_VIA_LIBTIRPC;
        } else {
            fprintf(stderr, "--via: gk5 or libtirpc, not %s\n", val);
            return -1;
        }
        return 1;
    }
    if (strcmp(opt, "--port") == 0) {
        if (parse_port(val, &cfg->port) != 0) {
            fprintf(stderr, "--port: %s is not a port\n", val);
            return -1;
        }
        return 1;
    }
    if (strcmp(opt, "--realm") == 0) {
        cfg->realm_dir = val;
        return 1;
    }
    return 0;
}

int peer_config_ready(peer_config *cfg, const char *port_env)
{
    static char ktname[4096];

    if (cfg->realm_dir == NULL) {
        fprintf(stderr, "no realm: run inside gk5 realm run, or "
                        "give --realm DIR\n");
        return -1;
    }
    if (cfg->port == 0) {
        fprintf(stderr, "no port: set %s or give --port P\n", port_env);
        return -1;
    }
    /* libtirpc's client initiates with MIT's default credential: from the
     * client keytab into a MEMORY ccache.  gk5 is told the same names
     * explicitly (peer_auth_create). */
    snprintf(ktname, sizeof(ktname), "FILE:%s/client.keytab", cfg->realm_dir);
    setenv("KRB5_CLIENT_KTNAME", ktname, 1);
    setenv("KRB5CCNAME", CLIENT_CCACHE, 1);
    return 0;
}

struct timeval peer_timeout(const peer_config *cfg)
{
    struct timeval tv = {.tv_sec = (time_t)cfg->timeout_s, .tv_usec = 0};

    return tv;
}

/* ---- Connections ---- */

CLIENT *peer_connect(const peer_config *cfg, char *why, size_t whylen)
{
    struct sockaddr_in sin = {
        .sin_family = AF_INET,
        .sin_port = htons(cfg->port),
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
    };
    struct netbuf addr = {
        .maxlen = sizeof(sin), .len = sizeof(sin), .buf = &sin};
    CLIENT *clnt = NULL;
    int fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        return NULL;
    }
    if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
        snprintf(why, whylen, "connect 127.0.0.1:%u: %s", cfg->port,
                 strerror(errno));
        close(fd);
        return NULL;
    }
    /* clnt_vc_create copies the address.  The record buffers: libtirpc
     * caps them at 256 KiB, and its own RPCSEC_GSS client marshals whole
     * bodies into them (gk5's does not). */
    clnt = clnt_vc_create(fd, &addr, cfg->prog, cfg->vers, 1u << 22, 1u << 22);
    if (clnt == NULL) {
        snprintf(why, whylen, "clnt_vc_create: %s",
                 clnt_spcreateerror("libtirpc"));
        close(fd);
        return NULL;
    }
    clnt_control(clnt, CLSET_FD_CLOSE, NULL);
    return clnt;
}

/* ---- AUTHs ---- */

static AUTH *auth_gk5(const peer_config *cfg, CLIENT *clnt, gk5_rpc_service svc,
                      char *why, size_t whylen)
{
    char keytab[4096];
    gk5_rpc_auth_options opts = {0};
    gk5_rpc_error err = {0};
    AUTH *auth;

    snprintf(keytab, sizeof(keytab), "FILE:%s/client.keytab", cfg->realm_dir);
    opts.principal = CLIENT_PRINCIPAL;
    opts.ccache = CLIENT_CCACHE;
    opts.client_keytab = keytab;
    opts.timeout_ms = cfg->timeout_s * 1000u;
    auth = gk5_rpc_auth_create(clnt, cfg->target, svc, &opts, &err);
    if (auth == NULL) {
        snprintf(why, whylen, "gk5_rpc_auth_create(%s): %s", cfg->target,
                 err.text[0] != '\0' ? err.text : gk5_rpc_strerror(err.code));
    }
    return auth;
}

static AUTH *auth_libtirpc(const peer_config *cfg, CLIENT *clnt,
                           gk5_rpc_service svc, char *why, size_t whylen)
{
#ifndef GK5_HAVE_MIT
    (void)cfg;
    (void)clnt;
    (void)svc;
    snprintf(why, whylen,
             "--via libtirpc: libtirpc's RPCSEC_GSS client runs on MIT's "
             "GSS-API, and this gk5 was built without MIT krb5");
    return NULL;
#else
    rpc_gss_error_t gerr = {0};
    char target[256], mech[] = "kerberos_v5";
    AUTH *auth;

    snprintf(target, sizeof(target), "%s", cfg->target);
    auth = rpc_gss_seccreate(clnt, target, mech, (rpc_gss_service_t)svc, NULL,
                             NULL, NULL);
    if (auth == NULL) {
        rpc_gss_get_error(&gerr);
        snprintf(why, whylen,
                 "rpc_gss_seccreate(%s): rpc_gss_error %d, system_error %d "
                 "(%s); %s",
                 cfg->target, gerr.rpc_gss_error, gerr.system_error,
                 strerror(gerr.system_error), clnt_sperror(clnt, "libtirpc"));
    }
    return auth;
#endif
}

AUTH *peer_auth_create(const peer_config *cfg, CLIENT *clnt, peer_flavor f,
                       char *why, size_t whylen)
{
    AUTH *auth;

    why[0] = '\0';
    if (f == PEER_SYS) {
        /* Squashed by the server anyway (Ganesha: All_Squash). */
        gid_t none[1] = {0};
        auth = authunix_create((char *)"gk5-peers", 0, 0, 0, none);
        if (auth == NULL) {
            snprintf(why, whylen, "authunix_create failed");
        }
        return auth;
    }
    if (cfg->via == PEER_VIA_LIBTIRPC) {
        return auth_libtirpc(cfg, clnt, (gk5_rpc_service)f, why, whylen);
    }
    return auth_gk5(cfg, clnt, (gk5_rpc_service)f, why, whylen);
}

void peer_auth_describe(const peer_config *cfg, AUTH *auth, char *out,
                        size_t outlen)
{
    gk5_rpc_auth_info info;
    gk5_enctype_desc desc;

    out[0] = '\0';
    if (cfg->via != PEER_VIA_GK5 || auth == NULL ||
        gk5_rpc_auth_inquire(auth, &info) != 0) {
        return;
    }
    if (gk5_enctype_describe(info.enctype, &desc) != 0) {
        desc.name = "?";
    }
    snprintf(out, outlen, "%s (%d), server window %u, handle %zu bytes",
             desc.name, info.enctype, info.window, info.handle_len);
}

const char *peer_auth_stat_name(int why)
{
    /* RFC 5531 9 and RFC 2203 5.3.3.3; libtirpc has no words for the
     * RPCSEC_GSS ones. */
    static const char *const names[] = {
        [0] = "AUTH_OK",
        [1] = "AUTH_BADCRED",
        [2] = "AUTH_REJECTEDCRED",
        [3] = "AUTH_BADVERF",
        [4] = "AUTH_REJECTEDVERF",
        [5] = "AUTH_TOOWEAK",
        [6] = "AUTH_INVALIDRESP",
        [7] = "AUTH_FAILED",
        [13] = "RPCSEC_GSS_CREDPROBLEM",
        [14] = "RPCSEC_GSS_CTXPROBLEM",
    };

    if (why >= 0 && (size_t)why < sizeof(names) / sizeof(names[0]) &&
        names[why] != NULL) {
        return names[why];
    }
    return "auth_stat ?";
}

void peer_call_error(const peer_config *cfg, CLIENT *clnt, AUTH *auth,
                     enum clnt_stat st, char *out, size_t outlen)
{
    const gk5_rpc_error *err = NULL;
    gk5_rpc_auth_info info;
    struct rpc_err re;
    char rpc[512];
    int ours;

    /* clnt_sperror ends with a newline. */
    snprintf(rpc, sizeof(rpc), "%s", clnt_sperror(clnt, "clnt_call"));
    rpc[strcspn(rpc, "\n")] = '\0';
    clnt_geterr(clnt, &re);
    if (st == RPC_AUTHERROR) {
        snprintf(rpc + strlen(rpc), sizeof(rpc) - strlen(rpc), " = %s",
                 peer_auth_stat_name((int)re.re_why));
    }
    ours = cfg->via == PEER_VIA_GK5 && auth != NULL &&
           gk5_rpc_auth_inquire(auth, &info) == 0;
    if (ours) {
        err = gk5_rpc_auth_last_error(auth);
    }
    if (!ours) {
        snprintf(out, outlen, "%s (clnt_stat %d)", rpc, (int)st);
    } else if (err != NULL) {
        snprintf(out, outlen, "%s (clnt_stat %d); gk5: %s", rpc, (int)st,
                 err->text);
    } else {
        snprintf(out, outlen,
                 "%s (clnt_stat %d); gk5_rpc_auth_last_error: none recorded",
                 rpc, (int)st);
    }
}
