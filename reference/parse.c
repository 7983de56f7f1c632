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
#include "parse_impl.h"
#include "swar.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define PARSE_SSE2 1
#endif

/* The hot helpers of the main loop, inlined even where gcc's size heuristics
 * would not: each is called from one or two places of parse_document. */
#define PARSE_HOT static inline __attribute__((always_inline))
/* Failures and growth: called rarely, kept out of the hot loop's way (the
 * branches to them are laid out as not taken). */
#define PARSE_COLD static __attribute__((cold, noinline))

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
    bool simd; /* the SSE2 scans (x86-64), else the portable ones */
    /* The free part of the arena's current block, bumped here without going
     * through the arena for every value; bump_sync gives it back. */
    unsigned char *bump, *bump_end;
} parser;

/* The tree's allocations are aligned for gt_value (pointers, size_t, double),
 * not to the arena's 16: a tenth less memory written per document. */
#define PARSE_ALIGN 8u

/* Start bumping in the arena's current block (none yet: the first
 * allocation goes through gt_arena_alloc). */
static void bump_load(parser *ps)
{
    static unsigned char no_block; /* an empty free part: the first allocation goes to the arena */
    arena_block *block = ps->arena->head;
    if (block == NULL) {
        ps->bump = ps->bump_end = &no_block;
        return;
    }
    ps->bump = (unsigned char *)block->data + block->used;
    ps->bump_end = (unsigned char *)block->data + block->size;
}

/* Record in the arena what was bumped locally since bump_load. */
static void bump_sync(parser *ps)
{
    arena_block *block = ps->arena->head;
    if (block == NULL)
        return;
    size_t used = (size_t)(ps->bump - (unsigned char *)block->data);
    used = (used + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); /* the arena's own alignment again */
    ps->arena->total_used += used - block->used;
    block->used = used;
}

/* Outgrown the current block: through the arena, then bump in its new head. */
PARSE_COLD void *parse_alloc_slow(parser *ps, size_t size)
{
    bump_sync(ps);
    void *out = gt_arena_alloc(ps->arena, size);
    bump_load(ps);
    return out;
}

/* gt_arena_alloc for the parse: `size` bytes, PARSE_ALIGN-aligned, NULL
 * when out of memory. */
static inline void *parse_alloc(parser *ps, size_t size)
{
    size_t rounded = (size + PARSE_ALIGN - 1) & ~(size_t)(PARSE_ALIGN - 1);
    if (rounded >= size && (size_t)(ps->bump_end - ps->bump) >= rounded) {
        void *out = ps->bump;
        ps->bump += rounded;
        return out;
    }
    return parse_alloc_slow(ps, size);
}

/* The scratch stacks start on gt_parse's own stack (PARSE_LOCAL_* entries),
 * grow into the caller's arena, so a loop that resets one arena per document
 * (validate --jsonl, a corpus run) parses without malloc, and past
 * PARSE_ARENA_STACK bytes move to the heap, so that a huge document does not
 * leave its outgrown copies in the arena. 64 KiB holds an array of 8192
 * items (a ~1 MB document's longest) or 2048 open members: a malloc per
 * document would also pay for whatever other code left in malloc's fast
 * bins (bench/README.md). */
#define PARSE_LOCAL_FRAMES 16
#define PARSE_LOCAL_ITEMS 32
#define PARSE_LOCAL_MEMBERS 32
#define PARSE_ARENA_STACK (64u * 1024u)

/* Double the stack `*items` of `*cap` (> 0) entries of `size` bytes. NULL
 * when out of memory; the old stack is then still valid. */
PARSE_COLD void *grow_stack(parser *ps, void *items, size_t *cap, size_t size, bool *heap)
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
        grown = parse_alloc(ps, ncap * size);
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
PARSE_COLD void *fail_at(parser *ps, gt_syntax_reason reason, const unsigned char *at, const char *message)
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

/* ---- byte scans: SSE2 on x86-64, words of eight bytes elsewhere ----------
 *
 * The two scans that touch most bytes of a document, the plain run of a
 * string and a run of whitespace, have a 16-byte SSE2 form (SSE2 is baseline
 * on x86-64: no run-time dispatch) and the portable form every other machine
 * runs. Both forms return the same pointer for every input: suite/test_parse.c
 * parses the same inputs through both (gt_parse_with_scan, parse_impl.h) and
 * requires identical trees and errors. No load reaches past `end`: the last
 * bytes (fewer than 16) go through the portable form. */

static inline bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The first byte at or after p that is not whitespace, or end. */
static const unsigned char *skip_ws_run(bool simd, const unsigned char *p, const unsigned char *end)
{
#ifdef PARSE_SSE2
    if (simd) {
        const __m128i space = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n');
        const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
        while (end - p >= 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, space), _mm_cmpeq_epi8(bytes, newline)),
                                      _mm_or_si128(_mm_cmpeq_epi8(bytes, cr), _mm_cmpeq_epi8(bytes, tab)));
            unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFFu;
            if (other != 0)
                return p + __builtin_ctz(other);
            p += 16;
        }
    }
#endif
    return skip_ws(p, end);
}

/* skip_ws in the main loop: no whitespace, or one space (compact model
 * output), settles without a call; indentation goes to skip_ws_run. */
PARSE_HOT const unsigned char *skip_ws_fast(bool simd, const unsigned char *p, const unsigned char *end)
{
    if (p < end && *p > ' ')
        return p;
    if (end - p >= 2 && *p == ' ' && p[1] > ' ')
        return p + 1;
    return skip_ws_run(simd, p, end);
}

#ifdef PARSE_SSE2
/* A bit per byte of `bytes` that ends a plain run inside a string: '"',
 * '\\', a control byte or a byte >= 0x80 (the signed compare below ' ' takes
 * both, bytes >= 0x80 being negative). */
static inline unsigned plain_stops(__m128i bytes)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' ');
    __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
                                 _mm_cmplt_epi8(bytes, space));
    return (unsigned)_mm_movemask_epi8(stops);
}
#endif

/* The first byte at or after q that ends a plain run of string bytes: '"',
 * '\\', a control byte (< 0x20) or a byte >= 0x80 (UTF-8, validated by the
 * caller); end when there is none. */
static inline const unsigned char *scan_plain(bool simd, const unsigned char *q, const unsigned char *end)
{
#ifdef PARSE_SSE2
    if (simd) {
        while (end - q >= 16) {
            unsigned mask = plain_stops(_mm_loadu_si128((const __m128i *)(const void *)q));
            if (mask != 0)
                return q + __builtin_ctz(mask);
            q += 16;
        }
    }
#endif
    while (end - q >= 8) {
        uint64_t word = gt_swar_load(q);
        uint64_t stops = gt_swar_string_stops(word) | (word & GT_SWAR_HIGHS);
        if (stops != 0)
            return q + gt_swar_first(stops);
        q += 8;
    }
    while (q < end && *q >= 0x20 && *q != '"' && *q != '\\' && *q < 0x80)
        q++;
    return q;
}

/* Copy `n` bytes of a string: two overlapping 16-byte moves up to 32 bytes
 * (most strings of model output), gt_swar_copy's words or memcpy otherwise. */
static inline void copy_bytes(unsigned char *dst, const unsigned char *src, size_t n)
{
#ifdef PARSE_SSE2
    if (n >= 16 && n <= 32) {
        __m128i head = _mm_loadu_si128((const __m128i *)(const void *)src);
        __m128i tail = _mm_loadu_si128((const __m128i *)(const void *)(src + n - 16));
        _mm_storeu_si128((__m128i *)(void *)dst, head);
        _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), tail);
        return;
    }
#endif
    gt_swar_copy(dst, src, n);
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

/* A byte that ended a plain run inside a string at q (not the closing
 * quote): step over an escape (decoded later) or a run of well-formed UTF-8
 * sequences. Returns where the scan goes on; NULL after a recorded failure. */
static const unsigned char *string_stop(parser *ps, const unsigned char *q, bool *escaped)
{
    const unsigned char *end = ps->end;
    unsigned char c = *q;
    if (c == '\\') {
        *escaped = true;
        q += 2;
        if (q > end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        return q;
    }
    if (c < 0x20)
        return fail_at(ps, GT_SYNTAX_CONTROL_CHARACTER, q,
                       c == '\n' ? "raw newline in a string (must be escaped as \\n)" : NULL);
    do {
        size_t n = utf8_sequence(q, end);
        if (n == 0) {
            /* A multi-byte sequence cut by the end of input is a truncation. */
            c = *q;
            size_t avail = (size_t)(end - q);
            bool cut = avail < 4 && c >= 0xC2 && c <= 0xF4;
            for (size_t i = 1; cut && i < avail; i++)
                cut = (q[i] & 0xC0) == 0x80;
            if (cut && avail < (c >= 0xF0 ? 4u : c >= 0xE0 ? 3u : 2u))
                return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
            return fail_at(ps, GT_SYNTAX_INVALID_UTF8, q, NULL);
        }
        q += n;
    } while (q < end && *q >= 0x80); /* text in other scripts: one sequence after another */
    return q;
}

/* Decode the escapes of the string body begin..close (close: its closing
 * quote) into out (never longer than the body). Returns the decoded length,
 * or (size_t)-1 after a recorded failure. */
static size_t unescape(parser *ps, const unsigned char *begin, const unsigned char *close, unsigned char *out)
{
    const unsigned char *r = begin;
    unsigned char *w = out;
    while (r < close) {
        const unsigned char *slash = memchr(r, '\\', (size_t)(close - r));
        size_t run = slash != NULL ? (size_t)(slash - r) : (size_t)(close - r);
        memcpy(w, r, run);
        w += run;
        r += run;
        if (slash == NULL)
            break;
        size_t produced = 0;
        size_t used = decode_escape(ps, r, w, &produced);
        if (used == 0)
            return (size_t)-1;
        r += used;
        w += produced;
    }
    return (size_t)(w - out);
}

/* Parse the string whose opening quote is at `open`, its body plain (no
 * quote, backslash, control or non-ASCII byte) up to `q`. Its decoded bytes
 * go into one arena allocation after `prefix` bytes (room for the gt_value
 * of a string value, 0 for a member name), NUL-terminated. Returns the
 * allocation and sets *len_out (decoded length) and *next (the byte after
 * the closing quote); NULL after a recorded failure. */
static unsigned char *parse_string_from(parser *ps, const unsigned char *open, const unsigned char *q, size_t prefix,
                                        size_t *len_out, const unsigned char **next)
{
    const unsigned char *begin = open + 1, *end = ps->end;
    bool escaped = false;
    /* Pass 1: find the closing quote, validating raw bytes. */
    for (;;) {
        q = scan_plain(ps->simd, q, end);
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (*q == '"')
            break;
        if ((q = string_stop(ps, q, &escaped)) == NULL)
            return NULL;
    }
    size_t raw_len = (size_t)(q - begin);
    unsigned char *block = parse_alloc(ps, prefix + raw_len + 1);
    if (block == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, begin, NULL);
    unsigned char *out = block + prefix;
    size_t len = raw_len;
    if (!escaped)
        copy_bytes(out, begin, raw_len);
    else if ((len = unescape(ps, begin, q, out)) == (size_t)-1) /* pass 2: the escapes */
        return NULL;
    out[len] = '\0';
    *len_out = len;
    *next = q + 1;
    return block;
}

/* parse_string_from for a whole string. With the SIMD scans, the common
 * string (plain ASCII up to its closing quote) is scanned and copied in the
 * same 16-byte steps, straight into the free part of the arena block, and
 * allocated once its length is known; the rest (an escape, a control or
 * non-ASCII byte, the block or the input nearly used up) goes on in
 * parse_string_from from where the plain run stopped. */
PARSE_HOT unsigned char *parse_string(parser *ps, bool simd, const unsigned char *open, size_t prefix, size_t *len_out,
                                      const unsigned char **next)
{
    const unsigned char *begin = open + 1;
#ifdef PARSE_SSE2
    if (simd && ps->end - begin >= 16 && (size_t)(ps->bump_end - ps->bump) >= prefix + 16) {
        unsigned char *block = ps->bump, *out = block + prefix;
        /* the last 16-byte load inside the input, the last 16-byte store inside the block */
        const unsigned char *src = begin, *src_last = ps->end - 16;
        const unsigned char *out_last = ps->bump_end - 16;
        for (;;) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)src);
            _mm_storeu_si128((__m128i *)(void *)out, bytes);
            unsigned mask = plain_stops(bytes);
            if (mask != 0) {
                unsigned at = (unsigned)__builtin_ctz(mask);
                src += at;
                if (*src != '"')
                    return parse_string_from(ps, open, src, prefix, len_out, next);
                out += at;
                *out = '\0';
                size_t len = (size_t)(src - begin); /* prefix + len + 1 fits: out <= out_last */
                ps->bump += (prefix + len + 1 + PARSE_ALIGN - 1) & ~(size_t)(PARSE_ALIGN - 1);
                *len_out = len;
                *next = src + 1;
                return block;
            }
            src += 16;
            out += 16;
            if (src > src_last || out > out_last)
                return parse_string_from(ps, open, src, prefix, len_out, next);
        }
    }
#endif
    return parse_string_from(ps, open, begin, prefix, len_out, next);
}

/* ---- numbers ----------------------------------------------------------- */

/* The interoperable range (docs/reason-codes.md): every number whose
 * magnitude is at most 2^53-1 is accepted; beyond it only a number that a
 * double reproduces (its shortest round-trip decimal is the number as written:
 * 1E22, 123e45, 2^53) is, whatever the spelling, unless big numbers are kept
 * exactly. `number` is the literal's nearest double, |number| >= 2^53-1. */
static bool interoperable(parser *ps, gt_value *value, double number, const unsigned char *at)
{
    const char *text = value->u.num.text;
    size_t len = value->u.num.text_len;
    int cmp = 1;
    if (fabs(number) == GT_PARSE_MAX_SAFE_INTEGER &&
        gt_decimal_compare_text(text, len, GT_PARSE_MAX_SAFE_INTEGER_TEXT, sizeof GT_PARSE_MAX_SAFE_INTEGER_TEXT - 1, true, &cmp) != 0) {
        fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, at, NULL);
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
    fail_at(ps, compared ? GT_SYNTAX_NUMBER_PRECISION : GT_SYNTAX_OUT_OF_MEMORY, at,
            compared ? "beyond 2^53-1 a double cannot hold this number as written (it reads back as another number)" : NULL);
    return false;
}

static inline bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static const double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path: a literal of at most 19 digits whose digits make an
 * integer m <= 2^53 and whose decimal exponent e has |e| <= 22 is m * 10^e or
 * m / 10^-e, both operands exact doubles, so one IEEE operation rounds it
 * correctly: the same double strtod returns, without strtod's big-number
 * machinery. `p`..`end` is a literal parse_number has already checked.
 * False when the literal needs strtod. */
static bool fast_decimal(const unsigned char *p, const unsigned char *end, double *out)
{
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
    number = exponent < 0 ? number / powers_of_ten[-exponent] : number * powers_of_ten[exponent];
    *out = negative ? -number : number;
    return true;
}

/* The nearest double of a checked literal that needs more than the fast
 * paths (strtod on the value's NUL-terminated text), with the overflow,
 * underflow and interoperability checks. False after a recorded failure. */
PARSE_COLD bool slow_number(parser *ps, gt_value *value, const unsigned char *start, const unsigned char *q)
{
    double number = strtod(value->u.num.text, NULL);
    if (isinf(number) && ps->options.rfc8259) {
        value->flags |= GT_NUM_BIG; /* exact in text; beyond a double, so an integer */
        number = number < 0 ? -DBL_MAX : DBL_MAX;
    }
    if (isinf(number)) {
        fail_at(ps, GT_SYNTAX_NUMBER_OVERFLOW, start, NULL);
        return false;
    }
    if (number == 0.0 && !ps->options.rfc8259) {
        /* Non-zero digits that read as zero have underflowed. */
        const unsigned char *d = start;
        while (d < q && *d != 'e' && *d != 'E' && (*d < '1' || *d > '9'))
            d++;
        if (d < q && *d >= '1' && *d <= '9') {
            fail_at(ps, GT_SYNTAX_NUMBER_PRECISION, start, "number underflows to zero");
            return false;
        }
    }
    if (fabs(number) >= GT_PARSE_MAX_SAFE_INTEGER && !interoperable(ps, value, number, start))
        return false;
    value->u.num.number = number;
    return true;
}

/* Parse the number at `start` ('-' or a digit). One pass checks the grammar
 * and gathers the digits: a literal without exponent of at most 19 digits is
 * converted right here (Clinger's fast path with e = -fraction digits). Sets
 * *next past the literal; NULL after a recorded failure. */
PARSE_HOT gt_value *parse_number(parser *ps, const unsigned char *start, const unsigned char **next)
{
    const unsigned char *q = start, *end = ps->end;
    bool negative = *q == '-', integer = true, exponent = false;
    q += negative;
    if (q >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    const unsigned char *digits_start = q;
    uint64_t mantissa = 0; /* wraps beyond 19 digits: then unused */
    if (*q >= '1' && *q <= '9') {
        do
            mantissa = mantissa * 10 + (uint64_t)(*q++ - '0');
        while (q < end && is_digit(*q));
    } else if (*q == '0') {
        q++;
        if (q < end && is_digit(*q))
            return fail_at(ps, GT_SYNTAX_LEADING_ZERO, start, NULL);
        if (q < end && (*q == 'x' || *q == 'X'))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "hexadecimal numbers are not JSON");
    } else {
        if (word_is(q, end, "Infinity") || word_is(q, end, "NaN"))
            return fail_at(ps, GT_SYNTAX_NON_FINITE_NUMBER, start, NULL);
        return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, *q == '.' ? "a number needs a digit before '.'" : NULL);
    }
    size_t int_digits = (size_t)(q - digits_start), fraction_digits = 0;
    if (q < end && *q == '.') {
        integer = false;
        q++;
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (!is_digit(*q))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "a number needs a digit after '.'");
        const unsigned char *fraction = q;
        do
            mantissa = mantissa * 10 + (uint64_t)(*q++ - '0');
        while (q < end && is_digit(*q));
        fraction_digits = (size_t)(q - fraction);
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        integer = false;
        exponent = true;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (!is_digit(*q))
            return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, "an exponent needs digits");
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && (is_word_char(*q) || *q == '.'))
        return fail_at(ps, GT_SYNTAX_BAD_NUMBER, start, NULL);

    size_t text_len = (size_t)(q - start);
    gt_value *value = parse_alloc(ps, sizeof *value + text_len + 1);
    if (value == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, start, NULL);
    char *text = (char *)(value + 1);
    copy_bytes((unsigned char *)text, start, text_len);
    text[text_len] = '\0';
    value->type = GT_NUMBER;
    value->flags = integer ? GT_NUM_INTEGER_LITERAL : 0;
    value->offset = (size_t)(start - ps->start);
    value->u.num.text = text;
    value->u.num.text_len = text_len;
    *next = q;

    double number;
    if (integer && int_digits <= 15) {
        /* Exact and fast: at most 15 digits fit a double without rounding. */
        number = negative ? -(double)mantissa : (double)mantissa;
    } else if (!exponent && int_digits + fraction_digits <= 19 && mantissa <= (1ull << 53) && fraction_digits <= 22) {
        number = (double)mantissa / powers_of_ten[fraction_digits]; /* = fast_decimal's m * 10^-f */
        number = negative ? -number : number;
        if (fabs(number) >= GT_PARSE_MAX_SAFE_INTEGER)
            return slow_number(ps, value, start, q) ? value : NULL;
    } else if (!exponent || !fast_decimal(start, q, &number) || fabs(number) >= GT_PARSE_MAX_SAFE_INTEGER) {
        return slow_number(ps, value, start, q) ? value : NULL;
    }
    value->u.num.number = number;
    return value;
}

/* ---- classification of a misplaced byte -------------------------------- */

typedef enum { AT_VALUE, AT_KEY, AT_TOP } position;

/* Why is the byte at p not the start of a value (or key)? */
PARSE_COLD void *fail_unexpected(parser *ps, const unsigned char *p, position where)
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

PARSE_HOT bool push_frame(parser *ps, gt_value *container)
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

PARSE_HOT bool push_item(parser *ps, gt_value *item)
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

PARSE_HOT gt_member *push_member(parser *ps)
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

/* Names of different lengths or first bytes cannot repeat one another: a
 * bit per (length, first byte) bucket, and only an object where two names
 * share a bucket is compared name by name. */
static inline bool names_surely_distinct(const gt_member *members, size_t count)
{
    uint64_t seen[2] = {0, 0}, clash = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned bucket = (unsigned)(members[i].key_len * 8 + (unsigned char)members[i].key[0]) & 127u;
        uint64_t bit = 1ull << (bucket & 63u);
        clash |= seen[bucket >> 6] & bit;
        seen[bucket >> 6] |= bit;
    }
    return clash == 0;
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
        if (count >= 4 && names_surely_distinct(members, count))
            return true;
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

/* Close the innermost container, an array: move its items into the arena. */
PARSE_HOT gt_value *close_array(parser *ps)
{
    frame *top = &ps->frames[--ps->depth];
    gt_value *container = top->container;
    size_t count = ps->items_len - top->first;
    gt_value **items = NULL;
    if (count > 0) {
        items = parse_alloc(ps, count * sizeof *items);
        if (items == NULL)
            return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
        memcpy(items, ps->items + top->first, count * sizeof *items);
    }
    container->u.arr.items = items;
    container->u.arr.count = count;
    ps->items_len = top->first;
    return container;
}

/* Close the innermost container, an object: check its member names, move
 * its members into the arena. */
static gt_value *close_object(parser *ps)
{
    frame *top = &ps->frames[--ps->depth];
    gt_value *container = top->container;
    size_t count = ps->members_len - top->first;
    gt_member *members = NULL;
    if (count > 0) {
        if (!check_duplicates(ps, ps->members + top->first, &count))
            return NULL;
        members = parse_alloc(ps, count * sizeof *members);
        if (members == NULL)
            return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, ps->p, NULL);
        memcpy(members, ps->members + top->first, count * sizeof *members);
    }
    container->u.obj.members = members;
    container->u.obj.count = count;
    ps->members_len = top->first;
    return container;
}

static inline gt_value *new_value(parser *ps, gt_type type, const unsigned char *at)
{
    gt_value *value = parse_alloc(ps, sizeof *value);
    if (value == NULL)
        return fail_at(ps, GT_SYNTAX_OUT_OF_MEMORY, at, NULL);
    memset(value, 0, sizeof *value);
    value->type = type;
    value->offset = (size_t)(at - ps->start);
    return value;
}

/* Are the bytes at p `word` (4 or 5 bytes: true, null, false), not followed
 * by a word character? The common case of word_is in one compare. */
static inline bool literal_is(const unsigned char *p, const unsigned char *end, const char *word, size_t n)
{
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 && (p + n == end || !is_word_char(p[n]));
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

/* What may follow a value inside a container went wrong at p (not ',' and
 * not the container's closer): classify it. */
PARSE_COLD void *fail_after_value(parser *ps, const unsigned char *p, bool in_array)
{
    if (*p == '/')
        return fail_at(ps, GT_SYNTAX_COMMENT, p, NULL);
    if (*p == ']' || *p == '}')
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, in_array ? "expected ',' or ']'" : "expected ',' or '}'");
    if (*p >= 0x80 && utf8_sequence(p, ps->end) == 0)
        return fail_at(ps, GT_SYNTAX_INVALID_UTF8, p, NULL);
    return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p,
                   in_array ? "expected ',' or ']' after an array element" : "expected ',' or '}' after a member");
}

/* A value or member name that may not start at p (']' or '}') right after
 * a ',' is a trailing comma, reported at the comma: look back over the
 * whitespace (only on this failure path). */
static const unsigned char *comma_before(const parser *ps, const unsigned char *p)
{
    if (*p != ']' && *p != '}')
        return NULL;
    while (p > ps->start && is_ws(p[-1]))
        p--;
    return p > ps->start && p[-1] == ',' ? p - 1 : NULL;
}

/* A byte that cannot start a value (or a member name): classify it. */
PARSE_COLD void *fail_start(parser *ps, const unsigned char *p, position where)
{
    const unsigned char *comma = where == AT_TOP ? NULL : comma_before(ps, p);
    if (comma != NULL)
        return fail_at(ps, GT_SYNTAX_TRAILING_COMMA, comma, NULL);
    return fail_unexpected(ps, p, where);
}

/* Parse the string, number or literal at p (not whitespace, not the end,
 * not '{' or '['); *next: the byte after it. NULL after a recorded failure. */
PARSE_HOT gt_value *parse_scalar(parser *ps, bool simd, const unsigned char *p, position where,
                                 const unsigned char **next)
{
    const unsigned char *end = ps->end;
    gt_value *value;
    if (*p == '"') { /* the most common value first, without the switch's indirect jump */
        size_t len;
        unsigned char *block = parse_string(ps, simd, p, sizeof(gt_value), &len, next);
        if (block == NULL)
            return NULL;
        value = (gt_value *)(void *)block;
        value->type = GT_STRING;
        value->flags = 0;
        value->offset = (size_t)(p - ps->start);
        value->u.num.text_len = 0; /* the union's word that str does not use */
        value->u.str.chars = (const char *)(block + sizeof(gt_value));
        value->u.str.len = len;
        return value;
    }
    switch (*p) {
    case 't':
        if (!literal_is(p, end, "true", 4))
            break;
        *next = p + 4;
        return new_value(ps, GT_TRUE, p);
    case 'f':
        if (!literal_is(p, end, "false", 5))
            break;
        *next = p + 5;
        return new_value(ps, GT_FALSE, p);
    case 'n':
        if (!literal_is(p, end, "null", 4))
            break;
        *next = p + 4;
        return new_value(ps, GT_NULL, p);
    default:
        if (*p == '-' || is_digit(*p))
            return parse_number(ps, p, next);
        return fail_start(ps, p, where);
    }
    /* t, f or n that does not spell its literal */
    const char *word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t n = *p == 'f' ? 5 : 4, avail = (size_t)(end - p);
    if (avail < n && memcmp(p, word, avail) == 0)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    return fail_unexpected(ps, p, where);
}

/* The whole document: one loop over values, member names and what follows
 * each, the cursor in a local; the states are labels, the open containers
 * the explicit frame stack. A value is attached to its container when it is
 * created (a container before its children), so closing one needs no
 * look-up of its parent's kind but one. */
PARSE_HOT gt_value *parse_document(parser *ps, const bool simd)
{
    const unsigned char *p = skip_ws(ps->p, ps->end), *const end = ps->end;
    gt_value *value;
    bool in_array = false;    /* the innermost open container is an array */
    gt_member *member = NULL; /* else: its last member, whose value comes next */
    if (p >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    if (*p != '{' && *p != '[') {
        value = parse_scalar(ps, simd, p, AT_TOP, &p);
        goto top_completed;
    }
    goto open;

parse_value:
    p = skip_ws_fast(simd, p, end);
parse_value_here: /* p: not whitespace */
    if (p >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    if (*p != '"' && (*p == '{' || *p == '[')) {
open:
        value = new_value(ps, *p == '{' ? GT_OBJECT : GT_ARRAY, p);
        if (value == NULL)
            return NULL;
        ps->p = p;
        if (ps->depth > 0) {
            if (in_array) {
                if (!push_item(ps, value))
                    return NULL;
            } else {
                member->value = value;
            }
        }
        if (!push_frame(ps, value))
            return NULL;
        in_array = *p == '[';
        p = skip_ws_fast(simd, p + 1, end);
        if (p >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (*p == (in_array ? ']' : '}')) {
            p++;
            goto close;
        }
        if (*p == ',')
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, NULL);
        if (in_array)
            goto parse_value_here;
        goto parse_key;
    }
    value = parse_scalar(ps, simd, p, AT_VALUE, &p);
    if (value == NULL)
        return NULL;
    if (in_array) {
        ps->p = p;
        if (!push_item(ps, value))
            return NULL;
    } else {
        member->value = value;
    }

after_value:
    p = skip_ws_fast(simd, p, end);
    if (p >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    if (*p == ',') {
        p = skip_ws_fast(simd, p + 1, end);
        if (in_array)
            goto parse_value_here;
        goto parse_key;
    }
    if (*p == (in_array ? ']' : '}')) {
        p++;
        goto close;
    }
    return fail_after_value(ps, p, in_array);

parse_key:
    /* p: the first byte after '{' or ',' that is not whitespace */
    if (p >= end)
        return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
    if (*p != '"')
        return fail_start(ps, p, AT_KEY);
    {
        ps->p = p;
        if ((member = push_member(ps)) == NULL)
            return NULL;
        size_t key_len;
        const unsigned char *next;
        const unsigned char *key = parse_string(ps, simd, p, 0, &key_len, &next);
        if (key == NULL)
            return NULL;
        member->key = (const char *)key;
        member->key_len = key_len;
        member->key_offset = (size_t)(p - ps->start);
        member->value = NULL;
        if (next < end && *next == ':') { /* "name": the common spelling */
            p = next + 1;
            goto parse_value;
        }
        p = skip_ws_fast(simd, next, end);
        if (p >= end)
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_END, end, NULL);
        if (*p != ':')
            return fail_at(ps, GT_SYNTAX_UNEXPECTED_CHARACTER, p, "expected ':' after the member name");
        p++;
        goto parse_value;
    }

close:
    ps->p = p;
    value = in_array ? close_array(ps) : close_object(ps);
    if (value == NULL)
        return NULL;
    if (ps->depth > 0) {
        in_array = ps->frames[ps->depth - 1].container->type == GT_ARRAY;
        if (!in_array)
            member = &ps->members[ps->members_len - 1];
        goto after_value;
    }
top_completed:
    if (value == NULL)
        return NULL;
    ps->p = p;
    check_trailing(ps);
    return ps->failed ? NULL : value;
}

static gt_value *parse_document_simd(parser *ps)
{
    return parse_document(ps, true);
}

static gt_value *parse_document_portable(parser *ps)
{
    return parse_document(ps, false);
}

bool gt_parse_simd_built(void)
{
#ifdef PARSE_SSE2
    return true;
#else
    return false;
#endif
}

gt_value *gt_parse(gt_arena *arena, const char *text, size_t len, const gt_parse_options *options,
                   gt_parse_error *error)
{
    return gt_parse_with_scan(arena, text, len, options, error, GT_PARSE_SCAN_DEFAULT);
}

gt_value *gt_parse_with_scan(gt_arena *arena, const char *text, size_t len, const gt_parse_options *options,
                             gt_parse_error *error, gt_parse_scan scan)
{
    parser ps;
    frame local_frames[PARSE_LOCAL_FRAMES];
    gt_value *local_items[PARSE_LOCAL_ITEMS];
    gt_member local_members[PARSE_LOCAL_MEMBERS];
    memset(&ps, 0, sizeof ps);
    ps.frames = local_frames, ps.frames_cap = PARSE_LOCAL_FRAMES;
    ps.items = local_items, ps.items_cap = PARSE_LOCAL_ITEMS;
    ps.members = local_members, ps.members_cap = PARSE_LOCAL_MEMBERS;
    ps.simd = scan != GT_PARSE_SCAN_PORTABLE && gt_parse_simd_built();
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
    bump_load(&ps);
    /* one copy of the main loop per scan, the choice made once */
    gt_value *root = ps.simd ? parse_document_simd(&ps) : parse_document_portable(&ps);
    bump_sync(&ps);
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
