/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The embedded default: a throwaway MIT realm and KDC on 127.0.0.1, and
 * in-process context establishment with MIT's GSS-API (see mit_realm.h).
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

#include <gssapi/gssapi_krb5.h>
#include <gssapi/gssapi_ext.h>

#include "bridge/mit_realm.h"
#include "common/util.h"

extern char **environ;

/* Every enctype has a long-term key, so the KDC can issue any of them as
 * a session key; rc4 and des3 need allow_rc4 / allow_des3 too. */
#define ENCTYPES                                                               \
    "aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 "                         \
    "aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 "                   \
    "camellia256-cts-cmac camellia128-cts-cmac des3-cbc-sha1 arcfour-hmac"
#define SUPPORTED_ENCTYPES                                                     \
    "aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal "           \
    "aes256-cts-hmac-sha384-192:normal aes128-cts-hmac-sha256-128:normal "     \
    "camellia256-cts-cmac:normal camellia128-cts-cmac:normal "                 \
    "des3-cbc-sha1:normal arcfour-hmac:normal"

#define PORT_MIN 20000 /* below the default ephemeral range 32768-60999 */
#define PORT_SPAN 12768
#define PORT_TRIES 20
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

static int write_configs(const gk5_mit_realm *realm, int port)
{
    char path[PATH_MAX];
    char text[4096];
    const char *d = realm->dir;
    int n;

    n = snprintf(text, sizeof(text),
                 "# Throwaway realm made by gk5 (src/bridge/mit_realm.c)\n"
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
                 GK5_MIT_REALM_NAME, ENCTYPES, ENCTYPES, ENCTYPES,
                 GK5_MIT_REALM_NAME, port, d);
    if (n < 0 || (size_t)n >= sizeof(text) ||
        path_in(path, sizeof(path), d, "krb5.conf") != 0 ||
        write_text(path, text) != 0) {
        return -1;
    }
    n = snprintf(text, sizeof(text),
                 "# Throwaway realm made by gk5 (src/bridge/mit_realm.c)\n"
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
                 port, port, GK5_MIT_REALM_NAME, d, d, d, port, port,
                 SUPPORTED_ENCTYPES, d, d, d);
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

/* Remove the realm's folder and what is in it. */
static void remove_realm_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0) {
        return;
    }
    empty_dir_at(fd, 6);
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
    /* The client, gk5's test service and nfs/localhost (the NFS server a
     * demo starts), each with a keytab. */
    char nfs_kt[PATH_MAX];
    if (path_in(nfs_kt, sizeof(nfs_kt), realm->dir, "nfs.keytab") != 0) {
        goto cleanup;
    }
    const struct {
        const char *principal, *keytab;
    } princs[] = {
        {GK5_MIT_CLIENT, client_kt},
        {GK5_MIT_SERVICE, service_kt},
        {GK5_MIT_NFS_SERVICE, nfs_kt},
    };
    for (size_t step = 0; step < 2 * GK5_ARRAY_SIZE(princs); step++) {
        size_t i = step % GK5_ARRAY_SIZE(princs);
        int n =
            step < GK5_ARRAY_SIZE(princs)
                ? snprintf(query, sizeof(query), "addprinc -randkey %s",
                           princs[i].principal)
                : snprintf(query, sizeof(query), "ktadd -k %s -norandkey %s",
                           princs[i].keytab, princs[i].principal);
        if (n < 0 || (size_t)n >= sizeof(query)) {
            goto cleanup;
        }
        char *argv[] = {kadmin, "-r", GK5_MIT_REALM_NAME, "-d", db, "-q",
                        query,  NULL};
        if (run_tool(realm, env, argv, NULL) != 0) {
            goto cleanup;
        }
    }
    if (access(client_kt, R_OK) != 0 || access(service_kt, R_OK) != 0) {
        goto cleanup;
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
static int start_kdc_on(gk5_mit_realm *realm, char **env, int port)
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
    pid = spawn(krb5kdc, argv, env, -1, log, 1);
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

int gk5_mit_realm_start(gk5_mit_realm *realm, char *err, size_t err_len)
{
    char **env = NULL;
    const char *tmp = getenv("TMPDIR");
    int ret = -1;

    memset(realm, 0, sizeof(*realm));
    if (gk5_mit_realm_tools_present(err, err_len) != 0) {
        return -1;
    }
    if (tmp == NULL || tmp[0] == '\0') {
        tmp = "/tmp";
    }
    if (path_in(realm->dir, sizeof(realm->dir), tmp, "gk5-realm.XXXXXX") != 0 ||
        mkdtemp(realm->dir) == NULL) {
        set_err(err, err_len, "cannot make a temporary folder in %s: %s", tmp,
                strerror(errno));
        realm->dir[0] = '\0';
        return -1;
    }
    realm->owned = 1;
    env = realm_environ(realm);
    /* kdb5_util and kadmin.local need kdc.conf; any port will do yet. */
    if (env == NULL || write_configs(realm, 0) != 0) {
        set_err(err, err_len, "cannot write the realm's configuration in %s",
                realm->dir);
        goto cleanup;
    }
    if (make_database(realm, env) != 0) {
        set_err(err, err_len,
                "creating the realm with kdb5_util and kadmin.local failed "
                "(see %s/tools.log)",
                realm->dir);
        goto cleanup;
    }
    for (int tries = 0; tries < PORT_TRIES && ret != 0; tries++) {
        int port = random_port();
        if (port_users(port) != 0) {
            continue;
        }
        int r = start_kdc_on(realm, env, port);
        if (r < 0) {
            set_err(err, err_len, "krb5kdc did not start (see %s/kdc.log)",
                    realm->dir);
            goto cleanup;
        }
        if (r == 1) {
            ret = 0;
        }
    }
    if (ret != 0) {
        set_err(err, err_len, "no free port for krb5kdc after %d tries",
                PORT_TRIES);
        goto cleanup;
    }
    if (set_krb5_config(realm) != 0) {
        set_err(err, err_len, "cannot set KRB5_CONFIG");
        ret = -1;
        goto cleanup;
    }

cleanup:
    free_realm_environ(env);
    if (ret != 0) {
        /* Keep the logs when asked to, for a post-mortem. */
        if (getenv("GK5_KEEP_REALM") != NULL) {
            stop_pid(realm->kdc_pid);
            realm->kdc_pid = 0;
        } else {
            gk5_mit_realm_stop(realm);
        }
    }
    return ret;
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
            set_err(err, err_len, "%s: no %s (not a kdc.sh realm?)", dir,
                    needed[i]);
            return -1;
        }
    }
    /* For messages only: kdc.sh owns and stops this KDC. */
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

/* ---- Establishing contexts ---- */

static uint32_t mit_fail(gk5_mit_status *st, const char *call, OM_uint32 major,
                         OM_uint32 minor)
{
    st->major = major;
    st->minor = minor;
    st->from_mit = 1;
    st->call = call;
    return major;
}

static uint32_t import_principal(gk5_mit_status *st, const char *principal,
                                 gss_name_t *name)
{
    OM_uint32 major, minor = 0;
    gss_buffer_desc buf;

    buf.value = (void *)(uintptr_t)principal;
    buf.length = strlen(principal);
    major = gss_import_name(&minor, &buf, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME,
                            name);
    if (GSS_ERROR(major)) {
        return mit_fail(st, "gss_import_name", major, minor);
    }
    return GSS_S_COMPLETE;
}

uint32_t gk5_mit_establish(gk5_mit_status *st, gk5_mit_realm *realm,
                           int32_t enctype, gk5_mit_pair *pair)
{
    gss_name_t client = GSS_C_NO_NAME, service = GSS_C_NO_NAME;
    gss_cred_id_t init_cred = GSS_C_NO_CREDENTIAL;
    gss_cred_id_t acc_cred = GSS_C_NO_CREDENTIAL;
    gss_ctx_id_t init = GSS_C_NO_CONTEXT, acc = GSS_C_NO_CONTEXT;
    gss_buffer_desc to_acc = GSS_C_EMPTY_BUFFER, to_init = GSS_C_EMPTY_BUFFER;
    OM_uint32 major, minor = 0, rel_minor = 0, init_flags = 0, acc_flags = 0;
    OM_uint32 init_major = GSS_S_CONTINUE_NEEDED;
    OM_uint32 acc_major = GSS_S_CONTINUE_NEEDED;
    char client_kt[PATH_MAX], service_kt[PATH_MAX], ccache[PATH_MAX + 16];
    char rcache[PATH_MAX + 16];
    uint32_t ret;

    st->major = GSS_S_COMPLETE;
    st->minor = 0;
    st->from_mit = 0;
    st->call = NULL;
    pair->init = GSS_C_NO_CONTEXT;
    pair->acc = GSS_C_NO_CONTEXT;
    pair->init_flags = 0;
    pair->acc_flags = 0;

    const char *base = strrchr(realm->dir, '/');
    base = base != NULL ? base + 1 : realm->dir;
    if (path_in(client_kt, sizeof(client_kt), realm->dir, "client.keytab") !=
            0 ||
        path_in(service_kt, sizeof(service_kt), realm->dir, "service.keytab") !=
            0 ||
        snprintf(ccache, sizeof(ccache), "MEMORY:%s", base) >=
            (int)sizeof(ccache) ||
        snprintf(rcache, sizeof(rcache), "file2:%s/rcache", realm->dir) >=
            (int)sizeof(rcache)) {
        ret = mit_fail(st, "gk5_mit_establish", GSS_S_FAILURE, 0);
        goto cleanup;
    }
    ret = import_principal(st, GK5_MIT_CLIENT, &client);
    if (GSS_ERROR(ret)) {
        goto cleanup;
    }
    ret = import_principal(st, GK5_MIT_SERVICE, &service);
    if (GSS_ERROR(ret)) {
        goto cleanup;
    }

    /* The initiator: initial credentials from the client keytab into a
     * MEMORY: ccache (MIT gets them on demand from client_keytab). */
    gss_key_value_element_desc init_elems[] = {
        {"client_keytab", client_kt},
        {"ccache", ccache},
    };
    gss_key_value_set_desc init_store = {2, init_elems};
    major = gss_acquire_cred_from(
        &minor, client, GSS_C_INDEFINITE, (gss_OID_set)gss_mech_set_krb5,
        GSS_C_INITIATE, &init_store, &init_cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, "gss_acquire_cred_from (initiator)", major, minor);
        goto cleanup;
    }
    /* Only this enctype: for the ticket's session key (the TGS request
     * asks for it alone) and for the acceptor subkey (the authenticator's
     * enctype list, RFC 4537). */
    krb5_enctype wanted = enctype;
    major = gss_krb5_set_allowable_enctypes(&minor, init_cred, 1, &wanted);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, "gss_krb5_set_allowable_enctypes", major, minor);
        goto cleanup;
    }

    gss_key_value_element_desc acc_elems[] = {
        {"keytab", service_kt},
        {"rcache", rcache},
    };
    gss_key_value_set_desc acc_store = {2, acc_elems};
    major = gss_acquire_cred_from(&minor, service, GSS_C_INDEFINITE,
                                  (gss_OID_set)gss_mech_set_krb5, GSS_C_ACCEPT,
                                  &acc_store, &acc_cred, NULL, NULL);
    if (GSS_ERROR(major)) {
        ret = mit_fail(st, "gss_acquire_cred_from (acceptor)", major, minor);
        goto cleanup;
    }

    /* AP-REQ, AP-REP: two legs; a few more rounds are tolerated. */
    for (int round = 0; round < 4; round++) {
        if (init_major == GSS_S_CONTINUE_NEEDED) {
            gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
            init_major = gss_init_sec_context(
                &minor, init_cred, &init, service, (gss_OID)gss_mech_krb5,
                GK5_MIT_REQ_FLAGS, 0, GSS_C_NO_CHANNEL_BINDINGS, &to_init, NULL,
                &out, &init_flags, NULL);
            (void)gss_release_buffer(&rel_minor, &to_init);
            if (GSS_ERROR(init_major)) {
                gss_release_buffer(&minor, &out);
                ret = mit_fail(st, "gss_init_sec_context", init_major, minor);
                goto cleanup;
            }
            to_acc = out;
        }
        if (to_acc.length > 0) {
            gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
            acc_major = gss_accept_sec_context(
                &minor, &acc, acc_cred, &to_acc, GSS_C_NO_CHANNEL_BINDINGS,
                NULL, NULL, &out, &acc_flags, NULL, NULL);
            (void)gss_release_buffer(&rel_minor, &to_acc);
            if (GSS_ERROR(acc_major)) {
                gss_release_buffer(&minor, &out);
                ret = mit_fail(st, "gss_accept_sec_context", acc_major, minor);
                goto cleanup;
            }
            to_init = out;
        }
        if (init_major == GSS_S_COMPLETE && acc_major == GSS_S_COMPLETE &&
            to_init.length == 0) {
            break;
        }
    }
    if (init_major != GSS_S_COMPLETE || acc_major != GSS_S_COMPLETE) {
        ret = mit_fail(st, "context establishment (did not complete)",
                       GSS_S_FAILURE, 0);
        goto cleanup;
    }
    if ((init_flags & GK5_MIT_REQ_FLAGS) != GK5_MIT_REQ_FLAGS ||
        (acc_flags & GK5_MIT_REQ_FLAGS) != GK5_MIT_REQ_FLAGS) {
        ret = mit_fail(st, "context establishment (flags not granted)",
                       GSS_S_FAILURE, 0);
        goto cleanup;
    }
    pair->init = init;
    pair->acc = acc;
    pair->init_flags = init_flags;
    pair->acc_flags = acc_flags;
    init = GSS_C_NO_CONTEXT;
    acc = GSS_C_NO_CONTEXT;
    ret = GSS_S_COMPLETE;

cleanup:
    (void)gss_release_buffer(&minor, &to_acc);
    (void)gss_release_buffer(&minor, &to_init);
    (void)gss_delete_sec_context(&minor, &init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &acc, GSS_C_NO_BUFFER);
    (void)gss_release_cred(&minor, &init_cred);
    (void)gss_release_cred(&minor, &acc_cred);
    (void)gss_release_name(&minor, &client);
    (void)gss_release_name(&minor, &service);
    return ret;
}

void gk5_mit_pair_release(gk5_mit_pair *pair)
{
    OM_uint32 minor = 0;

    if (pair == NULL) {
        return;
    }
    (void)gss_delete_sec_context(&minor, &pair->init, GSS_C_NO_BUFFER);
    (void)gss_delete_sec_context(&minor, &pair->acc, GSS_C_NO_BUFFER);
}
