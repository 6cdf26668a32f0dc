/*
 * tokenize.c - the floor of a loader: reads a profile the way the core does and parses every
 * number on every line, keeping nothing.
 *
 *   tokenize FILE [REPEAT]
 *
 * The bytes come through the core's own reader (csrc/reader.c, linked from libcallgrind.a):
 * the same 2 MiB chunks, the same gzip inflation, the same whole-line hand-over. Instead of the
 * parser, each line is split and its numbers parsed with the core's number scanner
 * (numparse.h): every token of a position or cost line (`+3 * 17`, `0x4a2c0 12 5`), the
 * numbers after `calls=`, `jump=` and `jcnd=`, and the id of a name line (`fn=(123) name`).
 * No name is looked up, no record kept, no state carried from one line to the next. The sum of
 * the numbers is printed so that none of the work can be left out by the compiler.
 *
 * Prints `key value` lines: seconds (one per run), lines, numbers, checksum.
 *
 * The reader hands its lines to a line sink (reader.h): here, the tokenizer below. No parser
 * or builder is involved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numparse.h"
#include "reader.h"

/* What the lines held, kept where the reader passes it along untouched. */
typedef struct tally {
    uint64_t lines, numbers, checksum;
} tally;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses the numbers of [s, end) separated by spaces, tabs or `sep`; `*` stands for a number
 * and is skipped, as is anything that is not one. */
static void numbers(tally *t, const char *s, const char *end, char sep) {
    while (s < end) {
        char c = *s;
        if (is_space(c) || c == sep || c == '*' || c == '+' || c == '-') {
            s++;
            continue;
        }
        uint64_t v;
        if (scan_u64(&s, end, &v) == ST_BAD) {
            while (s < end && !is_space(*s)) s++;
            continue;
        }
        t->numbers++;
        t->checksum += v;
    }
}

static int starts(const char *s, const char *end, const char *word, size_t n) {
    return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

static void tokenize_line(tally *t, const char *s, const char *end) {
    if (s == end) return;
    char c = *s;
    if (is_digit(c) || c == '+' || c == '-' || c == '*') {
        numbers(t, s, end, ' ');
    } else if (starts(s, end, "calls=", 6)) {
        numbers(t, s + 6, end, ' ');
    } else if (starts(s, end, "jump=", 5) || starts(s, end, "jcnd=", 5)) {
        numbers(t, s + 5, end, '/');
    } else {
        /* a name line: the id in `key=(id)`, the name itself left alone */
        const char *eq = memchr(s, '=', (size_t)(end - s));
        if (eq && eq + 1 < end && eq[1] == '(') {
            const char *p = eq + 2;
            uint64_t v;
            if (scan_u64(&p, end, &v) != ST_BAD) {
                t->numbers++;
                t->checksum += v;
            }
        }
    }
}

static int tokenize_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    (void)err;
    tally *t = ctx;
    const char *s = data, *end = data + size;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        t->lines++;
        tokenize_line(t, s, eol);
        s = nl ? nl + 1 : end;
    }
    return 0;
}

static int damaged(void *ctx, const char *what, cg_error *err) {
    (void)ctx;
    (void)err;
    fprintf(stderr, "tokenize: %s\n", what);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: tokenize FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc == 3 ? atoi(argv[2]) : 1;
    if (repeat < 1) repeat = 1;
    tally t = {0, 0, 0};
    read_options opts = {argv[1], NULL, NULL};
    line_sink sink = {&t, tokenize_lines, damaged, NULL, NULL};
    for (int run = 0; run < repeat; run++) {
        cg_error err;
        memset(&err, 0, sizeof err);
        memset(&t, 0, sizeof t);
        double t0 = now();
        int rc = read_file(argv[1], &opts, &sink, &err);
        double t1 = now();
        if (rc) {
            printf("error %s\n", err.message);
            return 1;
        }
        printf("seconds %.6f\n", t1 - t0);
        fflush(stdout);
    }
    printf("lines %llu\n", (unsigned long long)t.lines);
    printf("numbers %llu\n", (unsigned long long)t.numbers);
    printf("checksum %llu\n", (unsigned long long)t.checksum);
    return 0;
}
