/* mark_scan.h - the splitter's scan for the lines that hold a '=' or ':'.
 *
 * Every line the splitter reads (names, calls, jumps, headers) has one; position lines have
 * none, so the splitter steps over them at the speed of a vector compare. Such lines are close
 * together in real profiles (one in 41 bytes of a --dump-instr=yes file: fi=, fe=, jump and
 * call lines), so the bits of the marks and line ends of 64 bytes are kept between calls: the
 * next line's mark is most often among them, found with a few bit operations rather than
 * with the compares again. */
#ifndef CG_MARK_SCAN_H
#define CG_MARK_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* AVX2 where the processor has it, asked at run time (the build is for any x86-64) */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MARK_SCAN_AVX2 1
#endif

#pragma GCC visibility push(hidden)

typedef struct mark_scan {
    const char *base; /* the 64 bytes whose bits are kept, or NULL */
    uint64_t marks;   /* their '=' and ':' */
    uint64_t lfs;     /* their '\n' */
    int avx2;         /* the processor has AVX2 */
} mark_scan;

static inline void mark_scan_init(mark_scan *sc) {
    memset(sc, 0, sizeof *sc);
#ifdef MARK_SCAN_AVX2
    __builtin_cpu_init();
    sc->avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* The bits kept refer to the lines given before, [s, end) of the calls since the last forget:
 * new lines, or the same ones with another end, forget them first. */
static inline void mark_scan_forget(mark_scan *sc) {
    sc->base = NULL;
}

/* The start of the line that holds `at`: after the last '\n' before it, or `from` (a line's
 * start) when there is none since. */
static inline const char *mark_scan_line_start(const char *from, const char *at) {
    while (at > from && at[-1] != '\n') at--;
    return at;
}

#if defined(__SSE2__)
static inline uint64_t mark_bits16(__m128i v, __m128i eq, __m128i colon) {
    return (uint64_t)(unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(v, eq), _mm_cmpeq_epi8(v, colon)));
}
/* The first 64 bytes from `s` on, 64 at a time, with a mark: their start, with their bits in
 * `sc`; else where fewer than 64 bytes are left, with no bits. */
static inline const char *mark_blocks_sse2(mark_scan *sc, const char *s, const char *end) {
    const __m128i eq = _mm_set1_epi8('='), colon = _mm_set1_epi8(':'), lf = _mm_set1_epi8('\n');
    for (; end - s >= 64; s += 64) {
        __m128i v[4];
        uint64_t marks = 0;
        for (int i = 0; i < 4; i++) {
            v[i] = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * i));
            marks |= mark_bits16(v[i], eq, colon) << (16 * i);
        }
        if (!marks) continue;
        uint64_t lfs = 0;
        for (int i = 0; i < 4; i++)
            lfs |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], lf)) << (16 * i);
        sc->marks = marks;
        sc->lfs = lfs;
        return s;
    }
    sc->marks = 0;
    return s;
}
#endif

#ifdef MARK_SCAN_AVX2
__attribute__((target("avx2"))) static inline uint64_t mark_bits64(__m256i lo, __m256i hi) {
    return (uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}
/* mark_blocks_sse2 with two 32-byte compares a step. */
__attribute__((target("avx2"))) static const char *mark_blocks_avx2(mark_scan *sc, const char *s,
                                                                    const char *end) {
    const __m256i eq = _mm256_set1_epi8('='), colon = _mm256_set1_epi8(':'),
                  lf = _mm256_set1_epi8('\n');
    for (; end - s >= 64; s += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        uint64_t marks =
            mark_bits64(_mm256_or_si256(_mm256_cmpeq_epi8(a, eq), _mm256_cmpeq_epi8(a, colon)),
                        _mm256_or_si256(_mm256_cmpeq_epi8(b, eq), _mm256_cmpeq_epi8(b, colon)));
        if (!marks) continue;
        sc->marks = marks;
        sc->lfs = mark_bits64(_mm256_cmpeq_epi8(a, lf), _mm256_cmpeq_epi8(b, lf));
        return s;
    }
    sc->marks = 0;
    return s;
}
#endif

#if defined(__SSE2__)
/* The mark of the kept bits at `at` (from `s`, a line's start, on): its line and '\n'. */
static inline const char *mark_at(const mark_scan *sc, unsigned at, const char *s, const char *end,
                                  const char **line, const char **nl) {
    const char *b = sc->base;
    /* a '\n' before the mark within the bits: the last one ends the line before it (when s is
     * past b, s - 1 is the '\n' of the line before s, so with none s is at b or before it) */
    uint64_t before = sc->lfs & ((1ull << at) - 1);
    uint64_t after = at == 63 ? 0 : sc->lfs >> (at + 1) << (at + 1);
    *line = before ? b + 64 - __builtin_clzll(before) : mark_scan_line_start(s, b);
    *nl = after ? b + __builtin_ctzll(after) : memchr(b + 64, '\n', (size_t)(end - (b + 64)));
    return b + at;
}
#endif

/* The first line of [s, end) (s at a line's start) with a '=' or ':': gives the first such
 * character, and puts the line's start in *line and its '\n' in *nl (NULL when the lines end
 * first). NULL when no line has one. */
static inline const char *mark_scan_next(mark_scan *sc, const char *s, const char *end,
                                         const char **line, const char **nl) {
    const char *t = s;
#if defined(__SSE2__)
    const char *b = sc->base;
    if (b && s >= b && s < b + 64) {
        uint64_t left = sc->marks & (~0ull << (s - b));
        if (left) return mark_at(sc, (unsigned)__builtin_ctzll(left), s, end, line, nl);
        t = b + 64;
    }
#ifdef MARK_SCAN_AVX2
    t = sc->avx2 ? mark_blocks_avx2(sc, t, end) : mark_blocks_sse2(sc, t, end);
#else
    t = mark_blocks_sse2(sc, t, end);
#endif
    if (sc->marks) {
        sc->base = t;
        return mark_at(sc, (unsigned)__builtin_ctzll(sc->marks), s, end, line, nl);
    }
    sc->base = NULL;
#else
    (void)sc;
#endif
    /* the last bytes (or every byte where there are no vector compares) */
    const char *eq = memchr(t, '=', (size_t)(end - t));
    const char *colon = memchr(t, ':', (size_t)((eq ? eq : end) - t));
    const char *mark = colon ? colon : eq;
    if (!mark) return NULL;
    *line = mark_scan_line_start(s, mark);
    *nl = memchr(mark, '\n', (size_t)(end - mark));
    return mark;
}

#pragma GCC visibility pop

#endif
