/* The URLs inside text (_urltext.c): each takes UTF-8 and returns a new list of str, or
 * NULL with an exception set. */
#ifndef REDECODE_URLTEXT_H
#define REDECODE_URLTEXT_H

#include <Python.h>
#include <stddef.h>

/* srcset.parse_srcset */
PyObject *srcset_urls(const unsigned char *s, size_t n);
/* css_urls.css_urls */
PyObject *css_urls(const unsigned char *s, size_t n);
/* [v for v in script_strings.string_literals(text) if script_strings.url_like(v)] */
PyObject *script_urls(const unsigned char *s, size_t n);

#endif
