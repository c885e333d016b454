/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The one error table: for each gk5 error code (enum gk5_err in gk5.h,
 * returned by every layer: the RFC 3961 crypto API, the token layers,
 * native establishment) its GSS-API major status and its words, and
 * gk5_strerror.  src/mech/status.c turns codes into major/minor pairs
 * through gk5i_err_major; nothing else maps a code to a major status.
 *
 * The words for a failed integrity check are one sentence whatever failed
 * (MAC, padding, EC, decryption), so a caller or an attacker watching the
 * words learns nothing about which check it was.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gk5/gk5.h>

#include "gk5_config.h"
#include "common/util.h"
#include "crypto/crypto_int.h"
#include "errors/errors.h"

#define ERR_TEXT_MAX 1024

/* ---- the error table ---- */

/*
 * One row per gk5 error code, indexed by the code: its major status and its
 * words.  The translation point (RFC 2744 3.9.1): integrity failure is
 * BAD_SIG, a malformed token or context buffer DEFECTIVE_TOKEN, an enctype
 * gk5 will not use UNAVAILABLE; anything else FAILURE.  (A receive-window
 * verdict is a supplementary bit of the major status with minor 0, never a
 * code here.)
 */
struct err_row {
    uint32_t major;
    /* NULL only on the rows of the enctype codes, whose words come from
     * the enctype table (enctype_words) */
    const char *words;
    bool enctype; /* the enctype rides in the high 16 bits */
};

/* Indexed by the code. */
static const struct err_row err_rows[] = {
    [GK5_OK] = {GK5_S_COMPLETE, "success", false},
    [GK5_ERR_NOMEM] = {GK5_S_FAILURE, "out of memory", false},
    [GK5_ERR_INVALID_ARGUMENT] = {GK5_S_FAILURE,
                                  "invalid argument (a NULL pointer, an "
                                  "unknown flag or a bad length)",
                                  false},
    [GK5_ERR_CRYPTO_BACKEND] = {GK5_S_FAILURE,
                                "the OpenSSL crypto backend failed "
                                "unexpectedly",
                                false},
    [GK5_ERR_BUFFER_TOO_SMALL] = {GK5_S_FAILURE,
                                  "the output buffer is too small", false},
    [GK5_ERR_ENCTYPE_UNKNOWN] = {GK5_S_UNAVAILABLE, NULL, true},
    [GK5_ERR_ENCTYPE_REJECTED] = {GK5_S_UNAVAILABLE, NULL, true},
    [GK5_ERR_ENCTYPE_NOT_BUILT] = {GK5_S_UNAVAILABLE, NULL, true},
    [GK5_ERR_BAD_KEY_LENGTH] = {GK5_S_FAILURE,
                                "the key does not have the enctype's key "
                                "length",
                                false},
    [GK5_ERR_BAD_CIPHERTEXT_LENGTH] = {GK5_S_DEFECTIVE_TOKEN,
                                       "the ciphertext is too short or not "
                                       "a whole number of blocks",
                                       false},
    [GK5_ERR_INTEGRITY] = {GK5_S_BAD_SIG,
                           "the integrity check failed: the data was "
                           "altered or the key is wrong",
                           false},
    [GK5_ERR_BAD_S2K_PARAMS] = {GK5_S_FAILURE,
                                "the string-to-key parameters are malformed",
                                false},
    /* Retired codes (gk5.h) keep their words, so that an old value in a
     * log still reads sensibly, and map to FAILURE. */
    [GK5_ERR_RESERVED_12] = {GK5_S_FAILURE,
                             "reserved gk5 error code 12, which no gk5 call "
                             "returns (formerly: the key usage number is "
                             "not acceptable)",
                             false},
    [GK5_ERR_BAD_IOV] = {GK5_S_FAILURE,
                         "an IOV buffer is missing, duplicated or of the "
                         "wrong size",
                         false},
    [GK5_ERR_TOKEN_TRUNCATED] = {GK5_S_DEFECTIVE_TOKEN,
                                 "the token is shorter than its header says",
                                 false},
    [GK5_ERR_TOKEN_ID] = {GK5_S_DEFECTIVE_TOKEN,
                          "the token ID is wrong: not a token of the "
                          "expected kind",
                          false},
    [GK5_ERR_TOKEN_FILLER] = {GK5_S_DEFECTIVE_TOKEN,
                              "the token's filler bytes are not 0xff", false},
    [GK5_ERR_TOKEN_FLAGS] = {GK5_S_DEFECTIVE_TOKEN,
                             "the token's flags are unknown or inconsistent",
                             false},
    [GK5_ERR_TOKEN_DIRECTION] = {GK5_S_DEFECTIVE_TOKEN,
                                 "the token was sent in our own direction "
                                 "(a reflected token)",
                                 false},
    [GK5_ERR_TOKEN_SUBKEY_FLAG] = {GK5_S_DEFECTIVE_TOKEN,
                                   "the token's AcceptorSubkey flag does not "
                                   "match the context",
                                   false},
    [GK5_ERR_TOKEN_EC] = {GK5_S_DEFECTIVE_TOKEN,
                          "the token's EC field does not fit its lengths",
                          false},
    [GK5_ERR_RESERVED_21] = {GK5_S_FAILURE,
                             "reserved gk5 error code 21, which no gk5 call "
                             "returns (formerly: the encrypted copy of the "
                             "token header differs from the header)",
                             false},
    [GK5_ERR_TOKEN_ALG] = {GK5_S_DEFECTIVE_TOKEN,
                           "the token's SGN_ALG or SEAL_ALG is not the "
                           "context's (RFC 1964)",
                           false},
    [GK5_ERR_TOKEN_FRAMING] = {GK5_S_DEFECTIVE_TOKEN,
                               "the token's RFC 2743 3.1 framing or "
                               "mechanism OID is wrong",
                               false},
    [GK5_ERR_TOKEN_TRAILING] = {GK5_S_DEFECTIVE_TOKEN,
                                "bytes follow the end of the token", false},
    [GK5_ERR_CTX_EXPIRED] = {GK5_S_CONTEXT_EXPIRED,
                             "the security context has expired", false},
    [GK5_ERR_CTX_NO_CONTEXT] = {GK5_S_NO_CONTEXT,
                                "no security context was given", false},
    [GK5_ERR_CTX_SEQ_EXHAUSTED] = {GK5_S_FAILURE,
                                   "the context's send sequence numbers are "
                                   "used up: establish a new context",
                                   false},
    [GK5_ERR_IMPORT_TRUNCATED] = {GK5_S_DEFECTIVE_TOKEN,
                                  "the context buffer is shorter than its "
                                  "fields",
                                  false},
    [GK5_ERR_IMPORT_TOO_LONG] = {GK5_S_DEFECTIVE_TOKEN,
                                 "the context buffer has bytes left over "
                                 "after its last field",
                                 false},
    [GK5_ERR_IMPORT_FLAGS] = {GK5_S_DEFECTIVE_TOKEN,
                              "the context buffer has unknown flag bits",
                              false},
    [GK5_ERR_IMPORT_VERSION] = {GK5_S_DEFECTIVE_TOKEN,
                                "the context buffer's format or version is "
                                "not one gk5 knows",
                                false},
    [GK5_ERR_IMPORT_PROTOCOL] = {GK5_S_DEFECTIVE_TOKEN,
                                 "the context's protocol, algorithms or "
                                 "flags do not fit its enctype",
                                 false},
    [GK5_ERR_IMPORT_KEY_LENGTH] = {GK5_S_DEFECTIVE_TOKEN,
                                   "a key in the context buffer does not "
                                   "have its enctype's length",
                                   false},
    /* The receive window reports through the supplementary bits of the
     * major status, whose words are below; these four were never
     * returned. */
    [GK5_ERR_RESERVED_34] = {GK5_S_FAILURE,
                             "reserved gk5 error code 34, which no gk5 call "
                             "returns (formerly: duplicate token)",
                             false},
    [GK5_ERR_RESERVED_35] = {GK5_S_FAILURE,
                             "reserved gk5 error code 35, which no gk5 call "
                             "returns (formerly: old token)",
                             false},
    [GK5_ERR_RESERVED_36] = {GK5_S_FAILURE,
                             "reserved gk5 error code 36, which no gk5 call "
                             "returns (formerly: out-of-sequence token)",
                             false},
    [GK5_ERR_RESERVED_37] = {GK5_S_FAILURE,
                             "reserved gk5 error code 37, which no gk5 call "
                             "returns (formerly: gap in the sequence)",
                             false},
    [GK5_ERR_BAD_QOP] = {GK5_S_BAD_QOP,
                         "unsupported quality of protection (only the "
                         "default, 0)",
                         false},
    [GK5_ERR_CONF_UNAVAILABLE] = {GK5_S_FAILURE,
                                  "confidentiality is not available", false},
    [GK5_ERR_MIT] = {GK5_S_FAILURE,
                     "an MIT krb5 GSS-API call failed "
                     "(gk5_mit_display_status gives MIT's words)",
                     false},
    [GK5_ERR_EXPORT_IN_USE] = {GK5_S_FAILURE,
                               "gk5 has already made or taken tokens on this "
                               "context: MIT's export of it would send "
                               "sequence numbers twice",
                               false},
    [GK5_ERR_IMPORT_DIGEST] = {GK5_S_DEFECTIVE_TOKEN,
                               "the context buffer's digest does not match "
                               "its contents: it was changed or damaged",
                               false},
    [GK5_ERR_S2K_WEAK] = {GK5_S_FAILURE,
                          "the string-to-key iteration count is below the "
                          "enctype's default (4096 for aes-sha1, 32768 for "
                          "aes-sha2 and camellia), as MIT krb5 refuses too; "
                          "such keys are for test vectors only "
                          "(GK5_S2K_ALLOW_WEAK)",
                          false},
    [GK5_ERR_DER] = {GK5_S_DEFECTIVE_TOKEN,
                     "the Kerberos message is not strict DER of its RFC "
                     "4120 type (a bad tag, length or field, or bytes after "
                     "its end)",
                     false},
    [GK5_ERR_DER_LIMIT] = {GK5_S_DEFECTIVE_TOKEN,
                           "the Kerberos message passes a decoder limit "
                           "(256 KiB in all, 16 levels of nesting, 10 name "
                           "components)",
                           false},
    [GK5_ERR_KRB_MSG_TYPE] = {GK5_S_DEFECTIVE_TOKEN,
                              "the Kerberos message has the wrong protocol "
                              "version or message type",
                              false},
    [GK5_ERR_KEYTAB_READ] = {GK5_S_NO_CRED,
                             "the keytab file cannot be read (missing, "
                             "unreadable or too large)",
                             false},
    [GK5_ERR_KEYTAB_FORMAT] = {GK5_S_NO_CRED,
                               "the keytab file is malformed (not version "
                               "0x502 or 0x501, or an entry is truncated)",
                               false},
    [GK5_ERR_KEYTAB_NO_KEYS] = {GK5_S_NO_CRED,
                                "the keytab holds no key gk5 can use for "
                                "the principal (rc4, DES and unknown "
                                "enctypes are skipped)",
                                false},
    [GK5_ERR_AP_WRONG_PRINC] = {GK5_S_NO_CRED,
                                "the ticket is for a service this "
                                "credential holds no key for "
                                "(KRB_AP_ERR_NOT_US)",
                                false},
    [GK5_ERR_AP_BADKEYVER] = {GK5_S_NO_CRED,
                              "the keytab has no key of the ticket's key "
                              "version number: the service key changed "
                              "(KRB_AP_ERR_BADKEYVER)",
                              false},
    [GK5_ERR_AP_NOKEY] = {GK5_S_NO_CRED,
                          "the keytab has no key of the ticket's enctype "
                          "(KRB_AP_ERR_NOKEY)",
                          false},
    [GK5_ERR_AP_MODIFIED] = {GK5_S_BAD_SIG,
                             "the ticket or authenticator failed its "
                             "integrity check: altered, or encrypted in "
                             "another key (KRB_AP_ERR_MODIFIED)",
                             false},
    [GK5_ERR_AP_SKEW] = {GK5_S_FAILURE,
                         "the authenticator's time is outside the allowed "
                         "clock skew: check both clocks (KRB_AP_ERR_SKEW)",
                         false},
    [GK5_ERR_AP_TKT_EXPIRED] = {GK5_S_CREDENTIALS_EXPIRED,
                                "the ticket has expired: get a new one "
                                "(KRB_AP_ERR_TKT_EXPIRED)",
                                false},
    [GK5_ERR_AP_TKT_NYV] = {GK5_S_DEFECTIVE_CREDENTIAL,
                            "the ticket is not yet valid, or is marked "
                            "invalid (KRB_AP_ERR_TKT_NYV)",
                            false},
    [GK5_ERR_AP_BADMATCH] = {GK5_S_DEFECTIVE_CREDENTIAL,
                             "the authenticator names another client than "
                             "the ticket (KRB_AP_ERR_BADMATCH)",
                             false},
    [GK5_ERR_AP_REPEAT] = {GK5_S_FAILURE,
                           "the AP-REQ was accepted before: a replay "
                           "(KRB_AP_ERR_REPEAT)",
                           false},
    [GK5_ERR_RCACHE_FULL] = {GK5_S_FAILURE,
                             "the replay cache is full: new AP-REQs are "
                             "refused until entries expire, rather than "
                             "forgetting live ones (KRB_AP_ERR_REPEAT)",
                             false},
    [GK5_ERR_RCACHE_IO] = {GK5_S_FAILURE,
                           "the replay cache file cannot be read, locked or "
                           "written",
                           false},
    [GK5_ERR_AP_TRANSITED] = {GK5_S_FAILURE,
                              "the ticket crossed realms that its KDC did "
                              "not check (transited-policy-checked is not "
                              "set)",
                              false},
    [GK5_ERR_AP_USER_TO_USER] = {GK5_S_FAILURE,
                                 "user-to-user authentication "
                                 "(use-session-key) is not supported",
                                 false},
    [GK5_ERR_AP_DCE_STYLE] = {GK5_S_FAILURE,
                              "DCE-style establishment (GSS_C_DCE_STYLE, RPC "
                              "over SMB) is not supported",
                              false},
    [GK5_ERR_AP_CHECKSUM] = {GK5_S_DEFECTIVE_TOKEN,
                             "the authenticator checksum is missing, not "
                             "keyed, of the wrong type or malformed (RFC "
                             "4121 4.1.1)",
                             false},
    [GK5_ERR_AP_BINDINGS] = {GK5_S_BAD_BINDINGS,
                             "the channel bindings do not match the "
                             "initiator's",
                             false},
    [GK5_ERR_AP_NO_ENCTYPE] = {GK5_S_FAILURE,
                               "no enctype for the acceptor subkey that both "
                               "sides support (RFC 4537)",
                               false},
    [GK5_ERR_AP_BEFORE_START] = {GK5_S_FAILURE,
                                 "the authenticator was made before this "
                                 "acceptor's in-memory replay cache began, so "
                                 "it may replay one accepted before a restart "
                                 "(KRB_AP_ERR_REPEAT); a new AP-REQ is "
                                 "accepted",
                                 false},
    [GK5_ERR_CONFIG] =
        {GK5_S_FAILURE,
         "the Kerberos configuration (krb5.conf) cannot be read or is "
         "malformed",
         false},
    [GK5_ERR_CONFIG_REALM] =
        {GK5_S_FAILURE,
         "no realm was given and krb5.conf names no default_realm", false},
    [GK5_ERR_CONFIG_NO_KDC] =
        {GK5_S_FAILURE,
         "krb5.conf lists no KDC for the realm (DNS lookup of KDCs is "
         "not supported)",
         false},
    [GK5_ERR_CCACHE_TYPE] =
        {GK5_S_NO_CRED,
         "the credential cache type is not supported (only FILE: "
         "caches are)",
         false},
    [GK5_ERR_CCACHE_NOT_FOUND] =
        {GK5_S_NO_CRED, "the credential cache does not exist (run kinit first)",
         false},
    [GK5_ERR_CCACHE_READ] =
        {GK5_S_NO_CRED, "the credential cache cannot be opened, locked or read",
         false},
    [GK5_ERR_CCACHE_FORMAT] =
        {GK5_S_NO_CRED,
         "the credential cache file is malformed or truncated (not "
         "MIT's FILE format version 3 or 4)",
         false},
    [GK5_ERR_CCACHE_WRITE] = {GK5_S_FAILURE,
                              "the credential cache cannot be written", false},
    [GK5_ERR_NO_TGT] =
        {GK5_S_NO_CRED,
         "no ticket-granting ticket for the client in the credential "
         "cache (run kinit first)",
         false},
    [GK5_ERR_TICKET_EXPIRED] =
        {GK5_S_CREDENTIALS_EXPIRED,
         "the tickets in the credential cache have expired (run kinit "
         "again)",
         false},
    [GK5_ERR_KDC_UNREACHABLE] = {GK5_S_FAILURE,
                                 "no KDC of the realm answered in time", false},
    [GK5_ERR_KDC_REPLY] =
        {GK5_S_FAILURE, "the KDC's answer is not a well-formed Kerberos reply",
         false},
    [GK5_ERR_KDC_NONCE] =
        {GK5_S_FAILURE,
         "the KDC reply's nonce is not the request's: it answers "
         "another request",
         false},
    [GK5_ERR_KDC_CNAME] =
        {GK5_S_FAILURE,
         "the KDC reply names another client or realm than the request", false},
    [GK5_ERR_KDC_SNAME] =
        {GK5_S_FAILURE,
         "the KDC reply's encrypted part names another service than "
         "the request (CVE-2017-11103)",
         false},
    [GK5_ERR_KDC_MODIFIED] =
        {GK5_S_FAILURE,
         "the KDC reply does not decrypt with the client's key: wrong "
         "password or key, or the reply was modified",
         false},
    [GK5_ERR_KDC_REFERRAL] =
        {GK5_S_FAILURE,
         "the KDC answered with a referral or another realm's ticket "
         "(cross-realm is not supported)",
         false},
    [GK5_ERR_KDC_PREAUTH_FAILED] =
        {GK5_S_FAILURE,
         "the KDC refused the pre-authentication: wrong password or "
         "key (KDC_ERR_PREAUTH_FAILED)",
         false},
    [GK5_ERR_KDC_PRINCIPAL_UNKNOWN] =
        {GK5_S_FAILURE,
         "the KDC does not know the client or service principal "
         "(KDC_ERR_C_PRINCIPAL_UNKNOWN or KDC_ERR_S_PRINCIPAL_UNKNOWN)",
         false},
    [GK5_ERR_KDC_KEY_EXPIRED] =
        {GK5_S_FAILURE,
         "the client's password has expired (KDC_ERR_KEY_EXPIRED): "
         "change it with kpasswd",
         false},
    [GK5_ERR_KDC_ETYPE_NOSUPP] =
        {GK5_S_FAILURE,
         "the KDC shares no enctype with gk5 for this principal "
         "(KDC_ERR_ETYPE_NOSUPP): one with rc4 keys alone gets this, as "
         "gk5 never asks for rc4 (RFC 8429); an Active Directory account "
         "needs AES in its msDS-SupportedEncryptionTypes (0x18)",
         false},
    [GK5_ERR_KDC_ERROR] =
        {GK5_S_FAILURE,
         "the KDC refused the request (gk5_krb_last_error() has its "
         "error code and text)",
         false},
    [GK5_ERR_PASSWORD] = {GK5_S_FAILURE, "no password could be read", false},
    [GK5_ERR_AP_REP_MISMATCH] =
        {GK5_S_FAILURE,
         "the acceptor's AP-REP does not answer this initiator's "
         "AP-REQ (wrong time or key)",
         false},
    [GK5_ERR_ACCEPTOR_ERROR] =
        {GK5_S_FAILURE,
         "the acceptor refused the AP-REQ with a KRB-ERROR "
         "(gk5_krb_last_error() has its error code and text)",
         false},
};

/* A code added to enum gk5_err needs a row (and GK5I_ERR_COUNT moves with
 * it); a code skipped in the middle would be a row of zeros, which
 * err_row() takes for no code at all (FAILURE, "unknown"), and which
 * tests/unit/test_status.c catches. */
_Static_assert(GK5_ARRAY_SIZE(err_rows) == GK5I_ERR_COUNT,
               "every gk5 error code has a row in err_rows");

/* The row of a code, or NULL for a value that is not a code. */
static const struct err_row *err_row(uint32_t code)
{
    const struct err_row *row;

    if (code >= GK5_ARRAY_SIZE(err_rows)) {
        return NULL;
    }
    row = &err_rows[code];
    return row->words != NULL || row->enctype ? row : NULL;
}

uint32_t gk5i_err_major(uint32_t err)
{
    const struct err_row *row = err_row(GK5_ERR_CODE(err));

    return row != NULL ? row->major : GK5_S_FAILURE;
}

/* ---- words for minor codes ---- */

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
    static _Thread_local char text[ERR_TEXT_MAX];
    const struct err_row *row = err_row(GK5_ERR_CODE(err));

    if (row != NULL && row->enctype) {
        enctype_words(err, text, sizeof(text));
        return text;
    }
    if (row != NULL) {
        return row->words;
    }
    snprintf(text, sizeof(text), "unknown gk5 error code %u", (unsigned)err);
    return text;
}
