/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 nfs4 ls|cat|put|rm|storm, and bench by running gk5-bench.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <pthread.h>

#include <gk5/accept.h>
#include <gk5/crypto.h>
#include <gk5/tickets.h>

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
/* The clock of gk5 demo's transfer times and of nfs4 storm. */
static double now_seconds(void)
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
    t0 = now_seconds();
    for (unsigned r = 0; r < rounds; r++) {
        rewind(in);
        if (cmd_put_from(&c, in, "(memory)", t->path) != 0) {
            goto cleanup;
        }
    }
    t->put_s = now_seconds() - t0;
    t0 = now_seconds();
    for (unsigned r = 0; r < rounds; r++) {
        if (fseeko(out, 0, SEEK_SET) != 0 || cmd_cat(&c, t->path, out) != 0) {
            goto cleanup;
        }
    }
    t->cat_s = now_seconds() - t0;
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

#define STORM_CHECK_BYTES 128u
/* The check's WRITEs cycle over this many slots of STORM_CHECK_BYTES in
 * the connection's file (128 KiB: far below MEM's Inode_Size). */
#define STORM_CHECK_SLOTS 1024u
/* Unanswered check calls in a row that end a connection's check. */
#define STORM_MAX_SILENT 3u
/* gk5_initiator_create and its AP-REQ, measured alone (no server). */
#define STORM_CALIBRATE 200u

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
    t0 = now_seconds();
    (void)pthread_barrier_wait(&start);
    for (unsigned i = 0; i < n; i++) {
        pthread_join(c[i].tid, NULL);
    }
    t1 = now_seconds();
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
    int k = nfs4_split_path(a->path, buf, sizeof(buf), comp);

    if (k < 0) {
        cli_error("%s: '%s' is not a usable path", a->cmd, a->path);
        return -1;
    }
    if (nfs4_client_open(setup, a) != 0 ||
        nfs4_client_walk(setup, comp, k, a->path, &dir, &attrs) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        snprintf(c[i].name, sizeof(c[i].name), "gk5-storm-%ld-%u",
                 (long)getpid(), i);
        if (nfs4_client_open_file(setup, &dir, c[i].name, true, c[i].name,
                                  &c[i].f) != 0) {
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
    int k = nfs4_split_path(a->path, buf, sizeof(buf), comp);
    bool have_dir = false;

    for (unsigned i = 0; i < n; i++) {
        if (!c[i].opened) {
            continue;
        }
        (void)nfs4_client_close_file(setup, &c[i].f, c[i].name);
        if (!have_dir) {
            have_dir = k >= 0 && nfs4_client_walk(setup, comp, k, a->path, &dir,
                                                  &attrs) == 0;
        }
        if (have_dir) {
            nfs4_argop ops[2];
            nfs4_resop r[2];

            memset(ops, 0, sizeof(ops));
            ops[0] = nfs4_putfh(&dir);
            ops[1].op = OP_REMOVE;
            ops[1].u.remove.name = c[i].name;
            (void)nfs4_client_call(setup, ops, 2, r, c[i].name);
        }
        c[i].opened = false;
    }
    nfs4_client_close(setup);
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
        return cmd_storm(&cl.a, &cl.storm);
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
