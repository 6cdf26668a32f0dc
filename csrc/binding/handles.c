/* handles.c - functions, calls, lines and jumps: their fields, costs and printed forms. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* Decimal text of a 64-bit number, for printed forms (lua_pushfstring has no 64-bit format). */
typedef struct number_text {
    char s[24];
} number_text;

static number_text text_of(uint64_t v) {
    number_text t;
    snprintf(t.s, sizeof t.s, "%" PRIu64, v);
    return t;
}

int function_index(lua_State *L) {
    handle *h = lua_touserdata(L, 1); /* __index: only reached through the metatable */
    if (index_method(L)) return 1;
    cg_profile *p = handle_profile(L, h);
    const char *key = lua_tostring(L, 2);
    size_t fn = h->index;
    if (!key) return 0;
    if (!strcmp(key, "name"))
        lua_pushstring(L, cg_function_name(p, fn));
    else if (!strcmp(key, "file"))
        lua_pushstring(L, cg_function_file(p, fn));
    else if (!strcmp(key, "object"))
        lua_pushstring(L, cg_function_object(p, fn));
    else if (!strcmp(key, "called"))
        compat_pushuint64(L, cg_function_called(p, fn));
    else if (!strcmp(key, "id"))
        lua_pushinteger(L, (lua_Integer)fn + 1);
    else if (!strcmp(key, "cycle")) {
        size_t c = cg_function_cycle(p, fn);
        if (c == CG_NONE) return 0;
        lua_pushstring(L, cg_cycle_name(p, c));
    } else
        return 0;
    return 1;
}

int function_tostring(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    if (!h->box->p) {
        lua_pushstring(L, "callgrind function (profile closed)");
        return 1;
    }
    cg_profile *p = h->box->p;
    const char *object = cg_function_object(p, h->index);
    lua_pushfstring(L, "%s (%s%s%s)", cg_function_name(p, h->index), cg_function_file(p, h->index),
                    *object ? ", " : "", object);
    return 1;
}

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

int call_index(lua_State *L) {
    handle *h = lua_touserdata(L, 1); /* __index: only reached through the metatable */
    if (index_method(L)) return 1;
    cg_profile *p = handle_profile(L, h);
    const char *key = lua_tostring(L, 2);
    size_t c = h->index;
    if (!key) return 0;
    if (!strcmp(key, "caller"))
        push_function(L, 1, h->box, cg_call_caller(p, c));
    else if (!strcmp(key, "callee"))
        push_function(L, 1, h->box, cg_call_callee(p, c));
    else if (!strcmp(key, "count"))
        compat_pushuint64(L, cg_call_times(p, c));
    else if (!strcmp(key, "file"))
        lua_pushstring(L, cg_call_file(p, c));
    else if (!strcmp(key, "line"))
        push_line_number(L, p, cg_call_line(p, c));
    else if (!strcmp(key, "addr"))
        push_addr(L, p, cg_call_addr(p, c));
    else if (!strcmp(key, "target_line"))
        push_line_number(L, p, cg_call_target_line(p, c));
    else if (!strcmp(key, "target_addr"))
        push_addr(L, p, cg_call_target_addr(p, c));
    else
        return 0;
    return 1;
}

int call_tostring(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    if (!h->box->p) {
        lua_pushstring(L, "callgrind call (profile closed)");
        return 1;
    }
    cg_profile *p = h->box->p;
    lua_pushfstring(
        L, "call %s -> %s (%s times at %s:%s)", cg_function_name(p, cg_call_caller(p, h->index)),
        cg_function_name(p, cg_call_callee(p, h->index)), text_of(cg_call_times(p, h->index)).s,
        cg_call_file(p, h->index), text_of(cg_call_line(p, h->index)).s);
    return 1;
}

static int call_inclusive(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    cg_profile *p = handle_profile(L, h);
    return push_cost(L, p, cg_call_inclusive(p, h->index), check_event(L, p, 2));
}

int line_index(lua_State *L) {
    line_value *v = lua_touserdata(L, 1); /* __index: only reached through the metatable */
    if (index_method(L)) return 1;
    cg_profile *p = open_profile(L, v->box);
    const char *key = lua_tostring(L, 2);
    if (!key) return 0;
    if (!strcmp(key, "file"))
        lua_pushstring(L, v->file);
    else if (!strcmp(key, "line"))
        push_line_number(L, p, v->line);
    else if (!strcmp(key, "addr"))
        push_addr(L, p, v->addr);
    else if (!strcmp(key, "function"))
        push_function(L, 1, v->box, v->fn);
    else
        return 0;
    return 1;
}

int line_tostring(lua_State *L) {
    line_value *v = check_line(L, 1);
    if (!v->box->p) {
        lua_pushstring(L, "callgrind line (profile closed)");
        return 1;
    }
    cg_profile *p = v->box->p;
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)v->addr);
    lua_pushfstring(L, "line %s:%s%s%s", v->file, text_of(v->line).s,
                    (cg_positions(p) & CG_POS_INSTR) ? " at " : "",
                    (cg_positions(p) & CG_POS_INSTR) ? addr : "");
    return 1;
}

static int line_cost(lua_State *L) {
    line_value *v = check_line(L, 1);
    cg_profile *p = open_profile(L, v->box);
    return push_cost(L, p, v->costs, check_event(L, p, 2));
}

int jump_index(lua_State *L) {
    handle *h = lua_touserdata(L, 1); /* __index: only reached through the metatable */
    if (index_method(L)) return 1;
    cg_profile *p = handle_profile(L, h);
    const char *key = lua_tostring(L, 2);
    size_t j = h->index;
    if (!key) return 0;
    if (!strcmp(key, "from_file"))
        lua_pushstring(L, cg_jump_from_file(p, j));
    else if (!strcmp(key, "from_line"))
        push_line_number(L, p, cg_jump_from_line(p, j));
    else if (!strcmp(key, "from_addr"))
        push_addr(L, p, cg_jump_from_addr(p, j));
    else if (!strcmp(key, "to_file"))
        lua_pushstring(L, cg_jump_to_file(p, j));
    else if (!strcmp(key, "to_line"))
        push_line_number(L, p, cg_jump_to_line(p, j));
    else if (!strcmp(key, "to_addr"))
        push_addr(L, p, cg_jump_to_addr(p, j));
    else if (!strcmp(key, "executed"))
        compat_pushuint64(L, cg_jump_executed(p, j));
    else if (!strcmp(key, "taken"))
        compat_pushuint64(L, cg_jump_taken(p, j));
    else if (!strcmp(key, "conditional"))
        lua_pushboolean(L, cg_jump_conditional(p, j));
    else if (!strcmp(key, "function"))
        push_function(L, 1, h->box, cg_jump_function(p, j));
    else if (!strcmp(key, "to_function"))
        push_function(L, 1, h->box, cg_jump_to_function(p, j));
    else
        return 0;
    return 1;
}

int jump_tostring(lua_State *L) {
    handle *h = check_handle(L, 1, UP_JUMP);
    if (!h->box->p) {
        lua_pushstring(L, "callgrind jump (profile closed)");
        return 1;
    }
    cg_profile *p = h->box->p;
    size_t j = h->index;
    lua_pushfstring(L, "%s %s:%s -> %s:%s (%s/%s)", cg_jump_conditional(p, j) ? "jcnd" : "jump",
                    cg_jump_from_file(p, j), text_of(cg_jump_from_line(p, j)).s,
                    cg_jump_to_file(p, j), text_of(cg_jump_to_line(p, j)).s,
                    text_of(cg_jump_taken(p, j)).s, text_of(cg_jump_executed(p, j)).s);
    return 1;
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

const luaL_Reg function_methods[] = {{"self", function_self},
                                     {"inclusive", function_inclusive},
                                     {"callers", function_callers},
                                     {"callees", function_callees},
                                     {"lines", function_lines},
                                     {"jumps", function_jumps},
                                     {"jumps_in", function_jumps_in},
                                     {"exact", function_exact},
                                     {"line_costs", function_line_costs},
                                     {NULL, NULL}};
const luaL_Reg call_methods[] = {
    {"inclusive", call_inclusive}, {"exact", call_exact}, {NULL, NULL}};
const luaL_Reg line_methods[] = {{"cost", line_cost}, {"exact", line_exact}, {NULL, NULL}};
const luaL_Reg jump_methods[] = {{"exact", jump_exact}, {NULL, NULL}};
