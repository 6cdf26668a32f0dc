/* pipeline.c - the builder in a thread of its own (see pipeline.h). The parser's thread writes
 * records into a block; a full block goes to a queue that the builder's thread empties in order,
 * and comes back empty. At most MAX_QUEUED blocks wait, so the parser cannot run far ahead. */
#include "pipeline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "varint.h"
#include "vec.h"

/* A record is a head byte (the kind in the low bits; the function register and a flag above),
 * the distance of its input line from the last record's, then its fields. Numbers are varints
 * (7 bits a byte); a line record gives its file only when it differs from the last line
 * record's, and its line, address and costs as zigzag differences from the last line record's:
 * about 7 bytes for an instruction record with one cost. Those bytes are most of what goes from
 * one core to the other, which is most of what handing records over costs. */
enum { OP_FUNCTION = 1, OP_LINE, OP_CALL, OP_JUMP, OP_WARNING };
enum { OP_MASK = 15, REG_SHIFT = 4, FLAG = 64 }; /* FLAG: same file (lines), defined (fn=) */

enum { DEFAULT_BLOCK = 256 * 1024, MAX_QUEUED = 4 };

/* The largest record: a call with its costs and event map, or a warning. */
#define MAX_RECORD                                                                                 \
    (1 + 10 + sizeof(call_op) + 10 + MAX_RAW_EVENTS * (sizeof(cg_cost) + sizeof(uint32_t)) +       \
     sizeof(((cg_error *)0)->message) + 64)

typedef struct call_op {
    call_rec key;
    uint32_t guessed, mapped;
} call_op;

typedef struct block {
    struct block *next;
    size_t used;
    unsigned char data[]; /* aligned as the pointer before it */
} block;

struct pipeline {
    builder *b;
    fault_site *site;      /* the parser's: errors go to its err, read when they happen */
    fault_site build_site; /* the builder thread's: its faults are kept in berr */
    cg_error berr;
    size_t block_size;
    /* the parser's side */
    block *cur;
    uint64_t lineno; /* of the last record written */
    uint32_t last_file;
    uint64_t last_line, last_addr;
    cg_cost last_costs[MAX_RAW_EVENTS]; /* of the last line record (the builder's side too) */
    int dirty;                          /* records written since the last sync */
    /* the builder's side: the function index of each register, the line of the last record */
    uint32_t regs[PIPE_REGS];
    uint64_t replay_lineno;
    uint32_t replay_file;
    uint64_t replay_line, replay_addr;
    cg_cost replay_costs[MAX_RAW_EVENTS];
    /* shared, under lock */
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    block *head, *tail, *free_blocks;
    size_t queued;
    int busy;    /* the builder's thread is replaying a block */
    int closing; /* no more blocks will come */
    int failed;  /* the builder's thread stopped at a fault (berr) */
    pthread_t thread;
};

/* ---- the builder's thread ---- */

/* What a builder's status means, as parser.c says it: out of memory stops, an overflow is a
 * malformed line. Returns 0 to go on (1 when a tolerant load skips the rest of the line). */
static int built(pipeline *pl, status rc, uint64_t lineno, const char *overflow) {
    if (rc == ST_OK) return 0;
    if (rc == ST_OVERFLOW)
        return fault(&pl->build_site, CG_ERR_FORMAT, lineno, "%s does not fit in 64 bits",
                     overflow) < 0
                   ? -1
                   : 1;
    return fault_stop(&pl->build_site, CG_ERR_NOMEM, lineno, "out of memory");
}

/* A line record; its head byte is `head`. */
static const unsigned char *replay_line(pipeline *pl, int head, const unsigned char *at, int *rc) {
    uint64_t v, n;
    if (!(head & FLAG)) {
        at = get_varint(at, &v);
        pl->replay_file = (uint32_t)v;
    }
    at = get_varint(at, &v);
    pl->replay_line += unzigzag(v);
    at = get_varint(at, &v);
    pl->replay_addr += unzigzag(v);
    at = get_varint(at, &n);
    cg_cost *costs = pl->replay_costs;
    for (size_t i = 0; i < n; i++) {
        at = get_varint(at, &v);
        costs[i] = (cg_cost)((uint64_t)costs[i] + unzigzag(v));
    }
    uint32_t fn = pl->regs[(head >> REG_SHIFT) & 3];
    *rc = built(pl,
                build_line(pl->b, fn, pl->replay_file, pl->replay_line, pl->replay_addr, costs, n),
                pl->replay_lineno, "cost sum");
    return at;
}

static int replay_call(pipeline *pl, uint64_t lineno, const call_op *c, const cg_cost *costs,
                       size_t n, const uint32_t *map) {
    cg_cost *row;
    call_rec key = c->key;
    key.caller = pl->regs[key.caller];
    key.callee = pl->regs[key.callee];
    int rc = built(pl, build_call(pl->b, &key, (int)c->guessed, &row), lineno, "call count sum");
    if (rc) return rc < 0 ? -1 : 0;
    int bad = 0;
    if (!map) {
        bad = row_add(row, costs, n);
    } else {
        for (size_t i = 0; i < n; i++) bad |= cost_add(&row[map[i]], costs[i]);
    }
    if (bad &&
        fault(&pl->build_site, CG_ERR_FORMAT, lineno, "cost sum does not fit in 64 bits") < 0)
        return -1;
    return 0;
}

/* Replays the records of one block on the builder; -1 when a fault stops the load. */
static int replay(pipeline *pl, const block *blk) {
    const unsigned char *at = blk->data, *end = blk->data + blk->used;
    while (at < end) {
        int head = *at++;
        uint64_t delta, v[3];
        at = get_varint(at, &delta);
        pl->replay_lineno += delta;
        uint64_t lineno = pl->replay_lineno;
        int rc = 0;
        switch (head & OP_MASK) {
        case OP_LINE:
            at = replay_line(pl, head, at, &rc);
            break;
        case OP_FUNCTION: {
            for (int i = 0; i < 3; i++) at = get_varint(at, &v[i]);
            uint32_t fn;
            if (build_function(pl->b, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], &fn))
                return fault_stop(&pl->build_site, CG_ERR_NOMEM, lineno, "out of memory");
            if (head & FLAG) build_defined(pl->b, fn);
            pl->regs[(head >> REG_SHIFT) & 3] = fn;
            break;
        }
        case OP_CALL: {
            call_op c;
            uint64_t n;
            memcpy(&c, at, sizeof c);
            at = get_varint(at + sizeof c, &n);
            cg_cost costs[MAX_RAW_EVENTS];
            uint32_t map[MAX_RAW_EVENTS];
            memcpy(costs, at, n * sizeof *costs);
            at += n * sizeof *costs;
            if (c.mapped) {
                memcpy(map, at, n * sizeof *map);
                at += n * sizeof *map;
            }
            rc = replay_call(pl, lineno, &c, costs, n, c.mapped ? map : NULL);
            break;
        }
        case OP_JUMP: {
            jump_rec key;
            memcpy(&key, at, sizeof key);
            at += sizeof key;
            key.fn = pl->regs[key.fn];
            key.to_fn = pl->regs[key.to_fn];
            rc = built(pl, build_jump(pl->b, &key), lineno, "jump count sum");
            break;
        }
        default: { /* OP_WARNING: the message and its NUL */
            uint64_t len;
            at = get_varint(at, &len);
            rc = fault_keep(&pl->build_site, lineno, (const char *)at);
            at += len + 1;
            break;
        }
        }
        if (rc < 0) return -1;
    }
    return 0;
}

static void *builder_thread(void *arg) {
    pipeline *pl = arg;
    pthread_mutex_lock(&pl->lock);
    for (;;) {
        while (!pl->head && !pl->closing) pthread_cond_wait(&pl->work, &pl->lock);
        block *blk = pl->head;
        if (!blk) break;
        pl->head = blk->next;
        if (!pl->head) pl->tail = NULL;
        pl->busy = 1;
        int failed = pl->failed;
        pthread_mutex_unlock(&pl->lock);
        int rc = failed ? 0 : replay(pl, blk);
        pthread_mutex_lock(&pl->lock);
        if (rc) pl->failed = 1;
        blk->used = 0;
        blk->next = pl->free_blocks;
        pl->free_blocks = blk;
        pl->queued--;
        pl->busy = 0;
        pthread_cond_signal(&pl->room);
    }
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

/* ---- the parser's side ---- */

/* The builder's first fault, as the parser's error. */
static int take_fault(pipeline *pl) {
    if (pl->site->err) *pl->site->err = pl->berr;
    return -1;
}

static int out_of_memory(pipeline *pl, uint64_t lineno) {
    return fault_stop(pl->site, CG_ERR_NOMEM, lineno, "out of memory");
}

/* Hands the current block over (when it holds anything) and takes an empty one. */
static int hand_over(pipeline *pl, uint64_t lineno) {
    pthread_mutex_lock(&pl->lock);
    if (pl->cur && pl->cur->used) {
        pl->cur->next = NULL;
        if (pl->tail)
            pl->tail->next = pl->cur;
        else
            pl->head = pl->cur;
        pl->tail = pl->cur;
        pl->queued++;
        pl->cur = NULL;
        pthread_cond_signal(&pl->work);
    }
    while (pl->queued >= MAX_QUEUED && !pl->failed) pthread_cond_wait(&pl->room, &pl->lock);
    int failed = pl->failed;
    if (!pl->cur && pl->free_blocks) {
        pl->cur = pl->free_blocks;
        pl->free_blocks = pl->cur->next;
        pl->cur->next = NULL;
    }
    pthread_mutex_unlock(&pl->lock);
    if (failed) return take_fault(pl);
    if (!pl->cur) {
        if (!(pl->cur = malloc(sizeof(block) + pl->block_size + MAX_RECORD)))
            return out_of_memory(pl, lineno);
        pl->cur->used = 0;
        pl->cur->next = NULL;
    }
    return 0;
}

/* Room for a record of at most MAX_RECORD bytes in the current block (handed over past the
 * block size), its head written: the head byte, the distance of its line. The caller moves
 * pl->cur->used past what it writes. */
static inline unsigned char *reserve(pipeline *pl, uint64_t lineno, int head) {
    if (!pl->cur || pl->cur->used >= pl->block_size) {
        if (hand_over(pl, lineno)) return NULL;
    }
    unsigned char *at = pl->cur->data + pl->cur->used;
    *at++ = (unsigned char)head;
    at = put_varint(at, lineno - pl->lineno);
    pl->lineno = lineno;
    pl->dirty = 1;
    return at;
}

static inline void written(pipeline *pl, const unsigned char *end) {
    pl->cur->used = (size_t)(end - pl->cur->data);
}

int pipe_sync(pipeline *pl) {
    if (!pl->dirty) return 0;
    if (pl->cur && pl->cur->used && hand_over(pl, 0)) return -1;
    pthread_mutex_lock(&pl->lock);
    while ((pl->head || pl->busy) && !pl->failed) pthread_cond_wait(&pl->room, &pl->lock);
    int failed = pl->failed;
    pthread_mutex_unlock(&pl->lock);
    if (failed) return take_fault(pl);
    pl->dirty = 0;
    return 0;
}

int pipe_function(pipeline *pl, uint64_t lineno, uint32_t name, uint32_t file, uint32_t object,
                  int defined, int reg, uint32_t *fn) {
    unsigned char *at = reserve(pl, lineno, OP_FUNCTION | reg << REG_SHIFT | (defined ? FLAG : 0));
    if (!at) return -1;
    at = put_varint(at, name);
    at = put_varint(at, file);
    written(pl, put_varint(at, object));
    *fn = (uint32_t)reg;
    return 0;
}

int pipe_line(pipeline *pl, uint64_t lineno, uint32_t fn, uint32_t file, uint64_t line,
              uint64_t addr, const cg_cost *costs, size_t n) {
    int same = file == pl->last_file;
    unsigned char *at = reserve(pl, lineno, OP_LINE | (int)fn << REG_SHIFT | (same ? FLAG : 0));
    if (!at) return -1;
    if (!same) at = put_varint(at, file);
    at = put_varint(at, zigzag(line - pl->last_line));
    at = put_varint(at, zigzag(addr - pl->last_addr));
    at = put_varint(at, n);
    for (size_t i = 0; i < n; i++) {
        at = put_varint(at, zigzag((uint64_t)costs[i] - (uint64_t)pl->last_costs[i]));
        pl->last_costs[i] = costs[i];
    }
    written(pl, at);
    pl->last_file = file;
    pl->last_line = line;
    pl->last_addr = addr;
    return 0;
}

int pipe_call(pipeline *pl, uint64_t lineno, const call_rec *key, int guessed, const cg_cost *costs,
              size_t n, const uint32_t *map) {
    unsigned char *at = reserve(pl, lineno, OP_CALL);
    if (!at) return -1;
    call_op c;
    memset(&c, 0, sizeof c);
    c.key = *key;
    c.guessed = (uint32_t)(guessed != 0);
    c.mapped = map != NULL;
    memcpy(at, &c, sizeof c);
    at = put_varint(at + sizeof c, n);
    memcpy(at, costs, n * sizeof *costs);
    at += n * sizeof *costs;
    if (map) {
        memcpy(at, map, n * sizeof *map);
        at += n * sizeof *map;
    }
    written(pl, at);
    return 0;
}

int pipe_jump(pipeline *pl, uint64_t lineno, const jump_rec *key) {
    unsigned char *at = reserve(pl, lineno, OP_JUMP);
    if (!at) return -1;
    memcpy(at, key, sizeof *key);
    written(pl, at + sizeof *key);
    return 0;
}

int pipe_warning(void *ctx, uint64_t line, const char *message) {
    pipeline *pl = ctx;
    size_t len = strlen(message);
    unsigned char *at = reserve(pl, line, OP_WARNING);
    if (!at) return -1;
    at = put_varint(at, len);
    memcpy(at, message, len + 1);
    written(pl, at + len + 1);
    return 0;
}

/* ---- lifetime ---- */

static void free_blocks(block *blk) {
    while (blk) {
        block *next = blk->next;
        free(blk);
        blk = next;
    }
}

static void pipeline_free(pipeline *pl) {
    free_blocks(pl->cur);
    free_blocks(pl->head);
    free_blocks(pl->free_blocks);
    pthread_mutex_destroy(&pl->lock);
    pthread_cond_destroy(&pl->work);
    pthread_cond_destroy(&pl->room);
    free(pl);
}

pipeline *pipeline_start(builder *b, fault_site *site, size_t block_size) {
    pipeline *pl = calloc(1, sizeof *pl);
    if (!pl) return NULL;
    pl->b = b;
    pl->site = site;
    pl->build_site = *site;
    pl->build_site.err = &pl->berr;
    pl->build_site.defer = NULL;
    pl->build_site.defer_ctx = NULL;
    clear_error(&pl->berr);
    pl->block_size = block_size ? block_size : DEFAULT_BLOCK;
    if (pthread_mutex_init(&pl->lock, NULL)) {
        free(pl);
        return NULL;
    }
    pthread_cond_init(&pl->work, NULL);
    pthread_cond_init(&pl->room, NULL);
    b->strings_busy = 1;
    if (pthread_create(&pl->thread, NULL, builder_thread, pl)) {
        b->strings_busy = 0;
        pipeline_free(pl);
        return NULL;
    }
    return pl;
}

int pipeline_stop(pipeline *pl) {
    int rc = pipe_sync(pl);
    pthread_mutex_lock(&pl->lock);
    pl->closing = 1;
    pthread_cond_signal(&pl->work);
    pthread_mutex_unlock(&pl->lock);
    pthread_join(pl->thread, NULL);
    pl->b->strings_busy = 0;
    pipeline_free(pl);
    return rc;
}
