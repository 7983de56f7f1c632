/* parse.c — gate 1, the strict syntax gate; see parse.h.
 *
 * One forward pass over the bytes with an explicit stack (no recursion, so
 * depth is a policy, not a crash). Values are built straight into the caller's
 * arena. Every rejection is classified: the point of this gate is to say *why*
 * a model output is not exactly one JSON value, so that a report can tell a
 * Markdown fence from a truncated stream. Not for: lenient parsing. */
#include "gauntlet/parse.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena_impl.h"
#include "decimal.h"
#include "swar.h"

static const char *const reason_codes[GT_SYNTAX_REASON_COUNT] = {
    [GT_SYNTAX_OK] = "ok",
    [GT_SYNTAX_EMPTY_INPUT] = "empty_input",
    [GT_SYNTAX_BOM] = "bom",
    [GT_SYNTAX_MARKDOWN_FENCE] = "markdown_fence",
    [GT_SYNTAX_LEADING_TEXT] = "leading_text",
    [GT_SYNTAX_TRAILING_TEXT] = "trailing_text",
    [GT_SYNTAX_MULTIPLE_VALUES] = "multiple_values",
    [GT_SYNTAX_DUPLICATE_KEY] = "duplicate_key",
    [GT_SYNTAX_INVALID_UTF8] = "invalid_utf8",
    [GT_SYNTAX_LONE_SURROGATE] = "lone_surrogate",
    [GT_SYNTAX_NUL_CHARACTER] = "nul_character",
    [GT_SYNTAX_COMMENT] = "comment",
    [GT_SYNTAX_TRAILING_COMMA] = "trailing_comma",
    [GT_SYNTAX_SINGLE_QUOTES] = "single_quotes",
    [GT_SYNTAX_UNQUOTED_KEY] = "unquoted_key",
    [GT_SYNTAX_NON_FINITE_NUMBER] = "non_finite_number",
    [GT_SYNTAX_LEADING_ZERO] = "leading_zero",
    [GT_SYNTAX_BAD_NUMBER] = "bad_number",
    [GT_SYNTAX_NUMBER_OVERFLOW] = "number_overflow",
    [GT_SYNTAX_NUMBER_PRECISION] = "number_precision",
    [GT_SYNTAX_BAD_ESCAPE] = "bad_escape",
    [GT_SYNTAX_CONTROL_CHARACTER] = "control_character",
    [GT_SYNTAX_BAD_LITERAL] = "bad_literal",
    [GT_SYNTAX_UNEXPECTED_CHARACTER] = "unexpected_character",
    [GT_SYNTAX_UNEXPECTED_END] = "unexpected_end",
    [GT_SYNTAX_TOO_DEEP] = "too_deep",
    [GT_SYNTAX_TOO_LARGE] = "too_large",
    [GT_SYNTAX_OUT_OF_MEMORY] = "out_of_memory",
};

const char *gt_syntax_reason_code(gt_syntax_reason reason)
{
    if ((unsigned)reason >= GT_SYNTAX_REASON_COUNT)
        return "unknown";
    return reason_codes[reason];
}

int gt_syntax_reason_from_code(const char *code)
{
    for (int i = 1; i < GT_SYNTAX_REASON_COUNT; i++)
        if (strcmp(reason_codes[i], code) == 0)
            return i;
    return -1;
}

void gt_parse_options_init(gt_parse_options *options)
{
    memset(options, 0, sizeof *options);
    options->max_depth = GT_PARSE_DEFAULT_MAX_DEPTH;
    options->max_bytes = GT_PARSE_DEFAULT_MAX_BYTES;
}

/* ---- parser state ------------------------------------------------------ */

typedef struct frame {
    gt_value *container;
    size_t first; /* index of its first child in the items or members stack */
} frame;

typedef struct parser {
    const unsigned char *start, *p, *end;
    gt_arena *arena;
    gt_parse_options options;
    gt_parse_error *error;
    frame *frames;
    size_t depth, frames_cap;
    gt_value **items; /* pending array elements of all open arrays */
    size_t items_len, items_cap;
    gt_member *members; /* pending members of all open objects */
    size_t members_len, members_cap;
    bool frames_heap, items_heap, members_heap; /* grown past the arena part (free them) */
    bool failed;
} parser;

/* The scratch stacks start on gt_parse's own stack (PARSE_LOCAL_* entries),
 * grow into the caller's arena, so a loop that resets one arena per document
 * (validate --jsonl, a corpus run) parses without malloc, and past
 * PARSE_ARENA_STACK bytes move to the heap, so that a huge document does not
 * leave its outgrown copies in the arena. */
#define PARSE_LOCAL_FRAMES 16
#define PARSE_LOCAL_ITEMS 32
#define PARSE_LOCAL_MEMBERS 32
#define PARSE_ARENA_STACK (16u * 1024u)

/* Double the stack `*items` of `*cap` (> 0) entries of `size` bytes. NULL
 * when out of memory; the old stack is then still valid. */
static void *grow_stack(parser *ps, void *items, size_t *cap, size_t size, bool *heap)
{
    size_t ncap = *cap * 2;
    void *grown;
    if (*heap) {
        grown = realloc(items, ncap * size);
        if (grown != NULL)
            *cap = ncap;
        return grown;
    }
    if (ncap * size <= PARSE_ARENA_STACK)
        grown = gt_arena_bump(ps->arena, ncap * size);
    else if ((grown = malloc(ncap * size)) != NULL)
        *heap = true;
    if (grown == NULL)
        return NULL;
    if (*cap > 0)
        memcpy(grown, items, *cap * size);
    *cap = ncap;
    return grown;
}

/* Line and code-point column of `offset`. */
static void locate(const unsigned char *text, size_t offset, unsigned *line, unsigned *column)
{
    unsigned l = 1, c = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if ((text[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *column = c;
}

/* Length of the well-formed UTF-8 sequence at p (Unicode Table 3-7), or 0
 * when the bytes are ill-formed (overlong, surrogate, > U+10FFFF, cut). */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned char b0 = p[0];
    if (b0 < 0x80)
        return 1;
    size_t avail = (size_t)(end - p);
    if (b0 >= 0xC2 && b0 <= 0xDF)
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
        if (avail < 3)
            return 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b0 == 0xE0)
            lo = 0xA0;
        else if (b0 == 0xED)
            hi = 0x9F; /* encoded surrogates are ill-formed */
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
        if (avail < 4)
            return 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

bool gt_utf8_valid(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t n = utf8_sequence(p, end);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

/* Printable excerpt of the bytes around `offset`, invisible bytes escaped. */
static void make_excerpt(const unsigned char *text, size_t len, size_t offset, char *out, size_t out_size)
{
    size_t from = offset > 20 ? offset - 20 : 0;
    size_t to = offset + 20 < len ? offset + 20 : len;
    while (from > 0 && from < len && (text[from] & 0xC0) == 0x80)
        from--; /* do not start inside a UTF-8 sequence */
    size_t o = 0;
    for (size_t i = from; i < to && o + 12 < out_size;) {
        unsigned char c = text[i];
        if (c == '\n') {
            o += (size_t)snprintf(out + o, out_size - o, "\\n");
            i++;
        } else if (c == '\r') {
            o += (size_t)snprintf(out + o, out_size - o, "\\r");
            i++;
        } else if (c == '\t') {
            o += (size_t)snprintf(out + o, out_size - o, "\\t");
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            o += (size_t)snprintf(out + o, out_size - o, "\\x%02x", c);
            i++;
        } else if (c < 0x80) {
            out[o++] = (char)c;
            i++;
        } else {
            size_t n = utf8_sequence(text + i, text + len);
            if (n == 0) {
                o += (size_t)snprintf(out + o, out_size - o, "\\x%02x", c);
                i++;
                continue;
            }
            uint32_t cp = n == 2 ? (uint32_t)(c & 0x1F) << 6 | (text[i + 1] & 0x3F)
                          : n == 3 ? (uint32_t)(c & 0x0F) << 12 | (uint32_t)(text[i + 1] & 0x3F) << 6 | (text[i + 2] & 0x3F)
                                   : (uint32_t)(c & 0x07) << 18 | (uint32_t)(text[i + 1] & 0x3F) << 12 |
                                         (uint32_t)(text[i + 2] & 0x3F) << 6 | (text[i + 3] & 0x3F);
            bool invisible = cp == 0xA0 || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2028 ||
                             cp == 0x2029 || cp == 0xFEFF || (cp >= 0x80 && cp < 0xA0);
            if (invisible) {
                o += (size_t)snprintf(out + o, out_size - o, "\\u%04x", (unsigned)cp);
            } else {
                memcpy(out + o, text + i, n);
                o += n;
            }
            i += n;
        }
    }
    out[o] = '\0';
}

static const char *default_message(gt_syntax_reason reason)
{
    switch (reason) {
    case GT_SYNTAX_EMPTY_INPUT: return "the output is empty or only whitespace";
    case GT_SYNTAX_BOM: return "the output starts with a byte order mark";
    case GT_SYNTAX_MARKDOWN_FENCE: return "a Markdown code fence surrounds the JSON value";
    case GT_SYNTAX_LEADING_TEXT: return "text before the JSON value";
    case GT_SYNTAX_TRAILING_TEXT: return "text after the JSON value";
    case GT_SYNTAX_MULTIPLE_VALUES: return "a second JSON value follows the first";
    case GT_SYNTAX_DUPLICATE_KEY: return "duplicate member name";
    case GT_SYNTAX_INVALID_UTF8: return "invalid UTF-8 byte sequence";
    case GT_SYNTAX_LONE_SURROGATE: return "unpaired UTF-16 surrogate escape";
    case GT_SYNTAX_NUL_CHARACTER: return "\\u0000 in a string (rejected by the --reject-nul policy)";
    case GT_SYNTAX_COMMENT: return "comments are not JSON";
    case GT_SYNTAX_TRAILING_COMMA: return "trailing comma";
    case GT_SYNTAX_SINGLE_QUOTES: return "single-quoted string";
    case GT_SYNTAX_UNQUOTED_KEY: return "member name without quotes";
    case GT_SYNTAX_NON_FINITE_NUMBER: return "NaN and Infinity are not JSON numbers";
    case GT_SYNTAX_LEADING_ZERO: return "number with a leading zero";
    case GT_SYNTAX_BAD_NUMBER: return "malformed number";
    case GT_SYNTAX_NUMBER_OVERFLOW: return "number too large for a double";
    case GT_SYNTAX_NUMBER_PRECISION: return "number cannot be represented without loss";
    case GT_SYNTAX_BAD_ESCAPE: return "invalid escape sequence";
    case GT_SYNTAX_CONTROL_CHARACTER: return "raw control character in a string";
    case GT_SYNTAX_BAD_LITERAL: return "not a JSON literal (only true, false, null)";
    case GT_SYNTAX_UNEXPECTED_CHARACTER: return "unexpected character";
    case GT_SYNTAX_UNEXPECTED_END: return "input ends inside the value (truncated)";
    case GT_SYNTAX_TOO_DEEP: return "nesting deeper than the limit";
    case GT_SYNTAX_TOO_LARGE: return "input larger than the limit";
    case GT_SYNTAX_OUT_OF_MEMORY: return "out of memory";
    default: return "rejected";
    }
}

/* Record the first failure; later calls are ignored. Returns NULL for tail calls. */
static void *fail_at(parser *ps, gt_syntax_reason reason, const unsigned char *at, const char *message)
{
    if (ps->failed)
        return NULL;
    ps->failed = true;
    gt_parse_error *error = ps->error;
    size_t len = (size_t)(ps->end - ps->start);
    error->reason = reason;
    error->offset = (size_t)(at - ps->start);
    if (error->offset > len)
        error->offset = len;
    locate(ps->start, error->offset, &error->line, &error->column);
    snprintf(error->message, sizeof error->message, "%s", message != NULL ? message : default_message(reason));
    make_excerpt(ps->start, len, error->offset, error->excerpt, sizeof error->excerpt);
    return NULL;
}

static inline const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end)
{
    /* model outputs are often compact: one compare settles most calls */
    while (p < end && *p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static inline bool is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Do the bytes at p spell `word`, not followed by a word character? Inline:
 * true, false and null are read through here. */
static inline bool word_is(const unsigned char *p, const unsigned char *end, const char *word)
{
    size_t n = 0;
    for (; word[n] != '\0'; n++)
        if (p + n >= end || p[n] != (unsigned char)word[n])
            return false;
    return p + n == end || !is_word_char(p[n]);
}

/* ---- strings -------------------------------------------------------------- */

static int hex4(const unsigned char *p, const unsigned char *end, uint32_t *out)
{
    if (end - p < 4)
        return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(unsigned char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* RFC 8259 mode: a lone surrogate escape (6 input bytes) becomes U+FFFD. */
static size_t lone_surrogate_replaced(unsigned char *out, size_t *out_len)
{
    *out_len = put_utf8(out, 0xFFFD);
    return 6;
}

/* Decode the escape at p (p[0] == '\\') into out. Returns the bytes consumed
 * from the input, or 0 after recording a failure. */
static size_t decode_escape(parser *ps, const unsigned char *p, unsigned char *out, size_t *out_len)
{
    const unsigned char *end = ps->end;
    if (p + 1 >= end) {
        fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        return 0;
    }
    unsigned char c = p[1];
    unsigned char simple = 0;
    switch (c) {
    case '"': simple = '"'; break;
    case '\\': simple = '\\'; break;
    case '/': simple = '/'; break;
    case 'b': simple = '\b'; break;
    case 'f': simple = '\f'; break;
    case 'n': simple = '\n'; break;
    case 'r': simple = '\r'; break;
    case 't': simple = '\t'; break;
    case 'u': break;
    default:
        fail_at(ps, GT_SYNTAX_BAD_ESCAPE, p, c == '\'' ? "\\' is not a JSON escape" : NULL);
        return 0;
    }
    if (simple != 0) {
        out[0] = simple;
        *out_len = 1;
        return 2;
    }
    uint32_t cp;
    if (hex4(p + 2, end, &cp) != 0) {
        /* The string is closed (pass 1 found its quote), so a short \u is never a cut stream. */
        fail_at(ps, GT_SYNTAX_BAD_ESCAPE, p, "\\u needs four hex digits");
        return 0;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
        if (ps->options.rfc8259)
            return lone_surrogate_replaced(out, out_len);
        fail_at(ps, GT_SYNTAX_LONE_SURROGATE, p, "low surrogate escape without a preceding high surrogate");
        return 0;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t low;
        if (p + 6 < end && p[6] == '\\' && p + 7 < end && p[7] == 'u' && hex4(p + 8, end, &low) == 0 &&
            low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            *out_len = put_utf8(out, cp);
            return 12;
        }
        if (ps->options.rfc8259)
            return lone_surrogate_replaced(out, out_len);
        fail_at(ps, GT_SYNTAX_LONE_SURROGATE, p, "high surrogate escape without a following low surrogate");
        return 0;
    }
    if (cp == 0 && ps->options.reject_nul) {
        fail_at(ps, GT_SYNTAX_NUL_CHARACTER, p, NULL);
        return 0;
    }
    *out_len = put_utf8(out, cp);
    return 6;
}

/* Parse the string whose opening quote is at ps->p. Returns its decoded
 * bytes in the arena (NUL-terminated) and length, advancing ps->p past the
 * closing quote. With `value_out`, a zeroed gt_value is allocated in front of
 * the bytes (one allocation for a string value) and returned there. NULL
 * after a recorded failure. */
static const char *parse_string(parser *ps, size_t *len_out, gt_value **value_out)
{
    const unsigned char *begin = ps->p + 1, *q = begin, *end = ps->end;
    bool escaped = false;
    /* Pass 1: find the closing quote, validating raw bytes. */
    for (;;) {
        /* ASCII without quote, backslash or control bytes: a word at a time */
        while (end - q >= 8) {
            uint64_t word = gt_swar_load(q);
            uint64_t stops = gt_swar_string_stops(word) | (word & GT_SWAR_HIGHS);
            if (stops != 0) {
                q += gt_swar_first(stops);
                break;
            }
            q += 8;
        }
        while (q < end && *q >= 0x20 && *q != '"' && *q != '\\' && *q < 0x80)
            q++;
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        unsigned char c = *q;
        if (c == '"')
            break;
        if (c == '\\') {
            escaped = true;
            q += 2;
            if (q > end)
                return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
            continue;
        }
        if (c < 0x20)
            return fail_at(ps, GT_SYNTAX_CONTROL_CHARACTER, q,
                           c == '\n' ? "raw newline in a string (must be escaped as \\n)" : NULL);
        size_t n = utf8_sequence(q, end);
        if (n == 0) {
            /* A multi-byte sequence cut by the end of input is a truncation. */
            size_t avail = (size_t)(end - q);
            bool cut = avail < 4 && c >= 0xC2 && c <= 0xF4;
            for (size_t i = 1; cut && i < avail; i++)
                cut = (q[i] & 0xC0) == 0x80;
            if (cut && avail < (c >= 0xF0 ? 4u : c >= 0xE0 ? 3u : 2u))
                return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
            return fail_at(ps, GT_SYNTAX_INVALID_UTF8, q, NULL);
        }
        q += n;
    }
    size_t raw_len = (size_t)(q - begin), prefix = value_out != NULL ? sizeof(gt_value) : 0;
    char *out = gt_arena_bump(ps->arena, prefix + raw_len + 1);
    if (out == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, begin, NULL);
    if (value_out != NULL) {
        *value_out = (gt_value *)(void *)out;
        memset(out, 0, prefix);
        out += prefix;
    }
    size_t len = raw_len;
    if (!escaped) {
        gt_swar_copy(out, begin, raw_len);
    } else {
        /* Pass 2: decode escapes (the output is never longer than the input). */
        const unsigned char *r = begin;
        unsigned char *w = (unsigned char *)out;
        while (r < q) {
            const unsigned char *slash = memchr(r, '\\', (size_t)(q - r));
            size_t run = slash != NULL ? (size_t)(slash - r) : (size_t)(q - r);
            memcpy(w, r, run);
            w += run;
            r += run;
            if (slash == NULL)
                break;
            size_t produced = 0;
            size_t used = decode_escape(ps, r, w, &produced);
            if (used == 0)
                return NULL;
            r += used;
            w += produced;
        }
        len = (size_t)(w - (unsigned char *)out);
    }
    out[len] = '\0';
    ps->p = q + 1;
    *len_out = len;
    return out;
}

/* ---- numbers ----------------------------------------------------------- */

/* The interoperable range (docs/reason-codes.md): every number whose
 * magnitude is at most 2^53-1 is accepted; beyond it only a number that a
 * double reproduces (its shortest round-trip decimal is the number as written:
 * 1E22, 123e45, 2^53) is, whatever the spelling, unless big numbers are kept
 * exactly. `number` is the literal's nearest double, |number| >= 2^53-1. */
static bool interoperable(parser *ps, gt_value *value, double number)
{
    const char *text = value->u.num.text;
    size_t len = value->u.num.text_len;
    int cmp = 1;
    if (fabs(number) == GT_PARSE_MAX_SAFE_INTEGER &&
        gt_decimal_compare_text(text, len, GT_PARSE_MAX_SAFE_INTEGER_TEXT, sizeof GT_PARSE_MAX_SAFE_INTEGER_TEXT - 1, true, &cmp) != 0) {
        fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
        return false;
    }
    if (cmp <= 0)
        return true; /* exactly 2^53-1, or just below it */
    value->flags |= GT_NUM_BIG;
    if (ps->options.allow_big_integers)
        return true;
    char shortest[40];
    int slen = gt_decimal_shortest(number, shortest, sizeof shortest);
    bool compared = gt_decimal_compare_text(text, len, shortest, (size_t)slen, false, &cmp) == 0;
    if (compared && cmp == 0)
        return true;
    fail_at(ps, compared ? GT_SYNTAX_NUMBER_PRECISION : GT_SYNTAX_OUT_OF_MEMORY, ps->p,
            compared ? "beyond 2^53-1 a double cannot hold this number as written (it reads back as another number)" : NULL);
    return false;
}

/* Clinger's fast path: a literal of at most 19 digits whose digits make an
 * integer m <= 2^53 and whose decimal exponent e has |e| <= 22 is m * 10^e or
 * m / 10^-e, both operands exact doubles, so one IEEE operation rounds it
 * correctly: the same double strtod returns, without strtod's big-number
 * machinery. `p`..`end` is a literal parse_number has already checked.
 * False when the literal needs strtod. */
static bool fast_decimal(const unsigned char *p, const unsigned char *end, double *out)
{
    static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool negative = *p == '-';
    p += negative;
    uint64_t mantissa = 0;
    int digits = 0;
    long exponent = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9'; p++, digits++, exponent--)
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    if (digits > 19)
        return false; /* mantissa may have wrapped */
    if (p < end) {    /* 'e' or 'E' */
        p++;
        bool exp_negative = *p == '-';
        p += *p == '-' || *p == '+';
        long written = 0;
        if (end - p > 4)
            return false;
        for (; p < end; p++)
            written = written * 10 + (*p - '0');
        exponent += exp_negative ? -written : written;
    }
    if (mantissa > (1ull << 53) || exponent < -22 || exponent > 22)
        return false;
    double number = (double)mantissa;
    number = exponent < 0 ? number / powers[-exponent] : number * powers[exponent];
    *out = negative ? -number : number;
    return true;
}

static gt_value *parse_number(parser *ps)
{
    const unsigned char *start = ps->p, *q = start, *end = ps->end;
    bool integer = true;
    if (q < end && *q == '-')
        q++;
    if (q >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    if (word_is(q, end, "Infinity") || word_is(q, end, "NaN"))
        return fail_at(ps, GT_SYNTAX_NON_FINITE_NUMBER, start, NULL);
    if (*q == '0') {
        q++;
        if (q < end && *q >= '0' && *q <= '9')
            return fail_at(ps, GT_SYNTAX_LEADING_ZERO, start, NULL);
        if (q < end && (*q == 'x' || *q == 'X'))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "hexadecimal numbers are not JSON");
    } else if (*q >= '1' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    } else {
        return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, *q == '.' ? "a number needs a digit before '.'" : NULL);
    }
    const unsigned char *int_end = q;
    if (q < end && *q == '.') {
        integer = false;
        q++;
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (!(*q >= '0' && *q <= '9'))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "a number needs a digit after '.'");
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        integer = false;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (!(*q >= '0' && *q <= '9'))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "an exponent needs digits");
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (is_word_char(*q) || *q == '.'))
        return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, NULL);

    size_t text_len = (size_t)(q - start);
    gt_value *value = gt_arena_bump(ps->arena, sizeof *value + text_len + 1);
    if (value == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, start, NULL);
    char *text = (char *)(value + 1);
    memcpy(text, start, text_len);
    text[text_len] = '\0';
    value->type = GT_NUMBER;
    value->flags = integer ? GT_NUM_INTEGER_LITERAL : 0;
    value->offset = (size_t)(start - ps->start);
    value->u.num.text = text;
    value->u.num.text_len = text_len;

    size_t digits = (size_t)(int_end - start) - (*start == '-');
    if (integer && digits <= 15) {
        /* Exact and fast: at most 15 digits fit a double without rounding. */
        int64_t magnitude = 0;
        for (const unsigned char *d = start + (*start == '-'); d < int_end; d++)
            magnitude = magnitude * 10 + (*d - '0');
        value->u.num.number = *start == '-' ? -(double)magnitude : (double)magnitude;
    } else if (fast_decimal(start, q, &value->u.num.number) &&
               fabs(value->u.num.number) < GT_PARSE_MAX_SAFE_INTEGER) {
        /* exact below 2^53-1: nothing for interoperable() to check */
    } else {
        double number = strtod(text, NULL);
        if (isinf(number) && ps->options.rfc8259) {
            value->flags |= GT_NUM_BIG; /* exact in text; beyond a double, so an integer */
            number = number < 0 ? -DBL_MAX : DBL_MAX;
        }
        if (isinf(number))
            return fail_at(ps, GT_SYNTAX_NUMBER_OVERFLOW, start, NULL);
        if (number == 0.0 && !ps->options.rfc8259) {
            /* Non-zero digits that read as zero have underflowed. */
            const unsigned char *d = start;
            while (d < q && *d != 'e' && *d != 'E' && (*d < '1' || *d > '9'))
                d++;
            if (d < q && *d >= '1' && *d <= '9')
                return fail_at(ps, GT_SYNTAX_NUMBER_PRECISION, start, "number underflows to zero");
        }
        if (fabs(number) >= GT_PARSE_MAX_SAFE_INTEGER && !interoperable(ps, value, number))
            return NULL;
        value->u.num.number = number;
    }
    ps->p = q;
    return value;
}

/* ---- classification of a misplaced byte -------------------------------- */

typedef enum { AT_VALUE, AT_KEY, AT_TOP } position;

/* Why is the byte at p not the start of a value (or key)? */
static void *fail_unexpected(parser *ps, const unsigned char *p, position where)
{
    const unsigned char *end = ps->end;
    unsigned char c = *p;
    if (c == '/')
        return fail_at(ps, GT_SYNTAX_COMMENT, p, NULL);
    if (c == '\'')
        return fail_at(ps, GT_SYNTAX_SINGLE_QUOTES, p, NULL);
    if (c == '`' && where != AT_KEY)
        return fail_at(ps, GT_SYNTAX_MARKDOWN_FENCE, p, NULL);
    if (c >= 0x80) {
        if (utf8_sequence(p, end) == 0)
            return fail_at(ps, GT_SYNTAX_INVALID_UTF8, p, NULL);
        if (c == 0xE2 && p + 2 < end && p[1] == 0x80 && p[2] >= 0x98 && p[2] <= 0x9F && where != AT_TOP)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, "typographic quote instead of '\"'");
    }
    if (word_is(p, end, "NaN") || word_is(p, end, "Infinity"))
        return fail_at(ps, GT_SYNTAX_NON_FINITE_NUMBER, p, NULL);
    if (c == '+' || c == '.')
        return fail_at(ps, GT_SYNTAX_BAD_NUMBER, p, NULL);
    if (where == AT_KEY && (is_word_char(c) || c >= 0x80))
        return fail_at(ps, GT_SYNTAX_UNQUOTED_KEY, p, NULL);
    if (where == AT_TOP) {
        /* Prose before the value; a fence line anywhere before it wins. */
        for (const unsigned char *q = p; q + 2 < end && *q != '{' && *q != '['; q++)
            if (q[0] == '`' && q[1] == '`' && q[2] == '`')
                return fail_at(ps, GT_SYNTAX_MARKDOWN_FENCE, q, NULL);
        if (is_word_char(c)) {
            const unsigned char *w = p;
            while (w < end && is_word_char(*w))
                w++;
            if (skip_ws(w, end) == end)
                return fail_at(ps, GT_SYNTAX_BAD_LITERAL, p, NULL);
        }
        return fail_at(ps, GT_SYNTAX_LEADING_TEXT, p, NULL);
    }
    if (is_word_char(c))
        return fail_at(ps, GT_SYNTAX_BAD_LITERAL, p, NULL);
    return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, NULL);
}

/* ---- containers ---------------------------------------------------------- */

static bool push_frame(parser *ps, gt_value *container)
{
    if (ps->depth >= ps->options.max_depth) {
        fail_at(ps, GT_SYNTAX_TOO_DEEP, ps->start + container->offset, NULL);
        return false;
    }
    if (ps->depth == ps->frames_cap) {
        frame *grown = grow_stack(ps, ps->frames, &ps->frames_cap, sizeof *grown, &ps->frames_heap);
        if (grown == NULL) {
            fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
            return false;
        }
        ps->frames = grown;
    }
    frame *top = &ps->frames[ps->depth++];
    top->container = container;
    top->first = container->type == GT_ARRAY ? ps->items_len : ps->members_len;
    return true;
}

static bool push_item(parser *ps, gt_value *item)
{
    if (ps->items_len == ps->items_cap) {
        gt_value **grown = grow_stack(ps, ps->items, &ps->items_cap, sizeof *grown, &ps->items_heap);
        if (grown == NULL) {
            fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
            return false;
        }
        ps->items = grown;
    }
    ps->items[ps->items_len++] = item;
    return true;
}

static gt_member *push_member(parser *ps)
{
    if (ps->members_len == ps->members_cap) {
        gt_member *grown = grow_stack(ps, ps->members, &ps->members_cap, sizeof *grown, &ps->members_heap);
        if (grown == NULL)
            return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
        ps->members = grown;
    }
    return &ps->members[ps->members_len++];
}

static uint64_t hash_bytes(const char *bytes, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Reject the first member whose name repeats an earlier one; in RFC 8259
 * mode the later value replaces the earlier one instead, and *count shrinks. */
static bool check_duplicates(parser *ps, gt_member *members, size_t *count_io)
{
    size_t count = *count_io;
    bool merged = false;
    if (count < 2)
        return true;
    if (count <= 16) {
        for (size_t i = 1; i < count; i++)
            for (size_t j = 0; j < i; j++)
                if (members[i].key_len == members[j].key_len &&
                    gt_swar_same(members[i].key, members[j].key, members[i].key_len))
                    goto duplicate_found;
        return true;
    duplicate_found:;
    }
    size_t slots = 32;
    while (slots < count * 2)
        slots *= 2;
    size_t *table = calloc(slots, sizeof *table); /* member index + 1; 0 = empty */
    if (table == NULL) {
        fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        size_t slot = (size_t)hash_bytes(members[i].key, members[i].key_len) & (slots - 1);
        while (table[slot] != 0) {
            gt_member *seen = &members[table[slot] - 1];
            if (seen->key_len == members[i].key_len && memcmp(seen->key, members[i].key, seen->key_len) == 0) {
                if (ps->options.rfc8259) {
                    seen->value = members[i].value;
                    members[i].key = NULL; /* dropped below */
                    merged = true;
                    break;
                }
                char message[160];
                unsigned line, column;
                locate(ps->start, seen->key_offset, &line, &column);
                snprintf(message, sizeof message, "duplicate member name \"%.60s\" (first at %u:%u)", members[i].key,
                         line, column);
                free(table);
                fail_at(ps, GT_SYNTAX_DUPLICATE_KEY, ps->start + members[i].key_offset, message);
                return false;
            }
            slot = (slot + 1) & (slots - 1);
        }
        if (members[i].key != NULL)
            table[slot] = i + 1;
    }
    free(table);
    if (merged) {
        size_t kept = 0;
        for (size_t i = 0; i < count; i++)
            if (members[i].key != NULL)
                members[kept++] = members[i];
        *count_io = kept;
    }
    return true;
}

/* Close the innermost container: move its children into the arena. */
static gt_value *pop_frame(parser *ps)
{
    frame *top = &ps->frames[--ps->depth];
    gt_value *container = top->container;
    if (container->type == GT_ARRAY) {
        size_t count = ps->items_len - top->first;
        gt_value **items = NULL;
        if (count > 0) {
            items = gt_arena_bump(ps->arena, count * sizeof *items);
            if (items == NULL)
                return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
            memcpy(items, ps->items + top->first, count * sizeof *items);
        }
        container->u.arr.items = items;
        container->u.arr.count = count;
        ps->items_len = top->first;
    } else {
        size_t count = ps->members_len - top->first;
        gt_member *members = NULL;
        if (count > 0) {
            if (!check_duplicates(ps, ps->members + top->first, &count))
                return NULL;
            members = gt_arena_bump(ps->arena, count * sizeof *members);
            if (members == NULL)
                return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
            memcpy(members, ps->members + top->first, count * sizeof *members);
        }
        container->u.obj.members = members;
        container->u.obj.count = count;
        ps->members_len = top->first;
    }
    return container;
}

static gt_value *new_value(parser *ps, gt_type type, const unsigned char *at)
{
    gt_value *value = gt_arena_bump(ps->arena, sizeof *value);
    if (value == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, at, NULL);
    memset(value, 0, sizeof *value);
    value->type = type;
    value->offset = (size_t)(at - ps->start);
    return value;
}

/* Parse a member name at ps->p (after '{' or ','), then the ':' after it. */
static bool parse_key(parser *ps)
{
    const unsigned char *p = skip_ws(ps->p, ps->end);
    if (p >= ps->end) {
        fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
        return false;
    }
    if (*p != '"') {
        fail_unexpected(ps, p, AT_KEY);
        return false;
    }
    ps->p = p;
    gt_member *member = push_member(ps);
    if (member == NULL)
        return false;
    member->key_offset = (size_t)(p - ps->start);
    member->value = NULL;
    size_t key_len;
    const char *key = parse_string(ps, &key_len, NULL);
    if (key == NULL)
        return false;
    member->key = key;
    member->key_len = key_len;
    p = skip_ws(ps->p, ps->end);
    if (p >= ps->end) {
        fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
        return false;
    }
    if (*p != ':') {
        fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, "expected ':' after the member name");
        return false;
    }
    ps->p = p + 1;
    return true;
}

/* Parse one scalar, or open a container, at ps->p. */
static gt_value *parse_value_start(parser *ps, position where)
{
    const unsigned char *p = skip_ws(ps->p, ps->end);
    ps->p = p;
    if (p >= ps->end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
    gt_value *value;
    switch (*p) {
    case '{':
    case '[':
        value = new_value(ps, *p == '{' ? GT_OBJECT : GT_ARRAY, p);
        if (value == NULL || !push_frame(ps, value))
            return NULL;
        ps->p = p + 1;
        return value;
    case '"': {
        size_t len;
        const char *chars = parse_string(ps, &len, &value);
        if (chars == NULL)
            return NULL;
        value->type = GT_STRING;
        value->offset = (size_t)(p - ps->start);
        value->u.str.chars = chars;
        value->u.str.len = len;
        return value;
    }
    case 't':
    case 'f':
    case 'n': {
        const char *word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
        size_t n = *p == 'f' ? 5 : 4;
        size_t avail = (size_t)(ps->end - p);
        if (avail < n && memcmp(p, word, avail) == 0)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
        if (!word_is(p, ps->end, word))
            return fail_unexpected(ps, p, where);
        value = new_value(ps, *p == 't' ? GT_TRUE : *p == 'f' ? GT_FALSE : GT_NULL, p);
        ps->p = p + n;
        return value;
    }
    default:
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            value = parse_number(ps);
            return value;
        }
        return fail_unexpected(ps, p, where);
    }
}

/* After a complete top-level value: only whitespace may follow. */
static void check_trailing(parser *ps)
{
    const unsigned char *p = skip_ws(ps->p, ps->end);
    if (p >= ps->end)
        return;
    unsigned char c = *p;
    if (c == '`') {
        fail_at(ps, GT_SYNTAX_MARKDOWN_FENCE, p, "a Markdown code fence follows the JSON value");
    } else if (c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || word_is(p, ps->end, "true") ||
               word_is(p, ps->end, "false") || word_is(p, ps->end, "null")) {
        fail_at(ps, GT_SYNTAX_MULTIPLE_VALUES, p, NULL);
    } else if (c == ',') {
        const unsigned char *q = skip_ws(p + 1, ps->end);
        fail_at(ps, q < ps->end && (*q == '{' || *q == '[') ? GT_SYNTAX_MULTIPLE_VALUES : GT_SYNTAX_TRAILING_TEXT, p,
                NULL);
    } else if (c == '/') {
        fail_at(ps, GT_SYNTAX_COMMENT, p, NULL);
    } else if (c >= 0x80 && utf8_sequence(p, ps->end) == 0) {
        fail_at(ps, GT_SYNTAX_INVALID_UTF8, p, NULL);
    } else {
        fail_at(ps, GT_SYNTAX_TRAILING_TEXT, p, NULL);
    }
}

/* The main loop: values, then what follows each inside its container. */
static gt_value *parse_document(parser *ps)
{
    gt_value *root = NULL;
    gt_value *value = parse_value_start(ps, AT_TOP);
    for (;;) {
        if (value == NULL)
            return NULL;
        /* A freshly opened container: handle empty, else read its first child. */
        if ((value->type == GT_ARRAY || value->type == GT_OBJECT) && ps->depth > 0 &&
            ps->frames[ps->depth - 1].container == value) {
            const unsigned char *p = skip_ws(ps->p, ps->end);
            if (p >= ps->end)
                return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
            char closer = value->type == GT_ARRAY ? ']' : '}';
            if (*p == closer) {
                ps->p = p + 1;
                value = pop_frame(ps);
                goto completed;
            }
            if (*p == ',')
                return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, NULL);
            if (value->type == GT_OBJECT) {
                if (!parse_key(ps))
                    return NULL;
            }
            value = parse_value_start(ps, AT_VALUE);
            continue;
        }
    completed:
        if (value == NULL)
            return NULL;
        if (ps->depth == 0) {
            root = value;
            break;
        }
        /* Attach the completed value to the innermost open container. */
        frame *top = &ps->frames[ps->depth - 1];
        bool in_array = top->container->type == GT_ARRAY;
        if (in_array) {
            if (!push_item(ps, value))
                return NULL;
        } else {
            ps->members[ps->members_len - 1].value = value;
        }
        const unsigned char *p = skip_ws(ps->p, ps->end);
        if (p >= ps->end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, ps->end, NULL);
        char closer = in_array ? ']' : '}';
        if (*p == ',') {
            const unsigned char *next = skip_ws(p + 1, ps->end);
            if (next < ps->end && (*next == ']' || *next == '}'))
                return fail_at(ps, GT_SYNTAX_TRAILING_COMMA, p, NULL);
            ps->p = p + 1;
            if (!in_array && !parse_key(ps))
                return NULL;
            value = parse_value_start(ps, AT_VALUE);
            continue;
        }
        if (*p == closer) {
            ps->p = p + 1;
            value = pop_frame(ps);
            goto completed;
        }
        if (*p == '/')
            return fail_at(ps, GT_SYNTAX_COMMENT, p, NULL);
        if (*p == ']' || *p == '}')
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, in_array ? "expected ',' or ']'" : "expected ',' or '}'");
        if (*p >= 0x80 && utf8_sequence(p, ps->end) == 0)
            return fail_at(ps, GT_SYNTAX_INVALID_UTF8, p, NULL);
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p,
                       in_array ? "expected ',' or ']' after an array element" : "expected ',' or '}' after a member");
    }
    check_trailing(ps);
    return ps->failed ? NULL : root;
}

gt_value *gt_parse(gt_arena *arena, const char *text, size_t len, const gt_parse_options *options,
                   gt_parse_error *error)
{
    parser ps;
    frame local_frames[PARSE_LOCAL_FRAMES];
    gt_value *local_items[PARSE_LOCAL_ITEMS];
    gt_member local_members[PARSE_LOCAL_MEMBERS];
    memset(&ps, 0, sizeof ps);
    ps.frames = local_frames, ps.frames_cap = PARSE_LOCAL_FRAMES;
    ps.items = local_items, ps.items_cap = PARSE_LOCAL_ITEMS;
    ps.members = local_members, ps.members_cap = PARSE_LOCAL_MEMBERS;
    if (options != NULL)
        ps.options = *options;
    else
        gt_parse_options_init(&ps.options);
    if (ps.options.max_depth == 0)
        ps.options.max_depth = GT_PARSE_DEFAULT_MAX_DEPTH;
    if (ps.options.max_bytes == 0)
        ps.options.max_bytes = GT_PARSE_DEFAULT_MAX_BYTES;
    if (ps.options.rfc8259) {
        ps.options.allow_big_integers = true;
        ps.options.reject_nul = false;
    }
    ps.start = (const unsigned char *)(text != NULL ? text : "");
    ps.p = ps.start;
    ps.end = ps.start + (text != NULL ? len : 0);
    ps.arena = arena;
    ps.error = error;
    memset(error, 0, sizeof *error);

    if (len > ps.options.max_bytes) {
        char message[160];
        snprintf(message, sizeof message, "input is %zu bytes, over the limit of %zu", len, ps.options.max_bytes);
        ps.end = ps.start + (len < 64 ? len : 64); /* only for the excerpt */
        fail_at(&ps, GT_SYNTAX_TOO_LARGE, ps.start, message);
        return NULL;
    }
    if (len >= 3 && ps.start[0] == 0xEF && ps.start[1] == 0xBB && ps.start[2] == 0xBF) {
        fail_at(&ps, GT_SYNTAX_BOM, ps.start, NULL);
        return NULL;
    }
    if (skip_ws(ps.start, ps.end) == ps.end) {
        fail_at(&ps, GT_SYNTAX_EMPTY_INPUT, ps.start, NULL);
        return NULL;
    }
    gt_value *root = parse_document(&ps);
    if (ps.frames_heap)
        free(ps.frames);
    if (ps.items_heap)
        free(ps.items);
    if (ps.members_heap)
        free(ps.members);
    if (root == NULL && !ps.failed)
        fail_at(&ps, GT_SYNTAX_OUT_OF_MEMORY, ps.p, NULL);
    return ps.failed ? NULL : root;
}
