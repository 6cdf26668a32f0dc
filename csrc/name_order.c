/* name_order.c - the functions in name order, for lookups by name: made on the first lookup,
 * not by every load (most loads never look a function up by name). */
#include "name_order.h"

#include <stdlib.h>
#include <string.h>

#include "msort.h"
#include "vec.h"

/* Functions are sorted by name eight bytes at a time: by the names' first eight bytes, kept
 * beside the function's index, then each group that shares them by the eight after all that
 * the group shares (callgrind's caller contexts begin alike for hundreds of bytes), and so on.
 * Each round is a stable sort, so the order is strcmp's, equal names in index order; the
 * strings are read once per round instead of twice per comparison, a cache miss each when the
 * functions are many. */
typedef struct named {
    uint64_t prefix;  /* eight bytes of the name from `rest`, big-endian, zero-padded */
    const char *rest; /* the name from the round's offset */
    uint32_t fn;
    uint32_t more; /* the name goes on past these eight bytes */
} named;

/* Reads the next eight bytes of the name and steps past them. */
static void name_prefix(named *n) {
    const char *s = n->rest;
    uint64_t v = 0;
    int ended = 0;
    for (int i = 0; i < 8; i++) {
        v <<= 8;
        if (!ended && !(ended = !s[i])) v |= (unsigned char)s[i];
    }
    n->prefix = v;
    n->more = !ended;
    if (!ended) n->rest = s + 8;
}

/* Steps the names of a group past their longest common beginning, so that names that share
 * long ones (the same function in many caller contexts) take one round more, not one per
 * eight bytes. */
static void skip_shared(named *v, size_t n) {
    const char *f = v[0].rest;
    size_t len = strlen(f);
    for (size_t i = 1; i < n && len; i++) {
        const char *t = v[i].rest;
        size_t m = 0;
        while (m < len && f[m] == t[m]) m++; /* t[m] is 0 at t's end, where f[m] is not */
        len = m;
    }
    for (size_t i = 0; i < n; i++) v[i].rest += len;
}

typedef struct name_range {
    size_t begin, end;
} name_range;
#define PREFIX_BEFORE(ctx, a, b) ((void)(ctx), (a)->prefix < (b)->prefix)
DEFINE_MERGE_SORT(sort_by_prefix, named, void *, PREFIX_BEFORE)

static int sort_by_name(const cg_profile *p, named *order, named *tmp, uint32_t *bounds) {
    name_range *stack = NULL;
    size_t depth = 0, cap = 0;
    if (VEC_RESERVE(stack, cap, 1)) return -1;
    stack[depth++] = (name_range){0, p->nfns};
    int first = 1;
    while (depth) {
        name_range r = stack[--depth];
        if (!first) /* a group that shares eight bytes: step over all that it shares */
            skip_shared(order + r.begin, r.end - r.begin);
        first = 0;
        for (size_t i = r.begin; i < r.end; i++) name_prefix(&order[i]);
        sort_by_prefix(NULL, order + r.begin, tmp + r.begin, bounds + r.begin, r.end - r.begin);
        for (size_t i = r.begin, j; i < r.end; i = j) {
            for (j = i + 1; j < r.end && order[j].prefix == order[i].prefix; j++) {
            }
            if (j - i < 2 || !order[i].more) continue;
            if (VEC_RESERVE(stack, cap, depth + 1)) {
                free(stack);
                return -1;
            }
            stack[depth++] = (name_range){i, j};
        }
    }
    free(stack);
    return 0;
}

uint32_t *name_order_build(const cg_profile *p) {
    named *order = malloc((p->nfns ? p->nfns : 1) * sizeof *order);
    named *tmp = malloc((p->nfns ? p->nfns : 1) * sizeof *tmp);
    uint32_t *bounds = malloc((p->nfns + 1) * sizeof *bounds);
    uint32_t *out = malloc((p->nfns ? p->nfns : 1) * sizeof *out);
    if (order && tmp && bounds && out) {
        for (size_t f = 0; f < p->nfns; f++) {
            order[f].fn = (uint32_t)f;
            order[f].rest = strtab_get(&p->strings, p->fns[f].name);
        }
        if (sort_by_name(p, order, tmp, bounds) == 0)
            for (size_t f = 0; f < p->nfns; f++) out[f] = order[f].fn;
        else {
            free(out);
            out = NULL;
        }
    } else {
        free(out);
        out = NULL;
    }
    free(order);
    free(tmp);
    free(bounds);
    return out;
}
