/* blockheap.c - a profile's regions of line stream blocks (see blockheap.h). */
#include "blockheap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "vec.h"

/* Classes: (64 + 16 k) << s bytes, k in 0..3, 64 bytes to BLOCK_HEAP_MAX. A heap's regions
 * start small (a profile of a few functions maps 64 KiB) and double up to MAX_REGION, from
 * 256 KiB straight to 2 MiB (pages_round); from 2 MiB on they come in huge pages where the
 * kernel lends them (pages.h). */
enum { MIN_CLASS_BYTES = 64, CLASSES = 57, FIRST_REGION = 64 << 10, MAX_REGION = 8 << 20 };

typedef struct region {
    char *base; /* pages_alloc's */
    size_t bytes;
} region;

struct block_heap {
    block_regions *owner;
    void *free[CLASSES]; /* each block's first bytes link it to the next */
    char *next, *end;    /* the part of the last region not yet carved */
    size_t region_bytes; /* of the next region */
    int lent;
};

struct block_regions {
    pthread_mutex_t mu;
    region *regions;
    size_t nregions, regions_cap, bytes;
    block_heap **heaps;
    size_t nheaps, heaps_cap;
};

static inline size_t class_bytes(unsigned cls) {
    return (size_t)(MIN_CLASS_BYTES + MIN_CLASS_BYTES / 4 * (cls % 4)) << (cls / 4);
}

/* The smallest class of at least `bytes` (at most BLOCK_HEAP_MAX). */
static inline unsigned class_of(size_t bytes) {
    if (bytes <= MIN_CLASS_BYTES) return 0;
    size_t b = bytes - 1; /* the class must be above b */
    unsigned shift = (unsigned)(63 - __builtin_clzll((unsigned long long)b)) - 6;
    size_t top = b >> shift; /* 64..127 */
    return 4 * shift + (unsigned)((top - MIN_CLASS_BYTES) / (MIN_CLASS_BYTES / 4)) + 1;
}

/* The largest class of at most `bytes` (at least MIN_CLASS_BYTES). */
static inline unsigned class_within(size_t bytes) {
    unsigned c = class_of(bytes);
    return class_bytes(c) > bytes ? c - 1 : c;
}

size_t block_heap_size(size_t bytes) {
    return class_bytes(class_of(bytes));
}

block_regions *block_regions_new(void) {
    block_regions *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    if (pthread_mutex_init(&r->mu, NULL)) {
        free(r);
        return NULL;
    }
    return r;
}

void block_regions_free(block_regions *r) {
    if (!r) return;
    for (size_t i = 0; i < r->nregions; i++) pages_free(r->regions[i].base, r->regions[i].bytes);
    for (size_t i = 0; i < r->nheaps; i++) free(r->heaps[i]);
    free(r->regions);
    free(r->heaps);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

size_t block_regions_bytes(block_regions *r) {
    pthread_mutex_lock(&r->mu);
    size_t n = r->bytes;
    /* less the room a heap has not carved yet (never touched), known of the heaps given back:
     * a heap lent is another thread's to change */
    for (size_t i = 0; i < r->nheaps; i++)
        if (!r->heaps[i]->lent) n -= (size_t)(r->heaps[i]->end - r->heaps[i]->next);
    pthread_mutex_unlock(&r->mu);
    return n;
}

block_heap *block_heap_take(block_regions *r) {
    block_heap *h = NULL;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->nheaps && !h; i++)
        if (!r->heaps[i]->lent) h = r->heaps[i];
    if (!h && !VEC_RESERVE(r->heaps, r->heaps_cap, r->nheaps + 1) && (h = calloc(1, sizeof *h))) {
        h->owner = r;
        h->region_bytes = FIRST_REGION;
        r->heaps[r->nheaps++] = h;
    }
    if (h) h->lent = 1;
    pthread_mutex_unlock(&r->mu);
    return h;
}

void block_heap_give(block_heap *h) {
    if (!h) return;
    pthread_mutex_lock(&h->owner->mu);
    h->lent = 0;
    pthread_mutex_unlock(&h->owner->mu);
}

static inline void push(block_heap *h, unsigned cls, void *block) {
    memcpy(block, &h->free[cls], sizeof(void *));
    h->free[cls] = block;
}

static inline void *pop(block_heap *h, unsigned cls) {
    void *block = h->free[cls];
    if (block) memcpy(&h->free[cls], block, sizeof(void *));
    return block;
}

/* Cuts [from, end) into blocks of the free lists, the largest classes first. */
static void carve_free(block_heap *h, char *from, const char *end) {
    while (end - from >= MIN_CLASS_BYTES) {
        unsigned cls = class_within((size_t)(end - from));
        push(h, cls, from);
        from += class_bytes(cls);
    }
}

/* The rest of the last region goes to the free lists; a new region of at least `bytes` is
 * carved next. -1 when out of memory. */
static int new_region(block_heap *h, size_t bytes) {
    carve_free(h, h->next, h->end);
    size_t size = h->region_bytes;
    while (size < bytes) size *= 2;
    size = pages_round(size);
    char *mem = pages_alloc(size);
    if (!mem) return -1;
    block_regions *r = h->owner;
    pthread_mutex_lock(&r->mu);
    int rc = VEC_RESERVE(r->regions, r->regions_cap, r->nregions + 1);
    if (!rc) {
        r->regions[r->nregions++] = (region){mem, size};
        r->bytes += size;
    }
    pthread_mutex_unlock(&r->mu);
    if (rc) {
        pages_free(mem, size);
        return -1;
    }
    h->next = mem;
    h->end = mem + size;
    if (h->region_bytes < size) h->region_bytes = size;
    if (h->region_bytes < MAX_REGION) h->region_bytes *= 2;
    return 0;
}

void *block_heap_alloc(block_heap *h, size_t bytes) {
    unsigned cls = class_of(bytes);
    void *block = pop(h, cls);
    if (block) return block;
    /* a free block of a larger class, up to four times the size, split: blocks are never
     * joined again, and a stream's old blocks, each of the size it had, would otherwise wait
     * for a stream of just that size */
    for (unsigned c = cls + 1; c < CLASSES && c <= cls + 8; c++) {
        if (!(block = pop(h, c))) continue;
        carve_free(h, (char *)block + class_bytes(cls), (char *)block + class_bytes(c));
        return block;
    }
    size_t size = class_bytes(cls);
    if ((size_t)(h->end - h->next) < size && new_region(h, size)) return NULL;
    block = h->next;
    h->next += size;
    return block;
}

void block_heap_free(block_heap *h, void *block, size_t size) {
    if (block) push(h, class_of(size), block);
}
