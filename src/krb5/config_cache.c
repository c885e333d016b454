/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The last krb5.conf configuration loaded, kept while its files stay as
 * they were (krb5_int.h, "config_cache.c").  A client that makes a context
 * per RPC connection or per mount loads the configuration each time
 * (gk5_initiator_create); reading and parsing the files cost more than
 * the rest of making the first leg.  A load that finds every file and
 * folder it read as it was (one stat each) gets a copy of what was parsed,
 * sharing the profile tree.
 *
 * When a file is known to be unchanged: stat's times are as coarse as the
 * kernel's clock tick, so a file written twice within one tick, with the
 * same size, would show the same times and inode.  Only loads whose every
 * file had last changed (mtime and ctime) a margin before the load began
 * are kept: a later write then gives the file a change time after the
 * margin, unlike the one noted.  A file written just before the load is
 * read again at the next load, and kept once it has settled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/trace.h"
#include "krb5_int.h"

#define WATCH_MAX 256 /* notes in one load: 64 files, their folders */

void gk5i_watch_note(struct gk5i_watch *w, const char *path,
                     const struct stat *st)
{
    struct gk5i_watch_entry *e;

    if (w->failed) {
        return;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap == 0 ? 4 : w->cap * 2;
        struct gk5i_watch_entry *bigger;

        if (cap > WATCH_MAX ||
            (bigger = realloc(w->e, cap * sizeof(*bigger))) == NULL) {
            w->failed = true;
            return;
        }
        w->e = bigger;
        w->cap = cap;
    }
    e = &w->e[w->n];
    memset(e, 0, sizeof(*e));
    e->path = strdup(path);
    if (e->path == NULL) {
        w->failed = true;
        return;
    }
    if (st != NULL) {
        e->present = true;
        e->dev = st->st_dev;
        e->ino = st->st_ino;
        e->size = st->st_size;
        e->mtim = st->st_mtim;
        e->ctim = st->st_ctim;
    }
    w->n++;
}

void gk5i_watch_clear(struct gk5i_watch *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->e[i].path);
    }
    free(w->e);
    memset(w, 0, sizeof(*w)); /* not a wipe: emptied for reuse */
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Every path as noted. */
static bool unchanged(const struct gk5i_watch *w)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct gk5i_watch_entry *e = &w->e[i];
        struct stat st;

        if (stat(e->path, &st) != 0) {
            if (e->present || (errno != ENOENT && errno != ENOTDIR)) {
                return false;
            }
            continue;
        }
        if (!e->present || st.st_dev != e->dev || st.st_ino != e->ino ||
            st.st_size != e->size || !same_time(st.st_mtim, e->mtim) ||
            !same_time(st.st_ctim, e->ctim)) {
            return false;
        }
    }
    return true;
}

/* t before limit. */
static bool before(struct timespec t, struct timespec limit)
{
    return t.tv_sec < limit.tv_sec ||
           (t.tv_sec == limit.tv_sec && t.tv_nsec < limit.tv_nsec);
}

static struct {
    pthread_mutex_t lock;
    char *paths; /* NULL: nothing kept */
    struct gk5i_watch watch;
    struct gk5i_krb5_config *config;
    unsigned margin_ms;
    unsigned long hits, misses;
} g_cache = {
    PTHREAD_MUTEX_INITIALIZER, NULL, {NULL, 0, 0, false}, NULL, 1000, 0, 0};

/* Under the lock. */
static void forget(void)
{
    free(g_cache.paths);
    g_cache.paths = NULL;
    gk5i_watch_clear(&g_cache.watch);
    gk5i_config_free(g_cache.config);
    g_cache.config = NULL;
}

struct gk5i_krb5_config *gk5i_config_cached(const char *paths)
{
    struct gk5i_krb5_config *c = NULL;

    (void)pthread_mutex_lock(&g_cache.lock);
    if (g_cache.paths != NULL && strcmp(g_cache.paths, paths) == 0) {
        if (unchanged(&g_cache.watch)) {
            c = gk5i_config_copy(g_cache.config);
        } else {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: %s changed since it was read; read "
                           "again",
                           paths);
            }
            forget();
        }
    }
    if (c != NULL) {
        g_cache.hits++;
    } else {
        g_cache.misses++;
    }
    (void)pthread_mutex_unlock(&g_cache.lock);
    return c;
}

void gk5i_config_keep(const char *paths, const struct gk5i_krb5_config *c,
                      struct gk5i_watch *w, const struct timespec *t0)
{
    struct timespec limit = *t0;
    struct gk5i_krb5_config *copy = NULL;
    char *p = NULL;

    (void)pthread_mutex_lock(&g_cache.lock);
    unsigned margin = g_cache.margin_ms;
    limit.tv_sec -= (time_t)(margin / 1000);
    limit.tv_nsec -= (long)(margin % 1000) * 1000000L;
    if (limit.tv_nsec < 0) {
        limit.tv_nsec += 1000000000L;
        limit.tv_sec--;
    }
    bool settled = !w->failed;
    for (size_t i = 0; settled && i < w->n; i++) {
        settled = !w->e[i].present ||
                  (before(w->e[i].mtim, limit) && before(w->e[i].ctim, limit));
    }
    if (settled && (p = strdup(paths)) != NULL &&
        (copy = gk5i_config_copy(c)) != NULL) {
        forget();
        g_cache.paths = p;
        g_cache.config = copy;
        g_cache.watch = *w;
        memset(w, 0, sizeof(*w));
        p = NULL;
    }
    (void)pthread_mutex_unlock(&g_cache.lock);
    free(p);
    gk5i_watch_clear(w);
}

void gk5i_config_cache_margin_ms(unsigned ms)
{
    (void)pthread_mutex_lock(&g_cache.lock);
    g_cache.margin_ms = ms;
    forget();
    (void)pthread_mutex_unlock(&g_cache.lock);
}

void gk5i_config_cache_counts(unsigned long *hits, unsigned long *misses)
{
    (void)pthread_mutex_lock(&g_cache.lock);
    *hits = g_cache.hits;
    *misses = g_cache.misses;
    (void)pthread_mutex_unlock(&g_cache.lock);
}
