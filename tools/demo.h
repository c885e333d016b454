/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* gk5 demo's blocks in files of their own. */
#ifndef GK5_TOOLS_DEMO_H
#define GK5_TOOLS_DEMO_H

#include "realm.h"

/* demo_nfs.c: NFS-Ganesha in the realm, gk5 nfs4 put + cat per service.
 * The number of failures (0 when Ganesha is not installed: it says so). */
int demo_nfs(const gk5_mit_realm *realm);

/* demo_heimdal.c: tests/heimdal's test_heimdal --quick (a separate
 * process: Heimdal's gss_* cannot share one with MIT's) against the realm,
 * summed up per case.  The number of failures (0 when the peer is not
 * built: it says so). */
int demo_heimdal(const gk5_mit_realm *realm);

#endif /* GK5_TOOLS_DEMO_H */
