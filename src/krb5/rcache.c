/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The acceptor's replay cache, RFC 4120 3.2.3: "the server MUST utilize a
 * replay cache to remember any authenticator presented within the
 * allowable clock skew".
 *
 * Entries.  The key is the first GK5I_RCACHE_TAG_BYTES of the
 * authenticator ciphertext's checksum (zero-padded when shorter), the
 * value the second at which the entry dies (ctime + skew), kept as 32 bits
 * relative to a base fixed at creation: 20 bytes an entry.  Expiry per
 * entry is how the one-second buckets over 2 * skew + 1 seconds are kept:
 * the acceptor lets through only ctime within now +- skew, so an entry
 * lives at most 2 * skew + 1 seconds, and a dead entry's slot is free
 * for the next insert, so no sweep is needed to empty a bucket.
 *
 * Shards.  The table is split into up to RC_SHARDS_MAX shards (a power of
 * two, fewer for a small table so that each has RC_MIN_PER_SHARD slots),
 * each a lock and a region of the slot array, each lock on its own cache
 * line.  A tag picks its shard and its first slot through a hash keyed
 * with a secret drawn at creation.  An attacker cannot crowd one shard to
 * lock others out: a tag is a MAC under a session key only the client
 * holds, so no one chooses a tag, and without the secret no one can tell
 * which shard a tag falls in either.
 *
 * Probing.  Linear probing over at most RC_PROBES slots of the shard,
 * wrapping within it.  An insert takes the first free slot (never used,
 * or dead) of that window; a lookup looks at the whole window, since a
 * dead slot may come before the live duplicate, and stops early only at a
 * never-used slot (nothing was ever placed past one).  A window without a
 * free slot is a full shard: the AP-REQ is refused, never a live entry
 * forgotten.  So a check costs at most RC_PROBES slot compares (1280
 * bytes, contiguous) under one lock.
 *
 * The file.  RC_HEADER_BYTES of header: "gk5R", a 32-bit version (1) and
 * a 64-bit generation, then records of RC_RECORD_BYTES: the 16 tag bytes
 * and the expiry as a signed 64-bit second count, all big-endian.  Every
 * access is under an OFD write lock (per open file description, so two
 * caches on one file exclude each other even in one process, and closing
 * some other descriptor of the file does not drop the lock).  Before
 * storing, a cache reads the records other processes appended since its
 * last read, so two processes never both accept one tag.  The file is
 * compacted in place once it has RC_COMPACT_MIN records and twice as many
 * as it kept last time: live records are moved down in file order, after
 * the generation is bumped so that every other cache reads it again from
 * the start.  A record is only ever written below its old place and after
 * everything before it, so a process killed mid-compaction leaves each
 * live record in its new place or its old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krb5_int.h"
#include "../common/bytes.h"
#include "../common/trace.h"

#define RC_SHARDS_MAX 64
#define RC_MIN_PER_SHARD 16
#define RC_PROBES 64
#define RC_DEFAULT_SKEW 300
/* 20 bytes an entry: 5 GiB of table at most. */
#define RC_MAX_ENTRIES (1u << 28)

#define RC_MAGIC "gk5R"
#define RC_VERSION 1
#define RC_HEADER_BYTES 16
#define RC_RECORD_BYTES 24
#define RC_CHUNK_RECORDS 170 /* records read at once: 4080 bytes of stack */
#define RC_COMPACT_MIN 4096

struct rc_slot {
    uint8_t tag[GK5I_RCACHE_TAG_BYTES];
    uint32_t exp; /* expiry - rc->base; 0: never used */
};

struct rc_shard {
    alignas(64) pthread_mutex_t mu;
    struct rc_slot *slots; /* this shard's region of rc->slots */
    uint32_t n;
};

struct gk5i_rcache {
    struct rc_shard *shards; /* 64-aligned, inside shard_mem */
    void *shard_mem;
    unsigned shard_bits;
    size_t nshards;
    size_t shards_inited; /* mutexes to destroy */
    struct rc_slot *slots;
    size_t max_entries;
    uint32_t skew;
    int64_t base;
    uint64_t k0, k1; /* the hash secret */

    /* Refuse (ctime, cusec) more than RC_GUARD_SLACK before (created,
     * created_usec) until created + skew (see rc_guarded). */
    bool guard;
    int64_t created;
    uint32_t created_usec;

    /* The file (fd -1: memory only).  The rest only under file_mu, which
     * is taken before any shard lock. */
    int fd;
    bool file_mu_inited;
    pthread_mutex_t file_mu;
    uint64_t gen;        /* the file's generation as last read (0: none) */
    uint64_t rd_off;     /* the end of the last record read or written */
    uint64_t compact_at; /* records in the file that start a compaction */
};

enum rc_find { RC_FOUND, RC_FREE, RC_FULL };

/* A 64-bit multiply-xorshift (the splitmix64 finaliser) over the tag
 * xored with the secret: every tag bit reaches the bits that pick the
 * shard and the slot. */
static uint64_t rc_hash(const struct gk5i_rcache *rc, const uint8_t *key)
{
    uint64_t x = load_be64(key) ^ rc->k0;

    x *= 0x9e3779b97f4a7c15u;
    x ^= x >> 32;
    x ^= load_be64(key + 8) ^ rc->k1;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 29;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 32;
    return x;
}

static struct rc_shard *rc_shard_of(const struct gk5i_rcache *rc,
                                    const uint8_t *key, uint32_t *start)
{
    uint64_t h = rc_hash(rc, key);
    struct rc_shard *sh =
        &rc->shards[rc->shard_bits == 0 ? 0 : h >> (64 - rc->shard_bits)];

    /* The low bits for the slot, the high ones chose the shard. */
    *start = (uint32_t)((h & 0xffffffffu) % sh->n);
    return sh;
}

/* The tag's first 16 bytes, zero-padded: MIT keeps as much of its tags
 * (the checksum is at least 12 bytes for every enctype gk5 accepts). */
static void rc_key(uint8_t *kept, const uint8_t *tag, size_t tag_len)
{
    size_t n =
        tag_len < GK5I_RCACHE_TAG_BYTES ? tag_len : GK5I_RCACHE_TAG_BYTES;

    memset(kept, 0, GK5I_RCACHE_TAG_BYTES); /* a short tag's padding */
    memcpy(kept, tag, n);
}

static uint32_t rc_rel(const struct gk5i_rcache *rc, int64_t exp)
{
    /* Rounded up, never down: an entry kept too long costs a slot, one
     * forgotten too early lets a replay through. */
    if (exp <= rc->base) {
        return 1;
    }
    if ((uint64_t)exp - (uint64_t)rc->base >= UINT32_MAX) {
        return UINT32_MAX;
    }
    return (uint32_t)((uint64_t)exp - (uint64_t)rc->base);
}

static bool rc_live(const struct gk5i_rcache *rc, const struct rc_slot *s,
                    int64_t now)
{
    return s->exp != 0 && rc->base + (int64_t)s->exp >= now;
}

/* Under sh->mu.  Plain memcmp: tags cross the wire in the clear, the
 * cache holds nothing secret to time. */
static enum rc_find rc_find(const struct gk5i_rcache *rc, struct rc_shard *sh,
                            uint32_t start, const uint8_t *key, int64_t now,
                            struct rc_slot **free_slot)
{
    uint32_t nprobe = sh->n < RC_PROBES ? sh->n : RC_PROBES;
    uint32_t i = start;
    struct rc_slot *fr = NULL;

    /* The first slot is touched as a write before it is read: the table
     * is calloc'd untouched pages, and a page first read is mapped to the
     * shared zero page, then copied on the insert's write, and that copy
     * flushes the mapping from every CPU that runs one of the process's
     * threads (an interrupt to each, which a hypervisor makes dear).  A
     * write first gets the page at once.  Under the shard's lock; the
     * value is unchanged. */
    (void)__atomic_fetch_or(&sh->slots[i].exp, 0, __ATOMIC_RELAXED);
    for (uint32_t k = 0; k < nprobe; k++) {
        struct rc_slot *s = &sh->slots[i];

        if (s->exp == 0) {
            if (fr == NULL) {
                fr = s;
            }
            break;
        }
        if (!rc_live(rc, s, now)) {
            if (fr == NULL) {
                fr = s;
            }
        } else if (gk5i_equal_ct(s->tag, key, GK5I_RCACHE_TAG_BYTES)) {
            return RC_FOUND;
        }
        if (++i == sh->n) {
            i = 0;
        }
    }
    *free_slot = fr;
    return fr != NULL ? RC_FREE : RC_FULL;
}

/* Stores key until exp unless a live copy is there: GK5_OK,
 * GK5_ERR_AP_REPEAT or GK5_ERR_RCACHE_FULL. */
static uint32_t rc_insert(struct gk5i_rcache *rc, const uint8_t *key,
                          int64_t exp, int64_t now)
{
    uint32_t start;
    struct rc_shard *sh = rc_shard_of(rc, key, &start);
    struct rc_slot *slot = NULL;
    uint32_t ret = GK5_OK;

    pthread_mutex_lock(&sh->mu);
    switch (rc_find(rc, sh, start, key, now, &slot)) {
    case RC_FOUND:
        ret = GK5_ERR_AP_REPEAT;
        break;
    case RC_FULL:
        ret = GK5_ERR_RCACHE_FULL;
        break;
    case RC_FREE:
        memcpy(slot->tag, key, GK5I_RCACHE_TAG_BYTES);
        slot->exp = rc_rel(rc, exp);
        break;
    }
    pthread_mutex_unlock(&sh->mu);
    return ret;
}

/* ---- the file ---- */

static uint32_t rc_io(const char *what, int err)
{
    if (GK5_TRACE_ON()) {
        char buf[128];

        gk5i_trace("rcache: %s%s%s", what, err != 0 ? ": " : "",
                   err != 0 ? strerror_r(err, buf, sizeof(buf)) : "");
    }
    return GK5_ERR_RCACHE_IO;
}

/* F_OFD_SETLKW waits; a signal (EINTR) only makes it wait again. */
static uint32_t rc_lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET};

    while (fcntl(fd, type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW, &fl) != 0) {
        if (errno != EINTR) {
            return rc_io("cannot lock the file", errno);
        }
    }
    return GK5_OK;
}

static bool rc_pread(int fd, void *buf, size_t len, uint64_t off)
{
    uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)off);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO; /* shorter than fstat said */
            }
            return false;
        }
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return true;
}

static bool rc_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return false;
        }
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return true;
}

static void rc_header(uint8_t *out, uint64_t gen)
{
    struct gk5i_wr w;

    gk5i_wr_init(&w, out, RC_HEADER_BYTES);
    gk5i_put_bytes(&w, RC_MAGIC, 4);
    gk5i_put_u32be(&w, RC_VERSION);
    gk5i_put_u64be(&w, gen);
}

/* The header's generation, *gen; GK5_ERR_RCACHE_IO when it is not a gk5
 * replay cache of a version this code reads. */
static uint32_t rc_read_header(int fd, uint64_t *gen)
{
    uint8_t hdr[RC_HEADER_BYTES];
    struct gk5i_rd r;
    const uint8_t *magic;
    uint32_t version;

    if (!rc_pread(fd, hdr, sizeof(hdr), 0)) {
        return rc_io("cannot read the header", errno);
    }
    gk5i_rd_init(&r, hdr, sizeof(hdr));
    magic = gk5i_get_bytes(&r, 4);
    version = gk5i_get_u32be(&r);
    *gen = gk5i_get_u64be(&r);
    /* The file's magic: public bytes, a plain memcmp. */
    if (r.bad || memcmp(magic, RC_MAGIC, 4) != 0) {
        return rc_io("bad magic: not a gk5 replay cache", 0);
    }
    if (version != RC_VERSION) {
        return rc_io("unknown replay cache version", 0);
    }
    return GK5_OK;
}

/* Under file_mu and the file lock: takes in the records appended since
 * rc->rd_off (all of them when the generation moved: a compaction),
 * leaving rc->rd_off at the end of the file.  A trailing partial record is
 * an append a crash cut short: cut it off so the next append lines up.
 * GK5_OK, GK5_ERR_RCACHE_IO, GK5_ERR_RCACHE_FULL (a live record does not
 * fit: rd_off stays before it, and nothing may be stored until it does). */
static uint32_t rc_sync(struct gk5i_rcache *rc, int64_t now)
{
    uint8_t buf[RC_CHUNK_RECORDS * RC_RECORD_BYTES];
    struct stat st;
    uint64_t gen = 0;
    uint64_t end;
    uint32_t ret;

    if (fstat(rc->fd, &st) != 0) {
        return rc_io("cannot stat the file", errno);
    }
    if ((uint64_t)st.st_size < RC_HEADER_BYTES) {
        return rc_io("bad magic: shorter than a replay cache header", 0);
    }
    ret = rc_read_header(rc->fd, &gen);
    if (ret != GK5_OK) {
        return ret;
    }
    end = RC_HEADER_BYTES + ((uint64_t)st.st_size - RC_HEADER_BYTES) /
                                RC_RECORD_BYTES * RC_RECORD_BYTES;
    if (gen != rc->gen || end < rc->rd_off) {
        rc->gen = gen;
        rc->rd_off = RC_HEADER_BYTES;
    }
    while (rc->rd_off < end) {
        uint64_t want = end - rc->rd_off;
        size_t len = want < sizeof(buf) ? (size_t)want : sizeof(buf);
        struct gk5i_rd r;

        if (!rc_pread(rc->fd, buf, len, rc->rd_off)) {
            return rc_io("cannot read the file", errno);
        }
        gk5i_rd_init(&r, buf, len);
        while (gk5i_rd_left(&r) >= RC_RECORD_BYTES) {
            uint8_t key[GK5I_RCACHE_TAG_BYTES];
            int64_t exp;

            gk5i_copy_bytes(&r, key, sizeof(key));
            exp = (int64_t)gk5i_get_u64be(&r);
            if (exp >= now) {
                ret = rc_insert(rc, key, exp, now);
                if (ret == GK5_ERR_RCACHE_FULL) {
                    return ret;
                }
                /* GK5_ERR_AP_REPEAT: held already (read again after a
                 * compaction). */
            }
            rc->rd_off += RC_RECORD_BYTES;
        }
    }
    if ((uint64_t)st.st_size != end) {
        while (ftruncate(rc->fd, (off_t)end) != 0) {
            if (errno != EINTR) {
                return rc_io("cannot cut off a partial record", errno);
            }
        }
    }
    return GK5_OK;
}

/* Under file_mu and the file lock, rc->rd_off at the end of the file: the
 * in-place compaction described at the top.  The caller's store is made
 * already; a failure here loses nothing (each live record is in its old
 * place or its new one) and only makes this cache read the file again. */
static void rc_compact(struct gk5i_rcache *rc, int64_t now)
{
    uint8_t buf[RC_CHUNK_RECORDS * RC_RECORD_BYTES];
    uint8_t hdr[RC_HEADER_BYTES];
    uint64_t records = (rc->rd_off - RC_HEADER_BYTES) / RC_RECORD_BYTES;
    uint64_t rd = RC_HEADER_BYTES, wr = RC_HEADER_BYTES;
    uint64_t kept;

    if (records < rc->compact_at) {
        return;
    }
    rc_header(hdr, rc->gen + 1);
    if (!rc_pwrite(rc->fd, hdr, sizeof(hdr), 0)) {
        goto fail;
    }
    rc->gen++;
    while (rd < rc->rd_off) {
        uint64_t want = rc->rd_off - rd;
        size_t len = want < sizeof(buf) ? (size_t)want : sizeof(buf);
        size_t out = 0;

        if (!rc_pread(rc->fd, buf, len, rd)) {
            goto fail;
        }
        for (size_t at = 0; at + RC_RECORD_BYTES <= len;
             at += RC_RECORD_BYTES) {
            if ((int64_t)load_be64(buf + at + GK5I_RCACHE_TAG_BYTES) >= now) {
                memmove(buf + out, buf + at, RC_RECORD_BYTES);
                out += RC_RECORD_BYTES;
            }
        }
        /* Untouched when nothing moved; otherwise every kept record goes
         * below its old place, the chunk's records in file order. */
        if (out > 0 && (wr != rd || out != len) &&
            !rc_pwrite(rc->fd, buf, out, wr)) {
            goto fail;
        }
        wr += out;
        rd += len;
    }
    if (ftruncate(rc->fd, (off_t)wr) != 0) {
        goto fail;
    }
    rc->rd_off = wr;
    kept = (wr - RC_HEADER_BYTES) / RC_RECORD_BYTES;
    rc->compact_at = kept * 2 > RC_COMPACT_MIN ? kept * 2 : RC_COMPACT_MIN;
    return;

fail:
    (void)rc_io("compaction failed (the file is read again)", errno);
    rc->gen = 0;
    rc->compact_at = records * 2;
}

/* Under file_mu: sync with the file, then store key there and here. */
static uint32_t rc_file_store(struct gk5i_rcache *rc, const uint8_t *key,
                              int64_t exp, int64_t now)
{
    uint8_t rec[RC_RECORD_BYTES];
    struct gk5i_wr w;
    uint32_t start;
    struct rc_shard *sh;
    struct rc_slot *slot = NULL;
    uint32_t ret;

    ret = rc_lock(rc->fd, F_WRLCK);
    if (ret != GK5_OK) {
        return ret;
    }
    ret = rc_sync(rc, now);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    /* file_mu orders every store to the file, so the slot found free is
     * still free after the append. */
    sh = rc_shard_of(rc, key, &start);
    pthread_mutex_lock(&sh->mu);
    switch (rc_find(rc, sh, start, key, now, &slot)) {
    case RC_FOUND:
        ret = GK5_ERR_AP_REPEAT;
        break;
    case RC_FULL:
        ret = GK5_ERR_RCACHE_FULL;
        break;
    case RC_FREE:
        break;
    }
    pthread_mutex_unlock(&sh->mu);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    gk5i_wr_init(&w, rec, sizeof(rec));
    gk5i_put_bytes(&w, key, GK5I_RCACHE_TAG_BYTES);
    gk5i_put_u64be(&w, (uint64_t)exp);
    if (!rc_pwrite(rc->fd, rec, sizeof(rec), rc->rd_off)) {
        ret = rc_io("cannot append to the file", errno);
        /* Whatever part was written is cut off again by the next sync. */
        goto cleanup;
    }
    rc->rd_off += RC_RECORD_BYTES;
    pthread_mutex_lock(&sh->mu);
    memcpy(slot->tag, key, GK5I_RCACHE_TAG_BYTES);
    slot->exp = rc_rel(rc, exp);
    pthread_mutex_unlock(&sh->mu);
    rc_compact(rc, now);

cleanup:
    if (rc_lock(rc->fd, F_UNLCK) != GK5_OK && ret == GK5_OK) {
        /* Stored, but a lock we cannot drop would stall every other
         * process on the file: say so, the AP-REQ is refused. */
        ret = GK5_ERR_RCACHE_IO;
    }
    return ret;
}

/* Opens and reads o->path at creation.  A cache with a file has no
 * restart guard, also when the file is new: the file is what the cache
 * accepted, and a new one means nothing was (a one-shot `gk5 accept`
 * must take an AP-REQ made a moment before its first run). */
static uint32_t rc_open(struct gk5i_rcache *rc, const char *path, int64_t now)
{
    struct stat st;
    uint32_t ret;
    int fd;

    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        return rc_io("cannot open the file", errno);
    }
    if (fd <= STDERR_FILENO) {
        /* A daemon that closed its stdout would print into the cache. */
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        int err = errno;

        close(fd);
        if (hi < 0) {
            return rc_io("cannot move the descriptor", err);
        }
        fd = hi;
    }
    rc->fd = fd;
    if (fstat(fd, &st) != 0) {
        return rc_io("cannot stat the file", errno);
    }
    if (!S_ISREG(st.st_mode)) {
        return rc_io("not a regular file", 0);
    }
    ret = rc_lock(fd, F_WRLCK);
    if (ret != GK5_OK) {
        return ret;
    }
    if (fstat(fd, &st) != 0) {
        ret = rc_io("cannot stat the file", errno);
        goto cleanup;
    }
    if (st.st_size == 0) {
        uint8_t hdr[RC_HEADER_BYTES];

        rc_header(hdr, 1);
        if (!rc_pwrite(fd, hdr, sizeof(hdr), 0)) {
            ret = rc_io("cannot write the header", errno);
            goto cleanup;
        }
    }
    rc->guard = false;
    ret = rc_sync(rc, now);
    if (ret == GK5_ERR_RCACHE_FULL) {
        ret = rc_io("the file holds more live entries than max_entries", 0);
    }

cleanup:
    if (rc_lock(fd, F_UNLCK) != GK5_OK && ret == GK5_OK) {
        ret = GK5_ERR_RCACHE_IO;
    }
    return ret;
}

/* ---- the interface ---- */

uint32_t gk5i_rcache_new(const struct gk5i_rcache_opts *o, time_t now,
                         uint32_t now_usec, struct gk5i_rcache **out)
{
    struct gk5i_rcache *rc = NULL;
    uint8_t secret[16];
    uint32_t ret;

    if (out != NULL) {
        *out = NULL;
    }
    if (o == NULL || out == NULL || o->max_entries > RC_MAX_ENTRIES) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    rc = gk5i_zalloc(sizeof(*rc));
    if (rc == NULL) {
        return GK5_ERR_NOMEM;
    }
    rc->fd = -1;
    rc->skew = o->skew != 0 ? o->skew : RC_DEFAULT_SKEW;
    rc->max_entries =
        o->max_entries != 0 ? o->max_entries : GK5I_RCACHE_DEFAULT_MAX;
    rc->base = (int64_t)now - 1;
    rc->created = now;
    rc->created_usec = now_usec;
    rc->guard = true;
    rc->compact_at = RC_COMPACT_MIN;

    while (rc->shard_bits < 6 &&
           (rc->max_entries >> (rc->shard_bits + 1)) >= RC_MIN_PER_SHARD) {
        rc->shard_bits++;
    }
    rc->nshards = (size_t)1 << rc->shard_bits;
    rc->shard_mem = gk5i_zalloc(rc->nshards * sizeof(struct rc_shard) +
                                alignof(struct rc_shard));
    /* calloc, not gk5i_zalloc (which writes every byte): a large array
     * comes as untouched zero pages, so a server that sees few
     * authenticators does not pay the whole bound in memory (at the
     * default a million slots, 20 MiB). */
    rc->slots = calloc(rc->max_entries, sizeof(struct rc_slot));
    if (rc->shard_mem == NULL || rc->slots == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    rc->shards =
        (struct rc_shard *)(((uintptr_t)rc->shard_mem +
                             alignof(struct rc_shard) - 1) &
                            ~(uintptr_t)(alignof(struct rc_shard) - 1));
    for (size_t i = 0; i < rc->nshards; i++) {
        struct rc_shard *sh = &rc->shards[i];
        size_t lo = i * rc->max_entries >> rc->shard_bits;
        size_t hi = (i + 1) * rc->max_entries >> rc->shard_bits;

        sh->slots = rc->slots + lo;
        sh->n = (uint32_t)(hi - lo);
        if (pthread_mutex_init(&sh->mu, NULL) != 0) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        rc->shards_inited++;
    }
    ret = gk5i_fill_confounder(secret, sizeof(secret), NULL);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    rc->k0 = load_be64(secret);
    rc->k1 = load_be64(secret + 8);
    zap(secret, sizeof(secret));

    if (o->path != NULL) {
        if (pthread_mutex_init(&rc->file_mu, NULL) != 0) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        rc->file_mu_inited = true;
        ret = rc_open(rc, o->path, now);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    *out = rc;
    rc = NULL;
    ret = GK5_OK;

cleanup:
    gk5i_rcache_free(rc);
    return ret;
}

/*
 * The restart guard, RFC 4120 3.2.3: a server that lost its cache cannot
 * tell a replay of an authenticator it accepted before.  The RFC's answer,
 * refusing every authenticator for one skew after a restart, would lock
 * out every client that reconnects at once.  Those that matter are the
 * authenticators made before this cache began: refuse them until they
 * fall outside the skew anyway.  "Before" leaves one second of slack: MIT
 * clients stamp authenticators with the KDC's clock (kdc_timesync), which
 * lags ours by the AS round trip, so a client that connects the moment a
 * server is up would otherwise be refused; the price is that a replay of
 * an authenticator the old process accepted within one second of the new
 * one's start is not caught.  An authenticator stamped later was made
 * after the old process died -- unless the client's clock runs ahead of
 * ours, the residue this trades for availability; a cache with a file,
 * which holds what was accepted, needs no guard.
 */
#define RC_GUARD_SLACK 1 /* seconds */
static bool rc_guarded(const struct gk5i_rcache *rc, int64_t ctime,
                       uint32_t cusec, int64_t now)
{
    int64_t before = rc->created - RC_GUARD_SLACK;

    return rc->guard && now <= rc->created + (int64_t)rc->skew &&
           (ctime < before || (ctime == before && cusec < rc->created_usec));
}

uint32_t gk5i_rcache_check_store(struct gk5i_rcache *rc, const uint8_t *tag,
                                 size_t tag_len, int64_t ctime, uint32_t cusec,
                                 time_t now)
{
    uint8_t key[GK5I_RCACHE_TAG_BYTES];
    int64_t exp;
    uint32_t ret;

    if (rc == NULL || tag == NULL || tag_len == 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (rc_guarded(rc, ctime, cusec, now)) {
        return GK5_ERR_AP_BEFORE_START;
    }
    rc_key(key, tag, tag_len);
    /* Live until ctime + skew.  The acceptor refuses ctime outside now +-
     * skew first; should one come through, a stale one is kept this second
     * and one from the future its whole ctime + skew: cutting that short
     * would let its replay in once our clock reached ctime - skew. */
    exp = ctime > INT64_MAX - (int64_t)rc->skew ? INT64_MAX
                                                : ctime + (int64_t)rc->skew;
    if (exp < (int64_t)now) {
        exp = now;
    }
    if (rc->fd < 0) {
        return rc_insert(rc, key, exp, now);
    }

    /* A repeat known here needs no file lock. */
    {
        uint32_t start;
        struct rc_shard *sh = rc_shard_of(rc, key, &start);
        struct rc_slot *slot = NULL;
        enum rc_find f;

        pthread_mutex_lock(&sh->mu);
        f = rc_find(rc, sh, start, key, now, &slot);
        pthread_mutex_unlock(&sh->mu);
        if (f == RC_FOUND) {
            return GK5_ERR_AP_REPEAT;
        }
    }
    pthread_mutex_lock(&rc->file_mu);
    ret = rc_file_store(rc, key, exp, now);
    pthread_mutex_unlock(&rc->file_mu);
    return ret;
}

size_t gk5i_rcache_count(struct gk5i_rcache *rc, time_t now)
{
    size_t n = 0;

    if (rc == NULL) {
        return 0;
    }
    for (size_t i = 0; i < rc->nshards; i++) {
        struct rc_shard *sh = &rc->shards[i];

        pthread_mutex_lock(&sh->mu);
        for (uint32_t j = 0; j < sh->n; j++) {
            n += rc_live(rc, &sh->slots[j], now);
        }
        pthread_mutex_unlock(&sh->mu);
    }
    return n;
}

void gk5i_rcache_free(struct gk5i_rcache *rc)
{
    if (rc == NULL) {
        return;
    }
    for (size_t i = 0; i < rc->shards_inited; i++) {
        pthread_mutex_destroy(&rc->shards[i].mu);
    }
    if (rc->file_mu_inited) {
        pthread_mutex_destroy(&rc->file_mu);
    }
    if (rc->fd >= 0) {
        close(rc->fd); /* drops the OFD lock, were one held */
    }
    free(rc->slots);
    gk5i_free(rc->shard_mem);
    gk5i_clear_free(rc, sizeof(*rc)); /* the hash secret */
}
