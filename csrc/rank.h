/* rank.h - the functions of a profile in order of cost, for the lists that show the hottest
 * functions first (prof:top, `callgrind top`, `callgrind functions`). Built on callgrind.h
 * alone. */
#ifndef CG_RANK_H
#define CG_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"

#pragma GCC visibility push(hidden)

/* Writes into `order` (cg_function_count(p) entries) the first `limit` (SIZE_MAX: all)
 * function indices by decreasing self (or, with `inclusive`, inclusive) cost of event `ev`
 * (with `ascending`, increasing: the biggest falls of a difference first), ties by name, then
 * file, then object, then index. Returns how many it wrote, or CG_NONE with `err` set (out of
 * memory, a derived cost beyond 64 bits). */
size_t cg_rank_functions(const cg_profile *p, size_t ev, int inclusive, int ascending, size_t limit,
                         uint32_t *order, cg_error *err);

#pragma GCC visibility pop

#endif
