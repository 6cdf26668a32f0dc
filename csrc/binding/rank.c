/* rank.c - core.rank: the functions of a profile in order of cost (csrc/rank.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../numfmt.h"
#include "../rank.h"
#include "binding.h"

/* rank(prof, ev, inclusive[, limit]) -> { fn, ... }: the functions by decreasing self (or
 * inclusive) cost of `ev`, ties by name, file and object; at most `limit` of them. */
static int l_rank(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    size_t ev = check_event(L, p, 2);
    int inclusive = lua_toboolean(L, 3);
    lua_Integer limit = luaL_optinteger(L, 4, -1);
    size_t n = cg_function_count(p);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return luaL_error(L, "out of memory");
    push_collected(L, order, free); /* freed even if making the list fails */
    cg_error err;
    if (cg_rank_functions(p, ev, inclusive, order, &err)) return luaL_error(L, "%s", err.message);
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    lua_createtable(L, (int)shown, 0);
    for (size_t i = 0; i < shown; i++) {
        push_function(L, 1, box, order[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

/* A name as a field of tab-separated values: backslash, tab, newline and carriage return as
 * \\, \t, \n and \r. */
static void add_tsv_field(luaL_Buffer *b, const char *s) {
    for (; *s; s++) {
        const char *escape = *s == '\\'   ? "\\\\"
                             : *s == '\t' ? "\\t"
                             : *s == '\n' ? "\\n"
                             : *s == '\r' ? "\\r"
                                          : NULL;
        if (escape)
            luaL_addlstring(b, escape, 2);
        else
            luaL_addchar(b, *s);
    }
}

/* A name as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, a quote or
 * a line break. */
static void add_csv_field(luaL_Buffer *b, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        luaL_addstring(b, s);
        return;
    }
    luaL_addchar(b, '"');
    for (; *s; s++) {
        if (*s == '"') luaL_addchar(b, '"');
        luaL_addchar(b, *s);
    }
    luaL_addchar(b, '"');
}

/* cost_text(prof, fns, events, separator[, names]) -> { text, ... }: for each function of the
 * list, its called count, then its self and inclusive cost of each event, exact decimal numbers
 * joined by `separator`; with names "tsv" or "csv", its name, file and object first, as fields
 * of that format. The rows of `callgrind functions`, made without a Lua string per value. */
static int l_cost_text(lua_State *L) {
    cg_profile *p = open_profile(L, check_box(L, 1));
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t seplen;
    const char *sep = luaL_checklstring(L, 4, &seplen);
    static const char *const name_forms[] = {"none", "tsv", "csv", NULL};
    int names = luaL_checkoption(L, 5, "none", name_forms);
    size_t events[CG_MAX_EVENTS], nevents = (size_t)compat_rawlen(L, 3);
    if (nevents > CG_MAX_EVENTS) return luaL_argerror(L, 3, "too many events");
    for (size_t e = 0; e < nevents; e++) {
        lua_rawgeti(L, 3, (int)e + 1);
        events[e] = check_event(L, p, -1);
        lua_pop(L, 1);
    }
    size_t n = (size_t)compat_rawlen(L, 2);
    lua_createtable(L, (int)n, 0);
    luaL_Buffer b;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        size_t fn = check_handle(L, -1, UP_FUNCTION)->index;
        lua_pop(L, 1);
        luaL_buffinit(L, &b);
        if (names) {
            const char *fields[3] = {cg_function_name(p, fn), cg_function_file(p, fn),
                                     cg_function_object(p, fn)};
            for (int k = 0; k < 3; k++) {
                (names == 1 ? add_tsv_field : add_csv_field)(&b, fields[k]);
                luaL_addlstring(&b, sep, seplen);
            }
        }
        char num[NUMFMT_MAX];
        luaL_addlstring(&b, num, (size_t)(put_u64(num, cg_function_called(p, fn)) - num));
        for (size_t e = 0; e < nevents; e++) {
            const cg_cost *rows[2] = {cg_function_self(p, fn), cg_function_inclusive(p, fn)};
            for (int k = 0; k < 2; k++) {
                luaL_addlstring(&b, sep, seplen);
                int64_t v = checked_cost(L, p, rows[k], events[e]);
                luaL_addlstring(&b, num, (size_t)(put_i64(num, v) - num));
            }
        }
        luaL_pushresult(&b);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

const luaL_Reg rank_functions[] = {{"rank", l_rank}, {"cost_text", l_cost_text}, {NULL, NULL}};
