/*
 * irpref._native.prefs: the inner loop of recall-paired preference (irpref.preferences).
 *
 * Optional: irpref.preferences.engines uses it when this module is importable
 * (and IRPREF_KERNELS is not "numpy"), else its NumPy loop, which gives the
 * same numbers bit for bit. Plain C and the CPython buffer protocol; the loop
 * runs without the GIL.
 *
 * level_sums(pos, a, b, weights, out)
 *     pos (G, R, L) int32: the sorted positions of the relevant items each run
 *     retrieved in each population, INT32_MAX past the last (unretrieved);
 *     a, b (P,) int64 run indices; weights (>= L, V) float64; out (G, P, V)
 *     float64, zeros on entry. For every population g and pair p:
 *         out[g, p, v] = sum over levels i = 0, 1, ... of
 *                        w[i, v] * sgn(pos[g, b_p, i] - pos[g, a_p, i]),
 *     added level by level from i = 0 with the products sign * w, as the NumPy
 *     loop adds each level's signs. Once both runs are past their last item
 *     every later level is a tie (it adds +0.0, which leaves a sum that is never
 *     -0.0 unchanged), so the loop stops there.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static int get(PyObject *o, Py_buffer *view, int writable, const char *fmt, Py_ssize_t items,
               const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, view, flags) < 0) {
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') {
        f++;
    }
    int ok = (f[0] == fmt[0] && f[1] == '\0') ||
             (fmt[0] == 'q' && (f[0] == 'l' && f[1] == '\0' && view->itemsize == 8));
    if (!ok || view->len != items * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of type '%s'", name, items, fmt);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *k_level_sums(PyObject *self, PyObject *args) {
    PyObject *pos_o, *a_o, *b_o, *w_o, *out_o;
    Py_ssize_t g, r, lvl, p, nw, v;
    if (!PyArg_ParseTuple(args, "OOOOOnnnnnn:level_sums", &pos_o, &a_o, &b_o, &w_o, &out_o, &g, &r,
                          &lvl, &p, &nw, &v)) {
        return NULL;
    }
    if (g < 0 || r < 1 || lvl < 0 || p < 0 || v < 1 || nw < lvl) {
        PyErr_SetString(PyExc_ValueError, "level_sums: bad shapes");
        return NULL;
    }
    Py_buffer pos, a, b, w, out;
    if (get(pos_o, &pos, 0, "i", g * r * lvl, "pos") < 0) {
        return NULL;
    }
    if (get(a_o, &a, 0, "q", p, "a") < 0) {
        PyBuffer_Release(&pos);
        return NULL;
    }
    if (get(b_o, &b, 0, "q", p, "b") < 0) {
        PyBuffer_Release(&pos);
        PyBuffer_Release(&a);
        return NULL;
    }
    if (get(w_o, &w, 0, "d", nw * v, "weights") < 0) {
        PyBuffer_Release(&pos);
        PyBuffer_Release(&a);
        PyBuffer_Release(&b);
        return NULL;
    }
    if (get(out_o, &out, 1, "d", g * p * v, "out") < 0) {
        PyBuffer_Release(&pos);
        PyBuffer_Release(&a);
        PyBuffer_Release(&b);
        PyBuffer_Release(&w);
        return NULL;
    }
    const int32_t *ps = (const int32_t *)pos.buf;
    const int64_t *as = (const int64_t *)a.buf, *bs = (const int64_t *)b.buf;
    const double *ws = (const double *)w.buf;
    double *os = (double *)out.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t k = 0; k < p && !bad; k++) {
        if (as[k] < 0 || as[k] >= r || bs[k] < 0 || bs[k] >= r) {
            bad = 1;
        }
    }
    for (Py_ssize_t gi = 0; gi < g && !bad; gi++) {
        const int32_t *base = ps + gi * r * lvl;
        for (Py_ssize_t k = 0; k < p; k++) {
            const int32_t *fa = base + as[k] * lvl, *fb = base + bs[k] * lvl;
            double *o = os + (gi * p + k) * v;
            if (v == 1) { /* the common case: one weighting, a branch-free loop */
                double acc = 0.;
                for (Py_ssize_t i = 0; i < lvl; i++) {
                    int32_t x = fa[i], y = fb[i];
                    if ((x & y) == INT32_MAX) { /* both past their last item */
                        break;
                    }
                    acc += (double)((y > x) - (y < x)) * ws[i];
                }
                o[0] = acc;
                continue;
            }
            for (Py_ssize_t i = 0; i < lvl; i++) {
                int32_t x = fa[i], y = fb[i];
                if ((x & y) == INT32_MAX) {
                    break;
                }
                double sign = (double)((y > x) - (y < x));
                const double *wi = ws + i * v;
                for (Py_ssize_t j = 0; j < v; j++) {
                    o[j] += sign * wi[j];
                }
            }
        }
    }
    Py_END_ALLOW_THREADS PyBuffer_Release(&pos);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    if (bad) {
        PyErr_SetString(PyExc_IndexError, "level_sums: run index out of range");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"level_sums", k_level_sums, METH_VARARGS,
     "level_sums(pos, a, b, weights, out, G, R, L, P, n_weights, V): RPP's weighted sums "
     "of signs, level by level."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "prefs",
    "C inner loop of irpref's recall-paired preference (optional; see irpref.preferences).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit_prefs(void) {
    return PyModule_Create(&module);
}
