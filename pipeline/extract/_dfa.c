/* py3langid's feature extraction, compiled: the byte DFA walk of
 * py3langid.langid.visit_counts (a Python loop over every byte of the sample, the bulk
 * of the detector's time). Same walk, same result: {feature: count} in the order the
 * features are first reached (the order _sparse_score sums them in); None if none.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

/* The walk proper. The DFA is an Aho-Corasick automaton over byte n-grams: its state after
 * any input depends only on the last `depth` bytes (depth = the deepest state's distance from
 * the start, `max_depth`). So the text is cut into CHAINS segments walked side by side, each
 * from `depth` bytes before its segment (features counted only inside it): the table lookups
 * of one chain no longer wait for the previous lookup of the same chain, and the cache misses
 * of the 39 MB table overlap. 8 chains against 4, three alternating pairs on the benchmark's
 * 181 samples: 29-33 µs a sample against 35-39 with the table in cache, 229-259 against
 * 265-276 with it evicted; 16 left most samples too short to split. The features, in text
 * order, go to `found`; returns how many, or -1 (a ValueError is set) when the tables do not
 * fit together. */
#define CHAINS 8
static Py_ssize_t walk(const uint32_t *next, Py_ssize_t n_next, const uint16_t *rows,
                       Py_ssize_t n_rows, const int32_t *feature_of, Py_ssize_t n_out,
                       const unsigned char *s, Py_ssize_t len, Py_ssize_t depth, int32_t *found) {
    /* as many chains as give each a segment of at least 4 x (depth + 1) bytes, so that the
     * warm-ups (depth bytes each) stay a small part of the walk; a sample of 300 characters
     * gets all 8 */
    Py_ssize_t chains = depth >= 0 ? len / (4 * (depth + 1)) : 1;
    if (chains > CHAINS) chains = CHAINS;
    if (chains < 1) chains = 1;
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

/* ---- scoring -----------------------------------------------------------------------
 * py3langid scores a sample as log1p(counts) @ table[features] + pc in float32 through
 * numpy (a BLAS gemv whose summation order depends on the kernel the CPU gets), then a
 * softmax at temperature sqrt(bytes). Here the same formula runs in float64, in one fixed
 * order: for each feature in first-seen order, acc[j] += log1p(count) * table[f][j] (a
 * multiply then an add, never fused: the same result on every machine), then + pc[j]. The
 * table stays float16 (the model's own values; 28 MB instead of 57 MB as float32, so half
 * the cache misses per row), each row converted exactly to float64 as it is read. */

#define MAX_WIDTH 1024  /* classes; py3langid's model has 97 */

static inline float half_to_float(uint16_t h) {  /* exact: every half is a float */
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {  /* subnormal half: normalise */
        exp = 113;
        while (!(mant & 0x400)) {
            mant <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void add_row_portable(double *acc, const uint16_t *row, Py_ssize_t width, double w) {
    for (Py_ssize_t j = 0; j < width; j++) acc[j] += w * (double)half_to_float(row[j]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same operations, the halves converted 8 at a time (F16C); per lane exactly the
 * portable loop's multiply and add. */
__attribute__((target("avx,f16c")))
static void add_row_f16c(double *acc, const uint16_t *row, Py_ssize_t width, double w) {
    Py_ssize_t j = 0;
    const __m256d wv = _mm256_set1_pd(w);
    for (; j + 8 <= width; j += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + j)));
        __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
        __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
        _mm256_storeu_pd(acc + j, _mm256_add_pd(_mm256_loadu_pd(acc + j), _mm256_mul_pd(wv, lo)));
        _mm256_storeu_pd(acc + j + 4, _mm256_add_pd(_mm256_loadu_pd(acc + j + 4), _mm256_mul_pd(wv, hi)));
    }
    for (; j < width; j++) acc[j] += w * (double)half_to_float(row[j]);
}
static int have_f16c(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
}
#else
static int have_f16c(void) { return 0; }
#define add_row_f16c add_row_portable
#endif

static int use_f16c = -1;  /* set at import; settable for the tests */

/* The normalised probabilities of the text (py3langid's _decide with norm_probs=True) into
 * probs[width]; aliases: (first, duplicate) column pairs folded as py3langid folds them.
 * Returns 0, or -1 with an exception set. */
static int probabilities_of(PyObject *args, double *probs, Py_ssize_t *width_out) {
    Walked w = {0};
    Py_buffer table = {0}, pc = {0};
    Py_ssize_t depth, width;
    PyObject *aliases;
    int rc = -1;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*ny*O!", &w.nm, &w.row, &w.out, &w.text, &depth,
                          &table, &width, &pc, &PyTuple_Type, &aliases))
        return -1;
    Py_ssize_t seen = walk_and_tally(&w, depth);
    if (seen < 0) goto done;
    if (width <= 0 || width > MAX_WIDTH || table.itemsize != 2 || pc.itemsize != 4 ||
        pc.len != width * 4 || table.len % (width * 2) != 0) {
        PyErr_SetString(PyExc_ValueError, "table: float16 rows of width; pc: width float32");
        goto done;
    }
    Py_ssize_t n_table = table.len / 2 / width;
    const uint16_t *src = table.buf;
    const float *prior = pc.buf;
    for (Py_ssize_t j = 0; j < width; j++) probs[j] = 0.0;
    if (seen > 0) {
        void (*add_row)(double *, const uint16_t *, Py_ssize_t, double) =
            use_f16c ? add_row_f16c : add_row_portable;
        const Py_ssize_t ahead = 8;  /* rows are scattered over the table: fetch ahead */
        for (Py_ssize_t k = 0; k < seen; k++) {
            if (w.features[k] >= n_table) {
                PyErr_SetString(PyExc_ValueError, "a feature outside the table");
                goto done;
            }
        }
        for (Py_ssize_t k = 0; k < seen && k < ahead; k++) {
            const char *p = (const char *)(src + (Py_ssize_t)w.features[k] * width);
            for (Py_ssize_t b = 0; b < width * 2; b += 64) __builtin_prefetch(p + b);
        }
        for (Py_ssize_t k = 0; k < seen; k++) {
            if (k + ahead < seen) {
                const char *p = (const char *)(src + (Py_ssize_t)w.features[k + ahead] * width);
                for (Py_ssize_t b = 0; b < width * 2; b += 64) __builtin_prefetch(p + b);
            }
            add_row(probs, src + (Py_ssize_t)w.features[k] * width, width, log1p((double)w.counts[k]));
        }
        for (Py_ssize_t j = 0; j < width; j++) probs[j] += (double)prior[j];
    }  /* no features: py3langid scores 0.0 everywhere (uniform after the softmax) */
    /* softmax at temperature sqrt(bytes), as py3langid's _decide */
    double t = 1.0 / sqrt((double)(w.text.len ? w.text.len : 1)), top = -INFINITY, sum = 0.0;
    for (Py_ssize_t j = 0; j < width; j++) {
        probs[j] *= t;
        if (probs[j] > top) top = probs[j];
    }
    for (Py_ssize_t j = 0; j < width; j++) {
        probs[j] = exp(probs[j] - top);
        sum += probs[j];
    }
    for (Py_ssize_t j = 0; j < width; j++) probs[j] /= sum;
    for (Py_ssize_t a = 0; a < PyTuple_GET_SIZE(aliases); a++) {
        Py_ssize_t first, dupe;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(aliases, a), "nn", &first, &dupe)) goto done;
        if (first < 0 || dupe < 0 || first >= width || dupe >= width) {
            PyErr_SetString(PyExc_ValueError, "an alias column outside the table");
            goto done;
        }
        probs[first] += probs[dupe];
        probs[dupe] = 0.0;
    }
    *width_out = width;
    rc = 0;
done:
    PyBuffer_Release(&table);
    PyBuffer_Release(&pc);
    walked_release(&w);
    return rc;
}

/* classify(nextmove, row, output, text, depth, table, width, pc, aliases) -> (index, p):
 * the most probable class (the first of equals, as numpy's argmax) and its probability. */
static PyObject *classify(PyObject *self, PyObject *args) {
    double probs[MAX_WIDTH];
    Py_ssize_t width;
    if (probabilities_of(args, probs, &width) < 0) return NULL;
    Py_ssize_t best = 0;
    for (Py_ssize_t j = 1; j < width; j++) {
        if (probs[j] > probs[best]) best = j;
    }
    return Py_BuildValue("(nd)", best, probs[best]);
}

/* probabilities(same arguments) -> list[float]: every class's probability. */
static PyObject *probabilities(PyObject *self, PyObject *args) {
    double probs[MAX_WIDTH];
    Py_ssize_t width;
    if (probabilities_of(args, probs, &width) < 0) return NULL;
    PyObject *out = PyList_New(width);
    for (Py_ssize_t j = 0; out != NULL && j < width; j++) {
        PyObject *value = PyFloat_FromDouble(probs[j]);
        if (value == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, j, value);
    }
    return out;
}

/* added(halves: buffer of float16, f16c: bool) -> list[float]: 0.0 + 1.0 * h for each half,
 * through the chosen row path (how the tests compare the two conversions on every half). */
static PyObject *added(PyObject *self, PyObject *args) {
    Py_buffer halves;
    int f16c;
    if (!PyArg_ParseTuple(args, "y*p", &halves, &f16c)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = halves.len / 2;
    double *acc = PyMem_Calloc(n ? (size_t)n : 1, sizeof(double));
    if (acc == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    (f16c && have_f16c() ? add_row_f16c : add_row_portable)(acc, halves.buf, n, 1.0);
    out = PyList_New(n);
    for (Py_ssize_t j = 0; out != NULL && j < n; j++) {
        PyObject *value = PyFloat_FromDouble(acc[j]);
        if (value == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, j, value);
    }
done:
    PyMem_Free(acc);
    PyBuffer_Release(&halves);
    return out;
}

/* set_f16c(on: bool) -> bool: choose the F16C row conversion (when the CPU has it) or the
 * portable one (tests run both); returns whether F16C is now in use. */
static PyObject *set_f16c(PyObject *self, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    use_f16c = on && have_f16c();
    return PyBool_FromLong(use_f16c);
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
    {"classify", classify, METH_VARARGS,
     "classify(nextmove, row, output, text, depth, table, width, pc, aliases) -> (index, p)"},
    {"probabilities", probabilities, METH_VARARGS,
     "probabilities(nextmove, row, output, text, depth, table, width, pc, aliases) -> list"},
    {"added", added, METH_VARARGS, "added(float16 buffer, f16c) -> [0.0 + 1.0 * h, ...]"},
    {"set_f16c", set_f16c, METH_O, "set_f16c(on) -> whether F16C rows are used"},
    {"max_depth", max_depth, METH_VARARGS, "max_depth(nextmove, row) -> int"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dfa", "py3langid's byte DFA walk, compiled.", -1, methods,
};

PyMODINIT_FUNC PyInit__dfa(void) {
    use_f16c = have_f16c();
    return PyModule_Create(&module);
}
