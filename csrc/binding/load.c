/* load.c - the module's functions: load, parse, combine, select. Each makes a profile box
 * first, so that a model the C core hands over is owned by the garbage collector at once. */
#include <string.h>

#include "binding.h"

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

const char *error_kind(int code) {
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

/* opts.cycles, when given: false turns cycle detection off. Returns whether it was given. */
static int read_cycles(lua_State *L, int idx, cg_options *opts) {
    lua_getfield(L, idx, "cycles");
    int given = !lua_isnil(L, -1);
    if (given) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TBOOLEAN, idx, "opts.cycles must be a boolean");
        opts->no_cycles = !lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    return given;
}

/* The options of a new profile made from others (combine, select): NULL, to inherit the
 * analysis of the sources, unless the table at `idx` says `cycles`. */
static const cg_options *combine_options(lua_State *L, int idx, cg_options *opts) {
    memset(opts, 0, sizeof *opts);
    if (lua_isnoneornil(L, idx)) return NULL;
    luaL_checktype(L, idx, LUA_TTABLE);
    return read_cycles(L, idx, opts) ? opts : NULL;
}

/* Section, part and thread numbers: any integer a double holds exactly and more. */
#define MAX_SELECTOR 9.2e18

/* The integer option `name` of the table at `idx`, from 1 to `max`: 1 with *out set when it is
 * given, 0 when it is not; an error "opts.NAME must be RULE" for anything else. */
static int integer_option(lua_State *L, int idx, const char *name, lua_Number max, const char *rule,
                          lua_Number *out) {
    lua_getfield(L, idx, name);
    int given = !lua_isnil(L, -1);
    if (given) {
        lua_Number v = lua_tonumber(L, -1);
        /* the range first: the cast that tests for an integer is defined only within it */
        if (lua_type(L, -1) != LUA_TNUMBER || !(v >= 1 && v <= max) || v != (lua_Number)(int64_t)v)
            luaL_error(L, "opts.%s must be %s", name, rule);
        *out = v;
    }
    lua_pop(L, 1);
    return given;
}

/* Reads the options table at `idx` (strict, progress, max_warnings, sections, cycles, threads,
 * chunk_size). */
void read_load_options(lua_State *L, int idx, cg_options *opts, progress_ctx *ctx) {
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
    read_cycles(L, idx, opts);
    lua_getfield(L, idx, "max_warnings");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1, idx,
                      "opts.max_warnings must be a positive number");
        opts->max_warnings = (size_t)lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    lua_Number v;
    if (integer_option(L, idx, "threads", 1024, "an integer from 1 to 1024", &v))
        opts->threads = (int)v;
    if (integer_option(L, idx, "chunk_size", 1e9, "a positive integer", &v))
        opts->chunk_size = (size_t)v;
    if (integer_option(L, idx, "section", MAX_SELECTOR, "a positive integer", &v))
        opts->section = (size_t)v;
    if (integer_option(L, idx, "part", MAX_SELECTOR, "a positive integer", &v))
        opts->part = (uint64_t)v;
    if (integer_option(L, idx, "thread", MAX_SELECTOR, "a positive integer", &v))
        opts->thread = (uint64_t)v;
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
profile_box *new_profile_box(lua_State *L) {
    profile_box *box = compat_newuserdata(L, sizeof *box);
    box->p = NULL;
    box->busy = 0;
    lua_pushvalue(L, MT(UP_PROFILE));
    lua_setmetatable(L, -2);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, ANCHOR_PROFILE);
    compat_setuservalue(L, -2);
    return box;
}

/* Models live in malloc, where the collector cannot see them: it counts a profile as a small
 * userdata and, left alone, collects dropped ones far too late (a loop over files piles them
 * up). The bytes of every model made in a Lua state are therefore added up, and before the next
 * load or combination, when they exceed what Lua's own heap holds, a full collection runs and
 * the sum starts again: dropped profiles are freed before a new model is built, at a cost in
 * proportion to Lua's heap paid at most once per heap-sized amount of models. The sum lives in
 * the state's registry, under the address of this key. */
static const char model_bytes_key = 'm';

static size_t *model_bytes(lua_State *L) {
    lua_pushlightuserdata(L, (void *)&model_bytes_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    size_t *sum = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (sum) return sum;
    sum = compat_newuserdata(L, sizeof *sum);
    *sum = 0;
    lua_pushlightuserdata(L, (void *)&model_bytes_key);
    lua_insert(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
    return sum;
}

void adopt_model(lua_State *L, profile_box *box, cg_profile *p) {
    box->p = p;
    *model_bytes(L) += cg_profile_bytes(p);
}

/* Called first by every function that makes a model, while raising still leaks nothing (a
 * finalizer may raise on Lua 5.1). */
void collect_dropped_models(lua_State *L) {
    size_t *sum = model_bytes(L);
    size_t heap = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024;
    if (*sum <= heap) return;
    lua_gc(L, LUA_GCCOLLECT, 0);
    *sum = 0;
}

static int load_result(lua_State *L, profile_box *box, cg_profile *p, const cg_error *err,
                       const progress_ctx *ctx) {
    if (p) {
        adopt_model(L, box, p);
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
    collect_dropped_models(L);
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
    read_load_options(L, 2, &opts, &ctx);
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
    collect_dropped_models(L);
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "(string)");
    cg_options opts;
    progress_ctx ctx;
    read_load_options(L, 3, &opts, &ctx);
    profile_box *box = new_profile_box(L);
    luaL_checkstack(L, 4, "parse");
    cg_error err;
    cg_profile *p = cg_load_buffer(text, len, name, &opts, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* combine({prof, ...} [, {weight, ...} [, opts]]): the weighted sum of loaded profiles */
static int l_combine(lua_State *L) {
    collect_dropped_models(L);
    lua_settop(L, 3);
    cg_options opts;
    const cg_options *given = combine_options(L, 3, &opts);
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
            weights[i - 1] = compat_toint64(L, -1);
            lua_pop(L, 1);
        }
    }
    profile_box *box = new_profile_box(L);
    cg_error err;
    progress_ctx ctx = {L, 0, 0};
    /* opts.lines = false: the functions' self costs in place of their line records */
    int lines = 1;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "lines");
        lines = lua_isnil(L, -1) || lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    cg_profile *p = lines ? cg_profile_combine(list, weights, n, given, &err)
                          : cg_profile_combine_functions(list, weights, n, given, &err);
    return load_result(L, box, p, &err, &ctx);
}

/* select(prof, keep [, dropped_name [, opts]]): keep[fn.id] true keeps a function */
static int l_select(lua_State *L) {
    collect_dropped_models(L);
    lua_settop(L, 4);
    cg_options opts;
    const cg_options *given = combine_options(L, 4, &opts);
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
    cg_profile *p = cg_profile_select(src, keep, dropped, given, &err);
    return load_result(L, box, p, &err, &ctx);
}

const luaL_Reg load_functions[] = {{"load", l_load},
                                   {"parse", l_parse},
                                   {"combine", l_combine},
                                   {"select", l_select},
                                   {NULL, NULL}};
