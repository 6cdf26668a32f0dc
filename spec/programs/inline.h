/* A header function that is always inlined, so callgrind writes fi=/fe=
 * lines for the code it contributes to its callers. */
#ifndef INLINE_H
#define INLINE_H

static inline __attribute__((always_inline)) unsigned mix(unsigned x, unsigned round)
{
    x ^= x >> 7;
    x *= 2654435761u;
    x += round;
    return x ^ (x >> 13);
}

#endif
