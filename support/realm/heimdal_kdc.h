/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway realm on Heimdal's KDC (docs/design.md, "The throwaway
 * realm"): the same realm as realm.h's, GK5.TEST with the same principals
 * and keytabs, served by Heimdal's kdc on 127.0.0.1 instead of MIT's
 * krb5kdc.  Test and tool support: not part of any shipped library.
 *
 * Debian's heimdal-kdc conflicts with MIT's KDC packages, so its programs
 * run from the extracted packages (tools/fetch-heimdal-kdc.sh: heimdal-kdc
 * and heimdal-clients, `apt-get download` and `dpkg -x`), with the
 * libraries heimdal-multidev brings.  They are looked for under
 * $GK5_HEIMDAL_KDC_DIR, else GK5_HEIMDAL_KDC_DEFAULT_DIR, else / (installed):
 * usr/lib/heimdal-servers/kdc, usr/sbin/kstash, usr/bin/kadmin.heimdal and
 * usr/bin/string2key.
 *
 * The folder holds krb5.conf (the clients'), kdc.conf (Heimdal's KDC and
 * `kadmin -l`, which read it before krb5.conf), the database (heimdal.db)
 * and its master key (m-key, kstash), heimdal.root (where the programs
 * are), the keytabs of realm.h (written by
 * `kadmin -l ext_keytab`, which MIT and gk5 read), kdc.kind ("heimdal"),
 * kdc.enctypes (the realm's enctypes by number), kdc.port, and for `gk5 realm
 * start` kdc.pid.  The enctypes: every one of gk5's table that a realm has
 * (realm_impl.h) and that Heimdal's kadmin knows (asked with string2key), RFC
 * 3962 AES first; every principal has a key of each, but rc4/localhost. Heimdal
 * issues a session key only of a type the service has a key of, so
 * rc4/localhost has its rc4-hmac key first (rc4.keytab holds it alone) and an
 * RFC 3962 AES key after it, in the database only; with
 * use-strongest-server-key off the KDC encrypts a ticket in the service's first
 * key: for rc4/localhost an rc4 ticket with an AES session key, as MIT's KDC
 * issues for its rc4-only service.
 *
 * Processes: Heimdal's kdc is a master with one worker (num-kdc-processes
 * = 1); the master, stopped by its PID, stops its worker, and a worker
 * whose master is gone exits.  The workers' PIDs are read when the KDC is
 * up and any still running after the master is signalled by its PID too.
 * The master writes /var/run/kdc.pid (Heimdal's pidfile, not
 * configurable) and removes it when it exits; gk5 never reads it.
 */
#ifndef GK5_SUPPORT_HEIMDAL_KDC_H
#define GK5_SUPPORT_HEIMDAL_KDC_H

#include <stddef.h>
#include <stdint.h>

#include "realm.h"

#define GK5_HEIMDAL_KDC_DEFAULT_DIR "/var/cache/gk5/heimdal-kdc"

/* 0 if Heimdal's kdc, kstash, kadmin and string2key are found (see above)
 * and run; else -1 and words in why (what is missing, how to fetch it). */
int gk5_heimdal_kdc_tools_present(char *why, size_t why_len);

/* As gk5_mit_realm_start, on Heimdal's KDC. */
int gk5_heimdal_realm_start(gk5_mit_realm *realm, char *err, size_t err_len);

/* As gk5_mit_realm_start_in, on Heimdal's KDC (kdc.pid names the master). */
int gk5_heimdal_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                               size_t err_len);

/* Stop exactly the Heimdal kdc whose PID dir/kdc.pid holds, if its command
 * line names dir's kdc.conf (a recycled PID is never signalled), and its
 * worker; remove kdc.pid.  0, or -1 with words in err. */
int gk5_heimdal_realm_stop_in(const char *dir, char *err, size_t err_len);

/* As gk5_mit_realm_stop, and the worker too. */
void gk5_heimdal_realm_stop(gk5_mit_realm *realm);

/* 0 if the realm in dir says (kdc.enctypes, which the Heimdal realm
 * writes) that its KDC has no key of enctype; else 1. */
int gk5_realm_has_enctype(const char *dir, int32_t enctype);

/* 1 if dir holds a Heimdal realm (kdc.kind says "heimdal"), else 0. */
int gk5_realm_is_heimdal(const char *dir);

#endif /* GK5_SUPPORT_HEIMDAL_KDC_H */
