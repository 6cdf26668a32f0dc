/* binding.h - what the files of the Lua module callgrind.core share. The module only exposes
 * callgrind.h as userdata: nothing here parses or computes (sums, header fields and line costs
 * come from the core).
 *
 * Every profile has an anchor table (its user value): [1] is the profile itself, [2] caches
 * function handles so that the same function is always the same Lua value. Every handle
 * (function, call, line, jump) has that anchor as its user value, which keeps the profile alive
 * while any handle exists. A closed profile keeps its box with a NULL model; handles check it. */
#ifndef CG_BINDING_H
#define CG_BINDING_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"
#include "luacompat.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

enum { ANCHOR_PROFILE = 1, ANCHOR_FUNCTIONS = 2 };

/* Every C function of the module carries the metatables of the object kinds as its first
 * upvalues, so that checking and making objects needs no registry lookup; closures keep their
 * own state after them, from UP_STATE on. */
enum { UP_PROFILE = 1, UP_FUNCTION, UP_CALL, UP_LINE, UP_JUMP, UP_ITERATION, UP_STATE };
#define NUM_TYPES 6
#define MT(slot) lua_upvalueindex(slot)

typedef struct profile_box {
    cg_profile *p;
    int busy; /* a writer is reading the model: it cannot be closed */
} profile_box;

typedef struct handle {
    profile_box *box;
    size_t index;
} handle;

/* Line records are read with a cursor and handed out by value: a line object holds its
 * position and costs, and the function's index. */
typedef struct line_value {
    profile_box *box;
    size_t fn;
    const char *file; /* owned by the profile: read only while it is open */
    uint64_t line, addr;
    cg_cost costs[];
} line_value;

/* ---- objects.c: checking and making objects ---- */

/* Pushes the metatables, to make a closure that carries them too. */
void push_types(lua_State *L);
/* Sets the functions of `l` in the table at `table` as closures over the metatables, which
 * must be at stack indexes 1 to NUM_TYPES. */
void set_functions(lua_State *L, int table, const luaL_Reg *l);
int absindex(lua_State *L, int idx);
profile_box *check_box(lua_State *L, int idx);
/* The one guard of a closed profile: open_profile raises "the profile is closed";
 * push_if_closed pushes a printed form ("callgrind profile (closed)", "callgrind KIND (profile
 * closed)") and returns 1 when the model is gone, else returns 0. */
cg_profile *open_profile(lua_State *L, profile_box *box);
int push_if_closed(lua_State *L, const profile_box *box, const char *kind);
cg_profile *check_profile(lua_State *L, int idx);
handle *check_handle(lua_State *L, int idx, int slot);
line_value *check_line(lua_State *L, int idx);
cg_profile *handle_profile(lua_State *L, const handle *h);
/* Pushes a new handle that shares the user value (anchor) of the userdata at `owner`. */
handle *push_handle(lua_State *L, int owner, int slot, profile_box *box, size_t index);
/* Function handles are cached in the anchor, so one function is one Lua value. */
void push_function(lua_State *L, int owner, profile_box *box, size_t fn);
/* For __index: pushes the method named by argument 2 and returns 1, or returns 0. */
int index_method(lua_State *L);
void push_line_number(lua_State *L, const cg_profile *p, uint64_t line);
void push_addr(lua_State *L, const cg_profile *p, uint64_t addr);

/* The event named or numbered by argument `idx`, or an error listing the known ones. */
size_t check_event(lua_State *L, const cg_profile *p, int idx);
/* The `n` events of the list at `idx` (names or indexes, as check_event reads them) into `out`;
 * the caller has checked that it is a table of at most CG_MAX_EVENTS. */
void read_event_list(lua_State *L, const cg_profile *p, int idx, size_t n, size_t *out);
/* The cost of event `ev` in a row; an error when a derived cost overflows. */
cg_cost checked_cost(lua_State *L, const cg_profile *p, const cg_cost *row, size_t ev);
int push_cost(lua_State *L, const cg_profile *p, const cg_cost *row, size_t ev);
/* A table { event name = cost } of a row, raw and derived events, for summaries and totals;
 * an error when a derived cost overflows. */
void push_cost_table(lua_State *L, const cg_profile *p, const cg_cost *row);
/* Pushes a userdata that frees `ptr` with `release` when collected: a C result held while its
 * Lua values are made, so that an error there leaks nothing. */
void push_collected(lua_State *L, void *ptr, void (*release)(void *));

/* Text that a C writer hands to a sink a piece at a time: gathered in one growing buffer that
 * the collector frees (push_text_buffer pushes its box), then pushed as one Lua string; or,
 * with an output (push_text_output), handed to its `write` method in pieces of TEXT_PIECE bytes
 * as it comes. A big report then never exists whole: gcc's 16.7 MB listing was copied into a
 * Lua string whose fresh pages, 4,078 of them, cost more than writing the text. */
enum { TEXT_PIECE = 65536 }; /* under malloc's mapping threshold: pieces reuse freed memory */
typedef struct text_buffer {
    char *data;
    size_t len, cap;
    lua_State *L; /* with an output: where its write method is called */
    int out;      /* the output's stack index; 0: the text is gathered */
    int writer;   /* with an output: the stack index of the function that calls its write */
    int failed;   /* the output refused a piece: `message` says why */
    char message[256];
} text_buffer;
text_buffer *push_text_buffer(lua_State *L);
/* A text buffer written to the object at stack index `out` (out:write(piece) for each piece;
 * a file, or anything with a write method), or gathered when `out` is 0. With an output it
 * pushes two values (the box and the function that calls the write), else one. */
text_buffer *push_text_output(lua_State *L, int out);
/* The stack index of the output at `idx`: 0 when it is nil or absent, else an object with a
 * write method (an error otherwise, naming `what`). */
int opt_text_output(lua_State *L, int idx, const char *what);
/* A sink for the core's writers: appends (or writes a piece); 0, or -1 when out of memory or
 * the output failed. */
int text_buffer_append(void *buffer, const char *data, size_t len);
/* The result of a text: the string gathered; with an output, true once the rest is written, or
 * nil and the output's message. Returns the number of values pushed. */
int push_text_result(lua_State *L, text_buffer *t);
/* A writer that stopped: nil and the output's message when the output failed (returns 2),
 * else an error with `message`. */
int text_failed(lua_State *L, text_buffer *t, const char *message);
/* Appends `text` as a JSON string, as callgrind.json's json.string writes it (json_text.c):
 * bytes that are not valid UTF-8 as U+FFFD, quotes, backslashes and control characters
 * escaped. 0, or -1 when out of memory. */
int put_json_string(text_buffer *t, const char *text);

/* ---- load.c: what the synchronous and the background loads share ---- */

typedef struct progress_ctx {
    lua_State *L;
    int fn;      /* stack index of the Lua callback */
    int errored; /* the callback raised: its error is on top of the stack */
} progress_ctx;

/* Reads a load's options table at `idx` (strict, progress, max_warnings, sections, cycles). */
void read_load_options(lua_State *L, int idx, cg_options *opts, progress_ctx *ctx);
/* Runs a full collection first when the models made since the last one outweigh Lua's heap. */
void collect_dropped_models(lua_State *L);
/* Pushes an empty profile box (no model yet) with its anchor table. */
profile_box *new_profile_box(lua_State *L);
/* Hands a model to a box, and so to the garbage collector, counting its bytes. */
void adopt_model(lua_State *L, profile_box *box, cg_profile *p);
/* The kind of an error code, as load returns it third ("format", "io", ...). */
const char *error_kind(int code);
/* profile_methods.c: { [file] = { [line] = self cost } } of event `ev` over functions
 * [first, stop), only the lines of `only` when not NULL (cg_line_sums); pushes the table and
 * returns 1. */
int push_line_costs(lua_State *L, cg_profile *p, size_t ev, const char *only, size_t first,
                    size_t stop);

/* ---- the functions and methods of each file, for module.c to register ---- */

extern const luaL_Reg load_functions[];  /* load.c */
extern const luaL_Reg async_functions[]; /* async.c */
extern const luaL_Reg rows_functions[];  /* rows.c */
extern const luaL_Reg rank_functions[];  /* rank.c */
extern const luaL_Reg graph_functions[]; /* graph.c */
extern const luaL_Reg page_functions[];  /* page.c */
/* Creates the metatable of background loads (async.c). */
void register_async(lua_State *L);
extern const luaL_Reg flame_functions[]; /* flame.c */
extern const luaL_Reg write_functions[]; /* writers.c */
extern const luaL_Reg profile_methods[]; /* profile_methods.c */
extern const luaL_Reg profile_meta[];    /* profile_methods.c */
int profile_close(lua_State *L);
extern const luaL_Reg function_methods[]; /* handles.c */
extern const luaL_Reg call_methods[];
extern const luaL_Reg line_methods[];
extern const luaL_Reg jump_methods[];

/* fields.c: one table of fields per kind of object, read by obj.field, obj:exact() and
 * tostring(obj). The closures carry their kind as a light userdata: __index at UP_STATE + 1
 * (after the methods table), exact and __tostring at UP_STATE. */
typedef struct object_kind object_kind;
extern const object_kind profile_kind, function_kind, call_kind, line_kind, jump_kind;
int object_index(lua_State *L);
int object_exact(lua_State *L);
int object_tostring(lua_State *L);

/* iterators.c: the generic-for of each kind of record */
int profile_functions(lua_State *L);
int function_callees(lua_State *L);
int function_callers(lua_State *L);
int function_lines(lua_State *L);
int function_jumps(lua_State *L);
int function_jumps_in(lua_State *L);
/* __close of the loop state where the Lua version has it */
int iteration_close(lua_State *L);

/* exact.c: the forms of obj:exact(): "string" (decimal, the default) or "halves" (argument
 * form_idx); push_exact_cost reads the event at argument event_idx. */
int push_exact_signed(lua_State *L, int64_t v, int form_idx);
int push_exact_unsigned(lua_State *L, uint64_t v, int form_idx);
int push_exact_cost(lua_State *L, const cg_profile *p, const cg_cost *row, int event_idx,
                    int form_idx);

#pragma GCC visibility pop

#endif
