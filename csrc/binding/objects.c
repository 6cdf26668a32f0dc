/* objects.c - checking and making the module's objects, shared by every binding file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../vec.h"
#include "binding.h"

void push_types(lua_State *L) {
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

int absindex(lua_State *L, int idx) {
    return idx > 0 || idx <= LUA_REGISTRYINDEX ? idx : lua_gettop(L) + idx + 1;
}

profile_box *check_box(lua_State *L, int idx) {
    return check_type(L, idx, UP_PROFILE, "callgrind profile expected");
}

cg_profile *open_profile(lua_State *L, profile_box *box) {
    if (!box->p) luaL_error(L, "the profile is closed");
    return box->p;
}

int push_if_closed(lua_State *L, const profile_box *box, const char *kind) {
    if (box->p) return 0;
    if (!strcmp(kind, "profile"))
        lua_pushliteral(L, "callgrind profile (closed)");
    else
        lua_pushfstring(L, "callgrind %s (profile closed)", kind);
    return 1;
}

/* A box that frees a C result when collected, so that an error while its Lua values are made
 * leaks nothing. */
typedef struct collected {
    void *ptr;
    void (*release)(void *);
} collected;

static int collected_gc(lua_State *L) {
    collected *c = lua_touserdata(L, 1);
    if (c->ptr) c->release(c->ptr);
    c->ptr = NULL;
    return 0;
}

void push_collected(lua_State *L, void *ptr, void (*release)(void *)) {
    collected *c = compat_newuserdata(L, sizeof *c);
    c->ptr = ptr;
    c->release = release;
    if (luaL_newmetatable(L, "callgrind.collected")) {
        lua_pushcfunction(L, collected_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
}

static void free_text_buffer(void *ptr) {
    text_buffer *t = ptr;
    free(t->data);
    free(t);
}

static int call_write(lua_State *L);

text_buffer *push_text_output(lua_State *L, int out) {
    text_buffer *t = calloc(1, sizeof *t);
    if (!t) luaL_error(L, "out of memory");
    push_collected(L, t, free_text_buffer);
    t->L = L;
    t->out = out;
    if (out) {
        /* made now, where an error leaks nothing: a piece's call then allocates only its
         * string, inside the protected call */
        lua_pushcfunction(L, call_write);
        t->writer = lua_gettop(L);
    }
    return t;
}

text_buffer *push_text_buffer(lua_State *L) {
    return push_text_output(L, 0);
}

/* Whether the value at `idx` can be indexed without an error: a table, or a userdata whose
 * metatable has __index. */
static int indexable(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TTABLE) return 1;
    if (lua_type(L, idx) != LUA_TUSERDATA || !luaL_getmetafield(L, idx, "__index")) return 0;
    lua_pop(L, 1);
    return 1;
}

int opt_text_output(lua_State *L, int idx, const char *what) {
    if (lua_isnoneornil(L, idx)) return 0;
    idx = absindex(L, idx);
    int callable = 0;
    if (indexable(L, idx)) {
        lua_getfield(L, idx, "write");
        callable = lua_type(L, -1) == LUA_TFUNCTION;
        if (!callable && luaL_getmetafield(L, -1, "__call")) {
            callable = 1;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (!callable) luaL_error(L, "%s: a file or an object with a write method expected", what);
    return idx;
}

/* call_write(out, bytes, len): out:write(piece), called protected (the piece's string made
 * here too): an error there, or no memory for the string, stops the writer, whose C memory a
 * longjmp would leak. */
static int call_write(lua_State *L) {
    const char *data = lua_touserdata(L, 2);
    size_t len = (size_t)lua_tointeger(L, 3);
    lua_settop(L, 1);
    lua_getfield(L, 1, "write");
    lua_insert(L, 1);
    lua_pushlstring(L, data, len);
    lua_call(L, 2, 2);
    return 2;
}

static void output_failed(text_buffer *t, const char *why) {
    t->failed = 1;
    snprintf(t->message, sizeof t->message, "%s", why ? why : "the output's write failed");
}

/* Hands `len` bytes to the output; 0, or -1 (and `failed`) when it raised an error or returned
 * nil or false. */
static int write_piece(text_buffer *t, const char *data, size_t len) {
    lua_State *L = t->L;
    if (t->failed) return -1;
    if (!lua_checkstack(L, 4)) {
        output_failed(t, "stack overflow");
        return -1;
    }
    lua_pushvalue(L, t->writer);
    lua_pushvalue(L, t->out);
    lua_pushlightuserdata(L, (void *)data);
    lua_pushinteger(L, (lua_Integer)len);
    if (lua_pcall(L, 3, 2, 0)) {
        output_failed(t, lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    if (!lua_toboolean(L, -2)) output_failed(t, lua_tostring(L, -1));
    lua_pop(L, 2);
    return t->failed ? -1 : 0;
}

/* The output's buffer: one piece, made at the first write. */
static int output_append(text_buffer *t, const char *data, size_t len) {
    if (!t->data && !(t->data = malloc(TEXT_PIECE))) return -1;
    if (t->len + len > TEXT_PIECE) {
        if (t->len && write_piece(t, t->data, t->len)) return -1;
        t->len = 0;
        if (len >= TEXT_PIECE) return write_piece(t, data, len);
    }
    memcpy(t->data + t->len, data, len);
    t->len += len;
    return 0;
}

int text_buffer_append(void *buffer, const char *data, size_t len) {
    text_buffer *t = buffer;
    if (t->out) return output_append(t, data, len);
    if (len > SIZE_MAX - t->len) return -1;
    /* written from the front: from 512 KiB on it grows eightfold in huge pages (vec.h), of
     * which only the pages written are faulted in, and only the text so far is copied. The
     * text of a big report (gcc's tree: 81 MB) was faulted in 4 KiB at a time, then, doubled
     * into huge pages, twice over (136 huge pages for that tree) */
    if (vec_reserve_append((void **)&t->data, &t->cap, t->len, t->len + len, 1)) return -1;
    memcpy(t->data + t->len, data, len);
    t->len += len;
    return 0;
}

int push_text_result(lua_State *L, text_buffer *t) {
    if (!t->out) {
        lua_pushlstring(L, t->data ? t->data : "", t->len);
        return 1;
    }
    if (t->len && !write_piece(t, t->data, t->len)) t->len = 0;
    if (t->failed) {
        lua_pushnil(L);
        lua_pushstring(L, t->message);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

int text_failed(lua_State *L, text_buffer *t, const char *message) {
    if (t->failed) return push_text_result(L, t);
    return luaL_error(L, "%s", message);
}

cg_profile *check_profile(lua_State *L, int idx) {
    return open_profile(L, check_box(L, idx));
}

handle *check_handle(lua_State *L, int idx, int slot) {
    static const char *const what[] = {[UP_FUNCTION] = "callgrind function expected",
                                       [UP_CALL] = "callgrind call expected",
                                       [UP_JUMP] = "callgrind jump expected"};
    return check_type(L, idx, slot, what[slot]);
}

handle *push_handle(lua_State *L, int owner, int slot, profile_box *box, size_t index) {
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

void push_function(lua_State *L, int owner, profile_box *box, size_t fn) {
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

size_t check_event(lua_State *L, const cg_profile *p, int idx) {
    size_t n = cg_event_count(p);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, idx);
        if (v >= 1 && v <= (lua_Number)n && v == (lua_Number)(size_t)v) return (size_t)v - 1;
        /* the number as Lua writes it: 4, 2.5 */
        luaL_error(L, "event index %s out of range (1 to %d)", lua_tostring(L, idx), (int)n);
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

void read_event_list(lua_State *L, const cg_profile *p, int idx, size_t n, size_t *out) {
    idx = absindex(L, idx);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, idx, (int)i + 1);
        out[i] = check_event(L, p, -1);
        lua_pop(L, 1);
    }
}

cg_cost checked_cost(lua_State *L, const cg_profile *p, const cg_cost *row, size_t ev) {
    cg_cost v;
    if (cg_cost_of(p, row, ev, &v) != CG_OK)
        luaL_error(L, "the cost of event '%s' does not fit in 64 bits", cg_event_name(p, ev));
    return v;
}

int push_cost(lua_State *L, const cg_profile *p, const cg_cost *row, size_t ev) {
    compat_pushint64(L, checked_cost(L, p, row, ev));
    return 1;
}

void push_cost_table(lua_State *L, const cg_profile *p, const cg_cost *row) {
    size_t n = cg_event_count(p);
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        push_cost(L, p, row, i);
        lua_setfield(L, -2, cg_event_name(p, i));
    }
}

void set_functions(lua_State *L, int table, const luaL_Reg *l) {
    for (; l->name; l++) {
        for (int i = 1; i <= NUM_TYPES; i++) lua_pushvalue(L, i);
        lua_pushcclosure(L, l->func, NUM_TYPES);
        lua_setfield(L, table, l->name);
    }
}

line_value *check_line(lua_State *L, int idx) {
    return check_type(L, idx, UP_LINE, "callgrind line expected");
}

cg_profile *handle_profile(lua_State *L, const handle *h) {
    return open_profile(L, h->box);
}

/* The methods table is the closure's UP_STATE upvalue. */
int index_method(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, MT(UP_STATE));
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    return 0;
}

void push_line_number(lua_State *L, const cg_profile *p, uint64_t line) {
    if (cg_positions(p) & CG_POS_LINE)
        compat_pushuint64(L, line);
    else
        lua_pushnil(L);
}

void push_addr(lua_State *L, const cg_profile *p, uint64_t addr) {
    if (cg_positions(p) & CG_POS_INSTR)
        compat_pushuint64(L, addr);
    else
        lua_pushnil(L);
}
