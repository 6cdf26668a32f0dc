/* Line streams: whatever order records are appended in, the finished stream holds each position
 * once, in (address, line, file name) order, with the costs summed; compactions while appending
 * (with or without the strings) and the final one agree with a plain sort of the same records. */
#include <stdio.h>
#include <stdlib.h>

#include "ctest.h"
#include "lines.h"
#include "strtab.h"

enum { MAX_RECORDS = 20000, NRAW = 6 };

typedef struct rec {
    uint32_t file;
    uint64_t line, addr;
    cg_cost costs[NRAW];
} rec;

static const strtab *order_strings;

static int rec_cmp(const void *a, const void *b) {
    const rec *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(strtab_get(order_strings, x->file), strtab_get(order_strings, y->file));
}

/* The expected stream: the records sorted, equal positions summed (no overflow in these). */
static size_t reference(rec *v, size_t n, rec *out) {
    qsort(v, n, sizeof *v, rec_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && rec_cmp(&out[m - 1], &v[i]) == 0) {
            for (int e = 0; e < NRAW; e++) out[m - 1].costs[e] += v[i].costs[e];
        } else {
            out[m++] = v[i];
        }
    }
    return m;
}

/* Appends `n` records (in the order given), finishes and compares with the reference. */
/* `nraw` events (at most NRAW): the costs after them are left out. One event takes copies of
 * the stream's paths made for it (lines.c). */
static void check_events(const rec *in, size_t n, const strtab *strings, int strings_busy,
                         size_t nraw) {
    static rec copy[MAX_RECORDS], want[MAX_RECORDS];
    line_store s;
    line_scratch scratch;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(ST_OK, line_append(&s, in[i].file, in[i].line, in[i].addr, in[i].costs, nraw,
                                     strings_busy ? NULL : strings, nraw, &scratch));
    CHECK_INT(ST_OK, line_finish(&s, strings, nraw, &scratch));
    memcpy(copy, in, n * sizeof *in);
    size_t m = reference(copy, n, want);
    CHECK_INT(m, s.count);
    line_reader r;
    line_reader_init(&r, &s);
    cg_cost costs[NRAW];
    int same = 1;
    for (size_t i = 0; i < m; i++) {
        if (!line_reader_next(&r, costs, nraw)) {
            same = 0;
            break;
        }
        same &= r.file == want[i].file && r.line == want[i].line && r.addr == want[i].addr;
        for (size_t e = 0; e < nraw; e++) same &= costs[e] == want[i].costs[e];
    }
    CHECK(same);
    CHECK_INT(0, line_reader_next(&r, costs, nraw));
    /* byte for byte the stream of the expected records appended in order: whatever the
     * compactions copied rather than encoded again is encoded as line_append encodes */
    line_store direct;
    memset(&direct, 0, sizeof direct);
    for (size_t i = 0; i < m; i++)
        CHECK_INT(ST_OK, line_append(&direct, want[i].file, want[i].line, want[i].addr,
                                     want[i].costs, nraw, strings, nraw, &scratch));
    CHECK_INT(ST_OK, line_finish(&direct, strings, nraw, &scratch));
    CHECK_INT(direct.used, s.used);
    CHECK(direct.used == s.used && memcmp(direct.data, s.data, s.used) == 0);
    line_store_free(&direct, NULL);
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);
}

/* With NRAW events (costs decoded only where the compaction needs them), three (decoded in one
 * pass) and one. */
static void check_stream(const rec *in, size_t n, const strtab *strings, int strings_busy) {
    check_events(in, n, strings, strings_busy, NRAW);
    check_events(in, n, strings, strings_busy, 3);
    check_events(in, n, strings, strings_busy, 1);
}

/* The bytes each record takes (lines.h): a record of one cost in the last one's file, at most
 * 15 addresses on, is short (a byte for both steps when the line moves by 0 to 2, the line
 * step's varint after it otherwise; no cost when it is the last record's first); any other is
 * long. Read back as written. */
static void check_record_sizes(const strtab *strings, uint32_t file, uint32_t other) {
    static const struct {
        uint32_t file;
        uint64_t line, addr;
        cg_cost cost;
        size_t bytes;
    } recs[] = {
        {0, 10, 0x1000, 5, 6},   /* the first: long (header, file, 0x2000 in two, line, cost) */
        {0, 10, 0x1005, 5, 1},   /* short, the cost repeated: the header alone */
        {0, 12, 0x1014, 300, 3}, /* short, line +2, address +15, a cost in two bytes */
        {0, 9, 0x1015, 300, 2},  /* short, line -3: its step as a varint, the cost repeated */
        {0, 9, 0x1015, 7, 2},    /* short, the same position again, a new cost */
        {0, 10, 0x1016, 7, 1},   /* short, line +1, the cost repeated */
        {0, 14, 0x1017, 8, 3},   /* short, line +4: its step as a varint, a new cost */
        {0, 14, 0x1027, 8, 4},   /* address +16: long (header, address, line, cost) */
        {0, 14, 0x1020, 8, 4},   /* address back: long */
        {0, 15, 0x1021, 0, 3},   /* no cost: long (header, address, line) */
        {0, 15, 0x1022, 8, 2},   /* short: the last record's first cost is 0, not 8 */
        {1, 15, 0x1023, 8, 5},   /* another file: long (header, file, address, line, cost) */
    };
    enum { N = sizeof recs / sizeof recs[0] };
    line_store s;
    line_scratch scratch;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    for (size_t i = 0; i < N; i++) {
        size_t before = s.used;
        cg_cost cost = recs[i].cost;
        CHECK_INT(ST_OK, line_append_uncompacted(&s, recs[i].file ? other : file, recs[i].line,
                                                 recs[i].addr, &cost, 1, &scratch));
        CHECK_INT(recs[i].bytes, s.used - before);
    }
    line_reader r;
    line_reader_init(&r, &s);
    for (size_t i = 0; i < N; i++) {
        cg_cost cost = -1;
        CHECK(line_reader_next(&r, &cost, 1));
        CHECK_INT(recs[i].file ? other : file, r.file);
        CHECK_INT(recs[i].line, r.line);
        CHECK_INT(recs[i].addr, r.addr);
        CHECK_INT(recs[i].cost, cost);
    }
    CHECK_INT(ST_OK, line_finish(&s, strings, 1, &scratch)); /* sums the repeated position */
    CHECK_INT(N - 1, s.count);
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);
}

/* A stream whose compaction summed most of its records says so (its next compaction decodes
 * every cost at once), and so does the scratch space (for the next stream compacted the first
 * time); one whose blocks meet at a position or two does not. */
static void check_sums_most(const strtab *strings, uint32_t file) {
    enum { BLOCK = 300 };
    cg_cost costs[NRAW] = {1, 2, 3, 4, 5, 6};
    for (int repeat = 0; repeat < 2; repeat++) {
        line_store s;
        line_scratch scratch;
        memset(&s, 0, sizeof s);
        memset(&scratch, 0, sizeof scratch);
        /* repeat: the block again and again; else blocks of other positions meeting at one */
        for (uint32_t b = 0; b < 6; b++)
            for (uint32_t k = 0; k < BLOCK; k++) {
                uint64_t addr = repeat ? 0x1000 + k : 0x1000 + (5 - b) * (BLOCK - 1) + k;
                CHECK_INT(ST_OK,
                          line_append(&s, file, 7, addr, costs, NRAW, strings, NRAW, &scratch));
            }
        CHECK_INT(ST_OK, line_finish(&s, strings, NRAW, &scratch));
        CHECK_INT(repeat ? BLOCK : 6 * (BLOCK - 1) + 1, s.count);
        CHECK_INT(repeat ? LINE_SUMS_MOST : LINE_SUMS_FEW, s.sums);
        CHECK_INT(repeat, scratch.sums_most); /* the guess for the next new stream */
        line_reader r;
        line_reader_init(&r, &s);
        cg_cost got[NRAW];
        CHECK(line_reader_next(&r, got, NRAW));
        CHECK_INT(repeat ? 6 * 6 : 6, got[5]); /* 0x1000 six times, or once */
        line_store_free(&s, NULL);
        line_scratch_free(&scratch);
    }
}

/* A function's second block is not compacted into its first at once: the records of the first
 * run count as distinct, and a stream is compacted at LINE_COMPACT_AT times as many and 256
 * more. */
static void check_compaction_point(const strtab *strings, uint32_t file) {
    enum { BLOCK = 300, AT = LINE_COMPACT_AT * BLOCK + 256 };
    line_store s;
    line_scratch scratch;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    cg_cost one[1] = {1};
    uint32_t k = 0;
    for (; k < BLOCK; k++)
        CHECK_INT(ST_OK, line_append(&s, file, 7, 0x1000 + k, one, 1, strings, 1, &scratch));
    CHECK_INT(ST_OK, line_append(&s, file, 7, 0x1000, one, 1, strings, 1, &scratch));
    k++;
    CHECK_INT(BLOCK + 1, s.count); /* appended: the second block has begun */
    CHECK_INT(BLOCK, s.distinct);
    CHECK_INT(2, s.runs);
    for (; k < AT - 1; k++)
        CHECK_INT(ST_OK,
                  line_append(&s, file, 7, 0x1000 + k % BLOCK, one, 1, strings, 1, &scratch));
    CHECK_INT(AT - 1, s.count);
    CHECK_INT(ST_OK, line_append(&s, file, 7, 0x1000 + k % BLOCK, one, 1, strings, 1, &scratch));
    k++;
    CHECK_INT(BLOCK, s.count); /* compacted: each position once */
    CHECK_INT(1, s.runs);
    CHECK_INT(ST_OK, line_finish(&s, strings, 1, &scratch));
    line_reader r;
    line_reader_init(&r, &s);
    cg_cost cost;
    CHECK(line_reader_next(&r, &cost, 1));
    CHECK_INT(0x1000, r.addr);
    CHECK_INT((k + BLOCK - 1) / BLOCK, cost); /* appended 0x1000 this many times */
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);
}

/* Callgrind's shape: the code cut into basic blocks, written in shuffled order, a block's last
 * instruction sometimes also the next block's first (they meet at one position). */
static size_t basic_blocks(const rec *code, size_t size, rec *in) {
    static size_t begin[4001];
    size_t nb = 0, n = 0;
    for (size_t i = 0; i < size; i += 1 + ctest_rnd() % 12) begin[nb++] = i;
    begin[nb] = size;
    size_t order[4000];
    for (size_t b = 0; b < nb; b++) order[b] = b;
    for (size_t b = nb; b > 1; b--) {
        size_t j = ctest_rnd() % b, t = order[b - 1];
        order[b - 1] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < nb; k++) {
        size_t b = order[k], end = begin[b + 1];
        if (end < size && ctest_rnd() % 3 == 0) end++; /* meets the next block */
        /* a block's instructions run as often as each other (one cost row for most of them),
         * half the blocks with one event */
        cg_cost row[NRAW];
        for (int e = 0; e < NRAW; e++) row[e] = (cg_cost)(ctest_rnd() % 100);
        if (ctest_rnd() % 2 == 0)
            for (int e = 1; e < NRAW; e++) row[e] = 0;
        for (size_t i = begin[b]; i < end; i++) {
            in[n] = code[i];
            memcpy(in[n].costs, row, sizeof row);
            if (ctest_rnd() % 4 == 0) in[n].costs[0] = (cg_cost)(ctest_rnd() % 100);
            if (ctest_rnd() % 4 == 0) in[n].costs[2] = 0;
            n++;
        }
    }
    return n;
}

/* A function's code: `size` instructions, some sharing an address with another line or file
 * (inlined code), in address order. */
static size_t make_code(rec *code, size_t size, const uint32_t *files) {
    uint64_t addr = 0x1000;
    for (size_t i = 0; i < size; i++) {
        code[i].addr = addr;
        code[i].line = 10 + ctest_rnd() % 50;
        code[i].file = files[ctest_rnd() % 3];
        if (i && ctest_rnd() % 6 == 0) { /* same address, later line or another file */
            code[i].addr = code[i - 1].addr;
            if (ctest_rnd() % 2)
                code[i].line = code[i - 1].line + 1 + ctest_rnd() % 3;
            else {
                code[i].line = code[i - 1].line;
                code[i].file = code[i - 1].file == files[0] ? files[1] : files[0];
            }
        }
        addr = code[i].addr + 1 + ctest_rnd() % 6;
        for (int e = 0; e < NRAW; e++) code[i].costs[e] = 0;
    }
    return size;
}

int main(void) {
    static rec code[4000], in[MAX_RECORDS];
    strtab t;
    CHECK_INT(0, strtab_init(&t, 99));
    order_strings = &t;
    /* ids in the opposite order of the names */
    uint32_t files[3];
    files[0] = (uint32_t)strtab_intern(&t, "z.h", 3);
    files[1] = (uint32_t)strtab_intern(&t, "m.c", 3);
    files[2] = (uint32_t)strtab_intern(&t, "a.h", 3);

    for (int round = 0; round < 60; round++) {
        size_t size = 1 + ctest_rnd() % (round < 30 ? 300 : 3000);
        make_code(code, size, files);
        /* blocks: each a subset of the code in address order (one run), some reversed or
         * shuffled (many runs), as many as fit */
        size_t n = 0;
        int shape = round % 3;
        while (n < MAX_RECORDS - size) {
            size_t start = n;
            for (size_t i = 0; i < size; i++) {
                if (ctest_rnd() % 4 == 0) continue;
                in[n] = code[i];
                for (int e = 0; e < NRAW; e++)
                    in[n].costs[e] = (cg_cost)(ctest_rnd() % 1000) - (e == 2 ? 500 : 0);
                if (ctest_rnd() % 5 == 0) in[n].costs[1] = 0;
                if (ctest_rnd() % 3 == 0) /* one cost: a short record with any number of events */
                    for (int e = 1; e < NRAW; e++) in[n].costs[e] = 0;
                if (n > start && ctest_rnd() % 2 == 0) /* the costs of the record before */
                    memcpy(in[n].costs, in[n - 1].costs, sizeof in[n].costs);
                n++;
            }
            if (shape == 1 && ctest_rnd() % 3 == 0) /* a block backwards: every record a run */
                for (size_t i = start, j = n; i + 1 < j; i++, j--) {
                    rec tmp = in[i];
                    in[i] = in[j - 1];
                    in[j - 1] = tmp;
                }
            if (shape == 2) /* shuffled */
                for (size_t i = n; i > start + 1; i--) {
                    size_t j = start + ctest_rnd() % (i - start);
                    rec tmp = in[i - 1];
                    in[i - 1] = in[j];
                    in[j] = tmp;
                }
            if (ctest_rnd() % 3 == 0) break;
        }
        check_stream(in, n, &t, 0);
        check_stream(in, n, &t, 1); /* strings busy: ties by id until line_finish */
    }

    for (int round = 0; round < 40; round++) {
        size_t size = 1 + ctest_rnd() % (round < 20 ? 200 : 3000);
        make_code(code, size, files);
        size_t n = basic_blocks(code, size, in);
        check_stream(in, n, &t, 0);
        check_stream(in, n, &t, 1);
    }

    /* one address and line in many files, block after block: the compacted form holds them in
     * name order, which the file ids (given in reverse) do not follow */
    {
        static uint32_t many[40];
        for (int f = 0; f < 40; f++) {
            char name[16];
            int len = snprintf(name, sizeof name, "f%02d.h", 39 - f);
            many[f] = (uint32_t)strtab_intern(&t, name, (size_t)len);
        }
        size_t n = 0;
        for (int block = 0; block < 30; block++)
            for (int f = 0; f < 40; f += 1 + block % 3) {
                in[n] = (rec){many[f], 5, 0x10, {block + 1, f, 1}};
                n++;
                in[n] = (rec){many[f], 6 + block % 2, 0x10, {1, 0, 0}};
                n++;
            }
        check_stream(in, n, &t, 0);
        check_stream(in, n, &t, 1);
    }

    /* a sorted stream is final as it is; two records at one position are summed */
    rec two[3] = {{files[0], 5, 0x10, {1, 2, 3}},
                  {files[0], 6, 0x10, {1, 0, 0}},
                  {files[0], 5, 0x10, {10, 20, 30}}};
    check_stream(two, 2, &t, 0);
    check_stream(two, 3, &t, 0);

    check_record_sizes(&t, files[0], files[1]);
    check_compaction_point(&t, files[0]);
    check_sums_most(&t, files[0]);

    /* a sum that does not fit: the compaction says so */
    line_store s;
    line_scratch scratch;
    memset(&s, 0, sizeof s);
    memset(&scratch, 0, sizeof scratch);
    cg_cost big[1] = {INT64_MAX};
    CHECK_INT(ST_OK, line_append(&s, files[0], 1, 0x20, big, 1, &t, 1, &scratch));
    CHECK_INT(ST_OK, line_append(&s, files[0], 1, 0x10, big, 1, &t, 1, &scratch));
    CHECK_INT(ST_OK, line_append(&s, files[0], 1, 0x20, big, 1, &t, 1, &scratch));
    CHECK_INT(ST_OVERFLOW, line_finish(&s, &t, 1, &scratch));
    line_store_free(&s, NULL);
    line_scratch_free(&scratch);

    strtab_free(&t);
    return ctest_report("test_lines");
}
