/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * gk5 demo's Heimdal block: Heimdal's GSS-API as a second
 * establishing peer against the demo's own realm.  Heimdal and MIT export
 * the same gss_* names, so no program links both (docs/design.md,
 * "Heimdal"): this one runs tests/heimdal/test_heimdal --quick (Heimdal +
 * libgk5), which starts mit_peer (MIT + gk5) itself, and sums up its TAP
 * output: one row per case (the cell names before " | "), then the
 * differences from MIT it printed at the end.
 *
 * The peer is GK5_HEIMDAL_PEER (the path of test_heimdal; mit_peer beside
 * it), else the build tree's, found from /proc/self/exe as
 * <dir of gk5>/../tests/heimdal/test_heimdal.  It gets the realm the way
 * gk5 realm run hands it one: KRB5_CONFIG (set for this process
 * by gk5_mit_realm_start) and GK5_REALM_DIR (client.keytab,
 * service.keytab; the principals are the fixed GK5_MIT_CLIENT and
 * GK5_MIT_SERVICE).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

#define HEIMDAL_PEER_ENV "GK5_HEIMDAL_PEER"
#define HEIMDAL_DEADLINE_MS 30000 /* --quick takes well under 2 s */
#define HEIMDAL_MAX_CASES 16
#define HEIMDAL_MAX_DIFFS 24
#define HEIMDAL_LINE 2048

/* One case of test_heimdal: the cells whose names share a label. */
struct heimdal_case {
    char label[256];
    int ok, failed, skipped;
    char first_failure[HEIMDAL_LINE]; /* its name after " | ", and why */
};

struct heimdal_run {
    char version[64];
    struct heimdal_case cases[HEIMDAL_MAX_CASES];
    int n_cases;
    int cells, plan; /* plan -1 until "1..N" */
    char diffs[HEIMDAL_MAX_DIFFS][HEIMDAL_LINE];
    int n_diffs;
    bool in_diffs;
    struct heimdal_case *why_for; /* the last "not ok": its "# why" next */
    char bail[HEIMDAL_LINE];
};

static bool is_program(const char *path)
{
    return access(path, X_OK) == 0;
}

/* test_heimdal and mit_peer: 1 if found, 0 if not available (why says
 * what), -1 if GK5_HEIMDAL_PEER names something that cannot run. */
static int find_peer(char *test, char *mit, size_t len, char *why,
                     size_t why_len)
{
    const char *env = getenv(HEIMDAL_PEER_ENV);
    char exe[PATH_MAX];
    ssize_t n;

    if (env != NULL && env[0] != '\0') {
        const char *slash = strrchr(env, '/');
        int dir_len = slash == NULL ? 1 : (int)(slash - env);
        if (snprintf(test, len, "%s", env) >= (int)len ||
            snprintf(mit, len, "%.*s/mit_peer", dir_len,
                     slash == NULL ? "." : env) >= (int)len) {
            snprintf(why, why_len, "%s: the path is too long",
                     HEIMDAL_PEER_ENV);
            return -1;
        }
        if (!is_program(test) || !is_program(mit)) {
            snprintf(why, why_len,
                     "%s names test_heimdal, with mit_peer beside it: %s is "
                     "not a program",
                     HEIMDAL_PEER_ENV, is_program(test) ? mit : test);
            return -1;
        }
        return 1;
    }
    snprintf(why, why_len,
             "tests/heimdal not built: apt-get install "
             "heimdal-multidev libgssapi3-heimdal");
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        return 0;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL) {
        return 0;
    }
    *slash = '\0';
    if (snprintf(test, len, "%s/../tests/heimdal/test_heimdal", exe) >=
            (int)len ||
        snprintf(mit, len, "%s/../tests/heimdal/mit_peer", exe) >= (int)len) {
        return 0;
    }
    return is_program(test) && is_program(mit) ? 1 : 0;
}

static struct heimdal_case *case_for(struct heimdal_run *run, const char *label,
                                     size_t label_len)
{
    struct heimdal_case *c;

    for (int i = 0; i < run->n_cases; i++) {
        c = &run->cases[i];
        if (strlen(c->label) == label_len &&
            memcmp(c->label, label, label_len) == 0) {
            return c;
        }
    }
    if (run->n_cases == HEIMDAL_MAX_CASES) {
        return &run->cases[HEIMDAL_MAX_CASES - 1]; /* lumped together */
    }
    c = &run->cases[run->n_cases++];
    snprintf(c->label, sizeof(c->label), "%.*s", (int)label_len, label);
    return c;
}

/* "ok N - LABEL | what", "not ok N - LABEL | what" (its "# why" on the
 * next line) or "ok N - LABEL # SKIP why". */
static void take_cell(struct heimdal_run *run, const char *line, bool ok)
{
    const char *name = strstr(line, " - ");
    const char *bar, *skip;
    struct heimdal_case *c;

    run->cells++;
    run->why_for = NULL;
    name = name == NULL ? "?" : name + 3;
    skip = strstr(name, " # SKIP");
    bar = strstr(name, " | ");
    size_t label_len = bar != NULL    ? (size_t)(bar - name)
                       : skip != NULL ? (size_t)(skip - name)
                                      : strlen(name);
    c = case_for(run, name, label_len);
    if (skip != NULL) {
        c->skipped++;
    } else if (ok) {
        c->ok++;
    } else if (c->failed++ == 0) {
        snprintf(c->first_failure, sizeof(c->first_failure), "%s",
                 bar != NULL ? bar + 3 : name);
        run->why_for = c;
    }
}

static void take_line(struct heimdal_run *run, const char *line)
{
    static const char diffs_start[] =
        "# What Heimdal did differently from MIT:";
    static const char diff_item[] = "#   - ";
    static const char version[] = "# Heimdal ";

    if (strncmp(line, "ok ", 3) == 0) {
        take_cell(run, line, true);
    } else if (strncmp(line, "not ok ", 7) == 0) {
        take_cell(run, line, false);
    } else if (strncmp(line, "1..", 3) == 0) {
        run->plan = atoi(line + 3);
    } else if (strncmp(line, "Bail out!", 9) == 0) {
        snprintf(run->bail, sizeof(run->bail), "%s", line);
    } else if (line[0] == '#') {
        if (run->why_for != NULL && line[1] == ' ') {
            size_t used = strlen(run->why_for->first_failure);
            snprintf(run->why_for->first_failure + used,
                     sizeof(run->why_for->first_failure) - used, ": %s",
                     line + 2);
            run->why_for = NULL;
        } else if (strncmp(line, version, sizeof(version) - 1) == 0 &&
                   run->version[0] == '\0' &&
                   strstr(line, "(pkg-config") != NULL) {
            const char *v = line + sizeof(version) - 1;
            snprintf(run->version, sizeof(run->version), "%.*s",
                     (int)strcspn(v, " "), v);
        } else if (strcmp(line, diffs_start) == 0) {
            run->in_diffs = true;
        } else if (run->in_diffs &&
                   strncmp(line, diff_item, sizeof(diff_item) - 1) == 0 &&
                   run->n_diffs < HEIMDAL_MAX_DIFFS) {
            snprintf(run->diffs[run->n_diffs++], HEIMDAL_LINE, "%s",
                     line + sizeof(diff_item) - 1);
        }
    }
}

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the child's lines until EOF; false if the deadline passed (or the
 * pipe failed) first. */
static bool read_lines(int fd, struct heimdal_run *run)
{
    char buf[HEIMDAL_LINE], chunk[4096];
    size_t used = 0;
    long deadline = now_ms() + HEIMDAL_DEADLINE_MS;

    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        long left = deadline - now_ms();
        if (left <= 0) {
            return false;
        }
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return false;
        }
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return false;
        }
        if (n == 0) {
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (chunk[i] == '\n') {
                buf[used] = '\0';
                take_line(run, buf);
                used = 0;
            } else if (used < sizeof(buf) - 1) {
                buf[used++] = chunk[i];
            }
        }
    }
    if (used > 0) {
        buf[used] = '\0';
        take_line(run, buf);
    }
    return true;
}

/* Words wrapped at 79 columns after a prefix, continued under it. */
static void print_wrapped(const char *prefix, const char *text)
{
    const size_t width = 79, indent = strlen(prefix);
    size_t col = indent;

    fputs(prefix, stdout);
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        if (col > indent && col + 1 + word > width) {
            printf("\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            putchar(' ');
            col++;
        }
        fwrite(text, 1, word, stdout);
        col += word;
        text += word;
        text += strspn(text, " ");
    }
    putchar('\n');
}

/* A label, "aes256-cts-hmac-sha1-96(18) Heimdal->MIT, gk5=Heimdal's
 * initiator (lucid)", as the columns enctype (once, as in the MIT table),
 * who established the context and which end gk5 takes. */
static void print_case(const struct heimdal_case *c, const char *prev_label)
{
    char enctype[64] = "", pair[64] = "", takes[192] = "";
    const char *rest = c->label;
    size_t et_len = strcspn(rest, " ");
    const char *paren = memchr(rest, '(', et_len);

    if (prev_label != NULL && strncmp(prev_label, rest, et_len) == 0 &&
        prev_label[et_len] == ' ') {
        enctype[0] = '\0';
    } else if (paren != NULL) {
        snprintf(enctype, sizeof(enctype), "%.*s %.*s", (int)(paren - rest),
                 rest, (int)(et_len - (size_t)(paren - rest)), paren);
    } else {
        snprintf(enctype, sizeof(enctype), "%.*s", (int)et_len, rest);
    }
    rest += et_len;
    rest += strspn(rest, " ");
    const char *gk5 = strstr(rest, ", gk5=");
    if (gk5 != NULL) {
        snprintf(pair, sizeof(pair), "%.*s", (int)(gk5 - rest), rest);
        snprintf(takes, sizeof(takes), "%s", gk5 + 6);
    } else {
        snprintf(pair, sizeof(pair), "%s", rest);
    }
    int cells = c->ok + c->failed + c->skipped;
    if (c->failed == 0) {
        printf("%-32s %-17s %-28s %4d cells ok%s\n", enctype, pair, takes,
               cells, c->skipped > 0 ? " (some skipped)" : "");
    } else {
        printf("%-32s %-17s %-28s FAILED: %d of %d cells; the first: %s\n",
               enctype, pair, takes, c->failed, cells, c->first_failure);
    }
}

int demo_heimdal(const gk5_mit_realm *realm)
{
    char test[PATH_MAX], mit[PATH_MAX], shown[PATH_MAX], why[PATH_MAX + 128];
    struct heimdal_run *run = NULL;
    int fds[2] = {-1, -1}, status = 0, failed = 0;
    pid_t pid;
    long t0;

    int found = find_peer(test, mit, sizeof(test), why, sizeof(why));
    if (found <= 0) {
        printf("\nHeimdal: %s (%s)\n", found == 0 ? "not available" : "FAILED",
               why);
        return found == 0 ? 0 : 1;
    }
    if (realpath(test, shown) == NULL) {
        memcpy(shown, test, sizeof(shown));
    }
    run = calloc(1, sizeof(*run));
    /* What gk5 realm run gives its command: GK5_REALM_DIR and KRB5_CONFIG
     * (already ours). */
    if (run == NULL || pipe2(fds, O_CLOEXEC) != 0 ||
        setenv("GK5_REALM_DIR", realm->dir, 1) != 0) {
        printf("\nHeimdal: FAILED: %s\n", strerror(errno));
        failed = 1;
        goto cleanup;
    }
    run->plan = -1;
    fflush(stdout);
    t0 = now_ms();
    pid = fork();
    if (pid < 0) {
        printf("\nHeimdal: FAILED: fork: %s\n", strerror(errno));
        failed = 1;
        goto cleanup;
    }
    if (pid == 0) {
        /* Dies with the demo; its mit_peer then reads EOF and ends. */
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (dup2(fds[1], STDOUT_FILENO) < 0) {
            _exit(127);
        }
        execl(test, test, "--quick", mit, (char *)NULL);
        _exit(127);
    }
    /* Killed with the KDC if the demo is. */
    gk5_mit_realm_watch_child(pid);
    close(fds[1]);
    fds[1] = -1;
    bool finished = read_lines(fds[0], run);
    if (!finished) {
        (void)kill(pid, SIGKILL);
    }
    (void)waitpid(pid, &status, 0);
    gk5_mit_realm_watch_child(0);
    double secs = (double)(now_ms() - t0) / 1e3;

    printf("\nHeimdal %s <-> gk5: contexts made by Heimdal's GSS-API against "
           "this KDC\n(MIT's side in a separate process), one side moved into "
           "gk5 by the lucid\nimport; Wrap, MIC and IOV tokens, 100-message "
           "runs, replays and tampered\ntokens both ways.  %s --quick:\n\n",
           run->version[0] != '\0' ? run->version : "(version unknown)", shown);
    printf("%-32s %-17s %s\n", "enctype", "established", "gk5 takes");
    for (int i = 0; i < run->n_cases; i++) {
        print_case(&run->cases[i], i > 0 ? run->cases[i - 1].label : NULL);
        failed += run->cases[i].failed > 0;
    }
    if (!finished) {
        printf("Heimdal FAILED: %s did not finish within %d s (killed)\n",
               shown, HEIMDAL_DEADLINE_MS / 1000);
        failed++;
    } else if (run->bail[0] != '\0') {
        printf("Heimdal FAILED: %s\n", run->bail);
        failed++;
    } else if (run->cells == 0 || run->plan != run->cells) {
        printf("Heimdal FAILED: %d cells ran, the plan said %d\n", run->cells,
               run->plan);
        failed++;
    } else if (failed == 0 &&
               (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        printf("Heimdal FAILED: %s ended with status %d\n", shown,
               WIFEXITED(status) ? WEXITSTATUS(status)
                                 : 128 + WTERMSIG(status));
        failed++;
    }
    printf("%d cells in %.1f s.\n", run->cells, secs);
    if (run->n_diffs > 0) {
        printf("\nWhat Heimdal did differently from MIT (gk5 copes with "
               "each):\n");
        for (int i = 0; i < run->n_diffs; i++) {
            print_wrapped("  - ", run->diffs[i]);
        }
    }

cleanup:
    for (int i = 0; i < 2; i++) {
        if (fds[i] >= 0) {
            close(fds[i]);
        }
    }
    free(run);
    return failed;
}
