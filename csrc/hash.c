/* hash.c - the per-load seed of the hash tables (see hash.h). */
#include "hash.h"

#include <time.h>

uint64_t hash_new_seed(const void *salt) {
    uint64_t h = hash_combine(HASH_SEED, (uint64_t)time(NULL));
    h = hash_combine(h, (uint64_t)(uintptr_t)salt);
    h = hash_combine(h, (uint64_t)(uintptr_t)&h);
    return hash_mix(hash_combine(h, (uint64_t)clock()));
}
