/* corpus.h — adversarial cases: the in-memory model and the case-file loader.
 *
 * A case file is plain JSON (docs/corpus-format.md, format "gauntlet-corpus/1")
 * holding one or more cases. Loading never stops at a broken file: each
 * problem becomes a gt_load_problem naming the file, line and field, and the
 * other files still load. A case is split in two on purpose: `input` is all a
 * target may see, `expect` is only for the comparison (a target never reads
 * the expectation). Not for: running cases (run.h). */
#ifndef GAUNTLET_CORPUS_H
#define GAUNTLET_CORPUS_H

#include <stdbool.h>
#include <stddef.h>

#define GT_CORPUS_FORMAT "gauntlet-corpus/1"

typedef enum gt_verdict { GT_VERDICT_NONE = 0, GT_VERDICT_ACCEPT, GT_VERDICT_REJECT } gt_verdict;

/* Which claim a case makes (docs/corpus-format.md#tiers): `required` is what a
 * seed or a spec requires; `optional` is implementation-defined (gauntlet's own
 * retry default, subtypes, NUL policy, reason spelling). A certificate rests on
 * the required tier only. */
typedef enum gt_tier { GT_TIER_REQUIRED = 0, GT_TIER_OPTIONAL, GT_TIER_COUNT } gt_tier;

/* "required" / "optional". */
const char *gt_tier_name(gt_tier tier);
/* The tier named `name`, or -1 when unknown. */
int gt_tier_from_name(const char *name);

/* The contracts a case belongs to and an implementation claims
 * (docs/profiles.md). A case judges an implementation only when the two
 * share a profile; otherwise the case is not applicable to it (never sent,
 * never in a rate's denominator). Sets of profiles are bit masks
 * (1u << gt_profile). */
typedef enum gt_profile {
    GT_PROFILE_CORE = 0,      /* what every structured-output pipeline must do */
    GT_PROFILE_REPAIR_LOOP,   /* pipelines that feed errors back and try again, within a bound */
    GT_PROFILE_CLAUDE_CODE,   /* seed 000's StructuredOutput contract exactly */
    GT_PROFILE_SDK_TRANSFORM, /* seed 004's schema transform and local re-validation */
    GT_PROFILE_REASONS,       /* gauntlet's reason codes, messages, positions, error-path spelling */
    GT_PROFILE_COUNT
} gt_profile;
#define GT_PROFILES_ALL ((1u << GT_PROFILE_COUNT) - 1u)
/* What an implementation that states no profiles claims. */
#define GT_PROFILES_DEFAULT_CLAIM (1u << GT_PROFILE_CORE)
/* The known names, for messages. */
#define GT_PROFILE_NAMES "core, repair-loop, claude-code, sdk-transform, reasons"

/* "core", "repair-loop", ...; "unknown" out of range. */
const char *gt_profile_name(gt_profile profile);
/* The profile named `name` (`len` bytes), or -1 when unknown. */
int gt_profile_from_name(const char *name, size_t len);
/* One line: what the profile claims. */
const char *gt_profile_statement(gt_profile profile);
/* Where the claim comes from (seed rule ids, spec clauses), one line. */
const char *gt_profile_sources(gt_profile profile);
/* Parse a comma-separated list of profile names ("core,reasons"; spaces
 * around names allowed; "all" = every profile) into *mask. Returns 0, or -1
 * with `err` naming the unknown or empty entry and the known names. */
int gt_profiles_parse(const char *list, unsigned *mask, char *err, size_t err_len);
/* The names of `mask`, comma-separated in profile order, into `out`
 * ("" for an empty mask). Returns `out`. */
char *gt_profiles_format(unsigned mask, const char *separator, char *out, size_t out_len);
/* The profiles of a case that names none (docs/profiles.md#defaults), from
 * its gate, tier, category and rule ids. */
unsigned gt_profiles_default(const char *gate, int tier, const char *category, const char *const *rules,
                             size_t rule_count);

/* Where a case file looks for the rule list its `rules` ids are checked
 * against: the nearest file of this name in its directory or above. */
#define GT_CORPUS_RULES_FILE "rules.json"
#define GT_CORPUS_RULES_FORMAT "gauntlet-rules/1"

/* What a target is given. Strings are NUL-terminated and owned by the corpus. */
typedef struct gt_case_input {
    const char *id;
    const char *gate;         /* "syntax", "structure", "semantic", "policy", "stream", "loop", "wire" */
    const unsigned char *raw; /* exact raw model output bytes (may hold NUL and invalid UTF-8); NULL if none */
    size_t raw_len;
    const char *schema_json;  /* the case's JSON Schema as JSON text, or NULL */
    const char *schema_origin; /* where the schema came from, for messages: "corpus/x/schemas/t.json" or "corpus/x/a.cases.json:12" */
    const char *case_json;    /* the whole case object minus "expect", compact JSON: later layers read their fields here */
    bool assert_formats;      /* case option "formats": true asserts `format` */
    bool reject_nul;          /* case option "reject_nul": the syntax gate rejects \u0000 (nul_character) */
    size_t max_bytes;         /* case option "max_bytes": the syntax gate's size limit (too_large); 0 = its default */
    const char *schemas_dir;  /* the corpus's shared schemas/ folder (absolute path), or NULL */
    const struct gt_schema_registry *schemas; /* every schema below schemas_dir, registered by $id and file
                                               * URI, for cross-document $ref; NULL when there is none */
    const char *remotes_dir;  /* JSON-Schema-Test-Suite cases (run --jsts): the absolute path of the suite's
                               * remotes/ folder, which stands in for http://localhost:1234/; else NULL */
} gt_case_input;

typedef struct gt_expected_error {
    const char *path;    /* instance location, JSON Pointer ("" = root) */
    const char *keyword; /* failing keyword ("type", "required", ...) */
} gt_expected_error;

/* Attempt accounting of a loop or stream case (seed 000). -1 = not given. */
typedef struct gt_accounting {
    int attempts_used;    /* StructuredOutput attempts this query (retracted ones count) */
    int attempts_limit;   /* the limit in force (5, or MAX_STRUCTURED_OUTPUT_RETRIES) */
    int retracted;        /* calls tombstoned by a fallback */
    int enforce_messages; /* [structured-output-enforce] messages injected */
    int api_attempts;     /* HTTP requests to the provider, including capability retries */
    int model_calls;      /* model turns that produced a response */
} gt_accounting;

/* Set every figure to -1 (unknown). */
static inline void gt_accounting_init(gt_accounting *accounting)
{
    accounting->attempts_used = accounting->attempts_limit = accounting->retracted = -1;
    accounting->enforce_messages = accounting->api_attempts = accounting->model_calls = -1;
}

typedef struct gt_expect {
    gt_verdict verdict;
    const char *gate;   /* gate that rejects; NULL for accept */
    const char *reason; /* reason code; NULL when not asserted */
    const gt_expected_error *errors; /* when non-NULL: the exact set of errors expected (order-free) */
    size_t error_count;
    bool errors_given;  /* "errors" present (an empty list is meaningful for accepts) */
    const char *expect_json; /* the whole expectation as compact JSON, for fields later layers add */
    const char *subtype;     /* loop cases: terminal subtype ("success", "error_max_structured_output_retries") */
    gt_accounting accounting; /* loop/stream cases: figures from expect.accounting; -1 where not given */
    bool accounting_given;    /* expect.accounting present: only then are the figures compared */
    const char *output_json;  /* expect.output as compact JSON (wire cases: the exact produced schema), or NULL */
    const char *structured_output_json; /* loop cases: expect.structured_output (null = no object may survive), or NULL */
    const char *output_at_json; /* expect.output_at: {JSON Pointer: value} into the observed output (compact), or NULL */
    const char *trace_json;     /* expect.trace: members the observed trace record must carry (compact), or NULL */
    const char *output_contains_json; /* expect.output_contains: {JSON Pointer: text or [texts]} that the string there holds */
    const char *output_excludes_json; /* expect.output_excludes: the same, texts the string there must not hold */
    const char *message_contains_json; /* expect.message_contains: text or [texts] the rejection's message holds */
    bool message_present; /* expect.message_present: the rejection carries a non-empty message (any wording) */
} gt_expect;

typedef struct gt_case {
    gt_case_input input;
    gt_expect expect;
    const char *category;
    const char *description;
    const char *const *tags;
    size_t tag_count;
    const char *file; /* case file path as given to the loader */
    unsigned line;    /* line of the case object's opening brace */
    gt_tier tier;     /* "tier" (default required) */
    const char *const *rules; /* "rules": ids of the seed rules and spec clauses the case proves */
    size_t rule_count;
    /* "source": where the case comes from, one normalized line each:
     * "owner/repo#N URL" (an issue thread), "spec: TEXT", "rule: ID"
     * (docs/corpus-format.md). */
    const char *const *sources;
    size_t source_count;
    unsigned profiles;        /* "profiles" as a mask of gt_profile bits, or the default for its gate and tier */
    bool profiles_given;      /* the case (or its file's defaults) names its profiles */
} gt_case;

typedef struct gt_load_problem {
    const char *file;
    unsigned line;     /* 0 when the problem concerns the whole file */
    const char *field; /* JSON Pointer inside the file ("/cases/3/expect/reason"), "" for the file */
    const char *message;
} gt_load_problem;

typedef struct gt_corpus gt_corpus;

/* Create an empty corpus. Free with gt_corpus_free (frees every case). */
gt_corpus *gt_corpus_new(void);
void gt_corpus_free(gt_corpus *corpus);

/* Load a file, or every "*.cases.json" below a directory (sorted, recursive).
 * Returns the number of cases added; problems are appended to the corpus's
 * problem list (never printed). Returns -1 only when out of memory. */
int gt_corpus_load(gt_corpus *corpus, const char *path);

/* Load case text already in memory (tests); `name` is used in problems. */
int gt_corpus_load_text(gt_corpus *corpus, const char *name, const char *text, size_t len);

/* The issue thread of a normalized source line ("owner/repo#N URL"), as
 * "owner/repo#N" into `out` (NUL-terminated, cut to `out_len`); returns the
 * repository's length ("owner/repo"), or 0 when the line names no thread. */
size_t gt_case_source_thread(const char *source, char *out, size_t out_len);

size_t gt_corpus_count(const gt_corpus *corpus);
const gt_case *gt_corpus_case(const gt_corpus *corpus, size_t index);
size_t gt_corpus_problem_count(const gt_corpus *corpus);
const gt_load_problem *gt_corpus_problem(const gt_corpus *corpus, size_t index);

/* One rule of a rule list (rules.json). Strings are owned by the corpus. */
typedef struct gt_rule {
    const char *id;
    const char *statement; /* one line */
    const char *source;    /* NULL when the list gives none */
    const char *list;      /* canonical path of the rules.json it comes from */
} gt_rule;

/* Read the rule list that governs `path` (a case file or a directory): the
 * nearest rules.json in that directory (a file's own directory) or above it,
 * even when no case names a rule. Its problems become load problems. Returns
 * 1 when a list was found, 0 when there is none, -1 when out of memory. */
int gt_corpus_load_rules(gt_corpus *corpus, const char *path);

/* Every rule of every rule list read so far (by gt_corpus_load_rules, or
 * because a case named rules), list by list in reading order and each list
 * in its file order. A list is read once however often it is reached. */
size_t gt_corpus_rule_count(const gt_corpus *corpus);
const gt_rule *gt_corpus_rule(const gt_corpus *corpus, size_t index);

/* The expectation of a loop case whose script is `script_json` under the
 * caller's schema `schema_json` (runner/corpus_expect.c): the reference loop
 * run on it, as the `expect` object of docs/corpus-format.md (verdict, gate
 * and reason of a rejection, subtype, the six accounting figures,
 * structured_output or null), compact JSON, malloc'd. NULL with `why`
 * filled when the loop refuses the script or memory runs out. */
char *gt_corpus_loop_expect(const char *script_json, const char *schema_json, char *why, size_t why_len);

/* Add one case built in memory (`gauntlet run --jsts`): every string, list
 * and the error set are copied into the corpus (the registry `schemas` is
 * borrowed: it must outlive the corpus). Its id must be unique across the
 * corpus as for a loaded case: a duplicate becomes a load problem at
 * kase->file:kase->line and the case is not added. Returns 1 added, 0
 * refused, -1 out of memory. */
int gt_corpus_add_case(gt_corpus *corpus, const gt_case *kase);

/* Record a load problem (copied) for a case source read outside the loader. */
void gt_corpus_add_problem(gt_corpus *corpus, const char *file, unsigned line, const char *field, const char *message);

/* Whether the case carries `tag` among its "tags". */
bool gt_case_has_tag(const gt_case *kase, const char *tag);
/* Keep only the cases that match every given filter (NULL = no filter):
 * gate equal, tag contained, id matching a shell glob (fnmatch). Returns the
 * number kept. Duplicate ids across the corpus are load problems. */
size_t gt_corpus_filter(gt_corpus *corpus, const char *gate, const char *tag, const char *id_glob);

#endif
