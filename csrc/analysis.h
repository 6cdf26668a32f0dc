/* analysis.h - what the model derives once loading ends: self and inclusive costs, the call
 * graph indexes, called counts, cycles, line records in their final order. Works on the
 * profile alone. */
#ifndef CG_ANALYSIS_H
#define CG_ANALYSIS_H

#include "fault.h"
#include "model.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* Faults (sums beyond 64 bits) are reported at `site`, line `line` (the end of the last
 * input): errors in a strict load, saturated values and warnings in a tolerant one, in the
 * same order whatever `threads` (how many threads the work may be shared among). */
int analysis_run(cg_profile *p, line_scratch *scratch, const fault_site *site, uint64_t line,
                 int threads);

#pragma GCC visibility pop

#endif
