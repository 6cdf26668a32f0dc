/* luacompat.h - every difference between Lua 5.1 (and LuaJIT), 5.2, 5.3 and 5.4 that the
 * binding meets, in one place. */
#ifndef CG_LUACOMPAT_H
#define CG_LUACOMPAT_H

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

#if LUA_VERSION_NUM >= 504
#define compat_newuserdata(L, size) lua_newuserdatauv((L), (size), 1)
#define compat_setuservalue(L, idx) lua_setiuservalue((L), (idx), 1)
#define compat_getuservalue(L, idx) ((void)lua_getiuservalue((L), (idx), 1))
#elif LUA_VERSION_NUM >= 502
#define compat_newuserdata(L, size) lua_newuserdata((L), (size))
#define compat_setuservalue(L, idx) lua_setuservalue((L), (idx))
#define compat_getuservalue(L, idx) ((void)lua_getuservalue((L), (idx)))
#else
/* 5.1 and LuaJIT: a userdata's environment table plays the user value (always a table here) */
#define compat_newuserdata(L, size) lua_newuserdata((L), (size))
#define compat_setuservalue(L, idx) ((void)lua_setfenv((L), (idx)))
#define compat_getuservalue(L, idx) lua_getfenv((L), (idx))
#endif

#if LUA_VERSION_NUM >= 502
#define compat_rawlen(L, idx) lua_rawlen((L), (idx))
#else
#define compat_rawlen(L, idx) lua_objlen((L), (idx))
#endif

/* Counts and costs: exact integers on 5.3+; numbers (exact up to 2^53) before. */
#if LUA_VERSION_NUM >= 503
#define compat_pushint64(L, v) lua_pushinteger((L), (lua_Integer)(v))
static inline int compat_isinteger(lua_State *L, int idx) {
    return lua_isinteger(L, idx);
}
static inline int64_t compat_toint64(lua_State *L, int idx) {
    return (int64_t)lua_tointeger(L, idx);
}
#else
#define compat_pushint64(L, v) lua_pushnumber((L), (lua_Number)(v))
/* A number with an integral value in int64_t's range (the cast is undefined outside it). */
static inline int compat_isinteger(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TNUMBER) return 0;
    lua_Number n = lua_tonumber(L, idx);
    return n >= -9223372036854775808.0 && n < 9223372036854775808.0 && n == (lua_Number)(int64_t)n;
}
/* Exact for values compat_isinteger accepts; others are clamped to int64_t's range. */
static inline int64_t compat_toint64(lua_State *L, int idx) {
    lua_Number n = lua_tonumber(L, idx);
    if (n >= 9223372036854775807.0) return INT64_MAX;
    if (n <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)n;
}
#endif

/* Unsigned 64-bit values (call counts, addresses): beyond INT64_MAX they read as negative
 * integers on 5.3+, as Lua's own unsigned arithmetic does (compare them with math.ult). */
#if LUA_VERSION_NUM >= 503
#define compat_pushuint64(L, v) lua_pushinteger((L), (lua_Integer)(v))
#else
#define compat_pushuint64(L, v) lua_pushnumber((L), (lua_Number)(v))
#endif

/* To-be-closed variables (__close) and the generic for's fourth value, its closing value. */
#if LUA_VERSION_NUM >= 504
#define COMPAT_HAS_CLOSE 1
#else
#define COMPAT_HAS_CLOSE 0
#endif

#pragma GCC visibility pop

#endif
