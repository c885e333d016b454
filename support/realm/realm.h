/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway MIT krb5 realm (docs/design.md, "The throwaway realm"): a
 * real krb5kdc on 127.0.0.1 in a folder of its own, for `gk5 demo`, `gk5
 * realm` (which the tests and benchmarks run), the interop tests and
 * gk5-bench.  Test and tool support: not part of any shipped library.
 *
 * The folder holds krb5.conf and kdc.conf (reached through KRB5_CONFIG and
 * KRB5_KDC_PROFILE, so nothing in /etc is read or written), the database,
 * client.keytab for gk5-client@GK5.TEST, service.keytab for
 * gk5/localhost@GK5.TEST and nfs.keytab for nfs/localhost@GK5.TEST (an NFS
 * server's acceptor), rc4.keytab for rc4/localhost@GK5.TEST (an rc4-hmac
 * key and no other), the principal kadmin/localhost@GK5.TEST (the target
 * kadmind clients name; kadmind takes its keys from the database) and
 * kadm5.acl, empty: nobody has an administrative privilege.  kdc.pid and
 * kdc.port name the running KDC.
 *
 * The enctypes (realm.c, from gk5's enctype table): every one gk5 knows
 * that MIT issues has a long-term key, so the KDC can issue any of them as
 * a session key; allow_rc4 / allow_des3 are on, for the refusal cases.
 * GK5_KDC_ENCTYPES (optional, in the environment): the KDC's
 * supported_enctypes instead -- every principal's keys are made of these
 * types only, so the KDC cannot issue a session key of any other (a realm
 * without aes-sha2, for `gk5 interop`'s test).  krb5.conf is unchanged.
 *
 * Processes: the KDC is the only one left running.  A realm of
 * gk5_mit_realm_start dies with us (PR_SET_PDEATHSIG, even on SIGKILL) and
 * is stopped by its PID on every other exit path (gk5_mit_realm_stop, or
 * the handlers of gk5_mit_realm_stop_on_signals); one of
 * gk5_mit_realm_start_in outlives us until gk5_mit_realm_stop_in.
 * krb5kdc sets SO_REUSEPORT, so a second KDC of the same user would bind
 * the same port silently: the port is picked among ports nothing uses and
 * the sockets on it are counted after start-up.
 */
#ifndef GK5_SUPPORT_REALM_H
#define GK5_SUPPORT_REALM_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define GK5_MIT_REALM_NAME "GK5.TEST"
#define GK5_MIT_CLIENT "gk5-client@GK5.TEST"
#define GK5_MIT_SERVICE "gk5/localhost@GK5.TEST"
/* An NFS server's acceptor (nfs.keytab in the folder): nfs@localhost. */
#define GK5_MIT_NFS_SERVICE "nfs/localhost@GK5.TEST"
/* The target kadmind clients name (its keys stay in the database). */
#define GK5_MIT_KADMIN_SERVICE "kadmin/localhost@GK5.TEST"
/* A service with an rc4-hmac key alone (rc4.keytab in the folder): the KDC
 * encrypts its tickets in rc4 whatever session key it picks, for the
 * refusal of such a ticket by a KDC client (RFC 8429). */
#define GK5_MIT_RC4_SERVICE "rc4/localhost@GK5.TEST"

typedef struct {
    char dir[PATH_MAX]; /* holds krb5.conf, kdc.conf, database, keytabs */
    int owned;          /* we made dir and the KDC: stop removes both */
    pid_t kdc_pid;      /* 0 if none (or not ours to stop) */
    int port;           /* the KDC's UDP and TCP port on 127.0.0.1 */
} gk5_mit_realm;

/* 0 if krb5kdc, kdb5_util and kadmin.local are installed (PATH, then
 * /usr/sbin, /usr/local/sbin, /sbin); else -1 and words in why. */
int gk5_mit_realm_tools_present(char *why, size_t why_len);

/* Make the realm in a new temporary folder (under $TMPDIR or /tmp) and
 * start krb5kdc on a port nobody else uses; sets KRB5_CONFIG for this
 * process.  0, or -1 with words in err and nothing left behind (unless
 * GK5_KEEP_REALM is set in the environment: then the folder and its logs
 * stay for a post-mortem; the KDC is stopped either way). */
int gk5_mit_realm_start(gk5_mit_realm *realm, char *err, size_t err_len);

/* Make the realm in dir (created if missing; it must not hold a running
 * realm already) and start a krb5kdc that outlives this process, to be
 * stopped by gk5_mit_realm_stop_in.  GK5_KDC_PORT in the environment: the
 * first port to try.  0, or -1 with words in err (the folder and its logs
 * stay). */
int gk5_mit_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                           size_t err_len);

/* Stop exactly the krb5kdc whose PID dir/kdc.pid holds, if it is the one
 * that writes that file (a recycled PID is never signalled): TERM, then
 * KILL after 5 s; remove kdc.pid.  0, or -1 with words in err. */
int gk5_mit_realm_stop_in(const char *dir, char *err, size_t err_len);

/* Use a realm made in dir by someone else (its KDC is not ours to stop);
 * sets KRB5_CONFIG.  0, or -1 with words in err. */
int gk5_mit_realm_attach(gk5_mit_realm *realm, const char *dir, char *err,
                         size_t err_len);

/* Until gk5_mit_realm_stop: on SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE
 * and the crash signals, kill the KDC by its PID, remove the folder, then die
 * of the signal.  Only one realm at a time. */
void gk5_mit_realm_stop_on_signals(gk5_mit_realm *realm);

/* A server the caller started in the realm (an NFS server): the signal
 * handlers of gk5_mit_realm_stop_on_signals kill it too; 0 forgets it. */
void gk5_mit_realm_watch_child(pid_t pid);

/* Stop the KDC by its PID (TERM, then KILL after 5 s), wait for it, and
 * remove the folder if we made it.  Safe to call twice. */
void gk5_mit_realm_stop(gk5_mit_realm *realm);

/* path = realm->dir/name; 0, or -1 if it does not fit. */
int gk5_mit_realm_path(char *path, size_t path_len, const gk5_mit_realm *realm,
                       const char *name);

#endif /* GK5_SUPPORT_REALM_H */
