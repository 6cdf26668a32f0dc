/* file_index.c - which functions have code in each source file: the functions with line records
 * in the file (their own or inlined there) or calls made from it. Built by one walk over every
 * function's record stream that decodes only files and lines (line_store_scan) and over
 * its calls, on the first question, and kept with the profile, so that what one file shows (an
 * editor's buffer, one annotated file) reads only the records of those functions. Each entry
 * also says whether the function's records need reading there at all: not for a function that
 * only calls from the file, and not for one whose records all lie on one line of it (code
 * without line information: `???`, line 0), whose self cost is that line's. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "lines.h"
#include "model.h"
#include "msort.h"

struct cg_file_index {
    const cg_profile *p;
    size_t nfiles;
    uint32_t *file;      /* string id of each file, by name */
    uint32_t *begin;     /* nfiles + 1 offsets into fns */
    uint32_t *fns;       /* each file's functions, in increasing order */
    unsigned char *kind; /* per entry of fns: CG_IN_* */
    uint64_t *line;      /* per entry: the line of a CG_IN_LINE function */
    uint32_t *single;    /* per function: the string id of the one file of all its records */
};

void file_index_free(cg_file_index *x) {
    if (!x) return;
    free(x->file);
    free(x->begin);
    free(x->fns);
    free(x->kind);
    free(x->line);
    free(x->single);
    free(x);
}

#define NAME_BEFORE(strings, a, b)                                                                 \
    (strcmp(strtab_get((strings), *(a)), strtab_get((strings), *(b))) < 0)
DEFINE_MERGE_SORT(sort_by_name, uint32_t, const strtab *, NAME_BEFORE)

typedef struct pair {
    uint32_t file, fn;
    int kind;
    uint64_t line;
} pair;

typedef struct builder {
    uint32_t *stamp; /* per string id: the last function filed under it */
    uint32_t *count; /* per string id: its functions */
    pair *pairs;
    size_t n, cap;
    uint32_t fn; /* the function being walked */
} builder;

static int note(builder *b, uint32_t file, uint32_t fn, int kind) {
    if (b->stamp[file] == fn) return 0;
    b->stamp[file] = fn;
    if (b->n == UINT32_MAX) return -1; /* entries are numbered in 32 bits */
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        pair *pairs = realloc(b->pairs, cap * sizeof *pairs);
        if (!pairs) return -1;
        b->pairs = pairs;
        b->cap = cap;
    }
    b->pairs[b->n++] = (pair){file, fn, kind, 0};
    b->count[file]++;
    return 0;
}

static int record_file(void *ctx, uint32_t file) {
    builder *b = ctx;
    return note(b, file, b->fn, CG_IN_RECORDS);
}

static cg_file_index *build(const cg_profile *p) {
    size_t nstr = p->strings.count;
    builder b = {
        malloc((nstr + 1) * sizeof *b.stamp), calloc(nstr + 1, sizeof *b.count), NULL, 0, 0, 0};
    cg_file_index *x = calloc(1, sizeof *x);
    if (x) x->single = malloc((p->nfns + 1) * sizeof *x->single);
    int rc = b.stamp && b.count && x && x->single ? 0 : -1;
    if (rc == 0) memset(b.stamp, 0xff, (nstr + 1) * sizeof *b.stamp);
    for (size_t fn = 0; rc == 0 && fn < p->nfns; fn++) {
        size_t first = b.n;
        line_span span;
        b.fn = (uint32_t)fn;
        rc = line_store_scan(&p->line_stores[fn], record_file, &b, &span);
        if (rc == 0 && span.one_line) {
            b.pairs[first].kind = CG_IN_LINE;
            b.pairs[first].line = span.line;
        }
        if (rc == 0) x->single[fn] = b.n == first + 1 ? b.pairs[first].file : UINT32_MAX;
        for (size_t i = 0, n = cg_function_callee_count(p, fn); rc == 0 && i < n; i++)
            rc = note(&b, p->calls[cg_function_callee(p, fn, i)].file, (uint32_t)fn, CG_IN_CALLS);
    }
    if (rc == 0) {
        for (size_t id = 0; id < nstr; id++) x->nfiles += b.count[id] != 0;
        x->file = malloc((x->nfiles + 1) * sizeof *x->file);
        x->begin = malloc((x->nfiles + 1) * sizeof *x->begin);
        x->fns = malloc((b.n + 1) * sizeof *x->fns);
        x->kind = malloc(b.n + 1);
        x->line = malloc((b.n + 1) * sizeof *x->line);
        uint32_t *tmp = malloc((x->nfiles + 1) * sizeof *tmp);
        uint32_t *bounds = malloc((x->nfiles + 1) * sizeof *bounds);
        rc = x->file && x->begin && x->fns && x->kind && x->line && tmp && bounds ? 0 : -1;
        if (rc == 0) {
            size_t k = 0;
            for (size_t id = 0; id < nstr; id++)
                if (b.count[id]) x->file[k++] = (uint32_t)id;
            sort_by_name(&p->strings, x->file, tmp, bounds, x->nfiles);
            /* stamp becomes each file's next slot; the pairs come by function, so each file's
             * functions land in increasing order */
            uint32_t at = 0;
            for (k = 0; k < x->nfiles; k++) {
                x->begin[k] = at;
                b.stamp[x->file[k]] = at;
                at += b.count[x->file[k]];
            }
            x->begin[x->nfiles] = at;
            for (size_t i = 0; i < b.n; i++) {
                uint32_t e = b.stamp[b.pairs[i].file]++;
                x->fns[e] = b.pairs[i].fn;
                x->kind[e] = (unsigned char)b.pairs[i].kind;
                x->line[e] = b.pairs[i].line;
            }
        }
        free(tmp);
        free(bounds);
    }
    free(b.stamp);
    free(b.count);
    free(b.pairs);
    if (rc == 0) {
        x->p = p;
        return x;
    }
    file_index_free(x);
    return NULL;
}

const cg_file_index *cg_file_index_get(cg_profile *p, cg_error *err) {
    if (!p->file_index) p->file_index = build(p);
    if (!p->file_index) set_error(err, CG_ERR_NOMEM, 0, "out of memory");
    return p->file_index;
}

const cg_file_index *cg_file_index_built(const cg_profile *p) {
    return p->file_index;
}

const char *cg_file_index_single_file(const cg_file_index *x, size_t fn) {
    return x->single[fn] == UINT32_MAX ? NULL : strtab_get(&x->p->strings, x->single[fn]);
}

size_t cg_file_index_count(const cg_file_index *x) {
    return x->nfiles;
}
const char *cg_file_index_name(const cg_file_index *x, size_t k) {
    return strtab_get(&x->p->strings, x->file[k]);
}
uint32_t file_index_string(const cg_file_index *x, size_t k) {
    return x->file[k];
}
size_t cg_file_index_find(const cg_file_index *x, const char *name) {
    size_t lo = 0, hi = x->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(cg_file_index_name(x, mid), name);
        if (d == 0) return mid;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return CG_NONE;
}
size_t cg_file_index_function_count(const cg_file_index *x, size_t k) {
    return x->begin[k + 1] - x->begin[k];
}
size_t cg_file_index_function(const cg_file_index *x, size_t k, size_t i) {
    return x->fns[x->begin[k] + i];
}
int cg_file_index_function_kind(const cg_file_index *x, size_t k, size_t i, uint64_t *line) {
    size_t e = x->begin[k] + i;
    if (line) *line = x->line[e];
    return x->kind[e];
}
