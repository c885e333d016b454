/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 ls|cat|put|rm: a small NFSv4.0 client (RFC 7530) on gk5's own
 * RPC client (gk5_rpc_clnt: RPCSEC_GSS for krb5, krb5i and krb5p, AUTH_SYS
 * for sys), or on libtirpc's clnt_vc with gk5's RPCSEC_GSS AUTH
 * (--transport libtirpc, the default when gk5 is built with libtirpc).
 *
 * Each command is one client: SETCLIENTID and SETCLIENTID_CONFIRM with an
 * id of its own (RFC 7530 9.1.1), RENEW whenever a third of the lease has
 * passed, the path walked from PUTROOTFH with LOOKUP, and for file data
 * OPEN (with OPEN_CONFIRM when the server asks, 16.18), READ or WRITE with
 * the open stateid, COMMIT when the server answered UNSTABLE4 (checking
 * that its write verifier did not change, 16.3.5), CLOSE.  Every NFSv4
 * request goes through support/nfs4/nfs4_xdr.c (on clnt_call: nfs4_tirpc.c).
 * On gk5's client, --inflight N keeps up to N WRITEs (put) or READs (cat,
 * bench) out on the connection at once (gk5_rpc_clnt_send and _wait).
 *
 * gk5 nfs4 bench measures the data path; gk5 nfs4 storm the making of
 * contexts (many RPCSEC_GSS contexts at once, each then checked with one
 * krb5p WRITE and READ; it needs libtirpc: many contexts on one
 * connection, as gk5's AUTHs on one CLIENT).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <pthread.h>
#if defined(GK5_HAVE_MIT) && defined(GK5_HAVE_TIRPC)
/* libtirpc's own RPCSEC_GSS client (--via libtirpc), on MIT's GSS-API. */
#include <rpc/rpcsec_gss.h>
#endif

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/tickets.h>

#include "cli.h"
#include "common/bytes.h"
#ifdef GK5_HAVE_TIRPC
#include "nfs4_tirpc.h"
#else
#include "nfs4_xdr.h"
#endif

#define NFS4_DEFAULT_IO (1024u * 1024u)
#define NFS4_MAX_IO (4u * 1024u * 1024u)
#define NFS4_MAX_COMPONENTS 32
#define NFS4_DIR_ENTRIES 256
#define NFS4_TIMEOUT_MS 30000u
#define NFS4_MAX_ENCTYPES 16
/* --inflight: calls kept out on gk5's client (as gk5 rpc echo). */
#define NFS4_MAX_INFLIGHT 1024u

struct nfs4_args {
    const char *cmd; /* "nfs4 cat" */
    char host[256], hostport[300], path[1024];
    const char *sec_name;
    gk5_rpc_service svc;
    bool sys;
    const char *target;
    char default_target[300];
    const char *ccache, *client_keytab, *client_principal;
    int32_t enctypes[NFS4_MAX_ENCTYPES];
    size_t n_enctypes;
    uint32_t rsize, wsize;
    unsigned timeout_ms;
    bool via_libtirpc; /* bench --via libtirpc: rpc_gss_seccreate (MIT) */
    bool native;       /* gk5's own RPC client, not libtirpc's */
    uint32_t inflight; /* --inflight (gk5's client): calls out at once; 0:
                          one at a time */
    gk5_rpc_establish establish; /* who makes gk5's contexts */
    bool have_establish;
};

struct nfs4_client {
    const struct nfs4_args *a;
    gk5_rpc_clnt *rpc; /* gk5's own client (a->native), or NULL */
#ifdef GK5_HAVE_TIRPC
    CLIENT *clnt;
    AUTH *auth;
    struct timeval tv;
#endif
    uint64_t clientid;
    uint32_t lease;       /* seconds */
    time_t renewed;       /* when the lease was last renewed */
    uint32_t owner_seqid; /* the open-owner's next seqid */
    char owner[64];
};

/* ---- errors ---- */

#ifdef GK5_HAVE_TIRPC
static int rpc_failed(struct nfs4_client *c, enum clnt_stat st,
                      const char *what)
{
    char words[512];

    (void)st;
    cli_rpc_call_error(c->clnt, c->a->sys ? NULL : c->auth, what, words,
                       sizeof(words));
    cli_error("%s: %s", c->a->cmd, words);
    return -1;
}
#endif

/* A call on gk5's client failed: "nfs4 cat: READ: <gk5's words>". */
static int native_failed(struct nfs4_client *c, const gk5_rpc_error *e,
                         const char *what)
{
    cli_error("%s: %s: %s", c->a->cmd, what,
              e->text[0] != '\0' ? e->text : gk5_rpc_strerror(e->code));
    return -1;
}

static int nfs_failed(struct nfs4_client *c, const nfs4_compound_res *res,
                      const char *path)
{
    uint32_t status = res->status;

    for (uint32_t i = 0; i < res->n; i++) {
        if (res->ops[i].status != NFS4_OK) {
            status = res->ops[i].status;
            break;
        }
    }
    cli_error("%s: %s%s%s (%s)", c->a->cmd, path != NULL ? path : "",
              path != NULL ? ": " : "", nfs4_compound_error(res),
              nfs4_status_words(status));
    return -1;
}

/* ---- COMPOUND on gk5's client ---- */

/* COMPOUND4args (minor version 0, tag "gk5", as nfs4_compound) for ops
 * into *args (malloc'd); 0, or -1 with the error printed. */
static int compound_encode(struct nfs4_client *c, const nfs4_argop *ops,
                           uint32_t n, gk5_buffer *args)
{
    nfs4_compound_args ca = {.tag = "gk5", .ops = ops, .n = n};
    size_t len = nfs4_compound_args_size(&ca);
    struct gk5i_wr w;
    uint8_t *buf;

    args->value = NULL;
    args->length = 0;
    buf = len == SIZE_MAX ? NULL : malloc(len);
    if (buf == NULL) {
        cli_error("%s: %s: out of memory for the arguments", c->a->cmd,
                  nfs4_op_name(ops[n - 1].op));
        return -1;
    }
    gk5i_wr_init(&w, buf, len);
    if (nfs4_compound_args_encode(&ca, &w) != 0 || w.left != 0) {
        free(buf);
        cli_error("%s: %s: the arguments do not encode (COMPOUND4args)",
                  c->a->cmd, nfs4_op_name(ops[n - 1].op));
        return -1;
    }
    args->value = buf;
    args->length = len;
    return 0;
}

/* The COMPOUND4args of ops into *args (malloc'd), with r[i].op set for
 * its results (the caller's READ buffers stay as they are); 0, or -1 with
 * the error printed. */
static int compound_args(struct nfs4_client *c, const nfs4_argop *ops,
                         uint32_t n, nfs4_resop *r, gk5_buffer *args)
{
    for (uint32_t i = 0; i < n; i++) {
        r[i].op = ops[i].op;
    }
    return compound_encode(c, ops, n, args);
}

/* Send the COMPOUND of ops on gk5's client without waiting.  0 with *id
 * for compound_wait, or -1 with the error printed. */
static int compound_send(struct nfs4_client *c, const nfs4_argop *ops,
                         uint32_t n, nfs4_resop *r, uint64_t *id)
{
    gk5_buffer args;
    gk5_rpc_error e;
    int rc;

    if (compound_args(c, ops, n, r, &args) != 0) {
        return -1;
    }
    memset(&e, 0, sizeof(e));
    rc = gk5_rpc_clnt_send(c->rpc, NFSPROC4_COMPOUND, &args, id, &e);
    free(args.value);
    if (rc != 0) {
        return native_failed(c, &e, nfs4_op_name(ops[n - 1].op));
    }
    return 0;
}

/* The COMPOUND4res of a call on gk5's client into r[0..n) (its results,
 * index for index, as compound_send set them up); 0, or -1 with the error
 * printed. */
static int compound_results(struct nfs4_client *c, const gk5_buffer *body,
                            nfs4_resop *r, uint32_t n, const char *path)
{
    nfs4_compound_res res = {.ops = r, .max = n};

    if (!nfs4_compound_res_decode(body->value, body->length, &res)) {
        cli_error("%s: %s: the COMPOUND4res of %zu bytes does not decode%s%s",
                  c->a->cmd, nfs4_op_name(r[n - 1].op), body->length,
                  path != NULL ? " for " : "", path != NULL ? path : "");
        return -1;
    }
    if (res.status != NFS4_OK || res.n != n) {
        return nfs_failed(c, &res, path);
    }
    return 0;
}

/* Wait for a COMPOUND sent with compound_send and decode its results. */
static int compound_wait(struct nfs4_client *c, uint64_t id, nfs4_resop *r,
                         uint32_t n, const char *path)
{
    gk5_buffer body = {0, NULL};
    gk5_rpc_error e;
    int ret;

    memset(&e, 0, sizeof(e));
    if (gk5_rpc_clnt_wait(c->rpc, id, &body, &e) != 0) {
        return native_failed(c, &e, nfs4_op_name(r[n - 1].op));
    }
    ret = compound_results(c, &body, r, n, path);
    gk5_buffer_release(&body);
    return ret;
}

/* One COMPOUND; 0, or -1 with the error printed. */
static int compound(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
                    nfs4_resop *r, const char *path)
{
    if (c->rpc != NULL) {
        gk5_buffer args, body = {0, NULL};
        gk5_rpc_error e;
        int rc;

        if (compound_args(c, ops, n, r, &args) != 0) {
            return -1;
        }
        memset(&e, 0, sizeof(e));
        rc = gk5_rpc_clnt_call(c->rpc, NFSPROC4_COMPOUND, &args, &body, &e);
        free(args.value);
        if (rc != 0) {
            return native_failed(c, &e, nfs4_op_name(ops[n - 1].op));
        }
        rc = compound_results(c, &body, r, n, path);
        gk5_buffer_release(&body);
        return rc;
    }
#ifdef GK5_HAVE_TIRPC
    nfs4_compound_res res = {.ops = r, .max = n};
    enum clnt_stat st;

    st = nfs4_compound(c->clnt, ops, n, &res, c->tv);
    if (st != RPC_SUCCESS) {
        return rpc_failed(c, st, nfs4_op_name(ops[n - 1].op));
    }
    if (res.status != NFS4_OK || res.n != n) {
        return nfs_failed(c, &res, path);
    }
    return 0;
#else
    cli_error("%s: no RPC client", c->a->cmd);
    return -1;
#endif
}

/* RFC 7530 9.6: a client keeps its lease alive while it works. */
static int keep_lease(struct nfs4_client *c)
{
    time_t now = time(NULL);
    nfs4_argop a;
    nfs4_resop r[1];

    if (c->lease == 0 || now - c->renewed < (time_t)(c->lease / 3)) {
        return 0;
    }
    memset(&a, 0, sizeof(a));
    a.op = OP_RENEW;
    a.u.renew = c->clientid;
    if (compound(c, &a, 1, r, NULL) != 0) {
        return -1;
    }
    c->renewed = now;
    return 0;
}

/* ---- the client ---- */

/* The largest call or reply body: READ replies and WRITE calls carry up to
 * rsize/wsize bytes. */
static size_t max_body(const struct nfs4_args *a)
{
    return (size_t)(a->rsize > a->wsize ? a->rsize : a->wsize) + 64u * 1024u;
}

/* gk5's own client: the connection and, for krb5*, its RPCSEC_GSS context
 * (AUTH_SYS for sys, as uid 0, gid 0, as libtirpc's authsys_create). */
static int native_open(struct nfs4_client *c)
{
    const struct nfs4_args *a = c->a;
    gk5_rpc_clnt_options opts;
    char err[1024];

    memset(&opts, 0, sizeof(opts));
    opts.flavor = a->sys ? GK5_RPC_FLAVOR_SYS : GK5_RPC_FLAVOR_RPCSEC_GSS;
    /* Room for the calls of --inflight and one more (a RENEW). */
    opts.max_inflight = a->inflight > 0 ? a->inflight + 1 : 1;
    if (opts.max_inflight > NFS4_MAX_INFLIGHT) {
        opts.max_inflight = NFS4_MAX_INFLIGHT;
    }
    opts.call_timeout_ms = a->timeout_ms;
    opts.gss.principal = a->client_principal;
    opts.gss.ccache = a->ccache;
    opts.gss.client_keytab = a->client_keytab;
    opts.gss.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
    opts.gss.n_enctypes = a->n_enctypes;
    opts.gss.timeout_ms = a->timeout_ms;
    opts.gss.establish = a->establish;
    opts.gss.max_body = max_body(a);
    if (cli_rpc_native_connect(a->hostport, NFS4_PROGRAM, NFS4_VERSION,
                               a->target, a->svc, a->sec_name, &opts, &c->rpc,
                               err, sizeof(err)) != 0) {
        cli_error("%s: %s", a->cmd, err);
        return -1;
    }
    return 0;
}

#ifdef GK5_HAVE_TIRPC
static int make_auth(struct nfs4_client *c)
{
    const struct nfs4_args *a = c->a;
    AUTH *auth;

    if (a->sys) {
        char host[256];

        if (gethostname(host, sizeof(host)) != 0) {
            strcpy(host, "localhost");
        }
        host[sizeof(host) - 1] = '\0';
        auth = authsys_create(host, 0, 0, 0, NULL);
        if (auth == NULL) {
            cli_error("%s: cannot make an AUTH_SYS credential", a->cmd);
            return -1;
        }
#ifdef GK5_HAVE_MIT
    } else if (a->via_libtirpc) {
        /* libtirpc's own RPCSEC_GSS on MIT (credentials: KRB5CCNAME and
         * KRB5_CLIENT_KTNAME, set by the caller). */
        char target[300], mech[] = "kerberos_v5";
        rpc_gss_error_t gerr;

        snprintf(target, sizeof(target), "%s", a->target);
        auth = rpc_gss_seccreate(c->clnt, target, mech,
                                 (rpc_gss_service_t)a->svc, NULL, NULL, NULL);
        if (auth == NULL) {
            memset(&gerr, 0, sizeof(gerr));
            rpc_gss_get_error(&gerr);
            cli_error("%s: libtirpc's rpc_gss_seccreate(%s) failed: "
                      "rpc_gss_error %d, system_error %d",
                      a->cmd, a->target, gerr.rpc_gss_error, gerr.system_error);
            return -1;
        }
#endif
    } else {
        gk5_rpc_auth_options opts;
        gk5_rpc_error e;

        memset(&opts, 0, sizeof(opts));
        memset(&e, 0, sizeof(e));
        opts.principal = a->client_principal;
        opts.ccache = a->ccache;
        opts.client_keytab = a->client_keytab;
        opts.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
        opts.n_enctypes = a->n_enctypes;
        opts.timeout_ms = a->timeout_ms;
        opts.establish = a->establish;
        opts.max_body = max_body(a);
        auth = gk5_rpc_auth_create(c->clnt, a->target, a->svc, &opts, &e);
        if (auth == NULL) {
            cli_error("%s: cannot establish RPCSEC_GSS %s with %s: %s", a->cmd,
                      a->sec_name, a->target,
                      e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
            return -1;
        }
    }
    if (c->clnt->cl_auth != NULL) {
        auth_destroy(c->clnt->cl_auth);
    }
    c->clnt->cl_auth = auth;
    c->auth = auth;
    return 0;
}

/* libtirpc's clnt_vc with gk5's AUTH (or libtirpc's own, --via). */
static int tirpc_open(struct nfs4_client *c)
{
    const struct nfs4_args *a = c->a;
    char err[512];

    c->tv.tv_sec = (time_t)(a->timeout_ms / 1000);
    c->tv.tv_usec = (suseconds_t)(a->timeout_ms % 1000) * 1000;
    if (cli_rpc_connect(a->hostport, NFS4_PROGRAM, NFS4_VERSION, &c->clnt, err,
                        sizeof(err)) != 0) {
        cli_error("%s: %s", a->cmd, err);
        return -1;
    }
    return make_auth(c);
}
#endif /* GK5_HAVE_TIRPC */

/* RFC 7530 16.33/16.34: a client id of our own, confirmed; the lease
 * time from the root's attributes. */
static int client_open(struct nfs4_client *c, const struct nfs4_args *a)
{
    char id[160], host[128];
    uint8_t rnd[8];
    nfs4_argop ops[2];
    nfs4_resop r[2];
    nfs4_bitmap mask = {0};

    memset(c, 0, sizeof(*c));
    c->a = a;
#ifdef GK5_HAVE_TIRPC
    if ((a->native ? native_open(c) : tirpc_open(c)) != 0) {
        return -1;
    }
#else
    if (native_open(c) != 0) {
        return -1;
    }
#endif
    if (RAND_bytes(rnd, sizeof(rnd)) != 1) {
        cli_error("%s: no random bytes for the client id", a->cmd);
        return -1;
    }
    if (gethostname(host, sizeof(host)) != 0) {
        strcpy(host, "localhost");
    }
    host[sizeof(host) - 1] = '\0';
    snprintf(id, sizeof(id), "gk5-nfs4/%s/%ld/%02x%02x%02x%02x%02x%02x%02x%02x",
             host, (long)getpid(), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
             rnd[5], rnd[6], rnd[7]);
    snprintf(c->owner, sizeof(c->owner), "gk5-nfs4-owner-%02x%02x%02x%02x",
             rnd[4], rnd[5], rnd[6], rnd[7]);

    memset(ops, 0, sizeof(ops));
    ops[0].op = OP_SETCLIENTID;
    memcpy(ops[0].u.setclientid.verifier, rnd, NFS4_VERIFIER_SIZE);
    ops[0].u.setclientid.id = id;
    /* No callback service: a dummy address (delegations are not used). */
    ops[0].u.setclientid.cb_program = 0x40000000u;
    ops[0].u.setclientid.cb_netid = "tcp";
    ops[0].u.setclientid.cb_addr = "127.0.0.1.0.0";
    if (compound(c, ops, 1, r, NULL) != 0) {
        return -1;
    }
    ops[0].op = OP_SETCLIENTID_CONFIRM;
    ops[0].u.setclientid_confirm.clientid = r[0].u.setclientid.clientid;
    memcpy(ops[0].u.setclientid_confirm.verifier, r[0].u.setclientid.verifier,
           NFS4_VERIFIER_SIZE);
    c->clientid = r[0].u.setclientid.clientid;
    if (compound(c, ops, 1, r, NULL) != 0) {
        return -1;
    }
    c->renewed = time(NULL);
    nfs4_bitmap_set(&mask, FATTR4_LEASE_TIME);
    ops[0] = nfs4_putrootfh();
    ops[1] = nfs4_getattr(&mask);
    if (compound(c, ops, 2, r, "/") != 0) {
        return -1;
    }
    c->lease = r[1].u.getattr.lease_time;
    return 0;
}

static void client_close(struct nfs4_client *c)
{
    gk5_rpc_clnt_free(c->rpc); /* RPCSEC_GSS_DESTROY on the connection */
#ifdef GK5_HAVE_TIRPC
    if (c->clnt != NULL) {
        if (c->auth != NULL) {
            auth_destroy(c->auth); /* RPCSEC_GSS_DESTROY */
            c->clnt->cl_auth = NULL;
        }
        clnt_destroy(c->clnt);
    }
#endif
    memset(c, 0, sizeof(*c));
}

/* ---- paths ---- */

/* Split path into components (in place, in buf); the count, or -1. */
static int split_path(const char *path, char *buf, size_t len,
                      const char **comp)
{
    int n = 0;

    if (strlen(path) >= len) {
        return -1;
    }
    strcpy(buf, path);
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t != NULL;
         t = strtok_r(NULL, "/", &save)) {
        if (n == NFS4_MAX_COMPONENTS || strcmp(t, ".") == 0 ||
            strcmp(t, "..") == 0) {
            return -1;
        }
        comp[n++] = t;
    }
    return n;
}

/* The file handle and attributes (type, size) of the first n components
 * of comp, from the root. */
static int walk(struct nfs4_client *c, const char **comp, int n,
                const char *path, nfs4_fh *fh, nfs4_attrs *attrs)
{
    nfs4_argop ops[NFS4_MAX_COMPONENTS + 3];
    nfs4_resop r[NFS4_MAX_COMPONENTS + 3];
    nfs4_bitmap mask = {0};
    uint32_t k = 0;

    if (keep_lease(c) != 0) {
        return -1;
    }
    memset(ops, 0, sizeof(ops));
    nfs4_bitmap_set(&mask, FATTR4_TYPE);
    nfs4_bitmap_set(&mask, FATTR4_SIZE);
    ops[k++] = nfs4_putrootfh();
    for (int i = 0; i < n; i++) {
        ops[k].op = OP_LOOKUP;
        ops[k++].u.lookup.name = comp[i];
    }
    ops[k++] = nfs4_getfh();
    ops[k++] = nfs4_getattr(&mask);
    if (compound(c, ops, k, r, path) != 0) {
        return -1;
    }
    *fh = r[k - 2].u.getfh;
    *attrs = r[k - 1].u.getattr;
    return 0;
}

/* ---- open, read, write, close ---- */

struct nfs4_open_file {
    nfs4_fh fh;
    nfs4_stateid stateid;
};

/* RFC 7530 16.16: OPEN name in directory dir (creating it, truncated,
 * when create), then OPEN_CONFIRM when the server asks for it. */
static int open_file(struct nfs4_client *c, const nfs4_fh *dir,
                     const char *name, bool create, const char *path,
                     struct nfs4_open_file *f)
{
    nfs4_argop ops[3];
    nfs4_resop r[3];

    if (keep_lease(c) != 0) {
        return -1;
    }
    memset(ops, 0, sizeof(ops));
    ops[0] = nfs4_putfh(dir);
    ops[1].op = OP_OPEN;
    ops[1].u.open.seqid = c->owner_seqid;
    ops[1].u.open.share_access =
        create ? OPEN4_SHARE_ACCESS_BOTH : 1u /* OPEN4_SHARE_ACCESS_READ */;
    ops[1].u.open.share_deny = OPEN4_SHARE_DENY_NONE;
    ops[1].u.open.clientid = c->clientid;
    ops[1].u.open.owner = c->owner;
    ops[1].u.open.create = create;
    ops[1].u.open.createmode = UNCHECKED4;
    ops[1].u.open.mode = 0644;
    ops[1].u.open.truncate = create;
    ops[1].u.open.name = name;
    ops[2] = nfs4_getfh();
    if (compound(c, ops, 3, r, path) != 0) {
        return -1;
    }
    c->owner_seqid++;
    f->fh = r[2].u.getfh;
    f->stateid = r[1].u.open.stateid;
    if (r[1].u.open.rflags & OPEN4_RESULT_CONFIRM) {
        ops[0] = nfs4_putfh(&f->fh);
        ops[1].op = OP_OPEN_CONFIRM;
        ops[1].u.open_confirm.stateid = f->stateid;
        ops[1].u.open_confirm.seqid = c->owner_seqid;
        if (compound(c, ops, 2, r, path) != 0) {
            return -1;
        }
        c->owner_seqid++;
        f->stateid = r[1].u.open_confirm;
    }
    return 0;
}

/* (One COMPOUND of PUTFH and an owner-seqid op, as OPEN_CONFIRM above:
 * the ops and their fields differ, so each is built where it is sent.) */
static int close_file(struct nfs4_client *c, struct nfs4_open_file *f,
                      const char *path)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];

    memset(ops, 0, sizeof(ops));
    ops[0] = nfs4_putfh(&f->fh);
    ops[1].op = OP_CLOSE;
    ops[1].u.close.seqid = c->owner_seqid;
    ops[1].u.close.stateid = f->stateid;
    if (compound(c, ops, 2, r, path) != 0) {
        return -1;
    }
    c->owner_seqid++;
    return 0;
}

/* ---- the commands ---- */

static int cmd_ls(struct nfs4_client *c, const char *path)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh fh;
    nfs4_attrs attrs;
    nfs4_dirent *ents = NULL;
    uint64_t cookie = 0;
    uint8_t verf[NFS4_VERIFIER_SIZE] = {0};
    int n = split_path(path, buf, sizeof(buf), comp), ret = -1;

    if (n < 0) {
        cli_error("%s: '%s' is not a usable path", c->a->cmd, path);
        return -1;
    }
    if (walk(c, comp, n, path, &fh, &attrs) != 0) {
        return -1;
    }
    if (attrs.type != NF4DIR) {
        printf("%c %12" PRIu64 " %s\n", attrs.type == NF4REG ? '-' : '?',
               attrs.size, n > 0 ? comp[n - 1] : "/");
        return 0;
    }
    ents = calloc(NFS4_DIR_ENTRIES, sizeof(*ents));
    if (ents == NULL) {
        cli_error("%s: out of memory", c->a->cmd);
        return -1;
    }
    for (bool eof = false; !eof;) {
        nfs4_argop ops[2];
        nfs4_resop r[2];
        nfs4_bitmap mask = {0};

        if (keep_lease(c) != 0) {
            goto cleanup;
        }
        memset(ops, 0, sizeof(ops));
        memset(r, 0, sizeof(r));
        nfs4_bitmap_set(&mask, FATTR4_TYPE);
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
        ops[0] = nfs4_putfh(&fh);
        ops[1].op = OP_READDIR;
        ops[1].u.readdir.cookie = cookie;
        memcpy(ops[1].u.readdir.cookieverf, verf, sizeof(verf));
        ops[1].u.readdir.dircount = 8192;
        ops[1].u.readdir.maxcount = 65536;
        ops[1].u.readdir.attrs = mask;
        r[1].u.readdir.entries = ents;
        r[1].u.readdir.cap = NFS4_DIR_ENTRIES;
        if (compound(c, ops, 2, r, path) != 0) {
            goto cleanup;
        }
        for (uint32_t i = 0; i < r[1].u.readdir.n; i++) {
            const nfs4_dirent *e = &ents[i];
            printf("%c %12" PRIu64 " %s\n",
                   e->attrs.type == NF4DIR   ? 'd'
                   : e->attrs.type == NF4REG ? '-'
                                             : '?',
                   e->attrs.size, e->name);
            cookie = e->cookie;
        }
        memcpy(verf, r[1].u.readdir.cookieverf, sizeof(verf));
        eof = r[1].u.readdir.eof;
        if (!eof && r[1].u.readdir.n == 0) {
            cli_error("%s: %s: READDIR returned no entries and no end",
                      c->a->cmd, path);
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    free(ents);
    return ret;
}

/* The directory holding path's last component, and that component. */
static int walk_parent(struct nfs4_client *c, const char *path, char *buf,
                       size_t len, nfs4_fh *dir, const char **name)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    nfs4_attrs attrs;
    int n = split_path(path, buf, len, comp);

    if (n <= 0) {
        cli_error("%s: '%s' does not name a file", c->a->cmd, path);
        return -1;
    }
    if (walk(c, comp, n - 1, path, dir, &attrs) != 0) {
        return -1;
    }
    *name = comp[n - 1];
    return 0;
}

/* --inflight on gk5's client: one READ or WRITE kept out. */
struct io_slot {
    uint64_t id;  /* gk5_rpc_clnt_send's */
    uint64_t off; /* the call's offset */
    size_t len;   /* WRITE: the bytes sent */
    uint8_t *buf; /* its data (rsize or wsize bytes) */
    nfs4_resop r[2];
};

/* n slots, each with a buffer of size bytes; NULL (error printed) when
 * out of memory. */
static struct io_slot *io_slots_new(struct nfs4_client *c, uint32_t n,
                                    uint32_t size)
{
    struct io_slot *s = calloc(n, sizeof(*s));

    for (uint32_t i = 0; s != NULL && i < n; i++) {
        s[i].buf = malloc(size);
        if (s[i].buf == NULL) {
            for (uint32_t j = 0; j < i; j++) {
                free(s[j].buf);
            }
            free(s);
            s = NULL;
        }
    }
    if (s == NULL) {
        cli_error("%s: out of memory for %u buffers of %u bytes", c->a->cmd, n,
                  size);
    }
    return s;
}

/* Collect the calls still out (their results dropped), free the slots. */
static void io_slots_free(struct nfs4_client *c, struct io_slot *s, uint32_t n,
                          uint64_t done, uint64_t sent)
{
    for (; s != NULL && done < sent; done++) {
        gk5_buffer body = {0, NULL};

        if (gk5_rpc_clnt_wait(c->rpc, s[done % n].id, &body, NULL) == 0) {
            gk5_buffer_release(&body);
        }
    }
    for (uint32_t i = 0; s != NULL && i < n; i++) {
        free(s[i].buf);
    }
    free(s);
}

/* cmd_cat's READs with up to --inflight of them out at once on gk5's
 * client: each into its own buffer at its own offset, written out in
 * order.  After a short READ (or the end) the READs sent beyond it are
 * collected and dropped, and reading goes on from where the data ended. */
static int cat_inflight(struct nfs4_client *c, const struct nfs4_open_file *f,
                        const char *path, FILE *out)
{
    uint32_t n = c->a->inflight, rsize = c->a->rsize;
    struct io_slot *s = io_slots_new(c, n, rsize);
    uint64_t sent = 0, done = 0, drop_below = 0;
    uint64_t next = 0; /* the offset of the next READ sent */
    uint64_t off = 0;  /* the bytes written out */
    bool eof = false;
    int ret = -1;

    if (s == NULL) {
        return -1;
    }
    for (;;) {
        while (!eof && sent - done < n) {
            struct io_slot *slot = &s[sent % n];
            nfs4_argop ops[2];

            if (keep_lease(c) != 0) {
                goto cleanup;
            }
            memset(ops, 0, sizeof(ops));
            memset(slot->r, 0, sizeof(slot->r));
            ops[0] = nfs4_putfh(&f->fh);
            ops[1].op = OP_READ;
            ops[1].u.read.stateid = f->stateid;
            ops[1].u.read.offset = next;
            ops[1].u.read.count = rsize;
            slot->r[1].u.read.buf = slot->buf;
            slot->r[1].u.read.cap = rsize;
            if (compound_send(c, ops, 2, slot->r, &slot->id) != 0) {
                goto cleanup;
            }
            slot->off = next;
            next += rsize;
            sent++;
        }
        if (done == sent) {
            break;
        }
        struct io_slot *slot = &s[done % n];
        bool drop = done < drop_below;
        int rc = compound_wait(c, slot->id, slot->r, 2, path);

        done++;
        if (rc != 0) {
            goto cleanup;
        }
        if (drop) {
            continue;
        }
        uint32_t len = slot->r[1].u.read.len;
        if (len > 0 && fwrite(slot->buf, 1, len, out) != len) {
            cli_error("%s: writing the file out: %s", c->a->cmd,
                      strerror(errno));
            goto cleanup;
        }
        off += len;
        if (slot->r[1].u.read.eof) {
            eof = true;
            drop_below = sent;
        } else if (len == 0) {
            cli_error("%s: %s: READ at %" PRIu64 " returned nothing and no end",
                      c->a->cmd, path, off);
            goto cleanup;
        } else if (len < rsize) {
            /* Short: what was asked for beyond it is asked again. */
            drop_below = sent;
            next = off;
        }
    }
    ret = 0;

cleanup:
    io_slots_free(c, s, n, done, sent);
    return ret;
}

static int cmd_cat(struct nfs4_client *c, const char *path, FILE *out)
{
    struct nfs4_open_file f;
    char buf[1024];
    nfs4_fh dir;
    const char *name;
    uint8_t *data = NULL;
    uint64_t off = 0;
    int ret = -1;

    if (walk_parent(c, path, buf, sizeof(buf), &dir, &name) != 0 ||
        open_file(c, &dir, name, false, path, &f) != 0) {
        return -1;
    }
    if (c->rpc != NULL && c->a->inflight > 0) {
        ret = cat_inflight(c, &f, path, out);
        if (ret == 0 && fflush(out) != 0) {
            cli_error("%s: writing the file out: %s", c->a->cmd,
                      strerror(errno));
            ret = -1;
        }
        goto cleanup;
    }
    data = malloc(c->a->rsize);
    if (data == NULL) {
        cli_error("%s: out of memory", c->a->cmd);
        goto cleanup;
    }
    for (bool eof = false; !eof;) {
        nfs4_argop ops[2];
        nfs4_resop r[2];

        if (keep_lease(c) != 0) {
            goto cleanup;
        }
        memset(ops, 0, sizeof(ops));
        memset(r, 0, sizeof(r));
        ops[0] = nfs4_putfh(&f.fh);
        ops[1].op = OP_READ;
        ops[1].u.read.stateid = f.stateid;
        ops[1].u.read.offset = off;
        ops[1].u.read.count = c->a->rsize;
        r[1].u.read.buf = data;
        r[1].u.read.cap = c->a->rsize;
        if (compound(c, ops, 2, r, path) != 0) {
            goto cleanup;
        }
        if (r[1].u.read.len > 0 &&
            fwrite(data, 1, r[1].u.read.len, out) != r[1].u.read.len) {
            cli_error("%s: writing the file out: %s", c->a->cmd,
                      strerror(errno));
            goto cleanup;
        }
        off += r[1].u.read.len;
        eof = r[1].u.read.eof;
        if (!eof && r[1].u.read.len == 0) {
            cli_error("%s: %s: READ at %" PRIu64 " returned nothing and no end",
                      c->a->cmd, path, off);
            goto cleanup;
        }
    }
    if (fflush(out) != 0) {
        cli_error("%s: writing the file out: %s", c->a->cmd, strerror(errno));
        goto cleanup;
    }
    ret = 0;

cleanup:
    free(data);
    if (close_file(c, &f, path) != 0) {
        ret = -1;
    }
    return ret;
}

/* What put keeps across its WRITEs. */
struct put_state {
    uint8_t verf[NFS4_VERIFIER_SIZE];
    bool have_verf, unstable;
};

/* The reply to a WRITE of len bytes: its count (at least 1, at most len)
 * and its verifier checked; 0, or -1 with the error printed. */
static int write_checked(struct nfs4_client *c, const char *path,
                         const nfs4_resop *w, size_t len, struct put_state *ps)
{
    if (w->u.write.count == 0 || w->u.write.count > len) {
        cli_error("%s: %s: the server wrote %u of %zu bytes", c->a->cmd, path,
                  (unsigned)w->u.write.count, len);
        return -1;
    }
    /* RFC 7530 16.36.5: a changed verifier means the server lost what it
     * had not committed. */
    if (ps->have_verf &&
        memcmp(ps->verf, w->u.write.verifier, sizeof(ps->verf)) != 0) {
        cli_error("%s: %s: the server restarted during the transfer "
                  "(its write verifier changed); put the file again",
                  c->a->cmd, path);
        return -1;
    }
    memcpy(ps->verf, w->u.write.verifier, sizeof(ps->verf));
    ps->have_verf = true;
    ps->unstable |= w->u.write.committed != FILE_SYNC4;
    return 0;
}

/* WRITE data[0..len) at off, one COMPOUND at a time until all is written;
 * 0, or -1 with the error printed. */
static int write_all(struct nfs4_client *c, const struct nfs4_open_file *f,
                     const char *path, const uint8_t *data, size_t len,
                     uint64_t off, struct put_state *ps)
{
    for (size_t done = 0; done < len;) {
        nfs4_argop ops[2];
        nfs4_resop r[2];

        if (keep_lease(c) != 0) {
            return -1;
        }
        memset(ops, 0, sizeof(ops));
        ops[0] = nfs4_putfh(&f->fh);
        ops[1].op = OP_WRITE;
        ops[1].u.write.stateid = f->stateid;
        ops[1].u.write.offset = off + done;
        ops[1].u.write.stable = UNSTABLE4;
        ops[1].u.write.data = data + done;
        ops[1].u.write.len = (uint32_t)(len - done);
        if (compound(c, ops, 2, r, path) != 0 ||
            write_checked(c, path, &r[1], len - done, ps) != 0) {
            return -1;
        }
        done += r[1].u.write.count;
    }
    return 0;
}

/* put's WRITEs with up to --inflight of them out at once on gk5's client,
 * each from its own buffer at its own offset; a WRITE the server took in
 * part has its rest written before the next reply is looked at. */
static int put_inflight(struct nfs4_client *c, const struct nfs4_open_file *f,
                        FILE *in, const char *local, const char *path,
                        struct put_state *ps)
{
    uint32_t n = c->a->inflight, wsize = c->a->wsize;
    struct io_slot *s = io_slots_new(c, n, wsize);
    uint64_t sent = 0, done = 0, next = 0;
    bool end = false;
    int ret = -1;

    if (s == NULL) {
        return -1;
    }
    for (;;) {
        while (!end && sent - done < n) {
            struct io_slot *slot = &s[sent % n];
            size_t got = fread(slot->buf, 1, wsize, in);
            nfs4_argop ops[2];

            if (got < wsize) {
                if (ferror(in)) {
                    cli_error("%s: reading %s: %s", c->a->cmd, local,
                              strerror(errno));
                    goto cleanup;
                }
                end = true;
                if (got == 0) {
                    break;
                }
            }
            if (keep_lease(c) != 0) {
                goto cleanup;
            }
            memset(ops, 0, sizeof(ops));
            memset(slot->r, 0, sizeof(slot->r));
            ops[0] = nfs4_putfh(&f->fh);
            ops[1].op = OP_WRITE;
            ops[1].u.write.stateid = f->stateid;
            ops[1].u.write.offset = next;
            ops[1].u.write.stable = UNSTABLE4;
            ops[1].u.write.data = slot->buf;
            ops[1].u.write.len = (uint32_t)got;
            if (compound_send(c, ops, 2, slot->r, &slot->id) != 0) {
                goto cleanup;
            }
            slot->off = next;
            slot->len = got;
            next += got;
            sent++;
        }
        if (done == sent) {
            break;
        }
        struct io_slot *slot = &s[done % n];
        int rc = compound_wait(c, slot->id, slot->r, 2, path);

        done++;
        if (rc != 0 ||
            write_checked(c, path, &slot->r[1], slot->len, ps) != 0) {
            goto cleanup;
        }
        uint32_t count = slot->r[1].u.write.count;
        if (count < slot->len &&
            write_all(c, f, path, slot->buf + count, slot->len - count,
                      slot->off + count, ps) != 0) {
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    io_slots_free(c, s, n, done, sent);
    return ret;
}

static int cmd_put_from(struct nfs4_client *c, FILE *in, const char *local,
                        const char *path)
{
    struct nfs4_open_file f;
    char buf[1024];
    nfs4_fh dir;
    const char *name;
    uint8_t *data = NULL;
    uint64_t off = 0;
    struct put_state ps = {.have_verf = false, .unstable = false};
    bool opened = false;
    int ret = -1;

    data = malloc(c->a->wsize);
    if (data == NULL) {
        cli_error("%s: out of memory", c->a->cmd);
        goto cleanup;
    }
    if (walk_parent(c, path, buf, sizeof(buf), &dir, &name) != 0 ||
        open_file(c, &dir, name, true, path, &f) != 0) {
        goto cleanup;
    }
    opened = true;
    if (c->rpc != NULL && c->a->inflight > 0) {
        if (put_inflight(c, &f, in, local, path, &ps) != 0) {
            goto cleanup;
        }
    } else {
        for (;;) {
            size_t got = fread(data, 1, c->a->wsize, in);

            if (got == 0) {
                if (ferror(in)) {
                    cli_error("%s: reading %s: %s", c->a->cmd, local,
                              strerror(errno));
                    goto cleanup;
                }
                break;
            }
            if (write_all(c, &f, path, data, got, off, &ps) != 0) {
                goto cleanup;
            }
            off += got;
            if (got < c->a->wsize) {
                break;
            }
        }
    }
    if (ps.unstable) {
        nfs4_argop ops[2];
        nfs4_resop r[2];

        memset(ops, 0, sizeof(ops));
        ops[0] = nfs4_putfh(&f.fh);
        ops[1].op = OP_COMMIT;
        if (compound(c, ops, 2, r, path) != 0) {
            goto cleanup;
        }
        if (memcmp(ps.verf, r[1].u.commit, sizeof(ps.verf)) != 0) {
            cli_error("%s: %s: the server restarted before COMMIT (its write "
                      "verifier changed); put the file again",
                      c->a->cmd, path);
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    if (opened && close_file(c, &f, path) != 0) {
        ret = -1;
    }
    free(data);
    return ret;
}

static int cmd_put(struct nfs4_client *c, const char *local, const char *path)
{
    FILE *in = strcmp(local, "-") == 0 ? stdin : fopen(local, "rb");
    int ret;

    if (in == NULL) {
        cli_error("%s: cannot open %s: %s", c->a->cmd, local, strerror(errno));
        return -1;
    }
    ret = cmd_put_from(c, in, local, path);
    if (in != stdin) {
        fclose(in);
    }
    return ret;
}

static int cmd_rm(struct nfs4_client *c, const char *path)
{
    char buf[1024];
    nfs4_fh dir;
    const char *name;
    nfs4_argop ops[2];
    nfs4_resop r[2];

    if (walk_parent(c, path, buf, sizeof(buf), &dir, &name) != 0) {
        return -1;
    }
    memset(ops, 0, sizeof(ops));
    ops[0] = nfs4_putfh(&dir);
    ops[1].op = OP_REMOVE;
    ops[1].u.remove.name = name;
    return compound(c, ops, 2, r, path);
}

/* "1m", "64k", "4096": bytes, 1..NFS4_MAX_IO; 0 or -1. */
static int parse_io_size(const char *s, uint32_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        v *= 1024;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1024 * 1024;
        end++;
    }
    if (*end != '\0' || v == 0 || v > NFS4_MAX_IO) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- for gk5 demo ---- */

#ifdef GK5_HAVE_TIRPC

int cli_nfs4_put_cat(struct cli_nfs4_transfer *t)
{
    struct nfs4_args a;
    struct nfs4_client c;
    char *back = NULL;
    size_t back_len = 0;
    FILE *in = NULL, *out = NULL;
    double t0;
    int ret = -1;

    memset(&a, 0, sizeof(a));
    a.cmd = "demo nfs4";
    a.sys = strcmp(t->sec, "sys") == 0;
    a.sec_name = t->sec;
    if (!a.sys && gk5_rpc_service_parse(t->sec, &a.svc) != 0) {
        return -1;
    }
    snprintf(a.hostport, sizeof(a.hostport), "%s", t->hostport);
    a.target = t->target;
    a.client_keytab = t->client_keytab;
    a.client_principal = t->client_principal;
    a.establish = t->establish;
    a.rsize = a.wsize = NFS4_DEFAULT_IO;
    a.timeout_ms = NFS4_TIMEOUT_MS;
    if (client_open(&c, &a) != 0) {
        client_close(&c);
        return -1;
    }
    in = fmemopen((void *)(uintptr_t)t->data, t->len, "rb");
    out = open_memstream(&back, &back_len);
    if (in == NULL || out == NULL) {
        goto cleanup;
    }
    unsigned rounds = t->rounds > 0 ? t->rounds : 1;
    /* One round untimed first: the server makes the file and its data
     * blocks, the connection warms up. */
    if (cmd_put_from(&c, in, "(memory)", t->path) != 0 ||
        cmd_cat(&c, t->path, out) != 0) {
        goto cleanup;
    }
    t0 = bench_now();
    for (unsigned r = 0; r < rounds; r++) {
        rewind(in);
        if (cmd_put_from(&c, in, "(memory)", t->path) != 0) {
            goto cleanup;
        }
    }
    t->put_s = bench_now() - t0;
    t0 = bench_now();
    for (unsigned r = 0; r < rounds; r++) {
        if (fseeko(out, 0, SEEK_SET) != 0 || cmd_cat(&c, t->path, out) != 0) {
            goto cleanup;
        }
    }
    t->cat_s = bench_now() - t0;
    fclose(out);
    out = NULL;
    if (back_len != t->len || memcmp(back, t->data, t->len) != 0) {
        cli_error("demo nfs4: %s came back different (%zu bytes)", t->path,
                  back_len);
        goto cleanup;
    }
    ret = cmd_rm(&c, t->path);

cleanup:
    if (in != NULL) {
        fclose(in);
    }
    if (out != NULL) {
        fclose(out);
    }
    free(back);
    client_close(&c);
    return ret;
}

#endif /* GK5_HAVE_TIRPC */

/* ---- gk5 nfs4 bench ---- */

#define BENCH_MAX_THREADS 64
#define BENCH_MAX_SIZES 8
#define BENCH_SPAN (1024u * 1024u) /* offsets cycle below 1 MiB (+ size) */
/* libtirpc's client marshals krb5i/krb5p bodies into its 256 KiB record
 * buffer (docs/design.md, "libtirpc"): above this it cannot carry a call
 * or reply. */
#define BENCH_LIBTIRPC_MAX (192u * 1024u)

enum bench_op { BENCH_WRITE, BENCH_READ, BENCH_GETATTR };
static const char *const bench_op_names[] = {"WRITE", "READ", "GETATTR"};

struct bench_worker {
    pthread_t tid;
    struct nfs4_client c;
    struct nfs4_open_file f;
    char name[64];
    bool opened;
    uint32_t size;
    enum bench_op op;
    double deadline;
    pthread_barrier_t *start;
    uint8_t *buf; /* --inflight: one size's room per call out */
    uint64_t calls;
    int failed;
};

/* Call k of the worker's operation into ops and r (a READ into buf); its
 * offset. */
static uint64_t bench_build(struct bench_worker *w, uint64_t k, nfs4_argop *ops,
                            nfs4_resop *r, uint8_t *buf)
{
    nfs4_bitmap mask = {0};
    uint64_t off = w->size < BENCH_SPAN ? (k * w->size) % BENCH_SPAN : 0;

    memset(ops, 0, 2 * sizeof(*ops));
    memset(r, 0, 2 * sizeof(*r));
    ops[0] = nfs4_putfh(&w->f.fh);
    switch (w->op) {
    case BENCH_WRITE:
        ops[1].op = OP_WRITE;
        ops[1].u.write.stateid = w->f.stateid;
        ops[1].u.write.offset = off;
        ops[1].u.write.stable = UNSTABLE4;
        ops[1].u.write.data = w->buf;
        ops[1].u.write.len = w->size;
        break;
    case BENCH_READ:
        ops[1].op = OP_READ;
        ops[1].u.read.stateid = w->f.stateid;
        ops[1].u.read.offset = off;
        ops[1].u.read.count = w->size;
        r[1].u.read.buf = buf;
        r[1].u.read.cap = w->size;
        break;
    case BENCH_GETATTR:
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
        nfs4_bitmap_set(&mask, FATTR4_CHANGE);
        ops[1] = nfs4_getattr(&mask);
        break;
    }
    return off;
}

/* A READ answered in full; 0 or -1 (error printed). */
static int bench_check(struct bench_worker *w, const nfs4_resop *r,
                       uint64_t off)
{
    if (w->op == BENCH_READ && r[1].u.read.len != w->size) {
        cli_error("%s: %s: READ of %u bytes at %" PRIu64 " returned %u",
                  w->c.a->cmd, w->name, (unsigned)w->size, off,
                  (unsigned)r[1].u.read.len);
        return -1;
    }
    return 0;
}

/* One call of the worker's operation; 0 or -1 (error printed). */
static int bench_call(struct bench_worker *w, uint64_t k)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];
    uint64_t off;

    if (keep_lease(&w->c) != 0) {
        return -1;
    }
    off = bench_build(w, k, ops, r, w->buf);
    if (compound(&w->c, ops, 2, r, w->name) != 0) {
        return -1;
    }
    return bench_check(w, r, off);
}

/* --inflight: the worker's calls kept out on its gk5 client until the
 * deadline, each READ into its own buffer; the calls still out then are
 * collected and counted. */
static void bench_inflight(struct bench_worker *w)
{
    uint32_t n = w->c.a->inflight;
    struct io_slot *s = calloc(n, sizeof(*s));
    uint64_t sent = 0, done = 0;

    if (s == NULL) {
        cli_error("%s: out of memory", w->c.a->cmd);
        w->failed = 1;
        return;
    }
    for (;;) {
        while (!w->failed && sent - done < n && bench_now() < w->deadline) {
            struct io_slot *slot = &s[sent % n];
            nfs4_argop ops[2];

            if (keep_lease(&w->c) != 0) {
                w->failed = 1;
                break;
            }
            slot->off = bench_build(w, sent, ops, slot->r,
                                    w->buf + (size_t)(sent % n) * w->size);
            if (compound_send(&w->c, ops, 2, slot->r, &slot->id) != 0) {
                w->failed = 1;
                break;
            }
            sent++;
        }
        if (done == sent) {
            break;
        }
        struct io_slot *slot = &s[done % n];
        done++;
        if (w->failed) {
            gk5_buffer body = {0, NULL};
            if (gk5_rpc_clnt_wait(w->c.rpc, slot->id, &body, NULL) == 0) {
                gk5_buffer_release(&body);
            }
            continue;
        }
        if (compound_wait(&w->c, slot->id, slot->r, 2, w->name) != 0 ||
            bench_check(w, slot->r, slot->off) != 0) {
            w->failed = 1;
            continue;
        }
        w->calls++;
    }
    free(s);
}

static void *bench_worker_main(void *arg)
{
    struct bench_worker *w = arg;

    (void)pthread_barrier_wait(w->start);
    if (w->c.rpc != NULL && w->c.a->inflight > 0) {
        bench_inflight(w);
        return NULL;
    }
    for (uint64_t k = 0; bench_now() < w->deadline; k++) {
        if (bench_call(w, k) != 0) {
            w->failed = 1;
            break;
        }
        w->calls++;
    }
    return NULL;
}

/* Run op on every worker at once for seconds; the aggregate per second
 * (calls), or -1. */
static double bench_phase(struct bench_worker *w, unsigned n, enum bench_op op,
                          double seconds)
{
    pthread_barrier_t start;
    double t0, t1;
    uint64_t calls = 0;
    int failed = 0;

    if (pthread_barrier_init(&start, NULL, n + 1) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        w[i].op = op;
        w[i].calls = 0;
        w[i].failed = 0;
        w[i].start = &start;
        w[i].deadline = 1e300;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&w[i].tid, NULL, bench_worker_main, &w[i]) != 0) {
            /* The barrier would never open: give up on the process. */
            cli_error("nfs4 bench: cannot start a thread");
            exit(CLI_EXIT_FAIL);
        }
    }
    t0 = bench_now();
    for (unsigned i = 0; i < n; i++) {
        w[i].deadline = t0 + seconds;
    }
    (void)pthread_barrier_wait(&start);
    for (unsigned i = 0; i < n; i++) {
        pthread_join(w[i].tid, NULL);
        calls += w[i].calls;
        failed |= w[i].failed;
    }
    t1 = bench_now();
    pthread_barrier_destroy(&start);
    return failed ? -1 : (double)calls / (t1 - t0);
}

struct bench_opts {
    const char *dir;
    const char *secs[4];
    unsigned n_secs;
    uint32_t sizes[BENCH_MAX_SIZES];
    unsigned n_sizes;
    double seconds;
    unsigned threads;
};

/* The workers' clients, directory and files for one service. */
static int bench_setup(struct nfs4_args *a, const struct bench_opts *o,
                       struct bench_worker *w, uint32_t max_size)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int n = split_path(o->dir, buf, sizeof(buf), comp);

    if (n < 0) {
        cli_error("%s: '%s' is not a usable path", a->cmd, o->dir);
        return -1;
    }
    a->rsize = a->wsize = max_size;
    for (unsigned i = 0; i < o->threads; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        snprintf(w[i].name, sizeof(w[i].name), "gk5-bench-%ld-%u",
                 (long)getpid(), i);
        w[i].buf = calloc(a->inflight > 0 ? a->inflight : 1, max_size);
        if (w[i].buf == NULL || client_open(&w[i].c, a) != 0 ||
            walk(&w[i].c, comp, n, o->dir, &dir, &attrs) != 0 ||
            open_file(&w[i].c, &dir, w[i].name, true, w[i].name, &w[i].f) !=
                0) {
            return -1;
        }
        w[i].opened = true;
    }
    return 0;
}

static void bench_teardown(struct bench_worker *w, unsigned n,
                           const char *dirpath)
{
    for (unsigned i = 0; i < n; i++) {
        if (w[i].opened) {
            char path[1200];
            const char *comp[NFS4_MAX_COMPONENTS];
            char buf[1024];
            nfs4_fh dir;
            nfs4_attrs attrs;
            int k = split_path(dirpath, buf, sizeof(buf), comp);

            (void)close_file(&w[i].c, &w[i].f, w[i].name);
            snprintf(path, sizeof(path), "%s/%s", dirpath, w[i].name);
            if (k >= 0 && walk(&w[i].c, comp, k, dirpath, &dir, &attrs) == 0) {
                nfs4_argop ops[2];
                nfs4_resop r[2];
                memset(ops, 0, sizeof(ops));
                ops[0] = nfs4_putfh(&dir);
                ops[1].op = OP_REMOVE;
                ops[1].u.remove.name = w[i].name;
                (void)compound(&w[i].c, ops, 2, r, path);
            }
        }
        client_close(&w[i].c);
        free(w[i].buf);
        memset(&w[i], 0, sizeof(w[i]));
    }
}

static const char *size_text(uint32_t size, char *buf, size_t len)
{
    if (size % (1024u * 1024u) == 0) {
        snprintf(buf, len, "%um", size / (1024u * 1024u));
    } else if (size % 1024u == 0) {
        snprintf(buf, len, "%uk", size / 1024u);
    } else {
        snprintf(buf, len, "%u", size);
    }
    return buf;
}

static int cmd_bench(struct nfs4_args *a, const struct bench_opts *o)
{
    static struct bench_worker w[BENCH_MAX_THREADS];
    /* [sec][size][op]: MB/s (WRITE, READ) or calls/s (GETATTR) */
    double v[4][BENCH_MAX_SIZES][3];
    bool na[4][BENCH_MAX_SIZES];
    uint32_t max_size = 0;
    int sys_index = -1, ret = 0;
    char sz[32];

    memset(na, 0, sizeof(na));
    for (unsigned j = 0; j < o->n_sizes; j++) {
        max_size = o->sizes[j] > max_size ? o->sizes[j] : max_size;
    }
    unsigned out = o->threads * (a->inflight > 0 ? a->inflight : 1);
    printf("gk5 nfs4 bench: %s, client %s, %u call%s in flight, %.1f s per "
           "cell\n",
           a->hostport,
           a->via_libtirpc ? "libtirpc (rpc_gss_seccreate, MIT)"
           : a->native     ? "gk5 (gk5 transport)"
                           : "gk5 (RPCSEC_GSS AUTH)",
           out, out == 1 ? "" : "s", o->seconds);
    for (unsigned s = 0; s < o->n_secs; s++) {
        struct nfs4_args sa = *a;
        uint32_t top = max_size;

        sa.sec_name = o->secs[s];
        sa.sys = strcmp(o->secs[s], "sys") == 0;
        if (sa.sys) {
            sys_index = (int)s;
        } else if (gk5_rpc_service_parse(o->secs[s], &sa.svc) != 0) {
            cli_error("%s: --sec: '%s' is not one of sys, krb5, krb5i, krb5p",
                      a->cmd, o->secs[s]);
            return CLI_EXIT_USAGE;
        }
        if (a->via_libtirpc && !sa.sys && sa.svc != GK5_RPC_SVC_NONE &&
            top > BENCH_LIBTIRPC_MAX) {
            top = BENCH_LIBTIRPC_MAX;
        }
        if (bench_setup(&sa, o, w, top) != 0) {
            bench_teardown(w, o->threads, o->dir);
            return CLI_EXIT_FAIL;
        }
        for (unsigned j = 0; j < o->n_sizes; j++) {
            if (o->sizes[j] > top) {
                na[s][j] = true;
                continue;
            }
            for (unsigned i = 0; i < o->threads; i++) {
                w[i].size = o->sizes[j];
            }
            for (int op = BENCH_WRITE; op <= BENCH_GETATTR; op++) {
                if (op == BENCH_GETATTR && j > 0) {
                    v[s][j][op] = v[s][0][op];
                    continue;
                }
                double rate =
                    bench_phase(w, o->threads, (enum bench_op)op, o->seconds);
                if (rate < 0) {
                    bench_teardown(w, o->threads, o->dir);
                    return CLI_EXIT_FAIL;
                }
                v[s][j][op] = op == BENCH_GETATTR
                                  ? rate
                                  : rate * o->sizes[j] / 1e6; /* MB/s */
            }
        }
        bench_teardown(w, o->threads, o->dir);
    }
    printf("%-7s %-6s %-8s %12s %8s\n", "sec", "size", "op", "value", "vs-sys");
    for (unsigned s = 0; s < o->n_secs; s++) {
        for (unsigned j = 0; j < o->n_sizes; j++) {
            for (int op = BENCH_WRITE; op <= BENCH_GETATTR; op++) {
                char val[32], ratio[16] = "-";
                if (op == BENCH_GETATTR && j > 0) {
                    continue;
                }
                if (na[s][j]) {
                    if (op != BENCH_GETATTR) {
                        printf("%-7s %-6s %-8s %12s %8s\n", o->secs[s],
                               size_text(o->sizes[j], sz, sizeof(sz)),
                               bench_op_names[op], "n/a", "-");
                    }
                    continue;
                }
                snprintf(val, sizeof(val),
                         op == BENCH_GETATTR ? "%.0f/s" : "%.1f MB/s",
                         v[s][j][op]);
                if (sys_index >= 0 && !na[sys_index][j] &&
                    v[sys_index][j][op] > 0) {
                    snprintf(ratio, sizeof(ratio), "%.2f",
                             v[s][j][op] / v[sys_index][j][op]);
                }
                printf("%-7s %-6s %-8s %12s %8s\n", o->secs[s],
                       op == BENCH_GETATTR
                           ? "-"
                           : size_text(o->sizes[j], sz, sizeof(sz)),
                       bench_op_names[op], val, ratio);
            }
        }
    }
    for (unsigned s = 0; s < o->n_secs; s++) {
        for (unsigned j = 0; j < o->n_sizes; j++) {
            if (na[s][j]) {
                printf("n/a: %s %s: libtirpc's client cannot carry krb5i/krb5p "
                       "bodies above about 256 KiB (its record buffer)\n",
                       o->secs[s], size_text(o->sizes[j], sz, sizeof(sz)));
            }
        }
    }
    return ret;
}

/* Lists, credentials for libtirpc's client, then the run. */
static int bench_main(struct nfs4_args *a, struct bench_opts *o, char *sec_list,
                      char *size_list)
{
    for (char *save = NULL, *t = strtok_r(sec_list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        gk5_rpc_service svc;
        if (o->n_secs == 4 ||
            (strcmp(t, "sys") != 0 && gk5_rpc_service_parse(t, &svc) != 0)) {
            cli_error("%s: --sec: '%s' is not a list of sys, krb5, krb5i, "
                      "krb5p",
                      a->cmd, t);
            return CLI_EXIT_USAGE;
        }
        o->secs[o->n_secs++] = t;
    }
    for (char *save = NULL, *t = strtok_r(size_list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        if (o->n_sizes == BENCH_MAX_SIZES ||
            parse_io_size(t, &o->sizes[o->n_sizes]) != 0) {
            cli_error("%s: --size: '%s' is not a list of sizes up to 4m",
                      a->cmd, t);
            return CLI_EXIT_USAGE;
        }
        o->n_sizes++;
    }
    if (o->n_secs == 0 || o->n_sizes == 0) {
        cli_error("%s: --sec and --size need at least one entry", a->cmd);
        return CLI_EXIT_USAGE;
    }
    o->dir = a->path;
    if (a->via_libtirpc && a->client_keytab != NULL) {
        /* MIT's initiator gets initial credentials from the client keytab
         * into a ccache of this process. */
        if (setenv("KRB5_CLIENT_KTNAME", a->client_keytab, 1) != 0 ||
            (a->ccache == NULL &&
             setenv("KRB5CCNAME", "MEMORY:gk5-nfs4-bench", 1) != 0)) {
            cli_error("%s: setenv: %s", a->cmd, strerror(errno));
            return CLI_EXIT_FAIL;
        }
    }
    if (a->via_libtirpc && a->ccache != NULL &&
        setenv("KRB5CCNAME", a->ccache, 1) != 0) {
        cli_error("%s: setenv: %s", a->cmd, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return cmd_bench(a, o) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* ---- gk5 nfs4 storm ---- */

/* Establish many RPCSEC_GSS contexts against a running server, as fast as
 * it can, with gk5's own initiator over several connections (one thread and
 * one TCP connection each): contexts per second, and, given the server's
 * PID, its resident memory and CPU time per context.  The service ticket is
 * in a FILE ccache before the timed phase (got once with gk5_kinit and
 * gk5_kvno), so each context is one fresh AP-REQ and one round trip: no
 * KDC exchange while timed, which the ccache's unchanged size and mtime
 * show.  Every context is then (untimed) used for one krb5p COMPOUND that
 * WRITEs and READs back, and compared; contexts stay open until the end,
 * then each is destroyed (RPCSEC_GSS_DESTROY). */

#define STORM_MAX_CONNECTIONS 64
#define STORM_MAX_CONTEXTS 1000000u
#define STORM_MAX_REPEAT 100u
#define STORM_CHECK_BYTES 128u
/* The check's WRITEs cycle over this many slots of STORM_CHECK_BYTES in
 * the connection's file (128 KiB: far below MEM's Inode_Size). */
#define STORM_CHECK_SLOTS 1024u
/* Unanswered check calls in a row that end a connection's check. */
#define STORM_MAX_SILENT 3u
/* gk5_initiator_create and its AP-REQ, measured alone (no server). */
#define STORM_CALIBRATE 200u

struct storm_opts {
    unsigned contexts, connections, repeat;
    long server_pid; /* 0: not given */
};

#ifdef GK5_HAVE_TIRPC

/* What the server's /proc says at one moment. */
struct storm_proc {
    bool ok;
    uint64_t rss_kib;   /* VmRSS */
    uint64_t cpu_ticks; /* utime + stime, clock ticks */
};

enum storm_phase { STORM_WARM, STORM_MAKE, STORM_CHECK, STORM_DESTROY };

struct storm_conn {
    pthread_t tid;
    const struct nfs4_args *a;
    const gk5_rpc_auth_options *opts;
    pthread_barrier_t *start;
    enum storm_phase phase;
    CLIENT *clnt;
    AUTH *home;  /* the CLIENT's own AUTH (AUTH_NONE), put back after use */
    AUTH **auth; /* this connection's contexts */
    unsigned n;  /* how many it makes */
    unsigned made;
    unsigned checked, failed;
    struct nfs4_open_file f; /* the check's file */
    char name[64];
    bool opened;
    const uint8_t *seed; /* the run's random bytes, for the check's data */
    unsigned index;
    unsigned rep;
    char err[768]; /* the first failure, in words */
};

struct storm_rep {
    double rate, wall, srv_cpu_us, cli_cpu_us, kib_per_ctx;
    struct storm_proc before, after, checked, destroyed;
    unsigned checked_n, failed_n;
};

static bool storm_read_proc(long pid, struct storm_proc *p)
{
    char path[64], line[512];
    FILE *f;
    unsigned long long ut = 0, st = 0;
    bool rss = false;

    memset(p, 0, sizeof(*p));
    if (pid <= 0) {
        return false;
    }
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long v;
        if (sscanf(line, "VmRSS: %llu kB", &v) == 1) {
            p->rss_kib = v;
            rss = true;
        }
    }
    fclose(f);
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    /* The command name is in parentheses and may hold spaces: the fields
     * counted from the last ')'; utime and stime are fields 14 and 15. */
    bool got = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    const char *paren = got ? strrchr(line, ')') : NULL;
    if (!rss || paren == NULL ||
        sscanf(paren + 1,
               " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
               &st) != 2) {
        return false;
    }
    p->cpu_ticks = ut + st;
    p->ok = true;
    return true;
}

static double storm_cpu_seconds(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return 0;
    }
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The bytes context k of connection c writes in the check. */
static void storm_pattern(const struct storm_conn *c, unsigned k, uint8_t *buf)
{
    for (unsigned j = 0; j < STORM_CHECK_BYTES; j++) {
        buf[j] = (uint8_t)(c->seed[j % 32] ^ (k * 131u + j) ^ (k >> 8) ^
                           (c->index << 3) ^ (c->rep * 17u));
    }
}

/* One krb5p COMPOUND on context k: PUTFH, WRITE, READ of the same bytes;
 * 0, or -1 with the reason in c->err (first failure only), -2 when the
 * server did not answer in time. */
static int storm_check_one(struct storm_conn *c, unsigned k)
{
    nfs4_argop ops[3];
    nfs4_resop r[3];
    nfs4_compound_res res = {.ops = r, .max = 3};
    uint8_t data[STORM_CHECK_BYTES], back[STORM_CHECK_BYTES];
    uint64_t off = (uint64_t)(k % STORM_CHECK_SLOTS) * STORM_CHECK_BYTES;
    struct timeval tv = {(time_t)(c->a->timeout_ms / 1000),
                         (suseconds_t)(c->a->timeout_ms % 1000) * 1000};
    char words[512];
    enum clnt_stat st;

    storm_pattern(c, k, data);
    memset(ops, 0, sizeof(ops));
    memset(r, 0, sizeof(r));
    ops[0] = nfs4_putfh(&c->f.fh);
    ops[1].op = OP_WRITE;
    ops[1].u.write.stateid = c->f.stateid;
    ops[1].u.write.offset = off;
    ops[1].u.write.stable = FILE_SYNC4;
    ops[1].u.write.data = data;
    ops[1].u.write.len = STORM_CHECK_BYTES;
    ops[2].op = OP_READ;
    ops[2].u.read.stateid = c->f.stateid;
    ops[2].u.read.offset = off;
    ops[2].u.read.count = STORM_CHECK_BYTES;
    r[2].u.read.buf = back;
    r[2].u.read.cap = sizeof(back);
    c->clnt->cl_auth = c->auth[k];
    st = nfs4_compound(c->clnt, ops, 3, &res, tv);
    c->clnt->cl_auth = c->home;
    if (st != RPC_SUCCESS) {
        cli_rpc_call_error(c->clnt, c->auth[k], "WRITE+READ", words,
                           sizeof(words));
    } else if (res.status != NFS4_OK || res.n != 3) {
        snprintf(words, sizeof(words), "%s", nfs4_compound_error(&res));
    } else if (r[1].u.write.count != STORM_CHECK_BYTES ||
               r[2].u.read.len != STORM_CHECK_BYTES ||
               memcmp(back, data, STORM_CHECK_BYTES) != 0) {
        snprintf(words, sizeof(words),
                 "wrote %u bytes at %" PRIu64 ", read back %u that %s",
                 (unsigned)r[1].u.write.count, off, (unsigned)r[2].u.read.len,
                 r[2].u.read.len == STORM_CHECK_BYTES ? "differ"
                                                      : "fall short");
    } else {
        gk5_rpc_auth_info info;

        /* A server that lost the context answers CREDPROBLEM and the AUTH
         * makes a new one: the call passes, the context did not. */
        if (gk5_rpc_auth_inquire(c->auth[k], &info) == 0 &&
            info.established == 1) {
            return 0;
        }
        snprintf(words, sizeof(words),
                 "the server no longer knew the context: the call went on a "
                 "new one (%u made for this AUTH)",
                 (unsigned)info.established);
    }
    if (c->err[0] == '\0') {
        snprintf(c->err, sizeof(c->err), "connection %u, context %u: %s",
                 c->index, k, words);
    }
    return st == RPC_TIMEDOUT ? -2 : -1;
}

static void *storm_conn_main(void *arg)
{
    struct storm_conn *c = arg;
    gk5_rpc_error e;

    (void)pthread_barrier_wait(c->start);
    switch (c->phase) {
    case STORM_WARM:
        /* One context made and destroyed: the server's first-time work
         * (its credential, its caches) is not timed. */
        memset(&e, 0, sizeof(e));
        AUTH *w = gk5_rpc_auth_create(c->clnt, c->a->target,
                                      GK5_RPC_SVC_PRIVACY, c->opts, &e);
        if (w == NULL) {
            snprintf(c->err, sizeof(c->err),
                     "connection %u: cannot establish RPCSEC_GSS krb5p with "
                     "%s: %s",
                     c->index, c->a->target,
                     e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
            c->failed++;
            break;
        }
        auth_destroy(w);
        break;
    case STORM_MAKE:
        for (c->made = 0; c->made < c->n; c->made++) {
            memset(&e, 0, sizeof(e));
            c->auth[c->made] = gk5_rpc_auth_create(
                c->clnt, c->a->target, GK5_RPC_SVC_PRIVACY, c->opts, &e);
            if (c->auth[c->made] == NULL) {
                snprintf(c->err, sizeof(c->err),
                         "connection %u, context %u: cannot establish "
                         "RPCSEC_GSS krb5p with %s: %s",
                         c->index, c->made, c->a->target,
                         e.text[0] != '\0' ? e.text : gk5_rpc_strerror(e.code));
                c->failed++;
                break;
            }
        }
        break;
    case STORM_CHECK: {
        unsigned silent = 0;

        for (unsigned k = 0; k < c->made; k++) {
            int rc = storm_check_one(c, k);

            if (rc == 0) {
                c->checked++;
                silent = 0;
                continue;
            }
            c->failed++;
            silent = rc == -2 ? silent + 1 : 0;
            if (silent == STORM_MAX_SILENT && k + 1 < c->made) {
                /* Each would wait out its timeout: stop here. */
                size_t used = strlen(c->err);
                snprintf(c->err + used, sizeof(c->err) - used,
                         "; %u calls in a row went unanswered: the last %u "
                         "contexts were not tried",
                         silent, c->made - k - 1);
                c->failed += c->made - k - 1;
                break;
            }
        }
        break;
    }
    case STORM_DESTROY:
        for (unsigned k = 0; k < c->made; k++) {
            auth_destroy(c->auth[k]); /* RPCSEC_GSS_DESTROY */
            c->auth[k] = NULL;
        }
        c->made = 0;
        break;
    }
    return NULL;
}

/* Run phase on every connection at once; its wall time in seconds (and
 * this process's CPU seconds in *cpu when not NULL), or -1 when a thread
 * could not start. */
static double storm_phase(struct storm_conn *c, unsigned n,
                          enum storm_phase phase, double *cpu)
{
    pthread_barrier_t start;
    double t0, t1, c0;

    if (pthread_barrier_init(&start, NULL, n + 1) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        c[i].phase = phase;
        c[i].start = &start;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&c[i].tid, NULL, storm_conn_main, &c[i]) != 0) {
            /* The barrier would never open: give up on the process. */
            cli_error("nfs4 storm: cannot start a thread");
            exit(CLI_EXIT_FAIL);
        }
    }
    c0 = storm_cpu_seconds();
    t0 = bench_now();
    (void)pthread_barrier_wait(&start);
    for (unsigned i = 0; i < n; i++) {
        pthread_join(c[i].tid, NULL);
    }
    t1 = bench_now();
    if (cpu != NULL) {
        *cpu = storm_cpu_seconds() - c0;
    }
    pthread_barrier_destroy(&start);
    return t1 - t0;
}

/* The ccache file's size and modification time: a TGS exchange while
 * timed would have appended its ticket. */
static bool storm_ccache_stamp(const char *path, struct stat *st)
{
    return path != NULL && stat(path, st) == 0;
}

static bool storm_ccache_same(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_ino == b->st_ino &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The initiator's credentials, before anything is timed: the client
 * keytab's TGT (gk5_kinit) into a private FILE ccache when no --ccache is
 * given, then the service ticket (gk5_kvno, from the KDC unless the cache
 * holds one).  *ccache gets the name the contexts use, *path its file,
 * *dir the private folder to remove (or NULL).  0, or -1 with the error
 * printed. */
static int storm_credentials(const struct nfs4_args *a, char **ccache,
                             char **path, char **dir, int32_t *session_et)
{
    uint32_t major, minor = 0;
    char service[300], words[256];
    const char *at = strchr(a->target, '@');

    *ccache = *path = *dir = NULL;
    if (strchr(a->target, '/') != NULL || at == NULL) {
        snprintf(service, sizeof(service), "%s", a->target);
    } else {
        snprintf(service, sizeof(service), "%.*s/%s", (int)(at - a->target),
                 a->target, at + 1);
    }
    if (a->ccache == NULL && a->client_keytab != NULL) {
        const char *tmp = getenv("TMPDIR");
        char d[PATH_MAX];
        gk5_kinit_info ki;

        if (tmp == NULL || tmp[0] != '/') {
            tmp = "/tmp";
        }
        snprintf(d, sizeof(d), "%s/gk5-storm-XXXXXX", tmp);
        if (mkdtemp(d) == NULL) {
            cli_error("%s: cannot make a folder for the ccache under %s: %s",
                      a->cmd, tmp, strerror(errno));
            return -1;
        }
        *dir = strdup(d);
        size_t n = strlen(d) + sizeof("FILE:/ccache");
        *ccache = malloc(n);
        if (*dir == NULL || *ccache == NULL) {
            cli_error("%s: out of memory", a->cmd);
            return -1;
        }
        snprintf(*ccache, n, "FILE:%s/ccache", d);
        gk5_kinit_opts ko = {
            .ccache = *ccache,
            .principal = a->client_principal,
            .keytab = a->client_keytab,
        };
        major = gk5_kinit(&minor, &ko, &ki);
        gk5_kinit_info_release(&ki);
        if (GK5_ERROR(major) != 0) {
            cli_error("%s: kinit with the keytab %s: %s", a->cmd,
                      a->client_keytab,
                      cli_gss_words(major, minor, words, sizeof(words)));
            return -1;
        }
    } else if (a->ccache != NULL) {
        *ccache = strdup(a->ccache);
        if (*ccache == NULL) {
            cli_error("%s: out of memory", a->cmd);
            return -1;
        }
    }
    gk5_kvno_opts vo = {
        .ccache = *ccache,
        .enctypes = a->n_enctypes > 0 ? a->enctypes : NULL,
        .n_enctypes = a->n_enctypes,
    };
    gk5_kvno_info vi;
    major = gk5_kvno(&minor, service, &vo, &vi);
    *session_et = vi.session_enctype;
    if (GK5_ERROR(major) == 0 && vi.ccache != NULL) {
        *path = strdup(vi.ccache);
    }
    gk5_kvno_info_release(&vi);
    if (GK5_ERROR(major) != 0) {
        cli_error("%s: the service ticket for %s: %s", a->cmd, service,
                  cli_gss_words(major, minor, words, sizeof(words)));
        return -1;
    }
    if (*path == NULL) {
        cli_error("%s: out of memory", a->cmd);
        return -1;
    }
    return 0;
}

/* What one context costs this client outside the RPC: gk5_initiator_create
 * (krb5.conf and the ccache read, the ticket found there) and the AP-REQ
 * (gk5_initiator_step), CPU microseconds each, measured alone. */
static int storm_calibrate(const struct nfs4_args *a, const char *ccache,
                           unsigned n, double *create_us, double *apreq_us)
{
    struct timespec t0, t1, t2;
    double create = 0, apreq = 0;
    char words[256];

    for (unsigned i = 0; i < n; i++) {
        gk5_initiator_opts io = {
            .ccache = ccache,
            .enctypes = a->n_enctypes > 0 ? a->enctypes : NULL,
            .n_enctypes = a->n_enctypes,
            .req_flags = GK5_C_MUTUAL_FLAG | GK5_C_CONF_FLAG | GK5_C_INTEG_FLAG,
            .principal = a->client_principal,
        };
        gk5_initiator *init = NULL;
        gk5_buffer tok = {0, NULL};
        uint32_t minor = 0, major;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        major = gk5_initiator_create(&minor, a->target, &io, &init);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        if (GK5_ERROR(major) == 0) {
            major = gk5_initiator_step(&minor, init, NULL, &tok);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t2);
        gk5_buffer_release(&tok);
        gk5_initiator_free(init);
        if (GK5_ERROR(major) != 0) {
            cli_error("%s: gk5's initiator for %s: %s", a->cmd, a->target,
                      cli_gss_words(major, minor, words, sizeof(words)));
            return -1;
        }
        create += (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
        apreq += (double)(t2.tv_sec - t1.tv_sec) * 1e6 +
                 (double)(t2.tv_nsec - t1.tv_nsec) / 1e3;
    }
    *create_us = create / n;
    *apreq_us = apreq / n;
    return 0;
}

/* The check's files: one per connection, opened (created) by a client of
 * its own with its own krb5p context; NFSv4.0 stateids are the client's,
 * not a context's, so every context of the run may use them. */
static int storm_files_open(struct nfs4_client *setup,
                            const struct nfs4_args *a, struct storm_conn *c,
                            unsigned n)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int k = split_path(a->path, buf, sizeof(buf), comp);

    if (k < 0) {
        cli_error("%s: '%s' is not a usable path", a->cmd, a->path);
        return -1;
    }
    if (client_open(setup, a) != 0 ||
        walk(setup, comp, k, a->path, &dir, &attrs) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        snprintf(c[i].name, sizeof(c[i].name), "gk5-storm-%ld-%u",
                 (long)getpid(), i);
        if (open_file(setup, &dir, c[i].name, true, c[i].name, &c[i].f) != 0) {
            return -1;
        }
        c[i].opened = true;
    }
    return 0;
}

static void storm_files_close(struct nfs4_client *setup,
                              const struct nfs4_args *a, struct storm_conn *c,
                              unsigned n)
{
    const char *comp[NFS4_MAX_COMPONENTS];
    char buf[1024];
    nfs4_fh dir;
    nfs4_attrs attrs;
    int k = split_path(a->path, buf, sizeof(buf), comp);
    bool have_dir = false;

    for (unsigned i = 0; i < n; i++) {
        if (!c[i].opened) {
            continue;
        }
        (void)close_file(setup, &c[i].f, c[i].name);
        if (!have_dir) {
            have_dir =
                k >= 0 && walk(setup, comp, k, a->path, &dir, &attrs) == 0;
        }
        if (have_dir) {
            nfs4_argop ops[2];
            nfs4_resop r[2];

            memset(ops, 0, sizeof(ops));
            ops[0] = nfs4_putfh(&dir);
            ops[1].op = OP_REMOVE;
            ops[1].u.remove.name = c[i].name;
            (void)compound(setup, ops, 2, r, c[i].name);
        }
        c[i].opened = false;
    }
    client_close(setup);
}

static int storm_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b ? 1 : 0;
}

/* The median of n values (sorted in place). */
static double storm_median(double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), storm_cmp_double);
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One repetition: connect, warm up, the timed storm, the krb5p check,
 * destroy, disconnect.  0, or -1 with the error printed (r filled as far
 * as it got). */
static int storm_rep(const struct nfs4_args *a, const struct storm_opts *o,
                     const gk5_rpc_auth_options *opts, const char *cc_path,
                     const uint8_t *seed, unsigned rep, struct storm_conn *c,
                     struct storm_rep *r)
{
    unsigned per = o->contexts / o->connections;
    unsigned extra = o->contexts % o->connections;
    struct nfs4_client setup;
    struct stat cc0, cc1;
    char err[512];
    double cpu = 0, ticks = (double)sysconf(_SC_CLK_TCK);
    int ret = -1;

    memset(r, 0, sizeof(*r));
    memset(&setup, 0, sizeof(setup));
    memset(c, 0, o->connections * sizeof(*c));
    for (unsigned i = 0; i < o->connections; i++) {
        c[i].a = a;
        c[i].opts = opts;
        c[i].seed = seed;
        c[i].index = i;
        c[i].rep = rep;
        c[i].n = per + (i < extra ? 1 : 0);
        c[i].auth = calloc(c[i].n > 0 ? c[i].n : 1, sizeof(AUTH *));
        if (c[i].auth == NULL) {
            cli_error("%s: out of memory", a->cmd);
            goto cleanup;
        }
        if (cli_rpc_connect(a->hostport, NFS4_PROGRAM, NFS4_VERSION, &c[i].clnt,
                            err, sizeof(err)) != 0) {
            cli_error("%s: %s", a->cmd, err);
            goto cleanup;
        }
        c[i].home = c[i].clnt->cl_auth;
    }
    if (storm_phase(c, o->connections, STORM_WARM, NULL) < 0) {
        goto cleanup;
    }
    for (unsigned i = 0; i < o->connections; i++) {
        if (c[i].failed != 0) {
            cli_error("%s: warming up: %s", a->cmd, c[i].err);
            goto cleanup;
        }
    }

    /* The timed phase: nothing but contexts being made. */
    (void)storm_read_proc(o->server_pid, &r->before);
    if (!storm_ccache_stamp(cc_path, &cc0)) {
        cli_error("%s: %s: %s", a->cmd, cc_path, strerror(errno));
        goto cleanup;
    }
    r->wall = storm_phase(c, o->connections, STORM_MAKE, &cpu);
    (void)storm_read_proc(o->server_pid, &r->after);
    if (r->wall < 0) {
        goto cleanup;
    }
    unsigned made = 0;
    for (unsigned i = 0; i < o->connections; i++) {
        made += c[i].made;
        if (c[i].failed != 0) {
            cli_error("%s: %s", a->cmd, c[i].err);
        }
    }
    if (made != o->contexts) {
        cli_error("%s: repetition %u: %u of %u contexts established", a->cmd,
                  rep, made, o->contexts);
        goto cleanup;
    }
    if (!storm_ccache_stamp(cc_path, &cc1) || !storm_ccache_same(&cc0, &cc1)) {
        cli_error("%s: the ccache %s changed while contexts were made: the "
                  "initiator went to the KDC, so the time is not "
                  "establishment alone",
                  a->cmd, cc_path);
        goto cleanup;
    }
    r->rate = r->wall > 0 ? o->contexts / r->wall : 0;
    r->cli_cpu_us = cpu * 1e6 / o->contexts;
    if (r->before.ok && r->after.ok) {
        r->srv_cpu_us = (double)(r->after.cpu_ticks - r->before.cpu_ticks) /
                        ticks * 1e6 / o->contexts;
        r->kib_per_ctx =
            ((double)r->after.rss_kib - (double)r->before.rss_kib) /
            o->contexts;
    }

    /* Untimed: every context carries one krb5p WRITE and READ. */
    if (storm_files_open(&setup, a, c, o->connections) != 0 ||
        storm_phase(c, o->connections, STORM_CHECK, NULL) < 0) {
        goto cleanup;
    }
    (void)storm_read_proc(o->server_pid, &r->checked);
    for (unsigned i = 0; i < o->connections; i++) {
        r->checked_n += c[i].checked;
        r->failed_n += c[i].failed;
        if (c[i].failed != 0) {
            cli_error("%s: krb5p check: %u context%s failed; the first: %s",
                      a->cmd, c[i].failed, c[i].failed == 1 ? "" : "s",
                      c[i].err);
        }
    }
    ret = r->failed_n == 0 && r->checked_n == o->contexts ? 0 : -1;

cleanup:
    storm_files_close(&setup, a, c, o->connections);
    (void)storm_phase(c, o->connections, STORM_DESTROY, NULL);
    (void)storm_read_proc(o->server_pid, &r->destroyed);
    for (unsigned i = 0; i < o->connections; i++) {
        if (c[i].clnt != NULL) {
            c[i].clnt->cl_auth = c[i].home;
            clnt_destroy(c[i].clnt);
        }
        free(c[i].auth);
        c[i].clnt = NULL;
        c[i].auth = NULL;
    }
    return ret;
}

static void storm_kib(char *buf, size_t len, const struct storm_proc *p)
{
    if (p->ok) {
        snprintf(buf, len, "%" PRIu64, p->rss_kib);
    } else {
        snprintf(buf, len, "-");
    }
}

static int cmd_storm(struct nfs4_args *a, const struct storm_opts *o)
{
    static struct storm_conn c[STORM_MAX_CONNECTIONS];
    struct storm_rep *reps = NULL;
    double *v = NULL;
    char *ccache = NULL, *cc_path = NULL, *dir = NULL;
    int32_t session_et = 0;
    uint8_t seed[32];
    double create_us = 0, apreq_us = 0;
    unsigned done = 0, checked = 0, failed = 0;
    int ret = CLI_EXIT_FAIL;
    gk5_enctype_desc ed;

    if (RAND_bytes(seed, sizeof(seed)) != 1) {
        cli_error("%s: no random bytes for the check's data", a->cmd);
        return CLI_EXIT_FAIL;
    }
    reps = calloc(o->repeat, sizeof(*reps));
    v = calloc(o->repeat, sizeof(*v));
    if (reps == NULL || v == NULL) {
        cli_error("%s: out of memory", a->cmd);
        goto cleanup;
    }
    if (storm_credentials(a, &ccache, &cc_path, &dir, &session_et) != 0) {
        goto cleanup;
    }
    if (storm_calibrate(a, cc_path,
                        o->contexts < STORM_CALIBRATE ? o->contexts
                                                      : STORM_CALIBRATE,
                        &create_us, &apreq_us) != 0) {
        goto cleanup;
    }
    /* Every context (and the check's own client) reads this cache: the
     * keytab has done its part. */
    a->ccache = cc_path;
    a->client_keytab = NULL;
    gk5_rpc_auth_options opts;
    memset(&opts, 0, sizeof(opts));
    opts.principal = a->client_principal;
    opts.ccache = cc_path;
    opts.enctypes = a->n_enctypes > 0 ? a->enctypes : NULL;
    opts.n_enctypes = a->n_enctypes;
    opts.timeout_ms = a->timeout_ms;
    opts.establish = GK5_RPC_ESTABLISH_NATIVE;

    printf("gk5 nfs4 storm: %s, %s, %u contexts over %u connection%s (one "
           "TCP connection and thread each), %u repetition%s\n",
           a->hostport, a->target, o->contexts, o->connections,
           o->connections == 1 ? "" : "s", o->repeat,
           o->repeat == 1 ? "" : "s");
    printf("initiator: gk5's own; the service ticket (%s session key) from "
           "the FILE ccache %s, which the timed phase must leave unwritten "
           "(no KDC exchange)\n",
           gk5_enctype_describe(session_et, &ed) == GK5_OK ? ed.name : "?",
           cc_path);
    printf("client CPU per context outside the RPC, measured alone: "
           "gk5_initiator_create %.1f us (krb5.conf parsed and the ccache "
           "read each time), AP-REQ %.1f us\n",
           create_us, apreq_us);
    if (o->server_pid > 0) {
        struct storm_proc p;
        if (!storm_read_proc(o->server_pid, &p)) {
            cli_error("%s: --server-pid %ld: cannot read /proc/%ld/status "
                      "and /proc/%ld/stat",
                      a->cmd, o->server_pid, o->server_pid, o->server_pid);
            goto cleanup;
        }
        printf("server: PID %ld; RSS (VmRSS) rss0 before the storm, rss1 "
               "with every context made, rss2 after the check, rss3 after "
               "RPCSEC_GSS_DESTROY; srv-us/c its CPU (utime+stime, in "
               "ticks of %.0f ms: coarse for few contexts) per context while "
               "timed; cli-us/c this process's\n",
               o->server_pid, 1e3 / (double)sysconf(_SC_CLK_TCK));
    }
    printf("%-4s %11s %8s %9s %9s %10s %10s %8s %13s %10s %10s\n", "rep",
           "contexts/s", "wall-s", "srv-us/c", "cli-us/c", "rss0-KiB",
           "rss1-KiB", "KiB/ctx", "krb5p-check", "rss2-KiB", "rss3-KiB");
    ret = CLI_EXIT_OK;
    for (unsigned k = 0; k < o->repeat; k++) {
        struct storm_rep *r = &reps[k];
        char b0[24], b1[24], b2[24], b3[24], srv[24] = "-", kib[24] = "-",
                                             chk[40];
        int rc = storm_rep(a, o, &opts, cc_path, seed, k + 1, c, r);

        storm_kib(b0, sizeof(b0), &r->before);
        storm_kib(b1, sizeof(b1), &r->after);
        storm_kib(b2, sizeof(b2), &r->checked);
        storm_kib(b3, sizeof(b3), &r->destroyed);
        if (r->before.ok && r->after.ok) {
            snprintf(srv, sizeof(srv), "%.1f", r->srv_cpu_us);
            snprintf(kib, sizeof(kib), "%.2f", r->kib_per_ctx);
        }
        snprintf(chk, sizeof(chk), "%u/%u %s", r->checked_n, o->contexts,
                 r->checked_n == o->contexts && r->failed_n == 0 ? "ok"
                                                                 : "FAIL");
        printf("%-4u %11.1f %8.3f %9s %9.1f %10s %10s %8s %13s %10s %10s\n",
               k + 1, r->rate, r->wall, srv, r->cli_cpu_us, b0, b1, kib, chk,
               b2, b3);
        fflush(stdout);
        checked += r->checked_n;
        failed += o->contexts - r->checked_n;
        done++;
        if (rc != 0) {
            ret = CLI_EXIT_FAIL;
            break;
        }
    }

    /* The summary a script reads: key=value, "na" where not measured. */
    double rmin = 0, rmed = 0, rmax = 0, srv_med = -1, cli_med = 0;
    for (unsigned k = 0; k < done; k++) {
        v[k] = reps[k].rate;
    }
    if (done > 0) {
        rmed = storm_median(v, done);
        rmin = v[0];
        rmax = v[done - 1];
        for (unsigned k = 0; k < done; k++) {
            v[k] = reps[k].cli_cpu_us;
        }
        cli_med = storm_median(v, done);
        if (reps[0].before.ok && reps[0].after.ok) {
            for (unsigned k = 0; k < done; k++) {
                v[k] = reps[k].srv_cpu_us;
            }
            srv_med = storm_median(v, done);
        }
    }
    const struct storm_rep *r1 = &reps[0];
    bool mem = done > 0 && r1->before.ok && r1->after.ok;
    printf("result: status=%s contexts=%u connections=%u repeat=%u done=%u "
           "rate_min=%.1f rate_med=%.1f rate_max=%.1f cli_us=%.1f "
           "init_create_us=%.1f init_apreq_us=%.1f checked=%u failed=%u",
           ret == CLI_EXIT_OK ? "ok" : "failed", o->contexts, o->connections,
           o->repeat, done, rmin, rmed, rmax, cli_med, create_us, apreq_us,
           checked, failed);
    if (mem) {
        printf(" srv_us=%.1f rss_before_kib=%" PRIu64 " rss_after_kib=%" PRIu64
               " kib_per_ctx=%.2f rss_end_kib=%" PRIu64 "\n",
               srv_med, r1->before.rss_kib, r1->after.rss_kib, r1->kib_per_ctx,
               reps[done - 1].destroyed.ok ? reps[done - 1].destroyed.rss_kib
                                           : 0);
    } else {
        printf(" srv_us=na rss_before_kib=na rss_after_kib=na "
               "kib_per_ctx=na rss_end_kib=na\n");
    }

cleanup:
    if (dir != NULL) {
        uint32_t minor = 0;
        struct stat st;
        /* The cache exists once kinit has written it. */
        bool written = cc_path != NULL && stat(cc_path, &st) == 0;

        if ((written && GK5_ERROR(gk5_ccache_destroy(&minor, ccache)) != 0) |
            (rmdir(dir) != 0)) {
            cli_warn("%s: could not remove the private ccache folder %s",
                     a->cmd, dir);
        }
    }
    free(ccache);
    free(cc_path);
    free(dir);
    free(reps);
    free(v);
    return ret;
}

#endif /* GK5_HAVE_TIRPC */

/* ---- options ---- */

static void nfs4_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 nfs4 ls HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 cat HOST:PORT:/PATH [--inflight N] [options]\n"
            "       gk5 nfs4 put LOCALFILE HOST:PORT:/PATH [--inflight N] "
            "[options]\n"
            "       gk5 nfs4 rm HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 bench HOST:PORT:/DIR [--sec LIST] [--size LIST]\n"
            "                      [--seconds S] [--threads N] "
            "[--inflight N]\n"
            "                      [--via gk5|libtirpc]\n"
            "       gk5 nfs4 storm HOST:PORT:/DIR [--contexts N] "
            "[--connections C]\n"
            "                      [--repeat R] [--server-pid PID]\n"
            "\n"
            "An NFSv4.0 client (RFC 7530) with gk5's RPCSEC_GSS: list a "
            "directory, print\na file, store a local file (- for stdin), "
            "remove a file.\n"
            "\n"
            "Options:\n"
            "  --sec S               sys, krb5, krb5i or krb5p (default "
            "krb5p)\n"
            "  --target SERVICE@HOST the server's service name (default "
            "nfs@HOST)\n"
            "  --rsize N, --wsize N  bytes per READ / WRITE (default 1 MiB, "
            "at most 4 MiB)\n"
            "  --enctype LIST        session-key enctypes to ask for "
            "(names or numbers)\n"
            "  --ccache NAME         credential cache (FILE:path; others "
            "only with\n"
            "                        --establish mit); default: KRB5CCNAME, "
            "else\n"
            "                        /tmp/krb5cc_UID\n"
            "  --client-keytab FILE  initial credentials from this keytab\n"
            "  --client-principal NAME\n"
            "  --timeout MS          per call (default 30000)\n"
            "  --establish native|mit\n"
            "                        gk5's own initiator (default) or MIT's "
            "makes the\n"
            "                        contexts\n"
            "  --transport gk5|libtirpc\n"
            "                        gk5's own RPC client (one connection, "
            "replies matched\n"
            "                        by XID) or libtirpc's clnt_vc with gk5's "
            "AUTH; default:\n"
            "                        libtirpc when gk5 is built with it "
            "(storm: libtirpc)\n"
            "  --inflight N          put, cat, bench: keep up to N (1 to 1024) "
            "WRITEs (put),\n"
            "                        READs (cat) or calls (bench) out on one "
            "connection\n"
            "                        of gk5's own client (implies --transport "
            "gk5)\n"
            "bench: WRITE and READ MB/s and GETATTR calls/s in DIR, N "
            "threads (one\n"
            "connection each, one call in flight, or M with --inflight M), "
            "for each\n"
            "service of --sec LIST (default sys,krb5,krb5i,krb5p) and size of "
            "--size LIST\n"
            "(default 4k,64k,1m), as ratios to sys; --via libtirpc measures "
            "libtirpc's\n"
            "own MIT-based client (credentials: KRB5CCNAME, or "
            "--client-keytab).\n"
            "storm: N krb5p contexts (default 1000) made as fast as C "
            "connections\n"
            "(default 4, one thread each) can, by gk5's own initiator, the "
            "service ticket\n"
            "in a FILE ccache (--ccache, or got once with --client-keytab), "
            "R times\n"
            "(default 1): contexts/s and, with --server-pid, the server's "
            "RSS and CPU per\n"
            "context.  Each context then WRITEs and READs back once in DIR "
            "(untimed); all\n"
            "stay open until the end, then are destroyed.\n"
            "Exit status: 0 success, 1 the server or the security layer "
            "refused (the\nNFS4ERR or RPC error in words), 2 bad usage.\n");
}

enum {
    OPT_SEC = 256,
    OPT_TARGET,
    OPT_RSIZE,
    OPT_WSIZE,
    OPT_ENCTYPE,
    OPT_CCACHE,
    OPT_CLIENT_KEYTAB,
    OPT_CLIENT_PRINCIPAL,
    OPT_TIMEOUT,
    OPT_SIZE,
    OPT_SECONDS,
    OPT_THREADS,
    OPT_VIA,
    OPT_ESTABLISH,
    OPT_TRANSPORT,
    OPT_INFLIGHT,
    OPT_CONTEXTS, /* OPT_CONTEXTS to OPT_SERVER_PID: nfs4 storm's own */
    OPT_CONNECTIONS,
    OPT_REPEAT,
    OPT_SERVER_PID,
    OPT_HELP
};

/* Its own table and parse_enctypes(): they look like cli_rpc.c's, but the
 * options differ and so do the words of the enctype-list errors, which the
 * CLI tests hold as they are; so they are not shared. */
static const struct option nfs4_options[] = {
    {"sec", required_argument, NULL, OPT_SEC},
    {"target", required_argument, NULL, OPT_TARGET},
    {"rsize", required_argument, NULL, OPT_RSIZE},
    {"wsize", required_argument, NULL, OPT_WSIZE},
    {"enctype", required_argument, NULL, OPT_ENCTYPE},
    {"ccache", required_argument, NULL, OPT_CCACHE},
    {"client-keytab", required_argument, NULL, OPT_CLIENT_KEYTAB},
    {"client-principal", required_argument, NULL, OPT_CLIENT_PRINCIPAL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"size", required_argument, NULL, OPT_SIZE},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"via", required_argument, NULL, OPT_VIA},
    {"establish", required_argument, NULL, OPT_ESTABLISH},
    {"transport", required_argument, NULL, OPT_TRANSPORT},
    {"inflight", required_argument, NULL, OPT_INFLIGHT},
    {"contexts", required_argument, NULL, OPT_CONTEXTS},
    {"connections", required_argument, NULL, OPT_CONNECTIONS},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"server-pid", required_argument, NULL, OPT_SERVER_PID},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* 0, or -1 with the message (naming the item at fault) printed. */
static int parse_enctypes(struct nfs4_args *a, const char *list)
{
    char copy[256];

    if (strlen(list) >= sizeof(copy)) {
        cli_error("%s: --enctype: list too long", a->cmd);
        return -1;
    }
    strcpy(copy, list);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        int32_t et;
        if (a->n_enctypes == NFS4_MAX_ENCTYPES) {
            cli_error("%s: --enctype: at most %d enctypes", a->cmd,
                      NFS4_MAX_ENCTYPES);
            return -1;
        }
        if (gk5_enctype_from_name(t, &et) != GK5_OK) {
            cli_error("%s: --enctype: unknown enctype '%s' (see 'gk5 "
                      "enctypes')",
                      a->cmd, t);
            return -1;
        }
        a->enctypes[a->n_enctypes++] = et;
    }
    if (a->n_enctypes == 0) {
        cli_error("%s: --enctype: empty list", a->cmd);
        return -1;
    }
    return 0;
}

/* HOST:PORT:/PATH */
static int parse_location(struct nfs4_args *a, const char *loc)
{
    const char *slash = strstr(loc, ":/");
    const char *colon;
    size_t hp;

    if (slash == NULL) {
        return -1;
    }
    hp = (size_t)(slash - loc);
    if (hp == 0 || hp >= sizeof(a->hostport) ||
        strlen(slash + 1) >= sizeof(a->path)) {
        return -1;
    }
    memcpy(a->hostport, loc, hp);
    a->hostport[hp] = '\0';
    strcpy(a->path, slash + 1);
    colon = strrchr(a->hostport, ':');
    if (colon == NULL || colon == a->hostport || colon[1] == '\0' ||
        (size_t)(colon - a->hostport) >= sizeof(a->host)) {
        return -1;
    }
    memcpy(a->host, a->hostport, (size_t)(colon - a->hostport));
    a->host[colon - a->hostport] = '\0';
    return 0;
}

/* The subcommands: the one option parser below serves them all. */
enum nfs4_op { NFS4_LS, NFS4_CAT, NFS4_PUT, NFS4_RM, NFS4_BENCH, NFS4_STORM };

/* op is an enum nfs4_op; argv[0] is the subcommand's name. */
static int nfs4_run(int op, int argc, char **argv)
{
    static char cmd_name[32];
    struct nfs4_args a;
    struct nfs4_client c;
    struct bench_opts bo;
    struct storm_opts so = {1000, 4, 1, 0};
    char sec_list[64] = "sys,krb5,krb5i,krb5p", size_list[128] = "4k,64k,1m";
    const char *local = NULL;
    bool bench = op == NFS4_BENCH, storm = op == NFS4_STORM;
    bool have_transport = false;
    int opt, ret;

#ifndef GK5_HAVE_TIRPC
    if (storm) {
        cli_error("nfs4 storm: it makes many RPCSEC_GSS contexts on each "
                  "connection (gk5's AUTHs on one libtirpc CLIENT), and this "
                  "gk5 was built without libtirpc (-Dtirpc=disabled)");
        return CLI_EXIT_USAGE;
    }
#endif
    memset(&bo, 0, sizeof(bo));
    bo.seconds = 2;
    bo.threads = 1;
    memset(&a, 0, sizeof(a));
    snprintf(cmd_name, sizeof(cmd_name), "nfs4 %s", argv[0]);
    a.cmd = cmd_name;
    a.sec_name = "krb5p";
    a.svc = GK5_RPC_SVC_PRIVACY;
    a.rsize = a.wsize = NFS4_DEFAULT_IO;
    a.timeout_ms = NFS4_TIMEOUT_MS;
#ifndef GK5_HAVE_TIRPC
    a.native = true; /* the only client there is */
#endif
    /* Options may follow the operands: getopt permutes the subcommand's
     * own argv (optind 0 starts it afresh). */
    opterr = 0;
    optind = 0;
    /* ':' first: a missing value is reported as such (cli_option_error),
     * not as an unknown option. */
    while ((opt = getopt_long(argc, argv, ":", nfs4_options, NULL)) != -1) {
        uint32_t v;
        if (!storm && opt >= OPT_CONTEXTS && opt <= OPT_SERVER_PID) {
            for (const struct option *o = nfs4_options; o->name != NULL; o++) {
                if (o->val == opt) {
                    cli_error("%s: --%s applies to nfs4 storm", a.cmd, o->name);
                }
            }
            return CLI_EXIT_USAGE;
        }
        switch (opt) {
        case OPT_SEC:
            if (bench) {
                if (strlen(optarg) >= sizeof(sec_list)) {
                    cli_error("%s: --sec: list too long", a.cmd);
                    return CLI_EXIT_USAGE;
                }
                strcpy(sec_list, optarg);
                break;
            }
            a.sec_name = optarg;
            a.sys = strcmp(optarg, "sys") == 0;
            if (!a.sys && gk5_rpc_service_parse(optarg, &a.svc) != 0) {
                cli_error("%s: --sec: '%s' is not one of sys, krb5, krb5i, "
                          "krb5p",
                          a.cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_TARGET:
            if (strchr(optarg, '@') == NULL && strchr(optarg, '/') == NULL) {
                cli_error("%s: --target: '%s' is not SERVICE@HOST", a.cmd,
                          optarg);
                return CLI_EXIT_USAGE;
            }
            a.target = optarg;
            break;
        case OPT_RSIZE:
        case OPT_WSIZE:
            if (parse_io_size(optarg, opt == OPT_RSIZE ? &a.rsize : &a.wsize) !=
                0) {
                cli_error("%s: --%s: '%s' is not a size from 1 byte to 4m",
                          a.cmd, opt == OPT_RSIZE ? "rsize" : "wsize", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_ENCTYPE:
            if (parse_enctypes(&a, optarg) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_CCACHE:
            a.ccache = optarg;
            break;
        case OPT_CLIENT_KEYTAB:
            a.client_keytab = optarg;
            break;
        case OPT_CLIENT_PRINCIPAL:
            a.client_principal = optarg;
            break;
        case OPT_ESTABLISH:
            if (cli_rpc_parse_establish(a.cmd, optarg, &a.establish) != 0) {
                return CLI_EXIT_USAGE;
            }
            a.have_establish = true;
            break;
        case OPT_TIMEOUT:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0) {
                cli_error("%s: --timeout: '%s' is not a positive number of "
                          "milliseconds",
                          a.cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            a.timeout_ms = v;
            break;
        case OPT_TRANSPORT:
            if (strcmp(optarg, "gk5") == 0) {
                a.native = true;
            } else if (strcmp(optarg, "libtirpc") == 0) {
#ifdef GK5_HAVE_TIRPC
                a.native = false;
#else
                cli_error("%s: --transport libtirpc: this gk5 was built "
                          "without libtirpc (Debian's libtirpc links MIT's "
                          "GSS-API, and this build has no MIT krb5): gk5's "
                          "own client only",
                          a.cmd);
                return CLI_EXIT_USAGE;
#endif
            } else {
                cli_error("%s: --transport: '%s' is not gk5 or libtirpc", a.cmd,
                          optarg);
                return CLI_EXIT_USAGE;
            }
            have_transport = true;
            break;
        case OPT_INFLIGHT:
            if (op != NFS4_PUT && op != NFS4_CAT && !bench) {
                cli_error("%s: --inflight applies to nfs4 put, cat and bench",
                          a.cmd);
                return CLI_EXIT_USAGE;
            }
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > NFS4_MAX_INFLIGHT) {
                cli_error("%s: --inflight: '%s' is not a number from 1 to %u",
                          a.cmd, optarg, NFS4_MAX_INFLIGHT);
                return CLI_EXIT_USAGE;
            }
            a.inflight = v;
            break;
        case OPT_SIZE:
            if (!bench || strlen(optarg) >= sizeof(size_list)) {
                cli_error("%s: --size applies to nfs4 bench (a list such as "
                          "4k,64k,1m)",
                          a.cmd);
                return CLI_EXIT_USAGE;
            }
            strcpy(size_list, optarg);
            break;
        case OPT_SECONDS: {
            char *end;
            bo.seconds = strtod(optarg, &end);
            if (!bench || *end != '\0' || !(bo.seconds > 0) ||
                bo.seconds > 3600) {
                cli_error("%s: --seconds: '%s' is not a time from 0 to 3600 s "
                          "(nfs4 bench)",
                          a.cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        }
        case OPT_THREADS:
            if (!bench || cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > BENCH_MAX_THREADS) {
                cli_error("%s: --threads: '%s' is not 1 to %d (nfs4 bench)",
                          a.cmd, optarg, BENCH_MAX_THREADS);
                return CLI_EXIT_USAGE;
            }
            bo.threads = v;
            break;
        case OPT_VIA:
            if (!bench || (strcmp(optarg, "gk5") != 0 &&
                           strcmp(optarg, "libtirpc") != 0)) {
                cli_error("%s: --via: '%s' is not gk5 or libtirpc (nfs4 "
                          "bench)",
                          a.cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            a.via_libtirpc = strcmp(optarg, "libtirpc") == 0;
#ifndef GK5_HAVE_MIT
            if (a.via_libtirpc) {
                cli_error("%s: --via libtirpc: libtirpc's RPCSEC_GSS client "
                          "runs on MIT's GSS-API, and this gk5 was built "
                          "without MIT krb5 (-Dmit=disabled)",
                          a.cmd);
                return CLI_EXIT_USAGE;
            }
#endif
#ifndef GK5_HAVE_TIRPC
            if (a.via_libtirpc) {
                cli_error("%s: --via libtirpc: this gk5 was built without "
                          "libtirpc (-Dtirpc=disabled)",
                          a.cmd);
                return CLI_EXIT_USAGE;
            }
#endif
            break;
        case OPT_CONTEXTS:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_CONTEXTS) {
                cli_error("%s: --contexts: '%s' is not 1 to %u (nfs4 storm)",
                          a.cmd, optarg, STORM_MAX_CONTEXTS);
                return CLI_EXIT_USAGE;
            }
            so.contexts = v;
            break;
        case OPT_CONNECTIONS:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_CONNECTIONS) {
                cli_error("%s: --connections: '%s' is not 1 to %d (nfs4 "
                          "storm)",
                          a.cmd, optarg, STORM_MAX_CONNECTIONS);
                return CLI_EXIT_USAGE;
            }
            so.connections = v;
            break;
        case OPT_REPEAT:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 ||
                v > STORM_MAX_REPEAT) {
                cli_error("%s: --repeat: '%s' is not 1 to %u (nfs4 storm)",
                          a.cmd, optarg, STORM_MAX_REPEAT);
                return CLI_EXIT_USAGE;
            }
            so.repeat = v;
            break;
        case OPT_SERVER_PID:
            if (cli_parse_u32(optarg, &v) != 0 || v == 0 || v > INT32_MAX) {
                cli_error("%s: --server-pid: '%s' is not a process id (nfs4 "
                          "storm)",
                          a.cmd, optarg);
                return CLI_EXIT_USAGE;
            }
            so.server_pid = (long)v;
            break;
        case OPT_HELP:
            nfs4_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(a.cmd, opt, argv);
        }
    }
    if (op == NFS4_PUT) {
        if (optind >= argc) {
            cli_error("%s: missing LOCALFILE", a.cmd);
            return CLI_EXIT_USAGE;
        }
        local = argv[optind++];
    }
    if (optind >= argc) {
        cli_error("%s: missing HOST:PORT:/PATH", a.cmd);
        return CLI_EXIT_USAGE;
    }
    if (parse_location(&a, argv[optind]) != 0) {
        cli_error("%s: '%s' is not HOST:PORT:/PATH", a.cmd, argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (++optind < argc) {
        cli_error("%s: unexpected argument '%s'", a.cmd, argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!bench && a.sys &&
        (a.target != NULL || a.n_enctypes > 0 || a.ccache != NULL ||
         a.client_keytab != NULL || a.client_principal != NULL ||
         a.have_establish)) {
        cli_error("%s: --target, --enctype, --ccache, --client-* and "
                  "--establish apply only to --sec krb5, krb5i and krb5p",
                  a.cmd);
        return CLI_EXIT_USAGE;
    }
    if (a.inflight > 0) {
        if (have_transport && !a.native) {
            cli_error("%s: --inflight keeps calls out on gk5's own client: "
                      "not with --transport libtirpc",
                      a.cmd);
            return CLI_EXIT_USAGE;
        }
        a.native = true;
    }
    if (a.via_libtirpc) {
        if (a.native) {
            cli_error("%s: --via libtirpc is libtirpc's own RPCSEC_GSS "
                      "client: not with --transport gk5 or --inflight",
                      a.cmd);
            return CLI_EXIT_USAGE;
        }
    }
    if (storm) {
        if (have_transport && a.native) {
            cli_error("%s: --transport gk5: the storm makes many contexts on "
                      "each connection, as gk5's AUTHs on libtirpc's CLIENT",
                      a.cmd);
            return CLI_EXIT_USAGE;
        }
        if (a.sys || a.svc != GK5_RPC_SVC_PRIVACY) {
            cli_error("%s: --sec: the storm's contexts are krb5p (their "
                      "check is a krb5p WRITE and READ)",
                      a.cmd);
            return CLI_EXIT_USAGE;
        }
        if (a.establish != GK5_RPC_ESTABLISH_NATIVE) {
            cli_error("%s: --establish: the storm measures gk5's own "
                      "initiator (native)",
                      a.cmd);
            return CLI_EXIT_USAGE;
        }
        if (so.contexts < so.connections) {
            cli_error("%s: --contexts %u is fewer than --connections %u", a.cmd,
                      so.contexts, so.connections);
            return CLI_EXIT_USAGE;
        }
    }
    if ((bench || storm || !a.sys) && a.target == NULL) {
        snprintf(a.default_target, sizeof(a.default_target), "nfs@%s", a.host);
        a.target = a.default_target;
    }
    if (bench) {
        return bench_main(&a, &bo, sec_list, size_list);
    }
#ifdef GK5_HAVE_TIRPC
    if (storm) {
        return cmd_storm(&a, &so);
    }
#else
    (void)so;
#endif

    if (client_open(&c, &a) != 0) {
        client_close(&c);
        return CLI_EXIT_FAIL;
    }
    switch (op) {
    case NFS4_LS:
        ret = cmd_ls(&c, a.path);
        break;
    case NFS4_CAT:
        ret = cmd_cat(&c, a.path, stdout);
        break;
    case NFS4_PUT:
        ret = cmd_put(&c, local, a.path);
        break;
    default:
        ret = cmd_rm(&c, a.path);
        break;
    }
    client_close(&c);
    return ret == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

int gk5_cli_nfs4(int argc, char **argv)
{
    static const struct cli_command table[] = {
        {.name = "ls", .run_op = nfs4_run, .op = NFS4_LS},
        {.name = "cat", .run_op = nfs4_run, .op = NFS4_CAT},
        {.name = "put", .run_op = nfs4_run, .op = NFS4_PUT},
        {.name = "rm", .run_op = nfs4_run, .op = NFS4_RM},
        {.name = "bench", .run_op = nfs4_run, .op = NFS4_BENCH},
        {.name = "storm", .run_op = nfs4_run, .op = NFS4_STORM},
    };
    static const struct cli_subcommands nfs4 = {
        .cmd = "nfs4",
        .table = table,
        .count = GK5_ARRAY_SIZE(table),
        .usage = nfs4_usage,
        .noun = "command",
        .flags = CLI_SUB_LIST,
    };

    return cli_dispatch(&nfs4, argc, argv);
}
