/* schema.h — gate 2, structure: does the value satisfy the JSON Schema?
 *
 * A complete JSON Schema validator for drafts 4, 6, 7, 2019-09 and 2020-12.
 * A schema is compiled once (checked against its dialect's metaschema, size
 * guarded, every $ref pre-resolved, every pattern precompiled) into an
 * immutable gt_schema that any number of threads may validate with at once.
 * Validation never coerces ("4" is not 4, true is not 1) and reports every
 * error, in a deterministic order, with instance and keyword locations and a
 * message that states the constraint. docs/structure-gate.md is the reference.
 * Not for: parsing model output (parse.h) or semantic/policy rules. */
#ifndef GAUNTLET_SCHEMA_H
#define GAUNTLET_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/limits.h"
#include "gauntlet/value.h"

/* Dialects, picked by the root's `$schema`; the default applies without one. */
typedef enum gt_schema_dialect {
    GT_SCHEMA_DRAFT2020_12 = 0,
    GT_SCHEMA_DRAFT2019_09,
    GT_SCHEMA_DRAFT7,
    GT_SCHEMA_DRAFT6,
    GT_SCHEMA_DRAFT4,
    GT_SCHEMA_DIALECT_COUNT
} gt_schema_dialect;

/* Why a schema could not be compiled. Stable snake_case codes via
 * gt_schema_problem_code_str ("schema_bad_pattern"); reports use them as the
 * structure gate's reason when the contract itself is broken. */
typedef enum gt_schema_problem_code {
    GT_SCHEMA_PROBLEM_NONE = 0,
    GT_SCHEMA_PROBLEM_SYNTAX,          /* "schema_syntax": the schema text is not one JSON value */
    GT_SCHEMA_PROBLEM_NOT_OBJECT,      /* "schema_not_object": root is neither an object nor a boolean */
    GT_SCHEMA_PROBLEM_TOO_MANY_NODES,  /* "schema_too_many_nodes": more JSON values than max_nodes */
    GT_SCHEMA_PROBLEM_TOO_DEEP,        /* "schema_too_deep": nesting deeper than max_depth */
    GT_SCHEMA_PROBLEM_UNKNOWN_DIALECT, /* "schema_unknown_dialect": `$schema` names no known or loadable metaschema */
    GT_SCHEMA_PROBLEM_INVALID,         /* "schema_invalid": fails its dialect's metaschema */
    GT_SCHEMA_PROBLEM_BAD_PATTERN,     /* "schema_bad_pattern": `pattern`/`patternProperties` is not an ECMA-262 regex we can compile */
    GT_SCHEMA_PROBLEM_UNRESOLVED_REF,  /* "schema_unresolved_ref": a reference names nothing that exists locally */
    GT_SCHEMA_PROBLEM_REF_CYCLE,       /* "schema_ref_cycle": references loop without descending into the instance */
    GT_SCHEMA_PROBLEM_OUT_OF_MEMORY,   /* "schema_out_of_memory" */
    GT_SCHEMA_PROBLEM_INTERNAL,        /* "schema_internal": the compiler broke one of its own invariants (a gauntlet bug) */
    GT_SCHEMA_PROBLEM_COUNT
} gt_schema_problem_code;

/* A compile failure: code, the schema location it concerns (JSON Pointer into
 * the schema, "" for the root; "<uri>#<pointer>" for another document) and one
 * human line. */
typedef struct gt_schema_problem {
    gt_schema_problem_code code;
    char location[256];
    char message[256];
} gt_schema_problem;

/* Schema documents that references may name, registered ahead of compilation
 * (schema_registry.c). Nothing is ever fetched from the network: a reference
 * to another document resolves to a registered one, an embedded metaschema or
 * the remotes directory, or it is schema_unresolved_ref. Immutable once
 * built; any number of compilations (and threads) may share one. */
typedef struct gt_schema_registry gt_schema_registry;

typedef struct gt_schema_options {
    gt_schema_dialect default_dialect; /* when the root has no `$schema` (default 2020-12) */
    bool assert_formats;               /* `format` asserts (default: annotation only) */
    bool skip_metaschema;              /* trust the schema: do not check it against its metaschema */
    const char *remotes_dir;           /* local directory that stands in for remotes_base, or NULL */
    const char *remotes_base;          /* URI prefix mapped onto remotes_dir; NULL = "http://localhost:1234/" */
    const gt_schema_registry *registry; /* documents `$ref` may name by URI, or NULL */
    const char *base_uri;              /* retrieval URI of the schema (its file:// URI), against which its
                                        * relative `$id`/`$ref` resolve; NULL = "https://gauntlet.invalid/schema.json" */
    size_t max_nodes;                  /* 0 = GT_SCHEMA_MAX_NODES */
    size_t max_depth;                  /* 0 = GT_SCHEMA_MAX_DEPTH */
    size_t max_stack;                  /* bytes of stack one validation may use; 0 = 6 MiB (Linux threads get 8) */
    size_t max_evaluations;            /* subschema evaluations one validation may make; 0 = GT_SCHEMA_MAX_EVALUATIONS */
} gt_schema_options;

typedef struct gt_schema gt_schema;

/* One validation error. All strings are owned by the gt_schema_errors list. */
typedef struct gt_schema_error {
    const char *instance_path;        /* JSON Pointer: "" root, "/items/0/name" */
    const char *instance_path_dollar; /* "$", "$.items[0].name", "$[\"odd key\"]" */
    const char *keyword_location;     /* static location of the failing keyword: "/properties/priority/type" */
    const char *keyword;              /* "type", "required", "additionalProperties", ... */
    const char *message;              /* "expected integer, got string" */
} gt_schema_error;

/* Why a validation stopped with GT_SCHEMA_ERROR (gt_schema_errors.failure).
 * Every code but out_of_memory is a bound on hostile input: the error list then
 * holds exactly one error whose keyword is the code
 * (gt_schema_failure_code_str) and whose message names the limit. */
typedef enum gt_schema_failure {
    GT_SCHEMA_FAILURE_NONE = 0,
    GT_SCHEMA_FAILURE_OUT_OF_MEMORY, /* "out_of_memory" */
    GT_SCHEMA_FAILURE_TOO_DEEP,      /* "evaluation_too_deep": the stack budget (max_stack) ran out */
    GT_SCHEMA_FAILURE_BUDGET,        /* "evaluation_budget": more than max_evaluations subschema evaluations */
    GT_SCHEMA_FAILURE_DEADLINE,      /* "evaluation_deadline": gt_schema_errors.deadline_ms passed */
    GT_SCHEMA_FAILURE_REGEX_LIMIT,   /* "regex_limit": a pattern hit PCRE2's match, depth or heap limit */
    GT_SCHEMA_FAILURE_REF_CYCLE      /* "schema_ref_cycle": the instance reached an in-place reference loop */
} gt_schema_failure;

/* The caller's side of a validation: the error list plus reusable scratch
 * (regex match data, annotation bitsets). One per thread; reuse it across
 * calls so that the valid path allocates nothing. Fields other than `items`,
 * `count` and `max_errors` are private. */
typedef struct gt_schema_errors {
    gt_schema_error *items;
    size_t count;
    size_t max_errors; /* stop after this many errors; 0 = all of them */
    gt_schema_failure failure; /* why the last validation returned GT_SCHEMA_ERROR */
    long long deadline_ms;     /* stop at this gt_schema_clock_ms() value; 0 = no deadline (kept by clear) */
    size_t capacity;
    gt_arena *strings;
    gt_arena *scratch;
    void *match_data;
    void *match_context; /* PCRE2 match context with limits and a JIT stack, made on first need */
    void *jit_stack;
} gt_schema_errors;

typedef enum gt_schema_result {
    GT_SCHEMA_ERROR = -1, /* out of memory, or a bound on evaluation was hit (gt_schema_errors.failure) */
    GT_SCHEMA_VALID = 0,
    GT_SCHEMA_INVALID = 1
} gt_schema_result;

/* Fill `options` with the defaults. */
void gt_schema_options_init(gt_schema_options *options);

/* Compile a schema from JSON text. Returns the compiled schema (free with
 * gt_schema_free) or NULL with `problem` filled (`problem` may be NULL).
 * `options` may be NULL for defaults. `json` is not retained. */
gt_schema *gt_schema_compile(const char *json, size_t len, const gt_schema_options *options,
                             gt_schema_problem *problem);

/* Same, from a value (serialised and copied: `root` need not outlive the schema). */
gt_schema *gt_schema_compile_value(const gt_value *root, const gt_schema_options *options,
                                   gt_schema_problem *problem);

/* Free a compiled schema. NULL is a no-op. */
void gt_schema_free(gt_schema *schema);

/* Dialect the schema was compiled as. */
gt_schema_dialect gt_schema_dialect_of(const gt_schema *schema);

/* Validate `instance`. With `errors` NULL only the verdict is computed (as
 * gt_schema_validate_first_failure with no scratch);
 * otherwise `errors` is cleared first and receives every error (up to
 * errors->max_errors). Returns GT_SCHEMA_VALID, GT_SCHEMA_INVALID or
 * GT_SCHEMA_ERROR. Thread-safe for one schema and distinct `errors`. */
gt_schema_result gt_schema_validate(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors);

/* The verdict alone, stopping at the first failure (as Blaze's --fast and
 * ajv without allErrors do): no error, no path, no message is built, and with
 * a reused `scratch` nothing is allocated per call (its match data, regex
 * limits and scratch memory are kept for the next one; its error list is left
 * empty). Returns GT_SCHEMA_VALID exactly when gt_schema_validate does (a
 * deadline, which depends on the clock, aside), else
 * GT_SCHEMA_INVALID, or GT_SCHEMA_ERROR when a limit stops it before the
 * first failure (scratch->failure names it; scratch->deadline_ms applies).
 * The one difference from gt_schema_validate: a limit that collecting every
 * error reaches only past the first failure makes that one GT_SCHEMA_ERROR
 * where this one answers GT_SCHEMA_INVALID. `scratch` may be NULL (the same
 * as gt_schema_validate(schema, instance, NULL)). Thread-safe for one schema
 * and distinct `scratch`. */
gt_schema_result gt_schema_validate_first_failure(const gt_schema *schema, const gt_value *instance,
                                                  gt_schema_errors *scratch);

/* Prepare an empty error list (max_errors 0 = all). */
void gt_schema_errors_init(gt_schema_errors *errors);

/* Forget the errors but keep the memory for the next validation. */
void gt_schema_errors_clear(gt_schema_errors *errors);

/* Release everything the list holds; it can be initialised again. */
void gt_schema_errors_free(gt_schema_errors *errors);

/* Reason code of a failed validation: the keyword of the first error, or NULL
 * when there is none. */
const char *gt_schema_errors_reason(const gt_schema_errors *errors);

/* Stable code of a validation failure ("evaluation_budget"); NULL for NONE. */
const char *gt_schema_failure_code_str(gt_schema_failure failure);

/* Is `failure` a bound on the input (budget, deadline, depth, regex limit)
 * rather than out of memory? Such a failure rejects the instance at the
 * structure gate with the failure's code as the reason. */
bool gt_schema_failure_is_limit(gt_schema_failure failure);

/* Milliseconds of CLOCK_MONOTONIC, the clock of gt_schema_errors.deadline_ms. */
long long gt_schema_clock_ms(void);

/* Stable code of a compile problem ("schema_ref_cycle"). */
const char *gt_schema_problem_code_str(gt_schema_problem_code code);

/* Name of a dialect ("draft2020-12") and its metaschema URI. */
const char *gt_schema_dialect_name(gt_schema_dialect dialect);
const char *gt_schema_dialect_uri(gt_schema_dialect dialect);

/* Dialect of a directory or `$schema` spelling ("draft7", "draft2019-09", a
 * metaschema URI); -1 when unknown. */
int gt_schema_dialect_from_name(const char *name);

/* An empty registry (NULL when out of memory); free with gt_schema_registry_free. */
gt_schema_registry *gt_schema_registry_new(void);
void gt_schema_registry_free(gt_schema_registry *registry);

/* Register one schema document (`len` bytes of JSON) under its `$id` (draft 4:
 * `id`) resolved against `retrieval_uri`, and under `retrieval_uri` itself
 * (either may be missing, not both). `origin` names it in problems (a path).
 * Returns 0, or -1 with `problem` filled (not JSON, no URI, or a different
 * document already registered under the same URI). */
int gt_schema_registry_add(gt_schema_registry *registry, const char *json, size_t len, const char *retrieval_uri,
                           const char *origin, gt_schema_problem *problem);

/* Register the file at `path` (its file:// URI is the retrieval URI). */
int gt_schema_registry_add_file(gt_schema_registry *registry, const char *path, gt_schema_problem *problem);

/* Register every *.json file below `dir` (recursively, in name order; names
 * starting with '.' are skipped). Every file that can be registered is;
 * returns 0, or -1 with the first problem. */
int gt_schema_registry_add_dir(gt_schema_registry *registry, const char *dir, gt_schema_problem *problem);

/* Number of URIs registered, and the i-th (for listings). */
size_t gt_schema_registry_count(const gt_schema_registry *registry);
const char *gt_schema_registry_uri(const gt_schema_registry *registry, size_t index);

/* The file:// URI of an existing file (absolute, percent-encoded) into `out`.
 * Returns 0, or -1 when the path does not resolve. */
int gt_schema_file_uri(const char *path, char *out, size_t size);

/* Check one string against a `format`: 1 conforms, 0 does not, -1 the format
 * is unknown to gauntlet (and is therefore never asserted). */
int gt_schema_format_check(const char *format, const char *text, size_t len);

#endif
