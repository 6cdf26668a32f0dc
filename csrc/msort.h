/* msort.h - the core's one sort: a stable natural merge sort, without recursion. The ascending
 * runs already in the array (a function's instructions come in address order within each
 * block, a writer's records mostly sorted) are merged pairwise, so k sorted runs cost
 * n log k. A macro, so that each use compares inline. */
#ifndef CG_MSORT_H
#define CG_MSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md): what the
 * macro defines is static anyway. */
#pragma GCC visibility push(hidden)

/* Defines `static void NAME(CTX ctx, TYPE *v, TYPE *tmp, uint32_t *bounds, size_t n)`, which
 * sorts v[0..n) using tmp (n elements) and bounds (n + 1 entries); BEFORE(ctx, a, b), given
 * pointers to two elements, is true when *a goes strictly before *b. */
#define DEFINE_MERGE_SORT(NAME, TYPE, CTX, BEFORE)                                                 \
    static void NAME(CTX ctx, TYPE *v, TYPE *tmp, uint32_t *bounds, size_t n) {                    \
        if (n < 2) return;                                                                         \
        size_t runs = 0;                                                                           \
        bounds[runs++] = 0;                                                                        \
        for (size_t i = 1; i < n; i++)                                                             \
            if (BEFORE(ctx, &v[i], &v[i - 1])) bounds[runs++] = (uint32_t)i;                       \
        bounds[runs] = (uint32_t)n;                                                                \
        TYPE *src = v, *dst = tmp;                                                                 \
        while (runs > 1) {                                                                         \
            size_t merged = 0;                                                                     \
            for (size_t r = 0; r < runs; r += 2) {                                                 \
                /* bounds[runs] == n, so bounds[r + 1] always exists */                            \
                size_t lo = bounds[r], mid = bounds[r + 1];                                        \
                size_t hi = r + 2 <= runs ? bounds[r + 2] : mid;                                   \
                size_t i = lo, j = mid, k = lo;                                                    \
                while (i < mid && j < hi)                                                          \
                    dst[k++] = BEFORE(ctx, &src[j], &src[i]) ? src[j++] : src[i++];                \
                while (i < mid) dst[k++] = src[i++];                                               \
                while (j < hi) dst[k++] = src[j++];                                                \
                bounds[merged++] = (uint32_t)lo;                                                   \
            }                                                                                      \
            bounds[merged] = (uint32_t)n;                                                          \
            runs = merged;                                                                         \
            TYPE *t = src;                                                                         \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != v) memcpy(v, src, n * sizeof *v);                                               \
    }

#pragma GCC visibility pop

#endif
