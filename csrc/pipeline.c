/* pipeline.c - the builder in a thread of its own (see pipeline.h). The parser's thread writes
 * records into a block; a full block goes to a queue that the builder's thread empties in order,
 * and comes back empty. At most MAX_QUEUED blocks wait, so the parser cannot run far ahead. */
#include "pipeline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "vec.h"

enum { OP_FUNCTION = 1, OP_LINE, OP_CALL, OP_JUMP, OP_WARNING, OP_LINENO };

/* A line record's flags: its position and its costs fit in 32 bits each. */
enum { NARROW_POS = 1, NARROW_COSTS = 2 };

enum { DEFAULT_BLOCK = 256 * 1024, MAX_QUEUED = 8 };

/* The largest record: a call with its costs and event map, or a warning. */
#define MAX_RECORD                                                                                 \
    (2 * sizeof(op_head) + 8 + sizeof(call_op) +                                                   \
     MAX_RAW_EVENTS * (sizeof(cg_cost) + sizeof(uint32_t)) + sizeof(((cg_error *)0)->message) +    \
     16)

/* Every record starts with a head, 8-byte aligned; `n` counts its costs or message bytes; the
 * input line is given as the distance from the last record's (OP_LINENO gives it whole when it
 * is farther). A line record, by far the most common, is written in as few bytes as its
 * numbers allow (24 for one cost in 32 bits): its bytes are most of what goes from one thread
 * to the other. */
typedef struct op_head {
    uint8_t op, flags;
    uint16_t n;
    uint32_t delta;
} op_head;

typedef struct function_op {
    uint32_t name, file, object, defined, reg;
} function_op;

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
    int dirty;       /* records written since the last sync */
    /* the builder's side: the function index of each register, the line of the last record */
    uint32_t regs[PIPE_REGS];
    uint64_t replay_lineno;
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

static size_t aligned(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* A line record: the register of its function in the head's flags (above the NARROW bits),
 * then the file, the line and address, the costs. */
static const unsigned char *replay_line(pipeline *pl, const op_head *h, const unsigned char *at,
                                        int *rc) {
    uint32_t file;
    uint64_t line, addr;
    size_t n = h->n;
    cg_cost costs[MAX_RAW_EVENTS];
    memcpy(&file, at, 4);
    at += 4;
    if (h->flags & NARROW_POS) {
        uint32_t v[2];
        memcpy(v, at, 8);
        line = v[0], addr = v[1];
        at += 8;
    } else {
        memcpy(&line, at, 8);
        memcpy(&addr, at + 8, 8);
        at += 16;
    }
    if (h->flags & NARROW_COSTS) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, at + 4 * i, 4);
            costs[i] = v;
        }
        at += 4 * n;
    } else {
        memcpy(costs, at, n * sizeof *costs);
        at += n * sizeof *costs;
    }
    uint32_t fn = pl->regs[h->flags >> 2];
    *rc =
        built(pl, build_line(pl->b, fn, file, line, addr, costs, n), pl->replay_lineno, "cost sum");
    return at;
}

static int replay_call(pipeline *pl, uint64_t lineno, const call_op *c, const cg_cost *costs,
                       size_t n) {
    cg_cost *row;
    call_rec key = c->key;
    key.caller = pl->regs[key.caller];
    key.callee = pl->regs[key.callee];
    int rc = built(pl, build_call(pl->b, &key, (int)c->guessed, &row), lineno, "call count sum");
    if (rc) return rc < 0 ? -1 : 0;
    int bad = 0;
    if (!c->mapped) {
        bad = row_add(row, costs, n);
    } else {
        const uint32_t *map = (const uint32_t *)(costs + n);
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
        const op_head *h = (const op_head *)at;
        const unsigned char *body = at + sizeof *h;
        int rc = 0;
        pl->replay_lineno += h->delta;
        uint64_t lineno = pl->replay_lineno;
        switch (h->op) {
        case OP_LINE:
            at = at + aligned((size_t)(replay_line(pl, h, body, &rc) - at));
            break;
        case OP_LINENO:
            memcpy(&pl->replay_lineno, body, 8);
            at = body + 8;
            break;
        case OP_FUNCTION: {
            const function_op *f = (const function_op *)body;
            uint32_t fn;
            if (build_function(pl->b, f->name, f->file, f->object, &fn))
                return fault_stop(&pl->build_site, CG_ERR_NOMEM, lineno, "out of memory");
            if (f->defined) build_defined(pl->b, fn);
            pl->regs[f->reg] = fn;
            at = body + aligned(sizeof *f);
            break;
        }
        case OP_CALL: {
            const call_op *c = (const call_op *)body;
            const cg_cost *costs = (const cg_cost *)(body + sizeof *c);
            rc = replay_call(pl, lineno, c, costs, h->n);
            at = body + sizeof *c +
                 aligned(h->n * (sizeof *costs + (c->mapped ? sizeof(uint32_t) : 0)));
            break;
        }
        case OP_JUMP: {
            jump_rec key = *(const jump_rec *)body;
            key.fn = pl->regs[key.fn];
            key.to_fn = pl->regs[key.to_fn];
            rc = built(pl, build_jump(pl->b, &key), lineno, "jump count sum");
            at = body + aligned(sizeof(jump_rec));
            break;
        }
        default: /* OP_WARNING */
            rc = fault_keep(&pl->build_site, lineno, (const char *)body);
            at = body + aligned(h->n + 1);
            break;
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

/* Room for a record of `size` bytes in the current block (hand it over past the block size);
 * its head is written. */
static inline unsigned char *reserve(pipeline *pl, uint64_t lineno, int op, int flags, size_t n,
                                     size_t size) {
    if (!pl->cur || pl->cur->used >= pl->block_size) {
        if (hand_over(pl, lineno)) return NULL;
    }
    unsigned char *at = pl->cur->data + pl->cur->used;
    uint64_t delta = lineno - pl->lineno;
    if (delta > UINT32_MAX) {
        op_head far = {OP_LINENO, 0, 0, 0};
        memcpy(at, &far, sizeof far);
        memcpy(at + sizeof far, &lineno, 8);
        at += sizeof far + 8;
        pl->cur->used += sizeof far + 8;
        delta = 0;
    }
    pl->lineno = lineno;
    op_head h = {(uint8_t)op, (uint8_t)flags, (uint16_t)n, (uint32_t)delta};
    memcpy(at, &h, sizeof h);
    pl->cur->used += sizeof h + aligned(size);
    pl->dirty = 1;
    return at + sizeof h;
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
    function_op *f = (function_op *)reserve(pl, lineno, OP_FUNCTION, 0, 0, sizeof *f);
    if (!f) return -1;
    *f = (function_op){name, file, object, (uint32_t)(defined != 0), (uint32_t)reg};
    *fn = (uint32_t)reg;
    return 0;
}

int pipe_line(pipeline *pl, uint64_t lineno, uint32_t fn, uint32_t file, uint64_t line,
              uint64_t addr, const cg_cost *costs, size_t n) {
    int flags = (int)fn << 2;
    if (line <= UINT32_MAX && addr <= UINT32_MAX) flags |= NARROW_POS;
    int narrow = 1;
    for (size_t i = 0; i < n; i++) narrow &= costs[i] >= 0 && costs[i] <= (cg_cost)UINT32_MAX;
    if (narrow) flags |= NARROW_COSTS;
    size_t size = 4 + (flags & NARROW_POS ? 8 : 16) + n * (narrow ? 4 : sizeof *costs);
    unsigned char *at = reserve(pl, lineno, OP_LINE, flags, n, size);
    if (!at) return -1;
    memcpy(at, &file, 4);
    at += 4;
    if (flags & NARROW_POS) {
        uint32_t v[2] = {(uint32_t)line, (uint32_t)addr};
        memcpy(at, v, 8);
        at += 8;
    } else {
        memcpy(at, &line, 8);
        memcpy(at + 8, &addr, 8);
        at += 16;
    }
    if (narrow) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)costs[i];
            memcpy(at + 4 * i, &v, 4);
        }
    } else {
        memcpy(at, costs, n * sizeof *costs);
    }
    return 0;
}

int pipe_call(pipeline *pl, uint64_t lineno, const call_rec *key, int guessed, const cg_cost *costs,
              size_t n, const uint32_t *map) {
    size_t size = sizeof(call_op) + n * (sizeof *costs + (map ? sizeof *map : 0));
    unsigned char *at = reserve(pl, lineno, OP_CALL, 0, n, size);
    if (!at) return -1;
    call_op *c = (call_op *)at;
    c->key = *key;
    c->guessed = (uint32_t)(guessed != 0);
    c->mapped = map != NULL;
    memcpy(at + sizeof *c, costs, n * sizeof *costs);
    if (map) memcpy(at + sizeof *c + n * sizeof *costs, map, n * sizeof *map);
    return 0;
}

int pipe_jump(pipeline *pl, uint64_t lineno, const jump_rec *key) {
    jump_rec *j = (jump_rec *)reserve(pl, lineno, OP_JUMP, 0, 0, sizeof *j);
    if (!j) return -1;
    *j = *key;
    return 0;
}

int pipe_warning(void *ctx, uint64_t line, const char *message) {
    pipeline *pl = ctx;
    size_t len = strlen(message);
    char *at = (char *)reserve(pl, line, OP_WARNING, 0, len, len + 1);
    if (!at) return -1;
    memcpy(at, message, len + 1);
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
    if (pthread_create(&pl->thread, NULL, builder_thread, pl)) {
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
    pipeline_free(pl);
    return rc;
}
