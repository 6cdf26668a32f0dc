/* page.c - what the report page (callgrind.html) takes from the core: core.call_rows, every call
 * record of the profile as a row of numbers, and core.function_rows, every function's name,
 * file, object and costs, as Lua tables or as the JSON text the page embeds, so that no Lua step
 * is taken per call record and no table is encoded per function. */
#include <stdlib.h>
#include <string.h>

#include "../numfmt.h"
#include "binding.h"

typedef struct call_rows_args {
    profile_box *box;
    cg_profile *p;
    size_t *fns;     /* the list's functions, in its order */
    uint32_t *where; /* per function of the profile: its position in the list + 1 (0: absent) */
    size_t events[CG_MAX_EVENTS];
    size_t n, nevents;
} call_rows_args;

/* Reads the arguments: the list of functions (every function of the profile, each once) and
 * the events. The arrays are freed with the collected boxes pushed here. */
static void read_call_rows_args(lua_State *L, call_rows_args *a) {
    a->box = check_box(L, 1);
    a->p = open_profile(L, a->box);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    a->nevents = compat_rawlen(L, 3);
    luaL_argcheck(L, a->nevents <= CG_MAX_EVENTS, 3, "too many events");
    read_event_list(L, a->p, 3, a->nevents, a->events);
    size_t nfns = cg_function_count(a->p);
    a->n = compat_rawlen(L, 2);
    a->fns = malloc((a->n + 1) * sizeof *a->fns);
    if (a->fns) push_collected(L, a->fns, free);
    a->where = calloc(nfns + 1, sizeof *a->where);
    if (a->where) push_collected(L, a->where, free);
    if (!a->fns || !a->where) luaL_error(L, "out of memory");
    for (size_t i = 0; i < a->n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        const handle *h = check_handle(L, -1, UP_FUNCTION);
        luaL_argcheck(L, h->box == a->box, 2, "a function of another profile");
        luaL_argcheck(L, !a->where[h->index], 2, "a function listed twice");
        a->fns[i] = h->index;
        a->where[h->index] = (uint32_t)i + 1;
        lua_pop(L, 1);
    }
}

/* The numbers of call `c` made by the i-th function of the list: caller, callee, count, the
 * inclusive cost of each event, the call site's line (0 without lines). */
static size_t call_numbers(lua_State *L, const call_rows_args *a, size_t i, size_t c,
                           int64_t *out) {
    size_t callee = cg_call_callee(a->p, c);
    if (!a->where[callee])
        luaL_error(L, "the callee %s is not in the list", cg_function_name(a->p, callee));
    size_t k = 0;
    out[k++] = (int64_t)i;
    out[k++] = (int64_t)a->where[callee] - 1;
    out[k++] = (int64_t)cg_call_times(a->p, c);
    for (size_t e = 0; e < a->nevents; e++)
        out[k++] = checked_cost(L, a->p, cg_call_inclusive(a->p, c), a->events[e]);
    out[k++] = cg_positions(a->p) & CG_POS_LINE ? (int64_t)cg_call_line(a->p, c) : 0;
    return k;
}

/* The rows as JSON: [[caller,callee,count,cost...,line],...], numbers as written by hand. */
static void push_call_rows_json(lua_State *L, const call_rows_args *a) {
    text_buffer *t = push_text_buffer(L);
    int64_t numbers[CG_MAX_EVENTS + 4];
    char text[(CG_MAX_EVENTS + 4) * (NUMFMT_MAX + 1) + 4];
    int first = 1;
    if (text_buffer_append(t, "[", 1)) luaL_error(L, "out of memory");
    for (size_t i = 0; i < a->n; i++) {
        size_t fn = a->fns[i];
        for (size_t k = 0, ncalls = cg_function_callee_count(a->p, fn); k < ncalls; k++) {
            size_t count = call_numbers(L, a, i, cg_function_callee(a->p, fn, k), numbers);
            char *q = text;
            if (!first) *q++ = ',';
            first = 0;
            *q++ = '[';
            for (size_t j = 0; j < count; j++) {
                if (j) *q++ = ',';
                /* the count is unsigned: its 64 bits as written */
                q = j == 2 ? put_u64(q, (uint64_t)numbers[j]) : put_i64(q, numbers[j]);
            }
            *q++ = ']';
            if (text_buffer_append(t, text, (size_t)(q - text))) luaL_error(L, "out of memory");
        }
    }
    if (text_buffer_append(t, "]", 1)) luaL_error(L, "out of memory");
    push_text_result(L, t);
}

static void push_call_rows_tables(lua_State *L, const call_rows_args *a) {
    int64_t numbers[CG_MAX_EVENTS + 4];
    lua_newtable(L);
    int row = 0;
    for (size_t i = 0; i < a->n; i++) {
        size_t fn = a->fns[i];
        for (size_t k = 0, ncalls = cg_function_callee_count(a->p, fn); k < ncalls; k++) {
            size_t count = call_numbers(L, a, i, cg_function_callee(a->p, fn, k), numbers);
            lua_createtable(L, (int)count, 0);
            for (size_t j = 0; j < count; j++) {
                if (j == 2)
                    compat_pushuint64(L, (uint64_t)numbers[j]);
                else
                    compat_pushint64(L, numbers[j]);
                lua_rawseti(L, -2, (int)j + 1);
            }
            lua_rawseti(L, -2, ++row);
        }
    }
}

/* call_rows(prof, fns, events[, json]) -> { {caller, callee, count, cost..., line}, ... }: every
 * call of the functions of the list `fns` (all the profile's functions, each once), callers in
 * the list's order and each one's calls in the profile's, caller and callee as their positions
 * in the list from 0, the inclusive cost of each event, the line of the call site (0 without
 * lines); with `json` true, that list as JSON text. */
static int l_call_rows(lua_State *L) {
    int json = lua_toboolean(L, 4);
    lua_settop(L, 4); /* what the arguments' reading pushes comes after them */
    call_rows_args a;
    read_call_rows_args(L, &a);
    if (json)
        push_call_rows_json(L, &a);
    else
        push_call_rows_tables(L, &a);
    return 1;
}

/* ---- functions ---- */

/* The profile's file and object names as indexes into one list, in the order first met. */
typedef struct name_list {
    const char **slot_name;
    uint32_t *slot_index;
    size_t mask, n;
} name_list;

static uint32_t name_index(lua_State *L, name_list *names, int list, const char *name) {
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h ^ (h >> 31)) & names->mask;
    while (names->slot_name[i]) {
        if (names->slot_name[i] == name) return names->slot_index[i];
        i = (i + 1) & names->mask;
    }
    names->slot_name[i] = name;
    names->slot_index[i] = (uint32_t)names->n;
    lua_pushstring(L, name);
    lua_rawseti(L, list, (int)++names->n);
    return (uint32_t)names->n - 1;
}

/* function_rows(prof, fns, events[, json]) -> rows, names: for each function of the list, its
 * name, the index of its file and of its object in `names` (from 0; the names in the order
 * first met, file before object), its called count, its self and its inclusive cost of each
 * event: { {name, file, object, called, {self...}, {inclusive...}}, ... }, or with `json` true,
 * that list as JSON text. */
static int l_function_rows(lua_State *L) {
    int json = lua_toboolean(L, 4);
    lua_settop(L, 4); /* what the arguments' reading pushes comes after them */
    call_rows_args a;
    read_call_rows_args(L, &a);
    name_list names = {NULL, NULL, 0, 0};
    size_t slots = 16;
    while (slots < 4 * a.n + 4) slots *= 2;
    names.slot_name = calloc(slots, sizeof *names.slot_name);
    if (names.slot_name) push_collected(L, (void *)names.slot_name, free);
    names.slot_index = malloc(slots * sizeof *names.slot_index);
    if (names.slot_index) push_collected(L, names.slot_index, free);
    if (!names.slot_name || !names.slot_index) return luaL_error(L, "out of memory");
    names.mask = slots - 1;
    lua_newtable(L);
    int list = lua_gettop(L);
    text_buffer *t = json ? push_text_buffer(L) : NULL;
    if (!json) lua_createtable(L, (int)a.n, 0);
    int rows = lua_gettop(L);
    if (t && text_buffer_append(t, "[", 1)) return luaL_error(L, "out of memory");
    for (size_t i = 0; i < a.n; i++) {
        size_t fn = a.fns[i];
        uint32_t file = name_index(L, &names, list, cg_function_file(a.p, fn));
        uint32_t object = name_index(L, &names, list, cg_function_object(a.p, fn));
        const cg_cost *rows_of[2] = {cg_function_self(a.p, fn), cg_function_inclusive(a.p, fn)};
        if (t) {
            char text[2 * CG_MAX_EVENTS * (NUMFMT_MAX + 1) + 4 * (NUMFMT_MAX + 1) + 8], *q = text;
            if ((i && text_buffer_append(t, ",", 1)) || text_buffer_append(t, "[", 1) ||
                put_json_string(t, cg_function_name(a.p, fn)))
                return luaL_error(L, "out of memory");
            *q++ = ',';
            q = put_u64(q, file);
            *q++ = ',';
            q = put_u64(q, object);
            *q++ = ',';
            q = put_u64(q, cg_function_called(a.p, fn));
            for (int k = 0; k < 2; k++) {
                *q++ = ',';
                *q++ = '[';
                for (size_t e = 0; e < a.nevents; e++) {
                    if (e) *q++ = ',';
                    q = put_i64(q, checked_cost(L, a.p, rows_of[k], a.events[e]));
                }
                *q++ = ']';
            }
            *q++ = ']';
            if (text_buffer_append(t, text, (size_t)(q - text)))
                return luaL_error(L, "out of memory");
            continue;
        }
        lua_createtable(L, 6, 0);
        lua_pushstring(L, cg_function_name(a.p, fn));
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, (lua_Integer)file);
        lua_rawseti(L, -2, 2);
        lua_pushinteger(L, (lua_Integer)object);
        lua_rawseti(L, -2, 3);
        compat_pushuint64(L, cg_function_called(a.p, fn));
        lua_rawseti(L, -2, 4);
        for (int k = 0; k < 2; k++) {
            lua_createtable(L, (int)a.nevents, 0);
            for (size_t e = 0; e < a.nevents; e++) {
                compat_pushint64(L, checked_cost(L, a.p, rows_of[k], a.events[e]));
                lua_rawseti(L, -2, (int)e + 1);
            }
            lua_rawseti(L, -2, 5 + k);
        }
        lua_rawseti(L, rows, (int)i + 1);
    }
    if (t) {
        if (text_buffer_append(t, "]", 1)) return luaL_error(L, "out of memory");
        push_text_result(L, t);
    } else {
        lua_pushvalue(L, rows);
    }
    lua_pushvalue(L, list);
    return 2;
}

const luaL_Reg page_functions[] = {
    {"call_rows", l_call_rows}, {"function_rows", l_function_rows}, {NULL, NULL}};
