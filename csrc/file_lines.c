/* file_lines.c - the costs of source lines for annotated source (see report.h): one pass over
 * the line records (of the functions the file index gives for the files asked for, or of every
 * function) sums the self cost of each line of the files asked for, every raw event at once;
 * one pass over the calls lists those made from each line. */
#include <stdlib.h>
#include <string.h>

#include "report.h"

typedef struct fl_file {
    const char *name;
    size_t n, cap;
    uint64_t *line;
    cg_cost *costs;  /* n * width */
    uint32_t *slots; /* line -> entry, open addressing */
    size_t mask;
    size_t base;          /* first global entry, once sorted */
    size_t nrec;          /* the entries made by line records come first */
    unsigned char *coded; /* once sorted: whether the line has line records */
} fl_file;

/* A file name pointer of the profile and what it maps to (a file index, or NOT_WANTED). */
typedef struct fl_name {
    const char *ptr;
    uint32_t file;
} fl_name;

#define NOT_WANTED UINT32_MAX

struct cg_file_lines {
    const cg_profile *p;
    size_t width;
    fl_file *files;
    size_t nfiles, files_cap;
    fl_name *names; /* pointer -> file, open addressing */
    size_t names_mask, nnames;
    size_t *call_first; /* per global entry, + 1 */
    size_t *calls;
    /* the calls of each line summed per callee (see group_calls) */
    size_t *group_first; /* per global entry, + 1 */
    size_t *group_fn;
    uint64_t *group_count;
    cg_cost *group_costs; /* width per group */
};

static size_t hash_ptr(const void *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
    return (size_t)(h ^ (h >> 31));
}

static size_t hash_line(uint64_t line) {
    uint64_t h = line * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(h ^ (h >> 29));
}

static int grow_names(cg_file_lines *f) {
    size_t size = f->names_mask ? 2 * (f->names_mask + 1) : 256;
    fl_name *names = calloc(size, sizeof *names);
    if (!names) return -1;
    for (size_t i = 0; f->names && i <= f->names_mask; i++) {
        if (!f->names[i].ptr) continue;
        size_t h = hash_ptr(f->names[i].ptr) & (size - 1);
        while (names[h].ptr) h = (h + 1) & (size - 1);
        names[h] = f->names[i];
    }
    free(f->names);
    f->names = names;
    f->names_mask = size - 1;
    return 0;
}

static uint32_t new_file(cg_file_lines *f, const char *name) {
    if (f->nfiles == f->files_cap) {
        size_t cap = f->files_cap ? 2 * f->files_cap : 16;
        fl_file *files = realloc(f->files, cap * sizeof *files);
        if (!files) return NOT_WANTED - 1;
        f->files = files;
        f->files_cap = cap;
    }
    f->files[f->nfiles] = (fl_file){name, 0, 0, NULL, NULL, NULL, 0, 0, 0, NULL};
    return (uint32_t)f->nfiles++;
}

/* The file a name pointer maps to: NOT_WANTED, or NOT_WANTED - 1 when out of memory. */
static uint32_t file_of(cg_file_lines *f, const char *name, const char *const *wanted,
                        size_t nwanted) {
    if (!name) name = "";
    size_t h = hash_ptr(name) & f->names_mask;
    for (; f->names[h].ptr; h = (h + 1) & f->names_mask)
        if (f->names[h].ptr == name) return f->names[h].file;
    uint32_t file = NOT_WANTED;
    if (!wanted) {
        file = new_file(f, name);
    } else {
        for (size_t i = 0; i < nwanted; i++) {
            if (strcmp(wanted[i], name)) continue;
            /* one file per name, whichever pointer spells it */
            for (size_t k = 0; k < f->nfiles && file == NOT_WANTED; k++)
                if (strcmp(f->files[k].name, name) == 0) file = (uint32_t)k;
            if (file == NOT_WANTED) file = new_file(f, wanted[i]);
            break;
        }
    }
    if (file == NOT_WANTED - 1) return file;
    f->names[h] = (fl_name){name, file};
    if (++f->nnames * 2 > f->names_mask && grow_names(f)) return NOT_WANTED - 1;
    return file;
}

static int grow_lines(fl_file *x, size_t width) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    uint64_t *line = realloc(x->line, cap * sizeof *line);
    if (line) x->line = line;
    cg_cost *costs = line ? realloc(x->costs, cap * width * sizeof *costs) : NULL;
    if (costs) x->costs = costs;
    uint32_t *slots = costs ? malloc(2 * cap * sizeof *slots) : NULL;
    if (!slots) return -1;
    memset(slots, 0xff, 2 * cap * sizeof *slots);
    size_t mask = 2 * cap - 1;
    for (size_t i = 0; i < x->n; i++) {
        size_t h = hash_line(x->line[i]) & mask;
        while (slots[h] != UINT32_MAX) h = (h + 1) & mask;
        slots[h] = (uint32_t)i;
    }
    free(x->slots);
    x->slots = slots;
    x->mask = mask;
    x->cap = cap;
    return 0;
}

/* The entry of a line, made when new; UINT32_MAX when out of memory. */
static uint32_t entry_of(fl_file *x, size_t width, uint64_t line) {
    if (x->n == x->cap && grow_lines(x, width)) return UINT32_MAX;
    size_t h = hash_line(line) & x->mask;
    for (; x->slots[h] != UINT32_MAX; h = (h + 1) & x->mask)
        if (x->line[x->slots[h]] == line) return x->slots[h];
    uint32_t i = (uint32_t)x->n++;
    x->line[i] = line;
    memset(&x->costs[i * width], 0, width * sizeof(cg_cost));
    x->slots[h] = i;
    return i;
}

static int sum_records(cg_file_lines *f, const char *const *wanted, size_t nwanted,
                       const unsigned char *only) {
    const cg_profile *p = f->p;
    int has_lines = (cg_positions(p) & CG_POS_LINE) != 0;
    cg_line_cursor *cursor = malloc(sizeof *cursor);
    if (!cursor) return -1;
    int rc = 0;
    for (size_t fn = 0, nfn = cg_function_count(p); rc == 0 && fn < nfn; fn++) {
        if (only && !only[fn]) continue;
        const char *last = NULL;
        uint32_t file = NOT_WANTED;
        cg_line_run run;
        int more;
        cg_line_cursor_init(cursor, p, fn);
        while (rc == 0 && (more = cg_line_cursor_next_run(cursor, CG_RUN_LINE, &run)) != 0) {
            if (more < 0) {
                rc = -2;
                break;
            }
            if (run.file != last || !last) {
                last = run.file;
                file = file_of(f, run.file, wanted, nwanted);
                if (file == NOT_WANTED - 1) rc = -1;
            }
            if (file >= NOT_WANTED - 1) continue;
            fl_file *x = &f->files[file];
            uint32_t e = entry_of(x, f->width, has_lines ? run.line : 0);
            if (e == UINT32_MAX) {
                rc = -1;
                break;
            }
            cg_cost *acc = &x->costs[(size_t)e * f->width];
            for (size_t k = 0; k < f->width; k++)
                if (__builtin_add_overflow(acc[k], run.costs[k], &acc[k])) rc = -2;
        }
    }
    free(cursor);
    return rc;
}

/* Sorts each file's lines, numbers the entries globally and files the calls under them. */
static int order_lines(cg_file_lines *f, const char *const *wanted, size_t nwanted) {
    const cg_profile *p = f->p;
    size_t ncalls = cg_call_count(p);
    uint32_t *call_file = malloc((ncalls + 1) * sizeof *call_file);
    uint32_t *call_entry = malloc((ncalls + 1) * sizeof *call_entry);
    int rc = call_file && call_entry ? 0 : -1;
    for (size_t k = 0; k < f->nfiles; k++) f->files[k].nrec = f->files[k].n;
    /* the calls' lines first: a line that only makes calls is a line too */
    for (size_t c = 0; rc == 0 && c < ncalls; c++) {
        uint32_t file = file_of(f, cg_call_file(p, c), wanted, nwanted);
        call_file[c] = file;
        if (file == NOT_WANTED - 1) rc = -1;
        if (file >= NOT_WANTED - 1) continue;
        call_entry[c] = entry_of(&f->files[file], f->width, cg_call_line(p, c));
        if (call_entry[c] == UINT32_MAX) rc = -1;
    }
    size_t total = 0;
    for (size_t k = 0; rc == 0 && k < f->nfiles; k++) {
        fl_file *x = &f->files[k];
        x->base = total;
        total += x->n;
        /* sort by line: an insertion of each line's rank through a counting of smaller lines
         * would be quadratic; sort indexes with a merge sort instead */
        uint32_t *order = malloc((x->n + 1) * sizeof *order),
                 *tmp = malloc((x->n + 1) * sizeof *tmp);
        uint64_t *line = malloc((x->n + 1) * sizeof *line);
        cg_cost *costs = malloc((x->n * f->width + 1) * sizeof *costs);
        x->coded = malloc(x->n + 1);
        if (!order || !tmp || !line || !costs || !x->coded) rc = -1;
        for (size_t i = 0; rc == 0 && i < x->n; i++) order[i] = (uint32_t)i;
        for (size_t w = 1; rc == 0 && w < x->n; w *= 2) {
            for (size_t lo = 0; lo < x->n; lo += 2 * w) {
                size_t mid = lo + w < x->n ? lo + w : x->n,
                       hi = lo + 2 * w < x->n ? lo + 2 * w : x->n;
                size_t i = lo, j = mid, o = lo;
                while (i < mid && j < hi)
                    tmp[o++] = x->line[order[j]] < x->line[order[i]] ? order[j++] : order[i++];
                while (i < mid) tmp[o++] = order[i++];
                while (j < hi) tmp[o++] = order[j++];
            }
            memcpy(order, tmp, x->n * sizeof *order);
        }
        if (rc == 0) {
            /* tmp becomes the rank of each old entry */
            for (size_t i = 0; i < x->n; i++) {
                line[i] = x->line[order[i]];
                x->coded[i] = order[i] < x->nrec;
                memcpy(&costs[i * f->width], &x->costs[(size_t)order[i] * f->width],
                       f->width * sizeof(cg_cost));
                tmp[order[i]] = (uint32_t)i;
            }
            for (size_t c = 0; c < ncalls; c++)
                if (call_file[c] == k) call_entry[c] = tmp[call_entry[c]];
            free(x->line);
            free(x->costs);
            x->line = line;
            x->costs = costs;
            line = NULL;
            costs = NULL;
        }
        free(order);
        free(tmp);
        free(line);
        free(costs);
        free(x->slots);
        x->slots = NULL;
    }
    f->call_first = rc == 0 ? calloc(total + 1, sizeof *f->call_first) : NULL;
    size_t filed = 0;
    for (size_t c = 0; f->call_first && c < ncalls; c++)
        if (call_file[c] < NOT_WANTED - 1) {
            f->call_first[f->files[call_file[c]].base + call_entry[c] + 1]++;
            filed++;
        }
    f->calls = f->call_first ? malloc((filed + 1) * sizeof *f->calls) : NULL;
    if (rc == 0 && !f->calls) rc = -1;
    if (rc == 0) {
        for (size_t e = 0; e < total; e++) f->call_first[e + 1] += f->call_first[e];
        size_t *next = malloc((total + 1) * sizeof *next);
        if (!next) rc = -1;
        for (size_t e = 0; next && e < total; e++) next[e] = f->call_first[e];
        for (size_t c = 0; next && c < ncalls; c++)
            if (call_file[c] < NOT_WANTED - 1)
                f->calls[next[f->files[call_file[c]].base + call_entry[c]]++] = c;
        free(next);
    }
    free(call_file);
    free(call_entry);
    return rc;
}

/* A self-call, or a call between two members of one cycle. */
static int is_recursive(const cg_profile *p, size_t call) {
    size_t caller = cg_call_caller(p, call), callee = cg_call_callee(p, call);
    if (caller == callee) return 1;
    size_t cycle = cg_function_cycle(p, caller);
    return cycle != CG_NONE && cycle == cg_function_cycle(p, callee);
}

/* The calls of each line summed per callee, in the order of their first call. Where a line
 * holds both a call into a recursion and recursive calls (callgrind's fact -> fact'2 and
 * fact'2 -> fact'2 on one line), the recursive ones are left out: their cost is already part
 * of the call that entered the recursion. */
static int group_calls(cg_file_lines *f, size_t total) {
    const cg_profile *p = f->p;
    size_t nfn = cg_function_count(p), ncalls = f->call_first[total];
    size_t *slot = malloc((nfn + 1) * sizeof *slot), *stamp = malloc((nfn + 1) * sizeof *stamp);
    f->group_first = calloc(total + 1, sizeof *f->group_first);
    f->group_fn = malloc((ncalls + 1) * sizeof *f->group_fn);
    f->group_count = malloc((ncalls + 1) * sizeof *f->group_count);
    f->group_costs = malloc((ncalls * f->width + 1) * sizeof *f->group_costs);
    int rc =
        slot && stamp && f->group_first && f->group_fn && f->group_count && f->group_costs ? 0 : -1;
    for (size_t fn = 0; rc == 0 && fn < nfn; fn++) stamp[fn] = SIZE_MAX;
    size_t n = 0;
    for (size_t e = 0; rc == 0 && e < total; e++) {
        size_t first = f->call_first[e], stop = f->call_first[e + 1];
        int plain = 0;
        for (size_t k = first; k < stop && !plain; k++) plain = !is_recursive(p, f->calls[k]);
        for (size_t k = first; k < stop && rc == 0; k++) {
            size_t c = f->calls[k];
            if (plain && is_recursive(p, c)) continue;
            size_t callee = cg_call_callee(p, c);
            if (stamp[callee] != e) {
                stamp[callee] = e;
                slot[callee] = n;
                f->group_fn[n] = callee;
                f->group_count[n] = 0;
                memset(&f->group_costs[n * f->width], 0, f->width * sizeof(cg_cost));
                n++;
            }
            size_t g = slot[callee];
            cg_cost *acc = &f->group_costs[g * f->width];
            const cg_cost *v = cg_call_inclusive(p, c);
            if (__builtin_add_overflow(f->group_count[g], cg_call_times(p, c), &f->group_count[g]))
                rc = -2;
            for (size_t i = 0; i < f->width; i++)
                if (__builtin_add_overflow(acc[i], v[i], &acc[i])) rc = -2;
        }
        f->group_first[e + 1] = n;
    }
    free(slot);
    free(stamp);
    return rc;
}

/* ---- the callees of a line in order ---- */

typedef struct callee_order {
    const cg_file_lines *f;
    const cg_cost *keys; /* nsort per group */
    size_t nsort;
} callee_order;

int cg_label_cmp(const cg_profile *p, size_t a, size_t b) {
    const char *fa = cg_function_file(p, a), *fb = cg_function_file(p, b);
    const char *pa[3] = {*fa ? fa : "???", ":", cg_function_name(p, a)};
    const char *pb[3] = {*fb ? fb : "???", ":", cg_function_name(p, b)};
    size_t ia = 0, ib = 0;
    for (;;) {
        while (!*pa[ia] && ia < 2) ia++;
        while (!*pb[ib] && ib < 2) ib++;
        int ca = *pa[ia] ? (unsigned char)*pa[ia]++ : -1;
        int cb = *pb[ib] ? (unsigned char)*pb[ib]++ : -1;
        if (ca != cb) return ca - cb;
        if (ca < 0) return 0;
    }
}

/* Highest cost of the sort events first, then by label, then by count (highest first). */
static int callee_before(const callee_order *o, size_t a, size_t b) {
    for (size_t k = 0; k < o->nsort; k++) {
        cg_cost x = o->keys[a * o->nsort + k], y = o->keys[b * o->nsort + k];
        if (x != y) return x > y;
    }
    int d = cg_label_cmp(o->f->p, o->f->group_fn[a], o->f->group_fn[b]);
    if (d) return d < 0;
    return o->f->group_count[a] > o->f->group_count[b];
}

/* Sorts the groups of every line (a stable bottom-up merge sort of each line's range). */
static int sort_callees(cg_file_lines *f, size_t total, const size_t *sort, size_t nsort) {
    const cg_profile *p = f->p;
    size_t n = f->group_first[total];
    cg_cost *keys = malloc((n * nsort + 1) * sizeof *keys);
    size_t *v = malloc((n + 1) * sizeof *v), *tmp = malloc((n + 1) * sizeof *tmp);
    int rc = keys && v && tmp ? 0 : -1;
    for (size_t g = 0; rc == 0 && g < n; g++)
        for (size_t k = 0; k < nsort; k++)
            if (cg_cost_of(p, &f->group_costs[g * f->width], sort[k], &keys[g * nsort + k]))
                rc = -2;
    callee_order o = {f, keys, nsort};
    for (size_t e = 0; rc == 0 && e < total; e++) {
        size_t first = f->group_first[e], m = f->group_first[e + 1] - first;
        if (m < 2) continue;
        for (size_t i = 0; i < m; i++) v[i] = first + i;
        for (size_t w = 1; w < m; w *= 2) {
            for (size_t lo = 0; lo < m; lo += 2 * w) {
                size_t mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
                size_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi)
                    tmp[k++] = callee_before(&o, v[j], v[i]) ? v[j++] : v[i++];
                while (i < mid) tmp[k++] = v[i++];
                while (j < hi) tmp[k++] = v[j++];
            }
            memcpy(v, tmp, m * sizeof *v);
        }
        /* put the groups in that order: fn, count and costs through the scratch arrays */
        size_t *fns = tmp;
        for (size_t i = 0; i < m; i++) fns[i] = f->group_fn[v[i]];
        uint64_t *counts = malloc(m * sizeof *counts);
        cg_cost *costs = malloc(m * f->width * sizeof *costs);
        if (!counts || !costs) {
            free(counts);
            free(costs);
            rc = -1;
            break;
        }
        for (size_t i = 0; i < m; i++) {
            counts[i] = f->group_count[v[i]];
            memcpy(&costs[i * f->width], &f->group_costs[v[i] * f->width],
                   f->width * sizeof(cg_cost));
        }
        memcpy(&f->group_fn[first], fns, m * sizeof *fns);
        memcpy(&f->group_count[first], counts, m * sizeof *counts);
        memcpy(&f->group_costs[first * f->width], costs, m * f->width * sizeof(cg_cost));
        free(counts);
        free(costs);
    }
    free(keys);
    free(v);
    free(tmp);
    return rc;
}

/* With the file index: the functions whose records must be read for the files asked for (a
 * flag each), and the self cost of those whose records all lie on one line of one of them
 * added to that line without a read. */
static int sum_indexed(cg_file_lines *f, const char *const *wanted, size_t nwanted,
                       const cg_file_index *x) {
    const cg_profile *p = f->p;
    int has_lines = (cg_positions(p) & CG_POS_LINE) != 0;
    unsigned char *only = calloc(cg_function_count(p) + 1, 1);
    int rc = only ? 0 : -1;
    for (size_t w = 0; rc == 0 && w < nwanted; w++) {
        size_t k = cg_file_index_find(x, wanted[w]), seen = 0;
        for (size_t v = 0; v < w && !seen; v++) seen = strcmp(wanted[v], wanted[w]) == 0;
        if (k == CG_NONE || seen) continue;
        for (size_t i = 0, n = cg_file_index_function_count(x, k); rc == 0 && i < n; i++) {
            uint64_t line;
            size_t fn = cg_file_index_function(x, k, i);
            int kind = cg_file_index_function_kind(x, k, i, &line);
            if (kind == CG_IN_RECORDS) only[fn] = 1;
            if (kind != CG_IN_LINE) continue;
            uint32_t file = file_of(f, cg_file_index_name(x, k), wanted, nwanted);
            if (file >= NOT_WANTED - 1) {
                rc = -1;
                break;
            }
            fl_file *xf = &f->files[file];
            uint32_t e = entry_of(xf, f->width, has_lines ? line : 0);
            if (e == UINT32_MAX) {
                rc = -1;
                break;
            }
            cg_cost *acc = &xf->costs[(size_t)e * f->width];
            const cg_cost *self = cg_function_self(p, fn);
            for (size_t j = 0; j < f->width; j++)
                if (__builtin_add_overflow(acc[j], self[j], &acc[j])) rc = -2;
        }
    }
    if (rc == 0) rc = sum_records(f, wanted, nwanted, only);
    free(only);
    return rc;
}

cg_file_lines *cg_file_lines_build(const cg_profile *p, const char *const *files, size_t nfiles,
                                   const cg_file_index *index, const size_t *sort, size_t nsort,
                                   cg_error *err) {
    cg_file_lines *f = calloc(1, sizeof *f);
    int rc = f ? 0 : -1;
    if (f) {
        f->p = p;
        f->width = cg_raw_event_count(p);
        rc = grow_names(f);
    }
    if (rc == 0)
        rc = files && index ? sum_indexed(f, files, nfiles, index)
                            : sum_records(f, files, nfiles, NULL);
    if (rc == 0) rc = order_lines(f, files, nfiles);
    if (rc == 0) {
        size_t total = 0;
        for (size_t k = 0; k < f->nfiles; k++) total += f->files[k].n;
        rc = group_calls(f, total);
        if (rc == 0 && sort) rc = sort_callees(f, total, sort, nsort);
    }
    if (rc == 0) return f;
    cg_file_lines_free(f);
    if (err) {
        err->code = rc == -2 ? CG_ERR_OVERFLOW : CG_ERR_NOMEM;
        err->line = 0;
        strcpy(err->message, rc == -2 ? "a line's cost does not fit in 64 bits" : "out of memory");
    }
    return NULL;
}

void cg_file_lines_free(cg_file_lines *f) {
    if (!f) return;
    for (size_t k = 0; k < f->nfiles; k++) {
        free(f->files[k].line);
        free(f->files[k].costs);
        free(f->files[k].slots);
        free(f->files[k].coded);
    }
    free(f->files);
    free(f->names);
    free(f->call_first);
    free(f->calls);
    free(f->group_first);
    free(f->group_fn);
    free(f->group_count);
    free(f->group_costs);
    free(f);
}

const cg_profile *cg_file_lines_profile(const cg_file_lines *f) {
    return f->p;
}
size_t cg_file_lines_files(const cg_file_lines *f) {
    return f->nfiles;
}
const char *cg_file_lines_name(const cg_file_lines *f, size_t file) {
    return f->files[file].name;
}
size_t cg_file_lines_count(const cg_file_lines *f, size_t file) {
    return f->files[file].n;
}
uint64_t cg_file_lines_line(const cg_file_lines *f, size_t file, size_t i) {
    return f->files[file].line[i];
}
int cg_file_lines_coded(const cg_file_lines *f, size_t file, size_t i) {
    return f->files[file].coded[i];
}
const cg_cost *cg_file_lines_self(const cg_file_lines *f, size_t file, size_t i) {
    return &f->files[file].costs[i * f->width];
}
size_t cg_file_lines_call_count(const cg_file_lines *f, size_t file, size_t i) {
    size_t e = f->files[file].base + i;
    return f->call_first[e + 1] - f->call_first[e];
}
size_t cg_file_lines_call(const cg_file_lines *f, size_t file, size_t i, size_t k) {
    return f->calls[f->call_first[f->files[file].base + i] + k];
}

size_t cg_file_lines_callee_count(const cg_file_lines *f, size_t file, size_t i) {
    size_t e = f->files[file].base + i;
    return f->group_first[e + 1] - f->group_first[e];
}
size_t cg_file_lines_callee(const cg_file_lines *f, size_t file, size_t i, size_t k) {
    return f->group_fn[f->group_first[f->files[file].base + i] + k];
}
uint64_t cg_file_lines_callee_calls(const cg_file_lines *f, size_t file, size_t i, size_t k) {
    return f->group_count[f->group_first[f->files[file].base + i] + k];
}
const cg_cost *cg_file_lines_callee_inclusive(const cg_file_lines *f, size_t file, size_t i,
                                              size_t k) {
    return &f->group_costs[(f->group_first[f->files[file].base + i] + k) * f->width];
}
