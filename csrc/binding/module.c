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

/* Sets a closure over the metatables and the light userdata of `kind` (its UP_STATE). */
static void set_kind_function(lua_State *L, int table, const char *name, lua_CFunction f,
                              const object_kind *kind) {
    for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
    lua_pushlightuserdata(L, (void *)kind);
    lua_pushcclosure(L, f, NUM_TYPES + 1);
    lua_setfield(L, table, name);
}

/* Makes the methods table of a kind (with exact() over its fields), at the top of the stack;
 * it goes to METHODS[name] too, where the Lua layer adds the methods it writes in Lua. */
static void methods_table(lua_State *L, const char *name, const luaL_Reg *methods,
                          const object_kind *kind) {
    lua_newtable(L);
    set_functions(L, lua_gettop(L), methods);
    set_kind_function(L, lua_gettop(L), "exact", object_exact, kind);
    lua_pushvalue(L, -1);
    lua_setfield(L, METHODS, name);
}

/* Fills a handle metatable (at `mt`): __index reads the methods, then the kind's fields. */
static void handle_type(lua_State *L, int mt, const char *name, const luaL_Reg *methods,
                        const object_kind *kind) {
    methods_table(L, name, methods, kind);
    for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
    lua_pushvalue(L, -NUM_TYPES - 1);
    lua_pushlightuserdata(L, (void *)kind);
    lua_pushcclosure(L, object_index, NUM_TYPES + 2); /* methods: UP_STATE, kind: UP_STATE + 1 */
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    set_kind_function(L, mt, "__tostring", object_tostring, kind);
    protect(L, mt);
}

static void profile_type(lua_State *L) {
    methods_table(L, "profile", profile_methods, &profile_kind);
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
    handle_type(L, UP_FUNCTION, "function", function_methods, &function_kind);
    handle_type(L, UP_CALL, "call", call_methods, &call_kind);
    handle_type(L, UP_LINE, "line", line_methods, &line_kind);
    handle_type(L, UP_JUMP, "jump", jump_methods, &jump_kind);
    set_close(L, UP_ITERATION, iteration_close);
    protect(L, UP_ITERATION);
    lua_newtable(L); /* MODULE */
    set_functions(L, MODULE, load_functions);
    set_functions(L, MODULE, async_functions);
    set_functions(L, MODULE, rows_functions);
    set_functions(L, MODULE, rank_functions);
    set_functions(L, MODULE, graph_functions);
    set_functions(L, MODULE, page_functions);
    register_async(L);
    set_functions(L, MODULE, flame_functions);
    set_functions(L, MODULE, write_functions);
    lua_pushliteral(L, CG_VERSION);
    lua_setfield(L, MODULE, "_VERSION");
    lua_pushvalue(L, METHODS);
    lua_setfield(L, MODULE, "methods");
    return 1;
}
