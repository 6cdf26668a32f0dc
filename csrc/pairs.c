/* pairs.c - calls summed per caller and callee, the edges of a call graph (report.h): one pass
 * over the calls of the functions asked for, so that a graph of thousands of nodes costs its
 * edges, not a Lua step per call record. */
#include <stdlib.h>

#include "fault.h"
#include "report.h"

typedef struct pair_list {
    cg_call_pair *items;
    size_t n, cap;
} pair_list;

static int pairs_fail(cg_error *err, int code, const char *message, pair_list *list,
                      unsigned char *member) {
    free(list->items);
    free(member);
    set_error(err, code, 0, "%s", message);
    return -1;
}

static cg_call_pair *pair_new(pair_list *list, uint32_t caller, uint32_t callee) {
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        cg_call_pair *items = realloc(list->items, cap * sizeof *items);
        if (!items) return NULL;
        list->items = items;
        list->cap = cap;
    }
    cg_call_pair *pair = &list->items[list->n++];
    *pair = (cg_call_pair){caller, callee, 0, 0};
    return pair;
}

/* Adds the calls of `fn` to its pairs, which begin at `first`. slot[callee] is a pair's index +
 * 1 while `fn`'s calls are summed (0: no pair yet), cleared again before returning. */
static int add_callees(const cg_profile *p, size_t fn, size_t ev, const unsigned char *member,
                       size_t *slot, pair_list *list, int *overflow) {
    size_t first = list->n, ncalls = cg_function_callee_count(p, fn);
    for (size_t i = 0; i < ncalls; i++) {
        size_t call = cg_function_callee(p, fn, i), callee = cg_call_callee(p, call);
        if (!member[callee]) continue;
        if (!slot[callee]) {
            if (!pair_new(list, (uint32_t)fn, (uint32_t)callee)) return -1;
            slot[callee] = list->n;
        }
        cg_call_pair *pair = &list->items[slot[callee] - 1];
        cg_cost cost = 0;
        if (ev != CG_NONE) *overflow |= cg_cost_of(p, cg_call_inclusive(p, call), ev, &cost) != 0;
        *overflow |= __builtin_add_overflow(pair->count, cg_call_times(p, call), &pair->count);
        *overflow |= __builtin_add_overflow(pair->cost, cost, &pair->cost);
    }
    for (size_t k = first; k < list->n; k++) slot[list->items[k].callee] = 0;
    return 0;
}

int cg_call_pairs(const cg_profile *p, const size_t *fns, size_t n, size_t ev, cg_call_pair **out,
                  size_t *npairs, cg_error *err) {
    size_t count = cg_function_count(p);
    pair_list list = {NULL, 0, 0};
    unsigned char *member = calloc(count ? count : 1, 1); /* listed in fns */
    size_t *slot = calloc(count ? count : 1, sizeof *slot);
    if (!member || !slot) {
        free(slot);
        return pairs_fail(err, CG_ERR_NOMEM, "out of memory", &list, member);
    }
    for (size_t i = 0; i < n; i++) member[fns[i]] = 1;
    int overflow = 0;
    for (size_t i = 0; i < n; i++) {
        if (member[fns[i]] == 2) continue; /* listed twice: its pairs are made */
        member[fns[i]] = 2;
        if (add_callees(p, fns[i], ev, member, slot, &list, &overflow)) {
            free(slot);
            return pairs_fail(err, CG_ERR_NOMEM, "out of memory", &list, member);
        }
    }
    free(slot);
    if (overflow)
        return pairs_fail(err, CG_ERR_OVERFLOW, "a sum of calls does not fit in 64 bits", &list,
                          member);
    free(member);
    *out = list.items;
    *npairs = list.n;
    return 0;
}
