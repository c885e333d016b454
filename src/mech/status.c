/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Status: the ONLY place where gk5 error codes become GSS-API major status
 * codes (RFC 2744 3.9.1 numbering), and the words for both.
 *
 * Everything below returns static text or text in a thread-local buffer,
 * never NULL.  The words for a failed integrity check are one sentence
 * whatever failed (MAC, padding, EC, decryption), so a caller or an
 * attacker watching the words learns nothing about which check it was.
 */
#include <stdio.h>
#include <string.h>

#include "gk5_config.h"
#include "mech_int.h"

#define STATUS_TEXT_MAX 1024

/* RFC 2744 3.9.1: the routine error is bits 16-23, numbered from 1. */
#define ROUTINE_NUM(major) (GK5_ROUTINE_ERROR(major) >> 16)
#define CALLING_NUM(major) (GK5_CALLING_ERROR(major) >> 24)

/* ---- errors to major status ---- */

/*
 * The translation point (RFC 2744 3.9.1): integrity failure is BAD_SIG, a
 * malformed token or context buffer DEFECTIVE_TOKEN, an enctype gk5 will
 * not use UNAVAILABLE, a receive-window verdict its supplementary bit;
 * anything else FAILURE.  With minor == NULL nothing can be reported, so
 * the answer is CALL_INACCESSIBLE_WRITE (RFC 2744 3.9.1, calling errors).
 */
uint32_t gk5i_status(uint32_t *minor, uint32_t err)
{
    if (minor == NULL) {
        return GK5_S_CALL_INACCESSIBLE_WRITE;
    }
    *minor = err;

    switch ((enum gk5_err)GK5_ERR_CODE(err)) {
    case GK5_OK:
        return GK5_S_COMPLETE;
    case GK5_ERR_INTEGRITY:
        return GK5_S_BAD_SIG;
    case GK5_ERR_BAD_CIPHERTEXT_LENGTH:
    case GK5_ERR_TOKEN_TRUNCATED:
    case GK5_ERR_TOKEN_ID:
    case GK5_ERR_TOKEN_FILLER:
    case GK5_ERR_TOKEN_FLAGS:
    case GK5_ERR_TOKEN_DIRECTION:
    case GK5_ERR_TOKEN_SUBKEY_FLAG:
    case GK5_ERR_TOKEN_EC:
    case GK5_ERR_TOKEN_ALG:
    case GK5_ERR_TOKEN_FRAMING:
    case GK5_ERR_TOKEN_TRAILING:
    case GK5_ERR_IMPORT_TRUNCATED:
    case GK5_ERR_IMPORT_TOO_LONG:
    case GK5_ERR_IMPORT_FLAGS:
    case GK5_ERR_IMPORT_VERSION:
    case GK5_ERR_IMPORT_PROTOCOL:
    case GK5_ERR_IMPORT_KEY_LENGTH:
    case GK5_ERR_IMPORT_DIGEST:
        return GK5_S_DEFECTIVE_TOKEN;
    case GK5_ERR_CTX_EXPIRED:
        return GK5_S_CONTEXT_EXPIRED;
    case GK5_ERR_CTX_NO_CONTEXT:
        return GK5_S_NO_CONTEXT;
    case GK5_ERR_BAD_QOP:
        return GK5_S_BAD_QOP;
    case GK5_ERR_ENCTYPE_UNKNOWN:
    case GK5_ERR_ENCTYPE_REJECTED:
    case GK5_ERR_ENCTYPE_NOT_BUILT:
        return GK5_S_UNAVAILABLE;
    case GK5_ERR_NOMEM:
    case GK5_ERR_INVALID_ARGUMENT:
    case GK5_ERR_CRYPTO_BACKEND:
    case GK5_ERR_BUFFER_TOO_SMALL:
    case GK5_ERR_BAD_KEY_LENGTH:
    case GK5_ERR_BAD_S2K_PARAMS:
    case GK5_ERR_S2K_WEAK:
    case GK5_ERR_BAD_IOV:
    case GK5_ERR_CTX_SEQ_EXHAUSTED:
    case GK5_ERR_CONF_UNAVAILABLE:
    case GK5_ERR_MIT:
    case GK5_ERR_EXPORT_IN_USE:
    /* Retired codes (gk5.h): nothing returns them any more. */
    case GK5_ERR_RESERVED_12:
    case GK5_ERR_RESERVED_21:
    case GK5_ERR_RESERVED_34:
    case GK5_ERR_RESERVED_35:
    case GK5_ERR_RESERVED_36:
    case GK5_ERR_RESERVED_37:
    case GK5_ERR__COUNT:
        break;
    }
    return GK5_S_FAILURE;
}

/* ---- words for minor codes ---- */

/* Fixed words for a code; NULL for the enctype codes (their words come
 * from the table) and for values outside the enum.  A switch without a
 * default, so that the compiler names any enum value left without words. */
static const char *err_words(uint32_t code)
{
    switch ((enum gk5_err)code) {
    case GK5_OK:
        return "success";
    case GK5_ERR_NOMEM:
        return "out of memory";
    case GK5_ERR_INVALID_ARGUMENT:
        return "invalid argument (a NULL pointer, an unknown flag or a bad "
               "length)";
    case GK5_ERR_CRYPTO_BACKEND:
        return "the OpenSSL crypto backend failed unexpectedly";
    case GK5_ERR_BUFFER_TOO_SMALL:
        return "the output buffer is too small";
    case GK5_ERR_ENCTYPE_UNKNOWN:
    case GK5_ERR_ENCTYPE_REJECTED:
    case GK5_ERR_ENCTYPE_NOT_BUILT:
        return NULL;
    case GK5_ERR_BAD_KEY_LENGTH:
        return "the key does not have the enctype's key length";
    case GK5_ERR_BAD_CIPHERTEXT_LENGTH:
        return "the ciphertext is too short or not a whole number of blocks";
    case GK5_ERR_INTEGRITY:
        return "the integrity check failed: the data was altered or the key "
               "is wrong";
    case GK5_ERR_BAD_S2K_PARAMS:
        return "the string-to-key parameters are malformed";
    case GK5_ERR_S2K_WEAK:
        return "the string-to-key iteration count is below the enctype's "
               "default (4096 for aes-sha1, 32768 for aes-sha2 and camellia), "
               "as MIT krb5 refuses too; such keys are for test vectors "
               "only (GK5_S2K_ALLOW_WEAK)";
    case GK5_ERR_RESERVED_12:
        return "reserved gk5 error code 12, which no gk5 call returns "
               "(formerly: the key usage number is not acceptable)";
    case GK5_ERR_BAD_IOV:
        return "an IOV buffer is missing, duplicated or of the wrong size";
    case GK5_ERR_TOKEN_TRUNCATED:
        return "the token is shorter than its header says";
    case GK5_ERR_TOKEN_ID:
        return "the token ID is wrong: not a token of the expected kind";
    case GK5_ERR_TOKEN_FILLER:
        return "the token's filler bytes are not 0xff";
    case GK5_ERR_TOKEN_FLAGS:
        return "the token's flags are unknown or inconsistent";
    case GK5_ERR_TOKEN_DIRECTION:
        return "the token was sent in our own direction (a reflected token)";
    case GK5_ERR_TOKEN_SUBKEY_FLAG:
        return "the token's AcceptorSubkey flag does not match the context";
    case GK5_ERR_TOKEN_EC:
        return "the token's EC field does not fit its lengths";
    case GK5_ERR_RESERVED_21:
        return "reserved gk5 error code 21, which no gk5 call returns "
               "(formerly: the encrypted copy of the token header differs "
               "from the header)";
    case GK5_ERR_TOKEN_ALG:
        return "the token's SGN_ALG or SEAL_ALG is not the context's "
               "(RFC 1964)";
    case GK5_ERR_TOKEN_FRAMING:
        return "the token's RFC 2743 3.1 framing or mechanism OID is wrong";
    case GK5_ERR_TOKEN_TRAILING:
        return "bytes follow the end of the token";
    case GK5_ERR_CTX_EXPIRED:
        return "the security context has expired";
    case GK5_ERR_CTX_NO_CONTEXT:
        return "no security context was given";
    case GK5_ERR_CTX_SEQ_EXHAUSTED:
        return "the context's send sequence numbers are used up: establish "
               "a new context";
    case GK5_ERR_IMPORT_TRUNCATED:
        return "the context buffer is shorter than its fields";
    case GK5_ERR_IMPORT_TOO_LONG:
        return "the context buffer has bytes left over after its last field";
    case GK5_ERR_IMPORT_FLAGS:
        return "the context buffer has unknown flag bits";
    case GK5_ERR_IMPORT_VERSION:
        return "the context buffer's format or version is not one gk5 knows";
    case GK5_ERR_IMPORT_PROTOCOL:
        return "the context's protocol, algorithms or flags do not fit its "
               "enctype";
    case GK5_ERR_IMPORT_KEY_LENGTH:
        return "a key in the context buffer does not have its enctype's "
               "length";
    case GK5_ERR_IMPORT_DIGEST:
        return "the context buffer's digest does not match its contents: it "
               "was changed or damaged";
    /* The receive window reports through the supplementary bits of the
     * major status, whose words are below; these four minor codes were
     * never returned. */
    case GK5_ERR_RESERVED_34:
        return "reserved gk5 error code 34, which no gk5 call returns "
               "(formerly: duplicate token)";
    case GK5_ERR_RESERVED_35:
        return "reserved gk5 error code 35, which no gk5 call returns "
               "(formerly: old token)";
    case GK5_ERR_RESERVED_36:
        return "reserved gk5 error code 36, which no gk5 call returns "
               "(formerly: out-of-sequence token)";
    case GK5_ERR_RESERVED_37:
        return "reserved gk5 error code 37, which no gk5 call returns "
               "(formerly: gap in the sequence)";
    case GK5_ERR_BAD_QOP:
        return "unsupported quality of protection (only the default, 0)";
    case GK5_ERR_CONF_UNAVAILABLE:
        return "confidentiality is not available";
    case GK5_ERR_MIT:
        return "an MIT krb5 GSS-API call failed (gk5_mit_display_status "
               "gives MIT's words)";
    case GK5_ERR_EXPORT_IN_USE:
        return "gk5 has already made or taken tokens on this context: MIT's "
               "export of it would send sequence numbers twice";
    case GK5_ERR__COUNT:
        break;
    }
    return NULL;
}

/* Does the table's row say what the code says?  (A bare REJECTED code
 * carries enctype 0, which the table does not know.) */
static bool enctype_code_matches_row(uint32_t err)
{
    const struct gk5_enctype *row = gk5i_enctype_get(GK5_ERR_ENCTYPE(err));

    switch (GK5_ERR_CODE(err)) {
    case GK5_ERR_ENCTYPE_UNKNOWN:
        return row == NULL;
    case GK5_ERR_ENCTYPE_REJECTED:
        return row != NULL && row->state == GK5_ENCTYPE_REJECTED;
    case GK5_ERR_ENCTYPE_NOT_BUILT:
        return row != NULL && row->state == GK5_ENCTYPE_NOT_BUILT;
    default:
        return false;
    }
}

static void enctype_words(uint32_t err, char *buf, size_t len)
{
    int et = (int)GK5_ERR_ENCTYPE(err);

    if (enctype_code_matches_row(err)) {
        gk5i_enctype_error_words(err, buf, len);
    } else if (GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_UNKNOWN) {
        /* A known number reported as unknown: still say the number. */
        snprintf(buf, len, "enctype %d is not one gk5 can use here", et);
    } else if (GK5_ERR_CODE(err) == GK5_ERR_ENCTYPE_REJECTED) {
        snprintf(buf, len,
                 "enctype %d is refused by policy (RFC 8429, RFC 6649)", et);
    } else {
        snprintf(buf, len, "enctype %d is not built into this gk5", et);
    }
}

GK5_EXPORT const char *gk5_strerror(uint32_t err)
{
    static _Thread_local char text[STATUS_TEXT_MAX];
    uint32_t code = GK5_ERR_CODE(err);
    const char *words;

    if (code == GK5_ERR_ENCTYPE_UNKNOWN || code == GK5_ERR_ENCTYPE_REJECTED ||
        code == GK5_ERR_ENCTYPE_NOT_BUILT) {
        enctype_words(err, text, sizeof(text));
        return text;
    }
    words = err_words(code);
    if (words != NULL) {
        return words;
    }
    snprintf(text, sizeof(text), "unknown gk5 error code %u", (unsigned)err);
    return text;
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
