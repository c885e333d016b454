/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway realm on Samba as an Active Directory domain controller
 * (docs/design.md, "The throwaway realm"): GK5.TEST again, its KDC Samba's
 * (a Heimdal inside Samba reading the AD database), on 127.0.0.1.  Test
 * and tool support: not part of any shipped library.
 *
 * Needs Debian's samba, samba-ad-dc, samba-dsdb-modules and
 * samba-ad-provision (/usr/sbin/samba, samba-tool and the AD schema under
 * /usr/share/samba/setup); they install beside MIT's packages.
 *
 * The folder holds krb5.conf (the clients'), samba/ (the domain that
 * `samba-tool domain provision --targetdir` made: its smb.conf in
 * samba/etc, the AD database in samba/private, nothing in /etc), kdc.kind
 * ("samba"), kdc.enctypes (what AD keys are: 18 17 23), kdc.port, kdc.log
 * (Samba's log) and for `gk5 realm start` kdc.pid.  The accounts, each a
 * user with a random password and, for a service, its servicePrincipalName
 * and msDS-SupportedEncryptionTypes:
 *
 *   gk5-client      GK5_MIT_CLIENT; client.keytab (exportkeytab: AES and rc4)
 *   gk5-service     gk5/localhost, 0x18 (AES): service.keytab
 *   gk5-nfs         nfs/localhost, 0x18: nfs.keytab
 *   gk5-rc4         rc4/localhost, unset (the AD default: rc4 tickets with
 *                   AES session keys): rc4.keytab, its rc4-hmac key alone
 *   gk5-rc4only     rc4only/localhost, 0x4 (rc4 ticket and session key):
 *                   rc4only.keytab, its rc4-hmac key alone
 *
 * `samba-tool domain exportkeytab` gives an SPN only its rc4-hmac key, so
 * service.keytab and nfs.keytab are written here: AES keys made with the
 * account's salt (the realm and the sAMAccountName, RFC 3962 string-to-key)
 * and its msDS-KeyVersionNumber.  No kadmin/localhost: AD has none.
 *
 * Processes: `samba -F -M single` (the foreground, one process: the KDC
 * alone, "server services = kdc"), stopped by its PID.  Samba overwrites
 * its command line, so a PID is ours when its executable is Samba's and
 * samba/samba.pid (Samba's PID file, in the folder) names it too.
 */
#ifndef GK5_SUPPORT_SAMBA_KDC_H
#define GK5_SUPPORT_SAMBA_KDC_H

#include <stddef.h>

#include "realm.h"

/* The AD services beyond realm.h's. */
#define GK5_SAMBA_RC4ONLY_SERVICE "rc4only/localhost@GK5.TEST"

/* 0 if Samba's AD DC programs and schema are installed and we are root
 * (provisioning sets file owners); else -1 and words in why (what is
 * missing, which packages bring it). */
int gk5_samba_kdc_tools_present(char *why, size_t why_len);

/* As gk5_mit_realm_start, on Samba's AD KDC. */
int gk5_samba_realm_start(gk5_mit_realm *realm, char *err, size_t err_len);

/* As gk5_mit_realm_start_in, on Samba's AD KDC. */
int gk5_samba_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                             size_t err_len);

/* Stop exactly the samba whose PID dir/kdc.pid holds, if it is ours (see
 * above); remove kdc.pid.  0, or -1 with words in err. */
int gk5_samba_realm_stop_in(const char *dir, char *err, size_t err_len);

/* As gk5_mit_realm_stop. */
void gk5_samba_realm_stop(gk5_mit_realm *realm);

/* 1 if dir holds a Samba AD realm (kdc.kind says "samba"), else 0. */
int gk5_realm_is_samba(const char *dir);

#endif /* GK5_SUPPORT_SAMBA_KDC_H */
