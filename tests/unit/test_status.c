/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * src/mech/status.c: the one translation from gk5 error codes to GSS major
 * status (RFC 2744 3.9.1 values), names, and words for both.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gk5_config.h"
#include "mech/mech_int.h"

struct mapping {
    uint32_t err;
    uint32_t major;
    const char *words; /* gk5_strerror(err), byte for byte */
};

/* The expected class and words of every code, written out (not computed).
 * The GK5_ERR_RESERVED_n slots are retired codes nothing returns: they
 * keep their numbers and words, and map to FAILURE like any unknown code.
 * The enctype codes' words are those of the bare code (enctype 0). */
static const struct mapping mappings[] = {
    {GK5_OK, GK5_S_COMPLETE, "success"},
    {GK5_ERR_NOMEM, GK5_S_FAILURE, "out of memory"},
    {GK5_ERR_INVALID_ARGUMENT, GK5_S_FAILURE,
     "invalid argument (a NULL pointer, an unknown flag or a bad length)"},
    {GK5_ERR_CRYPTO_BACKEND, GK5_S_FAILURE,
     "the OpenSSL crypto backend failed unexpectedly"},
    {GK5_ERR_BUFFER_TOO_SMALL, GK5_S_FAILURE, "the output buffer is too small"},
    {GK5_ERR_ENCTYPE_UNKNOWN, GK5_S_UNAVAILABLE, "unknown enctype 0"},
    {GK5_ERR_ENCTYPE_REJECTED, GK5_S_UNAVAILABLE,
     "enctype 0 is refused by policy (RFC 8429, RFC 6649)"},
    {GK5_ERR_ENCTYPE_NOT_BUILT, GK5_S_UNAVAILABLE,
     "enctype 0 is not built into this gk5"},
    {GK5_ERR_BAD_KEY_LENGTH, GK5_S_FAILURE,
     "the key does not have the enctype's key length"},
    {GK5_ERR_BAD_CIPHERTEXT_LENGTH, GK5_S_DEFECTIVE_TOKEN,
     "the ciphertext is too short or not a whole number of blocks"},
    {GK5_ERR_INTEGRITY, GK5_S_BAD_SIG,
     "the integrity check failed: the data was altered or the key is wrong"},
    {GK5_ERR_BAD_S2K_PARAMS, GK5_S_FAILURE,
     "the string-to-key parameters are malformed"},
    {GK5_ERR_RESERVED_12, GK5_S_FAILURE,
     "reserved gk5 error code 12, which no gk5 call returns (formerly: the key "
     "usage number is not acceptable)"},
    {GK5_ERR_BAD_IOV, GK5_S_FAILURE,
     "an IOV buffer is missing, duplicated or of the wrong size"},
    {GK5_ERR_TOKEN_TRUNCATED, GK5_S_DEFECTIVE_TOKEN,
     "the token is shorter than its header says"},
    {GK5_ERR_TOKEN_ID, GK5_S_DEFECTIVE_TOKEN,
     "the token ID is wrong: not a token of the expected kind"},
    {GK5_ERR_TOKEN_FILLER, GK5_S_DEFECTIVE_TOKEN,
     "the token's filler bytes are not 0xff"},
    {GK5_ERR_TOKEN_FLAGS, GK5_S_DEFECTIVE_TOKEN,
     "the token's flags are unknown or inconsistent"},
    {GK5_ERR_TOKEN_DIRECTION, GK5_S_DEFECTIVE_TOKEN,
     "the token was sent in our own direction (a reflected token)"},
    {GK5_ERR_TOKEN_SUBKEY_FLAG, GK5_S_DEFECTIVE_TOKEN,
     "the token's AcceptorSubkey flag does not match the context"},
    {GK5_ERR_TOKEN_EC, GK5_S_DEFECTIVE_TOKEN,
     "the token's EC field does not fit its lengths"},
    {GK5_ERR_RESERVED_21, GK5_S_FAILURE,
     "reserved gk5 error code 21, which no gk5 call returns (formerly: the "
     "encrypted copy of the token header differs from the header)"},
    {GK5_ERR_TOKEN_ALG, GK5_S_DEFECTIVE_TOKEN,
     "the token's SGN_ALG or SEAL_ALG is not the context's (RFC 1964)"},
    {GK5_ERR_TOKEN_FRAMING, GK5_S_DEFECTIVE_TOKEN,
     "the token's RFC 2743 3.1 framing or mechanism OID is wrong"},
    {GK5_ERR_TOKEN_TRAILING, GK5_S_DEFECTIVE_TOKEN,
     "bytes follow the end of the token"},
    {GK5_ERR_CTX_EXPIRED, GK5_S_CONTEXT_EXPIRED,
     "the security context has expired"},
    {GK5_ERR_CTX_NO_CONTEXT, GK5_S_NO_CONTEXT, "no security context was given"},
    {GK5_ERR_CTX_SEQ_EXHAUSTED, GK5_S_FAILURE,
     "the context's send sequence numbers are used up: establish a new "
     "context"},
    {GK5_ERR_IMPORT_TRUNCATED, GK5_S_DEFECTIVE_TOKEN,
     "the context buffer is shorter than its fields"},
    {GK5_ERR_IMPORT_TOO_LONG, GK5_S_DEFECTIVE_TOKEN,
     "the context buffer has bytes left over after its last field"},
    {GK5_ERR_IMPORT_FLAGS, GK5_S_DEFECTIVE_TOKEN,
     "the context buffer has unknown flag bits"},
    {GK5_ERR_IMPORT_VERSION, GK5_S_DEFECTIVE_TOKEN,
     "the context buffer's format or version is not one gk5 knows"},
    {GK5_ERR_IMPORT_PROTOCOL, GK5_S_DEFECTIVE_TOKEN,
     "the context's protocol, algorithms or flags do not fit its enctype"},
    {GK5_ERR_IMPORT_KEY_LENGTH, GK5_S_DEFECTIVE_TOKEN,
     "a key in the context buffer does not have its enctype's length"},
    {GK5_ERR_RESERVED_34, GK5_S_FAILURE,
     "reserved gk5 error code 34, which no gk5 call returns (formerly: "
     "duplicate token)"},
    {GK5_ERR_RESERVED_35, GK5_S_FAILURE,
     "reserved gk5 error code 35, which no gk5 call returns (formerly: old "
     "token)"},
    {GK5_ERR_RESERVED_36, GK5_S_FAILURE,
     "reserved gk5 error code 36, which no gk5 call returns (formerly: "
     "out-of-sequence token)"},
    {GK5_ERR_RESERVED_37, GK5_S_FAILURE,
     "reserved gk5 error code 37, which no gk5 call returns (formerly: gap in "
     "the sequence)"},
    {GK5_ERR_BAD_QOP, GK5_S_BAD_QOP,
     "unsupported quality of protection (only the default, 0)"},
    {GK5_ERR_CONF_UNAVAILABLE, GK5_S_FAILURE,
     "confidentiality is not available"},
    {GK5_ERR_MIT, GK5_S_FAILURE,
     "an MIT krb5 GSS-API call failed (gk5_mit_display_status gives MIT's "
     "words)"},
    {GK5_ERR_EXPORT_IN_USE, GK5_S_FAILURE,
     "gk5 has already made or taken tokens on this context: MIT's export of it "
     "would send sequence numbers twice"},
    {GK5_ERR_IMPORT_DIGEST, GK5_S_DEFECTIVE_TOKEN,
     "the context buffer's digest does not match its contents: it was changed "
     "or damaged"},
    {GK5_ERR_S2K_WEAK, GK5_S_FAILURE,
     "the string-to-key iteration count is below the enctype's default (4096 "
     "for aes-sha1, 32768 for aes-sha2 and camellia), as MIT krb5 refuses too; "
     "such keys are for test vectors only (GK5_S2K_ALLOW_WEAK)"},
    {GK5_ERR_DER, GK5_S_DEFECTIVE_TOKEN,
     "the Kerberos message is not strict DER of its RFC 4120 type (a bad tag, "
     "length or field, or bytes after its end)"},
    {GK5_ERR_DER_LIMIT, GK5_S_DEFECTIVE_TOKEN,
     "the Kerberos message passes a decoder limit (256 KiB in all, 16 levels "
     "of nesting, 10 name components)"},
    {GK5_ERR_KRB_MSG_TYPE, GK5_S_DEFECTIVE_TOKEN,
     "the Kerberos message has the wrong protocol version or message type"},
    {GK5_ERR_KEYTAB_READ, GK5_S_NO_CRED,
     "the keytab file cannot be read (missing, unreadable or too large)"},
    {GK5_ERR_KEYTAB_FORMAT, GK5_S_NO_CRED,
     "the keytab file is malformed (not version 0x502 or 0x501, or an entry is "
     "truncated)"},
    {GK5_ERR_KEYTAB_NO_KEYS, GK5_S_NO_CRED,
     "the keytab holds no key gk5 can use for the principal (rc4, DES and "
     "unknown enctypes are skipped)"},
    {GK5_ERR_AP_WRONG_PRINC, GK5_S_NO_CRED,
     "the ticket is for a service this credential holds no key for "
     "(KRB_AP_ERR_NOT_US)"},
    {GK5_ERR_AP_BADKEYVER, GK5_S_NO_CRED,
     "the keytab has no key of the ticket's key version number: the service "
     "key changed (KRB_AP_ERR_BADKEYVER)"},
    {GK5_ERR_AP_NOKEY, GK5_S_NO_CRED,
     "the keytab has no key of the ticket's enctype (KRB_AP_ERR_NOKEY)"},
    {GK5_ERR_AP_MODIFIED, GK5_S_BAD_SIG,
     "the ticket or authenticator failed its integrity check: altered, or "
     "encrypted in another key (KRB_AP_ERR_MODIFIED)"},
    {GK5_ERR_AP_SKEW, GK5_S_FAILURE,
     "the authenticator's time is outside the allowed clock skew: check both "
     "clocks (KRB_AP_ERR_SKEW)"},
    {GK5_ERR_AP_TKT_EXPIRED, GK5_S_CREDENTIALS_EXPIRED,
     "the ticket has expired: get a new one (KRB_AP_ERR_TKT_EXPIRED)"},
    {GK5_ERR_AP_TKT_NYV, GK5_S_DEFECTIVE_CREDENTIAL,
     "the ticket is not yet valid, or is marked invalid (KRB_AP_ERR_TKT_NYV)"},
    {GK5_ERR_AP_BADMATCH, GK5_S_DEFECTIVE_CREDENTIAL,
     "the authenticator names another client than the ticket "
     "(KRB_AP_ERR_BADMATCH)"},
    {GK5_ERR_AP_REPEAT, GK5_S_FAILURE,
     "the AP-REQ was accepted before: a replay (KRB_AP_ERR_REPEAT)"},
    {GK5_ERR_RCACHE_FULL, GK5_S_FAILURE,
     "the replay cache is full: new AP-REQs are refused until entries expire, "
     "rather than forgetting live ones (KRB_AP_ERR_REPEAT)"},
    {GK5_ERR_RCACHE_IO, GK5_S_FAILURE,
     "the replay cache file cannot be read, locked or written"},
    {GK5_ERR_AP_TRANSITED, GK5_S_FAILURE,
     "the ticket crossed realms that its KDC did not check "
     "(transited-policy-checked is not set)"},
    {GK5_ERR_AP_USER_TO_USER, GK5_S_FAILURE,
     "user-to-user authentication (use-session-key) is not supported"},
    {GK5_ERR_AP_DCE_STYLE, GK5_S_FAILURE,
     "DCE-style establishment (GSS_C_DCE_STYLE, RPC over SMB) is not "
     "supported"},
    {GK5_ERR_AP_CHECKSUM, GK5_S_DEFECTIVE_TOKEN,
     "the authenticator checksum is missing, not keyed, of the wrong type or "
     "malformed (RFC 4121 4.1.1)"},
    {GK5_ERR_AP_BINDINGS, GK5_S_BAD_BINDINGS,
     "the channel bindings do not match the initiator's"},
    {GK5_ERR_AP_NO_ENCTYPE, GK5_S_FAILURE,
     "no enctype for the acceptor subkey that both sides support (RFC 4537)"},
    {GK5_ERR_AP_BEFORE_START, GK5_S_FAILURE,
     "the authenticator was made before this acceptor's in-memory replay cache "
     "began, so it may replay one accepted before a restart "
     "(KRB_AP_ERR_REPEAT); a new AP-REQ is accepted"},
    {GK5_ERR_CONFIG, GK5_S_FAILURE,
     "the Kerberos configuration (krb5.conf) cannot be read or is "
     "malformed"},
    {GK5_ERR_CONFIG_REALM, GK5_S_FAILURE,
     "no realm was given and krb5.conf names no default_realm"},
    {GK5_ERR_CONFIG_NO_KDC, GK5_S_FAILURE,
     "krb5.conf lists no KDC for the realm (DNS lookup of KDCs is "
     "not supported)"},
    {GK5_ERR_CCACHE_TYPE, GK5_S_NO_CRED,
     "the credential cache type is not supported (only FILE: "
     "caches are)"},
    {GK5_ERR_CCACHE_NOT_FOUND, GK5_S_NO_CRED,
     "the credential cache does not exist (run kinit first)"},
    {GK5_ERR_CCACHE_READ, GK5_S_NO_CRED,
     "the credential cache cannot be opened, locked or read"},
    {GK5_ERR_CCACHE_FORMAT, GK5_S_NO_CRED,
     "the credential cache file is malformed or truncated (not "
     "MIT's FILE format version 3 or 4)"},
    {GK5_ERR_CCACHE_WRITE, GK5_S_FAILURE,
     "the credential cache cannot be written"},
    {GK5_ERR_NO_TGT, GK5_S_NO_CRED,
     "no ticket-granting ticket for the client in the credential "
     "cache (run kinit first)"},
    {GK5_ERR_TICKET_EXPIRED, GK5_S_CREDENTIALS_EXPIRED,
     "the tickets in the credential cache have expired (run kinit "
     "again)"},
    {GK5_ERR_KDC_UNREACHABLE, GK5_S_FAILURE,
     "no KDC of the realm answered in time"},
    {GK5_ERR_KDC_REPLY, GK5_S_FAILURE,
     "the KDC's answer is not a well-formed Kerberos reply"},
    {GK5_ERR_KDC_NONCE, GK5_S_FAILURE,
     "the KDC reply's nonce is not the request's: it answers "
     "another request"},
    {GK5_ERR_KDC_CNAME, GK5_S_FAILURE,
     "the KDC reply names another client or realm than the request"},
    {GK5_ERR_KDC_SNAME, GK5_S_FAILURE,
     "the KDC reply's encrypted part names another service than "
     "the request (CVE-2017-11103)"},
    {GK5_ERR_KDC_MODIFIED, GK5_S_FAILURE,
     "the KDC reply does not decrypt with the client's key: wrong "
     "password or key, or the reply was modified"},
    {GK5_ERR_KDC_REFERRAL, GK5_S_FAILURE,
     "the KDC answered with a referral or another realm's ticket "
     "(cross-realm is not supported)"},
    {GK5_ERR_KDC_PREAUTH_FAILED, GK5_S_FAILURE,
     "the KDC refused the pre-authentication: wrong password or "
     "key (KDC_ERR_PREAUTH_FAILED)"},
    {GK5_ERR_KDC_PRINCIPAL_UNKNOWN, GK5_S_FAILURE,
     "the KDC does not know the client or service principal "
     "(KDC_ERR_C_PRINCIPAL_UNKNOWN or KDC_ERR_S_PRINCIPAL_UNKNOWN)"},
    {GK5_ERR_KDC_KEY_EXPIRED, GK5_S_FAILURE,
     "the client's password has expired (KDC_ERR_KEY_EXPIRED): "
     "change it with kpasswd"},
    {GK5_ERR_KDC_ETYPE_NOSUPP, GK5_S_FAILURE,
     "the KDC shares no enctype with gk5 for this principal "
     "(KDC_ERR_ETYPE_NOSUPP): one with rc4 keys alone gets this, as "
     "gk5 never asks for rc4 (RFC 8429); an Active Directory account "
     "needs AES in its msDS-SupportedEncryptionTypes (0x18)"},
    {GK5_ERR_KDC_ERROR, GK5_S_FAILURE,
     "the KDC refused the request (gk5_krb_last_error() has its "
     "error code and text)"},
    {GK5_ERR_PASSWORD, GK5_S_FAILURE, "no password could be read"},
    {GK5_ERR_AP_REP_MISMATCH, GK5_S_FAILURE,
     "the acceptor's AP-REP does not answer this initiator's "
     "AP-REQ (wrong time or key)"},
    {GK5_ERR_ACCEPTOR_ERROR, GK5_S_FAILURE,
     "the acceptor refused the AP-REQ with a KRB-ERROR "
     "(gk5_krb_last_error() has its error code and text)"},
};

static void test_mapping_covers_every_code(void **state)
{
    (void)state;
    assert_int_equal(sizeof(mappings) / sizeof(mappings[0]), GK5I_ERR_COUNT);
    for (size_t i = 0; i < GK5I_ERR_COUNT; i++) {
        uint32_t minor = 0xdeadbeef;

        assert_int_equal(mappings[i].err, i);
        if (gk5i_status(&minor, mappings[i].err) != mappings[i].major) {
            fail_msg("code %zu maps to 0x%x, want 0x%x", i,
                     (unsigned)gk5i_status(&minor, mappings[i].err),
                     (unsigned)mappings[i].major);
        }
        assert_int_equal(minor, mappings[i].err);
    }
}

/* Every code's words, and gk5_display_status of its major and the code:
 * the major's words, ": ", the code's words (for GK5_OK the major's words
 * alone). */
static void test_words_of_every_code(void **state)
{
    (void)state;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(mappings); i++) {
        char want[1100];

        assert_string_equal(gk5_strerror(mappings[i].err), mappings[i].words);
        if (mappings[i].err == GK5_OK) {
            snprintf(want, sizeof(want), "%s",
                     gk5_display_status(mappings[i].major, 0));
        } else {
            snprintf(want, sizeof(want), "%s: %s",
                     gk5_display_status(mappings[i].major, 0),
                     mappings[i].words);
        }
        assert_string_equal(
            gk5_display_status(mappings[i].major, mappings[i].err), want);
    }
    assert_string_equal(gk5_display_status(GK5_S_COMPLETE, GK5_OK),
                        "the operation completed successfully");
    assert_string_equal(
        gk5_display_status(GK5_S_BAD_SIG, GK5_ERR_INTEGRITY),
        "the token failed its integrity check: the integrity check failed: "
        "the data was altered or the key is wrong");
}

/* The enctype rides in the high bits and survives into the minor. */
static void test_mapping_keeps_enctype(void **state)
{
    uint32_t minor = 0;
    uint32_t err = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23);

    (void)state;
    assert_int_equal(gk5i_status(&minor, err), GK5_S_UNAVAILABLE);
    assert_int_equal(minor, err);
    assert_int_equal(GK5_ERR_ENCTYPE(minor), 23);
    err = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, -5);
    assert_int_equal(gk5i_status(&minor, err), GK5_S_UNAVAILABLE);
    assert_int_equal(GK5_ERR_ENCTYPE(minor), -5);
}

static void test_mapping_unknown_and_null(void **state)
{
    uint32_t minor = 0;

    (void)state;
    assert_int_equal(gk5i_status(&minor, GK5I_ERR_COUNT + 7), GK5_S_FAILURE);
    assert_int_equal(minor, GK5I_ERR_COUNT + 7);
    assert_int_equal(gk5i_status(NULL, GK5_ERR_INTEGRITY),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5i_status(NULL, GK5_OK), GK5_S_CALL_INACCESSIBLE_WRITE);
}

/* Every code has words of its own: not empty, not the fallback, and no
 * two codes share a sentence. */
static void test_strerror_every_code(void **state)
{
    char seen[GK5I_ERR_COUNT][256];

    (void)state;
    for (uint32_t i = 0; i < GK5I_ERR_COUNT; i++) {
        const char *s = gk5_strerror(i);

        assert_non_null(s);
        assert_true(strlen(s) > 5);
        assert_null(strstr(s, "unknown gk5 error"));
        snprintf(seen[i], sizeof(seen[i]), "%s", s);
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(seen[i], seen[j]) == 0) {
                fail_msg("codes %u and %u share the words \"%s\"", (unsigned)i,
                         (unsigned)j, seen[i]);
            }
        }
    }
    assert_non_null(strstr(gk5_strerror(GK5I_ERR_COUNT), "unknown"));
    assert_non_null(strstr(gk5_strerror(0xffffu), "unknown"));
    /* A retired code displayed from an old log still reads sensibly. */
    {
        static const uint32_t retired[] = {
            GK5_ERR_RESERVED_12, GK5_ERR_RESERVED_21, GK5_ERR_RESERVED_34,
            GK5_ERR_RESERVED_35, GK5_ERR_RESERVED_36, GK5_ERR_RESERVED_37,
        };

        for (size_t i = 0; i < sizeof(retired) / sizeof(retired[0]); i++) {
            assert_non_null(strstr(gk5_strerror(retired[i]), "reserved"));
        }
    }
}

/* One answer for every integrity failure: the words name no part. */
static void test_integrity_words_say_nothing_specific(void **state)
{
    const char *s = gk5_strerror(GK5_ERR_INTEGRITY);
    const char *parts[] = {"padding", "pad ",     "EC",         "MAC ",
                           "HMAC",    "checksum", "confounder", "header"};

    (void)state;
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (strstr(s, parts[i]) != NULL) {
            fail_msg("integrity words mention \"%s\": %s", parts[i], s);
        }
    }
}

static void test_strerror_enctypes(void **state)
{
    const char *s;

    (void)state;
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    assert_non_null(strstr(s, "rc4-hmac (23)"));
    assert_non_null(strstr(s, "deliberately unsupported"));
    assert_non_null(strstr(s, "RFC 8429"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 24));
    assert_non_null(strstr(s, "rc4-hmac-exp (24)"));
    assert_non_null(strstr(s, "RFC 8429"));
    for (int et = 1; et <= 3; et++) {
        char want[32];

        s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, et));
        snprintf(want, sizeof(want), "(%d)", et);
        assert_non_null(strstr(s, want));
        assert_non_null(strstr(s, "RFC 6649"));
    }
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, 99));
    assert_non_null(strstr(s, "99"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_UNKNOWN, -1));
    assert_non_null(strstr(s, "-1"));
#ifndef GK5_WITH_DES3
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, 16));
    assert_non_null(strstr(s, "des3-cbc-sha1 (16)"));
    assert_non_null(strstr(s, "not built"));
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_NOT_BUILT, 6));
    assert_non_null(strstr(s, "(6)"));
    assert_non_null(strstr(s, "-Ddes3=true"));
#endif
    /* A code whose enctype the table does not describe that way still
     * names the number. */
    s = gk5_strerror(GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 18));
    assert_non_null(strstr(s, "18"));
    assert_null(strstr(s, "is supported"));
}

struct name_row {
    uint32_t major;
    const char *name;
};

static void test_major_names(void **state)
{
    static const struct name_row rows[] = {
        {GK5_S_COMPLETE, "GSS_S_COMPLETE"},
        {GK5_S_BAD_MECH, "GSS_S_BAD_MECH"},
        {GK5_S_BAD_SIG, "GSS_S_BAD_SIG"},
        {GK5_S_NO_CONTEXT, "GSS_S_NO_CONTEXT"},
        {GK5_S_DEFECTIVE_TOKEN, "GSS_S_DEFECTIVE_TOKEN"},
        {GK5_S_CONTEXT_EXPIRED, "GSS_S_CONTEXT_EXPIRED"},
        {GK5_S_FAILURE, "GSS_S_FAILURE"},
        {GK5_S_BAD_QOP, "GSS_S_BAD_QOP"},
        {GK5_S_UNAVAILABLE, "GSS_S_UNAVAILABLE"},
        {GK5_S_CALL_INACCESSIBLE_READ, "GSS_S_CALL_INACCESSIBLE_READ"},
        {GK5_S_CALL_INACCESSIBLE_WRITE, "GSS_S_CALL_INACCESSIBLE_WRITE"},
        {GK5_S_CALL_BAD_STRUCTURE, "GSS_S_CALL_BAD_STRUCTURE"},
        {GK5_S_CONTINUE_NEEDED, "GSS_S_CONTINUE_NEEDED"},
        {GK5_S_DUPLICATE_TOKEN, "GSS_S_DUPLICATE_TOKEN"},
        {GK5_S_OLD_TOKEN, "GSS_S_OLD_TOKEN"},
        {GK5_S_UNSEQ_TOKEN, "GSS_S_UNSEQ_TOKEN"},
        {GK5_S_GAP_TOKEN, "GSS_S_GAP_TOKEN"},
        /* the routine error names a mixed status */
        {GK5_S_BAD_SIG | GK5_S_DUPLICATE_TOKEN, "GSS_S_BAD_SIG"},
        {GK5_S_CALL_INACCESSIBLE_WRITE | GK5_S_FAILURE, "GSS_S_FAILURE"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_string_equal(gk5_major_name(rows[i].major), rows[i].name);
    }
    assert_non_null(strstr(gk5_major_name(0x7fu << 16), "unknown"));
}

static void test_display_status_forms(void **state)
{
    char major_only[512];
    char minor_only[512];
    const char *s;

    (void)state;
    /* never NULL, never empty */
    assert_true(strlen(gk5_display_status(0, 0)) > 0);

    snprintf(major_only, sizeof(major_only), "%s",
             gk5_display_status(GK5_S_BAD_SIG, 0));
    snprintf(minor_only, sizeof(minor_only), "%s",
             gk5_display_status(0, GK5_ERR_INTEGRITY));
    assert_true(strlen(major_only) > 0);
    assert_string_equal(minor_only, gk5_strerror(GK5_ERR_INTEGRITY));
    assert_string_not_equal(major_only, minor_only);

    /* both: "major words: minor words" */
    s = gk5_display_status(GK5_S_BAD_SIG, GK5_ERR_INTEGRITY);
    {
        char want[1100];

        snprintf(want, sizeof(want), "%s: %s", major_only, minor_only);
        assert_string_equal(s, want);
    }
}

static void test_display_status_enctype_reason(void **state)
{
    const char *s;

    (void)state;
    s = gk5_display_status(GK5_S_UNAVAILABLE,
                           GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 23));
    assert_non_null(strstr(s, "rc4-hmac (23)"));
    assert_non_null(strstr(s, "RFC 8429"));
    assert_non_null(strstr(s, "unavailable"));
}

/* Routine error and supplementary bits are all described. */
static void test_display_status_supplementary(void **state)
{
    char dup[256], gap[256], bad[256];
    const char *s;

    (void)state;
    snprintf(dup, sizeof(dup), "%s",
             gk5_display_status(GK5_S_DUPLICATE_TOKEN, 0));
    snprintf(gap, sizeof(gap), "%s", gk5_display_status(GK5_S_GAP_TOKEN, 0));
    snprintf(bad, sizeof(bad), "%s", gk5_display_status(GK5_S_BAD_SIG, 0));
    assert_string_not_equal(dup, gap);
    assert_string_not_equal(dup, gk5_display_status(0, 0));

    s = gk5_display_status(GK5_S_DUPLICATE_TOKEN | GK5_S_GAP_TOKEN, 0);
    assert_non_null(strstr(s, dup));
    assert_non_null(strstr(s, gap));

    s = gk5_display_status(GK5_S_BAD_SIG | GK5_S_DUPLICATE_TOKEN,
                           GK5_ERR_INTEGRITY);
    assert_non_null(strstr(s, bad));
    assert_non_null(strstr(s, dup));
    assert_non_null(strstr(s, gk5_strerror(GK5_ERR_INTEGRITY)));

    s = gk5_display_status(GK5_S_CALL_INACCESSIBLE_WRITE, 0);
    assert_non_null(strstr(s, "output"));
    s = gk5_display_status(0x7fu << 16, 0);
    assert_non_null(strstr(s, "unknown"));
    s = gk5_display_status(1u << 12, 0);
    assert_non_null(strstr(s, "unknown"));
}

/* Arbitrary values never give NULL or an empty string. */
static void test_display_status_never_null(void **state)
{
    uint32_t x = 0x12345678;

    (void)state;
    for (int i = 0; i < 2000; i++) {
        const char *s;

        x = x * 1103515245u + 12345u;
        s = gk5_display_status(x, x ^ (x >> 7));
        assert_non_null(s);
        assert_true(s[0] != '\0');
        assert_non_null(gk5_major_name(x));
        assert_non_null(gk5_strerror(x));
    }
}

/* The formatted text lives in a per-thread buffer. */
struct words_thread {
    uint32_t major, minor;
    char want[512];
    int mismatches;
    pthread_barrier_t *barrier;
};

static void *words_main(void *arg)
{
    struct words_thread *t = arg;

    pthread_barrier_wait(t->barrier);
    for (int i = 0; i < 500; i++) {
        if (strcmp(gk5_display_status(t->major, t->minor), t->want) != 0) {
            t->mismatches++;
        }
    }
    return NULL;
}

static void test_display_status_thread_local(void **state)
{
    pthread_barrier_t barrier;
    pthread_t tid[2];
    struct words_thread t[2] = {
        {.major = GK5_S_BAD_SIG, .minor = GK5_ERR_INTEGRITY},
        {.major = GK5_S_UNAVAILABLE,
         .minor = GK5_ERR_MAKE_ET(GK5_ERR_ENCTYPE_REJECTED, 1)},
    };

    (void)state;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    for (int i = 0; i < 2; i++) {
        snprintf(t[i].want, sizeof(t[i].want), "%s",
                 gk5_display_status(t[i].major, t[i].minor));
        t[i].barrier = &barrier;
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&tid[i], NULL, words_main, &t[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(tid[i], NULL), 0);
        assert_int_equal(t[i].mismatches, 0);
    }
    pthread_barrier_destroy(&barrier);
}

static void test_version(void **state)
{
    const char *v = gk5_version();

    (void)state;
    assert_non_null(v);
    assert_string_equal(v, GK5_VERSION);
    assert_true(strspn(v, "0123456789.") == strlen(v));
    assert_non_null(strchr(v, '.'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_covers_every_code),
        cmocka_unit_test(test_words_of_every_code),
        cmocka_unit_test(test_mapping_keeps_enctype),
        cmocka_unit_test(test_mapping_unknown_and_null),
        cmocka_unit_test(test_strerror_every_code),
        cmocka_unit_test(test_integrity_words_say_nothing_specific),
        cmocka_unit_test(test_strerror_enctypes),
        cmocka_unit_test(test_major_names),
        cmocka_unit_test(test_display_status_forms),
        cmocka_unit_test(test_display_status_enctype_reason),
        cmocka_unit_test(test_display_status_supplementary),
        cmocka_unit_test(test_display_status_never_null),
        cmocka_unit_test(test_display_status_thread_local),
        cmocka_unit_test(test_version),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
