/* exact.c - the forms of obj:exact(name [, event] [, form]) (fields.c finds the value): a 64-bit
 * cost, count or position exactly, where a Lua number may not hold it (Lua 5.1 and LuaJIT have only
 * doubles, exact up to 2^53). The form is "string" (decimal, the default) or "halves": two integers
 * high, low with value = high * 2^32 + low, 0 <= low < 2^32. Every Lua version has it, so scripts
 * that use it run everywhere. */
#include <inttypes.h>
#include <stdio.h>

#include "binding.h"

static int halves_form(lua_State *L, int idx) {
    static const char *const forms[] = {"string", "halves", NULL};
    return luaL_checkoption(L, idx, "string", forms) == 1;
}

/* The value as its decimal text, or as its two halves high, low. */
static int push_form(lua_State *L, const char *text, int64_t high, int64_t low, int form_idx) {
    if (!halves_form(L, form_idx)) {
        lua_pushstring(L, text);
        return 1;
    }
    compat_pushint64(L, high);
    compat_pushint64(L, low);
    return 2;
}

int push_exact_signed(lua_State *L, int64_t v, int form_idx) {
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    uint64_t low = (uint64_t)v & 0xffffffffu;
    /* v - low is a multiple of 2^32 no lower than INT64_MIN (itself one): exact, no overflow */
    int64_t high = (v - (int64_t)low) / ((int64_t)1 << 32);
    return push_form(L, text, high, (int64_t)low, form_idx);
}

int push_exact_unsigned(lua_State *L, uint64_t v, int form_idx) {
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return push_form(L, text, (int64_t)(v >> 32), (int64_t)(v & 0xffffffffu), form_idx);
}

int push_exact_cost(lua_State *L, const cg_profile *p, const cg_cost *row, int event_idx,
                    int form_idx) {
    return push_exact_signed(L, checked_cost(L, p, row, check_event(L, p, event_idx)), form_idx);
}
