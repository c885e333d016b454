/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: gk5_mech.so's reading of its own mechanism line
 * (src/interposer/accept_config.c), compiled here with coverage.  The
 * first byte chooses:
 *
 *   even: the rest is a mechanism file (/etc/gss/mech's format), scanned
 *         for the module's OID as gki_accept_native reads it.  The answer
 *         is 0 or 1 from a line that names the OID, or the value given
 *         when none does: so it is left alone by a file that never holds
 *         the OID's text, and 1 only from a file that holds
 *         "accept=native".  Scanning the same bytes again gives the same
 *         answer.
 *   odd:  the rest is a DER OID's content octets for gki_oid_text, with
 *         a room of the second byte's size.  Text that comes back is
 *         terminated inside the room, dotted decimal that starts with 0, 1
 *         or 2, without empty arcs; where the input is minimally encoded
 *         it encodes back to the same octets.
 *
 * The module's trace lines are formatted here (into a bounded buffer):
 * their arguments are what the formats say.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "interposer/interposer.h"

#define MODULE_OID "1.3.6.1.4.1.32473.4121.1"
#define NOT_SET (-7)

/* What mech.c gives accept_config.c in the module. */
static uint8_t module_oid_bytes[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x81,
                                     0xfd, 0x59, 0xa0, 0x19, 0x01};
gss_OID_desc gki_interposer_oid = {sizeof(module_oid_bytes), module_oid_bytes};

void gki_trace(const char *fmt, ...)
{
    char line[4096];
    va_list ap;

    va_start(ap, fmt);
    (void)vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
}

static int scan(const uint8_t *text, size_t len)
{
    int native = NOT_SET;
    FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");

    if (f == NULL) {
        fuzz_fail("fmemopen", 0, 0);
    }
    gki_config_scan(f, "(input)", MODULE_OID, &native);
    fclose(f);
    return native;
}

static bool holds(const uint8_t *p, size_t len, const char *s)
{
    size_t n = strlen(s);

    for (size_t i = 0; i + n <= len; i++) {
        if (memcmp(p + i, s, n) == 0) {
            return true;
        }
    }
    return false;
}

static void check_config(const uint8_t *text, size_t len)
{
    int native;

    if (len == 0) {
        /* fmemopen refuses a buffer of no bytes. */
        return;
    }
    native = scan(text, len);
    if (native != NOT_SET && native != 0 && native != 1) {
        fuzz_fail("the answer is not 0, 1 or the value given", 0, 0);
    }
    if (native != NOT_SET && !holds(text, len, MODULE_OID)) {
        fuzz_fail("an answer from a file without the OID", 0, 0);
    }
    if (native == 1 && !holds(text, len, "accept=native")) {
        fuzz_fail("native without accept=native", 0, 0);
    }
    if (scan(text, len) != native) {
        fuzz_fail("the same file read twice gave two answers", 0, 0);
    }
}

/* The dotted text's DER content octets; -1 if it is not dotted decimal. */
static int encode_oid(const char *text, uint8_t *out, size_t cap, size_t *len)
{
    /* A room of at most 256 bytes holds at most 128 arcs. */
    unsigned long long arcs[256];
    size_t n = 0, o = 0;
    const char *p = text;

    while (n < 256) {
        char *end;

        if (*p < '0' || *p > '9') {
            return -1;
        }
        arcs[n++] = strtoull(p, &end, 10);
        p = end;
        if (*p == '\0') {
            break;
        }
        if (*p++ != '.') {
            return -1;
        }
    }
    if (*p != '\0' || n < 2 || arcs[0] > 2) {
        return -1;
    }
    arcs[1] += 40u * arcs[0];
    for (size_t i = 1; i < n; i++) {
        uint8_t tmp[10];
        size_t k = 0;
        unsigned long long v = arcs[i];

        do {
            tmp[k++] = (uint8_t)(v & 0x7f);
            v >>= 7;
        } while (v != 0);
        while (k > 0) {
            if (o == cap) {
                return -1;
            }
            k--;
            out[o++] = (uint8_t)(tmp[k] | (k != 0 ? 0x80 : 0));
        }
    }
    *len = o;
    return 0;
}

/* No arc starts with 0x80 (a leading zero group). */
static bool minimal(const uint8_t *p, size_t len)
{
    bool start = true;

    for (size_t i = 0; i < len; i++) {
        if (start && p[i] == 0x80) {
            return false;
        }
        start = (p[i] & 0x80) == 0;
    }
    return true;
}

static void check_oid(const uint8_t *data, size_t size)
{
    char text[512];
    uint8_t back[256];
    size_t room, blen = 0;
    gss_OID_desc oid;

    if (size < 1) {
        return;
    }
    room = (size_t)data[0] + 1;
    oid.length = (OM_uint32)(size - 1);
    oid.elements = (void *)(uintptr_t)(data + 1);
    memset(text, 'X', sizeof(text));
    if (gki_oid_text(&oid, text, room) != 0) {
        return;
    }
    if (memchr(text, '\0', room) == NULL) {
        fuzz_fail("OID text not terminated inside its room", 0, 0);
    }
    if (encode_oid(text, back, sizeof(back), &blen) != 0) {
        fuzz_fail("OID text is not dotted decimal from 0, 1 or 2", 0, 0);
    }
    if (minimal(data + 1, size - 1) &&
        (blen != size - 1 || memcmp(back, data + 1, blen) != 0)) {
        fuzz_fail("OID text does not encode back to its octets", 0, 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    if ((data[0] & 1) == 0) {
        check_config(data + 1, size - 1);
    } else {
        check_oid(data + 1, size - 1);
    }
    return 0;
}
