/* pages.h - large blocks of memory that live as long as a profile (its line streams' regions,
 * its strings), mapped on their own, and from 2 MiB on aligned to 2 MiB and asked for in huge
 * pages (transparent huge pages, madvise): where the kernel lends them, one page fault per
 * 2 MiB instead of one per 4 KiB, 7-13 us each on the benchmarks' machine. */
#ifndef CG_PAGES_H
#define CG_PAGES_H

#include <stddef.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* PAGES_HINTED: the size from which pages_hint and pages_buffer ask for huge pages; a block of a
 * quarter of one is held as a whole 2 MiB once written, and faults once rather than 128 times. */
enum { PAGES_HUGE = 2 << 20, PAGES_HINTED = PAGES_HUGE / 4 };

/* `bytes` of memory, or NULL when out of memory (where mappings cannot be made, malloc's);
 * pages_free gives it back. */
void *pages_alloc(size_t bytes);
void pages_free(void *mem, size_t bytes);

/* The bytes to ask pages_alloc for when at least `bytes` are wanted and more may be used: from
 * PAGES_HINTED up to PAGES_HUGE, a whole huge page (one fault rather than up to 512). */
static inline size_t pages_round(size_t bytes) {
    return bytes >= PAGES_HINTED && bytes < PAGES_HUGE ? PAGES_HUGE : bytes;
}

/* The bytes of the whole huge pages that hold `bytes`; 0 when that does not fit a size_t. */
static inline size_t pages_whole(size_t bytes) {
    size_t whole = (bytes + PAGES_HUGE - 1) & ~(size_t)(PAGES_HUGE - 1);
    return whole < bytes ? 0 : whole;
}

/* Asks for huge pages on the pages that hold `bytes` from `mem`, a block of malloc's of
 * PAGES_HINTED or more (less: nothing), before they are written. A hint: glibc maps blocks that
 * large on their own, so it covers the block's mapping (which realloc moves whole); on malloc's
 * heap it marks that part of the heap's mapping. */
void pages_hint(void *mem, size_t bytes);

/* A block of malloc's of `bytes` (free() gives it back, realloc grows it) that from PAGES_HINTED
 * on begins on a 2 MiB boundary and has the hint: a chunk of text the reader fills, an array
 * written at once, whose first 2 MiB would otherwise straddle two huge pages and fault in 4 KiB at
 * a time. NULL when out of memory. */
void *pages_buffer(size_t bytes);

#pragma GCC visibility pop

#endif
