/* profile_methods.c - the methods of a profile: events, totals, metadata, lifetime. They only
 * expose what the core computes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

static int profile_tostring(lua_State *L) {
    profile_box *box = check_box(L, 1);
    if (push_if_closed(L, box, "profile")) return 1;
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

/* prof:has_event(name): whether the profile knows the event, raw or derived, without raising. */
static int profile_has_event(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    lua_pushboolean(L, cg_event_index(p, luaL_checkstring(L, 2)) != CG_NONE);
    return 1;
}

static int profile_total(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    return push_cost(L, p, cg_total_costs(p), check_event(L, p, 2));
}

static void free_line_sums(void *sums) {
    cg_line_sums_free(sums);
}

/* Pushes { [file] = { [line] = self cost } } of event `ev` over functions [first, stop), only
 * `only`'s lines when it is not NULL, as the core sums them (cg_line_sums). */
int push_line_costs(lua_State *L, cg_profile *p, size_t ev, const char *only, size_t first,
                    size_t stop) {
    cg_error err;
    /* one file over every function: only the functions the file index gives */
    cg_line_sums *sums = only && first == 0 && stop == cg_function_count(p)
                             ? cg_line_sums_build_file(p, ev, only, &err)
                             : cg_line_sums_build(p, ev, only, first, stop, &err);
    if (!sums) return luaL_error(L, "%s", err.message);
    push_collected(L, sums, free_line_sums); /* freed even if making the tables fails */
    lua_newtable(L);
    const char *current = NULL;
    lua_pushnil(L); /* the table of the current file */
    for (size_t i = 0; i < cg_line_sums_count(sums); i++) {
        const char *file = cg_line_sums_file(sums, i);
        if (file != current) {
            current = file;
            lua_pop(L, 1);
            lua_getfield(L, -1, file);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushvalue(L, -1);
                lua_setfield(L, -3, file);
            }
        }
        compat_pushuint64(L, cg_line_sums_line(sums, i));
        compat_pushint64(L, cg_line_sums_cost(sums, i));
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
    lua_remove(L, -2); /* the box, collected */
    return 1;
}

/* prof:line_costs(ev [, file]): { [file] = { [line] = self cost } }, the self cost of every
 * source line summed over all functions, for one event; only `file` when given. */
static int profile_line_costs(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    size_t ev = check_event(L, p, 2);
    const char *only = luaL_optstring(L, 3, NULL);
    return push_line_costs(L, p, ev, only, 0, cg_function_count(p));
}

/* prof:source_files(): { file, ... }, every source file with line records or call sites, each
 * once, in byte order of the names, from the profile's file index (built on first use). */
static int profile_source_files(lua_State *L) {
    cg_profile *p = check_profile(L, 1);
    cg_error err;
    const cg_file_index *x = cg_file_index_get(p, &err);
    if (!x) return luaL_error(L, "%s", err.message);
    size_t n = cg_file_index_count(x);
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_pushstring(L, cg_file_index_name(x, k));
        lua_rawseti(L, -2, (int)k + 1);
    }
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
    compat_pushuint64(L, cg_profile_bytes(p));
    lua_setfield(L, -2, "bytes");
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

/* A header's field of the section table at the top (cg_section_header_field). */
static void set_header_field(lua_State *L, const cg_profile *p, size_t s, size_t i) {
    cg_header_field f;
    cg_section_header_field(p, s, i, &f);
    switch (f.kind) {
    case CG_FIELD_NUMBER:
        compat_pushuint64(L, f.number);
        lua_setfield(L, -2, f.name);
        break;
    case CG_FIELD_TEXT:
        lua_pushstring(L, f.text);
        lua_setfield(L, -2, f.name);
        break;
    case CG_FIELD_DESC:
        lua_getfield(L, -1, "desc");
        lua_pushlstring(L, f.name, f.name_len);
        lua_pushstring(L, f.text);
        lua_rawset(L, -3);
        lua_pop(L, 1);
        break;
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
            set_header_field(L, p, s, i);
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

/* prof:close(), __close and __gc: the model goes (a writer, which holds the profile, keeps it
 * from being collected while it runs). */
int profile_close(lua_State *L) {
    profile_box *box = check_box(L, 1);
    if (box->busy) return luaL_error(L, "the profile is being written: close it afterwards");
    cg_profile_free(box->p);
    box->p = NULL;
    return 0;
}

const luaL_Reg profile_methods[] = {{"events", profile_events},
                                    {"event_info", profile_event_info},
                                    {"has_event", profile_has_event},
                                    {"total", profile_total},
                                    {"functions", profile_functions},
                                    {"find", profile_find},
                                    {"stats", profile_stats},
                                    {"warnings", profile_warnings},
                                    {"sections", profile_sections},
                                    {"cycles", profile_cycles},
                                    {"positions", profile_positions},
                                    {"line_costs", profile_line_costs},
                                    {"source_files", profile_source_files},
                                    {"close", profile_close},
                                    {NULL, NULL}};

/* __close is set by module.c where the Lua version has it */
const luaL_Reg profile_meta[] = {
    {"__gc", profile_close}, {"__tostring", profile_tostring}, {NULL, NULL}};
