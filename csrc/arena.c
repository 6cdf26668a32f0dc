#include "arena.h"

#include <stdint.h>
#include <stdlib.h>

#include "pages.h"

struct arena_chunk {
    arena_chunk *prev;
    size_t bytes; /* the whole chunk's, for pages_free */
    /* at a multiple of the step sizes are rounded to, so every block is */
    _Alignas(sizeof(max_align_t)) max_align_t data[];
};

/* Chunks double from FIRST_CHUNK to MAX_CHUNK, from 256 KiB straight to 2 MiB (pages_round): a
 * profile of a few names takes 64 KiB, one of many megabytes of names few chunks, the large ones
 * in huge pages (pages.h: the names of single-10, 50,000 functions, faulted in 4 KiB at a time,
 * were a tenth of its load). */
enum { FIRST_CHUNK = 64 * 1024, MAX_CHUNK = 4 * 1024 * 1024 };

void arena_init(arena *a) {
    a->head = NULL;
    a->next = a->end = NULL;
    a->allocated = 0;
    a->chunk_bytes = FIRST_CHUNK;
}

void arena_free(arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *prev = c->prev;
        pages_free(c, c->bytes);
        c = prev;
    }
    arena_init(a);
}

/* A chunk with room for `want` bytes. */
static arena_chunk *new_chunk(arena *a, size_t want) {
    if (want > SIZE_MAX - sizeof(arena_chunk)) return NULL;
    size_t bytes = sizeof(arena_chunk) + want;
    arena_chunk *c = pages_alloc(bytes);
    if (!c) return NULL;
    c->bytes = bytes;
    a->allocated += bytes;
    return c;
}

void *arena_alloc(arena *a, size_t size) {
    const size_t align = sizeof(max_align_t);
    if (size > SIZE_MAX - align) return NULL;
    size = (size + align - 1) & ~(align - 1);
    if (!a->next || (size_t)(a->end - a->next) < size) {
        /* Large blocks get a chunk of their own so the current chunk keeps serving small ones. */
        size_t want = size > a->chunk_bytes / 4 ? size : a->chunk_bytes - sizeof(arena_chunk);
        arena_chunk *c = new_chunk(a, want);
        if (!c) return NULL;
        if (want == size && a->head) {
            /* keep the current chunk as the bump target */
            c->prev = a->head->prev;
            a->head->prev = c;
            return c->data;
        }
        c->prev = a->head;
        a->head = c;
        a->next = (char *)c->data;
        a->end = a->next + want;
        if (a->chunk_bytes < MAX_CHUNK) a->chunk_bytes = pages_round(2 * a->chunk_bytes);
    }
    void *p = a->next;
    a->next += size;
    return p;
}
