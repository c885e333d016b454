/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo's NFS block: NFS-Ganesha started on 127.0.0.1 in the demo's
 * throwaway realm (its MEM FSAL, the realm's nfs.keytab), then `gk5 nfs4`
 * puts and cats a 1 MiB file under sys, then krb5, krb5i and krb5p with
 * gk5's own initiator making the RPCSEC_GSS context, and again through the
 * MIT bridge (MIT's gss_init_sec_context) for comparison, the bytes
 * compared, with the throughput as a ratio to AUTH_SYS; Ganesha is stopped
 * by its PID.  Where Ganesha is not installed the block says how to get
 * it and the demo goes on.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "realm.h"
#include "cli.h"
#include "common/util.h"
#include "demo.h"

#define DEMO_NFS_SIZE (1024u * 1024u)
#define DEMO_NFS_ROUNDS 8 /* puts (and cats) of the file, timed together */

static int find_ganesha(char *out, size_t len)
{
    static const char *const dirs[] = {"/usr/bin", "/usr/sbin",
                                       "/usr/local/sbin", "/sbin"};
    glob_t g;
    int found;

    for (size_t i = 0; i < GK5_ARRAY_SIZE(dirs); i++) {
        if (snprintf(out, len, "%s/ganesha.nfsd", dirs[i]) < (int)len &&
            access(out, X_OK) == 0) {
            memset(&g, 0, sizeof(g));
            found = glob("/usr/lib/*/ganesha/libfsalmem.so", 0, NULL, &g) == 0;
            globfree(&g);
            return found ? 0 : -2;
        }
    }
    return -1;
}

/* A free port on 127.0.0.1 (the kernel's pick, released for Ganesha). */
static int free_port(void)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    if (fd < 0) {
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &sl) == 0) {
        port = ntohs(sa.sin_port);
    }
    close(fd);
    return port;
}

static int write_conf(const char *path, const char *dir, const char *realm,
                      int port)
{
    FILE *f = fopen(path, "we");

    if (f == NULL) {
        return -1;
    }
    fprintf(f,
            "# gk5 demo's throwaway NFS-Ganesha\n"
            "NFS_CORE_PARAM { Protocols = 4; NFS_Port = %d; Bind_Addr = "
            "127.0.0.1;\n"
            "    Enable_UDP = false; Enable_NLM = false; Enable_RQUOTA = "
            "false;\n"
            "    MaxRPCSendBufferSize = 4194304; MaxRPCRecvBufferSize = "
            "4194304; }\n"
            "NFS_KRB5 { PrincipalName = nfs; KeytabPath = %s/nfs.keytab;\n"
            "    CCacheDir = %s/ccache; Active_krb5 = true; }\n"
            "NFSv4 { Graceless = true; RecoveryBackend = fs; RecoveryRoot = "
            "%s/recovery; }\n"
            "EXPORT { Export_Id = 1; Path = \"/\"; Pseudo = \"/\"; Protocols "
            "= 4;\n"
            "    Transports = TCP; Access_Type = RW;\n"
            "    SecType = sys, krb5, krb5i, krb5p; Squash = All_Squash;\n"
            "    Anonymous_Uid = 0; Anonymous_Gid = 0; FSAL { Name = MEM; } "
            "}\n"
            "MEM { Inode_Size = 2097152; }\n"
            "LOG { Default_Log_Level = EVENT; }\n",
            port, realm, dir, dir);
    return fclose(f) == 0 ? 0 : -1;
}

static bool log_says_ready(const char *log)
{
    char line[1024];
    bool ready = false;
    FILE *f = fopen(log, "re");

    if (f == NULL) {
        return false;
    }
    while (!ready && fgets(line, sizeof(line), f) != NULL) {
        ready = strstr(line, "NFS SERVER INITIALIZED") != NULL;
    }
    fclose(f);
    return ready;
}

static bool port_answers(int port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    bool ok;

    if (fd < 0) {
        return false;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(fd);
    return ok;
}

static void stop_ganesha(pid_t pid)
{
    int status;

    if (pid <= 0) {
        return;
    }
    gk5_mit_realm_watch_child(0);
    (void)kill(pid, SIGTERM);
    for (int i = 0; i < 500; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return;
        }
        usleep(10000);
    }
    (void)kill(pid, SIGKILL);
    (void)waitpid(pid, &status, 0);
}

/* Start Ganesha in realm->dir/ganesha; its PID, or -1 (why printed). */
static pid_t start_ganesha(const char *ganesha, const gk5_mit_realm *realm,
                           int *port_out)
{
    char dir[PATH_MAX], sub[PATH_MAX + 16], conf[PATH_MAX], log[PATH_MAX],
        pidf[PATH_MAX], out[PATH_MAX], krb5conf[PATH_MAX], ktname[PATH_MAX];
    int port = free_port();
    pid_t pid;

    if (port <= 0 ||
        snprintf(dir, sizeof(dir), "%s/ganesha", realm->dir) >=
            (int)sizeof(dir) ||
        snprintf(conf, sizeof(conf), "%s/ganesha.conf", dir) >=
            (int)sizeof(conf) ||
        snprintf(log, sizeof(log), "%s/ganesha.log", dir) >= (int)sizeof(log) ||
        snprintf(pidf, sizeof(pidf), "%s/ganesha.pid", dir) >=
            (int)sizeof(pidf) ||
        snprintf(out, sizeof(out), "%s/ganesha.out", dir) >= (int)sizeof(out) ||
        snprintf(krb5conf, sizeof(krb5conf), "KRB5_CONFIG=%s/krb5.conf",
                 realm->dir) >= (int)sizeof(krb5conf) ||
        snprintf(ktname, sizeof(ktname), "KRB5_KTNAME=%s/nfs.keytab",
                 realm->dir) >= (int)sizeof(ktname)) {
        printf("nfs    FAILED: no free port or the folder name is too long\n");
        return -1;
    }
    (void)mkdir(dir, 0700);
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof(sub), "%s/%s", dir,
                 i == 0 ? "ccache" : "recovery");
        (void)mkdir(sub, 0700);
    }
    if (write_conf(conf, dir, realm->dir, port) != 0) {
        printf("nfs    FAILED: writing %s: %s\n", conf, strerror(errno));
        return -1;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        printf("nfs    FAILED: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        FILE *o = freopen(out, "a", stdout);
        (void)o;
        (void)dup2(STDOUT_FILENO, STDERR_FILENO);
        (void)putenv(krb5conf);
        (void)putenv(ktname);
        execl(ganesha, ganesha, "-F", "-f", conf, "-L", log, "-p", pidf,
              (char *)NULL);
        _exit(127);
    }
    /* Killed with the KDC if the demo is. */
    gk5_mit_realm_watch_child(pid);
    for (int i = 0; i < 1500; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            printf("nfs    FAILED: ganesha.nfsd exited at start (see %s)\n",
                   log);
            return -1;
        }
        if (log_says_ready(log) && port_answers(port)) {
            *port_out = port;
            return pid;
        }
        usleep(10000);
    }
    stop_ganesha(pid);
    printf("nfs    FAILED: ganesha.nfsd did not start within 15 s\n");
    return -1;
}

int demo_nfs(const gk5_mit_realm *realm)
{
    /* AUTH_SYS first (the ratios' base), gk5's own establishment, then
     * the MIT bridge for comparison. */
    static const struct {
        const char *sec, *mode;
        gk5_rpc_establish est;
    } rows[] = {
        {"sys", "-", GK5_RPC_ESTABLISH_NATIVE},
        {"krb5", "native", GK5_RPC_ESTABLISH_NATIVE},
        {"krb5i", "native", GK5_RPC_ESTABLISH_NATIVE},
        {"krb5p", "native", GK5_RPC_ESTABLISH_NATIVE},
        {"krb5", "MIT", GK5_RPC_ESTABLISH_MIT},
        {"krb5i", "MIT", GK5_RPC_ESTABLISH_MIT},
        {"krb5p", "MIT", GK5_RPC_ESTABLISH_MIT},
    };
    char ganesha[PATH_MAX], client_kt[PATH_MAX], hostport[64];
    double sys_put = 0, sys_cat = 0;
    uint8_t *data = NULL;
    int port = 0, failed = 0, found;
    pid_t pid;

    printf("\nNFSv4 (RFC 7530): NFS-Ganesha on 127.0.0.1, gk5 nfs4 puts and "
           "cats a 1 MiB file %d times.\n",
           DEMO_NFS_ROUNDS);
    found = find_ganesha(ganesha, sizeof(ganesha));
    if (found != 0) {
        printf("NFS-Ganesha %s: apt-get install nfs-ganesha nfs-ganesha-mem "
               "(tools/setup-debian.sh\ninstalls it); skipped.\n",
               found == -1 ? "is not installed" : "has no MEM FSAL");
        return 0;
    }
    if (snprintf(client_kt, sizeof(client_kt), "%s/client.keytab",
                 realm->dir) >= (int)sizeof(client_kt)) {
        printf("nfs    FAILED: the realm's folder name is too long\n");
        return 1;
    }
    data = malloc(DEMO_NFS_SIZE);
    if (data == NULL) {
        printf("nfs    FAILED: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < DEMO_NFS_SIZE; i++) {
        data[i] = (uint8_t)(i * 131u + (i >> 11));
    }
    pid = start_ganesha(ganesha, realm, &port);
    if (pid < 0) {
        free(data);
        return 1;
    }
    snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", port);
    printf("ganesha.nfsd pid %ld on %s (MEM FSAL, nfs/localhost in "
           "nfs.keytab);\nMB/s = 10^6 bytes per second, the ratio to "
           "AUTH_SYS beside it.\n\n",
           (long)pid, hostport);
    printf("'native': gk5's own initiator makes the RPCSEC_GSS context; "
           "'MIT', for comparison:\nMIT's gss_init_sec_context, the context "
           "moved into gk5 (the MIT bridge).\n\n");
    printf("%-6s %-9s %12s %7s %12s %7s\n", "sec", "establish", "put MB/s",
           "vs sys", "cat MB/s", "vs sys");
    for (size_t i = 0; i < GK5_ARRAY_SIZE(rows); i++) {
        struct cli_nfs4_transfer t;
        const char *sec = rows[i].sec;
        char path[64];

        memset(&t, 0, sizeof(t));
        snprintf(path, sizeof(path), "/gk5-demo-%s-%s", sec,
                 rows[i].est == GK5_RPC_ESTABLISH_MIT ? "mit" : "native");
        t.hostport = hostport;
        t.path = path;
        t.sec = sec;
        t.target = "nfs@localhost";
        t.establish = rows[i].est;
        if (strcmp(sec, "sys") != 0) {
            t.client_keytab = client_kt;
            t.client_principal = GK5_MIT_CLIENT;
        }
        t.data = data;
        t.len = DEMO_NFS_SIZE;
        t.rounds = DEMO_NFS_ROUNDS;
        if (cli_nfs4_put_cat(&t) != 0) {
            printf("%-6s %-9s FAILED (the error is above)\n", sec,
                   rows[i].mode);
            failed++;
            continue;
        }
        double put = (double)DEMO_NFS_SIZE * DEMO_NFS_ROUNDS / t.put_s / 1e6;
        double cat = (double)DEMO_NFS_SIZE * DEMO_NFS_ROUNDS / t.cat_s / 1e6;
        if (i == 0) {
            sys_put = put;
            sys_cat = cat;
        }
        printf("%-6s %-9s %12.1f %7.2f %12.1f %7.2f  ok, the same bytes\n", sec,
               rows[i].mode, put, sys_put > 0 ? put / sys_put : 0, cat,
               sys_cat > 0 ? cat / sys_cat : 0);
    }
    stop_ganesha(pid);
    printf("\nganesha.nfsd pid %ld stopped.  A glimpse: 'gk5 nfs4 bench' "
           "measures.\n",
           (long)pid);
    free(data);
    return failed;
}
