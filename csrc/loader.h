/* loader.h - state of a load in progress: the model being built, the indexes that merge equal
 * records, and the format state of the input being parsed. */
#ifndef CG_LOADER_H
#define CG_LOADER_H

#include <stdarg.h>

#include "idmap.h"
#include "model.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The three name-compression tables of the format. */
enum { IDS_FILE, IDS_FN, IDS_OBJ, IDS_COUNT };

/* What a `calls=`, `jump=` or `jcnd=` line leaves for the next position line to complete. */
enum { ASSOC_NONE, ASSOC_CALL, ASSOC_JUMP, ASSOC_JCND };

/* Position columns in the fixed order the format allows. */
enum { COL_INSTR, COL_BB, COL_LINE, COL_COUNT };

/* An `event:` line: long name and formula of an event, applied when the load finishes. */
typedef struct event_desc {
    uint32_t name, long_name, formula;
    uint32_t source;
    uint64_t line;
} event_desc;

typedef struct parse_state {
    const char *name; /* input name for messages */
    uint32_t source;  /* its string id */
    uint64_t lineno;
    cg_error *err; /* where the running parse call reports */
    idmap ids[IDS_COUNT];

    size_t section; /* current section, or CG_NONE before the first */
    int body_started;
    int skip_records; /* the options leave this section out: read its names only */
    int have_events;
    int events_seen;          /* any events: line in this input */
    int ncols;                /* position columns per line */
    int col_kind[COL_COUNT];  /* COL_* of each column */
    uint64_t last[COL_COUNT]; /* last value per column kind, for +N, -N and * */
    int has_last[COL_COUNT];
    uint32_t *event_map; /* section column -> raw event */
    size_t nevent_map, event_map_cap;
    int identity_map; /* event_map[i] == i for all i */

    int writes_totals; /* the creator: (callgrind) ends every part with totals: */

    uint32_t ob, fl, file; /* string ids; file is the fi=/fe= aware one */
    int have_fl;
    uint32_t fn; /* function index or NO_INDEX */

    uint32_t cob, cfi; /* string ids, NO_INDEX when not given */
    uint32_t cfn;      /* callee name (string id), NO_INDEX before the first cfn= */
    uint32_t jfi, jfn; /* jump target file / function, NO_INDEX when not given */

    int assoc; /* ASSOC_* */
    uint64_t assoc_line;
    uint64_t assoc_count, assoc_taken;
    uint32_t assoc_callee; /* function index of the pending call */
    int assoc_guessed;     /* its file was not given (no cfi=/cfl=): see resolve.c */
    uint64_t assoc_target[COL_COUNT];
} parse_state;

#define FN_CACHE_BITS 15

typedef struct fn_cache_entry {
    uint32_t name, file, object, fn; /* fn + 1, 0 = empty */
} fn_cache_entry;

/* What a function's next call and jump are expected to be: a new block of a function that was
 * read before repeats its records in the same order (callgrind's contexts, Xdebug's calls), so
 * the record after the last one matched is compared before any hash lookup. */
typedef struct fn_cursor {
    uint32_t first_call, last_call, next_call;
    uint32_t first_jump, last_jump, next_jump;
} fn_cursor;

struct cg_loader {
    cg_profile *p;
    uint64_t seed; /* of every hash table of the load */
    cg_options opts;
    idxtab fn_index, call_index, jump_index;
    fn_cache_entry fn_cache[1 << FN_CACHE_BITS];
    line_scratch scratch; /* for compacting line records */
    uint32_t block_fn;    /* the function of the last fn= block, or NO_INDEX */
    event_desc *descs;
    size_t ndescs, descs_cap;
    /* For resolve.c: functions bound by a fn= line, calls whose callee file was guessed. */
    unsigned char *fn_defined, *call_guessed;
    size_t fn_defined_cap, call_guessed_cap;
    fn_cursor *cursors;              /* per function */
    uint32_t *call_next, *jump_next; /* the next record of the same function, in reading order */
    size_t cursors_cap, call_next_cap, jump_next_cap;
    parse_state st;
    size_t sections_read; /* every section of every input, kept or not */
    /* (part, thread) of every section read, for the error when the options keep none */
    uint64_t (*read_ids)[2];
    size_t read_ids_cap;
    size_t inputs, inputs_with_text; /* inputs read, and those that were not empty */
    cg_cost values[MAX_RAW_EVENTS];  /* scratch for one line's costs */
    cg_cost row[MAX_RAW_EVENTS]; /* the same in event order, when a section orders them otherwise */
    char message[768];           /* text of the error being reported */
    int failed;
};

/* ---- builder.c: records, merged by their identity ---- */
int64_t build_function(cg_loader *ld, uint32_t name, uint32_t file, uint32_t object);
/* Adds a line record's costs (`n` values in event order) to the function's records and its self
 * cost: 0, -1 out of memory, -2 a sum beyond 64 bits. */
int build_line(cg_loader *ld, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
               const cg_cost *costs, size_t n);
/* Returns 0, -1 when the summed call count overflows (the row is still set), -2 out of memory.
 * `guessed` tells that the callee's file was not given in the input. */
int build_call(cg_loader *ld, const call_rec *key, int guessed, cg_cost **row);
/* Marks a function as bound by a fn= line, where a block of its records begins. */
int build_defined(cg_loader *ld, uint32_t fn);
/* Once every input is read: the record arrays give back their room for growth. */
void build_shrink(cg_loader *ld);

/* ---- resolve.c: callees named without their file ---- */
int resolve_guessed_callees(cg_loader *ld, cg_error *err);
int build_jump(cg_loader *ld, const jump_rec *key);
/* Raw event index of a name, adding the event (and widening every cost row) when new. */
int64_t build_event(cg_loader *ld, const char *name, size_t len);
int build_section(cg_loader *ld, uint32_t source, uint64_t first_line);
int build_header(cg_loader *ld, uint32_t key, uint32_t value);

/* ---- events.c: long names and derived events from `event:` lines and known formulas ---- */
int apply_event_descs(cg_loader *ld, cg_error *err);
/* Whether an event is one of KCachegrind's formulas that the analysis adds by itself. */
int event_is_known_formula(const char *name, const char *formula);

/* ---- parser.c: one input ---- */
void parse_begin(cg_loader *ld, const char *name, uint32_t source);
/* Parses complete lines in [data, data + size); the last line may lack its newline only when
 * at the end of the input. Returns 0, or -1 with the error in err. */
int parse_lines(cg_loader *ld, const char *data, size_t size, cg_error *err);
int parse_end(cg_loader *ld, cg_error *err);
void parse_state_free(parse_state *st);

/* ---- reader.c: bytes of files, gzip streams and buffers, handed over in whole lines ---- */
int read_file(cg_loader *ld, const char *path, cg_error *err);
int read_buffer(cg_loader *ld, const void *data, size_t size, cg_error *err);

/* ---- errors ---- */
void set_error(cg_error *err, int code, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#pragma GCC visibility pop

#endif
