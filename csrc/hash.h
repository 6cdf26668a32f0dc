/* hash.h - fast non-cryptographic hashing of strings and record keys. */
#ifndef CG_HASH_H
#define CG_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_mix(uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static inline uint64_t hash_combine(uint64_t h, uint64_t v) {
    return (h ^ v) * 0x9e3779b97f4a7c15ULL + (h >> 29);
}

static inline uint64_t hash_bytes(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = 0x243f6a8885a308d3ULL ^ (len * 0x9e3779b97f4a7c15ULL);
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

#endif
