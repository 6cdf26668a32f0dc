/* numparse.h - the format's numbers: decimal or 0x hex, 64-bit, checked for overflow. */
#ifndef CG_NUMPARSE_H
#define CG_NUMPARSE_H

#include <stdint.h>

#include "status.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

static inline int is_space(char c) {
    return c == ' ' || c == '\t';
}
static inline int is_digit(char c) {
    return (unsigned char)(c - '0') < 10;
}

static inline int hex_value(char c) {
    if (is_digit(c)) return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Scans an unsigned number at *ps and moves *ps past its digits (also on overflow). */
static inline status scan_u64(const char **ps, const char *end, uint64_t *out) {
    const char *s = *ps;
    uint64_t v = 0;
    int overflow = 0;
    if (s + 1 < end && s[0] == '0' && (s[1] | 0x20) == 'x') {
        s += 2;
        const char *digits = s;
        int d;
        while (s < end && (d = hex_value(*s)) >= 0) {
            if (v >> 60) overflow = 1;
            v = (v << 4) | (uint64_t)d;
            s++;
        }
        if (s == digits) return ST_BAD;
    } else {
        const char *digits = s;
        while (s < end && is_digit(*s)) {
            uint64_t d = (uint64_t)(*s - '0');
            if (v > (UINT64_MAX - d) / 10) overflow = 1;
            v = v * 10 + d;
            s++;
        }
        if (s == digits) return ST_BAD;
    }
    *ps = s;
    *out = v;
    return overflow ? ST_OVERFLOW : ST_OK;
}

/* Parses an unsigned number that must end at `end` or at a space or tab; on success *ps points
 * after it. Junk after the digits makes the token bad rather than too large. */
static inline status parse_u64(const char **ps, const char *end, uint64_t *out) {
    const char *s = *ps;
    status rc = scan_u64(&s, end, out);
    if (rc == ST_BAD || (s < end && !is_space(*s))) return ST_BAD;
    if (rc) return rc;
    *ps = s;
    return ST_OK;
}

/* A cost: an optionally negative number that fits in int64_t. */
static inline status parse_cost(const char **ps, const char *end, int64_t *out) {
    const char *s = *ps;
    int negative = 0;
    if (s < end && (*s == '-' || *s == '+')) {
        negative = *s == '-';
        s++;
    }
    uint64_t v;
    status rc = parse_u64(&s, end, &v);
    if (rc) return rc;
    if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return ST_OVERFLOW;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    *ps = s;
    return ST_OK;
}

#pragma GCC visibility pop

#endif
