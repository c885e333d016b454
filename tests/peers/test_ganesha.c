/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5's RPCSEC_GSS client against NFS-Ganesha: a minimal NFSv4.0 client
 * (RFC 7530, through nfs4_xdr.c) with one TAP line per cell.  Run inside
 * tests/peers/ganesha.sh run (GK5_GANESHA_PORT), itself inside
 * gk5 realm run (GK5_REALM_DIR).
 *
 *   test_ganesha [--via gk5|libtirpc] [--port P] [--realm DIR]
 *                [--flavors LIST] [--io LIST] [--size BYTES]
 *
 * For each flavour of --flavors (default sys,krb5,krb5i,krb5p):
 *   NULL                      procedure 0
 *   PUTROOTFH+GETATTR         the root's type, size, fsid, fileid, mode...
 * and for each flavour of --io (default krb5i,krb5p), on one connection:
 *   SETCLIENTID+CONFIRM       a unique client id, dummy callback
 *   OPEN                      create (UNCHECKED4) a unique file in the
 *                             root, then OPEN_CONFIRM when asked to
 *   WRITE                     --size bytes (default 1 MiB) in one WRITE,
 *                             COMMIT unless FILE_SYNC4, GETATTR size
 *   READ                      them back, byte for byte
 *   CLOSE, REMOVE
 * A cell that cannot run because an earlier one failed says SKIP; every
 * failure names the NFS4ERR code or the RPC and gk5 error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nfs4_tirpc.h"
#include "peer.h"

#define NFS_TARGET "nfs@localhost"
#define DEFAULT_SIZE (1u << 20)
/* A transient program number for the (never used) callback. */
#define CB_PROGRAM 0x40000000u

#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

typedef struct {
    const peer_config *cfg;
    peer_flavor f;
    const char *name;
    CLIENT *clnt;
    AUTH *auth;
    char why[2048];
} session;

/* Connect and make the AUTH; false with s->why. */
static bool session_open(session *s, const peer_config *cfg, peer_flavor f)
{
    memset(s, 0, sizeof(*s));
    s->cfg = cfg;
    s->f = f;
    s->name = peer_flavor_name(f);
    s->clnt = peer_connect(cfg, s->why, sizeof(s->why));
    if (s->clnt == NULL) {
        return false;
    }
    s->auth = peer_auth_create(cfg, s->clnt, f, s->why, sizeof(s->why));
    if (s->auth == NULL) {
        return false;
    }
    s->clnt->cl_auth = s->auth;
    return true;
}

static void session_close(session *s)
{
    if (s->auth != NULL) {
        auth_destroy(s->auth);
        s->auth = NULL;
    }
    if (s->clnt != NULL) {
        s->clnt->cl_auth = NULL;
        clnt_destroy(s->clnt);
        s->clnt = NULL;
    }
}

/* One COMPOUND; true when the RPC and every operation succeeded, else
 * false with s->why naming the failed operation's NFS4ERR code or the RPC
 * (and gk5) error. */
static bool compound(session *s, const nfs4_argop *ops, uint32_t n,
                     nfs4_compound_res *res)
{
    enum clnt_stat st =
        nfs4_compound(s->clnt, ops, n, res, peer_timeout(s->cfg));

    if (st != RPC_SUCCESS) {
        peer_call_error(s->cfg, s->clnt, s->auth, st, s->why, sizeof(s->why));
        return false;
    }
    if (res->status != NFS4_OK || res->n != n) {
        snprintf(s->why, sizeof(s->why), "%s", nfs4_compound_error(res));
        return false;
    }
    return true;
}

static void fail(const session *s, const char *what)
{
    tap_result(false, "ganesha %s %s", s->name, what);
    tap_diag("%s", s->why);
}

/* ---- Cells for every flavour ---- */

static void cell_null(session *s)
{
    enum clnt_stat st;
    char ctx[256];

    st = clnt_call(s->clnt, NFSPROC4_NULL, XDRPROC(xdr_void), NULL,
                   XDRPROC(xdr_void), NULL, peer_timeout(s->cfg));
    if (st != RPC_SUCCESS) {
        peer_call_error(s->cfg, s->clnt, s->auth, st, s->why, sizeof(s->why));
        fail(s, "NULL");
        return;
    }
    tap_result(true, "ganesha %s NULL", s->name);
    peer_auth_describe(s->cfg, s->auth, ctx, sizeof(ctx));
    if (ctx[0] != '\0') {
        tap_diag("context: %s", ctx);
    }
}

static void cell_getattr_root(session *s)
{
    nfs4_bitmap mask = {0};
    nfs4_resop r[2];
    nfs4_compound_res res = {.ops = r, .max = 2};
    const nfs4_attrs *a = &r[1].u.getattr;

    nfs4_bitmap_set(&mask, FATTR4_TYPE);
    nfs4_bitmap_set(&mask, FATTR4_CHANGE);
    nfs4_bitmap_set(&mask, FATTR4_SIZE);
    nfs4_bitmap_set(&mask, FATTR4_FSID);
    nfs4_bitmap_set(&mask, FATTR4_LEASE_TIME);
    nfs4_bitmap_set(&mask, FATTR4_FILEID);
    nfs4_bitmap_set(&mask, FATTR4_MODE);
    nfs4_bitmap_set(&mask, FATTR4_NUMLINKS);
    nfs4_argop ops[] = {nfs4_putrootfh(), nfs4_getattr(&mask)};

    if (!compound(s, ops, 2, &res)) {
        fail(s, "PUTROOTFH+GETATTR");
        return;
    }
    bool ok = nfs4_bitmap_isset(&a->mask, FATTR4_TYPE) &&
              nfs4_bitmap_isset(&a->mask, FATTR4_SIZE) &&
              nfs4_bitmap_isset(&a->mask, FATTR4_FSID) && a->type == NF4DIR;
    tap_result(ok,
               "ganesha %s PUTROOTFH+GETATTR: type %s, size %" PRIu64
               ", fsid %" PRIu64 ".%" PRIu64 ", fileid %" PRIu64
               ", mode 0%o, lease %us",
               s->name, nfs4_ftype_name(a->type), a->size, a->fsid_major,
               a->fsid_minor, a->fileid, a->mode, a->lease_time);
    if (!ok) {
        tap_diag("expected the root directory with type, size and fsid "
                 "(bitmap %08x %08x)",
                 a->mask.w[0], a->mask.n > 1 ? a->mask.w[1] : 0);
    }
}

/* ---- The I/O cycle ---- */

typedef struct {
    uint64_t clientid;
    uint32_t seqid; /* the open-owner's next seqid */
    nfs4_stateid stateid;
    nfs4_fh fh;
    char file[96], owner[96];
    uint8_t *data, *back;
    uint32_t size;
} io_state;

/* Deterministic, position-dependent bytes: a mismatch says where. */
static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;

    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static bool cell_setclientid(session *s, io_state *io)
{
    nfs4_argop a = {.op = OP_SETCLIENTID};
    nfs4_resop r[1];
    nfs4_compound_res res = {.ops = r, .max = 1};
    char id[128];
    uint32_t now = (uint32_t)time(NULL), pid = (uint32_t)getpid();

    snprintf(id, sizeof(id), "gk5-peers/%u/%u/%s", pid, now, s->name);
    memcpy(a.u.setclientid.verifier, &pid, 4);
    memcpy(a.u.setclientid.verifier + 4, &now, 4);
    a.u.setclientid.id = id;
    a.u.setclientid.cb_program = CB_PROGRAM;
    a.u.setclientid.cb_netid = "tcp";
    a.u.setclientid.cb_addr = "127.0.0.1.0.0";
    a.u.setclientid.cb_ident = 1;
    if (!compound(s, &a, 1, &res)) {
        fail(s, "SETCLIENTID");
        return false;
    }
    io->clientid = r[0].u.setclientid.clientid;

    nfs4_argop c = {.op = OP_SETCLIENTID_CONFIRM};
    c.u.setclientid_confirm.clientid = io->clientid;
    memcpy(c.u.setclientid_confirm.verifier, r[0].u.setclientid.verifier,
           NFS4_VERIFIER_SIZE);
    if (!compound(s, &c, 1, &res)) {
        fail(s, "SETCLIENTID_CONFIRM");
        return false;
    }
    return tap_result(true,
                      "ganesha %s SETCLIENTID+CONFIRM: clientid 0x%" PRIx64,
                      s->name, io->clientid);
}

static bool cell_open(session *s, io_state *io)
{
    nfs4_argop open = {.op = OP_OPEN};
    nfs4_resop r[3];
    nfs4_compound_res res = {.ops = r, .max = 3};
    bool confirmed = false;

    open.u.open.seqid = io->seqid;
    open.u.open.share_access = OPEN4_SHARE_ACCESS_BOTH;
    open.u.open.share_deny = OPEN4_SHARE_DENY_NONE;
    open.u.open.clientid = io->clientid;
    open.u.open.owner = io->owner;
    open.u.open.create = true;
    open.u.open.createmode = UNCHECKED4;
    open.u.open.mode = 0644;
    open.u.open.name = io->file;
    nfs4_argop ops[] = {nfs4_putrootfh(), open, nfs4_getfh()};
    if (!compound(s, ops, 3, &res)) {
        fail(s, "OPEN");
        return false;
    }
    io->seqid++;
    io->stateid = r[1].u.open.stateid;
    io->fh = r[2].u.getfh;

    /* RFC 7530 16.16.5: a new open-owner must confirm its first OPEN. */
    if ((r[1].u.open.rflags & OPEN4_RESULT_CONFIRM) != 0) {
        nfs4_argop conf = {.op = OP_OPEN_CONFIRM};
        conf.u.open_confirm.stateid = io->stateid;
        conf.u.open_confirm.seqid = io->seqid;
        nfs4_argop cops[] = {nfs4_putfh(&io->fh), conf};
        if (!compound(s, cops, 2, &res)) {
            fail(s, "OPEN_CONFIRM");
            return false;
        }
        io->seqid++;
        io->stateid = r[1].u.open_confirm;
        confirmed = true;
    }
    return tap_result(true,
                      "ganesha %s OPEN %s (create, UNCHECKED4)%s: fh %u "
                      "bytes, delegation %u",
                      s->name, io->file, confirmed ? " + OPEN_CONFIRM" : "",
                      io->fh.len, r[1].u.open.delegation);
}

static bool cell_write(session *s, io_state *io)
{
    nfs4_resop r[3];
    nfs4_compound_res res = {.ops = r, .max = 3};
    uint32_t off = 0, calls = 0, stable = FILE_SYNC4;

    while (off < io->size) {
        nfs4_argop w = {.op = OP_WRITE};
        w.u.write.stateid = io->stateid;
        w.u.write.offset = off;
        w.u.write.stable = FILE_SYNC4;
        w.u.write.data = io->data + off;
        w.u.write.len = io->size - off;
        nfs4_argop ops[] = {nfs4_putfh(&io->fh), w};
        if (!compound(s, ops, 2, &res)) {
            fail(s, "WRITE");
            return false;
        }
        if (r[1].u.write.count == 0 || r[1].u.write.count > io->size - off) {
            snprintf(s->why, sizeof(s->why),
                     "WRITE of %u bytes at %u answered count %u",
                     io->size - off, off, r[1].u.write.count);
            fail(s, "WRITE");
            return false;
        }
        if (r[1].u.write.committed < stable) {
            stable = r[1].u.write.committed;
        }
        off += r[1].u.write.count;
        calls++;
    }

    /* Anything less than FILE_SYNC4 is made stable with COMMIT. */
    nfs4_bitmap mask = {0};
    nfs4_bitmap_set(&mask, FATTR4_SIZE);
    nfs4_argop commit = {.op = OP_COMMIT};
    nfs4_argop ops[3] = {nfs4_putfh(&io->fh), commit, nfs4_getattr(&mask)};
    uint32_t n = 3;
    if (stable == FILE_SYNC4) {
        ops[1] = nfs4_getattr(&mask);
        n = 2;
    }
    if (!compound(s, ops, n, &res)) {
        fail(s, stable == FILE_SYNC4 ? "GETATTR after WRITE" : "COMMIT");
        return false;
    }
    uint64_t size = r[n - 1].u.getattr.size;
    bool ok = size == io->size;
    tap_result(ok,
               "ganesha %s WRITE %u bytes in %u call%s (%s%s), size now "
               "%" PRIu64,
               s->name, io->size, calls, calls == 1 ? "" : "s",
               stable == FILE_SYNC4   ? "FILE_SYNC4"
               : stable == DATA_SYNC4 ? "DATA_SYNC4"
                                      : "UNSTABLE4",
               stable == FILE_SYNC4 ? "" : " + COMMIT", size);
    return ok;
}

static bool cell_read(session *s, io_state *io)
{
    nfs4_resop r[2];
    nfs4_compound_res res = {.ops = r, .max = 2};
    uint32_t off = 0, calls = 0;
    bool eof = false;

    memset(io->back, 0, io->size);
    while (off < io->size && !eof) {
        nfs4_argop rd = {.op = OP_READ};
        rd.u.read.stateid = io->stateid;
        rd.u.read.offset = off;
        rd.u.read.count = io->size - off;
        nfs4_argop ops[] = {nfs4_putfh(&io->fh), rd};
        r[1].u.read.buf = io->back + off;
        r[1].u.read.cap = io->size - off;
        if (!compound(s, ops, 2, &res)) {
            fail(s, "READ");
            return false;
        }
        off += r[1].u.read.len;
        eof = r[1].u.read.eof;
        calls++;
        if (r[1].u.read.len == 0 && !eof) {
            break;
        }
    }
    if (off != io->size) {
        snprintf(s->why, sizeof(s->why),
                 "READ returned %u of %u bytes (eof %d)", off, io->size, eof);
        fail(s, "READ");
        return false;
    }
    for (uint32_t i = 0; i < io->size; i++) {
        if (io->back[i] != io->data[i]) {
            snprintf(s->why, sizeof(s->why),
                     "byte %u differs: wrote 0x%02x, read 0x%02x", i,
                     io->data[i], io->back[i]);
            fail(s, "READ");
            return false;
        }
    }
    return tap_result(true,
                      "ganesha %s READ %u bytes in %u call%s, equal to "
                      "what was written",
                      s->name, io->size, calls, calls == 1 ? "" : "s");
}

static bool cell_close(session *s, io_state *io)
{
    nfs4_argop c = {.op = OP_CLOSE};
    nfs4_resop r[2];
    nfs4_compound_res res = {.ops = r, .max = 2};

    c.u.close.seqid = io->seqid;
    c.u.close.stateid = io->stateid;
    nfs4_argop ops[] = {nfs4_putfh(&io->fh), c};
    if (!compound(s, ops, 2, &res)) {
        fail(s, "CLOSE");
        return false;
    }
    io->seqid++;
    return tap_result(true, "ganesha %s CLOSE", s->name);
}

static bool cell_remove(session *s, io_state *io)
{
    nfs4_argop rm = {.op = OP_REMOVE, .u.remove.name = io->file};
    nfs4_resop r[2];
    nfs4_compound_res res = {.ops = r, .max = 2};
    nfs4_argop ops[] = {nfs4_putrootfh(), rm};

    if (!compound(s, ops, 2, &res)) {
        fail(s, "REMOVE");
        return false;
    }
    return tap_result(true, "ganesha %s REMOVE %s", s->name, io->file);
}

#define IO_CELLS 6

static void run_io(const peer_config *cfg, peer_flavor f, uint32_t size)
{
    static const char *const cells[IO_CELLS] = {
        "SETCLIENTID+CONFIRM", "OPEN", "WRITE", "READ", "CLOSE", "REMOVE"};
    session s;
    io_state io = {.seqid = 1, .size = size};
    int done = 0; /* cells reported so far */

    memset(&s, 0, sizeof(s));
    s.name = peer_flavor_name(f);
    io.data = malloc(size);
    io.back = malloc(size);
    if (io.data == NULL || io.back == NULL) {
        tap_result(false, "ganesha %s %s", s.name, cells[0]);
        tap_diag("out of memory for %u bytes", size);
        done = 1;
        goto skip_rest;
    }
    fill(io.data, size, (uint32_t)f + 1);
    if (!session_open(&s, cfg, f)) {
        tap_result(false, "ganesha %s %s", s.name, cells[0]);
        tap_diag("%s", s.why);
        done = 1;
        goto skip_rest;
    }
    snprintf(io.file, sizeof(io.file), "gk5-peers-%u-%s", (unsigned)getpid(),
             s.name);
    snprintf(io.owner, sizeof(io.owner), "gk5-peers-owner-%u-%s",
             (unsigned)getpid(), s.name);

    done = 1;
    if (!cell_setclientid(&s, &io)) {
        goto skip_rest;
    }
    done = 2;
    if (!cell_open(&s, &io)) {
        goto skip_rest;
    }
    if (cell_write(&s, &io)) {
        cell_read(&s, &io);
    } else {
        tap_skip("WRITE failed", "ganesha %s READ", s.name);
    }
    cell_close(&s, &io);
    cell_remove(&s, &io);
    done = IO_CELLS;

skip_rest:
    for (int i = done; i < IO_CELLS; i++) {
        tap_skip("an earlier step failed", "ganesha %s %s", s.name, cells[i]);
    }
    session_close(&s);
    free(io.data);
    free(io.back);
}

static void run_flavor(const peer_config *cfg, peer_flavor f)
{
    session s;

    if (!session_open(&s, cfg, f)) {
        tap_result(false, "ganesha %s NULL", peer_flavor_name(f));
        tap_diag("%s", s.why);
        tap_skip("no context", "ganesha %s PUTROOTFH+GETATTR",
                 peer_flavor_name(f));
        session_close(&s);
        return;
    }
    cell_null(&s);
    cell_getattr_root(&s);
    session_close(&s);
}

/* "sys,krb5i" -> bits of peer_flavor; 0 and *set, or -1. */
static int parse_flavors(const char *list, unsigned *set)
{
    char buf[128], *tok, *save = NULL;

    if (strlen(list) >= sizeof(buf)) {
        return -1;
    }
    strcpy(buf, list);
    *set = 0;
    for (tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        peer_flavor f;
        if (peer_flavor_parse(tok, &f) != 0) {
            return -1;
        }
        *set |= 1u << f;
    }
    return 0;
}

static int usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--via gk5|libtirpc] [--port P] [--realm DIR]\n"
            "          [--flavors sys,krb5,krb5i,krb5p] [--io krb5i,krb5p]\n"
            "          [--size BYTES]\n",
            argv0);
    return 2;
}

int main(int argc, char **argv)
{
    peer_config cfg = {
        .target = NFS_TARGET,
        .prog = NFS4_PROGRAM,
        .vers = NFS4_VERSION,
    };
    unsigned flavors = 0xf;
    unsigned io = (1u << PEER_KRB5I) | (1u << PEER_KRB5P);
    unsigned long size = DEFAULT_SIZE;
    const char *port_env = "GK5_GANESHA_PORT";
    int i;

    if (peer_config_init(&cfg, port_env) != 0) {
        return 2;
    }
    for (i = 1; i + 1 < argc; i += 2) {
        const char *opt = argv[i], *val = argv[i + 1];
        int taken = peer_config_option(&cfg, opt, val);
        if (taken < 0) {
            return usage(argv[0]);
        }
        if (taken == 1) {
            continue;
        }
        if (strcmp(opt, "--flavors") == 0) {
            if (parse_flavors(val, &flavors) != 0) {
                return usage(argv[0]);
            }
        } else if (strcmp(opt, "--io") == 0) {
            if (parse_flavors(val, &io) != 0) {
                return usage(argv[0]);
            }
        } else if (strcmp(opt, "--size") == 0) {
            char *end;
            size = strtoul(val, &end, 0);
            if (*end != '\0' || size == 0 || size > (64ul << 20)) {
                return usage(argv[0]);
            }
        } else {
            return usage(argv[0]);
        }
    }
    if (i != argc || peer_config_ready(&cfg, port_env) != 0) {
        return usage(argv[0]);
    }

    tap_diag("NFS-Ganesha on 127.0.0.1:%u, target %s, client via %s, "
             "I/O size %lu",
             cfg.port, cfg.target, peer_via_name(cfg.via), size);
    for (unsigned f = 0; f < PEER_N_FLAVORS; f++) {
        if ((flavors & (1u << f)) != 0) {
            run_flavor(&cfg, (peer_flavor)f);
        }
    }
    for (unsigned f = 0; f < PEER_N_FLAVORS; f++) {
        if ((io & (1u << f)) != 0) {
            run_io(&cfg, (peer_flavor)f, (uint32_t)size);
        }
    }
    return tap_done();
}
