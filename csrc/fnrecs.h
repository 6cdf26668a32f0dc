/* fnrecs.h - the calls (as caller) and jumps (as source) of one function while a load reads:
 * records merged by identity in the order first seen, each list with a lookup of its own (the
 * record expected next, then a scan of a few records or a small hash table), so that adding a
 * record touches only that function's memory. The builder keeps one per function and numbers
 * them into the model's arrays once every input is read; a split load's pieces keep one per
 * function of the piece, which the stitch adopts or merges. */
#ifndef CG_FNRECS_H
#define CG_FNRECS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "status.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* A function's calls. All zero is an empty list. */
typedef struct call_list {
    call_rec *v;
    cg_cost *costs;         /* a row of the list's width per record */
    unsigned char *guessed; /* the callee's file was not given (resolve.c) */
    uint32_t n, cap;
    uint32_t *tab; /* record + 1, 0 = free; made past a few records */
    uint32_t tab_cap;
    uint32_t next; /* the record expected next: a new block repeats the last one's */
} call_list;

/* A function's jumps. All zero is an empty list. */
typedef struct jump_list {
    jump_rec *v;
    uint32_t n, cap;
    uint32_t *tab;
    uint32_t tab_cap;
    uint32_t next;
} jump_list;

typedef struct fn_records {
    call_list calls;
    jump_list jumps;
} fn_records;

/* A new block of the function: its records are expected again from the first. */
static inline void fn_records_again(fn_records *r) {
    r->calls.next = r->jumps.next = 0;
}

/* Adds a call (counts summed, `guessed` kept only while every occurrence guessed) and gives
 * its cost row, `width` values, to which the caller adds. ST_OVERFLOW when the count sum
 * saturates (the row is still given); ST_NOMEM. `seed` is the load's hash seed. */
status call_list_add(call_list *l, uint64_t seed, size_t width, const call_rec *key, int guessed,
                     cg_cost **row);
/* Adds a jump (counts summed); ST_OVERFLOW when a count sum saturates; ST_NOMEM. */
status jump_list_add(jump_list *l, uint64_t seed, const jump_rec *key);

/* Adds the records of `from` (the later ones in reading order) to `into`, whose records come
 * first: `from` is taken whole when `into` is empty (no copy), else each record is merged
 * through `into`'s lookup. `from` is left empty either way. ST_OVERFLOW when a sum saturates
 * (the records are all added nonetheless); ST_NOMEM (then `from` is left as it was from the
 * record that could not be added on, and freed by its owner). Both of `width` and `seed`. */
status call_list_take(call_list *into, call_list *from, uint64_t seed, size_t width);
status jump_list_take(jump_list *into, jump_list *from, uint64_t seed);

/* Widens the cost rows from `old` to `wide` values (a new event), zero in the new columns; -1
 * when out of memory (the list is unchanged). */
int call_list_restride(call_list *l, size_t old, size_t wide);

void call_list_free(call_list *l);
void jump_list_free(jump_list *l);
static inline void fn_records_free(fn_records *r) {
    call_list_free(&r->calls);
    jump_list_free(&r->jumps);
}

#pragma GCC visibility pop

#endif
