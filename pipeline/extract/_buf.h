/* A growable byte buffer, shared by _document.c and _urltext.c (each translation unit
 * keeps its own static copy). A unit may define BUF_FIRST_CAP before including this to
 * size the first allocation for what it usually holds. */
#ifndef REDECODE_BUF_H
#define REDECODE_BUF_H

#include <Python.h>
#include <string.h>

#ifndef BUF_FIRST_CAP
#define BUF_FIRST_CAP 4096
#endif

typedef struct {
    char *data;
    size_t len, cap;
} buf_t;

/* Appends src[0..n); -1 with MemoryError set when the buffer cannot grow. */
static inline int buf_put(buf_t *b, const void *src, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : BUF_FIRST_CAP;
        while (cap < b->len + n) cap *= 2;
        char *grown = PyMem_Realloc(b->data, cap);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->data = grown;
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

#endif
