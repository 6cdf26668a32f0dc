/* inline.h - ALWAYS_INLINE, for the few functions of the per-record paths whose copies must be
 * made where they are called: so that a constant argument (one event) makes a copy of its own,
 * and values stay in registers rather than in memory behind a call. */
#ifndef CG_INLINE_H
#define CG_INLINE_H

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#endif
