#include "idxtab.h"

#include <stdlib.h>
#include <string.h>

#include "vec.h"

void idxtab_free(idxtab *t) {
    free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->count = 0;
}

void idxtab_clear(idxtab *t) {
    if (t->count) memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
    t->count = 0;
}

int idxtab_grow(idxtab *t) {
    size_t cap = t->mask ? t->mask + 1 : 0;
    if (t->count >= IDXTAB_MAX_RECORDS) return -1;
    if (cap && (t->count + 1) * 4 < cap * 3) return 0;
    size_t ncap = cap ? cap * 2 : 64;
    uint64_t *slots = zeroed_array(ncap, sizeof *slots);
    if (!slots) return -1;
    size_t nmask = ncap - 1;
    for (size_t i = 0; i < cap; i++) {
        uint64_t s = t->slots[i];
        if (!s) continue;
        size_t j = (uint32_t)(s >> 32) & nmask;
        while (slots[j]) j = (j + 1) & nmask;
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = nmask;
    return 0;
}
