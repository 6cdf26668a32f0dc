/* fnrecs.c - a function's calls and jumps while loading (see fnrecs.h). */
#include "fnrecs.h"

#include <stdlib.h>
#include <string.h>

/* Up to this many records a list is scanned; past it, a hash table of its own is made. */
enum { SCAN_MAX = 8, NONE = UINT32_MAX };

/* Room for `need` records in arrays of `cap` (doubling from 1: most functions have few): the new
 * capacity, or 0 when it would not fit in 32 bits. */
static uint32_t grown(uint32_t cap, size_t need) {
    size_t c = cap ? cap : 1;
    while (c < need) c *= 2;
    return c > UINT32_MAX / 2 ? 0 : (uint32_t)c;
}

/* A table of twice the records' count or more, rebuilt from the records; -1 when out of
 * memory. `hash_of` gives record i's hash. */
static int table_make(uint32_t **tab, uint32_t *cap, uint32_t n, uint32_t need,
                      uint32_t (*hash_of)(const void *, uint64_t, uint32_t), const void *recs,
                      uint64_t seed) {
    uint32_t c = *cap ? *cap : 32;
    while (c < 2 * need) c *= 2;
    uint32_t *t = calloc(c, sizeof *t);
    if (!t) return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = hash_of(recs, seed, i) & (c - 1);
        while (t[s]) s = (s + 1) & (c - 1);
        t[s] = i + 1;
    }
    free(*tab);
    *tab = t;
    *cap = c;
    return 0;
}

static uint32_t call_hash_of(const void *recs, uint64_t seed, uint32_t i) {
    return call_rec_hash(seed, &((const call_rec *)recs)[i]);
}

static uint32_t jump_hash_of(const void *recs, uint64_t seed, uint32_t i) {
    return jump_rec_hash(seed, &((const jump_rec *)recs)[i]);
}

/* ---- calls ---- */

/* The call equal to `key`, or NONE; *slot: where a new one goes in the table (when made). */
static uint32_t call_find(const call_list *l, uint64_t seed, const call_rec *key, uint32_t *slot) {
    *slot = 0;
    if (l->next < l->n && call_rec_same(&l->v[l->next], key)) return l->next;
    if (!l->tab) {
        for (uint32_t i = 0; i < l->n; i++)
            if (call_rec_same(&l->v[i], key)) return i;
        return NONE;
    }
    uint32_t mask = l->tab_cap - 1, s = call_rec_hash(seed, key) & mask;
    for (; l->tab[s]; s = (s + 1) & mask)
        if (call_rec_same(&l->v[l->tab[s] - 1], key)) return l->tab[s] - 1;
    *slot = s;
    return NONE;
}

/* A list's records, cost rows and guessed marks are one block: `cap` records, then `cap` rows
 * of `w` values, then `cap` marks. Sets v, costs and guessed from the block's address. */
static void call_place(call_list *l, void *block, uint32_t cap, size_t w) {
    l->v = block;
    l->costs = (cg_cost *)(l->v + cap);
    l->guessed = (unsigned char *)(l->costs + (size_t)cap * w);
}

/* The block for `cap` records of `w` values (w >= 1), moved from one of `old_cap` records of
 * `old_w` values: the records stay, the rows and marks move to their new places. */
static status call_resize(call_list *l, uint32_t cap, size_t w, size_t old_w) {
    size_t rec = sizeof(call_rec) + w * sizeof(cg_cost) + 1;
    if ((size_t)cap > SIZE_MAX / rec) return ST_NOMEM;
    uint32_t old_cap = l->cap, n = l->n;
    char *block = realloc(l->v, (size_t)cap * rec);
    if (!block) return ST_NOMEM;
    /* where the old rows and marks are now, in the moved block */
    cg_cost *rows = (cg_cost *)(block + (size_t)old_cap * sizeof(call_rec));
    unsigned char *marks = (unsigned char *)(rows + (size_t)old_cap * old_w);
    call_place(l, block, cap, w);
    /* marks first (they are last in both layouts and move furthest), then the rows from the
     * last back, so that nothing is overwritten before it moves */
    memmove(l->guessed, marks, n);
    if (w == old_w) {
        memmove(l->costs, rows, (size_t)n * w * sizeof *rows);
    } else {
        for (size_t i = n; i-- > 0;) {
            memmove(l->costs + i * w, rows + i * old_w, old_w * sizeof *rows);
            memset(l->costs + i * w + old_w, 0, (w - old_w) * sizeof *rows);
        }
    }
    l->cap = cap;
    return ST_OK;
}

/* Room for one more call, and the table when the list outgrows a scan. */
static status call_room(call_list *l, uint64_t seed, size_t width) {
    if (l->n == l->cap) {
        uint32_t cap = grown(l->cap, (size_t)l->n + 1);
        size_t w = width ? width : 1;
        if (!cap || call_resize(l, cap, w, w)) return ST_NOMEM;
    }
    if ((l->tab || l->n + 1 > SCAN_MAX) && 2 * (l->n + 1) > l->tab_cap &&
        table_make(&l->tab, &l->tab_cap, l->n, l->n + 1, call_hash_of, l->v, seed))
        return ST_NOMEM;
    return ST_OK;
}

status call_list_add(call_list *l, uint64_t seed, size_t width, const call_rec *key, int guessed,
                     cg_cost **row) {
    uint32_t slot;
    uint32_t c = call_find(l, seed, key, &slot);
    if (c != NONE) {
        l->next = c + 1;
        *row = l->costs + (size_t)c * width;
        /* one occurrence that names the callee's file settles it */
        l->guessed[c] &= (unsigned char)guessed;
        return count_add(&l->v[c].count, key->count) ? ST_OVERFLOW : ST_OK;
    }
    int had_tab = l->tab != NULL;
    uint32_t cap = l->tab_cap;
    if (call_room(l, seed, width)) return ST_NOMEM;
    c = l->n++;
    l->v[c] = *key;
    l->guessed[c] = (unsigned char)guessed;
    *row = l->costs + (size_t)c * width;
    memset(*row, 0, width * sizeof **row);
    if (l->tab) {
        if (!had_tab || cap != l->tab_cap) /* made again: the slot found is stale */
            for (slot = call_rec_hash(seed, key) & (l->tab_cap - 1); l->tab[slot];
                 slot = (slot + 1) & (l->tab_cap - 1)) {
            }
        l->tab[slot] = c + 1;
    }
    l->next = NONE; /* a new record: what comes next is unknown until one matches again */
    return ST_OK;
}

status call_list_take(call_list *into, call_list *from, uint64_t seed, size_t width) {
    if (!into->n) {
        call_list_free(into);
        *into = *from;
        into->next = 0;
        memset(from, 0, sizeof *from);
        return ST_OK;
    }
    status rc = ST_OK;
    into->next = 0; /* the records of a later block: expected in the order of the first */
    for (uint32_t i = 0; i < from->n; i++) {
        cg_cost *row;
        status r = call_list_add(into, seed, width, &from->v[i], from->guessed[i], &row);
        if (r == ST_NOMEM) return r;
        if (r || row_add(row, from->costs + (size_t)i * width, width)) rc = ST_OVERFLOW;
    }
    call_list_free(from);
    return rc;
}

int call_list_restride(call_list *l, size_t old, size_t wide) {
    if (!l->cap || wide <= old) return 0;
    /* a list of no events keeps rows of one value, never read */
    if (call_resize(l, l->cap, wide, old ? old : 1)) return -1;
    if (!old) memset(l->costs, 0, (size_t)l->n * wide * sizeof *l->costs);
    return 0;
}

void call_list_free(call_list *l) {
    free(l->v); /* the block of records, rows and marks */
    free(l->tab);
    memset(l, 0, sizeof *l);
}

/* ---- jumps ---- */

static uint32_t jump_find(const jump_list *l, uint64_t seed, const jump_rec *key, uint32_t *slot) {
    *slot = 0;
    if (l->next < l->n && jump_rec_same(&l->v[l->next], key)) return l->next;
    if (!l->tab) {
        for (uint32_t i = 0; i < l->n; i++)
            if (jump_rec_same(&l->v[i], key)) return i;
        return NONE;
    }
    uint32_t mask = l->tab_cap - 1, s = jump_rec_hash(seed, key) & mask;
    for (; l->tab[s]; s = (s + 1) & mask)
        if (jump_rec_same(&l->v[l->tab[s] - 1], key)) return l->tab[s] - 1;
    *slot = s;
    return NONE;
}

status jump_list_add(jump_list *l, uint64_t seed, const jump_rec *key) {
    uint32_t slot;
    uint32_t j = jump_find(l, seed, key, &slot);
    if (j != NONE) {
        l->next = j + 1;
        jump_rec *r = &l->v[j];
        return count_add(&r->executed, key->executed) | count_add(&r->taken, key->taken)
                   ? ST_OVERFLOW
                   : ST_OK;
    }
    if (l->n == l->cap) {
        uint32_t cap = grown(l->cap, (size_t)l->n + 1);
        if (!cap) return ST_NOMEM;
        jump_rec *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return ST_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    if ((l->tab || l->n + 1 > SCAN_MAX) && 2 * (l->n + 1) > l->tab_cap) {
        if (table_make(&l->tab, &l->tab_cap, l->n, l->n + 1, jump_hash_of, l->v, seed))
            return ST_NOMEM;
        for (slot = jump_rec_hash(seed, key) & (l->tab_cap - 1); l->tab[slot];
             slot = (slot + 1) & (l->tab_cap - 1)) {
        }
    }
    j = l->n++;
    l->v[j] = *key;
    if (l->tab) l->tab[slot] = j + 1;
    l->next = NONE;
    return ST_OK;
}

status jump_list_take(jump_list *into, jump_list *from, uint64_t seed) {
    if (!into->n) {
        jump_list_free(into);
        *into = *from;
        into->next = 0;
        memset(from, 0, sizeof *from);
        return ST_OK;
    }
    status rc = ST_OK;
    into->next = 0;
    for (uint32_t i = 0; i < from->n; i++) {
        status r = jump_list_add(into, seed, &from->v[i]);
        if (r == ST_NOMEM) return r;
        if (r) rc = ST_OVERFLOW;
    }
    jump_list_free(from);
    return rc;
}

void jump_list_free(jump_list *l) {
    free(l->v);
    free(l->tab);
    memset(l, 0, sizeof *l);
}
