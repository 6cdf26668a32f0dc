/* What a hostile or huge input cannot do: huge compressed ids, lines of megabytes, too many
 * events, call graphs a million deep, line numbers past 2^32. */
#include <stdlib.h>

#include "callgrind.h"
#include "ctest.h"
#include "parser.h"

static cg_profile *load(const char *text, size_t len, cg_error *err) {
    return cg_load_buffer(text, len, "in", NULL, err);
}

static void test_huge_ids(void) {
    const char text[] = "events: Ir\nfl=(4000000000) a.c\nfn=(18446744073709551615) main\n1 5\n"
                        "fn=(4000000001) other\n2 1\nfn=(18446744073709551615)\n3 1\n";
    cg_error err;
    cg_profile *p = load(text, sizeof text - 1, &err);
    CHECK(p != NULL);
    if (!p) return;
    size_t main_fn = cg_find_function(p, "main", "a.c", NULL, CG_NONE);
    CHECK(main_fn != CG_NONE);
    cg_cost v = 0;
    cg_cost_of(p, cg_function_self(p, main_fn), 0, &v);
    CHECK_INT(6, v);
    cg_profile_free(p);
    const char over[] = "events: Ir\nfn=(18446744073709551616) x\n";
    p = load(over, sizeof over - 1, &err);
    CHECK(p == NULL);
    CHECK_STR("in:2: function id too large", err.message);
}

static void test_long_lines(void) {
    size_t n = 8 << 20; /* a function name of 8 MB */
    char *text = malloc(n + 64);
    size_t len = (size_t)sprintf(text, "events: Ir\nfn=");
    memset(text + len, 'x', n);
    len += n;
    len += (size_t)sprintf(text + len, "\n1 7\n");
    cg_error err;
    cg_profile *p = load(text, len, &err);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(n, strlen(cg_function_name(p, 0)));
        cg_profile_free(p);
    }
    free(text);
}

static void test_many_events(void) {
    size_t count = 2000000;
    char *text = malloc(count * 10 + 32);
    size_t len = (size_t)sprintf(text, "events:");
    for (size_t i = 0; i < count; i++) len += (size_t)sprintf(text + len, " E%zu", i);
    text[len++] = '\n';
    cg_error err;
    cg_options tolerant = {.tolerant = 1};
    cg_profile *p = cg_load_buffer(text, len, "in", &tolerant, &err);
    CHECK(p == NULL);
    CHECK_STR("in:1: too many events in 'events:' (at most 256)", err.message);
    free(text);
}

/* A chain f0 -> f1 -> ... and a ring of the same length: the cycle search must not recurse. */
static void test_deep_graphs(void) {
    size_t n = 1000000;
    char *text = malloc(n * 64 + 64);
    for (int ring = 0; ring <= 1; ring++) {
        size_t len = (size_t)sprintf(text, "events: Ir\n");
        for (size_t i = 0; i < n; i++) {
            size_t next = ring ? (i + 1) % n : i + 1;
            len += (size_t)sprintf(text + len, "fn=(%zu) f%zu\n1 1\n", i, i);
            if (ring || i + 1 < n)
                len += (size_t)sprintf(text + len, "cfn=(%zu) f%zu\ncalls=1 1\n1 1\n", next, next);
        }
        cg_error err;
        cg_profile *p = load(text, len, &err);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK_INT(n, cg_function_count(p));
        CHECK_INT(ring ? 1 : 0, cg_cycle_count(p));
        if (ring) CHECK_INT(n, cg_cycle_member_count(p, 0));
        cg_profile_free(p);
    }
    free(text);
}

/* Line numbers are 64-bit: an input of more than 2^32 lines reports its faults exactly. */
static void test_line_numbers_past_32_bits(void) {
    cg_error err;
    builder b;
    parser ps;
    CHECK_INT(ST_OK, builder_init(&b, NULL, 0, 0));
    parser_init(&ps, &b, 0);
    uint32_t source;
    CHECK_INT(ST_OK, build_string(&b, "huge", 4, &source));
    parse_begin(&ps, "huge", source);
    ps.st.lineno = 5000000000ULL; /* as if that many lines came before */
    const char text[] = "events: Ir\nfn=main\n1 2 3\n";
    CHECK_INT(-1, parse_lines(&ps, text, sizeof text - 1, &err));
    CHECK_INT(5000000003ULL, err.line);
    CHECK_STR("huge:5000000003: too many costs: 'events:' lists 1 event", err.message);
    parser_free(&ps);
    builder_free(&b);
}

int main(void) {
    test_huge_ids();
    test_long_lines();
    test_many_events();
    test_deep_graphs();
    test_line_numbers_past_32_bits();
    return ctest_report("test_limits");
}
