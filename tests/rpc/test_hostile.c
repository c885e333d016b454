/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * test_hostile (meson test 'rpc-hostile', TAP through hostile.sh): hostile
 * peers against a running `gk5 rpc serve`, and a legitimate krb5p client
 * that must be served while they run.
 *
 *   test_hostile --port P --pid PID --log FILE --sys-port P2 --sys-pid PID2
 *                --client-keytab FILE [--principal NAME] [--target S@H]
 *                [--threads N] --max-connections N --max-per-address N
 *                --unauth-budget BYTES --reply-budget BYTES
 *                --first-record-timeout S --conn-idle-timeout S
 *                --send-timeout S --log-interval S [--defaults] [--no-plan]
 *                [--only LIST]
 *
 * Two servers, both started by the runner (hostile.sh) with the same
 * limits, which it passes here too: PORT/PID with its default --sec (the
 * RPCSEC_GSS flavours), its stderr in FILE; SYS-PORT/SYS-PID with --sec
 * sys,krb5,krb5i,krb5p, for the peer that never reads a SOURCE reply.
 *
 * The legitimate client ("probe"): a new connection from 127.0.0.1,
 * RPCSEC_GSS_INIT for krb5p (gk5_rpc_auth_create, gk5-client@GK5.TEST from
 * the client keytab), one ECHO of 64 bytes, checked; served means all of
 * that within PROBE_OK_MS.  A thread probes every PROBE_GAP_MS while a
 * scenario runs.  Another thread samples the servers' VmRSS
 * (/proc/PID/status) and descriptors (/proc/PID/fd) every SAMPLE_MS.
 *
 * Bounds: RSS <= base + unauth budget + reply budget + slack (base: after
 * a first probe; slack: RSS_SLACK + RSS_SLACK_PER_CONN per connection of
 * the limit, more under AddressSanitizer; for the SOURCE calls, one call's
 * results per worker thread, --threads, default the CPU count as the
 * server's), descriptors <= base + max-connections + FD_SLACK.
 *
 * Hostile peers connect from 127.77.K.1 (K = 1, 2, ...: the loopback
 * network is all local on Linux), at most --max-per-address from one
 * address, so that the total limit, not the per-address cap, is what they
 * meet; the per-address cell uses one address of its own.
 *
 * Scenarios, each a few TAP cells (behaviour; the legitimate client; RSS
 * and descriptors), each bounded in connections, bytes and seconds:
 *   idle      N+1 idle connections (N = --max-connections): the oldest is
 *             evicted, the client gets in, all are closed at the
 *             first-record deadline
 *   slowloris N+8 connections sending one byte of a record every 0.5 s:
 *             all dropped at the first-record deadline
 *   partial   records declaring 64 MiB on many connections, 4 KiB sent;
 *             then a few peers pushing tens of MiB of such records
 *             (the memory a half-sent record pins): RPCSEC_GSS with a
 *             handle nobody made and INIT to the default server, AUTH_SYS
 *             SINK (which it must take in whole) to the sys server
 *   unread    SOURCE calls (AUTH_SYS) for large replies that are never
 *             read, against the sys server: the reply budget caps memory
 *             and the peer is dropped at the send deadline; and the same
 *             call refused by the default server (no reply budget for an
 *             unauthenticated caller)
 *   garbage   garbage records at full speed for 2 s: the log stays short
 *             (one line per interval, not one per record)
 *   peraddr   --max-per-address + 4 connections from one address: the
 *             extra ones closed at once
 *   idleauth  an authenticated connection left idle: kept past the
 *             first-record deadline, closed at --conn-idle-timeout (only
 *             when that is under a minute)
 * "# figure" lines carry what each limit holds (memory, log lines).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* POLLRDHUP */
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <gk5/rpcsec.h>

#include "../tap_cells.h"
#include "echo_prog.h"

#define MIB (1024.0 * 1024.0)
#define PROBE_OK_MS 1000
#define PROBE_GAP_MS 150
#define PROBE_CONNECT_MS 2000
#define PROBE_TIMEOUT_MS 3000
#define SAMPLE_MS 20
#define FD_SLACK 4
#define RSS_SLACK (48u * 1024u * 1024u)
#define RSS_SLACK_PER_CONN (16u * 1024u)
#define MAX_PEERS 4096
#define LAST_FRAGMENT 0x80000000u
#define FLAVOR_NONE 0u
#define FLAVOR_SYS 1u
#define FLAVOR_GSS 6u
#define DECLARED (64u * 1024u * 1024u) /* GK5_ECHO_MAX_OPAQUE */

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* ---- configuration ---- */

static struct {
    unsigned port, sys_port;
    pid_t pid, sys_pid;
    const char *log;
    const char *keytab;
    const char *principal;
    const char *target;
    unsigned max_conn, per_addr, threads;
    uint64_t unauth_budget, reply_budget;
    unsigned first_record_s, conn_idle_s, send_s, log_interval_s;
    bool defaults, no_plan;
    const char *only;
} cfg = {
    .principal = "gk5-client@GK5.TEST",
    .target = "gk5@localhost",
    .max_conn = 1024,
    .per_addr = 64,
    .unauth_budget = 16u * 1024u * 1024u,
    .reply_budget = 256u * 1024u * 1024u,
    .first_record_s = 10,
    .conn_idle_s = 300,
    .send_s = 30,
    .log_interval_s = 10,
};

static bool wanted(const char *scenario)
{
    const char *p = cfg.only;
    size_t n = strlen(scenario);

    if (p == NULL) {
        return true;
    }
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, scenario, n) == 0) {
            return true;
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
    return false;
}

/* ---- time ---- */

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long long ms)
{
    struct timespec ts;

    if (ms <= 0) {
        return;
    }
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- a random stream (xorshift; not for secrets) ---- */

static __thread uint32_t rnd_state = 0x2545f491u;

static uint32_t rnd(void)
{
    uint32_t x = rnd_state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rnd_state = x;
    return x;
}

/* ---- /proc ---- */

static uint64_t read_rss(pid_t pid)
{
    char path[64], line[256];
    uint64_t kb = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtoull(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb * 1024u;
}

static int count_fds(pid_t pid)
{
    char path[64];
    struct dirent *de;
    int n = 0;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
    d = opendir(path);
    if (d == NULL) {
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] != '.') {
            n++;
        }
    }
    closedir(d);
    return n;
}

static bool process_alive(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    bool alive = false;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    if (fgets(buf, sizeof(buf), f) != NULL) {
        p = strrchr(buf, ')');
        alive = p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
    }
    fclose(f);
    return alive;
}

/* ---- the monitor: both servers' RSS and descriptors ---- */

struct server_mon {
    const char *name;
    pid_t pid;
    unsigned port;
    uint64_t rss_base;
    int fds_base;
    uint64_t allow;   /* calls running in the workers, this scenario */
    uint64_t rss_max; /* mon_lock */
    int fds_max;      /* mon_lock */
};

static struct server_mon srv_main = {.name = "default server"};
static struct server_mon srv_sys = {.name = "sys server"};
static pthread_mutex_t mon_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int mon_quit;

static void mon_sample(struct server_mon *s)
{
    uint64_t rss;
    int fds;

    if (s->pid <= 0) {
        return;
    }
    rss = read_rss(s->pid);
    fds = count_fds(s->pid);
    pthread_mutex_lock(&mon_lock);
    if (rss > s->rss_max) {
        s->rss_max = rss;
    }
    if (fds > s->fds_max) {
        s->fds_max = fds;
    }
    pthread_mutex_unlock(&mon_lock);
}

static void *mon_main(void *arg)
{
    (void)arg;
    while (!mon_quit) {
        mon_sample(&srv_main);
        mon_sample(&srv_sys);
        sleep_ms(SAMPLE_MS);
    }
    return NULL;
}

/* A new window: the maxima start from now. */
static void mon_begin(struct server_mon *s)
{
    pthread_mutex_lock(&mon_lock);
    s->rss_max = 0;
    s->fds_max = 0;
    pthread_mutex_unlock(&mon_lock);
    mon_sample(s);
}

static void mon_get(struct server_mon *s, uint64_t *rss, int *fds)
{
    mon_sample(s);
    pthread_mutex_lock(&mon_lock);
    *rss = s->rss_max;
    *fds = s->fds_max;
    pthread_mutex_unlock(&mon_lock);
}

static uint64_t rss_bound(const struct server_mon *s)
{
    uint64_t slack = RSS_SLACK + (uint64_t)RSS_SLACK_PER_CONN * cfg.max_conn;

    if (UNDER_ASAN) {
        /* ASan's quarantine (256 MiB), shadow and redzones. */
        slack += 768u * 1024u * 1024u;
    }
    return s->rss_base + cfg.unauth_budget + cfg.reply_budget + slack +
           s->allow;
}

static int fds_bound(const struct server_mon *s)
{
    return s->fds_base + (int)cfg.max_conn + FD_SLACK;
}

/* The resource cell of a scenario: RSS and descriptors inside the
 * bounds over the window; the figures as a diagnostic either way. */
static void resource_cell(struct server_mon *s, const char *scenario)
{
    uint64_t rss;
    int fds;
    char name[256];

    mon_get(s, &rss, &fds);
    snprintf(name, sizeof(name),
             "%s: %s RSS <= base + budgets + slack, descriptors <= base + "
             "max-connections + %d",
             scenario, s->name, FD_SLACK);
    cell(rss <= rss_bound(s) && fds <= fds_bound(s), name,
         "RSS max %.1f MiB (bound %.1f MiB, base %.1f), descriptors max %d "
         "(bound %d, base %d)",
         rss / MIB, rss_bound(s) / MIB, s->rss_base / MIB, fds, fds_bound(s),
         s->fds_base);
    printf("# %s: %s RSS max %.1f MiB (base %.1f, +%.1f; bound %.1f), "
           "descriptors max %d (base %d; bound %d)\n",
           scenario, s->name, rss / MIB, s->rss_base / MIB,
           rss > s->rss_base ? (rss - s->rss_base) / MIB : 0.0,
           rss_bound(s) / MIB, fds, s->fds_base, fds_bound(s));
}

/* ---- sockets ---- */

static int connect_to(unsigned port, unsigned src, int rcvbuf, int timeout_ms)
{
    struct sockaddr_in a;
    struct pollfd p;
    int fd, e = 0;
    socklen_t el = sizeof(e);

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return -1;
    }
    if (rcvbuf > 0) {
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    }
    if (src != 0) {
        /* 127.77.K.1: one hostile "host" per K. */
        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(0x7f4d0001u | ((src & 0xffu) << 8));
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            close(fd);
            return -1;
        }
    }
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        if (errno != EINPROGRESS) {
            close(fd);
            return -1;
        }
        p.fd = fd;
        p.events = POLLOUT;
        if (poll(&p, 1, timeout_ms) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e != 0) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* Has the server closed fd?  Reads (and discards) whatever it sent. */
static bool peer_closed(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    uint8_t buf[4096];
    int i;

    if (fd < 0) {
        return true;
    }
    if (poll(&p, 1, 0) < 0) {
        return false;
    }
    if ((p.revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0) {
        return true;
    }
    if ((p.revents & POLLIN) == 0) {
        return false;
    }
    for (i = 0; i < 64; i++) {
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0) {
            return true;
        }
        if (n < 0) {
            return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
        }
    }
    return false;
}

/* Send all of buf (a small record) within timeout_ms; false if the
 * connection failed or stayed full. */
static bool send_small(int fd, const void *buf, size_t len, int timeout_ms)
{
    const uint8_t *p = buf;
    long long end = now_ms() + timeout_ms;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            long long left = end - now_ms();
            if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
                return false;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        return false;
    }
    return true;
}

/* The hostile peers of a scenario. */
struct peer {
    int fd;
    long long opened, closed; /* ms; closed 0 while open */
    uint64_t sent;
    uint64_t target;
};

static struct peer peers[MAX_PEERS];
static unsigned npeers;

static void peers_close_all(void)
{
    for (unsigned i = 0; i < npeers; i++) {
        if (peers[i].fd >= 0) {
            close(peers[i].fd);
            peers[i].fd = -1;
        }
    }
    npeers = 0;
}

/* Source address of hostile peer i: per_addr peers per address. */
static unsigned peer_src(unsigned i)
{
    unsigned share = cfg.per_addr > 0 ? cfg.per_addr : 1;

    return 1 + (i / share) % 180;
}

/* Open n peers to port, gap_ms apart; how many connected. */
static unsigned peers_open(unsigned n, unsigned port, int gap_ms, int rcvbuf)
{
    unsigned ok = 0;

    for (unsigned i = 0; i < n && npeers < MAX_PEERS; i++) {
        struct peer *p = &peers[npeers++];
        memset(p, 0, sizeof(*p));
        p->fd = connect_to(port, peer_src(i), rcvbuf, 2000);
        p->opened = now_ms();
        if (p->fd >= 0) {
            ok++;
        } else {
            p->closed = p->opened;
        }
        sleep_ms(gap_ms);
    }
    return ok;
}

/* Mark the peers the server has closed; how many are open. */
static unsigned peers_poll(void)
{
    unsigned open = 0;
    long long t = now_ms();

    for (unsigned i = 0; i < npeers; i++) {
        struct peer *p = &peers[i];
        if (p->closed != 0) {
            continue;
        }
        if (peer_closed(p->fd)) {
            p->closed = t;
        } else {
            open++;
        }
    }
    return open;
}

/* Wait until the server's descriptors are back near base (the peers of
 * the last scenario gone), at most 3 s. */
static void settle(struct server_mon *s)
{
    long long end = now_ms() + 3000;

    while (now_ms() < end) {
        int fds = count_fds(s->pid);
        if (fds >= 0 && fds <= s->fds_base + 1) {
            break;
        }
        sleep_ms(20);
    }
    sleep_ms(100);
}

/* ---- RPC records by hand ---- */

struct wbuf {
    uint8_t p[8192];
    size_t len;
};

static void w32(struct wbuf *b, uint32_t v)
{
    if (b->len + 4 <= sizeof(b->p)) {
        b->p[b->len++] = (uint8_t)(v >> 24);
        b->p[b->len++] = (uint8_t)(v >> 16);
        b->p[b->len++] = (uint8_t)(v >> 8);
        b->p[b->len++] = (uint8_t)v;
    }
}

static void wrandom(struct wbuf *b, size_t n)
{
    for (size_t i = 0; i < n && b->len < sizeof(b->p); i++) {
        b->p[b->len++] = (uint8_t)rnd();
    }
}

/* opaque<> of n random bytes (n a multiple of 4). */
static void wopaque_random(struct wbuf *b, size_t n)
{
    w32(b, (uint32_t)n);
    wrandom(b, n);
}

enum cred {
    CRED_NONE,     /* AUTH_NONE */
    CRED_SYS,      /* AUTH_SYS, uid 0, no machine name, no groups */
    CRED_GSS_DATA, /* RPCSEC_GSS DATA, a handle nobody made, a bogus MIC */
    CRED_GSS_INIT, /* RPCSEC_GSS INIT (the body: the token) */
};

/* A record mark (declared length), then a CALL header up to the
 * arguments. */
static void call_header(struct wbuf *b, uint32_t declared, uint32_t rpcvers,
                        uint32_t prog, uint32_t proc, enum cred cred)
{
    b->len = 0;
    w32(b, LAST_FRAGMENT | declared);
    w32(b, rnd()); /* xid */
    w32(b, 0);     /* CALL */
    w32(b, rpcvers);
    w32(b, prog);
    w32(b, ECHO_VERS);
    w32(b, proc);
    switch (cred) {
    case CRED_NONE:
        w32(b, FLAVOR_NONE);
        w32(b, 0);
        w32(b, FLAVOR_NONE);
        w32(b, 0);
        break;
    case CRED_SYS:
        w32(b, FLAVOR_SYS);
        w32(b, 20);
        w32(b, 0); /* stamp */
        w32(b, 0); /* machinename<> */
        w32(b, 0); /* uid */
        w32(b, 0); /* gid */
        w32(b, 0); /* gids<> */
        w32(b, FLAVOR_NONE);
        w32(b, 0);
        break;
    case CRED_GSS_DATA:
        w32(b, FLAVOR_GSS);
        w32(b, 36);
        w32(b, 1);     /* version */
        w32(b, 0);     /* RPCSEC_GSS_DATA */
        w32(b, rnd()); /* seq_num */
        w32(b, 1);     /* rpc_gss_svc_none */
        wopaque_random(b, 16);
        w32(b, FLAVOR_GSS);
        wopaque_random(b, 28);
        break;
    case CRED_GSS_INIT:
        w32(b, FLAVOR_GSS);
        w32(b, 20);
        w32(b, 1); /* version */
        w32(b, 1); /* RPCSEC_GSS_INIT */
        w32(b, 0);
        w32(b, 1);
        w32(b, 0); /* handle<> empty */
        w32(b, FLAVOR_NONE);
        w32(b, 0);
        break;
    }
}

/* Size of the record mark plus header just written. */
static uint32_t body_of(const struct wbuf *b, uint32_t declared)
{
    return declared - (uint32_t)(b->len - 4);
}

/* ---- the legitimate client ---- */

struct probe_stats {
    unsigned tries, served, slow, failed;
    long long max_ms, sum_ms;
    char last_err[256];
};

static const char *auth_error_text(AUTH *auth)
{
    const gk5_rpc_error *e = gk5_rpc_auth_last_error(auth);

    return e != NULL ? e->text : "(no gk5 error recorded)";
}

/* Connect (from 127.0.0.1), INIT krb5p, ECHO 64 bytes.  On success the
 * connection and AUTH are returned when keep is set (for the idle cell),
 * destroyed otherwise.  ms: connect to checked reply. */
static bool probe_once(unsigned port, long long *ms, char *why, size_t whylen,
                       CLIENT **keep_clnt, AUTH **keep_auth, int *keep_fd)
{
    struct sockaddr_in sa;
    struct netbuf nb;
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    gk5_rpc_auth_options opts;
    gk5_rpc_error err;
    struct timeval tv = {PROBE_TIMEOUT_MS / 1000, 0};
    uint8_t payload[64];
    echo_opaque arg, res = {0, NULL};
    enum clnt_stat st;
    long long t0 = now_ms();
    bool ok = false;
    int fd, fl;

    *ms = 0;
    why[0] = '\0';
    fd = connect_to(port, 0, 0, PROBE_CONNECT_MS);
    if (fd < 0) {
        snprintf(why, whylen, "connect: %s", strerror(errno));
        goto done;
    }
    fl = fcntl(fd, F_GETFL);
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    nb.maxlen = nb.len = sizeof(sa);
    nb.buf = &sa;
    clnt = clnt_vc_create(fd, &nb, ECHO_PROG, ECHO_VERS, 0, 0);
    if (clnt == NULL) {
        snprintf(why, whylen, "clnt_vc_create failed");
        close(fd);
        goto done;
    }
    clnt_control(clnt, CLSET_FD_CLOSE, NULL);
    if (clnt->cl_auth != NULL) {
        auth_destroy(clnt->cl_auth);
        clnt->cl_auth = NULL;
    }
    memset(&opts, 0, sizeof(opts));
    memset(&err, 0, sizeof(err));
    opts.client_keytab = cfg.keytab;
    opts.principal = cfg.principal;
    opts.timeout_ms = PROBE_TIMEOUT_MS;
    auth =
        gk5_rpc_auth_create(clnt, cfg.target, GK5_RPC_SVC_PRIVACY, &opts, &err);
    if (auth == NULL) {
        snprintf(why, whylen, "RPCSEC_GSS_INIT: %.230s", err.text);
        goto done;
    }
    clnt->cl_auth = auth;
    echo_fill(payload, sizeof(payload), (uint64_t)t0);
    arg.len = sizeof(payload);
    arg.val = (char *)payload;
    st = clnt_call(clnt, ECHO_PROC_ECHO, XDRPROC(xdr_echo_opaque), &arg,
                   XDRPROC(xdr_echo_opaque), &res, tv);
    clnt->cl_auth = NULL;
    if (st != RPC_SUCCESS) {
        snprintf(why, whylen, "ECHO: %.60s; %.180s", clnt_sperrno(st),
                 auth_error_text(auth));
    } else if (res.len != sizeof(payload) ||
               memcmp(res.val, payload, sizeof(payload)) != 0) {
        snprintf(why, whylen, "ECHO came back different");
    } else {
        ok = true;
    }
    *ms = now_ms() - t0;
    xdr_free(XDRPROC(xdr_echo_opaque), &res);
done:
    if (*ms == 0) {
        *ms = now_ms() - t0;
    }
    if (ok && keep_clnt != NULL) {
        *keep_clnt = clnt;
        *keep_auth = auth;
        *keep_fd = fd;
        return true;
    }
    if (auth != NULL) {
        auth_destroy(auth);
    }
    if (clnt != NULL) {
        clnt_destroy(clnt);
    }
    return ok;
}

static pthread_mutex_t pr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pr_cond = PTHREAD_COND_INITIALIZER;
static unsigned pr_port;
static bool pr_on, pr_quit, pr_busy;
static struct probe_stats pr_stats;

static void stats_add(struct probe_stats *s, bool ok, long long ms,
                      const char *why)
{
    s->tries++;
    if (!ok) {
        s->failed++;
        snprintf(s->last_err, sizeof(s->last_err), "%s", why);
        return;
    }
    s->sum_ms += ms;
    if (ms > s->max_ms) {
        s->max_ms = ms;
    }
    if (ms > PROBE_OK_MS) {
        s->slow++;
        snprintf(s->last_err, sizeof(s->last_err), "served after %lld ms", ms);
    } else {
        s->served++;
    }
}

static void *probe_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pr_lock);
    for (;;) {
        unsigned port;
        long long ms;
        char why[256];
        bool ok;

        while (!pr_on && !pr_quit) {
            pthread_cond_wait(&pr_cond, &pr_lock);
        }
        if (pr_quit) {
            break;
        }
        port = pr_port;
        pr_busy = true;
        pthread_mutex_unlock(&pr_lock);
        ok = probe_once(port, &ms, why, sizeof(why), NULL, NULL, NULL);
        pthread_mutex_lock(&pr_lock);
        stats_add(&pr_stats, ok, ms, why);
        pr_busy = false;
        pthread_cond_broadcast(&pr_cond);
        pthread_mutex_unlock(&pr_lock);
        sleep_ms(PROBE_GAP_MS);
        pthread_mutex_lock(&pr_lock);
    }
    pthread_mutex_unlock(&pr_lock);
    return NULL;
}

static void probe_begin(unsigned port)
{
    pthread_mutex_lock(&pr_lock);
    memset(&pr_stats, 0, sizeof(pr_stats));
    pr_port = port;
    pr_on = true;
    pthread_cond_broadcast(&pr_cond);
    pthread_mutex_unlock(&pr_lock);
}

/* Stop probing (waiting for the probe in flight); the window's stats. */
static struct probe_stats probe_end(void)
{
    struct probe_stats s;

    pthread_mutex_lock(&pr_lock);
    pr_on = false;
    while (pr_busy) {
        pthread_cond_wait(&pr_cond, &pr_lock);
    }
    s = pr_stats;
    pthread_mutex_unlock(&pr_lock);
    return s;
}

/* The probe cell: at least one probe, every one served within 1 s. */
static void probe_cell(const struct probe_stats *s, const char *scenario)
{
    char name[256];

    snprintf(name, sizeof(name),
             "%s: a krb5p client (new connection, INIT, ECHO) is served "
             "within %d ms throughout",
             scenario, PROBE_OK_MS);
    cell(s->tries > 0 && s->served == s->tries, name,
         "%u of %u served in time (%u late, %u failed), max %lld ms; last: "
         "%s",
         s->served, s->tries, s->slow, s->failed, s->max_ms,
         s->last_err[0] != '\0' ? s->last_err : "-");
    printf("# %s: legitimate client %u/%u served within %d ms, max %lld ms, "
           "mean %lld ms%s%s\n",
           scenario, s->served, s->tries, PROBE_OK_MS, s->max_ms,
           s->served + s->slow > 0 ? s->sum_ms / (s->served + s->slow) : 0,
           s->last_err[0] != '\0' ? "; last problem: " : "", s->last_err);
}

/* ---- the server's log ---- */

static long log_size(void)
{
    FILE *f = fopen(cfg.log, "r");
    long n;

    if (f == NULL) {
        return 0;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return n;
}

/* Lines after offset; the first few shown as diagnostics. */
static unsigned log_lines_since(long offset, unsigned show, const char *label)
{
    FILE *f = fopen(cfg.log, "r");
    char line[1024];
    unsigned n = 0;

    if (f == NULL) {
        return 0;
    }
    fseek(f, offset, SEEK_SET);
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n') {
            n++;
            line[len - 1] = '\0';
        }
        if (n <= show && len > 0) {
            printf("# %s log: %.200s\n", label, line);
        }
    }
    fclose(f);
    return n;
}

/* ---- scenario 1: N+1 idle connections ---- */

static void scenario_idle(void)
{
    const char *sc = "idle";
    unsigned n = cfg.max_conn + 1, connected, open_after, first_open = 0;
    long long deadline, t_last, earliest = -1, latest = -1;
    unsigned closed_in_time = 0, closed_early = 0;
    struct probe_stats st;
    long log0 = log_size();

    printf("# scenario %s: %u idle connections (max-connections %u), "
           "first-record deadline %u s\n",
           sc, n, cfg.max_conn, cfg.first_record_s);
    mon_begin(&srv_main);
    connected = peers_open(n, cfg.port, cfg.defaults ? 0 : 2, 0);
    t_last = now_ms();
    sleep_ms(300);
    open_after = peers_poll();
    first_open = peers[0].closed == 0;
    cell(connected == n && open_after >= cfg.max_conn - 1 && !first_open,
         "idle: N+1 idle connections: the oldest (not authenticated) is "
         "evicted, the others kept",
         "%u connected, %u open 0.3 s after the last, the oldest %s", connected,
         open_after, first_open ? "still open" : "closed");

    /* The client now, with the table full, and on while they idle. */
    probe_begin(cfg.port);
    deadline = t_last + (long long)cfg.first_record_s * 1000 + 2000;
    while (now_ms() < deadline) {
        if (peers_poll() == 0) {
            break;
        }
        sleep_ms(50);
    }
    peers_poll();
    st = probe_end();
    for (unsigned i = 0; i < npeers; i++) {
        long long life;
        if (peers[i].closed == 0) {
            continue;
        }
        life = peers[i].closed - peers[i].opened;
        if (life <= (long long)cfg.first_record_s * 1000 + 1500) {
            closed_in_time++;
        }
        if (i > 0 && life < (long long)cfg.first_record_s * 1000 - 500) {
            closed_early++; /* evicted for a newer connection */
        }
        if (i > 0 && (earliest < 0 || life < earliest)) {
            earliest = life;
        }
        if (life > latest) {
            latest = life;
        }
    }
    cell(closed_in_time == npeers,
         "idle: every idle connection is closed by the first-record "
         "deadline + 1.5 s",
         "%u of %u closed in time (first-record deadline %u s); still open "
         "after %.1f s: %u",
         closed_in_time, npeers, cfg.first_record_s,
         (now_ms() - t_last) / 1000.0, peers_poll());
    probe_cell(&st, sc);
    resource_cell(&srv_main, sc);
    printf("# figure finding-1 (idle connections): %u idle connections, "
           "limit %u: %u open 0.3 s later; legitimate client %u/%u served, "
           "max %lld ms; closed by the deadline: %u/%u (lifetimes %.1f..%.1f "
           "s, %u evicted early); server descriptors max %d\n",
           n, cfg.max_conn, open_after, st.served, st.tries, st.max_ms,
           closed_in_time, npeers, earliest < 0 ? 0.0 : earliest / 1000.0,
           latest < 0 ? 0.0 : latest / 1000.0, closed_early, srv_main.fds_max);
    log_lines_since(log0, 2, sc);
    peers_close_all();
    settle(&srv_main);
}

/* ---- scenario 2: slowloris ---- */

static void scenario_slowloris(void)
{
    const char *sc = "slowloris";
    unsigned n = cfg.max_conn + 8, connected, in_time = 0, still = 0;
    long long end, next_byte;
    struct probe_stats st;
    struct wbuf rec;
    unsigned round = 0;

    printf("# scenario %s: %u connections each sending a byte of a record "
           "every 0.5 s\n",
           sc, n);
    /* A plausible start: a 1 KiB record, RPCSEC_GSS DATA. */
    call_header(&rec, 1024, 2, ECHO_PROG, ECHO_PROC_ECHO, CRED_GSS_DATA);
    mon_begin(&srv_main);
    connected = peers_open(n, cfg.port, 0, 0);
    /* The client from now on: a probe started while the peers connect
     * would be, for the while before its INIT arrives, the oldest
     * unauthenticated connection, the one to evict. */
    probe_begin(cfg.port);
    end = now_ms() + (long long)cfg.first_record_s * 1000 + 2500;
    next_byte = now_ms();
    while (now_ms() < end) {
        if (now_ms() >= next_byte) {
            for (unsigned i = 0; i < npeers; i++) {
                uint8_t b = rec.p[round % rec.len];
                if (peers[i].closed != 0) {
                    continue;
                }
                if (send(peers[i].fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) ==
                    1) {
                    peers[i].sent++;
                } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                    peers[i].closed = now_ms();
                }
            }
            round++;
            next_byte += 500;
        }
        if (peers_poll() == 0) {
            break;
        }
        sleep_ms(50);
    }
    st = probe_end();
    for (unsigned i = 0; i < npeers; i++) {
        if (peers[i].closed == 0) {
            still++;
        } else if (peers[i].closed - peers[i].opened <=
                   (long long)cfg.first_record_s * 1000 + 1500) {
            in_time++;
        }
    }
    cell(connected == n && in_time == npeers,
         "slowloris: every connection is dropped by the first-record "
         "deadline + 1.5 s although bytes keep coming",
         "%u of %u connected; %u dropped in time, %u still open after %.1f "
         "s (%u bytes each)",
         connected, n, in_time, still,
         (cfg.first_record_s * 1000 + 2500) / 1000.0, round);
    probe_cell(&st, sc);
    resource_cell(&srv_main, sc);
    printf("# figure slowloris: %u connections, %u dropped by the deadline, "
           "%u still open at the end; legitimate client %u/%u, max %lld ms\n",
           n, in_time, still, st.served, st.tries, st.max_ms);
    peers_close_all();
    settle(&srv_main);
}

/* ---- scenario 3: partial records of the largest declared size ---- */

/* Push bytes to the peers until each has sent its target, is closed, or
 * the deadline passes.  Non-blocking; filler from a static buffer. */
static void push_peers(long long deadline)
{
    static uint8_t filler[256 * 1024];
    struct pollfd pf[MAX_PEERS];

    for (size_t i = 0; i < sizeof(filler); i++) {
        filler[i] = (uint8_t)(i * 7 + 3);
    }
    while (now_ms() < deadline) {
        unsigned active = 0;
        for (unsigned i = 0; i < npeers; i++) {
            struct peer *p = &peers[i];
            pf[i].fd = -1;
            pf[i].events = POLLOUT;
            if (p->closed != 0 || p->sent >= p->target) {
                continue;
            }
            for (int k = 0; k < 16 && p->sent < p->target; k++) {
                size_t want = p->target - p->sent;
                ssize_t n;
                if (want > sizeof(filler)) {
                    want = sizeof(filler);
                }
                n = send(p->fd, filler, want, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n > 0) {
                    p->sent += (uint64_t)n;
                    continue;
                }
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    break;
                }
                if (n < 0 && errno == EINTR) {
                    continue;
                }
                p->closed = now_ms();
                break;
            }
            if (p->closed == 0 && p->sent < p->target) {
                pf[i].fd = p->fd;
                active++;
            }
        }
        if (active == 0) {
            break;
        }
        (void)poll(pf, npeers, 50);
    }
}

static void scenario_partial(void)
{
    const char *sc = "partial";
    unsigned m = cfg.max_conn > 8 ? cfg.max_conn - 8 : 1;
    unsigned pushers = cfg.defaults ? 16 : 8;
    uint64_t push_each =
        cfg.defaults ? DECLARED - 1024u * 1024u : 24u * 1024u * 1024u;
    long long push_s = cfg.defaults ? 15 : 4;
    unsigned connected, closed = 0;
    uint64_t rss_a, rss_b, total = 0;
    int fds;
    struct probe_stats st;
    struct wbuf rec;

    if (m > 128) {
        m = 128;
    }
    /* 3a: m records declaring 64 MiB, 4 KiB of each sent. */
    printf("# scenario %s: %u records declaring %u MiB, 4 KiB of each sent\n",
           sc, m, DECLARED >> 20);
    mon_begin(&srv_main);
    probe_begin(cfg.port);
    connected = peers_open(m, cfg.port, 0, 0);
    for (unsigned i = 0; i < npeers; i++) {
        static const enum cred kinds[] = {CRED_GSS_DATA, CRED_GSS_INIT,
                                          CRED_NONE};
        enum cred k = kinds[i % 3];
        if (peers[i].fd < 0) {
            continue;
        }
        call_header(&rec, DECLARED, 2, ECHO_PROG,
                    k == CRED_GSS_INIT ? ECHO_PROC_NULL : ECHO_PROC_SINK, k);
        /* The argument: an opaque filling the rest of the record. */
        w32(&rec, body_of(&rec, DECLARED) - 4);
        wrandom(&rec, 4096);
        if (!send_small(peers[i].fd, rec.p, rec.len, 1000)) {
            peers[i].closed = now_ms();
        }
    }
    sleep_ms(1000);
    peers_poll();
    mon_get(&srv_main, &rss_a, &fds);
    for (unsigned i = 0; i < npeers; i++) {
        closed += peers[i].closed != 0;
    }
    cell(rss_a <= rss_bound(&srv_main),
         "partial: records declaring 64 MiB with 4 KiB sent: RSS does not "
         "grow by the declared sizes",
         "%u records declaring %u MiB: RSS max %.1f MiB (base %.1f, bound "
         "%.1f)",
         m, DECLARED >> 20, rss_a / MIB, srv_main.rss_base / MIB,
         rss_bound(&srv_main) / MIB);
    printf("# figure partial-declared: %u connections declaring %u MiB "
           "(%.0f MiB in all), 4 KiB sent: RSS +%.1f MiB, %u closed by the "
           "server within 1 s, %u connected\n",
           m, DECLARED >> 20, (double)m * (DECLARED >> 20),
           rss_a > srv_main.rss_base ? (rss_a - srv_main.rss_base) / MIB : 0.0,
           closed, connected);
    peers_close_all();
    settle(&srv_main);

    /* 3b: a few peers push most of such a record (memory pinned by
     * half-sent records). */
    printf("# scenario %s: %u peers pushing %.0f MiB each of unauthenticated "
           "%u MiB records\n",
           sc, pushers, push_each / MIB, DECLARED >> 20);
    connected = peers_open(pushers, cfg.port, 0, 0);
    for (unsigned i = 0; i < npeers; i++) {
        enum cred k = (i % 2) != 0 ? CRED_GSS_INIT : CRED_GSS_DATA;
        if (peers[i].fd < 0) {
            continue;
        }
        call_header(&rec, DECLARED, 2, ECHO_PROG,
                    k == CRED_GSS_INIT ? ECHO_PROC_NULL : ECHO_PROC_SINK, k);
        w32(&rec, body_of(&rec, DECLARED) - 4);
        if (!send_small(peers[i].fd, rec.p, rec.len, 1000)) {
            peers[i].closed = now_ms();
        }
        peers[i].target = push_each;
    }
    push_peers(now_ms() + push_s * 1000);
    sleep_ms(500); /* what the server read, it holds now */
    peers_poll();
    mon_get(&srv_main, &rss_b, &fds);
    closed = 0;
    for (unsigned i = 0; i < npeers; i++) {
        total += peers[i].sent;
        closed += peers[i].closed != 0;
    }
    st = probe_end();
    cell(rss_b <= rss_bound(&srv_main),
         "partial: peers pushing unauthenticated 64 MiB records: RSS stays "
         "under base + unauth budget + reply budget + slack",
         "%u peers sent %.0f MiB: RSS max %.1f MiB (base %.1f, bound %.1f)",
         pushers, total / MIB, rss_b / MIB, srv_main.rss_base / MIB,
         rss_bound(&srv_main) / MIB);
    probe_cell(&st, sc);
    resource_cell(&srv_main, sc);
    printf("# figure finding-3 (unauthenticated records): %u peers, each a "
           "%u MiB record, %.0f MiB sent in all (into the sockets): RSS "
           "+%.1f MiB (max %.1f); %u of %u closed by the server; legitimate "
           "client %u/%u, max %lld ms\n",
           pushers, DECLARED >> 20, total / MIB,
           rss_b > srv_main.rss_base ? (rss_b - srv_main.rss_base) / MIB : 0.0,
           rss_b / MIB, closed, pushers, st.served, st.tries, st.max_ms);
    peers_close_all();
    settle(&srv_main);

    /* 3c: the same against the sys server with AUTH_SYS SINK calls, which
     * it serves, so must take in whole: what the unauth budget is for. */
    if (srv_sys.pid <= 0) {
        return;
    }
    printf("# scenario %s: %u peers pushing %.0f MiB each of AUTH_SYS SINK "
           "records declaring %u MiB to the sys server\n",
           sc, pushers, push_each / MIB, DECLARED >> 20);
    mon_begin(&srv_sys);
    probe_begin(cfg.sys_port);
    connected = peers_open(pushers, cfg.sys_port, 0, 0);
    for (unsigned i = 0; i < npeers; i++) {
        if (peers[i].fd < 0) {
            continue;
        }
        call_header(&rec, DECLARED, 2, ECHO_PROG, ECHO_PROC_SINK, CRED_SYS);
        w32(&rec, body_of(&rec, DECLARED) - 4);
        if (!send_small(peers[i].fd, rec.p, rec.len, 1000)) {
            peers[i].closed = now_ms();
        }
        peers[i].target = push_each;
    }
    push_peers(now_ms() + push_s * 1000);
    sleep_ms(500);
    peers_poll();
    mon_get(&srv_sys, &rss_b, &fds);
    closed = 0;
    total = 0;
    for (unsigned i = 0; i < npeers; i++) {
        total += peers[i].sent;
        closed += peers[i].closed != 0;
    }
    st = probe_end();
    cell(rss_b <= rss_bound(&srv_sys),
         "partial: AUTH_SYS peers pushing 64 MiB SINK records (sys server): "
         "RSS stays under base + unauth budget + reply budget + slack",
         "%u peers sent %.0f MiB: RSS max %.1f MiB (base %.1f, bound %.1f)",
         pushers, total / MIB, rss_b / MIB, srv_sys.rss_base / MIB,
         rss_bound(&srv_sys) / MIB);
    probe_cell(&st, "partial (sys server)");
    resource_cell(&srv_sys, "partial (sys server)");
    printf("# figure finding-3b (AUTH_SYS records, sys server): %u peers, "
           "each a %u MiB SINK record, %.0f MiB sent in all: RSS +%.1f MiB "
           "(max %.1f); %u of %u closed by the server; legitimate client "
           "%u/%u, max %lld ms\n",
           pushers, DECLARED >> 20, total / MIB,
           rss_b > srv_sys.rss_base ? (rss_b - srv_sys.rss_base) / MIB : 0.0,
           rss_b / MIB, closed, pushers, st.served, st.tries, st.max_ms);
    peers_close_all();
    settle(&srv_sys);
}

/* ---- scenario 4: a peer that never reads a large reply ---- */

/* Read a reply's first words: 1 denied, 0 accepted (accept_stat in
 * *stat), -1 the connection closed, -2 nothing in time. */
static int read_reply_head(int fd, int timeout_ms, uint32_t *stat)
{
    uint8_t b[28];
    size_t got = 0;
    long long end = now_ms() + timeout_ms;

    /* mark, xid, REPLY, reply_stat; denied: reject_stat (AUTH_ERROR's
     * reply ends 4 bytes later); accepted: verifier flavour, length (0,
     * AUTH_NONE), accept_stat. */
    while (got < sizeof(b)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long long left = end - now_ms();
        ssize_t n;
        if (got >= 20 && b[15] == 1) {
            *stat = ((uint32_t)b[16] << 24) | ((uint32_t)b[17] << 16) |
                    ((uint32_t)b[18] << 8) | b[19];
            return 1;
        }
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
            return -2;
        }
        n = recv(fd, b + got, sizeof(b) - got, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            return -1;
        }
        if (n > 0) {
            got += (size_t)n;
        }
    }
    if (b[15] == 1) {
        *stat = ((uint32_t)b[16] << 24) | ((uint32_t)b[17] << 16) |
                ((uint32_t)b[18] << 8) | b[19];
        return 1;
    }
    *stat = ((uint32_t)b[24] << 24) | ((uint32_t)b[25] << 16) |
            ((uint32_t)b[26] << 8) | b[27];
    return 0;
}

/* Read what is there, up to cap bytes or timeout_ms: true if the stream
 * ended (EOF, reset) before cap. */
static bool drain_to_end(int fd, uint64_t cap, int timeout_ms, uint64_t *got)
{
    static uint8_t buf[1 << 16];
    long long end = now_ms() + timeout_ms;

    *got = 0;
    while (*got < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long long left = end - now_ms();
        ssize_t n;
        if (left <= 0) {
            return false;
        }
        if (poll(&p, 1, (int)left) <= 0) {
            continue;
        }
        n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0) {
            return true;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                continue;
            }
            return true;
        }
        *got += (uint64_t)n;
    }
    return false;
}

static void scenario_unread(void)
{
    const char *sc = "unread";
    unsigned k = 4, calls = cfg.defaults ? 1 : 3;
    uint32_t size = cfg.defaults ? DECLARED : 16u * 1024u * 1024u;
    unsigned dropped = 0, refused = 0, full = 0, silent = 0, connected;
    uint64_t rss, rss_default = 0;
    int fds, r;
    long long t_sent, back_at = -1, wait_end;
    struct probe_stats st;
    struct wbuf rec;
    uint32_t stat = 0;
    int fd;

    /* 4a, against the default server: AUTH_SYS is not served. */
    call_header(&rec, 0, 2, ECHO_PROG, ECHO_PROC_SOURCE, CRED_SYS);
    w32(&rec, DECLARED);
    rec.p[0] = 0x80;
    rec.p[1] = 0;
    rec.p[2] = (uint8_t)((rec.len - 4) >> 8);
    rec.p[3] = (uint8_t)(rec.len - 4);
    printf("# scenario %s: a %zu-byte AUTH_SYS SOURCE call for %u MiB to the "
           "default server\n",
           sc, rec.len - 4, DECLARED >> 20);
    mon_begin(&srv_main);
    fd = connect_to(cfg.port, peer_src(0), 4096, 2000);
    r = fd < 0 ? -1 : send_small(fd, rec.p, rec.len, 1000) ? 0 : -1;
    if (r == 0) {
        r = read_reply_head(fd, 2000, &stat);
    }
    sleep_ms(500);
    mon_get(&srv_main, &rss_default, &fds);
    cell(r == 1 || r == -1,
         "unread: the default server (no --sec) refuses an AUTH_SYS SOURCE "
         "call",
         "%s",
         r == 0    ? "it was accepted (AUTH_SYS served by default)"
         : r == -2 ? "no reply within 2 s"
                   : "?");
    printf("# figure finding-2a (default --sec): a %zu-byte AUTH_SYS SOURCE "
           "call for %u MiB: %s; RSS +%.1f MiB\n",
           rec.len - 4, DECLARED >> 20,
           r == 1    ? "denied"
           : r == 0  ? "accepted"
           : r == -1 ? "connection closed"
                     : "no answer",
           rss_default > srv_main.rss_base
               ? (rss_default - srv_main.rss_base) / MIB
               : 0.0);
    if (fd >= 0) {
        close(fd);
    }
    settle(&srv_main);

    if (srv_sys.pid <= 0) {
        skip_cell("unread: peers that never read SOURCE replies",
                  "no sys server (--sys-port)");
        return;
    }
    /* 4b, against the sys server: k peers, calls SOURCE calls each,
     * never read. */
    printf("# scenario %s: %u peers x %u SOURCE calls for %.0f MiB (AUTH_SYS) "
           "to the sys server, never read; send deadline %u s\n",
           sc, k, calls, size / MIB, cfg.send_s);
    /* A SOURCE call's results exist in its worker before the reply budget
     * can be asked (the reply's size is known only then): up to one
     * call's results per worker, beyond the budgets. */
    srv_sys.allow =
        (uint64_t)(cfg.threads < k * calls ? cfg.threads : k * calls) * size;
    mon_begin(&srv_sys);
    probe_begin(cfg.sys_port);
    connected = peers_open(k, cfg.sys_port, 0, 4096);
    for (unsigned i = 0; i < npeers; i++) {
        if (peers[i].fd < 0) {
            continue;
        }
        for (unsigned c = 0; c < calls; c++) {
            call_header(&rec, 0, 2, ECHO_PROG, ECHO_PROC_SOURCE, CRED_SYS);
            w32(&rec, size);
            rec.p[0] = 0x80;
            rec.p[1] = 0;
            rec.p[2] = (uint8_t)((rec.len - 4) >> 8);
            rec.p[3] = (uint8_t)(rec.len - 4);
            if (!send_small(peers[i].fd, rec.p, rec.len, 1000)) {
                break;
            }
        }
    }
    t_sent = now_ms();
    wait_end = t_sent + (long long)cfg.send_s * 1000 + 2500;
    sleep_ms(300);
    while (now_ms() < wait_end) {
        int f = count_fds(srv_sys.pid);
        if (f >= 0 && f <= srv_sys.fds_base) {
            back_at = now_ms() - t_sent;
            break;
        }
        sleep_ms(50);
    }
    if (back_at >= 0) {
        sleep_ms(200);
    }
    mon_get(&srv_sys, &rss, &fds);
    st = probe_end();
    /* Now read: the first reply's head says whether the call was served
     * (SUCCESS: the rest must end early, the connection dropped) or
     * refused (denied, or another accept_stat); nothing at all and the
     * connection closed: dropped. */
    for (unsigned i = 0; i < npeers; i++) {
        uint64_t got = 0;
        uint32_t astat = 0;
        int head;
        if (peers[i].fd < 0) {
            continue;
        }
        head = read_reply_head(peers[i].fd, 1500, &astat);
        if (head == -1) {
            dropped++;
        } else if (head == 1 || (head == 0 && astat != 0)) {
            refused++;
        } else if (head == -2) {
            silent++;
        } else if (drain_to_end(peers[i].fd, (uint64_t)calls * size, 1500,
                                &got)) {
            dropped++;
        } else if (got + 24 >= (uint64_t)calls * size) {
            full++;
        } else {
            silent++;
        }
    }
    cell(connected == k && dropped + refused == k,
         "unread: peers that never read SOURCE replies are dropped at the "
         "send deadline (or their calls refused)",
         "of %u: %u dropped within %u s + 2.5 s, %u refused; %u got every "
         "reply in full when they read afterwards, %u neither",
         k, dropped, cfg.send_s, refused, full, silent);
    cell(rss <= rss_bound(&srv_sys),
         "unread: unread replies stay inside the reply budget (and one "
         "call's results per worker)",
         "RSS max %.1f MiB (base %.1f, bound %.1f with %.0f MiB for %u "
         "workers' results)",
         rss / MIB, srv_sys.rss_base / MIB, rss_bound(&srv_sys) / MIB,
         srv_sys.allow / MIB, cfg.threads);
    probe_cell(&st, sc);
    resource_cell(&srv_sys, sc);
    printf("# figure finding-2 (unread SOURCE replies, AUTH_SYS allowed): %u "
           "peers x %u calls x %.0f MiB: RSS +%.1f MiB (max %.1f); dropped "
           "%u/%u, refused %u/%u (server descriptors back to base after "
           "%s%.1f s); legitimate client %u/%u, max %lld ms\n",
           k, calls, size / MIB,
           rss > srv_sys.rss_base ? (rss - srv_sys.rss_base) / MIB : 0.0,
           rss / MIB, dropped, k, refused, k, back_at < 0 ? "more than " : "",
           (back_at < 0 ? wait_end - t_sent : back_at) / 1000.0, st.served,
           st.tries, st.max_ms);
    peers_close_all();
    settle(&srv_sys);
    srv_sys.allow = 0;
}

/* ---- scenario 5: garbage at full speed ---- */

struct garbage_thread {
    pthread_t tid;
    unsigned src;
    long long end;
    unsigned long records, reconnects;
};

static void garbage_record(struct wbuf *b, unsigned kind)
{
    uint32_t body;

    switch (kind % 6) {
    case 0: /* random bytes */
        b->len = 0;
        w32(b, 0);
        wrandom(b, 40u + rnd() % 360u);
        break;
    case 1: /* RPC version 3 */
        call_header(b, 0, 3, ECHO_PROG, ECHO_PROC_NULL, CRED_NONE);
        break;
    case 2: /* a program nobody serves */
        call_header(b, 0, 2, 0x31234567u, ECHO_PROC_NULL, CRED_GSS_DATA);
        break;
    case 3: /* RPCSEC_GSS DATA, a handle nobody made */
        call_header(b, 0, 2, ECHO_PROG, ECHO_PROC_NULL, CRED_GSS_DATA);
        break;
    case 4: /* AUTH_SYS, not served by default */
        call_header(b, 0, 2, ECHO_PROG, ECHO_PROC_NULL, CRED_SYS);
        break;
    default: /* a REPLY sent to a server */
        call_header(b, 0, 2, ECHO_PROG, ECHO_PROC_NULL, CRED_NONE);
        b->p[11] = 1;
        break;
    }
    body = (uint32_t)(b->len - 4);
    b->p[0] = 0x80;
    b->p[1] = (uint8_t)(body >> 16);
    b->p[2] = (uint8_t)(body >> 8);
    b->p[3] = (uint8_t)body;
}

static void *garbage_main(void *arg)
{
    struct garbage_thread *g = arg;
    uint8_t sink[4096];
    struct wbuf rec;
    int fd = -1;
    unsigned kind = 0;

    rnd_state = 0x9e3779b9u ^ g->src;
    while (now_ms() < g->end) {
        ssize_t n;
        if (fd < 0) {
            if (g->reconnects >= 5000) {
                break;
            }
            fd = connect_to(cfg.port, g->src, 0, 500);
            g->reconnects++;
            if (fd < 0) {
                sleep_ms(5);
                continue;
            }
        }
        garbage_record(&rec, kind++);
        if (!send_small(fd, rec.p, rec.len, 200)) {
            close(fd);
            fd = -1;
            continue;
        }
        g->records++;
        /* Whatever the server answers, read and dropped. */
        while ((n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0) {
        }
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                       errno != EINTR)) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return NULL;
}

static void scenario_garbage(void)
{
    const char *sc = "garbage";
    struct garbage_thread g[4];
    unsigned long records = 0, reconnects = 0;
    long long t0, dur_ms = 2000, after_ms = 1200;
    long off;
    unsigned lines, bound, intervals;
    struct probe_stats st;

    printf("# scenario %s: %zu connections sending garbage records at full "
           "speed for %.1f s (log interval %u s)\n",
           sc, sizeof(g) / sizeof(g[0]), dur_ms / 1000.0, cfg.log_interval_s);
    mon_begin(&srv_main);
    off = log_size();
    probe_begin(cfg.port);
    t0 = now_ms();
    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        memset(&g[i], 0, sizeof(g[i]));
        g[i].src = 100 + (unsigned)i;
        g[i].end = t0 + dur_ms;
        if (pthread_create(&g[i].tid, NULL, garbage_main, &g[i]) != 0) {
            g[i].tid = pthread_self();
        }
    }
    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        if (!pthread_equal(g[i].tid, pthread_self())) {
            pthread_join(g[i].tid, NULL);
        }
        records += g[i].records;
        reconnects += g[i].reconnects;
    }
    sleep_ms(after_ms);
    st = probe_end();
    /* A few lines per cause per interval: at most 8 causes, 3 lines each,
     * for every interval the window touches. */
    intervals = (unsigned)((dur_ms + after_ms) / 1000 /
                           (cfg.log_interval_s > 0 ? cfg.log_interval_s : 1)) +
                2;
    bound = 3 * 8 * intervals;
    lines = log_lines_since(off, 4, sc);
    cell(lines <= bound,
         "garbage: the server's log stays short (refusals coalesced per "
         "cause per interval)",
         "%u log lines for %lu garbage records in %.1f s (bound %u)", lines,
         records, (dur_ms + after_ms) / 1000.0, bound);
    probe_cell(&st, sc);
    resource_cell(&srv_main, sc);
    printf("# figure finding-4 (log lines): %lu garbage records on %lu "
           "connections in %.1f s: %u log lines in %.1f s (%.0f per s)\n",
           records, reconnects, dur_ms / 1000.0, lines,
           (dur_ms + after_ms) / 1000.0,
           lines / ((dur_ms + after_ms) / 1000.0));
    settle(&srv_main);
}

/* ---- scenario 6: the per-address cap ---- */

static void scenario_peraddr(void)
{
    const char *sc = "peraddr";
    unsigned n = cfg.per_addr + 4, kept = 0, refused = 0;

    if (n > cfg.max_conn) {
        skip_cell("peraddr: connections beyond --max-per-address are closed "
                  "at once",
                  "max-per-address + 4 is over max-connections");
        return;
    }
    printf("# scenario %s: %u connections from one address (cap %u)\n", sc, n,
           cfg.per_addr);
    mon_begin(&srv_main);
    for (unsigned i = 0; i < n; i++) {
        struct peer *p = &peers[npeers++];
        memset(p, 0, sizeof(*p));
        p->fd = connect_to(cfg.port, 200, 0, 2000);
        p->opened = now_ms();
        if (p->fd < 0) {
            p->closed = p->opened;
        }
        sleep_ms(2);
    }
    sleep_ms(300);
    peers_poll();
    for (unsigned i = 0; i < n; i++) {
        if (i < cfg.per_addr && peers[i].closed == 0) {
            kept++;
        }
        if (i >= cfg.per_addr && peers[i].closed != 0) {
            refused++;
        }
    }
    cell(kept == cfg.per_addr && refused == 4,
         "peraddr: connections beyond --max-per-address from one address are "
         "closed at once, those within kept",
         "of %u from one address (cap %u): %u of the first %u kept, %u of "
         "the 4 beyond closed within 0.3 s",
         n, cfg.per_addr, kept, cfg.per_addr, refused);
    resource_cell(&srv_main, sc);
    peers_close_all();
    settle(&srv_main);
}

/* ---- scenario 7: an authenticated connection left idle ---- */

static void scenario_idleauth(void)
{
    const char *sc = "idleauth";
    CLIENT *clnt = NULL;
    AUTH *auth = NULL;
    int fd = -1;
    long long ms, t0, closed_at = -1, check_open;
    char why[256];
    bool open_mid;

    if (cfg.conn_idle_s > 60) {
        skip_cell("idleauth: an authenticated idle connection is closed at "
                  "--conn-idle-timeout",
                  "conn-idle-timeout over a minute");
        return;
    }
    printf("# scenario %s: a krb5p client idle after one call "
           "(conn-idle-timeout %u s)\n",
           sc, cfg.conn_idle_s);
    if (!probe_once(cfg.port, &ms, why, sizeof(why), &clnt, &auth, &fd)) {
        cell(false, "idleauth: a krb5p connection for the idle check", "%s",
             why);
        return;
    }
    t0 = now_ms();
    check_open = (long long)cfg.first_record_s * 1000 + 1000;
    if (check_open > (long long)cfg.conn_idle_s * 1000 - 1000) {
        check_open = (long long)cfg.conn_idle_s * 1000 - 1000;
    }
    sleep_ms(check_open);
    open_mid = !peer_closed(fd);
    while (now_ms() < t0 + (long long)cfg.conn_idle_s * 1000 + 2000) {
        if (peer_closed(fd)) {
            closed_at = now_ms() - t0;
            break;
        }
        sleep_ms(50);
    }
    cell(
        open_mid && closed_at >= 0,
        "idleauth: an authenticated connection outlives the first-record "
        "deadline and is closed at --conn-idle-timeout",
        "open after %.1f s: %s; closed after %s%.1f s (conn-idle-timeout %u "
        "s)",
        check_open / 1000.0, open_mid ? "yes" : "no",
        closed_at < 0 ? "more than " : "",
        (closed_at < 0 ? (long long)cfg.conn_idle_s * 1000 + 2000 : closed_at) /
            1000.0,
        cfg.conn_idle_s);
    auth_destroy(auth);
    clnt_destroy(clnt);
}

/* ---- main ---- */

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) {
        return -1;
    }
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default:
        break;
    }
    if (*end != '\0') {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_unsigned(const char *s, unsigned *out)
{
    uint64_t v;

    if (parse_u64(s, &v) != 0 || v > 0x7fffffffu) {
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: test_hostile --port P --pid PID --log FILE "
            "--client-keytab FILE\n"
            "       [--sys-port P --sys-pid PID] [--principal NAME] "
            "[--target S@H]\n"
            "       [--threads N]"
            "\n"
            "       [--max-connections N] [--max-per-address N] "
            "[--unauth-budget B]\n"
            "       [--reply-budget B] [--first-record-timeout S] "
            "[--conn-idle-timeout S]\n"
            "       [--send-timeout S] [--log-interval S] [--defaults] "
            "[--no-plan]\n"
            "       [--only idle,slowloris,partial,unread,garbage,peraddr,"
            "idleauth]\n");
}

int main(int argc, char **argv)
{
    pthread_t mon_tid, probe_tid;
    struct probe_stats warm = {0};
    struct rlimit rl;
    unsigned pid = 0, sys_pid = 0;
    long long t_start = now_ms();
    int i;

    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;

        if (strcmp(o, "--defaults") == 0) {
            cfg.defaults = true;
            continue;
        }
        if (strcmp(o, "--no-plan") == 0) {
            cfg.no_plan = true;
            continue;
        }
        if (v == NULL) {
            usage();
            return 2;
        }
        if (strcmp(o, "--port") == 0) {
            bad = parse_unsigned(v, &cfg.port);
        } else if (strcmp(o, "--pid") == 0) {
            bad = parse_unsigned(v, &pid);
        } else if (strcmp(o, "--sys-port") == 0) {
            bad = parse_unsigned(v, &cfg.sys_port);
        } else if (strcmp(o, "--sys-pid") == 0) {
            bad = parse_unsigned(v, &sys_pid);
        } else if (strcmp(o, "--log") == 0) {
            cfg.log = v;
        } else if (strcmp(o, "--client-keytab") == 0) {
            cfg.keytab = v;
        } else if (strcmp(o, "--principal") == 0) {
            cfg.principal = v;
        } else if (strcmp(o, "--target") == 0) {
            cfg.target = v;
        } else if (strcmp(o, "--max-connections") == 0) {
            bad = parse_unsigned(v, &cfg.max_conn);
        } else if (strcmp(o, "--threads") == 0) {
            bad = parse_unsigned(v, &cfg.threads);
        } else if (strcmp(o, "--max-per-address") == 0) {
            bad = parse_unsigned(v, &cfg.per_addr);
        } else if (strcmp(o, "--unauth-budget") == 0) {
            bad = parse_u64(v, &cfg.unauth_budget);
        } else if (strcmp(o, "--reply-budget") == 0) {
            bad = parse_u64(v, &cfg.reply_budget);
        } else if (strcmp(o, "--first-record-timeout") == 0) {
            bad = parse_unsigned(v, &cfg.first_record_s);
        } else if (strcmp(o, "--conn-idle-timeout") == 0) {
            bad = parse_unsigned(v, &cfg.conn_idle_s);
        } else if (strcmp(o, "--send-timeout") == 0) {
            bad = parse_unsigned(v, &cfg.send_s);
        } else if (strcmp(o, "--log-interval") == 0) {
            bad = parse_unsigned(v, &cfg.log_interval_s);
        } else if (strcmp(o, "--only") == 0) {
            cfg.only = v;
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "test_hostile: bad option %s %s\n", o, v);
            usage();
            return 2;
        }
        i++;
    }
    if (cfg.port == 0 || pid == 0 || cfg.log == NULL || cfg.keytab == NULL ||
        cfg.max_conn == 0 || cfg.max_conn + 8 > MAX_PEERS ||
        cfg.per_addr == 0) {
        usage();
        return 2;
    }
    if (cfg.threads == 0) {
        /* The server's default: the CPU count, at least 2. */
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cfg.threads = ncpu < 2 ? 2 : (unsigned)ncpu;
    }
    cfg.pid = (pid_t)pid;
    cfg.sys_pid = (pid_t)sys_pid;
    srv_main.pid = cfg.pid;
    srv_main.port = cfg.port;
    if (cfg.sys_port != 0 && sys_pid != 0) {
        srv_sys.pid = cfg.sys_pid;
        srv_sys.port = cfg.sys_port;
    }
    signal(SIGPIPE, SIG_IGN);
    rnd_state ^= (uint32_t)getpid();
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
        rl.rlim_cur < (rlim_t)cfg.max_conn + 256) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        (void)getrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)cfg.max_conn + 64) {
            char why[128];

            snprintf(why, sizeof(why),
                     "descriptor limit %llu is under max-connections %u + 64 "
                     "(ulimit -n)",
                     (unsigned long long)rl.rlim_cur, cfg.max_conn);
            skip_cell("hostile peers", why);
            if (cfg.no_plan) {
                printf("# cells %d failed %d\n", g_cells, g_failed);
                return 0;
            }
            return tap_finish();
        }
    }
    printf("# limits: threads %u, max-connections %u, max-per-address %u, "
           "unauth-budget "
           "%.1f MiB, reply-budget %.1f MiB, first-record %u s, conn-idle "
           "%u s, send %u s, log-interval %u s%s%s\n",
           cfg.threads, cfg.max_conn, cfg.per_addr, cfg.unauth_budget / MIB,
           cfg.reply_budget / MIB, cfg.first_record_s, cfg.conn_idle_s,
           cfg.send_s, cfg.log_interval_s, cfg.defaults ? " (defaults)" : "",
           UNDER_ASAN ? "; AddressSanitizer build: RSS slack +768 MiB" : "");

    /* libtirpc makes its AUTH_NONE once per process, racily: first. */
    (void)authnone_create();
    pthread_create(&mon_tid, NULL, mon_main, NULL);
    pthread_create(&probe_tid, NULL, probe_main, NULL);

    /* Warm up each server with a probe (keytab read, first context), then
     * take the bases. */
    {
        struct server_mon *s[2] = {&srv_main, &srv_sys};
        for (int k = 0; k < 2; k++) {
            long long ms;
            char why[256];
            bool ok;
            if (s[k]->pid <= 0) {
                continue;
            }
            ok =
                probe_once(s[k]->port, &ms, why, sizeof(why), NULL, NULL, NULL);
            stats_add(&warm, ok, ms, why);
            sleep_ms(200);
            s[k]->rss_base = read_rss(s[k]->pid);
            s[k]->fds_base = count_fds(s[k]->pid);
            printf("# %s: pid %ld port %u, base RSS %.1f MiB, %d descriptors; "
                   "first krb5p call %s in %lld ms\n",
                   s[k]->name, (long)s[k]->pid, s[k]->port,
                   s[k]->rss_base / MIB, s[k]->fds_base,
                   ok ? "served" : "FAILED", ms);
        }
    }
    cell(warm.served + warm.slow == warm.tries && warm.tries > 0 &&
             srv_main.rss_base > 0 && srv_main.fds_base > 0,
         "setup: a krb5p client is served by each server before any attack, "
         "its RSS and descriptors readable",
         "%u/%u probes served; last: %s; RSS %.1f MiB, %d descriptors",
         warm.served + warm.slow, warm.tries, warm.last_err,
         srv_main.rss_base / MIB, srv_main.fds_base);

    if (wanted("idle")) {
        scenario_idle();
    }
    if (wanted("slowloris")) {
        scenario_slowloris();
    }
    if (wanted("partial")) {
        scenario_partial();
    }
    if (wanted("unread")) {
        scenario_unread();
    }
    if (wanted("garbage")) {
        scenario_garbage();
    }
    if (wanted("peraddr")) {
        scenario_peraddr();
    }
    if (wanted("idleauth")) {
        scenario_idleauth();
    }

    cell(process_alive(srv_main.pid) &&
             (srv_sys.pid <= 0 || process_alive(srv_sys.pid)),
         "the servers are still running after every scenario",
         "default server %s, sys server %s",
         process_alive(srv_main.pid) ? "running" : "GONE",
         srv_sys.pid <= 0             ? "-"
         : process_alive(srv_sys.pid) ? "running"
                                      : "GONE");

    pthread_mutex_lock(&pr_lock);
    pr_quit = true;
    pthread_cond_broadcast(&pr_cond);
    pthread_mutex_unlock(&pr_lock);
    pthread_join(probe_tid, NULL);
    mon_quit = 1;
    pthread_join(mon_tid, NULL);
    printf("# test_hostile: %.1f s\n", (now_ms() - t_start) / 1000.0);
    if (cfg.no_plan) {
        printf("# cells %d failed %d\n", g_cells, g_failed);
        fflush(stdout);
        return g_failed > 0 ? 1 : 0;
    }
    return tap_finish();
}
