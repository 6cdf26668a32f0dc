/* arena.h - bump allocation of many small blocks freed all at once (strings, small tables). */
#ifndef CG_ARENA_H
#define CG_ARENA_H

#include <stddef.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    arena_chunk *head;
    char *next;
    char *end;
    size_t allocated;   /* bytes obtained, for memory reports */
    size_t chunk_bytes; /* of the next chunk */
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* Returns NULL when out of memory; blocks are aligned for any scalar type. */
void *arena_alloc(arena *a, size_t size);

#pragma GCC visibility pop

#endif
