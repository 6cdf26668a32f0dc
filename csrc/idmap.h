/* idmap.h - one name-compression table: `(id) name` defines, `(id)` refers. Ids are sparse
 * 64-bit numbers from the file: small ones index a dense array, the rest go to a hash map, so
 * a hostile `fn=(4000000000)` costs one entry, not four billion. */
#ifndef CG_IDMAP_H
#define CG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct idmap {
    uint32_t *dense; /* name id + 1, 0 = undefined */
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
    if (id < m->dense_cap) return (int64_t)m->dense[id] - 1;
    return idmap_get_sparse(m, id);
}
/* Binds `id` to `value`; returns 0 or -1 when out of memory. */
int idmap_set(idmap *m, uint64_t id, uint32_t value);

#pragma GCC visibility pop

#endif
