/* Held blocks of line records (line_block.h): a stream fed block by block through a held block
 * ends as the same bytes as one fed record by record, whatever the order, the duplicates, the
 * events added on the way or the blocks that fill; and the stream is held only while holding
 * sums enough records. */
#include <stdio.h>
#include <stdlib.h>

#include "ctest.h"
#include "line_block.h"
#include "strtab.h"

enum { NRAW = 4, SEED = 12345 };

typedef struct rec {
    uint32_t file;
    uint64_t line, addr;
    cg_cost costs[NRAW];
    size_t n; /* costs given, the rest zero */
} rec;

/* Both streams finished: the same records, byte for byte. */
static void check_same(line_store *direct, line_store *held, const strtab *strings,
                       line_scratch *scratch) {
    CHECK_INT(ST_OK, line_finish(direct, strings, NRAW, scratch));
    CHECK_INT(ST_OK, line_finish(held, strings, NRAW, scratch));
    CHECK_INT(direct->count, held->count);
    CHECK_INT(direct->used, held->used);
    CHECK(direct->used == held->used && memcmp(direct->data, held->data, direct->used) == 0);
}

/* `nblocks` blocks of `per` records each on `positions` positions in `files` files, in random
 * order (`sorted`: each block in order), fed to one stream record by record and to another
 * through a held block flushed after each block. `widen_at`: from that block on, records have
 * NRAW costs instead of 2. */
static void feed(size_t nblocks, size_t per, size_t positions, uint32_t files, int sorted,
                 size_t widen_at, const strtab *strings) {
    line_store direct, held;
    line_scratch scratch;
    line_block lb;
    memset(&direct, 0, sizeof direct);
    memset(&held, 0, sizeof held);
    memset(&scratch, 0, sizeof scratch);
    memset(&lb, 0, sizeof lb);
    scratch.seed = SEED;
    rec *block = malloc(per * sizeof *block);
    for (size_t b = 0; b < nblocks; b++) {
        size_t n = b >= widen_at ? NRAW : 2;
        for (size_t i = 0; i < per; i++) {
            uint64_t p = sorted ? i * positions / per : ctest_rnd() % positions;
            block[i] = (rec){(uint32_t)(p % files) + 1, 10 + p / files, 0, {0}, n};
            for (size_t e = 0; e < n; e++) block[i].costs[e] = (cg_cost)(ctest_rnd() % 1000);
        }
        for (size_t i = 0; i < per; i++) {
            const rec *r = &block[i];
            CHECK_INT(ST_OK, line_append(&direct, r->file, r->line, r->addr, r->costs, r->n,
                                         strings, NRAW, &scratch));
            CHECK_INT(ST_OK,
                      line_block_add(&lb, r->file, r->line, r->addr, r->costs, r->n, n, SEED));
            if (line_block_full(&lb))
                CHECK_INT(ST_OK, line_block_flush(&lb, &held, strings, NRAW, &scratch));
        }
        CHECK_INT(ST_OK, line_block_flush(&lb, &held, strings, NRAW, &scratch));
        CHECK_INT(0, lb.n);
    }
    check_same(&direct, &held, strings, &scratch);
    free(block);
    line_block_free(&lb);
    line_store_free(&direct, NULL);
    line_store_free(&held, NULL);
    line_scratch_free(&scratch);
}

/* What a flush leaves of the stream's `held` mark: one block of `per` records on `positions`
 * positions, in order or not. */
static int held_after(size_t per, size_t positions, int sorted) {
    line_store s;
    line_scratch scratch;
    line_block lb;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    memset(&lb, 0, sizeof lb);
    s.held = 1;
    for (size_t i = 0; i < per; i++) {
        uint64_t line = sorted ? i * positions / per : (i * 7919) % positions;
        cg_cost one = 1;
        CHECK_INT(ST_OK, line_block_add(&lb, 1, line, 0, &one, 1, 1, SEED));
    }
    CHECK_INT(positions < per ? positions : per, lb.n);
    CHECK_INT(ST_OK, line_block_flush(&lb, &s, NULL, 1, &scratch));
    /* the block joined as one ascending run, each position once */
    CHECK_INT(1, s.runs);
    CHECK_INT(positions < per ? positions : per, s.count);
    int held = s.held;
    line_block_free(&lb);
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);
    return held;
}

/* A compaction marks the stream held when it met more runs than it merges in turn (16). */
static int held_by_compaction(size_t runs) {
    line_store s;
    line_scratch scratch;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    for (size_t r = 0; r < runs; r++)
        for (uint64_t line = 1; line <= 4; line++) {
            cg_cost one = 1;
            CHECK_INT(ST_OK, line_append(&s, 1, line, 0, &one, 1, NULL, 1, &scratch));
        }
    CHECK_INT(runs, s.runs);
    CHECK_INT(ST_OK, line_compact(&s, NULL, 1, &scratch));
    CHECK_INT(4, s.count);
    int held = s.held;
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);
    return held;
}

int main(void) {
    strtab strings;
    CHECK_INT(0, strtab_init(&strings, SEED));
    /* files 1 to 3, whose names sort the other way round from their ids */
    const char *names[] = {"", "z.c", "y.h", "a.h"};
    for (int i = 0; i < 4; i++) CHECK_INT(i, strtab_intern(&strings, names[i], strlen(names[i])));

    /* many duplicates per block, few positions: compacted while fed */
    feed(40, 300, 50, 3, 0, 40, &strings);
    /* in order, as callgrind writes most blocks */
    feed(10, 200, 200, 1, 1, 10, &strings);
    /* events added from block 5 on */
    feed(12, 300, 60, 2, 0, 5, &strings);
    /* blocks of more positions than a held block takes, flushed when full */
    feed(3, 3 * LINE_BLOCK_MAX, LINE_BLOCK_MAX + 500, 2, 0, 3, &strings);
    /* every record a position of its own */
    feed(5, 500, 1000000, 3, 0, 5, &strings);
    /* the strings not readable (another thread adds to them) */
    feed(20, 300, 40, 3, 0, 20, NULL);

    /* held while holding sums: out of order, at most half as many positions as records; not
     * for a block in order (equal positions one after the other are not: they are summed) */
    CHECK_INT(1, held_after(100, 10, 0));
    CHECK_INT(1, held_after(100, 50, 0));
    CHECK_INT(0, held_after(100, 51, 0));
    CHECK_INT(0, held_after(100, 100, 1));
    CHECK_INT(1, held_after(100, 10, 1));
    CHECK_INT(1, line_block_full(&(line_block){.n = LINE_BLOCK_MAX}));
    CHECK_INT(0, line_block_full(&(line_block){.n = LINE_BLOCK_MAX - 1}));

    CHECK_INT(0, held_by_compaction(16));
    CHECK_INT(1, held_by_compaction(17));

    strtab_free(&strings);
    return ctest_report("test_line_block");
}
