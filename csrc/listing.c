/* listing.c - callgrind_annotate's function listing written from the rows cg_rows_select chose
 * (see report.h): the heading, one line per row, and with a tree each row's callers and callees
 * summed per caller row and per callee in one pass over the row's calls, every event at once.
 * The text goes to a sink a buffer at a time. */
#include <stdlib.h>
#include <string.h>

#include "msort.h"
#include "report.h"
#include "text_writer.h"

#define RULE "--------------------------------------------------------------------------------\n"

/* ---- callers and callees of a row, summed per (file, name, object) ----------------------- */

typedef struct group {
    const char *file, *name, *object;
    uint64_t count;
    size_t slot;
} group;

typedef struct grouper {
    const cg_profile *p;
    size_t width, nsort;
    const size_t *sort;
    group *g;
    size_t n, cap;
    cg_cost *costs; /* cap * width */
    cg_cost *keys;  /* cap * nsort: the sort events' costs */
    uint32_t *order, *tmp;
    uint32_t *slots;
    size_t mask;
} grouper;

static int grow_groups(grouper *s) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    group *g = realloc(s->g, cap * sizeof *g);
    if (g) s->g = g;
    cg_cost *costs = g ? realloc(s->costs, cap * s->width * sizeof *costs) : NULL;
    if (costs) s->costs = costs;
    cg_cost *keys = costs ? realloc(s->keys, (cap * s->nsort + 1) * sizeof *keys) : NULL;
    if (keys) s->keys = keys;
    uint32_t *order = keys ? realloc(s->order, cap * sizeof *order) : NULL;
    if (order) s->order = order;
    uint32_t *tmp =
        order ? realloc(s->tmp, (2 * cap + 1) * sizeof *tmp) : NULL; /* sort scratch, run bounds */
    if (tmp) s->tmp = tmp;
    uint32_t *slots = tmp ? malloc(2 * cap * sizeof *slots) : NULL;
    if (!slots) return -1;
    memset(slots, 0xff, 2 * cap * sizeof *slots);
    size_t mask = 2 * cap - 1;
    for (size_t i = 0; i < s->n; i++) {
        size_t h = cg_hash_names(s->g[i].file, s->g[i].name, s->g[i].object) & mask;
        while (slots[h] != UINT32_MAX) h = (h + 1) & mask;
        slots[h] = (uint32_t)i;
        s->g[i].slot = h;
    }
    free(s->slots);
    s->slots = slots;
    s->mask = mask;
    s->cap = cap;
    return 0;
}

static void reset_groups(grouper *s) {
    for (size_t i = 0; i < s->n; i++) s->slots[s->g[i].slot] = UINT32_MAX;
    s->n = 0;
}

/* Adds a call to the group of (file, name, object). -1: no memory, -2: overflow. */
static int add_to_group(grouper *s, const char *file, const char *name, const char *object,
                        size_t call) {
    if (s->n == s->cap && grow_groups(s)) return -1;
    size_t h = cg_hash_names(file, name, object) & s->mask;
    for (; s->slots[h] != UINT32_MAX; h = (h + 1) & s->mask) {
        group *x = &s->g[s->slots[h]];
        if (x->file == file && x->name == name && x->object == object) break;
    }
    uint32_t i = s->slots[h];
    if (i == UINT32_MAX) {
        i = (uint32_t)s->n++;
        s->g[i] = (group){file, name, object, 0, h};
        memset(&s->costs[i * s->width], 0, s->width * sizeof(cg_cost));
        s->slots[h] = i;
    }
    group *x = &s->g[i];
    cg_cost *acc = &s->costs[i * s->width];
    const cg_cost *v = cg_call_inclusive(s->p, call);
    int bad = __builtin_add_overflow(x->count, cg_call_times(s->p, call), &x->count);
    bad |= cg_add_costs(acc, v, s->width);
    return bad ? -2 : 0;
}

/* Reads the characters of "file:name" one at a time; -1 at the end. */
typedef struct key_reader {
    const char *part[3];
    int at;
} key_reader;

static int next_char(key_reader *k) {
    while (!*k->part[k->at]) {
        if (k->at == 2) return -1;
        k->at++;
    }
    return (unsigned char)*k->part[k->at]++;
}

/* "file:name" of x and y compared as strings ("???" for no file), then the objects. */
static int cmp_keys(const group *x, const group *y) {
    key_reader a = {{*x->file ? x->file : "???", ":", x->name}, 0};
    key_reader b = {{*y->file ? y->file : "???", ":", y->name}, 0};
    for (;;) {
        int ca = next_char(&a), cb = next_char(&b);
        if (ca != cb) return ca - cb;
        if (ca < 0) break;
    }
    return strcmp(x->object, y->object);
}

static int group_before(const grouper *s, uint32_t a, uint32_t b) {
    for (size_t k = 0; k < s->nsort; k++) {
        cg_cost x = s->keys[a * s->nsort + k], y = s->keys[b * s->nsort + k];
        if (x != y) return x > y;
    }
    return cmp_keys(&s->g[a], &s->g[b]) < 0;
}

#define GROUP_BEFORE(s, a, b) group_before((s), *(a), *(b))
DEFINE_MERGE_SORT(sort_groups_by, uint32_t, const grouper *, GROUP_BEFORE)

/* Sorts the groups by the sort events. -2: a derived cost overflows. */
static int sort_groups(grouper *s) {
    size_t n = s->n;
    for (size_t i = 0; i < n; i++) {
        s->order[i] = (uint32_t)i;
        for (size_t k = 0; k < s->nsort; k++)
            if (cg_cost_of(s->p, &s->costs[i * s->width], s->sort[k], &s->keys[i * s->nsort + k]))
                return -2;
    }
    sort_groups_by(s, s->order, s->tmp, s->tmp + n, n);
    return 0;
}

static int same_file(const char *a, const char *b) {
    return a == b || strcmp(a, b) == 0;
}

/* The calls into a row's functions (those whose own file the row is in), by caller row. */
static int group_callers(grouper *s, const cg_rows *r, size_t row) {
    const cg_profile *p = s->p;
    int merged = cg_rows_merged(r);
    const char *file = cg_row_file(r, row);
    for (size_t k = 0, nf = cg_row_function_count(r, row); k < nf; k++) {
        size_t fn = cg_row_function(r, row, k);
        if (!merged && !same_file(cg_function_file(p, fn), file)) continue;
        for (size_t i = 0, n = cg_function_caller_count(p, fn); i < n; i++) {
            size_t c = cg_function_caller(p, fn, i), caller = cg_call_caller(p, c);
            const char *at = merged ? cg_function_file(p, caller) : cg_call_file(p, c);
            int rc =
                add_to_group(s, at, cg_function_name(p, caller), cg_function_object(p, caller), c);
            if (rc) return rc;
        }
    }
    return sort_groups(s);
}

/* The calls made from a row's file (all of its function's when merged), by callee. */
static int group_callees(grouper *s, const cg_rows *r, size_t row) {
    const cg_profile *p = s->p;
    int merged = cg_rows_merged(r);
    const char *file = cg_row_file(r, row);
    for (size_t k = 0, nf = cg_row_function_count(r, row); k < nf; k++) {
        size_t fn = cg_row_function(r, row, k);
        for (size_t i = 0, n = cg_function_callee_count(p, fn); i < n; i++) {
            size_t c = cg_function_callee(p, fn, i), callee = cg_call_callee(p, c);
            if (!merged && !same_file(cg_call_file(p, c), file)) continue;
            int rc = add_to_group(s, cg_function_file(p, callee), cg_function_name(p, callee),
                                  cg_function_object(p, callee), c);
            if (rc) return rc;
        }
    }
    return sort_groups(s);
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct listing_ctx {
    const cg_profile *p;
    const cg_listing *o;
    cg_columns cols;
    text_writer *w;
    char *line; /* cg_columns_max bytes */
} listing_ctx;

/* The shown events' costs of a raw row; -2 when a derived one overflows. */
static int shown_costs(const listing_ctx *x, const cg_cost *row, cg_cost *out) {
    for (size_t k = 0; k < x->o->nshow; k++)
        if (cg_cost_of(x->p, row, x->o->show[k], &out[k])) return -2;
    return 0;
}

static void put_object(text_writer *w, const char *object) {
    if (!*object) return;
    text_put(w, " [", 2);
    text_puts(w, object);
    text_put(w, "]", 1);
}

/* The lines of sorted groups: "cells  < file:name (Nx) [object]". */
static int put_groups(listing_ctx *x, const grouper *s, const char *marker) {
    cg_cost v[CG_MAX_EVENTS];
    for (size_t k = 0; k < s->n; k++) {
        const group *g = &s->g[s->order[k]];
        if (shown_costs(x, &s->costs[s->order[k] * s->width], v)) return -2;
        text_put(x->w, x->line, cg_columns_cells(&x->cols, v, 0, x->line));
        text_puts(x->w, marker);
        text_put_label(x->w, g->file, g->name);
        char count[32];
        text_put(x->w, " (", 2);
        text_put(x->w, count, cg_format_count((cg_cost)g->count, count));
        text_put(x->w, "x)", 2);
        put_object(x->w, g->object);
        text_put(x->w, "\n", 1);
    }
    return 0;
}

static int put_row(listing_ctx *x, grouper *s, const cg_rows *r, size_t row) {
    const cg_listing *o = x->o;
    int unknown = !*cg_row_file(r, row) && strcmp(cg_row_name(r, row), "???") == 0;
    int rc = 0;
    if (o->tree) text_put(x->w, "\n", 1);
    if ((o->tree & CG_TREE_CALLERS) && !unknown) {
        reset_groups(s);
        rc = group_callers(s, r, row);
        if (!rc) rc = put_groups(x, s, " < ");
    }
    cg_cost v[CG_MAX_EVENTS];
    if (!rc) rc = shown_costs(x, o->inclusive ? cg_row_inclusive(r, row) : cg_row_self(r, row), v);
    if (rc) return rc;
    text_put(x->w, x->line, cg_columns_cells(&x->cols, v, 0, x->line));
    text_puts(x->w, o->tree ? " *  " : " ");
    text_put_label(x->w, cg_row_file(r, row), cg_row_name(r, row));
    put_object(x->w, cg_row_object(r, row));
    text_put(x->w, "\n", 1);
    if ((o->tree & CG_TREE_CALLEES) && !unknown) {
        reset_groups(s);
        rc = group_callees(s, r, row);
        if (!rc) rc = put_groups(x, s, " >   ");
    }
    return rc;
}

/* Columns as wide as every row's costs (callgrind_annotate sizes them over all functions,
 * shown or not). */
static int fit_columns(listing_ctx *x, const cg_rows *r) {
    const cg_listing *o = x->o;
    const char *names[CG_MAX_EVENTS];
    cg_cost totals[CG_MAX_EVENTS], v[CG_MAX_EVENTS];
    for (size_t k = 0; k < o->nshow; k++) names[k] = cg_event_name(x->p, o->show[k]);
    if (shown_costs(x, cg_total_costs(x->p), totals)) return -2;
    cg_columns_init(&x->cols, names, o->nshow, totals, o->percentages);
    for (size_t i = 0, n = cg_rows_count(r); i < n; i++) {
        if (shown_costs(x, o->inclusive ? cg_row_inclusive(r, i) : cg_row_self(r, i), v)) return -2;
        cg_columns_fit(&x->cols, v);
    }
    x->line = malloc(cg_columns_max(&x->cols));
    if (!x->line) return -1;
    text_puts(x->w, RULE);
    text_put(x->w, x->line, cg_columns_heading(&x->cols, names, x->line));
    text_puts(x->w, " file:function\n" RULE);
    return 0;
}

int cg_listing_write(const cg_rows *r, const cg_listing *o, cg_text_sink sink, void *userdata,
                     cg_error *err) {
    const cg_profile *p = cg_rows_profile(r);
    text_writer *w = text_writer_new(sink, userdata);
    grouper s = {
        p, cg_raw_event_count(p), o->nsort, o->sort, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, 0};
    listing_ctx x = {p, o, {0}, w, NULL};
    int rc = w ? 0 : -1;
    if (!rc) rc = grow_groups(&s);
    if (!rc) rc = fit_columns(&x, r);
    for (size_t k = 0, n = cg_rows_shown(r); !rc && k < n && !w->stopped; k++)
        rc = put_row(&x, &s, r, cg_rows_shown_row(r, k));
    if (!rc) text_flush(w);
    int stopped = w && w->stopped;
    free(w);
    free(x.line);
    free(s.g);
    free(s.costs);
    free(s.keys);
    free(s.order);
    free(s.tmp);
    free(s.slots);
    return text_writer_end(rc, stopped, err, "a cost of the listing does not fit in 64 bits",
                           "the listing was stopped");
}
