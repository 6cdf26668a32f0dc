#include "strtab.h"

#include <string.h>

#include "hash.h"
#include "vec.h"

typedef struct {
    const char *s;
    size_t len;
} str_key;

static int str_eq(const void *ctx, uint32_t index, const void *key) {
    const strtab *t = ctx;
    const str_key *k = key;
    return t->entries[index].len == k->len && memcmp(t->entries[index].s, k->s, k->len) == 0;
}

int strtab_init(strtab *t, uint64_t seed) {
    memset(t, 0, sizeof *t);
    t->seed = seed;
    arena_init(&t->mem);
    return strtab_intern(t, "", 0) == 0 ? 0 : -1;
}

void strtab_free(strtab *t) {
    arena_free(&t->mem);
    free(t->entries);
    idxtab_free(&t->index);
    memset(t, 0, sizeof *t);
}

int64_t strtab_intern(strtab *t, const char *s, size_t len) {
    if (len > UINT32_MAX) return -1;
    str_key key = {s, len};
    uint32_t tag = (uint32_t)hash_bytes(s, len, t->seed);
    size_t slot;
    int64_t found = idxtab_find(&t->index, tag, str_eq, t, &key, &slot);
    if (found >= 0) return found;
    if (idxtab_grow(&t->index)) return -1;
    (void)idxtab_find(&t->index, tag, str_eq, t, &key, &slot); /* slot moves when the table grows */
    if (VEC_RESERVE(t->entries, t->cap, t->count + 1)) return -1;
    char *copy = arena_alloc(&t->mem, len + 1);
    if (!copy) return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    uint32_t id = (uint32_t)t->count++;
    t->entries[id].s = copy;
    t->entries[id].len = len;
    idxtab_put(&t->index, slot, tag, id);
    return id;
}
