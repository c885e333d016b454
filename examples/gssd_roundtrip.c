/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gssd_roundtrip: both ends of one Kerberos V5 GSS-API security context in
 * one process, with no KDC and no configuration.
 *
 * A context is normally established by MIT krb5 (see mit_roundtrip.c) or
 * by rpc.gssd, which hands the Linux kernel a small buffer holding the
 * session key, the role and the next sequence number.  Here both ends'
 * buffers are built from one fixed key, imported into gk5, and used:
 *
 *   1. the initiator seals a message (Wrap token); the acceptor unwraps it
 *   2. the acceptor signs a reply (MIC token); the initiator verifies it
 *   3. the same Wrap token again: authentic, but a replay
 *   4. a Wrap token with one bit flipped: refused, and the context is
 *      unchanged (the untouched token still unwraps afterwards)
 *
 * Build against an installed gk5:
 *
 *     cc -o gssd_roundtrip gssd_roundtrip.c $(pkg-config --cflags --libs gk5)
 *
 * In gk5's build tree this is build/examples/gssd_roundtrip, run by
 * `meson test --suite examples`.  Exit status 0 when every step behaved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gk5/gk5.h>

/* aes256-cts-hmac-sha1-96 (RFC 3962): enctype 18, 32-byte keys.  Any
 * enctype `gk5 enctypes` calls supported works the same way. */
#define ENCTYPE 18
#define KEY_LEN 32

/* The rpc.gssd buffer: u32 flags, u32 endtime, u64 send_seq, u32 enctype,
 * then the key; host byte order, no padding. */
#define GSSD_KEY_OFFSET 20
#define GSSD_LEN (GSSD_KEY_OFFSET + KEY_LEN)

/* Clear memory that held a key in a way the compiler may not drop (memset
 * before the end of a buffer's life may be optimised away). */
static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n-- > 0) {
        *v++ = 0;
    }
}

/* One end's rpc.gssd buffer.  flags: GK5_GSSD_FLAG_INITIATOR for the
 * initiator; GK5_GSSD_FLAG_CFX for every RFC 4121 enctype (all but DES3).
 * Fields are copied with memcpy in host byte order, as rpc.gssd writes
 * them: never cast a byte pointer to an integer pointer. */
static void make_gssd_buffer(uint8_t out[GSSD_LEN], uint32_t flags,
                             const uint8_t key[KEY_LEN])
{
    uint32_t endtime = 0;  /* 0: the context never expires */
    uint64_t send_seq = 0; /* our first sequence number */
    uint32_t enctype = ENCTYPE;

    memcpy(out + 0, &flags, 4);
    memcpy(out + 4, &endtime, 4);
    memcpy(out + 8, &send_seq, 8);
    memcpy(out + 16, &enctype, 4);
    memcpy(out + GSSD_KEY_OFFSET, key, KEY_LEN);
}

/* Print why a call failed: the RFC 2744 name of the major status, then
 * gk5's words for the major and minor status together. */
static void report(const char *what, uint32_t major, uint32_t minor)
{
    fprintf(stderr, "%s: %s: %s\n", what, gk5_major_name(major),
            gk5_display_status(major, minor));
}

/* Import one end and say what it is. */
static int import_end(const char *name, uint32_t flags,
                      const uint8_t key[KEY_LEN], gk5_ctx **ctx)
{
    uint8_t buf[GSSD_LEN];
    gk5_ctx_info info;
    uint32_t minor = 0;
    uint32_t major;

    make_gssd_buffer(buf, flags, key);
    major = gk5_ctx_import_gssd(&minor, buf, sizeof(buf), ctx);
    /* gk5 derived its subkeys and kept no pointer into buf: wipe it. */
    wipe(buf, sizeof(buf));
    if (GK5_ERROR(major)) {
        /* An rc4 key would fail here with GSS_S_UNAVAILABLE and words
         * naming RFC 8429; a short buffer with GSS_S_DEFECTIVE_TOKEN. */
        report("import", major, minor);
        return -1;
    }
    major = gk5_ctx_inquire(&minor, *ctx, &info);
    if (GK5_ERROR(major)) {
        report("inquire", major, minor);
        return -1;
    }
    printf("%-10s %s (%d), %s, next send seq %llu\n", name, info.enctype_name,
           (int)info.enctype, info.initiator ? "initiator" : "acceptor",
           (unsigned long long)info.send_seq);
    return 0;
}

/* Unwrap a token we expect to be authentic and new.  The supplementary
 * bits (duplicate, old, out of sequence, gap) leave GK5_ERROR() at 0, so
 * they must be tested on their own: a caller that only tests GK5_ERROR()
 * accepts replays. */
static int unwrap_fresh(gk5_ctx *ctx, const gk5_buffer *token,
                        const char *label)
{
    gk5_buffer plain = {0, NULL};
    uint32_t minor = 0;
    uint32_t major;
    int conf_state = 0;

    major = gk5_unwrap(&minor, ctx, token, &plain, &conf_state, NULL);
    if (GK5_ERROR(major) || GK5_SUPPLEMENTARY_INFO(major)) {
        report("unwrap", major, minor);
        gk5_buffer_release(&plain); /* empty on failure; safe either way */
        return -1;
    }
    printf("%-10s \"%.*s\" (%s)\n", label, (int)plain.length,
           (const char *)plain.value, conf_state ? "sealed" : "integrity only");
    gk5_buffer_release(&plain); /* wipes, then frees */
    return 0;
}

int main(void)
{
    /* In real use this is the Kerberos session key (or the acceptor's
     * subkey) that context establishment produced.  A fixed key keeps the
     * example self-contained: never use one for anything else. */
    uint8_t key[KEY_LEN];
    char hello[] = "Hello from the initiator";
    char reply[] = "Hello back from the acceptor";
    char again[] = "A second message";
    gk5_buffer msg = {strlen(hello), hello};
    gk5_buffer back = {strlen(reply), reply};
    gk5_buffer second = {strlen(again), again};
    gk5_buffer token = {0, NULL};
    gk5_buffer mic = {0, NULL};
    gk5_buffer token2 = {0, NULL};
    gk5_buffer tampered = {0, NULL};
    gk5_buffer plain = {0, NULL};
    gk5_ctx *initiator = NULL;
    gk5_ctx *acceptor = NULL;
    uint32_t minor = 0;
    uint32_t major;
    int conf_state = 0;
    int ret = 1;

    for (size_t i = 0; i < sizeof(key); i++) {
        key[i] = (uint8_t)(0x40 + i);
    }
    printf("libgk5 %s\n", gk5_version());

    /* ---- The two ends of one context ---- */
    if (import_end("initiator:", GK5_GSSD_FLAG_INITIATOR | GK5_GSSD_FLAG_CFX,
                   key, &initiator) != 0 ||
        import_end("acceptor:", GK5_GSSD_FLAG_CFX, key, &acceptor) != 0) {
        goto cleanup;
    }
    wipe(key, sizeof(key)); /* the contexts hold what they need */

    /* ---- 1. Initiator -> acceptor: a sealed Wrap token ----
     * conf_req 1 asks for encryption; conf_state says what was done.  The
     * token is malloc'd by gk5: gk5_buffer_release() it. */
    major = gk5_wrap(&minor, initiator, 1, GK5_QOP_DEFAULT, &msg, &conf_state,
                     &token);
    if (GK5_ERROR(major)) {
        report("wrap", major, minor);
        goto cleanup;
    }
    printf("wrap:      %zu-byte message -> %zu-byte %s Wrap token\n",
           msg.length, token.length, conf_state ? "sealed" : "integrity-only");
    if (unwrap_fresh(acceptor, &token, "unwrap:") != 0) {
        goto cleanup;
    }

    /* ---- 2. Acceptor -> initiator: a MIC over a reply sent in clear ---- */
    major = gk5_get_mic(&minor, acceptor, GK5_QOP_DEFAULT, &back, &mic);
    if (GK5_ERROR(major)) {
        report("get_mic", major, minor);
        goto cleanup;
    }
    major = gk5_verify_mic(&minor, initiator, &back, &mic, NULL);
    if (GK5_ERROR(major) || GK5_SUPPLEMENTARY_INFO(major)) {
        report("verify_mic", major, minor);
        goto cleanup;
    }
    printf("verify:    %zu-byte MIC over \"%s\" verified\n", mic.length, reply);

    /* ---- 3. The first token again: authentic, but already received ----
     * gk5 returns the message with GK5_S_COMPLETE | GK5_S_DUPLICATE_TOKEN:
     * not an error to GK5_ERROR(), so a replay is the caller's to refuse. */
    major = gk5_unwrap(&minor, acceptor, &token, &plain, NULL, NULL);
    gk5_buffer_release(&plain);
    if (GK5_ERROR(major) ||
        (GK5_SUPPLEMENTARY_INFO(major) & GK5_S_DUPLICATE_TOKEN) == 0) {
        report("replay was not reported", major, minor);
        goto cleanup;
    }
    printf("replay:    refused: %s: %s\n", gk5_major_name(major),
           gk5_display_status(major, minor));

    /* ---- 4. A token changed in transit ----
     * Flip one bit of the last byte (inside the checksum).  gk5 answers
     * GK5_S_BAD_SIG and never says which check failed; the failed token
     * changes nothing in the context. */
    major =
        gk5_wrap(&minor, initiator, 1, GK5_QOP_DEFAULT, &second, NULL, &token2);
    if (GK5_ERROR(major)) {
        report("wrap", major, minor);
        goto cleanup;
    }
    tampered.value = malloc(token2.length);
    if (tampered.value == NULL) {
        fprintf(stderr, "out of memory\n");
        goto cleanup;
    }
    memcpy(tampered.value, token2.value, token2.length);
    tampered.length = token2.length;
    ((uint8_t *)tampered.value)[tampered.length - 1] ^= 0x01;
    major = gk5_unwrap(&minor, acceptor, &tampered, &plain, NULL, NULL);
    gk5_buffer_release(&plain);
    if (major != GK5_S_BAD_SIG) {
        report("tampered token was not refused", major, minor);
        goto cleanup;
    }
    printf("tamper:    refused: %s: %s\n", gk5_major_name(major),
           gk5_display_status(major, minor));
    /* Its sequence number was not used up by the forgery. */
    if (unwrap_fresh(acceptor, &token2, "original:") != 0) {
        goto cleanup;
    }

    printf("ok\n");
    ret = 0;

cleanup:
    wipe(key, sizeof(key));
    free(tampered.value);
    gk5_buffer_release(&token2);
    gk5_buffer_release(&mic);
    gk5_buffer_release(&token);
    gk5_ctx_free(acceptor); /* wipes the keys; NULL is fine */
    gk5_ctx_free(initiator);
    return ret;
}
