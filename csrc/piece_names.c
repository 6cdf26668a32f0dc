/* piece_names.c - a piece's names of its own, and their place in the model (piece_names.h). */
#include "piece_names.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "vec.h"

void piece_names_reset(piece_names *pn, uint64_t seed) {
    if (!pn->ready) {
        for (int t = 0; t < IDS_COUNT; t++) idmap_init(&pn->ids[t], seed);
        pn->ready = 1;
    } else {
        for (int t = 0; t < IDS_COUNT; t++) idmap_clear(&pn->ids[t]);
    }
    pn->seed = seed;
    pn->nrefs = PREF_FIRST;
    pn->nfns = pn->ndefs = 0;
    idxtab_clear(&pn->texts);
    idxtab_clear(&pn->fn_index);
    if (pn->by_name) memset(pn->by_name, 0, pn->by_name_cap * sizeof *pn->by_name);
}

void piece_names_free(piece_names *pn) {
    if (pn->ready)
        for (int t = 0; t < IDS_COUNT; t++) idmap_free(&pn->ids[t]);
    free(pn->refs);
    idxtab_free(&pn->texts);
    free(pn->fns);
    idxtab_free(&pn->fn_index);
    free(pn->by_name);
    free(pn->defs);
    free(pn->ref_map);
    free(pn->fn_map);
    memset(pn, 0, sizeof *pn);
}

/* A new ref; the first PREF_FIRST stand for the state where the piece begins. */
static int new_ref(piece_names *pn, piece_ref r, uint32_t *ref) {
    size_t need = pn->nrefs + 1 > PREF_FIRST ? pn->nrefs + 1 : PREF_FIRST;
    if (VEC_RESERVE(pn->refs, pn->refs_cap, need)) return -1;
    pn->refs[pn->nrefs] = r;
    *ref = (uint32_t)pn->nrefs++;
    return 0;
}

static int text_eq(const void *ctx, uint32_t ref, const void *key) {
    const piece_ref *r = &((const piece_names *)ctx)->refs[ref], *k = key;
    return r->len == k->len && !memcmp(r->text, k->text, k->len);
}

int piece_names_text(piece_names *pn, const char *s, size_t len, uint32_t *ref) {
    piece_ref key = {s, len, 0, 0};
    uint32_t tag = (uint32_t)hash_bytes(s, len, pn->seed);
    size_t slot;
    int64_t found = idxtab_find(&pn->texts, tag, text_eq, pn, &key, &slot);
    if (found >= 0) {
        *ref = (uint32_t)found;
        return 0;
    }
    if (idxtab_grow(&pn->texts) || new_ref(pn, key, ref)) return -1;
    (void)idxtab_find(&pn->texts, tag, text_eq, pn, &key, &slot); /* the slot after growing */
    idxtab_put(&pn->texts, slot, tag, *ref);
    return 0;
}

int piece_names_before(piece_names *pn, int table, uint64_t id, uint32_t *ref) {
    return new_ref(pn, (piece_ref){NULL, 0, table, id}, ref);
}

int piece_names_define(piece_names *pn, int table, uint64_t id, uint32_t ref) {
    if (VEC_RESERVE(pn->defs, pn->defs_cap, pn->ndefs + 1)) return -1;
    pn->defs[pn->ndefs++] = (piece_def){table, id, ref};
    return 0;
}

static int function_lookup(piece_names *pn, uint32_t name, uint32_t file, uint32_t object,
                           int defined, uint32_t *fn);

static int fn_eq(const void *ctx, uint32_t index, const void *key) {
    const piece_fn *f = &((const piece_names *)ctx)->fns[index], *k = key;
    return f->name == k->name && f->file == k->file && f->object == k->object;
}

int piece_names_function(piece_names *pn, uint32_t name, uint32_t file, uint32_t object,
                         int defined, uint32_t *fn) {
    if (name < pn->by_name_cap && pn->by_name[name]) {
        piece_fn *f = &pn->fns[pn->by_name[name] - 1];
        if (f->file == file && f->object == object) {
            f->defined |= defined;
            *fn = pn->by_name[name] - 1;
            return 0;
        }
    }
    if (name >= pn->by_name_cap) {
        size_t cap = pn->by_name_cap;
        if (VEC_RESERVE(pn->by_name, pn->by_name_cap, (size_t)name + 1)) return -1;
        memset(pn->by_name + cap, 0, (pn->by_name_cap - cap) * sizeof *pn->by_name);
    }
    if (function_lookup(pn, name, file, object, defined, fn)) return -1;
    pn->by_name[name] = *fn + 1;
    return 0;
}

/* The function of those refs through the index, made when new. */
static int function_lookup(piece_names *pn, uint32_t name, uint32_t file, uint32_t object,
                           int defined, uint32_t *fn) {
    piece_fn key = {name, file, object, defined};
    uint32_t tag =
        (uint32_t)hash_mix(hash_combine(hash_combine(hash_combine(pn->seed, name), file), object));
    size_t slot;
    int64_t found = idxtab_find(&pn->fn_index, tag, fn_eq, pn, &key, &slot);
    if (found >= 0) {
        pn->fns[found].defined |= defined;
        *fn = (uint32_t)found;
        return 0;
    }
    if (idxtab_grow(&pn->fn_index) || VEC_RESERVE(pn->fns, pn->fns_cap, pn->nfns + 1)) return -1;
    (void)idxtab_find(&pn->fn_index, tag, fn_eq, pn, &key, &slot); /* the slot after growing */
    pn->fns[pn->nfns] = key;
    *fn = (uint32_t)pn->nfns++;
    idxtab_put(&pn->fn_index, slot, tag, *fn);
    return 0;
}

/* ---- the stitch ---- */

/* The model's string of each ref: the state's for the first ones, the name tables' as the
 * pieces before left them for ids defined before, strings made in the order the piece wrote
 * them. 1 for an id the tables do not hold. */
static int place_refs(piece_names *pn, builder *b, const parse_state *st) {
    uint32_t *map = pn->ref_map;
    map[PREF_OB] = st->ob;
    map[PREF_FL] = st->fl;
    map[PREF_FILE] = st->file;
    map[PREF_CFN] = st->cfn;
    for (size_t i = PREF_FIRST; i < pn->nrefs; i++) {
        const piece_ref *r = &pn->refs[i];
        if (r->text) {
            if (build_string(b, r->text, r->len, &map[i])) return -1;
            continue;
        }
        int64_t bound = idmap_get(&st->ids[r->table], r->id);
        if (bound < 0) return 1; /* undefined: one thread reports it */
        map[i] = (uint32_t)bound;
    }
    return 0;
}

/* Whether every definition leaves what the name tables held before the piece alone (a
 * definition that changes one is a warning of one thread's). */
static int defs_keep(const piece_names *pn, const parse_state *st) {
    for (size_t i = 0; i < pn->ndefs; i++) {
        const piece_def *d = &pn->defs[i];
        int64_t bound = idmap_get(&st->ids[d->table], d->id);
        if (bound >= 0 && (uint32_t)bound != pn->ref_map[d->ref]) return 0;
    }
    return 1;
}

/* The model's function of each of the piece's, made in the order the piece first used them. 1
 * when two are one function (their calls would not keep one thread's order) or a name is
 * missing. */
static int place_functions(piece_names *pn, builder *b) {
    const uint32_t *map = pn->ref_map;
    size_t cap = 64;
    while (cap < 2 * pn->nfns) cap *= 2;
    uint32_t *seen = zeroed_array(cap, sizeof *seen);
    if (!seen) return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i < pn->nfns; i++) {
        const piece_fn *f = &pn->fns[i];
        uint32_t name = map[f->name], file = map[f->file], object = map[f->object];
        if (name == NO_INDEX || file == NO_INDEX || object == NO_INDEX) {
            rc = 1;
            break;
        }
        if (build_function(b, name, file, object, &pn->fn_map[i])) {
            rc = -1;
            break;
        }
        uint32_t fn = pn->fn_map[i];
        size_t h = (uint32_t)hash_mix(hash_combine(pn->seed, fn)) & (cap - 1);
        while (seen[h] && seen[h] != fn + 1) h = (h + 1) & (cap - 1);
        if (seen[h]) rc = 1;
        seen[h] = fn + 1;
    }
    free(seen);
    return rc;
}

int piece_names_place(piece_names *pn, builder *b, parse_state *st) {
    if (VEC_RESERVE(pn->ref_map, pn->ref_map_cap, pn->nrefs) ||
        VEC_RESERVE(pn->fn_map, pn->fn_map_cap, pn->nfns ? pn->nfns : 1))
        return -1;
    int rc = place_refs(pn, b, st);
    if (rc) return rc;
    if (!defs_keep(pn, st)) return 1;
    if ((rc = place_functions(pn, b))) return rc;
    for (size_t i = 0; i < pn->ndefs; i++) {
        const piece_def *d = &pn->defs[i];
        if (idmap_set(&st->ids[d->table], d->id, pn->ref_map[d->ref])) return -1;
    }
    for (size_t i = 0; i < pn->nfns; i++)
        if (pn->fns[i].defined) build_defined(b, pn->fn_map[i]);
    return 0;
}
