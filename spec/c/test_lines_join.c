/* Line streams joined from pieces (line_append_stream, as a split load's workers join them):
 * whatever the cut and the order of joining, the finished stream is the one a load on one
 * thread makes by appending every record to one stream. */
#include <stdlib.h>

#include "ctest.h"
#include "lines.h"
#include "strtab.h"

enum { NRAW = 2 };

typedef struct rec {
    uint32_t file;
    uint64_t line, addr;
    cg_cost costs[NRAW];
} rec;

static line_scratch scratch = {.seed = 99};

/* The records [from, to) appended to an empty stream as a worker appends them: never
 * compacted. */
static line_store piece(const rec *r, size_t from, size_t to) {
    line_store s;
    memset(&s, 0, sizeof s);
    for (size_t i = from; i < to; i++)
        CHECK_INT(ST_OK, line_append_uncompacted(&s, r[i].file, r[i].line, r[i].addr, r[i].costs,
                                                 NRAW, &scratch));
    return s;
}

/* The stream of one thread: every record appended in order, then finished. */
static line_store whole(const rec *r, size_t n, const strtab *strings) {
    line_store s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(ST_OK, line_append(&s, r[i].file, r[i].line, r[i].addr, r[i].costs, NRAW, strings,
                                     NRAW, &scratch));
    CHECK_INT(ST_OK, line_finish(&s, strings, NRAW, &scratch));
    return s;
}

static int same(const line_store *a, const line_store *b) {
    return a->count == b->count && a->used == b->used && !memcmp(a->data, b->data, a->used);
}

/* The records cut at `cuts` (sorted, ending with n), the pieces joined in `order`. */
static line_store joined(const rec *r, const size_t *cuts, size_t npieces, const size_t *order,
                         const strtab *strings) {
    line_store t;
    memset(&t, 0, sizeof t);
    cg_cost row[NRAW];
    for (size_t k = 0; k < npieces; k++) {
        size_t p = order[k];
        line_store s = piece(r, p ? cuts[p - 1] : 0, cuts[p]);
        CHECK_INT(ST_OK, line_append_stream(&t, &s, strings, NRAW, &scratch, row));
        CHECK_INT(0, s.count);
        CHECK(s.data == NULL);
    }
    CHECK_INT(ST_OK, line_finish(&t, strings, NRAW, &scratch));
    return t;
}

/* Every check, with the streams' blocks from malloc (`regions` NULL) or from the heaps of
 * `regions`, as a profile's are. */
static void run_all(block_regions *regions) {
    line_scratch_lend(&scratch, regions);
    strtab strings;
    CHECK_INT(0, strtab_init(&strings, 4242));
    /* z.c gets the smaller id, so file ids and file names order ties the other way round */
    uint32_t z = (uint32_t)strtab_intern(&strings, "z.c", 3);
    uint32_t a = (uint32_t)strtab_intern(&strings, "a.c", 3);
    CHECK(z < a);

    /* worked out by hand: two blocks of one function, the second repeating the first's
     * positions, one position in two files */
    rec small[] = {
        {z, 10, 0x100, {5, 1}}, {z, 11, 0x104, {2, 0}}, {a, 11, 0x104, {1, 0}},
        {z, 10, 0x100, {3, 1}}, {z, 11, 0x104, {4, 0}},
    };
    size_t cuts[] = {3, 5}, order[] = {0, 1}, reverse[] = {1, 0};
    line_store t = joined(small, cuts, 2, order, &strings);
    line_reader rd;
    cg_cost c[NRAW];
    line_reader_init(&rd, &t);
    CHECK_INT(3, t.count);
    CHECK(line_reader_next(&rd, c, NRAW));
    CHECK_INT(0x100, rd.addr);
    CHECK_INT(10, rd.line);
    CHECK_INT(8, c[0]);
    CHECK_INT(2, c[1]);
    CHECK(line_reader_next(&rd, c, NRAW));
    CHECK_INT(a, rd.file); /* a.c before z.c at 0x104, line 11: by name, not by id */
    CHECK_INT(1, c[0]);
    CHECK(line_reader_next(&rd, c, NRAW));
    CHECK_INT(z, rd.file);
    CHECK_INT(6, c[0]);
    CHECK(!line_reader_next(&rd, c, NRAW));
    line_store one = whole(small, 5, &strings);
    CHECK(same(&one, &t));
    line_store back = joined(small, cuts, 2, reverse, &strings);
    CHECK(same(&one, &back));
    line_store_free(&t, &scratch);
    line_store_free(&back, &scratch);
    line_store_free(&one, &scratch);

    /* records in increasing order: joined by a copy, the stream the same before finishing */
    rec up[6];
    for (int i = 0; i < 6; i++)
        up[i] = (rec){z, (uint64_t)(20 + i), (uint64_t)(0x200 + 4 * i), {i + 1, 0}};
    line_store u1 = piece(up, 0, 2), u2 = piece(up, 2, 6), u = piece(up, 0, 6);
    cg_cost row[NRAW];
    CHECK_INT(ST_OK, line_append_stream(&u1, &u2, &strings, NRAW, &scratch, row));
    CHECK(same(&u, &u1));
    CHECK(u1.runs == 1);
    CHECK_INT(up[5].addr, u1.last_addr);
    line_store_free(&u, &scratch);
    line_store_free(&u1, &scratch);

    /* a piece that goes on from the stream's last record, then goes back: the records known
     * distinct (which set off a compaction at LINE_COMPACT_AT times as many and 256 more) are the
     * stream's and the piece's first run, as appending them one by one counts them */
    rec seq[300];
    for (int i = 0; i < 300; i++) {
        int k = i < 150 ? i : i - 150; /* 0..149, then the same positions again */
        seq[i] = (rec){z, (uint64_t)(100 + k), (uint64_t)(0x400 + 4 * k), {1, 0}};
    }
    line_store s1 = piece(seq, 0, 100), s2 = piece(seq, 100, 300), s12 = piece(seq, 0, 300);
    CHECK_INT(50, s2.distinct); /* its first run */
    CHECK_INT(ST_OK, line_append_stream(&s1, &s2, &strings, NRAW, &scratch, row));
    CHECK_INT(300, s1.count);
    CHECK_INT(150, s12.distinct);
    CHECK_INT(s12.distinct, s1.distinct);
    CHECK_INT(s12.runs, s1.runs);
    CHECK(same(&s12, &s1));
    line_store_free(&s1, &scratch);
    line_store_free(&s12, &scratch);

    /* compacted while the strings may not be read: final as it is when no two records share
     * an address and line, left for line_finish to order by name when two do */
    rec blocks[] = {{z, 31, 0x304, {2, 0}}, {z, 30, 0x300, {1, 0}}, {z, 31, 0x304, {3, 0}}};
    line_store bl = piece(blocks, 0, 3);
    CHECK_INT(ST_OK, line_compact(&bl, NULL, NRAW, &scratch));
    CHECK_INT(2, bl.count);
    CHECK_INT(1, bl.runs);
    CHECK_INT(0, bl.ties_by_id);
    line_store bl_one = whole(blocks, 3, &strings);
    CHECK(same(&bl_one, &bl));
    line_store tied = piece(small, 0, 5);
    CHECK_INT(ST_OK, line_compact(&tied, NULL, NRAW, &scratch));
    CHECK_INT(1, tied.ties_by_id);
    CHECK_INT(ST_OK, line_finish(&tied, &strings, NRAW, &scratch));
    line_store small_one = whole(small, 5, &strings);
    CHECK(same(&small_one, &tied));
    line_store_free(&bl, &scratch);
    line_store_free(&bl_one, &scratch);
    line_store_free(&tied, &scratch);
    line_store_free(&small_one, &scratch);

    /* a function's first piece out of order, moved into an empty stream, is compacted first;
     * one block summing few of its records says nothing of the blocks to come, so the
     * thread's guess for the streams it compacts the first time and the stream's own record
     * stay as they were (a function that comes back block after block, whose next
     * compactions sum most, would otherwise decode its costs twice) */
    line_scratch guess = {.seed = 99, .sums_most = 1};
    line_scratch_lend(&guess, regions);
    line_store first, blk = piece(blocks, 0, 3);
    memset(&first, 0, sizeof first);
    CHECK_INT(2, blk.runs);
    CHECK_INT(ST_OK, line_append_stream(&first, &blk, &strings, NRAW, &guess, row));
    CHECK_INT(2, first.count); /* compacted: 0x304 summed */
    CHECK_INT(1, first.runs);
    CHECK_INT(LINE_SUMS_UNKNOWN, first.sums);
    CHECK_INT(1, guess.sums_most);
    line_store blk_sorted = piece(blocks, 1, 3); /* in order: moved as it is */
    CHECK_INT(ST_OK, line_append_stream(&first, &blk_sorted, &strings, NRAW, &guess, row));
    CHECK_INT(4, first.count);
    CHECK_INT(ST_OK, line_finish(&first, &strings, NRAW, &guess));
    rec twice[] = {blocks[0], blocks[1], blocks[2], blocks[1], blocks[2]};
    line_store twice_one = whole(twice, 5, &strings);
    CHECK(same(&twice_one, &first));
    line_store_free(&first, &scratch);
    line_store_free(&twice_one, &scratch);
    line_scratch_free(&guess);

    /* many records out of order with duplicates, cut anywhere, joined in any order: enough
     * of them for compactions in the pieces and in the joined stream */
    enum { N = 6000 };
    rec *many = malloc(N * sizeof *many);
    CHECK(many != NULL);
    uint64_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t pos = (x >> 33) % 700;
        many[i] = (rec){(x >> 20) % 3 ? z : a,
                        1 + pos % 50,
                        0x1000 + 4 * (pos / 2),
                        {(cg_cost)((x >> 40) % 1000), (cg_cost)((x >> 50) % 3)}};
    }
    line_store ref = whole(many, N, &strings);
    CHECK(ref.count > 0 && ref.count < N);
    size_t cuts2[] = {1, 700, 701, 2500, 4000, 5999, N};
    size_t fwd[] = {0, 1, 2, 3, 4, 5, 6}, mixed[] = {4, 0, 6, 2, 1, 5, 3};
    line_store j1 = joined(many, cuts2, 7, fwd, &strings);
    line_store j2 = joined(many, cuts2, 7, mixed, &strings);
    CHECK(same(&ref, &j1));
    CHECK(same(&ref, &j2));

    /* joined by two threads in turn, as a split load's threads join the pieces of one
     * function: a block that one thread made and the other lets go (grown, compacted, trimmed)
     * goes on the list of the thread that made it, and the stream is the same */
    line_frees *frees = line_frees_new(2);
    CHECK(frees != NULL);
    line_scratch by[2] = {{.seed = 99, .frees = frees, .self = 0},
                          {.seed = 99, .frees = frees, .self = 1}};
    line_scratch_lend(&by[0], regions);
    line_scratch_lend(&by[1], regions);
    line_store t2;
    memset(&t2, 0, sizeof t2);
    for (size_t k = 0; k < 7; k++) {
        line_store s = piece(many, k ? cuts2[k - 1] : 0, cuts2[k]);
        CHECK_INT(ST_OK, line_append_stream(&t2, &s, &strings, NRAW, &by[k % 2], row));
        line_leave(&t2, &by[k % 2]);
        CHECK_INT(by[0].heap != NULL, t2.heaped);
        if (!t2.heaped) CHECK_INT(k % 2, t2.owner); /* the thread its malloc block goes back to */
    }
    if (!by[0].heap) {
        CHECK(line_frees_drain(frees, 0) > 0); /* thread 0's blocks, let go by thread 1 */
        CHECK(line_frees_drain(frees, 1) > 0);
    } else {
        /* a block of the regions goes to the heap of the thread that lets it go */
        CHECK_INT(0, line_frees_drain(frees, 0));
        CHECK_INT(0, line_frees_drain(frees, 1));
    }
    CHECK_INT(0, line_frees_drain(frees, 1));
    CHECK_INT(ST_OK, line_finish(&t2, &strings, NRAW, &by[1]));
    CHECK(same(&ref, &t2));
    line_store_free(&t2, &by[1]);
    line_frees_free(frees, 2);
    line_scratch_free(&by[0]);
    line_scratch_free(&by[1]);
    line_store_free(&ref, &scratch);
    line_store_free(&j1, &scratch);
    line_store_free(&j2, &scratch);
    free(many);

    line_scratch_free(&scratch);
    strtab_free(&strings);
}

int main(void) {
    run_all(NULL);
#if !defined(__SANITIZE_ADDRESS__)
    block_regions *regions = block_regions_new();
    CHECK(regions != NULL);
    run_all(regions);
    CHECK(scratch.heap == NULL);
    CHECK(block_regions_bytes(regions) > 0);
    block_regions_free(regions);
#endif
    return ctest_report("test_lines_join");
}
