/* ASCII helpers shared by _document.c and _urls.c: the Infra Standard's ASCII whitespace and
 * ASCII case-insensitive matching, over UTF-8 bytes (a non-ASCII byte never matches). */
#ifndef REDECODE_ASCII_H
#define REDECODE_ASCII_H

#include <stddef.h>
#include <string.h>

static inline unsigned char ascii_lower(unsigned char c) {
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* ASCII whitespace (Infra): TAB, LF, FF, CR, SPACE */
static inline int is_ascii_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Whether s[0..n) is `word` (ASCII lowercase) in any ASCII case. */
static inline int ascii_ci_equals(const unsigned char *s, size_t n, const char *word) {
    if (n != strlen(word)) return 0;
    for (size_t i = 0; i < n; i++) {
        if (ascii_lower(s[i]) != (unsigned char)word[i]) return 0;
    }
    return 1;
}

/* The next keyword of a space-separated value (split on ASCII whitespace, as rel is): its
 * start, *len set; NULL when none is left. *at is where the search goes on. */
static inline const unsigned char *next_keyword(const unsigned char *s, size_t n, size_t *at, size_t *len) {
    size_t i = *at;
    while (i < n && is_ascii_space(s[i])) i++;
    size_t start = i;
    while (i < n && !is_ascii_space(s[i])) i++;
    *at = i;
    *len = i - start;
    return i > start ? s + start : NULL;
}

#endif
