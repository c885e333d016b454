/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A small NFSv4.0 (RFC 7530) COMPOUND codec on gk5's bounded byte reader
 * and writer (src/common/xdr.h): the operations a client needs to walk a
 * path, list a directory, make a file, write it, read it back and remove
 * it (`gk5 nfs4` and the peer tests share it: gk5's one place for NFSv4
 * XDR).  It needs no RPC library; nfs4_tirpc.h puts it on libtirpc's
 * clnt_call.  The wire types are RFC 7530 section 2 and 16; the names here
 * follow the RFC's (OPEN4args, READ4resok, ...), shortened.
 *
 * A COMPOUND is built as an array of nfs4_argop and its reply is decoded
 * into a caller-provided array of nfs4_resop, index for index: the results
 * stop at the first operation that failed (RFC 7530 15.2), and
 * res.status is that operation's status.  Nothing is allocated while
 * decoding: READ data lands in the buffer the caller put in
 * res.ops[i].u.read before the call, and results the tests do not need
 * (change_info4, delegation details) are read and dropped.
 *
 *     nfs4_argop a[2] = { nfs4_putrootfh(), nfs4_getattr(&mask) };
 *     nfs4_compound_args args = { .tag = "gk5", .ops = a, .n = 2 };
 *     size_t len = nfs4_compound_args_size(&args);
 *     ... nfs4_compound_args_encode(&args, &w) into len bytes, send ...
 *     nfs4_resop r[2] = { { .op = a[0].op }, { .op = a[1].op } };
 *     nfs4_compound_res res = { .ops = r, .max = 2 };
 *     if (nfs4_compound_res_decode(body, body_len, &res) &&
 *         res.status == NFS4_OK) ... r[1].u.getattr
 */
#ifndef GK5_SUPPORT_NFS4_XDR_H
#define GK5_SUPPORT_NFS4_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gk5i_wr; /* src/common/bytes.h */

#define NFS4_PROGRAM 100003u
#define NFS4_VERSION 4u
#define NFSPROC4_NULL 0u
#define NFSPROC4_COMPOUND 1u

#define NFS4_FHSIZE 128u
#define NFS4_VERIFIER_SIZE 8u
#define NFS4_OTHER_SIZE 12u
#define NFS4_OPAQUE_LIMIT 1024u

/* RFC 7530 16: the operations used here. */
enum nfs4_opnum {
    OP_CLOSE = 4,
    OP_COMMIT = 5,
    OP_GETATTR = 9,
    OP_GETFH = 10,
    OP_LOOKUP = 15,
    OP_OPEN = 18,
    OP_OPEN_CONFIRM = 20,
    OP_PUTFH = 22,
    OP_PUTROOTFH = 24,
    OP_READ = 25,
    OP_READDIR = 26,
    OP_REMOVE = 28,
    OP_RENEW = 30,
    OP_SETCLIENTID = 35,
    OP_SETCLIENTID_CONFIRM = 36,
    OP_WRITE = 38
};

#define NFS4_OK 0u

/* RFC 7530 13.1: "NFS4ERR_ACCESS" for 13, or "NFS4ERR_#<n>" (a static
 * buffer) for a number not in the table. */
const char *nfs4_status_name(uint32_t status);
/* What a status means, in a few words ("no such file or directory"). */
const char *nfs4_status_words(uint32_t status);
const char *nfs4_op_name(uint32_t op);

/* RFC 7530 16.1: nfs_ftype4 */
enum nfs4_ftype { NF4REG = 1, NF4DIR = 2 };
const char *nfs4_ftype_name(uint32_t type);

/* RFC 7530 16.16 / 16.36 / 16.7: OPEN, WRITE, COMMIT constants. */
#define OPEN4_SHARE_ACCESS_BOTH 3u
#define OPEN4_SHARE_DENY_NONE 0u
#define OPEN4_RESULT_CONFIRM 0x2u
enum nfs4_createmode { UNCHECKED4 = 0, GUARDED4 = 1 };
enum nfs4_stable_how { UNSTABLE4 = 0, DATA_SYNC4 = 1, FILE_SYNC4 = 2 };

typedef struct {
    uint32_t seqid;
    uint8_t other[NFS4_OTHER_SIZE];
} nfs4_stateid;

typedef struct {
    uint32_t len;
    uint8_t data[NFS4_FHSIZE];
} nfs4_fh;

/* bitmap4, up to the two words the attributes below need. */
typedef struct {
    uint32_t n;
    uint32_t w[2];
} nfs4_bitmap;

/* RFC 7530 5.8: attribute numbers decoded here (bit n of the bitmap). */
enum nfs4_attr {
    FATTR4_TYPE = 1,
    FATTR4_CHANGE = 3,
    FATTR4_SIZE = 4,
    FATTR4_FSID = 8,
    FATTR4_LEASE_TIME = 10,
    FATTR4_FILEID = 20,
    FATTR4_MODE = 33,
    FATTR4_NUMLINKS = 35
};

void nfs4_bitmap_set(nfs4_bitmap *map, unsigned attr);
bool nfs4_bitmap_isset(const nfs4_bitmap *map, unsigned attr);

/* The decoded fattr4: mask says which fields the server sent. */
typedef struct {
    nfs4_bitmap mask;
    uint32_t type;
    uint64_t change;
    uint64_t size;
    uint64_t fsid_major, fsid_minor;
    uint32_t lease_time;
    uint64_t fileid;
    uint32_t mode;
    uint32_t numlinks;
} nfs4_attrs;

/* ---- Arguments (nfs_argop4) ---- */

typedef struct {
    uint32_t op;
    union {
        nfs4_bitmap getattr;
        nfs4_fh putfh;
        struct {
            uint8_t verifier[NFS4_VERIFIER_SIZE];
            const char *id; /* nfs_client_id4.id */
            uint32_t cb_program;
            const char *cb_netid, *cb_addr;
            uint32_t cb_ident;
        } setclientid;
        struct {
            uint64_t clientid;
            uint8_t verifier[NFS4_VERIFIER_SIZE];
        } setclientid_confirm;
        struct {
            uint32_t seqid;
            uint32_t share_access, share_deny;
            uint64_t clientid;
            const char *owner;
            bool create;         /* OPEN4_CREATE, else OPEN4_NOCREATE */
            uint32_t createmode; /* UNCHECKED4 or GUARDED4 */
            uint32_t mode;       /* the new file's mode attribute */
            bool truncate;       /* create with size 0 (an existing file
                                    is truncated) */
            const char *name;    /* CLAIM_NULL component */
        } open;
        struct {
            nfs4_stateid stateid;
            uint32_t seqid;
        } open_confirm;
        struct {
            nfs4_stateid stateid;
            uint64_t offset;
            uint32_t stable;
            const void *data;
            uint32_t len;
        } write;
        struct {
            nfs4_stateid stateid;
            uint64_t offset;
            uint32_t count;
        } read;
        struct {
            uint64_t offset;
            uint32_t count;
        } commit;
        struct {
            uint32_t seqid;
            nfs4_stateid stateid;
        } close;
        struct {
            const char *name;
        } remove;
        struct {
            const char *name;
        } lookup;
        struct {
            uint64_t cookie;
            uint8_t cookieverf[NFS4_VERIFIER_SIZE];
            uint32_t dircount, maxcount;
            nfs4_bitmap attrs;
        } readdir;
        uint64_t renew; /* clientid */
    } u;
} nfs4_argop;

/* One READDIR entry (RFC 7530 16.24: entry4). */
typedef struct {
    uint64_t cookie;
    char name[NFS4_OPAQUE_LIMIT + 1];
    nfs4_attrs attrs;
} nfs4_dirent;

/* ---- Results (nfs_resop4) ---- */

typedef struct {
    uint32_t op;
    uint32_t status;
    union {
        nfs4_attrs getattr;
        nfs4_fh getfh;
        struct {
            uint64_t clientid;
            uint8_t verifier[NFS4_VERIFIER_SIZE];
        } setclientid;
        struct {
            nfs4_stateid stateid;
            uint32_t rflags;
            uint32_t delegation; /* open_delegation_type4 */
        } open;
        nfs4_stateid open_confirm; /* its open_stateid */
        nfs4_stateid close;
        struct {
            uint32_t count;
            uint32_t committed;
            uint8_t verifier[NFS4_VERIFIER_SIZE];
        } write;
        struct {
            void *buf;    /* set by the caller before the call */
            uint32_t cap; /* its size */
            uint32_t len; /* bytes received */
            bool eof;
        } read;
        uint8_t commit[NFS4_VERIFIER_SIZE]; /* writeverf */
        struct {
            nfs4_dirent *entries; /* set by the caller before the call */
            uint32_t cap;         /* its length */
            uint32_t n;           /* entries received */
            uint8_t cookieverf[NFS4_VERIFIER_SIZE];
            bool eof;
        } readdir;
    } u;
} nfs4_resop;

typedef struct {
    uint32_t status; /* COMPOUND4res.status: the last op's */
    nfs4_resop *ops; /* caller's array, index for index with the args */
    uint32_t max;    /* its length */
    uint32_t n;      /* results decoded */
    char tag[64];
} nfs4_compound_res;

/* Builders for the argument array. */
nfs4_argop nfs4_putrootfh(void);
nfs4_argop nfs4_putfh(const nfs4_fh *fh);
nfs4_argop nfs4_getfh(void);
nfs4_argop nfs4_getattr(const nfs4_bitmap *mask);

/* COMPOUND4args.  Encoding takes them as they are; the decoder of the
 * reply needs res->ops[i].op set to the operation sent at index i: a
 * result answering another operation is refused. */
typedef struct {
    const char *tag;
    uint32_t minorversion;
    const nfs4_argop *ops;
    uint32_t n;
} nfs4_compound_args;

/* The exact number of bytes nfs4_compound_args_encode writes for args, a
 * multiple of 4 (SIZE_MAX past size_t); meaningless for arguments the
 * encoder refuses. */
size_t nfs4_compound_args_size(const nfs4_compound_args *args);

/* COMPOUND4args into w: 0, or -1 when w went bad or an argument does not
 * fit its XDR type (a name over NFS4_OPAQUE_LIMIT bytes, a file handle
 * over NFS4_FHSIZE, a bitmap over two words, an operation not above). */
int nfs4_compound_args_encode(const nfs4_compound_args *args,
                              struct gk5i_wr *w);

/* COMPOUND4res from p[0..len), the whole results body, into res (ops[]
 * set up as above, READ buffers and READDIR arrays included): false when
 * it does not decode (bytes left over, a bool other than 0 or 1 included),
 * answers another operation than res->ops[i].op, or does not fit the
 * caller's room (more results than res->max, READ data over u.read.cap,
 * READDIR entries over u.readdir.cap).  res->n counts the results
 * decoded, also on failure; res->tag is always terminated. */
bool nfs4_compound_res_decode(const uint8_t *p, size_t len,
                              nfs4_compound_res *res);

/* The first failed operation of a decoded reply ("OPEN: NFS4ERR_ACCESS"),
 * or the COMPOUND status when no result says more; a static buffer. */
const char *nfs4_compound_error(const nfs4_compound_res *res);

#endif /* GK5_SUPPORT_NFS4_XDR_H */
