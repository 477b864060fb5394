/* irpref._scan: a TREC run file read and judged in one pass (irpref.scan).
 *
 *   index(q_off, q_data, row_off, d_off, d_data) -> capsule
 *       the qrels: query ids in code order (offsets int64 + bytes), the
 *       qrels rows of query q at [row_off[q], row_off[q+1]), the document
 *       id of every row; hashed once into one table per query.
 *   judge(data, index, ties, depth, use_tag) -> tuple
 *       parse the bytes of a run file ("qid Q0 docid rank score [tag]"),
 *       check them as irpref.io.trec does, rank every query (score
 *       descending; ties 0 = docid descending as trec_eval, 1 = file order,
 *       2 = docid ranks plus tie groups) and keep only what the compact
 *       layout of irpref.judged holds: per query the number retrieved, per
 *       retrieved document the qrels mention its rank, qrels row and tie
 *       group. Unjudged documents are hashed (repeats are refused) but never
 *       ordered by id unless they tie with a judged one.
 *
 * judge returns (0, counts, kept, rank, row, tie_first, tie_size, unknown,
 * tag) on success (arrays as int64 bytes; unknown: the query ids the qrels
 * lack, in order of first appearance; tag: the tag when use_tag, else None)
 * or (code, line) when the file breaks a rule or is too large for this pass:
 * the caller then reads it with the careful Python reader, which names the
 * problem exactly (or, for a rule this pass is stricter about, reads it).
 * judge releases the GIL: callers judge several files on several threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_hash.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
    SCAN_OK = 0,
    SCAN_FIELDS = 1,   /* not 5 or 6 fields, or not as many as the first line */
    SCAN_SCORE = 2,    /* a score that is not a decimal float or inf */
    SCAN_UTF8 = 3,     /* an id that is not UTF-8 */
    SCAN_REPEAT = 4,   /* a document twice for one query */
    SCAN_TAG = 5,      /* use_tag and two different tags */
    SCAN_EMPTY = 6,    /* no data line */
    SCAN_MEMORY = 7,   /* out of memory */
    SCAN_TOO_BIG = 8,  /* more lines or longer ids than this pass holds */
};

/* ---- the qrels index ----------------------------------------------------- */

typedef struct {
    uint64_t hash; /* of the document id */
    int64_t row;   /* qrels row, or -1: empty */
} Slot;

typedef struct {
    int64_t n_queries, n_rows;
    int64_t *q_off;
    unsigned char *q_data;
    int64_t q_mask;
    int64_t *q_slots; /* query code or -1 */
    int64_t *row_off;
    int64_t *d_off;
    unsigned char *d_data;
    int64_t *slot_off; /* slots of query q: [slot_off[q], slot_off[q+1]), a power of 2 */
    Slot *slots;
    /* per query a filter of its documents' hashes (bit (h >> 40) mod its size,
       16 bits per document): most unjudged ids are refused without a probe */
    int64_t *bits_off; /* 64-bit words of query q: [bits_off[q], bits_off[q+1]), a power of 2 */
    uint64_t *bits;
} Index;

static void free_index(Index *ix) {
    if (!ix)
        return;
    free(ix->q_off);
    free(ix->q_data);
    free(ix->q_slots);
    free(ix->row_off);
    free(ix->d_off);
    free(ix->d_data);
    free(ix->slot_off);
    free(ix->slots);
    free(ix->bits_off);
    free(ix->bits);
    free(ix);
}

static void index_destructor(PyObject *capsule) {
    free_index((Index *)PyCapsule_GetPointer(capsule, "irpref._scan.index"));
}

static int64_t pow2_at_least(int64_t n) {
    int64_t size = 2;
    while (size < n)
        size <<= 1;
    return size;
}

/* A copy of a contiguous buffer of int64 (n_expected entries, or any if < 0). */
static int64_t *copy_int64(PyObject *obj, int64_t n_expected, int64_t *n_out) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    int64_t *out = NULL;
    if (view.itemsize != 8 || (view.format && strcmp(view.format, "q") && strcmp(view.format, "l")))
        PyErr_SetString(PyExc_TypeError, "offsets must be int64");
    else if (n_expected >= 0 && view.len / 8 != n_expected)
        PyErr_SetString(PyExc_ValueError, "offsets have the wrong length");
    else if (view.len < 8)
        PyErr_SetString(PyExc_ValueError, "offsets must hold at least one entry");
    else if (!(out = malloc((size_t)view.len)))
        PyErr_NoMemory();
    else {
        memcpy(out, view.buf, (size_t)view.len);
        *n_out = view.len / 8;
    }
    PyBuffer_Release(&view);
    return out;
}

static unsigned char *copy_bytes(PyObject *obj, int64_t *n_out) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    unsigned char *out = malloc((size_t)view.len + 1);
    if (!out)
        PyErr_NoMemory();
    else {
        memcpy(out, view.buf, (size_t)view.len);
        *n_out = view.len;
    }
    PyBuffer_Release(&view);
    return out;
}

/* Offsets that start at 0, never decrease and end at the data's length. */
static int valid_offsets(const int64_t *off, int64_t n, int64_t len) {
    if (off[0] != 0 || off[n] != len)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if (off[i + 1] < off[i])
            return 0;
    return 1;
}

/* Equal byte strings (inline: most ids are short, a call to memcmp costs more). */
static inline int same_bytes(const unsigned char *a, int64_t na, const unsigned char *b,
                             int64_t nb) {
    if (na != nb)
        return 0;
    for (; na >= 8; a += 8, b += 8, na -= 8)
        if (load64(a) != load64(b))
            return 0;
    while (na-- > 0)
        if (*a++ != *b++)
            return 0;
    return 1;
}

/* Hash of an id (query or document), and whether it is ASCII (when `ascii`
 * is not NULL), in one pass: two lanes
 * of 8 bytes (independent multiply chains, so long ids such as URLs hash at
 * twice the speed of one chain); the high bits of every byte are or-ed. */
static inline uint64_t hash_id(const unsigned char *p, int64_t n, int *ascii) {
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n, b = 0xc2b2ae3d27d4eb4fULL, seen = 0;
    for (; n >= 16; p += 16, n -= 16) {
        uint64_t u = load64(p), v = load64(p + 8);
        seen |= u | v;
        a = (a ^ u) * 0x100000001b3ULL;
        b = (b ^ v) * 0x9fb21c651e98df25ULL;
        a ^= a >> 29;
        b ^= b >> 31;
    }
    if (n >= 8) {
        uint64_t u = load64(p);
        seen |= u;
        a = (a ^ u) * 0x100000001b3ULL;
        a ^= a >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, p, (size_t)n);
        seen |= w;
        b = (b ^ w) * 0x9fb21c651e98df25ULL;
        b ^= b >> 31;
    }
    if (ascii)
        *ascii = (seen & 0x8080808080808080ULL) == 0;
    return mix64(a ^ mix64(b));
}

static PyObject *build_index(PyObject *self, PyObject *args) {
    PyObject *q_off_obj, *q_data_obj, *row_off_obj, *d_off_obj, *d_data_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &q_off_obj, &q_data_obj, &row_off_obj, &d_off_obj,
                          &d_data_obj))
        return NULL;
    Index *ix = calloc(1, sizeof(Index));
    if (!ix)
        return PyErr_NoMemory();
    int64_t n_q1, n_r1, n_d1, q_len, d_len;
    if (!(ix->q_off = copy_int64(q_off_obj, -1, &n_q1)) || !(ix->q_data = copy_bytes(q_data_obj, &q_len)) ||
        !(ix->row_off = copy_int64(row_off_obj, n_q1, &n_r1)) ||
        !(ix->d_off = copy_int64(d_off_obj, -1, &n_d1)) || !(ix->d_data = copy_bytes(d_data_obj, &d_len)))
        goto fail;
    ix->n_queries = n_q1 - 1;
    ix->n_rows = n_d1 - 1;
    if (!valid_offsets(ix->q_off, ix->n_queries, q_len) ||
        !valid_offsets(ix->row_off, ix->n_queries, ix->n_rows) ||
        !valid_offsets(ix->d_off, ix->n_rows, d_len)) {
        PyErr_SetString(PyExc_ValueError, "offsets out of range");
        goto fail;
    }
    int64_t q_size = pow2_at_least(2 * ix->n_queries);
    ix->q_mask = q_size - 1;
    ix->q_slots = malloc((size_t)q_size * sizeof(int64_t));
    ix->slot_off = malloc((size_t)(ix->n_queries + 1) * sizeof(int64_t));
    ix->bits_off = malloc((size_t)(ix->n_queries + 1) * sizeof(int64_t));
    if (!ix->q_slots || !ix->slot_off || !ix->bits_off) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int64_t s = 0; s < q_size; s++)
        ix->q_slots[s] = -1;
    ix->slot_off[0] = ix->bits_off[0] = 0;
    for (int64_t q = 0; q < ix->n_queries; q++) {
        const unsigned char *id = ix->q_data + ix->q_off[q];
        int64_t n = ix->q_off[q + 1] - ix->q_off[q];
        int64_t s = (int64_t)(hash_id(id, n, NULL) & (uint64_t)ix->q_mask);
        while (ix->q_slots[s] >= 0) {
            int64_t o = ix->q_slots[s];
            if (same_bytes(id, n, ix->q_data + ix->q_off[o], ix->q_off[o + 1] - ix->q_off[o])) {
                PyErr_SetString(PyExc_ValueError, "a query id occurs twice");
                goto fail;
            }
            s = (s + 1) & ix->q_mask;
        }
        ix->q_slots[s] = q;
        int64_t rows = ix->row_off[q + 1] - ix->row_off[q];
        ix->slot_off[q + 1] = ix->slot_off[q] + pow2_at_least(2 * rows);
        ix->bits_off[q + 1] = ix->bits_off[q] + pow2_at_least((rows + 3) / 4);
    }
    ix->slots = malloc((size_t)(ix->slot_off[ix->n_queries] + 1) * sizeof(Slot));
    if (!ix->slots) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int64_t s = 0; s < ix->slot_off[ix->n_queries]; s++)
        ix->slots[s].row = -1;
    ix->bits = calloc((size_t)ix->bits_off[ix->n_queries] + 1, sizeof(uint64_t));
    if (!ix->bits) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int64_t q = 0; q < ix->n_queries; q++) {
        Slot *slots = ix->slots + ix->slot_off[q];
        uint64_t mask = (uint64_t)(ix->slot_off[q + 1] - ix->slot_off[q] - 1);
        uint64_t *bits = ix->bits + ix->bits_off[q];
        uint64_t bit_mask = (uint64_t)(64 * (ix->bits_off[q + 1] - ix->bits_off[q]) - 1);
        for (int64_t r = ix->row_off[q]; r < ix->row_off[q + 1]; r++) {
            const unsigned char *id = ix->d_data + ix->d_off[r];
            int64_t n = ix->d_off[r + 1] - ix->d_off[r];
            uint64_t h = hash_id(id, n, NULL);
            uint64_t s = h & mask;
            while (slots[s].row >= 0) {
                int64_t o = slots[s].row;
                if (slots[s].hash == h &&
                    same_bytes(id, n, ix->d_data + ix->d_off[o], ix->d_off[o + 1] - ix->d_off[o])) {
                    PyErr_SetString(PyExc_ValueError, "a document is judged twice for one query");
                    goto fail;
                }
                s = (s + 1) & mask;
            }
            slots[s].hash = h;
            slots[s].row = r;
            uint64_t bit = (h >> 40) & bit_mask;
            bits[bit >> 6] |= 1ULL << (bit & 63);
        }
    }
    PyObject *capsule = PyCapsule_New(ix, "irpref._scan.index", index_destructor);
    if (!capsule)
        free_index(ix);
    return capsule;
fail:
    free_index(ix);
    return NULL;
}

static int64_t find_query(const Index *ix, const unsigned char *id, int64_t n) {
    int64_t s = (int64_t)(hash_id(id, n, NULL) & (uint64_t)ix->q_mask);
    for (;;) {
        int64_t q = ix->q_slots[s];
        if (q < 0)
            return -1;
        if (same_bytes(id, n, ix->q_data + ix->q_off[q], ix->q_off[q + 1] - ix->q_off[q]))
            return q;
        s = (s + 1) & ix->q_mask;
    }
}

/* The qrels row of document (id, n, hash h) in query q, or -1. */
static inline int64_t find_row(const Index *ix, int64_t q, const unsigned char *id, int64_t n,
                               uint64_t h) {
    const uint64_t *bits = ix->bits + ix->bits_off[q];
    uint64_t bit = (h >> 40) & (uint64_t)(64 * (ix->bits_off[q + 1] - ix->bits_off[q]) - 1);
    if (!(bits[bit >> 6] >> (bit & 63) & 1))
        return -1;
    const Slot *slots = ix->slots + ix->slot_off[q];
    uint64_t mask = (uint64_t)(ix->slot_off[q + 1] - ix->slot_off[q] - 1);
    for (uint64_t s = h & mask;; s = (s + 1) & mask) {
        int64_t r = slots[s].row;
        if (r < 0)
            return -1;
        if (slots[s].hash == h &&
            same_bytes(id, n, ix->d_data + ix->d_off[r], ix->d_off[r + 1] - ix->d_off[r]))
            return r;
    }
}

/* ---- lexing --------------------------------------------------------------- */

static inline int is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Tokens of a line: at most MAX_TOKENS are recorded, all are counted. */
#define MAX_TOKENS 7
typedef struct {
    const unsigned char *start[MAX_TOKENS];
    int64_t len[MAX_TOKENS];
    int n;
    const unsigned char *open; /* start of a token still being read, or NULL */
} Tokens;

static inline void token_starts(Tokens *t, const unsigned char *p) { t->open = p; }

static inline void token_ends(Tokens *t, const unsigned char *p) {
    if (t->n < MAX_TOKENS) {
        t->start[t->n] = t->open;
        t->len[t->n] = p - t->open;
    }
    t->n++;
    t->open = NULL;
}

/* The file as 64-byte blocks (from its start), each classified once: bit i
 * of `sep` is set when byte i is a blank or a newline, of `nl` when it is a
 * newline. Bytes past the end count as newlines (the last line ends there). */
typedef struct {
    const unsigned char *base, *end;
    int64_t at; /* offset of the classified block, or -64: none yet */
    uint64_t sep, nl;
} Blocks;

static void classify(Blocks *k, int64_t at) {
    const unsigned char *block = k->base + at;
    k->at = at;
    uint64_t sep = 0, nl = 0;
#ifdef __SSE2__
    if (k->end - block >= 64) {
        const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                      cr = _mm_set1_epi8('\r'), newline = _mm_set1_epi8('\n');
        for (int i = 0; i < 4; i++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(block + 16 * i));
            __m128i n = _mm_cmpeq_epi8(v, newline);
            __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, cr), n));
            sep |= (uint64_t)(unsigned)_mm_movemask_epi8(b) << (16 * i);
            nl |= (uint64_t)(unsigned)_mm_movemask_epi8(n) << (16 * i);
        }
        k->sep = sep;
        k->nl = nl;
        return;
    }
#endif
    for (int i = 0; i < 64; i++) {
        const unsigned char *c = block + i;
        if (c >= k->end || *c == '\n') {
            sep |= 1ULL << i;
            nl |= 1ULL << i;
        } else if (is_blank(*c))
            sep |= 1ULL << i;
    }
    k->sep = sep;
    k->nl = nl;
}

/* Split the line starting at p into tokens separated by blanks; return the
 * byte after its newline (past the end for the last line). The bit masks
 * of the blocks give every token's start and end at once. */
static const unsigned char *split_line(Blocks *k, const unsigned char *p, Tokens *t) {
    t->n = 0;
    t->open = NULL;
    for (;;) {
        int64_t at = (p - k->base) & ~(int64_t)63;
        if (at != k->at)
            classify(k, at);
        int off = (int)(p - k->base - at);
        uint64_t sep = k->sep >> off, nl = k->nl >> off;
        uint64_t stop = nl & -nl; /* the first newline's bit */
        uint64_t upto = stop ? (stop << 1) - 1 : ~0ULL >> off;
        uint64_t inside = ~sep & upto;                       /* token bytes */
        uint64_t before = (inside << 1) | (t->open != NULL); /* the previous byte is one */
        uint64_t events = (inside ^ before) & upto;
        while (events) {
            int b = __builtin_ctzll(events);
            if (t->open)
                token_ends(t, p + b);
            else
                token_starts(t, p + b);
            events &= events - 1;
        }
        if (stop)
            return p + __builtin_ctzll(stop) + 1;
        p = k->base + at + 64;
    }
}

static inline int is_ascii(const unsigned char *p, int64_t n) {
    uint64_t acc = 0;
    while (n >= 8) {
        acc |= load64(p);
        p += 8;
        n -= 8;
    }
    while (n-- > 0)
        acc |= *p++;
    return (acc & 0x8080808080808080ULL) == 0;
}

/* Well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF). */
static int valid_utf8(const unsigned char *p, int64_t n) {
    if (is_ascii(p, n))
        return 1;
    const unsigned char *end = p + n;
    while (p < end) {
        unsigned char c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        int more;
        unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            more = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
        } else
            return 0;
        if (end - p <= more || p[1] < lo || p[1] > hi)
            return 0;
        for (int k = 2; k <= more; k++)
            if (p[k] < 0x80 || p[k] > 0xBF)
                return 0;
        p += more + 1;
    }
    return 1;
}

/* ---- scores --------------------------------------------------------------- */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int lower_is(const unsigned char *p, const char *word, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != (unsigned char)word[i])
            return 0;
    return 1;
}

/* Parse a score: [+-] (digits [. digits] | . digits) [(e|E) [+-] digits], or
 * [+-] inf / infinity in any case (what the Python reader accepts; NaN is
 * not). The value is the correctly rounded double, as strtod gives: exact
 * arithmetic when the digits fit 2**53 and the power of ten is exact
 * (Clinger's fast path), strtod otherwise. Returns 0, or -1 if malformed. */
static int parse_score(const unsigned char *s, int64_t n, double *out) {
    const unsigned char *p = s, *end = s + n;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    int64_t rest = end - p;
    if (rest > 0 && (*p | 0x20) == 'i') {
        if ((rest == 3 && lower_is(p, "inf", 3)) || (rest == 8 && lower_is(p, "infinity", 8))) {
            *out = neg ? -INFINITY : INFINITY;
            return 0;
        }
        return -1;
    }
    /* digits before and after the point, as one integer while they are at
       most 19 (< 2**64); longer numbers are left to strtod */
    uint64_t mant = 0;
    const unsigned char *first = p;
    for (; p < end && (unsigned)(*p - '0') < 10; p++)
        mant = mant * 10 + (uint64_t)(*p - '0');
    int64_t digits = p - first, scale = 0;
    if (p < end && *p == '.') {
        const unsigned char *frac = ++p;
        for (; p < end && (unsigned)(*p - '0') < 10; p++)
            mant = mant * 10 + (uint64_t)(*p - '0');
        scale = -(p - frac);
        digits -= scale;
    }
    if (digits == 0)
        return -1;
    int64_t exponent = 0;
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end || *p < '0' || *p > '9')
            return -1;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (exponent < 100000000)
                exponent = exponent * 10 + (*p - '0');
        if (eneg)
            exponent = -exponent;
    }
    if (p != end)
        return -1;
    int exact = digits <= 19;
    if (exact && mant == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    int64_t e10 = scale + exponent;
    if (exact && mant <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)mant;
        v = e10 >= 0 ? v * POW10[e10] : v / POW10[-e10];
        *out = neg ? -v : v;
        return 0;
    }
    char local[128];
    char *text = n < (int64_t)sizeof(local) ? local : malloc((size_t)n + 1);
    if (!text)
        return -1;
    memcpy(text, s, (size_t)n);
    text[n] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(text, &stop);
    int ok = stop == text + n;
    if (text != local)
        free(text);
    if (!ok)
        return -1;
    *out = v;
    return 0;
}

/* ---- growable arrays ------------------------------------------------------ */

typedef struct {
    uint64_t hash;
    double score;
    int64_t doc; /* offset of the document id in the data */
    int32_t doc_len;
    int32_t group; /* query code, or n_queries + k for the k-th unknown query */
} Line;

typedef struct {
    void *data;
    int64_t n, cap;
    size_t item;
} Vec;

static void *vec_push(Vec *v) {
    if (v->n == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 1024;
        void *data = realloc(v->data, (size_t)cap * v->item);
        if (!data)
            return NULL;
        v->data = data;
        v->cap = cap;
    }
    return (char *)v->data + (size_t)(v->n++) * v->item;
}

/* Query ids the qrels lack: a small growable hash set of (offset, length). */
typedef struct {
    Vec start, len, hash; /* int64, int64, uint64 per unknown query */
    int64_t *slots;
    int64_t mask;
} Unknown;

static int64_t unknown_code(Unknown *u, const unsigned char *base, const unsigned char *id,
                            int64_t n) {
    uint64_t h = hash_id(id, n, NULL);
    if (u->slots) {
        for (int64_t s = (int64_t)(h & (uint64_t)u->mask);; s = (s + 1) & u->mask) {
            int64_t k = u->slots[s];
            if (k < 0)
                break;
            const int64_t *st = u->start.data, *ln = u->len.data;
            if (((uint64_t *)u->hash.data)[k] == h && same_bytes(id, n, base + st[k], ln[k]))
                return k;
        }
    }
    int64_t k = u->start.n;
    int64_t *st = vec_push(&u->start), *ln = vec_push(&u->len);
    uint64_t *hs = vec_push(&u->hash);
    if (!st || !ln || !hs)
        return -1;
    *st = id - base;
    *ln = n;
    *hs = h;
    if (!u->slots || 2 * (k + 1) > u->mask + 1) { /* grow and rehash */
        int64_t size = pow2_at_least(4 * (k + 1));
        int64_t *slots = malloc((size_t)size * sizeof(int64_t));
        if (!slots)
            return -1;
        free(u->slots);
        u->slots = slots;
        u->mask = size - 1;
        for (int64_t s = 0; s < size; s++)
            slots[s] = -1;
        for (int64_t j = 0; j <= k; j++) {
            int64_t s = (int64_t)(((uint64_t *)u->hash.data)[j] & (uint64_t)u->mask);
            while (slots[s] >= 0)
                s = (s + 1) & u->mask;
            slots[s] = j;
        }
    } else {
        int64_t s = (int64_t)(h & (uint64_t)u->mask);
        while (u->slots[s] >= 0)
            s = (s + 1) & u->mask;
        u->slots[s] = k;
    }
    return k;
}

/* ---- sorting small index arrays ------------------------------------------- */

typedef int (*Before)(const Line *lines, const unsigned char *base, int32_t a, int32_t b);

/* Higher score first (equal: keep order). */
static int score_before(const Line *lines, const unsigned char *base, int32_t a, int32_t b) {
    (void)base;
    return lines[a].score > lines[b].score;
}

/* Byte order of two document ids, as strcmp (a prefix sorts first). */
static inline int compare_ids(const Line *x, const Line *y, const unsigned char *base) {
    int32_t n = x->doc_len < y->doc_len ? x->doc_len : y->doc_len;
    const unsigned char *a = base + x->doc, *b = base + y->doc;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) { /* 8 bytes at a time, compared big-endian */
        uint64_t u = load64(a + i), v = load64(b + i);
        if (u != v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            u = __builtin_bswap64(u);
            v = __builtin_bswap64(v);
#endif
            return u < v ? -1 : 1;
        }
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (x->doc_len > y->doc_len) - (x->doc_len < y->doc_len);
}

/* Larger document id first (trec_eval's tie-break). */
static int docid_before(const Line *lines, const unsigned char *base, int32_t a, int32_t b) {
    return compare_ids(&lines[a], &lines[b], base) > 0;
}

/* Stable merge sort of idx[0:n) by `before`, with scratch space tmp[0:n). */
static void merge_sort(int32_t *idx, int32_t *tmp, int64_t n, Before before, const Line *lines,
                       const unsigned char *base) {
    if (n < 2)
        return;
    if (n <= 16) { /* insertion sort */
        for (int64_t i = 1; i < n; i++) {
            int32_t v = idx[i];
            int64_t j = i;
            while (j > 0 && before(lines, base, v, idx[j - 1])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort(idx, tmp, h, before, lines, base);
    merge_sort(idx + h, tmp, n - h, before, lines, base);
    if (!before(lines, base, idx[h], idx[h - 1]))
        return; /* already in order */
    memcpy(tmp, idx, (size_t)h * sizeof(int32_t));
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        idx[k++] = before(lines, base, idx[j], tmp[i]) ? idx[j++] : tmp[i++];
    while (i < h)
        idx[k++] = tmp[i++];
}

/* ---- judging one run ------------------------------------------------------ */

typedef struct {
    int64_t rank, row, first, size;
} Kept;

typedef struct {
    /* inputs */
    const unsigned char *base;
    int64_t len;
    const Index *ix;
    int ties, use_tag;
    int64_t depth; /* 0: no cut */
    int stream;    /* judge each query as soon as its lines end (files grouped by query) */
    /* state and outputs */
    int code;
    int64_t line, n_data;
    Vec lines; /* Line: every line, or (stream) those of the current query */
    Unknown unknown;
    Vec seen;  /* uint8 per query code: its lines were judged (stream) */
    Vec kept;  /* Kept: query after query, in the order judged, by rank */
    int64_t *counts, *kept_start, *n_kept; /* per query code */
    /* scratch: a query's line order, sort space, tie-group marks (-1), repeat table */
    int32_t *order, *tmp, *mark, *table;
    int64_t cap, table_size;
    int64_t tag_start, tag_len; /* -1: none */
} Job;

enum { SCAN_INTERLEAVED = 100 }; /* internal: a query's lines are not contiguous */

static int fail(Job *job, int code, int64_t line) {
    job->code = code;
    job->line = line;
    return -1;
}

/* Scratch space for queries of up to m lines. */
static int ensure_scratch(Job *job, int64_t m) {
    if (m <= job->cap)
        return 0;
    int64_t cap = m > 2 * job->cap ? m : 2 * job->cap;
    int32_t *order = realloc(job->order, (size_t)cap * sizeof(int32_t));
    if (order)
        job->order = order;
    int32_t *tmp = realloc(job->tmp, (size_t)(3 * cap + 1) * sizeof(int32_t));
    if (tmp)
        job->tmp = tmp;
    int32_t *mark = realloc(job->mark, (size_t)cap * sizeof(int32_t));
    if (mark)
        job->mark = mark;
    if (!order || !tmp || !mark)
        return fail(job, SCAN_MEMORY, 0);
    memset(mark + job->cap, 0xff, (size_t)(cap - job->cap) * sizeof(int32_t));
    job->cap = cap;
    return 0;
}

/* No document twice in the lines idx[0:n) of one query. */
static int distinct_docs(Job *job, const int32_t *idx, int64_t n) {
    if (n < 2)
        return 0;
    int64_t size = pow2_at_least(2 * n);
    if (size > job->table_size) {
        free(job->table);
        job->table = malloc((size_t)size * sizeof(int32_t));
        if (!job->table) {
            job->table_size = 0;
            return fail(job, SCAN_MEMORY, 0);
        }
        job->table_size = size;
    }
    int32_t *slots = job->table;
    memset(slots, 0xff, (size_t)size * sizeof(int32_t));
    uint64_t mask = (uint64_t)size - 1;
    const Line *lines = job->lines.data;
    for (int64_t i = 0; i < n; i++) {
        const Line *l = &lines[idx[i]];
        uint64_t s = l->hash & mask;
        for (; slots[s] >= 0; s = (s + 1) & mask) {
            const Line *o = &lines[slots[s]];
            if (o->hash == l->hash &&
                same_bytes(job->base + o->doc, o->doc_len, job->base + l->doc, l->doc_len))
                return fail(job, SCAN_REPEAT, 0);
        }
        slots[s] = idx[i];
    }
    return 0;
}

/* Rank, depth cut and tie groups of the judged lines of query q, whose lines
 * are idx[0:n) in score order (file order among equal scores). */
static int judge_query(Job *job, int64_t q, const int32_t *idx, int64_t n) {
    const Line *lines = job->lines.data;
    const unsigned char *base = job->base;
    int64_t depth = job->depth > 0 ? job->depth : INT64_MAX;
    int64_t begin = job->kept.n;
    int64_t a = 0; /* start of the current tie group */
    for (int64_t i = 0; i <= n; i++) {
        if (i < n && i > 0 && lines[idx[i]].score == lines[idx[i - 1]].score)
            continue;
        /* the group [a, i) is complete */
        if (i > 0) {
            int64_t b = i, first_kept = job->kept.n;
            for (int64_t t = a; t < b; t++) {
                const Line *l = &lines[idx[t]];
                int64_t row = find_row(job->ix, q, base + l->doc, l->doc_len, l->hash);
                if (row < 0)
                    continue;
                Kept *k = vec_push(&job->kept);
                if (!k)
                    return fail(job, SCAN_MEMORY, 0);
                k->rank = t; /* file order among ties; fixed below for docid */
                k->row = row;
                k->first = a;
                k->size = (b < depth ? b : depth) - a;
            }
            int64_t m = job->kept.n - first_kept, size = b - a;
            if (m && size > 1 && job->ties != 1) {
                Kept *kept = (Kept *)job->kept.data + first_kept;
                if (size * m <= 256) { /* count the larger ids in the group */
                    for (int64_t j = 0; j < m; j++) {
                        const Line *l = &lines[idx[kept[j].rank]];
                        int64_t above = 0;
                        for (int64_t t = a; t < b; t++)
                            above += compare_ids(&lines[idx[t]], l, base) > 0;
                        kept[j].rank = a + above;
                    }
                } else {
                    /* the kept lines sorted by id, descending; each other line
                       of the group is placed among them by binary search and
                       counts, by a difference array, for the kept lines below it */
                    int32_t *judged = job->tmp, *scratch = job->tmp + m;
                    int32_t *diff = job->tmp + 2 * m;
                    for (int64_t j = 0; j < m; j++) {
                        judged[j] = idx[kept[j].rank];
                        job->mark[judged[j]] = (int32_t)j;
                        diff[j] = 0;
                    }
                    merge_sort(judged, scratch, m, docid_before, lines, base);
                    for (int64_t t = a; t < b; t++) {
                        const Line *x = &lines[idx[t]];
                        if (job->mark[idx[t]] >= 0)
                            continue;
                        int64_t lo = 0, hi = m;
                        while (lo < hi) {
                            int64_t mid = (lo + hi) / 2;
                            if (compare_ids(&lines[judged[mid]], x, base) > 0)
                                lo = mid + 1;
                            else
                                hi = mid;
                        }
                        if (lo < m)
                            diff[lo]++;
                    }
                    int64_t larger = 0;
                    for (int64_t i = 0; i < m; i++) {
                        larger += diff[i];
                        kept[job->mark[judged[i]]].rank = a + i + larger;
                    }
                    for (int64_t i = 0; i < m; i++)
                        job->mark[judged[i]] = -1;
                }
                /* by rank within the group (m is small, or nearly sorted) */
                for (int64_t u = 1; u < m; u++) {
                    Kept v = kept[u];
                    int64_t w = u;
                    while (w > 0 && kept[w - 1].rank > v.rank) {
                        kept[w] = kept[w - 1];
                        w--;
                    }
                    kept[w] = v;
                }
            }
            /* the depth cut: ranks ascend, so drop the tail */
            while (job->kept.n > first_kept &&
                   ((Kept *)job->kept.data)[job->kept.n - 1].rank >= depth)
                job->kept.n--;
        }
        a = i;
        if (a >= depth)
            break;
    }
    job->n_kept[q] = job->kept.n - begin;
    return 0;
}

/* Judge the lines idx[0:m) of query code g (all of them): refuse repeats;
 * for a qrels query, rank them and keep the judged ones. */
static int judge_group(Job *job, int64_t g, int32_t *idx, int64_t m) {
    if (distinct_docs(job, idx, m) < 0)
        return -1;
    if (g >= job->ix->n_queries)
        return 0;
    const Line *lines = job->lines.data;
    int sorted = 1;
    for (int64_t i = 1; i < m && sorted; i++)
        sorted = lines[idx[i]].score <= lines[idx[i - 1]].score;
    if (!sorted)
        merge_sort(idx, job->tmp, m, score_before, lines, job->base);
    job->counts[g] = m;
    job->kept_start[g] = job->kept.n;
    return judge_query(job, g, idx, m);
}

/* Stream mode: judge the lines gathered for query g, then forget them. */
static int finish_group(Job *job, int64_t g) {
    int64_t m = job->lines.n;
    if (ensure_scratch(job, m) < 0)
        return -1;
    for (int64_t i = 0; i < m; i++)
        job->order[i] = (int32_t)i;
    int rc = judge_group(job, g, job->order, m);
    job->lines.n = 0;
    return rc;
}

/* Mark query code g as judged; 1 if it was already. */
static int seen_before(Job *job, int64_t g) {
    while (job->seen.n <= g) {
        unsigned char *flag = vec_push(&job->seen);
        if (!flag)
            return fail(job, SCAN_MEMORY, 0);
        *flag = 0;
    }
    unsigned char *flag = (unsigned char *)job->seen.data + g;
    int was = *flag;
    *flag = 1;
    return was;
}

static int parse_lines(Job *job) {
    const unsigned char *base = job->base, *p = base, *end = base + job->len;
    const Index *ix = job->ix;
    const unsigned char *prev_q = NULL;
    int64_t prev_len = -1, prev_group = -1, current = -1, line = 0;
    Blocks blocks = {base, end, -64, 0, 0};
    int width = 0;
    while (p < end) {
        line++;
        Tokens t;
        p = split_line(&blocks, p, &t);
        int nt = t.n;
        if (nt == 0 || t.start[0][0] == '#') /* blank line or comment */
            continue;
        const unsigned char **tok = t.start;
        const int64_t *tlen = t.len;
        if ((nt != 5 && nt != 6) || (width && nt != width))
            return fail(job, SCAN_FIELDS, line);
        width = nt;
        int64_t group;
        if (same_bytes(tok[0], tlen[0], prev_q, prev_len))
            group = prev_group;
        else {
            if (!valid_utf8(tok[0], tlen[0]))
                return fail(job, SCAN_UTF8, line);
            group = find_query(ix, tok[0], tlen[0]);
            if (group < 0) {
                int64_t k = unknown_code(&job->unknown, base, tok[0], tlen[0]);
                if (k < 0)
                    return fail(job, SCAN_MEMORY, line);
                group = ix->n_queries + k;
            }
            prev_q = tok[0];
            prev_len = tlen[0];
            prev_group = group;
        }
        if (tlen[2] > INT32_MAX || group > INT32_MAX)
            return fail(job, SCAN_TOO_BIG, line);
        int ascii;
        uint64_t hash = hash_id(tok[2], tlen[2], &ascii);
        if (!ascii && !valid_utf8(tok[2], tlen[2]))
            return fail(job, SCAN_UTF8, line);
        double score;
        if (parse_score(tok[4], tlen[4], &score) < 0)
            return fail(job, SCAN_SCORE, line);
        if (job->use_tag && nt == 6) {
            if (job->tag_start < 0) {
                if (!valid_utf8(tok[5], tlen[5]))
                    return fail(job, SCAN_UTF8, line);
                job->tag_start = tok[5] - base;
                job->tag_len = tlen[5];
            } else if (!same_bytes(tok[5], tlen[5], base + job->tag_start, job->tag_len))
                return fail(job, SCAN_TAG, line);
        }
        if (job->stream && group != current) {
            if (current >= 0 && finish_group(job, current) < 0)
                return -1;
            int was = seen_before(job, group);
            if (was < 0)
                return -1;
            if (was)
                return fail(job, SCAN_INTERLEAVED, line);
            current = group;
        }
        if (job->lines.n >= INT32_MAX)
            return fail(job, SCAN_TOO_BIG, line);
        Line *l = vec_push(&job->lines);
        if (!l)
            return fail(job, SCAN_MEMORY, line);
        l->hash = hash;
        l->score = score;
        l->doc = tok[2] - base;
        l->doc_len = (int32_t)tlen[2];
        l->group = (int32_t)group;
        job->n_data++;
    }
    if (job->n_data == 0)
        return fail(job, SCAN_EMPTY, 0);
    if (job->stream && current >= 0)
        return finish_group(job, current);
    return 0;
}

/* Two-phase mode (queries interleaved): every line read, then grouped by
 * query (counting sort: file order within a query) and judged. */
static int judge_lines(Job *job) {
    int64_t n = job->lines.n, n_groups = job->ix->n_queries + job->unknown.start.n;
    const Line *lines = job->lines.data;
    int64_t *start = calloc((size_t)n_groups + 2, sizeof(int64_t));
    int64_t *fill = malloc((size_t)(n_groups + 2) * sizeof(int64_t));
    int32_t *order = malloc((size_t)n * sizeof(int32_t) + 1);
    int rc = -1;
    if (!start || !fill || !order)
        fail(job, SCAN_MEMORY, 0);
    else if (ensure_scratch(job, n) == 0) {
        for (int64_t i = 0; i < n; i++)
            start[lines[i].group + 1]++;
        for (int64_t g = 0; g < n_groups; g++)
            start[g + 1] += start[g];
        memcpy(fill, start, (size_t)(n_groups + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++)
            order[fill[lines[i].group]++] = (int32_t)i;
        rc = 0;
        for (int64_t g = 0; g < n_groups && rc == 0; g++)
            rc = judge_group(job, g, order + start[g], start[g + 1] - start[g]);
    }
    free(start);
    free(fill);
    free(order);
    return rc;
}

/* Back to the start of the file, for the two-phase mode. */
static void restart(Job *job) {
    int64_t n_q = job->ix->n_queries;
    job->code = SCAN_OK;
    job->line = job->n_data = 0;
    job->lines.n = job->kept.n = 0;
    memset(job->counts, 0, (size_t)n_q * sizeof(int64_t));
    memset(job->n_kept, 0, (size_t)n_q * sizeof(int64_t));
    job->tag_start = -1;
    job->stream = 0;
}

static PyObject *int64_bytes(const void *data, int64_t n) {
    return PyBytes_FromStringAndSize(data ? (const char *)data : "", (Py_ssize_t)(n * 8));
}

static PyObject *judge(PyObject *self, PyObject *args) {
    PyObject *data_obj, *capsule;
    int ties, use_tag;
    long long depth;
    if (!PyArg_ParseTuple(args, "OOiLp", &data_obj, &capsule, &ties, &depth, &use_tag))
        return NULL;
    if (ties < 0 || ties > 2 || depth < 0) {
        PyErr_SetString(PyExc_ValueError, "ties must be 0, 1 or 2 and depth >= 0");
        return NULL;
    }
    Index *ix = PyCapsule_GetPointer(capsule, "irpref._scan.index");
    if (!ix)
        return NULL;
    Py_buffer data;
    if (PyObject_GetBuffer(data_obj, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Job job;
    memset(&job, 0, sizeof(job));
    job.base = data.buf;
    job.len = data.len;
    job.ix = ix;
    job.ties = ties;
    job.use_tag = use_tag;
    job.depth = depth;
    job.tag_start = -1;
    job.lines.item = sizeof(Line);
    job.kept.item = sizeof(Kept);
    job.unknown.start.item = job.unknown.len.item = job.unknown.hash.item = 8;
    job.seen.item = 1;
    job.stream = 1;
    job.counts = calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    job.kept_start = calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    job.n_kept = calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    PyObject *result = NULL;
    if (!job.counts || !job.kept_start || !job.n_kept)
        job.code = SCAN_MEMORY;
    else {
        Py_BEGIN_ALLOW_THREADS
        parse_lines(&job);
        if (job.code == SCAN_INTERLEAVED) {
            restart(&job);
            if (parse_lines(&job) == 0)
                judge_lines(&job);
        }
        Py_END_ALLOW_THREADS
    }
    if (job.code != SCAN_OK)
        result = Py_BuildValue("(iL)", job.code, (long long)job.line);
    else {
        int64_t n = job.kept.n;
        const Kept *kept = job.kept.data;
        int64_t *cols = malloc((size_t)(4 * n + 1) * sizeof(int64_t));
        PyObject *unknown = PyList_New(job.unknown.start.n);
        if (!cols || !unknown) {
            PyErr_NoMemory();
            Py_XDECREF(unknown);
        } else {
            int64_t i = 0; /* query by query, in code order */
            for (int64_t q = 0; q < ix->n_queries; q++)
                for (int64_t j = job.kept_start[q]; j < job.kept_start[q] + job.n_kept[q]; j++, i++) {
                    cols[i] = kept[j].rank;
                    cols[n + i] = kept[j].row;
                    cols[2 * n + i] = kept[j].first;
                    cols[3 * n + i] = kept[j].size;
                }
            const int64_t *st = job.unknown.start.data, *ln = job.unknown.len.data;
            for (int64_t k = 0; k < job.unknown.start.n; k++)
                PyList_SET_ITEM(unknown, k,
                                PyBytes_FromStringAndSize((const char *)job.base + st[k], ln[k]));
            PyObject *tag = job.tag_start < 0
                                ? (Py_INCREF(Py_None), Py_None)
                                : PyBytes_FromStringAndSize((const char *)job.base + job.tag_start,
                                                            job.tag_len);
            result = Py_BuildValue(
                "(iNNNNNNNN)", SCAN_OK, int64_bytes(job.counts, ix->n_queries),
                int64_bytes(job.n_kept, ix->n_queries), int64_bytes(cols, n),
                int64_bytes(cols + n, n), int64_bytes(cols + 2 * n, n), int64_bytes(cols + 3 * n, n),
                unknown, tag);
        }
        free(cols);
    }
    PyBuffer_Release(&data);
    free(job.lines.data);
    free(job.kept.data);
    free(job.unknown.start.data);
    free(job.unknown.len.data);
    free(job.unknown.hash.data);
    free(job.unknown.slots);
    free(job.seen.data);
    free(job.counts);
    free(job.kept_start);
    free(job.n_kept);
    free(job.order);
    free(job.tmp);
    free(job.mark);
    free(job.table);
    return result;
}

static PyObject *parse_score_py(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    double v;
    int rc = parse_score(view.buf, view.len, &v);
    PyBuffer_Release(&view);
    if (rc < 0)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyObject *hash_id_py(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    uint64_t h = hash_id(view.buf, view.len, NULL);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef methods[] = {
    {"index", build_index, METH_VARARGS, "Hash the qrels: one table per query."},
    {"judge", judge, METH_VARARGS, "Read and judge the bytes of one run file."},
    {"parse_score", parse_score_py, METH_O, "The score a token reads as, or None."},
    {"hash_id", hash_id_py, METH_O, "The 64-bit hash the pass gives an id (for tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
