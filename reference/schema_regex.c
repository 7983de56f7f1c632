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
    return 0;
}

int sc_regex_search(const sc_regex *re, const char *text, size_t len, pcre2_match_data *match_data,
                    pcre2_match_context *limits)
{
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
}
