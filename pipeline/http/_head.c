/* parse_head(block) -> (status, status_line, headers, body_start, notes) | None: the stored
 * response's head, exactly as tests/oracles/http_head.py's parse_head splits it
 * (RFC 9112 §2.1 message format, §4 status line, §5.2 obs-fold, with the same leniencies:
 * bare LF and CR CR LF line ends, lines without a colon dropped, the 1 MiB / 256 KiB caps).
 * That function is the oracle; tests/unit/test_http_head_c.py compares the two on the
 * 42 WARC samples, the fixtures and generated heads. Python spends ~7 µs a response here
 * (a split, a regex, a strip per line); this is one pass over the head's bytes.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* The caps, exported as the module's MAX_HEAD and MAX_FIELD_LINE (the oracle and the Parquet
 * reader's header cut read them there). */
#define MAX_HEAD (1 << 20)         /* field lines past this many bytes of header section are dropped */
#define MAX_FIELD_LINE (256 << 10) /* Chromium's limit for a whole header section (kMaxHeaderBufSize) */

/* The notes, kept in the order they are first met (the oracle's dict.fromkeys). */
enum { NO_HEADER_END, OVER_CAP, LF_ONLY, NO_COLON, NOTE_KINDS };
static const char *NOTE_NAMES[NOTE_KINDS] = {"no-header-end", "header-section-over-cap",
                                             "lf-only-header-lines", "header-line-without-colon"};

typedef struct {
    int order[NOTE_KINDS];
    int count;
} Notes;

static void note(Notes *notes, int kind) {
    for (int k = 0; k < notes->count; k++)
        if (notes->order[k] == kind) return;
    notes->order[notes->count++] = kind;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_sp_tab(unsigned char c) { return c == ' ' || c == '\t'; }

/* The status code when `s[0:n]` matches message._STATUS_LINE
 * (rb"HTTP/[0-9](?:\.[0-9])?[ \t]+([0-9]{3})(?:[ \t]|\r?$)", re.match), else -1. */
static int status_of(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t i = 5;
    if (n < 5 || memcmp(s, "HTTP/", 5) != 0) return -1;
    if (i >= n || !is_digit(s[i])) return -1;
    i++;
    if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) i += 2;
    if (i >= n || !is_sp_tab(s[i])) return -1;
    while (i < n && is_sp_tab(s[i])) i++;
    if (i + 3 > n || !is_digit(s[i]) || !is_digit(s[i + 1]) || !is_digit(s[i + 2])) return -1;
    int status = (s[i] - '0') * 100 + (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
    i += 3;
    /* (?:[ \t]|\r?$): `$` matches at the end, or before a newline that ends the string. */
    if (i < n && is_sp_tab(s[i])) return status;
    if (i < n && s[i] == '\r') i++;
    if (i == n || (i == n - 1 && s[i] == '\n')) return status;
    return -1;
}

/* Strip bytes in " \t" from both ends of [*start, *end). */
static void strip_sp_tab(const unsigned char *s, Py_ssize_t *start, Py_ssize_t *end) {
    while (*start < *end && is_sp_tab(s[*start])) (*start)++;
    while (*end > *start && is_sp_tab(s[*end - 1])) (*end)--;
}

static PyObject *notes_tuple(const Notes *notes) {
    PyObject *out = PyTuple_New(notes->count);
    if (out == NULL) return NULL;
    for (int k = 0; k < notes->count; k++) {
        PyObject *name = PyUnicode_FromString(NOTE_NAMES[notes->order[k]]);
        if (name == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k, name);
    }
    return out;
}

/* Field lines of s[start:end) (each ending in LF, or at `end`), into a list of [name, value]
 * lists, noting what is dropped; returns -1 on a Python error, else 0. */
static int field_lines(const unsigned char *s, Py_ssize_t start, Py_ssize_t end, PyObject *fields,
                       Notes *notes) {
    Py_ssize_t pos = start;
    while (pos <= end) {
        const unsigned char *lf = memchr(s + pos, '\n', (size_t)(end - pos));
        Py_ssize_t line_end = lf ? (Py_ssize_t)(lf - s) : end;
        Py_ssize_t a = pos, b = line_end;
        pos = line_end + 1;
        while (b > a && s[b - 1] == '\r') b--; /* line.rstrip(b"\r") */
        if (a == b) continue;
        if (b - a > MAX_FIELD_LINE) {
            note(notes, OVER_CAP);
            continue;
        }
        if (is_sp_tab(s[a])) {
            /* RFC 9112 §5.2: "replace each received obs-fold with one or more SP octets" */
            Py_ssize_t count = PyList_GET_SIZE(fields);
            if (count == 0) continue;
            strip_sp_tab(s, &a, &b);
            PyObject *last = PyList_GET_ITEM(fields, count - 1);
            PyObject *old = PyList_GET_ITEM(last, 1);
            Py_ssize_t old_len = PyBytes_GET_SIZE(old);
            PyObject *joined = PyBytes_FromStringAndSize(NULL, old_len + 1 + (b - a));
            if (joined == NULL) return -1;
            char *out = PyBytes_AS_STRING(joined);
            memcpy(out, PyBytes_AS_STRING(old), (size_t)old_len);
            out[old_len] = ' ';
            memcpy(out + old_len + 1, s + a, (size_t)(b - a));
            PyList_SetItem(last, 1, joined); /* steals joined, drops old */
            continue;
        }
        const unsigned char *colon = memchr(s + a, ':', (size_t)(b - a));
        if (colon == NULL) {
            note(notes, NO_COLON);
            continue;
        }
        Py_ssize_t name_end = (Py_ssize_t)(colon - s), value_start = name_end + 1, value_end = b;
        while (name_end > a && is_sp_tab(s[name_end - 1])) name_end--; /* name.rstrip(b" \t") */
        strip_sp_tab(s, &value_start, &value_end);
        PyObject *pair = Py_BuildValue("[y#y#]", s + a, name_end - a, s + value_start,
                                       value_end - value_start);
        if (pair == NULL) return -1;
        int failed = PyList_Append(fields, pair);
        Py_DECREF(pair);
        if (failed) return -1;
    }
    return 0;
}

static PyObject *parse_head(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "parse_head() needs bytes");
        return NULL;
    }
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(arg);
    Py_ssize_t n = PyBytes_GET_SIZE(arg);
    /* first_end = block.find(b"\n", 0, MAX_HEAD); first = block[:first_end].rstrip(b"\r") */
    const unsigned char *lf = memchr(s, '\n', (size_t)(n < MAX_HEAD ? n : MAX_HEAD));
    Py_ssize_t first_end = lf ? (Py_ssize_t)(lf - s) : -1;
    Py_ssize_t first_len = first_end >= 0 ? first_end : n;
    while (first_len > 0 && s[first_len - 1] == '\r') first_len--;
    int status = status_of(s, first_len);
    if (status < 0) Py_RETURN_NONE;
    Notes notes = {{0}, 0};
    Py_ssize_t head_start, head_end, body_start;
    if (first_end < 0) {
        note(&notes, NO_HEADER_END);
        return Py_BuildValue("(iy#()nN)", status, s, first_len, n, notes_tuple(&notes));
    }
    /* _HEAD_END.search(block, first_end): the first LF followed by any CRs and an LF. */
    Py_ssize_t end_start = -1, end_end = -1;
    for (Py_ssize_t i = first_end; i < n;) {
        const unsigned char *p = memchr(s + i, '\n', (size_t)(n - i));
        if (p == NULL) break;
        Py_ssize_t j = (Py_ssize_t)(p - s) + 1;
        while (j < n && s[j] == '\r') j++;
        if (j < n && s[j] == '\n') {
            end_start = (Py_ssize_t)(p - s);
            end_end = j + 1;
            break;
        }
        i = (Py_ssize_t)(p - s) + 1;
    }
    head_start = first_end + 1;
    if (end_start < 0) {
        head_end = n;
        body_start = n;
        note(&notes, NO_HEADER_END);
    } else {
        head_end = end_start + 1;
        body_start = end_end;
    }
    if (head_end - head_start > MAX_HEAD) {
        /* head[:MAX_HEAD], then up to its last LF (nothing when it has none) */
        Py_ssize_t cut = head_start + MAX_HEAD;
        while (cut > head_start && s[cut - 1] != '\n') cut--;
        head_end = cut;
        note(&notes, OVER_CAP);
    }
    /* b"\r\n" not in block[:min(body_start, MAX_HEAD)] */
    Py_ssize_t scan = body_start < MAX_HEAD ? body_start : MAX_HEAD;
    int crlf = 0;
    for (const unsigned char *p = s; (p = memchr(p, '\r', (size_t)(scan - (p - s)))) != NULL; p++) {
        if (p + 1 < s + scan && p[1] == '\n') {
            crlf = 1;
            break;
        }
    }
    if (!crlf) note(&notes, LF_ONLY);
    PyObject *fields = PyList_New(0);
    if (fields == NULL) return NULL;
    if (field_lines(s, head_start, head_end, fields, &notes) < 0) {
        Py_DECREF(fields);
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(fields);
    PyObject *headers = PyTuple_New(count);
    if (headers == NULL) {
        Py_DECREF(fields);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *pair = PyList_AsTuple(PyList_GET_ITEM(fields, k));
        if (pair == NULL) {
            Py_DECREF(fields);
            Py_DECREF(headers);
            return NULL;
        }
        PyTuple_SET_ITEM(headers, k, pair);
    }
    Py_DECREF(fields);
    return Py_BuildValue("(iy#NnN)", status, s, first_len, headers, body_start, notes_tuple(&notes));
}

static PyMethodDef methods[] = {
    {"parse_head", parse_head, METH_O,
     "parse_head(block) -> (status, status_line, headers, body_start, notes) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_head", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__head(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "MAX_HEAD", MAX_HEAD) < 0 ||
        PyModule_AddIntConstant(m, "MAX_FIELD_LINE", MAX_FIELD_LINE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
