/* py3langid's feature extraction, compiled: the byte DFA walk of
 * py3langid.langid.visit_counts (a Python loop over every byte of the sample, the bulk
 * of the detector's time), over the same DFA in its compact form. Same walk, same result:
 * {feature: count} in the order the features are first reached (the order _sparse_score
 * sums them in); None if none.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

/* The walk proper, over the Aho-Corasick form of py3langid's DFA (lang_automaton.py): a
 * state's next state on a byte is one of its exceptions, else its failure state's next
 * state on that byte, down to a state that keeps its full row (the start state, and the
 * shallow states with many exceptions). Failure states are numbered lower than their
 * states, so the descent ends; every index is checked as it is read. The automaton is
 * 2.9 MB, where the full table is 39 MB: on a cold cache the full table's lookups missed
 * the TLB on nearly every byte (181 samples after a 64 MB sweep of the cache: 75-90 µs a
 * sample against 170-240).
 *
 * The state after any input depends only on the last `depth` bytes (depth = the longest
 * n-gram). So the text is cut into CHAINS segments walked side by side, each from `depth`
 * bytes before its segment (features counted only inside it): one chain's lookups no longer
 * wait for the previous lookup of the same chain, and their cache misses overlap (16
 * chains left most samples too short to split). The features, in text order, go to
 * `found`; returns how many, or -1 (a ValueError is set) when the automaton is malformed.
 * Every argument of the module's functions is checked before use: buffers by item size and
 * alignment, depth by range, every index read from the automaton against its bounds
 * (tests/unit/test_native_arguments.py). */
#define CHAINS 8
#define STATE_COLUMNS 4  /* feature, fail, block, count (lang_automaton.Automaton.states) */

typedef struct {
    const int32_t *states;
    Py_ssize_t n_states;
    const unsigned char *blocks;
    Py_ssize_t n_blocks;
} automaton_t;

/* The next state from `s` on byte `b`, or -1 when the automaton is malformed. */
static inline int32_t next_state(const automaton_t *a, int32_t s, unsigned char b) {
    for (;;) {
        const int32_t *r = a->states + (Py_ssize_t)s * STATE_COLUMNS;
        int32_t fail = r[1], count = r[3], to;
        Py_ssize_t at = r[2];
        if (count < 0) {  /* a full row */
            if (count != -1 || at < 0 || at + 1024 > a->n_blocks) return -1;
            memcpy(&to, a->blocks + at + 4 * (Py_ssize_t)b, sizeof to);
            return to >= 0 && to < a->n_states ? to : -1;
        }
        if (at < 0 || at + 5 * (Py_ssize_t)count > a->n_blocks) return -1;
        const unsigned char *bytes = a->blocks + at;
        for (int32_t k = 0; k < count && bytes[k] <= b; k++) {  /* ascending bytes */
            if (bytes[k] == b) {
                memcpy(&to, bytes + count + 4 * (Py_ssize_t)k, sizeof to);
                return to >= 0 && to < a->n_states ? to : -1;
            }
        }
        if (fail < 0 || fail >= s) return -1;
        s = fail;
    }
}

static Py_ssize_t walk(const automaton_t *a, const unsigned char *s, Py_ssize_t len,
                       Py_ssize_t depth, int32_t *found) {
    /* as many chains as give each a segment of at least 4 x (depth + 1) bytes, so that the
     * warm-ups (depth bytes each) stay a small part of the walk; a sample of 300 characters
     * gets all 8 */
    Py_ssize_t chains = depth >= 0 ? len / (4 * (depth + 1)) : 1;
    if (chains > CHAINS) chains = CHAINS;
    if (chains < 1) chains = 1;
    Py_ssize_t pos[CHAINS], begin[CHAINS], end[CHAINS], fill[CHAINS];
    int32_t state[CHAINS];
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
            int32_t next = next_state(a, state[c], s[pos[c]]);
            if (next < 0) {
                PyErr_SetString(PyExc_ValueError, "the language automaton is malformed");
                return -1;
            }
            state[c] = next;
            int32_t f = a->states[(Py_ssize_t)next * STATE_COLUMNS];
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
    Py_buffer states, blocks, text;
    int32_t *found, *features;
    Py_ssize_t *counts;
} Walked;

static void walked_release(Walked *w) {
    PyMem_Free(w->found);
    PyMem_Free(w->features);
    PyMem_Free(w->counts);
    PyBuffer_Release(&w->states);
    PyBuffer_Release(&w->blocks);
    PyBuffer_Release(&w->text);
}

/* Whether buffer b holds items of `size` bytes (typed so, or raw bytes when raw_ok), each
 * aligned to it: the walks read them as int32_t, uint16_t or float; 0, or -1 with an
 * exception set naming `what`. */
static int check_items(const Py_buffer *b, Py_ssize_t size, int raw_ok, const char *what) {
    if ((b->itemsize != size && !(raw_ok && b->itemsize == 1)) || b->len % size != 0) {
        PyErr_Format(PyExc_TypeError, "%s: a buffer of %zd-byte items", what, size);
        return -1;
    }
    if ((uintptr_t)b->buf % (uintptr_t)size != 0) {
        PyErr_Format(PyExc_ValueError, "%s: not aligned to its %zd-byte items", what, size);
        return -1;
    }
    return 0;
}

/* The longest n-gram a walk may be given: a chain's warm-up starts `depth` bytes before its
 * segment, so a depth past this (py3langid's is 4) is refused before any index is made
 * from it (a depth near PY_SSIZE_T_MAX overflowed 4 * (depth + 1)). */
#define MAX_DEPTH 1024

static int check_depth(Py_ssize_t depth) {
    if (depth < -1 || depth > MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "depth must be -1 (one chain) or 0-%d, got %zd", MAX_DEPTH, depth);
        return -1;
    }
    return 0;
}

/* The automaton held by w's states and blocks buffers; 0, or -1 with TypeError when the
 * states are not int32 rows of STATE_COLUMNS. */
static int automaton_of(const Walked *w, automaton_t *a) {
    if (check_items(&w->states, 4, 0, "states") < 0) return -1;
    if (w->states.len % (4 * STATE_COLUMNS) != 0 || w->states.len == 0) {
        PyErr_SetString(PyExc_TypeError, "states: int32 rows of 4");
        return -1;
    }
    *a = (automaton_t){w->states.buf, w->states.len / (4 * STATE_COLUMNS), w->blocks.buf, w->blocks.len};
    return 0;
}

/* Walk and tally; returns the number of distinct features or -1 with an exception set. */
static Py_ssize_t walk_and_tally(Walked *w, Py_ssize_t depth) {
    automaton_t a;
    if (check_depth(depth) < 0 || automaton_of(w, &a) < 0) return -1;
    if (w->text.len > (PY_SSIZE_T_MAX - 1) / (Py_ssize_t)sizeof(Py_ssize_t)) {
        PyErr_NoMemory();
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
    Py_ssize_t n = walk(&a, w->text.buf, len, depth, w->found);
    return n < 0 ? -1 : tally(w->found, n, w->features, w->counts);
}

/* visit_counts(states, blocks, text: bytes, depth: int = -1) -> dict | None: the
 * automaton's buffers (lang_automaton.Automaton). depth < 0: one chain. */
static PyObject *visit_counts(PyObject *self, PyObject *args) {
    Walked w = {0};
    Py_ssize_t depth = -1;
    if (!PyArg_ParseTuple(args, "y*y*y*|n", &w.states, &w.blocks, &w.text, &depth))
        return NULL;
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
    if (!PyArg_ParseTuple(args, "y*y*y*ny*ny*O!", &w.states, &w.blocks, &w.text, &depth,
                          &table, &width, &pc, &PyTuple_Type, &aliases))
        return -1;
    Py_ssize_t seen = walk_and_tally(&w, depth);
    if (seen < 0) goto done;
    if (check_items(&table, 2, 0, "table") < 0 || check_items(&pc, 4, 0, "pc") < 0) goto done;
    if (width <= 0 || width > MAX_WIDTH || pc.len != width * 4 || table.len % (width * 2) != 0) {
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

/* classify(states, blocks, text, depth, table, width, pc, aliases) -> (index, p):
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
    double *acc = NULL;
    if (check_items(&halves, 2, 1, "halves") < 0) goto done;
    Py_ssize_t n = halves.len / 2;
    acc = PyMem_Calloc(n ? (size_t)n : 1, sizeof(double));
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

/* next_states(states, blocks, from: buffer of int32, on: bytes) -> bytes of int32: the
 * next state from each from[i] on byte on[i] (how the tests compare every transition of the
 * automaton with the full table's). ValueError on a state outside the automaton. */
static PyObject *next_states(PyObject *self, PyObject *args) {
    Walked w = {0};
    Py_buffer from = {0};
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &w.states, &w.blocks, &from, &w.text))
        return NULL;
    automaton_t a;
    if (automaton_of(&w, &a) < 0 || check_items(&from, 4, 0, "from") < 0) goto done;
    if (from.len / 4 != w.text.len) {
        PyErr_SetString(PyExc_TypeError, "from: int32 per byte");
        goto done;
    }
    if ((out = PyBytes_FromStringAndSize(NULL, w.text.len * 4)) == NULL) goto done;
    int32_t *to = (int32_t *)PyBytes_AS_STRING(out);
    const int32_t *start = from.buf;
    const unsigned char *bytes = w.text.buf;
    for (Py_ssize_t i = 0; i < w.text.len; i++) {
        if (start[i] < 0 || start[i] >= a.n_states || (to[i] = next_state(&a, start[i], bytes[i])) < 0) {
            PyErr_SetString(PyExc_ValueError, "a state outside the automaton, or a malformed one");
            Py_CLEAR(out);
            break;
        }
    }
done:
    PyBuffer_Release(&from);
    walked_release(&w);
    return out;
}

static PyMethodDef methods[] = {
    {"visit_counts", visit_counts, METH_VARARGS,
     "visit_counts(states, blocks, text, depth=-1) -> {feature: count} | None"},
    {"classify", classify, METH_VARARGS,
     "classify(states, blocks, text, depth, table, width, pc, aliases) -> (index, p)"},
    {"probabilities", probabilities, METH_VARARGS,
     "probabilities(states, blocks, text, depth, table, width, pc, aliases) -> list"},
    {"next_states", next_states, METH_VARARGS,
     "next_states(states, blocks, from, on) -> int32 next state per (state, byte)"},
    {"added", added, METH_VARARGS, "added(float16 buffer, f16c) -> [0.0 + 1.0 * h, ...]"},
    {"set_f16c", set_f16c, METH_O, "set_f16c(on) -> whether F16C rows are used"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dfa", "py3langid's byte DFA walk, compiled.", -1, methods,
};

PyMODINIT_FUNC PyInit__dfa(void) {
    use_f16c = have_f16c();
    return PyModule_Create(&module);
}
