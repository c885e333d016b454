/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * NFSv4.0 COMPOUND encoding and decoding (RFC 7530; its XDR is RFC 7531)
 * for the operations of nfs4_xdr.h, on libtirpc's xdr_* primitives.
 * Encoders take const data and are only ever run with XDR_ENCODE;
 * decoders fill fixed-size fields and never allocate.
 */
#include "nfs4_xdr.h"

#include <stdio.h>
#include <string.h>

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

/* opaque<max> / string<max> from a const buffer (encode only). */
static bool_t xdr_var_out(XDR *xdrs, const void *p, uint32_t len, uint32_t max)
{
    u_int n = len;

    if (len > max) {
        return FALSE;
    }
    /* xdr_opaque only reads the buffer when encoding. */
    return xdr_u_int(xdrs, &n) && xdr_opaque(xdrs, (caddr_t)(uintptr_t)p, n);
}

static bool_t xdr_str_out(XDR *xdrs, const char *s)
{
    return xdr_var_out(xdrs, s, (uint32_t)strlen(s), NFS4_OPAQUE_LIMIT);
}

/* opaque<max> into a fixed buffer of cap bytes (decode only). */
static bool_t xdr_var_in(XDR *xdrs, void *p, uint32_t cap, uint32_t *len)
{
    u_int n;

    if (!xdr_u_int(xdrs, &n) || n > cap) {
        return FALSE;
    }
    *len = n;
    return xdr_opaque(xdrs, p, n);
}

/* opaque<> read and dropped (a tag, an address, a principal). */
static bool_t xdr_var_skip(XDR *xdrs)
{
    uint8_t scratch[NFS4_OPAQUE_LIMIT];
    uint32_t len;

    return xdr_var_in(xdrs, scratch, sizeof(scratch), &len);
}

static bool_t xdr_u32(XDR *xdrs, uint32_t *v)
{
    return xdr_uint32_t(xdrs, v);
}

static bool_t xdr_u32_out(XDR *xdrs, uint32_t v)
{
    return xdr_uint32_t(xdrs, &v);
}

static bool_t xdr_u64(XDR *xdrs, uint64_t *v)
{
    return xdr_uint64_t(xdrs, v);
}

static bool_t xdr_u64_out(XDR *xdrs, uint64_t v)
{
    return xdr_uint64_t(xdrs, &v);
}

static bool_t xdr_flag(XDR *xdrs, bool *v)
{
    /* *v is read only when encoding: decoding fills it. */
    bool_t b = xdrs->x_op == XDR_ENCODE ? *v : FALSE;

    if (!xdr_bool(xdrs, &b)) {
        return FALSE;
    }
    *v = b != 0;
    return TRUE;
}

/* stateid4: seqid, other[12] */
static bool_t xdr_stateid(XDR *xdrs, nfs4_stateid *sid)
{
    return xdr_u32(xdrs, &sid->seqid) &&
           xdr_opaque(xdrs, (caddr_t)sid->other, NFS4_OTHER_SIZE);
}

static bool_t xdr_stateid_out(XDR *xdrs, const nfs4_stateid *sid)
{
    nfs4_stateid copy = *sid;

    return xdr_stateid(xdrs, &copy);
}

static bool_t xdr_verifier(XDR *xdrs, uint8_t verf[NFS4_VERIFIER_SIZE])
{
    return xdr_opaque(xdrs, (caddr_t)verf, NFS4_VERIFIER_SIZE);
}

static bool_t xdr_bitmap(XDR *xdrs, nfs4_bitmap *map)
{
    u_int n = map->n;

    if (!xdr_u_int(xdrs, &n)) {
        return FALSE;
    }
    if (xdrs->x_op == XDR_ENCODE) {
        for (u_int i = 0; i < n; i++) {
            if (!xdr_u32(xdrs, &map->w[i])) {
                return FALSE;
            }
        }
        return TRUE;
    }
    /* A reply may carry more words than we asked for; only bits we know
     * are kept, and words beyond those are read and must be 0. */
    map->n = 0;
    for (u_int i = 0; i < n; i++) {
        uint32_t w;
        if (!xdr_u32(xdrs, &w)) {
            return FALSE;
        }
        if (i < sizeof(map->w) / sizeof(map->w[0])) {
            map->w[map->n++] = w;
        } else if (w != 0) {
            return FALSE;
        }
    }
    return TRUE;
}

/* change_info4: atomic, before, after -- read and dropped. */
static bool_t xdr_change_info_skip(XDR *xdrs)
{
    bool atomic = false;
    uint64_t before, after;

    return xdr_flag(xdrs, &atomic) && xdr_u64(xdrs, &before) &&
           xdr_u64(xdrs, &after);
}

/* ---- fattr4 (RFC 7530 5) ---- */

/* The attribute values of attrlist4 in bit order; an attribute this file
 * cannot decode makes the reply undecodable (its length is not known). */
static bool_t xdr_attr_values(XDR *xdrs, nfs4_attrs *a)
{
    for (unsigned attr = 0; attr < 32 * a->mask.n; attr++) {
        bool_t ok;

        if (!nfs4_bitmap_isset(&a->mask, attr)) {
            continue;
        }
        switch (attr) {
        case FATTR4_TYPE:
            ok = xdr_u32(xdrs, &a->type);
            break;
        case FATTR4_CHANGE:
            ok = xdr_u64(xdrs, &a->change);
            break;
        case FATTR4_SIZE:
            ok = xdr_u64(xdrs, &a->size);
            break;
        case FATTR4_FSID:
            ok = xdr_u64(xdrs, &a->fsid_major) && xdr_u64(xdrs, &a->fsid_minor);
            break;
        case FATTR4_LEASE_TIME:
            ok = xdr_u32(xdrs, &a->lease_time);
            break;
        case FATTR4_FILEID:
            ok = xdr_u64(xdrs, &a->fileid);
            break;
        case FATTR4_MODE:
            ok = xdr_u32(xdrs, &a->mode);
            break;
        case FATTR4_NUMLINKS:
            ok = xdr_u32(xdrs, &a->numlinks);
            break;
        default:
            ok = FALSE;
            break;
        }
        if (!ok) {
            return FALSE;
        }
    }
    return TRUE;
}

/* fattr4 { bitmap4 attrmask; opaque attr_vals<>; }, decode. */
static bool_t xdr_fattr_in(XDR *xdrs, nfs4_attrs *a)
{
    uint8_t vals[512];
    uint32_t len;
    XDR mem;
    bool_t ok;

    memset(a, 0, sizeof(*a));
    if (!xdr_bitmap(xdrs, &a->mask) ||
        !xdr_var_in(xdrs, vals, sizeof(vals), &len)) {
        return FALSE;
    }
    xdrmem_create(&mem, (caddr_t)vals, len, XDR_DECODE);
    ok = xdr_attr_values(&mem, a) && xdr_getpos(&mem) == len;
    xdr_destroy(&mem);
    return ok;
}

/* fattr4 holding only mode, encode (OPEN's createattrs). */
/* createattrs: the mode and, when truncate, size 0 (RFC 7530 16.16.5:
 * UNCHECKED4 on an existing file with size 0 truncates it); attribute
 * values go in attribute-number order. */
static bool_t xdr_fattr_create_out(XDR *xdrs, uint32_t mode, bool truncate)
{
    nfs4_bitmap mask = {0};

    nfs4_bitmap_set(&mask, FATTR4_MODE);
    if (truncate) {
        nfs4_bitmap_set(&mask, FATTR4_SIZE);
    }
    return xdr_bitmap(xdrs, &mask) && xdr_u32_out(xdrs, truncate ? 12 : 4) &&
           (!truncate || xdr_u64_out(xdrs, 0)) && xdr_u32_out(xdrs, mode);
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
static bool_t xdr_open_args(XDR *xdrs, const nfs4_argop *a)
{
    if (!xdr_u32_out(xdrs, a->u.open.seqid) ||
        !xdr_u32_out(xdrs, a->u.open.share_access) ||
        !xdr_u32_out(xdrs, a->u.open.share_deny) ||
        /* open_owner4 */
        !xdr_u64_out(xdrs, a->u.open.clientid) ||
        !xdr_str_out(xdrs, a->u.open.owner)) {
        return FALSE;
    }
    /* openflag4: OPEN4_NOCREATE 0 | OPEN4_CREATE 1 -> createhow4 */
    if (!xdr_u32_out(xdrs, a->u.open.create ? 1 : 0)) {
        return FALSE;
    }
    if (a->u.open.create &&
        (!xdr_u32_out(xdrs, a->u.open.createmode) ||
         !xdr_fattr_create_out(xdrs, a->u.open.mode, a->u.open.truncate))) {
        return FALSE;
    }
    /* open_claim4: CLAIM_NULL 0 -> component4 file */
    return xdr_u32_out(xdrs, 0) && xdr_str_out(xdrs, a->u.open.name);
}

static bool_t xdr_argop(XDR *xdrs, const nfs4_argop *a)
{
    if (!xdr_u32_out(xdrs, a->op)) {
        return FALSE;
    }
    switch (a->op) {
    case OP_PUTROOTFH:
    case OP_GETFH:
        return TRUE;
    case OP_PUTFH:
        return xdr_var_out(xdrs, a->u.putfh.data, a->u.putfh.len, NFS4_FHSIZE);
    case OP_GETATTR: {
        nfs4_bitmap mask = a->u.getattr;
        return xdr_bitmap(xdrs, &mask);
    }
    case OP_SETCLIENTID: {
        uint8_t verf[NFS4_VERIFIER_SIZE];
        memcpy(verf, a->u.setclientid.verifier, sizeof(verf));
        /* nfs_client_id4, cb_client4 { cb_program, netaddr4 }, ident */
        return xdr_verifier(xdrs, verf) &&
               xdr_str_out(xdrs, a->u.setclientid.id) &&
               xdr_u32_out(xdrs, a->u.setclientid.cb_program) &&
               xdr_str_out(xdrs, a->u.setclientid.cb_netid) &&
               xdr_str_out(xdrs, a->u.setclientid.cb_addr) &&
               xdr_u32_out(xdrs, a->u.setclientid.cb_ident);
    }
    case OP_SETCLIENTID_CONFIRM: {
        uint8_t verf[NFS4_VERIFIER_SIZE];
        memcpy(verf, a->u.setclientid_confirm.verifier, sizeof(verf));
        return xdr_u64_out(xdrs, a->u.setclientid_confirm.clientid) &&
               xdr_verifier(xdrs, verf);
    }
    case OP_OPEN:
        return xdr_open_args(xdrs, a);
    case OP_OPEN_CONFIRM:
        return xdr_stateid_out(xdrs, &a->u.open_confirm.stateid) &&
               xdr_u32_out(xdrs, a->u.open_confirm.seqid);
    case OP_WRITE:
        return xdr_stateid_out(xdrs, &a->u.write.stateid) &&
               xdr_u64_out(xdrs, a->u.write.offset) &&
               xdr_u32_out(xdrs, a->u.write.stable) &&
               xdr_var_out(xdrs, a->u.write.data, a->u.write.len, UINT32_MAX);
    case OP_READ:
        return xdr_stateid_out(xdrs, &a->u.read.stateid) &&
               xdr_u64_out(xdrs, a->u.read.offset) &&
               xdr_u32_out(xdrs, a->u.read.count);
    case OP_COMMIT:
        return xdr_u64_out(xdrs, a->u.commit.offset) &&
               xdr_u32_out(xdrs, a->u.commit.count);
    case OP_CLOSE:
        return xdr_u32_out(xdrs, a->u.close.seqid) &&
               xdr_stateid_out(xdrs, &a->u.close.stateid);
    case OP_REMOVE:
        return xdr_str_out(xdrs, a->u.remove.name);
    case OP_LOOKUP:
        return xdr_str_out(xdrs, a->u.lookup.name);
    case OP_READDIR: {
        uint8_t verf[NFS4_VERIFIER_SIZE];
        nfs4_bitmap mask = a->u.readdir.attrs;
        memcpy(verf, a->u.readdir.cookieverf, sizeof(verf));
        return xdr_u64_out(xdrs, a->u.readdir.cookie) &&
               xdr_verifier(xdrs, verf) &&
               xdr_u32_out(xdrs, a->u.readdir.dircount) &&
               xdr_u32_out(xdrs, a->u.readdir.maxcount) &&
               xdr_bitmap(xdrs, &mask);
    }
    case OP_RENEW:
        return xdr_u64_out(xdrs, a->u.renew);
    default:
        return FALSE;
    }
}

/* COMPOUND4args { tag; minorversion; nfs_argop4 argarray<>; } */
bool_t nfs4_xdr_compound_args(XDR *xdrs, nfs4_compound_args *args)
{
    if (xdrs->x_op != XDR_ENCODE) {
        return xdrs->x_op == XDR_FREE;
    }
    if (!xdr_str_out(xdrs, args->tag) ||
        !xdr_u32_out(xdrs, args->minorversion) || !xdr_u32_out(xdrs, args->n)) {
        return FALSE;
    }
    for (uint32_t i = 0; i < args->n; i++) {
        if (!xdr_argop(xdrs, &args->ops[i])) {
            return FALSE;
        }
    }
    return TRUE;
}

/* ---- Results ---- */

/* open_delegation4: the type, its body read and dropped. */
static bool_t xdr_delegation_skip(XDR *xdrs, uint32_t *type)
{
    nfs4_stateid sid;
    bool recall = false;
    uint32_t acetype, aceflag, acemask;

    if (!xdr_u32(xdrs, type)) {
        return FALSE;
    }
    switch (*type) {
    case 0: /* OPEN_DELEGATE_NONE */
        return TRUE;
    case 1: /* READ: stateid, recall, nfsace4 */
    case 2: /* WRITE: stateid, recall, nfs_space_limit4, nfsace4 */
        if (!xdr_stateid(xdrs, &sid) || !xdr_flag(xdrs, &recall)) {
            return FALSE;
        }
        if (*type == 2) {
            uint32_t limitby, a, b;
            uint64_t size;
            if (!xdr_u32(xdrs, &limitby)) {
                return FALSE;
            }
            if (limitby == 1 && !xdr_u64(xdrs, &size)) {
                return FALSE;
            }
            if (limitby == 2 && (!xdr_u32(xdrs, &a) || !xdr_u32(xdrs, &b))) {
                return FALSE;
            }
            if (limitby != 1 && limitby != 2) {
                return FALSE;
            }
        }
        return xdr_u32(xdrs, &acetype) && xdr_u32(xdrs, &aceflag) &&
               xdr_u32(xdrs, &acemask) && xdr_var_skip(xdrs);
    default:
        return FALSE;
    }
}

/* RFC 7530 16.24.2: READDIR4resok { cookieverf; dirlist4 { entry4
 * *entries; eof } }, the entries into the caller's array. */
static bool_t xdr_readdir_res(XDR *xdrs, nfs4_resop *r)
{
    bool more = false;

    r->u.readdir.n = 0;
    if (!xdr_verifier(xdrs, r->u.readdir.cookieverf) ||
        !xdr_flag(xdrs, &more)) {
        return FALSE;
    }
    while (more) {
        nfs4_dirent *e;
        uint32_t len;

        if (r->u.readdir.entries == NULL ||
            r->u.readdir.n == r->u.readdir.cap) {
            return FALSE;
        }
        e = &r->u.readdir.entries[r->u.readdir.n];
        if (!xdr_u64(xdrs, &e->cookie) ||
            !xdr_var_in(xdrs, e->name, NFS4_OPAQUE_LIMIT, &len)) {
            return FALSE;
        }
        e->name[len] = '\0';
        if (!xdr_fattr_in(xdrs, &e->attrs) || !xdr_flag(xdrs, &more)) {
            return FALSE;
        }
        r->u.readdir.n++;
    }
    return xdr_flag(xdrs, &r->u.readdir.eof);
}

/* The NFS4_OK body of result r (whose op is already read). */
static bool_t xdr_resok(XDR *xdrs, nfs4_resop *r)
{
    switch (r->op) {
    case OP_PUTROOTFH:
    case OP_PUTFH:
    case OP_SETCLIENTID_CONFIRM:
    case OP_LOOKUP:
    case OP_RENEW:
        return TRUE;
    case OP_READDIR:
        return xdr_readdir_res(xdrs, r);
    case OP_GETFH:
        return xdr_var_in(xdrs, r->u.getfh.data, NFS4_FHSIZE, &r->u.getfh.len);
    case OP_GETATTR:
        return xdr_fattr_in(xdrs, &r->u.getattr);
    case OP_SETCLIENTID:
        return xdr_u64(xdrs, &r->u.setclientid.clientid) &&
               xdr_verifier(xdrs, r->u.setclientid.verifier);
    case OP_OPEN: {
        nfs4_bitmap attrset = {0};
        return xdr_stateid(xdrs, &r->u.open.stateid) &&
               xdr_change_info_skip(xdrs) && xdr_u32(xdrs, &r->u.open.rflags) &&
               xdr_bitmap(xdrs, &attrset) &&
               xdr_delegation_skip(xdrs, &r->u.open.delegation);
    }
    case OP_OPEN_CONFIRM:
        return xdr_stateid(xdrs, &r->u.open_confirm);
    case OP_CLOSE:
        return xdr_stateid(xdrs, &r->u.close);
    case OP_WRITE:
        return xdr_u32(xdrs, &r->u.write.count) &&
               xdr_u32(xdrs, &r->u.write.committed) &&
               xdr_verifier(xdrs, r->u.write.verifier);
    case OP_READ:
        return xdr_flag(xdrs, &r->u.read.eof) && r->u.read.buf != NULL &&
               xdr_var_in(xdrs, r->u.read.buf, r->u.read.cap, &r->u.read.len);
    case OP_COMMIT:
        return xdr_verifier(xdrs, r->u.commit);
    case OP_REMOVE:
        return xdr_change_info_skip(xdrs);
    default:
        return FALSE;
    }
}

/* nfs_resop4: resop, then the op's result (status first).  r->op holds
 * the operation the caller sent at this index (RFC 7530 15.2: results
 * answer the arguments in order): a result of another kind is refused, so
 * that a server cannot make the decoder use the wrong member of r->u (a
 * READDIR entry array where the caller gave a READ buffer). */
static bool_t xdr_resop(XDR *xdrs, nfs4_resop *r)
{
    uint32_t op;

    if (!xdr_u32(xdrs, &op) || op != r->op || !xdr_u32(xdrs, &r->status)) {
        return FALSE;
    }
    if (r->status == NFS4_OK) {
        return xdr_resok(xdrs, r);
    }
    /* SETCLIENTID4res: NFS4ERR_CLID_INUSE carries the clientaddr4. */
    if (r->op == OP_SETCLIENTID && r->status == 10017) {
        return xdr_var_skip(xdrs) && xdr_var_skip(xdrs);
    }
    return TRUE;
}

/* COMPOUND4res { status; tag; nfs_resop4 resarray<>; } */
bool_t nfs4_xdr_compound_res(XDR *xdrs, nfs4_compound_res *res)
{
    uint32_t taglen, n;

    if (xdrs->x_op != XDR_DECODE) {
        return xdrs->x_op == XDR_FREE;
    }
    res->n = 0;
    if (!xdr_u32(xdrs, &res->status) ||
        !xdr_var_in(xdrs, res->tag, sizeof(res->tag) - 1, &taglen) ||
        !xdr_u32(xdrs, &n) || n > res->max) {
        return FALSE;
    }
    res->tag[taglen] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        if (!xdr_resop(xdrs, &res->ops[i])) {
            return FALSE;
        }
        res->n = i + 1;
    }
    return TRUE;
}

enum clnt_stat nfs4_compound(CLIENT *clnt, const nfs4_argop *ops, uint32_t n,
                             nfs4_compound_res *res, struct timeval timeout)
{
    nfs4_compound_args args = {
        .tag = "gk5", .minorversion = 0, .ops = ops, .n = n};

    res->status = 0;
    res->n = 0;
    res->tag[0] = '\0';
    for (uint32_t i = 0; i < n && i < res->max; i++) {
        res->ops[i].op = ops[i].op; /* what each result must answer */
    }
    /* xdrproc_t is variadic in libtirpc: go through a plain function
     * pointer type. */
    return clnt_call(clnt, NFSPROC4_COMPOUND,
                     (xdrproc_t)(void (*)(void))nfs4_xdr_compound_args,
                     (caddr_t)&args,
                     (xdrproc_t)(void (*)(void))nfs4_xdr_compound_res,
                     (caddr_t)res, timeout);
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
