/* One pass over a text sample for mojibake_score (pipeline/encoding/mojibake.py): every
 * count its character-class tests need, read from the str's own storage (1, 2 or 4 bytes a
 * char) through the two per-code-point flag tables built from the classes' regexes
 * (tests/oracles/mojibake.py, the oracle: numpy over the tables, plus the regexes;
 * tests/unit/test_mojibake.py checks every count against it on generated text).
 *
 * scan(sample, base, rare) -> (non_ascii, cjk, jamo, hangul, kana, soup_len, han_space,
 *                               rare, simplified, clusters)
 *   base, rare: 65536-byte tables (the classes are BMP-only: other code points have no flag)
 *   soup_len: chars in runs of 3+ soup letters holding 2+ distinct letters (_SOUP_RE rule)
 *   han_space: Han, space, Han triples (no two overlap: see the oracle's cjk_share)
 *   clusters: [(start, end)] as _TRIGGER_CLUSTER_RE.finditer gives them: a trigger, then
 *             every next trigger at most 10 non-trigger chars away
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the bits of the base table: mojibake._F_* */
enum { F_CJK = 1, F_JAMO = 2, F_HAN = 4, F_KANA = 8, F_HANGUL = 16, F_TRIGGER = 32, F_SOUP = 64 };
enum { F_RARE = 1, F_SIMPLIFIED = 2 };
#define CLUSTER_GAP 10 /* _TRIGGER_CLUSTER_RE's [^T]{0,10} */

typedef struct {
    Py_ssize_t non_ascii, cjk, jamo, hangul, kana, soup_len, han_space, rare, simplified;
} Counts;

/* Close the open trigger cluster [*start, end) into the list. */
static int emit_cluster(PyObject *clusters, Py_ssize_t start, Py_ssize_t end) {
    PyObject *span = Py_BuildValue("(nn)", start, end);
    if (span == NULL) return -1;
    int rc = PyList_Append(clusters, span);
    Py_DECREF(span);
    return rc;
}

/* The pass, once per storage width (PyUnicode's 1, 2 and 4 bytes a char). */
#define SCAN_BODY(CHAR_T)                                                                \
    {                                                                                    \
        const CHAR_T *s = (const CHAR_T *)data;                                          \
        for (Py_ssize_t i = 0; i < n; i++) {                                             \
            const Py_UCS4 c = s[i];                                                      \
            unsigned char f = 0;                                                         \
            if (c >= 0x80) {                                                             \
                k.non_ascii++;                                                           \
                if (c < 0x10000) {                                                       \
                    f = bt[c];                                                           \
                    const unsigned char r = rt[c];                                       \
                    k.rare += r & F_RARE;                                                \
                    k.simplified += (r & F_SIMPLIFIED) >> 1;                             \
                }                                                                        \
            }                                                                            \
            if (f) {                                                                     \
                k.cjk += f & F_CJK;                                                      \
                k.jamo += (f & F_JAMO) >> 1;                                             \
                k.kana += (f & F_KANA) >> 3;                                             \
                k.hangul += (f & F_HANGUL) >> 4;                                         \
                /* Han, space, Han: the space is the previous char, a Han the one before */ \
                if ((f & F_HAN) && c1 == ' ' && (f2 & F_HAN)) k.han_space++;             \
                if (f & F_TRIGGER) {                                                     \
                    if (cl_start >= 0 && i - cl_end > CLUSTER_GAP) {                     \
                        if (emit_cluster(clusters, cl_start, cl_end) < 0) goto fail;     \
                        cl_start = -1;                                                   \
                    }                                                                    \
                    if (cl_start < 0) cl_start = i;                                      \
                    cl_end = i + 1;                                                      \
                }                                                                        \
            }                                                                            \
            if (f & F_SOUP) {                                                            \
                if (run_len == 0) {                                                      \
                    run_first = c;                                                       \
                    run_mixed = 0;                                                       \
                } else if (c != run_first) {                                             \
                    run_mixed = 1;                                                       \
                }                                                                        \
                run_len++;                                                               \
            } else if (run_len) {                                                        \
                if (run_len >= 3 && run_mixed) k.soup_len += run_len;                    \
                run_len = 0;                                                             \
            }                                                                            \
            f2 = f1;                                                                     \
            f1 = f;                                                                      \
            c1 = c;                                                                      \
        }                                                                                \
    }

static PyObject *scan(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_buffer base, rare;
    if (!PyArg_ParseTuple(args, "Uy*y*", &text, &base, &rare)) return NULL;
    PyObject *clusters = NULL, *result = NULL;
    if (base.len != 65536 || rare.len != 65536) {
        PyErr_SetString(PyExc_ValueError, "flag tables must hold 65536 entries");
        goto fail;
    }
    clusters = PyList_New(0);
    if (clusters == NULL) goto fail;
    const unsigned char *bt = base.buf, *rt = rare.buf;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Counts k = {0};
    Py_ssize_t run_len = 0; /* the current run of soup letters */
    Py_UCS4 run_first = 0;
    int run_mixed = 0;
    Py_ssize_t cl_start = -1, cl_end = -1; /* the open trigger cluster [cl_start, cl_end) */
    unsigned char f1 = 0, f2 = 0;          /* flags of the previous two chars */
    Py_UCS4 c1 = 0;                        /* the previous char */
    if (kind == PyUnicode_1BYTE_KIND) SCAN_BODY(Py_UCS1)
    else if (kind == PyUnicode_2BYTE_KIND) SCAN_BODY(Py_UCS2)
    else SCAN_BODY(Py_UCS4)
    (void)f1;
    if (run_len >= 3 && run_mixed) k.soup_len += run_len;
    if (cl_start >= 0 && emit_cluster(clusters, cl_start, cl_end) < 0) goto fail;
    result = Py_BuildValue("(nnnnnnnnnO)", k.non_ascii, k.cjk, k.jamo, k.hangul, k.kana,
                           k.soup_len, k.han_space, k.rare, k.simplified, clusters);
fail:
    Py_XDECREF(clusters);
    PyBuffer_Release(&base);
    PyBuffer_Release(&rare);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(sample, base_table, rare_table) -> the counts mojibake_score needs (see the module)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mojibake",
    "Character-class counts for mojibake_score in one pass (see pipeline/encoding/mojibake.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__mojibake(void) { return PyModule_Create(&module); }
