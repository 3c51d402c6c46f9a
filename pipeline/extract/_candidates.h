/* A document's link candidates, packed: the facts walk of _document.c writes them, and
 * _urls.links_packed resolves them, without a Python object per candidate in between.
 *
 * The pack is a bytes object: CANDIDATES_MAGIC, then one record per candidate, in tree order:
 * a candidate_head (unaligned: read it with memcpy), then `length` bytes of the value's
 * UTF-8 (the UTF-8 of the str the tuple form holds). The head's tag, attr, rel and text are
 * indexes into a list of objects that comes with the pack: the element's local name, the
 * attribute name or None, the rel value or None, the anchor text; the same
 * (kind, tag, attr, value, rel, text) as the oracle's link_candidates gives, each str made once. */
#ifndef REDECODE_CANDIDATES_H
#define REDECODE_CANDIDATES_H

#include <stdint.h>

#define CANDIDATES_MAGIC "RDC1"
#define CANDIDATES_MAGIC_LEN 4

typedef struct {
    uint32_t kind;  /* index in url_attributes.KINDS */
    uint32_t tag, attr, rel, text;  /* indexes in the objects list */
    uint32_t length;  /* bytes of value that follow */
} candidate_head;

/* Objects every pack's list starts with. */
enum { OBJECT_NONE = 0, OBJECT_EMPTY = 1 };

#endif
