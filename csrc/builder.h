/* builder.h - the model under construction: records added by identity (equal records merge),
 * events added by name, and the bookkeeping of sections (their headers, events, positions,
 * cost rows, which ones the options keep). The parser and combine.c feed it; nothing here
 * knows the text of the format. */
#ifndef CG_BUILDER_H
#define CG_BUILDER_H

#include "events.h"
#include "fault.h"
#include "fnrecs.h"
#include "line_block.h"
#include "model.h"
#include "status.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The function last found under a name (a string id), tried before the hash index: a name is
 * nearly always one function, so this is one memory access, and no two names share an entry. */
typedef struct fn_by_name_entry {
    uint32_t file, object, fn; /* fn + 1, 0 = empty */
} fn_by_name_entry;

/* Which sections a load keeps (cg_options' section, part and thread; 0 = any). */
typedef struct section_choice {
    size_t section;
    uint64_t part, thread;
} section_choice;

typedef struct builder {
    cg_profile *p;
    uint64_t seed; /* of every hash table of the load */
    idxtab fn_index;
    fn_by_name_entry *fn_by_name; /* by name id */
    size_t fn_by_name_cap;
    line_scratch scratch; /* for compacting line records */
    uint32_t block_fn;    /* the function of the last fn= block, or NO_INDEX */
    /* another thread interns strings while this one builds (pipeline.h): the strings are not
     * read, not even to order line records by file name */
    int strings_busy;
    /* other threads join line streams (split.h): a new block does not trim the last one's */
    int streams_elsewhere;
    /* the records of a block of held_fn held by position (line_block.h), or held_fn NO_INDEX;
     * none after the load's first negative cost (held_off) */
    line_block held;
    uint32_t held_fn;
    int held_off;
    event_desc *descs;
    size_t ndescs, descs_cap;
    /* For resolve.c: functions bound by a fn= line, calls whose callee file was guessed (the
     * latter once the records are numbered). */
    unsigned char *fn_defined, *call_guessed;
    size_t fn_defined_cap, call_guessed_cap;
    /* While reading: the calls and jumps (fnrecs.h) of each function that has any, in the
     * order they came first, rec_of[f] - 1 for function f ([0, rec_of_cap) of the functions;
     * 0: none yet); build_number puts them into the model's arrays. */
    fn_records *recs;
    size_t nrecs, recs_cap;
    uint32_t *rec_of;
    size_t rec_of_cap;
    uint32_t block_rec; /* rec_of[block_fn] when known, else 0: the calls and jumps read are
                         * nearly all the block function's, found without a load of rec_of */
    rec_pool pool;      /* the lists' segments */
    /* sections */
    size_t section; /* the open section (always the last one), or CG_NONE */
    section_choice choice;
    size_t sections_read; /* every section of every input, kept or not */
    /* (part, thread) of every section read, for the error when the options keep none */
    uint64_t (*read_ids)[2];
    size_t read_ids_cap;
} builder;

/* A builder of a new, empty profile; ST_NOMEM when out of memory. */
status builder_init(builder *b, const section_choice *choice, size_t max_warnings, int no_cycles);
/* Frees what the builder holds, the profile included unless builder_take took it. */
void builder_free(builder *b);
/* Once every input is added: the calls and jumps kept per function are numbered into the
 * model's arrays, function by function (each function's in the order first seen), and each
 * function's lists freed as they are copied, on up to `threads` threads. The index of
 * functions goes first: no function is added after it. Calls and jumps added after it are
 * kept per function again, for another build_number. */
status build_number(builder *b, int threads);
/* Once every input is added and resolve.c is done: frees the per-record state (indexes,
 * resolve.c's marks) and the record arrays give back their room for growth,
 * so that the analysis reuses that memory. */
void builder_finish(builder *b);
/* Hands over the profile: the builder no longer frees it. */
cg_profile *builder_take(builder *b);

/* ---- strings ---- */
status build_string(builder *b, const char *s, size_t len, uint32_t *id);
static inline const char *build_text(const builder *b, uint32_t id) {
    return strtab_get(&b->p->strings, id);
}

/* ---- events ---- */
/* The raw event of a name, added (every cost row widened) when new; ST_LIMIT past
 * MAX_RAW_EVENTS. */
status build_event(builder *b, const char *name, size_t len, uint32_t *ev);
static inline size_t build_width(const builder *b) {
    return b->p->nraw; /* cost row width */
}
/* Long names and formulas, applied when loading ends (events.c). */
status build_event_desc(builder *b, const event_desc *d);

/* ---- records ---- */
status build_function(builder *b, uint32_t name, uint32_t file, uint32_t object, uint32_t *fn);
/* Marks a function as bound by a fn= line, where a block of its records begins; whether a block
 * of it began before. */
int build_defined(builder *b, uint32_t fn);
/* Adds a line record's costs (`n` values in event order) to the open section's costs, the
 * function's self cost and its records; ST_OVERFLOW leaves the function unchanged when it is
 * the section's sum that overflows. */
status build_line(builder *b, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
                  const cg_cost *costs, size_t n);
/* The held records join their function's stream: before the streams are read, or joined by
 * other threads. */
status build_release_held(builder *b);
/* Adds a call (counts summed) and gives its cost row, to which the caller adds; ST_OVERFLOW
 * when the summed count saturates (the row is still given). `guessed`: the callee's file was
 * not given in the input. */
status build_call(builder *b, const call_rec *key, int guessed, cg_cost **row);
status build_jump(builder *b, const jump_rec *key);
/* A split load's stitch: the calls and jumps of `fn` that one piece holds (in `from_pool`),
 * which come after those the function has (copied whole when it has none and they are
 * `distinct`, else merged through its lookup), `from` left empty; ST_OVERFLOW when a sum
 * saturates. */
status build_take_records(builder *b, uint32_t fn, fn_records *from, rec_pool *from_pool,
                          int distinct);

/* ---- sections ---- */
enum { SEC_COSTS, SEC_SUMMARY, SEC_TOTALS };
/* The open section (the last one), or CG_NONE. */
static inline size_t build_section_current(const builder *b) {
    return b->section;
}
/* Opens a new section (the previous one must be closed): it is the open one until closed. */
status build_section_open(builder *b, uint32_t source, uint64_t first_line);
status build_header(builder *b, uint32_t key, uint32_t value);
/* The events its events: line lists, replacing any list it had. */
status build_section_events(builder *b, const uint32_t *events, size_t n);
void build_section_positions(builder *b, unsigned mask);
/* A cost row of the open section (SEC_*), valid until the next event or section is added. */
cg_cost *build_section_row(builder *b, int which);
/* The summary: or totals: row was given, at `line`. */
void build_section_mark(builder *b, int which, uint64_t line);
int build_section_has_header(const builder *b, const char *key, size_t klen);
int build_section_has_totals(const builder *b);
/* Whether the options keep the open section (to be asked once its header is read). */
int build_section_chosen(const builder *b);
/* Closes the open section: kept, or taken out of the model. */
status build_section_close(builder *b, int keep);
/* The totals: or summary: line of a kept section against the costs read: doubts reported at
 * `site` (a warning each); when it has no totals: and `cut`, the fault of an input cut short,
 * at `line`. Returns 0, or -1 when the load stops. */
int build_section_check(const builder *b, size_t section, int cut, uint64_t line,
                        const fault_site *site);

#pragma GCC visibility pop

#endif
