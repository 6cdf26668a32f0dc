/* write.c - profiles written out again, a buffer at a time through the caller's sink: the
 * function blocks of the Callgrind format, and webgrind's preprocessed format. Both walk the
 * model in one pass over its records (webgrind in two over its calls: every number is checked
 * before the first byte goes out), so writing costs about what reading did, and the text is
 * never held whole in memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "model.h"
#include "msort.h"
#include "numfmt.h"
#include "vec.h"

/* Sets `err` (fault.h) and gives -1. */
#define fail(err, code, ...) (set_error((err), (code), 0, __VA_ARGS__), -1)

static int nomem(cg_error *err) {
    return fail(err, CG_ERR_NOMEM, "out of memory");
}

/* ---- the output buffer ---- */

/* NUMBER_ROOM: a 64-bit number with its sign; POSITION_ROOM: the columns of a position. */
enum { OUT_SIZE = 64 * 1024, NUMBER_ROOM = 20, POSITION_ROOM = 2 * NUMBER_ROOM + 1 };
/* A call or jump line and the position line after it. */
enum { ASSOC_ROOM = 2 * POSITION_ROOM + 2 * NUMBER_ROOM + 16 };

typedef struct out {
    char buf[OUT_SIZE];
    size_t len;
    cg_write_fn write;
    void *userdata;
    int failed; /* the sink refused a buffer: the rest is dropped */
} out;

static void out_flush(out *o) {
    if (o->len && !o->failed && o->write(o->userdata, o->buf, o->len)) o->failed = 1;
    o->len = 0;
}

/* A pointer to `n` free bytes (n <= OUT_SIZE); out_commit says how many were used. */
static inline char *out_room(out *o, size_t n) {
    if (o->len + n > OUT_SIZE) out_flush(o);
    return o->buf + o->len;
}

static inline void out_commit(out *o, const char *end) {
    o->len = (size_t)(end - o->buf);
}

static void out_bytes(out *o, const void *data, size_t n) {
    const char *s = data;
    while (n) {
        if (o->len == OUT_SIZE) out_flush(o);
        size_t k = OUT_SIZE - o->len < n ? OUT_SIZE - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

static int out_finish(out *o, cg_error *err) {
    out_flush(o);
    return o->failed ? fail(err, CG_ERR_IO, "the output refused the data") : 0;
}

/* ---- numbers as text ---- */

static inline char *put_hex(char *p, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    *p++ = '0';
    *p++ = 'x';
    while (n) *p++ = tmp[--n];
    return p;
}

static inline char *put_text(char *p, const char *s, size_t n) {
    memcpy(p, s, n);
    return p + n;
}

#define PUT_LITERAL(p, s) put_text((p), (s), sizeof(s) - 1)

/* ---- Callgrind: names ---- */

/* The format's three name tables. */
enum { NAMES_FILE, NAMES_FN, NAMES_OB, NAMES_KINDS };

typedef struct names {
    uint32_t *ids; /* NAMES_KINDS per string id: its number in that table, 0 = not yet given */
    uint32_t next[NAMES_KINDS];
    int compress;
} names;

/* `key=name`: compressed as `(id) name` the first time and `(id)` after, when asked. A name
 * that starts like a compressed one, `(digit`, is always compressed, or it would read as one;
 * an empty name never is. */
static void put_name(out *o, names *n, const strtab *s, const char *key, int kind, uint32_t id) {
    const char *str = strtab_get(s, id);
    size_t len = strtab_len(s, id);
    int must = len >= 2 && str[0] == '(' && str[1] >= '0' && str[1] <= '9';
    char *p = out_room(o, 64);
    p = put_text(p, key, strlen(key));
    if (len && (n->compress || must)) {
        uint32_t *slot = &n->ids[(size_t)id * NAMES_KINDS + (size_t)kind];
        int first = !*slot;
        if (first) *slot = ++n->next[kind];
        *p++ = '(';
        p = put_u64(p, *slot);
        *p++ = ')';
        if (!first) {
            *p++ = '\n';
            out_commit(o, p);
            return;
        }
        *p++ = ' ';
    }
    out_commit(o, p);
    out_bytes(o, str, len);
    out_bytes(o, "\n", 1);
}

/* ---- Callgrind: positions ---- */

typedef struct positions {
    int instr, line;            /* which values the profile has (0 is written for the others) */
    int ncols, col_is_instr[2]; /* the columns written: instr and/or line */
    int compress, seen;
    uint64_t last[2]; /* of the last position line, for relative positions */
} positions;

static void positions_init(positions *ps, unsigned mask, int compress) {
    memset(ps, 0, sizeof *ps);
    ps->instr = (mask & CG_POS_INSTR) != 0;
    ps->line = (mask & CG_POS_LINE) != 0;
    if (ps->instr) ps->col_is_instr[ps->ncols++] = 1;
    if (ps->line || !ps->instr) ps->col_is_instr[ps->ncols++] = 0;
    ps->compress = compress;
}

/* The position columns of a line (at most POSITION_ROOM bytes); `update` makes them the base of the
 * next relative ones (position lines do; call and jump targets do not). */
static char *put_position(char *p, positions *ps, uint64_t addr, uint64_t line, int update) {
    for (int i = 0; i < ps->ncols; i++) {
        int instr = ps->col_is_instr[i];
        uint64_t v = instr ? addr : line;
        if (i) *p++ = ' ';
        int64_t d = (int64_t)(v - ps->last[i]);
        if (ps->compress && ps->seen && d == 0) {
            *p++ = '*';
        } else if (ps->compress && ps->seen && d > 0 && d < 1000000) {
            *p++ = '+';
            p = put_u64(p, (uint64_t)d);
        } else if (ps->compress && ps->seen && d < 0 && d > -1000000) {
            p = put_i64(p, d);
        } else {
            p = instr ? put_hex(p, v) : put_u64(p, v);
        }
    }
    if (update) {
        for (int i = 0; i < ps->ncols; i++) ps->last[i] = ps->col_is_instr[i] ? addr : line;
        ps->seen = 1;
    }
    return p;
}

/* Costs of a row, each after a space, trailing zeros left out as callgrind does. */
static void put_costs(out *o, const cg_cost *row, size_t n) {
    while (n && row[n - 1] == 0) n--;
    char *p = out_room(o, (NUMBER_ROOM + 1) * n + 1);
    for (size_t i = 0; i < n; i++) {
        *p++ = ' ';
        p = put_i64(p, row[i]);
    }
    *p++ = '\n';
    out_commit(o, p);
}

/* ---- Callgrind: the records of one function, in the order they are written ---- */

enum { ITEM_LINE, ITEM_CALL, ITEM_JUMP };

typedef struct item {
    uint64_t addr, line;
    uint32_t file;
    uint32_t index; /* line record (row of the cost scratch), call or jump */
    uint32_t rank;  /* the file's place among the function's files (rank_files) */
    int kind;
} item;

typedef struct writer {
    const cg_profile *p;
    out *o;
    names names;
    positions pos;
    uint32_t ob; /* the current object: a reader starts with none */
    uint32_t fl; /* the last fl= file, NO_INDEX before the first */
    item *items, *tmp;
    size_t items_cap;
    uint32_t *bounds;
    cg_cost *costs; /* the costs of the current function's line records */
    size_t costs_cap;
    uint32_t *file_rank, *file_seen; /* per string id: its rank, and the function + 1 that set it */
    uint32_t *files;                 /* the current function's files */
    size_t files_cap;
} writer;

/* The function's own file first, then inlined files by name (their ranks, rank_files); within
 * a file by address (when positions have one), line, address, and lines before calls before
 * jumps. */
static int item_before(const writer *w, const item *a, const item *b) {
    if (a->rank != b->rank) return a->rank < b->rank;
    if (w->pos.instr && a->addr != b->addr) return a->addr < b->addr;
    if ((w->pos.line || !w->pos.instr) && a->line != b->line) return a->line < b->line;
    if (a->addr != b->addr) return a->addr < b->addr;
    return a->kind < b->kind;
}

#define ITEM_BEFORE(w, a, b) item_before((w), (a), (b))
DEFINE_MERGE_SORT(sort_item_array, item, const writer *, ITEM_BEFORE)

typedef struct file_order {
    const strtab *strings;
    uint32_t own;
} file_order;
#define FILE_BEFORE(o, a, b)                                                                       \
    (*(b) != (o)->own && (*(a) == (o)->own || strcmp(strtab_get((o)->strings, *(a)),               \
                                                     strtab_get((o)->strings, *(b))) < 0))
DEFINE_MERGE_SORT(sort_file_array, uint32_t, const file_order *, FILE_BEFORE)

/* Ranks the files of function `f`'s n items (its own first, then by name) into each item, so
 * that sorting the items compares numbers: a function with code inlined from headers alternates
 * between files record after record, and the names were compared at every step. */
static int rank_files(writer *w, size_t f, size_t n) {
    const cg_profile *p = w->p;
    size_t nfiles = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t file = w->items[i].file;
        if (w->file_seen[file] == f + 1) continue;
        w->file_seen[file] = (uint32_t)f + 1;
        if (VEC_RESERVE(w->files, w->files_cap, nfiles + 1)) return -1;
        w->files[nfiles++] = file;
    }
    /* the items' scratch holds the files' sort */
    uint32_t *tmp = (uint32_t *)w->tmp, *bounds = w->bounds;
    file_order o = {&p->strings, p->fns[f].file};
    sort_file_array(&o, w->files, tmp, bounds, nfiles);
    for (size_t k = 0; k < nfiles; k++) w->file_rank[w->files[k]] = (uint32_t)k;
    for (size_t i = 0; i < n; i++) w->items[i].rank = w->file_rank[w->items[i].file];
    return 0;
}

static int reserve_items(writer *w, size_t n) {
    if (n <= w->items_cap) return 0;
    size_t cap = w->items_cap ? w->items_cap : 64;
    while (cap < n) cap *= 2;
    item *items = realloc(w->items, cap * sizeof *items);
    if (!items) return -1;
    w->items = items;
    item *tmp = realloc(w->tmp, cap * sizeof *tmp);
    if (!tmp) return -1;
    w->tmp = tmp;
    uint32_t *bounds = realloc(w->bounds, (cap + 1) * sizeof *bounds);
    if (!bounds) return -1;
    w->bounds = bounds;
    w->items_cap = cap;
    return 0;
}

/* The line records, calls and jumps of function `f`, sorted; the line costs go to w->costs. */
static int gather(writer *w, size_t f, size_t *count) {
    const cg_profile *p = w->p;
    const line_store *s = &p->line_stores[f];
    size_t nlines = s->count;
    size_t ncalls = p->callee_begin[f + 1] - p->callee_begin[f];
    size_t njumps = p->jump_begin[f + 1] - p->jump_begin[f];
    size_t n = nlines + ncalls + njumps, width = p->nraw ? p->nraw : 1;
    if (reserve_items(w, n)) return -1;
    if (nlines * width > w->costs_cap) {
        cg_cost *costs = realloc(w->costs, nlines * width * sizeof *costs);
        if (!costs) return -1;
        w->costs = costs;
        w->costs_cap = nlines * width;
    }
    item *it = w->items;
    line_reader r;
    line_reader_init(&r, s);
    for (uint32_t i = 0; line_reader_next(&r, w->costs + (size_t)i * width, p->nraw); i++)
        *it++ =
            (item){w->pos.instr ? r.addr : 0, w->pos.line ? r.line : 0, r.file, i, 0, ITEM_LINE};
    for (uint32_t i = p->callee_begin[f]; i < p->callee_begin[f + 1]; i++) {
        const call_rec *c = &p->calls[p->callee_index[i]];
        *it++ = (item){w->pos.instr ? c->addr : 0,
                       w->pos.line ? c->line : 0,
                       c->file,
                       p->callee_index[i],
                       0,
                       ITEM_CALL};
    }
    for (uint32_t i = p->jump_begin[f]; i < p->jump_begin[f + 1]; i++) {
        const jump_rec *j = &p->jumps[p->jump_index[i]];
        *it++ = (item){w->pos.instr ? j->from_addr : 0,
                       w->pos.line ? j->from_line : 0,
                       j->from_file,
                       p->jump_index[i],
                       0,
                       ITEM_JUMP};
    }
    if (rank_files(w, f, n)) return -1;
    sort_item_array(w, w->items, w->tmp, w->bounds, n);
    *count = n;
    return 0;
}

/* ---- Callgrind: one function ---- */

static void write_line(writer *w, const item *it) {
    char *p = out_room(w->o, POSITION_ROOM);
    out_commit(w->o, put_position(p, &w->pos, it->addr, it->line, 1));
    put_costs(w->o, w->costs + (size_t)it->index * (w->p->nraw ? w->p->nraw : 1), w->p->nraw);
}

static void write_call(writer *w, const item *it) {
    const cg_profile *p = w->p;
    const call_rec *c = &p->calls[it->index];
    const fn_rec *callee = &p->fns[c->callee];
    if (callee->object != w->ob)
        put_name(w->o, &w->names, &p->strings, "cob=", NAMES_OB, callee->object);
    /* always named, so that the callee never depends on the reader's defaults */
    put_name(w->o, &w->names, &p->strings, "cfi=", NAMES_FILE, callee->file);
    put_name(w->o, &w->names, &p->strings, "cfn=", NAMES_FN, callee->name);
    char *q = out_room(w->o, ASSOC_ROOM);
    q = PUT_LITERAL(q, "calls=");
    q = put_u64(q, c->count);
    *q++ = ' ';
    q = put_position(q, &w->pos, w->pos.instr ? c->target_addr : 0,
                     w->pos.line ? c->target_line : 0, 0);
    *q++ = '\n';
    q = put_position(q, &w->pos, it->addr, it->line, 1);
    out_commit(w->o, q);
    put_costs(w->o, costs_row(&p->call_costs, p->nraw, it->index), p->nraw);
}

static void write_jump(writer *w, size_t f, const item *it) {
    const cg_profile *p = w->p;
    const jump_rec *j = &p->jumps[it->index];
    if (j->to_file != it->file)
        put_name(w->o, &w->names, &p->strings, "jfi=", NAMES_FILE, j->to_file);
    if (j->to_fn != f)
        put_name(w->o, &w->names, &p->strings, "jfn=", NAMES_FN, p->fns[j->to_fn].name);
    char *q = out_room(w->o, ASSOC_ROOM);
    if (j->conditional) {
        q = PUT_LITERAL(q, "jcnd=");
        q = put_u64(q, j->taken);
        *q++ = '/';
        q = put_u64(q, j->executed);
    } else {
        q = PUT_LITERAL(q, "jump=");
        q = put_u64(q, j->executed);
    }
    *q++ = ' ';
    q = put_position(q, &w->pos, w->pos.instr ? j->to_addr : 0, w->pos.line ? j->to_line : 0, 0);
    *q++ = '\n';
    q = put_position(q, &w->pos, it->addr, it->line, 1);
    *q++ = '\n';
    out_commit(w->o, q);
}

static int write_function(writer *w, size_t f) {
    const cg_profile *p = w->p;
    const fn_rec *fn = &p->fns[f];
    size_t n;
    if (gather(w, f, &n)) return -1;
    if (fn->object != w->ob) {
        put_name(w->o, &w->names, &p->strings, "ob=", NAMES_OB, fn->object);
        w->ob = fn->object;
    }
    if (fn->file != w->fl) {
        put_name(w->o, &w->names, &p->strings, "fl=", NAMES_FILE, fn->file);
        w->fl = fn->file;
    }
    put_name(w->o, &w->names, &p->strings, "fn=", NAMES_FN, fn->name);
    uint32_t current = fn->file;
    for (size_t i = 0; i < n; i++) {
        const item *it = &w->items[i];
        if (it->file != current) {
            put_name(w->o, &w->names, &p->strings, it->file == fn->file ? "fe=" : "fi=", NAMES_FILE,
                     it->file);
            current = it->file;
        }
        if (it->kind == ITEM_LINE)
            write_line(w, it);
        else if (it->kind == ITEM_CALL)
            write_call(w, it);
        else
            write_jump(w, f, it);
    }
    /* back to the function's own file before the next block, as callgrind does: some readers
     * do not restore it at fn= */
    if (current != fn->file) put_name(w->o, &w->names, &p->strings, "fe=", NAMES_FILE, fn->file);
    out_bytes(w->o, "\n", 1);
    return 0;
}

int cg_write_callgrind(const cg_profile *p, const cg_write_options *opts, cg_write_fn write,
                       void *userdata, cg_error *err) {
    clear_error(err);
    out *o = malloc(sizeof *o);
    writer w;
    memset(&w, 0, sizeof w);
    w.names.ids = calloc(p->strings.count * NAMES_KINDS + 1, sizeof *w.names.ids);
    w.file_rank = malloc((p->strings.count + 1) * sizeof *w.file_rank);
    w.file_seen = calloc(p->strings.count + 1, sizeof *w.file_seen);
    if (!o || !w.names.ids || !w.file_rank || !w.file_seen) {
        free(o);
        free(w.names.ids);
        free(w.file_rank);
        free(w.file_seen);
        return nomem(err);
    }
    o->len = 0;
    o->write = write;
    o->userdata = userdata;
    o->failed = 0;
    w.p = p;
    w.o = o;
    w.names.compress = opts ? opts->compress_names : 1;
    positions_init(&w.pos, p->positions, opts ? opts->compress_positions : 1);
    w.ob = 0; /* the empty string: no ob= line needed for functions without an object */
    w.fl = NO_INDEX;
    int rc = 0;
    for (size_t f = 0; f < p->nfns && !rc && !o->failed; f++)
        if (write_function(&w, f)) rc = nomem(err);
    if (!rc) rc = out_finish(o, err);
    free(w.items);
    free(w.tmp);
    free(w.bounds);
    free(w.costs);
    free(w.names.ids);
    free(w.file_rank);
    free(w.file_seen);
    free(w.files);
    free(o);
    return rc;
}

/* ---- webgrind ---- */

/* Incoming or outgoing calls of a function grouped by (other function, call line). */
typedef struct group {
    uint32_t fn;
    uint64_t line, count;
    cg_cost cost;
} group;

typedef struct grouper {
    const cg_profile *p;
    size_t ev;
    group *groups;
    size_t ngroups, groups_cap;
    uint32_t *table; /* group index + 1 per slot, 0 = free */
    size_t slots;
} grouper;

static int group_calls(grouper *g, size_t f, int incoming, cg_error *err) {
    const cg_profile *p = g->p;
    const uint32_t *begin = incoming ? p->caller_begin : p->callee_begin;
    const uint32_t *index = incoming ? p->caller_index : p->callee_index;
    size_t n = begin[f + 1] - begin[f];
    g->ngroups = 0;
    if (VEC_RESERVE(g->groups, g->groups_cap, n ? n : 1)) return nomem(err);
    size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    if (slots > g->slots) {
        uint32_t *table = realloc(g->table, slots * sizeof *table);
        if (!table) return nomem(err);
        g->table = table;
        g->slots = slots;
    }
    memset(g->table, 0, slots * sizeof *g->table);
    for (uint32_t i = begin[f]; i < begin[f + 1]; i++) {
        const call_rec *c = &p->calls[index[i]];
        uint32_t other = incoming ? c->caller : c->callee;
        uint64_t line = (p->positions & CG_POS_LINE) ? c->line : 0;
        uint64_t h = ((uint64_t)other ^ p->strings.seed) * 0x9e3779b97f4a7c15ULL;
        h = (h ^ line ^ (h >> 29)) * 0xc2b2ae3d27d4eb4fULL;
        size_t slot = (size_t)(h >> 32) & (slots - 1);
        while (g->table[slot]) {
            const group *e = &g->groups[g->table[slot] - 1];
            if (e->fn == other && e->line == line) break;
            slot = (slot + 1) & (slots - 1);
        }
        if (!g->table[slot]) {
            g->groups[g->ngroups] = (group){other, line, 0, 0};
            g->table[slot] = (uint32_t)++g->ngroups;
        }
        group *e = &g->groups[g->table[slot] - 1];
        cg_cost v;
        if (cg_cost_of(p, costs_row(&p->call_costs, p->nraw, index[i]), g->ev, &v) != CG_OK) {
            return fail(err, CG_ERR_OVERFLOW, "function '%s': a call cost does not fit in 64 bits",
                        strtab_get(&p->strings, p->fns[f].name));
        }
        (void)count_add(&e->count, c->count);
        (void)cost_add(&e->cost, v);
    }
    return 0;
}

/* What webgrind's record of a function holds besides its calls. */
typedef struct wg_function {
    uint64_t line;
    cg_cost self, inclusive;
    uint64_t invocations;
} wg_function;

static int fits_u32(uint64_t v) {
    return v <= UINT32_MAX;
}

static int too_big(const cg_profile *p, size_t f, const char *what, const char *value,
                   cg_error *err) {
    return fail(err, CG_ERR_FORMAT, "function '%s': %s (%s) does not fit in 32 bits",
                strtab_get(&p->strings, p->fns[f].name), what, value);
}

static int check_signed(const cg_profile *p, size_t f, const char *what, cg_cost v, cg_error *err) {
    if (v >= 0 && fits_u32((uint64_t)v)) return 0;
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return too_big(p, f, what, text, err);
}

static int check_unsigned(const cg_profile *p, size_t f, const char *what, uint64_t v,
                          cg_error *err) {
    if (fits_u32(v)) return 0;
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return too_big(p, f, what, text, err);
}

/* Groups the calls of function `f` into from (incoming) and sub (outgoing), reads its numbers
 * and checks that each fits, in the order they are written; *size is the record's length. */
static int wg_prepare(grouper *from, grouper *sub, size_t f, wg_function *out_fn, uint64_t *size,
                      cg_error *err) {
    const cg_profile *p = from->p;
    size_t ev = from->ev;
    line_reader r;
    line_reader_init(&r, &p->line_stores[f]);
    cg_cost first[MAX_RAW_EVENTS];
    wg_function v = {0, 0, 0, p->fns[f].called};
    if (line_reader_next(&r, first, p->nraw) && (p->positions & CG_POS_LINE)) v.line = r.line;
    if (cg_cost_of(p, costs_row(&p->fn_self, p->nraw, f), ev, &v.self) != CG_OK ||
        cg_cost_of(p, costs_row(&p->fn_incl, p->nraw, f), ev, &v.inclusive) != CG_OK)
        return fail(err, CG_ERR_OVERFLOW, "function '%s': a cost does not fit in 64 bits",
                    strtab_get(&p->strings, p->fns[f].name));
    if (group_calls(from, f, 1, err) || group_calls(sub, f, 0, err)) return -1;
    /* a root that ran counts once */
    if (v.invocations == 0 && (v.self != 0 || sub->ngroups > 0)) v.invocations = 1;
    if (check_unsigned(p, f, "line", v.line, err) || check_signed(p, f, "self cost", v.self, err) ||
        check_signed(p, f, "inclusive cost", v.inclusive, err) ||
        check_unsigned(p, f, "invocations", v.invocations, err) ||
        check_unsigned(p, f, "callers", from->ngroups, err) ||
        check_unsigned(p, f, "calls", sub->ngroups, err))
        return -1;
    const grouper *lists[2] = {from, sub};
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->ngroups; i++) {
            const group *g = &lists[l]->groups[i];
            if (check_unsigned(p, f, "call line", g->line, err) ||
                check_unsigned(p, f, "call count", g->count, err) ||
                check_signed(p, f, "call cost", g->cost, err))
                return -1;
        }
    }
    *out_fn = v;
    *size = 24 + 16 * (uint64_t)(from->ngroups + sub->ngroups) +
            strtab_len(&p->strings, p->fns[f].file) + 1 + strtab_len(&p->strings, p->fns[f].name) +
            1;
    return 0;
}

static inline char *put_u32(char *q, uint64_t v) {
    q[0] = (char)(v & 0xff);
    q[1] = (char)(v >> 8 & 0xff);
    q[2] = (char)(v >> 16 & 0xff);
    q[3] = (char)(v >> 24 & 0xff);
    return q + 4;
}

static void wg_write_function(out *o, const grouper *from, const grouper *sub, size_t f,
                              const wg_function *v) {
    const cg_profile *p = from->p;
    char *q = out_room(o, 24);
    q = put_u32(q, v->line);
    q = put_u32(q, (uint64_t)v->self);
    q = put_u32(q, (uint64_t)v->inclusive);
    q = put_u32(q, v->invocations);
    q = put_u32(q, from->ngroups);
    q = put_u32(q, sub->ngroups);
    out_commit(o, q);
    const grouper *lists[2] = {from, sub};
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->ngroups; i++) {
            const group *g = &lists[l]->groups[i];
            q = out_room(o, 16);
            q = put_u32(q, g->fn);
            q = put_u32(q, g->line);
            q = put_u32(q, g->count);
            q = put_u32(q, (uint64_t)g->cost);
            out_commit(o, q);
        }
    }
    const fn_rec *fn = &p->fns[f];
    out_bytes(o, strtab_get(&p->strings, fn->file), strtab_len(&p->strings, fn->file));
    out_bytes(o, "\n", 1);
    out_bytes(o, strtab_get(&p->strings, fn->name), strtab_len(&p->strings, fn->name));
    out_bytes(o, "\n", 1);
}

enum { WEBGRIND_VERSION = 7 };

int cg_write_webgrind(const cg_profile *p, size_t ev, cg_write_fn write, void *userdata,
                      cg_error *err) {
    clear_error(err);
    if (ev >= p->nevents) return fail(err, CG_ERR_USAGE, "no event %zu", ev);
    grouper from = {p, ev, NULL, 0, 0, NULL, 0}, sub = from;
    uint64_t *sizes = malloc((p->nfns ? p->nfns : 1) * sizeof *sizes);
    out *o = malloc(sizeof *o);
    int rc = !sizes || !o ? nomem(err) : 0;
    /* every record is read and checked first: a number that does not fit writes nothing */
    uint64_t offset = 12 + 4 * (uint64_t)p->nfns;
    wg_function v;
    for (size_t f = 0; f < p->nfns && !rc; f++) {
        rc = wg_prepare(&from, &sub, f, &v, &sizes[f], err);
        offset += sizes[f];
    }
    if (!rc && !fits_u32(offset))
        rc = fail(err, CG_ERR_FORMAT, "the preprocessed file would exceed 4 GiB");
    if (!rc) {
        o->len = 0;
        o->write = write;
        o->userdata = userdata;
        o->failed = 0;
        char *q = out_room(o, 12);
        q = put_u32(q, WEBGRIND_VERSION);
        q = put_u32(q, offset);
        q = put_u32(q, p->nfns);
        out_commit(o, q);
        uint64_t at = 12 + 4 * (uint64_t)p->nfns;
        for (size_t f = 0; f < p->nfns; f++) {
            out_commit(o, put_u32(out_room(o, 4), at));
            at += sizes[f];
        }
        for (size_t f = 0; f < p->nfns && !rc && !o->failed; f++) {
            rc = wg_prepare(&from, &sub, f, &v, &sizes[f], err);
            if (!rc) wg_write_function(o, &from, &sub, f, &v);
        }
        if (!rc) rc = out_finish(o, err);
    }
    free(sizes);
    free(o);
    free(from.groups);
    free(from.table);
    free(sub.groups);
    free(sub.table);
    return rc;
}
