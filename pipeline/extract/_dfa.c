/* py3langid's feature extraction, compiled: the byte DFA walk of
 * py3langid.langid.visit_counts (a Python loop over every byte of the sample, the bulk
 * of the detector's time). Same walk, same result: {feature: count} in the order the
 * features are first reached (the order _sparse_score sums them in); None if none.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* visit_counts(nextmove: buffer of uint32, row: buffer of uint16, output: buffer of
 * int32, text: bytes) -> dict | None */
static PyObject *visit_counts(PyObject *self, PyObject *args) {
    Py_buffer nm, row, out, text;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &nm, &row, &out, &text)) return NULL;
    PyObject *result = NULL;
    int32_t *features = NULL;
    Py_ssize_t *counts = NULL, *slots = NULL;
    if (nm.itemsize != 4 || row.itemsize != 2 || out.itemsize != 4) {
        PyErr_SetString(PyExc_TypeError, "nextmove: uint32, row: uint16, output: int32 buffers");
        goto done;
    }
    const uint32_t *next = nm.buf;
    const uint16_t *rows = row.buf;
    const int32_t *feature_of = out.buf;
    Py_ssize_t n_next = nm.len / 4, n_rows = row.len / 2, n_out = out.len / 4;
    const unsigned char *s = text.buf;
    /* At most one new feature per byte: first-seen order in `features`, counts beside,
     * an open-addressing index (slot -> position + 1) to find them. */
    size_t size = 16;
    while (size < (size_t)text.len * 2 + 2) size *= 2;
    features = PyMem_Malloc(sizeof(int32_t) * (text.len + 1));
    counts = PyMem_Malloc(sizeof(Py_ssize_t) * (text.len + 1));
    slots = PyMem_Calloc(size, sizeof(Py_ssize_t));
    if (features == NULL || counts == NULL || slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t seen = 0;
    uint32_t state = 0;
    for (Py_ssize_t i = 0; i < text.len; i++) {
        Py_ssize_t at = ((Py_ssize_t)rows[state] << 8) + s[i];
        if (at >= n_next || next[at] >= (uint32_t)n_out || next[at] >= (uint32_t)n_rows) {
            PyErr_SetString(PyExc_ValueError, "the DFA tables do not fit together");
            goto done;
        }
        state = next[at];
        int32_t f = feature_of[state];
        if (f < 0) continue;
        size_t h = ((uint32_t)f * 2654435761u) & (size - 1);
        while (slots[h] && features[slots[h] - 1] != f) h = (h + 1) & (size - 1);
        if (slots[h]) {
            counts[slots[h] - 1]++;
        } else {
            features[seen] = f;
            counts[seen] = 1;
            slots[h] = ++seen;
        }
    }
    if (seen == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = PyDict_New();
    for (Py_ssize_t k = 0; result != NULL && k < seen; k++) {
        PyObject *key = PyLong_FromLong(features[k]), *value = PyLong_FromSsize_t(counts[k]);
        if (key == NULL || value == NULL || PyDict_SetItem(result, key, value) < 0) Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
done:
    PyMem_Free(features);
    PyMem_Free(counts);
    PyMem_Free(slots);
    PyBuffer_Release(&nm);
    PyBuffer_Release(&row);
    PyBuffer_Release(&out);
    PyBuffer_Release(&text);
    return result;
}

static PyMethodDef methods[] = {
    {"visit_counts", visit_counts, METH_VARARGS,
     "visit_counts(nextmove, row, output, text) -> {feature: count} | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dfa", "py3langid's byte DFA walk, compiled.", -1, methods,
};

PyMODINIT_FUNC PyInit__dfa(void) { return PyModule_Create(&module); }
