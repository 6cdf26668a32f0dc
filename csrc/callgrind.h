/*
 * callgrind.h - read Callgrind and Cachegrind profiles into a compact, read-only model.
 *
 * This is the whole public C API. It knows nothing of Lua: the Lua binding (binding/) and any
 * other embedder use only what is declared here.
 *
 * Conventions:
 * - Objects are addressed by 0-based indexes: function, call, line, jump, section, cycle,
 *   event. CG_NONE marks "no such object".
 * - Strings returned are NUL-terminated, owned by the profile and valid until it is freed.
 *   An absent name (no ob= line, bare `ob=`) is the empty string, never NULL.
 * - Costs are signed 64-bit integers. A cost row is an array of cg_raw_event_count() values in
 *   event order; cg_cost_of() reads raw and derived events out of a row with overflow checks.
 */
#ifndef CALLGRIND_H
#define CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

#ifdef __cplusplus
extern "C" {
#endif

#define CG_VERSION "0.1.0"

typedef struct cg_profile cg_profile;
typedef struct cg_loader cg_loader;
typedef int64_t cg_cost;

#define CG_NONE ((size_t)-1)

/* Error kinds, in cg_error.code. */
enum {
    CG_OK = 0,
    CG_ERR_FORMAT,   /* malformed input */
    CG_ERR_IO,       /* cannot open or read a file */
    CG_ERR_NOMEM,    /* out of memory */
    CG_ERR_ABORTED,  /* the progress callback asked to stop */
    CG_ERR_OVERFLOW, /* a sum does not fit in 64 bits */
    CG_ERR_USAGE     /* bad argument to an API function */
};

typedef struct cg_error {
    int code;
    uint64_t line;      /* 1-based line of the fault, 0 when not tied to a line */
    char message[1024]; /* "NAME:LINE: what is wrong", always NUL-terminated */
} cg_error;

/* Called a bounded number of times during a load; returning non-zero aborts the load. */
typedef int (*cg_progress_fn)(void *userdata, uint64_t done_bytes, uint64_t total_bytes);

typedef struct cg_options {
    int tolerant;            /* 0: the first malformed line fails the load; else skip it, warn */
    cg_progress_fn progress; /* optional */
    void *progress_userdata;
    size_t max_warnings; /* warnings kept (more are only counted); 0 means 1000 */
    /* Keep only some sections (0: any): the n-th section read (1-based, counting every input
     * in order), and/or those with this `part:` and `thread:` (absent headers count as 1). The
     * other sections are read for their name definitions only. */
    size_t section;
    uint64_t part, thread;
    /* 1: no cycle detection. A function called by another costs the sum of its incoming calls,
     * any other its self cost plus its calls (self-calls left out of both), whatever recursion
     * there is: callgrind_annotate's numbers. 0: cycles as KCachegrind shows them. */
    int no_cycles;
    /* Threads a load may use: 0 means the cores available, at most 8; 1 loads on the calling
     * thread alone. The model, warnings and errors are the same whatever the number. */
    int threads;
    /* For tests only: the bytes of a piece of a split load, and of the records handed from one
     * thread to another in the other threaded loads (0: the defaults), so that small inputs are
     * cut into many pieces. */
    size_t chunk_size;
} cg_options;

/* ---- Loading ------------------------------------------------------------------------------ */

/* One input: a path, or a memory buffer (gzip data is recognised by its magic bytes). */
cg_profile *cg_load_file(const char *path, const cg_options *opts, cg_error *err);
cg_profile *cg_load_buffer(const void *data, size_t size, const char *name, const cg_options *opts,
                           cg_error *err);

/* Several inputs summed into one model (threads of a run, several runs): each input adds its
 * sections; functions are matched by (name, file, object), events by name. */
cg_loader *cg_loader_new(const cg_options *opts, cg_error *err);
int cg_loader_add_file(cg_loader *loader, const char *path, cg_error *err);
int cg_loader_add_buffer(cg_loader *loader, const void *data, size_t size, const char *name,
                         cg_error *err);
/* Runs the analysis and hands over the model; the loader is freed in every case. */
cg_profile *cg_loader_finish(cg_loader *loader, cg_error *err);
void cg_loader_free(cg_loader *loader);

void cg_profile_free(cg_profile *profile);

/* Bytes of memory the model holds (from the capacity of its arrays): what an embedder tells its
 * garbage collector a profile costs. */
size_t cg_profile_bytes(const cg_profile *profile);

/* ---- New profiles from loaded ones -------------------------------------------------------- */

/* The sum of `n` profiles, each multiplied by its weight (NULL: all 1): 1 merges runs or
 * threads, -1 subtracts a base run. Functions are matched by (name, file, object), events by
 * name. Call and jump counts add for positive weights only, so a difference keeps the counts of
 * the runs added to it. The sources stay valid and unchanged. */
cg_profile *cg_profile_combine(const cg_profile *const *profiles, const int64_t *weights, size_t n,
                               const cg_options *opts, cg_error *err);
/* The same sum without the line records and the jumps: each function has one record, at line
 * 0 of its file, of its self cost. Its functions, their self and inclusive costs, its calls and
 * cycles are cg_profile_combine's; what compares runs function by function needs no more, and
 * merging the records and jumps is most of a sum's work. */
cg_profile *cg_profile_combine_functions(const cg_profile *const *profiles, const int64_t *weights,
                                         size_t n, const cg_options *opts, cg_error *err);

/* A copy with the functions for which keep[fn] is zero folded into one function named
 * `dropped_name` (NULL: "(dropped functions)"): their costs, and calls to and from them, stay
 * in the profile, so totals and the inclusive costs of the kept functions do not change. */
cg_profile *cg_profile_select(const cg_profile *p, const unsigned char *keep,
                              const char *dropped_name, const cg_options *opts, cg_error *err);

/* Whether the analysis looked for cycles (cg_options.no_cycles was 0). The functions above
 * use only `no_cycles` of `opts`; with NULL they look for cycles unless no source did. */
int cg_profile_cycles_detected(const cg_profile *p);

/* ---- Events ------------------------------------------------------------------------------- */

/* Raw events (read from the file) come first, in order of first appearance; derived events
 * (`event: X = formula` lines and the known formulas L1m, LLm, Bm, CEst...) follow. */
size_t cg_event_count(const cg_profile *p);
size_t cg_raw_event_count(const cg_profile *p);
const char *cg_event_name(const cg_profile *p, size_t ev);
const char *cg_event_long_name(const cg_profile *p, size_t ev); /* "" when none */
const char *cg_event_formula(const cg_profile *p, size_t ev);   /* "" for raw events */
size_t cg_event_index(const cg_profile *p, const char *name);   /* CG_NONE when unknown */
/* Whether a derived event is one of the known formulas added by the reader itself. */
int cg_event_builtin(const cg_profile *p, size_t ev);

/* Reads event `ev` of a cost row; returns CG_OK or CG_ERR_OVERFLOW (derived events). */
int cg_cost_of(const cg_profile *p, const cg_cost *row, size_t ev, cg_cost *out);

/* Sum of all self costs of all sections. */
const cg_cost *cg_total_costs(const cg_profile *p);

/* Position columns seen in any section: a bit set of CG_POS_*. */
enum { CG_POS_INSTR = 1, CG_POS_BB = 2, CG_POS_LINE = 4 };
unsigned cg_positions(const cg_profile *p);

/* ---- Functions ---------------------------------------------------------------------------- */

size_t cg_function_count(const cg_profile *p);
const char *cg_function_name(const cg_profile *p, size_t fn);
const char *cg_function_file(const cg_profile *p, size_t fn); /* the fl= file */
const char *cg_function_object(const cg_profile *p, size_t fn);
uint64_t cg_function_called(const cg_profile *p, size_t fn); /* sum of incoming call counts */
size_t cg_function_cycle(const cg_profile *p, size_t fn);    /* cycle index or CG_NONE */
const cg_cost *cg_function_self(const cg_profile *p, size_t fn);
const cg_cost *cg_function_inclusive(const cg_profile *p, size_t fn);

/* Outgoing calls (callees), incoming calls (callers) and jumps of a function; `i` runs from 0
 * to the count; the result is a call or jump index (file order). Line records are read with a
 * cg_line_cursor. */
size_t cg_function_callee_count(const cg_profile *p, size_t fn);
size_t cg_function_callee(const cg_profile *p, size_t fn, size_t i);
size_t cg_function_caller_count(const cg_profile *p, size_t fn);
size_t cg_function_caller(const cg_profile *p, size_t fn, size_t i);
size_t cg_function_line_count(const cg_profile *p, size_t fn);
/* The file every line record of the function lies in (its own code, or code inlined from one
 * file), or NULL when they lie in several files or there are none: a function in one file
 * costs that file its self cost. Reads the records' files only, and stops at a second file. */
const char *cg_function_single_file(const cg_profile *p, size_t fn);
size_t cg_function_jump_count(const cg_profile *p, size_t fn);
size_t cg_function_jump(const cg_profile *p, size_t fn, size_t i);
/* The jumps whose target is in the function (jfn= naming it, or its own jumps without jfn=),
 * from the function itself and from others, in file order. */
size_t cg_function_jump_in_count(const cg_profile *p, size_t fn);
size_t cg_function_jump_in(const cg_profile *p, size_t fn, size_t i);

/* First function with this name (and file/object when not NULL), or CG_NONE; `after` lets a
 * caller walk all matches: pass CG_NONE first, then the previous result. The first lookup puts
 * the functions in name order (kept with the profile), so that the next ones are a binary
 * search. */
size_t cg_find_function(cg_profile *p, const char *name, const char *file, const char *object,
                        size_t after);
/* The k-th function in name order (strcmp's; equal names in the order the functions were first
 * met), from the same order as cg_find_function; CG_NONE when it cannot be made (no memory). */
size_t cg_function_in_name_order(cg_profile *p, size_t k);

/* ---- Calls (one record per caller, callee and call site) ---------------------------------- */

size_t cg_call_count(const cg_profile *p);
size_t cg_call_caller(const cg_profile *p, size_t call);
size_t cg_call_callee(const cg_profile *p, size_t call);
uint64_t cg_call_times(const cg_profile *p, size_t call);   /* the calls= count, summed */
const char *cg_call_file(const cg_profile *p, size_t call); /* call site, inline file included */
uint64_t cg_call_line(const cg_profile *p, size_t call);
uint64_t cg_call_addr(const cg_profile *p, size_t call);
uint64_t cg_call_target_line(const cg_profile *p, size_t call); /* advisory: as the file says */
uint64_t cg_call_target_addr(const cg_profile *p, size_t call);
const cg_cost *cg_call_inclusive(const cg_profile *p, size_t call);

/* ---- Rows: callgrind_annotate's "file:function" listing ----------------------------------- */

/* Every line record and call of the profile summed per row in one pass (see rows.c for what a
 * row is), then sorted and cut by cg_rows_select, so that a report reads only what it shows. */
typedef struct cg_rows cg_rows;
typedef struct cg_file_index cg_file_index; /* below */

/* merged = 0: callgrind_annotate's rows, code inlined from another file in a row of its own;
 * 1: one row per function. With the profile's file index (cg_file_index_get; NULL: none), the
 * records of a function in one file are not read to find that out. NULL on failure (out of
 * memory, a sum over 64 bits). */
cg_rows *cg_rows_build(const cg_profile *p, int merged, const cg_file_index *index, cg_error *err);
void cg_rows_free(cg_rows *r);
size_t cg_rows_count(const cg_rows *r);
const char *cg_row_file(const cg_rows *r, size_t row);
const char *cg_row_name(const cg_rows *r, size_t row);
const char *cg_row_object(const cg_rows *r, size_t row);
const char *cg_row_key(const cg_rows *r, size_t row); /* "file:name", "???" for no file */
uint64_t cg_row_called(const cg_rows *r, size_t row); /* of the functions whose own file it is */
int cg_row_primary(const cg_rows *r, size_t row);     /* the row of some function's own file */
const cg_cost *cg_row_self(const cg_rows *r, size_t row);
const cg_cost *cg_row_inclusive(const cg_rows *r, size_t row);
size_t cg_row_function_count(const cg_rows *r, size_t row);
size_t cg_row_function(const cg_rows *r, size_t row, size_t i);

typedef struct cg_rows_query {
    const size_t *sort; /* events to sort by, highest cost first, ties by key then object */
    size_t nsort;
    const double *thresholds; /* one per sort event, percent, as callgrind_annotate's */
    int all;                  /* 1: no threshold (callgrind_annotate's --threshold=100) */
    int inclusive;            /* sort and cut by inclusive costs */
    size_t limit;             /* at most this many rows (SIZE_MAX: no limit) */
} cg_rows_query;

/* Sorts the rows and keeps those a listing shows: callgrind_annotate's threshold rule stops
 * before a row once, for every sort event, the share reached is at least its threshold; the
 * share of a self listing is the sum of the rows shown, of an inclusive one the total less the
 * last row shown. Returns 0, or -1 with *err set. */
int cg_rows_select(cg_rows *r, const cg_rows_query *q, cg_error *err);
size_t cg_rows_shown(const cg_rows *r);
size_t cg_rows_shown_row(const cg_rows *r, size_t k); /* the k-th row shown, in order */

/* ---- Line and instruction costs (equal positions summed) ---------------------------------- */

/* The records of a function are read in order, sorted by (address, line, file name): address
 * order for instruction-level profiles, line order for line-level ones. */
#define CG_MAX_EVENTS 256

typedef struct cg_line {
    const char *file;     /* the fi=/fe= file for inlined code */
    uint64_t line;        /* 0 when positions lack line */
    uint64_t addr;        /* 0 when positions lack instr */
    const cg_cost *costs; /* cg_raw_event_count() values, valid until the next read */
} cg_line;

/* A cursor over one function's records: declare one (or allocate sizeof(cg_line_cursor)) and
 * use it only through the two functions below; its contents are the library's. */
typedef struct cg_line_cursor {
    union {
        void *align;
        unsigned char bytes[64];
    } opaque;
    cg_cost costs[CG_MAX_EVENTS]; /* the row cg_line.costs points to */
} cg_line_cursor;

size_t cg_line_count(const cg_profile *p); /* all records of all functions */
void cg_line_cursor_init(cg_line_cursor *c, const cg_profile *p, size_t fn);
/* Fills *out with the next record and returns 1, or returns 0 after the last. */
int cg_line_cursor_next(cg_line_cursor *c, cg_line *out);

/* The records that follow one another in one file (with CG_RUN_LINE, on one line of it), their
 * costs summed: what sums per file or per line read, a run at a time (a function's
 * instructions come a line and a file at a time). */
typedef struct cg_line_run {
    const char *file;
    uint64_t line;        /* with CG_RUN_LINE the run's line (0 when positions lack line) */
    size_t records;       /* how many were summed */
    const cg_cost *costs; /* cg_raw_event_count() sums, valid until the next read */
} cg_line_run;

enum { CG_RUN_FILE = 0, CG_RUN_LINE = 1 };

/* Fills *out with the next run of a cursor (CG_RUN_FILE or CG_RUN_LINE) and returns 1; returns
 * 0 after the last record, -1 when a sum does not fit in 64 bits (the cursor is past that run).
 * Records and runs may be read from one cursor in turn. */
int cg_line_cursor_next_run(cg_line_cursor *c, int kind, cg_line_run *out);

/* ---- Source files: the functions with code in each ---------------------------------------- */

/* Every source file that has line records (a function's own code, or code inlined there) or
 * call sites, by name as the profile writes it ("" for records without a file), each with the
 * functions that have them, in increasing index order. Built by one walk over the records that
 * decodes their files only, on the first call, and kept with the profile (freed with it); a
 * load does not build it. NULL with err when out of memory. */
const cg_file_index *cg_file_index_get(cg_profile *p, cg_error *err);
/* The profile's file index if a cg_file_index_get has built it, else NULL (none is built). */
const cg_file_index *cg_file_index_built(const cg_profile *p);
size_t cg_file_index_count(const cg_file_index *x);                    /* files, by name */
const char *cg_file_index_name(const cg_file_index *x, size_t k);      /* strcmp order */
size_t cg_file_index_find(const cg_file_index *x, const char *name);   /* k or CG_NONE */
size_t cg_file_index_function_count(const cg_file_index *x, size_t k); /* functions there */
size_t cg_file_index_function(const cg_file_index *x, size_t k, size_t i);
/* What the i-th function of file k has there: CG_IN_CALLS, only call sites (no record to read);
 * CG_IN_LINE, every one of its records, all on one line (*line, when line is not NULL), so
 * that its self cost is that line's; CG_IN_RECORDS, records to read. */
enum { CG_IN_CALLS = 0, CG_IN_LINE = 1, CG_IN_RECORDS = 2 };
int cg_file_index_function_kind(const cg_file_index *x, size_t k, size_t i, uint64_t *line);
/* cg_function_single_file as the index knows it, without reading the function's records. */
const char *cg_file_index_single_file(const cg_file_index *x, size_t fn);

/* The self cost of event `ev` per source line over the records of functions [first, stop)
 * (all: 0, cg_function_count), only those in `file` when it is not NULL: one sum per (file,
 * line) in order of first appearance, code inlined from another file under that file, line 0
 * for code without line information (every record when the profile has no line positions).
 * NULL with err on failure (out of memory, a sum beyond 64 bits). */
typedef struct cg_line_sums cg_line_sums;
cg_line_sums *cg_line_sums_build(const cg_profile *p, size_t ev, const char *file, size_t first,
                                 size_t stop, cg_error *err);
/* The same sums for the lines of one file over every function, reading only the records of the
 * functions the file index gives for it (cg_file_index_get, built on first use). */
cg_line_sums *cg_line_sums_build_file(cg_profile *p, size_t ev, const char *file, cg_error *err);
void cg_line_sums_free(cg_line_sums *s);
size_t cg_line_sums_count(const cg_line_sums *s);
const char *cg_line_sums_file(const cg_line_sums *s, size_t i);
uint64_t cg_line_sums_line(const cg_line_sums *s, size_t i);
cg_cost cg_line_sums_cost(const cg_line_sums *s, size_t i);

/* ---- Jumps (jump= and jcnd=, equal source and target summed) ------------------------------ */

size_t cg_jump_count(const cg_profile *p);
size_t cg_jump_function(const cg_profile *p, size_t jump);
const char *cg_jump_from_file(const cg_profile *p, size_t jump);
uint64_t cg_jump_from_line(const cg_profile *p, size_t jump);
uint64_t cg_jump_from_addr(const cg_profile *p, size_t jump);
size_t cg_jump_to_function(const cg_profile *p, size_t jump); /* jfn=, else the same function */
const char *cg_jump_to_file(const cg_profile *p, size_t jump);
uint64_t cg_jump_to_line(const cg_profile *p, size_t jump);
uint64_t cg_jump_to_addr(const cg_profile *p, size_t jump);
uint64_t cg_jump_executed(const cg_profile *p, size_t jump);
uint64_t cg_jump_taken(const cg_profile *p, size_t jump);
int cg_jump_conditional(const cg_profile *p, size_t jump);

/* ---- Cycles (mutual recursion: strongly connected components of >= 2 functions) ----------- */

size_t cg_cycle_count(const cg_profile *p);
const char *cg_cycle_name(const cg_profile *p, size_t cycle); /* "<cycle N>", N = cycle + 1 */
size_t cg_cycle_member_count(const cg_profile *p, size_t cycle);
size_t cg_cycle_member(const cg_profile *p, size_t cycle, size_t i);
const cg_cost *cg_cycle_self(const cg_profile *p, size_t cycle);
const cg_cost *cg_cycle_inclusive(const cg_profile *p, size_t cycle);

/* ---- Sections (one per part and thread, per input file) ----------------------------------- */

size_t cg_section_count(const cg_profile *p);
const char *cg_section_source(const cg_profile *p, size_t s); /* input name */
uint64_t cg_section_first_line(const cg_profile *p, size_t s);
/* Header lines in file order, `key: value` with the value trimmed (desc: keeps "type: value"). */
size_t cg_section_header_count(const cg_profile *p, size_t s);
const char *cg_section_header_key(const cg_profile *p, size_t s, size_t i);
const char *cg_section_header_value(const cg_profile *p, size_t s, size_t i);
/* Events listed by the section's events: line, as global raw event indexes. */
size_t cg_section_event_count(const cg_profile *p, size_t s);
size_t cg_section_event(const cg_profile *p, size_t s, size_t i);
unsigned cg_section_positions(const cg_profile *p, size_t s);
/* Header `i` of a section read as a field: `pid:`, `part:` and `thread:` as numbers (when their
 * value is one), `cmd:`, `creator:` and `version:` as text, `desc: NAME: VALUE` as NAME and
 * VALUE; CG_FIELD_NONE for any other header. `name` is the key, or the desc: line's NAME
 * (`name_len` bytes, not NUL-terminated). */
enum { CG_FIELD_NONE, CG_FIELD_NUMBER, CG_FIELD_TEXT, CG_FIELD_DESC };
typedef struct cg_header_field {
    int kind;
    const char *name;
    size_t name_len;
    const char *text; /* TEXT and DESC */
    uint64_t number;  /* NUMBER */
} cg_header_field;
void cg_section_header_field(const cg_profile *p, size_t s, size_t i, cg_header_field *out);
const cg_cost *cg_section_costs(const cg_profile *p, size_t s);   /* sum of its self costs */
const cg_cost *cg_section_summary(const cg_profile *p, size_t s); /* NULL when absent */
const cg_cost *cg_section_totals(const cg_profile *p, size_t s);  /* NULL when absent */

/* ---- Writing ------------------------------------------------------------------------------ */

/* Where a writer sends its bytes, in order, a buffer at a time: returns 0, or non-zero to stop
 * the writer, which then fails with CG_ERR_IO. */
typedef int (*cg_write_fn)(void *userdata, const char *data, size_t size);

typedef struct cg_write_options {
    int compress_names;     /* `(id) name` the first time, `(id)` after */
    int compress_positions; /* `+N`, `-N` and `*` relative to the last position line */
} cg_write_options;

/* The function blocks of a Callgrind file, in function order: `ob=`, `fl=` and `fn=` when they
 * change, the function's own file first and inlined code under `fi=`/`fe=` after it, by position
 * within each file; line records, calls (`cob=` when the callee's object differs, `cfi=` and
 * `cfn=` always, `calls=` with the target, then the call site with the inclusive costs) and jumps
 * (`jfi=`/`jfn=` when the target differs, `jump=` or `jcnd=`); costs of the raw events with
 * trailing zeros left out; each block ends with an empty line. Positions use the columns the
 * profile has (`instr` and/or `line`, `line` when it has neither). The header before and the
 * `totals:` line after are the caller's. Returns 0, or -1 with err set. */
int cg_write_callgrind(const cg_profile *p, const cg_write_options *opts, cg_write_fn write,
                       void *userdata, cg_error *err);

/* webgrind's preprocessed format (version 7) for event `ev` up to its header lines, which the
 * caller appends: version, headers offset, function count, the offsets table, and per function
 * its first line, self and inclusive cost, invocations (the called count, or 1 for a function
 * nobody calls that has a self cost or calls of its own), its incoming and outgoing calls grouped
 * by (other function, call line) in order of first appearance, file and name. Every number is
 * checked before a byte is written: one that does not fit in 32 bits fails with CG_ERR_FORMAT
 * and a message naming the function, what, and the value. Returns 0, or -1 with err set. */
int cg_write_webgrind(const cg_profile *p, size_t ev, cg_write_fn write, void *userdata,
                      cg_error *err);

/* ---- Flame graphs ------------------------------------------------------------------------- */

/* Call stacks with costs for one event, built from the call graph on one assumption: every path
 * that reaches a function gets a share of its costs (self cost and calls) in proportion to the
 * cost the path brings in. A function already on the stack is not entered again (recursion and
 * cycles are cut). Roots are the functions nobody calls with a cost (they get their inclusive
 * cost), and called functions whose own cost exceeds what their callers bring in (they get the
 * excess: a thread's entry point merged with another thread's call to it). Costs are whole:
 * the stacks ending in a function add up to its self cost, all stacks to the event's total and
 * the stacks under a root to its cost (exactly, when the profile's call costs agree with its
 * self costs), except that with pruning the [other] frames hold what they replace. Frames come
 * in depth-first order, children sorted by (name, file, object) and [other] last; frames
 * without cost are left out. */
typedef struct cg_flame cg_flame;

typedef struct cg_flame_options {
    size_t event;      /* event index (raw or derived) */
    double min_share;  /* 0..1: calls below this share of the total fold into an [other] frame */
    size_t max_depth;  /* > 0: at most this many frames deep; deeper calls fold into [other] */
    size_t max_frames; /* > 0: fail (CG_ERR_USAGE) rather than make more frames */
} cg_flame_options;

/* NULL with the error on failure; a negative cost in the event is an error (CG_ERR_USAGE). */
cg_flame *cg_flame_build(const cg_profile *p, const cg_flame_options *opts, cg_error *err);
void cg_flame_free(cg_flame *flame);
cg_cost cg_flame_total(const cg_flame *flame); /* the sum of every frame's self cost */
size_t cg_flame_frame_count(const cg_flame *flame);
size_t cg_flame_frame_function(const cg_flame *flame, size_t i); /* CG_NONE for [other] */
size_t cg_flame_frame_parent(const cg_flame *flame, size_t i);   /* CG_NONE for roots */
size_t cg_flame_frame_depth(const cg_flame *flame, size_t i);    /* 0 for roots */
cg_cost cg_flame_frame_self(const cg_flame *flame, size_t i);    /* the cost of its stack */
cg_cost cg_flame_frame_total(const cg_flame *flame, size_t i);   /* with its children */

/* The folded text that flamegraph.pl, inferno and speedscope read: one line per frame with a
 * self cost, "root;child;leaf COST". Frames are function names, with "file:" before them
 * (CG_FLAME_FILE, "???" for none) and " [object]" after (CG_FLAME_OBJECT); `;` in a name is
 * written `,`, line ends as spaces. `prefix` (NULL or "": none) is a first frame on every line.
 * The text goes to `write` in pieces; a non-zero return from it fails the call (CG_ERR_IO). */
enum { CG_FLAME_FILE = 1, CG_FLAME_OBJECT = 2 };
int cg_flame_write_folded(const cg_flame *flame, unsigned label, const char *prefix,
                          cg_write_fn write, void *userdata, cg_error *err);

/* ---- Warnings (what a load doubted or, when tolerant, skipped) ---------------------------- */

size_t cg_warning_count(const cg_profile *p);
const char *cg_warning(const cg_profile *p, size_t i); /* "NAME:LINE: message" */
uint64_t cg_warnings_dropped(const cg_profile *p);     /* beyond max_warnings */

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif
