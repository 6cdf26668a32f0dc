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
    int ascending;
} rank_ctx;

static int rank_before(const rank_ctx *c, uint32_t a, uint32_t b) {
    if (c->keys[a] != c->keys[b])
        return c->ascending ? c->keys[a] < c->keys[b] : c->keys[a] > c->keys[b];
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

/* The `k` first functions in rank order into order[0..k), sorted: a heap of the best k so far
 * whose root is the last of them, so that a short list (the ten hottest, the fifteen biggest
 * changes) costs n log k comparisons rather than a sort of every function, most of which, in a
 * difference of two runs, tie at no change and compare by name. */
static void rank_first(const rank_ctx *c, size_t n, size_t k, uint32_t *order, uint32_t *scratch) {
    uint32_t *heap = order;
    size_t used = 0;
    if (k == 0) return;
    for (uint32_t i = 0; i < n; i++) {
        size_t at;
        if (used < k) {
            at = used++;
            while (at > 0 && rank_before(c, heap[(at - 1) / 2], i)) {
                heap[at] = heap[(at - 1) / 2];
                at = (at - 1) / 2;
            }
            heap[at] = i;
            continue;
        }
        if (!rank_before(c, i, heap[0])) continue;
        /* the root (the last kept) gives way: i sifts down from it */
        at = 0;
        for (;;) {
            size_t child = 2 * at + 1;
            if (child >= k) break;
            if (child + 1 < k && rank_before(c, heap[child], heap[child + 1])) child++;
            if (!rank_before(c, i, heap[child])) break;
            heap[at] = heap[child];
            at = child;
        }
        heap[at] = i;
    }
    rank_sort(c, order, scratch, scratch + k, used);
}

size_t cg_rank_functions(const cg_profile *p, size_t ev, int inclusive, int ascending, size_t limit,
                         uint32_t *order, cg_error *err) {
    size_t n = cg_function_count(p);
    cg_cost *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *scratch = malloc((2 * n + 1) * sizeof *scratch); /* the sort's copy, then its runs */
    int rc = keys && scratch ? CG_OK : CG_ERR_NOMEM;
    for (size_t i = 0; rc == CG_OK && i < n; i++) {
        const cg_cost *row = inclusive ? cg_function_inclusive(p, i) : cg_function_self(p, i);
        order[i] = (uint32_t)i;
        if (cg_cost_of(p, row, ev, &keys[i])) rc = CG_ERR_OVERFLOW;
    }
    size_t k = limit < n ? limit : n;
    if (rc == CG_OK) {
        rank_ctx c = {p, keys, ascending};
        if (k < n / 4)
            rank_first(&c, n, k, order, scratch);
        else
            rank_sort(&c, order, scratch, scratch + n, n);
    }
    free(keys);
    free(scratch);
    if (rc == CG_OK) return k;
    set_error(err, rc, 0, "%s",
              rc == CG_ERR_NOMEM ? "out of memory" : "a derived cost does not fit in 64 bits");
    return CG_NONE;
}
