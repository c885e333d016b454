/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * What the KDC client reads from krb5.conf (krb5/krb5
 * doc/admin/conf_files/krb5_conf.rst, [libdefaults] and [realms]), in
 * MIT's value formats: booleans as profile_parse_boolean takes them,
 * durations as krb5_string_to_deltat ("300", "5m", "1h30m", "1d", "1:30",
 * "1:30:00"), enctype lists as MIT's krb5.conf takes them.
 *
 * A value that is set but does not read is an error, not a silent
 * default: a mistyped clockskew must not quietly become 300.
 *
 * Enctype names, aliases and families all come from the enctype table
 * (src/crypto/enctypes.c); the only list here is the order of the
 * families in the default list, MIT's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/trace.h"
#include "krb5_int.h"

#define CFG_DEFAULT_PATH "/etc/krb5.conf"
#define CFG_DEFAULT_CLOCKSKEW 300u
#define CFG_DEFAULT_UDP_LIMIT 1465u
#define CFG_MAX_UDP_LIMIT 32700u /* MIT's hard limit (HARD_UDP_LIMIT) */
#define CFG_DEFAULT_TICKET_LIFETIME 86400u
#define CFG_DEFAULT_TIMEOUT_MS 10000u
#define CFG_KDC_PORT 88

/* MIT's default list orders the families so (|defetypes| in its
 * documentation, less rc4); within a family the table's order. */
static const enum gk5i_family default_order[] = {
    GK5I_FAMILY_AES_SHA1,
    GK5I_FAMILY_AES_SHA2,
    GK5I_FAMILY_CAMELLIA,
    GK5I_FAMILY_DES3,
};

static bool is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f' || c == ',';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ---- values ---- */

/* MIT's profile_parse_boolean words, any case. */
static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"y", "yes", "true", "t", "1", "on"};
    static const char *const no[] = {"n", "no", "false", "nil", "0", "off"};

    for (size_t i = 0; i < GK5_ARRAY_SIZE(yes); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* Digits at *s into *v (at most UINT32_MAX); false when there are none or
 * too many. */
static bool take_number(const char **s, uint64_t *v)
{
    const char *p = *s;

    *v = 0;
    if (!is_digit(*p)) {
        return false;
    }
    while (is_digit(*p)) {
        *v = *v * 10 + (uint64_t)(*p++ - '0');
        if (*v > UINT32_MAX) {
            return false;
        }
    }
    *s = p;
    return true;
}

static bool parse_uint(const char *s, uint32_t *out)
{
    uint64_t v;

    if (!take_number(&s, &v) || *s != '\0') {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* A duration in MIT's forms: seconds ("300"), "h:m" or "h:m:s" (minutes
 * and seconds below 60), or "NdNhNmNs" with each unit at most once, in
 * that order, blanks allowed between them ("1d 12h"). */
static bool parse_duration(const char *s, uint32_t *out)
{
    static const struct {
        char unit;
        uint32_t secs;
    } units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
    uint64_t total = 0, v;
    size_t next = 0;

    if (!take_number(&s, &v)) {
        return false;
    }
    if (*s == '\0') {
        *out = (uint32_t)v;
        return true;
    }
    if (*s == ':') {
        uint64_t m, sec = 0;

        s++;
        if (!take_number(&s, &m) || m >= 60) {
            return false;
        }
        if (*s == ':') {
            s++;
            if (!take_number(&s, &sec) || sec >= 60) {
                return false;
            }
        }
        total = v * 3600 + m * 60 + sec;
        if (*s != '\0' || total > UINT32_MAX) {
            return false;
        }
        *out = (uint32_t)total;
        return true;
    }
    for (;;) {
        while (next < GK5_ARRAY_SIZE(units) && units[next].unit != *s) {
            next++;
        }
        if (next == GK5_ARRAY_SIZE(units)) {
            return false;
        }
        total += v * units[next].secs;
        if (total > UINT32_MAX) {
            return false;
        }
        next++;
        s++;
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        if (!take_number(&s, &v)) {
            return false;
        }
    }
    *out = (uint32_t)total;
    return true;
}

/* ---- enctype lists ---- */

/* Whether row belongs to the family word names ("aes", "aes-sha1",
 * "aes-sha2", "camellia", "des3", "rc4", "des"); -1 when word is not a
 * family.  rc4 and DES rows have no algorithms and so no family: they are
 * known by their table names. */
static int family_has(const char *word, const struct gk5_enctype *row)
{
    if (strcasecmp(word, "aes") == 0) {
        return row->family == GK5I_FAMILY_AES_SHA1 ||
               row->family == GK5I_FAMILY_AES_SHA2;
    }
    if (strcasecmp(word, "aes-sha1") == 0) {
        return row->family == GK5I_FAMILY_AES_SHA1;
    }
    if (strcasecmp(word, "aes-sha2") == 0) {
        return row->family == GK5I_FAMILY_AES_SHA2;
    }
    if (strcasecmp(word, "camellia") == 0) {
        return row->family == GK5I_FAMILY_CAMELLIA;
    }
    if (strcasecmp(word, "des3") == 0) {
        return row->family == GK5I_FAMILY_DES3;
    }
    if (strcasecmp(word, "rc4") == 0) {
        return row->family == GK5I_FAMILY_NONE &&
               strncmp(row->name, "rc4-", 4) == 0;
    }
    if (strcasecmp(word, "des") == 0) {
        return row->family == GK5I_FAMILY_NONE &&
               strncmp(row->name, "des-", 4) == 0;
    }
    return -1;
}

/* The family's enctypes into out (room for every row): the families with
 * algorithms in default_order, then the rest in table order.  False when
 * word is not a family. */
static bool family_expand(const char *word, int32_t *out, size_t *n)
{
    const struct gk5_enctype *row;

    *n = 0;
    if (family_has(word, gk5i_enctype_at(0)) < 0) {
        return false;
    }
    for (size_t f = 0; f < GK5_ARRAY_SIZE(default_order); f++) {
        for (size_t i = 0; (row = gk5i_enctype_at(i)) != NULL; i++) {
            if (row->family == default_order[f] && family_has(word, row) > 0) {
                out[(*n)++] = row->num;
            }
        }
    }
    for (size_t i = 0; (row = gk5i_enctype_at(i)) != NULL; i++) {
        if (row->family == GK5I_FAMILY_NONE && family_has(word, row) > 0) {
            out[(*n)++] = row->num;
        }
    }
    return true;
}

static size_t table_rows(void)
{
    size_t n = 0;

    while (gk5i_enctype_at(n) != NULL) {
        n++;
    }
    return n;
}

/* gk5's default list: the usable rows, families in default_order. */
static size_t default_enctypes(int32_t *out, size_t max)
{
    const struct gk5_enctype *row;
    size_t n = 0;

    for (size_t f = 0; f < GK5_ARRAY_SIZE(default_order); f++) {
        for (size_t i = 0; (row = gk5i_enctype_at(i)) != NULL; i++) {
            if (row->family == default_order[f] &&
                row->state == GK5_ENCTYPE_SUPPORTED && n < max) {
                out[n++] = row->num;
            }
        }
    }
    return n;
}

bool gk5i_enctype_listed(const int32_t *list, size_t n, int32_t e)
{
    for (size_t i = 0; i < n; i++) {
        if (list[i] == e) {
            return true;
        }
    }
    return false;
}

/* Add (or with remove, take out) e, as the token tok named it. */
static void list_apply(int32_t *out, size_t max, size_t *n, int32_t e,
                       bool remove, const char *tok)
{
    const struct gk5_enctype *row = NULL;
    uint32_t why;

    e = gk5i_enctype_canonical(e);
    if (remove) {
        size_t o = 0;

        for (size_t i = 0; i < *n; i++) {
            if (out[i] != e) {
                out[o++] = out[i];
            }
        }
        *n = o;
        return;
    }
    if (gk5i_enctype_listed(out, *n, e)) {
        return;
    }
    why = gk5i_enctype_usable(e, &row);
    if (why != GK5_OK) {
        row = gk5i_enctype_get(e);
        if (GK5_TRACE_ON()) {
            if (row != NULL) {
                gk5i_trace("krb5.conf: enctype %s (%d, from \"%s\") dropped: "
                           "%s",
                           row->name, (int)e, tok,
                           row->reason != NULL ? row->reason : "not usable");
            } else {
                gk5i_trace("krb5.conf: enctype %d (from \"%s\") dropped: "
                           "unknown",
                           (int)e, tok);
            }
        }
        return;
    }
    if (*n == max) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("krb5.conf: enctype %s dropped: more than %zu in the "
                       "list",
                       row->name, max);
        }
        return;
    }
    out[(*n)++] = e;
}

uint32_t gk5i_config_enctypes(const char *s, const int32_t *dflt, size_t n_dflt,
                              int32_t *out, size_t max, size_t *n)
{
    size_t rows = table_rows();
    int32_t *fam = NULL;

    *n = 0;
    if (s == NULL || (dflt == NULL && n_dflt > 0) || out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    fam = malloc((rows > 0 ? rows : 1) * sizeof(*fam));
    if (fam == NULL) {
        return GK5_ERR_NOMEM;
    }
    while (*s != '\0') {
        char tok[64];
        const char *start, *word;
        size_t len, nfam;
        bool remove = false;
        int32_t e;

        while (is_sep(*s)) {
            s++;
        }
        start = s;
        while (*s != '\0' && !is_sep(*s)) {
            s++;
        }
        len = (size_t)(s - start);
        if (len == 0) {
            continue;
        }
        if (len >= sizeof(tok)) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: unknown enctype \"%.*s...\" dropped",
                           (int)(sizeof(tok) - 1), start);
            }
            continue;
        }
        memcpy(tok, start, len);
        tok[len] = '\0';
        word = tok;
        if (word[0] == '-' || word[0] == '+') {
            remove = word[0] == '-';
            word++;
        }
        if (strcasecmp(word, "DEFAULT") == 0) {
            for (size_t i = 0; i < n_dflt; i++) {
                list_apply(out, max, n, dflt[i], remove, tok);
            }
        } else if (family_expand(word, fam, &nfam)) {
            for (size_t i = 0; i < nfam; i++) {
                list_apply(out, max, n, fam[i], remove, tok);
            }
        } else if (word[0] != '\0' &&
                   gk5_enctype_from_name(word, &e) == GK5_OK) {
            list_apply(out, max, n, e, remove, tok);
        } else if (GK5_TRACE_ON()) {
            gk5i_trace("krb5.conf: unknown enctype \"%s\" dropped", tok);
        }
    }
    free(fam);
    return *n > 0 ? GK5_OK : GK5_ERR_CONFIG;
}

/* ---- the configuration ---- */

static const char *libdefault(const struct gk5i_krb5_config *c, const char *key)
{
    const char *const path[] = {"libdefaults", key, NULL};

    return gk5i_profile_get(c->prof, path);
}

static uint32_t bad_value(char *err, size_t err_len, const char *key,
                          const char *value, const char *what)
{
    if (err != NULL && err_len > 0) {
        (void)snprintf(err, err_len, "krb5.conf: [libdefaults] %s = \"%s\": %s",
                       key, value, what);
    }
    return GK5_ERR_CONFIG;
}

static uint32_t get_duration(const struct gk5i_krb5_config *c, const char *key,
                             uint32_t *out, char *err, size_t err_len)
{
    const char *v = libdefault(c, key);

    if (v != NULL && !parse_duration(v, out)) {
        return bad_value(err, err_len, key, v, "not a duration");
    }
    return GK5_OK;
}

static uint32_t get_enctypes(const struct gk5i_krb5_config *c, const char *key,
                             const int32_t *dflt, size_t n_dflt, int32_t *out,
                             size_t *n, char *err, size_t err_len)
{
    const char *v = libdefault(c, key);
    uint32_t ret;

    if (v == NULL) {
        memcpy(out, dflt, n_dflt * sizeof(*out));
        *n = n_dflt;
        return GK5_OK;
    }
    ret = gk5i_config_enctypes(v, dflt, n_dflt, out, GK5I_KRB_MAX_ETYPES, n);
    if (ret == GK5_ERR_CONFIG) {
        return bad_value(err, err_len, key, v, "no usable enctype");
    }
    return ret;
}

/* dns_lookup_kdc and dns_lookup_realm: gk5 never asks DNS; say so when
 * the file asks for it. */
static void note_dns(const struct gk5i_krb5_config *c, const char *key)
{
    const char *v = libdefault(c, key);
    bool on;

    if (v != NULL && parse_bool(v, &on) && on && GK5_TRACE_ON()) {
        gk5i_trace("krb5.conf: %s = %s ignored: gk5 does not look in DNS, "
                   "only [realms] kdc lines are used",
                   key, v);
    }
}

uint32_t gk5i_config_load(const char *paths, struct gk5i_krb5_config **out,
                          char *err, size_t err_len)
{
    struct gk5i_krb5_config *c;
    struct gk5i_watch watch = {NULL, 0, 0, false};
    struct timespec t0;
    int32_t dflt[GK5I_KRB_MAX_ETYPES];
    size_t n_dflt;
    const char *v;
    uint32_t ret, timeout = 0;

    *out = NULL;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (paths == NULL) {
        paths = secure_getenv("KRB5_CONFIG");
    }
    if (paths == NULL) {
        paths = CFG_DEFAULT_PATH;
    }
    /* The files as they were when last read: what was made of them. */
    c = gk5i_config_cached(paths);
    if (c != NULL) {
        *out = c;
        return GK5_OK;
    }
    clock_gettime(CLOCK_REALTIME, &t0);
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return GK5_ERR_NOMEM;
    }
    c->clockskew = CFG_DEFAULT_CLOCKSKEW;
    c->udp_preference_limit = CFG_DEFAULT_UDP_LIMIT;
    c->ticket_lifetime = CFG_DEFAULT_TICKET_LIFETIME;
    c->request_timeout_ms = CFG_DEFAULT_TIMEOUT_MS;

    ret = gk5i_profile_load_watched(paths, &watch, &c->prof, err, err_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }

    v = libdefault(c, "default_realm");
    if (v != NULL && v[0] != '\0') {
        c->default_realm = strdup(v);
        if (c->default_realm == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
    }
    if ((ret = get_duration(c, "clockskew", &c->clockskew, err, err_len)) !=
            GK5_OK ||
        (ret = get_duration(c, "ticket_lifetime", &c->ticket_lifetime, err,
                            err_len)) != GK5_OK ||
        (ret = get_duration(c, "renew_lifetime", &c->renew_lifetime, err,
                            err_len)) != GK5_OK ||
        (ret = get_duration(c, "request_timeout", &timeout, err, err_len)) !=
            GK5_OK) {
        goto cleanup;
    }
    /* MIT's 0 means no limit; gk5 bounds every wait, so 0 keeps the
     * default. */
    if (timeout > 0) {
        c->request_timeout_ms =
            timeout > UINT32_MAX / 1000 ? UINT32_MAX : timeout * 1000;
    }

    v = libdefault(c, "udp_preference_limit");
    if (v != NULL) {
        if (!parse_uint(v, &c->udp_preference_limit)) {
            ret = bad_value(err, err_len, "udp_preference_limit", v,
                            "not a number");
            goto cleanup;
        }
        if (c->udp_preference_limit > CFG_MAX_UDP_LIMIT) {
            c->udp_preference_limit = CFG_MAX_UDP_LIMIT;
        }
    }
    v = libdefault(c, "forwardable");
    if (v != NULL && !parse_bool(v, &c->forwardable)) {
        ret = bad_value(err, err_len, "forwardable", v, "not a boolean");
        goto cleanup;
    }
    note_dns(c, "dns_lookup_kdc");
    note_dns(c, "dns_lookup_realm");

    /* MIT 1.18 and later: permitted_enctypes is the default of the other
     * two. */
    n_dflt = default_enctypes(dflt, GK5_ARRAY_SIZE(dflt));
    ret = get_enctypes(c, "permitted_enctypes", dflt, n_dflt,
                       c->permitted_enctypes, &c->n_permitted, err, err_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret =
        get_enctypes(c, "default_tkt_enctypes", c->permitted_enctypes,
                     c->n_permitted, c->tkt_enctypes, &c->n_tkt, err, err_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ret =
        get_enctypes(c, "default_tgs_enctypes", c->permitted_enctypes,
                     c->n_permitted, c->tgs_enctypes, &c->n_tgs, err, err_len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    gk5i_config_keep(paths, c, &watch, &t0);
    *out = c;
    c = NULL;

cleanup:
    gk5i_watch_clear(&watch);
    gk5i_config_free(c);
    return ret;
}

struct gk5i_krb5_config *gk5i_config_copy(const struct gk5i_krb5_config *c)
{
    struct gk5i_krb5_config *copy = malloc(sizeof(*copy));

    if (copy == NULL) {
        return NULL;
    }
    *copy = *c;
    copy->default_realm = NULL;
    if (c->default_realm != NULL &&
        (copy->default_realm = strdup(c->default_realm)) == NULL) {
        free(copy);
        return NULL;
    }
    copy->prof = gk5i_profile_ref(c->prof);
    return copy;
}

void gk5i_config_free(struct gk5i_krb5_config *c)
{
    if (c == NULL) {
        return;
    }
    gk5i_profile_free(c->prof);
    free(c->default_realm);
    free(c);
}

/* ---- [realms] ---- */

/* One kdc value: "host", "host:port", "[v6]", "[v6]:port", or an IPv6
 * address without brackets (two colons or more: no port), optionally after
 * MIT's "tcp/" or "udp/" (gk5 picks the transport by size, as with no
 * prefix).  1: parsed; 0: an HTTPS proxy (MS-KKDCP), skipped; -1: does not
 * parse. */
static int parse_kdc(const char *v, struct gk5i_kdc_addr *a)
{
    const char *host = v, *host_end, *port = NULL;
    size_t len;

    if (strncasecmp(v, "http://", 7) == 0 ||
        strncasecmp(v, "https://", 8) == 0) {
        return 0;
    }
    if (strncasecmp(v, "tcp/", 4) == 0 || strncasecmp(v, "udp/", 4) == 0) {
        host += 4;
    }
    if (host[0] == '[') {
        host++;
        host_end = strchr(host, ']');
        if (host_end == NULL) {
            return -1;
        }
        if (host_end[1] == ':') {
            port = host_end + 2;
        } else if (host_end[1] != '\0') {
            return -1;
        }
    } else {
        const char *colon = strchr(host, ':');

        host_end = host + strlen(host);
        if (colon != NULL && strchr(colon + 1, ':') == NULL) {
            host_end = colon;
            port = colon + 1;
        }
    }
    len = (size_t)(host_end - host);
    if (len == 0 || len >= sizeof(a->host)) {
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)host[i];

        if (ch <= ' ' || ch == 0x7f || ch == '/' || ch == '[' || ch == ']') {
            return -1;
        }
    }
    memcpy(a->host, host, len);
    a->host[len] = '\0';
    a->port = CFG_KDC_PORT;
    if (port != NULL) {
        uint32_t p;

        if (strlen(port) > 5 || !parse_uint(port, &p) || p == 0 || p > 65535) {
            return -1;
        }
        a->port = (uint16_t)p;
    }
    return 1;
}

uint32_t gk5i_config_kdcs(const struct gk5i_krb5_config *c, const char *realm,
                          struct gk5i_kdc_addr *out, size_t max, size_t *n)
{
    const char *vals[GK5I_MAX_KDCS * 4];
    size_t nv;

    *n = 0;
    if (c == NULL || out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    if (realm == NULL) {
        realm = c->default_realm;
    }
    if (realm == NULL) {
        return GK5_ERR_CONFIG_REALM;
    }
    {
        const char *const path[] = {"realms", realm, "kdc", NULL};

        nv = gk5i_profile_values(c->prof, path, vals, GK5_ARRAY_SIZE(vals));
    }
    if (nv > GK5_ARRAY_SIZE(vals)) {
        nv = GK5_ARRAY_SIZE(vals);
    }
    for (size_t i = 0; i < nv; i++) {
        struct gk5i_kdc_addr a;
        int r = parse_kdc(vals[i], &a);

        if (r < 0) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: [realms] %s kdc = \"%s\": not "
                           "host[:port]",
                           realm, vals[i]);
            }
            *n = 0;
            return GK5_ERR_CONFIG;
        }
        if (r == 0) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: [realms] %s kdc = %s skipped: KDC "
                           "proxies (MS-KKDCP) are not supported",
                           realm, vals[i]);
            }
            continue;
        }
        if (*n == max) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: [realms] %s kdc = %s skipped: more "
                           "than %zu KDCs",
                           realm, vals[i], max);
            }
            continue;
        }
        out[(*n)++] = a;
    }
    if (*n == 0) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("krb5.conf: no kdc for realm %s", realm);
        }
        return GK5_ERR_CONFIG_NO_KDC;
    }
    return GK5_OK;
}
