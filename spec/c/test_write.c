/* The writers of the public C API: the Callgrind function blocks and webgrind's format, written
 * into memory and compared with what was worked out by hand; numbers that do not fit, and a
 * sink that refuses. */
#include <stdlib.h>

#include "callgrind.h"
#include "ctest.h"

typedef struct buffer {
    char data[4096];
    size_t len;
    int calls, refuse;
} buffer;

static int to_buffer(void *userdata, const char *data, size_t size) {
    buffer *b = userdata;
    b->calls++;
    if (b->refuse || b->len + size > sizeof b->data) return 1;
    memcpy(b->data + b->len, data, size);
    b->len += size;
    return 0;
}

static cg_profile *parse(const char *text) {
    cg_error err;
    cg_profile *p = cg_load_buffer(text, strlen(text), "test", NULL, &err);
    if (!p) fprintf(stderr, "%s\n", err.message);
    CHECK(p != NULL);
    return p;
}

/* Instructions and lines, inlined code, a call into another object and a conditional jump. */
static const char inlined[] = "positions: instr line\n"
                              "events: Ir Dr\n"
                              "ob=prog\n"
                              "fl=a.c\n"
                              "fn=main\n"
                              "0x10 12 3 1\n"
                              "fi=inl.h\n"
                              "+4 1 42\n"
                              "jcnd=3/5 +8 2\n"
                              "* *\n"
                              "fe=a.c\n"
                              "+8 15 2\n"
                              "cob=lib\n"
                              "cfn=f\n"
                              "calls=1 0x40 1\n"
                              "* * 9\n"
                              "ob=lib\n"
                              "fn=f\n"
                              "0x40 1 9\n";

static void test_callgrind(void) {
    cg_profile *p = parse(inlined);
    if (!p) return;
    buffer b = {{0}, 0, 0, 0};
    cg_error err;
    cg_write_options opts = {1, 1};
    CHECK_INT(0, cg_write_callgrind(p, &opts, to_buffer, &b, &err));
    b.data[b.len] = '\0';
    /* main's own file first (its lines, then the call at the last one's position), then the
     * inlined line and the jump from it; positions relative to the last position line, the
     * call's and the jump's targets included; Dr left out where it is 0 */
    CHECK_STR("ob=(1) prog\n"
              "fl=(1) a.c\n"
              "fn=(1) main\n"
              "0x10 12 3 1\n"
              "+12 +3 2\n"
              "cob=(2) lib\n"
              "cfi=(1)\n"
              "cfn=(2) f\n"
              "calls=1 +36 -14\n"
              "* * 9\n"
              "fi=(2) inl.h\n"
              "-8 -14 42\n"
              "jcnd=3/5 +8 +1\n"
              "* *\n"
              "fe=(1)\n"
              "\n"
              "ob=(2)\n"
              "fn=(2)\n"
              "+44 * 9\n"
              "\n",
              b.data);
    CHECK_INT(1, b.calls);

    b.len = 0;
    opts = (cg_write_options){0, 0};
    CHECK_INT(0, cg_write_callgrind(p, &opts, to_buffer, &b, &err));
    b.data[b.len] = '\0';
    CHECK_STR("ob=prog\nfl=a.c\nfn=main\n0x10 12 3 1\n0x1c 15 2\ncob=lib\ncfi=a.c\ncfn=f\n"
              "calls=1 0x40 1\n0x1c 15 9\nfi=inl.h\n0x14 1 42\njcnd=3/5 0x1c 2\n0x14 1\nfe=a.c\n\n"
              "ob=lib\nfn=f\n0x40 1 9\n\n",
              b.data);

    b.refuse = 1;
    CHECK_INT(-1, cg_write_callgrind(p, &opts, to_buffer, &b, &err));
    CHECK_INT(CG_ERR_IO, err.code);
    cg_profile_free(p);
}

static uint32_t u32_at(const buffer *b, size_t offset) {
    const unsigned char *d = (const unsigned char *)b->data + offset;
    return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}

static void test_webgrind(void) {
    cg_profile *p = parse("events: Ir\nfl=a.c\nfn=f\n3 5\ncfn=g\ncalls=2 9\n3 7\nfn=g\n9 7\n");
    if (!p) return;
    buffer b = {{0}, 0, 0, 0};
    cg_error err;
    CHECK_INT(0, cg_write_webgrind(p, 0, to_buffer, &b, &err));
    /* 12 bytes of head, two offsets, then two records of 24 + 16 + "a.c\n" + "f\n" bytes */
    CHECK_INT(20 + 46 + 46, b.len);
    uint32_t head[] = {7, 112, 2, 20, 66};
    for (size_t i = 0; i < 5; i++) CHECK_INT(head[i], u32_at(&b, 4 * i));
    /* f: line 3, self 5, inclusive 12, ran once, no callers, calls g twice from line 3 (7) */
    uint32_t f[] = {3, 5, 12, 1, 0, 1, 1, 3, 2, 7};
    for (size_t i = 0; i < 10; i++) CHECK_INT(f[i], u32_at(&b, 20 + 4 * i));
    CHECK(memcmp(b.data + 60, "a.c\nf\n", 6) == 0);
    /* g: line 9, self 7, inclusive 7, called twice, from f's line 3 */
    uint32_t g[] = {9, 7, 7, 2, 1, 0, 0, 3, 2, 7};
    for (size_t i = 0; i < 10; i++) CHECK_INT(g[i], u32_at(&b, 66 + 4 * i));
    CHECK(memcmp(b.data + 106, "a.c\ng\n", 6) == 0);
    CHECK_INT(-1, cg_write_webgrind(p, 1000, to_buffer, &b, &err));
    CHECK_INT(CG_ERR_USAGE, err.code);
    cg_profile_free(p);

    /* every number is checked before the first byte */
    p = parse("events: Ir\nfl=big.c\nfn=small\n1 1\nfn=big\n1 4294967296\n");
    if (!p) return;
    b.len = 0;
    b.calls = 0;
    CHECK_INT(-1, cg_write_webgrind(p, 0, to_buffer, &b, &err));
    CHECK_INT(CG_ERR_FORMAT, err.code);
    CHECK_STR("function 'big': self cost (4294967296) does not fit in 32 bits", err.message);
    CHECK_INT(0, b.calls);
    cg_profile_free(p);
}

int main(void) {
    test_callgrind();
    test_webgrind();
    return ctest_report("test_write");
}
