/* resolve.c - callees named without their file.
 *
 * A call whose input gives no cfi=/cfl= goes, by the format's default, to the function of
 * that name in the caller's current file. Writers that never name the callee's file (Xdebug's
 * early format, converters such as Python profilers' exporters) thereby point calls at
 * placeholders: functions with no fn= block of their own, while the real function has its
 * block in another file. When exactly one function of that name and object has a fn= block,
 * such a call goes to it and the placeholder disappears. Callgrind always names the callee's
 * file when it differs from the caller's, so its calls never meet this case. */
#include "resolve.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

static int name_object_eq(const void *ctx, uint32_t index, const void *key) {
    const fn_rec *a = &((const cg_profile *)ctx)->fns[index];
    const fn_rec *b = key;
    return a->name == b->name && a->object == b->object;
}

static uint32_t name_object_tag(const fn_rec *f, uint64_t seed) {
    return (uint32_t)hash_mix(hash_combine(hash_combine(seed, f->name), f->object));
}

static int nomem(const fault_site *site) {
    set_error(site->err, CG_ERR_NOMEM, 0, "out of memory");
    return -1;
}

/* For each placeholder, the only defined function of its (name, object); NO_INDEX for defined
 * functions and for placeholders whose name has no definition or several. */
static uint32_t *unique_definitions(builder *b) {
    cg_profile *p = b->p;
    size_t n = p->nfns ? p->nfns : 1;
    uint32_t *target = malloc(n * sizeof *target);
    unsigned char *ambiguous = calloc(n, 1);
    idxtab index = {NULL, 0, 0};
    int ok = target && ambiguous;
    for (size_t f = 0; ok && f < p->nfns; f++) {
        if (!b->fn_defined[f]) continue;
        uint32_t tag = name_object_tag(&p->fns[f], b->seed);
        size_t slot;
        int64_t first = idxtab_find(&index, tag, name_object_eq, p, &p->fns[f], &slot);
        if (first >= 0) {
            ambiguous[first] = 1;
        } else if (idxtab_grow(&index)) {
            ok = 0;
        } else {
            (void)idxtab_find(&index, tag, name_object_eq, p, &p->fns[f], &slot);
            idxtab_put(&index, slot, tag, (uint32_t)f);
        }
    }
    for (size_t f = 0; ok && f < p->nfns; f++) {
        target[f] = NO_INDEX;
        if (b->fn_defined[f]) continue;
        size_t slot;
        int64_t def = idxtab_find(&index, name_object_tag(&p->fns[f], b->seed), name_object_eq, p,
                                  &p->fns[f], &slot);
        if (def >= 0 && !ambiguous[def]) target[f] = (uint32_t)def;
    }
    idxtab_free(&index);
    free(ambiguous);
    if (!ok) {
        free(target);
        return NULL;
    }
    return target;
}

/* Re-adds every call with its callee redirected, merging calls that now coincide (a caller's
 * calls only: the caller does not change), and numbers them again. */
static int rebuild_calls(builder *b, const uint32_t *target, const fault_site *site,
                         uint64_t line) {
    cg_profile *p = b->p;
    call_rec *old = p->calls;
    size_t n = p->ncalls;
    cost_array old_costs = p->call_costs;
    unsigned char *old_guessed = b->call_guessed;
    p->calls = NULL;
    p->ncalls = p->calls_cap = 0;
    memset(&p->call_costs, 0, sizeof p->call_costs);
    b->call_guessed = NULL;
    b->call_guessed_cap = 0;
    int rc = 0;
    for (size_t c = 0; c < n && rc == 0; c++) {
        call_rec key = old[c];
        if (old_guessed[c] && target[key.callee] != NO_INDEX) key.callee = target[key.callee];
        cg_cost *row;
        status r = build_call(b, &key, old_guessed[c], &row);
        if (r == ST_NOMEM) {
            rc = nomem(site);
            break;
        }
        if (r || row_add(row, costs_row(&old_costs, p->nraw, c), p->nraw))
            rc = fault(site, CG_ERR_OVERFLOW, line, "calls to '%s' sum beyond 64 bits",
                       strtab_get(&p->strings, p->fns[key.callee].name));
    }
    free(old);
    costs_free(&old_costs);
    free(old_guessed);
    if (rc == 0 && build_number(b, 1)) rc = nomem(site);
    return rc;
}

/* Drops placeholders nothing refers to any more and renumbers the rest, keeping their order. */
static int drop_unreferenced(builder *b, const fault_site *site) {
    cg_profile *p = b->p;
    uint32_t *renumber = calloc(p->nfns ? p->nfns : 1, sizeof *renumber);
    if (!renumber) return nomem(site);
    for (size_t c = 0; c < p->ncalls; c++)
        renumber[p->calls[c].caller] = renumber[p->calls[c].callee] = 1;
    for (size_t j = 0; j < p->njumps; j++)
        renumber[p->jumps[j].fn] = renumber[p->jumps[j].to_fn] = 1;
    for (size_t f = 0; f < p->nfns; f++)
        if (p->line_stores[f].count) renumber[f] = 1;
    size_t kept = 0;
    for (size_t f = 0; f < p->nfns; f++) {
        if (!renumber[f] && !b->fn_defined[f]) {
            renumber[f] = NO_INDEX;
            continue;
        }
        p->fns[kept] = p->fns[f];
        b->fn_defined[kept] = b->fn_defined[f];
        p->line_stores[kept] = p->line_stores[f];
        memmove(costs_row(&p->fn_self, p->nraw, kept), costs_row(&p->fn_self, p->nraw, f),
                p->nraw * sizeof(cg_cost));
        renumber[f] = (uint32_t)kept++;
    }
    p->nfns = kept;
    p->fn_self.rows = kept;
    for (size_t c = 0; c < p->ncalls; c++) {
        p->calls[c].caller = renumber[p->calls[c].caller];
        p->calls[c].callee = renumber[p->calls[c].callee];
    }
    for (size_t j = 0; j < p->njumps; j++) {
        p->jumps[j].fn = renumber[p->jumps[j].fn];
        p->jumps[j].to_fn = renumber[p->jumps[j].to_fn];
    }
    free(renumber);
    idxtab_free(&b->fn_index); /* its indexes are stale now, and so is the cache */
    if (b->fn_by_name) memset(b->fn_by_name, 0, b->fn_by_name_cap * sizeof *b->fn_by_name);
    return 0;
}

int resolve_guessed_callees(builder *b, const fault_site *site, uint64_t line) {
    cg_profile *p = b->p;
    size_t placeholders = 0;
    for (size_t c = 0; c < p->ncalls; c++)
        if (b->call_guessed[c] && !b->fn_defined[p->calls[c].callee]) placeholders++;
    if (!placeholders) return 0;
    uint32_t *target = unique_definitions(b);
    if (!target) return nomem(site);
    size_t redirected = 0;
    for (size_t c = 0; c < p->ncalls; c++)
        if (b->call_guessed[c] && target[p->calls[c].callee] != NO_INDEX) redirected++;
    int rc = 0;
    if (redirected) rc = rebuild_calls(b, target, site, line);
    free(target);
    if (rc == 0 && redirected) rc = drop_unreferenced(b, site);
    return rc;
}
