/* parser.h - the Callgrind format, one line at a time. The parser holds the format state of the
 * input being read (name tables, current function and files, last positions, the association
 * waiting for its position line) and hands every record, event and section to a builder; it
 * reports faults at its fault site. It knows nothing of where the lines come from (parser_sink
 * makes it a reader's line sink) nor of other inputs. */
#ifndef CG_PARSER_H
#define CG_PARSER_H

#include "builder.h"
#include "fault.h"
#include "idmap.h"
#include "pipeline.h"
#include "reader.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* The three name-compression tables of the format. */
enum { IDS_FILE, IDS_FN, IDS_OBJ, IDS_COUNT };

/* What a `calls=`, `jump=` or `jcnd=` line leaves for the next position line to complete. */
enum { ASSOC_NONE, ASSOC_CALL, ASSOC_JUMP, ASSOC_JCND };

/* The position specifications (`key=name` lines). */
enum { SPEC_FN, SPEC_FL, SPEC_FI, SPEC_OB, SPEC_CFN, SPEC_CFI, SPEC_COB, SPEC_JFI, SPEC_JFN };

/* The specification a key of `klen` characters names (fe= is fi=, cfl= is cfi=), or -1.
 * Inline: the parser and a split load's splitter ask at every name line. */
static inline int parse_spec_of(const char *key, size_t klen) {
    if (klen == 2) {
        if (key[0] == 'f') {
            if (key[1] == 'n') return SPEC_FN;
            if (key[1] == 'l') return SPEC_FL;
            if (key[1] == 'i' || key[1] == 'e') return SPEC_FI;
        }
        return key[0] == 'o' && key[1] == 'b' ? SPEC_OB : -1;
    }
    if (klen != 3) return -1;
    if (key[0] == 'c' && key[1] == 'f') {
        if (key[2] == 'n') return SPEC_CFN;
        if (key[2] == 'i' || key[2] == 'l') return SPEC_CFI;
        return -1;
    }
    if (key[0] == 'c' && key[1] == 'o' && key[2] == 'b') return SPEC_COB;
    if (key[0] == 'j' && key[1] == 'f') {
        if (key[2] == 'i') return SPEC_JFI;
        if (key[2] == 'n') return SPEC_JFN;
    }
    return -1;
}

/* Position columns in the fixed order the format allows. */
enum { COL_INSTR, COL_BB, COL_LINE, COL_COUNT };

/* The format state: everything the meaning of the next line depends on. Apart from the name
 * tables and the event map (owned buffers), it is plain values, so that a parser can be started
 * from any state. */
typedef struct parse_state {
    uint32_t source; /* string id of the input name */
    uint64_t lineno;
    idmap ids[IDS_COUNT];

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
    uint64_t cfn_id;   /* the compressed id it was named by (PARSE_NO_ID: none), whose memo
                        * the calls= line reads (function_of) */
    uint32_t jfi, jfn; /* jump target file / function, NO_INDEX when not given */

    int assoc; /* ASSOC_* */
    uint64_t assoc_line;
    uint64_t assoc_count, assoc_taken;
    uint32_t assoc_callee; /* function index of the pending call */
    int assoc_guessed;     /* its file was not given (no cfi=/cfl=): see resolve.c */
    uint64_t assoc_target[COL_COUNT];
} parse_state;

/* The names a split load's reading thread resolved (split.h): for each name line of a piece, in
 * order, the string id its name gives, then the function index when the line binds one. */
/* No compressed id: a name written out, or read the general way. */
#define PARSE_NO_ID UINT64_MAX

typedef struct name_list {
    uint32_t *v;
    size_t n, cap;
} name_list;

struct piece_build;
struct piece_names;

typedef struct parser {
    builder *b;     /* where records go */
    pipeline *pipe; /* in a threaded load, where records go instead (NULL: to b) */
    /* A split load (split.h). The splitter's parser writes what its name lines resolve to
     * into names_out; a piece's parser reads them from names_in instead of resolving them
     * and puts its records into `local` instead of the builder. */
    name_list *names_out;
    const uint32_t *names_in;
    size_t names_left;
    struct piece_build *local;
    /* A piece with names of its own (piece_names.h): its name lines are read here, strings and
     * functions numbered in the piece, and nothing is asked of the builder. */
    struct piece_names *own;
    /* A split load's own lines (headers, lines it did not cut around): a negative cost or a sum
     * beyond 64 bits stops the parser with split_redo set, since pieces summed apart from
     * them may have met it elsewhere; the input is then loaded again on one thread. Off once
     * cutting stops for good, every piece stitched (split.c, give_up). */
    int split_sums, split_redo;
    fault_site site; /* where faults go: the input's name, strict or tolerant */
    parse_state st;
    /* one line's costs as the section lists its events, and in the profile's event order when
     * the section orders them otherwise */
    cg_cost values[MAX_RAW_EVENTS], row[MAX_RAW_EVENTS];
    /* the text of the `events:` line st.event_map was made from, while the map holds events:
     * the same line again (every part of a valgrind profile dumped part after part) maps its
     * events as that one did */
    char *events_text;
    size_t events_len, events_cap;
    int failed; /* a fault stopped the input */
} parser;

/* A parser that feeds `b`; `tolerant` as cg_options.tolerant. */
void parser_init(parser *ps, builder *b, int tolerant);
void parser_free(parser *ps);
/* Starts an input (its name must outlive the parse). */
void parse_begin(parser *ps, const char *name, uint32_t source);
/* Parses complete lines in [data, data + size); the last line may lack its newline only when
 * at the end of the input. Returns 0, or -1 with the error in err. */
int parse_lines(parser *ps, const char *data, size_t size, cg_error *err);
/* Ends the input: the pending association, the last section, the checks of a whole input. */
int parse_end(parser *ps, cg_error *err);
/* The parser as a reader's line sink: lines are parsed, a damaged stream is a fault at the
 * last line read. */
line_sink parser_sink(parser *ps);

/* For split.c: one line, counted by the caller (st.lineno), parsed as parse_lines would. */
int parse_one_line(parser *ps, const char *s, const char *end);
/* For split.c: a name line ending in the '\n' at `nl`, its key of `klen` letters followed by
 * '=', not counted (st.lineno), parsed as parse_lines would: valgrind's `key=(id)` of a
 * defined id without the general path. */
int parse_name_line(parser *ps, const char *s, size_t klen, const char *nl);
/* For split.c: the callee of a calls= line bound as assoc_line binds it (names_out gets it). */
int parse_bind_callee(parser *ps);

#pragma GCC visibility pop

#endif
