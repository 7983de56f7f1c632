/* run.h — targets, the comparison and the scheduler (the result model they
 * fill is in result.h).
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

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/result.h"

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
/* The profiles the target claims (gt_profile bits): what its ops report, or
 * GT_PROFILES_DEFAULT_CLAIM (core) when it states none. */
unsigned gt_target_profiles(const gt_target *target);
void gt_target_close(gt_target *target);

/* Hook a new kind of target in without touching the scheduler. */
typedef struct gt_target_ops {
    const char *kind; /* "reference" */
    int (*open)(const char *arg, void **state, char *err, size_t err_len);
    int (*check)(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);
    const char *(*name)(void *state);
    void (*close)(void *state);
    /* The profiles the implementation claims (gt_profile bits), 0 when it
     * states none; may be NULL (the same). */
    unsigned (*profiles)(void *state);
} gt_target_ops;

/* Make a kind of target available to gt_target_open (built-in kinds are
 * already known). `ops` must outlive every target opened from it; the kind
 * replaces an earlier registration of the same name. Call before any run
 * starts (not from worker threads). Returns 0, or -1 when the registry is
 * full or `ops` lacks a kind, check or close. */
int gt_target_register(const gt_target_ops *ops);

/* Compare an expectation with an observation for a target that claims
 * `claims` (gt_profile bits; docs/profiles.md says what each claim judges),
 * for a case of layer `gate` (NULL: unknown) in `case_profiles` (0: all).
 * Returns GT_OUTCOME_PASS,
 * GT_OUTCOME_FAIL or GT_OUTCOME_SKIP (a message the target cannot show),
 * stores the verdict class in *verdict_class (may be NULL) and writes the
 * difference into `why` (also for an other-reason pass). */
gt_outcome gt_compare_claimed(const gt_expect *expect, const gt_observed *observed, const char *gate,
                              unsigned case_profiles, unsigned claims, gt_class *verdict_class, char *why,
                              size_t why_len);
/* gt_compare_claimed for a target that claims every profile (the reference). */
gt_outcome gt_compare(const gt_expect *expect, const gt_observed *observed, char *why, size_t why_len);

typedef void (*gt_progress_fn)(void *user, size_t done, size_t total, const gt_case_result *last);

/* Run every case of `corpus` against targets opened from `target_spec`, on
 * `jobs` threads (1 = sequential). Results keep corpus order. Returns a run to
 * free with gt_run_free, or NULL with `err` filled when the target cannot be
 * opened at all. `progress` may be NULL; it is called from one thread at a time. */
gt_run *gt_run_cases(const gt_corpus *corpus, const char *target_spec, unsigned jobs, gt_progress_fn progress,
                     void *user, char *err, size_t err_len);

/* How gt_run_cases_with runs: gt_run_cases's arguments, plus fail-fast. */
typedef struct gt_run_options {
    const char *target_spec; /* "reference", "adapter:CMD", "http:CMD" */
    unsigned jobs;           /* worker threads; 0 = one per CPU */
    size_t max_fail;         /* stop handing out cases once this many failed or errored; 0 = never */
    gt_progress_fn progress; /* may be NULL */
    void *user;
    unsigned profiles;       /* the profiles the target is judged on (gt_profile bits); 0 = what it claims */
} gt_run_options;

/* As gt_run_cases. With max_fail, cases already running finish, and every
 * case not started is still in the run (no case is ever dropped), as a skip
 * whose note says the run stopped early (GT_RUN_NOT_RUN_NOTE). */
gt_run *gt_run_cases_with(const gt_corpus *corpus, const gt_run_options *options, char *err, size_t err_len);
#define GT_RUN_NOT_RUN_NOTE "not run: the run stopped after --max-fail failures"

#endif
