/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Security contexts established in-process by MIT's GSS-API, both ends
 * MIT: the one loop that `gk5 interop`, `gk5 demo`, the interop tests and
 * gk5-bench use, against any realm (gk5_mit_establish_ends) or the
 * throwaway one (gk5_mit_establish).  Test and tool support: not part of
 * any shipped library.
 */
#ifndef GK5_SUPPORT_ESTABLISH_H
#define GK5_SUPPORT_ESTABLISH_H

#include <stdint.h>

#include <gssapi/gssapi.h>

#include "bridge/lucid.h"
#include "realm.h"

/* Where the two ends take their credentials; NULL fields are MIT's
 * defaults.  Read only during the call. */
struct gk5_mit_ends {
    const char *client;        /* initiator's krb5 name, "user@REALM" */
    const char *client_keytab; /* initial credentials from this keytab */
    const char *ccache;  /* the initiator's credential cache; with a client
                            keytab and no ccache, MEMORY:gk5-interop */
    const char *service; /* "service@host", or a krb5 name with '/' */
    const char *service_keytab; /* the acceptor's keys */
    const char *rcache;         /* the acceptor's replay cache */
};

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

/* The step an establishment stopped at (st->call names MIT's call). */
enum gk5_mit_step {
    GK5_MIT_STEP_DONE = 0,
    GK5_MIT_STEP_SETUP,        /* a path did not fit */
    GK5_MIT_STEP_CLIENT_NAME,  /* gss_import_name of ends->client */
    GK5_MIT_STEP_SERVICE_NAME, /* gss_import_name of ends->service */
    GK5_MIT_STEP_INIT_CRED,    /* the initiator's credential */
    GK5_MIT_STEP_ENCTYPE,      /* gss_krb5_set_allowable_enctypes */
    GK5_MIT_STEP_ACC_CRED,     /* the acceptor's credential */
    GK5_MIT_STEP_INIT,         /* gss_init_sec_context */
    GK5_MIT_STEP_ACCEPT,       /* gss_accept_sec_context */
    GK5_MIT_STEP_INCOMPLETE,   /* neither failed, yet not complete */
    GK5_MIT_STEP_FLAGS,        /* a flag of GK5_MIT_REQ_FLAGS not granted */
};

/* Establish a fresh pair in-process between ends: the initiator
 * credential allows only `enctype` (gss_krb5_set_allowable_enctypes: the
 * TGS request -- after MIT's first, referral-seeking one with every
 * default_tgs_enctypes type -- and the authenticator's subkey negotiation,
 * RFC 4537, ask for it alone).  GSS_S_COMPLETE with the pair, or the
 * failure in st and, if step is not NULL, the step it stopped at.  Fails
 * unless every flag of GK5_MIT_REQ_FLAGS was granted.  The session key's
 * type is the KDC's choice: check it in the lucid export. */
GK5_WUR uint32_t gk5_mit_establish_ends(gk5_mit_status *st,
                                        const struct gk5_mit_ends *ends,
                                        int32_t enctype, gk5_mit_pair *pair,
                                        enum gk5_mit_step *step);

/* The same in the throwaway realm: the client's initial credentials from
 * its keytab into a MEMORY: ccache of the realm's own, the acceptor with
 * the service keytab and a replay cache in the folder. */
GK5_WUR uint32_t gk5_mit_establish(gk5_mit_status *st,
                                   const gk5_mit_realm *realm, int32_t enctype,
                                   gk5_mit_pair *pair);

/* Delete both contexts; NULL is fine. */
void gk5_mit_pair_release(gk5_mit_pair *pair);

#endif /* GK5_SUPPORT_ESTABLISH_H */
