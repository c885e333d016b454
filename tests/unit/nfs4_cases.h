/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The NFSv4 COMPOUND cases test_nfs4_xdr.c and test_nfs4_tirpc.c share:
 * arguments with every operation of support/nfs4/nfs4_xdr.h and their encoding,
 * and a reply with a result for each operation the decoder knows.
 * Include after <cmocka.h>.
 */
#ifndef GK5_TEST_NFS4_CASES_H
#define GK5_TEST_NFS4_CASES_H

#include <stdint.h>
#include <string.h>

#include "common/xdr.h"
#include "nfs4_xdr.h"

static const uint8_t write_data[] = {'h', 'e', 'l', 'l', 'o', '!', '\n'};

/* Every operation the encoder knows, OPEN three ways (create with
 * truncate, create, no create), with lengths that need padding.  a has
 * room for ALL_OPS_MAX. */
#define ALL_OPS_MAX 32
static uint32_t all_ops(nfs4_argop *a)
{
    nfs4_fh fh = {.len = 5, .data = {0xf1, 0xf2, 0xf3, 0xf4, 0xf5}};
    nfs4_bitmap mask = {0};
    nfs4_stateid sid = {.seqid = 0x01020304,
                        .other = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
    uint32_t n = 0;

    nfs4_bitmap_set(&mask, FATTR4_TYPE);
    nfs4_bitmap_set(&mask, FATTR4_SIZE);
    nfs4_bitmap_set(&mask, FATTR4_MODE);
    a[n++] = nfs4_putrootfh();
    a[n++] = nfs4_putfh(&fh);
    a[n++] = nfs4_getfh();
    a[n++] = nfs4_getattr(&mask);
    a[n] = (nfs4_argop){.op = OP_SETCLIENTID};
    memcpy(a[n].u.setclientid.verifier, "verifier", 8);
    a[n].u.setclientid.id = "gk5-client";
    a[n].u.setclientid.cb_program = 0x40000000;
    a[n].u.setclientid.cb_netid = "tcp";
    a[n].u.setclientid.cb_addr = "127.0.0.1.0.0";
    a[n++].u.setclientid.cb_ident = 7;
    a[n] = (nfs4_argop){.op = OP_SETCLIENTID_CONFIRM};
    a[n].u.setclientid_confirm.clientid = 0x1122334455667788ull;
    memcpy(a[n++].u.setclientid_confirm.verifier, "confirm!", 8);
    a[n] = (nfs4_argop){.op = OP_OPEN};
    a[n].u.open.seqid = 1;
    a[n].u.open.share_access = OPEN4_SHARE_ACCESS_BOTH;
    a[n].u.open.share_deny = OPEN4_SHARE_DENY_NONE;
    a[n].u.open.clientid = 0x1122334455667788ull;
    a[n].u.open.owner = "owner";
    a[n].u.open.create = true;
    a[n].u.open.createmode = GUARDED4;
    a[n].u.open.mode = 0640;
    a[n].u.open.truncate = true;
    a[n].u.open.name = "file.txt";
    n++;
    a[n] = a[n - 1];
    a[n].u.open.createmode = UNCHECKED4;
    a[n].u.open.truncate = false;
    a[n++].u.open.name = "f";
    a[n] = a[n - 1];
    a[n].u.open.create = false;
    a[n++].u.open.name = "";
    a[n] = (nfs4_argop){.op = OP_OPEN_CONFIRM};
    a[n].u.open_confirm.stateid = sid;
    a[n++].u.open_confirm.seqid = 2;
    a[n] = (nfs4_argop){.op = OP_WRITE};
    a[n].u.write.stateid = sid;
    a[n].u.write.offset = 0x100000000ull;
    a[n].u.write.stable = FILE_SYNC4;
    a[n].u.write.data = write_data;
    a[n++].u.write.len = sizeof(write_data);
    a[n] = (nfs4_argop){.op = OP_READ};
    a[n].u.read.stateid = sid;
    a[n].u.read.offset = 4096;
    a[n++].u.read.count = 1048576;
    a[n] = (nfs4_argop){.op = OP_COMMIT};
    a[n].u.commit.offset = 0;
    a[n++].u.commit.count = 0;
    a[n] = (nfs4_argop){.op = OP_CLOSE};
    a[n].u.close.seqid = 3;
    a[n++].u.close.stateid = sid;
    a[n] = (nfs4_argop){.op = OP_REMOVE};
    a[n++].u.remove.name = "old";
    a[n] = (nfs4_argop){.op = OP_LOOKUP};
    a[n++].u.lookup.name = "dir1";
    a[n] = (nfs4_argop){.op = OP_READDIR};
    a[n].u.readdir.cookie = 3;
    memcpy(a[n].u.readdir.cookieverf, "cookieve", 8);
    a[n].u.readdir.dircount = 8192;
    a[n].u.readdir.maxcount = 32768;
    a[n].u.readdir.attrs = mask;
    n++;
    a[n] = (nfs4_argop){.op = OP_RENEW};
    a[n++].u.renew = 0x1122334455667788ull;
    return n;
}

/* all_ops() with tag "gk5", minor version 0, as libtirpc's XDR encoded it:
 * made once with xdrmem_create and nfs4_xdr_compound_args when nfs4_xdr.c
 * still ran on libtirpc's xdr_* primitives (before the byte codec). */
static const uint8_t all_ops_xdr[] = {
    0x00, 0x00, 0x00, 0x03, 0x67, 0x6b, 0x35, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x16,
    0x00, 0x00, 0x00, 0x05, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x23,
    0x76, 0x65, 0x72, 0x69, 0x66, 0x69, 0x65, 0x72, 0x00, 0x00, 0x00, 0x0a,
    0x67, 0x6b, 0x35, 0x2d, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x00, 0x00,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x74, 0x63, 0x70, 0x00,
    0x00, 0x00, 0x00, 0x0d, 0x31, 0x32, 0x37, 0x2e, 0x30, 0x2e, 0x30, 0x2e,
    0x31, 0x2e, 0x30, 0x2e, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
    0x00, 0x00, 0x00, 0x24, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    0x63, 0x6f, 0x6e, 0x66, 0x69, 0x72, 0x6d, 0x21, 0x00, 0x00, 0x00, 0x12,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x05,
    0x6f, 0x77, 0x6e, 0x65, 0x72, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xa0, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x08, 0x66, 0x69, 0x6c, 0x65, 0x2e, 0x74, 0x78, 0x74,
    0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03,
    0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    0x00, 0x00, 0x00, 0x05, 0x6f, 0x77, 0x6e, 0x65, 0x72, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04,
    0x00, 0x00, 0x01, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44,
    0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x05, 0x6f, 0x77, 0x6e, 0x65,
    0x72, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x01, 0x02, 0x03, 0x04,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x26, 0x01, 0x02, 0x03, 0x04,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x07, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x21, 0x0a, 0x00,
    0x00, 0x00, 0x00, 0x19, 0x01, 0x02, 0x03, 0x04, 0x01, 0x02, 0x03, 0x04,
    0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x10, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x04,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
    0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x03, 0x6f, 0x6c, 0x64, 0x00,
    0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x04, 0x64, 0x69, 0x72, 0x31,
    0x00, 0x00, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
    0x63, 0x6f, 0x6f, 0x6b, 0x69, 0x65, 0x76, 0x65, 0x00, 0x00, 0x20, 0x00,
    0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x12,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x1e, 0x11, 0x22, 0x33, 0x44,
    0x55, 0x66, 0x77, 0x88,
};

/* The operations reply_put answers, in order. */
static const uint32_t reply_ops[] = {OP_PUTROOTFH,
                                     OP_GETFH,
                                     OP_GETATTR,
                                     OP_SETCLIENTID,
                                     OP_SETCLIENTID_CONFIRM,
                                     OP_PUTFH,
                                     OP_OPEN,
                                     OP_OPEN_CONFIRM,
                                     OP_WRITE,
                                     OP_COMMIT,
                                     OP_READ,
                                     OP_CLOSE,
                                     OP_REMOVE,
                                     OP_LOOKUP,
                                     OP_READDIR,
                                     OP_RENEW};
#define REPLY_OPS (sizeof(reply_ops) / sizeof(reply_ops[0]))
#define REPLY_READ_CAP 16
#define REPLY_DIR_CAP 4

static void put_sid(struct gk5i_wr *w, uint32_t seqid, uint8_t fill)
{
    uint8_t other[NFS4_OTHER_SIZE];

    memset(other, fill, sizeof(other));
    gk5i_xdr_put_u32(w, seqid);
    gk5i_xdr_put_fixed(w, other, sizeof(other));
}

static void put_change_info(struct gk5i_wr *w)
{
    gk5i_xdr_put_bool(w, true);
    gk5i_xdr_put_u64(w, 100);
    gk5i_xdr_put_u64(w, 101);
}

/* A READDIR entry: cookie, name, fattr4 with type and size. */
static void put_entry(struct gk5i_wr *w, uint64_t cookie, const char *name,
                      uint32_t type, uint64_t size)
{
    gk5i_xdr_put_u64(w, cookie);
    gk5i_xdr_put_string(w, name);
    gk5i_xdr_put_u32(w, 1);
    gk5i_xdr_put_u32(w, (1u << FATTR4_TYPE) | (1u << FATTR4_SIZE));
    gk5i_xdr_put_u32(w, 12);
    gk5i_xdr_put_u32(w, type);
    gk5i_xdr_put_u64(w, size);
}

/* COMPOUND4res, NFS4_OK, with one result for each of reply_ops, written
 * field by field after RFC 7530 16. */
static void reply_put(struct gk5i_wr *w)
{
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_string(w, "gk5");
    gk5i_xdr_put_u32(w, REPLY_OPS);

    gk5i_xdr_put_u32(w, OP_PUTROOTFH);
    gk5i_xdr_put_u32(w, NFS4_OK);

    gk5i_xdr_put_u32(w, OP_GETFH);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_opaque(w, "\xf1\xf2\xf3\xf4\xf5", 5);

    /* every attribute the decoder knows, in bit order */
    gk5i_xdr_put_u32(w, OP_GETATTR);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_u32(w, 2);
    gk5i_xdr_put_u32(w, (1u << FATTR4_TYPE) | (1u << FATTR4_CHANGE) |
                            (1u << FATTR4_SIZE) | (1u << FATTR4_FSID) |
                            (1u << FATTR4_LEASE_TIME) | (1u << FATTR4_FILEID));
    gk5i_xdr_put_u32(w, (1u << (FATTR4_MODE - 32)) |
                            (1u << (FATTR4_NUMLINKS - 32)));
    gk5i_xdr_put_u32(w, 4 + 8 + 8 + 16 + 4 + 8 + 4 + 4);
    gk5i_xdr_put_u32(w, NF4DIR);
    gk5i_xdr_put_u64(w, 0x0102030405060708ull);
    gk5i_xdr_put_u64(w, 4096);
    gk5i_xdr_put_u64(w, 11);
    gk5i_xdr_put_u64(w, 12);
    gk5i_xdr_put_u32(w, 90);
    gk5i_xdr_put_u64(w, 0xfffffffffull);
    gk5i_xdr_put_u32(w, 040755);
    gk5i_xdr_put_u32(w, 3);

    gk5i_xdr_put_u32(w, OP_SETCLIENTID);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_u64(w, 0x1122334455667788ull);
    gk5i_xdr_put_fixed(w, "confirm!", 8);

    gk5i_xdr_put_u32(w, OP_SETCLIENTID_CONFIRM);
    gk5i_xdr_put_u32(w, NFS4_OK);

    gk5i_xdr_put_u32(w, OP_PUTFH);
    gk5i_xdr_put_u32(w, NFS4_OK);

    /* OPEN: a WRITE delegation with NFS_LIMIT_BLOCKS, an attrset of three
     * words (the third 0) */
    gk5i_xdr_put_u32(w, OP_OPEN);
    gk5i_xdr_put_u32(w, NFS4_OK);
    put_sid(w, 1, 0xa1);
    put_change_info(w);
    gk5i_xdr_put_u32(w, OPEN4_RESULT_CONFIRM);
    gk5i_xdr_put_u32(w, 3);
    gk5i_xdr_put_u32(w, 1u << FATTR4_SIZE);
    gk5i_xdr_put_u32(w, 1u << (FATTR4_MODE - 32));
    gk5i_xdr_put_u32(w, 0);
    gk5i_xdr_put_u32(w, 2); /* OPEN_DELEGATE_WRITE */
    put_sid(w, 7, 0xd1);
    gk5i_xdr_put_bool(w, false);
    gk5i_xdr_put_u32(w, 2); /* NFS_LIMIT_BLOCKS */
    gk5i_xdr_put_u32(w, 100);
    gk5i_xdr_put_u32(w, 512);
    gk5i_xdr_put_u32(w, 0); /* nfsace4 */
    gk5i_xdr_put_u32(w, 0);
    gk5i_xdr_put_u32(w, 0x1f);
    gk5i_xdr_put_string(w, "OWNER@");

    gk5i_xdr_put_u32(w, OP_OPEN_CONFIRM);
    gk5i_xdr_put_u32(w, NFS4_OK);
    put_sid(w, 2, 0xa2);

    gk5i_xdr_put_u32(w, OP_WRITE);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_u32(w, 7);
    gk5i_xdr_put_u32(w, UNSTABLE4);
    gk5i_xdr_put_fixed(w, "writever", 8);

    gk5i_xdr_put_u32(w, OP_COMMIT);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_fixed(w, "writever", 8);

    gk5i_xdr_put_u32(w, OP_READ);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_bool(w, true);
    gk5i_xdr_put_opaque(w, "hello", 5);

    gk5i_xdr_put_u32(w, OP_CLOSE);
    gk5i_xdr_put_u32(w, NFS4_OK);
    put_sid(w, 3, 0xa3);

    gk5i_xdr_put_u32(w, OP_REMOVE);
    gk5i_xdr_put_u32(w, NFS4_OK);
    put_change_info(w);

    gk5i_xdr_put_u32(w, OP_LOOKUP);
    gk5i_xdr_put_u32(w, NFS4_OK);

    gk5i_xdr_put_u32(w, OP_READDIR);
    gk5i_xdr_put_u32(w, NFS4_OK);
    gk5i_xdr_put_fixed(w, "cookieve", 8);
    gk5i_xdr_put_bool(w, true);
    put_entry(w, 1, "a.txt", NF4REG, 7);
    gk5i_xdr_put_bool(w, true);
    put_entry(w, 2, "subdir", NF4DIR, 4096);
    gk5i_xdr_put_bool(w, false);
    gk5i_xdr_put_bool(w, true); /* eof */

    gk5i_xdr_put_u32(w, OP_RENEW);
    gk5i_xdr_put_u32(w, NFS4_OK);
}

/* The caller's side of the reply: ops[] set to what was sent, READ and
 * READDIR room. */
struct reply_room {
    nfs4_resop ops[REPLY_OPS];
    nfs4_compound_res res;
    uint8_t readbuf[REPLY_READ_CAP];
    nfs4_dirent ents[REPLY_DIR_CAP];
};

static void reply_room_init(struct reply_room *rr)
{
    memset(rr, 0, sizeof(*rr));
    for (size_t i = 0; i < REPLY_OPS; i++) {
        rr->ops[i].op = reply_ops[i];
        if (reply_ops[i] == OP_READ) {
            rr->ops[i].u.read.buf = rr->readbuf;
            rr->ops[i].u.read.cap = REPLY_READ_CAP;
        } else if (reply_ops[i] == OP_READDIR) {
            rr->ops[i].u.readdir.entries = rr->ents;
            rr->ops[i].u.readdir.cap = REPLY_DIR_CAP;
        }
    }
    rr->res.ops = rr->ops;
    rr->res.max = REPLY_OPS;
}

static const nfs4_resop *reply_find(const struct reply_room *rr, uint32_t op)
{
    for (size_t i = 0; i < REPLY_OPS; i++) {
        if (rr->ops[i].op == op) {
            return &rr->ops[i];
        }
    }
    fail_msg("no result for op %u", op);
    return NULL;
}

/* What reply_put wrote, as decoded into rr. */
static void reply_check(const struct reply_room *rr)
{
    const nfs4_resop *r;
    uint8_t sid[NFS4_OTHER_SIZE];

    assert_int_equal(rr->res.status, NFS4_OK);
    assert_string_equal(rr->res.tag, "gk5");
    assert_int_equal(rr->res.n, REPLY_OPS);
    for (size_t i = 0; i < REPLY_OPS; i++) {
        assert_int_equal(rr->ops[i].status, NFS4_OK);
    }

    r = reply_find(rr, OP_GETFH);
    assert_int_equal(r->u.getfh.len, 5);
    assert_memory_equal(r->u.getfh.data, "\xf1\xf2\xf3\xf4\xf5", 5);

    r = reply_find(rr, OP_GETATTR);
    assert_int_equal(r->u.getattr.mask.n, 2);
    assert_true(nfs4_bitmap_isset(&r->u.getattr.mask, FATTR4_NUMLINKS));
    assert_int_equal(r->u.getattr.type, NF4DIR);
    assert_true(r->u.getattr.change == 0x0102030405060708ull);
    assert_int_equal(r->u.getattr.size, 4096);
    assert_int_equal(r->u.getattr.fsid_major, 11);
    assert_int_equal(r->u.getattr.fsid_minor, 12);
    assert_int_equal(r->u.getattr.lease_time, 90);
    assert_true(r->u.getattr.fileid == 0xfffffffffull);
    assert_int_equal(r->u.getattr.mode, 040755);
    assert_int_equal(r->u.getattr.numlinks, 3);

    r = reply_find(rr, OP_SETCLIENTID);
    assert_true(r->u.setclientid.clientid == 0x1122334455667788ull);
    assert_memory_equal(r->u.setclientid.verifier, "confirm!", 8);

    r = reply_find(rr, OP_OPEN);
    memset(sid, 0xa1, sizeof(sid));
    assert_int_equal(r->u.open.stateid.seqid, 1);
    assert_memory_equal(r->u.open.stateid.other, sid, sizeof(sid));
    assert_int_equal(r->u.open.rflags, OPEN4_RESULT_CONFIRM);
    assert_int_equal(r->u.open.delegation, 2);

    r = reply_find(rr, OP_OPEN_CONFIRM);
    memset(sid, 0xa2, sizeof(sid));
    assert_int_equal(r->u.open_confirm.seqid, 2);
    assert_memory_equal(r->u.open_confirm.other, sid, sizeof(sid));

    r = reply_find(rr, OP_WRITE);
    assert_int_equal(r->u.write.count, 7);
    assert_int_equal(r->u.write.committed, UNSTABLE4);
    assert_memory_equal(r->u.write.verifier, "writever", 8);

    r = reply_find(rr, OP_COMMIT);
    assert_memory_equal(r->u.commit, "writever", 8);

    r = reply_find(rr, OP_READ);
    assert_true(r->u.read.eof);
    assert_int_equal(r->u.read.len, 5);
    assert_memory_equal(rr->readbuf, "hello", 5);

    r = reply_find(rr, OP_CLOSE);
    memset(sid, 0xa3, sizeof(sid));
    assert_int_equal(r->u.close.seqid, 3);
    assert_memory_equal(r->u.close.other, sid, sizeof(sid));

    r = reply_find(rr, OP_READDIR);
    assert_memory_equal(r->u.readdir.cookieverf, "cookieve", 8);
    assert_true(r->u.readdir.eof);
    assert_int_equal(r->u.readdir.n, 2);
    assert_int_equal(rr->ents[0].cookie, 1);
    assert_string_equal(rr->ents[0].name, "a.txt");
    assert_int_equal(rr->ents[0].attrs.type, NF4REG);
    assert_int_equal(rr->ents[0].attrs.size, 7);
    assert_int_equal(rr->ents[1].cookie, 2);
    assert_string_equal(rr->ents[1].name, "subdir");
    assert_int_equal(rr->ents[1].attrs.type, NF4DIR);
    assert_int_equal(rr->ents[1].attrs.size, 4096);
}

#endif /* GK5_TEST_NFS4_CASES_H */
