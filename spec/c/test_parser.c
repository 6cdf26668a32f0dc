/* The parser on its own: lines in, a builder's model out, with no loader, reader or analysis
 * behind it. Inputs fed in one run or line by line give the same model; faults come out as
 * errors or warnings at the right line; sections are kept or left out as the builder's choice
 * says. */
#include <stdlib.h>

#include "ctest.h"
#include "parser.h"

typedef struct bench {
    builder b;
    parser ps;
    cg_error err;
} bench;

static void start(bench *t, int tolerant, const section_choice *choice) {
    CHECK_INT(ST_OK, builder_init(&t->b, choice, 0, 0));
    parser_init(&t->ps, &t->b, tolerant);
    uint32_t source;
    CHECK_INT(ST_OK, build_string(&t->b, "in", 2, &source));
    parse_begin(&t->ps, "in", source);
    memset(&t->err, 0, sizeof t->err);
}

static void finish(bench *t) {
    parser_free(&t->ps);
    builder_free(&t->b);
}

/* Parses the whole text in one call, or one line per call. */
static int parse(bench *t, const char *text, int by_line) {
    size_t len = strlen(text);
    if (!by_line) return parse_lines(&t->ps, text, len, &t->err);
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl + 1 - s) : (size_t)(end - s);
        if (parse_lines(&t->ps, s, n, &t->err)) return -1;
        s += n;
    }
    return 0;
}

static size_t find(const cg_profile *p, const char *name) {
    for (size_t f = 0; f < cg_function_count(p); f++)
        if (!strcmp(cg_function_name(p, f), name)) return f;
    return CG_NONE;
}

/* The specification's extended example, with jumps, inlined code and two events. */
static const char example[] = "version: 1\n"
                              "creator: test\n"
                              "positions: instr line\n"
                              "events: Ir Dr\n"
                              "ob=(1) /bin/prog\n"
                              "fl=(1) file1.c\n"
                              "fn=(1) main\n"
                              "0x10 16 20 2\n"
                              "+4 * 5\n"
                              "cfn=(2) func1\n"
                              "calls=2 0x40 50\n"
                              "+2 * 400 40\n"
                              "fi=(2) inl.h\n"
                              "+2 3 7\n"
                              "fe=(1)\n"
                              "jcnd=1/3 0x30 17\n"
                              "+2 *\n"
                              "fn=(2)\n"
                              "0x40 50 100 10\n"
                              "fn=(1)\n"
                              "0x10 16 1\n"
                              "totals: 133 12\n";

static void check_example(const cg_profile *p) {
    CHECK_INT(2, cg_raw_event_count(p));
    CHECK_INT(2, cg_function_count(p));
    size_t main_fn = find(p, "main"), func1 = find(p, "func1");
    CHECK(main_fn != CG_NONE && func1 != CG_NONE);
    if (main_fn == CG_NONE || func1 == CG_NONE) return;
    CHECK_STR("file1.c", cg_function_file(p, main_fn));
    CHECK_STR("/bin/prog", cg_function_object(p, main_fn));
    /* self costs are summed while parsing: 20 + 5 + 7 + 1 and 2 + 3 */
    CHECK_INT(33, cg_function_self(p, main_fn)[0]);
    CHECK_INT(2, cg_function_self(p, main_fn)[1]);
    CHECK_INT(100, cg_function_self(p, func1)[0]);
    CHECK_INT(1, cg_call_count(p));
    CHECK_INT(2, cg_call_times(p, 0));
    CHECK_INT(0x16, cg_call_addr(p, 0));
    CHECK_INT(400, cg_call_inclusive(p, 0)[0]);
    CHECK_INT(1, cg_jump_count(p));
    CHECK_INT(3, cg_jump_executed(p, 0));
    CHECK_INT(1, cg_jump_taken(p, 0));
    CHECK_INT(0x30, cg_jump_to_addr(p, 0));
    CHECK_INT(1, cg_section_count(p));
    CHECK_INT(5, cg_section_header_count(p, 0)); /* totals: is one too */
    CHECK_STR("creator", cg_section_header_key(p, 0, 1));
    CHECK_INT(CG_POS_INSTR | CG_POS_LINE, cg_section_positions(p, 0));
    CHECK_INT(133, cg_section_costs(p, 0)[0]); /* its self costs, calls aside: 33 + 100 */
    CHECK_INT(12, cg_section_costs(p, 0)[1]);
    CHECK_INT(12, cg_section_totals(p, 0)[1]);
    CHECK_INT(0, cg_warning_count(p));
}

static void test_example(int by_line) {
    bench t;
    start(&t, 0, NULL);
    CHECK_INT(0, parse(&t, example, by_line));
    CHECK_INT(0, parse_end(&t.ps, &t.err));
    CHECK_STR("", t.err.message);
    /* the calls and jumps kept per function get their numbers, as the loader has them */
    CHECK_INT(ST_OK, build_number(&t.b, 1));
    check_example(t.b.p);
    finish(&t);
}

/* Faults name the input and line; a strict parse stops, a tolerant one skips the line. */
static void test_faults(void) {
    const char text[] = "events: Ir\nfn=main\n1 5\n2 x\n3 7\n";
    bench t;
    start(&t, 0, NULL);
    CHECK_INT(-1, parse(&t, text, 0));
    CHECK_INT(CG_ERR_FORMAT, t.err.code);
    CHECK_INT(4, t.err.line);
    CHECK_STR("in:4: bad cost 'x'", t.err.message);
    finish(&t);

    start(&t, 1, NULL);
    CHECK_INT(0, parse(&t, text, 0));
    CHECK_INT(0, parse_end(&t.ps, &t.err));
    CHECK_INT(1, cg_warning_count(t.b.p));
    CHECK_STR("in:4: bad cost 'x'", cg_warning(t.b.p, 0));
    CHECK_INT(12, cg_function_self(t.b.p, 0)[0]); /* the bad line is left out */
    finish(&t);

    /* a line number given by the state: a parser may start anywhere in an input */
    start(&t, 0, NULL);
    t.ps.st.lineno = 41;
    CHECK_INT(-1, parse(&t, "calls=1 2\n", 0));
    CHECK_STR("in:42: calls= before the 'events:' line", t.err.message);
    finish(&t);

    /* a damaged stream, as the reader reports it to the parser's sink */
    start(&t, 0, NULL);
    line_sink sink = parser_sink(&t.ps);
    CHECK_INT(0, sink.lines(sink.ctx, "events: Ir\nfn=main\n1 5\n", 23, &t.err));
    CHECK_INT(-1, sink.damaged(sink.ctx, "corrupt gzip data", &t.err));
    CHECK_STR("in:3: corrupt gzip data", t.err.message);
    finish(&t);
}

/* What the builder's section bookkeeping does with what the parser reads. */
static void test_sections(void) {
    const char text[] = "events: Ir\n"
                        "part: 1\n"
                        "fn=a\n"
                        "1 5\n"
                        "totals: 9\n"
                        "part: 2\n"
                        "fn=b\n"
                        "1 7\n"
                        "totals: 7\n";
    bench t;
    start(&t, 0, NULL);
    CHECK_INT(0, parse(&t, text, 0));
    CHECK_INT(0, parse_end(&t.ps, &t.err));
    CHECK_INT(2, cg_section_count(t.b.p));
    CHECK_INT(1, cg_warning_count(t.b.p));
    CHECK_STR("in:5: totals: Ir is 9 but the section's costs sum to 5", cg_warning(t.b.p, 0));
    CHECK_INT(7, cg_section_costs(t.b.p, 1)[0]);
    finish(&t);

    /* part 2 only: the first section is read for its names but adds no record */
    section_choice part2 = {0, 2, 0};
    start(&t, 0, &part2);
    CHECK_INT(0, parse(&t, text, 1));
    CHECK_INT(0, parse_end(&t.ps, &t.err));
    CHECK_INT(1, cg_section_count(t.b.p));
    CHECK_STR("part", cg_section_header_key(t.b.p, 0, 0));
    CHECK_STR("2", cg_section_header_value(t.b.p, 0, 0));
    CHECK_INT(1, cg_function_count(t.b.p));
    CHECK_STR("b", cg_function_name(t.b.p, 0));
    CHECK_INT(0, cg_warning_count(t.b.p)); /* the left-out section's totals are not checked */
    CHECK_INT(2, t.b.sections_read);
    CHECK_INT(2, t.b.read_ids[1][0]);
    finish(&t);

    /* callgrind ends every part with totals: an input without it was cut short */
    start(&t, 0, NULL);
    CHECK_INT(0, parse(&t, "creator: callgrind-3.19\nevents: Ir\nsummary: 9\nfn=a\n1 5\n", 0));
    CHECK_INT(-1, parse_end(&t.ps, &t.err));
    CHECK_STR("in:5: the input ends before the totals: line that callgrind writes last, so it "
              "looks truncated (summary: Ir is 9, the costs read sum to 5)",
              t.err.message);
    finish(&t);
}

int main(void) {
    test_example(0);
    test_example(1);
    test_faults();
    test_sections();
    return ctest_report("test_parser");
}
