/* strtab.h - interned strings: each distinct name is stored once and known by a 32-bit id.
 * Id 0 is always the empty string. */
#ifndef CG_STRTAB_H
#define CG_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "idxtab.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct strtab {
    arena mem;
    struct strtab_entry {
        const char *s;
        size_t len;
    } * entries;
    size_t count, cap;
    idxtab index;
    uint64_t seed;
} strtab;

int strtab_init(strtab *t, uint64_t seed);
void strtab_free(strtab *t);
/* Returns the id of the string, adding it when new; -1 when out of memory. */
int64_t strtab_intern(strtab *t, const char *s, size_t len);
static inline size_t strtab_len(const strtab *t, uint32_t id) {
    return t->entries[id].len;
}
static inline const char *strtab_get(const strtab *t, uint32_t id) {
    return t->entries[id].s;
}

#pragma GCC visibility pop

#endif
