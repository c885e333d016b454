/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Which mechanism files gk5_mech.so reads its own line from, and when:
 * the file GSS_MECH_CONFIG names (which then replaces the others, as for
 * the mechglue), else /etc/gss/mech and then /etc/gss/mech.d/ *.conf in
 * name order; the line that counts is the last one naming the module's
 * OID (the mechglue lets a later line replace an earlier one not loaded
 * yet).  Read once, at the first accept; each file's lines are
 * accept_config.c's.
 */
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "interposer/interposer.h"

#define MECH_CONF "/etc/gss/mech"
#define MECH_CONF_GLOB "/etc/gss/mech.d/*.conf"
#define CFG_FILES_MAX 64 /* in mech.d */

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static int cfg_native;

/* Our line in one file, if any: updates *native. */
static void read_file(const char *path, const char *oid, int *native)
{
    FILE *f = fopen(path, "re");

    if (f != NULL) {
        gki_config_scan(f, path, oid, native);
        fclose(f);
    }
}

static void cfg_read(void)
{
    char oid[256];
    const char *env = secure_getenv("GSS_MECH_CONFIG");
    int native = 0;

    if (gki_oid_text(&gki_interposer_oid, oid, sizeof(oid)) != 0) {
        gki_trace("gk5_mech: the module's OID cannot be written: accept by "
                  "MIT");
        return;
    }
    if (env != NULL && env[0] != '\0') {
        read_file(env, oid, &native);
    } else {
        glob_t g;

        read_file(MECH_CONF, oid, &native);
        if (glob(MECH_CONF_GLOB, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && i < CFG_FILES_MAX; i++) {
                read_file(g.gl_pathv[i], oid, &native);
            }
            globfree(&g);
        }
    }
    cfg_native = native;
    gki_trace("gk5_mech: accept: %s (config line of %s)",
              native ? "native" : "MIT", oid);
}

int gki_accept_native(void)
{
    (void)pthread_once(&cfg_once, cfg_read);
    return cfg_native;
}
