/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway MIT realm: its files, its database and keytabs (kdb5_util,
 * kadmin.local), and krb5kdc started and stopped by its PID (realm.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/util.h"
#include "realm.h"
#include "realm_impl.h"

extern char **environ;

#define PORT_MIN 20000 /* below the default ephemeral range 32768-60999 */
#define PORT_SPAN 12768
#define POLL_NS 10000000L /* 10 ms */
#define START_POLLS 1000  /* 10 s for krb5kdc to set up its sockets */
#define STOP_POLLS 500    /* 5 s for it to exit on SIGTERM */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || err_len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int path_in(char *out, size_t out_len, const char *dir, const char *name)
{
    int n = snprintf(out, out_len, "%s/%s", dir, name);

    return n > 0 && (size_t)n < out_len ? 0 : -1;
}

/* ---- Finding the MIT programs ---- */

static int find_tool(const char *name, char *out, size_t out_len)
{
    static const char *const sbin[] = {"/usr/sbin", "/usr/local/sbin", "/sbin"};
    const char *path = getenv("PATH");

    if (path != NULL) {
        const char *p = path;
        while (*p != '\0') {
            size_t n = strcspn(p, ":");
            if (n > 0 &&
                snprintf(out, out_len, "%.*s/%s", (int)n, p, name) > 0 &&
                access(out, X_OK) == 0) {
                return 0;
            }
            p += n;
            if (*p == ':') {
                p++;
            }
        }
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(sbin); i++) {
        if (path_in(out, out_len, sbin[i], name) == 0 &&
            access(out, X_OK) == 0) {
            return 0;
        }
    }
    return -1;
}

int gk5_mit_realm_tools_present(char *why, size_t why_len)
{
    static const char *const tools[] = {"krb5kdc", "kdb5_util", "kadmin.local"};
    char path[PATH_MAX];

    for (size_t i = 0; i < GK5_ARRAY_SIZE(tools); i++) {
        if (find_tool(tools[i], path, sizeof(path)) != 0) {
            set_err(why, why_len,
                    "the MIT krb5 KDC program %s is not installed "
                    "(apt-get install krb5-kdc krb5-admin-server)",
                    tools[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- Files ---- */

static int write_text(const char *path, const char *text)
{
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int ret = -1;

    if (fd < 0) {
        return -1;
    }
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            goto cleanup;
        }
        text += n;
        len -= (size_t)n;
    }
    ret = 0;

cleanup:
    if (close(fd) != 0) {
        ret = -1;
    }
    return ret;
}

/* ---- The enctypes, from gk5's table ---- */

/* First, whatever the table's order: RFC 3962 AES.  The KDC encrypts a
 * ticket in the service's first key type and gives a TGT the session-key
 * type the client lists first; every peer reads these (Heimdal 7 has no
 * RFC 8009). */
static const int32_t first_enctypes[] = {18, 17};
/* Of the rejected rows, only rc4-hmac: MIT issues it (with allow_rc4) for
 * the refusal cases.  MIT calls its export variant weak and has no single
 * DES any more. */
static const int32_t rejected_issued[] = {23};

static int in_list(int32_t et, const int32_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (list[i] == et) {
            return 1;
        }
    }
    return 0;
}

/* In the realm: supported and not-built rows (DES3 is refused by a
 * default build, which the interop tests check) and rc4-hmac.  The other
 * rejected rows are the ones MIT does not implement (single DES) or calls
 * weak (rc4-hmac-exp). */
static int realm_enctype(const gk5_enctype_desc *d)
{
    return d->state != GK5_ENCTYPE_REJECTED ||
           in_list(d->enctype, rejected_issued,
                   GK5_ARRAY_SIZE(rejected_issued));
}

/* The realm's enctypes by gk5's names (each one MIT's kdc.conf and
 * krb5.conf take: its own name or, for rc4-hmac, an alias of
 * arcfour-hmac), separated by spaces, each followed by suffix (":normal"
 * for supported_enctypes).  0, or -1 if out is too small. */
static int enctype_list(char *out, size_t out_len, const char *suffix)
{
    size_t used = 0, count = gk5_enctype_count();

    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < count; i++) {
            gk5_enctype_desc d;
            if (gk5_enctype_row(i, &d) != GK5_OK || !realm_enctype(&d) ||
                (pass == 0) != in_list(d.enctype, first_enctypes,
                                       GK5_ARRAY_SIZE(first_enctypes))) {
                continue;
            }
            int n = snprintf(out + used, out_len - used, "%s%s%s",
                             used > 0 ? " " : "", d.name, suffix);
            if (n < 0 || (size_t)n >= out_len - used) {
                return -1;
            }
            used += (size_t)n;
        }
    }
    return used > 0 ? 0 : -1;
}

/* The KDC's supported_enctypes: GK5_KDC_ENCTYPES's words if set, else
 * every enctype of the realm; each as "NAME:normal". */
static int supported_list(char *out, size_t out_len)
{
    const char *p = getenv("GK5_KDC_ENCTYPES");
    size_t used = 0;

    if (p == NULL || p[strspn(p, " \t\n")] == '\0') {
        return enctype_list(out, out_len, ":normal");
    }
    for (;;) {
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        if (n == 0) {
            break;
        }
        int w = snprintf(out + used, out_len - used, "%s%.*s:normal",
                         used > 0 ? " " : "", (int)n, p);
        if (w < 0 || (size_t)w >= out_len - used) {
            return -1;
        }
        used += (size_t)w;
        p += n;
    }
    return 0;
}

/* The realm's krb5.conf, for any KDC: its realm on 127.0.0.1:port, the
 * enctype list for every client list, no DNS; made_by names the file
 * that wrote it. */
static int krb5_conf(const gk5_mit_realm *realm, int port, const char *enctypes,
                     const char *made_by)
{
    char path[PATH_MAX], text[4096];
    int n;

    n = snprintf(text, sizeof(text),
                 "# Throwaway realm made by gk5 (%s)\n"
                 "[libdefaults]\n"
                 "    default_realm = %s\n"
                 "    dns_lookup_kdc = false\n"
                 "    dns_lookup_realm = false\n"
                 "    dns_canonicalize_hostname = false\n"
                 "    rdns = false\n"
                 "    allow_rc4 = true\n"
                 "    allow_des3 = true\n"
                 "    permitted_enctypes = %s\n"
                 "    default_tkt_enctypes = %s\n"
                 "    default_tgs_enctypes = %s\n"
                 "    default_ccache_name = MEMORY:gk5-default\n"
                 "\n[realms]\n"
                 "    %s = {\n"
                 "        kdc = 127.0.0.1:%d\n"
                 "    }\n"
                 "\n[logging]\n"
                 "    default = FILE:%s/krb5.log\n",
                 made_by, GK5_MIT_REALM_NAME, enctypes, enctypes, enctypes,
                 GK5_MIT_REALM_NAME, port, realm->dir);
    if (n < 0 || (size_t)n >= sizeof(text) ||
        path_in(path, sizeof(path), realm->dir, "krb5.conf") != 0) {
        return -1;
    }
    return write_text(path, text);
}

static int write_configs(const gk5_mit_realm *realm, int port)
{
    char path[PATH_MAX];
    char text[4096], enctypes[512], supported[1024];
    const char *d = realm->dir;
    int n;

    if (enctype_list(enctypes, sizeof(enctypes), "") != 0 ||
        supported_list(supported, sizeof(supported)) != 0) {
        return -1;
    }
    if (krb5_conf(realm, port, enctypes, "support/realm/realm.c") != 0) {
        return -1;
    }
    n = snprintf(text, sizeof(text),
                 "# Throwaway realm made by gk5 (support/realm/realm.c)\n"
                 "[kdcdefaults]\n"
                 "    kdc_listen = 127.0.0.1:%d\n"
                 "    kdc_tcp_listen = 127.0.0.1:%d\n"
                 "\n[realms]\n"
                 "    %s = {\n"
                 "        database_name = %s/principal\n"
                 "        key_stash_file = %s/stash\n"
                 "        acl_file = %s/kadm5.acl\n"
                 "        kdc_listen = 127.0.0.1:%d\n"
                 "        kdc_tcp_listen = 127.0.0.1:%d\n"
                 "        master_key_type = aes256-cts-hmac-sha1-96\n"
                 "        supported_enctypes = %s\n"
                 "        max_life = 1h\n"
                 "    }\n"
                 "\n[logging]\n"
                 "    kdc = FILE:%s/kdc.log\n"
                 "    admin_server = FILE:%s/kadmin.log\n"
                 "    default = FILE:%s/krb5.log\n",
                 port, port, GK5_MIT_REALM_NAME, d, d, d, port, port, supported,
                 d, d, d);
    if (n < 0 || (size_t)n >= sizeof(text) ||
        path_in(path, sizeof(path), d, "kdc.conf") != 0 ||
        write_text(path, text) != 0) {
        return -1;
    }
    return 0;
}

/* Remove the entries of the folder open as fd, descending into folders
 * (an NFS server's ccache and recovery folders) up to depth levels:
 * async-signal-safe (raw getdents64, openat, unlinkat). */
static void empty_dir_at(int fd, int depth)
{
    char buf[4096];

    /* Unlinking while reading may hide entries: reread until empty. */
    for (int pass = 0; pass < 8; pass++) {
        int removed = 0;
        ssize_t n;
        (void)lseek(fd, 0, SEEK_SET);
        while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
            for (ssize_t off = 0; off < n;) {
                const struct dirent64 *de = (const void *)(buf + off);
                off += de->d_reclen;
                if (strcmp(de->d_name, ".") == 0 ||
                    strcmp(de->d_name, "..") == 0) {
                    continue;
                }
                if (unlinkat(fd, de->d_name, 0) == 0) {
                    removed = 1;
                    continue;
                }
                if (depth > 0 && de->d_type == DT_DIR) {
                    int sub =
                        openat(fd, de->d_name,
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        empty_dir_at(sub, depth - 1);
                        (void)close(sub);
                    }
                    if (unlinkat(fd, de->d_name, AT_REMOVEDIR) == 0) {
                        removed = 1;
                    }
                }
            }
        }
        if (!removed) {
            break;
        }
    }
}

/* How deep remove_realm_dir descends: Samba's AD realm is the deepest,
 * samba/state/sysvol/REALM/Policies/{GUID}/MACHINE, 7 levels below. */
#define REALM_DIR_DEPTH 10

/* Remove the realm's folder and what is in it. */
static void remove_realm_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0) {
        return;
    }
    empty_dir_at(fd, REALM_DIR_DEPTH);
    (void)close(fd);
    (void)rmdir(dir);
}

/* ---- Child processes ---- */

/* environ with KRB5_CONFIG and KRB5_KDC_PROFILE pointing into the realm:
 * every MIT tool reads the realm's files and nothing in /etc. */
static char **realm_environ(const gk5_mit_realm *realm)
{
    size_t count = 0, j = 0;
    char **env = NULL;
    char krb5_conf[PATH_MAX + 16], kdc_conf[PATH_MAX + 24];

    if (snprintf(krb5_conf, sizeof(krb5_conf), "KRB5_CONFIG=%s/krb5.conf",
                 realm->dir) >= (int)sizeof(krb5_conf) ||
        snprintf(kdc_conf, sizeof(kdc_conf), "KRB5_KDC_PROFILE=%s/kdc.conf",
                 realm->dir) >= (int)sizeof(kdc_conf)) {
        return NULL;
    }
    while (environ[count] != NULL) {
        count++;
    }
    env = calloc(count + 3, sizeof(*env));
    if (env == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (strncmp(environ[i], "KRB5_CONFIG=", 12) == 0 ||
            strncmp(environ[i], "KRB5_KDC_PROFILE=", 17) == 0) {
            continue;
        }
        env[j++] = environ[i];
    }
    env[j] = strdup(krb5_conf);
    env[j + 1] = strdup(kdc_conf);
    if (env[j] == NULL || env[j + 1] == NULL) {
        free(env[j]);
        free(env[j + 1]);
        free(env);
        return NULL;
    }
    return env;
}

static void free_realm_environ(char **env)
{
    size_t n = 0;

    if (env == NULL) {
        return;
    }
    while (env[n] != NULL) {
        n++;
    }
    /* The last two entries are ours; the rest belong to environ. */
    if (n >= 2) {
        free(env[n - 1]);
        free(env[n - 2]);
    }
    free(env);
}

/* fork + execve with stdin from in_fd (or /dev/null) and stdout/stderr
 * appended to log.  die_with_parent: the child gets SIGKILL when we go. */
static pid_t spawn(const char *path, char *const argv[], char *const envp[],
                   int in_fd, const char *log, int die_with_parent)
{
    pid_t parent = getpid();
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    pid_t pid = -1;

    if (null_fd < 0 || log_fd < 0) {
        goto cleanup;
    }
    pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        if (die_with_parent &&
            (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)) {
            _exit(127);
        }
        if (dup2(in_fd >= 0 ? in_fd : null_fd, 0) < 0 || dup2(log_fd, 1) < 0 ||
            dup2(log_fd, 2) < 0) {
            _exit(127);
        }
        /* Nothing else of ours (or of whoever ran us) stays open in a
         * KDC that may outlive this call. */
        if (close_range(3, ~0u, 0) != 0) {
            for (int fd = 3; fd < 1024; fd++) {
                (void)close(fd);
            }
        }
        execve(path, argv, envp);
        _exit(127);
    }

cleanup:
    if (null_fd >= 0) {
        (void)close(null_fd);
    }
    if (log_fd >= 0) {
        (void)close(log_fd);
    }
    return pid;
}

static int wait_exit(pid_t pid)
{
    int status;

    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run a tool to completion, optionally feeding it input; 0 on exit 0. */
static int run_tool(const gk5_mit_realm *realm, char **env, char *const argv[],
                    const char *input)
{
    char log[PATH_MAX];
    int pipe_fd[2] = {-1, -1};
    int ret = -1;
    pid_t pid;

    if (path_in(log, sizeof(log), realm->dir, "tools.log") != 0) {
        return -1;
    }
    if (input != NULL && pipe2(pipe_fd, O_CLOEXEC) != 0) {
        return -1;
    }
    pid = spawn(argv[0], argv, env, pipe_fd[0], log, 1);
    if (pipe_fd[0] >= 0) {
        (void)close(pipe_fd[0]);
    }
    if (pid < 0) {
        goto cleanup;
    }
    if (input != NULL) {
        /* A few dozen bytes: far below the pipe's capacity, so this does
         * not block.  A tool that exits without reading must not kill us
         * with SIGPIPE: its exit status tells. */
        struct sigaction ign, old;
        memset(&ign, 0, sizeof(ign));
        ign.sa_handler = SIG_IGN;
        (void)sigaction(SIGPIPE, &ign, &old);
        ssize_t n = write(pipe_fd[1], input, strlen(input));
        (void)sigaction(SIGPIPE, &old, NULL);
        (void)n;
        (void)close(pipe_fd[1]);
        pipe_fd[1] = -1;
    }
    ret = wait_exit(pid) == 0 ? 0 : -1;

cleanup:
    if (pipe_fd[1] >= 0) {
        (void)close(pipe_fd[1]);
    }
    return ret;
}

/* rc4/localhost with an rc4-hmac key alone, into rc4.keytab: the KDC
 * (MIT 1.20.1, rc4-hmac in supported_enctypes, which addprinc -e does
 * not even need) encrypts its tickets in that key and picks an AES
 * session key -- the ticket a KDC client must refuse before storing it
 * (RFC 8429).  Its own principal, so that no other service's keys or
 * first key type change.  0, or -1 if kadmin.local failed. */
static int make_rc4_service(const gk5_mit_realm *realm, char **env,
                            char *kadmin, char *db)
{
    char keytab[PATH_MAX], query[PATH_MAX + 128];
    struct stat sb;

    if (path_in(keytab, sizeof(keytab), realm->dir, "rc4.keytab") != 0) {
        return -1;
    }
    for (int step = 0; step < 2; step++) {
        int n = step == 0 ? snprintf(query, sizeof(query),
                                     "addprinc -randkey -e arcfour-hmac:normal "
                                     "%s",
                                     GK5_MIT_RC4_SERVICE)
                          : snprintf(query, sizeof(query),
                                     "ktadd -k %s -norandkey %s", keytab,
                                     GK5_MIT_RC4_SERVICE);
        if (n < 0 || (size_t)n >= sizeof(query)) {
            return -1;
        }
        char *argv[] = {kadmin, "-r", GK5_MIT_REALM_NAME, "-d", db, "-q",
                        query,  NULL};
        if (run_tool(realm, env, argv, NULL) != 0) {
            return -1;
        }
    }
    return stat(keytab, &sb) == 0 && sb.st_size > 0 ? 0 : -1;
}

static int make_database(const gk5_mit_realm *realm, char **env)
{
    char kdb5_util[PATH_MAX], kadmin[PATH_MAX];
    char db[PATH_MAX], stash[PATH_MAX], client_kt[PATH_MAX],
        service_kt[PATH_MAX];
    char query[PATH_MAX + 128];
    uint8_t rnd[24];
    char input[2 * (2 * sizeof(rnd) + 1) + 1];
    int ret = -1;

    if (find_tool("kdb5_util", kdb5_util, sizeof(kdb5_util)) != 0 ||
        find_tool("kadmin.local", kadmin, sizeof(kadmin)) != 0 ||
        path_in(db, sizeof(db), realm->dir, "principal") != 0 ||
        path_in(stash, sizeof(stash), realm->dir, "stash") != 0 ||
        path_in(client_kt, sizeof(client_kt), realm->dir, "client.keytab") !=
            0 ||
        path_in(service_kt, sizeof(service_kt), realm->dir, "service.keytab") !=
            0) {
        return -1;
    }
    /* A random master password, given twice through a pipe. */
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        goto cleanup;
    }
    char *p = input;
    for (int twice = 0; twice < 2; twice++) {
        for (size_t i = 0; i < sizeof(rnd); i++) {
            p += sprintf(p, "%02x", rnd[i]);
        }
        *p++ = '\n';
    }
    *p = '\0';
    /* Explicit database and stash paths on top of KRB5_KDC_PROFILE: a
     * mistake in the environment must never reach /var/lib/krb5kdc. */
    char *create[] = {kdb5_util, "-r",  GK5_MIT_REALM_NAME, "-d", db,
                      "-sf",     stash, "create",           "-s", NULL};
    if (run_tool(realm, env, create, input) != 0) {
        goto cleanup;
    }
    /* The client, gk5's test service and nfs/localhost (an NFS server's
     * acceptor), each with a keytab, and kadmin/localhost (kadmind's keys
     * stay in the database). */
    char nfs_kt[PATH_MAX], acl[PATH_MAX];
    if (path_in(nfs_kt, sizeof(nfs_kt), realm->dir, "nfs.keytab") != 0 ||
        path_in(acl, sizeof(acl), realm->dir, "kadm5.acl") != 0) {
        goto cleanup;
    }
    const struct {
        const char *principal, *keytab;
    } princs[] = {
        {GK5_MIT_CLIENT, client_kt},
        {GK5_MIT_SERVICE, service_kt},
        {GK5_MIT_NFS_SERVICE, nfs_kt},
        {GK5_MIT_KADMIN_SERVICE, NULL},
    };
    for (size_t step = 0; step < 2 * GK5_ARRAY_SIZE(princs); step++) {
        size_t i = step % GK5_ARRAY_SIZE(princs);
        int n;
        if (step < GK5_ARRAY_SIZE(princs)) {
            n = snprintf(query, sizeof(query), "addprinc -randkey %s",
                         princs[i].principal);
        } else if (princs[i].keytab != NULL) {
            n = snprintf(query, sizeof(query), "ktadd -k %s -norandkey %s",
                         princs[i].keytab, princs[i].principal);
        } else {
            continue;
        }
        if (n < 0 || (size_t)n >= sizeof(query)) {
            goto cleanup;
        }
        char *argv[] = {kadmin, "-r", GK5_MIT_REALM_NAME, "-d", db, "-q",
                        query,  NULL};
        if (run_tool(realm, env, argv, NULL) != 0) {
            goto cleanup;
        }
    }
    if (make_rc4_service(realm, env, kadmin, db) != 0) {
        goto cleanup;
    }
    /* Empty: nobody has an administrative privilege. */
    if (write_text(acl, "") != 0) {
        goto cleanup;
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(princs); i++) {
        struct stat sb;
        if (princs[i].keytab != NULL &&
            (stat(princs[i].keytab, &sb) != 0 || sb.st_size == 0)) {
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    zap(rnd, sizeof(rnd));
    zap(input, sizeof(input));
    return ret;
}

/* Sockets on local port `port` (UDP, and listening TCP), IPv4 and IPv6. */
static int port_users(int port)
{
    static const char *const tables[] = {"/proc/net/udp", "/proc/net/udp6",
                                         "/proc/net/tcp", "/proc/net/tcp6"};
    int count = 0;

    for (size_t t = 0; t < GK5_ARRAY_SIZE(tables); t++) {
        FILE *f = fopen(tables[t], "re");
        char line[512];
        if (f == NULL) {
            continue;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            char local[128];
            unsigned state;
            if (sscanf(line, " %*s %127s %*s %x", local, &state) != 2) {
                continue; /* the heading */
            }
            const char *colon = strrchr(local, ':');
            /* 07 = UDP unconnected, 0A = TCP LISTEN */
            if (colon != NULL && strtol(colon + 1, NULL, 16) == port &&
                (state == 0x07 || state == 0x0A)) {
                count++;
            }
        }
        fclose(f);
    }
    return count;
}

static int read_pid_file(const char *path, pid_t *pid)
{
    FILE *f = fopen(path, "re");
    long v = 0;
    int ok;

    if (f == NULL) {
        return -1;
    }
    ok = fscanf(f, "%ld", &v) == 1 && v > 0;
    fclose(f);
    if (!ok) {
        return -1;
    }
    *pid = (pid_t)v;
    return 0;
}

static void stop_pid(pid_t pid)
{
    int status;

    if (pid <= 0) {
        return;
    }
    (void)kill(pid, SIGTERM);
    for (int i = 0; i < STOP_POLLS; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) {
            return;
        }
        nap();
    }
    (void)kill(pid, SIGKILL);
    (void)wait_exit(pid);
}

/* Start krb5kdc on port: 1 when it serves the port alone, 0 to retry
 * elsewhere, -1 on a hard failure. */
static int start_kdc_on(gk5_mit_realm *realm, char **env, int port,
                        int detached)
{
    char krb5kdc[PATH_MAX], db[PATH_MAX], pid_file[PATH_MAX], log[PATH_MAX];
    pid_t pid, written;

    if (find_tool("krb5kdc", krb5kdc, sizeof(krb5kdc)) != 0 ||
        path_in(db, sizeof(db), realm->dir, "principal") != 0 ||
        path_in(pid_file, sizeof(pid_file), realm->dir, "kdc.pid") != 0 ||
        path_in(log, sizeof(log), realm->dir, "kdc.out") != 0) {
        return -1;
    }
    (void)unlink(pid_file);
    if (write_configs(realm, port) != 0) {
        return -1;
    }
    char *argv[] = {krb5kdc, "-n",     "-r", GK5_MIT_REALM_NAME, "-d", db,
                    "-P",    pid_file, NULL};
    pid = spawn(krb5kdc, argv, env, -1, log, !detached);
    if (pid < 0) {
        return -1;
    }
    /* krb5kdc writes its PID file once its sockets are set up. */
    for (int i = 0; i < START_POLLS; i++) {
        int status;
        if (read_pid_file(pid_file, &written) == 0) {
            realm->kdc_pid = pid;
            /* Ours, and nobody else's (krb5kdc sets SO_REUSEPORT, so a
             * second KDC would share the port silently). */
            if (port_users(port) != 2) {
                stop_pid(pid);
                realm->kdc_pid = 0;
                return 0;
            }
            realm->port = port;
            return 1;
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return 0;
        }
        nap();
    }
    stop_pid(pid);
    return -1;
}

static int random_port(void)
{
    uint32_t r = 0;

    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        r = (uint32_t)getpid() ^ (uint32_t)time(NULL);
    }
    return PORT_MIN + (int)(r % PORT_SPAN);
}

static int set_krb5_config(const gk5_mit_realm *realm)
{
    char path[PATH_MAX];

    if (path_in(path, sizeof(path), realm->dir, "krb5.conf") != 0) {
        return -1;
    }
    return setenv("KRB5_CONFIG", path, 1);
}

/* GK5_KDC_PORT: the first port to try (for debugging); else 0. */
static int first_port(void)
{
    const char *v = getenv("GK5_KDC_PORT");
    char *end = NULL;
    long port;

    if (v == NULL || v[0] == '\0') {
        return 0;
    }
    port = strtol(v, &end, 10);
    return *end == '\0' && port > 0 && port < 65536 ? (int)port : 0;
}

static int write_number(const gk5_mit_realm *realm, const char *name, long v)
{
    char path[PATH_MAX], text[32];

    snprintf(text, sizeof(text), "%ld\n", v);
    return path_in(path, sizeof(path), realm->dir, name) == 0 &&
                   write_text(path, text) == 0
               ? 0
               : -1;
}

/* krb5kdc on the port of try `tries` (start.c's loop). */
struct mit_start {
    gk5_mit_realm *realm;
    char **env;
    int detached;
};

static int mit_start_on(void *arg, int tries)
{
    const struct mit_start *m = arg;
    int port = gk5_realm_pick_port(tries);

    if (port_users(port) != 0) {
        return 0;
    }
    return start_kdc_on(m->realm, m->env, port, m->detached);
}

/* The configuration, the database and a KDC on a free port, in
 * realm->dir, and kdc.port.  0, or -1 with words in err. */
static int make_realm(gk5_mit_realm *realm, int detached, char *err,
                      size_t err_len)
{
    static const gk5_realm_kdc kdc = {
        .name = "krb5kdc", .logs = "kdc.log", .start_on = mit_start_on};
    struct mit_start m = {realm, realm_environ(realm), detached};
    int ret = -1;

    /* kdb5_util and kadmin.local need kdc.conf; any port will do yet. */
    if (m.env == NULL || write_configs(realm, 0) != 0) {
        set_err(err, err_len, "cannot write the realm's configuration in %s",
                realm->dir);
        goto cleanup;
    }
    if (make_database(realm, m.env) != 0) {
        set_err(err, err_len,
                "creating the realm with kdb5_util and kadmin.local failed "
                "(see %s/tools.log)",
                realm->dir);
        goto cleanup;
    }
    ret = gk5_realm_start_on_free_port(realm, &kdc, &m, err, err_len);

cleanup:
    free_realm_environ(m.env);
    return ret;
}

/* A failed start's KDC; the folder stays. */
static void stop_kdc(gk5_mit_realm *realm)
{
    stop_pid(realm->kdc_pid);
    realm->kdc_pid = 0;
}

static const gk5_realm_maker mit_maker = {
    .temp = "gk5-realm.XXXXXX",
    .present = gk5_mit_realm_tools_present,
    .make = make_realm,
    .stop_kdc = stop_kdc,
    .stop = gk5_mit_realm_stop,
};

int gk5_mit_realm_start(gk5_mit_realm *realm, char *err, size_t err_len)
{
    return gk5_realm_start_temp(realm, &mit_maker, err, err_len);
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0') {
            continue;
        }
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            return -1;
        }
        *p = c;
        if (c == '\0') {
            return 0;
        }
    }
}

int gk5_mit_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                           size_t err_len)
{
    return gk5_realm_start_dir(realm, dir, &mit_maker, err, err_len);
}

/* Is pid running?  A zombie (exited, not yet reaped) answers kill(0) but
 * is not. */
static int alive(pid_t pid)
{
    char path[64], stat_line[256];
    FILE *f;
    int zombie = 0;

    if (kill(pid, 0) != 0) {
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    f = fopen(path, "re");
    if (f != NULL) {
        if (fgets(stat_line, sizeof(stat_line), f) != NULL) {
            const char *paren = strrchr(stat_line, ')');
            zombie = paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
        }
        fclose(f);
    }
    return !zombie;
}

int gk5_realm_cmdline_has(pid_t pid, const char *arg, const char *next)
{
    char path[64], cmdline[4 * PATH_MAX];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    n = read(fd, cmdline, sizeof(cmdline) - 1);
    (void)close(fd);
    if (n <= 0) {
        return 0;
    }
    cmdline[n] = '\0';
    for (const char *p = cmdline; p < cmdline + n; p += strlen(p) + 1) {
        const char *after = p + strlen(p) + 1;

        if (strcmp(p, arg) == 0 &&
            (next == NULL ||
             (after < cmdline + n && strcmp(after, next) == 0))) {
            return 1;
        }
    }
    return 0;
}

int gk5_mit_realm_stop_in(const char *dir, char *err, size_t err_len)
{
    char real[PATH_MAX], pid_file[PATH_MAX];
    pid_t pid;
    struct stat sb;

    if (realpath(dir, real) == NULL || stat(real, &sb) != 0 ||
        !S_ISDIR(sb.st_mode)) {
        set_err(err, err_len, "no such directory: %s", dir);
        return -1;
    }
    if (path_in(pid_file, sizeof(pid_file), real, "kdc.pid") != 0) {
        set_err(err, err_len, "folder name too long: %s", dir);
        return -1;
    }
    if (read_pid_file(pid_file, &pid) != 0) {
        return 0; /* no realm running there */
    }
    /* Never signal a recycled PID: the command line must be ours, the
     * KDC that writes this file ("-P pid_file"). */
    if (gk5_realm_cmdline_has(pid, "-P", pid_file)) {
        (void)kill(pid, SIGTERM);
        for (int i = 0; i < STOP_POLLS && alive(pid); i++) {
            nap();
        }
        if (alive(pid)) {
            (void)kill(pid, SIGKILL);
            for (int i = 0; i < STOP_POLLS && alive(pid); i++) {
                nap();
            }
        }
        /* If it is our own child (started by this process), reap it. */
        (void)waitpid(pid, NULL, WNOHANG);
    }
    (void)unlink(pid_file);
    return 0;
}

int gk5_mit_realm_path(char *path, size_t path_len, const gk5_mit_realm *realm,
                       const char *name)
{
    return path_in(path, path_len, realm->dir, name);
}

int gk5_mit_realm_attach(gk5_mit_realm *realm, const char *dir, char *err,
                         size_t err_len)
{
    char path[PATH_MAX];
    FILE *f;

    memset(realm, 0, sizeof(*realm));
    if (snprintf(realm->dir, sizeof(realm->dir), "%s", dir) >=
        (int)sizeof(realm->dir)) {
        set_err(err, err_len, "realm folder name too long");
        return -1;
    }
    static const char *const needed[] = {"krb5.conf", "client.keytab",
                                         "service.keytab"};
    for (size_t i = 0; i < GK5_ARRAY_SIZE(needed); i++) {
        if (path_in(path, sizeof(path), dir, needed[i]) != 0 ||
            access(path, R_OK) != 0) {
            set_err(err, err_len, "%s: no %s (not a gk5 realm?)", dir,
                    needed[i]);
            return -1;
        }
    }
    /* For messages only: whoever made the realm stops this KDC. */
    if (path_in(path, sizeof(path), dir, "kdc.port") == 0 &&
        (f = fopen(path, "re")) != NULL) {
        if (fscanf(f, "%d", &realm->port) != 1) {
            realm->port = 0;
        }
        fclose(f);
    }
    if (set_krb5_config(realm) != 0) {
        set_err(err, err_len, "cannot set KRB5_CONFIG");
        return -1;
    }
    return 0;
}

/* ---- Stopping on signals ---- */

static volatile sig_atomic_t g_armed;
static volatile pid_t g_kdc_pid;
static volatile pid_t g_child_pid; /* a server started in the realm */
static char g_dir[PATH_MAX];
static const int g_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                                SIGABRT, SIGSEGV, SIGBUS, SIGFPE,  SIGILL};
static struct sigaction g_saved[GK5_ARRAY_SIZE(g_signals)];

static void on_signal(int sig)
{
    if (g_armed) {
        g_armed = 0;
        if (g_child_pid > 0) {
            (void)kill(g_child_pid, SIGKILL);
            (void)waitpid(g_child_pid, NULL, 0);
        }
        if (g_kdc_pid > 0) {
            (void)kill(g_kdc_pid, SIGKILL);
            (void)waitpid(g_kdc_pid, NULL, 0);
        }
        if (g_dir[0] != '\0') {
            remove_realm_dir(g_dir);
        }
    }
    /* SA_RESETHAND restored the default action: die of the signal. */
    (void)raise(sig);
}

void gk5_mit_realm_stop_on_signals(gk5_mit_realm *realm)
{
    struct sigaction sa;

    if (realm == NULL || !realm->owned) {
        return;
    }
    g_armed = 0;
    g_kdc_pid = realm->kdc_pid;
    memcpy(g_dir, realm->dir, sizeof(g_dir));
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < GK5_ARRAY_SIZE(g_signals); i++) {
        (void)sigaction(g_signals[i], &sa, &g_saved[i]);
    }
    g_armed = 1;
}

void gk5_mit_realm_watch_child(pid_t pid)
{
    g_child_pid = pid;
}

static void restore_signals(void)
{
    if (!g_armed) {
        return;
    }
    g_armed = 0;
    for (size_t i = 0; i < GK5_ARRAY_SIZE(g_signals); i++) {
        (void)sigaction(g_signals[i], &g_saved[i], NULL);
    }
    g_kdc_pid = 0;
    g_dir[0] = '\0';
}

void gk5_mit_realm_stop(gk5_mit_realm *realm)
{
    if (realm == NULL) {
        return;
    }
    /* Block the handled signals while we tear down, then disarm. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < GK5_ARRAY_SIZE(g_signals); i++) {
        sigaddset(&block, g_signals[i]);
    }
    (void)sigprocmask(SIG_BLOCK, &block, &old);
    if (realm->owned) {
        stop_pid(realm->kdc_pid);
        if (realm->dir[0] != '\0') {
            remove_realm_dir(realm->dir);
        }
    }
    realm->kdc_pid = 0;
    realm->owned = 0;
    restore_signals();
    (void)sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- For the realms of other KDCs (realm_impl.h) ---- */

pid_t gk5_realm_spawn(const char *path, char *const argv[], char *const envp[],
                      int in_fd, const char *log, int die_with_parent)
{
    return spawn(path, argv, envp, in_fd, log, die_with_parent);
}

int gk5_realm_run_tool(const gk5_mit_realm *realm, char **env,
                       char *const argv[], const char *input)
{
    return run_tool(realm, env, argv, input);
}

char **gk5_realm_environ(const gk5_mit_realm *realm)
{
    return realm_environ(realm);
}

void gk5_realm_free_environ(char **env)
{
    free_realm_environ(env);
}

void gk5_realm_stop_pid(pid_t pid)
{
    stop_pid(pid);
}

int gk5_realm_alive(pid_t pid)
{
    return alive(pid);
}

int gk5_realm_port_users(int port)
{
    return port_users(port);
}

int gk5_realm_pick_port(int tries)
{
    return tries == 0 && first_port() != 0 ? first_port() : random_port();
}

int gk5_realm_write_text(const char *path, const char *text)
{
    return write_text(path, text);
}

int gk5_realm_path_in(char *out, size_t out_len, const char *dir,
                      const char *name)
{
    return path_in(out, out_len, dir, name);
}

int gk5_realm_krb5_conf(const gk5_mit_realm *realm, int port,
                        const char *enctypes, const char *made_by)
{
    return krb5_conf(realm, port, enctypes, made_by);
}

int gk5_realm_write_number(const gk5_mit_realm *realm, const char *name, long v)
{
    return write_number(realm, name, v);
}

int gk5_realm_make_dirs(const char *dir)
{
    return make_dirs(dir);
}

int gk5_realm_set_krb5_config(const gk5_mit_realm *realm)
{
    return set_krb5_config(realm);
}

int gk5_realm_enctype_wanted(int32_t enctype, int state)
{
    return state != GK5_ENCTYPE_REJECTED ||
           in_list(enctype, rejected_issued, GK5_ARRAY_SIZE(rejected_issued));
}

int gk5_realm_enctype_first(int32_t enctype)
{
    return in_list(enctype, first_enctypes, GK5_ARRAY_SIZE(first_enctypes));
}

void gk5_realm_nap(void)
{
    nap();
}
