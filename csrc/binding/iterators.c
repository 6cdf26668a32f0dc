/* iterators.c - the generic-for over each kind of record: a profile's functions, a function's
 * callees, callers, line records, jumps and jumps in.
 *
 * The state of a loop is an iteration userdata held by the iterator closure. Where the Lua
 * version has to-be-closed values (5.4), the factory also returns it as the loop's closing
 * value, so that leaving the loop early (break, error) ends the iteration: calling the iterator
 * again then returns nothing, as it does after the last record. */
#include <string.h>

#include "binding.h"

typedef enum {
    ITER_FUNCTIONS,
    ITER_CALLEES,
    ITER_CALLERS,
    ITER_JUMPS,
    ITER_JUMPS_IN,
    ITER_LINES
} iter_kind;

typedef struct iteration {
    profile_box *box;
    size_t fn;   /* the function whose records are read (not for ITER_FUNCTIONS) */
    size_t next; /* records handed out so far */
    iter_kind kind;
    int closed;
    cg_line_cursor cursor[]; /* ITER_LINES only */
} iteration;

/* Upvalues of the iterator after the metatables: the object iterated (profile or function),
 * which it keeps alive, and the iteration. */
enum { UP_OWNER = UP_STATE, UP_ITER };

typedef size_t (*count_fn)(const cg_profile *, size_t);
typedef size_t (*item_fn)(const cg_profile *, size_t, size_t);

static int next_record(lua_State *L, iteration *it, const cg_profile *p) {
    static const struct {
        count_fn count;
        item_fn item;
        int slot;
    } kinds[] = {[ITER_CALLEES] = {cg_function_callee_count, cg_function_callee, UP_CALL},
                 [ITER_CALLERS] = {cg_function_caller_count, cg_function_caller, UP_CALL},
                 [ITER_JUMPS] = {cg_function_jump_count, cg_function_jump, UP_JUMP},
                 [ITER_JUMPS_IN] = {cg_function_jump_in_count, cg_function_jump_in, UP_JUMP}};
    if (it->next >= kinds[it->kind].count(p, it->fn)) return 0;
    size_t index = kinds[it->kind].item(p, it->fn, it->next++);
    push_handle(L, MT(UP_OWNER), kinds[it->kind].slot, it->box, index);
    return 1;
}

static int next_line(lua_State *L, iteration *it, const cg_profile *p) {
    cg_line rec;
    if (!cg_line_cursor_next(it->cursor, &rec)) return 0;
    size_t n = cg_raw_event_count(p);
    line_value *v = compat_newuserdata(L, sizeof *v + n * sizeof(cg_cost));
    v->box = it->box;
    v->fn = it->fn;
    v->file = rec.file;
    v->line = rec.line;
    v->addr = rec.addr;
    memcpy(v->costs, rec.costs, n * sizeof(cg_cost));
    lua_pushvalue(L, MT(UP_LINE));
    lua_setmetatable(L, -2);
    compat_getuservalue(L, MT(UP_OWNER));
    compat_setuservalue(L, -2);
    it->next++;
    return 1;
}

static int iterate(lua_State *L) {
    iteration *it = lua_touserdata(L, MT(UP_ITER));
    if (it->closed) return 0;
    cg_profile *p = open_profile(L, it->box);
    int found;
    if (it->kind == ITER_FUNCTIONS) {
        found = it->next < cg_function_count(p);
        if (found) push_function(L, MT(UP_OWNER), it->box, it->next++);
    } else if (it->kind == ITER_LINES) {
        found = next_line(L, it, p);
    } else {
        found = next_record(L, it, p);
    }
    if (!found) it->closed = 1;
    return found;
}

int iteration_close(lua_State *L) {
    iteration *it = lua_touserdata(L, 1);
    if (it && lua_getmetatable(L, 1)) it->closed = 1;
    return 0;
}

/* Returns the iterator over the records of the object at index 1 (and, on 5.4, nil, nil and
 * the closing value). */
static int push_iteration(lua_State *L, iter_kind kind, profile_box *box, size_t fn) {
    size_t size = sizeof(iteration) + (kind == ITER_LINES ? sizeof(cg_line_cursor) : 0);
    iteration *it = compat_newuserdata(L, size);
    int state = lua_gettop(L);
    it->box = box;
    it->fn = fn;
    it->next = 0;
    it->kind = kind;
    it->closed = 0;
    if (kind == ITER_LINES) cg_line_cursor_init(it->cursor, box->p, fn);
    lua_pushvalue(L, MT(UP_ITERATION));
    lua_setmetatable(L, state);
    push_types(L);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, state);
    lua_pushcclosure(L, iterate, NUM_TYPES + 2);
    if (!COMPAT_HAS_CLOSE) return 1;
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, state);
    return 4;
}

int profile_functions(lua_State *L) {
    profile_box *box = check_box(L, 1);
    open_profile(L, box);
    return push_iteration(L, ITER_FUNCTIONS, box, 0);
}

static int function_records(lua_State *L, iter_kind kind) {
    handle *h = check_handle(L, 1, UP_FUNCTION);
    handle_profile(L, h);
    return push_iteration(L, kind, h->box, h->index);
}

int function_callees(lua_State *L) {
    return function_records(L, ITER_CALLEES);
}
int function_callers(lua_State *L) {
    return function_records(L, ITER_CALLERS);
}
int function_lines(lua_State *L) {
    return function_records(L, ITER_LINES);
}
int function_jumps(lua_State *L) {
    return function_records(L, ITER_JUMPS);
}
int function_jumps_in(lua_State *L) {
    return function_records(L, ITER_JUMPS_IN);
}
