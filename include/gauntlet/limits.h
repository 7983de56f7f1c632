/* limits.h — every number gauntlet enforces, named once, with its source.
 *
 * Seed numbers (../shared/seeds/000) are followed exactly; the others are
 * gauntlet's own defaults and can be changed per call through options structs
 * or CLI flags. */
#ifndef GAUNTLET_LIMITS_H
#define GAUNTLET_LIMITS_H

/* Syntax gate: default nesting limit for one model output. Model answers are
 * shallow; 256 levels leave room for any real contract while stopping
 * "[[[[..." bombs long before memory matters. The parser is iterative, so the
 * limit is a policy, not a stack-safety measure. CLI: --max-depth. */
#define GT_PARSE_DEFAULT_MAX_DEPTH 256u

/* Syntax gate: default maximum size of one raw output in bytes (16 MiB).
 * CLI: --max-bytes. */
#define GT_PARSE_DEFAULT_MAX_BYTES (16u * 1024u * 1024u)

/* End of the interoperable range: 2^53-1, the largest integer that every
 * double-based consumer holds exactly and tells apart from its neighbours
 * (I-JSON, RFC 7493 §2.2: [-(2^53)+1, 2^53-1]). Beyond it the syntax gate
 * accepts only numbers a double reproduces as written (1E22, 2^53) and
 * rejects the rest as number_precision, whatever the spelling
 * (9007199254740993, 9007199254740993.0, 90071992547409930e-1), unless the
 * caller keeps them exactly (gt_parse_options.allow_big_integers).
 * docs/reason-codes.md, "Exactness". */
#define GT_PARSE_MAX_SAFE_INTEGER 9007199254740991.0
#define GT_PARSE_MAX_SAFE_INTEGER_TEXT "9007199254740991"

/* Schema size guards before compiling (seed 000: Xzb pre-check). */
#define GT_SCHEMA_MAX_NODES 100000u
#define GT_SCHEMA_MAX_DEPTH 10000u
/* Nesting a schema document may have when it is parsed (the --json-schema
 * text, a $ref'd document): far beyond GT_SCHEMA_MAX_DEPTH, so a deep schema
 * is refused by the size guard ("not a valid JSON Schema"), as JSON.parse
 * accepts it, never by the parser ("not valid JSON"). */
#define GT_SCHEMA_PARSE_MAX_DEPTH 100000u
/* Size a schema document may have when it is parsed (256 MiB, as case files). */
#define GT_SCHEMA_PARSE_MAX_BYTES (256u * 1024u * 1024u)

/* Structure gate: subschema evaluations one validation may make (each
 * (subschema, instance location) pair evaluated counts once; results are
 * memoised when no annotations are collected, so real schemas stay far below).
 * Past it validation stops with reason "evaluation_budget".
 * gt_schema_options.max_evaluations. */
#define GT_SCHEMA_MAX_EVALUATIONS 2000000u

/* Structure gate, `pattern`/`patternProperties` (PCRE2): backtracking steps one
 * match may take (PCRE2's own default), the interpreter's backtracking depth
 * and heap, and the JIT stack a match may grow to. A pattern that needs more
 * stops with reason "regex_limit" and a message naming the limit; it is never
 * reported as a mismatch. */
#define GT_SCHEMA_REGEX_MATCH_LIMIT 10000000u
#define GT_SCHEMA_REGEX_DEPTH_LIMIT 100000u
#define GT_SCHEMA_REGEX_HEAP_LIMIT_KIB (64u * 1024u)
#define GT_SCHEMA_REGEX_JIT_STACK_MAX (8u * 1024u * 1024u)

/* Largest count (tokens, indexes) read from a stream, a reply or a script:
 * 2^53, the last integer a double holds exactly. Bigger figures saturate here
 * (gt_number_clamp), so sums of a few of them cannot overflow. */
#define GT_COUNT_MAX 9007199254740992LL

/* Strict-subset wire conversion (seed 000: jZo). */
#define GT_STRICT_MAX_DEPTH 32u
#define GT_STRICT_MAX_NODES 100000u

/* Agent loop (seed 000): default StructuredOutput attempts per query, and the
 * environment variable that overrides it. */
#define GT_LOOP_DEFAULT_MAX_ATTEMPTS 5
#define GT_LOOP_ATTEMPTS_ENV "MAX_STRUCTURED_OUTPUT_RETRIES"

/* Tool result display cap (seed 000): 100,000 characters. */
#define GT_LOOP_TOOL_RESULT_CAP 100000u

#endif
