/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 ls|cat|put|rm, storm (cli_nfs4_storm.c), and bench by running
 * gk5-bench.
 *
 * The commands of the NFSv4.0 client (RFC 7530) in support/nfs4/client.c
 * (gk5's own RPC client, or libtirpc's clnt_vc with gk5's RPCSEC_GSS AUTH,
 * --transport libtirpc, the default when gk5 is built with libtirpc): ls
 * walks the path and lists it, cat and put READ or WRITE with the open
 * stateid, COMMIT when the server answered UNSTABLE4 (checking that its
 * write verifier did not change, RFC 7530 16.3.5), then CLOSE; rm REMOVEs.
 * On gk5's client, --inflight N keeps up to N WRITEs (put) or READs (cat)
 * out on the connection at once (gk5_rpc_clnt_send and _wait).  The
 * options are support/nfs4/cmdline.c's, shared with gk5-bench.
 *
 * gk5 nfs4 bench, which measures the data path, is gk5-bench's
 * (bench/nfs4.c): gk5 runs it with the same arguments, as gk5 bench.  gk5
 * nfs4 storm measures the making of contexts (many RPCSEC_GSS contexts at
 * once, each then checked with one krb5p WRITE and READ; it needs
 * libtirpc: many contexts on one connection, as gk5's AUTHs on one
 * CLIENT).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gk5/crypto.h>

#include "cli.h"
#include "client.h"
#include "common/bytes.h"

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
    int n = nfs4_split_path(path, buf, sizeof(buf), comp), ret = -1;

    if (n < 0) {
        cli_error("%s: '%s' is not a usable path", c->a->cmd, path);
        return -1;
    }
    if (nfs4_client_walk(c, comp, n, path, &fh, &attrs) != 0) {
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

        if (nfs4_client_keep_lease(c) != 0) {
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
        if (nfs4_client_call(c, ops, 2, r, path) != 0) {
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
    int n = nfs4_split_path(path, buf, len, comp);

    if (n <= 0) {
        cli_error("%s: '%s' does not name a file", c->a->cmd, path);
        return -1;
    }
    if (nfs4_client_walk(c, comp, n - 1, path, dir, &attrs) != 0) {
        return -1;
    }
    *name = comp[n - 1];
    return 0;
}

/* --inflight on gk5's client: one READ or WRITE kept out. */

/* n slots, each with a buffer of size bytes; NULL (error printed) when
 * out of memory. */
static struct nfs4_io_slot *io_slots_new(struct nfs4_client *c, uint32_t n,
                                         uint32_t size)
{
    struct nfs4_io_slot *s = calloc(n, sizeof(*s));

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
static void io_slots_free(struct nfs4_client *c, struct nfs4_io_slot *s,
                          uint32_t n, uint64_t done, uint64_t sent)
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
    struct nfs4_io_slot *s = io_slots_new(c, n, rsize);
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
            struct nfs4_io_slot *slot = &s[sent % n];
            nfs4_argop ops[2];

            if (nfs4_client_keep_lease(c) != 0) {
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
            if (nfs4_client_send(c, ops, 2, slot->r, &slot->id) != 0) {
                goto cleanup;
            }
            slot->off = next;
            next += rsize;
            sent++;
        }
        if (done == sent) {
            break;
        }
        struct nfs4_io_slot *slot = &s[done % n];
        bool drop = done < drop_below;
        int rc = nfs4_client_wait(c, slot->id, slot->r, 2, path);

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
        nfs4_client_open_file(c, &dir, name, false, path, &f) != 0) {
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

        if (nfs4_client_keep_lease(c) != 0) {
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
        if (nfs4_client_call(c, ops, 2, r, path) != 0) {
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
    if (nfs4_client_close_file(c, &f, path) != 0) {
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

        if (nfs4_client_keep_lease(c) != 0) {
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
        if (nfs4_client_call(c, ops, 2, r, path) != 0 ||
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
    struct nfs4_io_slot *s = io_slots_new(c, n, wsize);
    uint64_t sent = 0, done = 0, next = 0;
    bool end = false;
    int ret = -1;

    if (s == NULL) {
        return -1;
    }
    for (;;) {
        while (!end && sent - done < n) {
            struct nfs4_io_slot *slot = &s[sent % n];
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
            if (nfs4_client_keep_lease(c) != 0) {
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
            if (nfs4_client_send(c, ops, 2, slot->r, &slot->id) != 0) {
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
        struct nfs4_io_slot *slot = &s[done % n];
        int rc = nfs4_client_wait(c, slot->id, slot->r, 2, path);

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
        nfs4_client_open_file(c, &dir, name, true, path, &f) != 0) {
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
        if (nfs4_client_call(c, ops, 2, r, path) != 0) {
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
    if (opened && nfs4_client_close_file(c, &f, path) != 0) {
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
    return nfs4_client_call(c, ops, 2, r, path);
}

#ifdef GK5_HAVE_TIRPC
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
    a.establish = t->establish;
    a.rsize = a.wsize = NFS4_DEFAULT_IO;
    a.timeout_ms = NFS4_TIMEOUT_MS;
    if (nfs4_client_open(&c, &a) != 0) {
        nfs4_client_close(&c);
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
    t0 = cli_now_s();
    for (unsigned r = 0; r < rounds; r++) {
        rewind(in);
        if (cmd_put_from(&c, in, "(memory)", t->path) != 0) {
            goto cleanup;
        }
    }
    t->put_s = cli_now_s() - t0;
    t0 = cli_now_s();
    for (unsigned r = 0; r < rounds; r++) {
        if (fseeko(out, 0, SEEK_SET) != 0 || cmd_cat(&c, t->path, out) != 0) {
            goto cleanup;
        }
    }
    t->cat_s = cli_now_s() - t0;
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
    nfs4_client_close(&c);
    return ret;
}

#endif /* GK5_HAVE_TIRPC */

/* op is an enum nfs4_op; argv[0] is the subcommand's name. */
static int nfs4_run(int op, int argc, char **argv)
{
    struct nfs4_cmdline cl;
    struct nfs4_client c;
    int ret;

    if (op == NFS4_BENCH) {
#ifdef GK5_HAVE_BENCH
        /* The benchmark is gk5-bench's (bench/nfs4.c): it gets the same
         * arguments and says the same words. */
        return cli_run_bench("nfs4 bench", "nfs4", argc, argv);
#else
        cli_error("nfs4 bench: it runs gk5-bench, which this build leaves "
                  "out (-Dbench=disabled)");
        return CLI_EXIT_USAGE;
#endif
    }
    ret = nfs4_cmdline_parse(op, argc, argv, &cl);
    if (ret >= 0) {
        return ret;
    }
#ifdef GK5_HAVE_TIRPC
    if (op == NFS4_STORM) {
        return cli_nfs4_storm(&cl.a, &cl.storm);
    }
#endif

    if (nfs4_client_open(&c, &cl.a) != 0) {
        nfs4_client_close(&c);
        return CLI_EXIT_FAIL;
    }
    switch (op) {
    case NFS4_LS:
        ret = cmd_ls(&c, cl.a.path);
        break;
    case NFS4_CAT:
        ret = cmd_cat(&c, cl.a.path, stdout);
        break;
    case NFS4_PUT:
        ret = cmd_put(&c, cl.local, cl.a.path);
        break;
    default:
        ret = cmd_rm(&c, cl.a.path);
        break;
    }
    nfs4_client_close(&c);
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
