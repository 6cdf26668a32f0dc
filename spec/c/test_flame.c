/* Flame graphs from small call graphs whose stacks are worked out by hand: the folded text, the
 * sums it keeps exact, recursion, roots, pruning and the errors. */
#include <stdlib.h>

#include "callgrind.h"
#include "ctest.h"

typedef struct text {
    char data[4096];
    size_t len;
} text;

static int append(void *userdata, const char *data, size_t size) {
    text *t = userdata;
    if (t->len + size >= sizeof t->data) return -1;
    memcpy(t->data + t->len, data, size);
    t->len += size;
    t->data[t->len] = '\0';
    return 0;
}

static cg_profile *parse(const char *input) {
    cg_error err;
    cg_profile *p = cg_load_buffer(input, strlen(input), "flame.out", NULL, &err);
    if (!p) fprintf(stderr, "cannot parse: %s\n", err.message);
    return p;
}

/* The folded text of `input` with the options given, or the error message. */
static const char *folded(const char *input, double min_share, size_t max_depth, unsigned label,
                          const char *prefix) {
    static text out;
    out.len = 0;
    out.data[0] = '\0';
    cg_profile *p = parse(input);
    if (!p) return "(no profile)";
    cg_flame_options o = {0, min_share, max_depth, 0};
    cg_error err;
    cg_flame *f = cg_flame_build(p, &o, &err);
    if (!f)
        snprintf(out.data, sizeof out.data, "error: %s", err.message);
    else if (cg_flame_write_folded(f, label, prefix, append, &out, &err))
        snprintf(out.data, sizeof out.data, "error: %s", err.message);
    cg_flame_free(f);
    cg_profile_free(p);
    return out.data;
}

/* speedscope's example: start and end both call backup, which calls read and write. The graph
 * cannot tell which caller led to which callee, so each path gets half of each. */
static const char *SHARED = "events: Ir\n"
                            "fn=start\n1 0\ncfn=backup\ncalls=1 1\n1 4\n"
                            "fn=end\n1 0\ncfn=backup\ncalls=1 1\n1 4\n"
                            "fn=backup\n1 0\ncfn=read\ncalls=1 1\n1 4\ncfn=write\ncalls=1 1\n1 4\n"
                            "fn=read\n1 4\nfn=write\n1 4\n";

/* a and b call c once each (1 apiece); c costs 1 and calls d, which costs 1. Each path gets
 * half a unit of c and half of d: whole units go to a for c and for d, then one moves to b so
 * that each root gets its own cost of 1. */
static const char *HALVES = "events: Ir\n"
                            "fn=a\n1 0\ncfn=c\ncalls=1 1\n1 1\n"
                            "fn=b\n1 0\ncfn=c\ncalls=1 1\n1 1\n"
                            "fn=c\n1 1\ncfn=d\ncalls=2 1\n1 1\n"
                            "fn=d\n1 1\n";

/* main -> f -> g -> f -> g as callgrind records it: f costs 1 a call, g 2; the inner g costs 2,
 * the inner f 3, the outer g 5, the outer f 6, and the calls of each pair are summed: f -> g
 * 5 + 2, g -> f 3. The walk does not enter f again below g, and no cost counts twice. */
static const char *RECURSIVE = "events: Ir\n"
                               "fn=main\n1 1\ncfn=f\ncalls=1 1\n1 6\n"
                               "fn=f\n1 2\ncfn=g\ncalls=2 1\n1 7\n"
                               "fn=g\n1 4\ncfn=f\ncalls=1 1\n1 3\n";

/* A thread's entry point that the main thread also calls: clone costs 10, of which main's call
 * brings 2; clone is a root of its own for the other 8. */
static const char *THREADS = "events: Ir\n"
                             "fn=main\n1 1\ncfn=clone\ncalls=1 1\n1 2\n"
                             "fn=clone\n1 10\n";

static const char *WIDE = "events: Ir\n"
                          "fn=main\n1 0\ncfn=big\ncalls=1 1\n1 990\n"
                          "cfn=small1\ncalls=1 1\n1 5\ncfn=small2\ncalls=1 1\n1 5\n"
                          "fn=big\n1 990\nfn=small1\n1 5\nfn=small2\n1 5\n";

static void test_stacks(void) {
    CHECK_STR("end;backup;read 2\nend;backup;write 2\nstart;backup;read 2\nstart;backup;write 2\n",
              folded(SHARED, 0, 0, 0, NULL));
    CHECK_STR("a;c;d 1\nb;c 1\n", folded(HALVES, 0, 0, 0, NULL));
    CHECK_STR("main 1\nmain;f 2\nmain;f;g 4\n", folded(RECURSIVE, 0, 0, 0, NULL));
    CHECK_STR("clone 8\nmain 1\nmain;clone 2\n", folded(THREADS, 0, 0, 0, NULL));
    /* the recursion without main: nobody calls f from outside, so f is the root, with the cost
     * of both (g's own balance is even) */
    CHECK_STR("f 2\nf;g 4\n", folded("events: Ir\nfn=f\n1 2\ncfn=g\ncalls=2 1\n1 7\n"
                                     "fn=g\n1 4\ncfn=f\ncalls=1 1\n1 3\n",
                                     0, 0, 0, NULL));
    /* no calls at all: every function is a root */
    CHECK_STR("a 5\nb 7\n", folded("events: Ir\nfn=b\n1 7\nfn=a\n1 5\n", 0, 0, 0, NULL));
    CHECK_STR("", folded("events: Ir\nfn=a\n1 0\n", 0, 0, 0, NULL));
}

static void test_pruning(void) {
    CHECK_STR("main;big 990\nmain;small1 5\nmain;small2 5\n", folded(WIDE, 0, 0, 0, NULL));
    /* below 1% of the total: folded into one [other] frame, which comes last */
    CHECK_STR("main;big 990\nmain;[other] 10\n", folded(WIDE, 0.01, 0, 0, NULL));
    CHECK_STR("main;[other] 1000\n", folded(WIDE, 0, 1, 0, NULL));
    /* with pruning nothing is scaled to the self costs: f keeps the walk's 6 * 2/9 and [other]
     * the 6 * 7/9 that the call to g brings, f's own cost inside the recursion included */
    CHECK_STR("main 1\nmain;f 1\nmain;f;[other] 5\n", folded(RECURSIVE, 0, 2, 0, NULL));
}

static void test_labels(void) {
    const char *input = "events: Ir\nob=prog\nfl=a.c\nfn=main\n1 1\ncfn=x;y\ncalls=1 1\n1 2\n"
                        "fn=x;y\n1 2\n";
    CHECK_STR("main 1\nmain;x,y 2\n", folded(input, 0, 0, 0, NULL));
    CHECK_STR("a.c:main [prog] 1\na.c:main [prog];a.c:x,y [prog] 2\n",
              folded(input, 0, 0, CG_FLAME_FILE | CG_FLAME_OBJECT, NULL));
    CHECK_STR("main [prog] 1\nmain [prog];x,y [prog] 2\n",
              folded(input, 0, 0, CG_FLAME_OBJECT, NULL));
    CHECK_STR("thread 2;main 1\nthread 2;main;x,y 2\n", folded(input, 0, 0, 0, "thread 2"));
    CHECK_STR("???:z 3\n",
              folded("events: Ir\nfn=z\n1 3\n", 0, 0, CG_FLAME_FILE | CG_FLAME_OBJECT, NULL));
}

/* Costs beyond 2^53 stay exact, and split exactly. */
static void test_big_costs(void) {
    const char *input = "events: Ir\n"
                        "fn=a\n1 0\ncfn=c\ncalls=1 1\n1 4611686018427387904\n"
                        "fn=b\n1 0\ncfn=c\ncalls=1 1\n1 4611686018427387903\n"
                        "fn=c\n1 9223372036854775807\n";
    CHECK_STR("a;c 4611686018427387904\nb;c 4611686018427387903\n", folded(input, 0, 0, 0, NULL));
    CHECK_STR("a 9007199254740993\n",
              folded("events: Ir\nfn=a\n1 9007199254740993\n", 0, 0, 0, NULL));
}

static void test_frames(void) {
    cg_profile *p = parse(RECURSIVE);
    cg_flame_options o = {0, 0, 0, 0};
    cg_error err;
    cg_flame *f = cg_flame_build(p, &o, &err);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(7, cg_flame_total(f));
        CHECK_INT(3, cg_flame_frame_count(f));
        CHECK_STR("g", cg_function_name(p, cg_flame_frame_function(f, 2)));
        CHECK_INT(1, cg_flame_frame_parent(f, 2));
        CHECK_INT(2, cg_flame_frame_depth(f, 2));
        CHECK_INT(4, cg_flame_frame_self(f, 2));
        CHECK_INT(6, cg_flame_frame_total(f, 1));
        CHECK(cg_flame_frame_parent(f, 0) == CG_NONE);
    }
    cg_flame_free(f);
    /* one frame too many */
    o.max_frames = 2;
    CHECK(cg_flame_build(p, &o, &err) == NULL);
    CHECK_INT(CG_ERR_USAGE, err.code);
    CHECK(strstr(err.message, "more than 2 frames") != NULL);
    o.max_frames = 0;
    o.min_share = 2;
    CHECK(cg_flame_build(p, &o, &err) == NULL);
    CHECK_INT(CG_ERR_USAGE, err.code);
    cg_profile_free(p);
}

static void test_errors(void) {
    CHECK_STR(
        "error: function of 'a' has a negative cost of event Ir: a flame graph needs costs of "
        "0 or more (draw the two runs of a difference instead)",
        folded("events: Ir\nfn=a\n1 -5\n", 0, 0, 0, NULL));
    CHECK_STR(
        "error: a call of 'a' has a negative cost of event Ir: a flame graph needs costs of 0 "
        "or more (draw the two runs of a difference instead)",
        folded("events: Ir\nfn=a\n1 5\ncfn=b\ncalls=1 1\n1 -2\nfn=b\n1 0\n", 0, 0, 0, NULL));
    /* a writer that fails */
    cg_profile *p = parse(SHARED);
    cg_flame_options o = {0, 0, 0, 0};
    cg_error err;
    cg_flame *f = cg_flame_build(p, &o, &err);
    text small;
    small.len = sizeof small.data - 4;
    CHECK_INT(-1, cg_flame_write_folded(f, 0, NULL, append, &small, &err));
    CHECK_INT(CG_ERR_IO, err.code);
    cg_flame_free(f);
    cg_profile_free(p);
}

int main(void) {
    test_stacks();
    test_pruning();
    test_labels();
    test_big_costs();
    test_frames();
    test_errors();
    return ctest_report("test_flame");
}
