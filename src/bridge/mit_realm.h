/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The embedded default (docs/design.md, "The throwaway realm"): a
 * throwaway MIT krb5 realm with a real krb5kdc on 127.0.0.1 in a temporary
 * folder, and security contexts established in-process with MIT's GSS-API
 * against it.  The same realm as
 * tests/interop/kdc.sh makes (same file names, principals and settings):
 * `gk5 demo` uses this C version so that the installed binary needs no
 * script; the interop tests may use either (gk5_mit_realm_attach).
 *
 * Processes: the KDC is the only one left running; it is started with
 * PR_SET_PDEATHSIG so that it dies with us even on SIGKILL, and it is
 * stopped by its PID on every other exit path (gk5_mit_realm_stop, or the
 * signal handlers of gk5_mit_realm_stop_on_signals).
 */
#ifndef GK5_MIT_REALM_H
#define GK5_MIT_REALM_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include <gssapi/gssapi.h>

#include "bridge/gk5_mit.h"

/* Keep in step with tests/interop/kdc.sh. */
#define GK5_MIT_REALM_NAME "GK5.TEST"
#define GK5_MIT_CLIENT "gk5-client@GK5.TEST"
#define GK5_MIT_SERVICE "gk5/localhost@GK5.TEST"
/* An NFS server's acceptor (nfs.keytab in the folder): nfs@localhost. */
#define GK5_MIT_NFS_SERVICE "nfs/localhost@GK5.TEST"

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

/* Use a realm kdc.sh made in dir (its KDC is not ours to stop); sets
 * KRB5_CONFIG.  0, or -1 with words in err. */
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

/* An established pair: initiator and acceptor, both MIT. */
typedef struct {
    gss_ctx_id_t init;
    gss_ctx_id_t acc;
    OM_uint32 init_flags; /* flags granted to each side */
    OM_uint32 acc_flags;
} gk5_mit_pair;

/* The flags asked for: mutual, replay, sequence, conf, integ. */
#define GK5_MIT_REQ_FLAGS                                                      \
    (GSS_C_MUTUAL_FLAG | GSS_C_REPLAY_FLAG | GSS_C_SEQUENCE_FLAG |             \
     GSS_C_CONF_FLAG | GSS_C_INTEG_FLAG)

/* Establish a fresh pair in-process: the client's initial credentials come
 * from its keytab into a MEMORY: ccache, the initiator credential allows
 * only `enctype` (gss_krb5_set_allowable_enctypes: the TGS request -- after
 * MIT's first, referral-seeking one with every default_tgs_enctypes type --
 * and the authenticator's subkey negotiation ask for it alone), and the
 * acceptor uses the service keytab and a replay cache in the folder.  Fails
 * unless every flag of GK5_MIT_REQ_FLAGS was granted.  The session key's type
 * is the KDC's choice: check it in the lucid export. */
GK5_WUR uint32_t gk5_mit_establish(gk5_mit_status *st, gk5_mit_realm *realm,
                                   int32_t enctype, gk5_mit_pair *pair);
void gk5_mit_pair_release(gk5_mit_pair *pair);

#endif /* GK5_MIT_REALM_H */
