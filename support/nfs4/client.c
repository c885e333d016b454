/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The NFSv4.0 client (RFC 7530) of `gk5 nfs4` and of gk5-bench's NFSv4
 * run, on gk5's own RPC client (gk5_rpc_clnt: RPCSEC_GSS for krb5, krb5i
 * and krb5p, AUTH_SYS for sys), or on libtirpc's clnt_vc with gk5's
 * RPCSEC_GSS AUTH (or, for the benchmark, libtirpc's own, --via libtirpc).
 *
 * One client is one NFSv4 client id: SETCLIENTID and SETCLIENTID_CONFIRM
 * with an id of its own (RFC 7530 9.1.1), RENEW whenever a third of the
 * lease has passed, paths walked from PUTROOTFH with LOOKUP, OPEN (with
 * OPEN_CONFIRM when the server asks, 16.18) and CLOSE.  Every request goes
 * through nfs4_xdr.c (on clnt_call: nfs4_tirpc.c); errors are printed in
 * the CLI's words (cli.h), naming the command (nfs4_args.cmd).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>
#if defined(GK5_HAVE_MIT) && defined(GK5_HAVE_TIRPC)
/* libtirpc's own RPCSEC_GSS client (--via libtirpc), on MIT's GSS-API. */
#include <rpc/rpcsec_gss.h>
#endif

#include "client.h"
#include "cli.h"
#include "common/bytes.h"

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
int nfs4_client_send(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
                     nfs4_resop *r, uint64_t *id)
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
int nfs4_client_wait(struct nfs4_client *c, uint64_t id, nfs4_resop *r,
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
int nfs4_client_call(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
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
int nfs4_client_keep_lease(struct nfs4_client *c)
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
    if (nfs4_client_call(c, &a, 1, r, NULL) != 0) {
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
int nfs4_client_open(struct nfs4_client *c, const struct nfs4_args *a)
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
    if (nfs4_client_call(c, ops, 1, r, NULL) != 0) {
        return -1;
    }
    ops[0].op = OP_SETCLIENTID_CONFIRM;
    ops[0].u.setclientid_confirm.clientid = r[0].u.setclientid.clientid;
    memcpy(ops[0].u.setclientid_confirm.verifier, r[0].u.setclientid.verifier,
           NFS4_VERIFIER_SIZE);
    c->clientid = r[0].u.setclientid.clientid;
    if (nfs4_client_call(c, ops, 1, r, NULL) != 0) {
        return -1;
    }
    c->renewed = time(NULL);
    nfs4_bitmap_set(&mask, FATTR4_LEASE_TIME);
    ops[0] = nfs4_putrootfh();
    ops[1] = nfs4_getattr(&mask);
    if (nfs4_client_call(c, ops, 2, r, "/") != 0) {
        return -1;
    }
    c->lease = r[1].u.getattr.lease_time;
    return 0;
}

void nfs4_client_close(struct nfs4_client *c)
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
int nfs4_split_path(const char *path, char *buf, size_t len, const char **comp)
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
int nfs4_client_walk(struct nfs4_client *c, const char **comp, int n,
                     const char *path, nfs4_fh *fh, nfs4_attrs *attrs)
{
    nfs4_argop ops[NFS4_MAX_COMPONENTS + 3];
    nfs4_resop r[NFS4_MAX_COMPONENTS + 3];
    nfs4_bitmap mask = {0};
    uint32_t k = 0;

    if (nfs4_client_keep_lease(c) != 0) {
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
    if (nfs4_client_call(c, ops, k, r, path) != 0) {
        return -1;
    }
    *fh = r[k - 2].u.getfh;
    *attrs = r[k - 1].u.getattr;
    return 0;
}

/* ---- open, read, write, close ---- */

/* RFC 7530 16.16: OPEN name in directory dir (creating it, truncated,
 * when create), then OPEN_CONFIRM when the server asks for it. */
int nfs4_client_open_file(struct nfs4_client *c, const nfs4_fh *dir,
                          const char *name, bool create, const char *path,
                          struct nfs4_open_file *f)
{
    nfs4_argop ops[3];
    nfs4_resop r[3];

    if (nfs4_client_keep_lease(c) != 0) {
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
    if (nfs4_client_call(c, ops, 3, r, path) != 0) {
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
        if (nfs4_client_call(c, ops, 2, r, path) != 0) {
            return -1;
        }
        c->owner_seqid++;
        f->stateid = r[1].u.open_confirm;
    }
    return 0;
}

/* (One COMPOUND of PUTFH and an owner-seqid op, as OPEN_CONFIRM above:
 * the ops and their fields differ, so each is built where it is sent.) */
int nfs4_client_close_file(struct nfs4_client *c, struct nfs4_open_file *f,
                           const char *path)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];

    memset(ops, 0, sizeof(ops));
    ops[0] = nfs4_putfh(&f->fh);
    ops[1].op = OP_CLOSE;
    ops[1].u.close.seqid = c->owner_seqid;
    ops[1].u.close.stateid = f->stateid;
    if (nfs4_client_call(c, ops, 2, r, path) != 0) {
        return -1;
    }
    c->owner_seqid++;
    return 0;
}

/* "1m", "64k", "4096": bytes, 1..NFS4_MAX_IO; 0 or -1. */
int nfs4_parse_io_size(const char *s, uint32_t *out)
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
