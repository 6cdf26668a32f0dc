/* varint.h - the byte encodings of the line streams (lines.h) and of the pipeline's record
 * blocks (pipeline.c): unsigned LEB128 varints, and zigzag for differences that may be
 * negative. */
#ifndef CG_VARINT_H
#define CG_VARINT_H

#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* Writes `v` at `p`, seven bits a byte, low bits first; returns the byte after it. */
static inline unsigned char *put_varint(unsigned char *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* Reads what put_varint wrote; returns the byte after it. */
static inline const unsigned char *get_varint(const unsigned char *p, uint64_t *out) {
    uint64_t v = *p & 0x7f;
    int shift = 7;
    while (*p++ & 0x80) {
        v |= (uint64_t)(*p & 0x7f) << shift;
        shift += 7;
    }
    *out = v;
    return p;
}

/* Differences of 64-bit values, modulo 2^64, as small unsigned numbers either way:
 * 0, -1, 1, -2... -> 0, 1, 2, 3... */
static inline uint64_t zigzag(uint64_t v) {
    return (v << 1) ^ (0 - (v >> 63));
}
static inline uint64_t unzigzag(uint64_t v) {
    return (v >> 1) ^ (0 - (v & 1));
}

#pragma GCC visibility pop

#endif
