/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Native acceptance: gss_accept_sec_context answered by gk5's own acceptor
 * (include/gk5/accept.h) instead of MIT's, when the module's config line
 * asks for it (accept_config.c).  The credentials it takes are kept in
 * accept_cred.c, the names it makes in accept_names.c, a native context's
 * export token in accept_export.c.
 *
 * Which credentials: those that come from a keytab, with no other
 * constraint gk5 would have to know of -- GSS_C_NO_CREDENTIAL (the
 * keytab MIT would pick: krb5_gss_register_acceptor_identity's, else
 * KRB5_KTNAME, else krb5.conf's default_keytab_name, else MIT's default),
 * and credentials gss_acquire_cred made for accepting (noted when
 * made: the keytab of that moment and the desired name, if any; MIT's
 * credential beside them stays for the fallback).  gk5 accepts with one
 * credential per keytab (one replay cache for every context of that
 * keytab); a desired name is compared with the ticket's service after
 * gk5's checks, MIT's way (an empty realm, and the empty host of a
 * host-based name without one, match any).
 *
 * What falls back to MIT's acceptor, with the same input token, as if the
 * module had not looked ("cannot serve"): a token gk5 cannot read as an
 * RFC 4121 AP-REQ (another mechanism's, the pre-RFC OID, DCE style's raw
 * AP-REQ), DCE style, user-to-user, an rc4 or DES ticket or session key,
 * no context enctype both ends support, a keytab gk5 cannot read or
 * without the ticket's key, kvno or service, a cross-realm path the KDC
 * did not check (MIT checks it against capaths, gk5 has no policy), a
 * delegated credential (gk5 takes none), a ticket for a service other
 * than the credential's desired name.  What gk5 refuses natively,
 * answering with its own error and the KRB-ERROR token MIT would send
 * ("refused"): integrity (ticket or authenticator modified), an
 * authenticator checksum missing its key, clock skew, expired or not yet
 * valid tickets, the authenticator's client not the ticket's, a replay,
 * a full replay cache, channel bindings that differ -- MIT asked the
 * same would refuse too, or (its replay cache not holding what gk5's
 * holds) accept what gk5 found replayed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto/crypto_int.h"
#include "interposer/interposer.h"
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"
#include "mech/mech_int.h"

/* MIT's acceptor lets a context live the clock skew past its ticket's end
 * (the grace the ticket itself gets); a native context does the same.
 * MIT's default clockskew, which gk5's acceptor credential uses too. */
#define GKI_CLOCKSKEW 300

/* ---- the accept ---- */

/* Which gk5 refusals leave the token to MIT: see the file's comment. */
static int cannot_serve(uint32_t major, uint32_t err)
{
    switch (GK5_ERR_CODE(err)) {
    case GK5_ERR_TOKEN_FRAMING:
    case GK5_ERR_TOKEN_ID:
    case GK5_ERR_TOKEN_TRUNCATED:
    case GK5_ERR_DER:
    case GK5_ERR_DER_LIMIT:
    case GK5_ERR_KRB_MSG_TYPE:
    case GK5_ERR_ENCTYPE_UNKNOWN:
    case GK5_ERR_ENCTYPE_REJECTED:
    case GK5_ERR_ENCTYPE_NOT_BUILT:
    case GK5_ERR_AP_WRONG_PRINC:
    case GK5_ERR_AP_BADKEYVER:
    case GK5_ERR_AP_NOKEY:
    case GK5_ERR_AP_TRANSITED:
    case GK5_ERR_AP_USER_TO_USER:
    case GK5_ERR_AP_DCE_STYLE:
    case GK5_ERR_AP_NO_ENCTYPE:
    case GK5_ERR_KEYTAB_READ:
    case GK5_ERR_KEYTAB_FORMAT:
    case GK5_ERR_KEYTAB_NO_KEYS:
        return 1;
    case GK5_ERR_INVALID_ARGUMENT:
        /* a keytab type other than FILE */
        return major == GK5_S_BAD_NAME;
    default:
        return 0;
    }
}

/* The krb5 OID a framed token names (RFC 1964's or Microsoft's). */
static gss_OID token_mech(const gss_buffer_t in)
{
    enum gk5i_frame_mech m = GK5I_MECH_KRB5;
    size_t inner = 0;

    if (gk5i_frame_parse_mech(in->value, in->length, in->length, &inner, &m) ==
            GK5_OK &&
        m == GK5I_MECH_MS_KRB5) {
        return &gki_mechs[2];
    }
    return &gki_mechs[0];
}

static void cb_of(gss_channel_bindings_t cb, gk5_channel_bindings *out)
{
    out->initiator_addrtype = cb->initiator_addrtype;
    out->initiator_address.length = cb->initiator_address.length;
    out->initiator_address.value = cb->initiator_address.value;
    out->acceptor_addrtype = cb->acceptor_addrtype;
    out->acceptor_address.length = cb->acceptor_address.length;
    out->acceptor_address.value = cb->acceptor_address.value;
    out->application_data.length = cb->application_data.length;
    out->application_data.value = cb->application_data.value;
}

OM_uint32 gki_native_ctx_time(const gki_ctx *c, OM_uint32 *time_rec)
{
    int64_t now = (int64_t)time(NULL);

    if (c->endtime <= now) {
        if (time_rec != NULL) {
            *time_rec = 0;
        }
        return GSS_S_CONTEXT_EXPIRED;
    }
    if (time_rec != NULL) {
        *time_rec = c->endtime - now > (int64_t)UINT32_MAX
                        ? UINT32_MAX
                        : (OM_uint32)(c->endtime - now);
    }
    return GSS_S_COMPLETE;
}

/* Give the caller what gk5 made, or give it up for MIT (0). */
static int take_native(OM_uint32 *minor, gki_ctx *c, gss_buffer_t input,
                       const char *want, gk5_ctx *made, gk5_buffer *out,
                       gk5_accept_info *info,
                       const struct gk5i_accept_more *more,
                       gss_name_t *src_name)
{
    gss_name_t src = GSS_C_NO_NAME;
    struct gki_pac pac = {NULL, 0, 0};

    if (more->deleg_offered) {
        gki_trace("gk5_mech: context %p: accept by MIT (a delegated "
                  "credential offered: gk5 takes none)",
                  (void *)c);
        return 0;
    }
    /* Names as MIT's would be: its auth indicators gk5 does not read, and
     * a PAC it refuses makes MIT refuse the AP-REQ. */
    if (more->cammac) {
        gki_trace("gk5_mech: context %p: accept by MIT (the ticket carries "
                  "an AD-CAMMAC: auth indicators, which MIT's names carry "
                  "and gk5 does not read)",
                  (void *)c);
        return 0;
    }
    if (more->pac == GK5I_PAC_MALFORMED) {
        gki_trace("gk5_mech: context %p: accept by MIT (the ticket's "
                  "authorization data has a malformed PAC, several PACs or "
                  "containers nested deeper than gk5 reads: MIT's acceptor "
                  "judges it)",
                  (void *)c);
        return 0;
    }
    if (more->pac != GK5I_PAC_NONE) {
        pac.len = more->pac_len;
        pac.verified = more->pac == GK5I_PAC_VERIFIED;
        pac.bytes = malloc(pac.len != 0 ? pac.len : 1);
        if (pac.bytes == NULL) {
            gki_trace("gk5_mech: context %p: accept by MIT (no memory for "
                      "the ticket's PAC)",
                      (void *)c);
            return 0;
        }
        memcpy(pac.bytes,
               (const uint8_t *)info->authorization_data.value +
                   more->pac_offset,
               pac.len);
    }
    if (want != NULL && !gki_name_matches(want, info->acceptor)) {
        gki_trace("gk5_mech: context %p: accept by MIT (ticket for %s, the "
                  "credential's name is %s)",
                  (void *)c, info->acceptor, want);
        free(pac.bytes);
        return 0;
    }
    if (src_name != NULL &&
        GSS_ERROR(gki_native_name(minor, info->initiator, &pac, &src))) {
        gki_trace("gk5_mech: context %p: accept by MIT (no memory for the "
                  "initiator's name)",
                  (void *)c);
        free(pac.bytes);
        return 0;
    }
    if (src_name != NULL) {
        *src_name = src;
    }
    c->gk5 = made;
    c->native = 1;
    c->open = 1;
    c->mech = token_mech(input);
    c->flags = info->gss_flags | GSS_C_PROT_READY_FLAG;
    c->endtime = info->endtime + GKI_CLOCKSKEW;
    /* Before any other thread can see the context. */
    made->endtime =
        c->endtime > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)c->endtime;
    c->initiator = info->initiator;
    c->acceptor = info->acceptor;
    c->pac = pac;
    info->initiator = NULL;
    info->acceptor = NULL;
    (void)out;
    const struct gk5_enctype *et = gk5i_enctype_get(info->context_enctype);
    gki_trace("gk5_mech: context %p accepted natively: %s for %s, %s (%d), "
              "flags 0x%x, %s",
              (void *)c, c->initiator, c->acceptor, et != NULL ? et->name : "?",
              (int)info->context_enctype, (unsigned)c->flags,
              more->pac == GK5I_PAC_VERIFIED     ? "PAC verified"
              : more->pac == GK5I_PAC_UNVERIFIED ? "PAC not verified (no "
                                                   "attribute values)"
                                                 : "no PAC");
    return 1;
}

OM_uint32 gki_native_accept(OM_uint32 *minor, gki_ctx *c, gss_cred_id_t cred,
                            gss_buffer_t input, gss_channel_bindings_t cb,
                            gss_name_t *src_name, gss_OID *mech_type,
                            gss_buffer_t output, OM_uint32 *ret_flags,
                            OM_uint32 *time_rec, gss_cred_id_t *delegated)
{
    char kt[1024];
    char *want = NULL;
    gk5_acceptor_cred *g;
    gk5_channel_bindings gcb;
    gk5_buffer in, out = {0, NULL};
    gk5_accept_info info;
    gk5_ctx *made = NULL;
    uint32_t major, err = 0;
    struct gk5i_accept_more more;
    int took;

    if (!gki_accept_native()) {
        gki_trace("gk5_mech: context %p: accept by MIT (native accept is "
                  "off)",
                  (void *)c);
        return GKI_TO_MIT;
    }
    if (input == GSS_C_NO_BUFFER || input->length == 0 || output == NULL) {
        gki_trace("gk5_mech: context %p: accept by MIT (no input token)",
                  (void *)c);
        return GKI_TO_MIT;
    }
    if (cred == GSS_C_NO_CREDENTIAL) {
        if (gki_default_keytab(kt, sizeof(kt)) != 0) {
            gki_trace("gk5_mech: context %p: accept by MIT (the default "
                      "keytab's name is unknown)",
                      (void *)c);
            return GKI_TO_MIT;
        }
    } else if (gki_cred_lookup(cred, kt, sizeof(kt), &want) != 0) {
        gki_trace("gk5_mech: context %p: accept by MIT (a credential not "
                  "made by gss_acquire_cred from a keytab)",
                  (void *)c);
        return GKI_TO_MIT;
    }
    g = gki_kt_cred(kt, &major, &err);
    if (g == NULL) {
        gki_trace("gk5_mech: context %p: accept by MIT (keytab %s: %s)",
                  (void *)c, kt, gk5_display_status(major, err));
        free(want);
        return GKI_TO_MIT;
    }
    in.length = input->length;
    in.value = input->value;
    if (cb != GSS_C_NO_CHANNEL_BINDINGS) {
        cb_of(cb, &gcb);
    }
    major = gk5i_accept_more(&err, g, &in,
                             cb != GSS_C_NO_CHANNEL_BINDINGS ? &gcb : NULL,
                             &out, &made, &info, &more);
    if (GK5_ERROR(major) != 0) {
        free(want);
        if (cannot_serve(major, err)) {
            gk5_buffer_release(&out);
            gki_trace("gk5_mech: context %p: accept by MIT (gk5 cannot "
                      "serve: %s)",
                      (void *)c, gk5_display_status(major, err));
            return GKI_TO_MIT;
        }
        gki_trace("gk5_mech: context %p: accept refused natively: %s",
                  (void *)c, gk5_display_status(major, err));
        /* The KRB-ERROR token, when the initiator expects an answer. */
        output->length = out.length;
        output->value = out.length > 0 ? out.value : NULL;
        if (out.length == 0) {
            gk5_buffer_release(&out);
        }
        *minor = gki_minor(err);
        return major;
    }
    took =
        take_native(minor, c, input, want, made, &out, &info, &more, src_name);
    free(want);
    gk5_accept_info_release(&info);
    if (!took) {
        gk5_ctx_free(made);
        gk5_buffer_release(&out);
        *minor = 0;
        return GKI_TO_MIT;
    }
    output->length = out.length;
    output->value = out.length > 0 ? out.value : NULL;
    if (out.length == 0) {
        gk5_buffer_release(&out);
    }
    if (mech_type != NULL) {
        *mech_type = c->mech;
    }
    if (ret_flags != NULL) {
        *ret_flags = c->flags;
    }
    if (time_rec != NULL) {
        (void)gki_native_ctx_time(c, time_rec);
    }
    if (delegated != NULL) {
        *delegated = GSS_C_NO_CREDENTIAL;
    }
    *minor = 0;
    return GSS_S_COMPLETE;
}
