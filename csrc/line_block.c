/* line_block.c - a function's block of line records held by position (see line_block.h). */
#include "line_block.h"

#include <stdlib.h>
#include <string.h>

#include "msort.h"

void line_block_free(line_block *lb) {
    free(lb->keys);
    free(lb->rows);
    free(lb->slot);
    free(lb->table);
    free(lb->order);
    memset(lb, 0, sizeof *lb);
}

/* Room for `need` costs in the rows. */
static status reserve_rows(line_block *lb, size_t need) {
    if (need <= lb->rows_cap) return ST_OK;
    size_t cap = 2 * need;
    cg_cost *rows = realloc(lb->rows, cap * sizeof *rows);
    if (!rows) return ST_NOMEM;
    lb->rows = rows;
    lb->rows_cap = cap;
    return ST_OK;
}

/* Room for one more position at `width` costs each, and a table at most half full. */
static status reserve(line_block *lb, size_t width) {
    if (reserve_rows(lb, (lb->n + 1) * width)) return ST_NOMEM;
    if (lb->n == lb->cap) {
        size_t cap = lb->cap ? 2 * lb->cap : 64;
        line_key *keys = realloc(lb->keys, cap * sizeof *keys);
        if (keys) lb->keys = keys;
        uint32_t *slot = realloc(lb->slot, cap * sizeof *slot);
        if (slot) lb->slot = slot;
        /* the sort's positions and their copy (cap each) and its run bounds (cap + 1) */
        uint32_t *order = realloc(lb->order, (3 * cap + 1) * sizeof *order);
        if (order) lb->order = order;
        if (!keys || !slot || !order) return ST_NOMEM;
        lb->cap = cap;
    }
    if (2 * (lb->n + 1) > lb->nslots) {
        size_t nslots = lb->nslots ? 2 * lb->nslots : 128;
        uint32_t *table = calloc(nslots, sizeof *table);
        if (!table) return ST_NOMEM;
        for (size_t i = 0; i < lb->n; i++) {
            size_t s = line_key_hash(&lb->keys[i], lb->seed) & (nslots - 1);
            while (table[s]) s = (s + 1) & (nslots - 1);
            table[s] = (uint32_t)i + 1;
            lb->slot[i] = (uint32_t)s;
        }
        free(lb->table);
        lb->table = table;
        lb->nslots = nslots;
    }
    return ST_OK;
}

/* The rows widened to `width` costs (a later section brought more events), zero in the new
 * columns. */
static status widen(line_block *lb, size_t width) {
    if (reserve_rows(lb, lb->n * width)) return ST_NOMEM;
    cg_cost *rows = lb->rows;
    for (size_t i = lb->n; i-- > 0;) {
        memmove(rows + i * width, rows + i * lb->width, lb->width * sizeof *rows);
        memset(rows + i * width + lb->width, 0, (width - lb->width) * sizeof *rows);
    }
    lb->width = width;
    return ST_OK;
}

/* The slot of position `k` in the table (which has room): its own, or the free one it would
 * take. */
static inline size_t slot_of(const line_block *lb, const line_key *k) {
    size_t mask = lb->nslots - 1, s = line_key_hash(k, lb->seed) & mask;
    while (lb->table[s] && !line_key_same(&lb->keys[lb->table[s] - 1], k)) s = (s + 1) & mask;
    return s;
}

status line_block_add(line_block *lb, uint32_t file, uint64_t line, uint64_t addr,
                      const cg_cost *costs, size_t n, size_t nraw, uint64_t seed) {
    size_t width = nraw ? nraw : 1;
    line_key k = {addr, line, file};
    if (!lb->n) {
        lb->width = width;
        lb->seed = seed;
        lb->runs = 1;
    } else {
        if (width > lb->width && widen(lb, width)) return ST_NOMEM;
        if (!line_key_follows(&lb->last, &k)) lb->runs++;
    }
    lb->last = k;
    lb->added++;
    size_t s = lb->nslots ? slot_of(lb, &k) : 0;
    if (lb->nslots && lb->table[s]) {
        cg_cost *row = lb->rows + (size_t)(lb->table[s] - 1) * width;
        for (size_t i = 0; i < n; i++)
            if (__builtin_add_overflow(row[i], costs[i], &row[i])) return ST_OVERFLOW;
        return ST_OK;
    }
    size_t nslots = lb->nslots;
    if (reserve(lb, width)) return ST_NOMEM;
    if (lb->nslots != nslots) s = slot_of(lb, &k);
    lb->table[s] = (uint32_t)lb->n + 1;
    lb->slot[lb->n] = (uint32_t)s;
    lb->keys[lb->n] = k;
    cg_cost *row = lb->rows + lb->n * width;
    memcpy(row, costs, n * sizeof *row);
    memset(row + n, 0, (width - n) * sizeof *row);
    lb->n++;
    return ST_OK;
}

#define HELD_BEFORE(keys, a, b) (line_key_cmp(NULL, &(keys)[*(a)], &(keys)[*(b)]) < 0)
DEFINE_MERGE_SORT(sort_held, uint32_t, const line_key *, HELD_BEFORE)

status line_block_flush(line_block *lb, line_store *s, const strtab *strings, size_t nraw,
                        line_scratch *scratch) {
    size_t n = lb->n, width = lb->width;
    if (!n) return ST_OK;
    uint32_t *order = lb->order;
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    sort_held(lb->keys, order, order + n, order + 2 * n, n);
    for (size_t i = 0; i < n; i++) {
        const line_key *k = &lb->keys[order[i]];
        if (append_record(s, k->file, k->line, k->addr, lb->rows + order[i] * width, width,
                          scratch))
            return ST_NOMEM;
        lb->table[lb->slot[order[i]]] = 0;
    }
    if (lb->runs <= 1 || 2 * n > lb->added) s->held = 0;
    lb->n = lb->added = 0;
    lb->runs = 0;
    return line_compaction_due(s) ? line_compact(s, strings, nraw, scratch) : ST_OK;
}
