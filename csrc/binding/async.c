/* async.c - load_async: a load in a native thread of its own, so that an editor's main loop
 * keeps running while a big profile is read.
 *
 * The thread gets copies of the paths and the options and never touches a Lua state: it only
 * runs the C loader and publishes its progress through atomics. The handle, a userdata, is
 * polled from the Lua thread that owns it, and that thread alone joins the loader thread and
 * turns the finished model into a profile. Cancelling sets a flag the loader's progress hook
 * reads between chunks; a handle collected (or a Lua state closed) while loading cancels and
 * joins, so no thread outlives the state that started it. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binding.h"

#define LOADING_TYPE "callgrind.loading"

/* What the loader thread and the Lua thread share. Until `finished` is set, the Lua thread
 * reads only the atomics; after it has joined the thread, everything. */
typedef struct job {
    char **paths;
    size_t n;
    cg_options opts;
    atomic_uint_least64_t done, total; /* bytes of all inputs, read so far and in all */
    atomic_int cancel, finished;
    uint64_t before; /* bytes of the inputs read before the current one */
    uint64_t current_total;
    cg_profile *result;
    cg_error err;
} job;

enum { RUNNING, LOADED, FAILED, CANCELLED };

typedef struct loading {
    job *job;
    pthread_t thread;
    int joined;
    int state;
} loading;

static void free_job(job *j) {
    if (!j) return;
    for (size_t i = 0; i < j->n; i++) free(j->paths[i]);
    free(j->paths);
    free(j);
}

/* The loader's progress hook, on the loader thread: publishes and reads the cancel flag. */
static int on_progress(void *ud, uint64_t done, uint64_t total) {
    job *j = ud;
    j->current_total = total;
    atomic_store(&j->done, j->before + done);
    return atomic_load(&j->cancel);
}

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

static void *run_job(void *arg) {
    job *j = arg;
    uint64_t total = 0;
    for (size_t i = 0; i < j->n; i++) total += file_size(j->paths[i]);
    atomic_store(&j->total, total);
    cg_loader *ld = cg_loader_new(&j->opts, &j->err);
    for (size_t i = 0; ld && i < j->n; i++) {
        j->current_total = 0;
        if (atomic_load(&j->cancel) || cg_loader_add_file(ld, j->paths[i], &j->err)) {
            cg_loader_free(ld);
            ld = NULL;
            break;
        }
        j->before += j->current_total;
    }
    if (ld && !atomic_load(&j->cancel)) {
        j->result = cg_loader_finish(ld, &j->err);
    } else if (ld) {
        cg_loader_free(ld);
    }
    atomic_store(&j->finished, 1);
    return NULL;
}

static loading *check_loading(lua_State *L) {
    return luaL_checkudata(L, 1, LOADING_TYPE);
}

/* Waits for the loader thread (at once when it has finished) and settles the handle's state:
 * a model becomes a profile, kept in the handle's user value so every poll returns it. */
static void settle(lua_State *L, loading *l) {
    if (l->joined) return;
    pthread_join(l->thread, NULL);
    l->joined = 1;
    job *j = l->job;
    if (atomic_load(&j->cancel)) {
        cg_profile_free(j->result);
        j->result = NULL;
        l->state = CANCELLED;
        return;
    }
    if (!j->result) {
        l->state = FAILED;
        return;
    }
    compat_getuservalue(L, 1);
    profile_box *box = new_profile_box(L);
    adopt_model(L, box, j->result);
    j->result = NULL;
    lua_rawseti(L, -2, 1);
    lua_pop(L, 1);
    l->state = LOADED;
}

/* The result of a settled load, as load returns it. */
static int push_result(lua_State *L, loading *l) {
    job *j = l->job;
    switch (l->state) {
    case LOADED:
        compat_getuservalue(L, 1);
        lua_rawgeti(L, -1, 1);
        return 1;
    case CANCELLED:
        lua_pushnil(L);
        lua_pushfstring(L, "%s: load cancelled", j->n ? j->paths[0] : "?");
        lua_pushstring(L, error_kind(CG_ERR_ABORTED));
        return 3;
    default:
        lua_pushnil(L);
        lua_pushstring(L, j->err.message);
        lua_pushstring(L, error_kind(j->err.code));
        return 3;
    }
}

/* handle:poll() -> "loading", done_bytes, total_bytes | profile | nil, message, kind */
static int loading_poll(lua_State *L) {
    loading *l = check_loading(L);
    if (l->state == RUNNING && !atomic_load(&l->job->finished)) {
        lua_pushliteral(L, "loading");
        compat_pushuint64(L, atomic_load(&l->job->done));
        compat_pushuint64(L, atomic_load(&l->job->total));
        return 3;
    }
    settle(L, l);
    return push_result(L, l);
}

/* handle:wait() -> profile | nil, message, kind */
static int loading_wait(lua_State *L) {
    loading *l = check_loading(L);
    settle(L, l);
    return push_result(L, l);
}

/* handle:cancel() -> true when a running load was stopped (and what it built freed). */
static int loading_cancel(lua_State *L) {
    loading *l = check_loading(L);
    int running = !l->joined;
    if (running) {
        atomic_store(&l->job->cancel, 1);
        settle(L, l);
    }
    lua_pushboolean(L, running);
    return 1;
}

static int loading_gc(lua_State *L) {
    loading *l = check_loading(L);
    if (!l->job) return 0;
    if (!l->joined) {
        atomic_store(&l->job->cancel, 1);
        pthread_join(l->thread, NULL);
        l->joined = 1;
    }
    cg_profile_free(l->job->result);
    free_job(l->job);
    l->job = NULL;
    return 0;
}

static int loading_tostring(lua_State *L) {
    static const char *const states[] = {"loading", "loaded", "failed", "cancelled"};
    lua_pushfstring(L, "callgrind background load (%s)", states[check_loading(L)->state]);
    return 1;
}

/* Copies the path (or the list of paths) at argument 1 into the job. */
static int copy_paths(lua_State *L, job *j) {
    int many = lua_type(L, 1) == LUA_TTABLE;
    size_t n = many ? compat_rawlen(L, 1) : 1;
    j->paths = calloc(n ? n : 1, sizeof *j->paths);
    if (!j->paths) return -1;
    for (size_t i = 0; i < n; i++) {
        if (many) lua_rawgeti(L, 1, (int)i + 1);
        size_t len;
        const char *path = lua_tolstring(L, many ? -1 : 1, &len);
        j->paths[i] = malloc(len + 1);
        if (j->paths[i]) memcpy(j->paths[i], path, len + 1);
        if (many) lua_pop(L, 1);
        if (!j->paths[i]) return -1;
        j->n = i + 1;
    }
    return 0;
}

static void check_paths(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) return;
    luaL_argcheck(L, lua_type(L, 1) == LUA_TTABLE, 1, "a path or a list of paths expected");
    size_t n = compat_rawlen(L, 1);
    luaL_argcheck(L, n > 0, 1, "empty list of paths");
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, (int)i);
        if (lua_type(L, -1) != LUA_TSTRING) luaL_argerror(L, 1, "paths must be strings");
        lua_pop(L, 1);
    }
}

/* load_async(path | {path, ...} [, opts]) -> handle | nil, message, kind */
static int l_load_async(lua_State *L) {
    lua_settop(L, 2);
    check_paths(L);
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_getfield(L, 2, "progress");
        luaL_argcheck(L, lua_isnil(L, -1), 2, "opts.progress is for load: poll the handle instead");
        lua_pop(L, 1);
    }
    cg_options opts;
    progress_ctx ctx;
    read_load_options(L, 2, &opts, &ctx);
    collect_dropped_models(L);
    loading *l = compat_newuserdata(L, sizeof *l);
    memset(l, 0, sizeof *l);
    l->joined = 1; /* nothing to join until the thread runs */
    luaL_getmetatable(L, LOADING_TYPE);
    lua_setmetatable(L, -2);
    lua_newtable(L);
    compat_setuservalue(L, -2);
    job *j = calloc(1, sizeof *j);
    l->job = j;
    if (!j || copy_paths(L, j)) return luaL_error(L, "out of memory");
    j->opts = opts;
    j->opts.progress = on_progress;
    j->opts.progress_userdata = j;
    int rc = pthread_create(&l->thread, NULL, run_job, j);
    if (rc) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: cannot start a loading thread: %s", j->paths[0], strerror(rc));
        lua_pushstring(L, error_kind(CG_ERR_NOMEM));
        return 3;
    }
    l->joined = 0;
    l->state = RUNNING;
    return 1;
}

static const luaL_Reg loading_methods[] = {
    {"poll", loading_poll}, {"wait", loading_wait}, {"cancel", loading_cancel}, {NULL, NULL}};

void register_async(lua_State *L) {
    luaL_newmetatable(L, LOADING_TYPE);
    int mt = lua_gettop(L);
    lua_newtable(L);
    set_functions(L, lua_gettop(L), loading_methods);
    lua_setfield(L, mt, "__index");
    const luaL_Reg meta[] = {{"__gc", loading_gc}, {"__tostring", loading_tostring}, {NULL, NULL}};
    set_functions(L, mt, meta);
    lua_pushliteral(L, "callgrind");
    lua_setfield(L, mt, "__metatable");
    lua_pop(L, 1);
}

const luaL_Reg async_functions[] = {{"load_async", l_load_async}, {NULL, NULL}};
