/* graph.c - what callgrind.dot takes from the core: core.call_pairs, the calls between a call
 * graph's nodes summed per caller and callee (csrc/pairs.c), since it draws one edge per pair;
 * core.namesakes, the functions that share a name, which its labels tell apart. */
#include <stdlib.h>
#include <string.h>

#include "../report.h"
#include "binding.h"

/* call_pairs(prof, fns[, ev]) -> { {caller = fn, callee = fn, count = n, cost = c}, ... }: the
 * calls between the functions of the list `fns`, summed per pair, the pairs of each function
 * of the list in its order, each in the order of its first call; `cost` is the inclusive cost
 * of event `ev` (0 when nil). */
static int l_call_pairs(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t ev = lua_isnoneornil(L, 3) ? CG_NONE : check_event(L, p, 3);
    size_t n = compat_rawlen(L, 2);
    size_t *fns = malloc((n ? n : 1) * sizeof *fns);
    if (!fns) return luaL_error(L, "out of memory");
    push_collected(L, fns, free); /* freed even if a check below fails */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        const handle *h = check_handle(L, -1, UP_FUNCTION);
        luaL_argcheck(L, h->box == box, 2, "a function of another profile");
        fns[i] = h->index;
        lua_pop(L, 1);
    }
    cg_call_pair *pairs;
    size_t npairs;
    cg_error err;
    if (cg_call_pairs(p, fns, n, ev, &pairs, &npairs, &err))
        return luaL_error(L, "%s", err.message);
    push_collected(L, pairs, free);
    lua_createtable(L, (int)npairs, 0);
    for (size_t i = 0; i < npairs; i++) {
        lua_createtable(L, 0, 4);
        push_function(L, 1, box, pairs[i].caller);
        lua_setfield(L, -2, "caller");
        push_function(L, 1, box, pairs[i].callee);
        lua_setfield(L, -2, "callee");
        compat_pushuint64(L, pairs[i].count);
        lua_setfield(L, -2, "count");
        compat_pushint64(L, pairs[i].cost);
        lua_setfield(L, -2, "cost");
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

/* namesakes(prof) -> { {fn, fn, ...}, ... }: every name that two functions or more share, as
 * the list of its functions in the order first met; the names in strcmp order. A walk over the
 * profile's name order, instead of a Lua table keyed by every name. */
static int l_namesakes(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    size_t n = cg_function_count(p), groups = 0;
    lua_newtable(L);
    for (size_t k = 0; k < n;) {
        size_t first = cg_function_in_name_order(p, k), end = k + 1;
        if (first == CG_NONE) return luaL_error(L, "out of memory");
        const char *name = cg_function_name(p, first);
        while (end < n && strcmp(cg_function_name(p, cg_function_in_name_order(p, end)), name) == 0)
            end++;
        if (end - k > 1) {
            lua_createtable(L, (int)(end - k), 0);
            for (size_t i = k; i < end; i++) {
                push_function(L, 1, box, cg_function_in_name_order(p, i));
                lua_rawseti(L, -2, (int)(i - k) + 1);
            }
            lua_rawseti(L, -2, (int)++groups);
        }
        k = end;
    }
    return 1;
}

const luaL_Reg graph_functions[] = {
    {"call_pairs", l_call_pairs}, {"namesakes", l_namesakes}, {NULL, NULL}};
