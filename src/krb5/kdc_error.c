/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * KRB-ERRORs in words, for gk5_krb_last_error(): a KDC's or an acceptor's
 * error code as a gk5 error code, and its name, code and e-text (for
 * KRB_AP_ERR_SKEW the clocks' difference too) kept for this thread, with
 * the skew the thread's exchange allows and the enctype of the ticket the
 * last KDC reply was refused for.
 */
#include <stdio.h>

#include "../common/trace.h"
#include "kdc_int.h"

/* RFC 4120 7.5.9 error codes the client acts on. */
#define KDC_ERR_C_PRINCIPAL_UNKNOWN 6
#define KDC_ERR_S_PRINCIPAL_UNKNOWN 7
#define KDC_ERR_ETYPE_NOSUPP 14
#define KDC_ERR_KEY_EXPIRED 23
#define KDC_ERR_PREAUTH_FAILED 24
#define KRB_AP_ERR_BAD_INTEGRITY 31
#define KRB_AP_ERR_TKT_EXPIRED 32
#define KRB_AP_ERR_TKT_NYV 33
#define KRB_AP_ERR_REPEAT 34
#define KRB_AP_ERR_NOT_US 35
#define KRB_AP_ERR_BADMATCH 36
#define KRB_AP_ERR_SKEW 37
#define KRB_AP_ERR_MODIFIED 41
#define KRB_AP_ERR_BADKEYVER 44
#define KRB_AP_ERR_NOKEY 45
#define KRB_AP_ERR_METHOD 48
#define KRB_AP_ERR_INAPP_CKSUM 50

/* RFC 4120 7.5.9, and RFC 4556/6113 for the codes above 61. */
static const char *const krb_error_names[] = {
    [0] = "KDC_ERR_NONE",
    [1] = "KDC_ERR_NAME_EXP",
    [2] = "KDC_ERR_SERVICE_EXP",
    [3] = "KDC_ERR_BAD_PVNO",
    [4] = "KDC_ERR_C_OLD_MAST_KVNO",
    [5] = "KDC_ERR_S_OLD_MAST_KVNO",
    [6] = "KDC_ERR_C_PRINCIPAL_UNKNOWN",
    [7] = "KDC_ERR_S_PRINCIPAL_UNKNOWN",
    [8] = "KDC_ERR_PRINCIPAL_NOT_UNIQUE",
    [9] = "KDC_ERR_NULL_KEY",
    [10] = "KDC_ERR_CANNOT_POSTDATE",
    [11] = "KDC_ERR_NEVER_VALID",
    [12] = "KDC_ERR_POLICY",
    [13] = "KDC_ERR_BADOPTION",
    [14] = "KDC_ERR_ETYPE_NOSUPP",
    [15] = "KDC_ERR_SUMTYPE_NOSUPP",
    [16] = "KDC_ERR_PADATA_TYPE_NOSUPP",
    [17] = "KDC_ERR_TRTYPE_NOSUPP",
    [18] = "KDC_ERR_CLIENT_REVOKED",
    [19] = "KDC_ERR_SERVICE_REVOKED",
    [20] = "KDC_ERR_TGT_REVOKED",
    [21] = "KDC_ERR_CLIENT_NOTYET",
    [22] = "KDC_ERR_SERVICE_NOTYET",
    [23] = "KDC_ERR_KEY_EXPIRED",
    [24] = "KDC_ERR_PREAUTH_FAILED",
    [25] = "KDC_ERR_PREAUTH_REQUIRED",
    [26] = "KDC_ERR_SERVER_NOMATCH",
    [27] = "KDC_ERR_MUST_USE_USER2USER",
    [28] = "KDC_ERR_PATH_NOT_ACCEPTED",
    [29] = "KDC_ERR_SVC_UNAVAILABLE",
    [31] = "KRB_AP_ERR_BAD_INTEGRITY",
    [32] = "KRB_AP_ERR_TKT_EXPIRED",
    [33] = "KRB_AP_ERR_TKT_NYV",
    [34] = "KRB_AP_ERR_REPEAT",
    [35] = "KRB_AP_ERR_NOT_US",
    [36] = "KRB_AP_ERR_BADMATCH",
    [37] = "KRB_AP_ERR_SKEW",
    [38] = "KRB_AP_ERR_BADADDR",
    [39] = "KRB_AP_ERR_BADVERSION",
    [40] = "KRB_AP_ERR_MSG_TYPE",
    [41] = "KRB_AP_ERR_MODIFIED",
    [42] = "KRB_AP_ERR_BADORDER",
    [44] = "KRB_AP_ERR_BADKEYVER",
    [45] = "KRB_AP_ERR_NOKEY",
    [46] = "KRB_AP_ERR_MUT_FAIL",
    [47] = "KRB_AP_ERR_BADDIRECTION",
    [48] = "KRB_AP_ERR_METHOD",
    [49] = "KRB_AP_ERR_BADSEQ",
    [50] = "KRB_AP_ERR_INAPP_CKSUM",
    [51] = "KRB_AP_PATH_NOT_ACCEPTED",
    [52] = "KRB_ERR_RESPONSE_TOO_BIG",
    [60] = "KRB_ERR_GENERIC",
    [61] = "KRB_ERR_FIELD_TOOLONG",
    [62] = "KDC_ERROR_CLIENT_NOT_TRUSTED",
    [63] = "KDC_ERROR_KDC_NOT_TRUSTED",
    [64] = "KDC_ERROR_INVALID_SIG",
    [65] = "KDC_ERR_KEY_TOO_WEAK",
    [66] = "KDC_ERR_CERTIFICATE_MISMATCH",
    [67] = "KRB_AP_ERR_NO_TGT",
    [68] = "KDC_ERR_WRONG_REALM",
    [69] = "KRB_AP_ERR_USER_TO_USER_REQUIRED",
    [70] = "KDC_ERR_CANT_VERIFY_CERTIFICATE",
    [71] = "KDC_ERR_INVALID_CERTIFICATE",
    [72] = "KDC_ERR_REVOKED_CERTIFICATE",
    [73] = "KDC_ERR_REVOCATION_STATUS_UNKNOWN",
    [74] = "KDC_ERR_REVOCATION_STATUS_UNAVAILABLE",
    [75] = "KDC_ERR_CLIENT_NAME_MISMATCH",
    [76] = "KDC_ERR_KDC_NAME_MISMATCH",
    [93] = "KDC_ERR_UNKNOWN_CRITICAL_FAST_OPTIONS",
};

#define LAST_ERROR_MAX 512
static _Thread_local char last_error[LAST_ERROR_MAX];
static _Thread_local bool last_error_set;
/* The skew this thread's exchange allows, for the words of
 * KRB_AP_ERR_SKEW (the KRB-ERROR does not carry the peer's). */
static _Thread_local uint32_t note_skew = 300;
/* The enctype of the ticket whose encrypted part (the service's key) the
 * last reply on this thread was refused for; 0 if none. */
static _Thread_local int32_t refused_ticket;

static const char *krb_error_name(int32_t code)
{
    if (code >= 0 && (size_t)code < GK5_ARRAY_SIZE(krb_error_names) &&
        krb_error_names[code] != NULL) {
        return krb_error_names[code];
    }
    return "unknown KRB-ERROR";
}

void gk5i_krb_error_clear(void)
{
    last_error_set = false;
    last_error[0] = '\0';
    refused_ticket = 0;
}

int32_t gk5i_kdc_refused_ticket(void)
{
    return refused_ticket;
}

void gk5i_kdc_note_skew(uint32_t skew)
{
    note_skew = skew;
}

void gk5i_kdc_refuse_ticket(int32_t etype)
{
    refused_ticket = etype;
}

GK5_EXPORT const char *gk5_krb_last_error(void)
{
    return last_error_set ? last_error : NULL;
}

static uint32_t kdc_error_code(int32_t code)
{
    switch (code) {
    case KDC_ERR_C_PRINCIPAL_UNKNOWN:
    case KDC_ERR_S_PRINCIPAL_UNKNOWN:
        return GK5_ERR_KDC_PRINCIPAL_UNKNOWN;
    case KDC_ERR_KEY_EXPIRED:
        return GK5_ERR_KDC_KEY_EXPIRED;
    case KDC_ERR_PREAUTH_FAILED:
        return GK5_ERR_KDC_PREAUTH_FAILED;
    case KDC_ERR_ETYPE_NOSUPP:
        return GK5_ERR_KDC_ETYPE_NOSUPP;
    case KRB_AP_ERR_SKEW:
        return GK5_ERR_AP_SKEW;
    default:
        return GK5_ERR_KDC_ERROR;
    }
}

static uint32_t acceptor_error_code(int32_t code)
{
    switch (code) {
    case KRB_AP_ERR_BAD_INTEGRITY:
    case KRB_AP_ERR_MODIFIED:
        return GK5_ERR_AP_MODIFIED;
    case KRB_AP_ERR_TKT_EXPIRED:
        return GK5_ERR_AP_TKT_EXPIRED;
    case KRB_AP_ERR_TKT_NYV:
        return GK5_ERR_AP_TKT_NYV;
    case KRB_AP_ERR_REPEAT:
        return GK5_ERR_AP_REPEAT;
    case KRB_AP_ERR_NOT_US:
        return GK5_ERR_AP_WRONG_PRINC;
    case KRB_AP_ERR_BADMATCH:
        return GK5_ERR_AP_BADMATCH;
    case KRB_AP_ERR_SKEW:
        return GK5_ERR_AP_SKEW;
    case KRB_AP_ERR_BADKEYVER:
        return GK5_ERR_AP_BADKEYVER;
    case KRB_AP_ERR_NOKEY:
        return GK5_ERR_AP_NOKEY;
    case KRB_AP_ERR_METHOD:
        return GK5_ERR_AP_USER_TO_USER;
    case KRB_AP_ERR_INAPP_CKSUM:
        return GK5_ERR_AP_CHECKSUM;
    default:
        return GK5_ERR_ACCEPTOR_ERROR;
    }
}

/* Appends the peer's text, its control and non-ASCII bytes as '?': the
 * words end up on a terminal. */
static void append_text(char *buf, size_t cap, size_t *o, struct gk5i_view t)
{
    for (size_t i = 0; i < t.len && *o + 1 < cap; i++) {
        uint8_t c = t.p[i];
        buf[(*o)++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[*o < cap ? *o : cap - 1] = '\0';
}

uint32_t gk5i_krb_error_note(const struct gk5i_krb_error *e, bool as_kdc,
                             int64_t now)
{
    size_t o;
    int n;

    n = snprintf(last_error, sizeof(last_error), "%s (%d)",
                 krb_error_name(e->error_code), (int)e->error_code);
    o = n < 0 ? 0 : (size_t)n;
    if (o >= sizeof(last_error)) {
        o = sizeof(last_error) - 1;
    }
    if (e->error_code == KRB_AP_ERR_SKEW) {
        int64_t d = e->stime - now;
        n = snprintf(last_error + o, sizeof(last_error) - o,
                     ": clocks differ by %lld s, more than the %u s allowed",
                     (long long)(d < 0 ? -d : d), (unsigned)note_skew);
        o += n < 0 ? 0 : (size_t)n;
        if (o >= sizeof(last_error)) {
            o = sizeof(last_error) - 1;
        }
    }
    if (e->has_e_text && e->e_text.len > 0 && o + 3 < sizeof(last_error)) {
        struct gk5i_view t = e->e_text;
        /* MIT's KDC ends some texts with a NUL. */
        while (t.len > 0 && t.p[t.len - 1] == '\0') {
            t.len--;
        }
        if (t.len > 0) {
            last_error[o++] = ':';
            last_error[o++] = ' ';
            append_text(last_error, sizeof(last_error), &o, t);
        }
    }
    last_error_set = true;
    if (GK5_TRACE_ON()) {
        gk5i_trace("krb-error from the %s: %s", as_kdc ? "KDC" : "acceptor",
                   last_error);
    }
    return as_kdc ? kdc_error_code(e->error_code)
                  : acceptor_error_code(e->error_code);
}
