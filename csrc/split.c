/* split.c - pieces of one input parsed and built on several threads (see split.h). */
#include "split.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "idxtab.h"
#include "mark_scan.h"
#include "numparse.h"
#include "pages.h"
#include "piece_names.h"
#include "vec.h"

/* PIECE_RECS_BLOCK: the bytes of a block of a piece's calls and jumps (a piece of 128 KiB
 * holds a few KiB of them); FREE_CHUNKS: the reader's buffers kept for it once no piece refers
 * to them. */
/* READY_BYTES: the builder's blocks kept ready (2 MiB of calls and jumps ahead, at least one block,
 * at most READY_MAX). */
enum {
    DEFAULT_PIECE = 1 << 17,
    MAX_WORKERS = 64,
    SHARDS = 64,
    PIECE_RECS_BLOCK = 16 << 10,
    FREE_CHUNKS = 2,
    READY_BYTES = 2 << 20,
    READY_MAX = 4
};

/* A load stops cutting at every block once it is seen not to pay (splitting_pays), judged from
 * PROBE_PIECES pieces' bytes cut on (1 MiB; the settles from PROBE_SETTLES on): when the lines
 * the calling thread reads itself are one in fewer than MIN_MARK_BYTES bytes (Xdebug's profiles,
 * where half the lines are names and an eighth calls: the calling thread then does about what a
 * load on one thread does, and the workers read it all again; 100 MB on two threads took 0.52 s
 * against 0.31 s on one), or when the pieces are settled (every piece before a header line
 * stitched) before they grow to a piece's size on average (valgrind's --dump-every-bb parts of a
 * few KiB each: 2,894 waits for the workers in 5.6 MB). The first kind goes on in pieces whose
 * workers read the names themselves (begin_named); what is read after the second is parsed on
 * the calling thread, as a load on one thread parses it. */
enum { PROBE_PIECES = 8, PROBE_SETTLES = 16, MIN_MARK_BYTES = 24 };

/* ---- a piece's records ---- */

typedef struct line_sum {
    uint32_t slot, file;
    uint64_t line, addr;
} line_sum;

typedef struct piece_build {
    size_t nraw;
    /* functions: global index -> local slot (open addressing, slot + 1, 0 = free) */
    uint32_t *fkeys, *fvals;
    size_t fcap;
    uint32_t *fns;
    line_store *stores;
    cg_cost *self;
    size_t nfns, fns_cap, stores_cap, self_cap;
    uint32_t last_fn, last_slot;
    /* each function's calls and jumps in the order first seen (fnrecs.h), by local slot as
     * the streams, found through one table per kind for the piece: (slot << 32) | (record +
     * 1), 0 = free */
    fn_records *recs;
    size_t recs_cap;
    rec_pool pool; /* their segments */
    uint64_t *ctab, *jtab;
    size_t ctab_cap, jtab_cap, ncalls, njumps;
    uint64_t seed; /* the load's */
    /* per slot: its calls and jumps are kept as read, in no table (LOCAL_LATER, split.h) */
    unsigned char *raw;
    size_t raw_cap;
    uint32_t block_fn; /* the function of the last fn= line, and whether it came before */
    int block_later;
    const line_scratch *scratch; /* of the thread parsing the piece, while it does, or NULL */
    /* A piece with names of its own (summed): its line records summed by (slot, file, line,
     * address) in the order first seen, costs a row of nraw each, found through sum_index,
     * rather than kept in streams: the stitch adds them one by one. */
    int summed;
    line_sum *sums;
    cg_cost *sum_costs;
    idxtab sum_index;
    size_t nsums, sums_cap, sum_costs_cap;
    uint32_t *slot_of; /* a summed piece's slot + 1 by function number, 0 = none */
    size_t slot_of_cap;
} piece_build;

/* Frees what a piece's functions hold (streams, calls, jumps); the pool keeps its blocks when
 * `keep_blocks` (a piece used again). */
static void drop_functions(piece_build *pb, int keep_blocks) {
    for (size_t i = 0; i < pb->nfns; i++) {
        if (pb->fns[i] < pb->slot_of_cap) pb->slot_of[pb->fns[i]] = 0;
        line_store_free(&pb->stores[i], pb->scratch);
        fn_records_free(&pb->recs[i], &pb->pool);
    }
    rec_pool_clear(&pb->pool, keep_blocks);
    pb->nfns = 0;
}

/* Empties a piece used again, on the thread that parses it: its tables are then in that
 * core's cache rather than in the calling thread's, from which every line the worker
 * touched would have to come. */
static void build_reset(piece_build *pb) {
    drop_functions(pb, 1);
    pb->ncalls = pb->njumps = 0;
    idxtab_clear(&pb->sum_index);
    pb->nsums = 0;
    if (pb->ctab) memset(pb->ctab, 0, pb->ctab_cap * sizeof *pb->ctab);
    if (pb->jtab) memset(pb->jtab, 0, pb->jtab_cap * sizeof *pb->jtab);
    if (pb->fkeys) memset(pb->fkeys, 0, pb->fcap * sizeof *pb->fkeys);
}

static void build_free(piece_build *pb) {
    drop_functions(pb, 0);
    free(pb->ctab);
    free(pb->jtab);
    free(pb->fkeys);
    free(pb->fvals);
    free(pb->fns);
    free(pb->stores);
    free(pb->self);
    free(pb->recs);
    free(pb->raw);
    free(pb->sums);
    free(pb->sum_costs);
    idxtab_free(&pb->sum_index);
    free(pb->slot_of);
    memset(pb, 0, sizeof *pb);
}

static inline uint32_t fn_hash(uint32_t fn) {
    return (uint32_t)(((uint64_t)fn * 0x9e3779b97f4a7c15ULL) >> 32);
}

static int fn_table_grow(piece_build *pb) {
    size_t cap = pb->fcap ? 2 * pb->fcap : 64;
    uint32_t *keys = zeroed_array(cap, sizeof *keys), *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < pb->nfns; i++) {
        size_t h = fn_hash(pb->fns[i]) & (cap - 1);
        while (keys[h]) h = (h + 1) & (cap - 1);
        keys[h] = pb->fns[i] + 1;
        vals[h] = (uint32_t)i;
    }
    free(pb->fkeys);
    free(pb->fvals);
    pb->fkeys = keys;
    pb->fvals = vals;
    pb->fcap = cap;
    return 0;
}

/* A new local slot for function `fn`; -1 when out of memory. */
static int64_t new_slot(piece_build *pb, uint32_t fn) {
    size_t n = pb->nfns;
    if (VEC_RESERVE(pb->fns, pb->fns_cap, n + 1) ||
        VEC_RESERVE(pb->stores, pb->stores_cap, n + 1) ||
        VEC_RESERVE(pb->recs, pb->recs_cap, n + 1) || VEC_RESERVE(pb->raw, pb->raw_cap, n + 1))
        return -1;
    size_t width = pb->nraw ? pb->nraw : 1;
    if (vec_reserve((void **)&pb->self, &pb->self_cap, (n + 1) * width, sizeof *pb->self))
        return -1;
    pb->fns[n] = fn;
    memset(&pb->stores[n], 0, sizeof pb->stores[n]);
    memset(&pb->recs[n], 0, sizeof pb->recs[n]);
    pb->raw[n] = fn == pb->block_fn && pb->block_later;
    memset(&pb->self[n * width], 0, width * sizeof *pb->self);
    pb->nfns++;
    return (int64_t)n;
}

/* A summed piece's functions are numbered densely in the piece (piece_names.h): their slots
 * by number. */
static int64_t summed_slot(piece_build *pb, uint32_t fn) {
    if (fn >= pb->slot_of_cap) {
        size_t cap = pb->slot_of_cap;
        if (VEC_RESERVE(pb->slot_of, pb->slot_of_cap, (size_t)fn + 1)) return -1;
        memset(pb->slot_of + cap, 0, (pb->slot_of_cap - cap) * sizeof *pb->slot_of);
    }
    if (!pb->slot_of[fn]) {
        int64_t n = new_slot(pb, fn);
        if (n < 0) return -1;
        pb->slot_of[fn] = (uint32_t)n + 1;
    }
    pb->last_fn = fn;
    pb->last_slot = pb->slot_of[fn] - 1;
    return pb->last_slot;
}

/* The local slot of a function, made when new; -1 when out of memory. */
static int64_t fn_slot_lookup(piece_build *pb, uint32_t fn) {
    if (pb->summed) return summed_slot(pb, fn);
    if (2 * (pb->nfns + 1) > pb->fcap && fn_table_grow(pb)) return -1;
    size_t h = fn_hash(fn) & (pb->fcap - 1);
    while (pb->fkeys[h] && pb->fkeys[h] != fn + 1) h = (h + 1) & (pb->fcap - 1);
    if (!pb->fkeys[h]) {
        int64_t n = new_slot(pb, fn);
        if (n < 0) return -1;
        pb->fkeys[h] = fn + 1;
        pb->fvals[h] = (uint32_t)n;
    }
    pb->last_fn = fn;
    pb->last_slot = pb->fvals[h];
    return pb->last_slot;
}

/* The slot of the function of the last record, most often (its line, call and jump lines). */
static inline int64_t fn_slot(piece_build *pb, uint32_t fn) {
    if (fn == pb->last_fn && pb->nfns) return pb->last_slot;
    return fn_slot_lookup(pb, fn);
}

static int sum_eq(const void *ctx, uint32_t index, const void *key) {
    const line_sum *e = &((const piece_build *)ctx)->sums[index], *k = key;
    return e->slot == k->slot && e->file == k->file && e->line == k->line && e->addr == k->addr;
}

/* A line record of a summed piece added to its sum; -1 out of memory or past 64 bits. */
static int sum_line(piece_build *pb, uint32_t slot, uint32_t file, uint64_t line, uint64_t addr,
                    const cg_cost *costs, size_t n) {
    size_t width = pb->nraw ? pb->nraw : 1;
    line_sum key = {slot, file, line, addr};
    uint32_t tag = (uint32_t)hash_mix(
        hash_combine(hash_combine(hash_combine(hash_combine(pb->seed, slot), file), line), addr));
    size_t at;
    int64_t found = idxtab_find(&pb->sum_index, tag, sum_eq, pb, &key, &at);
    if (found >= 0) return row_add(&pb->sum_costs[(size_t)found * width], costs, n) ? -1 : 0;
    if (idxtab_grow(&pb->sum_index) || VEC_RESERVE(pb->sums, pb->sums_cap, pb->nsums + 1) ||
        vec_reserve((void **)&pb->sum_costs, &pb->sum_costs_cap, (pb->nsums + 1) * width,
                    sizeof *pb->sum_costs))
        return -1;
    (void)idxtab_find(&pb->sum_index, tag, sum_eq, pb, &key, &at); /* the slot after growing */
    cg_cost *row = &pb->sum_costs[pb->nsums * width];
    memcpy(row, costs, n * sizeof *row);
    memset(row + n, 0, (width - n) * sizeof *row);
    pb->sums[pb->nsums] = key;
    idxtab_put(&pb->sum_index, at, tag, (uint32_t)pb->nsums++);
    return 0;
}

int local_line(piece_build *pb, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
               const cg_cost *costs, size_t n) {
    int64_t slot = fn_slot(pb, fn);
    if (slot < 0) return -1;
    /* a summed piece's self costs are summed by the stitch's build_line */
    if (pb->summed) return sum_line(pb, (uint32_t)slot, file, line, addr, costs, n);
    size_t width = pb->nraw ? pb->nraw : 1;
    /* a sum beyond 64 bits stops the piece: no saturation to keep, and one event (valgrind's
     * default Ir) has a copy of its own */
    cg_cost *self = &pb->self[(size_t)slot * width];
    if (n == 1 ? __builtin_add_overflow(self[0], costs[0], &self[0]) : row_add(self, costs, n))
        return -1;
    return line_append_uncompacted(&pb->stores[slot], file, line, addr, costs, n, pb->scratch) ? -1
                                                                                               : 0;
}

static inline const call_rec *call_at(const piece_build *pb, uint64_t e) {
    return &pb->recs[e >> 32].calls.v[(uint32_t)e - 1];
}

static inline const jump_rec *jump_at(const piece_build *pb, uint64_t e) {
    return &pb->recs[e >> 32].jumps.v[(uint32_t)e - 1];
}

/* Doubles a piece's table of calls (`calls`) or jumps, placing every record again. */
static int table_grow(piece_build *pb, int calls) {
    uint64_t **tab = calls ? &pb->ctab : &pb->jtab;
    size_t *cap = calls ? &pb->ctab_cap : &pb->jtab_cap;
    size_t c = *cap ? 2 * *cap : 64;
    uint64_t *t = zeroed_array(c, sizeof *t);
    if (!t) return -1;
    for (size_t slot = 0; slot < pb->nfns; slot++) {
        if (pb->raw[slot]) continue;
        uint32_t n = calls ? pb->recs[slot].calls.n : pb->recs[slot].jumps.n;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t h = calls ? call_rec_hash(pb->seed, &pb->recs[slot].calls.v[i])
                               : jump_rec_hash(pb->seed, &pb->recs[slot].jumps.v[i]);
            size_t s = h & (c - 1);
            while (t[s]) s = (s + 1) & (c - 1);
            t[s] = ((uint64_t)slot << 32) | (i + 1);
        }
    }
    free(*tab);
    *tab = t;
    *cap = c;
    return 0;
}

/* A call line's costs added to its record's row (`map`: their events in the profile's order). */
static int add_values(cg_cost *row, const cg_cost *values, size_t n, const uint32_t *map) {
    int bad = 0;
    if (!map) {
        bad = row_add(row, values, n);
    } else {
        for (size_t i = 0; i < n; i++) bad |= cost_add(&row[map[i]], values[i]);
    }
    return bad ? -1 : 0;
}

int local_call(piece_build *pb, const call_rec *key, int guessed, const cg_cost *values, size_t n,
               const uint32_t *map) {
    if (any_negative(values, n)) return -1;
    int64_t slot = fn_slot(pb, key->caller);
    if (slot < 0) return -1;
    call_list *l = &pb->recs[slot].calls;
    cg_cost *row;
    if (pb->summed) {
        /* the stitch adds them one by one: each function's list finds its own, as the builder's
         * does (a block repeats the calls of the function's last one) */
        if (call_list_add(l, &pb->pool, pb->seed, pb->nraw, key, guessed, &row)) return -1;
        return add_values(row, values, n, map);
    }
    if (pb->raw[slot]) {
        if (call_list_push(l, &pb->pool, pb->nraw, key, guessed, &row)) return -1;
        return add_values(row, values, n, map);
    }
    if (2 * (pb->ncalls + 1) > pb->ctab_cap && table_grow(pb, 1)) return -1;
    size_t mask = pb->ctab_cap - 1, s = call_rec_hash(pb->seed, key) & mask;
    while (pb->ctab[s] && !call_rec_same(call_at(pb, pb->ctab[s]), key)) s = (s + 1) & mask;
    if (pb->ctab[s]) {
        uint32_t c = (uint32_t)pb->ctab[s] - 1;
        l->guessed[c] &= (unsigned char)guessed;
        if (count_add(&l->v[c].count, key->count)) return -1;
        row = l->costs + (size_t)c * pb->nraw;
    } else {
        if (call_list_push(l, &pb->pool, pb->nraw, key, guessed, &row)) return -1;
        pb->ctab[s] = ((uint64_t)slot << 32) | l->n;
        pb->ncalls++;
    }
    return add_values(row, values, n, map);
}

int local_jump(piece_build *pb, const jump_rec *key) {
    int64_t slot = fn_slot(pb, key->fn);
    if (slot < 0) return -1;
    jump_list *l = &pb->recs[slot].jumps;
    if (pb->summed) return jump_list_add(l, &pb->pool, pb->seed, key) ? -1 : 0;
    if (pb->raw[slot]) return jump_list_push(l, &pb->pool, key) ? -1 : 0;
    if (2 * (pb->njumps + 1) > pb->jtab_cap && table_grow(pb, 0)) return -1;
    size_t mask = pb->jtab_cap - 1, s = jump_rec_hash(pb->seed, key) & mask;
    while (pb->jtab[s] && !jump_rec_same(jump_at(pb, pb->jtab[s]), key)) s = (s + 1) & mask;
    if (pb->jtab[s]) {
        jump_rec *j = &l->v[(uint32_t)pb->jtab[s] - 1];
        return count_add(&j->executed, key->executed) | count_add(&j->taken, key->taken) ? -1 : 0;
    }
    if (jump_list_push(l, &pb->pool, key)) return -1;
    pb->jtab[s] = ((uint64_t)slot << 32) | l->n;
    pb->njumps++;
    return 0;
}

uint32_t local_block(piece_build *pb, uint32_t entry) {
    pb->block_fn = entry & ~LOCAL_LATER;
    pb->block_later = (entry & LOCAL_LATER) != 0;
    if (pb->summed && pb->block_fn < pb->slot_of_cap && pb->slot_of[pb->block_fn]) {
        /* a block of the function again: its calls and jumps expected in the same order */
        fn_records *r = &pb->recs[pb->slot_of[pb->block_fn] - 1];
        r->calls.next = r->jumps.next = 0;
    }
    return pb->block_fn;
}

/* ---- the pieces' text ---- */

/* Bytes that pieces' text lies in, where the reader put them: a buffer the reader handed over
 * (line_sink.swap; `owned`: kept for the reader again, or freed, once no piece refers to it)
 * or memory that stays valid for the whole read (read_buffer's text, and the reader's buffer
 * until it is handed over). Its count of segments is kept on the calling thread only:
 * segments are added while cutting and released at the stitch; workers only read the bytes,
 * between the submit and the `done` of their piece, both under the lock. */
typedef struct text_chunk {
    struct text_chunk *next; /* in the free list */
    const char *base;        /* where the lines the sink was handed begin */
    char *mem;               /* owned: the buffer, of `cap` bytes */
    size_t cap, refs;
    int owned;
} text_chunk;

/* Whole lines of a piece in one chunk. */
typedef struct segment {
    text_chunk *ck;
    const char *text;
    size_t len;
} segment;

/* ---- pieces ---- */

typedef struct piece {
    struct piece *next;
    segment *segs; /* its text, in order */
    size_t nsegs, segs_cap, len;
    name_list names;
    parse_state start; /* the parser's state before its first line */
    int known_last;    /* start.last holds the last positions (else the piece begins with an
                          absolute position line) */
    size_t nraw;
    int done, faulty;
    int own;         /* parsed by the calling thread as it is cut, never by a worker */
    parse_state end; /* the worker's state after its last line */
    piece_build build;
    /* cut once the names are read by the workers (piece_names.h): its names are its own */
    int named;
    piece_names pnames;
} piece;

/* The workers join each piece's line streams to the model's themselves, under the lock of the
 * function's shard: the order in which the pieces' streams are joined does not matter, since a
 * finished stream depends only on the records it holds. The calling thread makes functions
 * meanwhile: the array of streams grows only under `grow` held for writing (split.h). */
struct splitter {
    parser *ps;
    pthread_mutex_t shards[SHARDS];
    pthread_rwlock_t grow;
    size_t piece_size, max_queued;
    int nworkers;
    pthread_t threads[MAX_WORKERS];
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    piece *head, *tail, *todo; /* pieces not yet stitched, in order; the next to parse */
    size_t queued;
    int stop;
    /* once every piece is stitched: line streams brought to their final form by every thread,
     * functions [fin_next, fin_end) still to take, fin_left not yet done */
    size_t fin_next, fin_end, fin_left;
    /* the calling thread's side */
    piece *cur;           /* the piece being cut, or NULL: lines go to the parser (ps) */
    piece *spare;         /* stitched pieces kept for their room */
    line_scratch scratch; /* for the pieces the calling thread parses itself */
    size_t nspare;
    /* the blocks of streams given back to the thread that made them: the calling thread's (0)
     * and each worker's, numbered as they start (nstarted) */
    line_frees *frees;
    unsigned nstarted;
    text_chunk *chunk;       /* the chunk of the lines being cut, once a piece refers to them */
    const char *data;        /* where those lines begin */
    text_chunk *free_chunks; /* owned buffers no piece refers to, for the reader again */
    size_t nfree;
    int cand;        /* a fn= line of cur where the next piece may begin ... */
    size_t cand_off; /* ... its offset in cur's text */
    size_t cand_names;
    parse_state cand_state;
    int assoc; /* a calls= (1) or jump (2) waits for its position line */
    /* The names a call's or jump's position line ends, as the parser of the last piece
     * stitched left them (`ended_known`: it was not one with names of its own): the state the
     * parser takes over with once every piece is stitched. The splitter ends them only at a
     * position line it recognizes right after the call or jump; " 12", indented, is one to the
     * parser, not to the splitter, which then leaves the lines after it to the parser. */
    uint32_t ended_cob, ended_cfi, ended_jfi, ended_jfn;
    int ended_known;
    /* what splitting_pays weighs: bytes put in pieces, lines with a '=' or ':' read among
     * them, the times pieces were settled; set once cutting stops for the rest of the load */
    uint64_t cut_bytes, cut_marks, settles;
    int given_up;
    /* Pieces with names of their own (piece_names.h): once cutting stops because the names are
     * dense, the next block begins them (named_next); while `named`, pieces are cut at fn= lines
     * only and begin in the state named_start. `failed`: the calling thread's parser met a fault
     * in a piece it parsed again (the load's error, not one to load again for). */
    int named_next, named;
    parse_state named_start;
    int failed;
    int peek; /* the next chunk begins with the lines look_ahead looks at */
    int redo;
    int (*defer)(void *, uint64_t, const char *);
    void *defer_ctx;
    mark_scan scan; /* for the lines with a '=' or ':' */
    /* blocks for the builder's pool of calls and jumps, their pages faulted in by the workers
     * (rec_block_ready) rather than by the calling thread as the stitch fills them */
    pthread_mutex_t ready_mu;
    char *ready[READY_MAX];
    size_t nready, ready_bytes, ready_most;
};

static void chunk_free(text_chunk *ck) {
    if (ck->owned) free(ck->mem);
    free(ck);
}

/* A chunk no piece refers to: its buffer kept for the reader (a few) or freed. */
static void chunk_retire(splitter *sp, text_chunk *ck) {
    if (ck->owned && sp->nfree < FREE_CHUNKS) {
        ck->next = sp->free_chunks;
        sp->free_chunks = ck;
        sp->nfree++;
        return;
    }
    chunk_free(ck);
}

static void chunk_release(splitter *sp, text_chunk *ck) {
    /* the chunk being cut may still be referred to by the lines after */
    if (--ck->refs == 0 && ck != sp->chunk) chunk_retire(sp, ck);
}

/* A piece lets its text go. */
static void piece_drop_text(splitter *sp, piece *pc) {
    for (size_t i = 0; i < pc->nsegs; i++) chunk_release(sp, pc->segs[i].ck);
    pc->nsegs = pc->len = 0;
}

static void piece_free(splitter *sp, piece *pc) {
    if (!pc) return;
    piece_drop_text(sp, pc);
    free(pc->segs);
    free(pc->names.v);
    build_free(&pc->build);
    piece_names_free(&pc->pnames);
    free(pc);
}

/* A segment of `n` bytes at `s`, lines of the chunk being cut, as a piece's next text. */
static int piece_add_text(splitter *sp, piece *pc, const char *s, size_t n) {
    if (!n) return 0;
    text_chunk *ck = sp->chunk;
    if (pc->nsegs) {
        segment *last = &pc->segs[pc->nsegs - 1];
        if (last->ck == ck && last->text + last->len == s) {
            last->len += n;
            pc->len += n;
            return 0;
        }
    }
    if (VEC_RESERVE(pc->segs, pc->segs_cap, pc->nsegs + 1)) return -1;
    if (!ck) {
        if (!(ck = calloc(1, sizeof *ck))) return -1;
        ck->base = sp->data;
        sp->chunk = ck;
    }
    ck->refs++;
    pc->segs[pc->nsegs++] = (segment){ck, s, n};
    pc->len += n;
    return 0;
}

/* The reader's line_sink.swap: a buffer whose lines pieces refer to is kept (owned) and the
 * reader goes on with one no piece refers to any more (no page of it to fault in again), or
 * a new one. */
static char *sink_swap(void *ctx, char *buf, size_t cap, size_t want, size_t *new_cap) {
    splitter *sp = ctx;
    text_chunk *ck = sp->chunk;
    if (!ck || ck->base != buf || !ck->refs) return buf;
    ck->owned = 1;
    ck->mem = buf;
    ck->cap = cap;
    sp->chunk = NULL; /* freed with its last segment */
    if (!want) return NULL;
    while (sp->free_chunks) {
        text_chunk *f = sp->free_chunks;
        sp->free_chunks = f->next;
        sp->nfree--;
        char *mem = f->mem;
        size_t fcap = f->cap;
        free(f);
        if (fcap >= want) {
            *new_cap = fcap;
            return mem;
        }
        free(mem);
    }
    char *mem = pages_buffer(want);
    if (mem) *new_cap = want;
    return mem;
}

/* The splitter's parser meets a fault inside a piece: the input is loaded again on one thread. */
static int refuse(void *ctx, uint64_t line, const char *message) {
    (void)line;
    (void)message;
    if (ctx) ((splitter *)ctx)->redo = 1;
    return 1;
}

/* The piece's streams joined to the model's (strings are not read: the calling thread adds to
 * them). */
static int merge_streams(splitter *sp, piece *pc, line_scratch *scratch, cg_cost *row) {
    piece_build *pb = &pc->build;
    cg_profile *p = sp->ps->b->p;
    int rc = 0;
    pthread_rwlock_rdlock(&sp->grow);
    /* first the functions whose shard no other thread holds, then the rest (a joined stream is
     * emptied), rather than sleep while the other thread compacts a stream of a busy shard */
    for (int wait = 0; wait < 2; wait++) {
        for (size_t i = 0; !rc && i < pb->nfns; i++) {
            if (!pb->stores[i].count) continue; /* joined, or a function with calls or jumps only */
            uint32_t fn = pb->fns[i];
            pthread_mutex_t *mu = &sp->shards[fn % SHARDS];
            if (!wait) {
                if (pthread_mutex_trylock(mu)) continue;
            } else {
                pthread_mutex_lock(mu);
            }
            line_store *s = &p->line_stores[fn];
            rc = line_append_stream(s, &pb->stores[i], NULL, pc->nraw, scratch, row) != ST_OK;
            if (!rc) line_leave(s, scratch);
            pthread_mutex_unlock(mu);
        }
    }
    pthread_rwlock_unlock(&sp->grow);
    return rc ? -1 : 0;
}

/* Room for the stream of one more function, made while the workers may join streams. */
static int grow_streams(splitter *sp) {
    cg_profile *p = sp->ps->b->p;
    pthread_rwlock_wrlock(&sp->grow);
    int rc = VEC_RESERVE(p->line_stores, p->line_stores_cap, p->nfns + 1);
    pthread_rwlock_unlock(&sp->grow);
    return rc;
}
static inline int reserve_stream(splitter *sp) {
    const cg_profile *p = sp->ps->b->p;
    return p->nfns + 1 <= p->line_stores_cap ? 0 : grow_streams(sp);
}

static void parse_piece(splitter *sp, piece *pc, line_scratch *scratch) {
    const parser *main = sp->ps;
    if (sp->frees) line_frees_drain(sp->frees, scratch->self);
    cg_cost row[MAX_RAW_EVENTS];
    parser w;
    memset(&w, 0, sizeof w);
    cg_error err;
    clear_error(&err);
    w.b = main->b;
    w.site.name = main->site.name;
    w.site.tolerant = main->site.tolerant;
    w.site.err = &err;
    w.site.defer = refuse;
    w.st = pc->start;
    if (!pc->known_last)
        for (int k = 0; k < COL_COUNT; k++) w.st.last[k] = 0, w.st.has_last[k] = 0;
    w.names_in = pc->names.v;
    w.names_left = pc->names.n;
    if (pc->named) {
        w.names_in = NULL;
        piece_names_reset(&pc->pnames, main->b->seed);
        memcpy(w.st.ids, pc->pnames.ids, sizeof w.st.ids);
        w.own = &pc->pnames;
    }
    pc->build.scratch = scratch;
    build_reset(&pc->build);
    pc->build.nraw = pc->nraw;
    pc->build.seed = main->b->seed;
    pc->build.last_fn = pc->build.block_fn = NO_INDEX;
    pc->build.summed = pc->named;
    w.local = &pc->build;
    int rc = 0;
    /* a segment ends at a line end: a chunk's lines are whole, and pieces begin at a line */
    for (size_t i = 0; !rc && i < pc->nsegs; i++)
        rc = parse_lines(&w, pc->segs[i].text, pc->segs[i].len, &err);
    if (pc->named) {
        memcpy(pc->pnames.ids, w.st.ids, sizeof w.st.ids); /* grown in the parser's copy */
    } else if (!rc && !w.failed && merge_streams(sp, pc, scratch, row)) {
        rc = -1;
    }
    pc->faulty = rc != 0 || w.failed || w.names_left != 0;
    pc->end = w.st;
    pc->build.scratch = NULL;
}

enum { FINISH_STEP = 64 };

/* Brings the line streams of a range of functions to their final form (line_finish), as the
 * analysis would one after the other; a stream that cannot be is left as it was (out of
 * memory: for the analysis to report) or makes the input load again on one thread (a sum
 * beyond 64 bits, which one thread may have met at another line). Called with the lock
 * held. */
static void finish_some(splitter *sp, line_scratch *scratch) {
    cg_profile *p = sp->ps->b->p;
    size_t from = sp->fin_next,
           to = from + FINISH_STEP < sp->fin_end ? from + FINISH_STEP : sp->fin_end;
    sp->fin_next = to;
    pthread_mutex_unlock(&sp->mu);
    if (sp->frees) line_frees_drain(sp->frees, scratch->self);
    int bad = 0;
    for (size_t f = from; f < to; f++)
        bad |= line_finish(&p->line_stores[f], &p->strings, p->nraw, scratch) == ST_OVERFLOW;
    pthread_mutex_lock(&sp->mu);
    if (bad) sp->redo = 1; /* one thread may have met it earlier, at another line */
    sp->fin_left -= to - from;
    if (!sp->fin_left) pthread_cond_broadcast(&sp->done);
}

/* The builder's pool takes a ready block, or makes one itself when there is none. */
static void *take_ready(void *ctx) {
    splitter *sp = ctx;
    pthread_mutex_lock(&sp->ready_mu);
    char *mem = sp->nready ? sp->ready[--sp->nready] : NULL;
    pthread_mutex_unlock(&sp->ready_mu);
    return mem;
}

/* A worker between pieces tops the ready blocks up. */
static void make_ready(splitter *sp) {
    for (;;) {
        pthread_mutex_lock(&sp->ready_mu);
        int full = sp->nready >= sp->ready_most;
        pthread_mutex_unlock(&sp->ready_mu);
        if (full) return;
        char *mem = rec_block_ready(sp->ready_bytes);
        if (!mem) return;
        pthread_mutex_lock(&sp->ready_mu);
        if (sp->nready < sp->ready_most) {
            sp->ready[sp->nready++] = mem;
            mem = NULL;
        }
        pthread_mutex_unlock(&sp->ready_mu);
        if (mem) {
            rec_block_free(mem, sp->ready_bytes);
            return;
        }
    }
}

/* The first of the pieces from `pc` on that a worker may take. */
static piece *skip_own(piece *pc) {
    while (pc && pc->own) pc = pc->next;
    return pc;
}

static void *worker_main(void *arg) {
    splitter *sp = arg;
    line_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.seed = sp->ps->b->seed;
    scratch.frees = sp->frees;
    line_scratch_lend(&scratch, sp->ps->b->p->blocks);
    pthread_mutex_lock(&sp->mu);
    scratch.self = (unsigned char)++sp->nstarted;
    for (;;) {
        while (!sp->stop && !sp->todo && sp->fin_next == sp->fin_end)
            pthread_cond_wait(&sp->work, &sp->mu);
        if (sp->fin_next < sp->fin_end) {
            finish_some(sp, &scratch);
            continue;
        }
        if (!sp->todo) break;
        piece *pc = sp->todo;
        sp->todo = skip_own(pc->next);
        pthread_mutex_unlock(&sp->mu);
        parse_piece(sp, pc, &scratch);
        pthread_mutex_lock(&sp->mu);
        pc->done = 1;
        pthread_cond_broadcast(&sp->done);
        pthread_mutex_unlock(&sp->mu);
        make_ready(sp);
        pthread_mutex_lock(&sp->mu);
    }
    pthread_mutex_unlock(&sp->mu);
    line_scratch_free(&scratch);
    return NULL;
}

/* The last positions after a piece, `e` its parser's state at its end: those it read. A piece
 * that began with none known (one with names of its own, or one cut where an absolute
 * position line follows) and read none in a column leaves the last position before it in
 * force there, as one thread does: the piece just begun when cutting stops holds its fn= line
 * alone, and in a tolerant load the position line after it may be one the parser skips. A
 * piece never forgets a position it began with (the header lines that do are the calling
 * thread's). */
static void keep_last_positions(parse_state *st, const parse_state *e) {
    for (int k = 0; k < COL_COUNT; k++) {
        if (!e->has_last[k]) continue;
        st->last[k] = e->last[k];
        st->has_last[k] = 1;
    }
}

/* Adds a parsed piece to the model, in input order: -1 when it cannot be (the input is then
 * loaded again on one thread). */
static int stitch_named(splitter *sp, piece *pc);

static int stitch(splitter *sp, piece *pc) {
    if (pc->named) return stitch_named(sp, pc);
    builder *b = sp->ps->b;
    cg_profile *p = b->p;
    piece_build *pb = &pc->build;
    size_t nraw = p->nraw, width = nraw ? nraw : 1;
    if (pc->faulty || pc->nraw != nraw || b->section == CG_NONE) return -1;
    /* the section's sum is that of the self costs (a call's cost is not added to it): once
     * per function here, not at every line in the worker */
    cg_cost *section = costs_row(&p->section_costs, nraw, b->section);
    for (size_t i = 0; i < pb->nfns; i++) {
        uint32_t fn = pb->fns[i];
        const cg_cost *self = &pb->self[i * width];
        if (row_add(costs_row(&p->fn_self, nraw, fn), self, nraw) | row_add(section, self, nraw))
            return -1;
        /* the function's calls and jumps: taken whole when it has none yet, else merged
         * through its own lookup, after those of the pieces before */
        if (build_take_records(b, fn, &pb->recs[i], &pb->pool, !pb->raw[i])) return -1;
    }
    /* the parser's state after the piece: its lines, last positions, a call or jump waiting
     * (the splitter does not count lines: the worker counts them from where the piece began) */
    parse_state *st = &sp->ps->st, *e = &pc->end;
    uint64_t base = st->lineno - pc->start.lineno;
    st->lineno = base + e->lineno;
    keep_last_positions(st, e);
    st->assoc = e->assoc;
    st->assoc_line = base + e->assoc_line;
    st->assoc_count = e->assoc_count;
    st->assoc_taken = e->assoc_taken;
    st->assoc_callee = e->assoc_callee;
    st->assoc_guessed = e->assoc_guessed;
    memcpy(st->assoc_target, e->assoc_target, sizeof st->assoc_target);
    /* kept for settle_pieces: the splitter's own names are past this piece by now */
    sp->ended_cob = e->cob;
    sp->ended_cfi = e->cfi;
    sp->ended_jfi = e->jfi;
    sp->ended_jfn = e->jfn;
    sp->ended_known = 1;
    return 0;
}

/* The parser's state where a piece with names of its own begins is the one its worker began
 * with, in what the worker could not know: nothing waiting, no callee's or jump's file or
 * object given, fl= seen as before. */
static int named_start_holds(const parse_state *st, const parse_state *start) {
    return st->assoc == ASSOC_NONE && st->cob == NO_INDEX && st->cfi == NO_INDEX &&
           st->jfi == NO_INDEX && st->jfn == NO_INDEX && st->have_fl == start->have_fl;
}

static inline uint32_t mapped(const uint32_t *map, uint32_t v) {
    return v == NO_INDEX ? NO_INDEX : map[v];
}

/* A piece's records added to the model as the parser adds a line's (build_line, build_call,
 * build_jump), their functions and files the model's: the piece's sums are the same sums, and
 * a function's calls and jumps come in the order the piece first read them. */
static int replay_records(builder *b, const piece_build *pb, const piece_names *pn) {
    size_t nraw = b->p->nraw, width = nraw ? nraw : 1;
    for (size_t i = 0; i < pb->nsums; i++) {
        const line_sum *e = &pb->sums[i];
        if (build_line(b, pn->fn_map[pb->fns[e->slot]], pn->ref_map[e->file], e->line, e->addr,
                       &pb->sum_costs[i * width], nraw))
            return -1;
    }
    for (size_t slot = 0; slot < pb->nfns; slot++) {
        uint32_t fn = pn->fn_map[pb->fns[slot]];
        const call_list *calls = &pb->recs[slot].calls;
        for (uint32_t i = 0; i < calls->n; i++) {
            call_rec k = calls->v[i];
            k.caller = fn;
            k.callee = pn->fn_map[k.callee];
            k.file = pn->ref_map[k.file];
            cg_cost *row;
            if (build_call(b, &k, calls->guessed[i], &row) ||
                row_add(row, calls->costs + (size_t)i * nraw, nraw))
                return -1;
        }
        const jump_list *jumps = &pb->recs[slot].jumps;
        for (uint32_t i = 0; i < jumps->n; i++) {
            jump_rec k = jumps->v[i];
            k.fn = fn;
            k.to_fn = pn->fn_map[k.to_fn];
            k.from_file = pn->ref_map[k.from_file];
            k.to_file = pn->ref_map[k.to_file];
            if (build_jump(b, &k)) return -1;
        }
    }
    return 0;
}

/* Adds a parsed piece with names of its own to the model: 0; 1 when one thread would read it
 * otherwise (parsed again then, see abandon_named); -1 when it cannot be (loaded again on
 * one thread). */
static int stitch_named(splitter *sp, piece *pc) {
    builder *b = sp->ps->b;
    parse_state *st = &sp->ps->st;
    const parse_state *e = &pc->end;
    sp->ended_known = 0; /* its names are its own: the splitter's stand */
    if (pc->faulty || pc->nraw != b->p->nraw || b->section == CG_NONE || e->assoc != ASSOC_NONE ||
        !named_start_holds(st, &pc->start))
        return 1;
    piece_names *pn = &pc->pnames;
    int rc = piece_names_place(pn, b, st);
    if (rc) return rc;
    if (replay_records(b, &pc->build, pn)) return -1;
    st->lineno += e->lineno;
    keep_last_positions(st, e); /* it began with none known (named_start) */
    st->ob = pn->ref_map[e->ob];
    st->fl = pn->ref_map[e->fl];
    st->file = pn->ref_map[e->file];
    st->have_fl = e->have_fl;
    st->fn = mapped(pn->fn_map, e->fn);
    st->cob = mapped(pn->ref_map, e->cob);
    st->cfi = mapped(pn->ref_map, e->cfi);
    st->cfn = mapped(pn->ref_map, e->cfn);
    st->jfi = mapped(pn->ref_map, e->jfi);
    st->jfn = mapped(pn->fn_map, e->jfn);
    return 0;
}

/* The calling thread parses the next piece waiting for a worker (called with the lock held). */
static void parse_own(splitter *sp) {
    piece *t = sp->todo;
    sp->todo = skip_own(t->next);
    pthread_mutex_unlock(&sp->mu);
    parse_piece(sp, t, &sp->scratch);
    pthread_mutex_lock(&sp->mu);
    t->done = 1;
}

/* Stitches the first piece, waiting for it when `wait`; 1 when none was ready. */
static void piece_done(splitter *sp, piece *pc);
static int abandon_named(splitter *sp, piece *first);

static int stitch_head(splitter *sp, int wait) {
    pthread_mutex_lock(&sp->mu);
    piece *pc = sp->head;
    while (pc && wait && !pc->done) {
        if (sp->todo) {
            /* rather than wait, the calling thread parses the next piece itself */
            parse_own(sp);
        } else {
            pthread_cond_wait(&sp->done, &sp->mu);
        }
    }
    if (!pc || !pc->done) {
        pthread_mutex_unlock(&sp->mu);
        return 1;
    }
    sp->head = pc->next;
    if (!sp->head) sp->tail = NULL;
    sp->queued--;
    pthread_mutex_unlock(&sp->mu);
    int rc = sp->redo ? -1 : stitch(sp, pc);
    if (rc > 0) return abandon_named(sp, pc);
    piece_done(sp, pc);
    if (rc) sp->redo = 1;
    return rc;
}

/* Hands a piece to the workers, and stitches what is ready (waiting when too many are). When
 * the workers have enough pieces waiting, the calling thread parses the piece it has just cut
 * itself: its text is still in this core's caches. */
static int submit(splitter *sp, piece *pc) {
    pc->nraw = sp->ps->b->p->nraw;
    pthread_mutex_lock(&sp->mu);
    pc->next = NULL;
    pc->own = sp->queued >= sp->max_queued;
    if (sp->tail)
        sp->tail->next = pc;
    else
        sp->head = pc;
    sp->tail = pc;
    sp->queued++;
    if (!pc->own) {
        if (!sp->todo) sp->todo = pc;
        pthread_cond_signal(&sp->work);
    }
    pthread_mutex_unlock(&sp->mu);
    if (pc->own) {
        parse_piece(sp, pc, &sp->scratch);
        pthread_mutex_lock(&sp->mu);
        pc->done = 1;
        pthread_mutex_unlock(&sp->mu);
    }
    int full = sp->queued > sp->max_queued;
    int rc;
    while ((rc = stitch_head(sp, full)) == 0) full = sp->queued > sp->max_queued;
    return rc < 0 ? -1 : 0;
}

/* A piece to fill: one stitched before, with the room it had (no page of it to fault in
 * again), or a new one. Its records are emptied by the thread that parses it (build_reset). */
static piece *piece_new(splitter *sp, const parse_state *start, int known_last) {
    piece *pc = sp->spare;
    if (pc) {
        sp->spare = pc->next;
        sp->nspare--;
        pc->names.n = 0;
        pc->done = pc->faulty = pc->own = 0;
    } else if (!(pc = calloc(1, sizeof *pc))) {
        return NULL;
    } else {
        rec_pool_init(&pc->build.pool, PIECE_RECS_BLOCK);
    }
    pc->next = NULL;
    pc->start = *start;
    pc->known_last = known_last;
    pc->named = 0;
    return pc;
}

static void piece_done(splitter *sp, piece *pc) {
    /* as many as may be cut and not stitched: a new piece then always finds one, with tables
     * and blocks already grown to what pieces need, rather than growing its own again */
    if (sp->nspare > sp->max_queued) {
        piece_free(sp, pc);
        return;
    }
    piece_drop_text(sp, pc);
    pc->next = sp->spare;
    sp->spare = pc;
    sp->nspare++;
}

/* Ends cutting: the current piece and every one before it stitched; lines then go to the
 * parser. */
static int settle_pieces(splitter *sp) {
    if (!sp->cur) return sp->redo || sp->failed ? -1 : 0;
    piece *pc = sp->cur;
    sp->cur = NULL;
    sp->cut_bytes += pc->len;
    sp->settles++;
    sp->cand = 0;
    sp->peek = 0;
    sp->ps->names_out = NULL;
    sp->ps->site.defer = sp->defer;
    sp->ps->site.defer_ctx = sp->defer_ctx;
    if (submit(sp, pc)) return -1;
    int rc;
    while ((rc = stitch_head(sp, 1)) == 0) {
    }
    if (rc < 0 || sp->redo || sp->failed) {
        if (!sp->failed) sp->redo = 1;
        return -1;
    }
    if (sp->ended_known) {
        /* every piece is in and the splitter has read up to where the last one ends */
        parse_state *st = &sp->ps->st;
        st->cob = sp->ended_cob;
        st->cfi = sp->ended_cfi;
        st->jfi = sp->ended_jfi;
        st->jfn = sp->ended_jfn;
    }
    return 0;
}

static int begin_piece(splitter *sp) {
    parser *ps = sp->ps;
    if (!(sp->cur = piece_new(sp, &ps->st, 1))) return -1;
    sp->assoc = 0;
    sp->cand = 0;
    ps->names_out = &sp->cur->names;
    ps->site.defer = refuse;
    ps->site.defer_ctx = sp;
    return 0;
}

/* Whether every position of the line is absolute (a piece may begin before it). */
static int absolute_positions(const char *s, const char *end, int ncols) {
    for (int k = 0; k < ncols; k++) {
        if (s == end || *s == '+' || *s == '-' || *s == '*' || is_space(*s)) return 0;
        while (s < end && !is_space(*s)) s++;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
    }
    return 1;
}

/* Once cutting at every block stops, every piece stitched, the model is what a load on one
 * thread has made of the lines so far, and the rest is loaded as one thread loads it, or in
 * pieces with names of their own stitched one by one: a cost line the parser reads takes its
 * fast path, a negative cost or a sum past 64 bits is the parser's to report, and the
 * builder's streams are this thread's alone again, trimmed when their block ends. */
/* What splitting_pays weighs: pieces settled before they grow to a piece's size on average;
 * the lines the calling thread reads itself dense. */
static int settled_short(const splitter *sp) {
    return sp->cut_bytes < sp->settles * sp->piece_size;
}
static int names_dense(const splitter *sp) {
    return sp->cut_bytes < sp->cut_marks * MIN_MARK_BYTES;
}

/* Cutting at every block stops for the rest of the load, every piece stitched. Where the
 * names are dense, pieces with names of their own are cut from the next block on
 * (begin_named); else the rest is the parser's. */
static void give_up(splitter *sp) {
    sp->given_up = 1;
    sp->named_next = !settled_short(sp) && names_dense(sp);
    sp->ps->split_sums = 0;
    sp->ps->b->streams_elsewhere = 0;
}

/* Whether cutting is worth going on with (PROBE_PIECES). */
static int splitting_pays(const splitter *sp) {
    int short_ = settled_short(sp);
    if (short_ && sp->settles >= PROBE_SETTLES) return 0;
    if (sp->cut_bytes < PROBE_PIECES * sp->piece_size) return 1;
    return !short_ && !names_dense(sp);
}

/* The current piece ends before the candidate fn= line, where a new one begins. */
static int cut(splitter *sp) {
    piece *a = sp->cur;
    piece *b = piece_new(sp, &sp->cand_state, 0);
    if (!b) return -1;
    /* the segment the candidate lies in, and where in it */
    size_t k = 0, at = sp->cand_off;
    while (k < a->nsegs && at >= a->segs[k].len) at -= a->segs[k++].len;
    size_t nsegs = a->nsegs - k, nn = a->names.n - sp->cand_names;
    if ((nsegs && VEC_RESERVE(b->segs, b->segs_cap, nsegs)) ||
        (nn && VEC_RESERVE(b->names.v, b->names.cap, nn))) {
        piece_free(sp, b);
        return -1;
    }
    /* the segments from the candidate on go to the new piece, the one it lies in split */
    for (size_t i = 0; i < nsegs; i++) {
        segment sg = a->segs[k + i];
        if (i == 0) {
            sg.text += at;
            sg.len -= at;
        }
        b->segs[i] = sg;
    }
    b->nsegs = nsegs;
    b->len = a->len - sp->cand_off;
    if (nsegs && at) {
        a->segs[k].len = at; /* both refer to its chunk now */
        a->segs[k].ck->refs++;
        k++;
    }
    a->nsegs = k;
    a->len = sp->cand_off;
    memcpy(b->names.v, a->names.v + sp->cand_names, nn * sizeof *b->names.v);
    b->names.n = nn;
    a->names.n = sp->cand_names;
    sp->cur = b;
    sp->ps->names_out = &b->names;
    sp->cand = 0;
    sp->cut_bytes += a->len;
    return submit(sp, a);
}

/* Lines the calling thread's parser reads once pieces with names of their own are abandoned
 * or settled; -1 with `failed` at a fault (the load's error, not one to load again for). */
static int parse_settled(splitter *sp, const char *s, size_t n, cg_error *err) {
    if (!parse_lines(sp->ps, s, n, err)) return 0;
    if (sp->ps->split_redo)
        sp->redo = 1;
    else
        sp->failed = 1;
    return -1;
}

/* A piece's text parsed by the calling thread as one thread parses it. */
static int parse_again(splitter *sp, piece *pc) {
    for (size_t i = 0; i < pc->nsegs; i++)
        if (parse_settled(sp, pc->segs[i].text, pc->segs[i].len, sp->ps->site.err)) return -1;
    return 0;
}

/* A piece with names of its own that one thread would read otherwise (a header line, a fault,
 * a name the stitch cannot place; `first`, taken off the queue): it, every piece after it and
 * the text being cut are parsed by the calling thread as one thread parses them, and cutting
 * ends for the load. No worker parses meanwhile: the parser may open sections and make names. */
static int abandon_named(splitter *sp, piece *first) {
    sp->named = sp->named_next = 0;
    pthread_mutex_lock(&sp->mu);
    piece *untaken = sp->todo;
    sp->todo = NULL;
    for (piece *q = sp->head; q && q != untaken; q = q->next)
        while (!q->done) pthread_cond_wait(&sp->done, &sp->mu);
    pthread_mutex_unlock(&sp->mu);
    int rc = parse_again(sp, first);
    piece_done(sp, first);
    while (!rc && sp->head) {
        pthread_mutex_lock(&sp->mu);
        piece *pc = sp->head;
        sp->head = pc->next;
        if (!sp->head) sp->tail = NULL;
        sp->queued--;
        pthread_mutex_unlock(&sp->mu);
        rc = parse_again(sp, pc);
        piece_done(sp, pc);
    }
    if (!rc && sp->cur) {
        rc = parse_again(sp, sp->cur);
        piece_done(sp, sp->cur);
        sp->cur = NULL;
    }
    return rc;
}

/* The state a piece with names of its own begins in: the parser's where named cutting begins
 * (every piece stitched), but for what changes from block to block: the names in force are
 * the piece's first refs (piece_names.h), nothing waits, no position is known. */
static void named_start(splitter *sp) {
    parse_state *t = &sp->named_start;
    *t = sp->ps->st;
    t->lineno = 0;
    memset(t->ids, 0, sizeof t->ids);
    t->ob = PREF_OB;
    t->fl = PREF_FL;
    t->file = PREF_FILE;
    t->cfn = PREF_CFN;
    t->cfn_id = PARSE_NO_ID;
    t->fn = NO_INDEX;
    t->cob = t->cfi = t->jfi = t->jfn = NO_INDEX;
    t->assoc = ASSOC_NONE;
    for (int k = 0; k < COL_COUNT; k++) t->last[k] = 0, t->has_last[k] = 0;
}

/* Cutting stopped because the names are dense (Xdebug): from the block at hand on, pieces are
 * cut at blocks only and their workers read their names themselves. */
static int begin_named(splitter *sp) {
    named_start(sp);
    if (!(sp->cur = piece_new(sp, &sp->named_start, 0))) return -1;
    sp->cur->named = 1;
    sp->named = 1;
    sp->named_next = 0;
    return 0;
}

static int cut_named(splitter *sp) {
    piece *a = sp->cur;
    piece *b = piece_new(sp, &sp->named_start, 0);
    if (!b) return -1;
    b->named = 1;
    sp->cur = b;
    sp->cut_bytes += a->len;
    return submit(sp, a);
}

/* The first block after `s` that begins at or after `from` in the lines [s, end) (s at a line
 * start, from > s), or just before it: a fn= line, or the fl= line right before it; NULL when
 * there is none. */
static const char *next_block(const char *s, const char *from, const char *end) {
    for (const char *p = from - 1;; p++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (!p || end - p < 4) return NULL;
        if (p[1] != 'f' || p[2] != 'n' || p[3] != '=') continue;
        const char *ls = p; /* the line before */
        while (ls > s && ls[-1] != '\n') ls--;
        const char *at = p - ls >= 3 && !memcmp(ls, "fl=", 3) ? ls : p + 1;
        if (at > s) return at;
    }
}

/* Whether the line at `s` is an fl= line and the one at `next` a fn= line: where the pieces with
 * names of their own begin, so that the block's names are all the piece's (a function named
 * once by the file in force where the piece begins and once by its fl= line would be two of
 * the piece's functions, which the stitch cannot place). */
static int starts_block(const char *s, const char *next, const char *end) {
    return end - next >= 3 && !memcmp(s, "fl=", 3) && !memcmp(next, "fn=", 3);
}

/* Lines cut into pieces with names of their own: a piece ends before a block once it holds
 * piece_size bytes; nothing else is looked at here (the workers find what they cannot read,
 * and the stitch has those pieces parsed again). */
static int named_lines(splitter *sp, const char *s, const char *end, cg_error *err) {
    while (s < end) {
        piece *pc = sp->cur;
        size_t need = pc->len < sp->piece_size ? sp->piece_size - pc->len : 1;
        if ((size_t)(end - s) <= need) break;
        const char *at = next_block(s, s + need, end);
        if (!at) break;
        if (piece_add_text(sp, pc, s, (size_t)(at - s)) || cut_named(sp)) return -1;
        s = at;
        if (!sp->named) return s < end ? parse_settled(sp, s, (size_t)(end - s), err) : 0;
    }
    return piece_add_text(sp, sp->cur, s, (size_t)(end - s));
}

/* A chunk while pieces with names of their own are cut. */
static int named_chunk(splitter *sp, const char *data, size_t size, cg_error *err) {
    int rc;
    if (memchr(data, '\0', size)) {
        /* the parser reports it: every piece stitched, cutting ends */
        rc = settle_pieces(sp);
        sp->named = 0;
        if (!rc) rc = parse_settled(sp, data, size, err);
    } else {
        rc = named_lines(sp, data, data + size, err);
    }
    if (rc && !sp->failed) sp->redo = 1;
    return rc;
}

static int key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

/* What a line means to the splitter. */
enum { L_BLANK, L_POSITION, L_NAME, L_FN, L_CALLS, L_JUMP, L_OTHER };

static inline int is_position_start(char c) {
    return is_digit(c) || c == '+' || c == '-' || c == '*';
}

/* What a line whose key `k` (`n` characters) is followed by '=' means. */
ALWAYS_INLINE int key_kind(const char *k, size_t n) {
    int spec = parse_spec_of(k, n);
    if (spec == SPEC_FN) return L_FN;
    if (spec >= 0) return L_NAME;
    if (n == 5 && !memcmp(k, "calls", 5)) return L_CALLS;
    if (n == 4 && (!memcmp(k, "jump", 4) || !memcmp(k, "jcnd", 4))) return L_JUMP;
    return L_OTHER;
}

static int classify(const char *s, const char *end) {
    if (end > s && end[-1] == '\r') end--;
    if (s == end || *s == '#') return L_BLANK;
    if (is_position_start(*s)) return L_POSITION;
    const char *k = s;
    while (s < end && key_char(*s)) s++;
    size_t n = (size_t)(s - k);
    if (!n || s == end || *s != '=') return L_OTHER;
    return key_kind(k, n);
}

/* classify for a line whose first '=' or ':' is at `mark` (mark_scan_next): a key the splitter
 * knows (all letters) that ends at an '=' is told without looking further. */
static int classify_at(const char *s, const char *mark, const char *end) {
    if (*mark == '=') {
        int kind = key_kind(s, (size_t)(mark - s));
        if (kind != L_OTHER) return kind;
    }
    return classify(s, end);
}

/* Whether the parser's state lets a piece begin (body lines of a kept section, nothing
 * waiting). */
static int can_begin(const parser *ps) {
    const parse_state *st = &ps->st;
    return st->body_started && !st->skip_records && st->have_events && st->assoc == ASSOC_NONE &&
           !ps->failed && build_section_current(ps->b) != CG_NONE;
}

/* The position line of a call or jump is met: the names that applied to it only are reset, as
 * the parser resets them. */
static void end_assoc(splitter *sp) {
    parse_state *st = &sp->ps->st;
    if (sp->assoc == 1) st->cob = st->cfi = NO_INDEX;
    if (sp->assoc == 2) st->jfi = st->jfn = NO_INDEX;
    sp->assoc = 0;
}

/* A position line after a fn= where a piece may begin, or after a calls= or jump. */
static int at_position(splitter *sp, const char *s, const char *eol, const char **run) {
    parse_state *st = &sp->ps->st;
    if (sp->cand) {
        sp->cand = 0;
        if (sp->cand_off >= sp->piece_size && absolute_positions(s, eol, st->ncols)) {
            if (piece_add_text(sp, sp->cur, *run, (size_t)(s - *run))) return -1;
            *run = s;
            if (cut(sp)) return -1;
            if (!splitting_pays(sp)) {
                /* the rest is the parser's: the piece just begun is stitched, and no other */
                if (settle_pieces(sp)) return -1;
                give_up(sp);
            }
        }
    }
    end_assoc(sp);
    return 0;
}

/* The lines after one the splitter read, while a cut or a call waits for a position line: up
 * to the first that is not blank. 1 when the chunk ends first (the next one is looked at). */
static int look_ahead(splitter *sp, const char *s, const char *end, const char **run) {
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        int kind = classify(s, eol);
        if (kind == L_POSITION) return at_position(sp, s, eol, run);
        if (kind != L_BLANK) return 0;
        s = nl ? nl + 1 : end;
    }
    return 1;
}

/* A name line the splitter reads, its key ending at the '=' at `mark`: the parser's quick way
 * when it ends in a '\n' of the chunk. */
static int name_line(parser *ps, const char *s, const char *mark, const char *nl, const char *eol) {
    return nl ? parse_name_line(ps, s, (size_t)(mark - s), nl) : parse_one_line(ps, s, eol);
}

static int sink_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    splitter *sp = ctx;
    parser *ps = sp->ps;
    parse_state *st = &ps->st;
    ps->site.err = err;
    if (sp->redo || sp->failed) return -1;
    /* the chunk of the lines before, while pieces refer to it, lives on by them */
    if (sp->chunk && sp->chunk->refs) sp->chunk = NULL;
    if (sp->chunk) sp->chunk->base = data;
    sp->data = data;
    mark_scan_forget(&sp->scan);
    if (sp->named) return named_chunk(sp, data, size, err);
    /* cutting stopped: the lines are the parser's, with no look for where a piece may begin */
    if (sp->given_up && !sp->cur && !sp->named_next) return parse_lines(ps, data, size, err);
    if (memchr(data, '\0', size)) {
        /* the parser reports it (so a piece's parser need not look for one) */
        if (settle_pieces(sp)) return -1;
        return parse_lines(ps, data, size, err);
    }
    const char *s = data, *end = data + size, *run = data;
    if (sp->cur && sp->peek) {
        int rc = look_ahead(sp, s, end, &run);
        if (rc < 0) goto fail;
        sp->peek = rc == 1;
    }
    while (s < end) {
        if (!sp->cur) {
            /* lines go to the parser until a block begins where a piece may */
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            const char *next = nl ? nl + 1 : end;
            if (sp->named_next && starts_block(s, next, end)) {
                /* the state where the block begins, its lines before it read */
                if (s > run && parse_lines(ps, run, (size_t)(s - run), err)) return -1;
                run = s;
                if (can_begin(ps)) {
                    if (begin_named(sp)) goto fail;
                    return named_chunk(sp, s, (size_t)(end - s), err);
                }
            }
            if (classify(s, nl ? nl : end) == L_FN) {
                if (s > run && parse_lines(ps, run, (size_t)(s - run), err)) return -1;
                run = s;
                if (!sp->given_up && can_begin(ps)) {
                    if (!splitting_pays(sp))
                        give_up(sp); /* no piece is being cut: every one is stitched */
                    else if (begin_piece(sp))
                        goto fail;
                }
            }
            if (!sp->cur) s = next;
            continue;
        }
        /* cutting: the splitter reads the lines with names, the workers the others */
        const char *ls, *nl;
        const char *mark = mark_scan_next(&sp->scan, s, end, &ls, &nl);
        if (!mark) break;
        const char *eol = nl ? nl : end, *next = nl ? nl + 1 : end;
        int kind = classify_at(ls, mark, eol);
        sp->cut_marks++;
        int seq = kind == L_OTHER || (sp->assoc && kind != L_POSITION && kind != L_BLANK) ||
                  (kind == L_CALLS && st->cfn == NO_INDEX);
        if (seq) {
            /* the parser reads it, once every piece before it is in */
            if (piece_add_text(sp, sp->cur, run, (size_t)(ls - run))) goto fail;
            if (settle_pieces(sp)) return -1;
            run = s = ls;
            continue;
        }
        switch (kind) {
        case L_FN:
            if (reserve_stream(sp)) goto fail;
            if (!sp->cand) {
                sp->cand = 1;
                sp->cand_off = sp->cur->len + (size_t)(ls - run);
                sp->cand_names = sp->cur->names.n;
                sp->cand_state = *st;
                sp->cand_state.assoc = ASSOC_NONE;
            }
            if (name_line(ps, ls, mark, nl, eol)) goto fail;
            break;
        case L_NAME:
            if (reserve_stream(sp) || name_line(ps, ls, mark, nl, eol)) goto fail;
            break;
        case L_CALLS:
            sp->cand = 0;
            if (reserve_stream(sp) || parse_bind_callee(ps)) goto fail;
            sp->assoc = 1;
            break;
        case L_JUMP:
            sp->cand = 0;
            sp->assoc = 2;
            break;
        default: /* a comment, or a position line its worker will find wrong */
            break;
        }
        if (!sp->cand && sp->assoc && next < end && is_position_start(*next)) {
            /* most often: the position line of the call or jump comes right after it */
            end_assoc(sp);
            sp->peek = 0;
        } else if (sp->cand || sp->assoc) {
            int rc = look_ahead(sp, next, end, &run);
            if (rc < 0) goto fail;
            sp->peek = rc == 1;
        }
        s = next;
    }
    if (sp->cur) {
        if (piece_add_text(sp, sp->cur, run, (size_t)(end - run))) goto fail;
        return 0;
    }
    return end > run ? parse_lines(ps, run, (size_t)(end - run), err) : 0;
fail:
    sp->redo = 1;
    return -1;
}

/* The reading thread has no lines ready (line_sink.idle): a piece that is parsed is stitched,
 * else one waiting for a worker is parsed here, rather than this thread sleeping. */
static int sink_idle(void *ctx) {
    splitter *sp = ctx;
    if (sp->redo) return 0;
    int rc = stitch_head(sp, 0);
    if (rc <= 0) return rc == 0; /* a fault sets redo, and the lines that come next stop */
    pthread_mutex_lock(&sp->mu);
    int parsed = sp->todo != NULL;
    if (parsed) parse_own(sp);
    pthread_mutex_unlock(&sp->mu);
    return parsed;
}

static int sink_damaged(void *ctx, const char *what, cg_error *err) {
    splitter *sp = ctx;
    if (settle_pieces(sp)) return -1;
    line_sink inner = parser_sink(sp->ps);
    return inner.damaged(inner.ctx, what, err);
}

line_sink split_sink(splitter *sp) {
    line_sink sink = {sp, sink_lines, sink_damaged, sink_swap, sink_idle};
    return sink;
}

splitter *split_start(parser *ps, int workers, size_t piece_size) {
    splitter *sp = calloc(1, sizeof *sp);
    if (!sp) return NULL;
    sp->ps = ps;
    sp->piece_size = piece_size ? piece_size : DEFAULT_PIECE;
    if (workers > MAX_WORKERS) workers = MAX_WORKERS;
    /* enough pieces in flight that the workers find one while the calling thread parses one or
     * reads and inflates a chunk (2 MiB, 16 pieces: with 5 beyond the workers a gzip load's
     * worker waited for a fifth of the load), and not many more (each holds its text and
     * local records) */
    sp->max_queued = (size_t)workers + 11;
    sp->scratch.seed = ps->b->seed;
    line_scratch_lend(&sp->scratch, ps->b->p->blocks);
    mark_scan_init(&sp->scan);
    /* without the lists (no memory), every block is freed by the thread that lets it go */
    sp->frees = line_frees_new((size_t)workers + 1);
    sp->scratch.frees = ps->b->scratch.frees = sp->frees;
    sp->defer = ps->site.defer;
    sp->defer_ctx = ps->site.defer_ctx;
    ps->split_sums = 1;
    ps->split_redo = 0;
    if (pthread_mutex_init(&sp->mu, NULL)) {
        free(sp);
        return NULL;
    }
    pthread_cond_init(&sp->work, NULL);
    pthread_cond_init(&sp->done, NULL);
    pthread_mutex_init(&sp->ready_mu, NULL);
    sp->ready_bytes = ps->b->pool.block_size;
    sp->ready_most = READY_BYTES / sp->ready_bytes;
    if (sp->ready_most < 1) sp->ready_most = 1;
    if (sp->ready_most > READY_MAX) sp->ready_most = READY_MAX;
    ps->b->pool.supply = take_ready;
    ps->b->pool.supply_ctx = sp;
    for (int k = 0; k < SHARDS; k++) pthread_mutex_init(&sp->shards[k], NULL);
    pthread_rwlock_init(&sp->grow, NULL);
    ps->b->streams_elsewhere = 1;
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&sp->threads[i], NULL, worker_main, sp)) break;
        sp->nworkers++;
    }
    if (!sp->nworkers) {
        split_free(sp);
        return NULL;
    }
    return sp;
}

int split_finish(splitter *sp, cg_error *err) {
    sp->ps->site.err = err;
    if (settle_pieces(sp)) {
        /* a fault of the parser's in a piece it parsed again is the load's error */
        if (!sp->failed)
            set_error(err, CG_ERR_FORMAT, 0, "%s: loaded again on one thread", sp->ps->site.name);
        return -1;
    }
    /* the streams' last compactions, which the analysis would make on one thread: nothing adds
     * strings now, so every thread may read them */
    pthread_mutex_lock(&sp->mu);
    sp->fin_next = 0;
    sp->fin_end = sp->fin_left = sp->ps->b->p->nfns;
    pthread_cond_broadcast(&sp->work);
    line_scratch *scratch = &sp->ps->b->scratch;
    while (sp->fin_next < sp->fin_end) finish_some(sp, scratch);
    while (sp->fin_left) pthread_cond_wait(&sp->done, &sp->mu);
    int redo = sp->redo;
    pthread_mutex_unlock(&sp->mu);
    /* no thread gives a block back now */
    for (int t = 0; sp->frees && t <= sp->nworkers; t++) line_frees_drain(sp->frees, (unsigned)t);

    if (redo) {
        set_error(err, CG_ERR_FORMAT, 0, "%s: loaded again on one thread", sp->ps->site.name);
        return -1;
    }
    return 0;
}

int split_redo(const splitter *sp) {
    return sp->redo || sp->ps->split_redo;
}

void split_free(splitter *sp) {
    if (!sp) return;
    pthread_mutex_lock(&sp->mu);
    sp->stop = 1;
    sp->todo = NULL;
    pthread_cond_broadcast(&sp->work);
    pthread_mutex_unlock(&sp->mu);
    for (int i = 0; i < sp->nworkers; i++) pthread_join(sp->threads[i], NULL);
    while (sp->head) {
        piece *pc = sp->head;
        sp->head = pc->next;
        piece_free(sp, pc);
    }
    piece_free(sp, sp->cur);
    while (sp->spare) {
        piece *pc = sp->spare;
        sp->spare = pc->next;
        piece_free(sp, pc);
    }
    /* no piece refers to a chunk now */
    free(sp->chunk);
    while (sp->free_chunks) {
        text_chunk *ck = sp->free_chunks;
        sp->free_chunks = ck->next;
        chunk_free(ck);
    }
    line_scratch_free(&sp->scratch);
    /* every thread but this one is gone */
    line_frees_free(sp->frees, (size_t)sp->nworkers + 1);
    sp->ps->b->scratch.frees = NULL;
    sp->ps->names_out = NULL;
    sp->ps->site.defer = sp->defer;
    sp->ps->site.defer_ctx = sp->defer_ctx;
    sp->ps->split_sums = 0;
    for (int k = 0; k < SHARDS; k++) pthread_mutex_destroy(&sp->shards[k]);
    pthread_rwlock_destroy(&sp->grow);
    sp->ps->b->streams_elsewhere = 0;
    sp->ps->b->pool.supply = NULL;
    sp->ps->b->pool.supply_ctx = NULL;
    for (size_t i = 0; i < sp->nready; i++) rec_block_free(sp->ready[i], sp->ready_bytes);
    pthread_mutex_destroy(&sp->ready_mu);
    pthread_mutex_destroy(&sp->mu);
    pthread_cond_destroy(&sp->work);
    pthread_cond_destroy(&sp->done);
    free(sp);
}
