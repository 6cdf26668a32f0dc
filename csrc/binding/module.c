/* module.c - luaopen_callgrind_core: the metatables of the module's objects, their methods and
 * the module table. */
#include "binding.h"

#if defined(__GNUC__)
#define CG_EXPORT __attribute__((visibility("default")))
#else
#define CG_EXPORT
#endif

/* Stack slots while the module opens: the metatables are 1 to NUM_TYPES (in UP_* order, so
 * that set_functions makes closures over them), then these. */
enum { METHODS = NUM_TYPES + 1, MODULE };

static void protect(lua_State *L, int mt) {
    lua_pushliteral(L, "callgrind");
    lua_setfield(L, mt, "__metatable");
}

static void set_close(lua_State *L, int mt, lua_CFunction close) {
    if (!COMPAT_HAS_CLOSE) return;
    const luaL_Reg meta[] = {{"__close", close}, {NULL, NULL}};
    set_functions(L, mt, meta);
}

/* Fills a handle metatable (at `mt`); its methods table goes to METHODS[kind], where the Lua
 * layer adds the methods it writes in Lua. */
static void handle_type(lua_State *L, int mt, const char *kind, const luaL_Reg *methods,
                        lua_CFunction index, lua_CFunction tostring) {
    lua_newtable(L);
    set_functions(L, lua_gettop(L), methods);
    lua_pushvalue(L, -1);
    lua_setfield(L, METHODS, kind);
    for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
    lua_pushvalue(L, -NUM_TYPES - 1);
    lua_pushcclosure(L, index, NUM_TYPES + 1); /* the methods table is its UP_STATE */
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    const luaL_Reg meta[] = {{"__tostring", tostring}, {NULL, NULL}};
    set_functions(L, mt, meta);
    protect(L, mt);
}

static void profile_type(lua_State *L) {
    lua_newtable(L);
    set_functions(L, lua_gettop(L), profile_methods);
    lua_pushvalue(L, -1);
    lua_setfield(L, METHODS, "profile");
    lua_setfield(L, UP_PROFILE, "__index");
    set_functions(L, UP_PROFILE, profile_meta);
    set_close(L, UP_PROFILE, profile_close);
    protect(L, UP_PROFILE);
}

CG_EXPORT int luaopen_callgrind_core(lua_State *L);

CG_EXPORT int luaopen_callgrind_core(lua_State *L) {
    static const char *const names[NUM_TYPES] = {"callgrind.profile", "callgrind.function",
                                                 "callgrind.call",    "callgrind.line",
                                                 "callgrind.jump",    "callgrind.iteration"};
    lua_settop(L, 0);
    for (int i = 0; i < NUM_TYPES; i++) luaL_newmetatable(L, names[i]);
    lua_newtable(L); /* METHODS: the methods of each kind of object */
    profile_type(L);
    handle_type(L, UP_FUNCTION, "function", function_methods, function_index, function_tostring);
    handle_type(L, UP_CALL, "call", call_methods, call_index, call_tostring);
    handle_type(L, UP_LINE, "line", line_methods, line_index, line_tostring);
    handle_type(L, UP_JUMP, "jump", jump_methods, jump_index, jump_tostring);
    set_close(L, UP_ITERATION, iteration_close);
    protect(L, UP_ITERATION);
    lua_newtable(L); /* MODULE */
    set_functions(L, MODULE, load_functions);
    set_functions(L, MODULE, async_functions);
    set_functions(L, MODULE, rows_functions);
    register_async(L);
    set_functions(L, MODULE, flame_functions);
    set_functions(L, MODULE, write_functions);
    lua_pushliteral(L, CG_VERSION);
    lua_setfield(L, MODULE, "_VERSION");
    lua_pushvalue(L, METHODS);
    lua_setfield(L, MODULE, "methods");
    return 1;
}
