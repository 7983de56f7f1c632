/* wire.h — what is sent to the provider: strict conversion, SDK transform, lint.
 *
 * Three pure functions over a schema value (docs/wire.md is the reference):
 *   - gt_wire_strict: the strict-subset conversion of seed 000 (Claude Code's
 *     jZo): a normalised copy of the schema, or the fallback reason and the
 *     schema location that stops it (the caller then keeps the original).
 *   - gt_wire_transform: the SDK-style transform of seed 004 (anthropic-sdk
 *     transform_schema / transformJSONSchema): unsupported constraints move
 *     into `description`, objects are closed; it only loosens, except for the
 *     closing of objects, and validation always uses the original.
 *   - gt_wire_lint: predicts what a provider rejects (400s and complexity
 *     limits), with a finding code and a schema location each.
 * Not for: validating instances (schema.h) or sending requests. No global
 * state: every call works on what it is given. */
#ifndef GAUNTLET_WIRE_H
#define GAUNTLET_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/limits.h"
#include "gauntlet/value.h"

/* ---- limits (each with its source) ---------------------------------------
 * Strict conversion: GT_STRICT_MAX_DEPTH (32) and GT_STRICT_MAX_NODES (100,000)
 * in limits.h, seed 000. */

/* Anthropic, per request, summed over every strict tool plus the
 * output_config.format schema (platform.claude.com structured-outputs docs,
 * "Schema complexity limits"; research/structured-outputs.md fact 11). */
#define GT_WIRE_ANTHROPIC_MAX_STRICT_TOOLS 20u
#define GT_WIRE_ANTHROPIC_MAX_OPTIONAL_PARAMS 24u
#define GT_WIRE_ANTHROPIC_MAX_UNION_PARAMS 16u
/* Anthropic `pattern`: "large {n,m}" is unsupported but the docs give no
 * number. gauntlet's assumption: a bound above 100 is large. */
#define GT_WIRE_ANTHROPIC_PATTERN_MAX_REPEAT 100u

/* OpenAI strict mode (platform.openai.com/docs/guides/structured-outputs,
 * "Objects have limitations on nesting depth and size"; current values, the
 * old ones were 100 / 5 / 15,000 / 500 / 7,500). */
#define GT_WIRE_OPENAI_MAX_PROPERTIES 5000u
#define GT_WIRE_OPENAI_MAX_NESTING 10u
#define GT_WIRE_OPENAI_MAX_ENUM_VALUES 1000u
#define GT_WIRE_OPENAI_MAX_TOTAL_CHARS 120000u
#define GT_WIRE_OPENAI_LARGE_ENUM_VALUES 250u  /* a string enum with more values than this ... */
#define GT_WIRE_OPENAI_LARGE_ENUM_CHARS 15000u /* ... may total at most this many characters */

/* gauntlet's own guard: transform and lint recurse over the schema; beyond
 * this nesting they stop with transform_too_deep / lint_too_deep instead of
 * risking the stack. Far above anything a provider accepts (OpenAI: 10). */
#define GT_WIRE_MAX_DEPTH 512u

/* ---- results --------------------------------------------------------------- */

/* Return values of gt_wire_strict and gt_wire_transform. */
#define GT_WIRE_OK 0           /* converted: *out is set */
#define GT_WIRE_REJECTED 1     /* a fallback (strict) or a transform error: `problem` says why and where */
#define GT_WIRE_OUT_OF_MEMORY (-1)

/* Why a conversion stopped: a stable snake_case code (docs/wire.md lists
 * every one), the schema location as a JSON Pointer ("" is the root) and one
 * human line. */
typedef struct gt_wire_problem {
    const char *code; /* static string, e.g. "strict_tuple_items" */
    char location[512];
    char message[256];
} gt_wire_problem;

/* ---- strict conversion (seed 000) ---------------------------------------- */

/* Convert `schema` to the strict wire subset. Returns GT_WIRE_OK with *out
 * (built in `arena`; it may share leaf values such as enum arrays with
 * `schema`, so keep `schema`'s arena alive as long as *out), GT_WIRE_REJECTED
 * with `problem` filled (the fallback: the caller keeps the original schema
 * and local validation), or GT_WIRE_OUT_OF_MEMORY. */
int gt_wire_strict(gt_arena *arena, const gt_value *schema, gt_value **out, gt_wire_problem *problem);

/* The seed-000 (jZo) telemetry reason a gauntlet fallback code maps to
 * ("strict_tuple_items" -> "unsupported_items"); NULL for an unknown code. */
const char *gt_wire_strict_jzo_reason(const char *code);

/* ---- SDK transform (seed 004) -------------------------------------------- */

/* How leftover keyword values are written into the description. */
typedef enum gt_wire_flavor {
    GT_WIRE_FLAVOR_PYTHON = 0, /* like Python str(): {maximum: 150, default: ['x', True, None]} */
    GT_WIRE_FLAVOR_TYPESCRIPT  /* like JSON.stringify: {maximum: 150, default: ["x",true,null]} */
} gt_wire_flavor;

/* "python" / "typescript" -> flavor; -1 when unknown. */
int gt_wire_flavor_from_name(const char *name);

/* Transform `schema` the way the SDKs do before sending it. Returns GT_WIRE_OK
 * with *out (in `arena`, may share leaves with `schema`), GT_WIRE_REJECTED
 * with `problem` (a node with neither type nor combinator, a dangling,
 * external or recursive $ref, ...), or GT_WIRE_OUT_OF_MEMORY. */
int gt_wire_transform(gt_arena *arena, const gt_value *schema, gt_wire_flavor flavor, gt_value **out,
                      gt_wire_problem *problem);

/* One value as the flavor writes it into a description (top level: Python
 * str(), so a string is bare; nested values use repr()). Returns a malloc'd
 * string (caller frees), or NULL when out of memory. */
char *gt_wire_render_value(const gt_value *value, gt_wire_flavor flavor);

/* ---- provider lint ---------------------------------------------------------- */

typedef enum gt_wire_provider { GT_WIRE_PROVIDER_ANTHROPIC = 0, GT_WIRE_PROVIDER_OPENAI } gt_wire_provider;

/* "anthropic" / "openai" -> provider; -1 when unknown. */
int gt_wire_provider_from_name(const char *name);

typedef struct gt_wire_lint_options {
    gt_wire_provider provider; /* default anthropic */
    size_t strict_tools;       /* strict tools in the request; 0 = one per schema given */
    /* Anthropic request features (seed 004: "citations with output_config.format
     * is a 400, and message prefill cannot be used"): */
    bool output_format;        /* a schema goes out as output_config.format (JSON outputs) */
    bool citations;            /* the request enables citations */
    bool prefill;              /* the request ends with a prefilled assistant message */
} gt_wire_lint_options;

/* Request-level findings (budgets) carry this schema index. */
#define GT_WIRE_REQUEST ((size_t)-1)

typedef struct gt_wire_finding {
    const char *code;    /* static, e.g. "anthropic_numeric_bound" */
    size_t schema_index; /* which schema, or GT_WIRE_REQUEST for a per-request budget */
    char *location;      /* JSON Pointer inside that schema ("" for budgets) */
    char *message;
} gt_wire_finding;

typedef struct gt_wire_findings {
    gt_wire_finding *items;
    size_t count;
    size_t capacity;
} gt_wire_findings;

void gt_wire_lint_options_init(gt_wire_lint_options *options);

/* Lint `count` schemas sent in one request. Findings are appended to
 * `findings` (initialise with {0}; release with gt_wire_findings_free): per
 * schema in order, its keyword findings in document order then its $ref
 * findings; the request budgets last. Returns 0 when clean, 1 when there are
 * findings, -1 when out of memory. */
int gt_wire_lint(const gt_value *const *schemas, size_t count, const gt_wire_lint_options *options,
                 gt_wire_findings *findings);

void gt_wire_findings_free(gt_wire_findings *findings);

/* ---- what the provider caches (wire_cache.c) ------------------------------ */

/* The grammar-cache identity of a schema (seed 004: a compiled grammar is
 * cached per schema structure; changing only name or description keeps it):
 * 16 hex digits of FNV-1a over the schema with every `description`
 * annotation left out, member order kept. Two schemas share a cached grammar
 * exactly when their keys are equal. Writes out[17]; returns 0, or -1 when
 * out of memory. */
int gt_wire_grammar_key(const gt_value *schema, char out[17]);

/* What kind of value must not go into a cached schema (seed 004: no PHI or
 * secrets in property names, enum/const values or patterns): "a credential"
 * (sk-, AKIA, ghp_, xoxb-, a JWT, a PEM block), "an e-mail address", "a social
 * security number", "a payment card number" (Luhn), or NULL. The Anthropic
 * lint reports each as anthropic_sensitive_value. */
const char *gt_wire_sensitive_kind(const char *text, size_t len);

#endif
