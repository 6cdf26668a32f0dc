/* numfmt.h - integers written as decimal text by hand: the writers and the reports write millions
 * of them, where a call to snprintf each cost several times the digits. */
#ifndef CG_NUMFMT_H
#define CG_NUMFMT_H

#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The most a number takes: 20 digits and a sign. */
enum { NUMFMT_MAX = 21 };

/* Writes `v` at p (no NUL) and returns the end. */
static inline char *put_u64(char *p, uint64_t v) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

static inline char *put_i64(char *p, int64_t v) {
    if (v >= 0) return put_u64(p, (uint64_t)v);
    *p++ = '-';
    return put_u64(p, 0 - (uint64_t)v);
}

#pragma GCC visibility pop

#endif
