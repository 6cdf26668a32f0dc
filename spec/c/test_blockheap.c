/* test_blockheap.c - the regions of line stream blocks (blockheap.h): size classes, blocks
 * that do not overlap however many regions they take, freed blocks used again, heaps lent and
 * given back, and two threads allocating and freeing at once. */
#include "blockheap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "ctest.h"

enum { BLOCKS = 3000 };

/* Fills many blocks of many sizes, each with a pattern of its own, and checks every pattern
 * afterwards: a block that overlapped another would hold the other's. */
static int fill_and_check(block_heap *h, unsigned seed) {
    static __thread void *blocks[BLOCKS];
    static __thread size_t sizes[BLOCKS];
    int bad = 0;
    uint64_t x = seed;
    for (size_t i = 0; i < BLOCKS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t want = (x >> 33) % (i % 100 == 0 ? BLOCK_HEAP_MAX : 5000) + 1;
        sizes[i] = block_heap_size(want);
        blocks[i] = block_heap_alloc(h, want);
        if (!blocks[i]) return 1;
        memset(blocks[i], (int)(i % 251), sizes[i]);
        if (i % 3 == 0) { /* some freed at once, their room used again */
            block_heap_free(h, blocks[i], sizes[i]);
            blocks[i] = NULL;
        }
    }
    for (size_t i = 0; i < BLOCKS; i++) {
        if (!blocks[i]) continue;
        const unsigned char *b = blocks[i];
        if (b[0] != i % 251 || b[sizes[i] - 1] != i % 251 || b[sizes[i] / 2] != i % 251) bad = 1;
        block_heap_free(h, blocks[i], sizes[i]);
    }
    return bad;
}

typedef struct job {
    block_regions *r;
    unsigned seed;
    int bad;
} job;

static void *thread_main(void *arg) {
    job *j = arg;
    block_heap *h = block_heap_take(j->r);
    j->bad = !h || fill_and_check(h, j->seed) || fill_and_check(h, j->seed + 1);
    block_heap_give(h);
    return NULL;
}

int main(void) {
    /* classes: four per power of two from 64 bytes */
    CHECK_INT(64, block_heap_size(1));
    CHECK_INT(64, block_heap_size(64));
    CHECK_INT(80, block_heap_size(65));
    CHECK_INT(112, block_heap_size(100));
    CHECK_INT(128, block_heap_size(113));
    CHECK_INT(160, block_heap_size(129));
    CHECK_INT(5 << 10, block_heap_size(4097));
    CHECK_INT(BLOCK_HEAP_MAX, block_heap_size(BLOCK_HEAP_MAX));
    CHECK_INT(BLOCK_HEAP_MAX, block_heap_size(BLOCK_HEAP_MAX - 1));
    for (size_t n = 1; n <= 70000; n++) {
        size_t c = block_heap_size(n);
        if (c < n || c > n + n / 4 + 63) {
            CHECK(c >= n && c <= n + n / 4 + 63);
            break;
        }
    }

    /* the bytes held: a lent heap's whole region, a heap given back what it carved */
    block_regions *small = block_regions_new();
    block_heap *h = block_heap_take(small);
    CHECK(block_heap_alloc(h, 300) != NULL);
    CHECK_INT(64 << 10, block_regions_bytes(small));
    block_heap_give(h);
    CHECK_INT(block_heap_size(300), block_regions_bytes(small));
    block_regions_free(small);

    /* regions of 64, 128 and 256 KiB, then 2 MiB (a whole huge page, not 512 KiB), 4 MiB */
    block_regions *grown = block_regions_new();
    block_heap *g = block_heap_take(grown);
    size_t steps[8], nsteps = 0, held = 0;
    while (nsteps < 5 && block_heap_alloc(g, 4000)) {
        size_t now = block_regions_bytes(grown);
        if (now != held) steps[nsteps++] = now - held;
        held = now;
    }
    CHECK_INT(5, nsteps);
    CHECK_INT(64 << 10, steps[0]);
    CHECK_INT(128 << 10, steps[1]);
    CHECK_INT(256 << 10, steps[2]);
    CHECK_INT(2 << 20, steps[3]);
    CHECK_INT(4 << 20, steps[4]);
    block_heap_give(g);
    block_regions_free(grown);

    block_regions *r = block_regions_new();
    CHECK(r != NULL);
    CHECK_INT(0, block_regions_bytes(r));
    block_heap *a = block_heap_take(r), *b = block_heap_take(r);
    CHECK(a && b && a != b);
    /* a freed block is the next one of its class */
    void *x = block_heap_alloc(a, 300), *y = block_heap_alloc(a, 300);
    CHECK(x && y && x != y);
    CHECK_INT(64 << 10, block_regions_bytes(r)); /* a heap's first region */
    block_heap_free(a, x, block_heap_size(300));
    CHECK(block_heap_alloc(a, 290) == x);
    /* freed by another heap: that heap's now */
    block_heap_free(b, y, block_heap_size(300));
    CHECK(block_heap_alloc(b, 300) == y);
    CHECK(block_heap_alloc(a, 300) != y);
    /* a heap given back is lent again with its free lists */
    block_heap_free(b, y, block_heap_size(300));
    block_heap_give(b);
    block_heap *c = block_heap_take(r);
    CHECK(c == b);
    CHECK(block_heap_alloc(c, 300) == y);
    /* blocks up to the largest class, over many regions, none overlapping */
    CHECK_INT(0, fill_and_check(a, 7));
    CHECK(block_regions_bytes(r) > (size_t)BLOCK_HEAP_MAX);
    block_heap_give(a);
    block_heap_give(c);

    /* two threads at once, each with a heap of its own */
    pthread_t t[2];
    job jobs[2] = {{r, 11, 0}, {r, 13, 0}};
    for (int i = 0; i < 2; i++) CHECK_INT(0, pthread_create(&t[i], NULL, thread_main, &jobs[i]));
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(0, jobs[i].bad);
    }
    block_regions_free(r);
    return ctest_report("test_blockheap");
}
