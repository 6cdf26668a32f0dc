/* lines.h - the line and instruction cost records of one function, stored compactly.
 *
 * Records are appended as they are read, each encoded relative to the function's previous one
 * (a header byte, the file when it changes, zigzag varints of the address and line steps, and
 * the costs up to the last nonzero one), in chunks of growing size. While the records arrive in
 * strictly increasing (address, line) order — callgrind writes a function's instructions in
 * address order — the stream is already final: sorted, with no position twice. Otherwise it is
 * compacted: decoded, equal positions summed, sorted by (address, line, file name), encoded
 * again. Compaction also runs while loading, when a stream has grown to four times its last
 * compacted size, so that memory follows the distinct positions, not the input's lines. */
#ifndef CG_LINES_H
#define CG_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"
#include "strtab.h"

typedef struct line_chunk line_chunk;

typedef struct line_store {
    line_chunk *head, *tail;
    uint32_t count;    /* records in the stream */
    uint32_t distinct; /* records after the last compaction */
    int sorted;        /* strictly increasing (address, line) so far */
    uint32_t last_file;
    uint64_t last_line, last_addr;
} line_store;

/* Scratch space for compactions, reused from one to the next. */
typedef struct line_scratch {
    void *mem;
    size_t cap;
    uint64_t seed; /* of the compaction's hash table */
} line_scratch;

enum { LINES_OK = 0, LINES_NOMEM = -1, LINES_OVERFLOW = -2 };

/* Appends a record; `costs` holds `n` costs in event order (more events count as zero).
 * `nraw` is the profile's event count, for compactions. */
int line_append(line_store *s, uint32_t file, uint64_t line, uint64_t addr, const cg_cost *costs,
                size_t n, const strtab *strings, size_t nraw, line_scratch *scratch);
/* Brings a stream to its final form (sorted, each position once). */
int line_finish(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch);
void line_store_free(line_store *s);
void line_scratch_free(line_scratch *scratch);
/* Bytes held by a stream. */
size_t line_store_bytes(const line_store *s);

/* Reading: records in stream order, `costs` filled up to `nraw`. */
typedef struct line_reader {
    const line_chunk *chunk;
    size_t pos;
    uint32_t remaining;
    uint32_t file;
    uint64_t line, addr;
} line_reader;

void line_reader_init(line_reader *r, const line_store *s);
int line_reader_next(line_reader *r, cg_cost *costs, size_t nraw);

#endif
