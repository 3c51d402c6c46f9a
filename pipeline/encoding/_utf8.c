/* The Encoding Standard's UTF-8 decoder (§ "UTF-8 decoder"), counting instead of decoding:
 * how many non-ASCII code points it emits and how many errors it meets. check_utf8 needs
 * only these two numbers, and on legacy-encoded bodies (an error every other byte)
 * Python's decode with errors="replace" spends ~10 ns a byte building a string of U+FFFD.
 * tests/unit/test_sniff_utf8_tld_detect.py compares the counts with decode_utf8's.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The decoder as tables. A state is what the decoder still needs: */
enum {
    S_LEAD,       /* bytes needed 0 */
    S_CONT1,      /* 1 more: 80-BF */
    S_CONT2,      /* 2 more: 80-BF, then 80-BF */
    S_CONT2_E0,   /* after E0: A0-BF, then 80-BF */
    S_CONT2_ED,   /* after ED: 80-9F, then 80-BF */
    S_CONT3,      /* after F1-F3: 80-BF, then two more */
    S_CONT3_F0,   /* after F0: 90-BF, then two more */
    S_CONT3_F4,   /* after F4: 80-8F, then two more */
    N_STATES,
};
/* For a state and a byte: what the step emits, errors (0-2) | code points << 2 (0-1). */
static uint8_t emits[N_STATES * 6][256];
/* For a byte: the next state of every state, 6 bits each: state s's at bit 6 * s, held as
 * 6 * next, so that the walk's only serial work per byte is a shift and a mask (the emits
 * lookup is off that chain). */
static uint64_t moves[256];

/* Step 3 of the decoder, for a byte met with bytes needed 0: (next state, errors). */
static void lead_step(unsigned b, unsigned *next, unsigned *errors) {
    *errors = 0;
    if (b <= 0x7F) *next = S_LEAD;                 /* an ASCII code point */
    else if (b >= 0xC2 && b <= 0xDF) *next = S_CONT1;
    else if (b == 0xE0) *next = S_CONT2_E0;
    else if (b == 0xED) *next = S_CONT2_ED;
    else if (b >= 0xE1 && b <= 0xEF) *next = S_CONT2;
    else if (b == 0xF0) *next = S_CONT3_F0;
    else if (b == 0xF4) *next = S_CONT3_F4;
    else if (b >= 0xF1 && b <= 0xF3) *next = S_CONT3;
    else { *next = S_LEAD; *errors = 1; }          /* otherwise: return error */
}

static void build_tables(void) {
    static const struct { uint8_t lower, upper, next; } cont[N_STATES] = {
        [S_CONT1] = {0x80, 0xBF, S_LEAD}, [S_CONT2] = {0x80, 0xBF, S_CONT1},
        [S_CONT2_E0] = {0xA0, 0xBF, S_CONT1}, [S_CONT2_ED] = {0x80, 0x9F, S_CONT1},
        [S_CONT3] = {0x80, 0xBF, S_CONT2}, [S_CONT3_F0] = {0x90, 0xBF, S_CONT2},
        [S_CONT3_F4] = {0x80, 0x8F, S_CONT2},
    };
    for (unsigned b = 0; b < 256; b++) {
        moves[b] = 0;
        for (unsigned state = 0; state < N_STATES; state++) {
            unsigned next, errors, points = 0;
            if (state == S_LEAD) {
                lead_step(b, &next, &errors);
            } else if (b >= cont[state].lower && b <= cont[state].upper) {
                /* steps 5-8: the last byte of a sequence emits a code point */
                next = cont[state].next;
                errors = 0;
                points = next == S_LEAD;
            } else {
                /* step 4: reset, return error, and read the byte again as a lead */
                lead_step(b, &next, &errors);
                errors += 1;
            }
            emits[6 * state][b] = (uint8_t)(errors | points << 2);
            moves[b] |= (uint64_t)(6 * next) << (6 * state);
        }
    }
}

static PyObject *counts(PyObject *self, PyObject *args) {
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    const unsigned char *s = in.buf;
    Py_ssize_t n = in.len, non_ascii = 0, errors = 0, i = 0;
    unsigned state = 6 * S_LEAD;  /* 6 * state */
    while (i < n) {
        Py_ssize_t end = i + 16 < n ? i + 16 : n;
#ifdef __SSE2__
        /* ASCII 16 bytes at a time (no high bit set) between sequences */
        if (state == 6 * S_LEAD && end - i == 16 &&
            _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i))) == 0) {
            i = end;
            continue;
        }
#endif
        for (; i < end; i++) {
            unsigned b = s[i], emitted = emits[state][b];
            state = (unsigned)(moves[b] >> state) & 63;
            errors += emitted & 3;
            non_ascii += emitted >> 2;
        }
    }
    if (state != 6 * S_LEAD) errors++;  /* step 2: end of queue inside a sequence */
    PyBuffer_Release(&in);
    return Py_BuildValue("(nn)", non_ascii, errors);
}


/* encode(text: str) -> bytes | None: text.encode("utf-8"), or None when text holds a lone
 * surrogate (the caller then takes Python's path with its error handler). Python's encoder
 * goes a code unit at a time, slow on the common UCS-2 page: ASCII markup with some text
 * beyond Latin-1 (2.4x on such a page). Such a string is encoded here in two passes, the
 * exact size, then the bytes, 8 units at a time where they are ASCII. Other strings (other
 * kinds, or UCS-2 whose first 4,096 units are not mostly ASCII: CJK pages) go to Python's
 * encoder, which is as fast or faster on them. */
static Py_ssize_t ucs2_size(const uint16_t *u, Py_ssize_t n) {
    Py_ssize_t size = 0, i = 0;
#ifdef __SSE2__
    /* per 16-bit lane: the extra bytes (unit >= 0x80) + (unit >= 0x800), summed before a
     * lane can overflow (2 per block, 8,192 blocks: 16,384 < 32,768) */
    const __m128i m80 = _mm_set1_epi16((short)0xFF80), m800 = _mm_set1_epi16((short)0xF800),
                  d800 = _mm_set1_epi16((short)0xD800), zero = _mm_setzero_si128(),
                  two = _mm_set1_epi16(2), ones = _mm_set1_epi16(1);
    while (i + 8 <= n) {
        __m128i extra = zero, surrogate = zero;
        for (int round = 0; round < 8192 && i + 8 <= n; round++, i += 8) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(u + i));
            const __m128i top5 = _mm_and_si128(v, m800);
            /* cmpeq gives -1 where a unit is small: 2 + those = the extra bytes */
            extra = _mm_add_epi16(extra, two);
            extra = _mm_add_epi16(extra, _mm_cmpeq_epi16(_mm_and_si128(v, m80), zero));
            extra = _mm_add_epi16(extra, _mm_cmpeq_epi16(top5, zero));
            surrogate = _mm_or_si128(surrogate, _mm_cmpeq_epi16(top5, d800));
        }
        if (_mm_movemask_epi8(surrogate) != 0) return -1;
        int32_t parts[4];
        _mm_storeu_si128((__m128i *)parts, _mm_madd_epi16(extra, ones));  /* 4 x 32-bit sums */
        size += (Py_ssize_t)parts[0] + parts[1] + parts[2] + parts[3];
    }
    size += i;  /* the one byte per unit of the blocks */
#endif
    for (; i < n; i++) {
        uint16_t c = u[i];
        if ((c & 0xF800) == 0xD800) return -1;  /* a surrogate */
        size += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    }
    return size;
}

static inline char *put_unit(char *out, uint16_t c) {
    if (c < 0x80) {
        *out++ = (char)c;
    } else if (c < 0x800) {
        *out++ = (char)(0xC0 | (c >> 6));
        *out++ = (char)(0x80 | (c & 0x3F));
    } else {
        *out++ = (char)(0xE0 | (c >> 12));
        *out++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *out++ = (char)(0x80 | (c & 0x3F));
    }
    return out;
}

#define SAMPLE_UNITS 4096

static PyObject *encode(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) return PyErr_Format(PyExc_TypeError, "str expected");
    if (PyUnicode_READY(arg) < 0) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), size = -1;
    const uint16_t *u = PyUnicode_DATA(arg);
    int ours = PyUnicode_KIND(arg) == PyUnicode_2BYTE_KIND;
    if (ours) {  /* mostly ASCII? (the sample's extra bytes at most 1/8 of its units) */
        Py_ssize_t sample = n < SAMPLE_UNITS ? n : SAMPLE_UNITS, sample_size = ucs2_size(u, sample);
        ours = sample_size >= 0 && sample_size - sample <= sample / 8;
        if (sample_size < 0) Py_RETURN_NONE;  /* a lone surrogate */
    }
    if (!ours) {
        PyObject *result = PyUnicode_AsEncodedString(arg, "utf-8", "strict");
        if (result == NULL && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return result;
    }
    /* One pass into room for the worst case (3 bytes a unit), shrunk at the end (a
     * separate sizing pass read the whole text twice; the untouched tail of the
     * allocation costs no page faults, and shrinking a large block does not copy it). */
    if (n > PY_SSIZE_T_MAX / 3) return PyErr_NoMemory();
    PyObject *result = PyBytes_FromStringAndSize(NULL, 3 * n);
    if (result == NULL) return NULL;
    char *const start = PyBytes_AS_STRING(result);
    char *out = start;
    Py_ssize_t i = 0;
#ifdef __SSE2__
    const __m128i high = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(u + i));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)) == 0xFFFF) {
            _mm_storel_epi64((__m128i *)out, _mm_packus_epi16(v, v));  /* 8 ASCII units */
            out += 8;
            continue;
        }
        for (int k = 0; k < 8; k++) {
            if ((u[i + k] & 0xF800) == 0xD800) goto surrogate;
            out = put_unit(out, u[i + k]);
        }
    }
#endif
    for (; i < n; i++) {
        if ((u[i] & 0xF800) == 0xD800) goto surrogate;
        out = put_unit(out, u[i]);
    }
    size = out - start;
    if (_PyBytes_Resize(&result, size) < 0) return NULL;
    return result;
surrogate:  /* a lone surrogate: not UTF-8 encodable */
    Py_DECREF(result);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_O, "encode(str) -> str.encode('utf-8'), None if it holds a lone surrogate"},
    {"counts", counts, METH_VARARGS,
     "counts(bytes) -> (non-ASCII code points, errors) of the WHATWG UTF-8 decoder"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_utf8", "The WHATWG UTF-8 decoder, counting.", -1, methods,
};

PyMODINIT_FUNC PyInit__utf8(void) {
    build_tables();
    return PyModule_Create(&module);
}
