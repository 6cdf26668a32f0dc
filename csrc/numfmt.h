/* numfmt.h - integers written as decimal text by hand: the writers and the reports write millions
 * of them, where a call to snprintf each cost several times the digits. */
#ifndef CG_NUMFMT_H
#define CG_NUMFMT_H

#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The most a number takes: 20 digits and a sign. */
enum { NUMFMT_MAX = 21 };

/* The number of decimal digits of `v`: its bits give it to within one (at most 19 here), a
 * compare settles it. */
static inline int numfmt_digits(uint64_t v) {
    static const uint64_t pow10[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};
    v |= 1; /* the same number of digits (an even v + 1 is no power of ten), and 0 has one */
    int n = ((64 - __builtin_clzll(v)) * 1233) >> 12; /* 1233 / 4096 is just above log10(2) */
    return n + (v >= pow10[n]);
}

/* Writes `v` at p (no NUL) and returns the end: two digits a step, from the end, into the room
 * its length says (a digit at a time, divided and reversed, was most of a writer's time). */
static inline char *put_u64(char *p, uint64_t v) {
    static const char pairs[] = "00010203040506070809"
                                "10111213141516171819"
                                "20212223242526272829"
                                "30313233343536373839"
                                "40414243444546474849"
                                "50515253545556575859"
                                "60616263646566676869"
                                "70717273747576777879"
                                "80818283848586878889"
                                "90919293949596979899";
    char *end = p + numfmt_digits(v), *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = pairs[2 * r];
        q[1] = pairs[2 * r + 1];
    }
    if (v >= 10) {
        q -= 2;
        q[0] = pairs[2 * v];
        q[1] = pairs[2 * v + 1];
    } else {
        *--q = (char)('0' + v);
    }
    return end;
}

static inline char *put_i64(char *p, int64_t v) {
    if (v >= 0) return put_u64(p, (uint64_t)v);
    *p++ = '-';
    return put_u64(p, 0 - (uint64_t)v);
}

#pragma GCC visibility pop

#endif
