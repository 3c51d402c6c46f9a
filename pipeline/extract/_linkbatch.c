/* A page's links (PageLinks) and the links table of a batch of pages as one Arrow record
 * batch, built by nanoarrow (setup.py compiles it in from the nanoarrow sdist) and handed to
 * pyarrow through the Arrow C Data Interface's PyCapsules ("arrow_schema", "arrow_array":
 * https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html). The struct
 * layouts are nanoarrow's own headers'; Python passes capsules and objects, never addresses.
 */

#include "_linkbatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nanoarrow/nanoarrow.h"

const char *const link_kind_names[URL_KINDS] = {"navigation", "resource", "form", "refresh",
                                                "metadata", "css", "script-string"};

const char *linkbatch_nanoarrow_version(void) { return ArrowNanoarrowVersion(); }

/* ---- PageLinks --------------------------------------------------------------------- */

static void page_links_dealloc(page_links *self) {
    for (Py_ssize_t i = 0; i < self->count; i++) {
        page_link *l = &self->links[i];
        Py_DECREF(l->url);
        Py_DECREF(l->text);
        Py_DECREF(l->rel);
        Py_DECREF(l->tag);
        Py_DECREF(l->attr);
    }
    PyMem_Free(self->links);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject page_links_type;

page_links *page_links_new(void) {
    return (page_links *)page_links_type.tp_alloc(&page_links_type, 0); /* (zeroed: no links) */
}

int page_links_append(page_links *self, const page_link *link) {
    if (self->count == self->capacity) {
        Py_ssize_t cap = self->capacity ? self->capacity * 2 : 64;
        page_link *grown = PyMem_Realloc(self->links, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->links = grown;
        self->capacity = cap;
    }
    page_link *l = &self->links[self->count++];
    *l = *link;
    Py_INCREF(l->url);
    Py_INCREF(l->text);
    Py_INCREF(l->rel);
    Py_INCREF(l->tag);
    Py_INCREF(l->attr);
    return 0;
}

/* PageLinks(): no links (an extraction that made none). */
static PyObject *page_links_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if ((kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) || !PyArg_ParseTuple(args, ":PageLinks")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "PageLinks() takes no arguments");
        return NULL;
    }
    return type->tp_alloc(type, 0); /* (zeroed: no links) */
}

static Py_ssize_t page_links_length(page_links *self) { return self->count; }

static PyObject *page_links_item(page_links *self, Py_ssize_t i) {
    if (i < 0 || i >= self->count) {
        PyErr_SetString(PyExc_IndexError, "PageLinks index out of range");
        return NULL;
    }
    return link_object(&self->links[i]);
}

/* The links from start by step, slicelength of them, as a tuple of Link. */
static PyObject *page_links_tuple(page_links *self, Py_ssize_t start, Py_ssize_t step, Py_ssize_t n) {
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t k = 0; out != NULL && k < n; k++) {
        PyObject *link = link_object(&self->links[start + k * step]);
        if (link == NULL) Py_CLEAR(out);
        else PyTuple_SET_ITEM(out, k, link);
    }
    return out;
}

static PyObject *page_links_subscript(page_links *self, PyObject *key) {
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
        Py_ssize_t n = PySlice_AdjustIndices(self->count, &start, &stop, step);
        return page_links_tuple(self, start, step, n);
    }
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0) i += self->count;
    return page_links_item(self, i);
}

/* Equal to a PageLinks, tuple or list holding equal Links in the same order. */
static PyObject *page_links_richcompare(page_links *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) ||
        !(PyTuple_Check(other) || PyList_Check(other) || Py_IS_TYPE(other, &page_links_type)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *mine = page_links_tuple(self, 0, 1, self->count), *theirs = NULL;
    if (mine == NULL) return NULL;
    if (Py_IS_TYPE(other, &page_links_type)) {
        page_links *o = (page_links *)other;
        theirs = page_links_tuple(o, 0, 1, o->count);
    } else {
        theirs = PySequence_Tuple(other);
    }
    PyObject *result = theirs == NULL ? NULL : PyObject_RichCompare(mine, theirs, op);
    Py_DECREF(mine);
    Py_XDECREF(theirs);
    return result;
}

/* Immutable: hashed as the tuple of its Links (which are frozen), as it compares. */
static Py_hash_t page_links_hash(page_links *self) {
    PyObject *mine = page_links_tuple(self, 0, 1, self->count);
    if (mine == NULL) return -1;
    Py_hash_t h = PyObject_Hash(mine);
    Py_DECREF(mine);
    return h;
}

static PyObject *page_links_iter(page_links *self) { return PySeqIter_New((PyObject *)self); }

static PyObject *page_links_repr(page_links *self) {
    return PyUnicode_FromFormat("<PageLinks: %zd links>", self->count);
}

static PySequenceMethods page_links_as_sequence = {
    .sq_length = (lenfunc)page_links_length,
    .sq_item = (ssizeargfunc)page_links_item,
};

static PyMappingMethods page_links_as_mapping = {
    .mp_length = (lenfunc)page_links_length,
    .mp_subscript = (binaryfunc)page_links_subscript,
};

static PyTypeObject page_links_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pipeline.native._urls.PageLinks",
    .tp_doc = "A page's links, in order: each a Link when read (len, index, slice, iterate).",
    .tp_basicsize = sizeof(page_links),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = page_links_tp_new,
    .tp_dealloc = (destructor)page_links_dealloc,
    .tp_as_sequence = &page_links_as_sequence,
    .tp_as_mapping = &page_links_as_mapping,
    .tp_richcompare = (richcmpfunc)page_links_richcompare,
    .tp_iter = (getiterfunc)page_links_iter,
    .tp_hash = (hashfunc)page_links_hash,
    .tp_repr = (reprfunc)page_links_repr,
};

int page_links_ready(PyObject *m) {
    if (PyType_Ready(&page_links_type) < 0) return -1;
    return PyModule_AddObjectRef(m, "PageLinks", (PyObject *)&page_links_type);
}

/* ---- the links table of a batch of pages ---------------------------------------------- */

/* The columns links_batch fills, by name: the requested schema (pipeline.schema.LINKS) gives
 * their order; each must be there once, with this type, and no other. */
enum { C_RUN_ID, C_RECORD_ID, C_URL, C_TARGET_URL, C_ANCHOR_TEXT, C_REL, C_TAG, C_ATTR, C_KIND,
       C_INTERNAL, C_NOFOLLOW, COLUMNS };
static const struct {
    const char *name;
    enum ArrowType type;
} columns[COLUMNS] = {
    {"run_id", NANOARROW_TYPE_STRING},      {"record_id", NANOARROW_TYPE_STRING},
    {"url", NANOARROW_TYPE_STRING},         {"target_url", NANOARROW_TYPE_STRING},
    {"anchor_text", NANOARROW_TYPE_STRING}, {"rel", NANOARROW_TYPE_STRING},
    {"tag", NANOARROW_TYPE_STRING},         {"attr", NANOARROW_TYPE_STRING},
    {"kind", NANOARROW_TYPE_STRING},        {"internal", NANOARROW_TYPE_BOOL},
    {"nofollow", NANOARROW_TYPE_BOOL},
};

/* child[c]: the index in the schema of column c. 0, or -1 with ValueError set. */
static int schema_columns(const struct ArrowSchema *schema, int64_t child[COLUMNS]) {
    struct ArrowSchemaView view;
    struct ArrowError error = {{0}};
    if (ArrowSchemaViewInit(&view, schema, &error) != NANOARROW_OK || view.type != NANOARROW_TYPE_STRUCT ||
        schema->n_children != COLUMNS) {
        PyErr_Format(PyExc_ValueError, "the schema is not a struct of the %d links columns", COLUMNS);
        return -1;
    }
    for (int c = 0; c < COLUMNS; c++) child[c] = -1;
    for (int64_t i = 0; i < schema->n_children; i++) {
        const struct ArrowSchema *field = schema->children[i];
        int c = 0;
        while (c < COLUMNS && (field->name == NULL || strcmp(field->name, columns[c].name) != 0)) c++;
        if (c == COLUMNS || child[c] >= 0 || ArrowSchemaViewInit(&view, field, &error) != NANOARROW_OK ||
            view.type != columns[c].type || field->dictionary != NULL) {
            PyErr_Format(PyExc_ValueError, "links column %d (%s) is not one of the links columns, once, "
                         "with its type", (int)i, field->name != NULL ? field->name : "?");
            return -1;
        }
        child[c] = i;
    }
    return 0;
}

/* The UTF-8 of a str, or NULL (and len 0) for None; a str that has none (a lone surrogate)
 * raises UnicodeEncodeError, as pyarrow's conversion does. ok is cleared on error. */
static const char *utf8_of(PyObject *value, Py_ssize_t *len, int *ok) {
    *len = 0;
    if (value == Py_None) return NULL;
    if (!PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "a links value must be str or None, not %.100s", Py_TYPE(value)->tp_name);
        *ok = 0;
        return NULL;
    }
    const char *data = PyUnicode_AsUTF8AndSize(value, len);
    if (data == NULL) *ok = 0;
    return data;
}

/* Appends a string (NULL: a null) to a string column; 0, or -1 with an exception set. */
static int append_string(struct ArrowArray *column, const char *data, Py_ssize_t len) {
    ArrowErrorCode rc;
    if (data == NULL) {
        rc = ArrowArrayAppendNull(column, 1);
    } else {
        struct ArrowStringView view = {data, (int64_t)len};
        rc = ArrowArrayAppendString(column, view);
    }
    if (rc == NANOARROW_OK) return 0;
    if (rc == EOVERFLOW) PyErr_SetString(PyExc_OverflowError, "a links string column outgrew 2 GiB");
    else PyErr_NoMemory();
    return -1;
}

static int append_bool(struct ArrowArray *column, int value) {
    if ((value < 0 ? ArrowArrayAppendNull(column, 1) : ArrowArrayAppendInt(column, value)) == NANOARROW_OK)
        return 0;
    PyErr_NoMemory();
    return -1;
}

/* The links of one page (its record's run_id, record_id and url, as UTF-8) appended. */
static int append_page(struct ArrowArray *batch, const int64_t child[COLUMNS], const page_links *page,
                       PyObject *run_id, PyObject *record_id, PyObject *url) {
    int ok = 1;
    Py_ssize_t run_len, record_len, url_len;
    const char *run = utf8_of(run_id, &run_len, &ok), *record = utf8_of(record_id, &record_len, &ok),
               *page_url = utf8_of(url, &url_len, &ok);
    if (!ok) return -1;
    struct ArrowArray **col = batch->children;
    for (Py_ssize_t i = 0; i < page->count; i++) {
        const page_link *l = &page->links[i];
        Py_ssize_t lens[5];
        const char *strings[5] = {utf8_of(l->url, &lens[0], &ok), utf8_of(l->text, &lens[1], &ok),
                                  utf8_of(l->rel, &lens[2], &ok), utf8_of(l->tag, &lens[3], &ok),
                                  utf8_of(l->attr, &lens[4], &ok)};
        if (!ok) return -1;
        if (l->kind >= URL_KINDS) {
            PyErr_SetString(PyExc_ValueError, "a link of an unknown kind");
            return -1;
        }
        const char *kind = link_kind_names[l->kind];
        if (append_string(col[child[C_RUN_ID]], run, run_len) < 0 ||
            append_string(col[child[C_RECORD_ID]], record, record_len) < 0 ||
            append_string(col[child[C_URL]], page_url, url_len) < 0 ||
            append_string(col[child[C_TARGET_URL]], strings[0], lens[0]) < 0 ||
            append_string(col[child[C_ANCHOR_TEXT]], strings[1], lens[1]) < 0 ||
            append_string(col[child[C_REL]], strings[2], lens[2]) < 0 ||
            append_string(col[child[C_TAG]], strings[3], lens[3]) < 0 ||
            append_string(col[child[C_ATTR]], strings[4], lens[4]) < 0 ||
            append_string(col[child[C_KIND]], kind, (Py_ssize_t)strlen(kind)) < 0 ||
            append_bool(col[child[C_INTERNAL]], l->internal) < 0 || append_bool(col[child[C_NOFOLLOW]], l->nofollow) < 0)
            return -1;
        if (ArrowArrayFinishElement(batch) != NANOARROW_OK) {
            PyErr_SetString(PyExc_RuntimeError, "the links columns went out of step");
            return -1;
        }
    }
    return 0;
}

/* PyCapsule destructors of the interface: release what the consumer did not move out. */
static void release_schema_capsule(PyObject *capsule) {
    struct ArrowSchema *schema = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (schema == NULL) {
        PyErr_WriteUnraisable(capsule);
        return;
    }
    if (schema->release != NULL) schema->release(schema);
    free(schema);
}

static void release_array_capsule(PyObject *capsule) {
    struct ArrowArray *array = PyCapsule_GetPointer(capsule, "arrow_array");
    if (array == NULL) {
        PyErr_WriteUnraisable(capsule);
        return;
    }
    if (array->release != NULL) array->release(array);
    free(array);
}

/* links_batch(schema, pages) -> (schema capsule, array capsule)
 * schema: a PyCapsule "arrow_schema" of the links table's schema (pipeline.schema.LINKS's
 * __arrow_c_schema__()); pages: a list of (PageLinks, run_id, record_id, url), the record's
 * values as str (url: str or None). The links of every page, in order, each with its page's
 * record values, as one record batch of that schema: one builder for the batch. */
PyObject *links_batch(PyObject *self, PyObject *args) {
    PyObject *schema_obj, *pages;
    if (!PyArg_ParseTuple(args, "OO!:links_batch", &schema_obj, &PyList_Type, &pages)) return NULL;
    if (!PyCapsule_IsValid(schema_obj, "arrow_schema")) {
        PyErr_SetString(PyExc_TypeError, "schema must be a PyCapsule named 'arrow_schema'");
        return NULL;
    }
    const struct ArrowSchema *requested = PyCapsule_GetPointer(schema_obj, "arrow_schema");
    int64_t child[COLUMNS];
    if (requested == NULL || requested->release == NULL) {
        PyErr_SetString(PyExc_ValueError, "the schema capsule was released");
        return NULL;
    }
    if (schema_columns(requested, child) < 0) return NULL;
    /* the pages, checked first (nothing below calls back into Python code that could change
     * the list, but a tuple of it keeps every page alive whatever happens) */
    PyObject *held = PyList_AsTuple(pages);
    if (held == NULL) return NULL;
    for (Py_ssize_t p = 0; p < PyTuple_GET_SIZE(held); p++) {
        PyObject *item = PyTuple_GET_ITEM(held, p);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 4 ||
            !Py_IS_TYPE(PyTuple_GET_ITEM(item, 0), &page_links_type)) {
            PyErr_SetString(PyExc_TypeError, "pages are (PageLinks, run_id, record_id, url) tuples");
            Py_DECREF(held);
            return NULL;
        }
    }
    struct ArrowArray batch;
    struct ArrowError error = {{0}};
    if (ArrowArrayInitFromSchema(&batch, requested, &error) != NANOARROW_OK) {
        PyErr_Format(PyExc_ValueError, "links schema: %s", error.message);
        Py_DECREF(held);
        return NULL;
    }
    int ok = ArrowArrayStartAppending(&batch) == NANOARROW_OK;
    if (!ok) PyErr_NoMemory();
    for (Py_ssize_t p = 0; ok && p < PyTuple_GET_SIZE(held); p++) {
        PyObject *item = PyTuple_GET_ITEM(held, p);
        ok = append_page(&batch, child, (const page_links *)PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1),
                         PyTuple_GET_ITEM(item, 2), PyTuple_GET_ITEM(item, 3)) == 0;
    }
    Py_DECREF(held);
    if (ok && ArrowArrayFinishBuildingDefault(&batch, &error) != NANOARROW_OK) {
        PyErr_Format(PyExc_ValueError, "links batch: %s", error.message);
        ok = 0;
    }
    struct ArrowSchema *schema_out = ok ? malloc(sizeof *schema_out) : NULL;
    struct ArrowArray *array_out = ok ? malloc(sizeof *array_out) : NULL;
    if (ok && (schema_out == NULL || array_out == NULL)) {
        PyErr_NoMemory();
        ok = 0;
    }
    if (ok) {
        schema_out->release = NULL;
        if (ArrowSchemaDeepCopy(requested, schema_out) != NANOARROW_OK) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    if (!ok) {
        batch.release(&batch);
        free(schema_out);
        free(array_out);
        return NULL;
    }
    ArrowArrayMove(&batch, array_out);
    PyObject *schema_capsule = PyCapsule_New(schema_out, "arrow_schema", release_schema_capsule);
    if (schema_capsule == NULL) {
        schema_out->release(schema_out);
        free(schema_out);
        array_out->release(array_out);
        free(array_out);
        return NULL;
    }
    PyObject *array_capsule = PyCapsule_New(array_out, "arrow_array", release_array_capsule);
    if (array_capsule == NULL) {
        Py_DECREF(schema_capsule);
        array_out->release(array_out);
        free(array_out);
        return NULL;
    }
    return Py_BuildValue("(NN)", schema_capsule, array_capsule);
}
