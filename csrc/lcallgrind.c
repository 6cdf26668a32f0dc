/* lcallgrind.c - the Lua module callgrind.core: the C model as userdata. Nothing here parses or
 * computes; it only exposes callgrind.h.
 *
 * Every profile has an anchor table (its user value): [1] is the profile itself, [2] caches
 * function handles so that the same function is always the same Lua value. Every handle
 * (function, call, line, jump) has that anchor as its user value, which keeps the profile alive
 * while any handle exists. A closed profile keeps its box with a NULL model; handles check it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "luacompat.h"

#define PROFILE_MT "callgrind.profile"
#define FUNCTION_MT "callgrind.function"
#define CALL_MT "callgrind.call"
#define LINE_MT "callgrind.line"
#define JUMP_MT "callgrind.jump"

enum { ANCHOR_PROFILE = 1, ANCHOR_FUNCTIONS = 2 };

/* Every C function of the module carries the five metatables as its first upvalues, so that
 * checking and making objects needs no registry lookup; closures keep their own state after
 * them, from UP_STATE on. */
enum { UP_PROFILE = 1, UP_FUNCTION, UP_CALL, UP_LINE, UP_JUMP, UP_STATE };
#define NUM_TYPES 5
#define MT(slot) lua_upvalueindex(slot)

/* Pushes the metatables, to make a closure that carries them too. */
static void push_types(lua_State *L) {
    for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, MT(i));
}

/* The userdata at idx when its metatable is the one in upvalue `slot`, else an argument error. */
static void *check_type(lua_State *L, int idx, int slot, const char *what) {
    void *p = lua_touserdata(L, idx);
    if (p && lua_getmetatable(L, idx)) {
        int same = lua_rawequal(L, -1, MT(slot));
        lua_pop(L, 1);
        if (same) return p;
    }
    luaL_argerror(L, idx, what);
    return NULL;
}

typedef struct profile_box {
    cg_profile *p;
} profile_box;

typedef struct handle {
    profile_box *box;
    size_t index;
} handle;

static int absindex(lua_State *L, int idx) {
    return idx > 0 || idx <= LUA_REGISTRYINDEX ? idx : lua_gettop(L) + idx + 1;
}

static profile_box *check_box(lua_State *L, int idx) {
    return check_type(L, idx, UP_PROFILE, "callgrind profile expected");
}

static cg_profile *open_profile(lua_State *L, profile_box *box) {
    if (!box->p) luaL_error(L, "the profile is closed");
    return box->p;
}

static cg_profile *check_profile(lua_State *L, int idx) {
    return open_profile(L, check_box(L, idx));
}

static handle *check_handle(lua_State *L, int idx, int slot) {
    static const char *const what[] = {"",
                                       "",
                                       "callgrind function expected",
                                       "callgrind call expected",
                                       "",
                                       "callgrind jump expected"};
    return check_type(L, idx, slot, what[slot]);
}

/* Pushes a new handle that shares the user value (anchor) of the userdata at `owner`. */
static handle *push_handle(lua_State *L, int owner, int slot, profile_box *box, size_t index) {
    owner = absindex(L, owner);
    handle *h = compat_newuserdata(L, sizeof *h);
    h->box = box;
    h->index = index;
    lua_pushvalue(L, MT(slot));
    lua_setmetatable(L, -2);
    compat_getuservalue(L, owner);
    compat_setuservalue(L, -2);
    return h;
}

/* Function handles are cached in the anchor, so one function is one Lua value. */
static void push_function(lua_State *L, int owner, profile_box *box, size_t fn) {
    owner = absindex(L, owner);
    compat_getuservalue(L, owner);
    lua_rawgeti(L, -1, ANCHOR_FUNCTIONS);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, ANCHOR_FUNCTIONS);
    }
    lua_rawgeti(L, -1, (int)fn + 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        push_handle(L, owner, UP_FUNCTION, box, fn);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, (int)fn + 1);
    }
    lua_replace(L, -3);
    lua_pop(L, 1);
}

/* ---- events and costs ---- */

static size_t check_event(lua_State *L, const cg_profile *p, int idx) {
    size_t n = cg_event_count(p);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, idx);
        if (v >= 1 && v <= (lua_Number)n && v == (lua_Number)(size_t)v) return (size_t)v - 1;
        luaL_error(L, "event index %f out of range (1 to %d)", (double)v, (int)n);
    }
    const char *name = luaL_checkstring(L, idx);
    size_t ev = cg_event_index(p, name);
    if (ev != CG_NONE) return ev;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < n; i++) {
        if (i) luaL_addstring(&b, ", ");
        luaL_addstring(&b, cg_event_name(p, i));
    }
    luaL_pushresult(&b);
    return (size_t)luaL_error(L, "unknown event '%s' (known: %s)", name, lua_tostring(L, -1));
}

static int push_cost(lua_State *L, const cg_profile *p, const cg_cost *row, size_t ev) {
    cg_cost v;
    if (cg_cost_of(p, row, ev, &v) != CG_OK)
        return luaL_error(L, "the cost of event '%s' does not fit in 64 bits",
                          cg_event_name(p, ev));
    compat_pushint64(L, v);
    return 1;
}

/* A table { event name = cost } of a row, for summaries and totals. */
static void push_cost_table(lua_State *L, const cg_profile *p, const cg_cost *row) {
    lua_newtable(L);
    for (size_t i = 0; i < cg_raw_event_count(p); i++) {
        compat_pushint64(L, row[i]);
        lua_setfield(L, -2, cg_event_name(p, i));
    }
}

/* ---- loading ---- */

typedef struct progress_ctx {
    lua_State *L;
    int fn;      /* stack index of the Lua callback */
    int errored; /* the callback raised: its error is on top of the stack */
} progress_ctx;

static int call_progress(void *ud, uint64_t done, uint64_t total) {
    progress_ctx *ctx = ud;
    lua_State *L = ctx->L;
    lua_pushvalue(L, ctx->fn);
    compat_pushint64(L, done);
    compat_pushint64(L, total);
    if (lua_pcall(L, 2, 1, 0) != 0) {
        ctx->errored = 1;
        return 1;
    }
    int stop = lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1);
    lua_pop(L, 1);
    return stop;
}

static const char *error_kind(int code) {
    switch (code) {
    case CG_ERR_FORMAT:
        return "format";
    case CG_ERR_IO:
        return "io";
    case CG_ERR_NOMEM:
        return "memory";
    case CG_ERR_ABORTED:
        return "aborted";
    case CG_ERR_OVERFLOW:
        return "overflow";
    default:
        return "usage";
    }
}

/* Reads the options table at `idx` (strict, progress, max_warnings). */
static void read_options(lua_State *L, int idx, cg_options *opts, progress_ctx *ctx) {
    memset(opts, 0, sizeof *opts);
    ctx->L = L;
    ctx->fn = 0;
    ctx->errored = 0;
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "strict");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TBOOLEAN, idx, "opts.strict must be a boolean");
        opts->tolerant = !lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    lua_getfield(L, idx, "max_warnings");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1, idx,
                      "opts.max_warnings must be a positive number");
        opts->max_warnings = (size_t)lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    static const char *const selectors[] = {"section", "part", "thread"};
    for (size_t i = 0; i < 3; i++) {
        lua_getfield(L, idx, selectors[i]);
        if (!lua_isnil(L, -1)) {
            lua_Number v = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || v < 1 || v != (lua_Number)(uint64_t)v)
                luaL_error(L, "opts.%s must be a positive integer", selectors[i]);
            if (i == 0)
                opts->section = (size_t)v;
            else if (i == 1)
                opts->part = (uint64_t)v;
            else
                opts->thread = (uint64_t)v;
        }
        lua_pop(L, 1);
    }
    lua_getfield(L, idx, "progress");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TFUNCTION, idx, "opts.progress must be a function");
        ctx->fn = lua_gettop(L); /* stays on the stack for the whole load */
        opts->progress = call_progress;
        opts->progress_userdata = ctx;
        luaL_checkstack(L, 8, "progress callback");
    } else {
        lua_pop(L, 1);
    }
}

/* Creates the profile userdata (empty box, anchor table) before loading, so a model handed
 * over by the loader is owned by the garbage collector at once. */
static profile_box *new_profile_box(lua_State *L) {
    profile_box *box = compat_newuserdata(L, sizeof *box);
    box->p = NULL;
    lua_pushvalue(L, MT(UP_PROFILE));
    lua_setmetatable(L, -2);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, ANCHOR_PROFILE);
    compat_setuservalue(L, -2);
    return box;
}

static int load_result(lua_State *L, profile_box *box, cg_profile *p, const cg_error *err,
                       const progress_ctx *ctx) {
    if (p) {
        box->p = p;
        return 1;
    }
    if (ctx->errored) return lua_error(L); /* the callback's own error, on top of the stack */
    lua_pushnil(L);
    lua_pushstring(L, err->message);
    lua_pushstring(L, error_kind(err->code));
    return 3;
}

/* load(path | {path, ...} [, opts]) */
static int l_load(lua_State *L) {
    int many = lua_type(L, 1) == LUA_TTABLE;
    size_t n = 1;
    if (many) {
        n = compat_rawlen(L, 1);
        luaL_argcheck(L, n > 0, 1, "empty list of paths");
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, 1, (int)i);
            if (lua_type(L, -1) != LUA_TSTRING) return luaL_argerror(L, 1, "paths must be strings");
            lua_pop(L, 1);
        }
    } else if (lua_type(L, 1) != LUA_TSTRING) {
        return luaL_argerror(L, 1, "a path or a list of paths expected");
    }
    cg_options opts;
    progress_ctx ctx;
    read_options(L, 2, &opts, &ctx);
    profile_box *box = new_profile_box(L);
    luaL_checkstack(L, 4, "load");
    /* from here to cg_loader_finish nothing may raise: the loader is not collectable */
    cg_error err;
    cg_loader *ld = cg_loader_new(&opts, &err);
    if (!ld) return load_result(L, box, NULL, &err, &ctx);
    for (size_t i = 1; i <= n; i++) {
        const char *path;
        if (many) {
            lua_rawgeti(L, 1, (int)i);
            path = lua_tostring(L, -1);
        } else {
            path = lua_tostring(L, 1);
        }
        int rc = cg_loader_add_file(ld, path, &err);
        if (many && !ctx.errored) lua_pop(L, 1);
        if (rc) {
            cg_loader_free(ld);
            return load_result(L, box, NULL, &err, &ctx);
        }
    }
    cg_profile *p = cg_loader_finish(ld, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* parse(text [, name [, opts]]) */
static int l_parse(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "(string)");
    cg_options opts;
    progress_ctx ctx;
    read_options(L, 3, &opts, &ctx);
    profile_box *box = new_profile_box(L);
    luaL_checkstack(L, 4, "parse");
    cg_error err;
    cg_profile *p = cg_load_buffer(text, len, name, &opts, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* combine({prof, ...} [, {weight, ...}]): the weighted sum of loaded profiles */
static int l_combine(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = compat_rawlen(L, 1);
    luaL_argcheck(L, n > 0, 1, "empty list of profiles");
    int weighted = !lua_isnoneornil(L, 2);
    if (weighted) {
        luaL_checktype(L, 2, LUA_TTABLE);
        luaL_argcheck(L, compat_rawlen(L, 2) == n, 2, "one weight per profile expected");
    }
    /* arrays owned by the garbage collector, so that an error below leaks nothing */
    const cg_profile **list = compat_newuserdata(L, n * sizeof *list);
    int64_t *weights = compat_newuserdata(L, n * sizeof *weights);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, (int)i);
        profile_box *box = lua_touserdata(L, -1);
        int ok = box && lua_getmetatable(L, -1) && lua_rawequal(L, -1, MT(UP_PROFILE));
        if (box && ok) lua_pop(L, 1);
        if (!ok) return luaL_argerror(L, 1, "profiles expected");
        list[i - 1] = open_profile(L, box);
        lua_pop(L, 1);
        weights[i - 1] = 1;
        if (weighted) {
            lua_rawgeti(L, 2, (int)i);
            if (!compat_isinteger(L, -1)) return luaL_argerror(L, 2, "integer weights expected");
            weights[i - 1] = (int64_t)lua_tonumber(L, -1);
#if LUA_VERSION_NUM >= 503
            weights[i - 1] = (int64_t)lua_tointeger(L, -1);
#endif
            lua_pop(L, 1);
        }
    }
    profile_box *box = new_profile_box(L);
    cg_error err;
    progress_ctx ctx = {L, 0, 0};
    cg_profile *p = cg_profile_combine(list, weights, n, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* select(prof, keep [, dropped_name]): keep[fn.id] true keeps a function */
static int l_select(lua_State *L) {
    cg_profile *src = check_profile(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *dropped = luaL_optstring(L, 3, NULL);
    size_t n = cg_function_count(src);
    unsigned char *keep = compat_newuserdata(L, n ? n : 1);
    for (size_t f = 0; f < n; f++) {
        lua_rawgeti(L, 2, (int)f + 1);
        keep[f] = (unsigned char)lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    profile_box *box = new_profile_box(L);
    cg_error err;
    progress_ctx ctx = {L, 0, 0};
    cg_profile *p = cg_profile_select(src, keep, dropped, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* ---- profile methods ---- */

static int profile_gc(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile_free(box->p);
    box->p = NULL;
    return 0;
}

static int profile_tostring(lua_State *L) {
    profile_box *box = check_box(L, 1);
    if (!box->p) {
        lua_pushstring(L, "callgrind profile (closed)");
        return 1;
    }
    cg_profile *p = box->p;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char head[160];
    snprintf(head, sizeof head, "callgrind profile: %zu functions, %zu calls, events",
             cg_function_count(p), cg_call_count(p));
    luaL_addstring(&b, head);
    for (size_t i = 0; i < cg_raw_event_count(p); i++) {
        luaL_addchar(&b, ' ');
        luaL_addstring(&b, cg_event_name(p, i));
    }
    if (cg_section_count(p)) {
        luaL_addstring(&b, ", from ");
        luaL_addstring(&b, cg_section_source(p, 0));
    }
    luaL_pushresult(&b);
    return 1;
}

static int profile_events(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    int all = lua_toboolean(L, 2);
    size_t n = all ? cg_event_count(p) : cg_raw_event_count(p);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, cg_event_name(p, i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int profile_event_info(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    size_t ev = check_event(L, p, 2);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, cg_event_name(p, ev));
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, (lua_Integer)ev + 1);
    lua_setfield(L, -2, "index");
    const char *long_name = cg_event_long_name(p, ev);
    if (*long_name) {
        lua_pushstring(L, long_name);
        lua_setfield(L, -2, "long_name");
    }
    const char *formula = cg_event_formula(p, ev);
    if (*formula) {
        lua_pushstring(L, formula);
        lua_setfield(L, -2, "formula");
    }
    lua_pushboolean(L, ev >= cg_raw_event_count(p));
    lua_setfield(L, -2, "derived");
    if (cg_event_builtin(p, ev)) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "builtin");
    }
    return 1;
}

static int profile_total(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    return push_cost(L, p, cg_total_costs(p), check_event(L, p, 2));
}

static int function_iter(lua_State *L) {
    profile_box *box = lua_touserdata(L, MT(UP_STATE));
    cg_profile *p = open_profile(L, box);
    size_t i = (size_t)lua_tonumber(L, MT(UP_STATE + 1));
    if (i >= cg_function_count(p)) return 0;
    lua_pushnumber(L, (lua_Number)(i + 1));
    lua_replace(L, MT(UP_STATE + 1));
    push_function(L, MT(UP_STATE), box, i);
    return 1;
}

static int profile_functions(lua_State *L) {
    check_profile(L, 1);
    push_types(L);
    lua_pushvalue(L, 1);
    lua_pushnumber(L, 0);
    lua_pushcclosure(L, function_iter, NUM_TYPES + 2);
    return 1;
}

static int profile_find(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    const char *name = luaL_checkstring(L, 2);
    const char *file = luaL_optstring(L, 3, NULL);
    const char *object = luaL_optstring(L, 4, NULL);
    size_t fn = cg_find_function(p, name, file, object, CG_NONE);
    if (fn == CG_NONE) return 0;
    push_function(L, 1, box, fn);
    return 1;
}

static int profile_stats(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    lua_createtable(L, 0, 7);
    struct {
        const char *name;
        size_t value;
    } counts[] = {{"functions", cg_function_count(p)}, {"calls", cg_call_count(p)},
                  {"lines", cg_line_count(p)},         {"jumps", cg_jump_count(p)},
                  {"sections", cg_section_count(p)},   {"cycles", cg_cycle_count(p)},
                  {"events", cg_raw_event_count(p)}};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        lua_pushinteger(L, (lua_Integer)counts[i].value);
        lua_setfield(L, -2, counts[i].name);
    }
    return 1;
}

static int profile_warnings(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    size_t n = cg_warning_count(p);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, cg_warning(p, i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    compat_pushuint64(L, cg_warnings_dropped(p));
    return 2;
}

static void push_positions(lua_State *L, unsigned mask) {
    static const struct {
        unsigned bit;
        const char *name;
    } kinds[] = {{CG_POS_INSTR, "instr"}, {CG_POS_BB, "bb"}, {CG_POS_LINE, "line"}};
    lua_newtable(L);
    int n = 0;
    for (size_t k = 0; k < 3; k++) {
        if (!(mask & kinds[k].bit)) continue;
        lua_pushstring(L, kinds[k].name);
        lua_rawseti(L, -2, ++n);
    }
}

static int profile_positions(lua_State *L) {
    push_positions(L, cg_positions(check_profile(L, 1)));
    return 1;
}

/* Header values that are numbers (pid, part, thread) are given as numbers. */
static void set_header_field(lua_State *L, const char *key, const char *value) {
    static const char *const numeric[] = {"pid", "part", "thread"};
    static const char *const text[] = {"cmd", "creator", "version"};
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(key, numeric[i]) == 0) {
            char *end;
            unsigned long long v = strtoull(value, &end, 10);
            if (*value && !*end) {
                compat_pushuint64(L, v);
                lua_setfield(L, -2, key);
            }
            return;
        }
        if (strcmp(key, text[i]) == 0) {
            lua_pushstring(L, value);
            lua_setfield(L, -2, key);
            return;
        }
    }
    if (strcmp(key, "desc") == 0) {
        const char *colon = strchr(value, ':');
        if (!colon) return;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        lua_getfield(L, -1, "desc");
        lua_pushlstring(L, value, (size_t)(colon - value));
        lua_pushstring(L, v);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
}

static int profile_sections(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    size_t n = cg_section_count(p);
    lua_createtable(L, (int)n, 0);
    for (size_t s = 0; s < n; s++) {
        lua_createtable(L, 0, 12);
        lua_pushstring(L, cg_section_source(p, s));
        lua_setfield(L, -2, "source");
        compat_pushuint64(L, cg_section_first_line(p, s));
        lua_setfield(L, -2, "first_line");
        lua_newtable(L);
        lua_setfield(L, -2, "desc");
        size_t nh = cg_section_header_count(p, s);
        lua_createtable(L, (int)nh, 0);
        for (size_t i = 0; i < nh; i++) {
            const char *key = cg_section_header_key(p, s, i);
            const char *value = cg_section_header_value(p, s, i);
            lua_createtable(L, 0, 2);
            lua_pushstring(L, key);
            lua_setfield(L, -2, "key");
            lua_pushstring(L, value);
            lua_setfield(L, -2, "value");
            lua_rawseti(L, -2, (int)i + 1);
            lua_pushvalue(L, -2); /* the section table */
            set_header_field(L, key, value);
            lua_pop(L, 1);
        }
        lua_setfield(L, -2, "headers");
        size_t ne = cg_section_event_count(p, s);
        lua_createtable(L, (int)ne, 0);
        for (size_t i = 0; i < ne; i++) {
            lua_pushstring(L, cg_event_name(p, cg_section_event(p, s, i)));
            lua_rawseti(L, -2, (int)i + 1);
        }
        lua_setfield(L, -2, "events");
        push_positions(L, cg_section_positions(p, s));
        lua_setfield(L, -2, "positions");
        push_cost_table(L, p, cg_section_costs(p, s));
        lua_setfield(L, -2, "costs");
        const cg_cost *summary = cg_section_summary(p, s);
        if (summary) {
            push_cost_table(L, p, summary);
            lua_setfield(L, -2, "summary");
        }
        const cg_cost *totals = cg_section_totals(p, s);
        if (totals) {
            push_cost_table(L, p, totals);
            lua_setfield(L, -2, "totals");
        }
        lua_rawseti(L, -2, (int)s + 1);
    }
    return 1;
}

static int profile_cycles(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile *p = open_profile(L, box);
    size_t n = cg_cycle_count(p);
    lua_createtable(L, (int)n, 0);
    for (size_t c = 0; c < n; c++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, cg_cycle_name(p, c));
        lua_setfield(L, -2, "name");
        size_t nm = cg_cycle_member_count(p, c);
        lua_createtable(L, (int)nm, 0);
        for (size_t i = 0; i < nm; i++) {
            push_function(L, 1, box, cg_cycle_member(p, c, i));
            lua_rawseti(L, -2, (int)i + 1);
        }
        lua_setfield(L, -2, "members");
        push_cost_table(L, p, cg_cycle_self(p, c));
        lua_setfield(L, -2, "self");
        push_cost_table(L, p, cg_cycle_inclusive(p, c));
        lua_setfield(L, -2, "inclusive");
        lua_rawseti(L, -2, (int)c + 1);
    }
    return 1;
}

static int profile_close(lua_State *L) {
    profile_box *box = check_box(L, 1);
    cg_profile_free(box->p);
    box->p = NULL;
    return 0;
}

/* ---- handles: functions, calls, lines, jumps ---- */

static cg_profile *handle_profile(lua_State *L, const handle *h) {
    return open_profile(L, h->box);
}

/* Looks the key up in the methods table (upvalue 1); returns 1 when found. */
static int index_method(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, MT(UP_STATE));
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    return 0;
}

static void push_line_number(lua_State *L, const cg_profile *p, uint64_t line) {
    if (cg_positions(p) & CG_POS_LINE)
        compat_pushuint64(L, line);
    else
        lua_pushnil(L);
}

static void push_addr(lua_State *L, const cg_profile *p, uint64_t addr) {
    if (cg_positions(p) & CG_POS_INSTR)
        compat_pushuint64(L, addr);
    else
        lua_pushnil(L);
}

static int function_index(lua_State *L) {
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

static int function_tostring(lua_State *L) {
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

/* Iterators over a function's records: upvalues are the function handle and a position. */
typedef size_t (*count_fn)(const cg_profile *, size_t);
typedef size_t (*item_fn)(const cg_profile *, size_t, size_t);

static int records_iter(lua_State *L, count_fn count, item_fn item, int slot) {
    handle *h = lua_touserdata(L, MT(UP_STATE));
    cg_profile *p = handle_profile(L, h);
    size_t i = (size_t)lua_tonumber(L, MT(UP_STATE + 1));
    if (i >= count(p, h->index)) return 0;
    lua_pushnumber(L, (lua_Number)(i + 1));
    lua_replace(L, MT(UP_STATE + 1));
    push_handle(L, MT(UP_STATE), slot, h->box, item(p, h->index, i));
    return 1;
}

static int callees_iter(lua_State *L) {
    return records_iter(L, cg_function_callee_count, cg_function_callee, UP_CALL);
}
static int callers_iter(lua_State *L) {
    return records_iter(L, cg_function_caller_count, cg_function_caller, UP_CALL);
}
/* Line records are read with a cursor and handed out by value: a line handle holds its
 * position and costs, and the function's index. */
typedef struct line_value {
    profile_box *box;
    size_t fn;
    const char *file; /* owned by the profile: read only while it is open */
    uint64_t line, addr;
    cg_cost costs[];
} line_value;

static int lines_iter(lua_State *L) {
    handle *h = lua_touserdata(L, MT(UP_STATE));
    cg_profile *p = handle_profile(L, h);
    cg_line_cursor *c = lua_touserdata(L, MT(UP_STATE + 1));
    cg_line rec;
    if (!cg_line_cursor_next(c, &rec)) return 0;
    size_t n = cg_raw_event_count(p);
    line_value *v = compat_newuserdata(L, sizeof *v + n * sizeof(cg_cost));
    v->box = h->box;
    v->fn = h->index;
    v->file = rec.file;
    v->line = rec.line;
    v->addr = rec.addr;
    memcpy(v->costs, rec.costs, n * sizeof(cg_cost));
    lua_pushvalue(L, MT(UP_LINE));
    lua_setmetatable(L, -2);
    compat_getuservalue(L, MT(UP_STATE));
    compat_setuservalue(L, -2);
    return 1;
}
static int jumps_iter(lua_State *L) {
    return records_iter(L, cg_function_jump_count, cg_function_jump, UP_JUMP);
}

static int push_iterator(lua_State *L, lua_CFunction iter) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    handle_profile(L, h);
    push_types(L);
    lua_pushvalue(L, 1);
    lua_pushnumber(L, 0);
    lua_pushcclosure(L, iter, NUM_TYPES + 2);
    return 1;
}

static int function_callees(lua_State *L) {
    return push_iterator(L, callees_iter);
}
static int function_callers(lua_State *L) {
    return push_iterator(L, callers_iter);
}
static int function_lines(lua_State *L) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    cg_profile *p = handle_profile(L, h);
    push_types(L);
    lua_pushvalue(L, 1);
    cg_line_cursor *c = compat_newuserdata(L, sizeof *c);
    cg_line_cursor_init(c, p, h->index);
    lua_pushcclosure(L, lines_iter, NUM_TYPES + 2);
    return 1;
}
static int function_jumps(lua_State *L) {
    return push_iterator(L, jumps_iter);
}

static int call_index(lua_State *L) {
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

static int call_tostring(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    if (!h->box->p) {
        lua_pushstring(L, "callgrind call (profile closed)");
        return 1;
    }
    cg_profile *p = h->box->p;
    char count[32];
    snprintf(count, sizeof count, "%llu", (unsigned long long)cg_call_times(p, h->index));
    lua_pushfstring(L, "call %s -> %s (%s times at %s:%d)",
                    cg_function_name(p, cg_call_caller(p, h->index)),
                    cg_function_name(p, cg_call_callee(p, h->index)), count,
                    cg_call_file(p, h->index), (int)cg_call_line(p, h->index));
    return 1;
}

static int call_inclusive(lua_State *L) {
    handle *h = check_handle(L, 1, UP_CALL);
    cg_profile *p = handle_profile(L, h);
    return push_cost(L, p, cg_call_inclusive(p, h->index), check_event(L, p, 2));
}

static line_value *check_line(lua_State *L, int idx) {
    return check_type(L, idx, UP_LINE, "callgrind line expected");
}

static int line_index(lua_State *L) {
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

static int line_tostring(lua_State *L) {
    line_value *v = check_line(L, 1);
    if (!v->box->p) {
        lua_pushstring(L, "callgrind line (profile closed)");
        return 1;
    }
    cg_profile *p = v->box->p;
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)v->addr);
    lua_pushfstring(L, "line %s:%d%s%s", v->file, (int)v->line,
                    (cg_positions(p) & CG_POS_INSTR) ? " at " : "",
                    (cg_positions(p) & CG_POS_INSTR) ? addr : "");
    return 1;
}

static int line_cost(lua_State *L) {
    line_value *v = check_line(L, 1);
    cg_profile *p = open_profile(L, v->box);
    return push_cost(L, p, v->costs, check_event(L, p, 2));
}

static int jump_index(lua_State *L) {
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

static int jump_tostring(lua_State *L) {
    handle *h = check_handle(L, 1, UP_JUMP);
    if (!h->box->p) {
        lua_pushstring(L, "callgrind jump (profile closed)");
        return 1;
    }
    cg_profile *p = h->box->p;
    char counts[64];
    snprintf(counts, sizeof counts, "%llu/%llu", (unsigned long long)cg_jump_taken(p, h->index),
             (unsigned long long)cg_jump_executed(p, h->index));
    lua_pushfstring(L, "%s %s:%d -> %s:%d (%s)", cg_jump_conditional(p, h->index) ? "jcnd" : "jump",
                    cg_jump_from_file(p, h->index), (int)cg_jump_from_line(p, h->index),
                    cg_jump_to_file(p, h->index), (int)cg_jump_to_line(p, h->index), counts);
    return 1;
}

/* ---- registration ---- */

static const luaL_Reg profile_methods[] = {
    {"events", profile_events},     {"event_info", profile_event_info},
    {"total", profile_total},       {"functions", profile_functions},
    {"find", profile_find},         {"stats", profile_stats},
    {"warnings", profile_warnings}, {"sections", profile_sections},
    {"cycles", profile_cycles},     {"positions", profile_positions},
    {"close", profile_close},       {NULL, NULL}};

static const luaL_Reg function_methods[] = {{"self", function_self},
                                            {"inclusive", function_inclusive},
                                            {"callers", function_callers},
                                            {"callees", function_callees},
                                            {"lines", function_lines},
                                            {"jumps", function_jumps},
                                            {NULL, NULL}};

static const luaL_Reg call_methods[] = {{"inclusive", call_inclusive}, {NULL, NULL}};
static const luaL_Reg line_methods[] = {{"cost", line_cost}, {NULL, NULL}};
static const luaL_Reg no_methods[] = {{NULL, NULL}};

/* Sets the functions of `l` in the table at `table`, each a closure over the metatables, which
 * luaopen keeps at stack indexes 1 to NUM_TYPES. */
static void set_functions(lua_State *L, int table, const luaL_Reg *l) {
    for (; l->name; l++) {
        for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
        lua_pushcclosure(L, l->func, NUM_TYPES);
        lua_setfield(L, table, l->name);
    }
}

/* Fills a handle metatable (at `mt`); its methods table goes to `methods[kind]` (the table at
 * `all`), where the Lua layer adds the methods it writes in Lua. */
static void handle_type(lua_State *L, int mt, int all, const char *kind, const luaL_Reg *methods,
                        lua_CFunction index, lua_CFunction tostring) {
    lua_newtable(L);
    set_functions(L, lua_gettop(L), methods);
    lua_pushvalue(L, -1);
    lua_setfield(L, all, kind);
    for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
    lua_pushvalue(L, -NUM_TYPES - 1);
    lua_pushcclosure(L, index, NUM_TYPES + 1);
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    const luaL_Reg meta[] = {{"__tostring", tostring}, {NULL, NULL}};
    set_functions(L, mt, meta);
    lua_pushliteral(L, "callgrind");
    lua_setfield(L, mt, "__metatable");
}

static const luaL_Reg module_functions[] = {{"load", l_load},
                                            {"parse", l_parse},
                                            {"combine", l_combine},
                                            {"select", l_select},
                                            {NULL, NULL}};

int luaopen_callgrind_core(lua_State *L);

int luaopen_callgrind_core(lua_State *L) {
    static const char *const names[NUM_TYPES] = {PROFILE_MT, FUNCTION_MT, CALL_MT, LINE_MT,
                                                 JUMP_MT};
    lua_settop(L, 0);
    for (int i = 0; i < NUM_TYPES; i++) luaL_newmetatable(L, names[i]); /* stack 1..5 */
    lua_newtable(L); /* 6: the methods of each kind of object, for the Lua layer to extend */
    lua_newtable(L);
    set_functions(L, 7, profile_methods);
    lua_pushvalue(L, 7);
    lua_setfield(L, 6, "profile");
    lua_setfield(L, UP_PROFILE, "__index");
    const luaL_Reg profile_meta[] = {
        {"__gc", profile_gc},
#if LUA_VERSION_NUM >= 504
        {"__close", profile_close},
#endif
        {"__tostring", profile_tostring},
        {NULL, NULL}
    };
    set_functions(L, UP_PROFILE, profile_meta);
    lua_pushliteral(L, "callgrind");
    lua_setfield(L, UP_PROFILE, "__metatable");
    handle_type(L, UP_FUNCTION, 6, "function", function_methods, function_index, function_tostring);
    handle_type(L, UP_CALL, 6, "call", call_methods, call_index, call_tostring);
    handle_type(L, UP_LINE, 6, "line", line_methods, line_index, line_tostring);
    handle_type(L, UP_JUMP, 6, "jump", no_methods, jump_index, jump_tostring);
    lua_newtable(L); /* 7: the module */
    set_functions(L, 7, module_functions);
    lua_pushliteral(L, CG_VERSION);
    lua_setfield(L, 7, "_VERSION");
    lua_pushvalue(L, 6);
    lua_setfield(L, 7, "methods");
    return 1;
}
