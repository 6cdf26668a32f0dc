/* fnrecs.h - the calls (as caller) and jumps (as source) of one function while a load reads:
 * records merged by identity in the order first seen, each list with a lookup of its own (the
 * record expected next, then a scan of a few records or a small hash table), so that adding a
 * record touches only that function's memory. The builder keeps one per function and numbers
 * them into the model's arrays once every input is read; a split load's pieces keep one per
 * function of the piece, which the stitch takes or merges.
 *
 * A list's records live in one segment of a pool (`rec_pool`): large blocks cut into segments
 * of sizes a quarter-power of two apart, each with a header that names its function and kind,
 * segments freed by a list that grew reused by the next of their size. So a list costs no malloc of
 * its own, and the numbering can walk the blocks in order, copy the lists it finds to their places
 * and give each block back as soon as it is walked: memory does not double while it copies. */
#ifndef CG_FNRECS_H
#define CG_FNRECS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "status.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

enum { POOL_CLASSES = 160 };

typedef struct pool_block {
    char *mem;
    size_t used, size; /* bytes cut into segments, bytes it has */
} pool_block;

/* Segments for lists. All zero but block_size is an empty pool. */
typedef struct rec_pool {
    pool_block *blocks;
    size_t nblocks, blocks_cap;
    size_t block_size;         /* of a new block; a larger segment gets a block of its own */
    char *top, *end;           /* the rest of the block being cut ... */
    size_t bump;               /* ... blocks[bump] */
    void *free_[POOL_CLASSES]; /* freed segments of each size */
    char **spare;              /* blocks of block_size a clear kept, for the next ones */
    size_t nspare, spare_cap;
    /* optional: a block of block_size made ready elsewhere (rec_block_ready), or NULL */
    void *(*supply)(void *ctx);
    void *supply_ctx;
} rec_pool;

/* A block of `bytes` for a pool whose pages are already in memory, written once each: another
 * thread takes the page faults ahead of the one that fills the block (a split load's workers
 * for the calling thread, which is the load's critical path). NULL when out of memory. */
void *rec_block_ready(size_t bytes);
/* Gives back a block rec_block_ready made that no pool took. */
void rec_block_free(void *mem, size_t bytes);

void rec_pool_init(rec_pool *pool, size_t block_size);
/* Every segment freed at once (the lists that used them must be dropped). With `keep`, the
 * blocks of block_size stay with the pool for the next segments (a piece's pool, used again:
 * no block goes back to the allocator of the thread that made it, nor is made again). */
void rec_pool_clear(rec_pool *pool, int keep);

/* What the walk of a numbering finds: a segment of function `owner`'s calls (REC_CALLS) or
 * jumps (REC_JUMPS) at `records`, which may be a segment the list has left. */
enum { REC_FREE, REC_CALLS, REC_JUMPS };
typedef void (*rec_visit_fn)(void *ctx, int kind, uint32_t owner, const void *records);
/* Visits every segment in use in blocks [from, to), block after block, freeing each block once
 * visited and leaving it NULL (rec_pool_clear then empties the pool): threads may drain
 * disjoint ranges of one pool at once. */
void rec_pool_drain_blocks(rec_pool *pool, size_t from, size_t to, rec_visit_fn visit, void *ctx);

/* A function's calls. All zero is an empty list. */
typedef struct call_list {
    call_rec *v;            /* the start of the list's segment */
    cg_cost *costs;         /* a row of the list's width per record, after the records */
    unsigned char *guessed; /* the callee's file was not given (resolve.c), after the rows */
    uint32_t n, cap;
    uint32_t *tab; /* record + 1, 0 = free; made past a few records (malloc) */
    uint32_t tab_cap;
    uint32_t next; /* the record expected next: a new block repeats the last one's */
} call_list;

/* A function's jumps. All zero is an empty list. */
typedef struct jump_list {
    jump_rec *v;
    uint32_t n, cap;
    uint32_t *tab;
    uint32_t tab_cap;
    uint32_t next;
} jump_list;

typedef struct fn_records {
    call_list calls;
    jump_list jumps;
} fn_records;

/* Asks the cache for up to `bytes` from `p` (no wait, no fault: a hint). */
static inline void prefetch_bytes(const void *p, size_t bytes) {
    enum { LINE = 64, MOST = 2048 };
    if (!p) return;
    if (bytes > MOST) bytes = MOST;
    for (size_t o = 0; o < bytes; o += LINE) __builtin_prefetch((const char *)p + o);
}

/* A new block of the function: its records are expected again from the first. A function
 * comes back after many others (callgrind writes one block per calling context), its lists
 * long out of the cache: their first records and tables are fetched now, while the block's
 * lines are parsed, rather than missed one lookup at a time. */
static inline void fn_records_again(fn_records *r) {
    r->calls.next = r->jumps.next = 0;
    prefetch_bytes(r->jumps.v, r->jumps.n * sizeof *r->jumps.v);
    prefetch_bytes(r->jumps.tab, r->jumps.tab_cap * sizeof *r->jumps.tab);
    prefetch_bytes(r->calls.v, r->calls.n * sizeof *r->calls.v);
    prefetch_bytes(r->calls.tab, r->calls.tab_cap * sizeof *r->calls.tab);
}

/* Adds a call (counts summed, `guessed` kept only while every occurrence guessed) and gives
 * its cost row, `width` values, to which the caller adds. ST_OVERFLOW when the count sum
 * saturates (the row is still given); ST_NOMEM. `seed` is the load's hash seed. The list's
 * segments come from `pool`. */
status call_list_add(call_list *l, rec_pool *pool, uint64_t seed, size_t width, const call_rec *key,
                     int guessed, cg_cost **row);
/* Adds a jump (counts summed); ST_OVERFLOW when a count sum saturates; ST_NOMEM. */
status jump_list_add(jump_list *l, rec_pool *pool, uint64_t seed, const jump_rec *key);

/* Appends a call (jump) known to be new, with no lookup and no table (a split load's piece
 * finds its records through a table of its own; the list makes its table when it first needs
 * one after that); *row as call_list_add gives it. ST_NOMEM. A full list doubles (a piece's
 * lists live as long as the piece: fewer moves matter more than room). */
status call_list_push(call_list *l, rec_pool *pool, size_t width, const call_rec *key, int guessed,
                      cg_cost **row);
status jump_list_push(jump_list *l, rec_pool *pool, const jump_rec *key);

/* Adds the records of `from` (the later ones in reading order, in `from_pool`) to `into` (in
 * `pool`), whose records come first: copied whole into a segment of `pool` when `into` is
 * empty and `distinct` (no record of `from` twice: no lookup), else each record is merged
 * through `into`'s lookup. `from` is left empty either way. ST_OVERFLOW when a sum saturates
 * (the records are all added nonetheless); ST_NOMEM. Both of `width` and `seed`. */
status call_list_take(call_list *into, rec_pool *pool, call_list *from, rec_pool *from_pool,
                      uint64_t seed, size_t width, int distinct);
status jump_list_take(jump_list *into, rec_pool *pool, jump_list *from, rec_pool *from_pool,
                      uint64_t seed, int distinct);

/* Widens the cost rows from `old` to `wide` values (a new event), zero in the new columns; -1
 * when out of memory (the list is unchanged). */
int call_list_restride(call_list *l, rec_pool *pool, size_t old, size_t wide);

/* Gives the list's segment back to its pool and frees its table. */
void call_list_free(call_list *l, rec_pool *pool);
void jump_list_free(jump_list *l, rec_pool *pool);
static inline void fn_records_free(fn_records *r, rec_pool *pool) {
    call_list_free(&r->calls, pool);
    jump_list_free(&r->jumps, pool);
}

#pragma GCC visibility pop

#endif
