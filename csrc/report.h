/* report.h - what the text reports need from the model, summed and laid out in C: the cost
 * columns of callgrind_annotate (columns.c), the function listing with callers and callees
 * (listing.c) and the costs of source lines per file (file_lines.c). Built on callgrind.h alone;
 * the Lua layer chooses what is shown and in what order. */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"

#pragma GCC visibility push(hidden)

/* A hash of three interned strings by their addresses (the model keeps one copy of each name),
 * for the tables that group records by (file, function, object). */
static inline size_t cg_hash_names(const char *file, const char *name, const char *object) {
    uint64_t h = (uint64_t)(uintptr_t)file * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)(uintptr_t)name * 0xC2B2AE3D27D4EB4Fu;
    h ^= (uint64_t)(uintptr_t)object * 0x165667B19E3779F9u;
    return (size_t)(h ^ (h >> 29));
}

/* Adds n costs of `v` into `acc`; non-zero when a sum went beyond 64 bits. */
static inline int cg_add_costs(cg_cost *acc, const cg_cost *v, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= __builtin_add_overflow(acc[i], v[i], &acc[i]);
    return bad;
}

/* Receives text; returns non-zero to stop. */
typedef int (*cg_text_sink)(void *userdata, const char *data, size_t len);

/* ---- columns.c: callgrind_annotate's cost columns --------------------------------------------
 * A column per shown event, as wide as its name and as the widest count it must hold: the
 * count's digits and separators, and 9 characters for " (12.34%)" with percentages. A cell is
 * the count ("." for none), its share of the total, right-aligned in the column, and a blank. */
typedef struct cg_columns {
    size_t n;
    int percentages;
    size_t width[CG_MAX_EVENTS];
    cg_cost total[CG_MAX_EVENTS]; /* what percentages are of */
} cg_columns;

/* Columns as wide as the names; `totals` (n values) for the percentages. */
void cg_columns_init(cg_columns *c, const char *const *names, size_t n, const cg_cost *totals,
                     int percentages);
/* Widens the columns for a row of n values. */
void cg_columns_fit(cg_columns *c, const cg_cost *values);
/* The most a line of cells can take (cells that overflow their column included). */
size_t cg_columns_max(const cg_columns *c);
/* Writes the cells of a row into `out` (cg_columns_max bytes) and returns their length; NULL
 * values: every cell "."; zero_dot: a zero count is "." too. No NUL is written. */
size_t cg_columns_cells(const cg_columns *c, const cg_cost *values, int zero_dot, char *out);
/* The heading: each name padded to its column, and a blank. */
size_t cg_columns_heading(const cg_columns *c, const char *const *names, char *out);
/* "1,234,567": an integer with thousands separators; returns the length (at most 27). */
size_t cg_format_count(cg_cost v, char *out);

/* ---- listing.c: callgrind_annotate's function listing ---------------------------------------
 * The rows cg_rows_select chose, in order, with the heading; with a tree, each row's callers
 * ('<', calls into its functions summed per caller row) and callees ('>', calls made from its
 * file summed per callee), sorted by the sort events. */
/* The `merged` argument of cg_rows_build beyond 0 (split) and 1: */
enum { CG_ROWS_SPLIT = 0, CG_ROWS_MERGED = 1, CG_ROWS_KEYS = 2 };
/* CG_ROWS_KEYS: split rows of the same file and name in several objects as one, as
 * callgrind_annotate keys them (whose object is then ""). */
int cg_rows_merged(const cg_rows *r); /* one row per function */
/* The rows of a split build (merged = 0) summed per (file, name), as CG_ROWS_KEYS builds them,
 * without going over the records again. */
cg_rows *cg_rows_by_key(const cg_rows *split, cg_error *err);
const cg_profile *cg_rows_profile(const cg_rows *r);

enum { CG_TREE_CALLERS = 1, CG_TREE_CALLEES = 2 };

typedef struct cg_listing {
    const size_t *show; /* events shown */
    size_t nshow;
    const size_t *sort; /* events callers and callees are sorted by */
    size_t nsort;
    int inclusive;   /* rows show their inclusive costs */
    int percentages; /* shares of the total after the counts */
    int tree;        /* CG_TREE_* bits */
} cg_listing;

/* Returns 0, or -1 with *err set (out of memory, a cost over 64 bits, the sink stopped). */
int cg_listing_write(const cg_rows *r, const cg_listing *o, cg_text_sink sink, void *userdata,
                     cg_error *err);

/* ---- file_lines.c: the costs of source lines ------------------------------------------------
 * For some files (or all), every line that has line records or makes calls: its self cost
 * summed over every function with code there (raw events), and the calls made from it. */
typedef struct cg_file_lines cg_file_lines;

/* files: the names as the profile writes them ("" for records without a file); NULL: every
 * file. The callees of a line come by their costs in the `sort` events (highest first), then
 * by "file:name", then by count (sort NULL: in the order of their first call). With the
 * profile's file index (cg_file_index_get) and named files, only the records of the functions
 * it gives for them are read, and not even those of a function whose records all lie on one
 * line (its self cost is that line's); NULL: every function's records. NULL on failure. */
cg_file_lines *cg_file_lines_build(const cg_profile *p, const char *const *files, size_t nfiles,
                                   const cg_file_index *index, const size_t *sort, size_t nsort,
                                   cg_error *err);
void cg_file_lines_free(cg_file_lines *f);
const cg_profile *cg_file_lines_profile(const cg_file_lines *f);
size_t cg_file_lines_files(const cg_file_lines *f); /* files that have lines */
const char *cg_file_lines_name(const cg_file_lines *f, size_t file);
size_t cg_file_lines_count(const cg_file_lines *f, size_t file); /* lines, in line order */
uint64_t cg_file_lines_line(const cg_file_lines *f, size_t file, size_t i);
const cg_cost *cg_file_lines_self(const cg_file_lines *f, size_t file, size_t i);
int cg_file_lines_coded(const cg_file_lines *f, size_t file, size_t i); /* has line records */
size_t cg_file_lines_call_count(const cg_file_lines *f, size_t file, size_t i);
size_t cg_file_lines_call(const cg_file_lines *f, size_t file, size_t i, size_t k);
/* The calls of a line summed per callee (recursive calls left out where the line also enters
 * the recursion, see file_lines.c): the callee, the count and the inclusive cost. */
size_t cg_file_lines_callee_count(const cg_file_lines *f, size_t file, size_t i);
size_t cg_file_lines_callee(const cg_file_lines *f, size_t file, size_t i, size_t k);
uint64_t cg_file_lines_callee_calls(const cg_file_lines *f, size_t file, size_t i, size_t k);
const cg_cost *cg_file_lines_callee_inclusive(const cg_file_lines *f, size_t file, size_t i,
                                              size_t k);

/* "file:name" of two functions compared as strings ("???" for no file): how callgrind_annotate
 * labels a callee, and orders callees of equal cost. */
int cg_label_cmp(const cg_profile *p, size_t a, size_t b);

/* ---- annotated.c: annotated source ------------------------------------------------------------
 * One file of a cg_file_lines (built with the shown events as its sort events) written as
 * callgrind_annotate prints it: the heading (the event names), a blank line, then the ranges of
 * the file's lines within `context` of a line with line records, "-- line N ---" between them,
 * each line with its self cost and the calls it makes ("=> file:name (Nx)", summed per label),
 * the lines past the end of the text ("<bogus line N>") with callgrind_annotate's warning, and
 * the cost of code without line information, each line ending in "\n", and a blank line. The
 * costs printed next to source lines are added to `annotated` (one per shown event). 0, or -1
 * with `err` set (no memory, a cost beyond 64 bits, the sink stopped). */
typedef struct cg_annotate_options {
    const size_t *events; /* the shown events (raw or derived) */
    size_t nevents;
    const char *const *names; /* their names */
    const cg_cost *totals;    /* what the percentages are of, one per event */
    int percentages;
    uint64_t context;
} cg_annotate_options;

int cg_annotated_write(const cg_file_lines *f, size_t file, const char *text, size_t size,
                       const cg_annotate_options *o, cg_cost *annotated, cg_text_sink sink,
                       void *userdata, cg_error *err);

/* ---- file_costs.c: the self cost of every source file ----------------------------------------
 * Every file with line records (code inlined from a header counts for the header), in name
 * order, with the sum of its records' raw events. Built with the profile's file index (made on
 * first use); only the records of functions with code in several files are read. NULL with
 * `err` on failure (out of memory, a sum beyond 64 bits). */
typedef struct cg_file_costs cg_file_costs;
cg_file_costs *cg_file_costs_build(cg_profile *p, cg_error *err);
void cg_file_costs_free(cg_file_costs *f);
size_t cg_file_costs_count(const cg_file_costs *f);
const char *cg_file_costs_name(const cg_file_costs *f, size_t i);
const cg_cost *cg_file_costs_row(const cg_file_costs *f, size_t i); /* raw events */

/* ---- pairs.c: calls summed per caller and callee (call graphs) ------------------------------
 * A call graph draws one edge per caller/callee pair, whatever the call sites. */
typedef struct cg_call_pair {
    uint32_t caller, callee;
    uint64_t count; /* calls= counts summed */
    cg_cost cost;   /* inclusive cost of the event asked for summed (0 without one) */
} cg_call_pair;

/* The calls between the functions listed in `fns` (n function indexes; one listed again adds
 * nothing), summed per (caller, callee): the pairs of fns[0] first, then those of fns[1]..., each
 * caller's in the order of its first call to the callee. `ev` is an event index, or CG_NONE for
 * costs of 0. Returns 0 with *out (malloc'd, free() it; NULL when there is none) and *npairs, or -1
 * with `err` set (out of memory, a sum beyond 64 bits). */
int cg_call_pairs(const cg_profile *p, const size_t *fns, size_t n, size_t ev, cg_call_pair **out,
                  size_t *npairs, cg_error *err);

#pragma GCC visibility pop

#endif
