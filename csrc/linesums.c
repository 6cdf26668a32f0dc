/* linesums.c - the self cost of one event per source line (cg_line_sums): every line record of
 * the functions asked for, summed by (file, line) with overflow checks. What an editor shows
 * beside a source file, without an object per record. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "hash.h"
#include "model.h"
#include "vec.h"

typedef struct line_sum {
    uint32_t file; /* string id */
    uint64_t line;
    cg_cost cost;
} line_sum;

struct cg_line_sums {
    const cg_profile *p;
    line_sum *sums;
    size_t n, cap;
    idxtab index;
    uint64_t seed;
};

static int sum_eq(const void *ctx, uint32_t index, const void *key) {
    const line_sum *a = &((const cg_line_sums *)ctx)->sums[index], *b = key;
    return a->file == b->file && a->line == b->line;
}

/* Adds `cost` to the sum of (file, line); -1 when out of memory, 1 when the sum overflows. */
static int add(cg_line_sums *s, uint32_t file, uint64_t line, cg_cost cost) {
    line_sum key = {file, line, 0};
    uint32_t tag = (uint32_t)hash_mix(hash_combine(hash_combine(s->seed, file), line));
    size_t slot;
    int64_t found = idxtab_find(&s->index, tag, sum_eq, s, &key, &slot);
    if (found >= 0) return cost_add(&s->sums[found].cost, cost) ? 1 : 0;
    if (idxtab_grow(&s->index) || VEC_RESERVE(s->sums, s->cap, s->n + 1)) return -1;
    (void)idxtab_find(&s->index, tag, sum_eq, s, &key, &slot);
    key.cost = cost;
    s->sums[s->n] = key;
    idxtab_put(&s->index, slot, tag, (uint32_t)s->n++);
    return 0;
}

/* The string id of `file` in the profile, or -1 when no record can be in it. */
static int64_t file_id(const cg_profile *p, const char *file) {
    for (size_t id = 0; id < p->strings.count; id++)
        if (!strcmp(strtab_get(&p->strings, (uint32_t)id), file)) return (int64_t)id;
    return -1;
}

/* Adds the records of function `fn` (only those in string id `only` unless it is -1); 0, or
 * -1 with *err set. */
static int sum_function(cg_line_sums *s, size_t fn, int64_t only, size_t ev, cg_error *err) {
    const cg_profile *p = s->p;
    int has_lines = (p->positions & CG_POS_LINE) != 0;
    const char *event = cg_event_name(p, ev);
    cg_cost row[CG_MAX_EVENTS];
    line_reader r;
    line_reader_init(&r, &p->line_stores[fn]);
    uint32_t records;
    int more;
    /* a line's instructions summed as they come, then added to its entry once */
    while ((more = line_reader_run(&r, row, p->nraw, 1, &records)) != 0) {
        if (only >= 0 && r.file != (uint32_t)only) continue;
        cg_cost v;
        if (more < 0 || cg_cost_of(p, row, ev, &v) != CG_OK) {
            set_error(err, CG_ERR_OVERFLOW, 0, "the cost of event '%s' does not fit in 64 bits",
                      event);
            return -1;
        }
        int rc = add(s, r.file, has_lines ? r.line : 0, v);
        if (rc) {
            if (rc < 0)
                set_error(err, CG_ERR_NOMEM, 0, "out of memory");
            else
                set_error(err, CG_ERR_OVERFLOW, 0,
                          "the cost of event '%s' on a line does not fit in 64 bits", event);
            return -1;
        }
    }
    return 0;
}

static cg_line_sums *new_sums(const cg_profile *p, cg_error *err) {
    cg_line_sums *s = calloc(1, sizeof *s);
    if (!s) {
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    s->p = p;
    s->seed = hash_new_seed(s);
    return s;
}

cg_line_sums *cg_line_sums_build(const cg_profile *p, size_t ev, const char *file, size_t first,
                                 size_t stop, cg_error *err) {
    cg_line_sums *s = new_sums(p, err);
    if (!s) return NULL;
    int64_t only = file ? file_id(p, file) : -1;
    if (file && only < 0) return s; /* no record names that file */
    for (size_t fn = first; fn < stop && fn < p->nfns; fn++) {
        if (sum_function(s, fn, only, ev, err)) {
            cg_line_sums_free(s);
            return NULL;
        }
    }
    return s;
}

cg_line_sums *cg_line_sums_build_file(cg_profile *p, size_t ev, const char *file, cg_error *err) {
    const cg_file_index *x = cg_file_index_get(p, err);
    cg_line_sums *s = x ? new_sums(p, err) : NULL;
    if (!s) return NULL;
    size_t k = cg_file_index_find(x, file);
    if (k == CG_NONE) return s; /* no record names that file */
    int64_t only = file_index_string(x, k);
    int has_lines = (p->positions & CG_POS_LINE) != 0;
    for (size_t i = 0, n = cg_file_index_function_count(x, k); i < n; i++) {
        uint64_t line;
        size_t fn = cg_file_index_function(x, k, i);
        int kind = cg_file_index_function_kind(x, k, i, &line), rc = 0;
        if (kind == CG_IN_RECORDS) {
            rc = sum_function(s, fn, only, ev, err);
        } else if (kind == CG_IN_LINE) {
            /* every record of the function is on that line: its self cost is the line's */
            cg_cost v;
            rc = cg_cost_of(p, cg_function_self(p, fn), ev, &v) != CG_OK;
            int added = rc ? 0 : add(s, (uint32_t)only, has_lines ? line : 0, v);
            if (rc || added > 0)
                set_error(err, CG_ERR_OVERFLOW, 0, "the cost of event '%s' does not fit in 64 bits",
                          cg_event_name(p, ev));
            else if (added < 0)
                set_error(err, CG_ERR_NOMEM, 0, "out of memory");
            rc = rc || added;
        }
        if (rc) {
            cg_line_sums_free(s);
            return NULL;
        }
    }
    return s;
}

void cg_line_sums_free(cg_line_sums *s) {
    if (!s) return;
    free(s->sums);
    idxtab_free(&s->index);
    free(s);
}

size_t cg_line_sums_count(const cg_line_sums *s) {
    return s->n;
}
const char *cg_line_sums_file(const cg_line_sums *s, size_t i) {
    return strtab_get(&s->p->strings, s->sums[i].file);
}
uint64_t cg_line_sums_line(const cg_line_sums *s, size_t i) {
    return s->sums[i].line;
}
cg_cost cg_line_sums_cost(const cg_line_sums *s, size_t i) {
    return s->sums[i].cost;
}
