/* hash.h - fast non-cryptographic hashing of strings and record keys. */
#ifndef CG_HASH_H
#define CG_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

static inline uint64_t hash_mix(uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

#define HASH_SEED 0x243f6a8885a308d3ULL

/* A seed that differs from one load to the next (time and address-space layout), so that an
 * input cannot be crafted to collide in the hash tables and make a load quadratic. Results never
 * depend on it: tables are only looked up, never walked in hash order. */
uint64_t hash_new_seed(const void *salt);

/* One step of a multiply-rotate hash over 64-bit words: start from HASH_SEED, combine every
 * key field, finish with hash_mix. Fields that differ in few bits (consecutive indexes) still
 * spread over the whole word. */
static inline uint64_t hash_combine(uint64_t h, uint64_t v) {
    h ^= v;
    h *= 0x9e3779b97f4a7c15ULL;
    return (h << 31) | (h >> 33);
}

static inline uint64_t hash_bytes(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = hash_combine(seed, len);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = hash_combine(h, w);
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, len);
    h = hash_combine(h, tail);
    return hash_mix(h);
}

#pragma GCC visibility pop

#endif
