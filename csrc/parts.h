/* parts.h - work cut into parts that run at once: the calling thread takes the first, a thread
 * of its own each of the others (the numbering of calls and jumps, the analysis). */
#ifndef CG_PARTS_H
#define CG_PARTS_H

#include <stddef.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

enum { MAX_PARTS = 8 };

/* Runs run(ctx, k) for k in [0, parts) (parts <= MAX_PARTS) and returns when all are done. A
 * part no thread can be made for runs on the calling thread, after its own. */
void parts_run(size_t parts, void (*run)(void *ctx, size_t k), void *ctx);

/* How many parts `threads` threads make of `work` units when each should have at least
 * `min_each`: between 1 and MAX_PARTS. */
size_t parts_for(int threads, size_t work, size_t min_each);

#pragma GCC visibility pop

#endif
