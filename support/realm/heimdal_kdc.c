/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway realm on Heimdal's KDC (heimdal_kdc.h): its files, its
 * database and keytabs (kstash, kadmin -l), and Heimdal's kdc started and
 * stopped by its PID, with realm.c's helpers (realm_impl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "heimdal_kdc.h"
#include "realm_impl.h"

extern char **environ;

#define START_POLLS 1000 /* 10 s for the kdc to set up its sockets */
#define WORKER_POLLS 100 /* 1 s for it to start its worker */
#define STOP_POLLS 500   /* 5 s for a process to exit */
#define MAX_WORKERS 8

/* The programs, relative to the root they were extracted to. */
#define REL_KDC "usr/lib/heimdal-servers/kdc"
#define REL_KSTASH "usr/sbin/kstash"
#define REL_KADMIN "usr/bin/kadmin.heimdal"
#define REL_STRING2KEY "usr/bin/string2key"

typedef struct {
    char root[PATH_MAX]; /* where the packages were extracted, or / */
    char kdc[PATH_MAX], kstash[PATH_MAX], kadmin[PATH_MAX],
        string2key[PATH_MAX];
} heimdal_tools;

static int tools_at(heimdal_tools *t, const char *root)
{
    const char *base = strcmp(root, "/") == 0 ? "" : root;

    if (snprintf(t->root, sizeof(t->root), "%s", root) >=
        (int)sizeof(t->root)) {
        return -1;
    }
    return gk5_realm_path_in(t->kdc, sizeof(t->kdc), base, REL_KDC) == 0 &&
                   gk5_realm_path_in(t->kstash, sizeof(t->kstash), base,
                                     REL_KSTASH) == 0 &&
                   gk5_realm_path_in(t->kadmin, sizeof(t->kadmin), base,
                                     REL_KADMIN) == 0 &&
                   gk5_realm_path_in(t->string2key, sizeof(t->string2key), base,
                                     REL_STRING2KEY) == 0 &&
                   access(t->kdc, X_OK) == 0 && access(t->kstash, X_OK) == 0 &&
                   access(t->kadmin, X_OK) == 0 &&
                   access(t->string2key, X_OK) == 0
               ? 0
               : -1;
}

/* $GK5_HEIMDAL_KDC_DIR (and nothing else when it is set), else the
 * default folder, else the installed programs. */
static int find_tools(heimdal_tools *t, char *why, size_t why_len)
{
    const char *dir = getenv("GK5_HEIMDAL_KDC_DIR");

    if (dir != NULL && dir[0] != '\0') {
        if (tools_at(t, dir) == 0) {
            return 0;
        }
        snprintf(why, why_len,
                 "Heimdal's KDC programs are not under GK5_HEIMDAL_KDC_DIR=%s "
                 "(%s, %s, %s, %s): run tools/fetch-heimdal-kdc.sh %s",
                 dir, REL_KDC, REL_KSTASH, REL_KADMIN, REL_STRING2KEY, dir);
        return -1;
    }
    if (tools_at(t, GK5_HEIMDAL_KDC_DEFAULT_DIR) == 0 ||
        tools_at(t, "/") == 0) {
        return 0;
    }
    snprintf(why, why_len,
             "Heimdal's KDC programs are not in " GK5_HEIMDAL_KDC_DEFAULT_DIR
             " nor installed (heimdal-kdc conflicts with MIT's KDC packages): "
             "run tools/fetch-heimdal-kdc.sh, or set GK5_HEIMDAL_KDC_DIR");
    return -1;
}

int gk5_heimdal_kdc_tools_present(char *why, size_t why_len)
{
    heimdal_tools t;
    char log[] = "/dev/null";
    int status = -1;

    if (find_tools(&t, why, why_len) != 0) {
        return -1;
    }
    /* Extracted beside libraries that may be missing: it must run. */
    char *argv[] = {t.kdc, "--version", NULL};
    pid_t pid = gk5_realm_spawn(t.kdc, argv, environ, -1, log, 1);
    if (pid < 0) {
        snprintf(why, why_len, "cannot run %s", t.kdc);
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = -1;
            break;
        }
    }
    if (status != 0) {
        snprintf(why, why_len,
                 "%s --version failed (a library missing? "
                 "apt-get install heimdal-multidev)",
                 t.kdc);
        return -1;
    }
    return 0;
}

/* ---- The enctypes: gk5's table, as far as Heimdal knows them ---- */

/* Does Heimdal know the enctype by gk5's name?  string2key says. */
static int heimdal_knows(const gk5_mit_realm *realm, char **env,
                         heimdal_tools *t, const char *name)
{
    char enctype[64];

    if (snprintf(enctype, sizeof(enctype), "%s", name) >=
        (int)sizeof(enctype)) {
        return 0;
    }
    char *argv[] = {
        t->string2key,    "-k", enctype, "-p", "probe@" GK5_MIT_REALM_NAME,
        "probe-password", NULL};

    return gk5_realm_run_tool(realm, env, argv, NULL) == 0;
}

/* The realm's enctypes by gk5's names, separated by spaces; RFC 3962 AES
 * first.  0, or -1. */
static int realm_enctypes(const gk5_mit_realm *realm, char **env,
                          heimdal_tools *t, char *out, size_t out_len)
{
    size_t used = 0, count = gk5_enctype_count();

    out[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < count; i++) {
            gk5_enctype_desc d;
            if (gk5_enctype_row(i, &d) != GK5_OK ||
                !gk5_realm_enctype_wanted(d.enctype, (int)d.state) ||
                (pass == 0) != gk5_realm_enctype_first(d.enctype) ||
                !heimdal_knows(realm, env, t, d.name)) {
                continue;
            }
            int n = snprintf(out + used, out_len - used, "%s%s",
                             used > 0 ? " " : "", d.name);
            if (n < 0 || (size_t)n >= out_len - used) {
                return -1;
            }
            used += (size_t)n;
        }
    }
    return used > 0 ? 0 : -1;
}

/* [kadmin] default_keys: each of the enctypes with the default salt. */
static int with_salt(char *out, size_t out_len, const char *enctypes)
{
    size_t used = 0;

    out[0] = '\0';
    for (const char *p = enctypes; *p != '\0';) {
        size_t len = strcspn(p, " ");
        int n = snprintf(out + used, out_len - used, "%s%.*s:pw-salt",
                         used > 0 ? " " : "", (int)len, p);
        if (n < 0 || (size_t)n >= out_len - used) {
            return -1;
        }
        used += (size_t)n;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}

/* kdc.enctypes: the realm's enctypes by number, on one line. */
static int write_enctype_numbers(const gk5_mit_realm *realm,
                                 const char *enctypes)
{
    char text[256], path[PATH_MAX];
    size_t used = 0, count = gk5_enctype_count();

    text[0] = '\0';
    for (const char *p = enctypes; *p != '\0';) {
        size_t len = strcspn(p, " ");
        for (size_t i = 0; i < count; i++) {
            gk5_enctype_desc d;
            if (gk5_enctype_row(i, &d) == GK5_OK && strlen(d.name) == len &&
                strncmp(d.name, p, len) == 0) {
                int n = snprintf(text + used, sizeof(text) - used, "%s%d",
                                 used > 0 ? " " : "", (int)d.enctype);
                if (n < 0 || (size_t)n >= sizeof(text) - used) {
                    return -1;
                }
                used += (size_t)n;
            }
        }
        p += len;
        p += strspn(p, " ");
    }
    if (used + 2 > sizeof(text)) {
        return -1;
    }
    text[used] = '\n';
    text[used + 1] = '\0';
    return gk5_realm_path_in(path, sizeof(path), realm->dir, "kdc.enctypes") ==
                       0 &&
                   gk5_realm_write_text(path, text) == 0
               ? 0
               : -1;
}

int gk5_realm_has_enctype(const char *dir, int32_t enctype)
{
    char path[PATH_MAX];
    int has = 0, v;
    FILE *f;

    if (gk5_realm_path_in(path, sizeof(path), dir, "kdc.enctypes") != 0 ||
        (f = fopen(path, "re")) == NULL) {
        return 1; /* a realm that does not say: every enctype */
    }
    while (fscanf(f, "%d", &v) == 1) {
        if (v == enctype) {
            has = 1;
        }
    }
    fclose(f);
    return has;
}

/* ---- Files ---- */

static int write_configs(const gk5_mit_realm *realm, int port,
                         const char *enctypes, const char *keys)
{
    char path[PATH_MAX], text[4096];
    const char *d = realm->dir;
    int n;

    if (gk5_realm_krb5_conf(realm, port, enctypes,
                            "support/realm/heimdal_kdc.c, Heimdal's KDC") !=
        0) {
        return -1;
    }
    /* Heimdal's KDC and kadmin read this before krb5.conf.  One worker:
     * the master and one process to stop, whatever the CPU count.  A
     * ticket is encrypted in the service's first key (every principal's
     * first is RFC 3962 AES, but rc4/localhost's), not the strongest. */
    n = snprintf(text, sizeof(text),
                 "# Throwaway realm on Heimdal's KDC, made by gk5 "
                 "(support/realm/heimdal_kdc.c)\n"
                 "[kdc]\n"
                 "    database = {\n"
                 "        dbname = %s/heimdal\n"
                 "        realm = %s\n"
                 "        mkey_file = %s/m-key\n"
                 "        acl_file = %s/kadmind.acl\n"
                 "        log_file = %s/heimdal.iprop\n"
                 "    }\n"
                 "    num-kdc-processes = 1\n"
                 "    use-strongest-server-key = false\n"
                 "    check-ticket-addresses = false\n"
                 "\n[kadmin]\n"
                 "    default_keys = %s\n"
                 "\n[logging]\n"
                 "    kdc = FILE:%s/kdc.log\n"
                 "    default = FILE:%s/heimdal.log\n",
                 d, GK5_MIT_REALM_NAME, d, d, d, keys, d, d);
    if (n < 0 || (size_t)n >= sizeof(text) ||
        gk5_realm_path_in(path, sizeof(path), d, "kdc.conf") != 0 ||
        gk5_realm_write_text(path, text) != 0) {
        return -1;
    }
    return 0;
}

static int nonempty(const gk5_mit_realm *realm, const char *name)
{
    char path[PATH_MAX];
    struct stat sb;

    return gk5_realm_path_in(path, sizeof(path), realm->dir, name) == 0 &&
           stat(path, &sb) == 0 && sb.st_size > 0;
}

/* The master key (kstash), then the database, principals and keytabs in
 * one `kadmin -l` session.  Its exit status says nothing of the commands
 * it read, so the keytabs are checked after.  0, or -1. */
static int make_database(const gk5_mit_realm *realm, char **env,
                         heimdal_tools *t, const char *enctypes)
{
    static const struct {
        const char *principal, *keytab;
    } princs[] = {
        {GK5_MIT_CLIENT, "client.keytab"},
        {GK5_MIT_SERVICE, "service.keytab"},
        {GK5_MIT_NFS_SERVICE, "nfs.keytab"},
        {GK5_MIT_KADMIN_SERVICE, NULL},
        {GK5_MIT_RC4_SERVICE, "rc4.keytab"},
    };
    char key_file[PATH_MAX + 16], config[PATH_MAX + 16], script[8192];
    char others[512];
    size_t used = 0;
    int n;

    if (snprintf(key_file, sizeof(key_file), "--key-file=%s/m-key",
                 realm->dir) >= (int)sizeof(key_file) ||
        snprintf(config, sizeof(config), "--config-file=%s/kdc.conf",
                 realm->dir) >= (int)sizeof(config)) {
        return -1;
    }
    char *stash[] = {t->kstash, "--random-key", key_file, NULL};
    if (gk5_realm_run_tool(realm, env, stash, NULL) != 0 ||
        !nonempty(realm, "m-key")) {
        return -1;
    }
    /* Every enctype but rc4-hmac, to take from rc4/localhost. */
    const char *p = enctypes;
    size_t o = 0;
    others[0] = '\0';
    while (*p != '\0') {
        size_t len = strcspn(p, " ");
        if (!(len == 8 && strncmp(p, "rc4-hmac", len) == 0)) {
            n = snprintf(others + o, sizeof(others) - o, " %.*s", (int)len, p);
            if (n < 0 || (size_t)n >= sizeof(others) - o) {
                return -1;
            }
            o += (size_t)n;
        }
        p += len;
        p += strspn(p, " ");
    }
    if (o == 0 || strstr(enctypes, "rc4-hmac") == NULL) {
        return -1; /* no rc4-hmac in the realm: no rc4-only service */
    }
    n = snprintf(script, sizeof(script),
                 "init --realm-max-ticket-life=1h "
                 "--realm-max-renewable-life=1d %s\n",
                 GK5_MIT_REALM_NAME);
    if (n < 0 || (size_t)n >= sizeof(script)) {
        return -1;
    }
    used = (size_t)n;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(princs); i++) {
        n = snprintf(script + used, sizeof(script) - used,
                     "add -r --use-defaults %s\n", princs[i].principal);
        if (n < 0 || (size_t)n >= sizeof(script) - used) {
            return -1;
        }
        used += (size_t)n;
    }
    /* rc4/localhost: its rc4-hmac key alone into rc4.keytab, then an AES
     * key after it, in the database only.  Heimdal gives a service a
     * session key only of a type it has a key of, and (with
     * use-strongest-server-key off) encrypts the ticket in the service's
     * first key: an rc4 ticket with an AES session key, as MIT's KDC
     * issues for its rc4-only service. */
    for (size_t i = 0; i < GK5_ARRAY_SIZE(princs); i++) {
        if (i == 0) {
            n = snprintf(script + used, sizeof(script) - used,
                         "del_enctype %s%s\n"
                         "ext_keytab -k %s/rc4.keytab %s\n"
                         "add_enctype -r %s %.*s\n",
                         GK5_MIT_RC4_SERVICE, others, realm->dir,
                         GK5_MIT_RC4_SERVICE, GK5_MIT_RC4_SERVICE,
                         (int)strcspn(enctypes, " "), enctypes);
            if (n < 0 || (size_t)n >= sizeof(script) - used) {
                return -1;
            }
            used += (size_t)n;
        }
        if (princs[i].keytab == NULL ||
            strcmp(princs[i].principal, GK5_MIT_RC4_SERVICE) == 0) {
            continue;
        }
        n = snprintf(script + used, sizeof(script) - used,
                     "ext_keytab -k %s/%s %s\n", realm->dir, princs[i].keytab,
                     princs[i].principal);
        if (n < 0 || (size_t)n >= sizeof(script) - used) {
            return -1;
        }
        used += (size_t)n;
    }
    char *kadmin[] = {t->kadmin, "-l", config, "-r", GK5_MIT_REALM_NAME, NULL};
    if (gk5_realm_run_tool(realm, env, kadmin, script) != 0) {
        return -1;
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(princs); i++) {
        if (princs[i].keytab != NULL && !nonempty(realm, princs[i].keytab)) {
            return -1;
        }
    }
    /* kadmind is never started: nobody has an administrative privilege. */
    char acl[PATH_MAX];
    return gk5_realm_path_in(acl, sizeof(acl), realm->dir, "kadmind.acl") ==
                       0 &&
                   gk5_realm_write_text(acl, "") == 0
               ? 0
               : -1;
}

/* ---- The KDC's processes ---- */

static int config_arg(char *out, size_t out_len, const char *dir)
{
    int n = snprintf(out, out_len, "--config-file=%s/kdc.conf", dir);

    return n > 0 && (size_t)n < out_len ? 0 : -1;
}

/* The master's children (its workers), into pids; their number. */
static size_t read_children(pid_t master, pid_t *pids, size_t max)
{
    char path[96];
    size_t count = 0;
    long v;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)master,
             (long)master);
    f = fopen(path, "re");
    if (f == NULL) {
        return 0;
    }
    while (count < max && fscanf(f, "%ld", &v) == 1) {
        if (v > 0) {
            pids[count++] = (pid_t)v;
        }
    }
    fclose(f);
    return count;
}

/* dir/kdc.workers: the workers' PIDs, one a line. */
static int write_workers(const gk5_mit_realm *realm, pid_t master)
{
    pid_t pids[MAX_WORKERS];
    size_t count = 0;
    char text[MAX_WORKERS * 24 + 1], path[PATH_MAX];
    size_t used = 0;

    for (int i = 0; i < WORKER_POLLS && count == 0; i++) {
        count = read_children(master, pids, MAX_WORKERS);
        if (count == 0) {
            gk5_realm_nap();
        }
    }
    text[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        used += (size_t)snprintf(text + used, sizeof(text) - used, "%ld\n",
                                 (long)pids[i]);
    }
    return gk5_realm_path_in(path, sizeof(path), realm->dir, "kdc.workers") ==
                       0 &&
                   gk5_realm_write_text(path, text) == 0
               ? 0
               : -1;
}

static size_t read_workers(const char *dir, pid_t *pids, size_t max)
{
    char path[PATH_MAX];
    size_t count = 0;
    long v;
    FILE *f;

    if (gk5_realm_path_in(path, sizeof(path), dir, "kdc.workers") != 0 ||
        (f = fopen(path, "re")) == NULL) {
        return 0;
    }
    while (count < max && fscanf(f, "%ld", &v) == 1) {
        if (v > 0) {
            pids[count++] = (pid_t)v;
        }
    }
    fclose(f);
    return count;
}

/* Workers left by a master that was stopped: they exit when they see it
 * gone; any still running after 5 s that is ours (its command line names
 * the folder's kdc.conf) is killed by its PID. */
static void stop_workers(const char *dir, const pid_t *pids, size_t count)
{
    char arg[PATH_MAX + 16];

    if (count == 0 || config_arg(arg, sizeof(arg), dir) != 0) {
        return;
    }
    for (size_t i = 0; i < count; i++) {
        for (int p = 0; p < STOP_POLLS && gk5_realm_alive(pids[i]) &&
                        gk5_realm_cmdline_has(pids[i], arg, NULL);
             p++) {
            gk5_realm_nap();
        }
        if (gk5_realm_alive(pids[i]) &&
            gk5_realm_cmdline_has(pids[i], arg, NULL)) {
            (void)kill(pids[i], SIGKILL);
        }
    }
}

/* Start the kdc on port: 1 when it serves the port alone, 0 to retry
 * elsewhere, -1 on a hard failure. */
static int start_kdc_on(gk5_mit_realm *realm, char **env, heimdal_tools *t,
                        const char *enctypes, const char *keys, int port,
                        int detached)
{
    char log[PATH_MAX], config[PATH_MAX + 16], ports[32];
    pid_t pid;

    if (gk5_realm_path_in(log, sizeof(log), realm->dir, "kdc.out") != 0 ||
        config_arg(config, sizeof(config), realm->dir) != 0 ||
        write_configs(realm, port, enctypes, keys) != 0) {
        return -1;
    }
    snprintf(ports, sizeof(ports), "--ports=%d", port);
    char *argv[] = {t->kdc, config, "--addresses=127.0.0.1", ports, NULL};
    pid = gk5_realm_spawn(t->kdc, argv, env, -1, log, !detached);
    if (pid < 0) {
        return -1;
    }
    /* Up when its UDP and TCP sockets are there (it writes no PID file
     * of ours). */
    for (int i = 0; i < START_POLLS; i++) {
        int status, users;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            /* Someone took the port meanwhile: retry elsewhere.  A port
             * still free: it failed for another reason (kdc.log). */
            return gk5_realm_port_users(port) > 0 ? 0 : -1;
        }
        users = gk5_realm_port_users(port);
        if (users == 2) {
            realm->kdc_pid = pid;
            realm->port = port;
            return write_workers(realm, pid) == 0 ? 1 : -1;
        }
        if (users > 2) {
            gk5_realm_stop_pid(pid);
            return 0;
        }
        gk5_realm_nap();
    }
    gk5_realm_stop_pid(pid);
    return -1;
}

/* kdc.kind, and heimdal.root: where the programs are, for a test that
 * runs Heimdal's kadmin -l on the realm. */
static int write_kind(const gk5_mit_realm *realm, const heimdal_tools *t)
{
    char path[PATH_MAX], root[PATH_MAX + 2];

    snprintf(root, sizeof(root), "%s\n", t->root);
    return gk5_realm_path_in(path, sizeof(path), realm->dir, "kdc.kind") == 0 &&
                   gk5_realm_write_text(path, "heimdal\n") == 0 &&
                   gk5_realm_path_in(path, sizeof(path), realm->dir,
                                     "heimdal.root") == 0 &&
                   gk5_realm_write_text(path, root) == 0
               ? 0
               : -1;
}

/* The kdc on the port of try `tries` (start.c's loop). */
struct heimdal_start {
    gk5_mit_realm *realm;
    char **env;
    heimdal_tools *t;
    const char *enctypes, *keys;
    int detached;
};

static int heimdal_start_on(void *arg, int tries)
{
    const struct heimdal_start *h = arg;
    int port = gk5_realm_pick_port(tries);

    if (gk5_realm_port_users(port) != 0) {
        return 0;
    }
    return start_kdc_on(h->realm, h->env, h->t, h->enctypes, h->keys, port,
                        h->detached);
}

static int make_realm(gk5_mit_realm *realm, int detached, char *err,
                      size_t err_len)
{
    static const gk5_realm_kdc kdc = {.name = "Heimdal's kdc",
                                      .logs = "kdc.log, kdc.out",
                                      .start_on = heimdal_start_on};
    heimdal_tools t;
    char enctypes[512], keys[1024];
    char **env = NULL;
    int ret = -1;

    if (find_tools(&t, err, err_len) != 0) {
        return -1;
    }
    /* kadmin reads the folder's name inside its command lines. */
    if (strpbrk(realm->dir, " \t\n\"'\\") != NULL) {
        snprintf(err, err_len,
                 "%s: Heimdal's kadmin cannot take a folder whose name holds "
                 "a space, a quote or a backslash",
                 realm->dir);
        return -1;
    }
    env = gk5_realm_environ(realm);
    /* string2key and kadmin read krb5.conf: the realm's, not /etc's. */
    if (env == NULL || write_kind(realm, &t) != 0 ||
        write_configs(realm, 0, "aes256-cts-hmac-sha1-96", "") != 0) {
        snprintf(err, err_len, "cannot write the realm's configuration in %s",
                 realm->dir);
        goto cleanup;
    }
    if (realm_enctypes(realm, env, &t, enctypes, sizeof(enctypes)) != 0 ||
        with_salt(keys, sizeof(keys), enctypes) != 0) {
        snprintf(err, err_len,
                 "Heimdal's string2key knows none of gk5's enctypes "
                 "(see %s/tools.log)",
                 realm->dir);
        goto cleanup;
    }
    if (write_configs(realm, 0, enctypes, keys) != 0 ||
        write_enctype_numbers(realm, enctypes) != 0 ||
        make_database(realm, env, &t, enctypes) != 0) {
        snprintf(err, err_len,
                 "creating the realm with Heimdal's kstash and kadmin -l "
                 "failed (see %s/tools.log)",
                 realm->dir);
        goto cleanup;
    }
    struct heimdal_start h = {realm, env, &t, enctypes, keys, detached};
    ret = gk5_realm_start_on_free_port(realm, &kdc, &h, err, err_len);

cleanup:
    gk5_realm_free_environ(env);
    return ret;
}

/* A failed start's kdc and its workers; the folder stays. */
static void stop_kdc(gk5_mit_realm *realm)
{
    pid_t workers[MAX_WORKERS];
    size_t n = read_workers(realm->dir, workers, MAX_WORKERS);

    gk5_realm_stop_pid(realm->kdc_pid);
    realm->kdc_pid = 0;
    stop_workers(realm->dir, workers, n);
}

static const gk5_realm_maker heimdal_maker = {
    .temp = "gk5-hrealm.XXXXXX",
    .present = gk5_heimdal_kdc_tools_present,
    .make = make_realm,
    .stop_kdc = stop_kdc,
    .stop = gk5_heimdal_realm_stop,
};

int gk5_heimdal_realm_start(gk5_mit_realm *realm, char *err, size_t err_len)
{
    return gk5_realm_start_temp(realm, &heimdal_maker, err, err_len);
}

int gk5_heimdal_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                               size_t err_len)
{
    return gk5_realm_start_dir(realm, dir, &heimdal_maker, err, err_len);
}

int gk5_heimdal_realm_stop_in(const char *dir, char *err, size_t err_len)
{
    char real[PATH_MAX], pid_file[PATH_MAX], arg[PATH_MAX + 16];
    pid_t pid, workers[MAX_WORKERS];
    size_t nworkers;
    struct stat sb;
    long v = 0;
    FILE *f;

    if (realpath(dir, real) == NULL || stat(real, &sb) != 0 ||
        !S_ISDIR(sb.st_mode)) {
        if (err != NULL) {
            snprintf(err, err_len, "no such directory: %s", dir);
        }
        return -1;
    }
    if (gk5_realm_path_in(pid_file, sizeof(pid_file), real, "kdc.pid") != 0 ||
        config_arg(arg, sizeof(arg), real) != 0) {
        if (err != NULL) {
            snprintf(err, err_len, "folder name too long: %s", dir);
        }
        return -1;
    }
    f = fopen(pid_file, "re");
    if (f == NULL) {
        return 0; /* no realm running there */
    }
    if (fscanf(f, "%ld", &v) != 1 || v <= 0) {
        v = 0;
    }
    fclose(f);
    pid = (pid_t)v;
    nworkers = read_workers(real, workers, MAX_WORKERS);
    /* Never signal a recycled PID: the command line must be ours. */
    if (pid > 0 && gk5_realm_cmdline_has(pid, arg, NULL)) {
        (void)kill(pid, SIGTERM);
        for (int i = 0; i < STOP_POLLS && gk5_realm_alive(pid); i++) {
            gk5_realm_nap();
        }
        if (gk5_realm_alive(pid)) {
            (void)kill(pid, SIGKILL);
            for (int i = 0; i < STOP_POLLS && gk5_realm_alive(pid); i++) {
                gk5_realm_nap();
            }
        }
        (void)waitpid(pid, NULL, WNOHANG);
    }
    stop_workers(real, workers, nworkers);
    (void)unlink(pid_file);
    return 0;
}

void gk5_heimdal_realm_stop(gk5_mit_realm *realm)
{
    pid_t workers[MAX_WORKERS];
    size_t count;
    char dir[PATH_MAX];

    if (realm == NULL) {
        return;
    }
    /* Before the folder goes: the workers' PIDs. */
    count = realm->owned ? read_workers(realm->dir, workers, MAX_WORKERS) : 0;
    memcpy(dir, realm->dir, sizeof(dir));
    gk5_mit_realm_stop(realm);
    stop_workers(dir, workers, count);
}

int gk5_realm_is_heimdal(const char *dir)
{
    char path[PATH_MAX], kind[16] = "";
    FILE *f;

    if (gk5_realm_path_in(path, sizeof(path), dir, "kdc.kind") != 0 ||
        (f = fopen(path, "re")) == NULL) {
        return 0;
    }
    if (fgets(kind, sizeof(kind), f) == NULL) {
        kind[0] = '\0';
    }
    fclose(f);
    return strcmp(kind, "heimdal\n") == 0;
}
