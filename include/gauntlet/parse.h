/* parse.h — gate 1, syntax: is this exactly one JSON value, byte for byte?
 *
 * Accepts exactly the texts of RFC 8259 and, by default, follows I-JSON
 * (RFC 7493) where RFC 8259 leaves room. Nothing is repaired or stripped: a
 * Markdown fence, prose around the value, a BOM or a second value is a
 * rejection with a reason code, never something the gate "helpfully" removes.
 * Not for: schema checks (schema.h) or lenient parsing of any kind. */
#ifndef GAUNTLET_PARSE_H
#define GAUNTLET_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/limits.h"
#include "gauntlet/value.h"

/* Reason codes of the syntax gate (docs/reason-codes.md lists each with an
 * example). Stable strings: reports and corpus files use them. */
typedef enum gt_syntax_reason {
    GT_SYNTAX_OK = 0,
    GT_SYNTAX_EMPTY_INPUT,        /* "empty_input": nothing but whitespace */
    GT_SYNTAX_BOM,                /* "bom": starts with a byte order mark */
    GT_SYNTAX_MARKDOWN_FENCE,     /* "markdown_fence": ``` around or beside the value */
    GT_SYNTAX_LEADING_TEXT,       /* "leading_text": prose before the value */
    GT_SYNTAX_TRAILING_TEXT,      /* "trailing_text": prose after the value */
    GT_SYNTAX_MULTIPLE_VALUES,    /* "multiple_values": a second JSON value follows */
    GT_SYNTAX_DUPLICATE_KEY,      /* "duplicate_key": a member name repeats (after unescaping) */
    GT_SYNTAX_INVALID_UTF8,       /* "invalid_utf8": ill-formed, overlong or surrogate-encoding UTF-8 */
    GT_SYNTAX_LONE_SURROGATE,     /* "lone_surrogate": \uD800-\uDFFF escape without its pair */
    GT_SYNTAX_NUL_CHARACTER,      /* "nul_character": \u0000 in a string, only under the reject_nul policy */
    GT_SYNTAX_COMMENT,            /* "comment": // or block comment */
    GT_SYNTAX_TRAILING_COMMA,     /* "trailing_comma": , before } or ] */
    GT_SYNTAX_SINGLE_QUOTES,      /* "single_quotes": 'string' */
    GT_SYNTAX_UNQUOTED_KEY,       /* "unquoted_key": {key: 1} */
    GT_SYNTAX_NON_FINITE_NUMBER,  /* "non_finite_number": NaN, Infinity, -Infinity */
    GT_SYNTAX_LEADING_ZERO,       /* "leading_zero": 01, -007 */
    GT_SYNTAX_BAD_NUMBER,         /* "bad_number": 1., .5, +1, 1e, 0x10, - */
    GT_SYNTAX_NUMBER_OVERFLOW,    /* "number_overflow": magnitude beyond a double (1e999) */
    GT_SYNTAX_NUMBER_PRECISION,   /* "number_precision": integer beyond 2^53, or non-zero literal that underflows to 0 */
    GT_SYNTAX_BAD_ESCAPE,         /* "bad_escape": \x, \', \u12 */
    GT_SYNTAX_CONTROL_CHARACTER,  /* "control_character": raw byte < 0x20 inside a string */
    GT_SYNTAX_BAD_LITERAL,        /* "bad_literal": True, nul, undefined, None */
    GT_SYNTAX_UNEXPECTED_CHARACTER, /* "unexpected_character": any other misplaced byte */
    GT_SYNTAX_UNEXPECTED_END,     /* "unexpected_end": input ends inside the value (truncated) */
    GT_SYNTAX_TOO_DEEP,           /* "too_deep": nesting over max_depth */
    GT_SYNTAX_TOO_LARGE,          /* "too_large": input over max_bytes */
    GT_SYNTAX_OUT_OF_MEMORY,      /* "out_of_memory": allocation failed */
    GT_SYNTAX_REASON_COUNT
} gt_syntax_reason;

typedef struct gt_parse_options {
    size_t max_depth;        /* arrays+objects open at once; 0 = GT_PARSE_DEFAULT_MAX_DEPTH */
    size_t max_bytes;        /* 0 = GT_PARSE_DEFAULT_MAX_BYTES */
    bool reject_nul;         /* policy: reject \u0000 (nul_character) for consumers that use C strings;
                              * by default it is kept exactly (strings carry lengths), as RFC 8259 allows */
    bool allow_big_integers; /* keep numbers beyond 2^53-1 exactly (GT_NUM_BIG) even when a double cannot
                              * hold them as written, instead of rejecting (number_precision) */
    /* Accept every JSON text RFC 8259 allows and limit only depth and size:
     * for protocol framing (adapter replies), never for model output. Implies
     * allow_big_integers and ignores reject_nul; a lone surrogate escape decodes to
     * U+FFFD (as Go's encoding/json does); a number beyond a double keeps its
     * exact literal in `text` (overflow: GT_NUM_BIG, number +-DBL_MAX;
     * underflow: number 0); a repeated member name replaces the earlier
     * value in the earlier position (the last wins, as in JavaScript and
     * Python). A BOM is still rejected (RFC 8259 §8.1: not part of the text). */
    bool rfc8259;
} gt_parse_options;

/* Where and why the gate rejected. `message` is one human line; `excerpt` shows
 * the bytes around `offset` with invisible bytes escaped (\n, \x00, \u00a0...). */
typedef struct gt_parse_error {
    gt_syntax_reason reason;
    size_t offset;    /* byte offset of the offending byte */
    unsigned line;    /* 1-based */
    unsigned column;  /* 1-based, counted in code points */
    char message[160];
    char excerpt[96];
} gt_parse_error;

/* Fill `options` with the defaults. */
void gt_parse_options_init(gt_parse_options *options);

/* Parse `len` bytes of `text` as exactly one JSON value. On success returns the
 * root value, allocated in `arena` (freed with it), and leaves `error` with
 * reason GT_SYNTAX_OK. On rejection returns NULL and fills `error` (never NULL
 * on return of NULL). `options` may be NULL for defaults. `text` need not be
 * NUL-terminated and is not retained. */
gt_value *gt_parse(gt_arena *arena, const char *text, size_t len, const gt_parse_options *options,
                   gt_parse_error *error);

/* True when `len` bytes are well-formed UTF-8 (no overlong forms, no encoded
 * surrogates, nothing beyond U+10FFFF). */
bool gt_utf8_valid(const char *text, size_t len);

/* Stable snake_case code of a reason ("markdown_fence"). */
const char *gt_syntax_reason_code(gt_syntax_reason reason);

/* Reason for a code string, or -1 when unknown (used by the corpus loader). */
int gt_syntax_reason_from_code(const char *code);

#endif
