/* rows.c - core.rows: callgrind_annotate's rows of a listing, summed, sorted and cut in C
 * (cg_rows), handed to Lua as tables for the rows shown only. */
#include <stdint.h>
#include <stdlib.h>

#include "binding.h"

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
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (int)i + 1);
        out[i] = check_event(L, p, -1);
        lua_pop(L, 1);
    }
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

/* rows(prof, {events=, sort=, thresholds=, all=, inclusive=, limit=, merged=}) -> the rows a
 * listing shows, in order: { {key=, file=, name=, object=, functions={fn, ...}, self={ev=n},
 * inclusive={ev=n}, called=, primary=}, ... } with the costs of `events`. */
static int l_rows(lua_State *L) {
    profile_box *pbox = check_box(L, 1);
    cg_profile *p = open_profile(L, pbox);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t events[CG_MAX_EVENTS], sort[CG_MAX_EVENTS];
    double thresholds[CG_MAX_EVENTS];
    size_t nevents = read_events(L, p, "events", events);
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
    int merged = read_flag(L, "merged");
    cg_rows_query q = {sort,
                       nsort,
                       thresholds,
                       read_flag(L, "all"),
                       read_flag(L, "inclusive"),
                       limit >= 0 ? (size_t)limit : SIZE_MAX};
    cg_rows **box = new_rows_box(L);
    cg_error err;
    *box = cg_rows_build(p, merged, &err);
    if (!*box || cg_rows_select(*box, &q, &err)) return luaL_error(L, "%s", err.message);
    size_t shown = cg_rows_shown(*box);
    lua_createtable(L, (int)shown, 0);
    for (size_t k = 0; k < shown; k++) {
        push_row(L, pbox, *box, cg_rows_shown_row(*box, k), events, nevents, merged);
        lua_rawseti(L, -2, (int)k + 1);
    }
    cg_rows_free(*box);
    *box = NULL;
    return 1;
}

const luaL_Reg rows_functions[] = {{"rows", l_rows}, {NULL, NULL}};
