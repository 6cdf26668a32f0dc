/* resolve.h - callees named without their file, linked when every input is read. Works on the
 * builder's records and its marks of defined functions and guessed callees. */
#ifndef CG_RESOLVE_H
#define CG_RESOLVE_H

#include "builder.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* Faults (calls whose counts sum beyond 64 bits once merged) are reported at `site`, `line`. */
int resolve_guessed_callees(builder *b, const fault_site *site, uint64_t line);

#pragma GCC visibility pop

#endif
