/* The Encoding Standard's UTF-8 decoder (§ "UTF-8 decoder"), counting instead of decoding:
 * how many non-ASCII code points it emits and how many errors it meets. check_utf8 needs
 * only these two numbers, and on legacy-encoded bodies (an error every other byte)
 * Python's decode with errors="replace" spends ~10 ns a byte building a string of U+FFFD.
 * tests/unit/test_sniff_utf8_tld_detect.py compares the counts with decode_utf8's.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static PyObject *counts(PyObject *self, PyObject *args) {
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    const unsigned char *s = in.buf;
    Py_ssize_t n = in.len, non_ascii = 0, errors = 0;
    int needed = 0, seen = 0;
    unsigned char lower = 0x80, upper = 0xBF;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char b = s[i];
        if (needed == 0) {
#ifdef __SSE2__
            /* ASCII 16 bytes at a time (no high bit set) */
            while (b <= 0x7F && i + 16 <= n &&
                   _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i))) == 0) {
                i += 16;
                b = i < n ? s[i] : 0;
            }
            if (i >= n) break;
#endif
            if (b <= 0x7F) continue;  /* step 3: an ASCII code point */
            if (b >= 0xC2 && b <= 0xDF) {
                needed = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                if (b == 0xE0) lower = 0xA0;
                if (b == 0xED) upper = 0x9F;
                needed = 2;
            } else if (b >= 0xF0 && b <= 0xF4) {
                if (b == 0xF0) lower = 0x90;
                if (b == 0xF4) upper = 0x8F;
                needed = 3;
            } else {
                errors++;  /* step 3, otherwise: return error */
            }
            continue;
        }
        if (b < lower || b > upper) {
            /* step 4: reset, "restore byte to ioQueue" (read it again), return error */
            needed = seen = 0;
            lower = 0x80;
            upper = 0xBF;
            errors++;
            i--;
            continue;
        }
        lower = 0x80;
        upper = 0xBF;
        if (++seen == needed) {  /* steps 5-8: a complete non-ASCII code point */
            non_ascii++;
            needed = seen = 0;
        }
    }
    if (needed != 0) errors++;  /* step 2: end of queue inside a sequence */
    PyBuffer_Release(&in);
    return Py_BuildValue("(nn)", non_ascii, errors);
}


static PyMethodDef methods[] = {
    {"counts", counts, METH_VARARGS,
     "counts(bytes) -> (non-ASCII code points, errors) of the WHATWG UTF-8 decoder"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_utf8", "The WHATWG UTF-8 decoder, counting.", -1, methods,
};

PyMODINIT_FUNC PyInit__utf8(void) { return PyModule_Create(&module); }
