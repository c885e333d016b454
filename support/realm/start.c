/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The start every KDC kind shares (realm_impl.h): its KDC tried on free
 * ports until one takes, then kdc.port written and KRB5_CONFIG set; and
 * the realm made in a temporary folder (removed on failure, or kept with
 * GK5_KEEP_REALM) or in a folder given (`gk5 realm start DIR`, kdc.pid
 * written).  A KDC started before a later step failed is never left
 * running.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "realm_impl.h"

#define PORT_TRIES 20

int gk5_realm_start_on_free_port(gk5_mit_realm *realm, const gk5_realm_kdc *kdc,
                                 void *arg, char *err, size_t err_len)
{
    int started = 0;

    for (int tries = 0; tries < PORT_TRIES && !started; tries++) {
        int r = kdc->start_on(arg, tries);

        if (r < 0) {
            snprintf(err, err_len, "%s did not start (see %s/%s)", kdc->name,
                     realm->dir, kdc->logs);
            return -1;
        }
        started = r == 1;
    }
    if (!started) {
        snprintf(err, err_len,
                 "no free port for %s after %d tries (see %s/kdc.log)",
                 kdc->name, PORT_TRIES, realm->dir);
        return -1;
    }
    if (gk5_realm_write_number(realm, "kdc.port", realm->port) != 0 ||
        gk5_realm_set_krb5_config(realm) != 0) {
        snprintf(err, err_len, "cannot write %s/kdc.port or set KRB5_CONFIG",
                 realm->dir);
        return -1;
    }
    return 0;
}

int gk5_realm_start_temp(gk5_mit_realm *realm, const gk5_realm_maker *m,
                         char *err, size_t err_len)
{
    const char *tmp = getenv("TMPDIR");
    int ret;

    memset(realm, 0, sizeof(*realm));
    if (m->present(err, err_len) != 0) {
        return -1;
    }
    if (tmp == NULL || tmp[0] == '\0') {
        tmp = "/tmp";
    }
    if (gk5_realm_path_in(realm->dir, sizeof(realm->dir), tmp, m->temp) != 0 ||
        mkdtemp(realm->dir) == NULL) {
        snprintf(err, err_len, "cannot make a temporary folder in %s: %s", tmp,
                 strerror(errno));
        realm->dir[0] = '\0';
        return -1;
    }
    realm->owned = 1;
    ret = m->make(realm, 0, err, err_len);
    if (ret != 0) {
        /* Keep the logs when asked to, for a post-mortem. */
        if (getenv("GK5_KEEP_REALM") != NULL) {
            m->stop_kdc(realm);
        } else {
            m->stop(realm);
        }
    }
    return ret;
}

int gk5_realm_start_dir(gk5_mit_realm *realm, const char *dir,
                        const gk5_realm_maker *m, char *err, size_t err_len)
{
    char pid_file[PATH_MAX];

    memset(realm, 0, sizeof(*realm));
    if (m->present(err, err_len) != 0) {
        return -1;
    }
    if (gk5_realm_make_dirs(dir) != 0 || realpath(dir, realm->dir) == NULL) {
        snprintf(err, err_len, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    if (gk5_realm_path_in(pid_file, sizeof(pid_file), realm->dir, "kdc.pid") !=
            0 ||
        access(pid_file, F_OK) == 0) {
        snprintf(err, err_len, "%s already holds a realm (kdc.pid exists)",
                 realm->dir);
        return -1;
    }
    if (m->make(realm, 1, err, err_len) != 0) {
        m->stop_kdc(realm);
        return -1;
    }
    /* The KDCs run in the foreground: the PID is the one started. */
    if (gk5_realm_write_number(realm, "kdc.pid", (long)realm->kdc_pid) != 0) {
        snprintf(err, err_len, "cannot write %s/kdc.pid", realm->dir);
        m->stop_kdc(realm);
        return -1;
    }
    return 0;
}
