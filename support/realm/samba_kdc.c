/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The throwaway realm on Samba's AD domain controller (samba_kdc.h): the
 * domain provisioned into the folder, its accounts and keytabs
 * (samba-tool), and `samba` started and stopped by its PID, with realm.c's
 * helpers (realm_impl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <gk5/crypto.h>
#include <gk5/gk5.h>

#include "common/bytes.h"
#include "common/util.h"
#include "realm_impl.h"
#include "samba_kdc.h"

extern char **environ;

#define START_POLLS 3000 /* 30 s for samba to open its KDC sockets */
#define STOP_POLLS 500   /* 5 s for it to exit */

#define SAMBA "/usr/sbin/samba"
#define SAMBA_TOOL "/usr/bin/samba-tool"
#define SAMBA_SCHEMA "/usr/share/samba/setup/ad-schema"
#define SAMBA_PACKAGES                                                         \
    "apt-get install samba samba-ad-dc samba-dsdb-modules samba-ad-provision"

/* The NetBIOS domain, and the DC's host name (the machine's may be longer
 * than NetBIOS allows). */
#define DOMAIN "GK5"
#define HOST_NAME "gk5dc"
/* What AD keys are, by gk5's names and numbers: RFC 3962 AES and rc4. */
#define ENCTYPE_NAMES "aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 rc4-hmac"
#define ENCTYPE_NUMBERS "18 17 23\n"

/* msDS-SupportedEncryptionTypes: 0 leaves it unset (the AD default). */
#define ETYPES_AES 0x18
#define ETYPES_RC4 0x4

typedef struct {
    const char *sam;    /* sAMAccountName */
    const char *spn;    /* servicePrincipalName, or NULL for the client */
    int etypes;         /* msDS-SupportedEncryptionTypes, or 0 */
    const char *keytab; /* in the folder */
    const char *export; /* exportkeytab's principal, or NULL: AES keys
                         * made here with the account's salt */
} account;

static const account g_accounts[] = {
    {.sam = "gk5-client", .keytab = "client.keytab", .export = GK5_MIT_CLIENT},
    {.sam = "gk5-service",
     .spn = "gk5/localhost",
     .etypes = ETYPES_AES,
     .keytab = "service.keytab"},
    {.sam = "gk5-nfs",
     .spn = "nfs/localhost",
     .etypes = ETYPES_AES,
     .keytab = "nfs.keytab"},
    {.sam = "gk5-rc4",
     .spn = "rc4/localhost",
     .keytab = "rc4.keytab",
     .export = GK5_MIT_RC4_SERVICE},
    {.sam = "gk5-rc4only",
     .spn = "rc4only/localhost",
     .etypes = ETYPES_RC4,
     .keytab = "rc4only.keytab",
     .export = GK5_SAMBA_RC4ONLY_SERVICE},
};

/* The files samba-tool and samba are pointed at, in the folder. */
typedef struct {
    char conf[PATH_MAX];    /* samba/etc/smb.conf */
    char sam_ldb[PATH_MAX]; /* samba/private/sam.ldb */
    char conf_arg[PATH_MAX + 4], url_arg[PATH_MAX + 8];
} samba_paths;

int gk5_samba_kdc_tools_present(char *why, size_t why_len)
{
    struct stat sb;

    if (access(SAMBA, X_OK) != 0 || access(SAMBA_TOOL, X_OK) != 0) {
        snprintf(why, why_len,
                 "Samba's AD domain controller is not installed (" SAMBA
                 " and " SAMBA_TOOL "): " SAMBA_PACKAGES);
        return -1;
    }
    if (stat(SAMBA_SCHEMA, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(why, why_len,
                 "Samba's AD schema is not installed (" SAMBA_SCHEMA
                 "): " SAMBA_PACKAGES);
        return -1;
    }
    /* Provisioning sets the owners and ACLs of the sysvol share, and
     * fails ("Unable to chown a file on your filesystem") for anyone
     * else. */
    if (geteuid() != 0) {
        snprintf(why, why_len,
                 "Samba's AD domain controller is provisioned and run as "
                 "root only (samba-tool sets the sysvol's owners): run as "
                 "root");
        return -1;
    }
    return 0;
}

static int samba_paths_of(samba_paths *p, const char *dir)
{
    int n1 = snprintf(p->conf, sizeof(p->conf), "%s/samba/etc/smb.conf", dir);
    int n2 = snprintf(p->sam_ldb, sizeof(p->sam_ldb),
                      "%s/samba/private/sam.ldb", dir);
    int n3 = snprintf(p->conf_arg, sizeof(p->conf_arg), "-s%s", p->conf);
    int n4 = snprintf(p->url_arg, sizeof(p->url_arg), "-H%s", p->sam_ldb);

    return n1 > 0 && (size_t)n1 < sizeof(p->conf) && n2 > 0 &&
                   (size_t)n2 < sizeof(p->sam_ldb) && n3 > 0 &&
                   (size_t)n3 < sizeof(p->conf_arg) && n4 > 0 &&
                   (size_t)n4 < sizeof(p->url_arg)
               ? 0
               : -1;
}

/* A password AD's complexity rules take: upper and lower case, a digit
 * and a symbol, 96 random bits. */
static int random_password(char *out, size_t out_len)
{
    uint8_t r[12];

    if (out_len < 4 + 2 * sizeof(r) + 1 || RAND_bytes(r, sizeof(r)) != 1) {
        return -1;
    }
    memcpy(out, "Gk5-", 4);
    for (size_t i = 0; i < sizeof(r); i++) {
        snprintf(out + 4 + 2 * i, 3, "%02x", r[i]);
    }
    OPENSSL_cleanse(r, sizeof(r));
    return 0;
}

/* ---- samba-tool ---- */

/* Provision the domain into dir/samba: the KDC alone, on 127.0.0.1; its
 * log in dir/kdc.log, its PID file in dir/samba.  The ports are given
 * when samba starts. */
static int provision(const gk5_mit_realm *realm, char **env)
{
    char target[PATH_MAX + 16], log_opt[PATH_MAX + 32], pid_opt[PATH_MAX + 32],
        admin[64];
    int ret;

    if (snprintf(target, sizeof(target), "--targetdir=%s/samba", realm->dir) >=
            (int)sizeof(target) ||
        snprintf(log_opt, sizeof(log_opt), "--option=log file = %s/kdc.log",
                 realm->dir) >= (int)sizeof(log_opt) ||
        snprintf(pid_opt, sizeof(pid_opt), "--option=pid directory = %s/samba",
                 realm->dir) >= (int)sizeof(pid_opt) ||
        random_password(admin, sizeof(admin)) != 0) {
        return -1;
    }
    char adminpass[96];
    snprintf(adminpass, sizeof(adminpass), "--adminpass=%s", admin);
    char *argv[] = {SAMBA_TOOL,
                    "domain",
                    "provision",
                    target,
                    "--realm=" GK5_MIT_REALM_NAME,
                    "--domain=" DOMAIN,
                    "--host-name=" HOST_NAME,
                    "--server-role=dc",
                    "--dns-backend=NONE",
                    "--host-ip=127.0.0.1",
                    adminpass,
                    "--option=server services = kdc",
                    "--option=interfaces = 127.0.0.1",
                    "--option=bind interfaces only = yes",
                    log_opt,
                    pid_opt,
                    NULL};
    ret = gk5_realm_run_tool(realm, env, argv, NULL);
    OPENSSL_cleanse(admin, sizeof(admin));
    OPENSSL_cleanse(adminpass, sizeof(adminpass));
    return ret;
}

/* dir/samba/etypes-N.sh: the editor `samba-tool user edit` runs, adding
 * msDS-SupportedEncryptionTypes: N to the account's LDIF. */
static int write_editor(const gk5_mit_realm *realm, int etypes, char *path,
                        size_t path_len)
{
    char text[256];
    int n;

    n = snprintf(path, path_len, "%s/samba/etypes-%d.sh", realm->dir, etypes);
    if (n < 0 || (size_t)n >= path_len) {
        return -1;
    }
    snprintf(text, sizeof(text),
             "#!/bin/sh\n"
             "# samba-tool user edit's editor (support/realm/samba_kdc.c)\n"
             "exec sed -i '/^dn: /a msDS-SupportedEncryptionTypes: %d' "
             "\"$1\"\n",
             etypes);
    return gk5_realm_write_text(path, text) == 0 && chmod(path, 0700) == 0 ? 0
                                                                           : -1;
}

/* Run samba-tool with its output into out (truncated first); 0 when it
 * exited 0. */
static int run_capture(char **env, char *const argv[], const char *out)
{
    int status;
    pid_t pid;

    if (truncate(out, 0) != 0 && errno != ENOENT) {
        return -1;
    }
    pid = gk5_realm_spawn(argv[0], argv, env, -1, out, 1);
    if (pid < 0) {
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The account's msDS-KeyVersionNumber (samba-tool user show); 0 if it
 * cannot be read. */
static uint32_t key_version(const gk5_mit_realm *realm, char **env,
                            samba_paths *sp, char *sam)
{
    char out[PATH_MAX], line[256];
    unsigned long v = 0;
    FILE *f;

    if (gk5_realm_path_in(out, sizeof(out), realm->dir, "samba/show.out") !=
        0) {
        return 0;
    }
    char *argv[] = {SAMBA_TOOL,
                    "user",
                    "show",
                    sam,
                    "--attributes=msDS-KeyVersionNumber",
                    sp->conf_arg,
                    sp->url_arg,
                    NULL};
    if (run_capture(env, argv, out) != 0 || (f = fopen(out, "re")) == NULL) {
        return 0;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "msDS-KeyVersionNumber: %lu", &v) == 1) {
            break;
        }
    }
    fclose(f);
    return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* ---- The keytabs samba-tool does not write ---- */

/* One keytab entry (MIT's format 0x502, which gk5's keytab.c reads): the
 * principal service/host@GK5.TEST (KRB5_NT_PRINCIPAL), a timestamp, the
 * 8-bit and 32-bit kvno and the key. */
static void put_entry(struct gk5i_wr *w, const char *spn, uint32_t kvno,
                      int32_t enctype, const uint8_t *key, size_t key_len)
{
    const char *slash = strchr(spn, '/');
    size_t c1 = (size_t)(slash - spn), c2 = strlen(slash + 1);
    size_t realm_len = strlen(GK5_MIT_REALM_NAME);
    uint32_t size = (uint32_t)(2 + 2 + realm_len + 2 + c1 + 2 + c2 + 4 + 4 + 1 +
                               2 + 2 + key_len + 4);

    gk5i_put_u32be(w, size);
    gk5i_put_u16be(w, 2);
    gk5i_put_u16be(w, (uint16_t)realm_len);
    gk5i_put_bytes(w, GK5_MIT_REALM_NAME, realm_len);
    gk5i_put_u16be(w, (uint16_t)c1);
    gk5i_put_bytes(w, spn, c1);
    gk5i_put_u16be(w, (uint16_t)c2);
    gk5i_put_bytes(w, slash + 1, c2);
    gk5i_put_u32be(w, 1); /* KRB5_NT_PRINCIPAL */
    gk5i_put_u32be(w, (uint32_t)time(NULL));
    gk5i_put_u8(w, (uint8_t)(kvno & 0xffu));
    gk5i_put_u16be(w, (uint16_t)enctype);
    gk5i_put_u16be(w, (uint16_t)key_len);
    gk5i_put_bytes(w, key, key_len);
    gk5i_put_u32be(w, kvno);
}

/* The service's keytab: its AES256 and AES128 keys, RFC 3962
 * string-to-key of the password with the account's salt (the realm, then
 * the sAMAccountName: what AD derives a user account's keys with), the
 * account's kvno.  0, or -1. */
static int write_aes_keytab(const char *path, const account *a,
                            const char *password, uint32_t kvno)
{
    static const int32_t enctypes[] = {18, 17};
    uint8_t buf[1024], key[32];
    char salt[128];
    struct gk5i_wr w;
    int ret = -1, fd = -1;

    if (strchr(a->spn, '/') == NULL ||
        snprintf(salt, sizeof(salt), "%s%s", GK5_MIT_REALM_NAME, a->sam) >=
            (int)sizeof(salt)) {
        return -1;
    }
    gk5i_wr_init(&w, buf, sizeof(buf));
    gk5i_put_u8(&w, 5);
    gk5i_put_u8(&w, 2);
    for (size_t i = 0; i < GK5_ARRAY_SIZE(enctypes); i++) {
        size_t key_len;
        if (gk5_c_key_length(enctypes[i], &key_len) != GK5_OK ||
            key_len > sizeof(key) ||
            gk5_c_string_to_key(enctypes[i], password, strlen(password), salt,
                                strlen(salt), NULL, 0, key,
                                key_len) != GK5_OK) {
            goto cleanup;
        }
        put_entry(&w, a->spn, kvno, enctypes[i], key, key_len);
    }
    if (w.bad) {
        goto cleanup;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        goto cleanup;
    }
    size_t len = sizeof(buf) - w.left;
    ret = write(fd, buf, len) == (ssize_t)len ? 0 : -1;

cleanup:
    if (fd >= 0 && close(fd) != 0) {
        ret = -1;
    }
    OPENSSL_cleanse(key, sizeof(key));
    OPENSSL_cleanse(buf, sizeof(buf));
    return ret;
}

/* Each account: the user, its SPN and msDS-SupportedEncryptionTypes, its
 * keytab.  0, or -1. */
static int make_accounts(const gk5_mit_realm *realm, char **env)
{
    samba_paths sp;
    char password[64], keytab[PATH_MAX], editor[PATH_MAX];
    char editor_arg[PATH_MAX + 16], export_arg[PATH_MAX + 16];
    char sam[64], spn_name[64];
    int ret = -1;

    if (samba_paths_of(&sp, realm->dir) != 0) {
        return -1;
    }
    for (size_t i = 0; i < GK5_ARRAY_SIZE(g_accounts); i++) {
        const account *a = &g_accounts[i];
        /* Writable copies for the argument vectors. */
        snprintf(sam, sizeof(sam), "%s", a->sam);
        snprintf(spn_name, sizeof(spn_name), "%s",
                 a->spn != NULL ? a->spn : "");
        if (random_password(password, sizeof(password)) != 0 ||
            gk5_realm_path_in(keytab, sizeof(keytab), realm->dir, a->keytab) !=
                0) {
            goto cleanup;
        }
        char *add[] = {SAMBA_TOOL, "user",      "add",      sam,
                       password,   sp.conf_arg, sp.url_arg, NULL};
        if (gk5_realm_run_tool(realm, env, add, NULL) != 0) {
            goto cleanup;
        }
        if (a->spn != NULL) {
            char *spn[] = {SAMBA_TOOL, "spn",       "add",      spn_name,
                           sam,        sp.conf_arg, sp.url_arg, NULL};
            if (gk5_realm_run_tool(realm, env, spn, NULL) != 0) {
                goto cleanup;
            }
        }
        if (a->etypes != 0) {
            if (write_editor(realm, a->etypes, editor, sizeof(editor)) != 0 ||
                snprintf(editor_arg, sizeof(editor_arg), "--editor=%s",
                         editor) >= (int)sizeof(editor_arg)) {
                goto cleanup;
            }
            char *edit[] = {SAMBA_TOOL, "user",      "edit",     sam,
                            editor_arg, sp.conf_arg, sp.url_arg, NULL};
            if (gk5_realm_run_tool(realm, env, edit, NULL) != 0) {
                goto cleanup;
            }
        }
        if (a->export != NULL) {
            if (snprintf(export_arg, sizeof(export_arg), "--principal=%s",
                         a->export) >= (int)sizeof(export_arg)) {
                goto cleanup;
            }
            char *exp[] = {SAMBA_TOOL, "domain",   "exportkeytab",
                           keytab,     export_arg, sp.conf_arg,
                           NULL};
            if (gk5_realm_run_tool(realm, env, exp, NULL) != 0) {
                goto cleanup;
            }
        } else {
            uint32_t kvno = key_version(realm, env, &sp, sam);
            if (kvno == 0 || write_aes_keytab(keytab, a, password, kvno) != 0) {
                goto cleanup;
            }
        }
        struct stat sb;
        if (stat(keytab, &sb) != 0 || sb.st_size == 0) {
            goto cleanup;
        }
    }
    ret = 0;

cleanup:
    OPENSSL_cleanse(password, sizeof(password));
    return ret;
}

/* ---- samba, by its PID ---- */

/* Is pid a running samba of the folder: its executable Samba's, and the
 * PID file Samba wrote in dir/samba naming it? */
static int is_ours(pid_t pid, const char *dir)
{
    char path[64], exe[PATH_MAX], pid_file[PATH_MAX];
    ssize_t n;
    long v = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
    n = readlink(path, exe, sizeof(exe) - 1);
    if (n <= 0) {
        return 0;
    }
    exe[n] = '\0';
    if (strcmp(exe, SAMBA) != 0 ||
        gk5_realm_path_in(pid_file, sizeof(pid_file), dir, "samba/samba.pid") !=
            0 ||
        (f = fopen(pid_file, "re")) == NULL) {
        return 0;
    }
    if (fscanf(f, "%ld", &v) != 1) {
        v = 0;
    }
    fclose(f);
    return v == (long)pid;
}

/* Start samba on port (the KDC) and kpasswd_port: 1 when it serves port
 * alone, 0 to retry elsewhere, -1 on a hard failure. */
static int start_samba_on(gk5_mit_realm *realm, char **env, samba_paths *sp,
                          int port, int kpasswd_port, int detached)
{
    char log[PATH_MAX], krb5_port[48], kpasswd[48];
    pid_t pid;

    if (gk5_realm_path_in(log, sizeof(log), realm->dir, "kdc.out") != 0 ||
        gk5_realm_krb5_conf(realm, port, ENCTYPE_NAMES,
                            "support/realm/samba_kdc.c, Samba's AD KDC") != 0) {
        return -1;
    }
    snprintf(krb5_port, sizeof(krb5_port), "--option=krb5 port = %d", port);
    snprintf(kpasswd, sizeof(kpasswd), "--option=kpasswd port = %d",
             kpasswd_port);
    char *argv[] = {SAMBA,        "-F",      "-M",    "single",
                    sp->conf_arg, krb5_port, kpasswd, NULL};
    pid = gk5_realm_spawn(SAMBA, argv, env, -1, log, !detached);
    if (pid < 0) {
        return -1;
    }
    for (int i = 0; i < START_POLLS; i++) {
        int status, users;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return gk5_realm_port_users(port) > 0 ||
                           gk5_realm_port_users(kpasswd_port) > 0
                       ? 0
                       : -1;
        }
        users = gk5_realm_port_users(port);
        if (users == 2) {
            realm->kdc_pid = pid;
            realm->port = port;
            return 1;
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

/* samba on the ports of try `tries` (start.c's loop): the KDC's and
 * kpasswd's, both free. */
struct samba_start {
    gk5_mit_realm *realm;
    char **env;
    samba_paths *sp;
    int detached;
};

static int samba_start_on(void *arg, int tries)
{
    const struct samba_start *st = arg;
    int port = gk5_realm_pick_port(tries);
    int kpasswd_port = gk5_realm_pick_port(tries + 1);

    if (port == kpasswd_port || gk5_realm_port_users(port) != 0 ||
        gk5_realm_port_users(kpasswd_port) != 0) {
        return 0;
    }
    return start_samba_on(st->realm, st->env, st->sp, port, kpasswd_port,
                          st->detached);
}

static int make_realm(gk5_mit_realm *realm, int detached, char *err,
                      size_t err_len)
{
    static const gk5_realm_kdc kdc = {.name = "samba",
                                      .logs = "kdc.log, kdc.out",
                                      .start_on = samba_start_on};
    samba_paths sp;
    char path[PATH_MAX];
    char **env = NULL;
    int ret = -1;

    /* smb.conf and samba-tool's options hold the folder's name. */
    if (strpbrk(realm->dir, " \t\n\"'\\;#=") != NULL ||
        samba_paths_of(&sp, realm->dir) != 0) {
        snprintf(err, err_len,
                 "%s: Samba's configuration cannot take a folder whose name "
                 "holds a space, a quote, a backslash, ';', '#' or '='",
                 realm->dir);
        return -1;
    }
    env = gk5_realm_environ(realm);
    if (env == NULL ||
        gk5_realm_path_in(path, sizeof(path), realm->dir, "kdc.kind") != 0 ||
        gk5_realm_write_text(path, "samba\n") != 0 ||
        gk5_realm_path_in(path, sizeof(path), realm->dir, "kdc.enctypes") !=
            0 ||
        gk5_realm_write_text(path, ENCTYPE_NUMBERS) != 0 ||
        gk5_realm_krb5_conf(realm, 0, ENCTYPE_NAMES,
                            "support/realm/samba_kdc.c, Samba's AD KDC") != 0) {
        snprintf(err, err_len, "cannot write the realm's configuration in %s",
                 realm->dir);
        goto cleanup;
    }
    if (provision(realm, env) != 0) {
        snprintf(err, err_len,
                 "samba-tool domain provision failed (see %s/tools.log)",
                 realm->dir);
        goto cleanup;
    }
    if (make_accounts(realm, env) != 0) {
        snprintf(err, err_len,
                 "making the AD accounts and keytabs with samba-tool failed "
                 "(see %s/tools.log)",
                 realm->dir);
        goto cleanup;
    }
    struct samba_start st = {realm, env, &sp, detached};
    ret = gk5_realm_start_on_free_port(realm, &kdc, &st, err, err_len);

cleanup:
    gk5_realm_free_environ(env);
    return ret;
}

/* A failed start's samba; the folder stays. */
static void stop_kdc(gk5_mit_realm *realm)
{
    gk5_realm_stop_pid(realm->kdc_pid);
    realm->kdc_pid = 0;
}

static const gk5_realm_maker samba_maker = {
    .temp = "gk5-srealm.XXXXXX",
    .present = gk5_samba_kdc_tools_present,
    .make = make_realm,
    .stop_kdc = stop_kdc,
    .stop = gk5_samba_realm_stop,
};

int gk5_samba_realm_start(gk5_mit_realm *realm, char *err, size_t err_len)
{
    return gk5_realm_start_temp(realm, &samba_maker, err, err_len);
}

int gk5_samba_realm_start_in(gk5_mit_realm *realm, const char *dir, char *err,
                             size_t err_len)
{
    return gk5_realm_start_dir(realm, dir, &samba_maker, err, err_len);
}

int gk5_samba_realm_stop_in(const char *dir, char *err, size_t err_len)
{
    char real[PATH_MAX], pid_file[PATH_MAX];
    struct stat sb;
    long v = 0;
    pid_t pid;
    FILE *f;

    if (realpath(dir, real) == NULL || stat(real, &sb) != 0 ||
        !S_ISDIR(sb.st_mode)) {
        if (err != NULL) {
            snprintf(err, err_len, "no such directory: %s", dir);
        }
        return -1;
    }
    if (gk5_realm_path_in(pid_file, sizeof(pid_file), real, "kdc.pid") != 0) {
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
    /* Never signal a recycled PID: it must be the folder's samba. */
    if (pid > 0 && is_ours(pid, real)) {
        (void)kill(pid, SIGTERM);
        for (int i = 0; i < STOP_POLLS && gk5_realm_alive(pid); i++) {
            gk5_realm_nap();
        }
        if (gk5_realm_alive(pid) && is_ours(pid, real)) {
            (void)kill(pid, SIGKILL);
            for (int i = 0; i < STOP_POLLS && gk5_realm_alive(pid); i++) {
                gk5_realm_nap();
            }
        }
        (void)waitpid(pid, NULL, WNOHANG);
    }
    (void)unlink(pid_file);
    return 0;
}

void gk5_samba_realm_stop(gk5_mit_realm *realm)
{
    gk5_mit_realm_stop(realm);
}

int gk5_realm_is_samba(const char *dir)
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
    return strcmp(kind, "samba\n") == 0;
}
