/* vec.h - growth of the profile's record arrays with overflow-checked sizes. */
#ifndef CG_VEC_H
#define CG_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* A vector of `bytes` (PAGES_HINTED or more) grown into a new block of whole huge pages, `used`
 * bytes copied from `old`, which is freed; *bytes becomes the block's size; NULL when out of
 * memory. realloc copies into a new block at nearly every step, faulted in 4 KiB pages: on 50,000
 * functions of a few records each, more than half of the load's page faults (7-17 us each on the
 * benchmarks' machine) were the functions' arrays growing. */
static inline void *vec_grow_in_pages(void *old, size_t used, size_t *bytes) {
    size_t whole = pages_whole(*bytes);
    void *p = whole ? pages_buffer(whole) : NULL;
    if (!p) return NULL;
    if (old) memcpy(p, old, used);
    free(old);
    *bytes = whole;
    return p;
}

/* *data given room for `n` elements (n * elsize does not overflow), the first `used` kept: by
 * realloc below PAGES_HINTED bytes, else in whole huge pages (*cap up to their end). 0, or -1
 * when out of memory, *data then unchanged. */
static inline int vec_resize(void **data, size_t *cap, size_t n, size_t used, size_t elsize) {
    size_t bytes = n * elsize;
    void *p = bytes < PAGES_HINTED ? realloc(*data, bytes)
                                   : vec_grow_in_pages(*data, used * elsize, &bytes);
    if (!p) return -1;
    *data = p;
    *cap = bytes / elsize;
    return 0;
}

/* Makes room for `need` elements of `elsize` bytes in *data (capacity *cap, grown by 1.5x, from
 * PAGES_HINTED bytes on to the end of a huge page). Returns 0, or -1 when out of memory or the
 * size overflows; *data is unchanged on failure. */
static inline int vec_reserve(void **data, size_t *cap, size_t need, size_t elsize) {
    if (need <= *cap) return 0;
    size_t n = *cap < 16 ? 16 : *cap + *cap / 2;
    if (n < need) n = need;
    if (n > SIZE_MAX / elsize) return -1;
    return vec_resize(data, cap, n, *cap, elsize);
}

#define VEC_RESERVE(arr, cap, need) vec_reserve((void **)&(arr), &(cap), (need), sizeof *(arr))

/* vec_reserve for an array written in order from the front, `used` elements so far: from
 * PAGES_HINTED bytes on it grows to APPEND_GROWTH times its capacity, of which only the pages
 * written are ever faulted in, and only the `used` elements are copied. Each growth by half
 * copied the array into fresh pages: on a profile of 500,000 functions, 177 MB copied into
 * memory the kernel cleared for it, about a sixth of the pages of a load. The load shrinks
 * the arrays it keeps to their size when it ends (builder_finish); where the larger block
 * cannot be had, the array grows by half as vec_reserve grows it. */
enum { APPEND_GROWTH = 8 };
static inline int vec_reserve_append(void **data, size_t *cap, size_t used, size_t need,
                                     size_t elsize) {
    if (need <= *cap) return 0;
    size_t n = *cap <= SIZE_MAX / APPEND_GROWTH ? *cap * APPEND_GROWTH : SIZE_MAX;
    if (n < need) n = need;
    if (*cap * elsize >= PAGES_HINTED && n <= SIZE_MAX / elsize &&
        !vec_resize(data, cap, n, used, elsize))
        return 0;
    return vec_reserve(data, cap, need, elsize);
}

#define VEC_APPEND_RESERVE(arr, cap, used)                                                         \
    vec_reserve_append((void **)&(arr), &(cap), (used), (used) + 1, sizeof *(arr))

/* Makes room for `need` elements in one of several arrays that share a count of elements: each
 * grows by its own bytes (from PAGES_HINTED on to whole huge pages), so arrays of wider elements
 * end up holding more; `shared` is what all of them hold, the capacity they were grown from, and
 * *least (start it at SIZE_MAX) becomes the least of what they hold after, the next shared
 * capacity. 0, or -1 as vec_reserve. */
static inline int vec_reserve_shared(void **data, size_t shared, size_t need, size_t elsize,
                                     size_t *least) {
    size_t cap = shared;
    if (vec_reserve(data, &cap, need, elsize)) return -1;
    if (cap < *least) *least = cap;
    return 0;
}

#define VEC_RESERVE_SHARED(arr, shared, need, least)                                               \
    vec_reserve_shared((void **)&(arr), (shared), (need), sizeof *(arr), &(least))

/* `n` zeroed elements of `elsize` bytes (at least one byte), written now; NULL when out of
 * memory or the size overflows. For arrays read before they are written (sums, hash tables):
 * calloc leaves a large block's fresh pages unwritten, a read maps them to the kernel's shared
 * zero page, and the first write to each then faults again and, while another thread of the
 * load runs, interrupts that thread's core to flush its TLB (gcc's profile on two threads:
 * about 30 ms of a 0.35 s load in the inclusive costs and the hash indexes). */
static inline void *zeroed_array(size_t n, size_t elsize) {
    if (elsize && n > SIZE_MAX / elsize) return NULL;
    size_t bytes = n * elsize;
    if (!bytes) bytes = 1;
    void *p = pages_buffer(bytes);
    if (!p) return NULL;
    /* without this, pages_buffer's malloc inlined (link-time), malloc and memset become a
     * calloc again */
    __asm__ volatile("" : : "r"(p) : "memory");
    memset(p, 0, bytes);
    return p;
}

#pragma GCC visibility pop

#endif
