/* flame_folded.c - the folded text of a flame graph: one line per frame with a cost, the names
 * of its stack joined by ';' and the cost, as flamegraph.pl, inferno and speedscope read it. */
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fault.h"
#include "numfmt.h"
#include "vec.h"

typedef struct out_buffer {
    char data[65536];
    size_t len;
    cg_write_fn write;
    void *userdata;
    int failed;
} out_buffer;

static void out_flush(out_buffer *o) {
    if (o->len && !o->failed && o->write(o->userdata, o->data, o->len)) o->failed = 1;
    o->len = 0;
}

static void out_add(out_buffer *o, const char *s, size_t n) {
    while (n) {
        if (o->len == sizeof o->data) out_flush(o);
        size_t k = sizeof o->data - o->len;
        if (k > n) k = n;
        memcpy(o->data + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

/* Appends `s` to the growing line; `clean` replaces the characters that would break the format
 * (the frame separator and line ends). */
static int line_put(char **line, size_t *len, size_t *cap, const char *s, int clean) {
    size_t n = strlen(s);
    if (VEC_RESERVE(*line, *cap, *len + n + 1)) return -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (clean) c = c == ';' ? ',' : (c == '\n' || c == '\r') ? ' ' : c;
        (*line)[(*len)++] = c;
    }
    return 0;
}

static int line_add(char **line, size_t *len, size_t *cap, const char *s) {
    return line_put(line, len, cap, s, 1);
}

static int add_label(char **line, size_t *len, size_t *cap, const cg_flame *f, size_t i,
                     unsigned label) {
    if (f->fn[i] == FLAME_OTHER) return line_add(line, len, cap, "[other]");
    const cg_profile *p = f->p;
    if (label & CG_FLAME_FILE) {
        const char *file = cg_function_file(p, f->fn[i]);
        if (line_add(line, len, cap, *file ? file : "???") || line_add(line, len, cap, ":"))
            return -1;
    }
    if (line_add(line, len, cap, cg_function_name(p, f->fn[i]))) return -1;
    const char *object = cg_function_object(p, f->fn[i]);
    if ((label & CG_FLAME_OBJECT) && *object)
        if (line_add(line, len, cap, " [") || line_add(line, len, cap, object) ||
            line_add(line, len, cap, "]"))
            return -1;
    return 0;
}

int cg_flame_write_folded(const cg_flame *f, unsigned label, const char *prefix, cg_write_fn write,
                          void *userdata, cg_error *err) {
    out_buffer *o = malloc(sizeof *o);
    size_t *start = malloc((f->n ? f->n : 1) * sizeof *start); /* line length before a depth */
    char *line = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    if (!o || !start || (prefix && *prefix && line_add(&line, &len, &cap, prefix))) {
        rc = -1;
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    o->len = 0;
    o->write = write;
    o->userdata = userdata;
    o->failed = 0;
    size_t base = len;
    for (size_t i = 0; i < f->n && !o->failed; i++) {
        size_t d = f->depth[i];
        len = d ? start[d] : base;
        if ((len && line_put(&line, &len, &cap, ";", 0)) ||
            add_label(&line, &len, &cap, f, i, label)) {
            rc = -1;
            set_error(err, CG_ERR_NOMEM, 0, "out of memory");
            goto done;
        }
        if (d + 1 < f->n) start[d + 1] = len;
        if (f->self[i] > 0) {
            char number[NUMFMT_MAX + 2] = " ";
            char *end = put_i64(number + 1, f->self[i]);
            *end++ = '\n';
            out_add(o, line, len);
            out_add(o, number, (size_t)(end - number));
        }
    }
    out_flush(o);
    if (o->failed) {
        set_error(err, CG_ERR_IO, 0, "cannot write the folded stacks");
        rc = -1;
    }
done:
    free(o);
    free(start);
    free(line);
    return rc;
}
