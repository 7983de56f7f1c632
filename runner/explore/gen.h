/* gen.h — the adversarial case generator for one contract (gauntlet gen and
 * gauntlet explore, docs/explore.md).
 *
 * From a JSON Schema (and optional sample instances) it builds valid cases
 * (the samples, a synthesised instance, meaning-preserving variants,
 * boundary values) and mutations, each tagged with its operator and the rule
 * ids it probes. Every candidate is run through the in-process reference
 * target: a candidate whose intended outcome the reference confirms becomes a
 * case whose expectation is the reference's observation; the others are kept
 * apart as ambiguous. Deterministic for a seed. Not for: writing files
 * (gt_gen_write_corpus does that from the result) or talking to a terminal. */
#ifndef GT_GEN_H
#define GT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gauntlet/runner/run.h"

/* Families of operators, for --gates (valid cases are always generated). */
#define GT_GEN_SYNTAX 1u
#define GT_GEN_STRUCTURE 2u
#define GT_GEN_LOOP 4u /* loop and stream cases */
#define GT_GEN_ALL (GT_GEN_SYNTAX | GT_GEN_STRUCTURE | GT_GEN_LOOP)

/* Longest string or array a boundary operator builds (a maxLength of
 * 1,000,000 is probed by the reference, not by a megabyte-sized case). */
#define GT_GEN_MAX_BOUNDARY_LENGTH 4096
/* Enum members near-missed per path, and bad objects replayed as loops. */
#define GT_GEN_MAX_ENUM_MEMBERS 8
#define GT_GEN_MAX_LOOP_OBJECTS 6
/* Instance locations mutated per base (evenly spaced beyond it): every
 * mutation copies the instance, so a large sample stays linear. */
#define GT_GEN_MAX_SITES 256
/* Rounds of mending a synthesised instance by the reference's errors. */
#define GT_GEN_MEND_ROUNDS 24

typedef struct gt_gen_options {
    uint64_t seed;
    unsigned gates;                            /* GT_GEN_* bits; 0 = all */
    bool formats;                              /* assert `format` (case option "formats") and add format near-misses */
    const char *origin;                        /* the schema's file name, for messages and case descriptions */
    const struct gt_schema_registry *registry; /* documents $ref and $schema may name, or NULL */
    const char *const *ref_paths;              /* the files and folders registered (--ref, --ref-dir): copied into the
                                                  written corpus's schemas/ folder, which its loader registers */
    size_t ref_count;
    const char *id_scope; /* case ids "gen.<scope>.<family>.<op>.<n>" (one corpus per definition), or NULL */
} gt_gen_options;

/* One candidate: its input, what its operator intends, and what the
 * reference observed. Strings are owned by the generator. */
typedef struct gt_gen_case {
    char *id;           /* gen.<family>.<operator>.<n> (gen.<id_scope>.<family>...) */
    const char *gate;   /* case gate: "structure" (valid and structure cases), "syntax", "loop", "stream" */
    const char *family; /* "valid", "syntax", "structure", "loop" */
    char *ops;          /* the operator, or the chain "type-swap+fence-json" (explore combinations) */
    char *path;         /* JSON Pointer of the instance location the operator touched ("" = root) */
    char *description;
    unsigned char *raw; /* the raw model output; NULL for loop and stream cases */
    size_t raw_len;
    char *script_json;    /* loop and stream cases: the loop script (compact JSON) */
    const char *rules[4]; /* rule ids (corpus/rules.json) the case probes */
    size_t rule_count;
    gt_verdict want_verdict; /* the intended outcome */
    const char *want_gate;
    const char *want_reason; /* NULL: any reason of want_gate */
    gt_observed reference;   /* the reference's observation */
    bool confirmed;          /* the reference confirms the intended outcome: an emitted case */
    bool dropped;            /* left out by gt_gen_cap */
    char *case_json;         /* what a target sees of the case (built on first use) */
} gt_gen_case;

typedef struct gt_gen gt_gen;

/* A generator for the schema `schema_json` (`len` bytes). Returns NULL with a
 * message in `err` when the schema is not strict JSON or does not compile
 * (the message names the schema location). Free with gt_gen_free. */
gt_gen *gt_gen_new(const char *schema_json, size_t len, const gt_gen_options *options, char *err, size_t err_len);
void gt_gen_free(gt_gen *gen);

/* Add a sample instance (`name` for messages). Returns 0, or -1 with a message
 * in `err` when it is not strict JSON or the reference rejects it. */
int gt_gen_add_sample(gt_gen *gen, const char *text, size_t len, const char *name, char *err, size_t err_len);

/* Build and check every candidate. Returns 0, or -1 when out of memory or the
 * reference target cannot run (message in `err`). Without samples, a message
 * saying why no valid instance could be synthesised is left for
 * gt_gen_synthesis_note. */
int gt_gen_generate(gt_gen *gen, char *err, size_t err_len);

/* Why synthesis fell short ("cannot synthesise /ticket_id: pattern ..."),
 * or NULL when it produced a valid instance (or samples were given). */
const char *gt_gen_synthesis_note(const gt_gen *gen);
/* True when no instance can satisfy the schema: without samples, the
 * reference refused the schema itself (a `$ref` cycle, schema_ref_cycle)
 * for every synthesised instance. The note says why; nothing should be
 * written from such a generator. */
bool gt_gen_unsatisfiable(const gt_gen *gen);

/* Every candidate, in generation order (confirmed and ambiguous). */
size_t gt_gen_count(const gt_gen *gen);
gt_gen_case *gt_gen_case_at(gt_gen *gen, size_t index);

/* Keep at most `max` confirmed cases (0 = all), spread evenly over operators
 * and, inside one operator, over its paths. Ambiguous candidates are kept for
 * the report. Returns the number of confirmed cases left. */
size_t gt_gen_cap(gt_gen *gen, size_t max);

/* The order in which `explore` tries cases: the confirmed ones, one operator
 * after the other round-robin, so a short budget still tries every operator.
 * Fills `order` (room for gt_gen_count entries); returns how many. */
size_t gt_gen_spread_order(const gt_gen *gen, size_t *order);

/* Random combinations for explore: a base instance with 2-3 structure
 * operators applied, then maybe one syntax operator, drawn from the
 * generator's random stream. Adds a checked candidate (confirmed when the
 * reference's verdict is certain) and returns its index, or -1 when out of
 * memory. */
long gt_gen_combination(gt_gen *gen);

/* A candidate for explore's shrinker: a copy of case `from` with another raw
 * input, checked by the reference. Returns its index, or -1. */
long gt_gen_variant(gt_gen *gen, size_t from, const unsigned char *raw, size_t raw_len);

/* The case input a target is given for candidate `kase` (points into it and
 * into the generator; valid until the next call that adds candidates). */
void gt_gen_input(gt_gen *gen, const gt_gen_case *kase, gt_case_input *input);

/* The rule ids the written cases name (`keep` as gt_gen_write_corpus: NULL =
 * every confirmed case the cap kept), sorted, unique (NULL-terminated
 * malloc'd array of borrowed strings; the caller frees the array). */
const char **gt_gen_rules_used(const gt_gen *gen, const bool *keep, size_t *count);

/* Write the confirmed cases as a corpus folder `dir` (created when missing):
 * schema.json (the schema as given), rules.json (the rules the cases name,
 * with their statements from `rules`/`rule_count`), and one case file per
 * family (valid, syntax, structure, loop). Only candidates with `keep` true
 * (NULL = every confirmed one) are written. Returns 0, or -1 with `err`. */
struct gt_rule;
/* What `gauntlet gen --from` wrote. */
typedef struct gt_gen_from_counts {
    int recorded;    /* recorded cases read */
    int variants;    /* variants written, every one with the reference loop's expectation */
    int near_misses; /* of them, from gen's structure operators */
    int no_sample;   /* recorded answers the reference rejects: no sample for gen's operators (wire ones only) */
} gt_gen_from_counts;

/* `gauntlet gen --from FROM --out OUT` (gen_from.c, docs/record.md): the
 * adversarial variants of each recorded case of FROM — the wire operators
 * and gen's structure operators on the recorded answer — each tagged with
 * its operator and rules and expecting the reference loop's verdict, written
 * to OUT (new or empty) with a rules.json of the rules they name, taken from
 * `rules` (gauntlet's). 0 with `counts` filled, or -1 with `err` naming the
 * file or folder. */
int gt_gen_from_recording(const char *from_dir, const char *out_dir, const struct gt_rule *rules, size_t rule_count,
                          gt_gen_from_counts *counts, char *err, size_t err_len);

int gt_gen_write_corpus(const gt_gen *gen, const char *dir, const bool *keep, const struct gt_rule *rules,
                        size_t rule_count, char *err, size_t err_len);

/* May gt_gen_write_corpus write into `dir`? Yes (0) when it is missing, or
 * holds none of the files it writes or removes (schema.json, rules.json,
 * *.cases.json at its top), or holds only such files written by gauntlet gen
 * (their `description`). With `no_cases` any *.cases.json already there is a
 * refusal too (explore --save: an earlier finding must not be lost).
 * Returns -1 with `err` naming the folder and the file otherwise. */
int gt_gen_check_out_dir(const char *dir, bool no_cases, char *err, size_t err_len);

/* Write the --report JSON (gauntlet-gen-report/1): counts per operator and
 * every ambiguous candidate with its intended and observed outcome. */
int gt_gen_write_report(const gt_gen *gen, const char *path, char *err, size_t err_len);

/* "reject syntax/markdown_fence", "accept": an outcome in one line. */
void gt_gen_outcome_text(gt_verdict verdict, const char *gate, const char *reason, char *out, size_t out_len);

#endif
