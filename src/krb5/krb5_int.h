/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The Kerberos side of the mechanism: context establishment over the
 * RFC 4120 codec (src/der), the crypto layer and src/mech's contexts.
 *
 * Files and what they own:
 *   keytab.c     MIT keytab files (0x502, 0x501 read-only) read once into
 *                memory; lookups by principal, kvno and enctype
 *   rcache.c     the replay cache (RFC 4120 3.2.3): in memory, bounded,
 *                time-bucketed, sharded; optional file persistence
 *   acceptor.c   gk5_accept(): AP-REQ in, AP-REP or KRB-ERROR out, a
 *                gk5_ctx (RFC 4120 3.2, RFC 4121 4.1, RFC 4537)
 *   acceptor_cred.c  gk5_acceptor_cred_*: the keytab and the replay cache
 *                one credential shares between threads
 */
#ifndef GK5_KRB5_INT_H
#define GK5_KRB5_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <gk5/gk5.h>
#include "../common/util.h"
#include "../crypto/crypto_int.h"
#include "../der/rfc4120.h"

/* ---- keytab.c ----
 * MIT's keytab file format (krb5/krb5 doc/formats/keytab_file_format.rst):
 * 0x05 0x02 (big-endian integers) or 0x05 0x01 (host byte order: read
 * only), then entries, each a signed 32-bit length (negative: a hole left
 * by a deleted entry, skipped) and the entry: component count (16 bits;
 * 0x501 counts the realm too), realm, components (16-bit length + bytes
 * each), name type (32 bits, absent in 0x501), timestamp (32), 8-bit
 * kvno, keyblock (16-bit enctype, 16-bit length, key), and when the
 * entry's length leaves room, a 32-bit kvno that replaces the 8-bit one
 * unless it is 0.
 *
 * Entries whose enctype gk5 will not use (rc4, DES, des3 when not built,
 * unknown numbers) are skipped with a GK5_TRACE line and never kept; keys
 * whose length is not the enctype's are refused (GK5_ERR_KEYTAB_FORMAT). */
struct gk5i_kt_entry {
    /* The principal: realm and components point into names[]. */
    struct gk5i_view realm;
    uint32_t ncomp;
    struct gk5i_view comp[GK5I_KRB_MAX_COMPONENTS];
    int32_t name_type;
    uint32_t timestamp;
    uint32_t kvno; /* the 32-bit kvno when present, else the 8-bit one */
    const struct gk5_enctype *et;
    uint8_t key[GK5_MAX_KEY_BYTES];
    size_t key_len;
    /* The key's derived subkeys for key usage 2 (RFC 4120 7.5.1: the
     * ticket's enc-part), made once when the keytab is read. */
    struct gk5i_subkeys tkt_sk;
};

struct gk5i_keytab {
    size_t n;
    struct gk5i_kt_entry *entries; /* n entries, in file order */
    uint8_t *names;                /* the principals' bytes */
    size_t names_len;
};

/* Parse a whole keytab file's bytes (in need not stay alive: names are
 * copied).  GK5_OK (also with no usable entry: n == 0),
 * GK5_ERR_KEYTAB_FORMAT, GK5_ERR_NOMEM, GK5_ERR_CRYPTO_BACKEND. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_keytab_parse(const uint8_t *in, size_t len,
                                             struct gk5i_keytab **out);
/* Read path (at most 64 MiB) and parse it; *mtime set to the file's
 * modification time (for gk5i_keytab_changed).  GK5_ERR_KEYTAB_READ when
 * it cannot be opened or read; otherwise as gk5i_keytab_parse. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_keytab_load(const char *path,
                                            struct gk5i_keytab **out,
                                            struct timespec *mtime);
/* Whether path's modification time (or existence) differs from mtime. */
GK5_HIDDEN bool gk5i_keytab_changed(const char *path,
                                    const struct timespec *mtime);
/* Wipes every key. NULL is fine. */
GK5_HIDDEN void gk5i_keytab_free(struct gk5i_keytab *kt);

/* The key for a ticket: entries of the principal realm/sname (name type
 * ignored, as MIT does), with the ticket's enctype, and, when has_kvno,
 * that kvno (compared in 8 bits when the entry has only an 8-bit kvno, as
 * MIT does: an 8-bit kvno wraps); without has_kvno the highest kvno.
 * Returns the entry, or NULL with *err = GK5_ERR_AP_WRONG_PRINC (no entry
 * of the principal), GK5_ERR_AP_BADKEYVER (of the principal and enctype,
 * none of that kvno), GK5_ERR_AP_NOKEY (of the principal, none of that
 * enctype). */
GK5_HIDDEN const struct gk5i_kt_entry *
gk5i_keytab_find(const struct gk5i_keytab *kt, struct gk5i_view realm,
                 const struct gk5i_krb_principal *sname, bool has_kvno,
                 uint32_t kvno, int32_t enctype, uint32_t *err);
/* Whether the keytab has at least one entry of the principal (for
 * restricting a credential to one principal at creation). */
GK5_HIDDEN bool gk5i_keytab_has_principal(const struct gk5i_keytab *kt,
                                          struct gk5i_view realm,
                                          const struct gk5i_krb_principal *p);

/* ---- rcache.c ----
 * RFC 4120 3.2.3 replay detection, keyed as MIT keys its own: by the
 * authenticator ciphertext's trailing checksum bytes (the tag: no decoding
 * needed, and unforgeable without the session key).  Entries live until
 * the authenticator's ctime + skew, in buckets of one second over a ring
 * of 2 * skew + 1 seconds; the table is bounded (max_entries) and split
 * into shards, each with its own lock.  When the shard a tag falls in is
 * full of live entries, the AP-REQ is refused (GK5_ERR_RCACHE_FULL),
 * never a live entry forgotten.
 *
 * Persistence (path not NULL): every stored entry is appended to the file
 * (16 tag bytes and an 8-byte expiry), under an OFD lock, and the file's
 * unexpired entries are read when the cache is made, so a restarted
 * process refuses what it accepted before.  Without a file, a fresh cache
 * refuses, for one skew after it was made, authenticators whose ctime is
 * before that moment (docs/design.md, "The replay cache"). */
struct gk5i_rcache_opts {
    uint32_t skew;      /* seconds; 0: 300 */
    size_t max_entries; /* 0: GK5I_RCACHE_DEFAULT_MAX */
    const char *path;   /* NULL: memory only */
};
#define GK5I_RCACHE_DEFAULT_MAX (1u << 20)
#define GK5I_RCACHE_TAG_BYTES 16 /* bytes kept of a tag (shorter: padded) */

struct gk5i_rcache;
/* GK5_OK, GK5_ERR_NOMEM, GK5_ERR_RCACHE_IO (the file cannot be opened,
 * locked or read), GK5_ERR_INVALID_ARGUMENT. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_rcache_new(const struct gk5i_rcache_opts *o,
                                           time_t now,
                                           struct gk5i_rcache **out);
/* Check tag and, if new, store it until ctime + skew.  Call only after the
 * authenticator passed its integrity check.  GK5_OK (stored),
 * GK5_ERR_AP_REPEAT (seen, or from before a memory-only cache began),
 * GK5_ERR_RCACHE_FULL, GK5_ERR_RCACHE_IO (the append failed: not stored,
 * and the AP-REQ is to be refused). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_rcache_check_store(struct gk5i_rcache *rc,
                                                   const uint8_t *tag,
                                                   size_t tag_len,
                                                   int64_t ctime, time_t now);
/* How many live entries (for tests and traces). */
GK5_HIDDEN size_t gk5i_rcache_count(struct gk5i_rcache *rc, time_t now);
GK5_HIDDEN void gk5i_rcache_free(struct gk5i_rcache *rc);

#endif /* GK5_KRB5_INT_H */
