/* A function's calls and jumps while loading (fnrecs.h): merging by identity past the scan and
 * through the hash table, the order first seen, counts and rows summed, overflow, taking and
 * merging a later list from another pool, widening the rows, the pool's walk. */
#include <stdlib.h>

#include "ctest.h"
#include "fnrecs.h"

enum { SEED = 99 };

static call_rec call(uint32_t caller, uint32_t callee, uint64_t line, uint64_t count) {
    call_rec c;
    memset(&c, 0, sizeof c);
    c.caller = caller;
    c.callee = callee;
    c.file = 3;
    c.line = line;
    c.addr = 0x1000 + line;
    c.count = count;
    return c;
}

static jump_rec jump(uint32_t fn, uint64_t line, uint64_t executed, uint64_t taken) {
    jump_rec j;
    memset(&j, 0, sizeof j);
    j.fn = fn;
    j.to_fn = fn;
    j.from_line = line;
    j.to_line = line + 100;
    j.executed = executed;
    j.taken = taken;
    j.conditional = 1;
    return j;
}

/* Adds call (callee, line) of function 7 with `count` and one cost per event (`cost` *
 * (event + 1)). */
static status add_call(call_list *l, rec_pool *pool, size_t width, uint32_t callee, uint64_t line,
                       uint64_t count, int guessed, cg_cost cost) {
    call_rec c = call(7, callee, line, count);
    cg_cost *row;
    status rc = call_list_add(l, pool, SEED, width, &c, guessed, &row);
    if (rc != ST_NOMEM)
        for (size_t e = 0; e < width; e++) row[e] += cost * (cg_cost)(e + 1);
    return rc;
}

/* An empty list, then `n` distinct calls (callee and line i) of one event row each. */
static void fill_calls(call_list *l, rec_pool *pool, uint32_t n, int guessed, cg_cost cost) {
    memset(l, 0, sizeof *l);
    for (uint32_t i = 0; i < n; i++) CHECK_INT(ST_OK, add_call(l, pool, 2, i, i, 1, guessed, cost));
}

static void test_calls(void) {
    rec_pool pool;
    rec_pool_init(&pool, 4096);
    call_list l;
    /* 40 distinct calls: past the scan, into the table; then each again, out of order */
    fill_calls(&l, &pool, 40, 1, 10);
    CHECK_INT(40, l.n);
    CHECK(l.tab != NULL);
    for (uint32_t k = 0; k < 40; k++) {
        uint32_t i = (k * 17) % 40;
        CHECK_INT(ST_OK, add_call(&l, &pool, 2, i, i, 2, i % 2, 5));
    }
    CHECK_INT(40, l.n);
    for (uint32_t i = 0; i < 40; i++) {
        CHECK_INT(i, l.v[i].callee); /* the order first seen */
        CHECK_INT(3, l.v[i].count);
        CHECK_INT(15, l.costs[i * 2]);
        CHECK_INT(30, l.costs[i * 2 + 1]);
        CHECK_INT(i % 2, l.guessed[i]); /* one occurrence with the file settles it */
    }
    /* the same callee at another line is another call */
    CHECK_INT(ST_OK, add_call(&l, &pool, 2, 5, 500, 1, 0, 1));
    CHECK_INT(41, l.n);
    /* a count sum beyond 64 bits saturates, and the row is still given */
    CHECK_INT(ST_OVERFLOW, add_call(&l, &pool, 2, 5, 500, UINT64_MAX, 0, 1));
    CHECK(l.v[40].count == UINT64_MAX);
    CHECK_INT(2, l.costs[40 * 2]);

    /* a new event widens every row, the new column zero */
    CHECK_INT(0, call_list_restride(&l, &pool, 2, 3));
    CHECK_INT(15, l.costs[7 * 3]);
    CHECK_INT(30, l.costs[7 * 3 + 1]);
    CHECK_INT(0, l.costs[7 * 3 + 2]);
    CHECK_INT(4, l.costs[40 * 3 + 1]);
    CHECK_INT(1, l.guessed[7]);
    CHECK_INT(ST_OK, add_call(&l, &pool, 3, 39, 39, 1, 1, 1));
    CHECK_INT(3, l.costs[39 * 3 + 2]);
    CHECK_INT(4, l.v[39].count);
    call_list_free(&l, &pool);
    CHECK(l.v == NULL && l.n == 0);
    rec_pool_clear(&pool, 0);
}

static void test_take(void) {
    rec_pool pool, piece;
    rec_pool_init(&pool, 4096);
    rec_pool_init(&piece, 1024);
    /* a list taken by an empty one: copied whole, no lookup */
    call_list into, from;
    memset(&into, 0, sizeof into);
    memset(&from, 0, sizeof from);
    for (uint32_t i = 0; i < 3; i++) CHECK_INT(ST_OK, add_call(&from, &piece, 1, i, i, 1, 0, 1));
    CHECK_INT(ST_OK, call_list_take(&into, &pool, &from, &piece, SEED, 1, 1));
    CHECK_INT(3, into.n);
    CHECK_INT(2, into.v[2].callee);
    CHECK_INT(1, into.costs[2]);
    CHECK_INT(0, from.n);
    CHECK(from.v == NULL);
    /* a later piece: its records merge after the function's own, new ones at the end in its
     * order */
    CHECK_INT(ST_OK, add_call(&from, &piece, 1, 9, 9, 1, 0, 4));
    CHECK_INT(ST_OK, add_call(&from, &piece, 1, 1, 1, 5, 1, 6));
    CHECK_INT(ST_OK, add_call(&from, &piece, 1, 8, 8, 1, 0, 7));
    CHECK_INT(ST_OK, call_list_take(&into, &pool, &from, &piece, SEED, 1, 1));
    CHECK_INT(5, into.n);
    CHECK_INT(0, into.v[0].callee);
    CHECK_INT(1, into.v[1].callee);
    CHECK_INT(6, into.v[1].count);
    CHECK_INT(7, into.costs[1]);
    CHECK_INT(0, into.guessed[1]);
    CHECK_INT(9, into.v[3].callee);
    CHECK_INT(8, into.v[4].callee);
    CHECK_INT(7, into.costs[4]);
    CHECK(from.v == NULL && from.n == 0);
    /* an overflow while merging is reported, every record still added */
    CHECK_INT(ST_OK, add_call(&from, &piece, 1, 0, 0, UINT64_MAX, 0, 1));
    CHECK_INT(ST_OK, add_call(&from, &piece, 1, 12, 12, 1, 0, 1));
    CHECK_INT(ST_OVERFLOW, call_list_take(&into, &pool, &from, &piece, SEED, 1, 1));
    CHECK_INT(6, into.n);
    CHECK(into.v[0].count == UINT64_MAX);
    CHECK_INT(12, into.v[5].callee);
    /* a list with a table taken whole keeps finding its records */
    call_list big;
    memset(&big, 0, sizeof big);
    for (uint32_t i = 0; i < 20; i++) CHECK_INT(ST_OK, add_call(&from, &piece, 1, i, i, 1, 0, 1));
    CHECK(from.tab != NULL);
    CHECK_INT(ST_OK, call_list_take(&big, &pool, &from, &piece, SEED, 1, 1));
    CHECK_INT(ST_OK, add_call(&big, &pool, 1, 13, 13, 1, 0, 1));
    CHECK_INT(20, big.n);
    CHECK_INT(2, big.v[13].count);
    /* records kept as read (a split load's later block), one of them twice: an empty list
     * takes them one by one, the repeated one summed, in the order first read */
    call_list raw, fresh;
    memset(&raw, 0, sizeof raw);
    memset(&fresh, 0, sizeof fresh);
    uint32_t callees[] = {5, 6, 5};
    for (int i = 0; i < 3; i++) {
        call_rec c = call(7, callees[i], callees[i], (uint64_t)i + 1);
        cg_cost *row;
        CHECK_INT(ST_OK, call_list_push(&raw, &piece, 1, &c, 0, &row));
        row[0] = 10 * (i + 1);
    }
    CHECK_INT(ST_OK, call_list_take(&fresh, &pool, &raw, &piece, SEED, 1, 0));
    CHECK_INT(2, fresh.n);
    CHECK_INT(5, fresh.v[0].callee);
    CHECK_INT(4, fresh.v[0].count);
    CHECK_INT(40, fresh.costs[0]);
    CHECK_INT(6, fresh.v[1].callee);
    CHECK_INT(20, fresh.costs[1]);
    CHECK(raw.v == NULL && raw.n == 0);
    call_list_free(&fresh, &pool);
    call_list_free(&into, &pool);
    call_list_free(&big, &pool);
    rec_pool_clear(&piece, 0);
    rec_pool_clear(&pool, 0);
}

static void test_jumps(void) {
    rec_pool pool;
    rec_pool_init(&pool, 2048);
    jump_list l, from;
    memset(&l, 0, sizeof l);
    memset(&from, 0, sizeof from);
    for (uint64_t i = 0; i < 30; i++) {
        jump_rec j = jump(7, i, 2, 1);
        CHECK_INT(ST_OK, jump_list_add(&l, &pool, SEED, &j));
    }
    for (uint64_t i = 30; i-- > 0;) {
        jump_rec j = jump(7, i, 3, 2);
        CHECK_INT(ST_OK, jump_list_add(&l, &pool, SEED, &j));
    }
    CHECK_INT(30, l.n);
    CHECK_INT(5, l.v[29].executed);
    CHECK_INT(3, l.v[0].taken);
    CHECK_INT(4, l.v[4].from_line);
    /* an unconditional jump between the same places is another record */
    jump_rec u = jump(7, 4, 1, 1);
    u.conditional = 0;
    CHECK_INT(ST_OK, jump_list_add(&l, &pool, SEED, &u));
    CHECK_INT(31, l.n);
    /* merged from a later piece, overflow included */
    jump_rec big = jump(7, 2, UINT64_MAX, 0), other = jump(7, 77, 1, 0);
    CHECK_INT(ST_OK, jump_list_add(&from, &pool, SEED, &big));
    CHECK_INT(ST_OK, jump_list_add(&from, &pool, SEED, &other));
    CHECK_INT(ST_OVERFLOW, jump_list_take(&l, &pool, &from, &pool, SEED, 1));
    CHECK_INT(32, l.n);
    CHECK(l.v[2].executed == UINT64_MAX);
    CHECK_INT(77, l.v[31].from_line);
    CHECK(from.v == NULL);
    /* kept as read, one twice: an empty list takes them one by one */
    jump_list fresh;
    memset(&fresh, 0, sizeof fresh);
    jump_rec a = jump(7, 1, 2, 1), b = jump(7, 2, 3, 0);
    CHECK_INT(ST_OK, jump_list_push(&from, &pool, &a));
    CHECK_INT(ST_OK, jump_list_push(&from, &pool, &b));
    CHECK_INT(ST_OK, jump_list_push(&from, &pool, &a));
    CHECK_INT(ST_OK, jump_list_take(&fresh, &pool, &from, &pool, SEED, 0));
    CHECK_INT(2, fresh.n);
    CHECK_INT(1, fresh.v[0].from_line);
    CHECK_INT(4, fresh.v[0].executed);
    CHECK_INT(2, fresh.v[0].taken);
    CHECK_INT(3, fresh.v[1].executed);
    jump_list_free(&fresh, &pool);
    jump_list_free(&l, &pool);
    rec_pool_clear(&pool, 0);
}

/* What the walk of the pool finds: each function's list where it is now, once. */
typedef struct found {
    const fn_records *lists;
    const void *calls[4], *jumps[4];
    int visits, stale;
} found;

static void visit(void *ctx, int kind, uint32_t owner, const void *records) {
    found *f = ctx;
    f->visits++;
    if (owner >= 4) return;
    const void *now = kind == REC_CALLS ? (const void *)f->lists[owner].calls.v
                                        : (const void *)f->lists[owner].jumps.v;
    if (now != records) {
        f->stale++;
        return;
    }
    if (kind == REC_CALLS) f->calls[owner] = records;
    if (kind == REC_JUMPS) f->jumps[owner] = records;
}

static void test_walk(void) {
    rec_pool pool;
    rec_pool_init(&pool, 1024); /* small blocks: lists spread over several, and grow out */
    fn_records r[4];
    memset(r, 0, sizeof r);
    for (uint32_t round = 0; round < 30; round++) {
        for (uint32_t f = 0; f < 4; f++) {
            if (f == 2) continue; /* a function without records */
            call_rec c = call(f, round, round, 1);
            cg_cost *row;
            CHECK_INT(ST_OK, call_list_add(&r[f].calls, &pool, SEED, 1, &c, 0, &row));
            *row = round;
            jump_rec j = jump(f, round, 1, 0);
            if (f != 3) CHECK_INT(ST_OK, jump_list_add(&r[f].jumps, &pool, SEED, &j));
        }
    }
    CHECK(pool.nblocks > 3);
    found f;
    memset(&f, 0, sizeof f);
    f.lists = r;
    rec_pool_drain_blocks(&pool, 0, pool.nblocks, visit, &f);
    rec_pool_clear(&pool, 0);
    CHECK(f.calls[0] == r[0].calls.v && f.calls[1] == r[1].calls.v && f.calls[3] == r[3].calls.v);
    CHECK(f.jumps[0] == r[0].jumps.v && f.jumps[1] == r[1].jumps.v);
    CHECK(f.calls[2] == NULL && f.jumps[2] == NULL && f.jumps[3] == NULL);
    CHECK_INT(0, f.stale); /* the segments lists left when they grew are not visited */
    CHECK_INT(5, f.visits);
    CHECK_INT(0, pool.nblocks);
    for (uint32_t k = 0; k < 4; k++) {
        free(r[k].calls.tab);
        free(r[k].jumps.tab);
    }
}

/* A pool cleared to be used again keeps its blocks and cuts the next segments from them. */
static void test_keep(void) {
    rec_pool pool;
    rec_pool_init(&pool, 4096);
    call_list l;
    fill_calls(&l, &pool, 100, 0, 1);
    size_t blocks = pool.nblocks;
    CHECK(blocks >= 2);
    char *first = pool.blocks[0].mem;
    call_list_free(&l, &pool);
    rec_pool_clear(&pool, 1);
    CHECK_INT(0, pool.nblocks);
    CHECK(pool.nspare >= 1 && pool.nspare <= blocks);
    size_t spare = pool.nspare;
    int kept = 0;
    for (size_t i = 0; i < spare; i++) kept |= pool.spare[i] == first;
    CHECK(kept);
    CHECK_INT(ST_OK, add_call(&l, &pool, 2, 1, 1, 5, 0, 1));
    CHECK_INT(spare - 1, pool.nspare);
    CHECK_INT(1, pool.nblocks);
    CHECK_INT(5, l.v[0].count);
    CHECK_INT(1, l.costs[0]);
    call_list_free(&l, &pool);
    rec_pool_clear(&pool, 0);
    CHECK_INT(0, pool.nspare);
    CHECK(pool.spare == NULL);
}

/* A pool takes the blocks made ready for it first, then makes its own. */
static void *supply_once(void *ctx) {
    void **slot = ctx, *mem = *slot;
    *slot = NULL;
    return mem;
}

static void test_supply(void) {
    enum { BLOCK = 64 << 10 };
    rec_pool pool;
    rec_pool_init(&pool, BLOCK);
    char *ready = rec_block_ready(BLOCK);
    CHECK(ready != NULL);
    int zero = 1;
    for (size_t i = 0; i < BLOCK; i++) zero &= ready[i] == 0;
    CHECK(zero);
    void *slot = ready;
    pool.supply = supply_once;
    pool.supply_ctx = &slot;
    call_list l;
    memset(&l, 0, sizeof l);
    CHECK_INT(ST_OK, add_call(&l, &pool, 2, 1, 1, 1, 0, 1));
    CHECK(pool.blocks[0].mem == ready);
    CHECK(slot == NULL);
    /* past the first block: one of its own */
    for (uint32_t i = 2; i < 2000; i++) CHECK_INT(ST_OK, add_call(&l, &pool, 2, i, i, 1, 0, 1));
    CHECK(pool.nblocks >= 2);
    CHECK_INT(1999, l.n);
    call_list_free(&l, &pool);
    rec_pool_clear(&pool, 0);
    rec_block_free(rec_block_ready(BLOCK), BLOCK);
}

int main(void) {
    test_supply();
    test_calls();
    test_keep();
    test_take();
    test_jumps();
    test_walk();
    return ctest_report("test_fnrecs");
}
