/* Shared by the sources of irpref._native.scan: the result codes of its passes, a
 * growable array, and the qrels index both passes use (built in scan_qrels.c,
 * read by the run pass in scan.c).
 *
 * The index holds the qrels sorted by query (byte order) and, within a
 * query, by document id (byte order): the rows of query q are
 * [row_off[q], row_off[q+1]). Its arrays are Python buffers it keeps a view
 * of (the bytes objects the qrels pass returns, or the arrays Python passed
 * to index()), so nothing is copied. A lookup reads, per query, its two row
 * offsets and the 32-bit hash fragments of its rows (a few cache lines):
 * queries of up to SMALL_QUERY rows are scanned, larger ones have an
 * open-addressing table of their own. A fragment match is confirmed byte
 * for byte.
 */
#ifndef IRPREF_SCAN_H
#define IRPREF_SCAN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "lex.h"

enum {
    SCAN_OK = 0,
    SCAN_FIELDS = 1,  /* not the number of fields the format has */
    SCAN_SCORE = 2,   /* a score that is not a decimal float or inf */
    SCAN_UTF8 = 3,    /* an id that is not UTF-8 */
    SCAN_REPEAT = 4,  /* a document twice for one query */
    SCAN_TAG = 5,     /* use_tag and two different tags */
    SCAN_EMPTY = 6,   /* no data line */
    SCAN_MEMORY = 7,  /* out of memory */
    SCAN_TOO_BIG = 8, /* more lines or longer ids than this pass holds */
    SCAN_GRADE = 9,   /* a grade that is not a decimal integer in range */
};

/* ---- memory ---------------------------------------------------------------
 * Every array of the passes comes from mem_alloc: blocks of MAP_BYTES or more
 * are mapped from the kernel (mmap), grown in place or moved without a copy
 * (mremap) and unmapped when freed, so a pass's resident memory is what it
 * holds, whatever malloc keeps (the irpref command never hands freed heap
 * memory back: irpref.runtime.memory); smaller ones come from malloc. A header in
 * front of each block records its size and kind. Arrays handed to Python
 * are Block objects (block_of, in scan.c) that free theirs when collected. */

#include <sys/mman.h>

#define MAP_BYTES ((size_t)1 << 20)
#define MEM_HEAD  ((size_t)64) /* keeps the data 64-byte aligned */

typedef struct {
    size_t bytes; /* usable bytes after the header */
    int mapped;
} MemHead;

static inline void *mem_data(MemHead *h) {
    return (char *)h + MEM_HEAD;
}
static inline MemHead *mem_head(void *p) {
    return (MemHead *)((char *)p - MEM_HEAD);
}

static inline void *mem_alloc(size_t bytes) {
    size_t total = bytes + MEM_HEAD;
    MemHead *h;
    if (total >= MAP_BYTES) {
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        h = m;
        h->mapped = 1;
    } else {
        if (!(h = malloc(total)))
            return NULL;
        h->mapped = 0;
    }
    h->bytes = bytes;
    return mem_data(h);
}

/* Zeroed (mapped pages are zero already). */
static inline void *mem_calloc(size_t n, size_t size) {
    size_t bytes = n * size;
    void *p = mem_alloc(bytes);
    if (p && !mem_head(p)->mapped)
        memset(p, 0, bytes);
    return p;
}

static inline void mem_free(void *p) {
    if (!p)
        return;
    MemHead *h = mem_head(p);
    if (h->mapped)
        munmap(h, h->bytes + MEM_HEAD);
    else
        free(h);
}

static inline void *mem_realloc(void *p, size_t bytes) {
    if (!p)
        return mem_alloc(bytes);
    MemHead *h = mem_head(p);
    size_t total = bytes + MEM_HEAD;
    if (h->mapped && total >= MAP_BYTES) {
#ifdef MREMAP_MAYMOVE
        void *m = mremap(h, h->bytes + MEM_HEAD, total, MREMAP_MAYMOVE);
        if (m == MAP_FAILED)
            return NULL;
        h = m;
        h->bytes = bytes;
        return mem_data(h);
#endif
    } else if (!h->mapped && total < MAP_BYTES) {
        if (!(h = realloc(h, total)))
            return NULL;
        h->bytes = bytes;
        return mem_data(h);
    }
    void *q = mem_alloc(bytes); /* between the kinds: copy */
    if (!q)
        return NULL;
    memcpy(q, p, h->bytes < bytes ? h->bytes : bytes);
    mem_free(p);
    return q;
}

/* ---- growable arrays ------------------------------------------------------ */

typedef struct {
    void *data;
    int64_t n, cap;
    size_t item;
} Vec;

static inline void *vec_push(Vec *v) {
    if (v->n == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 1024;
        void *data = mem_realloc(v->data, (size_t)cap * v->item);
        if (!data)
            return NULL;
        v->data = data;
        v->cap = cap;
    }
    return (char *)v->data + (size_t)(v->n++) * v->item;
}

/* Room for `more` items after the last one (0, or -1 out of memory). */
static inline int vec_reserve(Vec *v, int64_t more) {
    if (v->n + more <= v->cap)
        return 0;
    int64_t cap = v->cap ? 2 * v->cap : 1024;
    while (cap < v->n + more)
        cap *= 2;
    void *data = mem_realloc(v->data, (size_t)cap * v->item);
    if (!data)
        return -1;
    v->data = data;
    v->cap = cap;
    return 0;
}

static inline void vec_free(Vec *v) {
    mem_free(v->data);
    v->data = NULL;
    v->n = v->cap = 0;
}

/* A Python object exporting the `bytes` bytes at `data` (from mem_alloc) as a
 * writable buffer, which it frees when collected; on failure `data` is freed
 * and NULL returned with an exception (defined in scan.c). */
PyObject *block_of(void *data, int64_t bytes);

/* The n items of a Vec as a Block (the Vec is left empty). */
static inline PyObject *vec_block(Vec *v) {
    void *data = v->data ? v->data : mem_alloc(8);
    int64_t bytes = v->n * (int64_t)v->item;
    v->data = NULL;
    v->n = v->cap = 0;
    return data ? block_of(data, bytes) : PyErr_NoMemory();
}

/* A new Block of `bytes` bytes (uninitialized) and its data, or NULL. */
static inline PyObject *new_block(int64_t bytes, void **data) {
    *data = mem_alloc((size_t)(bytes > 8 ? bytes : 8));
    return *data ? block_of(*data, bytes) : PyErr_NoMemory();
}

static inline int64_t pow2_at_least(int64_t n) {
    int64_t size = 2;
    while (size < n)
        size <<= 1;
    return size;
}

/* ---- the qrels index ------------------------------------------------------ */

#define SMALL_QUERY   16 /* rows a lookup scans without a table */
#define INDEX_CAPSULE "irpref._native.scan.index"

typedef struct {
    uint64_t hash; /* of the query id */
    int64_t k;     /* the query's place in index order, or -1: empty */
} QSlot;

/* Two orders: the collection's (query codes in byte order, rows by code
 * then document: what Python reads) and the index's, in which lookups walk
 * (the order of the queries in the qrels file, or the collection's own).
 * Run files usually list queries in the qrels file's order, so a run pass
 * reads the index front to back: the next query is tried first, before
 * the hash table, and every array it reads per query is read in order.
 * Within a query both orders list the documents alike (byte order): row j
 * of query k is index row k_rows[k] + j and collection row k_base[k] + j. */
typedef struct {
    Py_buffer views[5]; /* q_off, q_data, row_off, d_off, d_data (views held) */
    int n_views;
    int64_t n_queries, n_rows;
    /* query k of the index order */
    const int64_t *k_off; /* its id: [k_off[k], k_off[k+1]) of k_data */
    const unsigned char *k_data;
    const int64_t *k_code; /* its query code (NULL: k itself) */
    int64_t *k_of_code;    /* the inverse (NULL: the identity) */
    const int64_t *k_rows; /* its index rows [k_rows[k], k_rows[k+1]) */
    const int64_t *k_base; /* the collection row of its first row */
    /* per collection row: its document id (int32 or int64 offsets into d_data) */
    const void *d_off;
    int d_wide; /* d_off is int64 */
    const unsigned char *d_data;
    uint32_t *frag; /* per index row: the high 32 bits of the document's hash */
    /* lookups */
    int64_t q_mask;
    QSlot *q_slots;
    int64_t *tab_off; /* slots of query k's table (none for small queries) */
    int32_t *tab;     /* row within its query, or -1 */
    void *owned[5];   /* k_off, k_data, k_code, k_rows, k_base when made here */
} Index;

static inline int64_t code_of(const Index *ix, int64_t k) {
    return ix->k_code ? ix->k_code[k] : k;
}

static inline int64_t doc_start(const Index *ix, int64_t r) {
    return ix->d_wide ? ((const int64_t *)ix->d_off)[r] : ((const int32_t *)ix->d_off)[r];
}

static inline int same_doc(const Index *ix, int64_t r, const unsigned char *id, int64_t n) {
    int64_t a = doc_start(ix, r), b = doc_start(ix, r + 1);
    return same_bytes(id, n, ix->d_data + a, b - a);
}

static inline int is_query(const Index *ix, int64_t k, const unsigned char *id, int64_t n) {
    return same_bytes(id, n, ix->k_data + ix->k_off[k], ix->k_off[k + 1] - ix->k_off[k]);
}

/* The index place k of query id (id, n), or -1; `guess`: a likely k. */
static inline int64_t find_query(const Index *ix, const unsigned char *id, int64_t n,
                                 int64_t guess) {
    if (guess >= 0 && guess < ix->n_queries && is_query(ix, guess, id, n))
        return guess;
    uint64_t h = hash_id(id, n, NULL);
    for (int64_t s = (int64_t)(h & (uint64_t)ix->q_mask);; s = (s + 1) & ix->q_mask) {
        int64_t k = ix->q_slots[s].k;
        if (k < 0)
            return -1;
        if (ix->q_slots[s].hash == h && is_query(ix, k, id, n))
            return k;
    }
}

/* The collection row of document (id, n, hash h) in query k, or -1. */
static inline int64_t find_row(const Index *ix, int64_t k, const unsigned char *id, int64_t n,
                               uint64_t h) {
    int64_t lo = ix->k_rows[k], rows = ix->k_rows[k + 1] - lo, base = ix->k_base[k];
    const uint32_t *frag = ix->frag + lo;
    uint32_t f = (uint32_t)(h >> 32);
    if (rows <= SMALL_QUERY) {
        for (int64_t j = 0; j < rows; j++)
            if (frag[j] == f && same_doc(ix, base + j, id, n))
                return base + j;
        return -1;
    }
    const int32_t *tab = ix->tab + ix->tab_off[k];
    uint64_t mask = (uint64_t)(ix->tab_off[k + 1] - ix->tab_off[k] - 1);
    for (uint64_t s = h & mask;; s = (s + 1) & mask) {
        int32_t j = tab[s];
        if (j < 0)
            return -1;
        if (frag[j] == f && same_doc(ix, base + j, id, n))
            return base + j;
    }
}

/* Defined in scan_qrels.c: the module's functions index() and qrels(). */
PyObject *scan_index(PyObject *self, PyObject *args);
PyObject *scan_qrels(PyObject *self, PyObject *args);

#endif
