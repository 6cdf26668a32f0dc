/* idxtab.h - open-addressing hash index over a record array: slots hold a 32-bit hash tag and
 * a record index, so most mismatches are rejected without touching the records. The caller
 * supplies the equality test, which the compiler inlines at each call site. */
#ifndef CG_IDXTAB_H
#define CG_IDXTAB_H

#include <stddef.h>
#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct idxtab {
    uint64_t *slots; /* (tag << 32) | (index + 1); 0 = empty */
    size_t mask;     /* slot count - 1, or 0 when unallocated */
    size_t count;
} idxtab;

#define IDXTAB_MAX_RECORDS 0x7fffffffu

void idxtab_free(idxtab *t);
/* Empties the index, keeping its room (a piece's tables, used again for the next piece). */
void idxtab_clear(idxtab *t);
/* Makes sure one more record fits; returns 0 or -1 (out of memory, or too many records). */
int idxtab_grow(idxtab *t);

typedef int (*idxtab_eq_fn)(const void *ctx, uint32_t index, const void *key);

/* Finds the record equal to `key`; returns its index, or -1 and sets *slot for idxtab_put. */
static inline int64_t idxtab_find(const idxtab *t, uint32_t tag, idxtab_eq_fn eq, const void *ctx,
                                  const void *key, size_t *slot) {
    if (!t->mask) {
        *slot = 0;
        return -1;
    }
    size_t i = tag & t->mask;
    for (;;) {
        uint64_t s = t->slots[i];
        if (!s) {
            *slot = i;
            return -1;
        }
        if ((uint32_t)(s >> 32) == tag && eq(ctx, (uint32_t)s - 1, key)) return (uint32_t)s - 1;
        i = (i + 1) & t->mask;
    }
}

/* Stores `index` in the slot idxtab_find returned; call idxtab_grow first. */
static inline void idxtab_put(idxtab *t, size_t slot, uint32_t tag, uint32_t index) {
    t->slots[slot] = ((uint64_t)tag << 32) | ((uint64_t)index + 1);
    t->count++;
}

#pragma GCC visibility pop

#endif
