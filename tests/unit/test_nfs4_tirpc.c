/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The libtirpc adapters of the NFSv4 codec (support/nfs4/nfs4_tirpc.c): the
 * arguments routine writes the byte encoder's bytes and nothing else; the
 * results routine takes the rest of a memory stream (aligned or not, after
 * a prefix read) or of a record stream's record, split into fragments and
 * delivered in pieces of every size, leaves the next record alone, and
 * refuses trailing bytes and records over NFS4_TIRPC_RES_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nfs4_cases.h"
#include "nfs4_tirpc.h"

static void test_args(void **state)
{
    nfs4_argop a[ALL_OPS_MAX];
    nfs4_compound_args args = {.tag = "gk5", .ops = a};
    static uint32_t words[(sizeof(all_ops_xdr) + 64) / 4];
    uint8_t *buf = (uint8_t *)words;
    XDR x;

    (void)state;
    args.n = all_ops(a);
    xdrmem_create(&x, (char *)buf, sizeof(words), XDR_ENCODE);
    assert_true(xdr_u_int(&x, &(u_int){7})); /* something before */
    assert_true(nfs4_xdr_compound_args(&x, &args));
    assert_int_equal(xdr_getpos(&x), 4 + sizeof(all_ops_xdr));
    assert_memory_equal(buf + 4, all_ops_xdr, sizeof(all_ops_xdr));
    XDR_DESTROY(&x);
    /* No room: refused. */
    xdrmem_create(&x, (char *)buf, sizeof(all_ops_xdr) - 4, XDR_ENCODE);
    assert_false(nfs4_xdr_compound_args(&x, &args));
    XDR_DESTROY(&x);
    /* Arguments the encoder refuses. */
    a[0].op = 3;
    xdrmem_create(&x, (char *)buf, sizeof(words), XDR_ENCODE);
    assert_false(nfs4_xdr_compound_args(&x, &args));
    XDR_DESTROY(&x);
    x.x_op = XDR_FREE;
    assert_true(nfs4_xdr_compound_args(&x, &args));
}

/* reply_put's bytes at buf + at, after a 4-byte word; their length. */
static size_t reply_at(uint8_t *buf, size_t cap, size_t at)
{
    struct gk5i_wr w;

    gk5i_wr_init(&w, buf + at, cap - at);
    gk5i_xdr_put_u32(&w, 0x5eed);
    reply_put(&w);
    assert_false(w.bad);
    return cap - at - w.left;
}

/* The rest of a memory stream, after a word read: in place from a
 * 4-byte aligned buffer, copied from another; trailing bytes refused. */
static void test_res_memory(void **state)
{
    static uint32_t words[1024];
    uint8_t *buf = (uint8_t *)words;
    struct reply_room rr;
    u_int first;
    XDR x;

    (void)state;
    for (size_t at = 0; at < 4; at++) {
        size_t len = reply_at(buf, sizeof(words), at);

        for (size_t extra = 0; extra <= 4; extra += 4) {
            xdrmem_create(&x, (char *)buf + at, (u_int)(len + extra),
                          XDR_DECODE);
            assert_true(xdr_u_int(&x, &first));
            assert_int_equal(first, 0x5eed);
            reply_room_init(&rr);
            assert_int_equal(nfs4_xdr_compound_res(&x, &rr.res), extra == 0);
            if (extra == 0) {
                reply_check(&rr);
            }
            XDR_DESTROY(&x);
        }
    }
    x.x_op = XDR_FREE;
    assert_true(nfs4_xdr_compound_res(&x, &rr.res));
}

/* A record stream over bytes in memory, handed out `piece` at a time. */
struct feed {
    const uint8_t *p;
    size_t len, pos, piece;
};

static int feed_read(void *handle, void *buf, int len)
{
    struct feed *f = handle;
    size_t n = f->len - f->pos;

    if (n == 0) {
        return -1;
    }
    if (n > (size_t)len) {
        n = (size_t)len;
    }
    if (n > f->piece) {
        n = f->piece;
    }
    memcpy(buf, f->p + f->pos, n);
    f->pos += n;
    return (int)n;
}

static int feed_write(void *handle, void *buf, int len)
{
    (void)handle;
    (void)buf;
    (void)len;
    return -1;
}

/* body[0..len) as one record in fragments of frag bytes, then a record
 * holding the word 0x0e0e0e0e; malloc'd, *out_len its length. */
static uint8_t *records(const uint8_t *body, size_t len, size_t frag,
                        size_t *out_len)
{
    size_t nfrag = len == 0 ? 1 : (len + frag - 1) / frag;
    size_t cap = len + 4 * nfrag + 8;
    uint8_t *out = malloc(cap);
    struct gk5i_wr w;

    assert_non_null(out);
    gk5i_wr_init(&w, out, cap);
    for (size_t off = 0;;) {
        size_t n = len - off < frag ? len - off : frag;
        bool last = off + n == len;

        gk5i_put_u32be(&w, (uint32_t)n | (last ? 0x80000000u : 0));
        gk5i_put_bytes(&w, body + off, n);
        off += n;
        if (last) {
            break;
        }
    }
    gk5i_put_u32be(&w, 0x80000004u);
    gk5i_put_u32be(&w, 0x0e0e0e0eu);
    assert_false(w.bad);
    *out_len = cap - w.left;
    return out;
}

/* Decodes body as the results of a record stream (fragments of frag bytes,
 * read piece bytes at a time) into res; checks the next record is there
 * still. */
static bool_t res_from_record(const uint8_t *body, size_t len, size_t frag,
                              size_t piece, nfs4_compound_res *res)
{
    struct feed f = {.piece = piece};
    uint8_t *rec = records(body, len, frag, &f.len);
    u_int next = 0;
    bool_t ok;
    XDR x;

    f.p = rec;
    xdrrec_create(&x, 0, 0, (char *)&f, feed_read, feed_write);
    x.x_op = XDR_DECODE;
    assert_true(xdrrec_skiprecord(&x));
    ok = nfs4_xdr_compound_res(&x, res);
    assert_true(xdrrec_skiprecord(&x));
    assert_true(xdr_u_int(&x, &next));
    assert_int_equal(next, 0x0e0e0e0eu);
    XDR_DESTROY(&x);
    free(rec);
    return ok;
}

static void test_res_record(void **state)
{
    static const size_t frags[] = {1, 3, 4, 7, 100, 4096};
    static const size_t pieces[] = {1, 5, 4096, 1 << 20};
    static uint8_t buf[4096];
    struct reply_room rr;
    struct gk5i_wr w;
    size_t len;

    (void)state;
    gk5i_wr_init(&w, buf, sizeof(buf));
    reply_put(&w);
    gk5i_put_fill(&w, 0, 4); /* for the trailing cells */
    assert_false(w.bad);
    len = sizeof(buf) - w.left - 4;
    for (size_t i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
        for (size_t j = 0; j < sizeof(pieces) / sizeof(pieces[0]); j++) {
            reply_room_init(&rr);
            assert_true(
                res_from_record(buf, len, frags[i], pieces[j], &rr.res));
            reply_check(&rr);
            for (size_t extra = 1; extra <= 4; extra += 3) {
                reply_room_init(&rr);
                assert_false(res_from_record(buf, len + extra, frags[i],
                                             pieces[j], &rr.res));
            }
            reply_room_init(&rr);
            assert_false(
                res_from_record(buf, len - 4, frags[i], pieces[j], &rr.res));
        }
    }
}

/* A READ reply of `total` bytes: taken at NFS4_TIRPC_RES_MAX, refused one
 * word over. */
static void test_res_record_limit(void **state)
{
    const size_t head = 12 + 8 + 4 + 4; /* COMPOUND4res, resop, eof, len */
    uint8_t *body = malloc(NFS4_TIRPC_RES_MAX + 4);
    uint8_t *data = malloc(NFS4_TIRPC_RES_MAX);

    (void)state;
    assert_non_null(body);
    assert_non_null(data);
    for (size_t total = NFS4_TIRPC_RES_MAX; total <= NFS4_TIRPC_RES_MAX + 4;
         total += 4) {
        nfs4_resop op = {.op = OP_READ};
        nfs4_compound_res res = {.ops = &op, .max = 1};
        struct gk5i_wr w;

        gk5i_wr_init(&w, body, total);
        gk5i_xdr_put_u32(&w, NFS4_OK);
        gk5i_xdr_put_string(&w, "");
        gk5i_xdr_put_u32(&w, 1);
        gk5i_xdr_put_u32(&w, OP_READ);
        gk5i_xdr_put_u32(&w, NFS4_OK);
        gk5i_xdr_put_bool(&w, true);
        gk5i_xdr_put_u32(&w, (uint32_t)(total - head));
        gk5i_put_fill(&w, 0x3c, total - head);
        assert_false(w.bad);
        assert_int_equal(w.left, 0);
        op.u.read.buf = data;
        op.u.read.cap = NFS4_TIRPC_RES_MAX;
        assert_int_equal(res_from_record(body, total, 1 << 20, 1 << 16, &res),
                         total == NFS4_TIRPC_RES_MAX);
        if (total == NFS4_TIRPC_RES_MAX) {
            assert_int_equal(op.u.read.len, total - head);
            assert_int_equal(data[total - head - 1], 0x3c);
        }
    }
    free(body);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_res_memory),
        cmocka_unit_test(test_res_record),
        cmocka_unit_test(test_res_record_limit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
