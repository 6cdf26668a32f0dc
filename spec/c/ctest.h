/* ctest.h - the few checks the C unit tests need: each failure prints where and what. */
#ifndef CTEST_H
#define CTEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int ctest_failures, ctest_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ctest_checks++;                                                                            \
        if (!(cond)) {                                                                             \
            ctest_failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_INT(expected, actual)                                                                \
    do {                                                                                           \
        long long ctest_e = (long long)(expected), ctest_a = (long long)(actual);                  \
        ctest_checks++;                                                                            \
        if (ctest_e != ctest_a) {                                                                  \
            ctest_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s: expected %lld, got %lld\n", __FILE__, __LINE__, #actual,   \
                    ctest_e, ctest_a);                                                             \
        }                                                                                          \
    } while (0)

#define CHECK_STR(expected, actual)                                                                \
    do {                                                                                           \
        const char *ctest_e = (expected), *ctest_a = (actual);                                     \
        ctest_checks++;                                                                            \
        if (!ctest_a || strcmp(ctest_e, ctest_a) != 0) {                                           \
            ctest_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__,        \
                    #actual, ctest_e, ctest_a ? ctest_a : "(null)");                               \
        }                                                                                          \
    } while (0)

/* A splitmix64 sequence, the same on every run: random inputs that a failure can be found again
 * with. */
static inline uint64_t ctest_rnd(void) {
    static uint64_t state = 0x12345678abcdefULL;
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline int ctest_report(const char *name) {
    printf("%s: %d checks, %d failed\n", name, ctest_checks, ctest_failures);
    return ctest_failures ? 1 : 0;
}

#endif
