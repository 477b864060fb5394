/*
 * irpref._native.kernels: the inner loops of the randomized Tukey HSD (irpref.stats)
 * and of the exact largest gain ratio (irpref.measures.ndcg_bounds).
 *
 * Optional: irpref.stats uses these functions when this module is importable
 * (and IRPREF_KERNELS is not "numpy"), else its NumPy kernels, which give the
 * same numbers bit for bit. Plain C and the CPython buffer protocol; every
 * loop runs without the GIL, so HSD batches run on several threads.
 *
 * permute(capsule, out, n_runs)
 *     Fill each row of `out` (int16 / int32, length n_runs) with 0..n_runs-1
 *     and shuffle it with NumPy's own algorithm and bit generator, so that the
 *     result equals Generator.permuted(broadcast_to(arange(n_runs), shape),
 *     axis=-1) draw for draw (rows in C order; each row a Fisher-Yates pass
 *     i = n-1 .. 1, j = random_interval(i): masked rejection on next_uint32).
 *     `capsule` is BitGenerator.capsule; the caller holds BitGenerator.lock.
 *     irpref.stats checks the equality at run time before trusting it.
 *
 * matrix_maxima(table, perm, n_queries, n_runs, half, out)
 *     table (Q, R, R) float64 or int8; perm (B, Q, R) int16 / int32;
 *     out[b] = max over cells (i, j) of |sum_q table[q, p_bq[i], p_bq[j]]|,
 *     summed over q = 0..Q-1 in order (float64 accumulator for float64
 *     tables, int32 for int8 tables), as the NumPy kernel does. half != 0:
 *     the table is antisymmetric, so only cells i < j are summed.
 *
 * order_maxima(keys, perm, n_queries, n_runs, out)
 *     keys (Q, R) int8 / int16; out[b] = max over i < j of
 *     |sum_q sgn(k[q, p_bq[i]] - k[q, p_bq[j]])| (int16 accumulator below 2**15
 *     queries, as the NumPy kernel; else int32: integer sums are exact).
 *
 * metric_maxima(x, perm, n_queries, n_runs, out)
 *     x (Q, R) float64; out[b] = max_i m_i - min_i m_i with
 *     m_i = (sum_q x[q, p_bq[i]]) / Q, the sum over q = 0..Q-1 taken the way
 *     the NumPy kernel's x[q, perm].mean(1) takes it: the gathered array
 *     keeps queries contiguous, so NumPy sums them pairwise (see pairwise_sum).
 *
 * ap_bounds(rel_rank, rel_offsets, unj_rank, unj_offsets, r0, cutoff, lower, upper)
 *     Residual bounds of AP@k (irpref.measures.rank_bounds.ap_bounds, whose
 *     NumPy code gives the same values to rounding): per segment, the judged
 *     relevant items' and the unjudged items' 0-based ranks (int64, ascending
 *     within each segment; offsets int64, S + 1), R0 (float64, S) and the
 *     cut-off (-1: none); lower / upper (float64, S) receive the least and the
 *     largest (S0 + the sum of the top j / bottom j unjudged items' additions)
 *     / (R0 + j) over j = 0 .. u, in one forward and one backward pass.
 *
 * gain_ratio_bounds(w, lead, count, seg_query, n0, layer_gain, at_least, dcum,
 *                   top_gain, lower, upper)
 *     Both residual bounds of nDCG@k / NCG@k per segment
 *     (irpref.measures.ndcg_bounds.gain_ratio_bounds, whose NumPy code gives
 *     the same values to rounding): w float64, the weights of the first lead[s]
 *     unjudged items of each segment (the others weigh 0), count[s] unjudged
 *     items in all; the ideal with j more documents of grade >= h is read as
 *     sum_h layer_gain[h] dcum[J_h + j]. lower: the least over j of the bottom
 *     j at the top grade; upper: Dinkelbach's method over the grade layers,
 *     from the best top j at the top grade (as largest_ratio there).
 *
 * segment_scan(offsets, rank, grade, rel, cutoff, kind, table, out)
 *     One pass over the items of every segment offsets[s]:offsets[s+1]
 *     (int64, S + 1), in item order: rank int32 / int64 per item (None: the
 *     item's position in its segment), grade int32, relevant when grade >= rel,
 *     within the cut-off when rank < cutoff (-1: none). kind 0 (AP's sum):
 *     out[s] = sum of h / (rank + 1.0) over the relevant items within the
 *     cut-off, h counting the segment's relevant items up to this one; 1 (DCG,
 *     linear gain): sum of grade / table[rank] over the items of grade >= 1
 *     within the cut-off, table[r] = log2(r + 2.0); 2 (RR): 1 / (rank + 1.0)
 *     of the first relevant item if within the cut-off, else 0; 3 (count,
 *     out int64): the relevant items within the cut-off. Sums are taken left
 *     to right from 0.0, the order np.bincount adds its weights in, so the
 *     values equal the NumPy kernels' (irpref.measures.rank, .ndcg) bit for bit.
 *
 * ideal_dcg(offsets, grade, cutoff, table, out)
 *     Per query (offsets int64, Q + 1; grade int32 per qrels row): the grades
 *     >= 1 sorted descending, out[q] = sum of g / table[r] over the first
 *     min(count, cutoff) of them (cutoff -1: all), left to right from 0.0
 *     (irpref.measures.gains.ideal_dcg, bit for bit).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels_nct.h"

/* NumPy's bitgen_t (numpy/random/bitgen.h), the payload of BitGenerator.capsule. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/*
 * matrix_maxima sums up to GROUP permutations at once, query by query, so each
 * query's table is read once per group (from cache) instead of once per
 * permutation; the group's sums are capped at GROUP_BYTES (measured on a
 * 2-core EPYC, 100 runs: 8 -> 32 permutations cut the time by 30 %).
 */
#ifndef GROUP
#define GROUP 32
#endif
#define GROUP_BYTES (4 << 20)

/* ------------------------------------------------------------------ buffers */

/* 'b', 'h', 'i', 'q' (signed int of 1, 2, 4, 8 bytes) or 'd' (float64); 0 otherwise. */
static char code_of(const Py_buffer *v) {
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=') {
        f++;
    }
#if PY_LITTLE_ENDIAN
    else if (*f == '<') {
        f++;
    }
#else
    else if (*f == '>' || *f == '!') {
        f++;
    }
#endif
    if (f[0] == '\0' || f[1] != '\0') {
        return 0;
    }
    if (f[0] == 'd' && v->itemsize == 8) {
        return 'd';
    }
    if (strchr("bhilq", f[0]) != NULL) {
        switch (v->itemsize) {
            case 1:
                return 'b';
            case 2:
                return 'h';
            case 4:
                return 'i';
            case 8:
                return 'q';
        }
    }
    return 0;
}

/* A C-contiguous buffer of `expected` items whose type is one of `codes`. */
static int get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *name,
                      const char *codes, Py_ssize_t expected, char *code) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        return -1;
    }
    *code = code_of(view);
    if (*code == 0 || strchr(codes, *code) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported item type '%s'", name,
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    if (view->len / view->itemsize != expected) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", name, expected,
                     view->len / view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Row `row` of a permutation buffer (int16 or int32) as ints. */
static inline void load_perm(const void *perm, char code, Py_ssize_t row, Py_ssize_t r, int *p) {
    Py_ssize_t i;
    if (code == 'h') {
        const int16_t *s = (const int16_t *)perm + row * r;
        for (i = 0; i < r; i++) {
            p[i] = s[i];
        }
    } else {
        const int32_t *s = (const int32_t *)perm + row * r;
        for (i = 0; i < r; i++) {
            p[i] = s[i];
        }
    }
}

/* Every value of a permutation buffer in [0, r). */
static int check_perm(const Py_buffer *v, char code, Py_ssize_t r) {
    Py_ssize_t i, n = v->len / v->itemsize;
    if (code == 'h') {
        const int16_t *s = (const int16_t *)v->buf;
        for (i = 0; i < n; i++) {
            if (s[i] < 0 || s[i] >= r) {
                goto bad;
            }
        }
    } else {
        const int32_t *s = (const int32_t *)v->buf;
        for (i = 0; i < n; i++) {
            if (s[i] < 0 || s[i] >= r) {
                goto bad;
            }
        }
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "perm: values must be in [0, n_runs)");
    return -1;
}

/* ------------------------------------------------------------------ permute */

/* NumPy's random_interval: a uniform integer in [0, max] by masked rejection. */
static inline uint64_t random_interval(bitgen_t *bg, uint64_t max) {
    uint64_t mask = max, value;
    if (max == 0) {
        return 0;
    }
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    if (max <= 0xffffffffUL) {
        while ((value = (bg->next_uint32(bg->state) & mask)) > max) {
        }
    } else {
        while ((value = (bg->next_uint64(bg->state) & mask)) > max) {
        }
    }
    return value;
}

#define SHUFFLE_ROWS(T)                                                                            \
    do {                                                                                           \
        T *row = (T *)out.buf;                                                                     \
        for (Py_ssize_t k = 0; k < rows; k++, row += r) {                                          \
            for (Py_ssize_t i = 0; i < r; i++) {                                                   \
                row[i] = (T)i;                                                                     \
            }                                                                                      \
            for (Py_ssize_t i = r - 1; i > 0; i--) {                                               \
                Py_ssize_t j = (Py_ssize_t)random_interval(bg, (uint64_t)i);                       \
                T tmp = row[j];                                                                    \
                row[j] = row[i];                                                                   \
                row[i] = tmp;                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static PyObject *k_permute(PyObject *self, PyObject *args) {
    PyObject *capsule, *obj;
    Py_ssize_t r;
    Py_buffer out;
    char code;
    if (!PyArg_ParseTuple(args, "OOn:permute", &capsule, &obj, &r)) {
        return NULL;
    }
    if (!PyCapsule_IsValid(capsule, "BitGenerator")) {
        PyErr_SetString(PyExc_TypeError, "permute: expected a NumPy BitGenerator.capsule");
        return NULL;
    }
    bitgen_t *bg = (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
    if (r < 1 || r > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "n_runs must be in [1, 2**31)");
        return NULL;
    }
    if (PyObject_GetBuffer(obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        return NULL;
    }
    code = code_of(&out);
    if ((code != 'h' && code != 'i') || (code == 'h' && r > 32767) ||
        (out.len / out.itemsize) % r != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "permute: out must be int16 / int32 rows of n_runs items");
        PyBuffer_Release(&out);
        return NULL;
    }
    Py_ssize_t rows = (out.len / out.itemsize) / r;
    Py_BEGIN_ALLOW_THREADS if (code == 'h') {
        SHUFFLE_ROWS(int16_t);
    }
    else {
        SHUFFLE_ROWS(int32_t);
    }
    Py_END_ALLOW_THREADS PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ matrix maxima */

/* out[b] for b in [0, nb): gathered sums of table rows/columns, `group` permutations at a time. */
#define MATRIX_KERNEL(NAME, TT, AT, ABS)                                                           \
    static void NAME(const TT *t, const void *perm, char pcode, Py_ssize_t nb, Py_ssize_t nq,      \
                     Py_ssize_t r, int half, double *out, AT *acc, int *p, Py_ssize_t group) {     \
        Py_ssize_t rr = r * r;                                                                     \
        for (Py_ssize_t b0 = 0; b0 < nb; b0 += group) {                                            \
            Py_ssize_t g = nb - b0 < group ? nb - b0 : group;                                      \
            memset(acc, 0, (size_t)(g * rr) * sizeof(AT));                                         \
            for (Py_ssize_t q = 0; q < nq; q++) {                                                  \
                const TT *tq = t + q * rr;                                                         \
                for (Py_ssize_t k = 0; k < g; k++) {                                               \
                    load_perm(perm, pcode, (b0 + k) * nq + q, r, p);                               \
                    AT *ak = acc + k * rr;                                                         \
                    for (Py_ssize_t i = 0; i < r; i++) {                                           \
                        const TT *row = tq + (Py_ssize_t)p[i] * r;                                 \
                        AT *ai = ak + i * r;                                                       \
                        for (Py_ssize_t j = half ? i + 1 : 0; j < r; j++) {                        \
                            ai[j] += row[p[j]];                                                    \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            for (Py_ssize_t k = 0; k < g; k++) {                                                   \
                const AT *ak = acc + k * rr;                                                       \
                AT best = 0;                                                                       \
                for (Py_ssize_t i = 0; i < r; i++) {                                               \
                    for (Py_ssize_t j = half ? i + 1 : 0; j < r; j++) {                            \
                        AT v = ABS(ak[i * r + j]);                                                 \
                        if (v > best) {                                                            \
                            best = v;                                                              \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
                out[b0 + k] = (double)best;                                                        \
            }                                                                                      \
        }                                                                                          \
    }

#define IABS(x) ((x) < 0 ? -(x) : (x))
MATRIX_KERNEL(matrix_f64, double, double, fabs)
MATRIX_KERNEL(matrix_i8, int8_t, int32_t, IABS)

/* Shared argument handling: table/keys/x, perm (B, Q, R), out (B,). */
typedef struct {
    Py_buffer data, perm, out;
    char dcode, pcode;
    Py_ssize_t nb, nq, r;
} call_t;

static void release(call_t *c, int n) {
    if (n > 0) {
        PyBuffer_Release(&c->data);
    }
    if (n > 1) {
        PyBuffer_Release(&c->perm);
    }
    if (n > 2) {
        PyBuffer_Release(&c->out);
    }
}

static int get_call(call_t *c, PyObject *data, PyObject *perm, PyObject *out, Py_ssize_t nq,
                    Py_ssize_t r, Py_ssize_t data_items, const char *dcodes) {
    char ocode;
    c->nq = nq;
    c->r = r;
    if (get_buffer(data, &c->data, 0, "table", dcodes, data_items, &c->dcode) < 0) {
        return -1;
    }
    if (PyObject_GetBuffer(perm, &c->perm, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        release(c, 1);
        return -1;
    }
    c->pcode = code_of(&c->perm);
    Py_ssize_t items = c->perm.len / (c->perm.itemsize ? c->perm.itemsize : 1);
    if ((c->pcode != 'h' && c->pcode != 'i') || nq * r == 0 || items % (nq * r) != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "perm: expected int16 / int32 of shape (B, n_queries, n_runs)");
        release(c, 2);
        return -1;
    }
    c->nb = items / (nq * r);
    if (check_perm(&c->perm, c->pcode, r) < 0) {
        release(c, 2);
        return -1;
    }
    if (get_buffer(out, &c->out, 1, "out", "d", c->nb, &ocode) < 0) {
        release(c, 2);
        return -1;
    }
    return 0;
}

static PyObject *k_matrix_maxima(PyObject *self, PyObject *args) {
    PyObject *table, *perm, *out;
    Py_ssize_t nq, r;
    int half;
    call_t c;
    if (!PyArg_ParseTuple(args, "OOnnpO:matrix_maxima", &table, &perm, &nq, &r, &half, &out)) {
        return NULL;
    }
    if (nq < 1 || r < 1) {
        PyErr_SetString(PyExc_ValueError, "n_queries and n_runs must be >= 1");
        return NULL;
    }
    if (get_call(&c, table, perm, out, nq, r, nq * r * r, "db") < 0) {
        return NULL;
    }
    size_t acc_size = c.dcode == 'd' ? sizeof(double) : sizeof(int32_t);
    Py_ssize_t group = (Py_ssize_t)(GROUP_BYTES / ((size_t)(r * r) * acc_size));
    group = group < 1 ? 1 : (group > GROUP ? GROUP : group);
    group = group > c.nb ? (c.nb > 0 ? c.nb : 1) : group;
    void *acc = malloc((size_t)(group * r * r) * acc_size);
    int *p = (int *)malloc((size_t)r * sizeof(int));
    if (acc == NULL || p == NULL) {
        free(acc);
        free(p);
        release(&c, 3);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS if (c.dcode == 'd') {
        matrix_f64((const double *)c.data.buf, c.perm.buf, c.pcode, c.nb, nq, r, half,
                   (double *)c.out.buf, (double *)acc, p, group);
    }
    else {
        matrix_i8((const int8_t *)c.data.buf, c.perm.buf, c.pcode, c.nb, nq, r, half,
                  (double *)c.out.buf, (int32_t *)acc, p, group);
    }
    Py_END_ALLOW_THREADS free(acc);
    free(p);
    release(&c, 3);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------- order maxima */

/* AT: int16 sums when Q < 2**15 (|sum| <= Q; twice the SIMD lanes of int32), else int32. */
#define ORDER_KERNEL(NAME, KT, AT)                                                                 \
    static void NAME(const KT *keys, const void *perm, char pcode, Py_ssize_t nb, Py_ssize_t nq,   \
                     Py_ssize_t r, double *out, void *acc_, int *p, void *y_) {                    \
        AT *acc = (AT *)acc_, *y = (AT *)y_;                                                       \
        for (Py_ssize_t b = 0; b < nb; b++) {                                                      \
            memset(acc, 0, (size_t)(r * r) * sizeof(AT));                                          \
            for (Py_ssize_t q = 0; q < nq; q++) {                                                  \
                const KT *kq = keys + q * r;                                                       \
                load_perm(perm, pcode, b * nq + q, r, p);                                          \
                for (Py_ssize_t i = 0; i < r; i++) {                                               \
                    y[i] = (AT)kq[p[i]];                                                           \
                }                                                                                  \
                for (Py_ssize_t i = 0; i < r; i++) {                                               \
                    AT yi = y[i];                                                                  \
                    AT *ai = acc + i * r;                                                          \
                    for (Py_ssize_t j = i + 1; j < r; j++) {                                       \
                        ai[j] += (AT)((yi > y[j]) - (yi < y[j]));                                  \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            int32_t best = 0;                                                                      \
            for (Py_ssize_t i = 0; i < r; i++) {                                                   \
                for (Py_ssize_t j = i + 1; j < r; j++) {                                           \
                    int32_t v = IABS((int32_t)acc[i * r + j]);                                     \
                    if (v > best) {                                                                \
                        best = v;                                                                  \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            out[b] = (double)best;                                                                 \
        }                                                                                          \
    }

ORDER_KERNEL(order_i8_s16, int8_t, int16_t)
ORDER_KERNEL(order_i16_s16, int16_t, int16_t)
ORDER_KERNEL(order_i8_s32, int8_t, int32_t)
ORDER_KERNEL(order_i16_s32, int16_t, int32_t)

static PyObject *k_order_maxima(PyObject *self, PyObject *args) {
    PyObject *keys, *perm, *out;
    Py_ssize_t nq, r;
    call_t c;
    if (!PyArg_ParseTuple(args, "OOnnO:order_maxima", &keys, &perm, &nq, &r, &out)) {
        return NULL;
    }
    if (nq < 1 || r < 1) {
        PyErr_SetString(PyExc_ValueError, "n_queries and n_runs must be >= 1");
        return NULL;
    }
    if (get_call(&c, keys, perm, out, nq, r, nq * r, "bh") < 0) {
        return NULL;
    }
    int small = nq < 32768; /* keys are ranks < R and sums are bounded by Q */
    if (small && r > 32767) {
        small = 0;
    }
    size_t at = small ? sizeof(int16_t) : sizeof(int32_t);
    void *acc = malloc((size_t)(r * r) * at);
    void *y = malloc((size_t)r * at);
    int *p = (int *)malloc((size_t)r * sizeof(int));
    if (acc == NULL || p == NULL || y == NULL) {
        free(acc);
        free(p);
        free(y);
        release(&c, 3);
        return PyErr_NoMemory();
    }
    const void *k = c.data.buf;
    double *o = (double *)c.out.buf;
    Py_BEGIN_ALLOW_THREADS if (c.dcode == 'b') {
        (small ? order_i8_s16 : order_i8_s32)((const int8_t *)k, c.perm.buf, c.pcode, c.nb, nq, r,
                                              o, acc, p, y);
    }
    else {
        (small ? order_i16_s16 : order_i16_s32)((const int16_t *)k, c.perm.buf, c.pcode, c.nb, nq,
                                                r, o, acc, p, y);
    }
    Py_END_ALLOW_THREADS free(acc);
    free(p);
    free(y);
    release(&c, 3);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ metric maxima */

/*
 * NumPy's pairwise summation (the inner loop of np.add.reduce over a
 * contiguous axis): below 8 values a plain loop; up to 128, eight running
 * sums combined as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then
 * the rest; above, the two halves (split at a multiple of 8) summed apart.
 */
static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++) {
            res += a[i];
        }
        return res;
    }
    if (n <= 128) {
        double r[8], res;
        Py_ssize_t i;
        for (int j = 0; j < 8; j++) {
            r[j] = a[j];
        }
        for (i = 8; i < n - (n % 8); i += 8) {
            for (int j = 0; j < 8; j++) {
                r[j] += a[i + j];
            }
        }
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) {
            res += a[i];
        }
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static PyObject *k_metric_maxima(PyObject *self, PyObject *args) {
    PyObject *x, *perm, *out;
    Py_ssize_t nq, r;
    call_t c;
    if (!PyArg_ParseTuple(args, "OOnnO:metric_maxima", &x, &perm, &nq, &r, &out)) {
        return NULL;
    }
    if (nq < 1 || r < 1) {
        PyErr_SetString(PyExc_ValueError, "n_queries and n_runs must be >= 1");
        return NULL;
    }
    if (get_call(&c, x, perm, out, nq, r, nq * r, "d") < 0) {
        return NULL;
    }
    double *y = (double *)malloc((size_t)(r * nq) * sizeof(double)); /* (R, Q) gathered */
    int *p = (int *)malloc((size_t)r * sizeof(int));
    if (y == NULL || p == NULL) {
        free(y);
        free(p);
        release(&c, 3);
        return PyErr_NoMemory();
    }
    const double *xs = (const double *)c.data.buf;
    double *o = (double *)c.out.buf;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t b = 0; b < c.nb; b++) {
        for (Py_ssize_t q = 0; q < nq; q++) {
            const double *xq = xs + q * r;
            load_perm(c.perm.buf, c.pcode, b * nq + q, r, p);
            for (Py_ssize_t i = 0; i < r; i++) {
                y[i * nq + q] = xq[p[i]];
            }
        }
        double hi = 0., lo = 0.;
        for (Py_ssize_t i = 0; i < r; i++) {
            /* np.add.reduce starts from its identity 0.0; mean divides by the count */
            double m = (0. + pairwise_sum(y + i * nq, nq)) / (double)nq;
            if (i == 0 || m > hi) {
                hi = m;
            }
            if (i == 0 || m < lo) {
                lo = m;
            }
        }
        o[b] = hi - lo;
    }
    Py_END_ALLOW_THREADS free(y);
    free(p);
    release(&c, 3);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------- residual bounds */

/* The item count of every buffer o[i] (NULL: left out). */
static int item_counts(PyObject **o, int n, Py_ssize_t *sizes) {
    for (int i = 0; i < n; i++) {
        Py_buffer probe;
        sizes[i] = 0;
        if (o[i] == NULL) {
            continue;
        }
        if (PyObject_GetBuffer(o[i], &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            return -1;
        }
        sizes[i] = probe.len / (probe.itemsize ? probe.itemsize : 1);
        PyBuffer_Release(&probe);
    }
    return 0;
}

static void release_buffers(PyObject **o, Py_buffer *b, int n) {
    for (int i = 0; i < n; i++) {
        if (o[i] != NULL) {
            PyBuffer_Release(&b[i]);
        }
    }
}

/* Every buffer o[i] (NULL: left out) of type types[i] and sizes[i] items, writable
 * from index first_out on; on failure none is held. */
static int get_buffers(PyObject **o, Py_buffer *b, int n, const char *const *types,
                       const char *const *names, const Py_ssize_t *sizes, int first_out) {
    char code;
    for (int i = 0; i < n; i++) {
        if (o[i] == NULL) {
            continue;
        }
        if (get_buffer(o[i], &b[i], i >= first_out, names[i], types[i], sizes[i], &code) < 0) {
            release_buffers(o, b, i);
            return -1;
        }
    }
    return 0;
}

static PyObject *k_ap_bounds(PyObject *self, PyObject *args) {
    PyObject *o[8];
    Py_buffer b[8];
    Py_ssize_t cutoff;
    if (!PyArg_ParseTuple(args, "OOOOOnOO:ap_bounds", &o[0], &o[1], &o[2], &o[3], &o[4], &cutoff,
                          &o[6], &o[7])) {
        return NULL;
    }
    o[5] = NULL;
    Py_ssize_t sizes[8];
    if (item_counts(o, 8, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n_s = sizes[4];
    if (sizes[1] != n_s + 1 || sizes[3] != n_s + 1 || sizes[6] != n_s || sizes[7] != n_s) {
        PyErr_SetString(PyExc_ValueError, "ap_bounds: inconsistent sizes");
        return NULL;
    }
    const char *const types[8] = {"q", "q", "q", "q", "d", "", "d", "d"};
    const char *const names[8] = {"rel_rank", "rel_offsets", "unj_rank", "unj_offsets", "r0",
                                  "",         "lower",       "upper"};
    if (get_buffers(o, b, 8, types, names, sizes, 6) < 0) {
        return NULL;
    }
    const int64_t *rr = b[0].buf, *ro = b[1].buf, *ur = b[2].buf, *uo = b[3].buf;
    const double *r0 = b[4].buf;
    double *lower = b[6].buf, *upper = b[7].buf;
    double k = cutoff < 0 ? INFINITY : (double)cutoff;
    int bad = ro[0] != 0 || uo[0] != 0 || ro[n_s] != sizes[0] || uo[n_s] != sizes[2];
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t s = 0; s < n_s && !bad; s++) {
        Py_ssize_t r_a = ro[s], r_b = ro[s + 1], u_a = uo[s], u_b = uo[s + 1];
        if (r_b < r_a || u_b < u_a) {
            bad = 1;
            break;
        }
        /* S0 and the total 1/rank of the relevant items within k */
        double s0 = 0., rel_inv = 0.;
        for (Py_ssize_t i = r_a; i < r_b; i++) {
            if ((double)rr[i] < k) {
                double inv = 1. / ((double)rr[i] + 1.);
                s0 += (double)(i - r_a + 1) * inv;
                rel_inv += inv;
            }
        }
        double at0 = r0[s] > 0. ? s0 / r0[s] : 0.;
        double hi = at0, lo = at0;
        /* forward: the top j; add_top_t = inv_t (J_t + t) + tail_t */
        Py_ssize_t p = r_a;
        double seen_inv = 0., sum_top = 0.;
        for (Py_ssize_t t = u_a; t < u_b; t++) {
            while (p < r_b && rr[p] < ur[t]) {
                if ((double)rr[p] < k) {
                    seen_inv += 1. / ((double)rr[p] + 1.);
                }
                p++;
            }
            double inv = (double)ur[t] < k ? 1. / ((double)ur[t] + 1.) : 0.;
            double j = (double)(t - u_a + 1);
            sum_top += inv * ((double)(p - r_a) + j) + (rel_inv - seen_inv);
            double v = (s0 + sum_top) / (r0[s] + j);
            if (v > hi) {
                hi = v;
            }
        }
        /* backward: the bottom j; add_bottom_t = inv_t (J_t + 1) + tail_t + below_t */
        p = r_b;
        double later_inv = 0., below = 0., sum_bottom = 0.;
        for (Py_ssize_t t = u_b - 1; t >= u_a; t--) {
            while (p > r_a && rr[p - 1] > ur[t]) {
                p--;
                if ((double)rr[p] < k) {
                    later_inv += 1. / ((double)rr[p] + 1.);
                }
            }
            double inv = (double)ur[t] < k ? 1. / ((double)ur[t] + 1.) : 0.;
            sum_bottom += inv * ((double)(p - r_a) + 1.) + later_inv + below;
            below += inv;
            double v = (s0 + sum_bottom) / (r0[s] + (double)(u_b - t));
            if (v < lo) {
                lo = v;
            }
        }
        lower[s] = lo;
        upper[s] = hi;
    }
    Py_END_ALLOW_THREADS release_buffers(o, b, 8);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "ap_bounds: inconsistent offsets");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The ideal of segment query `jq` (at_least row) with j more documents of every grade. */
static inline double ideal_with(const double *gain, const double *dcum, const int64_t *jq,
                                Py_ssize_t n_t, Py_ssize_t j) {
    double out = 0.;
    for (Py_ssize_t h = 0; h < n_t; h++) {
        out += gain[h] * dcum[jq[h] + j];
    }
    return out;
}

static PyObject *k_gain_ratio_bounds(PyObject *self, PyObject *args) {
    PyObject *o[11];
    Py_buffer b[11];
    double top_gain;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdOO:gain_ratio_bounds", &o[0], &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &top_gain, &o[9], &o[10])) {
        return NULL;
    }
    o[8] = NULL;
    Py_ssize_t sizes[11];
    if (item_counts(o, 11, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n_s = sizes[1], n_t = sizes[5], n_d = sizes[7];
    if (sizes[2] != n_s || sizes[3] != n_s || sizes[4] != n_s || sizes[9] != n_s ||
        sizes[10] != n_s || n_t < 1 || sizes[6] % n_t != 0 || n_d < 1) {
        PyErr_SetString(PyExc_ValueError, "gain_ratio_bounds: inconsistent sizes");
        return NULL;
    }
    const char *const types[11] = {"d", "q", "q", "q", "d", "d", "q", "d", "", "d", "d"};
    const char *const names[11] = {"w",        "lead", "count", "seg_query", "n0",   "layer_gain",
                                   "at_least", "dcum", "",      "lower",     "upper"};
    if (get_buffers(o, b, 11, types, names, sizes, 9) < 0) {
        return NULL;
    }
    const double *w = b[0].buf, *n0 = b[4].buf, *gain = b[5].buf, *dcum = b[7].buf;
    const int64_t *lead = b[1].buf, *count = b[2].buf, *seg_q = b[3].buf, *at_least = b[6].buf;
    double *lower = b[9].buf, *upper = b[10].buf;
    Py_ssize_t n_w = sizes[0], n_q = sizes[6] / n_t;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS Py_ssize_t off = 0;
    for (Py_ssize_t s = 0; s < n_s && !bad; s++) {
        Py_ssize_t nl = lead[s], u = count[s], reach = 0;
        if (nl < 0 || u < nl || off + nl > n_w || seg_q[s] < 0 || seg_q[s] >= n_q) {
            bad = 1;
            break;
        }
        const int64_t *jq = at_least + seg_q[s] * n_t;
        for (Py_ssize_t h = 0; h < n_t; h++) {
            if (jq[h] < 0 || jq[h] + u >= n_d) {
                bad = 1;
            }
        }
        if (bad) {
            break;
        }
        while (reach < nl && w[off + reach] > 0.) {
            reach++;
        }
        double w_all = 0.;
        for (Py_ssize_t c = 0; c < reach; c++) {
            w_all += w[off + c];
        }
        /* lower: the bottom j = u - c at the top grade (c = 0 .. u); top j: c = j */
        double lo = INFINITY, lam = 0., big_w = 0.;
        for (Py_ssize_t c = 0; c <= u; c++) {
            if (c > 0 && c <= reach) {
                big_w += w[off + c - 1];
            }
            double den = ideal_with(gain, dcum, jq, n_t, u - c);
            double v = den > 0. ? (n0[s] + top_gain * (w_all - big_w)) / den : 0.;
            if (v < lo) {
                lo = v;
            }
            if (c <= reach) {
                double d2 = ideal_with(gain, dcum, jq, n_t, c);
                double t = d2 > 0. ? (n0[s] + top_gain * big_w) / d2 : 0.;
                if (t > lam) {
                    lam = t;
                }
            }
        }
        /* upper: Dinkelbach's method over the grade layers (largest_ratio) */
        for (int round = 0; round < 100; round++) {
            double num = n0[s], den = 0.;
            for (Py_ssize_t h = 0; h < n_t; h++) {
                const double *d = dcum + jq[h];
                double acc = 0., best = -lam * d[0], best_w = 0., best_d = d[0];
                for (Py_ssize_t c = 1; c <= reach; c++) {
                    acc += w[off + c - 1];
                    double phi = acc - lam * d[c];
                    if (phi >= best) {
                        best = phi;
                        best_w = acc;
                        best_d = d[c];
                    }
                }
                num += gain[h] * best_w;
                den += gain[h] * best_d;
            }
            double ratio = den > 0. ? num / den : 0.;
            if (!(ratio > lam)) {
                break;
            }
            lam = ratio;
        }
        lower[s] = lo;
        upper[s] = lam;
        off += nl;
    }
    Py_END_ALLOW_THREADS release_buffers(o, b, 11);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "gain_ratio_bounds: inconsistent sizes or indices");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------- noncentral t */

/* The Gauss-Hermite nodes and weights passed from Python (held by b[0], b[1]). */
static nct_nodes nodes_of(const Py_buffer *b, Py_ssize_t n) {
    nct_nodes gh = {(int)n, (const double *)b[0].buf, (const double *)b[1].buf};
    return gh;
}

static PyObject *k_nct_cdf(PyObject *self, PyObject *args) {
    PyObject *o[7];
    Py_buffer b[7];
    int mode;
    if (!PyArg_ParseTuple(args, "OOOOOiOO:nct_cdf", &o[2], &o[3], &o[4], &o[0], &o[1], &mode, &o[5],
                          &o[6])) {
        return NULL;
    }
    Py_ssize_t sizes[7];
    if (item_counts(o, 7, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n = sizes[2];
    if (sizes[1] != sizes[0] || sizes[3] != n || sizes[4] != n || sizes[5] != n || sizes[6] != n) {
        PyErr_SetString(PyExc_ValueError, "nct_cdf: inconsistent sizes");
        return NULL;
    }
    const char *const types[7] = {"d", "d", "d", "d", "d", "d", "d"};
    const char *const names[7] = {"nodes", "weights", "t", "df", "delta", "cdf", "slope"};
    if (get_buffers(o, b, 7, types, names, sizes, 5) < 0) {
        return NULL;
    }
    nct_nodes gh = nodes_of(b, sizes[0]);
    const double *t = b[2].buf, *df = b[3].buf, *delta = b[4].buf;
    double *f = b[5].buf, *d = b[6].buf;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < n; i++) {
        nct_cdf(t[i], df[i], delta[i], &gh, mode, &f[i], &d[i]);
    }
    Py_END_ALLOW_THREADS release_buffers(o, b, 7);
    Py_RETURN_NONE;
}

static PyObject *k_nct_noncentrality(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_buffer b[5];
    double level, z;
    if (!PyArg_ParseTuple(args, "OOddOOO:nct_noncentrality", &o[2], &o[3], &level, &z, &o[0], &o[1],
                          &o[4])) {
        return NULL;
    }
    Py_ssize_t sizes[5];
    if (item_counts(o, 5, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n = sizes[2];
    if (sizes[1] != sizes[0] || sizes[3] != n || sizes[4] != n) {
        PyErr_SetString(PyExc_ValueError, "nct_noncentrality: inconsistent sizes");
        return NULL;
    }
    const char *const types[5] = {"d", "d", "d", "d", "d"};
    const char *const names[5] = {"nodes", "weights", "t", "df", "out"};
    if (get_buffers(o, b, 5, types, names, sizes, 4) < 0) {
        return NULL;
    }
    nct_nodes gh = nodes_of(b, sizes[0]);
    const double *t = b[2].buf, *df = b[3].buf;
    double *out = b[4].buf;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = nct_noncentrality(t[i], df[i], level, z, &gh);
    }
    Py_END_ALLOW_THREADS release_buffers(o, b, 5);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ ranking scans */

enum { SCAN_AP = 0, SCAN_DCG = 1, SCAN_RR = 2, SCAN_COUNT = 3 };

/* The rank of item i of a segment starting at `start`: rank[i], or i - start. */
static inline int64_t item_rank(const void *rank, char code, Py_ssize_t i, Py_ssize_t start) {
    if (rank == NULL) {
        return (int64_t)(i - start);
    }
    return code == 'i' ? (int64_t)((const int32_t *)rank)[i] : ((const int64_t *)rank)[i];
}

/* Offsets that start at 0, never decrease and end at n. */
static int valid_offsets(const int64_t *off, Py_ssize_t n_s, Py_ssize_t n) {
    if (off[0] != 0 || off[n_s] != n) {
        return 0;
    }
    for (Py_ssize_t s = 0; s < n_s; s++) {
        if (off[s + 1] < off[s]) {
            return 0;
        }
    }
    return 1;
}

/* One segment of segment_scan; -1 when a DCG rank lies outside the table. */
static int scan_one(int kind, const void *rank, char rcode, const int32_t *grade, Py_ssize_t a,
                    Py_ssize_t b, int64_t rel, int64_t cut, const double *table, Py_ssize_t n_table,
                    double *value, int64_t *count) {
    double sum = 0.;
    int64_t hits = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        int64_t g = grade[i];
        if (kind == SCAN_DCG) {
            if (g < 1) {
                continue;
            }
            int64_t r = item_rank(rank, rcode, i, a);
            if (r >= cut) {
                continue;
            }
            if (r < 0 || r >= n_table) {
                return -1;
            }
            sum += (double)g / table[r];
            continue;
        }
        if (g < rel) {
            continue;
        }
        int64_t r = item_rank(rank, rcode, i, a);
        hits++;
        if (kind == SCAN_RR) { /* the first relevant item only */
            sum = r < cut ? 1. / ((double)r + 1.) : 0.;
            break;
        }
        if (r >= cut) {
            continue;
        }
        if (kind == SCAN_AP) {
            sum += (double)hits / ((double)r + 1.);
        } else {
            (*count)++;
        }
    }
    *value = sum;
    return 0;
}

static PyObject *k_segment_scan(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_buffer b[5];
    long long rel, cutoff;
    int kind;
    if (!PyArg_ParseTuple(args, "OOOLLiOO:segment_scan", &o[0], &o[1], &o[2], &rel, &cutoff, &kind,
                          &o[3], &o[4])) {
        return NULL;
    }
    if (kind < SCAN_AP || kind > SCAN_COUNT) {
        PyErr_SetString(PyExc_ValueError, "segment_scan: kind must be 0, 1, 2 or 3");
        return NULL;
    }
    if (o[1] == Py_None) {
        o[1] = NULL;
    }
    Py_ssize_t sizes[5];
    if (item_counts(o, 5, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n_s = sizes[0] - 1, n = sizes[2];
    if (n_s < 0 || (o[1] != NULL && sizes[1] != n)) {
        PyErr_SetString(PyExc_ValueError, "segment_scan: inconsistent sizes");
        return NULL;
    }
    sizes[4] = n_s;
    const char *const types[5] = {"q", "iq", "i", "d", kind == SCAN_COUNT ? "q" : "d"};
    const char *const names[5] = {"offsets", "rank", "grade", "table", "out"};
    if (get_buffers(o, b, 5, types, names, sizes, 4) < 0) {
        return NULL;
    }
    const int64_t *off = b[0].buf;
    const void *rank = o[1] != NULL ? b[1].buf : NULL;
    char rcode = o[1] != NULL && b[1].itemsize == 4 ? 'i' : 'q';
    const int32_t *grade = b[2].buf;
    const double *table = b[3].buf;
    Py_ssize_t n_table = sizes[3];
    int64_t cut = cutoff < 0 ? INT64_MAX : (int64_t)cutoff;
    int bad = !valid_offsets(off, n_s, n);
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t s = 0; s < n_s && !bad; s++) {
        double value = 0.;
        int64_t count = 0;
        bad = scan_one(kind, rank, rcode, grade, off[s], off[s + 1], (int64_t)rel, cut, table,
                       n_table, &value, &count) < 0;
        if (kind == SCAN_COUNT) {
            ((int64_t *)b[4].buf)[s] = count;
        } else {
            ((double *)b[4].buf)[s] = value;
        }
    }
    Py_END_ALLOW_THREADS release_buffers(o, b, 5);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "segment_scan: offsets out of range or a rank "
                                          "beyond the table");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Sort g[0:n) descending (insertion sort: a query's relevant rows are few; a
 * large query falls back to qsort). */
static int descending(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

static void sort_descending(int32_t *g, Py_ssize_t n) {
    if (n > 32) {
        qsort(g, (size_t)n, sizeof(int32_t), descending);
        return;
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        int32_t v = g[i];
        Py_ssize_t j = i;
        for (; j > 0 && g[j - 1] < v; j--) {
            g[j] = g[j - 1];
        }
        g[j] = v;
    }
}

static PyObject *k_ideal_dcg(PyObject *self, PyObject *args) {
    PyObject *o[4];
    Py_buffer b[4];
    long long cutoff;
    if (!PyArg_ParseTuple(args, "OOLOO:ideal_dcg", &o[0], &o[1], &cutoff, &o[2], &o[3])) {
        return NULL;
    }
    Py_ssize_t sizes[4];
    if (item_counts(o, 4, sizes) < 0) {
        return NULL;
    }
    Py_ssize_t n_q = sizes[0] - 1, n = sizes[1], n_table = sizes[2];
    if (n_q < 0) {
        PyErr_SetString(PyExc_ValueError, "ideal_dcg: no offsets");
        return NULL;
    }
    sizes[3] = n_q;
    const char *const types[4] = {"q", "i", "d", "d"};
    const char *const names[4] = {"offsets", "grade", "table", "out"};
    if (get_buffers(o, b, 4, types, names, sizes, 3) < 0) {
        return NULL;
    }
    const int64_t *off = b[0].buf;
    const int32_t *grade = b[1].buf;
    const double *table = b[2].buf;
    double *out = b[3].buf;
    int64_t cut = cutoff < 0 ? INT64_MAX : (int64_t)cutoff;
    int bad = !valid_offsets(off, n_q, n);
    Py_ssize_t widest = 0;
    for (Py_ssize_t q = 0; q < n_q && !bad; q++) {
        widest = off[q + 1] - off[q] > widest ? off[q + 1] - off[q] : widest;
    }
    int32_t *buf = bad ? NULL : malloc((size_t)(widest + 1) * sizeof(int32_t));
    if (!bad && buf == NULL) {
        release_buffers(o, b, 4);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t q = 0; q < n_q && !bad; q++) {
        Py_ssize_t m = 0;
        for (int64_t i = off[q]; i < off[q + 1]; i++) {
            if (grade[i] >= 1) {
                buf[m++] = grade[i];
            }
        }
        sort_descending(buf, m);
        int64_t k = m < cut ? m : cut;
        if (k > n_table) {
            bad = 1;
            break;
        }
        double sum = 0.;
        for (int64_t r = 0; r < k; r++) {
            sum += (double)buf[r] / table[r];
        }
        out[q] = sum;
    }
    Py_END_ALLOW_THREADS free(buf);
    release_buffers(o, b, 4);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "ideal_dcg: offsets out of range or a table too short");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"permute", k_permute, METH_VARARGS,
     "permute(capsule, out, n_runs): NumPy's Generator.permuted of arange(n_runs) rows."},
    {"matrix_maxima", k_matrix_maxima, METH_VARARGS,
     "matrix_maxima(table, perm, n_queries, n_runs, half, out): max |gathered sums|."},
    {"order_maxima", k_order_maxima, METH_VARARGS,
     "order_maxima(keys, perm, n_queries, n_runs, out): max |sum of signs of key differences|."},
    {"metric_maxima", k_metric_maxima, METH_VARARGS,
     "metric_maxima(x, perm, n_queries, n_runs, out): range of the permuted run means."},
    {"ap_bounds", k_ap_bounds, METH_VARARGS,
     "ap_bounds(rel_rank, rel_offsets, unj_rank, unj_offsets, r0, cutoff, lower, upper): "
     "AP's residual bounds per segment (top j / bottom j scans)."},
    {"gain_ratio_bounds", k_gain_ratio_bounds, METH_VARARGS,
     "gain_ratio_bounds(w, lead, count, seg_query, n0, layer_gain, at_least, dcum, top_gain, "
     "lower, upper): nDCG / NCG residual bounds per segment."},
    {"nct_cdf", k_nct_cdf, METH_VARARGS,
     "nct_cdf(t, df, delta, nodes, weights, mode, cdf, slope): the noncentral t CDF and its "
     "derivative in delta (mode -1 auto, 0 series, 1 Gauss-Hermite mixture)."},
    {"nct_noncentrality", k_nct_noncentrality, METH_VARARGS,
     "nct_noncentrality(t, df, level, z, nodes, weights, out): the delta with "
     "F(t; df, delta) = level, z = Phi^-1(level)."},
    {"segment_scan", k_segment_scan, METH_VARARGS,
     "segment_scan(offsets, rank, grade, rel, cutoff, kind, table, out): AP sums, DCG, RR "
     "or counts of relevant items per segment, in one pass."},
    {"ideal_dcg", k_ideal_dcg, METH_VARARGS,
     "ideal_dcg(offsets, grade, cutoff, table, out): the ideal DCG of every query."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "kernels",
    "C inner loops of irpref's randomized Tukey HSD (optional; see irpref.stats).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit_kernels(void) {
    return PyModule_Create(&module);
}
