/* rows.c - what the text reports take from the core: core.rows (callgrind_annotate's rows of a
 * listing, summed, sorted and cut in C, handed to Lua as tables for the rows shown only),
 * core.listing (the listing's text), core.row_files, core.columns (callgrind_annotate's cost
 * columns), core.file_lines (the costs of source lines) and core.file_costs (of source files). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "report.h"

#define ROWS_BOX "callgrind.rows"

/* The rows live in a userdata while the tables are made, so that an error (a derived cost
 * over 64 bits, no memory) frees them with the userdata. */
static int rows_box_gc(lua_State *L) {
    cg_rows **box = luaL_checkudata(L, 1, ROWS_BOX);
    cg_rows_free(*box);
    *box = NULL;
    return 0;
}

static cg_rows **new_rows_box(lua_State *L) {
    cg_rows **box = compat_newuserdata(L, sizeof *box);
    *box = NULL;
    if (luaL_newmetatable(L, ROWS_BOX)) {
        lua_pushcfunction(L, rows_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return box;
}

/* The events of the list in field `key` of the options table (at index 2), into `out`. */
static size_t read_events(lua_State *L, const cg_profile *p, const char *key, size_t *out) {
    lua_getfield(L, 2, key);
    luaL_argcheck(L, lua_istable(L, -1), 2, "a list of events expected");
    size_t n = compat_rawlen(L, -1);
    luaL_argcheck(L, n > 0 && n <= CG_MAX_EVENTS, 2, "a list of events expected");
    read_event_list(L, p, -1, n, out);
    lua_pop(L, 1);
    return n;
}

static int read_flag(lua_State *L, const char *key) {
    lua_getfield(L, 2, key);
    int on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
}

/* { [event name] = cost } of a cost row, for the events asked for. */
static void push_costs(lua_State *L, const cg_profile *p, const cg_cost *row, const size_t *events,
                       size_t n) {
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        push_cost(L, p, row, events[i]);
        lua_setfield(L, -2, cg_event_name(p, events[i]));
    }
}

static void set_string(lua_State *L, const char *key, const char *value) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, key);
}

static void push_row(lua_State *L, profile_box *box, const cg_rows *r, size_t i,
                     const size_t *events, size_t n, int merged) {
    const cg_profile *p = box->p;
    lua_createtable(L, 0, 10);
    set_string(L, "key", cg_row_key(r, i));
    set_string(L, "file", cg_row_file(r, i));
    set_string(L, "name", cg_row_name(r, i));
    set_string(L, "object", cg_row_object(r, i));
    size_t nfns = cg_row_function_count(r, i);
    lua_createtable(L, (int)nfns, 0);
    for (size_t k = 0; k < nfns; k++) {
        push_function(L, 1, box, cg_row_function(r, i, k));
        lua_rawseti(L, -2, (int)k + 1);
    }
    lua_setfield(L, -2, "functions");
    push_costs(L, p, cg_row_self(r, i), events, n);
    lua_setfield(L, -2, "self");
    push_costs(L, p, cg_row_inclusive(r, i), events, n);
    lua_setfield(L, -2, "inclusive");
    compat_pushuint64(L, cg_row_called(r, i));
    lua_setfield(L, -2, "called");
    lua_pushboolean(L, cg_row_primary(r, i));
    lua_setfield(L, -2, "primary");
    if (merged) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "merged");
    }
}

/* The query of the options table at index 2: sort, thresholds, all, inclusive, limit. */
static void read_query(lua_State *L, const cg_profile *p, cg_rows_query *q, size_t *sort,
                       double *thresholds) {
    size_t nsort = read_events(L, p, "sort", sort);
    lua_getfield(L, 2, "thresholds");
    int given = lua_istable(L, -1);
    for (size_t k = 0; k < nsort; k++) {
        thresholds[k] = 0;
        if (!given) continue;
        lua_rawgeti(L, -1, (int)k + 1);
        thresholds[k] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "limit");
    lua_Number limit = luaL_optnumber(L, -1, -1);
    lua_pop(L, 1);
    *q = (cg_rows_query){sort,
                         nsort,
                         thresholds,
                         read_flag(L, "all"),
                         read_flag(L, "inclusive"),
                         limit >= 0 ? (size_t)limit : SIZE_MAX};
}

/* The profile's file index (built on first use). */
static const cg_file_index *file_index(lua_State *L, cg_profile *p) {
    cg_error err;
    const cg_file_index *x = cg_file_index_get(p, &err);
    if (!x) luaL_error(L, "%s", err.message);
    return x;
}

#define ROWS_CACHE "callgrind.rows_cache"

/* The built rows of a profile (the userdata at index 1) in one mode, kept in a table of the
 * registry with weak keys, so that the reports on one profile sum its records once: pushes the
 * rows' box and returns the rows. The rows point into the model: they are only used while the
 * profile is open, which every caller has checked. */
static cg_rows *built_rows(lua_State *L, cg_profile *p, int mode) {
    lua_getfield(L, LUA_REGISTRYINDEX, ROWS_CACHE);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_newtable(L);
        lua_pushstring(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, ROWS_CACHE);
    }
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);
    }
    lua_remove(L, -2); /* the profile's modes */
    lua_rawgeti(L, -1, mode + 1);
    if (!lua_isnil(L, -1)) {
        lua_remove(L, -2);
        return *(cg_rows **)lua_touserdata(L, -1);
    }
    lua_pop(L, 1);
    cg_rows **box = new_rows_box(L);
    cg_error err;
    if (mode == CG_ROWS_KEYS) {
        cg_rows *split = built_rows(L, p, CG_ROWS_SPLIT);
        lua_pop(L, 1);
        *box = cg_rows_by_key(split, &err);
    } else {
        /* a file index already built (annotated source and editors build it) says which
         * functions lie in one file (their self cost is that file's); none is built for the
         * rows alone: its walk decodes the files of every record, where without it a function
         * is looked at only up to its second file (single 100 MB: report.flat 0.21 -> 0.15 s) */
        *box = cg_rows_build(p, mode, mode == CG_ROWS_SPLIT ? cg_file_index_built(p) : NULL, &err);
    }
    if (!*box) luaL_error(L, "%s", err.message);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, mode + 1);
    lua_remove(L, -2);
    return *box;
}

/* The rows of the query at index 2, built (or taken from the cache) and selected; their box
 * is pushed. */
static cg_rows *selected_rows(lua_State *L, cg_profile *p, cg_rows_query *q) {
    lua_getfield(L, 2, "merged");
    int mode = lua_toboolean(L, -1) ? CG_ROWS_MERGED : CG_ROWS_SPLIT;
    lua_pop(L, 1);
    if (read_flag(L, "by_key") && mode == CG_ROWS_SPLIT) mode = CG_ROWS_KEYS;
    cg_rows *r = built_rows(L, p, mode);
    cg_error err;
    if (cg_rows_select(r, q, &err)) luaL_error(L, "%s", err.message);
    return r;
}

/* rows(prof, {events=, sort=, thresholds=, all=, inclusive=, limit=, merged=}) -> the rows a
 * listing shows, in order: { {key=, file=, name=, object=, functions={fn, ...}, self={ev=n},
 * inclusive={ev=n}, called=, primary=}, ... } with the costs of `events`; with count = true,
 * how many rows it shows; with functions = true, the first function of each (the function of a
 * merged row). */
static int l_rows(lua_State *L) {
    profile_box *pbox = check_box(L, 1);
    cg_profile *p = open_profile(L, pbox);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t events[CG_MAX_EVENTS], sort[CG_MAX_EVENTS];
    double thresholds[CG_MAX_EVENTS];
    cg_rows_query q;
    size_t nevents = read_events(L, p, "events", events);
    read_query(L, p, &q, sort, thresholds);
    int merged = read_flag(L, "merged");
    cg_rows *r = selected_rows(L, p, &q);
    size_t shown = cg_rows_shown(r);
    if (read_flag(L, "count")) {
        lua_pushinteger(L, (lua_Integer)shown);
        return 1;
    }
    if (read_flag(L, "functions")) {
        /* each row's first function only (a merged row's one), no table per row */
        lua_createtable(L, (int)shown, 0);
        for (size_t k = 0; k < shown; k++) {
            push_function(L, 1, pbox, cg_row_function(r, cg_rows_shown_row(r, k), 0));
            lua_rawseti(L, -2, (int)k + 1);
        }
        return 1;
    }
    lua_createtable(L, (int)shown, 0);
    for (size_t k = 0; k < shown; k++) {
        push_row(L, pbox, r, cg_rows_shown_row(r, k), events, nevents, merged);
        lua_rawseti(L, -2, (int)k + 1);
    }
    return 1;
}

/* row_files(prof, query) -> the files of the rows shown, each once, in row order. */
static int l_row_files(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t sort[CG_MAX_EVENTS];
    double thresholds[CG_MAX_EVENTS];
    cg_rows_query q;
    read_query(L, p, &q, sort, thresholds);
    cg_rows *r = selected_rows(L, p, &q);
    lua_newtable(L); /* seen */
    lua_newtable(L); /* list */
    int n = 0;
    for (size_t k = 0, shown = cg_rows_shown(r); k < shown; k++) {
        const char *file = cg_row_file(r, cg_rows_shown_row(r, k));
        lua_getfield(L, -2, file);
        int seen = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (seen) continue;
        lua_pushboolean(L, 1);
        lua_setfield(L, -3, file);
        lua_pushstring(L, file);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

/* ---- the listing's text ---- */

/* listing(prof, {show=, sort=, thresholds=, all=, inclusive=, limit=, merged=, percentages=,
 * tree = "none"|"caller"|"calling"|"both", prefix=, out=}) -> callgrind_annotate's function
 * listing: the heading and the rows shown, with callers and callees for a tree, after `prefix`;
 * with `out` (a file, or an object with a write method) written there in pieces instead, then
 * true, or nil and a message when out:write failed. */
static int l_listing(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t show[CG_MAX_EVENTS], sort[CG_MAX_EVENTS];
    double thresholds[CG_MAX_EVENTS];
    cg_rows_query q;
    size_t nshow = read_events(L, p, "show", show);
    read_query(L, p, &q, sort, thresholds);
    lua_getfield(L, 2, "tree");
    const char *tree = luaL_optstring(L, -1, "none");
    int bits = !strcmp(tree, "both")      ? CG_TREE_CALLERS | CG_TREE_CALLEES
               : !strcmp(tree, "caller")  ? CG_TREE_CALLERS
               : !strcmp(tree, "calling") ? CG_TREE_CALLEES
                                          : 0;
    lua_pop(L, 1);
    lua_getfield(L, 2, "percentages");
    int percentages = lua_isnil(L, -1) || lua_toboolean(L, -1);
    lua_pop(L, 1);
    cg_listing o = {show, nshow, sort, q.nsort, q.inclusive, percentages, bits};
    cg_rows *r = selected_rows(L, p, &q);
    lua_getfield(L, 2, "out");
    text_buffer *t = push_text_output(L, opt_text_output(L, -1, "listing: out"));
    lua_getfield(L, 2, "prefix"); /* text put first, so that the listing is not copied again */
    size_t nprefix = 0;
    const char *prefix = lua_tolstring(L, -1, &nprefix);
    if (prefix && text_buffer_append(t, prefix, nprefix)) return text_failed(L, t, "out of memory");
    cg_error err;
    if (cg_listing_write(r, &o, text_buffer_append, t, &err))
        return text_failed(L, t, err.code == CG_ERR_ABORTED ? "out of memory" : err.message);
    return push_text_result(L, t);
}

/* ---- columns ---- */

#define COLUMNS_BOX "callgrind.columns"

typedef struct columns_box {
    cg_columns c;
    size_t nnames;
    char names[]; /* the names, each NUL-terminated */
} columns_box;

static columns_box *check_columns(lua_State *L) {
    return luaL_checkudata(L, 1, COLUMNS_BOX);
}

/* The numbers of the list at `idx` (one per column). */
static void read_values(lua_State *L, int idx, const cg_columns *c, cg_cost *out) {
    luaL_checktype(L, idx, LUA_TTABLE);
    for (size_t i = 0; i < c->n; i++) {
        lua_rawgeti(L, idx, (int)i + 1);
        out[i] = lua_isnumber(L, -1) ? compat_toint64(L, -1) : 0;
        lua_pop(L, 1);
    }
}

static void column_names(const columns_box *b, const char **names) {
    const char *at = b->names;
    for (size_t i = 0; i < b->c.n; i++) {
        names[i] = at;
        at += strlen(at) + 1;
    }
}

/* A row of values at `idx`: a list in column order, or a table keyed by the column names. */
static void read_row(lua_State *L, int idx, const columns_box *b, cg_cost *out) {
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_rawgeti(L, idx, 1);
    int listed = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (listed) {
        read_values(L, idx, &b->c, out);
        return;
    }
    const char *at = b->names;
    for (size_t i = 0; i < b->c.n; i++) {
        lua_getfield(L, idx, at);
        out[i] = lua_isnumber(L, -1) ? compat_toint64(L, -1) : 0;
        lua_pop(L, 1);
        at += strlen(at) + 1;
    }
}

/* cols:fit(values): widens the columns for a row (a list, or a table keyed by the names). */
static int columns_fit(lua_State *L) {
    columns_box *b = check_columns(L);
    cg_cost v[CG_MAX_EVENTS];
    read_row(L, 2, b, v);
    cg_columns_fit(&b->c, v);
    return 0;
}

/* cols:cells(values [, zero_dot]) -> the cells of a row; values nil: every cell "." */
static int columns_cells(lua_State *L) {
    columns_box *b = check_columns(L);
    cg_cost v[CG_MAX_EVENTS];
    int none = lua_isnoneornil(L, 2);
    if (!none) read_row(L, 2, b, v);
    int zero_dot = lua_toboolean(L, 3);
    lua_settop(L, 3);
    char *out = compat_newuserdata(L, cg_columns_max(&b->c)); /* scratch the collector frees */
    size_t len = cg_columns_cells(&b->c, none ? NULL : v, zero_dot, out);
    lua_pushlstring(L, out, len);
    return 1;
}

/* cols:heading() -> the event names, each padded to its column */
static int columns_heading(lua_State *L) {
    columns_box *b = check_columns(L);
    const char *names[CG_MAX_EVENTS];
    column_names(b, names);
    char *out = compat_newuserdata(L, cg_columns_max(&b->c));
    lua_pushlstring(L, out, cg_columns_heading(&b->c, names, out));
    return 1;
}

/* columns({names...}, {totals...} [, percentages]) -> callgrind_annotate's cost columns. */
static int l_columns(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t n = compat_rawlen(L, 1), bytes = 0;
    luaL_argcheck(L, n > 0 && n <= CG_MAX_EVENTS, 1, "a list of event names expected");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        size_t len;
        luaL_argcheck(L, lua_tolstring(L, -1, &len) != NULL, 1, "a list of event names expected");
        bytes += len + 1;
        lua_pop(L, 1);
    }
    int percentages = lua_isnoneornil(L, 3) || lua_toboolean(L, 3);
    columns_box *b = compat_newuserdata(L, sizeof *b + bytes);
    int at = lua_gettop(L);
    const char *names[CG_MAX_EVENTS];
    char *dst = b->names;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        memcpy(dst, s, len + 1);
        names[i] = dst;
        dst += len + 1;
        lua_pop(L, 1);
    }
    b->c.n = n;
    cg_cost totals[CG_MAX_EVENTS];
    read_values(L, 2, &b->c, totals);
    cg_columns_init(&b->c, names, n, totals, percentages);
    if (luaL_newmetatable(L, COLUMNS_BOX)) {
        lua_newtable(L);
        lua_pushcfunction(L, columns_fit);
        lua_setfield(L, -2, "fit");
        lua_pushcfunction(L, columns_cells);
        lua_setfield(L, -2, "cells");
        lua_pushcfunction(L, columns_heading);
        lua_setfield(L, -2, "heading");
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, at);
    return 1;
}

/* ---- the costs of source lines ---- */

#define LINES_BOX "callgrind.file_lines"

static int lines_box_gc(lua_State *L) {
    cg_file_lines **box = luaL_checkudata(L, 1, LINES_BOX);
    cg_file_lines_free(*box);
    *box = NULL;
    return 0;
}

/* A box for the lines being made into Lua tables: freed by the collector if that fails, by
 * the caller (cg_file_lines_free, then NULL) as soon as they are made. */
static cg_file_lines **push_lines_box(lua_State *L) {
    cg_file_lines **box = compat_newuserdata(L, sizeof *box);
    *box = NULL;
    if (luaL_newmetatable(L, LINES_BOX)) {
        lua_pushcfunction(L, lines_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return box;
}

/* The list of strings at `idx` into a userdata array anchored at the top of the stack (the
 * strings are kept alive by the list: a number there is refused, since its text would live on
 * the stack only); their lengths into `lens` when not NULL. */
static const char **string_list(lua_State *L, int idx, size_t n, size_t **lens) {
    const char **list = lua_newuserdata(L, (n + 1) * (sizeof *list + sizeof **lens));
    if (lens) *lens = (size_t *)(list + n + 1);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, idx, (int)i + 1);
        size_t len;
        luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, idx, "a list of strings expected");
        list[i] = lua_tolstring(L, -1, &len);
        if (lens) (*lens)[i] = len;
        lua_pop(L, 1);
    }
    return list;
}

/* file_lines(prof, files or nil, events) -> { [file] = { [line] = { self = {ev = cost} (lines
 * with line records only), calls = { {callee = fn, count = n, inclusive = {ev = cost}}, ... } } } }
 * for the files named (every file for nil); calls summed per callee, recursive calls left out
 * where the line also enters the recursion, by cost of the events in order (highest first),
 * then by "file:name", then by count. */
static int l_file_lines(lua_State *L) {
    profile_box *pbox = check_box(L, 1);
    cg_profile *p = open_profile(L, pbox);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t events[CG_MAX_EVENTS], nevents = compat_rawlen(L, 3);
    luaL_argcheck(L, nevents > 0 && nevents <= CG_MAX_EVENTS, 3, "a list of events expected");
    read_event_list(L, p, 3, nevents, events);
    size_t nfiles = 0;
    const char **files = NULL;
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        nfiles = compat_rawlen(L, 2);
        files = string_list(L, 2, nfiles, NULL); /* anchored below */
    }
    cg_file_lines **box = push_lines_box(L);
    int at = lua_gettop(L);
    cg_error err;
    const cg_file_index *x = files ? file_index(L, p) : NULL;
    *box = cg_file_lines_build(p, files, files ? nfiles : 0, x, events, nevents, &err);
    if (!*box) return luaL_error(L, "%s", err.message);
    const cg_file_lines *f = *box;
    lua_newtable(L);
    for (size_t k = 0, n = cg_file_lines_files(f); k < n; k++) {
        size_t nlines = cg_file_lines_count(f, k);
        lua_createtable(L, 0, (int)nlines);
        for (size_t i = 0; i < nlines; i++) {
            size_t ncallees = cg_file_lines_callee_count(f, k, i);
            lua_createtable(L, 0, ncallees ? 2 : 1);
            if (cg_file_lines_coded(f, k, i)) {
                push_costs(L, p, cg_file_lines_self(f, k, i), events, nevents);
                lua_setfield(L, -2, "self");
            }
            lua_createtable(L, (int)ncallees, 0);
            for (size_t c = 0; c < ncallees; c++) {
                lua_createtable(L, 0, 3);
                push_function(L, 1, pbox, cg_file_lines_callee(f, k, i, c));
                lua_setfield(L, -2, "callee");
                compat_pushuint64(L, cg_file_lines_callee_calls(f, k, i, c));
                lua_setfield(L, -2, "count");
                push_costs(L, p, cg_file_lines_callee_inclusive(f, k, i, c), events, nevents);
                lua_setfield(L, -2, "inclusive");
                lua_rawseti(L, -2, (int)c + 1);
            }
            lua_setfield(L, -2, "calls");
            compat_pushuint64(L, cg_file_lines_line(f, k, i));
            lua_insert(L, -2);
            lua_settable(L, -3);
        }
        lua_setfield(L, -2, cg_file_lines_name(f, k));
    }
    cg_file_lines_free(*box);
    *box = NULL;
    lua_replace(L, at);
    lua_settop(L, at);
    return 1;
}

/* annotated_source(prof, files, texts, events, percentages, context) -> { text or false, ... },
 * { sum, ... }: each file (named as the profile writes it) annotated with its text as
 * callgrind_annotate prints it (cg_annotated_write; false when the profile has no line of it),
 * and the sums of the costs printed next to source lines, one per event. */
static int l_annotated_source(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    int percentages = lua_toboolean(L, 5);
    lua_Number context = luaL_checknumber(L, 6);
    luaL_argcheck(L, context >= 0, 6, "a number >= 0 expected");
    size_t nfiles = compat_rawlen(L, 2), nevents = compat_rawlen(L, 4);
    luaL_argcheck(L, compat_rawlen(L, 3) == nfiles, 3, "a text for each file expected");
    luaL_argcheck(L, nevents > 0 && nevents <= CG_MAX_EVENTS, 4, "a list of events expected");
    size_t events[CG_MAX_EVENTS];
    const char *names[CG_MAX_EVENTS];
    cg_cost totals[CG_MAX_EVENTS], annotated[CG_MAX_EVENTS];
    read_event_list(L, p, 4, nevents, events);
    for (size_t i = 0; i < nevents; i++) {
        names[i] = cg_event_name(p, events[i]);
        totals[i] = checked_cost(L, p, cg_total_costs(p), events[i]);
        annotated[i] = 0;
    }
    lua_settop(L, 6);
    const char **files = string_list(L, 2, nfiles, NULL);
    size_t *lens;
    const char **texts = string_list(L, 3, nfiles, &lens);
    cg_file_lines **box = push_lines_box(L);
    text_buffer *t = push_text_buffer(L);
    cg_error err;
    *box = cg_file_lines_build(p, files, nfiles, nfiles ? file_index(L, p) : NULL, events, nevents,
                               &err);
    if (!*box) return luaL_error(L, "%s", err.message);
    cg_annotate_options o = {
        events,      nevents,
        names,       totals,
        percentages, context > (lua_Number)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)context};
    lua_createtable(L, (int)nfiles, 0);
    for (size_t i = 0; i < nfiles; i++) {
        size_t k = 0, n = cg_file_lines_files(*box);
        while (k < n && strcmp(cg_file_lines_name(*box, k), files[i]) != 0) k++;
        if (k == n) {
            lua_pushboolean(L, 0);
        } else {
            t->len = 0;
            if (cg_annotated_write(*box, k, texts[i], lens[i], &o, annotated, text_buffer_append, t,
                                   &err))
                return luaL_error(L, "%s", err.message);
            /* the last line's end is the caller's, which joins the parts with "\n" */
            if (t->len && t->data[t->len - 1] == '\n') t->len--;
            push_text_result(L, t);
        }
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_createtable(L, (int)nevents, 0);
    for (size_t i = 0; i < nevents; i++) {
        compat_pushint64(L, annotated[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 2;
}

/* line_totals(prof, ev[, file]) -> self, calls: { [file] = { [line] = self cost } } for the
 * lines with line records, and { [file] = { [line] = inclusive cost of its calls } } for the
 * lines that make calls (recursive calls counted only where the line makes no other call); with
 * `file`, that file only, from the records of the functions the file index gives for it. */
static int l_line_totals(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    size_t ev = check_event(L, p, 2);
    const char *file = luaL_optstring(L, 3, NULL);
    lua_settop(L, 3);
    cg_file_lines **box = push_lines_box(L);
    int at = lua_gettop(L);
    cg_error err;
    const cg_file_index *x = file ? file_index(L, p) : NULL;
    *box = cg_file_lines_build(p, file ? &file : NULL, file ? 1 : 0, x, NULL, 0, &err);
    if (!*box) return luaL_error(L, "%s", err.message);
    const cg_file_lines *f = *box;
    lua_newtable(L); /* self */
    lua_newtable(L); /* calls */
    for (size_t k = 0, n = cg_file_lines_files(f); k < n; k++) {
        size_t nlines = cg_file_lines_count(f, k);
        lua_newtable(L);
        lua_newtable(L);
        int self = lua_gettop(L) - 1, calls = self + 1, ncalled = 0, ncoded = 0;
        for (size_t i = 0; i < nlines; i++) {
            uint64_t line = cg_file_lines_line(f, k, i);
            if (cg_file_lines_coded(f, k, i)) {
                compat_pushuint64(L, line);
                push_cost(L, p, cg_file_lines_self(f, k, i), ev);
                lua_settable(L, self);
                ncoded++;
            }
            size_t ncallees = cg_file_lines_callee_count(f, k, i);
            if (!ncallees) continue;
            cg_cost sum = 0, v;
            for (size_t c = 0; c < ncallees; c++) {
                if (cg_cost_of(p, cg_file_lines_callee_inclusive(f, k, i, c), ev, &v) ||
                    __builtin_add_overflow(sum, v, &sum))
                    return luaL_error(L, "the cost of event '%s' does not fit in 64 bits",
                                      cg_event_name(p, ev));
            }
            compat_pushuint64(L, line);
            compat_pushint64(L, sum);
            lua_settable(L, calls);
            ncalled++;
        }
        const char *name = cg_file_lines_name(f, k);
        if (ncalled) {
            lua_setfield(L, at + 2, name);
        } else {
            lua_pop(L, 1);
        }
        if (ncoded) {
            lua_setfield(L, at + 1, name);
        } else {
            lua_pop(L, 1);
        }
    }
    cg_file_lines_free(*box);
    *box = NULL;
    return 2;
}

static int file_costs_box_gc(lua_State *L) {
    cg_file_costs **box = luaL_checkudata(L, 1, "callgrind.file_costs");
    cg_file_costs_free(*box);
    *box = NULL;
    return 0;
}

/* file_costs(prof) -> { {file = name, costs = {ev = cost}}, ... }: the self cost of every source
 * file with line records, raw events, in name order. */
static int l_file_costs(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    cg_file_costs **box = compat_newuserdata(L, sizeof *box);
    *box = NULL;
    if (luaL_newmetatable(L, "callgrind.file_costs")) {
        lua_pushcfunction(L, file_costs_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    cg_error err;
    if (!(*box = cg_file_costs_build(p, &err))) return luaL_error(L, "%s", err.message);
    size_t n = cg_file_costs_count(*box), nraw = cg_raw_event_count(p);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, cg_file_costs_name(*box, i));
        lua_setfield(L, -2, "file");
        lua_createtable(L, 0, (int)nraw);
        const cg_cost *row = cg_file_costs_row(*box, i);
        for (size_t e = 0; e < nraw; e++) {
            compat_pushint64(L, row[e]);
            lua_setfield(L, -2, cg_event_name(p, e));
        }
        lua_setfield(L, -2, "costs");
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

const luaL_Reg rows_functions[] = {{"rows", l_rows},
                                   {"file_costs", l_file_costs},
                                   {"row_files", l_row_files},
                                   {"annotated_source", l_annotated_source},
                                   {"listing", l_listing},
                                   {"columns", l_columns},
                                   {"file_lines", l_file_lines},
                                   {"line_totals", l_line_totals},
                                   {NULL, NULL}};
