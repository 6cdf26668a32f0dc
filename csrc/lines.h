/* lines.h - the line and instruction cost records of one function, stored compactly.
 *
 * Records are appended as they are read, each encoded relative to the function's previous one,
 * in one buffer per function that grows by half its size and is trimmed to its exact size when
 * loading ends. A record of one cost in the file of the one before it, its address at most 15
 * past that one's, is short: a header byte holds the address step, a line step of 0 to 2 (any
 * other follows as a zigzag varint) and whether the cost is the last record's first cost, which
 * then is not written again; else the cost follows. Any other record is long: a header byte with
 * the number of costs, the file when it changes, zigzag varints of the address and line steps,
 * and the costs up to the last nonzero one (line_encode). Valgrind's instruction-level profiles
 * of one event are nearly all short records, most of them one byte (the instructions of a basic
 * block run as often as each other), where the long form takes four.
 * While the records arrive in strictly increasing (address, line) order — callgrind writes a
 * function's instructions in address order — the stream is already final: sorted, with no position
 * twice. Otherwise it is compacted: decoded, its ascending runs (the last compaction's output, then
 * each block's records) merged into (address, line, file name) order with equal positions summed,
 * encoded again. Compaction also runs while loading, when a stream has grown to eight times the
 * records known distinct (its last compaction's output, or its first run), so that memory follows
 * the distinct positions, not the input's lines. */
#ifndef CG_LINES_H
#define CG_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "blockheap.h"
#include "callgrind.h"
#include "inline.h"
#include "status.h"
#include "strtab.h"
#include "varint.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct line_store {
    unsigned char *data;
    size_t used, cap; /* bytes */
    /* bytes when the spare room was last given back (at most UINT32_MAX: a larger stream is
     * trimmed whenever it is left, which costs it nothing more than a realloc), in 32 bits so
     * that a function's header takes 72 bytes, not 80 */
    uint32_t trimmed;
    uint32_t count;    /* records in the stream */
    uint32_t distinct; /* records after the last compaction */
    uint32_t last_file;
    uint32_t runs; /* strictly increasing runs of (address, line) since the last compaction,
                    * whose output counts as one: 1 while sorted */
    /* compacted with records at one position in file id order (see below) */
    unsigned char ties_by_id : 1;
    /* its blocks come in many short runs with positions repeated (a function that comes
     * back part after part): the builder sums a block's records by position before they join
     * the stream, as one ascending run (line_block.h); set by a compaction that met more runs
     * than it merges in turn, cleared when a held block gained nothing */
    unsigned char held : 1;
    unsigned char sums;   /* what its last compaction summed: LINE_SUMS_* */
    unsigned char owner;  /* the thread of a split load whose allocator made `data` */
    unsigned char heaped; /* `data` is a block of the profile's regions (blockheap.h) */
    uint64_t last_line, last_addr;
    cg_cost last_cost; /* the last record's first cost (0 when it has none) */
} line_store;

/* What a stream's last compaction summed (line_store.sums): none yet, few of its records
 * (callgrind's blocks meeting at a position or two), most of them (a function that comes back
 * block after block). */
enum { LINE_SUMS_UNKNOWN, LINE_SUMS_FEW, LINE_SUMS_MOST };

/* The blocks a split load's threads give back to the thread whose allocator made them, one
 * list per thread (lines.c). */
typedef struct line_frees line_frees;

/* Scratch space for compactions, reused from one to the next, and the thread it belongs to. */
typedef struct line_scratch {
    void *mem;
    size_t cap;
    uint64_t seed; /* of the hash table that sums streams of many runs */
    int sums_most; /* the last compaction made with it summed most of its records: the guess
                    * for a stream compacted the first time (a split load's pieces make new
                    * streams for functions the model has seen) */
    /* a split load's lists, or NULL: blocks freed at once; this thread's number among them */
    line_frees *frees;
    unsigned char self;
    /* this thread's heap of the profile's regions (line_scratch_lend), or NULL: malloc */
    block_heap *heap;
} line_scratch;

/* ---- appending: inline, since the builder appends once per line record of the input ---- */

/* A header byte with the high bit clear is a short record's: the address step in bits 0-3, the
 * line step in bits 4-5 (0, 1 or 2; LINE_LINE_VARINT: the step follows as a zigzag varint), and
 * in bit 6 (LINE_REPEAT) whether its one cost is the last record's first cost, which then does
 * not follow. With the high bit set, a long record's: whether the file follows in bit 0, the
 * number of costs in bits 1-6 (LINE_K_ESCAPE: the count follows as a varint). */
enum {
    LINE_LONG = 0x80,
    LINE_REPEAT = 0x40,
    LINE_ADDR_STEPS = 16, /* short records' address steps: 0 to 15 */
    LINE_LINE_VARINT = 3, /* short records' line codes 0-2: steps 0, 1, 2 */
    LINE_K_ESCAPE = 63
};

/* A stream out of order is compacted when it holds this many times the records known
 * distinct (and 256 more). Eight rather than four: line13 loads 5 % faster on one thread,
 * instr-100 3 %, for 5 MB more at the peak (bench/analysis.md). */
enum { LINE_COMPACT_AT = 8 };

/* Whether a stream is due for compaction: out of order, and duplicates may have piled up
 * (Xdebug repeats a function for every call). */
static inline int line_compaction_due(const line_store *s) {
    return s->runs > 1 && s->count >= LINE_COMPACT_AT * (uint64_t)s->distinct + 256;
}

/* The most bytes a record of `n` costs takes. */
static inline size_t line_worst_case(size_t n) {
    return 1 + 10 * (4 + n);
}

/* Encodes one record after the stream's last one (room reserved by the caller) and counts
 * the stream's ascending runs. */
ALWAYS_INLINE void line_encode(line_store *s, uint32_t file, uint64_t line, uint64_t addr,
                               const cg_cost *costs, size_t n) {
    unsigned char *start = s->data + s->used, *p = start;
    int new_file = file != s->last_file;
    if (!s->count) {
        s->runs = 1;
    } else if (!(addr > s->last_addr || (addr == s->last_addr && line > s->last_line))) {
        /* the records of one run are distinct: a stream is not compacted before it holds
         * LINE_COMPACT_AT times as many as its first run (a second block of a function adds to
         * them) */
        if (s->runs == 1) s->distinct = s->count;
        s->runs++;
    }
    uint64_t addr_step = addr - s->last_addr, line_step = line - s->last_line;
    if (n == 1 && !new_file && addr_step < LINE_ADDR_STEPS) {
        unsigned code = line_step < LINE_LINE_VARINT ? (unsigned)line_step : LINE_LINE_VARINT;
        int repeat = costs[0] == s->last_cost;
        *p++ = (unsigned char)(addr_step | code << 4 | (repeat ? LINE_REPEAT : 0));
        if (code == LINE_LINE_VARINT) p = put_varint(p, zigzag(line_step));
        if (!repeat) p = put_varint(p, zigzag((uint64_t)costs[0]));
    } else {
        *p++ = (unsigned char)(LINE_LONG | new_file | (n < LINE_K_ESCAPE ? n : LINE_K_ESCAPE) << 1);
        if (n >= LINE_K_ESCAPE) p = put_varint(p, n);
        if (new_file) p = put_varint(p, file);
        p = put_varint(p, zigzag(addr_step));
        p = put_varint(p, zigzag(line_step));
        for (size_t i = 0; i < n; i++) p = put_varint(p, zigzag((uint64_t)costs[i]));
    }
    s->last_cost = n ? costs[0] : 0;
    s->used += (size_t)(p - start);
    s->last_file = file;
    s->last_line = line;
    s->last_addr = addr;
    s->count++;
}

/* The slow paths of line_append: room for `need` more bytes, and a compaction. */
status line_reserve(line_store *s, size_t need, const line_scratch *by);
status line_compact(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch);

/* Appends a record without compacting the stream (line_append's first step). */
ALWAYS_INLINE status append_record(line_store *s, uint32_t file, uint64_t line, uint64_t addr,
                                   const cg_cost *costs, size_t n, const line_scratch *by) {
    while (n && costs[n - 1] == 0) n--;
    if (s->cap - s->used < line_worst_case(n) && line_reserve(s, line_worst_case(n), by))
        return ST_NOMEM;
    if (s->count == UINT32_MAX) return ST_NOMEM;
    line_encode(s, file, line, addr, costs, n);
    return ST_OK;
}
/* Appends a record; `costs` holds `n` costs in event order (more events count as zero).
 * `nraw` is the profile's event count, for compactions. `strings` NULL: the strings may not be
 * read now (another thread adds to them); a compaction then orders the records of one address
 * and line by file id, and line_finish orders them by file name (only when there are any: a
 * stream with no two records at one address and line is final). Sums, the times a compaction
 * runs and the final stream are the same either way. */
ALWAYS_INLINE status append_costs(line_store *s, uint32_t file, uint64_t line, uint64_t addr,
                                  const cg_cost *costs, size_t n, const strtab *strings,
                                  size_t nraw, line_scratch *scratch) {
    if (append_record(s, file, line, addr, costs, n, scratch)) return ST_NOMEM;
    if (line_compaction_due(s)) return line_compact(s, strings, nraw, scratch);
    return ST_OK;
}
ALWAYS_INLINE status line_append(line_store *s, uint32_t file, uint64_t line, uint64_t addr,
                                 const cg_cost *costs, size_t n, const strtab *strings, size_t nraw,
                                 line_scratch *scratch) {
    /* one cost (valgrind's default Ir) by a copy made for it, the count a constant */
    if (n == 1) return append_costs(s, file, line, addr, costs, 1, strings, nraw, scratch);
    return append_costs(s, file, line, addr, costs, n, strings, nraw, scratch);
}
/* line_append without compaction, for a split load's pieces: their streams are as small as
 * their text, and compacted when joined to the model's (line_append_stream). */
ALWAYS_INLINE status line_append_uncompacted(line_store *s, uint32_t file, uint64_t line,
                                             uint64_t addr, const cg_cost *costs, size_t n,
                                             const line_scratch *by) {
    if (n == 1) return append_record(s, file, line, addr, costs, 1, by);
    return append_record(s, file, line, addr, costs, n, by);
}
/* The loader moves on to another function's records: the stream gives back its spare room
 * (callgrind writes most functions in one block, so most streams are complete then), unless it
 * has grown by less than half since the last time. A function that comes back block after
 * block (Xdebug writes one per call) is thus trimmed, and copied when it grows again, at
 * geometric steps only. */
void line_give_back(line_store *s, const line_scratch *by);
/* `by`: the scratch of the thread that leaves the stream, or NULL (the only thread). */
static inline void line_leave(line_store *s, const line_scratch *by) {
    /* less room than this is not worth a realloc */
    enum { MIN_TRIM = 64 };
    if (s->cap - s->used >= MIN_TRIM && s->used >= s->trimmed + (size_t)s->trimmed / 2)
        line_give_back(s, by);
}
/* Brings a stream to its final form (sorted, each position once, no spare room). */
status line_finish(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch);
/* Frees a stream's block: into the heap of `by` when it is one of the regions' and `by` has a
 * heap, else left to the regions, which the profile frees. */
void line_store_free(line_store *s, const line_scratch *by);
/* The scratch of a thread that makes or changes streams of a profile whose blocks are in
 * `regions` (NULL: none) takes a heap of them; line_scratch_free gives it back. */
void line_scratch_lend(line_scratch *scratch, block_regions *regions);
void line_scratch_free(line_scratch *scratch);

/* A split load's lists of blocks to give back, one per thread (NULL when out of memory: blocks
 * are then freed at once); each thread frees those on its own list (line_frees_drain) now and
 * then, and line_frees_free the rest. A stream made by one thread and grown, compacted or
 * trimmed by another (a function in several pieces) gives its old block back to the thread
 * that made it: glibc's free locks the arena of the block's thread, and the two threads waited
 * for each other there. */
line_frees *line_frees_new(size_t threads);
/* Frees the blocks on a thread's list; gives their number. */
size_t line_frees_drain(line_frees *f, unsigned thread);
void line_frees_free(line_frees *f, size_t threads);
/* Bytes held by a stream, for cg_profile_bytes. */
size_t line_store_bytes(const line_store *s);

/* Reading: records in stream order, `costs` filled up to `nraw`. */
typedef struct line_reader {
    const unsigned char *data;
    size_t pos;
    uint32_t remaining;
    uint32_t file;
    uint64_t line, addr;
    cg_cost first; /* the last record's first cost */
} line_reader;

void line_reader_init(line_reader *r, const line_store *s);
int line_reader_next(line_reader *r, cg_cost *costs, size_t nraw);
/* Sums the next records while they lie in the file of the first (with `by_line`, on its line
 * too) into `sum` (nraw costs, zeroed first), their number into *records; r->file and r->line
 * are then the run's (the line of its last record). Returns 0 when no record is left, -1 when
 * a sum does not fit in 64 bits (the run is read all the same), else 1. The report's sums per
 * file and per line read runs, not records: instructions come a line, a file at a time. */
int line_reader_run(line_reader *r, cg_cost *sum, size_t nraw, int by_line, uint32_t *records);
/* What line_store_scan finds: whether every record lies on one (file, line), which. */
typedef struct line_span {
    uint32_t count; /* records */
    int one_line;   /* all of them on (file, line) */
    uint32_t file;  /* the first record's */
    uint64_t line;  /* the first record's */
} line_span;

/* Walks a stream decoding only files and lines (addresses and costs are stepped over by
 * counting the bytes that end varints): calls file_seen(ctx, file) for the first record and
 * at every change of file (stopping with -1 when it returns non-zero), and fills *span. */
int line_store_scan(const line_store *s, int (*file_seen)(void *ctx, uint32_t file), void *ctx,
                    line_span *span);

/* Appends the records of `from` (made by line_append or line_append_uncompacted from an
 * empty stream, with strings NULL, on the thread of `scratch`) after those of `s`, with the final
 * stream line_append would give them one by one; `from` is emptied. Into an empty stream `from` is
 * moved, compacted first when out of order; otherwise joined by a copy, and compacted with this
 * stream's records by line_append's rule. `row` holds `nraw` costs (scratch). */
status line_append_stream(line_store *s, line_store *from, const strtab *strings, size_t nraw,
                          line_scratch *scratch, cg_cost *row);

#pragma GCC visibility pop

#endif
