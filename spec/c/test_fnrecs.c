/* A function's calls and jumps while loading (fnrecs.h): merging by identity past the scan and
 * through the hash table, the order first seen, counts and rows summed, overflow, adopting and
 * merging a later list, widening the rows. */
#include "ctest.h"
#include "fnrecs.h"

enum { SEED = 99 };

static call_rec call(uint32_t callee, uint64_t line, uint64_t count) {
    call_rec c;
    memset(&c, 0, sizeof c);
    c.caller = 7;
    c.callee = callee;
    c.file = 3;
    c.line = line;
    c.addr = 0x1000 + line;
    c.count = count;
    return c;
}

static jump_rec jump(uint64_t line, uint64_t executed, uint64_t taken) {
    jump_rec j;
    memset(&j, 0, sizeof j);
    j.fn = 7;
    j.to_fn = 7;
    j.from_line = line;
    j.to_line = line + 100;
    j.executed = executed;
    j.taken = taken;
    j.conditional = 1;
    return j;
}

/* Adds call (callee, line) with `count` and one cost per event (`cost` * (event + 1)). */
static status add_call(call_list *l, size_t width, uint32_t callee, uint64_t line, uint64_t count,
                       int guessed, cg_cost cost) {
    call_rec c = call(callee, line, count);
    cg_cost *row;
    status rc = call_list_add(l, SEED, width, &c, guessed, &row);
    if (rc != ST_NOMEM)
        for (size_t e = 0; e < width; e++) row[e] += cost * (cg_cost)(e + 1);
    return rc;
}

static void test_calls(void) {
    call_list l;
    memset(&l, 0, sizeof l);
    /* 40 distinct calls: past the scan, into the table; then each again, out of order */
    for (uint32_t i = 0; i < 40; i++) CHECK_INT(ST_OK, add_call(&l, 2, i, i, 1, 1, 10));
    CHECK_INT(40, l.n);
    CHECK(l.tab != NULL);
    for (uint32_t k = 0; k < 40; k++) {
        uint32_t i = (k * 17) % 40;
        CHECK_INT(ST_OK, add_call(&l, 2, i, i, 2, i % 2, 5));
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
    CHECK_INT(ST_OK, add_call(&l, 2, 5, 500, 1, 0, 1));
    CHECK_INT(41, l.n);
    /* a count sum beyond 64 bits saturates, and the row is still given */
    CHECK_INT(ST_OVERFLOW, add_call(&l, 2, 5, 500, UINT64_MAX, 0, 1));
    CHECK(l.v[40].count == UINT64_MAX);
    CHECK_INT(2, l.costs[40 * 2]);

    /* a new event widens every row, the new column zero */
    CHECK_INT(0, call_list_restride(&l, 2, 3));
    CHECK_INT(15, l.costs[7 * 3]);
    CHECK_INT(30, l.costs[7 * 3 + 1]);
    CHECK_INT(0, l.costs[7 * 3 + 2]);
    CHECK_INT(4, l.costs[40 * 3 + 1]);
    CHECK_INT(1, l.guessed[7]);
    CHECK_INT(ST_OK, add_call(&l, 3, 39, 39, 1, 1, 1));
    CHECK_INT(3, l.costs[39 * 3 + 2]);
    CHECK_INT(4, l.v[39].count);
    call_list_free(&l);
    CHECK(l.v == NULL && l.n == 0);
}

static void test_take(void) {
    /* a list taken whole by an empty one: the same memory, no copy */
    call_list into, from;
    memset(&into, 0, sizeof into);
    memset(&from, 0, sizeof from);
    for (uint32_t i = 0; i < 3; i++) CHECK_INT(ST_OK, add_call(&from, 1, i, i, 1, 0, 1));
    const call_rec *moved = from.v;
    CHECK_INT(ST_OK, call_list_take(&into, &from, SEED, 1));
    CHECK(into.v == moved);
    CHECK_INT(3, into.n);
    CHECK_INT(0, from.n);
    CHECK(from.v == NULL);
    /* a later piece: its records merge after the function's own, new ones at the end in its
     * order */
    CHECK_INT(ST_OK, add_call(&from, 1, 9, 9, 1, 0, 4));
    CHECK_INT(ST_OK, add_call(&from, 1, 1, 1, 5, 1, 6));
    CHECK_INT(ST_OK, add_call(&from, 1, 8, 8, 1, 0, 7));
    CHECK_INT(ST_OK, call_list_take(&into, &from, SEED, 1));
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
    CHECK_INT(ST_OK, add_call(&from, 1, 0, 0, UINT64_MAX, 0, 1));
    CHECK_INT(ST_OK, add_call(&from, 1, 12, 12, 1, 0, 1));
    CHECK_INT(ST_OVERFLOW, call_list_take(&into, &from, SEED, 1));
    CHECK_INT(6, into.n);
    CHECK(into.v[0].count == UINT64_MAX);
    CHECK_INT(12, into.v[5].callee);
    call_list_free(&into);
}

static void test_jumps(void) {
    jump_list l, from;
    memset(&l, 0, sizeof l);
    memset(&from, 0, sizeof from);
    for (uint64_t i = 0; i < 30; i++) {
        jump_rec j = jump(i, 2, 1);
        CHECK_INT(ST_OK, jump_list_add(&l, SEED, &j));
    }
    for (uint64_t i = 30; i-- > 0;) {
        jump_rec j = jump(i, 3, 2);
        CHECK_INT(ST_OK, jump_list_add(&l, SEED, &j));
    }
    CHECK_INT(30, l.n);
    CHECK_INT(5, l.v[29].executed);
    CHECK_INT(3, l.v[0].taken);
    CHECK_INT(4, l.v[4].from_line);
    /* an unconditional jump between the same places is another record */
    jump_rec u = jump(4, 1, 1);
    u.conditional = 0;
    CHECK_INT(ST_OK, jump_list_add(&l, SEED, &u));
    CHECK_INT(31, l.n);
    /* merged from a later piece, overflow included */
    jump_rec big = jump(2, UINT64_MAX, 0), other = jump(77, 1, 0);
    CHECK_INT(ST_OK, jump_list_add(&from, SEED, &big));
    CHECK_INT(ST_OK, jump_list_add(&from, SEED, &other));
    CHECK_INT(ST_OVERFLOW, jump_list_take(&l, &from, SEED));
    CHECK_INT(32, l.n);
    CHECK(l.v[2].executed == UINT64_MAX);
    CHECK_INT(77, l.v[31].from_line);
    CHECK(from.v == NULL);
    jump_list_free(&l);
}

int main(void) {
    test_calls();
    test_take();
    test_jumps();
    return ctest_report("test_fnrecs");
}
