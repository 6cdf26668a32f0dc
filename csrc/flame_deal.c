/* flame_deal.c - whole costs for the frames of a flame graph. The walk gives each frame a real
 * share of its function's self cost; here whole numbers are dealt out by largest remainders,
 * first per column (a function, or [other]) to the roots that reach it, then balanced so that
 * every root gets its own target, then per cell (one root, one column) to its frames. Every sum
 * is exact in 64-bit integers; the doubles only decide who gets the remainders. */
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fault.h"

static int nomem(cg_error *err) {
    set_error(err, CG_ERR_NOMEM, 0, "out of memory");
    return -1;
}

static int by_remainder_desc(const void *a, const void *b) {
    const flame_leftover *x = a, *y = b;
    if (x->rem != y->rem) return x->rem > y->rem ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Shares are computed in doubles, each cut down to what is left of the target, so the parts
 * never add up to more; the rest goes one unit at a time to the largest remainders (in turns
 * when doubles lost more than one unit per item, as they may for targets beyond 2^53). */
void flame_split(cg_cost target, const double *w, size_t n, cg_cost *out, flame_leftover *scratch) {
    if (n == 0) return;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += w[i];
    if (!(sum > 0)) {
        out[0] = target;
        for (size_t i = 1; i < n; i++) out[i] = 0;
        return;
    }
    cg_cost given = 0;
    size_t npos = 0;
    for (size_t i = 0; i < n; i++) {
        double share = (double)target * (w[i] / sum);
        if (!(share >= 0)) share = 0;
        /* truncation is the floor of a share >= 0 */
        out[i] = share >= (double)target ? target : (cg_cost)share;
        double whole = (double)out[i];
        if (out[i] > target - given) out[i] = target - given;
        given += out[i];
        if (w[i] > 0) scratch[npos++] = (flame_leftover){share - whole, i};
    }
    cg_cost left = target - given; /* >= 0, and npos >= 1 since sum > 0 */
    if (left == 0) return;
    qsort(scratch, npos, sizeof *scratch, by_remainder_desc);
    cg_cost each = left / (cg_cost)npos;
    left -= each * (cg_cost)npos;
    for (size_t k = 0; k < npos; k++) out[scratch[k].i] += each + (k < (size_t)left);
}

/* A cell is the frames of one root and one column (a function, or [other]). */
typedef struct cell_key {
    uint64_t key; /* column << 32 | root */
    size_t frame;
} cell_key;

static int by_cell(const void *a, const void *b) {
    const cell_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

typedef struct deal {
    size_t ncells, nroots;
    cell_key *order;     /* frames sorted by cell */
    size_t *cell_begin;  /* ncells + 1 offsets into order */
    uint32_t *cell_root; /* per cell */
    uint32_t *cell_col;
    double *cell_value;
    cg_cost *cell_units;
    size_t *col_begin; /* cells of each column that has any, in order: ncolumns_used + 1 */
    size_t ncols_used;
} deal;

static void deal_free(deal *d) {
    free(d->order);
    free(d->cell_begin);
    free(d->cell_root);
    free(d->cell_col);
    free(d->cell_value);
    free(d->cell_units);
    free(d->col_begin);
}

static int make_cells(const flame_frames *fr, uint32_t other_col, deal *d) {
    size_t n = fr->n;
    d->order = malloc((n ? n : 1) * sizeof *d->order);
    if (!d->order) return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t col = fr->fn[i] == FLAME_OTHER ? other_col : fr->fn[i];
        d->order[i] = (cell_key){col << 32 | fr->root[i], i};
    }
    qsort(d->order, n, sizeof *d->order, by_cell);
    size_t ncells = 0, ncols = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || d->order[i].key != d->order[i - 1].key) ncells++;
        if (i == 0 || d->order[i].key >> 32 != d->order[i - 1].key >> 32) ncols++;
    }
    d->ncells = ncells;
    d->ncols_used = ncols;
    d->cell_begin = malloc((ncells + 1) * sizeof *d->cell_begin);
    d->cell_root = malloc((ncells ? ncells : 1) * sizeof *d->cell_root);
    d->cell_col = malloc((ncells ? ncells : 1) * sizeof *d->cell_col);
    d->cell_value = calloc(ncells ? ncells : 1, sizeof *d->cell_value);
    d->cell_units = calloc(ncells ? ncells : 1, sizeof *d->cell_units);
    d->col_begin = malloc((ncols + 1) * sizeof *d->col_begin);
    if (!d->cell_begin || !d->cell_root || !d->cell_col || !d->cell_value || !d->cell_units ||
        !d->col_begin)
        return -1;
    size_t c = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = d->order[i].key;
        if (i == 0 || key != d->order[i - 1].key) {
            if (i == 0 || key >> 32 != d->order[i - 1].key >> 32) d->col_begin[k++] = c;
            d->cell_begin[c] = i;
            d->cell_root[c] = (uint32_t)(key & 0xffffffffu);
            d->cell_col[c] = (uint32_t)(key >> 32);
            c++;
        }
        d->cell_value[c - 1] += fr->x[d->order[i].frame];
    }
    d->cell_begin[ncells] = n;
    d->col_begin[ncols] = ncells;
    return 0;
}

/* Moves single units between roots, through functions two roots share, until every root has
 * its target (possible whenever the real shares met the targets; otherwise stops at the
 * nearest). Roots are few, so a breadth-first search per unit is cheap. */
static int balance_roots(deal *d, const cg_cost *row_target, cg_error *err) {
    size_t nr = d->nroots, nc = d->ncells;
    cg_cost *excess = calloc(nr ? nr : 1, sizeof *excess);
    size_t *row_cells_begin = calloc(nr + 1, sizeof *row_cells_begin);
    size_t *row_cells = malloc((nc ? nc : 1) * sizeof *row_cells);
    size_t *cell_colpos = malloc((nc ? nc : 1) * sizeof *cell_colpos); /* its column's index */
    size_t *queue = malloc((nr ? nr : 1) * sizeof *queue);
    size_t *from = malloc((nr ? nr : 1) * sizeof *from), *to = malloc((nr ? nr : 1) * sizeof *to);
    unsigned char *seen = malloc(nr ? nr : 1);
    int rc = 0;
    if (!excess || !row_cells_begin || !row_cells || !cell_colpos || !queue || !from || !to ||
        !seen) {
        rc = nomem(err);
        goto done;
    }
    for (size_t c = 0; c < nc; c++) excess[d->cell_root[c]] += d->cell_units[c];
    int unbalanced = 0;
    for (size_t r = 0; r < nr; r++) {
        excess[r] -= row_target[r];
        if (excess[r]) unbalanced = 1;
    }
    if (!unbalanced) goto done;
    for (size_t k = 0; k < d->ncols_used; k++)
        for (size_t c = d->col_begin[k]; c < d->col_begin[k + 1]; c++) cell_colpos[c] = k;
    for (size_t c = 0; c < nc; c++) row_cells_begin[d->cell_root[c] + 1]++;
    for (size_t r = 0; r < nr; r++) row_cells_begin[r + 1] += row_cells_begin[r];
    {
        size_t *fill = calloc(nr ? nr : 1, sizeof *fill);
        if (!fill) {
            rc = nomem(err);
            goto done;
        }
        for (size_t c = 0; c < nc; c++) {
            size_t r = d->cell_root[c];
            row_cells[row_cells_begin[r] + fill[r]++] = c;
        }
        free(fill);
    }
    for (size_t s = 0; s < nr; s++) {
        while (excess[s] > 0) {
            memset(seen, 0, nr);
            size_t head = 0, tail = 0, found = CG_NONE;
            queue[tail++] = s;
            seen[s] = 1;
            while (head < tail && found == CG_NONE) {
                size_t r = queue[head++];
                for (size_t i = row_cells_begin[r]; i < row_cells_begin[r + 1]; i++) {
                    size_t a = row_cells[i], k = cell_colpos[a];
                    if (d->cell_units[a] <= 0) continue;
                    for (size_t b = d->col_begin[k]; b < d->col_begin[k + 1]; b++) {
                        size_t r2 = d->cell_root[b];
                        if (seen[r2] || !(d->cell_value[b] > 0)) continue;
                        seen[r2] = 1;
                        from[r2] = a;
                        to[r2] = b;
                        queue[tail++] = r2;
                        if (excess[r2] < 0) {
                            found = r2;
                            break;
                        }
                    }
                    if (found != CG_NONE) break;
                }
            }
            if (found == CG_NONE) break; /* the real shares cannot meet this root's target */
            for (size_t r = found; r != s; r = d->cell_root[from[r]]) {
                d->cell_units[from[r]]--;
                d->cell_units[to[r]]++;
            }
            excess[s]--;
            excess[found]++;
        }
    }
done:
    free(excess);
    free(row_cells_begin);
    free(row_cells);
    free(cell_colpos);
    free(queue);
    free(from);
    free(to);
    free(seen);
    return rc;
}

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* Gives every frame its integer self cost: columns get their targets (a function's self cost;
 * with pruning, the rounded real sums), split among roots, balanced to the roots' targets, then
 * split among the frames of each cell. */
int flame_deal(const cg_cost *self, size_t nfn, flame_frames *fr, int exact, cg_cost total,
               cg_cost *self_out, cg_error *err) {
    deal d;
    memset(&d, 0, sizeof d);
    uint32_t other_col = (uint32_t)nfn;
    size_t ncols = nfn + 1;
    uint32_t nroots = 0;
    for (size_t i = 0; i < fr->n; i++)
        if (fr->root[i] >= nroots) nroots = fr->root[i] + 1;
    d.nroots = nroots;
    double *col_real = calloc(ncols, sizeof *col_real);
    double *row_real = calloc(nroots ? nroots : 1, sizeof *row_real);
    cg_cost *col_target = malloc(ncols * sizeof *col_target);
    cg_cost *row_target = malloc((nroots ? nroots : 1) * sizeof *row_target);
    int rc = -1;
    if (!col_real || !row_real || !col_target || !row_target) {
        nomem(err);
        goto done;
    }
    /* exact: scale each function's shares to its self cost */
    for (size_t i = 0; i < fr->n; i++)
        col_real[fr->fn[i] == FLAME_OTHER ? other_col : fr->fn[i]] += fr->x[i];
    if (exact)
        for (size_t i = 0; i < fr->n; i++)
            if (fr->fn[i] != FLAME_OTHER && col_real[fr->fn[i]] > 0)
                fr->x[i] *= (double)self[fr->fn[i]] / col_real[fr->fn[i]];
    for (size_t i = 0; i < fr->n; i++) row_real[fr->root[i]] += fr->x[i];
    if (make_cells(fr, other_col, &d)) {
        nomem(err);
        goto done;
    }
    flame_leftover *scratch = malloc((max3(fr->n, ncols, nroots) + 1) * sizeof *scratch);
    double *values = malloc((max3(fr->n, ncols, nroots) + 1) * sizeof *values);
    cg_cost *parts = malloc((max3(fr->n, ncols, nroots) + 1) * sizeof *parts);
    if (!scratch || !values || !parts) {
        free(scratch);
        free(values);
        free(parts);
        nomem(err);
        goto done;
    }
    if (exact) {
        for (size_t f = 0; f < nfn; f++) col_target[f] = self[f];
        col_target[other_col] = 0;
    } else {
        flame_split(total, col_real, ncols, col_target, scratch);
    }
    flame_split(total, row_real, nroots, row_target, scratch);
    for (size_t k = 0; k < d.ncols_used; k++) {
        size_t b = d.col_begin[k], e = d.col_begin[k + 1];
        flame_split(col_target[d.cell_col[b]], d.cell_value + b, e - b, d.cell_units + b, scratch);
    }
    rc = balance_roots(&d, row_target, err);
    for (size_t c = 0; !rc && c < d.ncells; c++) {
        size_t b = d.cell_begin[c], e = d.cell_begin[c + 1];
        for (size_t i = b; i < e; i++) values[i - b] = fr->x[d.order[i].frame];
        flame_split(d.cell_units[c], values, e - b, parts, scratch);
        for (size_t i = b; i < e; i++) self_out[d.order[i].frame] = parts[i - b];
    }
    free(scratch);
    free(values);
    free(parts);
done:
    free(col_real);
    free(row_real);
    free(col_target);
    free(row_target);
    deal_free(&d);
    return rc;
}
