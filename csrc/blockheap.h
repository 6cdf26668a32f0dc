/* blockheap.h - the blocks of a profile's line streams.
 *
 * A stream's block grows, moves and shrinks many times in a load (lines.c), and each new page
 * of it is a page fault: 4 KiB at a time from malloc's heap. The profile keeps its blocks in
 * regions of its own instead, the large ones mapped in 2 MiB pages where the kernel lends them
 * (transparent huge pages, asked for with madvise): a fault per 2 MiB rather than per 4 KiB.
 * On this project's two-core virtual machine a 4 KiB fault costs about 7 us, and a load of
 * instr-100 made 13,766 of them, a sixth of its time.
 *
 * Blocks come in size classes (four per power of two, 64 bytes to 1 MiB; larger ones from
 * malloc). A thread allocates from and frees into a heap it has borrowed from the profile's
 * regions (block_heap_take): its own free lists and the region it carves from, so no lock is
 * taken for a block. A block freed by a thread other than the one that made it goes to the
 * freeing thread's lists: the regions belong to the profile, not to a heap, and all go at once
 * when the profile is freed. A block given back with no heap at hand stays unused until then. */
#ifndef CG_BLOCKHEAP_H
#define CG_BLOCKHEAP_H

#include <stddef.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct block_regions block_regions;
typedef struct block_heap block_heap;

/* The largest block a heap gives; larger ones are the caller's to malloc. */
enum { BLOCK_HEAP_MAX = 1 << 20 };

/* A profile's regions: NULL when out of memory. */
block_regions *block_regions_new(void);
/* Unmaps every region (every block of every heap goes) and frees the heaps. */
void block_regions_free(block_regions *r);
/* Bytes of the regions carved into blocks (in use or free), and all of a region a heap lent
 * at the time carves from. */
size_t block_regions_bytes(block_regions *r);

/* A heap for one thread, kept with its free lists for the next thread when given back; NULL
 * when out of memory. Thread-safe. */
block_heap *block_heap_take(block_regions *r);
void block_heap_give(block_heap *h);

/* The bytes of the block block_heap_alloc gives for `bytes` (at most BLOCK_HEAP_MAX). */
size_t block_heap_size(size_t bytes);
/* A block of block_heap_size(bytes) bytes, or NULL when out of memory. */
void *block_heap_alloc(block_heap *h, size_t bytes);
/* Gives back a block of `size` bytes (block_heap_size of what was asked) made by any heap of
 * the same regions. */
void block_heap_free(block_heap *h, void *block, size_t size);

#pragma GCC visibility pop

#endif
