/* lines.h - the line and instruction cost records of one function, stored compactly.
 *
 * Records are appended as they are read, each encoded relative to the function's previous one
 * (a header byte, the file when it changes, zigzag varints of the address and line steps, and
 * the costs up to the last nonzero one), in one buffer per function that grows by half its size
 * and is trimmed to its exact size when loading ends. While the records arrive in strictly
 * increasing (address, line) order — callgrind writes a function's instructions in address
 * order — the stream is already final: sorted, with no position twice. Otherwise it is
 * compacted: decoded, equal positions summed, sorted by (address, line, file name), encoded
 * again. Compaction also runs while loading, when a stream has grown to four times its last
 * compacted size, so that memory follows the distinct positions, not the input's lines. */
#ifndef CG_LINES_H
#define CG_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"
#include "status.h"
#include "strtab.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct line_store {
    unsigned char *data;
    size_t used, cap;  /* bytes */
    size_t trimmed;    /* bytes when the spare room was last given back */
    uint32_t count;    /* records in the stream */
    uint32_t distinct; /* records after the last compaction */
    uint32_t last_file;
    int sorted;     /* strictly increasing (address, line) so far */
    int ties_by_id; /* compacted with records at one position in file id order (see below) */
    uint64_t last_line, last_addr;
} line_store;

/* Scratch space for compactions, reused from one to the next. */
typedef struct line_scratch {
    void *mem;
    size_t cap;
    uint64_t seed; /* of the compaction's hash table */
} line_scratch;

/* Appends a record; `costs` holds `n` costs in event order (more events count as zero).
 * `nraw` is the profile's event count, for compactions. `strings` NULL: the strings may not be
 * read now (another thread adds to them); a compaction then orders the records of one address
 * and line by file id, and line_finish orders them by file name. Sums, the times a compaction
 * runs and the final stream are the same either way. */
status line_append(line_store *s, uint32_t file, uint64_t line, uint64_t addr, const cg_cost *costs,
                   size_t n, const strtab *strings, size_t nraw, line_scratch *scratch);
/* The loader moves on to another function's records: the stream gives back its spare room
 * (callgrind writes most functions in one block, so most streams are complete then), unless it
 * has grown by less than half since the last time. A function that comes back block after
 * block (Xdebug writes one per call) is thus trimmed, and copied when it grows again, at
 * geometric steps only. */
void line_give_back(line_store *s);
static inline void line_leave(line_store *s) {
    /* less room than this is not worth a realloc */
    enum { MIN_TRIM = 64 };
    if (s->cap - s->used >= MIN_TRIM && s->used >= s->trimmed + s->trimmed / 2) line_give_back(s);
}
/* Brings a stream to its final form (sorted, each position once, no spare room). */
status line_finish(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch);
void line_store_free(line_store *s);
void line_scratch_free(line_scratch *scratch);
/* Bytes held by a stream, for cg_profile_bytes. */
size_t line_store_bytes(const line_store *s);

/* Reading: records in stream order, `costs` filled up to `nraw`. */
typedef struct line_reader {
    const unsigned char *data;
    size_t pos;
    uint32_t remaining;
    uint32_t file;
    uint64_t line, addr;
} line_reader;

void line_reader_init(line_reader *r, const line_store *s);
int line_reader_next(line_reader *r, cg_cost *costs, size_t nraw);
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

/* Appends the records of `from` (made by line_append from an empty stream, with strings
 * NULL) after those of `s`, with the final stream line_append would give them one by one;
 * `from` is emptied. Two sorted streams in order are joined by a copy. `row` holds `nraw`
 * costs (scratch). */
status line_append_stream(line_store *s, line_store *from, const strtab *strings, size_t nraw,
                          line_scratch *scratch, cg_cost *row);

#pragma GCC visibility pop

#endif
