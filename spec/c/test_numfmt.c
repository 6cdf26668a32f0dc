/* Numbers written as text by hand (numfmt.h): against printf's, at every power of ten and its
 * neighbours, the 64-bit limits, and a million values of every length from a fixed sequence. */
#include <inttypes.h>
#include <stdio.h>

#include "ctest.h"
#include "numfmt.h"

static void check_u64(uint64_t v) {
    char have[NUMFMT_MAX + 1], want[32];
    *put_u64(have, v) = 0;
    snprintf(want, sizeof want, "%" PRIu64, v);
    CHECK_STR(want, have);
}

static void check_i64(int64_t v) {
    char have[NUMFMT_MAX + 1], want[32];
    *put_i64(have, v) = 0;
    snprintf(want, sizeof want, "%" PRId64, v);
    CHECK_STR(want, have);
}

int main(void) {
    check_u64(0);
    check_u64(UINT64_MAX);
    check_i64(INT64_MIN);
    check_i64(INT64_MAX);
    check_i64(-1);
    for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
        check_u64(p - 1);
        check_u64(p);
        check_u64(p + 1);
        check_i64(-(int64_t)(p % INT64_MAX));
    }
    /* xorshift64: values shifted right by a varying amount, so that every length comes up */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_u64(x >> (x & 63));
        check_i64((int64_t)x >> (x & 63));
    }
    return ctest_report("test_numfmt");
}
