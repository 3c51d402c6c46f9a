/* ada's URL parser behind an interface of this project's own types (_ada_base.cpp).
 *
 * ada's C API parses the base URL again for each input (ada_parse_with_base); a document's
 * links share one or two bases, so a base is parsed once into a slot here and each href
 * against it. */
#ifndef REDECODE_ADA_BASE_H
#define REDECODE_ADA_BASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed URL, or the failure of the last parse into it; reused parse after parse. */
typedef struct rd_url rd_url;

/* A new slot holding no URL (NULL: no memory). */
rd_url *rd_url_new(void);
void rd_url_free(rd_url *url);

/* The basic URL parser on input, against base's URL when base is not NULL (a base slot
 * whose parse failed fails every input, as ada_parse_with_base does): 1 when the input
 * parses, 0 when it does not, -1 without memory. */
int rd_url_parse(rd_url *url, const char *input, size_t length, const rd_url *base);

/* Of a slot whose last parse gave a URL: its href, its hostname ("" when none) and whether
 * its scheme is special (URL Standard §4.1). */
const char *rd_url_href(const rd_url *url, size_t *length);
const char *rd_url_hostname(const rd_url *url, size_t *length);
int rd_url_special(const rd_url *url);

#ifdef __cplusplus
}
#endif

#endif
