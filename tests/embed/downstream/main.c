/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * A program outside gk5 that uses it, built twice by tests/embed/embed.sh:
 * with gk5 as a meson subproject, and with pkg-config against an installed
 * prefix.  It needs no context: the version, the enctype table and a name
 * lookup.  With GK5_EMBED_MIT / GK5_EMBED_RPC it also calls one function of
 * libgk5_mit / libgk5_rpc, so that their headers and link lines are used.
 *
 *   embed [EXPECTED_VERSION]      exit 0 when all is as expected
 */
#include <stdio.h>
#include <string.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>
#ifdef GK5_EMBED_MIT
#include <gk5/mit.h>
#endif
#ifdef GK5_EMBED_RPC
#include <gk5/rpcsec.h>
#endif

int main(int argc, char **argv)
{
    const char *version = gk5_version();
    size_t usable = 0;
    int32_t enctype = 0;
    uint32_t err;

    if (argc > 1 && strcmp(version, argv[1]) != 0) {
        fprintf(stderr, "embed: gk5_version() is %s, expected %s\n", version,
                argv[1]);
        return 1;
    }
    printf("gk5 %s\n", version);
    for (size_t i = 0; i < gk5_enctype_count(); i++) {
        gk5_enctype_desc d;

        err = gk5_enctype_row(i, &d);
        if (err != 0) {
            fprintf(stderr, "embed: row %zu: %s\n", i, gk5_strerror(err));
            return 1;
        }
        printf("  %2d %-28s %s\n", (int)d.enctype, d.name,
               d.state == GK5_ENCTYPE_SUPPORTED ? "supported" : d.reason);
        if (d.state == GK5_ENCTYPE_SUPPORTED) {
            usable++;
        }
    }
    err = gk5_enctype_from_name("aes256-cts", &enctype);
    if (err != 0 || enctype != 18 || usable == 0) {
        fprintf(stderr, "embed: aes256-cts is %d (%s), %zu usable enctypes\n",
                (int)enctype, gk5_strerror(err), usable);
        return 1;
    }
#ifdef GK5_EMBED_MIT
    printf("gk5-mit: %s\n", gk5_mit_display_status(0, 0));
#endif
#ifdef GK5_EMBED_RPC
    printf("gk5-rpc: %s\n", gk5_rpc_service_name(GK5_RPC_SVC_PRIVACY));
#endif
    return 0;
}
