/* rank.c - core.rank: the functions of a profile in order of cost (csrc/rank.h), and
 * core.functions_text: all of them with their costs as text (`callgrind functions`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../numfmt.h"
#include "../rank.h"
#include "binding.h"

/* rank(prof, ev, inclusive[, limit[, ascending]]) -> { fn, ... }: the functions by decreasing
 * (with `ascending`, increasing) self or inclusive cost of `ev`, ties by name, file and object;
 * at most `limit` of them (nil: all). */
static int l_rank(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    size_t ev = check_event(L, p, 2);
    int inclusive = lua_toboolean(L, 3);
    lua_Integer limit = luaL_optinteger(L, 4, -1);
    int ascending = lua_toboolean(L, 5);
    size_t n = cg_function_count(p);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return luaL_error(L, "out of memory");
    push_collected(L, order, free); /* freed even if making the list fails */
    cg_error err;
    size_t shown = cg_rank_functions(p, ev, inclusive, ascending,
                                     limit >= 0 ? (size_t)limit : SIZE_MAX, order, &err);
    if (shown == CG_NONE) return luaL_error(L, "%s", err.message);
    lua_createtable(L, (int)shown, 0);
    for (size_t i = 0; i < shown; i++) {
        push_function(L, 1, box, order[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

/* ---- the text of `callgrind functions` ---- */

typedef enum { FORM_TSV, FORM_CSV, FORM_JSON } table_form;

/* A name as a field of tab-separated values: backslash, tab, newline and carriage return as
 * \\, \t, \n and \r. */
static int put_tsv_field(text_buffer *t, const char *s) {
    int bad = 0;
    for (const char *run = s;; s++) {
        const char *escape = *s == '\\'   ? "\\\\"
                             : *s == '\t' ? "\\t"
                             : *s == '\n' ? "\\n"
                             : *s == '\r' ? "\\r"
                                          : NULL;
        if (!escape && *s) continue;
        bad |= text_buffer_append(t, run, (size_t)(s - run));
        if (!*s) return bad;
        bad |= text_buffer_append(t, escape, 2);
        run = s + 1;
    }
}

/* A name as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, a quote or
 * a line break. */
static int put_csv_field(text_buffer *t, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) return text_buffer_append(t, s, strlen(s));
    int bad = text_buffer_append(t, "\"", 1);
    for (const char *quote; (quote = strchr(s, '"')) != NULL; s = quote + 1)
        bad |= text_buffer_append(t, s, (size_t)(quote - s) + 1) | text_buffer_append(t, "\"", 1);
    return bad | text_buffer_append(t, s, strlen(s)) | text_buffer_append(t, "\"", 1);
}

static int put_field(text_buffer *t, table_form form, const char *s) {
    return form == FORM_TSV   ? put_tsv_field(t, s)
           : form == FORM_CSV ? put_csv_field(t, s)
                              : put_json_string(t, s);
}

static int put_text(text_buffer *t, const char *s) {
    return text_buffer_append(t, s, strlen(s));
}

static int put_number(text_buffer *t, int64_t v) {
    char num[NUMFMT_MAX];
    return text_buffer_append(t, num, (size_t)(put_i64(num, v) - num));
}

/* The heading line: name, file, object, called, then "EV self" and "EV inclusive" per event. */
static int put_heading(text_buffer *t, const cg_profile *p, const size_t *events, size_t n,
                       table_form form) {
    const char *sep = form == FORM_TSV ? "\t" : ",";
    int bad =
        put_text(t, form == FORM_TSV ? "name\tfile\tobject\tcalled" : "name,file,object,called");
    for (size_t e = 0; e < n; e++) {
        static const char *const kinds[2] = {" self", " inclusive"};
        for (int k = 0; k < 2; k++) {
            /* an event's name and its kind are one field */
            const char *name = cg_event_name(p, events[e]);
            size_t len = strlen(name);
            char *field = malloc(len + 16);
            if (!field) return -1;
            memcpy(field, name, len);
            strcpy(field + len, kinds[k]);
            bad |= put_text(t, sep) | put_field(t, form, field);
            free(field);
        }
    }
    return bad | put_text(t, "\n");
}

/* One function's line of values, or its JSON object. */
static int put_function(lua_State *L, text_buffer *t, const cg_profile *p, size_t fn,
                        const size_t *events, size_t n, table_form form) {
    const char *fields[3] = {cg_function_name(p, fn), cg_function_file(p, fn),
                             cg_function_object(p, fn)};
    const cg_cost *rows[2] = {cg_function_self(p, fn), cg_function_inclusive(p, fn)};
    char num[NUMFMT_MAX];
    const char *called = num;
    size_t called_len = (size_t)(put_u64(num, cg_function_called(p, fn)) - num);
    int bad = 0;
    if (form != FORM_JSON) {
        const char *sep = form == FORM_TSV ? "\t" : ",";
        for (int k = 0; k < 3; k++) bad |= put_field(t, form, fields[k]) | put_text(t, sep);
        bad |= text_buffer_append(t, called, called_len);
        for (size_t e = 0; e < n; e++)
            for (int k = 0; k < 2; k++)
                bad |= put_text(t, sep) | put_number(t, checked_cost(L, p, rows[k], events[e]));
        return bad | put_text(t, "\n");
    }
    static const char *const keys[3] = {"{\"name\": ", ", \"file\": ", ", \"object\": "};
    for (int k = 0; k < 3; k++) bad |= put_text(t, keys[k]) | put_json_string(t, fields[k]);
    bad |= put_text(t, ", \"called\": ") | text_buffer_append(t, called, called_len);
    static const char *const kinds[2] = {", \"self\": {", "}, \"inclusive\": {"};
    for (int k = 0; k < 2; k++) {
        bad |= put_text(t, kinds[k]);
        for (size_t e = 0; e < n; e++) {
            if (e) bad |= put_text(t, ", ");
            bad |= put_json_string(t, cg_event_name(p, events[e])) | put_text(t, ": ") |
                   put_number(t, checked_cost(L, p, rows[k], events[e]));
        }
    }
    return bad | put_text(t, "}}");
}

/* functions_text(prof, events, form) -> the text of `callgrind functions`: every function by
 * decreasing self cost of the first event (ties by name, file and object) with its name, file,
 * object, called count and its self and inclusive cost of each event, exact decimal numbers;
 * form "tsv" (fields escaped), "csv" (RFC 4180) or "json" ({"events": [...], "functions":
 * [{"name", "file", "object", "called", "self": {EV: n}, "inclusive": {EV: n}}, ...]}), written
 * as callgrind.json would write it. functions_text(prof, events, form, out) writes it to `out`
 * instead (a file, or an object with a write method) and returns true, or nil and a message. */
static int l_functions_text(lua_State *L) {
    cg_profile *p = open_profile(L, check_box(L, 1));
    luaL_checktype(L, 2, LUA_TTABLE);
    static const char *const forms[] = {"tsv", "csv", "json", NULL};
    table_form form = (table_form)luaL_checkoption(L, 3, NULL, forms);
    size_t events[CG_MAX_EVENTS], nevents = (size_t)compat_rawlen(L, 2);
    luaL_argcheck(L, nevents > 0 && nevents <= CG_MAX_EVENTS, 2, "a list of events expected");
    read_event_list(L, p, 2, nevents, events);
    lua_settop(L, 4);
    int out = opt_text_output(L, 4, "functions_text: out");
    size_t n = cg_function_count(p);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return luaL_error(L, "out of memory");
    push_collected(L, order, free);
    cg_error err;
    if (cg_rank_functions(p, events[0], 0, 0, SIZE_MAX, order, &err) == CG_NONE)
        return luaL_error(L, "%s", err.message);
    text_buffer *t = push_text_output(L, out);
    int bad = 0;
    if (form == FORM_JSON) {
        bad |= put_text(t, "{\"events\": [");
        for (size_t e = 0; e < nevents; e++)
            bad |= put_text(t, e ? ", " : "") | put_json_string(t, cg_event_name(p, events[e]));
        bad |= put_text(t, "],\n \"functions\": [");
    } else {
        bad |= put_heading(t, p, events, nevents, form);
    }
    for (size_t i = 0; i < n && !bad; i++) {
        if (form == FORM_JSON) bad |= put_text(t, i ? ",\n  " : "\n  ");
        bad |= put_function(L, t, p, order[i], events, nevents, form);
    }
    if (form == FORM_JSON) bad |= put_text(t, n ? "\n ]}\n" : "]}\n");
    if (bad) return text_failed(L, t, "out of memory");
    return push_text_result(L, t);
}

const luaL_Reg rank_functions[] = {
    {"rank", l_rank}, {"functions_text", l_functions_text}, {NULL, NULL}};
