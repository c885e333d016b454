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
 *   file_read.c  a locked file's bytes into memory (keytab and ccache)
 *   enc_data.c   an EncryptedData's cipher sealed and opened in place
 *   rcache.c     the replay cache (RFC 4120 3.2.3): in memory, bounded,
 *                time-bucketed, sharded; optional file persistence
 *   acceptor.c   gk5_accept(): AP-REQ in, AP-REP or KRB-ERROR out, a
 *                gk5_ctx (RFC 4120 3.2, RFC 4121 4.1, RFC 4537)
 *   acceptor_cred.c  gk5_acceptor_cred_*: the keytab and the replay cache
 *                one credential shares between threads
 *   pac.c        the Windows PAC in a ticket, read as MIT's acceptor
 *                reads it, for natively accepted names (pac.h)
 *   profile.c    krb5.conf text (MIT's profile syntax) and lookups
 *   profile_file.c  krb5.conf files: the colon list, include, includedir
 *   config.c     what the KDC client reads from them ([libdefaults],
 *                [realms]), enctype lists filtered through the table
 *   config_cache.c  the last configuration loaded, kept while its files
 *                stay as they were
 *   ccache.c     MIT's FILE credential cache format (version 4 written,
 *                3 and 4 read): bytes in, bytes out
 *   ccache_file.c  ccache files and names: read, replaced, appended to,
 *                destroyed, locked as MIT locks them
 *   kdc_send.c   the KDC transport: UDP and TCP, each KDC in turn, bounded
 *   kdc_client.c the AS and TGS exchanges (RFC 4120 3.1, 3.3), the
 *                credentials they return, a service ticket from the cache
 *   kdc_request.c  the AS-REQ and TGS-REQ: the client's key,
 *                PA-ENC-TIMESTAMP, PA-TGS-REQ and its subkey
 *   kdc_reply.c  an AS-REP or TGS-REP opened and checked whole
 *   kdc_error.c  KRB-ERRORs into words (gk5_krb_last_error), and what
 *                this thread noted of the last one
 *   kdc_int.h    what the kdc_*.c rooms share among themselves
 *   initiator.c  gk5_initiator_*: making one (from a ticket, or from the
 *                cache and the KDC), its steps, its gk5_ctx handed over
 *   initiator_ap_req.c  the first leg: the authenticator, the AP-REQ
 *                (RFC 4121 4.1, RFC 4537)
 *   initiator_ap_rep.c  the second leg: the acceptor's AP-REP or
 *                KRB-ERROR, the context
 *   initiator_state.c  the pending state as bytes (gk5_initiator_save,
 *                gk5_initiator_load)
 *   initiator_int.h  the initiator and what its rooms share
 *   tickets.c    gk5/tickets.h: kinit, kvno, klist and kdestroy as calls
 */
#ifndef GK5_KRB5_INT_H
#define GK5_KRB5_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <pthread.h>
#include <stdatomic.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#include "../common/util.h"
#include "../crypto/crypto_int.h"
#include "../der/rfc4120.h"

/* ---- enc_data.c ----
 * The cipher of an RFC 4120 EncryptedData (RFC 3961 5.3). */
/* Its size for plen bytes of plaintext. */
GK5_HIDDEN size_t gk5i_enc_data_size(const struct gk5_enctype *et, size_t plen);
/* Seals buf (gk5i_enc_data_size(et, plen) bytes, the plaintext at
 * buf + et->conf_bytes) in place under uk: confounder, padding and
 * checksum filled in. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_enc_data_seal(gk5_ukey *uk,
                                               const struct gk5_enctype *et,
                                               uint8_t *buf, size_t plen);
/* Opens cipher under uk into buf (cipher.len bytes): the plaintext at its
 * front, *plen long, DES3's zero padding cut where the DER value ends.
 * GK5_ERR_INTEGRITY when the cipher is too short or does not verify (the
 * caller names it for its message); GK5_ERR_DER when DES3's padding is
 * not zeros after a DER value. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_enc_data_open(gk5_ukey *uk,
                                               const struct gk5_enctype *et,
                                               struct gk5i_view cipher,
                                               uint8_t *buf, size_t *plen);

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
/* The bytes of p's components together (at most GK5I_KRB_MAX_COMPONENTS
 * of them counted). */
GK5_HIDDEN size_t gk5i_principal_bytes(const struct gk5i_krb_principal *p);
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
     * ticket's enc-part) and 17 (a PAC's server signature, src/krb5/pac.h),
     * made once when the keytab is read. */
    struct gk5i_subkeys tkt_sk;
    struct gk5i_subkeys pac_sk;
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
/* Up to size bytes (the size fstat gave) of the open, locked fd into a new
 * zeroed buffer of max(size, 1) bytes, *got those read (fewer when the
 * file was cut since).  GK5_OK; GK5_ERR_NOMEM; read_err when read fails
 * (*buf NULL).  The caller frees with gk5i_clear_free(*buf, max(size, 1)):
 * key files. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_read_locked(int fd, size_t size,
                                             uint32_t read_err, uint8_t **buf,
                                             size_t *got);
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
 * gk5i_keytab_find), for the calling thread alone (gk5i_ukey_free it);
 * the entry's usage 17 subkeys (a PAC's signature) into pac_sk when not
 * NULL (the caller wipes them).
 * Looks at the keytab file again, and reads it if it changed, when no key
 * is found or GK5I_KEYTAB_RECHECK seconds have passed.  Errors as
 * gk5i_keytab_find, GK5_ERR_AP_WRONG_PRINC for a service other than the
 * credential's name, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_cred_ticket_key(
    gk5_acceptor_cred *cred, struct gk5i_view realm,
    const struct gk5i_krb_principal *sname, bool has_kvno, uint32_t kvno,
    int32_t enctype, int64_t now, gk5_ukey **uk, struct gk5i_subkeys *pac_sk);

/* ---- acceptor.c ---- */
/* RFC 4121 4.1.1.2: the MD5 of the channel bindings (integers
 * little-endian), as both ends put it in the 0x8003 checksum; all zeros
 * without bindings (cb NULL). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_bindings_md5(const gk5_channel_bindings *cb,
                                              uint8_t out[16]);
/* gk5_accept at a given time (a test seam: tickets from fixed vectors);
 * now_usec 0..999999. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_accept_at(uint32_t *minor, gk5_acceptor_cred *cred, const gk5_buffer *in,
               const gk5_channel_bindings *cb, gk5_buffer *out, gk5_ctx **ctx,
               gk5_accept_info *info, int64_t now, uint32_t now_usec);
/* What gk5i_accept_more tells beyond gk5_accept_info, for a caller that
 * hands some contexts to another acceptor (gk5_mech.so falls back to
 * MIT's) and names initiators as that acceptor would (src/krb5/pac.h). */
enum gk5i_pac_verdict {
    GK5I_PAC_NONE,       /* the ticket carries no PAC */
    GK5I_PAC_MALFORMED,  /* authorization data for MIT's acceptor to
                            judge: a PAC it refuses the AP-REQ for, several
                            PACs, containers nested past gk5's depth */
    GK5I_PAC_UNVERIFIED, /* listed by MIT, but without values */
    GK5I_PAC_VERIFIED,   /* signed with the ticket key, names the client */
};
struct gk5i_accept_more {
    /* The initiator's 0x8003 checksum carried a delegated credential (a
     * KRB-CRED), which gk5 skips and does not report in gss_flags. */
    bool deleg_offered;
    /* An AD-CAMMAC in the ticket's authorization data (MIT names its
     * auth indicators; gk5 does not read them). */
    bool cammac;
    enum gk5i_pac_verdict pac;
    /* The PAC's bytes within info->authorization_data. */
    size_t pac_offset, pac_len;
};
/* gk5_accept, and on success *more.  The AP-REQ is in the replay cache
 * by then. */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_accept_more(uint32_t *minor, gk5_acceptor_cred *cred, const gk5_buffer *in,
                 const gk5_channel_bindings *cb, gk5_buffer *out, gk5_ctx **ctx,
                 gk5_accept_info *info, struct gk5i_accept_more *more);

/* ==== the initiator and KDC client ==== */

/* ---- profile.c ----
 * krb5.conf as MIT reads it (krb5/krb5 doc/admin/conf_files/krb5_conf):
 * "[section]" headers; "name = value" relations; "name = {" opens a
 * subsection closed by "}"; '#' and ';' begin comment lines; a '*' right
 * after a name or a closing brace marks it final (later files' values of
 * it are ignored); "include FILE" and "includedir DIR" (files in DIR whose
 * names are only [A-Za-z0-9_-] or end in ".conf", in name order) at the
 * start of a line, outside any section too; a value is the rest of the
 * line, trimmed, its surrounding double quotes removed (MIT's escapes \n
 * \t \b \\ \" inside).  Limits: 1 MiB per file, 64 files, 8 levels of
 * include, 16 levels of braces; past one: GK5_ERR_CONFIG.
 *
 * paths: a colon-separated list of files, as KRB5_CONFIG is; files that do
 * not exist are skipped (MIT does the same), one that exists but cannot be
 * read or parsed is an error (GK5_ERR_CONFIG, err says "FILE:LINE: what").
 * Values keep file order: a lookup returns the first file's first. */
struct gk5i_profile;
GK5_HIDDEN GK5_WUR uint32_t gk5i_profile_load(const char *paths,
                                              struct gk5i_profile **out,
                                              char *err, size_t err_len);
/* One file's text (name for messages and for resolving relative includes;
 * includes are refused when name is NULL). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_profile_parse(const char *text, size_t len,
                                               const char *name,
                                               struct gk5i_profile **out,
                                               char *err, size_t err_len);
/* The values of a relation at path (names from the section down, NULL-
 * terminated: {"realms", "EX.COM", "kdc", NULL}), in order, at most max
 * into vals (pointers into p); returns how many there are in all.  Names
 * compare exactly (MIT's are case-sensitive). */
GK5_HIDDEN size_t gk5i_profile_values(const struct gk5i_profile *p,
                                      const char *const *path,
                                      const char **vals, size_t max);
/* The first value at path, or NULL. */
GK5_HIDDEN const char *gk5i_profile_get(const struct gk5i_profile *p,
                                        const char *const *path);
/* The names of the subsections and relations directly under path (e.g.
 * the realms of {"realms", NULL}; the sections of {NULL}), in order,
 * duplicates once; as above (0 also when memory runs out, with a trace
 * line). */
GK5_HIDDEN size_t gk5i_profile_names(const struct gk5i_profile *p,
                                     const char *const *path,
                                     const char **names, size_t max);
/* Profiles are counted: gk5i_profile_ref adds a holder, gk5i_profile_free
 * drops one and frees with the last.  A loaded profile is never changed,
 * so holders in several threads may look it up at once. */
GK5_HIDDEN struct gk5i_profile *gk5i_profile_ref(struct gk5i_profile *p);
GK5_HIDDEN void gk5i_profile_free(struct gk5i_profile *p);

/* ---- config_cache.c ----
 * What a load read (every file and includedir folder, and the files of the
 * list that were missing), so that a later load can tell by stat alone
 * that nothing changed: each path's device, inode, size, modification and
 * change times, or its absence. */
struct gk5i_watch_entry {
    char *path;
    bool present;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtim, ctim;
};
struct gk5i_watch {
    struct gk5i_watch_entry *e;
    size_t n, cap;
    bool failed; /* a note could not be kept: not to be trusted */
};
/* Note path as st says it is (NULL: absent). */
GK5_HIDDEN void gk5i_watch_note(struct gk5i_watch *w, const char *path,
                                const struct stat *st);
GK5_HIDDEN void gk5i_watch_clear(struct gk5i_watch *w);
/* gk5i_profile_load, noting what it read into w. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_profile_load_watched(const char *paths,
                                                      struct gk5i_watch *w,
                                                      struct gk5i_profile **out,
                                                      char *err,
                                                      size_t err_len);
/* The last configuration loaded (config.c) is kept with its watch list.
 * gk5i_config_cached gives a copy of it for the same paths when every
 * path is as it was (one stat each) and NULL otherwise;
 * gk5i_config_keep keeps c (a copy of it) for paths when every file it
 * read had last changed at least the margin (default 1 s) before the load
 * began at t0: file times are coarse (a clock tick), so a file changed
 * again within the same tick would keep its times, and only a file older
 * than any tick is known by them.  Takes w's notes in either case. */
struct gk5i_krb5_config;
GK5_HIDDEN struct gk5i_krb5_config *gk5i_config_cached(const char *paths);
GK5_HIDDEN void gk5i_config_keep(const char *paths,
                                 const struct gk5i_krb5_config *c,
                                 struct gk5i_watch *w,
                                 const struct timespec *t0);
/* A copy of c (sharing its profile); NULL without memory (config.c). */
GK5_HIDDEN struct gk5i_krb5_config *
gk5i_config_copy(const struct gk5i_krb5_config *c);
/* Tests: the margin, and how many loads were answered from the copy kept
 * and how many read the files. */
GK5_HIDDEN void gk5i_config_cache_margin_ms(unsigned ms);
GK5_HIDDEN void gk5i_config_cache_counts(unsigned long *hits,
                                         unsigned long *misses);

/* ---- config.c ---- */
#define GK5I_MAX_KDCS 8
struct gk5i_kdc_addr {
    char host[256]; /* a name or an address (IPv6 without brackets) */
    uint16_t port;  /* 88 unless "host:port" said otherwise */
};
struct gk5i_krb5_config {
    struct gk5i_profile *prof;
    char *default_realm; /* NULL when there is none */
    uint32_t clockskew;  /* seconds; MIT's default 300 */
    /* Enctype lists, filtered through the enctype table (rc4, DES, des3
     * in builds without it and unknown names dropped with a GK5_TRACE
     * line); defaults: gk5's usable enctypes, strongest first as MIT
     * orders its own (aes256-sha1, aes128-sha1, aes256-sha2, aes128-sha2,
     * camellia256, camellia128, des3 when built). */
    size_t n_tkt, n_tgs, n_permitted;
    int32_t tkt_enctypes[GK5I_KRB_MAX_ETYPES];
    int32_t tgs_enctypes[GK5I_KRB_MAX_ETYPES];
    int32_t permitted_enctypes[GK5I_KRB_MAX_ETYPES];
    uint32_t udp_preference_limit; /* bytes; MIT's default 1465 */
    uint32_t ticket_lifetime;      /* seconds; default 86400 */
    uint32_t renew_lifetime;       /* seconds; default 0 */
    bool forwardable;
    uint32_t request_timeout_ms; /* the whole exchange; default 10000 */
};
/* Load the configuration from paths (NULL: $KRB5_CONFIG, else
 * /etc/krb5.conf).  dns_lookup_kdc/dns_lookup_realm true is noted with a
 * trace line (only krb5.conf's kdc lines are used).  GK5_OK,
 * GK5_ERR_CONFIG (err says where), GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_config_load(const char *paths,
                                             struct gk5i_krb5_config **out,
                                             char *err, size_t err_len);
GK5_HIDDEN void gk5i_config_free(struct gk5i_krb5_config *c);
/* The KDCs of realm (NULL: default_realm) from [realms] REALM kdc =
 * host[:port] (also "[v6addr]:port", a bare IPv6 address, MIT's "tcp/"
 * and "udp/" prefixes, ignored), in order, the first max; HTTPS proxies
 * (MS-KKDCP) skipped with a trace line.  GK5_OK, GK5_ERR_CONFIG_NO_KDC
 * (none), GK5_ERR_CONFIG_REALM (realm NULL and no default_realm),
 * GK5_ERR_CONFIG (a kdc line that does not parse; a trace line says
 * which). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_config_kdcs(const struct gk5i_krb5_config *c,
                                             const char *realm,
                                             struct gk5i_kdc_addr *out,
                                             size_t max, size_t *n);
/* An MIT enctype list ("aes256-cts-hmac-sha1-96 aes128-cts", numbers,
 * the families "aes", "aes-sha1", "aes-sha2", "camellia", "des3", "rc4",
 * "des", the word "DEFAULT" for dflt, a leading '-' removing ('+'
 * adding), separated by spaces or commas; names in any case) into out, in
 * order, duplicates once, filtered as above, at most max (the rest
 * dropped with a trace line).  An empty result is GK5_ERR_CONFIG. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_config_enctypes(const char *s,
                                                 const int32_t *dflt,
                                                 size_t n_dflt, int32_t *out,
                                                 size_t max, size_t *n);

/* Whether e is one of list[0..n). */
GK5_HIDDEN bool gk5i_enctype_listed(const int32_t *list, size_t n, int32_t e);

/* ---- ccache.c ----
 * MIT's FILE credential cache (krb5/krb5 doc/formats/ccache_file_format):
 * version 4 (0x0504, big-endian, header tags: the KDC time offset) is
 * written; 3 and 4 are read.  A principal is a name type, a component
 * count, the realm and the components (32-bit lengths); a credential the
 * client and server principals, the keyblock (16-bit enctype, key), four
 * 32-bit times, is_skey, the 32-bit ticket flags, addresses, authdata,
 * the ticket and the second ticket.  Configuration entries (a server
 * principal in realm "X-CACHECONF:") are kept and rewritten as they are.
 *
 * Locking as MIT's: a whole-file fcntl read lock (OFD where the kernel has
 * it, as MIT's does) while reading, a write lock while writing.  Limits:
 * 16 MiB per file, 4096 credentials, GK5I_KRB_MAX_COMPONENTS components
 * per principal, keys of at most GK5_MAX_KEY_BYTES; past one, and for
 * versions 1 and 2, GK5_ERR_CCACHE_FORMAT. */
struct gk5i_cc_cred {
    struct gk5i_view client_realm;
    struct gk5i_krb_principal client;
    struct gk5i_view server_realm;
    struct gk5i_krb_principal server;
    int32_t keytype;
    uint8_t key[GK5_MAX_KEY_BYTES]; /* wiped with the cache */
    size_t key_len;
    uint32_t authtime, starttime, endtime, renew_till; /* 32-bit unsigned */
    bool is_skey;
    uint32_t flags; /* GK5I_TKT_FLG_* */
    /* As in the file: count + (16-bit type, 32-bit length, bytes) each;
     * to write, len 0 is written as a count of 0. */
    struct gk5i_view addrs;
    struct gk5i_view authdata;
    struct gk5i_view ticket; /* the Ticket's DER */
    struct gk5i_view second_ticket;
    bool config; /* a configuration entry (server realm X-CACHECONF:) */
};
#define GK5I_CCACHE_MAX_BYTES (16u * 1024u * 1024u)
#define GK5I_CCACHE_MAX_CREDS 4096u
struct gk5i_ccache {
    uint16_t version; /* 0x0503 or 0x0504, as the file's first two bytes */
    bool has_time_offset;
    int32_t time_offset_sec, time_offset_usec;
    struct gk5i_view realm; /* the default principal's */
    struct gk5i_krb_principal principal;
    size_t n;
    struct gk5i_cc_cred *creds; /* n, in file order; views into buf */
    uint8_t *buf;               /* owns the bytes */
    size_t len;
};
/* The path of a ccache name: "FILE:path" or a name without a type prefix
 * is a FILE path; NULL: $KRB5CCNAME, else "/tmp/krb5cc_<uid>" (MIT's
 * default).  Other types (KEYRING:, KCM:, DIR:, MEMORY:, API:, MSLSA:)
 * are GK5_ERR_CCACHE_TYPE, with the type named in a trace line.  *path
 * malloc'd (free()).  An empty path is GK5_ERR_INVALID_ARGUMENT. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_resolve(const char *name, char **path);
/* Parse a whole file's bytes (copied; every view of *out lies inside
 * (*out)->buf).  GK5_OK, GK5_ERR_CCACHE_FORMAT, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_parse(const uint8_t *in, size_t len,
                                              struct gk5i_ccache **out);
/* The same for bytes already in gk5i_zalloc'd memory (buf, len), which
 * become the cache's, or are wiped and freed on an error. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_take(uint8_t *buf, size_t len,
                                             struct gk5i_ccache **out);
/* Whether a credential can be written: its principals, key, lists and
 * views within the format's limits. */
GK5_HIDDEN bool gk5i_ccache_cred_ok(const struct gk5i_cc_cred *c);
/* The bytes of a version-4 cache of the principal and creds (what
 * gk5i_ccache_write writes), and of one credential in the file version
 * vno (what gk5i_ccache_append writes: GK5_ERR_CCACHE_FORMAT when vno is
 * neither 0x0503 nor 0x0504), in *out as gk5i_ccache_serialize's. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_serialize_new(
    struct gk5i_view realm, const struct gk5i_krb_principal *p,
    const struct gk5i_cc_cred *creds, size_t n, uint8_t **out, size_t *out_len);
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_serialize_cred(
    uint16_t vno, const struct gk5i_cc_cred *c, uint8_t **out, size_t *out_len);
/* Read path under a read lock.  GK5_ERR_CCACHE_NOT_FOUND (no such file),
 * GK5_ERR_CCACHE_READ, else as gk5i_ccache_parse. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_read(const char *path,
                                             struct gk5i_ccache **out);
/* Replace path by a version-4 cache of the principal and creds (n may be
 * 0), mode 0600, written whole to a temporary file in the same directory
 * under a write lock and renamed over path (a reader sees the old cache
 * or the new, never half of one).  GK5_OK, GK5_ERR_CCACHE_WRITE,
 * GK5_ERR_NOMEM, GK5_ERR_INVALID_ARGUMENT (past a limit, an addrs or
 * authdata view that is not one whole list). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_ccache_write(const char *path, struct gk5i_view realm,
                  const struct gk5i_krb_principal *p,
                  const struct gk5i_cc_cred *creds, size_t n);
/* The same for a whole cache (its version, 3 or 4, and its time offset
 * kept; buf and len unused): a cache read, changed and written back. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_store(const char *path,
                                              const struct gk5i_ccache *cc);
/* The file's bytes for cc, as gk5i_ccache_store writes them, in *out
 * (keys inside: gk5i_clear_free(*out, *out_len)).  GK5_OK,
 * GK5_ERR_INVALID_ARGUMENT, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_serialize(const struct gk5i_ccache *cc,
                                                  uint8_t **out,
                                                  size_t *out_len);
/* Append one credential to the cache at path under a write lock (MIT's
 * krb5_cc_store_cred), after checking the file is a cache (version 3 or
 * 4; the credential written in the file's version), in one write at the
 * end (a failed one cut off again).  GK5_OK, GK5_ERR_CCACHE_NOT_FOUND,
 * GK5_ERR_CCACHE_FORMAT, GK5_ERR_CCACHE_WRITE, GK5_ERR_INVALID_ARGUMENT,
 * GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_append(const char *path,
                                               const struct gk5i_cc_cred *c);
/* Remove the cache (kdestroy): overwritten with zeros, then unlinked,
 * under a write lock.  A symbolic link is removed, what it points at left
 * alone.  GK5_OK, GK5_ERR_CCACHE_NOT_FOUND, GK5_ERR_CCACHE_WRITE. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_destroy(const char *path);
/* The newest credential (last in the file) whose client is the cache's
 * principal and whose server is realm/server (name types ignored), not a
 * configuration entry nor a user-to-user ticket (is_skey), and whose
 * endtime is after now; NULL if none. */
GK5_HIDDEN const struct gk5i_cc_cred *
gk5i_ccache_find(const struct gk5i_ccache *cc, struct gk5i_view realm,
                 const struct gk5i_krb_principal *server, int64_t now);
/* The same, among the credentials whose session key is of one of
 * keytypes (NULL: any): the newest such, as MIT's lookup for the
 * supported enctypes takes it -- a newer ticket of another type does not
 * hide it. */
GK5_HIDDEN const struct gk5i_cc_cred *
gk5i_ccache_find_keytype(const struct gk5i_ccache *cc, struct gk5i_view realm,
                         const struct gk5i_krb_principal *server, int64_t now,
                         const int32_t *keytypes, size_t n_keytypes);
GK5_HIDDEN void gk5i_ccache_free(struct gk5i_ccache *cc);

/* ---- kdc_send.c ----
 * Send one request to the realm's KDCs and return the first reply.  Each
 * KDC in turn, in krb5.conf's order, and each address of its name in
 * getaddrinfo's order (a name is looked up once; the resolver's own time
 * counts against timeout_ms but cannot be cut short): UDP when the request
 * is at most udp_limit bytes (then a KRB-ERROR KRB_ERR_RESPONSE_TOO_BIG,
 * 52, sends it again over TCP to the same address), else TCP (4-byte
 * big-endian length, RFC 4120 7.2.2).  UDP sockets are connected
 * (datagrams from other addresses never arrive; an ICMP refusal leaves the
 * KDC at once).  A reply is an [APPLICATION expect_tag] or a KRB-ERROR
 * that decodes, its outer DER length spanning it exactly; a datagram that
 * is not one is dropped and the wait goes on; a TCP record that is not
 * one (the length's reserved high bit set, over GK5I_KRB_MAX_MESSAGE, cut
 * short, or not a reply) leaves the KDC.  A KRB-ERROR other than 52 is a
 * reply like any other (GK5_OK: the caller decodes it).
 * Waits: 1 s for each address's first answer (over TCP: the connection
 * and the first 4 bytes; the rest of the record may take until the end),
 * then the next; then a second round with 2 s each; never past
 * timeout_ms in all (CLOCK_MONOTONIC).  One socket open at a time.
 * *reply malloc'd (free()).  GK5_OK; GK5_ERR_KDC_UNREACHABLE (none
 * answered in time, or no name resolved; a trace line per address tried
 * and per name that did not resolve); GK5_ERR_KDC_REPLY (no reply, but
 * something came back that was not one); GK5_ERR_NOMEM;
 * GK5_ERR_INVALID_ARGUMENT (kdcs, req, reply or reply_len NULL, n_kdcs 0
 * or over GK5I_MAX_KDCS, req_len 0 or over GK5I_KRB_MAX_MESSAGE,
 * expect_tag over 30). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_send(const struct gk5i_kdc_addr *kdcs,
                                          size_t n_kdcs, const uint8_t *req,
                                          size_t req_len, uint8_t expect_tag,
                                          uint32_t udp_limit,
                                          uint32_t timeout_ms, uint8_t **reply,
                                          size_t *reply_len);

/* ---- kdc_client.c ---- */
/* A credential got from the KDC, owning its bytes (gk5i_owned_cred_clear
 * wipes and frees); cred's views point into buf. */
struct gk5i_owned_cred {
    struct gk5i_cc_cred cred;
    uint8_t *buf;
    size_t len;
};
GK5_HIDDEN void gk5i_owned_cred_clear(struct gk5i_owned_cred *oc);
/* A copy of c into oc (views copied into oc->buf). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_owned_cred_copy(const struct gk5i_cc_cred *c,
                                                 struct gk5i_owned_cred *oc);

/* The AS exchange (RFC 4120 3.1; pre-authentication with PA-ENC-TIMESTAMP
 * after KDC_ERR_PREAUTH_REQUIRED, the key from ETYPE-INFO2's salt and
 * s2kparams; no FAST).  One of password or keytab. */
struct gk5i_as_req {
    const struct gk5i_krb5_config *cfg;
    struct gk5i_view realm;
    const struct gk5i_krb_principal *client;
    const char *password; /* NUL-terminated, or NULL */
    const struct gk5i_keytab *keytab;
    uint32_t lifetime; /* seconds; 0: cfg->ticket_lifetime */
    uint32_t renew;    /* seconds; 0: cfg->renew_lifetime */
    bool forwardable;
    const int32_t *etypes; /* NULL: cfg->tkt_enctypes */
    size_t n_etypes;
};
/* The TGT (krbtgt/REALM@REALM).  The reply is checked before anything is
 * returned: msg-type, nonce, cname/crealm, the encrypted part's sname
 * and srealm, rc4/DES/unbuilt des3 in the ticket, the enc-part or the
 * session key (GK5_ERR_ENCTYPE_REJECTED with the enctype), times.  Errors:
 * GK5_ERR_KDC_* (KRB-ERRORs mapped: PREAUTH_FAILED, PRINCIPAL_UNKNOWN,
 * KEY_EXPIRED, ETYPE_NOSUPP, AP_SKEW, else KDC_ERROR; the error's code,
 * text and the clock difference in gk5_krb_last_error()),
 * GK5_ERR_CONFIG*, GK5_ERR_S2K_WEAK, GK5_ERR_NOMEM. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_as_exchange(const struct gk5i_as_req *r,
                                             struct gk5i_owned_cred *tgt);
/* The TGS exchange (RFC 4120 3.3) with tgt for realm/server (the TGT's
 * realm only: another is GK5_ERR_KDC_REFERRAL).  PA-TGS-REQ's
 * authenticator checksums the KDC-REQ-BODY and carries a fresh subkey;
 * the reply is decrypted with it (usage 9; 8 with the session key is
 * tried as RFC 4120 allows) and checked as the AS reply is, the service
 * name taken from the encrypted part and compared with the request. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_tgs_exchange(
    const struct gk5i_krb5_config *cfg, const struct gk5i_cc_cred *tgt,
    struct gk5i_view realm, const struct gk5i_krb_principal *server,
    const int32_t *etypes, size_t n_etypes, struct gk5i_owned_cred *out);
/* The cache's TGT: krbtgt/REALM@REALM of its principal's realm, valid at
 * now.  GK5_OK (*tgt set), GK5_ERR_TICKET_EXPIRED (one, expired),
 * GK5_ERR_NO_TGT (none). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_ccache_tgt(const struct gk5i_ccache *cc,
                                            int64_t now,
                                            const struct gk5i_cc_cred **tgt);
/* A service ticket for realm/server for the cache's client: from the
 * cache when there is a valid one, else by TGS with the cache's TGT and
 * stored back into the cache.  GK5_ERR_NO_TGT, GK5_ERR_TICKET_EXPIRED,
 * the ccache's and the exchange's errors. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_get_service_cred(
    const struct gk5i_krb5_config *cfg, const char *ccache_path,
    struct gk5i_view realm, const struct gk5i_krb_principal *server,
    struct gk5i_owned_cred *out);
/* The same with the cache already read by the caller (have; NULL: read
 * it here): one read of the file per context. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_get_service_cred_in(
    const struct gk5i_krb5_config *cfg, const char *ccache_path,
    const struct gk5i_ccache *have, struct gk5i_view realm,
    const struct gk5i_krb_principal *server, struct gk5i_owned_cred *out);

/* ---- kdc_reply.c ---- */
/* What a KDC reply must match and the keys that open it: the request's
 * nonce, client and service, the time, and the keys -- for an AS-REP the
 * client's (the key made for pre-authentication when the reply's enctype
 * is its own, else from the request's keytab or password with the reply's
 * ETYPE-INFO2), for a TGS-REP the TGT's session key and the request's
 * subkey. */
struct gk5i_kdc_expect {
    bool tgs; /* a TGS-REP (another realm's krbtgt is a referral), else AS */
    uint32_t nonce;
    struct gk5i_view crealm;
    const struct gk5i_krb_principal *cname;
    struct gk5i_view srealm;
    const struct gk5i_krb_principal *sname;
    gk5i_krb_time now, till; /* till 0: no bound on the endtime */
    uint32_t skew;
    /* AS-REP */
    const struct gk5i_as_req *as;
    int32_t pa_etype;      /* the pre-authentication key's enctype */
    const uint8_t *pa_key; /* NULL: none */
    bool preauth_ok;       /* KDC_ERR_PREAUTH_REQUIRED comes back */
    /* TGS-REP */
    int32_t ses_etype;
    const uint8_t *ses_key, *subkey; /* both of ses_etype */
};
/* The KDC's reply to a request, checked (a test seam, and what both
 * exchanges call with what they sent).  A KRB-ERROR is noted for
 * gk5_krb_last_error() and mapped as gk5i_as_exchange says -- except
 * KDC_ERR_PREAUTH_REQUIRED with x->preauth_ok: GK5_OK, *preauth true,
 * *kerr the error (views into reply), *out empty.  A KDC-REP of the
 * expected type is opened and checked as the exchanges describe, the
 * credential (every field from the encrypted part) into *out.  Anything
 * else: GK5_ERR_KDC_REPLY.  On every error *out is empty. */
GK5_HIDDEN GK5_WUR uint32_t gk5i_kdc_reply(const struct gk5i_kdc_expect *x,
                                           const uint8_t *reply, size_t len,
                                           struct gk5i_krb_error *kerr,
                                           bool *preauth,
                                           struct gk5i_owned_cred *out);

/* ---- kdc_error.c ---- */
/* A KRB-ERROR's code as a gk5 error code (for the KDC's or an
 * acceptor's: as_kdc says which table) and its words, code and e-text
 * (and, for skew, the difference from now) kept for gk5_krb_last_error()
 * on this thread. */
GK5_HIDDEN uint32_t gk5i_krb_error_note(const struct gk5i_krb_error *e,
                                        bool as_kdc, int64_t now);
/* Clear this thread's last KRB-ERROR and refused ticket enctype (at the
 * start of a call that may set them). */
GK5_HIDDEN void gk5i_krb_error_clear(void);
/* The enctype of the ticket's encrypted part -- the service's key -- that
 * the last KDC reply checked on this thread (gk5i_kdc_reply) was refused
 * for (RFC 8429: a service with no key gk5 uses); 0 when that reply was
 * refused for anything else or taken, or since gk5i_krb_error_clear. */
GK5_HIDDEN int32_t gk5i_kdc_refused_ticket(void);

/* ---- initiator.c ---- */
/* gk5_initiator_create from a service ticket in hand (a test seam, and
 * what the public create calls once it has the ticket). */
GK5_HIDDEN GK5_WUR uint32_t
gk5i_initiator_from_cred(const struct gk5i_cc_cred *cred,
                         const gk5_initiator_opts *opts, gk5_initiator **out);
/* gk5_initiator_step at a given time (test seam). */
GK5_HIDDEN GK5_WUR uint32_t gk5i_initiator_step_at(uint32_t *minor,
                                                   gk5_initiator *init,
                                                   const gk5_buffer *in,
                                                   gk5_buffer *out, int64_t now,
                                                   uint32_t now_usec);

#endif /* GK5_KRB5_INT_H */
