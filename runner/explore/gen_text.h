/* gen_text.h — near-misses of one string as pure text transforms
 * (gen_text.c): the generator's `text-*` operators. */
#ifndef GT_GEN_TEXT_H
#define GT_GEN_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Code points of one string mutated one by one (evenly spaced beyond it). */
#define GT_GEN_TEXT_POSITIONS 12
/* Instance locations per base that get the per-character operators and the
 * scalar misspellings (evenly spaced): a big sample stays linear. */
#define GT_GEN_TEXT_SITES 16

typedef struct gen_text_variant {
    const char *op; /* "text-class", "text-drop", ... (static) */
    char *text;     /* UTF-8, owned */
} gen_text_variant;

typedef struct gen_text_list {
    gen_text_variant *items;
    size_t count, cap;
} gen_text_list;

/* Append to `out` the near-misses of `text` (UTF-8): per code point (at most
 * `max_positions`, evenly spaced) another character class, dropped, doubled,
 * case toggled, fullwidth, a Cyrillic look-alike, U+200B before it, U+0301
 * after it; then U+200B at the end, whitespace around it (space, tab, NBSP,
 * U+FEFF) and the NFD form of its precomposed Latin letters. Duplicates and
 * the text itself are not added twice. Free with gen_text_list_free. */
void gen_text_misses(const char *text, size_t max_positions, gen_text_list *out);
void gen_text_list_free(gen_text_list *list);

/* The Cyrillic look-alike of an ASCII letter (UTF-8), or NULL. */
const char *gen_text_lookalike(char latin);

/* `unit` repeated `times` times (malloc'd), or NULL. */
char *gen_text_repeat(const char *unit, size_t times);

#endif
