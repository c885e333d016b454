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
 *
 * The trees' memory comes from gk5i_zalloc, OpenSSL's allocator, as the
 * rest of gk5's does (OpenSSL's memory hooks see it, and the fuzz target
 * makes each allocation fail in turn through them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trace.h"
#include "krb5_int.h"
#include "profile_int.h"

#define PROFILE_MAX_BRACES 16u

struct gk5i_pnode {
    char *name;
    char *value; /* NULL: a section or a subsection */
    bool final;
    struct gk5i_pnode *first, *last; /* children, in text order */
    struct gk5i_pnode *next;
};

struct gk5i_profile {
    struct gk5i_pnode *
        *roots; /* one per file of the list; children: sections */
    size_t nroots;
    atomic_uint holders; /* 0 stands for one (as made) */
};

/* ---- building ---- */

void gk5i_profile_err(struct gk5i_profile_loader *ld, const char *file,
                      unsigned line, const char *fmt, ...)
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

static void node_free(struct gk5i_pnode *n)
{
    while (n != NULL) {
        struct gk5i_pnode *next = n->next;

        node_free(n->first); /* depth bounded by PROFILE_MAX_BRACES + 2 */
        gk5i_free(n->name);
        gk5i_free(n->value);
        gk5i_free(n);
        n = next;
    }
}

/* p[0..n) as a NUL-terminated string: the text is not terminated where a
 * name or value ends, so strndup's reading up to a NUL does not apply. */
static char *dup_text(const char *p, size_t n)
{
    char *s = gk5i_zalloc(n + 1);

    if (s != NULL) {
        if (n > 0) {
            memcpy(s, p, n);
        }
        s[n] = '\0';
    }
    return s;
}

/* A new last child of parent; value NULL makes a (sub)section. */
static struct gk5i_pnode *node_add(struct gk5i_pnode *parent, const char *name,
                                   size_t name_len, const char *value,
                                   size_t value_len, bool final)
{
    struct gk5i_pnode *n = gk5i_zalloc(sizeof(*n));

    if (n == NULL) {
        return NULL;
    }
    n->name = dup_text(name, name_len);
    if (value != NULL) {
        n->value = dup_text(value, value_len);
    }
    if (n->name == NULL || (value != NULL && n->value == NULL)) {
        gk5i_free(n->name);
        gk5i_free(n->value);
        gk5i_free(n);
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
static struct gk5i_pnode *find_section(struct gk5i_pnode *root,
                                       const char *name, size_t len)
{
    for (struct gk5i_pnode *n = root->first; n != NULL; n = n->next) {
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

/* "include FILE" or "includedir DIR" on line lineno of name. */
static uint32_t parse_include(struct gk5i_profile_loader *ld, const char *line,
                              size_t len, bool dir, const char *name,
                              unsigned lineno)
{
    size_t i = strlen(dir ? "includedir" : "include");

    /* A path follows: parse_line took the blanks off the line's end, and
     * is_directive saw one after the word ("include" alone is no
     * directive, and reads as a relation without '='). */
    while (i < len && is_blank(line[i])) {
        i++;
    }
    if (name == NULL) {
        gk5i_profile_err(ld, name, lineno, "include is not allowed here");
        return GK5_ERR_CONFIG;
    }
    return gk5i_profile_include(ld, line + i, len - i, dir, name, lineno);
}

/* A quoted value (MIT's escapes \n \t \b; a backslash before any other
 * character stands for that character) from s (just past the opening
 * quote) into a new string; the text after the closing quote is ignored. */
static char *unquote(const char *s, size_t len, bool *bad)
{
    char *v = gk5i_zalloc(len + 1);
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
    gk5i_free(v);
    *bad = true;
    return NULL;
}

/* Where a file's parse stands: the section relations go into and the
 * '{' subsections open inside it. */
struct parse {
    struct gk5i_profile_loader *ld;
    const char *name;
    unsigned lineno;
    struct gk5i_pnode *section;
    struct gk5i_pnode *open[PROFILE_MAX_BRACES];
    size_t nopen;
};

/* "[name]" or "[name]*" (s: sl bytes, from '['): the section, made or
 * found again, becomes the current one. */
static uint32_t parse_section(struct parse *ps, const char *s, size_t sl)
{
    const char *close = memchr(s, ']', sl);
    bool final;

    if (close == NULL || close == s + 1) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                         close == NULL ? "a section header without ']'"
                                       : "an empty section name");
        return GK5_ERR_CONFIG;
    }
    if (ps->nopen > 0) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                         "a section header inside '{'");
        return GK5_ERR_CONFIG;
    }
    final = close + 1 < s + sl && close[1] == '*';
    ps->section = find_section(ps->ld->root, s + 1, (size_t)(close - s - 1));
    if (ps->section == NULL) {
        ps->section = node_add(ps->ld->root, s + 1, (size_t)(close - s - 1),
                               NULL, 0, false);
    }
    if (ps->section == NULL) {
        return GK5_ERR_NOMEM;
    }
    ps->section->final |= final;
    return GK5_OK;
}

/* "}" or "}*" (s: sl bytes, from '}'): the innermost '{' closes. */
static uint32_t parse_close(struct parse *ps, const char *s, size_t sl)
{
    if (ps->nopen == 0) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno, "'}' without '{'");
        return GK5_ERR_CONFIG;
    }
    ps->nopen--;
    if (sl > 1 && s[1] == '*') {
        ps->open[ps->nopen]->final = true;
    }
    return GK5_OK;
}

/* The tag of "tag = value" or "tag* = value" (s: sl bytes, eq: its '='):
 * its length into *tl, *final when it ends in '*'. */
static uint32_t parse_tag(struct parse *ps, const char *s, const char *eq,
                          size_t *tl, bool *final)
{
    size_t n = (size_t)(eq - s);

    while (n > 0 && is_blank(s[n - 1])) {
        n--;
    }
    for (size_t i = 0; i < n; i++) {
        if (is_blank(s[i])) {
            gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                             "a blank inside a name");
            return GK5_ERR_CONFIG;
        }
    }
    *final = n > 0 && s[n - 1] == '*';
    if (*final) {
        n--;
    }
    if (n == 0) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                         "a relation without a name");
        return GK5_ERR_CONFIG;
    }
    *tl = n;
    return GK5_OK;
}

/* "tag = value", "tag = \"quoted\"" or "tag = {" (s: sl bytes) in the
 * current section or '{'. */
static uint32_t parse_relation(struct parse *ps, const char *s, size_t sl)
{
    const char *eq, *v;
    size_t tl, vl;
    struct gk5i_pnode *parent, *n;
    bool final;
    uint32_t ret;

    if (ps->section == NULL) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                         "a relation before any [section]");
        return GK5_ERR_CONFIG;
    }
    eq = memchr(s, '=', sl);
    if (eq == NULL) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                         "expected 'name = value'");
        return GK5_ERR_CONFIG;
    }
    ret = parse_tag(ps, s, eq, &tl, &final);
    if (ret != GK5_OK) {
        return ret;
    }
    v = eq + 1;
    while (v < s + sl && is_blank(*v)) {
        v++;
    }
    vl = (size_t)(s + sl - v);
    parent = ps->nopen > 0 ? ps->open[ps->nopen - 1] : ps->section;
    if (vl == 1 && v[0] == '{') {
        if (ps->nopen == PROFILE_MAX_BRACES) {
            gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                             "'{' nested deeper than %u", PROFILE_MAX_BRACES);
            return GK5_ERR_CONFIG;
        }
        n = node_add(parent, s, tl, NULL, 0, final);
        if (n != NULL) {
            ps->open[ps->nopen++] = n;
        }
    } else if (vl > 0 && v[0] == '"') {
        bool bad;
        char *uq = unquote(v + 1, vl - 1, &bad);

        if (uq == NULL) {
            if (!bad) {
                return GK5_ERR_NOMEM;
            }
            gk5i_profile_err(ps->ld, ps->name, ps->lineno,
                             "a quoted value without its '\"'");
            return GK5_ERR_CONFIG;
        }
        n = node_add(parent, s, tl, uq, strlen(uq), final);
        gk5i_free(uq);
    } else {
        n = node_add(parent, s, tl, v, vl, final);
    }
    return n != NULL ? GK5_OK : GK5_ERR_NOMEM;
}

/* One line (ll bytes, no newline): a directive, a comment or blank line, a
 * section header, a closing '}' or a relation. */
static uint32_t parse_line(struct parse *ps, const char *line, size_t ll)
{
    const char *s = line;
    size_t sl;

    if (memchr(line, '\0', ll) != NULL) {
        gk5i_profile_err(ps->ld, ps->name, ps->lineno, "a NUL byte");
        return GK5_ERR_CONFIG;
    }
    while (ll > 0 && is_blank(line[ll - 1])) {
        ll--;
    }
    if (is_directive(line, ll, "includedir") ||
        is_directive(line, ll, "include")) {
        return parse_include(ps->ld, line, ll,
                             is_directive(line, ll, "includedir"), ps->name,
                             ps->lineno);
    }
    while (s < line + ll && is_blank(*s)) {
        s++;
    }
    sl = ll - (size_t)(s - line);
    if (sl == 0 || s[0] == '#' || s[0] == ';') {
        return GK5_OK;
    }
    if (s[0] == '[') {
        return parse_section(ps, s, sl);
    }
    if (s[0] == '}') {
        return parse_close(ps, s, sl);
    }
    return parse_relation(ps, s, sl);
}

/* One file's text into ld->root. */
uint32_t gk5i_profile_text(struct gk5i_profile_loader *ld, const char *text,
                           size_t len, const char *name)
{
    struct parse ps = {.ld = ld, .name = name};
    size_t pos = 0;

    if (len > PROFILE_MAX_FILE_BYTES) {
        gk5i_profile_err(ld, name, 0, "larger than %u bytes",
                         PROFILE_MAX_FILE_BYTES);
        return GK5_ERR_CONFIG;
    }
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl != NULL ? (size_t)(nl - line) : len - pos;
        uint32_t ret;

        pos += ll + (nl != NULL);
        ps.lineno++;
        ret = parse_line(&ps, line, ll);
        if (ret != GK5_OK) {
            return ret;
        }
    }
    if (ps.nopen > 0) {
        gk5i_profile_err(ld, name, ps.lineno, "'{' of \"%s\" never closed",
                         ps.open[ps.nopen - 1]->name);
        return GK5_ERR_CONFIG;
    }
    return GK5_OK;
}

/* A new root at the end of p's list (a new array one longer: the list is
 * a few files long, PROFILE_MAX_FILES at most). */
struct gk5i_pnode *gk5i_profile_add_root(struct gk5i_profile *p)
{
    struct gk5i_pnode **roots = gk5i_zalloc((p->nroots + 1) * sizeof(*roots));
    struct gk5i_pnode *root = gk5i_zalloc(sizeof(*root));

    if (roots == NULL || root == NULL) {
        gk5i_free(roots);
        gk5i_free(root);
        return NULL;
    }
    if (p->nroots > 0) {
        memcpy(roots, p->roots, p->nroots * sizeof(*roots));
    }
    gk5i_free(p->roots);
    p->roots = roots;
    roots[p->nroots] = root;
    return roots[p->nroots++];
}

struct gk5i_profile *gk5i_profile_new(void)
{
    return gk5i_zalloc(sizeof(struct gk5i_profile));
}

uint32_t gk5i_profile_parse(const char *text, size_t len, const char *name,
                            struct gk5i_profile **out, char *err,
                            size_t err_len)
{
    struct gk5i_profile_loader ld = {
        .err = err, .err_len = err_len, .nfiles = 1};
    struct gk5i_profile *p;
    uint32_t ret = GK5_ERR_NOMEM;

    *out = NULL;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (text == NULL && len > 0) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    p = gk5i_zalloc(sizeof(*p));
    if (p != NULL) {
        ld.root = gk5i_profile_add_root(p);
    }
    if (ld.root != NULL) {
        ret = gk5i_profile_text(&ld, text, len, name);
    }
    if (ret == GK5_ERR_NOMEM) {
        gk5i_profile_err(&ld, name, 0, "out of memory");
    }
    if (ret != GK5_OK) {
        gk5i_profile_free(p);
        return ret;
    }
    *out = p;
    return GK5_OK;
}

struct gk5i_profile *gk5i_profile_ref(struct gk5i_profile *p)
{
    atomic_fetch_add_explicit(&p->holders, 1, memory_order_relaxed);
    return p;
}

void gk5i_profile_free(struct gk5i_profile *p)
{
    if (p == NULL) {
        return;
    }
    /* The last holder frees; its view of the tree is the others'. */
    if (atomic_fetch_sub_explicit(&p->holders, 1, memory_order_acq_rel) != 0) {
        return;
    }
    for (size_t i = 0; i < p->nroots; i++) {
        node_free(p->roots[i]);
    }
    gk5i_free(p->roots);
    gk5i_free(p);
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
static void walk(struct walk *w, const struct gk5i_pnode *container,
                 size_t level)
{
    bool last = level + 1 == w->depth;

    if (w->names && level == w->depth) {
        for (const struct gk5i_pnode *c = container->first; c != NULL;
             c = c->next) {
            found(w, c->name);
        }
        return;
    }
    for (const struct gk5i_pnode *c = container->first; c != NULL;
         c = c->next) {
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
    w.seen = gk5i_zalloc(slots * sizeof(*w.seen));
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
    gk5i_free(w.seen);
    return w.n;
}
