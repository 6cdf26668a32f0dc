/* The public C API end to end: loading from memory and gzip, every accessor on the
 * specification's extended example, several inputs in one model, errors and aborts. */
#include <stdlib.h>
#include <zlib.h>

#include "callgrind.h"
#include "ctest.h"

static const char extended[] = "# callgrind format\n"
                               "events: Instructions\n"
                               "fl=(1) file1.c\n"
                               "fn=(1) main\n"
                               "16 20\n"
                               "cfn=(2) func1\n"
                               "calls=1 50\n"
                               "16 400\n"
                               "cfi=(2) file2.c\n"
                               "cfn=(3) func2\n"
                               "calls=3 20\n"
                               "16 400\n"
                               "fn=(2)\n"
                               "51 100\n"
                               "cfi=(2)\n"
                               "cfn=(3)\n"
                               "calls=2 20\n"
                               "51 300\n"
                               "fl=(2)\n"
                               "fn=(3)\n"
                               "20 700\n";

static cg_cost cost(const cg_profile *p, const cg_cost *row, const char *event) {
    cg_cost v = -1;
    CHECK_INT(CG_OK, cg_cost_of(p, row, cg_event_index(p, event), &v));
    return v;
}

static void check_extended(cg_profile *p) {
    CHECK_INT(1, cg_raw_event_count(p));
    CHECK_STR("Instructions", cg_event_name(p, 0));
    CHECK_INT(820, cost(p, cg_total_costs(p), "Instructions"));
    CHECK_INT(3, cg_function_count(p));
    size_t main_fn = cg_find_function(p, "main", NULL, NULL, CG_NONE);
    size_t func2 = cg_find_function(p, "func2", "file2.c", NULL, CG_NONE);
    CHECK(main_fn != CG_NONE && func2 != CG_NONE);
    CHECK_INT(CG_NONE, cg_find_function(p, "func2", "file1.c", NULL, CG_NONE));
    CHECK_INT(CG_NONE, cg_find_function(p, "nothing", NULL, NULL, CG_NONE));
    CHECK_STR("file1.c", cg_function_file(p, main_fn));
    CHECK_STR("", cg_function_object(p, main_fn));
    CHECK_INT(820, cost(p, cg_function_inclusive(p, main_fn), "Instructions"));
    CHECK_INT(20, cost(p, cg_function_self(p, main_fn), "Instructions"));
    CHECK_INT(700, cost(p, cg_function_self(p, func2), "Instructions"));
    CHECK_INT(5, cg_function_called(p, func2));
    CHECK_INT(CG_NONE, cg_function_cycle(p, func2));
    CHECK_INT(2, cg_function_callee_count(p, main_fn));
    CHECK_INT(2, cg_function_caller_count(p, func2));
    size_t call = cg_function_callee(p, main_fn, 1);
    CHECK_INT(func2, cg_call_callee(p, call));
    CHECK_INT(main_fn, cg_call_caller(p, call));
    CHECK_INT(3, cg_call_times(p, call));
    CHECK_STR("file1.c", cg_call_file(p, call));
    CHECK_INT(16, cg_call_line(p, call));
    CHECK_INT(20, cg_call_target_line(p, call));
    CHECK_INT(400, cost(p, cg_call_inclusive(p, call), "Instructions"));
    CHECK_INT(1, cg_function_line_count(p, func2));
    cg_line_cursor cursor;
    cg_line line;
    cg_line_cursor_init(&cursor, p, func2);
    CHECK_INT(1, cg_line_cursor_next(&cursor, &line));
    CHECK_INT(20, line.line);
    CHECK_STR("file2.c", line.file);
    CHECK_INT(700, cost(p, line.costs, "Instructions"));
    CHECK_INT(0, cg_line_cursor_next(&cursor, &line));
    CHECK_INT(3, cg_line_count(p));
    CHECK_INT(CG_POS_LINE, cg_positions(p));
    CHECK_INT(1, cg_section_count(p));
    CHECK_INT(0, cg_warning_count(p));
}

static void test_extended(void) {
    cg_error err;
    cg_profile *p = cg_load_buffer(extended, sizeof extended - 1, "ext", NULL, &err);
    CHECK(p != NULL);
    if (!p) return;
    check_extended(p);
    cg_profile_free(p);
}

static void test_gzip_buffer(void) {
    uLongf size = compressBound(sizeof extended) + 32;
    unsigned char *gz = malloc(size);
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)extended;
    z.avail_in = sizeof extended - 1;
    z.next_out = gz;
    z.avail_out = (unsigned)size;
    CHECK_INT(Z_STREAM_END, deflate(&z, Z_FINISH));
    size_t gz_len = size - z.avail_out;
    deflateEnd(&z);
    cg_error err;
    cg_profile *p = cg_load_buffer(gz, gz_len, "ext.gz", NULL, &err);
    CHECK(p != NULL);
    if (p) check_extended(p);
    cg_profile_free(p);
    /* cut short: strict fails, tolerant keeps what arrived */
    p = cg_load_buffer(gz, gz_len - 12, "cut.gz", NULL, &err);
    CHECK(p == NULL);
    CHECK_INT(CG_ERR_FORMAT, err.code);
    CHECK(strstr(err.message, "gzip data ends early") != NULL);
    cg_options tolerant = {.tolerant = 1};
    p = cg_load_buffer(gz, gz_len - 12, "cut.gz", &tolerant, &err);
    CHECK(p != NULL);
    if (p) CHECK(cg_warning_count(p) >= 1);
    cg_profile_free(p);
    free(gz);
}

static void test_several_inputs(void) {
    cg_error err;
    cg_loader *ld = cg_loader_new(NULL, &err);
    const char other[] = "events: Dr Instructions\nfl=file1.c\nfn=main\n16 5 7\n";
    CHECK_INT(0, cg_loader_add_buffer(ld, extended, sizeof extended - 1, "a", &err));
    CHECK_INT(0, cg_loader_add_buffer(ld, other, sizeof other - 1, "b", &err));
    cg_profile *p = cg_loader_finish(ld, &err);
    CHECK(p != NULL);
    if (!p) return;
    CHECK_INT(2, cg_raw_event_count(p));
    CHECK_INT(2, cg_section_count(p));
    CHECK_STR("b", cg_section_source(p, 1));
    size_t main_fn = cg_find_function(p, "main", NULL, NULL, CG_NONE);
    CHECK_INT(27, cost(p, cg_function_self(p, main_fn), "Instructions"));
    CHECK_INT(5, cost(p, cg_function_self(p, main_fn), "Dr"));
    CHECK_INT(827, cost(p, cg_total_costs(p), "Instructions"));
    CHECK_INT(1, cg_function_line_count(p, main_fn)); /* line 16 of both inputs, summed */
    cg_profile_free(p);
}

static int abort_at_once(void *ud, uint64_t done, uint64_t total) {
    (void)done;
    (void)total;
    ++*(int *)ud;
    return 1;
}

static void test_errors(void) {
    cg_error err;
    cg_profile *p = cg_load_file("/nonexistent/callgrind.out", NULL, &err);
    CHECK(p == NULL);
    CHECK_INT(CG_ERR_IO, err.code);
    CHECK_STR("/nonexistent/callgrind.out: No such file or directory", err.message);
    p = cg_load_file("/", NULL, &err);
    CHECK(p == NULL);
    CHECK_STR("/: is a directory", err.message);
    const char bad[] = "events: Ir\nfn=main\n1 2 3\n";
    p = cg_load_buffer(bad, sizeof bad - 1, "bad", NULL, &err);
    CHECK(p == NULL);
    CHECK_INT(3, err.line);
    CHECK_STR("bad:3: too many costs: 'events:' lists 1 event", err.message);
    int calls = 0;
    cg_options opts = {.progress = abort_at_once, .progress_userdata = &calls};
    p = cg_load_buffer(extended, sizeof extended - 1, "ext", &opts, &err);
    CHECK(p == NULL);
    CHECK_INT(1, calls);
    CHECK_INT(CG_ERR_ABORTED, err.code);
}

/* A profile of `text` loaded strictly from memory, checked to load. */
static cg_profile *load_text(const char *text, size_t len) {
    cg_error err;
    cg_profile *p = cg_load_buffer(text, len, "in", NULL, &err);
    CHECK(p != NULL);
    return p;
}

/* What a binding shows without computing it: per-line sums and typed header fields. */
static void test_line_sums_and_header_fields(void) {
    const char text[] = "pid: 4242\n"
                        "cmd: ./prog --fast\n"
                        "desc: I1 cache: 32768 B, 64 B\n"
                        "thread: x1\n"
                        "events: Ir\n"
                        "fl=a.c\n"
                        "fn=main\n"
                        "3 10\n"
                        "4 5\n"
                        "fi=b.h\n"
                        "3 7\n"
                        "fe=a.c\n"
                        "3 1\n"
                        "fn=other\n"
                        "3 100\n";
    cg_error err;
    cg_profile *p = load_text(text, sizeof text - 1);
    if (!p) return;
    cg_line_sums *s = cg_line_sums_build(p, 0, NULL, 0, cg_function_count(p), &err);
    CHECK(s != NULL);
    CHECK_INT(3, cg_line_sums_count(s));
    cg_cost a3 = -1, a4 = -1, b3 = -1;
    for (size_t i = 0; i < cg_line_sums_count(s); i++) {
        const char *file = cg_line_sums_file(s, i);
        uint64_t line = cg_line_sums_line(s, i);
        cg_cost v = cg_line_sums_cost(s, i);
        if (!strcmp(file, "a.c") && line == 3) a3 = v;
        if (!strcmp(file, "a.c") && line == 4) a4 = v;
        if (!strcmp(file, "b.h") && line == 3) b3 = v;
    }
    CHECK_INT(111, a3); /* main's 10 + 1 and other's 100 */
    CHECK_INT(5, a4);
    CHECK_INT(7, b3);
    cg_line_sums_free(s);
    size_t main_fn = cg_find_function(p, "main", NULL, NULL, CG_NONE);
    s = cg_line_sums_build(p, 0, "b.h", main_fn, main_fn + 1, &err);
    CHECK_INT(1, cg_line_sums_count(s));
    CHECK_INT(7, cg_line_sums_cost(s, 0));
    cg_line_sums_free(s);
    s = cg_line_sums_build(p, 0, "absent.c", 0, cg_function_count(p), &err);
    CHECK_INT(0, cg_line_sums_count(s));
    cg_line_sums_free(s);

    cg_header_field f;
    cg_section_header_field(p, 0, 0, &f);
    CHECK_INT(CG_FIELD_NUMBER, f.kind);
    CHECK_INT(4242, f.number);
    cg_section_header_field(p, 0, 1, &f);
    CHECK_INT(CG_FIELD_TEXT, f.kind);
    CHECK_STR("./prog --fast", f.text);
    cg_section_header_field(p, 0, 2, &f);
    CHECK_INT(CG_FIELD_DESC, f.kind);
    CHECK_INT(8, f.name_len);
    CHECK(!strncmp("I1 cache", f.name, f.name_len));
    CHECK_STR("32768 B, 64 B", f.text);
    cg_section_header_field(p, 0, 3, &f); /* not a number */
    CHECK_INT(CG_FIELD_NONE, f.kind);
    cg_section_header_field(p, 0, 4, &f); /* events: */
    CHECK_INT(CG_FIELD_NONE, f.kind);
    cg_profile_free(p);
}

/* The file index: which functions have code in each file, and whether their records need
 * reading there. */
static void test_file_index(void) {
    const char text[] = "events: Ir\n"
                        "fl=a.c\n"
                        "fn=main\n"
                        "3 10\n"
                        "4 5\n"
                        "fi=b.h\n"
                        "3 7\n"
                        "fe=a.c\n"
                        "3 1\n"
                        "fi=d.h\n"
                        "cfl=c.c\n"
                        "cfn=leaf\n"
                        "calls=1 9\n"
                        "5 2\n"
                        "fn=other\n"
                        "3 100\n"
                        "fl=c.c\n"
                        "fn=leaf\n"
                        "9 2\n";
    cg_error err;
    cg_profile *p = load_text(text, sizeof text - 1);
    if (!p) return;
    CHECK(cg_file_index_built(p) == NULL); /* not built before the first question */
    const cg_file_index *x = cg_file_index_get(p, &err);
    CHECK(x != NULL);
    CHECK(x == cg_file_index_get(p, &err)); /* built once */
    CHECK(x == cg_file_index_built(p));
    CHECK_INT(4, cg_file_index_count(x));
    CHECK_STR("a.c", cg_file_index_name(x, 0));
    CHECK_STR("b.h", cg_file_index_name(x, 1));
    CHECK_STR("c.c", cg_file_index_name(x, 2));
    CHECK_STR("d.h", cg_file_index_name(x, 3));
    CHECK(cg_file_index_find(x, "absent.c") == CG_NONE);
    size_t main_fn = cg_find_function(p, "main", NULL, NULL, CG_NONE);
    size_t other = cg_find_function(p, "other", NULL, NULL, CG_NONE);
    size_t leaf = cg_find_function(p, "leaf", NULL, NULL, CG_NONE);
    uint64_t line = 0;
    size_t k = cg_file_index_find(x, "a.c");
    CHECK_INT(0, k);
    CHECK_INT(2, cg_file_index_function_count(x, k));
    CHECK_INT(main_fn, cg_file_index_function(x, k, 0));
    CHECK_INT(CG_IN_RECORDS, cg_file_index_function_kind(x, k, 0, &line));
    CHECK_INT(other, cg_file_index_function(x, k, 1));
    CHECK_INT(CG_IN_LINE, cg_file_index_function_kind(x, k, 1, &line));
    CHECK_INT(3, line);
    k = cg_file_index_find(x, "b.h");
    CHECK_INT(1, cg_file_index_function_count(x, k));
    CHECK_INT(CG_IN_RECORDS, cg_file_index_function_kind(x, k, 0, NULL));
    k = cg_file_index_find(x, "c.c");
    CHECK_INT(1, cg_file_index_function_count(x, k));
    CHECK_INT(leaf, cg_file_index_function(x, k, 0));
    CHECK_INT(CG_IN_LINE, cg_file_index_function_kind(x, k, 0, &line));
    CHECK_INT(9, line);
    k = cg_file_index_find(x, "d.h"); /* main's call only */
    CHECK_INT(1, cg_file_index_function_count(x, k));
    CHECK_INT(main_fn, cg_file_index_function(x, k, 0));
    CHECK_INT(CG_IN_CALLS, cg_file_index_function_kind(x, k, 0, NULL));

    cg_line_sums *s = cg_line_sums_build_file(p, 0, "a.c", &err);
    CHECK(s != NULL);
    CHECK_INT(2, cg_line_sums_count(s));
    for (size_t i = 0; i < cg_line_sums_count(s); i++) {
        CHECK_STR("a.c", cg_line_sums_file(s, i));
        CHECK_INT(cg_line_sums_line(s, i) == 3 ? 111 : 5, cg_line_sums_cost(s, i));
    }
    cg_line_sums_free(s);
    s = cg_line_sums_build_file(p, 0, "d.h", &err);
    CHECK_INT(0, cg_line_sums_count(s));
    cg_line_sums_free(s);
    cg_profile_free(p);
}

/* cg_function_single_file: the one file of a function's records, NULL for several or none. */
static void test_single_file(void) {
    const char text[] = "events: Ir\n"
                        "fl=a.c\n"
                        "fn=mixed\n"
                        "3 10\n"
                        "fi=b.h\n"
                        "3 7\n"
                        "fe=a.c\n"
                        "4 1\n"
                        "fn=own\n"
                        "5 1\n"
                        "6 2\n"
                        "fn=inlined\n"
                        "fi=e.h\n"
                        "7 1\n"
                        "8 1\n"
                        "fn=caller\n"
                        "cfn=own\n"
                        "calls=1 5\n"
                        "9 3\n";
    cg_profile *p = load_text(text, sizeof text - 1);
    if (!p) return;
    CHECK(cg_function_single_file(p, cg_find_function(p, "mixed", NULL, NULL, CG_NONE)) == NULL);
    CHECK_STR("a.c", cg_function_single_file(p, cg_find_function(p, "own", NULL, NULL, CG_NONE)));
    CHECK_STR("e.h",
              cg_function_single_file(p, cg_find_function(p, "inlined", NULL, NULL, CG_NONE)));
    /* calls only: no line record */
    CHECK(cg_function_single_file(p, cg_find_function(p, "caller", NULL, NULL, CG_NONE)) == NULL);
    /* the file index knows the same, as the profile's own string */
    cg_error err;
    const cg_file_index *x = cg_file_index_get(p, &err);
    CHECK(x != NULL);
    for (size_t fn = 0; x && fn < cg_function_count(p); fn++)
        CHECK(cg_file_index_single_file(x, fn) == cg_function_single_file(p, fn));
    if (x)
        CHECK_STR("e.h", cg_file_index_single_file(
                             x, cg_find_function(p, "inlined", NULL, NULL, CG_NONE)));
    cg_profile_free(p);
}

typedef struct expected_run {
    const char *file;
    uint64_t line;
    size_t records;
    cg_cost ir, dr;
} expected_run;

/* Reads function fn's runs of `kind` and checks them against the n expected, then the end. */
static void check_runs(const cg_profile *p, size_t fn, int kind, const expected_run *want,
                       size_t n) {
    cg_line_cursor cursor;
    cg_line_run run;
    cg_line_cursor_init(&cursor, p, fn);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(1, cg_line_cursor_next_run(&cursor, kind, &run));
        CHECK_STR(want[i].file, run.file);
        CHECK_INT((long long)want[i].line, (long long)run.line);
        CHECK_INT((long long)want[i].records, (long long)run.records);
        CHECK_INT(want[i].ir, run.costs[0]);
        CHECK_INT(want[i].dr, run.costs[1]);
    }
    CHECK_INT(0, cg_line_cursor_next_run(&cursor, kind, &run));
}

/* Runs of records in one file, and on one line: sums, counts, and records and runs read from
 * one cursor in turn. The second record repeats the first one's cost (a short record). */
static void test_line_runs(void) {
    const char text[] = "positions: instr line\n"
                        "events: Ir Dr\n"
                        "fl=a.c\n"
                        "fn=f\n"
                        "0x10 3 10 1\n"
                        "0x11 3 10\n"
                        "0x12 4 2 2\n"
                        "fi=b.h\n"
                        "0x13 9 7\n"
                        "0x14 9 1 1\n"
                        "fe=a.c\n"
                        "0x15 4 3\n";
    cg_profile *p = load_text(text, sizeof text - 1);
    if (!p) return;
    size_t fn = cg_find_function(p, "f", NULL, NULL, CG_NONE);
    static const expected_run by_file[] = {{"a.c", 4, 3, 22, 3},
                                           {"b.h", 9, 2, 8, 1},
                                           {"a.c", 4, 1, 3, 0}},
                              by_line[] = {{"a.c", 3, 2, 20, 1},
                                           {"a.c", 4, 1, 2, 2},
                                           {"b.h", 9, 2, 8, 1},
                                           {"a.c", 4, 1, 3, 0}};
    check_runs(p, fn, CG_RUN_FILE, by_file, sizeof by_file / sizeof by_file[0]);
    check_runs(p, fn, CG_RUN_LINE, by_line, sizeof by_line / sizeof by_line[0]);
    cg_line_cursor cursor;
    cg_line_run run;
    /* a record, then the rest of its line as a run, then a record again */
    cg_line line;
    cg_line_cursor_init(&cursor, p, fn);
    CHECK_INT(1, cg_line_cursor_next(&cursor, &line));
    CHECK_INT(10, line.costs[0]);
    CHECK_INT(1, cg_line_cursor_next_run(&cursor, CG_RUN_LINE, &run));
    CHECK_INT(1, (long long)run.records);
    CHECK_INT(10, run.costs[0]);
    CHECK_INT(0, run.costs[1]);
    CHECK_INT(1, cg_line_cursor_next(&cursor, &line));
    CHECK_INT(0x12, (long long)line.addr);
    CHECK_INT(2, line.costs[1]);
    cg_profile_free(p);
}

int main(void) {
    test_extended();
    test_single_file();
    test_line_runs();
    test_line_sums_and_header_fields();
    test_file_index();
    test_gzip_buffer();
    test_several_inputs();
    test_errors();
    return ctest_report("test_load");
}
