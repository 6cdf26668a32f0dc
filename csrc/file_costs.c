/* file_costs.c - the self cost of every source file (report.h): what prof:by_file lists. A
 * function whose records all lie in one file gives that file its self cost, which the load
 * summed already; only the records of functions with code in several files (inlined code) are
 * read. The file index says which is which. Built on callgrind.h alone. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "report.h"

struct cg_file_costs {
    const cg_file_index *x;
    size_t width;      /* raw events */
    size_t n;          /* files with records */
    uint32_t *file;    /* file index entry of each */
    cg_cost *costs;    /* n * width */
    uint32_t *slot_of; /* per index entry: the slot in file[], or UINT32_MAX */
};

/* A table from the profile's file name pointers to index entries, for records read through
 * the cursor (the index and the cursor give the same interned pointers). */
typedef struct name_slots {
    const char **name;
    uint32_t *entry;
    size_t mask;
} name_slots;

static size_t slot_hash(const char *s) {
    uint64_t h = (uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15u;
    return (size_t)(h ^ (h >> 31));
}

static int name_slots_init(name_slots *t, const cg_file_index *x) {
    size_t n = cg_file_index_count(x), size = 16;
    while (size < 2 * n) size *= 2;
    t->name = calloc(size, sizeof *t->name);
    t->entry = malloc(size * sizeof *t->entry);
    t->mask = size - 1;
    if (!t->name || !t->entry) return -1;
    for (size_t k = 0; k < n; k++) {
        const char *name = cg_file_index_name(x, k);
        size_t i = slot_hash(name) & t->mask;
        while (t->name[i]) i = (i + 1) & t->mask;
        t->name[i] = name;
        t->entry[i] = (uint32_t)k;
    }
    return 0;
}

static size_t name_slots_find(const name_slots *t, const char *name) {
    for (size_t i = slot_hash(name) & t->mask; t->name[i]; i = (i + 1) & t->mask)
        if (t->name[i] == name) return t->entry[i];
    return CG_NONE;
}

static void name_slots_free(name_slots *t) {
    free(t->name);
    free(t->entry);
}

void cg_file_costs_free(cg_file_costs *f) {
    if (!f) return;
    free(f->file);
    free(f->costs);
    free(f->slot_of);
    free(f);
}

/* The files with records of any function, each given a slot (in name order). */
static int make_slots(cg_file_costs *f) {
    const cg_file_index *x = f->x;
    size_t nfiles = cg_file_index_count(x);
    f->file = malloc((nfiles + 1) * sizeof *f->file);
    f->slot_of = malloc((nfiles + 1) * sizeof *f->slot_of);
    if (!f->file || !f->slot_of) return -1;
    for (size_t k = 0; k < nfiles; k++) {
        f->slot_of[k] = UINT32_MAX;
        for (size_t i = 0, n = cg_file_index_function_count(x, k); i < n; i++) {
            if (cg_file_index_function_kind(x, k, i, NULL) == CG_IN_CALLS) continue;
            f->slot_of[k] = (uint32_t)f->n;
            f->file[f->n++] = (uint32_t)k;
            break;
        }
    }
    f->costs = calloc(f->n ? f->n * f->width : 1, sizeof *f->costs);
    return f->costs ? 0 : -1;
}

/* Adds the self costs of the functions in one file, and reads the records of the others. */
static int sum_costs(cg_file_costs *f, const cg_profile *p) {
    const cg_file_index *x = f->x;
    int overflow = 0;
    for (size_t s = 0; s < f->n; s++) {
        size_t k = f->file[s];
        const char *name = cg_file_index_name(x, k);
        for (size_t i = 0, n = cg_file_index_function_count(x, k); i < n; i++) {
            size_t fn = cg_file_index_function(x, k, i);
            if (cg_file_index_single_file(x, fn) == name)
                overflow |=
                    cg_add_costs(&f->costs[s * f->width], cg_function_self(p, fn), f->width);
        }
    }
    name_slots names;
    if (name_slots_init(&names, x)) {
        name_slots_free(&names);
        return -1;
    }
    cg_line_cursor cursor;
    cg_line_run run;
    for (size_t fn = 0, nfns = cg_function_count(p); fn < nfns; fn++) {
        if (cg_file_index_single_file(x, fn)) continue; /* none, or summed above */
        cg_line_cursor_init(&cursor, p, fn);
        int rc;
        while ((rc = cg_line_cursor_next_run(&cursor, CG_RUN_FILE, &run)) > 0) {
            size_t k = name_slots_find(&names, run.file);
            if (k == CG_NONE) { /* the index was made from these records: never */
                name_slots_free(&names);
                return -1;
            }
            uint32_t s = f->slot_of[k];
            overflow |= cg_add_costs(&f->costs[s * f->width], run.costs, f->width);
        }
        overflow |= rc < 0;
    }
    name_slots_free(&names);
    return overflow ? 1 : 0;
}

cg_file_costs *cg_file_costs_build(cg_profile *p, cg_error *err) {
    const cg_file_index *x = cg_file_index_get(p, err);
    if (!x) return NULL;
    cg_file_costs *f = calloc(1, sizeof *f);
    int rc = -1;
    if (f) {
        f->x = x;
        f->width = cg_raw_event_count(p);
        rc = make_slots(f) ? -1 : sum_costs(f, p);
    }
    if (rc == 0) return f;
    if (rc > 0)
        set_error(err, CG_ERR_OVERFLOW, 0, "the cost of a file does not fit in 64 bits");
    else
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
    cg_file_costs_free(f);
    return NULL;
}

size_t cg_file_costs_count(const cg_file_costs *f) {
    return f->n;
}
const char *cg_file_costs_name(const cg_file_costs *f, size_t i) {
    return cg_file_index_name(f->x, f->file[i]);
}
const cg_cost *cg_file_costs_row(const cg_file_costs *f, size_t i) {
    return &f->costs[i * f->width];
}
