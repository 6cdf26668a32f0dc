/* annotated.c - annotated source as callgrind_annotate 3.19 prints it (see report.h): for one
 * file of a cg_file_lines and the file's text, the ranges of lines around the lines with line
 * records, each line with its self cost ("." where it has none) and the calls it makes, lines
 * past the end of the file, and the cost of code without line information. */
#include <stdlib.h>
#include <string.h>

#include "msort.h"
#include "numfmt.h"
#include "report.h"
#include "text_writer.h"

#define SEPARATOR_DASHES "----------------------------------------" /* 40 */

/* The file's text cut into lines, without their ends: "\n", and a "\r" before it when the text
 * holds one anywhere (as the Lua layer reads source files). */
typedef struct source_lines {
    const char *text;
    size_t *start, *len;
    size_t n;
} source_lines;

static int split_source(const char *text, size_t size, source_lines *s) {
    size_t n = 0;
    for (const char *at = text, *end = text + size; at < end; n++) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        at = nl ? nl + 1 : end;
    }
    s->text = text;
    s->n = 0;
    s->start = malloc((n + 1) * sizeof *s->start);
    s->len = malloc((n + 1) * sizeof *s->len);
    if (!s->start || !s->len) return -1;
    int strip_cr = memchr(text, '\r', size) != NULL;
    for (size_t pos = 0; pos < size; s->n++) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t stop = nl ? (size_t)(nl - text) : size, len = stop - pos;
        if (strip_cr && len && text[stop - 1] == '\r') len--;
        s->start[s->n] = pos;
        s->len[s->n] = len;
        pos = stop + 1;
    }
    return 0;
}

/* A line's calls as printed: the callees summed per "file:name" label (functions of one name
 * in two objects print alike), highest cost of the shown events first, then by label, then by
 * count (highest first). */
typedef struct call_row {
    size_t fn; /* the first callee of the label */
    uint64_t count;
    cg_cost *raw;                 /* raw events */
    cg_cost shown[CG_MAX_EVENTS]; /* the shown events' costs */
} call_row;

typedef struct writer_ctx {
    const cg_profile *p;
    const cg_file_lines *f;
    const cg_annotate_options *o;
    size_t file, width;
    cg_columns columns;
    text_writer *w;
    char *cells; /* cg_columns_max bytes */
    call_row *calls;
    size_t *order, *tmp;
    uint32_t *bounds; /* the sorts' runs */
    cg_cost *raw;     /* width per call row */
    size_t calls_cap;
} writer_ctx;

/* The values of the shown events of a raw row; -2 when a derived one does not fit. */
static int shown_values(const writer_ctx *x, const cg_cost *raw, cg_cost *out) {
    for (size_t i = 0; i < x->o->nevents; i++)
        if (cg_cost_of(x->p, raw, x->o->events[i], &out[i])) return -2;
    return 0;
}

static int reserve_calls(writer_ctx *x, size_t n) {
    if (n <= x->calls_cap) return 0;
    size_t cap = x->calls_cap ? x->calls_cap : 16;
    while (cap < n) cap *= 2;
    call_row *calls = realloc(x->calls, cap * sizeof *calls);
    if (calls) x->calls = calls;
    size_t *order = calls ? realloc(x->order, cap * sizeof *order) : NULL;
    if (order) x->order = order;
    size_t *tmp = order ? realloc(x->tmp, cap * sizeof *tmp) : NULL;
    if (tmp) x->tmp = tmp;
    uint32_t *bounds = tmp ? realloc(x->bounds, (cap + 1) * sizeof *bounds) : NULL;
    if (bounds) x->bounds = bounds;
    cg_cost *raw = bounds ? realloc(x->raw, cap * x->width * sizeof *raw) : NULL;
    if (!raw) return -1;
    x->raw = raw;
    x->calls_cap = cap;
    return 0;
}

static int label_before(const writer_ctx *x, const size_t *a, const size_t *b) {
    return cg_label_cmp(x->p, x->calls[*a].fn, x->calls[*b].fn) < 0;
}

static int call_before(const writer_ctx *x, const size_t *a, const size_t *b) {
    const call_row *ra = &x->calls[*a], *rb = &x->calls[*b];
    for (size_t i = 0; i < x->o->nevents; i++)
        if (ra->shown[i] != rb->shown[i]) return ra->shown[i] > rb->shown[i];
    int d = cg_label_cmp(x->p, ra->fn, rb->fn);
    if (d) return d < 0;
    return ra->count > rb->count;
}

#define LABEL_BEFORE(x, a, b) label_before((x), (a), (b))
#define CALL_BEFORE(x, a, b) call_before((x), (a), (b))
DEFINE_MERGE_SORT(sort_labels, size_t, const writer_ctx *, LABEL_BEFORE)
DEFINE_MERGE_SORT(sort_calls, size_t, const writer_ctx *, CALL_BEFORE)

/* The calls of line entry `i` summed per label into x->calls, in printing order (x->order);
 * returns how many, or -1 / -2 (no memory, a sum beyond 64 bits). */
static long line_calls(writer_ctx *x, size_t i) {
    size_t m = cg_file_lines_callee_count(x->f, x->file, i);
    if (reserve_calls(x, m)) return -1;
    for (size_t k = 0; k < m; k++) {
        call_row *c = &x->calls[k];
        c->fn = cg_file_lines_callee(x->f, x->file, i, k);
        c->count = cg_file_lines_callee_calls(x->f, x->file, i, k);
        c->raw = &x->raw[k * x->width];
        memcpy(c->raw, cg_file_lines_callee_inclusive(x->f, x->file, i, k),
               x->width * sizeof(cg_cost));
        x->order[k] = k;
    }
    /* by label, equal labels summed into the first of them */
    sort_labels(x, x->order, x->tmp, x->bounds, m);
    size_t n = 0;
    for (size_t k = 0; k < m; k++) {
        size_t at = x->order[k];
        if (n && cg_label_cmp(x->p, x->calls[x->order[n - 1]].fn, x->calls[at].fn) == 0) {
            call_row *into = &x->calls[x->order[n - 1]];
            if (__builtin_add_overflow(into->count, x->calls[at].count, &into->count) ||
                cg_add_costs(into->raw, x->calls[at].raw, x->width))
                return -2;
            continue;
        }
        x->order[n++] = at;
    }
    for (size_t k = 0; k < n; k++)
        if (shown_values(x, x->calls[x->order[k]].raw, x->calls[x->order[k]].shown)) return -2;
    sort_calls(x, x->order, x->tmp, x->bounds, n);
    return (long)n;
}

/* A line of cells (NULL values: every cell "."), a blank and `text`. */
static void put_cells(writer_ctx *x, const cg_cost *values, int zero_dot, const char *text,
                      size_t len) {
    text_put(x->w, x->cells, cg_columns_cells(&x->columns, values, zero_dot, x->cells));
    text_put(x->w, " ", 1);
    text_put(x->w, text, len);
    text_put(x->w, "\n", 1);
}

static void put_separator(writer_ctx *x, uint64_t line) {
    char num[NUMFMT_MAX];
    text_puts(x->w, "-- line ");
    text_put(x->w, num, (size_t)(put_u64(num, line) - num));
    text_puts(x->w, " " SEPARATOR_DASHES "\n");
}

/* The calls of line entry `i`, each "=> file:name (Nx)" with its inclusive cost. */
static int put_calls(writer_ctx *x, size_t i) {
    long n = line_calls(x, i);
    if (n < 0) return (int)n;
    for (long k = 0; k < n; k++) {
        const call_row *c = &x->calls[x->order[k]];
        char count[32];
        size_t clen = cg_format_count((cg_cost)c->count, count);
        text_put(x->w, x->cells, cg_columns_cells(&x->columns, c->shown, 1, x->cells));
        text_puts(x->w, " => ");
        text_put_label(x->w, cg_function_file(x->p, c->fn), cg_function_name(x->p, c->fn));
        text_put(x->w, " (", 2);
        text_put(x->w, count, clen);
        text_put(x->w, "x)\n", 3);
    }
    return 0;
}

/* The lines with line records (line 0 left out), as entry numbers in line order. */
typedef struct costed {
    size_t *entry;
    size_t n;
} costed;

/* a + b, or UINT64_MAX when that does not fit (line numbers are the profile's, any size) */
static uint64_t add_saturated(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The ranges of lines within `context` of a costed line, as callgrind_annotate reads the file
 * (a range that runs past its end ends the annotation); the costs printed next to source lines
 * are added to `annotated`. Returns the number of costed lines reached, or -1 / -2. */
static long put_ranges(writer_ctx *x, const source_lines *src, const costed *c,
                       cg_cost *annotated) {
    uint64_t context = x->o->context, last = src->n, pos = 0;
    size_t next = 0, entry = 0, nentries = cg_file_lines_count(x->f, x->file);
    cg_cost values[CG_MAX_EVENTS];
    size_t i = 0;
    while (i < c->n) {
        uint64_t first = cg_file_lines_line(x->f, x->file, c->entry[i]);
        uint64_t low = first > context ? first - context : 1;
        while (i + 1 < c->n && add_saturated(cg_file_lines_line(x->f, x->file, c->entry[i]),
                                             add_saturated(context, context)) >=
                                   cg_file_lines_line(x->f, x->file, c->entry[i + 1]))
            i++;
        uint64_t end = cg_file_lines_line(x->f, x->file, c->entry[i]);
        uint64_t high = add_saturated(end, context);
        i++;
        /* the lines before the range are read, as far as the file goes */
        if (pos + 1 < low && pos < last) pos = low - 1 < last ? low - 1 : last;
        if (low != 1) put_separator(x, low);
        int read = 0;
        while (pos < high) {
            read = pos < last;
            if (!read) break;
            pos++;
            while (entry < nentries && cg_file_lines_line(x->f, x->file, entry) < pos) entry++;
            int has_entry = entry < nentries && cg_file_lines_line(x->f, x->file, entry) == pos;
            const char *text = src->text + src->start[pos - 1];
            size_t len = src->len[pos - 1];
            if (next < c->n && c->entry[next] == entry && has_entry) {
                if (shown_values(x, cg_file_lines_self(x->f, x->file, entry), values)) return -2;
                put_cells(x, values, 1, text, len);
                for (size_t e = 0; e < x->o->nevents; e++)
                    if (__builtin_add_overflow(annotated[e], values[e], &annotated[e])) return -2;
                next++;
            } else {
                put_cells(x, NULL, 0, text, len);
            }
            if (has_entry) {
                int rc = put_calls(x, entry);
                if (rc) return rc;
            }
        }
        if (!read) break;
        put_separator(x, high);
    }
    return (long)next;
}

static void put_past_end_warning(writer_ctx *x, const char *name) {
    static const char at[] =
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n";
    size_t len = strlen(name);
    int header = len >= 2 && strcmp(name + len - 2, ".h") == 0;
    text_puts(x->w, at);
    text_puts(x->w, "@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING "
                    "@@\n");
    text_puts(x->w, at);
    text_puts(x->w, "@@\n@@ Information recorded about lines past the end of '");
    text_puts(x->w, name);
    text_puts(x->w, "'.\n@@\n@@ Probable cause and solution:\n");
    text_puts(x->w, header ? "@@ cause:    bug in the Valgrind's debug info reader that screws "
                             "up with .h\n@@           files sometimes\n@@ solution: none, sorry\n"
                           : "@@ cause:    not sure, sorry\n");
    text_puts(x->w, "@@\n");
    text_puts(x->w, at);
}

/* After the ranges: the costed lines past the end of the file ("<bogus line N>") and their
 * warning, then the cost of code without line information. */
static int put_rest(writer_ctx *x, const char *name, const costed *c, size_t reached) {
    cg_cost values[CG_MAX_EVENTS];
    char label[NUMFMT_MAX + 16] = "<bogus line ";
    for (size_t k = reached; k < c->n; k++) {
        if (shown_values(x, cg_file_lines_self(x->f, x->file, c->entry[k]), values)) return -2;
        char *end = put_u64(label + 12, cg_file_lines_line(x->f, x->file, c->entry[k]));
        *end++ = '>';
        put_cells(x, values, 1, label, (size_t)(end - label));
    }
    if (reached < c->n) {
        text_put(x->w, "\n", 1);
        put_past_end_warning(x, name);
    }
    text_put(x->w, "\n", 1);
    if (cg_file_lines_count(x->f, x->file) && cg_file_lines_line(x->f, x->file, 0) == 0 &&
        cg_file_lines_coded(x->f, x->file, 0)) {
        if (shown_values(x, cg_file_lines_self(x->f, x->file, 0), values)) return -2;
        text_put(x->w, x->cells, cg_columns_cells(&x->columns, values, 1, x->cells));
        text_puts(x->w, " <counts for unidentified lines in ");
        text_puts(x->w, name);
        text_puts(x->w, ">\n\n");
    }
    return 0;
}

/* The columns fitted to every line's self cost (callgrind_annotate sizes them by those alone:
 * calls overflow), and the costed lines. */
static int fit_columns(writer_ctx *x, costed *c) {
    size_t n = cg_file_lines_count(x->f, x->file);
    cg_cost values[CG_MAX_EVENTS];
    c->n = 0;
    c->entry = malloc((n + 1) * sizeof *c->entry);
    if (!c->entry) return -1;
    cg_columns_init(&x->columns, x->o->names, x->o->nevents, x->o->totals, x->o->percentages);
    for (size_t i = 0; i < n; i++) {
        if (!cg_file_lines_coded(x->f, x->file, i)) continue;
        if (shown_values(x, cg_file_lines_self(x->f, x->file, i), values)) return -2;
        cg_columns_fit(&x->columns, values);
        if (cg_file_lines_line(x->f, x->file, i) > 0) c->entry[c->n++] = i;
    }
    x->cells = malloc(cg_columns_max(&x->columns));
    return x->cells ? 0 : -1;
}

int cg_annotated_write(const cg_file_lines *f, size_t file, const char *text, size_t size,
                       const cg_annotate_options *o, cg_cost *annotated, cg_text_sink sink,
                       void *userdata, cg_error *err) {
    const cg_profile *p = cg_file_lines_profile(f);
    writer_ctx x = {p,    f,    o,    file, cg_raw_event_count(p), {0}, NULL, NULL, NULL, NULL,
                    NULL, NULL, NULL, 0};
    source_lines src = {text, NULL, NULL, 0};
    costed c = {NULL, 0};
    x.w = text_writer_new(sink, userdata);
    int rc = x.w ? split_source(text, size, &src) : -1;
    if (!rc) rc = fit_columns(&x, &c);
    if (!rc) {
        text_put(x.w, x.cells, cg_columns_heading(&x.columns, o->names, x.cells));
        text_puts(x.w, "\n\n");
    }
    long reached = rc ? 0 : put_ranges(&x, &src, &c, annotated);
    if (reached < 0) rc = (int)reached;
    if (!rc) rc = put_rest(&x, cg_file_lines_name(f, file), &c, (size_t)reached);
    if (!rc) text_flush(x.w);
    int stopped = x.w && x.w->stopped;
    free(x.w);
    free(x.cells);
    free(x.calls);
    free(x.order);
    free(x.tmp);
    free(x.bounds);
    free(x.raw);
    free(src.start);
    free(src.len);
    free(c.entry);
    return text_writer_end(rc, stopped, err,
                           "a cost of the annotated source does not fit in 64 bits",
                           "the annotated source was stopped");
}
