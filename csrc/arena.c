#include "arena.h"

#include <stdint.h>
#include <stdlib.h>

struct arena_chunk {
    arena_chunk *prev;
    max_align_t data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void arena_init(arena *a) {
    a->head = NULL;
    a->next = a->end = NULL;
    a->allocated = 0;
}

void arena_free(arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *prev = c->prev;
        free(c);
        c = prev;
    }
    arena_init(a);
}

void *arena_alloc(arena *a, size_t size) {
    const size_t align = sizeof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (!a->next || (size_t)(a->end - a->next) < size) {
        /* Large blocks get a chunk of their own so the current chunk keeps serving small ones. */
        size_t want = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
        if (want > SIZE_MAX - sizeof(arena_chunk)) return NULL;
        arena_chunk *c = malloc(sizeof(arena_chunk) + want);
        if (!c) return NULL;
        a->allocated += sizeof(arena_chunk) + want;
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
    }
    void *p = a->next;
    a->next += size;
    return p;
}
