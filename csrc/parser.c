/* parser.c - the Callgrind format, one line at a time: header lines (`key: value`), position
 * specifications (`fn=`, `cfi=`...), associations (`calls=`, `jump=`, `jcnd=`) and cost lines.
 * The format state (current function, files, name tables, last subpositions, the association
 * waiting for its position line) lives in parse_state; records go to the builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "numparse.h"
#include "vec.h"

/* Line handlers return 0 when the line was used, 1 when a tolerant load skipped it (a warning
 * was recorded) and -1 when the load stops (the error is in ld->err). */
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

static int stop(cg_loader *ld, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int malformed(cg_loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fault no mode can skip: out of memory, unsupported version, absurd sizes. */
static int stop(cg_loader *ld, int code, const char *fmt, ...) {
    char text[sizeof ld->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    set_error(ld->st.err, code, ld->st.lineno, "%s:%llu: %s", ld->st.name,
              (unsigned long long)ld->st.lineno, text);
    ld->failed = 1;
    return LINE_STOP;
}

static int out_of_memory(cg_loader *ld) {
    return stop(ld, CG_ERR_NOMEM, "out of memory");
}

/* A malformed line: a strict load stops, a tolerant one records a warning and skips it. */
static int malformed(cg_loader *ld, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ld->message, sizeof ld->message, fmt, ap);
    va_end(ap);
    if (!ld->opts.tolerant) return stop(ld, CG_ERR_FORMAT, "%s", ld->message);
    char line[1024];
    snprintf(line, sizeof line, "%s:%llu: %s", ld->st.name, (unsigned long long)ld->st.lineno,
             ld->message);
    if (profile_warn(ld->p, line)) return out_of_memory(ld);
    return LINE_SKIPPED;
}

/* A doubt that never stops a load (conflicting id definitions, totals that disagree). */
static int warn(cg_loader *ld, uint64_t lineno, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int warn(cg_loader *ld, uint64_t lineno, const char *fmt, ...) {
    char text[700], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s:%llu: %s", ld->st.name, (unsigned long long)lineno, text);
    return profile_warn(ld->p, line) ? out_of_memory(ld) : LINE_OK;
}

static const char *const ids_label[IDS_COUNT] = {"file", "function", "object"};

static const char *skip_space(const char *s, const char *end) {
    while (s < end && is_space(*s)) s++;
    return s;
}

static int intern(cg_loader *ld, const char *s, size_t len, uint32_t *out) {
    int64_t id = strtab_intern(&ld->p->strings, s, len);
    if (id < 0) return out_of_memory(ld);
    *out = (uint32_t)id;
    return LINE_OK;
}

/* ---- sections ---- */

static uint64_t header_number(const cg_profile *p, const section_rec *sec, const char *key) {
    for (uint32_t h = sec->header_begin; h < sec->header_end; h++) {
        if (strcmp(strtab_get(&p->strings, p->headers[h].key), key) == 0)
            return strtoull(strtab_get(&p->strings, p->headers[h].value), NULL, 10);
    }
    return 1;
}

/* Whether the options keep the current section (decided once its header is read). */
static int section_selected(const cg_loader *ld) {
    const cg_options *o = &ld->opts;
    const cg_profile *p = ld->p;
    const section_rec *sec = &p->sections[ld->st.section];
    if (o->section && o->section != ld->sections_read) return 0;
    if (o->part && header_number(p, sec, "part") != o->part) return 0;
    if (o->thread && header_number(p, sec, "thread") != o->thread) return 0;
    return 1;
}

/* Takes the current section, always the last one, out of the model. */
static void drop_section(cg_loader *ld) {
    cg_profile *p = ld->p;
    const section_rec *sec = &p->sections[ld->st.section];
    p->nheaders = sec->header_begin;
    p->nsection_events = sec->events_begin;
    p->section_costs.rows--;
    p->section_summary.rows--;
    p->section_totals.rows--;
    p->nsections--;
    ld->st.section = CG_NONE;
}

/* The first event whose two cost rows differ, and how many do, among the section's events. */
static size_t first_difference(const cg_profile *p, const section_rec *sec, const cg_cost *a,
                               const cg_cost *b, size_t *count) {
    size_t first = CG_NONE;
    *count = 0;
    for (uint32_t i = sec->events_begin; i < sec->events_end; i++) {
        uint32_t ev = p->section_events[i];
        if (a[ev] == b[ev]) continue;
        if (first == CG_NONE) first = ev;
        ++*count;
    }
    return first;
}

/* totals: against the costs read: a doubt, never a stop (some writers round). */
static int check_totals(cg_loader *ld, const section_rec *sec, size_t s) {
    cg_profile *p = ld->p;
    const cg_cost *totals = costs_row(&p->section_totals, p->nraw, s);
    const cg_cost *sum = costs_row(&p->section_costs, p->nraw, s);
    for (uint32_t i = sec->events_begin; i < sec->events_end; i++) {
        uint32_t ev = p->section_events[i];
        if (totals[ev] != sum[ev] &&
            warn(ld, sec->totals_line, "totals: %s is %lld but the section's costs sum to %lld",
                 strtab_get(&p->strings, p->events[ev].name), (long long)totals[ev],
                 (long long)sum[ev]))
            return LINE_STOP;
    }
    return LINE_OK;
}

/* A section without totals: at the end of an input callgrind wrote: callgrind ends every part
 * with that line, so the input was cut short, and the costs read are only part of the run. A
 * fault (strict loads stop), not a doubt: every share computed from them would be wrong. */
static int truncated(cg_loader *ld, const section_rec *sec, size_t s) {
    cg_profile *p = ld->p;
    const char *what = "the input ends before the totals: line that callgrind writes last, so it "
                       "looks truncated";
    size_t count;
    const cg_cost *summary = costs_row(&p->section_summary, p->nraw, s);
    const cg_cost *sum = costs_row(&p->section_costs, p->nraw, s);
    size_t ev = sec->has_summary ? first_difference(p, sec, summary, sum, &count) : CG_NONE;
    if (ev == CG_NONE) return malformed(ld, "%s", what);
    return malformed(ld, "%s (summary: %s is %lld, the costs read sum to %lld)", what,
                     strtab_get(&p->strings, p->events[ev].name), (long long)summary[ev],
                     (long long)sum[ev]);
}

/* summary: against the costs read, when there is no totals: to compare (callgrind's summary:
 * counts the thread's events and may exceed the costs it writes, so totals: is the one compared
 * when both are there). */
static int check_summary(cg_loader *ld, const section_rec *sec, size_t s) {
    cg_profile *p = ld->p;
    const cg_cost *summary = costs_row(&p->section_summary, p->nraw, s);
    const cg_cost *sum = costs_row(&p->section_costs, p->nraw, s);
    for (uint32_t i = sec->events_begin; i < sec->events_end; i++) {
        uint32_t ev = p->section_events[i];
        if (summary[ev] != sum[ev] &&
            warn(ld, sec->summary_line, "summary: %s is %lld but the section's costs sum to %lld",
                 strtab_get(&p->strings, p->events[ev].name), (long long)summary[ev],
                 (long long)sum[ev]))
            return LINE_STOP;
    }
    return LINE_OK;
}

/* The part and thread of every section read, for the error when the options keep none. */
static int remember_section_ids(cg_loader *ld, const section_rec *sec) {
    const cg_options *o = &ld->opts;
    if (!o->section && !o->part && !o->thread) return LINE_OK;
    size_t i = ld->sections_read - 1;
    if (VEC_RESERVE(ld->read_ids, ld->read_ids_cap, i + 1)) return out_of_memory(ld);
    ld->read_ids[i][0] = header_number(ld->p, sec, "part");
    ld->read_ids[i][1] = header_number(ld->p, sec, "thread");
    return LINE_OK;
}

/* Closes the current section; `at_end` when the input ends with it. */
static int finish_section(cg_loader *ld, int at_end) {
    parse_state *st = &ld->st;
    cg_profile *p = ld->p;
    if (st->section == CG_NONE) return LINE_OK;
    const section_rec *sec = &p->sections[st->section];
    if (remember_section_ids(ld, sec)) return LINE_STOP;
    if (st->skip_records || !section_selected(ld)) {
        drop_section(ld);
        return LINE_OK;
    }
    p->positions |= sec->positions; /* the final positions of every section */
    if (sec->has_totals) return check_totals(ld, sec, st->section);
    if (at_end && st->writes_totals)
        return truncated(ld, sec, st->section) < 0 ? LINE_STOP : LINE_OK;
    return sec->has_summary ? check_summary(ld, sec, st->section) : LINE_OK;
}

static void reset_body_state(parse_state *st) {
    for (int k = 0; k < COL_COUNT; k++) st->last[k] = 0, st->has_last[k] = 0;
    st->ob = st->fl = st->file = 0;
    st->have_fl = 0;
    st->fn = NO_INDEX;
    st->cob = st->cfi = st->cfn = st->jfi = st->jfn = NO_INDEX;
    st->assoc = ASSOC_NONE;
}

static int record_section_events(cg_loader *ld) {
    cg_profile *p = ld->p;
    parse_state *st = &ld->st;
    section_rec *sec = &p->sections[st->section];
    p->nsection_events = sec->events_begin; /* the current section's list is always last */
    if (VEC_RESERVE(p->section_events, p->section_events_cap, p->nsection_events + st->nevent_map))
        return out_of_memory(ld);
    memcpy(p->section_events + p->nsection_events, st->event_map,
           st->nevent_map * sizeof *st->event_map);
    p->nsection_events += st->nevent_map;
    sec->events_end = (uint32_t)p->nsection_events;
    return LINE_OK;
}

static unsigned positions_mask(const parse_state *st) {
    unsigned mask = 0;
    for (int k = 0; k < st->ncols; k++) mask |= 1u << st->col_kind[k];
    return mask;
}

/* A new section keeps the positions and events of the previous one until its own header
 * says otherwise; positions, the current function and files start afresh. */
static int new_section(cg_loader *ld) {
    parse_state *st = &ld->st;
    if (finish_section(ld, 0)) return LINE_STOP;
    if (build_section(ld, st->source, st->lineno)) return out_of_memory(ld);
    st->section = ld->p->nsections - 1;
    st->body_started = 0;
    st->skip_records = 0;
    ld->sections_read++;
    reset_body_state(st);
    ld->p->sections[st->section].positions = positions_mask(st);
    return st->have_events ? record_section_events(ld) : LINE_OK;
}

static int enter_body(cg_loader *ld) {
    parse_state *st = &ld->st;
    if (st->section == CG_NONE) {
        int rc = new_section(ld);
        if (rc) return rc;
    }
    if (!st->body_started) st->skip_records = !section_selected(ld);
    st->body_started = 1;
    return LINE_OK;
}

/* ---- names: `name`, `(id) name`, `(id)` ---- */

static int parse_name(cg_loader *ld, int table, const char *s, const char *end, uint32_t *out) {
    parse_state *st = &ld->st;
    if (!(end - s >= 2 && s[0] == '(' && is_digit(s[1])))
        return intern(ld, s, (size_t)(end - s), out);
    const char *start = s++;
    uint64_t id = 0;
    while (s < end && is_digit(*s)) {
        uint64_t d = (uint64_t)(*s - '0');
        if (id > (UINT64_MAX - d) / 10) return malformed(ld, "%s id too large", ids_label[table]);
        id = id * 10 + d;
        s++;
    }
    if (s == end || *s != ')') {
        const char *close = memchr(start, ')', (size_t)(end - start));
        int shown = (int)((close ? close + 1 : end) - start);
        return malformed(ld, "bad compressed %s id '%.*s'", ids_label[table],
                         shown > TOKEN_SHOWN ? TOKEN_SHOWN : shown, start);
    }
    s = skip_space(s + 1, end);
    idmap *map = &st->ids[table];
    int64_t bound = idmap_get(map, id);
    if (s == end) {
        if (bound >= 0) {
            *out = (uint32_t)bound;
            return LINE_OK;
        }
        int rc = malformed(ld, "undefined %s id (%llu)", ids_label[table], (unsigned long long)id);
        if (rc < 0) return rc;
        /* tolerant: an unknown name, as KCachegrind does */
        return intern(ld, "???", 3, out);
    }
    int rc = intern(ld, s, (size_t)(end - s), out);
    if (rc) return rc;
    if (bound >= 0 && (uint32_t)bound != *out) {
        rc = warn(ld, st->lineno, "%s id (%llu) redefined from '%s' to '%s'", ids_label[table],
                  (unsigned long long)id, strtab_get(&ld->p->strings, (uint32_t)bound),
                  strtab_get(&ld->p->strings, *out));
        if (rc) return rc;
    }
    if (bound < 0 || (uint32_t)bound != *out) {
        if (idmap_set(map, id, *out)) return out_of_memory(ld);
    }
    return LINE_OK;
}

static int function_of(cg_loader *ld, uint32_t name, uint32_t file, uint32_t object,
                       uint32_t *out) {
    int64_t fn = build_function(ld, name, file, object);
    if (fn < 0) return out_of_memory(ld);
    *out = (uint32_t)fn;
    return LINE_OK;
}

static int spec_line(cg_loader *ld, const char *key, size_t klen, const char *s, const char *end) {
    parse_state *st = &ld->st;
    uint32_t name;
    int rc;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, sizeof(k) - 1) == 0)
    s = skip_space(s, end);
    if (KEY("fn")) {
        if ((rc = parse_name(ld, IDS_FN, s, end, &name))) return rc;
        uint32_t file = st->have_fl ? st->fl : st->file;
        st->file = file; /* fn= ends inlined code: back to the function's own file */
        /* a section left out by the options adds no function, not even an empty one */
        if (st->skip_records) return LINE_OK;
        if ((rc = function_of(ld, name, file, st->ob, &st->fn))) return rc;
        build_defined(ld, st->fn);
    } else if (KEY("fl")) {
        if ((rc = parse_name(ld, IDS_FILE, s, end, &st->fl))) return rc;
        st->file = st->fl;
        st->have_fl = 1;
    } else if (KEY("fi") || KEY("fe")) {
        if ((rc = parse_name(ld, IDS_FILE, s, end, &st->file))) return rc;
    } else if (KEY("ob")) {
        if ((rc = parse_name(ld, IDS_OBJ, s, end, &st->ob))) return rc;
    } else if (KEY("cfn")) {
        /* resolved at calls=, so that cfi=/cob= may come before or after cfn= */
        if ((rc = parse_name(ld, IDS_FN, s, end, &st->cfn))) return rc;
    } else if (KEY("cfi") || KEY("cfl")) {
        if ((rc = parse_name(ld, IDS_FILE, s, end, &st->cfi))) return rc;
    } else if (KEY("cob")) {
        if ((rc = parse_name(ld, IDS_OBJ, s, end, &st->cob))) return rc;
    } else if (KEY("jfi")) {
        if ((rc = parse_name(ld, IDS_FILE, s, end, &st->jfi))) return rc;
    } else if (KEY("jfn")) {
        if ((rc = parse_name(ld, IDS_FN, s, end, &name))) return rc;
        uint32_t file = st->jfi != NO_INDEX ? st->jfi : st->file;
        if (!st->skip_records && (rc = function_of(ld, name, file, st->ob, &st->jfn))) return rc;
    } else {
        return malformed(ld, "unknown specification '%.*s='", (int)klen, key);
    }
#undef KEY
    return LINE_OK;
}

/* ---- positions ---- */

static const char *const col_label[COL_COUNT] = {"instr", "bb", "line"};

/* Reads one subposition. Targets of calls are advisory (pprof encodes them against another
 * base): they decode with base 0 when there is no previous position and never fail on range. */
static int parse_subposition(cg_loader *ld, const char **ps, const char *end, int kind,
                             int advisory, uint64_t *out) {
    parse_state *st = &ld->st;
    const char *s = *ps;
    char shown[TOKEN_SHOWN + 4];
    char c = *s;
    if (c == '*' || c == '+' || c == '-') {
        uint64_t delta = 0;
        const char *t = s + 1;
        if (c != '*') {
            int rc = parse_u64(&t, end, &delta);
            if (rc == NUM_OVERFLOW)
                return malformed(ld, "number '%s' does not fit in 64 bits",
                                 token(shown, s + 1, end));
            if (rc)
                return malformed(ld, "bad %s position '%s'", col_label[kind], token(shown, s, end));
        } else if (t < end && !is_space(*t)) {
            return malformed(ld, "bad %s position '%s'", col_label[kind], token(shown, s, end));
        }
        uint64_t base = st->last[kind];
        if (!st->has_last[kind] && !advisory)
            return malformed(ld, "relative %s position '%s' with no previous position",
                             col_label[kind], token(shown, s, end));
        uint64_t v = base;
        int bad = c == '+'   ? __builtin_add_overflow(base, delta, &v)
                  : c == '-' ? __builtin_sub_overflow(base, delta, &v)
                             : 0;
        if (bad) {
            if (!advisory)
                return malformed(ld, "%s position '%s' from %llu is out of range", col_label[kind],
                                 token(shown, s, end), (unsigned long long)base);
            v = 0;
        }
        *out = v;
        *ps = t;
        return LINE_OK;
    }
    int rc = parse_u64(&s, end, out);
    if (rc == NUM_OVERFLOW)
        return malformed(ld, "number '%s' does not fit in 64 bits", token(shown, *ps, end));
    if (rc) return malformed(ld, "bad %s position '%s'", col_label[kind], token(shown, *ps, end));
    *ps = s;
    return LINE_OK;
}

static int add_costs(cg_loader *ld, cg_cost *row, size_t n) {
    const parse_state *st = &ld->st;
    int bad = 0;
    if (st->identity_map) {
        bad = row_add(row, ld->values, n);
    } else {
        for (size_t i = 0; i < n; i++) bad |= cost_add(&row[st->event_map[i]], ld->values[i]);
    }
    return bad ? malformed(ld, "cost sum does not fit in 64 bits") : LINE_OK;
}

static int self_cost(cg_loader *ld, const uint64_t *pos, size_t n) {
    parse_state *st = &ld->st;
    cg_profile *p = ld->p;
    if (st->skip_records) return LINE_OK;
    if (st->fn == NO_INDEX) return malformed(ld, "cost line outside a function (no fn= before it)");
    int rc = add_costs(ld, costs_row(&p->section_costs, p->nraw, st->section), n);
    if (rc) return rc;
    const cg_cost *costs = ld->values;
    if (!st->identity_map) {
        /* the section orders its events otherwise: records keep the profile's order */
        memset(ld->row, 0, p->nraw * sizeof *ld->row);
        for (size_t i = 0; i < n; i++) ld->row[st->event_map[i]] = ld->values[i];
        costs = ld->row;
        n = p->nraw;
    }
    rc = build_line(ld, st->fn, st->file, pos[COL_LINE], pos[COL_INSTR], costs, n);
    if (rc == -1) return out_of_memory(ld);
    if (rc) return malformed(ld, "cost sum does not fit in 64 bits");
    return LINE_OK;
}

static int call_cost(cg_loader *ld, const uint64_t *pos, size_t n) {
    parse_state *st = &ld->st;
    if (st->skip_records) {
        st->cob = st->cfi = NO_INDEX;
        return LINE_OK;
    }
    if (st->fn == NO_INDEX) return malformed(ld, "call outside a function (no fn= before it)");
    call_rec key = {st->fn,
                    st->assoc_callee,
                    st->file,
                    pos[COL_LINE],
                    pos[COL_INSTR],
                    st->assoc_count,
                    st->assoc_target[COL_LINE],
                    st->assoc_target[COL_INSTR]};
    st->cob = st->cfi = NO_INDEX;
    cg_cost *row;
    int rc = build_call(ld, &key, st->assoc_guessed, &row);
    if (rc == -2) return out_of_memory(ld);
    if (rc && (rc = malformed(ld, "call count sum does not fit in 64 bits"))) return rc;
    return add_costs(ld, row, n);
}

static int jump_source(cg_loader *ld, const uint64_t *pos, size_t n, int conditional) {
    parse_state *st = &ld->st;
    if (st->skip_records) {
        st->jfi = st->jfn = NO_INDEX;
        return LINE_OK;
    }
    if (st->fn == NO_INDEX) return malformed(ld, "jump outside a function (no fn= before it)");
    for (size_t i = 0; i < n; i++)
        if (ld->values[i]) return malformed(ld, "costs on the source line of a jump");
    jump_rec key = {st->fn,
                    st->file,
                    st->jfn != NO_INDEX ? st->jfn : st->fn,
                    st->jfi != NO_INDEX ? st->jfi : st->file,
                    pos[COL_LINE],
                    pos[COL_INSTR],
                    st->assoc_target[COL_LINE],
                    st->assoc_target[COL_INSTR],
                    st->assoc_count,
                    st->assoc_taken,
                    conditional};
    st->jfi = st->jfn = NO_INDEX;
    int rc = build_jump(ld, &key);
    if (rc == -2) return out_of_memory(ld);
    if (rc) return malformed(ld, "jump count sum does not fit in 64 bits");
    return LINE_OK;
}

/* Takes in a position line read into pos and ld->values: the self cost, or the line that
 * completes a calls=, jump= or jcnd=. */
static int commit_position(cg_loader *ld, const uint64_t *pos, size_t n) {
    parse_state *st = &ld->st;
    int rc = enter_body(ld);
    if (rc) return rc;
    for (int k = 0; k < st->ncols; k++) {
        st->last[st->col_kind[k]] = pos[st->col_kind[k]];
        st->has_last[st->col_kind[k]] = 1;
    }
    int assoc = st->assoc;
    st->assoc = ASSOC_NONE;
    switch (assoc) {
    case ASSOC_CALL:
        return call_cost(ld, pos, n);
    case ASSOC_JUMP:
    case ASSOC_JCND:
        return jump_source(ld, pos, n, assoc == ASSOC_JCND);
    default:
        return self_cost(ld, pos, n);
    }
}

/* A line of subpositions and costs, read in full generality. */
static int position_line(cg_loader *ld, const char *s, const char *end) {
    parse_state *st = &ld->st;
    char shown[TOKEN_SHOWN + 4];
    if (!st->have_events) return malformed(ld, "cost line before the 'events:' line");
    uint64_t pos[COL_COUNT] = {0, 0, 0};
    for (int k = 0; k < st->ncols; k++) {
        if (s == end)
            return malformed(ld, "missing %s position ('positions:' lists %d)",
                             col_label[st->col_kind[k]], st->ncols);
        int rc = parse_subposition(ld, &s, end, st->col_kind[k], 0, &pos[st->col_kind[k]]);
        if (rc) return rc;
        s = skip_space(s, end);
    }
    size_t n = 0;
    while (s < end) {
        if (n == st->nevent_map)
            return malformed(ld, "too many costs: 'events:' lists %zu event%s", st->nevent_map,
                             st->nevent_map == 1 ? "" : "s");
        int rc = parse_cost(&s, end, &ld->values[n]);
        if (rc == NUM_OVERFLOW)
            return malformed(ld, "number '%s' does not fit in 64 bits", token(shown, s, end));
        if (rc) return malformed(ld, "bad cost '%s'", token(shown, s, end));
        n++;
        s = skip_space(s, end);
    }
    return commit_position(ld, pos, n);
}

/* ---- the fast path for position lines ---- */

/* A decimal of at most 18 digits (no overflow possible); NULL when there is none or it is
 * longer, for the general path to read. */
static inline const char *fast_decimal(const char *p, uint64_t *out) {
    unsigned d = (unsigned)(unsigned char)*p - '0';
    if (d > 9) return NULL;
    uint64_t v = d;
    int digits = 1;
    while ((d = (unsigned)(unsigned char)*++p - '0') <= 9) {
        if (++digits > 18) return NULL;
        v = v * 10 + d;
    }
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
    if (*p == ' ' || *p == '\t') {
        do p++;
        while (*p == ' ' || *p == '\t');
        return p;
    }
    return *p == '\n' || *p == '\r' ? p : NULL;
}

/* Reads a well-formed position line that ends in '\n' inside the buffer: subpositions as
 * numbers of at most 18 digits, 0x hex, +N, -N or *, then decimal costs. Returns the line's
 * '\n', or NULL for anything else (long or hex costs, a missing column, junk), which the
 * general path then reads and, when wrong, reports. Nothing is changed before it succeeds. */
static const char *fast_tokens(cg_loader *ld, const char *p, uint64_t *pos, size_t *ncosts) {
    const parse_state *st = &ld->st;
    for (int k = 0; k < st->ncols; k++) {
        int kind = st->col_kind[k];
        uint64_t v, d;
        char c = *p;
        if (c == '*') {
            if (!st->has_last[kind]) return NULL;
            v = st->last[kind];
            p++;
        } else if (c == '+' || c == '-') {
            if (!st->has_last[kind] || !(p = fast_decimal(p + 1, &d))) return NULL;
            if (c == '+' ? __builtin_add_overflow(st->last[kind], d, &v)
                         : __builtin_sub_overflow(st->last[kind], d, &v))
                return NULL;
        } else if (c == '0' && (p[1] | 0x20) == 'x') {
            if (!(p = fast_hex(p + 2, &v))) return NULL;
        } else if (!(p = fast_decimal(p, &v))) {
            return NULL;
        }
        pos[kind] = v;
        if (!(p = fast_gap(p))) return NULL;
        if ((*p == '\n' || *p == '\r') && k + 1 < st->ncols) return NULL;
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
        int negative = *p == '-';
        uint64_t v;
        if (!(p = fast_decimal(p + negative, &v))) return NULL;
        ld->values[n++] = negative ? -(cg_cost)v : (cg_cost)v;
        if (!(p = fast_gap(p))) return NULL;
    }
    *ncosts = n;
    return p;
}

/* ---- associations: calls=, jump=, jcnd= ---- */ /* ---- associations: calls=, jump=, jcnd= ----
                                                    */

static int count_value(cg_loader *ld, const char **ps, const char *end, const char *what,
                       uint64_t *out) {
    char shown[TOKEN_SHOWN + 4];
    int rc = parse_u64(ps, end, out);
    if (rc == NUM_OVERFLOW)
        return malformed(ld, "number '%s' does not fit in 64 bits", token(shown, *ps, end));
    if (rc) return malformed(ld, "bad %s '%s'", what, token(shown, *ps, end));
    return LINE_OK;
}

static int assoc_line(cg_loader *ld, const char *key, size_t klen, const char *s, const char *end) {
    parse_state *st = &ld->st;
    int kind = klen == 5 ? ASSOC_CALL : key[1] == 'u' ? ASSOC_JUMP : ASSOC_JCND;
    const char *label = kind == ASSOC_CALL ? "calls=" : kind == ASSOC_JUMP ? "jump=" : "jcnd=";
    if (!st->have_events) return malformed(ld, "%s before the 'events:' line", label);
    uint64_t count = 0, taken = 0;
    s = skip_space(s, end);
    const char *slash = NULL;
    if (kind == ASSOC_JCND) {
        const char *t = s;
        while (t < end && !is_space(*t) && *t != '/') t++;
        if (t < end && *t == '/') slash = t;
    }
    int rc = count_value(ld, &s, slash ? slash : end,
                         kind == ASSOC_CALL ? "call count" : "jump count", &count);
    if (rc) return rc;
    if (kind == ASSOC_JCND) {
        uint64_t second;
        if (slash) {
            /* Valgrind's form: TAKEN/EXECUTED */
            s = slash + 1;
            if ((rc = count_value(ld, &s, end, "jump count", &second))) return rc;
            taken = count;
            count = second;
        } else {
            /* the specification's form: EXECUTED TAKEN */
            s = skip_space(s, end);
            if (s == end) return malformed(ld, "jcnd= needs an executed and a taken count");
            if ((rc = count_value(ld, &s, end, "jump count", &second))) return rc;
            taken = second;
        }
        if (taken > count)
            return malformed(ld, "jcnd= jump taken %llu times but executed only %llu",
                             (unsigned long long)taken, (unsigned long long)count);
    } else if (kind == ASSOC_JUMP) {
        taken = count;
    }
    if (kind == ASSOC_CALL && st->cfn == NO_INDEX)
        return malformed(ld, "calls= without a cfn= before it");
    uint64_t target[COL_COUNT] = {0, 0, 0};
    s = skip_space(s, end);
    for (int k = 0; k < st->ncols && s < end; k++) {
        rc = parse_subposition(ld, &s, end, st->col_kind[k], kind == ASSOC_CALL,
                               &target[st->col_kind[k]]);
        if (rc) return rc;
        s = skip_space(s, end);
    }
    /* anything after the target (Xdebug writes `calls=1 0 0`) carries no meaning */
    if ((rc = enter_body(ld))) return rc;
    if (kind == ASSOC_CALL && !st->skip_records) {
        /* the callee's file defaults to the current one (fi=/fe= included), its object to ob= */
        uint32_t file = st->cfi != NO_INDEX ? st->cfi : st->file;
        uint32_t object = st->cob != NO_INDEX ? st->cob : st->ob;
        if ((rc = function_of(ld, st->cfn, file, object, &st->assoc_callee))) return rc;
        st->assoc_guessed = st->cfi == NO_INDEX;
    }
    st->assoc = kind;
    st->assoc_line = st->lineno;
    st->assoc_count = count;
    st->assoc_taken = taken;
    memcpy(st->assoc_target, target, sizeof target);
    return LINE_OK;
}

/* ---- header lines ---- */

static int positions_header(cg_loader *ld, const char *s, const char *end) {
    parse_state *st = &ld->st;
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
            return malformed(ld, "unknown position '%s' in 'positions:'", token(shown, s, end));
        if (ncols && kinds[ncols - 1] >= kind)
            return malformed(ld, "'positions:' must list instr, bb and line at most once each, "
                                 "in that order");
        kinds[ncols++] = kind;
        s = t;
    }
    if (!ncols) return malformed(ld, "'positions:' lists nothing");
    st->ncols = ncols;
    memcpy(st->col_kind, kinds, sizeof kinds);
    unsigned mask = positions_mask(st);
    ld->p->sections[st->section].positions = mask;
    return LINE_OK;
}

static int events_header(cg_loader *ld, const char *s, const char *end) {
    parse_state *st = &ld->st;
    char shown[TOKEN_SHOWN + 4];
    size_t n = 0;
    uint32_t map[MAX_RAW_EVENTS];
    while ((s = skip_space(s, end)) < end) {
        const char *t = s;
        while (t < end && !is_space(*t)) t++;
        if (n == MAX_RAW_EVENTS)
            return stop(ld, CG_ERR_FORMAT, "too many events in 'events:' (at most %d)",
                        MAX_RAW_EVENTS);
        int64_t ev = build_event(ld, s, (size_t)(t - s));
        if (ev == -2)
            return stop(ld, CG_ERR_FORMAT, "too many distinct events (at most %d)", MAX_RAW_EVENTS);
        if (ev < 0) return out_of_memory(ld);
        for (size_t i = 0; i < n; i++)
            if (map[i] == (uint32_t)ev)
                return malformed(ld, "event '%s' listed twice in 'events:'", token(shown, s, end));
        map[n++] = (uint32_t)ev;
        s = t;
    }
    if (!n) return malformed(ld, "'events:' lists no events");
    if (VEC_RESERVE(st->event_map, st->event_map_cap, n)) return out_of_memory(ld);
    memcpy(st->event_map, map, n * sizeof *map);
    st->nevent_map = n;
    st->identity_map = 1;
    for (size_t i = 0; i < n; i++)
        if (map[i] != i) st->identity_map = 0;
    st->have_events = st->events_seen = 1;
    return record_section_events(ld);
}

/* `event: Name [= formula] [: long name]` */
static int event_header(cg_loader *ld, const char *s, const char *end) {
    parse_state *st = &ld->st;
    const char *name = s = skip_space(s, end);
    while (s < end && !is_space(*s) && *s != '=' && *s != ':') s++;
    const char *name_end = s;
    if (name == name_end) return malformed(ld, "'event:' without an event name");
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
        return malformed(ld, "bad 'event:' line: expected '=' or ':' after the name");
    const char *long_end = end;
    while (long_name && long_end > long_name && is_space(long_end[-1])) long_end--;
    event_desc d = {0, 0, 0, st->source, st->lineno};
    int rc = intern(ld, name, (size_t)(name_end - name), &d.name);
    if (!rc && long_name) rc = intern(ld, long_name, (size_t)(long_end - long_name), &d.long_name);
    if (!rc && formula) rc = intern(ld, formula, (size_t)(formula_end - formula), &d.formula);
    if (rc) return rc;
    if (VEC_RESERVE(ld->descs, ld->descs_cap, ld->ndescs + 1)) return out_of_memory(ld);
    ld->descs[ld->ndescs++] = d;
    return LINE_OK;
}

/* summary: and totals: give one cost per event of the section. */
static int costs_header(cg_loader *ld, const char *label, const char *s, const char *end,
                        cost_array *dest, int *flag) {
    parse_state *st = &ld->st;
    cg_profile *p = ld->p;
    char shown[TOKEN_SHOWN + 4];
    if (!st->have_events) return malformed(ld, "'%s' before the 'events:' line", label);
    size_t n = 0;
    while ((s = skip_space(s, end)) < end) {
        if (n == st->nevent_map)
            return malformed(ld, "too many costs in '%s': 'events:' lists %zu event%s", label,
                             st->nevent_map, st->nevent_map == 1 ? "" : "s");
        int rc = parse_cost(&s, end, &ld->values[n]);
        if (rc == NUM_OVERFLOW)
            return malformed(ld, "number '%s' does not fit in 64 bits", token(shown, s, end));
        if (rc) return malformed(ld, "bad cost '%s' in '%s'", token(shown, s, end), label);
        n++;
    }
    cg_cost *row = costs_row(dest, p->nraw, st->section);
    memset(row, 0, p->nraw * sizeof *row);
    for (size_t i = 0; i < n; i++) row[st->event_map[i]] = ld->values[i];
    *flag = 1;
    return LINE_OK;
}

static int version_header(cg_loader *ld, const char *s, const char *end) {
    uint64_t major = 0;
    const char *t = s;
    while (t < end && is_digit(*t) && major < 1000) major = major * 10 + (uint64_t)(*t++ - '0');
    if (t == s) return malformed(ld, "bad version '%.*s'", (int)(end - s), s);
    if (major >= 2)
        return stop(ld, CG_ERR_FORMAT, "unsupported format version %.*s (this reader knows 1)",
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

static int section_has_header(const cg_profile *p, size_t section, const char *key, size_t klen) {
    const section_rec *sec = &p->sections[section];
    for (uint32_t h = sec->header_begin; h < sec->header_end; h++) {
        uint32_t id = p->headers[h].key;
        if (strtab_len(&p->strings, id) == klen && !memcmp(strtab_get(&p->strings, id), key, klen))
            return 1;
    }
    return 0;
}

static int starts_section(const cg_loader *ld, const char *key, size_t klen) {
    const parse_state *st = &ld->st;
    int repeatable;
    if (st->section == CG_NONE) return 1;
    if (!opens_section(key, klen, &repeatable)) return 0;
    if (st->body_started || ld->p->sections[st->section].has_totals) return 1;
    return !repeatable && section_has_header(ld->p, st->section, key, klen);
}

static int header_line(cg_loader *ld, const char *key, size_t klen, const char *s,
                       const char *end) {
    parse_state *st = &ld->st;
    cg_profile *p = ld->p;
    int rc;
    if (starts_section(ld, key, klen) && (rc = new_section(ld))) return rc;
    s = skip_space(s, end);
    while (end > s && is_space(end[-1])) end--;
    uint32_t ksid = 0, vsid = 0;
    if ((rc = intern(ld, key, klen, &ksid)) || (rc = intern(ld, s, (size_t)(end - s), &vsid)))
        return rc;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, sizeof(k) - 1) == 0)
    section_rec *sec = &p->sections[st->section];
    if (KEY("version")) {
        rc = version_header(ld, s, end);
    } else if (KEY("positions")) {
        rc = positions_header(ld, s, end);
    } else if (KEY("events")) {
        rc = events_header(ld, s, end);
    } else if (KEY("event")) {
        rc = event_header(ld, s, end);
    } else if (KEY("creator")) {
        st->writes_totals = end - s >= 9 && !memcmp(s, "callgrind", 9);
    } else if (KEY("summary")) {
        rc = costs_header(ld, "summary:", s, end, &p->section_summary, &sec->has_summary);
        p->sections[st->section].summary_line = st->lineno;
    } else if (KEY("totals")) {
        rc = costs_header(ld, "totals:", s, end, &p->section_totals, &sec->has_totals);
        p->sections[st->section].totals_line = st->lineno;
    }
#undef KEY
    if (rc) return rc;
    return build_header(ld, ksid, vsid) ? out_of_memory(ld) : LINE_OK;
}

/* ---- lines ---- */

static int is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

static int parse_line(cg_loader *ld, const char *s, const char *end) {
    parse_state *st = &ld->st;
    if (end > s && end[-1] == '\r') end--;
    s = skip_space(s, end);
    if (s == end || *s == '#') return LINE_OK;
    char c = *s;
    if (is_digit(c) || c == '+' || c == '-' || c == '*') return position_line(ld, s, end);
    if (st->assoc != ASSOC_NONE) {
        const char *label = st->assoc == ASSOC_CALL   ? "calls="
                            : st->assoc == ASSOC_JUMP ? "jump="
                                                      : "jcnd=";
        int rc = malformed(ld, "expected the position line of the %s on line %llu", label,
                           (unsigned long long)st->assoc_line);
        if (rc < 0) return rc;
        /* tolerant: keep it waiting, as KCachegrind does, and read this line as usual */
    }
    const char *key = s;
    while (s < end && is_key_char(*s)) s++;
    size_t klen = (size_t)(s - key);
    if (klen && s < end && *s == '=') {
        if (klen == 5 && !memcmp(key, "calls", 5)) return assoc_line(ld, key, klen, s + 1, end);
        if (klen == 4 && (!memcmp(key, "jump", 4) || !memcmp(key, "jcnd", 4)))
            return assoc_line(ld, key, klen, s + 1, end);
        int rc = enter_body(ld);
        return rc ? rc : spec_line(ld, key, klen, s + 1, end);
    }
    if (klen && s < end && *s == ':') return header_line(ld, key, klen, s + 1, end);
    if (end - key >= 4 && !memcmp(key, "====", 4)) {
        /* Xdebug's append mode: another profile follows, with its own header and ids */
        for (int t = 0; t < IDS_COUNT; t++) idmap_clear(&st->ids[t]);
        st->have_events = 0;
        st->ncols = 1;
        st->col_kind[0] = COL_LINE;
        return st->section != CG_NONE ? new_section(ld) : LINE_OK;
    }
    char shown[TOKEN_SHOWN + 4];
    return malformed(ld, "unrecognized line starting with '%s'", token(shown, key, end));
}

void parse_begin(cg_loader *ld, const char *name, uint32_t source) {
    parse_state *st = &ld->st;
    for (int t = 0; t < IDS_COUNT; t++) idmap_clear(&st->ids[t]);
    st->name = name;
    st->source = source;
    st->lineno = 0;
    st->section = CG_NONE;
    st->body_started = 0;
    st->have_events = st->events_seen = 0;
    st->writes_totals = 0;
    st->ncols = 1;
    st->col_kind[0] = COL_LINE;
    st->nevent_map = 0;
    st->identity_map = 1;
    reset_body_state(st);
}

int parse_lines(cg_loader *ld, const char *data, size_t size, cg_error *err) {
    parse_state *st = &ld->st;
    st->err = err;
    const char *s = data, *end = data + size;
    const char *nul = memchr(data, '\0', size);
    /* The fast path reads up to a '\n' without looking at `end`: only lines that start before
     * the last '\n' of the buffer may take it, and none in a buffer with a NUL byte. */
    const char *fast_end = end;
    while (fast_end > data && fast_end[-1] != '\n') fast_end--;
    if (nul) fast_end = data;
    while (s < end) {
        if (s < fast_end && st->have_events &&
            (is_digit(*s) || *s == '+' || *s == '-' || *s == '*')) {
            uint64_t pos[COL_COUNT] = {0, 0, 0};
            size_t n;
            const char *eol = fast_tokens(ld, s, pos, &n);
            if (eol) {
                st->lineno++;
                if (commit_position(ld, pos, n) < 0) return -1;
                s = eol + 1;
                continue;
            }
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        st->lineno++;
        int rc;
        if (nul && nul < eol) {
            rc = malformed(ld, "NUL byte in line");
            nul = memchr(eol, '\0', (size_t)(end - eol));
        } else {
            rc = parse_line(ld, s, eol);
        }
        if (rc < 0) return -1;
        s = nl ? nl + 1 : end;
    }
    return 0;
}

int parse_end(cg_loader *ld, cg_error *err) {
    parse_state *st = &ld->st;
    st->err = err;
    if (st->assoc != ASSOC_NONE) {
        const char *label = st->assoc == ASSOC_CALL   ? "calls="
                            : st->assoc == ASSOC_JUMP ? "jump="
                                                      : "jcnd=";
        uint64_t line = st->assoc_line;
        st->assoc = ASSOC_NONE;
        if (malformed(ld, "%s on line %llu has no position line (end of input)", label,
                      (unsigned long long)line) < 0)
            return -1;
    }
    if (finish_section(ld, 1)) return -1;
    /* an empty input adds nothing (valgrind leaves an empty base file beside the files of
     * --separate-threads=yes): a warning; the loader fails when every input is empty */
    if (st->lineno == 0) return warn(ld, 0, "empty input") ? -1 : 0;
    ld->inputs_with_text++;
    if (!st->events_seen && malformed(ld, "no 'events:' line in the input") < 0) return -1;
    return ld->failed ? -1 : 0;
}

void parse_state_free(parse_state *st) {
    for (int t = 0; t < IDS_COUNT; t++) idmap_free(&st->ids[t]);
    free(st->event_map);
    st->event_map = NULL;
    st->nevent_map = st->event_map_cap = 0;
}
