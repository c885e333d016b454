/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 ls|cat|put|rm: a small NFSv4.0 client (RFC 7530) on libtirpc,
 * with gk5's RPCSEC_GSS AUTH for krb5, krb5i and krb5p (AUTH_SYS for sys).
 *
 * Each command is one client: SETCLIENTID and SETCLIENTID_CONFIRM with an
 * id of its own (RFC 7530 9.1.1), RENEW whenever a third of the lease has
 * passed, the path walked from PUTROOTFH with LOOKUP, and for file data
 * OPEN (with OPEN_CONFIRM when the server asks, 16.18), READ or WRITE with
 * the open stateid, COMMIT when the server answered UNSTABLE4 (checking
 * that its write verifier did not change, 16.3.5), CLOSE.  Every NFSv4
 * request goes through tools/nfs4_xdr.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <pthread.h>
#ifdef GK5_HAVE_MIT
/* libtirpc's own RPCSEC_GSS client (--via libtirpc), on MIT's GSS-API. */
#include <rpc/rpcsec_gss.h>
#endif

#include <gk5/crypto.h>

#include "cli.h"
#include "nfs4_xdr.h"

#define NFS4_DEFAULT_IO (1024u * 1024u)
#define NFS4_MAX_IO (4u * 1024u * 1024u)
#define NFS4_MAX_COMPONENTS 32
#define NFS4_DIR_ENTRIES 256
#define NFS4_TIMEOUT_MS 30000u
#define NFS4_MAX_ENCTYPES 16

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
    gk5_rpc_establish establish; /* who makes gk5's contexts */
    bool have_establish;
};

struct nfs4_client {
    const struct nfs4_args *a;
    CLIENT *clnt;
    AUTH *auth;
    uint64_t clientid;
    uint32_t lease;       /* seconds */
    time_t renewed;       /* when the lease was last renewed */
    uint32_t owner_seqid; /* the open-owner's next seqid */
    char owner[64];
    struct timeval tv;
};

/* ---- errors ---- */

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

/* One COMPOUND; 0, or -1 with the error printed. */
static int compound(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
                    nfs4_resop *r, const char *path)
{
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
        /* READ replies and WRITE calls carry up to rsize/wsize bytes. */
        opts.max_body =
            (size_t)(a->rsize > a->wsize ? a->rsize : a->wsize) + 64u * 1024u;
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

/* RFC 7530 16.33/16.34: a client id of our own, confirmed; the lease
 * time from the root's attributes. */
static int client_open(struct nfs4_client *c, const struct nfs4_args *a)
{
    char err[512], id[160], host[128];
    uint8_t rnd[8];
    nfs4_argop ops[2];
    nfs4_resop r[2];
    nfs4_bitmap mask = {0};

    memset(c, 0, sizeof(*c));
    c->a = a;
    c->tv.tv_sec = (time_t)(a->timeout_ms / 1000);
    c->tv.tv_usec = (suseconds_t)(a->timeout_ms % 1000) * 1000;
    if (cli_rpc_connect(a->hostport, NFS4_PROGRAM, NFS4_VERSION, &c->clnt, err,
                        sizeof(err)) != 0) {
        cli_error("%s: %s", a->cmd, err);
        return -1;
    }
    if (make_auth(c) != 0) {
        return -1;
    }
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
    if (c->clnt != NULL) {
        if (c->auth != NULL) {
            auth_destroy(c->auth); /* RPCSEC_GSS_DESTROY */
            c->clnt->cl_auth = NULL;
        }
        clnt_destroy(c->clnt);
    }
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

static int cmd_put_from(struct nfs4_client *c, FILE *in, const char *local,
                        const char *path)
{
    struct nfs4_open_file f;
    char buf[1024];
    nfs4_fh dir;
    const char *name;
    uint8_t *data = NULL, verf[NFS4_VERIFIER_SIZE];
    uint64_t off = 0;
    bool unstable = false, have_verf = false, opened = false;
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
    for (;;) {
        size_t got = fread(data, 1, c->a->wsize, in);
        nfs4_argop ops[2];
        nfs4_resop r[2];

        if (got == 0) {
            if (ferror(in)) {
                cli_error("%s: reading %s: %s", c->a->cmd, local,
                          strerror(errno));
                goto cleanup;
            }
            break;
        }
        for (size_t done = 0; done < got;) {
            if (keep_lease(c) != 0) {
                goto cleanup;
            }
            memset(ops, 0, sizeof(ops));
            ops[0] = nfs4_putfh(&f.fh);
            ops[1].op = OP_WRITE;
            ops[1].u.write.stateid = f.stateid;
            ops[1].u.write.offset = off;
            ops[1].u.write.stable = UNSTABLE4;
            ops[1].u.write.data = data + done;
            ops[1].u.write.len = (uint32_t)(got - done);
            if (compound(c, ops, 2, r, path) != 0) {
                goto cleanup;
            }
            if (r[1].u.write.count == 0 || r[1].u.write.count > got - done) {
                cli_error("%s: %s: the server wrote %u of %zu bytes", c->a->cmd,
                          path, (unsigned)r[1].u.write.count, got - done);
                goto cleanup;
            }
            /* RFC 7530 16.36.5: a changed verifier means the server lost
             * what it had not committed. */
            if (have_verf &&
                memcmp(verf, r[1].u.write.verifier, sizeof(verf)) != 0) {
                cli_error("%s: %s: the server restarted during the transfer "
                          "(its write verifier changed); put the file again",
                          c->a->cmd, path);
                goto cleanup;
            }
            memcpy(verf, r[1].u.write.verifier, sizeof(verf));
            have_verf = true;
            unstable |= r[1].u.write.committed != FILE_SYNC4;
            done += r[1].u.write.count;
            off += r[1].u.write.count;
        }
        if (got < c->a->wsize) {
            break;
        }
    }
    if (unstable) {
        nfs4_argop ops[2];
        nfs4_resop r[2];

        memset(ops, 0, sizeof(ops));
        ops[0] = nfs4_putfh(&f.fh);
        ops[1].op = OP_COMMIT;
        if (compound(c, ops, 2, r, path) != 0) {
            goto cleanup;
        }
        if (memcmp(verf, r[1].u.commit, sizeof(verf)) != 0) {
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
    uint8_t *buf;
    uint64_t calls;
    int failed;
};

/* One call of the worker's operation; 0 or -1 (error printed). */
static int bench_call(struct bench_worker *w, uint64_t k)
{
    nfs4_argop ops[2];
    nfs4_resop r[2];
    nfs4_bitmap mask = {0};
    uint64_t off = w->size < BENCH_SPAN ? (k * w->size) % BENCH_SPAN : 0;

    if (keep_lease(&w->c) != 0) {
        return -1;
    }
    memset(ops, 0, sizeof(ops));
    memset(r, 0, sizeof(r));
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
        r[1].u.read.buf = w->buf;
        r[1].u.read.cap = w->size;
        break;
    case BENCH_GETATTR:
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
        nfs4_bitmap_set(&mask, FATTR4_CHANGE);
        ops[1] = nfs4_getattr(&mask);
        break;
    }
    if (compound(&w->c, ops, 2, r, w->name) != 0) {
        return -1;
    }
    if (w->op == BENCH_READ && r[1].u.read.len != w->size) {
        cli_error("%s: %s: READ of %u bytes at %" PRIu64 " returned %u",
                  w->c.a->cmd, w->name, (unsigned)w->size, off,
                  (unsigned)r[1].u.read.len);
        return -1;
    }
    return 0;
}

static void *bench_worker_main(void *arg)
{
    struct bench_worker *w = arg;

    (void)pthread_barrier_wait(w->start);
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
        w[i].buf = calloc(1, max_size);
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
    printf("gk5 nfs4 bench: %s, client %s, %u call%s in flight, %.1f s per "
           "cell\n",
           a->hostport,
           a->via_libtirpc ? "libtirpc (rpc_gss_seccreate, MIT)"
                           : "gk5 (RPCSEC_GSS AUTH)",
           o->threads, o->threads == 1 ? "" : "s", o->seconds);
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

/* ---- options ---- */

static void nfs4_usage(FILE *f)
{
    fprintf(f,
            "Usage: gk5 nfs4 ls HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 cat HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 put LOCALFILE HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 rm HOST:PORT:/PATH [options]\n"
            "       gk5 nfs4 bench HOST:PORT:/DIR [--sec LIST] [--size LIST]\n"
            "                      [--seconds S] [--threads N] "
            "[--via gk5|libtirpc]\n"
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
            "bench: WRITE and READ MB/s and GETATTR calls/s in DIR, N "
            "calls in flight\n"
            "(one connection each), for each service of --sec LIST "
            "(default\n"
            "sys,krb5,krb5i,krb5p) and size of --size LIST (default "
            "4k,64k,1m), as\n"
            "ratios to sys; --via libtirpc measures libtirpc's own "
            "MIT-based client\n"
            "(credentials: KRB5CCNAME, or --client-keytab).\n"
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

int gk5_cli_nfs4(int argc, char **argv)
{
    static char cmd_name[32];
    struct nfs4_args a;
    struct nfs4_client c;
    struct bench_opts bo;
    char sec_list[64] = "sys,krb5,krb5i,krb5p", size_list[128] = "4k,64k,1m";
    const char *sub, *local = NULL;
    bool bench;
    int opt, ret;

    if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        nfs4_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    sub = argv[1];
    if (strcmp(sub, "ls") != 0 && strcmp(sub, "cat") != 0 &&
        strcmp(sub, "put") != 0 && strcmp(sub, "rm") != 0 &&
        strcmp(sub, "bench") != 0) {
        cli_error("nfs4: unknown command '%s' (ls, cat, put, rm, bench)", sub);
        return CLI_EXIT_USAGE;
    }
    bench = strcmp(sub, "bench") == 0;
    memset(&bo, 0, sizeof(bo));
    bo.seconds = 2;
    bo.threads = 1;
    memset(&a, 0, sizeof(a));
    snprintf(cmd_name, sizeof(cmd_name), "nfs4 %s", sub);
    a.cmd = cmd_name;
    a.sec_name = "krb5p";
    a.svc = GK5_RPC_SVC_PRIVACY;
    a.rsize = a.wsize = NFS4_DEFAULT_IO;
    a.timeout_ms = NFS4_TIMEOUT_MS;
    /* Options may follow the operands: getopt permutes the subcommand's
     * own argv (optind 0 starts it afresh). */
    argc--;
    argv++;
    opterr = 0;
    optind = 0;
    /* ':' first: a missing value is reported as such (cli_option_error),
     * not as an unknown option. */
    while ((opt = getopt_long(argc, argv, ":", nfs4_options, NULL)) != -1) {
        uint32_t v;
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
            break;
        case OPT_HELP:
            nfs4_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(a.cmd, opt, argv);
        }
    }
    if (strcmp(sub, "put") == 0) {
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
    if ((bench || !a.sys) && a.target == NULL) {
        snprintf(a.default_target, sizeof(a.default_target), "nfs@%s", a.host);
        a.target = a.default_target;
    }
    if (bench) {
        return bench_main(&a, &bo, sec_list, size_list);
    }

    if (client_open(&c, &a) != 0) {
        client_close(&c);
        return CLI_EXIT_FAIL;
    }
    if (strcmp(sub, "ls") == 0) {
        ret = cmd_ls(&c, a.path);
    } else if (strcmp(sub, "cat") == 0) {
        ret = cmd_cat(&c, a.path, stdout);
    } else if (strcmp(sub, "put") == 0) {
        ret = cmd_put(&c, local, a.path);
    } else {
        ret = cmd_rm(&c, a.path);
    }
    client_close(&c);
    return ret == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
