/* line_block.h - the records of a function's block held by position before they join its
 * stream (lines.h). A function that comes back part after part (valgrind's --dump-every-bb
 * parts combined in one file: 1,447 parts in the benchmarks' 5.6 MB profile) writes the same
 * positions again in every block, each block in dozens of short ascending runs (its basic
 * blocks, inlined code moving the line back and forth): appended as they come, each record is
 * encoded, then decoded, hashed and summed by the stream's next compaction, and a block's runs
 * send that compaction its slowest way. Held, a block's records are summed by position in a
 * small table, which stays in the caches, and join the stream as one ascending run of distinct
 * records, which the compaction merges in turn with the other runs. The builder holds the blocks
 * of a stream from a compaction that met many runs on (line_store.held), and stops when a held
 * block gained nothing: it came in order, or at more than half as many positions as records
 * (the table and the sort then cost more than the summing saves: line13's blocks, 61 %).
 *
 * Sums of costs none of which is negative cannot overflow where the function's self cost,
 * summed and checked line by line before a record is kept, did not: the builder holds records
 * only while the load has met no negative cost, so holding never meets an overflow that the
 * stream's own sums would not have met, and the stream ends as the same records either way. */
#ifndef CG_LINE_BLOCK_H
#define CG_LINE_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "line_key.h"
#include "lines.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* A block holds at most this many positions, then joins its stream and starts again: a
 * function of more is written as several runs, each of this many records, in at most a few
 * hundred KiB of table. */
enum { LINE_BLOCK_MAX = 4096 };

typedef struct line_block {
    line_key *keys;  /* of the positions, in the order first held */
    cg_cost *rows;   /* their costs, `width` each */
    uint32_t *slot;  /* each position's slot in `table` */
    uint32_t *table; /* position + 1 by hash of its key (open addressing), 0 free */
    uint32_t *order; /* the sort's: positions, their copy and the run bounds */
    size_t n, cap, width, nslots;
    size_t rows_cap; /* costs `rows` has room for */
    uint64_t seed;   /* of the table: the load's */
    line_key last;   /* the last record held */
    size_t added;    /* records held, `n` positions of them */
    uint32_t runs;   /* the ascending runs the records came in */
} line_block;

void line_block_free(line_block *lb);
/* Holds a record of `n` costs (`nraw` wide, none negative), summed into the one held at its
 * position if any. ST_NOMEM when out of memory, which ends the load (ST_OVERFLOW past 64 bits,
 * which such costs do not reach where their self cost did not: see above). */
status line_block_add(line_block *lb, uint32_t file, uint64_t line, uint64_t addr,
                      const cg_cost *costs, size_t n, size_t nraw, uint64_t seed);
/* Whether the block holds as many positions as it may. */
static inline int line_block_full(const line_block *lb) {
    return lb->n >= LINE_BLOCK_MAX;
}
/* The held records appended to `s` in (address, line, file id) order, then compacted when due,
 * as line_append would; the block is emptied. The stream stops being held when holding gained
 * nothing (see above). */
status line_block_flush(line_block *lb, line_store *s, const strtab *strings, size_t nraw,
                        line_scratch *scratch);

#pragma GCC visibility pop

#endif
