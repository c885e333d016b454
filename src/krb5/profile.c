/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * krb5.conf as MIT's profile library reads it (krb5/krb5
 * doc/admin/conf_files/krb5_conf.rst, "Structure"); the contract is in
 * krb5_int.h.
 *
 * Each file named in the colon list becomes one tree: a root whose
 * children are the sections, in file order, each holding its relations
 * and subsections.  Files included from it land in the same tree (as in
 * MIT, an included file is syntactically independent of its parent: it
 * starts with no section and must open one).  A lookup walks the trees in
 * list order and stops after the first tree in which a node on its path
 * was marked final.  A section named again in the same tree continues the
 * first (as in MIT); a subsection named again is a second node, and a
 * lookup searches both, so values keep their order in the text.
 *
 * Where MIT is lenient and the text is unambiguous, so are we (text after
 * "]", "}" or a closing quote is ignored, as MIT ignores it); where a line
 * cannot be read as MIT would read it, it is an error naming FILE:LINE.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/trace.h"
#include "krb5_int.h"

#define PROFILE_MAX_FILE_BYTES (1024u * 1024u)
#define PROFILE_MAX_FILES 64u
#define PROFILE_MAX_INCLUDE_DEPTH 8u
#define PROFILE_MAX_BRACES 16u

struct node {
    char *name;
    char *value; /* NULL: a section or a subsection */
    bool final;
    struct node *first, *last; /* children, in text order */
    struct node *next;
};

struct gk5i_profile {
    struct node **roots; /* one per file of the list; children: sections */
    size_t nroots;
};

/* ---- building ---- */

struct loader {
    struct node *root;
    size_t nfiles; /* files read so far, every level and every root */
    /* The files being read, outermost first, to refuse an include loop. */
    struct {
        dev_t dev;
        ino_t ino;
    } open[PROFILE_MAX_INCLUDE_DEPTH + 1];
    size_t nopen;
    char *err;
    size_t err_len;
};

static void set_err(struct loader *ld, const char *file, unsigned line,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set_err(struct loader *ld, const char *file, unsigned line,
                    const char *fmt, ...)
{
    char what[512];
    va_list ap;

    if (ld->err == NULL || ld->err_len == 0) {
        return;
    }
    va_start(ap, fmt);
    (void)vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (file == NULL) {
        file = "(text)";
    }
    if (line > 0) {
        (void)snprintf(ld->err, ld->err_len, "%s:%u: %s", file, line, what);
    } else {
        (void)snprintf(ld->err, ld->err_len, "%s: %s", file, what);
    }
}

static void node_free(struct node *n)
{
    while (n != NULL) {
        struct node *next = n->next;

        node_free(n->first); /* depth bounded by PROFILE_MAX_BRACES + 2 */
        free(n->name);
        free(n->value);
        free(n);
        n = next;
    }
}

/* p[0..n) as a NUL-terminated string: the text is not terminated where a
 * name or value ends, so strndup's reading up to a NUL does not apply. */
static char *dup_text(const char *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s != NULL) {
        if (n > 0) {
            memcpy(s, p, n);
        }
        s[n] = '\0';
    }
    return s;
}

/* A new last child of parent; value NULL makes a (sub)section. */
static struct node *node_add(struct node *parent, const char *name,
                             size_t name_len, const char *value,
                             size_t value_len, bool final)
{
    struct node *n = calloc(1, sizeof(*n));

    if (n == NULL) {
        return NULL;
    }
    n->name = dup_text(name, name_len);
    if (value != NULL) {
        n->value = dup_text(value, value_len);
    }
    if (n->name == NULL || (value != NULL && n->value == NULL)) {
        free(n->name);
        free(n->value);
        free(n);
        return NULL;
    }
    n->final = final;
    if (parent->last == NULL) {
        parent->first = n;
    } else {
        parent->last->next = n;
    }
    parent->last = n;
    return n;
}

/* A section already in this file's tree (or an included file's): MIT
 * appends to it, so a section's relations keep their order in the text
 * however the includes split it. */
static struct node *find_section(struct node *root, const char *name,
                                 size_t len)
{
    for (struct node *n = root->first; n != NULL; n = n->next) {
        if (strncmp(n->name, name, len) == 0 && n->name[len] == '\0') {
            return n;
        }
    }
    return NULL;
}

/* The blanks MIT skips (isspace in the C locale, spelled out so that the
 * locale never changes how a file reads). */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether line (len bytes) starts with word followed by a blank: MIT's
 * test for a directive, at the very start of the line. */
static bool is_directive(const char *line, size_t len, const char *word)
{
    size_t wl = strlen(word);

    /* Public configuration text. */
    return len > wl && memcmp(line, word, wl) == 0 && is_blank(line[wl]);
}

static uint32_t parse_file(struct loader *ld, const char *path, bool top,
                           const char *from, unsigned from_line);

/* An include's target: absolute as written, else beside the including
 * file (MIT asks for absolute paths; this reading of a relative one is
 * the only one that does not depend on the working directory). */
static char *include_path(const char *from, const char *arg, size_t arg_len)
{
    const char *slash = strrchr(from, '/');
    size_t dir_len =
        (arg[0] != '/' && slash != NULL) ? (size_t)(slash - from) : 0;
    char *p = malloc(dir_len + 1 + arg_len + 1);

    if (p == NULL) {
        return NULL;
    }
    if (dir_len > 0 || (arg[0] != '/' && slash == from)) {
        memcpy(p, from, dir_len);
        p[dir_len] = '/';
        memcpy(p + dir_len + 1, arg, arg_len);
        p[dir_len + 1 + arg_len] = '\0';
    } else {
        memcpy(p, arg, arg_len);
        p[arg_len] = '\0';
    }
    return p;
}

/* The files includedir reads: names of only [A-Za-z0-9_-], or ending in
 * ".conf" and not starting with '.' (MIT 1.15 and later). */
static bool includedir_wants(const char *name)
{
    size_t len = strlen(name);
    bool plain = len > 0;

    if (name[0] == '.') {
        return false;
    }
    for (size_t i = 0; i < len && plain; i++) {
        unsigned char c = (unsigned char)name[i];

        plain = isalnum(c) || c == '-' || c == '_';
    }
    return plain || (len > 5 && strcmp(name + len - 5, ".conf") == 0);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every wanted regular file in dir, in name order (MIT 1.17 and later). */
static uint32_t parse_dir(struct loader *ld, const char *dir, const char *from,
                          unsigned from_line)
{
    uint32_t ret = GK5_ERR_CONFIG;
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    char *path = NULL;
    struct dirent *e;

    if (d == NULL) {
        set_err(ld, from, from_line, "cannot read directory %s: %s", dir,
                strerror(errno));
        return GK5_ERR_CONFIG;
    }
    names = calloc(PROFILE_MAX_FILES + 1, sizeof(*names));
    if (names == NULL) {
        ret = GK5_ERR_NOMEM;
        goto cleanup;
    }
    while ((e = readdir(d)) != NULL) {
        if (!includedir_wants(e->d_name)) {
            continue;
        }
        if (n == PROFILE_MAX_FILES) {
            set_err(ld, from, from_line, "%s holds more than %u files", dir,
                    PROFILE_MAX_FILES);
            goto cleanup;
        }
        names[n] = strdup(e->d_name);
        if (names[n] == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        n++;
    }
    qsort(names, n, sizeof(*names), cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;

        free(path);
        path = malloc(strlen(dir) + 1 + strlen(names[i]) + 1);
        if (path == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        (void)sprintf(path, "%s/%s", dir, names[i]);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue; /* a subdirectory, a dangling link: not a file */
        }
        ret = parse_file(ld, path, false, from, from_line);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    ret = GK5_OK;

cleanup:
    free(path);
    for (size_t i = 0; names != NULL && i < n; i++) {
        free(names[i]);
    }
    free(names);
    (void)closedir(d);
    return ret;
}

/* "include FILE" or "includedir DIR" on line lineno of name. */
static uint32_t parse_include(struct loader *ld, const char *line, size_t len,
                              bool dir, const char *name, unsigned lineno)
{
    size_t i = strlen(dir ? "includedir" : "include");
    char *path;
    uint32_t ret;

    while (i < len && is_blank(line[i])) {
        i++;
    }
    if (i == len) {
        set_err(ld, name, lineno, "%s without a path",
                dir ? "includedir" : "include");
        return GK5_ERR_CONFIG;
    }
    if (name == NULL) {
        set_err(ld, name, lineno, "include is not allowed here");
        return GK5_ERR_CONFIG;
    }
    path = include_path(name, line + i, len - i);
    if (path == NULL) {
        return GK5_ERR_NOMEM;
    }
    ret = dir ? parse_dir(ld, path, name, lineno)
              : parse_file(ld, path, false, name, lineno);
    free(path);
    return ret;
}

/* A quoted value (MIT's escapes \n \t \b; a backslash before any other
 * character stands for that character) from s (just past the opening
 * quote) into a new string; the text after the closing quote is ignored. */
static char *unquote(const char *s, size_t len, bool *bad)
{
    char *v = malloc(len + 1);
    size_t o = 0;

    *bad = false;
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (c == '"') {
            v[o] = '\0';
            return v;
        }
        if (c == '\\') {
            if (++i == len) {
                break;
            }
            c = s[i] == 'n'   ? '\n'
                : s[i] == 't' ? '\t'
                : s[i] == 'b' ? '\b'
                              : s[i];
        }
        v[o++] = c;
    }
    free(v);
    *bad = true;
    return NULL;
}

/* One file's text into ld->root. */
static uint32_t parse_text(struct loader *ld, const char *text, size_t len,
                           const char *name)
{
    struct node *section = NULL;
    struct node *open[PROFILE_MAX_BRACES];
    size_t nopen = 0;
    unsigned lineno = 0;
    size_t pos = 0;
    uint32_t ret;

    if (len > PROFILE_MAX_FILE_BYTES) {
        set_err(ld, name, 0, "larger than %u bytes", PROFILE_MAX_FILE_BYTES);
        return GK5_ERR_CONFIG;
    }
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl != NULL ? (size_t)(nl - line) : len - pos;
        const char *s, *eq, *v;
        size_t sl, tl, vl;
        struct node *parent, *n;
        bool final = false;

        pos += ll + (nl != NULL);
        lineno++;
        if (memchr(line, '\0', ll) != NULL) {
            set_err(ld, name, lineno, "a NUL byte");
            return GK5_ERR_CONFIG;
        }
        while (ll > 0 && is_blank(line[ll - 1])) {
            ll--;
        }
        if (is_directive(line, ll, "includedir") ||
            is_directive(line, ll, "include")) {
            ret = parse_include(ld, line, ll,
                                is_directive(line, ll, "includedir"), name,
                                lineno);
            if (ret != GK5_OK) {
                return ret;
            }
            continue;
        }
        s = line;
        while (s < line + ll && is_blank(*s)) {
            s++;
        }
        sl = ll - (size_t)(s - line);
        if (sl == 0 || s[0] == '#' || s[0] == ';') {
            continue;
        }

        if (s[0] == '[') {
            const char *close = memchr(s, ']', sl);

            if (close == NULL || close == s + 1) {
                set_err(ld, name, lineno,
                        close == NULL ? "a section header without ']'"
                                      : "an empty section name");
                return GK5_ERR_CONFIG;
            }
            if (nopen > 0) {
                set_err(ld, name, lineno, "a section header inside '{'");
                return GK5_ERR_CONFIG;
            }
            final = close + 1 < s + sl && close[1] == '*';
            section = find_section(ld->root, s + 1, (size_t)(close - s - 1));
            if (section == NULL) {
                section = node_add(ld->root, s + 1, (size_t)(close - s - 1),
                                   NULL, 0, false);
            }
            if (section == NULL) {
                return GK5_ERR_NOMEM;
            }
            section->final |= final;
            continue;
        }

        if (s[0] == '}') {
            if (nopen == 0) {
                set_err(ld, name, lineno, "'}' without '{'");
                return GK5_ERR_CONFIG;
            }
            nopen--;
            if (sl > 1 && s[1] == '*') {
                open[nopen]->final = true;
            }
            continue;
        }

        if (section == NULL) {
            set_err(ld, name, lineno, "a relation before any [section]");
            return GK5_ERR_CONFIG;
        }
        eq = memchr(s, '=', sl);
        if (eq == NULL) {
            set_err(ld, name, lineno, "expected 'name = value'");
            return GK5_ERR_CONFIG;
        }
        tl = (size_t)(eq - s);
        while (tl > 0 && is_blank(s[tl - 1])) {
            tl--;
        }
        for (size_t i = 0; i < tl; i++) {
            if (is_blank(s[i])) {
                set_err(ld, name, lineno, "a blank inside a name");
                return GK5_ERR_CONFIG;
            }
        }
        if (tl > 0 && s[tl - 1] == '*') {
            final = true;
            tl--;
        }
        if (tl == 0) {
            set_err(ld, name, lineno, "a relation without a name");
            return GK5_ERR_CONFIG;
        }
        v = eq + 1;
        while (v < s + sl && is_blank(*v)) {
            v++;
        }
        vl = (size_t)(s + sl - v);
        parent = nopen > 0 ? open[nopen - 1] : section;

        if (vl == 1 && v[0] == '{') {
            if (nopen == PROFILE_MAX_BRACES) {
                set_err(ld, name, lineno, "'{' nested deeper than %u",
                        PROFILE_MAX_BRACES);
                return GK5_ERR_CONFIG;
            }
            n = node_add(parent, s, tl, NULL, 0, final);
            if (n == NULL) {
                return GK5_ERR_NOMEM;
            }
            open[nopen++] = n;
        } else if (vl > 0 && v[0] == '"') {
            bool bad;
            char *uq = unquote(v + 1, vl - 1, &bad);

            if (uq == NULL) {
                if (!bad) {
                    return GK5_ERR_NOMEM;
                }
                set_err(ld, name, lineno, "a quoted value without its '\"'");
                return GK5_ERR_CONFIG;
            }
            n = node_add(parent, s, tl, uq, strlen(uq), final);
            free(uq);
            if (n == NULL) {
                return GK5_ERR_NOMEM;
            }
        } else {
            n = node_add(parent, s, tl, v, vl, final);
            if (n == NULL) {
                return GK5_ERR_NOMEM;
            }
        }
    }
    if (nopen > 0) {
        set_err(ld, name, lineno, "'{' of \"%s\" never closed",
                open[nopen - 1]->name);
        return GK5_ERR_CONFIG;
    }
    return GK5_OK;
}

/* Read at most the size limit and one byte more, so that a larger file is
 * noticed without reading it all. */
static uint32_t read_fd(struct loader *ld, int fd, const char *path, char **buf,
                        size_t *len)
{
    size_t cap = PROFILE_MAX_FILE_BYTES + 1, n = 0;
    char *b = malloc(cap);

    if (b == NULL) {
        return GK5_ERR_NOMEM;
    }
    while (n < cap) {
        ssize_t r = read(fd, b + n, cap - n);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            set_err(ld, path, 0, "cannot read: %s", strerror(errno));
            free(b);
            return GK5_ERR_CONFIG;
        }
        if (r == 0) {
            break;
        }
        n += (size_t)r;
    }
    if (n > PROFILE_MAX_FILE_BYTES) {
        set_err(ld, path, 0, "larger than %u bytes", PROFILE_MAX_FILE_BYTES);
        free(b);
        return GK5_ERR_CONFIG;
    }
    *buf = b;
    *len = n;
    return GK5_OK;
}

/* One file: top is a file of the list (missing: skipped), else an include
 * (missing: an error at from:from_line, as in MIT). */
static uint32_t parse_file(struct loader *ld, const char *path, bool top,
                           const char *from, unsigned from_line)
{
    uint32_t ret = GK5_ERR_CONFIG;
    int fd;
    struct stat st;
    char *text = NULL;
    size_t len = 0;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (top && (errno == ENOENT || errno == ENOTDIR)) {
            if (GK5_TRACE_ON()) {
                gk5i_trace("krb5.conf: %s not found, skipped", path);
            }
            return GK5_OK;
        }
        if (top) {
            set_err(ld, path, 0, "cannot open: %s", strerror(errno));
        } else {
            set_err(ld, from, from_line, "cannot include %s: %s", path,
                    strerror(errno));
        }
        return GK5_ERR_CONFIG;
    }
    if (fstat(fd, &st) != 0) {
        set_err(ld, path, 0, "cannot stat: %s", strerror(errno));
        goto cleanup;
    }
    if (S_ISDIR(st.st_mode)) {
        /* MIT 1.14 and later read a directory named in KRB5_CONFIG as
         * includedir does. */
        (void)close(fd);
        fd = -1;
        if (top) {
            return parse_dir(ld, path, path, 0);
        }
        set_err(ld, from, from_line, "cannot include %s: a directory", path);
        return GK5_ERR_CONFIG;
    }
    for (size_t i = 0; i < ld->nopen; i++) {
        if (ld->open[i].dev == st.st_dev && ld->open[i].ino == st.st_ino) {
            set_err(ld, from, from_line, "include loop: %s", path);
            goto cleanup;
        }
    }
    if (ld->nopen == GK5_ARRAY_SIZE(ld->open)) {
        set_err(ld, from, from_line, "includes nested deeper than %u: %s",
                PROFILE_MAX_INCLUDE_DEPTH, path);
        goto cleanup;
    }
    if (ld->nfiles == PROFILE_MAX_FILES) {
        set_err(ld, from != NULL ? from : path, from_line, "more than %u files",
                PROFILE_MAX_FILES);
        goto cleanup;
    }
    ld->nfiles++;
    ret = read_fd(ld, fd, path, &text, &len);
    if (ret != GK5_OK) {
        goto cleanup;
    }
    ld->open[ld->nopen].dev = st.st_dev;
    ld->open[ld->nopen].ino = st.st_ino;
    ld->nopen++;
    ret = parse_text(ld, text, len, path);
    ld->nopen--;

cleanup:
    free(text);
    if (fd >= 0) {
        (void)close(fd);
    }
    return ret;
}

/* A new root at the end of p's list. */
static struct node *add_root(struct gk5i_profile *p)
{
    struct node **roots = realloc(p->roots, (p->nroots + 1) * sizeof(*roots));

    if (roots == NULL) {
        return NULL;
    }
    p->roots = roots;
    roots[p->nroots] = calloc(1, sizeof(struct node));
    if (roots[p->nroots] == NULL) {
        return NULL;
    }
    return roots[p->nroots++];
}

uint32_t gk5i_profile_load(const char *paths, struct gk5i_profile **out,
                           char *err, size_t err_len)
{
    struct loader ld = {.err = err, .err_len = err_len};
    struct gk5i_profile *p = NULL;
    char *list = NULL, *save = NULL;
    uint32_t ret = GK5_ERR_NOMEM;

    *out = NULL;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (paths == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = calloc(1, sizeof(*p));
    list = strdup(paths);
    if (p == NULL || list == NULL) {
        goto cleanup;
    }
    for (char *path = strtok_r(list, ":", &save); path != NULL;
         path = strtok_r(NULL, ":", &save)) {
        ld.root = add_root(p);
        if (ld.root == NULL) {
            ret = GK5_ERR_NOMEM;
            goto cleanup;
        }
        ld.nopen = 0;
        ret = parse_file(&ld, path, true, NULL, 0);
        if (ret != GK5_OK) {
            goto cleanup;
        }
    }
    *out = p;
    p = NULL;
    ret = GK5_OK;

cleanup:
    if (ret == GK5_ERR_NOMEM) {
        set_err(&ld, paths, 0, "out of memory");
    }
    gk5i_profile_free(p);
    free(list);
    return ret;
}

uint32_t gk5i_profile_parse(const char *text, size_t len, const char *name,
                            struct gk5i_profile **out, char *err,
                            size_t err_len)
{
    struct loader ld = {.err = err, .err_len = err_len, .nfiles = 1};
    struct gk5i_profile *p;
    uint32_t ret = GK5_ERR_NOMEM;

    *out = NULL;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (text == NULL && len > 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = calloc(1, sizeof(*p));
    if (p != NULL) {
        ld.root = add_root(p);
    }
    if (ld.root != NULL) {
        ret = parse_text(&ld, text, len, name);
    }
    if (ret == GK5_ERR_NOMEM) {
        set_err(&ld, name, 0, "out of memory");
    }
    if (ret != GK5_OK) {
        gk5i_profile_free(p);
        return ret;
    }
    *out = p;
    return GK5_OK;
}

void gk5i_profile_free(struct gk5i_profile *p)
{
    if (p == NULL) {
        return;
    }
    for (size_t i = 0; i < p->nroots; i++) {
        node_free(p->roots[i]);
    }
    free(p->roots);
    free(p);
}

/* ---- lookups ---- */

/* What a walk collects: values (relations named by the path's last
 * element) or names (everything directly under the path). */
struct walk {
    const char *const *path;
    size_t depth; /* elements in path */
    bool names;
    const char **out;
    size_t max;
    size_t n;   /* found, in all */
    bool final; /* a node on the way was final: later roots are ignored */
    const char **seen; /* names: an open-addressing set, mask + 1 slots */
    size_t mask;
};

static size_t name_hash(const char *s)
{
    size_t h = 14695981039346656037u;

    while (*s != '\0') {
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    }
    return h;
}

/* True when name was not in the set (and now is). */
static bool seen_add(struct walk *w, const char *name)
{
    size_t h = name_hash(name) & w->mask;

    while (w->seen[h] != NULL) {
        if (strcmp(w->seen[h], name) == 0) {
            return false;
        }
        h = (h + 1) & w->mask;
    }
    w->seen[h] = name;
    return true;
}

static void found(struct walk *w, const char *s)
{
    if (w->names && w->seen != NULL && !seen_add(w, s)) {
        return;
    }
    if (w->n < w->max) {
        w->out[w->n] = s;
    }
    w->n++;
}

/* The nodes under container matching path[level..]. */
static void walk(struct walk *w, const struct node *container, size_t level)
{
    bool last = level + 1 == w->depth;

    if (w->names && level == w->depth) {
        for (const struct node *c = container->first; c != NULL; c = c->next) {
            found(w, c->name);
        }
        return;
    }
    for (const struct node *c = container->first; c != NULL; c = c->next) {
        if (strcmp(c->name, w->path[level]) != 0) {
            continue;
        }
        if (!w->names && last) {
            if (c->value != NULL) {
                w->final |= c->final;
                found(w, c->value);
            }
        } else if (c->value == NULL) {
            w->final |= c->final;
            walk(w, c, level + 1);
        }
    }
}

static void walk_roots(const struct gk5i_profile *p, struct walk *w)
{
    for (size_t i = 0; p != NULL && i < p->nroots && !w->final; i++) {
        walk(w, p->roots[i], 0);
    }
}

static size_t path_depth(const char *const *path)
{
    size_t d = 0;

    while (path != NULL && path[d] != NULL) {
        d++;
    }
    return d;
}

size_t gk5i_profile_values(const struct gk5i_profile *p,
                           const char *const *path, const char **vals,
                           size_t max)
{
    struct walk w = {.path = path,
                     .depth = path_depth(path),
                     .out = vals,
                     .max = vals != NULL ? max : 0};

    if (w.depth == 0) {
        return 0;
    }
    walk_roots(p, &w);
    return w.n;
}

const char *gk5i_profile_get(const struct gk5i_profile *p,
                             const char *const *path)
{
    const char *v = NULL;

    return gk5i_profile_values(p, path, &v, 1) > 0 ? v : NULL;
}

size_t gk5i_profile_names(const struct gk5i_profile *p, const char *const *path,
                          const char **names, size_t max)
{
    struct walk w = {.path = path, .depth = path_depth(path), .names = true};
    size_t slots = 8;

    /* Count first (duplicates too), to size the set that drops them. */
    walk_roots(p, &w);
    if (w.n == 0) {
        return 0;
    }
    while (slots < 2 * w.n) {
        slots *= 2;
    }
    w.seen = calloc(slots, sizeof(*w.seen));
    if (w.seen == NULL) {
        if (GK5_TRACE_ON()) {
            gk5i_trace("krb5.conf: out of memory listing names");
        }
        return 0;
    }
    w.mask = slots - 1;
    w.n = 0;
    w.final = false;
    w.out = names;
    w.max = names != NULL ? max : 0;
    walk_roots(p, &w);
    free(w.seen);
    return w.n;
}
