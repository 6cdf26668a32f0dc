/* pages.c - large blocks mapped on their own (see pages.h). */
/* MAP_ANONYMOUS, which POSIX names only since 2024 (without it blocks come from malloc), and
 * madvise */
#define _DEFAULT_SOURCE
#include "pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The bytes of a page, a power of two; 0 where mappings are not made (or the size is odd). */
static size_t pages_page(void) {
#ifdef MAP_ANONYMOUS
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && !((unsigned long)page & ((unsigned long)page - 1)) ? (size_t)page : 0;
#else
    return 0;
#endif
}

void *pages_alloc(size_t bytes) {
#ifdef MAP_ANONYMOUS
    if (bytes < PAGES_HUGE) {
        void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return mem == MAP_FAILED ? NULL : mem;
    }
    /* mapped with room to spare, the unaligned ends unmapped */
    if (bytes > SIZE_MAX - PAGES_HUGE) return NULL;
    void *mem =
        mmap(NULL, bytes + PAGES_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return NULL;
    uintptr_t at = (uintptr_t)mem, aligned = (at + PAGES_HUGE - 1) & ~(uintptr_t)(PAGES_HUGE - 1);
    size_t head = (size_t)(aligned - at); /* below PAGES_HUGE: the tail is never empty */
    if (head) munmap(mem, head);
    munmap((char *)aligned + bytes, PAGES_HUGE - head);
#ifdef MADV_HUGEPAGE
    /* a hint: where the kernel lends no huge pages the block is mapped as any other */
    (void)madvise((void *)aligned, bytes, MADV_HUGEPAGE);
#endif
    return (void *)aligned;
#else
    return malloc(bytes);
#endif
}

void pages_hint(void *mem, size_t bytes) {
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    size_t page = pages_page();
    if (bytes < PAGES_HINTED || !page) return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t from = (uintptr_t)mem & ~mask, to = ((uintptr_t)mem + bytes + mask) & ~mask;
    (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE);
#else
    (void)mem, (void)bytes;
#endif
}

void *pages_buffer(size_t bytes) {
    if (bytes < PAGES_HINTED) return malloc(bytes ? bytes : 1);
    /* C11's aligned_alloc wants a multiple of the alignment */
    size_t rounded = pages_whole(bytes);
    void *mem = rounded ? aligned_alloc(PAGES_HUGE, rounded) : NULL;
    if (mem) pages_hint(mem, rounded);
    return mem;
}

void pages_free(void *mem, size_t bytes) {
#ifdef MAP_ANONYMOUS
    if (mem) munmap(mem, bytes);
#else
    (void)bytes;
    free(mem);
#endif
}
