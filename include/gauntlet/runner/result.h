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
} gt_observed;

void gt_observed_clear(gt_observed *observed);
/* Append an error (strings copied). Returns 0 or -1 when out of memory. */
int gt_observed_add_error(gt_observed *observed, const char *path, const char *keyword, const char *message);
/* Set verdict reject with gate, reason and message (copied). */
int gt_observed_reject(gt_observed *observed, const char *gate, const char *reason, const char *message);

typedef enum gt_outcome { GT_OUTCOME_PASS = 0, GT_OUTCOME_FAIL, GT_OUTCOME_ERROR, GT_OUTCOME_SKIP } gt_outcome;
const char *gt_outcome_name(gt_outcome outcome);

typedef struct gt_case_result {
    const gt_case *kase;
    gt_outcome outcome;
    gt_observed observed;
    char *note;        /* why it failed / errored / was skipped (malloc'd), NULL on pass */
    double elapsed_ms;
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
} gt_run;

/* Free what `run` holds (results, notes, target names), not `run` itself:
 * for a gt_run embedded in another struct (a read report). */
void gt_run_clear(gt_run *run);

/* Free a run and every result in it (NULL is a no-op). */
void gt_run_free(gt_run *run);

/* Counts per gate (the case's gate) and outcome; gate GT_GATE_COUNT = totals. */
typedef struct gt_run_counts {
    size_t cases, pass, fail, error, skip;
} gt_run_counts;
void gt_run_count(const gt_run *run, gt_run_counts counts[GT_GATE_COUNT + 1]);
/* Counts per tier (gt_tier): a certificate rests on the required row. */
void gt_run_count_tiers(const gt_run *run, gt_run_counts tiers[GT_TIER_COUNT]);

#endif
