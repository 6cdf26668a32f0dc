/* columns.c - callgrind_annotate's cost columns: widths, counts with thousands separators and
 * percentages, written by hand into the caller's buffer (see report.h). */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define PERCENT_WIDTH 9 /* " (12.34%)" */
#define CELL_SLACK 64   /* what a cell may take beyond its column (a share of 1000% and more) */

size_t cg_format_count(cg_cost v, char *out) {
    char digits[24];
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0) out[len++] = '-';
    while (n > 0) {
        out[len++] = digits[--n];
        if (n > 0 && n % 3 == 0) out[len++] = ',';
    }
    return len;
}

/* The width callgrind_annotate gives a count: its digits (and sign), a separator per three. */
static size_t count_width(cg_cost v) {
    size_t len = 1;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    while (u >= 10) {
        u /= 10;
        len++;
    }
    if (v < 0) len++;
    return len + (len - 1) / 3;
}

void cg_columns_init(cg_columns *c, const char *const *names, size_t n, const cg_cost *totals,
                     int percentages) {
    c->n = n;
    c->percentages = percentages;
    for (size_t i = 0; i < n; i++) {
        c->width[i] = strlen(names[i]);
        c->total[i] = totals ? totals[i] : 0;
    }
}

void cg_columns_fit(cg_columns *c, const cg_cost *values) {
    for (size_t i = 0; i < c->n; i++) {
        size_t w = count_width(values[i]) + (c->percentages ? PERCENT_WIDTH : 0);
        if (w > c->width[i]) c->width[i] = w;
    }
}

size_t cg_columns_max(const cg_columns *c) {
    size_t sum = 0;
    for (size_t i = 0; i < c->n; i++) sum += c->width[i] + 1 + CELL_SLACK;
    return sum + 1;
}

/* " (12.34%)": callgrind_annotate keeps two decimals between -9.995 and 99.995, one beyond;
 * a zero total gives 0. */
static size_t format_share(cg_cost v, cg_cost total, char *out) {
    double share = 0;
    if (total != 0) {
        cg_cost scaled;
        share = __builtin_mul_overflow(v, (cg_cost)100, &scaled) ? (double)v * 100.0 / (double)total
                                                                 : (double)scaled / (double)total;
    }
    if (share >= 0 && share < 99.995) {
        /* " (%5.2f%%)" by hand, which printf would round the same way unless the share is
         * within a millionth of a hundredth's half (left to printf) */
        double x = share * 100;
        long long whole = (long long)x;
        double frac = x - (double)whole;
        if (frac - 0.5 > 1e-6 || 0.5 - frac > 1e-6) {
            long long r = whole + (frac > 0.5);
            int units = (int)(r / 100), cents = (int)(r % 100);
            out[0] = ' ';
            out[1] = '(';
            out[2] = units >= 10 ? (char)('0' + units / 10) : ' ';
            out[3] = (char)('0' + units % 10);
            out[4] = '.';
            out[5] = (char)('0' + cents / 10);
            out[6] = (char)('0' + cents % 10);
            out[7] = '%';
            out[8] = ')';
            return 9;
        }
    }
    int n = (-9.995 < share && share < 99.995) ? snprintf(out, 40, " (%5.2f%%)", share)
                                               : snprintf(out, 40, " (%5.1f%%)", share);
    return n > 0 ? (size_t)n : 0;
}

size_t cg_columns_cells(const cg_columns *c, const cg_cost *values, int zero_dot, char *out) {
    size_t len = 0;
    for (size_t i = 0; i < c->n; i++) {
        char text[80];
        size_t t;
        int none = !values || (zero_dot && values[i] == 0);
        if (none) {
            text[0] = '.';
            t = 1;
        } else {
            t = cg_format_count(values[i], text);
        }
        if (c->percentages) {
            if (!none && values[i] != 0) {
                t += format_share(values[i], c->total[i], text + t);
            } else {
                memset(text + t, ' ', PERCENT_WIDTH);
                t += PERCENT_WIDTH;
            }
        }
        if (t < c->width[i]) {
            memset(out + len, ' ', c->width[i] - t);
            len += c->width[i] - t;
        }
        memcpy(out + len, text, t);
        len += t;
        out[len++] = ' ';
    }
    return len;
}

size_t cg_columns_heading(const cg_columns *c, const char *const *names, char *out) {
    size_t len = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t t = strlen(names[i]);
        if (t > CELL_SLACK + c->width[i]) t = CELL_SLACK + c->width[i];
        memcpy(out + len, names[i], t);
        len += t;
        if (t < c->width[i]) {
            memset(out + len, ' ', c->width[i] - t);
            len += c->width[i] - t;
        }
        out[len++] = ' ';
    }
    return len;
}
