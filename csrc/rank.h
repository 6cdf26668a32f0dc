/* rank.h - the functions of a profile in order of cost, for the lists that show the hottest
 * functions first (prof:top, `callgrind top`, `callgrind functions`). Built on callgrind.h
 * alone. */
#ifndef CG_RANK_H
#define CG_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"

#pragma GCC visibility push(hidden)

/* Writes into `order` (cg_function_count(p) entries) the function indices by decreasing self
 * (or, with `inclusive`, inclusive) cost of event `ev`, ties by name, then file, then object, then
 * index. Returns 0, or -1 with `err` set (out of memory, a derived cost beyond 64 bits). */
int cg_rank_functions(const cg_profile *p, size_t ev, int inclusive, uint32_t *order,
                      cg_error *err);

#pragma GCC visibility pop

#endif
