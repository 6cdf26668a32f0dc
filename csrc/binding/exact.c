/* exact.c - obj:exact(name [, event] [, form]): a 64-bit cost, count or position exactly, where
 * a Lua number may not hold it (Lua 5.1 and LuaJIT have only doubles, exact up to 2^53). The
 * form is "string" (decimal, the default) or "halves": two integers high, low with
 * value = high * 2^32 + low, 0 <= low < 2^32. Every Lua version has it, so scripts that use it
 * run everywhere. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

static int halves_form(lua_State *L, int idx) {
    static const char *const forms[] = {"string", "halves", NULL};
    return luaL_checkoption(L, idx, "string", forms) == 1;
}

static int push_signed(lua_State *L, int64_t v, int form_idx) {
    if (!halves_form(L, form_idx)) {
        char text[24];
        snprintf(text, sizeof text, "%" PRId64, v);
        lua_pushstring(L, text);
        return 1;
    }
    uint64_t low = (uint64_t)v & 0xffffffffu;
    /* v - low is a multiple of 2^32 no lower than INT64_MIN (itself one): exact, no overflow */
    int64_t high = (v - (int64_t)low) / ((int64_t)1 << 32);
    compat_pushint64(L, high);
    compat_pushint64(L, (int64_t)low);
    return 2;
}

static int push_unsigned(lua_State *L, uint64_t v, int form_idx) {
    if (!halves_form(L, form_idx)) {
        char text[24];
        snprintf(text, sizeof text, "%" PRIu64, v);
        lua_pushstring(L, text);
        return 1;
    }
    compat_pushint64(L, (int64_t)(v >> 32));
    compat_pushint64(L, (int64_t)(v & 0xffffffffu));
    return 2;
}

/* The cost of the event at argument 3 in `row`; the form is argument 4. */
static int exact_cost(lua_State *L, const cg_profile *p, const cg_cost *row) {
    size_t ev = check_event(L, p, 3);
    cg_cost v;
    if (cg_cost_of(p, row, ev, &v) != CG_OK)
        return luaL_error(L, "the cost of event '%s' does not fit in 64 bits",
                          cg_event_name(p, ev));
    return push_signed(L, v, 4);
}

/* A line number or address, nil where the profile has no such position; the form is
 * argument 3. */
static int exact_position(lua_State *L, const cg_profile *p, unsigned kind, uint64_t v) {
    if (!(cg_positions(p) & kind)) {
        lua_pushnil(L);
        return 1;
    }
    return push_unsigned(L, v, 3);
}

static int unknown(lua_State *L, const char *name, const char *object, const char *known) {
    return luaL_error(L, "no exact value '%s' for a %s (known: %s)", name, object, known);
}

int profile_exact(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    const char *name = luaL_checkstring(L, 2);
    if (!strcmp(name, "total")) return exact_cost(L, p, cg_total_costs(p));
    return unknown(L, name, "profile", "total");
}

int function_exact(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    cg_profile *p = handle_profile(L, h);
    const char *name = luaL_checkstring(L, 2);
    if (!strcmp(name, "self")) return exact_cost(L, p, cg_function_self(p, h->index));
    if (!strcmp(name, "inclusive")) return exact_cost(L, p, cg_function_inclusive(p, h->index));
    if (!strcmp(name, "called")) return push_unsigned(L, cg_function_called(p, h->index), 3);
    return unknown(L, name, "function", "self, inclusive, called");
}

int call_exact(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    cg_profile *p = handle_profile(L, h);
    const char *name = luaL_checkstring(L, 2);
    size_t c = h->index;
    if (!strcmp(name, "inclusive")) return exact_cost(L, p, cg_call_inclusive(p, c));
    if (!strcmp(name, "count")) return push_unsigned(L, cg_call_times(p, c), 3);
    if (!strcmp(name, "line")) return exact_position(L, p, CG_POS_LINE, cg_call_line(p, c));
    if (!strcmp(name, "addr")) return exact_position(L, p, CG_POS_INSTR, cg_call_addr(p, c));
    if (!strcmp(name, "target_line"))
        return exact_position(L, p, CG_POS_LINE, cg_call_target_line(p, c));
    if (!strcmp(name, "target_addr"))
        return exact_position(L, p, CG_POS_INSTR, cg_call_target_addr(p, c));
    return unknown(L, name, "call", "inclusive, count, line, addr, target_line, target_addr");
}

int line_exact(lua_State *L) {
    line_value *v = check_line(L, 1);
    cg_profile *p = open_profile(L, v->box);
    const char *name = luaL_checkstring(L, 2);
    if (!strcmp(name, "cost")) return exact_cost(L, p, v->costs);
    if (!strcmp(name, "line")) return exact_position(L, p, CG_POS_LINE, v->line);
    if (!strcmp(name, "addr")) return exact_position(L, p, CG_POS_INSTR, v->addr);
    return unknown(L, name, "line", "cost, line, addr");
}

int jump_exact(lua_State *L) {
    handle *h = check_handle(L, 1, UP_JUMP);
    cg_profile *p = handle_profile(L, h);
    const char *name = luaL_checkstring(L, 2);
    size_t j = h->index;
    if (!strcmp(name, "executed")) return push_unsigned(L, cg_jump_executed(p, j), 3);
    if (!strcmp(name, "taken")) return push_unsigned(L, cg_jump_taken(p, j), 3);
    if (!strcmp(name, "from_line"))
        return exact_position(L, p, CG_POS_LINE, cg_jump_from_line(p, j));
    if (!strcmp(name, "from_addr"))
        return exact_position(L, p, CG_POS_INSTR, cg_jump_from_addr(p, j));
    if (!strcmp(name, "to_line")) return exact_position(L, p, CG_POS_LINE, cg_jump_to_line(p, j));
    if (!strcmp(name, "to_addr")) return exact_position(L, p, CG_POS_INSTR, cg_jump_to_addr(p, j));
    return unknown(L, name, "jump", "executed, taken, from_line, from_addr, to_line, to_addr");
}
