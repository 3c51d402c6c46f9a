/* Batch URL parsing through ada's C API (ada_c.h). One C call resolves every distinct href
 * of a document instead of several Python-level calls per href. ada is compiled into this
 * module from the sources the ada-url package ships (setup.py), so the compiler checks
 * every call against ada_c.h (ada_parse, ada_parse_with_base, ada_is_valid, ada_get_href,
 * ada_get_hostname, ada_get_scheme_type, ada_free). Supported: ada-url 4.x (ada 4.0.0 is the first ada that
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

/* ---- Link objects ----------------------------------------------------------------
 * pipeline.extract.fields.Link is a frozen slots dataclass: its generated __init__ sets
 * each field through object.__setattr__, ~1 us a link for ~200 links a page. Here the
 * slots are filled at the offsets their member descriptors give (what those descriptors'
 * __set__ does), once per link, in one call per page. */
#define LINK_FIELDS 8
#define URL_KINDS 7
enum { K_NAVIGATION, K_RESOURCE, K_FORM, K_REFRESH, K_METADATA, K_CSS, K_SCRIPT };
static PyTypeObject *link_type;
static Py_ssize_t link_offsets[LINK_FIELDS];
static PyObject *kind_names[URL_KINDS];
static PyObject *base_name;

/* bind_links(cls, field_names, kinds): cls's slots for url, anchor_text, rel, tag, attr,
 * kind, internal, nofollow (in that order), and url_attributes.KINDS. */
static PyObject *bind_links(PyObject *self, PyObject *args) {
    PyObject *cls, *names, *kinds;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &cls, &PyTuple_Type, &names, &PyTuple_Type, &kinds))
        return NULL;
    if (PyTuple_GET_SIZE(names) != LINK_FIELDS || PyTuple_GET_SIZE(kinds) != URL_KINDS)
        return PyErr_Format(PyExc_ValueError, "%d field names and %d kinds expected", LINK_FIELDS, URL_KINDS);
    static const char *const expected[URL_KINDS] = {"navigation", "resource", "form", "refresh",
                                                    "metadata", "css", "script-string"};
    for (int k = 0; k < URL_KINDS; k++) {
        PyObject *kind = PyTuple_GET_ITEM(kinds, k);
        if (!PyUnicode_Check(kind) || PyUnicode_CompareWithASCIIString(kind, expected[k]) != 0)
            return PyErr_Format(PyExc_ValueError, "kind %d must be %s", k, expected[k]);
        Py_XSETREF(kind_names[k], Py_NewRef(kind));
    }
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
    if (base_name == NULL && (base_name = PyUnicode_InternFromString("base")) == NULL) return NULL;
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

/* ---- a document's links, in one call ------------------------------------------------
 * pipeline.extract.links.extract_links' loop (its Python branch is the reference): each
 * distinct value resolved once per way of resolving it (and re-encoded in the document's
 * encoding through a Python callback where that can change it), its host taken from the
 * same ada parse, the host's internal flag (cached per host in a dict the caller seeds;
 * the callback, pipeline.urlhost's registered domain, decides a new host), and the Link
 * objects. */

enum { REL_NOFOLLOW = 1 };

/* The rel keywords that matter: split on ASCII whitespace, compared ASCII
 * case-insensitively (links.rel_keywords; a keyword with a non-ASCII byte matches none). */
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
    }
    return flags;
}

/* The resolved URL of href (a new reference; None when it does not parse) and, in *host,
 * its host when the scheme is special and the host is not empty (a new reference), else
 * NULL: the one host parser's answer (pipeline.urlhost.parse_host) off the same parse. */
static PyObject *resolve_with_host(PyObject *href, const char *base, Py_ssize_t base_len,
                                   PyObject *reencode, int reencode_all, PyObject **host) {
    *host = NULL;
    Py_ssize_t len;
    const char *data = PyUnicode_AsUTF8AndSize(href, &len);
    if (data == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    ada_url url = parse_href(data, (size_t)len, base, (size_t)base_len);
    PyObject *result;
    if (ada_is_valid(url)) {
        ada_string out = ada_get_href(url);
        result = PyUnicode_DecodeUTF8(out.data, (Py_ssize_t)out.length, "strict");
        ada_string name = ada_get_hostname(url);
        if (result != NULL && name.length && ada_get_scheme_type(url) != 1 /* NOT_SPECIAL */ &&
            (*host = PyUnicode_DecodeUTF8(name.data, (Py_ssize_t)name.length, "strict")) == NULL)
            Py_CLEAR(result);
    } else {
        result = Py_NewRef(Py_None);
    }
    ada_free(url);
    if (result != NULL && result != Py_None && reencode != Py_None &&
        (reencode_all || !PyUnicode_IS_ASCII(href))) {
        Py_SETREF(result, PyObject_CallFunctionObjArgs(reencode, href, result, NULL));
    }
    if (result == NULL) Py_CLEAR(*host);
    return result;
}

static int kind_of(PyObject *kind) {
    for (int k = 0; k < URL_KINDS; k++) {
        if (kind == kind_names[k]) return k;
    }
    for (int k = 0; k < URL_KINDS; k++) {
        if (PyUnicode_Check(kind) && PyUnicode_Compare(kind, kind_names[k]) == 0) return k;
    }
    return -1;
}

enum { WAY_BASE, WAY_PAGE, WAY_SCRIPT, WAY_DOCUMENT_URL, WAYS };

/* links(candidates, base, page_data, page_url, has_domain, internal_of, internal_fn,
 *       reencode, reencode_all) -> (tuple of Link, bad)
 * candidates: [(kind, tag, attr, value, rel, text)] as links.link_candidates gives them; base: the
 * base URL as UTF-8 bytes or None; page_data / page_url: the document's URL as UTF-8 bytes
 * and as str, or None; has_domain: whether the page has a registered domain (else every
 * internal flag is None); internal_of: {host: internal} (read and filled); internal_fn:
 * host -> internal for a host not in it; reencode: (href, url) -> url in the document's
 * encoding, called for non-ASCII hrefs (every href when reencode_all), or None. */
static PyObject *links(PyObject *self, PyObject *args) {
    PyObject *candidates, *base_obj, *page_obj, *page_url, *internal_of, *internal_fn, *reencode;
    int has_domain, reencode_all;
    if (!PyArg_ParseTuple(args, "O!OOOpO!OOp", &PyList_Type, &candidates, &base_obj, &page_obj, &page_url,
                          &has_domain, &PyDict_Type, &internal_of, &internal_fn, &reencode, &reencode_all))
        return NULL;
    if (link_type == NULL) return PyErr_Format(PyExc_RuntimeError, "bind_links() first");
    const char *base = NULL, *page = NULL;
    Py_ssize_t base_len = 0, page_len = 0;
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&base, &base_len) < 0)
        return NULL;
    if (page_obj != Py_None && PyBytes_AsStringAndSize(page_obj, (char **)&page, &page_len) < 0)
        return NULL;
    PyObject *targets[WAYS] = {NULL}, *out = PyList_New(0);  /* per way: value -> (url, internal) */
    Py_ssize_t bad = 0;
    if (out == NULL) goto fail;
    for (int w = 0; w < WAYS; w++) {
        if ((targets[w] = PyDict_New()) == NULL) goto fail;
    }
    Py_ssize_t n = PyList_GET_SIZE(candidates);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(candidates, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 6 || !PyUnicode_Check(PyTuple_GET_ITEM(c, 3))) {
            PyErr_SetString(PyExc_TypeError, "candidates are (kind, tag, attr, value: str, rel, text)");
            goto fail;
        }
        PyObject *tag = PyTuple_GET_ITEM(c, 1), *value = PyTuple_GET_ITEM(c, 3);
        PyObject *rel = PyTuple_GET_ITEM(c, 4);
        int kind = kind_of(PyTuple_GET_ITEM(c, 0));
        if (kind < 0) {
            PyErr_SetString(PyExc_ValueError, "unknown kind");
            goto fail;
        }
        int way = WAY_BASE;
        if ((kind == K_FORM && PyUnicode_GET_LENGTH(value) == 0) ||
            (kind == K_REFRESH && page_url != Py_None && PyUnicode_Compare(value, page_url) == 0))
            way = WAY_DOCUMENT_URL;
        else if (tag == base_name || PyUnicode_Compare(tag, base_name) == 0)
            way = WAY_PAGE;
        else if (kind == K_SCRIPT)
            way = WAY_SCRIPT;
        if (PyErr_Occurred()) goto fail;
        PyObject *target = PyDict_GetItemWithError(targets[way], value);  /* borrowed */
        if (target == NULL) {
            if (PyErr_Occurred()) goto fail;
            PyObject *url, *host;
            if (way == WAY_DOCUMENT_URL) {
                url = page_url == Py_None ? Py_NewRef(Py_None)
                    : resolve_with_host(page_url, NULL, 0, Py_None, 0, &host);
                if (page_url == Py_None) host = NULL;
                if (url != NULL && url != Py_None) Py_SETREF(url, Py_NewRef(page_url));
            } else if (way == WAY_PAGE) {
                url = resolve_with_host(value, page, page_len, reencode, reencode_all, &host);
            } else if (way == WAY_SCRIPT) {
                url = resolve_with_host(value, base, base_len, Py_None, 0, &host);
            } else {
                url = resolve_with_host(value, base, base_len, reencode, reencode_all, &host);
            }
            if (url == NULL) goto fail;
            PyObject *internal = Py_None;  /* borrowed from internal_of, or None */
            PyObject *fresh = NULL;
            if (url != Py_None && has_domain && host != NULL) {
                internal = PyDict_GetItemWithError(internal_of, host);
                if (internal == NULL && !PyErr_Occurred()) {
                    fresh = PyObject_CallOneArg(internal_fn, host);
                    if (fresh != NULL && PyDict_SetItem(internal_of, host, fresh) < 0) Py_CLEAR(fresh);
                    internal = fresh;
                }
            }
            Py_XDECREF(host);
            if (internal == NULL) {
                Py_DECREF(url);
                goto fail;
            }
            target = PyTuple_Pack(2, url, internal);
            Py_DECREF(url);
            Py_XDECREF(fresh);
            if (target == NULL) goto fail;
            int rc = PyDict_SetItem(targets[way], value, target);
            Py_DECREF(target);  /* the dict holds it */
            if (rc < 0) goto fail;
        }
        PyObject *url = PyTuple_GET_ITEM(target, 0);
        if (url == Py_None) {
            if (kind != K_SCRIPT) bad++;  /* a script string that does not parse is no URL */
            continue;
        }
        PyObject *values[LINK_FIELDS] = {url, PyTuple_GET_ITEM(c, 5), rel, tag, PyTuple_GET_ITEM(c, 2),
                                         kind_names[kind], PyTuple_GET_ITEM(target, 1),
                                         (rel_flags(rel) & REL_NOFOLLOW) ? Py_True : Py_False};
        if (append_link(out, values) < 0) goto fail;
    }
    for (int w = 0; w < WAYS; w++) Py_DECREF(targets[w]);
    PyObject *made = PyList_AsTuple(out);
    Py_DECREF(out);
    if (made == NULL) return NULL;
    return Py_BuildValue("(Nn)", made, bad);
fail:
    for (int w = 0; w < WAYS; w++) Py_XDECREF(targets[w]);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS, "parse(href: str, base: bytes | None) -> (href, hostname) | None"},
    {"hrefs", hrefs, METH_VARARGS, "hrefs(list[str], base: bytes | None) -> list[str | None]"},
    {"bind_links", bind_links, METH_VARARGS, "bind_links(Link, field names, kinds)"},
    {"links", links, METH_VARARGS,
     "links(candidates, base, page_data, page_url, has_domain, internal_of, internal_fn, reencode, "
     "reencode_all) -> (links, bad)"},
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
