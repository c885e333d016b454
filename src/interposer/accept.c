/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Native acceptance: gss_accept_sec_context answered by gk5's own acceptor
 * (include/gk5/accept.h) instead of MIT's, when the module's config line
 * asks for it:
 *
 *     gk5_mech <OID> <path> [accept=native] <interposer>
 *
 * MIT's mechglue keeps the bracketed options of a line to itself, so the
 * module reads its own line: the file GSS_MECH_CONFIG names (which then
 * replaces the others, as for the mechglue), else /etc/gss/mech and then
 * /etc/gss/mech.d/ *.conf in name order; the line is the last one naming
 * the module's OID (the mechglue lets a later line replace an earlier one
 * not loaded yet).  Read once, at the first accept.
 *
 * Which credentials: those that come from a keytab, with no other
 * constraint gk5 would have to know of -- GSS_C_NO_CREDENTIAL (the
 * keytab MIT would pick: krb5_gss_register_acceptor_identity's, else
 * KRB5_KTNAME, else krb5.conf's default_keytab_name, else MIT's default),
 * and credentials gss_acquire_cred made for accepting (noted here when
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
#include <glob.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <krb5/krb5.h>

#include "common/bytes.h"
#include "common/util.h"
#include "crypto/crypto_int.h"
#include "interposer/interposer.h"
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"
#include "mech/mech_int.h"

/* MIT's acceptor lets a context live the clock skew past its ticket's end
 * (the grace the ticket itself gets); a native context does the same.
 * MIT's default clockskew, which gk5's acceptor credential uses too. */
#define GKI_CLOCKSKEW 300

/* ---- the config line ---- */

#define MECH_CONF "/etc/gss/mech"
#define MECH_CONF_GLOB "/etc/gss/mech.d/*.conf"
#define CFG_LINE_MAX 2048  /* longer lines are skipped, with a trace */
#define CFG_LINES_MAX 4096 /* per file */
#define CFG_FILES_MAX 64   /* in mech.d */
#define CFG_OPT_MAX 128    /* one option */

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static int cfg_native;

/* The dotted text of a DER OID's content octets; -1 if it does not fit or
 * is malformed. */
static int oid_text(const gss_OID_desc *oid, char *out, size_t n)
{
    struct gk5i_rd r;
    uint64_t v = 0;
    size_t at = 0;
    int first = 1, pending = 0;

    gk5i_rd_init(&r, oid->elements, oid->length);
    while (gk5i_rd_left(&r) > 0) {
        uint8_t b = gk5i_get_u8(&r);
        int w;

        if (v > (UINT64_MAX >> 7)) {
            return -1;
        }
        v = v << 7 | (b & 0x7fu);
        pending = (b & 0x80u) != 0;
        if (pending) {
            continue;
        }
        if (first) {
            unsigned a = v < 40 ? 0 : v < 80 ? 1 : 2;

            w = snprintf(out + at, n - at, "%u.%llu", a,
                         (unsigned long long)(v - 40u * a));
            first = 0;
        } else {
            w = snprintf(out + at, n - at, ".%llu", (unsigned long long)v);
        }
        if (w < 0 || (size_t)w >= n - at) {
            return -1;
        }
        at += (size_t)w;
        v = 0;
    }
    return first || pending ? -1 : 0;
}

/* The options between the brackets of our line: 1 native, 0 MIT, each
 * unknown option named in the trace. */
static int parse_options(const char *opts, const char *where)
{
    int native = 0;
    const char *p = opts;

    while (*p != '\0') {
        size_t n;

        while (*p == ' ' || *p == '\t' || *p == ',') {
            p++;
        }
        n = strcspn(p, " \t,");
        if (n == 0) {
            break;
        }
        if (n == 13 && strncmp(p, "accept=native", n) == 0) {
            native = 1;
        } else if (n == 10 && strncmp(p, "accept=mit", n) == 0) {
            native = 0;
        } else {
            gki_trace("gk5_mech: %s: unknown option \"%.*s\" ignored", where,
                      (int)(n < CFG_OPT_MAX ? n : CFG_OPT_MAX), p);
        }
        p += n;
    }
    return native;
}

/* One line: -1 when it is not our OID's; else 1 or 0 as its options ask.
 * "name OID path [kernel-module] [options] <modifiers>" */
static int parse_line(char *line, const char *oid, const char *where)
{
    char *save = NULL, *tok, *open, *close;

    line[strcspn(line, "\r\n")] = '\0';
    tok = line + strspn(line, " \t");
    if (*tok == '#' || *tok == '\0') {
        return -1;
    }
    tok = strtok_r(tok, " \t", &save); /* name */
    tok = tok != NULL ? strtok_r(NULL, " \t", &save) : NULL;
    if (tok == NULL || strcmp(tok, oid) != 0) {
        return -1;
    }
    if (strtok_r(NULL, " \t", &save) == NULL) { /* the path */
        return -1;
    }
    if (save == NULL) {
        return 0;
    }
    open = strchr(save, '[');
    if (open == NULL) {
        return 0;
    }
    close = strchr(open, ']');
    if (close == NULL) {
        gki_trace("gk5_mech: %s: '[' without ']': options ignored", where);
        return 0;
    }
    *close = '\0';
    return parse_options(open + 1, where);
}

/* Our line in one file, if any: updates *native. */
static void read_file(const char *path, const char *oid, int *native)
{
    char line[CFG_LINE_MAX], where[CFG_LINE_MAX / 2];
    FILE *f = fopen(path, "re");
    int skipping = 0;

    if (f == NULL) {
        return;
    }
    for (unsigned no = 1; no <= CFG_LINES_MAX; no++) {
        size_t len;
        int got;

        if (fgets(line, sizeof(line), f) == NULL) {
            break;
        }
        len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            if (!skipping) {
                gki_trace("gk5_mech: %s:%u: line longer than %d bytes "
                          "skipped",
                          path, no, CFG_LINE_MAX - 1);
            }
            skipping = 1;
            no--;
            continue;
        }
        if (skipping) {
            skipping = 0;
            continue;
        }
        snprintf(where, sizeof(where), "%s:%u", path, no);
        got = parse_line(line, oid, where);
        if (got >= 0) {
            *native = got;
        }
    }
    fclose(f);
}

static void cfg_read(void)
{
    char oid[256];
    const char *env = secure_getenv("GSS_MECH_CONFIG");
    int native = 0;

    if (oid_text(&gki_interposer_oid, oid, sizeof(oid)) != 0) {
        gki_trace("gk5_mech: the module's OID cannot be written: accept by "
                  "MIT");
        return;
    }
    if (env != NULL && env[0] != '\0') {
        read_file(env, oid, &native);
    } else {
        glob_t g;

        read_file(MECH_CONF, oid, &native);
        if (glob(MECH_CONF_GLOB, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && i < CFG_FILES_MAX; i++) {
                read_file(g.gl_pathv[i], oid, &native);
            }
            globfree(&g);
        }
    }
    cfg_native = native;
    gki_trace("gk5_mech: accept: %s (config line of %s)",
              native ? "native" : "MIT", oid);
}

int gki_accept_native(void)
{
    (void)pthread_once(&cfg_once, cfg_read);
    return cfg_native;
}

/* ---- keytabs ---- */

/* krb5_gss_register_acceptor_identity's keytab, NULL when none. */
static pthread_mutex_t kt_lock = PTHREAD_MUTEX_INITIALIZER;
static char *registered_kt;
/* krb5.conf's default_keytab_name (or MIT's default), as MIT's
 * krb5_kt_default_name gives it without KRB5_KTNAME; read once. */
static pthread_once_t profile_once = PTHREAD_ONCE_INIT;
static char profile_kt[1024];

void gki_register_keytab(const char *name, size_t len)
{
    char *copy = NULL;

    if (name != NULL && len > 0) {
        copy = malloc(len + 1);
        if (copy == NULL) {
            return;
        }
        memcpy(copy, name, len);
        copy[len] = '\0';
    }
    pthread_mutex_lock(&kt_lock);
    free(registered_kt);
    registered_kt = copy;
    pthread_mutex_unlock(&kt_lock);
}

static void profile_read(void)
{
    krb5_context k = NULL;
    const char *env = secure_getenv("KRB5_KTNAME");

    /* krb5_kt_default_name answers KRB5_KTNAME first; with it set, the
     * profile's value is not needed until it is unset, which a running
     * process does not do: MIT's own default then. */
    if (env != NULL && env[0] != '\0') {
        snprintf(profile_kt, sizeof(profile_kt), "FILE:/etc/krb5.keytab");
        return;
    }
    if (krb5_init_context(&k) != 0 ||
        krb5_kt_default_name(k, profile_kt, (int)sizeof(profile_kt)) != 0) {
        profile_kt[0] = '\0';
    }
    if (k != NULL) {
        krb5_free_context(k);
    }
}

/* The keytab MIT's default acceptor credential would use now, copied to
 * out; -1 when it does not fit. */
static int default_keytab(char *out, size_t n)
{
    const char *env;
    int w = -1;

    pthread_mutex_lock(&kt_lock);
    if (registered_kt != NULL) {
        w = snprintf(out, n, "%s", registered_kt);
    }
    pthread_mutex_unlock(&kt_lock);
    if (w >= 0) {
        return (size_t)w < n ? 0 : -1;
    }
    env = secure_getenv("KRB5_KTNAME");
    if (env != NULL && env[0] != '\0') {
        w = snprintf(out, n, "%s", env);
    } else {
        (void)pthread_once(&profile_once, profile_read);
        w = snprintf(out, n, "%s", profile_kt);
    }
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* gk5 acceptor credentials, one per keytab name, kept for the process's
 * life (each holds its keytab's replay cache). */
#define KT_CREDS_MAX 16
static struct {
    char *name;
    gk5_acceptor_cred *cred;
} kt_creds[KT_CREDS_MAX];
static size_t n_kt_creds;

/* The gk5 credential for keytab, made at its first use; NULL (and the
 * reason in *err) when gk5 cannot make one. */
static gk5_acceptor_cred *kt_cred(const char *keytab, uint32_t *major,
                                  uint32_t *err)
{
    gk5_acceptor_cred *cred = NULL;

    /* "FILE:/x", "WRFILE:/x" and "/x" are one file, with one replay
     * cache. */
    if (strncmp(keytab, "FILE:", 5) == 0) {
        keytab += 5;
    } else if (strncmp(keytab, "WRFILE:", 7) == 0) {
        keytab += 7;
    }
    if (*keytab == '\0') {
        *major = GK5_S_BAD_NAME; /* gk5 would take it for its default */
        *err = GK5_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    *major = GK5_S_COMPLETE;
    *err = 0;
    pthread_mutex_lock(&kt_lock);
    for (size_t i = 0; i < n_kt_creds; i++) {
        if (strcmp(kt_creds[i].name, keytab) == 0) {
            cred = kt_creds[i].cred;
            break;
        }
    }
    if (cred == NULL) {
        if (n_kt_creds == KT_CREDS_MAX) {
            *major = GK5_S_FAILURE;
            *err = GK5_ERR_NOMEM;
        } else {
            gk5_acceptor_opts opts = {.keytab = keytab};
            char *name = strdup(keytab);

            *major = name != NULL ? gk5_acceptor_cred_new(err, &opts, &cred)
                                  : (*err = GK5_ERR_NOMEM, GK5_S_FAILURE);
            if (GK5_ERROR(*major) == 0) {
                kt_creds[n_kt_creds].name = name;
                kt_creds[n_kt_creds].cred = cred;
                n_kt_creds++;
            } else {
                free(name);
                cred = NULL;
            }
        }
    }
    pthread_mutex_unlock(&kt_lock);
    return cred;
}

/* ---- credentials gss_acquire_cred made ---- */

struct cred_note {
    gss_cred_id_t mit; /* MIT's credential: the module's handle */
    char *keytab;      /* the keytab when it was made */
    char *name;        /* the desired name, MIT's display; NULL: any */
    struct cred_note *next;
};
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cred_note *notes;

static void note_free(struct cred_note *n)
{
    if (n != NULL) {
        free(n->keytab);
        free(n->name);
        free(n);
    }
}

void gki_cred_note(gss_cred_id_t mit, gss_name_t desired, const char *keytab)
{
    struct cred_note *n;
    char kt[1024];
    OM_uint32 minor;

    if (mit == GSS_C_NO_CREDENTIAL) {
        return;
    }
    if (keytab == NULL) {
        if (default_keytab(kt, sizeof(kt)) != 0) {
            return;
        }
        keytab = kt;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL) {
        return;
    }
    n->mit = mit;
    n->keytab = strdup(keytab);
    if (desired != GSS_C_NO_NAME) {
        gss_buffer_desc text = GSS_C_EMPTY_BUFFER;

        if (!GSS_ERROR(gss_display_name(&minor, desired, &text, NULL))) {
            n->name = strndup(text.value, text.length);
            (void)gss_release_buffer(&minor, &text);
        }
        if (n->name == NULL) {
            note_free(n);
            return;
        }
    }
    if (n->keytab == NULL) {
        note_free(n);
        return;
    }
    pthread_mutex_lock(&notes_lock);
    n->next = notes;
    notes = n;
    pthread_mutex_unlock(&notes_lock);
}

void gki_cred_forget(gss_cred_id_t mit)
{
    struct cred_note **at, *gone = NULL;

    pthread_mutex_lock(&notes_lock);
    for (at = &notes; *at != NULL; at = &(*at)->next) {
        if ((*at)->mit == mit) {
            gone = *at;
            *at = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
    note_free(gone);
}

void gki_cred_moved(gss_cred_id_t from, gss_cred_id_t to)
{
    pthread_mutex_lock(&notes_lock);
    for (struct cred_note *n = notes; n != NULL; n = n->next) {
        if (n->mit == from) {
            n->mit = to;
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
}

/* The keytab and desired name noted for cred, copied; 0, or -1 when the
 * credential was not made by gss_acquire_cred for accepting. */
static int cred_lookup(gss_cred_id_t cred, char *kt, size_t kt_n, char **name)
{
    int found = -1;

    *name = NULL;
    pthread_mutex_lock(&notes_lock);
    for (struct cred_note *n = notes; n != NULL; n = n->next) {
        if (n->mit == cred) {
            int w = snprintf(kt, kt_n, "%s", n->keytab);

            if (w >= 0 && (size_t)w < kt_n &&
                (n->name == NULL || (*name = strdup(n->name)) != NULL)) {
                found = 0;
            }
            break;
        }
    }
    pthread_mutex_unlock(&notes_lock);
    return found;
}

/* ---- names ---- */

/* Whether the ticket's service (gk5's unparse, "svc/host@REALM") is the
 * desired name (MIT's display of it): component by component, an empty
 * realm matching any, and in a two-component name an empty second one
 * (a host-based name without a host) matching any. */
static int name_matches(const char *desired, const char *service)
{
    struct gk5i_name d, s;
    char *copy;
    size_t len = strlen(desired);
    int ok = 0, any_host = 0;

    /* MIT writes the referral (empty) realm as a trailing '@'; a host-based
     * name without a host as "svc/@". */
    copy = strdup(desired);
    if (copy == NULL) {
        return 0;
    }
    if (len > 0 && copy[len - 1] == '@' && (len < 2 || copy[len - 2] != '\\')) {
        copy[--len] = '\0';
    }
    if (len > 1 && copy[len - 1] == '/' && (len < 2 || copy[len - 2] != '\\')) {
        copy[--len] = '\0';
        any_host = 1;
    }
    if (gk5i_name_parse(copy, false, &d) != GK5_OK) {
        free(copy);
        return 0;
    }
    free(copy);
    if (gk5i_name_parse(service, false, &s) != GK5_OK) {
        gk5i_name_free(&d);
        return 0;
    }
    /* Principal names are public: compared with plain memcmp. */
    ok = any_host ? d.ncomp == 1 && s.ncomp == 2 : d.ncomp == s.ncomp;
    for (uint32_t i = 0; ok && i < d.ncomp; i++) {
        ok = d.comp[i].len == s.comp[i].len &&
             memcmp(d.comp[i].p, s.comp[i].p, d.comp[i].len) == 0;
    }
    if (ok && !d.any_realm) {
        ok = d.realm.len == s.realm.len &&
             memcmp(d.realm.p, s.realm.p, d.realm.len) == 0;
    }
    gk5i_name_free(&d);
    gk5i_name_free(&s);
    return ok;
}

/* ---- the initiator's name of a native context ----
 * Every call of MIT's krb5 mechanism on a name makes a krb5 context of
 * its own (tens of microseconds each): importing and canonicalizing the
 * initiator's name, and the display the mechglue asks for at once, would
 * cost more than gk5's whole accept.  A native context's names are the
 * module's own objects, holding the principal as gk5 writes it (MIT's
 * syntax, RFC 1964 2.1.1): displayed, duplicated and released here; for
 * anything else the MIT name is made once, on first need, and the call
 * goes to MIT with it (gki_name_mit).  The magic tells them from MIT's
 * names, whose first word is a pointer (the mechglue's loopback). */
#define GKI_NAME_MAGIC 0x676b356e616d6521ull /* "gk5name!" */

typedef struct gki_name {
    uint64_t magic;
    char *principal;
    _Atomic(gss_name_t) mit;
} gki_name;

static gki_name *as_native(gss_const_name_t name)
{
    gki_name *n = (gki_name *)(uintptr_t)name;

    return n != NULL && n->magic == GKI_NAME_MAGIC ? n : NULL;
}

OM_uint32 gki_native_name(OM_uint32 *minor, const char *principal,
                          gss_name_t *out)
{
    gki_name *n = calloc(1, sizeof(*n));

    *out = GSS_C_NO_NAME;
    if (n == NULL || (n->principal = strdup(principal)) == NULL) {
        free(n);
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    n->magic = GKI_NAME_MAGIC;
    atomic_init(&n->mit, GSS_C_NO_NAME);
    *out = (gss_name_t)n;
    return GSS_S_COMPLETE;
}

OM_uint32 gki_name_mit(OM_uint32 *minor, gss_const_name_t name, gss_name_t *mit)
{
    gki_name *n = as_native(name);
    gss_name_t made = GSS_C_NO_NAME, none = GSS_C_NO_NAME;
    OM_uint32 major, tmp;

    if (n == NULL) {
        *mit = (gss_name_t)(uintptr_t)name;
        return GSS_S_COMPLETE;
    }
    *mit = atomic_load(&n->mit);
    if (*mit != GSS_C_NO_NAME) {
        return GSS_S_COMPLETE;
    }
    major = gki_krb5_name(minor, n->principal, &made);
    if (GSS_ERROR(major)) {
        return major;
    }
    if (!atomic_compare_exchange_strong(&n->mit, &none, made)) {
        (void)gss_release_name(&tmp, &made); /* another thread's won */
        made = none;
    }
    *mit = made;
    return GSS_S_COMPLETE;
}

int gki_name_release(OM_uint32 *minor, gss_name_t *name)
{
    gki_name *n = as_native(*name);
    gss_name_t mit;

    if (n == NULL) {
        return 0;
    }
    mit = atomic_load(&n->mit);
    if (mit != GSS_C_NO_NAME) {
        (void)gss_release_name(minor, &mit);
    }
    n->magic = 0;
    free(n->principal);
    free(n);
    *name = GSS_C_NO_NAME;
    *minor = 0;
    return 1;
}

/* RFC 6112's anonymous principal: MIT displays it with its own name type;
 * such a name goes to MIT. */
static int is_anonymous(const char *principal)
{
    return strncmp(principal, "WELLKNOWN/ANONYMOUS@", 20) == 0;
}

int gki_name_display(OM_uint32 *minor, gss_const_name_t name, gss_buffer_t out,
                     gss_OID *type, OM_uint32 *major)
{
    gki_name *n = as_native(name);
    size_t len;

    if (n == NULL || is_anonymous(n->principal) || out == NULL) {
        return 0;
    }
    len = strlen(n->principal);
    out->value = malloc(len + 1);
    if (out->value == NULL) {
        out->length = 0;
        *minor = gki_minor(GK5_ERR_NOMEM);
        *major = GSS_S_FAILURE;
        return 1;
    }
    memcpy(out->value, n->principal, len + 1);
    out->length = len;
    if (type != NULL) {
        *type = (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME;
    }
    *minor = 0;
    *major = GSS_S_COMPLETE;
    return 1;
}

int gki_name_duplicate(OM_uint32 *minor, gss_const_name_t name, gss_name_t *out,
                       OM_uint32 *major)
{
    gki_name *n = as_native(name);

    if (n == NULL) {
        return 0;
    }
    *major = gki_native_name(minor, n->principal, out);
    return 1;
}

OM_uint32 gki_krb5_name(OM_uint32 *minor, const char *principal,
                        gss_name_t *out)
{
    gss_buffer_desc text = {strlen(principal), (void *)(uintptr_t)principal};
    gss_name_t plain = GSS_C_NO_NAME;
    OM_uint32 major, tmp;

    *out = GSS_C_NO_NAME;
    major = gss_import_name(minor, &text, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                            &plain);
    if (GSS_ERROR(major)) {
        return major;
    }
    major = gss_canonicalize_name(minor, plain, gki_special_oid(&gki_mechs[0]),
                                  out);
    (void)gss_release_name(&tmp, &plain);
    return major;
}

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
                       gk5_accept_info *info, bool deleg, gss_name_t *src_name)
{
    gss_name_t src = GSS_C_NO_NAME;

    if (deleg) {
        gki_trace("gk5_mech: context %p: accept by MIT (a delegated "
                  "credential offered: gk5 takes none)",
                  (void *)c);
        return 0;
    }
    if (want != NULL && !name_matches(want, info->acceptor)) {
        gki_trace("gk5_mech: context %p: accept by MIT (ticket for %s, the "
                  "credential's name is %s)",
                  (void *)c, info->acceptor, want);
        return 0;
    }
    if (src_name != NULL &&
        GSS_ERROR(gki_native_name(minor, info->initiator, &src))) {
        gki_trace("gk5_mech: context %p: accept by MIT (no memory for the "
                  "initiator's name)",
                  (void *)c);
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
    info->initiator = NULL;
    info->acceptor = NULL;
    (void)out;
    const struct gk5_enctype *et = gk5i_enctype_get(info->context_enctype);
    gki_trace("gk5_mech: context %p accepted natively: %s for %s, %s (%d), "
              "flags 0x%x",
              (void *)c, c->initiator, c->acceptor, et != NULL ? et->name : "?",
              (int)info->context_enctype, (unsigned)c->flags);
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
    bool deleg = false;
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
        if (default_keytab(kt, sizeof(kt)) != 0) {
            gki_trace("gk5_mech: context %p: accept by MIT (the default "
                      "keytab's name is unknown)",
                      (void *)c);
            return GKI_TO_MIT;
        }
    } else if (cred_lookup(cred, kt, sizeof(kt), &want) != 0) {
        gki_trace("gk5_mech: context %p: accept by MIT (a credential not "
                  "made by gss_acquire_cred from a keytab)",
                  (void *)c);
        return GKI_TO_MIT;
    }
    g = kt_cred(kt, &major, &err);
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
    major = gk5i_accept_deleg(&err, g, &in,
                              cb != GSS_C_NO_CHANNEL_BINDINGS ? &gcb : NULL,
                              &out, &made, &info, &deleg);
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
        take_native(minor, c, input, want, made, &out, &info, deleg, src_name);
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

/* ---- a natively accepted context, exported ----
 * "gk5N", version 1, the krb5 OID's index, the flags (u32be), the end
 * time (u64be), the initiator's and the acceptor's names (u16be length
 * and bytes each), then gk5_ctx_export's buffer.  MIT's own krb5 export
 * begins with its context magic, never with these bytes. */
static const uint8_t native_magic[4] = {'g', 'k', '5', 'N'};
#define NATIVE_VERSION 1
#define NATIVE_NAME_MAX 4096

static int mech_index_of(gss_OID mech)
{
    for (int i = 0; i < GKI_N_MECHS; i++) {
        if (mech == &gki_mechs[i]) {
            return i;
        }
    }
    return 0;
}

OM_uint32 gki_native_export(OM_uint32 *minor, const gki_ctx *c,
                            gss_buffer_t token)
{
    gk5_buffer inner = {0, NULL};
    size_t ilen = strlen(c->initiator), alen = strlen(c->acceptor), len;
    struct gk5i_wr w;
    uint32_t major, m = 0;
    uint8_t *p;

    if (ilen > NATIVE_NAME_MAX || alen > NATIVE_NAME_MAX) {
        *minor = gki_minor(GK5_ERR_INVALID_ARGUMENT);
        return GSS_S_FAILURE;
    }
    major = gk5_ctx_export(&m, c->gk5, &inner);
    if (GK5_ERROR(major) != 0) {
        *minor = gki_minor(m);
        return major;
    }
    len = 4 + 1 + 1 + 4 + 8 + 2 + ilen + 2 + alen + inner.length;
    p = malloc(len);
    if (p == NULL) {
        zap(inner.value, inner.length);
        gk5_buffer_release(&inner);
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    gk5i_wr_init(&w, p, len);
    gk5i_put_bytes(&w, native_magic, sizeof(native_magic));
    gk5i_put_u8(&w, NATIVE_VERSION);
    gk5i_put_u8(&w, (uint8_t)mech_index_of(c->mech));
    gk5i_put_u32be(&w, c->flags);
    gk5i_put_u64be(&w, (uint64_t)c->endtime);
    gk5i_put_u16be(&w, (uint16_t)ilen);
    gk5i_put_bytes(&w, c->initiator, ilen);
    gk5i_put_u16be(&w, (uint16_t)alen);
    gk5i_put_bytes(&w, c->acceptor, alen);
    gk5i_put_bytes(&w, inner.value, inner.length);
    zap(inner.value, inner.length);
    gk5_buffer_release(&inner);
    token->length = len;
    token->value = p;
    return GSS_S_COMPLETE;
}

/* A length-prefixed name of the export, NUL-terminated; NULL if malformed
 * or out of memory (*nomem then set). */
static char *read_name(struct gk5i_rd *r, int *nomem)
{
    uint16_t n = gk5i_get_u16be(r);
    const uint8_t *at = gk5i_get_bytes(r, n);
    char *s;

    if (at == NULL || n == 0 || memchr(at, '\0', n) != NULL) {
        return NULL;
    }
    s = malloc((size_t)n + 1);
    if (s == NULL) {
        *nomem = 1;
        return NULL;
    }
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

OM_uint32 gki_native_import(OM_uint32 *minor, gss_buffer_t token, gki_ctx *c)
{
    struct gk5i_rd r;
    const uint8_t *magic;
    uint8_t version, mech;
    uint32_t major, m = 0;
    int nomem = 0;

    gk5i_rd_init(&r, token->value, token->length);
    magic = gk5i_get_bytes(&r, sizeof(native_magic));
    /* The format's public magic, not a secret. */
    if (magic == NULL || memcmp(magic, native_magic, sizeof(native_magic))) {
        return GKI_TO_MIT;
    }
    version = gk5i_get_u8(&r);
    mech = gk5i_get_u8(&r);
    c->flags = gk5i_get_u32be(&r);
    c->endtime = (int64_t)gk5i_get_u64be(&r);
    c->initiator = read_name(&r, &nomem);
    c->acceptor = c->initiator != NULL ? read_name(&r, &nomem) : NULL;
    if (nomem) {
        *minor = gki_minor(GK5_ERR_NOMEM);
        return GSS_S_FAILURE;
    }
    if (r.bad || version != NATIVE_VERSION || mech >= GKI_N_MECHS ||
        c->acceptor == NULL) {
        *minor =
            gki_minor(version != NATIVE_VERSION ? GK5_ERR_IMPORT_VERSION
                                                : GK5_ERR_IMPORT_TRUNCATED);
        return GSS_S_DEFECTIVE_TOKEN;
    }
    major = gk5_ctx_import(&m, r.p, r.left, &c->gk5);
    if (GK5_ERROR(major) != 0) {
        *minor = gki_minor(m);
        return major;
    }
    c->mech = &gki_mechs[mech];
    c->native = 1;
    c->open = 1;
    gki_trace("gk5_mech: context %p imported natively: %s for %s", (void *)c,
              c->initiator, c->acceptor);
    return GSS_S_COMPLETE;
}
