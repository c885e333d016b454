/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* The KDCs a throwaway realm runs on (kinds.h). */
#include <string.h>

#include "heimdal_kdc.h"
#include "kinds.h"
#include "realm.h"
#include "samba_kdc.h"

const gk5_realm_kind gk5_realm_kinds[] = {
    {.name = "mit",
     .process = "krb5kdc",
     .title = "MIT krb5kdc",
     .rc4 = "an rc4-hmac key alone",
     .present = gk5_mit_realm_tools_present,
     .start = gk5_mit_realm_start,
     .start_in = gk5_mit_realm_start_in,
     .stop_in = gk5_mit_realm_stop_in,
     .stop = gk5_mit_realm_stop},
    {.name = "heimdal",
     .process = "Heimdal kdc",
     .title = "Heimdal kdc",
     .rc4 = "its rc4 key first",
     .present = gk5_heimdal_kdc_tools_present,
     .start = gk5_heimdal_realm_start,
     .start_in = gk5_heimdal_realm_start_in,
     .stop_in = gk5_heimdal_realm_stop_in,
     .stop = gk5_heimdal_realm_stop,
     .is_kind = gk5_realm_is_heimdal},
    {.name = "samba",
     .process = "Samba AD samba",
     .title = "Samba AD",
     .rc4 = "msDS-SupportedEncryptionTypes unset, the AD default",
     .present = gk5_samba_kdc_tools_present,
     .start = gk5_samba_realm_start,
     .start_in = gk5_samba_realm_start_in,
     .stop_in = gk5_samba_realm_stop_in,
     .stop = gk5_samba_realm_stop,
     .is_kind = gk5_realm_is_samba},
};

const size_t gk5_realm_kind_count =
    sizeof(gk5_realm_kinds) / sizeof(gk5_realm_kinds[0]);

const gk5_realm_kind *gk5_realm_kind_named(const char *name)
{
    for (size_t i = 0; i < gk5_realm_kind_count; i++) {
        if (strcmp(gk5_realm_kinds[i].name, name) == 0) {
            return &gk5_realm_kinds[i];
        }
    }
    return NULL;
}

const gk5_realm_kind *gk5_realm_kind_of(const char *dir)
{
    for (size_t i = 0; i < gk5_realm_kind_count; i++) {
        if (gk5_realm_kinds[i].is_kind != NULL &&
            gk5_realm_kinds[i].is_kind(dir)) {
            return &gk5_realm_kinds[i];
        }
    }
    return &gk5_realm_kinds[0];
}
