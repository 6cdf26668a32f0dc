/* idmap.h - one name-compression table: `(id) name` defines, `(id)` refers. Ids are sparse
 * 64-bit numbers from the file: small ones index a dense array, the rest go to a hash map, so
 * a hostile `fn=(4000000000)` costs one entry, not four billion. */
#ifndef CG_IDMAP_H
#define CG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* A dense id's binding, and three words its owner keeps with it (the parser: the function a
 * `fn=(id)` resolved to in the object and file it was read in), zero until the owner writes
 * them and whenever the id is bound again: in one cache line with the name, so that a line
 * naming a function by its id costs one miss of the caches, not two. */
typedef struct idmap_entry {
    uint32_t value; /* name id + 1, 0 = undefined */
    uint32_t memo[3];
} idmap_entry;

typedef struct idmap {
    idmap_entry *dense;
    size_t dense_cap;
    struct idmap_slot {
        uint64_t id;
        uint32_t value; /* name id + 1, 0 = empty slot */
    } * sparse;
    size_t sparse_mask, sparse_count;
    size_t defined;
    uint64_t seed;
} idmap;

void idmap_init(idmap *m, uint64_t seed);
void idmap_free(idmap *m);
void idmap_clear(idmap *m);
/* Name id bound to an id the dense array does not cover, or -1 when undefined. */
int64_t idmap_get_sparse(const idmap *m, uint64_t id);
/* Name id bound to `id`, or -1 when undefined. Inline: the parser asks at every name. */
static inline int64_t idmap_get(const idmap *m, uint64_t id) {
    if (id < m->dense_cap) return (int64_t)m->dense[id].value - 1;
    return idmap_get_sparse(m, id);
}
/* The memo of a bound id the dense array covers, else NULL (ids far apart keep none). */
static inline uint32_t *idmap_memo(idmap *m, uint64_t id) {
    return id < m->dense_cap && m->dense[id].value ? m->dense[id].memo : NULL;
}
/* Binds `id` to `value` (its memo zeroed); returns 0 or -1 when out of memory. */
int idmap_set(idmap *m, uint64_t id, uint32_t value);

#pragma GCC visibility pop

#endif
