#include "idmap.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "vec.h"

/* Ids below this bound always get a dense slot; above it only while the array stays small
 * compared with the number of definitions. */
enum { DENSE_FREE = 1 << 20 };

void idmap_init(idmap *m, uint64_t seed) {
    memset(m, 0, sizeof *m);
    m->seed = seed;
}

void idmap_free(idmap *m) {
    free(m->dense);
    free(m->sparse);
    idmap_init(m, m->seed);
}

void idmap_clear(idmap *m) {
    if (m->dense) memset(m->dense, 0, m->dense_cap * sizeof *m->dense);
    if (m->sparse) memset(m->sparse, 0, (m->sparse_mask + 1) * sizeof *m->sparse);
    m->sparse_count = 0;
    m->defined = 0;
}

int64_t idmap_get_sparse(const idmap *m, uint64_t id) {
    if (!m->sparse) return -1;
    size_t i = hash_mix(id ^ m->seed) & m->sparse_mask;
    while (m->sparse[i].value) {
        if (m->sparse[i].id == id) return (int64_t)m->sparse[i].value - 1;
        i = (i + 1) & m->sparse_mask;
    }
    return -1;
}

static int sparse_set(idmap *m, uint64_t id, uint32_t value) {
    if (m->sparse) {
        size_t i = hash_mix(id ^ m->seed) & m->sparse_mask;
        while (m->sparse[i].value) {
            if (m->sparse[i].id == id) {
                m->sparse[i].value = value + 1;
                return 0;
            }
            i = (i + 1) & m->sparse_mask;
        }
    }
    size_t cap = m->sparse ? m->sparse_mask + 1 : 0;
    if ((m->sparse_count + 1) * 2 > cap) {
        size_t ncap = cap ? cap * 2 : 64;
        struct idmap_slot *slots = zeroed_array(ncap, sizeof *slots);
        if (!slots) return -1;
        for (size_t k = 0; k < cap; k++) {
            if (!m->sparse[k].value) continue;
            size_t j = hash_mix(m->sparse[k].id ^ m->seed) & (ncap - 1);
            while (slots[j].value) j = (j + 1) & (ncap - 1);
            slots[j] = m->sparse[k];
        }
        free(m->sparse);
        m->sparse = slots;
        m->sparse_mask = ncap - 1;
    }
    size_t i = hash_mix(id ^ m->seed) & m->sparse_mask;
    while (m->sparse[i].value) i = (i + 1) & m->sparse_mask;
    m->sparse[i].id = id;
    m->sparse[i].value = value + 1;
    m->sparse_count++;
    return 0;
}

int idmap_set(idmap *m, uint64_t id, uint32_t value) {
    if (id >= m->dense_cap && (id < DENSE_FREE || id < 4 * (uint64_t)m->defined)) {
        size_t ncap = m->dense_cap ? m->dense_cap : 256;
        while (ncap <= id) ncap *= 2;
        /* a new zeroed block rather than realloc: from 512 KiB on it is made of huge pages
         * (vec.h), where realloc's fresh pages were faulted in 4 KiB at a time (valgrind's ids
         * skip: 125,000 for 50,000 functions, a 4 MiB array, a fifth of single-10's faults) */
        idmap_entry *d = zeroed_array(ncap, sizeof *d);
        if (!d) return -1;
        if (m->dense) memcpy(d, m->dense, m->dense_cap * sizeof *d);
        free(m->dense);
        m->dense = d;
        m->dense_cap = ncap;
        /* move sparse entries that now fall into the dense range */
        if (m->sparse) {
            size_t cap = m->sparse_mask + 1;
            struct idmap_slot *old = m->sparse;
            m->sparse = NULL;
            m->sparse_mask = 0;
            m->sparse_count = 0;
            for (size_t k = 0; k < cap; k++) {
                if (!old[k].value) continue;
                if (old[k].id < ncap) {
                    d[old[k].id] = (idmap_entry){old[k].value, {0, 0, 0}};
                } else if (sparse_set(m, old[k].id, old[k].value - 1)) {
                    free(old);
                    return -1;
                }
            }
            free(old);
        }
    }
    int was_defined = idmap_get(m, id) >= 0;
    if (id < m->dense_cap) {
        m->dense[id] = (idmap_entry){value + 1, {0, 0, 0}};
    } else if (sparse_set(m, id, value)) {
        return -1;
    }
    if (!was_defined) m->defined++;
    return 0;
}
