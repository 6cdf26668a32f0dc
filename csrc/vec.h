/* vec.h - growth of the profile's record arrays with overflow-checked sizes. */
#ifndef CG_VEC_H
#define CG_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* Makes room for `need` elements of `elsize` bytes in *data (capacity *cap, grown by 1.5x).
 * Returns 0, or -1 when out of memory or the size overflows; *data is unchanged on failure. */
static inline int vec_reserve(void **data, size_t *cap, size_t need, size_t elsize) {
    if (need <= *cap) return 0;
    size_t n = *cap < 16 ? 16 : *cap + *cap / 2;
    if (n < need) n = need;
    if (n > SIZE_MAX / elsize) return -1;
    void *p = realloc(*data, n * elsize);
    if (!p) return -1;
    *data = p;
    *cap = n;
    return 0;
}

#define VEC_RESERVE(arr, cap, need) vec_reserve((void **)&(arr), &(cap), (need), sizeof *(arr))

#pragma GCC visibility pop

#endif
