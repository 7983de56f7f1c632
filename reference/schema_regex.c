/* schema_regex.c — ECMA-262 regular expressions (`pattern`,
 * `patternProperties`, format "regex") on top of PCRE2.
 *
 * JSON Schema patterns are ECMA-262 with the `u` flag. PCRE2 differs in a few
 * places, so the pattern is translated first: \d \w \s and their negations
 * get ECMA's exact sets (ASCII digits and word characters, Unicode white
 * space), `.` excludes the four ECMA line terminators, \v is U+000B, `$` only
 * matches at the very end, `[]` and `[^]` keep their ECMA meaning, and escapes
 * or group forms that ECMA rejects in `u` mode (\a, \e, \z, (?i), possessive
 * quantifiers...) are errors. docs/structure-gate.md lists what remains
 * different. Not for: flags; JSON Schema patterns have none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_impl.h"

typedef struct outbuf {
    char *data;
    size_t len, cap;
    bool oom;
} outbuf;

static void emit(outbuf *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        while (cap < o->len + n + 1)
            cap *= 2;
        char *grown = realloc(o->data, cap);
        if (grown == NULL) {
            o->oom = true;
            return;
        }
        o->data = grown, o->cap = cap;
    }
    memcpy(o->data + o->len, s, n);
    o->len += n;
    o->data[o->len] = '\0';
}

static void emits(outbuf *o, const char *s)
{
    emit(o, s, strlen(s));
}

static void emit_cp(outbuf *o, unsigned long cp)
{
    char buf[32];
    snprintf(buf, sizeof buf, "\\x{%lx}", cp);
    emits(o, buf);
}

/* ECMA-262 WhiteSpace and LineTerminator, as class contents, and its complement. */
#define ECMA_SPACE "\\x{9}-\\x{d}\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
#define ECMA_NOT_SPACE                                                                                            \
    "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-" \
    "\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}"
#define ECMA_DIGIT "0-9"
#define ECMA_NOT_DIGIT "\\x{0}-\\x{2f}\\x{3a}-\\x{10ffff}"
#define ECMA_WORD "A-Za-z0-9_"
#define ECMA_NOT_WORD "\\x{0}-\\x{2f}\\x{3a}-\\x{40}\\x{5b}-\\x{5e}\\x{60}\\x{7b}-\\x{10ffff}"

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Read exactly `n` hex digits at p[*i]; -1 when absent. */
static long read_hex(const char *p, size_t len, size_t *i, int n)
{
    long v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || hexval(p[*i]) < 0)
            return -1;
        v = v * 16 + hexval(p[(*i)++]);
    }
    return v;
}

/* \u escapes: \uHHHH (with surrogate pairs joined) and \u{H...}. Returns the
 * code point or -1. `i` points after the 'u'. */
static long read_unicode_escape(const char *p, size_t len, size_t *i)
{
    if (*i < len && p[*i] == '{') {
        (*i)++;
        long v = 0;
        size_t start = *i;
        while (*i < len && hexval(p[*i]) >= 0 && v <= 0x10ffff)
            v = v * 16 + hexval(p[(*i)++]);
        if (*i == start || *i >= len || p[*i] != '}' || v > 0x10ffff)
            return -1;
        (*i)++;
        return v;
    }
    long v = read_hex(p, len, i, 4);
    if (v >= 0xd800 && v <= 0xdbff && *i + 6 <= len && p[*i] == '\\' && p[*i + 1] == 'u') {
        size_t j = *i + 2;
        long lo = read_hex(p, len, &j, 4);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
            *i = j;
            return 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
        }
    }
    return v;
}

/* General_Category long names (ECMA accepts them; PCRE2 10.42 only the short ones). */
static const char *const category_names[][2] = {
    {"Letter", "L"}, {"Cased_Letter", "L&"}, {"LC", "L&"}, {"Uppercase_Letter", "Lu"}, {"Lowercase_Letter", "Ll"},
    {"Titlecase_Letter", "Lt"}, {"Modifier_Letter", "Lm"}, {"Other_Letter", "Lo"}, {"Mark", "M"},
    {"Combining_Mark", "M"}, {"Nonspacing_Mark", "Mn"}, {"Spacing_Mark", "Mc"}, {"Enclosing_Mark", "Me"},
    {"Number", "N"}, {"Decimal_Number", "Nd"}, {"digit", "Nd"}, {"Letter_Number", "Nl"}, {"Other_Number", "No"},
    {"Punctuation", "P"}, {"punct", "P"}, {"Connector_Punctuation", "Pc"}, {"Dash_Punctuation", "Pd"},
    {"Open_Punctuation", "Ps"}, {"Close_Punctuation", "Pe"}, {"Initial_Punctuation", "Pi"},
    {"Final_Punctuation", "Pf"}, {"Other_Punctuation", "Po"}, {"Symbol", "S"}, {"Math_Symbol", "Sm"},
    {"Currency_Symbol", "Sc"}, {"Modifier_Symbol", "Sk"}, {"Other_Symbol", "So"}, {"Separator", "Z"},
    {"Space_Separator", "Zs"}, {"Line_Separator", "Zl"}, {"Paragraph_Separator", "Zp"}, {"Other", "C"},
    {"Control", "Cc"}, {"cntrl", "Cc"}, {"Format", "Cf"}, {"Surrogate", "Cs"}, {"Private_Use", "Co"},
    {"Unassigned", "Cn"},
};

static const char *short_category(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof category_names / sizeof category_names[0]; i++)
        if (strlen(category_names[i][0]) == n && memcmp(category_names[i][0], name, n) == 0)
            return category_names[i][1];
    return NULL;
}

/* Property escapes: ECMA spells \p{Script=Greek} or \p{gc=Lu}; PCRE2 wants
 * \p{sc:Greek} / \p{Lu}. */
static int translate_property(outbuf *o, const char *p, size_t len, size_t *i, char letter)
{
    if (*i >= len || p[*i] != '{')
        return -1;
    size_t end = *i + 1;
    while (end < len && p[end] != '}')
        end++;
    if (end >= len)
        return -1;
    const char *body = p + *i + 1;
    size_t n = end - *i - 1;
    const char *eq = memchr(body, '=', n);
    char buf[128];
    if (n == 0 || n >= 96)
        return -1;
    if (eq != NULL) {
        size_t kn = (size_t)(eq - body);
        const char *value = eq + 1;
        size_t vn = n - kn - 1;
        const char *prefix = NULL;
        if ((kn == 2 && !memcmp(body, "gc", 2)) || (kn == 16 && !memcmp(body, "General_Category", 16)))
            prefix = "";
        else if ((kn == 2 && !memcmp(body, "sc", 2)) || (kn == 6 && !memcmp(body, "Script", 6)))
            prefix = "sc:";
        else if ((kn == 3 && !memcmp(body, "scx", 3)) || (kn == 17 && !memcmp(body, "Script_Extensions", 17)))
            prefix = "scx:";
        if (prefix == NULL || vn == 0)
            return -1;
        const char *cat = prefix[0] == '\0' ? short_category(value, vn) : NULL;
        if (cat != NULL)
            snprintf(buf, sizeof buf, "\\%c{%s}", letter, cat);
        else
            snprintf(buf, sizeof buf, "\\%c{%s%.*s}", letter, prefix, (int)vn, value);
    } else {
        const char *cat = short_category(body, n);
        if (cat != NULL)
            snprintf(buf, sizeof buf, "\\%c{%s}", letter, cat);
        else
            snprintf(buf, sizeof buf, "\\%c{%.*s}", letter, (int)n, body);
    }
    emits(o, buf);
    *i = end + 1;
    return 0;
}

static bool is_syntax_char(char ch)
{
    return ch != '\0' && strchr("^$\\.*+?()[]{}|/", ch) != NULL;
}

/* One escape sequence (after the backslash). Returns 0 or -1 (invalid in ECMA u mode). */
static int translate_escape(outbuf *o, const char *p, size_t len, size_t *i, bool in_class)
{
    if (*i >= len)
        return -1;
    char ch = p[(*i)++];
    switch (ch) {
    case 'd': emits(o, in_class ? ECMA_DIGIT : "[" ECMA_DIGIT "]"); return 0;
    case 'D': emits(o, in_class ? ECMA_NOT_DIGIT : "[^" ECMA_DIGIT "]"); return 0;
    case 'w': emits(o, in_class ? ECMA_WORD : "[" ECMA_WORD "]"); return 0;
    case 'W': emits(o, in_class ? ECMA_NOT_WORD : "[^" ECMA_WORD "]"); return 0;
    case 's': emits(o, in_class ? ECMA_SPACE : "[" ECMA_SPACE "]"); return 0;
    case 'S': emits(o, in_class ? ECMA_NOT_SPACE : "[^" ECMA_SPACE "]"); return 0;
    case 'b': emits(o, in_class ? "\\x{8}" : "\\b"); return 0;
    case 'B':
        if (in_class)
            return -1;
        emits(o, "\\B");
        return 0;
    case 'f': emits(o, "\\f"); return 0;
    case 'n': emits(o, "\\n"); return 0;
    case 'r': emits(o, "\\r"); return 0;
    case 't': emits(o, "\\t"); return 0;
    case 'v': emits(o, "\\x{b}"); return 0;
    case '0':
        if (*i < len && p[*i] >= '0' && p[*i] <= '9')
            return -1;
        emits(o, "\\x{0}");
        return 0;
    case 'c':
        if (*i < len && ((p[*i] >= 'a' && p[*i] <= 'z') || (p[*i] >= 'A' && p[*i] <= 'Z'))) {
            emit_cp(o, (unsigned long)(p[(*i)++] % 32));
            return 0;
        }
        return -1;
    case 'x': {
        long v = read_hex(p, len, i, 2);
        if (v < 0)
            return -1;
        emit_cp(o, (unsigned long)v);
        return 0;
    }
    case 'u': {
        long v = read_unicode_escape(p, len, i);
        if (v < 0)
            return -1;
        emit_cp(o, (unsigned long)v);
        return 0;
    }
    case 'p':
    case 'P': return translate_property(o, p, len, i, ch);
    case 'k':
        if (in_class || *i >= len || p[*i] != '<')
            return -1;
        emits(o, "\\k");
        return 0;
    case '-':
        if (!in_class)
            return -1;
        emits(o, "\\-");
        return 0;
    default:
        if (ch >= '1' && ch <= '9' && !in_class) {
            emit(o, p + *i - 2, 2);
            while (*i < len && p[*i] >= '0' && p[*i] <= '9')
                emit(o, p + (*i)++, 1);
            return 0;
        }
        if (!is_syntax_char(ch))
            return -1;
        emit(o, p + *i - 2, 2);
        return 0;
    }
}

/* Group openers ECMA knows: (, (?:, (?=, (?!, (?<=, (?<!, (?<name>. */
static int translate_group(outbuf *o, const char *p, size_t len, size_t *i)
{
    if (*i >= len || p[*i] != '?') {
        emits(o, "(");
        return 0;
    }
    const char *rest = p + *i;
    size_t left = len - *i;
    static const char *const forms[] = {"?:", "?=", "?!", "?<=", "?<!"};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        size_t n = strlen(forms[k]);
        if (left >= n && memcmp(rest, forms[k], n) == 0) {
            emits(o, "(");
            emit(o, rest, n);
            *i += n;
            return 0;
        }
    }
    if (left >= 3 && rest[1] == '<') {
        emits(o, "(?<");
        *i += 2;
        return 0;
    }
    return -1;
}

/* Is p[*i] the start of a quantifier (for the possessive check)? */
static bool at_quantifier(const char *p, size_t len, size_t i)
{
    return i < len && (p[i] == '*' || p[i] == '+' || p[i] == '?' || p[i] == '{');
}

static int translate(outbuf *o, const char *p, size_t len)
{
    bool in_class = false;
    size_t i = 0;
    while (i < len) {
        char ch = p[i++];
        if (ch == '\\') {
            if (translate_escape(o, p, len, &i, in_class) != 0)
                return -1;
            continue;
        }
        if (in_class) {
            if (ch == ']')
                in_class = false;
            emit(o, ch == '[' ? "\\[" : &p[i - 1], ch == '[' ? 2 : 1);
            continue;
        }
        switch (ch) {
        case '[':
            in_class = true;
            emits(o, "[");
            if (i < len && p[i] == '^')
                emits(o, "^"), i++;
            break;
        case '.': emits(o, "[^\\n\\r\\x{2028}\\x{2029}]"); break;
        case '(':
            if (translate_group(o, p, len, &i) != 0)
                return -1;
            break;
        case '*':
        case '+':
        case '?':
        case '}':
            emit(o, &p[i - 1], 1);
            if (ch != '}' && i < len && p[i] == '?')
                emits(o, "?"), i++;
            if (ch != '}' && at_quantifier(p, len, i))
                return -1;
            break;
        case '{': {
            /* A quantifier {n}, {n,}, {n,m}; a lone brace is an error in u mode. */
            size_t j = i;
            while (j < len && p[j] >= '0' && p[j] <= '9')
                j++;
            if (j == i)
                return -1;
            if (j < len && p[j] == ',') {
                j++;
                while (j < len && p[j] >= '0' && p[j] <= '9')
                    j++;
            }
            if (j >= len || p[j] != '}')
                return -1;
            emit(o, &p[i - 1], j - i + 2);
            i = j + 1;
            if (i < len && p[i] == '?')
                emits(o, "?"), i++;
            if (at_quantifier(p, len, i))
                return -1;
            break;
        }
        default: emit(o, &p[i - 1], 1);
        }
    }
    return in_class ? -1 : 0;
}

/* ---- simple patterns, decided without PCRE2 ----
 *
 * Most `pattern`s in model-output schemas are anchored shapes such as
 * ^[A-Z]{3}-[0-9]{4}$ or ^[^@\s]+@[^@\s]+$. For those a greedy left-to-right
 * scan gives exactly ECMA-262's verdict, when three things hold:
 *   - the pattern is ^ then a sequence of items, an item being one character
 *     set (a literal, `.`, a class, \d \w \s and their negations) with a count
 *     (? * + {n} {n,} {n,m}), or a group of such items, itself plain or `?`;
 *     no alternation, backreference, lookaround or lazy count;
 *   - no choice is left to backtracking: an item with a variable count shares
 *     no character with whatever may come next, and neither does an optional
 *     group's first item (so the next character alone decides both);
 *   - the subject is ASCII (each byte one code point, where every set above is
 *     exact) and short (SC_SIMPLE_MAX_SUBJECT: PCRE2 could never hit one of its
 *     limits there, so it too always decides).
 * Anything else, or any other subject, goes to PCRE2 as before. */

/* Longest subject the scan decides. */
#define SC_SIMPLE_MAX_SUBJECT 1024u
/* Items (sets and group markers) of a simple pattern at most. */
#define SC_SIMPLE_MAX_ITEMS 32u
/* Largest count ({n,m}) a simple pattern may write. */
#define SC_SIMPLE_MAX_COUNT 100000u

typedef struct simple_item {
    uint64_t set[2];     /* ASCII bytes matched (bit c of set[c >> 6]); a group marker: its first bytes */
    uint32_t min, max;   /* repetitions (UINT32_MAX: unbounded) */
    uint32_t group_len;  /* a `(...)?` marker: member items that follow it; 0 for a set */
    bool accept;         /* no `$`, and this item and all after it may match the empty string: a match */
} simple_item;

/* States of the table-driven form at most (a state is an item and how many
 * bytes of it were taken); two more codes end the scan. */
#define SC_DFA_MAX_STATES 250u
#define SC_DFA_ACCEPT 254u
#define SC_DFA_FAIL 255u

struct sc_simple_re {
    simple_item items[SC_SIMPLE_MAX_ITEMS];
    size_t count;
    bool dollar;                 /* ends with `$` */
    uint32_t member_of[256];     /* byte -> bit k set when items[k].set holds it; 0 for bytes >= 0x80 */
    /* The same scan as an automaton (simple_automaton), or dfa == NULL when
     * it would have too many states: one table lookup per byte. */
    uint8_t *dfa;                /* next state by [state * dfa_classes + byte class] */
    unsigned dfa_classes;
    uint8_t byte_class[256];     /* bytes with the same memberships share a class */
    bool dfa_accept_end[SC_DFA_MAX_STATES]; /* the subject may end in this state */
};

typedef struct simple_parser {
    const char *p;
    size_t len, i;
    sc_simple_re *re;
} simple_parser;

static void set_add(uint64_t set[2], unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi; c++)
        set[c >> 6] |= 1ull << (c & 63);
}

static bool set_has(const uint64_t set[2], unsigned char c) { return (set[c >> 6] >> (c & 63)) & 1; }

/* ASCII part of \d \w \s (ECMA: ASCII digits and word characters; \s also
 * holds non-ASCII spaces, never met here). Upper case: the complement. */
static bool class_escape(char letter, uint64_t set[2])
{
    uint64_t own[2] = {0, 0};
    switch (letter | 0x20) {
    case 'd': set_add(own, '0', '9'); break;
    case 'w': set_add(own, '0', '9'), set_add(own, 'A', 'Z'), set_add(own, 'a', 'z'), set_add(own, '_', '_'); break;
    case 's': set_add(own, 0x09, 0x0d), set_add(own, ' ', ' '); break;
    default: return false;
    }
    bool negate = letter >= 'A' && letter <= 'Z';
    set[0] |= negate ? ~own[0] : own[0];
    set[1] |= negate ? ~own[1] : own[1];
    return true;
}

/* A character escape's byte (\t \n \v \f \r, or an escaped syntax character);
 * -1 for anything else. */
static int escaped_byte(char e, bool in_class)
{
    switch (e) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'v': return '\v';
    case 'f': return '\f';
    case 'r': return '\r';
    case '-': return in_class ? '-' : -1;
    default: return is_syntax_char(e) ? (unsigned char)e : -1;
    }
}

/* One class member at p[i]: a byte (returned) or a class escape (-2, added to
 * `set`); -1 when not simple. */
static int class_atom(simple_parser *sp, uint64_t set[2])
{
    if (sp->i >= sp->len)
        return -1;
    unsigned char c = (unsigned char)sp->p[sp->i++];
    if (c != '\\')
        return c >= 0x20 && c < 0x7f ? c : -1;
    if (sp->i >= sp->len)
        return -1;
    char e = sp->p[sp->i++];
    if (class_escape(e, set))
        return -2;
    return escaped_byte(e, true);
}

/* [...] after its '[': the set, or false when not simple. */
static bool simple_class(simple_parser *sp, uint64_t set[2])
{
    bool negate = sp->i < sp->len && sp->p[sp->i] == '^';
    sp->i += negate;
    if (sp->i >= sp->len || sp->p[sp->i] == ']')
        return false; /* [] and [^] */
    uint64_t own[2] = {0, 0};
    while (sp->i < sp->len && sp->p[sp->i] != ']') {
        int lo = class_atom(sp, own);
        if (lo == -1)
            return false;
        bool range = sp->i + 1 < sp->len && sp->p[sp->i] == '-' && sp->p[sp->i + 1] != ']';
        if (!range) {
            if (lo >= 0)
                set_add(own, (unsigned)lo, (unsigned)lo);
            continue;
        }
        sp->i++;
        int hi = class_atom(sp, own);
        if (lo < 0 || hi < 0 || hi < lo)
            return false;
        set_add(own, (unsigned)lo, (unsigned)hi);
    }
    if (sp->i >= sp->len)
        return false;
    sp->i++; /* ']' */
    set[0] = negate ? ~own[0] : own[0];
    set[1] = negate ? ~own[1] : own[1];
    return true;
}

/* A count at p[i] into *min and *max (1 and 1 when there is none); false when not simple. */
static bool simple_count(simple_parser *sp, uint32_t *min, uint32_t *max)
{
    *min = *max = 1;
    if (sp->i >= sp->len)
        return true;
    char q = sp->p[sp->i];
    if (q == '*' || q == '+' || q == '?') {
        *min = q == '+';
        *max = q == '?' ? 1 : UINT32_MAX;
        sp->i++;
    } else if (q == '{') {
        size_t j = sp->i + 1;
        uint32_t n[2] = {0, 0};
        int parts = 0;
        for (; parts < 2; parts++) {
            size_t digits = 0;
            while (j < sp->len && sp->p[j] >= '0' && sp->p[j] <= '9' && n[parts] <= SC_SIMPLE_MAX_COUNT)
                n[parts] = n[parts] * 10 + (uint32_t)(sp->p[j++] - '0'), digits++;
            if (n[parts] > SC_SIMPLE_MAX_COUNT || (digits == 0 && parts == 0))
                return false;
            if (parts == 1 && digits == 0)
                n[1] = UINT32_MAX;
            if (j >= sp->len || sp->p[j] != ',')
                break;
            j++;
        }
        if (parts == 2 || j >= sp->len || sp->p[j] != '}')
            return false;
        *min = n[0];
        *max = parts == 0 ? n[0] : n[1];
        if (*max < *min)
            return false;
        sp->i = j + 1;
    } else
        return true;
    /* lazy or a second count: left to PCRE2 */
    return !(sp->i < sp->len && (sp->p[sp->i] == '?' || sp->p[sp->i] == '*' || sp->p[sp->i] == '+' ||
                                 sp->p[sp->i] == '{'));
}

/* One character set with its count, appended; false when not simple. */
static bool simple_atom(simple_parser *sp)
{
    if (sp->re->count == SC_SIMPLE_MAX_ITEMS || sp->i >= sp->len)
        return false;
    simple_item *it = &sp->re->items[sp->re->count];
    memset(it, 0, sizeof *it);
    unsigned char c = (unsigned char)sp->p[sp->i++];
    if (c == '[') {
        if (!simple_class(sp, it->set))
            return false;
    } else if (c == '.') {
        set_add(it->set, 0, 0x7f);
        it->set[0] &= ~((1ull << '\n') | (1ull << '\r'));
    } else if (c == '\\') {
        if (sp->i >= sp->len)
            return false;
        char e = sp->p[sp->i++];
        int b = class_escape(e, it->set) ? -2 : escaped_byte(e, false);
        if (b == -1)
            return false;
        if (b >= 0)
            set_add(it->set, (unsigned)b, (unsigned)b);
    } else if (c >= 0x20 && c < 0x7f && !is_syntax_char((char)c))
        set_add(it->set, c, c);
    else
        return false;
    if (!simple_count(sp, &it->min, &it->max))
        return false;
    sp->re->count++;
    return true;
}

/* `(...)` or `(?:...)` after its '(', members appended after a marker when
 * the group is optional; false when not simple. */
static bool simple_group(simple_parser *sp)
{
    if (sp->i + 1 < sp->len && sp->p[sp->i] == '?') {
        if (sp->p[sp->i + 1] != ':')
            return false;
        sp->i += 2;
    }
    if (sp->re->count == SC_SIMPLE_MAX_ITEMS)
        return false;
    size_t marker = sp->re->count++;
    bool required = false;
    while (sp->i < sp->len && sp->p[sp->i] != ')') {
        if (!simple_atom(sp))
            return false;
        required |= sp->re->items[sp->re->count - 1].min > 0;
    }
    if (sp->i >= sp->len || !required)
        return false;
    sp->i++; /* ')' */
    simple_item *m = &sp->re->items[marker];
    size_t members = sp->re->count - marker - 1;
    if (sp->i < sp->len && sp->p[sp->i] == '?') {
        sp->i++;
        memset(m, 0, sizeof *m);
        m->min = 0, m->max = 1;
        m->group_len = (uint32_t)members;
    } else { /* a plain group is just its items */
        memmove(m, m + 1, members * sizeof *m);
        sp->re->count--;
    }
    return !(sp->i < sp->len && (sp->p[sp->i] == '?' || sp->p[sp->i] == '*' || sp->p[sp->i] == '+' ||
                                 sp->p[sp->i] == '{'));
}

/* Fill each item's accept flag and each marker's first set, and check that
 * a greedy scan never has a choice to make. */
static bool simple_finish(sc_simple_re *re)
{
    uint64_t first[SC_SIMPLE_MAX_ITEMS + 1][2]; /* bytes that can start a match of items j.. */
    bool nullable[SC_SIMPLE_MAX_ITEMS + 1];
    first[re->count][0] = first[re->count][1] = 0;
    nullable[re->count] = true;
    for (size_t j = re->count; j-- > 0;) {
        simple_item *it = &re->items[j];
        if (it->group_len > 0) {
            size_t after = j + 1 + it->group_len;
            /* the group needs one of its items, so first[j + 1] stops inside it */
            it->set[0] = first[j + 1][0], it->set[1] = first[j + 1][1];
            if ((it->set[0] & first[after][0]) || (it->set[1] & first[after][1]))
                return false;
            first[j][0] = it->set[0] | first[after][0], first[j][1] = it->set[1] | first[after][1];
            nullable[j] = nullable[after];
        } else {
            if (it->min < it->max && ((it->set[0] & first[j + 1][0]) || (it->set[1] & first[j + 1][1])))
                return false;
            bool skippable = it->min == 0;
            first[j][0] = it->set[0] | (skippable ? first[j + 1][0] : 0);
            first[j][1] = it->set[1] | (skippable ? first[j + 1][1] : 0);
            nullable[j] = skippable && nullable[j + 1];
        }
        it->accept = nullable[j] && !re->dollar;
    }
    for (unsigned c = 0; c < 128; c++)
        for (size_t j = 0; j < re->count; j++)
            re->member_of[c] |= (uint32_t)set_has(re->items[j].set, (unsigned char)c) << j;
    return true;
}

/* First state of each item (states (k, 0), (k, 1)... up to the bytes item k
 * can remember: its max, or its min when unbounded; one for a group marker),
 * then the end state. Returns the number of states. */
static size_t automaton_states(const sc_simple_re *re, size_t *first)
{
    size_t states = 0;
    for (size_t k = 0; k < re->count; k++) {
        const simple_item *it = &re->items[k];
        first[k] = states;
        size_t kept = it->group_len > 0 ? 0 : it->max == UINT32_MAX ? it->min : it->max;
        states += kept + 1;
        if (states > SC_DFA_MAX_STATES)
            return states;
    }
    first[re->count] = states;
    return states + 1;
}

/* The scan of simple_match from item k with c bytes of it taken, on byte b:
 * the state after taking b, SC_DFA_ACCEPT (a match whatever follows) or
 * SC_DFA_FAIL. */
static unsigned automaton_step(const sc_simple_re *re, const size_t *first, size_t k, uint32_t c, unsigned char b)
{
    for (;;) {
        if (k == re->count)
            return re->dollar ? SC_DFA_FAIL : SC_DFA_ACCEPT;
        const simple_item *it = &re->items[k];
        bool in_set = (re->member_of[b] >> k) & 1;
        if (c == 0 && it->accept)
            return SC_DFA_ACCEPT;
        if (it->group_len > 0) { /* enter the group on its first byte, else skip it */
            k += in_set ? 1 : 1 + it->group_len;
            continue;
        }
        if (c < it->max && in_set) {
            uint32_t taken = it->max == UINT32_MAX && c + 1 > it->min ? it->min : c + 1;
            return (unsigned)(first[k] + taken);
        }
        if (c < it->min)
            return SC_DFA_FAIL;
        k++, c = 0;
    }
}

/* May the subject end with item k holding c bytes? */
static bool automaton_end(const sc_simple_re *re, size_t k, uint32_t c)
{
    for (;; c = 0) {
        if (k == re->count)
            return true;
        const simple_item *it = &re->items[k];
        if (c == 0 && it->accept)
            return true;
        if (it->group_len > 0) {
            k += 1 + it->group_len;
            continue;
        }
        if (c < it->min)
            return false;
        k++;
    }
}

/* Build re->dfa from the items (left NULL when too big or out of memory:
 * simple_match then scans). */
static void simple_automaton(sc_simple_re *re)
{
    size_t first[SC_SIMPLE_MAX_ITEMS + 1];
    size_t states = automaton_states(re, first);
    if (states > SC_DFA_MAX_STATES)
        return;
    uint32_t class_member[256];
    unsigned classes = 0;
    unsigned char sample[256]; /* one byte of each class */
    for (unsigned b = 0; b < 256; b++) {
        unsigned cls = 0;
        while (cls < classes && class_member[cls] != re->member_of[b])
            cls++;
        if (cls == classes)
            class_member[classes] = re->member_of[b], sample[classes++] = (unsigned char)b;
        re->byte_class[b] = (uint8_t)cls;
    }
    uint8_t *dfa = malloc(states * classes);
    if (dfa == NULL)
        return;
    for (size_t k = 0; k <= re->count; k++) {
        size_t kept = k == re->count ? 0 : first[k + 1] - first[k] - 1;
        for (uint32_t c = 0; c <= kept; c++) {
            size_t state = first[k] + c;
            re->dfa_accept_end[state] = automaton_end(re, k, c);
            for (unsigned cls = 0; cls < classes; cls++)
                dfa[state * classes + cls] = (uint8_t)automaton_step(re, first, k, c, sample[cls]);
        }
    }
    re->dfa = dfa;
    re->dfa_classes = classes;
}

/* The simple form of an ECMA-262 pattern, or NULL (not simple, or out of
 * memory: PCRE2 alone then decides). */
static sc_simple_re *simple_compile(const char *pattern, size_t len)
{
    if (len == 0 || pattern[0] != '^')
        return NULL;
    sc_simple_re *re = calloc(1, sizeof *re);
    if (re == NULL)
        return NULL;
    simple_parser sp = {pattern, len, 1, re};
    bool ok = true;
    while (ok && sp.i < len) {
        char c = pattern[sp.i];
        if (c == '$' && sp.i + 1 == len)
            re->dollar = true, sp.i++;
        else if (c == '(')
            sp.i++, ok = simple_group(&sp);
        else
            ok = simple_atom(&sp);
    }
    if (ok && simple_finish(re)) {
        simple_automaton(re);
        return re;
    }
    free(re);
    return NULL;
}

static bool all_ascii(const unsigned char *s, size_t len)
{
    uint64_t high = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, sizeof word);
        high |= word;
    }
    for (; i < len; i++)
        high |= s[i];
    return (high & 0x8080808080808080ull) == 0;
}

/* 1 match, 0 no match, as ECMA-262 decides when the subject is ASCII. A byte
 * >= 0x80 is in no set here: it can only stop a scan, so a match found is a
 * match, but a miss on a subject that has one is for PCRE2 to decide. */
static int simple_match(const sc_simple_re *re, const unsigned char *s, size_t len)
{
    if (re->dfa != NULL) {
        const uint8_t *next = re->dfa;
        unsigned state = 0, classes = re->dfa_classes;
        for (size_t i = 0; i < len; i++) {
            state = next[state * classes + re->byte_class[s[i]]];
            if (state >= SC_DFA_ACCEPT)
                return state == SC_DFA_ACCEPT;
        }
        return re->dfa_accept_end[state];
    }
    const unsigned char *p = s, *end = s + len;
    uint32_t bit = 1;
    for (size_t k = 0; k < re->count; k++, bit <<= 1) {
        const simple_item *it = &re->items[k];
        if (it->accept)
            return 1;
        if (it->group_len > 0) {
            if (p == end || !(re->member_of[*p] & bit)) { /* skipped: its first byte is not here */
                k += it->group_len;
                bit <<= it->group_len;
            }
            continue;
        }
        const unsigned char *from = p, *limit = (size_t)(end - p) < it->max ? end : p + it->max;
        while (p < limit && (re->member_of[*p] & bit))
            p++;
        if ((size_t)(p - from) < it->min)
            return 0;
    }
    return !re->dollar || p == end;
}

int sc_regex_compile(sc_regex *re, const char *pattern, size_t len, char *why, size_t why_size)
{
    memset(re, 0, sizeof *re);
    outbuf o = {0};
    emits(&o, "");
    if (translate(&o, pattern, len) != 0 || o.oom) {
        snprintf(why, why_size, "%s", o.oom ? "out of memory" : "not a valid ECMA-262 regular expression");
        free(o.data);
        return -1;
    }
    int code;
    PCRE2_SIZE offset;
    re->code = pcre2_compile((PCRE2_SPTR)o.data, o.len,
                             PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALLOW_EMPTY_CLASS | PCRE2_MATCH_UNSET_BACKREF,
                             &code, &offset, NULL);
    free(o.data);
    if (re->code == NULL) {
        PCRE2_UCHAR message[120];
        pcre2_get_error_message(code, message, sizeof message);
        snprintf(why, why_size, "%s", (const char *)message);
        return -1;
    }
    re->jit = pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0;
    re->simple = simple_compile(pattern, len);
    return 0;
}

int sc_regex_search(const sc_regex *re, const char *text, size_t len, pcre2_match_data *match_data,
                    pcre2_match_context *limits)
{
    if (re->simple != NULL && len <= SC_SIMPLE_MAX_SUBJECT) {
        int verdict = simple_match(re->simple, (const unsigned char *)text, len);
        if (verdict == 1 || all_ascii((const unsigned char *)text, len))
            return verdict;
    }
    int rc = PCRE2_ERROR_JIT_STACKLIMIT;
    if (re->jit)
        rc = pcre2_jit_match(re->code, (PCRE2_SPTR)text, len, 0, 0, match_data, limits);
    /* The JIT stack is a hard ceiling; the interpreter keeps its backtracking
     * on the heap under its own depth and heap limits, so it can still decide
     * inputs the JIT cannot (long repetitions of groups). */
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(re->code, (PCRE2_SPTR)text, len, 0, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match_data, limits);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

pcre2_match_context *sc_regex_limits_new(pcre2_jit_stack **jit_stack)
{
    pcre2_match_context *limits = pcre2_match_context_create(NULL);
    if (limits == NULL)
        return NULL;
    pcre2_set_match_limit(limits, GT_SCHEMA_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(limits, GT_SCHEMA_REGEX_DEPTH_LIMIT);
    pcre2_set_heap_limit(limits, GT_SCHEMA_REGEX_HEAP_LIMIT_KIB);
    *jit_stack = pcre2_jit_stack_create(32 * 1024, GT_SCHEMA_REGEX_JIT_STACK_MAX, NULL);
    if (*jit_stack != NULL)
        pcre2_jit_stack_assign(limits, NULL, *jit_stack);
    return limits;
}

void sc_regex_limits_free(pcre2_match_context *limits, pcre2_jit_stack *jit_stack)
{
    if (limits != NULL)
        pcre2_match_context_free(limits);
    if (jit_stack != NULL)
        pcre2_jit_stack_free(jit_stack);
}

bool sc_regex_limit_describe(int rc, char *buf, size_t cap)
{
    switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT:
        snprintf(buf, cap, "match limit (%u backtracking steps)", GT_SCHEMA_REGEX_MATCH_LIMIT);
        return true;
    case PCRE2_ERROR_DEPTHLIMIT:
        snprintf(buf, cap, "depth limit (%u nested backtracking points)", GT_SCHEMA_REGEX_DEPTH_LIMIT);
        return true;
    case PCRE2_ERROR_HEAPLIMIT:
        snprintf(buf, cap, "heap limit (%u KiB)", GT_SCHEMA_REGEX_HEAP_LIMIT_KIB);
        return true;
    default: return false;
    }
}

void sc_regex_free(sc_regex *re)
{
    if (re->code != NULL)
        pcre2_code_free(re->code);
    re->code = NULL;
    if (re->simple != NULL)
        free(re->simple->dfa);
    free(re->simple);
    re->simple = NULL;
}
