/* fields.c - the fields of each kind of object, in one table per kind that obj.field (__index),
 * obj:exact(name, ...) and tostring(obj) all read: a field's name, what it is (text, count,
 * line, address, function, cost row...), which of the three show it, and how to read it from
 * the core. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* What a field is read from: the object's profile, and the handle or line value. */
typedef struct object_ref {
    profile_box *box;
    cg_profile *p;
    size_t index;           /* handles */
    const line_value *line; /* line values */
} object_ref;

typedef enum {
    V_NONE,     /* absent: nil */
    V_TEXT,     /* s */
    V_COUNT,    /* u: an unsigned 64-bit count */
    V_LINE,     /* u: a line number, nil where the profile has no line positions */
    V_ADDR,     /* u: an address, nil where the profile has no instruction positions */
    V_BOOL,     /* u */
    V_ID,       /* u: a 1-based index */
    V_FUNCTION, /* u: a function index, shown as a function handle (by its name in text) */
    V_ROW       /* row: a cost row, read for an event */
} value_kind;

typedef struct field_value {
    value_kind kind;
    const char *s;
    uint64_t u;
    const cg_cost *row;
} field_value;

/* Where a field shows: obj.name, obj:exact(name); every field can be named in a printed form. */
enum { F_INDEX = 1, F_EXACT = 2 };

typedef struct field {
    const char *name;
    unsigned shows;
    void (*get)(const object_ref *o, field_value *v);
} field;

struct object_kind {
    const char *name; /* "function": for messages and "callgrind function (profile closed)" */
    int slot;         /* UP_* of its metatable */
    const field *fields;
    /* The printed form: {name} is a field's text, {PREFIX|name} adds PREFIX before a text that
     * is not empty, and nothing when it is. NULL: the kind prints itself. */
    const char *format;
};

#define TEXT(v, text) ((v)->kind = V_TEXT, (v)->s = (text))
#define VALUE(v, k, value) ((v)->kind = (k), (v)->u = (uint64_t)(value))
#define ROW(v, r) ((v)->kind = V_ROW, (v)->row = (r))

/* A field of a handle read by one accessor of callgrind.h: text, a cost row or a number. */
#define SET_V_TEXT(v, value) TEXT((v), (value))
#define SET_V_ROW(v, value) ROW((v), (value))
#define SET_V_COUNT(v, value) VALUE((v), V_COUNT, (value))
#define SET_V_LINE(v, value) VALUE((v), V_LINE, (value))
#define SET_V_ADDR(v, value) VALUE((v), V_ADDR, (value))
#define SET_V_BOOL(v, value) VALUE((v), V_BOOL, (value))
#define SET_V_FUNCTION(v, value) VALUE((v), V_FUNCTION, (value))
#define GETTER(name, kind, accessor)                                                               \
    static void name(const object_ref *o, field_value *v) {                                        \
        SET_##kind(v, accessor(o->p, o->index));                                                   \
    }

/* ---- profiles: only obj:exact("total") ---- */

static void profile_total(const object_ref *o, field_value *v) {
    ROW(v, cg_total_costs(o->p));
}

static const field profile_fields[] = {{"total", F_EXACT, profile_total}, {NULL, 0, NULL}};

/* ---- functions ---- */

GETTER(function_self, V_ROW, cg_function_self)
GETTER(function_inclusive, V_ROW, cg_function_inclusive)
GETTER(function_called, V_COUNT, cg_function_called)
GETTER(function_name, V_TEXT, cg_function_name)
GETTER(function_file, V_TEXT, cg_function_file)
GETTER(function_object, V_TEXT, cg_function_object)
static void function_id(const object_ref *o, field_value *v) {
    VALUE(v, V_ID, o->index + 1);
}
static void function_cycle(const object_ref *o, field_value *v) {
    size_t c = cg_function_cycle(o->p, o->index);
    if (c != CG_NONE) TEXT(v, cg_cycle_name(o->p, c));
}

/* exact() lists its fields in table order in its message */
static const field function_fields[] = {{"self", F_EXACT, function_self},
                                        {"inclusive", F_EXACT, function_inclusive},
                                        {"called", F_INDEX | F_EXACT, function_called},
                                        {"name", F_INDEX, function_name},
                                        {"file", F_INDEX, function_file},
                                        {"object", F_INDEX, function_object},
                                        {"id", F_INDEX, function_id},
                                        {"cycle", F_INDEX, function_cycle},
                                        {NULL, 0, NULL}};

/* ---- calls ---- */

GETTER(call_inclusive, V_ROW, cg_call_inclusive)
GETTER(call_count, V_COUNT, cg_call_times)
GETTER(call_line, V_LINE, cg_call_line)
GETTER(call_addr, V_ADDR, cg_call_addr)
GETTER(call_target_line, V_LINE, cg_call_target_line)
GETTER(call_target_addr, V_ADDR, cg_call_target_addr)
GETTER(call_caller, V_FUNCTION, cg_call_caller)
GETTER(call_callee, V_FUNCTION, cg_call_callee)
GETTER(call_file, V_TEXT, cg_call_file)

static const field call_fields[] = {{"inclusive", F_EXACT, call_inclusive},
                                    {"count", F_INDEX | F_EXACT, call_count},
                                    {"line", F_INDEX | F_EXACT, call_line},
                                    {"addr", F_INDEX | F_EXACT, call_addr},
                                    {"target_line", F_INDEX | F_EXACT, call_target_line},
                                    {"target_addr", F_INDEX | F_EXACT, call_target_addr},
                                    {"caller", F_INDEX, call_caller},
                                    {"callee", F_INDEX, call_callee},
                                    {"file", F_INDEX, call_file},
                                    {NULL, 0, NULL}};

/* ---- line records ---- */

static void line_cost(const object_ref *o, field_value *v) {
    ROW(v, o->line->costs);
}
static void line_line(const object_ref *o, field_value *v) {
    VALUE(v, V_LINE, o->line->line);
}
static void line_addr(const object_ref *o, field_value *v) {
    VALUE(v, V_ADDR, o->line->addr);
}
static void line_file(const object_ref *o, field_value *v) {
    TEXT(v, o->line->file);
}
static void line_function(const object_ref *o, field_value *v) {
    VALUE(v, V_FUNCTION, o->line->fn);
}

static const field line_fields[] = {
    {"cost", F_EXACT, line_cost},           {"line", F_INDEX | F_EXACT, line_line},
    {"addr", F_INDEX | F_EXACT, line_addr}, {"file", F_INDEX, line_file},
    {"function", F_INDEX, line_function},   {NULL, 0, NULL}};

/* ---- jumps ---- */

GETTER(jump_executed, V_COUNT, cg_jump_executed)
GETTER(jump_taken, V_COUNT, cg_jump_taken)
GETTER(jump_from_line, V_LINE, cg_jump_from_line)
GETTER(jump_from_addr, V_ADDR, cg_jump_from_addr)
GETTER(jump_to_line, V_LINE, cg_jump_to_line)
GETTER(jump_to_addr, V_ADDR, cg_jump_to_addr)
GETTER(jump_from_file, V_TEXT, cg_jump_from_file)
GETTER(jump_to_file, V_TEXT, cg_jump_to_file)
GETTER(jump_conditional, V_BOOL, cg_jump_conditional)
GETTER(jump_function, V_FUNCTION, cg_jump_function)
GETTER(jump_to_function, V_FUNCTION, cg_jump_to_function)
static void jump_label(const object_ref *o, field_value *v) {
    TEXT(v, cg_jump_conditional(o->p, o->index) ? "jcnd" : "jump");
}

static const field jump_fields[] = {{"executed", F_INDEX | F_EXACT, jump_executed},
                                    {"taken", F_INDEX | F_EXACT, jump_taken},
                                    {"from_line", F_INDEX | F_EXACT, jump_from_line},
                                    {"from_addr", F_INDEX | F_EXACT, jump_from_addr},
                                    {"to_line", F_INDEX | F_EXACT, jump_to_line},
                                    {"to_addr", F_INDEX | F_EXACT, jump_to_addr},
                                    {"from_file", F_INDEX, jump_from_file},
                                    {"to_file", F_INDEX, jump_to_file},
                                    {"conditional", F_INDEX, jump_conditional},
                                    {"function", F_INDEX, jump_function},
                                    {"to_function", F_INDEX, jump_to_function},
                                    {"kind", 0, jump_label}, /* printed only */
                                    {NULL, 0, NULL}};

const object_kind profile_kind = {"profile", UP_PROFILE, profile_fields, NULL};
const object_kind function_kind = {"function", UP_FUNCTION, function_fields,
                                   "{name} ({file}{, |object})"};
const object_kind call_kind = {"call", UP_CALL, call_fields,
                               "call {caller} -> {callee} ({count} times at {file}:{line})"};
const object_kind line_kind = {"line", UP_LINE, line_fields, "line {file}:{line}{ at |addr}"};
const object_kind jump_kind = {"jump", UP_JUMP, jump_fields,
                               "{kind} {from_file}:{from_line} -> {to_file}:{to_line} "
                               "({taken}/{executed})"};

/* ---- reading objects and fields ---- */

/* The object at argument 1, checked to be of its kind; its profile may be closed (p NULL). */
static object_ref object_at(lua_State *L, const object_kind *kind) {
    object_ref o = {NULL, NULL, 0, NULL};
    if (kind->slot == UP_PROFILE) {
        o.box = check_box(L, 1);
    } else if (kind->slot == UP_LINE) {
        o.line = check_line(L, 1);
        o.box = o.line->box;
    } else {
        handle *h = check_handle(L, 1, kind->slot);
        o.box = h->box;
        o.index = h->index;
    }
    o.p = o.box->p;
    return o;
}

static const field *find_field(const object_kind *kind, const char *name, unsigned shows) {
    for (const field *f = kind->fields; f->name; f++)
        if ((f->shows & shows) == shows && !strcmp(f->name, name)) return f;
    return NULL;
}

static const field *find_field_len(const object_kind *kind, const char *name, size_t len) {
    for (const field *f = kind->fields; f->name; f++)
        if (strlen(f->name) == len && !memcmp(f->name, name, len)) return f;
    return NULL;
}

static void read_field(const field *f, const object_ref *o, field_value *v) {
    memset(v, 0, sizeof *v);
    f->get(o, v);
}

/* ---- obj.field ---- */

/* __index: a method (the methods table is upvalue UP_STATE), else a field; the kind is upvalue
 * UP_STATE + 1. Only reached through the metatable, so argument 1 is of the kind. */
int object_index(lua_State *L) {
    if (index_method(L)) return 1;
    const object_kind *kind = lua_touserdata(L, lua_upvalueindex(UP_STATE + 1));
    object_ref o = object_at(L, kind);
    open_profile(L, o.box); /* a closed profile's objects have no fields */
    const char *name = lua_tostring(L, 2);
    const field *f = name ? find_field(kind, name, F_INDEX) : NULL;
    if (!f) return 0;
    field_value v;
    read_field(f, &o, &v);
    switch (v.kind) {
    case V_NONE:
        return 0;
    case V_TEXT:
        lua_pushstring(L, v.s);
        break;
    case V_COUNT:
        compat_pushuint64(L, v.u);
        break;
    case V_LINE:
        push_line_number(L, o.p, v.u);
        break;
    case V_ADDR:
        push_addr(L, o.p, v.u);
        break;
    case V_BOOL:
        lua_pushboolean(L, v.u != 0);
        break;
    case V_ID:
        lua_pushinteger(L, (lua_Integer)v.u);
        break;
    case V_FUNCTION:
        push_function(L, 1, o.box, (size_t)v.u);
        break;
    case V_ROW:
        return 0;
    }
    return 1;
}

/* ---- obj:exact(name [, event] [, form]) ---- */

/* The kind is upvalue UP_STATE. */
int object_exact(lua_State *L) {
    const object_kind *kind = lua_touserdata(L, lua_upvalueindex(UP_STATE));
    object_ref o = object_at(L, kind);
    open_profile(L, o.box);
    const char *name = luaL_checkstring(L, 2);
    const field *f = find_field(kind, name, F_EXACT);
    if (!f) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        int n = 0;
        for (const field *k = kind->fields; k->name; k++) {
            if (!(k->shows & F_EXACT)) continue;
            if (n++) luaL_addstring(&b, ", ");
            luaL_addstring(&b, k->name);
        }
        luaL_pushresult(&b);
        return luaL_error(L, "no exact value '%s' for a %s (known: %s)", name, kind->name,
                          lua_tostring(L, -1));
    }
    field_value v;
    read_field(f, &o, &v);
    switch (v.kind) {
    case V_ROW:
        return push_exact_cost(L, o.p, v.row, 3, 4);
    case V_LINE:
    case V_ADDR: {
        unsigned has = v.kind == V_LINE ? CG_POS_LINE : CG_POS_INSTR;
        if (!(cg_positions(o.p) & has)) {
            lua_pushnil(L);
            return 1;
        }
        return push_exact_unsigned(L, v.u, 3);
    }
    default:
        return push_exact_unsigned(L, v.u, 3);
    }
}

/* ---- tostring(obj) ---- */

/* A field's text in a printed form: numbers in decimal whatever the positions (0 when absent),
 * addresses in hex and only where the profile has them, functions by name; "" for none. */
static const char *field_text(const object_ref *o, const field_value *v, char *buf, size_t size) {
    switch (v->kind) {
    case V_TEXT:
        return v->s;
    case V_FUNCTION:
        return cg_function_name(o->p, (size_t)v->u);
    case V_NONE:
    case V_ROW:
        return "";
    case V_ADDR:
        if (!(cg_positions(o->p) & CG_POS_INSTR)) return "";
        snprintf(buf, size, "0x%" PRIx64, v->u);
        return buf;
    default:
        snprintf(buf, size, "%" PRIu64, v->u);
        return buf;
    }
}

/* Renders the kind's format (see object_kind). */
static void render(lua_State *L, const object_kind *kind, const object_ref *o) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *s = kind->format, *open;
    while ((open = strchr(s, '{'))) {
        luaL_addlstring(&b, s, (size_t)(open - s));
        const char *close = strchr(open, '}');
        const char *bar = memchr(open, '|', (size_t)(close - open));
        const char *name = bar ? bar + 1 : open + 1;
        field_value v;
        read_field(find_field_len(kind, name, (size_t)(close - name)), o, &v);
        char buf[32];
        const char *text = field_text(o, &v, buf, sizeof buf);
        if (bar && *text) luaL_addlstring(&b, open + 1, (size_t)(bar - open - 1));
        luaL_addstring(&b, text);
        s = close + 1;
    }
    luaL_addstring(&b, s);
    luaL_pushresult(&b);
}

/* The kind is upvalue UP_STATE. */
int object_tostring(lua_State *L) {
    const object_kind *kind = lua_touserdata(L, lua_upvalueindex(UP_STATE));
    object_ref o = object_at(L, kind);
    if (push_if_closed(L, o.box, kind->name)) return 1;
    render(L, kind, &o);
    return 1;
}
