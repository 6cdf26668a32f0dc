/* test_arena.c - the strings' bump allocator (arena.h) over its growing chunks, and the large
 * blocks it and the streams' regions are mapped in (pages.h), and the growth of vectors into them
 * (vec.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ctest.h"
#include "pages.h"
#include "vec.h"

int main(void) {
    arena a;
    arena_init(&a);
    /* the first chunk is 64 KiB; small blocks follow each other in it, aligned */
    char *x = arena_alloc(&a, 10), *y = arena_alloc(&a, 1);
    CHECK(x && y);
    CHECK_INT(64 << 10, a.allocated);
    CHECK(y == x + sizeof(max_align_t));
    CHECK_INT(0, (uintptr_t)y % sizeof(max_align_t));
    /* a block that fits the chunk follows; one that does not opens a chunk of twice the size,
     * unless it is more than a quarter of that: then it gets a chunk of its own, and the small
     * ones go on where they were */
    char *fits = arena_alloc(&a, 40 << 10);
    CHECK(fits == y + sizeof(max_align_t));
    char *next = arena_alloc(&a, 30 << 10);
    CHECK(next != NULL);
    CHECK_INT((64 << 10) + (128 << 10), a.allocated);
    char *own = arena_alloc(&a, 100 << 10);
    CHECK(own != NULL);
    CHECK(arena_alloc(&a, 1) == next + (30 << 10));
    /* small blocks fill chunks of 64, 128 and 256 KiB, then of 2 MiB (a whole huge page, not
     * 512 KiB and 1 MiB), then 4 MiB */
    arena grow;
    arena_init(&grow);
    size_t seen[8], nseen = 0, last = 0;
    while (nseen < 5 && arena_alloc(&grow, 1024)) {
        if (grow.allocated != last && nseen < 8) seen[nseen++] = grow.allocated - last;
        last = grow.allocated;
    }
    CHECK_INT(5, nseen);
    CHECK_INT(64 << 10, seen[0]);
    CHECK_INT(128 << 10, seen[1]);
    CHECK_INT(256 << 10, seen[2]);
    CHECK_INT(2 << 20, seen[3]);
    CHECK_INT(4 << 20, seen[4]);
    arena_free(&grow);
    /* many blocks: each keeps what was written to it, the chunks doubling up to 4 MiB */
    enum { N = 200000 };
    unsigned char **blocks = malloc(N * sizeof *blocks);
    size_t *sizes = malloc(N * sizeof *sizes);
    CHECK(blocks && sizes);
    uint64_t r = 7;
    for (size_t i = 0; i < N; i++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        sizes[i] = (r >> 40) % (i % 1000 == 0 ? 300000 : 200) + 1;
        blocks[i] = arena_alloc(&a, sizes[i]);
        if (!blocks[i]) break;
        memset(blocks[i], (int)(i % 251), sizes[i]);
    }
    int bad = 0;
    for (size_t i = 0; i < N; i++)
        if (!blocks[i] || blocks[i][0] != i % 251 || blocks[i][sizes[i] - 1] != i % 251) bad = 1;
    CHECK_INT(0, bad);
    CHECK(a.allocated > 20u << 20);
    CHECK(a.chunk_bytes == 4u << 20);
    free(blocks);
    free(sizes);
    arena_free(&a);
    CHECK_INT(0, a.allocated);
    CHECK(a.head == NULL);

    /* pages: from 2 MiB on aligned to 2 MiB */
    char *p = pages_alloc(3 << 20);
    CHECK(p != NULL);
    CHECK_INT(0, (uintptr_t)p % PAGES_HUGE);
    p[0] = 1;
    p[(3 << 20) - 1] = 2;
    pages_free(p, 3 << 20);
    char *q = pages_alloc(100);
    CHECK(q != NULL);
    q[99] = 3;
    pages_free(q, 100);
    /* a size to map: from 512 KiB up to 2 MiB, a whole huge page */
    CHECK_INT(256 << 10, pages_round(256 << 10));
    CHECK_INT(2 << 20, pages_round(512 << 10));
    CHECK_INT(2 << 20, pages_round((2 << 20) - 1));
    CHECK_INT(3 << 20, pages_round(3 << 20));
    /* blocks of malloc's: from 512 KiB on aligned to 2 MiB, given back by free, grown by realloc */
    char *b = pages_buffer(600 << 10);
    CHECK(b != NULL);
    CHECK_INT(0, (uintptr_t)b % PAGES_HUGE);
    memset(b, 4, 600 << 10);
    char *grown = realloc(b, 5 << 20);
    CHECK(grown != NULL);
    CHECK(grown[0] == 4 && grown[(600 << 10) - 1] == 4);
    free(grown);
    char *small = pages_buffer(100);
    CHECK(small != NULL);
    small[99] = 5;
    free(small);
    /* a vector grows by realloc below 512 KiB, then into whole huge pages, its elements kept */
    uint32_t *v = NULL;
    size_t cap = 0;
    CHECK_INT(0, VEC_RESERVE(v, cap, 1000));
    CHECK_INT(1000, cap);
    for (uint32_t i = 0; i < 1000; i++) v[i] = i;
    CHECK_INT(0, VEC_RESERVE(v, cap, 200000));
    CHECK_INT((2 << 20) / sizeof *v, cap);
    CHECK_INT(0, (uintptr_t)v % PAGES_HUGE);
    CHECK(v[0] == 0 && v[999] == 999);
    v[cap - 1] = 7;
    CHECK_INT(0, VEC_RESERVE(v, cap, cap + 1));
    CHECK_INT((4 << 20) / sizeof *v, cap);
    CHECK(v[999] == 999 && v[(2 << 20) / sizeof *v - 1] == 7);
    CHECK_INT(0, VEC_RESERVE(v, cap, cap));
    CHECK_INT(-1, VEC_RESERVE(v, cap, SIZE_MAX / 2));
    CHECK(v[999] == 999);
    free(v);
    return ctest_report("test_arena");
}
