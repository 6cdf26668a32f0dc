/* flame.c - core.flame(prof, opts) and core.flame_folded(prof, opts): the frames of a flame graph
 * (cg_flame_build) as Lua tables, and its folded text. The C results live in a collected box
 * while Lua values are made, so that an error there leaks nothing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

typedef struct flame_box {
    cg_flame *flame;
} flame_box;

static int box_gc(lua_State *L) {
    flame_box *b = lua_touserdata(L, 1);
    cg_flame_free(b->flame);
    b->flame = NULL;
    return 0;
}

static flame_box *new_box(lua_State *L) {
    flame_box *b = compat_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    if (luaL_newmetatable(L, "callgrind.flame_box")) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

/* The number in field `key` of the options table, or `fallback`. */
static lua_Number opt_number(lua_State *L, int opts, const char *key, lua_Number fallback) {
    lua_getfield(L, opts, key);
    lua_Number v = fallback;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "option '%s' must be a number", key);
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static size_t opt_count(lua_State *L, int opts, const char *key) {
    lua_Number v = opt_number(L, opts, key, 0);
    if (!(v >= 0 && v < 4294967296.0) || v != (lua_Number)(size_t)v)
        luaL_error(L, "option '%s' must be a whole number from 0", key);
    return (size_t)v;
}

static int opt_flag(lua_State *L, int opts, const char *key) {
    lua_getfield(L, opts, key);
    int v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Builds the flame graph of the profile at 1 with the options at 2 into a new box (pushed). */
static flame_box *build(lua_State *L, cg_profile *p) {
    luaL_checktype(L, 2, LUA_TTABLE);
    cg_flame_options o;
    memset(&o, 0, sizeof o);
    lua_getfield(L, 2, "event");
    o.event = lua_isnil(L, -1) ? 0 : check_event(L, p, lua_gettop(L));
    lua_pop(L, 1);
    if (!cg_event_count(p)) luaL_error(L, "the profile has no events");
    o.min_share = opt_number(L, 2, "min_share", 0);
    if (!(o.min_share >= 0 && o.min_share <= 1))
        luaL_error(L, "option 'min_share' must be a share from 0 to 1");
    o.max_depth = opt_count(L, 2, "max_depth");
    o.max_frames = opt_count(L, 2, "max_frames");
    flame_box *b = new_box(L);
    cg_error err;
    b->flame = cg_flame_build(p, &o, &err);
    if (!b->flame) luaL_error(L, "%s", err.message);
    return b;
}

static void push_exact(lua_State *L, cg_cost v) {
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    lua_pushstring(L, text);
}

static void set_cost(lua_State *L, const char *key, cg_cost v, int exact) {
    compat_pushint64(L, v);
    lua_setfield(L, -2, key);
    if (!exact) return;
    push_exact(L, v);
    lua_pushfstring(L, "%s_exact", key);
    lua_insert(L, -2);
    lua_settable(L, -3);
}

/* core.flame(prof, opts): total, frames. Frames in depth-first order, each
 * {fn = function or nil for [other], parent = index or nil, depth = 1 for roots, self =, total =}
 * with self_exact and total_exact decimal strings when opts.exact is true. */
static int l_flame(lua_State *L) {
    profile_box *pbox = check_box(L, 1);
    cg_profile *p = open_profile(L, pbox);
    int exact = opt_flag(L, 2, "exact");
    flame_box *b = build(L, p);
    const cg_flame *f = b->flame;
    size_t n = cg_flame_frame_count(f);
    compat_pushint64(L, cg_flame_total(f));
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 5);
        size_t fn = cg_flame_frame_function(f, i), parent = cg_flame_frame_parent(f, i);
        if (fn != CG_NONE) {
            push_function(L, 1, pbox, fn);
            lua_setfield(L, -2, "fn");
        }
        if (parent != CG_NONE) {
            lua_pushinteger(L, (lua_Integer)parent + 1);
            lua_setfield(L, -2, "parent");
        }
        lua_pushinteger(L, (lua_Integer)cg_flame_frame_depth(f, i) + 1);
        lua_setfield(L, -2, "depth");
        set_cost(L, "self", cg_flame_frame_self(f, i), exact);
        set_cost(L, "total", cg_flame_frame_total(f, i), exact);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 2;
}

/* core.flame_folded(prof, opts): the folded text; opts.file and opts.object add the function's
 * file and object to each frame, opts.prefix is a first frame on every line. */
static int l_flame_folded(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    unsigned label = (opt_flag(L, 2, "file") ? CG_FLAME_FILE : 0u) |
                     (opt_flag(L, 2, "object") ? CG_FLAME_OBJECT : 0u);
    lua_getfield(L, 2, "prefix");
    const char *prefix = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    flame_box *b = build(L, p);
    text_buffer *t = push_text_buffer(L);
    cg_error err;
    if (cg_flame_write_folded(b->flame, label, prefix, text_buffer_append, t, &err))
        return luaL_error(L, "%s", err.message);
    push_text_result(L, t);
    return 1;
}

const luaL_Reg flame_functions[] = {
    {"flame", l_flame}, {"flame_folded", l_flame_folded}, {NULL, NULL}};
