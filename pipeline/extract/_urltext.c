/* The URLs inside text: a srcset value, a style sheet, a script. Compiled into
 * pipeline.native._document beside the walks. Each function mirrors its oracle in
 * tests/oracles/ step by step (tests compare them on real pages, generated inputs and the
 * fuzzer's): srcset.parse_srcset (HTML Standard "parse a srcset attribute"),
 * css_urls.css_urls (CSS Syntax Level 3 §3.3 and §4 tokenization), and
 * script_strings.string_literals + url_like (ECMAScript §12 lexical grammar, string
 * literals §12.9.4, templates §12.9.6, Annex B.1 comments and escapes). All read UTF-8 and
 * run in one pass, linear in the input. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_ascii.h"
/* Most buffers here hold one string or URL. */
#define BUF_FIRST_CAP 256
#include "_buf.h"
#include "_urltext.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Appends code point cp as UTF-8. */
static int buf_put_cp(buf_t *b, uint32_t cp) {
    unsigned char s[4];
    size_t n;
    if (cp < 0x80) { s[0] = (unsigned char)cp; n = 1; }
    else if (cp < 0x800) { s[0] = (unsigned char)(0xC0 | cp >> 6); s[1] = (unsigned char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        s[0] = (unsigned char)(0xE0 | cp >> 12); s[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        s[2] = (unsigned char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        s[0] = (unsigned char)(0xF0 | cp >> 18); s[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        s[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); s[3] = (unsigned char)(0x80 | (cp & 0x3F)); n = 4;
    }
    return buf_put(b, s, n);
}

/* Length of the UTF-8 sequence starting with byte c (1 for a stray byte). */
static inline size_t seq_len(unsigned char c) {
    return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static inline uint32_t decode_at(const unsigned char *s, size_t i, size_t n, size_t *len) {
    size_t k = seq_len(s[i]);
    if (i + k > n) k = n - i;
    *len = k;
    switch (k) {
    case 1: return s[i];
    case 2: return (uint32_t)(s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F);
    case 3: return (uint32_t)(s[i] & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
    default: return (uint32_t)(s[i] & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
                    (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
    }
}

static inline int is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int hex_value(unsigned char c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline int put_url(url_sink *out, const buf_t *b) {
    return out->put(out, (const unsigned char *)(b->data ? b->data : ""), b->len);
}

/* A sink that appends each URL to a list as a str. */
typedef struct {
    url_sink sink;
    PyObject *list;
} list_sink;

static int list_put(url_sink *sink, const unsigned char *data, size_t len) {
    PyObject *s = PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "replace");
    if (s == NULL) return -1;
    int rc = PyList_Append(((list_sink *)sink)->list, s);
    Py_DECREF(s);
    return rc;
}

/* read(s, n, sink) with the URLs collected in a new list. */
static PyObject *read_into_list(const unsigned char *s, size_t n, int (*read)(const unsigned char *, size_t, url_sink *)) {
    list_sink out = {{list_put}, PyList_New(0)};
    if (out.list == NULL) return NULL;
    if (read(s, n, &out.sink) < 0) Py_CLEAR(out.list);
    return out.list;
}

/* ---- srcset (srcset.parse_srcset) ---------------------------------------------------- */

static inline int is_ws(unsigned char c) { return is_ascii_space(c); }

/* Whether s[0..n) is a valid non-negative integer followed by `letter`; *zero when its
 * value is 0. */
static int int_with(const unsigned char *s, size_t n, char letter, int *zero) {
    if (n < 2 || s[n - 1] != (unsigned char)letter) return 0;
    *zero = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!is_digit(s[i])) return 0;
        if (s[i] != '0') *zero = 0;
    }
    return 1;
}

/* Whether s[0..n) is a valid floating-point number followed by "x"; *negative when it
 * parses below 0. */
static int density(const unsigned char *s, size_t n, int *negative) {
    if (n < 2 || s[n - 1] != 'x') return 0;
    size_t i = 0, end = n - 1;
    if (s[i] == '-') i++;
    size_t int_digits = 0, frac_digits = 0;
    while (i < end && is_digit(s[i])) { i++; int_digits++; }
    if (i < end && s[i] == '.') {
        i++;
        while (i < end && is_digit(s[i])) { i++; frac_digits++; }
        if (frac_digits == 0) return 0;
    }
    if (int_digits == 0 && frac_digits == 0) return 0;
    if (i < end && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < end && (s[i] == '-' || s[i] == '+')) i++;
        size_t exp_digits = 0;
        while (i < end && is_digit(s[i])) { i++; exp_digits++; }
        if (exp_digits == 0) return 0;
    }
    if (i != end) return 0;
    *negative = 0;
    if (s[0] == '-') {
        char number[64];
        if (end >= sizeof number) {  /* a long number: below 0 unless every digit is 0 */
            for (size_t k = 1; k < end && s[k] != 'e' && s[k] != 'E'; k++)
                if (s[k] >= '1' && s[k] <= '9') *negative = 1;
        } else {
            memcpy(number, s, end);
            number[end] = '\0';
            double value = PyOS_string_to_double(number, NULL, NULL);
            if (value == -1.0 && PyErr_Occurred()) return -1;
            *negative = value < 0;
        }
    }
    return 1;
}

/* srcset.parse_srcset's descriptor parser over the descriptors (offsets into d). */
static int descriptors_ok(const buf_t *d, const size_t *starts, const size_t *lens, size_t count) {
    int width = 0, dens = 0, height = 0, flag;
    for (size_t k = 0; k < count; k++) {
        const unsigned char *s = (const unsigned char *)d->data + starts[k];
        size_t n = lens[k];
        if (int_with(s, n, 'w', &flag)) {
            if (width || dens || flag) return 0;
            width = 1;
        } else {
            int r = density(s, n, &flag);
            if (r < 0) return -1;
            if (r) {
                if (width || dens || height || flag) return 0;
                dens = 1;
            } else if (int_with(s, n, 'h', &flag)) {
                if (height || dens || flag) return 0;
                height = 1;
            } else {
                return 0;
            }
        }
    }
    return !(height && !width);
}

int srcset_read(const unsigned char *s, size_t n, url_sink *out) {
    buf_t url = {0}, d = {0};
    size_t *starts = NULL, *lens = NULL, cap = 0, count;
    size_t p = 0;
    for (;;) {
        while (p < n && (is_ws(s[p]) || s[p] == ',')) p++;
        if (p >= n) break;
        size_t start = p;
        while (p < n && !is_ws(s[p])) p++;
        url.len = 0;
        if (buf_put(&url, s + start, p - start) < 0) goto fail;
        d.len = 0;
        count = 0;
        if (url.data[url.len - 1] == ',') {
            while (url.len && url.data[url.len - 1] == ',') url.len--;
        } else {
            while (p < n && is_ws(s[p])) p++;
            size_t current = 0;  /* the current descriptor: d[current_start..] */
            size_t current_start = d.len;
            int state = 0;  /* 0 in descriptor, 1 in parens, 2 after descriptor */
            for (;;) {
                int c = p < n ? s[p] : -1;
                int push = 0, done = 0;
                if (state == 0) {
                    if (c >= 0 && is_ws((unsigned char)c)) {
                        if (current) { push = 1; state = 2; }
                    } else if (c == ',') {
                        p++;
                        push = current > 0;
                        done = 1;
                    } else if (c == '(') {
                        if (buf_put(&d, "(", 1) < 0) goto fail;
                        current++;
                        state = 1;
                    } else if (c < 0) {
                        push = current > 0;
                        done = 1;
                    } else {
                        unsigned char byte = (unsigned char)c;
                        if (buf_put(&d, &byte, 1) < 0) goto fail;
                        current++;
                    }
                } else if (state == 1) {
                    if (c == ')') {
                        if (buf_put(&d, ")", 1) < 0) goto fail;
                        current++;
                        state = 0;
                    } else if (c < 0) {
                        push = 1;
                        done = 1;
                    } else {
                        unsigned char byte = (unsigned char)c;
                        if (buf_put(&d, &byte, 1) < 0) goto fail;
                        current++;
                    }
                } else {
                    if (c < 0) done = 1;
                    else if (!is_ws((unsigned char)c)) { state = 0; p--; }
                }
                if (push) {
                    if (count == cap) {
                        size_t grown = cap ? cap * 2 : 8;
                        size_t *a = PyMem_Realloc(starts, grown * sizeof *a), *b2;
                        if (a == NULL) { PyErr_NoMemory(); goto fail; }
                        starts = a;
                        if ((b2 = PyMem_Realloc(lens, grown * sizeof *b2)) == NULL) { PyErr_NoMemory(); goto fail; }
                        lens = b2;
                        cap = grown;
                    }
                    starts[count] = current_start;
                    lens[count++] = current;
                    current = 0;
                    current_start = d.len;
                }
                if (done) break;
                p++;
            }
        }
        int ok = descriptors_ok(&d, starts, lens, count);
        if (ok < 0) goto fail;
        if (ok && url.len && put_url(out, &url) < 0) goto fail;
    }
    PyMem_Free(url.data);
    PyMem_Free(d.data);
    PyMem_Free(starts);
    PyMem_Free(lens);
    return 0;
fail:
    PyMem_Free(url.data);
    PyMem_Free(d.data);
    PyMem_Free(starts);
    PyMem_Free(lens);
    return -1;
}

PyObject *srcset_urls(const unsigned char *s, size_t n) { return read_into_list(s, n, srcset_read); }

/* ---- CSS (css_urls.css_urls) ------------------------------------------------------ */
/* The input is read as CSS Syntax §3.3 preprocesses it: CR LF, CR and FF are one newline,
 * NUL is U+FFFD (a name code point, printable). */

static inline int css_newline(unsigned char c) { return c == '\n' || c == '\r' || c == '\f'; }
static inline int css_ws(unsigned char c) { return c == ' ' || c == '\t' || css_newline(c); }
static inline int css_name_start(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 || c == 0;
}
static inline int css_name_char(unsigned char c) {
    return css_name_start(c) || is_digit(c) || c == '-';
}
/* §4.3.8: "\" not followed by a newline (EOF allowed). */
static inline int css_valid_escape(const unsigned char *s, size_t i, size_t n) {
    return i < n && s[i] == '\\' && (i + 1 >= n || !css_newline(s[i + 1]));
}
/* §4.3.9 would start an ident sequence, at i. */
static int css_ident_starts(const unsigned char *s, size_t i, size_t n) {
    if (i >= n) return 0;
    if (s[i] == '-') {
        if (i + 1 >= n) return 0;
        return s[i + 1] == '-' || css_name_start(s[i + 1]) || css_valid_escape(s, i + 1, n);
    }
    return css_name_start(s[i]) || css_valid_escape(s, i, n);
}
static inline size_t css_skip_ws(const unsigned char *s, size_t i, size_t n) {
    while (i < n && css_ws(s[i])) i++;
    return i;
}
/* One whitespace after a hex escape: CR LF counts as one. */
static inline size_t css_one_ws(const unsigned char *s, size_t i, size_t n) {
    if (i < n && css_ws(s[i])) return i + (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1);
    return i;
}

/* §4.3.7 consume an escaped code point, i just after the backslash; appends it to b
 * (when b is not NULL) and returns the position after, or (size_t)-1 on error. */
static size_t css_escaped(const unsigned char *s, size_t i, size_t n, buf_t *b, uint32_t *cp_out) {
    uint32_t cp;
    if (i < n && is_hex(s[i])) {
        uint32_t value = 0;
        size_t k = 0;
        while (k < 6 && i + k < n && is_hex(s[i + k])) value = value * 16 + (uint32_t)hex_value(s[i + k++]);
        i = css_one_ws(s, i + k, n);
        cp = (value == 0 || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) ? 0xFFFD : value;
    } else if (i >= n) {
        cp = 0xFFFD;
    } else {
        size_t len;
        cp = decode_at(s, i, n, &len);
        if (s[i] == 0) cp = 0xFFFD;
        i += len;
    }
    if (cp_out) *cp_out = cp;
    if (b != NULL && buf_put_cp(b, cp) < 0) return (size_t)-1;
    return i;
}

/* The end of the name run at i (§4.3.12), its value ASCII-lowercased into lower (at most
 * cap - 1 bytes; *fits 0 when longer; U+212A KELVIN SIGN lowercases to "k", as str.lower()
 * does: the one non-ASCII code point that lowercases into the names compared). */
/* Plain ASCII name code points (letters, digits, "_", "-"): the bulk of every name. */
static unsigned char css_plain_name[256];

/* The end of the name run at i (§4.3.12 consume an ident sequence), its value not read. */
static size_t css_name_end(const unsigned char *s, size_t i, size_t n) {
    while (i < n) {
        while (i < n && css_plain_name[s[i]]) i++;
        if (i >= n) break;
        unsigned char c = s[i];
        if (c >= 0x80 || c == 0) i++;
        else if (css_valid_escape(s, i, n)) i = css_escaped(s, i + 1, n, NULL, NULL);
        else break;
    }
    return i;
}

static size_t css_name(const unsigned char *s, size_t i, size_t n, char *lower, size_t cap, int *fits) {
    size_t len = 0;
    *fits = 1;
    while (i < n) {
        size_t start = i;
        while (i < n && css_plain_name[s[i]]) i++;
        if (i > start) {  /* the run, lowercased as far as it fits */
            size_t run = i - start, room = cap - 1 - len, take = run < room ? run : room;
            for (size_t k = 0; k < take; k++) lower[len++] = (char)ascii_lower(s[start + k]);
            if (run > take) *fits = 0;
            if (i >= n) break;
        }
        unsigned char c = s[i];
        if (c < 0x80 && c != 0) {
            if (c == '\\') {
                if (!css_valid_escape(s, i, n)) break;
                uint32_t cp;
                i = css_escaped(s, i + 1, n, NULL, &cp);
                if (cp == 0x212A) cp = 'k';
                if (cp < 0x80 && len + 1 < cap) lower[len++] = (char)ascii_lower((unsigned char)cp);
                else *fits = 0;
                continue;
            }
            if (!css_name_char(c)) break;
            if (len + 1 < cap) lower[len++] = (char)ascii_lower(c);
            else *fits = 0;
            i++;
        } else if (c == 0xE2 && i + 2 < n && s[i + 1] == 0x84 && s[i + 2] == 0xAA) {
            /* U+212A KELVIN SIGN: str.lower() makes it "k" */
            if (len + 1 < cap) lower[len++] = 'k';
            else *fits = 0;
            i += 3;
        } else {  /* any other non-ASCII byte, or NUL (U+FFFD): a name code point */
            *fits = 0;
            i++;
        }
    }
    lower[len] = '\0';
    return i;
}

typedef struct {
    const unsigned char *s;
    size_t n;
    url_sink *out;
    buf_t value;
    unsigned char *parens;  /* per open "(": 1 when it is image-set() */
    size_t depth, parens_cap;
    size_t image_sets;  /* how many of the open "(" are image-set() */
    int prelude;  /* 0, 1 import, 2 namespace */
    int prelude_fresh;
} css_t;

static int css_keep(css_t *t) {
    if (t->value.len == 0 || t->value.data[0] == '#' || t->prelude == 2) return 0;
    return put_url(t->out, &t->value);
}

static int css_push(css_t *t, unsigned char image_set) {
    if (t->depth == t->parens_cap) {
        size_t cap = t->parens_cap ? t->parens_cap * 2 : 16;
        unsigned char *grown = PyMem_Realloc(t->parens, cap);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->parens = grown;
        t->parens_cap = cap;
    }
    t->parens[t->depth++] = image_set;
    t->image_sets += image_set;
    return 0;
}

/* The end of a string token from its quote at i, its value not read (§4.3.5: escapes
 * are consumed whole, so "\41\n" does not end it); *valid 0 for a bad string. */
static size_t css_skip_string(const unsigned char *s, size_t i, size_t n, int *valid) {
    unsigned char quote = s[i++];
    *valid = 1;
    while (i < n) {
        unsigned char c = s[i];
        if (c == quote) return i + 1;
        if (css_newline(c)) {
            *valid = 0;
            return i;
        }
        if (c == '\\') {
            if (i + 1 >= n) return i + 1;
            if (css_newline(s[i + 1])) i += (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n') ? 3 : 2;
            else i = css_escaped(s, i + 1, n, NULL, NULL);
            continue;
        }
        i++;
    }
    return i;
}

/* §4.3.5 from the quote at i: the value in t->value, *valid 0 for a bad string; the
 * position after, or (size_t)-1 on error. */
static size_t css_string(css_t *t, size_t i, int *valid) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    unsigned char quote = s[i++];
    t->value.len = 0;
    *valid = 1;
    while (i < n) {
        unsigned char c = s[i];
        if (c == quote) return i + 1;
        if (css_newline(c)) {
            *valid = 0;
            return i;
        }
        if (c == '\\') {
            if (i + 1 >= n) {
                i++;
            } else if (css_newline(s[i + 1])) {
                i += (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n') ? 3 : 2;
            } else if ((i = css_escaped(s, i + 1, n, &t->value, NULL)) == (size_t)-1) {
                return (size_t)-1;
            }
            continue;
        }
        if (c == 0) {
            if (buf_put_cp(&t->value, 0xFFFD) < 0) return (size_t)-1;
            i++;
            continue;
        }
        size_t run = i + 1;
        while (run < n && s[run] != quote && !css_newline(s[run]) && s[run] != '\\' && s[run] != 0) run++;
        if (buf_put(&t->value, s + i, run - i) < 0) return (size_t)-1;
        i = run;
    }
    return i;
}

/* §4.3.14 */
static size_t css_bad_url(css_t *t, size_t i) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    while (i < n) {
        if (s[i] == ')') return i + 1;
        if (css_valid_escape(s, i, n)) i = css_escaped(s, i + 1, n, NULL, NULL);
        else i++;
    }
    return i;
}

static inline int css_non_printable(unsigned char c) {
    return (c >= 1 && c <= 8) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F;
}

/* §4.3.6 (whitespace after "url(" skipped) */
static size_t css_url_token(css_t *t, size_t i) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    t->value.len = 0;
    for (;;) {
        if (i >= n) return css_keep(t) < 0 ? (size_t)-1 : i;
        unsigned char c = s[i];
        if (c == ')') return css_keep(t) < 0 ? (size_t)-1 : i + 1;
        if (css_ws(c)) {
            i = css_skip_ws(s, i, n);
            if (i >= n || s[i] == ')') return css_keep(t) < 0 ? (size_t)-1 : (i < n ? i + 1 : n);
            return css_bad_url(t, i);
        }
        if (c == '"' || c == '\'' || c == '(' || css_non_printable(c)) return css_bad_url(t, i);
        if (c == '\\') {
            if (!css_valid_escape(s, i, n)) return css_bad_url(t, i);
            if ((i = css_escaped(s, i + 1, n, &t->value, NULL)) == (size_t)-1) return (size_t)-1;
            continue;
        }
        if (c == 0) {
            if (buf_put_cp(&t->value, 0xFFFD) < 0) return (size_t)-1;
            i++;
            continue;
        }
        size_t run = i + 1;
        while (run < n && !css_ws(s[run]) && s[run] != ')' && s[run] != '"' && s[run] != '\'' &&
               s[run] != '(' && s[run] != '\\' && s[run] != 0 && !css_non_printable(s[run]))
            run++;
        if (buf_put(&t->value, s + i, run - i) < 0) return (size_t)-1;
        i = run;
    }
}

/* §4.3.4 at i (an ident sequence starts there) */
static size_t css_ident_like(css_t *t, size_t i) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    char lower[24];
    int fits;
    size_t start = i;
    i = css_name_end(s, i, n);
    if (i >= n || s[i] != '(') return i;
    css_name(s, start, n, lower, sizeof lower, &fits);  /* its value, lowercased */
    i++;
    if (!fits || strcmp(lower, "url") != 0) {
        int image_set = fits && (strcmp(lower, "image-set") == 0 || strcmp(lower, "-webkit-image-set") == 0);
        return css_push(t, (unsigned char)image_set) < 0 ? (size_t)-1 : i;
    }
    size_t after = css_skip_ws(s, i, n);
    if (after < n && (s[after] == '"' || s[after] == '\'')) {
        if (css_push(t, 0) < 0) return (size_t)-1;
        int valid;
        size_t end = css_string(t, after, &valid);
        if (end == (size_t)-1 || (valid && css_keep(t) < 0)) return (size_t)-1;
        return end;
    }
    return css_url_token(t, after);
}

static int css_starts_number(const unsigned char *s, size_t i, size_t n) {
    unsigned char c = s[i];
    if (is_digit(c)) return 1;
    if (c == '+' || c == '-') {
        if (i + 1 < n && is_digit(s[i + 1])) return 1;
        return i + 2 < n && s[i + 1] == '.' && is_digit(s[i + 2]);
    }
    return c == '.' && i + 1 < n && is_digit(s[i + 1]);
}

static size_t css_number(const unsigned char *s, size_t i, size_t n) {
    if (s[i] == '+' || s[i] == '-') i++;
    while (i < n && is_digit(s[i])) i++;
    if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
        i++;
        while (i < n && is_digit(s[i])) i++;
    }
    if (i + 1 < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t k = i + 1;
        if (k < n && (s[k] == '+' || s[k] == '-')) k++;
        if (k < n && is_digit(s[k])) {
            while (k < n && is_digit(s[k])) k++;
            i = k;
        }
    }
    return i;
}

/* ---- skipping what cannot matter ----
 * Outside an @import or @namespace prelude and outside image-set(), only three kinds of
 * token decide anything: a url token or url( function, an image-set( function, and an
 * at-keyword (which may open a prelude). Strings and comments matter only in that they hide
 * what is inside them. Between the bytes below ("specials"), a style sheet holds nothing but
 * whole tokens that cannot be any of these (idents, numbers, hashes, delimiters, white space,
 * CDO/CDC, ")", ";{}" all end before a special, and none holds one): css_skip jumps from
 * special to special, and hands the exact tokenizer back the position of the token that
 * decides, together with the position it must be read past. */
static unsigned char css_special[256];

/* The first position from i holding a special byte, or n. */
static inline size_t css_next_special(const unsigned char *s, size_t i, size_t n) {
#ifdef __SSE2__
    const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\''), sl = _mm_set1_epi8('/'),
                  at = _mm_set1_epi8('@'), bs = _mm_set1_epi8('\\'), lp = _mm_set1_epi8('(');
    while (i + 16 <= n) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        const __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, dq), _mm_cmpeq_epi8(v, sq)),
                         _mm_or_si128(_mm_cmpeq_epi8(v, sl), _mm_cmpeq_epi8(v, at))),
            _mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmpeq_epi8(v, lp)));
        const unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#endif
    while (i < n && !css_special[s[i]]) i++;
    return i;
}

/* Whether s[from..to) ends with `word` (ASCII lowercase) in any ASCII case. */
static inline int css_ends_with(const unsigned char *s, size_t from, size_t to, const char *word, size_t len) {
    if (to - from < len) return 0;
    for (size_t k = 0; k < len; k++)
        if (ascii_lower(s[to - len + k]) != (unsigned char)word[k]) return 0;
    return 1;
}

/* From the token start i, with no prelude open and no image-set() open: the start of the
 * first token that may matter (n when none), and in *until a position inside that token
 * or the one after it: the exact tokenizer takes over there and reads past *until. */
static size_t css_skip(const unsigned char *s, size_t i, size_t n, size_t *until) {
    for (;;) {
        const size_t p = css_next_special(s, i, n);
        if (p >= n) return n;
        const unsigned char c = s[p];
        *until = p + 1;
        if (c == '"' || c == '\'') {  /* a string token starts here: skipped */
            int valid;
            i = css_skip_string(s, p, n, &valid);
        } else if (c == '/') {
            if (p + 1 < n && s[p + 1] == '*') {  /* a comment */
                const unsigned char *close = NULL, *from = s + p + 2, *end = s + n;
                while (from < end && (close = memchr(from, '*', (size_t)(end - from))) != NULL) {
                    if (close + 1 < end && close[1] == '/') break;
                    from = close + 1;
                    close = NULL;
                }
                i = close == NULL ? n : (size_t)(close - s) + 2;
            } else {
                i = p + 1;  /* a delimiter */
            }
        } else if (c == '@') {
            if (!css_ident_starts(s, p + 1, n)) {
                i = p + 1;  /* a delimiter */
                continue;
            }
            char lower[16];
            int fits;
            size_t end = css_name(s, p + 1, n, lower, sizeof lower, &fits);
            if (fits && (strcmp(lower, "import") == 0 || strcmp(lower, "namespace") == 0)) return p;
            i = end;  /* another at-keyword: the prelude stays closed */
        } else if (c == '(') {
            /* The end of a function token (or a "(" token): it matters when its name may be
             * url or image-set. The name, escapes aside (a backslash is a special), is the
             * run of name code points before it, and ends with the word. */
            size_t r = p;
            while (r > i && css_name_char(s[r - 1])) r--;
            if (css_ends_with(s, r, p, "url", 3) || css_ends_with(s, r, p, "image-set", 9)) return i;
            i = p + 1;
        } else {  /* a backslash: an escape inside a token that starts after i */
            return i;
        }
    }
}

int css_read(const unsigned char *s, size_t n, url_sink *out) {
    if (!css_plain_name['a']) {
        for (int b = 0; b < 256; b++)
            css_plain_name[b] = (unsigned char)((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
                                                (b >= '0' && b <= '9') || b == '_' || b == '-');
        for (const char *c = "\"'/@\\("; *c; c++) css_special[(unsigned char)*c] = 1;
    }
    css_t t = {s, n, out, {0}, NULL, 0, 0, 0, 0, 0};
    size_t i = 0, until = 0;
    while (i < n) {
        if (i >= until && t.prelude == 0 && t.image_sets == 0) {
            /* (the "(" still open are not image-set(): their count no longer matters) */
            t.depth = 0;
            t.prelude_fresh = 0;
            i = css_skip(s, i, n, &until);
            if (i >= n) break;
        }
        unsigned char c = s[i];
        if (css_ws(c)) {
            i = css_skip_ws(s, i, n);
            continue;
        }
        int fresh = t.prelude_fresh;
        t.prelude_fresh = 0;
        char lower[16];
        int fits;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 || c == 0) {
            /* a name-start code point: an ident-like token, whatever else could start here */
            if ((i = css_ident_like(&t, i)) == (size_t)-1) goto fail;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            const unsigned char *close = NULL, *from = s + i + 2, *end = s + n;
            while (from < end && (close = memchr(from, '*', (size_t)(end - from))) != NULL) {
                if (close + 1 < end && close[1] == '/') break;
                from = close + 1;
                close = NULL;
            }
            i = close == NULL ? n : (size_t)(close - s) + 2;
            t.prelude_fresh = fresh;
        } else if (c == '"' || c == '\'') {
            int valid;
            if ((fresh && t.prelude == 1) || (t.depth && t.parens[t.depth - 1])) {
                i = css_string(&t, i, &valid);
                if (i == (size_t)-1 || (valid && css_keep(&t) < 0)) goto fail;
            } else {
                i = css_skip_string(s, i, n, &valid);
            }
        } else if (c == '#' && i + 1 < n && (css_name_char(s[i + 1]) || css_valid_escape(s, i + 1, n))) {
            i = css_name_end(s, i + 1, n);
        } else if (c == '@' && css_ident_starts(s, i + 1, n)) {
            i = css_name(s, i + 1, n, lower, sizeof lower, &fits);
            t.prelude = !fits ? 0 : strcmp(lower, "import") == 0 ? 1 : strcmp(lower, "namespace") == 0 ? 2 : 0;
            t.prelude_fresh = 1;
        } else if ((c == '+' || c == '-' || c == '.' || is_digit(c)) && css_starts_number(s, i, n)) {
            i = css_number(s, i, n);
            if (css_ident_starts(s, i, n)) i = css_name_end(s, i, n);
            else if (i < n && s[i] == '%') i++;
        } else if (c == '-' && i + 2 < n && s[i + 1] == '-' && s[i + 2] == '>') {
            i += 3;
        } else if (c == '<' && i + 3 < n && s[i + 1] == '!' && s[i + 2] == '-' && s[i + 3] == '-') {
            i += 4;
        } else if (css_ident_starts(s, i, n)) {
            if ((i = css_ident_like(&t, i)) == (size_t)-1) goto fail;
        } else if (c == '(') {
            if (css_push(&t, 0) < 0) goto fail;
            i++;
        } else if (c == ')') {
            if (t.depth) t.image_sets -= t.parens[--t.depth];
            i++;
        } else if (c == ';' || c == '{' || c == '}') {
            t.prelude = 0;
            i++;
        } else {
            i++;
        }
    }
    PyMem_Free(t.value.data);
    PyMem_Free(t.parens);
    return 0;
fail:
    PyMem_Free(t.value.data);
    PyMem_Free(t.parens);
    return -1;
}

PyObject *css_urls(const unsigned char *s, size_t n) { return read_into_list(s, n, css_read); }

/* ---- scripts (script_strings.string_literals + url_like) ------------------------------ */

/* A line terminator at i (LF, CR, U+2028, U+2029): its length, else 0. */
static inline size_t js_line_end(const unsigned char *s, size_t i, size_t n) {
    if (s[i] == '\n' || s[i] == '\r') return 1;
    if (s[i] == 0xE2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) return 3;
    return 0;
}

/* White space or a line terminator at i (script_strings._SPACE): its length, else 0. */
static inline size_t js_space(const unsigned char *s, size_t i, size_t n) {
    unsigned char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == 0x0C) return 1;
    if (c < 0xC2) return 0;
    if (c == 0xC2) return i + 1 < n && s[i + 1] == 0xA0 ? 2 : 0;
    if (i + 2 >= n) return 0;
    unsigned char a = s[i + 1], b = s[i + 2];
    if (c == 0xEF) return a == 0xBB && b == 0xBF ? 3 : 0;
    if (c == 0xE1) return a == 0x9A && b == 0x80 ? 3 : 0;
    if (c == 0xE3) return a == 0x80 && b == 0x80 ? 3 : 0;
    if (c == 0xE2) {
        if (a == 0x80 && (b <= 0x8A || b == 0xA8 || b == 0xA9 || b == 0xAF)) return 3;
        if (a == 0x81 && b == 0x9F) return 3;
    }
    return 0;
}

static unsigned char js_word_table[256];

static inline int js_word_char(unsigned char c) {
    return js_word_table[c];
}

/* script_strings._WORD at i: the end of the word, or i when none starts there. */
static size_t js_word(const unsigned char *s, size_t i, size_t n) {
    if (js_word_char(s[i])) {
        while (i < n && js_word_char(s[i])) i++;
        return i;
    }
    if (s[i] == '\\' && i + 2 < n && s[i + 1] == 'u' && (is_hex(s[i + 2]) || s[i + 2] == '{')) {
        i += 3;
        while (i < n && (is_hex(s[i]) || s[i] == '}')) i++;
    }
    return i;
}

/* Whether the word s[0..n) is one of script_strings._BEFORE_EXPRESSION. */
static int js_before_expression(const unsigned char *s, size_t n) {
    switch (n) {
    case 2: return !memcmp(s, "in", 2) || !memcmp(s, "of", 2) || !memcmp(s, "do", 2);
    case 3: return !memcmp(s, "new", 3);
    case 4: return !memcmp(s, "void", 4) || !memcmp(s, "case", 4) || !memcmp(s, "else", 4);
    case 5: return !memcmp(s, "throw", 5) || !memcmp(s, "yield", 5) || !memcmp(s, "await", 5);
    case 6: return !memcmp(s, "return", 6) || !memcmp(s, "typeof", 6) || !memcmp(s, "delete", 6);
    case 10: return !memcmp(s, "instanceof", 10);
    default: return 0;
    }
}

/* A literal's value as UTF-16 turns into a scalar value string (_usv): a pending high
 * surrogate waits for its low half. */
typedef struct {
    buf_t b;
    uint32_t high;  /* 0: none pending */
} jsval;

static int jsval_put(jsval *v, uint32_t cp) {
    if (v->high) {
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            uint32_t joined = 0x10000 + ((v->high - 0xD800) << 10) + (cp - 0xDC00);
            v->high = 0;
            return buf_put_cp(&v->b, joined);
        }
        v->high = 0;
        if (buf_put_cp(&v->b, 0xFFFD) < 0) return -1;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        v->high = cp;
        return 0;
    }
    return buf_put_cp(&v->b, (cp >= 0xDC00 && cp <= 0xDFFF) ? 0xFFFD : cp);
}

static int jsval_raw(jsval *v, const unsigned char *s, size_t n) {
    if (v->high) {
        v->high = 0;
        if (buf_put_cp(&v->b, 0xFFFD) < 0) return -1;
    }
    return buf_put(&v->b, s, n);
}

static int jsval_end(jsval *v) {
    if (v->high) {
        v->high = 0;
        return buf_put_cp(&v->b, 0xFFFD);
    }
    return 0;
}

/* script_strings._Reader.escape after a backslash at i: appends the SV (or sets *invalid);
 * returns the position after, (size_t)-1 on error. */
static size_t js_escape(const unsigned char *s, size_t i, size_t n, int template, jsval *v, int *invalid) {
    if (i >= n) {
        *invalid = 1;
        return i;
    }
    unsigned char c = s[i];
    size_t lt = js_line_end(s, i, n);
    if (lt) return i + (c == '\r' && i + 1 < n && s[i + 1] == '\n' ? 2 : lt);
    uint32_t cp;
    switch (c) {
    case '\'': case '"': case '\\': cp = c; break;
    case 'b': cp = '\b'; break;
    case 'f': cp = '\f'; break;
    case 'n': cp = '\n'; break;
    case 'r': cp = '\r'; break;
    case 't': cp = '\t'; break;
    case 'v': cp = '\v'; break;
    case 'x':
        if (i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
            cp = (uint32_t)(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
            return jsval_put(v, cp) < 0 ? (size_t)-1 : i + 3;
        }
        *invalid = 1;
        return i + 1;
    case 'u':
        if (i + 4 < n && is_hex(s[i + 1]) && is_hex(s[i + 2]) && is_hex(s[i + 3]) && is_hex(s[i + 4])) {
            cp = 0;
            for (int k = 1; k <= 4; k++) cp = cp * 16 + (uint32_t)hex_value(s[i + k]);
            return jsval_put(v, cp) < 0 ? (size_t)-1 : i + 5;
        }
        if (i + 1 < n && s[i + 1] == '{') {
            size_t k = i + 2;
            uint32_t value = 0;
            int big = 0;
            while (k < n && is_hex(s[k])) {
                value = value * 16 + (uint32_t)hex_value(s[k]);
                if (value > 0x10FFFF) big = 1, value = 0x110000;
                k++;
            }
            if (k > i + 2 && k < n && s[k] == '}' && !big)
                return jsval_put(v, value) < 0 ? (size_t)-1 : k + 1;
        }
        *invalid = 1;
        return i + 1;
    default:
        if (c == '0' && !(i + 1 < n && is_digit(s[i + 1]))) {
            cp = 0;
            break;
        }
        if (c >= '0' && c <= '7') {  /* Annex B.1.2 legacy octal */
            size_t k = i + 1, max = c <= '3' ? 3 : 2;
            cp = (uint32_t)(c - '0');
            while (k < n && k - i < max && s[k] >= '0' && s[k] <= '7') cp = cp * 8 + (uint32_t)(s[k++] - '0');
            if (template) *invalid = 1;
            else if (jsval_put(v, cp) < 0) return (size_t)-1;
            return k;
        }
        if (c == '8' || c == '9') {
            if (template) *invalid = 1;
            else if (jsval_put(v, c) < 0) return (size_t)-1;
            return i + 1;
        }
        {
            size_t len;
            cp = decode_at(s, i, n, &len);
            if (jsval_raw(v, s + i, len) < 0) return (size_t)-1;
            return i + len;
        }
    }
    return jsval_put(v, cp) < 0 ? (size_t)-1 : i + 1;
}

/* ---- url_like --------------------------------------------------------------------- */

/* script_strings._URL_TEXT's ASCII part; every byte >= 0x80 passes here (its code point
 * is checked by url_like). */
static unsigned char url_text_ok[256];

static inline int url_text_byte_ok(unsigned char c) {
    if (!url_text_ok['a']) {
        for (int b = 0; b < 256; b++)
            url_text_ok[b] = (unsigned char)(b >= 0x80 || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
                                             (b >= '0' && b <= '9') ||
                                             (b != 0 && strchr("!#$%&'()*+,-./:;=?@[]_~", b) != NULL));
    }
    return url_text_ok[c];
}

/* The host check of script_strings._ABSOLUTE after "//" at p. */
static int absolute_host(const unsigned char *s, size_t n, size_t p) {
    size_t at = p;  /* userinfo: up to the first "@" before any of "/?#" */
    while (at < n && s[at] != '/' && s[at] != '?' && s[at] != '#' && s[at] != '@') at++;
    size_t starts[2] = {p, (at < n && s[at] == '@') ? at + 1 : (size_t)-1};
    for (int k = 1; k >= 0; k--) {
        size_t q = starts[k];
        if (q == (size_t)-1) continue;
        if (q < n && s[q] == '[') return 1;
        int dot = 0;
        for (size_t i = q; i < n && s[i] != '/' && s[i] != '?' && s[i] != '#' && s[i] != ':'; i++) {
            if (s[i] == '.') dot = 1;
            else if (dot) return 1;
        }
    }
    return 0;
}

static int url_like(const unsigned char *s, size_t n) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n;) {
        if (!url_text_byte_ok(s[i])) return 0;
        if (s[i] >= 0x80) {
            size_t len;
            uint32_t cp = decode_at(s, i, n, &len);
            if (cp < 0xA0 || cp > 0x10FFFD) return 0;
            i += len;
        } else {
            i++;
        }
    }
    if (s[0] == '/') {
        if (n >= 2 && s[1] == '/') return absolute_host(s, n, 2);
        if (n < 2) return 0;
        unsigned char c = s[1];
        return (c < 0x80 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                             strchr("-._~%", c) != NULL)) || c >= 0xC2;
    }
    if (s[0] == '.') return (n >= 2 && s[1] == '/') || (n >= 3 && s[1] == '.' && s[2] == '/');
    static const char *const schemes[] = {"https", "http", "ftp", "wss", "ws"};
    for (size_t k = 0; k < 5; k++) {
        size_t len = strlen(schemes[k]);
        if (n >= len + 2 && ascii_ci_equals(s, len, schemes[k]) && s[len] == ':' && s[len + 1] == '/' &&
            s[len + 2] == '/')
            return absolute_host(s, n, len + 3);
    }
    return 0;
}

typedef struct {
    const unsigned char *s;
    size_t n;
    url_sink *out;
    jsval v;
    size_t *templates;
    size_t depth, cap;
} js_t;

static int js_keep(js_t *t) {
    if (jsval_end(&t->v) < 0) return -1;
    if (!url_like((const unsigned char *)t->v.b.data, t->v.b.len)) return 0;
    return put_url(t->out, &t->v.b);
}

/* Bytes that end a plain run inside a string literal (per quote), a template, a comment. */
static unsigned char js_string_stop[2][256], js_template_stop[256], js_line_stop[256];
/* Bytes a URL-like value may start with (url_like), and "\" (an escape may make one). */
static unsigned char js_url_start[256];
static int js_tables_ready;

static void js_tables(void) {
    for (int b = 0; b < 256; b++)
        js_word_table[b] = (unsigned char)((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
                                           (b >= '0' && b <= '9') || b == '_' || b == '$' || b >= 0x80);
    const char *starts = "/.hHfFwW\\";
    for (const char *c = starts; *c; c++) js_url_start[(unsigned char)*c] = 1;
    for (int q = 0; q < 2; q++) {
        js_string_stop[q][q ? '"' : '\''] = js_string_stop[q]['\\'] = 1;
        js_string_stop[q]['\n'] = js_string_stop[q]['\r'] = 1;
    }
    js_template_stop['`'] = js_template_stop['\\'] = js_template_stop['$'] = js_template_stop['\r'] = 1;
    js_line_stop['\n'] = js_line_stop['\r'] = js_line_stop[0xE2] = 1;
    js_tables_ready = 1;
}

/* The first position from i holding the quote, "\\", LF or CR (n when none): the plain
 * run of a string literal, 16 bytes at a time where SSE2 is there. */
static inline size_t js_string_run(const unsigned char *s, size_t i, size_t n, unsigned char quote) {
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8((char)quote), bs = _mm_set1_epi8('\\'), lf = _mm_set1_epi8('\n'),
                  cr = _mm_set1_epi8('\r');
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#endif
    const unsigned char *stop = js_string_stop[quote == '"'];
    while (i < n && !stop[s[i]]) i++;
    return i;
}

/* The end of a string literal from its quote at i, its value not read (none of it can be
 * URL-like: the first character of a URL-like value is one of "/.hHfFwW", and an escape
 * first takes the reading path). */
static size_t js_skip_string(const unsigned char *s, size_t i, size_t n) {
    unsigned char quote = s[i++];
    while (i < n) {
        i = js_string_run(s, i, n, quote);
        if (i >= n) return i;
        unsigned char c = s[i];
        if (c == quote) return i + 1;
        if (c != '\\') return i;  /* LF or CR: not a string literal */
        if (i + 1 >= n) return i + 1;
        /* an escape never holds the quote but "\\" + quote itself, nor ends the line but
         * a line continuation (CR LF counts as one) */
        i += (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n') ? 3 : 2;
    }
    return i;
}

/* A string literal from its quote at i; keeps a URL-like value. */
static size_t js_string(js_t *t, size_t i) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    if (i + 1 >= n || !js_url_start[s[i + 1]]) return js_skip_string(s, i, n);
    unsigned char quote = s[i++];
    int invalid = 0;
    t->v.b.len = 0;
    t->v.high = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == quote) {
            if (!invalid && js_keep(t) < 0) return (size_t)-1;
            return i + 1;
        }
        if (c == '\n' || c == '\r') return i;
        if (c == '\\') {
            if ((i = js_escape(s, i + 1, n, 0, &t->v, &invalid)) == (size_t)-1) return (size_t)-1;
            continue;
        }
        size_t run = js_string_run(s, i + 1, n, quote);
        if (jsval_raw(&t->v, s + i, run - i) < 0) return (size_t)-1;
        i = run;
    }
    return i;
}

static int js_push(js_t *t) {
    if (t->depth == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        size_t *grown = PyMem_Realloc(t->templates, cap * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->templates = grown;
        t->cap = cap;
    }
    t->templates[t->depth++] = 0;
    return 0;
}

/* A template's characters from i (after "`" or a substitution's "}"). */
static size_t js_template(js_t *t, size_t i) {
    const unsigned char *s = t->s;
    size_t n = t->n;
    /* (a template's value is kept only when it has no substitution and may be URL-like) */
    int whole = s[i - 1] == '`' && i < n && js_url_start[s[i]], invalid = 0;
    t->v.b.len = 0;
    t->v.high = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '`') {
            if (whole && !invalid && js_keep(t) < 0) return (size_t)-1;
            return i + 1;
        }
        if (c == '$' && i + 1 < n && s[i + 1] == '{') {
            if (js_push(t) < 0) return (size_t)-1;
            return i + 2;
        }
        if (c == '\\') {
            if ((i = js_escape(s, i + 1, n, 1, &t->v, &invalid)) == (size_t)-1) return (size_t)-1;
            continue;
        }
        if (c == '\r') {  /* a CR LF or CR of the source is a LF */
            if (whole && jsval_raw(&t->v, (const unsigned char *)"\n", 1) < 0) return (size_t)-1;
            i += (i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        size_t run = i + 1;
        while (run < n && !js_template_stop[s[run]]) run++;
        if (whole && jsval_raw(&t->v, s + i, run - i) < 0) return (size_t)-1;
        i = run;
    }
    return i;
}

static size_t js_regex(const unsigned char *s, size_t i, size_t n) {
    i++;
    int in_class = 0;
    while (i < n) {
        if (js_line_end(s, i, n)) return i;
        unsigned char c = s[i];
        if (c == '\\') {
            if (i + 1 >= n || js_line_end(s, i + 1, n)) return i + 1;
            i += 2;
            continue;
        }
        if (c == '[') in_class = 1;
        else if (c == ']') in_class = 0;
        else if (c == '/' && !in_class) {
            size_t end = js_word(s, i + 1, n);
            return end;
        }
        i++;
    }
    return i;
}

/* Byte classes of the reading loop. */
enum { JC_OTHER, JC_WORD, JC_SPACE, JC_NEWLINE, JC_HIGH, JC_QUOTE, JC_BACKTICK, JC_SLASH, JC_LT,
       JC_MINUS, JC_LBRACE, JC_RBRACE, JC_CLOSE, JC_BACKSLASH };
static unsigned char js_class[256];

static void js_classes(void) {
    for (int b = 0; b < 256; b++) {
        js_class[b] = b >= 0x80 ? JC_HIGH : js_word_table[b] ? JC_WORD : JC_OTHER;
    }
    js_class[' '] = js_class['\t'] = js_class[0x0B] = js_class[0x0C] = JC_SPACE;
    js_class['\n'] = js_class['\r'] = JC_NEWLINE;
    js_class['\''] = js_class['"'] = JC_QUOTE;
    js_class['`'] = JC_BACKTICK;
    js_class['/'] = JC_SLASH;
    js_class['<'] = JC_LT;
    js_class['-'] = JC_MINUS;
    js_class['{'] = JC_LBRACE;
    js_class['}'] = JC_RBRACE;
    js_class[')'] = js_class[']'] = JC_CLOSE;
    js_class['\\'] = JC_BACKSLASH;
}

/* Skips a single-line comment from i: the position of its line terminator (or the end). */
static size_t js_line_comment(const unsigned char *s, size_t i, size_t n) {
    for (;;) {
        while (i < n && !js_line_stop[s[i]]) i++;
        if (i >= n || js_line_end(s, i, n)) return i;
        i++;  /* an 0xE2 that does not start U+2028 or U+2029 */
    }
}

/* ---- skipping what cannot matter ----
 * Outside a template's substitutions, the reading loop's tokens between the bytes below
 * ("specials": quotes, "`", "/", "\\", non-ASCII bytes, and "<" or "-" when the script holds
 * "<!--" or "-->") are words, white space, line terminators and one-byte punctuators, none of
 * which is read: all that the loop keeps of them is its two flags (whether a "/" would start
 * a regular expression, whether the line has had a token), and both follow from the run's
 * last token alone. So the loop jumps from special to special, sets the flags from the
 * run's end, and reads the special's token itself. */

/* The first position from i holding a special (n when none); lt and minus are "<" and "-"
 * when those are specials, else a quote again. */
static inline size_t js_next_special(const unsigned char *s, size_t i, size_t n, unsigned char lt,
                                     unsigned char minus, const unsigned char *special) {
#ifdef __SSE2__
    const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\''), bt = _mm_set1_epi8('`'),
                  sl = _mm_set1_epi8('/'), bs = _mm_set1_epi8('\\'), l = _mm_set1_epi8((char)lt),
                  m = _mm_set1_epi8((char)minus);
    while (i + 16 <= n) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        const __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, dq), _mm_cmpeq_epi8(v, sq)),
                         _mm_or_si128(_mm_cmpeq_epi8(v, bt), _mm_cmpeq_epi8(v, sl))),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmpeq_epi8(v, l)), _mm_cmpeq_epi8(v, m)));
        /* (the sign bits: the non-ASCII bytes) */
        const unsigned mask = (unsigned)(_mm_movemask_epi8(hit) | _mm_movemask_epi8(v));
        if (mask) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#endif
    while (i < n && !special[s[i]]) i++;
    return i;
}

/* The flags after the tokens of s[from..to) (ASCII words, white space, line terminators,
 * punctuators), from the flags before them: a line terminator after the last token sets
 * line_start; the last token decides regex_ok as the reading loop does. */
static inline void js_run_flags(const unsigned char *s, size_t from, size_t to, int *regex_ok, int *line_start) {
    size_t q = to;
    int newline = 0;
    while (q > from) {
        const unsigned char c = s[q - 1];
        if (c == '\n' || c == '\r') newline = 1;
        else if (c != ' ' && c != '\t' && c != 0x0B && c != 0x0C) break;
        q--;
    }
    if (q == from) {  /* white space only */
        if (newline) *line_start = 1;
        return;
    }
    *line_start = newline;
    const unsigned char c = s[q - 1];
    if (js_word_table[c]) {  /* a word: the run's words are whole (from starts a token) */
        size_t w = q - 1;
        while (w > from && js_word_table[s[w - 1]]) w--;
        *regex_ok = js_before_expression(s + w, q - w);
    } else {
        *regex_ok = c != ')' && c != ']';
    }
}

/* Whether s[0..n) holds "<!--" (*open) and "-->" (*close): both hold "--", looked for 16
 * positions at a time. */
static void js_html_comments(const unsigned char *s, size_t n, int *open, int *close) {
    *open = *close = 0;
    size_t i = 0;
#ifdef __SSE2__
    const __m128i minus = _mm_set1_epi8('-');
    for (; i + 17 <= n; i += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 1));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, minus), _mm_cmpeq_epi8(b, minus)));
        for (; mask; mask &= mask - 1) {
            const size_t p = i + (size_t)__builtin_ctz(mask);  /* s[p] and s[p + 1] are "-" */
            if (p >= 2 && s[p - 2] == '<' && s[p - 1] == '!') *open = 1;
            if (p + 2 < n && s[p + 2] == '>') *close = 1;
        }
        if (*open && *close) return;
    }
#endif
    for (size_t p = i; p + 1 < n; p++) {
        if (s[p] != '-' || s[p + 1] != '-') continue;
        if (p >= 2 && s[p - 2] == '<' && s[p - 1] == '!') *open = 1;
        if (p + 2 < n && s[p + 2] == '>') *close = 1;
    }
}

int script_read(const unsigned char *s, size_t n, url_sink *out) {
    if (!js_tables_ready) {
        js_tables();
        js_classes();
    }
    js_t t = {s, n, out, {{0}, 0}, NULL, 0, 0};
    size_t i = 0, end, sp, until = 0;
    int regex_ok = 1, line_start = 1;
    /* "<" and "-" are specials only where an HTML-like comment can start */
    unsigned char special[256] = {0};
    int open, close;
    js_html_comments(s, n, &open, &close);
    const unsigned char lt = open ? '<' : '"', minus = close ? '-' : '"';
    for (const char *c = "'\"`/\\"; *c; c++) special[(unsigned char)*c] = 1;
    special[lt] = special[minus] = 1;
    memset(special + 0x80, 1, 0x80);
    while (i < n) {
        if (t.depth == 0 && i >= until) {
            const size_t p = js_next_special(s, i, n, lt, minus, special);
            if (p < n && s[p] >= 0x80) {
                /* a non-ASCII byte may be inside a word or white space: the loop reads
                 * from i on, past it */
                until = p + 1;
            } else {
                if (p > i) js_run_flags(s, i, p, &regex_ok, &line_start);
                if (p >= n) break;
                i = p;
            }
        }
        unsigned char c = s[i];
        switch (js_class[c]) {
        case JC_WORD:  /* identifiers, keywords, numbers */
            end = i + 1;
            while (end < n && js_word_table[s[end]]) end++;
            regex_ok = js_before_expression(s + i, end - i);
            line_start = 0;
            i = end;
            continue;
        case JC_SPACE:
            i++;
            continue;
        case JC_NEWLINE:
            line_start = 1;
            i++;
            continue;
        case JC_HIGH:
            if ((sp = js_space(s, i, n)) != 0) {  /* NBSP, U+2028, ... */
                if (sp == 3 && js_line_end(s, i, n)) line_start = 1;
                i += sp;
                continue;
            }
            end = js_word(s, i, n);  /* (a word: every other non-ASCII code point) */
            regex_ok = js_before_expression(s + i, end - i);
            line_start = 0;
            i = end;
            continue;
        case JC_SLASH:
            if (i + 1 < n && s[i + 1] == '/') {
                i = js_line_comment(s, i, n);
                continue;
            }
            if (i + 1 < n && s[i + 1] == '*') {
                size_t k = i + 2;
                int crossed = 0;
                while (k + 1 < n && !(s[k] == '*' && s[k + 1] == '/')) {
                    if (js_line_stop[s[k]] && js_line_end(s, k, n)) crossed = 1;
                    k++;
                }
                if (k + 1 >= n) goto done;
                if (crossed) line_start = 1;
                i = k + 2;
                continue;
            }
            line_start = 0;
            if (regex_ok) {
                i = js_regex(s, i, n);
                regex_ok = 0;
            } else {
                i++;
                regex_ok = 1;
            }
            continue;
        case JC_LT:
            if (i + 3 < n && s[i + 1] == '!' && s[i + 2] == '-' && s[i + 3] == '-') {
                i = js_line_comment(s, i, n);
                continue;
            }
            break;
        case JC_MINUS:
            if (line_start && i + 2 < n && s[i + 1] == '-' && s[i + 2] == '>') {
                i = js_line_comment(s, i, n);
                continue;
            }
            break;
        case JC_QUOTE:
            line_start = 0;
            if ((i = js_string(&t, i)) == (size_t)-1) goto fail;
            regex_ok = 0;
            continue;
        case JC_BACKTICK:
            line_start = 0;
            if ((i = js_template(&t, i + 1)) == (size_t)-1) goto fail;
            regex_ok = 0;
            continue;
        case JC_RBRACE:
            line_start = 0;
            if (t.depth && t.templates[t.depth - 1] == 0) {
                t.depth--;
                if ((i = js_template(&t, i + 1)) == (size_t)-1) goto fail;
                regex_ok = 0;
                continue;
            }
            if (t.depth) t.templates[t.depth - 1]--;
            regex_ok = 1;
            i++;
            continue;
        case JC_LBRACE:
            if (t.depth) t.templates[t.depth - 1]++;
            break;
        case JC_CLOSE:
            line_start = 0;
            regex_ok = 0;
            i++;
            continue;
        case JC_BACKSLASH:
            end = js_word(s, i, n);  /* an identifier starting with a \\u escape */
            if (end > i) {
                regex_ok = js_before_expression(s + i, end - i);
                line_start = 0;
                i = end;
                continue;
            }
            break;
        default:
            break;
        }
        line_start = 0;  /* any other punctuator */
        regex_ok = 1;
        i++;
    }
done:
    PyMem_Free(t.v.b.data);
    PyMem_Free(t.templates);
    return 0;
fail:
    PyMem_Free(t.v.b.data);
    PyMem_Free(t.templates);
    return -1;
}

PyObject *script_urls(const unsigned char *s, size_t n) { return read_into_list(s, n, script_read); }
