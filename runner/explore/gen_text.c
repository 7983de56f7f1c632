/* gen_text.c — near-misses of one string, as pure text transforms
 * (docs/explore.md, operators `text-*`): a code point changed in class,
 * dropped, doubled, case-toggled, written fullwidth or as a look-alike, a
 * zero-width or combining character added, the text decomposed (NFD),
 * whitespace around it. Each variant is UTF-8; which of them really miss
 * the schema is for the reference to say. Not for: trees or schemas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_text.h"

/* Byte length of the UTF-8 sequence starting with `lead` (1 for a stray byte). */
static size_t sequence_length(unsigned char lead)
{
    return lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

static void list_add(gen_text_list *list, const char *op, char *text)
{
    if (text == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].text, text) == 0) {
            free(text);
            return;
        }
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 32;
        gen_text_variant *grown = realloc(list->items, cap * sizeof *grown);
        if (grown == NULL) {
            free(text);
            return;
        }
        list->items = grown;
        list->cap = cap;
    }
    list->items[list->count++] = (gen_text_variant){op, text};
}

/* text[0..at) + insert + text[at+skip..] */
static char *spliced(const char *text, size_t at, size_t skip, const char *insert)
{
    size_t len = strlen(text), add = strlen(insert);
    char *out = malloc(len - skip + add + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, text, at);
    memcpy(out + at, insert, add);
    memcpy(out + at + add, text + at + skip, len - at - skip + 1);
    return out;
}

/* UTF-8 of code point `cp` into `out` (room for 5). */
static void utf8_of(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp, out[1] = 0;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), out[2] = 0;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)), out[3] = 0;
    } else {
        out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[2] = (char)(0x80 | (cp >> 6 & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F)), out[4] = 0;
    }
}

static const struct {
    char latin;
    const char *lookalike; /* Cyrillic */
} lookalikes[] = {{'a', "\xd0\xb0"}, {'e', "\xd0\xb5"}, {'o', "\xd0\xbe"}, {'p', "\xd1\x80"}, {'c', "\xd1\x81"},
                  {'x', "\xd1\x85"}, {'y', "\xd1\x83"}, {'i', "\xd1\x96"}, {'s', "\xd1\x95"}, {'A', "\xd0\x90"},
                  {'B', "\xd0\x92"}, {'E', "\xd0\x95"}, {'O', "\xd0\x9e"}, {'P', "\xd0\xa0"}, {'T', "\xd0\xa2"},
                  {'H', "\xd0\x9d"}, {'K', "\xd0\x9a"}, {'M', "\xd0\x9c"}, {'C', "\xd0\xa1"}, {'X', "\xd0\xa5"}};

const char *gen_text_lookalike(char latin)
{
    for (size_t h = 0; h < sizeof lookalikes / sizeof lookalikes[0]; h++)
        if (lookalikes[h].latin == latin)
            return lookalikes[h].lookalike;
    return NULL;
}

/* Latin-1 letters with one combining mark: U+00C0.. as base letter + mark. */
static const struct {
    unsigned precomposed;
    char base;
    unsigned mark;
} decompositions[] = {{0xC0, 'A', 0x300}, {0xC1, 'A', 0x301}, {0xC2, 'A', 0x302}, {0xC4, 'A', 0x308},
                      {0xC7, 'C', 0x327}, {0xC8, 'E', 0x300}, {0xC9, 'E', 0x301}, {0xCA, 'E', 0x302},
                      {0xD1, 'N', 0x303}, {0xD6, 'O', 0x308}, {0xDC, 'U', 0x308}, {0xE0, 'a', 0x300},
                      {0xE1, 'a', 0x301}, {0xE2, 'a', 0x302}, {0xE4, 'a', 0x308}, {0xE7, 'c', 0x327},
                      {0xE8, 'e', 0x300}, {0xE9, 'e', 0x301}, {0xEA, 'e', 0x302}, {0xEB, 'e', 0x308},
                      {0xED, 'i', 0x301}, {0xF1, 'n', 0x303}, {0xF3, 'o', 0x301}, {0xF6, 'o', 0x308},
                      {0xFA, 'u', 0x301}, {0xFC, 'u', 0x308}};

/* The text with every precomposed letter of the table decomposed, or NULL
 * when it has none. */
static char *decomposed(const char *text)
{
    char *out = strdup(text);
    bool changed = false;
    for (size_t at = 0; out != NULL && out[at] != '\0';) {
        unsigned char lead = (unsigned char)out[at];
        size_t step = sequence_length(lead);
        if (step == 2 && (lead == 0xC3) && out[at + 1] != '\0') {
            unsigned cp = 0xC0 + ((unsigned char)out[at + 1] & 0x3F);
            for (size_t d = 0; d < sizeof decompositions / sizeof decompositions[0]; d++)
                if (decompositions[d].precomposed == cp) {
                    char insert[8];
                    insert[0] = decompositions[d].base;
                    utf8_of(decompositions[d].mark, insert + 1);
                    char *next = spliced(out, at, 2, insert);
                    free(out);
                    out = next;
                    step = strlen(insert);
                    changed = true;
                    break;
                }
        }
        at += step;
    }
    if (!changed) {
        free(out);
        return NULL;
    }
    return out;
}

/* A character of another class in place of `c`: a digit for a letter, a
 * letter for a digit, a letter for anything else. */
static char other_class(char c)
{
    if (c >= '0' && c <= '9')
        return 'x';
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return '7';
    return 'a';
}

void gen_text_misses(const char *text, size_t max_positions, gen_text_list *out)
{
    size_t points = 0;
    for (const char *p = text; *p; p += sequence_length((unsigned char)*p))
        points++;
    size_t index = 0, taken = 0;
    for (size_t at = 0; text[at] != '\0'; index++) {
        size_t step = sequence_length((unsigned char)text[at]);
        /* at most max_positions code points, evenly spaced, the first always */
        bool chosen = points <= max_positions || index * max_positions / points == taken;
        if (!chosen) {
            at += step;
            continue;
        }
        taken++;
        char c = text[at], one[8], buf[8];
        if (step == 1) {
            one[0] = other_class(c), one[1] = 0;
            list_add(out, "text-class", spliced(text, at, 1, one));
        }
        list_add(out, "text-drop", spliced(text, at, step, ""));
        memcpy(buf, text + at, step), buf[step] = 0;
        list_add(out, "text-repeat", spliced(text, at, 0, buf));
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            one[0] = (char)(c ^ 0x20), one[1] = 0;
            list_add(out, "text-case", spliced(text, at, 1, one));
        }
        if (c >= '!' && c <= '~') { /* U+FF01..U+FF5E: the fullwidth forms of ASCII */
            utf8_of(0xFF01u + (unsigned)(c - '!'), one);
            list_add(out, "text-fullwidth", spliced(text, at, 1, one));
        }
        const char *lookalike = step == 1 ? gen_text_lookalike(c) : NULL;
        if (lookalike != NULL)
            list_add(out, "text-homoglyph", spliced(text, at, 1, lookalike));
        list_add(out, "text-zero-width", spliced(text, at, 0, "\xe2\x80\x8b")); /* U+200B */
        list_add(out, "text-combining", spliced(text, at + step, 0, "\xcc\x81")); /* U+0301 after it */
        at += step;
    }
    size_t len = strlen(text);
    list_add(out, "text-zero-width", spliced(text, len, 0, "\xe2\x80\x8b"));
    list_add(out, "text-whitespace", spliced(text, len, 0, " "));
    list_add(out, "text-whitespace", spliced(text, 0, 0, "\t"));
    list_add(out, "text-whitespace", spliced(text, len, 0, "\xc2\xa0")); /* NBSP */
    list_add(out, "text-whitespace", spliced(text, 0, 0, "\xef\xbb\xbf")); /* U+FEFF inside the string */
    list_add(out, "text-nfd", decomposed(text));
}

char *gen_text_repeat(const char *unit, size_t times)
{
    size_t len = strlen(unit);
    char *out = malloc(len * times + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < times; i++)
        memcpy(out + i * len, unit, len);
    out[len * times] = '\0';
    return out;
}

void gen_text_list_free(gen_text_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].text);
    free(list->items);
    *list = (gen_text_list){0};
}
