/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The Kerberos side of the mechanism: context establishment over the
 * RFC 4120 codec (src/der), the crypto layer and src/mech's contexts.
 *
 * Files and what they own:
 *   principal.c  principal names as strings (parse, unparse, compare)
 *   keytab.c     MIT keytab files (0x502, 0x501 read-only) parsed into
 *                memory; lookups by principal, kvno and enctype
 *   keytab_file.c  keytab files read from disk, and changes to them
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
#include <sys/types.h>
#include <time.h>

#include <pthread.h>
#include <stdatomic.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#include "../common/util.h"
#include "../crypto/crypto_int.h"
#include "../der/rfc4120.h"

/* ---- principal.c ----
 * Principal names as strings, MIT's way: components joined by '/', the
 * realm after '@', and '/', '@', '\\' and the control characters \n \t
 * \b and NUL inside a component or realm written with a backslash. */
struct gk5i_name {
    bool any_realm; /* "service@host" and "a/b" (no realm): any realm */
    struct gk5i_view realm;
    uint32_t ncomp;
    struct gk5i_view comp[GK5I_KRB_MAX_COMPONENTS];
    uint8_t *buf; /* owns the bytes realm and comp[] point into */
};
/* Parse "service@host" (GSS host-based: components service and host, any
 * realm), "a/b@REALM" or "a/b" (any realm); with gss_hostbased true the
 * first form is taken, else the krb5 form.  GK5_OK, GK5_ERR_INVALID_
 * ARGUMENT (empty, a trailing backslash, an empty component, too many
 * components), GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_name_parse(const char *s, bool gss_hostbased,
                                            struct gk5i_name *out);
GK5_HIDDEN void gk5i_name_free(struct gk5i_name *n);
/* Whether realm/p is the name (byte for byte; the name type ignored). */
GK5_HIDDEN bool gk5i_name_matches(const struct gk5i_name *n,
                                  struct gk5i_view realm,
                                  const struct gk5i_krb_principal *p);
/* Whether two principals are the same (realms and components byte for
 * byte; name types ignored, as RFC 4120 6.2 allows and MIT does). */
GK5_HIDDEN bool gk5i_principal_equal(struct gk5i_view ra,
                                     const struct gk5i_krb_principal *a,
                                     struct gk5i_view rb,
                                     const struct gk5i_krb_principal *b);
/* "a/b@REALM" in a malloc'd string (free()).  GK5_OK, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_principal_unparse(
    struct gk5i_view realm, const struct gk5i_krb_principal *p, char **out);

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
    bool kvno8;    /* only the 8-bit kvno came (no 32-bit one, or 0): a
                      ticket's kvno is compared with it in 8 bits */
    const struct gk5_enctype *et;
    uint8_t key[GK5_MAX_KEY_BYTES];
    size_t key_len;
    /* The key's derived subkeys for key usage 2 (RFC 4120 7.5.1: the
     * ticket's enc-part), made once when the keytab is read. */
    struct gk5i_subkeys tkt_sk;
};

/* The largest keytab file read (a few hundred keys take some KiB). */
#define GK5I_KEYTAB_MAX_BYTES (64u * 1024u * 1024u)

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
/* What says a keytab file changed: its modification time, size and
 * identity. */
struct gk5i_kt_stamp {
    struct timespec mtime;
    off_t size;
    ino_t ino;
    dev_t dev;
};
/* Read path (at most 64 MiB) and parse it; *stamp set from the file (for
 * gk5i_keytab_changed).  GK5_ERR_KEYTAB_READ when it cannot be opened or
 * read; otherwise as gk5i_keytab_parse. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_keytab_load(const char *path,
                                             struct gk5i_keytab **out,
                                             struct gk5i_kt_stamp *stamp);
/* Whether path's modification time, size or identity differs from stamp
 * (a missing file counts as changed). */
GK5_HIDDEN bool gk5i_keytab_changed(const char *path,
                                    const struct gk5i_kt_stamp *stamp);
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
 * refuses, for one skew after it was made, authenticators stamped more
 * than a second before that moment (docs/design.md, "The replay cache"). */
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
                                            time_t now, uint32_t now_usec,
                                            struct gk5i_rcache **out);
/* Check tag and, if new, store it until ctime + skew.  Call only after the
 * authenticator passed its integrity check.  GK5_OK (stored),
 * GK5_ERR_AP_REPEAT (seen), GK5_ERR_AP_BEFORE_START (a memory-only cache:
 * ctime and cusec more than a second before the moment it was made, within
 * one skew of it), GK5_ERR_RCACHE_FULL, GK5_ERR_RCACHE_IO (the append failed:
 * not stored, and the AP-REQ is to be refused), GK5_ERR_INVALID_ARGUMENT. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_rcache_check_store(struct gk5i_rcache *rc,
                                                    const uint8_t *tag,
                                                    size_t tag_len,
                                                    int64_t ctime,
                                                    uint32_t cusec, time_t now);
/* How many live entries (for tests and traces). */
GK5_HIDDEN size_t gk5i_rcache_count(struct gk5i_rcache *rc, time_t now);
GK5_HIDDEN void gk5i_rcache_free(struct gk5i_rcache *rc);

/* ---- acceptor_cred.c ---- */
struct gk5_acceptor_cred {
    char *kt_path; /* the keytab file */
    bool has_name; /* accept tickets for name only */
    struct gk5i_name name;
    uint32_t skew;            /* seconds */
    pthread_rwlock_t kt_lock; /* kt and kt_stamp; written to reload */
    struct gk5i_keytab *kt;
    struct gk5i_kt_stamp kt_stamp;
    _Atomic int64_t kt_checked; /* when the file was last looked at */
    struct gk5i_rcache *rc;     /* NULL: no replay cache */
};
/* How often (seconds) a credential looks at its keytab file's mtime when
 * every ticket finds its key; a ticket that finds none looks at once. */
#define GK5I_KEYTAB_RECHECK 10
/* The prepared usage-2 key of the keytab entry for a ticket (see
 * gk5i_keytab_find), for the calling thread alone (gk5i_ukey_free it).
 * Looks at the keytab file again, and reads it if it changed, when no key
 * is found or GK5I_KEYTAB_RECHECK seconds have passed.  Errors as
 * gk5i_keytab_find, GK5_ERR_AP_WRONG_PRINC for a service other than the
 * credential's name, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cred_ticket_key(
    gk5_acceptor_cred *cred, struct gk5i_view realm,
    const struct gk5i_krb_principal *sname, bool has_kvno, uint32_t kvno,
    int32_t enctype, int64_t now, gk5_ukey **uk);

/* ---- acceptor.c ---- */
/* gk5_accept at a given time (a test seam: tickets from fixed vectors);
 * now_usec 0..999999. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_accept_at(uint32_t *minor, gk5_acceptor_cred *cred, const gk5_buffer *in,
               const gk5_channel_bindings *cb, gk5_buffer *out, gk5_ctx **ctx,
               gk5_accept_info *info, int64_t now, uint32_t now_usec);

#endif /* GK5_KRB5_INT_H */
