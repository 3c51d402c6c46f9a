/* warc_fields(items, names) -> tuple | None: what the fast path reads of a WARC record's
 * header, in one pass over FastWARC's headers.items(), exactly as the oracle
 * tests/oracles/warc_fields.py's warc_fields does (tests/unit/test_sources_fields.py
 * compares the two on generated headers):
 *
 * - for each of `names` (lowercase ASCII), the value of the first (key, value) item whose
 *   key lowered equals it, else None: the careful reader's rule for a repeated name;
 * - then the bytes the lines take written "key: value" CRLF, in UTF-8 (the fast path checks
 *   a member's size against it);
 * - None instead when the careful reader could read the header otherwise: a key or value
 *   holds CR or LF (FastWARC ends lines at CRLF only, warcio at LF), or a value found holds
 *   U+FFFD (FastWARC's stand-in for bytes that are not UTF-8; warcio decodes such a line as
 *   ISO-8859-1).
 *
 * An ASCII key is compared ASCII-case-insensitively, which is what str.lower() then == does
 * for it; any other key is lowered by str.lower() itself (U+212A KELVIN SIGN lowers to "k").
 * In Python the dict of lowered names alone took ~1.5 µs a record.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_NAMES 32

static unsigned char ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Whether the ASCII key `k` (length n) lowers to the lowercase ASCII name `name`. */
static int ascii_equal_lowered(const unsigned char *k, const char *name, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (ascii_lower(k[i]) != (unsigned char)name[i]) return 0;
    return 1;
}

static int check_name(PyObject *name) {
    if (!PyUnicode_Check(name) || !PyUnicode_IS_ASCII(name)) {
        PyErr_SetString(PyExc_ValueError, "warc_fields(): a name is not an ASCII str");
        return -1;
    }
    const unsigned char *s = PyUnicode_1BYTE_DATA(name);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(name); i++)
        if (s[i] >= 'A' && s[i] <= 'Z') {
            PyErr_SetString(PyExc_ValueError, "warc_fields(): a name is not lowercase");
            return -1;
        }
    return 0;
}

/* The UTF-8 size of `text` in *size; 1 when it holds CR or LF, 0 when not, -1 on error. */
static int measure(PyObject *text, Py_ssize_t *size) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) {
        const unsigned char *s = PyUnicode_1BYTE_DATA(text);
        *size = n;
        return memchr(s, '\n', (size_t)n) != NULL || memchr(s, '\r', (size_t)n) != NULL;
    }
    if (PyUnicode_AsUTF8AndSize(text, size) == NULL) return -1; /* a lone surrogate */
    if (PyUnicode_FindChar(text, '\r', 0, n, 1) != -1 || PyUnicode_FindChar(text, '\n', 0, n, 1) != -1)
        return 1;
    return 0;
}

/* The index of the first name still unset that `key` lowered equals, -1 if none, -2 on error. */
static Py_ssize_t match(PyObject *key, PyObject *names, PyObject **values) {
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    if (PyUnicode_IS_ASCII(key)) {
        const unsigned char *k = PyUnicode_1BYTE_DATA(key);
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        for (Py_ssize_t j = 0; j < count; j++) {
            PyObject *name = PyTuple_GET_ITEM(names, j);
            if (values[j] == NULL && PyUnicode_GET_LENGTH(name) == n &&
                ascii_equal_lowered(k, (const char *)PyUnicode_1BYTE_DATA(name), n))
                return j;
        }
        return -1;
    }
    PyObject *lowered = PyObject_CallMethod(key, "lower", NULL);
    if (lowered == NULL) return -2;
    Py_ssize_t found = -1;
    for (Py_ssize_t j = 0; j < count && found < 0; j++) {
        if (values[j] != NULL) continue;
        int eq = PyUnicode_Compare(lowered, PyTuple_GET_ITEM(names, j));
        if (eq == -1 && PyErr_Occurred()) {
            found = -2;
        } else if (eq == 0) {
            found = j;
        }
    }
    Py_DECREF(lowered);
    return found;
}

static PyObject *warc_fields(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "warc_fields(items, names: tuple)");
        return NULL;
    }
    PyObject *names = args[1];
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    if (count > MAX_NAMES) {
        PyErr_SetString(PyExc_ValueError, "warc_fields(): more than 32 names");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < count; j++)
        if (check_name(PyTuple_GET_ITEM(names, j)) < 0) return NULL;
    PyObject *items = PySequence_Fast(args[0], "warc_fields(): items is not a sequence");
    if (items == NULL) return NULL;
    PyObject *values[MAX_NAMES] = {NULL}; /* borrowed from `items` */
    Py_ssize_t size = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i);
        /* (exact str: a subclass could lower itself otherwise) */
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(item, 0)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(item, 1))) {
            PyErr_SetString(PyExc_TypeError, "warc_fields(): an item is not a (str, str) tuple");
            goto done;
        }
        PyObject *key = PyTuple_GET_ITEM(item, 0), *value = PyTuple_GET_ITEM(item, 1);
        Py_ssize_t key_size, value_size;
        int breaks = measure(key, &key_size);
        if (breaks == 0) breaks = measure(value, &value_size);
        if (breaks < 0) goto done;
        if (breaks > 0) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        size += key_size + value_size + 4; /* ": " and CRLF */
        Py_ssize_t j = match(key, names, values);
        if (j == -2) goto done;
        if (j >= 0) values[j] = value;
    }
    for (Py_ssize_t j = 0; j < count; j++)
        if (values[j] != NULL && !PyUnicode_IS_ASCII(values[j]) &&
            PyUnicode_FindChar(values[j], 0xFFFD, 0, PyUnicode_GET_LENGTH(values[j]), 1) != -1) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    result = PyTuple_New(count + 1);
    if (result == NULL) goto done;
    for (Py_ssize_t j = 0; j < count; j++)
        PyTuple_SET_ITEM(result, j, Py_NewRef(values[j] != NULL ? values[j] : Py_None));
    PyObject *total = PyLong_FromSsize_t(size);
    if (total == NULL) {
        Py_CLEAR(result);
        goto done;
    }
    PyTuple_SET_ITEM(result, count, total);
done:
    Py_DECREF(items);
    return result;
}

static PyMethodDef methods[] = {
    {"warc_fields", (PyCFunction)(void (*)(void))warc_fields, METH_FASTCALL,
     "warc_fields(items, names): the values of the lowercase names (the first of each) and the "
     "bytes of the lines, or None when the careful reader could read the header otherwise"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fields", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fields(void) { return PyModule_Create(&module); }
