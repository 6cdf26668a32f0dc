/* handles.c - the methods of functions, calls and lines that read costs; their fields, exact
 * values and printed forms are in fields.c. */
#include "binding.h"

static int function_self(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    cg_profile *p = handle_profile(L, h);
    return push_cost(L, p, cg_function_self(p, h->index), check_event(L, p, 2));
}

static int function_inclusive(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    cg_profile *p = handle_profile(L, h);
    return push_cost(L, p, cg_function_inclusive(p, h->index), check_event(L, p, 2));
}

static int call_inclusive(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    cg_profile *p = handle_profile(L, h);
    return push_cost(L, p, cg_call_inclusive(p, h->index), check_event(L, p, 2));
}

static int line_cost(lua_State *L) {
    line_value *v = check_line(L, 1);
    cg_profile *p = open_profile(L, v->box);
    return push_cost(L, p, v->costs, check_event(L, p, 2));
}

/* fn:line_costs(ev [, file]): { [file] = { [line] = self cost } } of this function's records
 * (inlined code under its header's name), for one event; only `file` when given. */
static int function_line_costs(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    cg_profile *p = handle_profile(L, h);
    size_t ev = check_event(L, p, 2);
    const char *only = luaL_optstring(L, 3, NULL);
    return push_line_costs(L, p, ev, only, h->index, h->index + 1);
}

/* exact() is added to each table by module.c, with the kind's fields */
const luaL_Reg function_methods[] = {{"self", function_self},
                                     {"inclusive", function_inclusive},
                                     {"callers", function_callers},
                                     {"callees", function_callees},
                                     {"lines", function_lines},
                                     {"jumps", function_jumps},
                                     {"jumps_in", function_jumps_in},
                                     {"line_costs", function_line_costs},
                                     {NULL, NULL}};
const luaL_Reg call_methods[] = {{"inclusive", call_inclusive}, {NULL, NULL}};
const luaL_Reg line_methods[] = {{"cost", line_cost}, {NULL, NULL}};
const luaL_Reg jump_methods[] = {{NULL, NULL}};
