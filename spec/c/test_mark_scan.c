/* test_mark_scan.c - the splitter's scan for lines with a '=' or ':' (mark_scan.h) against a
 * byte-by-byte reading of the same text: every line of many made-up texts, read from every
 * line's start as the splitter does, with the bits kept between calls and without, on the
 * AVX2 path where the processor has it and on the SSE2 one. */
#include "mark_scan.h"

#include <stdlib.h>

#include "ctest.h"

/* What mark_scan_next must find from `s` (a line's start): the first '=' or ':' at or after
 * it, its line's start and its '\n' (NULL when none follows before `end`). */
static const char *expected_mark(const char *s, const char *end, const char **line,
                                 const char **nl) {
    const char *ls = s;
    for (const char *p = s; p < end; p++) {
        if (*p == '\n') ls = p + 1;
        if (*p != '=' && *p != ':') continue;
        *line = ls;
        *nl = memchr(p, '\n', (size_t)(end - p));
        return p;
    }
    return NULL;
}

/* Reads the whole of [text, end) line after line as the splitter does: from each mark's line
 * to the line after it, or from a line's start again (a line handed back to the parser). */
static void walk(mark_scan *sc, const char *text, const char *end, int again) {
    mark_scan_forget(sc);
    const char *s = text;
    while (s < end) {
        const char *el = NULL, *enl = NULL, *gl = NULL, *gnl = NULL;
        const char *want = expected_mark(s, end, &el, &enl);
        const char *got = mark_scan_next(sc, s, end, &gl, &gnl);
        CHECK(want == got);
        if (!want || want != got) return;
        CHECK(el == gl);
        CHECK(enl == gnl);
        if (again && (want - text) % 7 == 0 && gl > s) {
            s = gl; /* the same line once more, as after a piece is settled */
            continue;
        }
        if (!gnl) return;
        s = gnl + 1;
    }
}

/* A text of `n` bytes of short and long lines: position lines, name lines, lines with ':'. */
static void make_text(char *text, size_t n, unsigned seed) {
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        int r = rand() % 100;
        text[i] = r < 8 ? '\n' : r < 10 ? '=' : r < 11 ? ':' : (char)('a' + r % 26);
    }
    if (seed % 3 == 0) /* long stretches without a mark */
        for (size_t i = n / 4; i < n / 2; i++)
            if (text[i] == '=' || text[i] == ':') text[i] = '+';
}

int main(void) {
    enum { MAX = 700 };
    static char buf[MAX + 64];
    mark_scan sc;
    mark_scan_init(&sc);
    int avx2 = sc.avx2;
    for (int path = 0; path < 2; path++) {
        sc.avx2 = path ? 0 : avx2;
        for (unsigned seed = 1; seed <= 300; seed++) {
            size_t n = (size_t)(seed * 37 % MAX) + 1;
            /* the text at every offset from a 64-byte boundary */
            char *text = buf + seed % 64;
            make_text(text, n, seed);
            walk(&sc, text, text + n, 0);
            walk(&sc, text, text + n, 1);
        }
    }

    /* by hand: marks at the ends of a 64-byte block and a line that goes on past it */
    char t[200];
    memset(t, 'x', sizeof t);
    t[10] = '\n';
    t[63] = '=';
    t[64] = '\n';
    t[100] = ':';
    t[150] = '\n';
    t[199] = '=';
    const char *line, *nl;
    mark_scan_forget(&sc);
    CHECK(mark_scan_next(&sc, t, t + 200, &line, &nl) == t + 63);
    CHECK(line == t + 11 && nl == t + 64);
    CHECK(mark_scan_next(&sc, t + 65, t + 200, &line, &nl) == t + 100);
    CHECK(line == t + 65 && nl == t + 150);
    CHECK(mark_scan_next(&sc, t + 151, t + 200, &line, &nl) == t + 199);
    CHECK(line == t + 151 && nl == NULL);
    CHECK(mark_scan_next(&sc, t + 151, t + 199, &line, &nl) == NULL);
    return ctest_report("test_mark_scan");
}
