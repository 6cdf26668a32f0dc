/* fnrecs.c - a function's calls and jumps while loading, in segments of a pool (see fnrecs.h). */
#include "fnrecs.h"

#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "vec.h"

/* Up to this many records a list is scanned; past it, a hash table of its own is made. */
enum { SCAN_MAX = 8, NONE = UINT32_MAX };

/* ---- the pool ---- */

/* Before every segment: whose records it holds. Segments come in sizes a quarter-power of two
 * apart (32, 40, 48, 56, 64, 80... bytes), so that a list's room is at most a fifth more than
 * it needs (half again with half-powers cost single-100 2% of the file in peak memory); each
 * list grows to the next size. */
typedef struct seg_head {
    uint32_t owner;
    uint8_t kind, cls;
    uint16_t unused;
} seg_head;

enum { SEG_MIN = 32, HEAD = sizeof(seg_head) };

static inline seg_head *head_of(const void *payload) {
    return (seg_head *)((char *)payload - HEAD);
}

static inline size_t class_bytes(unsigned cls) {
    return (size_t)(SEG_MIN + SEG_MIN / 4 * (cls % 4)) << (cls / 4);
}

/* The large blocks of a pool of large blocks (the builder's) are mapped rather than taken from
 * malloc: the numbering gives them back one by one while it fills the model's arrays, and
 * malloc keeps freed memory that is not at the top of its heap, so the arrays would be new
 * pages beside the old ones. A pool of small blocks (a piece's) takes all from malloc, its
 * segments of a block of their own too: a piece's list of 80 KiB, mapped and unmapped again for
 * every piece, cost Xdebug's profile on two threads 734 mappings, their page faults and as many
 * unmappings, each of which stops the other core to flush its TLB (sys 0.56 s of a 1.1 s
 * load). */
enum { MAPPED_BLOCK = 64 << 10 };

static inline int maps(const rec_pool *pool, size_t bytes) {
    return pool->block_size >= MAPPED_BLOCK && bytes >= MAPPED_BLOCK;
}

static void *block_get(size_t bytes, int map) {
    return map ? pages_alloc(bytes) : malloc(bytes);
}

static void block_put(void *mem, size_t bytes, int map) {
    if (map)
        pages_free(mem, bytes);
    else
        free(mem);
}

void *rec_block_ready(size_t bytes) {
    char *mem = block_get(bytes, bytes >= MAPPED_BLOCK);
    if (mem)
        for (size_t at = 0; at < bytes; at += 4096) mem[at] = 0;
    return mem;
}

void rec_block_free(void *mem, size_t bytes) {
    block_put(mem, bytes, bytes >= MAPPED_BLOCK);
}

void rec_pool_init(rec_pool *pool, size_t block_size) {
    memset(pool, 0, sizeof *pool);
    pool->block_size = block_size;
}

void rec_pool_clear(rec_pool *pool, int keep) {
    size_t size = pool->block_size;
    for (size_t i = 0; i < pool->nblocks; i++) {
        pool_block *k = &pool->blocks[i];
        if (keep && k->size == size && !VEC_RESERVE(pool->spare, pool->spare_cap, pool->nspare + 1))
            pool->spare[pool->nspare++] = k->mem;
        else
            block_put(k->mem, k->size, maps(pool, k->size));
    }
    if (keep) {
        pool->nblocks = 0;
        pool->bump = 0;
        pool->top = pool->end = NULL;
        memset(pool->free_, 0, sizeof pool->free_);
        return;
    }
    for (size_t i = 0; i < pool->nspare; i++) block_put(pool->spare[i], size, maps(pool, size));
    free(pool->spare);
    free(pool->blocks);
    rec_pool_init(pool, size);
}

static int add_block(rec_pool *pool, char *mem, size_t used, size_t size) {
    if (VEC_RESERVE(pool->blocks, pool->blocks_cap, pool->nblocks + 1)) return -1;
    pool->blocks[pool->nblocks++] = (pool_block){mem, used, size};
    return 0;
}

/* A segment with room for `bytes` after its head, for `owner`'s records of `kind`; *room: the
 * bytes it has. NULL when out of memory. */
static void *seg_alloc(rec_pool *pool, size_t bytes, uint32_t owner, int kind, size_t *room) {
    if (bytes > SIZE_MAX / 4) return NULL;
    size_t need = bytes + HEAD;
    unsigned cls = 0;
    if (need > SEG_MIN) {
        /* 2^p < need <= 2^(p+1), p >= 5: the least of 2^p (1 + q/4), q = 1..4, that is enough */
        unsigned p = (unsigned)(sizeof(unsigned long long) * 8 - 1) -
                     (unsigned)__builtin_clzll((unsigned long long)(need - 1));
        size_t unit = (size_t)1 << (p - 2);
        unsigned q = (unsigned)((need - ((size_t)1 << p) + unit - 1) / unit);
        cls = 4 * (p - 5) + q;
    }
    if (cls >= POOL_CLASSES) return NULL;
    size_t size = class_bytes(cls);
    char *seg;
    if (pool->free_[cls]) {
        void *payload = pool->free_[cls];
        memcpy(&pool->free_[cls], payload, sizeof(void *));
        seg = (char *)payload - HEAD;
    } else if (size > pool->block_size / 2) {
        /* a block of its own, so that the block being cut keeps serving small ones */
        if (!(seg = block_get(size, maps(pool, size)))) return NULL;
        if (add_block(pool, seg, size, size)) {
            block_put(seg, size, maps(pool, size));
            return NULL;
        }
    } else {
        if (!pool->top || (size_t)(pool->end - pool->top) < size) {
            char *mem = pool->nspare   ? pool->spare[--pool->nspare]
                        : pool->supply ? pool->supply(pool->supply_ctx)
                                       : NULL;
            if (!mem) mem = block_get(pool->block_size, maps(pool, pool->block_size));
            if (!mem) return NULL;
            if (add_block(pool, mem, 0, pool->block_size)) {
                block_put(mem, pool->block_size, maps(pool, pool->block_size));
                return NULL;
            }
            pool->bump = pool->nblocks - 1;
            pool->top = mem;
            pool->end = mem + pool->block_size;
        }
        seg = pool->top;
        pool->top += size;
        pool->blocks[pool->bump].used = (size_t)(pool->top - pool->blocks[pool->bump].mem);
    }
    seg_head *h = (seg_head *)seg;
    h->owner = owner;
    h->kind = (uint8_t)kind;
    h->cls = (uint8_t)cls;
    h->unused = 0;
    *room = size - HEAD;
    return seg + HEAD;
}

static void seg_free(rec_pool *pool, void *payload) {
    if (!payload) return;
    seg_head *h = head_of(payload);
    h->kind = REC_FREE;
    memcpy(payload, &pool->free_[h->cls], sizeof(void *));
    pool->free_[h->cls] = payload;
}

/* The segments in use of block i, visited. */
static void visit_block(const rec_pool *pool, size_t i, rec_visit_fn visit, void *ctx) {
    char *p = pool->blocks[i].mem, *end = p + pool->blocks[i].used;
    while (p < end) {
        const seg_head *h = (const seg_head *)p;
        if (h->kind != REC_FREE) visit(ctx, h->kind, h->owner, p + HEAD);
        p += class_bytes(h->cls);
    }
}

void rec_pool_drain_blocks(rec_pool *pool, size_t from, size_t to, rec_visit_fn visit, void *ctx) {
    for (size_t i = from; i < to; i++) {
        visit_block(pool, i, visit, ctx);
        block_put(pool->blocks[i].mem, pool->blocks[i].size, maps(pool, pool->blocks[i].size));
        pool->blocks[i].mem = NULL;
    }
}

/* ---- lookups ---- */

/* The free slot where a record of hash `h` goes in a table that has room. */
static inline uint32_t free_slot(const uint32_t *tab, uint32_t cap, uint32_t h) {
    uint32_t s = h & (cap - 1);
    while (tab[s]) s = (s + 1) & (cap - 1);
    return s;
}

/* A table of twice the records' count or more, rebuilt from the records; -1 when out of
 * memory. `hash_of` gives record i's hash. */
static int table_make(uint32_t **tab, uint32_t *cap, uint32_t n, uint32_t need,
                      uint32_t (*hash_of)(const void *, uint64_t, uint32_t), const void *recs,
                      uint64_t seed) {
    uint32_t c = *cap ? *cap : 32;
    while (c < 2 * need) c *= 2;
    uint32_t *t = zeroed_array(c, sizeof *t);
    if (!t) return -1;
    for (uint32_t i = 0; i < n; i++) t[free_slot(t, c, hash_of(recs, seed, i))] = i + 1;
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

/* A list's segment holds `cap` records, then `cap` rows of `w` values, then `cap` marks. */
static inline size_t call_bytes(size_t w) {
    return sizeof(call_rec) + w * sizeof(cg_cost) + 1;
}

static void call_place(call_list *l, void *payload, uint32_t cap, size_t w) {
    l->v = payload;
    l->costs = (cg_cost *)(l->v + cap);
    l->guessed = (unsigned char *)(l->costs + (size_t)cap * w);
}

/* Moves the list to a segment of room for `need` records of `w` values (w >= 1); its rows were
 * `old_w` values wide (the new columns are zero). */
static status call_move(call_list *l, rec_pool *pool, size_t need, size_t w, size_t old_w,
                        uint32_t owner) {
    if (need > UINT32_MAX / 2 || need > SIZE_MAX / call_bytes(w)) return ST_NOMEM;
    size_t room;
    void *payload = seg_alloc(pool, need * call_bytes(w), owner, REC_CALLS, &room);
    if (!payload) return ST_NOMEM;
    size_t cap = room / call_bytes(w);
    if (cap > UINT32_MAX / 2) cap = UINT32_MAX / 2;
    call_list old = *l;
    call_place(l, payload, (uint32_t)cap, w);
    l->cap = (uint32_t)cap;
    if (old.n) {
        memcpy(l->v, old.v, old.n * sizeof *old.v);
        memcpy(l->guessed, old.guessed, old.n);
        if (w == old_w) {
            memcpy(l->costs, old.costs, old.n * w * sizeof *old.costs);
        } else {
            for (size_t i = 0; i < old.n; i++) {
                memcpy(l->costs + i * w, old.costs + i * old_w, old_w * sizeof *old.costs);
                memset(l->costs + i * w + old_w, 0, (w - old_w) * sizeof *old.costs);
            }
        }
    }
    seg_free(pool, old.v);
    return ST_OK;
}

/* Records looked at from the one expected next before the table is asked: a later block of a
 * function repeats its calls and jumps in order, leaving some out. */
enum { NEAR = 4 };

/* The end of those records in a list of `n` whose next expected is `next` (NONE after a new
 * record: none then). */
static inline uint32_t near_end(uint32_t next, uint32_t n) {
    if (next >= n) return 0;
    return n - next > NEAR ? next + NEAR : n;
}

/* The call equal to `key`, or NONE; *slot: where a new one goes in the table (when made). */
static uint32_t call_find(const call_list *l, uint64_t seed, const call_rec *key, uint32_t *slot) {
    *slot = 0;
    for (uint32_t k = l->next, end = near_end(l->next, l->n); k < end; k++)
        if (call_rec_same(&l->v[k], key)) return k;
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

status call_list_add(call_list *l, rec_pool *pool, uint64_t seed, size_t width, const call_rec *key,
                     int guessed, cg_cost **row) {
    uint32_t slot;
    uint32_t c = call_find(l, seed, key, &slot);
    if (c != NONE) {
        l->next = c + 1;
        *row = l->costs + (size_t)c * width;
        /* one occurrence that names the callee's file settles it */
        l->guessed[c] &= (unsigned char)guessed;
        return count_add(&l->v[c].count, key->count) ? ST_OVERFLOW : ST_OK;
    }
    size_t w = width ? width : 1;
    if (l->n == l->cap && call_move(l, pool, (size_t)l->n + 1, w, w, key->caller)) return ST_NOMEM;
    if ((l->tab || l->n + 1 > SCAN_MAX) && 2 * (l->n + 1) > l->tab_cap) {
        if (table_make(&l->tab, &l->tab_cap, l->n, l->n + 1, call_hash_of, l->v, seed))
            return ST_NOMEM;
        slot = free_slot(l->tab, l->tab_cap, call_rec_hash(seed, key));
    }
    c = l->n++;
    l->v[c] = *key;
    l->guessed[c] = (unsigned char)guessed;
    *row = l->costs + (size_t)c * width;
    memset(*row, 0, width * sizeof **row);
    if (l->tab) l->tab[slot] = c + 1;
    l->next = NONE; /* a new record: what comes next is unknown until one matches again */
    return ST_OK;
}

status call_list_push(call_list *l, rec_pool *pool, size_t width, const call_rec *key, int guessed,
                      cg_cost **row) {
    size_t w = width ? width : 1;
    /* a piece's lists live as long as the piece: room for a few records from the first */
    if (l->n == l->cap && call_move(l, pool, l->n ? 2 * (size_t)l->n : 4, w, w, key->caller))
        return ST_NOMEM;
    uint32_t c = l->n++;
    l->v[c] = *key;
    l->guessed[c] = (unsigned char)guessed;
    *row = l->costs + (size_t)c * width;
    memset(*row, 0, width * sizeof **row);
    return ST_OK;
}

status call_list_take(call_list *into, rec_pool *pool, call_list *from, rec_pool *from_pool,
                      uint64_t seed, size_t width, int distinct) {
    if (!from->n) return ST_OK;
    if (!into->n && distinct) {
        /* copied whole, its table with it: the records keep their places */
        size_t w = width ? width : 1;
        call_list_free(into, pool);
        if (call_move(into, pool, from->n, w, w, from->v[0].caller)) return ST_NOMEM;
        memcpy(into->v, from->v, from->n * sizeof *from->v);
        memcpy(into->costs, from->costs, from->n * w * sizeof *from->costs);
        memcpy(into->guessed, from->guessed, from->n);
        into->n = from->n;
        into->tab = from->tab;
        into->tab_cap = from->tab_cap;
        from->tab = NULL;
        call_list_free(from, from_pool);
        return ST_OK;
    }
    status rc = ST_OK;
    into->next = 0; /* the records of a later block: expected in the order of the first */
    for (uint32_t i = 0; i < from->n; i++) {
        cg_cost *row;
        status r = call_list_add(into, pool, seed, width, &from->v[i], from->guessed[i], &row);
        if (r == ST_NOMEM) return r;
        if (r || row_add(row, from->costs + (size_t)i * width, width)) rc = ST_OVERFLOW;
    }
    call_list_free(from, from_pool);
    return rc;
}

int call_list_restride(call_list *l, rec_pool *pool, size_t old, size_t wide) {
    if (!l->n || wide <= old) return 0;
    /* a list of no events keeps rows of one value, never read */
    if (call_move(l, pool, l->n, wide, old ? old : 1, l->v[0].caller)) return -1;
    if (!old) memset(l->costs, 0, (size_t)l->n * wide * sizeof *l->costs);
    return 0;
}

void call_list_free(call_list *l, rec_pool *pool) {
    seg_free(pool, l->v);
    free(l->tab);
    memset(l, 0, sizeof *l);
}

/* ---- jumps ---- */

static status jump_move(jump_list *l, rec_pool *pool, size_t need, uint32_t owner) {
    if (need > UINT32_MAX / 2 || need > SIZE_MAX / sizeof(jump_rec)) return ST_NOMEM;
    size_t room;
    jump_rec *v = seg_alloc(pool, need * sizeof *v, owner, REC_JUMPS, &room);
    if (!v) return ST_NOMEM;
    size_t cap = room / sizeof *v;
    if (cap > UINT32_MAX / 2) cap = UINT32_MAX / 2;
    if (l->n) memcpy(v, l->v, l->n * sizeof *v);
    seg_free(pool, l->v);
    l->v = v;
    l->cap = (uint32_t)cap;
    return ST_OK;
}

static uint32_t jump_find(const jump_list *l, uint64_t seed, const jump_rec *key, uint32_t *slot) {
    *slot = 0;
    for (uint32_t k = l->next, end = near_end(l->next, l->n); k < end; k++)
        if (jump_rec_same(&l->v[k], key)) return k;
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

status jump_list_add(jump_list *l, rec_pool *pool, uint64_t seed, const jump_rec *key) {
    uint32_t slot;
    uint32_t j = jump_find(l, seed, key, &slot);
    if (j != NONE) {
        l->next = j + 1;
        jump_rec *r = &l->v[j];
        return count_add(&r->executed, key->executed) | count_add(&r->taken, key->taken)
                   ? ST_OVERFLOW
                   : ST_OK;
    }
    if (l->n == l->cap && jump_move(l, pool, (size_t)l->n + 1, key->fn)) return ST_NOMEM;
    if ((l->tab || l->n + 1 > SCAN_MAX) && 2 * (l->n + 1) > l->tab_cap) {
        if (table_make(&l->tab, &l->tab_cap, l->n, l->n + 1, jump_hash_of, l->v, seed))
            return ST_NOMEM;
        slot = free_slot(l->tab, l->tab_cap, jump_rec_hash(seed, key));
    }
    j = l->n++;
    l->v[j] = *key;
    if (l->tab) l->tab[slot] = j + 1;
    l->next = NONE;
    return ST_OK;
}

status jump_list_push(jump_list *l, rec_pool *pool, const jump_rec *key) {
    if (l->n == l->cap && jump_move(l, pool, l->n ? 2 * (size_t)l->n : 4, key->fn)) return ST_NOMEM;
    l->v[l->n++] = *key;
    return ST_OK;
}

status jump_list_take(jump_list *into, rec_pool *pool, jump_list *from, rec_pool *from_pool,
                      uint64_t seed, int distinct) {
    if (!from->n) return ST_OK;
    if (!into->n && distinct) {
        jump_list_free(into, pool);
        if (jump_move(into, pool, from->n, from->v[0].fn)) return ST_NOMEM;
        memcpy(into->v, from->v, from->n * sizeof *from->v);
        into->n = from->n;
        into->tab = from->tab;
        into->tab_cap = from->tab_cap;
        from->tab = NULL;
        jump_list_free(from, from_pool);
        return ST_OK;
    }
    status rc = ST_OK;
    into->next = 0;
    for (uint32_t i = 0; i < from->n; i++) {
        status r = jump_list_add(into, pool, seed, &from->v[i]);
        if (r == ST_NOMEM) return r;
        if (r) rc = ST_OVERFLOW;
    }
    jump_list_free(from, from_pool);
    return rc;
}

void jump_list_free(jump_list *l, rec_pool *pool) {
    seg_free(pool, l->v);
    free(l->tab);
    memset(l, 0, sizeof *l);
}
