/* flame.c - flame graphs: call stacks with exact integer costs for one event, from the call graph.
 *
 * A profile has call edges, not stacks, so the stacks rest on one assumption: every path that
 * reaches a function gets a share of that function's costs (its self cost and each of its calls)
 * in proportion to the cost the path brings in. The walk follows that assumption with real
 * numbers from the roots down; a function already on the stack is not entered again (recursion
 * and cycles are cut), and what a cut call would have carried is shared among the rest of the
 * frame. Whole integers are then dealt out by largest remainders, first per root and function
 * (so the stacks ending in a function add up to its self cost and the stacks under a root to
 * the root's cost), then per frame. Only the public API is used. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fault.h"
#include "vec.h"

/* The call graph for one event: self costs, calls summed per callee (self-calls left out) in
 * CSR form, and per function what its calls bring in and what it costs with its calls. */
typedef struct edge {
    uint32_t rank, to;
    cg_cost cost;
} edge;

typedef struct graph {
    size_t nfn;
    cg_cost *self, *through, *in, *root_cost;
    size_t *begin; /* nfn + 1 offsets into edges */
    edge *edges;
    uint32_t *rank;  /* position in (name, file, object) order */
    uint32_t *order; /* functions in that order */
} graph;

typedef struct pending {
    uint32_t fn, depth, root;
    size_t parent;
    double weight;
} pending;

static int nomem(cg_error *err) {
    set_error(err, CG_ERR_NOMEM, 0, "out of memory");
    return -1;
}

static int add_checked(cg_cost *acc, cg_cost v) {
    return __builtin_add_overflow(*acc, v, acc) ? -1 : 0;
}

/* ---- The call graph ------------------------------------------------------------------------ */

typedef struct named {
    const char *name, *file, *object;
    uint32_t fn;
} named;

static int by_name(const void *a, const void *b) {
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c) c = strcmp(x->file, y->file);
    if (!c) c = strcmp(x->object, y->object);
    if (!c) c = (x->fn > y->fn) - (x->fn < y->fn);
    return c;
}

static int by_rank(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void graph_free(graph *g) {
    free(g->self);
    free(g->through);
    free(g->in);
    free(g->root_cost);
    free(g->begin);
    free(g->edges);
    free(g->rank);
    free(g->order);
}

static int rank_functions(const cg_profile *p, graph *g, cg_error *err) {
    named *list = malloc((g->nfn ? g->nfn : 1) * sizeof *list);
    if (!list) return nomem(err);
    for (size_t f = 0; f < g->nfn; f++)
        list[f] = (named){cg_function_name(p, f), cg_function_file(p, f), cg_function_object(p, f),
                          (uint32_t)f};
    qsort(list, g->nfn, sizeof *list, by_name);
    for (size_t r = 0; r < g->nfn; r++) {
        g->rank[list[r].fn] = (uint32_t)r;
        g->order[r] = list[r].fn;
    }
    free(list);
    return 0;
}

static int negative(const cg_profile *p, size_t fn, size_t ev, const char *what, cg_error *err) {
    set_error(err, CG_ERR_USAGE, 0,
              "%s of '%s' has a negative cost of event %s: a flame graph needs costs of 0 or "
              "more (draw the two runs of a difference instead)",
              what, cg_function_name(p, fn), cg_event_name(p, ev));
    return -1;
}

static int too_big(const cg_profile *p, size_t fn, cg_error *err) {
    set_error(err, CG_ERR_OVERFLOW, 0, "the cost of '%s' with its calls does not fit in 64 bits",
              cg_function_name(p, fn));
    return -1;
}

/* The calls of `f`, one edge per callee with their costs summed, sorted by the callee's rank. */
static int add_edges(const cg_profile *p, size_t ev, graph *g, size_t f, uint32_t *mark,
                     size_t *slot, size_t *nedges, cg_error *err) {
    size_t first = *nedges;
    for (size_t i = 0, n = cg_function_callee_count(p, f); i < n; i++) {
        size_t call = cg_function_callee(p, f, i);
        size_t to = cg_call_callee(p, call);
        cg_cost cost;
        if (to == f) continue;
        if (cg_cost_of(p, cg_call_inclusive(p, call), ev, &cost) != CG_OK)
            return too_big(p, f, err);
        if (cost < 0) return negative(p, f, ev, "a call", err);
        if (cost == 0) continue;
        if (mark[to] != f + 1) {
            mark[to] = (uint32_t)f + 1;
            slot[to] = (*nedges)++;
            g->edges[slot[to]] = (edge){g->rank[to], (uint32_t)to, 0};
        }
        if (add_checked(&g->edges[slot[to]].cost, cost)) return too_big(p, f, err);
    }
    g->begin[f + 1] = *nedges;
    qsort(g->edges + first, *nedges - first, sizeof *g->edges, by_rank);
    g->through[f] = g->self[f];
    for (size_t e = first; e < *nedges; e++) {
        if (add_checked(&g->through[f], g->edges[e].cost)) return too_big(p, f, err);
        if (add_checked(&g->in[g->edges[e].to], g->edges[e].cost))
            return too_big(p, g->edges[e].to, err);
    }
    return 0;
}

typedef struct tarjan_frame {
    uint32_t fn;
    size_t next; /* the next edge to follow */
} tarjan_frame;

/* Strongly connected components of the graph (Tarjan's algorithm with explicit stacks, so that
 * no recursion depends on the input): comp[f] numbers the component of every function. The
 * profile's own cycles are not used: it may have been loaded without them. */
static int components(const graph *g, uint32_t *comp, cg_error *err) {
    size_t n = g->nfn, m = n ? n : 1;
    uint32_t *index = malloc(m * sizeof *index), *low = malloc(m * sizeof *low);
    uint32_t *stack = malloc(m * sizeof *stack);
    tarjan_frame *calls = malloc(m * sizeof *calls);
    unsigned char *on_stack = calloc(m, 1);
    int rc = 0;
    if (!index || !low || !stack || !calls || !on_stack) {
        rc = nomem(err);
        goto done;
    }
    for (size_t f = 0; f < n; f++) index[f] = UINT32_MAX;
    uint32_t counter = 0, ncomp = 0;
    size_t nstack = 0;
    for (size_t s = 0; s < n; s++) {
        if (index[s] != UINT32_MAX) continue;
        size_t ncalls = 0;
        index[s] = low[s] = counter++;
        stack[nstack++] = (uint32_t)s;
        on_stack[s] = 1;
        calls[ncalls++] = (tarjan_frame){(uint32_t)s, g->begin[s]};
        while (ncalls) {
            tarjan_frame *top = &calls[ncalls - 1];
            uint32_t v = top->fn;
            if (top->next < g->begin[v + 1]) {
                uint32_t w = g->edges[top->next++].to;
                if (index[w] == UINT32_MAX) {
                    index[w] = low[w] = counter++;
                    stack[nstack++] = w;
                    on_stack[w] = 1;
                    calls[ncalls++] = (tarjan_frame){w, g->begin[w]};
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            ncalls--;
            if (ncalls && low[v] < low[calls[ncalls - 1].fn]) low[calls[ncalls - 1].fn] = low[v];
            if (low[v] != index[v]) continue;
            uint32_t x;
            do {
                x = stack[--nstack];
                on_stack[x] = 0;
                comp[x] = ncomp;
            } while (x != v);
            ncomp++;
        }
    }
done:
    free(index);
    free(low);
    free(stack);
    free(calls);
    free(on_stack);
    return rc;
}

/* What each function costs beyond what its callers bring in: the cost of a root. Functions
 * nobody calls with a cost get all of theirs; a called function whose own cost is higher than
 * its callers' (a thread's entry point merged with the main thread's call to it, a function
 * active when a dump was taken) gets the difference. Mutually recursive functions are weighed
 * as a whole, since their calls to each other count the same costs more than once; the excess
 * of the whole goes to its members whose own balance is positive. */
static int root_costs(const cg_profile *p, graph *g, flame_leftover *scratch, cg_error *err) {
    size_t n = g->nfn, m = n ? n : 1;
    uint32_t *comp = malloc(m * sizeof *comp);
    size_t *begin = calloc(n + 2, sizeof *begin); /* members of each component, counting sort */
    uint32_t *members = malloc(m * sizeof *members);
    double *w = malloc(m * sizeof *w);
    cg_cost *share = malloc(m * sizeof *share);
    int rc = -1;
    if (!comp || !begin || !members || !w || !share) {
        nomem(err);
        goto done;
    }
    if (components(g, comp, err)) goto done;
    for (size_t f = 0; f < n; f++) begin[comp[f] + 2]++;
    for (size_t c = 0; c < n; c++) begin[c + 2] += begin[c + 1];
    for (size_t f = 0; f < n; f++) members[begin[comp[f] + 1]++] = (uint32_t)f;
    rc = 0;
    for (size_t c = 0; c < n && begin[c] < begin[c + 1]; c++) {
        size_t first = begin[c], count = begin[c + 1] - first;
        cg_cost excess = 0;
        for (size_t i = 0; i < count; i++) {
            uint32_t f = members[first + i];
            cg_cost d = g->through[f] - g->in[f]; /* both >= 0: no overflow */
            w[i] = d > 0 ? (double)d : 0;
            g->root_cost[f] = 0;
            if (add_checked(&excess, d)) {
                rc = too_big(p, f, err);
                goto done;
            }
        }
        if (excess <= 0) continue;
        flame_split(excess, w, count, share, scratch);
        for (size_t i = 0; i < count; i++) g->root_cost[members[first + i]] = share[i];
    }
done:
    free(comp);
    free(begin);
    free(members);
    free(w);
    free(share);
    return rc;
}

static int graph_build(const cg_profile *p, size_t ev, graph *g, cg_error *err) {
    size_t nfn = cg_function_count(p), ncalls = cg_call_count(p);
    memset(g, 0, sizeof *g);
    g->nfn = nfn;
    size_t m = nfn ? nfn : 1;
    g->self = malloc(m * sizeof *g->self);
    g->through = malloc(m * sizeof *g->through);
    g->in = calloc(m, sizeof *g->in);
    g->root_cost = malloc(m * sizeof *g->root_cost);
    g->begin = calloc(nfn + 1, sizeof *g->begin);
    g->edges = malloc((ncalls ? ncalls : 1) * sizeof *g->edges);
    g->rank = malloc(m * sizeof *g->rank);
    g->order = malloc(m * sizeof *g->order);
    uint32_t *mark = calloc(m, sizeof *mark);
    size_t *slot = malloc(m * sizeof *slot);
    flame_leftover *scratch = malloc(m * sizeof *scratch);
    int rc = -1;
    if (!g->self || !g->through || !g->in || !g->root_cost || !g->begin || !g->edges || !g->rank ||
        !mark || !slot || !scratch) {
        nomem(err);
        goto done;
    }
    if (rank_functions(p, g, err)) goto done;
    for (size_t f = 0; f < nfn; f++) {
        if (cg_cost_of(p, cg_function_self(p, f), ev, &g->self[f]) != CG_OK) {
            too_big(p, f, err);
            goto done;
        }
        if (g->self[f] < 0) {
            negative(p, f, ev, "function", err);
            goto done;
        }
    }
    size_t nedges = 0;
    for (size_t f = 0; f < nfn; f++)
        if (add_edges(p, ev, g, f, mark, slot, &nedges, err)) goto done;
    rc = root_costs(p, g, scratch, err);
done:
    free(mark);
    free(slot);
    free(scratch);
    return rc;
}

/* ---- The walk ------------------------------------------------------------------------------ */

static void frames_free(flame_frames *fr) {
    free(fr->fn);
    free(fr->depth);
    free(fr->root);
    free(fr->parent);
    free(fr->x);
}

static int frames_add(flame_frames *fr, uint32_t fn, uint32_t depth, uint32_t root, size_t parent,
                      double x) {
    if (fr->n == fr->cap) {
        size_t need = fr->n + 1, least = SIZE_MAX;
        if (VEC_RESERVE_SHARED(fr->fn, fr->cap, need, least) ||
            VEC_RESERVE_SHARED(fr->depth, fr->cap, need, least) ||
            VEC_RESERVE_SHARED(fr->root, fr->cap, need, least) ||
            VEC_RESERVE_SHARED(fr->parent, fr->cap, need, least) ||
            VEC_RESERVE_SHARED(fr->x, fr->cap, need, least))
            return -1;
        fr->cap = least;
    }
    fr->fn[fr->n] = fn;
    fr->depth[fr->n] = depth;
    fr->root[fr->n] = root;
    fr->parent[fr->n] = parent;
    fr->x[fr->n] = x;
    fr->n++;
    return 0;
}

typedef struct walk {
    const graph *g;
    const cg_flame_options *opts;
    double min_weight;
    flame_frames fr;
    pending *stack;
    size_t nstack, stack_cap;
    uint32_t *path; /* functions on the current stack, by depth */
    unsigned char *on_stack;
    size_t path_len;
    int pruned; /* an [other] frame was made */
} walk;

static int push(walk *w, pending item) {
    if (VEC_RESERVE(w->stack, w->stack_cap, w->nstack + 1)) return -1;
    w->stack[w->nstack++] = item;
    return 0;
}

/* Makes the frame of `item` and queues its children: each call gets the share of the frame's
 * weight that its cost has of the function's cost, leaving out calls to functions already on
 * the stack; children below min_weight or max_depth go into one [other] frame, queued first so
 * that it comes last. */
static int visit(walk *w, pending item, cg_error *err) {
    const graph *g = w->g;
    size_t me = w->fr.n;
    if (w->opts->max_frames && me >= w->opts->max_frames) {
        set_error(err, CG_ERR_USAGE, 0,
                  "the flame graph needs more than %zu frames: raise min_share or lower max_depth",
                  w->opts->max_frames);
        return -1;
    }
    if (item.fn == FLAME_OTHER)
        return frames_add(&w->fr, FLAME_OTHER, item.depth, item.root, item.parent, item.weight)
                   ? nomem(err)
                   : 0;
    while (w->path_len > item.depth) w->on_stack[w->path[--w->path_len]] = 0;
    w->path[w->path_len++] = item.fn;
    w->on_stack[item.fn] = 1;

    const edge *first = g->edges + g->begin[item.fn], *end = g->edges + g->begin[item.fn + 1];
    double cost = (double)g->self[item.fn];
    for (const edge *e = first; e < end; e++)
        if (!w->on_stack[e->to]) cost += (double)e->cost;
    double self = cost > 0 ? item.weight * ((double)g->self[item.fn] / cost) : item.weight;
    if (frames_add(&w->fr, item.fn, item.depth, item.root, item.parent, self)) return nomem(err);
    if (!(cost > 0)) return 0;

    int deepest = w->opts->max_depth && item.depth + 1 >= w->opts->max_depth;
    double other = 0;
    for (const edge *e = first; e < end; e++) {
        if (w->on_stack[e->to]) continue;
        double share = item.weight * ((double)e->cost / cost);
        if (deepest || share < w->min_weight) other += share;
    }
    if (other > 0) {
        w->pruned = 1;
        if (push(w, (pending){FLAME_OTHER, item.depth + 1, item.root, me, other}))
            return nomem(err);
    }
    if (deepest) return 0;
    for (const edge *e = end; e-- > first;) {
        if (w->on_stack[e->to]) continue;
        double share = item.weight * ((double)e->cost / cost);
        if (share > 0 && share >= w->min_weight &&
            push(w, (pending){e->to, item.depth + 1, item.root, me, share}))
            return nomem(err);
    }
    return 0;
}

/* Walks from every root, in name order, each root frame with its own ordinal. */
static int walk_roots(walk *w, cg_error *err) {
    const graph *g = w->g;
    double grand = 0;
    size_t nroots = 0;
    for (size_t f = 0; f < g->nfn; f++)
        if (g->root_cost[f] > 0) {
            grand += (double)g->root_cost[f];
            nroots++;
        }
    w->min_weight = w->opts->min_share * grand;
    int rc = 0;
    /* queued last first, so that they come out in name order */
    for (size_t r = g->nfn; r-- > 0 && !rc;) {
        uint32_t f = g->order[r];
        if (g->root_cost[f] <= 0) continue;
        pending item = {f, 0, (uint32_t)--nroots, CG_NONE, (double)g->root_cost[f]};
        rc = push(w, item) ? nomem(err) : 0;
    }
    while (!rc && w->nstack) rc = visit(w, w->stack[--w->nstack], err);
    return rc;
}

/* Functions with a self cost that no frame reached (weights too small for doubles, or no root
 * above them) become roots of their own, so that every self cost is drawn somewhere. */
static int add_unreached(walk *w, const double *reached, cg_error *err) {
    const graph *g = w->g;
    uint32_t next_root = 0;
    for (size_t i = 0; i < w->fr.n; i++)
        if (w->fr.root[i] >= next_root) next_root = w->fr.root[i] + 1;
    for (size_t r = 0; r < g->nfn; r++) {
        uint32_t f = g->order[r];
        if (g->self[f] > 0 && !(reached[f] > 0) &&
            frames_add(&w->fr, f, 0, next_root++, CG_NONE, (double)g->self[f]))
            return nomem(err);
    }
    return 0;
}

/* ---- The flame graph ----------------------------------------------------------------------- */

void cg_flame_free(cg_flame *f) {
    if (!f) return;
    free(f->fn);
    free(f->depth);
    free(f->parent);
    free(f->self);
    free(f->total);
    free(f);
}

/* Keeps the frames with a cost (a frame without is the root of a subtree without), with their
 * totals summed from the leaves up. */
static int finish(cg_flame *out, const flame_frames *fr, cg_cost *self, cg_error *err) {
    size_t n = fr->n;
    cg_cost *total = malloc((n ? n : 1) * sizeof *total);
    size_t *index = malloc((n ? n : 1) * sizeof *index);
    if (!total || !index) {
        free(total);
        free(index);
        return nomem(err);
    }
    memcpy(total, self, n * sizeof *total);
    for (size_t i = n; i-- > 0;)
        if (fr->parent[i] != CG_NONE) total[fr->parent[i]] += total[i];
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) kept += total[i] > 0;
    size_t m = kept ? kept : 1;
    out->fn = malloc(m * sizeof *out->fn);
    out->depth = malloc(m * sizeof *out->depth);
    out->parent = malloc(m * sizeof *out->parent);
    out->self = malloc(m * sizeof *out->self);
    out->total = malloc(m * sizeof *out->total);
    if (!out->fn || !out->depth || !out->parent || !out->self || !out->total) {
        free(total);
        free(index);
        return nomem(err);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (total[i] <= 0) continue;
        index[i] = k;
        out->fn[k] = fr->fn[i];
        out->depth[k] = fr->depth[i];
        out->parent[k] = fr->parent[i] == CG_NONE ? CG_NONE : index[fr->parent[i]];
        out->self[k] = self[i];
        out->total[k] = total[i];
        if (fr->parent[i] == CG_NONE) out->grand_total += total[i];
        k++;
    }
    out->n = kept;
    free(total);
    free(index);
    return 0;
}

/* The frames of a profile with a cost: the walk, then the whole costs. */
static int build_frames(const cg_profile *p, const cg_flame_options *opts, graph *g, walk *w,
                        cg_flame *out, cg_error *err) {
    cg_cost total = 0;
    for (size_t f = 0; f < g->nfn; f++)
        if (add_checked(&total, g->self[f])) {
            set_error(err, CG_ERR_OVERFLOW, 0, "the total of event %s does not fit in 64 bits",
                      cg_event_name(p, opts->event));
            return -1;
        }
    if (total == 0) return 0;
    size_t m = g->nfn ? g->nfn : 1;
    w->g = g;
    w->opts = opts;
    w->path = malloc(m * sizeof *w->path);
    w->on_stack = calloc(m, 1);
    double *reached = calloc(m, sizeof *reached);
    cg_cost *self = NULL;
    int rc = -1;
    if (!w->path || !w->on_stack || !reached) {
        nomem(err);
        goto done;
    }
    if (walk_roots(w, err)) goto done;
    int exact = !w->pruned;
    if (exact) {
        for (size_t i = 0; i < w->fr.n; i++) reached[w->fr.fn[i]] += w->fr.x[i];
        if (add_unreached(w, reached, err)) goto done;
    }
    self = malloc((w->fr.n ? w->fr.n : 1) * sizeof *self);
    if (!self) {
        nomem(err);
        goto done;
    }
    if (flame_deal(g->self, g->nfn, &w->fr, exact, total, self, err)) goto done;
    rc = finish(out, &w->fr, self, err);
done:
    free(reached);
    free(self);
    return rc;
}

cg_flame *cg_flame_build(const cg_profile *p, const cg_flame_options *opts, cg_error *err) {
    if (!p || !opts || opts->event >= cg_event_count(p) || !(opts->min_share >= 0) ||
        !(opts->min_share <= 1)) {
        set_error(err, CG_ERR_USAGE, 0, "cg_flame_build: bad arguments");
        return NULL;
    }
    cg_flame *out = calloc(1, sizeof *out);
    if (!out) {
        nomem(err);
        return NULL;
    }
    out->p = p;
    graph g;
    walk w;
    memset(&g, 0, sizeof g);
    memset(&w, 0, sizeof w);
    int rc = graph_build(p, opts->event, &g, err);
    if (!rc) rc = build_frames(p, opts, &g, &w, out, err);
    graph_free(&g);
    frames_free(&w.fr);
    free(w.stack);
    free(w.path);
    free(w.on_stack);
    if (rc) {
        cg_flame_free(out);
        return NULL;
    }
    return out;
}

size_t cg_flame_frame_count(const cg_flame *f) {
    return f->n;
}

size_t cg_flame_frame_function(const cg_flame *f, size_t i) {
    return f->fn[i] == FLAME_OTHER ? CG_NONE : f->fn[i];
}

size_t cg_flame_frame_parent(const cg_flame *f, size_t i) {
    return f->parent[i];
}

size_t cg_flame_frame_depth(const cg_flame *f, size_t i) {
    return f->depth[i];
}

cg_cost cg_flame_frame_self(const cg_flame *f, size_t i) {
    return f->self[i];
}

cg_cost cg_flame_frame_total(const cg_flame *f, size_t i) {
    return f->total[i];
}

cg_cost cg_flame_total(const cg_flame *f) {
    return f->grand_total;
}
