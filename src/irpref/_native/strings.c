/* irpref._native.strings: passes over Arrow string arrays that Arrow's Python
 * API lacks, used to number document ids of any shape (irpref.judging.judged).
 *
 *   hash64(offsets, data, out)          out[i] = 64-bit hash of string i
 *   first_mismatch(offsets, data, ref_offsets, ref_data, index)
 *                                       first i whose string differs from
 *                                       reference string index[i], or -1
 *   number64, sort_strings, short_keys  numbering, byte order, packed keys
 *
 * Arrays are passed through the buffer protocol: offsets are int32 (Arrow
 * string) or int64 (large_string), `index` int64, `out` uint64. Every
 * function releases the GIL, so callers run them on several threads. The
 * hash only has to spread strings well: equal hashes are never trusted,
 * every string is compared with its reference byte for byte.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "sort.h"

typedef struct {
    Py_buffer view;
    int wide; /* offsets are int64 */
} Offsets;

static int get_offsets(PyObject *obj, Offsets *o) {
    if (PyObject_GetBuffer(obj, &o->view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (o->view.itemsize == 4)
        o->wide = 0;
    else if (o->view.itemsize == 8)
        o->wide = 1;
    else {
        PyBuffer_Release(&o->view);
        PyErr_SetString(PyExc_TypeError, "offsets must be int32 or int64");
        return -1;
    }
    if (o->view.len / o->view.itemsize < 1) {
        PyBuffer_Release(&o->view);
        PyErr_SetString(PyExc_ValueError, "offsets must hold at least one entry");
        return -1;
    }
    return 0;
}

static inline int64_t offset_at(const Offsets *o, Py_ssize_t i) {
    return o->wide ? ((const int64_t *)o->view.buf)[i] : ((const int32_t *)o->view.buf)[i];
}

static int check_range(const Offsets *o, Py_ssize_t data_len) {
    Py_ssize_t n = o->view.len / o->view.itemsize;
    int64_t first = offset_at(o, 0), last = offset_at(o, n - 1);
    if (first < 0 || last < first || last > data_len) {
        PyErr_SetString(PyExc_ValueError, "offsets out of the data's range");
        return -1;
    }
    return 0;
}

typedef struct {
    Offsets off;
    Py_buffer data;
    Py_ssize_t n; /* number of strings */
} Strings;

static void release_strings(Strings *s) {
    PyBuffer_Release(&s->off.view);
    PyBuffer_Release(&s->data);
}

/* Acquire one string array (offsets + bytes); its offsets must lie in the bytes. */
static int get_strings(PyObject *off_obj, PyObject *data_obj, Strings *s) {
    if (get_offsets(off_obj, &s->off) < 0)
        return -1;
    if (PyObject_GetBuffer(data_obj, &s->data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&s->off.view);
        return -1;
    }
    if (check_range(&s->off, s->data.len) < 0) {
        release_strings(s);
        return -1;
    }
    s->n = s->off.view.len / s->off.view.itemsize - 1;
    return 0;
}

/* Parse (offsets, data, out) and acquire the strings and ``out``, a writable buffer of
   one uint64 per string; on failure nothing is held and an exception is set. */
static int get_strings_and_words(PyObject *args, Strings *str, Py_buffer *out) {
    PyObject *off_obj, *data_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO", &off_obj, &data_obj, &out_obj))
        return -1;
    if (get_strings(off_obj, data_obj, str) < 0)
        return -1;
    if (PyObject_GetBuffer(out_obj, out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        release_strings(str);
        return -1;
    }
    if (out->len != str->n * 8) {
        PyErr_SetString(PyExc_ValueError, "out must hold one uint64 per string");
        release_strings(str);
        PyBuffer_Release(out);
        return -1;
    }
    return 0;
}

static PyObject *hash64(PyObject *self, PyObject *args) {
    Strings str;
    Py_buffer out;
    if (get_strings_and_words(args, &str, &out) < 0)
        return NULL;
    const unsigned char *base = (const unsigned char *)str.data.buf;
    uint64_t *h = (uint64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < str.n; i++) {
        int64_t a = offset_at(&str.off, i), b = offset_at(&str.off, i + 1);
        h[i] = hash_bytes(base + a, b - a);
    }
    Py_END_ALLOW_THREADS release_strings(&str);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *first_mismatch(PyObject *self, PyObject *args) {
    PyObject *off_obj, *data_obj, *roff_obj, *rdata_obj, *index_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &off_obj, &data_obj, &roff_obj, &rdata_obj, &index_obj))
        return NULL;
    Strings str, ref;
    Py_buffer index;
    if (get_strings(off_obj, data_obj, &str) < 0)
        return NULL;
    if (get_strings(roff_obj, rdata_obj, &ref) < 0) {
        release_strings(&str);
        return NULL;
    }
    if (PyObject_GetBuffer(index_obj, &index, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        release_strings(&str);
        release_strings(&ref);
        return NULL;
    }
    Py_ssize_t n = str.n;
    PyObject *result = NULL;
    if ((index.itemsize != 8 && index.itemsize != 4) || index.len != n * index.itemsize)
        PyErr_SetString(PyExc_ValueError, "index must hold one int32 or int64 per string");
    else {
        const unsigned char *base = (const unsigned char *)str.data.buf;
        const unsigned char *rbase = (const unsigned char *)ref.data.buf;
        const int64_t *ix64 = (const int64_t *)index.buf;
        const int32_t *ix32 = (const int32_t *)index.buf;
        int narrow = index.itemsize == 4;
        Py_ssize_t found = -1;
        int bad_index = 0;
        Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < n; i++) {
            int64_t j = narrow ? ix32[i] : ix64[i];
            if (j < 0 || j >= ref.n) {
                bad_index = 1;
                found = i;
                break;
            }
            int64_t a = offset_at(&str.off, i), b = offset_at(&str.off, i + 1);
            int64_t ra = offset_at(&ref.off, j), rb = offset_at(&ref.off, j + 1);
            if (b - a != rb - ra || memcmp(base + a, rbase + ra, (size_t)(b - a)) != 0) {
                found = i;
                break;
            }
        }
        Py_END_ALLOW_THREADS if (bad_index)
            PyErr_SetString(PyExc_IndexError, "index out of the reference's range");
        else result = PyLong_FromSsize_t(found);
    }
    release_strings(&str);
    release_strings(&ref);
    PyBuffer_Release(&index);
    return result;
}

/* ---- number64: dense codes of 64-bit keys, first-occurrence order ---- */

typedef struct {
    uint64_t *keys;
    int32_t *codes; /* code + 1; 0 marks an empty slot */
    uint64_t mask;
} Table;

static int table_init(Table *t, uint64_t slots) {
    t->keys = (uint64_t *)malloc(slots * sizeof(uint64_t));
    t->codes = (int32_t *)calloc(slots, sizeof(int32_t));
    t->mask = slots - 1;
    return (t->keys && t->codes) ? 0 : -1;
}

static void table_free(Table *t) {
    free(t->keys);
    free(t->codes);
}

static inline uint64_t slot_of(uint64_t key) {
    return mix64(key);
}

static int table_grow(Table *t) {
    Table bigger;
    if (table_init(&bigger, (t->mask + 1) * 2) < 0) {
        table_free(&bigger);
        return -1;
    }
    for (uint64_t s = 0; s <= t->mask; s++) {
        if (!t->codes[s])
            continue;
        uint64_t i = slot_of(t->keys[s]) & bigger.mask;
        while (bigger.codes[i])
            i = (i + 1) & bigger.mask;
        bigger.keys[i] = t->keys[s];
        bigger.codes[i] = t->codes[s];
    }
    table_free(t);
    *t = bigger;
    return 0;
}

static PyObject *number64(PyObject *self, PyObject *args) {
    PyObject *keys_obj, *ranges_obj, *codes_obj;
    if (!PyArg_ParseTuple(args, "OOO", &keys_obj, &ranges_obj, &codes_obj))
        return NULL;
    Py_buffer keys, ranges, codes;
    if (PyObject_GetBuffer(keys_obj, &keys, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(ranges_obj, &ranges, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    if (PyObject_GetBuffer(codes_obj, &codes, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&ranges);
        return NULL;
    }
    Py_ssize_t n = keys.len / 8, nr = ranges.len / 16;
    PyObject *result = NULL;
    int64_t *first = NULL;
    if (keys.itemsize != 8 || ranges.itemsize != 8 || codes.itemsize != 4 || codes.len != n * 4) {
        PyErr_SetString(PyExc_ValueError,
                        "keys uint64 (n,), ranges int64 (B, 2), codes int32 (n,)");
        goto done;
    }
    const int64_t *rg = (const int64_t *)ranges.buf;
    int64_t covered = 0;
    for (Py_ssize_t b = 0; b < nr; b++) {
        if (rg[2 * b] < 0 || rg[2 * b + 1] < rg[2 * b] || rg[2 * b + 1] > n) {
            PyErr_SetString(PyExc_ValueError, "a row range lies outside the keys");
            goto done;
        }
        covered += rg[2 * b + 1] - rg[2 * b];
    }
    if (covered != n) {
        PyErr_SetString(PyExc_ValueError, "the row ranges must cover every key once");
        goto done;
    }
    const uint64_t *k = (const uint64_t *)keys.buf;
    int32_t *out = (int32_t *)codes.buf;
    Table t;
    int64_t distinct = 0, capacity = 1 << 16;
    int failed = 0;
    first = (int64_t *)malloc((size_t)capacity * sizeof(int64_t));
    if (!first || table_init(&t, 1 << 17) < 0) {
        free(first);
        first = NULL;
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t b = 0; b < nr && !failed; b++) {
        for (int64_t row = rg[2 * b]; row < rg[2 * b + 1]; row++) {
            uint64_t key = k[row];
            uint64_t i = slot_of(key) & t.mask;
            int32_t c;
            while ((c = t.codes[i]) && t.keys[i] != key)
                i = (i + 1) & t.mask;
            if (!c) {
                if (distinct >= INT32_MAX - 1) {
                    failed = 1;
                    break;
                }
                if (distinct == capacity) {
                    int64_t *grown =
                        (int64_t *)realloc(first, (size_t)capacity * 2 * sizeof(int64_t));
                    if (!grown) {
                        failed = 1;
                        break;
                    }
                    first = grown;
                    capacity *= 2;
                }
                first[distinct] = row;
                c = (int32_t)(++distinct);
                t.keys[i] = key;
                t.codes[i] = c;
                if ((uint64_t)distinct * 2 > t.mask && table_grow(&t) < 0) {
                    failed = 1;
                    break;
                }
            }
            out[row] = c - 1;
        }
    }
    Py_END_ALLOW_THREADS table_free(&t);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result =
        PyBytes_FromStringAndSize((const char *)first, (Py_ssize_t)(distinct * sizeof(int64_t)));
done:
    free(first);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&ranges);
    PyBuffer_Release(&codes);
    return result;
}

static PyObject *sort_strings(PyObject *self, PyObject *args) {
    PyObject *off_obj, *data_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO", &off_obj, &data_obj, &out_obj))
        return NULL;
    Strings str;
    Py_buffer out;
    if (get_strings(off_obj, data_obj, &str) < 0)
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        release_strings(&str);
        return NULL;
    }
    Py_ssize_t n = str.n;
    PyObject *result = NULL;
    Str *items = NULL;
    if (out.itemsize != 8 || out.len != n * 8)
        PyErr_SetString(PyExc_ValueError, "out must hold one int64 per string");
    else if (!(items = (Str *)malloc((size_t)(n > 0 ? n : 1) * sizeof(Str))))
        PyErr_NoMemory();
    else {
        const unsigned char *base = (const unsigned char *)str.data.buf;
        int64_t *order = (int64_t *)out.buf;
        int has_nul =
            n > 0 && memchr(base + offset_at(&str.off, 0), 0,
                            (size_t)(offset_at(&str.off, n) - offset_at(&str.off, 0))) != NULL;
        Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < n; i++) {
            int64_t a = offset_at(&str.off, i);
            items[i].ptr = base + a;
            items[i].len = offset_at(&str.off, i + 1) - a;
            items[i].index = i;
        }
        sort_strs(items, n, has_nul);
        for (Py_ssize_t i = 0; i < n; i++)
            order[i] = items[i].index;
        Py_END_ALLOW_THREADS result = Py_None;
        Py_INCREF(result);
    }
    free(items);
    release_strings(&str);
    PyBuffer_Release(&out);
    return result;
}

/* ---- short_keys: big-endian zero-padded words of strings of <= 8 bytes ---- */

static PyObject *short_keys(PyObject *self, PyObject *args) {
    Strings str;
    Py_buffer out;
    if (get_strings_and_words(args, &str, &out) < 0)
        return NULL;
    const unsigned char *base = (const unsigned char *)str.data.buf;
    uint64_t *keys = (uint64_t *)out.buf;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < str.n && ok; i++) {
        int64_t a = offset_at(&str.off, i), n = offset_at(&str.off, i + 1) - a;
        uint64_t w = 0;
        if (n > 8)
            ok = 0;
        for (int64_t k = 0; k < 8 && ok; k++) {
            unsigned char c = k < n ? base[a + k] : 0;
            if (k < n && c == 0)
                ok = 0;
            w = (w << 8) | c;
        }
        keys[i] = w;
    }
    Py_END_ALLOW_THREADS release_strings(&str);
    PyBuffer_Release(&out);
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"hash64", hash64, METH_VARARGS,
     "hash64(offsets, data, out): out[i] = 64-bit hash of string i (GIL released)."},
    {"first_mismatch", first_mismatch, METH_VARARGS,
     "first_mismatch(offsets, data, ref_offsets, ref_data, index): first i whose string\n"
     "differs from reference string index[i], or -1 (GIL released)."},
    {"number64", number64, METH_VARARGS,
     "number64(keys, ranges, codes) -> bytes: codes[i] = dense code of keys[i], numbered in\n"
     "order of first occurrence over the row ranges (B, 2); returns the first row of every\n"
     "code as int64 bytes (GIL released)."},
    {"short_keys", short_keys, METH_VARARGS,
     "short_keys(offsets, data, out) -> bool: out[i] = the bytes of string i as a big-endian\n"
     "word, zero-padded; False if a string is longer than 8 bytes or holds a NUL (GIL\n"
     "released)."},
    {"sort_strings", sort_strings, METH_VARARGS,
     "sort_strings(offsets, data, out): out = indices of the strings in byte order,\n"
     "ties by index (GIL released)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "strings", NULL, -1, methods};

PyMODINIT_FUNC PyInit_strings(void) {
    return PyModule_Create(&module);
}
