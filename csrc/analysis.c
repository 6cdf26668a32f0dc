/* analysis.c - what the model derives once loading ends: self costs, the call graph indexes,
 * called counts, cycles (mutual recursion) and inclusive costs the way KCachegrind computes
 * them. Nothing here recurses: a file can make the call graph as deep as it likes. */
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "msort.h"
#include "parts.h"
#include "vec.h"

typedef struct analysis {
    cg_profile *p;
    const fault_site *site; /* where faults are reported: the end of the last input */
    uint64_t line;
} analysis;

static int nomem(analysis *a) {
    set_error(a->site->err, CG_ERR_NOMEM, 0, "out of memory");
    return -1;
}

/* An overflowing sum: a strict load fails, a tolerant one keeps the saturated value. */
static int overflow(analysis *a, const char *what, uint32_t fn) {
    cg_profile *p = a->p;
    return fault(a->site, CG_ERR_OVERFLOW, a->line, "%s of '%s' does not fit in 64 bits", what,
                 fn == NO_INDEX ? "the profile" : strtab_get(&p->strings, p->fns[fn].name));
}

static int alloc_rows(cost_array *c, size_t rows, size_t stride) {
    size_t n = rows * (stride ? stride : 1);
    if (stride && rows > SIZE_MAX / stride / sizeof(cg_cost)) return -1;
    c->v = zeroed_array(n, sizeof(cg_cost));
    if (!c->v) return -1;
    c->rows = c->cap = rows;
    return 0;
}

/* Groups item indexes by an owner (counting sort, stable): begin has owners + 1 entries. */
static int group_by(size_t owners, size_t items, const void *base, size_t stride, size_t offset,
                    uint32_t **begin_out, uint32_t **index_out) {
    uint32_t *begin = zeroed_array(owners + 2, sizeof *begin);
    uint32_t *index = malloc((items ? items : 1) * sizeof *index);
    if (!begin || !index) {
        free(begin);
        free(index);
        return -1;
    }
    const char *b = base;
    uint32_t last = 0;
    int sorted = 1;
    for (size_t i = 0; i < items; i++) {
        uint32_t owner;
        memcpy(&owner, b + i * stride + offset, sizeof owner);
        begin[owner + 2]++;
        sorted &= owner >= last;
        last = owner;
    }
    for (size_t o = 0; o < owners; o++) begin[o + 2] += begin[o + 1];
    if (sorted) {
        /* items already in owner order (a load numbers calls by caller and jumps by function)
         * keep it, and their records are not read a second time; the offsets are left as the
         * fill below leaves them */
        for (size_t i = 0; i < items; i++) index[i] = (uint32_t)i;
        memmove(begin + 1, begin + 2, owners * sizeof *begin);
    } else {
        for (size_t i = 0; i < items; i++) {
            uint32_t owner;
            memcpy(&owner, b + i * stride + offset, sizeof owner);
            index[begin[owner + 1]++] = (uint32_t)i;
        }
    }
    *begin_out = begin;
    *index_out = index;
    return 0;
}

static int identity_less(const cg_profile *p, uint32_t a, uint32_t b) {
    const fn_rec *x = &p->fns[a], *y = &p->fns[b];
    int c = strcmp(strtab_get(&p->strings, x->name), strtab_get(&p->strings, y->name));
    if (!c) c = strcmp(strtab_get(&p->strings, x->file), strtab_get(&p->strings, y->file));
    if (!c) c = strcmp(strtab_get(&p->strings, x->object), strtab_get(&p->strings, y->object));
    return c < 0;
}

#define IDENTITY_BEFORE(p, a, b) identity_less((p), *(a), *(b))
DEFINE_MERGE_SORT(sort_by_identity, uint32_t, const cg_profile *, IDENTITY_BEFORE)

/* ---- work per function, on the load's threads ---- */

/* What one function's step gives: a status, or whether a sum overflowed. */
typedef unsigned char (*fn_step)(cg_profile *p, size_t f, line_scratch *scratch);

/* Functions handed out to the threads a few at a time, so that each takes its share whatever
 * the functions cost; each thread writes only its functions' rows and streams. */
enum { STEP = 64, MIN_FNS_EACH = 4096 };

typedef struct fn_steps {
    cg_profile *p;
    fn_step step;
    atomic_size_t next;
    unsigned char *result; /* per function */
    line_scratch *scratch; /* the calling thread's, or NULL; the others make their own */
} fn_steps;

static void steps_part(void *ctx, size_t k) {
    fn_steps *fs = ctx;
    size_t n = fs->p->nfns;
    line_scratch own = {.seed = fs->scratch ? fs->scratch->seed : 0};
    line_scratch *scratch = k || !fs->scratch ? &own : fs->scratch;
    if (scratch == &own) line_scratch_lend(&own, fs->p->blocks);
    for (size_t f; (f = atomic_fetch_add(&fs->next, STEP)) < n;)
        for (size_t to = n - f < STEP ? n : f + STEP; f < to; f++)
            fs->result[f] = fs->step(fs->p, f, scratch);
    line_scratch_free(&own);
}

/* `step` for every function on up to `threads` threads, the calling thread with `scratch`:
 * what each gave, in function order, so that faults are reported as one thread would meet
 * them (free it); NULL when out of memory. */
static unsigned char *each_function(cg_profile *p, int threads, fn_step step,
                                    line_scratch *scratch) {
    fn_steps fs = {
        .p = p, .step = step, .result = malloc(p->nfns ? p->nfns : 1), .scratch = scratch};
    if (!fs.result) return NULL;
    atomic_init(&fs.next, 0);
    parts_run(parts_for(threads, p->nfns, MIN_FNS_EACH), steps_part, &fs);
    return fs.result;
}

static unsigned char finish_step(cg_profile *p, size_t f, line_scratch *scratch) {
    return (unsigned char)line_finish(&p->line_stores[f], &p->strings, p->nraw, scratch);
}

/* Line records in their final form. */
static int finish_lines(analysis *a, line_scratch *scratch, int threads) {
    cg_profile *p = a->p;
    unsigned char *result = each_function(p, threads, finish_step, scratch);
    if (!result) return nomem(a);
    int rc = 0;
    for (size_t f = 0; f < p->nfns && !rc; f++) {
        if (result[f] == ST_NOMEM) rc = nomem(a);
        if (result[f] == ST_OVERFLOW && overflow(a, "a line's cost", (uint32_t)f)) rc = -1;
    }
    free(result);
    return rc;
}

/* ---- cycles: Tarjan's strongly connected components, with an explicit stack ---- */

/* A function's state in the search, in one 16-byte record: the search reads a callee's state
 * at every call, one cache line rather than one per array. A function is on Tarjan's stack
 * when it was found and has no component yet. */
typedef struct search_node {
    uint32_t order; /* discovery index + 1, 0 = not found yet */
    uint32_t low;
    uint32_t edge;      /* its next callee position in callee_index */
    uint32_t component; /* component + 1, 0 = none yet */
} search_node;

/* Every function's component (nodes[f].component - 1), numbered as the search closes them;
 * `callees` holds each call's callee in callee_index order, `stack` and `frames` n entries.
 * Returns how many components there are. */
static size_t search_components(const cg_profile *p, const uint32_t *callees, search_node *nodes,
                                uint32_t *stack, uint32_t *frames) {
    size_t n = p->nfns, ncomponents = 0, sp = 0;
    uint32_t counter = 0;
    for (size_t root = 0; root < n; root++) {
        if (nodes[root].order) continue;
        size_t depth = 0;
        frames[depth++] = (uint32_t)root;
        counter++;
        nodes[root] = (search_node){counter, counter, p->callee_begin[root], 0};
        stack[sp++] = (uint32_t)root;
        while (depth) {
            uint32_t v = frames[depth - 1];
            search_node *nv = &nodes[v];
            if (nv->edge < p->callee_begin[v + 1]) {
                uint32_t w = callees[nv->edge++];
                if (w == v) continue; /* direct recursion is not a cycle */
                search_node *nw = &nodes[w];
                if (!nw->order) {
                    counter++;
                    *nw = (search_node){counter, counter, p->callee_begin[w], 0};
                    stack[sp++] = w;
                    frames[depth++] = w;
                } else if (!nw->component && nw->order < nv->low) {
                    nv->low = nw->order;
                }
                continue;
            }
            depth--;
            if (depth && nv->low < nodes[frames[depth - 1]].low)
                nodes[frames[depth - 1]].low = nv->low;
            if (nv->low == nv->order) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    nodes[w].component = (uint32_t)ncomponents + 1;
                } while (w != v);
                ncomponents++;
            }
        }
    }
    return ncomponents;
}

static int find_cycles(analysis *a) {
    cg_profile *p = a->p;
    size_t n = p->nfns;
    int rc = -1;
    /* the search's arrays in one block (7 words a function): from 512 KiB on in huge pages
     * (pages.h), where blocks of their own were each faulted in 4 KiB at a time (single-10:
     * 335 faults) */
    uint32_t *block =
        n < (SIZE_MAX - 1) / 7 / sizeof *block ? zeroed_array(7 * (n + 1), sizeof *block) : NULL;
    search_node *nodes = (search_node *)(void *)block;
    uint32_t *stack = block ? block + 4 * (n + 1) : NULL;  /* Tarjan's stack, then the sorts' */
    uint32_t *frames = block ? block + 5 * (n + 1) : NULL; /* DFS path, then the sorts' */
    uint32_t *order = block ? block + 6 * (n + 1) : NULL;  /* the cycles' least members */
    uint32_t *scc_min = NULL, *scc_size = NULL, *rank = NULL;
    /* the callees read in one pass, in the order of the calls in memory (callee_index follows
     * it): the search then finds a function's callees in a small array of their own, where
     * it took a cache miss from a call's 56-byte record for each (single 1 GB on one thread:
     * the cycles 117 -> 70 ms) */
    uint32_t *callees = malloc((p->ncalls ? p->ncalls : 1) * sizeof *callees);
    if (!block || !callees) goto out;
    for (size_t e = 0; e < p->ncalls; e++) callees[e] = p->calls[p->callee_index[e]].callee;
    size_t nscc = search_components(p, callees, nodes, stack, frames);
    /* Components of two or more functions are cycles, numbered in the order of their least
     * member by identity (name, file, object): the numbers then do not depend on the order in
     * which an input happens to mention functions, so rewriting or merging keeps them. */
    scc_min = malloc((nscc + 1) * sizeof *scc_min);
    scc_size = calloc(nscc + 1, sizeof *scc_size);
    rank = malloc((nscc + 1) * sizeof *rank);
    if (!scc_min || !scc_size || !rank) goto out;
    for (size_t f = 0; f < n; f++) {
        uint32_t c = nodes[f].component - 1;
        if (scc_size[c]++ == 0 || identity_less(p, (uint32_t)f, scc_min[c]))
            scc_min[c] = (uint32_t)f;
    }
    size_t ncycles = 0;
    for (size_t c = 0; c < nscc; c++) {
        rank[c] = NO_INDEX;
        if (scc_size[c] >= 2) order[ncycles++] = scc_min[c];
    }
    /* the depth-first search is done: its stack and path arrays serve the sorts */
    sort_by_identity(p, order, stack, frames, ncycles);
    for (size_t i = 0; i < ncycles; i++) rank[nodes[order[i]].component - 1] = (uint32_t)i;
    p->ncycles = ncycles;
    p->cycle_begin = calloc(ncycles + 2, sizeof *p->cycle_begin);
    p->cycle_names = malloc((ncycles ? ncycles : 1) * sizeof *p->cycle_names);
    size_t members = 0;
    for (size_t f = 0; f < n; f++) {
        uint32_t c = rank[nodes[f].component - 1];
        p->fns[f].cycle = c;
        if (c != NO_INDEX) members++;
    }
    p->cycle_members = malloc((members ? members : 1) * sizeof *p->cycle_members);
    if (!p->cycle_begin || !p->cycle_names || !p->cycle_members) goto out;
    for (size_t f = 0; f < n; f++)
        if (p->fns[f].cycle != NO_INDEX) p->cycle_begin[p->fns[f].cycle + 2]++;
    for (size_t c = 0; c < ncycles; c++) p->cycle_begin[c + 2] += p->cycle_begin[c + 1];
    for (size_t f = 0; f < n; f++)
        if (p->fns[f].cycle != NO_INDEX)
            p->cycle_members[p->cycle_begin[p->fns[f].cycle + 1]++] = (uint32_t)f;
    for (size_t c = 0; c < ncycles; c++)
        sort_by_identity(p, p->cycle_members + p->cycle_begin[c], stack, frames,
                         p->cycle_begin[c + 1] - p->cycle_begin[c]);
    for (size_t c = 0; c < ncycles; c++) {
        char name[32];
        int len = snprintf(name, sizeof name, "<cycle %zu>", c + 1);
        int64_t id = strtab_intern(&p->strings, name, (size_t)len);
        if (id < 0) goto out;
        p->cycle_names[c] = (uint32_t)id;
    }
    rc = 0;
out:
    free(block);
    free(callees);
    free(scc_min);
    free(scc_size);
    free(rank);
    return rc ? nomem(a) : 0;
}

/* ---- costs ---- */

/* Self costs were summed while reading; the total comes from them. */
static int totals(analysis *a) {
    cg_profile *p = a->p;
    p->total = calloc(p->nraw ? p->nraw : 1, sizeof *p->total);
    if (!p->total) return nomem(a);
    for (size_t f = 0; f < p->nfns; f++) {
        if (row_add(p->total, costs_row(&p->fn_self, p->nraw, f), p->nraw) &&
            overflow(a, "the total cost", NO_INDEX))
            return -1;
    }
    return 0;
}

/* What an inclusive step found: a sum of costs or a count that overflowed. */
enum { INCL_COST_OVERFLOW = 1, INCL_COUNT_OVERFLOW = 2 };

/* KCachegrind's rule: a function that is called (a positive count from another function) costs
 * what its callers spent in it; one that is not (roots, or writers that leave counts at 0)
 * costs its self cost plus its calls. Self-calls count in neither. A cycle member costs its
 * self cost plus the calls that leave the cycle; the cycle costs the sum over its members.
 * The function's called count (every call to it, self-calls too) is summed from the same
 * calls. Returns INCL_* (an overflowed sum is saturated). */
static int inclusive_row(cg_profile *p, size_t f) {
    size_t w = p->nraw;
    cg_cost *incl = costs_row(&p->fn_incl, w, f);
    fn_rec *fn = &p->fns[f];
    int called = 0, bad = 0;
    uint64_t count = 0;
    for (uint32_t i = p->caller_begin[f]; i < p->caller_begin[f + 1]; i++) {
        const call_rec *c = &p->calls[p->caller_index[i]];
        if (count_add(&count, c->count)) bad |= INCL_COUNT_OVERFLOW;
        if (c->caller != f && c->count > 0) called = 1;
    }
    fn->called = count;
    if (fn->cycle != NO_INDEX) called = 0;
    if (called) {
        for (uint32_t i = p->caller_begin[f]; i < p->caller_begin[f + 1]; i++) {
            uint32_t c = p->caller_index[i];
            if (p->calls[c].caller != f && row_add(incl, costs_row(&p->call_costs, w, c), w))
                bad |= INCL_COST_OVERFLOW;
        }
    } else {
        if (row_add(incl, costs_row(&p->fn_self, w, f), w)) bad |= INCL_COST_OVERFLOW;
        for (uint32_t i = p->callee_begin[f]; i < p->callee_begin[f + 1]; i++) {
            uint32_t c = p->callee_index[i];
            uint32_t callee = p->calls[c].callee;
            if (callee == f) continue;
            if (fn->cycle != NO_INDEX && p->fns[callee].cycle == fn->cycle) continue;
            if (row_add(incl, costs_row(&p->call_costs, w, c), w)) bad |= INCL_COST_OVERFLOW;
        }
    }
    return bad;
}

static unsigned char inclusive_step(cg_profile *p, size_t f, line_scratch *scratch) {
    (void)scratch;
    return (unsigned char)inclusive_row(p, f);
}

/* Each function's row and called count on up to `threads` threads (they read the call graph
 * and write rows and counts of their own), then, in function order, the faults (the counts'
 * first, as when they were summed before the costs) and the cycles' sums. */
static int inclusive_costs(analysis *a, int threads) {
    cg_profile *p = a->p;
    size_t w = p->nraw;
    unsigned char *bad = NULL;
    if (alloc_rows(&p->fn_incl, p->nfns, w) || alloc_rows(&p->cycle_self, p->ncycles, w) ||
        alloc_rows(&p->cycle_incl, p->ncycles, w) ||
        !(bad = each_function(p, threads, inclusive_step, NULL)))
        return nomem(a);
    int rc = 0;
    for (size_t f = 0; f < p->nfns && !rc; f++)
        if ((bad[f] & INCL_COUNT_OVERFLOW) && overflow(a, "the call count", (uint32_t)f)) rc = -1;
    for (size_t f = 0; f < p->nfns && !rc; f++) {
        if ((bad[f] & INCL_COST_OVERFLOW) && overflow(a, "the inclusive cost", (uint32_t)f))
            rc = -1;
        uint32_t cycle = p->fns[f].cycle;
        if (!rc && cycle != NO_INDEX &&
            (row_add(costs_row(&p->cycle_self, w, cycle), costs_row(&p->fn_self, w, f), w) |
             row_add(costs_row(&p->cycle_incl, w, cycle), costs_row(&p->fn_incl, w, f), w)) &&
            overflow(a, "the cycle cost", (uint32_t)f))
            rc = -1;
    }
    free(bad);
    return rc;
}

/* Without cycle detection no function is in a cycle, and there are none to list. */
static int no_cycles(analysis *a) {
    cg_profile *p = a->p;
    for (size_t f = 0; f < p->nfns; f++) p->fns[f].cycle = NO_INDEX;
    p->ncycles = 0;
    p->cycle_begin = calloc(2, sizeof *p->cycle_begin);
    p->cycle_names = malloc(sizeof *p->cycle_names);
    p->cycle_members = malloc(sizeof *p->cycle_members);
    return p->cycle_begin && p->cycle_names && p->cycle_members ? 0 : nomem(a);
}

/* The four indexes of the call graph (calls by caller and by callee, jumps by function and by
 * target), each a counting sort of its own, on up to four threads; the cycles are found on the
 * thread that made the first (they need nothing else) while the others make theirs. Only the
 * cycles report a fault there (out of memory); the others say that they failed. */
typedef struct grouping {
    analysis *a;
    size_t parts;
    int failed[4];
    int cycles_failed;
} grouping;

static void group_part(void *ctx, size_t part) {
    grouping *g = ctx;
    cg_profile *p = g->a->p;
    for (size_t k = part; k < 4; k += g->parts) {
        if (k == 0) {
            g->failed[k] = group_by(p->nfns, p->ncalls, p->calls, sizeof *p->calls,
                                    offsetof(call_rec, caller), &p->callee_begin, &p->callee_index);
            if (!g->failed[k])
                g->cycles_failed = p->no_cycles ? no_cycles(g->a) : find_cycles(g->a);
        } else if (k == 1)
            g->failed[k] = group_by(p->nfns, p->ncalls, p->calls, sizeof *p->calls,
                                    offsetof(call_rec, callee), &p->caller_begin, &p->caller_index);
        else if (k == 2)
            g->failed[k] = group_by(p->nfns, p->njumps, p->jumps, sizeof *p->jumps,
                                    offsetof(jump_rec, fn), &p->jump_begin, &p->jump_index);
        else
            g->failed[k] =
                group_by(p->nfns, p->njumps, p->jumps, sizeof *p->jumps, offsetof(jump_rec, to_fn),
                         &p->jump_in_begin, &p->jump_in_index);
    }
}

static int graph_and_cycles(analysis *a, int threads) {
    enum { MIN_RECORDS_EACH = 10000 };
    cg_profile *p = a->p;
    size_t parts = parts_for(threads, p->ncalls + p->njumps, MIN_RECORDS_EACH);
    grouping g = {a, parts > 4 ? 4 : parts, {0, 0, 0, 0}, 0};
    parts_run(g.parts, group_part, &g);
    if (g.failed[0] | g.failed[1] | g.failed[2] | g.failed[3]) return nomem(a);
    return g.cycles_failed;
}

int analysis_run(cg_profile *p, line_scratch *scratch, const fault_site *site, uint64_t line,
                 int threads) {
    analysis a = {p, site, line};
    if (graph_and_cycles(&a, threads) || totals(&a) || inclusive_costs(&a, threads) ||
        finish_lines(&a, scratch, threads))
        return -1;
    return 0;
}
