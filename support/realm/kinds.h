/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDCs a throwaway realm runs on, in one table: MIT's krb5kdc
 * (realm.h), Heimdal's kdc (heimdal_kdc.h) and Samba as an AD domain
 * controller (samba_kdc.h) -- the same realm, principals and keytabs.  `gk5
 * realm --kdc NAME` and `gk5 demo`'s other-KDC lines take their kinds from
 * here.  Test and tool support: not part of any shipped library.
 */
#ifndef GK5_SUPPORT_KINDS_H
#define GK5_SUPPORT_KINDS_H

#include <stddef.h>

#include "realm.h"

typedef struct {
    const char *name;    /* --kdc NAME, DIR/kdc.kind, GK5_REALM_KDC */
    const char *process; /* the KDC's process, in `gk5 realm`'s lines */
    const char *title;   /* the KDC in words, in gk5 demo's */
    const char *rc4;     /* why rc4/localhost gets rc4 tickets there */
    int (*present)(char *why, size_t why_len);
    int (*start)(gk5_mit_realm *realm, char *err, size_t err_len);
    int (*start_in)(gk5_mit_realm *realm, const char *dir, char *err,
                    size_t err_len);
    int (*stop_in)(const char *dir, char *err, size_t err_len);
    void (*stop)(gk5_mit_realm *realm);
    int (*is_kind)(const char *dir); /* NULL: the default kind (MIT) */
} gk5_realm_kind;

/* The kinds, MIT's (the default) first; their number. */
extern const gk5_realm_kind gk5_realm_kinds[];
extern const size_t gk5_realm_kind_count;

/* The kind named name, or NULL. */
const gk5_realm_kind *gk5_realm_kind_named(const char *name);

/* The kind of the realm in dir (its kdc.kind; MIT's when it says
 * nothing else). */
const gk5_realm_kind *gk5_realm_kind_of(const char *dir);

#endif /* GK5_SUPPORT_KINDS_H */
