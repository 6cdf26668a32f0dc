/* name_order.h - the functions of a profile in name order (strcmp's; equal names in the order
 * the functions were first met), for lookups by name. */
#ifndef CG_NAME_ORDER_H
#define CG_NAME_ORDER_H

#include <stdint.h>

#include "model.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* A new array of the function indexes in name order, or NULL when out of memory. */
uint32_t *name_order_build(const cg_profile *p);

#pragma GCC visibility pop

#endif
