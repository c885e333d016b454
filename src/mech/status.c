/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Status: where a gk5 error code becomes a GSS-API major/minor pair (the
 * major from the one error table, src/errors/errors.c), and the names and
 * words of major status codes (RFC 2744 3.9.1 numbering):
 * gk5_major_name, gk5_display_status.
 *
 * Everything below returns static text or text in a thread-local buffer,
 * never NULL.
 */
#include <stdio.h>
#include <string.h>

#include "gk5_config.h"
#include "errors/errors.h"
#include "mech_int.h"

#define STATUS_TEXT_MAX 1024

/* RFC 2744 3.9.1: the routine error is bits 16-23, numbered from 1. */
#define ROUTINE_NUM(major) (GK5_ROUTINE_ERROR(major) >> 16)
#define CALLING_NUM(major) (GK5_CALLING_ERROR(major) >> 24)

/* ---- the translation point ---- */

/* With minor == NULL nothing can be reported, so the answer is
 * CALL_INACCESSIBLE_WRITE (RFC 2744 3.9.1, calling errors). */
uint32_t gk5i_status(uint32_t *minor, uint32_t err)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = err;
    return gk5i_err_major(err);
}

/* ---- names and words for major status (RFC 2744 3.9.1) ---- */

struct status_row {
    const char *name;
    const char *words;
};

/* Indexed by routine error number. */
static const struct status_row routine_rows[] = {
    [0] = {"GSS_S_COMPLETE", "the operation completed successfully"},
    [1] = {"GSS_S_BAD_MECH", "an unsupported mechanism was requested"},
    [2] = {"GSS_S_BAD_NAME", "an invalid name was supplied"},
    [3] = {"GSS_S_BAD_NAMETYPE", "a name of an unsupported type was supplied"},
    [4] = {"GSS_S_BAD_BINDINGS", "incorrect channel bindings were supplied"},
    [5] = {"GSS_S_BAD_STATUS", "an invalid status code was supplied"},
    [6] = {"GSS_S_BAD_SIG", "the token failed its integrity check"},
    [7] = {"GSS_S_NO_CRED", "no credentials were supplied or available"},
    [8] = {"GSS_S_NO_CONTEXT", "no context has been established"},
    [9] = {"GSS_S_DEFECTIVE_TOKEN", "the token (or buffer) is malformed"},
    [10] = {"GSS_S_DEFECTIVE_CREDENTIAL", "the credential is invalid"},
    [11] = {"GSS_S_CREDENTIALS_EXPIRED", "the credentials have expired"},
    [12] = {"GSS_S_CONTEXT_EXPIRED", "the security context has expired"},
    [13] = {"GSS_S_FAILURE",
            "the operation failed (the minor status says why)"},
    [14] = {"GSS_S_BAD_QOP",
            "the requested quality of protection is not available"},
    [15] = {"GSS_S_UNAUTHORIZED", "the operation is forbidden by policy"},
    [16] = {"GSS_S_UNAVAILABLE", "the operation or option is unavailable"},
    [17] = {"GSS_S_DUPLICATE_ELEMENT", "the credential element already exists"},
    [18] = {"GSS_S_NAME_NOT_MN", "the name is not a mechanism name"},
};

/* Indexed by calling error number. */
static const struct status_row calling_rows[] = {
    [0] = {NULL, NULL},
    [1] = {"GSS_S_CALL_INACCESSIBLE_READ",
           "a required input parameter could not be read"},
    [2] = {"GSS_S_CALL_INACCESSIBLE_WRITE",
           "a required output parameter could not be written"},
    [3] = {"GSS_S_CALL_BAD_STRUCTURE", "a parameter was malformed"},
};

/* Indexed by supplementary bit number. */
static const struct status_row supp_rows[] = {
    [0] = {"GSS_S_CONTINUE_NEEDED", "the call must be repeated to complete"},
    [1] = {"GSS_S_DUPLICATE_TOKEN", "the token is a duplicate of one "
                                    "already received"},
    [2] = {"GSS_S_OLD_TOKEN", "the token is too old to be checked for "
                              "duplication"},
    [3] = {"GSS_S_UNSEQ_TOKEN", "a later token has already been received"},
    [4] = {"GSS_S_GAP_TOKEN", "an earlier expected token has not been "
                              "received"},
};

GK5_EXPORT const char *gk5_major_name(uint32_t major)
{
    uint32_t routine = ROUTINE_NUM(major);
    uint32_t calling = CALLING_NUM(major);
    uint32_t supp = GK5_SUPPLEMENTARY_INFO(major);

    if (routine != 0) {
        if (routine < GK5_ARRAY_SIZE(routine_rows)) {
            return routine_rows[routine].name;
        }
        return "GSS_S_(unknown routine error)";
    }
    if (calling != 0) {
        if (calling < GK5_ARRAY_SIZE(calling_rows)) {
            return calling_rows[calling].name;
        }
        return "GSS_S_(unknown calling error)";
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(supp_rows); i++) {
        if (supp & (1u << i)) {
            return supp_rows[i].name;
        }
    }
    if (supp != 0) {
        return "GSS_S_(unknown supplementary information)";
    }
    return routine_rows[0].name;
}

/* Appends "sep text" (no sep when the buffer is still empty). */
static void append(char *buf, size_t len, const char *sep, const char *text)
{
    size_t used = strlen(buf);

    if (used >= len - 1) {
        return;
    }
    snprintf(buf + used, len - used, "%s%s", used == 0 ? "" : sep, text);
}

/* Words for every part of a major status: calling error, routine error,
 * each supplementary bit; nothing for a plain GSS_S_COMPLETE. */
static void major_words(uint32_t major, char *buf, size_t len)
{
    uint32_t routine = ROUTINE_NUM(major);
    uint32_t calling = CALLING_NUM(major);
    uint32_t supp = GK5_SUPPLEMENTARY_INFO(major);
    char unknown[64];

    if (calling != 0) {
        if (calling < GK5_ARRAY_SIZE(calling_rows)) {
            append(buf, len, "; ", calling_rows[calling].words);
        } else {
            snprintf(unknown, sizeof(unknown), "unknown calling error %u",
                     (unsigned)calling);
            append(buf, len, "; ", unknown);
        }
    }
    if (routine != 0) {
        if (routine < GK5_ARRAY_SIZE(routine_rows)) {
            append(buf, len, "; ", routine_rows[routine].words);
        } else {
            snprintf(unknown, sizeof(unknown), "unknown routine error %u",
                     (unsigned)routine);
            append(buf, len, "; ", unknown);
        }
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(supp_rows); i++) {
        if (supp & (1u << i)) {
            append(buf, len, "; ", supp_rows[i].words);
        }
    }
    supp &= ~((1u << GK5_ARRAY_SIZE(supp_rows)) - 1u);
    if (supp != 0) {
        snprintf(unknown, sizeof(unknown),
                 "unknown supplementary information 0x%04x", (unsigned)supp);
        append(buf, len, "; ", unknown);
    }
}

GK5_EXPORT const char *gk5_display_status(uint32_t major, uint32_t minor)
{
    static _Thread_local char text[STATUS_TEXT_MAX];

    text[0] = '\0';
    major_words(major, text, sizeof(text));
    if (minor != 0) {
        append(text, sizeof(text), ": ", gk5_strerror(minor));
    }
    if (text[0] == '\0') {
        append(text, sizeof(text), "", routine_rows[0].words);
    }
    return text;
}

GK5_EXPORT const char *gk5_version(void)
{
    return GK5_VERSION;
}
