/* line_key.h - the position of a line record, as compaction (lines.c) and a held block of
 * records (line_block.c) order, compare and hash it. */
#ifndef CG_LINE_KEY_H
#define CG_LINE_KEY_H

#include <stdint.h>
#include <string.h>

#include "strtab.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct line_key {
    uint64_t addr, line;
    uint32_t file;
} line_key;

/* (address, line, file name) order; the file id stands for the name while the strings may not
 * be read. */
static inline int line_key_cmp(const strtab *strings, const line_key *x, const line_key *y) {
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->file == y->file) return 0;
    if (!strings) return x->file < y->file ? -1 : 1;
    return strcmp(strtab_get(strings, x->file), strtab_get(strings, y->file));
}

/* Whether `k` may follow `prev` in one run of a stream: strictly after it by address and line. */
static inline int line_key_follows(const line_key *prev, const line_key *k) {
    return k->addr > prev->addr || (k->addr == prev->addr && k->line > prev->line);
}

/* The tables that sum equal positions are seeded per load, so that no input can make their
 * probes long. */
static inline uint32_t line_key_hash(const line_key *k, uint64_t seed) {
    uint64_t h =
        ((k->addr ^ seed) * 0x9e3779b97f4a7c15ULL) ^ (k->line * 0xc2b2ae3d27d4eb4fULL) ^ k->file;
    return (uint32_t)((h ^ (h >> 29)) * 0x165667b19e3779f9ULL >> 32);
}

static inline int line_key_same(const line_key *a, const line_key *b) {
    return a->addr == b->addr && a->line == b->line && a->file == b->file;
}

#pragma GCC visibility pop

#endif
