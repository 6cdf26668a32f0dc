/* rows.c - callgrind_annotate's rows ("file:function"), summed over every line record and call
 * of the profile in one pass, then sorted and cut at a threshold, so that a report touches only
 * the rows it prints. Built on the public API alone (callgrind.h).
 *
 * Split rows (callgrind_annotate's): one row per (file, function name, object), the file being
 * the one the code is in, so code a function inlined from a header gets a row of its own. A
 * row's self cost is the cost of its line records. Its inclusive cost: for the row in the
 * function's own file of a function that others call, the function's inclusive cost; for any
 * other row, its self cost plus the calls made from its file, self-calls and calls within the
 * function's cycle left out. Merged rows: one per function, its self and inclusive costs. */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "callgrind.h"
#include "fault.h"
#include "msort.h"
#include "pages.h"
#include "report.h"
#include "vec.h"

typedef struct row {
    const char *file, *name, *object; /* owned by the profile */
    size_t key;                       /* "file:name" ("???" for no file) in the key pool */
    uint32_t first_fn, last_fn, nfns; /* functions: fn_list[first_fn .. ], linked below */
    uint64_t called;
    int primary;
} row;

struct cg_rows {
    const cg_profile *p;
    size_t n, cap, width; /* width: raw events per cost row */
    row *rows;
    cg_cost *self, *incl;       /* n * width each */
    uint32_t *fn_next, *fn_row; /* per function entry: the next entry of the same row */
    size_t *fn_of;              /* per function entry: the function */
    size_t nentries, entries_cap;
    uint32_t *slots; /* open-addressing index of rows by (file, name, object) */
    size_t mask;
    char *keys; /* the rows' keys, one after the other with their NULs */
    size_t keys_used, keys_cap;
    uint32_t *order; /* the rows to show, in order (cg_rows_select) */
    size_t nshown;
    int merged;
};

/* One file of one function while it is summed. */
typedef struct part {
    const char *file;
    cg_cost *self, *calls;
} part;

/* Sets `err` (fault.h) and gives -1. */
static int fail(cg_error *err, int code, const char *message) {
    set_error(err, code, 0, "%s", message);
    return -1;
}

/* The index made anew with room for `rows` rows at half load at least. */
static int index_for(cg_rows *r, size_t rows) {
    size_t size = 1024;
    while (size < 2 * rows) size *= 2;
    uint32_t *slots = pages_buffer(size * sizeof *slots);
    if (!slots) return -1;
    memset(slots, 0xff, size * sizeof *slots);
    for (size_t i = 0; i < r->n; i++) {
        size_t s = cg_hash_names(r->rows[i].file, r->rows[i].name, r->rows[i].object) & (size - 1);
        while (slots[s] != UINT32_MAX) s = (s + 1) & (size - 1);
        slots[s] = (uint32_t)i;
    }
    free(r->slots);
    r->slots = slots;
    r->mask = size - 1;
    return 0;
}

static int grow_index(cg_rows *r) {
    return index_for(r, r->mask + 1);
}

/* Room for `cap` rows (the row arrays are n * width costs each: reserved once where the number
 * of rows is known, not doubled and copied). */
static int reserve_rows(cg_rows *r, size_t cap) {
    /* the arrays of a big profile's rows are megabytes: grown in huge pages (vec.h), whose
     * fresh pages fault once per 2 MiB; r->cap is what all three hold at least */
    size_t rows_cap = r->cap, self_cap = r->cap * r->width, incl_cap = self_cap;
    if (cap > SIZE_MAX / r->width / sizeof(cg_cost)) return -1;
    if (VEC_RESERVE(r->rows, rows_cap, cap) || VEC_RESERVE(r->self, self_cap, cap * r->width) ||
        VEC_RESERVE(r->incl, incl_cap, cap * r->width))
        return -1;
    size_t fit = self_cap < incl_cap ? self_cap / r->width : incl_cap / r->width;
    r->cap = rows_cap < fit ? rows_cap : fit;
    return 0;
}

static int grow_rows(cg_rows *r) {
    return reserve_rows(r, r->cap ? 2 * r->cap : 1024);
}

/* "file:name" ("???" for no file) added to the key pool: its offset there, or SIZE_MAX when
 * out of memory. One pool rather than a block per row: a profile's rows are 100,000 keys. */
static size_t add_key(cg_rows *r, const char *file, const char *name) {
    if (!*file) file = "???";
    size_t a = strlen(file), b = strlen(name);
    if (VEC_RESERVE(r->keys, r->keys_cap, r->keys_used + a + b + 2)) return SIZE_MAX;
    char *key = r->keys + r->keys_used;
    memcpy(key, file, a);
    key[a] = ':';
    memcpy(key + a + 1, name, b + 1);
    r->keys_used += a + b + 2;
    return (size_t)(key - r->keys);
}

/* The row of (file, name, object), made when new; UINT32_MAX when out of memory. */
static uint32_t find_row(cg_rows *r, const char *file, const char *name, const char *object) {
    if ((r->n + 1) * 2 > r->mask && grow_index(r)) return UINT32_MAX;
    size_t s = cg_hash_names(file, name, object) & r->mask;
    for (; r->slots[s] != UINT32_MAX; s = (s + 1) & r->mask) {
        const row *x = &r->rows[r->slots[s]];
        if (x->file == file && x->name == name && x->object == object) return r->slots[s];
    }
    if (r->n == r->cap && grow_rows(r)) return UINT32_MAX;
    size_t key = add_key(r, file, name);
    if (key == SIZE_MAX) return UINT32_MAX;
    row *x = &r->rows[r->n];
    *x = (row){file, name, object, key, UINT32_MAX, UINT32_MAX, 0, 0, 0};
    memset(&r->self[r->n * r->width], 0, r->width * sizeof(cg_cost));
    memset(&r->incl[r->n * r->width], 0, r->width * sizeof(cg_cost));
    r->slots[s] = (uint32_t)r->n;
    return (uint32_t)r->n++;
}

/* Adds function `fn` to row `i` (rows list their functions in the order they were added). */
static int add_function(cg_rows *r, uint32_t i, size_t fn) {
    if (r->nentries == r->entries_cap) {
        size_t want = r->entries_cap ? 2 * r->entries_cap : 1024, least = SIZE_MAX;
        if (VEC_RESERVE_SHARED(r->fn_next, r->entries_cap, want, least) ||
            VEC_RESERVE_SHARED(r->fn_of, r->entries_cap, want, least) ||
            VEC_RESERVE_SHARED(r->fn_row, r->entries_cap, want, least))
            return -1;
        r->entries_cap = least;
    }
    uint32_t e = (uint32_t)r->nentries++;
    r->fn_of[e] = fn;
    r->fn_next[e] = UINT32_MAX;
    r->fn_row[e] = i;
    row *x = &r->rows[i];
    if (x->first_fn == UINT32_MAX)
        x->first_fn = e;
    else
        r->fn_next[x->last_fn] = e;
    x->last_fn = e;
    x->nfns++;
    return 0;
}

/* Is `fn` called by another function with a positive count (and so costs what its callers
 * spent in it)? Cycle members are not: their callers' share is the cycle's. */
static int is_called(const cg_profile *p, size_t fn) {
    if (cg_function_cycle(p, fn) != CG_NONE) return 0;
    for (size_t i = 0, n = cg_function_caller_count(p, fn); i < n; i++) {
        size_t c = cg_function_caller(p, fn, i);
        if (cg_call_times(p, c) > 0 && cg_call_caller(p, c) != fn) return 1;
    }
    return 0;
}

/* The part of `file` among a function's parts, added when new; NULL when out of memory. */
static part *part_of(part **parts, size_t *n, size_t *cap, cg_cost **pool, size_t width,
                     const char *file) {
    for (size_t i = *n; i-- > 0;)
        if ((*parts)[i].file == file) return &(*parts)[i];
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        part *grown = realloc(*parts, c * sizeof *grown);
        if (!grown) return NULL;
        *parts = grown;
        cg_cost *costs = realloc(*pool, c * 2 * width * sizeof *costs);
        if (!costs) return NULL;
        *pool = costs;
        *cap = c;
    }
    /* the costs live in the pool, which may have moved: pointers are set again by the caller */
    memset(&(*pool)[*n * 2 * width], 0, 2 * width * sizeof **pool);
    (*parts)[*n].file = file;
    return &(*parts)[(*n)++];
}

typedef struct summer {
    part *parts;
    size_t n, cap;
    cg_cost *pool;
} summer;

static cg_cost *part_self(summer *s, size_t w, const part *x) {
    return &s->pool[(size_t)(x - s->parts) * 2 * w];
}
static cg_cost *part_calls(summer *s, size_t w, const part *x) {
    return &s->pool[(size_t)(x - s->parts) * 2 * w + w];
}

/* Sums one function's line records and leaving calls per file. */
static int sum_function(cg_rows *r, summer *s, size_t fn, cg_line_cursor *cursor,
                        const cg_file_index *index) {
    const cg_profile *p = r->p;
    size_t w = r->width;
    s->n = 0;
    if (!part_of(&s->parts, &s->n, &s->cap, &s->pool, w, cg_function_file(p, fn))) return -1;
    const char *only =
        index ? cg_file_index_single_file(index, fn) : cg_function_single_file(p, fn);
    if (only) {
        /* every record in one file: its self cost is the function's, summed by the load */
        part *x = part_of(&s->parts, &s->n, &s->cap, &s->pool, w, only);
        if (!x) return -1;
        memcpy(part_self(s, w, x), cg_function_self(p, fn), w * sizeof(cg_cost));
    } else {
        cg_line_run run;
        int rc;
        cg_line_cursor_init(cursor, p, fn);
        while ((rc = cg_line_cursor_next_run(cursor, CG_RUN_FILE, &run)) > 0) {
            part *x = part_of(&s->parts, &s->n, &s->cap, &s->pool, w, run.file);
            if (!x) return -1;
            if (cg_add_costs(part_self(s, w, x), run.costs, w)) return -2;
        }
        if (rc < 0) return -2;
    }
    size_t cycle = cg_function_cycle(p, fn);
    for (size_t i = 0, n = cg_function_callee_count(p, fn); i < n; i++) {
        size_t c = cg_function_callee(p, fn, i);
        part *x = part_of(&s->parts, &s->n, &s->cap, &s->pool, w, cg_call_file(p, c));
        if (!x) return -1;
        size_t callee = cg_call_callee(p, c);
        int leaves = callee != fn && !(cycle != CG_NONE && cg_function_cycle(p, callee) == cycle);
        if (leaves && cg_add_costs(part_calls(s, w, x), cg_call_inclusive(p, c), w)) return -2;
    }
    return 0;
}

/* Adds a summed function's parts to their rows. */
static int add_parts(cg_rows *r, summer *s, size_t fn) {
    const cg_profile *p = r->p;
    size_t w = r->width;
    const char *own = cg_function_file(p, fn), *name = cg_function_name(p, fn);
    /* callgrind_annotate's keys name no object: one row for every object */
    const char *object = r->merged == CG_ROWS_KEYS ? "" : cg_function_object(p, fn);
    int called = is_called(p, fn);
    for (size_t k = 0; k < s->n; k++) {
        const part *x = &s->parts[k];
        uint32_t i = find_row(r, x->file, name, object);
        if (i == UINT32_MAX || add_function(r, i, fn)) return -1;
        row *y = &r->rows[i];
        cg_cost *self = &r->self[i * w], *incl = &r->incl[i * w];
        int bad = cg_add_costs(self, part_self(s, w, x), w);
        if (x->file == own) {
            y->primary = 1;
            y->called += cg_function_called(p, fn);
        }
        if (x->file == own && called) {
            bad |= cg_add_costs(incl, cg_function_inclusive(p, fn), w);
        } else {
            bad |= cg_add_costs(incl, part_self(s, w, x), w);
            bad |= cg_add_costs(incl, part_calls(s, w, x), w);
        }
        if (bad) return -2;
    }
    return 0;
}

static int add_merged(cg_rows *r, size_t fn) {
    const cg_profile *p = r->p;
    size_t w = r->width;
    if (r->n == r->cap && grow_rows(r)) return -1;
    size_t key = add_key(r, cg_function_file(p, fn), cg_function_name(p, fn));
    if (key == SIZE_MAX) return -1;
    uint32_t i = (uint32_t)r->n++;
    r->rows[i] = (row){cg_function_file(p, fn),
                       cg_function_name(p, fn),
                       cg_function_object(p, fn),
                       key,
                       UINT32_MAX,
                       UINT32_MAX,
                       0,
                       cg_function_called(p, fn),
                       1};
    memcpy(&r->self[i * w], cg_function_self(p, fn), w * sizeof(cg_cost));
    memcpy(&r->incl[i * w], cg_function_inclusive(p, fn), w * sizeof(cg_cost));
    return add_function(r, i, fn);
}

cg_rows *cg_rows_build(const cg_profile *p, int merged, const cg_file_index *index, cg_error *err) {
    cg_rows *r = calloc(1, sizeof *r);
    cg_line_cursor *cursor = malloc(sizeof *cursor);
    summer s = {NULL, 0, 0, NULL};
    int rc = r && cursor ? 0 : -1;
    if (r) {
        r->p = p;
        r->width = cg_raw_event_count(p);
        r->merged = merged;
        /* a row for each function, most often: more only for code inlined from headers */
        size_t n = cg_function_count(p) ? cg_function_count(p) : 1;
        if (reserve_rows(r, n) || index_for(r, n)) rc = -1;
    }
    for (size_t fn = 0; rc == 0 && fn < cg_function_count(p); fn++) {
        if (merged == CG_ROWS_MERGED) {
            rc = add_merged(r, fn);
        } else {
            rc = sum_function(r, &s, fn, cursor, index);
            if (rc == 0) rc = add_parts(r, &s, fn);
        }
    }
    free(s.parts);
    free(s.pool);
    free(cursor);
    if (rc == 0) return r;
    cg_rows_free(r);
    fail(err, rc == -2 ? CG_ERR_OVERFLOW : CG_ERR_NOMEM,
         rc == -2 ? "a row's cost does not fit in 64 bits" : "out of memory");
    return NULL;
}

cg_rows *cg_rows_by_key(const cg_rows *split, cg_error *err) {
    cg_rows *r = calloc(1, sizeof *r);
    int rc = r ? 0 : -1;
    if (r) {
        r->p = split->p;
        r->width = split->width;
        r->merged = CG_ROWS_KEYS;
        /* at most a row for each row split */
        if (reserve_rows(r, split->n ? split->n : 1) || index_for(r, split->n)) rc = -1;
    }
    size_t w = split->width;
    for (size_t i = 0; rc == 0 && i < split->n; i++) {
        const row *x = &split->rows[i];
        uint32_t k = find_row(r, x->file, x->name, "");
        if (k == UINT32_MAX) {
            rc = -1;
            break;
        }
        row *y = &r->rows[k];
        y->primary |= x->primary;
        int bad = __builtin_add_overflow(y->called, x->called, &y->called);
        bad |= cg_add_costs(&r->self[k * w], &split->self[i * w], w);
        bad |= cg_add_costs(&r->incl[k * w], &split->incl[i * w], w);
        if (bad) rc = -2;
        for (uint32_t e = x->first_fn; rc == 0 && e != UINT32_MAX; e = split->fn_next[e])
            if (add_function(r, k, split->fn_of[e])) rc = -1;
    }
    if (rc == 0) return r;
    cg_rows_free(r);
    fail(err, rc == -2 ? CG_ERR_OVERFLOW : CG_ERR_NOMEM,
         rc == -2 ? "a row's cost does not fit in 64 bits" : "out of memory");
    return NULL;
}

void cg_rows_free(cg_rows *r) {
    if (!r) return;
    free(r->keys);
    free(r->rows);
    free(r->self);
    free(r->incl);
    free(r->fn_next);
    free(r->fn_row);
    free(r->fn_of);
    free(r->slots);
    free(r->order);
    free(r);
}

int cg_rows_merged(const cg_rows *r) {
    return r->merged == CG_ROWS_MERGED;
}
const cg_profile *cg_rows_profile(const cg_rows *r) {
    return r->p;
}
size_t cg_rows_count(const cg_rows *r) {
    return r->n;
}
const char *cg_row_file(const cg_rows *r, size_t i) {
    return r->rows[i].file;
}
const char *cg_row_name(const cg_rows *r, size_t i) {
    return r->rows[i].name;
}
const char *cg_row_object(const cg_rows *r, size_t i) {
    return r->rows[i].object;
}
const char *cg_row_key(const cg_rows *r, size_t i) {
    return r->keys + r->rows[i].key;
}
uint64_t cg_row_called(const cg_rows *r, size_t i) {
    return r->rows[i].called;
}
int cg_row_primary(const cg_rows *r, size_t i) {
    return r->rows[i].primary;
}
const cg_cost *cg_row_self(const cg_rows *r, size_t i) {
    return &r->self[i * r->width];
}
const cg_cost *cg_row_inclusive(const cg_rows *r, size_t i) {
    return &r->incl[i * r->width];
}
size_t cg_row_function_count(const cg_rows *r, size_t i) {
    return r->rows[i].nfns;
}
size_t cg_row_function(const cg_rows *r, size_t i, size_t k) {
    uint32_t e = r->rows[i].first_fn;
    while (k-- > 0) e = r->fn_next[e];
    return r->fn_of[e];
}

/* ---- sorting and the threshold ------------------------------------------------------------ */

typedef struct sort_ctx {
    const cg_rows *r;
    const cg_cost *keys; /* n * nsort */
    size_t nsort;
} sort_ctx;

/* Highest cost first, event after event. */
static int costs_before(const sort_ctx *c, uint32_t a, uint32_t b) {
    for (size_t k = 0; k < c->nsort; k++) {
        cg_cost x = c->keys[a * c->nsort + k], y = c->keys[b * c->nsort + k];
        if (x != y) return x > y;
    }
    return 0;
}

static int same_costs(const sort_ctx *c, uint32_t a, uint32_t b) {
    return memcmp(&c->keys[a * c->nsort], &c->keys[b * c->nsort], c->nsort * sizeof(cg_cost)) == 0;
}

/* Rows of equal costs by key, then object. */
static int names_before(const sort_ctx *c, uint32_t a, uint32_t b) {
    int d = strcmp(c->r->keys + c->r->rows[a].key, c->r->keys + c->r->rows[b].key);
    if (d) return d < 0;
    return strcmp(c->r->rows[a].object, c->r->rows[b].object) < 0;
}

#define COSTS_BEFORE(c, a, b) costs_before((c), *(a), *(b))
#define NAMES_BEFORE(c, a, b) names_before((c), *(a), *(b))
DEFINE_MERGE_SORT(sort_by_costs, uint32_t, const sort_ctx *, COSTS_BEFORE)
DEFINE_MERGE_SORT(sort_by_names, uint32_t, const sort_ctx *, NAMES_BEFORE)

/* Rows sorted by costs (sort_by_costs) put in listing order: rows of equal costs by key and
 * object. The costs alone decide how many rows are shown (rows of equal costs cover the same
 * share whatever their order), so only the runs of equal costs that reach into the `shown`
 * first rows are ordered by name: most rows of a big profile cost nothing, and comparing their
 * names was most of a listing's sort. */
static void order_ties(const sort_ctx *c, uint32_t *order, uint32_t *tmp, size_t n, size_t shown) {
    for (size_t start = 0; start < shown;) {
        size_t end = start + 1;
        while (end < n && same_costs(c, order[start], order[end])) end++;
        sort_by_names(c, order + start, tmp, tmp + n, end - start);
        start = end;
    }
}

/* callgrind_annotate's threshold, checked before each row: stop once, for every sort event,
 * the share reached is at least its threshold. The share of self listings is the sum of the
 * rows shown; of inclusive ones (which overlap) the total less the last row shown. */
static int reached(const cg_rows_query *q, const cg_cost *reached_costs, const cg_cost *totals) {
    for (size_t k = 0; k < q->nsort; k++) {
        double share = (double)reached_costs[k] * 100;
        if (totals[k] > 0) share /= (double)totals[k];
        if (share < q->thresholds[k]) return 0;
    }
    return 1;
}

int cg_rows_select(cg_rows *r, const cg_rows_query *q, cg_error *err) {
    const cg_profile *p = r->p;
    size_t n = r->n, w = r->width;
    free(r->order);
    r->order = pages_buffer((n ? n : 1) * sizeof *r->order);
    uint32_t *tmp = pages_buffer((2 * n + 1) * sizeof *tmp); /* the sort's scratch, then bounds */
    cg_cost *keys = pages_buffer((n * q->nsort + 1) * sizeof *keys);
    cg_cost totals[CG_MAX_EVENTS], covered[CG_MAX_EVENTS];
    int rc = r->order && tmp && keys ? 0 : fail(err, CG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const cg_cost *costs = q->inclusive ? &r->incl[i * w] : &r->self[i * w];
        r->order[i] = (uint32_t)i;
        for (size_t k = 0; rc == 0 && k < q->nsort; k++)
            if (cg_cost_of(p, costs, q->sort[k], &keys[i * q->nsort + k]))
                rc = fail(err, CG_ERR_OVERFLOW, "a derived cost does not fit in 64 bits");
    }
    for (size_t k = 0; rc == 0 && k < q->nsort; k++) {
        covered[k] = 0;
        if (cg_cost_of(p, cg_total_costs(p), q->sort[k], &totals[k]))
            rc = fail(err, CG_ERR_OVERFLOW, "a derived total does not fit in 64 bits");
    }
    if (rc == 0) {
        sort_ctx c = {r, keys, q->nsort};
        sort_by_costs(&c, r->order, tmp, tmp + n, n);
        size_t shown = 0;
        for (; shown < n && shown < q->limit; shown++) {
            if (!q->all && reached(q, covered, totals)) break;
            const cg_cost *row_keys = &keys[r->order[shown] * q->nsort];
            for (size_t k = 0; k < q->nsort; k++) {
                if (q->inclusive) {
                    if (__builtin_sub_overflow(totals[k], row_keys[k], &covered[k]))
                        covered[k] = row_keys[k] < 0 ? INT64_MAX : INT64_MIN;
                } else if (__builtin_add_overflow(covered[k], row_keys[k], &covered[k]))
                    covered[k] = row_keys[k] < 0 ? INT64_MIN : INT64_MAX;
            }
        }
        r->nshown = shown;
        order_ties(&c, r->order, tmp, n, shown);
    }
    free(tmp);
    free(keys);
    return rc;
}

size_t cg_rows_shown(const cg_rows *r) {
    return r->order ? r->nshown : 0;
}
size_t cg_rows_shown_row(const cg_rows *r, size_t k) {
    return r->order[k];
}
