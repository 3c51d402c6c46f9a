/* The parsed document: Lexbor's HTML parser, built into this module from its own
 * sources (setup.py), and the extractors' walks over the tree it builds.
 *
 * A Document owns its lxb_html_document_t: every walk is a method of the object that
 * keeps the tree alive, so no address crosses from Python and no walk can outlive the
 * tree. Every Lexbor struct and function used here comes from Lexbor's headers, so the
 * compiler checks each field against the parser actually linked.
 *
 * The parse is guarded by what the parser does (issue: Lexbor's tree construction scans
 * the stack of open elements for many start tags, and the list of an element's attributes
 * for each new one, so both costs grow with depth and attribute count): a callback between
 * the tokenizer and the tree builder stops the parse when the stack of open elements grows
 * past a limit, when a start tag carries more attributes than a limit, or when the
 * thread's CPU time passes a deadline. The walks are iterative and linear in the tree.
 *
 * The per-node work (finding links, measuring text, pruning and marking ExtractContent
 * blocks) is what costs in pure Python: each node crossing the selectolax API is a
 * Python object, an attribute dict, a str. Here the walks hand Python only the results:
 * link tuples, the visible text, the marked block text. They never modify the tree.
 *
 * Semantics mirrored exactly (tests/unit/test_document.py compares with the oracles over
 * selectolax's tree, tests/oracles/):
 *   - selectolax's LexborNode.text(): the text nodes of the subtree in tree order,
 *     concatenated; with strip=True each one is str.strip()ped (Python's Unicode
 *     whitespace) and the parts joined by the separator; skip_empty drops text nodes
 *     made only of ASCII whitespace (space, TAB, LF, FF, CR).
 *   - LexborNode.attributes: keyed by the qualified name; a value-less attribute
 *     is None.
 *   - " ".join(text.split()) for link texts (Python's whitespace: str.isspace()).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <lexbor/core/base.h>
#include <lexbor/core/dobject.h>
#include <lexbor/core/hash.h>
#include <lexbor/dom/interfaces/attr.h>
#include <lexbor/dom/interfaces/character_data.h>
#include <lexbor/dom/interfaces/document.h>
#include <lexbor/dom/interfaces/element.h>
#include <lexbor/html/interfaces/document.h>
#include <lexbor/html/parser.h>
#include <lexbor/html/token.h>
#include <lexbor/html/tokenizer.h>
#include <lexbor/html/tree.h>
#include <lexbor/tag/tag.h>

#include "_ascii.h"
#include "_buf.h"
#include "_candidates.h"
#include "_urltext.h"

typedef lxb_dom_node_t lxnode;
typedef lexbor_str_t lxstr;
typedef lxb_dom_character_data_t lxchardata;
typedef lxb_dom_element_t lxelement;
typedef lxb_dom_attr_t lxattr;

#define NODE_ELEMENT LXB_DOM_NODE_TYPE_ELEMENT
#define NODE_TEXT LXB_DOM_NODE_TYPE_TEXT

/* ---- configuration (set once from Python) ------------------------------------- */

/* A walk is running (facts, main_text): the Python tests it calls could call back into
 * this module, which must then neither change the tables the walk reads nor start another
 * walk (the attribute ids of use_attr_ids are the document's being walked). */
static int walking;

static int refuse_while_walking(void) {
    if (!walking) return 0;
    PyErr_SetString(PyExc_RuntimeError, "_document is walking a document: not from inside a walk");
    return -1;
}

enum {
    F_INVISIBLE = 1 << 0,
    F_BOILERPLATE = 1 << 1,
    F_PATTERN = 1 << 2,
    F_ARTICLE = 1 << 3,
    F_COMMENT = 1 << 4,
};
enum { K_NONE = 0, K_BLOCK = 1, K_LINE = 2, K_LINK = 3 };
enum { A_HREF, A_REL, A_ALT, A_CLASS, A_ID, A_STYLE, A_HIDDEN, A_ARIA_HIDDEN, A_ROLE,
       A_ITEMPROP, A_CONTENT, A_PROPERTY, A_NAME, A_LANG, A_COUNT };
static const char *ATTR_NAMES[A_COUNT] = {
    "href", "rel", "alt", "class", "id", "style", "hidden", "aria-hidden", "role", "itemprop",
    "content", "property", "name", "lang",
};

/* Static tag ids are Lexbor's constants below LXB_TAG__LAST_ENTRY; an element outside
 * Lexbor's table (a custom element) has a pointer for an id and no entry in the tables. */
#define TAG_TABLE 512
_Static_assert(LXB_TAG__LAST_ENTRY <= TAG_TABLE, "Lexbor's tag ids outgrew the tables");
static unsigned char tag_flags[TAG_TABLE];
static unsigned char kinds[TAG_TABLE];            /* ExtractContent marks, page scope */
static unsigned char container_kinds[TAG_TABLE];  /* ... inside an article container */
/* metadata: document.is_html_element's integration points (set by configure_head) */
static unsigned char integration_point[TAG_TABLE];
static int head_configured;
static uintptr_t attr_static_id[A_COUNT];         /* 0: the name has no static id */
static size_t attr_name_len[A_COUNT];             /* strlen(ATTR_NAMES[i]) */
/* A name outside Lexbor's static table gets an id in each document: the address of its
 * entry among the document's attribute names (lxb_dom_attr_local_name_append). For the
 * document a Document method reads (set when it starts, under the GIL): each such name's
 * id there, 0 when no attribute of that document bears it (use_attr_ids). */
static const lxb_dom_document_t *ids_document;
static uintptr_t document_attr_id[A_COUNT];
static PyObject *style_hidden_fn;                 /* str -> bool */
static PyObject *names_boilerplate_fn;            /* str -> bool */
static PyObject *role_boilerplate_fn;             /* str -> bool */
static PyObject *names_comment_fn;                /* str -> bool (set by configure_patterns) */
static PyObject *names_comment_form_fn;           /* str -> bool (set by configure_patterns) */
static int configured;

/* ---- growable buffers ---------------------------------------------------------- */

typedef struct {
    lxnode **items;
    size_t len, cap;
} nodes_t;

/* Room for more items in a growable array (*items, *cap): the capacity doubles. */
static int grow(void **items, size_t *cap, size_t item_size) {
    size_t wanted = *cap ? *cap * 2 : 64;
    void *grown = PyMem_Realloc(*items, wanted * item_size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = grown;
    *cap = wanted;
    return 0;
}

static int nodes_push(nodes_t *v, lxnode *n) {
    if (v->len == v->cap && grow((void **)&v->items, &v->cap, sizeof *v->items) < 0) return -1;
    v->items[v->len++] = n;
    return 0;
}

/* An open-addressing set of node pointers (the pruned subtrees). */
typedef struct {
    lxnode **slots;
    size_t mask, len;
} nodeset_t;

static size_t ptr_hash(const lxnode *p) {
    uintptr_t x = (uintptr_t)p >> 4;
    x ^= x >> 17;
    x *= 0xed5ad4bbU;
    x ^= x >> 11;
    return (size_t)x;
}

static int nodeset_add(nodeset_t *s, lxnode *n) {
    if ((s->len + 1) * 2 > s->mask + 1 || s->slots == NULL) {
        size_t size = s->slots ? (s->mask + 1) * 2 : 64;
        while ((s->len + 1) * 2 > size) size *= 2;
        lxnode **slots = PyMem_Calloc(size, sizeof(lxnode *));
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (s->slots) {
            for (size_t i = 0; i <= s->mask; i++) {
                lxnode *old = s->slots[i];
                if (old == NULL) continue;
                size_t j = ptr_hash(old) & (size - 1);
                while (slots[j]) j = (j + 1) & (size - 1);
                slots[j] = old;
            }
            PyMem_Free(s->slots);
        }
        s->slots = slots;
        s->mask = size - 1;
    }
    size_t i = ptr_hash(n) & s->mask;
    while (s->slots[i]) {
        if (s->slots[i] == n) return 0;
        i = (i + 1) & s->mask;
    }
    s->slots[i] = n;
    s->len++;
    return 0;
}

static int nodeset_has(const nodeset_t *s, const lxnode *n) {
    if (s->len == 0) return 0;
    size_t i = ptr_hash(n) & s->mask;
    while (s->slots[i]) {
        if (s->slots[i] == n) return 1;
        i = (i + 1) & s->mask;
    }
    return 0;
}

/* ---- node helpers -------------------------------------------------------------- */

static inline unsigned tag_of(const lxnode *n) {
    return n->local_name < TAG_TABLE ? (unsigned)n->local_name : 0;
}

static inline int is_text(const lxnode *n) {
    return n->type == NODE_TEXT && n->local_name == LXB_TAG__TEXT;
}

/* document_attr_id for `doc` (Lexbor's own lookup of a local name, as the parser names an
 * attribute: lxb_dom_attr_data_by_local_name). */
static void use_attr_ids(lxb_html_document_t *doc) {
    lxb_dom_document_t *d = &doc->dom_document;
    for (int i = 0; i < A_COUNT; i++) {
        const lxb_dom_attr_data_t *data =
            attr_static_id[i] ? NULL
                              : lxb_dom_attr_data_by_local_name(d->attrs, (const lxb_char_t *)ATTR_NAMES[i],
                                                                attr_name_len[i]);
        document_attr_id[i] = data != NULL ? data->attr_id : 0;
    }
    ids_document = d;
}

/* What find_attr looks for: the name's id (0: no attribute bears the name, for by_id). */
typedef struct {
    const char *name;
    size_t name_len;
    uintptr_t want, local;
    int by_id;
} attr_key;

static inline attr_key attr_key_of(const lxnode *n, int which) {
    attr_key k = {ATTR_NAMES[which], attr_name_len[which], attr_static_id[which], 0, 0};
    k.by_id = k.want != 0 || n->owner_document == ids_document;
    k.local = k.want != 0 ? k.want : k.by_id ? document_attr_id[which] : 0;
    return k;
}

/* Whether the attribute's qualified name is the key's. */
static inline int attr_is(const lxattr *a, const attr_key *k) {
    if (k->by_id && a->qualified_name == 0) return k->local != 0 && a->node.local_name == k->local;
    uintptr_t id = a->qualified_name ? a->qualified_name : a->node.local_name;
    if (id < LXB_DOM_ATTR__LAST_ENTRY) return k->want && id == k->want;
    size_t len;
    const lxb_char_t *s = lxb_dom_attr_qualified_name(a, &len);
    return s != NULL && len == k->name_len && memcmp(s, k->name, k->name_len) == 0;
}

/* The attribute whose qualified name is ATTR_NAMES[which], or NULL (selectolax keys
 * LexborNode.attributes by lxb_dom_attr_qualified_name). An attribute without a qualified
 * name of its own (every one of an HTML element) is known by its local name's id: a name
 * of Lexbor's static table has its static id, any other its document's (one entry per
 * lowercase name: document_attr_id). A qualified name (foreign content, a prefix) is
 * compared as a string. */
static lxattr *find_attr(const lxnode *n, int which) {
    const attr_key k = attr_key_of(n, which);
    /* A name with no entry among the document's attribute names is no attribute's name,
     * local or qualified (a qualified name has its entry there too): the list is not read. */
    if (k.by_id && k.local == 0) return NULL;
    for (lxattr *a = ((const lxelement *)n)->first_attr; a != NULL; a = a->next)
        if (attr_is(a, &k)) return a;
    return NULL;
}

/* find_attr of two names in one reading of the list. */
static void find_attrs2(const lxnode *n, int which1, int which2, lxattr **found1, lxattr **found2) {
    const attr_key k1 = attr_key_of(n, which1), k2 = attr_key_of(n, which2);
    lxattr *a = ((const lxelement *)n)->first_attr;
    int want1 = !(k1.by_id && k1.local == 0), want2 = !(k2.by_id && k2.local == 0);
    *found1 = *found2 = NULL;
    for (; a != NULL && (want1 || want2); a = a->next) {
        if (want1 && attr_is(a, &k1)) {
            *found1 = a;
            want1 = 0;
        }
        if (want2 && attr_is(a, &k2)) {
            *found2 = a;
            want2 = 0;
        }
    }
}

/* The attribute's value bytes, or NULL for a value-less attribute (selectolax: None). */
static const lxstr *attr_value(const lxattr *a) {
    if (a == NULL || a->value == NULL || a->value->data == NULL) return NULL;
    return a->value;
}

static PyObject *value_or_none(const lxattr *a) {
    const lxstr *v = attr_value(a);
    if (v == NULL) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8((const char *)v->data, (Py_ssize_t)v->length, "replace");
}

static int value_equals(const lxattr *a, const char *s) {
    const lxstr *v = attr_value(a);
    size_t n = strlen(s);
    return v != NULL && v->length == n && memcmp(v->data, s, n) == 0;
}

static int value_equals_ascii_ci(const lxattr *a, const char *s) {
    const lxstr *v = attr_value(a);
    return v != NULL && ascii_ci_equals(v->data, v->length, s);
}

/* ---- UTF-8 and Python's str.strip() -------------------------------------------- */

/* Py_UNICODE_ISSPACE for the code points str.strip() removes. */
static inline int py_space(uint32_t c) {
    if (c < 0x80) return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

static inline size_t utf8_seq_len(unsigned char b) {
    return b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
}

static inline uint32_t utf8_at(const unsigned char *s, size_t n) {
    switch (n) {
    case 1: return s[0];
    case 2: return ((uint32_t)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
    case 3: return ((uint32_t)(s[0] & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
    default:
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) |
               ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
    }
}

/* Code points in valid UTF-8: bytes minus continuation bytes (10xxxxxx), 16 or 8 at a time. */
static size_t utf8_chars(const char *data, size_t n) {
    const unsigned char *s = (const unsigned char *)data;
    size_t chars = n, i = 0;
#ifdef __SSE2__
    /* a continuation byte is below -64 as a signed byte (0x80-0xBF) */
    const __m128i below = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        /* per-byte-lane counts (a match is -1: subtracting it adds one), summed before a
         * lane can pass 255; no popcount (a library call without -mpopcnt) */
        __m128i lanes = zero;
        for (int round = 0; round < 255 && i + 16 <= n; round++, i += 16) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            lanes = _mm_sub_epi8(lanes, _mm_cmplt_epi8(v, below));
        }
        const __m128i sums = _mm_sad_epu8(lanes, zero);
        chars -= (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        /* one bit (bit 7) per continuation byte, summed by a multiply (no popcnt needed) */
        uint64_t cont = (w & ~(w << 1) & 0x8080808080808080ULL) >> 7;
        chars -= (size_t)((cont * 0x0101010101010101ULL) >> 56);
    }
    for (; i < n; i++) chars -= (s[i] & 0xc0) == 0x80;
    return chars;
}

#ifdef __SSE2__
/* Per byte of v: 0xFF where it is in [lo, lo + span] (unsigned). */
static inline __m128i in_range(__m128i v, char lo, char span) {
    const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8(lo));
    return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(span)), d);
}

/* 16-bit mask of the bytes of s[0..16) that are ASCII characters str.strip() removes
 * (0x09-0x0D, 0x1C-0x20). */
static inline int ascii_strip_mask(const unsigned char *s) {
    const __m128i v = _mm_loadu_si128((const __m128i *)s);
    return _mm_movemask_epi8(_mm_or_si128(in_range(v, 0x09, 4), in_range(v, 0x1c, 4)));
}
#endif

/* Byte bounds of the stripped text and its length in code points. The data is valid
 * UTF-8 (selectolax encodes a str; Lexbor writes U+FFFD for what it replaces). Runs of
 * ASCII white space (a text node's indentation, or all of it between two tags) are
 * skipped 16 bytes at a time before the code point loops. */
static size_t strip_utf8(const unsigned char *s, size_t n, size_t *start, size_t *end) {
    size_t i = 0, j = n;
#ifdef __SSE2__
    for (int mask; i + 16 <= j && (mask = ascii_strip_mask(s + i)) != 0; ) {
        if (mask != 0xFFFF) {
            i += (size_t)__builtin_ctz(~mask & 0xFFFF);
            break;
        }
        i += 16;
    }
    for (int mask; j >= i + 16 && (mask = ascii_strip_mask(s + j - 16)) != 0; ) {
        if (mask != 0xFFFF) {
            j -= (size_t)__builtin_clz(~mask & 0xFFFF) - 16;
            break;
        }
        j -= 16;
    }
#endif
    while (i < j) {
        size_t k = utf8_seq_len(s[i]);
        if (i + k > j || !py_space(utf8_at(s + i, k))) break;
        i += k;
    }
    while (j > i) {
        size_t k = j - 1;
        while (k > i && (s[k] & 0xc0) == 0x80) k--;
        if (!py_space(utf8_at(s + k, j - k))) break;
        j = k;
    }
    *start = i;
    *end = j;
    return utf8_chars((const char *)s + i, j - i);
}

static inline int ascii_ws_only(const lxstr *t) {
    size_t i = 0;
#ifdef __SSE2__
    for (; i + 16 <= t->length; i += 16) {  /* TAB LF FF CR SPACE: 0x09-0x0D but VT, or 0x20 */
        const __m128i v = _mm_loadu_si128((const __m128i *)(t->data + i));
        const __m128i ws = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0b)),
                                            _mm_or_si128(in_range(v, 0x09, 4), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20))));
        if (_mm_movemask_epi8(ws) != 0xFFFF) return 0;
    }
#endif
    for (; i < t->length; i++) {
        unsigned char c = t->data[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\f' && c != '\r') return 0;
    }
    return 1;
}

/* Defined with the block cutting below; with no marker roles it is " ".join(text.split()). */
static int collapse_into(buf_t *out, size_t floor, const unsigned char *s, size_t n,
                         unsigned as_space, unsigned dropped, int *pending);

static inline const lxstr *text_data(const lxnode *n) {
    return &((const lxchardata *)n)->data;
}

/* ---- the walk ---------------------------------------------------------------- */

/* Visits the subtree under `scope` (not scope itself) in tree order. `enter` returns
 * 1 to descend, 0 to skip the node's subtree, -1 on error; `leave` runs after the
 * children of every entered element. */
typedef struct walker walker;
struct walker {
    int (*enter)(walker *, lxnode *);
    int (*leave)(walker *, lxnode *);
};

static int walk(lxnode *scope, walker *w) {
    lxnode *n = scope->first_child;
    while (n != NULL) {
        int go = w->enter(w, n);
        if (go < 0) return -1;
        if (go && n->first_child != NULL) {
            n = n->first_child;
            continue;
        }
        if (go && n->type == NODE_ELEMENT && w->leave && w->leave(w, n) < 0) return -1;
        for (;;) {
            if (n->next != NULL) {
                n = n->next;
                break;
            }
            n = n->parent;
            if (n == NULL || n == scope) {
                n = NULL;
                break;
            }
            if (n->type == NODE_ELEMENT && w->leave && w->leave(w, n) < 0) return -1;
        }
    }
    return 0;
}

/* A stack of text lengths at element entry, indexed by depth: length of an element's
 * text = the running total when it is left minus the total when it was entered. */
typedef struct {
    size_t *items;
    size_t len, cap;
} sizes_t;

static int sizes_push(sizes_t *v, size_t x) {
    if (v->len == v->cap && grow((void **)&v->items, &v->cap, sizeof *v->items) < 0) return -1;
    v->items[v->len++] = x;
    return 0;
}

/* ---- links ------------------------------------------------------------------- */

static int append_new(PyObject *list, PyObject *item) {
    if (item == NULL) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}


/* Concatenated text of the subtree (LexborNode.text()). */
static int subtree_text(lxnode *scope, buf_t *out) {
    lxnode *n = scope->first_child;
    while (n != NULL) {
        if (is_text(n)) {
            const lxstr *t = text_data(n);
            if (t->data != NULL && buf_put(out, t->data, t->length) < 0) return -1;
        }
        if (n->first_child != NULL) {
            n = n->first_child;
            continue;
        }
        while (n != NULL && n != scope && n->next == NULL) n = n->parent;
        n = (n == NULL || n == scope) ? NULL : n->next;
    }
    return 0;
}

/* ---- the links' candidates (tests/oracles/walks.py's link_candidates is the oracle) ---
 * In tree order, each URL-valued attribute and each content that holds URLs, as
 * (kind, tag, attr, value, rel, text): the tables come from
 * pipeline.extract.url_attributes through configure_urls(). */

#define URL_KINDS 7
#define MAX_URL_NAMES 48
#define MAX_ENTRIES 4
#define MAX_URL_WORDS 64
enum { FORM_ONE = 0, FORM_SPACE = 1, FORM_SRCSET = 2 };
enum { K_CSS = 5, K_SCRIPT = 6, K_REFRESH = 3, K_RESOURCE = 1 };  /* KINDS' order */

typedef struct {
    unsigned char name, kind, form, keep_empty;
} url_entry;

static PyObject *kind_names[URL_KINDS];
static char *url_names[MAX_URL_NAMES];           /* attribute names the tables use */
static size_t url_name_len[MAX_URL_NAMES];
static uintptr_t url_name_id[MAX_URL_NAMES];     /* Lexbor's static id, 0: none */
static PyObject *url_name_str[MAX_URL_NAMES];
static int url_name_count;
static url_entry tag_entries[TAG_TABLE][MAX_ENTRIES];
static unsigned char tag_entry_count[TAG_TABLE];
static url_entry global_entries[MAX_ENTRIES];
static int global_entry_count;
static int n_rel, n_alt, n_type, n_language, n_http_equiv, n_content, n_style, n_src, n_href;
static char *resource_rels[MAX_URL_WORDS], *js_types[MAX_URL_WORDS], *json_types[MAX_URL_WORDS];
static size_t resource_rel_len[MAX_URL_WORDS], js_type_len[MAX_URL_WORDS], json_type_len[MAX_URL_WORDS];
static Py_ssize_t resource_rel_count, js_type_count, json_type_count;
static PyObject *tag_name_cache[TAG_TABLE];
static int urls_configured;

static int in_words(const unsigned char *s, size_t n, char **words, size_t *lens, Py_ssize_t count) {
    for (Py_ssize_t k = 0; k < count; k++) {
        if (lens[k] == n && ascii_ci_equals(s, n, words[k])) return 1;
    }
    return 0;
}

static int only_ascii_space(const lxstr *v) {
    for (size_t i = 0; i < v->length; i++) {
        if (!is_ascii_space(v->data[i])) return 0;
    }
    return 1;
}

static int has_byte(const lxstr *v, unsigned char c) {
    return v != NULL && v->length && memchr(v->data, c, v->length) != NULL;
}

/* the oracle's script_is_read over the type and language values (NULL: absent or
 * value-less, as selectolax's attributes give None). */
static int script_is_read(const lxstr *type, const lxstr *language) {
    if (type == NULL) {
        if (language == NULL || language->length == 0) return 1;
        if (language->length > 64) return 0;
        unsigned char essence[80];
        memcpy(essence, "text/", 5);
        memcpy(essence + 5, language->data, language->length);
        return in_words(essence, 5 + language->length, js_types, js_type_len, js_type_count);
    }
    size_t start = 0, end = type->length;
    while (start < end && is_ascii_space(type->data[start])) start++;
    while (end > start && is_ascii_space(type->data[end - 1])) end--;
    const unsigned char *t = type->data + start;
    size_t n = end - start;
    if (n == 0 || in_words(t, n, js_types, js_type_len, js_type_count) || ascii_ci_equals(t, n, "module") ||
        in_words(t, n, json_types, json_type_len, json_type_count))
        return 1;
    const unsigned char *semi = memchr(t, ';', n);
    if (semi != NULL) n = (size_t)(semi - t);
    while (n > 0 && is_ascii_space(t[n - 1])) n--;
    if (ascii_ci_equals(t, n, "application/json") || ascii_ci_equals(t, n, "text/json")) return 1;
    return memchr(t, '/', n) != NULL && n >= 5 && ascii_ci_equals(t + n - 5, 5, "+json");
}

/* An attribute name outside Lexbor's static table has an id of its document's own (a
 * pointer value, one per name): the url_names index of each such id met, remembered per walk. */
#define NAME_CACHE 64
/* rel values of the last few candidates, each with its object's index: pages repeat a
 * few (nofollow, noopener) on many links */
#define REL_CACHE 8
typedef struct {
    const unsigned char *data;
    size_t len;
    uint32_t index;
} rel_slot;

typedef struct {
    PyObject *refresh;  /* the meta refresh contents */
    /* the candidates, packed (_candidates.h): the records, and the objects they index */
    buf_t pack;
    PyObject *objects;
    uint32_t tag_index[TAG_TABLE];  /* each static tag's name in objects (0: not yet) */
    uint32_t attr_index[MAX_URL_NAMES];
    rel_slot rels[REL_CACHE];
    unsigned rel_next;
    buf_t tmp, collapsed;
    Py_ssize_t elements;
    Py_ssize_t limits[URL_KINDS], seen[URL_KINDS];
    /* the current element's first attribute named url_names[i] (as find_attr compares
     * names: a static id as an id, another name as a string), found in one pass over its
     * attribute list, and which entries are set */
    const lxattr *named[MAX_URL_NAMES];
    unsigned char set[MAX_URL_NAMES];
    int set_count;
    uintptr_t cache_id[NAME_CACHE];
    signed char cache_index[NAME_CACHE];
} sources_t;

/* url_names' index of each static attribute id (-1: none of them) */
static signed char static_url_name[LXB_DOM_ATTR__LAST_ENTRY];

/* The url_names index of the attribute's qualified name, or -1. */
static int url_name_of(sources_t *st, const lxattr *a) {
    uintptr_t id = a->qualified_name ? a->qualified_name : a->node.local_name;
    if (id < LXB_DOM_ATTR__LAST_ENTRY) return static_url_name[id];
    size_t slot = (id >> 4) % NAME_CACHE;
    if (st->cache_id[slot] == id) return st->cache_index[slot];
    size_t len;
    const lxb_char_t *q = lxb_dom_attr_qualified_name(a, &len);
    int found = -1;
    for (int i = 0; q != NULL && i < url_name_count; i++) {
        if (url_name_len[i] == len && memcmp(q, url_names[i], len) == 0) {
            found = i;
            break;
        }
    }
    st->cache_id[slot] = id;
    st->cache_index[slot] = (signed char)found;
    return found;
}

/* Fills st->named for the element n: the first attribute of each name, in one pass. */
static void name_attributes(sources_t *st, const lxnode *n) {
    for (int k = 0; k < st->set_count; k++) st->named[st->set[k]] = NULL;
    st->set_count = 0;
    for (const lxattr *a = ((const lxelement *)n)->first_attr; a != NULL; a = a->next) {
        int i = url_name_of(st, a);
        if (i >= 0 && st->named[i] == NULL) {
            st->named[i] = a;
            st->set[st->set_count++] = (unsigned char)i;
        }
    }
}

/* Whether one more URL of `kind` is under its limit (it is counted either way). */
static inline int take(sources_t *st, int kind) {
    return ++st->seen[kind] <= st->limits[kind];
}

static PyObject *tag_name(lxnode *n) {
    uintptr_t id = n->local_name;
    if (id < TAG_TABLE && tag_name_cache[id] != NULL) return Py_NewRef(tag_name_cache[id]);
    size_t len;
    const lxb_char_t *name = lxb_dom_element_local_name((lxelement *)n, &len);
    PyObject *str = PyUnicode_DecodeUTF8((const char *)(name ? name : (const lxb_char_t *)""),
                                         (Py_ssize_t)(name ? len : 0), "replace");
    if (str != NULL && id < TAG_TABLE) {
        PyUnicode_InternInPlace(&str);
        tag_name_cache[id] = Py_NewRef(str);
    }
    return str;
}

static PyObject *str_of(const lxstr *v) {
    if (v == NULL) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8((const char *)v->data, (Py_ssize_t)v->length, "replace");
}

/* The index in st->objects of `obj` (a new reference, stolen; NULL: an error already set). */
static int new_object(sources_t *st, PyObject *obj, uint32_t *index) {
    if (obj == NULL) return -1;
    Py_ssize_t at = PyList_GET_SIZE(st->objects);
    int rc = PyList_Append(st->objects, obj);
    Py_DECREF(obj);
    *index = (uint32_t)at;
    return rc;
}

static int tag_object(sources_t *st, lxnode *n, uint32_t *index) {
    uintptr_t id = n->local_name;
    if (id < TAG_TABLE && st->tag_index[id]) {
        *index = st->tag_index[id];
        return 0;
    }
    if (new_object(st, tag_name(n), index) < 0) return -1;
    if (id < TAG_TABLE) st->tag_index[id] = *index;
    return 0;
}

static int rel_object(sources_t *st, const lxstr *rel, uint32_t *index) {
    if (rel == NULL) {
        *index = OBJECT_NONE;
        return 0;
    }
    for (unsigned k = 0; k < REL_CACHE; k++) {
        const rel_slot *r = &st->rels[k];
        if (r->data != NULL && r->len == rel->length && memcmp(r->data, rel->data, rel->length) == 0) {
            *index = r->index;
            return 0;
        }
    }
    if (new_object(st, str_of(rel), index) < 0) return -1;
    st->rels[st->rel_next++ % REL_CACHE] = (rel_slot){rel->data, rel->length, *index};
    return 0;
}

static int is_ascii_bytes(const unsigned char *s, size_t n) {
    size_t i = 0;
    for (uint64_t w; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ULL) return 0;
    }
    for (; i < n; i++)
        if (s[i] >= 0x80) return 0;
    return 1;
}

/* Appends the candidate (kind, n's name, attr, value, rel, text) to the pack: attr is a
 * url_names index or -1 (None), rel NULL for None, text a new reference or NULL for "". The
 * value is stored as the UTF-8 of the str the tuple form holds (decoded with "replace"). */
static int add_source(sources_t *st, int kind, lxnode *n, int attr, const unsigned char *value, size_t len,
                      const lxstr *rel, PyObject *text) {
    candidate_head head = {(uint32_t)kind, 0, OBJECT_NONE, OBJECT_NONE, OBJECT_EMPTY, 0};
    PyObject *decoded = NULL;
    if (text != NULL && new_object(st, text, &head.text) < 0) return -1;
    if (tag_object(st, n, &head.tag) < 0 || rel_object(st, rel, &head.rel) < 0) return -1;
    if (attr >= 0) {
        if (!st->attr_index[attr] && new_object(st, Py_NewRef(url_name_str[attr]), &st->attr_index[attr]) < 0)
            return -1;
        head.attr = st->attr_index[attr];
    }
    if (!is_ascii_bytes(value, len)) {
        Py_ssize_t size;
        decoded = PyUnicode_DecodeUTF8((const char *)value, (Py_ssize_t)len, "replace");
        const char *utf8 = decoded ? PyUnicode_AsUTF8AndSize(decoded, &size) : NULL;
        if (utf8 == NULL) {
            Py_XDECREF(decoded);
            return -1;
        }
        value = (const unsigned char *)utf8;
        len = (size_t)size;
    }
    if (len > UINT32_MAX) {
        Py_XDECREF(decoded);
        PyErr_SetString(PyExc_OverflowError, "a link candidate of 4 GB");
        return -1;
    }
    head.length = (uint32_t)len;
    int rc = buf_put(&st->pack, &head, sizeof head) < 0 || buf_put(&st->pack, value, len) < 0 ? -1 : 0;
    Py_XDECREF(decoded);
    return rc;
}

/* The text of an a (its subtree) or the alt of an area, whitespace collapsed. */
static PyObject *anchor_text(const sources_t *st, lxnode *n, buf_t *tmp, buf_t *collapsed) {
    tmp->len = 0;
    collapsed->len = 0;
    int rc = 0;
    if (n->local_name == LXB_TAG_A) {
        rc = subtree_text(n, tmp);
    } else {
        const lxstr *alt = attr_value(st->named[n_alt]);
        if (alt != NULL) rc = buf_put(tmp, alt->data, alt->length);
    }
    int pending = 0;
    if (rc < 0 || collapse_into(collapsed, 0, (const unsigned char *)tmp->data, tmp->len, 0, 0, &pending) < 0)
        return NULL;
    return PyUnicode_DecodeUTF8(collapsed->data ? collapsed->data : "", (Py_ssize_t)collapsed->len, "replace");
}

static int has_resource_rel(const lxstr *rel) {
    size_t at = 0, len;
    for (const unsigned char *k; rel != NULL && (k = next_keyword(rel->data, rel->length, &at, &len)) != NULL;) {
        if (in_words(k, len, resource_rels, resource_rel_len, resource_rel_count)) return 1;
    }
    return 0;
}

/* The readers' sink for one element's attribute or content: one candidate per URL, each
 * counted against the kind's limit (nothing is made for a URL past it). */
typedef struct {
    url_sink sink;
    sources_t *st;
    int kind, attr;
    lxnode *node;
} source_sink;

static int source_put(url_sink *sink, const unsigned char *data, size_t len) {
    source_sink *to = (source_sink *)sink;
    if (!take(to->st, to->kind)) return 0;
    return add_source(to->st, to->kind, to->node, to->attr, data, len, NULL, NULL);
}

static int add_read(sources_t *st, int kind, lxnode *n, int attr, const unsigned char *s, size_t len,
                    int (*read)(const unsigned char *, size_t, url_sink *)) {
    source_sink to = {{source_put}, st, kind, attr, n};
    return read(s, len, &to.sink);
}

/* One candidate per token of a space-separated value (ping, itemtype). */
static int add_tokens(sources_t *st, int kind, lxnode *n, int attr, const lxstr *v) {
    size_t at = 0, len;
    for (const unsigned char *k; (k = next_keyword(v->data, v->length, &at, &len)) != NULL;) {
        if (take(st, kind) && add_source(st, kind, n, attr, k, len, NULL, NULL) < 0) return -1;
    }
    return 0;
}

static int entry_source(sources_t *st, lxnode *n, const url_entry *e) {
    const lxstr *v = attr_value(st->named[e->name]);
    if (v == NULL || (!e->keep_empty && only_ascii_space(v))) return 0;
    uintptr_t id = n->local_name;
    if (id == LXB_TAG_INPUT && e->name == n_src &&
        !value_equals_ascii_ci(st->named[n_type], "image"))
        return 0;
    int kind = e->kind;
    if (e->form == FORM_SRCSET) return add_read(st, kind, n, e->name, v->data, v->length, srcset_read);
    if (e->form == FORM_SPACE) return add_tokens(st, kind, n, e->name, v);
    if (e->name == n_href && (id == LXB_TAG_A || id == LXB_TAG_AREA || id == LXB_TAG_LINK)) {
        const lxstr *rel = attr_value(st->named[n_rel]);
        if (id == LXB_TAG_LINK && has_resource_rel(rel)) kind = K_RESOURCE;
        if (!take(st, kind)) return 0;
        PyObject *text = NULL;
        if (id != LXB_TAG_LINK && (text = anchor_text(st, n, &st->tmp, &st->collapsed)) == NULL) return -1;
        return add_source(st, kind, n, e->name, v->data, v->length, rel, text);
    }
    if (!take(st, kind)) return 0;
    return add_source(st, kind, n, e->name, v->data, v->length, NULL, NULL);
}

static int child_text_bytes(const lxnode *n, buf_t *tmp);

/* LexborNode.text(deep=False) as UTF-8 bytes: the one text child's own bytes when there is
 * one (a style sheet's or a script's usual shape), else a copy in tmp. */
static int child_text_span(const lxnode *n, buf_t *tmp, const unsigned char **s, size_t *len) {
    const lxnode *only = n->first_child;
    if (only != NULL && only->next == NULL && only->type == NODE_TEXT) {
        const lxstr *t = &((const lxchardata *)only)->data;
        *s = t->data ? t->data : (const unsigned char *)"";
        *len = t->data ? t->length : 0;
        return 0;
    }
    if (child_text_bytes(n, tmp) < 0) return -1;
    *s = (const unsigned char *)(tmp->data ? tmp->data : "");
    *len = tmp->len;
    return 0;
}

/* LexborNode.text(deep=False) as UTF-8 bytes in tmp. */
static int child_text_bytes(const lxnode *n, buf_t *tmp) {
    tmp->len = 0;
    for (const lxnode *c = n->first_child; c != NULL; c = c->next) {
        if (c->type != NODE_TEXT) continue;
        const lxstr *t = &((const lxchardata *)c)->data;
        if (t->data != NULL && buf_put(tmp, t->data, t->length) < 0) return -1;
    }
    return 0;
}

static int sources_visit(sources_t *st, lxnode *n) {
    if (n->type != NODE_TEXT) st->elements++;  /* LexborNode.traverse(): comments too */
    if (n->type != NODE_ELEMENT) return 0;
    uintptr_t id = n->local_name;
    if (((const lxelement *)n)->first_attr == NULL && id != LXB_TAG_STYLE && id != LXB_TAG_SCRIPT)
        return 0;
    name_attributes(st, n);
    if (id < TAG_TABLE) {
        for (int k = 0; k < tag_entry_count[id]; k++) {
            if (entry_source(st, n, &tag_entries[id][k]) < 0) return -1;
        }
    }
    for (int k = 0; k < global_entry_count; k++) {
        if (entry_source(st, n, &global_entries[k]) < 0) return -1;
    }
    const lxstr *style = attr_value(st->named[n_style]);
    if (style != NULL && (has_byte(style, '(') || has_byte(style, '@')) &&
        add_read(st, K_CSS, n, n_style, style->data, style->length, css_read) < 0)
        return -1;
    const unsigned char *text;
    size_t len;
    if (id == LXB_TAG_STYLE) {
        if (child_text_span(n, &st->tmp, &text, &len) < 0) return -1;
        if (len && (memchr(text, '(', len) || memchr(text, '@', len)))
            return add_read(st, K_CSS, n, -1, text, len, css_read);
    } else if (id == LXB_TAG_SCRIPT) {
        if (st->named[n_src] != NULL ||
            !script_is_read(attr_value(st->named[n_type]), attr_value(st->named[n_language])))
            return 0;
        if (child_text_span(n, &st->tmp, &text, &len) < 0) return -1;
        return add_read(st, K_SCRIPT, n, -1, text, len, script_read);
    } else if (id == LXB_TAG_META) {
        const lxstr *equiv = attr_value(st->named[n_http_equiv]);
        const lxstr *content = attr_value(st->named[n_content]);
        if (equiv != NULL && content != NULL && ascii_ci_equals(equiv->data, equiv->length, "refresh"))
            return append_new(st->refresh, str_of(content));
    }
    return 0;
}

static void sources_free(sources_t *st) {
    Py_XDECREF(st->objects);
    PyMem_Free(st->pack.data);
    Py_XDECREF(st->refresh);
    PyMem_Free(st->tmp.data);
    PyMem_Free(st->collapsed.data);
}

/* Every node of the document under root (root included), in tree order. */
#define FOR_EACH_NODE(root, n)                                                          \
    for (lxnode *n = (root); n != NULL;                                                 \
         n = n->first_child != NULL ? n->first_child : next_after(n, (root)))

static inline lxnode *next_after(lxnode *n, lxnode *root) {
    while (n != NULL && n != root && n->next == NULL) n = n->parent;
    return (n == NULL || n == root) ? NULL : n->next;
}

/* ---- main text --------------------------------------------------------------- */

static PyObject *blocks_of(const unsigned char *s, size_t n);

typedef struct {
    lxnode *node;
    size_t length;
} measured_t;

typedef struct {
    measured_t *items;
    size_t len, cap;
} measures_t;

static int measures_push(measures_t *v, lxnode *n, size_t length) {
    if (v->len == v->cap && grow((void **)&v->items, &v->cap, sizeof *v->items) < 0) return -1;
    v->items[v->len].node = n;
    v->items[v->len].length = length;
    v->len++;
    return 0;
}

enum { TEST_NONE, TEST_ARTICLE, TEST_COMMENT_INSIDE };

/* One measuring pass: the running stripped-text length, and the length of every
 * element the pass's test selects. */
typedef struct {
    walker w;
    int test;
    int drop_tags, drop_hidden;
    const nodeset_t *removed;
    size_t total;           /* sum of stripped text lengths so far */
    sizes_t starts;         /* total at entry, per open element */
    nodes_t open;           /* the open elements, parallel to starts */
    measures_t found;       /* selected elements and their text lengths */
    buf_t visible;          /* the visible text's start (only when `want_visible`) */
    size_t visible_cap;     /* ...appended to until it holds this many bytes */
    size_t visible_chars;   /* the whole visible text's length in code points */
    buf_t names;            /* scratch: class and id of a pattern candidate */
    int want_visible;
    int also_comments;      /* also select comment-classed elements ... */
    sizes_t cstarts;        /* ... with their own open stack ... */
    nodes_t copen;
    measures_t cfound;      /* ... and lengths (leave order) */
    Py_ssize_t parts;
} measure_t;

static int call_test(PyObject *fn, const lxstr *value) {
    PyObject *arg = PyUnicode_DecodeUTF8((const char *)value->data, (Py_ssize_t)value->length,
                                         "replace");
    if (arg == NULL) return -1;
    Py_INCREF(fn);  /* (held through the call, whatever the call does) */
    PyObject *res = PyObject_CallOneArg(fn, arg);
    Py_DECREF(fn);
    Py_DECREF(arg);
    if (res == NULL) return -1;
    int truth = PyObject_IsTrue(res);
    Py_DECREF(res);
    return truth;
}

/* walks._structural_test */
static int structural(measure_t *m, lxnode *n) {
    unsigned tag = tag_of(n);
    if (m->drop_tags && (tag_flags[tag] & F_BOILERPLATE)) return 1;
    if (((const lxelement *)n)->first_attr == NULL) return 0;
    if (m->drop_hidden) {
        if (find_attr(n, A_HIDDEN) != NULL) return 1;
        if (value_equals_ascii_ci(find_attr(n, A_ARIA_HIDDEN), "true")) return 1;
        const lxstr *style = attr_value(find_attr(n, A_STYLE));
        if (style != NULL) {
            int hidden = call_test(style_hidden_fn, style);
            if (hidden != 0) return hidden;
        }
    }
    if (m->drop_tags) {
        const lxstr *role = attr_value(find_attr(n, A_ROLE));
        if (role != NULL) return call_test(role_boilerplate_fn, role);
    }
    return 0;
}

/* Class/id words (main_text.BOILERPLATE_PATTERNS, COMMENT_PATTERNS: ASCII lowercase), by
 * first letter. For ASCII names, "any word is a substring of the ASCII-lowercased names" is
 * exactly what _classed_test's regex search of names.lower() answers, without a call into
 * Python per classed element (that call was ~45% of the main-text walk). */
#define MAX_PATTERNS 64
typedef struct {
    char *words[MAX_PATTERNS];
    size_t len[MAX_PATTERNS];
    Py_ssize_t count;
    /* the words starting with byte c are words[first_from[c] .. first_to[c]) */
    unsigned char first_from[256], first_to[256];
    /* The words as an Aho-Corasick automaton over ASCII bytes (NULL: not built, the
     * first-letter runs above are searched): state = next[state * classes + byte_class[b]],
     * a word ends where final[state]. Bytes in no word share class 0, a capital letter has
     * its small letter's class. */
    uint16_t *next;
    unsigned char *final;
    unsigned char byte_class[128];
    unsigned classes;
} wordset_t;
static wordset_t boilerplate_words, comment_words, comment_form_words;
/* main_text.CONTENT_CLASSES: class tokens (ASCII lowercase) that exempt an element */
static char *content_classes[MAX_PATTERNS];
static size_t content_class_len[MAX_PATTERNS];
static Py_ssize_t content_class_count;
/* main_text.HIDDEN_CLASSES: class tokens (ASCII lowercase) that hide an element */
static char *hidden_classes[MAX_PATTERNS];
static size_t hidden_class_len[MAX_PATTERNS];
static Py_ssize_t hidden_class_count;

static inline int is_ascii(const unsigned char *s, size_t n) {
    unsigned char any = 0;  /* (no early exit: names are short, and the loop vectorizes) */
    for (size_t i = 0; i < n; i++) any |= s[i];
    return any < 0x80;
}

/* Whether ASCII `s` holds a word of `ws`, in any ASCII case. */
static int ascii_pattern_in(const wordset_t *ws, const unsigned char *s, size_t n) {
    if (ws->next != NULL) {
        const uint16_t *next = ws->next;
        const unsigned classes = ws->classes;
        unsigned state = 0;
        for (size_t i = 0; i < n; i++) {
            state = next[state * classes + ws->byte_class[s[i] & 0x7F]];
            if (ws->final[state]) return 1;
        }
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char first = ascii_lower(s[i]);
        for (unsigned k = ws->first_from[first]; k < ws->first_to[first]; k++) {
            const char *p = ws->words[k];
            size_t len = ws->len[k];
            if (len > n - i) continue;
            size_t j = 1;
            while (j < len && ascii_lower(s[i + j]) == (unsigned char)p[j]) j++;
            if (j == len) return 1;
        }
    }
    return 0;
}

/* Whether a token of the class value (split on ASCII white space, HTML's "split a string on
 * ASCII whitespace") is, ASCII-lowercased, one of `words` (CONTENT_CLASSES, HIDDEN_CLASSES). */
static int has_class_token(const lxstr *cls, char **words, const size_t *lens, Py_ssize_t count) {
    const unsigned char *s = cls->data;
    size_t n = cls->length, i = 0;
    while (i < n) {
        while (i < n && is_ascii_space(s[i])) i++;
        size_t start = i;
        while (i < n && !is_ascii_space(s[i])) i++;
        for (Py_ssize_t k = 0; k < count && i > start; k++) {
            if (lens[k] != i - start) continue;
            size_t j = 0;
            while (j < i - start && ascii_lower(s[start + j]) == (unsigned char)words[k][j]) j++;
            if (j == i - start) return 1;
        }
    }
    return 0;
}

static int has_content_class(const lxstr *cls) {
    return has_class_token(cls, content_classes, content_class_len, content_class_count);
}

/* Whether the class and id names, "class id", hold one of the words (`fn`, Python's test,
 * for non-ASCII names: str.lower() is Unicode's); tmp is scratch. */
static int names_hold(const lxstr *cv, const lxstr *iv, buf_t *tmp, const wordset_t *ws, PyObject *fn) {
    /* No word holds white space (store_words): none found in "class id" spans the space,
     * so ASCII names are searched where they are. */
    const size_t cn = cv ? cv->length : 0, in = iv ? iv->length : 0;
    if (ws->count > 0 && is_ascii(cn ? cv->data : NULL, cn) && is_ascii(in ? iv->data : NULL, in))
        return (cn && ascii_pattern_in(ws, cv->data, cn)) || (in && ascii_pattern_in(ws, iv->data, in));
    tmp->len = 0;
    if ((cv && buf_put(tmp, cv->data, cv->length) < 0) || buf_put(tmp, " ", 1) < 0 ||
        (iv && buf_put(tmp, iv->data, iv->length) < 0))
        return -1;
    lxstr names = {(unsigned char *)tmp->data, tmp->len};
    return call_test(fn, &names);
}

/* walks._comment_inside_test without its structural part: a hidden class token (with
 * drop_hidden) or class/id words naming the reply form (COMMENT_FORM_PATTERNS). */
static int comment_inside(measure_t *m, lxnode *n) {
    if (((const lxelement *)n)->first_attr == NULL) return 0;
    lxattr *cls, *id;
    find_attrs2(n, A_CLASS, A_ID, &cls, &id);
    const lxstr *cv = attr_value(cls), *iv = attr_value(id);
    if (m->drop_hidden && cv != NULL && has_class_token(cv, hidden_classes, hidden_class_len, hidden_class_count))
        return 1;
    if (cls == NULL && id == NULL) return 0;
    return names_hold(cv, iv, &m->names, &comment_form_words, names_comment_form_fn);
}

/* walks._classed_test: an element of a `flag` tag whose class and/or id is present and
 * holds one of the words (Python's `fn` for non-ASCII names: str.lower() is Unicode's), unless
 * a class token names the content. */
static int classed(lxnode *n, buf_t *tmp, const wordset_t *ws, PyObject *fn, unsigned flag) {
    if (!(tag_flags[tag_of(n)] & flag) || ((const lxelement *)n)->first_attr == NULL) return 0;
    lxattr *cls, *id;
    find_attrs2(n, A_CLASS, A_ID, &cls, &id);
    if (cls == NULL && id == NULL) return 0;
    const lxstr *cv = attr_value(cls), *iv = attr_value(id);
    int hit = names_hold(cv, iv, tmp, ws, fn);
    if (hit <= 0) return hit;
    return !(cv != NULL && has_content_class(cv));
}

static int measure_enter(walker *w, lxnode *n) {
    measure_t *m = (measure_t *)w;
    if (is_text(n)) {
        const lxstr *t = text_data(n);
        if (t->data == NULL) return 0;  /* selectolax skips a text node without data */
        size_t start, end;
        size_t chars = strip_utf8(t->data, t->length, &start, &end);
        m->total += chars;
        if (m->want_visible && !ascii_ws_only(t)) {
            /* the parts joined by spaces; only the start is kept, the length is summed */
            const int separated = m->parts++ > 0;
            m->visible_chars += chars + (size_t)separated;
            if (m->visible.len < m->visible_cap &&
                ((separated && buf_put(&m->visible, " ", 1) < 0) ||
                 buf_put(&m->visible, t->data + start, end - start) < 0))
                return -1;
        }
        return 0;
    }
    if (n->type != NODE_ELEMENT) return 0;
    unsigned tag = tag_of(n);
    if ((tag_flags[tag] & F_INVISIBLE) || (m->removed && nodeset_has(m->removed, n))) return 0;
    int selected = 0;
    switch (m->test) {
    case TEST_ARTICLE:
        selected = (tag_flags[tag] & F_ARTICLE) ||
                   value_equals(find_attr(n, A_ITEMPROP), "articleBody");
        break;
    case TEST_COMMENT_INSIDE:
        selected = structural(m, n);
        if (selected == 0) selected = comment_inside(m, n);
        break;
    }
    if (selected < 0) return -1;
    if (selected && (sizes_push(&m->starts, m->total) < 0 || nodes_push(&m->open, n) < 0))
        return -1;
    if (m->also_comments) {
        int comment = classed(n, &m->names, &comment_words, names_comment_fn, F_COMMENT);
        if (comment < 0) return -1;
        if (comment && (sizes_push(&m->cstarts, m->total) < 0 || nodes_push(&m->copen, n) < 0))
            return -1;
    }
    return 1;
}

static int measure_leave(walker *w, lxnode *n) {
    measure_t *m = (measure_t *)w;
    if (m->copen.len && m->copen.items[m->copen.len - 1] == n) {
        m->copen.len--;
        m->cstarts.len--;
        if (measures_push(&m->cfound, n, m->total - m->cstarts.items[m->cstarts.len]) < 0) return -1;
    }
    if (m->open.len && m->open.items[m->open.len - 1] == n) {
        m->open.len--;
        m->starts.len--;
        return measures_push(&m->found, n, m->total - m->starts.items[m->starts.len]);
    }
    return 0;
}

static void measure_free(measure_t *m) {
    PyMem_Free(m->starts.items);
    PyMem_Free(m->open.items);
    PyMem_Free(m->found.items);
    PyMem_Free(m->cstarts.items);
    PyMem_Free(m->copen.items);
    PyMem_Free(m->cfound.items);
    PyMem_Free(m->visible.data);
    PyMem_Free(m->names.data);
}

static int measure(lxnode *scope, measure_t *m) {
    m->w.enter = measure_enter;
    m->w.leave = measure_leave;
    return walk(scope, &m->w);
}

/* The marked text: ExtractContent's block, line and link markers around the
 * elements that carry them (walks._mark), then the text of every text node. */
typedef struct {
    walker w;
    const nodeset_t *removed;
    const unsigned char *kind_of;
    buf_t out;
    size_t links;  /* link elements open (entered, not left) */
} marker_t;

static const char HARD[] = "\xee\x80\x80", LINK_OPEN[] = "\xee\x80\x81",
                  LINK_CLOSE[] = "\xee\x80\x82", LINE[] = "\xee\x80\x83";

/* A block boundary; inside a link the link is closed before it and opened again after it
 * (walks.LINKED_HARD: the text of a teaser card, a link around a heading and a summary,
 * stays link text in each block the boundary cuts it into). */
static int put_hard(marker_t *m) {
    if (m->links == 0) return buf_put(&m->out, HARD, 3);
    if (buf_put(&m->out, LINK_CLOSE, 3) < 0 || buf_put(&m->out, HARD, 3) < 0) return -1;
    return buf_put(&m->out, LINK_OPEN, 3);
}

/* The marker an element of `tag` starts (1: its children are walked; -1: no memory). */
static int mark_element(marker_t *m, unsigned tag) {
    switch (m->kind_of[tag]) {
    case K_BLOCK: return put_hard(m) < 0 ? -1 : 1;
    case K_LINE: return buf_put(&m->out, LINE, 3) < 0 ? -1 : 1;
    case K_LINK:
        m->links++;
        return buf_put(&m->out, LINK_OPEN, 3) < 0 ? -1 : 1;
    }
    return 1;
}

static int mark_enter(walker *w, lxnode *n) {
    marker_t *m = (marker_t *)w;
    if (is_text(n)) {
        const lxstr *t = text_data(n);
        if (t->data != NULL && buf_put(&m->out, t->data, t->length) < 0) return -1;
        return 0;
    }
    if (n->type != NODE_ELEMENT) return 0;
    unsigned tag = tag_of(n);
    if ((tag_flags[tag] & F_INVISIBLE) || nodeset_has(m->removed, n)) return 0;
    return mark_element(m, tag);
}

static int mark_leave(walker *w, lxnode *n) {
    marker_t *m = (marker_t *)w;
    switch (m->kind_of[tag_of(n)]) {
    case K_BLOCK: return put_hard(m);
    case K_LINK:
        m->links--;
        return buf_put(&m->out, LINK_CLOSE, 3);
    }
    return 0;
}

/* Adds to `removed` the selected elements (other than scope) holding less text than
 * max_share of the scope's (walks._prune). */
static int prune(lxnode *scope, int test, int drop_tags, int drop_hidden, double max_share,
                 nodeset_t *removed) {
    measure_t m = {0};
    m.test = test;
    m.drop_tags = drop_tags;
    m.drop_hidden = drop_hidden;
    m.removed = removed;
    int rc = measure(scope, &m);
    if (rc == 0 && m.found.len) {
        double limit = max_share * (double)m.total;
        /* Decide on the lengths measured before anything is removed. */
        for (size_t i = 0; i < m.found.len && rc == 0; i++)
            if ((double)m.found.items[i].length < limit)
                rc = nodeset_add(removed, m.found.items[i].node);
    }
    measure_free(&m);
    return rc;
}

/* ---- the scope's pruning and marking in one walk -------------------------------- */

/* The structural prune, the class/id prune and the marking of the scope (walks._prune with
 * the structural test, then with the class/id test, then walks._mark, each skipping what the
 * ones before removed) in one walk instead of three, with the same answer:
 * - a structural element's share is decided when it is left: its text length is the
 *   measuring pass's (comment sections out, nothing else), and the structural pass's
 *   total is known before the walk (`structure_total`: the scope's length in the first
 *   measuring pass less the comment sections removed under it). A removed element's
 *   marked text is the end of the output since its entry: the output is cut back there;
 * - a class/id element's length is the text left outside the structural removals, and
 *   the class/id pass's total is all of that text: known when the walk ends, so the
 *   marked text of each class/id element removed then is cut out of the output (an
 *   element's marked text does not depend on its siblings', nor on whether it is kept).
 * Elements inside a removed element are never measured by the passes after it; their
 * answers here are dropped with it. */
typedef struct {
    lxnode *node;
    size_t seq;              /* entry number: an element's descendants have larger ones */
    size_t total_at, kept_at, out_at;
} open_t;

typedef struct {
    open_t *items;
    size_t len, cap;
} opens_t;

typedef struct {
    size_t seq, length, start, end;  /* a class/id element: its length and output span */
} span_t;

typedef struct {
    span_t *items;
    size_t len, cap;
} spans_t;

typedef struct {
    marker_t mk;
    int structure, patterns;
    measure_t probe;         /* the structural and class/id tests' settings and scratch */
    double structure_limit;
    size_t seq;
    size_t total;            /* stripped text length outside the comment sections */
    size_t kept;             /* ... and outside the structural removals */
    opens_t sopen, popen;    /* open structural and class/id elements */
    spans_t found;           /* class/id elements left (leave order) */
} pruner_t;

static int opens_push(opens_t *v, const open_t *o) {
    if (v->len == v->cap && grow((void **)&v->items, &v->cap, sizeof *v->items) < 0) return -1;
    v->items[v->len++] = *o;
    return 0;
}

static int pruner_enter(walker *w, lxnode *n) {
    pruner_t *p = (pruner_t *)w;
    if (is_text(n)) {
        const lxstr *t = text_data(n);
        if (t->data == NULL) return 0;  /* selectolax skips a text node without data */
        size_t start, end;
        size_t chars = strip_utf8(t->data, t->length, &start, &end);
        p->total += chars;
        p->kept += chars;
        return buf_put(&p->mk.out, t->data, t->length) < 0 ? -1 : 0;
    }
    if (n->type != NODE_ELEMENT) return 0;
    unsigned tag = tag_of(n);
    if ((tag_flags[tag] & F_INVISIBLE) || nodeset_has(p->mk.removed, n)) return 0;
    open_t o = {n, ++p->seq, p->total, p->kept, p->mk.out.len};
    if (p->structure) {
        int selected = structural(&p->probe, n);
        if (selected < 0 || (selected && opens_push(&p->sopen, &o) < 0)) return -1;
    }
    if (p->patterns) {
        int selected = classed(n, &p->probe.names, &boilerplate_words, names_boilerplate_fn, F_PATTERN);
        if (selected < 0 || (selected && opens_push(&p->popen, &o) < 0)) return -1;
    }
    return mark_element(&p->mk, tag);
}

static int pruner_leave(walker *w, lxnode *n) {
    pruner_t *p = (pruner_t *)w;
    if (mark_leave(w, n) < 0) return -1;
    if (p->popen.len && p->popen.items[p->popen.len - 1].node == n) {
        const open_t *o = &p->popen.items[--p->popen.len];
        if (p->found.len == p->found.cap &&
            grow((void **)&p->found.items, &p->found.cap, sizeof *p->found.items) < 0)
            return -1;
        p->found.items[p->found.len++] = (span_t){o->seq, p->kept - o->kept_at, o->out_at, p->mk.out.len};
    }
    if (p->sopen.len && p->sopen.items[p->sopen.len - 1].node == n) {
        const open_t *o = &p->sopen.items[--p->sopen.len];
        if ((double)(p->total - o->total_at) < p->structure_limit) {
            /* removed: its text leaves the class/id pass, its marked text the output, and
             * the class/id elements it holds (itself included) were never measured */
            p->kept = o->kept_at;
            p->mk.out.len = o->out_at;
            while (p->found.len && p->found.items[p->found.len - 1].seq >= o->seq) p->found.len--;
        }
    }
    return 0;
}

/* Start order; of spans starting together the longer (the outer element) first. */
static int span_order(const void *a, const void *b) {
    const span_t *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;
}

/* The marked text of the scope (in p->mk.out) with its structural and class/id elements
 * holding less than max_share of the text removed; comment sections (p->mk.removed) are
 * left out. */
static int prune_and_mark(lxnode *scope, pruner_t *p, double max_share, size_t structure_total) {
    p->mk.w.enter = pruner_enter;
    p->mk.w.leave = pruner_leave;
    p->structure_limit = max_share * (double)structure_total;
    if (walk(scope, &p->mk.w) < 0) return -1;
    if (p->total != structure_total) {  /* the limit above was not the structural pass's */
        PyErr_Format(PyExc_RuntimeError, "the scope holds %zu characters, not the %zu expected",
                     p->total, structure_total);
        return -1;
    }
    if (!p->found.len) return 0;
    /* the class/id pass: its total is the text the structural removals left */
    double limit = max_share * (double)p->kept;
    size_t cut = 0;
    for (size_t i = 0; i < p->found.len; i++)
        if ((double)p->found.items[i].length < limit) p->found.items[cut++] = p->found.items[i];
    if (!cut) return 0;
    /* spans of elements are nested or apart: in start order, each one inside the last
     * removed one goes with it */
    qsort(p->found.items, cut, sizeof *p->found.items, span_order);
    char *data = p->mk.out.data;
    size_t to = p->found.items[0].start, from = to, end = 0;
    for (size_t i = 0; i < cut; i++) {
        const span_t *s = &p->found.items[i];
        if (s->start < end) continue;  /* inside the last removed one */
        memmove(data + to, data + from, s->start - from);
        to += s->start - from;
        from = end = s->end;
    }
    memmove(data + to, data + from, p->mk.out.len - from);
    p->mk.out.len = to + (p->mk.out.len - from);
    return 0;
}

static void pruner_free(pruner_t *p) {
    measure_free(&p->probe);
    PyMem_Free(p->sopen.items);
    PyMem_Free(p->popen.items);
    PyMem_Free(p->found.items);
    PyMem_Free(p->mk.out.data);
}

/* main_text(root, ...): the ExtractContent blocks of the scope under root (the body). */
/* A share no element reaches: inside a comment section every hidden or structural element
 * goes (walks.EVERY_SHARE), a reply form holding all of a section's text too. */
#define EVERY_SHARE 2.0

/* Whether `anc` is `n` or one of its ancestors. */
static int is_ancestor_or_self(const lxnode *anc, const lxnode *n) {
    for (; n != NULL; n = n->parent)
        if (n == anc) return 1;
    return 0;
}

/* The comment sections (walks._comment_sections) among the candidates (the comment-classed
 * elements under root and their lengths, as the first measuring pass found them): the
 * outermost elements under root whose class/id names comments, each holding less than max_share of the visible text and none of
 * them the scope or an ancestor of it. Each is added to `removed`; with `out`, the marked
 * text of each section that is not boilerplate itself (walks._boilerplate_section), with
 * what walks._comment_inside_test selects inside it removed, is appended to out, the
 * sections separated by block markers. */
static int comment_sections(const measures_t *candidates, lxnode *root, lxnode *scope,
                            size_t visible_chars, double max_share, int drop_tags, int drop_hidden,
                            nodeset_t *removed, buf_t *out, size_t *under_scope) {
    nodeset_t found = {0};
    int rc = 0;
    for (size_t i = 0; i < candidates->len && rc == 0; i++) rc = nodeset_add(&found, candidates->items[i].node);
    double limit = max_share * (double)visible_chars;
    int first = 1;
    measure_t probe = {0};  /* the structural and class/id tests' settings and scratch */
    probe.drop_tags = drop_tags;
    probe.drop_hidden = drop_hidden;
    /* the candidates are in leave order: for elements none of which holds another, tree order */
    for (size_t i = 0; i < candidates->len && rc == 0; i++) {
        lxnode *n = candidates->items[i].node;
        int inner = 0;
        for (lxnode *p = n->parent; p != NULL && p != root && !inner; p = p->parent)
            inner = nodeset_has(&found, p);
        if (inner || !((double)candidates->items[i].length < limit) || is_ancestor_or_self(n, scope))
            continue;
        if ((rc = nodeset_add(removed, n)) < 0) break;
        if (n != scope && is_ancestor_or_self(scope, n)) *under_scope += candidates->items[i].length;
        if (out == NULL) continue;
        /* a comment-named aside, form, modal or widget is boilerplate, not the comments */
        int junk = structural(&probe, n);
        if (junk == 0) junk = classed(n, &probe.names, &boilerplate_words, names_boilerplate_fn, F_PATTERN);
        if (junk < 0) rc = -1;
        if (junk != 0) continue;
        nodeset_t inside = {0};
        marker_t mk = {{mark_enter, mark_leave}, &inside, kinds, {0}, 0};
        if (prune(n, TEST_COMMENT_INSIDE, drop_tags, drop_hidden, EVERY_SHARE, &inside) < 0)
            rc = -1;
        if (rc == 0 && !first && buf_put(out, HARD, 3) < 0) rc = -1;
        if (rc == 0 && walk(n, &mk.w) < 0) rc = -1;
        if (rc == 0 && mk.out.len && buf_put(out, mk.out.data, mk.out.len) < 0) rc = -1;
        first = 0;
        PyMem_Free(inside.slots);
        PyMem_Free(mk.out.data);
    }
    PyMem_Free(found.slots);
    measure_free(&probe);
    return rc;
}

static PyObject *main_text_of(lxnode *root, int drop_tags, int drop_hidden, int prune_patterns,
                              int prefer_article, double max_share, double article_min_share,
                              int comments, double comment_max_share, Py_ssize_t prefix_chars) {
    PyObject *result = NULL, *visible = NULL;
    nodeset_t removed = {0};
    marker_t mk = {{mark_enter, mark_leave}, &removed, kinds, {0}, 0};
    pruner_t pruner = {0};
    buf_t comment_text = {0};

    /* Visible text and the article candidates (walks._container), in tree order;
     * css() on the root includes the root itself. */
    measure_t m = {0};
    m.test = prefer_article ? TEST_ARTICLE : TEST_NONE;
    m.want_visible = 1;
    m.also_comments = prune_patterns;  /* one walk finds the comment sections too */
    /* prefix_chars code points take at most 4 bytes each */
    m.visible_cap = 4 * (size_t)(prefix_chars > 0 ? prefix_chars : 0) + 4;
    int rc = measure(root, &m);
    if (rc < 0) goto done;
    /* Only the visible text's length and its first prefix_chars characters are returned:
     * decoding the whole of it cost more than the rest of this walk's text handling (and
     * only its start is collected). */
    const char *vis = m.visible.data ? m.visible.data : "";
    size_t visible_chars = m.visible_chars, cut = 0, seen_chars = 0;
    while (cut < m.visible.len && seen_chars < (size_t)(prefix_chars > 0 ? prefix_chars : 0)) {
        cut += utf8_seq_len((unsigned char)vis[cut]);
        seen_chars++;
    }
    if (cut > m.visible.len) cut = m.visible.len;
    visible = PyUnicode_DecodeUTF8(vis, (Py_ssize_t)cut, "replace");
    if (visible == NULL) goto done;
    if (visible_chars == 0) {
        result = Py_BuildValue("([]nOO[])", (Py_ssize_t)0, visible, Py_False);
        goto done;
    }
    lxnode *scope = root;
    size_t scope_length = m.total;  /* the scope's text in the first pass */
    if (prefer_article) {
        lxnode *best = NULL;
        size_t best_length = 0;
        int root_selected = (tag_flags[tag_of(root)] & F_ARTICLE) ||
                            value_equals(find_attr(root, A_ITEMPROP), "articleBody");
        if (root_selected && m.total > 0) {
            best = root;
            best_length = m.total;
        }
        for (size_t i = 0; i < m.found.len; i++) {
            if (m.found.items[i].length > best_length) {
                best = m.found.items[i].node;
                best_length = m.found.items[i].length;
            }
        }
        /* found is in leave order; ties keep the first in tree order */
        if (best != NULL && best != root) {
            for (size_t i = 0; i < m.found.len; i++) {
                if (m.found.items[i].length == best_length) {
                    /* the earliest-entered of the equal ones: an ancestor is left after
                     * its descendants but entered before them */
                    lxnode *cand = m.found.items[i].node;
                    if (cand != best) {
                        for (lxnode *p = best->parent; p != NULL; p = p->parent)
                            if (p == cand) { best = cand; break; }
                    }
                }
            }
        }
        double share = article_min_share * (double)visible_chars;
        if (best != NULL && (double)best_length >= share && best_length > 0) {
            scope = best;
            scope_length = best_length;
        }
    }
    size_t under_scope = 0;  /* the comment sections' text removed under the scope */
    if (prune_patterns && comment_sections(&m.cfound, root, scope, visible_chars, comment_max_share,
                                           drop_tags, drop_hidden, &removed,
                                           comments ? &comment_text : NULL, &under_scope) < 0)
        goto done;
    mk.kind_of = scope != root ? container_kinds : kinds;
    pruner.mk = mk;
    pruner.structure = drop_tags || drop_hidden;
    pruner.patterns = prune_patterns;
    pruner.probe.drop_tags = drop_tags;
    pruner.probe.drop_hidden = drop_hidden;
    /* (what is left of the scope's text is what the structural pass measures) */
    if (prune_and_mark(scope, &pruner, max_share, scope_length - under_scope) < 0) goto done;
    const buf_t *marked = &pruner.mk.out;
    PyObject *blocks = blocks_of((const unsigned char *)(marked->data ? marked->data : ""), marked->len);
    if (blocks == NULL) goto done;
    PyObject *comment_blocks = blocks_of(
        (const unsigned char *)(comment_text.data ? comment_text.data : ""), comment_text.len);
    if (comment_blocks == NULL) {
        Py_DECREF(blocks);
        goto done;
    }
    result = Py_BuildValue("(NnOON)", blocks, (Py_ssize_t)visible_chars, visible,
                           scope != root ? Py_True : Py_False, comment_blocks);
done:
    Py_XDECREF(visible);
    measure_free(&m);
    PyMem_Free(removed.slots);
    pruner_free(&pruner);
    PyMem_Free(comment_text.data);
    return result;
}

/* Whether s[0..n) holds `word` (ASCII lowercase letters and spaces) in any ASCII case. */
static int ci_contains(const char *s, size_t n, const char *word) {
    size_t len = strlen(word);
    if (n < len) return 0;
    const char *end = s + n - len + 1;  /* a match starts before this */
    for (int upper = 0; upper < 2; upper++) {
        char first = upper ? (char)(word[0] - 32) : word[0];
        for (const char *p = s; p < end && (p = memchr(p, first, (size_t)(end - p))) != NULL; p++) {
            size_t j = 1;
            while (j < len && ascii_lower((unsigned char)p[j]) == (unsigned char)word[j]) j++;
            if (j == len) return 1;
        }
    }
    return 0;
}

/* ---- ExtractContent blocks ------------------------------------------------------ */

/* The marker code points (U+E000..U+E003) are three UTF-8 bytes EE 80 8x. */
static inline int marker_at(const unsigned char *s, size_t i, size_t n, unsigned char which) {
    return i + 3 <= n && s[i] == 0xee && s[i + 1] == 0x80 && s[i + 2] == which;
}

/* The position of the next `which` marker at or after `from`, or n. */
static size_t find_marker(const unsigned char *s, size_t from, size_t n, unsigned char which) {
    while (from < n) {
        const unsigned char *p = memchr(s + from, 0xee, n - from);
        if (p == NULL) return n;
        size_t i = (size_t)(p - s);
        if (marker_at(s, i, n, which)) return i;
        from = i + 1;  /* a continuation byte cannot be 0xEE: no false start */
    }
    return n;
}

/* Bytes that can start whitespace (str.isspace()) or a marker: the ASCII spaces TAB LF
 * VT FF CR, FS GS RS US, SPACE (1), and the lead bytes of U+0085/U+00A0 (C2), U+1680
 * (E1), U+2000-U+205F (E2), U+3000 (E3) and the markers U+E000-U+E003 (EE) (2). Every
 * other byte, continuation bytes included, is inside a character kept as it is. */
static const unsigned char BYTE_CLASS[256] = {
    [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [0x20] = 1,
    [0xc2] = 2, [0xe1] = 2, [0xe2] = 2, [0xe3] = 2, [0xee] = 2,
};

static inline int is_marker(const unsigned char *s, size_t i, size_t n) {
    return i + 3 <= n && s[i] == 0xee && s[i + 1] == 0x80 && s[i + 2] >= 0x80 && s[i + 2] <= 0x83;
}

static inline int put_fast(buf_t *b, const void *src, size_t n) {
    if (b->len + n <= b->cap) {
        memcpy(b->data + b->len, src, n);
        b->len += n;
        return 0;
    }
    return buf_put(b, src, n);
}

/* The end of the run of characters from `run` that are kept as they are: up to the next
 * whitespace (str.isspace()) or marker, or n. (An 8-byte SWAR skip lost on CJK text, where
 * nearly every window holds an E3 lead byte; the SSE2 skip below returns to the byte loop
 * for 16 bytes after each hit: the block cutter went from 4.9 to 3.4 ns a byte on the
 * bench crawl's pages.) */
static inline size_t kept_run(const unsigned char *s, size_t run, size_t n) {
    /* A single ASCII space between two kept characters is kept too: collapsing would write
     * it as it is (words are then no longer a run each). So a run never starts with one. */
    const size_t start = run;
    if (run < n && s[run] == 0x20) return run;
    size_t scalar_until = run; /* bytes before this go through the byte loop */
#ifdef __SSE2__
    /* 16 bytes at a time while none of them can start whitespace or a marker: no byte at
     * or below 0x20 and none of the lead bytes C2 E1 E2 E3 EE (BYTE_CLASS 1 and 2). After
     * a hit the byte loop takes the next 16 bytes (CJK text meets E3 leads often). */
    const __m128i space = _mm_set1_epi8(0x20);
    const __m128i c2 = _mm_set1_epi8((char)0xc2), e1 = _mm_set1_epi8((char)0xe1),
                  e2 = _mm_set1_epi8((char)0xe2), e3 = _mm_set1_epi8((char)0xe3),
                  ee = _mm_set1_epi8((char)0xee);
    const __m128i last_lane = _mm_set_epi8(-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
#endif
    while (run < n) {
#ifdef __SSE2__
        if (run >= scalar_until) {
            while (run + 16 <= n) {
                const __m128i v = _mm_loadu_si128((const __m128i *)(s + run));
                __m128i hit = _mm_cmpeq_epi8(_mm_max_epu8(v, space), space); /* v <= 0x20 */
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, c2));
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, e1));
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, e2));
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, e3));
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, ee));
                /* a space stops the run only before another hit (the last lane's next
                 * byte is unseen: it stops there) */
                const __m128i is_space = _mm_cmpeq_epi8(v, space);
                const __m128i next_hit = _mm_or_si128(_mm_srli_si128(hit, 1), last_lane);
                hit = _mm_or_si128(_mm_andnot_si128(is_space, hit), _mm_and_si128(is_space, next_hit));
                const int mask = _mm_movemask_epi8(hit);
                if (mask != 0) {
                    run += (size_t)__builtin_ctz((unsigned)mask);
                    break;
                }
                run += 16;
            }
            scalar_until = run + 16;
            if (run >= n) break;
        }
#endif
        unsigned char c = s[run];
        unsigned char cls = BYTE_CLASS[c];
        if (cls == 0) {
            run++;
            continue;
        }
        if (cls == 1) {
            if (c == 0x20 && run > start && run + 1 < n && BYTE_CLASS[s[run + 1]] == 0) {
                run++;  /* a single space before a kept character */
                continue;
            }
            return run;
        }
        /* A lead byte that may start a space or a marker: most characters it starts are
         * neither, which their second byte tells (U+0085/U+00A0: C2 85/A0; U+1680: E1 9A;
         * U+2000-U+205F: E2 80/81; U+3000: E3 80; U+E000-U+E003: EE 80). */
        size_t k = utf8_seq_len(c);
        if (run + k > n) k = n - run;
        unsigned char c1 = k > 1 ? s[run + 1] : 0;
        int maybe = c == 0xc2 ? (c1 == 0x85 || c1 == 0xa0)
                  : c == 0xe1 ? c1 == 0x9a
                  : c == 0xe2 ? (c1 == 0x80 || c1 == 0x81)
                  : c1 == 0x80;  /* E3, EE */
        if (maybe && (is_marker(s, run, n) || py_space(utf8_at(s + run, k)))) return run;
        run += k;
    }
    return run < n ? run : n;
}

/* Appends s[0:n] to out with Python-whitespace runs collapsed to one space, treating the
 * markers in `as_space` (a bit per marker 0..3) as whitespace and dropping the markers
 * in `dropped`; `pending` carries a separator across calls; out's text starts at `floor`. */
static int collapse_into(buf_t *out, size_t floor, const unsigned char *s, size_t n,
                         unsigned as_space, unsigned dropped, int *pending) {
    size_t i = 0;
    while (i < n) {
        size_t run = kept_run(s, i, n);  /* copied at once */
        if (run > i) {
            if (*pending && put_fast(out, " ", 1) < 0) return -1;
            *pending = 0;
            if (put_fast(out, s + i, run - i) < 0) return -1;
            i = run;
            continue;
        }
        size_t k = utf8_seq_len(s[i]);
        if (i + k > n) k = n - i;
        if (is_marker(s, i, n)) {
            unsigned bit = 1u << (s[i + 2] - 0x80);
            if (!(dropped & bit) && (as_space & bit)) *pending = out->len > floor;
            else if (!(dropped & bit)) {  /* a marker kept as a character */
                if (*pending && put_fast(out, " ", 1) < 0) return -1;
                *pending = 0;
                if (put_fast(out, s + i, 3) < 0) return -1;
            }
        } else {
            *pending = out->len > floor;  /* whitespace */
        }
        i += k;
    }
    return 0;
}

/* Both texts of a block without link markers in one pass (block_tuple): `a` gets the
 * text with LINE markers as whitespace, `b` the same text except that a separator whose
 * whitespace run held a LINE is "\n" — exactly the non-empty collapsed lines joined by
 * newlines, as _clean makes them. */
static int collapse_lines(buf_t *a, buf_t *b, const unsigned char *s, size_t n) {
    int pending = 0, newline = 0;
    size_t i = 0;
    while (i < n) {
        size_t run = kept_run(s, i, n);
        if (run > i) {
            if (pending && (put_fast(a, " ", 1) < 0 || put_fast(b, newline ? "\n" : " ", 1) < 0))
                return -1;
            pending = newline = 0;
            if (put_fast(a, s + i, run - i) < 0 || put_fast(b, s + i, run - i) < 0) return -1;
            i = run;
            continue;
        }
        size_t k = utf8_seq_len(s[i]);
        if (i + k > n) k = n - i;
        pending = a->len > 0;  /* whitespace or a LINE marker (the only marker here) */
        if (is_marker(s, i, n)) newline = 1;
        i += k;
    }
    return 0;
}

#define M_HARD 0x80
#define M_OPEN 0x81
#define M_CLOSE 0x82
#define M_LINE 0x83

/* One block (the oracle's prepare_blocks): its length, its text outside links (markers as
 * spaces, whitespace collapsed), its number of links, and its cleaned lines. */
static PyObject *block_tuple(const unsigned char *s, size_t n, buf_t *a, buf_t *b) {
    int blank = 1;
    for (size_t i = 0; i < n && blank;) {
        size_t k = utf8_seq_len(s[i]);
        if (i + k > n) k = n - i;
        if (!py_space(utf8_at(s + i, k))) blank = 0;
        i += k;
    }
    if (blank) Py_RETURN_NONE;  /* empty or whitespace only: no block at all */
    size_t chars = utf8_chars((const char *)s, n), links = 0, i;
    for (size_t i = find_marker(s, 0, n, M_OPEN); i < n; i = find_marker(s, i + 3, n, M_OPEN))
        links++;
    a->len = 0;
    b->len = 0;
    if (links == 0 && find_marker(s, 0, n, M_CLOSE) == n) {
        if (collapse_lines(a, b, s, n) < 0) return NULL;
        goto built;
    }
    /* _split_links: the text before the first link, then after each link's first close,
     * the parts joined by spaces. */
    int pending = 0;
    const unsigned as_space = (1u << 2) | (1u << 3);  /* LINK_CLOSE, LINE */
    i = find_marker(s, 0, n, M_OPEN);
    if (collapse_into(a, 0, s, i, as_space, 0, &pending) < 0) return NULL;
    while (i < n) {  /* at a LINK_OPEN */
        size_t next = find_marker(s, i + 3, n, M_OPEN);
        size_t close = find_marker(s, i + 3, next, M_CLOSE);
        if (close < next) {
            pending = a->len > 0;  /* the " ".join separator */
            if (collapse_into(a, 0, s + close + 3, next - close - 3, as_space, 0, &pending) < 0)
                return NULL;
        }
        i = next;
    }
    /* _clean: link markers dropped, lines split on LINE, each collapsed, empty ones out. */
    size_t line_start = 0;
    for (;;) {
        size_t end = find_marker(s, line_start, n, M_LINE);
        size_t before = b->len;
        int p = 0;
        if (before > 0 && buf_put(b, "\n", 1) < 0) return NULL;
        size_t mark = b->len;
        if (collapse_into(b, mark, s + line_start, end - line_start, 0, (1u << 1) | (1u << 2), &p) < 0)
            return NULL;
        if (b->len == mark) b->len = before;  /* an empty line is not kept */
        if (end == n) break;
        line_start = end + 3;
    }
built:;
    /* "copyr" or "all r" in any ASCII case (walks._maybe_waste) */
    int maybe_waste = ci_contains(a->data, a->len, "copyr") || ci_contains(a->data, a->len, "all r");
    return Py_BuildValue("(nny#Nny#)", (Py_ssize_t)chars, (Py_ssize_t)utf8_chars(a->data, a->len),
                         a->data ? a->data : "", (Py_ssize_t)a->len, PyBool_FromLong(maybe_waste),
                         (Py_ssize_t)links, b->data ? b->data : "", (Py_ssize_t)b->len);
}

/* The blocks of marked UTF-8 text (the oracle's prepare_blocks). */
static PyObject *blocks_of(const unsigned char *s, size_t n) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    buf_t a = {0}, b = {0};
    size_t start = 0;
    for (;;) {
        size_t end = find_marker(s, start, n, M_HARD);
        PyObject *item = block_tuple(s + start, end - start, &a, &b);
        if (item == NULL || (item != Py_None && PyList_Append(out, item) < 0)) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(item);
        if (end == n) break;
        start = end + 3;
    }
    PyMem_Free(a.data);
    PyMem_Free(b.data);
    return out;
}

static PyObject *py_blocks(PyObject *self, PyObject *args) {
    PyObject *marked;
    if (!PyArg_ParseTuple(args, "U", &marked)) return NULL;
    Py_ssize_t size;
    const char *data = PyUnicode_AsUTF8AndSize(marked, &size);
    if (data == NULL) return NULL;
    return blocks_of((const unsigned char *)data, (size_t)size);
}

/* ---- metadata ----------------------------------------------------------------- */

/* pipeline.extract.document.is_html_element: the first ancestor that is an integration point
 * or body/head/html says HTML, svg/math says foreign; none says HTML. */
static int is_html_element(const lxnode *n) {
    for (const lxnode *p = n->parent; p != NULL; p = p->parent) {
        if (p->local_name < TAG_TABLE && integration_point[p->local_name]) return 1;
        if (p->local_name == LXB_TAG_SVG || p->local_name == LXB_TAG_MATH) return 0;
        if (p->local_name == LXB_TAG_BODY || p->local_name == LXB_TAG_HEAD ||
            p->local_name == LXB_TAG_HTML)
            return 1;
    }
    return 1;
}

/* LexborNode.text(deep=False): the direct text children, concatenated. */
static PyObject *child_text(const lxnode *n, buf_t *tmp) {
    tmp->len = 0;
    for (const lxnode *c = n->first_child; c != NULL; c = c->next) {
        if (c->type != NODE_TEXT) continue;
        const lxstr *t = &((const lxchardata *)c)->data;
        if (t->data != NULL && buf_put(tmp, t->data, t->length) < 0) return NULL;
    }
    return PyUnicode_DecodeUTF8(tmp->data ? tmp->data : "", (Py_ssize_t)tmp->len, "replace");
}

/* Whether the value holds `word` (ASCII lowercase) as a keyword: split on ASCII
 * whitespace, compared ASCII case-insensitively (links.rel_keywords). */
static int has_keyword(const lxstr *v, const char *word) {
    size_t at = 0, len;
    for (const unsigned char *k; v != NULL && (k = next_keyword(v->data, v->length, &at, &len)) != NULL;) {
        if (ascii_ci_equals(k, len, word)) return 1;
    }
    return 0;
}

/* meta.WANTED_KEYS (ASCII lowercase; set by configure_head) */
#define MAX_META_KEYS 64
static char *meta_keys[MAX_META_KEYS];
static size_t meta_key_len[MAX_META_KEYS];
static Py_ssize_t meta_key_count;

/* Whether a meta key, ASCII whitespace stripped and lowercased, is a wanted one (the
 * oracle's wanted_key: str.lower() is Unicode's, but no non-ASCII character lowercases into
 * a wanted key, document.py checks: a key with a non-ASCII byte is never wanted). */
static int wanted_key(const lxstr *v) {
    if (v == NULL) return 0;
    size_t start = 0, end = v->length;
    while (start < end && is_ascii_space(v->data[start])) start++;
    while (end > start && is_ascii_space(v->data[end - 1])) end--;
    for (Py_ssize_t k = 0; k < meta_key_count; k++) {
        if (meta_key_len[k] == end - start && ascii_ci_equals(v->data + start, end - start, meta_keys[k]))
            return 1;
    }
    return 0;
}

/* The metadata walk's per-node work and state (py_document). */
typedef struct {
    PyObject *metas, *links, *base_href, *title, *html_lang;
    int seen_html;
    buf_t tmp;
} head_t;

static int head_visit(head_t *st, lxnode *n) {
    if (n->type != NODE_ELEMENT) return 0;
    uintptr_t id = n->local_name;
    if (id == LXB_TAG_META) {
        const lxattr *content = find_attr(n, A_CONTENT);
        if (attr_value(content) == NULL) return 0;
        const lxattr *prop = find_attr(n, A_PROPERTY), *name = find_attr(n, A_NAME);
        if (!wanted_key(attr_value(prop)) && !wanted_key(attr_value(name))) return 0;
        return append_new(st->metas, Py_BuildValue("(NNN)", value_or_none(prop), value_or_none(name),
                                                   value_or_none(content)));
    }
    if (id == LXB_TAG_LINK) {
        const lxattr *href = find_attr(n, A_HREF);
        if (attr_value(href) == NULL) return 0;
        const lxattr *rel = find_attr(n, A_REL);
        if (!has_keyword(attr_value(rel), "canonical")) return 0;
        return append_new(st->links, Py_BuildValue("(NN)", value_or_none(href), value_or_none(rel)));
    }
    if (id == LXB_TAG_BASE) {
        const lxattr *href = find_attr(n, A_HREF);
        if (st->base_href == NULL && attr_value(href) != NULL && (st->base_href = value_or_none(href)) == NULL)
            return -1;
    } else if (id == LXB_TAG_TITLE) {
        if (st->title == NULL && is_html_element(n) && (st->title = child_text(n, &st->tmp)) == NULL)
            return -1;
    } else if (id == LXB_TAG_HTML && !st->seen_html) {
        st->seen_html = 1;
        if ((st->html_lang = value_or_none(find_attr(n, A_LANG))) == NULL) return -1;
    }
    return 0;
}

static PyObject *head_result(head_t *st) {
    return Py_BuildValue("(OOOOO)", st->metas, st->base_href ? st->base_href : Py_None,
                         st->title ? st->title : Py_None, st->links,
                         st->html_lang ? st->html_lang : Py_None);
}

static void head_free(head_t *st) {
    Py_XDECREF(st->metas);
    Py_XDECREF(st->links);
    Py_XDECREF(st->base_href);
    Py_XDECREF(st->title);
    Py_XDECREF(st->html_lang);
    PyMem_Free(st->tmp.data);
}

/* ---- configuration (set once from Python) ------------------------------------- */

/* Replaces words[0..*count) by copies of the str items of `tuple` (at most max of them;
 * each non-empty, ASCII, lowercase, without white space; NUL-terminated). 0, or -1 with
 * an exception set (`what` names the words in its message). */
static int store_words(PyObject *tuple, Py_ssize_t max, char **words, size_t *lens, Py_ssize_t *count,
                       const char *what) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) > max) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of at most %zd", what, max);
        return -1;
    }
    for (Py_ssize_t k = 0; k < *count; k++) PyMem_Free(words[k]);
    *count = 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); k++) {
        Py_ssize_t len;
        PyObject *item = PyTuple_GET_ITEM(tuple, k);
        const char *word = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
        if (word == NULL) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s must be str", what);
            return -1;
        }
        for (Py_ssize_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)word[i];
            if (c >= 0x80 || ascii_lower(c) != c || is_ascii_space(c)) {
                PyErr_Format(PyExc_ValueError, "%s must be ASCII lowercase, without white space", what);
                return -1;
            }
        }
        if (len == 0) {  /* an empty word would match everything */
            PyErr_Format(PyExc_ValueError, "%s must not be empty", what);
            return -1;
        }
        char *copy = PyMem_Malloc((size_t)len + 1);
        if (copy == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(copy, word, (size_t)len + 1);
        words[*count] = copy;
        lens[(*count)++] = (size_t)len;
    }
    return 0;
}

/* A scratch document whose name tables resolve tag and attribute names to Lexbor's ids
 * (lxb_tag_id_by_name, lxb_dom_attr_data_by_local_name: the static table first). */
static lxb_html_document_t *names_document;

/* Lexbor's static id of the HTML element named `name`, or -1 with an exception set. */
static long static_tag_id(PyObject *name) {
    Py_ssize_t len;
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
    if (s == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "tag names must be str");
        return -1;
    }
    lxb_tag_id_t id = lxb_tag_id_by_name(names_document->dom_document.tags,
                                         (const lxb_char_t *)s, (size_t)len);
    if (id == LXB_TAG__UNDEF || id >= LXB_TAG__LAST_ENTRY) {
        PyErr_Format(PyExc_ValueError, "%R is not in Lexbor's table of HTML elements", name);
        return -1;
    }
    return (long)id;
}

/* The tag-name -> value dict `mapping` into table (or'ed in when as_flag). */
static int fill_table(PyObject *mapping, unsigned char *table, int as_flag) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(mapping, &pos, &key, &value)) {
        long id = static_tag_id(key);
        if (id < 0) return -1;
        long v = PyLong_AsLong(value);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0 || v > 255) {
            PyErr_Format(PyExc_ValueError, "the value of %R must be 0-255", key);
            return -1;
        }
        table[id] = as_flag ? (unsigned char)(table[id] | v) : (unsigned char)v;
    }
    return 0;
}

static PyObject *py_configure(PyObject *self, PyObject *args) {
    PyObject *flags, *kind, *container_kind, *style_fn, *names_fn, *role_fn;
    if (!PyArg_ParseTuple(args, "O!O!O!OOO", &PyDict_Type, &flags, &PyDict_Type, &kind,
                          &PyDict_Type, &container_kind, &style_fn, &names_fn, &role_fn))
        return NULL;
    if (refuse_while_walking() < 0) return NULL;
    if (!PyCallable_Check(style_fn) || !PyCallable_Check(names_fn) || !PyCallable_Check(role_fn))
        return PyErr_Format(PyExc_TypeError, "style_hidden, names_boilerplate and role_boilerplate must be callable");
    configured = 0;
    memset(tag_flags, 0, sizeof tag_flags);
    memset(kinds, 0, sizeof kinds);
    memset(container_kinds, 0, sizeof container_kinds);
    if (fill_table(flags, tag_flags, 1) < 0 || fill_table(kind, kinds, 0) < 0 ||
        fill_table(container_kind, container_kinds, 0) < 0)
        return NULL;
    tag_flags[0] = 0;
    kinds[0] = container_kinds[0] = 0;
    for (int i = 0; i < A_COUNT; i++) {
        attr_name_len[i] = strlen(ATTR_NAMES[i]);
        const lxb_dom_attr_data_t *data = lxb_dom_attr_data_by_local_name(
            names_document->dom_document.attrs, (const lxb_char_t *)ATTR_NAMES[i], attr_name_len[i]);
        attr_static_id[i] = data != NULL && data->attr_id < LXB_DOM_ATTR__LAST_ENTRY ? data->attr_id : 0;
    }
    Py_XSETREF(style_hidden_fn, Py_NewRef(style_fn));
    Py_XSETREF(names_boilerplate_fn, Py_NewRef(names_fn));
    Py_XSETREF(role_boilerplate_fn, Py_NewRef(role_fn));
    configured = 1;
    Py_RETURN_NONE;
}

/* The automaton of ws->next (Aho and Corasick 1975: a trie of the words, each state's
 * failure the longest proper suffix of its path that is a trie path, the moves completed
 * through the failures). Left NULL for word sets too big for 16-bit states. */
#define AUTOMATON_MAX_STATES 4096
static int build_automaton(wordset_t *ws) {
    PyMem_Free(ws->next);
    PyMem_Free(ws->final);
    ws->next = NULL;
    ws->final = NULL;
    size_t states = 1;
    memset(ws->byte_class, 0, sizeof ws->byte_class);
    unsigned classes = 1;
    for (Py_ssize_t k = 0; k < ws->count; k++) {
        states += ws->len[k];
        for (size_t j = 0; j < ws->len[k]; j++) {
            unsigned char c = (unsigned char)ws->words[k][j];  /* ASCII lowercase (store_words) */
            if (ws->byte_class[c] == 0) ws->byte_class[c] = (unsigned char)classes++;
        }
    }
    if (states > AUTOMATON_MAX_STATES || ws->count == 0) return 0;
    for (unsigned c = 'A'; c <= 'Z'; c++) ws->byte_class[c] = ws->byte_class[c + 32];
    uint16_t *next = PyMem_Calloc(states * classes, sizeof *next);
    unsigned char *final = PyMem_Calloc(states, 1);
    uint16_t *fail = PyMem_Calloc(states, sizeof *fail), *queue = PyMem_Calloc(states, sizeof *queue);
    if (next == NULL || final == NULL || fail == NULL || queue == NULL) {
        PyMem_Free(next);
        PyMem_Free(final);
        PyMem_Free(fail);
        PyMem_Free(queue);
        PyErr_NoMemory();
        return -1;
    }
    /* the trie (0 in next: no edge yet; no edge leads back to the root) */
    size_t used = 1;
    for (Py_ssize_t k = 0; k < ws->count; k++) {
        size_t state = 0;
        for (size_t j = 0; j < ws->len[k]; j++) {
            unsigned c = ws->byte_class[(unsigned char)ws->words[k][j]];
            if (next[state * classes + c] == 0) next[state * classes + c] = (uint16_t)used++;
            state = next[state * classes + c];
        }
        final[state] = 1;
    }
    /* breadth first: each state's failure and missing moves from shallower states' */
    size_t head = 0, tail = 0;
    for (unsigned c = 0; c < classes; c++)
        if (next[c] != 0) queue[tail++] = next[c];  /* depth 1: failure the root */
    while (head < tail) {
        size_t state = queue[head++];
        if (final[fail[state]]) final[state] = 1;  /* a word ends inside this one's end */
        for (unsigned c = 0; c < classes; c++) {
            uint16_t *to = &next[state * classes + c];
            if (*to != 0) {
                fail[*to] = next[fail[state] * classes + c];
                queue[tail++] = *to;
            } else {
                *to = next[fail[state] * classes + c];
            }
        }
    }
    PyMem_Free(fail);
    PyMem_Free(queue);
    ws->next = next;
    ws->final = final;
    ws->classes = classes;
    return 0;
}

/* configure_patterns(words): the ASCII lowercase words searched in class/id names. */
/* Sorts a word set's words by first letter (insertion sort: a few dozen words), then
 * indexes the runs. */
static int store_wordset(PyObject *tuple, wordset_t *ws, const char *what) {
    if (store_words(tuple, MAX_PATTERNS, ws->words, ws->len, &ws->count, what) < 0) return -1;
    for (Py_ssize_t k = 1; k < ws->count; k++) {
        char *word = ws->words[k];
        size_t len = ws->len[k];
        Py_ssize_t j = k;
        for (; j > 0 && (unsigned char)ws->words[j - 1][0] > (unsigned char)word[0]; j--) {
            ws->words[j] = ws->words[j - 1];
            ws->len[j] = ws->len[j - 1];
        }
        ws->words[j] = word;
        ws->len[j] = len;
    }
    memset(ws->first_from, 0, sizeof ws->first_from);
    memset(ws->first_to, 0, sizeof ws->first_to);
    for (Py_ssize_t k = ws->count - 1; k >= 0; k--) ws->first_from[(unsigned char)ws->words[k][0]] = (unsigned char)k;
    for (Py_ssize_t k = 0; k < ws->count; k++) ws->first_to[(unsigned char)ws->words[k][0]] = (unsigned char)(k + 1);
    return build_automaton(ws);
}

/* configure_patterns(words, comment_words, content_classes, comment_names, hidden_classes,
 * comment_form_words, comment_form_names) */
static PyObject *py_configure_patterns(PyObject *self, PyObject *args) {
    PyObject *words, *comments, *content, *fn, *hidden, *form, *form_fn;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &words, &comments, &content, &fn, &hidden, &form, &form_fn))
        return NULL;
    if (refuse_while_walking() < 0) return NULL;
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "comment_names must be callable");
    if (!PyCallable_Check(form_fn)) return PyErr_Format(PyExc_TypeError, "comment_form_names must be callable");
    if (store_wordset(words, &boilerplate_words, "words") < 0 ||
        store_wordset(comments, &comment_words, "comment words") < 0 ||
        store_words(content, MAX_PATTERNS, content_classes, content_class_len, &content_class_count,
                    "content classes") < 0 ||
        store_words(hidden, MAX_PATTERNS, hidden_classes, hidden_class_len, &hidden_class_count,
                    "hidden classes") < 0 ||
        store_wordset(form, &comment_form_words, "comment form words") < 0)
        return NULL;
    Py_XSETREF(names_comment_fn, Py_NewRef(fn));
    Py_XSETREF(names_comment_form_fn, Py_NewRef(form_fn));
    Py_RETURN_NONE;
}

/* configure_head(integration_point_names, meta_keys) */
static PyObject *py_configure_head(PyObject *self, PyObject *args) {
    PyObject *points, *keys;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &points, &PyTuple_Type, &keys))
        return NULL;
    if (refuse_while_walking() < 0) return NULL;
    head_configured = 0;
    memset(integration_point, 0, sizeof integration_point);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(points); i++) {
        long id = static_tag_id(PyTuple_GET_ITEM(points, i));
        if (id < 0) return NULL;
        integration_point[id] = 1;
    }
    if (store_words(keys, MAX_META_KEYS, meta_keys, meta_key_len, &meta_key_count, "meta keys") < 0)
        return NULL;
    head_configured = 1;
    Py_RETURN_NONE;
}

/* ---- the guarded parse ---------------------------------------------------------- */

static PyObject *ParseLimitError;  /* _document.ParseLimitError(code, message) */

enum { STOP_NONE, STOP_DEPTH, STOP_ATTRIBUTES, STOP_NAMES, STOP_TIME };

/* The parse is fed PARSE_PIECE bytes at a time, and the limits are checked after each
 * piece as well as at each token: the tokenizer's own work before it emits a token is
 * unbounded by the token-level checks (it compares each attribute of a start tag with the
 * ones before it, and looks each name up in the document's name tables, whose chains grow
 * with the distinct names: 160,000 distinct attributes on one start tag took 10-50 s before
 * the guard saw the tag). So the work between two checks is that of one piece: at most
 * max_attributes plus a piece's attributes on a tag, and max_names plus a piece's names in
 * the tables. Lexbor's chunked parse builds the tree a whole one does (docs/extract.md: 892
 * documents compared fed whole, in these pieces, in 61-byte pieces and a byte at a time). */
#define PARSE_PIECE (8 << 10)

/* What the guard sits between: the tokenizer's callback into the tree builder. */
typedef struct {
    lxb_html_tokenizer_token_f tree_callback;
    void *tree_ctx;
    lxb_html_tree_t *tree;
    lexbor_hash_t *attr_names, *tag_names;  /* the document's tables of names outside Lexbor's */
    size_t max_depth, max_attributes, max_names, tokens;
    double deadline;  /* thread CPU seconds; 0: none */
    double wall_due;  /* monotonic seconds before which the deadline cannot have passed */
    int stop;
} guard_t;

static double clock_seconds(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether the thread's CPU time has passed the deadline. Reading the thread CPU clock is a
 * system call (~0.5 us; every 256 tokens it cost 7% of a page's parse), the monotonic
 * clock is not: a thread's CPU time grows no faster than wall time, so until `wall_due`
 * (the deadline's slack at the last CPU reading, added to that reading's wall time) the
 * deadline cannot have passed and the CPU clock is not read. */
static int past_deadline(guard_t *g) {
    double wall = clock_seconds(CLOCK_MONOTONIC);
    if (wall < g->wall_due) return 0;
    double cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    if (cpu > g->deadline) return 1;
    g->wall_due = wall + (g->deadline - cpu);
    return 0;
}

/* Whether `token` (emitted, or still being read) carries more than max_attributes. */
static int over_attributes(const guard_t *g, const lxb_html_token_t *token) {
    if (!g->max_attributes || token == NULL) return 0;
    size_t count = 0;
    for (const lxb_html_token_attr_t *a = token->attr_first; a != NULL; a = a->next)
        if (++count > g->max_attributes) return 1;
    return 0;
}

/* Whether the document holds more than max_names distinct tag and attribute names outside
 * Lexbor's static tables (custom elements, data-*, any invented name). */
static int over_names(const guard_t *g) {
    return g->max_names && lexbor_dobject_allocated(g->attr_names->entries) +
                                   lexbor_dobject_allocated(g->tag_names->entries) > g->max_names;
}

/* Between the tokenizer and the tree builder (HTML Standard §13.2.5: "When a token is
 * emitted, it must immediately be handled by the tree construction stage"): refuse a
 * start tag with too many attributes before the tree builder appends them one by one,
 * and stop once the stack of open elements is deeper than the limit, the document's names
 * are too many, or the deadline has passed (checked every 256 tokens, and after each piece
 * of input: guard_piece). */
static lxb_html_token_t *guard_token(lxb_html_tokenizer_t *tkz, lxb_html_token_t *token, void *ctx) {
    guard_t *g = ctx;
    if (over_attributes(g, token)) {
        g->stop = STOP_ATTRIBUTES;
        tkz->status = LXB_STATUS_ABORTED;
        return NULL;
    }
    if (over_names(g)) {
        g->stop = STOP_NAMES;
        tkz->status = LXB_STATUS_ABORTED;
        return NULL;
    }
    token = g->tree_callback(tkz, token, g->tree_ctx);
    if (token == NULL) return NULL;
    if (g->max_depth && g->tree->open_elements->length > g->max_depth) {
        g->stop = STOP_DEPTH;
    } else if (g->deadline > 0 && (++g->tokens & 255) == 0 && past_deadline(g)) {
        g->stop = STOP_TIME;
    } else {
        return token;
    }
    tkz->status = LXB_STATUS_ABORTED;
    return NULL;
}

/* After a piece of input: the same limits, on the tag the tokenizer is still reading too. */
static void guard_piece(guard_t *g, lxb_html_tokenizer_t *tkz) {
    if (over_attributes(g, tkz->token)) g->stop = STOP_ATTRIBUTES;
    else if (over_names(g)) g->stop = STOP_NAMES;
    else if (g->deadline > 0 && past_deadline(g)) g->stop = STOP_TIME;
}

typedef struct {
    PyObject_HEAD
    lxb_html_document_t *doc;
} DocumentObject;

static void Document_dealloc(DocumentObject *self) {
    if (self->doc != NULL && ids_document == &self->doc->dom_document)
        ids_document = NULL;  /* (the next document may be given the same address) */
    if (self->doc != NULL) lxb_html_document_destroy(self->doc);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *stop_error(const guard_t *g) {
    PyObject *exc;
    switch (g->stop) {
    case STOP_DEPTH:
        exc = Py_BuildValue("(sN)", "too-deep", PyUnicode_FromFormat(
            "more than %zu open elements", g->max_depth));
        break;
    case STOP_ATTRIBUTES:
        exc = Py_BuildValue("(sN)", "too-many-attributes", PyUnicode_FromFormat(
            "a start tag with more than %zu attributes", g->max_attributes));
        break;
    case STOP_NAMES:
        exc = Py_BuildValue("(sN)", "too-many-names", PyUnicode_FromFormat(
            "more than %zu distinct tag and attribute names", g->max_names));
        break;
    default:
        exc = Py_BuildValue("(ss)", "time-budget", "the parse passed the deadline");
    }
    if (exc != NULL) {
        PyErr_SetObject(ParseLimitError, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* Document(data: bytes, max_depth=0, max_attributes=0, deadline=0.0, max_names=0) */
static PyObject *Document_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"data", "max_depth", "max_attributes", "deadline", "max_names", NULL};
    Py_buffer in;
    Py_ssize_t max_depth = 0, max_attributes = 0, max_names = 0;
    double deadline = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|nndn", keywords, &in, &max_depth,
                                     &max_attributes, &deadline, &max_names))
        return NULL;
    DocumentObject *self = NULL;
    guard_t g = {0};
    lxb_html_document_t *doc = NULL;
    if (max_depth < 0 || max_attributes < 0 || max_names < 0) {
        PyErr_SetString(PyExc_ValueError, "limits must be >= 0 (0: none)");
        goto fail;
    }
    if (!(deadline >= 0.0) || isinf(deadline)) {
        PyErr_SetString(PyExc_ValueError, "deadline must be a finite number of seconds >= 0 (0: none)");
        goto fail;
    }
    if ((doc = lxb_html_document_create()) == NULL ||
        lxb_html_document_parse_chunk_begin(doc) != LXB_STATUS_OK) {
        PyErr_NoMemory();
        goto fail;
    }
    lxb_html_parser_t *parser = doc->dom_document.parser;
    lxb_html_tokenizer_t *tkz = parser->tkz;
    g.tree_callback = tkz->callback_token_done;
    g.tree_ctx = tkz->callback_token_ctx;
    g.tree = parser->tree;
    g.attr_names = doc->dom_document.attrs;
    g.tag_names = doc->dom_document.tags;
    g.max_depth = (size_t)max_depth;
    g.max_attributes = (size_t)max_attributes;
    g.max_names = (size_t)max_names;
    g.deadline = deadline;
    lxb_html_tokenizer_callback_token_done_set(tkz, guard_token, &g);
    lxb_status_t status = LXB_STATUS_OK;
    const lxb_char_t *data = in.buf;
    size_t left = (size_t)in.len;
    while (left > 0 && status == LXB_STATUS_OK && g.stop == STOP_NONE) {
        size_t piece = left < PARSE_PIECE ? left : PARSE_PIECE;
        status = lxb_html_document_parse_chunk(doc, data, piece);
        data += piece;
        left -= piece;
        if (status == LXB_STATUS_OK && g.stop == STOP_NONE) guard_piece(&g, tkz);
    }
    if (status == LXB_STATUS_OK && g.stop == STOP_NONE) status = lxb_html_document_parse_chunk_end(doc);
    /* the guard lives on this stack: the tokenizer must never call it again */
    lxb_html_tokenizer_callback_token_done_set(tkz, g.tree_callback, g.tree_ctx);
    if (g.stop != STOP_NONE) {
        stop_error(&g);
        goto fail;
    }
    if (status != LXB_STATUS_OK) {
        PyErr_Format(PyExc_MemoryError, "Lexbor's parse failed (status %d)", (int)status);
        goto fail;
    }
    if ((self = (DocumentObject *)type->tp_alloc(type, 0)) == NULL) goto fail;
    self->doc = doc;
    PyBuffer_Release(&in);
    return (PyObject *)self;
fail:
    if (doc != NULL) lxb_html_document_destroy(doc);
    PyBuffer_Release(&in);
    return NULL;
}

/* The candidates of a pack as the oracle's link_candidates gives them: a new list of
 * (kind, tag, attr, value, rel, text). */
static PyObject *unpacked(const buf_t *pack, PyObject *objects) {
    PyObject *out = PyList_New(0);
    size_t at = CANDIDATES_MAGIC_LEN;
    while (out != NULL && at < pack->len) {
        candidate_head head;
        memcpy(&head, pack->data + at, sizeof head);
        at += sizeof head;
        PyObject *value = PyUnicode_DecodeUTF8(pack->data + at, (Py_ssize_t)head.length, "strict");
        at += head.length;
        PyObject *item = value == NULL ? NULL : PyTuple_Pack(
            6, kind_names[head.kind], PyList_GET_ITEM(objects, head.tag), PyList_GET_ITEM(objects, head.attr),
            value, PyList_GET_ITEM(objects, head.rel), PyList_GET_ITEM(objects, head.text));
        Py_XDECREF(value);
        if (append_new(out, item) < 0) Py_CLEAR(out);
    }
    return out;
}

/* facts(limits, packed=False) -> (elements, candidates, dropped per kind, refresh contents,
 * head facts): the links' candidates (at most limits[k] URLs of kind k) and the metadata walk
 * in one pass over the tree from the document element (selectolax's root). The candidates
 * are a list of (kind, tag, attr, value, rel, text), or with packed, (pack, objects) as
 * _candidates.h describes them. */
static PyObject *Document_facts(DocumentObject *self, PyObject *args) {
    sources_t *src = PyMem_Calloc(1, sizeof *src);
    PyObject *limits;
    int packed = 0;
    if (src == NULL) return PyErr_NoMemory();
    head_t head = {0};
    PyObject *result = NULL, *unread = NULL, *candidates = NULL;
    if (!PyArg_ParseTuple(args, "O!|p", &PyTuple_Type, &limits, &packed)) goto done;
    if (!configured || !head_configured || !urls_configured) {
        PyErr_Format(PyExc_RuntimeError, "configure() first");
        goto done;
    }
    if (PyTuple_GET_SIZE(limits) != URL_KINDS) {
        PyErr_Format(PyExc_ValueError, "%d limits expected", URL_KINDS);
        goto done;
    }
    for (int k = 0; k < URL_KINDS; k++) {
        src->limits[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(limits, k));
        if (src->limits[k] == -1 && PyErr_Occurred()) goto done;
        if (src->limits[k] < 0) {
            PyErr_Format(PyExc_ValueError, "limits must be >= 0, got %zd", src->limits[k]);
            goto done;
        }
    }
    if (refuse_while_walking() < 0) goto done;  /* (this walk calls no Python) */
    use_attr_ids(self->doc);
    lxnode *root = lxb_dom_document_root(&self->doc->dom_document);
    if ((src->objects = Py_BuildValue("[ON]", Py_None, PyUnicode_New(0, 0))) == NULL ||
        buf_put(&src->pack, CANDIDATES_MAGIC, CANDIDATES_MAGIC_LEN) < 0 ||
        (src->refresh = PyList_New(0)) == NULL || (head.metas = PyList_New(0)) == NULL ||
        (head.links = PyList_New(0)) == NULL)
        goto done;
    FOR_EACH_NODE(root, n) {
        if (sources_visit(src, n) < 0 || head_visit(&head, n) < 0) goto done;
    }
    if ((unread = PyList_New(URL_KINDS)) == NULL) goto done;
    for (int k = 0; k < URL_KINDS; k++) {
        Py_ssize_t past = src->seen[k] > src->limits[k] ? src->seen[k] - src->limits[k] : 0;
        PyObject *count = PyLong_FromSsize_t(past);
        if (count == NULL) goto done;
        PyList_SET_ITEM(unread, k, count);
    }
    candidates = packed ? Py_BuildValue("(y#O)", src->pack.data, (Py_ssize_t)src->pack.len, src->objects)
                        : unpacked(&src->pack, src->objects);
    if (candidates == NULL) goto done;
    result = Py_BuildValue("(nNNON)", src->elements, candidates, unread, src->refresh, head_result(&head));
    unread = NULL;
done:
    Py_XDECREF(unread);
    sources_free(src);
    PyMem_Free(src);
    head_free(&head);
    return result;
}

/* The index of `name` in url_names (added when new), or -1 with an exception set. */
static int url_name(PyObject *name) {
    Py_ssize_t len;
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
    if (s == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "attribute names must be str");
        return -1;
    }
    for (int i = 0; i < url_name_count; i++) {
        if (url_name_len[i] == (size_t)len && memcmp(url_names[i], s, (size_t)len) == 0) return i;
    }
    if (url_name_count == MAX_URL_NAMES) {
        PyErr_SetString(PyExc_ValueError, "too many attribute names");
        return -1;
    }
    char *copy = PyMem_Malloc((size_t)len + 1);
    if (copy == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(copy, s, (size_t)len + 1);
    const lxb_dom_attr_data_t *data = lxb_dom_attr_data_by_local_name(
        names_document->dom_document.attrs, (const lxb_char_t *)s, (size_t)len);
    int i = url_name_count++;
    url_names[i] = copy;
    url_name_len[i] = (size_t)len;
    url_name_id[i] = data != NULL && data->attr_id < LXB_DOM_ATTR__LAST_ENTRY ? data->attr_id : 0;
    if (url_name_id[i]) static_url_name[url_name_id[i]] = (signed char)i;
    url_name_str[i] = Py_NewRef(name);
    PyUnicode_InternInPlace(&url_name_str[i]);
    return i;
}

/* Fills e from (attr, kind, form); 0, or -1 with an exception set. */
static int url_entry_of(PyObject *attr, PyObject *kind, PyObject *form, PyObject *keep_empty, url_entry *e) {
    int name = url_name(attr);
    if (name < 0) return -1;
    if (!PyUnicode_Check(kind)) {
        PyErr_Format(PyExc_TypeError, "the kind of %R must be str", attr);
        return -1;
    }
    int k = 0;
    while (k < URL_KINDS && PyUnicode_Compare(kind_names[k], kind) != 0) k++;
    long f = PyLong_AsLong(form);
    if (k == URL_KINDS || f < FORM_ONE || f > FORM_SRCSET) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "bad table entry for %R", attr);
        return -1;
    }
    e->name = (unsigned char)name;
    e->kind = (unsigned char)k;
    e->form = (unsigned char)f;
    e->keep_empty = (unsigned char)PyObject_IsTrue(keep_empty);
    return 0;
}

/* configure_urls(kinds, per_element, global, keep_empty, resource_rels, js_types, json_types):
 * url_attributes' tables (per_element: ((tag, attr, kind, form), ...) in row order;
 * global: ((attr, kind, form), ...); keep_empty: the attributes whose empty value counts). */
static PyObject *py_configure_urls(PyObject *self, PyObject *args) {
    PyObject *kinds_, *per_element, *global, *keep_empty, *rels, *js, *json;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!", &PyTuple_Type, &kinds_, &PyTuple_Type, &per_element,
                          &PyTuple_Type, &global, &PyFrozenSet_Type, &keep_empty, &PyTuple_Type, &rels,
                          &PyTuple_Type, &js, &PyTuple_Type, &json))
        return NULL;
    if (refuse_while_walking() < 0) return NULL;
    urls_configured = 0;
    if (PyTuple_GET_SIZE(kinds_) != URL_KINDS)
        return PyErr_Format(PyExc_ValueError, "%d kinds expected", URL_KINDS);
    for (int k = 0; k < URL_KINDS; k++) {
        PyObject *kind = PyTuple_GET_ITEM(kinds_, k);
        if (!PyUnicode_Check(kind)) return PyErr_Format(PyExc_TypeError, "kinds must be str");
        Py_XSETREF(kind_names[k], Py_NewRef(kind));
        PyUnicode_InternInPlace(&kind_names[k]);
    }
    static const char *const fixed[] = {"css", "resource", "refresh", "script-string"};
    static const int fixed_at[] = {K_CSS, K_RESOURCE, K_REFRESH, K_SCRIPT};
    for (int i = 0; i < 4; i++) {
        if (PyUnicode_CompareWithASCIIString(kind_names[fixed_at[i]], fixed[i]) != 0)
            return PyErr_Format(PyExc_ValueError, "kind %d must be %s", fixed_at[i], fixed[i]);
    }
    memset(tag_entry_count, 0, sizeof tag_entry_count);
    global_entry_count = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(per_element); i++) {
        PyObject *row = PyTuple_GET_ITEM(per_element, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4)
            return PyErr_Format(PyExc_TypeError, "rows are (tag, attr, kind, form)");
        long id = static_tag_id(PyTuple_GET_ITEM(row, 0));
        if (id < 0) return NULL;
        if (tag_entry_count[id] == MAX_ENTRIES) return PyErr_Format(PyExc_ValueError, "too many entries");
        int keep = PySet_Contains(keep_empty, PyTuple_GET_ITEM(row, 1));
        if (keep < 0) return NULL;
        if (url_entry_of(PyTuple_GET_ITEM(row, 1), PyTuple_GET_ITEM(row, 2), PyTuple_GET_ITEM(row, 3),
                         keep ? Py_True : Py_False, &tag_entries[id][tag_entry_count[id]]) < 0)
            return NULL;
        tag_entry_count[id]++;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(global); i++) {
        PyObject *row = PyTuple_GET_ITEM(global, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 3 || global_entry_count == MAX_ENTRIES)
            return PyErr_Format(PyExc_TypeError, "global rows are (attr, kind, form), at most %d", MAX_ENTRIES);
        if (url_entry_of(PyTuple_GET_ITEM(row, 0), PyTuple_GET_ITEM(row, 1), PyTuple_GET_ITEM(row, 2),
                         Py_False, &global_entries[global_entry_count]) < 0)
            return NULL;
        global_entry_count++;
    }
    static const char *const special[] = {"rel", "alt", "type", "language", "http-equiv", "content",
                                          "style", "src", "href"};
    int *slots[] = {&n_rel, &n_alt, &n_type, &n_language, &n_http_equiv, &n_content, &n_style, &n_src, &n_href};
    for (int i = 0; i < 9; i++) {
        PyObject *name = PyUnicode_FromString(special[i]);
        if (name == NULL) return NULL;
        *slots[i] = url_name(name);
        Py_DECREF(name);
        if (*slots[i] < 0) return NULL;
    }
    if (store_words(rels, MAX_URL_WORDS, resource_rels, resource_rel_len, &resource_rel_count, "rels") < 0 ||
        store_words(js, MAX_URL_WORDS, js_types, js_type_len, &js_type_count, "types") < 0 ||
        store_words(json, MAX_URL_WORDS, json_types, json_type_len, &json_type_count, "types") < 0)
        return NULL;
    urls_configured = 1;
    Py_RETURN_NONE;
}

/* main_text(drop_tags, drop_hidden, prune_patterns, prefer_article, max_share,
 * article_min_share, comments, comment_max_share, prefix_chars) -> (blocks, visible length,
 * visible prefix, in_container, comment blocks) */
#define MAX_PREFIX_CHARS (1 << 30)  /* the visible prefix is kept as 4 bytes a character */
static PyObject *Document_main_text(DocumentObject *self, PyObject *args) {
    int drop_tags, drop_hidden, prune_patterns, prefer_article, comments;
    double max_share, article_min_share, comment_max_share;
    Py_ssize_t prefix_chars;
    if (!PyArg_ParseTuple(args, "ppppddpdn", &drop_tags, &drop_hidden, &prune_patterns,
                          &prefer_article, &max_share, &article_min_share, &comments,
                          &comment_max_share, &prefix_chars))
        return NULL;
    /* (NaN fails every comparison: refused like the other ranges) */
    if (!(max_share > 0.0 && max_share <= 1.0) || !(article_min_share >= 0.0 && article_min_share <= 1.0) ||
        !(comment_max_share > 0.0 && comment_max_share <= 1.0))
        return PyErr_Format(PyExc_ValueError, "main_text: max_share and comment_max_share in (0, 1], "
                            "article_min_share in [0, 1]");
    if (!configured) return PyErr_Format(PyExc_RuntimeError, "configure() first");
    if (prefix_chars < 0 || prefix_chars > MAX_PREFIX_CHARS)
        return PyErr_Format(PyExc_ValueError, "prefix_chars must be 0-%d, got %zd", MAX_PREFIX_CHARS,
                            prefix_chars);
    if (refuse_while_walking() < 0) return NULL;
    use_attr_ids(self->doc);
    lxnode *body = (lxnode *)lxb_html_document_body_element(self->doc);
    /* No body, or one the tree builder took out of the document (a frameset replaced it,
     * HTML Standard §13.2.6.4.7 "frameset" start tag): nothing of it is rendered. */
    if (body == NULL || body->parent == NULL)
        return Py_BuildValue("([]nsO[])", (Py_ssize_t)0, "", Py_False);
    walking = 1;  /* (its tests call Python) */
    PyObject *result = main_text_of(body, drop_tags, drop_hidden, prune_patterns, prefer_article,
                                    max_share, article_min_share, comments, comment_max_share,
                                    prefix_chars);
    walking = 0;
    return result;
}

static PyMethodDef Document_methods[] = {
    {"facts", (PyCFunction)Document_facts, METH_VARARGS,
     "facts(limits, packed=False) -> (elements, link candidates, dropped per kind, refresh contents, "
     "head facts); packed: the candidates as (pack, objects)"},
    {"main_text", (PyCFunction)Document_main_text, METH_VARARGS,
     "main_text(drop_tags, drop_hidden, prune_patterns, prefer_article, max_share, "
     "article_min_share, comments, comment_max_share, prefix_chars) -> (blocks of the scope, "
     "visible text length, its first prefix_chars characters, in_container, blocks of the "
     "comment sections (empty unless comments))"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject DocumentType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pipeline.native._document.Document",
    .tp_doc = "Document(data: bytes, max_depth=0, max_attributes=0, deadline=0.0, max_names=0): "
              "UTF-8 parsed by Lexbor as an HTML document, the parse stopped (ParseLimitError) "
              "past a limit (0: none) or the thread CPU deadline",
    .tp_basicsize = sizeof(DocumentObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Document_new,
    .tp_dealloc = (destructor)Document_dealloc,
    .tp_methods = Document_methods,
};

/* The URLs inside a text (_urltext.c) for the links' expansion: fn(str) -> list[str]. */
static PyObject *text_urls(PyObject *arg, PyObject *(*fn)(const unsigned char *, size_t)) {
    Py_ssize_t n;
    const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
    if (s == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a str expected");
        return NULL;  /* (a lone surrogate: UnicodeEncodeError) */
    }
    return fn((const unsigned char *)s, (size_t)n);
}
static PyObject *py_srcset_urls(PyObject *self, PyObject *arg) { return text_urls(arg, srcset_urls); }
static PyObject *py_css_urls(PyObject *self, PyObject *arg) { return text_urls(arg, css_urls); }
static PyObject *py_script_urls(PyObject *self, PyObject *arg) { return text_urls(arg, script_urls); }

static PyMethodDef methods[] = {
    {"srcset_urls", py_srcset_urls, METH_O, "srcset_urls(value) -> [url]: srcset.parse_srcset, compiled"},
    {"css_urls", py_css_urls, METH_O, "css_urls(text) -> [url]: css_urls.css_urls, compiled"},
    {"script_urls", py_script_urls, METH_O,
     "script_urls(text) -> [value]: the URL-like string literals (script_strings), compiled"},
    {"configure", py_configure, METH_VARARGS,
     "configure(tag_flags, kinds, container_kinds, style_hidden, names_boilerplate, "
     "role_boilerplate): tag-name tables and the Python tests of the main-text walks"},
    {"configure_patterns", py_configure_patterns, METH_VARARGS,
     "configure_patterns(words, comment_words, content_classes, comment_names, hidden_classes, "
     "comment_form_words, comment_form_names): ASCII lowercase class/id words of boilerplate, "
     "of comment sections and of their reply forms, searched in C for ASCII names (comment_names, "
     "comment_form_names: the Python tests for the others), the class tokens that exempt an "
     "element and those that hide one"},
    {"configure_urls", py_configure_urls, METH_VARARGS,
     "configure_urls(kinds, per_element, global, keep_empty, resource_rels, js_types, json_types)"},
    {"configure_head", py_configure_head, METH_VARARGS,
     "configure_head(integration_point_names, meta_keys)"},
    {"blocks", py_blocks, METH_VARARGS,
     "blocks(marked) -> [(length, outside length, outside text, may hold waste, links, lines)]"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_document",
    "Lexbor's HTML parser, guarded, and the extractors' walks over its tree.", -1, methods,
};

PyMODINIT_FUNC PyInit__document(void) {
    if (PyType_Ready(&DocumentType) < 0) return NULL;
    if (url_name_count == 0) memset(static_url_name, -1, sizeof static_url_name);
    if (names_document == NULL && (names_document = lxb_html_document_create()) == NULL)
        return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    ParseLimitError = PyErr_NewExceptionWithDoc(
        "pipeline.native._document.ParseLimitError",
        "ParseLimitError(code, message): the parse was stopped by a limit", PyExc_ValueError, NULL);
    if (ParseLimitError == NULL || PyModule_AddObjectRef(m, "ParseLimitError", ParseLimitError) < 0 ||
        PyModule_AddObjectRef(m, "Document", (PyObject *)&DocumentType) < 0 ||
        PyModule_AddStringConstant(m, "LEXBOR_VERSION", LEXBOR_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
