/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* gk5 demo's blocks in files of their own. */
#ifndef GK5_TOOLS_DEMO_H
#define GK5_TOOLS_DEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "realm.h"

struct gk5_mit_ends;        /* support/realm/establish.h */
struct interop_role_result; /* interop.h */

/* demo.c: one row of the token tables -- the enctype, gk5's role, the
 * direction, and the three token sizes with "ok", or FAILED and why. */
void demo_print_row(const char *enctype, const char *role,
                    const char *direction, bool ok, const size_t size[3],
                    const char *why);
/* demo.c: the cells first..last (enum interop_cell) of r as one row: its
 * three token sizes, ok when every cell passed, else the first failure.
 * Returns 1 if the row failed. */
int demo_direction(const struct interop_role_result *r, const char *first_col,
                   const char *role, const char *direction, int first,
                   int last);

/* demo_native.c: gk5's own KDC client, initiator and acceptor against the
 * realm and MIT's GSS-API: gk5_kinit into the FILE ccache it names in
 * ccache (in the realm's folder), gk5_kvno per enctype of ets, then the
 * native rows.  The number of failures (each printed). */
int demo_native(const gk5_mit_realm *realm, const struct gk5_mit_ends *ends,
                const int32_t *ets, size_t n_ets, char *ccache,
                size_t ccache_len);
/* demo_native.c: rc4/localhost's rc4 ticket refused by gk5's KDC client
 * (gk5_kvno, gk5_initiator_create) with ccache unchanged, and MIT's
 * client storing it.  The number of failures (each printed). */
int demo_rc4(const gk5_mit_realm *realm, const struct gk5_mit_ends *ends,
             const char *ccache);

/* demo_nfs.c: NFS-Ganesha in the realm, gk5 nfs4 put + cat per service.
 * The number of failures (0 when Ganesha is not installed: it says so). */
int demo_nfs(const gk5_mit_realm *realm);

/* demo_heimdal.c: tests/heimdal's test_heimdal --quick (a separate
 * process: Heimdal's gss_* cannot share one with MIT's) against the realm,
 * summed up per case.  The number of failures (0 when the peer is not
 * built: it says so). */
int demo_heimdal(const gk5_mit_realm *realm);

/* demo_realms.c: the same realm on the other KDCs of the machine
 * (Heimdal's kdc, Samba's AD domain controller), one line each: started,
 * gk5 kinit, kvno, a gk5 -> gk5 context, the KDC's rc4 ticket refused,
 * stopped; KRB5_CONFIG as it was afterwards.  Run when no other realm is
 * up.  The number of failures (0 for a kind not installed: it says so). */
int demo_other_realms(void);

#endif /* GK5_TOOLS_DEMO_H */
