/* The URLs inside text (_urltext.c). Each reader takes UTF-8 and hands every URL it finds,
 * in order, to a sink (0, or -1 with an exception set, by the sink or the reader); each
 * *_urls function returns them in a new list of str (NULL with an exception set). */
#ifndef REDECODE_URLTEXT_H
#define REDECODE_URLTEXT_H

#include <Python.h>
#include <stddef.h>

/* Receives one URL's UTF-8 bytes (valid only during the call): 0, or -1 with an exception set. */
typedef struct url_sink url_sink;
struct url_sink {
    int (*put)(url_sink *sink, const unsigned char *data, size_t len);
};

/* srcset.parse_srcset */
int srcset_read(const unsigned char *s, size_t n, url_sink *out);
PyObject *srcset_urls(const unsigned char *s, size_t n);
/* css_urls.css_urls */
int css_read(const unsigned char *s, size_t n, url_sink *out);
PyObject *css_urls(const unsigned char *s, size_t n);
/* [v for v in script_strings.string_literals(text) if script_strings.url_like(v)] */
int script_read(const unsigned char *s, size_t n, url_sink *out);
PyObject *script_urls(const unsigned char *s, size_t n);

#endif
