/* writers.c - core.write and core.write_webgrind: the core's writers, with a Lua function as
 * the place the bytes go. The function is called with each buffer (64 KiB) as a string and
 * returns true to go on, or nil and a message to stop; an error it raises is raised again once
 * the writer has let go of its memory. The profile cannot be closed while it is written. */
#include <sys/stat.h>

#include "binding.h"

enum { SINK_OK, SINK_REFUSED, SINK_RAISED };

typedef struct sink_state {
    lua_State *L;
    int sink;   /* stack index of the Lua function */
    int call;   /* stack index of call_sink */
    int status; /* SINK_REFUSED: its message is on top of the stack; SINK_RAISED: its error */
} sink_state;

typedef struct chunk {
    const char *data;
    size_t size;
} chunk;

/* Runs protected, so that making the string cannot raise past the writer: sink(chunk). */
static int call_sink(lua_State *L) {
    const chunk *c = lua_touserdata(L, 2);
    lua_settop(L, 1);
    lua_pushlstring(L, c->data, c->size);
    lua_call(L, 1, 2);
    return 2;
}

static int to_sink(void *userdata, const char *data, size_t size) {
    sink_state *s = userdata;
    lua_State *L = s->L;
    chunk c = {data, size};
    lua_pushvalue(L, s->call);
    lua_pushvalue(L, s->sink);
    lua_pushlightuserdata(L, &c);
    if (lua_pcall(L, 2, 2, 0) != 0) {
        s->status = SINK_RAISED;
        return 1;
    }
    if (lua_toboolean(L, -2)) {
        lua_pop(L, 2);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "the output refused the data");
    }
    lua_remove(L, -2);
    s->status = SINK_REFUSED;
    return 1;
}

/* Checks the profile and the sink (argument 2), and readies the stack for to_sink. */
static profile_box *begin(lua_State *L, sink_state *s) {
    profile_box *box = check_box(L, 1);
    open_profile(L, box);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    luaL_checkstack(L, 8, "write");
    lua_pushcfunction(L, call_sink);
    s->L = L;
    s->sink = 2;
    s->call = lua_gettop(L);
    s->status = SINK_OK;
    return box;
}

/* true; or nil and the sink's or the writer's message; or the sink's error raised again. */
static int finish(lua_State *L, profile_box *box, const sink_state *s, int rc,
                  const cg_error *err) {
    box->busy--;
    if (s->status == SINK_RAISED) return lua_error(L);
    if (s->status == SINK_REFUSED) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err->message);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int flag(lua_State *L, int idx, const char *name) {
    if (lua_isnoneornil(L, idx)) return 1;
    lua_getfield(L, idx, name);
    int on = lua_isnil(L, -1) || lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
}

/* write(prof, sink [, {compress_names =, compress_positions =}]): the function blocks of the
 * Callgrind format (both compressions on unless false). */
static int l_write(lua_State *L) {
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    cg_write_options opts = {flag(L, 3, "compress_names"), flag(L, 3, "compress_positions")};
    sink_state s;
    profile_box *box = begin(L, &s);
    cg_error err;
    box->busy++;
    int rc = cg_write_callgrind(box->p, &opts, to_sink, &s, &err);
    return finish(L, box, &s, rc, &err);
}

/* write_webgrind(prof, sink, ev): webgrind's preprocessed format for one event, up to its
 * header lines. */
static int l_write_webgrind(lua_State *L) {
    size_t ev = check_event(L, check_profile(L, 1), 3);
    sink_state s;
    profile_box *box = begin(L, &s);
    cg_error err;
    box->busy++;
    int rc = cg_write_webgrind(box->p, ev, to_sink, &s, &err);
    return finish(L, box, &s, rc, &err);
}

/* file_kind(path) -> "file", "directory" or "other" (a device, a pipe, a socket), or nil when
 * nothing is there: what a writer asks before it puts a file in the place of `path`. */
static int l_file_kind(lua_State *L) {
    struct stat st;
    if (stat(luaL_checkstring(L, 1), &st) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" : "other");
    return 1;
}

const luaL_Reg write_functions[] = {{"write", l_write},
                                    {"write_webgrind", l_write_webgrind},
                                    {"file_kind", l_file_kind},
                                    {NULL, NULL}};
