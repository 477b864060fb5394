/* irpref._native.scan, the qrels side: the index of the qrels the run pass looks
 * documents up in (scan.h), built from arrays Python holds or straight
 * from a TREC qrels file in one pass.
 *
 *   index(q_off, q_data, row_off, d_off, d_data) -> capsule
 *       the qrels already sorted: query ids in code order (offsets int64 +
 *       bytes), the rows of query q at [row_off[q], row_off[q+1]), the
 *       document id of every row (offsets int32 or int64 + bytes).
 *   qrels(data, release) -> (0, capsule, q_off, q_data, row_off, d_off,
 *                            d_data, grade) or (code, line)
 *       parse the bytes of a TREC qrels file ("qid iter docid grade"),
 *       check them as irpref.io.trec does (4 fields, UTF-8 ids, grades
 *       -?[0-9]+ within +-(2**31 - 1), comments, blank lines, tabs, CRs),
 *       sort the queries by id and every query's rows by document id (both
 *       byte order, as irpref.judging.interning.intern numbers them), refuse a
 *       document judged twice for one query, and index the result. The
 *       arrays come back as Blocks (scan.c) in the collection's order:
 *       offsets int64 (q_off, row_off) and int32 (d_off), grades int32. The
 *       file-order copies the parse makes are freed as soon as they are
 *       placed (every large array is mapped: scan.h). `release`: data is a
 *       read-only map of a file; pages already parsed are handed back to the
 *       kernel as the pass goes (its resident memory stays a few MB). A file
 *       the pass refuses is read by the careful Python reader, which names
 *       the line.
 */
#include "scan.h"

#include <sys/mman.h>
#include <unistd.h>

#define SORT_ALLOC mem_alloc /* the sort's scratch space mapped too */
#define SORT_FREE  mem_free
#include "sort.h"

/* ---- building the index --------------------------------------------------- */

static void free_index(Index *ix) {
    if (!ix)
        return;
    for (int i = 0; i < ix->n_views; i++)
        PyBuffer_Release(&ix->views[i]);
    void *arrays[] = {ix->owned[0],  ix->owned[1], ix->owned[2], ix->owned[3], ix->owned[4],
                      ix->k_of_code, ix->q_slots,  ix->frag,     ix->tab_off,  ix->tab};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
        mem_free(arrays[i]);
    mem_free(ix);
}

static void index_destructor(PyObject *capsule) {
    free_index((Index *)PyCapsule_GetPointer(capsule, INDEX_CAPSULE));
}

enum { FILL_OK = 0, FILL_MEMORY = -1, FILL_QUERY_TWICE = 1, FILL_DOC_TWICE = 2 };

/* The query table: every query id hashed once (a repeat is refused). */
static int fill_queries(Index *ix) {
    int64_t size = pow2_at_least(2 * ix->n_queries);
    ix->q_mask = size - 1;
    if (!(ix->q_slots = mem_alloc((size_t)size * sizeof(QSlot))))
        return FILL_MEMORY;
    for (int64_t s = 0; s < size; s++)
        ix->q_slots[s].k = -1;
    for (int64_t k = 0; k < ix->n_queries; k++) {
        const unsigned char *id = ix->k_data + ix->k_off[k];
        int64_t n = ix->k_off[k + 1] - ix->k_off[k];
        uint64_t h = hash_id(id, n, NULL);
        int64_t s = (int64_t)(h & (uint64_t)ix->q_mask);
        for (; ix->q_slots[s].k >= 0; s = (s + 1) & ix->q_mask)
            if (ix->q_slots[s].hash == h && is_query(ix, ix->q_slots[s].k, id, n))
                return FILL_QUERY_TWICE;
        ix->q_slots[s].hash = h;
        ix->q_slots[s].k = k;
    }
    return FILL_OK;
}

/* The rows of query k: hash fragments, and a table when the query is large
 * (a repeated document is refused). `given`: the fragments are filled and the
 * rows known distinct already (the qrels pass), so a small query is done. */
static int fill_rows(Index *ix, int64_t k, int given) {
    int64_t lo = ix->k_rows[k], rows = ix->k_rows[k + 1] - lo, base = ix->k_base[k];
    if (given && rows <= SMALL_QUERY)
        return FILL_OK;
    uint32_t *frag = ix->frag + lo;
    int32_t *tab = ix->tab + ix->tab_off[k];
    uint64_t mask = (uint64_t)(ix->tab_off[k + 1] - ix->tab_off[k] - 1);
    for (int64_t j = 0; j < rows; j++) {
        int64_t a = doc_start(ix, base + j), n = doc_start(ix, base + j + 1) - a;
        const unsigned char *id = ix->d_data + a;
        uint64_t h = hash_id(id, n, NULL);
        uint32_t f = (uint32_t)(h >> 32);
        frag[j] = f;
        if (rows <= SMALL_QUERY) {
            for (int64_t o = 0; o < j; o++)
                if (frag[o] == f && same_doc(ix, base + o, id, n))
                    return FILL_DOC_TWICE;
            continue;
        }
        uint64_t s = h & mask;
        for (; tab[s] >= 0; s = (s + 1) & mask)
            if (frag[tab[s]] == f && same_doc(ix, base + tab[s], id, n))
                return FILL_DOC_TWICE;
        tab[s] = (int32_t)j;
    }
    return FILL_OK;
}

/* Everything but the views, the index order and (if `given`) the fragments
 * (set already); runs without the GIL. */
static int fill_index(Index *ix, int given) {
    int rc = fill_queries(ix);
    if (rc != FILL_OK)
        return rc;
    int64_t nq = ix->n_queries;
    if (!given)
        ix->frag = mem_alloc((size_t)(ix->n_rows + 1) * sizeof(uint32_t));
    ix->tab_off = mem_alloc((size_t)(nq + 1) * sizeof(int64_t));
    if (!ix->frag || !ix->tab_off)
        return FILL_MEMORY;
    if (ix->k_code) {
        if (!(ix->k_of_code = mem_alloc((size_t)(nq + 1) * sizeof(int64_t))))
            return FILL_MEMORY;
        for (int64_t k = 0; k < nq; k++)
            ix->k_of_code[ix->k_code[k]] = k;
    }
    ix->tab_off[0] = 0;
    for (int64_t k = 0; k < nq; k++) {
        int64_t rows = ix->k_rows[k + 1] - ix->k_rows[k];
        ix->tab_off[k + 1] = ix->tab_off[k] + (rows > SMALL_QUERY ? pow2_at_least(2 * rows) : 0);
    }
    if (!(ix->tab = mem_alloc((size_t)(ix->tab_off[nq] + 1) * sizeof(int32_t))))
        return FILL_MEMORY;
    memset(ix->tab, 0xff, (size_t)(ix->tab_off[nq] + 1) * sizeof(int32_t));
    for (int64_t k = 0; k < nq; k++)
        if ((rc = fill_rows(ix, k, given)) != FILL_OK)
            return rc;
    return FILL_OK;
}

/* Offsets (int64 if `wide`, else int32) that start at 0, never decrease and
 * end at `len`. */
static int valid_offsets(const void *buf, int wide, int64_t n, int64_t len) {
    int64_t prev = 0;
    for (int64_t i = 0; i <= n; i++) {
        int64_t o = wide ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
        if ((i == 0 && o != 0) || o < prev || (i == n && o != len))
            return 0;
        prev = o;
    }
    return 1;
}

/* Take views of the five arrays: offsets int64 (d_off: int32 or int64); a
 * bytes object (item size 1) holds int64 offsets, or int32 for d_off when
 * `narrow_docs`. */
static int take_views(Index *ix, PyObject *const objs[5], int narrow_docs) {
    Py_ssize_t item[5];
    for (int i = 0; i < 5; i++) {
        int data = i == 1 || i == 4;
        int flags = data ? PyBUF_SIMPLE : PyBUF_FORMAT | PyBUF_C_CONTIGUOUS;
        if (PyObject_GetBuffer(objs[i], &ix->views[i], flags) < 0)
            return -1;
        ix->n_views++;
        item[i] = ix->views[i].itemsize;
        if (!data && item[i] == 1)
            item[i] = i == 3 && narrow_docs ? 4 : 8;
        if (!data && (ix->views[i].len < item[i] || ix->views[i].len % item[i] ||
                      (item[i] != 8 && !(i == 3 && item[i] == 4)))) {
            PyErr_SetString(PyExc_TypeError, "offsets must be int64 (d_off: int32 or int64)");
            return -1;
        }
    }
    ix->k_off = ix->views[0].buf;  /* the index order is the collection's, unless */
    ix->k_data = ix->views[1].buf; /* the caller sets its own */
    ix->k_rows = ix->k_base = ix->views[2].buf;
    ix->d_off = ix->views[3].buf;
    ix->d_wide = item[3] == 8;
    ix->d_data = ix->views[4].buf;
    ix->n_queries = ix->views[0].len / 8 - 1;
    ix->n_rows = ix->views[3].len / item[3] - 1;
    if (ix->views[2].len / 8 - 1 != ix->n_queries ||
        !valid_offsets(ix->views[0].buf, 1, ix->n_queries, ix->views[1].len) ||
        !valid_offsets(ix->views[2].buf, 1, ix->n_queries, ix->n_rows) ||
        !valid_offsets(ix->views[3].buf, ix->d_wide, ix->n_rows, ix->views[4].len)) {
        PyErr_SetString(PyExc_ValueError, "offsets out of range");
        return -1;
    }
    return 0;
}

/* A capsule holding an index of the five arrays (NULL with an exception).
 * `order`: NULL (the index order is the collection's), or the index order
 * (k_off, k_data, k_code, k_rows, k_base), whose arrays the index takes over
 * (freed with it, also on failure), as it takes `frag` (NULL: computed here),
 * the hash fragments of rows known distinct. */
static PyObject *make_index(PyObject *const objs[5], int narrow_docs, void *order[5],
                            uint32_t *frag) {
    Index *ix = mem_calloc(1, sizeof(Index));
    if (!ix) {
        for (int i = 0; order && i < 5; i++)
            mem_free(order[i]);
        mem_free(frag);
        return PyErr_NoMemory();
    }
    for (int i = 0; order && i < 5; i++)
        ix->owned[i] = order[i];
    ix->frag = frag;
    if (take_views(ix, objs, narrow_docs) < 0) {
        free_index(ix);
        return NULL;
    }
    if (order) {
        ix->k_off = order[0];
        ix->k_data = order[1];
        ix->k_code = order[2];
        ix->k_rows = order[3];
        ix->k_base = order[4];
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = fill_index(ix, frag != NULL);
    Py_END_ALLOW_THREADS if (rc != FILL_OK) {
        free_index(ix);
        if (rc == FILL_MEMORY)
            return PyErr_NoMemory();
        PyErr_SetString(PyExc_ValueError, rc == FILL_QUERY_TWICE
                                              ? "a query id occurs twice"
                                              : "a document is judged twice for one query");
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(ix, INDEX_CAPSULE, index_destructor);
    if (!capsule)
        free_index(ix);
    return capsule;
}

PyObject *scan_index(PyObject *self, PyObject *args) {
    PyObject *objs[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4]))
        return NULL;
    return make_index(objs, 0, NULL, NULL);
}

/* ---- reading a qrels file -------------------------------------------------- */

typedef struct {
    const unsigned char *base;
    int64_t len, line, released, page;
    int64_t n_rows; /* rows parsed (rq's memory becomes frag once they are grouped) */
    uint32_t *frag; /* per index row: the high 32 bits of its document's hash */
    int release, code;
    Vec qbuf, qstart, qhash;  /* distinct query ids (bytes, int64 start, uint64 hash) */
    int64_t *slots, mask;     /* their hash table: code or -1 */
    Vec dbuf, dstart;         /* document ids in file order (bytes, uint32 start) */
    Vec rq, grade;            /* int32 per row: query (order of first appearance), grade */
    int64_t *rank;            /* per query in that order: its code (byte order) */
    int64_t *k_rows, *k_base; /* per query in that order: index rows, first collection row */
} Qrels;

static int qfail(Qrels *j, int code) {
    j->code = code;
    return -1;
}

static void free_qrels(Qrels *j) {
    Vec *vecs[] = {&j->qbuf, &j->qstart, &j->qhash, &j->dbuf, &j->dstart, &j->rq, &j->grade};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        mem_free(vecs[i]->data);
        vecs[i]->data = NULL;
        vecs[i]->n = vecs[i]->cap = 0;
    }
    mem_free(j->slots);
    mem_free(j->frag);
    mem_free(j->rank);
    mem_free(j->k_rows);
    mem_free(j->k_base);
    j->slots = NULL;
    j->frag = NULL;
    j->rank = j->k_rows = j->k_base = NULL;
}

/* The index order (k_off, k_data, k_code, k_rows, k_base), handed over to
 * the index. */
static void hand_over(Qrels *j, void *order[5]) {
    order[0] = j->qstart.data;
    order[1] = j->qbuf.data;
    order[2] = j->rank;
    order[3] = j->k_rows;
    order[4] = j->k_base;
    j->qstart.data = j->qbuf.data = NULL;
    j->rank = j->k_rows = j->k_base = NULL;
}

/* Append n bytes to a byte Vec. */
static int push_bytes(Vec *v, const unsigned char *p, int64_t n) {
    if (vec_reserve(v, n) < 0)
        return -1;
    memcpy((unsigned char *)v->data + v->n, p, (size_t)n);
    v->n += n;
    return 0;
}

static int rehash_queries(Qrels *j, int64_t size) {
    int64_t *slots = mem_alloc((size_t)size * sizeof(int64_t));
    if (!slots)
        return -1;
    memset(slots, 0xff, (size_t)size * sizeof(int64_t));
    const uint64_t *hs = j->qhash.data;
    for (int64_t k = 0; k < j->qhash.n; k++) {
        int64_t s = (int64_t)(hs[k] & (uint64_t)(size - 1));
        while (slots[s] >= 0)
            s = (s + 1) & (size - 1);
        slots[s] = k;
    }
    mem_free(j->slots);
    j->slots = slots;
    j->mask = size - 1;
    return 0;
}

/* The code of query id (id, n), numbered in order of first appearance. */
static int64_t query_code(Qrels *j, const unsigned char *id, int64_t n) {
    uint64_t h = hash_id(id, n, NULL);
    const int64_t *st = j->qstart.data;
    const unsigned char *qb = j->qbuf.data;
    int64_t s = (int64_t)(h & (uint64_t)j->mask);
    for (; j->slots[s] >= 0; s = (s + 1) & j->mask) {
        int64_t k = j->slots[s];
        if (((uint64_t *)j->qhash.data)[k] == h && same_bytes(id, n, qb + st[k], st[k + 1] - st[k]))
            return k;
    }
    int64_t k = j->qhash.n;
    uint64_t *hs = vec_push(&j->qhash);
    int64_t *end = vec_push(&j->qstart);
    if (!hs || !end || push_bytes(&j->qbuf, id, n) < 0)
        return -1;
    *hs = h;
    *end = j->qbuf.n; /* qstart holds k + 2 entries: the starts and the end */
    j->slots[s] = k;
    if (2 * (k + 1) > j->mask + 1 && rehash_queries(j, 2 * (j->mask + 1)) < 0)
        return -1;
    return k;
}

/* A grade: -?[0-9]+ with |grade| <= 2**31 - 1 (0, or -1). */
static int parse_grade(const unsigned char *p, int64_t n, int32_t *out) {
    int neg = n > 0 && *p == '-';
    p += neg;
    n -= neg;
    if (n == 0)
        return -1;
    int64_t v = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((unsigned)(p[i] - '0') >= 10)
            return -1;
        v = v * 10 + (p[i] - '0');
        if (v > INT32_MAX)
            return -1;
    }
    *out = (int32_t)(neg ? -v : v);
    return 0;
}

/* Hand the parsed pages of a file map back to the kernel (every 16 MB). */
static void release_pages(Qrels *j, const unsigned char *upto) {
    int64_t end = ((upto - j->base) / j->page - 1) * j->page;
    if (!j->release || end - j->released < (16 << 20))
        return;
    madvise((void *)(j->base + j->released), (size_t)(end - j->released), MADV_DONTNEED);
    j->released = end;
}

static int parse_qrels(Qrels *j) {
    const unsigned char *p = j->base, *end = j->base + j->len;
    Blocks blocks = {j->base, end, -64, 0, 0};
    int64_t current = -1, cur_len = 0;
    const unsigned char *cur_id = NULL;
    if (rehash_queries(j, 1024) < 0)
        return qfail(j, SCAN_MEMORY);
    int64_t *zero = vec_push(&j->qstart);
    if (!zero)
        return qfail(j, SCAN_MEMORY);
    *zero = 0;
    while (p < end) {
        j->line++;
        Tokens t;
        p = split_line(&blocks, p, &t);
        if (t.n == 0 || t.start[0][0] == '#') /* blank line or comment */
            continue;
        if (t.n != 4)
            return qfail(j, SCAN_FIELDS);
        const unsigned char *const *tok = t.start;
        const int64_t *tlen = t.len;
        if (!same_bytes(tok[0], tlen[0], cur_id, cur_len)) {
            if (!valid_utf8(tok[0], tlen[0]))
                return qfail(j, SCAN_UTF8);
            if ((current = query_code(j, tok[0], tlen[0])) < 0)
                return qfail(j, SCAN_MEMORY);
            cur_id = ((unsigned char *)j->qbuf.data) + ((int64_t *)j->qstart.data)[current];
            cur_len = tlen[0];
        }
        if (!valid_utf8(tok[2], tlen[2]))
            return qfail(j, SCAN_UTF8);
        int32_t g;
        if (parse_grade(tok[3], tlen[3], &g) < 0)
            return qfail(j, SCAN_GRADE);
        if (j->dbuf.n + tlen[2] > INT32_MAX || j->rq.n >= INT32_MAX - 1)
            return qfail(j, SCAN_TOO_BIG);
        uint32_t *start = vec_push(&j->dstart);
        int32_t *rq = vec_push(&j->rq), *gr = vec_push(&j->grade);
        if (!start || !rq || !gr)
            return qfail(j, SCAN_MEMORY);
        *start = (uint32_t)j->dbuf.n;
        *rq = (int32_t)current;
        *gr = g;
        if (push_bytes(&j->dbuf, tok[2], tlen[2]) < 0)
            return qfail(j, SCAN_MEMORY);
        release_pages(j, p);
    }
    if (j->release && j->len > j->released) /* the rest of the file is read too */
        madvise((void *)(j->base + j->released), (size_t)(j->len - j->released), MADV_DONTNEED);
    if (j->rq.n == 0)
        return qfail(j, SCAN_EMPTY);
    uint32_t *last = vec_push(&j->dstart);
    if (!last)
        return qfail(j, SCAN_MEMORY);
    *last = (uint32_t)j->dbuf.n;
    return 0;
}

/* ---- sorting the rows ------------------------------------------------------ */

typedef struct {
    const unsigned char *data;
    const uint32_t *start;
} Docs;

static inline int doc_cmp(const Docs *d, int32_t a, int32_t b) {
    return compare_bytes(d->data + d->start[a], d->start[a + 1] - d->start[a],
                         d->data + d->start[b], d->start[b + 1] - d->start[b]);
}

/* Stable merge sort of rows idx[0:n) by document id (scratch tmp[0:n)). */
static void sort_rows(int32_t *idx, int32_t *tmp, int64_t n, const Docs *d) {
    if (n <= 16) {
        for (int64_t i = 1; i < n; i++) {
            int32_t v = idx[i];
            int64_t k = i;
            for (; k > 0 && doc_cmp(d, v, idx[k - 1]) < 0; k--)
                idx[k] = idx[k - 1];
            idx[k] = v;
        }
        return;
    }
    int64_t h = n / 2;
    sort_rows(idx, tmp, h, d);
    sort_rows(idx + h, tmp, n - h, d);
    memcpy(tmp, idx, (size_t)h * sizeof(int32_t));
    int64_t i = 0, k = h, o = 0;
    while (i < h && k < n)
        idx[o++] = doc_cmp(d, idx[k], tmp[i]) < 0 ? idx[k++] : tmp[i++];
    while (i < h)
        idx[o++] = tmp[i++];
}

/* What the pass hands to Python, in the collection's order (queries by id,
 * rows by query then document): Blocks and their data. */
enum { OUT_Q_OFF, OUT_Q_DATA, OUT_ROW_OFF, OUT_D_OFF, OUT_D_DATA, OUT_GRADE, N_OUT };

typedef struct {
    void *data[N_OUT]; /* from mem_alloc (no GIL needed), until made Blocks */
    int64_t bytes[N_OUT];
    PyObject *obj[N_OUT];
} Sorted;

static int new_output(Sorted *out, int i, int64_t bytes) {
    out->bytes[i] = bytes;
    return (out->data[i] = mem_alloc((size_t)(bytes > 8 ? bytes : 8))) ? 0 : -1;
}

/* The outputs as Blocks (with the GIL): 0, or -1 with an exception. */
static int make_blocks(Sorted *out) {
    for (int i = 0; i < N_OUT; i++) {
        out->obj[i] = block_of(out->data[i], out->bytes[i]);
        out->data[i] = NULL; /* the Block owns it, or freed it */
        if (!out->obj[i])
            return -1;
    }
    return 0;
}

static void free_sorted(Sorted *out) {
    for (int i = 0; i < N_OUT; i++) {
        Py_XDECREF(out->obj[i]);
        mem_free(out->data[i]);
    }
}

/* The queries in byte order: j->rank (code of each query in order of first
 * appearance) and the query ids (q_off, q_data). */
static int order_queries(Qrels *j, Sorted *out) {
    int64_t nq = j->qhash.n;
    const int64_t *qs = j->qstart.data;
    const unsigned char *qb = j->qbuf.data;
    Str *items = mem_alloc((size_t)(nq + 1) * sizeof(Str));
    if (!items || !(j->rank = mem_alloc((size_t)(nq + 1) * sizeof(int64_t)))) {
        mem_free(items);
        return qfail(j, SCAN_MEMORY);
    }
    for (int64_t k = 0; k < nq; k++) {
        items[k].ptr = qb + qs[k];
        items[k].len = qs[k + 1] - qs[k];
        items[k].index = k;
    }
    sort_strs(items, nq, memchr(qb, 0, (size_t)j->qbuf.n) != NULL);
    int64_t *q_off = out->data[OUT_Q_OFF];
    unsigned char *q_data = out->data[OUT_Q_DATA];
    q_off[0] = 0;
    for (int64_t r = 0; r < nq; r++) { /* r: the query's code, in byte order */
        const Str *s = &items[r];
        j->rank[s->index] = r;
        memcpy(q_data + q_off[r], s->ptr, (size_t)s->len);
        q_off[r + 1] = q_off[r] + s->len;
    }
    mem_free(items);
    return 0;
}

/* The index order of the rows: j->k_rows (the rows of the k-th query to
 * appear), perm (the rows grouped so, file order within a query), and the
 * collection's row_off and j->k_base. */
static int group_rows(Qrels *j, Sorted *out, int32_t *perm) {
    int64_t nq = j->qhash.n, n = j->rq.n;
    const int32_t *rq = j->rq.data;
    int64_t *row_off = out->data[OUT_ROW_OFF];
    int64_t *fill = mem_alloc((size_t)(nq + 1) * sizeof(int64_t));
    j->k_rows = mem_calloc((size_t)(nq + 1), sizeof(int64_t));
    j->k_base = mem_alloc((size_t)(nq + 1) * sizeof(int64_t));
    if (!fill || !j->k_rows || !j->k_base) {
        mem_free(fill);
        return qfail(j, SCAN_MEMORY);
    }
    for (int64_t i = 0; i < n; i++)
        j->k_rows[rq[i] + 1]++;
    memset(row_off, 0, (size_t)(nq + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < nq; k++) {
        row_off[j->rank[k] + 1] = j->k_rows[k + 1];
        j->k_rows[k + 1] += j->k_rows[k];
    }
    for (int64_t q = 0; q < nq; q++)
        row_off[q + 1] += row_off[q];
    for (int64_t k = 0; k < nq; k++)
        j->k_base[k] = row_off[j->rank[k]];
    memcpy(fill, j->k_rows, (size_t)nq * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++)
        perm[fill[rq[i]]++] = (int32_t)i;
    mem_free(fill);
    return 0;
}

/* Every query's rows (perm, index order) by document id, a document twice
 * in one query refused; `bytes[code]`: the bytes of each query's ids. */
static int sort_by_document(Qrels *j, int32_t *perm, int64_t *bytes) {
    int64_t nq = j->qhash.n, widest = 0;
    for (int64_t k = 0; k < nq; k++)
        if (j->k_rows[k + 1] - j->k_rows[k] > widest)
            widest = j->k_rows[k + 1] - j->k_rows[k];
    int32_t *tmp = mem_alloc((size_t)(widest + 1) * sizeof(int32_t));
    if (!tmp)
        return qfail(j, SCAN_MEMORY);
    Docs docs = {j->dbuf.data, j->dstart.data};
    for (int64_t k = 0; k < nq; k++) {
        int64_t lo = j->k_rows[k], hi = j->k_rows[k + 1], total = 0;
        sort_rows(perm + lo, tmp, hi - lo, &docs);
        for (int64_t i = lo; i < hi; i++) {
            if (i > lo && doc_cmp(&docs, perm[i - 1], perm[i]) == 0) {
                mem_free(tmp);
                return qfail(j, SCAN_REPEAT);
            }
            total += docs.start[perm[i] + 1] - docs.start[perm[i]];
        }
        bytes[j->rank[k]] = total;
    }
    mem_free(tmp);
    return 0;
}

/* The grades and the document ids in the collection's order (the file-order
 * copies are freed as soon as they are read). */
static int place_rows(Qrels *j, Sorted *out, const int32_t *perm, int64_t *bytes) {
    int64_t nq = j->qhash.n, n = j->n_rows;
    if (new_output(out, OUT_GRADE, 4 * n) < 0)
        return qfail(j, SCAN_MEMORY);
    int32_t *grade = out->data[OUT_GRADE];
    const int32_t *file_grade = j->grade.data;
    for (int64_t k = 0; k < nq; k++)
        for (int64_t i = j->k_rows[k], base = j->k_base[k] - i; i < j->k_rows[k + 1]; i++)
            grade[base + i] = file_grade[perm[i]];
    vec_free(&j->grade);
    int64_t total = 0;
    for (int64_t q = 0; q < nq; q++) { /* bytes[q] becomes the start of query q's ids */
        int64_t b = bytes[q];
        bytes[q] = total;
        total += b;
    }
    if (new_output(out, OUT_D_OFF, 4 * (n + 1)) < 0 || new_output(out, OUT_D_DATA, total) < 0)
        return qfail(j, SCAN_MEMORY);
    int32_t *d_off = out->data[OUT_D_OFF];
    unsigned char *d_data = out->data[OUT_D_DATA];
    const uint32_t *start = j->dstart.data;
    const unsigned char *dbuf = j->dbuf.data;
    for (int64_t k = 0; k < nq; k++) {
        int64_t pos = bytes[j->rank[k]];
        for (int64_t i = j->k_rows[k], base = j->k_base[k] - i; i < j->k_rows[k + 1]; i++) {
            uint32_t a = start[perm[i]], b = start[perm[i] + 1];
            d_off[base + i] = (int32_t)pos;
            memcpy(d_data + pos, dbuf + a, b - a);
            j->frag[i] = (uint32_t)(hash_id(dbuf + a, b - a, NULL) >> 32);
            pos += b - a;
        }
    }
    d_off[n] = (int32_t)total;
    return 0;
}

/* Queries by id, rows by query then document; fills `out`. Returns 0, or -1
 * (j->code: SCAN_REPEAT or SCAN_MEMORY). */
static int sort_qrels(Qrels *j, Sorted *out) {
    int64_t nq = j->qhash.n, n = j->n_rows = j->rq.n;
    int32_t *perm = mem_alloc((size_t)(n + 1) * sizeof(int32_t));
    int64_t *bytes = mem_alloc((size_t)(nq + 1) * sizeof(int64_t));
    int rc = perm && bytes ? order_queries(j, out) : qfail(j, SCAN_MEMORY);
    if (rc == 0)
        rc = group_rows(j, out, perm);
    if (rc == 0 && vec_reserve(&j->rq, 1) < 0) /* rq's memory holds frag (n + 1 items) */
        rc = qfail(j, SCAN_MEMORY);
    j->frag = j->rq.data;
    j->rq.data = NULL;
    vec_free(&j->rq);
    if (rc == 0)
        rc = sort_by_document(j, perm, bytes);
    if (rc == 0)
        rc = place_rows(j, out, perm, bytes);
    mem_free(perm);
    mem_free(bytes);
    return rc;
}

PyObject *scan_qrels(PyObject *self, PyObject *args) {
    PyObject *data_obj;
    int release;
    if (!PyArg_ParseTuple(args, "Op", &data_obj, &release))
        return NULL;
    Py_buffer data;
    if (PyObject_GetBuffer(data_obj, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Qrels j;
    memset(&j, 0, sizeof(j));
    j.base = data.buf;
    j.len = data.len;
    j.release = release;
    j.page = (int64_t)sysconf(_SC_PAGESIZE);
    j.qbuf.item = j.dbuf.item = 1;
    j.qstart.item = j.qhash.item = 8;
    j.dstart.item = j.rq.item = j.grade.item = 4;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = parse_qrels(&j);
    Py_END_ALLOW_THREADS PyBuffer_Release(&data);
    PyObject *result = NULL;
    Sorted out;
    memset(&out, 0, sizeof(out));
    if (rc == 0) {
        int64_t nq = j.qhash.n;
        Py_BEGIN_ALLOW_THREADS if (new_output(&out, OUT_Q_OFF, 8 * (nq + 1)) < 0 ||
                                   new_output(&out, OUT_Q_DATA, j.qbuf.n) < 0 ||
                                   new_output(&out, OUT_ROW_OFF, 8 * (nq + 1)) < 0) rc =
            qfail(&j, SCAN_MEMORY);
        else rc = sort_qrels(&j, &out);
        Py_END_ALLOW_THREADS
    }
    if (rc != 0) {
        result = Py_BuildValue("(iL)", j.code, (long long)j.line);
        goto done;
    }
    if (make_blocks(&out) < 0)
        goto done;
    void *order[5];
    hand_over(&j, order);
    uint32_t *frag = j.frag;
    j.frag = NULL;
    free_qrels(&j); /* before the index: the file-order copies are no longer needed */
    PyObject *objs[5] = {out.obj[OUT_Q_OFF], out.obj[OUT_Q_DATA], out.obj[OUT_ROW_OFF],
                         out.obj[OUT_D_OFF], out.obj[OUT_D_DATA]};
    PyObject *capsule = make_index(objs, 1, order, frag);
    if (capsule)
        result = Py_BuildValue("(iNOOOOOO)", SCAN_OK, capsule, out.obj[OUT_Q_OFF],
                               out.obj[OUT_Q_DATA], out.obj[OUT_ROW_OFF], out.obj[OUT_D_OFF],
                               out.obj[OUT_D_DATA], out.obj[OUT_GRADE]);
done:
    free_sorted(&out);
    free_qrels(&j);
    return result;
}
