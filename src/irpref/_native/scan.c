/* irpref._native.scan: a TREC run file read and judged in one pass (irpref.judging.scan).
 *
 *   index(q_off, q_data, row_off, d_off, d_data) -> capsule     (scan_qrels.c)
 *   qrels(data, release) -> (0, capsule, ...) or (code, line)    (scan_qrels.c)
 *       the qrels index (scan.h): from arrays Python holds, or read from a
 *       TREC qrels file in one pass.
 *   judge(data, index, ties, depth, use_tag, release) -> tuple
 *       parse the bytes of a run file ("qid Q0 docid rank score [tag]"),
 *       check them as irpref.io.trec does, rank every query (score
 *       descending; ties 0 = docid descending as trec_eval, 1 = file order,
 *       2 = docid ranks plus tie groups) and keep only what the compact
 *       layout of irpref.judging.judged holds: per query the number retrieved, per
 *       retrieved document the qrels mention its rank, qrels row and tie
 *       group. Unjudged documents are hashed (repeats are refused) but never
 *       ordered by id unless they tie with a judged one. `release`: data is
 *       a read-only map of a file, whose pages are handed back to the
 *       kernel once their queries are judged (files grouped by query).
 *
 * judge returns (0, counts, kept, rank, row, tie_first, tie_size, unknown,
 * tag) on success (arrays as int64 bytes, tie_first and tie_size None unless
 * ties = 2; unknown: the query ids the qrels lack, in order of first
 * appearance; tag: the tag when use_tag, else None) or (code, line) when the
 * file breaks a rule or is too large for this pass: the caller then reads it
 * with the careful Python reader, which names the problem exactly (or, for a
 * rule this pass is stricter about, reads it). Both passes release the GIL:
 * callers judge several files on several threads.
 */
#include "scan.h"

#include <sys/mman.h>
#include <unistd.h>

/* ---- blocks: arrays handed to Python -------------------------------------- */

typedef struct {
    PyObject_HEAD void *data; /* from mem_alloc */
    Py_ssize_t bytes;
} Block;

static int block_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    Block *b = (Block *)self;
    return PyBuffer_FillInfo(view, self, b->data, b->bytes, 0, flags);
}

static void block_dealloc(PyObject *self) {
    mem_free(((Block *)self)->data);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs block_as_buffer = {block_getbuffer, NULL};

static PyTypeObject BlockType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "irpref._native.scan.Block",
    .tp_basicsize = sizeof(Block),
    .tp_dealloc = block_dealloc,
    .tp_as_buffer = &block_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An array of a pass (its bytes, exported as a writable buffer).",
};

PyObject *block_of(void *data, int64_t bytes) {
    Block *b = PyObject_New(Block, &BlockType);
    if (!b) {
        mem_free(data);
        return NULL;
    }
    b->data = data;
    b->bytes = (Py_ssize_t)bytes;
    return (PyObject *)b;
}

/* ---- lines of a run ------------------------------------------------------ */

typedef struct {
    uint64_t hash;
    double score;
    int64_t doc; /* offset of the document id in the data */
    int32_t doc_len;
    int32_t group; /* query code, or n_queries + k for the k-th unknown query */
} Line;

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
        int64_t *slots = mem_alloc((size_t)size * sizeof(int64_t));
        if (!slots)
            return -1;
        mem_free(u->slots);
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
    return compare_bytes(base + x->doc, x->doc_len, base + y->doc, y->doc_len);
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
    int32_t rank, row, first, size;
} Kept;

typedef struct {
    /* inputs */
    const unsigned char *base;
    int64_t len;
    const Index *ix;
    int ties, use_tag;
    int64_t depth; /* 0: no cut */
    int stream;    /* judge each query as soon as its lines end (files grouped by query) */
    int release;   /* data is a read-only file map: hand judged pages back (stream) */
    int64_t released;
    /* state and outputs */
    int code;
    int64_t line, n_data;
    Vec lines; /* Line: every line, or (stream) those of the current query */
    Unknown unknown;
    Vec seen;   /* uint8 per query code: its lines were judged (stream) */
    Vec kept;   /* Kept: the judged lines of the query being judged, by rank */
    Vec col[4]; /* int32 rank, row, first, size of every kept line, query after
                   query in the order judged (first, size: ties = 2 only) */
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
    int32_t *order = mem_realloc(job->order, (size_t)cap * sizeof(int32_t));
    if (order)
        job->order = order;
    int32_t *tmp = mem_realloc(job->tmp, (size_t)(3 * cap + 1) * sizeof(int32_t));
    if (tmp)
        job->tmp = tmp;
    int32_t *mark = mem_realloc(job->mark, (size_t)cap * sizeof(int32_t));
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
        mem_free(job->table);
        job->table = mem_alloc((size_t)size * sizeof(int32_t));
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

/* Append the kept lines of the query just judged to the columns. */
static int flush_kept(Job *job) {
    int n_cols = job->ties == 2 ? 4 : 2;
    const Kept *kept = job->kept.data;
    for (int c = 0; c < n_cols; c++) {
        if (vec_reserve(&job->col[c], job->kept.n) < 0)
            return fail(job, SCAN_MEMORY, 0);
        int32_t *out = (int32_t *)job->col[c].data + job->col[c].n;
        for (int64_t j = 0; j < job->kept.n; j++)
            out[j] = (&kept[j].rank)[c];
        job->col[c].n += job->kept.n;
    }
    return 0;
}

/* Rank, depth cut and tie groups of the judged lines of query q, whose lines
 * are idx[0:n) in score order (file order among equal scores). */
static int judge_query(Job *job, int64_t q, const int32_t *idx, int64_t n) {
    const Line *lines = job->lines.data;
    const unsigned char *base = job->base;
    int64_t depth = job->depth > 0 ? job->depth : INT64_MAX;
    job->kept.n = 0;
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
                k->rank = (int32_t)t; /* file order among ties; fixed below for docid */
                k->row = (int32_t)row;
                k->first = (int32_t)a;
                k->size = (int32_t)((b < depth ? b : depth) - a);
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
                        kept[j].rank = (int32_t)(a + above);
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
                        kept[job->mark[judged[i]]].rank = (int32_t)(a + i + larger);
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
    job->n_kept[q] = job->kept.n;
    return flush_kept(job);
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
    job->kept_start[g] = job->col[0].n;
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

/* Stream mode: the pages before `keep` (the first line of the query being
 * read) are judged; hand them back to the kernel, 16 MB at a time. */
static void release_pages(Job *job, const unsigned char *keep) {
    int64_t page = (int64_t)sysconf(_SC_PAGESIZE);
    int64_t end = ((keep - job->base) / page - 1) * page;
    if (!job->release || end - job->released < (16 << 20))
        return;
    madvise((void *)(job->base + job->released), (size_t)(end - job->released), MADV_DONTNEED);
    job->released = end;
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
    int64_t prev_len = -1, prev_group = -1, current = -1, line = 0, next_k = 0;
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
            group = find_query(ix, tok[0], tlen[0], next_k);
            if (group >= 0)
                next_k = group + 1; /* runs usually list queries as the qrels do */
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
            release_pages(job, tok[0]);
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
    int64_t *start = mem_calloc((size_t)n_groups + 2, sizeof(int64_t));
    int64_t *fill = mem_alloc((size_t)(n_groups + 2) * sizeof(int64_t));
    int32_t *order = mem_alloc((size_t)n * sizeof(int32_t) + 1);
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
    mem_free(start);
    mem_free(fill);
    mem_free(order);
    return rc;
}

/* Back to the start of the file, for the two-phase mode. */
static void restart(Job *job) {
    int64_t n_q = job->ix->n_queries;
    job->code = SCAN_OK;
    job->line = job->n_data = 0;
    job->lines.n = job->kept.n = 0;
    for (int c = 0; c < 4; c++)
        job->col[c].n = 0;
    memset(job->counts, 0, (size_t)n_q * sizeof(int64_t));
    memset(job->n_kept, 0, (size_t)n_q * sizeof(int64_t));
    job->tag_start = -1;
    job->stream = 0;
}

static void free_job(Job *job) {
    Vec *vecs[] = {&job->lines,        &job->kept,  &job->unknown.start, &job->unknown.len,
                   &job->unknown.hash, &job->seen,  &job->col[0],        &job->col[1],
                   &job->col[2],       &job->col[3]};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        vec_free(vecs[i]);
    void *owned[] = {job->unknown.slots, job->counts, job->kept_start, job->n_kept,
                     job->order,         job->tmp,    job->mark,       job->table};
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        mem_free(owned[i]);
}

/* The index place of query code q. */
static inline int64_t k_of(const Index *ix, int64_t q) {
    return ix->k_of_code ? ix->k_of_code[q] : q;
}

/* Column c (0 rank, 1 row, 2 first, 3 size) of the kept items, query by
 * query in code order, as an int32 Block; the column itself is freed. */
static PyObject *kept_column(Job *job, int c) {
    void *data;
    PyObject *out = new_block(job->col[c].n * 4, &data);
    if (out) {
        int32_t *dst = data;
        const int32_t *src = job->col[c].data;
        for (int64_t q = 0; q < job->ix->n_queries; q++) {
            int64_t k = k_of(job->ix, q);
            memcpy(dst, src + job->kept_start[k], (size_t)job->n_kept[k] * 4);
            dst += job->n_kept[k];
        }
    }
    vec_free(&job->col[c]);
    return out;
}

/* A per-query count (by index place) as an int64 Block in code order. */
static PyObject *by_code(const Job *job, const int64_t *values) {
    int64_t n = job->ix->n_queries;
    void *data;
    PyObject *out = new_block(n * 8, &data);
    if (!out)
        return NULL;
    int64_t *col = data;
    for (int64_t q = 0; q < n; q++)
        col[q] = values[k_of(job->ix, q)];
    return out;
}

/* The success tuple of judge(). */
static PyObject *job_result(Job *job) {
    PyObject *unknown = PyList_New(job->unknown.start.n);
    if (!unknown)
        return NULL;
    const int64_t *st = job->unknown.start.data, *ln = job->unknown.len.data;
    for (int64_t k = 0; k < job->unknown.start.n; k++) {
        PyObject *id = PyBytes_FromStringAndSize((const char *)job->base + st[k], ln[k]);
        if (!id) {
            Py_DECREF(unknown);
            return NULL;
        }
        PyList_SET_ITEM(unknown, k, id);
    }
    PyObject *tag =
        job->tag_start < 0
            ? (Py_INCREF(Py_None), Py_None)
            : PyBytes_FromStringAndSize((const char *)job->base + job->tag_start, job->tag_len);
    int expected = job->ties == 2;
    PyObject *first = expected ? kept_column(job, 2) : (Py_INCREF(Py_None), Py_None);
    PyObject *size = expected ? kept_column(job, 3) : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("(iNNNNNNNN)", SCAN_OK, by_code(job, job->counts),
                         by_code(job, job->n_kept), kept_column(job, 0), kept_column(job, 1), first,
                         size, unknown, tag);
}

static PyObject *judge(PyObject *self, PyObject *args) {
    PyObject *data_obj, *capsule;
    int ties, use_tag, release = 0;
    long long depth;
    if (!PyArg_ParseTuple(args, "OOiLp|p", &data_obj, &capsule, &ties, &depth, &use_tag, &release))
        return NULL;
    if (ties < 0 || ties > 2 || depth < 0) {
        PyErr_SetString(PyExc_ValueError, "ties must be 0, 1 or 2 and depth >= 0");
        return NULL;
    }
    Index *ix = PyCapsule_GetPointer(capsule, INDEX_CAPSULE);
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
    job.release = release;
    job.depth = depth;
    job.tag_start = -1;
    job.lines.item = sizeof(Line);
    job.kept.item = sizeof(Kept);
    for (int c = 0; c < 4; c++)
        job.col[c].item = 4;
    job.unknown.start.item = job.unknown.len.item = job.unknown.hash.item = 8;
    job.seen.item = 1;
    job.stream = 1;
    job.counts = mem_calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    job.kept_start = mem_calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    job.n_kept = mem_calloc((size_t)ix->n_queries + 1, sizeof(int64_t));
    if (!job.counts || !job.kept_start || !job.n_kept)
        job.code = SCAN_MEMORY;
    else {
        Py_BEGIN_ALLOW_THREADS parse_lines(&job);
        if (job.code == SCAN_INTERLEAVED) {
            restart(&job);
            if (parse_lines(&job) == 0)
                judge_lines(&job);
        }
        Py_END_ALLOW_THREADS
    }
    PyObject *result = job.code != SCAN_OK ? Py_BuildValue("(iL)", job.code, (long long)job.line)
                                           : job_result(&job);
    PyBuffer_Release(&data);
    free_job(&job);
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
    {"index", scan_index, METH_VARARGS, "Index sorted qrels (arrays Python holds)."},
    {"qrels", scan_qrels, METH_VARARGS, "Read, check, sort and index a TREC qrels file."},
    {"judge", judge, METH_VARARGS, "Read and judge the bytes of one run file."},
    {"parse_score", parse_score_py, METH_O, "The score a token reads as, or None."},
    {"hash_id", hash_id_py, METH_O, "The 64-bit hash the pass gives an id (for tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit_scan(void) {
    if (PyType_Ready(&BlockType) < 0)
        return NULL;
    return PyModule_Create(&module);
}
