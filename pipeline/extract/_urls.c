/* Batch URL parsing through ada's C API (ada_c.h). One C call resolves every distinct href
 * of a document instead of several Python-level calls per href. ada is compiled into this
 * module from the sources the ada-url package ships (setup.py), so the compiler checks
 * every call against ada_c.h (ada_parse, ada_parse_with_base, ada_is_valid, ada_get_href,
 * ada_get_hostname, ada_free). Supported: ada-url 4.x (ada 4.0.0 is the first ada that
 * passes every case of the corpus's urltestdata.json).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdbool.h>
#include <string.h>

#include "ada_c.h"
#include "_ascii.h"

/* The basic URL parser on href (against base when given). An href starting "http://" or
 * "https://" is parsed alone: after a special scheme and "//" the parser is in the
 * special authority slashes state whatever the base, which it never reads again (URL
 * Standard, basic URL parser, scheme state and special relative or authority state); ada
 * would parse the base again for every href. */
static ada_url parse_href(const char *data, size_t len, const char *base, size_t base_len) {
    if (base == NULL || (len >= 7 && memcmp(data, "http://", 7) == 0) ||
        (len >= 8 && memcmp(data, "https://", 8) == 0))
        return ada_parse(data, len);
    return ada_parse_with_base(data, len, base, base_len);
}

/* The resolved URL of href (a new reference; None when it does not parse), as
 * Resolver.many gives it. */
static PyObject *resolve_one(PyObject *href, const char *base, Py_ssize_t base_len,
                             PyObject *reencode, int reencode_all) {
    Py_ssize_t len;
    const char *data = PyUnicode_AsUTF8AndSize(href, &len);
    if (data == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear();  /* a lone surrogate: not a scalar value string */
        Py_RETURN_NONE;
    }
    ada_url url = parse_href(data, (size_t)len, base, (size_t)base_len);
    PyObject *result;
    if (ada_is_valid(url)) {
        ada_string out = ada_get_href(url);
        result = PyUnicode_DecodeUTF8(out.data, (Py_ssize_t)out.length, "strict");
    } else {
        result = Py_NewRef(Py_None);
    }
    ada_free(url);
    if (result != NULL && result != Py_None && reencode != Py_None &&
        (reencode_all || !PyUnicode_IS_ASCII(href))) {
        Py_SETREF(result, PyObject_CallFunctionObjArgs(reencode, href, result, NULL));
    }
    return result;
}

/* parse(href: str, base: bytes | None) -> (href, hostname) | None: the basic URL parser
 * on one href (against base when given); None where it fails or the href is not a scalar
 * value string. */
static PyObject *parse(PyObject *self, PyObject *args) {
    PyObject *href, *base_obj;
    if (!PyArg_ParseTuple(args, "UO", &href, &base_obj)) return NULL;
    const char *base = NULL;
    Py_ssize_t base_len = 0, len;
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&base, &base_len) < 0)
        return NULL;
    const char *data = PyUnicode_AsUTF8AndSize(href, &len);
    if (data == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    ada_url url = base == NULL ? ada_parse(data, (size_t)len)
                               : ada_parse_with_base(data, (size_t)len, base, (size_t)base_len);
    PyObject *result;
    if (ada_is_valid(url)) {
        ada_string out = ada_get_href(url), host = ada_get_hostname(url);
        result = Py_BuildValue("(s#s#)", out.data, (Py_ssize_t)out.length,
                               host.length ? host.data : "", (Py_ssize_t)host.length);
    } else {
        result = Py_NewRef(Py_None);
    }
    ada_free(url);
    return result;
}

/* hrefs(hrefs: list[str], base: bytes | None) -> list[str | None]: each href parsed by
 * the basic URL parser (against base when given); None where it fails or the href is
 * not a scalar value string (a lone surrogate cannot be UTF-8 encoded). */
static PyObject *hrefs(PyObject *self, PyObject *args) {
    PyObject *items, *base_obj;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &items, &base_obj)) return NULL;
    const char *base = NULL;
    Py_ssize_t base_len = 0;
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&base, &base_len) < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i), *result;
        if (!PyUnicode_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "hrefs must be str");
            Py_DECREF(out);
            return NULL;
        }
        if ((result = resolve_one(item, base, base_len, Py_None, 0)) == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, result);
    }
    return out;
}

/* The host of a serialized URL, as pipeline.extract.domains.url_host finds it (its
 * reference): after "://", up to the first "/", "?" or "#", after the last "@", without a
 * ":port" (an IPv6 literal keeps its brackets); None when there is no "://" or no host.
 * Every delimiter is ASCII, so cutting the UTF-8 bytes cuts the same code points. */
static PyObject *host_of(PyObject *url) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(url, &n);
    if (s == NULL) return NULL;
    const char *scheme_end = NULL;
    for (Py_ssize_t i = 0; i + 3 <= n; i++) {
        if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') {
            scheme_end = s + i;
            break;
        }
    }
    if (scheme_end == NULL) Py_RETURN_NONE;
    const char *start = scheme_end + 3, *end = s + n;
    for (const char *p = start; p < end; p++) {
        if (*p == '/' || *p == '?' || *p == '#') {
            end = p;
            break;
        }
    }
    for (const char *p = end; p > start; p--) {  /* after the last "@" */
        if (p[-1] == '@') {
            start = p;
            break;
        }
    }
    if (start < end && *start == '[') {
        const char *close = memchr(start, ']', (size_t)(end - start));
        if (close != NULL) end = close + 1;
    } else {
        const char *colon = memchr(start, ':', (size_t)(end - start));
        if (colon != NULL) end = colon;
    }
    if (end == start) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(start, end - start, "strict");
}

/* hosts(urls: list[str | None]) -> list[str | None]: host_of each (None stays None). */
static PyObject *hosts(PyObject *self, PyObject *arg) {
    if (!PyList_Check(arg)) return PyErr_Format(PyExc_TypeError, "a list expected");
    Py_ssize_t n = PyList_GET_SIZE(arg);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(arg, i), *host;
        if (item == Py_None) {
            host = Py_NewRef(Py_None);
        } else if (!PyUnicode_Check(item)) {
            Py_DECREF(out);
            return PyErr_Format(PyExc_TypeError, "urls must be str or None");
        } else {
            host = host_of(item);
        }
        if (host == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, host);
    }
    return out;
}

/* ---- Link objects ----------------------------------------------------------------
 * pipeline.extract.fields.Link is a frozen slots dataclass: its generated __init__ sets
 * each field through object.__setattr__, ~1 us a link for ~150 links a page. Here the
 * slots are filled at the offsets their member descriptors give (what those descriptors'
 * __set__ does), once per link, in one call per page. */
#define LINK_FIELDS 7
static PyTypeObject *link_type;
static Py_ssize_t link_offsets[LINK_FIELDS];
static PyObject *href_name;

/* bind_links(cls, field_names): cls's slots for url, anchor_text, rel, tag, attr,
 * internal, nofollow (in that order). */
static PyObject *bind_links(PyObject *self, PyObject *args) {
    PyObject *cls, *names;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &PyTuple_Type, &names)) return NULL;
    if (PyTuple_GET_SIZE(names) != LINK_FIELDS)
        return PyErr_Format(PyExc_ValueError, "%d field names expected", LINK_FIELDS);
    for (int i = 0; i < LINK_FIELDS; i++) {
        PyObject *descr = PyObject_GetAttr(cls, PyTuple_GET_ITEM(names, i));
        if (descr == NULL) return NULL;
        int ok = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
                 ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX &&
                 !(((PyMemberDescrObject *)descr)->d_member->flags & READONLY);
        if (ok) link_offsets[i] = ((PyMemberDescrObject *)descr)->d_member->offset;
        Py_DECREF(descr);
        if (!ok) return PyErr_Format(PyExc_TypeError, "field %d is not an object slot", i);
    }
    if (href_name == NULL && (href_name = PyUnicode_InternFromString("href")) == NULL) return NULL;
    Py_XSETREF(link_type, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

/* A new Link holding `values` (in field order) appended to out; 0, or -1 with an exception. */
static int append_link(PyObject *out, PyObject *const values[LINK_FIELDS]) {
    PyObject *link = link_type->tp_alloc(link_type, 0);
    if (link == NULL) return -1;
    for (int k = 0; k < LINK_FIELDS; k++)
        *(PyObject **)((char *)link + link_offsets[k]) = Py_NewRef(values[k]);
    int rc = PyList_Append(out, link);
    Py_DECREF(link);
    return rc;
}

/* make_links(candidates, targets) -> (tuple of Link, bad): for each (tag, href, rel,
 * text, nofollow) in candidates, targets[href] is (url or None, internal); a None url
 * counts as bad, the others become Link(url, text, rel, tag, "href", internal, nofollow). */
static PyObject *make_links(PyObject *self, PyObject *args) {
    PyObject *candidates, *targets;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &candidates, &PyDict_Type, &targets)) return NULL;
    if (link_type == NULL) return PyErr_Format(PyExc_RuntimeError, "bind_links() first");
    Py_ssize_t n = PyList_GET_SIZE(candidates), bad = 0;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(candidates, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 5) {
            Py_DECREF(out);
            return PyErr_Format(PyExc_TypeError, "candidates are (tag, href, rel, text, nofollow)");
        }
        PyObject *target = PyDict_GetItemWithError(targets, PyTuple_GET_ITEM(c, 1));
        if (target == NULL || !PyTuple_Check(target) || PyTuple_GET_SIZE(target) != 2) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "a candidate's href has no target");
            Py_DECREF(out);
            return NULL;
        }
        PyObject *url = PyTuple_GET_ITEM(target, 0);
        if (url == Py_None) {
            bad++;
            continue;
        }
        PyObject *values[LINK_FIELDS] = {url, PyTuple_GET_ITEM(c, 3), PyTuple_GET_ITEM(c, 2),
                                         PyTuple_GET_ITEM(c, 0), href_name,
                                         PyTuple_GET_ITEM(target, 1), PyTuple_GET_ITEM(c, 4)};
        if (append_link(out, values) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    PyObject *links = PyList_AsTuple(out);
    Py_DECREF(out);
    if (links == NULL) return NULL;
    return Py_BuildValue("(Nn)", links, bad);
}

/* ---- a document's links, in one call ------------------------------------------------
 * pipeline.extract.links.extract_links' loop (its Python branch is the reference): which
 * candidates are kept (a link element only with a canonical/alternate/next/prev rel
 * keyword), nofollow, each distinct href resolved once (and re-encoded in the document's
 * encoding through a Python callback where that can change it), its host's internal flag
 * (cached per host in a dict the caller seeds; the callback decides a new host), and the
 * Link objects. */

enum { REL_NOFOLLOW = 1, REL_KEPT_LINK = 2 };

/* The rel keywords that matter: split on ASCII whitespace, compared ASCII
 * case-insensitively (tree.rel_keywords; a keyword with a non-ASCII byte matches none). */
static int rel_flags(PyObject *rel) {
    if (rel == Py_None) return 0;
    Py_ssize_t n;
    const unsigned char *s = (const unsigned char *)PyUnicode_AsUTF8AndSize(rel, &n);
    if (s == NULL) {  /* a lone surrogate: a non-ASCII keyword, which matches nothing */
        PyErr_Clear();
        return 0;
    }
    int flags = 0;
    size_t at = 0, len;
    for (const unsigned char *k; (k = next_keyword(s, (size_t)n, &at, &len)) != NULL;) {
        if (ascii_ci_equals(k, len, "nofollow")) flags |= REL_NOFOLLOW;
        else if (ascii_ci_equals(k, len, "canonical") || ascii_ci_equals(k, len, "alternate") ||
                 ascii_ci_equals(k, len, "next") || ascii_ci_equals(k, len, "prev"))
            flags |= REL_KEPT_LINK;
    }
    return flags;
}

/* links(candidates, base, has_domain, internal_of, internal_fn, reencode, reencode_all)
 *   -> (tuple of Link, bad)
 * candidates: [(tag, href, rel, text)] as walk.document gives them; base: the base URL as
 * UTF-8 bytes or None; has_domain: whether the page has a registered domain (else every
 * internal flag is None); internal_of: {host: internal} (read and filled); internal_fn:
 * host -> internal for a host not in it; reencode: (href, url) -> url in the document's
 * encoding, called for non-ASCII hrefs (every href when reencode_all), or None. */
static PyObject *links(PyObject *self, PyObject *args) {
    PyObject *candidates, *base_obj, *internal_of, *internal_fn, *reencode;
    int has_domain, reencode_all;
    if (!PyArg_ParseTuple(args, "O!OpO!OOp", &PyList_Type, &candidates, &base_obj, &has_domain,
                          &PyDict_Type, &internal_of, &internal_fn, &reencode, &reencode_all))
        return NULL;
    if (link_type == NULL) return PyErr_Format(PyExc_RuntimeError, "bind_links() first");
    const char *base = NULL;
    Py_ssize_t base_len = 0;
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&base, &base_len) < 0)
        return NULL;
    PyObject *targets = PyDict_New(), *out = PyList_New(0);  /* href -> (url, internal) */
    Py_ssize_t bad = 0;
    if (targets == NULL || out == NULL) goto fail;
    Py_ssize_t n = PyList_GET_SIZE(candidates);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(candidates, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 4 || !PyUnicode_Check(PyTuple_GET_ITEM(c, 0)) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(c, 1))) {
            PyErr_SetString(PyExc_TypeError, "candidates are (tag: str, href: str, rel, text)");
            goto fail;
        }
        PyObject *tag = PyTuple_GET_ITEM(c, 0), *href = PyTuple_GET_ITEM(c, 1);
        PyObject *rel = PyTuple_GET_ITEM(c, 2);
        int flags = rel_flags(rel);
        if (PyUnicode_CompareWithASCIIString(tag, "link") == 0 && !(flags & REL_KEPT_LINK)) continue;
        PyObject *target = PyDict_GetItemWithError(targets, href);  /* borrowed */
        if (target == NULL) {
            if (PyErr_Occurred()) goto fail;
            PyObject *url = resolve_one(href, base, base_len, reencode, reencode_all);
            if (url == NULL) goto fail;
            PyObject *internal = Py_None;  /* borrowed from internal_of, or None */
            PyObject *fresh = NULL;
            if (url != Py_None && has_domain) {
                PyObject *host = host_of(url);
                if (host == NULL) {
                    Py_DECREF(url);
                    goto fail;
                }
                internal = PyDict_GetItemWithError(internal_of, host);
                if (internal == NULL && !PyErr_Occurred()) {
                    fresh = PyObject_CallOneArg(internal_fn, host);
                    if (fresh != NULL && PyDict_SetItem(internal_of, host, fresh) < 0) Py_CLEAR(fresh);
                    internal = fresh;
                }
                Py_DECREF(host);
                if (internal == NULL) {
                    Py_DECREF(url);
                    goto fail;
                }
            }
            target = PyTuple_Pack(2, url, internal);
            Py_DECREF(url);
            Py_XDECREF(fresh);
            if (target == NULL) goto fail;
            int rc = PyDict_SetItem(targets, href, target);
            Py_DECREF(target);  /* the dict holds it */
            if (rc < 0) goto fail;
        }
        PyObject *url = PyTuple_GET_ITEM(target, 0);
        if (url == Py_None) {
            bad++;
            continue;
        }
        PyObject *values[LINK_FIELDS] = {url, PyTuple_GET_ITEM(c, 3), rel, tag, href_name,
                                         PyTuple_GET_ITEM(target, 1),
                                         (flags & REL_NOFOLLOW) ? Py_True : Py_False};
        if (append_link(out, values) < 0) goto fail;
    }
    Py_DECREF(targets);
    PyObject *made = PyList_AsTuple(out);
    Py_DECREF(out);
    if (made == NULL) return NULL;
    return Py_BuildValue("(Nn)", made, bad);
fail:
    Py_XDECREF(targets);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS, "parse(href: str, base: bytes | None) -> (href, hostname) | None"},
    {"hrefs", hrefs, METH_VARARGS, "hrefs(list[str], base: bytes | None) -> list[str | None]"},
    {"hosts", hosts, METH_O, "hosts(list[str | None]) -> list[str | None]: url_host of each"},
    {"bind_links", bind_links, METH_VARARGS, "bind_links(Link, field names)"},
    {"links", links, METH_VARARGS,
     "links(candidates, base, has_domain, internal_of, internal_fn, reencode, reencode_all) -> (links, bad)"},
    {"make_links", make_links, METH_VARARGS,
     "make_links([(tag, href, rel, text, nofollow)], {href: (url, internal)}) -> (links, bad)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_urls", "Batch URL parsing through ada's C API.", -1, methods,
};

#ifndef ADA_URL_PACKAGE_VERSION
#define ADA_URL_PACKAGE_VERSION "unknown"
#endif

PyMODINIT_FUNC PyInit__urls(void) {
    PyObject *m = PyModule_Create(&module);
    /* the ada-url release whose ada was compiled in (setup.py) */
    if (m != NULL && PyModule_AddStringConstant(m, "ADA_URL_VERSION", ADA_URL_PACKAGE_VERSION) < 0)
        Py_CLEAR(m);
    return m;
}
