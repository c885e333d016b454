/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * inetd127: a one-service inetd on 127.0.0.1 for the interposer tests.
 *
 *   inetd127 --port PORT -- PROGRAM ARGS...
 *
 * Listens on 127.0.0.1:PORT (0: any free port), prints
 * "listening on 127.0.0.1:PORT" on stdout, and for every accepted
 * connection forks a child whose fd 0 and 1 are the connection and which
 * execs PROGRAM ARGS (fd 2 is inherited).  MIT's gss-server binds every
 * address when it listens itself; with -inetd it serves the connection on
 * fd 0 instead, so only the loopback address is ever exposed.
 *
 * Each child's start and exit status are printed on stdout
 * ("pid N started", "pid N exited with status S" or "... killed by
 * signal S") so that a test can check the server side too.  On SIGTERM
 * (or SIGINT) the children still running get SIGTERM, are reaped, and
 * inetd127 exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The children not yet reaped: enough for the test's few clients. */
#define MAX_CHILDREN 256

static pid_t children[MAX_CHILDREN];
static size_t n_children;

static volatile sig_atomic_t got_term;
static volatile sig_atomic_t got_child;

static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void on_child(int sig)
{
    (void)sig;
    got_child = 1;
}

static void usage(void)
{
    fprintf(stderr, "usage: inetd127 --port PORT -- PROGRAM [ARGS...]\n");
    exit(2);
}

static void forget_child(pid_t pid)
{
    for (size_t i = 0; i < n_children; i++) {
        if (children[i] == pid) {
            children[i] = children[--n_children];
            return;
        }
    }
}

static void report(pid_t pid, int status)
{
    if (WIFEXITED(status)) {
        printf("pid %ld exited with status %d\n", (long)pid,
               WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        printf("pid %ld killed by signal %d\n", (long)pid, WTERMSIG(status));
    }
    fflush(stdout);
}

/* Reap every child that has exited; with block, wait for all of them. */
static void reap(int block)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, block ? 0 : WNOHANG);
        if (pid < 0 && errno == EINTR) {
            continue;
        }
        if (pid <= 0) {
            return;
        }
        forget_child(pid);
        report(pid, status);
    }
}

static int parse_port(const char *s, int *port)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 65535) {
        return -1;
    }
    *port = (int)v;
    return 0;
}

static int listen_loopback(int port)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        perror("inetd127: socket");
        return -1;
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((unsigned short)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
        perror("inetd127: bind 127.0.0.1");
        close(fd);
        return -1;
    }
    if (listen(fd, 16) != 0) {
        perror("inetd127: listen");
        close(fd);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
        perror("inetd127: getsockname");
        close(fd);
        return -1;
    }
    printf("listening on 127.0.0.1:%u\n", (unsigned)ntohs(sin.sin_port));
    fflush(stdout);
    return fd;
}

/* In the child: the connection on fd 0 and 1, signals as they were. */
static void exec_child(int conn, const sigset_t *orig_mask, char **argv)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGCHLD, &dfl, NULL);
    sigaction(SIGPIPE, &dfl, NULL); /* SIG_IGN would survive the exec */
    sigprocmask(SIG_SETMASK, orig_mask, NULL);
    if (dup2(conn, 0) < 0 || dup2(conn, 1) < 0) {
        perror("inetd127: dup2");
        _exit(127);
    }
    if (conn > 1) {
        close(conn);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "inetd127: exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void serve_one(int lfd, const sigset_t *orig_mask, char **argv)
{
    int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    pid_t pid;

    if (conn < 0) {
        if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
            perror("inetd127: accept");
        }
        return;
    }
    if (n_children == MAX_CHILDREN) {
        fprintf(stderr, "inetd127: too many children, connection dropped\n");
        close(conn);
        return;
    }
    pid = fork();
    if (pid < 0) {
        perror("inetd127: fork");
        close(conn);
        return;
    }
    if (pid == 0) {
        close(lfd);
        exec_child(conn, orig_mask, argv);
    }
    close(conn);
    children[n_children++] = pid;
    printf("pid %ld started\n", (long)pid);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    sigset_t block, orig_mask;
    int port = -1;
    int lfd;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            if (parse_port(argv[++i], &port) != 0) {
                usage();
            }
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            usage();
        }
    }
    if (port < 0 || i >= argc) {
        usage();
    }

    /*
     * SIGTERM and SIGCHLD stay blocked except inside pselect(), so that
     * one arriving between the flag checks and the wait cannot be lost.
     */
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig_mask);
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    lfd = listen_loopback(port);
    if (lfd < 0) {
        return 1;
    }

    while (!got_term) {
        fd_set rfds;
        int n;

        if (got_child) {
            got_child = 0;
            reap(0);
        }
        FD_ZERO(&rfds);
        FD_SET(lfd, &rfds);
        n = pselect(lfd + 1, &rfds, NULL, NULL, NULL, &orig_mask);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("inetd127: pselect");
            break;
        }
        if (n > 0 && FD_ISSET(lfd, &rfds)) {
            serve_one(lfd, &orig_mask, argv + i);
        }
    }

    close(lfd);
    for (size_t c = 0; c < n_children; c++) {
        kill(children[c], SIGTERM);
    }
    reap(1);
    return got_term ? 0 : 1;
}
