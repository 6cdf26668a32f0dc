/* flame.h - what the files of the flame graph builder share: the result, the frames of the walk
 * and the dealing out of whole costs (flame_deal.c). Internal: callgrind.h is the public API. */
#ifndef CG_FLAME_H
#define CG_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"

#pragma GCC visibility push(hidden)

#define FLAME_OTHER UINT32_MAX /* the function of an [other] frame */

struct cg_flame {
    const cg_profile *p;
    size_t n;
    uint32_t *fn; /* FLAME_OTHER for [other] */
    uint32_t *depth;
    size_t *parent; /* CG_NONE for roots */
    cg_cost *self, *total;
    cg_cost grand_total;
};

/* Frames while walking, before the whole costs are dealt out: depth-first order, a frame's
 * root as the ordinal of its root frame. */
typedef struct flame_frames {
    size_t n, cap;
    uint32_t *fn, *depth, *root;
    size_t *parent;
    double *x; /* the real share of the function's self cost */
} flame_frames;

typedef struct flame_leftover {
    double rem;
    size_t i;
} flame_leftover;

/* Splits `target` (>= 0) into out[0..n) in proportion to the weights w (>= 0) by largest
 * remainders: whole parts that add up to `target` exactly; items of weight 0 get 0 (all goes to
 * the first item when every weight is 0). `scratch` holds n items. */
void flame_split(cg_cost target, const double *w, size_t n, cg_cost *out, flame_leftover *scratch);

/* Gives every frame its whole self cost (self_out, fr->n values): `total` in all, each root
 * what the real shares give it, and in `exact` mode each function its self cost self[fn]
 * exactly (the real shares are scaled to it); without, the rounded real shares, [other] frames
 * included. Returns 0, or -1 with the error set. */
int flame_deal(const cg_cost *self, size_t nfn, flame_frames *fr, int exact, cg_cost total,
               cg_cost *self_out, cg_error *err);

#pragma GCC visibility pop

#endif
