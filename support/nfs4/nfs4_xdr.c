/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * NFSv4.0 COMPOUND encoding and decoding (RFC 7530; its XDR is RFC 7531)
 * for the operations of nfs4_xdr.h, on the bounded reader and writer of
 * src/common/xdr.h.  Each reads or writes a group of fields and leaves
 * the checking to the sticky `bad` flag; a value that does not fit its
 * type (a length over its limit, an operation not known here) sets the
 * flag too.  Decoders fill fixed-size fields and never allocate.
 */
#include "nfs4_xdr.h"

#include <stdio.h>
#include <string.h>

#include "common/xdr.h"

/* ---- Names ---- */

/* Number-to-name tables (RFC 7530's): data, alike row for row. */
static const struct {
    uint32_t num;
    const char *name;
} nfs4_statuses[] = {
    {0, "NFS4_OK"},
    {1, "NFS4ERR_PERM"},
    {2, "NFS4ERR_NOENT"},
    {5, "NFS4ERR_IO"},
    {6, "NFS4ERR_NXIO"},
    {13, "NFS4ERR_ACCESS"},
    {17, "NFS4ERR_EXIST"},
    {18, "NFS4ERR_XDEV"},
    {20, "NFS4ERR_NOTDIR"},
    {21, "NFS4ERR_ISDIR"},
    {22, "NFS4ERR_INVAL"},
    {27, "NFS4ERR_FBIG"},
    {28, "NFS4ERR_NOSPC"},
    {30, "NFS4ERR_ROFS"},
    {31, "NFS4ERR_MLINK"},
    {63, "NFS4ERR_NAMETOOLONG"},
    {66, "NFS4ERR_NOTEMPTY"},
    {69, "NFS4ERR_DQUOT"},
    {70, "NFS4ERR_STALE"},
    {10001, "NFS4ERR_BADHANDLE"},
    {10003, "NFS4ERR_BAD_COOKIE"},
    {10004, "NFS4ERR_NOTSUPP"},
    {10005, "NFS4ERR_TOOSMALL"},
    {10006, "NFS4ERR_SERVERFAULT"},
    {10007, "NFS4ERR_BADTYPE"},
    {10008, "NFS4ERR_DELAY"},
    {10009, "NFS4ERR_SAME"},
    {10010, "NFS4ERR_DENIED"},
    {10011, "NFS4ERR_EXPIRED"},
    {10012, "NFS4ERR_LOCKED"},
    {10013, "NFS4ERR_GRACE"},
    {10014, "NFS4ERR_FHEXPIRED"},
    {10015, "NFS4ERR_SHARE_DENIED"},
    {10016, "NFS4ERR_WRONGSEC"},
    {10017, "NFS4ERR_CLID_INUSE"},
    {10018, "NFS4ERR_RESOURCE"},
    {10019, "NFS4ERR_MOVED"},
    {10020, "NFS4ERR_NOFILEHANDLE"},
    {10021, "NFS4ERR_MINOR_VERS_MISMATCH"},
    {10022, "NFS4ERR_STALE_CLIENTID"},
    {10023, "NFS4ERR_STALE_STATEID"},
    {10024, "NFS4ERR_OLD_STATEID"},
    {10025, "NFS4ERR_BAD_STATEID"},
    {10026, "NFS4ERR_BAD_SEQID"},
    {10027, "NFS4ERR_NOT_SAME"},
    {10028, "NFS4ERR_LOCK_RANGE"},
    {10029, "NFS4ERR_SYMLINK"},
    {10030, "NFS4ERR_RESTOREFH"},
    {10031, "NFS4ERR_LEASE_MOVED"},
    {10032, "NFS4ERR_ATTRNOTSUPP"},
    {10033, "NFS4ERR_NO_GRACE"},
    {10034, "NFS4ERR_RECLAIM_BAD"},
    {10035, "NFS4ERR_RECLAIM_CONFLICT"},
    {10036, "NFS4ERR_BADXDR"},
    {10037, "NFS4ERR_LOCKS_HELD"},
    {10038, "NFS4ERR_OPENMODE"},
    {10039, "NFS4ERR_BADOWNER"},
    {10040, "NFS4ERR_BADCHAR"},
    {10041, "NFS4ERR_BADNAME"},
    {10042, "NFS4ERR_BAD_RANGE"},
    {10043, "NFS4ERR_LOCK_NOTSUPP"},
    {10044, "NFS4ERR_OP_ILLEGAL"},
    {10045, "NFS4ERR_DEADLOCK"},
    {10046, "NFS4ERR_FILE_OPEN"},
    {10047, "NFS4ERR_ADMIN_REVOKED"},
    {10048, "NFS4ERR_CB_PATH_DOWN"},
};

const char *nfs4_status_name(uint32_t status)
{
    static _Thread_local char unknown[32];

    for (size_t i = 0; i < sizeof(nfs4_statuses) / sizeof(nfs4_statuses[0]);
         i++) {
        if (nfs4_statuses[i].num == status) {
            return nfs4_statuses[i].name;
        }
    }
    snprintf(unknown, sizeof(unknown), "NFS4ERR_#%u", status);
    return unknown;
}

static const struct {
    uint32_t num;
    const char *words;
} nfs4_words[] = {
    {1, "not the owner"},
    {2, "no such file or directory"},
    {5, "I/O error on the server"},
    {13, "permission denied"},
    {17, "the file exists"},
    {20, "not a directory"},
    {21, "is a directory"},
    {22, "invalid argument"},
    {27, "file too large"},
    {28, "no space left on the server"},
    {30, "read-only file system"},
    {63, "name too long"},
    {66, "directory not empty"},
    {70, "stale file handle"},
    {10001, "bad file handle"},
    {10003, "the READDIR cookie is no longer valid"},
    {10004, "operation not supported by the server"},
    {10008, "the server asks to try again later"},
    {10011, "the lease has expired"},
    {10013, "the server is in its grace period"},
    {10016, "the export does not allow this security flavour "
            "(try another --sec)"},
    {10018, "the server is out of resources"},
    {10022, "the server no longer knows this client (it restarted?)"},
    {10023, "the server no longer knows this state (it restarted?)"},
    {10025, "bad stateid"},
    {10026, "bad sequence id"},
    {10036, "the server could not decode the request"},
    {10038, "the file is not open for this access"},
};

const char *nfs4_status_words(uint32_t status)
{
    for (size_t i = 0; i < sizeof(nfs4_words) / sizeof(nfs4_words[0]); i++) {
        if (nfs4_words[i].num == status) {
            return nfs4_words[i].words;
        }
    }
    return status == NFS4_OK ? "success" : "error";
}

const char *nfs4_op_name(uint32_t op)
{
    switch (op) {
    case OP_CLOSE:
        return "CLOSE";
    case OP_COMMIT:
        return "COMMIT";
    case OP_GETATTR:
        return "GETATTR";
    case OP_GETFH:
        return "GETFH";
    case OP_LOOKUP:
        return "LOOKUP";
    case OP_OPEN:
        return "OPEN";
    case OP_OPEN_CONFIRM:
        return "OPEN_CONFIRM";
    case OP_PUTFH:
        return "PUTFH";
    case OP_PUTROOTFH:
        return "PUTROOTFH";
    case OP_READ:
        return "READ";
    case OP_READDIR:
        return "READDIR";
    case OP_REMOVE:
        return "REMOVE";
    case OP_RENEW:
        return "RENEW";
    case OP_SETCLIENTID:
        return "SETCLIENTID";
    case OP_SETCLIENTID_CONFIRM:
        return "SETCLIENTID_CONFIRM";
    case OP_WRITE:
        return "WRITE";
    default:
        return "OP_?";
    }
}

const char *nfs4_ftype_name(uint32_t type)
{
    static const char *const names[] = {
        [1] = "reg",  [2] = "dir",     [3] = "blk",
        [4] = "chr",  [5] = "lnk",     [6] = "sock",
        [7] = "fifo", [8] = "attrdir", [9] = "namedattr",
    };

    if (type < sizeof(names) / sizeof(names[0]) && names[type] != NULL) {
        return names[type];
    }
    return "?";
}

void nfs4_bitmap_set(nfs4_bitmap *map, unsigned attr)
{
    unsigned word = attr / 32;

    if (word >= sizeof(map->w) / sizeof(map->w[0])) {
        return;
    }
    while (map->n <= word) {
        map->w[map->n++] = 0;
    }
    map->w[word] |= 1u << (attr % 32);
}

bool nfs4_bitmap_isset(const nfs4_bitmap *map, unsigned attr)
{
    unsigned word = attr / 32;

    return word < map->n && (map->w[word] & (1u << (attr % 32))) != 0;
}

/* ---- Primitives ---- */

/* fattr4's attr_vals<> is read whole first: longer ones are refused. */
#define NFS4_ATTR_VALS_MAX 512u

/* opaque<max> / string<max> from a buffer (NULL only when len is 0). */
static void put_var(struct gk5i_wr *w, const void *p, uint32_t len,
                    uint32_t max)
{
    if (len > max || (p == NULL && len != 0)) {
        w->bad = true;
        return;
    }
    gk5i_xdr_put_opaque(w, p, len);
}

static void put_str(struct gk5i_wr *w, const char *s)
{
    size_t len = s == NULL ? 0 : strlen(s);

    if (s == NULL || len > NFS4_OPAQUE_LIMIT) {
        w->bad = true;
        return;
    }
    gk5i_xdr_put_opaque(w, s, len);
}

/* stateid4: seqid, other[12] */
static void put_stateid(struct gk5i_wr *w, const nfs4_stateid *sid)
{
    gk5i_xdr_put_u32(w, sid->seqid);
    gk5i_xdr_put_fixed(w, sid->other, NFS4_OTHER_SIZE);
}

static void get_stateid(struct gk5i_rd *r, nfs4_stateid *sid)
{
    sid->seqid = gk5i_xdr_get_u32(r);
    gk5i_copy_bytes(r, sid->other, NFS4_OTHER_SIZE); /* 12: no padding */
}

/* verifier4: opaque[8] */
static void get_verifier(struct gk5i_rd *r, uint8_t verf[NFS4_VERIFIER_SIZE])
{
    gk5i_copy_bytes(r, verf, NFS4_VERIFIER_SIZE); /* 8: no padding */
}

/* bitmap4 of the words in use (two at most). */
static void put_bitmap(struct gk5i_wr *w, const nfs4_bitmap *map)
{
    if (map->n > sizeof(map->w) / sizeof(map->w[0])) {
        w->bad = true;
        return;
    }
    gk5i_xdr_put_u32(w, map->n);
    for (uint32_t i = 0; i < map->n; i++) {
        gk5i_xdr_put_u32(w, map->w[i]);
    }
}

/* A reply may carry more words than we asked for; only bits we know are
 * kept, and words beyond those are read and must be 0. */
static void get_bitmap(struct gk5i_rd *r, nfs4_bitmap *map)
{
    uint32_t n = gk5i_xdr_get_u32(r);

    map->n = 0;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        uint32_t w = gk5i_xdr_get_u32(r);

        if (i < sizeof(map->w) / sizeof(map->w[0])) {
            map->w[map->n++] = w;
        } else if (w != 0) {
            r->bad = true;
        }
    }
}

/* opaque<NFS4_OPAQUE_LIMIT> read and dropped (an address, a principal). */
static void skip_var(struct gk5i_rd *r)
{
    size_t len;

    (void)gk5i_xdr_get_opaque(r, NFS4_OPAQUE_LIMIT, &len);
}

/* change_info4: atomic, before, after -- read and dropped. */
static void skip_change_info(struct gk5i_rd *r)
{
    (void)gk5i_xdr_get_bool(r);
    gk5i_skip(r, 16);
}

/* ---- fattr4 (RFC 7530 5) ---- */

/* The attribute values of attrlist4 in bit order; an attribute this file
 * cannot decode makes the reply undecodable (its length is not known). */
static void get_attr_values(struct gk5i_rd *r, nfs4_attrs *a)
{
    for (unsigned attr = 0; attr < 32 * a->mask.n && !r->bad; attr++) {
        if (!nfs4_bitmap_isset(&a->mask, attr)) {
            continue;
        }
        switch (attr) {
        case FATTR4_TYPE:
            a->type = gk5i_xdr_get_u32(r);
            break;
        case FATTR4_CHANGE:
            a->change = gk5i_xdr_get_u64(r);
            break;
        case FATTR4_SIZE:
            a->size = gk5i_xdr_get_u64(r);
            break;
        case FATTR4_FSID:
            a->fsid_major = gk5i_xdr_get_u64(r);
            a->fsid_minor = gk5i_xdr_get_u64(r);
            break;
        case FATTR4_LEASE_TIME:
            a->lease_time = gk5i_xdr_get_u32(r);
            break;
        case FATTR4_FILEID:
            a->fileid = gk5i_xdr_get_u64(r);
            break;
        case FATTR4_MODE:
            a->mode = gk5i_xdr_get_u32(r);
            break;
        case FATTR4_NUMLINKS:
            a->numlinks = gk5i_xdr_get_u32(r);
            break;
        default:
            r->bad = true;
            break;
        }
    }
}

/* fattr4 { bitmap4 attrmask; opaque attr_vals<>; }: the values must fill
 * attr_vals exactly. */
static void get_fattr(struct gk5i_rd *r, nfs4_attrs *a)
{
    struct gk5i_rd vals;
    const uint8_t *p;
    size_t len;

    memset(a, 0, sizeof(*a));
    get_bitmap(r, &a->mask);
    p = gk5i_xdr_get_opaque(r, NFS4_ATTR_VALS_MAX, &len);
    gk5i_rd_init(&vals, p, len);
    get_attr_values(&vals, a);
    if (!gk5i_rd_at_end(&vals)) {
        r->bad = true;
    }
}

/* OPEN's createattrs: the mode and, when truncate, size 0 (RFC 7530
 * 16.16.5: UNCHECKED4 on an existing file with size 0 truncates it). */
static nfs4_bitmap create_mask(bool truncate)
{
    nfs4_bitmap mask = {0};

    nfs4_bitmap_set(&mask, FATTR4_MODE);
    if (truncate) {
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
    }
    return mask;
}

/* The values go in attribute-number order: size (8 bytes), mode (4). */
static void put_fattr_create(struct gk5i_wr *w, uint32_t mode, bool truncate)
{
    nfs4_bitmap mask = create_mask(truncate);

    put_bitmap(w, &mask);
    gk5i_xdr_put_u32(w, truncate ? 12 : 4); /* attr_vals' length */
    if (truncate) {
        gk5i_xdr_put_u64(w, 0);
    }
    gk5i_xdr_put_u32(w, mode);
}

/* ---- Arguments ---- */

nfs4_argop nfs4_putrootfh(void)
{
    return (nfs4_argop){.op = OP_PUTROOTFH};
}

nfs4_argop nfs4_putfh(const nfs4_fh *fh)
{
    return (nfs4_argop){.op = OP_PUTFH, .u.putfh = *fh};
}

nfs4_argop nfs4_getfh(void)
{
    return (nfs4_argop){.op = OP_GETFH};
}

nfs4_argop nfs4_getattr(const nfs4_bitmap *mask)
{
    return (nfs4_argop){.op = OP_GETATTR, .u.getattr = *mask};
}

/* RFC 7530 16.16.1: OPEN4args. */
static void put_open_args(struct gk5i_wr *w, const nfs4_argop *a)
{
    gk5i_xdr_put_u32(w, a->u.open.seqid);
    gk5i_xdr_put_u32(w, a->u.open.share_access);
    gk5i_xdr_put_u32(w, a->u.open.share_deny);
    /* open_owner4 */
    gk5i_xdr_put_u64(w, a->u.open.clientid);
    put_str(w, a->u.open.owner);
    /* openflag4: OPEN4_NOCREATE 0 | OPEN4_CREATE 1 -> createhow4 */
    gk5i_xdr_put_u32(w, a->u.open.create ? 1 : 0);
    if (a->u.open.create) {
        gk5i_xdr_put_u32(w, a->u.open.createmode);
        put_fattr_create(w, a->u.open.mode, a->u.open.truncate);
    }
    /* open_claim4: CLAIM_NULL 0 -> component4 file */
    gk5i_xdr_put_u32(w, 0);
    put_str(w, a->u.open.name);
}

static void put_argop(struct gk5i_wr *w, const nfs4_argop *a)
{
    gk5i_xdr_put_u32(w, a->op);
    switch (a->op) {
    case OP_PUTROOTFH:
    case OP_GETFH:
        break;
    case OP_PUTFH:
        put_var(w, a->u.putfh.data, a->u.putfh.len, NFS4_FHSIZE);
        break;
    case OP_GETATTR:
        put_bitmap(w, &a->u.getattr);
        break;
    case OP_SETCLIENTID:
        /* nfs_client_id4, cb_client4 { cb_program, netaddr4 }, ident */
        gk5i_xdr_put_fixed(w, a->u.setclientid.verifier, NFS4_VERIFIER_SIZE);
        put_str(w, a->u.setclientid.id);
        gk5i_xdr_put_u32(w, a->u.setclientid.cb_program);
        put_str(w, a->u.setclientid.cb_netid);
        put_str(w, a->u.setclientid.cb_addr);
        gk5i_xdr_put_u32(w, a->u.setclientid.cb_ident);
        break;
    case OP_SETCLIENTID_CONFIRM:
        gk5i_xdr_put_u64(w, a->u.setclientid_confirm.clientid);
        gk5i_xdr_put_fixed(w, a->u.setclientid_confirm.verifier,
                           NFS4_VERIFIER_SIZE);
        break;
    case OP_OPEN:
        put_open_args(w, a);
        break;
    case OP_OPEN_CONFIRM:
        put_stateid(w, &a->u.open_confirm.stateid);
        gk5i_xdr_put_u32(w, a->u.open_confirm.seqid);
        break;
    case OP_WRITE:
        put_stateid(w, &a->u.write.stateid);
        gk5i_xdr_put_u64(w, a->u.write.offset);
        gk5i_xdr_put_u32(w, a->u.write.stable);
        put_var(w, a->u.write.data, a->u.write.len, UINT32_MAX);
        break;
    case OP_READ:
        put_stateid(w, &a->u.read.stateid);
        gk5i_xdr_put_u64(w, a->u.read.offset);
        gk5i_xdr_put_u32(w, a->u.read.count);
        break;
    case OP_COMMIT:
        gk5i_xdr_put_u64(w, a->u.commit.offset);
        gk5i_xdr_put_u32(w, a->u.commit.count);
        break;
    case OP_CLOSE:
        gk5i_xdr_put_u32(w, a->u.close.seqid);
        put_stateid(w, &a->u.close.stateid);
        break;
    case OP_REMOVE:
        put_str(w, a->u.remove.name);
        break;
    case OP_LOOKUP:
        put_str(w, a->u.lookup.name);
        break;
    case OP_READDIR:
        gk5i_xdr_put_u64(w, a->u.readdir.cookie);
        gk5i_xdr_put_fixed(w, a->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
        gk5i_xdr_put_u32(w, a->u.readdir.dircount);
        gk5i_xdr_put_u32(w, a->u.readdir.maxcount);
        put_bitmap(w, &a->u.readdir.attrs);
        break;
    case OP_RENEW:
        gk5i_xdr_put_u64(w, a->u.renew);
        break;
    default:
        w->bad = true;
        break;
    }
}

/* COMPOUND4args { tag; minorversion; nfs_argop4 argarray<>; } */
int nfs4_compound_args_encode(const nfs4_compound_args *args, struct gk5i_wr *w)
{
    put_str(w, args->tag);
    gk5i_xdr_put_u32(w, args->minorversion);
    gk5i_xdr_put_u32(w, args->n);
    for (uint32_t i = 0; i < args->n && !w->bad; i++) {
        put_argop(w, &args->ops[i]);
    }
    return w->bad ? -1 : 0;
}

/* The sizes of what put_argop writes, field for field. */
#define SZ_U32 4u
#define SZ_U64 8u
#define SZ_STATEID (4u + NFS4_OTHER_SIZE)

static size_t str_size(const char *s)
{
    return gk5i_xdr_opaque_size(s == NULL ? 0 : strlen(s));
}

static size_t bitmap_size(const nfs4_bitmap *map)
{
    return SZ_U32 + (size_t)map->n * SZ_U32;
}

static size_t open_args_size(const nfs4_argop *a)
{
    size_t n = 3 * SZ_U32 + SZ_U64 + str_size(a->u.open.owner) + SZ_U32;

    if (a->u.open.create) {
        nfs4_bitmap mask = create_mask(a->u.open.truncate);

        n += SZ_U32 + bitmap_size(&mask) + SZ_U32 +
             (a->u.open.truncate ? 12 : 4);
    }
    return n + SZ_U32 + str_size(a->u.open.name);
}

/* SIZE_MAX when the size would not fit a size_t (a WRITE near 4 GiB where
 * size_t has 32 bits). */
static size_t argop_size(const nfs4_argop *a)
{
    switch (a->op) {
    case OP_PUTROOTFH:
    case OP_GETFH:
        return SZ_U32;
    case OP_PUTFH:
        return SZ_U32 + gk5i_xdr_opaque_size(a->u.putfh.len);
    case OP_GETATTR:
        return SZ_U32 + bitmap_size(&a->u.getattr);
    case OP_SETCLIENTID:
        return SZ_U32 + NFS4_VERIFIER_SIZE + str_size(a->u.setclientid.id) +
               SZ_U32 + str_size(a->u.setclientid.cb_netid) +
               str_size(a->u.setclientid.cb_addr) + SZ_U32;
    case OP_SETCLIENTID_CONFIRM:
        return SZ_U32 + SZ_U64 + NFS4_VERIFIER_SIZE;
    case OP_OPEN:
        return SZ_U32 + open_args_size(a);
    case OP_OPEN_CONFIRM:
        return SZ_U32 + SZ_STATEID + SZ_U32;
    case OP_WRITE: {
        size_t data = a->u.write.len;
        size_t head = SZ_U32 + SZ_STATEID + SZ_U64 + SZ_U32;

        if (data > SIZE_MAX - head - gk5i_xdr_opaque_size(0) - 3) {
            return SIZE_MAX;
        }
        return head + gk5i_xdr_opaque_size(data);
    }
    case OP_READ:
        return SZ_U32 + SZ_STATEID + SZ_U64 + SZ_U32;
    case OP_COMMIT:
        return SZ_U32 + SZ_U64 + SZ_U32;
    case OP_CLOSE:
        return SZ_U32 + SZ_U32 + SZ_STATEID;
    case OP_REMOVE:
        return SZ_U32 + str_size(a->u.remove.name);
    case OP_LOOKUP:
        return SZ_U32 + str_size(a->u.lookup.name);
    case OP_READDIR:
        return SZ_U32 + SZ_U64 + NFS4_VERIFIER_SIZE + 2 * SZ_U32 +
               bitmap_size(&a->u.readdir.attrs);
    case OP_RENEW:
        return SZ_U32 + SZ_U64;
    default:
        return SZ_U32;
    }
}

size_t nfs4_compound_args_size(const nfs4_compound_args *args)
{
    size_t n = str_size(args->tag) + 2 * SZ_U32;

    for (uint32_t i = 0; i < args->n; i++) {
        size_t op = argop_size(&args->ops[i]);

        if (op > SIZE_MAX - n) {
            return SIZE_MAX;
        }
        n += op;
    }
    return n;
}

/* ---- Results ---- */

/* open_delegation4: the type, its body read and dropped. */
static void skip_delegation(struct gk5i_rd *r, uint32_t *type)
{
    nfs4_stateid sid;

    *type = gk5i_xdr_get_u32(r);
    switch (*type) {
    case 0: /* OPEN_DELEGATE_NONE */
        return;
    case 1: /* READ: stateid, recall, nfsace4 */
    case 2: /* WRITE: stateid, recall, nfs_space_limit4, nfsace4 */
        get_stateid(r, &sid);
        (void)gk5i_xdr_get_bool(r);
        if (*type == 2) {
            /* limitby: NFS_LIMIT_SIZE 1 (filesize), NFS_LIMIT_BLOCKS 2
             * (num_blocks, bytes_per_block) */
            uint32_t limitby = gk5i_xdr_get_u32(r);

            if (limitby == 1 || limitby == 2) {
                gk5i_skip(r, 8);
            } else {
                r->bad = true;
            }
        }
        gk5i_skip(r, 3 * 4); /* acetype, aceflag, acemask */
        skip_var(r);         /* who */
        return;
    default:
        r->bad = true;
        return;
    }
}

/* RFC 7530 16.24.2: READDIR4resok { cookieverf; dirlist4 { entry4
 * *entries; eof } }, the entries into the caller's array. */
static void get_readdir_res(struct gk5i_rd *r, nfs4_resop *res)
{
    bool more;

    res->u.readdir.n = 0;
    get_verifier(r, res->u.readdir.cookieverf);
    more = gk5i_xdr_get_bool(r);
    while (more && !r->bad) {
        nfs4_dirent *e;
        size_t len;

        if (res->u.readdir.entries == NULL ||
            res->u.readdir.n == res->u.readdir.cap) {
            r->bad = true;
            return;
        }
        e = &res->u.readdir.entries[res->u.readdir.n];
        e->cookie = gk5i_xdr_get_u64(r);
        gk5i_xdr_copy_opaque(r, e->name, NFS4_OPAQUE_LIMIT, &len);
        e->name[len] = '\0';
        get_fattr(r, &e->attrs);
        more = gk5i_xdr_get_bool(r);
        if (r->bad) {
            return;
        }
        res->u.readdir.n++;
    }
    res->u.readdir.eof = gk5i_xdr_get_bool(r);
}

/* The NFS4_OK body of result res (whose op is already read). */
static void get_resok(struct gk5i_rd *r, nfs4_resop *res)
{
    size_t len;

    switch (res->op) {
    case OP_PUTROOTFH:
    case OP_PUTFH:
    case OP_SETCLIENTID_CONFIRM:
    case OP_LOOKUP:
    case OP_RENEW:
        break;
    case OP_READDIR:
        get_readdir_res(r, res);
        break;
    case OP_GETFH:
        gk5i_xdr_copy_opaque(r, res->u.getfh.data, NFS4_FHSIZE, &len);
        res->u.getfh.len = (uint32_t)len;
        break;
    case OP_GETATTR:
        get_fattr(r, &res->u.getattr);
        break;
    case OP_SETCLIENTID:
        res->u.setclientid.clientid = gk5i_xdr_get_u64(r);
        get_verifier(r, res->u.setclientid.verifier);
        break;
    case OP_OPEN: {
        nfs4_bitmap attrset;

        get_stateid(r, &res->u.open.stateid);
        skip_change_info(r);
        res->u.open.rflags = gk5i_xdr_get_u32(r);
        get_bitmap(r, &attrset);
        skip_delegation(r, &res->u.open.delegation);
        break;
    }
    case OP_OPEN_CONFIRM:
        get_stateid(r, &res->u.open_confirm);
        break;
    case OP_CLOSE:
        get_stateid(r, &res->u.close);
        break;
    case OP_WRITE:
        res->u.write.count = gk5i_xdr_get_u32(r);
        res->u.write.committed = gk5i_xdr_get_u32(r);
        get_verifier(r, res->u.write.verifier);
        break;
    case OP_READ:
        res->u.read.eof = gk5i_xdr_get_bool(r);
        if (res->u.read.buf == NULL) {
            r->bad = true;
        }
        gk5i_xdr_copy_opaque(r, res->u.read.buf, res->u.read.cap, &len);
        res->u.read.len = (uint32_t)len;
        break;
    case OP_COMMIT:
        get_verifier(r, res->u.commit);
        break;
    case OP_REMOVE:
        skip_change_info(r);
        break;
    default:
        r->bad = true;
        break;
    }
}

/* nfs_resop4: resop, then the op's result (status first).  res->op holds
 * the operation the caller sent at this index (RFC 7530 15.2: results
 * answer the arguments in order): a result of another kind is refused, so
 * that a server cannot make the decoder use the wrong member of res->u (a
 * READDIR entry array where the caller gave a READ buffer). */
static void get_resop(struct gk5i_rd *r, nfs4_resop *res)
{
    if (gk5i_xdr_get_u32(r) != res->op) {
        r->bad = true;
        return;
    }
    res->status = gk5i_xdr_get_u32(r);
    if (r->bad) {
        return;
    }
    if (res->status == NFS4_OK) {
        get_resok(r, res);
    } else if (res->op == OP_SETCLIENTID && res->status == 10017) {
        /* SETCLIENTID4res: NFS4ERR_CLID_INUSE carries the clientaddr4. */
        skip_var(r);
        skip_var(r);
    }
}

/* COMPOUND4res { status; tag; nfs_resop4 resarray<>; } */
bool nfs4_compound_res_decode(const uint8_t *p, size_t len,
                              nfs4_compound_res *res)
{
    struct gk5i_rd r;
    size_t taglen;
    uint32_t n;

    gk5i_rd_init(&r, p, len);
    res->n = 0;
    res->status = gk5i_xdr_get_u32(&r);
    gk5i_xdr_copy_opaque(&r, res->tag, sizeof(res->tag) - 1, &taglen);
    res->tag[taglen] = '\0';
    n = gk5i_xdr_get_u32(&r);
    if (n > res->max) {
        r.bad = true;
    }
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        get_resop(&r, &res->ops[i]);
        if (!r.bad) {
            res->n = i + 1;
        }
    }
    return gk5i_rd_at_end(&r);
}

const char *nfs4_compound_error(const nfs4_compound_res *res)
{
    static _Thread_local char text[96];

    for (uint32_t i = 0; i < res->n; i++) {
        if (res->ops[i].status != NFS4_OK) {
            snprintf(text, sizeof(text), "%s: %s", nfs4_op_name(res->ops[i].op),
                     nfs4_status_name(res->ops[i].status));
            return text;
        }
    }
    snprintf(text, sizeof(text), "COMPOUND: %s", nfs4_status_name(res->status));
    return text;
}
