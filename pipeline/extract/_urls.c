/* Batch URL parsing through ada, compiled into this module from the sources the ada-url
 * package ships (setup.py), behind _ada_base.h: a base URL is parsed once into a slot and a
 * document's hrefs against it (ada's C API would parse the base again for each), and the
 * compiler checks every call against ada.h in _ada_base.cpp. One C call resolves every
 * distinct href of a document instead of several Python-level calls per href. Supported:
 * ada-url 4.x (ada 4.0.0 is the first ada that passes every case of the corpus's
 * urltestdata.json).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdbool.h>
#include <string.h>

#include "_ada_base.h"
#include "_ascii.h"
#include "_candidates.h"
#include "_linkbatch.h"

/* The basic URL parser on href into slot (against base when given): 1 when it parses, 0
 * when not, -1 with MemoryError set. An href starting "http://" or "https://" is parsed
 * alone: after a special scheme and "//" the parser is in the special authority slashes
 * state whatever the base, which it never reads again (URL Standard, basic URL parser,
 * scheme state and special relative or authority state). */
static int parse_href(rd_url *slot, const char *data, size_t len, const rd_url *base) {
    if ((len >= 7 && memcmp(data, "http://", 7) == 0) || (len >= 8 && memcmp(data, "https://", 8) == 0))
        base = NULL;
    int rc = rd_url_parse(slot, data, len, base);
    if (rc < 0) PyErr_NoMemory();
    return rc;
}

/* A slot holding base (UTF-8; NULL: a slot for results), or NULL with MemoryError set. */
static rd_url *new_slot(const char *base, size_t base_len) {
    rd_url *slot = rd_url_new();
    if (slot == NULL || (base != NULL && rd_url_parse(slot, base, base_len, NULL) < 0)) {
        rd_url_free(slot);
        PyErr_NoMemory();
        return NULL;
    }
    return slot;
}

/* The slot's href as a str (a new reference). */
static PyObject *href_of(const rd_url *slot) {
    size_t n;
    const char *href = rd_url_href(slot, &n);
    return PyUnicode_DecodeUTF8(href, (Py_ssize_t)n, "strict");
}

/* The resolved URL of href (a new reference; None when it does not parse or is not a
 * scalar value string), as Resolver.many gives it. */
static PyObject *resolve_one(rd_url *slot, PyObject *href, const rd_url *base) {
    Py_ssize_t len;
    const char *data = PyUnicode_AsUTF8AndSize(href, &len);
    if (data == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear();  /* a lone surrogate: not a scalar value string */
        Py_RETURN_NONE;
    }
    int rc = parse_href(slot, data, (size_t)len, base);
    return rc < 0 ? NULL : rc ? href_of(slot) : Py_NewRef(Py_None);
}

/* The slots of one call: base_obj (bytes or None) parsed into *base (NULL for None) and a
 * slot for results; 0, or -1 with an exception set and nothing to free. */
static int open_slots(PyObject *base_obj, rd_url **base, rd_url **slot) {
    const char *data = NULL;
    Py_ssize_t len = 0;
    *base = *slot = NULL;
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&data, &len) < 0) return -1;
    if ((data != NULL && (*base = new_slot(data, (size_t)len)) == NULL) || (*slot = new_slot(NULL, 0)) == NULL) {
        rd_url_free(*base);
        *base = NULL;
        return -1;
    }
    return 0;
}

/* parse(href: str, base: bytes | None) -> (href, hostname) | None: the basic URL parser
 * on one href (against base when given); None where it fails or the href is not a scalar
 * value string. */
static PyObject *parse(PyObject *self, PyObject *args) {
    PyObject *href, *base_obj;
    rd_url *base, *url;
    if (!PyArg_ParseTuple(args, "UO", &href, &base_obj) || open_slots(base_obj, &base, &url) < 0)
        return NULL;
    Py_ssize_t len;
    const char *data = PyUnicode_AsUTF8AndSize(href, &len);
    PyObject *result = NULL;
    int rc;
    if (data == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear();
            result = Py_NewRef(Py_None);
        }
    } else if ((rc = rd_url_parse(url, data, (size_t)len, base)) < 0) {
        PyErr_NoMemory();
    } else if (rc == 0) {
        result = Py_NewRef(Py_None);
    } else {
        size_t href_len, host_len;
        const char *out = rd_url_href(url, &href_len), *host = rd_url_hostname(url, &host_len);
        result = Py_BuildValue("(s#s#)", out, (Py_ssize_t)href_len, host_len ? host : "",
                               (Py_ssize_t)host_len);
    }
    rd_url_free(url);
    rd_url_free(base);
    return result;
}

/* hrefs(hrefs: list[str], base: bytes | None) -> list[str | None]: each href parsed by
 * the basic URL parser (against base when given); None where it fails or the href is
 * not a scalar value string (a lone surrogate cannot be UTF-8 encoded). */
static PyObject *hrefs(PyObject *self, PyObject *args) {
    PyObject *items, *base_obj;
    rd_url *base, *slot;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &items, &base_obj) || open_slots(base_obj, &base, &slot) < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i), *result;
        if (!PyUnicode_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "hrefs must be str");
            Py_CLEAR(out);
        } else if ((result = resolve_one(slot, item, base)) == NULL) {
            Py_CLEAR(out);
        } else {
            PyList_SET_ITEM(out, i, result);
        }
    }
    rd_url_free(slot);
    rd_url_free(base);
    return out;
}

/* ---- Link objects ----------------------------------------------------------------
 * A page's links are kept as compiled values (PageLinks, _linkbatch.h) and written into the
 * links table by links_batch() without a Python object per link. A Link is made only when a
 * PageLinks is read from Python (a page report, the tests). pipeline.extract.fields.Link is
 * a frozen slots dataclass: its generated __init__ sets each field through
 * object.__setattr__; here the slots are filled at the offsets their member descriptors give
 * (what those descriptors' __set__ does). */
#define LINK_FIELDS 8
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
    for (int k = 0; k < URL_KINDS; k++) {
        PyObject *kind = PyTuple_GET_ITEM(kinds, k);
        if (!PyUnicode_Check(kind) || PyUnicode_CompareWithASCIIString(kind, link_kind_names[k]) != 0)
            return PyErr_Format(PyExc_ValueError, "kind %d must be %s", k, link_kind_names[k]);
        Py_XSETREF(kind_names[k], Py_NewRef(kind));
    }
    /* Links are made as object.__new__(cls) makes an instance, and their slots filled at the
     * offsets of cls's own member descriptors (or those of a class it derives from: the
     * instance has room for them), each a distinct object slot. */
    if (((PyTypeObject *)cls)->tp_new != PyBaseObject_Type.tp_new)
        return PyErr_Format(PyExc_TypeError, "%R is not made by object.__new__", cls);
    Py_ssize_t offsets[LINK_FIELDS];
    for (int i = 0; i < LINK_FIELDS; i++) {
        PyObject *descr = PyObject_GetAttr(cls, PyTuple_GET_ITEM(names, i));
        if (descr == NULL) return NULL;
        int ok = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
                 PyType_IsSubtype((PyTypeObject *)cls, ((PyDescrObject *)descr)->d_type) &&
                 ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX &&
                 !(((PyMemberDescrObject *)descr)->d_member->flags & READONLY);
        if (ok) offsets[i] = ((PyMemberDescrObject *)descr)->d_member->offset;
        Py_DECREF(descr);
        for (int j = 0; ok && j < i; j++) ok = offsets[j] != offsets[i];
        if (!ok) return PyErr_Format(PyExc_TypeError, "field %d is not an object slot of its own", i);
    }
    memcpy(link_offsets, offsets, sizeof offsets);
    if (base_name == NULL && (base_name = PyUnicode_InternFromString("base")) == NULL) return NULL;
    Py_XSETREF(link_type, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

/* The Link of one link of a PageLinks (a new reference), or NULL with an exception set. */
PyObject *link_object(const page_link *l) {
    if (link_type == NULL) {
        PyErr_Format(PyExc_RuntimeError, "bind_links() first");
        return NULL;
    }
    PyObject *internal = l->internal < 0 ? Py_None : l->internal ? Py_True : Py_False;
    PyObject *const values[LINK_FIELDS] = {l->url, l->text, l->rel, l->tag, l->attr, kind_names[l->kind], internal,
                                           l->nofollow ? Py_True : Py_False};
    PyObject *none = PyTuple_New(0);
    if (none == NULL) return NULL;
    PyObject *link = PyBaseObject_Type.tp_new(link_type, none, NULL);  /* object.__new__(Link) */
    Py_DECREF(none);
    if (link == NULL) return NULL;
    for (int k = 0; k < LINK_FIELDS; k++)
        *(PyObject **)((char *)link + link_offsets[k]) = Py_NewRef(values[k]);
    return link;
}

/* ---- a document's links, in one call ------------------------------------------------
 * tests/oracles/extract.py's extract_links, one candidate at a time, is the oracle: each
 * distinct value resolved once per way of resolving it (and re-encoded in the document's
 * encoding through a Python callback where that can change it), its host taken from the
 * same ada parse, the host's internal flag (cached per host in a dict the caller seeds;
 * the callback, pipeline.urlhost's registered domain, decides a new host), and the links
 * appended to a PageLinks. */

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

/* What a value resolved to, per way of resolving it: a hash table keyed by (way, the value's
 * UTF-8 bytes); the keys point into the caller's data (a pack, or the candidates' str). */
typedef struct {
    uint64_t hash;
    const char *key;
    size_t len;
    PyObject *url, *internal;  /* new references; internal None when unknown */
    int way;
} target_t;

/* The internal flag of each host met (keys: the host's bytes, copied). */
typedef struct {
    uint64_t hash;
    char *key;
    size_t len;
    PyObject *internal;  /* a new reference */
} host_t;

typedef struct {
    const char *base, *page;
    Py_ssize_t base_len, page_len;
    PyObject *page_url, *internal_of, *internal_fn, *reencode;
    int has_domain, reencode_all;
    target_t *targets;
    size_t target_mask, target_count;
    host_t *hosts;
    size_t host_mask, host_count;
    PyObject *rel;  /* the last rel value seen and its nofollow */
    int rel_nofollow;
    page_links *out;
    Py_ssize_t bad;
    rd_url *slot, *base_slot, *page_slot;  /* results; base and page, parsed on first use */
} links_t;

static uint64_t bytes_hash(const char *s, size_t n, uint64_t seed) {
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ULL);
    size_t i = 0;
    for (uint64_t w; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}

/* Room for one more entry in an open-addressing table of power-of-two size (entries of
 * `size` bytes whose first field is the hash, 0 marking a free slot). */
static int table_room(void **slots, size_t *mask, size_t count, size_t size) {
    if (*slots != NULL && (count + 1) * 2 <= *mask + 1) return 0;
    size_t cap = *slots != NULL ? (*mask + 1) * 2 : 256;
    char *grown = PyMem_Calloc(cap, size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (*slots != NULL) {
        for (size_t i = 0; i <= *mask; i++) {
            const char *old = (const char *)*slots + i * size;
            uint64_t h;
            memcpy(&h, old, sizeof h);
            if (h == 0) continue;
            size_t j = h & (cap - 1);
            while (((uint64_t *)(void *)(grown + j * size))[0] != 0) j = (j + 1) & (cap - 1);
            memcpy(grown + j * size, old, size);
        }
        PyMem_Free(*slots);
    }
    *slots = grown;
    *mask = cap - 1;
    return 0;
}

/* The internal flag of host (borrowed from the cache): internal_of's answer, else
 * internal_fn's (stored in internal_of too). */
static PyObject *internal_of_host(links_t *L, const char *host, size_t len) {
    uint64_t h = bytes_hash(host, len, 0x5bd1e995) | 1;
    if (table_room((void **)&L->hosts, &L->host_mask, L->host_count, sizeof(host_t)) < 0) return NULL;
    size_t i = h & L->host_mask;
    for (; L->hosts[i].hash != 0; i = (i + 1) & L->host_mask) {
        const host_t *e = &L->hosts[i];
        if (e->hash == h && e->len == len && memcmp(e->key, host, len) == 0) return e->internal;
    }
    PyObject *name = PyUnicode_DecodeUTF8(host, (Py_ssize_t)len, "strict");
    if (name == NULL) return NULL;
    PyObject *internal = PyDict_GetItemWithError(L->internal_of, name);  /* borrowed */
    if (internal != NULL) {
        Py_INCREF(internal);
    } else if (!PyErr_Occurred()) {
        internal = PyObject_CallOneArg(L->internal_fn, name);
        if (internal != NULL && PyDict_SetItem(L->internal_of, name, internal) < 0) Py_CLEAR(internal);
    }
    Py_DECREF(name);
    char *key = internal != NULL ? PyMem_Malloc(len ? len : 1) : NULL;
    if (key == NULL) {
        if (internal != NULL) PyErr_NoMemory();
        Py_XDECREF(internal);
        return NULL;
    }
    memcpy(key, host, len);
    L->hosts[i] = (host_t){h, key, len, internal};
    L->host_count++;
    return internal;
}

/* The basic URL parser on the value (against base when given): the href (a new reference;
 * None when it does not parse) and the host's internal flag (borrowed; None when the page
 * has no registered domain, the scheme is not special or the host is empty), as
 * pipeline.urlhost.parse_host reads the host off the same parse. href_obj is the value as a
 * str, or NULL to make it when the document's encoding needs it. */
static PyObject *resolve(links_t *L, const char *value, size_t len, PyObject *href_obj, const char *base,
                         Py_ssize_t base_len, int reencode, PyObject **internal) {
    *internal = Py_None;
    const rd_url *base_url = NULL;
    if (base != NULL) {
        rd_url **kept = base == L->page ? &L->page_slot : &L->base_slot;
        if (*kept == NULL && (*kept = new_slot(base, (size_t)base_len)) == NULL) return NULL;
        base_url = *kept;
    }
    if (L->slot == NULL && (L->slot = new_slot(NULL, 0)) == NULL) return NULL;
    int rc = parse_href(L->slot, value, len, base_url);
    if (rc <= 0) return rc < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *result = href_of(L->slot);
    size_t host_len;
    const char *host = rd_url_hostname(L->slot, &host_len);
    if (result != NULL && L->has_domain && host_len && rd_url_special(L->slot) &&
        (*internal = internal_of_host(L, host, host_len)) == NULL)
        Py_CLEAR(result);
    if (result != NULL && reencode && L->reencode != Py_None) {
        int ascii = 1;
        for (size_t i = 0; i < len && ascii; i++) ascii = (unsigned char)value[i] < 0x80;
        if (L->reencode_all || !ascii) {
            PyObject *href = href_obj != NULL ? Py_NewRef(href_obj)
                                              : PyUnicode_DecodeUTF8(value, (Py_ssize_t)len, "strict");
            Py_SETREF(result, href == NULL ? NULL : PyObject_CallFunctionObjArgs(L->reencode, href, result, NULL));
            Py_XDECREF(href);
        }
    }
    return result;
}

/* The target of one candidate: (url, internal), borrowed from the table (url None: the value
 * does not parse), NULL on error. value is NULL for a str that is not a scalar value string
 * (it has no UTF-8: it does not parse). */
static target_t *target_of(links_t *L, int way, const char *value, size_t len, PyObject *href_obj) {
    static target_t unparsed = {0, NULL, 0, NULL, NULL, 0};
    if (value == NULL) {
        unparsed.url = Py_None;
        unparsed.internal = Py_None;
        return &unparsed;
    }
    uint64_t h = bytes_hash(value, len, (uint64_t)way + 1) | 1;
    if (table_room((void **)&L->targets, &L->target_mask, L->target_count, sizeof(target_t)) < 0) return NULL;
    size_t i = h & L->target_mask;
    for (; L->targets[i].hash != 0; i = (i + 1) & L->target_mask) {
        target_t *e = &L->targets[i];
        if (e->hash == h && e->way == way && e->len == len && memcmp(e->key, value, len) == 0) return e;
    }
    PyObject *url, *internal = Py_None;
    if (way == WAY_DOCUMENT_URL) {
        url = L->page_url == Py_None ? Py_NewRef(Py_None)
            : resolve(L, L->page, (size_t)L->page_len, L->page_url, NULL, 0, 0, &internal);
        if (url != NULL && url != Py_None) Py_SETREF(url, Py_NewRef(L->page_url));
    } else if (way == WAY_PAGE) {
        url = resolve(L, value, len, href_obj, L->page, L->page_len, 1, &internal);
    } else if (way == WAY_SCRIPT) {
        url = resolve(L, value, len, href_obj, L->base, L->base_len, 0, &internal);
    } else {
        url = resolve(L, value, len, href_obj, L->base, L->base_len, 1, &internal);
    }
    if (url == NULL) return NULL;
    L->targets[i] = (target_t){h, value, len, url, Py_NewRef(internal), way};
    L->target_count++;
    return &L->targets[i];
}

/* Appends the link of one candidate (or counts a value that does not parse); value_obj is
 * the value as a str when the caller has one (NULL: made only if needed). */
static int link_one(links_t *L, int kind, PyObject *tag, PyObject *attr, PyObject *rel, PyObject *text,
                    const char *value, size_t len, PyObject *value_obj) {
    int way = WAY_BASE;
    if ((kind == K_FORM && len == 0 && value != NULL) ||
        (kind == K_REFRESH && L->page_url != Py_None && value != NULL && (Py_ssize_t)len == L->page_len &&
         memcmp(value, L->page, len) == 0))
        way = WAY_DOCUMENT_URL;
    else if (tag == base_name || PyUnicode_Compare(tag, base_name) == 0)
        way = WAY_PAGE;
    else if (kind == K_SCRIPT)
        way = WAY_SCRIPT;
    if (PyErr_Occurred()) return -1;
    target_t *target = target_of(L, way, value, len, value_obj);
    if (target == NULL) return -1;
    if (target->url == Py_None) {
        if (kind != K_SCRIPT) L->bad++;  /* a script string that does not parse is no URL */
        return 0;
    }
    if (rel != L->rel) {
        L->rel = rel;
        L->rel_nofollow = rel_flags(rel) & REL_NOFOLLOW;
    }
    int internal = -1;
    if (target->internal != Py_None && (internal = PyObject_IsTrue(target->internal)) < 0) return -1;
    page_link link = {target->url, text, rel, tag, attr, (signed char)internal, (unsigned char)kind,
                      (unsigned char)(L->rel_nofollow != 0)};
    return page_links_append(L->out, &link);
}

/* Parses the arguments common to links() and links_packed() (after the candidates). */
static int links_start(links_t *L, PyObject *base_obj, PyObject *page_obj) {
    if (link_type == NULL) {
        PyErr_Format(PyExc_RuntimeError, "bind_links() first");
        return -1;
    }
    if (base_obj != Py_None && PyBytes_AsStringAndSize(base_obj, (char **)&L->base, &L->base_len) < 0)
        return -1;
    if (page_obj != Py_None && PyBytes_AsStringAndSize(page_obj, (char **)&L->page, &L->page_len) < 0)
        return -1;
    if ((L->page_url == Py_None) != (page_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "page_data and page_url go together");
        return -1;
    }
    L->out = page_links_new();
    return L->out == NULL ? -1 : 0;
}

/* (PageLinks, bad), and the tables freed. */
static PyObject *links_end(links_t *L, int ok) {
    for (size_t i = 0; L->targets != NULL && i <= L->target_mask; i++) {
        if (L->targets[i].hash == 0) continue;
        Py_DECREF(L->targets[i].url);
        Py_DECREF(L->targets[i].internal);
    }
    for (size_t i = 0; L->hosts != NULL && i <= L->host_mask; i++) {
        if (L->hosts[i].hash == 0) continue;
        PyMem_Free(L->hosts[i].key);
        Py_DECREF(L->hosts[i].internal);
    }
    PyMem_Free(L->targets);
    PyMem_Free(L->hosts);
    rd_url_free(L->slot);
    rd_url_free(L->base_slot);
    rd_url_free(L->page_slot);
    if (!ok) {
        Py_XDECREF(L->out);
        return NULL;
    }
    return Py_BuildValue("(Nn)", (PyObject *)L->out, L->bad);
}

/* One candidate tuple (kind, tag, attr, value, rel, text) as link_one takes it. */
static int link_of_tuple(links_t *L, PyObject *c) {
    if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 6 || !PyUnicode_Check(PyTuple_GET_ITEM(c, 3)) ||
        !PyUnicode_Check(PyTuple_GET_ITEM(c, 1))) {
        PyErr_SetString(PyExc_TypeError, "candidates are (kind, tag: str, attr, value: str, rel, text)");
        return -1;
    }
    int kind = kind_of(PyTuple_GET_ITEM(c, 0));
    if (kind < 0) {
        PyErr_SetString(PyExc_ValueError, "unknown kind");
        return -1;
    }
    PyObject *value = PyTuple_GET_ITEM(c, 3);
    Py_ssize_t len;
    const char *data = PyUnicode_AsUTF8AndSize(value, &len);
    if (data == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();  /* a lone surrogate: not a scalar value string */
        len = PyUnicode_GET_LENGTH(value);  /* (only "empty or not" matters then) */
    }
    return link_one(L, kind, PyTuple_GET_ITEM(c, 1), PyTuple_GET_ITEM(c, 2), PyTuple_GET_ITEM(c, 4),
                    PyTuple_GET_ITEM(c, 5), data, data != NULL ? (size_t)len : (size_t)len, value);
}

/* links(candidates, base, page_data, page_url, has_domain, internal_of, internal_fn,
 *       reencode, reencode_all) -> (PageLinks, bad)
 * candidates: [(kind, tag, attr, value, rel, text)] as the walk gives them; base: the
 * base URL as UTF-8 bytes or None; page_data / page_url: the document's URL as UTF-8 bytes
 * and as str, or None; has_domain: whether the page has a registered domain (else every
 * internal flag is None); internal_of: {host: internal} (read and filled); internal_fn:
 * host -> internal for a host not in it; reencode: (href, url) -> url in the document's
 * encoding, called for non-ASCII hrefs (every href when reencode_all), or None. Each
 * distinct value is resolved once per way of resolving it. */
static PyObject *links(PyObject *self, PyObject *args) {
    PyObject *candidates, *base_obj, *page_obj;
    links_t L = {0};
    if (!PyArg_ParseTuple(args, "O!OOOpO!OOp", &PyList_Type, &candidates, &base_obj, &page_obj, &L.page_url,
                          &L.has_domain, &PyDict_Type, &L.internal_of, &L.internal_fn, &L.reencode,
                          &L.reencode_all))
        return NULL;
    if (links_start(&L, base_obj, page_obj) < 0) return links_end(&L, 0);
    /* A tuple of the candidates: the callbacks may change the list, and the table keeps
     * pointers into the values' UTF-8, which must outlive the call. */
    PyObject *items = PyList_AsTuple(candidates);
    int ok = items != NULL;
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(items); i++)
        ok = link_of_tuple(&L, PyTuple_GET_ITEM(items, i)) == 0;
    PyObject *result = links_end(&L, ok);
    Py_XDECREF(items);
    return result;
}

/* links_packed(pack, objects, extra, base, page_data, page_url, has_domain, internal_of,
 *              internal_fn, reencode, reencode_all) -> (PageLinks, bad)
 * links() over the candidates of a pack (_candidates.h: pack, the bytes; objects, the list
 * its records index) followed by the candidate tuples of `extra`. */
static PyObject *links_packed(PyObject *self, PyObject *args) {
    PyObject *pack, *objects, *extra, *base_obj, *page_obj;
    links_t L = {0};
    if (!PyArg_ParseTuple(args, "O!O!O!OOOpO!OOp", &PyBytes_Type, &pack, &PyList_Type, &objects, &PyList_Type,
                          &extra, &base_obj, &page_obj, &L.page_url, &L.has_domain, &PyDict_Type,
                          &L.internal_of, &L.internal_fn, &L.reencode, &L.reencode_all))
        return NULL;
    if (links_start(&L, base_obj, page_obj) < 0) return links_end(&L, 0);
    const char *data = PyBytes_AS_STRING(pack);
    size_t n = (size_t)PyBytes_GET_SIZE(pack), at = CANDIDATES_MAGIC_LEN;
    /* tuples of the lists, which the callbacks may change (see links()) */
    PyObject *held = Py_BuildValue("(NN)", PyList_AsTuple(objects), PyList_AsTuple(extra));
    if (held == NULL) return links_end(&L, 0);
    objects = PyTuple_GET_ITEM(held, 0);
    extra = PyTuple_GET_ITEM(held, 1);
    size_t count = (size_t)PyTuple_GET_SIZE(objects);
    int ok = n >= at && memcmp(data, CANDIDATES_MAGIC, at) == 0;
    if (!ok) PyErr_SetString(PyExc_ValueError, "not a pack of link candidates");
    while (ok && at < n) {
        candidate_head head;
        ok = n - at >= sizeof head;
        if (ok) {
            memcpy(&head, data + at, sizeof head);
            at += sizeof head;
            ok = head.kind < URL_KINDS && head.tag < count && head.attr < count && head.rel < count &&
                 head.text < count && head.length <= n - at && PyUnicode_Check(PyTuple_GET_ITEM(objects, head.tag));
        }
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "not a pack of link candidates");
            break;
        }
        ok = link_one(&L, (int)head.kind, PyTuple_GET_ITEM(objects, head.tag), PyTuple_GET_ITEM(objects, head.attr),
                      PyTuple_GET_ITEM(objects, head.rel), PyTuple_GET_ITEM(objects, head.text), data + at,
                      head.length, NULL) == 0;
        at += head.length;
    }
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(extra); i++)
        ok = link_of_tuple(&L, PyTuple_GET_ITEM(extra, i)) == 0;
    PyObject *result = links_end(&L, ok);
    Py_DECREF(held);
    return result;
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS, "parse(href: str, base: bytes | None) -> (href, hostname) | None"},
    {"hrefs", hrefs, METH_VARARGS, "hrefs(list[str], base: bytes | None) -> list[str | None]"},
    {"bind_links", bind_links, METH_VARARGS, "bind_links(Link, field names, kinds)"},
    {"links", links, METH_VARARGS,
     "links(candidates, base, page_data, page_url, has_domain, internal_of, internal_fn, reencode, "
     "reencode_all) -> (links, bad)"},
    {"links_packed", links_packed, METH_VARARGS,
     "links_packed(pack, objects, extra, base, page_data, page_url, has_domain, internal_of, internal_fn, "
     "reencode, reencode_all) -> (links, bad)"},
    {"links_batch", links_batch, METH_VARARGS,
     "links_batch(schema capsule, [(PageLinks, run_id, record_id, url)]) -> (schema capsule, array capsule)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_urls", "Batch URL parsing through ada.", -1, methods,
};

#ifndef ADA_URL_PACKAGE_VERSION
#define ADA_URL_PACKAGE_VERSION "unknown"
#endif

PyMODINIT_FUNC PyInit__urls(void) {
    PyObject *m = PyModule_Create(&module);
    /* the ada-url release whose ada was compiled in (setup.py) */
    if (m != NULL && (PyModule_AddStringConstant(m, "ADA_URL_VERSION", ADA_URL_PACKAGE_VERSION) < 0 ||
                      PyModule_AddStringConstant(m, "NANOARROW_VERSION", linkbatch_nanoarrow_version()) < 0 ||
                      page_links_ready(m) < 0))
        Py_CLEAR(m);
    return m;
}
