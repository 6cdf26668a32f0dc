/* The numbering of calls and jumps into the model's arrays (builder.h: build_number): on one
 * thread and on two, which copy disjoint ranges of the pool's blocks: the same records in caller
 * order, with the counts and costs of every block summed, worked out here from the schedule
 * that added them. */
#include <stdlib.h>

#include "builder.h"
#include "ctest.h"

/* Enough calls and jumps for a pool of several blocks (about 20 MB of lists), added in rounds,
 * each from another function on (as callgrind writes a function's block again for another
 * context), so that the lists grow, leave segments to others and lie in the blocks out of their
 * functions' order. */
enum { FNS = 24000, ROUNDS = 4, SHIFT = 7919 };

static uint32_t ncalls(uint32_t f) {
    return 1 + f % 7;
}
static uint32_t njumps(uint32_t f) {
    return f % 9;
}
/* Round r adds the first 2r + 2 calls and jumps of a function (as far as it has them). */
static int added(uint32_t k, unsigned r) {
    return k < 2 * r + 2;
}
static uint32_t callee_of(uint32_t f, uint32_t k) {
    return (f * 7u + k * 13u + 1u) % FNS;
}

static call_rec call_key(uint32_t f, uint32_t k, unsigned r) {
    call_rec c;
    memset(&c, 0, sizeof c);
    c.caller = f;
    c.callee = callee_of(f, k);
    c.file = 1;
    c.line = 10 + k;
    c.addr = 0x1000 + k;
    c.count = r + 1 + k;
    return c;
}

static jump_rec jump_key(uint32_t f, uint32_t k, unsigned r) {
    jump_rec j;
    memset(&j, 0, sizeof j);
    j.fn = j.to_fn = f;
    j.from_file = j.to_file = 1;
    j.from_line = 20 + k;
    j.to_line = 40 + k;
    j.executed = 2 * (r + 1) + k;
    j.taken = r + 1;
    j.conditional = 1;
    return j;
}

/* A builder with FNS functions and their calls and jumps, numbered on `threads`. */
static void build(builder *b, int threads) {
    CHECK_INT(ST_OK, builder_init(b, NULL, 0, 0));
    uint32_t ev, file;
    CHECK_INT(ST_OK, build_event(b, "Ir", 2, &ev));
    CHECK_INT(ST_OK, build_string(b, "a.c", 3, &file));
    char name[32];
    for (uint32_t f = 0; f < FNS; f++) {
        uint32_t sid, fn;
        int len = snprintf(name, sizeof name, "f%u", (unsigned)f);
        CHECK_INT(ST_OK, build_string(b, name, (size_t)len, &sid));
        CHECK_INT(ST_OK, build_function(b, sid, file, 0, &fn));
        CHECK_INT(f, fn);
    }
    for (unsigned r = 0; r < ROUNDS; r++) {
        for (uint32_t i = 0; i < FNS; i++) {
            uint32_t f = (i + r * SHIFT) % FNS;
            for (uint32_t k = 0; k < ncalls(f) && added(k, r); k++) {
                call_rec c = call_key(f, k, r);
                cg_cost *row;
                if (build_call(b, &c, 0, &row) != ST_OK) {
                    CHECK(0);
                    return;
                }
                row[0] += (cg_cost)(f + k) * (r + 1);
            }
            for (uint32_t k = 0; k < njumps(f) && added(k, r); k++) {
                jump_rec j = jump_key(f, k, r);
                if (build_jump(b, &j) != ST_OK) {
                    CHECK(0);
                    return;
                }
            }
        }
    }
    CHECK(b->pool.nblocks * b->pool.block_size >= (8 << 20));
    CHECK_INT(ST_OK, build_number(b, threads));
}

/* Every call and jump in caller order, with the sums of the rounds that added it. */
static void check_records(const cg_profile *p) {
    size_t c = 0, j = 0;
    int bad = 0;
    for (uint32_t f = 0; f < FNS && !bad && c <= p->ncalls && j <= p->njumps; f++) {
        for (uint32_t k = 0; k < ncalls(f) && c < p->ncalls; k++, c++) {
            uint64_t count = 0;
            cg_cost cost = 0;
            for (unsigned r = 0; r < ROUNDS; r++)
                if (added(k, r)) count += r + 1 + k, cost += (cg_cost)(f + k) * (r + 1);
            const call_rec *x = &p->calls[c];
            bad |= x->caller != f || x->callee != callee_of(f, k) || x->line != 10 + k ||
                   x->addr != 0x1000 + k || x->count != count ||
                   costs_row(&p->call_costs, p->nraw, c)[0] != cost;
        }
        for (uint32_t k = 0; k < njumps(f) && j < p->njumps; k++, j++) {
            uint64_t executed = 0, taken = 0;
            for (unsigned r = 0; r < ROUNDS; r++)
                if (added(k, r)) executed += 2 * (r + 1) + k, taken += r + 1;
            const jump_rec *x = &p->jumps[j];
            bad |= x->fn != f || x->to_fn != f || x->from_line != 20 + k || x->to_line != 40 + k ||
                   x->executed != executed || x->taken != taken || !x->conditional;
        }
    }
    CHECK(!bad);
    size_t calls = 0, jumps = 0;
    for (uint32_t f = 0; f < FNS; f++) calls += ncalls(f), jumps += njumps(f);
    CHECK_INT(calls, p->ncalls);
    CHECK_INT(jumps, p->njumps);
    CHECK_INT(calls, c);
    CHECK_INT(jumps, j);
}

static void test_numbering(void) {
    builder one, two;
    build(&one, 1);
    check_records(one.p);
    build(&two, 2);
    check_records(two.p);
    CHECK_INT(one.p->ncalls, two.p->ncalls);
    CHECK_INT(one.p->njumps, two.p->njumps);
    CHECK(!memcmp(one.p->calls, two.p->calls, one.p->ncalls * sizeof *one.p->calls));
    CHECK(!memcmp(one.p->jumps, two.p->jumps, one.p->njumps * sizeof *one.p->jumps));
    CHECK(!memcmp(one.p->call_costs.v, two.p->call_costs.v, one.p->ncalls * sizeof(cg_cost)));
    /* the arrays shrink and are freed as the profile's own (builder_finish, cg_profile_free) */
    builder_finish(&one);
    check_records(one.p);
    builder_free(&one);
    builder_free(&two);
}

int main(void) {
    test_numbering();
    return ctest_report("test_number");
}
