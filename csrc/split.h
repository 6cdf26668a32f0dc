/* split.h - a load whose pieces are parsed and built on several threads at once.
 *
 * The calling thread cuts the input into pieces at the beginning of function blocks (a fn=
 * line whose first position line is absolute) and is the only one that keeps the name state:
 * it reads the lines with names (fl=, fn=, cfn=, calls=...) as a load on one thread does, in
 * the same order, so strings and functions are made in the same order, and gives each piece
 * the list of what its name lines resolved to. Worker threads parse the other lines of a
 * piece into piece-local records (line streams per function, calls and jumps merged, sums)
 * and join the piece's line streams to the model's; the calling thread adds the rest of each
 * piece to the model in input order, and parses pieces as the workers do whenever they have
 * enough waiting or it would wait for one. Header lines and any line the splitter does not cut
 * around are parsed on the calling thread once every piece before them is in. A fault inside a
 * piece (a warning or an error), a negative cost or a sum beyond 64 bits makes the input load
 * again on one thread, so that every fault is reported as a load on one thread reports it.
 *
 * Where the names are most of the lines (Xdebug), the calling thread would read as much as
 * one thread does: from a block on, it only cuts, and each piece's worker reads the piece's
 * names too, numbering strings and functions in the piece (piece_names.h), which the stitch
 * places in the model in input order; a piece one thread would read otherwise is parsed
 * again on the calling thread, with every piece after it. */
#ifndef CG_SPLIT_H
#define CG_SPLIT_H

#include "builder.h"
#include "parser.h"
#include "reader.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct splitter splitter;

/* Starts `workers` threads for one input read by `ps` (begun with parse_begin); `piece_size`
 * the bytes of a piece (0: the default). NULL when out of memory or no thread can be made. */
splitter *split_start(parser *ps, int workers, size_t piece_size);
/* The reader's sink: lines are cut into pieces or parsed by `ps`. The pieces refer to the
 * lines where the reader put them, and the sink keeps the reader's buffers while they do
 * (line_sink.swap), also through the read_*_ahead functions, which hand their reading thread's
 * buffers over whole. */
line_sink split_sink(splitter *sp);
/* Once the read ended well: every piece stitched, the parser's state as after the last line.
 * Returns 0, or -1 with err set. */
int split_finish(splitter *sp, cg_error *err);
/* Whether the input must be loaded again on one thread (a fault inside a piece). */
int split_redo(const splitter *sp);
/* Stops the threads and frees what is left. */
void split_free(splitter *sp);

/* A piece's records (parser.c calls them instead of the builder's): 0, or -1 when the piece
 * cannot be built locally (out of memory, a negative cost, an overflow). local_line's costs
 * are none negative: the parser checks them (any_negative), or its fast path takes none. */
struct piece_build;
int local_line(struct piece_build *pb, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
               const cg_cost *costs, size_t n);
int local_call(struct piece_build *pb, const call_rec *key, int guessed, const cg_cost *values,
               size_t n, const uint32_t *map);
int local_jump(struct piece_build *pb, const jump_rec *key);
/* A fn= line's function as the splitter gives it in a piece's name list: with LOCAL_LATER set
 * when a block of the function came before, most often in an earlier piece, whose calls and
 * jumps are then kept as read (the stitch merges them into the function's lists, one by one,
 * as it must anyway) rather than looked up in the piece's tables first; a function's records
 * in a piece go the way of its first block there. local_block takes the flag off and notes it
 * for the function's records in the piece; function indexes are below 2^31 (idxtab.h). */
#define LOCAL_LATER 0x80000000u
uint32_t local_block(struct piece_build *pb, uint32_t entry);

#pragma GCC visibility pop

#endif
