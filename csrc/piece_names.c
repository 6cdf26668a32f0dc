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
    pn->ntexts = pn->nfns = pn->ndefs = 0;
    if (pn->text_tab) memset(pn->text_tab, 0, pn->text_cap * sizeof *pn->text_tab);
    if (pn->fn_tab) memset(pn->fn_tab, 0, pn->fn_cap * sizeof *pn->fn_tab);
    if (pn->by_name) memset(pn->by_name, 0, pn->by_name_cap * sizeof *pn->by_name);
}

void piece_names_free(piece_names *pn) {
    if (pn->ready)
        for (int t = 0; t < IDS_COUNT; t++) idmap_free(&pn->ids[t]);
    free(pn->refs);
    free(pn->text_tab);
    free(pn->fns);
    free(pn->fn_tab);
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

static uint32_t text_hash(const piece_names *pn, const char *s, size_t len) {
    return (uint32_t)hash_bytes(s, len, pn->seed);
}

/* Doubles a table of `ref + 1` (or index + 1) entries, each placed again by `hash`. */
static int table_grow(uint32_t **tab, size_t *cap, size_t n, const piece_names *pn,
                      uint32_t (*hash)(const piece_names *, uint32_t)) {
    size_t c = *cap ? 2 * *cap : 64;
    while (2 * (n + 1) > c) c *= 2;
    uint32_t *t = zeroed_array(c, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < *cap; i++) {
        if (!(*tab)[i]) continue;
        size_t h = hash(pn, (*tab)[i] - 1) & (c - 1);
        while (t[h]) h = (h + 1) & (c - 1);
        t[h] = (*tab)[i];
    }
    free(*tab);
    *tab = t;
    *cap = c;
    return 0;
}

static uint32_t ref_text_hash(const piece_names *pn, uint32_t ref) {
    return text_hash(pn, pn->refs[ref].text, pn->refs[ref].len);
}

int piece_names_text(piece_names *pn, const char *s, size_t len, uint32_t *ref) {
    if (2 * (pn->ntexts + 1) > pn->text_cap &&
        table_grow(&pn->text_tab, &pn->text_cap, pn->ntexts, pn, ref_text_hash))
        return -1;
    size_t mask = pn->text_cap - 1, h = text_hash(pn, s, len) & mask;
    for (; pn->text_tab[h]; h = (h + 1) & mask) {
        const piece_ref *r = &pn->refs[pn->text_tab[h] - 1];
        if (r->len == len && !memcmp(r->text, s, len)) {
            *ref = pn->text_tab[h] - 1;
            return 0;
        }
    }
    if (new_ref(pn, (piece_ref){s, len, 0, 0}, ref)) return -1;
    pn->text_tab[h] = *ref + 1;
    pn->ntexts++;
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

static uint32_t fn_hash(const piece_names *pn, uint32_t fn) {
    const piece_fn *f = &pn->fns[fn];
    return (uint32_t)hash_mix(
        hash_combine(hash_combine(hash_combine(pn->seed, f->name), f->file), f->object));
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

/* The function of those refs through the table, made when new. */
static int function_lookup(piece_names *pn, uint32_t name, uint32_t file, uint32_t object,
                           int defined, uint32_t *fn) {
    if (2 * (pn->nfns + 1) > pn->fn_cap &&
        table_grow(&pn->fn_tab, &pn->fn_cap, pn->nfns, pn, fn_hash))
        return -1;
    piece_fn key = {name, file, object, 0};
    size_t mask = pn->fn_cap - 1;
    size_t h =
        (uint32_t)hash_mix(hash_combine(hash_combine(hash_combine(pn->seed, name), file), object)) &
        mask;
    for (; pn->fn_tab[h]; h = (h + 1) & mask) {
        piece_fn *f = &pn->fns[pn->fn_tab[h] - 1];
        if (f->name == name && f->file == file && f->object == object) {
            f->defined |= defined;
            *fn = pn->fn_tab[h] - 1;
            return 0;
        }
    }
    if (VEC_RESERVE(pn->fns, pn->fns_cap, pn->nfns + 1)) return -1;
    key.defined = defined;
    pn->fns[pn->nfns] = key;
    *fn = (uint32_t)pn->nfns++;
    pn->fn_tab[h] = *fn + 1;
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
