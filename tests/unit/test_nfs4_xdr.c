/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The NFSv4 COMPOUND codec of `gk5 nfs4` (support/nfs4/nfs4_xdr.c) on the byte
 * reader and writer: the arguments of every operation byte for byte
 * against what libtirpc's XDR made of them, the size function, the
 * writer's head room; a reply with every result decoded; and the
 * decoder's refusals: every truncation, trailing bytes, a result for
 * another operation, every length over its limit, a READ over its buffer,
 * READDIR entries over their array, more results than room.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nfs4_cases.h"

/* ---- Arguments ---- */

static void test_encode_all_ops(void **state)
{
    nfs4_argop a[ALL_OPS_MAX];
    nfs4_compound_args args = {.tag = "gk5", .ops = a};
    uint8_t buf[sizeof(all_ops_xdr) + 8];
    struct gk5i_wr w;

    (void)state;
    args.n = all_ops(a);
    assert_int_equal(nfs4_compound_args_size(&args), sizeof(all_ops_xdr));
    memset(buf, 0xee, sizeof(buf));
    gk5i_wr_init(&w, buf, sizeof(all_ops_xdr));
    assert_int_equal(nfs4_compound_args_encode(&args, &w), 0);
    assert_int_equal(w.left, 0);
    assert_memory_equal(buf, all_ops_xdr, sizeof(all_ops_xdr));
    assert_int_equal(buf[sizeof(all_ops_xdr)], 0xee);
}

/* After head room the caller reserved (an RPC header to fill in later),
 * the same bytes. */
static void test_encode_head_room(void **state)
{
    nfs4_argop a[ALL_OPS_MAX];
    nfs4_compound_args args = {.tag = "gk5", .ops = a};
    uint8_t buf[28 + sizeof(all_ops_xdr)];
    struct gk5i_wr w;

    (void)state;
    args.n = all_ops(a);
    gk5i_wr_init(&w, buf, sizeof(buf));
    assert_non_null(gk5i_wr_reserve(&w, 28));
    assert_int_equal(nfs4_compound_args_encode(&args, &w), 0);
    assert_int_equal(w.left, 0);
    assert_memory_equal(buf + 28, all_ops_xdr, sizeof(all_ops_xdr));
}

/* Every buffer one byte short or more fails, and says so. */
static void test_encode_short(void **state)
{
    nfs4_argop a[ALL_OPS_MAX];
    nfs4_compound_args args = {.tag = "gk5", .ops = a};
    uint8_t buf[sizeof(all_ops_xdr)];
    struct gk5i_wr w;

    (void)state;
    args.n = all_ops(a);
    for (size_t len = 0; len < sizeof(all_ops_xdr); len++) {
        gk5i_wr_init(&w, buf, len);
        assert_int_equal(nfs4_compound_args_encode(&args, &w), -1);
        assert_true(w.bad);
    }
    /* A writer already bad stays so. */
    gk5i_wr_init(&w, buf, sizeof(buf));
    w.bad = true;
    assert_int_equal(nfs4_compound_args_encode(&args, &w), -1);
}

static int encode_one(const nfs4_argop *op, const char *tag, size_t *len)
{
    static uint8_t buf[8192];
    nfs4_compound_args args = {.tag = tag, .ops = op, .n = 1};
    struct gk5i_wr w;
    int ret;

    gk5i_wr_init(&w, buf, sizeof(buf));
    ret = nfs4_compound_args_encode(&args, &w);
    *len = sizeof(buf) - w.left;
    if (ret == 0) {
        assert_int_equal(*len, nfs4_compound_args_size(&args));
    }
    return ret;
}

/* The limits of the XDR types, at and one past each. */
static void test_encode_limits(void **state)
{
    static char name[NFS4_OPAQUE_LIMIT + 2];
    nfs4_argop op;
    nfs4_fh fh = {.len = NFS4_FHSIZE};
    nfs4_bitmap mask = {.n = 2};
    size_t len;

    (void)state;
    memset(name, 'n', NFS4_OPAQUE_LIMIT);
    op = (nfs4_argop){.op = OP_LOOKUP, .u.lookup.name = name};
    assert_int_equal(encode_one(&op, "gk5", &len), 0);
    assert_int_equal(len, 16 + 4 + 4 + NFS4_OPAQUE_LIMIT);
    assert_int_equal(encode_one(&op, name, &len), 0); /* the tag too */
    name[NFS4_OPAQUE_LIMIT] = 'n';
    assert_int_equal(encode_one(&op, "gk5", &len), -1);
    op.u.lookup.name = "x";
    assert_int_equal(encode_one(&op, name, &len), -1);
    op.u.lookup.name = NULL;
    assert_int_equal(encode_one(&op, "gk5", &len), -1);

    op = nfs4_putfh(&fh);
    assert_int_equal(encode_one(&op, "gk5", &len), 0);
    op.u.putfh.len = NFS4_FHSIZE + 1;
    assert_int_equal(encode_one(&op, "gk5", &len), -1);

    op = nfs4_getattr(&mask);
    assert_int_equal(encode_one(&op, "gk5", &len), 0);
    op.u.getattr.n = 3;
    assert_int_equal(encode_one(&op, "gk5", &len), -1);
    op = (nfs4_argop){.op = OP_READDIR, .u.readdir.attrs = {.n = 3}};
    assert_int_equal(encode_one(&op, "gk5", &len), -1);

    op = (nfs4_argop){.op = OP_WRITE, .u.write.len = 1};
    assert_int_equal(encode_one(&op, "gk5", &len), -1); /* no data */
    op.u.write.len = 0;
    assert_int_equal(encode_one(&op, "gk5", &len), 0);

    op = (nfs4_argop){.op = 3}; /* ACCESS: not encoded here */
    assert_int_equal(encode_one(&op, "gk5", &len), -1);
}

/* ---- Results ---- */

/* reply_put's bytes, malloc'd to their length and `extra` bytes more
 * (none: no slack for a read past the end to land in); *len their
 * count. */
static uint8_t *reply_bytes(size_t *len, size_t extra)
{
    static uint8_t buf[4096];
    struct gk5i_wr w;
    uint8_t *p;

    gk5i_wr_init(&w, buf, sizeof(buf));
    reply_put(&w);
    assert_false(w.bad);
    *len = sizeof(buf) - w.left;
    p = malloc(*len + extra);
    assert_non_null(p);
    memcpy(p, buf, *len);
    return p;
}

static void test_decode_reply(void **state)
{
    struct reply_room rr;
    size_t len;
    uint8_t *p = reply_bytes(&len, 0);

    (void)state;
    reply_room_init(&rr);
    assert_true(nfs4_compound_res_decode(p, len, &rr.res));
    reply_check(&rr);
    free(p);
}

/* Every prefix is refused, and n counts the results that were whole. */
static void test_decode_truncated(void **state)
{
    struct reply_room rr;
    size_t len;
    uint8_t *full = reply_bytes(&len, 0);

    (void)state;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *p = malloc(cut == 0 ? 1 : cut);

        assert_non_null(p);
        memcpy(p, full, cut);
        reply_room_init(&rr);
        assert_false(nfs4_compound_res_decode(p, cut, &rr.res));
        assert_true(rr.res.n < REPLY_OPS);
        assert_non_null(memchr(rr.res.tag, '\0', sizeof(rr.res.tag)));
        free(p);
    }
    reply_room_init(&rr);
    assert_false(nfs4_compound_res_decode(NULL, 0, &rr.res));
    free(full);
}

/* The results body is the whole input: one byte or one word more is
 * refused (the results themselves decoded). */
static void test_decode_trailing(void **state)
{
    struct reply_room rr;
    size_t len;
    uint8_t *p = reply_bytes(&len, 4);

    (void)state;
    memset(p + len, 0, 4);
    for (size_t extra = 1; extra <= 4; extra++) {
        reply_room_init(&rr);
        assert_false(nfs4_compound_res_decode(p, len + extra, &rr.res));
        assert_int_equal(rr.res.n, REPLY_OPS);
    }
    free(p);
}

/* Each result must answer the operation sent at its index. */
static void test_decode_wrong_op(void **state)
{
    struct reply_room rr;
    size_t len;
    uint8_t *p = reply_bytes(&len, 0);

    (void)state;
    for (size_t i = 0; i < REPLY_OPS; i++) {
        reply_room_init(&rr);
        rr.ops[i].op = i == 0 ? OP_PUTFH : reply_ops[i - 1];
        assert_false(nfs4_compound_res_decode(p, len, &rr.res));
        assert_int_equal(rr.res.n, i);
    }
    /* More results than the caller has room for. */
    reply_room_init(&rr);
    rr.res.max = REPLY_OPS - 1;
    assert_false(nfs4_compound_res_decode(p, len, &rr.res));
    assert_int_equal(rr.res.n, 0);
    free(p);
}

/* A one-result reply built by a writer: head, then the caller's fields. */
struct one {
    uint8_t buf[4096];
    struct gk5i_wr w;
    nfs4_resop op;
    nfs4_compound_res res;
};

static void one_start(struct one *o, uint32_t op, uint32_t status)
{
    memset(o, 0, sizeof(*o));
    gk5i_wr_init(&o->w, o->buf, sizeof(o->buf));
    gk5i_xdr_put_u32(&o->w, status);
    gk5i_xdr_put_string(&o->w, "");
    gk5i_xdr_put_u32(&o->w, 1);
    gk5i_xdr_put_u32(&o->w, op);
    gk5i_xdr_put_u32(&o->w, status);
    o->op.op = op;
    o->res.ops = &o->op;
    o->res.max = 1;
}

static bool one_decode(struct one *o)
{
    assert_false(o->w.bad);
    return nfs4_compound_res_decode(o->buf, sizeof(o->buf) - o->w.left,
                                    &o->res);
}

static void put_repeat(struct gk5i_wr *w, uint8_t byte, size_t n)
{
    gk5i_xdr_put_u32(w, (uint32_t)n);
    gk5i_put_fill(w, byte, n);
    gk5i_put_fill(w, 0, gk5i_xdr_padding(n));
}

/* Each opaque at its limit and one past it. */
static void test_decode_long_opaque(void **state)
{
    static struct one o;
    nfs4_dirent ent;

    (void)state;
    /* the tag: 63 bytes and the terminator */
    for (size_t n = 63; n <= 64; n++) {
        memset(&o, 0, sizeof(o));
        gk5i_wr_init(&o.w, o.buf, sizeof(o.buf));
        gk5i_xdr_put_u32(&o.w, NFS4_OK);
        put_repeat(&o.w, 't', n);
        gk5i_xdr_put_u32(&o.w, 0);
        assert_int_equal(one_decode(&o), n == 63);
        assert_int_equal(strlen(o.res.tag), n == 63 ? 63 : 0);
    }
    for (size_t n = NFS4_FHSIZE; n <= NFS4_FHSIZE + 1; n++) {
        one_start(&o, OP_GETFH, NFS4_OK);
        put_repeat(&o.w, 'f', n);
        assert_int_equal(one_decode(&o), n == NFS4_FHSIZE);
    }
    /* a READDIR name */
    for (size_t n = NFS4_OPAQUE_LIMIT; n <= NFS4_OPAQUE_LIMIT + 1; n++) {
        one_start(&o, OP_READDIR, NFS4_OK);
        o.op.u.readdir.entries = &ent;
        o.op.u.readdir.cap = 1;
        gk5i_put_fill(&o.w, 0, 8);
        gk5i_xdr_put_bool(&o.w, true);
        gk5i_xdr_put_u64(&o.w, 1);
        put_repeat(&o.w, 'n', n);
        gk5i_xdr_put_u32(&o.w, 0); /* fattr4: no attributes */
        gk5i_xdr_put_u32(&o.w, 0);
        gk5i_xdr_put_bool(&o.w, false);
        gk5i_xdr_put_bool(&o.w, true);
        assert_int_equal(one_decode(&o), n == NFS4_OPAQUE_LIMIT);
        if (n == NFS4_OPAQUE_LIMIT) {
            assert_int_equal(strlen(ent.name), NFS4_OPAQUE_LIMIT);
        }
    }
    /* NFS4ERR_CLID_INUSE's clientaddr4: r_netid, r_addr */
    for (size_t n = NFS4_OPAQUE_LIMIT; n <= NFS4_OPAQUE_LIMIT + 1; n++) {
        one_start(&o, OP_SETCLIENTID, 10017);
        gk5i_xdr_put_string(&o.w, "tcp");
        put_repeat(&o.w, 'a', n);
        assert_int_equal(one_decode(&o), n == NFS4_OPAQUE_LIMIT);
        assert_int_equal(o.res.status, 10017);
    }
    /* the delegation's ace who */
    for (size_t n = NFS4_OPAQUE_LIMIT; n <= NFS4_OPAQUE_LIMIT + 1; n++) {
        one_start(&o, OP_OPEN, NFS4_OK);
        put_sid(&o.w, 1, 0);
        put_change_info(&o.w);
        gk5i_xdr_put_u32(&o.w, 0);
        gk5i_xdr_put_u32(&o.w, 0); /* attrset */
        gk5i_xdr_put_u32(&o.w, 1); /* OPEN_DELEGATE_READ */
        put_sid(&o.w, 2, 0);
        gk5i_xdr_put_bool(&o.w, true);
        gk5i_put_fill(&o.w, 0, 12);
        put_repeat(&o.w, 'w', n);
        assert_int_equal(one_decode(&o), n == NFS4_OPAQUE_LIMIT);
    }
}

/* READ data up to the caller's buffer, not a byte more. */
static void test_decode_read_cap(void **state)
{
    static struct one o;
    uint8_t buf[9];

    (void)state;
    for (uint32_t cap = 8; cap <= 9; cap++) {
        one_start(&o, OP_READ, NFS4_OK);
        o.op.u.read.buf = buf;
        o.op.u.read.cap = cap;
        memset(buf, 0, sizeof(buf));
        gk5i_xdr_put_bool(&o.w, false);
        put_repeat(&o.w, 'r', 9);
        assert_int_equal(one_decode(&o), cap == 9);
        assert_int_equal(o.op.u.read.len, cap == 9 ? 9 : 0);
        assert_int_equal(buf[0], cap == 9 ? 'r' : 0);
    }
    one_start(&o, OP_READ, NFS4_OK); /* no buffer */
    gk5i_xdr_put_bool(&o.w, false);
    put_repeat(&o.w, 'r', 0);
    assert_false(one_decode(&o));
}

/* READDIR entries up to the caller's array. */
static void test_decode_readdir_cap(void **state)
{
    static struct one o;
    nfs4_dirent ents[2];

    (void)state;
    for (uint32_t cap = 1; cap <= 2; cap++) {
        one_start(&o, OP_READDIR, NFS4_OK);
        o.op.u.readdir.entries = ents;
        o.op.u.readdir.cap = cap;
        gk5i_put_fill(&o.w, 0, 8);
        for (int i = 0; i < 2; i++) {
            gk5i_xdr_put_bool(&o.w, true);
            put_entry(&o.w, i, "e", NF4REG, 0);
        }
        gk5i_xdr_put_bool(&o.w, false);
        gk5i_xdr_put_bool(&o.w, true);
        assert_int_equal(one_decode(&o), cap == 2);
        assert_int_equal(o.op.u.readdir.n, cap == 2 ? 2 : 1);
    }
    one_start(&o, OP_READDIR, NFS4_OK); /* no array */
    gk5i_put_fill(&o.w, 0, 8);
    gk5i_xdr_put_bool(&o.w, true);
    put_entry(&o.w, 1, "e", NF4REG, 0);
    gk5i_xdr_put_bool(&o.w, false);
    gk5i_xdr_put_bool(&o.w, true);
    assert_false(one_decode(&o));
    /* An empty directory needs none. */
    one_start(&o, OP_READDIR, NFS4_OK);
    gk5i_put_fill(&o.w, 0, 8);
    gk5i_xdr_put_bool(&o.w, false);
    gk5i_xdr_put_bool(&o.w, true);
    assert_true(one_decode(&o));
    assert_int_equal(o.op.u.readdir.n, 0);
    assert_true(o.op.u.readdir.eof);
}

/* Values outside their type. */
static void test_decode_bad_values(void **state)
{
    static struct one o;
    uint8_t buf[4];

    (void)state;
    /* a bool other than 0 or 1 */
    one_start(&o, OP_READ, NFS4_OK);
    o.op.u.read.buf = buf;
    o.op.u.read.cap = sizeof(buf);
    gk5i_xdr_put_u32(&o.w, 2);
    put_repeat(&o.w, 'r', 0);
    assert_false(one_decode(&o));
    /* bitmap words past the second: 0 taken, any bit refused */
    for (uint32_t extra = 0; extra <= 1; extra++) {
        one_start(&o, OP_GETATTR, NFS4_OK);
        gk5i_xdr_put_u32(&o.w, 3);
        gk5i_xdr_put_u32(&o.w, 1u << FATTR4_TYPE);
        gk5i_xdr_put_u32(&o.w, 0);
        gk5i_xdr_put_u32(&o.w, extra);
        gk5i_xdr_put_u32(&o.w, 4);
        gk5i_xdr_put_u32(&o.w, NF4REG);
        assert_int_equal(one_decode(&o), extra == 0);
        assert_int_equal(o.op.u.getattr.mask.n, 2);
    }
    /* an attribute the decoder cannot size (FATTR4_SUPPORTED_ATTRS, 0) */
    one_start(&o, OP_GETATTR, NFS4_OK);
    gk5i_xdr_put_u32(&o.w, 1);
    gk5i_xdr_put_u32(&o.w, 1);
    gk5i_xdr_put_u32(&o.w, 4);
    gk5i_xdr_put_u32(&o.w, 0);
    assert_false(one_decode(&o));
    /* attr_vals longer and shorter than the values */
    for (uint32_t vlen = 0; vlen <= 12; vlen += 4) {
        one_start(&o, OP_GETATTR, NFS4_OK);
        gk5i_xdr_put_u32(&o.w, 1);
        gk5i_xdr_put_u32(&o.w, 1u << FATTR4_SIZE);
        put_repeat(&o.w, 0, vlen);
        assert_int_equal(one_decode(&o), vlen == 8);
    }
    /* a WRITE delegation's nfs_limit_by4 0, 1, 2; a delegation type 3 */
    for (uint32_t type = 0; type <= 3; type++) {
        one_start(&o, OP_OPEN, NFS4_OK);
        put_sid(&o.w, 1, 0);
        put_change_info(&o.w);
        gk5i_xdr_put_u32(&o.w, 0);
        gk5i_xdr_put_u32(&o.w, 0);
        gk5i_xdr_put_u32(&o.w, type == 3 ? 3 : 2);
        if (type != 3) {
            put_sid(&o.w, 2, 0);
            gk5i_xdr_put_bool(&o.w, false);
            gk5i_xdr_put_u32(&o.w, type); /* limitby */
            gk5i_put_fill(&o.w, 0, type == 0 ? 0 : 8);
            gk5i_put_fill(&o.w, 0, 12);
            gk5i_xdr_put_string(&o.w, "w");
        }
        assert_int_equal(one_decode(&o), type == 1 || type == 2);
    }
    /* a result of an operation the decoder does not know */
    one_start(&o, 3, NFS4_OK);
    assert_false(one_decode(&o));
}

/* A failed operation ends the results: its status, no body. */
static void test_decode_error(void **state)
{
    static struct one o;

    (void)state;
    one_start(&o, OP_LOOKUP, 2);
    assert_true(one_decode(&o));
    assert_int_equal(o.res.status, 2);
    assert_int_equal(o.res.n, 1);
    assert_int_equal(o.op.status, 2);
    assert_string_equal(nfs4_compound_error(&o.res), "LOOKUP: NFS4ERR_NOENT");
    /* a body after it is bytes left over */
    gk5i_xdr_put_u32(&o.w, 0);
    assert_false(one_decode(&o));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_all_ops),
        cmocka_unit_test(test_encode_head_room),
        cmocka_unit_test(test_encode_short),
        cmocka_unit_test(test_encode_limits),
        cmocka_unit_test(test_decode_reply),
        cmocka_unit_test(test_decode_truncated),
        cmocka_unit_test(test_decode_trailing),
        cmocka_unit_test(test_decode_wrong_op),
        cmocka_unit_test(test_decode_long_opaque),
        cmocka_unit_test(test_decode_read_cap),
        cmocka_unit_test(test_decode_readdir_cap),
        cmocka_unit_test(test_decode_bad_values),
        cmocka_unit_test(test_decode_error),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
