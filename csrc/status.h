/* status.h - what the core's internal steps return: builder, line streams, number parsing. The
 * public API reports with cg_error; inside, a step returns one of these and its caller decides
 * what the fault is (an error, or a warning in a tolerant load: see fault.h). */
#ifndef CG_STATUS_H
#define CG_STATUS_H

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef enum status {
    ST_OK = 0,
    ST_NOMEM,    /* out of memory, or a size beyond what can be allocated */
    ST_OVERFLOW, /* a number or a sum beyond 64 bits (sums saturate) */
    ST_LIMIT,    /* beyond one of the core's fixed limits (events per profile) */
    ST_BAD       /* malformed text */
} status;

#pragma GCC visibility pop

#endif
