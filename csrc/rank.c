/* rank.c - the functions of a profile in order of cost (rank.h). One sort in C instead of a
 * table per function and a comparison function called from Lua for each of n log n steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "msort.h"
#include "rank.h"

typedef struct rank_ctx {
    const cg_profile *p;
    const cg_cost *keys; /* one per function */
} rank_ctx;

static int rank_before(const rank_ctx *c, uint32_t a, uint32_t b) {
    if (c->keys[a] != c->keys[b]) return c->keys[a] > c->keys[b];
    int d = strcmp(cg_function_name(c->p, a), cg_function_name(c->p, b));
    if (d) return d < 0;
    d = strcmp(cg_function_file(c->p, a), cg_function_file(c->p, b));
    if (d) return d < 0;
    d = strcmp(cg_function_object(c->p, a), cg_function_object(c->p, b));
    if (d) return d < 0;
    return a < b;
}

#define RANK_BEFORE(c, a, b) rank_before((c), *(a), *(b))
DEFINE_MERGE_SORT(rank_sort, uint32_t, const rank_ctx *, RANK_BEFORE)

static int rank_fail(cg_error *err, int code, const char *message) {
    set_error(err, code, 0, "%s", message);
    return -1;
}

int cg_rank_functions(const cg_profile *p, size_t ev, int inclusive, uint32_t *order,
                      cg_error *err) {
    size_t n = cg_function_count(p);
    cg_cost *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *scratch = malloc((2 * n + 1) * sizeof *scratch); /* the sort's copy, then its runs */
    if (!keys || !scratch) {
        free(keys);
        free(scratch);
        return rank_fail(err, CG_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const cg_cost *row = inclusive ? cg_function_inclusive(p, i) : cg_function_self(p, i);
        order[i] = (uint32_t)i;
        if (cg_cost_of(p, row, ev, &keys[i])) {
            free(keys);
            free(scratch);
            return rank_fail(err, CG_ERR_OVERFLOW, "a derived cost does not fit in 64 bits");
        }
    }
    rank_sort(&(rank_ctx){p, keys}, order, scratch, scratch + n, n);
    free(keys);
    free(scratch);
    return 0;
}
