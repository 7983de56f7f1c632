/* result.h — the result model: what a target observed for one case, the
 * outcome of comparing it with the expectation, and a whole run.
 *
 * The one header the runner (runner/run.c fills it) and the report writers
 * (reports/ format it) share, so that reports never depend on the scheduler,
 * the targets or the command line. Not for: running cases (run.h) or loading
 * them (corpus.h). */
#ifndef GAUNTLET_RESULT_H
#define GAUNTLET_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/runner/corpus.h"

/* Gates and layers, in pipeline order. */
typedef enum gt_gate {
    GT_GATE_SYNTAX = 0,
    GT_GATE_STRUCTURE,
    GT_GATE_SEMANTIC,
    GT_GATE_POLICY,
    GT_GATE_STREAM,
    GT_GATE_LOOP,
    GT_GATE_WIRE,
    GT_GATE_COUNT
} gt_gate;

const char *gt_gate_name(gt_gate gate);
int gt_gate_from_name(const char *name); /* -1 when unknown */

typedef enum gt_gate_status { GT_GATE_NOT_RUN = 0, GT_GATE_PASSED, GT_GATE_FAILED } gt_gate_status;

typedef struct gt_observed_error {
    char *path;    /* JSON Pointer */
    char *keyword;
    char *message;
} gt_observed_error;

/* What a target reports for one case. All strings malloc'd; release with
 * gt_observed_clear. */
typedef struct gt_observed {
    gt_verdict verdict;
    char *gate;    /* rejecting gate, NULL on accept */
    char *reason;  /* reason code, NULL on accept */
    char *message; /* first human message, or NULL */
    gt_observed_error *errors;
    size_t error_count;
    gt_gate_status gates[GT_GATE_COUNT]; /* per-gate verdicts, so "passed structure, failed semantic" shows */
    char *output_json; /* accepted value as compact JSON, or a terminal envelope for loop cases; may be NULL */
    char *subtype;     /* loop cases: the terminal envelope's subtype */
    gt_accounting accounting; /* loop/stream cases; all -1 when the target reports none */
    bool has_accounting;
    char *transcript;  /* loop cases: a human turn-by-turn transcript, or NULL */
    char *trace_json;  /* gates cases: the trace record (gauntlet-trace/1, docs/repair.md) as compact JSON, or NULL */
    bool black_box;    /* a vendor client seen from outside (http target): gate and reason are not
                          observable, so only the verdict, structured_output and the figures it reports
                          (>= 0) are compared */
    char *violation;   /* black box: what the request journal shows the client did wrong (a tool error
                          without an instance path, strict kept after a capability 400), or NULL */
    int beyond_script_calls; /* black box: model calls the client made after the scenario's script was
                                played out (the mock's after_script answered them); 0 otherwise */
    bool unstreamed_stream_fault; /* black box: the mock served a scripted stream fault (cut, malformed SSE) to
                                     a request that did not stream, as a JSON body cut in half */
    int clean_answer_turn; /* black box: 1 + the script turn whose complete, valid StructuredOutput input is the
                              object the client returned (served last, delivered whole, no refusal or max_tokens
                              stop); 0 when the object is none such */
    bool clean_answer_stream; /* black box: that turn is a raw stream and the object is the input of a block it
                                 closed, the stream served to its terminal event (stream protocol strictness) */
} gt_observed;

void gt_observed_clear(gt_observed *observed);
/* Append an error (strings copied). Returns 0 or -1 when out of memory. */
int gt_observed_add_error(gt_observed *observed, const char *path, const char *keyword, const char *message);
/* Set verdict reject with gate, reason and message (copied). */
int gt_observed_reject(gt_observed *observed, const char *gate, const char *reason, const char *message);

/* A case's outcome. NOT_APPLICABLE: the case belongs to no profile the
 * target claims; it was never sent and counts in no rate (it is not a skip,
 * which is a case the target could not express). */
typedef enum gt_outcome {
    GT_OUTCOME_PASS = 0,
    GT_OUTCOME_FAIL,
    GT_OUTCOME_ERROR,
    GT_OUTCOME_SKIP,
    GT_OUTCOME_NOT_APPLICABLE
} gt_outcome;
/* "pass", "fail", "error", "skip", "not_applicable". */
const char *gt_outcome_name(gt_outcome outcome);

/* The verdict class of a result (docs/profiles.md#verdict-classes), the same
 * in every report. A fail is exactly one of UNSAFE, REFUSED_VALID, FIGURES,
 * or OTHER_REASON for a target that claims `reasons`; OTHER_REASON is a pass
 * for every other target (listed apart so a vendor can still read it). */
typedef enum gt_class {
    GT_CLASS_PASS = 0,
    GT_CLASS_UNSAFE,         /* accepted what must be refused, or returned an object the reference would not */
    GT_CLASS_REFUSED_VALID,  /* refused what is valid (or returned no object where one survives) */
    GT_CLASS_FIGURES,        /* verdict right; the gate, attempts, accounting, subtype or produced output differ */
    GT_CLASS_OTHER_REASON,   /* verdict and gate right; another reason code, error set or message */
    GT_CLASS_ERROR,
    GT_CLASS_SKIP,
    GT_CLASS_NOT_APPLICABLE,
    GT_CLASS_COUNT
} gt_class;
/* "pass", "unsafe", "refused_valid", "figures", "other_reason", "error", "skip", "not_applicable". */
const char *gt_class_name(gt_class verdict_class);
/* The class named `name`, or -1. */
int gt_class_from_name(const char *name);

typedef struct gt_case_result {
    const gt_case *kase;
    gt_outcome outcome;
    gt_observed observed;
    char *note;        /* why it failed / errored / was skipped / is another reason (malloc'd); NULL on a clean pass */
    double elapsed_ms;
    gt_class verdict_class; /* the outcome's class (a pass can be OTHER_REASON) */
} gt_case_result;

typedef struct gt_run {
    gt_case_result *results; /* one per case, in corpus order: no case is ever dropped */
    size_t count;
    const gt_corpus *corpus;
    char *target;     /* target spec */
    char *target_name; /* implementation name reported by the target */
    char started_at[32]; /* ISO 8601 UTC */
    double elapsed_ms;
    unsigned jobs;
    unsigned profiles; /* the profiles the target claims (gt_profile bits); every case outside them is
                          GT_OUTCOME_NOT_APPLICABLE */
} gt_run;

/* The profiles a run's target was judged on: run->profiles, or every
 * profile when the run does not record them (0: a run built by hand, or a
 * report written before profiles existed, when every case was judged). */
static inline unsigned gt_run_claims(const gt_run *run)
{
    return run->profiles != 0 ? run->profiles : GT_PROFILES_ALL;
}

/* The class of a result: its verdict_class, or, where that was not recorded
 * (a run built by hand, a report written before classes), the class its
 * outcome and verdicts imply. */
gt_class gt_case_result_class(const gt_case_result *result);

/* Free what `run` holds (results, notes, target names), not `run` itself:
 * for a gt_run embedded in another struct (a read report). */
void gt_run_clear(gt_run *run);

/* Free a run and every result in it (NULL is a no-op). */
void gt_run_free(gt_run *run);

/* Counts per gate (the case's gate) and outcome; gate GT_GATE_COUNT = totals.
 * cases = pass + fail + error + skip: a not-applicable case is counted in
 * not_applicable only. unsafe + refused_valid + figures (+ other_reason when
 * the target claims `reasons`) = fail; other_reason counts that class
 * whatever its outcome. */
typedef struct gt_run_counts {
    size_t cases, pass, fail, error, skip;
    size_t not_applicable, other_reason, unsafe, refused_valid, figures;
} gt_run_counts;
void gt_run_count(const gt_run *run, gt_run_counts counts[GT_GATE_COUNT + 1]);
/* Counts per tier (gt_tier): a certificate rests on the required row. */
void gt_run_count_tiers(const gt_run *run, gt_run_counts tiers[GT_TIER_COUNT]);
/* Counts per profile (a case counts under each of its profiles) over the
 * cases of one tier (GT_TIER_COUNT: both). */
void gt_run_count_profiles(const gt_run *run, int tier, gt_run_counts profiles[GT_PROFILE_COUNT]);
/* Add one result to a counts row. */
void gt_run_counts_add(gt_run_counts *row, const gt_case_result *result);

#endif
