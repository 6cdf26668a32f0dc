/* piece_names.h - the names of a piece that a split load parses with names of its own
 * (split.c: profiles whose lines are mostly names, as Xdebug writes them). The piece's worker
 * reads its name lines itself and numbers what it meets in the piece's own terms: a string
 * written in the piece, a compressed id the piece uses before defining it (defined before the
 * piece), the file, object or callee name in force where the piece begins; and functions as
 * (name, file, object) of those, in the order the piece first uses them. The stitch, in input
 * order, turns them into the model's strings and functions, made in the order a load on one
 * thread makes them, or says that the piece cannot be placed so (it is then parsed again as
 * one thread parses it). */
#ifndef CG_PIECE_NAMES_H
#define CG_PIECE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "idmap.h"
#include "idxtab.h"
#include "parser.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The refs every piece begins with: the parser's state where the piece begins. */
enum { PREF_OB, PREF_FL, PREF_FILE, PREF_CFN, PREF_FIRST };

typedef struct piece_ref {
    const char *text; /* a string written in the piece (in its text), else NULL */
    size_t len;
    int table;   /* a compressed id used before the piece defines it: its table ... */
    uint64_t id; /* ... and id */
} piece_ref;

typedef struct piece_fn {
    uint32_t name, file, object; /* refs */
    int defined;                 /* a fn= line of the piece binds it */
} piece_fn;

/* A definition `(id) name` of the piece, in input order. */
typedef struct piece_def {
    int table;
    uint64_t id;
    uint32_t ref;
} piece_def;

typedef struct piece_names {
    idmap ids[IDS_COUNT]; /* the piece's compressed ids -> refs, for its parser */
    piece_ref *refs;
    size_t nrefs, refs_cap;
    idxtab texts; /* the refs of written strings, by text */
    piece_fn *fns;
    size_t nfns, fns_cap;
    idxtab fn_index; /* the functions, by identity */
    /* the function last found under a name ref, tried first (a name is nearly always one
     * function): index + 1, 0 = none; by ref, [0, by_name_cap) */
    uint32_t *by_name;
    size_t by_name_cap;
    piece_def *defs;
    size_t ndefs, defs_cap;
    uint64_t seed;
    int ready; /* the name tables are made */
    /* the stitch's: ref -> string id, piece function -> function index */
    uint32_t *ref_map, *fn_map;
    size_t ref_map_cap, fn_map_cap;
} piece_names;

/* Empties the names for a piece (the first use initialises them). */
void piece_names_reset(piece_names *pn, uint64_t seed);
void piece_names_free(piece_names *pn);

/* The worker's side; each returns 0, or -1 when out of memory. */
/* The ref of a string written in the piece (one per distinct text). */
int piece_names_text(piece_names *pn, const char *s, size_t len, uint32_t *ref);
/* A new ref for compressed id `id` of `table`, used before the piece defines it. */
int piece_names_before(piece_names *pn, int table, uint64_t id, uint32_t *ref);
/* Whether `ref` stands for an id defined before the piece. */
static inline int piece_names_is_before(const piece_names *pn, uint32_t ref) {
    return ref >= PREF_FIRST && !pn->refs[ref].text;
}
/* Notes the piece's definition of `id` of `table` as `ref`. */
int piece_names_define(piece_names *pn, int table, uint64_t id, uint32_t ref);
/* The piece's function of those refs, made when new; `defined`: a fn= line binds it. */
int piece_names_function(piece_names *pn, uint32_t name, uint32_t file, uint32_t object,
                         int defined, uint32_t *fn);

/* The stitch's side: the piece's strings and functions in the model, in input order, after
 * the pieces before it (`st`: the parser's state where the piece begins; its name tables get
 * the piece's definitions). Fills ref_map and fn_map and marks the functions fn= lines bind
 * (build_defined). Returns 0; 1 when a load on one thread would read the piece otherwise (an
 * id it does not know, a definition that changes one, two of the piece's functions that are
 * one function, a callee named by no cfn=), before anything but strings and functions (made
 * as one thread makes them) is added; -1 when out of memory. */
int piece_names_place(piece_names *pn, builder *b, parse_state *st);

#pragma GCC visibility pop

#endif
