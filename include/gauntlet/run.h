/* run.h — targets, the result model and the scheduler.
 *
 * Data flows one way: case -> target -> observed outcome -> comparison with
 * the expectation -> result. Every target (in-process reference, an adapter
 * subprocess, a client over HTTP) implements the same three calls, so case
 * loading and reports never change when a target is added. Reports only
 * format a gt_run; they never re-run a case. */
#ifndef GAUNTLET_RUN_H
#define GAUNTLET_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/corpus.h"

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

/* Return codes of gt_target_check. */
#define GT_CHECK_DONE 0     /* `observed` holds the target's verdict */
#define GT_CHECK_SKIPPED 1  /* target lacks the capability; note says which */
#define GT_CHECK_ERROR (-1) /* target failed (crash, timeout, garbage); note says how */

typedef struct gt_target gt_target;

/* Open a target by spec: "reference" (later "adapter:CMD", "http:CMD"). One
 * instance per worker thread. Returns 0, or -1 with `err` filled. */
int gt_target_open(const char *spec, gt_target **out, char *err, size_t err_len);
/* Run one case. `note` receives a one-line explanation for SKIPPED/ERROR. */
int gt_target_check(gt_target *target, const gt_case_input *input, gt_observed *observed, char *note,
                    size_t note_len);
const char *gt_target_name(const gt_target *target);
void gt_target_close(gt_target *target);

/* Hook a new kind of target in without touching the scheduler. */
typedef struct gt_target_ops {
    const char *kind; /* "reference" */
    int (*open)(const char *arg, void **state, char *err, size_t err_len);
    int (*check)(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);
    const char *(*name)(void *state);
    void (*close)(void *state);
} gt_target_ops;

/* Make a kind of target available to gt_target_open (built-in kinds are
 * already known). `ops` must outlive every target opened from it; the kind
 * replaces an earlier registration of the same name. Call before any run
 * starts (not from worker threads). Returns 0, or -1 when the registry is
 * full or `ops` lacks a kind, check or close. */
int gt_target_register(const gt_target_ops *ops);

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

/* Compare an expectation with an observation. Returns GT_OUTCOME_PASS or
 * GT_OUTCOME_FAIL and writes the reason of a failure into `why`. */
gt_outcome gt_compare(const gt_expect *expect, const gt_observed *observed, char *why, size_t why_len);

typedef void (*gt_progress_fn)(void *user, size_t done, size_t total, const gt_case_result *last);

/* Run every case of `corpus` against targets opened from `target_spec`, on
 * `jobs` threads (1 = sequential). Results keep corpus order. Returns a run to
 * free with gt_run_free, or NULL with `err` filled when the target cannot be
 * opened at all. `progress` may be NULL; it is called from one thread at a time. */
gt_run *gt_run_cases(const gt_corpus *corpus, const char *target_spec, unsigned jobs, gt_progress_fn progress,
                     void *user, char *err, size_t err_len);
void gt_run_free(gt_run *run);

/* How gt_run_cases_with runs: gt_run_cases's arguments, plus fail-fast. */
typedef struct gt_run_options {
    const char *target_spec; /* "reference", "adapter:CMD", "http:CMD" */
    unsigned jobs;           /* worker threads; 0 = one per CPU */
    size_t max_fail;         /* stop handing out cases once this many failed or errored; 0 = never */
    gt_progress_fn progress; /* may be NULL */
    void *user;
} gt_run_options;

/* As gt_run_cases. With max_fail, cases already running finish, and every
 * case not started is still in the run (no case is ever dropped), as a skip
 * whose note says the run stopped early (GT_RUN_NOT_RUN_NOTE). */
gt_run *gt_run_cases_with(const gt_corpus *corpus, const gt_run_options *options, char *err, size_t err_len);
#define GT_RUN_NOT_RUN_NOTE "not run: the run stopped after --max-fail failures"

/* Counts per gate (the case's gate) and outcome; gate GT_GATE_COUNT = totals. */
typedef struct gt_run_counts {
    size_t cases, pass, fail, error, skip;
} gt_run_counts;
void gt_run_count(const gt_run *run, gt_run_counts counts[GT_GATE_COUNT + 1]);
/* Counts per tier (gt_tier): a certificate rests on the required row. */
void gt_run_count_tiers(const gt_run *run, gt_run_counts tiers[GT_TIER_COUNT]);

#endif
