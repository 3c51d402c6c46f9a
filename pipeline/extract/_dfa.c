/* py3langid's feature extraction, compiled: the byte DFA walk of
 * py3langid.langid.visit_counts (a Python loop over every byte of the sample, the bulk
 * of the detector's time). Same walk, same result: {feature: count} in the order the
 * features are first reached (the order _sparse_score sums them in); None if none.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The walk proper. The DFA is an Aho-Corasick automaton over byte n-grams: its state after
 * any input depends only on the last `depth` bytes (depth = the deepest state's distance from
 * the start, `max_depth`). So the text is cut into CHAINS segments walked side by side, each
 * from `depth` bytes before its segment (features counted only inside it): the table lookups
 * of one chain no longer wait for the previous lookup of the same chain, and the cache misses
 * of the 39 MB table overlap. The features, in text order, go to `found`; returns how many, or
 * -1 (a ValueError is set) when the tables do not fit together. */
#define CHAINS 4
static Py_ssize_t walk(const uint32_t *next, Py_ssize_t n_next, const uint16_t *rows,
                       Py_ssize_t n_rows, const int32_t *feature_of, Py_ssize_t n_out,
                       const unsigned char *s, Py_ssize_t len, Py_ssize_t depth, int32_t *found) {
    Py_ssize_t chains = (depth >= 0 && len >= 4 * (depth + 1) * CHAINS) ? CHAINS : 1;
    Py_ssize_t pos[CHAINS], begin[CHAINS], end[CHAINS], fill[CHAINS];
    uint32_t state[CHAINS];
    for (Py_ssize_t c = 0; c < chains; c++) {
        begin[c] = len * c / chains;
        end[c] = len * (c + 1) / chains;
        pos[c] = c == 0 ? 0 : begin[c] - depth;  /* the warm-up: the state is exact at begin */
        fill[c] = begin[c];  /* a chain's features go at its segment's offset in `found` */
        state[c] = 0;
    }
    Py_ssize_t active = chains;
    while (active) {
        active = 0;
        for (Py_ssize_t c = 0; c < chains; c++) {
            if (pos[c] >= end[c]) continue;
            active++;
            Py_ssize_t at = ((Py_ssize_t)rows[state[c]] << 8) + s[pos[c]];
            if (at >= n_next || next[at] >= (uint32_t)n_out || next[at] >= (uint32_t)n_rows) {
                PyErr_SetString(PyExc_ValueError, "the DFA tables do not fit together");
                return -1;
            }
            state[c] = next[at];
            int32_t f = feature_of[state[c]];
            if (f >= 0 && pos[c] >= begin[c]) found[fill[c]++] = f;
            pos[c]++;
        }
    }
    /* close the gaps between the segments' features */
    Py_ssize_t total = fill[0];
    for (Py_ssize_t c = 1; c < chains; c++) {
        memmove(found + total, found + begin[c], sizeof(int32_t) * (fill[c] - begin[c]));
        total += fill[c] - begin[c];
    }
    return total;
}

/* Counts of the `n` features in `found`, in first-seen order: features[k] was seen counts[k]
 * times; returns how many distinct (or -1 with MemoryError). */
static Py_ssize_t tally(const int32_t *found, Py_ssize_t n, int32_t *features, Py_ssize_t *counts) {
    size_t size = 16;
    while (size < (size_t)n * 2 + 2) size *= 2;
    Py_ssize_t *slots = PyMem_Calloc(size, sizeof(Py_ssize_t));  /* slot -> position + 1 */
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t seen = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t f = found[i];
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
    PyMem_Free(slots);
    return seen;
}

typedef struct {
    Py_buffer nm, row, out, text;
    int32_t *found, *features;
    Py_ssize_t *counts;
} Walked;

static void walked_release(Walked *w) {
    PyMem_Free(w->found);
    PyMem_Free(w->features);
    PyMem_Free(w->counts);
    PyBuffer_Release(&w->nm);
    PyBuffer_Release(&w->row);
    PyBuffer_Release(&w->out);
    PyBuffer_Release(&w->text);
}

/* Walk and tally; returns the number of distinct features or -1 with an exception set. */
static Py_ssize_t walk_and_tally(Walked *w, Py_ssize_t depth) {
    if (w->nm.itemsize != 4 || w->row.itemsize != 2 || w->out.itemsize != 4) {
        PyErr_SetString(PyExc_TypeError, "nextmove: uint32, row: uint16, output: int32 buffers");
        return -1;
    }
    Py_ssize_t len = w->text.len;
    w->found = PyMem_Malloc(sizeof(int32_t) * (len + 1));
    w->features = PyMem_Malloc(sizeof(int32_t) * (len + 1));
    w->counts = PyMem_Malloc(sizeof(Py_ssize_t) * (len + 1));
    if (w->found == NULL || w->features == NULL || w->counts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t n = walk(w->nm.buf, w->nm.len / 4, w->row.buf, w->row.len / 2, w->out.buf,
                        w->out.len / 4, w->text.buf, len, depth, w->found);
    return n < 0 ? -1 : tally(w->found, n, w->features, w->counts);
}

/* visit_counts(nextmove: buffer of uint32, row: buffer of uint16, output: buffer of
 * int32, text: bytes, depth: int = -1) -> dict | None. depth < 0: one chain. */
static PyObject *visit_counts(PyObject *self, PyObject *args) {
    Walked w = {0};
    Py_ssize_t depth = -1;
    if (!PyArg_ParseTuple(args, "y*y*y*y*|n", &w.nm, &w.row, &w.out, &w.text, &depth)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t seen = walk_and_tally(&w, depth);
    if (seen == 0) result = Py_NewRef(Py_None);
    if (seen > 0) result = PyDict_New();
    for (Py_ssize_t k = 0; result != NULL && k < seen; k++) {
        PyObject *key = PyLong_FromLong(w.features[k]), *value = PyLong_FromSsize_t(w.counts[k]);
        if (key == NULL || value == NULL || PyDict_SetItem(result, key, value) < 0) Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
    walked_release(&w);
    return result;
}

/* gathered(nextmove, row, output, text, depth, table: buffer of float32 rows of `width`,
 * width, rows_out: writable float32 buffer, counts_out: writable float32 buffer) -> int.
 * What _sparse_score builds from visit_counts' dict, without the dict: the features' counts
 * (as float32, first-seen order) in counts_out and their table rows, in the same order, in
 * rows_out (as table[idx] would, the rows prefetched ahead: they are scattered over a 57 MB
 * table and mostly not in cache). Returns the number of features; the buffers must hold one
 * per byte of text. */
static PyObject *gathered(PyObject *self, PyObject *args) {
    Walked w = {0};
    Py_buffer table = {0}, rows_out = {0}, counts_out = {0};
    Py_ssize_t depth, width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*nw*w*", &w.nm, &w.row, &w.out, &w.text, &depth,
                          &table, &width, &rows_out, &counts_out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t seen = walk_and_tally(&w, depth);
    if (seen < 0) goto done;
    Py_ssize_t n_table = width > 0 ? table.len / 4 / width : 0;
    if (width <= 0 || rows_out.len < seen * width * 4 || counts_out.len < seen * 4) {
        PyErr_SetString(PyExc_ValueError, "output buffers too small");
        goto done;
    }
    const float *src = table.buf;
    float *dst = rows_out.buf, *cnt = counts_out.buf;
    const Py_ssize_t ahead = 8;
    for (Py_ssize_t k = 0; k < seen && k < ahead; k++) {
        if (w.features[k] < n_table) __builtin_prefetch(src + (Py_ssize_t)w.features[k] * width);
    }
    for (Py_ssize_t k = 0; k < seen; k++) {
        if (k + ahead < seen && w.features[k + ahead] < n_table) {
            const char *p = (const char *)(src + (Py_ssize_t)w.features[k + ahead] * width);
            for (Py_ssize_t b = 0; b < width * 4; b += 64) __builtin_prefetch(p + b);
        }
        if (w.features[k] >= n_table) {
            PyErr_SetString(PyExc_ValueError, "a feature outside the table");
            goto done;
        }
        memcpy(dst + k * width, src + (Py_ssize_t)w.features[k] * width, sizeof(float) * width);
        cnt[k] = (float)w.counts[k];
    }
    result = PyLong_FromSsize_t(seen);
done:
    PyBuffer_Release(&table);
    PyBuffer_Release(&rows_out);
    PyBuffer_Release(&counts_out);
    walked_release(&w);
    return result;
}

/* max_depth(nextmove, row) -> int: the largest distance of a state from the start state
 * (breadth-first over every byte), i.e. the longest n-gram the automaton tracks. */
static PyObject *max_depth(PyObject *self, PyObject *args) {
    Py_buffer nm, row;
    if (!PyArg_ParseTuple(args, "y*y*", &nm, &row)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n_states = row.len / 2, n_next = nm.len / 4;
    int32_t *depth = NULL, *queue = NULL;
    if (nm.itemsize != 4 || row.itemsize != 2 || n_states == 0) {
        PyErr_SetString(PyExc_TypeError, "nextmove: uint32, row: uint16 buffers");
        goto done;
    }
    const uint32_t *next = nm.buf;
    const uint16_t *rows = row.buf;
    depth = PyMem_Malloc(sizeof(int32_t) * n_states);
    queue = PyMem_Malloc(sizeof(int32_t) * n_states);
    if (depth == NULL || queue == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_states; i++) depth[i] = -1;
    Py_ssize_t head = 0, tail = 0;
    int32_t deepest = 0;
    depth[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int32_t st = queue[head++];
        Py_ssize_t base = (Py_ssize_t)rows[st] << 8;
        for (int b = 0; b < 256; b++) {
            if (base + b >= n_next || next[base + b] >= (uint32_t)n_states) {
                PyErr_SetString(PyExc_ValueError, "the DFA tables do not fit together");
                goto done;
            }
            uint32_t to = next[base + b];
            if (depth[to] < 0) {
                depth[to] = depth[st] + 1;
                if (depth[to] > deepest) deepest = depth[to];
                queue[tail++] = (int32_t)to;
            }
        }
    }
    result = PyLong_FromLong(deepest);
done:
    PyMem_Free(depth);
    PyMem_Free(queue);
    PyBuffer_Release(&nm);
    PyBuffer_Release(&row);
    return result;
}

static PyMethodDef methods[] = {
    {"visit_counts", visit_counts, METH_VARARGS,
     "visit_counts(nextmove, row, output, text, depth=-1) -> {feature: count} | None"},
    {"gathered", gathered, METH_VARARGS,
     "gathered(nextmove, row, output, text, depth, table, width, rows_out, counts_out) -> n"},
    {"max_depth", max_depth, METH_VARARGS, "max_depth(nextmove, row) -> int"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dfa", "py3langid's byte DFA walk, compiled.", -1, methods,
};

PyMODINIT_FUNC PyInit__dfa(void) { return PyModule_Create(&module); }
