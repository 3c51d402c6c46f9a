/* A page's links as compiled values, and the Arrow record batch of a batch of pages' links
 * (_linkbatch.c, built into the _urls module with _urls.c).
 *
 * _urls.c resolves a page's candidates and appends each link to a PageLinks: the target and
 * the element's strings as references to the str objects it already holds (a resolved URL is
 * made once per distinct value, a tag or attribute name once per document), the kind, the
 * internal flag and nofollow as bytes. No Python object is made per link. links_batch()
 * appends the links of a batch of pages into Arrow arrays (nanoarrow) and exports them
 * through the Arrow C Data Interface, as PyCapsules pyarrow imports as one record batch.
 */
#ifndef REDECODE_LINKBATCH_H
#define REDECODE_LINKBATCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The link kinds in url_attributes.KINDS order (the kind byte of a link indexes them). */
#define URL_KINDS 7
extern const char *const link_kind_names[URL_KINDS];

typedef struct {
    PyObject *url, *text, *rel, *tag, *attr; /* strong references: str, or None (rel, attr) */
    signed char internal;                    /* 1, 0, or -1: unknown (NULL in the table) */
    unsigned char kind, nofollow;
} page_link;

typedef struct {
    PyObject_HEAD
    page_link *links;
    Py_ssize_t count, capacity;
} page_links;

/* The PageLinks type: made ready and added to module m; 0, or -1 with an exception set. */
int page_links_ready(PyObject *m);
/* A new, empty PageLinks, or NULL with an exception set. */
page_links *page_links_new(void);
/* Appends a copy of link (its references taken anew); 0, or -1 with MemoryError set. */
int page_links_append(page_links *self, const page_link *link);
/* The pipeline.extract.fields.Link of one link (a new reference), made by _urls.c. */
PyObject *link_object(const page_link *link);
/* The release of nanoarrow compiled in ("0.9.0"). */
const char *linkbatch_nanoarrow_version(void);
/* links_batch(schema, pages) -> (schema capsule, array capsule): see _linkbatch.c. */
PyObject *links_batch(PyObject *self, PyObject *args);

#endif
