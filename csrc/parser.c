/* parser.c - the Callgrind format, one line at a time: header lines (`key: value`), position
 * specifications (`fn=`, `cfi=`...), associations (`calls=`, `jump=`, `jcnd=`) and cost lines.
 * The format state (current function, files, name tables, last subpositions, the association
 * waiting for its position line) lives in parse_state; records go to the builder. */
#include "parser.h"

#include <stdlib.h>
#include <string.h>

#include "inline.h"
#include "numparse.h"
#include "piece_names.h"
#include "split.h"
#include "vec.h"

/* Line handlers return 0 when the line was used, 1 when a tolerant load skipped it (a warning
 * was recorded) and -1 when the load stops (the error is in the site's err). */
enum { LINE_OK = 0, LINE_SKIPPED = 1, LINE_STOP = -1 };

#define TOKEN_SHOWN 48

/* Copies the token at s (up to a space) for a message, shortened when long. */
static const char *token(char *buf, const char *s, const char *end) {
    size_t n = 0;
    while (s + n < end && !is_space(s[n]) && n < TOKEN_SHOWN) n++;
    memcpy(buf, s, n);
    if (s + n < end && !is_space(s[n])) {
        memcpy(buf + n, "...", 4);
    } else {
        buf[n] = '\0';
    }
    return buf;
}

/* What a fault of the line means for its handler: the load stops, or the line is skipped. */
static int stopped(parser *ps) {
    ps->failed = 1;
    return LINE_STOP;
}
static int skip_or_stop(parser *ps, int rc) {
    return rc < 0 ? stopped(ps) : LINE_SKIPPED;
}
static int go_on_or_stop(parser *ps, int rc) {
    return rc < 0 ? stopped(ps) : LINE_OK;
}

/* A fault no mode can skip: unsupported version, absurd sizes. */
#define stop(ps, code, ...)                                                                        \
    (fault_stop(&(ps)->site, (code), (ps)->st.lineno, __VA_ARGS__), stopped(ps))
/* A malformed line: a strict load stops, a tolerant one records a warning and skips it. */
#define malformed(ps, ...)                                                                         \
    skip_or_stop((ps), fault(&(ps)->site, CG_ERR_FORMAT, (ps)->st.lineno, __VA_ARGS__))
/* A doubt that never stops a load (conflicting id definitions). */
#define warn(ps, line, ...) go_on_or_stop((ps), fault_warn(&(ps)->site, (line), __VA_ARGS__))

static int out_of_memory(parser *ps) {
    return stop(ps, CG_ERR_NOMEM, "out of memory");
}

static const char *const ids_label[IDS_COUNT] = {"file", "function", "object"};

static const char *skip_space(const char *s, const char *end) {
    while (s < end && is_space(*s)) s++;
    return s;
}

/* In a threaded load, waits until the builder's thread has every record so far: the sections,
 * events and headers are then the builder's to change (pipeline.h). */
static int settle(parser *ps) {
    return ps->pipe && pipe_sync(ps->pipe) ? stopped(ps) : LINE_OK;
}

static int intern(parser *ps, const char *s, size_t len, uint32_t *out) {
    return build_string(ps->b, s, len, out) ? out_of_memory(ps) : LINE_OK;
}

/* ---- sections ---- */

/* Closes the current section; `at_end` when the input ends with it. */
static int finish_section(parser *ps, int at_end) {
    parse_state *st = &ps->st;
    builder *b = ps->b;
    if (settle(ps)) return LINE_STOP;
    size_t s = build_section_current(b);
    if (s == CG_NONE) return LINE_OK;
    int keep = !st->skip_records && build_section_chosen(b);
    if (build_section_close(b, keep)) return out_of_memory(ps);
    if (!keep) return LINE_OK;
    int cut = at_end && st->writes_totals;
    return build_section_check(b, s, cut, st->lineno, &ps->site) ? stopped(ps) : LINE_OK;
}

static void reset_body_state(parse_state *st) {
    for (int k = 0; k < COL_COUNT; k++) st->last[k] = 0, st->has_last[k] = 0;
    st->ob = st->fl = st->file = 0;
    st->have_fl = 0;
    st->fn = NO_INDEX;
    st->cob = st->cfi = st->cfn = st->jfi = st->jfn = NO_INDEX;
    st->cfn_id = PARSE_NO_ID;
    st->assoc = ASSOC_NONE;
}

static int record_section_events(parser *ps) {
    const parse_state *st = &ps->st;
    return build_section_events(ps->b, st->event_map, st->nevent_map) ? out_of_memory(ps) : LINE_OK;
}

static unsigned positions_mask(const parse_state *st) {
    unsigned mask = 0;
    for (int k = 0; k < st->ncols; k++) mask |= 1u << st->col_kind[k];
    return mask;
}

/* A new section keeps the positions and events of the previous one until its own header
 * says otherwise; positions, the current function and files start afresh. */
static int new_section(parser *ps) {
    parse_state *st = &ps->st;
    if (finish_section(ps, 0) || settle(ps)) return LINE_STOP;
    if (build_section_open(ps->b, st->source, st->lineno)) return out_of_memory(ps);
    st->body_started = 0;
    st->skip_records = 0;
    reset_body_state(st);
    build_section_positions(ps->b, positions_mask(st));
    return st->have_events ? record_section_events(ps) : LINE_OK;
}

static int enter_body(parser *ps) {
    parse_state *st = &ps->st;
    if (build_section_current(ps->b) == CG_NONE) {
        int rc = new_section(ps);
        if (rc) return rc;
    }
    if (!st->body_started) {
        if (settle(ps)) return LINE_STOP;
        st->skip_records = !build_section_chosen(ps->b);
    }
    st->body_started = 1;
    return LINE_OK;
}

/* ---- names: `name`, `(id) name`, `(id)` ---- */

/* Whether a name is written `(id)` or `(id) name`. */
static inline int is_compressed(const char *s, const char *end) {
    return end - s >= 2 && s[0] == '(' && is_digit(s[1]);
}

/* The id of a compressed name at `s` (is_compressed) into *id, and where the text after its
 * ')' and the blanks after it begins; NULL when the id does not fit in 64 bits (*too_large) or
 * no ')' ends it. */
static const char *compressed_id(const char *s, const char *end, uint64_t *id, int *too_large) {
    uint64_t v = 0;
    *too_large = 0;
    for (s++; s < end && is_digit(*s); s++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) {
            *too_large = 1;
            return NULL;
        }
        v = v * 10 + d;
    }
    if (s == end || *s != ')') return NULL;
    *id = v;
    return skip_space(s + 1, end);
}

/* name_text for a piece with names of its own: refs of the piece. What one thread would warn
 * of or fail on stops the piece, which is then parsed again as one thread parses it. */
static int own_name_text(parser *ps, int table, const char *s, const char *end, uint32_t *out) {
    piece_names *pn = ps->own;
    if (!is_compressed(s, end))
        return piece_names_text(pn, s, (size_t)(end - s), out) ? stopped(ps) : LINE_OK;
    uint64_t id;
    int too_large;
    if (!(s = compressed_id(s, end, &id, &too_large))) return stopped(ps);
    idmap *map = &ps->st.ids[table];
    int64_t bound = idmap_get(map, id);
    if (s == end) {
        if (bound >= 0) {
            *out = (uint32_t)bound;
            return LINE_OK;
        }
        /* defined before the piece, or never: the stitch knows */
        return piece_names_before(pn, table, id, out) || idmap_set(map, id, *out) ? stopped(ps)
                                                                                  : LINE_OK;
    }
    if (piece_names_text(pn, s, (size_t)(end - s), out)) return stopped(ps);
    /* another name for an id the piece defined: one thread's warning */
    if (bound >= 0 && (uint32_t)bound != *out && !piece_names_is_before(pn, (uint32_t)bound))
        return stopped(ps);
    if ((uint32_t)bound != *out && idmap_set(map, id, *out)) return stopped(ps);
    return piece_names_define(pn, table, id, *out) ? stopped(ps) : LINE_OK;
}

static int name_text(parser *ps, int table, const char *s, const char *end, uint32_t *out) {
    parse_state *st = &ps->st;
    if (ps->own) return own_name_text(ps, table, s, end, out);
    if (!is_compressed(s, end)) return intern(ps, s, (size_t)(end - s), out);
    const char *start = s;
    uint64_t id;
    int too_large;
    if (!(s = compressed_id(s, end, &id, &too_large))) {
        if (too_large) return malformed(ps, "%s id too large", ids_label[table]);
        const char *close = memchr(start, ')', (size_t)(end - start));
        int shown = (int)((close ? close + 1 : end) - start);
        return malformed(ps, "bad compressed %s id '%.*s'", ids_label[table],
                         shown > TOKEN_SHOWN ? TOKEN_SHOWN : shown, start);
    }
    idmap *map = &st->ids[table];
    int64_t bound = idmap_get(map, id);
    if (s == end) {
        if (bound >= 0) {
            *out = (uint32_t)bound;
            return LINE_OK;
        }
        int rc = malformed(ps, "undefined %s id (%llu)", ids_label[table], (unsigned long long)id);
        if (rc < 0) return rc;
        /* tolerant: an unknown name, as KCachegrind does */
        return intern(ps, "???", 3, out);
    }
    /* the same definition again (callgrind writes a part's names anew in every part): the
     * bound string, compared rather than hashed and looked up */
    size_t len = (size_t)(end - s);
    if (bound >= 0 && strtab_len(&ps->b->p->strings, (uint32_t)bound) == len &&
        memcmp(build_text(ps->b, (uint32_t)bound), s, len) == 0) {
        *out = (uint32_t)bound;
        return LINE_OK;
    }
    int rc = intern(ps, s, len, out);
    if (rc) return rc;
    if (bound >= 0 && (uint32_t)bound != *out) {
        rc = warn(ps, st->lineno, "%s id (%llu) redefined from '%s' to '%s'", ids_label[table],
                  (unsigned long long)id, build_text(ps->b, (uint32_t)bound),
                  build_text(ps->b, *out));
        if (rc) return rc;
    }
    if (bound < 0 || (uint32_t)bound != *out) {
        if (idmap_set(map, id, *out)) return out_of_memory(ps);
    }
    return LINE_OK;
}

/* A split load's record of a name (split.h): a piece's parser takes what the splitter's
 * resolved, the splitter's parser writes it down. */
static int take_name(parser *ps, uint32_t *out) {
    if (!ps->names_left) return stopped(ps); /* cannot happen: the splitter saw the same lines */
    *out = *ps->names_in++;
    ps->names_left--;
    return LINE_OK;
}

static inline int put_name(parser *ps, uint32_t v) {
    name_list *l = ps->names_out;
    if (VEC_RESERVE(l->v, l->cap, l->n + 1)) return out_of_memory(ps);
    l->v[l->n++] = v;
    return LINE_OK;
}

static int parse_name(parser *ps, int table, const char *s, const char *end, uint32_t *out) {
    if (ps->names_in) return take_name(ps, out);
    int rc = name_text(ps, table, s, end, out);
    return rc || !ps->names_out ? rc : put_name(ps, *out);
}

/* The function of that identity into *out; `defined` when a fn= line begins a block of it.
 * Threaded, *out is the register `reg` of the pipeline (st->fn, st->jfn and st->assoc_callee
 * each have one, pipeline.h), which the builder's thread sets. */
/* The memo of compressed function id `id` while it names `name` (idmap.h), else NULL: the
 * function that name was resolved to last, with the file and object it was resolved in. */
static uint32_t *fn_memo(parser *ps, uint64_t id, uint32_t name) {
    uint32_t *memo = id == PARSE_NO_ID ? NULL : idmap_memo(&ps->st.ids[IDS_FN], id);
    return memo && idmap_get(&ps->st.ids[IDS_FN], id) == (int64_t)name ? memo : NULL;
}

enum { MEMO_FILE, MEMO_OBJECT, MEMO_FN };

/* The function of (name, file, object), made when new; `id` the compressed id the name was
 * read by (PARSE_NO_ID: none), whose memo answers without the builder's lookup of the name
 * (another miss of the caches at every call of a big profile) when the file and object are
 * those it was resolved in last. */
static int function_of(parser *ps, uint64_t id, uint32_t name, uint32_t file, uint32_t object,
                       int defined, int reg, uint32_t *out) {
    if (ps->own) {
        if (piece_names_function(ps->own, name, file, object, defined, out)) return stopped(ps);
        if (defined) *out = local_block(ps->local, *out);
        return LINE_OK;
    }
    if (ps->names_in) {
        int rc = take_name(ps, out);
        if (!rc && defined) *out = local_block(ps->local, *out);
        return rc;
    }
    if (ps->pipe)
        return pipe_function(ps->pipe, ps->st.lineno, name, file, object, defined, reg, out)
                   ? stopped(ps)
                   : LINE_OK;
    uint32_t *memo = fn_memo(ps, id, name);
    if (memo && memo[MEMO_FN] && memo[MEMO_FILE] == file && memo[MEMO_OBJECT] == object) {
        *out = memo[MEMO_FN] - 1;
    } else {
        if (build_function(ps->b, name, file, object, out)) return out_of_memory(ps);
        if (memo) {
            memo[MEMO_FILE] = file;
            memo[MEMO_OBJECT] = object;
            memo[MEMO_FN] = *out + 1;
        }
    }
    /* a block of a function that had one before: a split load's piece keeps its calls and
     * jumps as read (split.h) */
    int again = defined && build_defined(ps->b, *out);
    return ps->names_out ? put_name(ps, again ? *out | LOCAL_LATER : *out) : LINE_OK;
}

/* The name table each position specification refers to (SPEC_*, parser.h). */
static const int spec_table[] = {IDS_FN,   IDS_FILE, IDS_FILE, IDS_OBJ, IDS_FN,
                                 IDS_FILE, IDS_OBJ,  IDS_FILE, IDS_FN};

/* What a specification line with that name does to the format state. */
/* `id`: the compressed id the name was read by, or PARSE_NO_ID. */
static int spec_apply(parser *ps, int spec, uint32_t name, uint64_t id) {
    parse_state *st = &ps->st;
    uint32_t file;
    switch (spec) {
    case SPEC_FN:
        file = st->have_fl ? st->fl : st->file;
        st->file = file; /* fn= ends inlined code: back to the function's own file */
        /* a section left out by the options adds no function, not even an empty one */
        if (st->skip_records) return LINE_OK;
        return function_of(ps, id, name, file, st->ob, 1, PIPE_REG_FN, &st->fn);
    case SPEC_FL:
        st->fl = st->file = name;
        st->have_fl = 1;
        return LINE_OK;
    case SPEC_FI:
        st->file = name;
        return LINE_OK;
    case SPEC_OB:
        st->ob = name;
        return LINE_OK;
    case SPEC_CFN:
        /* resolved at calls=, so that cfi=/cob= may come before or after cfn= */
        st->cfn = name;
        st->cfn_id = id;
        return LINE_OK;
    case SPEC_CFI:
        st->cfi = name;
        return LINE_OK;
    case SPEC_COB:
        st->cob = name;
        return LINE_OK;
    case SPEC_JFI:
        st->jfi = name;
        return LINE_OK;
    default: /* SPEC_JFN */
        file = st->jfi != NO_INDEX ? st->jfi : st->file;
        if (st->skip_records) return LINE_OK;
        return function_of(ps, id, name, file, st->ob, 0, PIPE_REG_JUMP_TO, &st->jfn);
    }
}

static int spec_line(parser *ps, const char *key, size_t klen, const char *s, const char *end) {
    uint32_t name;
    int rc, spec = parse_spec_of(key, klen);
    if (spec < 0) return malformed(ps, "unknown specification '%.*s='", (int)klen, key);
    s = skip_space(s, end);
    if ((rc = parse_name(ps, spec_table[spec], s, end, &name))) return rc;
    return spec_apply(ps, spec, name, PARSE_NO_ID);
}

/* ---- positions ---- */

static const char *const col_label[COL_COUNT] = {"instr", "bb", "line"};

/* Reads one subposition. Targets of calls are advisory (pprof encodes them against another
 * base): they decode with base 0 when there is no previous position and never fail on range. */
static int parse_subposition(parser *ps, const char **at, const char *end, int kind, int advisory,
                             uint64_t *out) {
    parse_state *st = &ps->st;
    const char *s = *at;
    char shown[TOKEN_SHOWN + 4];
    char c = *s;
    if (c == '*' || c == '+' || c == '-') {
        uint64_t delta = 0;
        const char *t = s + 1;
        if (c != '*') {
            int rc = parse_u64(&t, end, &delta);
            if (rc == ST_OVERFLOW)
                return malformed(ps, "number '%s' does not fit in 64 bits",
                                 token(shown, s + 1, end));
            if (rc)
                return malformed(ps, "bad %s position '%s'", col_label[kind], token(shown, s, end));
        } else if (t < end && !is_space(*t)) {
            return malformed(ps, "bad %s position '%s'", col_label[kind], token(shown, s, end));
        }
        uint64_t base = st->last[kind];
        if (!st->has_last[kind] && !advisory)
            return malformed(ps, "relative %s position '%s' with no previous position",
                             col_label[kind], token(shown, s, end));
        uint64_t v = base;
        int bad = c == '+'   ? __builtin_add_overflow(base, delta, &v)
                  : c == '-' ? __builtin_sub_overflow(base, delta, &v)
                             : 0;
        if (bad) {
            if (!advisory)
                return malformed(ps, "%s position '%s' from %llu is out of range", col_label[kind],
                                 token(shown, s, end), (unsigned long long)base);
            v = 0;
        }
        *out = v;
        *at = t;
        return LINE_OK;
    }
    int rc = parse_u64(&s, end, out);
    if (rc == ST_OVERFLOW)
        return malformed(ps, "number '%s' does not fit in 64 bits", token(shown, *at, end));
    if (rc) return malformed(ps, "bad %s position '%s'", col_label[kind], token(shown, *at, end));
    *at = s;
    return LINE_OK;
}

/* In a split load, whether the sums of this line may differ from a load on one thread's. */
static int split_doubt(parser *ps, const cg_cost *v, size_t n, int overflow) {
    if (!ps->split_sums) return 0;
    if (!overflow && !any_negative(v, n)) return 0;
    ps->split_redo = 1;
    return 1;
}

static int add_costs(parser *ps, cg_cost *row, size_t n) {
    const parse_state *st = &ps->st;
    int bad = 0;
    if (st->identity_map) {
        bad = row_add(row, ps->values, n);
    } else {
        for (size_t i = 0; i < n; i++) bad |= cost_add(&row[st->event_map[i]], ps->values[i]);
    }
    if (bad && split_doubt(ps, NULL, 0, 1)) return stopped(ps);
    return bad ? malformed(ps, "cost sum does not fit in 64 bits") : LINE_OK;
}

/* What a builder's status means for the line: out of memory stops, an overflow is a fault. */
static int built(parser *ps, status rc, const char *overflow) {
    if (rc == ST_OK) return LINE_OK;
    if (rc == ST_OVERFLOW && split_doubt(ps, NULL, 0, 1)) return stopped(ps);
    if (rc == ST_OVERFLOW) return malformed(ps, "%s does not fit in 64 bits", overflow);
    return out_of_memory(ps);
}

static int self_cost(parser *ps, const uint64_t *pos, size_t n) {
    parse_state *st = &ps->st;
    if (st->skip_records) return LINE_OK;
    if (st->fn == NO_INDEX) return malformed(ps, "cost line outside a function (no fn= before it)");
    if (split_doubt(ps, ps->values, n, 0)) return stopped(ps);
    const cg_cost *costs = ps->values;
    if (!st->identity_map) {
        /* the section orders its events otherwise: records keep the profile's order */
        size_t width = build_width(ps->b);
        memset(ps->row, 0, width * sizeof *ps->row);
        for (size_t i = 0; i < n; i++) ps->row[st->event_map[i]] = ps->values[i];
        costs = ps->row;
        n = width;
    }
    if (ps->local)
        return any_negative(costs, n) || local_line(ps->local, st->fn, st->file, pos[COL_LINE],
                                                    pos[COL_INSTR], costs, n)
                   ? stopped(ps)
                   : LINE_OK;
    if (ps->pipe)
        return pipe_line(ps->pipe, st->lineno, st->fn, st->file, pos[COL_LINE], pos[COL_INSTR],
                         costs, n)
                   ? stopped(ps)
                   : LINE_OK;
    return built(ps, build_line(ps->b, st->fn, st->file, pos[COL_LINE], pos[COL_INSTR], costs, n),
                 "cost sum");
}

static int call_cost(parser *ps, const uint64_t *pos, size_t n) {
    parse_state *st = &ps->st;
    if (st->skip_records) {
        st->cob = st->cfi = NO_INDEX;
        return LINE_OK;
    }
    if (st->fn == NO_INDEX) return malformed(ps, "call outside a function (no fn= before it)");
    if (split_doubt(ps, ps->values, n, 0)) return stopped(ps);
    call_rec key = {st->fn,
                    st->assoc_callee,
                    st->file,
                    pos[COL_LINE],
                    pos[COL_INSTR],
                    st->assoc_count,
                    st->assoc_target[COL_LINE],
                    st->assoc_target[COL_INSTR]};
    st->cob = st->cfi = NO_INDEX;
    if (ps->local)
        return local_call(ps->local, &key, st->assoc_guessed, ps->values, n,
                          st->identity_map ? NULL : st->event_map)
                   ? stopped(ps)
                   : LINE_OK;
    if (ps->pipe)
        return pipe_call(ps->pipe, st->lineno, &key, st->assoc_guessed, ps->values, n,
                         st->identity_map ? NULL : st->event_map)
                   ? stopped(ps)
                   : LINE_OK;
    cg_cost *row;
    int rc = built(ps, build_call(ps->b, &key, st->assoc_guessed, &row), "call count sum");
    if (rc) return rc;
    return add_costs(ps, row, n);
}

static int jump_source(parser *ps, const uint64_t *pos, size_t n, int conditional) {
    parse_state *st = &ps->st;
    if (st->skip_records) {
        st->jfi = st->jfn = NO_INDEX;
        return LINE_OK;
    }
    if (st->fn == NO_INDEX) return malformed(ps, "jump outside a function (no fn= before it)");
    for (size_t i = 0; i < n; i++)
        if (ps->values[i]) return malformed(ps, "costs on the source line of a jump");
    jump_rec key = {.fn = st->fn,
                    .from_file = st->file,
                    .to_fn = st->jfn != NO_INDEX ? st->jfn : st->fn,
                    .to_file = st->jfi != NO_INDEX ? st->jfi : st->file,
                    .conditional = conditional != 0,
                    .from_line = pos[COL_LINE],
                    .from_addr = pos[COL_INSTR],
                    .to_line = st->assoc_target[COL_LINE],
                    .to_addr = st->assoc_target[COL_INSTR],
                    .executed = st->assoc_count,
                    .taken = st->assoc_taken};
    st->jfi = st->jfn = NO_INDEX;
    if (ps->local) return local_jump(ps->local, &key) ? stopped(ps) : LINE_OK;
    if (ps->pipe) return pipe_jump(ps->pipe, st->lineno, &key) ? stopped(ps) : LINE_OK;
    return built(ps, build_jump(ps->b, &key), "jump count sum");
}

/* Takes in a position line read into pos and ps->values: the self cost, or the line that
 * completes a calls=, jump= or jcnd=. */
static int commit_position(parser *ps, const uint64_t *pos, size_t n) {
    parse_state *st = &ps->st;
    int rc = enter_body(ps);
    if (rc) return rc;
    for (int k = 0; k < st->ncols; k++) {
        st->last[st->col_kind[k]] = pos[st->col_kind[k]];
        st->has_last[st->col_kind[k]] = 1;
    }
    int assoc = st->assoc;
    st->assoc = ASSOC_NONE;
    switch (assoc) {
    case ASSOC_CALL:
        return call_cost(ps, pos, n);
    case ASSOC_JUMP:
    case ASSOC_JCND:
        return jump_source(ps, pos, n, assoc == ASSOC_JCND);
    default:
        return self_cost(ps, pos, n);
    }
}

/* A line of subpositions and costs, read in full generality. */
static int position_line(parser *ps, const char *s, const char *end) {
    parse_state *st = &ps->st;
    char shown[TOKEN_SHOWN + 4];
    if (!st->have_events) return malformed(ps, "cost line before the 'events:' line");
    uint64_t pos[COL_COUNT] = {0, 0, 0};
    for (int k = 0; k < st->ncols; k++) {
        if (s == end)
            return malformed(ps, "missing %s position ('positions:' lists %d)",
                             col_label[st->col_kind[k]], st->ncols);
        int rc = parse_subposition(ps, &s, end, st->col_kind[k], 0, &pos[st->col_kind[k]]);
        if (rc) return rc;
        s = skip_space(s, end);
    }
    size_t n = 0;
    while (s < end) {
        if (n == st->nevent_map)
            return malformed(ps, "too many costs: 'events:' lists %zu event%s", st->nevent_map,
                             st->nevent_map == 1 ? "" : "s");
        int rc = parse_cost(&s, end, &ps->values[n]);
        if (rc == ST_OVERFLOW)
            return malformed(ps, "number '%s' does not fit in 64 bits", token(shown, s, end));
        if (rc) return malformed(ps, "bad cost '%s'", token(shown, s, end));
        n++;
        s = skip_space(s, end);
    }
    return commit_position(ps, pos, n);
}

/* ---- the fast path for position lines ---- */

/* A decimal of at most 18 digits (no overflow possible); NULL when there is none or it is
 * longer, for the general path to read. The line's '\n' ends every run of digits, so the digits
 * are read without a bound and counted once at the end (a longer number wraps, and is dropped). */
static inline const char *fast_decimal(const char *p, uint64_t *out) {
    const char *start = p;
    unsigned d = (unsigned)(unsigned char)*p - '0';
    if (d > 9) return NULL;
    uint64_t v = d;
    while ((d = (unsigned)(unsigned char)*++p - '0') <= 9) v = v * 10 + d;
    if (p - start > 18) return NULL;
    *out = v;
    return p;
}

static inline const char *fast_hex(const char *p, uint64_t *out) {
    uint64_t v = 0;
    int digits = 0, h;
    while ((h = hex_value(*p)) >= 0) {
        if (++digits > 15) return NULL;
        v = (v << 4) | (uint64_t)h;
        p++;
    }
    if (!digits) return NULL;
    *out = v;
    return p;
}

/* Skips the spaces after a token; NULL when the token is followed by anything else. At the
 * end of the line it stops at the '\r' or '\n'. */
static inline const char *fast_gap(const char *p) {
    /* most often one blank, then the next token */
    if (*p == ' ' && (unsigned char)p[1] > ' ') return p + 1;
    if (*p == ' ' || *p == '\t') {
        do p++;
        while (*p == ' ' || *p == '\t');
        return p;
    }
    return *p == '\n' || *p == '\r' ? p : NULL;
}

/* Reads a specification line that refers to a defined name, as valgrind writes all but the
 * first of each (`fn=(12)`: no blank around the id, '\n' right after it, inside the buffer),
 * whose key of `klen` letters is followed by '='. Returns the line's '\n' with the
 * specification and the name, or NULL for the general path. Changes nothing. */
static const char *fast_spec(const parser *ps, const char *key, size_t klen, int *spec_out,
                             uint32_t *name, uint64_t *id_out) {
    const char *p = key + klen + 1;
    int spec = parse_spec_of(key, klen);
    if (spec < 0 || *p != '(') return NULL;
    uint64_t id;
    if (!(p = fast_decimal(p + 1, &id)) || *p != ')' || *++p != '\n') return NULL;
    int64_t bound = idmap_get(&ps->st.ids[spec_table[spec]], id);
    if (bound < 0) return NULL;
    *spec_out = spec;
    *name = (uint32_t)bound;
    *id_out = id;
    return p;
}

/* One subposition of a column of kind `kind` into *out; NULL for the general path. `known`: the
 * column is known to have a last value, not to be checked. */
ALWAYS_INLINE const char *fast_subposition(const parse_state *st, const char *p, int kind,
                                           int known, uint64_t *out) {
    uint64_t d;
    char c = *p;
    if (c == '+') {
        if ((!known && !st->has_last[kind]) || !(p = fast_decimal(p + 1, &d)) ||
            __builtin_add_overflow(st->last[kind], d, out))
            return NULL;
    } else if (c == '*') {
        if (!known && !st->has_last[kind]) return NULL;
        *out = st->last[kind];
        p++;
    } else if (c == '-') {
        if ((!known && !st->has_last[kind]) || !(p = fast_decimal(p + 1, &d)) ||
            __builtin_sub_overflow(st->last[kind], d, out))
            return NULL;
    } else if (c == '0' && (p[1] | 0x20) == 'x') {
        p = fast_hex(p + 2, out);
    } else {
        p = fast_decimal(p, out);
    }
    return p;
}

/* Reads a well-formed position line that ends in '\n' inside the buffer: subpositions as
 * numbers of at most 18 digits, 0x hex, +N, -N or *, then decimal costs. Returns the line's
 * '\n', or NULL for anything else (long or hex costs, a missing column, junk), which the
 * general path then reads and, when wrong, reports. Nothing is changed before it succeeds.
 * `ncols` columns of kinds k0, k1, k2: the common layouts pass constants, so that the column
 * loop unrolls to straight code. */
ALWAYS_INLINE const char *fast_tokens_as(parser *ps, const char *p, uint64_t *pos, size_t *ncosts,
                                         int ncols, int k0, int k1, int k2, int known) {
    const parse_state *st = &ps->st;
    for (int k = 0; k < ncols; k++) {
        int kind = k == 0 ? k0 : k == 1 ? k1 : k2;
        if (!(p = fast_subposition(st, p, kind, known, &pos[kind]))) return NULL;
        if (!(p = fast_gap(p))) return NULL;
        if (k + 1 < ncols && (*p == '\n' || *p == '\r')) return NULL;
    }
    size_t n = 0;
    for (;;) {
        if (*p == '\n') break;
        if (*p == '\r') {
            if (p[1] != '\n') return NULL;
            p++;
            break;
        }
        if (n == st->nevent_map) return NULL;
        uint64_t v;
        if (*p != '-') {
            if (!(p = fast_decimal(p, &v))) return NULL;
            ps->values[n++] = (cg_cost)v;
        } else {
            /* a piece takes no negative cost (split.h): the general path reads it and stops */
            if (ps->local || !(p = fast_decimal(p + 1, &v))) return NULL;
            ps->values[n++] = -(cg_cost)v;
        }
        if (!(p = fast_gap(p))) return NULL;
    }
    *ncosts = n;
    return p;
}

/* What the fast path may assume of the format state, found again after every line it leaves
 * to the general path (only those change the layout, the positions known or the association). */
enum {
    FAST_ANY,        /* any layout, last values checked */
    FAST_INSTR_LINE, /* positions: instr line, both with a last value */
    FAST_LINE,       /* positions: line, with a last value */
};

static int fast_layout(const parse_state *st) {
    if (st->ncols == 2 && st->col_kind[0] == COL_INSTR && st->col_kind[1] == COL_LINE &&
        st->has_last[COL_INSTR] && st->has_last[COL_LINE])
        return FAST_INSTR_LINE;
    if (st->ncols == 1 && st->col_kind[0] == COL_LINE && st->has_last[COL_LINE]) return FAST_LINE;
    return FAST_ANY;
}

static const char *fast_tokens(parser *ps, int layout, const char *p, uint64_t *pos,
                               size_t *ncosts) {
    const parse_state *st = &ps->st;
    switch (layout) {
    case FAST_INSTR_LINE:
        return fast_tokens_as(ps, p, pos, ncosts, 2, COL_INSTR, COL_LINE, 0, 1);
    case FAST_LINE:
        return fast_tokens_as(ps, p, pos, ncosts, 1, COL_LINE, 0, 0, 1);
    default:
        return fast_tokens_as(ps, p, pos, ncosts, st->ncols, st->col_kind[0], st->col_kind[1],
                              st->col_kind[2], 0);
    }
}

/* Inside a section's body whose records are kept (enter_body has nothing to do; a split
 * load's piece lies in one), nothing waiting for a position line. */
static inline int in_body(const parser *ps) {
    const parse_state *st = &ps->st;
    return st->body_started && st->assoc == ASSOC_NONE &&
           (ps->local || build_section_current(ps->b) != CG_NONE);
}

/* Whether specification, calls=, jump= and jcnd= lines may take the fast path: in a body, and
 * not the splitter's parser (whose name lines go through parse_name_line, split.h). */
static inline int fast_names(const parser *ps) {
    return in_body(ps) && !ps->names_out;
}

/* A piece's specification line (`klen` letters then '='), whose name the splitter resolved
 * (names_in, taken with take_name): its text is not read, only where it ends. Returns the
 * line's '\n', at or before `last` (a '\n' of the buffer), or NULL for the general path. */
static const char *fast_taken_spec(const char *key, size_t klen, const char *last, int *spec_out) {
    if ((*spec_out = parse_spec_of(key, klen)) < 0) return NULL;
    const char *p = key + klen + 1;
    return memchr(p, '\n', (size_t)(last - p) + 1);
}

/* Whether a self-cost line may go straight to the builder, or to a split load's piece: inside
 * a kept section's body (a piece lies in one, split.c), in a function, nothing waiting for this
 * line, events in the profile's order, not through the pipeline. What commit_position checks
 * and does, for those lines. */
static inline int fast_self_cost(const parser *ps) {
    const parse_state *st = &ps->st;
    return st->have_events && st->body_started && !st->skip_records && st->assoc == ASSOC_NONE &&
           st->fn != NO_INDEX && st->identity_map && !ps->pipe && !ps->split_sums &&
           (ps->local || build_section_current(ps->b) != CG_NONE);
}

/* A self cost the fast path read, where commit_position would put it. */
static inline int fast_put_self(parser *ps, const uint64_t *pos, size_t n) {
    const parse_state *st = &ps->st;
    if (ps->local)
        return local_line(ps->local, st->fn, st->file, pos[COL_LINE], pos[COL_INSTR], ps->values, n)
                   ? stopped(ps)
                   : LINE_OK;
    status rc = build_line(ps->b, st->fn, st->file, pos[COL_LINE], pos[COL_INSTR], ps->values, n);
    return rc ? built(ps, rc, "cost sum") : LINE_OK;
}

/* ---- associations: calls=, jump=, jcnd= ---- */

static int count_value(parser *ps, const char **at, const char *end, const char *what,
                       uint64_t *out) {
    char shown[TOKEN_SHOWN + 4];
    int rc = parse_u64(at, end, out);
    if (rc == ST_OVERFLOW)
        return malformed(ps, "number '%s' does not fit in 64 bits", token(shown, *at, end));
    if (rc) return malformed(ps, "bad %s '%s'", what, token(shown, *at, end));
    return LINE_OK;
}

/* A calls=, jump= or jcnd= line read: it waits for its position line. */
static int assoc_begin(parser *ps, int kind, uint64_t count, uint64_t taken,
                       const uint64_t *target) {
    parse_state *st = &ps->st;
    int rc;
    if ((rc = enter_body(ps))) return rc;
    if (kind == ASSOC_CALL && !st->skip_records && (rc = parse_bind_callee(ps))) return rc;
    st->assoc = kind;
    st->assoc_line = st->lineno;
    st->assoc_count = count;
    st->assoc_taken = taken;
    memcpy(st->assoc_target, target, sizeof st->assoc_target);
    return LINE_OK;
}

static int assoc_line(parser *ps, const char *key, size_t klen, const char *s, const char *end) {
    parse_state *st = &ps->st;
    int kind = klen == 5 ? ASSOC_CALL : key[1] == 'u' ? ASSOC_JUMP : ASSOC_JCND;
    const char *label = kind == ASSOC_CALL ? "calls=" : kind == ASSOC_JUMP ? "jump=" : "jcnd=";
    if (!st->have_events) return malformed(ps, "%s before the 'events:' line", label);
    uint64_t count = 0, taken = 0;
    s = skip_space(s, end);
    const char *slash = NULL;
    if (kind == ASSOC_JCND) {
        const char *t = s;
        while (t < end && !is_space(*t) && *t != '/') t++;
        if (t < end && *t == '/') slash = t;
    }
    int rc = count_value(ps, &s, slash ? slash : end,
                         kind == ASSOC_CALL ? "call count" : "jump count", &count);
    if (rc) return rc;
    if (kind == ASSOC_JCND) {
        uint64_t second;
        if (slash) {
            /* Valgrind's form: TAKEN/EXECUTED */
            s = slash + 1;
            if ((rc = count_value(ps, &s, end, "jump count", &second))) return rc;
            taken = count;
            count = second;
        } else {
            /* the specification's form: EXECUTED TAKEN */
            s = skip_space(s, end);
            if (s == end) return malformed(ps, "jcnd= needs an executed and a taken count");
            if ((rc = count_value(ps, &s, end, "jump count", &second))) return rc;
            taken = second;
        }
        if (taken > count)
            return malformed(ps, "jcnd= jump taken %llu times but executed only %llu",
                             (unsigned long long)taken, (unsigned long long)count);
    } else if (kind == ASSOC_JUMP) {
        taken = count;
    }
    if (kind == ASSOC_CALL && st->cfn == NO_INDEX)
        return malformed(ps, "calls= without a cfn= before it");
    uint64_t target[COL_COUNT] = {0, 0, 0};
    s = skip_space(s, end);
    for (int k = 0; k < st->ncols && s < end; k++) {
        rc = parse_subposition(ps, &s, end, st->col_kind[k], kind == ASSOC_CALL,
                               &target[st->col_kind[k]]);
        if (rc) return rc;
        s = skip_space(s, end);
    }
    /* anything after the target (Xdebug writes `calls=1 0 0`) carries no meaning */
    return assoc_begin(ps, kind, count, taken, target);
}

/* Reads a calls=, jump= or jcnd= line of the shapes valgrind writes (`calls=N TARGET`,
 * `jump=N TARGET`, `jcnd=TAKEN/EXECUTED TARGET`, no blank after '=', counts of at most 18
 * digits, the target's columns as in fast_tokens and nothing after them) that ends in '\n'
 * inside the buffer, when the layout is FAST_INSTR_LINE or FAST_LINE (every column has a last
 * value) and nothing waits for a position line. Returns the line's '\n', or NULL for the
 * general path, which reads the rest and reports what is wrong. Changes nothing. */
static const char *fast_assoc(const parser *ps, int layout, const char *key, size_t klen,
                              int *kind_out, uint64_t *count, uint64_t *taken, uint64_t *target) {
    const parse_state *st = &ps->st;
    const char *p = key + klen + 1;
    int kind;
    if (klen == 5 && !memcmp(key, "calls", 5)) {
        if (st->cfn == NO_INDEX) return NULL;
        kind = ASSOC_CALL;
    } else if (klen == 4 && !memcmp(key, "jump", 4)) {
        kind = ASSOC_JUMP;
    } else if (klen == 4 && !memcmp(key, "jcnd", 4)) {
        kind = ASSOC_JCND;
    } else {
        return NULL;
    }
    if (!(p = fast_decimal(p, count))) return NULL;
    *taken = kind == ASSOC_CALL ? 0 : *count;
    if (kind == ASSOC_JCND) {
        /* Valgrind's form, TAKEN/EXECUTED; the specification's goes the general way */
        if (*p != '/' || !(p = fast_decimal(p + 1, count)) || *taken > *count) return NULL;
    }
    if (!(p = fast_gap(p))) return NULL;
    int ncols = layout == FAST_INSTR_LINE ? 2 : 1;
    for (int k = 0; k < ncols && *p != '\n'; k++) {
        int col = layout == FAST_INSTR_LINE && k == 0 ? COL_INSTR : COL_LINE;
        if (!(p = fast_subposition(st, p, col, 1, &target[col])) || !(p = fast_gap(p))) return NULL;
    }
    /* anything after the target carries no meaning (Xdebug writes `calls=1 0 0`), as in
     * assoc_line */
    while (*p != '\n') p++;
    *kind_out = kind;
    return p;
}

int parse_bind_callee(parser *ps) {
    parse_state *st = &ps->st;
    /* the callee's file defaults to the current one (fi=/fe= included), its object to ob= */
    uint32_t file = st->cfi != NO_INDEX ? st->cfi : st->file;
    uint32_t object = st->cob != NO_INDEX ? st->cob : st->ob;
    int rc =
        function_of(ps, st->cfn_id, st->cfn, file, object, 0, PIPE_REG_CALLEE, &st->assoc_callee);
    if (rc) return rc;
    st->assoc_guessed = st->cfi == NO_INDEX;
    return LINE_OK;
}

/* ---- header lines ---- */

static int positions_header(parser *ps, const char *s, const char *end) {
    parse_state *st = &ps->st;
    char shown[TOKEN_SHOWN + 4];
    int ncols = 0, kinds[COL_COUNT];
    while ((s = skip_space(s, end)) < end) {
        const char *t = s;
        while (t < end && !is_space(*t)) t++;
        size_t len = (size_t)(t - s);
        int kind = len == 5 && !memcmp(s, "instr", 5)  ? COL_INSTR
                   : len == 4 && !memcmp(s, "addr", 4) ? COL_INSTR
                   : len == 2 && !memcmp(s, "bb", 2)   ? COL_BB
                   : len == 4 && !memcmp(s, "line", 4) ? COL_LINE
                                                       : -1;
        if (kind < 0)
            return malformed(ps, "unknown position '%s' in 'positions:'", token(shown, s, end));
        if (ncols && kinds[ncols - 1] >= kind)
            return malformed(ps, "'positions:' must list instr, bb and line at most once each, "
                                 "in that order");
        kinds[ncols++] = kind;
        s = t;
    }
    if (!ncols) return malformed(ps, "'positions:' lists nothing");
    st->ncols = ncols;
    memcpy(st->col_kind, kinds, sizeof kinds);
    build_section_positions(ps->b, positions_mask(st));
    return LINE_OK;
}

/* The events of the section are those st.event_map already holds. */
static int events_again(parser *ps) {
    parse_state *st = &ps->st;
    st->have_events = st->events_seen = 1;
    return record_section_events(ps);
}

/* Keeps the text of the `events:` line st.event_map was just made from. */
static int keep_events_text(parser *ps, const char *s, size_t len) {
    if (VEC_RESERVE(ps->events_text, ps->events_cap, len)) return out_of_memory(ps);
    memcpy(ps->events_text, s, len);
    ps->events_len = len;
    return LINE_OK;
}

static int events_header(parser *ps, const char *s, const char *end) {
    parse_state *st = &ps->st;
    char shown[TOKEN_SHOWN + 4];
    size_t len = (size_t)(end - s);
    /* the map a new input begins without (parse_begin) is not the one the text made; a kept
     * text lists at least one event, so events_len 0 is none kept (a piece's parser) */
    if (st->nevent_map && ps->events_len && ps->events_len == len &&
        memcmp(ps->events_text, s, len) == 0)
        return events_again(ps);
    const char *text = s;
    size_t n = 0;
    uint32_t map[MAX_RAW_EVENTS];
    while ((s = skip_space(s, end)) < end) {
        const char *t = s;
        while (t < end && !is_space(*t)) t++;
        if (n == MAX_RAW_EVENTS)
            return stop(ps, CG_ERR_FORMAT, "too many events in 'events:' (at most %d)",
                        MAX_RAW_EVENTS);
        uint32_t ev;
        status rc = build_event(ps->b, s, (size_t)(t - s), &ev);
        if (rc == ST_LIMIT)
            return stop(ps, CG_ERR_FORMAT, "too many distinct events (at most %d)", MAX_RAW_EVENTS);
        if (rc) return out_of_memory(ps);
        for (size_t i = 0; i < n; i++)
            if (map[i] == ev)
                return malformed(ps, "event '%s' listed twice in 'events:'", token(shown, s, end));
        map[n++] = ev;
        s = t;
    }
    if (!n) return malformed(ps, "'events:' lists no events");
    if (VEC_RESERVE(st->event_map, st->event_map_cap, n)) return out_of_memory(ps);
    memcpy(st->event_map, map, n * sizeof *map);
    st->nevent_map = n;
    st->identity_map = 1;
    for (size_t i = 0; i < n; i++)
        if (map[i] != i) st->identity_map = 0;
    if (keep_events_text(ps, text, len)) return LINE_STOP;
    return events_again(ps);
}

/* `event: Name [= formula] [: long name]` */
static int event_header(parser *ps, const char *s, const char *end) {
    parse_state *st = &ps->st;
    const char *name = s = skip_space(s, end);
    while (s < end && !is_space(*s) && *s != '=' && *s != ':') s++;
    const char *name_end = s;
    if (name == name_end) return malformed(ps, "'event:' without an event name");
    const char *formula = NULL, *formula_end = NULL, *long_name = NULL;
    s = skip_space(s, end);
    if (s < end && *s == '=') {
        formula = skip_space(s + 1, end);
        s = formula;
        while (s < end && *s != ':') s++;
        formula_end = s;
        while (formula_end > formula && is_space(formula_end[-1])) formula_end--;
    }
    if (s < end && *s == ':')
        long_name = skip_space(s + 1, end);
    else if (s < end)
        return malformed(ps, "bad 'event:' line: expected '=' or ':' after the name");
    const char *long_end = end;
    while (long_name && long_end > long_name && is_space(long_end[-1])) long_end--;
    event_desc d = {0, 0, 0, st->source, st->lineno};
    int rc = intern(ps, name, (size_t)(name_end - name), &d.name);
    if (!rc && long_name) rc = intern(ps, long_name, (size_t)(long_end - long_name), &d.long_name);
    if (!rc && formula) rc = intern(ps, formula, (size_t)(formula_end - formula), &d.formula);
    if (rc) return rc;
    return build_event_desc(ps->b, &d) ? out_of_memory(ps) : LINE_OK;
}

/* summary: and totals: give one cost per event of the section. */
static int costs_header(parser *ps, const char *label, const char *s, const char *end, int which) {
    parse_state *st = &ps->st;
    char shown[TOKEN_SHOWN + 4];
    if (!st->have_events) return malformed(ps, "'%s' before the 'events:' line", label);
    size_t n = 0;
    while ((s = skip_space(s, end)) < end) {
        if (n == st->nevent_map)
            return malformed(ps, "too many costs in '%s': 'events:' lists %zu event%s", label,
                             st->nevent_map, st->nevent_map == 1 ? "" : "s");
        int rc = parse_cost(&s, end, &ps->values[n]);
        if (rc == ST_OVERFLOW)
            return malformed(ps, "number '%s' does not fit in 64 bits", token(shown, s, end));
        if (rc) return malformed(ps, "bad cost '%s' in '%s'", token(shown, s, end), label);
        n++;
    }
    cg_cost *row = build_section_row(ps->b, which);
    memset(row, 0, build_width(ps->b) * sizeof *row);
    for (size_t i = 0; i < n; i++) row[st->event_map[i]] = ps->values[i];
    build_section_mark(ps->b, which, st->lineno);
    return LINE_OK;
}

static int version_header(parser *ps, const char *s, const char *end) {
    uint64_t major = 0;
    const char *t = s;
    while (t < end && is_digit(*t) && major < 1000) major = major * 10 + (uint64_t)(*t++ - '0');
    if (t == s) return malformed(ps, "bad version '%.*s'", (int)(end - s), s);
    if (major >= 2)
        return stop(ps, CG_ERR_FORMAT, "unsupported format version %.*s (this reader knows 1)",
                    (int)(end - s), s);
    return LINE_OK;
}

/* Header keys that open a new section when they follow body lines or a totals: line, or when
 * the current section has one already (desc: and event: lines come several to a section). */
static int opens_section(const char *key, size_t klen, int *repeatable) {
    static const char *const keys[] = {"version", "creator",   "pid",    "cmd",  "part",
                                       "thread",  "positions", "events", "desc", "event"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        if (strlen(keys[i]) == klen && !memcmp(keys[i], key, klen)) {
            *repeatable = i >= 8;
            return 1;
        }
    }
    return 0;
}

static int starts_section(const parser *ps, const char *key, size_t klen) {
    int repeatable;
    if (build_section_current(ps->b) == CG_NONE) return 1;
    if (!opens_section(key, klen, &repeatable)) return 0;
    if (ps->st.body_started || build_section_has_totals(ps->b)) return 1;
    return !repeatable && build_section_has_header(ps->b, key, klen);
}

static int header_line(parser *ps, const char *key, size_t klen, const char *s, const char *end) {
    parse_state *st = &ps->st;
    int rc;
    if (settle(ps)) return LINE_STOP;
    if (starts_section(ps, key, klen) && (rc = new_section(ps))) return rc;
    s = skip_space(s, end);
    /* a desc: value is kept as written, blanks at its end included ("desc: I1 cache: "), as
     * callgrind_annotate prints it; other values are trimmed */
    if (!(klen == 4 && !memcmp(key, "desc", 4)))
        while (end > s && is_space(end[-1])) end--;
    uint32_t ksid = 0, vsid = 0;
    if ((rc = intern(ps, key, klen, &ksid)) || (rc = intern(ps, s, (size_t)(end - s), &vsid)))
        return rc;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, sizeof(k) - 1) == 0)
    if (KEY("version")) {
        rc = version_header(ps, s, end);
    } else if (KEY("positions")) {
        rc = positions_header(ps, s, end);
    } else if (KEY("events")) {
        rc = events_header(ps, s, end);
    } else if (KEY("event")) {
        rc = event_header(ps, s, end);
    } else if (KEY("creator")) {
        st->writes_totals = end - s >= 9 && !memcmp(s, "callgrind", 9);
    } else if (KEY("summary")) {
        rc = costs_header(ps, "summary:", s, end, SEC_SUMMARY);
    } else if (KEY("totals")) {
        rc = costs_header(ps, "totals:", s, end, SEC_TOTALS);
    }
#undef KEY
    if (rc) return rc;
    return build_header(ps->b, ksid, vsid) ? out_of_memory(ps) : LINE_OK;
}

/* ---- lines ---- */

static int is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

static int parse_line(parser *ps, const char *s, const char *end) {
    parse_state *st = &ps->st;
    if (end > s && end[-1] == '\r') end--;
    s = skip_space(s, end);
    if (s == end || *s == '#') return LINE_OK;
    char c = *s;
    if (is_digit(c) || c == '+' || c == '-' || c == '*') return position_line(ps, s, end);
    if (st->assoc != ASSOC_NONE) {
        const char *label = st->assoc == ASSOC_CALL   ? "calls="
                            : st->assoc == ASSOC_JUMP ? "jump="
                                                      : "jcnd=";
        int rc = malformed(ps, "expected the position line of the %s on line %llu", label,
                           (unsigned long long)st->assoc_line);
        if (rc < 0) return rc;
        /* tolerant: keep it waiting, as KCachegrind does, and read this line as usual */
    }
    const char *key = s;
    while (s < end && is_key_char(*s)) s++;
    size_t klen = (size_t)(s - key);
    if (klen && s < end && *s == '=') {
        if (klen == 5 && !memcmp(key, "calls", 5)) return assoc_line(ps, key, klen, s + 1, end);
        if (klen == 4 && (!memcmp(key, "jump", 4) || !memcmp(key, "jcnd", 4)))
            return assoc_line(ps, key, klen, s + 1, end);
        int rc = enter_body(ps);
        return rc ? rc : spec_line(ps, key, klen, s + 1, end);
    }
    /* a piece with names of its own lies in one body: the stitch parses it again (split.c) */
    if (ps->own) return stopped(ps);
    if (klen && s < end && *s == ':') return header_line(ps, key, klen, s + 1, end);
    if (end - key >= 4 && !memcmp(key, "====", 4)) {
        /* Xdebug's append mode: another profile follows, with its own header and ids */
        for (int t = 0; t < IDS_COUNT; t++) idmap_clear(&st->ids[t]);
        st->have_events = 0;
        st->ncols = 1;
        st->col_kind[0] = COL_LINE;
        return build_section_current(ps->b) != CG_NONE ? new_section(ps) : LINE_OK;
    }
    char shown[TOKEN_SHOWN + 4];
    return malformed(ps, "unrecognized line starting with '%s'", token(shown, key, end));
}

int parse_one_line(parser *ps, const char *s, const char *end) {
    return parse_line(ps, s, end);
}

int parse_name_line(parser *ps, const char *s, size_t klen, const char *nl) {
    int spec;
    uint32_t name;
    uint64_t id;
    if (klen <= 3 && in_body(ps) && fast_spec(ps, s, klen, &spec, &name, &id) == nl) {
        int rc = ps->names_out ? put_name(ps, name) : LINE_OK;
        return rc ? rc : spec_apply(ps, spec, name, id);
    }
    return parse_line(ps, s, nl);
}

void parser_init(parser *ps, builder *b, int tolerant) {
    memset(ps, 0, sizeof *ps);
    ps->b = b;
    ps->site.p = b->p;
    ps->site.name = "input";
    ps->site.tolerant = tolerant != 0;
    for (int t = 0; t < IDS_COUNT; t++) idmap_init(&ps->st.ids[t], b->seed);
    ps->st.ncols = 1;
    ps->st.col_kind[0] = COL_LINE;
    ps->st.identity_map = 1;
    reset_body_state(&ps->st);
}

void parse_begin(parser *ps, const char *name, uint32_t source) {
    parse_state *st = &ps->st;
    for (int t = 0; t < IDS_COUNT; t++) idmap_clear(&st->ids[t]);
    ps->site.name = name;
    st->source = source;
    st->lineno = 0;
    st->body_started = 0;
    st->have_events = st->events_seen = 0;
    st->writes_totals = 0;
    st->ncols = 1;
    st->col_kind[0] = COL_LINE;
    st->nevent_map = 0;
    st->identity_map = 1;
    reset_body_state(st);
}

int parse_lines(parser *ps, const char *data, size_t size, cg_error *err) {
    parse_state *st = &ps->st;
    ps->site.err = err;
    const char *s = data, *end = data + size;
    /* a piece's text has none: the splitter looked (split.c) */
    const char *nul = ps->local ? NULL : memchr(data, '\0', size);
    /* The fast path reads up to a '\n' without looking at `end`: only lines that start before
     * the last '\n' of the buffer may take it, and none in a buffer with a NUL byte. */
    const char *fast_end = end;
    while (fast_end > data && fast_end[-1] != '\n') fast_end--;
    if (nul) fast_end = data;
    int layout = fast_layout(st), quick = fast_self_cost(ps), names = fast_names(ps);
    while (s < end) {
        if (quick && layout == FAST_INSTR_LINE) {
            /* a run of self costs in `positions: instr line`, the shape of most lines */
            uint64_t pos[COL_COUNT] = {0, 0, 0};
            size_t n;
            const char *eol;
            while (s < fast_end && (is_digit(*s) || *s == '+' || *s == '-' || *s == '*') &&
                   (eol = fast_tokens_as(ps, s, pos, &n, 2, COL_INSTR, COL_LINE, 0, 1))) {
                st->lineno++;
                s = eol + 1;
                st->last[COL_INSTR] = pos[COL_INSTR];
                st->last[COL_LINE] = pos[COL_LINE];
                if (fast_put_self(ps, pos, n) < 0) return -1;
            }
            if (s == end) break;
        }
        if (s < fast_end && st->have_events &&
            (is_digit(*s) || *s == '+' || *s == '-' || *s == '*')) {
            uint64_t pos[COL_COUNT] = {0, 0, 0};
            size_t n;
            const char *eol = fast_tokens(ps, layout, s, pos, &n);
            if (eol) {
                st->lineno++;
                s = eol + 1;
                if (quick) {
                    /* commit_position for a self cost, whose checks `quick` made; the
                     * layouts FAST_INSTR_LINE and FAST_LINE have every last value already */
                    if (layout == FAST_INSTR_LINE) {
                        st->last[COL_INSTR] = pos[COL_INSTR];
                        st->last[COL_LINE] = pos[COL_LINE];
                    } else if (layout == FAST_LINE) {
                        st->last[COL_LINE] = pos[COL_LINE];
                    } else {
                        for (int k = 0; k < st->ncols; k++) {
                            st->last[st->col_kind[k]] = pos[st->col_kind[k]];
                            st->has_last[st->col_kind[k]] = 1;
                        }
                        layout = fast_layout(st);
                    }
                    if (fast_put_self(ps, pos, n) < 0) return -1;
                    continue;
                }
                if (commit_position(ps, pos, n) < 0) return -1;
                layout = fast_layout(st);
                quick = fast_self_cost(ps);
                names = fast_names(ps);
                continue;
            }
        }
        if (s < fast_end && names && (unsigned)(*s - 'a') < 26) {
            /* a key of lowercase letters and '=': a specification or an association */
            const char *eq = s;
            while ((unsigned)(*eq - 'a') < 26) eq++;
            size_t klen = (size_t)(eq - s);
            int spec;
            uint32_t name;
            uint64_t id = PARSE_NO_ID;
            const char *eol = NULL;
            if (*eq == '=' && klen <= 3)
                eol = ps->names_in ? fast_taken_spec(s, klen, fast_end - 1, &spec)
                                   : fast_spec(ps, s, klen, &spec, &name, &id);
            if (eol) {
                st->lineno++;
                s = eol + 1;
                if ((ps->names_in && take_name(ps, &name) < 0) ||
                    spec_apply(ps, spec, name, id) < 0)
                    return -1;
                /* of the state fast_self_cost reads, only fn= changes the function */
                if (spec == SPEC_FN) quick = fast_self_cost(ps);
                continue;
            }
            uint64_t count, taken, target[COL_COUNT] = {0, 0, 0};
            int kind;
            if (*eq == '=' && layout != FAST_ANY && st->have_events &&
                (eol = fast_assoc(ps, layout, s, klen, &kind, &count, &taken, target))) {
                st->lineno++;
                s = eol + 1;
                if (assoc_begin(ps, kind, count, taken, target) < 0) return -1;
                quick = names = 0; /* the next position line completes the association */
                continue;
            }
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        st->lineno++;
        int rc;
        if (nul && nul < eol) {
            rc = malformed(ps, "NUL byte in line");
            nul = memchr(eol, '\0', (size_t)(end - eol));
        } else {
            rc = parse_line(ps, s, eol);
        }
        if (rc < 0) return -1;
        s = nl ? nl + 1 : end;
        layout = fast_layout(st);
        quick = fast_self_cost(ps);
        names = fast_names(ps);
    }
    return 0;
}

int parse_end(parser *ps, cg_error *err) {
    parse_state *st = &ps->st;
    ps->site.err = err;
    if (st->assoc != ASSOC_NONE) {
        const char *label = st->assoc == ASSOC_CALL   ? "calls="
                            : st->assoc == ASSOC_JUMP ? "jump="
                                                      : "jcnd=";
        uint64_t line = st->assoc_line;
        st->assoc = ASSOC_NONE;
        if (malformed(ps, "%s on line %llu has no position line (end of input)", label,
                      (unsigned long long)line) < 0)
            return -1;
    }
    if (finish_section(ps, 1)) return -1;
    /* an empty input adds nothing (valgrind leaves an empty base file beside the files of
     * --separate-threads=yes): a warning; the loader fails when every input is empty */
    if (st->lineno == 0) return warn(ps, 0, "empty input") ? -1 : 0;
    if (!st->events_seen && malformed(ps, "no 'events:' line in the input") < 0) return -1;
    return ps->failed ? -1 : 0;
}

void parser_free(parser *ps) {
    parse_state *st = &ps->st;
    for (int t = 0; t < IDS_COUNT; t++) idmap_free(&st->ids[t]);
    free(st->event_map);
    st->event_map = NULL;
    st->nevent_map = st->event_map_cap = 0;
    free(ps->events_text);
    ps->events_text = NULL;
    ps->events_len = ps->events_cap = 0;
}

static int sink_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    return parse_lines(ctx, data, size, err);
}

static int sink_damaged(void *ctx, const char *what, cg_error *err) {
    parser *ps = ctx;
    ps->site.err = err;
    return fault(&ps->site, CG_ERR_FORMAT, ps->st.lineno, "%s", what) ? stopped(ps) : 0;
}

line_sink parser_sink(parser *ps) {
    line_sink sink = {ps, sink_lines, sink_damaged, NULL, NULL};
    return sink;
}
